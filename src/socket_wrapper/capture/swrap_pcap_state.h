/*
 * Per-connection capture state shared by every process that captures to
 * one file: for each pair of emulated addresses (TCP or UDP), the initial
 * sequence numbers, how much of each direction is already in the capture,
 * whether the handshake and the FINs were recorded, and which processes
 * hold each end of a TCP connection. It lives in a small file mapped
 * MAP_SHARED beside the capture (`<capture>.swrap-state`), so forked
 * children, unrelated processes and the receivers of passed sockets see
 * one set of sequence numbers and record each packet once.
 *
 * Holders: every capturing process has a slot in a table of processes
 * (its "ref" is the slot's index + 1). A slot holds a robust mutex that
 * its process keeps locked while it lives, so the kernel marks it when
 * the process dies, however it dies: telling a dead holder from a live
 * one is a load, not a system call. (When the kernel is asked, the slot
 * also names its process by start time: a pid given again to a new
 * process after wrapping around is not the dead one's.) A fork reserves a
 * slot for the child before fork() and names it beside the parent on every
 * end the parent holds, so the child holds what it inherited from the
 * first instant, whatever the parent closes meanwhile, and two children
 * never share a reservation. The FIN of an end is due when its last holder
 * closes it, or is found dead (see swrap_pcap_state_sweep).
 *
 * Lock: one robust, process-shared mutex inside the mapping guards the
 * table and also orders the writes to the capture file (records are
 * written at offsets reserved under it). A process's own life lock is
 * always taken before, never under, the table lock. If the state file
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

/* Processes named as holders of each end of a TCP connection. */
#define SWRAP_PCAP_HOLDERS 8

struct swrap_pcap_conn {
	struct swrap_pcap_key key;
	uint16_t used;
	uint32_t flags;
	uint64_t stamp;				 /* last use, for eviction */
	struct swrap_pcap_dir dir[2];		 /* dir[0]: end 0 -> end 1 */
	uint16_t holders[2][SWRAP_PCAP_HOLDERS]; /* process refs, 0 = none */
};

struct swrap_pcap_state;

/* Attach to the state of capture file `pcap_path` (already open as
 * `pcap_fd`). Call with the capture file flock()ed; `fresh` says the
 * capture file was just created, which clears the table. Never NULL
 * (falls back to a private table). */
struct swrap_pcap_state *swrap_pcap_state_open(const char *pcap_path,
					       int pcap_fd, bool fresh);

/* Detach from a state (the program switched to another capture file);
 * nobody uses `s` any more; `ref` was this process's slot there. The
 * mapping stays while another thread holds the slot's life lock (see
 * swrap_pcap_state.c). NULL is ignored. */
void swrap_pcap_state_close(struct swrap_pcap_state *s, uint16_t ref);

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

/* Not under the lock: a slot for process `pid` (the one it had before an
 * exec, if any, but never that of a dead process whose pid it was given
 * again: /proc/<pid>/stat's start time tells them apart), its life lock
 * taken. 0 if the table is full (the process
 * is then nobody's holder: its FINs are recorded at its closes). */
uint16_t swrap_pcap_state_register(struct swrap_pcap_state *s, int32_t pid);

/* Not under the lock, cheap: take `ref`'s life lock again if the thread
 * that held it ended. Call before each event. */
void swrap_pcap_state_keepalive(struct swrap_pcap_state *s, uint16_t ref);

/* Under the lock: `ref` uses end `end` of `c`. */
void swrap_pcap_state_hold(struct swrap_pcap_state *s,
			   struct swrap_pcap_conn *c, int end, uint16_t ref);

/* Under the lock: `ref` closed end `end`; true if another live process
 * still holds it (a forking server's parent closing its copy of an
 * accepted socket: the connection is not closed yet). */
bool swrap_pcap_state_release(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end, uint16_t ref);

/* Under the lock: fin(arg, c, end) for each end whose last holders were
 * found dead (they exited or were killed without a close the wrapper
 * saw, or called swrap_pcap_state_exiting): their FIN is due now. Returns
 * how many. One pass: a load per process when nobody died, else one look
 * at each process and each connection. */
typedef void (*swrap_pcap_fin_fn)(void *arg, struct swrap_pcap_conn *c,
				  int end);
size_t swrap_pcap_state_sweep(struct swrap_pcap_state *s,
			      swrap_pcap_fin_fn fin, void *arg);

/* Under the lock: the process of `ref` is exiting; it holds nothing from
 * now on (the next sweeps return the ends it was the last to hold). */
void swrap_pcap_state_exiting(struct swrap_pcap_state *s, uint16_t ref);

/* Before fork() (takes the lock): reserve a slot for the child of
 * `parent` and name it a holder of every end `parent` holds. Returns the
 * child's ref (0 if none: private table, or full) and `*serial`, which
 * the child passes to swrap_pcap_state_forked(). */
uint16_t swrap_pcap_state_fork_prepare(struct swrap_pcap_state *s,
				       uint16_t parent, uint32_t *serial);

/* In the parent after a failed fork() (takes the lock): drop the
 * reservation. */
void swrap_pcap_state_fork_failed(struct swrap_pcap_state *s, uint16_t child,
				  uint32_t serial);

/* In the child after fork() (takes the lock, then its life lock): claim
 * the reservation `child` for process `pid`; returns the child's ref.
 * Without a valid reservation, registers anew and holds whatever the
 * parent holds now. */
uint16_t swrap_pcap_state_forked(struct swrap_pcap_state *s, uint16_t parent,
				 uint16_t child, uint32_t serial, int32_t pid);

/* Under the lock: a fresh pseudo-random number, the next IPv4 id. */
uint32_t swrap_pcap_state_random(struct swrap_pcap_state *s);
uint16_t swrap_pcap_state_ip_id(struct swrap_pcap_state *s);

/* Whether byte `off` of a state file is part of one of its locks (for the
 * fuzz target, which leaves those alone: whoever can write the file can
 * hold a lock forever, as with any lock shared between processes). */
bool swrap_pcap_state_lock_byte(size_t off);

#endif
