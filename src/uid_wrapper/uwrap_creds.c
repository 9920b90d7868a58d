/*
 * uwrap_creds: the kernel's set*id() permission rules (see uwrap_creds.h),
 * written after kernel/sys.c: an unprivileged caller may only pick ids it
 * already holds (real or saved, and effective where the kernel allows it).
 * Pure functions, no state.
 */
#include "uwrap_creds.h"

#include <errno.h>
#include <stdlib.h>

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
