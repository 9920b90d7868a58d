/*
 * pam_wrapper's logic: pam_start into the service directory, module log
 * lines into our log, and no audit system. No state of its own: the
 * variables are read at each call (the mode through pwrap_mode.c), the
 * real functions through pwrap_libpam.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "pwrap.h"
#include "pwrap_libc.h"

/* (named after the call the user made) */
#define PWRAP_START_ERROR(...)                                                 \
	cwrap_log_print(CWRAP_LOG_ERROR, "pam_start", __VA_ARGS__)

/* Say in one line why the service directory cannot give `service` its
 * files; libpam's own lines do not name them. */
static void pwrap_explain_failure(const char *dir, const char *service)
{
	const char *base;
	char path[4096];
	struct stat st;

	/* the real stat(): ours would take /etc/pam.d/... for a file of the
	 * directory (access() below is not wrapped either) */
	if (libc_stat(dir, &st) != 0) {
		PWRAP_START_ERROR("PAM_WRAPPER_SERVICE_DIR=%s: %s", dir,
				  strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		PWRAP_START_ERROR("PAM_WRAPPER_SERVICE_DIR=%s: not a directory",
				  dir);
		return;
	}
	if (service == NULL) {
		return;
	}
	/* (libpam keeps only the last component of a service name) */
	base =
	    strrchr(service, '/') != NULL ? strrchr(service, '/') + 1 : service;
	snprintf(path, sizeof(path), "%s/%s", dir, base);
	if (access(path, R_OK) == 0) {
		return; /* there: libpam's lines say what is wrong in it */
	}
	snprintf(path, sizeof(path), "%s/other", dir);
	if (access(path, R_OK) != 0) {
		PWRAP_START_ERROR(
		    "service '%s' has no file %s/%s (nor %s/other)", base, dir,
		    base, dir);
	}
}

int pwrap_pam_start(const char *service, const char *user,
		    const struct pam_conv *conv, pam_handle_t **pamh)
{
	pwrap_pam_start_confdir_fn start = pwrap_real_pam_start_confdir();
	const char *dir = getenv("PAM_WRAPPER_SERVICE_DIR");
	int rc;

	if (start == NULL) {
		CWRAP_ERROR("pam_start(%s): this libpam has no "
			    "pam_start_confdir() (Linux-PAM 1.4 or later is "
			    "needed): PAM_WRAPPER_SERVICE_DIR cannot be used",
			    service != NULL ? service : "(null)");
		if (pamh != NULL) {
			*pamh = NULL;
		}
		return PAM_SYSTEM_ERR;
	}
	if (dir == NULL || *dir == '\0') {
		/* unset by another thread since the caller looked */
		return pwrap_real_pam_start()(service, user, conv, pamh);
	}
	rc = start(service, user, conv, dir, pamh);
	CWRAP_DEBUG("pam_start(%s, %s): service files from %s: %s",
		    service != NULL ? service : "(null)",
		    user != NULL ? user : "(null)", dir,
		    rc == PAM_SUCCESS ? "ok" : "failed");
	if (rc != PAM_SUCCESS) {
		pwrap_explain_failure(dir, service);
	}
	return rc;
}

/* The short name of the module (or program) whose code is at `caller`:
 * "pam_matrix" for .../pam_matrix.so, "PAM" for libpam itself (as
 * libpam's own syslog lines say). */
static void pwrap_caller_name(const void *caller, char *out, size_t cap)
{
	Dl_info info;
	const char *name = NULL;
	size_t len;

	if (caller != NULL && dladdr(caller, &info) != 0 &&
	    info.dli_fname != NULL) {
		name = strrchr(info.dli_fname, '/');
		name = name != NULL ? name + 1 : info.dli_fname;
	}
	if (name == NULL || *name == '\0') {
		name = program_invocation_short_name;
	}
	if (strncmp(name, "libpam.so", 9) == 0) {
		name = "PAM";
	}
	len = strlen(name);
	if (len > 3 && strcmp(name + len - 3, ".so") == 0) {
		len -= 3;
	}
	snprintf(out, cap, "%.*s", (int)len, name);
}

/* msg as one line of the log: a line end (libpam quotes service file
 * text, which may hold one: an unclosed [...] control) as \n, other
 * control characters as '?'. */
static void pwrap_one_line(const char *msg, char *out, size_t cap)
{
	size_t o = 0;

	for (const char *p = msg; *p != '\0' && o + 3 < cap; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else if (c < 0x20 && c != '\t') {
			out[o++] = '?';
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

/* syslog priorities as upstream maps them: emergencies to errors are
 * errors, warnings warnings, notices, information and debug lines debug. */
static int pwrap_syslog_level(int priority)
{
	switch (priority & LOG_PRIMASK) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return CWRAP_LOG_ERROR;
	case LOG_WARNING:
		return CWRAP_LOG_WARN;
	default:
		return CWRAP_LOG_DEBUG;
	}
}

char *pwrap_format(char *buf, size_t cap, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	va_list cp;
	char *big;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(buf, cap, fmt, cp);
	va_end(cp);
	if (n >= 0 && (size_t)n < cap) {
		errno = saved_errno;
		return buf;
	}
	big = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (big != NULL) {
		errno = saved_errno; /* for %m, again */
		va_copy(cp, ap);
		(void)vsnprintf(big, (size_t)n + 1, fmt, cp);
		va_end(cp);
		errno = saved_errno;
		return big;
	}
	if (n < 0) { /* a format vsnprintf refuses: the format as it is */
		snprintf(buf, cap, "%s", fmt);
	}
	errno = saved_errno;
	return buf; /* cut at cap, as vsnprintf left it */
}

void pwrap_real_syslog(pwrap_pam_vsyslog_fn fn, const pam_handle_t *pamh,
		       int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(pamh, priority, fmt, ap);
	va_end(ap);
}

void pwrap_log_line(const void *caller, const pam_handle_t *pamh,
		    int priority, const char *msg)
{
	int saved_errno = errno;
	int level = pwrap_syslog_level(priority);
	const void *service = NULL;
	char who[64];
	char line[2048];

	if (cwrap_env_true("PAM_WRAPPER_USE_SYSLOG")) {
		pwrap_pam_vsyslog_fn real = pwrap_real_pam_vsyslog();

		if (real != NULL) {
			pwrap_real_syslog(real, pamh, priority, "%s", msg);
			errno = saved_errno;
			return;
		}
	}
	if (level > cwrap_log_level()) {
		errno = saved_errno;
		return;
	}
	pwrap_caller_name(caller, who, sizeof(who));
	if (pamh != NULL) {
		pwrap_pam_get_item_fn get = pwrap_real_pam_get_item();

		if (get == NULL ||
		    get(pamh, PAM_SERVICE, &service) != PAM_SUCCESS) {
			service = NULL;
		}
	}
	pwrap_one_line(msg, line, sizeof(line));
	cwrap_log_print(level, "pam_syslog", "%s(%s): %s", who,
			service != NULL ? (const char *)service : "<unknown>",
			line);
	errno = saved_errno;
}

int pwrap_audit_open(void)
{
	CWRAP_TRACE("audit_open: no audit system while pam_wrapper is "
		    "enabled");
	errno = EPROTONOSUPPORT;
	return -1;
}
