/*
 * Definitions of the libc_<name>() functions from rwrap_libc.def; each binds
 * its symbol on first use (src/common/cwrap_bind.h). res_close is bound
 * here by hand: it exists only in libresolv.so.2, which a program that calls
 * res_close has loaded, and a missing one is not fatal (then no state of
 * libresolv's exists to close).
 */
#include <dlfcn.h>

#include "rwrap_resolv.h"

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "rwrap_libc.def"
#include "cwrap_libc_gen.h"

void libc_res_close(void);

static void *rwrap_next_res_close;

void libc_res_close(void)
{
	void *p = __atomic_load_n(&rwrap_next_res_close, __ATOMIC_ACQUIRE);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, "__res_close");
		if (p == NULL || cwrap_bind_in_self(p)) {
			return;
		}
		__atomic_store_n(&rwrap_next_res_close, p, __ATOMIC_RELEASE);
	}
	((void (*)(void))p)();
}
