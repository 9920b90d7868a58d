/*
 * File caches: the parsed RESOLV_WRAPPER_CONF and RESOLV_WRAPPER_HOSTS,
 * each guarded by its own mutex, held while a call reads what was parsed
 * (the hosts answer is built under it: a few microseconds). Every call
 * stat(2)s the path named by the variable now: a different file, or one
 * whose inode, size, mtime or ctime moved (an edit in place, a rename
 * over it), is read and parsed again; an unchanged one costs that one
 * stat (and, for a file read in the same clock tick as its last write,
 * a read and a digest of its bytes until that tick is past). A file that
 * cannot be read is reported once (until it changes) and answers as an
 * empty one: no nameservers, no records; for RESOLV_WRAPPER_CONF its errno
 * is kept, which res_init() returns (rwrap_conf_get). No code path
 * holds both locks. The fork handlers take both, so a child never
 * inherits one held by a thread it does not have.
 */
#include "rwrap.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* larger files are refused: a record file is a test fixture */
#define RWRAP_FILE_MAX (64L * 1024 * 1024)

struct rwrap_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	int err; /* errno of stat(2) */
};

struct rwrap_cache {
	pthread_mutex_t lock;
	char *path;
	bool loaded;
	struct rwrap_stamp stamp;
	int read_err; /* errno of a file that could not be read, or 0 */
	struct rwrap_conf conf;
	struct rwrap_db *db;
	/* read within RWRAP_RACY_NS of its mtime: an edit in the same clock
	 * tick may keep size and times, so the bytes are compared until a
	 * read comes later than that */
	bool racy;
	uint64_t digest;
};

#define RWRAP_RACY_NS (50 * 1000 * 1000LL)

static struct rwrap_cache rwrap_conf_cache = {.lock =
						  PTHREAD_MUTEX_INITIALIZER};
static struct rwrap_cache rwrap_hosts_cache = {.lock =
						   PTHREAD_MUTEX_INITIALIZER};

static void rwrap_lock(pthread_mutex_t *m)
{
	if (pthread_mutex_lock(m) != 0) {
		CWRAP_FATAL("cannot lock a file cache");
	}
}

static void rwrap_unlock(pthread_mutex_t *m)
{
	if (pthread_mutex_unlock(m) != 0) {
		CWRAP_FATAL("cannot unlock a file cache");
	}
}

void rwrap_cache_atfork_prepare(void)
{
	rwrap_lock(&rwrap_conf_cache.lock);
	rwrap_lock(&rwrap_hosts_cache.lock);
}

void rwrap_cache_atfork_parent(void)
{
	rwrap_unlock(&rwrap_hosts_cache.lock);
	rwrap_unlock(&rwrap_conf_cache.lock);
}

void rwrap_cache_atfork_child(void)
{
	pthread_mutex_init(&rwrap_hosts_cache.lock, NULL);
	pthread_mutex_init(&rwrap_conf_cache.lock, NULL);
}

char *rwrap_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int saved;

	if (fd < 0) {
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if (st.st_size > RWRAP_FILE_MAX) {
		errno = EFBIG;
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		goto fail;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			goto fail;
		}
		if (n == 0) {
			break; /* shrunk meanwhile: the next stat sees it */
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	*len = got;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

static uint64_t rwrap_digest(const char *text, size_t len)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 1099511628211ull;
	}
	return h ^ len;
}

/* Whether the file may still be written within its mtime's tick. */
static bool rwrap_racy(const struct rwrap_stamp *st)
{
	struct timespec now;
	long long d;

	clock_gettime(CLOCK_REALTIME, &now);
	d = ((long long)now.tv_sec - st->mtime.tv_sec) * 1000000000LL +
	    (now.tv_nsec - st->mtime.tv_nsec);
	return st->err == 0 && d < RWRAP_RACY_NS;
}

static bool rwrap_stamp_equal(const struct rwrap_stamp *a,
			      const struct rwrap_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec && a->err == b->err;
}

/* Bring cache c up to date with `path` (lock held): re-read and parse
 * when the file is another or changed. */
static void rwrap_refresh(struct rwrap_cache *c, const char *path, bool hosts)
{
	struct rwrap_stamp now = {0};
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int read_err = 0;
	const char *what =
	    hosts ? "RESOLV_WRAPPER_HOSTS" : "RESOLV_WRAPPER_CONF";

	if (stat(path, &st) == 0) {
		now.dev = st.st_dev;
		now.ino = st.st_ino;
		now.size = st.st_size;
		now.mtime = st.st_mtim;
		now.ctime = st.st_ctim;
	} else {
		now.err = errno;
	}
	if (c->loaded && c->path != NULL && strcmp(c->path, path) == 0 &&
	    rwrap_stamp_equal(&c->stamp, &now)) {
		if (!c->racy) {
			return;
		}
		c->racy = rwrap_racy(&now);
		text = rwrap_read_file(path, &len);
		if (text == NULL || rwrap_digest(text, len) == c->digest) {
			free(text);
			return;
		}
		CWRAP_DEBUG("%s changed within one clock tick", path);
	} else if (now.err == 0) {
		bool racy = rwrap_racy(&now);

		text = rwrap_read_file(path, &len);
		if (text == NULL) {
			/* (kept apart from the stamp: an unchanged file that
			 * cannot be read is not read again, nor reported) */
			read_err = errno;
		}
		c->racy = racy;
	} else {
		read_err = now.err;
	}
	c->read_err = read_err;
	if (text != NULL) {
		c->digest = rwrap_digest(text, len);
	} else {
		c->racy = false;
	}
	if (text == NULL) {
		CWRAP_ERROR("%s=%s: cannot read it (%s): %s", what, path,
			    strerror(read_err),
			    hosts ? "answering as from an empty file"
				  : "res_init() and res_ninit() fail, and "
				    "no nameserver is asked");
	}
	free(c->path);
	c->path = strdup(path);
	c->stamp = now;
	c->loaded = c->path != NULL;
	if (hosts) {
		rwrap_db_free(c->db);
		c->db = rwrap_db_parse(path, text != NULL ? text : "", len);
		CWRAP_DEBUG("%s: %zu records", path, rwrap_db_count(c->db));
	} else {
		rwrap_conf_parse(path, text != NULL ? text : "", &c->conf);
		CWRAP_DEBUG("%s: %d nameservers, %d search domains", path,
			    c->conf.nns, c->conf.nsearch);
	}
	free(text);
}

int rwrap_conf_get(const char *path, struct rwrap_conf *out)
{
	const char *s;
	int err = 0;

	if (path != NULL) {
		rwrap_lock(&rwrap_conf_cache.lock);
		rwrap_refresh(&rwrap_conf_cache, path, false);
		*out = rwrap_conf_cache.conf;
		err = rwrap_conf_cache.read_err;
		rwrap_unlock(&rwrap_conf_cache.lock);
	} else {
		rwrap_conf_defaults(out);
	}
	/* the resolver's variables, read at each call as glibc's res_init
	 * reads them */
	s = getenv("LOCALDOMAIN");
	if (s != NULL && *s != '\0') {
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s", s);
		out->nsearch = 0;
		{
			char *save = NULL, *d;

			for (d = strtok_r(buf, " \t\n", &save);
			     d != NULL && out->nsearch < RWRAP_MAXDNSRCH;
			     d = strtok_r(NULL, " \t\n", &save)) {
				if (rwrap_name_valid(d) &&
				    strcmp(d, ".") != 0) {
					rwrap_name_key(
					    d, out->search[out->nsearch++],
					    256);
				}
			}
		}
	}
	s = getenv("RES_OPTIONS");
	if (s != NULL && *s != '\0') {
		rwrap_conf_options(out, s, "RES_OPTIONS");
	}
	return err;
}

int rwrap_hosts_answer(const char *path, const struct rwrap_question *q,
		       uint8_t *out, size_t cap)
{
	int n;

	rwrap_lock(&rwrap_hosts_cache.lock);
	rwrap_refresh(&rwrap_hosts_cache, path, true);
	n = rwrap_db_answer(rwrap_hosts_cache.db, q, out, cap);
	rwrap_unlock(&rwrap_hosts_cache.lock);
	return n;
}
