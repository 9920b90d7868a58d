/*
 * uwrap_syscall: the syscall() numbers uid_wrapper answers itself, one
 * table line each. As with glibc, a raw set*id system call changes only
 * the calling thread (thread scope of uwrap_ids.c). Every number not in
 * the table goes to the real syscall() with its six arguments untouched
 * (uwrap_entry.c). Results follow syscall(): -1 and errno on failure.
 *
 * Where the *32 numbers exist (i686, 32-bit ARM, ...), they are the 32-bit
 * calls glibc makes, and the plain numbers are the kernel's old 16-bit ones
 * (CONFIG_UID16), answered as the kernel answers them (kernel/uid16.c):
 * ids above 65535 read as the overflow id 65534, 0xffff passed in means -1,
 * and getresuid, getgroups and setgroups use arrays of 16-bit ids.
 *
 * A second table holds the numbers of fake ownership (chown and stat,
 * uwrap_owner.c), used only with UID_WRAPPER_FAKE_CHOWN=1: a chown is
 * ours, a stat goes to the kernel and then gets the fake owner. The stat
 * numbers fill the kernel's structures, which the C library's struct stat
 * matches where it says so (x86_64's stat, i386's stat64); i386's plain
 * stat, lstat and fstat fill the old structure with 16-bit ids.
 * No state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "cwrap_syscall.h"
#include "uwrap.h"
#include "uwrap_owner.h"

#define ARG_ID(x) ((uint32_t)(unsigned long)(x))
#define ARG_PTR(x) ((uint32_t *)(uintptr_t)(x))

static long sys_getuid(const long a[6])
{
	(void)a;
	return uwrap_getuid();
}

static long sys_geteuid(const long a[6])
{
	(void)a;
	return uwrap_geteuid();
}

static long sys_getgid(const long a[6])
{
	(void)a;
	return uwrap_getgid();
}

static long sys_getegid(const long a[6])
{
	(void)a;
	return uwrap_getegid();
}

static long sys_getresuid(const long a[6])
{
	return uwrap_get_res(false, ARG_PTR(a[0]), ARG_PTR(a[1]),
			     ARG_PTR(a[2]));
}

static long sys_getresgid(const long a[6])
{
	return uwrap_get_res(true, ARG_PTR(a[0]), ARG_PTR(a[1]), ARG_PTR(a[2]));
}

static long sys_setuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SET, ARG_ID(a[0]), 0,
			     0);
}

static long sys_setgid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SET, ARG_ID(a[0]), 0,
			     0);
}

static long sys_setreuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRE, ARG_ID(a[0]),
			     ARG_ID(a[1]), 0);
}

static long sys_setregid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRE, ARG_ID(a[0]),
			     ARG_ID(a[1]), 0);
}

static long sys_setresuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRES, ARG_ID(a[0]),
			     ARG_ID(a[1]), ARG_ID(a[2]));
}

static long sys_setresgid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRES, ARG_ID(a[0]),
			     ARG_ID(a[1]), ARG_ID(a[2]));
}

static long sys_getgroups(const long a[6])
{
	/* The kernel takes an int count. */
	return uwrap_getgroups((int)a[0], (gid_t *)(uintptr_t)a[1]);
}

static long sys_setgroups(const long a[6])
{
	int n = (int)a[0];

	if (n < 0) {
		/* EPERM first for the unprivileged, as the kernel. */
		return uwrap_setgroups(UWRAP_THREAD,
				       (size_t)UWRAP_NGROUPS_MAX + 1, NULL);
	}
	return uwrap_setgroups(UWRAP_THREAD, (size_t)n,
			       (const gid_t *)(uintptr_t)a[1]);
}

/* setfsuid/setfsgid: the filesystem ids follow the effective ones here;
 * report them and change nothing (the real ones must not change). */
static long sys_setfsuid(const long a[6])
{
	(void)a;
	return uwrap_self()->uid.e;
}

static long sys_setfsgid(const long a[6])
{
	(void)a;
	return uwrap_self()->gid.e;
}

#ifdef SYS_getuid32
/* ---- the old 16-bit calls ---- */

#define UWRAP_OVERFLOW_ID 65534 /* /proc/sys/kernel/overflow{u,g}id */

typedef uint16_t uwrap_id16; /* the kernel's old_uid_t, old_gid_t */

static long id16_out(uint32_t id)
{
	return id > 0xffff ? UWRAP_OVERFLOW_ID : (long)id;
}

static uint32_t id16_in(long a)
{
	uwrap_id16 v = (uwrap_id16)a;

	return v == 0xffff ? (uint32_t)-1 : v;
}

#define ARG_ID16(x) id16_in(x)
#define ARG_PTR16(x) ((uwrap_id16 *)(uintptr_t)(x))

static long sys_getuid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_getuid());
}

static long sys_geteuid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_geteuid());
}

static long sys_getgid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_getgid());
}

static long sys_getegid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_getegid());
}

static long get_res16(bool gid, const long a[6])
{
	uwrap_id16 *r = ARG_PTR16(a[0]), *e = ARG_PTR16(a[1]),
		   *s = ARG_PTR16(a[2]);
	uint32_t r32, e32, s32;

	if (r == NULL || e == NULL || s == NULL) {
		errno = EFAULT;
		return -1;
	}
	uwrap_get_res(gid, &r32, &e32, &s32);
	*r = (uwrap_id16)id16_out(r32);
	*e = (uwrap_id16)id16_out(e32);
	*s = (uwrap_id16)id16_out(s32);
	return 0;
}

static long sys_getresuid16(const long a[6])
{
	return get_res16(false, a);
}

static long sys_getresgid16(const long a[6])
{
	return get_res16(true, a);
}

static long sys_setuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SET, ARG_ID16(a[0]),
			     0, 0);
}

static long sys_setgid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SET, ARG_ID16(a[0]),
			     0, 0);
}

static long sys_setreuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRE,
			     ARG_ID16(a[0]), ARG_ID16(a[1]), 0);
}

static long sys_setregid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRE, ARG_ID16(a[0]),
			     ARG_ID16(a[1]), 0);
}

static long sys_setresuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRES,
			     ARG_ID16(a[0]), ARG_ID16(a[1]), ARG_ID16(a[2]));
}

static long sys_setresgid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRES,
			     ARG_ID16(a[0]), ARG_ID16(a[1]), ARG_ID16(a[2]));
}

static long sys_getgroups16(const long a[6])
{
	struct uwrap_thread *t = uwrap_self();
	uwrap_id16 *list = ARG_PTR16(a[1]);
	const uint32_t *g = uwrap_groups(t);
	int size = (int)a[0];
	uint32_t i;

	if (size < 0) {
		errno = EINVAL;
		return -1;
	}
	if (size == 0) {
		return (long)t->ngroups;
	}
	if ((uint32_t)size < t->ngroups) {
		errno = EINVAL;
		return -1;
	}
	if (list == NULL) {
		errno = EFAULT;
		return -1;
	}
	for (i = 0; i < t->ngroups; i++) {
		list[i] = (uwrap_id16)id16_out(g[i]);
	}
	return (long)t->ngroups;
}

static long sys_setgroups16(const long a[6])
{
	const uwrap_id16 *list = ARG_PTR16(a[1]);
	int size = (int)a[0];
	uint32_t *g;
	long rc;
	int i;

	if (size < 0 || size > UWRAP_NGROUPS_MAX) {
		/* EPERM first for the unprivileged, as the kernel. */
		return uwrap_setgroups(UWRAP_THREAD,
				       (size_t)UWRAP_NGROUPS_MAX + 1, NULL);
	}
	if (size == 0 || list == NULL) {
		return uwrap_setgroups(UWRAP_THREAD, (size_t)size, NULL);
	}
	g = malloc((size_t)size * sizeof(*g));
	if (g == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < size; i++) {
		g[i] = id16_in(list[i]);
	}
	rc = uwrap_setgroups(UWRAP_THREAD, (size_t)size, g);
	free(g);
	return rc;
}

static long sys_setfsuid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_self()->uid.e);
}

static long sys_setfsgid16(const long a[6])
{
	(void)a;
	return id16_out(uwrap_self()->gid.e);
}
#endif

static const struct {
	long nr;
	uwrap_sys_fn fn;
} uwrap_sys_table[] = {
#ifndef SYS_getuid32
    /* the plain numbers are the 32-bit calls */
    {SYS_getuid, sys_getuid},	      {SYS_geteuid, sys_geteuid},
    {SYS_getgid, sys_getgid},	      {SYS_getegid, sys_getegid},
    {SYS_getresuid, sys_getresuid},   {SYS_getresgid, sys_getresgid},
    {SYS_setuid, sys_setuid},	      {SYS_setgid, sys_setgid},
    {SYS_setreuid, sys_setreuid},     {SYS_setregid, sys_setregid},
    {SYS_setresuid, sys_setresuid},   {SYS_setresgid, sys_setresgid},
    {SYS_getgroups, sys_getgroups},   {SYS_setgroups, sys_setgroups},
    {SYS_setfsuid, sys_setfsuid},     {SYS_setfsgid, sys_setfsgid},
#else
    /* the plain numbers are the old 16-bit calls */
    {SYS_getuid, sys_getuid16},
    {SYS_geteuid, sys_geteuid16},
    {SYS_getgid, sys_getgid16},
    {SYS_getegid, sys_getegid16},
#ifdef SYS_getresuid
    {SYS_getresuid, sys_getresuid16},
#endif
#ifdef SYS_getresgid
    {SYS_getresgid, sys_getresgid16},
#endif
    {SYS_setuid, sys_setuid16},
    {SYS_setgid, sys_setgid16},
    {SYS_setreuid, sys_setreuid16},
    {SYS_setregid, sys_setregid16},
#ifdef SYS_setresuid
    {SYS_setresuid, sys_setresuid16},
#endif
#ifdef SYS_setresgid
    {SYS_setresgid, sys_setresgid16},
#endif
    {SYS_getgroups, sys_getgroups16},
    {SYS_setgroups, sys_setgroups16},
    {SYS_setfsuid, sys_setfsuid16},
    {SYS_setfsgid, sys_setfsgid16},
    /* and the *32 numbers the 32-bit ones, each where it exists */
    {SYS_getuid32, sys_getuid},
#endif
#ifdef SYS_geteuid32
    {SYS_geteuid32, sys_geteuid},
#endif
#ifdef SYS_getgid32
    {SYS_getgid32, sys_getgid},
#endif
#ifdef SYS_getegid32
    {SYS_getegid32, sys_getegid},
#endif
#ifdef SYS_getresuid32
    {SYS_getresuid32, sys_getresuid},
#endif
#ifdef SYS_getresgid32
    {SYS_getresgid32, sys_getresgid},
#endif
#ifdef SYS_setuid32
    {SYS_setuid32, sys_setuid},
#endif
#ifdef SYS_setgid32
    {SYS_setgid32, sys_setgid},
#endif
#ifdef SYS_setreuid32
    {SYS_setreuid32, sys_setreuid},
#endif
#ifdef SYS_setregid32
    {SYS_setregid32, sys_setregid},
#endif
#ifdef SYS_setresuid32
    {SYS_setresuid32, sys_setresuid},
#endif
#ifdef SYS_setresgid32
    {SYS_setresgid32, sys_setresgid},
#endif
#ifdef SYS_getgroups32
    {SYS_getgroups32, sys_getgroups},
#endif
#ifdef SYS_setgroups32
    {SYS_setgroups32, sys_setgroups},
#endif
#ifdef SYS_setfsuid32
    {SYS_setfsuid32, sys_setfsuid},
#endif
#ifdef SYS_setfsgid32
    {SYS_setfsgid32, sys_setfsgid},
#endif
};

/* Uninstrumented: called for every syscall(), also by a sanitizer
 * runtime that is not initialised yet (uwrap_entry.c). */
CWRAP_NO_SANITIZE uwrap_sys_fn uwrap_syscall_find(long nr)
{
	size_t i;

	for (i = 0; i < CWRAP_ARRAY_SIZE(uwrap_sys_table); i++) {
		if (uwrap_sys_table[i].nr == nr) {
			return uwrap_sys_table[i].fn;
		}
	}
	return NULL;
}

/* ---- fake ownership ---- */

#define ARG_INT(x) ((int)(x))
#define ARG_STR(x) ((const char *)(uintptr_t)(x))
#define ARG_BUF(x) ((void *)(uintptr_t)(x))

static long sys_chown(const long a[6])
{
	return uwrap_owner_chownat(AT_FDCWD, ARG_STR(a[0]), ARG_ID(a[1]),
				   ARG_ID(a[2]), 0);
}

static long sys_lchown(const long a[6])
{
	return uwrap_owner_chownat(AT_FDCWD, ARG_STR(a[0]), ARG_ID(a[1]),
				   ARG_ID(a[2]), AT_SYMLINK_NOFOLLOW);
}

static long sys_fchown(const long a[6])
{
	return uwrap_owner_fchown(ARG_INT(a[0]), ARG_ID(a[1]), ARG_ID(a[2]),
				  false);
}

static long sys_fchownat(const long a[6])
{
	return uwrap_owner_chownat(ARG_INT(a[0]), ARG_STR(a[1]), ARG_ID(a[2]),
				   ARG_ID(a[3]), ARG_INT(a[4]));
}

/* The kernel's answer to a stat number, then the fake owner: `st` is the
 * structure at a[buf] as `type`, the file a[dirfd] (-1: AT_FDCWD), a[path]
 * (-1: "" with AT_EMPTY_PATH, a descriptor), a[flags] (-1: `fl`). */
#define UWRAP_SYS_STAT(fname, nr, type, dirfd_i, path_i, buf_i, flags_i, fl)   \
	static long fname(const long a[6])                                     \
	{                                                                      \
		long rc = cwrap_syscall_next((nr), a);                         \
		if (rc == 0) {                                                 \
			struct uwrap_at at = {                                 \
			    (dirfd_i) < 0 ? AT_FDCWD : ARG_INT(a[dirfd_i]),    \
			    (path_i) < 0 ? "" : ARG_STR(a[path_i]),            \
			    ((flags_i) < 0 ? (fl) : ARG_INT(a[flags_i])) &     \
				(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)};        \
			type *st = ARG_BUF(a[buf_i]);                          \
			UWRAP_OWNER_FIX_ST(&at, st);                           \
		}                                                              \
		return rc;                                                     \
	}

static long sys_statx(const long a[6])
{
	long rc;

#ifdef SYS_statx
	rc = cwrap_syscall_next(SYS_statx, a);
	if (rc == 0) {
		struct uwrap_at at = {
		    ARG_INT(a[0]), ARG_STR(a[1]),
		    ARG_INT(a[2]) & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)};

		uwrap_owner_fix_statx(&at, ARG_BUF(a[4]));
	}
#else
	(void)a;
	errno = ENOSYS;
	rc = -1;
#endif
	return rc;
}

#ifndef SYS_chown32
/* the plain numbers take and give 32-bit ids */
#ifdef SYS_stat
UWRAP_SYS_STAT(sys_stat, SYS_stat, struct stat, -1, 0, 1, -1, 0)
UWRAP_SYS_STAT(sys_lstat, SYS_lstat, struct stat, -1, 0, 1, -1,
	       AT_SYMLINK_NOFOLLOW)
#endif
UWRAP_SYS_STAT(sys_fstat, SYS_fstat, struct stat, 0, -1, 1, -1, AT_EMPTY_PATH)
#ifdef SYS_newfstatat
UWRAP_SYS_STAT(sys_newfstatat, SYS_newfstatat, struct stat, 0, 1, 2, 3, 0)
#endif
#else
/* i386 and its like: chown, lchown and fchown are the old 16-bit calls,
 * and stat, lstat and fstat fill the old structure with 16-bit ids (an
 * id above 65535 reads as 65534, as the kernel's high2lowuid()) */
static long sys_chown16(const long a[6])
{
	return uwrap_owner_chownat(AT_FDCWD, ARG_STR(a[0]), id16_in(a[1]),
				   id16_in(a[2]), 0);
}

static long sys_lchown16(const long a[6])
{
	return uwrap_owner_chownat(AT_FDCWD, ARG_STR(a[0]), id16_in(a[1]),
				   id16_in(a[2]), AT_SYMLINK_NOFOLLOW);
}

static long sys_fchown16(const long a[6])
{
	return uwrap_owner_fchown(ARG_INT(a[0]), id16_in(a[1]), id16_in(a[2]),
				  false);
}

/* the start of the kernel's old struct stat (arch/x86/include/uapi/asm/
 * stat.h, i386) */
struct uwrap_old_stat {
	unsigned long st_dev;
	unsigned long st_ino;
	unsigned short st_mode;
	unsigned short st_nlink;
	unsigned short st_uid;
	unsigned short st_gid;
};

#define UWRAP_SYS_STAT16(fname, nr, dirfd_i, path_i, fl)                       \
	static long fname(const long a[6])                                     \
	{                                                                      \
		long rc = cwrap_syscall_next((nr), a);                         \
		if (rc == 0) {                                                 \
			struct uwrap_at at = {                                 \
			    (dirfd_i) < 0 ? AT_FDCWD : ARG_INT(a[dirfd_i]),    \
			    (path_i) < 0 ? "" : ARG_STR(a[path_i]), (fl)};     \
			struct uwrap_old_stat *st = ARG_BUF(a[1]);             \
			uint32_t u = st->st_uid, g = st->st_gid;               \
			uwrap_owner_fix(&at, st->st_dev, st->st_ino,           \
					st->st_mode, &u, &g);                  \
			st->st_uid = (unsigned short)id16_out(u);              \
			st->st_gid = (unsigned short)id16_out(g);              \
		}                                                              \
		return rc;                                                     \
	}

UWRAP_SYS_STAT16(sys_stat16, SYS_stat, -1, 0, 0)
UWRAP_SYS_STAT16(sys_lstat16, SYS_lstat, -1, 0, AT_SYMLINK_NOFOLLOW)
UWRAP_SYS_STAT16(sys_fstat16, SYS_fstat, 0, -1, AT_EMPTY_PATH)
/* the *64 numbers fill the C library's struct stat64 */
UWRAP_SYS_STAT(sys_stat64, SYS_stat64, struct stat64, -1, 0, 1, -1, 0)
UWRAP_SYS_STAT(sys_lstat64, SYS_lstat64, struct stat64, -1, 0, 1, -1,
	       AT_SYMLINK_NOFOLLOW)
UWRAP_SYS_STAT(sys_fstat64, SYS_fstat64, struct stat64, 0, -1, 1, -1,
	       AT_EMPTY_PATH)
UWRAP_SYS_STAT(sys_fstatat64, SYS_fstatat64, struct stat64, 0, 1, 2, 3, 0)
#endif

static const struct {
	long nr;
	uwrap_sys_fn fn;
} uwrap_file_sys_table[] = {
#ifndef SYS_chown32
#ifdef SYS_chown
    {SYS_chown, sys_chown},
    {SYS_lchown, sys_lchown},
#endif
    {SYS_fchown, sys_fchown},
#ifdef SYS_stat
    {SYS_stat, sys_stat},
    {SYS_lstat, sys_lstat},
#endif
    {SYS_fstat, sys_fstat},
#ifdef SYS_newfstatat
    {SYS_newfstatat, sys_newfstatat},
#endif
#else
    {SYS_chown, sys_chown16},	    {SYS_lchown, sys_lchown16},
    {SYS_fchown, sys_fchown16},	    {SYS_chown32, sys_chown},
    {SYS_lchown32, sys_lchown},	    {SYS_fchown32, sys_fchown},
    {SYS_stat, sys_stat16},	    {SYS_lstat, sys_lstat16},
    {SYS_fstat, sys_fstat16},	    {SYS_stat64, sys_stat64},
    {SYS_lstat64, sys_lstat64},	    {SYS_fstat64, sys_fstat64},
    {SYS_fstatat64, sys_fstatat64},
#endif
    {SYS_fchownat, sys_fchownat},
#ifdef SYS_statx
    {SYS_statx, sys_statx},
#endif
};

CWRAP_NO_SANITIZE uwrap_sys_fn uwrap_syscall_find_file(long nr)
{
	size_t i;

	for (i = 0; i < CWRAP_ARRAY_SIZE(uwrap_file_sys_table); i++) {
		if (uwrap_file_sys_table[i].nr == nr) {
			return uwrap_file_sys_table[i].fn;
		}
	}
	return NULL;
}
