/*
 * The real libpam and libaudit functions: see pwrap_libpam.h. State: one
 * atomic pointer per symbol, no lock.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "cwrap_bind.h"
#include "pwrap_libpam.h"

void *pwrap_bind(void **slot, const char *name, const char *lib)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	void *h;

	if (p != NULL) {
		return p;
	}
	p = dlsym(RTLD_NEXT, name);
	if (p == NULL || cwrap_bind_in_self(p)) {
		p = NULL;
		/* The handle is kept: the library may not be unloaded
		 * while we hold a pointer into it. */
		h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
		if (h != NULL) {
			p = dlsym(h, name);
		}
		if (p != NULL && cwrap_bind_in_self(p)) {
			p = NULL;
		}
	}
	if (p != NULL) {
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

#define PWRAP_SYM(ret, name, params, lib)                                      \
	static void *pwrap_slot_##name;                                        \
	pwrap_##name##_fn pwrap_real_##name(void)                              \
	{                                                                      \
		return (pwrap_##name##_fn)pwrap_bind(&pwrap_slot_##name,       \
						     #name, lib);              \
	}
#include "pwrap_libpam.def"
#undef PWRAP_SYM
