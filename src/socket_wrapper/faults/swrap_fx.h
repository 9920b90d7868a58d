/*
 * swrap_fx.h - what the files of faults/ share (see swrap_faults.h for the
 * room): the rules and the relays. Internal to the room, and to the unit
 * and fuzz tests of the rule parser.
 */
#ifndef SWRAP_FX_H
#define SWRAP_FX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "swrap_faults.h"

/* ---- rules (swrap_faults_rules.c) -------------------------------------- */

enum swrap_fx_kind {
	SWRAP_FX_DELAY,
	SWRAP_FX_RATE,
	SWRAP_FX_LOSS,
	SWRAP_FX_DUPLICATE,
	SWRAP_FX_REORDER,
	SWRAP_FX_REFUSE,
	SWRAP_FX_BLACKHOLE,
	SWRAP_FX_RESET,
	SWRAP_FX_CLOSE,
	SWRAP_FX_SLICE,
};

#define SWRAP_FX_TO 1u	 /* towards the endpoint */
#define SWRAP_FX_FROM 2u /* from the endpoint */

struct swrap_fx_rule {
	int proto;	   /* 0 any, SOCK_STREAM, SOCK_DGRAM */
	int family;	   /* 0 any address, AF_INET, AF_INET6 */
	uint8_t addr[16];  /* 4 bytes for AF_INET */
	unsigned port;	   /* 0: any */
	unsigned dir;	   /* SWRAP_FX_TO | SWRAP_FX_FROM */
	enum swrap_fx_kind kind;
	uint64_t arg;	   /* MS, BYTES, BYTES_PER_S, basis points */
	uint64_t arg2;	   /* jitter MS */
	bool after_ms;	   /* reset after MSms */
	bool has_after;	   /* reset after ... */
	unsigned prob;	   /* basis points (10000 = always) */
	uint64_t id;	   /* hash of the line's text: a connection's
			    * draw for it stays the same across reloads */
};

/* The rules as read at one moment: immutable once published, kept
 * (never freed) so that readers need no lock. */
struct swrap_fx_set {
	unsigned gen; /* > 0, grows at each reload */
	int n;
	const struct swrap_fx_set *prev;
	struct swrap_fx_rule r[];
};

/* Parse one line (no newline) of `file` at `lineno`: 1 and *r filled for
 * a rule, 0 for a blank or comment line, -1 (one stderr line naming the
 * file and line) for a malformed one. Pure, for the unit test. */
int swrap_fx_parse_line(const char *line, const char *file, unsigned lineno,
			struct swrap_fx_rule *r);

/* The rules in force (after swrap_faults_armed() said true). */
const struct swrap_fx_set *swrap_fx_rules(void);

/* Does rule `r` cover a socket of `type` whose endpoint is `ep`, under the
 * configuration `c` (the network the address is in)? */
bool swrap_fx_match(const struct swrap_fx_rule *r, const struct swrap_conf *c,
		    int type, const struct swrap_ep *ep);

/* A 64-bit draw from the seeded generator (SOCKET_WRAPPER_FAULTS_SEED). */
uint64_t swrap_fx_draw(void);
/* Is `prob` (basis points) met by the draw `u` for the rule with `id`? */
bool swrap_fx_chosen(uint64_t u, uint64_t id, unsigned prob);
/* Monotonic milliseconds (coarse clock, no system call). */
uint64_t swrap_fx_now_ms(void);

/* ---- effects and relays (swrap_faults.c, swrap_faults_relay.c) ---------- */

/* Give the TCP socket `fd` a relay process that holds its data for
 * `delay` and `rate` (swrap_faults_relay.c): 0, or -1 (no relay). */
int swrap_faults_relay(struct swrap_sock *s, int fd, bool client);
/* Does rule `r`'s `probability` choose the connection of `s` (the same
 * answer for the connection's life, across reloads of the rules)? */
bool swrap_faults_chosen(const struct swrap_sock *s,
			 const struct swrap_fx_rule *r);

/* A unix socket pair to put under the TCP socket `fd` (its file status
 * and descriptor flags in *fl, *fdfl): 0, or -1. Then `fd` becomes the
 * pair's `end` (closed either way), with those flags, as another kernel
 * socket of record `s`, connected to `peer` if it is given: 0, or -1 (fd
 * as it was). */
int swrap_faults_pair_open(int fd, int *fl, int *fdfl, int sv[2]);
int swrap_faults_pair_take(struct swrap_sock *s, int fd, int end, int fl,
			   int fdfl, const struct swrap_ep *peer);

/* A connect() to `ep` held by a blackhole: `fd` becomes a socket that
 * polls writable once the rule goes and a helper process connected it
 * (swrap_faults_relay.c); 0, or -1 (no helper could be made). The helper
 * asks swrap_faults_connect_held() whether the blackhole still holds it,
 * then connects with swrap_faults_connect_now() (0, or -1 and errno). */
int swrap_faults_pending(struct swrap_sock *s, int fd,
			 const struct swrap_ep *ep);
bool swrap_faults_connect_held(struct swrap_sock *s, const struct swrap_ep *ep);
int swrap_faults_connect_now(struct swrap_sock *s, int fd,
			     const struct swrap_ep *ep);

/* UDP: a relay process for the socket `fd` (its end of the channel, or
 * -1), and the hand-over of one datagram to it; the relay sends it when
 * it is due, with swrap_io_dgram_send() (past the rules). */
int swrap_faults_dgram_relay(struct swrap_sock *s, int fd);
void swrap_faults_dgram_hold(int chan, const struct msghdr *msg,
			     uint64_t delay_ms, uint64_t rate);

#endif
