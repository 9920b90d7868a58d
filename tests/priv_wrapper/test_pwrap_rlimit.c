/*
 * priv_wrapper preloaded: setrlimit(), prlimit() (and their 64-bit and
 * syscall() forms) against the kernel's own answer: a disabled limit stays
 * as it was, raised or lowered, and prlimit() reports it as the old one;
 * threads calling at once.
 * Each case makes the call natively in a child (PRIV_WRAPPER unset: what
 * the kernel says, and does, for this user) and wrapped, and checks that
 * a disabled request returns 0 and changes nothing, that a request the
 * kernel refuses for its arguments gets the kernel's errno, and that
 * everything not listed passes through with the kernel's result. The
 * variables are set by each case with setenv(), as a test suite does
 * between two tests: they are read when they are used.
 */
#include "pwrap_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int teardown(void **state)
{
	(void)state;
	pwrap_test_env_clear();
	return 0;
}

/* ---- limits ---- */

struct rlimit_call {
	int how; /* 0 setrlimit, 1 prlimit(0,...), 2 SYS_setrlimit,
		  * 3 SYS_prlimit64, 4 setrlimit64, 5 prlimit64 */
	int resource;
	long soft_delta, hard_delta; /* the new limit, from the current */
	bool soft_above_hard;	     /* soft = hard + 1 */
};

#define NOFILE RLIMIT_NOFILE

static rlim_t moved(rlim_t v, long delta)
{
	return delta < 0 ? v - (rlim_t)(-delta) : v + (rlim_t)delta;
}

/* seen[0]: the limit changed; seen[1], seen[2]: the old limit reported
 * (prlimit) equals the one before */
static void do_rlimit(struct pwrap_outcome *o, void *arg)
{
	const struct rlimit_call *c = arg;
	struct rlimit before, after, want, old = {7, 7};
	uint64_t want64[2], old64[2] = {7, 7};
	unsigned long wantk[2];

	assert_int_equal(getrlimit(c->resource, &before), 0);
	want.rlim_cur = moved(before.rlim_cur, c->soft_delta);
	want.rlim_max = moved(before.rlim_max, c->hard_delta);
	if (c->soft_above_hard) {
		want.rlim_cur = want.rlim_max + 1;
	}
	want64[0] = want.rlim_cur;
	want64[1] = want.rlim_max;
	wantk[0] = (unsigned long)want.rlim_cur;
	wantk[1] = (unsigned long)want.rlim_max;
	errno = 0;
	switch (c->how) {
	case 0:
		o->rc = setrlimit((CWRAP_RLIMIT_RESOURCE)c->resource, &want);
		break;
	case 1:
		o->rc =
		    prlimit(0, (CWRAP_RLIMIT_RESOURCE)c->resource, &want, &old);
		break;
	case 2:
		o->rc = syscall(SYS_setrlimit, c->resource, wantk);
		break;
	case 3:
		o->rc = syscall(SYS_prlimit64, 0, c->resource, want64, old64);
		old.rlim_cur = (rlim_t)old64[0];
		old.rlim_max = (rlim_t)old64[1];
		break;
#ifdef HAVE_SETRLIMIT64
	case 4: {
		struct rlimit64 w = {want64[0], want64[1]};

		o->rc = setrlimit64((CWRAP_RLIMIT_RESOURCE)c->resource, &w);
		break;
	}
#endif
#ifdef HAVE_PRLIMIT64
	case 5: {
		struct rlimit64 w = {want64[0], want64[1]}, ol = {7, 7};

		o->rc =
		    prlimit64(0, (CWRAP_RLIMIT_RESOURCE)c->resource, &w, &ol);
		old.rlim_cur = (rlim_t)ol.rlim_cur;
		old.rlim_max = (rlim_t)ol.rlim_max;
		break;
	}
#endif
	default:
		fail();
	}
	o->err = errno;
	assert_int_equal(getrlimit(c->resource, &after), 0);
	o->seen[0] = before.rlim_cur != after.rlim_cur ||
		     before.rlim_max != after.rlim_max;
	o->seen[1] = old.rlim_cur == before.rlim_cur;
	o->seen[2] = old.rlim_max == before.rlim_max;
}

static int rlimit_hows(int *hows)
{
	int n = 0;

	for (int h = 0; h < 6; h++) {
#ifndef HAVE_SETRLIMIT64
		if (h == 4) {
			continue;
		}
#endif
#ifndef HAVE_PRLIMIT64
		if (h == 5) {
			continue;
		}
#endif
		hows[n++] = h;
	}
	return n;
}

static bool reports_old(int how)
{
	return how == 1 || how == 3 || how == 5;
}

/* Raising the hard limit: EPERM for an ordinary user; 0 and nothing
 * changed, wrapped. */
static void test_setrlimit_raise(void **state)
{
	struct rlimit_call c = {0, NOFILE, 1, 1, false};
	int hows[6], n = rlimit_hows(hows);

	(void)state;
	pwrap_test_env(NULL, NULL, "RLIMIT_NOFILE");
	for (int i = 0; i < n; i++) {
		struct pwrap_outcome native, wrapped;

		c.how = hows[i];
		native = pwrap_test_child(true, do_rlimit, &c);
		if (!pwrap_test_is_root()) {
			assert_int_equal(native.rc, -1);
			assert_int_equal(native.err, EPERM);
		}
		wrapped = pwrap_test_child(false, do_rlimit, &c);
		printf("how %d: native %ld/%d, wrapped %ld/%d\n", c.how,
		       native.rc, native.err, wrapped.rc, wrapped.err);
		assert_int_equal(wrapped.rc, 0);
		assert_int_equal(wrapped.seen[0], 0);
		if (reports_old(c.how)) {
			assert_int_equal(wrapped.seen[1], 1);
			assert_int_equal(wrapped.seen[2], 1);
		}
	}
	/* in this process */
	{
		struct pwrap_outcome o;

		c.how = 0;
		do_rlimit(&o, &c);
		assert_int_equal(o.rc, 0);
		assert_int_equal(o.seen[0], 0);
	}
}

/* Lowering: the kernel does it; wrapped, 0 and nothing changed. Soft
 * above hard: the kernel's EINVAL either way. */
static void test_setrlimit_lower_and_invalid(void **state)
{
	struct rlimit_call lower = {0, NOFILE, -1, -1, false};
	struct rlimit_call invalid = {0, NOFILE, 0, 0, true};
	int hows[6], n = rlimit_hows(hows);

	(void)state;
	if (pwrap_test_valgrind_answers("RLIMIT_NOFILE")) {
		skip();
	}
	pwrap_test_env(NULL, NULL, "ALL");
	for (int i = 0; i < n; i++) {
		struct pwrap_outcome native, wrapped;

		lower.how = invalid.how = hows[i];
		native = pwrap_test_child(true, do_rlimit, &lower);
		assert_int_equal(native.rc, 0);
		assert_int_equal(native.seen[0], 1);
		wrapped = pwrap_test_child(false, do_rlimit, &lower);
		assert_int_equal(wrapped.rc, 0);
		assert_int_equal(wrapped.seen[0], 0);
		if (reports_old(lower.how)) {
			assert_int_equal(native.seen[1], 1);
			assert_int_equal(wrapped.seen[1], 1);
			assert_int_equal(wrapped.seen[2], 1);
		}

		native = pwrap_test_child(true, do_rlimit, &invalid);
		wrapped = pwrap_test_child(false, do_rlimit, &invalid);
		pwrap_test_expect_both_refused(&native, &wrapped, EINVAL);
		assert_int_equal(wrapped.seen[0], 0);
	}
}

/* A resource not listed, or no resource at all, passes through. */
static void test_setrlimit_passes_through(void **state)
{
	struct rlimit_call lower = {0, NOFILE, -1, 0, false};
	struct rlimit r = {1, 1};
	struct pwrap_outcome o;
	int hows[6], n = rlimit_hows(hows);

	(void)state;
	pwrap_test_env(NULL, NULL, "RLIMIT_CORE,RLIMIT_NPROC");
	for (int i = 0; i < n; i++) {
		lower.how = hows[i];
		o = pwrap_test_child(false, do_rlimit, &lower);
		assert_int_equal(o.rc, 0);
		assert_int_equal(o.seen[0], 1);
	}
	pwrap_test_env(NULL, NULL, "ALL");
	errno = 0;
	assert_int_equal(setrlimit((CWRAP_RLIMIT_RESOURCE)99, &r), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(prlimit(0, (CWRAP_RLIMIT_RESOURCE)-1, &r, NULL), -1);
	assert_int_equal(errno, EINVAL);
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* prlimit() on another process: the old limit is read from it (with
 * its errors), the new one is not set. */
static void test_prlimit_other_process(void **state)
{
	struct rlimit mine, before, after, old = {7, 7}, lower;
	pid_t pid = sleeper(), gone;

	(void)state;
	pwrap_test_env(NULL, NULL, "RLIMIT_NOFILE");
	assert_int_equal(getrlimit(NOFILE, &mine), 0);
	assert_int_equal(prlimit(pid, NOFILE, NULL, &before), 0);
	lower.rlim_cur = before.rlim_cur - 1;
	lower.rlim_max = before.rlim_max - 1;
	assert_int_equal(prlimit(pid, NOFILE, &lower, &old), 0);
	assert_int_equal(old.rlim_cur, before.rlim_cur);
	assert_int_equal(old.rlim_max, before.rlim_max);
	assert_int_equal(prlimit(pid, NOFILE, NULL, &after), 0);
	assert_int_equal(after.rlim_cur, before.rlim_cur);
	assert_int_equal(after.rlim_max, before.rlim_max);
	/* setting without reading */
	assert_int_equal(prlimit(pid, NOFILE, &lower, NULL), 0);
	assert_int_equal(prlimit(pid, NOFILE, NULL, &after), 0);
	assert_int_equal(after.rlim_cur, before.rlim_cur);
	reap(pid);

	/* a process that is gone: ESRCH, as from the kernel */
	gone = sleeper();
	reap(gone);
	errno = 0;
	assert_int_equal(prlimit(gone, NOFILE, &lower, &old), -1);
	assert_int_equal(errno, ESRCH);
	errno = 0;
	assert_int_equal(prlimit(gone, NOFILE, &lower, NULL), -1);
	assert_int_equal(errno, ESRCH);
	unsetenv("PRIV_WRAPPER");
	errno = 0;
	assert_int_equal(prlimit(gone, NOFILE, &lower, &old), -1);
	assert_int_equal(errno, ESRCH);

	/* another user's process (init), as an ordinary user: EPERM
	 * natively and wrapped (never tried natively as root) */
	if (!pwrap_test_is_root()) {
		errno = 0;
		assert_int_equal(prlimit(1, NOFILE, &mine, NULL), -1);
		assert_int_equal(errno, EPERM);
		pwrap_test_env(NULL, NULL, "RLIMIT_NOFILE");
		errno = 0;
		assert_int_equal(prlimit(1, NOFILE, &mine, NULL), -1);
		assert_int_equal(errno, EPERM);
	}
}

/* An old limit that does not fit a 32-bit rlim_t (i686): prlimit() with
 * a new limit reports it as RLIM_INFINITY (a read alone would fail with
 * EOVERFLOW); with a 64-bit rlim_t, as it is. Natively and wrapped. */
static void do_prlimit_big_old(struct pwrap_outcome *o, void *arg)
{
	const uint64_t five_gib = 5ULL << 30;
	struct rlimit nw = {RLIM_INFINITY, RLIM_INFINITY}, old = {7, 7};

	/* (the set-up is not the call under test: made unwrapped) */
	const char *enabled = getenv("PRIV_WRAPPER");

	(void)arg;
	unsetenv("PRIV_WRAPPER");
#ifdef HAVE_PRLIMIT64
	struct rlimit64 big = {five_gib, RLIM64_INFINITY};

	assert_int_equal(prlimit64(0, RLIMIT_AS, &big, NULL), 0);
#else
	struct rlimit big = {(rlim_t)five_gib, RLIM_INFINITY};

	assert_true(sizeof(rlim_t) == sizeof(uint64_t));
	assert_int_equal(setrlimit(RLIMIT_AS, &big), 0);
#endif
	if (enabled != NULL) {
		setenv("PRIV_WRAPPER", "1", 1);
	}
	errno = 0;
	o->rc = prlimit(0, RLIMIT_AS, &nw, &old);
	o->err = errno;
	o->seen[0] = old.rlim_cur == (sizeof(rlim_t) < sizeof(uint64_t)
					  ? RLIM_INFINITY
					  : (rlim_t)five_gib);
	o->seen[1] = old.rlim_max == RLIM_INFINITY;
	/* and the new limit: set natively, not wrapped */
#ifdef HAVE_PRLIMIT64
	assert_int_equal(prlimit64(0, RLIMIT_AS, NULL, &big), 0);
	o->seen[2] = big.rlim_cur == RLIM64_INFINITY;
#else
	assert_int_equal(getrlimit(RLIMIT_AS, &big), 0);
	o->seen[2] = big.rlim_cur == RLIM_INFINITY;
#endif
}

static void test_prlimit_big_old(void **state)
{
	struct pwrap_outcome native, wrapped;
	struct rlimit as;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_AS, &as), 0);
	if (as.rlim_max != RLIM_INFINITY) {
		skip();
	}
	pwrap_test_env(NULL, NULL, "RLIMIT_AS");
	native = pwrap_test_child(true, do_prlimit_big_old, NULL);
	wrapped = pwrap_test_child(false, do_prlimit_big_old, NULL);
	assert_int_equal(native.rc, 0);
	assert_int_equal(native.seen[0], 1);
	assert_int_equal(native.seen[1], 1);
	assert_int_equal(native.seen[2], 1);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[0], 1);
	assert_int_equal(wrapped.seen[1], 1);
	assert_int_equal(wrapped.seen[2], 0);
}

/* Threads: each reads the variables on its own, none blocks another. */
static void *thread_calls(void *arg)
{
	struct rlimit r, now;

	(void)arg;
	assert_int_equal(getrlimit(NOFILE, &r), 0);
	for (int i = 0; i < 2000; i++) {
		struct rlimit up = {r.rlim_max + 1, r.rlim_max + 1};

		assert_int_equal(prctl(PR_SET_DUMPABLE, i & 1, 0, 0, 0), 0);
		assert_int_equal(setrlimit(NOFILE, &up), 0);
	}
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
	assert_int_equal(getrlimit(NOFILE, &now), 0);
	assert_int_equal(now.rlim_max, r.rlim_max);
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[4];

	(void)state;
	pwrap_test_env(NULL, "PR_SET_DUMPABLE", "RLIMIT_NOFILE");
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(t); i++) {
		assert_int_equal(
		    pthread_create(&t[i], NULL, thread_calls, NULL), 0);
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(t); i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
	}
	pwrap_test_env_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_setrlimit_raise),
	    cmocka_unit_test(test_setrlimit_lower_and_invalid),
	    cmocka_unit_test(test_setrlimit_passes_through),
	    cmocka_unit_test(test_prlimit_other_process),
	    cmocka_unit_test(test_prlimit_big_old),
	    cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
