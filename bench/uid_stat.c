/*
 * Cost of stat() under fake ownership: `uid_stat DIR plain|chowned|link`
 * makes DIR/f (and for `link` a symbolic link DIR/l to it), gives it to
 * 1234:5678 with chown() (lchown() for the link) unless `plain` (a chown
 * that fails, natively or without UID_WRAPPER_FAKE_CHOWN, is ignored:
 * the loop then measures a file never chowned), then calls stat() (lstat()
 * for the link) in a loop for about 0.2 s and prints the time per call
 * ("ns/op"; lower is better). Natively each call is a system call; with
 * the setting a regular file costs a getxattr() more, a link a lookup in
 * the owner database.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"

#define BATCH 1000
#define RUN_NS 200000000ull

int main(int argc, char **argv)
{
	char f[4096], l[4096];
	const char *target = f;
	uint64_t calls = 0, start, elapsed;
	struct stat st;
	int fd, i, lnk;

	if (argc != 3 ||
	    (strcmp(argv[2], "plain") != 0 && strcmp(argv[2], "chowned") != 0 &&
	     strcmp(argv[2], "link") != 0)) {
		fprintf(stderr, "usage: %s DIR plain|chowned|link\n", argv[0]);
		return 2;
	}
	lnk = strcmp(argv[2], "link") == 0;
	snprintf(f, sizeof(f), "%s/f", argv[1]);
	snprintf(l, sizeof(l), "%s/l", argv[1]);
	fd = open(f, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(f);
		return 1;
	}
	close(fd);
	if (lnk) {
		if (symlink("f", l) != 0) {
			perror(l);
			return 1;
		}
		target = l;
		(void)lchown(l, 1234, 5678);
	} else if (strcmp(argv[2], "chowned") == 0) {
		(void)chown(f, 1234, 5678);
	}
	if ((lnk ? lstat(target, &st) : stat(target, &st)) != 0) {
		perror(target);
		return 1;
	}
	start = bench_now_ns();
	do {
		for (i = 0; i < BATCH; i++) {
			if (lnk) {
				lstat(target, &st);
			} else {
				stat(target, &st);
			}
		}
		calls += BATCH;
	} while (bench_now_ns() - start < RUN_NS);
	elapsed = bench_now_ns() - start;
	bench_report((double)elapsed / (double)calls, "ns/op");
	return 0;
}
