/*
 * uid_wrapper entry points for the stat names of programs built with
 * 64-bit time on 32-bit glibc (_TIME_BITS=64: stat() is
 * __stat64_time64(), with glibc's struct __stat64_t64), as
 * uwrap_entry_file.c does for the others. This file is compiled with
 * 64-bit time and offsets, where struct stat is that structure; it is
 * empty elsewhere. The real functions are bound here, by name: the
 * library's symbol list (uwrap_libc.def) is written for the default
 * struct stat. No state but the bound pointers.
 */
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64

#include <fcntl.h>
#include <sys/stat.h>

#include "cwrap_bind.h"
#include "cwrap_compiler.h"
#include "cwrap_platform.h"
#include "uwrap_owner.h"

#if defined(HAVE_TIME64_ALIASES) && defined(__USE_TIME_BITS64)

CWRAP_EXPORT int __stat64_time64(const char *path, struct stat *buf);
CWRAP_EXPORT int __lstat64_time64(const char *path, struct stat *buf);
CWRAP_EXPORT int __fstat64_time64(int fd, struct stat *buf);
CWRAP_EXPORT int __fstatat64_time64(int dirfd, const char *path,
				    struct stat *buf, int flags);

#define UWRAP_T64_REAL(name, params)                                           \
	static void *slot_##name;                                              \
	int(*fn) params = (int(*) params)cwrap_bind_cached(&slot_##name, #name)

CWRAP_EXPORT int __stat64_time64(const char *path, struct stat *buf)
{
	UWRAP_T64_REAL(__stat64_time64, (const char *, struct stat *));
	int rc = fn(path, buf);

	if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {
		return rc;
	}
	struct uwrap_at at = {AT_FDCWD, path, 0};
	UWRAP_OWNER_FIX_ST(&at, buf);
	return rc;
}

CWRAP_EXPORT int __lstat64_time64(const char *path, struct stat *buf)
{
	UWRAP_T64_REAL(__lstat64_time64, (const char *, struct stat *));
	int rc = fn(path, buf);

	if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {
		return rc;
	}
	struct uwrap_at at = {AT_FDCWD, path, AT_SYMLINK_NOFOLLOW};
	UWRAP_OWNER_FIX_ST(&at, buf);
	return rc;
}

CWRAP_EXPORT int __fstat64_time64(int fd, struct stat *buf)
{
	UWRAP_T64_REAL(__fstat64_time64, (int, struct stat *));
	int rc = fn(fd, buf);

	if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {
		return rc;
	}
	struct uwrap_at at = {fd, "", AT_EMPTY_PATH};
	UWRAP_OWNER_FIX_ST(&at, buf);
	return rc;
}

CWRAP_EXPORT int __fstatat64_time64(int dirfd, const char *path,
				    struct stat *buf, int flags)
{
	UWRAP_T64_REAL(__fstatat64_time64,
		       (int, const char *, struct stat *, int));
	int rc = fn(dirfd, path, buf, flags);

	if (cwrap_likely(!uwrap_owner_on()) || rc != 0) {
		return rc;
	}
	struct uwrap_at at = {dirfd, path,
			      flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)};
	UWRAP_OWNER_FIX_ST(&at, buf);
	return rc;
}

#else
/* ISO C wants something in a file */
typedef int uwrap_entry_time64_empty;
#endif
