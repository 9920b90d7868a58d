/*
 * Data the kernel would move by itself between an emulated socket and a
 * file or pipe: sendfile() to a socket, splice() between a socket and a
 * pipe, preadv2()/pwritev2() at the current position. While capture or
 * SOCKET_WRAPPER_FAULTS is in force they go, in chunks, through the
 * wrapper's own sendmsg()/recvmsg() (swrap_io.c), so that the rules
 * (slice, close after, reset, delay...) and the capture see them as they
 * see a write(); otherwise the real call is made untouched. No state.
 *
 * A chunk taken from a pipe is only consumed once the socket took it (the
 * pipe is read ahead with tee()), and one bound for a pipe is only read
 * from the socket when the pipe has room: no byte is lost to a short
 * write. From a file, what the socket did not take stays for the next
 * call (the file position or *offset says where).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cwrap_config.h"
#include "swrap.h"
#include "faults/swrap_faults.h"
#include "swrap_libc.h"
#include "capture/swrap_pcap.h"

#define CHUNK 16384

bool swrap_copy_watched(void)
{
	return swrap_pcap_enabled() || swrap_faults_armed();
}

static ssize_t send_buf(struct swrap_sock *s, int fd, void *buf, size_t n,
			int flags)
{
	struct iovec v = {.iov_base = buf, .iov_len = n};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};

	return swrap_sendmsg(s, fd, &m, flags);
}

/* All of buf to the socket (a pipe's bytes, read already, cannot go
 * back): waits for room even on a non-blocking socket. */
static ssize_t send_all(struct swrap_sock *s, int fd, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = send_buf(s, fd, buf + done, n - done, 0);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};

			(void)poll(&p, 1, -1);
			continue;
		}
		if (w < 0) {
			return done > 0 ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

ssize_t swrap_sendfile(struct swrap_sock *s, int out, int in, int64_t *off,
		       size_t count)
{
	char buf[CHUNK];
	int64_t pos = off != NULL ? *off : lseek64(in, 0, SEEK_CUR);
	bool seekable = pos >= 0;
	size_t done = 0;

	if (!seekable && errno != ESPIPE) {
		return -1;
	}
	while (done < count) {
		size_t want = count - done < CHUNK ? count - done : CHUNK;
		ssize_t n = seekable
				? pread64(in, buf, want, pos + (int64_t)done)
				: libc_read(in, buf, want);
		ssize_t w;

		if (n <= 0) {
			if (n < 0 && done == 0) {
				return -1;
			}
			break;
		}
		w = seekable ? send_buf(s, out, buf, (size_t)n, 0)
			     : send_all(s, out, buf, (size_t)n);
		if (w < 0) {
			if (done == 0) {
				return -1;
			}
			break;
		}
		done += (size_t)w;
		if (w < n) {
			break; /* a short write, or the socket is full */
		}
	}
	if (off != NULL) {
		*off = pos + (int64_t)done;
	} else if (seekable) {
		(void)lseek64(in, pos + (int64_t)done, SEEK_SET);
	}
	return (ssize_t)done;
}

/* splice() from the pipe `in` to the socket `out`. */
ssize_t swrap_splice_to(struct swrap_sock *s, int in, int out, size_t len,
			unsigned flags)
{
	char buf[CHUNK];
	struct pollfd p = {.fd = in, .events = POLLIN};
	int tp[2];
	ssize_t k, w;

	if (pipe2(tp, O_CLOEXEC | O_NONBLOCK) != 0) {
		return -1;
	}
	for (;;) {
		k = tee(in, tp[1], len < CHUNK ? len : CHUNK,
			SPLICE_F_NONBLOCK);
		if (k >= 0 || errno != EAGAIN || (flags & SPLICE_F_NONBLOCK) ||
		    (libc_ptr_fcntl()(in, F_GETFL) & O_NONBLOCK)) {
			break;
		}
		(void)poll(&p, 1, -1);
	}
	w = k > 0 ? libc_read(tp[0], buf, (size_t)k) : k;
	libc_close(tp[0]);
	libc_close(tp[1]);
	if (w <= 0) {
		return w; /* 0: no writer left; -1: errno of tee() */
	}
	w = send_buf(s, out, buf, (size_t)w, 0);
	if (w > 0) {
		/* now the socket took them: consumed from the pipe */
		(void)libc_read(in, buf, (size_t)w);
	}
	return w;
}

/* splice() from the socket `in` to the pipe `out`. */
ssize_t swrap_splice_from(struct swrap_sock *s, int in, int out, size_t len,
			  unsigned flags)
{
	char buf[CHUNK];
	int cap = libc_ptr_fcntl()(out, F_GETPIPE_SZ), used = 0;
	size_t want = len < CHUNK ? len : CHUNK, done = 0;
	struct iovec v = {.iov_base = buf};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
	ssize_t r;

	if (cap < 0) {
		return -1;
	}
	if (libc_ptr_ioctl()(out, FIONREAD, &used) == 0 &&
	    cap - used < (int)want) {
		want = cap > used ? (size_t)(cap - used) : 0;
	}
	if (want == 0) {
		struct pollfd p = {.fd = out, .events = POLLOUT};

		if ((flags & SPLICE_F_NONBLOCK) ||
		    (libc_ptr_fcntl()(out, F_GETFL) & O_NONBLOCK)) {
			errno = EAGAIN;
			return -1;
		}
		(void)poll(&p, 1, -1);
		want = len < 4096 ? len : 4096; /* a pipe page at least */
	}
	v.iov_len = want;
	r = swrap_recvmsg(s, in, &m,
			  (flags & SPLICE_F_NONBLOCK) ? MSG_DONTWAIT : 0);
	while (r > 0 && done < (size_t)r) {
		ssize_t w = libc_write(out, buf + done, (size_t)r - done);

		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			break;
		}
		if (w < 0) {
			struct pollfd p = {.fd = out, .events = POLLOUT};

			(void)poll(&p, 1, -1);
			continue;
		}
		done += (size_t)w;
	}
	return r;
}

#ifdef HAVE_PREADV2
/* preadv2()/pwritev2() at the current position (offset -1). */
ssize_t swrap_rwv2(struct swrap_sock *s, int fd, const struct iovec *iov,
		   int cnt, int flags, bool out)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov,
			   .msg_iovlen = cnt < 0 ? 0 : (size_t)cnt};
	int mf = (flags & RWF_NOWAIT) ? MSG_DONTWAIT : 0;

	if (cnt < 0) {
		errno = EINVAL;
		return -1;
	}
	return out ? swrap_sendmsg(s, fd, &m, mf) : swrap_recvmsg(s, fd, &m, mf);
}
#endif
