/*
 * priv_wrapper preloaded: every call against the kernel's own answer.
 * Each case makes the call natively in a child (PRIV_WRAPPER unset: what
 * the kernel says, and does, for this user: EPERM for chroot() as an
 * ordinary user, a real chroot as root) and wrapped, and checks that a
 * disabled request returns 0 and changes nothing (the root, the dumpable
 * and no_new_privs flags, the seccomp mode, the limits), that a request
 * the kernel refuses for its arguments gets the kernel's errno, and that
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

static char *dir;

static char *path_in(const char *name)
{
	return cwrap_test_path(dir, name);
}

static int setup(void **state)
{
	char *p;

	(void)state;
	dir = cwrap_test_mkdtemp("pwrap");
	p = path_in("d");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = path_in("f");
	cwrap_test_write_file(p, "a file\n");
	free(p);
	p = path_in("loop");
	assert_int_equal(symlink(p, p), 0);
	free(p);
	/* a directory this user may not search (root may) */
	p = path_in("noexec");
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = path_in("noexec/sub");
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = path_in("noexec");
	assert_int_equal(chmod(p, 0600), 0);
	free(p);
	return 0;
}

static int teardown(void **state)
{
	char *p = path_in("noexec");

	(void)state;
	chmod(p, 0700);
	free(p);
	cwrap_test_rmtree(dir);
	free(dir);
	pwrap_test_env_clear();
	return 0;
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/* The kernel refused with `err`, and so did the wrapped call. */
static void expect_both_refused(const struct pwrap_outcome *native,
				const struct pwrap_outcome *wrapped, int err)
{
	assert_int_equal(native->rc, -1);
	assert_int_equal(native->err, err);
	assert_int_equal(wrapped->rc, -1);
	assert_int_equal(wrapped->err, err);
}

/* ---- chroot ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* seen[0]: the root moved; seen[1]: the working directory moved */
static void do_chroot(struct pwrap_outcome *o, void *arg)
{
	struct stat root0, root1, cwd0, cwd1;

	assert_int_equal(stat("/", &root0), 0);
	assert_int_equal(stat(".", &cwd0), 0);
	errno = 0;
	o->rc = chroot(arg);
	o->err = errno;
	assert_int_equal(stat("/", &root1), 0);
	assert_int_equal(stat(".", &cwd1), 0);
	o->seen[0] = !same_file(&root0, &root1);
	o->seen[1] = !same_file(&cwd0, &cwd1);
}

/* What the kernel does with chroot() for this user: root moves its
 * root, anyone else gets EPERM. */
static void expect_kernel_chroot(const struct pwrap_outcome *o)
{
	if (is_root()) {
		assert_int_equal(o->rc, 0);
		assert_int_equal(o->seen[0], 1);
	} else {
		assert_int_equal(o->rc, -1);
		assert_int_equal(o->err, EPERM);
		assert_int_equal(o->seen[0], 0);
	}
}

static void test_chroot_disabled(void **state)
{
	struct pwrap_outcome native, wrapped;
	char *d = path_in("d"), link[PATH_MAX];
	ssize_t n;

	(void)state;
	pwrap_test_env("1", NULL, NULL);
	native = pwrap_test_child(true, do_chroot, d);
	expect_kernel_chroot(&native);

	/* in this process: nothing may change here */
	do_chroot(&wrapped, d);
	assert_int_equal(wrapped.rc, 0);
	assert_int_equal(wrapped.seen[0], 0);
	assert_int_equal(wrapped.seen[1], 0);
	n = readlink("/proc/self/root", link, sizeof(link) - 1);
	assert_int_equal(n, 1);
	assert_int_equal(link[0], '/');

	/* through syscall() */
	assert_int_equal(syscall(SYS_chroot, d), 0);
	n = readlink("/proc/self/root", link, sizeof(link) - 1);
	assert_int_equal(n, 1);
	free(d);
}

/* The kernel checks the path before the privilege: those errors stay. */
static void test_chroot_errors(void **state)
{
	const char *names[] = {"missing",	 "f",	   "f/x",
			       "loop",		 "noexec", "noexec/sub",
			       "d/../missing/.."};
	char longname[PATH_MAX + 16];

	(void)state;
	pwrap_test_env("1", NULL, NULL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(names) + 2; i++) {
		struct pwrap_outcome native, wrapped;
		char *p;

		if (i < CWRAP_ARRAY_SIZE(names)) {
			p = path_in(names[i]);
		} else {
			p = strdup(i == CWRAP_ARRAY_SIZE(names) ? ""
								: longname);
		}
		native = pwrap_test_child(true, do_chroot, p);
		wrapped = pwrap_test_child(false, do_chroot, p);
		printf("chroot(\"%.60s\"): native %ld (%s), wrapped %ld (%s)\n",
		       p, native.rc, native.rc ? strerror(native.err) : "-",
		       wrapped.rc, wrapped.rc ? strerror(wrapped.err) : "-");
		assert_int_equal(wrapped.seen[0], 0);
		if (native.rc == 0 || native.err == EPERM) {
			assert_int_equal(wrapped.rc, 0);
		} else {
			assert_int_equal(wrapped.rc, -1);
			assert_int_equal(wrapped.err, native.err);
		}
		free(p);
	}
	/* (the cases mean what they say) */
	{
		char *p = path_in("missing");
		struct pwrap_outcome o = pwrap_test_child(false, do_chroot, p);

		assert_int_equal(o.err, ENOENT);
		free(p);
		p = path_in("f");
		o = pwrap_test_child(false, do_chroot, p);
		assert_int_equal(o.err, ENOTDIR);
		free(p);
		p = path_in("loop");
		o = pwrap_test_child(false, do_chroot, p);
		assert_int_equal(o.err, ELOOP);
		free(p);
		o = pwrap_test_child(false, do_chroot, longname);
		assert_int_equal(o.err, ENAMETOOLONG);
		if (!is_root()) {
			p = path_in("noexec");
			o = pwrap_test_child(false, do_chroot, p);
			assert_int_equal(o.err, EACCES);
			free(p);
		}
	}
}

static void do_chroot_null(struct pwrap_outcome *o, void *arg)
{
	/* (through a pointer: chroot() is declared nonnull) */
	int (*fn)(const char *) =
	    (int (*)(const char *))dlsym(RTLD_DEFAULT, "chroot");

	(void)arg;
	errno = 0;
	o->rc = fn(NULL);
	o->err = errno;
}

static void test_chroot_null(void **state)
{
	struct pwrap_outcome wrapped;

	(void)state;
	/* (the kernel says EFAULT: not asked here, as valgrind reports the
	 * call; the wrapper must not dereference the pointer) */
	pwrap_test_env("1", NULL, NULL);
	wrapped = pwrap_test_child(false, do_chroot_null, NULL);
	assert_int_equal(wrapped.rc, -1);
	assert_int_equal(wrapped.err, EFAULT);
}

/* Enabled, chroot not disabled ("0" or unset): the kernel's answer. */
static void test_chroot_not_disabled(void **state)
{
	const char *values[] = {NULL, "0"};
	char *d = path_in("d");

	(void)state;
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(values); i++) {
		struct pwrap_outcome o;

		pwrap_test_env(values[i], "ALL", "ALL");
		o = pwrap_test_child(false, do_chroot, d);
		expect_kernel_chroot(&o);
	}
	free(d);
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
	expect_both_refused(&native, &wrapped, EINVAL);
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
		expect_both_refused(&native, &wrapped, EINVAL);
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
	expect_both_refused(&native, &wrapped, EINVAL);
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
		if (!is_root()) {
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
		expect_both_refused(&native, &wrapped, EINVAL);
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
	if (!is_root()) {
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

/* ---- the variables ---- */

static void test_read_when_used(void **state)
{
	bool (*enabled)(void) =
	    (bool (*)(void))dlsym(RTLD_DEFAULT, "priv_wrapper_enabled");
	char *d = path_in("d");
	struct pwrap_outcome o;

	(void)state;
	assert_non_null(enabled);
	pwrap_test_env_clear();
	assert_false(enabled());
	setenv("PRIV_WRAPPER_CHROOT_DISABLE", "1", 1);
	assert_false(enabled());
	o = pwrap_test_child(false, do_chroot, d);
	expect_kernel_chroot(&o);
	setenv("PRIV_WRAPPER", "1", 1);
	assert_true(enabled());
	do_chroot(&o, d);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.seen[0], 0);
	unsetenv("PRIV_WRAPPER_CHROOT_DISABLE");
	assert_true(enabled());
	o = pwrap_test_child(false, do_chroot, d);
	expect_kernel_chroot(&o);
	/* putenv() is seen too */
	putenv((char *)"PRIV_WRAPPER_PRCTL_DISABLE=PR_SET_DUMPABLE");
	assert_int_equal(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
	free(d);
	pwrap_test_env_clear();
}

static void three_prctls(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
		assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
	}
}

static void chroot_d(void *arg)
{
	struct pwrap_outcome o;

	do_chroot(&o, arg);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.seen[0], 0);
}

static void chroot_child(void *arg)
{
	struct pwrap_outcome o = pwrap_test_child(false, do_chroot, arg);

	expect_kernel_chroot(&o);
}

/* fn(arg) prints exactly one line on stderr, holding `a` and `b`. */
static void expect_one_line(void (*fn)(void *), void *arg, const char *a,
			    const char *b)
{
	char *err = pwrap_test_stderr(fn, arg);

	printf("%s", err);
	assert_int_equal(pwrap_test_count(err, "\n"), 1);
	assert_non_null(strstr(err, a));
	assert_non_null(strstr(err, b));
	free(err);
}

static void test_bad_values(void **state)
{
	char *d = path_in("d"), *err;

	(void)state;
	/* an unknown name: one line naming it, at the first call only;
	 * the known names are disabled */
	pwrap_test_env(NULL, "PR_SET_DUMPABLE|PR_SET_NOPE", NULL);
	expect_one_line(three_prctls, NULL, "PRIV_WRAPPER_PRCTL_DISABLE",
			"'PR_SET_NOPE'");

	/* PRIV_WRAPPER neither 0 nor 1: one line, off */
	pwrap_test_env("1", NULL, NULL);
	setenv("PRIV_WRAPPER", "yes", 1);
	expect_one_line(chroot_child, d, "PWRAP_ERROR", "PRIV_WRAPPER='yes'");

	/* PRIV_WRAPPER_DEBUGLEVEL=2: what was answered without effect */
	pwrap_test_env("1", NULL, NULL);
	setenv("PRIV_WRAPPER_DEBUGLEVEL", "2", 1);
	expect_one_line(chroot_d, d, "PWRAP_DEBUG", "chroot(\"");
	unsetenv("PRIV_WRAPPER_DEBUGLEVEL");
	err = pwrap_test_stderr(chroot_d, d);
	assert_string_equal(err, "");
	free(err);
	free(d);
	pwrap_test_env_clear();
}

/* Preloaded without PRIV_WRAPPER=1: every call is the kernel's. */
static void do_everything(struct pwrap_outcome *o, void *arg)
{
	struct rlimit r;

	o->rc = chroot(arg);
	o->err = errno;
	o->seen[0] = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 &&
		     prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0;
	o->seen[1] = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
		     prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
	assert_int_equal(getrlimit(NOFILE, &r), 0);
	r.rlim_cur--;
	assert_int_equal(setrlimit(NOFILE, &r), 0);
	o->seen[2] = getrlimit(NOFILE, &r) == 0;
	o->seen[3] = r.rlim_cur;
}

static void test_inert(void **state)
{
	char *d = path_in("d");
	struct rlimit r;
	struct pwrap_outcome o;

	(void)state;
	pwrap_test_env("1", "ALL", "ALL");
	unsetenv("PRIV_WRAPPER");
	assert_int_equal(getrlimit(NOFILE, &r), 0);
	o = pwrap_test_child(false, do_everything, d);
	assert_int_equal(o.rc, is_root() ? 0 : -1);
	if (!is_root()) {
		assert_int_equal(o.err, EPERM);
	}
	assert_int_equal(o.seen[0], 1);
	assert_int_equal(o.seen[1], 1);
	assert_int_equal(o.seen[2], 1);
	assert_int_equal(o.seen[3], (long)(r.rlim_cur - 1));
	free(d);
	pwrap_test_env_clear();
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
	    cmocka_unit_test(test_chroot_disabled),
	    cmocka_unit_test(test_chroot_errors),
	    cmocka_unit_test(test_chroot_null),
	    cmocka_unit_test(test_chroot_not_disabled),
	    cmocka_unit_test(test_prctl_dumpable),
	    cmocka_unit_test(test_prctl_no_new_privs),
	    cmocka_unit_test(test_prctl_seccomp),
	    cmocka_unit_test(test_prctl_seccomp_errors),
	    cmocka_unit_test(test_seccomp_listener),
	    cmocka_unit_test(test_prctl_passes_through),
	    cmocka_unit_test(test_setrlimit_raise),
	    cmocka_unit_test(test_setrlimit_lower_and_invalid),
	    cmocka_unit_test(test_setrlimit_passes_through),
	    cmocka_unit_test(test_prlimit_other_process),
	    cmocka_unit_test(test_prlimit_big_old),
	    cmocka_unit_test(test_read_when_used),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_inert),
	    cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
