/*
 * Identity of the library this copy of src/common is compiled into. Each
 * library defines exactly one `cwrap_lib` (in its init file); the shared
 * logging, environment and binding code read their names from it, so the
 * three .so files stay independent.
 */
#ifndef CWRAP_LIB_H
#define CWRAP_LIB_H

struct cwrap_lib {
	const char *name;       /* "socket_wrapper" */
	const char *log_prefix; /* "SWRAP" */
	const char *env_prefix; /* "SOCKET_WRAPPER": <env_prefix>_DEBUGLEVEL */
};

extern const struct cwrap_lib cwrap_lib;

#endif
