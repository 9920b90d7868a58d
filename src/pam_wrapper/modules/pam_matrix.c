/*
 * pam_matrix: a PAM test module that authenticates against a small text
 * file of `user:password:service` lines (see pam_matrix(8) and pmatrix.h).
 *
 *   auth      asks for the password ("Password: ") and compares it with
 *             the user's; PAM_AUTHTOK is then what was typed
 *   setcred   puts CRED=/tmp/USER into the PAM environment
 *   account   the PAM service must be the user's service
 *   password  asks for the old password (PAM_PRELIM_CHECK), then twice for
 *             the new one (PAM_UPDATE_AUTHTOK) and rewrites the file
 *   session   open puts HOMEDIR=/home/USER into the PAM environment,
 *             close removes it
 *
 * Options: passdb=FILE (else the PAM_MATRIX_PASSWD variable), echo (ask
 * with PAM_PROMPT_ECHO_ON), verbose (PAM_TEXT_INFO on success, PAM_ERROR_MSG
 * on failure). The prompts, messages and results are those of upstream's
 * module, which test suites see. Every hook first needs PAM_USER
 * (PAM_BAD_ITEM) and a readable file (PAM_AUTHINFO_UNAVAIL). The file is
 * read at every call; bad lines and bad options are logged with
 * pam_syslog(), which pam_wrapper turns into lines on stderr. No state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "pmatrix.h"

#define PMATRIX_EXPORT __attribute__((visibility("default")))

struct pmatrix {
	pam_handle_t *ph;
	const char *user;
	const char *passdb;
	bool echo, verbose;
	char *text; /* the file */
	size_t len;
};

static void pmatrix_report(void *ctx, size_t line, const char *why)
{
	struct pmatrix *m = ctx;

	pam_syslog(m->ph, LOG_ERR, "%s:%zu: %s: line skipped", m->passdb, line,
		   why);
}

/* The user, the options and the file, which every hook needs. */
static int pmatrix_begin(struct pmatrix *m, pam_handle_t *ph, int argc,
			 const char **argv)
{
	const void *user = NULL;

	memset(m, 0, sizeof(*m));
	m->ph = ph;
	if (pam_get_item(ph, PAM_USER, &user) != PAM_SUCCESS || user == NULL) {
		return PAM_BAD_ITEM;
	}
	m->user = user;
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "passdb=", 7) == 0) {
			m->passdb = argv[i] + 7;
		} else if (strcmp(argv[i], "echo") == 0) {
			m->echo = true;
		} else if (strcmp(argv[i], "verbose") == 0) {
			m->verbose = true;
		} else {
			pam_syslog(ph, LOG_ERR,
				   "unknown option '%s' (known: passdb=FILE, "
				   "echo, verbose)",
				   argv[i]);
		}
	}
	if (m->passdb == NULL || *m->passdb == '\0') {
		m->passdb = getenv("PAM_MATRIX_PASSWD");
	}
	if (m->passdb == NULL || *m->passdb == '\0') {
		pam_syslog(ph, LOG_ERR,
			   "no password file: give passdb=FILE "
			   "or set PAM_MATRIX_PASSWD");
		return PAM_AUTHINFO_UNAVAIL;
	}
	m->text = pmatrix_read(m->passdb, &m->len);
	if (m->text == NULL) {
		pam_syslog(ph, LOG_ERR, "%s: %s", m->passdb, strerror(errno));
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

static void pmatrix_end(struct pmatrix *m)
{
	free(m->text);
	m->text = NULL;
}

static bool pmatrix_find_user(struct pmatrix *m, struct pmatrix_entry *e)
{
	return pmatrix_find(m->text, m->len, m->user, e, pmatrix_report, m);
}

/* An answer to `prompt`: PAM_SUCCESS with *answer set, possibly to NULL
 * (a conversation that succeeded without an answer), or the failed
 * conversation's error with *answer NULL. */
static int pmatrix_ask(struct pmatrix *m, const char *prompt, char **answer)
{
	int style = m->echo ? PAM_PROMPT_ECHO_ON : PAM_PROMPT_ECHO_OFF;
	int rc;

	*answer = NULL;
	rc = pam_prompt(m->ph, style, answer, "%s", prompt);
	if (rc != PAM_SUCCESS) {
		free(*answer);
		*answer = NULL;
	}
	return rc;
}

static void pmatrix_say(struct pmatrix *m, int style, const char *text)
{
	pam_prompt(m->ph, style, NULL, "%s", text);
}

static void pmatrix_drop(char *secret)
{
	if (secret != NULL) {
		memset(secret, 0, strlen(secret));
		free(secret);
	}
}

/* Ask for the user's password and compare: PAM_SUCCESS with *typed set, or
 * PAM_AUTH_ERR (unknown user or another password), PAM_CRED_ERR (the
 * conversation succeeded without an answer: no null passwords, as
 * upstream's module says), PAM_AUTHINFO_UNAVAIL (the conversation
 * failed). */
static int pmatrix_check_password(struct pmatrix *m, const char *prompt,
				  char **typed)
{
	struct pmatrix_entry e;
	char *pw = NULL;
	bool ok;

	if (pmatrix_ask(m, prompt, &pw) != PAM_SUCCESS) {
		return PAM_AUTHINFO_UNAVAIL;
	}
	ok = pw != NULL && pmatrix_find_user(m, &e) &&
	     strlen(pw) == e.password_len &&
	     memcmp(pw, e.password, e.password_len) == 0;
	if (m->verbose) {
		pmatrix_say(m, ok ? PAM_TEXT_INFO : PAM_ERROR_MSG,
			    ok ? "Authentication succeeded"
			       : "Authentication failed");
	}
	if (pw == NULL) {
		return PAM_CRED_ERR;
	}
	if (!ok) {
		pmatrix_drop(pw);
		return PAM_AUTH_ERR;
	}
	*typed = pw;
	return PAM_SUCCESS;
}

PMATRIX_EXPORT int pam_sm_authenticate(pam_handle_t *ph, int flags, int argc,
				       const char **argv)
{
	struct pmatrix m;
	char *pw = NULL;
	int rc;

	(void)flags;
	rc = pmatrix_begin(&m, ph, argc, argv);
	if (rc == PAM_SUCCESS) {
		rc = pmatrix_check_password(&m, "Password: ", &pw);
	}
	if (rc == PAM_SUCCESS) {
		rc = pam_set_item(ph, PAM_AUTHTOK, pw);
	}
	pmatrix_drop(pw);
	pmatrix_end(&m);
	return rc;
}

/* Put NAME=VALUE (or remove NAME, value NULL) in the PAM environment. */
static int pmatrix_putenv(pam_handle_t *ph, const char *name,
			  const char *prefix, const char *value)
{
	char *s = NULL;
	int rc;

	if (value == NULL) {
		/* (removing what is not there is no failure; libpam would log
		 * it as an error) */
		return pam_getenv(ph, name) == NULL ? PAM_SUCCESS
						    : pam_putenv(ph, name);
	}
	if (asprintf(&s, "%s=%s%s", name, prefix, value) < 0) {
		return PAM_BUF_ERR;
	}
	rc = pam_putenv(ph, s);
	free(s);
	return rc;
}

/* A call that sets (prefix non-NULL: NAME=PREFIX<user>) or removes one
 * variable of the PAM environment, for a user of the password file. */
static int pmatrix_env_call(pam_handle_t *ph, int argc, const char **argv,
			    const char *name, const char *prefix)
{
	struct pmatrix m;
	int rc = pmatrix_begin(&m, ph, argc, argv);

	if (rc == PAM_SUCCESS) {
		rc = pmatrix_putenv(ph, name, prefix,
				    prefix != NULL ? m.user : NULL);
	}
	pmatrix_end(&m);
	return rc;
}

PMATRIX_EXPORT int pam_sm_setcred(pam_handle_t *ph, int flags, int argc,
				  const char **argv)
{
	(void)flags;
	return pmatrix_env_call(ph, argc, argv, "CRED", "/tmp/");
}

PMATRIX_EXPORT int pam_sm_acct_mgmt(pam_handle_t *ph, int flags, int argc,
				    const char **argv)
{
	struct pmatrix m;
	struct pmatrix_entry e;
	const void *service = NULL;
	int rc;

	(void)flags;
	rc = pmatrix_begin(&m, ph, argc, argv);
	if (rc == PAM_SUCCESS) {
		pam_get_item(ph, PAM_SERVICE, &service);
		rc = PAM_PERM_DENIED;
		if (service != NULL && pmatrix_find_user(&m, &e) &&
		    strlen(service) == e.service_len &&
		    memcmp(service, e.service, e.service_len) == 0) {
			rc = PAM_SUCCESS;
		}
	}
	pmatrix_end(&m);
	return rc;
}

PMATRIX_EXPORT int pam_sm_open_session(pam_handle_t *ph, int flags, int argc,
				       const char **argv)
{
	(void)flags;
	return pmatrix_env_call(ph, argc, argv, "HOMEDIR", "/home/");
}

PMATRIX_EXPORT int pam_sm_close_session(pam_handle_t *ph, int flags, int argc,
					const char **argv)
{
	(void)flags;
	return pmatrix_env_call(ph, argc, argv, "HOMEDIR", NULL);
}

/* PAM_UPDATE_AUTHTOK: the new password, twice, into the file. */
static int pmatrix_update(struct pmatrix *m)
{
	struct pmatrix_entry e;
	char *pw = NULL, *again = NULL, *text = NULL;
	size_t len;
	int rc = PAM_AUTHINFO_UNAVAIL;

	/* (no answer, or a failed conversation: nothing to change to) */
	if (pmatrix_ask(m, "New Password :", &pw) != PAM_SUCCESS ||
	    pw == NULL) {
		goto out;
	}
	if (pmatrix_ask(m, "Verify New Password :", &again) != PAM_SUCCESS ||
	    again == NULL) {
		goto out;
	}
	if (strcmp(pw, again) != 0) {
		pmatrix_say(m, PAM_ERROR_MSG, "Passwords do not match");
		goto out;
	}
	rc = PAM_AUTHTOK_ERR;
	if (!pmatrix_password_ok(pw)) {
		pmatrix_say(m, PAM_ERROR_MSG,
			    "A password cannot hold ':' or a line end");
		goto out;
	}
	if (!pmatrix_find_user(m, &e)) {
		goto out; /* (the file changed since the old one was checked) */
	}
	text = pmatrix_replace(m->text, m->len, &e, pw, &len);
	if (text == NULL) {
		rc = PAM_BUF_ERR;
		goto out;
	}
	if (pmatrix_write(m->passdb, text, len) != 0) {
		pam_syslog(m->ph, LOG_ERR, "%s: cannot rewrite: %s", m->passdb,
			   strerror(errno));
		goto out;
	}
	rc = pam_set_item(m->ph, PAM_AUTHTOK, pw);
out:
	free(text);
	pmatrix_drop(pw);
	pmatrix_drop(again);
	return rc;
}

PMATRIX_EXPORT int pam_sm_chauthtok(pam_handle_t *ph, int flags, int argc,
				    const char **argv)
{
	struct pmatrix m;
	char *old = NULL;
	int rc;

	rc = pmatrix_begin(&m, ph, argc, argv);
	if (rc != PAM_SUCCESS) {
		goto out;
	}
	if (flags & PAM_PRELIM_CHECK) {
		rc = pmatrix_check_password(&m, "Old password: ", &old);
		if (rc == PAM_SUCCESS) {
			rc = pam_set_item(ph, PAM_OLDAUTHTOK, old);
		}
	} else if (flags & PAM_UPDATE_AUTHTOK) {
		rc = pmatrix_update(&m);
	}
out:
	pmatrix_drop(old);
	pmatrix_end(&m);
	return rc;
}
