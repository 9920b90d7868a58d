/*
 * IPPROTO_TCP options of emulated TCP sockets: what a kernel TCP socket
 * on loopback would answer. TCP_INFO is a `struct tcp_info` (the
 * kernel's layout, from <linux/tcp.h>) whose state follows the emulated
 * connection and whose sizes follow SOCKET_WRAPPER_MTU; the settable
 * options are checked with the kernel's ranges and read back as the
 * kernel normalises them. Values are kept in the record's remembered
 * options (swrap_lock(), through swrap_sock.c); no state of its own.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "cwrap_platform.h"
#include "swrap.h"
#include "swrap_libc.h"

/* The kernel's struct tcp_info: <linux/tcp.h> has the whole of it (glibc's
 * <netinet/tcp.h> lacks the newer fields and clashes with it); where the
 * kernel headers are not on the path (musl-gcc), the libc's <netinet/tcp.h>
 * carries the kernel's layout and the state names. */
#ifdef HAVE_LINUX_TCP_H
#include <linux/tcp.h>

/* The kernel's TCP states (include/net/tcp_states.h; <linux/tcp.h> does
 * not export them). */
enum {
	TCP_ESTABLISHED = 1,
	TCP_FIN_WAIT2 = 5,
	TCP_CLOSE = 7,
	TCP_CLOSE_WAIT = 8,
	TCP_LISTEN = 10,
};
#else
#include <netinet/tcp.h>
#endif

/* IPv4 + TCP headers + timestamps (20 + 20 + 12); IPv6: 40 + 20 + 12. */
static unsigned mss_of(const struct swrap_sock *s)
{
	return (unsigned)s->conf->mtu - (s->family == AF_INET6 ? 72u : 52u);
}

/* The kernel's state of a TCP socket in the emulated connection's
 * place: LISTEN, CLOSE before connect() and once both sides shut down,
 * FIN_WAIT2 / CLOSE_WAIT while only one side did (the peer's FIN is what
 * the unix socket reports as POLLRDHUP). */
static int tcp_state(const struct swrap_sock *s, int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};
	bool ours, theirs;

	if (s->flags & SWRAP_SOCK_LISTENING) {
		return TCP_LISTEN;
	}
	if (!(s->flags & SWRAP_SOCK_CONNECTED)) {
		return TCP_CLOSE;
	}
	ours = (s->flags & SWRAP_SOCK_SHUT_WR) != 0;
	theirs = poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP));
	if (ours && theirs) {
		return TCP_CLOSE;
	}
	if (ours) {
		return TCP_FIN_WAIT2;
	}
	return theirs ? TCP_CLOSE_WAIT : TCP_ESTABLISHED;
}

static void tcp_info_fill(const struct swrap_sock *s, int fd,
			  struct tcp_info *ti)
{
	int state = tcp_state(s, fd);
	unsigned mss = mss_of(s);

	memset(ti, 0, sizeof(*ti));
	ti->tcpi_state = (uint8_t)state;
	ti->tcpi_snd_cwnd = 10;
	ti->tcpi_reordering = 3;
	if (state == TCP_LISTEN) {
		ti->tcpi_sacked = (uint32_t)s->backlog; /* as the kernel */
		return;
	}
	ti->tcpi_snd_ssthresh = 0x7fffffff; /* TCP_INFINITE_SSTHRESH */
	if (state == TCP_CLOSE && !(s->flags & SWRAP_SOCK_CONNECTED)) {
		/* Never connected: the kernel's initial values. */
		ti->tcpi_rto = 1000000;
		ti->tcpi_snd_mss = 536;
		ti->tcpi_rttvar = 250000;
		return;
	}
	ti->tcpi_options =
	    TCPI_OPT_TIMESTAMPS | TCPI_OPT_SACK | TCPI_OPT_WSCALE;
	ti->tcpi_snd_wscale = 7;
	ti->tcpi_rcv_wscale = 7;
	ti->tcpi_rto = 200000; /* TCP_RTO_MIN, as on loopback */
	ti->tcpi_ato = 40000;
	ti->tcpi_snd_mss = mss;
	ti->tcpi_rcv_mss = mss;
	ti->tcpi_pmtu = (uint32_t)s->conf->mtu;
	ti->tcpi_advmss = mss;
	ti->tcpi_rtt = 50;
	ti->tcpi_rttvar = 25;
	ti->tcpi_min_rtt = 50;
	ti->tcpi_rcv_ssthresh = 65535;
	ti->tcpi_rcv_space = 65535;
	ti->tcpi_snd_wnd = 65535;
}

int swrap_tcp_getsockopt(struct swrap_sock *s, int fd, int name, void *val,
			 socklen_t *len)
{
	struct tcp_info ti;
	socklen_t l;
	int v;

	if (name == TCP_INFO) {
		tcp_info_fill(s, fd, &ti);
		l = *len < sizeof(ti) ? *len : (socklen_t)sizeof(ti);
		memcpy(val, &ti, l);
		*len = l;
		return 1;
	}
	if (name == TCP_MAXSEG) {
		bool set =
		    swrap_sock_opt_int(s, IPPROTO_TCP, name, &v) && v != 0;

		if (!(s->flags & SWRAP_SOCK_CONNECTED) ||
		    (s->flags & SWRAP_SOCK_LISTENING)) {
			v = set ? v : 536; /* TCP_MSS_DEFAULT */
		} else if (!set || (unsigned)v > mss_of(s)) {
			v = (int)mss_of(s);
		}
		l = *len < sizeof(v) ? *len : (socklen_t)sizeof(v);
		memcpy(val, &v, l);
		*len = l;
		return 1;
	}
	return 0;
}

int swrap_tcp_setsockopt_value(int name, int *v)
{
	switch (name) {
	case TCP_NODELAY:
	case TCP_CORK:
	case TCP_QUICKACK:
		*v = *v != 0; /* read back as 0 or 1 */
		return 0;
	case TCP_MAXSEG:
		return *v != 0 && (*v < 88 || *v > 32767) ? EINVAL : 0;
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
		return *v < 1 || *v > 32767 ? EINVAL : 0;
	case TCP_KEEPCNT:
		return *v < 1 || *v > 127 ? EINVAL : 0;
	case TCP_USER_TIMEOUT:
		return *v < 0 ? EINVAL : 0;
	default:
		return 0;
	}
}
