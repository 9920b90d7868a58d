/*
 * The real libpam and libaudit functions: pwrap_real_<name>() returns the
 * next definition of <name> after this library, or NULL where there is
 * none (a libpam older than 1.4 has no pam_start_confdir).
 *
 * A program links libpam, and libpam libaudit, so dlsym(RTLD_NEXT) finds
 * them; but a library that a program dlopen()s (a Python extension linked
 * with libpam) brings them in a local scope that RTLD_NEXT does not
 * search. Then the library already loaded is asked by name
 * (RTLD_NOLOAD: nothing is ever loaded by us). The pointer is published
 * with an atomic store; racing first calls bind the same value.
 */
#ifndef PWRAP_LIBPAM_H
#define PWRAP_LIBPAM_H

#include <stdarg.h>
#include <security/pam_appl.h>

#define PWRAP_SYM(ret, name, params, lib)                                      \
	typedef ret(*pwrap_##name##_fn) params;                                \
	pwrap_##name##_fn pwrap_real_##name(void);
#include "pwrap_libpam.def"
#undef PWRAP_SYM

/* The next definition of `name`, looked up in `lib` when RTLD_NEXT has
 * none; NULL if neither has it. */
void *pwrap_bind(void **slot, const char *name, const char *lib);

#endif
