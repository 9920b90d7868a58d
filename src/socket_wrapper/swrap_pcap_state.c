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
#include <unistd.h>

#include "cwrap_log.h"

#define STATE_MAGIC 0x53575043u /* "SWPC" */
#define SWRAP_PCAP_CONNS 4096
#define PROBE 16
#define FORK_SLOTS 32

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
	/* Children forked but not yet registered, per parent. */
	int32_t fork_pid[FORK_SLOTS];
	int32_t fork_pending[FORK_SLOTS];
	uint32_t closing; /* ends marked closing (an upper bound) */
	struct swrap_pcap_conn conns[SWRAP_PCAP_CONNS];
};

static void state_init_lock(struct swrap_pcap_state *s, bool shared)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	if (shared) {
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	}
	if (pthread_mutex_init(&s->lock, &a) != 0) {
		CWRAP_FATAL("pthread_mutex_init failed");
	}
	pthread_mutexattr_destroy(&a);
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

struct swrap_pcap_state *swrap_pcap_state_open(const char *pcap_path,
					       int pcap_fd, bool fresh)
{
	struct swrap_pcap_state *s;
	struct stat pst, st;
	char path[4096];
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
	if (fstat(fd, &st) != 0 || (st.st_size < (off_t)sizeof(*s) &&
				    ftruncate(fd, (off_t)sizeof(*s)) != 0)) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: cannot size %s (%s), "
			   "capture state is private to this process",
			   path, strerror(errno));
		close(fd);
		return state_private();
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: cannot map %s (%s), "
			   "capture state is private to this process",
			   path, strerror(errno));
		return state_private();
	}
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
	if (s->magic != STATE_MAGIC || s->layout != sizeof(*s)) {
		CWRAP_WARN("SOCKET_WRAPPER_PCAP_FILE: %s has another layout, "
			   "capture state is private to this process",
			   path);
		munmap(s, sizeof(*s));
		return state_private();
	}
	swrap_pcap_state_lock(s);
	if (fresh || s->file_dev != (uint64_t)pst.st_dev ||
	    s->file_ino != (uint64_t)pst.st_ino) {
		/* A new capture: the connections of an old one are gone. */
		memset(s->conns, 0, sizeof(s->conns));
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

void swrap_pcap_state_atfork_child(struct swrap_pcap_state *s)
{
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

void swrap_pcap_state_reset(struct swrap_pcap_state *s,
			    struct swrap_pcap_conn *c)
{
	c->flags = 0;
	memset(c->dir, 0, sizeof(c->dir));
	memset(c->holders, 0, sizeof(c->holders));
	c->dir[0].isn = swrap_pcap_state_random(s);
	c->dir[1].isn = swrap_pcap_state_random(s);
}

/* Alive, and not a zombie waiting to be reaped. */
static bool pid_alive(int32_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) != 0 && errno != EPERM) {
		return false;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return true;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return true;
	}
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p == NULL || p[1] != ' ' || (p[2] != 'Z' && p[2] != 'X');
}

void swrap_pcap_state_hold(struct swrap_pcap_conn *c, int end, int32_t pid)
{
	int32_t *h = c->holders[end];
	int i, free_slot = -1;

	for (i = 0; i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] == pid) {
			return;
		}
		if (h[i] == 0 && free_slot < 0) {
			free_slot = i;
		}
	}
	for (i = 0; free_slot < 0 && i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] > 0 && !pid_alive(h[i])) {
			free_slot = i;
		}
	}
	if (free_slot >= 0) {
		h[free_slot] = pid;
	}
}

static int fork_slot(struct swrap_pcap_state *s, int32_t pid, bool add)
{
	int i, free_slot = -1;

	for (i = 0; i < FORK_SLOTS; i++) {
		if (s->fork_pid[i] == pid) {
			return i;
		}
		if (free_slot < 0 &&
		    (s->fork_pid[i] == 0 || !pid_alive(s->fork_pid[i]))) {
			free_slot = i;
		}
	}
	if (add && free_slot >= 0) {
		s->fork_pid[free_slot] = pid;
		s->fork_pending[free_slot] = 0;
		return free_slot;
	}
	return -1;
}

/* A holder: a live process, or (-pid) the child pid is forking. */
static bool holder_alive(struct swrap_pcap_state *s, int32_t h)
{
	int i;

	if (h > 0) {
		return pid_alive(h);
	}
	i = fork_slot(s, -h, false);
	return i >= 0 && s->fork_pending[i] > 0 && pid_alive(-h);
}

void swrap_pcap_state_fork_prepare(struct swrap_pcap_state *s, int32_t parent)
{
	int i;

	swrap_pcap_state_lock(s);
	i = fork_slot(s, parent, true);
	if (i >= 0) {
		s->fork_pending[i]++;
	}
	swrap_pcap_state_unlock(s);
}

bool swrap_pcap_state_release(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end, int32_t pid)
{
	int32_t *h = c->holders[end];
	bool others = false;
	int i = fork_slot(s, pid, false);
	/* A child of ours is being born with this descriptor: it takes
	 * our place (as -pid) when it registers. */
	int32_t heir = i >= 0 && s->fork_pending[i] > 0 ? -pid : 0;

	for (i = 0; i < SWRAP_PCAP_HOLDERS; i++) {
		if (h[i] == pid) {
			h[i] = heir;
		}
		if (h[i] != 0) {
			if (holder_alive(s, h[i])) {
				others = true;
			} else {
				h[i] = 0;
			}
		}
	}
	return others;
}

void swrap_pcap_state_closing(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn *c, int end)
{
	if (!(c->flags & SWRAP_PCAP_F_CLOSING(end))) {
		c->flags |= SWRAP_PCAP_F_CLOSING(end);
		s->closing++;
	}
}

size_t swrap_pcap_state_sweep(struct swrap_pcap_state *s,
			      struct swrap_pcap_conn **conns, int *ends,
			      size_t max)
{
	uint32_t left = 0;
	size_t i, n = 0;
	int end, k;

	if (s->closing == 0) {
		return 0;
	}
	for (k = 0; k < FORK_SLOTS; k++) {
		if (s->fork_pending[k] > 0 && pid_alive(s->fork_pid[k])) {
			/* A child is being born that may hold one of them
			 * and has not said so yet: later. */
			return 0;
		}
	}
	for (i = 0; i < SWRAP_PCAP_CONNS; i++) {
		struct swrap_pcap_conn *c = &s->conns[i];

		for (end = 0; end < 2; end++) {
			bool held = false;

			if (!c->used ||
			    !(c->flags & SWRAP_PCAP_F_CLOSING(end))) {
				continue;
			}
			for (k = 0; k < SWRAP_PCAP_HOLDERS; k++) {
				if (c->holders[end][k] != 0 &&
				    holder_alive(s, c->holders[end][k])) {
					held = true;
				}
			}
			if (held || n == max) {
				left++;
				continue;
			}
			c->flags &= ~SWRAP_PCAP_F_CLOSING(end);
			conns[n] = c;
			ends[n] = end;
			n++;
		}
	}
	s->closing = left;
	return n;
}

void swrap_pcap_state_forked(struct swrap_pcap_state *s, int32_t parent,
			     int32_t child)
{
	size_t i;
	int end, k;

	swrap_pcap_state_lock(s);
	k = fork_slot(s, parent, false);
	if (k >= 0 && s->fork_pending[k] > 0) {
		s->fork_pending[k]--;
	}
	for (i = 0; i < SWRAP_PCAP_CONNS; i++) {
		struct swrap_pcap_conn *c = &s->conns[i];

		if (!c->used || c->key.proto != 6) {
			continue;
		}
		for (end = 0; end < 2; end++) {
			for (k = 0; k < SWRAP_PCAP_HOLDERS; k++) {
				if (c->holders[end][k] == -parent) {
					/* our parent closed it meanwhile */
					c->holders[end][k] = child;
					break;
				}
				if (c->holders[end][k] == parent) {
					swrap_pcap_state_hold(c, end, child);
					break;
				}
			}
		}
	}
	swrap_pcap_state_unlock(s);
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
	memset(c, 0, sizeof(*c));
	c->key = k;
	c->used = 1;
	c->stamp = ++s->stamp;
	swrap_pcap_state_reset(s, c);
	return c;
}
