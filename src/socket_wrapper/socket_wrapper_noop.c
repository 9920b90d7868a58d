/*
 * libsocket_wrapper_noop: the public functions of socket_wrapper for
 * programs that run without the wrapper preloaded. No state.
 */
#include <sys/socket.h>

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

/* No emulation: the kernel's QUIC socket, or its errno (EPROTONOSUPPORT
 * without the QUIC module), as the wrapper gives when it is not enabled. */
CWRAP_EXPORT int socket_wrapper_ipproto_quic_socket(int family, int type)
{
	return socket(family, type, 261);
}
