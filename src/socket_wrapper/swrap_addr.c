/*
 * The emulated address model, pure functions (no state, no lock):
 * interface N is 127.0.0.N (or 10.53.57.N) and fd00::5357:5fNN, the IPv4
 * broadcast address is 127.255.255.255 (10.255.255.255), and the socket of
 * an endpoint is the unix path $SOCKET_WRAPPER_DIR/<T><II><PPPP>: T = TCP/IPv4,
 * U = UDP/IPv4, X = TCP/IPv6, Y = UDP/IPv6, II the interface and PPPP the
 * port in upper-case hex (the names upstream socket_wrapper uses, so both
 * implementations meet in one directory); II = FF is a socket bound to the
 * broadcast address. The same text in the abstract
 * namespace names the implicit bind of a TCP client of ours talking to a
 * listener of ours, and "$DIR/.T0A0007", a hard link to a listener's
 * socket file, says that the listener is ours (see swrap_connect).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_sockname.h"
#include "swrap.h"

static const unsigned char v6_prefix[12] = {0xfd, 0, 0, 0, 0, 0,
					    0,	  0, 0, 0, 0, 0};

static int decode_v4(const struct swrap_conf *c, uint32_t ip, unsigned *iface)
{
	if (ip == INADDR_ANY) {
		*iface = 0;
	} else if (ip == c->ipv4_bcast) {
		*iface = SWRAP_IFACE_BCAST;
	} else if ((ip & 0xffffff00u) == c->ipv4_net && (ip & 0xffu) >= 1 &&
		   (ip & 0xffu) <= SWRAP_IFACE_MAX) {
		*iface = ip & 0xffu;
	} else {
		return EADDRNOTAVAIL;
	}
	return 0;
}

static int decode_in(const struct swrap_conf *c, const struct sockaddr *sa,
		     struct swrap_ep *ep)
{
	struct sockaddr_in sin;

	memcpy(&sin, sa, sizeof(sin));
	ep->family = AF_INET;
	ep->port = ntohs(sin.sin_port);
	return decode_v4(c, ntohl(sin.sin_addr.s_addr), &ep->iface);
}

static int decode_in6(const struct swrap_conf *c, const struct sockaddr *sa,
		      socklen_t len, enum swrap_addr_use use, bool v6only,
		      struct swrap_ep *ep)
{
	struct sockaddr_in6 sin6;
	const unsigned char *b = sin6.sin6_addr.s6_addr;

	/* 24 bytes (RFC 2133, no scope id) are enough for the kernel. */
	memset(&sin6, 0, sizeof(sin6));
	memcpy(&sin6, sa, len < sizeof(sin6) ? len : sizeof(sin6));
	ep->family = AF_INET6;
	ep->port = ntohs(sin6.sin6_port);
	if (IN6_IS_ADDR_UNSPECIFIED(&sin6.sin6_addr)) {
		ep->iface = 0;
		return 0;
	}
	if (IN6_IS_ADDR_V4MAPPED(&sin6.sin6_addr)) {
		uint32_t ip;

		if (v6only) {
			return use == SWRAP_ADDR_BIND ? EINVAL : ENETUNREACH;
		}
		memcpy(&ip, b + 12, 4);
		ep->family = AF_INET;
		return decode_v4(c, ntohl(ip), &ep->iface);
	}
	if (memcmp(b, v6_prefix, 12) == 0 && b[12] == 0x53 && b[13] == 0x57 &&
	    b[14] == 0x5f && b[15] >= 1 && b[15] <= SWRAP_IFACE_MAX) {
		ep->iface = b[15];
		return 0;
	}
	return EADDRNOTAVAIL;
}

/* The kernel's checks, in its order: inet_bind / inet6_bind,
 * tcp_v4_connect / tcp_v6_connect, ip4_datagram_connect /
 * ip6_datagram_connect, udp_sendmsg / udpv6_sendmsg. */
int swrap_addr_decode(const struct swrap_conf *c, const struct sockaddr *sa,
		      socklen_t len, int sock_family, enum swrap_addr_use use,
		      bool v6only, struct swrap_ep *ep)
{
	const socklen_t len4 = sizeof(struct sockaddr_in);
	const socklen_t len6 = 24;
	int fam;

	if (sa == NULL) {
		return EFAULT;
	}
	if (use != SWRAP_ADDR_BIND && len < (socklen_t)sizeof(sa_family_t)) {
		return EINVAL;
	}
	fam = len >= (socklen_t)sizeof(sa_family_t) ? sa->sa_family : -1;
	if (sock_family == AF_INET) {
		if (len < len4) {
			return EINVAL;
		}
		if (fam == AF_INET) {
			return decode_in(c, sa, ep);
		}
		if (fam == AF_UNSPEC && use == SWRAP_ADDR_SENDTO) {
			return decode_in(c, sa, ep);
		}
		if (fam == AF_UNSPEC && use == SWRAP_ADDR_BIND &&
		    ((const struct sockaddr_in *)(const void *)sa)
			    ->sin_addr.s_addr == htonl(INADDR_ANY)) {
			/* Linux accepts this for compatibility. */
			return decode_in(c, sa, ep);
		}
		return EAFNOSUPPORT;
	}
	if (fam == AF_INET &&
	    (use == SWRAP_ADDR_DGRAM || use == SWRAP_ADDR_SENDTO)) {
		/* A datagram IPv6 socket talks to IPv4 peers. */
		if (v6only) {
			return use == SWRAP_ADDR_DGRAM ? EAFNOSUPPORT
						       : ENETUNREACH;
		}
		return len < len4 ? EINVAL : decode_in(c, sa, ep);
	}
	if (use == SWRAP_ADDR_SENDTO && fam != AF_INET6) {
		return EINVAL;
	}
	if (len < len6) {
		return EINVAL;
	}
	if (fam != AF_INET6) {
		return EAFNOSUPPORT;
	}
	return decode_in6(c, sa, len, use, v6only, ep);
}

static uint32_t v4_of(const struct swrap_conf *c, unsigned iface)
{
	if (iface == 0) {
		return INADDR_ANY;
	}
	if (iface == SWRAP_IFACE_BCAST) {
		return c->ipv4_bcast;
	}
	return c->ipv4_net | iface;
}

socklen_t swrap_addr_encode(const struct swrap_conf *c,
			    const struct swrap_ep *ep, int want_family,
			    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	/* An AF_INET socket sees every peer at its interface's IPv4
	 * address: an IPv6 socket that talks to it (as the kernel shows an
	 * IPv6 socket's IPv4 source). */
	if (want_family == AF_INET ||
	    (ep->family == AF_INET && want_family != AF_INET6)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)ep->port);
		sin->sin_addr.s_addr = htonl(v4_of(c, ep->iface));
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		unsigned char *b = sin6->sin6_addr.s6_addr;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)ep->port);
		if (ep->family == AF_INET) {
			uint32_t ip = htonl(v4_of(c, ep->iface));

			b[10] = 0xff;
			b[11] = 0xff;
			memcpy(b + 12, &ip, 4);
		} else if (ep->iface != 0) {
			memcpy(b, v6_prefix, 12);
			b[12] = 0x53;
			b[13] = 0x57;
			b[14] = 0x5f;
			b[15] = (unsigned char)ep->iface;
		}
		return sizeof(*sin6);
	}
}

static char type_letter(const struct swrap_ep *ep)
{
	if (ep->type == SOCK_STREAM) {
		return ep->family == AF_INET6 ? 'X' : 'T';
	}
	return ep->family == AF_INET6 ? 'Y' : 'U';
}

socklen_t swrap_addr_unix(const struct swrap_conf *c, const struct swrap_ep *ep,
			  struct sockaddr_un *un)
{
	static const char hex[] = "0123456789ABCDEF";
	char *p = un->sun_path + c->dir_len;

	/* Hand-formatted: this is on the path of every connect and
	 * datagram. conf guarantees dir + "/T0A0007" fits. */
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, c->dir, c->dir_len);
	p[0] = '/';
	p[1] = type_letter(ep);
	p[2] = hex[(ep->iface >> 4) & 0xfu];
	p[3] = hex[ep->iface & 0xfu];
	p[4] = hex[(ep->port >> 12) & 0xfu];
	p[5] = hex[(ep->port >> 8) & 0xfu];
	p[6] = hex[(ep->port >> 4) & 0xfu];
	p[7] = hex[ep->port & 0xfu];
	memset(p + 8, 0, sizeof(un->sun_path) - c->dir_len - 8);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + c->dir_len +
			   9);
}

socklen_t swrap_addr_unix_abstract(const struct swrap_conf *c,
				   const struct swrap_ep *ep,
				   struct sockaddr_un *un)
{
	socklen_t len = swrap_addr_unix(c, ep, un);

	/* Same text in the abstract namespace: no file, no NUL at the end. */
	memmove(un->sun_path + 1, un->sun_path, sizeof(un->sun_path) - 1);
	un->sun_path[0] = '\0';
	return len;
}

socklen_t swrap_addr_unix_marker(const struct swrap_conf *c,
				 const struct sockaddr_un *un,
				 struct sockaddr_un *mk)
{
	const size_t base = c->dir_len + 1, len = base + 7; /* "$DIR/T0A0007" */

	if (len + 2 > sizeof(mk->sun_path) ||
	    strnlen(un->sun_path, sizeof(un->sun_path)) != len ||
	    memcmp(un->sun_path, c->dir, c->dir_len) != 0 ||
	    un->sun_path[c->dir_len] != '/') {
		return 0; /* not a name of ours, or ".T0A0007" does not fit */
	}
	mk->sun_family = AF_UNIX;
	memcpy(mk->sun_path, un->sun_path, base);
	mk->sun_path[base] = '.';
	memcpy(mk->sun_path + base + 1, un->sun_path + base, 8); /* + NUL */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 2);
}

void swrap_addr_unlink_marker(const struct swrap_conf *c, int type,
			      const struct sockaddr_un *un)
{
	struct sockaddr_un mk;

	if (type == SOCK_STREAM && swrap_addr_unix_marker(c, un, &mk) != 0) {
		unlink(mk.sun_path);
	}
}

socklen_t swrap_addr_path_len(const struct sockaddr_un *un)
{
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(un->sun_path) + 1);
}

socklen_t swrap_addr_unix_member(const struct swrap_conf *c,
				 const struct sockaddr_un *un, unsigned k,
				 struct sockaddr_un *mb)
{
	struct sockaddr_un mk;
	socklen_t mlen = swrap_addr_unix_marker(c, un, &mk);
	size_t n, room;
	int w;

	if (mlen == 0) {
		return 0;
	}
	n = mlen - offsetof(struct sockaddr_un, sun_path) - 1; /* no NUL */
	room = sizeof(mb->sun_path) - n;
	mb->sun_family = AF_UNIX;
	memcpy(mb->sun_path, mk.sun_path, n);
	w = snprintf(mb->sun_path + n, room, k == 0 ? ".g" : ".%u", k);
	if (w < 0 || (size_t)w >= room) {
		return 0;
	}
	/* A path, with its NUL. */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			   (size_t)w + 1);
}

bool swrap_addr_from_unix(const struct swrap_conf *c,
			  const struct sockaddr_un *un, socklen_t len,
			  struct swrap_ep *ep)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	char path[sizeof(un->sun_path) + 1];
	const char *name;
	char letter;
	size_t plen;

	if (un == NULL || len <= off || un->sun_family != AF_UNIX) {
		return false;
	}
	plen = len - off;
	if (plen > sizeof(un->sun_path)) {
		plen = sizeof(un->sun_path);
	}
	if (un->sun_path[0] == '\0') {
		/* An abstract name (a client of ours, see swrap_connect). */
		memcpy(path, un->sun_path + 1, plen - 1);
		path[plen - 1] = '\0';
	} else {
		memcpy(path, un->sun_path, plen);
		path[plen] = '\0';
	}
	if (strncmp(path, c->dir, c->dir_len) != 0 || path[c->dir_len] != '/') {
		return false;
	}
	name = path + c->dir_len + 1;
	if (un->sun_path[0] != '\0' && name[0] == '.' && strlen(name) > 9 &&
	    name[8] == '.' &&
	    strspn(name + 9, "0123456789") == strlen(name + 9)) {
		/* A SO_REUSEPORT group member, ".T0A1F90.3": its group's
		 * address. */
		path[c->dir_len + 1 + 8] = '\0';
		name++;
	}
	if (strlen(name) != 7 ||
	    !cwrap_sockname_parse(name, &letter, &ep->iface, &ep->port)) {
		return false;
	}
	switch (letter) {
	case 'T':
		ep->family = AF_INET;
		ep->type = SOCK_STREAM;
		break;
	case 'U':
		ep->family = AF_INET;
		ep->type = SOCK_DGRAM;
		break;
	case 'X':
		ep->family = AF_INET6;
		ep->type = SOCK_STREAM;
		break;
	case 'Y':
		ep->family = AF_INET6;
		ep->type = SOCK_DGRAM;
		break;
	default:
		return false;
	}
	/* Interface FF: a socket of ours bound to the IPv4 broadcast
	 * address (upstream names one after the default interface). */
	return (ep->iface >= 1 && ep->iface <= SWRAP_IFACE_MAX) ||
	       (ep->iface == SWRAP_IFACE_BCAST && ep->family == AF_INET);
}

void swrap_addr_copy_out(const void *addr, socklen_t alen, struct sockaddr *out,
			 socklen_t *len)
{
	if (out != NULL && len != NULL) {
		memcpy(out, addr, *len < alen ? *len : alen);
	}
	if (len != NULL) {
		*len = alen;
	}
}

void swrap_addr_to_ep(const struct sockaddr_storage *ss, int type,
		      struct swrap_ep *ep)
{
	/* Our own encodings: the network does not matter for the interface
	 * number, the last byte says it all. */
	memset(ep, 0, sizeof(*ep));
	ep->type = type;
	ep->family = ss->ss_family;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
		uint32_t ip = ntohl(sin->sin_addr.s_addr);

		ep->port = ntohs(sin->sin_port);
		ep->iface = ip == 0 ? 0 : ip & 0xffu;
		if ((ip & 0xffu) == 0xffu) {
			ep->iface = SWRAP_IFACE_BCAST;
		}
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
		    (const struct sockaddr_in6 *)ss;

		ep->port = ntohs(sin6->sin6_port);
		ep->iface = sin6->sin6_addr.s6_addr[15];
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			ep->family = AF_INET;
			if (ep->iface == 0xff) {
				ep->iface = SWRAP_IFACE_BCAST;
			}
		}
	}
}
