/*
 * Descriptors: close, dup, dup2, dup3, fcntl(F_DUPFD*), close_range,
 * closefrom, and the link between a descriptor number and its record when
 * the wrapper did not see the descriptor being made: adoption of sockets
 * inherited across exec or received with SCM_RIGHTS (rebuilt from the
 * names the kernel reports), and the check that a recorded descriptor is
 * still the socket it was (a descriptor closed behind our back by libc
 * internals and reused must not be mistaken for a socket).
 *
 * State lives in swrap_fdtab.c; this file holds no lock itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_platform.h"
#include "cwrap_syscall.h"
#include "swrap.h"
#include "swrap_libc.h"

/* The kernel identity of a record is learnt on its first check (creating
 * a socket costs no extra system call); from then on a different socket
 * under the same number is caught too. */
bool swrap_fd_same(int fd, struct swrap_sock *s)
{
	struct stat st;
	bool same;

	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		return false;
	}
	swrap_lock();
	if (s->ino == 0) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	same = s->ino == st.st_ino && s->dev == st.st_dev;
	swrap_unlock();
	return same;
}

struct swrap_sock *swrap_fd_find(int fd)
{
	struct swrap_sock *s = swrap_fdtab_raw(fd);

	/* A socket made before the program unset SOCKET_WRAPPER_DIR stays
	 * emulated; only adoption needs the wrapper enabled now. */
	if (s == SWRAP_NOT_OURS) {
		return NULL;
	}
	if (s != NULL) {
		return s;
	}
	return swrap_enabled() ? swrap_fd_adopt(fd) : NULL;
}

struct swrap_sock *swrap_fd_get(int fd)
{
	struct swrap_sock *s = swrap_fd_find(fd);

	if (s == NULL || cwrap_likely(swrap_fd_same(fd, s))) {
		return s;
	}
	CWRAP_DEBUG("fd %d was closed behind our back; forgetting it", fd);
	swrap_fdtab_clear(fd);
	return swrap_fd_adopt(fd);
}

static int sockopt_int(int fd, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (libc_getsockopt(fd, SOL_SOCKET, name, &v, &l) != 0) {
		return -1;
	}
	return v;
}

struct swrap_sock *swrap_fd_adopt(int fd)
{
	const struct swrap_conf *c = swrap_conf();
	struct sockaddr_un un, un_local;
	socklen_t ul;
	struct swrap_ep lep, pep;
	bool lok, pok;
	struct swrap_sock *s;
	struct stat st;
	int type, named, saved = errno;

	if (!c->enabled || fstat(fd, &st) != 0) {
		errno = saved;
		return NULL;
	}
	if (!S_ISSOCK(st.st_mode) || sockopt_int(fd, SO_DOMAIN) != AF_UNIX) {
		goto not_ours;
	}
	type = sockopt_int(fd, SO_TYPE);
	if (type != SOCK_STREAM && type != SOCK_DGRAM &&
	    type != SOCK_SEQPACKET) {
		goto not_ours;
	}
	/* A SOCK_SEQPACKET socket is a QUIC socket: named as UDP. */
	named = type == SOCK_STREAM ? SOCK_STREAM : SOCK_DGRAM;
	ul = sizeof(un);
	memset(&un, 0, sizeof(un));
	lok = libc_getsockname(fd, (struct sockaddr *)&un, &ul) == 0 &&
	      swrap_addr_from_unix(c, &un, ul, &lep) && lep.type == named;
	un_local = un;
	ul = sizeof(un);
	memset(&un, 0, sizeof(un));
	pok = libc_getpeername(fd, (struct sockaddr *)&un, &ul) == 0 &&
	      swrap_addr_from_unix(c, &un, ul, &pep) && pep.type == named;
	if (!lok && !pok) {
		goto not_ours;
	}
	/* Not counted against SOCKET_WRAPPER_MAX_SOCKETS: the descriptor
	 * exists already, and refusing would make it a plain unix socket. */
	s = swrap_sock_new(c, lok ? lep.family : pep.family, type, false);
	if (s == NULL) {
		errno = saved;
		return NULL;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if (type == SOCK_SEQPACKET) {
		/* (which type it was asked with, or whether it was a UDP
		 * client remade by the fallback, is not in the kernel) */
		s->protocol = SWRAP_IPPROTO_QUIC;
		s->shown_type = SOCK_DGRAM;
	}
	if (lok) {
		s->local_len = swrap_addr_encode(c, &lep, s->family, &s->local);
		s->flags |= SWRAP_SOCK_BOUND;
		s->bound_iface = lep.iface;
		/* Kept for accept(); unlink_pid 0: never removed by us. */
		s->path = un_local;
	}
	if (pok) {
		s->peer_len = swrap_addr_encode(c, &pep, s->family, &s->peer);
		s->flags |= SWRAP_SOCK_CONNECTED;
	}
	if (type != SOCK_DGRAM && sockopt_int(fd, SO_ACCEPTCONN) == 1) {
		s->flags |= SWRAP_SOCK_LISTENING;
	}
	if (swrap_fdtab_set(fd, s) != 0) {
		swrap_sock_unref(s);
		errno = saved;
		return NULL;
	}
	CWRAP_DEBUG("fd %d adopted as an emulated %s socket", fd,
		    type == SOCK_STREAM	 ? "TCP"
		    : type == SOCK_DGRAM ? "UDP"
					 : "QUIC");
	errno = saved;
	return s;

not_ours:
	/* Authoritative: whatever the slot held is forgotten. */
	swrap_fdtab_clear(fd);
	swrap_fdtab_mark_not_ours(fd);
	errno = saved;
	return NULL;
}

void swrap_fd_renewed(struct swrap_sock *s, const struct swrap_ep *peer)
{
	swrap_lock();
	s->dev = 0;
	s->ino = 0;
	swrap_unlock();
	if (peer != NULL) {
		swrap_sock_set_peer(s, peer);
	}
}

void swrap_fd_name(const struct swrap_conf *c, int fd,
		   const struct swrap_ep *ep)
{
	static unsigned seq;
	struct sockaddr_un un, mb;
	socklen_t ulen;

	swrap_addr_unix(c, ep, &un);
	for (int tries = 0; tries < 8; tries++) {
		unsigned k =
		    100000u + ((unsigned)getpid() % 40000u) * 16u +
		    (__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED) % 16u);

		ulen = swrap_addr_unix_member(c, &un, k, &mb);
		if (ulen == 0) {
			return;
		}
		if (libc_bind(fd, (struct sockaddr *)&mb, ulen) == 0) {
			unlink(mb.sun_path);
			return;
		}
		if (errno != EADDRINUSE) {
			return;
		}
	}
}

int swrap_close(int fd)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);
	struct sockaddr_un path;
	const struct swrap_conf *c = NULL;
	bool shared = false;
	int rc, type = 0;

	if (s != NULL && ((s->flags & SWRAP_SOCK_GROUP) ||
			  (shared = swrap_sock_name_shared(s)))) {
		/* Its names are looked at once the kernel closed it: a
		 * group member's, and a name bound before a fork (the
		 * other process may hold the socket still; the last one
		 * to close it removes the name). */
		c = s->conf;
		path = s->path;
		type = s->type;
	}
	swrap_fdtab_clear(fd);
	rc = libc_close(fd);
	if (shared) {
		swrap_sock_name_closed(c, &path, type);
	} else if (c != NULL) {
		swrap_group_closed(c, &path);
	}
	return rc;
}

/* Before the kernel copies a descriptor that names `s` to `newfd` (-1:
 * the lowest free number): the new descriptor's reference, refused with
 * ENFILE past SOCKET_WRAPPER_MAX_SOCKETS unless `newfd` names an emulated
 * socket already (its reference goes away). */
static int reserve_copy(struct swrap_sock *s, int newfd)
{
	if (s == NULL) {
		return 0;
	}
	return swrap_sock_ref(s, newfd < 0 || swrap_fdtab_peek(newfd) == NULL);
}

/* After the kernel made `newfd` a copy of the descriptor that named `s`
 * (its reference taken by reserve_copy). */
static int copied(int newfd, struct swrap_sock *s)
{
	if (newfd < 0) {
		if (s != NULL) {
			int e = errno;

			swrap_sock_unref(s);
			errno = e;
		}
		return newfd;
	}
	if (s == NULL) {
		swrap_fdtab_clear(newfd);
		return newfd;
	}
	if (swrap_fdtab_set(newfd, s) != 0) {
		swrap_sock_unref(s);
		libc_close(newfd);
		errno = EMFILE;
		return -1;
	}
	return newfd;
}

int swrap_dup(int fd)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (reserve_copy(s, -1) != 0) {
		return -1;
	}
	return copied(libc_dup(fd), s);
}

int swrap_dup2(int oldfd, int newfd)
{
	struct swrap_sock *s = swrap_fdtab_peek(oldfd);

	if (oldfd == newfd) {
		return libc_dup2(oldfd, newfd);
	}
	if (reserve_copy(s, newfd) != 0) {
		return -1;
	}
	return copied(libc_dup2(oldfd, newfd), s);
}

int swrap_dup3(int oldfd, int newfd, int flags)
{
	struct swrap_sock *s = swrap_fdtab_peek(oldfd);

	if (oldfd == newfd) {
		return libc_dup3(oldfd, newfd, flags);
	}
	if (reserve_copy(s, newfd) != 0) {
		return -1;
	}
	return copied(libc_dup3(oldfd, newfd, flags), s);
}

int swrap_fcntl(int fd, int cmd, void *arg, bool is64)
{
	int (*fn)(int, int, ...) = is64 ? libc_ptr_fcntl64() : libc_ptr_fcntl();
	struct swrap_sock *s;

	if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) {
		return fn(fd, cmd, arg);
	}
	s = swrap_fdtab_peek(fd);
	if (reserve_copy(s, -1) != 0) {
		return -1;
	}
	return copied(fn(fd, cmd, arg), s);
}

/* The kernel's close_range(), through libc's function where it has one
 * (a program's preloaded wrappers of it come first), else the system call. */
static int real_close_range(unsigned lo, unsigned hi, int flags)
{
#ifdef HAVE_CLOSE_RANGE
	return libc_close_range(lo, hi, flags);
#else
	const long a[6] = {(long)lo, (long)hi, (long)flags};

	return (int)cwrap_syscall_next(SYS_close_range, a);
#endif
}

int swrap_close_range(unsigned lo, unsigned hi, int flags)
{
	int rc = real_close_range(lo, hi, flags);

	if (rc == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) {
		swrap_fdtab_clear_range(lo, hi);
	}
	return rc;
}

void swrap_closefrom(int lo)
{
#ifdef HAVE_CLOSEFROM
	libc_closefrom(lo);
#else
	if (lo >= 0) {
		(void)real_close_range((unsigned)lo, UINT_MAX, 0);
	}
#endif
	if (lo >= 0) {
		swrap_fdtab_clear_range((unsigned)lo, UINT_MAX);
	}
}

void swrap_indicate_no_inet_fd(int fd)
{
	swrap_fdtab_clear(fd);
	swrap_fdtab_mark_not_ours(fd);
}
