/*
 * Environment parsing and the environment generation: see cwrap_env.h.
 * env_gen and env_seen are atomics; no lock.
 */
#include "cwrap_env.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cwrap_log.h"

static unsigned long env_gen = 1;
static char **env_seen;

void cwrap_env_changed(void)
{
	__atomic_store_n(&env_seen, __atomic_load_n(&environ, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_add_fetch(&env_gen, 1, __ATOMIC_RELEASE);
	cwrap_log_invalidate();
}

unsigned long cwrap_env_gen(void)
{
	char **e = __atomic_load_n(&environ, __ATOMIC_RELAXED);

	/* Two threads that both notice a replaced environ both move the
	 * counter: one reload too many, never one too few. */
	if (cwrap_unlikely(e != __atomic_load_n(&env_seen, __ATOMIC_RELAXED))) {
		cwrap_env_changed();
	}
	return __atomic_load_n(&env_gen, __ATOMIC_ACQUIRE);
}

bool cwrap_parse_long(const char *str, long min, long max, long *out)
{
	char *end = NULL;
	long v;

	if (str == NULL || *str == '\0') {
		return false;
	}
	errno = 0;
	v = strtol(str, &end, 10);
	if (errno != 0 || end == str || *end != '\0' || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

bool cwrap_parse_digits(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return false;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max) {
			return false;
		}
	}
	*out = v;
	return true;
}

long cwrap_env_long(const char *var, long dflt, long min, long max)
{
	const char *s = getenv(var);
	int saved_errno = errno;
	long v;

	if (s == NULL || *s == '\0') {
		return dflt;
	}
	if (!cwrap_parse_long(s, min, max, &v)) {
		CWRAP_ERROR("%s='%s' is not a number in %ld..%ld, using %ld",
			    var, s, min, max, dflt);
		v = dflt;
	}
	errno = saved_errno;
	return v;
}

bool cwrap_env_true(const char *var)
{
	const char *s = getenv(var);

	return s != NULL && *s != '\0' && !(s[0] == '0' && s[1] == '\0');
}
