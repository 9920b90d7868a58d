/*
 * Symbol binding: see cwrap_bind.h. Stateless apart from the slots the
 * generated functions own.
 */
#include "cwrap_bind.h"

#include <dlfcn.h>
#include <stddef.h>

#include "cwrap_lib.h"
#include "cwrap_log.h"

void *cwrap_bind_symbol(const char *name)
{
	Dl_info found, self;
	void *p;

	p = dlsym(RTLD_NEXT, name);
	if (p == NULL) {
		cwrap_fatal(__func__, "%s: cannot find libc symbol '%s': %s",
			    cwrap_lib.name, name, dlerror());
	}
	if (dladdr(p, &found) != 0 &&
	    dladdr((void *)cwrap_bind_symbol, &self) != 0 &&
	    found.dli_fbase == self.dli_fbase) {
		cwrap_fatal(__func__,
			    "%s: symbol '%s' resolves back into %s (circular binding)",
			    cwrap_lib.name, name, cwrap_lib.name);
	}
	return p;
}
