/*
 * Shared per-connection capture state (see swrap_pcap_state.h): a table of
 * SWRAP_PCAP_CONNS entries in `<capture>.swrap-state`, mapped MAP_SHARED,
 * open addressing with a short probe and least-recently-used eviction.
 *
 * Lock: `lock` inside the mapping, a robust process-shared mutex, guards
 * everything below the header. A process that dies holding it leaves it to
 * the next locker (EOWNERDEAD -> pthread_mutex_consistent). The header is
 * written once, under the capture file's flock(), by the process that
 * creates the state file.
 */
#include "swrap_pcap_state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_mutex.h"
#include "cwrap_platform.h"
#include "swrap_libc.h"

/* "SWPE"; "SWPD" before slots recorded their process's start time: a
 * state file of the other format is not misread (see _open). */
#define STATE_MAGIC 0x53575045u
#define SWRAP_PCAP_CONNS 4096
#define PROBE 16
#define SWRAP_PCAP_PROCS 512

/* A process slot (see swrap_pcap_state.h). */
enum { PROC_FREE, PROC_LIVE, PROC_RESERVED };

struct swrap_pcap_proc {
	pthread_mutex_t life; /* locked by its process while it lives */
	int32_t pid;	      /* 0 while reserved */
	int32_t parent_pid;   /* reservation: the parent's pid ... */
	uint16_t parent;      /* ... and ref */
	uint8_t state;
	uint8_t inited;	 /* `life` initialised (never again) */
	uint8_t exiting; /* holds nothing, whatever its lock says */
	uint8_t checked_valid, checked_alive;
	uint8_t pad;
	uint32_t checked; /* second of the last kill() check */
	uint32_t serial;  /* of the reservation */
	uint32_t nheld;	  /* holder entries naming it */
	/* Its process's start time (/proc/<pid>/stat, clock ticks since
	 * boot), 0 if unknown: a later process given the same pid is
	 * another one. */
	uint64_t start;
};

struct swrap_pcap_state {
	uint32_t magic;
	uint32_t layout;	     /* sizeof(struct swrap_pcap_state) */
	uint64_t file_dev, file_ino; /* the capture file this state is for */
	uint64_t file_end;	     /* where the next record goes */
	pthread_mutex_t lock;
	uint64_t stamp;
	uint64_t rng;
	uint32_t ip_id;
	uint32_t private_table; /* calloc'd, not shared */
	uint32_t serial;	/* of the last fork reservation */
	uint32_t procs_used;	/* slots [0, procs_used) were ever used */
	struct swrap_pcap_proc procs[SWRAP_PCAP_PROCS];
	struct swrap_pcap_conn conns[SWRAP_PCAP_CONNS];
};

/* Every number read from the state file is bounded before it indexes
 * anything: another process may have written anything there (a crash
 * mid-write, another layout, a hostile user). */
static uint32_t procs_used(const struct swrap_pcap_state *s)
{
	uint32_t n = __atomic_load_n(&s->procs_used, __ATOMIC_RELAXED);

	return n < SWRAP_PCAP_PROCS ? n : SWRAP_PCAP_PROCS;
}

static struct swrap_pcap_proc *proc_of(struct swrap_pcap_state *s, uint16_t ref)
{
	return ref != 0 && ref <= SWRAP_PCAP_PROCS ? &s->procs[ref - 1] : NULL;
}

static void state_init_lock_of(pthread_mutex_t *m, bool shared)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	if (shared) {
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	}
	if (pthread_mutex_init(m, &a) != 0) {
		CWRAP_FATAL("pthread_mutex_init failed");
	}
	pthread_mutexattr_destroy(&a);
}

static void state_init_lock(struct swrap_pcap_state *s, bool shared)
{
	state_init_lock_of(&s->lock, shared);
}

static void state_seed(struct swrap_pcap_state *s)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	s->rng = ((uint64_t)tv.tv_sec << 32) ^ (uint64_t)tv.tv_usec ^
		 ((uint64_t)getpid() << 16) ^ 0x9E3779B97F4A7C15ull;
	s->ip_id = (uint32_t)s->rng;
}

static struct swrap_pcap_state *state_private(void)
{
	struct swrap_pcap_state *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		CWRAP_FATAL("out of memory for the capture state");
	}
	s->magic = STATE_MAGIC;
	s->layout = sizeof(*s);
	s->private_table = 1;
	state_init_lock(s, false);
	state_seed(s);
	return s;
}

/* The shared states this process has mapped, with their state file's
 * identity. A state it left (the program switched capture files) while
 * another of its threads held the slot's life lock stays mapped: a held
 * robust lock is on its thread's robust list, which glibc links new locks
 * to and the kernel walks at the thread's exit. The mapping keeps the
 * state file's inode, so its dev/ino never name another file; coming back
 * to that capture reuses the mapping and the slot. Only touched under the
 * capture's switch lock, or in the child after fork(). */
struct mapped_state {
	struct swrap_pcap_state *s;
	uint64_t dev, ino;
	uint16_t left_ref; /* left while `ref`'s lock was held; 0: in use */
	bool life_taken;    /* a thread of ours took our slot's life lock: */
	pthread_t life_by;  /* this one (both atomic: see life_lock) */
	struct mapped_state *next;
};
static struct mapped_state *g_mapped;

static struct mapped_state *mapped_find(const struct swrap_pcap_state *s,
					uint64_t dev, uint64_t ino)
{
	struct mapped_state *m;

	for (m = g_mapped; m != NULL; m = m->next) {
		if (s != NULL ? m->s == s : (m->dev == dev && m->ino == ino)) {
			return m;
		}
	}
	return NULL;
}

static void mapped_forget(struct mapped_state *m)
{
	struct mapped_state **pp = &g_mapped;

	while (*pp != m) {
		pp = &(*pp)->next;
	}
	*pp = m->next;
	free(m);
}

struct swrap_pcap_state *swrap_pcap_state_open(const char *pcap_path,
					       int pcap_fd, bool fresh)
{
	struct swrap_pcap_state *s;
	struct mapped_state *m;
	struct stat pst, st;
	char path[4096];
	bool stat_ok;
	int fd;

	if (fstat(pcap_fd, &pst) != 0 ||
	    snprintf(path, sizeof(path), "%s.swrap-state", pcap_path) >=
		(int)sizeof(path)) {
		return state_private();
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: cannot open %s (%s), "
			   "capture state is private to this process",
			   path, strerror(errno));
		return state_private();
	}
	stat_ok = fstat(fd, &st) == 0;
	if (stat_ok && (m = mapped_find(NULL, (uint64_t)st.st_dev,
					(uint64_t)st.st_ino)) != NULL) {
		/* Mapped already (a capture this process left). */
		libc_close(fd);
		s = m->s;
		goto attach;
	}
	if (!stat_ok || (st.st_size < (off_t)sizeof(*s) &&
			 ftruncate(fd, (off_t)sizeof(*s)) != 0)) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: cannot size %s (%s), "
			   "capture state is private to this process",
			   path, strerror(errno));
		libc_close(fd);
		return state_private();
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	libc_close(fd);
	if (s == MAP_FAILED) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: cannot map %s (%s), "
			   "capture state is private to this process",
			   path, strerror(errno));
		return state_private();
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		munmap(s, sizeof(*s));
		return state_private();
	}
	m->s = s;
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	m->next = g_mapped;
	g_mapped = m;
	if (s->magic == 0) {
		/* New file: we are the only one here (flock held). */
		s->layout = sizeof(*s);
		state_init_lock(s, true);
		state_seed(s);
		s->file_dev = (uint64_t)pst.st_dev;
		s->file_ino = (uint64_t)pst.st_ino;
		s->file_end = (uint64_t)pst.st_size;
		__atomic_store_n(&s->magic, STATE_MAGIC, __ATOMIC_RELEASE);
		return s;
	}
	if (s->magic != STATE_MAGIC || s->layout != sizeof(*s) ||
	    s->private_table != 0) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: %s has another layout, "
			   "capture state is private to this process",
			   path);
		mapped_forget(m);
		munmap(s, sizeof(*s));
		return state_private();
	}
attach:
	swrap_pcap_state_lock(s);
	if (fresh || s->file_dev != (uint64_t)pst.st_dev ||
	    s->file_ino != (uint64_t)pst.st_ino) {
		/* A new capture: the connections of an old one are gone. */
		uint32_t k;

		memset(s->conns, 0, sizeof(s->conns));
		for (k = 0; k < procs_used(s); k++) {
			s->procs[k].nheld = 0;
		}
		s->file_dev = (uint64_t)pst.st_dev;
		s->file_ino = (uint64_t)pst.st_ino;
		s->file_end = (uint64_t)pst.st_size;
	} else if (s->file_end < (uint64_t)pst.st_size) {
		/* Someone appended without us (another library?). */
		s->file_end = (uint64_t)pst.st_size;
	}
	swrap_pcap_state_unlock(s);
	return s;
}

static unsigned life_word(struct swrap_pcap_proc *p);
static bool life_held(struct swrap_pcap_proc *p);

void swrap_pcap_state_close(struct swrap_pcap_state *s, uint16_t ref)
{
	struct swrap_pcap_proc *p;
	struct mapped_state *m;

	if (s == NULL) {
		return;
	}
	/* (whether it is mapped, by our own list: not by a flag in it) */
	m = mapped_find(s, 0, 0);
	if (m == NULL) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return;
	}
	p = ref != 0 && ref <= SWRAP_PCAP_PROCS ? &s->procs[ref - 1] : NULL;
	/* The thread that took the slot's life lock unlocks it; while
	 * another of our threads holds it (the lock is on that thread's
	 * robust list), the mapping stays. By our own record of who took
	 * it, not by trying an unlock that a robust mutex refuses (EPERM)
	 * and a thread checker reports. (A slot whose `inited` a corrupt
	 * file claimed has a plain mutex: the same record holds.) */
	if (p != NULL && __atomic_load_n(&m->life_taken, __ATOMIC_ACQUIRE)) {
		if (pthread_equal(__atomic_load_n(&m->life_by, __ATOMIC_RELAXED),
				  pthread_self())) {
			pthread_mutex_unlock(&p->life);
			__atomic_store_n(&m->life_taken, false,
					 __ATOMIC_RELEASE);
		} else if (life_held(p)) {
			m->left_ref = ref;
			return;
		}
	}
	mapped_forget(m);
	munmap(s, sizeof(*s));
}

void swrap_pcap_state_atfork_child(struct swrap_pcap_state *s)
{
	struct mapped_state *m;

	/* The child holds none of the life locks its parent took (it takes
	 * its own slot's: swrap_pcap_state_forked). */
	for (m = g_mapped; m != NULL; m = m->next) {
		__atomic_store_n(&m->life_taken, false, __ATOMIC_RELAXED);
	}
	if (s != NULL && s->private_table) {
		state_init_lock(s, false);
	}
}

void swrap_pcap_state_lock(struct swrap_pcap_state *s)
{
	int rc = pthread_mutex_lock(&s->lock);

	if (rc == EOWNERDEAD) {
		/* Its owner died mid-update: the table is usable, at worst
		 * one connection's numbers are off. */
		CWRAP_WARN("capture state lock recovered from a dead process");
		pthread_mutex_consistent(&s->lock);
	} else if (rc != 0) {
		CWRAP_FATAL("capture state lock failed: %s", strerror(rc));
	}
}

void swrap_pcap_state_unlock(struct swrap_pcap_state *s)
{
	pthread_mutex_unlock(&s->lock);
}

bool swrap_pcap_state_shared(const struct swrap_pcap_state *s)
{
	return !s->private_table;
}

bool swrap_pcap_state_reserve(struct swrap_pcap_state *s, size_t len,
			      uint64_t *off)
{
	if (s->private_table) {
		return false;
	}
	*off = s->file_end;
	s->file_end += len;
	return true;
}

void swrap_pcap_state_note_size(struct swrap_pcap_state *s, int fd)
{
	struct stat st;

	if (!s->private_table && fstat(fd, &st) == 0 &&
	    s->file_end < (uint64_t)st.st_size) {
		s->file_end = (uint64_t)st.st_size;
	}
}

uint32_t swrap_pcap_state_random(struct swrap_pcap_state *s)
{
	/* xorshift64* */
	uint64_t x = s->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

uint16_t swrap_pcap_state_ip_id(struct swrap_pcap_state *s)
{
	return (uint16_t)++s->ip_id;
}

/* Drop every holder of `c` (a new connection over the same addresses,
 * or an evicted entry). */
static void drop_holders(struct swrap_pcap_state *s, struct swrap_pcap_conn *c)
{
	int end, k;

	for (end = 0; end < 2; end++) {
		for (k = 0; k < SWRAP_PCAP_HOLDERS; k++) {
			uint16_t r = c->holders[end][k];

			if (r != 0 && r <= SWRAP_PCAP_PROCS &&
			    s->procs[r - 1].nheld > 0) {
				s->procs[r - 1].nheld--;
			}
		}
	}
	memset(c->holders, 0, sizeof(c->holders));
}

void swrap_pcap_state_reset(struct swrap_pcap_state *s,
			    struct swrap_pcap_conn *c)
{
	c->flags = 0;
	memset(c->dir, 0, sizeof(c->dir));
	drop_holders(s, c);
	c->dir[0].isn = swrap_pcap_state_random(s);
	c->dir[1].isn = swrap_pcap_state_random(s);
}

/* The process `pid` exists for kill(): running, exiting or a zombie. */
static bool pid_exists(int32_t pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* What /proc/<pid>/stat says of a process: its state, its flags and its
 * start time (clock ticks since boot). False if it says nothing (no such
 * process, no /proc, or a line not understood). */
static bool pid_stat(int32_t pid, char *state, unsigned *flags, uint64_t *start)
{
	char path[64], buf[512], *p;
	unsigned long long st;
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = libc_read(fd, buf, sizeof(buf) - 1);
		libc_close(fd);
	}
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	/* Fields 3 (state), 9 (flags) and 22 (starttime); the command
	 * name before them may hold any character, ')' too. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' ||
	    sscanf(p + 2,
		   "%c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d "
		   "%*d %*d %*d %*d %*d %llu",
		   state, flags, &st) != 3) {
		return false;
	}
	*start = (uint64_t)st;
	return true;
}

/* The start time of process `pid`, recorded with its slot; 0 if /proc
 * does not tell (then a slot's pid alone names its process, as before).
 * A process started in the first clock tick after boot is also 0. */
static uint64_t pid_start(int32_t pid)
{
	uint64_t start;
	unsigned flags;
	char state;

	return pid_stat(pid, &state, &flags, &start) ? start : 0;
}

/* Alive: not gone, not a zombie waiting to be reaped, and not exiting
 * (PF_EXITING: set before the kernel releases its robust locks and closes
 * its descriptors), and the process that registered: when `start` is
 * known, a process of another start time has only been given the dead
 * one's pid again (pids wrap around), and its life says nothing of the
 * slot's. System calls: only for a process whose life lock says nothing
 * (see proc_alive).
 *
 * When /proc says nothing, kill() is asked again rather than assuming
 * life: a zombie reaped between the first kill() and the open() (or the
 * read()) of its stat file is gone, and its parent reaps it as soon as it
 * is one, typically while another process's close() asks about it. Taken
 * for alive it would be cached as such for the rest of the second (see
 * proc_alive), and its FINs lost when the capture's last events fall in
 * that second (test_pcap_forking_clients, under load; unit_pcap_reaped
 * makes that order certain). */
static bool pid_alive(int32_t pid, uint64_t start)
{
	uint64_t now_start;
	unsigned flags;
	char state;

	if (!pid_exists(pid)) {
		return false;
	}
	if (!pid_stat(pid, &state, &flags, &now_start)) {
		/* Gone meanwhile, or no /proc: a zombie (or a reused pid)
		 * then counts as alive, the best kill() can tell. */
		return pid_exists(pid);
	}
	if (start != 0 && now_start != start) {
		return false;
	}
	return state != 'Z' && state != 'X' && !(flags & 0x4 /* PF_EXITING */);
}

/* The life lock is held by a live thread. When its owner dies the kernel
 * clears the owner and sets FUTEX_OWNER_DIED (robust futex ABI). */
static unsigned life_word(struct swrap_pcap_proc *p)
{
	const int *w = cwrap_robust_mutex_word(&p->life);

	return w != NULL ? (unsigned)__atomic_load_n(w, __ATOMIC_ACQUIRE) : 0;
}

static bool life_held(struct swrap_pcap_proc *p)
{
	unsigned w = life_word(p);

	return (w & FUTEX_TID_MASK) != 0 && !(w & FUTEX_OWNER_DIED);
}

static bool proc_alive(struct swrap_pcap_state *s, uint16_t ref)
{
	struct swrap_pcap_proc *p;
	uint32_t now;

	if (ref == 0 || ref > SWRAP_PCAP_PROCS) {
		return false;
	}
	p = &s->procs[ref - 1];
	if (p->state == PROC_RESERVED) {
		/* A child being born: alive while the parent that reserved
		 * it lives (a failed fork drops the reservation). */
		struct swrap_pcap_proc *pp;

		if (p->parent == 0 || p->parent == ref ||
		    p->parent > SWRAP_PCAP_PROCS) {
			return false;
		}
		pp = &s->procs[p->parent - 1];
		return pp->state == PROC_LIVE && pp->pid == p->parent_pid &&
		       proc_alive(s, p->parent);
	}
	if (p->state != PROC_LIVE || p->exiting) {
		return false;
	}
	if (s->private_table) {
		return p->pid == (int32_t)getpid() ||
		       pid_alive(p->pid, p->start);
	}
	if (life_held(p)) {
		return true;
	}
	if (!(life_word(p) & FUTEX_OWNER_DIED)) {
		/* Its process is taking the lock right now. */
		return pid_alive(p->pid, p->start);
	}
	/* The lock's owner is gone: the process died, exec'd, or lost the
	 * thread that held it (it takes the lock again at its next event).
	 * Ask the kernel, at most once a second for a live one. */
	now = (uint32_t)time(NULL);
	if (p->checked != now || !p->checked_valid) {
		p->checked = now;
		p->checked_valid = 1;
		p->checked_alive = pid_alive(p->pid, p->start);
	}
	return p->checked_alive;
}

void swrap_pcap_state_hold(struct swrap_pcap_state *s,
			   struct swrap_pcap_conn *c, int end, uint16_t ref)
{
	uint16_t *h = c->holders[end];
	int i, free_slot = -1;

	if (ref == 0) {
		return;
	}
	for (i = 0; i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] == ref) {
			return;
		}
		if (h[i] == 0 && free_slot < 0) {
			free_slot = i;
		}
	}
	for (i = 0; free_slot < 0 && i < SWRAP_PCAP_HOLDERS; i++) {
		if (!proc_alive(s, h[i])) {
			struct swrap_pcap_proc *p = proc_of(s, h[i]);

			if (p != NULL && p->nheld > 0) {
				p->nheld--;
			}
			free_slot = i;
		}
	}
	if (free_slot < 0) {
		CWRAP_DEBUG("more than %d processes hold one connection, "
			    "one more is not counted",
			    SWRAP_PCAP_HOLDERS);
		return;
	}
	h[free_slot] = ref;
	s->procs[ref - 1].nheld++;
}

/* Remove `ref` from the holders of (c, end); true if it was one. */
static bool unhold(struct swrap_pcap_state *s, struct swrap_pcap_conn *c,
		   int end, uint16_t ref)
{
	uint16_t *h = c->holders[end];
	int i;

	for (i = 0; i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] == ref) {
			struct swrap_pcap_proc *p = proc_of(s, ref);

			h[i] = 0;
			if (p != NULL && p->nheld > 0) {
				p->nheld--;
			}
			return true;
		}
	}
	return false;
}

/* Holders of (c, end) still alive; dead ones are removed. */
static bool held(struct swrap_pcap_state *s, struct swrap_pcap_conn *c, int end)
{
	uint16_t *h = c->holders[end];
	bool any = false;
	int i;

	for (i = 0; i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] == 0) {
			continue;
		}
		if (proc_alive(s, h[i])) {
			any = true;
		} else {
			(void)unhold(s, c, end, h[i]);
		}
	}
	return any;
}

bool swrap_pcap_state_release(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end, uint16_t ref)
{
	if (ref != 0) {
		(void)unhold(s, c, end, ref);
	}
	return held(s, c, end);
}

void swrap_pcap_state_exiting(struct swrap_pcap_state *s, uint16_t ref)
{
	if (ref != 0 && ref <= SWRAP_PCAP_PROCS) {
		s->procs[ref - 1].exiting = 1;
	}
}

size_t swrap_pcap_state_sweep(struct swrap_pcap_state *s,
			      swrap_pcap_fin_fn fin, void *arg)
{
	bool dying[SWRAP_PCAP_PROCS];
	size_t i, n = 0;
	uint32_t k, ndying = 0;
	int end, h;

	for (k = 0; k < procs_used(s); k++) {
		struct swrap_pcap_proc *p = &s->procs[k];

		dying[k] = false;
		if (p->nheld > 0 &&
		    (p->state == PROC_LIVE || p->state == PROC_RESERVED) &&
		    !proc_alive(s, (uint16_t)(k + 1))) {
			dying[k] = true;
			ndying++;
		}
	}
	if (ndying == 0) {
		return 0;
	}
	for (i = 0; i < SWRAP_PCAP_CONNS; i++) {
		struct swrap_pcap_conn *c = &s->conns[i];

		if (!c->used) {
			continue;
		}
		for (end = 0; end < 2; end++) {
			bool dropped = false;

			for (h = 0; h < SWRAP_PCAP_HOLDERS; h++) {
				uint16_t r = c->holders[end][h];

				if (r != 0 && r <= procs_used(s) &&
				    dying[r - 1]) {
					dropped |= unhold(s, c, end, r);
				}
			}
			if (!dropped || held(s, c, end)) {
				continue;
			}
			fin(arg, c, end);
			n++;
		}
	}
	/* Every reference is gone: the slots are free again (a dead
	 * process's life lock is left for the next owner to recover). */
	for (k = 0; k < procs_used(s); k++) {
		if (dying[k]) {
			s->procs[k].nheld = 0;
			s->procs[k].state = PROC_FREE;
		}
	}
	return n;
}

/* A slot taken by a process afresh: no parent, not exiting, nothing
 * known of it from the kernel. */
static void proc_renew(struct swrap_pcap_proc *p)
{
	p->parent = 0;
	p->parent_pid = 0;
	p->exiting = 0;
	p->checked_valid = 0;
}

/* A free slot (under the lock), initialised; NULL if the table is full. */
static struct swrap_pcap_proc *proc_alloc(struct swrap_pcap_state *s)
{
	struct swrap_pcap_proc *p;
	uint32_t k;

	for (k = 0; k < procs_used(s); k++) {
		p = &s->procs[k];
		/* (not while an exiting process still holds its lock) */
		if (p->state == PROC_FREE &&
		    (s->private_table || !life_held(p))) {
			goto found;
		}
	}
	if (s->procs_used < SWRAP_PCAP_PROCS) {
		p = &s->procs[s->procs_used++];
		goto found;
	}
	/* Full: processes that ended holding nothing are not swept. */
	for (k = 0; k < procs_used(s); k++) {
		p = &s->procs[k];
		if (p->nheld == 0 &&
		    (p->state == PROC_LIVE || p->state == PROC_RESERVED) &&
		    !proc_alive(s, (uint16_t)(k + 1)) &&
		    (s->private_table || !life_held(p))) {
			goto found;
		}
	}
	return NULL;
found:
	if (!p->inited) {
		/* Never used: nobody can have it on a robust list. Later
		 * owners recover it from the dead one (EOWNERDEAD). */
		state_init_lock_of(&p->life, !s->private_table);
		p->inited = 1;
	}
	p->pid = 0;
	p->start = 0;
	p->nheld = 0;
	proc_renew(p);
	return p;
}

/* Take `ref`'s life lock (not under the table lock), then forget what
 * the kernel was asked about its process before. */
static void life_lock(struct swrap_pcap_state *s, uint16_t ref)
{
	struct swrap_pcap_proc *p = &s->procs[ref - 1];
	struct mapped_state *m;
	int rc;

	if (s->private_table) {
		return;
	}
	/* (trylock: after a switch back to this capture, another of our
	 * threads may hold it, and keeps it for us) */
	rc = pthread_mutex_trylock(&p->life);
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&p->life);
	} else if (rc == EBUSY) {
		return;
	} else if (rc != 0) {
		CWRAP_WARN("capture: cannot take the life lock of slot %u: %s",
			   (unsigned)ref, strerror(rc));
		return;
	}
	m = mapped_find(s, 0, 0);
	if (m != NULL) {
		/* Atomic: several threads of ours may come here at once, under
		 * the capture's read lock only, one after a thread that took
		 * the lock and ended (EOWNERDEAD: the kernel orders the two,
		 * which a thread checker cannot see). */
		__atomic_store_n(&m->life_by, pthread_self(), __ATOMIC_RELAXED);
		__atomic_store_n(&m->life_taken, true, __ATOMIC_RELEASE);
	}
	swrap_pcap_state_lock(s);
	p->checked_valid = 0;
	swrap_pcap_state_unlock(s);
}

/* Slot `p` was registered by process (pid, start): the same pid, and
 * the same start time unless one of them is unknown. */
static bool proc_is(const struct swrap_pcap_proc *p, int32_t pid,
		    uint64_t start)
{
	return p->pid == pid &&
	       (p->start == 0 || start == 0 || p->start == start);
}

uint16_t swrap_pcap_state_register(struct swrap_pcap_state *s, int32_t pid)
{
	struct mapped_state *m = mapped_find(s, 0, 0);
	struct swrap_pcap_proc *p = NULL;
	uint16_t ref = 0, left = m != NULL ? m->left_ref : 0;
	uint64_t start = pid_start(pid);
	uint32_t k;

	if (m != NULL) {
		m->left_ref = 0;
	}
	swrap_pcap_state_lock(s);
	if (left != 0 && left <= procs_used(s) &&
	    ((s->procs[left - 1].state == PROC_LIVE &&
	      proc_is(&s->procs[left - 1], pid, start)) ||
	     s->procs[left - 1].state == PROC_FREE)) {
		/* Back to a capture this process left while another of its
		 * threads held the slot's lock: the same slot again. */
		p = &s->procs[left - 1];
		if (p->state == PROC_FREE) {
			p->nheld = 0;
		}
		proc_renew(p);
	}
	for (k = 0; p == NULL && k < procs_used(s); k++) {
		/* The same process before an exec: it keeps what it held.
		 * (Not a dead process whose pid it was given again.) */
		if (s->procs[k].state == PROC_LIVE &&
		    proc_is(&s->procs[k], pid, start) && !s->procs[k].exiting) {
			p = &s->procs[k];
			break;
		}
	}
	if (p == NULL) {
		p = proc_alloc(s);
	}
	if (p != NULL) {
		p->pid = pid;
		p->start = start;
		p->state = PROC_LIVE;
		ref = (uint16_t)(p - s->procs + 1);
	} else {
		CWRAP_WARN("capture: more than %d processes on one capture, "
			   "FINs of this one are recorded at its closes only",
			   SWRAP_PCAP_PROCS);
	}
	swrap_pcap_state_unlock(s);
	if (ref != 0) {
		life_lock(s, ref);
	}
	return ref;
}

void swrap_pcap_state_keepalive(struct swrap_pcap_state *s, uint16_t ref)
{
	if (ref != 0 && !s->private_table && !life_held(&s->procs[ref - 1])) {
		life_lock(s, ref);
	}
}

/* Name `child` a holder wherever `parent` is one (under the lock). */
static void hold_as(struct swrap_pcap_state *s, uint16_t parent, uint16_t child)
{
	size_t i;
	int end, k;

	if (parent == 0 || s->procs[parent - 1].nheld == 0) {
		return;
	}
	for (i = 0; i < SWRAP_PCAP_CONNS; i++) {
		struct swrap_pcap_conn *c = &s->conns[i];

		if (!c->used || c->key.proto != 6) {
			continue;
		}
		for (end = 0; end < 2; end++) {
			for (k = 0; k < SWRAP_PCAP_HOLDERS; k++) {
				if (c->holders[end][k] == parent) {
					swrap_pcap_state_hold(s, c, end, child);
					break;
				}
			}
		}
	}
}

uint16_t swrap_pcap_state_fork_prepare(struct swrap_pcap_state *s,
				       uint16_t parent, uint32_t *serial)
{
	struct swrap_pcap_proc *p;
	uint16_t child = 0;

	*serial = 0;
	if (s->private_table || parent == 0) {
		return 0;
	}
	swrap_pcap_state_lock(s);
	p = proc_alloc(s);
	if (p != NULL) {
		p->state = PROC_RESERVED;
		p->parent = parent;
		p->parent_pid = s->procs[parent - 1].pid;
		p->serial = ++s->serial;
		*serial = p->serial;
		child = (uint16_t)(p - s->procs + 1);
		hold_as(s, parent, child);
	}
	swrap_pcap_state_unlock(s);
	return child;
}

/* The reservation `child` is still the one made with `serial`. */
static bool reserved(struct swrap_pcap_state *s, uint16_t child,
		     uint32_t serial)
{
	return child != 0 && child <= SWRAP_PCAP_PROCS &&
	       s->procs[child - 1].state == PROC_RESERVED &&
	       s->procs[child - 1].serial == serial;
}

void swrap_pcap_state_fork_failed(struct swrap_pcap_state *s, uint16_t child,
				  uint32_t serial)
{
	size_t i;
	int end;

	swrap_pcap_state_lock(s);
	if (reserved(s, child, serial)) {
		for (i = 0; i < SWRAP_PCAP_CONNS; i++) {
			for (end = 0; end < 2 && s->procs[child - 1].nheld > 0;
			     end++) {
				(void)unhold(s, &s->conns[i], end, child);
			}
		}
		s->procs[child - 1].nheld = 0;
		s->procs[child - 1].state = PROC_FREE;
	}
	swrap_pcap_state_unlock(s);
}

uint16_t swrap_pcap_state_forked(struct swrap_pcap_state *s, uint16_t parent,
				 uint16_t child, uint32_t serial, int32_t pid)
{
	struct swrap_pcap_proc *p;
	uint64_t start = pid_start(pid);

	if (s->private_table) {
		/* Our own copy of the parent's table: we are its only
		 * process now, holding what the parent held. */
		if (parent != 0) {
			s->procs[parent - 1].pid = pid;
			s->procs[parent - 1].start = start;
		}
		return parent;
	}
	swrap_pcap_state_lock(s);
	if (!reserved(s, child, serial)) {
		/* No reservation (the table was full, or the parent took
		 * the fork for a failed one): hold what the parent holds
		 * now. */
		p = proc_alloc(s);
		child = p != NULL ? (uint16_t)(p - s->procs + 1) : 0;
		if (child != 0) {
			hold_as(s, parent, child);
		}
	}
	if (child != 0) {
		p = &s->procs[child - 1];
		p->pid = pid;
		p->start = start;
		p->parent = 0;
		p->state = PROC_LIVE;
	}
	swrap_pcap_state_unlock(s);
	if (child != 0) {
		life_lock(s, child);
	}
	return child;
}

static int ep_cmp(const struct swrap_pcap_ep *a, const struct swrap_pcap_ep *b)
{
	int r = memcmp(a->addr, b->addr, 16);

	if (r != 0) {
		return r;
	}
	return (int)a->port - (int)b->port;
}

static uint32_t key_hash(const struct swrap_pcap_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k); i++) {
		h = (h ^ p[i]) * 16777619u;
	}
	return h;
}

struct swrap_pcap_conn *swrap_pcap_state_conn(struct swrap_pcap_state *s,
					      uint8_t proto,
					      const struct swrap_pcap_ep *local,
					      const struct swrap_pcap_ep *peer,
					      int *out)
{
	struct swrap_pcap_key k;
	struct swrap_pcap_conn *c, *victim = NULL;
	int swap = ep_cmp(local, peer) > 0;
	const struct swrap_pcap_ep *e0 = swap ? peer : local;
	const struct swrap_pcap_ep *e1 = swap ? local : peer;
	uint32_t h;
	int i;

	memset(&k, 0, sizeof(k));
	k.proto = proto;
	k.family = local->family;
	k.port[0] = e0->port;
	k.port[1] = e1->port;
	memcpy(k.addr[0], e0->addr, 16);
	memcpy(k.addr[1], e1->addr, 16);
	*out = swap;

	h = key_hash(&k);
	for (i = 0; i < PROBE; i++) {
		c = &s->conns[(h + (uint32_t)i) % SWRAP_PCAP_CONNS];
		if (c->used && memcmp(&c->key, &k, sizeof(k)) == 0) {
			c->stamp = ++s->stamp;
			return c;
		}
		if (!c->used) {
			/* Entries are never removed, only replaced: the key
			 * cannot sit beyond the first free slot. */
			victim = c;
			break;
		}
		if (victim == NULL || c->stamp < victim->stamp) {
			victim = c;
		}
	}
	c = victim;
	if (c->used) {
		drop_holders(s, c);
	}
	memset(c, 0, sizeof(*c));
	c->key = k;
	c->used = 1;
	c->stamp = ++s->stamp;
	swrap_pcap_state_reset(s, c);
	return c;
}

bool swrap_pcap_state_lock_byte(size_t off)
{
	const size_t procs = offsetof(struct swrap_pcap_state, procs);
	const size_t lock = offsetof(struct swrap_pcap_state, lock);

	if (off >= lock && off < lock + sizeof(pthread_mutex_t)) {
		return true;
	}
	return off >= procs &&
	       off <
		   procs + sizeof(struct swrap_pcap_proc) * SWRAP_PCAP_PROCS &&
	       (off - procs) % sizeof(struct swrap_pcap_proc) -
		       offsetof(struct swrap_pcap_proc, life) <
		   sizeof(pthread_mutex_t);
}
