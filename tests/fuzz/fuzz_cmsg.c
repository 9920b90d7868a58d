/*
 * Fuzz target "cmsg": the control messages a wrapped sendmsg() reads (the
 * source address a program chooses with IP_PKTINFO / IPV6_PKTINFO) and
 * the control buffer a wrapped recvmsg() appends to (after whatever the
 * kernel put there). Whatever the bytes, nothing is read or written
 * outside the buffers; a chosen source is an emulated interface other
 * than the socket's own; after a receive, msg_controllen stays within the
 * caller's buffer and every header in it lies within msg_controllen.
 *
 * Input: byte 0 flags (bit 0 IPv6, bit 1 IP_PKTINFO / IPV6_RECVPKTINFO
 * on, bit 2 IPV6_2292PKTINFO on, bit 3 bound to the wildcard), byte 1 the
 * socket's interface, byte 2 the caller's buffer size (0..255, bit 7 of
 * byte 0 doubles it), then the control bytes.
 */
#include <string.h>

#include "fuzz_swrap.h"

static void make_sock(struct swrap_sock *s, const struct swrap_conf *c,
		      const uint8_t *data)
{
	struct swrap_ep ep = {
	    .family = data[0] & 1 ? AF_INET6 : AF_INET,
	    .type = SOCK_DGRAM,
	    .iface = data[0] & 8 ? 0 : 1 + data[1] % SWRAP_IFACE_MAX,
	    .port = 53,
	};

	memset(s, 0, sizeof(*s));
	s->conf = c;
	s->family = ep.family;
	s->type = SOCK_DGRAM;
	s->protocol = IPPROTO_UDP;
	s->refs = 1;
	s->flags = SWRAP_SOCK_BOUND;
	s->local_len = swrap_addr_encode(c, &ep, ep.family, &s->local);
	s->bound_iface = ep.iface;
	if (data[0] & 2) {
		s->opts[s->nopts].level =
		    ep.family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		s->opts[s->nopts].name =
		    ep.family == AF_INET ? IP_PKTINFO : IPV6_RECVPKTINFO;
		s->opts[s->nopts].len = sizeof(int);
		s->opts[s->nopts++].val[0] = 1;
	}
	if (data[0] & 4) {
		s->opts[s->nopts].level = IPPROTO_IPV6;
		s->opts[s->nopts].name = IPV6_2292PKTINFO;
		s->opts[s->nopts].len = sizeof(int);
		s->opts[s->nopts++].val[0] = 1;
	}
}

/* Every header within msg_controllen, as the program walks them. */
static void check_walk(const struct msghdr *msg, size_t cap)
{
	const unsigned char *base = msg->msg_control;
	struct cmsghdr *cm;

	FUZZ_CHECK(msg->msg_controllen <= cap);
	for (cm = CMSG_FIRSTHDR(msg); cm != NULL;
	     cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		FUZZ_CHECK((const unsigned char *)cm + sizeof(*cm) <=
			   base + msg->msg_controllen);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct swrap_conf c;
	struct swrap_sock s;
	struct swrap_ep src;
	struct msghdr msg = {0};
	size_t n, cap;
	unsigned char *ctl;

	if (size < 3) {
		return 0;
	}
	fuzz_swrap_conf(&c, data[1], false);
	make_sock(&s, &c, data);
	n = size - 3;

	/* sendmsg(): the control bytes exactly as the program gave them. */
	ctl = malloc(n ? n : 1);
	memcpy(ctl, data + 3, n);
	msg.msg_control = n ? ctl : NULL;
	msg.msg_controllen = n;
	if (swrap_cmsg_chosen_source(&s, &msg, &src)) {
		FUZZ_CHECK(src.iface >= 1 && src.iface <= SWRAP_IFACE_MAX);
		FUZZ_CHECK(src.iface != s.bound_iface || s.bound_iface == 0);
		FUZZ_CHECK(src.port == 53 && src.type == SOCK_DGRAM);
	}
	free(ctl);

	/* recvmsg(): a buffer of `cap` bytes the kernel filled in part
	 * (SCM_RIGHTS descriptors are not adopted from random bytes: the
	 * kernel writes those itself). */
	cap = data[2] * (data[0] & 0x80 ? 2u : 1u);
	ctl = malloc(cap ? cap : 1);
	memset(ctl, 0, cap);
	memcpy(ctl, data + 3, n < cap ? n : cap);
	msg.msg_control = cap ? ctl : NULL;
	msg.msg_controllen = n < cap ? n : cap;
	msg.msg_flags = 0;
	{
		struct cmsghdr *cm;

		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL;
		     cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS) {
				cm->cmsg_type = SCM_CREDENTIALS;
			}
		}
	}
	swrap_cmsg_after_recv(&s, &msg, cap);
	if (msg.msg_control != NULL) {
		check_walk(&msg, cap);
	}
	free(ctl);
	return 0;
}
