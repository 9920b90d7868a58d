/*
 * Logging shared by the three libraries.
 *
 * <LIB>_DEBUGLEVEL selects 0 error, 1 warning, 2 debug, 3 trace (default 0),
 * by number or by name (error, warn or warning, debug, trace; any case).
 * Every message is one line on stderr:
 *     SWRAP_WARN(nc[1234]) - swrap_bind: message
 * naming the library, program, pid and function. The level is read on first
 * use and cached (an atomic int, no lock) until the environment changes
 * (cwrap_env.h); a message above the level costs one comparison and its
 * arguments are never formatted. A level above 3 means everything.
 */
#ifndef CWRAP_LOG_H
#define CWRAP_LOG_H

#include "cwrap_compiler.h"

enum cwrap_log_level {
	CWRAP_LOG_ERROR = 0,
	CWRAP_LOG_WARN = 1,
	CWRAP_LOG_DEBUG = 2,
	CWRAP_LOG_TRACE = 3,
};

int cwrap_log_level(void);
/* Read <LIB>_DEBUGLEVEL again at the next message. */
void cwrap_log_invalidate(void);
void cwrap_log_print(int level, const char *func, const char *fmt, ...)
	CWRAP_PRINTF(3, 4);

#define CWRAP_LOG(level, ...)                                          \
	do {                                                           \
		if (cwrap_unlikely((level) <= cwrap_log_level())) {    \
			cwrap_log_print((level), __func__, __VA_ARGS__); \
		}                                                      \
	} while (0)

#define CWRAP_ERROR(...) CWRAP_LOG(CWRAP_LOG_ERROR, __VA_ARGS__)
#define CWRAP_WARN(...) CWRAP_LOG(CWRAP_LOG_WARN, __VA_ARGS__)
#define CWRAP_DEBUG(...) CWRAP_LOG(CWRAP_LOG_DEBUG, __VA_ARGS__)
#define CWRAP_TRACE(...) CWRAP_LOG(CWRAP_LOG_TRACE, __VA_ARGS__)

/* Print a one-line message naming `func` and abort: for broken invariants
 * only (a lock that fails, a libc symbol that cannot be bound). */
CWRAP_NORETURN void cwrap_fatal(const char *func, const char *fmt, ...)
	CWRAP_PRINTF(2, 3);

#define CWRAP_FATAL(...) cwrap_fatal(__func__, __VA_ARGS__)

#endif
