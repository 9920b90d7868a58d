/*
 * The cross-library syscall() protocol's look-up of the other library
 * (cwrap_syscall_peer): made when first needed, not at load, from
 * wherever that first call comes. Linked with a stand-in peer
 * (syscall_peer_mock.c: libswrap_peer_uid.so under socket_wrapper,
 * libswrap_peer_socket.so under uid_wrapper) that owns one number no
 * kernel has and has no syscall() of its own: that number is answered
 * only if the wrapper found the stand-in's pair. Each case runs in a
 * child forked before anything made the look-up, so that the case's
 * call is the first: from eight threads at once, from a signal handler,
 * in a child forked before and after it; a number the stand-in refuses,
 * and any other, go on to the kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "syscall_peer_mock.h"

#define THREADS 8

/* In a child: print why and exit 1 when `cond` is false. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,     \
				#cond);                                        \
			_exit(1);                                              \
		}                                                              \
	} while (0)

/* The stand-in's answer to SYSCALL_PEER_NR with a[0] = x, a[5] = y. */
static long peer_call(long x, long y)
{
	return syscall(SYSCALL_PEER_NR, x, 0L, 0L, 0L, 0L, y);
}

/* Run `fn` in a child forked now; assert it exited 0. */
static void in_child(void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static pthread_barrier_t barrier;

static void *thread_call(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&barrier);
	return (void *)(peer_call(i, i + 1) == i * 10 + i + 1 ? 1L : 0L);
}

/* Eight threads make their first call at once: each gets the stand-in's
 * answer, and it answered eight times. */
static void first_from_threads(void)
{
	pthread_t th[THREADS];
	void *ok;
	long i;

	CHECK(syscall_peer_mock_calls() == 0);
	CHECK(pthread_barrier_init(&barrier, NULL, THREADS) == 0);
	for (i = 0; i < THREADS; i++) {
		CHECK(pthread_create(&th[i], NULL, thread_call, (void *)i) ==
		      0);
	}
	for (i = 0; i < THREADS; i++) {
		CHECK(pthread_join(th[i], &ok) == 0);
		CHECK(ok == (void *)1L);
	}
	CHECK(syscall_peer_mock_calls() == THREADS);
	CHECK(peer_call(3, 4) == 34);
}

static void test_first_from_threads(void **state)
{
	(void)state;
	in_child(first_from_threads);
}

static volatile long handler_answer;

static void handler(int sig)
{
	(void)sig;
	handler_answer = peer_call(4, 2);
}

/* The first call comes from a signal handler. */
static void first_from_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(raise(SIGUSR1) == 0);
	CHECK(handler_answer == 42);
	CHECK(syscall_peer_mock_calls() == 1);
}

static void test_first_from_signal_handler(void **state)
{
	(void)state;
	in_child(first_from_handler);
}

static void call_once(void)
{
	CHECK(peer_call(5, 6) == 56);
}

/* A child forked before the look-up makes its own; one forked after it
 * uses its parent's. */
static void call_in_child(void)
{
	int status;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		call_once();
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
}

static void across_fork(void)
{
	call_in_child();
	call_once();
	call_in_child();
	CHECK(syscall_peer_mock_calls() == 1);
}

static void test_across_fork(void **state)
{
	(void)state;
	in_child(across_fork);
}

/* Numbers the stand-in refuses reach the kernel with their arguments. */
static void other_numbers(void)
{
	errno = 0;
	CHECK(syscall(SYSCALL_PEER_NR + 1, 1L, 2L, 3L, 4L, 5L, 6L) == -1);
	CHECK(errno == ENOSYS);
	CHECK(syscall(SYS_getppid) == getppid());
	CHECK(syscall_peer_mock_calls() == 0);
	CHECK(peer_call(7, 8) == 78);
	CHECK(syscall(SYS_getpid) == getpid());
	CHECK(syscall_peer_mock_calls() == 1);
}

static void test_other_numbers(void **state)
{
	(void)state;
	in_child(other_numbers);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_from_threads),
	    cmocka_unit_test(test_first_from_signal_handler),
	    cmocka_unit_test(test_across_fork),
	    cmocka_unit_test(test_other_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
