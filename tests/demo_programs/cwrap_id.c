/*
 * cwrap_id: coreutils' id without arguments, its output byte for byte,
 * built by the project so that the article's uid_wrapper demo runs in
 * every build (a musl-built wrapper cannot be preloaded into the system's
 * glibc id):
 *     uid=0(root) gid=0(root) groups=0(root)
 * The real ids, then euid= and egid= where they differ, then the groups:
 * the effective gid first, then getgroups() without the repeats of the
 * first and without adjacent repeats (gnulib's mgetgroups). A name in
 * parentheses where getpwuid()/getgrgid() know the id.
 * C11 + POSIX only: it builds against glibc and musl alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_user(const char *label, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	printf("%s%lu", label, (unsigned long)uid);
	if (pw != NULL) {
		printf("(%s)", pw->pw_name);
	}
}

static void print_group(const char *label, gid_t gid)
{
	struct group *gr = getgrgid(gid);

	printf("%s%lu", label, (unsigned long)gid);
	if (gr != NULL) {
		printf("(%s)", gr->gr_name);
	}
}

/* The effective gid, then the supplementary groups; returns the count. */
static int list_groups(gid_t egid, gid_t **out)
{
	int n = getgroups(0, NULL);
	gid_t *g;

	if (n < 0) {
		return -1;
	}
	g = calloc((size_t)n + 1, sizeof(*g));
	if (g == NULL) {
		return -1;
	}
	n = getgroups(n, g + 1);
	if (n < 0) {
		free(g);
		return -1;
	}
	g[0] = egid;
	n++;
	/* Drop repeats of the first and adjacent repeats (mgetgroups). */
	int kept = 1;
	for (int i = 1; i < n; i++) {
		if (g[i] != g[0] && g[i] != g[kept - 1]) {
			g[kept++] = g[i];
		}
	}
	*out = g;
	return kept;
}

int main(int argc, char **argv)
{
	uid_t ruid = getuid(), euid = geteuid();
	gid_t rgid = getgid(), egid = getegid();
	gid_t *groups;
	int n;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: cwrap_id\n");
		return 1;
	}
	print_user("uid=", ruid);
	print_group(" gid=", rgid);
	if (euid != ruid) {
		print_user(" euid=", euid);
	}
	if (egid != rgid) {
		print_group(" egid=", egid);
	}
	n = list_groups(egid, &groups);
	if (n < 0) {
		putchar('\n');
		perror("cwrap_id: cannot get the groups");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		print_group(i == 0 ? " groups=" : ",", groups[i]);
	}
	free(groups);
	putchar('\n');
	return fflush(stdout) == 0 ? 0 : 1;
}
