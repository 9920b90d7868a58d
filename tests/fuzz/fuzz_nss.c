/*
 * See fuzz_nss.h.
 */
#include "fuzz_nss.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
    .name = "nss_wrapper",
    .log_prefix = "NWRAP",
    .env_prefix = "NSS_WRAPPER",
};

static const char *const vars[] = {
    [NWRAP_PASSWD] = "NSS_WRAPPER_PASSWD",
    [NWRAP_GROUP] = "NSS_WRAPPER_GROUP",
    [NWRAP_SHADOW] = "NSS_WRAPPER_SHADOW",
    [NWRAP_HOSTS] = "NSS_WRAPPER_HOSTS",
};
static const char *const names[] = {
    [NWRAP_PASSWD] = "passwd",
    [NWRAP_GROUP] = "group",
    [NWRAP_SHADOW] = "shadow",
    [NWRAP_HOSTS] = "hosts",
};
static const char *paths[4];

void fuzz_nss_setup(void)
{
	for (int k = 0; k < 4; k++) {
		paths[k] = fuzz_path(names[k]);
		fuzz_write(paths[k], (const uint8_t *)"", 0);
		setenv(vars[k], paths[k], 1);
	}
	setenv("NSS_WRAPPER_HOSTS_ONLY", "1", 1);
	/* malformed lines are the fuzzer's daily bread: errors only */
	setenv("NSS_WRAPPER_DEBUGLEVEL", "0", 1);
	cwrap_env_changed();
}

void fuzz_nss_load(enum nwrap_kind kind, const uint8_t *data, size_t size)
{
	struct timespec t[2];

	fuzz_write(paths[kind], data, size);
	/* Written a second ago: a file the cache read within 30 ms of its
	 * mtime is read again at each lookup (it may be rewritten within
	 * the same clock tick), which would time the re-reads, not the
	 * lookups. The caches are reset below anyway. */
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[1] = t[0];
	t[1].tv_sec -= 1;
	utimensat(AT_FDCWD, paths[kind], t, 0);
	nwrap_cache_reset(&nwrap_cache_passwd);
	nwrap_cache_reset(&nwrap_cache_group);
	nwrap_cache_reset(&nwrap_cache_shadow);
	nwrap_cache_reset(&nwrap_cache_hosts);
}
