/*
 * Helpers of the socket_wrapper tests: a private SOCKET_WRAPPER_DIR, the
 * echo server, addresses. Compiled into each test (swrap_test.c).
 */
#ifndef SWRAP_TEST_H
#define SWRAP_TEST_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cwrap_test.h"

/* Fresh SOCKET_WRAPPER_DIR and SOCKET_WRAPPER_DEFAULT_IFACE=iface, set in
 * the environment before the wrapper reads it; the dir, malloc'd. */
char *swrap_test_setup(const char *iface);
void swrap_test_teardown(char *dir);

/* Start $CWRAP_TEST_BIN/swrap_echo_srv tcp|udp ADDR PORT; waits for
 * "ready". */
pid_t swrap_test_server(const char *type, const char *addr, int port);
void swrap_test_stop(pid_t pid);

/* Numeric address + port -> sockaddr; returns its length. */
socklen_t swrap_test_sa(const char *addr, int port,
			struct sockaddr_storage *ss);

/* "127.0.0.10:7" or "[fd00::5357:5f0a]:7" in buf (64 bytes). */
const char *swrap_test_ntop(const void *sa, char *buf);

/* Connected socket of type to addr:port (asserts). */
int swrap_test_connect(int type, const char *addr, int port);

/* dir/name exists and is a socket. */
bool swrap_test_has_socket(const char *dir, const char *name);

/* getsockname() (or, with peer, getpeername()) of fd as swrap_test_ntop
 * writes it (asserts). */
const char *swrap_test_name(int fd, char *buf, bool peer);

/* A socket of type bound to addr:port; a TCP one listening (asserts). */
int swrap_test_bound(int type, const char *addr, int port);
int swrap_test_listener(const char *addr, int port, int backlog);

/* A real kernel socket, made with SOCKET_WRAPPER_DIR unset for the one
 * call (the wrapper reads its variables at each socket call), to compare
 * the emulation with the kernel: -1 and errno as socket() gives them.
 * (Under a wrapper that does not follow the environment, a raw system
 * call, so that tests show what else fails there.) */
int swrap_test_real_socket(int family, int type, int protocol);

/* True if fd is a unix socket in the kernel's eyes (an emulated socket),
 * found in /proc/net/unix by its inode. */
bool swrap_test_is_unix(int fd);

/* Write all, read exactly n (asserts). */
void swrap_test_write_all(int fd, const void *buf, size_t n);
void swrap_test_read_all(int fd, void *buf, size_t n);

#endif
