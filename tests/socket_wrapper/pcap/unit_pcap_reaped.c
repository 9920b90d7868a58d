/*
 * A holder that _exit()s is reaped while another process asks whether it
 * lives: between the wrapper's kill(pid, 0), which still finds the zombie,
 * and its read of /proc/<pid>/stat, which then finds nothing. The
 * process is dead; its FIN is due at that very sweep (test_pcap_forking_
 * clients lost it this way under load: the parent reaps its server child
 * while a client's close() sweeps, and the wrong answer was kept for the
 * rest of the second).
 *
 * The interleaving is made certain by wrapping open() at link time (this
 * program links the capture writer statically): the open of the victim's
 * /proc/<pid>/stat reaps it first.
 */
#include "pcap_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define F_FIN 0x01
#define F_SYN 0x02
#define F_ACK 0x10

#define C4 pt_ep(4, 100, 41000)
#define C4B pt_ep(4, 100, 41001)
#define S4 pt_ep(4, 10, 80)

/* The process to reap when the writer opens its /proc/<pid>/stat. */
static pid_t g_victim;
static int g_reaped;

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);

static void reap_victim(const char *path)
{
	char want[64];
	int status;

	if (g_victim <= 0) {
		return;
	}
	snprintf(want, sizeof(want), "/proc/%d/stat", (int)g_victim);
	if (strcmp(path, want) == 0 &&
	    waitpid(g_victim, &status, 0) == g_victim) {
		g_victim = 0;
		g_reaped++;
	}
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = PT_OPEN_MODE(flags);
	reap_victim(path);
	return __real_open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	mode_t mode = PT_OPEN_MODE(flags);
	reap_victim(path);
	return __real_open64(path, flags, mode);
}

/* The step process: a forking server's parent and its child, which sends
 * and _exit()s; the child is a zombie when the next connection comes, and
 * is reaped in the middle of that event's look at it. */
static void reaped_mid_check(void *arg)
{
	struct pt_ep c = C4, c2 = C4B, s = S4;
	siginfo_t si;
	int go[2];
	pid_t child;
	char b;

	(void)arg;
	if (pipe(go) != 0) {
		_exit(3);
	}
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	child = fork();
	if (child < 0) {
		_exit(4);
	}
	if (child == 0) {
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "bye\n", 4);
		/* not before the parent closed its copy */
		if (read(go[0], &b, 1) != 1) {
			_exit(5);
		}
		_exit(0); /* no destructor, no close */
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
	if (write(go[1], "g", 1) != 1) {
		_exit(6);
	}
	/* A zombie, not reaped yet. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) != 0) {
		_exit(7);
	}
	g_victim = child;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c2, &s, NULL, 0);
	if (g_reaped != 1) {
		/* The writer did not look at the child: this test no
		 * longer tests what it says. */
		_exit(8);
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void test_reaped_mid_check(void **state)
{
	struct pt_ep c = C4, c2 = C4B, s = S4;
	struct cwrap_pcap_pkt *k;
	struct pt_run run;

	(void)state;
	k = pt_capture_shown(&run, reaped_mid_check);
	/* handshake, data; the child's FIN and its ACK at the next event,
	 * before that event's handshake; the client's FIN and its ACK */
	assert_true(run.cap->n >= 6);
	pt_assert_dead_bye(k, &s, &c);
	assert_int_equal(run.cap->n, 4 + 2 + 3 + 2);
	pt_assert_tcp(&k[6], &c2, &s, F_SYN, k[6].seq, 0, NULL, 0);
	pt_assert_tcp(&k[9], &c, &s, F_FIN | F_ACK, k[0].seq + 1, k[1].seq + 6,
		      NULL, 0);
	pt_run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reaped_mid_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
