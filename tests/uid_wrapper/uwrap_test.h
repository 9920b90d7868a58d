/*
 * Helpers for the uid_wrapper tests: the real ids as the kernel reports
 * them in /proc/self/status (which no wrapper can fake), and running a
 * check in a forked child. Header only, no state.
 */
#ifndef UWRAP_TEST_H
#define UWRAP_TEST_H

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The number of a 32-bit credential system call: SYS_getuid32 and friends
 * where they exist (i686), whose plain numbers are the old 16-bit calls. */
#ifdef SYS_getuid32
#define UWRAP_SYS(name) SYS_##name##32
#else
#define UWRAP_SYS(name) SYS_##name
#endif

/* uid_wrapper_enabled() of the preloaded library; -1 if none is loaded. */
static inline int uwrap_test_enabled(void)
{
	bool (*fn)(void) =
	    (bool (*)(void))dlsym(RTLD_DEFAULT, "uid_wrapper_enabled");

	return fn == NULL ? -1 : fn();
}

/* "Uid:" or "Gid:" of /proc/self/status: real, effective, saved, fs. */
static inline void uwrap_test_real_ids(const char *key, unsigned out[4])
{
	char line[4096];
	FILE *f = fopen("/proc/self/status", "r");
	size_t klen = strlen(key);

	out[0] = out[1] = out[2] = out[3] = ~0u;
	if (f == NULL) {
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, key, klen) == 0) {
			sscanf(line + klen, "%u %u %u %u", &out[0], &out[1],
			       &out[2], &out[3]);
			break;
		}
	}
	fclose(f);
}

/* The real supplementary groups ("Groups:"), space separated. */
static inline void uwrap_test_real_groups(char *buf, size_t size)
{
	char line[8192];
	FILE *f = fopen("/proc/self/status", "r");

	buf[0] = '\0';
	if (f == NULL) {
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7;

			p += strspn(p, " \t");
			p[strcspn(p, "\n")] = '\0';
			/* trailing blank */
			while (*p != '\0' && p[strlen(p) - 1] == ' ') {
				p[strlen(p) - 1] = '\0';
			}
			snprintf(buf, size, "%s", p);
			break;
		}
	}
	fclose(f);
}

static inline unsigned uwrap_test_real_uid(void)
{
	unsigned ids[4];

	uwrap_test_real_ids("Uid:", ids);
	return ids[0];
}

/* Run fn in a child; true if it exited 0. The child reports failures on
 * stderr itself (CHILD_CHECK). */
static inline bool uwrap_test_in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		return false;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define CHILD_CHECK(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
				"%s:%d: check failed: %s (errno %s)\n",        \
				__FILE__, __LINE__, #cond, strerror(errno));   \
			return 1;                                              \
		}                                                              \
	} while (0)

#endif
