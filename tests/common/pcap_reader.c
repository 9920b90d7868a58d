/*
 * Reading a capture back for tests (see pcap_reader.h): libpcap reads the
 * records; the IP, TCP, UDP and ICMP fields are decoded here byte by byte
 * and every checksum is recomputed independently. No global state.
 */
#include "pcap_reader.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

uint32_t cwrap_pcap_sum(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += get16(p + i);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
	}
	return sum;
}

uint16_t cwrap_pcap_fold(uint32_t sum)
{
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)sum;
}

const char *cwrap_pcap_addr(int family, const uint8_t *addr, char *buf,
			    size_t len)
{
	if (inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, buf,
		      (socklen_t)len) == NULL) {
		snprintf(buf, len, "?");
	}
	return buf;
}

static uint32_t pseudo(const struct cwrap_pcap_pkt *k, size_t l4len)
{
	uint32_t sum;

	if (k->family == 6) {
		sum = cwrap_pcap_sum(0, k->src, 16);
		sum = cwrap_pcap_sum(sum, k->dst, 16);
		return sum + (uint32_t)(l4len >> 16) +
		       (uint32_t)(l4len & 0xffff) + k->proto;
	}
	sum = cwrap_pcap_sum(0, k->src, 4);
	sum = cwrap_pcap_sum(sum, k->dst, 4);
	return sum + k->proto + (uint32_t)l4len;
}

static void decode(struct cwrap_pcap_pkt *k)
{
	const uint8_t *p = k->data, *l4;
	size_t n = k->caplen, l4len;

	if (n >= 20 && (p[0] >> 4) == 4) {
		size_t ihl = (size_t)(p[0] & 15) * 4;

		k->family = 4;
		k->ip_len = get16(p + 2);
		k->ip_id = get16(p + 4);
		k->ip_frag = get16(p + 6);
		k->ttl = p[8];
		k->proto = p[9];
		memcpy(k->src, p + 12, 4);
		memcpy(k->dst, p + 16, 4);
		k->ip_csum_ok =
		    cwrap_pcap_fold(cwrap_pcap_sum(0, p, ihl)) == 0xffff;
		l4 = p + ihl;
		l4len = k->ip_len >= ihl ? k->ip_len - ihl : 0;
	} else if (n >= 40 && (p[0] >> 4) == 6) {
		k->family = 6;
		k->ip_len = 40 + (size_t)get16(p + 4);
		k->proto = p[6];
		k->ttl = p[7];
		memcpy(k->src, p + 8, 16);
		memcpy(k->dst, p + 24, 16);
		k->ip_csum_ok = true;
		l4 = p + 40;
		l4len = k->ip_len - 40;
	} else {
		return;
	}
	if (k->ip_len > n) {
		return; /* truncated: leave the transport undecoded */
	}
	if (k->proto == 6 && l4len >= 20) {
		k->sport = get16(l4);
		k->dport = get16(l4 + 2);
		k->seq = get32(l4 + 4);
		k->ack = get32(l4 + 8);
		k->tcp_hdr_len = (uint8_t)((l4[12] >> 4) * 4);
		k->tcp_flags = l4[13];
		k->window = get16(l4 + 14);
		k->payload = l4 + k->tcp_hdr_len;
		k->payload_len = l4len - k->tcp_hdr_len;
	} else if (k->proto == 17 && l4len >= 8) {
		k->sport = get16(l4);
		k->dport = get16(l4 + 2);
		k->udp_len = get16(l4 + 4);
		k->payload = l4 + 8;
		k->payload_len = l4len - 8;
	} else if ((k->proto == 1 || k->proto == 58) && l4len >= 8) {
		k->icmp_type = l4[0];
		k->icmp_code = l4[1];
		k->payload = l4 + 8;
		k->payload_len = l4len - 8;
	} else {
		return;
	}
	k->l4_csum_ok =
	    cwrap_pcap_fold(cwrap_pcap_sum(k->proto == 1 ? 0 : pseudo(k, l4len),
					   l4, l4len)) == 0xffff;
}

struct cwrap_pcap *cwrap_pcap_read(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *bytes;
	struct cwrap_pcap *cap;
	size_t cap_n = 0;
	pcap_t *pc;
	int rc;

	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		fprintf(stderr, "pcap_open_offline(%s): %s\n", path, err);
		return NULL;
	}
	cap = calloc(1, sizeof(*cap));
	cap->major = pcap_major_version(pc);
	cap->minor = pcap_minor_version(pc);
	cap->linktype = pcap_datalink(pc);
	cap->snaplen = pcap_snapshot(pc);
	while ((rc = pcap_next_ex(pc, &h, &bytes)) == 1) {
		struct cwrap_pcap_pkt *k;

		if (cap->n == cap_n) {
			cap_n = cap_n ? cap_n * 2 : 64;
			cap->pkts = realloc(cap->pkts, cap_n * sizeof(*k));
		}
		k = &cap->pkts[cap->n++];
		memset(k, 0, sizeof(*k));
		k->ts_sec = (uint32_t)h->ts.tv_sec;
		k->ts_usec = (uint32_t)h->ts.tv_usec;
		k->caplen = h->caplen;
		k->len = h->len;
		k->data = malloc(h->caplen ? h->caplen : 1);
		memcpy(k->data, bytes, h->caplen);
		decode(k);
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(pc));
		pcap_close(pc);
		cwrap_pcap_free(cap);
		return NULL;
	}
	pcap_close(pc);
	return cap;
}

void cwrap_pcap_free(struct cwrap_pcap *cap)
{
	size_t i;

	if (cap == NULL) {
		return;
	}
	for (i = 0; i < cap->n; i++) {
		free(cap->pkts[i].data);
	}
	free(cap->pkts);
	free(cap);
}
