/*
 * The notifications: a thread reads them from the listener one after
 * another and answers each at once, or, for a call that may have to wait
 * for another process (accept on a blocking socket, say), hands it to a
 * thread of its own, so that one waiting call never holds up the others.
 * Also the means of answering: replies, descriptors put into the
 * process, its memory, our copies of its descriptors. A call's process
 * is named by the thread id the kernel reports; every answer and every
 * descriptor taken goes through the kernel's check that the call is
 * still waited for (a process that died or was interrupted by a signal
 * takes nothing of ours).
 *
 * State: the listener and the serving thread (set once by
 * sup_serve_start); each struct sup_call belongs to the one thread that
 * answers it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cwrap_log.h"

#define SUP_INTERNAL
#include "sup.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* How often a waiting call looks whether its process is still there. */
#define WAIT_STEP_MS 100

/* The order of a process's calls: one thread of the process makes them
 * one after another, and we may answer them in different threads of
 * ours. What one answer wrote into socket_wrapper's records is seen by
 * the next call through the kernel (our reply, its next call, our
 * receipt), which a thread sanitizer cannot see; this lock, taken before
 * each reply and after each receipt, says so. (Two threads of a process
 * calling at once on one socket race as they would preloaded.) */
static pthread_mutex_t order = PTHREAD_MUTEX_INITIALIZER;

static void order_point(void)
{
	pthread_mutex_lock(&order);
	pthread_mutex_unlock(&order);
}

void sup_reply(struct sup_call *c, long val)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof(r));
	r.id = c->n.id;
	if (val < 0) {
		r.error = (int)val;
	} else {
		r.val = val;
	}
	order_point();
	/* (ENOENT: the call is not waited for any more) */
	(void)ioctl(c->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

void sup_continue(struct sup_call *c)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof(r));
	r.id = c->n.id;
	r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	order_point();
	(void)ioctl(c->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

int sup_reply_fd(struct sup_call *c, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof(a));
	a.id = c->n.id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (unsigned)fd;
	a.newfd_flags = cloexec ? O_CLOEXEC : 0;
	order_point();
	return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 ? -errno
								      : 0;
}

bool sup_call_valid(const struct sup_call *c)
{
	__u64 id = c->n.id;

	return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

int sup_read(const struct sup_call *c, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = {buf, n}, r = {(void *)(uintptr_t)addr, n};

	if (n == 0) {
		return 0;
	}
	return process_vm_readv(c->n.pid, &l, 1, &r, 1, 0) == (ssize_t)n
		   ? 0
		   : -EFAULT;
}

int sup_write(const struct sup_call *c, uint64_t addr, const void *buf,
	      size_t n)
{
	struct iovec l = {(void *)buf, n}, r = {(void *)(uintptr_t)addr, n};

	if (n == 0) {
		return 0;
	}
	return process_vm_writev(c->n.pid, &l, 1, &r, 1, 0) == (ssize_t)n
		   ? 0
		   : -EFAULT;
}

/* The thread group of thread `tid`, from /proc. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (f == NULL) {
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Tgid: %d", &tgid) == 1) {
			break;
		}
	}
	fclose(f);
	return tgid;
}

static int open_pidfd(pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, 0);

	if (fd < 0 && (errno == EINVAL || errno == ENOENT)) {
		/* not a thread group's leader (EINVAL, or ENOENT since Linux
		 * 6.9): 6.9 takes the thread, before it the process is
		 * looked up */
		fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
		if (fd < 0 && errno == EINVAL) {
			pid_t tgid = tgid_of(tid);

			fd = tgid > 0 ? (int)syscall(SYS_pidfd_open, tgid, 0)
				      : -1;
		}
	}
	return fd;
}

int sup_fd_of(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), copy, e;

	if (pidfd < 0) {
		return -1;
	}
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	e = errno;
	close(pidfd);
	errno = e;
	return copy;
}

int sup_take_fd(struct sup_call *c, int fd)
{
	if (c->pidfd < 0) {
		c->pidfd = open_pidfd((pid_t)c->n.pid);
		/* the thread id may have been reused since the call */
		if (c->pidfd < 0 || !sup_call_valid(c)) {
			return -EINTR;
		}
	}
	c->fd = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);
	return c->fd < 0 ? -errno : 0;
}

int sup_wait(struct sup_call *c, short events, long timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {c->fd, events, 0};
		long step = WAIT_STEP_MS, spent;

		if (timeout_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			spent = (t.tv_sec - t0.tv_sec) * 1000 +
				(t.tv_nsec - t0.tv_nsec) / 1000000;
			if (spent >= timeout_ms) {
				return -EAGAIN;
			}
			if (timeout_ms - spent < step) {
				step = timeout_ms - spent;
			}
		}
		if (poll(&p, 1, (int)step) > 0) {
			return 0;
		}
		if (!sup_call_valid(c)) {
			return -EINTR;
		}
	}
}

static void call_free(struct sup_call *c)
{
	if (c->s != NULL) {
		swrap_sock_unref(c->s);
	}
	if (c->fd >= 0) {
		close(c->fd);
	}
	if (c->pidfd >= 0) {
		close(c->pidfd);
	}
	free(c);
}

/* Calls answered in threads of their own, still running (their copies of
 * descriptors keep sockets alive): the end waits for them. */
static pthread_mutex_t waiting_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t waiting_done = PTHREAD_COND_INITIALIZER;
static unsigned waiting;

static void *waiting_call(void *arg)
{
	struct sup_call *c = arg;

	sup_net_call(c);
	call_free(c);
	pthread_mutex_lock(&waiting_lock);
	if (--waiting == 0) {
		pthread_cond_broadcast(&waiting_done);
	}
	pthread_mutex_unlock(&waiting_lock);
	return NULL;
}

/* At the end: the waiting calls see within WAIT_STEP_MS that their
 * process is gone; one stuck in the kernel (a connect to a full backlog
 * of a process outside) is not waited for past a few seconds. */
static void waiting_calls_end(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&waiting_lock);
	while (waiting > 0 &&
	       pthread_cond_timedwait(&waiting_done, &waiting_lock, &until) == 0) {
	}
	pthread_mutex_unlock(&waiting_lock);
}

static pthread_t server;
static int listener = -1;

static void *serve(void *arg)
{
	pthread_attr_t attr;

	(void)arg;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (;;) {
		struct pollfd p = {listener, POLLIN, 0};
		struct sup_call *c;
		pthread_t t;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		if (!(p.revents & POLLIN)) {
			break; /* POLLHUP: no supervised process is left */
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			CWRAP_ERROR("supervisor: out of memory");
			continue;
		}
		c->listener = listener;
		c->pidfd = -1;
		c->fd = -1;
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &c->n) != 0) {
			/* ENOENT: the caller went away meanwhile */
			free(c);
			continue;
		}
		order_point();
		if (sup_net_may_block(c)) {
			pthread_mutex_lock(&waiting_lock);
			waiting++;
			pthread_mutex_unlock(&waiting_lock);
			if (pthread_create(&t, &attr, waiting_call, c) == 0) {
				continue;
			}
			pthread_mutex_lock(&waiting_lock);
			waiting--;
			pthread_mutex_unlock(&waiting_lock);
		}
		sup_net_call(c);
		call_free(c);
	}
	pthread_attr_destroy(&attr);
	waiting_calls_end();
	sup_table_sweep(true);
	return NULL;
}

int sup_serve_start(int fd)
{
	sigset_t all, old;
	int err;

	listener = fd;
	/* The process's signals are for its other threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&server, NULL, serve, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void sup_serve_finish(void)
{
	struct pollfd p = {listener, POLLIN, 0};

	if (listener < 0) {
		return;
	}
	/* Once the last supervised process is reaped the listener hangs
	 * up; while a process it started lives on, the server thread
	 * stays (and ends with this process). */
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP)) {
		pthread_join(server, NULL);
		close(listener);
		listener = -1;
	}
}

void sup_serve_wait(void)
{
	if (listener >= 0) {
		pthread_join(server, NULL);
		close(listener);
		listener = -1;
	}
}
