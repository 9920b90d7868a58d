/*
 * uwrap_threads: the process-wide ids, the per-thread copies and their
 * hand-over to new threads (see uwrap_threads.h).
 *
 * Locking: uwrap_proc.lock (a mutex) serialises writers of uwrap_proc and
 * is held across fork (atfork handlers), so a child never inherits a
 * half-written record. The list of thread hand-over snapshots is
 * lock-free (see below). Readers use the sequence counter uwrap_proc_seq
 * (odd while a writer is inside) and copy with atomic loads, retrying if
 * the counter moved; they never block a writer or each other. A thread's
 * TLS copy (uwrap_tls) is touched only by its own thread.
 */
#include "uwrap_threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cwrap_log.h"

__thread struct uwrap_thread uwrap_tls
    __attribute__((tls_model("initial-exec")));

/* Starts even and non-zero, so a thread that never synced (seen == 0)
 * takes the slow path, which initialises the record first. */
uint64_t uwrap_proc_seq = 2;

static struct {
	pthread_mutex_t lock;
	uint64_t gen_uid, gen_gid, gen_groups; /* seq of the last change */
	uint32_t uid[3], gid[3];
	uint32_t ngroups;
	uint32_t *groups; /* small, or big once a list did not fit */
	uint32_t small[UWRAP_INLINE_GROUPS];
} uwrap_proc = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .groups = uwrap_proc.small,
};

static pthread_once_t uwrap_proc_once = PTHREAD_ONCE_INIT;
static pthread_key_t uwrap_heap_key;

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static void uwrap_lock(void)
{
	int rc = pthread_mutex_lock(&uwrap_proc.lock);

	if (rc != 0) {
		CWRAP_FATAL("pthread_mutex_lock: %s", strerror(rc));
	}
}

static void uwrap_unlock(void)
{
	int rc = pthread_mutex_unlock(&uwrap_proc.lock);

	if (rc != 0) {
		CWRAP_FATAL("pthread_mutex_unlock: %s", strerror(rc));
	}
}

static void uwrap_atfork_child(void)
{
	/* The forking thread took the lock in prepare and is the child's
	 * only thread: it unlocks it (rather than making a fresh mutex,
	 * which a thread sanitizer takes for a lock still held, and so for
	 * an inversion with the owner database's lock, uwrap_odb.c). */
	uwrap_unlock();
}

/* Thread exit (pthread key destructor): a later read in this thread
 * (another destructor) finds no list and copies the process's again. */
static void uwrap_heap_free(void *p)
{
	struct uwrap_thread *t = &uwrap_tls;

	if (t->heap == p) {
		t->heap = NULL;
		t->cap = 0;
		t->ngroups = 0;
		t->seen = 0;
	}
	free(p);
}

/* Room for n process-wide groups (writers, under the lock). Lists that do
 * not fit inline go to one UWRAP_NGROUPS_MAX array, allocated on first
 * need and never freed, so a lock-free reader holding the old pointer
 * still reads valid memory (and retries, the sequence having moved).
 * Kept out of the static data: 256 KiB of bss would be one more mapping
 * in every process the library is preloaded into. */
static uint32_t *uwrap_proc_groups(uint32_t n)
{
	uint32_t *g;

	if (n <= UWRAP_INLINE_GROUPS || uwrap_proc.groups != uwrap_proc.small) {
		return uwrap_proc.groups;
	}
	g = malloc(UWRAP_NGROUPS_MAX * sizeof(*g));
	if (g == NULL) {
		CWRAP_ERROR("out of memory for %u groups, keeping the old list",
			    n);
		return NULL;
	}
	return g;
}

static void uwrap_store_groups(uint32_t *dst, const uint32_t *src,
			       uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		STORE(&dst[i], src[i]);
	}
	STORE(&uwrap_proc.ngroups, n);
	STORE(&uwrap_proc.groups, dst);
}

static void uwrap_store_triple(uint32_t *dst, const struct uwrap_triple *t)
{
	STORE(&dst[0], t->r);
	STORE(&dst[1], t->e);
	STORE(&dst[2], t->s);
}

static struct uwrap_triple uwrap_load_triple(const uint32_t *src)
{
	struct uwrap_triple t = {LOAD(&src[0]), LOAD(&src[1]), LOAD(&src[2])};

	return t;
}

static void uwrap_proc_init(void)
{
	struct uwrap_ids ids;
	uint32_t n, *g;

	if (pthread_key_create(&uwrap_heap_key, uwrap_heap_free) != 0) {
		CWRAP_FATAL("pthread_key_create failed");
	}
	uwrap_initial_ids(&ids);
	n = ids.ngroups > UWRAP_NGROUPS_MAX ? UWRAP_NGROUPS_MAX : ids.ngroups;
	uwrap_lock();
	uwrap_store_triple(uwrap_proc.uid, &ids.uid);
	uwrap_store_triple(uwrap_proc.gid, &ids.gid);
	g = uwrap_proc_groups(n);
	if (g != NULL) {
		uwrap_store_groups(g, ids.groups, n);
	}
	STORE(&uwrap_proc.gen_uid, 2);
	STORE(&uwrap_proc.gen_gid, 2);
	STORE(&uwrap_proc.gen_groups, 2);
	uwrap_unlock();
	free(ids.groups);
	pthread_atfork(uwrap_lock, uwrap_unlock, uwrap_atfork_child);
	CWRAP_DEBUG("ids uid %u/%u/%u gid %u/%u/%u, %u groups", ids.uid.r,
		    ids.uid.e, ids.uid.s, ids.gid.r, ids.gid.e, ids.gid.s, n);
}

int uwrap_thread_reserve(struct uwrap_thread *t, uint32_t n)
{
	uint32_t *p;
	uint32_t cap;

	if (n <= UWRAP_INLINE_GROUPS || n <= t->cap) {
		return 0;
	}
	cap = n < 64 ? 64 : n;
	p = malloc((size_t)cap * sizeof(*p));
	if (p == NULL) {
		return ENOMEM;
	}
	free(t->heap);
	t->heap = p;
	t->cap = cap;
	pthread_setspecific(uwrap_heap_key, p);
	return 0;
}

static void uwrap_thread_take_pending(struct uwrap_thread *t);

void uwrap_thread_sync(struct uwrap_thread *t)
{
	struct uwrap_triple uid = t->uid, gid = t->gid;
	uint64_t s1, s2;
	uint32_t n, i;

	if (t->publishing) {
		return; /* a signal handler in the writer: its copy is new */
	}
	pthread_once(&uwrap_proc_once, uwrap_proc_init);
	if (cwrap_unlikely(t->pending != NULL)) {
		uwrap_thread_take_pending(t);
		if (t->seen == LOAD(&uwrap_proc_seq)) {
			return;
		}
	}
	for (;;) {
		s1 = LOAD(&uwrap_proc_seq);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		if (LOAD(&uwrap_proc.gen_uid) > t->seen) {
			uid = uwrap_load_triple(uwrap_proc.uid);
		}
		if (LOAD(&uwrap_proc.gen_gid) > t->seen) {
			gid = uwrap_load_triple(uwrap_proc.gid);
		}
		n = t->ngroups;
		if (LOAD(&uwrap_proc.gen_groups) > t->seen) {
			n = LOAD(&uwrap_proc.ngroups);
			if (uwrap_thread_reserve(t, n) != 0) {
				CWRAP_ERROR("out of memory for %u groups, "
					    "keeping the old list",
					    n);
				n = t->ngroups;
			} else {
				uint32_t *g = uwrap_groups(t);
				const uint32_t *pg = LOAD(&uwrap_proc.groups);

				for (i = 0; i < n; i++) {
					g[i] = LOAD(&pg[i]);
				}
			}
		}
		s2 = LOAD(&uwrap_proc_seq);
		if (s1 == s2) {
			break;
		}
	}
	t->uid = uid;
	t->gid = gid;
	t->ngroups = n;
	t->seen = s1;
}

struct uwrap_thread *uwrap_proc_lock(void)
{
	struct uwrap_thread *t = &uwrap_tls;

	pthread_once(&uwrap_proc_once, uwrap_proc_init);
	uwrap_lock();
	if (t->seen != LOAD(&uwrap_proc_seq)) {
		uwrap_thread_sync(t);
	}
	return t;
}

void uwrap_proc_publish(struct uwrap_thread *t, unsigned kinds)
{
	uint64_t seq = __atomic_load_n(&uwrap_proc_seq, __ATOMIC_RELAXED);
	uint32_t *pg = (kinds & UWRAP_KIND_GROUPS)
			   ? uwrap_proc_groups(t->ngroups)
			   : NULL;

	t->publishing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Acquire-release: the data stores below cannot move above it. */
	__atomic_fetch_add(&uwrap_proc_seq, 1, __ATOMIC_ACQ_REL);
	if (kinds & UWRAP_KIND_UID) {
		uwrap_store_triple(uwrap_proc.uid, &t->uid);
		STORE(&uwrap_proc.gen_uid, seq + 2);
	}
	if (kinds & UWRAP_KIND_GID) {
		uwrap_store_triple(uwrap_proc.gid, &t->gid);
		STORE(&uwrap_proc.gen_gid, seq + 2);
	}
	if (pg != NULL) {
		uwrap_store_groups(pg, uwrap_groups(t), t->ngroups);
		STORE(&uwrap_proc.gen_groups, seq + 2);
	}
	STORE(&uwrap_proc_seq, seq + 2);
	t->seen = seq + 2;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->publishing = 0;
}

void uwrap_proc_unlock(void)
{
	uwrap_unlock();
}

/*
 * Thread hand-over. The start routine we give the real pthread_create()
 * may run before a sanitizer runtime (whose pthread_create calls ours)
 * has set the new thread up, so it must not call into libc or touch
 * instrumented memory: it copies the snapshot into TLS with plain loads
 * and stores, marks it consumed, and calls the real start routine. The
 * snapshots live on a lock-free list (a sanitizer's own fork handler may
 * create a thread before ours run, so no lock may be held across fork);
 * consumed ones are freed by the next pthread_create(). A snapshot with more
 * groups than fit inline is copied later, on the new thread's first read
 * (sync).
 */
struct uwrap_start {
	struct uwrap_start *next; /* uwrap_handover list */
	int consumed;		  /* set by the new thread (atomic) */
	void *(*fn)(void *);
	void *arg;
	struct uwrap_ids ids;
	uint32_t groups[];
};

static struct uwrap_start *uwrap_handover;

static void uwrap_handover_push(struct uwrap_start *st)
{
	struct uwrap_start *head =
	    __atomic_load_n(&uwrap_handover, __ATOMIC_RELAXED);

	do {
		st->next = head;
	} while (!__atomic_compare_exchange_n(&uwrap_handover, &head, st, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/* pthread_create: free what started threads consumed, keep the rest. */
static void uwrap_handover_sweep(void)
{
	struct uwrap_start *st =
	    __atomic_exchange_n(&uwrap_handover, NULL, __ATOMIC_ACQUIRE);

	while (st != NULL) {
		struct uwrap_start *next = st->next;

		if (__atomic_load_n(&st->consumed, __ATOMIC_ACQUIRE)) {
			free(st);
		} else {
			uwrap_handover_push(st);
		}
		st = next;
	}
}

struct uwrap_start *uwrap_thread_prepare(void *(*fn)(void *), void *arg)
{
	struct uwrap_thread *t = uwrap_self();
	struct uwrap_start *st;

	st = calloc(1, sizeof(*st) + (size_t)t->ngroups * sizeof(uint32_t));
	if (st == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	st->fn = fn;
	st->arg = arg;
	st->ids.seen = t->seen;
	st->ids.uid = t->uid;
	st->ids.gid = t->gid;
	st->ids.ngroups = t->ngroups;
	st->ids.groups = st->groups;
	memcpy(st->groups, uwrap_groups(t),
	       (size_t)t->ngroups * sizeof(uint32_t));

	uwrap_handover_sweep();
	uwrap_handover_push(st);
	return st;
}

void uwrap_thread_discard(struct uwrap_start *st)
{
	/* The thread never started: nobody else will touch it. */
	__atomic_store_n(&st->consumed, 1, __ATOMIC_RELEASE);
}

/* Copy a snapshot with many groups (in sync, with libc available). */
static void uwrap_thread_take_pending(struct uwrap_thread *t)
{
	struct uwrap_start *st = t->pending;

	t->pending = NULL;
	if (uwrap_thread_reserve(t, st->ids.ngroups) == 0) {
		t->uid = st->ids.uid;
		t->gid = st->ids.gid;
		t->ngroups = st->ids.ngroups;
		memcpy(uwrap_groups(t), st->groups,
		       (size_t)t->ngroups * sizeof(uint32_t));
		t->seen = st->ids.seen;
	} else {
		CWRAP_ERROR("out of memory: this thread takes the process ids");
	}
	__atomic_store_n(&st->consumed, 1, __ATOMIC_RELEASE);
}

#define UWRAP_NO_SANITIZE                                                      \
	__attribute__((no_sanitize("address", "thread", "undefined")))

UWRAP_NO_SANITIZE void *uwrap_thread_start(void *p)
{
	struct uwrap_start *st = p;
	struct uwrap_thread *t = &uwrap_tls;
	void *(*fn)(void *) = st->fn;
	void *arg = st->arg;
	uint32_t i;

	if (st->ids.ngroups <= UWRAP_INLINE_GROUPS) {
		t->uid = st->ids.uid;
		t->gid = st->ids.gid;
		t->ngroups = st->ids.ngroups;
		for (i = 0; i < st->ids.ngroups; i++) {
			t->inline_groups[i] = st->groups[i];
		}
		t->seen = st->ids.seen;
		__atomic_store_n(&st->consumed, 1, __ATOMIC_RELEASE);
	} else {
		t->pending = st; /* seen stays 0: the first read copies it */
	}
	return fn(arg);
}
