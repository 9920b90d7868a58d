/*
 * uwrap_exec: the ids a process hands to the image it execs, through the
 * UID_WRAPPER_INITIAL_* variables (uwrap_initial.c reads them, at load and
 * here). The exec wrappers add the calling thread's current ids to the new
 * image's environment; system(), popen() and posix_spawn*() add the ids
 * the process started with, as the upstream library's children start,
 * unless the program changed UID_WRAPPER_ROOT since (uwrap_exec_envp).
 * Values the caller put in the environment it hands over win: exec*()
 * fills in only the missing ones, the others leave such an environment as
 * it is; an exec*() whose environment gained UID_WRAPPER_ROOT=1 since
 * this process started adds nothing either.
 *
 * Calls: uwrap_initial.c (what the process started with, the variables'
 * readers), the calling thread's ids (uwrap_threads.h), the enable switch
 * (uwrap_init.c). No state of its own but a warned-once flag; no lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cwrap_log.h"
#include "uwrap.h"

/* "UID_WRAPPER=1": the new image is wrapped. */
static bool uwrap_env_enables(const char *entry)
{
	return strcmp(entry, "UID_WRAPPER=1") == 0;
}

/* "UID_WRAPPER_ROOT=1": the new image starts as root (without ids). */
static bool uwrap_env_root(const char *entry)
{
	return strcmp(entry, "UID_WRAPPER_ROOT=1") == 0;
}

/* One block: envp without its UID_WRAPPER_INITIAL_* entries (`count`
 * entries in all), then `ids` in them. NULL on ENOMEM. */
static char **uwrap_env_with(char *const envp[], size_t count,
			     const struct uwrap_ids *ids)
{
	const uint32_t v[6] = {ids->uid.r, ids->uid.e, ids->uid.s,
			       ids->gid.r, ids->gid.e, ids->gid.s};
	size_t keep = 0, size, i;
	char **out, *p, *end;

	size = (count + 9) * sizeof(char *) + 8 * 48 +
	       (size_t)ids->ngroups * 11 + 1;
	out = malloc(size);
	if (out == NULL) {
		return NULL;
	}
	for (i = 0; i < count; i++) {
		if (!uwrap_is_initial(envp[i])) {
			out[keep++] = envp[i];
		}
	}
	p = (char *)(out + count + 9);
	end = (char *)out + size;
	for (i = 0; i < 6; i++) {
		out[keep++] = p;
		p += snprintf(p, (size_t)(end - p), "%s=%u", uwrap_id_vars[i],
			      v[i]) +
		     1;
	}
	out[keep++] = p;
	p += snprintf(p, (size_t)(end - p), "%s=%u", UWRAP_COUNT_VAR,
		      ids->ngroups) +
	     1;
	if (ids->ngroups > 0) {
		out[keep++] = p;
		p += snprintf(p, (size_t)(end - p), "%s=", UWRAP_GROUPS_VAR);
		for (i = 0; i < ids->ngroups; i++) {
			p += snprintf(p, (size_t)(end - p), "%s%u",
				      i > 0 ? "," : "", ids->groups[i]);
		}
	}
	out[keep] = NULL;
	return out;
}

static int uwrap_spawn_current_warned;

char *const *uwrap_exec_envp(char *const envp[], enum uwrap_handover how,
			     bool resetids, void **to_free)
{
	struct uwrap_ids ids;
	struct uwrap_given given = {0};
	uint32_t *initial_groups = NULL;
	size_t count = 0, i;
	bool enables = false, has_initial = false, root = false;
	char **out;

	*to_free = NULL;
	if (envp == NULL || !uwrap_enabled()) {
		return envp;
	}
	for (i = 0; envp[i] != NULL; i++) {
		enables = enables || uwrap_env_enables(envp[i]);
		has_initial = has_initial || uwrap_is_initial(envp[i]);
		root = root || uwrap_env_root(envp[i]);
		count++;
	}
	if (!enables) {
		return envp; /* the new image is not wrapped */
	}
	if (how == UWRAP_HAND_INITIAL &&
	    uwrap_env_flag("UID_WRAPPER_SPAWN_CURRENT",
			   &uwrap_spawn_current_warned)) {
		how = UWRAP_HAND_CURRENT;
	}

	if (how == UWRAP_HAND_INITIAL) {
		/* The child reads its start from this environment, as it
		 * would under the upstream library: UID_WRAPPER_ROOT or
		 * the UID_WRAPPER_INITIAL_* it holds. Ours were removed
		 * from environ at load, so they are put back, but only
		 * while UID_WRAPPER_ROOT says what it said when this
		 * process started: a program that set or unset it since
		 * (libssh's suite unsets it so that ssh-agent runs as the
		 * real user) has said how its children start. */
		if (has_initial || !uwrap_initial_given() ||
		    root != uwrap_initial_root()) {
			return envp;
		}
		uwrap_initial_ids(&ids);
		initial_groups = ids.groups;
	} else {
		struct uwrap_thread *t = uwrap_self();

		/* UID_WRAPPER_ROOT=1 put into the new image's environment by
		 * a process that did not start with it starts that image as
		 * root, as one started by hand with it would (Samba's
		 * selftest runs `UID_WRAPPER_ROOT=1 smbpasswd ...` from a
		 * wrapped shell of an ordinary user, as upstream's library
		 * lets it). */
		if (root && !uwrap_initial_root() && !has_initial) {
			return envp;
		}
		ids.uid = t->uid;
		ids.gid = t->gid;
		ids.ngroups = t->ngroups;
		ids.groups = uwrap_groups(t);
		/* The caller's own values win (a wrapped shell running
		 * `UID_WRAPPER_INITIAL_RUID=N cmd`): only the missing ones
		 * come from the current ids. */
		if (has_initial) {
			uwrap_read_given(
			    envp, "the current id is passed instead",
			    "the current groups are passed instead", &given);
			uwrap_apply_given(&given, &ids);
		}
	}
	if (resetids) {
		ids.uid.e = ids.uid.r;
		ids.gid.e = ids.gid.r;
	}
	out = uwrap_env_with(envp, count, &ids);
	free(initial_groups);
	free(given.groups);
	if (out == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	*to_free = out;
	return out;
}
