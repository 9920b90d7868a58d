/*
 * The records of the supervised processes' emulated sockets, found by the
 * socket's inode: a process's descriptors come and go (dup, fork, exec,
 * close) without the supervisor seeing them, the socket stays the same.
 * The table holds one reference to each record; a sweep drops the records
 * of sockets that no process holds any more (their inodes gone from
 * /proc/net/unix), which removes their names as socket_wrapper does at
 * the last close. A sweep runs when the table has doubled since the last
 * one, so its cost stays linear in the sockets made. Guarded by `lock`;
 * calls into socket_wrapper's core are made without it, except the
 * reference counts (atomic).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SUP_INTERNAL
#include "sup.h"

struct entry {
	ino_t ino; /* 0: free */
	struct swrap_sock *s;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *slots;
static size_t cap, used, swept_at;

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

static void put(struct entry *t, size_t n, ino_t ino, struct swrap_sock *s)
{
	size_t i = hash(ino, n);

	while (t[i].ino != 0) {
		i = (i + 1) & (n - 1);
	}
	t[i].ino = ino;
	t[i].s = s;
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
			put(t, n, slots[i].ino, slots[i].s);
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
		swrap_sock_unref(old);
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

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;

	return x < y ? -1 : x > y;
}

/* The inodes of the unix sockets that exist, sorted; NULL on failure. */
static ino_t *live_inodes(size_t *n)
{
	FILE *f = fopen("/proc/net/unix", "re");
	size_t k = 0, room = 256;
	ino_t *v = malloc(room * sizeof(*v));
	char line[512];

	if (f == NULL || v == NULL) {
		if (f != NULL) {
			fclose(f);
		}
		free(v);
		return NULL;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long ino;

		/* Num RefCount Protocol Flags Type St Inode [Path] */
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &ino) != 1) {
			continue;
		}
		if (k == room) {
			ino_t *w = realloc(v, 2 * room * sizeof(*v));

			if (w == NULL) {
				free(v);
				fclose(f);
				return NULL;
			}
			v = w;
			room *= 2;
		}
		v[k++] = (ino_t)ino;
	}
	fclose(f);
	qsort(v, k, sizeof(*v), cmp_ino);
	*n = k;
	return v;
}

void sup_table_sweep(bool all)
{
	struct swrap_sock **gone = NULL;
	struct entry *t = NULL;
	ino_t *live = NULL;
	size_t nlive = 0, ngone = 0;

	if (!all && (live = live_inodes(&nlive)) == NULL) {
		return;
	}
	pthread_mutex_lock(&lock);
	/* Survivors go into a new table of the same size (an
	 * open-addressing table cannot have holes punched in it). */
	if (cap > 0) {
		gone = malloc((used + 1) * sizeof(*gone));
		t = calloc(cap, sizeof(*t));
	}
	if (gone == NULL || t == NULL) {
		pthread_mutex_unlock(&lock);
		free(gone);
		free(t);
		free(live);
		return;
	}
	for (size_t i = 0; i < cap; i++) {
		ino_t ino = slots[i].ino;

		if (ino == 0) {
			continue;
		}
		if (!all &&
		    bsearch(&ino, live, nlive, sizeof(*live), cmp_ino) != NULL) {
			put(t, cap, ino, slots[i].s);
		} else {
			gone[ngone++] = slots[i].s;
		}
	}
	free(slots);
	slots = t;
	used -= ngone;
	swept_at = used;
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < ngone; i++) {
		swrap_sock_unref(gone[i]);
	}
	free(gone);
	free(live);
}
