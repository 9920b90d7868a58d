/*
 * sup.h - the supervisor: programs that make their own system calls (Go,
 * static binaries) in socket_wrapper's emulated network.
 *
 * The contract. A supervised process runs under a seccomp filter
 * (sup_filter.c) that sends its AF_INET/AF_INET6 socket() and the socket
 * calls that name addresses or options (bind connect listen accept
 * accept4 getsockname getpeername getsockopt setsockopt, sendto/recvfrom
 * with an address, sendmsg recvmsg sendmmsg recvmmsg) to a listener
 * descriptor; io_uring_setup fails with ENOSYS; every other call, and
 * every call on a descriptor that is not an emulated socket, runs in the
 * kernel as without us. The data path of a connected socket (read, write,
 * send and recv without an address) never reaches the supervisor.
 *
 * The supervisor (sup_loop.c, in a process of its own or a thread of
 * cwrap's) answers each call by making it itself with socket_wrapper's own
 * logic (src/socket_wrapper, linked in: one implementation of the names,
 * interfaces, ports, groups and capture) on a copy of the program's
 * descriptor (pidfd_getfd), reading and writing the program's memory
 * (process_vm_readv/writev), and installs new sockets in the program
 * (SECCOMP_IOCTL_NOTIF_ADDFD). It keeps no reference to a program's
 * socket between calls: a record per socket, found by the socket's inode
 * (sup_table.c), forgotten once no process holds the socket.
 *
 * Rooms: sup_filter.c (the
 * filter, the host's capabilities), sup_loop.c (notifications, threads,
 * process memory), sup_net.c (the socket calls), sup_table.c (records by
 * inode). It calls socket_wrapper's core through swrap.h and never its
 * exported libc names.
 */
#ifndef CWRAP_SUP_H
#define CWRAP_SUP_H

#include <stdbool.h>
#include <sys/types.h>

/* ---- for the launcher ------------------------------------------------- */

/* (Which programs need it: cwrap_elf_kind(), src/common/cwrap_supervise.h) */

/* What this host lacks for supervision, in a few words ("Linux 5.14 or
 * later (seccomp user notification with SECCOMP_ADDFD_FLAG_SEND)"), or
 * NULL when it has it all as far as can be told before trying. */
const char *sup_host_lacks(void);

/* In a child after fork(), before exec: install the filter on this
 * process (and its future children). Returns the listener descriptor, or
 * -errno (the calling process is unchanged then). The caller hands the
 * descriptor to the supervisor and closes its own copy before exec. */
int sup_filter_install(void);

/* A copy of process `pid`'s descriptor `fd` in this process
 * (pidfd_getfd(): close-on-exec), or -1 with errno. */
int sup_fd_of(pid_t pid, int fd);

/* Serve the listener in a new thread of this process until no supervised
 * process remains. 0, or an errno. */
int sup_serve_start(int listener);
/* Wait for that thread's end. */
void sup_serve_wait(void);
/* After the supervised command was reaped: when no process it started
 * lives on, wait for the serving thread to forget every socket (their
 * names removed); otherwise return at once. */
void sup_serve_finish(void);

/* ---- internal --------------------------------------------------------- */

#ifdef SUP_INTERNAL
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swrap.h"

/* One call a supervised process is waiting in. */
struct sup_call {
	int listener;
	struct seccomp_notif n;
	pid_t tgid;  /* its process */
	int pidfd;   /* of its process, -1 until needed */
	int fd;	     /* our copy of the descriptor it names, or -1 */
	struct swrap_sock *s; /* the record of that socket, or NULL */
};

/* sup_loop.c: answering */
/* Answer with a value (>= 0) or an error (-errno). */
void sup_reply(struct sup_call *c, long val);
/* Let the kernel carry out the call as it is (not ours). */
void sup_continue(struct sup_call *c);
/* Install our descriptor `fd` in the process (close-on-exec if
 * `cloexec`) as the call's result. 0, or -errno (the call is answered
 * with that error by the caller). */
int sup_reply_fd(struct sup_call *c, int fd, bool cloexec);
/* The call is still waited for (not interrupted, its process alive). */
bool sup_call_valid(const struct sup_call *c);
/* Copies in and out of the process's memory: 0 or -EFAULT. */
int sup_read(const struct sup_call *c, uint64_t addr, void *buf, size_t n);
int sup_write(const struct sup_call *c, uint64_t addr, const void *buf,
	      size_t n);
/* Our copy of the process's descriptor `fd` into c->fd: 0 or -errno
 * (-EBADF: no such descriptor). */
int sup_take_fd(struct sup_call *c, int fd);
/* Wait until our copy c->fd is ready for `events` (POLLIN/POLLOUT),
 * while the call is still waited for: 0, or -EINTR when the call went
 * away, -EAGAIN when `timeout_ms` (>= 0) passed. */
int sup_wait(struct sup_call *c, short events, long timeout_ms);

/* sup_net.c: the calls. sup_net_may_block() looks at the call (taking
 * our copy of its descriptor and its record into `c`): true when it may
 * have to wait for another process, and is then run in a thread of its
 * own. sup_net_call() answers it (sup_reply, sup_continue or
 * sup_reply_fd), every path. */
bool sup_net_may_block(struct sup_call *c);
void sup_net_call(struct sup_call *c);

/* sup_table.c: records by socket inode (a lock of its own). */
/* The record of the socket behind our copy `fd`, a reference taken for
 * the caller; NULL if it is not an emulated socket. */
struct swrap_sock *sup_table_get(int fd);
/* Remember `s` (our new socket `fd`), taking a reference of its own. */
void sup_table_add(int fd, struct swrap_sock *s);
/* Forget the sockets no process holds any more (all of them, at the
 * end: `all`). */
void sup_table_sweep(bool all);
#endif

#endif
