/*
 * Logging: see cwrap_log.h. The cached level is an atomic int; printing
 * formats into a stack buffer and hands the whole line to stderr at once,
 * so lines of concurrent threads and processes do not mix.
 */
#include "cwrap_log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"

#define CWRAP_LOG_UNSET (-1)

static int cwrap_log_cached = CWRAP_LOG_UNSET;

/* The names a level may be given by, besides its number (any case). */
static const struct {
	const char *name;
	int level;
} cwrap_log_names[] = {
    {"error", CWRAP_LOG_ERROR},	 {"warn", CWRAP_LOG_WARN},
    {"warning", CWRAP_LOG_WARN}, {"debug", CWRAP_LOG_DEBUG},
    {"trace", CWRAP_LOG_TRACE},
};

static int cwrap_log_parse(const char *var)
{
	const char *s = getenv(var);
	int saved_errno = errno;
	long v = CWRAP_LOG_ERROR;

	if (s == NULL || *s == '\0' ||
	    cwrap_parse_long(s, CWRAP_LOG_ERROR, LONG_MAX, &v)) {
		errno = saved_errno;
		return v > CWRAP_LOG_TRACE ? CWRAP_LOG_TRACE : (int)v;
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(cwrap_log_names); i++) {
		if (strcasecmp(s, cwrap_log_names[i].name) == 0) {
			errno = saved_errno;
			return cwrap_log_names[i].level;
		}
	}
	cwrap_log_print(CWRAP_LOG_ERROR, __func__,
			"%s='%s' is not a level 0..3 or error, warn, "
			"debug, trace; using 0",
			var, s);
	errno = saved_errno;
	return CWRAP_LOG_ERROR;
}

int cwrap_log_level(void)
{
	int level = __atomic_load_n(&cwrap_log_cached, __ATOMIC_RELAXED);
	char var[64];

	if (cwrap_likely(level != CWRAP_LOG_UNSET)) {
		return level;
	}

	/* Errors are printed while the variable itself is parsed. Levels
	 * above trace mean "everything", as upstream reads them. */
	__atomic_store_n(&cwrap_log_cached, CWRAP_LOG_ERROR, __ATOMIC_RELAXED);
	snprintf(var, sizeof(var), "%s_DEBUGLEVEL", cwrap_lib.env_prefix);
	level = cwrap_log_parse(var);
	__atomic_store_n(&cwrap_log_cached, level, __ATOMIC_RELAXED);
	return level;
}

void cwrap_log_invalidate(void)
{
	__atomic_store_n(&cwrap_log_cached, CWRAP_LOG_UNSET, __ATOMIC_RELAXED);
}

static const char *cwrap_level_name(int level)
{
	switch (level) {
	case CWRAP_LOG_ERROR:
		return "ERROR";
	case CWRAP_LOG_WARN:
		return "WARN";
	case CWRAP_LOG_DEBUG:
		return "DEBUG";
	default:
		return "TRACE";
	}
}

static void cwrap_log_vprint(int level, const char *func, const char *fmt,
			     va_list ap)
{
	char line[1024];
	int saved_errno = errno;
	int n;

	n = snprintf(line, sizeof(line),
		     "%s_%s(%s[%d]) - %s: ", cwrap_lib.log_prefix,
		     cwrap_level_name(level), program_invocation_short_name,
		     (int)getpid(), func);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		n = 0;
	}
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	line[n] = '\0';
	fputs(line, stderr);
	errno = saved_errno;
}

void cwrap_log_print(int level, const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cwrap_log_vprint(level, func, fmt, ap);
	va_end(ap);
}

void cwrap_fatal(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cwrap_log_vprint(CWRAP_LOG_ERROR, func, fmt, ap);
	va_end(ap);
	abort();
}
