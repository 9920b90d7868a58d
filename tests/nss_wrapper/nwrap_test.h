/*
 * Helpers for the nss_wrapper tests: files written into a temporary
 * directory and the variables pointed at them, before the first wrapped
 * call (the library reads its variables once), plus libc's own functions
 * for comparisons. Per-program state: the directory, removed at exit.
 */
#ifndef NWRAP_TEST_H
#define NWRAP_TEST_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_platform.h"
#include "cwrap_test.h"

#ifndef CWRAP_ARRAY_SIZE
#define CWRAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static char *nt_dir;
static char *nt_paths[16];
static size_t nt_npaths;

static void nt_cleanup(void)
{
	if (nt_dir != NULL) {
		cwrap_test_rmtree(nt_dir);
		free(nt_dir);
	}
	for (size_t i = 0; i < nt_npaths; i++) {
		free(nt_paths[i]);
	}
}

/* Write `content` to <tmpdir>/<name>, set `var` to its path (if var is not
 * NULL) and return the path (freed at exit). */
static inline char *nt_file(const char *name, const char *content,
			    const char *var)
{
	char *path;

	if (nt_dir == NULL) {
		nt_dir = cwrap_test_mkdtemp("nss");
		atexit(nt_cleanup);
	}
	path = cwrap_test_path(nt_dir, name);
	if (nt_npaths < CWRAP_ARRAY_SIZE(nt_paths)) {
		nt_paths[nt_npaths++] = path;
	}
	cwrap_test_write_file(path, content);
	if (var != NULL) {
		setenv(var, path, 1);
	}
	return path;
}

/* Replace `path` by a new file with `content`, through rename(2). */
static inline void nt_replace(const char *path, const char *content)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	cwrap_test_write_file(tmp, content);
	if (rename(tmp, path) != 0) {
		fail_msg("rename %s: %m", tmp);
	}
}

/* A function of the real libc, not the wrapper's. */
static inline void *nt_libc(const char *name)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *f = h == NULL ? NULL : dlsym(h, name);

	if (f == NULL) {
		fail_msg("libc's %s not found", name);
	}
	return f;
}

/* A public function of the preloaded nss_wrapper. */
static inline bool nt_wrapper_bool(const char *name)
{
	bool (*f)(void) = (bool (*)(void))dlsym(RTLD_DEFAULT, name);

	if (f == NULL) {
		fail_msg("%s not found: is nss_wrapper preloaded?", name);
	}
	return f();
}

#endif
