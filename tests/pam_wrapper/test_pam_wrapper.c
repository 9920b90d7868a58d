/*
 * The wrapper itself, preloaded: when it is enabled (read again after
 * each change of the environment), that pam_start() and
 * pam_start_confdir() read the service directory's files and no other,
 * that an inert wrapper passes every call on unchanged, where pam_syslog
 * lines go and at which level, and that libaudit's audit_open() finds no
 * audit system while enabled.
 */
#include "pamw_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

static bool enabled(void)
{
	bool (*fn)(void) =
	    (bool (*)(void))dlsym(RTLD_DEFAULT, "pam_wrapper_enabled");

	assert_non_null(fn);
	return fn();
}

static void test_enabled(void **state)
{
	struct pamw_test *t = *state;

	assert_true(enabled());
	setenv("PAM_WRAPPER", "0", 1);
	assert_false(enabled());
	setenv("PAM_WRAPPER", "yes", 1); /* only "1" enables, as upstream */
	assert_false(enabled());
	setenv("PAM_WRAPPER", "1", 1);
	assert_true(enabled());
	unsetenv("PAM_WRAPPER_SERVICE_DIR");
	assert_false(enabled());
	setenv("PAM_WRAPPER_SERVICE_DIR", "", 1);
	assert_false(enabled());
	setenv("PAM_WRAPPER_SERVICE_DIR", t->svcdir, 1);
	assert_true(enabled());
	unsetenv("PAM_WRAPPER");
	assert_false(enabled());
}

static int noconv(int n, const struct pam_message **m, struct pam_response **r,
		  void *d)
{
	(void)n;
	(void)m;
	(void)r;
	(void)d;
	return PAM_CONV_ERR;
}

static const struct pam_conv conv = {noconv, NULL};

/* Which stack ran: the service directory's pam_get_items puts
 * PAM_SERVICE into the PAM environment, the other directory's
 * pam_permit does not. */
static const char *which_stack(pam_handle_t *ph)
{
	assert_int_equal(pam_acct_mgmt(ph, 0), PAM_SUCCESS);
	return pam_getenv(ph, "PAM_SERVICE");
}

/* A service file in a second directory: the same name, another stack. */
static char *other_dir(struct pamw_test *t)
{
	char *d = cwrap_test_path(t->dir, "elsewhere");
	char *f = cwrap_test_path(d, "svc");

	assert_int_equal(mkdir(d, 0755), 0);
	cwrap_test_write_file(f, "account required pam_permit.so\n");
	free(f);
	return d;
}

static void test_service_dir(void **state)
{
	struct pamw_test *t = *state;
	pam_handle_t *ph = NULL;
	char *elsewhere = other_dir(t);

	pamw_test_service(t, "svc", "account required @M@/pam_get_items.so\n");

	/* pam_start: from the service directory */
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	assert_string_equal(which_stack(ph), "svc");
	pam_end(ph, PAM_SUCCESS);

	/* pam_start_confdir: the service directory, not the caller's */
	assert_int_equal(
	    pam_start_confdir("svc", "alice", &conv, elsewhere, &ph),
	    PAM_SUCCESS);
	assert_string_equal(which_stack(ph), "svc");
	pam_end(ph, PAM_SUCCESS);

	/* a service name with a directory: libpam keeps its last part */
	assert_int_equal(pam_start("/etc/pam.d/svc", "alice", &conv, &ph),
			 PAM_SUCCESS);
	assert_string_equal(which_stack(ph), "svc");
	pam_end(ph, PAM_SUCCESS);

	/* another directory named between two pam_start() calls */
	setenv("PAM_WRAPPER_SERVICE_DIR", elsewhere, 1);
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	assert_int_equal(pam_acct_mgmt(ph, 0), PAM_SUCCESS);
	assert_null(pam_getenv(ph, "PAM_SERVICE")); /* pam_permit's stack */
	pam_end(ph, PAM_SUCCESS);

	/* inert: the caller's confdir is libpam's */
	unsetenv("PAM_WRAPPER");
	assert_int_equal(
	    pam_start_confdir("svc", "alice", &conv, t->svcdir, &ph),
	    PAM_SUCCESS);
	assert_string_equal(which_stack(ph), "svc");
	pam_end(ph, PAM_SUCCESS);
	assert_int_equal(
	    pam_start_confdir("svc", "alice", &conv, elsewhere, &ph),
	    PAM_SUCCESS);
	assert_int_equal(pam_acct_mgmt(ph, 0), PAM_SUCCESS);
	assert_null(pam_getenv(ph, "PAM_SERVICE"));
	pam_end(ph, PAM_SUCCESS);
	free(elsewhere);
}

static int start_nosuch(void *arg)
{
	pam_handle_t *ph = NULL;
	int rc = pam_start("nosuch", "alice", &conv, &ph);

	(void)arg;
	return rc == PAM_SUCCESS || ph != NULL ? 255 : rc;
}

/* A service the directory does not have, nor `other`: pam_start fails,
 * and one line names the file looked for. A directory that is not there
 * is named too. */
static void test_missing_service(void **state)
{
	struct pamw_test *t = *state;
	char *other = cwrap_test_path(t->svcdir, "other");
	char *err, want[4096];

	unlink(other);
	free(other);
	pamw_test_capture_begin();
	assert_int_equal(pamw_test_in_child(start_nosuch, NULL), PAM_ABORT);
	setenv("PAM_WRAPPER_SERVICE_DIR", "/nonexistent/services", 1);
	assert_int_equal(pamw_test_in_child(start_nosuch, NULL), PAM_ABORT);
	err = pamw_test_capture_end();
	snprintf(want, sizeof(want),
		 "pam_start: service 'nosuch' has no file %s/nosuch (nor "
		 "%s/other)",
		 t->svcdir, t->svcdir);
	assert_int_equal(pamw_test_count_lines(err, want), 1);
	assert_int_equal(
	    pamw_test_count_lines(err, "pam_start: PAM_WRAPPER_SERVICE_DIR="
				       "/nonexistent/services: No such file "
				       "or directory"),
	    1);
	free(err);
}

/* pam_syslog() while enabled: one line on stderr naming the module (here
 * the program) and the service, at the level of its priority; errno kept
 * for %m. */
static void test_syslog_levels(void **state)
{
	struct pamw_test *t = *state;
	pam_handle_t *ph = NULL;
	char *err;

	pamw_test_service(t, "svc", "account required pam_permit.so\n");
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);

	setenv("PAM_WRAPPER_DEBUGLEVEL", "0", 1);
	pamw_test_capture_begin();
	errno = ENOENT;
	pam_syslog(ph, LOG_ERR, "an error: %m");
	assert_int_equal(errno, ENOENT);
	pam_syslog(ph, LOG_AUTHPRIV | LOG_CRIT, "critical");
	pam_syslog(ph, LOG_WARNING, "a warning");
	pam_syslog(ph, LOG_NOTICE, "a notice");
	pam_syslog(ph, LOG_DEBUG, "debugging");
	pam_syslog(NULL, LOG_ERR, "no handle");
	err = pamw_test_capture_end();
	assert_int_equal(
	    pamw_test_count_lines(err, "PWRAP_ERROR(test_pam_wrapper["), 3);
	assert_int_equal(
	    pamw_test_count_lines(
		err, "pam_syslog: test_pam_wrapper(svc): an error: No such "
		     "file or directory"),
	    1);
	assert_int_equal(pamw_test_count_lines(err, "(svc): critical"), 1);
	assert_int_equal(
	    pamw_test_count_lines(err, "test_pam_wrapper(<unknown>): no "
				       "handle"),
	    1);
	assert_int_equal(pamw_test_count_lines(err, "a warning"), 0);
	free(err);

	setenv("PAM_WRAPPER_DEBUGLEVEL", "2", 1);
	pamw_test_capture_begin();
	pam_syslog(ph, LOG_WARNING, "a warning");
	pam_syslog(ph, LOG_NOTICE, "a notice");
	pam_syslog(ph, LOG_INFO, "some info");
	pam_syslog(ph, LOG_DEBUG, "debugging");
	err = pamw_test_capture_end();
	assert_int_equal(pamw_test_count_lines(err, "PWRAP_WARN("), 1);
	assert_int_equal(pamw_test_count_lines(err, "PWRAP_DEBUG("), 3);
	free(err);

	/* PAM_WRAPPER_USE_SYSLOG=1: to libpam's (syslog), not to stderr */
	setenv("PAM_WRAPPER_USE_SYSLOG", "1", 1);
	pamw_test_capture_begin();
	pam_syslog(ph, LOG_ERR, "to syslog");
	err = pamw_test_capture_end();
	assert_int_equal(pamw_test_count_lines(err, "to syslog"), 0);
	free(err);
	unsetenv("PAM_WRAPPER_USE_SYSLOG");

	/* inert: libpam's own pam_syslog (syslog), nothing on stderr */
	unsetenv("PAM_WRAPPER");
	pamw_test_capture_begin();
	pam_syslog(ph, LOG_ERR, "inert");
	err = pamw_test_capture_end();
	assert_int_equal(pamw_test_count_lines(err, "inert"), 0);
	free(err);
	unsetenv("PAM_WRAPPER_DEBUGLEVEL");
	pam_end(ph, PAM_SUCCESS);
}

/* A module's own lines name the module. */
static void test_module_lines(void **state)
{
	struct pamw_test *t = *state;
	pam_handle_t *ph = NULL;
	char *err;

	pamw_test_service(t, "svc",
			  "account required @M@/pam_get_items.so bogus\n");
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	pamw_test_capture_begin();
	assert_int_equal(pam_acct_mgmt(ph, 0), PAM_SUCCESS);
	err = pamw_test_capture_end();
	assert_int_equal(
	    pamw_test_count_lines(err, "pam_syslog: pam_get_items(svc): "
				       "unknown option 'bogus'"),
	    1);
	free(err);
	pam_end(ph, PAM_SUCCESS);
}

/* Included files come from the service directory too: Debian's libpam
 * looks for them in /etc/pam.d (fopen, after a stat of the directory),
 * which reads as the service directory while pam_wrapper is enabled. */
static void test_includes(void **state)
{
	struct pamw_test *t = *state;
	pam_handle_t *ph = NULL;
	struct stat a, b;
	char *path;
	FILE *f;

	pamw_test_service(t, "common-items",
			  "account required @M@/pam_get_items.so\n"
			  "session required @M@/pam_get_items.so\n");
	pamw_test_service(t, "svc",
			  "account include common-items\n"
			  "session substack common-items\n"
			  "@include common-items\n");
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	assert_int_equal(pam_acct_mgmt(ph, 0), PAM_SUCCESS);
	assert_string_equal(pam_getenv(ph, "PAM_USER"), "alice");
	assert_int_equal(pam_open_session(ph, 0), PAM_SUCCESS);
	pam_end(ph, PAM_SUCCESS);

	/* what libpam's calls see */
	assert_int_equal(stat("/etc/pam.d", &a), 0);
	assert_int_equal(stat(t->svcdir, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	f = fopen("/etc/pam.d/common-items", "r");
	assert_non_null(f);
	fclose(f);
	assert_null(fopen("/etc/pam.d/nosuch", "r"));
	assert_int_equal(errno, ENOENT);
	/* other paths, and /etc/pam.d once inert, are the system's */
	path = cwrap_test_path(t->dir, "passdb");
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
	free(path);
	assert_int_not_equal(stat("/etc/pam.dx", &a), 0);
	unsetenv("PAM_WRAPPER");
	assert_null(fopen("/etc/pam.d/common-items", "r"));
	if (stat("/etc/pam.d", &a) == 0) {
		assert_false(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	}
}

/* PAM_WRAPPER_KEEP_DIR and PAM_WRAPPER_DISABLE_DEEPBIND are accepted and
 * change nothing (there is no temporary directory, no RTLD_DEEPBIND):
 * no line about them, the same service read. */
static void test_accepted_variables(void **state)
{
	struct pamw_test *t = *state;
	pam_handle_t *ph = NULL;
	char *err;

	pamw_test_service(t, "svc", "account required @M@/pam_get_items.so\n");
	setenv("PAM_WRAPPER_KEEP_DIR", "1", 1);
	setenv("PAM_WRAPPER_DISABLE_DEEPBIND", "1", 1);
	pamw_test_capture_begin();
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	assert_string_equal(which_stack(ph), "svc");
	pam_end(ph, PAM_SUCCESS);
	err = pamw_test_capture_end();
	assert_string_equal(err, "");
	free(err);
	unsetenv("PAM_WRAPPER_KEEP_DIR");
	unsetenv("PAM_WRAPPER_DISABLE_DEEPBIND");
}

typedef int (*audit_open_fn)(void);

static void test_audit(void **state)
{
	audit_open_fn ours = (audit_open_fn)dlsym(RTLD_DEFAULT, "audit_open");
	void *libaudit = dlopen("libaudit.so.1", RTLD_LAZY | RTLD_NOLOAD);
	audit_open_fn real;
	int fd, e, real_fd, real_e;

	(void)state;
	assert_non_null(ours);
	assert_non_null(libaudit); /* libpam's dependency */
	real = (audit_open_fn)dlsym(libaudit, "audit_open");
	assert_non_null(real);
	assert_ptr_not_equal(ours, real);

	errno = 0;
	assert_int_equal(ours(), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);

	/* inert: what libaudit itself answers */
	unsetenv("PAM_WRAPPER");
	errno = 0;
	fd = ours();
	e = errno;
	errno = 0;
	real_fd = real();
	real_e = errno;
	assert_int_equal(fd >= 0, real_fd >= 0);
	if (fd < 0) {
		assert_int_equal(e, real_e);
	} else {
		close(fd);
		close(real_fd);
	}
	dlclose(libaudit);
}

/* The child of test_runtime_dir, started with the variables set, as a
 * test program of upstream's suite is: PAM_WRAPPER_RUNTIME_DIR names the
 * service directory before any PAM call; a service written there then
 * runs. Exit 0, or which step failed. */
static int runtime_child(const char *want)
{
	const char *rt = getenv("PAM_WRAPPER_RUNTIME_DIR");
	const char *passdb = getenv("PWRAP_TEST_PASSDB");
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data data = {.in_echo_off = pw};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};
	char *path, *text;

	if (strcmp(want, "unset") == 0) {
		return rt == NULL ? 0 : 2;
	}
	if (rt == NULL || strcmp(rt, want) != 0 || passdb == NULL) {
		return 3;
	}
	path = cwrap_test_path(rt, "late");
	assert_true(asprintf(&text,
			     "auth required %s/pam_matrix.so passdb=%s\n",
			     pamw_test_module_dir(), passdb) > 0);
	cwrap_test_write_file(path, text);
	free(path);
	free(text);
	return run_pamtest("late", "alice", &data, tc, NULL) == PAMTEST_ERR_OK
		   ? 0
		   : 4;
}

/* This program, as started (not /proc/self/exe, which is valgrind's
 * under memcheck) */
static const char *self;

static int run_child(const char *want)
{
	pid_t pid;
	int status;

	/* (what this process's own calls set is not inherited) */
	unsetenv("PAM_WRAPPER_RUNTIME_DIR");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(self, "test_pam_wrapper", "--runtime-child", want,
		      (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* PAM_WRAPPER_RUNTIME_DIR: set when the library loads enabled (a child
 * started with the variables), not when it loads inert; a service file
 * written into it after load is read by the next pam_start. Never set
 * afterwards (the environment is not changed under the program's
 * threads): enabled at run time, or given another directory, pam_start
 * reads PAM_WRAPPER_SERVICE_DIR and leaves the variable alone. */
static void test_runtime_dir(void **state)
{
	struct pamw_test *t = *state;
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data data = {.in_echo_off = pw};
	struct pam_testcase tc[] = {
	    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS)};
	char *elsewhere = other_dir(t);
	pam_handle_t *ph = NULL;

	setenv("PWRAP_TEST_PASSDB", t->passdb, 1);
	assert_int_equal(run_child(t->svcdir), 0);
	setenv("PAM_WRAPPER", "0", 1);
	assert_int_equal(run_child("unset"), 0);
	unsetenv("PWRAP_TEST_PASSDB");

	/* enabled at run time: the services are read, the variable left */
	setenv("PAM_WRAPPER", "1", 1);
	assert_true(enabled());
	pamw_test_service(t, "late",
			  "auth required @M@/pam_matrix.so "
			  "passdb=@P@\n");
	assert_int_equal(run_pamtest("late", "alice", &data, tc, NULL),
			 PAMTEST_ERR_OK);
	assert_null(getenv("PAM_WRAPPER_RUNTIME_DIR"));

	/* another directory: read at the next pam_start, the same */
	setenv("PAM_WRAPPER_SERVICE_DIR", elsewhere, 1);
	assert_int_equal(pam_start("svc", "alice", &conv, &ph), PAM_SUCCESS);
	pam_end(ph, PAM_SUCCESS);
	assert_null(getenv("PAM_WRAPPER_RUNTIME_DIR"));
	free(elsewhere);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 3 && strcmp(argv[1], "--runtime-child") == 0) {
		return runtime_child(argv[2]);
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_runtime_dir, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_enabled, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_service_dir, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_missing_service, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_syslog_levels, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_module_lines, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(
		test_accepted_variables, pamw_test_setup, pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_includes, pamw_test_setup,
					    pamw_test_teardown),
	    cmocka_unit_test_setup_teardown(test_audit, pamw_test_setup,
					    pamw_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
