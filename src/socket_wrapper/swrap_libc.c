/*
 * Definitions of the libc_<name>() functions from swrap_libc.def; each binds
 * its symbol on first use (src/common/cwrap_bind.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <netinet/in.h>

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "swrap_libc.def"
#include "cwrap_libc_gen.h"

#include "cwrap_compiler.h"
#include "swrap.h"

typedef long (*swrap_next_syscall_fn)(long, ...);
static swrap_next_syscall_fn swrap_next_syscall;

/* The next syscall() (uid_wrapper's, or libc's), found with a plain
 * dlsym(RTLD_NEXT), which cannot return ours; uninstrumented, as the
 * sanitizer runtimes call syscall() before they are set up (i386). */
CWRAP_NO_SANITIZE long swrap_syscall_next(long nr, const long a[6])
{
	swrap_next_syscall_fn next;

	next = __atomic_load_n(&swrap_next_syscall, __ATOMIC_ACQUIRE);
	if (cwrap_unlikely(next == NULL)) {
		next = (swrap_next_syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (next == NULL) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&swrap_next_syscall, next, __ATOMIC_RELEASE);
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
