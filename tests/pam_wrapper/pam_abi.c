/*
 * pam_abi DIR: libpamtest's binary interface, as a program built with
 * our libpamtest.h sees it, whichever libpamtest it runs against (ours or
 * upstream's, Debian's libpamtest0: pam_abi.sh runs each build with
 * each). The checks are those every libpamtest passes: the results and
 * op_rv of cases, a stop at the first unexpected result and the case it
 * names, the default conversation's answers and messages, GETENVLIST,
 * KEEPHANDLE and a second run on the kept handle, run_pamtest_conv(),
 * pamtest_strerror(). Runs under pam_wrapper (PAM_WRAPPER_SERVICE_DIR =
 * DIR/services) with the modules of PAM_ABI_MODULES; prints the
 * libpamtest it used and "ok", or the first check that failed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libpamtest.h>

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__,        \
			       #cond);                                         \
			failures++;                                            \
		}                                                              \
	} while (0)

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env != NULL && *env != NULL; env++) {
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') {
			return *env + n + 1;
		}
	}
	return NULL;
}

static int my_conv(int n, const struct pam_message **msg,
		   struct pam_response **resp, void *data)
{
	int *calls = data;
	struct pam_response *r = calloc((size_t)n, sizeof(*r));

	++*calls;
	for (int i = 0; i < n; i++) {
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF) {
			r[i].resp = strdup("secret");
		}
	}
	if (resp != NULL) {
		*resp = r;
	} else {
		free(r);
	}
	return PAM_SUCCESS;
}

int main(int argc, char **argv)
{
	const char *mods = getenv("PAM_ABI_MODULES");
	char path[4096], passdb[4096];
	Dl_info info;
	FILE *f;

	if (argc != 2 || mods == NULL) {
		fprintf(stderr, "usage: PAM_ABI_MODULES=DIR pam_abi DIR\n");
		return 2;
	}
	if (dladdr((void *)_pamtest, &info) != 0) {
		printf("libpamtest: %s\n", info.dli_fname);
	}
	snprintf(passdb, sizeof(passdb), "%s/passdb", argv[1]);
	f = fopen(passdb, "w");
	fputs("alice:secret:svc\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/services", argv[1]);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/services/svc", argv[1]);
	f = fopen(path, "w");
	fprintf(f,
		"auth     required %s/pam_matrix.so passdb=%s verbose\n"
		"account  required %s/pam_matrix.so passdb=%s\n"
		"password required %s/pam_matrix.so passdb=%s\n"
		"session  required %s/pam_matrix.so passdb=%s\n",
		mods, passdb, mods, passdb, mods, passdb, mods, passdb);
	fclose(f);

	CHECK(strcmp(pamtest_strerror(PAMTEST_ERR_OK), "Success") == 0);
	CHECK(strcmp(pamtest_strerror(PAMTEST_ERR_START),
		     "pam_start failed()") == 0);
	CHECK(strcmp(pamtest_strerror(PAMTEST_ERR_CASE),
		     "Unexpected testcase result") == 0);
	CHECK(strcmp(pamtest_strerror(PAMTEST_ERR_END), "pam_end failed()") ==
	      0);

	{ /* results, messages into the caller's buffers */
		const char *pw[] = {"secret", NULL};
		char b0[PAM_MAX_MSG_SIZE] = "", b1[PAM_MAX_MSG_SIZE] = "-";
		char *info_arr[] = {b0, b1};
		struct pamtest_conv_data conv = {.in_echo_off = pw,
						 .out_info = info_arr};
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
		    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
		    pam_test_flags(PAMTEST_SETCRED, PAM_SUCCESS,
				   PAM_ESTABLISH_CRED),
		};

		CHECK(run_pamtest("svc", "alice", &conv, tc, NULL) ==
		      PAMTEST_ERR_OK);
		CHECK(strcmp(b0, "Authentication succeeded") == 0);
		CHECK(strcmp(b1, "-") == 0);
		CHECK(pamtest_failed_case(tc) == NULL);
	}
	{ /* a stop at the first unexpected result */
		const char *pw[] = {"wrong", NULL};
		char e0[PAM_MAX_MSG_SIZE] = "";
		char *err_arr[] = {e0};
		struct pamtest_conv_data conv = {.in_echo_off = pw,
						 .out_err = err_arr};
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
		    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
		    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
		};

		tc[2].op_rv = 77;
		CHECK(run_pamtest("svc", "alice", &conv, tc, NULL) ==
		      PAMTEST_ERR_CASE);
		CHECK(tc[0].op_rv == PAM_SUCCESS);
		CHECK(tc[1].op_rv == PAM_AUTH_ERR);
		CHECK(tc[2].op_rv == 77);
		CHECK(pamtest_failed_case(tc) == &tc[1]);
		CHECK(strcmp(e0, "Authentication failed") == 0);
	}
	{ /* GETENVLIST, KEEPHANDLE, a second run on the handle */
		const char *pw[] = {"secret", "secret", "n3w", "n3w", NULL};
		struct pamtest_conv_data conv = {.in_echo_off = pw};
		struct pam_testcase one[] = {
		    pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
		    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
		    pam_test(PAMTEST_KEEPHANDLE, PAM_SUCCESS),
		};
		struct pam_testcase two[] = {
		    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
		    pam_test(PAMTEST_CHAUTHTOK, PAM_SUCCESS),
		    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS),
		    pam_test(PAMTEST_GETENVLIST, PAM_SUCCESS),
		};
		char *text;
		long n;

		CHECK(run_pamtest("svc", "alice", &conv, one, NULL) ==
		      PAMTEST_ERR_OK);
		CHECK(env_get(one[1].case_out.envlist, "HOMEDIR") != NULL &&
		      strcmp(env_get(one[1].case_out.envlist, "HOMEDIR"),
			     "/home/alice") == 0);
		pamtest_free_env(one[1].case_out.envlist);
		CHECK(one[2].case_out.ph != NULL);
		CHECK(run_pamtest(NULL, NULL, &conv, two, one[2].case_out.ph) ==
		      PAMTEST_ERR_OK);
		CHECK(env_get(two[3].case_out.envlist, "HOMEDIR") == NULL);
		pamtest_free_env(two[3].case_out.envlist);
		f = fopen(passdb, "r");
		text = calloc(1, 256);
		n = (long)fread(text, 1, 255, f);
		fclose(f);
		CHECK(n > 0 && strcmp(text, "alice:n3w:svc\n") == 0);
		free(text);
	}
	{ /* run_pamtest_conv */
		int calls = 0;
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_AUTHENTICATE, PAM_AUTH_ERR),
		};

		CHECK(run_pamtest_conv("svc", "alice", my_conv, &calls, tc,
				       NULL) == PAMTEST_ERR_OK);
		CHECK(calls == 2); /* the prompt, the error */
	}
	{ /* no such service */
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
		};
		struct pamtest_conv_data conv = {0};

		CHECK(run_pamtest("nosuch", "alice", &conv, tc, NULL) ==
		      PAMTEST_ERR_START);
	}
	if (failures == 0) {
		printf("ok\n");
	}
	return failures == 0 ? 0 : 1;
}
