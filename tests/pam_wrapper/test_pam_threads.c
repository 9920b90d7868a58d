/*
 * Threads: several threads run PAM transactions through libpamtest at
 * once (pam_start into the service directory, pam_matrix reading the
 * password file, module log lines), while another changes the
 * environment, which makes pam_wrapper read its variables again.
 */
#include "pamw_test.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ROUNDS 40

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		const char *pw[] = {id % 2 ? "secret" : "wrong", NULL};
		struct pamtest_conv_data conv = {.in_echo_off = pw};
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_AUTHENTICATE,
			     id % 2 ? PAM_SUCCESS : PAM_AUTH_ERR),
		    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
		    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
		    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS),
		};

		if (run_pamtest("svc", "alice", &conv, tc, NULL) !=
		    PAMTEST_ERR_OK) {
			return (void *)1;
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct pamw_test *t = *state;
	pthread_t th[THREADS];
	void *rv, *module;
	char *path, *other;
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	/* (the unknown option "x" logs an error line per call, from every
	 * thread: into /dev/null) */
	assert_true(saved >= 0 && null >= 0);
	assert_int_equal(dup2(null, 2), 2);

	/* The module is loaded once beforehand (and there is no `other`
	 * service, whose modules libpam would load too), so that the
	 * threads' pam_start/pam_end only count references to it: glibc's
	 * dlopen and dlclose serialise on a lock of the dynamic loader that
	 * ThreadSanitizer does not see, and loading in parallel would be
	 * reported as a race inside ld.so. */
	other = cwrap_test_path(t->svcdir, "other");
	assert_int_equal(unlink(other), 0);
	free(other);
	path = cwrap_test_path(pamw_test_module_dir(), "pam_matrix.so");
	module = dlopen(path, RTLD_NOW);
	assert_non_null(module);
	free(path);
	pamw_test_service(t, "svc",
			  "auth    required @M@/pam_matrix.so passdb=@P@ x\n"
			  "account required @M@/pam_matrix.so passdb=@P@\n"
			  "session required @M@/pam_matrix.so passdb=@P@\n");
	for (long i = 0; i < THREADS; i++) {
		assert_int_equal(
		    pthread_create(&th[i], NULL, worker, (void *)i), 0);
	}
	for (int i = 0; i < 200; i++) {
		char v[16];

		snprintf(v, sizeof(v), "%d", i);
		setenv("CWRAP_PWRAP_UNRELATED", v, 1);
	}
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(th[i], &rv), 0);
		assert_null(rv);
	}
	dup2(saved, 2);
	close(saved);
	close(null);
	dlclose(module);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_threads, pamw_test_setup,
					    pamw_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
