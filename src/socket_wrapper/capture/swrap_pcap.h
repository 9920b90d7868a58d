/*
 * Capture of emulated traffic to SOCKET_WRAPPER_PCAP_FILE (classic pcap,
 * link type 101, raw IPv4/IPv6 packets with synthesized TCP/UDP headers).
 *
 * This is the whole interface between the socket core and the capture
 * writer: the core reports what happened on an emulated socket, in terms of
 * emulated addresses; the writer turns it into packets (TCP handshake,
 * segments split at SOCKET_WRAPPER_MTU with sequence/ack numbers, FIN/RST,
 * UDP datagrams, ICMP port unreachable) and owns the file, its lock and any
 * per-connection state (which it keys by the connection's two addresses, so
 * that it stays right when several processes share a socket or a file).
 *
 * `local` is the emulated address of the reporting socket, `peer` the
 * emulated address of the other end; `sotype` is SOCK_STREAM or SOCK_DGRAM.
 * Every function is a cheap no-op when capture is off.
 */
#ifndef SWRAP_PCAP_H
#define SWRAP_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

enum swrap_pcap_event {
	/* TCP, client side, connect() succeeded: SYN, SYN-ACK, ACK. */
	SWRAP_PCAP_CONNECT,
	/* TCP, client side, nobody listens: SYN, RST from the peer. */
	SWRAP_PCAP_CONNECT_REFUSED,
	/* TCP, server side, accept() returned this connection. */
	SWRAP_PCAP_ACCEPT,
	/* local sent `len` bytes to peer (TCP data or one UDP datagram). */
	SWRAP_PCAP_SEND,
	/* local received `len` bytes from peer. */
	SWRAP_PCAP_RECV,
	/* UDP datagram to an address nobody has bound: the datagram, then
	 * ICMP (ICMPv6) port unreachable back to local. */
	SWRAP_PCAP_SEND_UNREACH,
	/* TCP, local closed or shut down for writing: FIN and its ACK. */
	SWRAP_PCAP_CLOSE,
	/* TCP, local saw the connection reset (ECONNRESET/EPIPE). */
	SWRAP_PCAP_RESET,
};

/* True when capture is on: SOCKET_WRAPPER_PCAP_FILE as the socket core's
 * configuration last read it (a switch to another file happens here). */
bool swrap_pcap_enabled(void);

/* Report one event. For SEND/RECV/SEND_UNREACH the payload is the first
 * `len` bytes of iov[0..iovcnt); other events pass iov = NULL, len = 0. */
void swrap_pcap_event(enum swrap_pcap_event event, int sotype,
		      const struct sockaddr *local, socklen_t local_len,
		      const struct sockaddr *peer, socklen_t peer_len,
		      const struct iovec *iov, int iovcnt, size_t len);

#endif
