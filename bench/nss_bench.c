/*
 * nss_bench MODE DIR N [MEMBERS]: time one lookup MODE (getpwnam,
 * getpwuid, getgrnam, getgrouplist, getgrouplist-1000, gethostbyname,
 * getaddrinfo) against files of N entries that it writes into DIR first
 * (passwd, group, hosts; the workloads point NSS_WRAPPER_* at them). The
 * key looked up is on the LAST line, the worst case for a linear scan, and
 * is one the system has too (root, uid 0, localhost), so the same program
 * measures native glibc on /etc/passwd, /etc/group and /etc/hosts when
 * nothing is preloaded. Group i lists user i and MEMBERS - 1 (default 0)
 * other users; root is a member of every 1000th group, or of every 10th
 * with getgrouplist-1000 (1,000 of 10,000 groups); getgrouplist-dup adds
 * a group listing root 65,536 times.
 * MODE first-<mode>: the first lookup of a process that has made none (a
 * child forked before any lookup: the file is read and parsed), median of
 * many; prints "<ns> ns/op".
 * MODE fresh-<mode>: a new process (posix_spawn of this program, which
 * makes that one lookup and exits) from start to exit, so the library's
 * load and first-call work count as well as the lookup; median of many;
 * prints "<us> us/op". Compare with the native column: the same process
 * without the library, glibc reading the system's files.
 * Both time CPU (the child's thread CPU clock around the lookup; the new
 * process's user + system time from wait4), not the wall clock: on a
 * machine shared with other jobs, time spent waiting for a CPU is noise
 * of the order of what is measured.
 */
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static void write_files(const char *dir, long n, long every, bool dup,
			long members)
{
	char path[4096];
	FILE *pw, *gr, *h;

	snprintf(path, sizeof(path), "%s/passwd", dir);
	pw = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/group", dir);
	gr = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/hosts", dir);
	h = fopen(path, "w");
	if (pw == NULL || gr == NULL || h == NULL) {
		perror("nss_bench: cannot write the files");
		exit(1);
	}
	for (long i = 0; i < n - 1; i++) {
		fprintf(pw,
			"user%ld:x:%ld:%ld:User %ld:/home/user%ld:/bin/sh\n", i,
			10000 + i, 10000 + i, i, i);
		/* root is a member of every 1000th group */
		fprintf(gr, "group%ld:x:%ld:user%ld", i, 10000 + i, i);
		for (long k = 1; k < members; k++) {
			fprintf(gr, ",user%ld", (i * 7919 + k * 104729) % n);
		}
		fprintf(gr, "%s\n", i % every == every - 1 ? ",root" : "");
		fprintf(h, "10.%ld.%ld.%ld host%ld.bench.example h%ld\n",
			(i >> 16) & 255, (i >> 8) & 255, i & 255, i, i);
	}
	fprintf(pw, "root:x:0:0:root:/root:/bin/bash\n");
	if (dup) {
		/* one group listing root 65,536 times */
		fprintf(gr, "dup:x:5000:root");
		for (int i = 1; i < 65536; i++) {
			fputs(",root", gr);
		}
		fputc('\n', gr);
	}
	fprintf(gr, "root:x:0:root\n");
	fprintf(h, "127.0.0.1 localhost\n");
	fclose(pw);
	fclose(gr);
	fclose(h);
}

static int one(const char *mode)
{
	static char buf[1 << 16];
	int rc = -1;

	if (strcmp(mode, "getpwnam") == 0) {
		struct passwd p, *r;

		rc = getpwnam_r("root", &p, buf, sizeof(buf), &r) == 0 && r
			 ? 0
			 : -1;
	} else if (strcmp(mode, "getpwuid") == 0) {
		struct passwd p, *r;

		rc = getpwuid_r(0, &p, buf, sizeof(buf), &r) == 0 && r ? 0 : -1;
	} else if (strcmp(mode, "getgrnam") == 0) {
		struct group g, *r;

		rc = getgrnam_r("root", &g, buf, sizeof(buf), &r) == 0 && r
			 ? 0
			 : -1;
	} else if (strncmp(mode, "getgrouplist", 12) == 0) {
		static gid_t g[2048];
		int ng = 2048;

		rc = getgrouplist("root", 0, g, &ng) >= 1 ? 0 : -1;
	} else if (strcmp(mode, "gethostbyname") == 0) {
		rc = gethostbyname("localhost") != NULL ? 0 : -1;
	} else if (strcmp(mode, "getaddrinfo") == 0) {
		struct addrinfo hints = {.ai_family = AF_INET,
					 .ai_socktype = SOCK_STREAM};
		struct addrinfo *res;

		rc = getaddrinfo("localhost", "80", &hints, &res);
		if (rc == 0) {
			freeaddrinfo(res);
		}
	}
	return rc;
}

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first lookup of `mode` in forked children: median CPU ns. */
static int first(const char *mode)
{
	static uint64_t t[401];
	uint64_t start = bench_now_ns();
	size_t n = 0;

	while (n < 400 && (n < 15 || bench_now_ns() - start < 2000000000u)) {
		int fd[2], st;
		pid_t pid;

		if (pipe(fd) != 0 || (pid = fork()) < 0) {
			perror("nss_bench");
			return 1;
		}
		if (pid == 0) {
			uint64_t t0 = cpu_now_ns(), d;

			if (one(mode) != 0) {
				_exit(1);
			}
			d = cpu_now_ns() - t0;
			_exit(write(fd[1], &d, sizeof(d)) == sizeof(d) ? 0 : 1);
		}
		close(fd[1]);
		if (read(fd[0], &t[n], sizeof(t[n])) != sizeof(t[n]) ||
		    waitpid(pid, &st, 0) != pid || st != 0) {
			fprintf(stderr, "nss_bench: first %s failed\n", mode);
			return 1;
		}
		close(fd[0]);
		n++;
	}
	qsort(t, n, sizeof(t[0]), cmp_u64);
	bench_report((double)t[n / 2], "ns/op");
	return 0;
}

/* A new process making the one lookup `mode`: median CPU us, start to
 * exit. */
static int fresh(const char *mode)
{
	static uint64_t t[401];
	char self[] = "nss_bench", one_mode[64];
	char *argv[] = {self, one_mode, NULL};
	uint64_t start = bench_now_ns();
	size_t n = 0;

	snprintf(one_mode, sizeof(one_mode), "one-%s", mode);
	while (n < 400 && (n < 31 || bench_now_ns() - start < 2000000000u)) {
		struct rusage ru;
		pid_t pid;
		int st;

		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv,
				environ) != 0 ||
		    wait4(pid, &st, 0, &ru) != pid || st != 0) {
			fprintf(stderr, "nss_bench: fresh %s failed\n", mode);
			return 1;
		}
		t[n++] = ((uint64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
			     1000000000u +
			 ((uint64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
			     1000u;
	}
	qsort(t, n, sizeof(t[0]), cmp_u64);
	bench_report((double)t[n / 2] / 1000.0, "us/op");
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t start, now;
	long iters = 0, n, members = 1;
	const char *base;
	struct timespec settle = {0, 60 * 1000 * 1000};

	if (argc == 2 && strncmp(argv[1], "one-", 4) == 0) {
		return one(argv[1] + 4) == 0 ? 0 : 1; /* a fresh-<mode> child */
	}
	if ((argc != 4 && argc != 5) || (n = atol(argv[3])) < 1 ||
	    (argc == 5 && (members = atol(argv[4])) < 1)) {
		fprintf(stderr, "usage: nss_bench MODE DIR N [MEMBERS]\n");
		return 2;
	}
	base = argv[1];
	if (strncmp(base, "first-", 6) == 0 ||
	    strncmp(base, "fresh-", 6) == 0) {
		base += 6;
	}
	write_files(argv[2], n,
		    strcmp(base, "getgrouplist-1000") == 0 ? 10 : 1000,
		    strcmp(base, "getgrouplist-dup") == 0, members);
	/* let the files' timestamps age past any "racy" window, then load */
	nanosleep(&settle, NULL);
	if (strncmp(argv[1], "first-", 6) == 0) {
		return first(base);
	}
	if (strncmp(argv[1], "fresh-", 6) == 0) {
		return fresh(base);
	}
	if (one(argv[1]) != 0 || one(argv[1]) != 0) {
		fprintf(stderr, "nss_bench: %s failed\n", argv[1]);
		return 1;
	}
	start = bench_now_ns();
	do {
		if (one(argv[1]) != 0) {
			fprintf(stderr, "nss_bench: %s failed\n", argv[1]);
			return 1;
		}
		iters++;
		now = bench_now_ns();
	} while (iters < 200000 && (now - start < 300000000u || iters < 5));
	bench_report((double)(now - start) / (double)iters, "ns/op");
	return 0;
}
