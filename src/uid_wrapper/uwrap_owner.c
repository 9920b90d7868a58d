/*
 * uwrap_owner: fake ownership (see uwrap_owner.h): where a fake owner is
 * kept, how the stat family finds it, and chown() by the kernel's rules.
 *
 * A regular file or a directory keeps its fake owner in its own user
 * extended attribute user.uid_wrapper.owner = "UID:GID:INODE" (the idea of
 * rsync's --fake-super): it dies with the file, so a new file on a reused
 * inode never inherits it; it follows hard links and renames, as an owner
 * does; and it needs no shared state. The inode number in the value tells
 * a copy (cp -a or rsync -X by a program without the setting copy the
 * attribute) from the file it was written for: a copy shows its real
 * owner. Our programs never see the attribute (listxattr() leaves it out),
 * so they do not copy it.
 *
 * What cannot take a user attribute goes to the owner database
 * (uwrap_odb.h), keyed by device, inode and birth time: symbolic links,
 * devices, fifos, sockets, files the real user may not write, file systems
 * without user attributes. A live database record wins over the
 * attribute (it is written only when the attribute could not be); an
 * attribute written later for the same file first buries the record with
 * a tombstone.
 *
 * chown() opens the file with O_PATH (the kernel's lookup errors come from
 * that open), asks the rules of uwrap_creds.c with the fake identity and
 * the owner as our world sees it, and stores the result, all under the
 * database lock, which serialises every chown of the real user's
 * processes: a chown(-1, gid) cannot lose a concurrent chown(uid, -1).
 * The set-ID bits the kernel clears on chown are cleared for real (the
 * real user owns the file), so the mode stays the kernel's own.
 *
 * State: uwrap_owner_state (set once at start) and two warn-once flags;
 * the database has its own lock.
 */
#include "uwrap_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_syscall.h"
#include "uwrap.h"
#include "uwrap_libc.h"
#include "uwrap_odb.h"

int uwrap_owner_state;

static int owner_warned_corrupt, owner_warned_copy;

void uwrap_owner_boot(void)
{
	if (uwrap_env_flag("UID_WRAPPER_FAKE_CHOWN", NULL)) {
		__atomic_store_n(&uwrap_owner_state, 1, __ATOMIC_RELAXED);
	}
}

/* ---- statx(2) in the kernel's layout (musl's headers have none) ---- */

struct uwrap_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct uwrap_statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t spare0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct uwrap_statx_ts stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t spare[14];
};

_Static_assert(sizeof(struct uwrap_statx) == 256, "struct statx size");
_Static_assert(offsetof(struct uwrap_statx, stx_btime) == 80, "stx_btime");
_Static_assert(offsetof(struct uwrap_statx, stx_dev_major) == 136,
	       "stx_dev_major");

#define UWRAP_STATX_TYPE 0x1u
#define UWRAP_STATX_MODE 0x2u
#define UWRAP_STATX_UID 0x8u
#define UWRAP_STATX_GID 0x10u
#define UWRAP_STATX_INO 0x100u
#define UWRAP_STATX_BASIC 0x7ffu
#define UWRAP_STATX_BTIME 0x800u
#define UWRAP_STATX_ATTR_IMMUTABLE 0x10u
#define UWRAP_STATX_ATTR_APPEND 0x20u

/* statx() through the next syscall() (the real one), or fstatat() on a
 * kernel without it (no birth time, no attributes then). */
static int owner_statx(int dirfd, const char *path, int flags, unsigned mask,
		       struct uwrap_statx *sx)
{
	struct stat st;

	memset(sx, 0, sizeof(*sx));
#ifdef SYS_statx
	{
		long a[6] = {dirfd,	 (long)(uintptr_t)path, flags,
			     (long)mask, (long)(uintptr_t)sx,	0};

		if (cwrap_syscall_next(SYS_statx, a) == 0) {
			return 0;
		}
		if (errno != ENOSYS) {
			return -1;
		}
	}
#endif
	if (libc_fstatat(dirfd, path, &st, flags) != 0) {
		return -1;
	}
	sx->stx_mask = UWRAP_STATX_BASIC;
	sx->stx_mode = (uint16_t)st.st_mode;
	sx->stx_uid = st.st_uid;
	sx->stx_gid = st.st_gid;
	sx->stx_ino = (uint64_t)st.st_ino;
	sx->stx_dev_major = major(st.st_dev);
	sx->stx_dev_minor = minor(st.st_dev);
	return 0;
}

static uint64_t owner_statx_dev(const struct uwrap_statx *sx)
{
	return (uint64_t)makedev(sx->stx_dev_major, sx->stx_dev_minor);
}

/* ---- the attribute's value (pure) ---- */

/* Decimal digits at *p (at least one) of a number up to max: *p moves
 * past them. */
static bool owner_parse_num(const char **p, const char *end, uint64_t max,
			    uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9') {
		return false;
	}
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (v > (max - d) / 10) {
			return false;
		}
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

bool uwrap_owner_parse(const char *s, size_t len, uint32_t *uid, uint32_t *gid,
		       uint64_t *ino)
{
	const char *p = s, *end = s + len;
	uint64_t u, g, i;

	if (len == 0 || len >= UWRAP_OWNER_VALUE_MAX) {
		return false;
	}
	if (!owner_parse_num(&p, end, UINT32_MAX - 1, &u) || p == end ||
	    *p++ != ':' || !owner_parse_num(&p, end, UINT32_MAX - 1, &g) ||
	    p == end || *p++ != ':' ||
	    !owner_parse_num(&p, end, UINT64_MAX, &i) || p != end) {
		return false;
	}
	*uid = (uint32_t)u;
	*gid = (uint32_t)g;
	*ino = i;
	return true;
}

size_t uwrap_owner_format(char *buf, uint32_t uid, uint32_t gid, uint64_t ino)
{
	int n = snprintf(buf, UWRAP_OWNER_VALUE_MAX, "%u:%u:%llu", uid, gid,
			 (unsigned long long)ino);

	return n < 0 ? 0 : (size_t)n;
}

size_t uwrap_owner_list_hide(char *list, size_t len)
{
	static const char name[] = UWRAP_OWNER_XATTR; /* with its NUL */
	char *p = list, *end = list + len;

	while (p < end) {
		size_t l = strnlen(p, (size_t)(end - p));

		l += l < (size_t)(end - p); /* the NUL, if there */
		if (l == sizeof(name) && memcmp(p, name, l) == 0) {
			memmove(p, p + l, (size_t)(end - p) - l);
			end -= l;
			continue;
		}
		p += l;
	}
	return (size_t)(end - list);
}

/* ---- the attribute on the file ---- */

/* at as a path for the *xattr() calls: its own path, or through
 * /proc/self/fd (a descriptor, or a path relative to one). NULL if too
 * long. *nofollow: use the l*xattr() call. */
static const char *owner_at_path(const struct uwrap_at *at, char *buf,
				 size_t size, bool *nofollow)
{
	const char *p = at->path;
	int n;

	*nofollow = (at->flags & AT_SYMLINK_NOFOLLOW) != 0;
	if (p == NULL || p[0] == '\0') {
		*nofollow = false;
		if (at->dirfd == AT_FDCWD) {
			return ".";
		}
		n = snprintf(buf, size, "/proc/self/fd/%d", at->dirfd);
	} else if (p[0] == '/' || at->dirfd == AT_FDCWD) {
		return p;
	} else {
		n = snprintf(buf, size, "/proc/self/fd/%d/%s", at->dirfd, p);
	}
	return n > 0 && (size_t)n < size ? buf : NULL;
}

static bool owner_at_is_fd(const struct uwrap_at *at)
{
	return (at->path == NULL || at->path[0] == '\0') &&
	       at->dirfd != AT_FDCWD;
}

/* The attribute's value: its length, or -1 and errno. */
static ssize_t owner_xattr_get(const struct uwrap_at *at, char *buf,
			       size_t size)
{
	char pbuf[PATH_MAX + 32];
	const char *p;
	bool nofollow;
	ssize_t n;

	if (owner_at_is_fd(at)) {
		n = fgetxattr(at->dirfd, UWRAP_OWNER_XATTR, buf, size);
		if (n >= 0 || errno != EBADF) {
			return n; /* EBADF: an O_PATH descriptor */
		}
	}
	p = owner_at_path(at, pbuf, sizeof(pbuf), &nofollow);
	if (p == NULL) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return nofollow ? lgetxattr(p, UWRAP_OWNER_XATTR, buf, size)
			: getxattr(p, UWRAP_OWNER_XATTR, buf, size);
}

/* Set (value != NULL) or remove the attribute: 0 or an errno value
 * (removing one that is not there is 0). */
static int owner_xattr_put(const struct uwrap_at *at, const char *value,
			   size_t len)
{
	char pbuf[PATH_MAX + 32];
	const char *p;
	bool nofollow;
	int rc = -1;

	if (owner_at_is_fd(at)) {
		rc = value != NULL ? fsetxattr(at->dirfd, UWRAP_OWNER_XATTR,
					       value, len, 0)
				   : fremovexattr(at->dirfd, UWRAP_OWNER_XATTR);
	}
	if (rc != 0 && (!owner_at_is_fd(at) || errno == EBADF)) {
		p = owner_at_path(at, pbuf, sizeof(pbuf), &nofollow);
		if (p == NULL) {
			return ENAMETOOLONG;
		}
		if (value != NULL) {
			rc =
			    nofollow
				? lsetxattr(p, UWRAP_OWNER_XATTR, value, len, 0)
				: setxattr(p, UWRAP_OWNER_XATTR, value, len, 0);
		} else {
			rc = nofollow ? lremovexattr(p, UWRAP_OWNER_XATTR)
				      : removexattr(p, UWRAP_OWNER_XATTR);
		}
	}
	if (rc == 0 || (value == NULL && errno == ENODATA)) {
		return 0;
	}
	return errno;
}

/* "path" or "descriptor N", for messages: `name` if given */
static const char *owner_at_name(const struct uwrap_at *at, const char *name,
				 char *buf, size_t size)
{
	if (name != NULL) {
		return name;
	}
	if (at->path != NULL && at->path[0] != '\0') {
		return at->path;
	}
	snprintf(buf, size, "descriptor %d", at->dirfd);
	return buf;
}

static void owner_warn_value(const struct uwrap_at *at, const char *what,
			     const char *v, ssize_t len)
{
	char shown[UWRAP_OWNER_VALUE_MAX + 1], name[32];
	ssize_t i;

	if (__atomic_exchange_n(&owner_warned_corrupt, 1, __ATOMIC_RELAXED)) {
		return;
	}
	for (i = 0; i < len && i < UWRAP_OWNER_VALUE_MAX; i++) {
		shown[i] = v[i] >= ' ' && v[i] <= '~' ? v[i] : '?';
	}
	shown[i] = '\0';
	CWRAP_ERROR("%s: ignoring its %s '%s%s' (not UID:GID:INODE); it "
		    "shows its real owner",
		    owner_at_name(at, what, name, sizeof(name)),
		    UWRAP_OWNER_XATTR, shown,
		    len > UWRAP_OWNER_VALUE_MAX ? "..." : "");
}

/* ---- finding a fake owner ---- */

enum owner_src { SRC_NONE, SRC_XATTR, SRC_DB };

/* A database record (btime known) is this file's, not an earlier one's on
 * the same inode number. */
static bool owner_same_birth(const struct uwrap_at *at, uint64_t dev,
			     uint64_t ino, const struct uwrap_odb_rec *r)
{
	struct uwrap_statx sx;
	const char *path = at->path != NULL ? at->path : "";

	if ((r->flags & UWRAP_ODB_BTIME) == 0) {
		return true;
	}
	if (owner_statx(at->dirfd, path,
			at->flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH),
			UWRAP_STATX_TYPE | UWRAP_STATX_INO | UWRAP_STATX_BTIME,
			&sx) != 0) {
		return false;
	}
	return (sx.stx_mask & UWRAP_STATX_BTIME) != 0 && sx.stx_ino == ino &&
	       owner_statx_dev(&sx) == dev &&
	       sx.stx_btime.tv_sec == r->btime_sec &&
	       sx.stx_btime.tv_nsec == r->btime_nsec;
}

/* The fake owner of the file at (dev, ino, mode from its stat) into
 * *uid, *gid, and where it was found. `what`: its name for messages
 * (NULL: from at). `locked`: inside uwrap_odb_lock(). */
static enum owner_src owner_find(const struct uwrap_at *at, const char *what,
				 uint64_t dev, uint64_t ino, uint32_t mode,
				 bool locked, uint32_t *uid, uint32_t *gid)
{
	char v[UWRAP_OWNER_VALUE_MAX];
	struct uwrap_odb_rec r;
	uint32_t u, g;
	uint64_t vino;
	ssize_t n;
	bool hit;

	hit = locked ? uwrap_odb_find_locked(dev, ino, &r)
		     : uwrap_odb_find(dev, ino, &r);
	if (hit && (r.flags & UWRAP_ODB_TOMB) == 0 &&
	    (r.flags & UWRAP_ODB_TYPE) == (mode & S_IFMT) &&
	    owner_same_birth(at, dev, ino, &r)) {
		*uid = r.uid;
		*gid = r.gid;
		return SRC_DB;
	}
	if (!S_ISREG(mode) && !S_ISDIR(mode)) {
		return SRC_NONE;
	}
	n = owner_xattr_get(at, v, sizeof(v));
	if (n < 0) {
		if (errno == ERANGE) {
			owner_warn_value(at, what, "(too long)", 10);
		}
		return SRC_NONE; /* none (ENODATA), not supported, no access */
	}
	if (!uwrap_owner_parse(v, (size_t)n, &u, &g, &vino)) {
		owner_warn_value(at, what, v, n);
		return SRC_NONE;
	}
	if (vino != ino) {
		char name[32];

		if (!__atomic_exchange_n(&owner_warned_copy, 1,
					 __ATOMIC_RELAXED)) {
			CWRAP_ERROR("%s: ignoring its %s, written for inode "
				    "%llu, not this file's %llu (a copy made "
				    "without the setting?); it shows its real "
				    "owner",
				    owner_at_name(at, what, name, sizeof(name)),
				    UWRAP_OWNER_XATTR, (unsigned long long)vino,
				    (unsigned long long)ino);
		}
		return SRC_NONE;
	}
	*uid = u;
	*gid = g;
	return SRC_XATTR;
}

void uwrap_owner_fix(const struct uwrap_at *at, uint64_t dev, uint64_t ino,
		     uint32_t mode, uint32_t *uid, uint32_t *gid)
{
	int saved = errno;
	uint32_t u, g;

	if (owner_find(at, NULL, dev, ino, mode, false, &u, &g) != SRC_NONE) {
		*uid = u;
		*gid = g;
	}
	errno = saved;
}

void uwrap_owner_fix_statx(const struct uwrap_at *at, void *statx_buf)
{
	struct uwrap_statx *sx = statx_buf;
	const uint32_t need = UWRAP_STATX_TYPE | UWRAP_STATX_INO;
	uint32_t u = sx->stx_uid, g = sx->stx_gid;

	if ((sx->stx_mask & need) != need ||
	    (sx->stx_mask & (UWRAP_STATX_UID | UWRAP_STATX_GID)) == 0) {
		return;
	}
	uwrap_owner_fix(at, owner_statx_dev(sx), sx->stx_ino, sx->stx_mode, &u,
			&g);
	if ((sx->stx_mask & UWRAP_STATX_UID) != 0) {
		sx->stx_uid = u;
	}
	if ((sx->stx_mask & UWRAP_STATX_GID) != 0) {
		sx->stx_gid = g;
	}
}

/* ---- chown ---- */

/* Keep uid:gid as the owner of the file at (fd form) whose real state is
 * *sx and whose fake owner came from `src`; `db`: the database is usable.
 * 0, or an errno value for chown(). */
static int owner_store(const struct uwrap_at *at, const char *what,
		       const struct uwrap_statx *sx, enum owner_src src,
		       uint32_t uid, uint32_t gid, bool db)
{
	uint32_t type = sx->stx_mode & S_IFMT;
	bool real = uid == sx->stx_uid && gid == sx->stx_gid;
	struct uwrap_odb_rec rec = {
	    .dev = owner_statx_dev(sx),
	    .ino = sx->stx_ino,
	    .flags = type,
	    .uid = uid,
	    .gid = gid,
	};
	char v[UWRAP_OWNER_VALUE_MAX], name[32];
	int xerr = EPERM, err;

	if ((sx->stx_mask & UWRAP_STATX_BTIME) != 0) {
		rec.btime_sec = sx->stx_btime.tv_sec;
		rec.btime_nsec = sx->stx_btime.tv_nsec;
		rec.flags |= UWRAP_ODB_BTIME;
	}
	if (type == S_IFREG || type == S_IFDIR) {
		xerr = real ? owner_xattr_put(at, NULL, 0)
			    : owner_xattr_put(
				  at, v,
				  uwrap_owner_format(v, uid, gid, sx->stx_ino));
		if (xerr == EROFS) {
			return EROFS;
		}
		if (xerr == 0) {
			if (src != SRC_DB) {
				return 0;
			}
			/* the attribute speaks for the file again */
			rec.flags |= UWRAP_ODB_TOMB;
			rec.uid = rec.gid = 0;
		}
	}
	if (xerr != 0 && real && src == SRC_NONE) {
		return 0; /* nothing to keep */
	}
	err = db ? uwrap_odb_append(&rec) : EPERM;
	if (err != 0) {
		CWRAP_ERROR("chown of %s to %u:%u: the file cannot keep a fake "
			    "owner (%s) and %s; failing with EPERM",
			    owner_at_name(at, what, name, sizeof(name)), uid,
			    gid,
			    xerr == 0 ? "the attribute was written, a stale "
					"record remains"
				      : strerror(xerr),
			    uwrap_odb_problem()[0] != '\0'
				? uwrap_odb_problem()
				: "the owner database cannot be used");
		return EPERM;
	}
	return 0;
}

/* Clear the set-ID bits the kernel clears on chown, for real. */
static void owner_chmod(int fd, uint32_t mode)
{
	char p[40];

	if (fchmod(fd, mode & 07777) == 0) {
		return;
	}
	if (errno == EBADF) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		if (fchmodat(AT_FDCWD, p, mode & 07777, 0) == 0) {
			return;
		}
	}
	CWRAP_DEBUG("cannot clear the set-ID bits of descriptor %d: %s", fd,
		    strerror(errno));
}

/* chown of the file fd refers to (an O_PATH descriptor or any other);
 * `what` the caller's path, for messages (NULL: a descriptor). */
static int owner_chown_fd(int fd, const char *what, uint32_t uid, uint32_t gid)
{
	struct uwrap_at at = {fd, "", AT_EMPTY_PATH};
	struct uwrap_chown_caller who;
	struct uwrap_chown_file file;
	struct uwrap_thread *t;
	struct uwrap_statx sx;
	struct statfs sfs;
	enum owner_src src;
	int lk, err;

	if (owner_statx(fd, "", AT_EMPTY_PATH,
			UWRAP_STATX_BASIC | UWRAP_STATX_BTIME, &sx) != 0) {
		return -1;
	}
	if (fstatfs(fd, &sfs) == 0 && (sfs.f_flags & 1 /* ST_RDONLY */) != 0) {
		errno = EROFS;
		return -1;
	}
	/* The fake identity first: uwrap_self() may take the ids' lock,
	 * which must never be taken inside the database's (fork takes both,
	 * in the order of their pthread_atfork). */
	t = uwrap_self();
	who.fsuid = t->uid.e;
	who.fsgid = t->gid.e;
	who.groups = uwrap_groups(t);
	who.ngroups = t->ngroups;
	who.privileged = t->uid.e == 0;

	lk = uwrap_odb_lock();
	if (lk < 0) {
		char n[32];

		CWRAP_ERROR("chown of %s from inside a chown or stat of the "
			    "same thread (a signal handler?): failing with "
			    "EPERM",
			    owner_at_name(&at, what, n, sizeof(n)));
		errno = EPERM;
		return -1;
	}
	file.uid = sx.stx_uid;
	file.gid = sx.stx_gid;
	src = owner_find(&at, what, owner_statx_dev(&sx), sx.stx_ino,
			 sx.stx_mode, true, &file.uid, &file.gid);
	file.mode = sx.stx_mode;
	file.immutable = (sx.stx_attributes & UWRAP_STATX_ATTR_IMMUTABLE) != 0;
	file.append = (sx.stx_attributes & UWRAP_STATX_ATTR_APPEND) != 0;

	err = uwrap_rule_chown(&who, &file, uid, gid);
	if (err == 0) {
		err = owner_store(&at, what, &sx, src, file.uid, file.gid,
				  lk == 1);
	}
	if (err == 0 && file.mode != sx.stx_mode) {
		owner_chmod(fd, file.mode);
	}
	uwrap_odb_unlock();
	CWRAP_DEBUG("chown(%d, %d) of inode %llu by %u: %s; owner %u:%u",
		    (int)uid, (int)gid, (unsigned long long)sx.stx_ino,
		    who.fsuid, err == 0 ? "ok" : strerror(err), file.uid,
		    file.gid);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

int uwrap_owner_chownat(int dirfd, const char *path, uint32_t uid, uint32_t gid,
			int flags)
{
	int fd, rc, saved;

	if ((flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (path == NULL) {
		errno = EFAULT;
		return -1;
	}
	if ((flags & AT_EMPTY_PATH) != 0 && path[0] == '\0' &&
	    dirfd != AT_FDCWD) {
		return owner_chown_fd(dirfd, NULL, uid, gid);
	}
	if ((flags & AT_EMPTY_PATH) != 0 && path[0] == '\0') {
		path = "."; /* the working directory */
	}
	fd = openat(dirfd, path,
		    O_PATH | O_CLOEXEC |
			((flags & AT_SYMLINK_NOFOLLOW) != 0 ? O_NOFOLLOW : 0));
	if (fd < 0) {
		return -1;
	}
	rc = owner_chown_fd(fd, path, uid, gid);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int uwrap_owner_fchown(int fd, uint32_t uid, uint32_t gid, bool opath_ok)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0) {
		return -1;
	}
	if ((fl & O_PATH) != 0 && !opath_ok) {
		errno = EBADF;
		return -1;
	}
	return owner_chown_fd(fd, NULL, uid, gid);
}

/* ---- listxattr() without our attribute ---- */

static ssize_t owner_list_real(enum uwrap_list_kind kind, const char *path,
			       int fd, char *list, size_t size)
{
	switch (kind) {
	case UWRAP_LIST_PATH:
		return libc_listxattr(path, list, size);
	case UWRAP_LIST_LPATH:
		return libc_llistxattr(path, list, size);
	case UWRAP_LIST_FD:
		break;
	}
	return libc_flistxattr(fd, list, size);
}

ssize_t uwrap_owner_listxattr(enum uwrap_list_kind kind, const char *path,
			      int fd, char *list, size_t size)
{
	ssize_t n, m;
	char *buf;

	if (size != 0) {
		n = owner_list_real(kind, path, fd, list, size);
		if (n >= 0) {
			return (ssize_t)uwrap_owner_list_hide(list, (size_t)n);
		}
		if (errno != ERANGE) {
			return -1;
		}
		/* maybe it fits without our name */
	}
	for (;;) {
		n = owner_list_real(kind, path, fd, NULL, 0);
		if (n <= 0) {
			return n;
		}
		buf = malloc((size_t)n);
		if (buf == NULL) {
			errno = ENOMEM;
			return -1;
		}
		m = owner_list_real(kind, path, fd, buf, (size_t)n);
		if (m < 0) {
			int err = errno;

			free(buf);
			if (err == ERANGE) {
				continue; /* grew meanwhile */
			}
			errno = err;
			return -1;
		}
		m = (ssize_t)uwrap_owner_list_hide(buf, (size_t)m);
		if (size != 0) {
			if ((size_t)m > size) {
				free(buf);
				errno = ERANGE;
				return -1;
			}
			memcpy(list, buf, (size_t)m);
		}
		free(buf);
		return m;
	}
}
