/*
 * pam_wrapper internal API (hidden visibility), grouped by layer:
 *   mode    PAM_WRAPPER and PAM_WRAPPER_SERVICE_DIR, read when the
 *           environment changed, and the library's identity
 *           (pwrap_mode.c, one atomic word);
 *   libpam  the real functions of libpam and libaudit, bound on first use
 *           (pwrap_libpam.c, one atomic pointer each);
 *   logic   pam_start into the service directory, pam_vsyslog into our
 *           log, audit_open finding no audit system (pwrap_pam.c), the
 *           service directory read as /etc/pam.d (pwrap_pamd.c),
 *           PAM_WRAPPER_RUNTIME_DIR naming it at load (pwrap_runtime.c); no
 *           state but the environment.
 * The exported names live in pwrap_entry.c.
 *
 * pam_wrapper needs no copy of libpam and no temporary directory: Linux-PAM
 * 1.4 and later read a service's files from the directory given to
 * pam_start_confdir(), and nothing else of the system's configuration.
 */
#ifndef PWRAP_H
#define PWRAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <security/pam_appl.h>

#include "cwrap_compiler.h"
#include "cwrap_log.h"

/* ---- mode ------------------------------------------------------------ */

/* PAM_WRAPPER is "1" and PAM_WRAPPER_SERVICE_DIR is not empty, now. */
bool pwrap_enabled(void);

/* ---- libpam ---------------------------------------------------------- */

#include "pwrap_libpam.h"

/* ---- logic ----------------------------------------------------------- */

/* pam_start_confdir() with the service directory as confdir, whatever
 * confdir the caller gave. */
int pwrap_pam_start(const char *service, const char *user,
		    const struct pam_conv *conv, pam_handle_t **pamh);

/* A module's (or libpam's) log line, already formatted: into our log, or
 * to syslog with PAM_WRAPPER_USE_SYSLOG=1. `caller` is an address in the
 * code that called pam_syslog/pam_vsyslog, which names the module. */
void pwrap_log_line(const void *caller, const pam_handle_t *pamh,
		    int priority, const char *msg);

/* fmt and ap formatted into buf, or into a malloc()ed string when longer
 * than cap (the caller frees what is not buf); errno as it was, for %m;
 * never NULL (fmt itself, copied into buf, when memory is short). */
char *pwrap_format(char *buf, size_t cap, const char *fmt, va_list ap);

/* The real pam_vsyslog called with a format and its arguments. */
void pwrap_real_syslog(pwrap_pam_vsyslog_fn fn, const pam_handle_t *pamh,
		       int priority, const char *fmt, ...) CWRAP_PRINTF(4, 5);

/* The path to use for `path` while enabled: PAM_WRAPPER_SERVICE_DIR for
 * /etc/pam.d, a file of it for /etc/pam.d/NAME; `path` itself for any
 * other; NULL (errno ENAMETOOLONG) when the result does not fit in cap.
 * Debian's libpam resolves the `include`, `substack` and `@include` of a
 * relative name in /etc/pam.d whatever pam_start_confdir() said (its
 * patch 031_pam_include): through fopen() and stat(), which pam_wrapper
 * interposes. */
const char *pwrap_pamd_path(const char *path, char *buf, size_t cap);

/* PAM_WRAPPER_RUNTIME_DIR set to the service directory when the library
 * loads enabled (its constructor, in pwrap_entry.c), and only then. */
void pwrap_runtime_at_load(void);

/* What libaudit's audit_open() answers where the kernel has no audit
 * support: -1 with errno EPROTONOSUPPORT. */
int pwrap_audit_open(void);

#endif
