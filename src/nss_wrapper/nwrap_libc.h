/*
 * libc_<name>() for every libc function nss_wrapper calls through,
 * generated from nwrap_libc.def.
 */
#ifndef NWRAP_LIBC_H
#define NWRAP_LIBC_H

#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <shadow.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>

#define CWRAP_LIBC_DEF "nwrap_libc.def"
#include "cwrap_libc_gen.h"
#undef CWRAP_LIBC_DEF

#endif
