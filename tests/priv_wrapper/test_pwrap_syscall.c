/*
 * syscall() with priv_wrapper, uid_wrapper and socket_wrapper preloaded
 * in several orders (each interposes syscall() and passes on what it does
 * not own): every library answers its own numbers whatever its place,
 * the numbers nobody owns reach the kernel, and a priv_wrapper number
 * whose request is not disabled reaches the kernel through the others.
 */
#include "pwrap_test.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char *dir;
static bool have_priv, have_uid, have_socket;

static int setup(void **state)
{
	(void)state;
	dir = cwrap_test_mkdtemp("pwrap-sys");
	have_priv = dlsym(RTLD_DEFAULT, "priv_wrapper_enabled") != NULL;
	have_uid = dlsym(RTLD_DEFAULT, "uid_wrapper_enabled") != NULL;
	have_socket = dlsym(RTLD_DEFAULT, "socket_wrapper_enabled") != NULL;
	printf("priv_wrapper %s, uid_wrapper %s, socket_wrapper %s\n",
	       have_priv ? "loaded" : "absent", have_uid ? "loaded" : "absent",
	       have_socket ? "loaded" : "absent");
	assert_true(have_priv);
	setenv("SOCKET_WRAPPER_DIR", dir, 1);
	pwrap_test_env("1", "PR_SET_DUMPABLE", "RLIMIT_NOFILE");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cwrap_test_rmtree(dir);
	free(dir);
	return 0;
}

static void test_priv_numbers(void **state)
{
	struct rlimit before, after;
	unsigned long up[2];
	char name[16] = "";

	(void)state;
	assert_int_equal(syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
	assert_int_equal(syscall(SYS_chroot, dir), 0);
	errno = 0;
	assert_int_equal(syscall(SYS_chroot, "/nonexistent-pwrap"), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &before), 0);
	up[0] = up[1] = (unsigned long)before.rlim_max + 1;
	assert_int_equal(syscall(SYS_setrlimit, RLIMIT_NOFILE, up), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_int_equal(after.rlim_max, before.rlim_max);
	/* not disabled: through the other wrappers to the kernel */
	assert_int_equal(
	    syscall(SYS_prctl, PR_SET_NAME, (long)"pwrap-sys", 0, 0, 0), 0);
	assert_int_equal(prctl(PR_GET_NAME, name, 0, 0, 0), 0);
	assert_string_equal(name, "pwrap-sys");
}

static void test_other_numbers(void **state)
{
	(void)state;
	/* nobody's */
	assert_int_equal(syscall(SYS_getpid), getpid());
	/* uid_wrapper's: fake root */
	if (have_uid) {
		assert_int_equal(syscall(SYS_getuid), 0);
		assert_int_equal(syscall(SYS_geteuid), 0);
	} else {
		assert_int_equal(syscall(SYS_getuid), getuid());
	}
}

static void test_socket_numbers(void **state)
{
#ifdef SYS_socket
	struct sockaddr_in sin;
	struct stat st;
	char *marker;
	long fd;

	(void)state;
	if (!have_socket) {
		skip();
	}
	fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(7777);
	sin.sin_addr.s_addr = inet_addr("127.0.0.10");
	assert_int_equal(syscall(SYS_bind, fd, &sin, sizeof(sin)), 0);
	/* socket_wrapper's name for TCP 127.0.0.10:7777 */
	marker = cwrap_test_path(dir, "T0A1E61");
	assert_int_equal(stat(marker, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	close((int)fd);
	free(marker);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_priv_numbers),
	    cmocka_unit_test(test_other_numbers),
	    cmocka_unit_test(test_socket_numbers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
