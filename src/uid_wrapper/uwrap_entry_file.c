/*
 * uid_wrapper entry points for fake ownership (UID_WRAPPER_FAKE_CHOWN=1,
 * uwrap_owner.c): the chown family, the stat family under every name a
 * program may link (the *64 names, statx, and the __xstat names of
 * programs built against glibc before 2.33) and the listxattr family.
 * Without the setting each is the real call plus one predictable branch:
 * a stat() first calls the real function, then tests the flag. No state
 * of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cwrap_compiler.h"
#include "cwrap_platform.h"
#include "uwrap.h"
#include "uwrap_libc.h"
#include "uwrap_owner.h"

#define UWRAP_AT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)

/* glibc's fchown() of an O_PATH descriptor fails with the kernel's EBADF;
 * musl's goes on with its /proc/self/fd path (and so works). */
#ifdef __GLIBC__
#define UWRAP_FCHOWN_OPATH false
#else
#define UWRAP_FCHOWN_OPATH true
#endif

/* ---- chown ---- */

CWRAP_EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
	if (!uwrap_enabled() || !uwrap_owner_on()) {
		return libc_chown(path, uid, gid);
	}
	return uwrap_owner_chownat(AT_FDCWD, path, uid, gid, 0);
}

CWRAP_EXPORT int lchown(const char *path, uid_t uid, gid_t gid)
{
	if (!uwrap_enabled() || !uwrap_owner_on()) {
		return libc_lchown(path, uid, gid);
	}
	return uwrap_owner_chownat(AT_FDCWD, path, uid, gid,
				   AT_SYMLINK_NOFOLLOW);
}

CWRAP_EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
	if (!uwrap_enabled() || !uwrap_owner_on()) {
		return libc_fchown(fd, uid, gid);
	}
	return uwrap_owner_fchown(fd, uid, gid, UWRAP_FCHOWN_OPATH);
}

CWRAP_EXPORT int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid,
			  int flags)
{
	if (!uwrap_enabled() || !uwrap_owner_on()) {
		return libc_fchownat(dirfd, path, uid, gid, flags);
	}
	return uwrap_owner_chownat(dirfd, path, uid, gid, flags);
}

/* ---- stat: the real call, then the fake owner ---- */

/* name(path, buf), following (flags 0) or not (AT_SYMLINK_NOFOLLOW) */
#define UWRAP_STAT_PATH(name, type, at_flags)                                  \
	CWRAP_EXPORT int name(const char *path, type *buf)                     \
	{                                                                      \
		int rc = libc_##name(path, buf);                               \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {              \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {AT_FDCWD, path, (at_flags)};             \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

#define UWRAP_STAT_FD(name, type)                                              \
	CWRAP_EXPORT int name(int fd, type *buf)                               \
	{                                                                      \
		int rc = libc_##name(fd, buf);                                 \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {              \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {fd, "", AT_EMPTY_PATH};                  \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

#define UWRAP_STAT_AT(name, type)                                              \
	CWRAP_EXPORT int name(int dirfd, const char *path, type *buf,          \
			      int flags)                                       \
	{                                                                      \
		int rc = libc_##name(dirfd, path, buf, flags);                 \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {              \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {dirfd, path, flags & UWRAP_AT_FLAGS};    \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

UWRAP_STAT_PATH(stat, struct stat, 0)
UWRAP_STAT_PATH(lstat, struct stat, AT_SYMLINK_NOFOLLOW)
UWRAP_STAT_FD(fstat, struct stat)
UWRAP_STAT_AT(fstatat, struct stat)

#ifdef HAVE_STAT64_FUNCTION
UWRAP_STAT_PATH(stat64, struct stat64, 0)
UWRAP_STAT_PATH(lstat64, struct stat64, AT_SYMLINK_NOFOLLOW)
UWRAP_STAT_FD(fstat64, struct stat64)
UWRAP_STAT_AT(fstatat64, struct stat64)
#endif

#ifdef HAVE_STATX
CWRAP_EXPORT int statx(int dirfd, const char *path, int flags,
		       unsigned int mask, struct statx *buf)
{
	struct uwrap_at at = {dirfd, path, flags & UWRAP_AT_FLAGS};
	int rc;

	if (cwrap_likely(!uwrap_owner_on())) {
		return libc_statx(dirfd, path, flags, mask, buf);
	}
	/* the type and inode number say which file it is */
	rc = libc_statx(dirfd, path, flags, mask | STATX_TYPE | STATX_INO, buf);
	if (rc == 0) {
		uwrap_owner_fix_statx(&at, buf);
	}
	return rc;
}
#endif

#ifdef HAVE___XSTAT
/* The structure version whose layout is struct stat (struct stat64 for
 * the *64 names); others are passed on untouched. */
#if defined(__x86_64__)
#define UWRAP_XSTAT_VER(v) ((v) == 0 || (v) == 1)
#elif defined(__i386__)
#define UWRAP_XSTAT_VER(v) ((v) == 3)
#else
#define UWRAP_XSTAT_VER(v) 0
#endif

CWRAP_EXPORT int __xstat(int ver, const char *path, struct stat *buf);
CWRAP_EXPORT int __lxstat(int ver, const char *path, struct stat *buf);
CWRAP_EXPORT int __fxstat(int ver, int fd, struct stat *buf);
CWRAP_EXPORT int __fxstatat(int ver, int dirfd, const char *path,
			    struct stat *buf, int flags);
CWRAP_EXPORT int __xstat64(int ver, const char *path, struct stat64 *buf);
CWRAP_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *buf);
CWRAP_EXPORT int __fxstat64(int ver, int fd, struct stat64 *buf);
CWRAP_EXPORT int __fxstatat64(int ver, int dirfd, const char *path,
			      struct stat64 *buf, int flags);

#define UWRAP_XSTAT_PATH(name, type, at_flags)                                 \
	CWRAP_EXPORT int name(int ver, const char *path, type *buf)            \
	{                                                                      \
		int rc = libc_##name(ver, path, buf);                          \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0 ||              \
		    !UWRAP_XSTAT_VER(ver)) {                                   \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {AT_FDCWD, path, (at_flags)};             \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

#define UWRAP_XSTAT_FD(name, type)                                             \
	CWRAP_EXPORT int name(int ver, int fd, type *buf)                      \
	{                                                                      \
		int rc = libc_##name(ver, fd, buf);                            \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0 ||              \
		    !UWRAP_XSTAT_VER(ver)) {                                   \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {fd, "", AT_EMPTY_PATH};                  \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

#define UWRAP_XSTAT_AT(name, type)                                             \
	CWRAP_EXPORT int name(int ver, int dirfd, const char *path, type *buf, \
			      int flags)                                       \
	{                                                                      \
		int rc = libc_##name(ver, dirfd, path, buf, flags);            \
		if (cwrap_likely(!uwrap_owner_on()) || rc != 0 ||              \
		    !UWRAP_XSTAT_VER(ver)) {                                   \
			return rc;                                             \
		}                                                              \
		struct uwrap_at at = {dirfd, path, flags & UWRAP_AT_FLAGS};    \
		UWRAP_OWNER_FIX_ST(&at, buf);                                  \
		return rc;                                                     \
	}

UWRAP_XSTAT_PATH(__xstat, struct stat, 0)
UWRAP_XSTAT_PATH(__lxstat, struct stat, AT_SYMLINK_NOFOLLOW)
UWRAP_XSTAT_FD(__fxstat, struct stat)
UWRAP_XSTAT_AT(__fxstatat, struct stat)
UWRAP_XSTAT_PATH(__xstat64, struct stat64, 0)
UWRAP_XSTAT_PATH(__lxstat64, struct stat64, AT_SYMLINK_NOFOLLOW)
UWRAP_XSTAT_FD(__fxstat64, struct stat64)
UWRAP_XSTAT_AT(__fxstatat64, struct stat64)
#endif

/* ---- listxattr: our attribute is not the program's ---- */

CWRAP_EXPORT ssize_t listxattr(const char *path, char *list, size_t size)
{
	if (cwrap_likely(!uwrap_owner_on())) {
		return libc_listxattr(path, list, size);
	}
	return uwrap_owner_listxattr(UWRAP_LIST_PATH, path, -1, list, size);
}

CWRAP_EXPORT ssize_t llistxattr(const char *path, char *list, size_t size)
{
	if (cwrap_likely(!uwrap_owner_on())) {
		return libc_llistxattr(path, list, size);
	}
	return uwrap_owner_listxattr(UWRAP_LIST_LPATH, path, -1, list, size);
}

CWRAP_EXPORT ssize_t flistxattr(int fd, char *list, size_t size)
{
	if (cwrap_likely(!uwrap_owner_on())) {
		return libc_flistxattr(fd, list, size);
	}
	return uwrap_owner_listxattr(UWRAP_LIST_FD, NULL, fd, list, size);
}
