/*
 * Data transfer on emulated sockets: read write readv writev send recv
 * sendto recvfrom sendmsg recvmsg, and the capture reports.
 *
 * TCP data goes to the kernel whole (a large write is not cut at the MTU;
 * only the capture splits it); the names given or returned are translated
 * between emulated addresses and unix paths. UDP datagrams are sent to the
 * unix socket of the destination with sendmsg(): to nobody, they vanish
 * (like UDP, and the capture shows an ICMP port unreachable, which a
 * connected socket then reports as ECONNREFUSED); to the
 * broadcast address, they go to every interface bound to that port (to
 * every member of a SO_REUSEPORT group there). A SOCK_SEQPACKET record (a
 * QUIC socket, swrap_quic.c) takes the stream path, past no network
 * conditions, each message one datagram in the capture, and its receives
 * name the emulated peer.
 * No lock: records are read as the last state change left them.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cwrap_log.h"
#include "swrap.h"
#include "faults/swrap_faults.h"
#include "swrap_libc.h"
#include "capture/swrap_pcap.h"

void swrap_io_report_to(const struct swrap_sock *s, int event,
			const struct sockaddr_storage *peer, socklen_t plen,
			const struct iovec *iov, int iovcnt, size_t len)
{
	swrap_io_report_from(s, event, NULL, peer, plen, iov, iovcnt, len);
}

void swrap_io_report_from(const struct swrap_sock *s, int event,
			  const struct swrap_ep *from,
			  const struct sockaddr_storage *peer, socklen_t plen,
			  const struct iovec *iov, int iovcnt, size_t len)
{
	const struct swrap_conf *c;
	struct sockaddr_storage local;
	socklen_t llen;
	struct swrap_ep ep;
	int sotype = s->type;

	if (cwrap_likely(!swrap_pcap_enabled())) {
		return;
	}
	if (sotype == SOCK_SEQPACKET) {
		/* QUIC: UDP datagrams between the two addresses, nothing
		 * of a connection (no handshake, FIN or reset). */
		if (event != SWRAP_PCAP_SEND && event != SWRAP_PCAP_RECV) {
			return;
		}
		sotype = SOCK_DGRAM;
	}
	if (cwrap_unlikely(s->fstate != NULL) && event == SWRAP_PCAP_CLOSE &&
	    swrap_faults_fin_by_relay(s)) {
		return;
	}
	c = s->conf;
	if (from != NULL) {
		ep = *from;
	} else {
		swrap_sock_src_ep(s, &ep);
	}
	llen = swrap_addr_encode(c, &ep, s->family, &local);
	if (peer == NULL) {
		peer = &s->peer;
		plen = s->peer_len;
	}
	swrap_pcap_event((enum swrap_pcap_event)event, sotype,
			 (const struct sockaddr *)&local, llen,
			 (const struct sockaddr *)peer, plen, iov, iovcnt, len);
}

void swrap_io_report(const struct swrap_sock *s, int event,
		     const struct iovec *iov, int iovcnt, size_t len)
{
	swrap_io_report_to(s, event, NULL, 0, iov, iovcnt, len);
}

static size_t iov_total(const struct iovec *iov, size_t cnt)
{
	size_t n = 0;

	for (size_t i = 0; i < cnt; i++) {
		n += iov[i].iov_len;
	}
	return n;
}

/* Network conditions for this stream call: a TCP socket's only. */
static inline bool stream_faults(const struct swrap_sock *s)
{
	return cwrap_unlikely(swrap_faults_armed()) && s->type == SOCK_STREAM;
}

/* TCP: report what the kernel moved, or a reset. */
static ssize_t tcp_done(const struct swrap_sock *s, ssize_t r, int event,
			const struct iovec *iov, int cnt)
{
	if (cwrap_likely(!swrap_pcap_enabled())) {
		return r;
	}
	if (r > 0 && s->type == SOCK_SEQPACKET) {
		/* (MSG_TRUNC: the datagram's length, past the buffer) */
		size_t cap = iov_total(iov, cnt < 0 ? 0 : (size_t)cnt);

		swrap_io_report(s, event, iov, cnt,
				(size_t)r < cap ? (size_t)r : cap);
		return r;
	}
	if (r > 0) {
		if (cwrap_unlikely(s->fstate != NULL) &&
		    swrap_faults_relayed(s, event == SWRAP_PCAP_SEND)) {
			return r; /* the relay reports it when it delivers */
		}
		swrap_io_report(s, event, iov, cnt, (size_t)r);
	} else if (r < 0 && (errno == ECONNRESET || errno == EPIPE)) {
		int e = errno;

		swrap_io_report(s, SWRAP_PCAP_RESET, NULL, 0, 0);
		errno = e;
	}
	return r;
}

/* A TCP call while SOCKET_WRAPPER_FAULTS is in force: through the rules
 * (swrap_faults.c), which make the system call. */
static ssize_t tcp_faults(struct swrap_sock *s, int fd, bool out,
			  const struct iovec *iov, int cnt, int flags)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov,
			   .msg_iovlen = cnt < 0 ? 0 : (size_t)cnt};

	if (cnt < 0) {
		errno = EINVAL;
		return -1;
	}
	return tcp_done(s, swrap_faults_stream(s, fd, out, &m, flags),
			out ? SWRAP_PCAP_SEND : SWRAP_PCAP_RECV, iov, cnt);
}

/* ---- A connected UDP socket whose peer is not there -------------------
 * The kernel answers a datagram to a port that nobody has with an ICMP port
 * unreachable, which a connected UDP socket reports once as ECONNREFUSED:
 * by the next send, by the next receive (before any queued datagram) or by
 * SO_ERROR; poll() says POLLERR meanwhile. Here the error waits in
 * pending_error, and a poll() on the unix socket is woken by an empty
 * datagram from an unnamed socket, sent only to an empty queue (so that it
 * is the first there) and taken away with the error. */
static void dgram_refused(struct swrap_sock *s, int fd)
{
	struct sockaddr_un self;
	socklen_t slen = sizeof(self);
	int saved = errno, w;
	char b;

	if (__atomic_exchange_n(&s->pending_error, ECONNREFUSED,
				__ATOMIC_RELAXED) != 0 ||
	    libc_recv(fd, &b, 0, MSG_PEEK | MSG_DONTWAIT) >= 0) {
		errno = saved;
		return;
	}
	if (s->flags & SWRAP_SOCK_KCONN) {
		/* (a peer there that SOCKET_WRAPPER_FAULTS refuses) Only it
		 * may send to a connected unix socket: leave it, which loses
		 * nothing from an empty queue; a send that reaches the peer
		 * again connects anew. */
		swrap_sock_dgram_connect(s, fd, NULL);
	}
	if (libc_getsockname(fd, (struct sockaddr *)&self, &slen) == 0 &&
	    (w = libc_socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0) {
		(void)libc_sendto(w, &b, 0, MSG_DONTWAIT,
				  (const struct sockaddr *)&self, slen);
		libc_close(w);
	}
	errno = saved;
}

static inline bool dgram_ok(const struct swrap_sock *s)
{
	return __atomic_load_n(&s->pending_error, __ATOMIC_RELAXED) == 0;
}

/* The error, taken (0: none), the wake-up left where it is. */
static int dgram_take(struct swrap_sock *s)
{
	return __atomic_exchange_n(&s->pending_error, 0, __ATOMIC_RELAXED);
}

/* Whether the datagram to dst goes to the connected socket's peer. */
static bool dgram_to_peer(const struct swrap_sock *s,
			  const struct sockaddr_storage *dst, socklen_t dlen)
{
	return (s->flags & SWRAP_SOCK_CONNECTED) && dlen == s->peer_len &&
	       memcmp(dst, &s->peer, dlen) == 0;
}

int swrap_dgram_error(struct swrap_sock *s, int fd)
{
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	int err, saved;
	char b;

	if (cwrap_likely(dgram_ok(s))) {
		return 0;
	}
	err = dgram_take(s);
	if (err == 0) {
		return 0;
	}
	/* The wake-up, if it is still first in the queue. */
	saved = errno;
	from.sun_family = AF_UNSPEC;
	if (libc_recvfrom(fd, &b, 0, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC,
			  (struct sockaddr *)&from, &flen) == 0 &&
	    flen <= offsetof(struct sockaddr_un, sun_path)) {
		(void)libc_recv(fd, &b, 0, MSG_DONTWAIT);
	}
	errno = saved;
	return err;
}

/* A receive that got an empty datagram while the error waits: the
 * wake-up, met by a receive that was already waiting (in another thread)
 * when the error came. The error instead (a peek leaves the wake-up
 * first in the queue: it goes with the error). */
static ssize_t dgram_got(struct swrap_sock *s, int fd, ssize_t r, int flags)
{
	int err;

	if (cwrap_likely(r != 0) || dgram_ok(s)) {
		return r;
	}
	err = (flags & MSG_PEEK) ? swrap_dgram_error(s, fd) : dgram_take(s);
	if (err == 0) {
		return r;
	}
	errno = err;
	return -1;
}

ssize_t swrap_io_dgram_unreach(struct swrap_sock *s, int fd,
			       const struct swrap_ep *from,
			       const struct sockaddr_storage *dst,
			       socklen_t dlen, const struct msghdr *msg,
			       size_t total)
{
	swrap_io_report_from(s, SWRAP_PCAP_SEND_UNREACH, from, dst, dlen,
			     msg->msg_iov, (int)msg->msg_iovlen, total);
	if (dgram_to_peer(s, dst, dlen)) {
		dgram_refused(s, fd);
	}
	return (ssize_t)total;
}

/* A send or receive on a UDP socket: that error comes first. */
static bool dgram_failed(struct swrap_sock *s, int fd)
{
	int err = swrap_dgram_error(s, fd);

	if (cwrap_likely(err == 0)) {
		return false;
	}
	errno = err;
	return true;
}

static ssize_t dgram_send_one(int fd, const struct msghdr *msg, int flags,
			      const struct sockaddr_un *un, socklen_t ulen)
{
	struct msghdr m;

	if (msg->msg_iovlen == 1 && msg->msg_controllen == 0) {
		/* sendto: the kernel copies no msghdr. */
		return libc_sendto(fd, msg->msg_iov[0].iov_base,
				   msg->msg_iov[0].iov_len, flags,
				   (const struct sockaddr *)un, ulen);
	}
	m = *msg;
	m.msg_name = (void *)un;
	m.msg_namelen = ulen;
	return libc_sendmsg(fd, &m, flags);
}

/* Through the unix socket's own connection (SWRAP_SOCK_KCONN). */
static ssize_t dgram_send_conn(int fd, const struct msghdr *msg, int flags)
{
	struct msghdr m;

	if (msg->msg_iovlen == 1 && msg->msg_controllen == 0) {
		return libc_send(fd, msg->msg_iov[0].iov_base,
				 msg->msg_iov[0].iov_len, flags);
	}
	m = *msg;
	m.msg_name = NULL;
	m.msg_namelen = 0;
	return libc_sendmsg(fd, &m, flags);
}

/* To the name *un of `ep` (from `from` when IP_PKTINFO chose a source),
 * or, if it is a SO_REUSEPORT group's, to the member for this sender and,
 * while those are gone or connected to another peer, to the next ones;
 * *un is the last name tried. */
static ssize_t dgram_send_named(struct swrap_sock *s, int fd,
				const struct msghdr *msg, int flags,
				const struct swrap_ep *ep, struct sockaddr_un *un,
				socklen_t *ulen, const struct swrap_ep *from)
{
	unsigned gk = 0, gn = swrap_group_dgram(s, ep, un, ulen, &gk);
	ssize_t r;

	for (unsigned i = 1;; i++) {
		if (from != NULL) {
			struct msghdr m = *msg;

			m.msg_name = un;
			m.msg_namelen = *ulen;
			/* (A broadcast-bound socket sends under the abstract
			 * name: no file that a bind() could meet.) */
			r = swrap_cmsg_send_from(
			    s->conf, from, s->bound_iface != SWRAP_IFACE_BCAST,
			    fd, &m, flags);
		} else {
			r = dgram_send_one(fd, msg, flags, un, *ulen);
		}
		if (r >= 0 || i >= gn ||
		    (errno != ENOENT && errno != ECONNREFUSED &&
		     errno != EPERM)) {
			return r;
		}
		*ulen = swrap_group_name(s->conf, ep, (gk + i) % gn, un);
	}
}

/* sendmsg() of a datagram; `filter`: past SOCKET_WRAPPER_FAULTS first. */
static ssize_t dgram_sendmsg(struct swrap_sock *s, int fd,
			     const struct msghdr *msg, int flags, bool filter)
{
	const struct swrap_conf *c = s->conf;
	size_t total = iov_total(msg->msg_iov, msg->msg_iovlen);
	struct sockaddr_storage dst;
	socklen_t dlen;
	struct sockaddr_un un;
	socklen_t ulen;
	struct swrap_ep ep, from;
	unsigned gn;
	bool chosen, kconn = false;
	int saved_errno = errno;
	ssize_t r;

	if (msg->msg_name != NULL && msg->msg_namelen != 0 &&
	    !(s->family == AF_INET6 &&
	      msg->msg_namelen >= sizeof(sa_family_t) &&
	      ((const struct sockaddr *)msg->msg_name)->sa_family ==
		  AF_UNSPEC)) {
		/* (AF_UNSPEC on IPv6 means "no address", as in the kernel.) */
		int err =
		    swrap_addr_decode(c, msg->msg_name, msg->msg_namelen,
				      s->family, SWRAP_ADDR_SENDTO,
				      (s->flags & SWRAP_SOCK_V6ONLY) != 0, &ep);

		if (err == EADDRNOTAVAIL) {
			err = ENETUNREACH;
		}
		if (err != 0) {
			errno = err;
			return -1;
		}
		ep.type = SOCK_DGRAM;
		if (ep.iface == 0) {
			ep.iface = c->default_iface;
		}
	} else if (s->flags & SWRAP_SOCK_CONNECTED) {
		swrap_addr_to_ep(&s->peer, SOCK_DGRAM, &ep);
		kconn = (s->flags & SWRAP_SOCK_KCONN) != 0;
	} else {
		errno = EDESTADDRREQ;
		return -1;
	}
	if (ep.iface == SWRAP_IFACE_BCAST &&
	    !(s->flags & SWRAP_SOCK_BROADCAST)) {
		errno = EACCES;
		return -1;
	}
	if (dgram_failed(s, fd)) {
		return -1;
	}
	if (!(s->flags & SWRAP_SOCK_BOUND) && swrap_autobind(s, fd) != 0) {
		return -1;
	}
	dlen = swrap_addr_encode(c, &ep, s->family, &dst);
	chosen = swrap_cmsg_chosen_source(s, msg, &from);
	if (filter && cwrap_unlikely(swrap_faults_armed())) {
		switch (swrap_faults_dgram(s, fd, msg, flags, &ep, total, &r)) {
		case SWRAP_FAULTS_PASS:
			break;
		case SWRAP_FAULTS_REFUSED:
			return swrap_io_dgram_unreach(s, fd, NULL, &dst, dlen,
						      msg, total);
		case SWRAP_FAULTS_LOST:
			swrap_io_report_to(s, SWRAP_PCAP_SEND, &dst, dlen,
					   msg->msg_iov, (int)msg->msg_iovlen,
					   total);
			return (ssize_t)total;
		default:
			return r; /* duplicated or reordered */
		}
	}
	if (ep.iface == SWRAP_IFACE_BCAST) {
		struct sockaddr_un made;
		int sfd = chosen
			      ? swrap_cmsg_source_open(
				    c, &from,
				    s->bound_iface != SWRAP_IFACE_BCAST, &made)
			      : -1;

		/* Every interface (FF: the sockets bound to the broadcast
		 * address itself) */
		for (unsigned i = 1; i <= SWRAP_IFACE_BCAST; i++) {
			ep.iface = i;
			ulen = swrap_addr_unix(c, &ep, &un);
			gn = swrap_group_members(c, &un);
			/* every member of a SO_REUSEPORT group gets a copy,
			 * as from the kernel (not one chosen by flow) */
			for (unsigned k = 0; k < (gn ? gn : 1); k++) {
				if (k > 0) {
					ulen = swrap_group_name(c, &ep, k, &un);
				}
				(void)dgram_send_one(sfd >= 0 ? sfd : fd, msg,
						     flags | MSG_DONTWAIT, &un,
						     ulen);
			}
		}
		if (sfd >= 0) {
			swrap_cmsg_source_close(sfd, &made);
		}
		swrap_io_report_from(s, SWRAP_PCAP_SEND, chosen ? &from : NULL,
				     &dst, dlen, msg->msg_iov,
				     (int)msg->msg_iovlen, total);
		errno = saved_errno; /* interfaces with nobody on the port */
		return (ssize_t)total;
	}
	ulen = swrap_addr_unix(c, &ep, &un);
	if (kconn && !chosen) {
		/* No name to look up. A peer that is gone (a server that
		 * restarted on the name, a SO_REUSEPORT member that died)
		 * refuses: connect to whoever has the name now, and send by
		 * name. */
		r = dgram_send_conn(fd, msg, flags);
		if (r >= 0 || (errno != ECONNREFUSED && errno != ENOTCONN)) {
			goto sent;
		}
		swrap_sock_dgram_connect(s, fd, &ep);
	}
	r = dgram_send_named(s, fd, msg, flags, &ep, &un, &ulen,
			     chosen ? &from : NULL);
sent:
	if (r < 0 && (errno == ENOENT || errno == ECONNREFUSED) &&
	    ep.family == AF_INET) {
		/* Dual stack: an IPv6 socket (or group) on the same port. */
		ep.family = AF_INET6;
		ulen = swrap_addr_unix(c, &ep, &un);
		r = dgram_send_named(s, fd, msg, flags, &ep, &un, &ulen,
				     chosen ? &from : NULL);
		ep.family = AF_INET;
	}
	if (r < 0 && errno == EPROTOTYPE) {
		/* A QUIC socket has the address: a datagram reaches it only
		 * from a connected client, remade by
		 * SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK (connect). */
		CWRAP_DEBUG("datagram to %s: a QUIC socket's address, "
			    "EHOSTUNREACH",
			    un.sun_path);
		errno = EHOSTUNREACH;
		return -1;
	}
	if (r < 0 &&
	    (errno == ENOENT || errno == ECONNREFUSED || errno == EPERM)) {
		/* (EPERM: the receiver is connected to another peer, as a
		 * connected UDP socket drops datagrams from others.) */
		CWRAP_TRACE("datagram to %s: nobody there, dropped",
			    un.sun_path);
		/* sent, as far as the program can tell: errno as it was */
		errno = saved_errno;
		return swrap_io_dgram_unreach(s, fd, chosen ? &from : NULL,
					      &dst, dlen, msg, total);
	}
	if (r > 0) {
		swrap_io_report_from(s, SWRAP_PCAP_SEND, chosen ? &from : NULL,
				     &dst, dlen, msg->msg_iov,
				     (int)msg->msg_iovlen, (size_t)r);
	}
	if (r >= 0 && !kconn && !chosen && !(s->flags & SWRAP_SOCK_KCONN) &&
	    dgram_to_peer(s, &dst, dlen)) {
		/* The peer is there now (bound after our connect(), back
		 * after a refusal): connect to it in the kernel too. */
		swrap_sock_dgram_connect(s, fd, &ep);
	}
	return r;
}

ssize_t swrap_io_dgram_send(struct swrap_sock *s, int fd,
			    const struct msghdr *msg, int flags)
{
	return dgram_sendmsg(s, fd, msg, flags, false);
}

/* recvfrom with the sender's name translated (no msghdr to copy). */
static ssize_t dgram_recvfrom(struct swrap_sock *s, int fd, void *buf, size_t n,
			      int flags, struct sockaddr *sa, socklen_t *len)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un un;
	socklen_t ulen = sizeof(un);
	struct sockaddr_storage src;
	socklen_t slen = 0;
	struct swrap_ep ep;
	ssize_t r;

	if (dgram_failed(s, fd)) {
		return -1;
	}
	un.sun_family = AF_UNSPEC;
	r = dgram_got(
	    s, fd,
	    libc_recvfrom(fd, buf, n, flags, (struct sockaddr *)&un, &ulen),
	    flags);
	if (r < 0) {
		return r;
	}
	if (swrap_addr_from_unix(c, &un, ulen, &ep)) {
		slen = swrap_addr_encode(c, &ep, s->family, &src);
	}
	if (sa != NULL && len != NULL) {
		swrap_addr_copy_out(&src, slen, sa, len);
	}
	if (slen != 0 && !(flags & MSG_PEEK) && swrap_pcap_enabled()) {
		struct iovec iov = {.iov_base = buf, .iov_len = n};

		swrap_io_report_to(s, SWRAP_PCAP_RECV, &src, slen, &iov, 1,
				   (size_t)r < n ? (size_t)r : n);
	}
	return r;
}

static ssize_t dgram_recvmsg(struct swrap_sock *s, int fd, struct msghdr *msg,
			     int flags)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un un;
	struct msghdr m = *msg;
	struct sockaddr_storage src;
	socklen_t slen = 0;
	struct swrap_ep ep;
	size_t ctl_cap = msg->msg_controllen;
	ssize_t r;

	if (dgram_failed(s, fd)) {
		return -1;
	}
	memset(&un, 0, sizeof(un));
	m.msg_name = &un;
	m.msg_namelen = sizeof(un);
	r = dgram_got(s, fd, libc_recvmsg(fd, &m, flags), flags);
	if (r < 0) {
		return r;
	}
	msg->msg_controllen = m.msg_controllen;
	msg->msg_flags = m.msg_flags;
	swrap_cmsg_after_recv(s, msg, ctl_cap);
	if (swrap_addr_from_unix(c, &un, m.msg_namelen, &ep)) {
		slen = swrap_addr_encode(c, &ep, s->family, &src);
	}
	if (msg->msg_name != NULL) {
		swrap_addr_copy_out(&src, slen, msg->msg_name,
				    &msg->msg_namelen);
	} else {
		msg->msg_namelen = 0;
	}
	if (slen != 0 && !(flags & MSG_PEEK)) {
		size_t cap = iov_total(msg->msg_iov, msg->msg_iovlen);

		swrap_io_report_to(s, SWRAP_PCAP_RECV, &src, slen, msg->msg_iov,
				   (int)msg->msg_iovlen,
				   (size_t)r < cap ? (size_t)r : cap);
	}
	return r;
}

/* MSG_ERRQUEUE: no ICMP error is ever queued on an emulated socket, and
 * the kernel answers an empty error queue at once with EAGAIN (a unix
 * socket would wait for data instead: socat reads it after a failed
 * connect()). */
static ssize_t errqueue(void)
{
	errno = EAGAIN;
	return -1;
}

/* The sender's name a receive on a connection reports: none for TCP (as
 * the kernel), the emulated peer for a QUIC socket (a datagram's
 * source). */
static void stream_from(const struct swrap_sock *s, struct sockaddr *sa,
			socklen_t *len)
{
	if (s->type == SOCK_SEQPACKET && sa != NULL &&
	    (s->flags & SWRAP_SOCK_CONNECTED)) {
		swrap_addr_copy_out(&s->peer, s->peer_len, sa, len);
	} else {
		*len = 0;
	}
}

/* A QUIC client's first send connects it (swrap_quic_first_send). */
static inline bool quic_unready(struct swrap_sock *s, int fd)
{
	return cwrap_unlikely(s->flags & SWRAP_SOCK_QUIC_PENDING) &&
	       swrap_quic_first_send(s, fd) != 0;
}

ssize_t swrap_sendmsg(struct swrap_sock *s, int fd, const struct msghdr *msg,
		      int flags)
{
	struct msghdr m;
	ssize_t r;

	if (msg == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (s->type == SOCK_DGRAM) {
		return dgram_sendmsg(s, fd, msg, flags, true);
	}
	if (quic_unready(s, fd)) {
		return -1;
	}
	m = *msg;
	m.msg_name = NULL;
	m.msg_namelen = 0;
	r = stream_faults(s) ? swrap_faults_stream(s, fd, true, &m, flags)
			     : libc_sendmsg(fd, &m, flags);
	return tcp_done(s, r, SWRAP_PCAP_SEND, m.msg_iov, (int)m.msg_iovlen);
}

ssize_t swrap_recvmsg(struct swrap_sock *s, int fd, struct msghdr *msg,
		      int flags)
{
	struct msghdr m;
	ssize_t r;

	if (msg == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (cwrap_unlikely(flags & MSG_ERRQUEUE)) {
		return errqueue();
	}
	if (s->type == SOCK_DGRAM) {
		return dgram_recvmsg(s, fd, msg, flags);
	}
	m = *msg;
	m.msg_name = NULL;
	m.msg_namelen = 0;
	r = stream_faults(s) ? swrap_faults_stream(s, fd, false, &m, flags)
			     : libc_recvmsg(fd, &m, flags);
	if (r >= 0) {
		stream_from(s, msg->msg_name, &msg->msg_namelen);
		msg->msg_controllen = m.msg_controllen;
		msg->msg_flags = m.msg_flags;
		swrap_cmsg_after_recv(s, msg, m.msg_controllen);
	}
	if (flags & MSG_PEEK) {
		return r;
	}
	return tcp_done(s, r, SWRAP_PCAP_RECV, m.msg_iov, (int)m.msg_iovlen);
}

ssize_t swrap_sendto(struct swrap_sock *s, int fd, const void *buf, size_t n,
		     int flags, const struct sockaddr *sa, socklen_t len)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};
	struct msghdr m = {.msg_name = (void *)sa,
			   .msg_namelen = sa != NULL ? len : 0,
			   .msg_iov = &iov,
			   .msg_iovlen = 1};
	ssize_t r;

	if (s->type == SOCK_DGRAM) {
		return dgram_sendmsg(s, fd, &m, flags, true);
	}
	if (quic_unready(s, fd)) {
		return -1;
	}
	if (stream_faults(s)) {
		return tcp_faults(s, fd, true, &iov, 1, flags);
	}
	r = libc_send(fd, buf, n, flags);
	return tcp_done(s, r, SWRAP_PCAP_SEND, &iov, 1);
}

ssize_t swrap_recvfrom(struct swrap_sock *s, int fd, void *buf, size_t n,
		       int flags, struct sockaddr *sa, socklen_t *len)
{
	struct iovec iov = {.iov_base = buf, .iov_len = n};
	ssize_t r;

	if (cwrap_unlikely(flags & MSG_ERRQUEUE)) {
		return errqueue();
	}
	if (s->type == SOCK_DGRAM) {
		if (sa == NULL && cwrap_likely(!swrap_pcap_enabled())) {
			if (dgram_failed(s, fd)) {
				return -1;
			}
			return dgram_got(s, fd, libc_recv(fd, buf, n, flags),
					 flags);
		}
		return dgram_recvfrom(s, fd, buf, n, flags, sa, len);
	}
	if (stream_faults(s)) {
		r = tcp_faults(s, fd, false, &iov, 1, flags);
		if (r >= 0 && sa != NULL && len != NULL) {
			*len = 0;
		}
		return r;
	}
	r = libc_recv(fd, buf, n, flags);
	if (r >= 0 && sa != NULL && len != NULL) {
		stream_from(s, sa, len);
	}
	if (flags & MSG_PEEK) {
		return r;
	}
	return tcp_done(s, r, SWRAP_PCAP_RECV, &iov, 1);
}

ssize_t swrap_read(struct swrap_sock *s, int fd, void *buf, size_t n)
{
	struct iovec iov = {.iov_base = buf, .iov_len = n};

	if (s->type == SOCK_DGRAM && swrap_pcap_enabled()) {
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};

		return dgram_recvmsg(s, fd, &m, 0);
	}
	if (s->type == SOCK_DGRAM) {
		if (dgram_failed(s, fd)) {
			return -1;
		}
		return dgram_got(s, fd, libc_read(fd, buf, n), 0);
	}
	if (stream_faults(s)) {
		return tcp_faults(s, fd, false, &iov, 1, 0);
	}
	return tcp_done(s, libc_read(fd, buf, n), SWRAP_PCAP_RECV, &iov, 1);
}

ssize_t swrap_write(struct swrap_sock *s, int fd, const void *buf, size_t n)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};

	if (s->type == SOCK_DGRAM) {
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		ssize_t r = dgram_sendmsg(s, fd, &m, 0, true);

		if (r < 0 && errno == ENOTSOCK) {
			/* Closed behind our back and reused: not ours. */
			swrap_fdtab_clear(fd);
			return libc_write(fd, buf, n);
		}
		return r;
	}
	if (quic_unready(s, fd)) {
		return -1;
	}
	if (stream_faults(s)) {
		return tcp_faults(s, fd, true, &iov, 1, 0);
	}
	return tcp_done(s, libc_write(fd, buf, n), SWRAP_PCAP_SEND, &iov, 1);
}

ssize_t swrap_readv(struct swrap_sock *s, int fd, const struct iovec *iov,
		    int cnt)
{
	if (s->type == SOCK_DGRAM && swrap_pcap_enabled()) {
		struct msghdr m = {.msg_iov = (struct iovec *)iov,
				   .msg_iovlen = cnt < 0 ? 0 : (size_t)cnt};

		return dgram_recvmsg(s, fd, &m, 0);
	}
	if (s->type == SOCK_DGRAM) {
		if (dgram_failed(s, fd)) {
			return -1;
		}
		return dgram_got(s, fd, libc_readv(fd, iov, cnt), 0);
	}
	if (stream_faults(s)) {
		return tcp_faults(s, fd, false, iov, cnt, 0);
	}
	return tcp_done(s, libc_readv(fd, iov, cnt), SWRAP_PCAP_RECV, iov, cnt);
}

ssize_t swrap_writev(struct swrap_sock *s, int fd, const struct iovec *iov,
		     int cnt)
{
	if (s->type == SOCK_DGRAM) {
		struct msghdr m = {.msg_iov = (struct iovec *)iov,
				   .msg_iovlen = cnt < 0 ? 0 : (size_t)cnt};
		ssize_t r;

		if (cnt < 0) {
			errno = EINVAL;
			return -1;
		}
		r = dgram_sendmsg(s, fd, &m, 0, true);
		if (r < 0 && errno == ENOTSOCK) {
			swrap_fdtab_clear(fd);
			return libc_writev(fd, iov, cnt);
		}
		return r;
	}
	if (quic_unready(s, fd)) {
		return -1;
	}
	if (stream_faults(s)) {
		return tcp_faults(s, fd, true, iov, cnt, 0);
	}
	return tcp_done(s, libc_writev(fd, iov, cnt), SWRAP_PCAP_SEND, iov,
			cnt);
}
