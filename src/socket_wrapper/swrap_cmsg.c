/*
 * Ancillary data on emulated sockets.
 *
 * IP_PKTINFO / IPV6_PKTINFO (IPV6_RECVPKTINFO, IPV6_2292PKTINFO, and
 * IP_RECVDSTADDR where the platform defines it): a unix socket carries no IP
 * headers, so on receive the wrapper appends what the IP stack would have
 * said (the emulated destination address and the loopback interface) after
 * whatever the kernel put in the control buffer, fitted as the kernel fits
 * its own (swrap_cmsg_append); on send it reads the source address the caller
 * chose and sends from it (as a socket bound to the broadcast address
 * sends from the default interface): from a socket bound to that file for
 * one datagram, or to its abstract twin when the file is taken. The
 * kernel itself ignores control messages that are
 * not SOL_SOCKET on a unix socket, so those are passed through untouched.
 *
 * SCM_RIGHTS: descriptors travel through the kernel as they are; every
 * descriptor a recvmsg() brings in is adopted at once (swrap_fd_adopt), so
 * an emulated socket keeps its emulated identity in the receiving process,
 * however many arrive in one message, and anything else is marked as not
 * ours. SCM_CREDENTIALS passes through.
 *
 * Stateless: reads socket records (options under swrap_lock() through
 * swrap_sock_opt_int) and installs adopted ones through swrap_fdtab.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "swrap.h"
#include "swrap_libc.h"

static int swrap_cmsg_loopback_index(void)
{
	static int index;
	int i = __atomic_load_n(&index, __ATOMIC_RELAXED);

	if (i == 0) {
		i = (int)if_nametoindex("lo");
		if (i <= 0) {
			i = 1;
		}
		__atomic_store_n(&index, i, __ATOMIC_RELAXED);
	}
	return i;
}

/* The bytes of `cm` that lie inside the buffer: its cmsg_len, or less when
 * the buffer ends first (CMSG_NXTHDR checks only the header). */
static size_t cmsg_room(const struct msghdr *msg, const struct cmsghdr *cm)
{
	size_t left = (size_t)((const char *)msg->msg_control +
			       msg->msg_controllen - (const char *)cm);

	return cm->cmsg_len < left ? cm->cmsg_len : left;
}

void swrap_cmsg_adopt_rights(const struct msghdr *msg)
{
	struct cmsghdr *cm;

	if (msg->msg_control == NULL || msg->msg_controllen < sizeof(*cm)) {
		return;
	}
	for (cm = CMSG_FIRSTHDR(msg); cm != NULL;
	     cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		size_t n, i;
		int fd;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0)) {
			continue;
		}
		n = (cmsg_room(msg, cm) - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(fd));
			/* The number may have named something else before. */
			swrap_fdtab_clear(fd);
			(void)swrap_fd_adopt(fd);
		}
	}
}

/* Append one control message after those already in msg (`cap` is the
 * size of the caller's buffer), by the kernel's rule (put_cmsg): the
 * message needs CMSG_LEN(len), not CMSG_SPACE(len); with less room but at
 * least a header, it is cut to the room left, with MSG_CTRUNC; with less
 * than a header, only MSG_CTRUNC. */
static void swrap_cmsg_append(struct msghdr *msg, size_t cap, int level,
			      int type, const void *data, size_t len)
{
	size_t off = msg->msg_control != NULL ? msg->msg_controllen : 0;
	size_t room, cmlen = CMSG_LEN(len);
	struct cmsghdr cm;

	if (off > cap) {
		off = cap;
	}
	room = cap - off;
	if (msg->msg_control == NULL || room < sizeof(cm)) {
		msg->msg_flags |= MSG_CTRUNC;
		return;
	}
	if (room < cmlen) {
		msg->msg_flags |= MSG_CTRUNC;
		cmlen = room;
	}
	memset(&cm, 0, sizeof(cm));
	cm.cmsg_len = cmlen;
	cm.cmsg_level = level;
	cm.cmsg_type = type;
	memcpy((char *)msg->msg_control + off, &cm, sizeof(cm));
	memcpy((char *)msg->msg_control + off + CMSG_LEN(0), data,
	       cmlen - CMSG_LEN(0));
	msg->msg_controllen =
	    off + (CMSG_SPACE(len) < room ? CMSG_SPACE(len) : room);
}

static bool swrap_cmsg_opt_on(struct swrap_sock *s, int level, int name)
{
	int v = 0;

	return swrap_sock_opt_int(s, level, name, &v) && v != 0;
}

/* The emulated address a datagram to this socket was sent to. */
static void swrap_cmsg_local(const struct swrap_sock *s,
			     struct sockaddr_storage *ss)
{
	struct swrap_ep ep;

	swrap_sock_src_ep(s, &ep);
	(void)swrap_addr_encode(s->conf, &ep, s->family, ss);
}

void swrap_cmsg_after_recv(struct swrap_sock *s, struct msghdr *msg, size_t cap)
{
	struct sockaddr_storage ss;

	swrap_cmsg_adopt_rights(msg);
	if (s->type != SOCK_DGRAM) {
		return;
	}
	if (s->family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;
		bool pktinfo = swrap_cmsg_opt_on(s, IPPROTO_IP, IP_PKTINFO);
#ifdef IP_RECVDSTADDR
		bool dstaddr = swrap_cmsg_opt_on(s, IPPROTO_IP, IP_RECVDSTADDR);
#else
		bool dstaddr = false;
#endif
		if (!pktinfo && !dstaddr) {
			return;
		}
		swrap_cmsg_local(s, &ss);
		if (pktinfo) {
			struct in_pktinfo pi = {
			    .ipi_ifindex = swrap_cmsg_loopback_index(),
			    .ipi_spec_dst = sin->sin_addr,
			    .ipi_addr = sin->sin_addr,
			};

			if (s->bound_iface == SWRAP_IFACE_BCAST) {
				/* To the broadcast address: the local
				 * address is the interface's. */
				pi.ipi_spec_dst.s_addr = htonl(
				    s->conf->ipv4_net | s->conf->default_iface);
			}

			swrap_cmsg_append(msg, cap, IPPROTO_IP, IP_PKTINFO, &pi,
					  sizeof(pi));
		}
#ifdef IP_RECVDSTADDR
		if (dstaddr) {
			swrap_cmsg_append(msg, cap, IPPROTO_IP, IP_RECVDSTADDR,
					  &sin->sin_addr,
					  sizeof(sin->sin_addr));
		}
#endif
	} else if (s->family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
		    (const struct sockaddr_in6 *)&ss;
		bool rfc3542 =
		    swrap_cmsg_opt_on(s, IPPROTO_IPV6, IPV6_RECVPKTINFO);
		bool rfc2292 =
		    swrap_cmsg_opt_on(s, IPPROTO_IPV6, IPV6_2292PKTINFO);
		struct in6_pktinfo pi;

		if (!rfc3542 && !rfc2292) {
			return;
		}
		swrap_cmsg_local(s, &ss);
		memset(&pi, 0, sizeof(pi));
		pi.ipi6_addr = sin6->sin6_addr;
		pi.ipi6_ifindex = (unsigned)swrap_cmsg_loopback_index();
		swrap_cmsg_append(msg, cap, IPPROTO_IPV6,
				  rfc3542 ? IPV6_PKTINFO : IPV6_2292PKTINFO,
				  &pi, sizeof(pi));
	}
}

bool swrap_cmsg_chosen_source(const struct swrap_sock *s,
			      const struct msghdr *msg, struct swrap_ep *src)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_storage ss;
	struct cmsghdr *cm;
	socklen_t len = 0;
	struct swrap_ep local;

	if (msg->msg_control == NULL || msg->msg_controllen < sizeof(*cm)) {
		if (cwrap_likely(s->bound_iface != SWRAP_IFACE_BCAST)) {
			return false;
		}
		cm = NULL; /* nothing chosen */
	} else {
		cm = CMSG_FIRSTHDR(msg);
	}
	memset(&ss, 0, sizeof(ss));
	for (; cm != NULL; cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		if (cmsg_room(msg, cm) < cm->cmsg_len) {
			/* Past the buffer: the kernel refuses the whole
			 * message (EINVAL) when it is sent. */
			return false;
		}
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			if (pi.ipi_spec_dst.s_addr == htonl(INADDR_ANY)) {
				continue;
			}
			sin->sin_family = AF_INET;
			sin->sin_addr = pi.ipi_spec_dst;
			len = sizeof(*sin);
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
			   (cm->cmsg_type == IPV6_PKTINFO ||
			    cm->cmsg_type == IPV6_2292PKTINFO) &&
			   cm->cmsg_len >=
			       CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			if (IN6_IS_ADDR_UNSPECIFIED(&pi.ipi6_addr)) {
				continue;
			}
			sin6->sin6_family = AF_INET6;
			sin6->sin6_addr = pi.ipi6_addr;
			len = sizeof(*sin6);
		}
	}
	swrap_sock_src_ep(s, &local);
	if (len == 0 ||
	    swrap_addr_decode(c, (struct sockaddr *)&ss, len, s->family,
			      SWRAP_ADDR_BIND, false, src) != 0 ||
	    src->iface == 0 || src->iface == SWRAP_IFACE_BCAST) {
		if (local.iface != SWRAP_IFACE_BCAST) {
			return false;
		}
		/* Bound to the broadcast address: the kernel sends from an
		 * address of the interface, here the default one. */
		src->family = AF_INET;
		src->iface = c->default_iface;
	}
	src->type = SOCK_DGRAM;
	src->port = local.port;
	return src->iface != local.iface;
}

int swrap_cmsg_source_open(const struct swrap_conf *c,
			   const struct swrap_ep *src, bool file,
			   struct sockaddr_un *made)
{
	struct sockaddr_un un;
	socklen_t ulen;
	int tmp = libc_socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	made->sun_path[0] = '\0';
	if (tmp < 0) {
		return -1;
	}
	if (file) {
		ulen = swrap_addr_unix(c, src, &un);
		if (libc_bind(tmp, (struct sockaddr *)&un, ulen) == 0) {
			*made = un;
			return tmp;
		}
	}
	/* The file is another socket's (the one bound to that address):
	 * its twin in the abstract namespace, which our receivers read
	 * as the same address and which leaves no file behind. */
	ulen = swrap_addr_unix_abstract(c, src, &un);
	if (libc_bind(tmp, (struct sockaddr *)&un, ulen) == 0) {
		return tmp;
	}
	CWRAP_DEBUG("cannot send from %s: %s", un.sun_path + 1,
		    strerror(errno));
	libc_close(tmp);
	return -1;
}

void swrap_cmsg_source_close(int tmp, const struct sockaddr_un *made)
{
	int e = errno;

	if (made->sun_path[0] != '\0') {
		unlink(made->sun_path);
	}
	libc_close(tmp);
	errno = e;
}

ssize_t swrap_cmsg_send_from(const struct swrap_conf *c,
			     const struct swrap_ep *src, bool file, int fd,
			     const struct msghdr *msg, int flags)
{
	struct sockaddr_un made;
	int tmp = swrap_cmsg_source_open(c, src, file, &made);
	ssize_t r;

	if (tmp < 0) {
		/* Taken both ways at this moment: send as ourselves. */
		return libc_sendmsg(fd, msg, flags);
	}
	r = libc_sendmsg(tmp, msg, flags);
	swrap_cmsg_source_close(tmp, &made);
	return r;
}
