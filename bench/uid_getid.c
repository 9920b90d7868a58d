/*
 * Cost of reading an id: `uid_getid getuid|geteuid THREADS` calls the
 * function in a loop in each of THREADS threads for about 0.2 s and prints
 * the wall time per call per thread ("ns/op"; lower is better). Natively
 * each call is a system call; uid_wrapper answers from memory.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define BATCH 10000
#define RUN_NS 200000000ull

static uid_t (*fn)(void);
static atomic_int go;
static volatile uid_t sink;

static void *loop(void *arg)
{
	uint64_t *calls = arg, start;
	uid_t acc = 0;
	int i;

	while (!atomic_load(&go)) {
	}
	start = bench_now_ns();
	do {
		for (i = 0; i < BATCH; i++) {
			acc += fn();
		}
		*calls += BATCH;
	} while (bench_now_ns() - start < RUN_NS);
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	uint64_t calls[64] = {0}, total = 0, start, elapsed;
	int n, i;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > 64 ||
	    (strcmp(argv[1], "getuid") != 0 &&
	     strcmp(argv[1], "geteuid") != 0)) {
		fprintf(stderr, "usage: %s getuid|geteuid THREADS(1..64)\n",
			argv[0]);
		return 2;
	}
	fn = strcmp(argv[1], "getuid") == 0 ? getuid : geteuid;
	fn(); /* first call: binding, set-up */
	for (i = 0; i < n; i++) {
		pthread_create(&t[i], NULL, loop, &calls[i]);
	}
	start = bench_now_ns();
	atomic_store(&go, 1);
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	elapsed = bench_now_ns() - start;
	bench_report((double)elapsed / ((double)total / n), "ns/op");
	return 0;
}
