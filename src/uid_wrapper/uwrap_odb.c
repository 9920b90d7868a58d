/*
 * uwrap_odb: the owner database (see uwrap_odb.h), one file per real user,
 * /tmp/uid_wrapper-UID.owners, shared by every process of that user that
 * runs with UID_WRAPPER_FAKE_CHOWN=1: a 64-byte header, then 40-byte
 * records, only ever appended.
 *
 * Writers hold a process-wide POSIX record lock on the whole file (and the
 * process mutex below) while they append: they write the record, then
 * publish it by storing the new count into the header, which every process
 * keeps mapped (MAP_SHARED); so a reader never sees a record half written.
 * A reader compares the mapped count with the number of records it has
 * read and reads only the new ones (pread) into a hash index of its own:
 * each record is read once per process, and a lookup while nothing changed
 * is one atomic load and, if the file has records at all, one probe of the
 * index under the mutex.
 *
 * No descriptor stays open between calls (daemons close every descriptor
 * they do not know; a reused number must never be ours), only the header
 * mapping. The file is created at first use, 0600, and used only if it is
 * a regular file of the real user that no one else may write.
 *
 * Lock: odb_mutex guards everything below except odb_head (published once
 * with an atomic store, read without the lock) and the per-thread busy
 * flag. Fork: the mutex is taken around fork() (pthread_atfork), so that
 * the child's index is whole and the mutex free. Cancellation is disabled
 * while a thread holds it (open, pread and a waiting fcntl are
 * cancellation points: a thread cancelled there would keep it forever).
 */
#include "uwrap_odb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "uwrap_libc.h"

#define ODB_MAGIC "UWRAPOWN"
#define ODB_VERSION 1u
#define ODB_HEAD_SIZE 64u
#define ODB_REC_SIZE 40u
/* Records whose offset fits a 32-bit off_t, also for i686 processes. */
#define ODB_MAX_RECORDS ((INT32_MAX - ODB_HEAD_SIZE) / ODB_REC_SIZE)

struct odb_head {
	char magic[8];
	uint32_t version;
	uint32_t recsize;
	uint32_t count; /* records published (atomic) */
	uint32_t pad;
	uint64_t reserved[5];
};

_Static_assert(sizeof(struct odb_head) == ODB_HEAD_SIZE, "header size");
_Static_assert(sizeof(struct uwrap_odb_rec) == ODB_REC_SIZE, "record size");

enum { ODB_UNTRIED, ODB_OK, ODB_FAILED };

static pthread_mutex_t odb_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t odb_atfork_once = PTHREAD_ONCE_INIT;
static __thread int odb_busy __attribute__((tls_model("initial-exec")));
static __thread int odb_cancel_state __attribute__((tls_model("initial-exec")));
static int odb_fork_skipped;

static struct odb_head *odb_head; /* atomic */
static int odb_state;
static char odb_path[PATH_MAX];
static char odb_why[PATH_MAX + 128];
static uint64_t odb_file_dev, odb_file_ino;
static int odb_lock_fd = -1;

/* the index: newest record per (dev, ino); flags == 0 is an empty slot */
static struct uwrap_odb_rec *odb_index;
static uint32_t odb_cap, odb_used;
static uint32_t odb_loaded;    /* records read from the file */
static uint32_t odb_bad_count; /* a count the file is too short for */
static int odb_warned_rec, odb_warned_mem, odb_warned_short;

void uwrap_odb_default_path(char *buf, size_t size, uint32_t ruid)
{
	snprintf(buf, size, "/tmp/uid_wrapper-%u.owners", ruid);
}

void uwrap_odb_set_path(const char *path)
{
	snprintf(odb_path, sizeof(odb_path), "%s", path);
}

bool uwrap_odb_rec_valid(const struct uwrap_odb_rec *r)
{
	switch (r->flags & UWRAP_ODB_TYPE) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFLNK:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	default:
		return false;
	}
	if ((r->flags & ~(UWRAP_ODB_TYPE | UWRAP_ODB_BTIME | UWRAP_ODB_TOMB)) !=
	    0) {
		return false;
	}
	return r->btime_nsec < 1000000000u;
}

/* ---- the index ---- */

static uint32_t odb_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = ino * 0x9E3779B97F4A7C15ull ^ dev * 0xC2B2AE3D27D4EB4Full;

	return (uint32_t)(h ^ (h >> 29) ^ (h >> 47));
}

static struct uwrap_odb_rec *odb_slot(struct uwrap_odb_rec *tab, uint32_t cap,
				      uint64_t dev, uint64_t ino)
{
	uint32_t i = odb_hash(dev, ino) & (cap - 1);

	while (tab[i].flags != 0 && (tab[i].dev != dev || tab[i].ino != ino)) {
		i = (i + 1) & (cap - 1);
	}
	return &tab[i];
}

static bool odb_grow(void)
{
	uint32_t cap = odb_cap != 0 ? odb_cap * 2 : 64, i;
	struct uwrap_odb_rec *tab;

	if (cap == 0 || cap > UINT32_MAX / 2) {
		return false;
	}
	tab = calloc(cap, sizeof(*tab));
	if (tab == NULL) {
		return false;
	}
	for (i = 0; i < odb_cap; i++) {
		if (odb_index[i].flags != 0) {
			*odb_slot(tab, cap, odb_index[i].dev,
				  odb_index[i].ino) = odb_index[i];
		}
	}
	free(odb_index);
	odb_index = tab;
	odb_cap = cap;
	return true;
}

static void odb_insert(const struct uwrap_odb_rec *r)
{
	struct uwrap_odb_rec *s;

	if (!uwrap_odb_rec_valid(r)) {
		if (!odb_warned_rec) {
			odb_warned_rec = 1;
			CWRAP_ERROR(
			    "%s: ignoring a damaged record (flags 0x%x)",
			    odb_path, r->flags);
		}
		return;
	}
	if ((odb_used + 1) * 2 > odb_cap && !odb_grow()) {
		if (!odb_warned_mem) {
			odb_warned_mem = 1;
			CWRAP_ERROR("%s: out of memory for the index: some "
				    "fake owners are not seen",
				    odb_path);
		}
		return;
	}
	s = odb_slot(odb_index, odb_cap, r->dev, r->ino);
	if (s->flags == 0) {
		odb_used++;
	}
	*s = *r;
}

static void odb_index_reset(void)
{
	free(odb_index);
	odb_index = NULL;
	odb_cap = odb_used = odb_loaded = odb_bad_count = 0;
}

/* ---- the file ---- */

/* "owner database PATH: WHAT[: strerror(err)]" into odb_why */
static void odb_problem(const char *what, int err)
{
	snprintf(odb_why, sizeof(odb_why), "owner database %s: %s%s%s",
		 odb_path, what, err != 0 ? ": " : "",
		 err != 0 ? strerror(err) : "");
}

static void odb_fail(const char *what, int err)
{
	odb_problem(what, err);
	CWRAP_ERROR("%s", odb_why);
	__atomic_store_n(&odb_state, ODB_FAILED, __ATOMIC_RELAXED);
}

static void odb_atfork_prepare(void)
{
	if (odb_busy) {
		odb_fork_skipped = 1;
		return;
	}
	pthread_mutex_lock(&odb_mutex);
}

static void odb_atfork_release(void)
{
	if (odb_fork_skipped) {
		odb_fork_skipped = 0;
		return;
	}
	pthread_mutex_unlock(&odb_mutex);
}

static void odb_atfork_register(void)
{
	pthread_atfork(odb_atfork_prepare, odb_atfork_release,
		       odb_atfork_release);
}

static int odb_open_fd(int flags)
{
	int fd;

	do {
		fd = open(odb_path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
			  0600);
	} while (fd < 0 && errno == EINTR);
	return fd;
}

static int odb_file_lock(int fd, short type)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET};

	while (fcntl(fd, F_SETLKW, &fl) != 0) {
		if (errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* fd's file is ours alone: a regular file of the real user, 0600. */
static bool odb_file_ours(int fd, struct stat *st)
{
	return fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == libc_geteuid() && (st->st_mode & 077) == 0;
}

static bool odb_head_valid(const struct odb_head *h)
{
	return memcmp(h->magic, ODB_MAGIC, 8) == 0 &&
	       h->version == ODB_VERSION && h->recsize == ODB_REC_SIZE;
}

/* Map the header of the open file fd (created if empty). */
static bool odb_map(int fd)
{
	struct odb_head h;
	struct stat st;
	void *m;

	if (!odb_file_ours(fd, &st)) {
		odb_fail("not a regular file of the real user with mode 0600",
			 0);
		return false;
	}
	if (odb_file_lock(fd, F_WRLCK) != 0) {
		odb_fail("cannot lock it", errno);
		return false;
	}
	if (fstat(fd, &st) == 0 && st.st_size < (off_t)ODB_HEAD_SIZE) {
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, ODB_MAGIC, 8);
		h.version = ODB_VERSION;
		h.recsize = ODB_REC_SIZE;
		if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
			odb_fail("cannot write it", errno);
			return false;
		}
	} else if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
		   !odb_head_valid(&h)) {
		odb_fail("not written by this version of uid_wrapper (remove "
			 "it when no wrapped process runs)",
			 0);
		return false;
	}
	m = mmap(NULL, ODB_HEAD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (m == MAP_FAILED) {
		odb_fail("cannot map it", errno);
		return false;
	}
	/* An older mapping (of a file since replaced) stays: a lookup may
	 * still be reading its count. */
	odb_file_dev = (uint64_t)st.st_dev;
	odb_file_ino = (uint64_t)st.st_ino;
	odb_index_reset();
	__atomic_store_n(&odb_head, (struct odb_head *)m, __ATOMIC_RELEASE);
	__atomic_store_n(&odb_state, ODB_OK, __ATOMIC_RELAXED);
	return true;
}

/* mutex held */
static bool odb_open_locked(void)
{
	int fd;
	bool ok;

	if (odb_state != ODB_UNTRIED) {
		return odb_state == ODB_OK;
	}
	pthread_once(&odb_atfork_once, odb_atfork_register);
	if (odb_path[0] == '\0') {
		uwrap_odb_default_path(odb_path, sizeof(odb_path),
				       libc_getuid());
	}
	fd = odb_open_fd(O_RDWR | O_CREAT);
	if (fd < 0) {
		odb_fail("cannot open it", errno);
		return false;
	}
	ok = odb_map(fd);
	close(fd); /* also drops the record lock */
	return ok;
}

/* Read the records published since the last call (mutex held). fd: an
 * open descriptor of the file, or -1 to open one if needed. */
static void odb_sync_locked(int fd)
{
	struct odb_head *h = __atomic_load_n(&odb_head, __ATOMIC_ACQUIRE);
	struct uwrap_odb_rec buf[64];
	uint32_t count;
	int own = -1;

	if (h == NULL) {
		return;
	}
	count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
	if (count > ODB_MAX_RECORDS) {
		count = ODB_MAX_RECORDS;
	}
	if (count <= odb_loaded || count == odb_bad_count) {
		return;
	}
	if (fd < 0) {
		fd = own = odb_open_fd(O_RDONLY);
		if (fd < 0) {
			return;
		}
	}
	while (odb_loaded < count) {
		uint32_t n = count - odb_loaded, i;
		ssize_t got;

		if (n > CWRAP_ARRAY_SIZE(buf)) {
			n = CWRAP_ARRAY_SIZE(buf);
		}
		got = pread(fd, buf, n * ODB_REC_SIZE,
			    (off_t)(ODB_HEAD_SIZE +
				    (uint64_t)odb_loaded * ODB_REC_SIZE));
		if (got < (ssize_t)ODB_REC_SIZE) {
			if (got < 0 && errno == EINTR) {
				continue;
			}
			odb_bad_count = count;
			if (!odb_warned_short) {
				odb_warned_short = 1;
				CWRAP_ERROR("%s: the header counts %u records, "
					    "the file holds %u",
					    odb_path, count, odb_loaded);
			}
			break;
		}
		n = (uint32_t)((size_t)got / ODB_REC_SIZE);
		for (i = 0; i < n; i++) {
			odb_insert(&buf[i]);
		}
		odb_loaded += n;
	}
	if (own >= 0) {
		close(own);
	}
}

static bool odb_find_in_index(uint64_t dev, uint64_t ino,
			      struct uwrap_odb_rec *out)
{
	struct uwrap_odb_rec *s;

	if (odb_cap == 0) {
		return false;
	}
	s = odb_slot(odb_index, odb_cap, dev, ino);
	if (s->flags == 0) {
		return false;
	}
	*out = *s;
	return true;
}

/* ---- the interface ---- */

/* Take the process's lock: false (nothing taken) from inside it. */
static bool odb_enter(void)
{
	if (odb_busy) {
		return false;
	}
	odb_busy = 1;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &odb_cancel_state);
	pthread_mutex_lock(&odb_mutex);
	return true;
}

static void odb_leave(void)
{
	pthread_mutex_unlock(&odb_mutex);
	pthread_setcancelstate(odb_cancel_state, NULL);
	odb_busy = 0;
}

bool uwrap_odb_find(uint64_t dev, uint64_t ino, struct uwrap_odb_rec *out)
{
	struct odb_head *h = __atomic_load_n(&odb_head, __ATOMIC_ACQUIRE);
	bool found;

	if (h != NULL
		? __atomic_load_n(&h->count, __ATOMIC_ACQUIRE) == 0
		: __atomic_load_n(&odb_state, __ATOMIC_RELAXED) == ODB_FAILED) {
		return false;
	}
	if (!odb_enter()) {
		return false;
	}
	found = false;
	if (odb_open_locked()) {
		odb_sync_locked(-1);
		found = odb_find_in_index(dev, ino, out);
	}
	odb_leave();
	return found;
}

int uwrap_odb_lock(void)
{
	struct stat st;
	int fd;

	if (!odb_enter()) {
		return -1;
	}
	if (!odb_open_locked()) {
		return 0;
	}
	fd = odb_open_fd(O_RDWR | O_CREAT);
	if (fd < 0) {
		odb_problem("cannot open it", errno);
		return 0;
	}
	if (!odb_file_ours(fd, &st)) {
		close(fd);
		odb_problem("not a regular file of the real user with mode "
			    "0600",
			    0);
		return 0;
	}
	if ((uint64_t)st.st_dev != odb_file_dev ||
	    (uint64_t)st.st_ino != odb_file_ino) {
		/* removed and made again since we mapped it */
		if (!odb_map(fd)) {
			close(fd);
			return 0;
		}
	}
	if (odb_file_lock(fd, F_WRLCK) != 0) {
		odb_problem("cannot lock it", errno);
		close(fd);
		return 0;
	}
	odb_lock_fd = fd;
	odb_why[0] = '\0';
	odb_sync_locked(fd);
	return 1;
}

bool uwrap_odb_find_locked(uint64_t dev, uint64_t ino,
			   struct uwrap_odb_rec *out)
{
	return odb_find_in_index(dev, ino, out);
}

int uwrap_odb_append(const struct uwrap_odb_rec *r)
{
	struct odb_head *h = __atomic_load_n(&odb_head, __ATOMIC_ACQUIRE);
	uint32_t count;
	ssize_t n;

	if (odb_lock_fd < 0 || h == NULL) {
		return EPERM;
	}
	count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
	if (count >= ODB_MAX_RECORDS || count != odb_loaded) {
		/* full, or records we could not read: appending would
		 * overwrite or hide them */
		odb_problem(count >= ODB_MAX_RECORDS ? "full" : "damaged", 0);
		return ENOSPC;
	}
	do {
		n = pwrite(
		    odb_lock_fd, r, ODB_REC_SIZE,
		    (off_t)(ODB_HEAD_SIZE + (uint64_t)count * ODB_REC_SIZE));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)ODB_REC_SIZE) {
		int err = n < 0 ? errno : ENOSPC;

		odb_problem("cannot write it", err);
		return err;
	}
	__atomic_store_n(&h->count, count + 1, __ATOMIC_RELEASE);
	odb_insert(r);
	odb_loaded = count + 1;
	return 0;
}

void uwrap_odb_unlock(void)
{
	if (odb_lock_fd >= 0) {
		close(odb_lock_fd); /* drops the record lock */
		odb_lock_fd = -1;
	}
	odb_leave();
}

const char *uwrap_odb_problem(void)
{
	return odb_why;
}
