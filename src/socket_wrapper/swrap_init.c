/*
 * socket_wrapper: library identity and the public functions.
 * (Placeholder of the foundation: the emulation itself comes with the
 * socket_wrapper core.)
 */
#include <stdlib.h>

#include "cwrap_compiler.h"
#include "cwrap_lib.h"
#include "socket_wrapper.h"

const struct cwrap_lib cwrap_lib = {
	.name = "socket_wrapper",
	.log_prefix = "SWRAP",
	.env_prefix = "SOCKET_WRAPPER",
};

CWRAP_EXPORT bool socket_wrapper_enabled(void)
{
	return false;
}

CWRAP_EXPORT void socket_wrapper_indicate_no_inet_fd(int fd)
{
	(void)fd;
}
