/*
 * IPPROTO_QUIC sockets (socket_wrapper_ipproto_quic_socket(), for Samba's
 * SMB-over-QUIC tests) and the datagram->seqpacket fallback that lets a
 * plain UDP client reach one.
 *
 * A QUIC socket is a record of type SOCK_SEQPACKET (protocol 261, SO_TYPE
 * the type asked for) over an AF_UNIX SOCK_SEQPACKET socket: connections
 * as TCP has them (listen, accept, connect), datagrams whose boundaries
 * stay. As far as names go it is a UDP endpoint: its file is the UDP one
 * ($DIR/U0A0007, Y for IPv6), so that a UDP client's connect() to the
 * server's address meets it. The unix connect of a datagram socket to
 * that name fails with EPROTOTYPE; with
 * SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK the client is remade
 * here as a SOCK_SEQPACKET socket under its descriptor and name, and
 * connected, and takes the QUIC path from then on (SO_TYPE and
 * SO_PROTOCOL stay UDP's). The data path is swrap_io.c's stream one;
 * the capture shows UDP datagrams (swrap_io_report_from).
 *
 * No lock of its own: record changes under swrap_lock(), after the
 * system calls.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "cwrap_log.h"
#include "swrap.h"
#include "swrap_libc.h"

#define SWRAP_FALLBACK_VAR "SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK"

int swrap_quic_socket(const struct swrap_conf *c, int family, int type)
{
	int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct swrap_sock *s;
	int fd;

	if (!c->enabled || (family != AF_INET && family != AF_INET6)) {
		/* The kernel's answer: its QUIC module's socket, or
		 * EPROTONOSUPPORT without it (EAFNOSUPPORT, ...). */
		fd = libc_socket(family, type, SWRAP_IPPROTO_QUIC);
		if (fd >= 0) {
			swrap_fdtab_clear(fd);
		}
		return fd;
	}
	if (base != SOCK_DGRAM && base != SOCK_STREAM) {
		/* No QUIC socket of that type: refused with the kernel's
		 * errno, as socket() refuses it. */
		return swrap_socket(c, family, type, SWRAP_IPPROTO_QUIC);
	}
	fd = swrap_sock_open(c, family, SOCK_SEQPACKET, flags, &s);
	if (fd < 0) {
		return -1;
	}
	s->protocol = SWRAP_IPPROTO_QUIC;
	s->shown_type = base;
	CWRAP_TRACE("fd %d: emulated %s QUIC socket", fd,
		    family == AF_INET ? "IPv4" : "IPv6");
	return fd;
}

/* The unix connect of `fd` to the name of `ep`, or, for an IPv4 address
 * nobody has, of an IPv6 socket on that port (dual stack). */
static int connect_name(const struct swrap_conf *c, int fd,
			const struct swrap_ep *ep)
{
	struct swrap_ep e = *ep;
	struct sockaddr_un un;
	int rc;

	e.type = SOCK_DGRAM; /* the UDP name */
	rc = libc_connect(fd, (struct sockaddr *)&un,
			  swrap_addr_unix(c, &e, &un));
	if (rc < 0 && (errno == ENOENT || errno == ECONNREFUSED) &&
	    e.family == AF_INET) {
		e.family = AF_INET6;
		rc = libc_connect(fd, (struct sockaddr *)&un,
				  swrap_addr_unix(c, &e, &un));
	}
	return rc;
}

/* A QUIC connection begins with the client's first packet: connect()
 * only names the peer (no packet is exchanged), and a server's accept()
 * returns a connection once that packet is there. So the unix connect,
 * which puts the connection in the listener's queue, waits for the first
 * send, as upstream's: Samba's quic_ko_wrapper reads the client's first
 * message as soon as accept() returns, and fails the accept (ENOSR)
 * where there is none yet. Until then a receive finds the unix socket
 * unconnected (ENOTCONN), as upstream's does. */
int swrap_quic_connect(struct swrap_sock *s, int fd, const struct swrap_ep *ep)
{
	/* A file, as a UDP socket's: the server's accept() names it. */
	if (!(s->flags & SWRAP_SOCK_BOUND) && swrap_autobind(s, fd) != 0) {
		return -1;
	}
	swrap_sock_set_peer(s, ep);
	swrap_lock();
	s->flags |= SWRAP_SOCK_QUIC_PENDING;
	swrap_unlock();
	CWRAP_TRACE("fd %d: QUIC peer interface %u port %u, connected at the "
		    "first send",
		    fd, ep->iface, ep->port);
	return 0;
}

int swrap_quic_first_send(struct swrap_sock *s, int fd)
{
	struct swrap_ep ep;
	int rc;

	swrap_sock_eps(s, NULL, &ep);
	rc = connect_name(s->conf, fd, &ep);
	if (rc != 0 && errno == EISCONN) {
		rc = 0; /* another thread's first send came first */
	}
	if (rc == 0) {
		swrap_lock();
		s->flags &= ~SWRAP_SOCK_QUIC_PENDING;
		swrap_unlock();
		return 0;
	}
	if (errno == ENOENT || errno == ECONNREFUSED || errno == EPROTOTYPE) {
		/* (EPROTOTYPE: a UDP socket has the address, no QUIC
		 * listener.) */
		CWRAP_DEBUG("fd %d: QUIC send to interface %u port %u: "
			    "nobody listens",
			    fd, ep.iface, ep.port);
		errno = ECONNREFUSED;
	}
	return -1;
}

/* A unix socket of `kind` bound to the record's file, which it takes
 * over from the socket under `fd` (whose name it was): -1/errno if the
 * file cannot be made again. */
static int rebind(const struct swrap_sock *s, int kind)
{
	int n = libc_socket(AF_UNIX, kind | SOCK_CLOEXEC, 0);

	if (n < 0) {
		return -1;
	}
	unlink(s->path.sun_path);
	if (libc_bind(n, (const struct sockaddr *)&s->path,
		      swrap_addr_path_len(&s->path)) != 0) {
		int e = errno;

		libc_close(n);
		errno = e;
		return -1;
	}
	return n;
}

/* Why the UDP socket `s` may not be remade: NULL if it may. */
static const char *no_fallback(const struct swrap_sock *s)
{
	if (!cwrap_env_true(SWRAP_FALLBACK_VAR)) {
		return SWRAP_FALLBACK_VAR " is not set";
	}
	if (s->flags & (SWRAP_SOCK_PORT_SET | SWRAP_SOCK_GROUP)) {
		return "a server's socket (bound to a port of its own)";
	}
	if (s->path.sun_path[0] == '\0' ||
	    s->bound_iface == SWRAP_IFACE_BCAST) {
		return "no name of its own";
	}
	if (__atomic_load_n(&s->refs, __ATOMIC_RELAXED) != 1) {
		return "another descriptor names it";
	}
	return NULL;
}

/* Remake `s` (a UDP client, unconnected) as a SOCK_SEQPACKET socket on
 * its name, with `ep` its peer, connected at its first send (as
 * swrap_quic_connect's); errno names what failed. */
static int remake(struct swrap_sock *s, int fd, const struct swrap_ep *ep)
{
	int n = rebind(s, SOCK_SEQPACKET), e;

	if (n >= 0 && swrap_sock_replace(fd, n) == 0) {
		swrap_lock();
		s->type = SOCK_SEQPACKET;
		s->flags |= SWRAP_SOCK_QUIC_PENDING;
		s->unlink_pid = swrap_pid();
		s->bound_gen = swrap_fork_gen();
		swrap_unlock();
		swrap_fd_renewed(s, ep);
		return 0;
	}
	e = errno;
	/* The name is the datagram socket's again, as it was (one that
	 * was connected to nobody: nothing queued is lost but what a
	 * stray sender put there). */
	n = rebind(s, SOCK_DGRAM);
	if (n >= 0 && swrap_sock_replace(fd, n) == 0) {
		swrap_fd_renewed(s, NULL);
	}
	errno = e;
	return -1;
}

int swrap_quic_fallback(struct swrap_sock *s, int fd, const struct swrap_ep *ep)
{
	const char *why = no_fallback(s);

	if (why == NULL) {
		if (remake(s, fd, ep) == 0) {
			CWRAP_DEBUG(
			    "fd %d: UDP client remade as SOCK_SEQPACKET "
			    "for the QUIC socket of interface %u port %u, "
			    "connected at its first send (%s)",
			    fd, ep->iface, ep->port, SWRAP_FALLBACK_VAR);
			return 0;
		}
		why = strerror(errno);
	}
	CWRAP_DEBUG("fd %d: UDP connect to interface %u port %u, a QUIC "
		    "socket's address: EHOSTUNREACH (%s)",
		    fd, ep->iface, ep->port, why);
	if (s->flags & SWRAP_SOCK_CONNECTED) {
		swrap_group_peer(s, NULL);
		swrap_lock();
		s->flags &= ~SWRAP_SOCK_CONNECTED;
		s->peer_len = 0;
		swrap_unlock();
	}
	errno = EHOSTUNREACH;
	return -1;
}
