/*
 * priv_wrapper preloaded: chroot() against the kernel's own answer (EPERM
 * for an ordinary user, a real chroot as root), and the variables: read
 * when used, bad values reported once, inert without PRIV_WRAPPER=1.
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
	if (pwrap_test_is_root()) {
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
		if (!pwrap_test_is_root()) {
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
	expect_one_line(chroot_child, d, "PRIVWRAP_ERROR", "PRIV_WRAPPER='yes'");

	/* PRIV_WRAPPER_DEBUGLEVEL=2: what was answered without effect */
	pwrap_test_env("1", NULL, NULL);
	setenv("PRIV_WRAPPER_DEBUGLEVEL", "2", 1);
	expect_one_line(chroot_d, d, "PRIVWRAP_DEBUG", "chroot(\"");
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
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &r), 0);
	r.rlim_cur--;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &r), 0);
	o->seen[2] = getrlimit(RLIMIT_NOFILE, &r) == 0;
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
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &r), 0);
	o = pwrap_test_child(false, do_everything, d);
	assert_int_equal(o.rc, pwrap_test_is_root() ? 0 : -1);
	if (!pwrap_test_is_root()) {
		assert_int_equal(o.err, EPERM);
	}
	assert_int_equal(o.seen[0], 1);
	assert_int_equal(o.seen[1], 1);
	assert_int_equal(o.seen[2], 1);
	assert_int_equal(o.seen[3], (long)(r.rlim_cur - 1));
	free(d);
	pwrap_test_env_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chroot_disabled),
	    cmocka_unit_test(test_chroot_errors),
	    cmocka_unit_test(test_chroot_null),
	    cmocka_unit_test(test_chroot_not_disabled),
	    cmocka_unit_test(test_read_when_used),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_inert),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
