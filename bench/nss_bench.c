/*
 * nss_bench MODE DIR N: time one lookup MODE (getpwnam, getpwuid,
 * getgrnam, getgrouplist, getaddrinfo) against files of N entries that it
 * writes into DIR first (passwd, group, hosts; the workloads point
 * NSS_WRAPPER_* at them). The key looked up is on the LAST line, the worst
 * case for a linear scan, and is one the system has too (root, uid 0,
 * localhost), so the same program measures native glibc on /etc/passwd,
 * /etc/group and /etc/hosts when nothing is preloaded.
 * Prints "<ns> ns/op".
 */
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static void write_files(const char *dir, long n)
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
		fprintf(gr, "group%ld:x:%ld:user%ld%s\n", i, 10000 + i, i,
			i % 1000 == 999 ? ",root" : "");
		fprintf(h, "10.%ld.%ld.%ld host%ld.bench.example h%ld\n",
			(i >> 16) & 255, (i >> 8) & 255, i & 255, i, i);
	}
	fprintf(pw, "root:x:0:0:root:/root:/bin/bash\n");
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
	} else if (strcmp(mode, "getgrouplist") == 0) {
		gid_t g[512];
		int ng = 512;

		rc = getgrouplist("root", 0, g, &ng) >= 1 ? 0 : -1;
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

int main(int argc, char **argv)
{
	uint64_t start, now;
	long iters = 0, n;
	struct timespec settle = {0, 60 * 1000 * 1000};

	if (argc != 4 || (n = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: nss_bench MODE DIR N\n");
		return 2;
	}
	write_files(argv[2], n);
	/* let the files' timestamps age past any "racy" window, then load */
	nanosleep(&settle, NULL);
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
