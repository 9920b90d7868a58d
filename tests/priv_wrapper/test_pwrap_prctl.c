/*
 * priv_wrapper preloaded: prctl() and seccomp(2) against the kernel's own
 * answer: PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS and PR_SET_SECCOMP (strict
 * mode, a filter) change nothing when disabled, through prctl() and
 * syscall().
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

/* ---- prctl ---- */

struct prctl_call {
	int option;
	unsigned long a2, a3, a4, a5;
	int get;      /* option read before and after (seen[0], seen[1]) */
	bool via_sys; /* syscall(SYS_prctl, ...) */
};

static void do_prctl(struct pwrap_outcome *o, void *arg)
{
	const struct prctl_call *c = arg;

	if (c->get != 0) {
		o->seen[0] = prctl(c->get, 0, 0, 0, 0);
	}
	errno = 0;
	if (c->via_sys) {
		o->rc =
		    syscall(SYS_prctl, c->option, c->a2, c->a3, c->a4, c->a5);
	} else {
		o->rc = prctl(c->option, c->a2, c->a3, c->a4, c->a5);
	}
	o->err = errno;
	if (c->get != 0) {
		o->seen[1] = prctl(c->get, 0, 0, 0, 0);
	}
}

/* The same call natively and wrapped (both in children). */
static void prctl_both(const struct prctl_call *c, struct pwrap_outcome *native,
		       struct pwrap_outcome *wrapped)
{
	*native = pwrap_test_child(true, do_prctl, (void *)c);
	*wrapped = pwrap_test_child(false, do_prctl, (void *)c);
}

static void test_prctl_dumpable(void **state)
{
	struct prctl_call c = {PR_SET_DUMPABLE, 0,    0, 0, 0,
			       PR_GET_DUMPABLE, false};
	struct pwrap_outcome native, wrapped;

	(void)state;
	pwrap_test_env(NULL, "PR_SET_DUMPABLE", NULL);
	for (int sys = 0; sys < 2; sys++) {
		c.via_sys = sys;
		prctl_both(&c, &native, &wrapped);
		assert_int_equal(native.rc, 0);
		assert_int_equal(native.seen[0], 1);
		assert_int_equal(native.seen[1], 0);
		assert_int_equal(wrapped.rc, 0);
		assert_int_equal(wrapped.seen[1], 1);
	}
	/* in this process too */
	assert_int_equal(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);

	/* a value the kernel refuses: its EINVAL */
	c.a2 = 2;
	c.via_sys = false;
	prctl_both(&c, &native, &wrapped);
	pwrap_test_expect_both_refused(&native, &wrapped, EINVAL);
}

static void test_prctl_no_new_privs(void **state)
{
	struct prctl_call c = {PR_SET_NO_NEW_PRIVS, 1,	  0, 0, 0,
			       PR_GET_NO_NEW_PRIVS, false};
	const unsigned long bad[][4] = {
	    {0, 0, 0, 0}, {2, 0, 0, 0}, {1, 1, 0, 0}, {1, 0, 0, 1}};
	struct pwrap_outcome native, wrapped;

	(void)state;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0) {
		printf("no_new_privs is already set for this test: nothing to "
		       "compare\n");
		skip();
	}
	pwrap_test_env(NULL, "PR_SET_NO_NEW_PRIVS", NULL);
	for (int sys = 0; sys < 2; sys++) {
		c.via_sys = sys;
		prctl_both(&c, &native, &wrapped);
		assert_int_equal(native.rc, 0);
		assert_int_equal(native.seen[1], 1);
		assert_int_equal(wrapped.rc, 0);
		assert_int_equal(wrapped.seen[0], 0);
		assert_int_equal(wrapped.seen[1], 0);
	}
	assert_int_equal(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);

	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(bad); i++) {
		c.a2 = bad[i][0];
		c.a3 = bad[i][1];
		c.a4 = bad[i][2];
		c.a5 = bad[i][3];
		c.via_sys = false;
		prctl_both(&c, &native, &wrapped);
		pwrap_test_expect_both_refused(&native, &wrapped, EINVAL);
		assert_int_equal(wrapped.seen[1], 0);
	}
}

/* A classic BPF program (struct sock_filter / sock_fprog of
 * <linux/filter.h>, spelled out: musl's compiler has no kernel headers):
 * getppid() fails with EPERM, everything else is allowed. */
struct bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};
struct bpf_prog {
	unsigned short len;
	struct bpf_insn *filter;
};
static struct bpf_insn deny_getppid_insns[] = {
    {0x20, 0, 0, 0},		  /* ld [nr] (seccomp_data.nr) */
    {0x15, 0, 1, SYS_getppid},	  /* jeq #getppid, 0, 1 */
    {0x06, 0, 0, 0x00050000 | 1}, /* ret ERRNO(EPERM) */
    {0x06, 0, 0, 0x7fff0000},	  /* ret ALLOW */
};
static struct bpf_prog deny_getppid = {4, deny_getppid_insns};

#define MODE_STRICT 1
#define MODE_FILTER 2
#define SET_MODE_STRICT 0
#define SET_MODE_FILTER 1

struct seccomp_call {
	bool nnp; /* PR_SET_NO_NEW_PRIVS first */
	int how;  /* 0: prctl(PR_SET_SECCOMP), 1: syscall(SYS_seccomp) */
	unsigned long mode, flags;
	const void *prog;
};

/* seen[0]: PR_GET_SECCOMP after; seen[1]: getppid()'s errno (0 if it
 * answered) */
static void do_seccomp(struct pwrap_outcome *o, void *arg)
{
	const struct seccomp_call *c = arg;
	long r;

	if (c->nnp) {
		assert_int_equal(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	}
	errno = 0;
	if (c->how == 0) {
		o->rc = prctl(PR_SET_SECCOMP, c->mode, c->prog, 0, 0);
	} else {
		o->rc = syscall(SYS_seccomp, c->mode, c->flags, c->prog);
	}
	o->err = errno;
	/* strict mode kills the process here, at the first call that is
	 * not read, write or _exit */
	errno = 0;
	r = syscall(SYS_getppid);
	o->seen[1] = r == -1 ? errno : 0;
	o->seen[0] = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
}

static void test_prctl_seccomp(void **state)
{
	struct seccomp_call strict = {false, 0, MODE_STRICT, 0, NULL};
	struct seccomp_call filter = {true, 0, MODE_FILTER, 0, &deny_getppid};
	struct pwrap_outcome native, wrapped;

	(void)state;
	if (pwrap_test_valgrind_answers("seccomp filters")) {
		skip();
	}
	pwrap_test_env(NULL, "PR_SET_SECCOMP", NULL);
#ifndef __SANITIZE_THREAD__
	/* (strict mode kills the calling thread: under TSan its background
	 * thread would keep the child alive) */
	native = pwrap_test_child(true, do_seccomp, &strict);
	assert_int_equal(native.signal, SIGKILL);
#endif
	wrapped = pwrap_test_child(false, do_seccomp, &strict);
	assert_int_equal(wrapped.signal, 0);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[0], 0);
	assert_int_equal(wrapped.seen[1], 0);

	for (int how = 0; how < 2; how++) {
		filter.how = how;
		filter.mode = how == 0 ? MODE_FILTER : SET_MODE_FILTER;
		native = pwrap_test_child(true, do_seccomp, &filter);
		assert_int_equal(native.rc, 0);
		assert_int_equal(native.seen[0], MODE_FILTER);
		assert_int_equal(native.seen[1], EPERM);
		wrapped = pwrap_test_child(false, do_seccomp, &filter);
		assert_int_equal(wrapped.rc, 0);
		assert_int_equal(wrapped.seen[0], 0);
		assert_int_equal(wrapped.seen[1], 0);
	}
	/* no no_new_privs, no CAP_SYS_ADMIN: the kernel says EACCES, the
	 * wrapper 0 (no filter to refuse) */
	filter.how = 0;
	filter.mode = MODE_FILTER;
	filter.nnp = false;
	wrapped = pwrap_test_child(false, do_seccomp, &filter);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[0], 0);
}

/* What the kernel refuses for its arguments is refused the same way;
 * seccomp(2)'s readers pass through. */
static void test_prctl_seccomp_errors(void **state)
{
	const struct {
		struct seccomp_call c;
		int err; /* the kernel's errno, or 0 for success */
	} cases[] = {
	    {{true, 0, MODE_FILTER, 0, NULL}, EFAULT},
	    {{true, 0, 3, 0, &deny_getppid}, EINVAL},
	    {{true, 0, 0, 0, &deny_getppid}, EINVAL},
	    {{true, 1, SET_MODE_FILTER, 0, NULL}, EFAULT},
	    {{true, 1, SET_MODE_FILTER, 1u << 30, &deny_getppid}, EINVAL},
	    /* libseccomp's probe for seccomp(2) */
	    {{false, 1, SET_MODE_STRICT, 1, NULL}, EINVAL},
	    {{false, 1, SET_MODE_STRICT, 0, &deny_getppid}, EINVAL},
	    {{false, 1, 77, 0, NULL}, EINVAL},
	    /* SECCOMP_GET_ACTION_AVAIL of SECCOMP_RET_ALLOW */
	    {{false, 1, 2, 0, &(const uint32_t){0x7fff0000}}, 0},
	};

	(void)state;
	if (pwrap_test_valgrind_answers("seccomp(2)")) {
		skip();
	}
	pwrap_test_env(NULL, "ALL", NULL);
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(cases); i++) {
		struct pwrap_outcome native, wrapped;

		native =
		    pwrap_test_child(true, do_seccomp, (void *)&cases[i].c);
		wrapped =
		    pwrap_test_child(false, do_seccomp, (void *)&cases[i].c);
		printf("case %zu: native %ld/%d, wrapped %ld/%d\n", i,
		       native.rc, native.err, wrapped.rc, wrapped.err);
		assert_int_equal(native.signal, 0);
		assert_int_equal(wrapped.signal, 0);
		assert_int_equal(native.rc, cases[i].err ? -1 : 0);
		assert_int_equal(native.err, cases[i].err);
		assert_int_equal(wrapped.rc, native.rc);
		assert_int_equal(wrapped.err, native.err);
		assert_int_equal(wrapped.seen[0], 0);
	}
}

/* A user-notification listener cannot be given without the filter: the
 * request is refused as by a kernel without that flag. */
static void test_seccomp_listener(void **state)
{
	struct seccomp_call c = {true, 1, SET_MODE_FILTER, 1u << 3,
				 &deny_getppid};
	struct pwrap_outcome o;

	(void)state;
	pwrap_test_env(NULL, "PR_SET_SECCOMP", NULL);
	o = pwrap_test_child(false, do_seccomp, &c);
	assert_int_equal(o.rc, -1);
	assert_int_equal(o.err, EINVAL);
	assert_int_equal(o.seen[0], 0);
}

/* Options not listed, and options no list can name, pass through. */
static void test_prctl_passes_through(void **state)
{
	struct prctl_call dump = {PR_SET_DUMPABLE, 0,	 0, 0, 0,
				  PR_GET_DUMPABLE, false};
	struct prctl_call nnp = {PR_SET_NO_NEW_PRIVS, 1,    0, 0, 0,
				 PR_GET_NO_NEW_PRIVS, false};
	struct prctl_call bogus = {0x7ffff00, 0, 0, 0, 0, 0, false};
	struct pwrap_outcome native, wrapped;
	char name[16] = "";

	(void)state;
	pwrap_test_env(NULL, "PR_SET_NO_NEW_PRIVS", NULL);
	wrapped = pwrap_test_child(false, do_prctl, &dump);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[1], 0);

	pwrap_test_env(NULL, "PR_SET_DUMPABLE|PR_SET_SECCOMP", NULL);
	wrapped = pwrap_test_child(false, do_prctl, &nnp);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[1], 1);

	pwrap_test_env(NULL, "ALL", NULL);
	assert_int_equal(prctl(PR_SET_NAME, "pwrap-name", 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_NAME, name, 0, 0, 0), 0);
	assert_string_equal(name, "pwrap-name");
	prctl_both(&bogus, &native, &wrapped);
	pwrap_test_expect_both_refused(&native, &wrapped, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prctl_dumpable),
	    cmocka_unit_test(test_prctl_no_new_privs),
	    cmocka_unit_test(test_prctl_seccomp),
	    cmocka_unit_test(test_prctl_seccomp_errors),
	    cmocka_unit_test(test_seccomp_listener),
	    cmocka_unit_test(test_prctl_passes_through),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
