/*
 * Symbol binding: see cwrap_bind.h. Stateless apart from the slots the
 * generated functions own.
 */
#include "cwrap_bind.h"

#include <dlfcn.h>
#include <stddef.h>

#include "cwrap_lib.h"
#include "cwrap_log.h"

/* The first and last byte of the image this file is linked into (the
 * library; an executable for the unit tests), defined by the linker (GNU
 * ld, gold and lld alike). A range check costs nothing, where dladdr()
 * of a libc address walks all of libc's symbols: some 50,000 instructions
 * per symbol bound, a tenth of a millisecond in every process that uses a
 * dozen wrapped functions. */
extern const char __ehdr_start[] CWRAP_HIDDEN;
extern const char _end[] CWRAP_HIDDEN;

bool cwrap_bind_in_self(const void *p)
{
	return (const char *)p >= __ehdr_start && (const char *)p < _end;
}

void *cwrap_bind_symbol(const char *name)
{
	void *p;

	p = dlsym(RTLD_NEXT, name);
	if (p == NULL) {
		cwrap_fatal(__func__, "%s: cannot find libc symbol '%s': %s",
			    cwrap_lib.name, name, dlerror());
	}
	if (cwrap_bind_in_self(p)) {
		cwrap_fatal(__func__,
			    "%s: symbol '%s' resolves back into %s (circular binding)",
			    cwrap_lib.name, name, cwrap_lib.name);
	}
	return p;
}
