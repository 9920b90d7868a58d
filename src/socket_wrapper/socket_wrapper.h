/*
 * socket_wrapper.h - public functions of socket_wrapper (cwrap).
 *
 * Link with libsocket_wrapper_noop (pkg-config socket_wrapper_noop) to call
 * them from an application: when libsocket_wrapper.so is preloaded its
 * definitions take precedence, otherwise the no-op library answers.
 */
#ifndef SOCKET_WRAPPER_H
#define SOCKET_WRAPPER_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when the preloaded socket_wrapper emulates sockets in this process
 * (SOCKET_WRAPPER_DIR is set and usable). */
bool socket_wrapper_enabled(void);

/* Tell socket_wrapper that `fd` is not an emulated inet socket (for
 * example a descriptor inherited or created behind its back), so it forgets
 * any record it holds for that number. */
void socket_wrapper_indicate_no_inet_fd(int fd);

/* An emulated IPPROTO_QUIC (261) socket of `family` (AF_INET, AF_INET6)
 * and `type` (SOCK_DGRAM or SOCK_STREAM, with SOCK_NONBLOCK and
 * SOCK_CLOEXEC): connected datagrams, message boundaries kept, an
 * AF_UNIX SOCK_SEQPACKET socket underneath on a UDP address; recorded
 * as UDP in the capture. socket(family, type, 261) itself stays
 * EPROTONOSUPPORT. When the wrapper is not enabled (and in the no-op
 * library): socket(family, type, 261), the kernel's own QUIC socket if
 * its module is loaded. -1 and errno on failure. */
int socket_wrapper_ipproto_quic_socket(int family, int type);

#ifdef __cplusplus
}
#endif

#endif
