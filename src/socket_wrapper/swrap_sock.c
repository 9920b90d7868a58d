/*
 * Socket calls on emulated sockets: socket, bind (explicit, automatic,
 * bindresvport), listen, connect, accept, getsockname/getpeername,
 * getsockopt/setsockopt, shutdown, and what happens when the last
 * descriptor of a socket goes away.
 *
 * No lock is held across a system call: record state (flags, addresses,
 * remembered options) is written under swrap_lock() in short sections
 * after the kernel has answered. Automatic ports come from a per-process
 * atomic counter.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "cwrap_log.h"
#include "swrap.h"
#include "faults/swrap_faults.h"
#include "swrap_libc.h"
#include "capture/swrap_pcap.h"

void swrap_sock_finish(struct swrap_sock *s);

static unsigned next_port; /* atomic; 0 = not started */

#define KERNEL_SOCK_MAX 11     /* SOCK_PACKET + 1 */
#define KERNEL_IPPROTO_MAX 263 /* IPPROTO_MPTCP + 1 */

/* socket(AF_INET/AF_INET6, type, protocol) for what is not emulated: the
 * errno the kernel gives (its checks in __sys_socket, __sock_create and
 * inet_create, in that order), or EPROTONOSUPPORT for a socket the
 * kernel would make on the real network stack (raw, packet, ICMP
 * datagram, SCTP, UDP-Lite, MPTCP): nothing leaves the emulation. */
static int refused(int family, int type, int protocol)
{
	int base = type & 0xf;

	if ((type & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC)) != 0 ||
	    base >= KERNEL_SOCK_MAX) {
		return EINVAL;
	}
	if (protocol < 0 || protocol >= KERNEL_IPPROTO_MAX) {
		return EINVAL;
	}
	switch (base) {
	case SOCK_STREAM:
	case SOCK_DGRAM:
	case SOCK_RAW:
	case SOCK_SEQPACKET:
		break;
	case SOCK_PACKET:
		if (family == AF_INET) {
			break; /* the kernel makes a packet socket */
		}
		return ESOCKTNOSUPPORT;
	default:
		return ESOCKTNOSUPPORT; /* no IP protocol of that type */
	}
	CWRAP_DEBUG("socket(%s, type %d, protocol %d): not emulated, refused "
		    "with EPROTONOSUPPORT so that nothing reaches the real "
		    "network",
		    family == AF_INET ? "AF_INET" : "AF_INET6", base, protocol);
	return EPROTONOSUPPORT;
}

int swrap_socket(const struct swrap_conf *c, int family, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct swrap_sock *s;
	int fd;

	if (family != AF_INET && family != AF_INET6) {
		fd = libc_socket(family, type, protocol);
		if (fd >= 0) {
			swrap_fdtab_clear(fd);
		}
		return fd;
	}
	if ((base != SOCK_STREAM && base != SOCK_DGRAM) ||
	    (protocol != 0 &&
	     protocol != (base == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP))) {
		errno = refused(family, type, protocol);
		return -1;
	}
	fd = swrap_sock_open(c, family, base, type & ~base, &s);
	if (fd >= 0) {
		CWRAP_TRACE("fd %d: emulated %s %s socket", fd,
			    family == AF_INET ? "IPv4" : "IPv6",
			    base == SOCK_STREAM ? "TCP" : "UDP");
	}
	return fd;
}

int swrap_sock_open(const struct swrap_conf *c, int family, int kind, int flags,
		    struct swrap_sock **sp)
{
	struct swrap_sock *s = swrap_sock_new(c, family, kind, true);
	int fd;

	if (s == NULL) {
		return -1;
	}
	fd = libc_socket(AF_UNIX, kind | flags, 0);
	if (fd < 0) {
		int e = errno;

		swrap_sock_unref(s);
		errno = e;
		return -1;
	}
	if (swrap_fdtab_set(fd, s) != 0) {
		libc_close(fd);
		swrap_sock_unref(s);
		errno = EMFILE;
		return -1;
	}
	*sp = s;
	return fd;
}

void swrap_sock_local_ep(const struct swrap_sock *s, struct swrap_ep *ep)
{
	swrap_addr_to_ep(&s->local, s->type, ep);
	if (s->local_len == 0) {
		ep->family = s->family;
	}
}

void swrap_sock_src_ep(const struct swrap_sock *s, struct swrap_ep *ep)
{
	swrap_sock_local_ep(s, ep);
	if (ep->iface != 0) {
		return;
	}
	ep->iface =
	    s->bound_iface != 0 ? s->bound_iface : s->conf->default_iface;
	if (s->family == AF_INET6 && (s->flags & SWRAP_SOCK_CONNECTED)) {
		struct swrap_ep peer;

		/* Connected to an IPv4 peer: the source is v4-mapped. */
		swrap_addr_to_ep(&s->peer, s->type, &peer);
		ep->family = peer.family;
	}
}

void swrap_sock_eps(const struct swrap_sock *s, struct swrap_ep *local,
		    struct swrap_ep *peer)
{
	if (local != NULL) {
		swrap_sock_src_ep(s, local);
	}
	if (peer != NULL) {
		swrap_addr_to_ep(&s->peer, s->type, peer);
	}
}

/* One probe: true if the name refuses (ECONNREFUSED). */
static bool unix_name_refuses(const struct sockaddr_un *un, socklen_t ulen)
{
	int p = libc_socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc, e;

	if (p < 0) {
		return false;
	}
	rc = libc_connect(p, (const struct sockaddr *)un, ulen);
	e = errno;
	libc_close(p);
	return rc < 0 && e == ECONNREFUSED;
}

/* A file made this recently may belong to a bind() still in progress. */
#define SWRAP_NAME_YOUNG_NS (50 * 1000 * 1000LL)

bool swrap_unix_name_dead(const struct sockaddr_un *un, socklen_t ulen)
{
	int saved = errno;
	bool dead = false;

	/* The kernel's bind() makes the file before it attaches the socket
	 * to it: a name refuses for that moment. A young file is asked
	 * again a few times before it counts as dead (servers that bind
	 * SO_REUSEPORT members from several threads at once meet that
	 * moment; taking it for a dead name stole a live member's file). */
	for (int i = 0; (dead = unix_name_refuses(un, ulen)) && i < 4; i++) {
		struct timespec now, ts = {0, 1000 * 1000};
		struct stat st;

		if (stat(un->sun_path, &st) != 0 ||
		    clock_gettime(CLOCK_REALTIME, &now) != 0 ||
		    (now.tv_sec - st.st_ctim.tv_sec) * 1000000000LL +
			    (now.tv_nsec - st.st_ctim.tv_nsec) >
			SWRAP_NAME_YOUNG_NS) {
			break;
		}
		nanosleep(&ts, NULL);
	}
	errno = saved;
	return dead;
}

/* Bind the unix socket to the path of `ep` (a concrete interface) and
 * record `shown` as the local address getsockname() answers. */
static int bind_ep(struct swrap_sock *s, int fd, const struct swrap_ep *ep,
		   unsigned shown_iface, bool reuse_stale)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un un;
	socklen_t ulen = swrap_addr_unix(c, ep, &un);
	struct swrap_ep shown = *ep;
	/* (An automatic port never joins a group: reuse_stale is set for
	 * an explicit address only. Nor does a QUIC socket: its address
	 * is taken once.) */
	bool group = (s->flags & SWRAP_SOCK_REUSEPORT) && reuse_stale &&
		     s->type != SOCK_SEQPACKET;
	struct sockaddr_un mb;
	int rc;

	if (group) {
		rc = swrap_group_bind(s, fd, &un, ulen, &mb);
	} else if (reuse_stale && swrap_group_alive(c, &un)) {
		/* The group's first member went (closed, or died and left
		 * its file); the others still hold the address. */
		errno = EADDRINUSE;
		rc = -1;
	} else {
		rc = libc_bind(fd, (struct sockaddr *)&un, ulen);
		if (rc < 0 && errno == EADDRINUSE && reuse_stale &&
		    swrap_unix_name_dead(&un, ulen)) {
			CWRAP_DEBUG("removing stale socket %s", un.sun_path);
			unlink(un.sun_path);
			rc = libc_bind(fd, (struct sockaddr *)&un, ulen);
		}
	}
	if (rc < 0) {
		return -1;
	}
	shown.iface = shown_iface;
	shown.family = s->family;
	swrap_lock();
	s->local_len = swrap_addr_encode(c, &shown, s->family, &s->local);
	s->bound_iface = ep->iface;
	s->path = rc == 1 ? mb : un; /* a member's own file */
	s->unlink_pid = swrap_pid();
	s->bound_gen = swrap_fork_gen();
	s->flags |= SWRAP_SOCK_BOUND | (group ? SWRAP_SOCK_GROUP : 0u);
	swrap_unlock();
	return 0;
}

static unsigned auto_port(void)
{
	const unsigned span = SWRAP_PORT_AUTO_MAX - SWRAP_PORT_AUTO_MIN + 1;
	unsigned n = __atomic_fetch_add(&next_port, 1, __ATOMIC_RELAXED);

	if (n == 0) {
		/* Spread processes over the range so they rarely collide. */
		unsigned start = ((unsigned)swrap_pid() * 7919u) % span + 1;
		unsigned expect = 1;

		__atomic_compare_exchange_n(&next_port, &expect, start + 1,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		n = start;
	}
	return SWRAP_PORT_AUTO_MIN + n % span;
}

/* The implicit bind of a TCP client whose listener is ours: the same
 * name in the abstract namespace, which costs no file to create and
 * remove (our accept() decodes it; upstream's would not, so this is used
 * only when the listener's file carries our mark). */
static int bind_abstract(struct swrap_sock *s, int fd)
{
	const struct swrap_conf *c = s->conf;
	struct swrap_ep ep = {
	    .family = s->family, .type = s->type, .iface = c->default_iface};
	struct sockaddr_un un;
	socklen_t ulen;

	for (int i = 0; i <= SWRAP_PORT_AUTO_MAX - SWRAP_PORT_AUTO_MIN; i++) {
		ep.port = auto_port();
		ulen = swrap_addr_unix_abstract(c, &ep, &un);
		if (libc_bind(fd, (struct sockaddr *)&un, ulen) == 0) {
			swrap_lock();
			s->local_len =
			    swrap_addr_encode(c, &ep, s->family, &s->local);
			s->bound_iface = ep.iface;
			s->path = un; /* abstract: never unlinked */
			s->flags |= SWRAP_SOCK_BOUND;
			swrap_unlock();
			return 0;
		}
		if (errno != EADDRINUSE) {
			return -1;
		}
	}
	errno = EADDRINUSE;
	return -1;
}

static int bind_auto(struct swrap_sock *s, int fd, unsigned iface,
		     unsigned shown_iface)
{
	struct swrap_ep ep = {
	    .family = s->family, .type = s->type, .iface = iface};

	for (int i = 0; i <= SWRAP_PORT_AUTO_MAX - SWRAP_PORT_AUTO_MIN; i++) {
		ep.port = auto_port();
		if (bind_ep(s, fd, &ep, shown_iface, false) == 0) {
			return 0;
		}
		if (errno != EADDRINUSE) {
			return -1;
		}
	}
	errno = EADDRINUSE;
	return -1;
}

int swrap_autobind(struct swrap_sock *s, int fd)
{
	/* Shown as the wildcard, as the kernel does for a socket that sent
	 * before binding; getsockname() says the interface once connected. */
	return bind_auto(s, fd, s->conf->default_iface, 0);
}

static int bind_checked(struct swrap_sock *s, int fd, const struct sockaddr *sa,
			socklen_t len, bool reuse_stale)
{
	struct swrap_ep ep;
	int err =
	    swrap_addr_decode(s->conf, sa, len, s->family, SWRAP_ADDR_BIND,
			      (s->flags & SWRAP_SOCK_V6ONLY) != 0, &ep);
	unsigned iface;

	if (err == 0 && ep.iface == SWRAP_IFACE_BCAST && s->family != AF_INET) {
		/* An IPv4 socket binds the broadcast address (Samba's
		 * NetBIOS servers, UDP 137) on the name of interface FF,
		 * apart from every interface's, as in the kernel. (An
		 * IPv6 socket would be bound where no IPv4 broadcast
		 * goes.) */
		err = EADDRNOTAVAIL;
	}
	if (err != 0) {
		errno = err;
		return -1;
	}
	if (s->flags & SWRAP_SOCK_BOUND) {
		errno = EINVAL;
		return -1;
	}
	ep.type = s->type;
	ep.family = s->family;
	iface = ep.iface != 0 ? ep.iface : s->conf->default_iface;
	if (ep.port == 0) {
		return bind_auto(s, fd, iface, ep.iface);
	}
	{
		struct swrap_ep conc = ep;

		conc.iface = iface;
		if (bind_ep(s, fd, &conc, ep.iface, reuse_stale) != 0) {
			return -1;
		}
	}
	swrap_lock();
	s->flags |= SWRAP_SOCK_PORT_SET; /* a server's, for the fallback */
	swrap_unlock();
	CWRAP_DEBUG("fd %d bound to %s", fd, s->path.sun_path);
	return 0;
}

int swrap_bind(struct swrap_sock *s, int fd, const struct sockaddr *sa,
	       socklen_t len)
{
	return bind_checked(s, fd, sa, len, true);
}

int swrap_bindresvport(struct swrap_sock *s, int fd, struct sockaddr_in *sin)
{
	const unsigned lo = 600, n = 1024 - 600;
	struct sockaddr_storage ss;
	socklen_t len = s->family == AF_INET ? sizeof(struct sockaddr_in)
					     : sizeof(struct sockaddr_in6);
	unsigned start = (unsigned)swrap_pid() % n;

	memset(&ss, 0, sizeof(ss));
	if (sin != NULL) {
		if (sin->sin_family == AF_INET && s->family == AF_INET6) {
			/* glibc binds a sockaddr_in: too short for IPv6. */
			errno = EINVAL;
			return -1;
		}
		if (sin->sin_family != s->family) {
			errno = EPFNOSUPPORT;
			return -1;
		}
		memcpy(&ss, sin, len);
	} else {
		ss.ss_family = (sa_family_t)s->family;
	}
	for (unsigned i = 0; i < n; i++) {
		uint16_t port = htons((uint16_t)(lo + (start + i) % n));

		if (s->family == AF_INET) {
			((struct sockaddr_in *)&ss)->sin_port = port;
		} else {
			((struct sockaddr_in6 *)&ss)->sin6_port = port;
		}
		if (bind_checked(s, fd, (struct sockaddr *)&ss, len, false) ==
		    0) {
			if (sin != NULL) {
				sin->sin_port = port;
			}
			return 0;
		}
		if (errno != EADDRINUSE) {
			return -1;
		}
	}
	errno = EADDRINUSE;
	return -1;
}

/* The marker of a listener: "$DIR/.T0A0007", a second name (hard link)
 * of its socket file. A client of ours connects through it: success means
 * the listener is ours (and takes a client bound in the abstract
 * namespace), with no system call spent on finding out. A marker left by
 * a dead listener leads to a dead socket (ECONNREFUSED), never to
 * another process's listener. */
static void mark_listener(const struct swrap_sock *s)
{
	struct sockaddr_un mk;

	if (swrap_addr_unix_marker(s->conf, &s->path, &mk) == 0) {
		return;
	}
	if (link(s->path.sun_path, mk.sun_path) != 0 &&
	    (errno != EEXIST || unlink(mk.sun_path) != 0 ||
	     link(s->path.sun_path, mk.sun_path) != 0)) {
		CWRAP_DEBUG("no marker %s: %s", mk.sun_path, strerror(errno));
	}
}

int swrap_listen(struct swrap_sock *s, int fd, int backlog)
{
	int rc;

	if (s->type == SOCK_DGRAM) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!(s->flags & SWRAP_SOCK_BOUND) &&
	    bind_auto(s, fd, s->conf->default_iface, 0) != 0) {
		return -1;
	}
	/* The unix listener queues as many connections as the system lets
	 * it (net.core.somaxconn caps the number), whatever the program
	 * asked: a TCP client never sees a listener's full queue (its
	 * nonblocking connect() says EINPROGRESS and its handshake is
	 * retried until the server accepts), where a unix one gets EAGAIN.
	 * The program's backlog is what TCP_INFO reports. */
	rc = libc_listen(fd, INT_MAX);
	if (rc == 0) {
		swrap_lock();
		s->backlog = backlog;
		swrap_unlock();
	}
	if (rc == 0 && !(s->flags & SWRAP_SOCK_LISTENING)) {
		struct stat st;

		swrap_lock();
		s->flags |= SWRAP_SOCK_LISTENING;
		swrap_unlock();
		/* Mark the file as a listener of ours (see swrap_connect). */
		if (s->path.sun_path[0] != '\0' &&
		    stat(s->path.sun_path, &st) == 0) {
			chmod(s->path.sun_path, (st.st_mode & 07777) | S_ISVTX);
			if (!(s->flags & SWRAP_SOCK_GROUP) &&
			    s->type == SOCK_STREAM) {
				/* (A group's clients must not all reach
				 * its first member. A QUIC listener's
				 * clients all bind a file.) */
				mark_listener(s);
			}
		}
	}
	return rc;
}

int swrap_sock_take_error(struct swrap_sock *s)
{
	int err;

	swrap_lock();
	err = s->pending_error;
	s->pending_error = 0;
	swrap_unlock();
	return err;
}

void swrap_sock_set_peer(struct swrap_sock *s, const struct swrap_ep *ep)
{
	swrap_lock();
	s->peer_len = swrap_addr_encode(s->conf, ep, s->family, &s->peer);
	s->flags |= SWRAP_SOCK_CONNECTED;
	swrap_unlock();
}

/* SOL_SOCKET options a program may have set on a TCP socket before
 * connect(); they live on the unix socket (see swrap_setsockopt). */
static const int carried_opts[] = {
    SO_SNDBUF,	  SO_RCVBUF,   SO_LINGER,   SO_RCVTIMEO, SO_SNDTIMEO,
    SO_KEEPALIVE, SO_PASSCRED, SO_RCVLOWAT, SO_PRIORITY, SO_OOBINLINE,
};

int swrap_sock_replace(int fd, int n)
{
	int fl = libc_ptr_fcntl()(fd, F_GETFL);
	int fdfl = libc_ptr_fcntl()(fd, F_GETFD);

	if (fl < 0 || fdfl < 0) {
		int e = errno;

		libc_close(n);
		errno = e;
		return -1;
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(carried_opts); i++) {
		unsigned char was[32], now[32];
		socklen_t wl = sizeof(was), nl = sizeof(now);
		int name = carried_opts[i];

		if (libc_getsockopt(fd, SOL_SOCKET, name, was, &wl) != 0 ||
		    libc_getsockopt(n, SOL_SOCKET, name, now, &nl) != 0 ||
		    (wl == nl && memcmp(was, now, wl) == 0)) {
			continue;
		}
		if ((name == SO_SNDBUF || name == SO_RCVBUF) &&
		    wl == sizeof(int)) {
			int v; /* the kernel reports twice what was set */

			memcpy(&v, was, sizeof(v));
			v /= 2;
			memcpy(was, &v, sizeof(v));
		}
		libc_setsockopt(n, SOL_SOCKET, name, was, wl);
	}
	if (libc_ptr_fcntl()(n, F_SETFL, fl) != 0 ||
	    libc_dup3(n, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
		int e = errno;

		libc_close(n);
		errno = e;
		return -1;
	}
	libc_close(n);
	return 0;
}

/* Put a fresh, unbound unix socket under `fd` in place of the one bound
 * in the abstract namespace: a listener that is not ours wants a client
 * with a file. Only reached when such a listener (upstream's
 * socket_wrapper, or a plain unix one) is met. */
static int renew_socket(struct swrap_sock *s, int fd)
{
	int n = libc_socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (n < 0 || swrap_sock_replace(fd, n) != 0) {
		return -1;
	}
	swrap_lock();
	s->flags &= ~SWRAP_SOCK_BOUND;
	s->local_len = 0;
	s->bound_iface = 0;
	memset(&s->path, 0, sizeof(s->path));
	s->dev = 0; /* another kernel socket: learnt again on next check */
	s->ino = 0;
	swrap_unlock();
	return 0;
}

/* connect() the unix socket of a TCP client to the listener of `ep`. A
 * client we bound in the abstract namespace tries the listener's marker
 * first (one system call, as a raw connect); without a live marker it
 * looks at the file: a SO_REUSEPORT group's (setgid) gets a member in
 * turn; no listener, or one of ours (sticky bit), is connected to as it
 * is; another implementation's gets a client with a file (renew_socket).
 * A client with a file (bound before connect) connects by the plain
 * name, unless a group is there. */
static int connect_ep(struct swrap_sock *s, int fd, const struct swrap_ep *ep)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un un, mk;
	socklen_t ulen = swrap_addr_unix(c, ep, &un), mlen;
	bool file = s->path.sun_path[0] != '\0';
	struct stat st;
	int rc;

	if (!file) {
		mlen = swrap_addr_unix_marker(c, &un, &mk);
		if (mlen != 0) {
			rc = libc_connect(fd, (struct sockaddr *)&mk, mlen);
			if (rc == 0 ||
			    (errno != ENOENT && errno != ECONNREFUSED)) {
				return rc;
			}
		}
	}
	if (stat(un.sun_path, &st) != 0) {
		if (errno == ENOENT && swrap_group_lookup(c, &un, NULL)) {
			/* The group's first member went; others remain. */
			return swrap_group_connect(s, fd, &un, ulen);
		}
		errno = ENOENT;
		return -1; /* nobody listens */
	}
	if (swrap_group_lookup(c, &un, &st)) {
		return swrap_group_connect(s, fd, &un, ulen);
	}
	if (file || !S_ISSOCK(st.st_mode) || (st.st_mode & S_ISVTX)) {
		return libc_connect(fd, (struct sockaddr *)&un, ulen);
	}
	CWRAP_DEBUG("%s is not a listener of ours: binding a file",
		    un.sun_path);
	if (renew_socket(s, fd) != 0 ||
	    bind_auto(s, fd, c->default_iface, c->default_iface) != 0) {
		return -1;
	}
	return libc_connect(fd, (struct sockaddr *)&un, ulen);
}

/* A UDP socket's unix socket is connected to its peer's too (or
 * disconnected, `ep` NULL): data sent without an address by a caller who
 * bypasses the wrapper (a raw system call, io_uring) then reaches the
 * peer, which sees the sender's emulated name (bound before, by
 * connect()), and, as for a connected UDP socket, only the peer's
 * datagrams arrive. When nobody is bound there yet (or the peer is
 * connected elsewhere), the unix socket stays unconnected and our own
 * sends go by name as before. */
int swrap_sock_dgram_connect(struct swrap_sock *s, int fd,
			     const struct swrap_ep *ep)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	struct sockaddr_un un;
	struct swrap_ep e;
	int saved = errno, seq = 0;

	if (ep != NULL && ep->iface != SWRAP_IFACE_BCAST) {
		socklen_t ulen;
		unsigned n, k = 0;

		e = *ep;
		ulen = swrap_addr_unix(s->conf, &e, &un);
		/* A SO_REUSEPORT group: the member of this flow, as the
		 * sends by name choose it, or the next live one. */
		n = swrap_group_dgram(s, &e, &un, &ulen, &k);
		for (unsigned i = 1; n > 1 && i < n; i++) {
			if (libc_connect(fd, (struct sockaddr *)&un, ulen) ==
			    0) {
				goto out;
			}
			ulen = swrap_group_name(s->conf, &e, (k + i) % n, &un);
		}
		if (libc_connect(fd, (struct sockaddr *)&un, ulen) == 0) {
			goto out;
		}
		/* (A datagram socket meets a connection socket's name:
		 * a QUIC socket has the address.) */
		seq = errno == EPROTOTYPE ? EPROTOTYPE : 0;
		if (e.family == AF_INET) {
			/* Dual stack: an IPv6 socket on that port. */
			e.family = AF_INET6;
			if (libc_connect(fd, (struct sockaddr *)&un,
					 swrap_addr_unix(s->conf, &e, &un)) ==
			    0) {
				goto out;
			}
			if (errno == EPROTOTYPE) {
				seq = EPROTOTYPE;
			}
		}
		CWRAP_TRACE("fd %d: %s not connectable (%s): connected by "
			    "name only",
			    fd, un.sun_path, strerror(errno));
	}
	/* Forget a peer connected before. */
	libc_connect(fd, &unspec, sizeof(unspec));
	swrap_lock();
	s->flags &= ~SWRAP_SOCK_KCONN;
	swrap_unlock();
	errno = saved;
	return seq;
out:
	swrap_lock();
	s->flags |= SWRAP_SOCK_KCONN;
	swrap_unlock();
	errno = saved;
	return 0;
}

int swrap_connect(struct swrap_sock *s, int fd, const struct sockaddr *sa,
		  socklen_t len)
{
	const struct swrap_conf *c = s->conf;
	struct swrap_ep ep;
	int err;

	if (sa != NULL && len >= sizeof(sa_family_t) &&
	    sa->sa_family == AF_UNSPEC && s->type == SOCK_DGRAM) {
		swrap_sock_dgram_connect(s, fd, NULL);
		swrap_group_peer(s, NULL);
		swrap_lock();
		s->flags &= ~SWRAP_SOCK_CONNECTED;
		s->peer_len = 0;
		swrap_unlock();
		return 0;
	}
	err = swrap_addr_decode(c, sa, len, s->family,
				s->type == SOCK_DGRAM ? SWRAP_ADDR_DGRAM
						      : SWRAP_ADDR_CONNECT,
				(s->flags & SWRAP_SOCK_V6ONLY) != 0, &ep);
	if (err == EADDRNOTAVAIL) {
		err = ENETUNREACH;
	}
	if (err != 0) {
		errno = err;
		return -1;
	}
	ep.type = s->type;
	if (ep.iface == 0) {
		ep.iface = c->default_iface;
	}
	return swrap_sock_connect_ep(s, fd, &ep);
}

int swrap_sock_connect_ep(struct swrap_sock *s, int fd,
			  const struct swrap_ep *to)
{
	struct swrap_ep ep = *to;
	int err, rc;

	if (s->type == SOCK_DGRAM) {
		if (ep.iface == SWRAP_IFACE_BCAST &&
		    !(s->flags & SWRAP_SOCK_BROADCAST)) {
			errno = EACCES;
			return -1;
		}
		if (!(s->flags & SWRAP_SOCK_BOUND) &&
		    swrap_autobind(s, fd) != 0) {
			return -1;
		}
		if (swrap_sock_dgram_connect(s, fd, &ep) == EPROTOTYPE) {
			return swrap_quic_fallback(s, fd, &ep);
		}
		swrap_group_peer(s, &ep);
		swrap_sock_set_peer(s, &ep);
		return 0;
	}
	/* a stream or QUIC socket */
	if (ep.iface == SWRAP_IFACE_BCAST) {
		errno = ENETUNREACH;
		return -1;
	}
	if ((s->flags & (SWRAP_SOCK_CONNECTED | SWRAP_SOCK_QUIC_PENDING)) ==
	    SWRAP_SOCK_CONNECTED) {
		/* (a QUIC client before its first send names another
		 * peer, as a UDP socket may) */
		errno = s->type == SOCK_STREAM && swrap_faults_connecting(s, fd)
			    ? EALREADY
			    : EISCONN;
		return -1;
	}
	/* A second connect() after a nonblocking one that failed reports
	 * the failure, once (as SO_ERROR would). */
	if (s->pending_error != 0 && (err = swrap_sock_take_error(s)) != 0) {
		errno = err;
		return -1;
	}
	if (s->flags & SWRAP_SOCK_LISTENING) {
		errno = EINVAL;
		return -1;
	}
	if (s->type == SOCK_SEQPACKET) {
		return swrap_quic_connect(s, fd, &ep);
	}
	if (!(s->flags & SWRAP_SOCK_BOUND) && bind_abstract(s, fd) != 0) {
		return -1;
	}
	if (cwrap_unlikely(swrap_faults_armed())) {
		switch (swrap_faults_connect(s, fd, &ep)) {
		case SWRAP_FAULTS_PASS:
			break;
		case SWRAP_FAULTS_REFUSED:
			return swrap_sock_refused(s, fd, &ep);
		default:
			return -1; /* blackholed by SOCKET_WRAPPER_FAULTS */
		}
	}
	rc = connect_ep(s, fd, &ep);
	if (rc < 0 && (errno == ENOENT || errno == ECONNREFUSED) &&
	    ep.family == AF_INET) {
		/* No IPv4 listener: an IPv6 one on the wildcard address
		 * takes IPv4 connections too (dual stack), as on Linux. */
		struct swrap_ep e6 = ep;

		e6.family = AF_INET6;
		rc = connect_ep(s, fd, &e6);
		if (rc < 0 && errno == ENOENT) {
			errno = ECONNREFUSED;
		}
	}
	if (rc == 0) {
		/* Also for a nonblocking socket: the connection is complete,
		 * which connect() may say at once (poll reports it writable,
		 * SO_ERROR is 0). */
		swrap_sock_set_peer(s, &ep);
		swrap_io_report(s, SWRAP_PCAP_CONNECT, NULL, 0, 0);
		return 0;
	}
	if (errno != ENOENT && errno != ECONNREFUSED) {
		return -1;
	}
	CWRAP_DEBUG("connect to interface %u port %u: nobody listens", ep.iface,
		    ep.port);
	return swrap_sock_refused(s, fd, &ep);
}

int swrap_sock_refused(struct swrap_sock *s, int fd, const struct swrap_ep *ep)
{
	if (swrap_pcap_enabled()) {
		struct sockaddr_storage peer;
		socklen_t plen =
		    swrap_addr_encode(s->conf, ep, s->family, &peer);

		swrap_io_report_to(s, SWRAP_PCAP_CONNECT_REFUSED, &peer, plen,
				   NULL, 0, 0);
	}
	if ((libc_ptr_fcntl()(fd, F_GETFL) & O_NONBLOCK) != 0) {
		swrap_lock();
		s->pending_error = ECONNREFUSED;
		swrap_unlock();
		errno = EINPROGRESS;
		return -1;
	}
	errno = ECONNREFUSED;
	return -1;
}

int swrap_accept(struct swrap_sock *s, int fd, struct sockaddr *sa,
		 socklen_t *len, int flags)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un un;
	socklen_t ulen = sizeof(un);
	struct swrap_sock *n;
	struct swrap_ep lep, pep;
	int nfd;

	if (s->type == SOCK_DGRAM) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!swrap_sock_room()) {
		/* Refused before the kernel hands over the connection, which
		 * stays queued for an accept() once there is room. */
		return -1;
	}
	memset(&un, 0, sizeof(un));
	nfd = libc_accept4(fd, (struct sockaddr *)&un, &ulen, flags);
	if (nfd < 0) {
		return -1;
	}
	n = swrap_sock_new(c, s->family, s->type, true);
	if (n == NULL) {
		int e = errno;

		libc_close(nfd);
		errno = e;
		return -1;
	}
	n->protocol = s->protocol; /* (a QUIC listener's are QUIC too) */
	n->shown_type = s->shown_type;
	if (!swrap_addr_from_unix(c, &s->path, sizeof(s->path), &lep)) {
		swrap_sock_local_ep(s, &lep);
		if (lep.iface == 0) {
			lep.iface = c->default_iface;
		}
	}
	if (!swrap_addr_from_unix(c, &un, ulen, &pep)) {
		/* An unbound peer (a plain unix client): show it as port 0 on
		 * the default interface. */
		pep = lep;
		pep.iface = c->default_iface;
		pep.port = 0;
	}
	n->local_len = swrap_addr_encode(c, &lep, s->family, &n->local);
	n->bound_iface = lep.iface;
	n->peer_len = swrap_addr_encode(c, &pep, s->family, &n->peer);
	n->flags = SWRAP_SOCK_CONNECTED;
	if (swrap_fdtab_set(nfd, n) != 0) {
		libc_close(nfd);
		swrap_sock_unref(n);
		errno = EMFILE;
		return -1;
	}
	swrap_io_report(n, SWRAP_PCAP_ACCEPT, NULL, 0, 0);
	swrap_addr_copy_out(&n->peer, n->peer_len, sa, len);
	return nfd;
}

int swrap_getsockname(struct swrap_sock *s, struct sockaddr *sa, socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t l;

	if (len == NULL) {
		errno = EFAULT;
		return -1;
	}
	swrap_lock();
	ss = s->local;
	l = s->local_len;
	if (l != 0 && (s->flags & SWRAP_SOCK_CONNECTED)) {
		/* Bound to the wildcard and connected: the kernel names the
		 * address it sends from, never 0.0.0.0 or ::. */
		struct swrap_ep ep;

		swrap_sock_src_ep(s, &ep);
		l = swrap_addr_encode(s->conf, &ep, s->family, &ss);
	}
	swrap_unlock();
	if (l == 0) {
		struct swrap_ep ep = {.family = s->family};

		l = swrap_addr_encode(s->conf, &ep, s->family, &ss);
	}
	swrap_addr_copy_out(&ss, l, sa, len);
	return 0;
}

int swrap_getpeername(struct swrap_sock *s, struct sockaddr *sa, socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t l = 0;

	if (len == NULL) {
		errno = EFAULT;
		return -1;
	}
	swrap_lock();
	if (s->flags & SWRAP_SOCK_CONNECTED) {
		ss = s->peer;
		l = s->peer_len;
	}
	swrap_unlock();
	if (l == 0) {
		errno = ENOTCONN;
		return -1;
	}
	swrap_addr_copy_out(&ss, l, sa, len);
	return 0;
}

static struct swrap_opt *find_opt(struct swrap_sock *s, int level, int name)
{
	for (int i = 0; i < s->nopts; i++) {
		if (s->opts[i].level == level && s->opts[i].name == name) {
			return &s->opts[i];
		}
	}
	return NULL;
}

static void remember(struct swrap_sock *s, int level, int name, const void *val,
		     socklen_t len)
{
	struct swrap_opt *o;

	swrap_lock();
	o = find_opt(s, level, name);
	if (o == NULL && s->nopts < SWRAP_MAX_OPTS) {
		o = &s->opts[s->nopts++];
	}
	if (o != NULL) {
		o->level = level;
		o->name = name;
		o->len = len < SWRAP_OPT_LEN ? len : SWRAP_OPT_LEN;
		memset(o->val, 0, sizeof(o->val));
		memcpy(o->val, val, o->len);
	}
	swrap_unlock();
}

bool swrap_sock_opt_int(struct swrap_sock *s, int level, int name, int *val)
{
	struct swrap_opt *o;
	bool found = false;

	swrap_lock();
	o = find_opt(s, level, name);
	if (o != NULL) {
		*val = 0;
		memcpy(val, o->val,
		       o->len < sizeof(int) ? o->len : sizeof(int));
		found = true;
	}
	swrap_unlock();
	return found;
}

static void set_flag(struct swrap_sock *s, unsigned flag, const void *val,
		     socklen_t len)
{
	int on = 0;

	memcpy(&on, val, len < sizeof(int) ? len : sizeof(int));
	swrap_lock();
	if (on) {
		s->flags |= flag;
	} else {
		s->flags &= ~flag;
	}
	swrap_unlock();
}

/* Does this level make sense for this socket, as the IP stack sees it?
 * An emulated QUIC socket answers the TCP level as a TCP socket, as
 * upstream's does: smbd asks TCP_INFO of its QUIC connections (the
 * retransmission timeout of an oplock break) and drops the client on an
 * error. */
static bool level_ok(const struct swrap_sock *s, int level)
{
	switch (level) {
	case IPPROTO_TCP:
		return s->protocol == IPPROTO_TCP ||
		       s->protocol == SWRAP_IPPROTO_QUIC;
	case IPPROTO_UDP:
		return s->protocol == IPPROTO_UDP; /* (not QUIC's) */
	case IPPROTO_IPV6:
		return s->family == AF_INET6;
	default:
		return true;
	}
}

int swrap_setsockopt(struct swrap_sock *s, int fd, int level, int name,
		     const void *val, socklen_t len)
{
	int rc;

	if (val == NULL && len > 0) {
		errno = EFAULT;
		return -1;
	}
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_REUSEPORT:
			if (len < sizeof(int)) {
				errno = EINVAL;
				return -1;
			}
			/* Recorded only: Linux refuses it on unix sockets. */
			set_flag(s, SWRAP_SOCK_REUSEPORT, val, len);
			return 0;
		case SO_REUSEADDR:
		case SO_BROADCAST:
			if (len < sizeof(int)) {
				errno = EINVAL;
				return -1;
			}
			set_flag(s,
				 name == SO_REUSEADDR ? SWRAP_SOCK_REUSEADDR
						      : SWRAP_SOCK_BROADCAST,
				 val, len);
			return 0;
		default:
			break;
		}
		rc = libc_setsockopt(fd, level, name, val, len);
		if (rc < 0 && (errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
			remember(s, level, name, val, len);
			return 0;
		}
		return rc;
	}
	if (level != IPPROTO_IP && level != IPPROTO_IPV6 &&
	    level != IPPROTO_TCP && level != IPPROTO_UDP) {
		/* A level the IP stack does not know (SOL_QUIC, SOL_TLS
		 * without its ULP): the kernel's ENOPROTOOPT, where the unix
		 * socket would say EOPNOTSUPP. (getsockopt() of one is
		 * EOPNOTSUPP in both.) */
		errno = ENOPROTOOPT;
		return -1;
	}
	if (!level_ok(s, level)) {
		errno = ENOPROTOOPT;
		return -1;
	}
	if (len < sizeof(int) && level != IPPROTO_IP) {
		errno = EINVAL;
		return -1;
	}
	if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
		if (s->flags & SWRAP_SOCK_BOUND) {
			errno = EINVAL;
			return -1;
		}
		set_flag(s, SWRAP_SOCK_V6ONLY, val, len);
		return 0;
	}
	if (level == IPPROTO_TCP && name != TCP_CONGESTION && name != TCP_ULP &&
	    name != TCP_MD5SIG) {
		int v, err;

		memcpy(&v, val, sizeof(v));
		err = swrap_tcp_setsockopt_value(name, &v);
		if (err != 0) {
			errno = err;
			return -1;
		}
		remember(s, level, name, &v, sizeof(v));
		return 0;
	}
	remember(s, level, name, val, len);
	return 0;
}

static int int_default(const struct swrap_sock *s, int level, int name)
{
	if ((level == IPPROTO_IP && name == IP_TTL) ||
	    (level == IPPROTO_IPV6 && name == IPV6_UNICAST_HOPS)) {
		return 64;
	}
	if ((level == IPPROTO_IP && name == IP_MULTICAST_TTL) ||
	    (level == IPPROTO_IP && name == IP_MULTICAST_LOOP) ||
	    (level == IPPROTO_IPV6 && name == IPV6_MULTICAST_HOPS) ||
	    (level == IPPROTO_IPV6 && name == IPV6_MULTICAST_LOOP)) {
		return 1;
	}
	if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
		return (s->flags & SWRAP_SOCK_V6ONLY) != 0;
	}
	if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_QUICKACK:
			return 1; /* not in delayed-ACK mode */
		case TCP_KEEPIDLE:
			return 7200;
		case TCP_KEEPINTVL:
			return 75;
		case TCP_KEEPCNT:
			return 9;
		default:
			break;
		}
	}
	return 0;
}

static int answer_int(int v, void *val, socklen_t *len)
{
	if (val == NULL || len == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (*len > sizeof(int)) {
		*len = sizeof(int);
	}
	memcpy(val, &v, *len);
	return 0;
}

int swrap_getsockopt(struct swrap_sock *s, int fd, int level, int name,
		     void *val, socklen_t *len)
{
	struct swrap_opt *o;
	int v;

	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_DOMAIN:
			return answer_int(s->family, val, len);
		case SO_PROTOCOL:
			return answer_int(s->protocol, val, len);
		case SO_TYPE:
			return answer_int(s->shown_type, val, len);
		case SO_REUSEADDR:
			return answer_int(
			    (s->flags & SWRAP_SOCK_REUSEADDR) != 0, val, len);
		case SO_REUSEPORT:
			return answer_int(
			    (s->flags & SWRAP_SOCK_REUSEPORT) != 0, val, len);
		case SO_BROADCAST:
			return answer_int(
			    (s->flags & SWRAP_SOCK_BROADCAST) != 0, val, len);
		case SO_ERROR:
			if (s->type == SOCK_DGRAM) {
				v = swrap_dgram_error(s, fd);
			} else {
				v = swrap_sock_take_error(s);
			}
			if (v != 0) {
				return answer_int(v, val, len);
			}
			break;
		default:
			break;
		}
		swrap_lock();
		o = find_opt(s, level, name);
		swrap_unlock();
		if (o == NULL) {
			return libc_getsockopt(fd, level, name, val, len);
		}
	} else if (level != IPPROTO_IP && level != IPPROTO_IPV6 &&
		   level != IPPROTO_TCP && level != IPPROTO_UDP) {
		return libc_getsockopt(fd, level, name, val, len);
	}
	if (!level_ok(s, level)) {
		errno = ENOPROTOOPT;
		return -1;
	}
	if (val == NULL || len == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (level == IPPROTO_TCP &&
	    swrap_tcp_getsockopt(s, fd, name, val, len) != 0) {
		return 0;
	}
	swrap_lock();
	o = find_opt(s, level, name);
	if (o != NULL) {
		unsigned char buf[SWRAP_OPT_LEN];
		socklen_t l = o->len;

		memcpy(buf, o->val, sizeof(buf));
		swrap_unlock();
		if (*len < l) {
			l = *len;
		}
		memcpy(val, buf, l);
		*len = l;
		return 0;
	}
	swrap_unlock();
	if (level == IPPROTO_IP && name == IP_OPTIONS) {
		/* No IP options on an emulated connection (sshd checks). */
		*len = 0;
		return 0;
	}
	return answer_int(int_default(s, level, name), val, len);
}

int swrap_shutdown(struct swrap_sock *s, int fd, int how)
{
	int rc = libc_shutdown(fd, how);

	if (rc == 0 && s->type == SOCK_STREAM && how != SHUT_RD &&
	    (s->flags & SWRAP_SOCK_CONNECTED) &&
	    !(s->flags & SWRAP_SOCK_SHUT_WR)) {
		swrap_lock();
		s->flags |= SWRAP_SOCK_SHUT_WR;
		swrap_unlock();
		swrap_io_report(s, SWRAP_PCAP_CLOSE, NULL, 0, 0);
	}
	return rc;
}

bool swrap_sock_name_shared(const struct swrap_sock *s)
{
	return s->path.sun_path[0] != '\0' && s->unlink_pid != 0 &&
	       !(s->flags & SWRAP_SOCK_GROUP) &&
	       s->bound_gen != swrap_fork_gen();
}

void swrap_sock_name_closed(const struct swrap_conf *c,
			    const struct sockaddr_un *path, int type)
{
	int saved = errno;

	/* (our own name, bound long ago: no bind of it is in progress, so
	 * a refusal is final, without swrap_unix_name_dead's retries) */
	if (unix_name_refuses(path, swrap_addr_path_len(path))) {
		swrap_addr_unlink_marker(c, type, path);
		unlink(path->sun_path);
	}
	errno = saved;
}

void swrap_sock_finish(struct swrap_sock *s)
{
	if (s->type == SOCK_STREAM && (s->flags & SWRAP_SOCK_CONNECTED) &&
	    !(s->flags & SWRAP_SOCK_SHUT_WR)) {
		swrap_io_report(s, SWRAP_PCAP_CLOSE, NULL, 0, 0);
	}
	/* (A name another process may hold too is looked at once the
	 * kernel closed the socket: swrap_close.) */
	if (s->path.sun_path[0] != '\0' && s->unlink_pid == swrap_pid() &&
	    !swrap_sock_name_shared(s)) {
		/* Also when another process (a forked child) listened. */
		swrap_addr_unlink_marker(s->conf, s->type, &s->path);
		/* (A group member's file stays while another process holds
		 * its socket: see swrap_close.) */
		if (!(s->flags & SWRAP_SOCK_GROUP)) {
			unlink(s->path.sun_path);
		}
	}
}
