/*
 * What the rules of SOCKET_WRAPPER_FAULTS do to sockets: the state of the
 * effects on one socket (struct swrap_fstate, made when a rule file is in
 * force and the socket is used) and the three calls the data path makes:
 * at connect(), for each TCP send or receive, for each UDP datagram sent.
 *
 * Who applies what. A TCP connection's effects are applied once, by one
 * end: the client (the end that called connect(), its peer being the
 * endpoint of the rules) applies `to` effects to what it sends and `from`
 * effects to what it receives. The accepted end applies them (the other
 * way round) only when its client is not one of ours (a client of ours is
 * bound in the abstract namespace), so that a peer under another library
 * still sees them. A UDP datagram's effects are applied by the process
 * that sends it (`to`: sent to the endpoint; `from`: sent from it).
 *
 * A reset shuts the unix connection down both ways and leaves a marker
 * file ("$DIR/.R<peer><local>") for a peer of ours, which turns the end of
 * file or EPIPE it then sees into ECONNRESET.
 *
 * Lock: each state has its mutex, taken for the effect computation and
 * the counters of a call; the record's pointer to it is set once with a
 * compare-and-swap and freed with the record (swrap_faults_drop).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "swrap_fx.h"
#include "swrap_libc.h"
#include "capture/swrap_pcap.h"

#define NONE UINT64_MAX
#define WAIT_STEP_MS 20
#define MAX_IOV 64

struct fx_dir {
	uint64_t slice;	      /* NONE or the most a call moves */
	uint64_t close_after; /* NONE or the bytes before EOF */
	bool blackhole;
};

struct swrap_fstate {
	pthread_mutex_t mu;
	unsigned gen;	    /* rule set the effects below are for (atomic) */
	bool active;	    /* some effect applies (atomic) */
	bool client;	    /* this end connected */
	bool applies;	    /* this end applies the TCP effects */
	bool bh_connecting; /* a blackholed connect() is pending */
	int reset;	 /* 0, 1: reset, ECONNRESET at the next call, 2: said */
	bool shut_out;	 /* close after: our sending side shut down */
	bool shut_in;	 /* close after: our receiving side shut down */
	bool want_relay; /* delay or rate apply */
	bool relay;	 /* a relay was asked for (swrap_faults_relay.c) */
	bool relayed;	 /* and holds the data (atomic) */
	bool fin_by_relay; /* the relay made the connection: it records
			    * our FIN */
	bool peer_holds; /* our client's relay delays what we send: it
			  * reports it to the capture (atomic) */
	uint64_t draw;	 /* this connection's draw, for `probability` */
	uint64_t t0;	 /* connected, ms */
	uint64_t nout, nin;
	struct fx_dir out, in;
	bool reset_now;
	uint64_t reset_ms, reset_bytes;
	unsigned reset_dirs; /* 1 out, 2 in: bytes counted for reset */
	/* UDP delay, rate: the relay's channel (see swrap_faults_relay.c) */
	int chan; /* -1: none yet */
	dev_t chan_dev;
	ino_t chan_ino;
	/* UDP reorder: one datagram held back until the next one went. */
	void *held;
	size_t held_len;
	struct sockaddr_storage held_to;
	socklen_t held_tolen;
};


/* Byte counters: added to without the lock on the fast path. */
static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static bool unix_abstract(int fd, bool peer)
{
	struct sockaddr_un un;
	socklen_t len = sizeof(un);
	int rc = peer ? libc_getpeername(fd, (struct sockaddr *)&un, &len)
		      : libc_getsockname(fd, (struct sockaddr *)&un, &len);

	return rc == 0 && len > sizeof(sa_family_t) && un.sun_path[0] == '\0';
}

static struct swrap_fstate *state_new(bool client)
{
	struct swrap_fstate *st = calloc(1, sizeof(*st));

	if (st == NULL) {
		return NULL;
	}
	pthread_mutex_init(&st->mu, NULL);
	st->client = client;
	st->applies = client;
	st->draw = swrap_fx_draw();
	st->t0 = swrap_fx_now_ms();
	st->chan = -1;
	return st;
}

static struct swrap_fstate *state_install(struct swrap_sock *s,
					  struct swrap_fstate *st)
{
	struct swrap_fstate *old = NULL;

	if (st == NULL) {
		return NULL;
	}
	if (!__atomic_compare_exchange_n(&s->fstate, &old, st, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_mutex_destroy(&st->mu);
		free(st);
		return old;
	}
	return st;
}

/* The state of a socket met first in the data path: an accepted one, one
 * inherited across exec, or one connected before the rules were set. */
static struct swrap_fstate *state_of(struct swrap_sock *s, int fd)
{
	struct swrap_fstate *st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);
	bool client;

	if (cwrap_likely(st != NULL)) {
		return st;
	}
	client = s->type == SOCK_DGRAM || unix_abstract(fd, false);
	st = state_new(client);
	if (st != NULL && !client) {
		/* accepted: apply only for a client that is not ours */
		st->applies = !unix_abstract(fd, true);
		CWRAP_TRACE("fd %d: accepted end, %s", fd,
			    st->applies ? "applies the rules"
					: "its client applies the rules");
	}
	return state_install(s, st);
}

/* The endpoint of the rules for this TCP socket. */
static void stream_ep(const struct swrap_sock *s, const struct swrap_fstate *st,
		      struct swrap_ep *ep)
{
	swrap_sock_eps(s, st->client ? NULL : ep, st->client ? ep : NULL);
}

/* Under st->mu: the effects of `set` on this connection. */
static void compute(struct swrap_sock *s, struct swrap_fstate *st,
		    const struct swrap_fx_set *set)
{
	unsigned outd = st->client ? SWRAP_FX_TO : SWRAP_FX_FROM;
	unsigned ind = st->client ? SWRAP_FX_FROM : SWRAP_FX_TO;
	struct swrap_ep ep;
	bool any = false;

	st->out = (struct fx_dir){.slice = NONE, .close_after = NONE};
	st->in = st->out;
	st->reset_now = false;
	st->reset_ms = NONE;
	st->reset_bytes = NONE;
	st->reset_dirs = 0;
	st->want_relay = false;
	stream_ep(s, st, &ep);
	__atomic_store_n(&st->peer_holds, false, __ATOMIC_RELAXED);
	for (int i = 0; i < set->n; i++) {
		const struct swrap_fx_rule *r = &set->r[i];

		if (!swrap_fx_match(r, s->conf, SOCK_STREAM, &ep)) {
			continue;
		}
		if (!st->applies) {
			/* our client applies the rules; a delay or rate
			 * towards it is held by its relay, which reports
			 * the data when it delivers it */
			if ((r->kind == SWRAP_FX_DELAY ||
			     r->kind == SWRAP_FX_RATE) &&
			    (r->dir & outd)) {
				__atomic_store_n(&st->peer_holds, true,
						 __ATOMIC_RELAXED);
			}
			continue;
		}
		if (!swrap_fx_chosen(st->draw, r->id, r->prob)) {
			continue;
		}
		switch (r->kind) {
		case SWRAP_FX_SLICE:
		case SWRAP_FX_CLOSE:
		case SWRAP_FX_BLACKHOLE:
			for (int d = 0; d < 2; d++) {
				struct fx_dir *x = d == 0 ? &st->out : &st->in;

				if (!(r->dir & (d == 0 ? outd : ind))) {
					continue;
				}
				any = true;
				if (r->kind == SWRAP_FX_SLICE) {
					x->slice = min64(x->slice, r->arg);
				} else if (r->kind == SWRAP_FX_CLOSE) {
					x->close_after =
					    min64(x->close_after, r->arg);
				} else {
					x->blackhole = true;
				}
			}
			break;
		case SWRAP_FX_RESET:
			any = true;
			if (!r->has_after) {
				st->reset_now = true;
			} else if (r->after_ms) {
				st->reset_ms = min64(st->reset_ms, r->arg);
			} else {
				st->reset_bytes =
				    min64(st->reset_bytes, r->arg);
				st->reset_dirs |= ((r->dir & outd) ? 1u : 0u) |
						  ((r->dir & ind) ? 2u : 0u);
			}
			break;
		case SWRAP_FX_DELAY:
		case SWRAP_FX_RATE:
			/* held by a relay, which reads the rules itself */
			any = true;
			st->want_relay = true;
			break;
		default:
			/* connect-time (refuse) and UDP effects */
			break;
		}
	}
	__atomic_store_n(&st->active, any, __ATOMIC_RELAXED);
	__atomic_store_n(&st->gen, set->gen, __ATOMIC_RELEASE);
}

/* ---- resets ---------------------------------------------------------------
 */

/* The marker of the connection between `local` and `peer`: ours
 * (`mine`), or the one the peer makes. */
static socklen_t marker_of(const struct swrap_conf *c,
			   const struct swrap_ep *local,
			   const struct swrap_ep *peer, bool mine,
			   struct sockaddr_un *un)
{
	const struct swrap_ep *a = mine ? local : peer;
	const struct swrap_ep *b = mine ? peer : local;
	int n;

	/* The peer looks for R<its local><its peer>. */
	n = snprintf(un->sun_path, sizeof(un->sun_path),
		     "%s/.R%02X%04X%02X%04X", c->dir, a->iface, a->port,
		     b->iface, b->port);
	return n > 0 && (size_t)n < sizeof(un->sun_path) ? (socklen_t)n : 0;
}

static socklen_t marker_name(const struct swrap_sock *s, bool mine,
			     struct sockaddr_un *un)
{
	struct swrap_ep local, peer;

	swrap_sock_eps(s, &local, &peer);
	return marker_of(s->conf, &local, &peer, mine, un);
}

/* The connection is reset: the peer of ours finds the marker; our
 * descriptor is given a unix socket whose own peer went away with data
 * unread, which the kernel reports as it reports an RST: POLLERR, then
 * ECONNRESET once, then end of file and EPIPE. */
static void do_reset(struct swrap_sock *s, int fd, struct swrap_fstate *st)
{
	struct sockaddr_un mk;
	int saved = errno, sv[2], fl, fdfl;

	if (st->reset != 0) {
		return;
	}
	__atomic_store_n(&st->reset, 1, __ATOMIC_RELAXED);
	if (marker_name(s, false, &mk) != 0) {
		int m = open(mk.sun_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (m >= 0) {
			libc_close(m);
		}
	}
	CWRAP_DEBUG("fd %d: connection reset by the rules", fd);
	if (swrap_faults_pair_open(fd, &fl, &fdfl, sv) != 0) {
		libc_shutdown(fd, SHUT_RDWR);
		errno = saved;
		return;
	}
	(void)libc_send(sv[0], "R", 1, MSG_DONTWAIT);
	libc_close(sv[1]);
	if (swrap_faults_pair_take(s, fd, sv[0], fl, fdfl, NULL) != 0) {
		libc_shutdown(fd, SHUT_RDWR);
	}
	errno = saved;
}

/* The peer reset the connection (its marker is there): true once.
 * errno is kept. */
static bool peer_reset(struct swrap_sock *s, struct swrap_fstate *st)
{
	struct sockaddr_un mk;
	int saved = errno;
	bool gone;

	if (st == NULL || st->reset != 0 || marker_name(s, true, &mk) == 0) {
		return false;
	}
	gone = unlink(mk.sun_path) == 0;
	errno = saved;
	if (!gone) {
		return false;
	}
	__atomic_store_n(&st->reset, 2, __ATOMIC_RELAXED);
	return true;
}

static bool reset_due(const struct swrap_fstate *st)
{
	uint64_t n = 0;

	if (st->reset_now) {
		return true;
	}
	if (st->reset_ms != NONE &&
	    swrap_fx_now_ms() - st->t0 >= st->reset_ms) {
		return true;
	}
	n += (st->reset_dirs & 1u) ? ld(&st->nout) : 0;
	n += (st->reset_dirs & 2u) ? ld(&st->nin) : 0;
	return st->reset_bytes != NONE && n >= st->reset_bytes;
}

/* ---- TCP data --------------------------------------------------------------
 */

static ssize_t io_limited(int fd, bool out, struct msghdr *m, int flags,
			  uint64_t limit)
{
	struct iovec v[MAX_IOV];
	struct msghdr t = *m;
	size_t left = limit, k = 0;
	ssize_t r;

	if (limit != NONE) {
		for (size_t i = 0; i < (size_t)m->msg_iovlen && left > 0 && k < MAX_IOV;
		     i++) {
			v[k] = m->msg_iov[i];
			if (v[k].iov_len > left) {
				v[k].iov_len = left;
			}
			left -= v[k].iov_len;
			k++;
		}
		t.msg_iov = v;
		t.msg_iovlen = k;
	}
	r = out ? libc_sendmsg(fd, &t, flags) : libc_recvmsg(fd, &t, flags);
	m->msg_controllen = t.msg_controllen;
	m->msg_flags = t.msg_flags;
	return r;
}

static size_t iov_len(const struct msghdr *m)
{
	size_t n = 0;

	for (size_t i = 0; i < (size_t)m->msg_iovlen; i++) {
		n += m->msg_iov[i].iov_len;
	}
	return n;
}

static bool nonblocking(int fd, int flags)
{
	return (flags & MSG_DONTWAIT) ||
	       (libc_ptr_fcntl()(fd, F_GETFL) & O_NONBLOCK) != 0;
}

static bool still_blackholed(struct swrap_sock *s, struct swrap_fstate *st)
{
	const struct swrap_fx_set *set;
	bool bh;

	if (!swrap_faults_armed()) {
		return false;
	}
	set = swrap_fx_rules();
	pthread_mutex_lock(&st->mu);
	if (st->gen != set->gen) {
		compute(s, st, set);
	}
	bh = st->in.blackhole && st->active;
	pthread_mutex_unlock(&st->mu);
	return bh;
}

/* A receive on a blackholed link: what arrives is dropped; a blocking
 * call waits (SO_RCVTIMEO, else until the rules change). 1: the link
 * healed, go on. */
static int blackhole_recv(struct swrap_sock *s, int fd, struct swrap_fstate *st,
			  int flags)
{
	struct timeval tv = {0};
	socklen_t tl = sizeof(tv);
	uint64_t limit = NONE, waited = 0;
	char sink[4096];

	if (libc_getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &tl) == 0 &&
	    (tv.tv_sec != 0 || tv.tv_usec != 0)) {
		limit =
		    (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
	}
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		while (libc_recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
		}
		if (nonblocking(fd, flags)) {
			errno = EAGAIN;
			return -1;
		}
		if (waited >= limit) {
			errno = EAGAIN;
			return -1;
		}
		if (poll(&p, 1, WAIT_STEP_MS) < 0 && errno == EINTR) {
			return -1;
		}
		if (p.revents & (POLLHUP | POLLRDHUP)) {
			/* the peer went: nothing comes, nothing to drain */
			poll(NULL, 0, WAIT_STEP_MS);
		}
		waited += WAIT_STEP_MS;
		if (!still_blackholed(s, st)) {
			return 1;
		}
	}
}

ssize_t swrap_faults_stream(struct swrap_sock *s, int fd, bool out,
			    struct msghdr *m, int flags)
{
	const struct swrap_fx_set *set = swrap_fx_rules();
	struct swrap_fstate *st = state_of(s, fd);
	struct fx_dir x;
	uint64_t limit = NONE, rem;
	ssize_t r;
	bool eof = false;

	if (st == NULL) {
		return io_limited(fd, out, m, flags, NONE);
	}
	if (__atomic_load_n(&st->gen, __ATOMIC_ACQUIRE) == set->gen &&
	    !__atomic_load_n(&st->active, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&st->reset, __ATOMIC_RELAXED) == 0) {
		/* no rule for this socket: the call, the bytes counted (for
		 * a rule that comes later), a reset by the peer noticed */
		r = io_limited(fd, out, m, flags, NONE);
		if (r > 0 && !(flags & MSG_PEEK)) {
			__atomic_add_fetch(out ? &st->nout : &st->nin,
					   (uint64_t)r, __ATOMIC_RELAXED);
		} else if ((r == 0 && !out && iov_len(m) > 0) ||
			   (r < 0 && (errno == EPIPE || errno == ECONNRESET))) {
			pthread_mutex_lock(&st->mu);
			if (peer_reset(s, st)) {
				r = -1;
				errno = ECONNRESET;
			}
			pthread_mutex_unlock(&st->mu);
		}
		return r;
	}
	pthread_mutex_lock(&st->mu);
	if (st->gen != set->gen) {
		compute(s, st, set);
	}
	if (st->reset == 0 && st->active && reset_due(st)) {
		do_reset(s, fd, st);
	}
	if (st->want_relay && !st->relay && st->reset == 0 &&
	    (s->flags & SWRAP_SOCK_CONNECTED)) {
		st->relay = true; /* once: a failed start is not retried */
		if (swrap_faults_relay(s, fd, st->client) == 0) {
			__atomic_store_n(&st->relayed, true, __ATOMIC_RELEASE);
		}
	}
	if (st->reset == 1) {
		int e;
		socklen_t el = sizeof(e);

		/* the first call after the reset says so (a send too,
		 * where a unix socket says EPIPE), once */
		__atomic_store_n(&st->reset, 2, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&st->mu);
		libc_getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
		errno = ECONNRESET;
		return -1;
	}
	x = out ? st->out : st->in;
	if (!st->active || st->reset != 0) {
		x = (struct fx_dir){.slice = NONE, .close_after = NONE};
	}
	if (x.blackhole && out) {
		pthread_mutex_unlock(&st->mu);
		return (ssize_t)iov_len(m);
	}
	rem = NONE;
	if (x.close_after != NONE) {
		uint64_t done = ld(out ? &st->nout : &st->nin);

		rem = x.close_after > done ? x.close_after - done : 0;
		if (rem == 0 && !out) {
			eof = true;
			if (!st->shut_in) {
				/* the sender's next writes fail (EPIPE), as
				 * once the proxy closed the connection */
				st->shut_in = true;
				libc_shutdown(fd, SHUT_RD);
			}
		} else if (rem == 0 && out && !st->shut_out) {
			st->shut_out = true;
			libc_shutdown(fd, SHUT_WR);
		}
	}
	limit = min64(x.slice, rem == 0 ? NONE : rem);
	if (st->reset_bytes != NONE && st->active &&
	    (st->reset_dirs & (out ? 1u : 2u))) {
		uint64_t n = ((st->reset_dirs & 1u) ? ld(&st->nout) : 0) +
			     ((st->reset_dirs & 2u) ? ld(&st->nin) : 0);

		limit = min64(limit, st->reset_bytes - n);
	}
	pthread_mutex_unlock(&st->mu);
	if (eof) {
		return 0;
	}
	if (x.blackhole) {
		int h = blackhole_recv(s, fd, st, flags);

		if (h <= 0) {
			return -1;
		}
	}
	r = io_limited(fd, out, m, flags, limit);
	pthread_mutex_lock(&st->mu);
	if (r > 0 && !(flags & MSG_PEEK)) {
		__atomic_add_fetch(out ? &st->nout : &st->nin, (uint64_t)r,
				   __ATOMIC_RELAXED);
		if (st->active && st->reset == 0 && reset_due(st)) {
			do_reset(s, fd, st); /* ECONNRESET at the next call */
			if (out && x.slice == NONE && rem == NONE) {
				/* the rest was in flight when the RST came:
				 * a kernel took it all */
				r = (ssize_t)iov_len(m);
			}
		}
		if (out && x.close_after != NONE &&
		    ld(&st->nout) >= x.close_after && !st->shut_out) {
			st->shut_out = true;
			libc_shutdown(fd, SHUT_WR);
		}
	} else if ((r == 0 && !out && iov_len(m) > 0) ||
		   (r < 0 && (errno == EPIPE || errno == ECONNRESET))) {
		if (peer_reset(s, st)) {
			r = -1;
			errno = ECONNRESET;
		}
	}
	pthread_mutex_unlock(&st->mu);
	return r;
}

/* ---- connect ----------------------------------------------------------------
 */

/* Which connect-time effect applies to a connection to `ep`. */
static enum swrap_fx_kind connect_effect(struct swrap_sock *s,
					 struct swrap_fstate *st,
					 const struct swrap_ep *ep)
{
	const struct swrap_fx_set *set = swrap_fx_rules();

	for (int i = 0; i < set->n; i++) {
		const struct swrap_fx_rule *r = &set->r[i];

		if ((r->kind == SWRAP_FX_REFUSE ||
		     r->kind == SWRAP_FX_BLACKHOLE) &&
		    (r->dir & SWRAP_FX_TO) &&
		    swrap_fx_match(r, s->conf, SOCK_STREAM, ep) &&
		    swrap_fx_chosen(st->draw, r->id, r->prob)) {
			return r->kind;
		}
	}
	return SWRAP_FX_DELAY; /* none */
}

/* The attempt hangs until the rule goes, when a helper process completes
 * it (swrap_faults_pending, which relays the connection from then on);
 * without a helper, the unix socket listens (unnamed clients cannot reach
 * it), so that poll() never finds it writable. */
static enum swrap_faults_verdict hang(struct swrap_sock *s, int fd,
				      struct swrap_fstate *st,
				      const struct swrap_ep *ep)
{
	st->bh_connecting = true;
	if (swrap_faults_pending(s, fd, ep) == 0) {
		st->relay = true;
		st->fin_by_relay = true;
		__atomic_store_n(&st->relayed, true, __ATOMIC_RELEASE);
	} else {
		libc_listen(fd, 0);
	}
	errno = EINPROGRESS;
	return SWRAP_FAULTS_TAKEN;
}

bool swrap_faults_chosen(const struct swrap_sock *s,
			 const struct swrap_fx_rule *r)
{
	const struct swrap_fstate *st =
	    __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);

	return st == NULL || swrap_fx_chosen(st->draw, r->id, r->prob);
}

bool swrap_faults_connect_held(struct swrap_sock *s, const struct swrap_ep *ep)
{
	struct swrap_fstate *st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);

	return st != NULL && swrap_faults_armed() &&
	       connect_effect(s, st, ep) == SWRAP_FX_BLACKHOLE;
}

int swrap_faults_connect_now(struct swrap_sock *s, int fd,
			     const struct swrap_ep *ep)
{
	struct swrap_fstate *st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);

	if (st != NULL) {
		st->bh_connecting = false;
	}
	return swrap_sock_connect_ep(s, fd, ep);
}

bool swrap_faults_connecting(struct swrap_sock *s, int fd)
{
	struct swrap_fstate *st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);
	struct pollfd p = {.fd = fd, .events = POLLOUT};

	if (cwrap_likely(st == NULL) || !st->bh_connecting) {
		return false;
	}
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT)) {
		st->bh_connecting = false; /* completed */
		return false;
	}
	return true;
}

enum swrap_faults_verdict swrap_faults_connect(struct swrap_sock *s, int fd,
					       const struct swrap_ep *ep)
{
	struct swrap_fstate *st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);
	struct timeval tv = {0};
	socklen_t tl = sizeof(tv);
	uint64_t limit = NONE, waited = 0;
	struct sockaddr_un mk;

	if (st != NULL && st->bh_connecting) {
		errno = EALREADY;
		return SWRAP_FAULTS_TAKEN;
	}
	if (st == NULL) {
		st = state_install(s, state_new(true));
		if (st == NULL) {
			return SWRAP_FAULTS_PASS;
		}
	}
	st->client = true;
	st->applies = true;
	__atomic_store_n(&st->gen, 0, __ATOMIC_RELAXED);
	st->t0 = swrap_fx_now_ms();
	/* The connection will have our endpoints: no marker of an earlier
	 * one with the same may stay. (Unconnected, the record's local end
	 * does not depend on its peer; the markers name only interfaces and
	 * ports.) */
	{
		struct swrap_ep local;
		int saved = errno;

		swrap_sock_eps(s, &local, NULL);
		if (marker_of(s->conf, &local, ep, true, &mk) != 0) {
			unlink(mk.sun_path);
		}
		if (marker_of(s->conf, &local, ep, false, &mk) != 0) {
			unlink(mk.sun_path);
		}
		errno = saved;
	}
	switch (connect_effect(s, st, ep)) {
	case SWRAP_FX_REFUSE:
		CWRAP_DEBUG("fd %d: connect to port %u refused by the rules",
			    fd, ep->port);
		return SWRAP_FAULTS_REFUSED;
	case SWRAP_FX_BLACKHOLE:
		break;
	default:
		return SWRAP_FAULTS_PASS;
	}
	CWRAP_DEBUG("fd %d: connect to port %u blackholed by the rules", fd,
		    ep->port);
	if (nonblocking(fd, 0)) {
		return hang(s, fd, st, ep);
	}
	if (libc_getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &tl) == 0 &&
	    (tv.tv_sec != 0 || tv.tv_usec != 0)) {
		limit =
		    (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
	}
	for (;;) {
		if (waited >= limit) {
			return hang(s, fd, st, ep);
		}
		if (poll(NULL, 0, WAIT_STEP_MS) < 0 && errno == EINTR) {
			(void)hang(s, fd, st, ep);
			errno = EINTR;
			return SWRAP_FAULTS_TAKEN;
		}
		waited += WAIT_STEP_MS;
		if (!swrap_faults_armed() ||
		    connect_effect(s, st, ep) != SWRAP_FX_BLACKHOLE) {
			return SWRAP_FAULTS_PASS; /* healed: it goes on */
		}
	}
}

/* ---- UDP ------------------------------------------------------------------
 */

/* Under st->mu: the UDP relay's channel is there (made now if need be)
 * and still ours (a program may have closed every descriptor). */
static bool chan_ok(struct swrap_sock *s, int fd, struct swrap_fstate *st)
{
	struct stat sb;

	if (st->chan >= 0) {
		if (fstat(st->chan, &sb) == 0 && sb.st_ino == st->chan_ino &&
		    sb.st_dev == st->chan_dev) {
			return true;
		}
		st->chan = -1;
	}
	st->chan = swrap_faults_dgram_relay(s, fd);
	if (st->chan < 0 || fstat(st->chan, &sb) != 0) {
		return false;
	}
	st->chan_dev = sb.st_dev;
	st->chan_ino = sb.st_ino;
	return true;
}

static void send_held(struct swrap_sock *s, int fd, void *data, size_t len,
		      struct sockaddr_storage *to, socklen_t tolen)
{
	struct iovec v = {.iov_base = data, .iov_len = len};
	struct msghdr m = {.msg_name = tolen ? to : NULL,
			   .msg_namelen = tolen,
			   .msg_iov = &v,
			   .msg_iovlen = 1};

	(void)swrap_io_dgram_send(s, fd, &m, MSG_DONTWAIT);
	free(data);
}

enum swrap_faults_verdict swrap_faults_dgram(struct swrap_sock *s, int fd,
					     const struct msghdr *msg,
					     int flags,
					     const struct swrap_ep *ep,
					     size_t total, ssize_t *r)
{
	const struct swrap_fx_set *set = swrap_fx_rules();
	struct swrap_fstate *st;
	struct swrap_ep lep;
	bool lost = false, dup = false, hold = false, held_back = false;
	bool refused = false;
	uint64_t delay = 0, rate = 0;
	void *held;
	size_t held_len;
	struct sockaddr_storage held_to;
	socklen_t held_tolen;

	swrap_sock_eps(s, &lep, NULL);
	for (int i = 0; i < set->n; i++) {
		const struct swrap_fx_rule *ru = &set->r[i];
		unsigned d = 0;

		if (ru->kind == SWRAP_FX_REFUSE) {
			/* the endpoint's port is closed to what goes there */
			refused |=
			    (ru->dir & SWRAP_FX_TO) &&
			    swrap_fx_match(ru, s->conf, SOCK_DGRAM, ep) &&
			    swrap_fx_chosen(swrap_fx_draw() ^ SWRAP_FX_TO,
					    ru->id, ru->prob);
			continue;
		}
		if (ru->kind == SWRAP_FX_RESET || ru->kind == SWRAP_FX_CLOSE ||
		    ru->kind == SWRAP_FX_SLICE) {
			continue;
		}
		if ((ru->dir & SWRAP_FX_TO) &&
		    swrap_fx_match(ru, s->conf, SOCK_DGRAM, ep)) {
			d = SWRAP_FX_TO;
		} else if ((ru->dir & SWRAP_FX_FROM) &&
			   swrap_fx_match(ru, s->conf, SOCK_DGRAM, &lep)) {
			d = SWRAP_FX_FROM;
		}
		if (d == 0 ||
		    !swrap_fx_chosen(swrap_fx_draw() ^ d, ru->id, ru->prob)) {
			continue;
		}
		switch (ru->kind) {
		case SWRAP_FX_BLACKHOLE:
			lost = true;
			break;
		case SWRAP_FX_DELAY:
			delay += ru->arg;
			if (ru->arg2 != 0) {
				uint64_t j =
				    swrap_fx_draw() % (2 * ru->arg2 + 1);

				delay = delay + j >= ru->arg2
					    ? delay + j - ru->arg2
					    : 0;
			}
			held_back = true;
			break;
		case SWRAP_FX_RATE:
			rate = rate == 0 || ru->arg < rate ? ru->arg : rate;
			held_back = true;
			break;
		case SWRAP_FX_LOSS:
			lost |= swrap_fx_chosen(swrap_fx_draw(), 0,
						(unsigned)ru->arg);
			break;
		case SWRAP_FX_DUPLICATE:
			dup |= swrap_fx_chosen(swrap_fx_draw(), 0,
					       (unsigned)ru->arg);
			break;
		default:
			hold |= swrap_fx_chosen(swrap_fx_draw(), 0,
						(unsigned)ru->arg);
			break;
		}
	}
	if (refused) {
		CWRAP_TRACE("fd %d: datagram to port %u refused by the rules",
			    fd, ep->port);
		return SWRAP_FAULTS_REFUSED;
	}
	st = __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);
	if (!lost && !dup && !hold && !held_back &&
	    (st == NULL || st->held == NULL)) {
		return SWRAP_FAULTS_PASS;
	}
	if (lost) {
		CWRAP_TRACE("fd %d: datagram to port %u lost", fd, ep->port);
		return SWRAP_FAULTS_LOST;
	}
	st = state_of(s, fd);
	if (st == NULL) {
		return SWRAP_FAULTS_PASS;
	}
	pthread_mutex_lock(&st->mu);
	if (held_back && chan_ok(s, fd, st)) {
		/* the relay sends it when it is due */
		swrap_faults_dgram_hold(st->chan, msg, delay, rate);
		if (dup) {
			swrap_faults_dgram_hold(st->chan, msg, delay, rate);
		}
		pthread_mutex_unlock(&st->mu);
		*r = (ssize_t)total;
		return SWRAP_FAULTS_TAKEN;
	}
	held = st->held;
	held_len = st->held_len;
	held_to = st->held_to;
	held_tolen = st->held_tolen;
	st->held = NULL;
	if (hold && held == NULL) {
		/* overtaken by the next datagram this socket sends */
		st->held = malloc(total ? total : 1);
		if (st->held != NULL) {
			size_t off = 0;

			for (size_t i = 0; i < (size_t)msg->msg_iovlen; i++) {
				memcpy((char *)st->held + off,
				       msg->msg_iov[i].iov_base,
				       msg->msg_iov[i].iov_len);
				off += msg->msg_iov[i].iov_len;
			}
			st->held_len = total;
			st->held_tolen = 0;
			if (msg->msg_name != NULL && msg->msg_namelen != 0 &&
			    msg->msg_namelen <= sizeof(st->held_to)) {
				memcpy(&st->held_to, msg->msg_name,
				       msg->msg_namelen);
				st->held_tolen = msg->msg_namelen;
			}
			pthread_mutex_unlock(&st->mu);
			*r = (ssize_t)total;
			return SWRAP_FAULTS_TAKEN;
		}
	}
	pthread_mutex_unlock(&st->mu);
	*r = swrap_io_dgram_send(s, fd, msg, flags);
	if (dup && *r >= 0) {
		int e = errno;

		(void)swrap_io_dgram_send(s, fd, msg, flags | MSG_DONTWAIT);
		errno = e;
	}
	if (held != NULL) {
		int e = errno;

		send_held(s, fd, held, held_len, &held_to, held_tolen);
		errno = e;
	}
	return SWRAP_FAULTS_TAKEN;
}

bool swrap_faults_fin_by_relay(const struct swrap_sock *s)
{
	const struct swrap_fstate *st =
	    __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);

	return st != NULL && st->fin_by_relay;
}

bool swrap_faults_relayed(const struct swrap_sock *s, bool out)
{
	const struct swrap_fstate *st =
	    __atomic_load_n(&s->fstate, __ATOMIC_ACQUIRE);

	return st != NULL &&
	       (__atomic_load_n(&st->relayed, __ATOMIC_ACQUIRE) ||
		(out && __atomic_load_n(&st->peer_holds, __ATOMIC_RELAXED)));
}

void swrap_faults_drop(struct swrap_sock *s)
{
	struct swrap_fstate *st =
	    __atomic_exchange_n(&s->fstate, NULL, __ATOMIC_ACQ_REL);

	if (st != NULL) {
		struct stat sb;

		if (st->chan >= 0 && fstat(st->chan, &sb) == 0 &&
		    sb.st_ino == st->chan_ino && sb.st_dev == st->chan_dev) {
			libc_close(st->chan); /* the relay sends what it holds
					       * and goes */
		}
		free(st->held);
		pthread_mutex_destroy(&st->mu);
		free(st);
	}
}
