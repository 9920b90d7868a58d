/*
 * SO_REUSEPORT groups (nginx `listen ... reuseport`): several TCP
 * listeners on one address, in several processes, each served its share
 * of the connections; the group outlives members that die; who may join
 * is what the kernel says (checked first on real sockets on 127.0.0.1).
 * Which member a connection reaches is decided by the client (members in
 * turn; for datagrams, by the sender's port, or the member connected to
 * the sender), so the counts below do not depend on timing.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "swrap_test.h"

#define MEMBERS 3

static char *dir;
/* libc's own syscall(): straight to the kernel, past the wrapper. */
static long (*raw_syscall)(long, ...);

static int setup(void **state)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	(void)state;
	dir = swrap_test_setup("60");
	assert_non_null(libc);
	raw_syscall = (long (*)(long, ...))dlsym(libc, "syscall");
	assert_non_null(raw_syscall);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

/* bind() of a TCP socket `fd` to ss, SO_REUSEPORT set first if asked: 0
 * or the errno. */
static int bind_rp(int fd, const struct sockaddr_storage *ss, socklen_t len,
		   bool reuseport)
{
	int one = 1;

	assert_true(fd >= 0);
	if (reuseport) {
		assert_int_equal(
		    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)),
		    0);
	}
	return bind(fd, (const struct sockaddr *)ss, len) == 0 ? 0 : errno;
}

/* Who may bind a taken address: the same answers from the kernel and
 * from the emulation. */
static void check_binds(bool real, int type, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int fds[7], n = 0;

#define SOCK()                                                                 \
	(fds[n++] = real ? swrap_test_real_socket(AF_INET, type, 0)            \
			 : socket(AF_INET, type, 0))
	assert_int_equal(bind_rp(SOCK(), &ss, len, true), 0);
	if (port == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
		socklen_t l = sizeof(ss);

		assert_int_equal(
		    getsockname(fds[0], (struct sockaddr *)&ss, &l), 0);
		port = ntohs(sin->sin_port);
	}
	assert_int_equal(type == SOCK_STREAM ? listen(fds[0], 5) : 0, 0);
	/* A second reuseport socket joins; one without the option does not. */
	assert_int_equal(bind_rp(SOCK(), &ss, len, true), 0);
	assert_int_equal(type == SOCK_STREAM ? listen(fds[1], 5) : 0, 0);
	assert_int_equal(bind_rp(SOCK(), &ss, len, false), EADDRINUSE);
	/* The first member leaves: the second still holds the address. */
	close(fds[0]);
	fds[0] = -1;
	assert_int_equal(bind_rp(SOCK(), &ss, len, false), EADDRINUSE);
	/* A reuseport socket on an address held without the option. */
	ss.ss_family = AF_INET;
	((struct sockaddr_in *)&ss)->sin_port = 0;
	if (!real) {
		((struct sockaddr_in *)&ss)->sin_port =
		    htons((uint16_t)port + 1);
	}
	assert_int_equal(bind_rp(SOCK(), &ss, len, false), 0);
	{
		socklen_t l = sizeof(ss);

		assert_int_equal(
		    getsockname(fds[4], (struct sockaddr *)&ss, &l), 0);
	}
	assert_int_equal(type == SOCK_STREAM ? listen(fds[4], 5) : 0, 0);
	assert_int_equal(bind_rp(SOCK(), &ss, len, true), EADDRINUSE);
#undef SOCK
	for (int i = 0; i < n; i++) {
		if (fds[i] >= 0) {
			close(fds[i]);
		}
	}
}

static void test_bind_rules(void **state)
{
	(void)state;
	check_binds(true, SOCK_STREAM, "127.0.0.1", 0);
	check_binds(false, SOCK_STREAM, "127.0.0.61", 8080);
	check_binds(true, SOCK_DGRAM, "127.0.0.1", 0);
	check_binds(false, SOCK_DGRAM, "127.0.0.61", 8080);
}

/* Members in children: bound to addr:port with SO_REUSEPORT, then for
 * each connection (or datagram) they read one byte and answer with their
 * number. */
static bool member_rp = true; /* members set SO_REUSEPORT */
static int member_drop = -1;  /* a descriptor members close first */

/* The member loops: answer each connection or datagram with `idx`. */
static void serve_stream(int l, int idx)
{
	char b = (char)('0' + idx), c;

	for (;;) {
		int a = accept(l, NULL, NULL);

		if (a < 0 || read(a, &c, 1) != 1 || write(a, &b, 1) != 1) {
			_exit(1);
		}
		close(a);
	}
}

static void serve_dgram(int u, int idx)
{
	char b = (char)('0' + idx), c;

	for (;;) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);

		if (recvfrom(u, &c, 1, 0, (struct sockaddr *)&from, &fl) != 1 ||
		    sendto(u, &b, 1, 0, (struct sockaddr *)&from, fl) != 1) {
			_exit(1);
		}
	}
}

/* A member of `type` in a child, bound (and listening) before this
 * returns. */
static pid_t spawn_member(int type, int idx, const char *addr, int port,
			  bool rp)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int p[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = socket(ss.ss_family, type, 0);

		/* (gone with the test, even when an assertion ends it) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		if (member_drop >= 0) {
			close(member_drop);
		}
		if (bind_rp(fd, &ss, len, rp) != 0 ||
		    (type == SOCK_STREAM && listen(fd, 16) != 0) ||
		    write(p[1], "r", 1) != 1) {
			_exit(1);
		}
		if (type == SOCK_STREAM) {
			serve_stream(fd, idx);
		}
		serve_dgram(fd, idx);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static pid_t member(int idx, const char *addr, int port)
{
	return spawn_member(SOCK_STREAM, idx, addr, port, member_rp);
}

/* One client: connects, asks, returns the number of the member that
 * answered. */
static int ask(const char *addr, int port)
{
	int fd = swrap_test_connect(SOCK_STREAM, addr, port);
	char c = 0;

	assert_int_equal(write(fd, "?", 1), 1);
	assert_int_equal(read(fd, &c, 1), 1);
	close(fd);
	assert_true(c >= '0' && c < '0' + MEMBERS);
	return c - '0';
}

static void kill_member(pid_t pid)
{
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

static void test_group_serves_all(void **state)
{
	pid_t pids[MEMBERS];
	int served[MEMBERS] = {0};
	const int clients = 4 * MEMBERS;

	(void)state;
	for (int i = 0; i < MEMBERS; i++) {
		pids[i] = member(i, "127.0.0.62", 8080);
	}
	for (int i = 0; i < clients; i++) {
		served[ask("127.0.0.62", 8080)]++;
	}
	for (int i = 0; i < MEMBERS; i++) {
		assert_true(served[i] >= 1);
		kill_member(pids[i]);
	}
	/* Every member gone: refused, as by the kernel. */
	{
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa("127.0.0.62", 8080, &ss);
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), -1);
		assert_int_equal(errno, ECONNREFUSED);
		close(fd);
	}
}

/* A client that knows nothing of groups (upstream's library, a plain
 * unix socket) on the plain name: the number of the member that
 * answered, or -1 if refused. */
static int ask_plain(const char *name)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	char c = 0;
	int r = -1;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s/%s", dir, name);
	if (connect(u, (struct sockaddr *)&un, sizeof(un)) == 0 &&
	    write(u, "?", 1) == 1 && read(u, &c, 1) == 1) {
		r = c - '0';
	}
	close(u);
	return r;
}

static void test_member_killed(void **state)
{
	pid_t pids[MEMBERS];
	int served[MEMBERS] = {0};
	char path[512];
	struct stat st;

	(void)state;
	for (int i = 0; i < MEMBERS; i++) {
		pids[i] = member(i, "127.0.0.63", 80);
	}
	for (int i = 0; i < MEMBERS; i++) {
		served[ask("127.0.0.63", 80)]++;
	}
	/* A member in the middle dies: everyone else keeps serving. */
	kill_member(pids[1]);
	memset(served, 0, sizeof(served));
	for (int i = 0; i < 3 * MEMBERS; i++) {
		served[ask("127.0.0.63", 80)]++;
	}
	assert_int_equal(served[1], 0);
	assert_true(served[0] >= 1 && served[2] >= 1);
	/* The first one (holder of the plain name) dies without closing:
	 * its file stays, clients still reach the last member. */
	kill_member(pids[0]);
	snprintf(path, sizeof(path), "%s/T3F0050", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(ask_plain("T3F0050"), -1);
	{
		/* The address is still the group's: no taking the dead
		 * member's file without SO_REUSEPORT. */
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa("127.0.0.63", 80, &ss);
		int b = socket(AF_INET, SOCK_STREAM, 0);

		assert_int_equal(bind_rp(b, &ss, len, false), EADDRINUSE);
		close(b);
	}
	for (int i = 0; i < MEMBERS; i++) {
		assert_int_equal(ask("127.0.0.63", 80), 2);
	}
	/* Our clients found the plain name dead and gave it to the live
	 * member: a client that knows nothing of groups (upstream's
	 * library, a plain unix socket) is served again. */
	assert_int_equal(ask_plain("T3F0050"), 2);
	/* A newcomer joins and is served as well. */
	pids[0] = member(0, "127.0.0.63", 80);
	memset(served, 0, sizeof(served));
	for (int i = 0; i < 3 * MEMBERS; i++) {
		served[ask("127.0.0.63", 80)]++;
	}
	assert_true(served[0] >= 1 && served[2] >= 1);
	assert_int_equal(ask_plain("T3F0050"), 2);
	kill_member(pids[0]);
	kill_member(pids[2]);
	/* The holder of the plain name is bound but does not listen: the
	 * listening member takes the clients. */
	{
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa("127.0.0.63", 81, &ss);
		int b = socket(AF_INET, SOCK_STREAM, 0);

		assert_int_equal(bind_rp(b, &ss, len, true), 0);
		pids[1] = member(1, "127.0.0.63", 81);
		for (int i = 0; i < MEMBERS; i++) {
			assert_int_equal(ask("127.0.0.63", 81), 1);
		}
		kill_member(pids[1]);
		close(b);
	}
}

/* The first member closes while others serve: the plain name goes to a
 * member that lives on, so that clients of the upstream library are
 * still served; once the last one closed, no socket file is left. */
/* Two members in this process on 127.0.0.66:`port` (plain name `plain`
 * in `sockdir`): when the first closes, the second has both names and
 * takes connections by the plain one; once both closed, no file is left. */
static void two_members_leave(const char *sockdir, int port, const char *plain)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.66", port, &ss);
	char member[32];
	int a = socket(AF_INET, SOCK_STREAM, 0);
	int b = socket(AF_INET, SOCK_STREAM, 0);

	snprintf(member, sizeof(member), ".%s.1", plain);
	assert_int_equal(bind_rp(a, &ss, len, true), 0);
	assert_int_equal(bind_rp(b, &ss, len, true), 0);
	assert_int_equal(listen(a, 5), 0);
	assert_int_equal(listen(b, 5), 0);
	assert_true(swrap_test_has_socket(sockdir, member));
	close(a);
	/* b has both names now. */
	assert_true(swrap_test_has_socket(sockdir, plain));
	assert_true(swrap_test_has_socket(sockdir, member));
	{
		/* (b's backlog takes the connections; nobody answers here) */
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		int u = socket(AF_UNIX, SOCK_STREAM, 0);
		int c = socket(AF_INET, SOCK_STREAM, 0);

		snprintf(un.sun_path, sizeof(un.sun_path), "%s/%s", sockdir,
			 plain);
		assert_int_equal(connect(u, (struct sockaddr *)&un, sizeof(un)),
				 0);
		close(u);
		assert_int_equal(connect(c, (struct sockaddr *)&ss, len), 0);
		close(c);
	}
	close(b);
	assert_false(swrap_test_has_socket(sockdir, plain));
	assert_false(swrap_test_has_socket(sockdir, member));
}

static void test_first_member_closes(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.66", 8443, &ss);
	int first = socket(AF_INET, SOCK_STREAM, 0), b;
	pid_t pids[2];
	int served[MEMBERS] = {0};

	(void)state;
	assert_int_equal(bind_rp(first, &ss, len, true), 0);
	assert_int_equal(listen(first, 5), 0);
	assert_true(swrap_test_has_socket(dir, "T4220FB"));
	/* (a forked member that held it would keep the first socket
	 * alive, and in the kernel's group, with nobody accepting) */
	member_drop = first;
	pids[0] = member(1, "127.0.0.66", 8443);
	pids[1] = member(2, "127.0.0.66", 8443);
	member_drop = -1;
	assert_true(swrap_test_has_socket(dir, ".T4220FB.1"));
	assert_true(swrap_test_has_socket(dir, ".T4220FB.2"));
	close(first);
	/* Member 1 has the plain name too now. */
	assert_int_equal(ask_plain("T4220FB"), 1);
	assert_int_equal(ask_plain(".T4220FB.1"), 1);
	for (int i = 0; i < 4; i++) {
		served[ask("127.0.0.66", 8443)]++;
	}
	assert_int_equal(served[0], 0);
	assert_true(served[1] >= 1 && served[2] >= 1);
	/* Nobody else takes the address meanwhile, as in the kernel. */
	b = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind_rp(b, &ss, len, false), EADDRINUSE);
	close(b);
	kill_member(pids[0]);
	kill_member(pids[1]);

	two_members_leave(dir, 8444, "T4220FC");
}

/* A member that exec'd (the listener inherited by swrap_inherit) serves
 * its share beside one in this process. */
static void test_member_across_exec(void **state)
{
	const char *bin = getenv("CWRAP_TEST_BIN");
	struct sockaddr_storage ss, cs[2], ps;
	socklen_t len = swrap_test_sa("127.0.0.64", 443, &ss);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int l2 = socket(AF_INET, SOCK_STREAM, 0);
	int c[2], a, other;
	char path[4096], arg[16], buf[8] = {0};
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(bin);
	assert_int_equal(bind_rp(l, &ss, len, true), 0);
	assert_int_equal(listen(l, 5), 0);
	assert_int_equal(bind_rp(l2, &ss, len, true), 0);
	assert_int_equal(listen(l2, 5), 0);
	snprintf(path, sizeof(path), "%s/swrap_inherit", bin);
	snprintf(arg, sizeof(arg), "%d", l2);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		close(l);
		execl(path, path, arg, "accept", (char *)NULL);
		_exit(127);
	}
	close(l2);
	/* Two clients in turn: one reaches each member. */
	for (int i = 0; i < 2; i++) {
		socklen_t cl = sizeof(cs[i]);

		c[i] = swrap_test_connect(SOCK_STREAM, "127.0.0.64", 443);
		assert_int_equal(
		    getsockname(c[i], (struct sockaddr *)&cs[i], &cl), 0);
	}
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	{
		socklen_t pl = sizeof(ps);

		assert_int_equal(getpeername(a, (struct sockaddr *)&ps, &pl),
				 0);
	}
	other = ((struct sockaddr_in *)&ps)->sin_port ==
			((struct sockaddr_in *)&cs[0])->sin_port
		    ? 1
		    : 0;
	swrap_test_read_all(c[other], buf, 4);
	assert_string_equal(buf, "exec");
	swrap_test_write_all(c[other], "done", 4);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(a);
	close(c[0]);
	close(c[1]);
	close(l);
}

static pid_t udp_member(int idx, const char *addr, int port)
{
	return spawn_member(SOCK_DGRAM, idx, addr, port, true);
}

/* One datagram client on 127.0.0.60:src_port: the number of the member
 * that answered (from the group's address). */
static int udp_ask_to(int src_port, const char *addr)
{
	struct sockaddr_storage me, to, from;
	socklen_t ml = swrap_test_sa("127.0.0.60", src_port, &me);
	socklen_t tl = swrap_test_sa(addr, 53, &to);
	char want[64];
	socklen_t fl = sizeof(from);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	char c = 0, name[64];

	assert_int_equal(bind(u, (struct sockaddr *)&me, ml), 0);
	assert_int_equal(sendto(u, "?", 1, 0, (struct sockaddr *)&to, tl), 1);
	assert_int_equal(recvfrom(u, &c, 1, 0, (struct sockaddr *)&from, &fl),
			 1);
	snprintf(want, sizeof(want), "%s:53", addr);
	assert_string_equal(swrap_test_ntop(&from, name), want);
	close(u);
	assert_true(c >= '0' && c < '0' + MEMBERS);
	return c - '0';
}

static int udp_ask(int src_port)
{
	return udp_ask_to(src_port, "127.0.0.65");
}

static void test_udp_group(void **state)
{
	pid_t pids[MEMBERS];
	int served[MEMBERS] = {0};

	(void)state;
	for (int i = 0; i < MEMBERS; i++) {
		pids[i] = udp_member(i, "127.0.0.65", 53);
	}
	/* One flow always reaches the same member, as with the kernel's
	 * hash; these flows reach every member. */
	for (int i = 0; i < 4 * MEMBERS; i++) {
		served[udp_ask(3000 + i)]++;
	}
	for (int i = 0; i < MEMBERS; i++) {
		assert_true(served[i] >= 1);
	}
	assert_int_equal(udp_ask(3001), udp_ask(3001));
	/* A member dies: its flows go to the others. */
	kill_member(pids[1]);
	memset(served, 0, sizeof(served));
	for (int i = 0; i < 4 * MEMBERS; i++) {
		served[udp_ask(3000 + i)]++;
	}
	assert_int_equal(served[1], 0);
	assert_true(served[0] >= 1 && served[2] >= 1);
	kill_member(pids[0]);
	for (int i = 0; i < MEMBERS; i++) {
		assert_int_equal(udp_ask(3100 + i), 2);
	}
	kill_member(pids[2]);
}

/* A listener without SO_REUSEPORT was killed, leaving its file and its
 * hidden marker ".T0A0050" (a hard link our clients connect through):
 * a group made on the address takes the stale name, removes the marker
 * and makes none, so that clients reach every member. */
static void test_stale_marker(void **state)
{
	pid_t pids[MEMBERS];
	int served[MEMBERS] = {0};
	char path[512];
	struct stat st;

	(void)state;
	member_rp = false;
	pids[0] = member(0, "127.0.0.67", 80);
	member_rp = true;
	snprintf(path, sizeof(path), "%s/.T430050", dir);
	assert_int_equal(stat(path, &st), 0);
	kill_member(pids[0]);
	assert_int_equal(stat(path, &st), 0);
	for (int i = 0; i < MEMBERS; i++) {
		pids[i] = member(i, "127.0.0.67", 80);
	}
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	for (int i = 0; i < 3 * MEMBERS; i++) {
		served[ask("127.0.0.67", 80)]++;
	}
	for (int i = 0; i < MEMBERS; i++) {
		assert_true(served[i] >= 1);
		kill_member(pids[i]);
	}
}

/* A UDP client connect()ed to a group: connected in the kernel to the
 * member of its flow (the one its sendto() would reach), so that data
 * sent past the wrapper (a raw system call) arrives there too; when that
 * member dies, its next send() reaches a live one, and the kernel
 * connection follows. */
static int udp_conn_ask(int u, bool raw)
{
	char c = 0;

	if (raw) {
		assert_int_equal(raw_syscall(SYS_sendto, u, "?", 1, 0, NULL, 0),
				 1);
	} else {
		assert_int_equal(send(u, "?", 1, 0), 1);
	}
	assert_int_equal(recv(u, &c, 1, 0), 1);
	assert_true(c >= '0' && c < '0' + MEMBERS);
	return c - '0';
}

static void test_udp_connected(void **state)
{
	pid_t pids[MEMBERS];
	int served[MEMBERS] = {0};
	int u[3 * MEMBERS], who[3 * MEMBERS];
	struct timeval tv = {.tv_sec = cwrap_test_wait_ms() / 1000};
	struct sockaddr_storage to;
	socklen_t tl = swrap_test_sa("127.0.0.68", 53, &to);

	(void)state;
	for (int i = 0; i < MEMBERS; i++) {
		pids[i] = udp_member(i, "127.0.0.68", 53);
	}
	for (int i = 0; i < 3 * MEMBERS; i++) {
		struct sockaddr_storage me;
		socklen_t ml = swrap_test_sa("127.0.0.60", 5000 + i, &me);
		int alone;

		/* The member an unconnected socket on this port reaches. */
		alone = udp_ask_to(5000 + i, "127.0.0.68");
		u[i] = socket(AF_INET, SOCK_DGRAM, 0);
		assert_int_equal(
		    setsockopt(u[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
		    0);
		assert_int_equal(bind(u[i], (struct sockaddr *)&me, ml), 0);
		assert_int_equal(connect(u[i], (struct sockaddr *)&to, tl), 0);
		who[i] = udp_conn_ask(u[i], false);
		assert_int_equal(who[i], alone);
		assert_int_equal(udp_conn_ask(u[i], true), who[i]);
		served[who[i]]++;
	}
	for (int i = 0; i < MEMBERS; i++) {
		assert_true(served[i] >= 1);
	}
	kill_member(pids[1]);
	for (int i = 0; i < 3 * MEMBERS; i++) {
		int now = udp_conn_ask(u[i], false);

		assert_int_not_equal(now, 1);
		if (who[i] != 1) {
			assert_int_equal(now, who[i]);
		}
		assert_int_equal(udp_conn_ask(u[i], true), now);
		close(u[i]);
	}
	kill_member(pids[0]);
	kill_member(pids[2]);
}

/* ---- a member connected to a peer ------------------------------------ */

#define CM_MEMBERS 4
#define CM_SENDERS 4

/* The number of the member (of `n`) that received the next datagram,
 * its byte in *c and its sender in *from; -1 if none came. */
static int cm_recv(const int *m, int n, char *c, struct sockaddr_storage *from)
{
	struct pollfd pfd[CM_MEMBERS];

	for (int i = 0; i < n; i++) {
		pfd[i].fd = m[i];
		pfd[i].events = POLLIN;
	}
	if (poll(pfd, (nfds_t)n, cwrap_test_wait_ms()) <= 0) {
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (pfd[i].revents & POLLIN) {
			socklen_t fl = sizeof(*from);

			assert_int_equal(recvfrom(m[i], c, 1, MSG_DONTWAIT,
						  (struct sockaddr *)from, &fl),
					 1);
			return i;
		}
	}
	return -1;
}

/* Sender `j` sends `count` datagrams to the group, one at a time (an
 * emulated member's queue is short): who got them, counted in got[]. */
static void cm_send(const int *m, const int *snd, int j,
		    const struct sockaddr_storage *grp, socklen_t gl,
		    const struct sockaddr_storage *sa, int count,
		    int got[CM_MEMBERS])
{
	char want[64], name[64];

	swrap_test_ntop(&sa[j], want);
	memset(got, 0, CM_MEMBERS * sizeof(got[0]));
	for (int i = 0; i < count; i++) {
		struct sockaddr_storage from;
		char b = (char)('a' + j), c = 0;
		int who;

		assert_int_equal(
		    sendto(snd[j], &b, 1, 0, (const struct sockaddr *)grp, gl),
		    1);
		who = cm_recv(m, CM_MEMBERS, &c, &from);
		assert_true(who >= 0);
		assert_int_equal(c, b);
		assert_string_equal(swrap_test_ntop(&from, name), want);
		got[who]++;
	}
}

/* Entries of dir whose name has `ch` (the second names of connected
 * members, ".U0A0035=U0A2710", have '='). */
static int count_names_with(char ch)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		n += strchr(e->d_name, ch) != NULL;
	}
	closedir(d);
	return n;
}

/* n UDP members of a SO_REUSEPORT group on *grp (real sockets or
 * emulated ones), dual stack for IPv6; the first one takes the port the
 * kernel chooses if *grp has none, and *grp is updated. The port. */
static int udp_members(bool real, struct sockaddr_storage *grp, socklen_t *gl,
		       int *m, int n)
{
	int family = grp->ss_family;

	for (int i = 0; i < n; i++) {
		int off = 0;

		m[i] = real ? swrap_test_real_socket(family, SOCK_DGRAM, 0)
			    : socket(family, SOCK_DGRAM, 0);
		if (family == AF_INET6) {
			/* dual stack whatever net.ipv6.bindv6only says */
			assert_int_equal(setsockopt(m[i], IPPROTO_IPV6,
						    IPV6_V6ONLY, &off,
						    sizeof(off)),
					 0);
		}
		assert_int_equal(bind_rp(m[i], grp, *gl, true), 0);
		if (i == 0) {
			/* The kernel may have chosen the port: the others
			 * take it. */
			*gl = sizeof(*grp);
			assert_int_equal(
			    getsockname(m[0], (struct sockaddr *)grp, gl), 0);
		}
	}
	return family == AF_INET6
		   ? ntohs(((struct sockaddr_in6 *)grp)->sin6_port)
		   : ntohs(((struct sockaddr_in *)grp)->sin_port);
}

/* Linux gives a UDP socket of a SO_REUSEPORT group that is connected to
 * the sender every datagram of that sender (an exact match scores above
 * the group), and never one of another sender: their datagrams go to the
 * unconnected members. On real sockets on 127.0.0.1 first, then on
 * emulated ones: the same answers. */
static void check_connected_member(bool real, const char *addr, int port)
{
	struct sockaddr_storage grp, sa[CM_SENDERS], un = {0};
	socklen_t gl = swrap_test_sa(addr, port, &grp), sl[CM_SENDERS];
	int m[CM_MEMBERS], snd[CM_SENDERS], got[CM_MEMBERS];
	const int last = CM_MEMBERS - 1;

	udp_members(real, &grp, &gl, m, CM_MEMBERS);
	for (int j = 0; j < CM_SENDERS; j++) {
		socklen_t l = swrap_test_sa(addr, 0, &sa[j]);

		snd[j] = real ? swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0)
			      : socket(AF_INET, SOCK_DGRAM, 0);
		assert_true(snd[j] >= 0);
		assert_int_equal(bind(snd[j], (struct sockaddr *)&sa[j], l), 0);
		sl[j] = sizeof(sa[j]);
		assert_int_equal(
		    getsockname(snd[j], (struct sockaddr *)&sa[j], &sl[j]), 0);
	}
	/* The last member connects to each sender in turn (whichever
	 * member that sender's datagrams reached before). */
	for (int j = 0; j < CM_SENDERS; j++) {
		assert_int_equal(
		    connect(m[last], (struct sockaddr *)&sa[j], sl[j]), 0);
		if (!real) {
			assert_int_equal(count_names_with('='), 1);
		}
		cm_send(m, snd, j, &grp, gl, sa, 50, got);
		assert_int_equal(got[last], 50);
		for (int o = 0; o < CM_SENDERS; o++) {
			if (o != j) {
				cm_send(m, snd, o, &grp, gl, sa, 10, got);
				assert_int_equal(got[last], 0);
			}
		}
	}
	/* Disconnected: a member like the others, nothing left behind. */
	un.ss_family = AF_UNSPEC;
	assert_int_equal(
	    connect(m[last], (struct sockaddr *)&un, sizeof(sa_family_t)), 0);
	if (!real) {
		assert_int_equal(count_names_with('='), 0);
	}
	for (int j = 0; j < CM_SENDERS; j++) {
		cm_send(m, snd, j, &grp, gl, sa, 10, got);
	}
	/* Connected again, then closed while connected. */
	assert_int_equal(connect(m[1], (struct sockaddr *)&sa[0], sl[0]), 0);
	cm_send(m, snd, 0, &grp, gl, sa, 20, got);
	assert_int_equal(got[1], 20);
	close(m[1]);
	m[1] = -1;
	if (!real) {
		assert_int_equal(count_names_with('='), 0);
	}
	{
		/* Sender 0's datagrams still arrive, at the others. */
		int live[CM_MEMBERS - 1] = {m[0], m[2], m[3]};
		struct sockaddr_storage from;
		char c;

		for (int i = 0; i < 10; i++) {
			assert_int_equal(sendto(snd[0], "a", 1, 0,
						(struct sockaddr *)&grp, gl),
					 1);
			assert_true(cm_recv(live, CM_MEMBERS - 1, &c, &from) >=
				    0);
		}
	}
	for (int i = 0; i < CM_MEMBERS; i++) {
		if (m[i] >= 0) {
			close(m[i]);
		}
	}
	for (int j = 0; j < CM_SENDERS; j++) {
		close(snd[j]);
	}
	if (!real) {
		assert_int_equal(count_names_with('='), 0);
	}
}

static void test_udp_connected_member(void **state)
{
	(void)state;
	check_connected_member(true, "127.0.0.1", 0);
	check_connected_member(false, "127.0.0.10", 53);
}

/* A datagram to the broadcast address reaches every member of a group (a
 * copy each, as the kernel delivers broadcasts), besides a socket of the
 * port on another interface. Real sockets bound to the wildcard on
 * 127.255.255.255 first (the kernel delivers broadcasts to those), then
 * emulated ones. */
static void check_broadcast_to_group(bool real, const char *addr, int port)
{
	struct sockaddr_storage grp, bc;
	socklen_t gl = swrap_test_sa(addr, port, &grp), bl;
	int m[4], snd, on = 1, n = real ? 3 : 4;
	char buf[8];

	port = udp_members(real, &grp, &gl, m, 3);
	if (!real) {
		m[3] = swrap_test_bound(SOCK_DGRAM, "127.0.0.12", port);
	}
	snd = real ? swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0)
		   : socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(
	    setsockopt(snd, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)), 0);
	bl = swrap_test_sa("127.255.255.255", port, &bc);
	assert_int_equal(sendto(snd, "b", 1, 0, (struct sockaddr *)&bc, bl), 1);
	for (int i = 0; i < n; i++) {
		struct pollfd pfd = {.fd = m[i], .events = POLLIN};

		assert_int_equal(poll(&pfd, 1, cwrap_test_wait_ms()), 1);
		assert_int_equal(recv(m[i], buf, sizeof(buf), 0), 1);
		assert_int_equal(buf[0], 'b');
		/* one copy each */
		assert_int_equal(recv(m[i], buf, sizeof(buf), MSG_DONTWAIT),
				 -1);
		close(m[i]);
	}
	close(snd);
}

static void test_udp_broadcast_to_group(void **state)
{
	(void)state;
	check_broadcast_to_group(true, "0.0.0.0", 0);
	check_broadcast_to_group(false, "127.0.0.10", 5354);
}

/* IPv4 datagrams to a group of dual-stack IPv6 sockets (bound to [::]):
 * each reaches one member, and the flows spread over the members, as
 * from the kernel. Real sockets first, then emulated ones. */
static void check_v4_to_v6_group(bool real, int port)
{
	struct sockaddr_storage grp, to;
	socklen_t gl = swrap_test_sa("::", port, &grp), tl;
	int m[3], got[3] = {0, 0, 0}, total = 0, used = 0;
	char buf[8];

	port = udp_members(real, &grp, &gl, m, 3);
	tl = swrap_test_sa(real ? "127.0.0.1" : "127.0.0.60", port, &to);
	for (int j = 0; j < 16; j++) {
		int snd = real ? swrap_test_real_socket(AF_INET, SOCK_DGRAM, 0)
			       : socket(AF_INET, SOCK_DGRAM, 0);

		/* a new flow each time: a new source port */
		assert_int_equal(
		    sendto(snd, "4", 1, 0, (struct sockaddr *)&to, tl), 1);
		close(snd);
	}
	for (int i = 0; i < 3; i++) {
		struct pollfd pfd = {.fd = m[i], .events = POLLIN};

		while (poll(&pfd, 1, total == 16 ? 0 : 300) == 1 &&
		       recv(m[i], buf, sizeof(buf), MSG_DONTWAIT) == 1) {
			got[i]++;
			total++;
		}
		used += got[i] > 0;
		close(m[i]);
	}
	print_message("%s: %d %d %d\n", real ? "kernel" : "emulated", got[0],
		      got[1], got[2]);
	assert_int_equal(total, 16);
	assert_true(used >= 2);
}

static void test_udp_v4_to_v6_group(void **state)
{
	(void)state;
	check_v4_to_v6_group(true, 0);
	check_v4_to_v6_group(false, 5355);
}

/* Threads that bind members of one group at the same moment (servers
 * that make a socket per thread) all succeed, as with the kernel: the
 * first member's name is taken before it is marked as a group's, and a
 * second member must not take that moment for a plain holder's. */
#define RACERS 8
static pthread_barrier_t race_start;
static int race_port;

static void *race_bind(void *arg)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa("127.0.0.10", race_port, &ss);
	int fd = socket(AF_INET, (int)(intptr_t)arg, 0), one = 1, rc;

	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	pthread_barrier_wait(&race_start);
	rc = bind(fd, (struct sockaddr *)&ss, len);
	return (void *)(intptr_t)(rc == 0 ? fd : -errno);
}

static void test_members_bind_at_once(void **state)
{
	(void)state;
	/* 40 rounds, fewer where threads are slow (valgrind) */
	for (struct cwrap_test_rounds rr = cwrap_test_rounds_start(6, 40);
	     cwrap_test_rounds_next(&rr);) {
		int round = rr.round;
		int type = round % 2 ? SOCK_DGRAM : SOCK_STREAM;
		int fds[RACERS];
		pthread_t t[RACERS];
		void *r;

		race_port = 7000 + round;
		assert_int_equal(
		    pthread_barrier_init(&race_start, NULL, RACERS), 0);
		for (int i = 0; i < RACERS; i++) {
			assert_int_equal(pthread_create(&t[i], NULL, race_bind,
							(void *)(intptr_t)type),
					 0);
		}
		for (int i = 0; i < RACERS; i++) {
			assert_int_equal(pthread_join(t[i], &r), 0);
			if ((intptr_t)r < 0) {
				fail_msg("round %d: bind: %s", round,
					 strerror((int)-(intptr_t)r));
			}
			fds[i] = (int)(intptr_t)r;
		}
		/* each its own name: none took another's file */
		for (int k = 0; k < RACERS; k++) {
			char name[32];

			snprintf(name, sizeof(name),
				 k ? ".%c0A%04X.%d" : "%c0A%04X",
				 type == SOCK_STREAM ? 'T' : 'U', race_port, k);
			if (!swrap_test_has_socket(dir, name)) {
				fail_msg("round %d: no %s", round, name);
			}
		}
		for (int i = 0; i < RACERS; i++) {
			close(fds[i]);
		}
		pthread_barrier_destroy(&race_start);
	}
}

/* A socket directory of 92 characters: a member's name fits, and so must
 * the hand-over of the plain name when the first member closes. */
static void test_long_dir_hand_over(void **state)
{
	char longdir[128];
	size_t n = strlen(dir);

	(void)state;
	assert_true(n + 2 < 92);
	snprintf(longdir, sizeof(longdir), "%s/%0*d", dir, (int)(92 - n - 1),
		 0);
	assert_int_equal(strlen(longdir), 92);
	assert_int_equal(mkdir(longdir, 0700), 0);
	assert_int_equal(setenv("SOCKET_WRAPPER_DIR", longdir, 1), 0);
	two_members_leave(longdir, 8445, "T4220FD");
	assert_int_equal(setenv("SOCKET_WRAPPER_DIR", dir, 1), 0);
}

/* The files in the directory whose name holds `tag` ("T0A1B58"). */
static int files_named(const char *tag, char *list, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	list[0] = '\0';
	while ((e = readdir(d)) != NULL) {
		if (strstr(e->d_name, tag) != NULL &&
		    strstr(e->d_name, ".g") == NULL) {
			n++;
			strncat(list, " ", size - strlen(list) - 1);
			strncat(list, e->d_name, size - strlen(list) - 1);
		}
	}
	closedir(d);
	return n;
}

/* nginx's end: its master binds a member per worker and forks the
 * workers, each holding every member; at `nginx -s quit` the master closes
 * them and the workers close them all at the same moment. Whatever order
 * the closes take, no file of the group remains. */
#define CLOSERS 3
static void test_members_close_at_once(void **state)
{
	(void)state;
	/* 30 rounds, fewer where forks are slow (valgrind) */
	for (struct cwrap_test_rounds rr = cwrap_test_rounds_start(4, 30);
	     cwrap_test_rounds_next(&rr);) {
		int round = rr.round;
		struct sockaddr_storage ss;
		socklen_t len = swrap_test_sa("127.0.0.10", 7100 + round, &ss);
		int fds[MEMBERS], go[2];
		pid_t pids[CLOSERS];
		char tag[16], left[512];

		for (int i = 0; i < MEMBERS; i++) {
			fds[i] = socket(AF_INET, SOCK_STREAM, 0);
			assert_int_equal(bind_rp(fds[i], &ss, len, true), 0);
			assert_int_equal(listen(fds[i], 5), 0);
		}
		assert_int_equal(pipe(go), 0);
		for (int w = 0; w < CLOSERS; w++) {
			pids[w] = fork();
			assert_true(pids[w] >= 0);
			if (pids[w] == 0) {
				char c;

				close(go[1]);
				if (read(go[0], &c, 1) != 0) {
					_exit(2);
				}
				for (int i = 0; i < MEMBERS; i++) {
					close(fds[i]);
				}
				_exit(0);
			}
		}
		close(go[0]);
		for (int i = 0; i < MEMBERS; i++) {
			close(fds[i]);
		}
		close(go[1]); /* every worker's read() returns at once */
		for (int w = 0; w < CLOSERS; w++) {
			int st;

			assert_int_equal(waitpid(pids[w], &st, 0), pids[w]);
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
		snprintf(tag, sizeof(tag), "T0A%04X", 7100 + round);
		if (files_named(tag, left, sizeof(left)) != 0) {
			fail_msg("round %d: left after the last close:%s",
				 round, left);
		}
	}
}

/* A connected member that dies without closing leaves its second name:
 * its peer's datagrams go to the live members (none lost), and the name
 * goes when another member closes. */
static void test_udp_connected_member_dies(void **state)
{
	struct sockaddr_storage grp, sa;
	socklen_t gl = swrap_test_sa("127.0.0.11", 53, &grp);
	socklen_t sl = swrap_test_sa("127.0.0.11", 2000, &sa);
	int m[2], snd = socket(AF_INET, SOCK_DGRAM, 0), p[2];
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(bind(snd, (struct sockaddr *)&sa, sl), 0);
	for (int i = 0; i < 2; i++) {
		m[i] = socket(AF_INET, SOCK_DGRAM, 0);
		assert_int_equal(bind_rp(m[i], &grp, gl, true), 0);
	}
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int u = socket(AF_INET, SOCK_DGRAM, 0);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (bind_rp(u, &grp, gl, true) != 0 ||
		    connect(u, (struct sockaddr *)&sa, sl) != 0 ||
		    write(p[1], "r", 1) != 1) {
			_exit(1);
		}
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(count_names_with('='), 1);
	kill_member(pid);
	for (int i = 0; i < 10; i++) {
		struct sockaddr_storage from;

		assert_int_equal(
		    sendto(snd, "a", 1, 0, (struct sockaddr *)&grp, gl), 1);
		assert_true(cm_recv(m, 2, &c, &from) >= 0);
	}
	close(m[1]);
	assert_int_equal(count_names_with('='), 0);
	close(m[0]);
	close(snd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bind_rules),
	    cmocka_unit_test(test_group_serves_all),
	    cmocka_unit_test(test_member_killed),
	    cmocka_unit_test(test_first_member_closes),
	    cmocka_unit_test(test_member_across_exec),
	    cmocka_unit_test(test_udp_group),
	    cmocka_unit_test(test_stale_marker),
	    cmocka_unit_test(test_udp_connected),
	    cmocka_unit_test(test_udp_connected_member),
	    cmocka_unit_test(test_udp_connected_member_dies),
	    cmocka_unit_test(test_udp_broadcast_to_group),
	    cmocka_unit_test(test_udp_v4_to_v6_group),
	    cmocka_unit_test(test_members_bind_at_once),
	    cmocka_unit_test(test_members_close_at_once),
	    cmocka_unit_test(test_long_dir_hand_over),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
