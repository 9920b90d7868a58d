/*
 * The next syscall() in the chain: another wrapper's (uid_wrapper's when
 * socket_wrapper is first, ...) or libc's. Found with a plain
 * dlsym(RTLD_NEXT), which cannot return the caller's own, and
 * uninstrumented: the sanitizer runtimes call syscall() on i386 before
 * they are set up.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "cwrap_compiler.h"
#include "cwrap_syscall.h"

typedef long (*cwrap_next_syscall_fn)(long, ...);
static cwrap_next_syscall_fn cwrap_next_syscall;

CWRAP_NO_SANITIZE long cwrap_syscall_next(long nr, const long a[6])
{
	cwrap_next_syscall_fn next;

	next = __atomic_load_n(&cwrap_next_syscall, __ATOMIC_ACQUIRE);
	if (cwrap_unlikely(next == NULL)) {
		next = (cwrap_next_syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (next == NULL) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&cwrap_next_syscall, next, __ATOMIC_RELEASE);
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
