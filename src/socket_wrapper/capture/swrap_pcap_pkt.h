/*
 * Packet serialization for the capture writer: the pcap file header, one
 * pcap record holding a synthesized IPv4/IPv6 packet with a TCP, UDP or
 * ICMP/ICMPv6 header, and the Internet checksum. Every field is written
 * byte by byte in its wire order (the pcap headers little-endian, the
 * packets big-endian), never through a struct layout. Pure functions over
 * caller buffers: no state, no lock.
 */
#ifndef SWRAP_PCAP_PKT_H
#define SWRAP_PCAP_PKT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SWRAP_PCAP_MAGIC 0xA1B2C3D4u
#define SWRAP_PCAP_LINKTYPE_RAW 101
#define SWRAP_PCAP_SNAPLEN 262144
#define SWRAP_PCAP_FILE_HDR_LEN 24
#define SWRAP_PCAP_REC_HDR_LEN 16

#define SWRAP_TCP_FIN 0x01
#define SWRAP_TCP_SYN 0x02
#define SWRAP_TCP_RST 0x04
#define SWRAP_TCP_PSH 0x08
#define SWRAP_TCP_ACK 0x10

#define SWRAP_PCAP_TCP_WINDOW 65535

/* Largest payload a UDP record carries (the IPv4 total length limit). */
#define SWRAP_PCAP_UDP_MAX 65507

/* One end of a packet: family 4 or 6, address in network order (IPv4 in
 * the first 4 bytes), port in host order. */
struct swrap_pcap_ep {
	uint8_t family;
	uint8_t addr[16];
	uint16_t port;
};

/* Gathers payload bytes from an iovec array, in order. */
struct swrap_pcap_cursor {
	const struct iovec *iov;
	int iovcnt;
	int idx;
	size_t off;
};

void swrap_pcap_cursor_init(struct swrap_pcap_cursor *c,
			    const struct iovec *iov, int iovcnt);
/* Skip `n` payload bytes. */
void swrap_pcap_cursor_skip(struct swrap_pcap_cursor *c, size_t n);

/* Time stamp of a record. */
struct swrap_pcap_ts {
	uint32_t sec;
	uint32_t usec;
};

/* The 24-byte file header. */
void swrap_pcap_file_header(uint8_t out[SWRAP_PCAP_FILE_HDR_LEN]);

/* Bytes one record needs at most for `payload` bytes of TCP/UDP data, or
 * for an ICMP error quoting `payload` bytes of a packet. */
size_t swrap_pcap_record_max(size_t payload);

/* One record: IP + TCP header + `len` payload bytes taken from `cur` (may
 * be NULL when len is 0). Returns the bytes written to `out`. */
size_t swrap_pcap_tcp(uint8_t *out, struct swrap_pcap_ts ts,
		      const struct swrap_pcap_ep *src,
		      const struct swrap_pcap_ep *dst, uint16_t ip_id,
		      uint32_t seq, uint32_t ack, uint8_t flags,
		      struct swrap_pcap_cursor *cur, size_t len);

/* One record: IP + UDP header + `len` payload bytes from `cur`. */
size_t swrap_pcap_udp(uint8_t *out, struct swrap_pcap_ts ts,
		      const struct swrap_pcap_ep *src,
		      const struct swrap_pcap_ep *dst, uint16_t ip_id,
		      struct swrap_pcap_cursor *cur, size_t len);

/* One record: ICMP destination unreachable / port unreachable (ICMPv6
 * type 1 code 4) from `src` to `dst`, quoting `qlen` bytes of the
 * offending IP packet `quoted` (cut to the RFC 1812 / RFC 4443 limits). */
size_t swrap_pcap_icmp_unreach(uint8_t *out, struct swrap_pcap_ts ts,
			       const struct swrap_pcap_ep *src,
			       const struct swrap_pcap_ep *dst, uint16_t ip_id,
			       const uint8_t *quoted, size_t qlen);

/* Internet checksum (RFC 1071): add `len` bytes to a running sum (every
 * chunk but the last must have an even length), then fold and complement. */
uint64_t swrap_pcap_csum_add(uint64_t sum, const uint8_t *p, size_t len);
uint16_t swrap_pcap_csum_fold(uint64_t sum);

#endif
