/*
 * Per-connection capture state shared by every process that captures to
 * one file: for each pair of emulated addresses (TCP or UDP), the initial
 * sequence numbers, how much of each direction is already in the capture,
 * and whether the handshake and the FINs were recorded. It lives in a small
 * file mapped MAP_SHARED beside the capture (`<capture>.swrap-state`), so
 * forked children, unrelated processes and the receivers of passed sockets
 * see one set of sequence numbers and record each packet once.
 *
 * Lock: one robust, process-shared mutex inside the mapping guards the
 * table and also orders the writes to the capture file (the writer holds it
 * from building a packet until its write() returned). If the state file
 * cannot be used, the table is private to the process (same API, same
 * lock, process-local).
 */
#ifndef SWRAP_PCAP_STATE_H
#define SWRAP_PCAP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "swrap_pcap_pkt.h"

/* One direction of a connection, from one end to the other. Counts are in
 * bytes for TCP and in datagrams for UDP. */
struct swrap_pcap_dir {
	uint32_t isn;	   /* initial sequence number */
	uint32_t fin;	   /* FIN recorded */
	uint64_t recorded; /* written to the capture */
	uint64_t sent;	   /* reported by the sender (SEND) */
	uint64_t recvd;	   /* reported by the receiver (RECV) */
	uint64_t acked;	   /* recorded and acknowledged by the other end */
};

/* The two ends in canonical order (end 0 sorts first), so both ends of a
 * connection find the same entry. No padding: compared with memcmp. */
struct swrap_pcap_key {
	uint8_t proto; /* 6 TCP, 17 UDP */
	uint8_t family;
	uint16_t port[2];
	uint8_t addr[2][16];
};

/* conn->flags */
#define SWRAP_PCAP_F_HANDSHAKE 0x1 /* SYN, SYN-ACK, ACK recorded */
/* Handshake recorded by the client's CONNECT, the server's ACCEPT not yet
 * seen (or the other way round): the matching event is the same
 * connection, not a new one over the same addresses. */
#define SWRAP_PCAP_F_PENDING_ACCEPT 0x2
#define SWRAP_PCAP_F_PENDING_CONNECT 0x4
#define SWRAP_PCAP_F_RESET 0x8 /* RST recorded */
/* End 0 (0x10) / end 1 (0x20) was closed by a process while another one
 * still held it: its FIN is due once the last holder is gone. */
#define SWRAP_PCAP_F_CLOSING(end) (0x10u << (end))

/* Processes that hold each end of a TCP connection (0 = free slot). */
#define SWRAP_PCAP_HOLDERS 6

struct swrap_pcap_conn {
	struct swrap_pcap_key key;
	uint16_t used;
	uint32_t flags;
	uint64_t stamp;		      /* last use, for eviction */
	struct swrap_pcap_dir dir[2]; /* dir[0]: end 0 -> end 1 */
	int32_t holders[2][SWRAP_PCAP_HOLDERS];
};

struct swrap_pcap_state;

/* Attach to the state of capture file `pcap_path` (already open as
 * `pcap_fd`). Call with the capture file flock()ed; `fresh` says the
 * capture file was just created, which clears the table. Never NULL
 * (falls back to a private table). */
struct swrap_pcap_state *swrap_pcap_state_open(const char *pcap_path,
					       int pcap_fd, bool fresh);

/* In a child after fork(): a private table's lock may have been held by
 * another thread of the parent; start it afresh. (The shared lock belongs
 * to the parent's thread, which releases it.) */
void swrap_pcap_state_atfork_child(struct swrap_pcap_state *s);

void swrap_pcap_state_lock(struct swrap_pcap_state *s);
void swrap_pcap_state_unlock(struct swrap_pcap_state *s);

/* Under the lock: the entry of (proto, local, peer), created (zeroed, with
 * new initial sequence numbers) if absent. `*out` is set to the index of
 * the local -> peer direction. */
struct swrap_pcap_conn *swrap_pcap_state_conn(struct swrap_pcap_state *s,
					      uint8_t proto,
					      const struct swrap_pcap_ep *local,
					      const struct swrap_pcap_ep *peer,
					      int *out);

/* Under the lock: forget the connection's history and draw new initial
 * sequence numbers (a new connection over the same addresses). */
void swrap_pcap_state_reset(struct swrap_pcap_state *s,
			    struct swrap_pcap_conn *c);

/* True for a table shared through the state file. */
bool swrap_pcap_state_shared(const struct swrap_pcap_state *s);

/* Under the lock, shared tables only: reserve the next `len` bytes of the
 * capture file at `*off`, so records keep the lock's order even though
 * they are written after unlocking. False for a private table (append
 * with O_APPEND under the lock instead). */
bool swrap_pcap_state_reserve(struct swrap_pcap_state *s, size_t len,
			      uint64_t *off);

/* Under the lock: the capture file (just reopened as `fd`) is at least as
 * long as it is now. */
void swrap_pcap_state_note_size(struct swrap_pcap_state *s, int fd);

/* Under the lock: process `pid` uses end `end` of `c`. */
void swrap_pcap_state_hold(struct swrap_pcap_conn *c, int end, int32_t pid);

/* Under the lock: `pid` closed end `end`; true if another process that
 * is still alive holds it (a forking server's parent closing its copy of
 * an accepted socket: the connection is not closed yet). */
bool swrap_pcap_state_release(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end, int32_t pid);

/* Under the lock: end `end` of `c` is closed once its other holders are
 * gone (see swrap_pcap_state_sweep). */
void swrap_pcap_state_closing(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end);

/* Under the lock: up to `max` ends marked closing whose holders have all
 * exited since (their FIN is due now); the marks are cleared. Cheap when
 * nothing is marked. */
size_t swrap_pcap_state_sweep(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn **conns, int *ends,
			      size_t max);

/* Before fork() (takes the lock): `parent` has a child on the way, which
 * holds whatever its parent holds until it registers itself. */
void swrap_pcap_state_fork_prepare(struct swrap_pcap_state *s, int32_t parent);

/* In the child after fork() (takes the lock): the child holds every TCP
 * end its parent holds, since it inherited the descriptors. */
void swrap_pcap_state_forked(struct swrap_pcap_state *s, int32_t parent,
			     int32_t child);

/* Under the lock: a fresh pseudo-random number, the next IPv4 id. */
uint32_t swrap_pcap_state_random(struct swrap_pcap_state *s);
uint16_t swrap_pcap_state_ip_id(struct swrap_pcap_state *s);

#endif
