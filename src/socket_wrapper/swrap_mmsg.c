/*
 * sendmmsg() and recvmmsg() on emulated sockets: one sendmsg()/recvmsg()
 * of the wrapper per message, so every message gets the address
 * translation, ancillary data and capture of a single call, with the
 * kernel's rules for the batch (the count of messages done; an error only
 * if the first fails; MSG_WAITFORONE; the timeout checked after each
 * message). Stateless.
 */
#include <errno.h>
#include <sys/uio.h>
#include <time.h>

#include "swrap.h"

int swrap_sendmmsg(struct swrap_sock *s, int fd, struct mmsghdr *vec,
		   unsigned int vlen, int flags)
{
	unsigned int i;

	if (vlen > UIO_MAXIOV) {
		vlen = UIO_MAXIOV;
	}
	for (i = 0; i < vlen; i++) {
		ssize_t r = swrap_sendmsg(s, fd, &vec[i].msg_hdr, flags);

		if (r < 0) {
			if (i == 0) {
				return -1;
			}
			break;
		}
		vec[i].msg_len = (unsigned int)r;
	}
	return (int)i;
}

static bool timespec_passed(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end->tv_sec ||
	       (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec);
}

int swrap_recvmmsg(struct swrap_sock *s, int fd, struct mmsghdr *vec,
		   unsigned int vlen, int flags, struct timespec *timeout)
{
	struct timespec end;
	unsigned int i;

	if (timeout != NULL) {
		if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
		    timeout->tv_nsec >= 1000000000L) {
			errno = EINVAL;
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec;
		end.tv_nsec += timeout->tv_nsec;
		if (end.tv_nsec >= 1000000000L) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000L;
		}
	}
	if (vlen > UIO_MAXIOV) {
		vlen = UIO_MAXIOV;
	}
	for (i = 0; i < vlen; i++) {
		ssize_t r = swrap_recvmsg(s, fd, &vec[i].msg_hdr,
					  flags & ~MSG_WAITFORONE);

		if (r < 0) {
			if (i == 0) {
				return -1;
			}
			break;
		}
		vec[i].msg_len = (unsigned int)r;
		if (flags & MSG_WAITFORONE) {
			flags |= MSG_DONTWAIT;
		}
		if (timeout != NULL && timespec_passed(&end)) {
			i++;
			break;
		}
	}
	return (int)i;
}
