/*
 * A capturing process dies holding a connection, and its pid is given to
 * another process (pids wrap around). The capture state must not take the
 * new process for the dead one: the dead one's FIN is due at the next
 * event, and the new process, registering under that pid, gets a slot of
 * its own instead of the dead one's (with its connections).
 *
 * The reuse is simulated at link time (this program links the capture
 * writer statically): while `g_reused` is set, kill() and the open() of
 * /proc/<g_reused>/stat are sent to the live process `g_now`, which
 * started later than the dead one, as a process given its pid would.
 */
#include "pcap_test_util.h"
#include "capture/swrap_pcap_state.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define F_FIN 0x01
#define F_SYN 0x02
#define F_ACK 0x10

#define C4 pt_ep(4, 100, 41000)
#define C4B pt_ep(4, 100, 41001)
#define S4 pt_ep(4, 10, 80)

/* The dead process whose pid now names process `g_now`. */
static pid_t g_reused, g_now;

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_kill(pid_t pid, int sig);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_kill(pid_t pid, int sig);

/* `path`, or the stat file of the process now under the reused pid. */
static const char *redirect(const char *path, char *buf, size_t size)
{
	char want[64];

	if (g_reused <= 0) {
		return path;
	}
	snprintf(want, sizeof(want), "/proc/%d/stat", (int)g_reused);
	if (strcmp(path, want) != 0) {
		return path;
	}
	snprintf(buf, size, "/proc/%d/stat", (int)g_now);
	return buf;
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = PT_OPEN_MODE(flags);
	char buf[64];
	return __real_open(redirect(path, buf, sizeof(buf)), flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	mode_t mode = PT_OPEN_MODE(flags);
	char buf[64];
	return __real_open64(redirect(path, buf, sizeof(buf)), flags, mode);
}

int __wrap_kill(pid_t pid, int sig)
{
	if (g_reused > 0 && pid == g_reused) {
		pid = g_now;
	}
	return __real_kill(pid, sig);
}

/* Field 22 of /proc/<pid>/stat; 0 if unreadable. */
static unsigned long long start_of(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return 0;
	}
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
		   "%*d %*d %*d %*d %*d %llu",
		   &start) != 1) {
		return 0;
	}
	return start;
}

/* Wait for `child` to exit, its start time first (read while it is a
 * zombie); 0 on failure. */
static unsigned long long reap_with_start(pid_t child)
{
	unsigned long long start;
	siginfo_t si;
	int status;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) != 0) {
		return 0;
	}
	start = start_of(child);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		return 0;
	}
	return start;
}

/* Fork a process that started at a later clock tick than `dead_start`
 * (as one that was given the dead one's pid after wrapping around),
 * running fn(arg, fd) with `fd` the read end of a pipe whose write end
 * `*release` ends it; its pid, 0 on failure. */
static pid_t spawn_later(unsigned long long dead_start, void (*fn)(void *, int),
			 void *arg, int *release)
{
	unsigned long long hz = (unsigned long long)sysconf(_SC_CLK_TCK);
	struct timespec now, ms = {0, 1000 * 1000};
	int tries, go[2];
	pid_t pid;

	/* /proc's start times are CLOCK_BOOTTIME in clock ticks. */
	for (tries = 0; tries < 2000; tries++) {
		clock_gettime(CLOCK_BOOTTIME, &now);
		if ((unsigned long long)now.tv_sec * hz +
			(unsigned long long)now.tv_nsec * hz / 1000000000ull >
		    dead_start) {
			break;
		}
		nanosleep(&ms, NULL);
	}
	if (pipe(go) != 0) {
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		return 0;
	}
	if (pid == 0) {
		g_now = getpid();
		close(go[1]);
		fn(arg, go[0]);
		_exit(0);
	}
	close(go[0]);
	*release = go[1];
	if (start_of(pid) == dead_start) {
		/* Not a later process: the test would test nothing. */
		int status;

		close(go[1]);
		waitpid(pid, &status, 0);
		return 0;
	}
	return pid;
}

/* The process given the dead one's pid: it lives until released. */
static void live_until_released(void *arg, int go)
{
	char b;

	(void)arg;
	if (read(go, &b, 1) < 0) {
		_exit(7);
	}
}

/* The step process: a server child accepts, sends and _exit()s without
 * closing; its pid goes to another process; the next event records the
 * dead child's FIN. */
static void fin_of_reused_pid(void *arg)
{
	struct pt_ep c = C4, c2 = C4B, s = S4;
	unsigned long long start;
	pid_t child, now;
	int status, release;

	(void)arg;
	child = fork();
	if (child < 0) {
		_exit(3);
	}
	if (child == 0) {
		pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "bye\n", 4);
		_exit(0); /* no destructor, no close */
	}
	start = reap_with_start(child);
	if (start == 0) {
		_exit(4);
	}
	now = spawn_later(start, live_until_released, NULL, &release);
	if (now <= 0) {
		_exit(5);
	}
	g_now = now;
	g_reused = child;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c2, &s, NULL, 0);
	g_reused = 0;
	close(release);
	if (waitpid(now, &status, 0) != now) {
		_exit(6);
	}
}

/* What a sweep found: the first four ends whose FIN is due. */
struct swept {
	struct swrap_pcap_conn *conns[4];
	int ends[4];
	size_t n;
};

static void swept_fin(void *arg, struct swrap_pcap_conn *c, int end)
{
	struct swept *w = arg;

	if (w->n < 4) {
		w->conns[w->n] = c;
		w->ends[w->n] = end;
	}
	w->n++;
}

static void test_fin_of_reused_pid(void **state)
{
	struct pt_ep c = C4, c2 = C4B, s = S4;
	struct cwrap_pcap_pkt *k;
	struct pt_run run;

	(void)state;
	k = pt_capture_shown(&run, fin_of_reused_pid);
	/* handshake, data; the dead child's FIN and its ACK at the next
	 * event, before that event's handshake */
	assert_int_equal(run.cap->n, 4 + 2 + 3);
	pt_assert_dead_bye(k, &s, &c);
	pt_assert_tcp(&k[6], &c2, &s, F_SYN, k[6].seq, 0, NULL, 0);
	pt_run_free(&run);
}

/* The connection the dead process held, end 0 being its own. */
static struct swrap_pcap_conn *conn_of(struct swrap_pcap_state *s, int *end)
{
	struct swrap_pcap_ep a = {4, {127, 0, 0, 10}, 80};
	struct swrap_pcap_ep b = {4, {127, 0, 0, 100}, 41000};

	return swrap_pcap_state_conn(s, 6, &a, &b, end);
}

/* The dead process: registers, holds its end of the connection, tells
 * its ref and _exit()s. */
static void hold_and_die(struct swrap_pcap_state *s, int report)
{
	struct swrap_pcap_conn *c;
	uint16_t ref;
	int end;

	ref = swrap_pcap_state_register(s, (int32_t)getpid());
	if (ref == 0) {
		_exit(3);
	}
	swrap_pcap_state_lock(s);
	c = conn_of(s, &end);
	swrap_pcap_state_hold(s, c, end, ref);
	swrap_pcap_state_unlock(s);
	if (write(report, &ref, sizeof(ref)) != (ssize_t)sizeof(ref)) {
		_exit(4);
	}
	_exit(0);
}

struct newcomer {
	struct swrap_pcap_state *s;
	int report;
};

/* The process given the dead one's pid: registers under it, tells its
 * ref, and lives (holding its life lock) until released. */
static void register_as_reused(void *arg, int go)
{
	struct newcomer *n = arg;
	uint16_t ref;
	char b;

	ref = swrap_pcap_state_register(n->s, (int32_t)g_reused);
	if (write(n->report, &ref, sizeof(ref)) != (ssize_t)sizeof(ref)) {
		_exit(4);
	}
	if (read(go, &b, 1) < 0) {
		_exit(7);
	}
}

/* (Reachable from the children that _exit(): no leak to report there.) */
static char *g_dir, *g_path;

static void test_register_reused_pid(void **state)
{
	struct swrap_pcap_state *s;
	struct swrap_pcap_conn *c;
	struct swept w;
	struct newcomer nc;
	unsigned long long start;
	uint16_t dead_ref = 0, new_ref = 0;
	int fd, report[2], release, end, status;
	pid_t child, now;
	size_t n;

	(void)state;
	g_dir = cwrap_test_mkdtemp("pcap");
	g_path = cwrap_test_path(g_dir, "cap.pcap");
	fd = open(g_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	s = swrap_pcap_state_open(g_path, fd, true);
	assert_true(swrap_pcap_state_shared(s));
	assert_int_equal(pipe(report), 0);

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		hold_and_die(s, report[1]);
	}
	assert_int_equal(read(report[0], &dead_ref, sizeof(dead_ref)),
			 sizeof(dead_ref));
	assert_int_not_equal(dead_ref, 0);
	start = reap_with_start(child);
	assert_int_not_equal(start, 0);

	/* From now on `child`'s pid names the newcomer. */
	g_reused = child;
	nc.s = s;
	nc.report = report[1];
	now = spawn_later(start, register_as_reused, &nc, &release);
	assert_true(now > 0);
	g_now = now;
	assert_int_equal(read(report[0], &new_ref, sizeof(new_ref)),
			 sizeof(new_ref));
	/* A slot of its own, not the dead process's ... */
	assert_int_not_equal(new_ref, 0);
	assert_int_not_equal(new_ref, dead_ref);

	/* ... whose end is due for its FIN now, though its pid lives. */
	swrap_pcap_state_lock(s);
	memset(&w, 0, sizeof(w));
	n = swrap_pcap_state_sweep(s, swept_fin, &w);
	c = conn_of(s, &end);
	swrap_pcap_state_unlock(s);
	assert_int_equal(n, 1);
	assert_ptr_equal(w.conns[0], c);
	assert_int_equal(w.ends[0], end);

	/* The newcomer itself is alive: holding the other end, it keeps
	 * it open. */
	swrap_pcap_state_lock(s);
	swrap_pcap_state_hold(s, c, 1 - end, new_ref);
	memset(&w, 0, sizeof(w));
	n = swrap_pcap_state_sweep(s, swept_fin, &w);
	assert_int_equal(n, 0);
	assert_true(swrap_pcap_state_release(s, c, 1 - end, 0));
	swrap_pcap_state_unlock(s);

	g_reused = 0;
	close(release);
	assert_int_equal(waitpid(now, &status, 0), now);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(report[0]);
	close(report[1]);
	swrap_pcap_state_close(s, 0);
	close(fd);
	cwrap_test_rmtree(g_dir);
	free(g_dir);
	free(g_path);
	g_dir = g_path = NULL;
}

/* A state file of the format before start times (magic "SWPD") is not
 * read as the new one: the process keeps a private state. */
static void test_old_state_format(void **state)
{
	struct swrap_pcap_state *s;
	char *dir, *path, *spath;
	uint32_t old[2] = {0x53575044u, 0};
	int fd, sfd;

	(void)state;
	dir = cwrap_test_mkdtemp("pcap");
	path = cwrap_test_path(dir, "cap.pcap");
	spath = cwrap_test_path(dir, "cap.pcap.swrap-state");
	sfd = open(spath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(sfd >= 0);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	s = swrap_pcap_state_open(path, fd, true);
	assert_true(swrap_pcap_state_shared(s));
	swrap_pcap_state_close(s, 0);
	/* The old magic with today's layout: the magic alone tells. */
	assert_int_equal(pread(sfd, &old[1], sizeof(old[1]), 4),
			 sizeof(old[1]));
	assert_int_equal(pwrite(sfd, &old[0], sizeof(old[0]), 0),
			 sizeof(old[0]));
	s = swrap_pcap_state_open(path, fd, true);
	assert_false(swrap_pcap_state_shared(s));
	swrap_pcap_state_close(s, 0);
	close(sfd);
	close(fd);
	cwrap_test_rmtree(dir);
	free(dir);
	free(path);
	free(spath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fin_of_reused_pid),
	    cmocka_unit_test(test_register_reused_pid),
	    cmocka_unit_test(test_old_state_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
