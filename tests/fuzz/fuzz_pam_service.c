/*
 * Fuzz target "pam_service": an input is a PAM service file read through
 * pam_wrapper (its exported pam_start, compiled into the target: libpam's
 * pam_start_confdir() on a service directory of the target's own; its
 * pam_syslog, which libpam and the modules call), with the project's four
 * modules and whatever options, controls and stacks the input gives them;
 * then every operation runs with a conversation that answers "secret"
 * (then "n3w", twice) and keeps the messages.
 *
 * So that nothing but those modules is ever loaded, the input is read as
 * libpam reads it (comments, NUL bytes and line continuations dropped)
 * and every word that could name a file (it holds "/", ".so" or "$ISA")
 * becomes one of the four modules (by its first byte); an included file
 * (after `include`, `substack`, `@include`) is a fixed one (`inc`:
 * pam_matrix, pam_get_items) or a missing one, never the service itself
 * (libpam follows such an include until the stack overflows), and an
 * include without a name gets the missing one (Debian's libpam reads past
 * it); passdb= always names the target's own password file.
 *
 * Checks: every result is a PAM result; the PAM environment holds only
 * what the modules put there (HOMEDIR, CRED, the PAM_* items); the
 * password file keeps its users and services, each password the old one
 * or "n3w"; a message sent is one of the modules' words; every line
 * logged (a bad option, a bad line of a service file: libpam's and the
 * modules' pam_syslog lines, pam_wrapper's own) is one line of
 * pam_wrapper's log, written whole.
 */
#include <dlfcn.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "pmatrix.h"
#include "pwrap.h"

#ifndef FUZZ_PAM_MODULE_DIR
#error "FUZZ_PAM_MODULE_DIR names the built modules"
#endif

/* LeakSanitizer's switch, where it is linked in */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static const char *const modules[] = {"pam_matrix", "pam_get_items",
				      "pam_set_items", "pam_chatty"};
static const char passdb_text[] = "alice:secret:svc\nbob:pw:other\n";
static const char *passdb, *svcdir, *svcfile; /* made at initialisation */

static int conv(int n, const struct pam_message **msg,
		struct pam_response **resp, void *data)
{
	static const char *const answers[] = {"secret", "n3w", "n3w"};
	unsigned *asked = data;
	struct pam_response *r;

	FUZZ_CHECK(n > 0 && n <= PAM_MAX_NUM_MSG);
	r = calloc((size_t)n, sizeof(*r));
	for (int i = 0; i < n; i++) {
		const char *m = msg[i]->msg;

		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			FUZZ_CHECK(strcmp(m, "Password: ") == 0 ||
				   strcmp(m, "Old password: ") == 0 ||
				   strcmp(m, "New Password :") == 0 ||
				   strcmp(m, "Verify New Password :") == 0);
			r[i].resp = strdup(answers[*asked % 3]);
			++*asked;
			break;
		case PAM_TEXT_INFO:
			FUZZ_CHECK(strcmp(m, "Authentication succeeded") == 0);
			break;
		case PAM_ERROR_MSG:
			FUZZ_CHECK(strcmp(m, "Authentication failed") == 0 ||
				   strcmp(m, "Authentication generated an "
					     "error") == 0 ||
				   strcmp(m, "Passwords do not match") == 0 ||
				   strcmp(m, "A password cannot hold ':' or a "
					     "line end") == 0);
			break;
		default:
			FUZZ_CHECK(0);
		}
	}
	*resp = r;
	return PAM_SUCCESS;
}

/* stderr, where the log goes: each message one write of one line */
static ssize_t log_line(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	FUZZ_CHECK(size > 6 && memcmp(buf, "PWRAP_", 6) == 0);
	FUZZ_CHECK(memchr(buf, '\n', size) == buf + size - 1);
	if (getenv("CWRAP_FUZZ_VERBOSE") != NULL) {
		fwrite(buf, 1, size, fuzz_report);
	}
	return (ssize_t)size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const cookie_io_functions_t log_io = {.write = log_line};

	(void)argc;
	(void)argv;
	stderr = fopencookie(NULL, "w", log_io);
	if (stderr == NULL || setvbuf(stderr, NULL, _IONBF, 0) != 0) {
		abort();
	}
	/* The modules stay loaded (RTLD_NODELETE): libpam's dlopen and
	 * dlclose of each transaction only count references, and libFuzzer
	 * sees their code once. */
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s.so", FUZZ_PAM_MODULE_DIR,
			 modules[i]);
		if (dlopen(path, RTLD_NOW | RTLD_NODELETE) == NULL) {
			fprintf(fuzz_report, "fuzz: %s\n", dlerror());
			abort();
		}
	}
	passdb = fuzz_path("passdb");
	svcdir = fuzz_path("services");
	svcfile = fuzz_path("services/svc");
	if (mkdir(svcdir, 0700) != 0) {
		abort();
	}
	{
		char inc[8192];
		int n =
		    snprintf(inc, sizeof(inc),
			     "auth required %s/pam_matrix.so passdb=%s\n"
			     "account required %s/pam_matrix.so\n"
			     "password optional %s/pam_get_items.so\n"
			     "session required %s/pam_get_items.so\n",
			     FUZZ_PAM_MODULE_DIR, passdb, FUZZ_PAM_MODULE_DIR,
			     FUZZ_PAM_MODULE_DIR, FUZZ_PAM_MODULE_DIR);

		const char *incfile = fuzz_path("services/inc");

		fuzz_write(incfile, (const uint8_t *)inc, (size_t)n);
		free((char *)incfile);
	}
	setenv("PAM_WRAPPER", "1", 1);
	setenv("PAM_WRAPPER_SERVICE_DIR", svcdir, 1);
	setenv("PAM_MATRIX_PASSWD", passdb, 1);
	setenv("PAM_WRAPPER_DEBUGLEVEL", "0", 1);
	FUZZ_CHECK(pwrap_enabled());
	return 0;
}

static bool word_is(const char *w, size_t n, const char *s)
{
	return n == strlen(s) && strncasecmp(w, s, n) == 0;
}

/* The input as a service file that names only our modules and our
 * service files (see above): a word that could name a file is one of the
 * four modules, or, where it names an included file (after `include` or
 * `substack`, or `@include`), one of the service directory's files. The
 * words are taken as libpam reads them: first NUL bytes and backslashes
 * (line continuations) are dropped, and comments (from '#' to the line's
 * end) removed. */
static char *service_text(const uint8_t *data, size_t size, size_t *len)
{
	/* (a word grows at most to a module's path or passdb=PATH) */
	char *out = malloc(size * (4096 + 16) + 16), *o = out;
	char *text = malloc(size + 1), *t = text;
	size_t word = 0;
	bool include = false, comment = false;

	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\n') {
			comment = false;
		} else if (data[i] == '#') {
			comment = true;
		}
		if (!comment && data[i] != '\0' && data[i] != '\\') {
			*t++ = (char)data[i];
		}
	}
	*t = '\0';
	for (char *p = text; *p != '\0';) {
		size_t n = strcspn(p, " \t\n");
		char *w = p;
		bool file;

		if (n == 0) {
			if (*p == '\n') {
				/* (Debian's libpam reads past an include
				 * without a name: one is added) */
				if (include) {
					o += sprintf(o, " nosuch");
				}
				word = 0;
				include = false;
			}
			*o++ = *p++;
			continue;
		}
		p += n;
		file = memchr(w, '/', n) != NULL ||
		       memmem(w, n, ".so", 3) != NULL ||
		       memmem(w, n, "$ISA", 4) != NULL;
		if (include && (word == 1 || word == 2)) {
			/* the included file: ours, or none */
			o += sprintf(o, "%s", w[0] % 2 ? "inc" : "nosuch");
			include = false;
		} else if (n >= 7 && strncmp(w, "passdb=", 7) == 0) {
			o += sprintf(o, "passdb=%s", passdb);
		} else if (file) {
			o += sprintf(o, "%s/%s.so", FUZZ_PAM_MODULE_DIR,
				     modules[(unsigned char)w[0] % 4]);
		} else {
			memcpy(o, w, n);
			o += n;
		}
		/* (libpam drops a '-' before the type, "-@include" too) */
		if ((word == 0 && (word_is(w, n, "@include") ||
				   word_is(w, n, "-@include"))) ||
		    (word == 1 &&
		     (word_is(w, n, "include") || word_is(w, n, "substack")))) {
			include = true;
		}
		word++;
	}
	if (include) {
		o += sprintf(o, " nosuch");
	}
	*o = '\0';
	*len = (size_t)(o - out);
	free(text);
	return out;
}

static void check_env(pam_handle_t *ph)
{
	char **env = pam_getenvlist(ph);

	for (char **e = env; e != NULL && *e != NULL; e++) {
		FUZZ_CHECK(strncmp(*e, "HOMEDIR=/home/", 14) == 0 ||
			   strncmp(*e, "CRED=/tmp/", 10) == 0 ||
			   strncmp(*e, "PAM_", 4) == 0);
		free(*e);
	}
	free(env);
}

static void check_passdb(const char *path)
{
	struct pmatrix_entry e;
	size_t len, pos = 0, line = 0;
	char *text = pmatrix_read(path, &len);
	const char *users[] = {"alice", "bob"}, *services[] = {"svc", "other"},
		   *old[] = {"secret", "pw"};

	FUZZ_CHECK(text != NULL);
	for (int i = 0; i < 2; i++) {
		FUZZ_CHECK(
		    pmatrix_next(text, len, &pos, &line, &e, NULL, NULL));
		FUZZ_CHECK(e.user_len == strlen(users[i]) &&
			   memcmp(e.user, users[i], e.user_len) == 0);
		FUZZ_CHECK(e.service_len == strlen(services[i]) &&
			   memcmp(e.service, services[i], e.service_len) == 0);
		FUZZ_CHECK(
		    (e.password_len == strlen(old[i]) &&
		     memcmp(e.password, old[i], e.password_len) == 0) ||
		    (e.password_len == 3 && memcmp(e.password, "n3w", 3) == 0));
	}
	FUZZ_CHECK(!pmatrix_next(text, len, &pos, &line, &e, NULL, NULL));
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const users[] = {"alice", "bob", "carol"};
	struct pam_conv c = {conv, NULL};
	unsigned asked = 0;
	pam_handle_t *ph = NULL;
	char *text;
	size_t len;
	int rc;

	fuzz_write(passdb, (const uint8_t *)passdb_text,
		   sizeof(passdb_text) - 1);
	text = service_text(data, size, &len);
	fuzz_write(svcfile, (const uint8_t *)text, len);
	free(text);

	c.appdata_ptr = &asked;
	/* libpam loses the handle's tables when a service's stack cannot be
	 * built (Linux-PAM 1.5.2): not ours to report. What the operations
	 * and pam_end allocate, modules included, is checked. */
	if (__lsan_disable != NULL) {
		__lsan_disable();
	}
	rc = pam_start("svc", users[size % 3], &c, &ph);
	if (__lsan_enable != NULL) {
		__lsan_enable();
	}
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	if (rc != PAM_SUCCESS) {
		FUZZ_CHECK(ph == NULL);
		check_passdb(passdb);
		return 0;
	}
	rc = pam_authenticate(ph, 0);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	rc = pam_setcred(ph, PAM_ESTABLISH_CRED);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	rc = pam_acct_mgmt(ph, 0);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	rc = pam_open_session(ph, 0);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	check_env(ph);
	rc = pam_close_session(ph, 0);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	asked = 0;
	rc = pam_chauthtok(ph, 0);
	FUZZ_CHECK(rc >= 0 && rc < _PAM_RETURN_VALUES);
	check_env(ph);
	pam_end(ph, rc);
	check_passdb(passdb);
	return 0;
}
