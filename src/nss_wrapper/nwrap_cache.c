/*
 * File caches: one per database (passwd, group, shadow, hosts, and the
 * services file getaddrinfo reads while NSS_WRAPPER_HOSTS is set), each a
 * file name and the db parsed from it, guarded by the cache's own mutex,
 * which lookups hold while they read the db (and its enumeration
 * position). No code path holds two cache locks at once.
 *
 * Freshness: the file loaded is kept open (O_CLOEXEC) and every acquire
 * fstat(2)s it: an edit in place changes its size, mtime or ctime; a
 * replacement by rename (or an unlink) drops its link count to zero or
 * changes its ctime. Only then is the path stat(2)ed and the file read
 * again. So both are seen on the next lookup, and an unchanged file costs
 * one fstat, without a path walk; a changed one is read again, and parsed
 * again only if its bytes differ. An enumeration checks at its first
 * entry only (nwrap_cache_acquire_next): it then reads the records it
 * started with, as glibc's reads on in the file it opened, and costs no
 * system call per entry (an fstat per entry made enumerating 2000 users
 * cost more than loading them). The name follows the configuration
 * (nwrap_config()): when a variable names another file, the next acquire
 * drops what was loaded. Only regular files up to NWRAP_FILE_MAX are read
 * (opened with O_NONBLOCK, so a FIFO cannot block); anything else is
 * reported once and answers as an empty file. If the application closed our
 * descriptor, its number now names another file (or none): the stamp does
 * not match, the path is checked and the file opened again; a descriptor
 * is closed only while it still names the file we loaded.
 * Timestamps are coarse (a clock tick), so a file
 * read within NWRAP_RACY_NS of its mtime may be rewritten again with the
 * same stamp: until a read happens after that window, the bytes are read
 * again and compared by digest; the file is parsed again only if they
 * differ.
 */
#include "nwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NWRAP_RACY_NS (30 * 1000 * 1000LL)

struct nwrap_cache nwrap_cache_passwd =
    NWRAP_CACHE_CONFIG(NWRAP_PASSWD, "NSS_WRAPPER_PASSWD");
struct nwrap_cache nwrap_cache_group =
    NWRAP_CACHE_CONFIG(NWRAP_GROUP, "NSS_WRAPPER_GROUP");
struct nwrap_cache nwrap_cache_shadow =
    NWRAP_CACHE_CONFIG(NWRAP_SHADOW, "NSS_WRAPPER_SHADOW");
struct nwrap_cache nwrap_cache_hosts =
    NWRAP_CACHE_CONFIG(NWRAP_HOSTS, "NSS_WRAPPER_HOSTS");
struct nwrap_cache nwrap_cache_services =
    NWRAP_CACHE_CONFIG(NWRAP_SERVICES, "services file");

static struct nwrap_cache *const nwrap_caches[] = {
    &nwrap_cache_passwd, &nwrap_cache_group,	&nwrap_cache_shadow,
    &nwrap_cache_hosts,	 &nwrap_cache_services,
};

static void nwrap_stamp_of(const struct stat *st, struct nwrap_stamp *s)
{
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->nlink = st->st_nlink;
	s->size = st->st_size;
	s->mtime_ns =
	    (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	s->ctime_ns =
	    (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
}

static bool nwrap_stamp_eq(const struct nwrap_stamp *a,
			   const struct nwrap_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->nlink == b->nlink &&
	       a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

static int64_t nwrap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A 64-bit digest of the bytes, to tell a file rewritten with the same
 * bytes from a changed one: eight bytes a step in two independent lanes
 * (so two multiplications run at once), order-sensitive, every input bit
 * reaching the whole state through the final mix. */
static uint64_t nwrap_digest(const char *p, size_t len)
{
	const uint64_t k1 = 0x9E3779B97F4A7C15ULL, k2 = 0xC2B2AE3D27D4EB4FULL;
	uint64_t a = len ^ k2, b = k1, w;
	size_t i = 0;

	for (; i + 16 <= len; i += 16) {
		memcpy(&w, p + i, 8);
		a = ((a ^ w) * k1);
		a ^= a >> 29;
		memcpy(&w, p + i + 8, 8);
		b = ((b ^ w) * k2);
		b ^= b >> 31;
	}
	for (; i < len; i++) {
		a = (a ^ (unsigned char)p[i]) * k1;
		a ^= a >> 29;
	}
	a ^= b * k1 + (b >> 32);
	a ^= a >> 33;
	a *= k2;
	a ^= a >> 29;
	return a;
}

/* Close c->fd if it still names the file we loaded. */
static void nwrap_cache_close(struct nwrap_cache *c)
{
	struct stat st;

	if (c->fd >= 0 && fstat(c->fd, &st) == 0 && st.st_dev == c->stamp.dev &&
	    st.st_ino == c->stamp.ino) {
		close(c->fd);
	}
	c->fd = -1;
}

static void nwrap_cache_drop(struct nwrap_cache *c)
{
	nwrap_cache_close(c);
	nwrap_db_free(c->db);
	c->db = NULL;
	memset(&c->stamp, 0, sizeof(c->stamp));
	c->digest = 0;
}

/* Report once (until the file loads again) why it is not used; lookups
 * answer as for an empty file. */
static void nwrap_cache_refuse(struct nwrap_cache *c, const char *why)
{
	if (!c->reported) {
		CWRAP_ERROR("%s=%s: %s; read as an empty file", c->var, c->path,
			    why);
		c->reported = true;
	}
	nwrap_cache_drop(c);
}

static void nwrap_cache_unreadable(struct nwrap_cache *c, int err)
{
	char why[128];

	snprintf(why, sizeof(why), "cannot read the file: %s", strerror(err));
	nwrap_cache_refuse(c, why);
}

static const char *nwrap_file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

/* The whole file, NUL-terminated, malloc'd; NULL with errno on failure
 * (EFBIG past NWRAP_FILE_MAX: the file grew after its fstat). */
static char *nwrap_read_fd(int fd, size_t hint, size_t *len)
{
	size_t cap = hint + 2, n = 0;
	char *buf = malloc(cap);

	if (buf == NULL) {
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			char *p = realloc(buf, cap * 2);

			if (p == NULL) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			int err = errno;

			free(buf);
			errno = err;
			return NULL;
		}
		if (r == 0) {
			break;
		}
		n += (size_t)r;
		if (n > NWRAP_FILE_MAX) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void nwrap_cache_load(struct nwrap_cache *c)
{
	struct stat st;
	struct nwrap_stamp s;
	struct nwrap_db *db;
	size_t len = 0;
	uint64_t digest;
	int64_t now;
	char *text;
	int fd;

	/* O_NONBLOCK: a FIFO without a writer must not block the open */
	fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		nwrap_cache_unreadable(c, errno);
		return;
	}
	if (fstat(fd, &st) != 0) {
		int err = errno;

		close(fd);
		nwrap_cache_unreadable(c, err);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		char why[64];

		close(fd);
		snprintf(why, sizeof(why), "%s, not a regular file",
			 nwrap_file_type(st.st_mode));
		nwrap_cache_refuse(c, why);
		return;
	}
	if ((uint64_t)st.st_size > NWRAP_FILE_MAX) {
		char why[96];

		close(fd);
		snprintf(why, sizeof(why),
			 "%lld bytes, more than the %u MiB "
			 "accepted",
			 (long long)st.st_size, NWRAP_FILE_MAX >> 20);
		nwrap_cache_refuse(c, why);
		return;
	}
	now = nwrap_now_ns();
	text = nwrap_read_fd(fd, (size_t)st.st_size, &len);
	if (text == NULL) {
		int err = errno;

		close(fd);
		if (err == EFBIG) {
			nwrap_cache_refuse(c, "grew past the size accepted "
					      "while it was read");
			return;
		}
		nwrap_cache_unreadable(c, err);
		return;
	}
	nwrap_stamp_of(&st, &s);
	c->reported = false;
	digest = nwrap_digest(text, len);
	if (c->db != NULL && digest == c->digest) {
		/* same bytes: keep the parsed records */
		free(text);
	} else {
		db = nwrap_db_build(c->kind, c->path, text, len);
		if (db == NULL) {
			CWRAP_ERROR("%s=%s: cannot load: %s", c->var, c->path,
				    strerror(errno));
			close(fd);
			return; /* keep the old records; retried next time */
		}
		CWRAP_DEBUG("%s: loaded %zu records from %zu bytes", c->path,
			    db->n, len);
		nwrap_db_free(c->db);
		c->db = db;
		c->digest = digest;
		c->loads++;
	}
	nwrap_cache_close(c);
	c->fd = fd;
	c->stamp = s;
	c->read_ns = now;
}

static bool nwrap_cache_fresh(const struct nwrap_cache *c,
			      const struct stat *st)
{
	struct nwrap_stamp s;

	nwrap_stamp_of(st, &s);
	return c->db != NULL && st->st_nlink > 0 &&
	       nwrap_stamp_eq(&s, &c->stamp) &&
	       c->read_ns > s.mtime_ns + NWRAP_RACY_NS;
}

static void nwrap_cache_refresh(struct nwrap_cache *c)
{
	struct stat st;

	if (c->fd < 0) {
		nwrap_cache_load(c);
		return;
	}
	if (fstat(c->fd, &st) == 0 && nwrap_cache_fresh(c, &st)) {
		return;
	}
	nwrap_cache_load(c); /* reads and compares; parses only new bytes */
}

/* The configuration now names `path` (NULL: no file) for this cache. */
static void nwrap_cache_retarget(struct nwrap_cache *c, const char *path)
{
	if (path == NULL || c->path == NULL || strcmp(path, c->path) != 0) {
		nwrap_cache_drop(c);
		c->reported = false;
		c->enum_pos = 0;
	}
	c->path = path; /* readings are never freed: the pointer stays valid */
}

const struct nwrap_db *nwrap_cache_acquire(struct nwrap_cache *c)
{
	/* before the lock: building a configuration may call back into us */
	return nwrap_cache_acquire_in(c, c->follow ? nwrap_config() : NULL);
}

/* `next`: the next entry of an enumeration under way, which reads the
 * records loaded at its first entry without checking the file again. */
static const struct nwrap_db *
nwrap_cache_lock_fresh(struct nwrap_cache *c, const struct nwrap_config *cfg,
		       bool next)
{
	int saved_errno = errno;
	const char *want = c->follow ? cfg->file[c->kind] : NULL;

	nwrap_mutex_lock(&c->lock);
	if (c->follow && want != c->path) {
		nwrap_cache_retarget(c, want);
	}
	if (c->path != NULL && !(next && c->enum_pos > 0 && c->db != NULL)) {
		nwrap_cache_refresh(c);
	}
	errno = saved_errno;
	return c->db;
}

const struct nwrap_db *nwrap_cache_acquire_in(struct nwrap_cache *c,
					      const struct nwrap_config *cfg)
{
	return nwrap_cache_lock_fresh(c, cfg, false);
}

const struct nwrap_db *nwrap_cache_acquire_next(struct nwrap_cache *c)
{
	return nwrap_cache_lock_fresh(c, c->follow ? nwrap_config() : NULL,
				      true);
}

void nwrap_cache_release(struct nwrap_cache *c)
{
	nwrap_mutex_unlock(&c->lock);
}

void nwrap_cache_reset(struct nwrap_cache *c)
{
	nwrap_mutex_lock(&c->lock);
	nwrap_cache_drop(c);
	c->reported = false;
	c->enum_pos = 0;
	nwrap_mutex_unlock(&c->lock);
}

void nwrap_cache_atfork_prepare(void)
{
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(nwrap_caches); i++) {
		nwrap_mutex_lock(&nwrap_caches[i]->lock);
	}
}

void nwrap_cache_atfork_parent(void)
{
	for (size_t i = CWRAP_ARRAY_SIZE(nwrap_caches); i-- > 0;) {
		nwrap_mutex_unlock(&nwrap_caches[i]->lock);
	}
}

void nwrap_cache_atfork_child(void)
{
	/* the forking thread took every cache lock in prepare */
	nwrap_cache_atfork_parent();
}
