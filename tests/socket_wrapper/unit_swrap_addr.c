/*
 * The address model of socket_wrapper (swrap_addr.c), linked directly:
 * inet addresses <-> endpoints <-> unix paths, both IPv4 networks, IPv6,
 * broadcast, v4-mapped addresses and names that are not ours.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cwrap_test.h"
#include "swrap.h"

static struct swrap_conf conf(uint32_t net)
{
	struct swrap_conf c;

	memset(&c, 0, sizeof(c));
	c.enabled = true;
	strcpy(c.dir, "/tmp/sw");
	c.dir_len = strlen(c.dir);
	c.default_iface = 1;
	c.ipv4_net = net;
	c.ipv4_bcast = net == 0x7f000000u ? 0x7fffffffu : 0x0affffffu;
	return c;
}

static int decode4(const struct swrap_conf *c, const char *a, int port,
		   struct swrap_ep *ep)
{
	struct sockaddr_in s = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, a, &s.sin_addr);
	return swrap_addr_decode(c, (struct sockaddr *)&s, sizeof(s), AF_INET,
				 SWRAP_ADDR_BIND, false, ep);
}

static int decode6(const struct swrap_conf *c, const char *a, int port,
		   struct swrap_ep *ep)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6,
				 .sin6_port = htons((uint16_t)port)};

	inet_pton(AF_INET6, a, &s.sin6_addr);
	return swrap_addr_decode(c, (struct sockaddr *)&s, sizeof(s), AF_INET6,
				 SWRAP_ADDR_BIND, false, ep);
}

static void test_ipv4_interfaces(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep;

	(void)state;
	assert_int_equal(decode4(&c, "127.0.0.10", 7, &ep), 0);
	assert_int_equal(ep.iface, 10);
	assert_int_equal(ep.port, 7);
	assert_int_equal(decode4(&c, "127.0.0.254", 1, &ep), 0);
	assert_int_equal(ep.iface, 254);
	assert_int_equal(decode4(&c, "0.0.0.0", 80, &ep), 0);
	assert_int_equal(ep.iface, 0);
	assert_int_equal(decode4(&c, "127.255.255.255", 53, &ep), 0);
	assert_int_equal(ep.iface, SWRAP_IFACE_BCAST);
	assert_int_equal(decode4(&c, "127.0.0.0", 1, &ep), EADDRNOTAVAIL);
	assert_int_equal(decode4(&c, "127.0.1.1", 1, &ep), EADDRNOTAVAIL);
	assert_int_equal(decode4(&c, "192.168.1.1", 1, &ep), EADDRNOTAVAIL);
	assert_int_equal(decode4(&c, "10.53.57.10", 1, &ep), EADDRNOTAVAIL);

	c = conf(0x0a353900u);
	assert_int_equal(decode4(&c, "10.53.57.10", 7, &ep), 0);
	assert_int_equal(ep.iface, 10);
	assert_int_equal(decode4(&c, "10.255.255.255", 7, &ep), 0);
	assert_int_equal(ep.iface, SWRAP_IFACE_BCAST);
	assert_int_equal(decode4(&c, "127.0.0.10", 7, &ep), EADDRNOTAVAIL);
}

static void test_ipv6_interfaces(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep;

	(void)state;
	assert_int_equal(decode6(&c, "fd00::5357:5f0a", 22, &ep), 0);
	assert_int_equal(ep.iface, 10);
	assert_int_equal(ep.family, AF_INET6);
	assert_int_equal(decode6(&c, "::", 22, &ep), 0);
	assert_int_equal(ep.iface, 0);
	assert_int_equal(decode6(&c, "::ffff:127.0.0.9", 22, &ep), 0);
	assert_int_equal(ep.iface, 9);
	assert_int_equal(ep.family, AF_INET);
	assert_int_equal(decode6(&c, "fd00::5357:5f00", 22, &ep),
			 EADDRNOTAVAIL);
	assert_int_equal(decode6(&c, "fd00::1:5357:5f0a", 22, &ep),
			 EADDRNOTAVAIL);
	assert_int_equal(decode6(&c, "::1", 22, &ep), EADDRNOTAVAIL);
}

static int dec(const struct swrap_conf *c, const void *sa, socklen_t len,
	       int sock_family, enum swrap_addr_use use, bool v6only)
{
	struct swrap_ep ep;

	return swrap_addr_decode(c, sa, len, sock_family, use, v6only, &ep);
}

/* The kernel's order of checks for each call (the preloaded tests
 * compare the same cases with real sockets). */
static void test_decode_errors(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct sockaddr_in s = {.sin_family = AF_INET};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6};
	struct sockaddr_storage big;
	struct swrap_ep ep;

	(void)state;
	s.sin_addr.s_addr = htonl(0x7f00000a);
	assert_int_equal(dec(&c, &s, 4, AF_INET, SWRAP_ADDR_BIND, false),
			 EINVAL);
	assert_int_equal(dec(&c, NULL, 0, AF_INET, SWRAP_ADDR_BIND, false),
			 EFAULT);
	/* IPv4 address on an IPv6 socket: the length first. */
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET6, SWRAP_ADDR_BIND, false), EINVAL);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET6, SWRAP_ADDR_CONNECT, false),
	    EINVAL);
	memset(&big, 0, sizeof(big));
	memcpy(&big, &s, sizeof(s));
	assert_int_equal(dec(&c, &big, sizeof(struct sockaddr_in6), AF_INET6,
			     SWRAP_ADDR_BIND, false),
			 EAFNOSUPPORT);
	assert_int_equal(dec(&c, &big, sizeof(struct sockaddr_in6), AF_INET6,
			     SWRAP_ADDR_CONNECT, false),
			 EAFNOSUPPORT);
	/* ... which UDP takes, unless IPV6_V6ONLY. */
	assert_int_equal(swrap_addr_decode(&c, (struct sockaddr *)&s, sizeof(s),
					   AF_INET6, SWRAP_ADDR_DGRAM, false,
					   &ep),
			 0);
	assert_int_equal(ep.family, AF_INET);
	assert_int_equal(ep.iface, 10);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET6, SWRAP_ADDR_SENDTO, false), 0);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET6, SWRAP_ADDR_DGRAM, true),
	    EAFNOSUPPORT);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET6, SWRAP_ADDR_SENDTO, true),
	    ENETUNREACH);
	/* AF_UNSPEC on IPv4: bind with INADDR_ANY, sendto always. */
	s.sin_family = AF_UNSPEC;
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET, SWRAP_ADDR_BIND, false),
	    EAFNOSUPPORT);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET, SWRAP_ADDR_SENDTO, false), 0);
	s.sin_addr.s_addr = htonl(INADDR_ANY);
	assert_int_equal(swrap_addr_decode(&c, (struct sockaddr *)&s, sizeof(s),
					   AF_INET, SWRAP_ADDR_BIND, false,
					   &ep),
			 0);
	assert_int_equal(ep.family, AF_INET);
	assert_int_equal(ep.iface, 0);
	assert_int_equal(
	    dec(&c, &s, sizeof(s), AF_INET, SWRAP_ADDR_CONNECT, false),
	    EAFNOSUPPORT);
	/* IPv6: 24 bytes (no scope id) are enough; other families. */
	inet_pton(AF_INET6, "fd00::5357:5f0b", &s6.sin6_addr);
	assert_int_equal(swrap_addr_decode(&c, (struct sockaddr *)&s6, 24,
					   AF_INET6, SWRAP_ADDR_CONNECT, false,
					   &ep),
			 0);
	assert_int_equal(ep.iface, 11);
	assert_int_equal(dec(&c, &s6, 23, AF_INET6, SWRAP_ADDR_BIND, false),
			 EINVAL);
	s6.sin6_family = AF_UNIX;
	assert_int_equal(
	    dec(&c, &s6, sizeof(s6), AF_INET6, SWRAP_ADDR_SENDTO, false),
	    EINVAL);
	assert_int_equal(
	    dec(&c, &s6, sizeof(s6), AF_INET6, SWRAP_ADDR_DGRAM, false),
	    EAFNOSUPPORT);
	/* v4-mapped on a v6-only socket. */
	s6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.10", &s6.sin6_addr);
	assert_int_equal(
	    dec(&c, &s6, sizeof(s6), AF_INET6, SWRAP_ADDR_BIND, true), EINVAL);
	assert_int_equal(
	    dec(&c, &s6, sizeof(s6), AF_INET6, SWRAP_ADDR_CONNECT, true),
	    ENETUNREACH);
}

static void test_unix_names(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep = {AF_INET, SOCK_STREAM, 10, 7}, back;
	struct sockaddr_un un;
	socklen_t len;

	(void)state;
	len = swrap_addr_unix(&c, &ep, &un);
	assert_string_equal(un.sun_path, "/tmp/sw/T0A0007");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) +
				  strlen("/tmp/sw/T0A0007") + 1);
	assert_true(swrap_addr_from_unix(&c, &un, len, &back));
	assert_int_equal(back.family, AF_INET);
	assert_int_equal(back.type, SOCK_STREAM);
	assert_int_equal(back.iface, 10);
	assert_int_equal(back.port, 7);

	ep = (struct swrap_ep){AF_INET, SOCK_DGRAM, 100, 0xea60};
	swrap_addr_unix(&c, &ep, &un);
	assert_string_equal(un.sun_path, "/tmp/sw/U64EA60");
	ep = (struct swrap_ep){AF_INET6, SOCK_STREAM, 0xfe, 80};
	swrap_addr_unix(&c, &ep, &un);
	assert_string_equal(un.sun_path, "/tmp/sw/XFE0050");
	ep = (struct swrap_ep){AF_INET6, SOCK_DGRAM, 1, 53};
	len = swrap_addr_unix(&c, &ep, &un);
	assert_string_equal(un.sun_path, "/tmp/sw/Y010035");
	assert_true(swrap_addr_from_unix(&c, &un, len, &back));
	assert_int_equal(back.family, AF_INET6);
	assert_int_equal(back.type, SOCK_DGRAM);

	/* Not ours: other directory, other names, interface 0. */
	strcpy(un.sun_path, "/tmp/other/T0A0007");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/sw/T0A007");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/sw/Q0A0007");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/sw/T000007");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/swT0A0007");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));

	/* Interface FF: an IPv4 socket bound to the broadcast address
	 * (UDP 137 of a NetBIOS server); no IPv6 address has it. */
	ep = (struct swrap_ep){AF_INET, SOCK_DGRAM, SWRAP_IFACE_BCAST, 137};
	len = swrap_addr_unix(&c, &ep, &un);
	assert_string_equal(un.sun_path, "/tmp/sw/UFF0089");
	assert_true(swrap_addr_from_unix(&c, &un, len, &back));
	assert_int_equal(back.family, AF_INET);
	assert_int_equal(back.iface, SWRAP_IFACE_BCAST);
	assert_int_equal(back.port, 137);
	strcpy(un.sun_path, "/tmp/sw/TFF0089");
	assert_true(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/sw/YFF0089");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
	strcpy(un.sun_path, "/tmp/sw/XFF0089");
	assert_false(swrap_addr_from_unix(&c, &un, sizeof(un), &back));
}

/* The abstract twin of a name (TCP clients of our listeners). */
static void test_abstract_names(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep = {AF_INET, SOCK_STREAM, 100, 0x2710}, back;
	struct sockaddr_un un;
	socklen_t len;

	(void)state;
	len = swrap_addr_unix_abstract(&c, &ep, &un);
	assert_int_equal(un.sun_path[0], '\0');
	assert_memory_equal(un.sun_path + 1, "/tmp/sw/T642710", 15);
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 16);
	memset(&back, 0, sizeof(back));
	assert_true(swrap_addr_from_unix(&c, &un, len, &back));
	assert_int_equal(back.family, AF_INET);
	assert_int_equal(back.iface, 100);
	assert_int_equal(back.port, 10000);
	/* Another directory's abstract name is not ours. */
	strcpy(c.dir, "/tmp/sx");
	assert_false(swrap_addr_from_unix(&c, &un, len, &back));
}

/* A listener's marker: the same name with a dot, beside it; nothing for
 * a name that is not one of ours or a marker too long for sun_path. */
static void test_marker_names(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep = {AF_INET6, SOCK_STREAM, 10, 22};
	struct sockaddr_un un, mk;
	socklen_t len;

	(void)state;
	swrap_addr_unix(&c, &ep, &un);
	len = swrap_addr_unix_marker(&c, &un, &mk);
	assert_int_equal(mk.sun_family, AF_UNIX);
	assert_string_equal(mk.sun_path, "/tmp/sw/.X0A0016");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 17);
	/* Not one of ours: abstract, another directory, another length. */
	swrap_addr_unix_abstract(&c, &ep, &un);
	assert_int_equal(swrap_addr_unix_marker(&c, &un, &mk), 0);
	strcpy(un.sun_path, "/tmp/sx/X0A0016");
	assert_int_equal(swrap_addr_unix_marker(&c, &un, &mk), 0);
	strcpy(un.sun_path, "/tmp/sw/X0A00160");
	assert_int_equal(swrap_addr_unix_marker(&c, &un, &mk), 0);
	/* A directory that leaves room for the name but not for the dot. */
	memset(c.dir, 'd', 99);
	c.dir[0] = '/';
	c.dir[99] = '\0';
	c.dir_len = 99;
	swrap_addr_unix(&c, &ep, &un);
	assert_int_equal(swrap_addr_unix_marker(&c, &un, &mk), 0);
}

/* SO_REUSEPORT group names: member k a file beside the plain name, parsed
 * back as the group's address; k = 0 the group file; an abstract ".k"
 * name or a non-number is not ours. */
static void test_group_names(void **state)
{
	struct swrap_conf c = conf(0x7f000000u);
	struct swrap_ep ep = {AF_INET, SOCK_DGRAM, 10, 53}, back;
	struct sockaddr_un un, mb;
	socklen_t len;

	(void)state;
	swrap_addr_unix(&c, &ep, &un);
	len = swrap_addr_unix_member(&c, &un, 12, &mb);
	assert_string_equal(mb.sun_path, "/tmp/sw/.U0A0035.12");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 20);
	assert_true(swrap_addr_from_unix(&c, &mb, len, &back));
	assert_int_equal(back.family, AF_INET);
	assert_int_equal(back.type, SOCK_DGRAM);
	assert_int_equal(back.iface, 10);
	assert_int_equal(back.port, 53);
	len = swrap_addr_unix_member(&c, &un, 0, &mb);
	assert_string_equal(mb.sun_path, "/tmp/sw/.U0A0035.g");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 19);
	assert_false(swrap_addr_from_unix(&c, &mb, len, &back));
	strcpy(mb.sun_path, "/tmp/sw/.U0A0035.1x");
	assert_false(swrap_addr_from_unix(
	    &c, &mb, offsetof(struct sockaddr_un, sun_path) + 20, &back));
	strcpy(mb.sun_path, "/tmp/sw/.U0A0035.1.h"); /* a hand-over's */
	assert_false(swrap_addr_from_unix(
	    &c, &mb, offsetof(struct sockaddr_un, sun_path) + 21, &back));
	memcpy(mb.sun_path, "\0/tmp/sw/.U0A0035.1", 19);
	assert_false(swrap_addr_from_unix(
	    &c, &mb, offsetof(struct sockaddr_un, sun_path) + 19, &back));
}

static void test_encode(void **state)
{
	struct swrap_conf c = conf(0x0a353900u);
	struct swrap_ep ep = {AF_INET, SOCK_STREAM, 10, 7};
	struct sockaddr_storage ss;
	char buf[64];

	(void)state;
	assert_int_equal(swrap_addr_encode(&c, &ep, AF_INET, &ss),
			 sizeof(struct sockaddr_in));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf,
		  sizeof(buf));
	assert_string_equal(buf, "10.53.57.10");
	assert_int_equal(swrap_addr_encode(&c, &ep, AF_INET6, &ss),
			 sizeof(struct sockaddr_in6));
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf,
		  sizeof(buf));
	assert_string_equal(buf, "::ffff:10.53.57.10");
	ep.family = AF_INET6;
	ep.iface = 0xaa;
	swrap_addr_encode(&c, &ep, AF_INET6, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf,
		  sizeof(buf));
	assert_string_equal(buf, "fd00::5357:5faa");
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 7);
}

static void test_copy_out_truncates(void **state)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(7)};
	unsigned char out[4] = {0};
	socklen_t len = sizeof(out);

	(void)state;
	swrap_addr_copy_out(&s, sizeof(s), (struct sockaddr *)out, &len);
	assert_int_equal(len, sizeof(s));
	assert_memory_equal(out, &s, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ipv4_interfaces),
	    cmocka_unit_test(test_ipv6_interfaces),
	    cmocka_unit_test(test_decode_errors),
	    cmocka_unit_test(test_unix_names),
	    cmocka_unit_test(test_abstract_names),
	    cmocka_unit_test(test_marker_names),
	    cmocka_unit_test(test_group_names),
	    cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_copy_out_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
