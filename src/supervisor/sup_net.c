/*
 * The socket calls of a supervised process, made by socket_wrapper's core
 * on our copy of its descriptor: the same names, ports, groups, capture
 * and errors as for a preloaded program. Arguments are read from the
 * process's memory and results written back with the kernel's rules
 * (addresses truncated to the caller's length, the full length reported;
 * EFAULT for a bad pointer, EINVAL for a negative length). A call on a
 * descriptor that is not an emulated socket goes back to the kernel
 * untouched, as does sendmsg()/recvmsg() without an address or ancillary
 * data (the data path). While a call runs, our copy names its record in
 * socket_wrapper's descriptor table, as a preloaded program's descriptor
 * does. No state of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_supervise.h"
#include "swrap_libc.h"

#define SUP_INTERNAL
#include "sup.h"

/* The most data one call moves through us (a datagram is at most 64 KiB;
 * a stream transfer may be partial). */
#define DATA_MAX (256 * 1024)
/* The largest option value taken. */
#define OPT_MAX 4096

#define ARG(c, i) ((c)->n.data.args[i])
#define ARG_INT(c, i) ((int)(c)->n.data.args[i])

/* ---- the descriptor and its record ------------------------------------- */

/* Our copy of the descriptor in argument 0. False when the call is
 * answered already (no such descriptor) or gone. */
static bool copy(struct sup_call *c)
{
	int r;

	if (c->fd >= 0) {
		return true;
	}
	r = sup_take_fd(c, ARG_INT(c, 0));
	if (r == 0) {
		return true;
	}
	if (r != -EBADF) {
		CWRAP_DEBUG("supervised call %d of thread %d: its descriptor "
			    "%d: %s",
			    c->n.data.nr, (int)c->n.pid, ARG_INT(c, 0),
			    strerror(-r));
	}
	/* (none when the call is gone) */
	sup_reply(c, r);
	return false;
}

/* The record of our copy: a socket a supervised process made, or, when
 * `adopt` (the call names an IPv4 or IPv6 address: the caller takes the
 * socket for one), one a preloaded process made (inherited, or passed to
 * the supervised one). Any other socket is a unix socket of the process's
 * own, or of the preloaded library in it (a cgo program, a dynamic
 * program started by a supervised one): its calls are the kernel's. */
static bool record(struct sup_call *c, bool adopt)
{
	struct swrap_sock *s;

	c->s = sup_table_get(c->fd);
	if (c->s != NULL) {
		return true;
	}
	s = adopt ? swrap_fd_adopt(c->fd) : NULL;
	if (s != NULL) {
		sup_table_add(c->fd, s);
		c->s = s;
		(void)swrap_sock_ref(s, false);
	}
	swrap_fdtab_clear(c->fd);
	return c->s != NULL;
}

static bool nonblocking(const struct sup_call *c, int flags)
{
	return (flags & MSG_DONTWAIT) || (fcntl(c->fd, F_GETFL) & O_NONBLOCK);
}

/* SO_RCVTIMEO / SO_SNDTIMEO of our copy in ms, -1 for none. */
static long timeout_ms(const struct sup_call *c, int name)
{
	struct timeval tv;
	socklen_t l = sizeof(tv);

	if (libc_getsockopt(c->fd, SOL_SOCKET, name, &tv, &l) != 0 ||
	    (tv.tv_sec == 0 && tv.tv_usec == 0)) {
		return -1;
	}
	return (long)tv.tv_sec * 1000 + tv.tv_usec / 1000 + 1;
}

bool sup_net_may_block(struct sup_call *c)
{
	int flags = 0;

	switch (c->n.data.nr) {
	case __NR_accept:
	case __NR_accept4:
	case __NR_connect:
		break;
	case __NR_sendto:
	case __NR_recvfrom:
		flags = ARG_INT(c, 3);
		break;
	case __NR_sendmsg:
	case __NR_recvmsg:
	case __NR_sendmmsg:
	case __NR_recvmmsg:
		flags = ARG_INT(c, c->n.data.nr == __NR_sendmsg ||
					   c->n.data.nr == __NR_recvmsg
				       ? 2
				       : 3);
		break;
	default:
		return false;
	}
	return copy(c) && !nonblocking(c, flags);
}

/* ---- arguments ---------------------------------------------------------- */

/* An address argument (`addr`, `len`) as the kernel takes it. */
static int read_addr(const struct sup_call *c, uint64_t addr, uint64_t len,
		     struct sockaddr_storage *ss, socklen_t *slen)
{
	if ((int)len < 0 || (size_t)(int)len > sizeof(*ss)) {
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	*slen = (socklen_t)len;
	return sup_read(c, addr, ss, *slen);
}

/* A result address to (`addr`, `lenp`), after the call, as the kernel's
 * move_addr_to_user(): the caller's length read (EFAULT; EINVAL when
 * negative), min(its length, ours) bytes written (none: no access to
 * `addr`), our length reported. accept() and recvfrom() do it only with
 * an address (`always` false), getsockname() and getpeername() always. */
static int write_addr(const struct sup_call *c, uint64_t addr, uint64_t lenp,
		      const struct sockaddr_storage *ss, socklen_t slen,
		      bool always)
{
	size_t n;
	int ulen;
	int r;

	if (addr == 0 && !always) {
		return 0;
	}
	if ((r = sup_read(c, lenp, &ulen, sizeof(ulen))) < 0) {
		return r;
	}
	if (ulen < 0) {
		return -EINVAL;
	}
	n = (size_t)ulen < slen ? (size_t)ulen : slen;
	if (n > 0 && (addr == 0 || (r = sup_write(c, addr, ss, n)) < 0)) {
		return -EFAULT;
	}
	ulen = (int)slen;
	return sup_write(c, lenp, &ulen, sizeof(ulen));
}

/* ---- the calls ---------------------------------------------------------- */

static long do_socket(struct sup_call *c)
{
	const struct swrap_conf *conf = swrap_conf();
	int type = ARG_INT(c, 1);
	struct swrap_sock *s;
	long r;
	int fd;

	if (ARG_INT(c, 2) == CWRAP_SUPERVISED_PROBE) {
		return -CWRAP_SUPERVISED_ERRNO; /* yes, supervised */
	}
	if (!conf->enabled) {
		CWRAP_DEBUG("supervised socket(): SOCKET_WRAPPER_DIR is not "
			    "set: EAFNOSUPPORT, nothing reaches the real "
			    "network");
		return -EAFNOSUPPORT;
	}
	fd = swrap_socket(conf, ARG_INT(c, 0), type, ARG_INT(c, 2));
	if (fd < 0) {
		return -errno;
	}
	s = swrap_fdtab_peek(fd);
	if (s != NULL) {
		sup_table_add(fd, s);
	}
	r = sup_reply_fd(c, fd, type & SOCK_CLOEXEC);
	swrap_fdtab_clear(fd);
	libc_close(fd);
	/* (on failure the call is gone: its socket is forgotten at the next
	 * sweep) */
	return r < 0 ? r : LONG_MIN;
}

static long do_accept(struct sup_call *c, int flags)
{
	bool wait = !nonblocking(c, 0);
	struct sockaddr_storage ss;
	socklen_t slen;
	struct swrap_sock *n;
	long r;
	int nfd;

	/* (what the kernel refuses before it waits) */
	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
		return -EINVAL;
	}
	if (c->s->type == SOCK_DGRAM) {
		return -EOPNOTSUPP;
	}
	if (!(c->s->flags & SWRAP_SOCK_LISTENING)) {
		return -EINVAL;
	}
	for (;;) {
		if (wait && (r = sup_wait(c, POLLIN, -1)) < 0) {
			return r;
		}
		slen = sizeof(ss);
		nfd = swrap_accept(c->s, c->fd, (struct sockaddr *)&ss, &slen,
				   flags);
		if (nfd >= 0) {
			break;
		}
		if (!wait || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			return -errno;
		}
	}
	n = swrap_fdtab_peek(nfd);
	if (n != NULL) {
		sup_table_add(nfd, n);
	}
	/* (a bad length: the connection is gone, as in the kernel) */
	r = write_addr(c, ARG(c, 1), ARG(c, 2), &ss, slen, false);
	if (r == 0) {
		r = sup_reply_fd(c, nfd, flags & SOCK_CLOEXEC);
	}
	swrap_fdtab_clear(nfd);
	libc_close(nfd);
	return r < 0 ? r : LONG_MIN;
}

static long do_name(struct sup_call *c, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t slen = sizeof(ss);
	long r;

	memset(&ss, 0, sizeof(ss));
	r = peer ? swrap_getpeername(c->s, (struct sockaddr *)&ss, &slen)
		 : swrap_getsockname(c->s, (struct sockaddr *)&ss, &slen);
	if (r < 0) {
		return -errno;
	}
	r = write_addr(c, ARG(c, 1), ARG(c, 2), &ss, slen, true);
	return r < 0 ? r : 0;
}

static long do_getsockopt(struct sup_call *c)
{
	unsigned char val[OPT_MAX];
	int ulen;
	socklen_t len;
	long r;

	if ((r = sup_read(c, ARG(c, 4), &ulen, sizeof(ulen))) < 0) {
		return r;
	}
	if (ulen < 0) {
		return -EINVAL;
	}
	len = (size_t)ulen < sizeof(val) ? (socklen_t)ulen : sizeof(val);
	memset(val, 0, sizeof(val));
	/* (what the caller's buffer holds, for the options that read it) */
	if (ARG(c, 3) != 0 && sup_read(c, ARG(c, 3), val, len) < 0) {
		return -EFAULT;
	}
	if (swrap_getsockopt(c->s, c->fd, ARG_INT(c, 1), ARG_INT(c, 2),
			     ARG(c, 3) != 0 ? val : NULL, &len) < 0) {
		return -errno;
	}
	if (ARG(c, 3) != 0 && (r = sup_write(c, ARG(c, 3), val, len)) < 0) {
		return r;
	}
	ulen = (int)len;
	r = sup_write(c, ARG(c, 4), &ulen, sizeof(ulen));
	return r < 0 ? r : 0;
}

static long do_setsockopt(struct sup_call *c)
{
	unsigned char val[OPT_MAX];
	int ulen = ARG_INT(c, 4);
	long r;

	if (ulen < 0) {
		return -EINVAL;
	}
	if ((size_t)ulen > sizeof(val)) {
		ulen = sizeof(val);
	}
	if (ARG(c, 3) != 0 && (r = sup_read(c, ARG(c, 3), val, ulen)) < 0) {
		return r;
	}
	r = swrap_setsockopt(c->s, c->fd, ARG_INT(c, 1), ARG_INT(c, 2),
			     ARG(c, 3) != 0 ? val : NULL, (socklen_t)ulen);
	return r < 0 ? -errno : 0;
}

/* Data in the process's memory, as a list of pieces: gathered into `buf`
 * (at most `cap` bytes) or scattered from it. */
struct pieces {
	struct iovec *v;
	size_t n;
};

static int read_iov(const struct sup_call *c, uint64_t iov, uint64_t cnt,
		    struct pieces *p)
{
	if (cnt > IOV_MAX) {
		return -EMSGSIZE;
	}
	p->n = (size_t)cnt;
	p->v = calloc(p->n + 1, sizeof(*p->v));
	if (p->v == NULL) {
		return -ENOMEM;
	}
	return sup_read(c, iov, p->v, p->n * sizeof(*p->v));
}

static ssize_t gather(const struct sup_call *c, const struct pieces *p,
		      char *buf, size_t cap)
{
	size_t done = 0;

	for (size_t i = 0; i < p->n && done < cap; i++) {
		size_t k = p->v[i].iov_len < cap - done ? p->v[i].iov_len
							: cap - done;

		if (sup_read(c, (uintptr_t)p->v[i].iov_base, buf + done, k) <
		    0) {
			return -EFAULT;
		}
		done += k;
	}
	return (ssize_t)done;
}

static int scatter(const struct sup_call *c, const struct pieces *p,
		   const char *buf, size_t len)
{
	size_t done = 0;

	for (size_t i = 0; i < p->n && done < len; i++) {
		size_t k = p->v[i].iov_len < len - done ? p->v[i].iov_len
							: len - done;

		if (sup_write(c, (uintptr_t)p->v[i].iov_base, buf + done, k) <
		    0) {
			return -EFAULT;
		}
		done += k;
	}
	return 0;
}

/* A transfer in the process's blocking mode, made by us without ever
 * blocking: MSG_DONTWAIT, then a wait for the socket while the call is
 * still there, up to the socket's timeout. */
enum xfer { XFER_SENDTO, XFER_RECVFROM, XFER_SENDMSG, XFER_RECVMSG };

static ssize_t xfer_once(struct sup_call *c, enum xfer k, char *buf,
			 size_t len, int flags, struct sockaddr_storage *ss,
			 socklen_t *slen, int *mflags)
{
	struct iovec iov = {buf, len};
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	switch (k) {
	case XFER_SENDTO:
		/* (an address is given: of length 0 too, which is EINVAL) */
		return swrap_sendto(c->s, c->fd, buf, len, flags,
				    (struct sockaddr *)ss, *slen);
	case XFER_RECVFROM:
		return swrap_recvfrom(c->s, c->fd, buf, len, flags,
				      (struct sockaddr *)ss, slen);
	case XFER_SENDMSG:
		m.msg_name = ss; /* (NULL: none) */
		m.msg_namelen = *slen;
		return swrap_sendmsg(c->s, c->fd, &m, flags);
	case XFER_RECVMSG: {
		ssize_t r;

		m.msg_name = ss;
		m.msg_namelen = *slen;
		r = swrap_recvmsg(c->s, c->fd, &m, flags);
		*slen = m.msg_namelen;
		if (mflags != NULL) {
			*mflags = m.msg_flags;
		}
		return r;
	}
	}
	return -1;
}

/* `ss` (NULL for an XFER_SENDMSG that names no address): the address;
 * `mflags`: for XFER_RECVMSG, where msg_flags go. */
static ssize_t xfer(struct sup_call *c, enum xfer k, char *buf, size_t len,
		    int flags, struct sockaddr_storage *ss, socklen_t *slen,
		    int *mflags)
{
	bool in = k == XFER_RECVFROM || k == XFER_RECVMSG;
	bool wait = !nonblocking(c, flags);
	long tmo = wait ? timeout_ms(c, in ? SO_RCVTIMEO : SO_SNDTIMEO) : -1;
	socklen_t want = *slen;

	for (;;) {
		ssize_t r;
		long w;

		*slen = want;
		r = xfer_once(c, k, buf, len, flags | MSG_DONTWAIT, ss, slen,
			      mflags);
		if (r >= 0 || !wait || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			return r < 0 ? -errno : r;
		}
		w = sup_wait(c, in ? POLLIN : POLLOUT, tmo);
		if (w < 0) {
			return w;
		}
	}
}

static long do_sendto(struct sup_call *c)
{
	size_t len = ARG(c, 2) < DATA_MAX ? (size_t)ARG(c, 2) : DATA_MAX;
	struct sockaddr_storage ss;
	socklen_t slen = 0;
	char *buf;
	long r;

	if ((r = read_addr(c, ARG(c, 4), ARG(c, 5), &ss, &slen)) < 0) {
		return r;
	}
	buf = malloc(len + 1);
	if (buf == NULL) {
		return -ENOMEM;
	}
	r = sup_read(c, ARG(c, 1), buf, len);
	if (r == 0) {
		r = xfer(c, XFER_SENDTO, buf, len, ARG_INT(c, 3), &ss, &slen,
			 NULL);
	}
	free(buf);
	return r;
}

static long do_recvfrom(struct sup_call *c)
{
	size_t len = ARG(c, 2) < DATA_MAX ? (size_t)ARG(c, 2) : DATA_MAX;
	struct sockaddr_storage ss;
	socklen_t slen = sizeof(ss);
	char *buf;
	long r, w;

	buf = malloc(len + 1);
	if (buf == NULL) {
		return -ENOMEM;
	}
	memset(&ss, 0, sizeof(ss));
	r = xfer(c, XFER_RECVFROM, buf, len, ARG_INT(c, 3), &ss, &slen, NULL);
	if (r >= 0) {
		/* (MSG_TRUNC reports a datagram's whole length) */
		w = sup_write(c, ARG(c, 1), buf, (size_t)r < len ? (size_t)r : len);
		if (w == 0) {
			/* (a stream socket's: length 0) */
			w = write_addr(c, ARG(c, 4), ARG(c, 5), &ss, slen,
				       false);
		}
		r = w < 0 ? w : r;
	}
	free(buf);
	return r;
}

/* struct msghdr as the process has it (this ABI's layout). */
static long do_msg(struct sup_call *c, bool out)
{
	struct sockaddr_storage ss;
	socklen_t slen = 0;
	struct pieces p = {NULL, 0};
	struct msghdr m;
	size_t len = 0;
	char *buf = NULL;
	long r;

	if ((r = sup_read(c, ARG(c, 1), &m, sizeof(m))) < 0) {
		return r;
	}
	if (m.msg_name == NULL && m.msg_controllen == 0) {
		return LONG_MAX; /* the data path: the kernel's own */
	}
	/* (the kernel's copy of a msghdr: a length without a name is 0, a
	 * negative one EINVAL, a larger one cut to a sockaddr_storage) */
	if (m.msg_name == NULL) {
		m.msg_namelen = 0;
	} else if ((int)m.msg_namelen < 0) {
		return -EINVAL;
	} else if (m.msg_namelen > sizeof(ss)) {
		m.msg_namelen = sizeof(ss);
	}
	if (m.msg_controllen != 0) {
		CWRAP_DEBUG("supervised %s() with ancillary data on an "
			    "emulated socket: not emulated yet, EOPNOTSUPP",
			    out ? "sendmsg" : "recvmsg");
		return -EOPNOTSUPP;
	}
	if (out && m.msg_name != NULL &&
	    (r = read_addr(c, (uintptr_t)m.msg_name, m.msg_namelen, &ss,
			   &slen)) < 0) {
		return r;
	}
	if ((r = read_iov(c, (uintptr_t)m.msg_iov, m.msg_iovlen, &p)) < 0) {
		goto out;
	}
	for (size_t i = 0; i < p.n && len < DATA_MAX; i++) {
		len += p.v[i].iov_len < DATA_MAX ? p.v[i].iov_len : DATA_MAX;
	}
	len = len < DATA_MAX ? len : DATA_MAX;
	buf = malloc(len + 1);
	if (buf == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if (out) {
		ssize_t g = gather(c, &p, buf, len);

		r = g < 0 ? g
			  : xfer(c, XFER_SENDMSG, buf, (size_t)g,
				 ARG_INT(c, 2), m.msg_name != NULL ? &ss : NULL,
				 &slen, NULL);
		goto out;
	}
	slen = m.msg_name != NULL ? sizeof(ss) : 0;
	memset(&ss, 0, sizeof(ss));
	r = xfer(c, XFER_RECVMSG, buf, len, ARG_INT(c, 2), &ss, &slen,
		 &m.msg_flags);
	if (r >= 0) {
		long w = scatter(c, &p, buf, (size_t)r < len ? (size_t)r : len);

		if (w == 0 && m.msg_name != NULL) {
			w = sup_write(c, (uintptr_t)m.msg_name, &ss,
				      m.msg_namelen < slen ? m.msg_namelen
							   : slen);
			m.msg_namelen = slen;
		}
		if (w == 0) {
			w = sup_write(c, ARG(c, 1), &m, sizeof(m));
		}
		r = w < 0 ? w : r;
	}
out:
	free(buf);
	free(p.v);
	return r;
}

/* sendmmsg()/recvmmsg(): without addresses and ancillary data (a
 * connected socket: glibc's resolver sends its two questions so) the data
 * path, the kernel's; with them, not emulated yet. */
static long do_mmsg(struct sup_call *c)
{
	size_t vlen = ARG(c, 2) < IOV_MAX ? (size_t)ARG(c, 2) : IOV_MAX;
	bool plain = true;
	struct mmsghdr *v;

	if (vlen == 0) {
		return 0;
	}
	v = malloc(vlen * sizeof(*v));
	if (v == NULL) {
		return -ENOMEM;
	}
	if (sup_read(c, ARG(c, 1), v, vlen * sizeof(*v)) < 0) {
		free(v);
		return -EFAULT;
	}
	for (size_t i = 0; i < vlen && plain; i++) {
		plain = v[i].msg_hdr.msg_name == NULL &&
			v[i].msg_hdr.msg_controllen == 0;
	}
	free(v);
	if (plain) {
		return LONG_MAX;
	}
	CWRAP_DEBUG("supervised %s() with addresses or ancillary data on an "
		    "emulated socket: not emulated yet, EOPNOTSUPP",
		    c->n.data.nr == __NR_sendmmsg ? "sendmmsg" : "recvmmsg");
	return -EOPNOTSUPP;
}

/* The family of the address the call names (bind, connect, sendto,
 * sendmsg): AF_UNSPEC for none, -1 when it cannot be read. */
static int named_family(const struct sup_call *c)
{
	uint64_t addr, len;
	sa_family_t f;
	struct msghdr m;

	switch (c->n.data.nr) {
	case __NR_bind:
	case __NR_connect:
		addr = ARG(c, 1);
		len = ARG(c, 2);
		break;
	case __NR_sendto:
		addr = ARG(c, 4);
		len = ARG(c, 5);
		break;
	case __NR_sendmsg:
		if (sup_read(c, ARG(c, 1), &m, sizeof(m)) < 0) {
			return -1;
		}
		addr = (uintptr_t)m.msg_name;
		len = m.msg_namelen;
		break;
	default:
		return AF_UNSPEC;
	}
	if (addr == 0 || (int)len < (int)sizeof(f)) {
		return AF_UNSPEC;
	}
	return sup_read(c, addr, &f, sizeof(f)) < 0 ? -1 : f;
}

void sup_net_call(struct sup_call *c)
{
	struct sockaddr_storage ss;
	socklen_t slen;
	long r;
	int nr = c->n.data.nr, family;

	if (nr == __NR_socket) {
		r = do_socket(c);
		if (r != LONG_MIN) {
			sup_reply(c, r);
		}
		return;
	}
	if (!copy(c)) {
		return;
	}
	/* A socket of the process's own (or of the preloaded library in
	 * it) is the kernel's; one of ours given a unix address answers as
	 * the kernel's IPv4 or IPv6 socket does. */
	family = named_family(c);
	if (!record(c, family == AF_INET || family == AF_INET6)) {
		sup_continue(c);
		return;
	}
	/* our copy names the record while the core works on it */
	if (swrap_sock_ref(c->s, false) == 0 &&
	    swrap_fdtab_set(c->fd, c->s) != 0) {
		swrap_sock_unref(c->s);
	}
	errno = 0;
	switch (nr) {
	case __NR_bind:
	case __NR_connect:
		r = read_addr(c, ARG(c, 1), ARG(c, 2), &ss, &slen);
		if (r == 0) {
			r = (nr == __NR_bind ? swrap_bind(c->s, c->fd,
							  (struct sockaddr *)&ss,
							  slen)
					     : swrap_connect(c->s, c->fd,
							     (struct sockaddr *)&ss,
							     slen)) < 0
				? -errno
				: 0;
		}
		break;
	case __NR_listen:
		r = swrap_listen(c->s, c->fd, ARG_INT(c, 1)) < 0 ? -errno : 0;
		break;
	case __NR_accept:
		r = do_accept(c, 0);
		break;
	case __NR_accept4:
		r = do_accept(c, ARG_INT(c, 3));
		break;
	case __NR_getsockname:
	case __NR_getpeername:
		r = do_name(c, nr == __NR_getpeername);
		break;
	case __NR_getsockopt:
		r = do_getsockopt(c);
		break;
	case __NR_setsockopt:
		r = do_setsockopt(c);
		break;
	case __NR_sendto:
		r = do_sendto(c);
		break;
	case __NR_recvfrom:
		r = do_recvfrom(c);
		break;
	case __NR_sendmsg:
	case __NR_recvmsg:
		r = do_msg(c, nr == __NR_sendmsg);
		break;
	case __NR_sendmmsg:
	case __NR_recvmmsg:
		r = do_mmsg(c);
		break;
	default:
		r = LONG_MAX;
		break;
	}
	swrap_fdtab_clear(c->fd);
	if (r == LONG_MAX) {
		sup_continue(c);
	} else if (r != LONG_MIN && (r != -EINTR || sup_call_valid(c))) {
		sup_reply(c, r);
	}
}
