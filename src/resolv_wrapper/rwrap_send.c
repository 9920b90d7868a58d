/*
 * Sending a query to the nameservers of RESOLV_WRAPPER_CONF, as glibc's
 * res_send does: each server in turn (from a rotating start with `options
 * rotate`), `attempts` rounds, `timeout` seconds per try; UDP first, TCP
 * when the answer comes back truncated (unless RES_IGNTC) or with `use-vc`;
 * an answer is taken only if its id and question match the query, and a
 * SERVFAIL, NOTIMP or REFUSED one only when no other server answers better.
 *
 * The socket calls here (socket, connect, send, recv, poll, close) are
 * plain calls to the process's global definitions, not to libc's through
 * RTLD_NEXT as everywhere else: with socket_wrapper preloaded, before or
 * after this library, they are socket_wrapper's, so a query to 127.0.0.N
 * reaches the server that runs on that emulated address. No state apart
 * from the rotation counter (an atomic).
 */
#include "rwrap.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static unsigned rwrap_rotation;

static long rwrap_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for `events` on fd until the deadline: 1 ready, 0 timed out. */
static int rwrap_wait(int fd, short events, long deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		long left = deadline - rwrap_now_ms();
		int rc;

		if (left <= 0) {
			return 0;
		}
		rc = poll(&p, 1, (int)left);
		if (rc < 0 && errno == EINTR) {
			continue;
		}
		return rc < 0 ? -1 : rc;
	}
}

/* Whether `ans` answers `q`: same id, a response, the same question. */
static bool rwrap_matches(const uint8_t *q, size_t qlen, const uint8_t *ans,
			  size_t alen)
{
	struct rwrap_question a, b;

	if (alen < 12 || ans[0] != q[0] || ans[1] != q[1] ||
	    (ans[2] & 0x80) == 0) {
		return false;
	}
	if ((ans[4] << 8 | ans[5]) == 0) {
		/* some servers leave the question out of an error */
		return (ans[3] & 0x0f) != ns_r_noerror;
	}
	return rwrap_parse_question(q, qlen, &a) &&
	       rwrap_parse_question(ans, alen, &b) && a.qtype == b.qtype &&
	       a.qclass == b.qclass && strcasecmp(a.name, b.name) == 0;
}

/* One try over UDP: the answer's length, 0 on timeout, -1 errno. */
static int rwrap_udp(const struct sockaddr *sa, socklen_t salen,
		     const uint8_t *q, size_t qlen, uint8_t *buf, int timeout)
{
	long deadline = rwrap_now_ms() + timeout * 1000L;
	int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1, saved;

	if (fd < 0) {
		return -1;
	}
	if (connect(fd, sa, salen) != 0 ||
	    send(fd, q, qlen, MSG_NOSIGNAL) != (ssize_t)qlen) {
		goto out;
	}
	for (;;) {
		ssize_t n;

		rc = rwrap_wait(fd, POLLIN, deadline);
		if (rc <= 0) {
			goto out;
		}
		n = recv(fd, buf, RWRAP_MAXMSG, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			continue;
		}
		if (n < 0) {
			rc = -1;
			goto out;
		}
		if (rwrap_matches(q, qlen, buf, (size_t)n)) {
			rc = (int)n;
			goto out;
		}
		CWRAP_DEBUG("an answer that does not match the query, ignored");
	}
out:
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

static bool rwrap_io(int fd, bool out, void *p, size_t len, long deadline)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		int rc = rwrap_wait(fd, out ? POLLOUT : POLLIN, deadline);

		if (rc <= 0) {
			if (rc == 0) {
				errno = ETIMEDOUT;
			}
			return false;
		}
		n = out ? send(fd, (uint8_t *)p + done, len - done,
			       MSG_NOSIGNAL)
			: recv(fd, (uint8_t *)p + done, len - done, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			continue;
		}
		if (n <= 0) {
			if (n == 0) {
				errno = ECONNRESET;
			}
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

/* One try over TCP (RFC 1035 4.2.2: a two-byte length first). */
static int rwrap_tcp(const struct sockaddr *sa, socklen_t salen,
		     const uint8_t *q, size_t qlen, uint8_t *buf, int timeout)
{
	long deadline = rwrap_now_ms() + timeout * 1000L;
	struct timeval tv = {.tv_sec = timeout};
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	uint8_t len[2] = {(uint8_t)(qlen >> 8), (uint8_t)qlen};
	int rc = -1, saved;

	if (fd < 0) {
		return -1;
	}
	/* a bounded connect() to a real address that does not answer */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, sa, salen) != 0 ||
	    !rwrap_io(fd, true, len, 2, deadline) ||
	    !rwrap_io(fd, true, (void *)q, qlen, deadline)) {
		goto out;
	}
	for (;;) {
		size_t n;

		if (!rwrap_io(fd, false, len, 2, deadline)) {
			goto out;
		}
		n = (size_t)(len[0] << 8 | len[1]);
		if (!rwrap_io(fd, false, buf, n, deadline)) {
			goto out;
		}
		if (rwrap_matches(q, qlen, buf, n)) {
			rc = (int)n;
			break;
		}
	}
out:
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int rwrap_send(const struct rwrap_conf *c, bool usevc, bool igntc,
	       const uint8_t *q, size_t qlen, uint8_t *ans, size_t cap)
{
	uint8_t *buf, *poor = NULL;
	int err = ETIMEDOUT, poorlen = 0, n = -1;
	unsigned start = 0;

	if (c->nns == 0) {
		CWRAP_DEBUG("no nameserver to ask");
		errno = ECONNREFUSED;
		return -1;
	}
	buf = malloc(RWRAP_MAXMSG);
	if (buf == NULL) {
		return -1;
	}
	if (c->rotate) {
		start =
		    __atomic_fetch_add(&rwrap_rotation, 1, __ATOMIC_RELAXED);
	}
	for (int t = 0; t < c->attempts; t++) {
		for (int k = 0; k < c->nns; k++) {
			int i = (int)((start + (unsigned)k) % (unsigned)c->nns);
			const struct sockaddr *sa =
			    (const struct sockaddr *)&c->ns[i];
			int rc;

			n = usevc ? rwrap_tcp(sa, c->nslen[i], q, qlen, buf,
					      c->timeout)
				  : rwrap_udp(sa, c->nslen[i], q, qlen, buf,
					      c->timeout);
			if (n > 0 && !usevc && (buf[2] & 0x02) != 0 && !igntc) {
				CWRAP_DEBUG(
				    "truncated answer, asking over TCP");
				n = rwrap_tcp(sa, c->nslen[i], q, qlen, buf,
					      c->timeout);
			}
			if (n <= 0) {
				/* the last reason wins: refused or timed out */
				if (n == 0) {
					err = ETIMEDOUT;
				} else if (errno == ECONNREFUSED) {
					err = ECONNREFUSED;
				} else {
					CWRAP_DEBUG("nameserver %d: %s", i,
						    strerror(errno));
				}
				continue;
			}
			rc = buf[3] & 0x0f;
			if ((rc == ns_r_servfail || rc == ns_r_notimpl ||
			     rc == ns_r_refused) &&
			    (k + 1 < c->nns || t + 1 < c->attempts)) {
				if (poor == NULL) {
					poor = malloc((size_t)n);
					if (poor != NULL) {
						memcpy(poor, buf, (size_t)n);
						poorlen = n;
					}
				}
				continue;
			}
			goto done;
		}
	}
	if (poor != NULL) {
		memcpy(buf, poor, (size_t)poorlen);
		n = poorlen;
		goto done;
	}
	free(buf);
	errno = err;
	return -1;
done:
	if ((size_t)n > cap) {
		n = (int)cap;
		if (cap > 2) {
			buf[2] |= 0x02;
		}
	}
	memcpy(ans, buf, (size_t)n);
	free(buf);
	free(poor);
	return n;
}
