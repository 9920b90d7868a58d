/*
 * Packet serialization for the capture writer (see swrap_pcap_pkt.h):
 * pcap headers in little-endian byte order, packets in network byte order,
 * every field written explicitly. Checksums are computed over the bytes
 * just written, in native 64-bit chunks (RFC 1071 sums do not depend on
 * byte order, so the folded sum is stored as it is). No state, no lock.
 */
#include "swrap_pcap_pkt.h"

#include <string.h>

#define IPV4_HDR_LEN 20
#define IPV6_HDR_LEN 40
#define TCP_HDR_LEN 20
#define UDP_HDR_LEN 8
#define ICMP_HDR_LEN 8
#define IP_TTL 64
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ICMP 1
#define PROTO_ICMPV6 58
/* An ICMP error is at most 576 bytes (IPv4, RFC 1812) or 1280 (IPv6,
 * RFC 4443), its own headers included. */
#define ICMP4_MAX_PACKET 576
#define ICMP6_MAX_PACKET 1280

static void put16be(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One's-complement addition: add, then the end-around carry. */
static inline uint64_t csum_word(uint64_t sum, uint64_t w)
{
	sum += w;
	return sum + (sum < w);
}

uint64_t swrap_pcap_csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	uint64_t w;
	uint32_t w32;
	uint16_t w16;

	while (len >= 8) {
		memcpy(&w, p, 8);
		sum = csum_word(sum, w);
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		memcpy(&w32, p, 4);
		sum = csum_word(sum, w32);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w16, p, 2);
		sum = csum_word(sum, w16);
		p += 2;
		len -= 2;
	}
	if (len == 1) {
		/* The odd byte is the high-order byte of a zero-padded word. */
		w16 = 0;
		memcpy(&w16, p, 1);
		sum = csum_word(sum, w16);
	}
	return sum;
}

uint16_t swrap_pcap_csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

void swrap_pcap_cursor_init(struct swrap_pcap_cursor *c,
			    const struct iovec *iov, int iovcnt)
{
	c->iov = iov;
	c->iovcnt = iov != NULL ? iovcnt : 0;
	c->idx = 0;
	c->off = 0;
}

/* Copy (or with out == NULL skip) up to n bytes; returns bytes done. */
static size_t cursor_take(struct swrap_pcap_cursor *c, uint8_t *out, size_t n)
{
	size_t done = 0;

	while (done < n && c->idx < c->iovcnt) {
		const struct iovec *v = &c->iov[c->idx];
		size_t avail = v->iov_len - c->off;
		size_t k = n - done < avail ? n - done : avail;

		if (out != NULL && k > 0) {
			memcpy(out + done,
			       (const uint8_t *)v->iov_base + c->off, k);
		}
		done += k;
		c->off += k;
		if (c->off == v->iov_len) {
			c->idx++;
			c->off = 0;
		}
	}
	return done;
}

void swrap_pcap_cursor_skip(struct swrap_pcap_cursor *c, size_t n)
{
	(void)cursor_take(c, NULL, n);
}

void swrap_pcap_file_header(uint8_t out[SWRAP_PCAP_FILE_HDR_LEN])
{
	put32le(out, SWRAP_PCAP_MAGIC);
	put16le(out + 4, 2); /* version 2.4 */
	put16le(out + 6, 4);
	put32le(out + 8, 0);  /* thiszone: UTC */
	put32le(out + 12, 0); /* sigfigs */
	put32le(out + 16, SWRAP_PCAP_SNAPLEN);
	put32le(out + 20, SWRAP_PCAP_LINKTYPE_RAW);
}

size_t swrap_pcap_record_max(size_t payload)
{
	size_t icmp = SWRAP_PCAP_REC_HDR_LEN + ICMP6_MAX_PACKET;
	size_t data =
	    SWRAP_PCAP_REC_HDR_LEN + IPV6_HDR_LEN + TCP_HDR_LEN + payload;

	return data > icmp ? data : icmp;
}

static size_t ip_hdr_len(const struct swrap_pcap_ep *ep)
{
	return ep->family == 6 ? IPV6_HDR_LEN : IPV4_HDR_LEN;
}

static void record_header(uint8_t *out, struct swrap_pcap_ts ts, size_t len)
{
	put32le(out, ts.sec);
	put32le(out + 4, ts.usec);
	put32le(out + 8, (uint32_t)len);
	put32le(out + 12, (uint32_t)len);
}

/* The IP header for `l4len` bytes of protocol `proto`; returns its length. */
static size_t ip_header(uint8_t *p, const struct swrap_pcap_ep *src,
			const struct swrap_pcap_ep *dst, uint8_t proto,
			uint16_t ip_id, size_t l4len)
{
	if (src->family == 6) {
		put32be(p, 6u << 28); /* version, class 0, flow 0 */
		put16be(p + 4, (uint16_t)l4len);
		p[6] = proto;
		p[7] = IP_TTL;
		memcpy(p + 8, src->addr, 16);
		memcpy(p + 24, dst->addr, 16);
		return IPV6_HDR_LEN;
	}
	p[0] = 0x45; /* version 4, 5 words */
	p[1] = 0;
	put16be(p + 2, (uint16_t)(IPV4_HDR_LEN + l4len));
	put16be(p + 4, ip_id);
	put16be(p + 6, 0x4000); /* don't fragment */
	p[8] = IP_TTL;
	p[9] = proto;
	p[10] = p[11] = 0;
	memcpy(p + 12, src->addr, 4);
	memcpy(p + 16, dst->addr, 4);
	{
		uint16_t c = swrap_pcap_csum_fold(
		    swrap_pcap_csum_add(0, p, IPV4_HDR_LEN));
		memcpy(p + 10, &c, 2);
	}
	return IPV4_HDR_LEN;
}

/* Sum of the pseudo header of the transport checksum. */
static uint64_t pseudo_sum(const struct swrap_pcap_ep *src,
			   const struct swrap_pcap_ep *dst, uint8_t proto,
			   size_t l4len)
{
	uint8_t ph[40];

	if (src->family == 6) {
		memcpy(ph, src->addr, 16);
		memcpy(ph + 16, dst->addr, 16);
		put32be(ph + 32, (uint32_t)l4len);
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = proto;
		return swrap_pcap_csum_add(0, ph, 40);
	}
	memcpy(ph, src->addr, 4);
	memcpy(ph + 4, dst->addr, 4);
	ph[8] = 0;
	ph[9] = proto;
	put16be(ph + 10, (uint16_t)l4len);
	return swrap_pcap_csum_add(0, ph, 12);
}

size_t swrap_pcap_tcp(uint8_t *out, struct swrap_pcap_ts ts,
		      const struct swrap_pcap_ep *src,
		      const struct swrap_pcap_ep *dst, uint16_t ip_id,
		      uint32_t seq, uint32_t ack, uint8_t flags,
		      struct swrap_pcap_cursor *cur, size_t len)
{
	size_t l4len = TCP_HDR_LEN + len;
	uint8_t *ip = out + SWRAP_PCAP_REC_HDR_LEN;
	uint8_t *t = ip + ip_header(ip, src, dst, PROTO_TCP, ip_id, l4len);
	uint16_t c;

	put16be(t, src->port);
	put16be(t + 2, dst->port);
	put32be(t + 4, seq);
	put32be(t + 8, (flags & SWRAP_TCP_ACK) ? ack : 0);
	t[12] = (TCP_HDR_LEN / 4) << 4;
	t[13] = flags;
	put16be(t + 14, SWRAP_PCAP_TCP_WINDOW);
	t[16] = t[17] = 0; /* checksum */
	t[18] = t[19] = 0; /* urgent pointer */
	if (len > 0) {
		len = cursor_take(cur, t + TCP_HDR_LEN, len);
	}
	c = swrap_pcap_csum_fold(swrap_pcap_csum_add(
	    pseudo_sum(src, dst, PROTO_TCP, l4len), t, l4len));
	memcpy(t + 16, &c, 2);
	record_header(out, ts, (size_t)(t - ip) + l4len);
	return SWRAP_PCAP_REC_HDR_LEN + (size_t)(t - ip) + l4len;
}

size_t swrap_pcap_udp(uint8_t *out, struct swrap_pcap_ts ts,
		      const struct swrap_pcap_ep *src,
		      const struct swrap_pcap_ep *dst, uint16_t ip_id,
		      struct swrap_pcap_cursor *cur, size_t len)
{
	size_t l4len = UDP_HDR_LEN + len;
	uint8_t *ip = out + SWRAP_PCAP_REC_HDR_LEN;
	uint8_t *u = ip + ip_header(ip, src, dst, PROTO_UDP, ip_id, l4len);
	uint16_t c;

	put16be(u, src->port);
	put16be(u + 2, dst->port);
	put16be(u + 4, (uint16_t)l4len);
	u[6] = u[7] = 0;
	if (len > 0) {
		len = cursor_take(cur, u + UDP_HDR_LEN, len);
	}
	c = swrap_pcap_csum_fold(swrap_pcap_csum_add(
	    pseudo_sum(src, dst, PROTO_UDP, l4len), u, l4len));
	if (c == 0) {
		c = 0xffff; /* 0 would mean "no checksum" */
	}
	memcpy(u + 6, &c, 2);
	record_header(out, ts, (size_t)(u - ip) + l4len);
	return SWRAP_PCAP_REC_HDR_LEN + (size_t)(u - ip) + l4len;
}

size_t swrap_pcap_icmp_unreach(uint8_t *out, struct swrap_pcap_ts ts,
			       const struct swrap_pcap_ep *src,
			       const struct swrap_pcap_ep *dst, uint16_t ip_id,
			       const uint8_t *quoted, size_t qlen)
{
	int v6 = src->family == 6;
	size_t iplen = ip_hdr_len(src);
	size_t max =
	    (v6 ? ICMP6_MAX_PACKET : ICMP4_MAX_PACKET) - iplen - ICMP_HDR_LEN;
	size_t l4len;
	uint8_t *ip = out + SWRAP_PCAP_REC_HDR_LEN;
	uint8_t *m;
	uint64_t sum;
	uint16_t c;

	if (qlen > max) {
		qlen = max;
	}
	l4len = ICMP_HDR_LEN + qlen;
	m = ip + ip_header(ip, src, dst, v6 ? PROTO_ICMPV6 : PROTO_ICMP, ip_id,
			   l4len);
	m[0] = v6 ? 1 : 3; /* destination unreachable */
	m[1] = v6 ? 4 : 3; /* port unreachable */
	m[2] = m[3] = 0;
	put32be(m + 4, 0); /* unused */
	memcpy(m + ICMP_HDR_LEN, quoted, qlen);
	sum = v6 ? pseudo_sum(src, dst, PROTO_ICMPV6, l4len) : 0;
	c = swrap_pcap_csum_fold(swrap_pcap_csum_add(sum, m, l4len));
	memcpy(m + 2, &c, 2);
	record_header(out, ts, iplen + l4len);
	return SWRAP_PCAP_REC_HDR_LEN + iplen + l4len;
}
