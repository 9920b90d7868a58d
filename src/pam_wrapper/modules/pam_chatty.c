/*
 * pam_chatty: a PAM test module that talks. Its authentication sends
 * num_lines PAM_TEXT_INFO messages "Authentication succeeded" (option
 * `info`), then num_lines PAM_ERROR_MSG messages "Authentication generated
 * an error" (option `error`), each through its own conversation call, and
 * succeeds; num_lines=N (0..4096, default 3). Without `info` or `error` it
 * says nothing. Setting credentials succeeds and says nothing. No state.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#define PCHATTY_EXPORT __attribute__((visibility("default")))
#define PCHATTY_DEFAULT_LINES 3
#define PCHATTY_MAX_LINES 4096

static long pchatty_lines(pam_handle_t *ph, const char *value)
{
	char *end = NULL;
	long n;

	n = strtol(value, &end, 10);
	if (*value < '0' || *value > '9' || *end != '\0' ||
	    n > PCHATTY_MAX_LINES) {
		pam_syslog(ph, LOG_ERR,
			   "num_lines=%s is not a number of 0..%d, using %d",
			   value, PCHATTY_MAX_LINES, PCHATTY_DEFAULT_LINES);
		return PCHATTY_DEFAULT_LINES;
	}
	return n;
}

PCHATTY_EXPORT int pam_sm_authenticate(pam_handle_t *ph, int flags, int argc,
				       const char **argv)
{
	long lines = PCHATTY_DEFAULT_LINES;
	bool info = false, error = false;

	(void)flags;
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "num_lines=", 10) == 0) {
			lines = pchatty_lines(ph, argv[i] + 10);
		} else if (strcmp(argv[i], "info") == 0) {
			info = true;
		} else if (strcmp(argv[i], "error") == 0) {
			error = true;
		} else {
			pam_syslog(ph, LOG_ERR,
				   "unknown option '%s' (known: num_lines=N, "
				   "info, error)",
				   argv[i]);
		}
	}
	for (long i = 0; info && i < lines; i++) {
		int rc = pam_prompt(ph, PAM_TEXT_INFO, NULL, "%s",
				    "Authentication succeeded");

		if (rc != PAM_SUCCESS) {
			return rc;
		}
	}
	for (long i = 0; error && i < lines; i++) {
		int rc = pam_prompt(ph, PAM_ERROR_MSG, NULL, "%s",
				    "Authentication generated an error");

		if (rc != PAM_SUCCESS) {
			return rc;
		}
	}
	return PAM_SUCCESS;
}

/* An auth module provides both hooks; libpam logs an error for each
 * service file line of a module that lacks this one. */
PCHATTY_EXPORT int pam_sm_setcred(pam_handle_t *ph, int flags, int argc,
				  const char **argv)
{
	(void)ph;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
