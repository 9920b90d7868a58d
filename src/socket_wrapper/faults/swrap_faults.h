/*
 * faults/ - network conditions on emulated links (SOCKET_WRAPPER_FAULTS):
 * a filter on the socket core's connect and data paths, as a queueing
 * discipline (netem) sits between a socket and its device. This header is
 * the whole way into the room (faults/swrap_fx.h is the room's own).
 *
 * Owns: the rules (swrap_faults_rules.c: the parser, the rule set in force
 * and its reload, the seeded generator), the effect state of each socket
 * (swrap_faults.c: struct swrap_fstate, hung on the record's `fstate`),
 * and the relay processes that hold data back or complete a connect()
 * once a blackhole goes (swrap_faults_relay.c).
 *
 * Entered: the core asks swrap_faults_armed() (one or two atomic loads
 * while no rule file is set) and then makes one call per kind of
 * operation, below; each answers with what the program's call returns,
 * or a verdict the core acts on (a refusal or a loss: what the program
 * and the capture see of it is the core's doing), or lets the core go on.
 *
 * May call of the core: these eight functions only (tests/foundation/
 * check_layers.sh checks it), and the record's fields for reading (its
 * own `fstate` aside):
 *   addresses: swrap_sock_eps() (a record's two ends, as the rules match
 *   them), swrap_addr_encode() (an endpoint's IP address, to compare with
 *   a rule's), swrap_fd_name() (the name that makes a socket put under a
 *   record's descriptor adoptable across exec);
 *   the record: swrap_fd_renewed() (another kernel socket under its
 *   descriptor, and the peer it is connected to);
 *   the paths below the filter: swrap_io_dgram_send() (a datagram the
 *   rules let through, duplicated or released late) and
 *   swrap_io_report_to() (a relay's deliveries, to the capture);
 *   in a relay process: swrap_sock_connect_ep() (the connection a
 *   blackhole held, the rules looked at again) and swrap_close_range().
 * Besides: libc_<name>() (swrap_libc.h) and src/common; never an exported
 * name, nor the capture directly (only its event numbers).
 *
 * Locks: each socket's effect state has its mutex; the rules' reload has
 * its own (reading them takes none). The core calls in with none of its
 * locks held; the room takes the core's swrap_lock() only inside the core
 * functions above, after (never before) an effect state's mutex. A relay
 * is a process of its own.
 */
#ifndef SWRAP_FAULTS_H
#define SWRAP_FAULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "swrap.h"

/* True when a rule file is set and has rules. While the variable is unset
 * this is one or two atomic loads; when set, the file is looked at (one
 * stat) at most every few milliseconds. */
bool swrap_faults_armed(void);

/* What the rules decided for a connect() or a datagram: the room only
 * decides and holds back; what the program and the capture then see of a
 * refusal or a loss is the core's doing. */
enum swrap_faults_verdict {
	SWRAP_FAULTS_PASS,    /* as without rules: the core goes on */
	SWRAP_FAULTS_REFUSED, /* the endpoint refuses: the core answers as
			       * when nobody is there (swrap_sock_refused(),
			       * swrap_io_dgram_unreach()) */
	SWRAP_FAULTS_LOST,    /* a datagram lost on the way: the capture
			       * sees it leave, the program sent it */
	SWRAP_FAULTS_TAKEN,   /* the room made the call: its result is
			       * the program's (-1 and errno for connect()) */
};

/* connect() of a TCP socket to `ep`, bound already: PASS, REFUSED, or
 * TAKEN when a blackhole holds it (-1 and errno: EINPROGRESS, EALREADY,
 * EINTR). */
enum swrap_faults_verdict swrap_faults_connect(struct swrap_sock *s, int fd,
					       const struct swrap_ep *ep);

/* connect() on a socket whose connect() a blackhole holds (EALREADY, not
 * EISCONN): no system call unless it is one. */
bool swrap_faults_connecting(struct swrap_sock *s, int fd);

/* A TCP send (`out`) or receive on `fd` with the rules in force: the
 * system call made here (sendmsg/recvmsg with `flags`); returns its
 * result, a shortened one (slice, close after), or the errno of a reset. */
ssize_t swrap_faults_stream(struct swrap_sock *s, int fd, bool out,
			    struct msghdr *m, int flags);

/* A UDP datagram of `total` bytes to `ep` about to be sent: PASS,
 * REFUSED (its port closed to it), LOST, or TAKEN (duplicated, held back
 * or released with a held one), *r then being what sendmsg() returns. */
enum swrap_faults_verdict swrap_faults_dgram(struct swrap_sock *s, int fd,
					     const struct msghdr *msg,
					     int flags,
					     const struct swrap_ep *ep,
					     size_t total, ssize_t *r);

/* A relay holds this TCP socket's data (ours, or, for what we send
 * (`out`), our client's): it reports the data to the capture when it
 * delivers it. */
bool swrap_faults_relayed(const struct swrap_sock *s, bool out);

/* The relay made this TCP connection (a connect held by a blackhole):
 * it records the FIN, when it hands it on; the program does not (nor
 * one for a connection that never was). */
bool swrap_faults_fin_by_relay(const struct swrap_sock *s);

/* The record goes: its effect state with it. */
void swrap_faults_drop(struct swrap_sock *s);

#endif
