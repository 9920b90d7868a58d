/*
 * fork and exec: a forked child keeps its emulated sockets (and its
 * parent's names stay), and a socket inherited across exec keeps its
 * emulated identity (the helper swrap_inherit asks getsockname and
 * getpeername and talks over it, as sshd does after re-exec).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "swrap_test.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("50");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

static void test_fork_child_keeps_sockets(void **state)
{
	int l = swrap_test_listener("127.0.0.51", 22, 5);
	int c = swrap_test_connect(SOCK_STREAM, "127.0.0.51", 22);
	int s = accept(l, NULL, NULL);
	char buf[16] = {0};
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char name[64];
		int ok;

		/* The child closes the listener copy: the parent's name must
		 * stay (only the process that bound it removes it). */
		close(l);
		ok = getpeername(c, (struct sockaddr *)&ss, &len) == 0 &&
		     strcmp(swrap_test_ntop(&ss, name), "127.0.0.51:22") == 0 &&
		     write(c, "child", 5) == 5;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	swrap_test_read_all(s, buf, 5);
	assert_string_equal(buf, "child");
	{
		char path[512];
		struct stat st;

		snprintf(path, sizeof(path), "%s/T330016", dir);
		assert_int_equal(stat(path, &st), 0);
	}
	close(s);
	close(c);
	close(l);
}

static void run_inherit_mode(int fd, const char *want_line, int peer,
			     const char *mode, const char *addr, int port)
{
	const char *bin = getenv("CWRAP_TEST_BIN");
	char path[4096], arg[16], out[256] = {0}, buf[8] = {0};
	int p[2], status;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/swrap_inherit", bin);
	snprintf(arg, sizeof(arg), "%d", fd);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(path, path, arg, mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (peer < 0) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char client[64], want[256];

		peer = swrap_test_connect(SOCK_STREAM, addr, port);
		assert_int_equal(
		    getsockname(peer, (struct sockaddr *)&ss, &len), 0);
		snprintf(want, sizeof(want), want_line,
			 swrap_test_ntop(&ss, client));
		swrap_test_read_all(peer, buf, 4);
		assert_string_equal(buf, "exec");
		swrap_test_write_all(peer, "back", 4);
		while ((r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0) {
			got += (size_t)r;
		}
		close(p[0]);
		close(peer);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_string_equal(out, want);
		return;
	}
	/* The helper sends "exec"; answer it. */
	swrap_test_read_all(peer, buf, 4);
	assert_string_equal(buf, "exec");
	swrap_test_write_all(peer, "back", 4);
	while ((r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0) {
		got += (size_t)r;
	}
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, want_line);
}

static void run_inherit(int fd, const char *want_line, int peer)
{
	run_inherit_mode(fd, want_line, peer, NULL, NULL, 0);
}

/* An inherited listener (socket activation, inetd) accepts with the
 * right names. */
static void test_exec_inherited_listener(void **state)
{
	int l = swrap_test_listener("127.0.0.54", 993, 5);

	(void)state;
	run_inherit_mode(l, "127.0.0.54:993 %s\nback\n", -1, "accept",
			 "127.0.0.54", 993);
	close(l);
}

static void test_exec_keeps_identity(void **state)
{
	int l = swrap_test_listener("127.0.0.52", 22, 5);
	int c = swrap_test_connect(SOCK_STREAM, "127.0.0.52", 22);
	int s = accept(l, NULL, NULL);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char client[64], want[256];

	(void)state;
	assert_int_equal(getsockname(c, (struct sockaddr *)&ss, &len), 0);
	swrap_test_ntop(&ss, client);
	/* The accepted socket, inherited by an exec'd program (sshd). */
	snprintf(want, sizeof(want), "127.0.0.52:22 %s\nback\n", client);
	run_inherit(s, want, c);
	/* The client side too. */
	snprintf(want, sizeof(want), "%s 127.0.0.52:22\nback\n", client);
	run_inherit(c, want, s);
	close(s);
	close(c);
	close(l);
}

static void test_exec_keeps_identity_v6(void **state)
{
	int l = swrap_test_listener("fd00::5357:5f35", 2222, 5);
	int c = swrap_test_connect(SOCK_STREAM, "fd00::5357:5f35", 2222);
	int s = accept(l, NULL, NULL);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char client[64], want[256];

	(void)state;
	assert_int_equal(getsockname(c, (struct sockaddr *)&ss, &len), 0);
	swrap_test_ntop(&ss, client);
	assert_memory_equal(client, "[fd00::5357:5f32]:", 18);
	snprintf(want, sizeof(want), "[fd00::5357:5f35]:2222 %s\nback\n",
		 client);
	run_inherit(s, want, c);
	close(s);
	close(c);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fork_child_keeps_sockets),
	    cmocka_unit_test(test_exec_keeps_identity),
	    cmocka_unit_test(test_exec_keeps_identity_v6),
	    cmocka_unit_test(test_exec_inherited_listener),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
