/*
 * fork and exec: a forked child keeps its emulated sockets (and its
 * parent's names stay), and a socket inherited across exec keeps its
 * emulated identity (the helper swrap_inherit asks getsockname and
 * getpeername and talks over it, as sshd does after re-exec).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
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

/* The process that bound a listener hands it to a forked child and
 * closes its own copy (a supervisor, a server that daemonizes after
 * binding): the name stays while the child listens, and goes when the
 * last holder closes it. */
static void test_fork_binder_closes_child_serves(void **state)
{
	int l = swrap_test_listener("127.0.0.51", 23, 5);
	int go[2], c, status;
	char buf[8] = {0}, path[512];
	struct stat st;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/T330017", dir);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int a;
		bool ok;

		close(go[1]);
		/* served once the parent closed its copy */
		ok = read(go[0], buf, 1) == 1;
		a = accept(l, NULL, NULL);
		ok = ok && a >= 0 && write(a, "served", 6) == 6;
		close(a);
		close(l);
		/* the last holder closed it: the name is gone */
		ok = ok && stat(path, &st) != 0 && errno == ENOENT;
		_exit(ok ? 0 : 1);
	}
	close(go[0]);
	close(l);
	/* the child still listens: the name stays and answers */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	c = swrap_test_connect(SOCK_STREAM, "127.0.0.51", 23);
	swrap_test_read_all(c, buf, 6);
	assert_string_equal(buf, "served");
	close(c);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_not_equal(stat(path, &st), 0);
}

/* A datagram socket bound before a fork, closed by the parent first and
 * the child last: the name goes with the child's close, not before. */
static void test_fork_dgram_name_last_closer(void **state)
{
	int u = swrap_test_bound(SOCK_DGRAM, "127.0.0.51", 24);
	int go[2], done[2], status;
	char buf[8] = {0}, path[512];
	struct stat st;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/U330018", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bool ok;

		close(go[1]);
		close(done[0]);
		ok = read(go[0], buf, 1) == 1 &&
		     recv(u, buf, sizeof(buf), 0) == 4 &&
		     memcmp(buf, "ping", 4) == 0;
		close(u);
		ok = ok && stat(path, &st) != 0;
		ok = write(done[1], ok ? "y" : "n", 1) == 1 && ok;
		_exit(ok ? 0 : 1);
	}
	close(go[0]);
	close(done[1]);
	close(u);
	assert_int_equal(stat(path, &st), 0);
	u = swrap_test_connect(SOCK_DGRAM, "127.0.0.51", 24);
	assert_int_equal(send(u, "ping", 4, 0), 4);
	close(u);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(done[0], buf, 1), 1);
	assert_int_equal(buf[0], 'y');
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(go[1]);
	close(done[0]);
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
	    cmocka_unit_test(test_fork_binder_closes_child_serves),
	    cmocka_unit_test(test_fork_dgram_name_last_closer),
	    cmocka_unit_test(test_exec_keeps_identity),
	    cmocka_unit_test(test_exec_keeps_identity_v6),
	    cmocka_unit_test(test_exec_inherited_listener),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
