/*
 * Fuzz target "socket_names": the names socket_wrapper reads back from
 * SOCKET_WRAPPER_DIR (a peer's unix path from accept()/recvfrom(), a
 * member file of a SO_REUSEPORT group, an abstract twin) and the
 * sockaddr_in/_in6 a program hands to bind(), connect() and sendto().
 * Whatever is accepted must name a valid endpoint (interface 1..255 or the
 * wildcard, port 0..65535, TCP or UDP over IPv4 or IPv6) that encodes back
 * to a name and an address that decode to the same endpoint.
 *
 * Input: byte 0 the default interface, byte 1 flags (bit 0 the 10.53.57.0
 * network, bit 1 a raw unix path rather than one in the directory, bits
 * 2-3 the use of the address, bit 4 an IPv6 socket, bit 5 IPV6_V6ONLY),
 * then the bytes of the name, which are also the sockaddr.
 */
#include <stddef.h>
#include <string.h>

#include "fuzz_swrap.h"

static void check_ep(const struct swrap_ep *ep)
{
	FUZZ_CHECK(ep->family == AF_INET || ep->family == AF_INET6);
	FUZZ_CHECK(ep->type == SOCK_STREAM || ep->type == SOCK_DGRAM);
	FUZZ_CHECK(ep->iface <= SWRAP_IFACE_BCAST);
	FUZZ_CHECK(ep->port <= 65535);
}

static void check_unix(const struct swrap_conf *c, const uint8_t *p, size_t n,
		       bool raw)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX}, un2;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct swrap_ep ep, ep2;
	size_t len;
	socklen_t l2;

	if (raw) {
		len = n < sizeof(un.sun_path) ? n : sizeof(un.sun_path);
		memcpy(un.sun_path, p, len);
	} else {
		len = c->dir_len + 1;
		memcpy(un.sun_path, c->dir, c->dir_len);
		un.sun_path[c->dir_len] = '/';
		if (n > sizeof(un.sun_path) - len) {
			n = sizeof(un.sun_path) - len;
		}
		memcpy(un.sun_path + len, p, n);
		len += n;
	}
	if (!swrap_addr_from_unix(c, &un, (socklen_t)(off + len), &ep)) {
		return;
	}
	check_ep(&ep);
	FUZZ_CHECK(ep.iface != 0);
	l2 = swrap_addr_unix(c, &ep, &un2);
	FUZZ_CHECK(l2 > off && l2 <= sizeof(un2));
	FUZZ_CHECK(swrap_addr_from_unix(c, &un2, l2, &ep2));
	FUZZ_CHECK(memcmp(&ep, &ep2, sizeof(ep)) == 0);
	l2 = swrap_addr_unix_abstract(c, &ep, &un2);
	FUZZ_CHECK(swrap_addr_from_unix(c, &un2, l2, &ep2));
	FUZZ_CHECK(memcmp(&ep, &ep2, sizeof(ep)) == 0);
}

static void check_sockaddr(const struct swrap_conf *c, const uint8_t *p,
			   size_t n, unsigned flags)
{
	struct sockaddr_storage ss, ss2;
	enum swrap_addr_use use = (enum swrap_addr_use)((flags >> 2) & 3);
	int family = flags & 0x10 ? AF_INET6 : AF_INET;
	bool v6only = family == AF_INET6 && (flags & 0x20);
	struct swrap_ep ep = {0}, ep2 = {0};
	socklen_t len2;

	memset(&ss, 0, sizeof(ss));
	if (n > sizeof(ss)) {
		n = sizeof(ss);
	}
	memcpy(&ss, p, n);
	if (swrap_addr_decode(c, (struct sockaddr *)&ss, (socklen_t)n, family,
			      use, v6only, &ep) != 0) {
		return;
	}
	ep.type = SOCK_STREAM; /* the caller's business */
	check_ep(&ep);
	len2 = swrap_addr_encode(c, &ep, family, &ss2);
	FUZZ_CHECK(len2 > 0 && len2 <= sizeof(ss2));
	FUZZ_CHECK(ss2.ss_family == family);
	FUZZ_CHECK(swrap_addr_decode(c, (struct sockaddr *)&ss2, len2, family,
				     use, v6only, &ep2) == 0);
	ep2.type = SOCK_STREAM;
	FUZZ_CHECK(ep.iface == ep2.iface && ep.port == ep2.port);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct swrap_conf c;

	if (size < 2) {
		return 0;
	}
	fuzz_swrap_conf(&c, data[0], data[1] & 1);
	check_unix(&c, data + 2, size - 2, data[1] & 2);
	check_sockaddr(&c, data + 2, size - 2, data[1]);
	return 0;
}
