/*
 * uwrap_ids: the get/set operations behind the wrapped calls and the
 * syscall table, in process scope (set*id(): change published to every
 * thread under the writer lock of uwrap_threads.c, so concurrent changes
 * are atomic with respect to each other) or thread scope
 * (syscall(SYS_set*id): only the caller's TLS copy changes, no lock).
 * Reads never lock. Permission checks are uwrap_creds.c's.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#include "cwrap_env.h"
#include "cwrap_log.h"
#include "uwrap.h"
#include "uwrap_libc.h"

static const char *uwrap_op_name(bool gid, enum uwrap_op op)
{
	static const char *const names[2][4] = {
	    {"setuid", "seteuid", "setreuid", "setresuid"},
	    {"setgid", "setegid", "setregid", "setresgid"},
	};

	return names[gid][op];
}

int uwrap_set_ids(enum uwrap_scope scope, bool gid, enum uwrap_op op,
		  uint32_t a, uint32_t b, uint32_t c)
{
	struct uwrap_thread *t =
	    scope == UWRAP_PROCESS ? uwrap_proc_lock() : uwrap_self();
	struct uwrap_triple *ids = gid ? &t->gid : &t->uid;
	struct uwrap_triple n = *ids;
	bool privileged = t->uid.e == 0;
	int err = EINVAL;

	switch (op) {
	case UWRAP_OP_SET:
		err = uwrap_rule_setid(&n, privileged, a);
		break;
	case UWRAP_OP_SETE:
		err = uwrap_rule_seteid(&n, privileged, a);
		break;
	case UWRAP_OP_SETRE:
		err = uwrap_rule_setreid(&n, privileged, a, b);
		break;
	case UWRAP_OP_SETRES:
		err = uwrap_rule_setresid(&n, privileged, a, b, c);
		break;
	}
	if (err == 0) {
		*ids = n;
		if (scope == UWRAP_PROCESS) {
			uwrap_proc_publish(t, gid ? UWRAP_KIND_GID
						  : UWRAP_KIND_UID);
		}
	}
	if (scope == UWRAP_PROCESS) {
		uwrap_proc_unlock();
	}
	CWRAP_DEBUG("%s%s(%d, %d, %d) -> %s; now %u/%u/%u",
		    scope == UWRAP_THREAD ? "thread " : "",
		    uwrap_op_name(gid, op), (int)a, (int)b, (int)c,
		    err == 0 ? "ok" : strerror(err), n.r, n.e, n.s);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

int uwrap_get_res(bool gid, uint32_t *r, uint32_t *e, uint32_t *s)
{
	struct uwrap_thread *t = uwrap_self();
	const struct uwrap_triple *ids = gid ? &t->gid : &t->uid;

	if (r == NULL || e == NULL || s == NULL) {
		errno = EFAULT;
		return -1;
	}
	*r = ids->r;
	*e = ids->e;
	*s = ids->s;
	return 0;
}

static int uwrap_myuid_warned; /* a bad value is reported once */

/* UID_WRAPPER_MYUID is "read at call time", but a scan of the environment
 * on every geteuid() would cost more than the system call it replaces, so
 * each thread reads it again only when cwrap_env_gen() moved. */
uid_t uwrap_geteuid(void)
{
	struct uwrap_thread *t = uwrap_self();
	unsigned long gen = cwrap_env_gen();

	if (cwrap_unlikely(t->env_gen != gen)) {
		t->myuid =
		    uwrap_env_flag("UID_WRAPPER_MYUID", &uwrap_myuid_warned);
		t->env_gen = gen;
	}
	if (cwrap_unlikely(t->myuid)) {
		return libc_getuid();
	}
	return t->uid.e;
}

int uwrap_getgroups(long size, gid_t *list)
{
	struct uwrap_thread *t = uwrap_self();

	if (size < 0) {
		errno = EINVAL;
		return -1;
	}
	if (size == 0) {
		return (int)t->ngroups;
	}
	if ((unsigned long)size < t->ngroups) {
		errno = EINVAL;
		return -1;
	}
	if (list == NULL) {
		errno = EFAULT;
		return -1;
	}
	memcpy(list, uwrap_groups(t), (size_t)t->ngroups * sizeof(gid_t));
	return (int)t->ngroups;
}

int uwrap_setgroups(enum uwrap_scope scope, size_t size, const gid_t *list)
{
	struct uwrap_thread *t =
	    scope == UWRAP_PROCESS ? uwrap_proc_lock() : uwrap_self();
	long count = size > UWRAP_NGROUPS_MAX ? -1 : (long)size;
	int err = uwrap_rule_setgroups(t->uid.e == 0, count);

	if (err == 0 && size > 0 && list == NULL) {
		err = EFAULT;
	}
	if (err == 0) {
		err = uwrap_thread_reserve(t, (uint32_t)size);
	}
	if (err == 0) {
		uint32_t *g = uwrap_groups(t);

		if (size > 0) {
			memcpy(g, list, size * sizeof(gid_t));
		}
		t->ngroups = (uint32_t)size;
		uwrap_sort_groups(g, t->ngroups);
		if (scope == UWRAP_PROCESS) {
			uwrap_proc_publish(t, UWRAP_KIND_GROUPS);
		}
	}
	if (scope == UWRAP_PROCESS) {
		uwrap_proc_unlock();
	}
	CWRAP_DEBUG("%ssetgroups(%zu) -> %s",
		    scope == UWRAP_THREAD ? "thread " : "", size,
		    err == 0 ? "ok" : strerror(err));
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

int uwrap_initgroups(const char *user, gid_t group)
{
	gid_t small[64], *groups = small;
	int size = (int)CWRAP_ARRAY_SIZE(small);
	int n = size;
	int rc;

	/* getgrouplist() asks NSS (nss_wrapper, if it is loaded); when the
	 * buffer is too small it fails and tells how many there are. */
	while (getgrouplist(user, group, groups, &n) < 0) {
		gid_t *bigger;

		if (size >= UWRAP_NGROUPS_MAX) {
			n = size; /* the first NGROUPS_MAX, as glibc does */
			break;
		}
		n = n > size ? n : 2 * size;
		n = n < UWRAP_NGROUPS_MAX ? n : UWRAP_NGROUPS_MAX;
		bigger = realloc(groups == small ? NULL : groups,
				 (size_t)n * sizeof(gid_t));
		if (bigger == NULL) {
			if (groups != small) {
				free(groups);
			}
			errno = ENOMEM;
			return -1;
		}
		groups = bigger;
		size = n;
	}
	rc = uwrap_setgroups(UWRAP_PROCESS, (size_t)n, groups);
	if (groups != small) {
		int saved = errno;

		free(groups);
		errno = saved;
	}
	return rc;
}
