/*
 * uwrap_owner: fake ownership (UID_WRAPPER_FAKE_CHOWN=1). chown() by a
 * fake identity the kernel's rules would let change the owner records the
 * new owner instead of asking the kernel, and the stat family shows it.
 *
 * Where a fake owner is kept (see uwrap_owner.c): in the file's own user
 * extended attribute user.uid_wrapper.owner ("UID:GID:INODE"), which dies
 * with the file and follows its hard links and renames; where the file
 * cannot take one, in the owner database (uwrap_odb.h).
 */
#ifndef UWRAP_OWNER_H
#define UWRAP_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cwrap_compiler.h"

/* 1 when the process started with UID_WRAPPER=1 and
 * UID_WRAPPER_FAKE_CHOWN=1 (set once by the constructor, uwrap_init.c). */
extern int uwrap_owner_state CWRAP_HIDDEN;

/* Read UID_WRAPPER_FAKE_CHOWN (at start, UID_WRAPPER being 1). */
void uwrap_owner_boot(void);

/* Uninstrumented and without side effects: syscall() tests it for every
 * number (uwrap_entry.c). Before the constructor ran, false: a stat() of
 * another library's constructor sees the real owner. */
__attribute__((always_inline)) static inline bool uwrap_owner_on(void)
{
	return __atomic_load_n(&uwrap_owner_state, __ATOMIC_RELAXED) != 0;
}

/* What a stat-like call looked at: dirfd and path as given to fstatat()
 * (path NULL or "" with AT_EMPTY_PATH: dirfd itself), flags
 * AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH. */
struct uwrap_at {
	int dirfd;
	const char *path;
	int flags;
};

/* After a stat-like call on *at succeeded with this device, inode, mode
 * and (in *uid, *gid) real owner: the fake owner instead, if the file has
 * one. errno is kept. */
void uwrap_owner_fix(const struct uwrap_at *at, uint64_t dev, uint64_t ino,
		     uint32_t mode, uint32_t *uid, uint32_t *gid);

/* Fix the owner fields of a struct with st_dev, st_ino, st_mode, st_uid,
 * st_gid after a stat-like call on *at. */
#define UWRAP_OWNER_FIX_ST(at, st)                                             \
	do {                                                                   \
		uint32_t u_ = (uint32_t)(st)->st_uid;                          \
		uint32_t g_ = (uint32_t)(st)->st_gid;                          \
		uwrap_owner_fix((at), (uint64_t)(st)->st_dev,                  \
				(uint64_t)(st)->st_ino,                        \
				(uint32_t)(st)->st_mode, &u_, &g_);            \
		(st)->st_uid = u_;                                             \
		(st)->st_gid = g_;                                             \
	} while (0)

/* The same for a struct statx (the kernel's layout), as far as its
 * stx_mask says the fields are there. */
void uwrap_owner_fix_statx(const struct uwrap_at *at, void *statx_buf);

/* chown() family: fchownat() semantics (flags AT_SYMLINK_NOFOLLOW,
 * AT_EMPTY_PATH; (uint32_t)-1 keeps an id), and fchown(): EBADF for an
 * O_PATH descriptor, as from the kernel, unless `opath_ok` (musl's
 * fchown() falls back to the descriptor's /proc/self/fd path). 0, or -1
 * and errno as the kernel would give them to the fake identity. */
int uwrap_owner_chownat(int dirfd, const char *path, uint32_t uid, uint32_t gid,
			int flags);
int uwrap_owner_fchown(int fd, uint32_t uid, uint32_t gid, bool opath_ok);

/* listxattr() family without our attribute: which call, on what. */
enum uwrap_list_kind { UWRAP_LIST_PATH, UWRAP_LIST_LPATH, UWRAP_LIST_FD };
ssize_t uwrap_owner_listxattr(enum uwrap_list_kind kind, const char *path,
			      int fd, char *list, size_t size);

/* ---- pure, for the unit tests and the fuzz target ---- */

#define UWRAP_OWNER_XATTR "user.uid_wrapper.owner"
/* Longest value: "4294967294:4294967294:18446744073709551615" */
#define UWRAP_OWNER_VALUE_MAX 48

/* "UID:GID:INODE", decimal, ids below 4294967295: true and the three
 * numbers; false for anything else. */
bool uwrap_owner_parse(const char *s, size_t len, uint32_t *uid, uint32_t *gid,
		       uint64_t *ino);
/* The value for (uid, gid, ino) into buf (UWRAP_OWNER_VALUE_MAX bytes);
 * its length, without a terminating NUL. */
size_t uwrap_owner_format(char *buf, uint32_t uid, uint32_t gid, uint64_t ino);
/* Remove our attribute's name from a listxattr() result of len bytes;
 * the new length. */
size_t uwrap_owner_list_hide(char *list, size_t len);

#endif
