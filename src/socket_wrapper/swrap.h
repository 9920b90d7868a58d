/*
 * swrap.h - internal API of socket_wrapper's core (hidden visibility).
 *
 * An emulated AF_INET/AF_INET6 socket is a real AF_UNIX socket of the same
 * type plus a `struct swrap_sock` record that says what the program thinks
 * it is: family, type, emulated local and peer addresses, options.
 *
 * The library is three rooms that call one way (doc/HACKING.md, "Layers"):
 * the core (the files at the top of src/socket_wrapper), capture/ (an
 * observer) and faults/ (a filter), each entered through one header.
 *
 * The core owns the entry points, the descriptor table and the records,
 * the address model, the socket calls, the data path, SO_REUSEPORT groups,
 * ancillary data and the configuration:
 *   swrap_entry.c  the exported libc names: "is it mine?" and a call
 *   swrap_dlopen.c dlopen() without RTLD_DEEPBIND while enabled
 *   swrap_init.c   configuration from the environment, enabled(), atfork
 *   swrap_addr.c   pure: inet address <-> unix path, interfaces, broadcast
 *   swrap_fdtab.c  fd -> record table (lock-free reads), records, refcounts
 *   swrap_fd.c     close dup dup2 dup3 fcntl close_range, adopt from kernel
 *   swrap_sock.c   socket bind listen connect accept names sockopt
 *   swrap_tcp.c    TCP_INFO, TCP_MAXSEG and the TCP options' ranges
 *   swrap_quic.c   IPPROTO_QUIC sockets, the datagram->seqpacket fallback
 *   swrap_group.c  SO_REUSEPORT groups: member names, who joins, who is asked
 *   swrap_io.c     read write send recv sendto recvfrom sendmsg recvmsg *v
 *   swrap_copy.c   sendfile splice preadv2 pwritev2 (through swrap_io.c)
 *   swrap_mmsg.c   sendmmsg recvmmsg (through swrap_io.c)
 *   swrap_cmsg.c   IP_PKTINFO, SCM_RIGHTS
 *   swrap_exec.c   exec*() and posix_spawn*(): a static or Go program
 *                  through swrap_supervise.c, run supervised
 *   swrap_libc.c   libc_<name>() from swrap_libc.def: below every room
 *
 * It may call: capture/ through capture/swrap_pcap.h only (events, and the
 * configuration in force, by swrap_pcap_enabled()); faults/ through
 * faults/swrap_faults.h only (asked at connect and for each transfer,
 * once swrap_faults_armed() said a rule file is in force); libc by
 * libc_<name>(), never by an exported name; src/common. The functions
 * faults/ may call back are listed in faults/swrap_faults.h; capture/
 * calls nothing here. tests/foundation/check_layers.sh checks all this on
 * the built objects.
 *
 * Locks: swrap_lock() (swrap_init.c) guards the records' state and the
 * free list, in short sections that call nothing else; the configuration
 * has its mutex; the fd table is read without a lock. Each file's first
 * paragraph says what it guards. The core calls the rooms with none of its
 * locks held.
 */
#ifndef SWRAP_H
#define SWRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <netinet/in.h>

#include "cwrap_compiler.h"

/* ---- configuration (swrap_init.c) ------------------------------------ */

/* The SOCKET_WRAPPER_* variables as parsed at one moment. Immutable once
 * published and never freed, so a socket record keeps a pointer to the
 * configuration it was made under (its directory, interface, network)
 * while the program changes the environment for new sockets. */
struct swrap_conf {
	bool enabled;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t dir_len;
	unsigned default_iface; /* 1..254 */
	uint32_t ipv4_net;	/* host order: 0x7f000000 or 0x0a353900 */
	uint32_t ipv4_bcast;	/* host order: 0x7fffffff or 0x0affffff */
	long max_sockets;
	long mtu;
	const char *pcap_file; /* as given; NULL when unset or empty */
};

/* The configuration of the current environment: read again when the
 * environment changed since the last call (cwrap_env_gen()), otherwise a
 * few atomic loads. Never NULL. */
const struct swrap_conf *swrap_conf(void);
/* Capture on (capture/swrap_pcap.h): the capture follows the
 * configuration published last, without a look at the environment (the
 * data path's cost: two loads), read first if there is none yet. */
bool swrap_pcap_enabled(void);
bool swrap_enabled(void);
/* Parse raw values of the variables (SOCKET_WRAPPER_DIR, _DIR_ALLOW_ORIG,
 * _DEFAULT_IFACE, _IPV4_NETWORK, _MAX_SOCKETS, _MTU, _PCAP_FILE; NULL for
 * unset) into `c`, reporting bad ones; `raw` must outlive `c`. */
void swrap_conf_parse(struct swrap_conf *c, char *const raw[]);
/* getpid(), cached (kept right across fork by the fork handler). */
pid_t swrap_pid(void);
/* How many forks this process and its ancestors made: a socket bound
 * before the last one may be held by another process too. */
unsigned swrap_fork_gen(void);

/* The global state lock: short, non-blocking sections only (record state
 * changes, the free list). Taken by the fork handlers, so a fork while
 * another thread holds it cannot leave the child deadlocked. */
void swrap_lock(void);
void swrap_unlock(void);

/* ---- addresses (swrap_addr.c, pure) ---------------------------------- */

#define SWRAP_PORT_AUTO_MIN 10000
#define SWRAP_PORT_AUTO_MAX 60000
#define SWRAP_IFACE_MAX 254
#define SWRAP_IFACE_BCAST 255 /* internal marker: the broadcast address */

/* An emulated endpoint: family, type, interface (0 = wildcard, 255 =
 * broadcast) and port in host order. */
struct swrap_ep {
	int family; /* AF_INET or AF_INET6 */
	int type;   /* SOCK_STREAM or SOCK_DGRAM */
	unsigned iface;
	unsigned port;
};

/* What an address is given to: each call checks length and family its
 * own way in the kernel. */
enum swrap_addr_use {
	SWRAP_ADDR_BIND,    /* bind() */
	SWRAP_ADDR_CONNECT, /* connect() of a TCP socket */
	SWRAP_ADDR_DGRAM,   /* connect() of a UDP socket */
	SWRAP_ADDR_SENDTO,  /* sendto()/sendmsg() of a UDP socket */
};

/* Decode a sockaddr given to bind/connect/sendto on a socket of
 * `sock_family` (IPV6_V6ONLY set: `v6only`), with the kernel's errno and
 * order of checks: EINVAL (short length, or a family sendto() does not
 * know on IPv6), EAFNOSUPPORT (wrong family), ENETUNREACH / EINVAL
 * (v4-mapped or IPv4 on a v6-only socket), EADDRNOTAVAIL (not an emulated
 * address). bind() of AF_UNSPEC with INADDR_ANY on IPv4 is accepted, as
 * are IPv4 addresses for UDP on IPv6 sockets. IPv4 destinations (v4-mapped
 * included) give family AF_INET. The caller handles AF_UNSPEC for
 * connect() (a disconnect) and for sendto() on IPv6 (no address). */
int swrap_addr_decode(const struct swrap_conf *c, const struct sockaddr *sa,
		      socklen_t len, int sock_family, enum swrap_addr_use use,
		      bool v6only, struct swrap_ep *ep);

/* Encode an endpoint as the sockaddr of `want_family` (an IPv4 endpoint on
 * an AF_INET6 socket becomes v4-mapped, an IPv6 one on an AF_INET socket
 * the same interface's IPv4 address). Returns the length written. */
socklen_t swrap_addr_encode(const struct swrap_conf *c,
			    const struct swrap_ep *ep, int want_family,
			    struct sockaddr_storage *ss);

/* $DIR/<T><II><PPPP> for an endpoint with a concrete interface. */
socklen_t swrap_addr_unix(const struct swrap_conf *c, const struct swrap_ep *ep,
			  struct sockaddr_un *un);

/* The same name in the abstract namespace ("\0$DIR/T6427A1"). */
socklen_t swrap_addr_unix_abstract(const struct swrap_conf *c,
				   const struct swrap_ep *ep,
				   struct sockaddr_un *un);

/* "$DIR/.<T><II><PPPP>" for the file name `un` ("$DIR/<T><II><PPPP>"):
 * the second name (a hard link) that a listener of ours gives its socket
 * file, so that our clients find out it is ours by connecting through it.
 * 0 if `un` is not such a name or the marker would not fit in sun_path. */
socklen_t swrap_addr_unix_marker(const struct swrap_conf *c,
				 const struct sockaddr_un *un,
				 struct sockaddr_un *mk);
/* Remove the marker of a TCP listener's name `un`, if it has one. */
void swrap_addr_unlink_marker(const struct swrap_conf *c, int type,
			      const struct sockaddr_un *un);
/* The length of a sockaddr_un holding a path, its NUL included. */
socklen_t swrap_addr_path_len(const struct sockaddr_un *un);

/* SO_REUSEPORT groups (see swrap_group.c): for the listener file `un`,
 * member k >= 1 is the file "$DIR/.T0A1F90.k"; k = 0 gives the group file
 * "$DIR/.T0A1F90.g". 0 if it does not fit. */
#define SWRAP_GROUP_MAX 64
socklen_t swrap_addr_unix_member(const struct swrap_conf *c,
				 const struct sockaddr_un *un, unsigned k,
				 struct sockaddr_un *mb);

/* Parse a unix path (or its abstract twin, or the file of a SO_REUSEPORT
 * group member) back into an endpoint; false if it is not one of ours
 * (another directory, another name). */
bool swrap_addr_from_unix(const struct swrap_conf *c,
			  const struct sockaddr_un *un, socklen_t len,
			  struct swrap_ep *ep);

/* Copy an address to a caller's buffer with the kernel's truncation rule:
 * copy min(*len, alen) bytes, set *len = alen. */
void swrap_addr_copy_out(const void *addr, socklen_t alen, struct sockaddr *out,
			 socklen_t *len);

/* The endpoint of a sockaddr_storage we encoded ourselves. */
void swrap_addr_to_ep(const struct sockaddr_storage *ss, int type,
		      struct swrap_ep *ep);

/* ---- records and the fd table (swrap_fdtab.c) ------------------------ */

#define SWRAP_SOCK_BOUND 0x0001u
#define SWRAP_SOCK_CONNECTED 0x0002u
#define SWRAP_SOCK_LISTENING 0x0004u
#define SWRAP_SOCK_V6ONLY 0x0008u
#define SWRAP_SOCK_REUSEADDR 0x0010u
#define SWRAP_SOCK_REUSEPORT 0x0020u
#define SWRAP_SOCK_BROADCAST 0x0040u
#define SWRAP_SOCK_SHUT_WR 0x0080u
#define SWRAP_SOCK_KCONN 0x0100u    /* UDP: unix socket connected to the peer */
#define SWRAP_SOCK_GROUP 0x0200u    /* bound in a SO_REUSEPORT group */
#define SWRAP_SOCK_PORT_SET 0x0400u /* bound to a port the program chose */
#define SWRAP_SOCK_QUIC_PENDING 0x0800u /* QUIC client: peer named, the \
					   unix connect at its first send */

#define SWRAP_MAX_OPTS 24
#define SWRAP_OPT_LEN 16

/* An option the unix socket cannot hold (TCP_NODELAY, IP_TOS, ...):
 * remembered so that getsockopt() returns what was set. */
struct swrap_opt {
	int level;
	int name;
	socklen_t len;
	unsigned char val[SWRAP_OPT_LEN];
};

struct swrap_sock {
	/* Set at creation, then read without lock. */
	const struct swrap_conf *conf; /* the configuration it was made
					* under: its directory, network */
	int family;		       /* AF_INET or AF_INET6 */
	int type;	/* SOCK_STREAM or SOCK_DGRAM (no flags), or
			 * SOCK_SEQPACKET: a connection of datagrams (an
			 * IPPROTO_QUIC socket, or a UDP client remade by the
			 * fallback: swrap_quic.c; its type may change then) */
	int protocol;	/* IPPROTO_TCP, IPPROTO_UDP or SWRAP_IPPROTO_QUIC */
	int shown_type; /* what SO_TYPE answers: the type asked for */
	dev_t dev;	/* identity of the kernel socket (0 until first */
	ino_t ino;	/* checked), to detect a descriptor reused behind
			 * our back; swrap_lock() */

	int refs; /* descriptors naming it (dup); atomic */

	/* Below: written under swrap_lock(), read without it by the I/O
	 * paths (a program that races connect() with send() on the same
	 * socket gets what it asked for). */
	unsigned flags;
	/* SO_ERROR after a nonblocking connect; of a connected UDP socket,
	 * its peer's absence (atomic: swrap_dgram_error) */
	int pending_error;
	pid_t unlink_pid;   /* the process that bound `path` unlinks it */
	unsigned bound_gen; /* swrap_fork_gen() when `path` was bound */
	struct sockaddr_storage local; /* emulated; family 0 = unbound */
	socklen_t local_len;
	unsigned bound_iface;	      /* interface of `path` (0: unbound) */
	int backlog;		      /* of listen() */
	struct sockaddr_storage peer; /* emulated; valid if CONNECTED */
	socklen_t peer_len;
	struct sockaddr_un path; /* the bound unix path ("" = none) */
	struct swrap_sock *next_free;
	struct swrap_fstate *fstate; /* SOCKET_WRAPPER_FAULTS effects
				      * (swrap_faults.c), or NULL */
	int nopts;
	/* Last, and not cleared for a new record: only opts[0..nopts). */
	struct swrap_opt opts[SWRAP_MAX_OPTS];
};

/* Marks a descriptor already found not to be one of ours (negative cache
 * for adoption); lookups return NULL for it. */
#define SWRAP_NOT_OURS ((struct swrap_sock *)1)

/* The table: one pointer per descriptor number, reserved up front (pages
 * appear as they are touched), so readers never see it move. */
extern struct swrap_sock **swrap_fdtab_slots;
extern int swrap_fdtab_cap;

/* Lock-free lookup: one load of the table, one of the slot. */
static inline struct swrap_sock *swrap_fdtab_peek(int fd)
{
	struct swrap_sock **t =
	    __atomic_load_n(&swrap_fdtab_slots, __ATOMIC_ACQUIRE);
	struct swrap_sock *s;

	if (cwrap_likely(t == NULL) ||
	    (unsigned)fd >= (unsigned)swrap_fdtab_cap) {
		return NULL;
	}
	s = __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
	return (uintptr_t)s > 1 ? s : NULL;
}

/* Raw slot content, SWRAP_NOT_OURS included. */
struct swrap_sock *swrap_fdtab_raw(int fd);

/* A new record under configuration `c` (refs = 1, for the descriptor
 * about to name it), or NULL with errno: ENFILE when `limit` and the
 * process already has SOCKET_WRAPPER_MAX_SOCKETS descriptors naming
 * emulated sockets (upstream's errno), ENOMEM. */
struct swrap_sock *swrap_sock_new(const struct swrap_conf *c, int family,
				  int type, bool limit);
/* True if one more descriptor may name an emulated socket; false with
 * ENFILE at SOCKET_WRAPPER_MAX_SOCKETS (accept() asks before the kernel
 * hands over a connection). */
bool swrap_sock_room(void);
/* One more reference, for a new descriptor naming `s` (dup): 0, or -1 and
 * ENFILE when `limit` and the limit is reached. */
int swrap_sock_ref(struct swrap_sock *s, bool limit);
/* Drop a reference; the last one unlinks the bound path (in the process
 * that bound it) and recycles the record. */
void swrap_sock_unref(struct swrap_sock *s);

/* Make `fd` name `s` (taking a reference the caller passes in); a record
 * the slot held is released. Returns 0, or -1/EMFILE if fd is too large. */
int swrap_fdtab_set(int fd, struct swrap_sock *s);
/* Forget `fd`: release its record, if any. */
void swrap_fdtab_clear(int fd);
/* Forget every descriptor in [lo, hi]. */
void swrap_fdtab_clear_range(unsigned lo, unsigned hi);
/* Remember that `fd` is not ours (after a failed adoption). */
void swrap_fdtab_mark_not_ours(int fd);
/* Number of descriptors naming emulated sockets (references), as counted
 * for SOCKET_WRAPPER_MAX_SOCKETS. */
long swrap_fdtab_live(void);

/* ---- descriptors (swrap_fd.c) ----------------------------------------- */

/* The record of `fd` for the calls answered from the record (names,
 * options): the table entry checked against the kernel's identity of the
 * descriptor (one fstat), and, for a descriptor we have not seen
 * (inherited across exec, received with SCM_RIGHTS), an attempt to adopt
 * it. NULL: not an emulated socket, the caller goes to libc. */
struct swrap_sock *swrap_fd_get(int fd);

/* The same without the fstat, for calls whose system call on the unix
 * socket would fail with ENOTSOCK on a reused descriptor (bind, listen,
 * connect, accept): the caller then forgets the record and retries libc. */
struct swrap_sock *swrap_fd_find(int fd);

/* Rebuild the record of an AF_UNIX socket whose names lie in
 * SOCKET_WRAPPER_DIR (inherited across exec, passed with SCM_RIGHTS):
 * family and type from the name, local and peer addresses decoded, the
 * listening state from SO_ACCEPTCONN. Installs it in the table (replacing
 * whatever the slot held) and returns it; NULL (and a "not ours" mark,
 * again replacing the slot) if `fd` is not such a socket. The SCM_RIGHTS
 * receiver calls this for each descriptor it receives. The adopter never
 * removes the socket's file (it did not bind it). */
struct swrap_sock *swrap_fd_adopt(int fd);

/* Kernel identity of `fd` matches the record. */
bool swrap_fd_same(int fd, struct swrap_sock *s);
/* The descriptor of `s` names another kernel socket now (one put under
 * it with dup2, faults/ does): its identity is learnt again at the next
 * check; with `peer`, the record is connected to it
 * (swrap_sock_set_peer()). */
void swrap_fd_renewed(struct swrap_sock *s, const struct swrap_ep *peer);
/* Bind the unix socket `fd` (one faults/ puts under a record's
 * descriptor) to a member-style name of `ep` (swrap_addr_unix_member(),
 * with a number no SO_REUSEPORT group uses), and remove the file: the
 * name stays the socket's, so that a process which inherits it across
 * exec adopts it as `ep`. Left unnamed if no name fits or binds. errno
 * may change. */
void swrap_fd_name(const struct swrap_conf *c, int fd,
		   const struct swrap_ep *ep);

int swrap_close(int fd);
int swrap_dup(int fd);
int swrap_dup2(int oldfd, int newfd);
int swrap_dup3(int oldfd, int newfd, int flags);
int swrap_fcntl(int fd, int cmd, void *arg, bool is64);
int swrap_close_range(unsigned lo, unsigned hi, int flags);
void swrap_closefrom(int lo);
void swrap_indicate_no_inet_fd(int fd);

/* ---- sockets (swrap_sock.c) ------------------------------------------- */

int swrap_socket(const struct swrap_conf *c, int family, int type,
		 int protocol);
int swrap_bind(struct swrap_sock *s, int fd, const struct sockaddr *sa,
	       socklen_t len);
int swrap_bindresvport(struct swrap_sock *s, int fd, struct sockaddr_in *sin);
int swrap_listen(struct swrap_sock *s, int fd, int backlog);
int swrap_connect(struct swrap_sock *s, int fd, const struct sockaddr *sa,
		  socklen_t len);
/* connect() to the endpoint `ep` (decoded, its interface concrete), as
 * swrap_connect() goes on once it decoded the address; the network
 * conditions are looked at as for the program's connect(). */
int swrap_sock_connect_ep(struct swrap_sock *s, int fd,
			  const struct swrap_ep *ep);
/* The record is connected to `ep` (its peer address and CONNECTED flag,
 * under swrap_lock()). */
void swrap_sock_set_peer(struct swrap_sock *s, const struct swrap_ep *ep);
/* A stream or QUIC socket's pending error (a nonblocking connect() that was
 * refused), taken under the lock: reported once, by a second connect() or
 * SO_ERROR; 0 if none. */
int swrap_sock_take_error(struct swrap_sock *s);
int swrap_accept(struct swrap_sock *s, int fd, struct sockaddr *sa,
		 socklen_t *len, int flags);
int swrap_getsockname(struct swrap_sock *s, struct sockaddr *sa,
		      socklen_t *len);
int swrap_getpeername(struct swrap_sock *s, struct sockaddr *sa,
		      socklen_t *len);
int swrap_getsockopt(struct swrap_sock *s, int fd, int level, int name,
		     void *val, socklen_t *len);
int swrap_setsockopt(struct swrap_sock *s, int fd, int level, int name,
		     const void *val, socklen_t len);
int swrap_shutdown(struct swrap_sock *s, int fd, int how);
/* connect() to `ep` refused (nobody listens, or a rule): the capture's
 * RST, then ECONNREFUSED, or EINPROGRESS with SO_ERROR on a nonblocking
 * socket. Returns -1. */
int swrap_sock_refused(struct swrap_sock *s, int fd, const struct swrap_ep *ep);

/* Bind an unbound socket to an automatic port (10000..60000) on the
 * default interface of its configuration, as connect/sendto do (shown as
 * the wildcard until it connects). 0 or -1/errno. */
int swrap_autobind(struct swrap_sock *s, int fd);

/* Connect a UDP socket's unix socket to the peer `ep` (NULL: disconnect),
 * so that sends without an address that bypass the wrapper arrive; sets
 * or clears SWRAP_SOCK_KCONN. errno is kept. Returns EPROTOTYPE when the
 * peer's name (or its dual-stack twin) is a connection socket's (an
 * IPPROTO_QUIC socket: swrap_quic_fallback()), otherwise 0. */
int swrap_sock_dgram_connect(struct swrap_sock *s, int fd,
			     const struct swrap_ep *ep);

/* A new emulated socket of `family`: a record of `kind` (SOCK_STREAM,
 * SOCK_DGRAM or SOCK_SEQPACKET) and an AF_UNIX socket of that kind with
 * the flags (SOCK_NONBLOCK, SOCK_CLOEXEC) `flags` under one descriptor;
 * *sp the record. The descriptor, or -1/errno. */
int swrap_sock_open(const struct swrap_conf *c, int family, int kind, int flags,
		    struct swrap_sock **sp);

/* Put the unix socket `n` under the descriptor `fd` in place of the one
 * there, carrying its file status flags, its close-on-exec flag and the
 * SOL_SOCKET options a program may have set (buffers, timeouts, ...).
 * `n` is closed either way. 0 or -1/errno (then `fd` is unchanged). A
 * poller that registered `fd` must register it again, as after dup2(). */
int swrap_sock_replace(int fd, int n);

/* The endpoint of the record's local address, as getsockname() shows it
 * unconnected (interface 0 when bound to the wildcard). */
void swrap_sock_local_ep(const struct swrap_sock *s, struct swrap_ep *ep);
/* The address the socket sends from: its local endpoint with the
 * interface it is bound on (v4-mapped on an IPv6 socket connected to an
 * IPv4 peer). */
void swrap_sock_src_ep(const struct swrap_sock *s, struct swrap_ep *ep);
/* Both ends of the record, as the rules of faults/ match them: `local` as
 * swrap_sock_src_ep() gives it, `peer` the record's peer address (its
 * type the record's); either may be NULL. */
void swrap_sock_eps(const struct swrap_sock *s, struct swrap_ep *local,
		    struct swrap_ep *peer);

/* Nobody is behind the unix name `un` any more (the file of a socket whose
 * process died). Asked with a datagram socket: a live stream socket
 * answers EPROTOTYPE without a connection being made (a stream probe would
 * queue one on a live listener), a live datagram one accepts (or EPERM,
 * connected elsewhere); only a dead name refuses. errno is kept. */
bool swrap_unix_name_dead(const struct sockaddr_un *un, socklen_t ulen);

/* A name bound before a fork (this process's or an ancestor's, not a
 * group's): another process may hold the socket, so close() looks at the
 * name once the kernel closed our descriptor, and removes it (with a
 * listener's marker) only if nobody is behind it any more. */
bool swrap_sock_name_shared(const struct swrap_sock *s);
void swrap_sock_name_closed(const struct swrap_conf *c,
			    const struct sockaddr_un *path, int type);

/* ---- SO_REUSEPORT groups (swrap_group.c) ------------------------------- */

struct stat;
/* bind() of a SO_REUSEPORT socket to the file `un` (an explicit address):
 * 0 when it took the plain name (first member, or the name of a dead
 * socket), 1 when it joined the group as a further member bound to *mb,
 * -1 with errno (EADDRINUSE if the holder lacks SO_REUSEPORT or is
 * another user's). */
int swrap_group_bind(struct swrap_sock *s, int fd, const struct sockaddr_un *un,
		     socklen_t ulen, struct sockaddr_un *mb);
/* A member of the group on the plain name `un` lives, besides the holder
 * of that name: a socket without SO_REUSEPORT may not take the address
 * once the first member went, as the kernel keeps it while one member is
 * bound. One access() when the address has no group. */
bool swrap_group_alive(const struct swrap_conf *c,
		       const struct sockaddr_un *un);
/* After close() of a descriptor of the group member bound to `path`:
 * once its socket is gone from every process, its file goes, and so does
 * the plain name if that was its name (or is dead): it is given to a
 * member that lives on, so that clients that know nothing of groups
 * (upstream's library) still reach the group. errno is kept. */
void swrap_group_closed(const struct swrap_conf *c,
			const struct sockaddr_un *path);
/* Whether the file `un` is a group's: `st` its stat, or NULL when it does
 * not exist (a group whose first member went may remain). */
int swrap_group_lookup(const struct swrap_conf *c, const struct sockaddr_un *un,
		       const struct stat *st);
/* connect() a TCP client to the group on `un`: members in turn from a
 * rotating start, past dead ones; ECONNREFUSED when none listens. */
int swrap_group_connect(struct swrap_sock *s, int fd,
			const struct sockaddr_un *un, socklen_t ulen);
/* A datagram to the file `un` of `ep`: if it is a group's, `un` becomes
 * the name to try first for this sender (the member connected to it, or
 * the member of its flow, number *k) and the number of names to try is
 * returned, the next ones being swrap_group_name((*k + i) % that number);
 * 0 (nothing changed) otherwise, at the cost of one load while no
 * datagram group was made in the directory. */
unsigned swrap_group_dgram(const struct swrap_sock *s,
			   const struct swrap_ep *ep, struct sockaddr_un *un,
			   socklen_t *ulen, unsigned *k);
/* The number of names (plain file and members' files) of the datagram
 * group on the plain name `un`, or 0 if it is no group's; one load while
 * no datagram group was made in the directory. */
unsigned swrap_group_members(const struct swrap_conf *c,
			     const struct sockaddr_un *un);
/* The UDP group member `s` connects to `peer` (NULL: disconnects; call
 * before the record's peer changes): the second name that sends its
 * peer's datagrams to it moves along. errno is kept. */
void swrap_group_peer(const struct swrap_sock *s, const struct swrap_ep *peer);
/* The name of member k of the group on `ep` (0: the plain file). */
socklen_t swrap_group_name(const struct swrap_conf *c,
			   const struct swrap_ep *ep, unsigned k,
			   struct sockaddr_un *un);

/* An int option remembered by setsockopt (IP_PKTINFO, TCP_NODELAY, ...):
 * true and *val if it was set. */
bool swrap_sock_opt_int(struct swrap_sock *s, int level, int name, int *val);

/* ---- TCP options (swrap_tcp.c) ---------------------------------------- */

/* getsockopt(IPPROTO_TCP, name) answered from the emulated connection
 * (TCP_INFO, TCP_MAXSEG): 1 when answered (val/len filled as the kernel
 * does), 0 for the caller to answer. */
int swrap_tcp_getsockopt(struct swrap_sock *s, int fd, int name, void *val,
			 socklen_t *len);
/* setsockopt(IPPROTO_TCP, name, *v): 0 with *v as the kernel reads it
 * back (booleans as 0/1), or EINVAL outside the kernel's range. */
int swrap_tcp_setsockopt_value(int name, int *v);

/* ---- QUIC sockets and the fallback (swrap_quic.c) --------------------- */

/* IPPROTO_QUIC, as the kernel's QUIC module numbers it. */
#define SWRAP_IPPROTO_QUIC 261

/* socket_wrapper_ipproto_quic_socket(): an emulated IPPROTO_QUIC socket
 * of `family` (AF_INET, AF_INET6) and `type` (SOCK_DGRAM or SOCK_STREAM,
 * with SOCK_NONBLOCK/SOCK_CLOEXEC): an AF_UNIX SOCK_SEQPACKET socket
 * named as a UDP endpoint. Wrapper disabled, or another family: the real
 * socket(family, type, IPPROTO_QUIC). -1/errno as the kernel's. */
int swrap_quic_socket(const struct swrap_conf *c, int family, int type);
/* connect() of a SOCK_SEQPACKET record to `ep` (its interface
 * concrete), once swrap_sock_connect_ep() made a stream socket's checks
 * (broadcast, connected, a pending error, listening): autobind, and `ep`
 * recorded as the peer (SWRAP_SOCK_QUIC_PENDING); the unix connect to
 * its name is made by the first send (swrap_quic_first_send). */
int swrap_quic_connect(struct swrap_sock *s, int fd, const struct swrap_ep *ep);
/* The first send of a QUIC client (SWRAP_SOCK_QUIC_PENDING): the unix
 * connect to its peer's name, which puts the connection in the server's
 * accept queue with this send in it. 0, or -1/errno: ECONNREFUSED where
 * nobody listens, EAGAIN where a nonblocking socket meets a full queue
 * (the socket stays pending: a later send tries again). */
int swrap_quic_first_send(struct swrap_sock *s, int fd);
/* connect() of a UDP socket to `ep`, whose name a connection socket holds
 * (swrap_sock_dgram_connect() said EPROTOTYPE): with
 * SOCKET_WRAPPER_ALLOW_DGRAM_SEQPACKET_FALLBACK, a client (bound to an
 * automatic port, one descriptor) is remade as SOCK_SEQPACKET under the
 * same descriptor and name, its connection made at its first send (as
 * swrap_quic_connect's): 0. Otherwise -1/EHOSTUNREACH,
 * the socket left unconnected. */
int swrap_quic_fallback(struct swrap_sock *s, int fd,
			const struct swrap_ep *ep);

/* ---- I/O (swrap_io.c) -------------------------------------------------- */

ssize_t swrap_read(struct swrap_sock *s, int fd, void *buf, size_t n);
ssize_t swrap_write(struct swrap_sock *s, int fd, const void *buf, size_t n);
ssize_t swrap_readv(struct swrap_sock *s, int fd, const struct iovec *iov,
		    int cnt);
ssize_t swrap_writev(struct swrap_sock *s, int fd, const struct iovec *iov,
		     int cnt);
ssize_t swrap_sendmsg(struct swrap_sock *s, int fd, const struct msghdr *msg,
		      int flags);
/* A connected UDP socket's error (ECONNREFUSED: its peer was not there),
 * taken, or 0. */
int swrap_dgram_error(struct swrap_sock *s, int fd);
/* A datagram (total bytes, from `from` or the socket's name, to dst) that
 * found its port closed: captured with the port unreachable, the error
 * left for a socket connected there; returns total (sent, as far as the
 * program can tell). */
ssize_t swrap_io_dgram_unreach(struct swrap_sock *s, int fd,
			       const struct swrap_ep *from,
			       const struct sockaddr_storage *dst,
			       socklen_t dlen, const struct msghdr *msg,
			       size_t total);
/* sendmsg() of a datagram past the network conditions: what the rules let
 * through, duplicated or released later (faults/) goes this way, and
 * meets the rest of the path as any datagram (groups, capture, port
 * unreachable). */
ssize_t swrap_io_dgram_send(struct swrap_sock *s, int fd,
			    const struct msghdr *msg, int flags);
ssize_t swrap_recvmsg(struct swrap_sock *s, int fd, struct msghdr *msg,
		      int flags);
ssize_t swrap_sendto(struct swrap_sock *s, int fd, const void *buf, size_t n,
		     int flags, const struct sockaddr *sa, socklen_t len);
ssize_t swrap_recvfrom(struct swrap_sock *s, int fd, void *buf, size_t n,
		       int flags, struct sockaddr *sa, socklen_t *len);

/* Capture: report an event between the record's local address (made
 * concrete if bound to the wildcard) and `peer` (NULL: the record's peer).
 * Cheap when capture is off. */
void swrap_io_report_to(const struct swrap_sock *s, int event,
			const struct sockaddr_storage *peer, socklen_t plen,
			const struct iovec *iov, int iovcnt, size_t len);
/* The same with the local address given (NULL: the record's). */
void swrap_io_report_from(const struct swrap_sock *s, int event,
			  const struct swrap_ep *from,
			  const struct sockaddr_storage *peer, socklen_t plen,
			  const struct iovec *iov, int iovcnt, size_t len);
void swrap_io_report(const struct swrap_sock *s, int event,
		     const struct iovec *iov, int iovcnt, size_t len);

/* ---- ancillary data (swrap_cmsg.c) ------------------------------------- */

/* Adopt every descriptor received with SCM_RIGHTS in `msg` (after a
 * recvmsg() on any socket, emulated or not). */
void swrap_cmsg_adopt_rights(const struct msghdr *msg);

/* After recvmsg() on an emulated socket: adopt SCM_RIGHTS, and on a
 * datagram socket append IP_PKTINFO / IPV6_PKTINFO if the program asked for
 * them. `cap` is the caller's msg_controllen before the call. */
void swrap_cmsg_after_recv(struct swrap_sock *s, struct msghdr *msg,
			   size_t cap);

/* sendmsg() on a datagram socket: true if the caller chose, with
 * IP_PKTINFO / IPV6_PKTINFO, a source address on another interface than
 * the socket's own, or if the socket is bound to the broadcast address
 * (it sends from the default interface); *src is that endpoint (the
 * socket's port). */
bool swrap_cmsg_chosen_source(const struct swrap_sock *s,
			      const struct msghdr *msg, struct swrap_ep *src);

/* A unix datagram socket bound, for sending from `src`, to the file of
 * `src` (when `file` and it is free; *made is then that file) or else to
 * its abstract twin; -1 if both are taken. Closed (and the file removed)
 * with swrap_cmsg_source_close(); errno is kept. */
int swrap_cmsg_source_open(const struct swrap_conf *c,
			   const struct swrap_ep *src, bool file,
			   struct sockaddr_un *made);
void swrap_cmsg_source_close(int tmp, const struct sockaddr_un *made);

/* Send `msg` (its name already a unix path) from the address `src` for
 * this one datagram (swrap_cmsg_source_open); falls back to `fd` itself
 * when that address is taken both ways. */
ssize_t swrap_cmsg_send_from(const struct swrap_conf *c,
			     const struct swrap_ep *src, bool file, int fd,
			     const struct msghdr *msg, int flags);

/* ---- batches (swrap_mmsg.c) --------------------------------------------- */

struct mmsghdr;
struct timespec;
int swrap_sendmmsg(struct swrap_sock *s, int fd, struct mmsghdr *vec,
		   unsigned int vlen, int flags);
int swrap_recvmmsg(struct swrap_sock *s, int fd, struct mmsghdr *vec,
		   unsigned int vlen, int flags, struct timespec *timeout);

/* ---- kernel copies (swrap_copy.c) --------------------------------------- */

/* Capture or SOCKET_WRAPPER_FAULTS in force: sendfile(), splice() and
 * preadv2()/pwritev2() on emulated sockets go through swrap_sendmsg()
 * and swrap_recvmsg() (else the real call is made). */
bool swrap_copy_watched(void);
ssize_t swrap_sendfile(struct swrap_sock *s, int out, int in, int64_t *off,
		       size_t count);
ssize_t swrap_splice_to(struct swrap_sock *s, int in, int out, size_t len,
			unsigned flags);
ssize_t swrap_splice_from(struct swrap_sock *s, int in, int out, size_t len,
			  unsigned flags);
ssize_t swrap_rwv2(struct swrap_sock *s, int fd, const struct iovec *iov,
		   int cnt, int flags, bool out);

/* ---- programs that make their own system calls (swrap_supervise.c) ---- */

/* For an exec of `path` (argv, envp): the arguments of cwrap that run it
 * supervised, with cwrap's path in *cwrap (both malloc'ed; the strings
 * are the caller's), or NULL: exec it as asked. */
char **swrap_supervised_argv(const char *path, char *const argv[],
			     char *const envp[], char **cwrap);

#endif
