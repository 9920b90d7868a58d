/*
 * syscall() shared by the libraries that interpose it (socket_wrapper,
 * uid_wrapper, priv_wrapper).
 *
 * cwrap_syscall_next(nr, a): syscall(nr, a[0..5]) through the next
 * syscall() after the calling library's.
 *
 * The cross-library protocol, which upstream's libraries speak too:
 * socket_wrapper exports socket_wrapper_syscall_valid(long) and
 * socket_wrapper_syscall_va(long, va_list), uid_wrapper the same names
 * with uid_wrapper_; a library's syscall() hands a number it does not
 * answer itself to the other library's _va when the other's _valid says
 * yes, whatever the preload order and whether the other library is ours
 * or upstream's. A _va never hands a number over again (it answers it or
 * passes it down the chain), so two libraries cannot bounce a number
 * between them.
 *
 * Before the library's constructor has run (cwrap_syscall_start), its
 * syscall() answers nothing and hands nothing over: every number goes
 * down the chain, and its _valid says no. A malloc that calls syscall()
 * from its own setup, inside the dynamic loader, so never reaches code
 * that allocates or takes a lock of ours.
 */
#ifndef CWRAP_SYSCALL_H
#define CWRAP_SYSCALL_H

#include <stdbool.h>

long cwrap_syscall_next(long nr, const long a[6]);

/* From the library's constructor: name the peer's protocol functions
 * ("uid_wrapper_syscall_valid", "uid_wrapper_syscall_va"; NULL: none),
 * then mark the library's syscall() ready. Nothing is looked up here:
 * cwrap_syscall_peer() does, once, when first called. */
void cwrap_syscall_start(const char *peer_valid, const char *peer_va);

/* Whether cwrap_syscall_start() has run. Uninstrumented, lock free. */
bool cwrap_syscall_ready(void);

/* If the peer's _valid says yes to `nr`, set *rc to what its _va
 * answered and return true; otherwise false. The first call looks the
 * pair up in the loaded objects' symbol tables, allocating nothing and
 * taking no lock of the dynamic loader's but dl_iterate_phdr()'s, so a
 * malloc's setup may make it. Only once cwrap_syscall_ready(). */
bool cwrap_syscall_peer(long nr, const long a[6], long *rc);

#endif
