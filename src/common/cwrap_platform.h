/*
 * The platform layer: what the libraries need from the C library and the
 * kernel headers that not every platform has. cmake/CwrapPlatform.cmake
 * finds out by feature tests and writes cwrap_config.h (HAVE_*); this
 * header includes it and fills in what a platform lacks, so that the
 * logic names one thing everywhere. A library interposes a libc function
 * only where that function exists (HAVE_<function>): what a C library
 * does not have, no program built against it can call.
 *
 * Known platforms:
 *   glibc (x86_64, i686): everything; symbol versions, the fortified
 *     __*_chk entry points, the __res_* spellings, time64 aliases on i686.
 *   musl: no NSS modules (nss.h), no kernel headers on musl-gcc's path,
 *     no close_range/closefrom/bindresvport/getpwent_r/getgrent_r, no
 *     res_n* functions (its resolver keeps no state), no __*_chk.
 */
#ifndef CWRAP_PLATFORM_H
#define CWRAP_PLATFORM_H

#include "cwrap_config.h"

/* The robust-futex words of a pthread mutex (<linux/futex.h>). */
#ifdef HAVE_LINUX_FUTEX_H
#include <linux/futex.h>
#else
#define FUTEX_OWNER_DIED 0x40000000
#define FUTEX_TID_MASK 0x3fffffff
#endif

/* close_range(2)'s flag (<linux/close_range.h>). */
#ifdef HAVE_LINUX_CLOSE_RANGE_H
#include <linux/close_range.h>
#elif !defined(CLOSE_RANGE_CLOEXEC)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* An NSS module's answers (<nss.h>): nss_wrapper loads modules built for
 * this ABI on every platform, musl's included. */
#ifdef HAVE_NSS_H
#include <nss.h>
#else
enum nss_status {
	NSS_STATUS_TRYAGAIN = -2,
	NSS_STATUS_UNAVAIL,
	NSS_STATUS_NOTFOUND,
	NSS_STATUS_SUCCESS,
	NSS_STATUS_RETURN
};
#endif

/* <netdb.h>'s extensions: the IDN flags (glibc) ask for what a wrapped
 * lookup does anyway with ASCII names; NETDB_INTERNAL is h_errno's "see
 * errno". */
#include <netdb.h>
#ifndef AI_IDN
#define AI_IDN 0
#endif
#ifndef AI_CANONIDN
#define AI_CANONIDN 0
#endif
#ifndef NI_IDN
#define NI_IDN 0
#endif
#ifndef NETDB_INTERNAL
#define NETDB_INTERNAL (-1)
#endif

#endif
