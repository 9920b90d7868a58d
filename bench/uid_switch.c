/*
 * Cost of a privilege switch pair: `uid_switch THREADS` runs
 *     setresuid(-1, other, -1); setresuid(-1, euid, -1);
 * in a loop in each of THREADS threads for about 0.2 s and prints the wall
 * time per pair per thread ("ns/op"). `other` is 1000 for a (fake or real)
 * root, else the euid itself. Natively glibc makes every thread of the
 * process take the change (a signal to each); uid_wrapper publishes it in
 * memory.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_util.h"

#define BATCH 1000
#define RUN_NS 200000000ull

static uid_t euid, other;
static atomic_int go;
static atomic_int failed;

static void *loop(void *arg)
{
	uint64_t *pairs = arg, start;
	int i;

	while (!atomic_load(&go)) {
	}
	start = bench_now_ns();
	do {
		for (i = 0; i < BATCH; i++) {
			if (setresuid(-1, other, -1) != 0 ||
			    setresuid(-1, euid, -1) != 0) {
				atomic_store(&failed, 1);
				return NULL;
			}
		}
		*pairs += BATCH;
	} while (bench_now_ns() - start < RUN_NS);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	uint64_t pairs[64] = {0}, total = 0, start, elapsed;
	int n, i;

	if (argc != 2 || (n = atoi(argv[1])) < 1 || n > 64) {
		fprintf(stderr, "usage: %s THREADS(1..64)\n", argv[0]);
		return 2;
	}
	euid = geteuid();
	other = euid == 0 ? 1000 : euid;
	for (i = 0; i < n; i++) {
		pthread_create(&t[i], NULL, loop, &pairs[i]);
	}
	start = bench_now_ns();
	atomic_store(&go, 1);
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += pairs[i];
	}
	elapsed = bench_now_ns() - start;
	if (atomic_load(&failed)) {
		perror("setresuid");
		return 1;
	}
	bench_report((double)elapsed / ((double)total / n), "ns/op");
	return 0;
}
