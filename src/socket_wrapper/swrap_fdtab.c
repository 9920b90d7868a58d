/*
 * Socket records and the descriptor table.
 *
 * The table is one pointer per descriptor number, allocated once with
 * calloc up to the hard RLIMIT_NOFILE (a large calloc is fresh zero pages
 * from the kernel, which appear as descriptors are used; and, unlike a raw
 * mmap, leak checkers see the records it points to), so it never moves and
 * lookups need no lock: one atomic load of the table, one of the slot
 * (swrap_fdtab_peek in swrap.h). Slots are updated with atomic exchanges; a
 * record is shared by every descriptor that names it (dup) and counts them in
 * `refs` (atomic).
 *
 * `live` counts references, that is descriptors naming emulated sockets:
 * SOCKET_WRAPPER_MAX_SOCKETS caps it (socket, accept, dup).
 *
 * Records are never returned to malloc while the process runs: the last
 * reference puts a record on a free list (guarded by swrap_lock()), so a
 * thread that loaded a pointer just before another thread closed the
 * descriptor still reads valid memory.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cwrap_log.h"
#include "swrap.h"
#include "faults/swrap_faults.h"

struct swrap_sock **swrap_fdtab_slots;
int swrap_fdtab_cap;

static struct swrap_sock *free_list; /* swrap_lock() */
static long live;		     /* atomic: references */
static unsigned high_water;	     /* atomic: highest fd ever set + 1 */
static bool limit_warned;	     /* atomic */

void swrap_sock_finish(struct swrap_sock *s); /* swrap_sock.c */

static struct swrap_sock **table(void)
{
	struct swrap_sock **t =
	    __atomic_load_n(&swrap_fdtab_slots, __ATOMIC_ACQUIRE);
	struct rlimit rl;
	size_t cap = 1u << 22;
	void *p;

	if (t != NULL) {
		return t;
	}
	swrap_lock();
	t = swrap_fdtab_slots;
	if (t == NULL) {
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_max != RLIM_INFINITY && rl.rlim_max < cap) {
			cap = rl.rlim_max < 1024 ? 1024 : rl.rlim_max;
		}
		p = calloc(cap, sizeof(*t));
		if (p != NULL) {
			t = p;
			swrap_fdtab_cap = (int)cap;
			__atomic_store_n(&swrap_fdtab_slots, t,
					 __ATOMIC_RELEASE);
		} else {
			CWRAP_ERROR("cannot reserve the descriptor table: %s",
				    strerror(errno));
		}
	}
	swrap_unlock();
	return t;
}

struct swrap_sock *swrap_fdtab_raw(int fd)
{
	struct swrap_sock **t =
	    __atomic_load_n(&swrap_fdtab_slots, __ATOMIC_ACQUIRE);

	if (t == NULL || fd < 0 || fd >= swrap_fdtab_cap) {
		return NULL;
	}
	return __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
}

static bool full(long max)
{
	if (!__atomic_exchange_n(&limit_warned, true, __ATOMIC_RELAXED)) {
		CWRAP_WARN("SOCKET_WRAPPER_MAX_SOCKETS=%ld reached: new "
			   "emulated sockets fail with ENFILE",
			   max);
	}
	errno = ENFILE;
	return false;
}

bool swrap_sock_room(void)
{
	long max = swrap_conf()->max_sockets;

	return __atomic_load_n(&live, __ATOMIC_RELAXED) < max || full(max);
}

/* Count one more descriptor; false (ENFILE, one warning per process)
 * past the limit of the current configuration. */
static bool reserve(bool limit)
{
	long n = __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	long max;

	if (!limit) {
		return true;
	}
	max = swrap_conf()->max_sockets;
	if (n <= max) {
		return true;
	}
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	return full(max);
}

struct swrap_sock *swrap_sock_new(const struct swrap_conf *c, int family,
				  int type, bool limit)
{
	struct swrap_sock *s;

	if (!reserve(limit)) {
		return NULL;
	}
	swrap_lock();
	s = free_list;
	if (s != NULL) {
		free_list = s->next_free;
	}
	swrap_unlock();
	if (s == NULL) {
		s = malloc(sizeof(*s));
		if (s == NULL) {
			__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
			errno = ENOMEM;
			return NULL;
		}
	}
	memset(s, 0, offsetof(struct swrap_sock, opts));
	s->conf = c;
	s->family = family;
	s->type = type;
	s->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	s->shown_type = type;
	s->refs = 1;
	return s;
}

int swrap_sock_ref(struct swrap_sock *s, bool limit)
{
	if (!reserve(limit)) {
		return -1;
	}
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	return 0;
}

void swrap_sock_unref(struct swrap_sock *s)
{
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0) {
		return;
	}
	swrap_sock_finish(s); /* (its FIN may be left to a relay) */
	swrap_faults_drop(s);
	swrap_lock();
	s->next_free = free_list;
	free_list = s;
	swrap_unlock();
}

static void release(struct swrap_sock *old)
{
	if ((uintptr_t)old > 1) {
		swrap_sock_unref(old);
	}
}

static void raise_high_water(int fd)
{
	unsigned hw = __atomic_load_n(&high_water, __ATOMIC_RELAXED);

	while ((unsigned)fd >= hw &&
	       !__atomic_compare_exchange_n(&high_water, &hw, (unsigned)fd + 1,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED)) {
	}
}

int swrap_fdtab_set(int fd, struct swrap_sock *s)
{
	struct swrap_sock **t = table();

	if (t == NULL || fd < 0 || fd >= swrap_fdtab_cap) {
		errno = EMFILE;
		return -1;
	}
	raise_high_water(fd);
	release(__atomic_exchange_n(&t[fd], s, __ATOMIC_ACQ_REL));
	return 0;
}

void swrap_fdtab_clear(int fd)
{
	struct swrap_sock **t =
	    __atomic_load_n(&swrap_fdtab_slots, __ATOMIC_ACQUIRE);

	if (t == NULL || fd < 0 || fd >= swrap_fdtab_cap) {
		return;
	}
	if (__atomic_load_n(&t[fd], __ATOMIC_RELAXED) == NULL) {
		return;
	}
	release(__atomic_exchange_n(&t[fd], NULL, __ATOMIC_ACQ_REL));
}

void swrap_fdtab_clear_range(unsigned lo, unsigned hi)
{
	unsigned hw = __atomic_load_n(&high_water, __ATOMIC_RELAXED);

	if (hi >= hw) {
		hi = hw == 0 ? 0 : hw - 1;
	}
	for (unsigned fd = lo; fd <= hi && fd < hw; fd++) {
		swrap_fdtab_clear((int)fd);
	}
}

void swrap_fdtab_mark_not_ours(int fd)
{
	struct swrap_sock **t = table();
	struct swrap_sock *expect = NULL;

	if (t == NULL || fd < 0 || fd >= swrap_fdtab_cap) {
		return;
	}
	raise_high_water(fd);
	__atomic_compare_exchange_n(&t[fd], &expect, SWRAP_NOT_OURS, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

long swrap_fdtab_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}
