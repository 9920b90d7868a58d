/*
 * Threads under uid_wrapper (preloaded, fake root), as glibc behaves:
 * set*id() in one thread is seen by all, threads created before and after
 * a switch, a per-thread switch survives a process-wide change of another
 * kind, concurrent process-wide switches never fail spuriously while
 * readers always see a whole triple, and fork in a busy process.
 */
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

static pthread_barrier_t barrier;

static void *wait_then_read(void *arg)
{
	uid_t *out = arg;

	pthread_barrier_wait(&barrier); /* created before the switch */
	pthread_barrier_wait(&barrier); /* switched */
	out[0] = geteuid();
	out[1] = getegid();
	return NULL;
}

static void *read_now(void *arg)
{
	uid_t *out = arg;

	out[0] = geteuid();
	out[1] = getegid();
	return NULL;
}

static void test_setuid_seen_by_all(void **state)
{
	uid_t before[2], after[2];
	pthread_t t1, t2;

	(void)state;
	pthread_barrier_init(&barrier, NULL, 2);
	assert_int_equal(pthread_create(&t1, NULL, wait_then_read, before), 0);
	pthread_barrier_wait(&barrier);
	assert_int_equal(setresgid(0, 77, 0), 0);
	assert_int_equal(setresuid(0, 1000, 0), 0);
	pthread_barrier_wait(&barrier);
	pthread_join(t1, NULL);
	assert_int_equal(pthread_create(&t2, NULL, read_now, after), 0);
	pthread_join(t2, NULL);
	assert_int_equal(before[0], 1000);
	assert_int_equal(before[1], 77);
	assert_int_equal(after[0], 1000);
	assert_int_equal(after[1], 77);
	assert_int_equal(setresuid(0, 0, 0), 0);
	assert_int_equal(setresgid(0, 0, 0), 0);
	pthread_barrier_destroy(&barrier);
}

/* A thread that switched its uid by syscall keeps it when another thread
 * calls setgid(): only the gids are process-wide news. A later setuid()
 * overrides it, as glibc's broadcast would. */
static void *own_uid(void *arg)
{
	uid_t *out = arg;

	assert_int_equal(syscall(UWRAP_SYS(setresuid), 0, 4242, 0), 0);
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier); /* main: setgid */
	out[0] = geteuid();
	out[1] = getgid();
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier); /* main: setresuid */
	out[2] = geteuid();
	return NULL;
}

static void test_per_thread_survives_other_kind(void **state)
{
	uid_t out[3];
	pthread_t t;

	(void)state;
	pthread_barrier_init(&barrier, NULL, 2);
	assert_int_equal(pthread_create(&t, NULL, own_uid, out), 0);
	pthread_barrier_wait(&barrier);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(setgid(31), 0);
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	assert_int_equal(setresuid(0, 0, 0), 0);
	pthread_barrier_wait(&barrier);
	pthread_join(t, NULL);
	assert_int_equal(out[0], 4242);
	assert_int_equal(out[1], 31);
	assert_int_equal(out[2], 0);
	assert_int_equal(setgid(0), 0);
	pthread_barrier_destroy(&barrier);
}

/* More groups than a thread keeps inline: handed over on the new
 * thread's first read, and synced from the process record. */
static void *count_groups(void *arg)
{
	gid_t g[200];
	int *out = arg;
	int i, n = getgroups(200, g);

	out[0] = n;
	out[1] = 1;
	for (i = 0; i < n; i++) {
		out[1] = out[1] && g[i] == (gid_t)(1000 + i);
	}
	return NULL;
}

static void test_many_groups(void **state)
{
	gid_t g[150], zero = 0;
	int out[2];
	pthread_t t;
	int i;

	(void)state;
	for (i = 0; i < 150; i++) {
		g[i] = (gid_t)(1000 + 149 - i); /* the kernel sorts them */
	}
	/* per thread, then handed to a new thread */
	assert_int_equal(syscall(UWRAP_SYS(setgroups), 40, g + 110), 0);
	assert_int_equal(pthread_create(&t, NULL, count_groups, out), 0);
	pthread_join(t, NULL);
	assert_int_equal(out[0], 40);
	assert_true(out[1]);
	/* process-wide, read by a thread that already existed */
	assert_int_equal(setgroups(150, g), 0);
	assert_int_equal(pthread_create(&t, NULL, count_groups, out), 0);
	pthread_join(t, NULL);
	assert_int_equal(out[0], 150);
	assert_true(out[1]);
	assert_int_equal(setgroups(1, &zero), 0);
	assert_int_equal(getgroups(0, NULL), 1);
}

/* ---- stress: two ids swapped by several threads at once ---- */

#define A 1000u
#define B 2000u

static atomic_bool stop;
static atomic_long spurious, torn, switches;

static void *swapper(void *arg)
{
	long odd = (long)arg;
	long n = 0;

	while (!atomic_load(&stop)) {
		int rc = odd ? setresuid(A, B, 0) : setresuid(B, A, 0);

		if (rc != 0) {
			atomic_fetch_add(&spurious, 1);
		}
		n++;
	}
	atomic_fetch_add(&switches, n);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uid_t r, e, s;

		getresuid(&r, &e, &s);
		if (!(s == 0 && ((r == A && e == B) || (r == B && e == A)))) {
			atomic_fetch_add(&torn, 1);
		}
	}
	return NULL;
}

static void test_concurrent_swaps(void **state)
{
	pthread_t t[6];
	struct timespec d = {0, 300 * 1000 * 1000};
	long i;

	(void)state;
	assert_int_equal(setresuid(A, B, 0), 0); /* from root */
	atomic_store(&stop, false);
	for (i = 0; i < 4; i++) {
		assert_int_equal(
		    pthread_create(&t[i], NULL, swapper, (void *)(i & 1)), 0);
	}
	for (i = 4; i < 6; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	}
	nanosleep(&d, NULL);
	atomic_store(&stop, true);
	for (i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
	}
	print_message("%ld switches, %ld spurious EPERM, %ld torn reads\n",
		      atomic_load(&switches), atomic_load(&spurious),
		      atomic_load(&torn));
	assert_int_equal(atomic_load(&spurious), 0);
	assert_int_equal(atomic_load(&torn), 0);
	assert_true(atomic_load(&switches) > 100);
	assert_int_equal(setresuid(0, 0, 0), 0);
}

/* ---- fork while other threads switch ---- */

/* 50 forks (a tenth of a second natively), fewer where the machine is
 * slow (cwrap_test_rounds: under valgrind the two swappers take most of
 * its one running thread). */
static void test_fork_while_switching(void **state)
{
	pthread_t t[2];
	struct cwrap_test_rounds forks = cwrap_test_rounds_start(5, 50);
	long i;

	(void)state;
	assert_int_equal(setresuid(A, B, 0), 0);
	atomic_store(&stop, false);
	for (i = 0; i < 2; i++) {
		assert_int_equal(
		    pthread_create(&t[i], NULL, swapper, (void *)i), 0);
	}
	while (cwrap_test_rounds_next(&forks)) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			uid_t r, e, s;

			/* the child can read and change its ids */
			getresuid(&r, &e, &s);
			if (s != 0 ||
			    !((r == A && e == B) || (r == B && e == A))) {
				_exit(2);
			}
			_exit(setresuid(0, 0, 0) == 0 && geteuid() == 0 ? 0
									: 3);
		}
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	atomic_store(&stop, true);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
	}
	assert_int_equal(atomic_load(&spurious), 0);
	assert_int_equal(setresuid(0, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_setuid_seen_by_all),
	    cmocka_unit_test(test_per_thread_survives_other_kind),
	    cmocka_unit_test(test_many_groups),
	    cmocka_unit_test(test_concurrent_swaps),
	    cmocka_unit_test(test_fork_while_switching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
