/*
 * pam_consumer SERVICE-DIR PASSDB: a program linked with the installed
 * libpamtest (find_package(pamtest): pamtest::pamtest) that authenticates
 * through the installed pam_matrix (PAM_WRAPPER_MODULE_DIR, compiled in)
 * under the preloaded pam_wrapper.
 */
#include <stdio.h>
#include <stdlib.h>

#include <libpamtest.h>

int main(int argc, char **argv)
{
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data conv = {.in_echo_off = pw};
	struct pam_testcase tc[] = {pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
				    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS)};
	enum pamtest_err err;
	char path[4096];
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: pam_consumer SERVICE-DIR PASSDB\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/consumer", argv[1]);
	f = fopen(path, "w");
	fprintf(f,
		"auth required %s/pam_matrix.so passdb=%s\n"
		"account required %s/pam_matrix.so passdb=%s\n",
		PAM_WRAPPER_MODULE_DIR, argv[2], PAM_WRAPPER_MODULE_DIR,
		argv[2]);
	fclose(f);
	f = fopen(argv[2], "w");
	fputs("alice:secret:consumer\n", f);
	fclose(f);
	err = run_pamtest("consumer", "alice", &conv, tc, NULL);
	printf("run_pamtest: %s\n", pamtest_strerror(err));
	return err == PAMTEST_ERR_OK ? 0 : 1;
}
