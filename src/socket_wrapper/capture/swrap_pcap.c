/*
 * Capture writer (see swrap_pcap.h): turns the socket core's events into
 * packets appended to SOCKET_WRAPPER_PCAP_FILE.
 *
 * It owns the capture file (the pcap header is written under flock() by
 * whoever finds the file empty, so racing processes write it exactly
 * once) and the TCP/UDP logic: handshake, segments cut at
 * SOCKET_WRAPPER_MTU with the sequence and acknowledgement numbers kept in
 * the shared per-connection state (swrap_pcap_state.c), FIN/RST, ICMP port
 * unreachable. An event's packets are built in a buffer of the calling
 * thread and written as whole records: to an offset reserved in the shared
 * state under its lock (pwrite, after unlocking, so a slow write does not
 * hold up the peer process), or, with a private state, appended with
 * O_APPEND under the lock. Either way the file's order is the lock's order
 * and processes never interleave within a record.
 *
 * Lock: the capture state lock (process-shared when the state file is
 * usable) guards the connection table and the file offset. `g` follows
 * SOCKET_WRAPPER_PCAP_FILE and SOCKET_WRAPPER_MTU as the socket core's
 * configuration gives them (swrap_pcap_follow(): no look at the
 * environment here): when that configuration names another file or MTU, `g` is
 * replaced under g_rw held for writing, which every event holds for
 * reading. Otherwise only the descriptor (and its identity) changes,
 * atomically and under the state lock, when the program closed it.
 */
#include "swrap_pcap.h"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cwrap_bind.h"
#include "cwrap_compiler.h"
#include "cwrap_env.h"
#include "cwrap_log.h"
#include "swrap_pcap_pkt.h"
#include "swrap_pcap_state.h"

#define PCAP_VAR "SOCKET_WRAPPER_PCAP_FILE"
#define MTU_VAR "SOCKET_WRAPPER_MTU"
#define BUF_SIZE (256 * 1024)
/* Events of at most SMALL_EVENT payload bytes fit in SMALL_BUF. */
#define SMALL_EVENT 4096
#define SMALL_BUF 8192
#define PROTO_TCP 6
#define PROTO_UDP 17

static struct {
	bool enabled;
	char *path;
	size_t mtu;
	struct swrap_pcap_state *state;
	/* Replaced (atomically, under the state lock) when the program
	 * closed our descriptor behind our back. */
	int fd;
	uint64_t dev, ino;
	uint32_t checked; /* second of the last identity check */
	bool regular;	  /* a regular file: records go to reserved offsets */
	bool write_failed;
} g = {.fd = -1};
/* The configuration `g` was made for (atomic; switched under g_switch). */
static const void *g_key;
/* What g_key named: its file (NULL: none; the core never frees it) and
 * MTU (under g_switch). */
static const char *g_key_file;
static long g_key_mtu;
static pthread_mutex_t g_switch = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t g_rw = PTHREAD_RWLOCK_INITIALIZER;

/* A signal handler that sends while this thread is inside the writer is
 * not captured rather than deadlocking on the lock. */
static __thread bool t_busy __attribute__((tls_model("initial-exec")));

/* The real write()/pwrite()/fcntl()/close(): the socket core wraps some of
 * them, and the capture file is none of its business. */
static ssize_t real_write(int fd, const void *buf, size_t len)
{
	static void *slot;
	ssize_t (*fn)(int, const void *, size_t) =
	    (ssize_t(*)(int, const void *, size_t))cwrap_bind_cached(&slot,
								     "write");

	return fn(fd, buf, len);
}

static ssize_t real_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static void *slot;
	ssize_t (*fn)(int, const void *, size_t, off_t) =
	    (ssize_t(*)(int, const void *, size_t, off_t))cwrap_bind_cached(
		&slot, "pwrite");

	return fn(fd, buf, len, off);
}

static int real_close(int fd)
{
	static void *slot;
	int (*fn)(int) = (int (*)(int))cwrap_bind_cached(&slot, "close");

	return fn(fd);
}

static int real_fcntl(int fd, int cmd, int arg)
{
	static void *slot;
	int (*fn)(int, int, ...) =
	    (int (*)(int, int, ...))cwrap_bind_cached(&slot, "fcntl");

	return fn(fd, cmd, arg);
}

/* Write all of p at `off`, or appended when off < 0. */
static bool write_all(int fd, const uint8_t *p, size_t len, int64_t off)
{
	while (len > 0) {
		ssize_t n = off < 0 ? real_write(fd, p, len)
				    : real_pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return false;
		}
		p += n;
		len -= (size_t)n;
		if (off >= 0) {
			off += n;
		}
	}
	return true;
}

/* Keep the capture's descriptor far from the low numbers a program opens
 * next: if the program closes it (daemons close every descriptor), our
 * next write fails with EBADF instead of landing in the program's file. */
static int move_high(int fd)
{
	struct rlimit rl;
	int base = 900, nfd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1024) {
		base = (int)(rl.rlim_cur * 3 / 4);
	}
	if (fd >= base) {
		return fd;
	}
	nfd = real_fcntl(fd, F_DUPFD_CLOEXEC, base);
	if (nfd < 0) {
		return fd;
	}
	real_close(fd);
	return nfd;
}

/* Open the capture file, writing the header if it is empty. Returns the
 * descriptor (-1 after one line on stderr). With `state`, also attach to
 * the shared connection state while the file is locked. With a shared
 * state, records go to offsets reserved in it (pwrite), so the descriptor
 * loses O_APPEND; otherwise every write appends. */
static int capture_open(struct swrap_pcap_state **state)
{
	uint8_t hdr[SWRAP_PCAP_FILE_HDR_LEN];
	struct stat st;
	bool fresh = false;
	int fd;

	fd = open(g.path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		CWRAP_ERROR(PCAP_VAR "=%s: cannot open (%s), capture is off",
			    g.path, strerror(errno));
		return -1;
	}
	fd = move_high(fd);
	while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
	}
	if (fstat(fd, &st) != 0) {
		goto fail;
	}
	if (st.st_size == 0) {
		swrap_pcap_file_header(hdr);
		if (!write_all(fd, hdr, sizeof(hdr), -1)) {
			CWRAP_ERROR(PCAP_VAR "=%s: cannot write (%s), "
					     "capture is off",
				    g.path, strerror(errno));
			goto fail;
		}
		fresh = true;
	} else if (S_ISREG(st.st_mode) &&
		   (pread(fd, hdr, 4, 0) != 4 || hdr[0] != 0xd4 ||
		    hdr[1] != 0xc3 || hdr[2] != 0xb2 || hdr[3] != 0xa1)) {
		CWRAP_ERROR(PCAP_VAR "=%s: not a little-endian microsecond "
				     "pcap file, capture is off",
			    g.path);
		goto fail;
	}
	if (state != NULL) {
		*state = swrap_pcap_state_open(g.path, fd, fresh);
	} else {
		swrap_pcap_state_note_size(g.state, fd);
	}
	g.regular = S_ISREG(st.st_mode) &&
		    swrap_pcap_state_shared(state != NULL ? *state : g.state);
	if (g.regular) {
		real_fcntl(fd, F_SETFL, O_RDWR);
	}
	flock(fd, LOCK_UN);
	__atomic_store_n(&g.dev, (uint64_t)st.st_dev, __ATOMIC_RELAXED);
	__atomic_store_n(&g.ino, (uint64_t)st.st_ino, __ATOMIC_RELAXED);
	return fd;
fail:
	real_close(fd);
	return -1;
}

/* This process's id (getpid() is a system call) and its slot in the
 * capture state's table of processes (0: none); the slot reserved for
 * the child being forked. Written before fork() and in the child only. */
static int32_t g_pid;
static uint16_t g_ref, g_child_ref;
static uint32_t g_child_serial;
static int g_fork_errno;

static void pcap_leave(bool at_exit);

/* Forking servers: the parent closes its copy of an accepted socket, the
 * child serves the connection. Before fork() the child gets a slot of its
 * own, named a holder of everything its parent holds, so the parent's
 * close records no FIN, however late the child starts. */
static void pcap_atfork_prepare(void)
{
	g_fork_errno = errno;
	/* No event in flight, no switch: the child's locks are free. */
	pthread_mutex_lock(&g_switch);
	pthread_rwlock_wrlock(&g_rw);
	g_child_ref = 0;
	if (g.state != NULL) {
		g_child_ref = swrap_pcap_state_fork_prepare(g.state, g_ref,
							    &g_child_serial);
	}
	errno = 0;
}

static void pcap_atfork_parent(void)
{
	int e = errno;

	/* fork() failed if it set errno (the handlers run either way). */
	if (e == EAGAIN || e == ENOMEM || e == ENOSYS) {
		if (g_child_ref != 0) {
			swrap_pcap_state_fork_failed(g.state, g_child_ref,
						     g_child_serial);
		}
	} else {
		e = g_fork_errno;
	}
	g_child_ref = 0;
	pthread_rwlock_unlock(&g_rw);
	pthread_mutex_unlock(&g_switch);
	errno = e;
}

static void pcap_atfork_child(void)
{
	g_pid = (int32_t)getpid();
	if (g.state != NULL) {
		swrap_pcap_state_atfork_child(g.state);
		g_ref = swrap_pcap_state_forked(g.state, g_ref, g_child_ref,
						g_child_serial, g_pid);
	}
	g_child_ref = 0;
	/* glibc knows a write lock's owner by thread id, which is not ours
	 * in the child: start it afresh (we are its only thread), and tell
	 * a thread checker that it is free (else it takes it for still held
	 * and sees the child's next locks in the wrong order). */
#if defined(__SANITIZE_THREAD__)
	__tsan_mutex_pre_unlock(&g_rw, 0);
	__tsan_mutex_post_unlock(&g_rw, 0);
#endif
	pthread_rwlock_init(&g_rw, NULL);
	pthread_mutex_unlock(&g_switch);
	errno = g_fork_errno;
}

/* Under g_rw (write): open the capture `path` (NULL: none), packets cut
 * at `mtu`. */
static void pcap_init(const char *path, long mtu)
{
	static bool atfork_done;
	int saved_errno = errno;

	if (path == NULL) {
		return;
	}
	/* A bad MTU was reported by the configuration: one line, not two. */
	g.mtu = (size_t)mtu;
	if (path[0] == '/') {
		g.path = strdup(path);
	} else {
		/* Relative to where we were when it was set, even after a
		 * chdir(). */
		char cwd[4096];

		if (getcwd(cwd, sizeof(cwd)) != NULL &&
		    asprintf(&g.path, "%s/%s", cwd, path) < 0) {
			g.path = NULL;
		} else if (g.path == NULL) {
			g.path = strdup(path);
		}
	}
	if (g.path == NULL) {
		CWRAP_ERROR(PCAP_VAR ": out of memory, capture is off");
		goto out;
	}
	g_pid = (int32_t)getpid();
	g.fd = capture_open(&g.state);
	__atomic_store_n(&g.enabled, g.fd >= 0, __ATOMIC_RELAXED);
	if (g.fd >= 0) {
		g_ref = swrap_pcap_state_register(g.state, g_pid);
	}
	if (g.fd >= 0 && !atfork_done) {
		atfork_done = true;
		pthread_atfork(pcap_atfork_prepare, pcap_atfork_parent,
			       pcap_atfork_child);
	}
out:
	errno = saved_errno;
}

static bool same_capture(const char *file, long mtu)
{
	return g_key_mtu == mtu && (g_key_file == NULL) == (file == NULL) &&
	       (file == NULL || strcmp(g_key_file, file) == 0);
}

/* The program changed SOCKET_WRAPPER_PCAP_FILE or _MTU (or this is the
 * first use): close the old capture once no event uses it, open the new. */
static void pcap_switch(const void *key, const char *file, long mtu)
{
	pthread_mutex_lock(&g_switch);
	if (g_key != key) {
		if (g_key == NULL || !same_capture(file, mtu)) {
			pthread_rwlock_wrlock(&g_rw);
			/* This process leaves the old capture as at exit: the
			 * FINs of what it was the last to hold go there. */
			pcap_leave(false);
			__atomic_store_n(&g.enabled, false, __ATOMIC_RELAXED);
			if (g.fd >= 0) {
				real_close(g.fd);
			}
			swrap_pcap_state_close(g.state, g_ref);
			g_ref = 0;
			free(g.path);
			g.path = NULL;
			g.state = NULL;
			g.fd = -1;
			g.checked = 0;
			g.regular = false;
			g.write_failed = false;
			pcap_init(file, mtu);
			pthread_rwlock_unlock(&g_rw);
		}
		g_key_file = file;
		g_key_mtu = mtu;
		__atomic_store_n(&g_key, key, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&g_switch);
}

bool swrap_pcap_follow(const void *key, const char *file, long mtu)
{
	/* Not from a signal handler interrupting an event of this thread
	 * (which holds g_rw): the switch waits for the next call. */
	if (cwrap_unlikely(key != __atomic_load_n(&g_key, __ATOMIC_ACQUIRE)) &&
	    !t_busy) {
		pcap_switch(key, file, mtu);
	}
	return __atomic_load_n(&g.enabled, __ATOMIC_RELAXED);
}

/* The capture's descriptor. Its identity is checked with fstat() once a
 * second (`force`: now, after a write failed): if the program closed it and
 * the number names something else, the file is reopened (under the lock,
 * once; `locked` says the caller holds it). */
static int capture_fd(struct swrap_pcap_state *s, uint32_t now, bool locked,
		      bool force)
{
	int fd = __atomic_load_n(&g.fd, __ATOMIC_ACQUIRE);
	struct stat st;

	if (!force && __atomic_load_n(&g.checked, __ATOMIC_RELAXED) == now) {
		return fd;
	}
	if (fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_dev == __atomic_load_n(&g.dev, __ATOMIC_RELAXED) &&
	    (uint64_t)st.st_ino == __atomic_load_n(&g.ino, __ATOMIC_RELAXED)) {
		__atomic_store_n(&g.checked, now, __ATOMIC_RELAXED);
		return fd;
	}
	if (!locked) {
		swrap_pcap_state_lock(s);
	}
	if (__atomic_load_n(&g.fd, __ATOMIC_ACQUIRE) == fd) {
		int nfd = capture_open(NULL);

		if (nfd >= 0) {
			__atomic_store_n(&g.fd, nfd, __ATOMIC_RELEASE);
		}
	}
	fd = __atomic_load_n(&g.fd, __ATOMIC_ACQUIRE);
	if (!locked) {
		swrap_pcap_state_unlock(s);
	}
	return fd;
}

/* One event being turned into packets. */
struct ev {
	struct swrap_pcap_ts ts;
	struct swrap_pcap_state *s;
	uint8_t *buf;
	size_t len, cap;
};

/* Write the event's records: at an offset reserved under the lock (the
 * write itself may happen after unlocking), or appended under the lock. */
static void flush(struct ev *e, bool unlock)
{
	uint64_t off;
	bool ok;

	if (e->len == 0) {
		if (unlock) {
			swrap_pcap_state_unlock(e->s);
		}
		return;
	}
	if (g.regular && swrap_pcap_state_reserve(e->s, e->len, &off)) {
		if (unlock) {
			swrap_pcap_state_unlock(e->s);
		}
		ok = write_all(capture_fd(e->s, e->ts.sec, !unlock, false),
			       e->buf, e->len, (int64_t)off);
		if (!ok && errno == EBADF) {
			ok = write_all(
			    capture_fd(e->s, e->ts.sec, !unlock, true), e->buf,
			    e->len, (int64_t)off);
		}
	} else {
		ok = write_all(capture_fd(e->s, e->ts.sec, true, false), e->buf,
			       e->len, -1);
		if (!ok && errno == EBADF) {
			ok = write_all(capture_fd(e->s, e->ts.sec, true, true),
				       e->buf, e->len, -1);
		}
		if (unlock) {
			swrap_pcap_state_unlock(e->s);
		}
	}
	if (!ok &&
	    !__atomic_exchange_n(&g.write_failed, true, __ATOMIC_RELAXED)) {
		CWRAP_ERROR(PCAP_VAR "=%s: write failed (%s), packets lost",
			    g.path, strerror(errno));
	}
	e->len = 0;
}

static uint8_t *room(struct ev *e, size_t payload)
{
	if (e->len + swrap_pcap_record_max(payload) > e->cap) {
		flush(e, false);
	}
	return e->buf + e->len;
}

static void ep_of(const struct swrap_pcap_conn *c, int end,
		  struct swrap_pcap_ep *ep)
{
	ep->family = c->key.family;
	memcpy(ep->addr, c->key.addr[end], 16);
	ep->port = c->key.port[end];
}

static uint32_t next_seq(const struct swrap_pcap_conn *c, int end)
{
	const struct swrap_pcap_dir *d = &c->dir[end];

	return d->isn + 1 + (uint32_t)d->recorded + d->fin;
}

static void tcp_raw(struct ev *e, const struct swrap_pcap_ep *src,
		    const struct swrap_pcap_ep *dst, uint8_t flags,
		    uint32_t seq, uint32_t ack, struct swrap_pcap_cursor *cur,
		    size_t len)
{
	uint8_t *out = room(e, len);

	e->len +=
	    swrap_pcap_tcp(out, e->ts, src, dst, swrap_pcap_state_ip_id(e->s),
			   seq, ack, flags, cur, len);
}

/* A packet of connection `c` sent by end `from`; it acknowledges
 * everything the other end sent so far. */
static void tcp_pkt(struct ev *e, struct swrap_pcap_conn *c, int from,
		    uint8_t flags, struct swrap_pcap_cursor *cur, size_t len)
{
	struct swrap_pcap_ep src, dst;
	uint32_t seq = next_seq(c, from);

	ep_of(c, from, &src);
	ep_of(c, !from, &dst);
	if (flags & SWRAP_TCP_SYN) {
		seq = c->dir[from].isn;
	}
	if (flags & SWRAP_TCP_ACK) {
		c->dir[!from].acked = c->dir[!from].recorded;
	}
	tcp_raw(e, &src, &dst, flags, seq, next_seq(c, !from), cur, len);
}

static void tcp_handshake(struct ev *e, struct swrap_pcap_conn *c, int client)
{
	struct swrap_pcap_ep cl, sv;

	ep_of(c, client, &cl);
	ep_of(c, !client, &sv);
	tcp_raw(e, &cl, &sv, SWRAP_TCP_SYN, c->dir[client].isn, 0, NULL, 0);
	tcp_raw(e, &sv, &cl, SWRAP_TCP_SYN | SWRAP_TCP_ACK, c->dir[!client].isn,
		c->dir[client].isn + 1, NULL, 0);
	tcp_pkt(e, c, client, SWRAP_TCP_ACK, NULL, 0);
	c->flags |= SWRAP_PCAP_F_HANDSHAKE;
}

/* Bytes [start, start + len) of direction `from`, as reported by one end:
 * record the part not in the capture yet, in MTU-sized segments. */
static void tcp_data(struct ev *e, struct swrap_pcap_conn *c, int from,
		     uint64_t start, const struct iovec *iov, int iovcnt,
		     size_t len)
{
	struct swrap_pcap_dir *d = &c->dir[from];
	struct swrap_pcap_cursor cur;
	size_t skip = 0;

	if (d->recorded > start) {
		if (d->recorded - start >= len) {
			return; /* the other end's process recorded it */
		}
		skip = (size_t)(d->recorded - start);
	}
	swrap_pcap_cursor_init(&cur, iov, iovcnt);
	swrap_pcap_cursor_skip(&cur, skip);
	len -= skip;
	while (len > 0) {
		size_t seg = len < g.mtu ? len : g.mtu;

		if (d->recorded - d->acked + seg > SWRAP_PCAP_TCP_WINDOW) {
			/* Keep within the advertised window. */
			tcp_pkt(e, c, !from, SWRAP_TCP_ACK, NULL, 0);
		}
		tcp_pkt(e, c, from,
			SWRAP_TCP_ACK | (seg == len ? SWRAP_TCP_PSH : 0), &cur,
			seg);
		d->recorded += seg;
		len -= seg;
	}
}

static void tcp_fin(struct ev *e, struct swrap_pcap_conn *c, int end)
{
	if (c->dir[end].fin || (c->flags & SWRAP_PCAP_F_RESET)) {
		return;
	}
	tcp_pkt(e, c, end, SWRAP_TCP_FIN | SWRAP_TCP_ACK, NULL, 0);
	c->dir[end].fin = 1;
	tcp_pkt(e, c, !end, SWRAP_TCP_ACK, NULL, 0);
}

/* FINs of connections whose last holder ended without a close() the
 * wrapper saw (killed, _exit(), exec): recorded at the next connect,
 * accept or close of any process on this capture, or at its exit. */
static void tcp_sweep_fin(void *arg, struct swrap_pcap_conn *c, int end)
{
	tcp_fin(arg, c, end);
}

static void tcp_sweep(struct ev *e)
{
	(void)swrap_pcap_state_sweep(e->s, tcp_sweep_fin, e);
}

static void tcp_event(struct ev *e, enum swrap_pcap_event event,
		      const struct swrap_pcap_ep *l,
		      const struct swrap_pcap_ep *p, const struct iovec *iov,
		      int iovcnt, size_t len)
{
	struct swrap_pcap_conn *c;
	uint64_t start;
	int me;

	if (event != SWRAP_PCAP_SEND && event != SWRAP_PCAP_RECV) {
		tcp_sweep(e);
	}
	if (event == SWRAP_PCAP_CONNECT_REFUSED) {
		uint32_t isn = swrap_pcap_state_random(e->s);

		tcp_raw(e, l, p, SWRAP_TCP_SYN, isn, 0, NULL, 0);
		tcp_raw(e, p, l, SWRAP_TCP_RST | SWRAP_TCP_ACK, 0, isn + 1,
			NULL, 0);
		return;
	}
	c = swrap_pcap_state_conn(e->s, PROTO_TCP, l, p, &me);
	switch (event) {
	case SWRAP_PCAP_CONNECT:
		if (c->flags & SWRAP_PCAP_F_PENDING_CONNECT) {
			/* The server's process recorded this handshake. */
			c->flags &= ~(uint32_t)SWRAP_PCAP_F_PENDING_CONNECT;
			break;
		}
		swrap_pcap_state_reset(e->s, c);
		tcp_handshake(e, c, me);
		c->flags |= SWRAP_PCAP_F_PENDING_ACCEPT;
		break;
	case SWRAP_PCAP_ACCEPT:
		if (c->flags & SWRAP_PCAP_F_PENDING_ACCEPT) {
			c->flags &= ~(uint32_t)SWRAP_PCAP_F_PENDING_ACCEPT;
			break;
		}
		swrap_pcap_state_reset(e->s, c);
		tcp_handshake(e, c, !me);
		c->flags |= SWRAP_PCAP_F_PENDING_CONNECT;
		break;
	default:
		break;
	}
	if (event != SWRAP_PCAP_CLOSE && event != SWRAP_PCAP_RESET) {
		swrap_pcap_state_hold(e->s, c, me, g_ref);
	}
	switch (event) {
	case SWRAP_PCAP_SEND:
		start = c->dir[me].sent;
		c->dir[me].sent += len;
		tcp_data(e, c, me, start, iov, iovcnt, len);
		break;
	case SWRAP_PCAP_RECV:
		start = c->dir[!me].recvd;
		c->dir[!me].recvd += len;
		tcp_data(e, c, !me, start, iov, iovcnt, len);
		break;
	case SWRAP_PCAP_CLOSE:
		if (swrap_pcap_state_release(e->s, c, me, g_ref)) {
			/* Another process still holds this end: its FIN is
			 * due when that one closes or ends. */
			break;
		}
		tcp_fin(e, c, me);
		break;
	case SWRAP_PCAP_RESET:
		if (c->flags & SWRAP_PCAP_F_RESET) {
			break;
		}
		tcp_pkt(e, c, !me, SWRAP_TCP_RST | SWRAP_TCP_ACK, NULL, 0);
		c->flags |= SWRAP_PCAP_F_RESET;
		break;
	default:
		break;
	}
}

/* Returns the record written; `*rec_len` its length. */
static const uint8_t *udp_record(struct ev *e, const struct swrap_pcap_ep *src,
				 const struct swrap_pcap_ep *dst,
				 const struct iovec *iov, int iovcnt,
				 size_t len, size_t *rec_len)
{
	struct swrap_pcap_cursor cur;
	uint8_t *out;

	if (len > SWRAP_PCAP_UDP_MAX) {
		len = SWRAP_PCAP_UDP_MAX;
	}
	swrap_pcap_cursor_init(&cur, iov, iovcnt);
	out = room(e, len);
	*rec_len = swrap_pcap_udp(out, e->ts, src, dst,
				  swrap_pcap_state_ip_id(e->s), &cur, len);
	e->len += *rec_len;
	return out;
}

static void udp_event(struct ev *e, enum swrap_pcap_event event,
		      const struct swrap_pcap_ep *l,
		      const struct swrap_pcap_ep *p, const struct iovec *iov,
		      int iovcnt, size_t len)
{
	struct swrap_pcap_dir *d;
	struct swrap_pcap_conn *c;
	size_t rec_len;
	uint64_t idx;
	int me;

	switch (event) {
	case SWRAP_PCAP_SEND_UNREACH: {
		/* The ICMP error quotes the datagram's IP packet; copied
		 * out first, since room() may flush the buffer. */
		uint8_t quoted[1280];
		const uint8_t *rec;
		size_t qlen;
		uint8_t *out;

		rec = udp_record(e, l, p, iov, iovcnt, len, &rec_len);
		qlen = rec_len - SWRAP_PCAP_REC_HDR_LEN;
		if (qlen > sizeof(quoted)) {
			qlen = sizeof(quoted);
		}
		memcpy(quoted, rec + SWRAP_PCAP_REC_HDR_LEN, qlen);
		out = room(e, qlen);
		e->len += swrap_pcap_icmp_unreach(out, e->ts, p, l,
						  swrap_pcap_state_ip_id(e->s),
						  quoted, qlen);
		break;
	}
	case SWRAP_PCAP_SEND:
	case SWRAP_PCAP_RECV:
		/* Datagrams are counted per direction: the n-th one is
		 * recorded by whichever end reports it first. */
		c = swrap_pcap_state_conn(e->s, PROTO_UDP, l, p, &me);
		if (event == SWRAP_PCAP_SEND) {
			d = &c->dir[me];
			idx = d->sent++;
		} else {
			d = &c->dir[!me];
			idx = d->recvd++;
		}
		if (idx < d->recorded) {
			break;
		}
		d->recorded = idx + 1;
		if (event == SWRAP_PCAP_SEND) {
			(void)udp_record(e, l, p, iov, iovcnt, len, &rec_len);
		} else {
			(void)udp_record(e, p, l, iov, iovcnt, len, &rec_len);
		}
		break;
	default:
		break;
	}
}

static bool ep_from(const struct sockaddr *sa, socklen_t len,
		    struct swrap_pcap_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (sa == NULL) {
		return false;
	}
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, sa, sizeof(in));
		ep->family = 4;
		memcpy(ep->addr, &in.sin_addr, 4);
		ep->port = ntohs(in.sin_port);
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, sa, sizeof(in6));
		ep->port = ntohs(in6.sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
			ep->family = 4;
			memcpy(ep->addr, &in6.sin6_addr.s6_addr[12], 4);
		} else {
			ep->family = 6;
			memcpy(ep->addr, &in6.sin6_addr, 16);
		}
		return true;
	}
	return false;
}

void swrap_pcap_event(enum swrap_pcap_event event, int sotype,
		      const struct sockaddr *local, socklen_t local_len,
		      const struct sockaddr *peer, socklen_t peer_len,
		      const struct iovec *iov, int iovcnt, size_t len)
{
	uint8_t small[SMALL_BUF];
	struct swrap_pcap_ep l, p;
	struct timeval tv;
	struct ev e;
	int saved_errno;

	if (!__atomic_load_n(&g.enabled, __ATOMIC_RELAXED) || t_busy) {
		return;
	}
	if (!ep_from(local, local_len, &l) || !ep_from(peer, peer_len, &p) ||
	    l.family != p.family) {
		CWRAP_DEBUG("event %d: addresses not IPv4/IPv6 of one family, "
			    "not captured",
			    (int)event);
		return;
	}
	sotype &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (sotype != SOCK_STREAM && sotype != SOCK_DGRAM) {
		return;
	}
	saved_errno = errno;
	t_busy = true;
	pthread_rwlock_rdlock(&g_rw);
	if (!g.enabled) {
		goto out; /* switched off meanwhile */
	}
	e.s = g.state;
	/* Small events are built on the stack; large ones in chunks of a
	 * heap buffer that holds any record. */
	e.len = 0;
	e.buf = small;
	e.cap = sizeof(small);
	if (len > SMALL_EVENT) {
		e.cap = BUF_SIZE;
		e.buf = malloc(e.cap);
		if (e.buf == NULL) {
			CWRAP_ERROR(PCAP_VAR ": out of memory, packets lost");
			goto out;
		}
	}
	swrap_pcap_state_keepalive(e.s, g_ref);
	swrap_pcap_state_lock(e.s);
	gettimeofday(&tv, NULL);
	e.ts.sec = (uint32_t)tv.tv_sec;
	e.ts.usec = (uint32_t)tv.tv_usec;
	if (sotype == SOCK_STREAM) {
		tcp_event(&e, event, &l, &p, iov, iovcnt, len);
	} else {
		udp_event(&e, event, &l, &p, iov, iovcnt, len);
	}
	flush(&e, true);
	if (e.buf != small) {
		free(e.buf);
	}
out:
	pthread_rwlock_unlock(&g_rw);
	t_busy = false;
	errno = saved_errno;
}

/* At exit(), or when the program switches to another capture file: the
 * FINs of the connections this process was the last to hold (a child that
 * serves a connection and exits without closing it). stdout goes out first, as
 * exit() would write it after us: the socket of an inetd-style service. Not in
 * a vfork() child, which shares our memory, nor after _exit() or a signal (the
 * next event of any process on the capture records those). */
static void pcap_leave(bool at_exit)
{
	uint8_t small[SMALL_BUF];
	struct timeval tv;
	struct ev e;
	int saved_errno = errno;

	if (!__atomic_load_n(&g.enabled, __ATOMIC_ACQUIRE) || g_ref == 0 ||
	    t_busy || (int32_t)getpid() != g_pid) {
		return;
	}
	if (at_exit && fileno(stdout) >= 0 && ftrylockfile(stdout) == 0) {
		fflush(stdout);
		funlockfile(stdout);
	}
	t_busy = true;
	e.s = g.state;
	e.len = 0;
	e.buf = small;
	e.cap = sizeof(small);
	swrap_pcap_state_lock(e.s);
	gettimeofday(&tv, NULL);
	e.ts.sec = (uint32_t)tv.tv_sec;
	e.ts.usec = (uint32_t)tv.tv_usec;
	swrap_pcap_state_exiting(e.s, g_ref);
	tcp_sweep(&e);
	flush(&e, true);
	t_busy = false;
	errno = saved_errno;
}

__attribute__((destructor)) static void pcap_exit(void)
{
	pcap_leave(true);
}
