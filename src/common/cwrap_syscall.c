/*
 * The next syscall() in the chain and the cross-library protocol (see
 * cwrap_syscall.h). The next syscall() is another wrapper's
 * (uid_wrapper's when socket_wrapper is first, ...) or libc's, found with
 * a plain dlsym(RTLD_NEXT), which cannot return the caller's own. The
 * peer's functions are looked up once, by the constructor: a lookup that
 * fails allocates dlerror()'s message, which must not happen inside a
 * syscall() that a malloc makes. All of it uninstrumented: the sanitizer
 * runtimes call syscall() on i386 before they are set up. State: three
 * pointers and a flag, atomics written once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cwrap_compiler.h"
#include "cwrap_syscall.h"

typedef long (*cwrap_next_syscall_fn)(long, ...);
typedef bool (*cwrap_valid_fn)(long);
typedef long (*cwrap_va_fn)(long, va_list);

static cwrap_next_syscall_fn cwrap_next_syscall;
static cwrap_valid_fn cwrap_peer_valid;
static cwrap_va_fn cwrap_peer_va;
static bool cwrap_started;

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

CWRAP_NO_SANITIZE void cwrap_syscall_start(const char *peer)
{
	char name[64];
	void *valid, *va;

	if (peer != NULL) {
		snprintf(name, sizeof(name), "%s_syscall_valid", peer);
		valid = dlsym(RTLD_DEFAULT, name);
		snprintf(name, sizeof(name), "%s_syscall_va", peer);
		va = dlsym(RTLD_DEFAULT, name);
		if (valid != NULL && va != NULL) {
			__atomic_store_n(&cwrap_peer_va, (cwrap_va_fn)va,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&cwrap_peer_valid,
					 (cwrap_valid_fn)valid,
					 __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&cwrap_started, true, __ATOMIC_RELEASE);
}

CWRAP_NO_SANITIZE bool cwrap_syscall_ready(void)
{
	return __atomic_load_n(&cwrap_started, __ATOMIC_ACQUIRE);
}

CWRAP_NO_SANITIZE static long cwrap_call_va(cwrap_va_fn va, long nr, ...)
{
	va_list ap;
	long rc;

	va_start(ap, nr);
	rc = va(nr, ap);
	va_end(ap);
	return rc;
}

CWRAP_NO_SANITIZE bool cwrap_syscall_peer(long nr, const long a[6], long *rc)
{
	cwrap_valid_fn valid =
	    __atomic_load_n(&cwrap_peer_valid, __ATOMIC_ACQUIRE);

	if (valid == NULL || !valid(nr)) {
		return false;
	}
	*rc = cwrap_call_va(__atomic_load_n(&cwrap_peer_va, __ATOMIC_ACQUIRE),
			    nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	return true;
}
