/*
 * Helpers of the capture writer's unit tests: emulated addresses, running
 * a scenario in a child process with SOCKET_WRAPPER_PCAP_FILE set (the
 * writer reads its variables once per process), and assertions every
 * packet must pass. No global state beyond the test identity.
 */
#ifndef PCAP_TEST_UTIL_H
#define PCAP_TEST_UTIL_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cwrap_test.h"
#include "pcap_reader.h"
#include "capture/swrap_pcap.h"
#include "swrap.h" /* swrap_pcap_enabled(): the core asks the capture */

/* An emulated address: 127.0.0.<iface> or fd00::5357:5f<iface>. */
struct pt_ep {
	struct sockaddr_storage ss;
	socklen_t len;
	int family; /* 4 or 6 */
	uint8_t addr[16];
	uint16_t port;
};

struct pt_ep pt_ep(int family, int iface, uint16_t port);

/* Report one event from `local` to `peer` with `len` bytes of `data`. */
void pt_event(enum swrap_pcap_event ev, int sotype, const struct pt_ep *local,
	      const struct pt_ep *peer, const void *data, size_t len);

/* A capture made by child processes, one per step. */
#define PT_MAX_STEPS 8
struct pt_run {
	char *dir;
	char *path;	   /* <dir>/cap.pcap */
	char *stderr_text; /* what the child printed on stderr */
	struct cwrap_pcap *cap;
	int nsteps; /* step processes, each waiting for steps to run */
	pid_t pids[PT_MAX_STEPS];
	int cmd[PT_MAX_STEPS], done[PT_MAX_STEPS];
};

/* Fork a step process; in it set SOCKET_WRAPPER_PCAP_FILE (and
 * SOCKET_WRAPPER_MTU when `mtu` is not NULL) and run fn(arg). The parent
 * waits until fn returned and reads the capture back. The process lives
 * on until pt_run_free() (which asserts it exits 0), so the connections
 * it reported stay open: a later step can continue them (pt_capture_in)
 * as the same process. */
void pt_capture(struct pt_run *run, const char *mtu, void (*fn)(void *),
		void *arg);
/* Same, into an existing run directory (appending to its capture). */
void pt_capture_more(struct pt_run *run, const char *mtu, void (*fn)(void *),
		     void *arg);
/* Run fn(arg) in the run's step process number `step` (0: the first). */
void pt_capture_in(struct pt_run *run, int step, void (*fn)(void *), void *arg);
/* End the steps' processes (after reading the capture), free the run. */
void pt_run_free(struct pt_run *run);

/* Every packet: IP version, addresses, TTL 64, lengths consistent with
 * the record, DF for IPv4, checksums right, the protocol. */
void pt_assert_ip(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		  const struct pt_ep *dst, uint8_t proto);
/* A TCP segment: pt_assert_ip plus ports, flags, seq, ack (when ACK is
 * set; 0 otherwise), window, header length and payload. */
void pt_assert_tcp(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		   const struct pt_ep *dst, uint8_t flags, uint32_t seq,
		   uint32_t ack, const void *payload, size_t len);
void pt_assert_udp(const struct cwrap_pcap_pkt *k, const struct pt_ep *src,
		   const struct pt_ep *dst, const void *payload, size_t len);

/* Packets k[3..5] of a connection whose server end (`s`, a forked child)
 * sent "bye\n" after the handshake and died without closing: the data, the
 * FIN recorded for the dead end, and the client's ACK. */
void pt_assert_dead_bye(const struct cwrap_pcap_pkt *k, const struct pt_ep *s,
			const struct pt_ep *c);

/* Each packet of the capture in one line (ports, TCP flags, payload), so
 * that a failing count shows what was recorded. */
void pt_print_packets(const struct cwrap_pcap *cap);
/* pt_capture() of fn in one step, the capture read back and printed: its
 * packets. */
struct cwrap_pcap_pkt *pt_capture_shown(struct pt_run *run, void (*fn)(void *));

/* In an open() wrapper (-Wl,--wrap=open): the mode argument, which is
 * there only with O_CREAT (or O_TMPFILE). */
#define PT_OPEN_MODE(flags)                                                    \
	({                                                                     \
		mode_t pt_mode_ = 0;                                           \
		if (((flags) & O_CREAT) ||                                     \
		    ((flags) & O_TMPFILE) == O_TMPFILE) {                      \
			va_list pt_ap_;                                        \
			va_start(pt_ap_, flags);                               \
			pt_mode_ = (mode_t)va_arg(pt_ap_, int);                \
			va_end(pt_ap_);                                        \
		}                                                              \
		pt_mode_;                                                      \
	})

#endif
