/*
 * Binding to the real libc functions.
 *
 * Each library keeps one list of the libc symbols it calls through, an
 * X-macro file (`swrap_libc.def`, ...) with one line per symbol:
 *
 *     CWRAP_SYM(int, connect, (int s, const struct sockaddr *a, socklen_t l), (s, a, l))
 *     CWRAP_SYM_VOID(endpwent, (void), ())
 *     CWRAP_SYM_PTR(int, fcntl, (int fd, int cmd, ...))
 *
 * Including cwrap_libc_gen.h with CWRAP_LIBC_DEF naming that file declares
 * (or, with CWRAP_LIBC_DEFINE set, defines) `libc_connect(...)`,
 * `libc_endpwent()` and, for variadic functions, `libc_ptr_fcntl()`, which
 * returns the typed pointer. A symbol is bound with dlsym(RTLD_NEXT) on its
 * first use, never in a constructor; the pointer is published with an
 * atomic store, so racing first calls bind the same value without a lock.
 * A symbol that cannot be found, or that resolves back into this library
 * (a circular binding), aborts with a one-line message.
 */
#ifndef CWRAP_BIND_H
#define CWRAP_BIND_H

#include <stdbool.h>
#include <stddef.h>

#include "cwrap_compiler.h"

void *cwrap_bind_symbol(const char *name);

/* Whether p lies in the image (library or executable) this is linked into:
 * what a circular binding would return. */
bool cwrap_bind_in_self(const void *p);

static inline void *cwrap_bind_cached(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (cwrap_unlikely(p == NULL)) {
		p = cwrap_bind_symbol(name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

#endif
