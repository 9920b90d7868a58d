/*
 * The exported names: each decides "is this descriptor an emulated
 * socket?" and calls the logic, or the real function untouched. For the
 * data calls (read, write, ...) that is one lock-free table lookup; the
 * calls that act on socket state check the record against the kernel
 * (swrap_fd_get). syscall() sends the socket and descriptor numbers to
 * the same names, so that programs making those calls through it (libuv,
 * for example) meet the emulation, hands uid_wrapper's numbers to
 * uid_wrapper_syscall_va() (the cross-library protocol, which
 * socket_wrapper_syscall_valid/_va answer from the other side) and passes
 * every other number to the next syscall() in the chain (uid_wrapper's,
 * or libc's). No state of its own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#ifdef SYS_socketcall
#include <linux/net.h>
#endif
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cwrap_compiler.h"
#include "cwrap_platform.h"
#include "cwrap_syscall.h"
#include "socket_wrapper.h"
#include "swrap.h"
#include "swrap_libc.h"

/* glibc declares the sockaddr arguments as __SOCKADDR_ARG, transparent
 * unions under _GNU_SOURCE; other libraries as plain pointers. SA() gives
 * the plain pointer either way. */
/* The 64-bit file offset of splice() and friends: glibc's __off64_t, or
 * off_t, 64 bits wide where there is no other (musl). */
#ifdef HAVE___OFF64_T
#define SWRAP_OFF64_T __off64_t
#else
#define SWRAP_OFF64_T off_t
#endif

#ifdef HAVE___SOCKADDR_ARG
#define SWRAP_SOCKADDR_ARG __SOCKADDR_ARG
#define SWRAP_CONST_SOCKADDR_ARG __CONST_SOCKADDR_ARG
#else
#define SWRAP_SOCKADDR_ARG struct sockaddr *restrict
#define SWRAP_CONST_SOCKADDR_ARG const struct sockaddr *
#endif
#if defined(__USE_GNU) && !defined(__cplusplus)
#define SA(a) ((a).__sockaddr__)
#else
#define SA(a) (a)
#endif

#ifdef HAVE___CHK_FAIL
/* The fortified variants programs built with _FORTIFY_SOURCE call. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
		       SWRAP_SOCKADDR_ARG addr, socklen_t *len);
#endif

/* The cross-library syscall() protocol (cwrap_syscall.h). */
CWRAP_EXPORT bool socket_wrapper_syscall_valid(long nr);
CWRAP_EXPORT long socket_wrapper_syscall_va(long nr, va_list ap);

CWRAP_EXPORT bool socket_wrapper_enabled(void)
{
	return swrap_enabled();
}

CWRAP_EXPORT void socket_wrapper_indicate_no_inet_fd(int fd)
{
	if (swrap_enabled()) {
		swrap_indicate_no_inet_fd(fd);
	}
}

CWRAP_EXPORT int socket(int family, int type, int protocol)
{
	const struct swrap_conf *c = swrap_conf();
	int fd;

	if (c->enabled) {
		return swrap_socket(c, family, type, protocol);
	}
	/* SOCKET_WRAPPER_DIR unset (perhaps since the last socket): a real
	 * socket, in a slot that may still remember an emulated one closed
	 * behind our back. */
	fd = libc_socket(family, type, protocol);
	if (fd >= 0) {
		swrap_fdtab_clear(fd);
	}
	return fd;
}

CWRAP_EXPORT int socket_wrapper_ipproto_quic_socket(int family, int type)
{
	return swrap_quic_socket(swrap_conf(), family, type);
}

CWRAP_EXPORT int socketpair(int family, int type, int protocol, int sv[2])
{
	int rc = libc_socketpair(family, type, protocol, sv);

	if (rc == 0) {
		swrap_fdtab_clear(sv[0]);
		swrap_fdtab_clear(sv[1]);
	}
	return rc;
}

CWRAP_EXPORT int bind(int fd, SWRAP_CONST_SOCKADDR_ARG addr, socklen_t len)
{
	struct swrap_sock *s = swrap_fd_find(fd);
	int rc;

	if (s == NULL) {
		return libc_bind(fd, SA(addr), len);
	}
	rc = swrap_bind(s, fd, SA(addr), len);
	if (rc < 0 && errno == ENOTSOCK) {
		swrap_fdtab_clear(fd);
		return libc_bind(fd, SA(addr), len);
	}
	return rc;
}

#ifdef HAVE_BINDRESVPORT
CWRAP_EXPORT int bindresvport(int fd, struct sockaddr_in *sin)
{
	struct swrap_sock *s = swrap_fd_get(fd);

	if (s == NULL) {
		return libc_bindresvport(fd, sin);
	}
	return swrap_bindresvport(s, fd, sin);
}
#endif

CWRAP_EXPORT int listen(int fd, int backlog)
{
	struct swrap_sock *s = swrap_fd_find(fd);
	int rc;

	if (s == NULL) {
		return libc_listen(fd, backlog);
	}
	rc = swrap_listen(s, fd, backlog);
	if (rc < 0 && errno == ENOTSOCK) {
		swrap_fdtab_clear(fd);
		return libc_listen(fd, backlog);
	}
	return rc;
}

CWRAP_EXPORT int connect(int fd, SWRAP_CONST_SOCKADDR_ARG addr, socklen_t len)
{
	struct swrap_sock *s = swrap_fd_find(fd);
	int rc;

	if (s == NULL) {
		return libc_connect(fd, SA(addr), len);
	}
	rc = swrap_connect(s, fd, SA(addr), len);
	if (rc < 0 && errno == ENOTSOCK) {
		swrap_fdtab_clear(fd);
		return libc_connect(fd, SA(addr), len);
	}
	return rc;
}

CWRAP_EXPORT int accept4(int fd, SWRAP_SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	struct swrap_sock *s = swrap_fd_find(fd);
	int nfd;

	if (s != NULL) {
		nfd = swrap_accept(s, fd, SA(addr), len, flags);
		if (nfd >= 0 || errno != ENOTSOCK) {
			return nfd;
		}
		swrap_fdtab_clear(fd);
	}
	nfd = libc_accept4(fd, SA(addr), len, flags);
	if (nfd >= 0) {
		swrap_fdtab_clear(nfd);
	}
	return nfd;
}

CWRAP_EXPORT int accept(int fd, SWRAP_SOCKADDR_ARG addr, socklen_t *len)
{
	struct swrap_sock *s = swrap_fd_find(fd);
	int nfd;

	if (s != NULL) {
		nfd = swrap_accept(s, fd, SA(addr), len, 0);
		if (nfd >= 0 || errno != ENOTSOCK) {
			return nfd;
		}
		swrap_fdtab_clear(fd);
	}
	nfd = libc_accept(fd, SA(addr), len);
	if (nfd >= 0) {
		swrap_fdtab_clear(nfd);
	}
	return nfd;
}

CWRAP_EXPORT int getsockname(int fd, SWRAP_SOCKADDR_ARG addr, socklen_t *len)
{
	struct swrap_sock *s = swrap_fd_get(fd);

	if (s == NULL) {
		return libc_getsockname(fd, SA(addr), len);
	}
	return swrap_getsockname(s, SA(addr), len);
}

CWRAP_EXPORT int getpeername(int fd, SWRAP_SOCKADDR_ARG addr, socklen_t *len)
{
	struct swrap_sock *s = swrap_fd_get(fd);

	if (s == NULL) {
		return libc_getpeername(fd, SA(addr), len);
	}
	return swrap_getpeername(s, SA(addr), len);
}

CWRAP_EXPORT int getsockopt(int fd, int level, int name, void *val,
			    socklen_t *len)
{
	struct swrap_sock *s = swrap_fd_get(fd);

	if (s == NULL) {
		return libc_getsockopt(fd, level, name, val, len);
	}
	return swrap_getsockopt(s, fd, level, name, val, len);
}

CWRAP_EXPORT int setsockopt(int fd, int level, int name, const void *val,
			    socklen_t len)
{
	struct swrap_sock *s = swrap_fd_get(fd);

	if (s == NULL) {
		return libc_setsockopt(fd, level, name, val, len);
	}
	return swrap_setsockopt(s, fd, level, name, val, len);
}

CWRAP_EXPORT int shutdown(int fd, int how)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (s == NULL) {
		return libc_shutdown(fd, how);
	}
	return swrap_shutdown(s, fd, how);
}

CWRAP_EXPORT int ioctl(int fd, CWRAP_IOCTL_REQ req, ...)
{
	va_list ap;
	void *arg;

	/* Every ioctl means the same on the unix socket (FIONREAD,
	 * FIONBIO, SIOCOUTQ...): passed through for all descriptors. */
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return libc_ptr_ioctl()(fd, req, arg);
}

/* ---- data -------------------------------------------------------------- */

CWRAP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL)) {
		return libc_read(fd, buf, n);
	}
	return swrap_read(s, fd, buf, n);
}

#ifdef HAVE___CHK_FAIL
CWRAP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL) || n > buflen) {
		return libc___read_chk(fd, buf, n, buflen);
	}
	return swrap_read(s, fd, buf, n);
}
#endif

CWRAP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL)) {
		return libc_write(fd, buf, n);
	}
	return swrap_write(s, fd, buf, n);
}

CWRAP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL)) {
		return libc_readv(fd, iov, cnt);
	}
	return swrap_readv(s, fd, iov, cnt);
}

CWRAP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL)) {
		return libc_writev(fd, iov, cnt);
	}
	return swrap_writev(s, fd, iov, cnt);
}

/* Copies the kernel makes (swrap_copy.c): through the wrapper's own
 * send and receive while capture or SOCKET_WRAPPER_FAULTS is in force,
 * so that both see them; otherwise untouched. */
static ssize_t sendfile_with(int out, int in, int64_t *off, size_t n)
{
	return swrap_sendfile(swrap_fdtab_peek(out), out, in, off, n);
}

CWRAP_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	int64_t o;
	ssize_t r;

	if (cwrap_likely(swrap_fdtab_peek(out) == NULL) ||
	    !swrap_copy_watched()) {
		return libc_sendfile(out, in, off, n);
	}
	if (off == NULL) {
		return sendfile_with(out, in, NULL, n);
	}
	o = *off;
	r = sendfile_with(out, in, &o, n);
	*off = (off_t)o;
	return r;
}

#ifdef HAVE_SENDFILE64_FUNCTION
CWRAP_EXPORT ssize_t sendfile64(int out, int in, SWRAP_OFF64_T *off, size_t n)
{
	if (cwrap_likely(swrap_fdtab_peek(out) == NULL) ||
	    !swrap_copy_watched()) {
		return libc_sendfile64(out, in, off, n);
	}
	return sendfile_with(out, in, (int64_t *)off, n);
}
#endif

CWRAP_EXPORT ssize_t splice(int in, SWRAP_OFF64_T *oin, int out, SWRAP_OFF64_T *oout,
			    size_t n, unsigned flags)
{
	struct swrap_sock *si = swrap_fdtab_peek(in);
	struct swrap_sock *so = swrap_fdtab_peek(out);

	if (cwrap_likely(si == NULL && so == NULL) || !swrap_copy_watched() ||
	    oin != NULL || oout != NULL || (si != NULL && so != NULL)) {
		return libc_splice(in, oin, out, oout, n, flags);
	}
	return si != NULL ? swrap_splice_from(si, in, out, n, flags)
			  : swrap_splice_to(so, in, out, n, flags);
}

#ifdef HAVE_PREADV2
CWRAP_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL) || off != -1) {
		return libc_preadv2(fd, iov, cnt, off, flags);
	}
	return swrap_rwv2(s, fd, iov, cnt, flags, false);
}

CWRAP_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int cnt,
			      off_t off, int flags)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL) || off != -1) {
		return libc_pwritev2(fd, iov, cnt, off, flags);
	}
	return swrap_rwv2(s, fd, iov, cnt, flags, true);
}

CWRAP_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt,
				SWRAP_OFF64_T off, int flags)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL) || off != -1) {
		return libc_preadv64v2(fd, iov, cnt, off, flags);
	}
	return swrap_rwv2(s, fd, iov, cnt, flags, false);
}

CWRAP_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt,
				 SWRAP_OFF64_T off, int flags)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s == NULL) || off != -1) {
		return libc_pwritev64v2(fd, iov, cnt, off, flags);
	}
	return swrap_rwv2(s, fd, iov, cnt, flags, true);
}
#endif

/* Send/receive calls are socket calls: a descriptor we have not seen may
 * be an emulated socket inherited across exec, so they adopt. */
static struct swrap_sock *sock_of(int fd)
{
	struct swrap_sock *s = swrap_fdtab_peek(fd);

	if (cwrap_likely(s != NULL) || swrap_fdtab_raw(fd) == SWRAP_NOT_OURS ||
	    !swrap_enabled()) {
		return s;
	}
	return swrap_fd_adopt(fd);
}

CWRAP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_send(fd, buf, n, flags);
	}
	return swrap_sendto(s, fd, buf, n, flags, NULL, 0);
}

CWRAP_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_recv(fd, buf, n, flags);
	}
	return swrap_recvfrom(s, fd, buf, n, flags, NULL, NULL);
}

#ifdef HAVE___CHK_FAIL
CWRAP_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen,
				int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL || n > buflen) {
		return libc___recv_chk(fd, buf, n, buflen, flags);
	}
	return swrap_recvfrom(s, fd, buf, n, flags, NULL, NULL);
}
#endif

CWRAP_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			    SWRAP_CONST_SOCKADDR_ARG addr, socklen_t len)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_sendto(fd, buf, n, flags, SA(addr), len);
	}
	return swrap_sendto(s, fd, buf, n, flags, SA(addr), len);
}

CWRAP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			      SWRAP_SOCKADDR_ARG addr, socklen_t *len)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_recvfrom(fd, buf, n, flags, SA(addr), len);
	}
	return swrap_recvfrom(s, fd, buf, n, flags, SA(addr), len);
}

#ifdef HAVE___CHK_FAIL
CWRAP_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen,
				    int flags, SWRAP_SOCKADDR_ARG addr,
				    socklen_t *len)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL || n > buflen) {
		return libc___recvfrom_chk(fd, buf, n, buflen, flags, SA(addr),
					   len);
	}
	return swrap_recvfrom(s, fd, buf, n, flags, SA(addr), len);
}
#endif

CWRAP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_sendmsg(fd, msg, flags);
	}
	return swrap_sendmsg(s, fd, msg, flags);
}

/* recvmsg() and __recvmsg64(), which differ in the libc function only. */
static inline ssize_t recvmsg_with(ssize_t (*real)(int, struct msghdr *, int),
				   int fd, struct msghdr *msg, int flags)
{
	struct swrap_sock *s = sock_of(fd);
	ssize_t r;

	if (s == NULL) {
		r = real(fd, msg, flags);
		/* Emulated sockets often travel over plain unix sockets. */
		if (r >= 0 && msg->msg_controllen != 0 && swrap_enabled()) {
			swrap_cmsg_adopt_rights(msg);
		}
		return r;
	}
	return swrap_recvmsg(s, fd, msg, flags);
}

CWRAP_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return recvmsg_with(libc_recvmsg, fd, msg, flags);
}

CWRAP_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen,
			  CWRAP_MMSG_FLAGS flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc_sendmmsg(fd, vec, vlen, flags);
	}
	return swrap_sendmmsg(s, fd, vec, vlen, flags);
}

/* A recvmmsg() past the wrapper: emulated sockets passed in the
 * messages are adopted. */
static int recvmmsg_adopt(int r, struct mmsghdr *vec)
{
	if (r > 0 && swrap_enabled()) {
		for (int i = 0; i < r; i++) {
			swrap_cmsg_adopt_rights(&vec[i].msg_hdr);
		}
	}
	return r;
}

CWRAP_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen,
			  CWRAP_MMSG_FLAGS flags, struct timespec *timeout)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return recvmmsg_adopt(
		    libc_recvmmsg(fd, vec, vlen, flags, timeout), vec);
	}
	return swrap_recvmmsg(s, fd, vec, vlen, flags, timeout);
}

/* ---- 32-bit programs built with 64-bit time_t ----------------------------
 * On i386, glibc 2.34+ gives programs built with _TIME_BITS=64 other names
 * for the calls whose arguments may carry times. The messages are the
 * same; SO_RCVTIMEO and friends reach the kernel as the program gave them
 * (its headers chose the _NEW option numbers), and a recvmmsg() timeout
 * is a 64-bit timespec. */
#ifdef HAVE_TIME64_ALIASES
struct swrap_timespec64 {
	int64_t tv_sec;
	int32_t tv_nsec;
	int32_t pad;
};

ssize_t __sendmsg64(int fd, const struct msghdr *msg, int flags);
ssize_t __recvmsg64(int fd, struct msghdr *msg, int flags);
int __sendmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen, int flags);
int __recvmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		 struct swrap_timespec64 *timeout);
int __getsockopt64(int fd, int level, int name, void *val, socklen_t *len);
int __setsockopt64(int fd, int level, int name, const void *val, socklen_t len);
int __fcntl_time64(int fd, int cmd, ...);

CWRAP_EXPORT ssize_t __sendmsg64(int fd, const struct msghdr *msg, int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc___sendmsg64(fd, msg, flags);
	}
	return swrap_sendmsg(s, fd, msg, flags);
}

CWRAP_EXPORT ssize_t __recvmsg64(int fd, struct msghdr *msg, int flags)
{
	return recvmsg_with(libc___recvmsg64, fd, msg, flags);
}

CWRAP_EXPORT int __sendmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen,
			      int flags)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc___sendmmsg64(fd, vec, vlen, flags);
	}
	return swrap_sendmmsg(s, fd, vec, vlen, flags);
}

CWRAP_EXPORT int __recvmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen,
			      int flags, struct swrap_timespec64 *timeout)
{
	struct swrap_sock *s = sock_of(fd);
	struct timespec ts;

	if (s == NULL) {
		return recvmmsg_adopt(
		    libc___recvmmsg64(fd, vec, vlen, flags, timeout), vec);
	}
	if (timeout == NULL) {
		return swrap_recvmmsg(s, fd, vec, vlen, flags, NULL);
	}
	if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
	    timeout->tv_nsec >= 1000000000) {
		errno = EINVAL;
		return -1;
	}
	/* (a timeout past 2038 waits until then) */
	ts.tv_sec =
	    timeout->tv_sec > INT32_MAX ? INT32_MAX : (time_t)timeout->tv_sec;
	ts.tv_nsec = timeout->tv_nsec;
	return swrap_recvmmsg(s, fd, vec, vlen, flags, &ts);
}

CWRAP_EXPORT int __getsockopt64(int fd, int level, int name, void *val,
				socklen_t *len)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc___getsockopt64(fd, level, name, val, len);
	}
	return swrap_getsockopt(s, fd, level, name, val, len);
}

CWRAP_EXPORT int __setsockopt64(int fd, int level, int name, const void *val,
				socklen_t len)
{
	struct swrap_sock *s = sock_of(fd);

	if (s == NULL) {
		return libc___setsockopt64(fd, level, name, val, len);
	}
	return swrap_setsockopt(s, fd, level, name, val, len);
}

/* (the same function as fcntl64 in glibc) */
CWRAP_EXPORT int __fcntl_time64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return swrap_fcntl(fd, cmd, arg, true);
}
#endif

/* ---- descriptors --------------------------------------------------------- */

CWRAP_EXPORT int close(int fd)
{
	if (cwrap_likely(swrap_fdtab_raw(fd) == NULL)) {
		return libc_close(fd);
	}
	return swrap_close(fd);
}

#ifdef HAVE_CLOSE_RANGE
CWRAP_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	return swrap_close_range(lo, hi, flags);
}
#endif

#ifdef HAVE_CLOSEFROM
CWRAP_EXPORT void closefrom(int lo)
{
	swrap_closefrom(lo);
}
#endif

CWRAP_EXPORT int dup(int fd)
{
	return swrap_dup(fd);
}

CWRAP_EXPORT int dup2(int oldfd, int newfd)
{
	return swrap_dup2(oldfd, newfd);
}

CWRAP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	return swrap_dup3(oldfd, newfd, flags);
}

CWRAP_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return swrap_fcntl(fd, cmd, arg, false);
}

#ifdef HAVE_FCNTL64
CWRAP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return swrap_fcntl(fd, cmd, arg, true);
}
#endif

/* ---- syscall(): the socket and descriptor numbers, the rest untouched ---- */

/* The entry points above, under hidden names for syscall() below
 * (CWRAP_HIDDEN_ALIAS: never a call through an exported name inside). */
#define ENTRY_ALIAS(name) CWRAP_HIDDEN_ALIAS(name, entry_##name)
ENTRY_ALIAS(socket);
ENTRY_ALIAS(socketpair);
ENTRY_ALIAS(bind);
ENTRY_ALIAS(listen);
ENTRY_ALIAS(connect);
ENTRY_ALIAS(accept);
ENTRY_ALIAS(accept4);
ENTRY_ALIAS(getsockname);
ENTRY_ALIAS(getpeername);
ENTRY_ALIAS(setsockopt);
ENTRY_ALIAS(getsockopt);
ENTRY_ALIAS(shutdown);
ENTRY_ALIAS(send);
ENTRY_ALIAS(recv);
ENTRY_ALIAS(sendto);
ENTRY_ALIAS(recvfrom);
ENTRY_ALIAS(sendmsg);
ENTRY_ALIAS(recvmsg);
ENTRY_ALIAS(sendmmsg);
ENTRY_ALIAS(recvmmsg);
ENTRY_ALIAS(read);
ENTRY_ALIAS(write);
ENTRY_ALIAS(readv);
ENTRY_ALIAS(writev);
ENTRY_ALIAS(sendfile);
ENTRY_ALIAS(splice);
ENTRY_ALIAS(close);
ENTRY_ALIAS(dup);
ENTRY_ALIAS(dup2);
ENTRY_ALIAS(dup3);
#ifdef HAVE_SENDFILE64_FUNCTION
ENTRY_ALIAS(sendfile64);
#endif

#define ARG(T, i) ((T)(uintptr_t)a[i])

/* SYS_recvmmsg's timeout is the kernel's timespec of the word size (two
 * 32-bit words on i386); SYS_recvmmsg_time64's is two 64-bit words. */
static long sys_recvmmsg(const long a[6], bool time64)
{
	struct timespec ts, *t = NULL;

	if (a[4] != 0) {
		if (time64) {
			const int64_t *k = ARG(const int64_t *, 4);

			ts.tv_sec = (time_t)k[0];
			ts.tv_nsec = (long)k[1];
		} else {
			const long *k = ARG(const long *, 4);

			ts.tv_sec = (time_t)k[0];
			ts.tv_nsec = k[1];
		}
		t = &ts;
	}
	return entry_recvmmsg(ARG(int, 0), ARG(struct mmsghdr *, 1),
			      ARG(unsigned int, 2), ARG(int, 3), t);
}

#ifdef SYS_socketcall
/* i386's multiplexed socket call, socketcall(call, args): the arguments
 * are in the array, as many as the call takes (the kernel reads no
 * more), and go to the same names as the direct numbers. */
static long sys_socketcall(long call, const unsigned long *args)
{
	static const unsigned char nargs[] = {
	    [SYS_SOCKET] = 3,	   [SYS_BIND] = 3,	 [SYS_CONNECT] = 3,
	    [SYS_LISTEN] = 2,	   [SYS_ACCEPT] = 3,	 [SYS_GETSOCKNAME] = 3,
	    [SYS_GETPEERNAME] = 3, [SYS_SOCKETPAIR] = 4, [SYS_SEND] = 4,
	    [SYS_RECV] = 4,	   [SYS_SENDTO] = 6,	 [SYS_RECVFROM] = 6,
	    [SYS_SHUTDOWN] = 2,	   [SYS_SETSOCKOPT] = 5, [SYS_GETSOCKOPT] = 5,
	    [SYS_SENDMSG] = 3,	   [SYS_RECVMSG] = 3,	 [SYS_ACCEPT4] = 4,
	    [SYS_RECVMMSG] = 5,	   [SYS_SENDMMSG] = 4,
	};
	long a[6] = {0};

	for (unsigned i = 0; i < nargs[call]; i++) {
		a[i] = (long)args[i];
	}
	switch (call) {
	case SYS_SOCKET:
		return entry_socket(ARG(int, 0), ARG(int, 1), ARG(int, 2));
	case SYS_BIND:
		return entry_bind(ARG(int, 0), ARG(const struct sockaddr *, 1),
				  ARG(socklen_t, 2));
	case SYS_CONNECT:
		return entry_connect(ARG(int, 0),
				     ARG(const struct sockaddr *, 1),
				     ARG(socklen_t, 2));
	case SYS_LISTEN:
		return entry_listen(ARG(int, 0), ARG(int, 1));
	case SYS_ACCEPT:
		return entry_accept(ARG(int, 0), ARG(struct sockaddr *, 1),
				    ARG(socklen_t *, 2));
	case SYS_GETSOCKNAME:
		return entry_getsockname(ARG(int, 0), ARG(struct sockaddr *, 1),
					 ARG(socklen_t *, 2));
	case SYS_GETPEERNAME:
		return entry_getpeername(ARG(int, 0), ARG(struct sockaddr *, 1),
					 ARG(socklen_t *, 2));
	case SYS_SOCKETPAIR:
		return entry_socketpair(ARG(int, 0), ARG(int, 1), ARG(int, 2),
					ARG(int *, 3));
	case SYS_SEND:
		return entry_send(ARG(int, 0), ARG(const void *, 1),
				  ARG(size_t, 2), ARG(int, 3));
	case SYS_RECV:
		return entry_recv(ARG(int, 0), ARG(void *, 1), ARG(size_t, 2),
				  ARG(int, 3));
	case SYS_SENDTO:
		return entry_sendto(ARG(int, 0), ARG(const void *, 1),
				    ARG(size_t, 2), ARG(int, 3),
				    ARG(const struct sockaddr *, 4),
				    ARG(socklen_t, 5));
	case SYS_RECVFROM:
		return entry_recvfrom(
		    ARG(int, 0), ARG(void *, 1), ARG(size_t, 2), ARG(int, 3),
		    ARG(struct sockaddr *, 4), ARG(socklen_t *, 5));
	case SYS_SHUTDOWN:
		return entry_shutdown(ARG(int, 0), ARG(int, 1));
	case SYS_SETSOCKOPT:
		return entry_setsockopt(ARG(int, 0), ARG(int, 1), ARG(int, 2),
					ARG(const void *, 3),
					ARG(socklen_t, 4));
	case SYS_GETSOCKOPT:
		return entry_getsockopt(ARG(int, 0), ARG(int, 1), ARG(int, 2),
					ARG(void *, 3), ARG(socklen_t *, 4));
	case SYS_SENDMSG:
		return entry_sendmsg(ARG(int, 0), ARG(const struct msghdr *, 1),
				     ARG(int, 2));
	case SYS_RECVMSG:
		return entry_recvmsg(ARG(int, 0), ARG(struct msghdr *, 1),
				     ARG(int, 2));
	case SYS_ACCEPT4:
		return entry_accept4(ARG(int, 0), ARG(struct sockaddr *, 1),
				     ARG(socklen_t *, 2), ARG(int, 3));
	case SYS_RECVMMSG:
		return sys_recvmmsg(a, false);
	default: /* SYS_SENDMMSG */
		return entry_sendmmsg(ARG(int, 0), ARG(struct mmsghdr *, 1),
				      ARG(unsigned int, 2), ARG(int, 3));
	}
}
#endif

/* The socket and descriptor numbers go to the names above (*ours set);
 * any other returns with *ours false. With `run` false nothing is called,
 * only *ours set (socket_wrapper_syscall_valid): one list says both.
 * Uninstrumented, as syscall(): only a number of ours reaches
 * instrumented code. */
#define RUN(call) return run ? (long)(call) : 0
CWRAP_NO_SANITIZE static long sys_socket_call(long nr, const long a[6],
					      bool run, bool *ours)
{
	*ours = true;
	switch (nr) {
#ifdef SYS_socket
	case SYS_socket:
		RUN(entry_socket(ARG(int, 0), ARG(int, 1), ARG(int, 2)));
#endif
#ifdef SYS_socketpair
	case SYS_socketpair:
		RUN(entry_socketpair(ARG(int, 0), ARG(int, 1), ARG(int, 2),
				     ARG(int *, 3)));
#endif
#ifdef SYS_bind
	case SYS_bind:
		RUN(entry_bind(ARG(int, 0), ARG(const struct sockaddr *, 1),
			       ARG(socklen_t, 2)));
#endif
#ifdef SYS_listen
	case SYS_listen:
		RUN(entry_listen(ARG(int, 0), ARG(int, 1)));
#endif
#ifdef SYS_connect
	case SYS_connect:
		RUN(entry_connect(ARG(int, 0), ARG(const struct sockaddr *, 1),
				  ARG(socklen_t, 2)));
#endif
#ifdef SYS_accept
	case SYS_accept:
		RUN(entry_accept(ARG(int, 0), ARG(struct sockaddr *, 1),
				 ARG(socklen_t *, 2)));
#endif
#ifdef SYS_accept4
	case SYS_accept4:
		RUN(entry_accept4(ARG(int, 0), ARG(struct sockaddr *, 1),
				  ARG(socklen_t *, 2), ARG(int, 3)));
#endif
#ifdef SYS_getsockname
	case SYS_getsockname:
		RUN(entry_getsockname(ARG(int, 0), ARG(struct sockaddr *, 1),
				      ARG(socklen_t *, 2)));
#endif
#ifdef SYS_getpeername
	case SYS_getpeername:
		RUN(entry_getpeername(ARG(int, 0), ARG(struct sockaddr *, 1),
				      ARG(socklen_t *, 2)));
#endif
#ifdef SYS_setsockopt
	case SYS_setsockopt:
		RUN(entry_setsockopt(ARG(int, 0), ARG(int, 1), ARG(int, 2),
				     ARG(const void *, 3), ARG(socklen_t, 4)));
#endif
#ifdef SYS_getsockopt
	case SYS_getsockopt:
		RUN(entry_getsockopt(ARG(int, 0), ARG(int, 1), ARG(int, 2),
				     ARG(void *, 3), ARG(socklen_t *, 4)));
#endif
#ifdef SYS_shutdown
	case SYS_shutdown:
		RUN(entry_shutdown(ARG(int, 0), ARG(int, 1)));
#endif
#ifdef SYS_sendto
	case SYS_sendto:
		RUN(entry_sendto(ARG(int, 0), ARG(const void *, 1),
				 ARG(size_t, 2), ARG(int, 3),
				 ARG(const struct sockaddr *, 4),
				 ARG(socklen_t, 5)));
#endif
#ifdef SYS_recvfrom
	case SYS_recvfrom:
		RUN(entry_recvfrom(ARG(int, 0), ARG(void *, 1), ARG(size_t, 2),
				   ARG(int, 3), ARG(struct sockaddr *, 4),
				   ARG(socklen_t *, 5)));
#endif
#ifdef SYS_sendmsg
	case SYS_sendmsg:
		RUN(entry_sendmsg(ARG(int, 0), ARG(const struct msghdr *, 1),
				  ARG(int, 2)));
#endif
#ifdef SYS_recvmsg
	case SYS_recvmsg:
		RUN(entry_recvmsg(ARG(int, 0), ARG(struct msghdr *, 1),
				  ARG(int, 2)));
#endif
#ifdef SYS_sendmmsg
	case SYS_sendmmsg:
		RUN(entry_sendmmsg(ARG(int, 0), ARG(struct mmsghdr *, 1),
				   ARG(unsigned int, 2), ARG(int, 3)));
#endif
#ifdef SYS_recvmmsg
	case SYS_recvmmsg:
		RUN(sys_recvmmsg(a, false));
#endif
#ifdef SYS_recvmmsg_time64
	case SYS_recvmmsg_time64:
		RUN(sys_recvmmsg(a, true));
#endif
#ifdef SYS_socketcall
	case SYS_socketcall:
		if (!run) {
			return 0;
		}
		if (a[0] >= SYS_SOCKET && a[0] <= SYS_SENDMMSG) {
			return sys_socketcall(a[0],
					      ARG(const unsigned long *, 1));
		}
		break;
#endif
#ifdef SYS_read
	case SYS_read:
		RUN(entry_read(ARG(int, 0), ARG(void *, 1), ARG(size_t, 2)));
#endif
#ifdef SYS_write
	case SYS_write:
		RUN(entry_write(ARG(int, 0), ARG(const void *, 1),
				ARG(size_t, 2)));
#endif
#ifdef SYS_readv
	case SYS_readv:
		RUN(entry_readv(ARG(int, 0), ARG(const struct iovec *, 1),
				ARG(int, 2)));
#endif
#ifdef SYS_writev
	case SYS_writev:
		RUN(entry_writev(ARG(int, 0), ARG(const struct iovec *, 1),
				 ARG(int, 2)));
#endif
#ifdef SYS_sendfile
	case SYS_sendfile:
		RUN(entry_sendfile(ARG(int, 0), ARG(int, 1), ARG(off_t *, 2),
				   ARG(size_t, 3)));
#endif
#if defined(SYS_sendfile64) && SYS_sendfile64 != SYS_sendfile &&               \
    defined(HAVE_SENDFILE64_FUNCTION)
	case SYS_sendfile64:
		RUN(entry_sendfile64(ARG(int, 0), ARG(int, 1),
				     ARG(SWRAP_OFF64_T *, 2), ARG(size_t, 3)));
#endif
#ifdef SYS_splice
	case SYS_splice:
		RUN(entry_splice(ARG(int, 0), ARG(SWRAP_OFF64_T *, 1),
				 ARG(int, 2), ARG(SWRAP_OFF64_T *, 3),
				 ARG(size_t, 4), ARG(unsigned, 5)));
#endif
#ifdef SYS_close
	case SYS_close:
		RUN(entry_close(ARG(int, 0)));
#endif
#ifdef SYS_close_range
	case SYS_close_range:
		RUN(swrap_close_range(ARG(unsigned, 0), ARG(unsigned, 1),
				      ARG(int, 2)));
#endif
#ifdef SYS_dup
	case SYS_dup:
		RUN(entry_dup(ARG(int, 0)));
#endif
#ifdef SYS_dup2
	case SYS_dup2:
		RUN(entry_dup2(ARG(int, 0), ARG(int, 1)));
#endif
#ifdef SYS_dup3
	case SYS_dup3:
		RUN(entry_dup3(ARG(int, 0), ARG(int, 1), ARG(int, 2)));
#endif
	default:
		break;
	}
	*ours = false;
	return 0;
}

/* Until this library's constructor has run, every number goes down the
 * chain untouched (cwrap_syscall.h): a sanitizer runtime that sets itself
 * up (i386: SYS_read and SYS_close through syscall()) or a malloc that
 * calls syscall() from its own setup, inside the dynamic loader, meets
 * none of the code that allocates or locks. The constructor names
 * uid_wrapper's half of the protocol (ours or upstream's); the first
 * number that is not socket_wrapper's looks it up (cwrap_syscall_peer),
 * so that a program start pays nothing for it. */
__attribute__((constructor)) static void sys_start(void)
{
	cwrap_syscall_start("uid_wrapper_syscall_valid",
			    "uid_wrapper_syscall_va");
}

/* The cross-library protocol (cwrap_syscall.h): true for the numbers this
 * library's syscall() answers itself, once it is set up, whether or not
 * SOCKET_WRAPPER_DIR enables it (a descriptor that is no emulated socket
 * goes to the real call then). */
CWRAP_NO_SANITIZE CWRAP_EXPORT bool socket_wrapper_syscall_valid(long nr)
{
	bool ours;

	if (!cwrap_syscall_ready()) {
		return false;
	}
	(void)sys_socket_call(nr, NULL, false, &ours);
	return ours;
}

/* The numbers of socket_wrapper_syscall_valid(), from another library's
 * syscall(); any other goes down the chain, never back to a peer. */
CWRAP_NO_SANITIZE static long sys_call(long nr, const long a[6], bool peer)
{
	long r;
	bool ours;

	if (cwrap_syscall_ready()) {
		r = sys_socket_call(nr, a, true, &ours);
		if (ours || (peer && cwrap_syscall_peer(nr, a, &r))) {
			return r;
		}
	}
	return cwrap_syscall_next(nr, a);
}

CWRAP_NO_SANITIZE CWRAP_EXPORT long socket_wrapper_syscall_va(long nr,
							      va_list ap)
{
	long a[6];

	for (int i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	return sys_call(nr, a, false);
}

/* The sanitizer runtimes call syscall() on i386 before they are set up:
 * a number that is not ours goes on without touching instrumented code
 * (CWRAP_NO_SANITIZE): to uid_wrapper when its
 * uid_wrapper_syscall_valid() says it is its own, or to the next
 * syscall() (uid_wrapper's, or libc's), found with a plain
 * dlsym(RTLD_NEXT), which cannot return this one. */
CWRAP_NO_SANITIZE CWRAP_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	va_end(ap);
	return sys_call(nr, a, true);
}
