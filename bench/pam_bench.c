/*
 * pam_bench DIR N: time N PAM transactions of authenticate + account
 * through libpamtest (_pamtest), each with pam_matrix asking for and
 * checking a password from DIR/passdb, from the service file DIR/bench.
 * Prints "<us> us/op" per transaction.
 *
 * With a pam_wrapper preloaded (ours or upstream's: bench/run's columns)
 * the service file names that pam_wrapper's own modules (beside it:
 * LIBDIR/pam_wrapper/ where installed, our build tree's modules/) and
 * pam_start() reads it through PAM_WRAPPER_SERVICE_DIR=DIR. With none
 * (the native column) the handle comes from libpam's pam_start_confdir()
 * on DIR, with the modules of this build: the same transaction without a
 * wrapper. The files are written first, then the program runs itself
 * again, so that a wrapper that reads its directory when it starts sees
 * them.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpamtest.h>

#include "bench_util.h"

#ifndef PAM_BENCH_MODULE_DIR
#error "PAM_BENCH_MODULE_DIR names this build's modules"
#endif

/* The modules of the preloaded pam_wrapper, or this build's. */
static void module_dir(char *out, size_t cap)
{
	void *fn = dlsym(RTLD_DEFAULT, "pam_wrapper_enabled");
	static const char *const beside[] = {"pam_wrapper", "modules"};
	Dl_info info;
	char lib[2048], try[4096];

	snprintf(out, cap, "%s", PAM_BENCH_MODULE_DIR);
	if (fn == NULL || dladdr(fn, &info) == 0 || info.dli_fname == NULL) {
		return;
	}
	snprintf(lib, sizeof(lib), "%s", info.dli_fname);
	*strrchr(lib, '/') = '\0';
	/* installed: LIBDIR/pam_wrapper; our build tree: modules/ */
	for (size_t i = 0; i < 2; i++) {
		snprintf(try, sizeof(try), "%s/%s/pam_matrix.so", lib,
			 beside[i]);
		if (access(try, R_OK) == 0) {
			snprintf(out, cap, "%s/%s", lib, beside[i]);
			return;
		}
	}
}

int main(int argc, char **argv)
{
	const char *pw[] = {"secret", NULL};
	struct pamtest_conv_data conv = {.in_echo_off = pw};
	struct pam_conv pc = {NULL, NULL};
	bool wrapped = dlsym(RTLD_DEFAULT, "pam_wrapper_enabled") != NULL;
	char path[4200], mods[4096];
	uint64_t t0, t1;
	long n;
	FILE *f;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: pam_bench DIR N\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/bench", argv[1]);
	if (getenv("PAM_BENCH_READY") == NULL) {
		module_dir(mods, sizeof(mods));
		f = fopen(path, "w");
		fprintf(f,
			"auth    required %s/pam_matrix.so passdb=%s/passdb\n"
			"account required %s/pam_matrix.so passdb=%s/passdb\n",
			mods, argv[1], mods, argv[1]);
		fclose(f);
		snprintf(path, sizeof(path), "%s/passdb", argv[1]);
		f = fopen(path, "w");
		fputs("alice:secret:bench\n", f);
		fclose(f);
		setenv("PAM_BENCH_READY", "1", 1);
		execv("/proc/self/exe", argv);
		perror("pam_bench: exec");
		return 1;
	}
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		struct pam_testcase tc[] = {
		    pam_test(PAMTEST_AUTHENTICATE, PAM_SUCCESS),
		    pam_test(PAMTEST_ACCOUNT, PAM_SUCCESS),
		};
		pam_handle_t *ph = NULL;
		enum pamtest_err err;

		if (!wrapped &&
		    pam_start_confdir("bench", "alice", &pc, argv[1], &ph) !=
			PAM_SUCCESS) {
			fprintf(stderr,
				"pam_bench: pam_start_confdir failed\n");
			return 1;
		}
		err = run_pamtest("bench", "alice", &conv, tc, ph);
		if (err != PAMTEST_ERR_OK) {
			fprintf(stderr, "pam_bench: %s\n",
				pamtest_strerror(err));
			return 1;
		}
	}
	t1 = bench_now_ns();
	bench_report((double)(t1 - t0) / 1e3 / (double)n, "us/op");
	return 0;
}
