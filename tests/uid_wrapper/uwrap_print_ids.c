/*
 * Test helper: prints the ids this process sees, in one line:
 *     uid=R,E,S gid=R,E,S groups=G1,G2 initial=N
 * N counts the UID_WRAPPER_INITIAL_* variables left in its environment
 * (uid_wrapper removes them at start, so 0 is expected).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(void)
{
	uid_t ur, ue, us;
	gid_t gr, ge, gs, groups[1024];
	int n, i, initial = 0;
	char **e;

	if (getresuid(&ur, &ue, &us) != 0 || getresgid(&gr, &ge, &gs) != 0) {
		perror("getres*id");
		return 1;
	}
	n = getgroups(1024, groups);
	if (n < 0) {
		perror("getgroups");
		return 1;
	}
	for (e = environ; *e != NULL; e++) {
		initial += strncmp(*e, "UID_WRAPPER_INITIAL_", 20) == 0;
	}
	printf("uid=%u,%u,%u gid=%u,%u,%u groups=", ur, ue, us, gr, ge, gs);
	for (i = 0; i < n; i++) {
		printf("%s%u", i > 0 ? "," : "", groups[i]);
	}
	printf(" initial=%d\n", initial);
	return 0;
}
