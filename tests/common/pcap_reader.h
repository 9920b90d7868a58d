/*
 * Reading a capture back for tests, with libpcap: every record as a raw IP
 * packet plus its decoded IPv4/IPv6, TCP/UDP/ICMP fields, and checksums
 * verified here independently of the writer (a plain big-endian 16-bit
 * one's complement sum). No global state.
 */
#ifndef CWRAP_PCAP_READER_H
#define CWRAP_PCAP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cwrap_pcap_pkt {
	uint32_t ts_sec, ts_usec;
	uint32_t caplen, len;
	uint8_t *data; /* the IP packet, caplen bytes */

	int family; /* 4 or 6, 0 if not IP */
	uint8_t src[16], dst[16];
	uint8_t proto; /* 6, 17, 1 or 58 */
	uint8_t ttl;
	uint16_t ip_id, ip_frag; /* IPv4 only */
	size_t ip_len;		 /* total length (v4) / 40 + payload (v6) */
	bool ip_csum_ok;	 /* IPv4 header checksum (true for v6) */

	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tcp_flags, tcp_hdr_len;
	uint16_t window, udp_len;
	uint8_t icmp_type, icmp_code;
	bool l4_csum_ok; /* TCP/UDP/ICMP/ICMPv6 checksum */

	const uint8_t *payload; /* TCP/UDP data, or the packet an ICMP
				   error quotes */
	size_t payload_len;
};

struct cwrap_pcap {
	int major, minor;
	int linktype;
	int snaplen;
	size_t n;
	struct cwrap_pcap_pkt *pkts;
};

/* NULL (with a message on stderr) if libpcap cannot read `path`. */
struct cwrap_pcap *cwrap_pcap_read(const char *path);
void cwrap_pcap_free(struct cwrap_pcap *cap);

/* One's complement sum verification over `len` bytes with a starting sum:
 * returns the folded sum (0xffff when a region with its checksum field
 * is correct). */
uint32_t cwrap_pcap_sum(uint32_t sum, const uint8_t *p, size_t len);
uint16_t cwrap_pcap_fold(uint32_t sum);

/* "127.0.0.10" / "fd00::5357:5f0a" of a packet address. */
const char *cwrap_pcap_addr(int family, const uint8_t *addr, char *buf,
			    size_t len);

#endif
