/*
 * The held-data relay of SOCKET_WRAPPER_FAULTS: `delay` and `rate` on a
 * TCP connection need something that holds data while the sender goes
 * on. When such a rule first applies to a connection, the socket's
 * descriptor is given one end of a new unix socket pair, and a relay
 * process (a grandchild, so nobody has to reap it) takes the other end and
 * the connection, and moves the bytes both ways, each chunk no earlier
 * than its due time (delay, jitter that keeps the order, rate). It reads
 * the rules again as it goes, so a healed link is fast again.
 *
 * Fork- and exec-safe: the program keeps an ordinary socket, named so
 * that it is adopted after exec with its emulated addresses (its end is
 * bound to the member-style names ".T0A2711.K" and ".T0A0050.K" of the
 * local and peer endpoints, whose files are removed at once); a child
 * shares it as any socket. The relay closes every other descriptor, and
 * ends when both directions are over (the program's end closed and
 * everything held delivered, or the connection closed and delivered), so
 * nothing stays behind. No thread, and no process until a rule matches.
 * UDP: a datagram to delay or rate-limit goes, with its destination, over
 * a SOCK_SEQPACKET pair to a relay process that holds a copy of the
 * socket and sends it, by the library's own path (the capture records it
 * then), when it is due. The socket's state keeps its end of the pair;
 * the relay ends when every end is closed and all is sent.
 *
 * No lock: the relay is a process of its own, and calls the real libc
 * only (its copy of the caller's locks may be held: the caller holds the
 * socket's effect state lock across the fork).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "swrap_fx.h"
#include "swrap_libc.h"
#include "capture/swrap_pcap.h"

#define RELAY_HOLD (512u * 1024u) /* held per direction, like a buffer */
#define RELAY_CHUNK 16384u
#define RELAY_RECHECK_MS 20
#define MAX_IOV 64

struct chunk {
	struct chunk *next;
	uint64_t due;
	size_t len, off;
	bool reported; /* to the capture, when it became due */
	char data[];
};

struct dir {
	int src, dst;
	unsigned rule_dir; /* SWRAP_FX_TO or SWRAP_FX_FROM */
	struct chunk *head, *tail;
	size_t held;
	uint64_t delay, jitter, rate;
	uint64_t last_due, rate_clock; /* ms, rate_clock in us */
	bool eof, done;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* delay, jitter and rate of one direction from the rules in force (those
 * whose `probability` chose this connection). */
static void relay_rules(const struct swrap_sock *s, const struct swrap_ep *ep,
			struct dir *d)
{
	const struct swrap_fx_set *set;

	d->delay = d->jitter = d->rate = 0;
	if (!swrap_faults_armed()) {
		return;
	}
	set = swrap_fx_rules();
	for (int i = 0; i < set->n; i++) {
		const struct swrap_fx_rule *r = &set->r[i];

		if (!(r->dir & d->rule_dir) ||
		    !swrap_fx_match(r, s->conf, SOCK_STREAM, ep) ||
		    !swrap_faults_chosen(s, r)) {
			continue;
		}
		if (r->kind == SWRAP_FX_DELAY) {
			d->delay += r->arg;
			d->jitter += r->arg2;
		} else if (r->kind == SWRAP_FX_RATE &&
			   (d->rate == 0 || r->arg < d->rate)) {
			d->rate = r->arg;
		}
	}
}

static void relay_read(struct dir *d, uint64_t now)
{
	size_t want = RELAY_CHUNK;
	struct chunk *c;
	uint64_t due;
	ssize_t r;

	if (d->rate != 0 && d->rate / 20 < want) {
		want = d->rate / 20 > 0 ? d->rate / 20 : 1;
	}
	c = malloc(sizeof(*c) + want);
	if (c == NULL) {
		return;
	}
	r = libc_read(d->src, c->data, want);
	if (r <= 0) {
		free(c);
		if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			d->eof = true;
		}
		return;
	}
	due = now / 1000u + d->delay;
	if (d->jitter != 0) {
		uint64_t j = swrap_fx_draw() % (2 * d->jitter + 1);

		due = due + j >= d->jitter ? due + j - d->jitter : 0;
	}
	if (d->rate != 0) {
		if (d->rate_clock < now) {
			d->rate_clock = now;
		}
		d->rate_clock += (uint64_t)r * 1000000u / d->rate;
		if (due < d->rate_clock / 1000u) {
			due = d->rate_clock / 1000u;
		}
	}
	if (due < d->last_due) {
		due = d->last_due; /* TCP keeps byte order */
	}
	d->last_due = due;
	c->next = NULL;
	c->due = due;
	c->len = (size_t)r;
	c->off = 0;
	c->reported = false;
	if (d->tail != NULL) {
		d->tail->next = c;
	} else {
		d->head = c;
	}
	d->tail = c;
	d->held += (size_t)r;
}

static void relay_write(const struct swrap_sock *s, struct dir *d, int event,
			uint64_t now_ms)
{
	while (d->head != NULL && d->head->due <= now_ms) {
		struct chunk *c = d->head;
		struct iovec v = {.iov_base = c->data, .iov_len = c->len};
		ssize_t r;

		if (!c->reported) {
			/* the capture shows it now, delivered (before the
			 * receiver can see it) */
			swrap_io_report_to(s, event, NULL, 0, &v, 1, c->len);
			c->reported = true;
		}
		r = libc_write(d->dst, c->data + c->off, c->len - c->off);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				return;
			}
			/* the receiver went: nothing more to deliver */
			d->eof = true;
			while (d->head != NULL) {
				c = d->head;
				d->head = c->next;
				free(c);
			}
			d->tail = NULL;
			d->held = 0;
			return;
		}
		c->off += (size_t)r;
		d->held -= (size_t)r;
		if (c->off < c->len) {
			return;
		}
		d->head = c->next;
		if (d->head == NULL) {
			d->tail = NULL;
		}
		free(c);
	}
}

/* `fin`: the relay records the program's FIN when it hands it on (it
 * made the connection: the program never recorded it). */
static CWRAP_NORETURN void relay_run(const struct swrap_sock *s,
				     const struct swrap_ep *ep, bool client,
				     int app, int net, bool fin)
{
	struct dir d[2] = {
	    {.src = app,
	     .dst = net,
	     .rule_dir = client ? SWRAP_FX_TO : SWRAP_FX_FROM},
	    {.src = net,
	     .dst = app,
	     .rule_dir = client ? SWRAP_FX_FROM : SWRAP_FX_TO},
	};
	uint64_t next_rules = 0;

	for (;;) {
		struct pollfd p[2];
		uint64_t now = now_us(), ms = now / 1000u;
		int timeout = RELAY_RECHECK_MS;

		if (ms >= next_rules) {
			relay_rules(s, ep, &d[0]);
			relay_rules(s, ep, &d[1]);
			next_rules = ms + RELAY_RECHECK_MS;
		}
		for (int i = 0; i < 2; i++) {
			relay_write(s, &d[i],
				    i == 0 ? SWRAP_PCAP_SEND : SWRAP_PCAP_RECV,
				    ms);
			if (d[i].eof && d[i].head == NULL && !d[i].done) {
				libc_shutdown(d[i].dst, SHUT_WR);
				d[i].done = true;
				if (fin && i == 0) {
					swrap_io_report_to(s, SWRAP_PCAP_CLOSE,
							   NULL, 0, NULL, 0, 0);
				}
			}
		}
		if (d[0].done && d[1].done) {
			_exit(0);
		}
		p[0] = (struct pollfd){.fd = app, .events = 0};
		p[1] = (struct pollfd){.fd = net, .events = 0};
		for (int i = 0; i < 2; i++) {
			struct pollfd *src = &p[i], *dst = &p[1 - i];

			if (!d[i].eof && d[i].held < RELAY_HOLD) {
				src->events |= POLLIN;
			}
			if (d[i].head != NULL) {
				if (d[i].head->due <= ms) {
					dst->events |= POLLOUT;
				} else if (d[i].head->due - ms <
					   (uint64_t)timeout) {
					timeout = (int)(d[i].head->due - ms);
				}
			}
		}
		if (poll(p, 2, timeout) < 0 && errno != EINTR) {
			_exit(1);
		}
		now = now_us();
		for (int i = 0; i < 2; i++) {
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR) &&
			    !d[i].eof && d[i].held < RELAY_HOLD) {
				relay_read(&d[i], now);
			}
		}
	}
}

/* Keep `a` and `b` (a < b), close every other descriptor (the table
 * follows: swrap_close_range()); stdin, stdout and stderr become
 * /dev/null, so that nobody waits on a pipe we hold. */
static void keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, null;

	if (lo > 0) {
		swrap_close_range(0u, (unsigned)lo - 1, 0);
	}
	if (hi > lo + 1) {
		swrap_close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	}
	swrap_close_range((unsigned)hi + 1, ~0u, 0);
	null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3 && null >= 0; fd++) {
		if (fd != a && fd != b && fd != null) {
			libc_dup2(null, fd);
		}
	}
	if (null > 2 && null != a && null != b) {
		libc_close(null);
	}
}

/* Start the relay of `fd`, which talks through sv[1], as a grandchild
 * nobody waits for, with none of the program's signal handlers (a signal
 * to the process group ends it as it ends the program) and only sv[1] and
 * fd open. In the program: sv[1] closed, sv[0] its end, 0; -1 with errno
 * `saved` if no process could be made (both ends closed). In the relay:
 * sv[0] is the relay's end (the former sv[1]) and sv[1] is -1. */
static int relay_spawn(int sv[2], int fd, int saved)
{
	pid_t pid = fork();

	if (pid < 0) {
		libc_close(sv[0]);
		libc_close(sv[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		if (fork() != 0) {
			_exit(0);
		}
		for (int sig = 1; sig < NSIG; sig++) {
			signal(sig, SIG_DFL);
		}
		signal(SIGPIPE, SIG_IGN);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		keep_only(sv[1], fd);
		sv[0] = sv[1];
		sv[1] = -1;
		return 0;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
	}
	libc_close(sv[1]);
	return 0;
}

int swrap_faults_pair_open(int fd, int *fl, int *fdfl, int sv[2])
{
	*fl = libc_ptr_fcntl()(fd, F_GETFL);
	*fdfl = libc_ptr_fcntl()(fd, F_GETFD);
	if (*fl < 0 || *fdfl < 0) {
		return -1;
	}
	return libc_socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

int swrap_faults_pair_take(struct swrap_sock *s, int fd, int end, int fl,
			   int fdfl, const struct swrap_ep *peer)
{
	if (libc_dup2(end, fd) != fd) {
		libc_close(end);
		return -1;
	}
	libc_close(end);
	libc_ptr_fcntl()(fd, F_SETFL, fl);
	libc_ptr_fcntl()(fd, F_SETFD, fdfl);
	swrap_fd_renewed(s, peer); /* another kernel socket */
	return 0;
}

int swrap_faults_relay(struct swrap_sock *s, int fd, bool client)
{
	struct swrap_ep local, peer, ep;
	int sv[2], fl, fdfl, saved = errno;

	if (swrap_faults_pair_open(fd, &fl, &fdfl, sv) != 0) {
		return -1;
	}
	swrap_sock_eps(s, &local, &peer);
	local.type = peer.type = SOCK_STREAM;
	swrap_fd_name(s->conf, sv[0], &local);
	swrap_fd_name(s->conf, sv[1], &peer);
	ep = client ? peer : local;
	if (relay_spawn(sv, fd, saved) != 0) {
		return -1;
	}
	if (sv[1] < 0) {
		/* the relay */
		libc_ptr_fcntl()(sv[0], F_SETFL, O_NONBLOCK);
		libc_ptr_fcntl()(fd, F_SETFL, O_NONBLOCK);
		relay_run(s, &ep, client, sv[0], fd, false);
	}
	if (swrap_faults_pair_take(s, fd, sv[0], fl, fdfl, NULL) != 0) {
		errno = saved;
		return -1;
	}
	CWRAP_DEBUG("fd %d: a relay holds its data (delay, rate)", fd);
	errno = saved;
	return 0;
}

/* ---- a connect() held by a blackhole ---------------------------------------
 * The program's descriptor becomes one end of a unix socket pair whose
 * send buffer is filled with `junk` bytes: it never polls writable (nor
 * readable) while the other end, in a process that holds the real socket,
 * reads nothing. That process looks at the rules every 20 ms; once the
 * blackhole is gone it connects the real socket (the library's own
 * connect(), which records the handshake), reads the junk away (the
 * program's descriptor polls writable: connected), and relays the
 * connection from then on, as for a delay. It ends when the program's
 * end is closed before that; when the connect fails, it ends with the
 * junk unread, which the program's end reports as a reset (POLLERR,
 * SO_ERROR ECONNRESET). */

static CWRAP_NORETURN void pending_run(struct swrap_sock *s,
				       const struct swrap_ep *ep, int app,
				       int net, size_t junk)
{
	char buf[RELAY_CHUNK];

	for (;;) {
		struct pollfd p = {.fd = app, .events = POLLRDHUP};

		(void)poll(&p, 1, RELAY_RECHECK_MS);
		if (p.revents & (POLLHUP | POLLERR)) {
			_exit(0); /* the program closed its socket */
		}
		if (!swrap_faults_connect_held(s, ep)) {
			break;
		}
	}
	libc_ptr_fcntl()(net, F_SETFL, 0);
	if (swrap_faults_connect_now(s, net, ep) != 0) {
		_exit(0);
	}
	while (junk > 0) {
		ssize_t r = libc_read(app, buf, junk < sizeof(buf) ? junk
								 : sizeof(buf));

		if (r <= 0 && errno != EINTR) {
			_exit(0);
		}
		junk -= r > 0 ? (size_t)r : 0;
	}
	libc_ptr_fcntl()(app, F_SETFL, O_NONBLOCK);
	libc_ptr_fcntl()(net, F_SETFL, O_NONBLOCK);
	relay_run(s, ep, true, app, net, true);
}

int swrap_faults_pending(struct swrap_sock *s, int fd,
			 const struct swrap_ep *ep)
{
	static const char zeros[RELAY_CHUNK];
	struct swrap_ep local;
	int sv[2], fl, fdfl, saved = errno;
	size_t junk = 0;
	ssize_t w;

	if (swrap_faults_pair_open(fd, &fl, &fdfl, sv) != 0) {
		return -1;
	}
	swrap_sock_eps(s, &local, NULL);
	local.type = SOCK_STREAM;
	swrap_fd_name(s->conf, sv[0], &local);
	swrap_fd_name(s->conf, sv[1], ep);
	while ((w = libc_send(sv[0], zeros, sizeof(zeros),
			      MSG_DONTWAIT | MSG_NOSIGNAL)) > 0) {
		junk += (size_t)w;
	}
	if (relay_spawn(sv, fd, saved) != 0) {
		return -1;
	}
	if (sv[1] < 0) {
		pending_run(s, ep, sv[0], fd, junk); /* the helper */
	}
	if (swrap_faults_pair_take(s, fd, sv[0], fl, fdfl, ep) != 0) {
		errno = saved;
		return -1;
	}
	CWRAP_DEBUG("fd %d: connect held by a blackhole (%zu bytes stuffed)",
		    fd, junk);
	errno = saved;
	return 0;
}

/* ---- UDP ------------------------------------------------------------------
 */

struct dgram_hdr {
	uint64_t delay_ms;
	uint64_t rate;
	uint32_t tolen;
	uint32_t pad;
	struct sockaddr_storage to;
};

struct held_dgram {
	struct held_dgram *next;
	uint64_t due;
	socklen_t tolen;
	struct sockaddr_storage to;
	size_t len;
	char data[];
};

static CWRAP_NORETURN void dgram_relay_run(struct swrap_sock *s, int chan,
					   int fd)
{
	static char buf[sizeof(struct dgram_hdr) + 65536];
	struct held_dgram *q = NULL;
	uint64_t rate_clock = 0;
	bool eof = false;

	for (;;) {
		uint64_t now = now_us(), ms = now / 1000u;
		struct pollfd p = {.fd = chan, .events = POLLIN};
		int timeout = 1000;
		ssize_t r;

		while (q != NULL && q->due <= ms) {
			struct held_dgram *h = q;
			struct iovec v = {.iov_base = h->data,
					  .iov_len = h->len};
			struct msghdr m = {.msg_name = h->tolen ? &h->to : NULL,
					   .msg_namelen = h->tolen,
					   .msg_iov = &v,
					   .msg_iovlen = 1};

			q = h->next;
			(void)swrap_io_dgram_send(s, fd, &m, 0);
			free(h);
		}
		if (eof && q == NULL) {
			_exit(0);
		}
		if (q != NULL && q->due - ms < (uint64_t)timeout) {
			timeout = (int)(q->due - ms);
		}
		if (eof) {
			poll(NULL, 0, timeout);
			continue;
		}
		if (poll(&p, 1, timeout) <= 0) {
			continue;
		}
		r = libc_recv(chan, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			eof = true;
		} else if (r >= (ssize_t)sizeof(struct dgram_hdr)) {
			struct dgram_hdr hd;
			struct held_dgram *h, **pp;
			size_t len = (size_t)r - sizeof(hd);

			memcpy(&hd, buf, sizeof(hd));
			h = malloc(sizeof(*h) + len);
			if (h == NULL) {
				continue;
			}
			now = now_us();
			h->due = now / 1000u + hd.delay_ms;
			if (hd.rate != 0) {
				if (rate_clock < now) {
					rate_clock = now;
				}
				rate_clock +=
				    (uint64_t)len * 1000000u / hd.rate;
				if (h->due < rate_clock / 1000u) {
					h->due = rate_clock / 1000u;
				}
			}
			h->tolen = hd.tolen <= sizeof(h->to) ? hd.tolen : 0;
			h->to = hd.to;
			h->len = len;
			memcpy(h->data, buf + sizeof(hd), len);
			for (pp = &q; *pp != NULL && (*pp)->due <= h->due;
			     pp = &(*pp)->next) {
			}
			h->next = *pp;
			*pp = h;
		}
	}
}

int swrap_faults_dgram_relay(struct swrap_sock *s, int fd)
{
	int sv[2], saved = errno;

	if (libc_socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) !=
	    0) {
		return -1;
	}
	if (relay_spawn(sv, fd, saved) != 0) {
		return -1;
	}
	if (sv[1] < 0) {
		dgram_relay_run(s, sv[0], fd); /* the relay */
	}
	CWRAP_DEBUG("fd %d: a relay holds its datagrams (delay, rate)", fd);
	errno = saved;
	return sv[0];
}

void swrap_faults_dgram_hold(int chan, const struct msghdr *msg,
			     uint64_t delay_ms, uint64_t rate)
{
	struct dgram_hdr hd;
	struct iovec v[1 + MAX_IOV];
	struct msghdr m = {.msg_iov = v};
	int saved = errno;

	memset(&hd, 0, sizeof(hd));
	hd.delay_ms = delay_ms;
	hd.rate = rate;
	if (msg->msg_name != NULL && msg->msg_namelen != 0 &&
	    msg->msg_namelen <= sizeof(hd.to)) {
		memcpy(&hd.to, msg->msg_name, msg->msg_namelen);
		hd.tolen = msg->msg_namelen;
	}
	v[0].iov_base = &hd;
	v[0].iov_len = sizeof(hd);
	for (size_t i = 0; i < (size_t)msg->msg_iovlen && i < MAX_IOV; i++) {
		v[1 + i] = msg->msg_iov[i];
		m.msg_iovlen = 1 + i + 1;
	}
	if (m.msg_iovlen == 0) {
		m.msg_iovlen = 1;
	}
	/* a full relay drops it, as a full queue does */
	(void)libc_sendmsg(chan, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	errno = saved;
}
