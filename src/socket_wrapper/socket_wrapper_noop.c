/*
 * libsocket_wrapper_noop: the public functions of socket_wrapper for
 * programs that run without the wrapper preloaded. No state.
 */
#include "socket_wrapper.h"

#include "cwrap_compiler.h"

CWRAP_EXPORT bool socket_wrapper_enabled(void)
{
	return false;
}

CWRAP_EXPORT void socket_wrapper_indicate_no_inet_fd(int fd)
{
	(void)fd;
}
