/*
 * A library that binds libc symbols the way the wrappers do, for unit_bind.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include "cwrap_compiler.h"
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
	.name = "bindtest",
	.log_prefix = "BTEST",
	.env_prefix = "BINDTEST",
};

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "bindtest_libc.def"
#include "cwrap_libc_gen.h"

CWRAP_EXPORT pid_t bindtest_getpid(void);
CWRAP_EXPORT int bindtest_missing(void);
CWRAP_EXPORT int bindtest_fcntl_getfd(int fd);
CWRAP_EXPORT bool bindtest_in_self(const void *p);

CWRAP_EXPORT pid_t bindtest_getpid(void)
{
	return libc_getpid();
}

CWRAP_EXPORT int bindtest_missing(void)
{
	return libc_cwrap_no_such_symbol();
}

CWRAP_EXPORT int bindtest_fcntl_getfd(int fd)
{
	return libc_ptr_fcntl()(fd, F_GETFD);
}

/* The circular-binding check: true for an address of this library. */
CWRAP_EXPORT bool bindtest_in_self(const void *p)
{
	return cwrap_bind_in_self(p);
}
