/*
 * uwrap_creds: the kernel's permission rules for changing ids, as pure
 * functions on one real/effective/saved triple (uids and gids follow the
 * same rules). No state, no lock: the caller owns the triple.
 *
 * "privileged" means the fake identity holds CAP_SETUID/CAP_SETGID, which
 * for a process that started as root is exactly "effective uid is 0" (the
 * kernel clears the effective capabilities when euid leaves 0 and restores
 * them from the permitted set when it returns).
 */
#ifndef UWRAP_CREDS_H
#define UWRAP_CREDS_H

#include <stdbool.h>
#include <stdint.h>

/* (uid_t)-1 / (gid_t)-1: "leave this one unchanged" */
#define UWRAP_KEEP UINT32_MAX

/* Largest supplementary group list the kernel accepts (NGROUPS_MAX). */
#define UWRAP_NGROUPS_MAX 65536

struct uwrap_triple {
	uint32_t r, e, s;
};

/* Each returns 0 and updates *t, or returns an errno value (EPERM, EINVAL)
 * and leaves *t alone, exactly as Linux does for the calling thread. */
int uwrap_rule_setid(struct uwrap_triple *t, bool privileged, uint32_t id);
int uwrap_rule_setreid(struct uwrap_triple *t, bool privileged, uint32_t r,
		       uint32_t e);
int uwrap_rule_setresid(struct uwrap_triple *t, bool privileged, uint32_t r,
			uint32_t e, uint32_t s);
/* seteuid()/setegid() as glibc implements them (setres*id(-1, id, -1),
 * EINVAL for -1). */
int uwrap_rule_seteid(struct uwrap_triple *t, bool privileged, uint32_t id);
/* setgroups(): EPERM unless privileged, then EINVAL for a bad count. */
int uwrap_rule_setgroups(bool privileged, long count);

/* ---- chown(2): who may change a file's owner (fs/attr.c, fs/open.c) ---- */

/* The caller, as the kernel sees it for a chown: its filesystem ids (the
 * effective ones), its groups, and whether it holds CAP_CHOWN, CAP_FOWNER
 * and CAP_FSETID (for a fake identity: effective uid 0). */
struct uwrap_chown_caller {
	uint32_t fsuid, fsgid;
	const uint32_t *groups;
	uint32_t ngroups;
	bool privileged;
};

/* The file: its owner as the caller's world sees it, its mode (type and
 * permission bits) and its immutable and append-only flags (chattr +i,
 * +a). */
struct uwrap_chown_file {
	uint32_t uid, gid;
	uint32_t mode;
	bool immutable, append;
};

/* chown(uid, gid) (UWRAP_KEEP: leave it) of *f by *c, as Linux decides it:
 * 0 and *f updated to the new owner and to the mode the kernel leaves (a
 * non-directory loses its set-user-ID bit, and its set-group-ID bit when
 * that is group-executable or the caller may not keep it), or EPERM and *f
 * untouched. File system checks (EROFS, search permission) are the
 * caller's. */
int uwrap_rule_chown(const struct uwrap_chown_caller *c,
		     struct uwrap_chown_file *f, uint32_t uid, uint32_t gid);

/* Sort a group list as the kernel does on setgroups (getgroups returns it
 * in that order). */
void uwrap_sort_groups(uint32_t *groups, uint32_t n);

#endif
