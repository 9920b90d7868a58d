/*
 * A stand-in for the other library of the cross-library syscall()
 * protocol (cwrap_syscall.h), built twice: as libswrap_peer_uid.so it
 * exports uid_wrapper_syscall_valid/_va (socket_wrapper's peer), as
 * libswrap_peer_socket.so socket_wrapper_syscall_valid/_va (uid_wrapper's
 * peer); no syscall() of its own, so a number reaches it only through the
 * protocol. It owns one number, SYSCALL_PEER_NR, which no kernel has, and
 * answers it with a[0] * 10 + a[5]; syscall_peer_mock_calls() counts the
 * answers. Lock free: it is called from threads and signal handlers.
 */
#include <stdarg.h>
#include <stdbool.h>

#include "syscall_peer_mock.h"

#define CAT3(a, b, c) a##b##c
#define NAME(prefix, suffix) CAT3(prefix, _wrapper_syscall_, suffix)

__attribute__((visibility("default"))) bool NAME(PEER, valid)(long nr);
__attribute__((visibility("default"))) long NAME(PEER, va)(long nr, va_list ap);

static long calls;

bool NAME(PEER, valid)(long nr)
{
	return nr == SYSCALL_PEER_NR;
}

long NAME(PEER, va)(long nr, va_list ap)
{
	long a[6];
	int i;

	for (i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	if (nr != SYSCALL_PEER_NR) {
		return -2; /* the protocol never hands over a number _valid
			      refused */
	}
	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	return a[0] * 10 + a[5];
}

long syscall_peer_mock_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}
