/*
 * uwrap_creds: the kernel's set*id() permission rules (see uwrap_creds.h),
 * written after kernel/sys.c: an unprivileged caller may only pick ids it
 * already holds (real or saved, and effective where the kernel allows it).
 * The same for chown(): who may give a file to whom, and which set-ID
 * bits the change clears (uwrap_rule_chown).
 * Pure functions, no state.
 */
#include "uwrap_creds.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

static bool uwrap_holds(const struct uwrap_triple *t, uint32_t id)
{
	return id == t->r || id == t->e || id == t->s;
}

int uwrap_rule_setid(struct uwrap_triple *t, bool privileged, uint32_t id)
{
	if (id == UWRAP_KEEP) {
		return EINVAL;
	}
	if (privileged) {
		t->r = t->e = t->s = id;
		return 0;
	}
	if (id != t->r && id != t->s) {
		return EPERM;
	}
	t->e = id;
	return 0;
}

int uwrap_rule_setreid(struct uwrap_triple *t, bool privileged, uint32_t r,
		       uint32_t e)
{
	struct uwrap_triple n = *t;

	if (r != UWRAP_KEEP) {
		if (!privileged && r != t->r && r != t->e) {
			return EPERM;
		}
		n.r = r;
	}
	if (e != UWRAP_KEEP) {
		if (!privileged && !uwrap_holds(t, e)) {
			return EPERM;
		}
		n.e = e;
	}
	/* The saved id follows the new effective one when the real id is
	 * set, or the effective id is set to something other than the old
	 * real id. */
	if (r != UWRAP_KEEP || (e != UWRAP_KEEP && e != t->r)) {
		n.s = n.e;
	}
	*t = n;
	return 0;
}

int uwrap_rule_setresid(struct uwrap_triple *t, bool privileged, uint32_t r,
			uint32_t e, uint32_t s)
{
	if (!privileged && ((r != UWRAP_KEEP && !uwrap_holds(t, r)) ||
			    (e != UWRAP_KEEP && !uwrap_holds(t, e)) ||
			    (s != UWRAP_KEEP && !uwrap_holds(t, s)))) {
		return EPERM;
	}
	if (r != UWRAP_KEEP) {
		t->r = r;
	}
	if (e != UWRAP_KEEP) {
		t->e = e;
	}
	if (s != UWRAP_KEEP) {
		t->s = s;
	}
	return 0;
}

int uwrap_rule_seteid(struct uwrap_triple *t, bool privileged, uint32_t id)
{
	if (id == UWRAP_KEEP) {
		return EINVAL;
	}
	return uwrap_rule_setresid(t, privileged, UWRAP_KEEP, id, UWRAP_KEEP);
}

int uwrap_rule_setgroups(bool privileged, long count)
{
	if (!privileged) {
		return EPERM;
	}
	if (count < 0 || count > UWRAP_NGROUPS_MAX) {
		return EINVAL;
	}
	return 0;
}

/* in_group_p(): the fs gid or a supplementary group. */
static bool uwrap_in_group(const struct uwrap_chown_caller *c, uint32_t gid)
{
	uint32_t i;

	if (gid == c->fsgid) {
		return true;
	}
	for (i = 0; i < c->ngroups; i++) {
		if (c->groups[i] == gid) {
			return true;
		}
	}
	return false;
}

/* Written after chown_common() (fs/open.c), notify_change() and
 * setattr_prepare() (fs/attr.c): the set-ID bits are killed before the
 * permission checks, and killing one is a mode change, which only the
 * owner (or CAP_FOWNER) may make: so even chown(-1, -1) of another user's
 * set-user-ID file is refused, while of a plain file it succeeds. */
int uwrap_rule_chown(const struct uwrap_chown_caller *c,
		     struct uwrap_chown_file *f, uint32_t uid, uint32_t gid)
{
	bool owner = c->fsuid == f->uid;
	uint32_t mode = f->mode;
	bool mode_change = false;

	/* An immutable file refuses every change, an append-only one a
	 * change of owner or mode (ext4_setattr(), notify_change()). */
	if (f->immutable ||
	    (f->append && (uid != UWRAP_KEEP || gid != UWRAP_KEEP))) {
		return EPERM;
	}
	if (!S_ISDIR(mode)) {
		/* ATTR_KILL_SUID, and ATTR_KILL_SGID from
		 * setattr_should_drop_sgid() on the current group */
		if ((mode & S_ISUID) != 0) {
			mode &= ~(uint32_t)S_ISUID;
			mode_change = true;
		}
		if ((mode & S_ISGID) != 0 &&
		    ((mode & S_IXGRP) != 0 ||
		     !(c->privileged || uwrap_in_group(c, f->gid)))) {
			mode &= ~(uint32_t)S_ISGID;
			mode_change = true;
		}
	}
	/* chown_ok(): the owner may "change" the uid to itself */
	if (uid != UWRAP_KEEP && !c->privileged && !(owner && uid == f->uid)) {
		return EPERM;
	}
	/* chgrp_ok(): the owner may pick its current group or one of its
	 * own */
	if (gid != UWRAP_KEEP && !c->privileged &&
	    !(owner && (gid == f->gid || uwrap_in_group(c, gid)))) {
		return EPERM;
	}
	if (mode_change) {
		if (f->append) {
			return EPERM;
		}
		/* inode_owner_or_capable() */
		if (!owner && !c->privileged) {
			return EPERM;
		}
		/* a set-group-ID bit kept only for a member of the new group
		 * (or CAP_FSETID) */
		if ((mode & S_ISGID) != 0 && !c->privileged &&
		    !uwrap_in_group(c, gid != UWRAP_KEEP ? gid : f->gid)) {
			mode &= ~(uint32_t)S_ISGID;
		}
	}
	if (uid != UWRAP_KEEP) {
		f->uid = uid;
	}
	if (gid != UWRAP_KEEP) {
		f->gid = gid;
	}
	f->mode = mode;
	return 0;
}

static int uwrap_cmp_gid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void uwrap_sort_groups(uint32_t *groups, uint32_t n)
{
	if (n > 1) {
		qsort(groups, n, sizeof(*groups), uwrap_cmp_gid);
	}
}
