/*
 * The exported names: libpam's pam_start, pam_start_confdir, pam_syslog
 * and pam_vsyslog, libaudit's audit_open, the C library's fopen and stat
 * (for Debian's includes from /etc/pam.d, pwrap_pamd.c), and
 * pam_wrapper_enabled(). Each
 * decides "is pam_wrapper enabled now?" (one cached test) and calls the
 * logic or the real function. No state, no locks. Keep it thin.
 *
 * A preloaded definition comes before libpam's in every lookup, also
 * libpam's own calls (its internal pam_syslog lines, its audit_open),
 * and the modules' calls.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "pwrap.h"
#include "pwrap_libc.h"

CWRAP_EXPORT bool pam_wrapper_enabled(void);

__attribute__((constructor)) static void pwrap_load(void)
{
	pwrap_runtime_at_load();
}

bool pam_wrapper_enabled(void)
{
	return pwrap_enabled();
}

/* A real function that must exist in the library the caller linked. */
#define PWRAP_REAL(name)                                                       \
	({                                                                     \
		pwrap_##name##_fn fn_ = pwrap_real_##name();                   \
		if (fn_ == NULL) {                                             \
			CWRAP_FATAL("cannot find the real '%s'", #name);       \
		}                                                              \
		fn_;                                                           \
	})

CWRAP_EXPORT int pam_start(const char *service_name, const char *user,
			   const struct pam_conv *pam_conversation,
			   pam_handle_t **pamh);

int pam_start(const char *service_name, const char *user,
	      const struct pam_conv *pam_conversation, pam_handle_t **pamh)
{
	if (!pwrap_enabled()) {
		return PWRAP_REAL(pam_start)(service_name, user,
					     pam_conversation, pamh);
	}
	return pwrap_pam_start(service_name, user, pam_conversation, pamh);
}

CWRAP_EXPORT int pam_start_confdir(const char *service_name, const char *user,
				   const struct pam_conv *pam_conversation,
				   const char *confdir, pam_handle_t **pamh);

int pam_start_confdir(const char *service_name, const char *user,
		      const struct pam_conv *pam_conversation,
		      const char *confdir, pam_handle_t **pamh)
{
	if (!pwrap_enabled()) {
		return PWRAP_REAL(pam_start_confdir)(
		    service_name, user, pam_conversation, confdir, pamh);
	}
	return pwrap_pam_start(service_name, user, pam_conversation, pamh);
}

/* A module's line, formatted (in `stack` or allocated): to our log, or to
 * libpam's syslog when the wrapper is off. */
static void pwrap_syslog_line(const void *caller, const pam_handle_t *pamh,
			      int priority, char *msg, const char *stack)
{
	if (!pwrap_enabled()) {
		pwrap_real_syslog(PWRAP_REAL(pam_vsyslog), pamh, priority,
				  "%s", msg);
	} else {
		pwrap_log_line(caller, pamh, priority, msg);
	}
	if (msg != stack) {
		free(msg);
	}
}

CWRAP_EXPORT void pam_vsyslog(const pam_handle_t *pamh, int priority,
			      const char *fmt, va_list args);

/* The line is formatted first, before anything here may call the dynamic
 * linker (binding a real function, naming the caller): libpam logs
 * "unable to dlopen(%s): %s" with dlerror()'s text, which the next dl*
 * call of the thread frees. errno is kept for the caller's %m. */
void pam_vsyslog(const pam_handle_t *pamh, int priority, const char *fmt,
		 va_list args)
{
	const void *caller = __builtin_return_address(0);
	char stack[1024];

	pwrap_syslog_line(caller, pamh, priority,
			  pwrap_format(stack, sizeof(stack), fmt, args), stack);
}

CWRAP_EXPORT void pam_syslog(const pam_handle_t *pamh, int priority,
			     const char *fmt, ...) CWRAP_PRINTF(3, 4);

void pam_syslog(const pam_handle_t *pamh, int priority, const char *fmt, ...)
{
	const void *caller = __builtin_return_address(0);
	char stack[1024];
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = pwrap_format(stack, sizeof(stack), fmt, ap);
	va_end(ap);
	pwrap_syslog_line(caller, pamh, priority, msg, stack);
}

CWRAP_EXPORT int audit_open(void);

int audit_open(void)
{
	if (!pwrap_enabled()) {
		return PWRAP_REAL(audit_open)();
	}
	return pwrap_audit_open();
}

/* The C library's functions that take a path first, one line each:
 * /etc/pam.d and its files are the service directory's while enabled. */
#define PWRAP_PATH_FN(ret, name, arg_t, fail)                                  \
	CWRAP_EXPORT ret name(const char *path, arg_t arg);                    \
	ret name(const char *path, arg_t arg)                                  \
	{                                                                      \
		char buf[PATH_MAX];                                            \
		const char *p = path;                                          \
                                                                               \
		if (cwrap_unlikely(pwrap_enabled())) {                         \
			p = pwrap_pamd_path(path, buf, sizeof(buf));           \
		}                                                              \
		return p != NULL ? libc_##name(p, arg) : (fail);               \
	}

PWRAP_PATH_FN(FILE *, fopen, const char *, NULL)
#ifdef HAVE_FOPEN64
PWRAP_PATH_FN(FILE *, fopen64, const char *, NULL)
#endif
PWRAP_PATH_FN(int, stat, struct stat *, -1)
#ifdef HAVE_STAT64_FUNCTION
PWRAP_PATH_FN(int, stat64, struct stat64 *, -1)
#endif
