/*
 * Change watches: how a cache that is looked up often stops paying an
 * fstat(2) per lookup (nwrap_cache.c asks; one watch per cache, guarded by
 * the cache's lock).
 *
 * A watch is an inotify instance watching the inode the cache holds open
 * (through /proc/self/fd, so it is that inode and not whatever the name
 * means by then) for IN_MODIFY, IN_ATTRIB (which includes a link count
 * dropped by unlink or by a rename over the name), IN_MOVE_SELF,
 * IN_DELETE_SELF and IN_CLOSE_WRITE, and an io_uring with one poll on that
 * instance. The ring is set up with IORING_SETUP_COOP_TASKRUN and
 * IORING_SETUP_TASKRUN_FLAG: the writer's own system call (its write,
 * truncate, rename, unlink, chmod, utimes) queues the inotify event, which
 * wakes the poll, which sets IORING_SQ_TASKRUN in the ring's shared flags
 * before that call returns; when the thread that armed the poll next
 * enters the kernel, the flag is cleared and a completion is posted
 * instead. So the thread that built the watch sees, by reading two words of
 * memory, either the flag or a completion for any such change that
 * happened before its lookup: no system call. Other threads cannot tell a
 * flag cleared from a completion not yet posted; they keep fstat(2)ing.
 *
 * The inotify descriptor is handed to the ring (a registered file) and
 * closed, and so is the ring's descriptor once the poll is armed: the
 * mappings keep both alive, no descriptor of ours is left for the
 * application to see or close, and unmapping frees them (the kernel does
 * so shortly after, not at once). A watch that fired is unmapped, never
 * re-armed: the cache fstat(2)s again, reloads if the file changed, and
 * builds a new watch once it is hot again.
 *
 * A watch is built only for a cache found fresh by fstat(2)
 * NWRAP_WATCH_HOT times within NWRAP_WATCH_WINDOW_NS (a lookup loop, not a
 * server answering requests), at most every NWRAP_WATCH_SPACING_NS, on a
 * local filesystem whose changes inotify reports (ext2/3/4, xfs, btrfs,
 * f2fs, tmpfs, ramfs): inotify instances are few (128 per user by
 * default) and belong to the application first, so an ordinary process
 * never takes one, and nothing of it stays with a cache that keeps
 * changing. Where any step fails (io_uring disabled, an older kernel, no
 * /proc) the cache keeps fstat(2)ing; when the user's inotify instances
 * run out, the process never asks for one again. So does a process under
 * a seccomp filter: its sandbox may kill it for a call it did not list.
 * A fork()ed child (or _Fork(), or clone without CLONE_VM) does not use its
 * parent's watches: the process token lives in a MADV_WIPEONFORK page,
 * which reads zero in the child.
 * Not seen: writes through a shared mapping of the file until the writer
 * closes it (the fstat(2) check saw them at the writer's next page fault
 * after writeback), and changes made by another machine on a network
 * filesystem (not watched: not on the list above).
 */
#include "nwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* (Older kernel headers: the values are the kernel's ABI since 5.19; such
 * a kernel refuses the flags, and no watch is built.) */
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif

#define NWRAP_WATCH_HOT 5000
#define NWRAP_WATCH_WINDOW_NS (1000 * 1000 * 1000LL)
#define NWRAP_WATCH_SPACING_NS (50 * 1000 * 1000LL)
#define NWRAP_WATCH_RETRY_NS (1000 * 1000 * 1000LL)

#define NWRAP_WATCH_MASK                                                       \
	(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF | IN_CLOSE_WRITE)

/* Whether watches can be built at all in this process: set to false for
 * good when the kernel (or a seccomp filter) refuses io_uring. */
static bool nwrap_watch_refused;

/* The thread's number (0 until it builds a watch), to know the builder. */
static __thread uint64_t nwrap_watch_tid
    __attribute__((tls_model("initial-exec")));
static uint64_t nwrap_watch_tids;

/* The process token, in a page that fork() wipes; 0 in a fresh child. */
static uint64_t *nwrap_watch_page;
static uint64_t nwrap_watch_tokens;
static pthread_mutex_t nwrap_watch_page_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t nwrap_watch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* This process's token (made on first use, and again after a fork); 0 if
 * no page can be made to hold it. */
static uint64_t nwrap_watch_token(void)
{
	uint64_t t;

	nwrap_mutex_lock(&nwrap_watch_page_lock);
	if (nwrap_watch_page == NULL) {
		void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED && madvise(p, (size_t)sysconf(_SC_PAGESIZE),
					       MADV_WIPEONFORK) != 0) {
			munmap(p, (size_t)sysconf(_SC_PAGESIZE));
			p = MAP_FAILED;
		}
		if (p == MAP_FAILED) {
			nwrap_watch_refused = true;
			nwrap_mutex_unlock(&nwrap_watch_page_lock);
			return 0;
		}
		nwrap_watch_page = p;
	}
	if (*nwrap_watch_page == 0) {
		*nwrap_watch_page = ++nwrap_watch_tokens;
	}
	t = *nwrap_watch_page;
	nwrap_mutex_unlock(&nwrap_watch_page_lock);
	return t;
}

static bool nwrap_watch_mine(const struct nwrap_watch *w)
{
	return nwrap_watch_tid == w->owner && nwrap_watch_tid != 0 &&
	       __atomic_load_n(nwrap_watch_page, __ATOMIC_RELAXED) == w->token;
}

/* Unmaps what is mapped (also a ring whose setup failed half way). */
void nwrap_watch_drop(struct nwrap_watch *w)
{
	if (w->sqes != NULL) {
		munmap(w->sqes, w->sqes_len);
	}
	if (w->cq != NULL && w->cq != w->sq) {
		munmap(w->cq, w->cq_len);
	}
	if (w->sq != NULL) {
		munmap(w->sq, w->sq_len);
	}
	w->sq = w->cq = w->sqes = NULL;
	w->flags = w->cq_head = w->cq_tail = NULL;
	w->owner = 0;
	w->hot = 0;
}

bool nwrap_watch_quiet(struct nwrap_watch *w)
{
	if (w->sq == NULL) {
		return false;
	}
	if (!nwrap_watch_mine(w)) {
		if (__atomic_load_n(nwrap_watch_page, __ATOMIC_RELAXED) !=
		    w->token) {
			nwrap_watch_drop(w); /* a fork's copy of the parent's */
		}
		return false;
	}
	if (__atomic_load_n(w->flags, __ATOMIC_ACQUIRE) == 0 &&
	    __atomic_load_n(w->cq_tail, __ATOMIC_ACQUIRE) ==
		__atomic_load_n(w->cq_head, __ATOMIC_RELAXED)) {
		return true;
	}
	nwrap_watch_drop(w); /* it fired: the caller fstat()s */
	return false;
}

/* Is a seccomp filter installed (or can we not tell)? Its owner chose the
 * system calls the process may make, and the calls a watch needs may kill
 * it (sandboxes often kill on anything not listed): such a process keeps
 * the fstat it was allowed before. */
static bool nwrap_watch_filtered(void)
{
	char buf[4096];
	const char *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return true;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return true;
	}
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:");
	return p == NULL || strtol(p + 9, NULL, 10) != 0;
}

/* Does inotify see every change made on this filesystem? */
static bool nwrap_watch_local_fs(int fd)
{
	static const unsigned long local[] = {
	    0xEF53,	/* ext2, ext3, ext4 */
	    0x58465342, /* xfs */
	    0x9123683E, /* btrfs */
	    0xF2F52010, /* f2fs */
	    0x01021994, /* tmpfs */
	    0x858458F6, /* ramfs */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) != 0) {
		return false;
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(local); i++) {
		if ((unsigned long)sf.f_type == local[i]) {
			return true;
		}
	}
	return false;
}

static void *nwrap_watch_map(int ring, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, ring, off);

	return p == MAP_FAILED ? NULL : p;
}

/* The ring, mapped into w, with its poll on `ino` armed; false if the
 * kernel refused (then nwrap_watch_drop() unmaps what was mapped). Closes
 * no descriptor. */
static bool nwrap_watch_ring(struct nwrap_watch *w, int ring,
			     const struct io_uring_params *p, int ino)
{
	struct io_uring_sqe *sqe;
	unsigned *tail;
	int files[1] = {ino};

	w->sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	w->cq_len =
	    p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		w->sq_len = w->sq_len > w->cq_len ? w->sq_len : w->cq_len;
	}
	w->sqes_len = p->sq_entries * sizeof(struct io_uring_sqe);
	w->sq = nwrap_watch_map(ring, w->sq_len, IORING_OFF_SQ_RING);
	w->cq = (p->features & IORING_FEAT_SINGLE_MMAP)
		    ? w->sq
		    : nwrap_watch_map(ring, w->cq_len, IORING_OFF_CQ_RING);
	w->sqes = nwrap_watch_map(ring, w->sqes_len, IORING_OFF_SQES);
	if (w->sq == NULL || w->cq == NULL || w->sqes == NULL) {
		return false; /* the caller drops what was mapped */
	}
	w->flags = (unsigned *)((char *)w->sq + p->sq_off.flags);
	w->cq_head = (unsigned *)((char *)w->cq + p->cq_off.head);
	w->cq_tail = (unsigned *)((char *)w->cq + p->cq_off.tail);
	if (syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES, files,
		    1) != 0) {
		return false;
	}
	sqe = w->sqes;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->fd = 0; /* the registered inotify instance */
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->poll32_events = POLLIN;
	((unsigned *)((char *)w->sq + p->sq_off.array))[0] = 0;
	tail = (unsigned *)((char *)w->sq + p->sq_off.tail);
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	return syscall(SYS_io_uring_enter, ring, 1, 0, 0, NULL, 0) == 1;
}

/* Watch the inode `fd` names; false (and nothing kept) if it cannot. */
static bool nwrap_watch_build(struct nwrap_watch *w, int fd)
{
	struct io_uring_params p;
	char proc[40];
	int ino, ring;
	uint64_t token = nwrap_watch_token();

	if (token == 0 || !nwrap_watch_local_fs(fd)) {
		return false;
	}
	if (nwrap_watch_filtered()) {
		nwrap_watch_refused = true; /* filters are never removed */
		return false;
	}
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0) {
		if (errno == EMFILE || errno == ENFILE) {
			/* the user's instances are scarce: they are the
			 * application's, never asked for again */
			nwrap_watch_refused = true;
		}
		return false;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (inotify_add_watch(ino, proc, NWRAP_WATCH_MASK) < 0) {
		close(ino);
		return false;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	ring = (int)syscall(SYS_io_uring_setup, 2, &p);
	if (ring < 0) {
		if (errno == ENOSYS || errno == EPERM || errno == EINVAL ||
		    errno == EACCES) {
			nwrap_watch_refused = true;
		}
		close(ino);
		return false;
	}
	if (!nwrap_watch_ring(w, ring, &p, ino)) {
		nwrap_watch_drop(w);
		close(ring);
		close(ino);
		return false;
	}
	close(ring);
	close(ino);
	if (nwrap_watch_tid == 0) {
		nwrap_watch_tid =
		    __atomic_add_fetch(&nwrap_watch_tids, 1, __ATOMIC_RELAXED);
	}
	w->owner = nwrap_watch_tid;
	w->token = token;
	return true;
}

bool nwrap_watch_fresh(struct nwrap_watch *w, int fd)
{
	int64_t now;

	if (w->sq != NULL || nwrap_watch_refused) {
		return false;
	}
	if (w->hot++ == 0) {
		w->hot_since = nwrap_watch_now();
		return false;
	}
	if (w->hot < NWRAP_WATCH_HOT) {
		return false;
	}
	now = nwrap_watch_now();
	w->hot = 0;
	if (now - w->hot_since > NWRAP_WATCH_WINDOW_NS || now < w->next_build) {
		return false; /* not that hot: a new window starts */
	}
	if (!nwrap_watch_build(w, fd)) {
		w->next_build = now + NWRAP_WATCH_RETRY_NS;
		return false;
	}
	w->next_build = now + NWRAP_WATCH_SPACING_NS;
	return true;
}
