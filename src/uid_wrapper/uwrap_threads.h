/*
 * uwrap_threads: where the fake ids live.
 *
 * The process-wide ids (what set*id() sets for every thread) are one
 * record guarded by a writer mutex and published with a sequence counter
 * (a seqlock): writers take the mutex, readers never lock. Each thread
 * keeps its own copy in TLS, with the sequence number it last copied
 * (`seen`); reading an id is a TLS load plus one compare against the
 * counter. A thread's copy also takes the per-thread changes of
 * syscall(SYS_set*id), which only the owning thread ever touches.
 *
 * Each kind (uids, gids, groups) remembers the sequence number of its last
 * process-wide change, so a thread that catches up only overwrites the
 * kinds changed since it last looked: its per-thread uid survives a
 * process-wide setgid(), as with glibc and the kernel.
 */
#ifndef UWRAP_THREADS_H
#define UWRAP_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "cwrap_compiler.h"
#include "uwrap_creds.h"
#include "uwrap_initial.h"

#define UWRAP_INLINE_GROUPS 32

struct uwrap_start;

struct uwrap_thread {
	uint64_t seen; /* process sequence copied last; 0: never */
	struct uwrap_triple uid, gid;
	uint32_t ngroups;
	uint32_t cap;	/* capacity of heap, 0 while inline is used */
	uint32_t *heap; /* freed at thread exit (pthread key) */
	struct uwrap_start *pending; /* hand-over still to copy */
	unsigned long env_gen; /* cwrap_env_gen() when UID_WRAPPER_MYUID was read */
	int myuid;	  /* UID_WRAPPER_MYUID was true */
	int publishing;	  /* inside uwrap_proc_publish: a signal handler's
			   * read must not wait for its own thread */
	uint32_t inline_groups[UWRAP_INLINE_GROUPS];
};

enum {
	UWRAP_KIND_UID = 1,
	UWRAP_KIND_GID = 2,
	UWRAP_KIND_GROUPS = 4,
};

extern __thread struct uwrap_thread uwrap_tls
    __attribute__((tls_model("initial-exec"))) CWRAP_HIDDEN;
extern uint64_t uwrap_proc_seq CWRAP_HIDDEN;

void uwrap_thread_sync(struct uwrap_thread *t);

/* The calling thread's ids, up to date with the process. */
static inline struct uwrap_thread *uwrap_self(void)
{
	struct uwrap_thread *t = &uwrap_tls;

	if (cwrap_unlikely(t->seen != __atomic_load_n(&uwrap_proc_seq,
						      __ATOMIC_ACQUIRE))) {
		uwrap_thread_sync(t);
	}
	return t;
}

static inline uint32_t *uwrap_groups(struct uwrap_thread *t)
{
	return t->heap != NULL ? t->heap : t->inline_groups;
}

/* Make room for n groups in t (keeps nothing); 0 or ENOMEM. */
int uwrap_thread_reserve(struct uwrap_thread *t, uint32_t n);

/* Process-wide change: take the writer lock (the caller's copy is brought
 * up to date under it), change the caller's copy, publish the `kinds`
 * changed, unlock. */
struct uwrap_thread *uwrap_proc_lock(void);
void uwrap_proc_publish(struct uwrap_thread *t, unsigned kinds);
void uwrap_proc_unlock(void);

/* Thread creation: uwrap_thread_prepare() snapshots the caller's ids with
 * the start routine (malloc'd; NULL with errno ENOMEM); pass it to the real
 * pthread_create() with uwrap_thread_start, which installs the ids in the
 * new thread, frees the snapshot and runs the routine. If the real
 * pthread_create() fails, free it with uwrap_thread_discard(). */
struct uwrap_start *uwrap_thread_prepare(void *(*fn)(void *), void *arg);
void *uwrap_thread_start(void *start);
void uwrap_thread_discard(struct uwrap_start *start);

#endif
