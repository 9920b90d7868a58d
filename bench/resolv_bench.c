/*
 * resolv_bench MODE DIR N: time res_query() of one A record.
 *   hosts   answered from DIR/records, N records (the name asked is on
 *           the LAST line, the worst case for a scan), through
 *           RESOLV_WRAPPER_HOSTS (the workload points it there);
 *   server  answered by a small UDP DNS responder this program forks,
 *           on 127.0.0.53:53 under socket_wrapper, asked through
 *           RESOLV_WRAPPER_CONF=DIR/resolv.conf (written here).
 * With no resolv_wrapper loaded (bench/run's native column), both modes
 * time glibc's own resolver asking the same responder on the real
 * loopback (127.0.0.1, a free port): what a query costs without any
 * wrapper. A wrapper that answers nothing (upstream's nameserver mode on
 * glibc 2.34 and later: its queries never reach the emulated server)
 * fails the run with a message. Prints "<us> us/op".
 */
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static void responder(int fd)
{
	for (;;) {
		unsigned char q[512], a[600];
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, q, sizeof(q), 0,
				     (struct sockaddr *)&from, &flen);

		if (n < 17) {
			continue;
		}
		memcpy(a, q, (size_t)n);
		a[2] = 0x85; /* QR, AA, RD */
		a[3] = 0x80;
		a[6] = 0, a[7] = 1;
		a[8] = a[9] = a[10] = a[11] = 0;
		{
			static const unsigned char rr[] = {
			    0xc0, 0x0c, 0, 1, 0,   1, 0, 0,
			    0,	  60,	0, 4, 127, 0, 0, 10};

			memcpy(a + n, rr, sizeof(rr));
			sendto(fd, a, (size_t)n + sizeof(rr), 0,
			       (struct sockaddr *)&from, flen);
		}
	}
}

/* A responder on addr:port (port 0: any) in a child process, which binds
 * it itself (socket_wrapper removes an emulated socket's name when the
 * process that bound it closes it); its port. */
static int start_responder(const char *addr, int port, pid_t *pid)
{
	int p[2], got = -1;

	if (pipe(p) != 0) {
		return -1;
	}
	*pid = fork();
	if (*pid == 0) {
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port = htons((uint16_t)port)};
		socklen_t len = sizeof(sin);
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		inet_pton(AF_INET, addr, &sin.sin_addr);
		if (fd < 0 ||
		    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
		    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
			perror("resolv_bench: responder");
			_exit(1);
		}
		got = ntohs(sin.sin_port);
		if (write(p[1], &got, sizeof(got)) != sizeof(got)) {
			_exit(1);
		}
		responder(fd);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &got, sizeof(got)) != sizeof(got)) {
		fprintf(stderr, "resolv_bench: the responder did not start\n");
		exit(1);
	}
	close(p[0]);
	return got;
}

static bool wrapped(void)
{
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, "res_query");

	return p != NULL && dladdr(p, &info) != 0 &&
	       strstr(info.dli_fname, "resolv_wrapper") != NULL;
}

int main(int argc, char **argv)
{
	static unsigned char ans[4096];
	struct __res_state rs;
	char path[4096], name[64];
	bool native = !wrapped();
	pid_t pid = 0;
	long n, iters = 0;
	uint64_t t0, t;

	if (argc != 4) {
		fprintf(stderr, "usage: resolv_bench hosts|server DIR N\n");
		return 2;
	}
	n = atol(argv[3]);
	snprintf(name, sizeof(name), "host%ld.bench.example", n - 1);
	if (strcmp(argv[1], "hosts") == 0) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/records", argv[2]);
		f = fopen(path, "w");
		if (f == NULL) {
			perror(path);
			return 1;
		}
		for (long i = 0; i < n; i++) {
			fprintf(f, "A host%ld.bench.example 10.%ld.%ld.%ld\n",
				i, (i >> 16) & 255, (i >> 8) & 255, i & 255);
		}
		fclose(f);
		/* past the window in which a file just written is compared
		 * byte by byte at each query (rwrap_cache.c) */
		usleep(100000);
	}
	memset(&rs, 0, sizeof(rs));
	if (native) {
		int port = start_responder("127.0.0.1", 0, &pid);

		res_ninit(&rs);
		rs.nscount = 1;
		rs.nsaddr_list[0].sin_family = AF_INET;
		rs.nsaddr_list[0].sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, "127.0.0.1", &rs.nsaddr_list[0].sin_addr);
	} else {
		if (strcmp(argv[1], "server") == 0) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/resolv.conf", argv[2]);
			f = fopen(path, "w");
			if (f == NULL) {
				perror(path);
				return 1;
			}
			fprintf(f, "nameserver 127.0.0.53\noptions timeout:1 "
				   "attempts:1\n");
			fclose(f);
			start_responder("127.0.0.53", 53, &pid);
		}
		res_ninit(&rs);
	}
	t0 = bench_now_ns();
	do {
		if (res_nquery(&rs, name, ns_c_in, ns_t_a, ans, sizeof(ans)) <
		    0) {
			fprintf(stderr,
				"resolv_bench: res_query(%s) failed, h_errno "
				"%d%s\n",
				name, h_errno,
				strcmp(argv[1], "server") == 0
				    ? ": the query did not reach the server on "
				      "the emulated address"
				    : "");
			if (pid > 0) {
				kill(pid, SIGKILL);
			}
			return 1;
		}
		iters++;
		t = bench_now_ns();
	} while (t - t0 < 300000000u || iters < 20);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	res_nclose(&rs);
	bench_report((double)(t - t0) / 1000.0 / (double)iters, "us/op");
	return 0;
}
