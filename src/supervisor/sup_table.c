/*
 * The records of the supervised processes' emulated sockets, found by the
 * socket's inode: a process's descriptors come and go (dup, fork, exec,
 * close) without the supervisor seeing them, the socket stays the same.
 * The table holds one reference to each record; a sweep drops the records
 * of sockets that no process holds any more (the kernel, asked for each
 * inode with sock_diag, knows it no more), and removes their names if nobody took them since, as
 * socket_wrapper does at the last close of a shared name.
 * A sweep runs when the table has doubled since the last one, so its cost
 * stays linear in the sockets made. Guarded by `lock`;
 * calls into socket_wrapper's core are made without it, except the
 * reference counts (atomic).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUP_INTERNAL
#include "sup.h"

struct entry {
	ino_t ino; /* 0: free */
	struct swrap_sock *s;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *slots;
static size_t cap, used, swept_at;

static void forget(struct swrap_sock *s);

static size_t hash(ino_t ino, size_t n)
{
	return (size_t)((uint64_t)ino * 0x9e3779b97f4a7c15ull >> 17) & (n - 1);
}

static struct entry *find(ino_t ino)
{
	if (cap == 0) {
		return NULL;
	}
	for (size_t i = hash(ino, cap);; i = (i + 1) & (cap - 1)) {
		if (slots[i].ino == ino || slots[i].ino == 0) {
			return &slots[i];
		}
	}
}

static void put(struct entry *t, size_t n, const struct entry *e)
{
	size_t i = hash(e->ino, n);

	while (t[i].ino != 0) {
		i = (i + 1) & (n - 1);
	}
	t[i] = *e;
}

/* Room for one more at a load of at most a half. */
static bool grow(void)
{
	size_t n = cap == 0 ? 64 : cap * 2;
	struct entry *t;

	if ((used + 1) * 2 <= cap) {
		return true;
	}
	t = calloc(n, sizeof(*t));
	if (t == NULL) {
		return false;
	}
	for (size_t i = 0; i < cap; i++) {
		if (slots[i].ino != 0) {
			put(t, n, &slots[i]);
		}
	}
	free(slots);
	slots = t;
	cap = n;
	return true;
}

static ino_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) ? st.st_ino : 0;
}

struct swrap_sock *sup_table_get(int fd)
{
	ino_t ino = ino_of(fd);
	struct swrap_sock *s = NULL;
	struct entry *e;

	if (ino == 0) {
		return NULL;
	}
	pthread_mutex_lock(&lock);
	e = find(ino);
	if (e != NULL && e->ino == ino) {
		s = e->s;
		(void)swrap_sock_ref(s, false);
	}
	pthread_mutex_unlock(&lock);
	return s;
}

void sup_table_add(int fd, struct swrap_sock *s)
{
	ino_t ino = ino_of(fd);
	struct entry *e;
	bool sweep;

	if (ino == 0 || swrap_sock_ref(s, false) != 0) {
		return;
	}
	pthread_mutex_lock(&lock);
	e = grow() ? find(ino) : NULL;
	if (e == NULL) {
		pthread_mutex_unlock(&lock);
		swrap_sock_unref(s);
		return;
	}
	if (e->ino == ino) {
		/* an inode of a socket gone before a sweep saw it */
		struct swrap_sock *old = e->s;

		e->s = s;
		pthread_mutex_unlock(&lock);
		forget(old);
		return;
	}
	e->ino = ino;
	e->s = s;
	used++;
	sweep = used >= 64 && used >= 2 * swept_at;
	pthread_mutex_unlock(&lock);
	if (sweep) {
		sup_table_sweep(false);
	}
}

/* Whether the unix socket `ino` exists, asked of the kernel for that one
 * socket (sock_diag: a read of /proc/net/unix, or a dump, made while
 * other processes open and close sockets may skip live ones): 1 yes, 0
 * gone, -1 cannot tell. */
static int exists(int nl, ino_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} q;
	union {
		struct nlmsghdr nlh;
		char buf[1024];
	} a;
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST;
	q.req.sdiag_family = AF_UNIX;
	q.req.udiag_states = ~0u;
	q.req.udiag_ino = (__u32)ino;
	q.req.udiag_cookie[0] = q.req.udiag_cookie[1] = ~0u; /* any */
	if (send(nl, &q, sizeof(q), 0) != (ssize_t)sizeof(q)) {
		return -1;
	}
	do {
		n = recv(nl, &a, sizeof(a), 0);
	} while (n < 0 && errno == EINTR);
	if (n < (ssize_t)sizeof(a.nlh)) {
		return -1;
	}
	if (a.nlh.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
		return 1;
	}
	if (a.nlh.nlmsg_type == NLMSG_ERROR &&
	    n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		struct nlmsgerr e;

		memcpy(&e, NLMSG_DATA(&a.nlh), sizeof(e));
		return e.error == -ENOENT ? 0 : -1;
	}
	return -1;
}

/* The table's reference to the record of a socket gone, dropped. Its
 * name, if we bound it, is removed only when nobody is behind it: since
 * the socket went, another may have found the name dead and bound it
 * again (socket_wrapper's close() looks at a shared name the same way). */
static void forget(struct swrap_sock *s)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un path;
	bool ours, group;
	int type = s->type;

	swrap_lock();
	path = s->path;
	group = (s->flags & SWRAP_SOCK_GROUP) != 0;
	ours = path.sun_path[0] != '\0' && s->unlink_pid == swrap_pid();
	if (ours) {
		s->path.sun_path[0] = '\0'; /* (not removed at the last unref) */
	}
	swrap_unlock();
	swrap_sock_unref(s);
	if (ours && group) {
		swrap_group_closed(c, &path);
	} else if (ours) {
		swrap_sock_name_closed(c, &path, type);
	}
}

void sup_table_sweep(bool all)
{
	struct entry *list = NULL, *t = NULL;
	struct swrap_sock **gone = NULL;
	size_t n = 0, ngone = 0;
	int nl = -1;

	if (!all) {
		nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			    NETLINK_SOCK_DIAG);
		if (nl < 0) {
			/* (no sweep but the last: names stay until then) */
			return;
		}
	}
	/* The entries as they are now; the kernel asked without the lock. */
	pthread_mutex_lock(&lock);
	list = malloc((used + 1) * sizeof(*list));
	for (size_t i = 0; list != NULL && i < cap; i++) {
		if (slots[i].ino != 0) {
			list[n++] = slots[i];
		}
	}
	pthread_mutex_unlock(&lock);
	if (list == NULL) {
		goto out;
	}
	/* A socket being bound meanwhile moves from one hash bucket of the
	 * kernel's to another, and a look-up walking the buckets may miss it
	 * once; a socket gone stays gone: gone is said twice. */
	for (size_t i = 0; i < n; i++) {
		if (!all && (exists(nl, list[i].ino) != 0 ||
			     exists(nl, list[i].ino) != 0)) {
			list[i].ino = 0; /* (kept) */
		}
	}
	/* Those gone are taken out, unless their slot names another record
	 * by now; the survivors go into a new table of the same size (an
	 * open-addressing table cannot have holes punched in it). */
	pthread_mutex_lock(&lock);
	gone = malloc((n + 1) * sizeof(*gone));
	t = calloc(cap, sizeof(*t));
	if (gone == NULL || t == NULL) {
		pthread_mutex_unlock(&lock);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct entry *e = list[i].ino != 0 ? find(list[i].ino) : NULL;

		if (e != NULL && e->ino == list[i].ino && e->s == list[i].s) {
			gone[ngone++] = e->s;
			e->s = NULL;
		}
	}
	for (size_t i = 0; i < cap; i++) {
		if (slots[i].ino != 0 && slots[i].s != NULL) {
			put(t, cap, &slots[i]);
		}
	}
	free(slots);
	slots = t;
	t = NULL;
	used -= ngone;
	swept_at = used;
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < ngone; i++) {
		forget(gone[i]);
	}
out:
	if (nl >= 0) {
		close(nl);
	}
	free(list);
	free(gone);
	free(t);
}
