/*
 * capture/ - the capture of emulated traffic to SOCKET_WRAPPER_PCAP_FILE
 * (classic pcap, link type 101, raw IPv4/IPv6 packets with synthesized
 * TCP/UDP headers). This header is the whole way into the room.
 *
 * Owns: the capture file and its descriptor (swrap_pcap.c), the packets'
 * bytes (swrap_pcap_pkt.c, pure), and the per-connection state shared by
 * every process capturing to one file (swrap_pcap_state.c: sequence
 * numbers, who holds each end, when a FIN is due).
 *
 * May call: libc (the capture's own descriptors go to libc_<name>() of
 * swrap_libc.h or to the real functions bound with cwrap_bind), and
 * src/common. Nothing of the socket core: the capture is an observer. The
 * core tells it what happened, in emulated addresses, and which
 * configuration is in force; it never asks the core anything, and nothing
 * it does changes what a socket call returns.
 *
 * Locks: the capture state lock (robust and process-shared when the state
 * file is usable) guards the connection table and the order of records in
 * the file; the switch to another file (the program changed the
 * variables) holds a read-write lock for writing, which every event holds
 * for reading. No core lock is ever held while the capture runs, nor
 * taken by it.
 *
 * The events: the writer turns them into packets (TCP handshake, segments
 * split at SOCKET_WRAPPER_MTU with sequence/ack numbers, FIN/RST, UDP
 * datagrams, ICMP port unreachable), keyed by the connection's two
 * addresses, so that it stays right when several processes share a socket
 * or a file. `local` is the emulated address of the reporting socket,
 * `peer` the emulated address of the other end; `sotype` is SOCK_STREAM or
 * SOCK_DGRAM. Every function is a cheap no-op when capture is off.
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

/* The capture settings of the core's configuration `key`: its
 * SOCKET_WRAPPER_PCAP_FILE `file` (NULL: none) and SOCKET_WRAPPER_MTU
 * `mtu`. The core's configurations are immutable and never freed, so the
 * key names the settings: while it is the one followed already, this is
 * one load; another one opens its file (or none) once the events using the
 * old one are done. True when capture is on. Events go to the file
 * followed last. */
bool swrap_pcap_follow(const void *key, const char *file, long mtu);

/* Report one event. For SEND/RECV/SEND_UNREACH the payload is the first
 * `len` bytes of iov[0..iovcnt); other events pass iov = NULL, len = 0. */
void swrap_pcap_event(enum swrap_pcap_event event, int sotype,
		      const struct sockaddr *local, socklen_t local_len,
		      const struct sockaddr *peer, socklen_t peer_len,
		      const struct iovec *iov, int iovcnt, size_t len);

#endif
