/*
 * pcap_synth FILE: write a capture of every kind of packet the writer
 * makes (TCP conversations over IPv4 and IPv6 with a transfer far above the
 * MTU in both directions, a refused connection, a reset, UDP exchanges, an
 * ICMP and an ICMPv6 port unreachable) for tshark to judge. Uses the
 * writer directly, as the socket core does.
 */
#include "pcap_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tcp_conv(int family, uint16_t cport, uint8_t *big, size_t blen)
{
	struct pt_ep c = pt_ep(family, 100, cport);
	struct pt_ep s = pt_ep(family, 10, 7);

	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, "Hello!\n", 7);
	pt_event(SWRAP_PCAP_ACCEPT, SOCK_STREAM, &s, &c, NULL, 0);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &s, &c, "Hello!\n", 7);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, big, blen);
	pt_event(SWRAP_PCAP_RECV, SOCK_STREAM, &c, &s, big, blen);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, big, blen / 3);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &s, &c, "bye\n", 4);
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &s, &c, NULL, 0);
}

static void udp_conv(int family)
{
	struct pt_ep c = pt_ep(family, 100, 50000);
	struct pt_ep s = pt_ep(family, 10, 7);
	struct pt_ep nobody = pt_ep(family, 11, 9999);

	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &c, &s, "query", 5);
	pt_event(SWRAP_PCAP_RECV, SOCK_DGRAM, &s, &c, "query", 5);
	pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &s, &c, "answer", 6);
	pt_event(SWRAP_PCAP_SEND_UNREACH, SOCK_DGRAM, &c, &nobody, "lost", 4);
}

static void rst_conv(int family)
{
	struct pt_ep c = pt_ep(family, 100, 40100);
	struct pt_ep c2 = pt_ep(family, 100, 40101);
	struct pt_ep s = pt_ep(family, 10, 9);

	pt_event(SWRAP_PCAP_CONNECT_REFUSED, SOCK_STREAM, &c, &s, NULL, 0);
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c2, &s, NULL, 0);
	pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c2, &s, "x", 1);
	pt_event(SWRAP_PCAP_RESET, SOCK_STREAM, &c2, &s, NULL, 0);
}

int main(int argc, char **argv)
{
	size_t blen = 300000, i;
	uint8_t *big;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_synth FILE\n");
		return 2;
	}
	setenv("SOCKET_WRAPPER_PCAP_FILE", argv[1], 1);
	if (!swrap_pcap_enabled()) {
		return 1;
	}
	big = malloc(blen);
	for (i = 0; i < blen; i++) {
		big[i] = (uint8_t)(i * 13);
	}
	tcp_conv(4, 40000, big, blen);
	tcp_conv(6, 40000, big, blen);
	udp_conv(4);
	udp_conv(6);
	rst_conv(4);
	rst_conv(6);
	free(big);
	return 0;
}
