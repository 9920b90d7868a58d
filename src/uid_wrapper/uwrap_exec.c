/*
 * uwrap_exec: the ids a process starts with, and the ids it hands to the
 * image it execs, through the UID_WRAPPER_INITIAL_* variables:
 *     UID_WRAPPER_INITIAL_RUID, _EUID, _SUID, _RGID, _EGID, _SGID
 *     UID_WRAPPER_INITIAL_GROUPS_COUNT, UID_WRAPPER_INITIAL_GROUPS (1,2,3)
 * At load the constructor reads and removes them (uwrap_exec_import),
 * keeping the values it accepted. The exec wrappers add the calling
 * thread's current ids to the new image's environment; system(), popen()
 * and posix_spawn*() add the ids the process started with, as the upstream
 * library's children start, unless the program changed UID_WRAPPER_ROOT
 * since (uwrap_exec_envp).
 *
 * State: uwrap_stash, written once by the constructor (under the
 * pthread_once of uwrap_init.c), read-only afterwards. No lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cwrap_env.h"
#include "cwrap_log.h"
#include "uwrap.h"
#include "uwrap_libc.h"

extern char **environ;

#define UWRAP_INITIAL "UID_WRAPPER_INITIAL_"
#define UWRAP_COUNT_VAR UWRAP_INITIAL "GROUPS_COUNT"
#define UWRAP_GROUPS_VAR UWRAP_INITIAL "GROUPS"

enum { UWRAP_RUID, UWRAP_EUID, UWRAP_SUID, UWRAP_RGID, UWRAP_EGID, UWRAP_SGID };

static const char *const uwrap_id_vars[6] = {
    UWRAP_INITIAL "RUID", UWRAP_INITIAL "EUID", UWRAP_INITIAL "SUID",
    UWRAP_INITIAL "RGID", UWRAP_INITIAL "EGID", UWRAP_INITIAL "SGID",
};

static struct {
	bool root;
	bool any; /* some UID_WRAPPER_INITIAL_* value was accepted */
	bool have[6];
	uint32_t ids[6];
	bool have_groups;
	uint32_t ngroups;
	uint32_t *groups;
} uwrap_stash;

/* The `len` bytes at `s` as an id: digits only (leading zeros allowed),
 * a value below (uid_t)-1, which is not an id. */
static bool uwrap_parse_span(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;

	if (!cwrap_parse_digits(s, len, UINT32_MAX - 1, &v)) {
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

bool uwrap_parse_id(const char *s, uint32_t *out)
{
	return s != NULL && uwrap_parse_span(s, strlen(s), out);
}

bool uwrap_parse_groups(const char *s, uint32_t count, uint32_t *groups)
{
	uint32_t i;

	for (i = 0; i < count; i++) {
		size_t len = strcspn(s, ",");

		if (!uwrap_parse_span(s, len, &groups[i])) {
			return false;
		}
		s += len;
		if (i + 1 < count) {
			if (*s != ',') {
				return false;
			}
			s++;
		}
	}
	return *s == '\0';
}

static void uwrap_import_groups(void)
{
	const char *cs = getenv(UWRAP_COUNT_VAR);
	const char *gs = getenv(UWRAP_GROUPS_VAR);
	long n;

	if (cs == NULL) {
		if (gs != NULL) {
			CWRAP_ERROR("%s='%s' is set without %s, ignored",
				    UWRAP_GROUPS_VAR, gs, UWRAP_COUNT_VAR);
		}
		return;
	}
	if (!cwrap_parse_long(cs, 0, UWRAP_NGROUPS_MAX, &n)) {
		CWRAP_ERROR("%s='%s' is not a number in 0..%d, the groups "
			    "are ignored",
			    UWRAP_COUNT_VAR, cs, UWRAP_NGROUPS_MAX);
		return;
	}
	if (n == 0 && gs != NULL && gs[0] != '\0') {
		CWRAP_ERROR("%s='%s' disagrees with %s=0, both ignored",
			    UWRAP_GROUPS_VAR, gs, UWRAP_COUNT_VAR);
		return;
	}
	if (n > 0) {
		uwrap_stash.groups = malloc((size_t)n * sizeof(uint32_t));
		if (uwrap_stash.groups == NULL) {
			CWRAP_ERROR("out of memory for %s, ignored",
				    UWRAP_GROUPS_VAR);
			return;
		}
		if (gs == NULL ||
		    !uwrap_parse_groups(gs, (uint32_t)n, uwrap_stash.groups)) {
			CWRAP_ERROR("%s='%s' is not %ld comma-separated ids "
				    "in 0..%u (%s=%ld), both ignored",
				    UWRAP_GROUPS_VAR, gs != NULL ? gs : "", n,
				    UINT32_MAX - 1, UWRAP_COUNT_VAR, n);
			free(uwrap_stash.groups);
			uwrap_stash.groups = NULL;
			return;
		}
	}
	/* sorted, as the kernel keeps them */
	uwrap_sort_groups(uwrap_stash.groups, (uint32_t)n);
	uwrap_stash.ngroups = (uint32_t)n;
	uwrap_stash.have_groups = true;
}

static bool uwrap_is_initial(const char *entry)
{
	return strncmp(entry, UWRAP_INITIAL, sizeof(UWRAP_INITIAL) - 1) == 0;
}

/* Remove every UID_WRAPPER_INITIAL_* entry from environ, in place, as
 * unsetenv() does: at load, single-threaded, and without calling our own
 * unsetenv() wrapper (which would bind libc symbols at load). */
static void uwrap_remove_initial(void)
{
	char **src, **dst;

	if (environ == NULL) {
		return;
	}
	for (src = dst = environ; *src != NULL; src++) {
		if (!uwrap_is_initial(*src)) {
			*dst++ = *src;
		}
	}
	*dst = NULL;
}

/* Whether the parent passed ids at all: one pass over the environment,
 * so that a process started by hand (none passed) reads no more. */
static bool uwrap_have_initial(void)
{
	if (environ == NULL) {
		return false;
	}
	for (char **e = environ; *e != NULL; e++) {
		if (uwrap_is_initial(*e)) {
			return true;
		}
	}
	return false;
}

void uwrap_exec_import(void)
{
	int i;

	uwrap_stash.root = uwrap_env_flag("UID_WRAPPER_ROOT", NULL);
	if (!uwrap_have_initial()) {
		return;
	}
	for (i = 0; i < 6; i++) {
		const char *s = getenv(uwrap_id_vars[i]);

		if (s == NULL) {
			continue;
		}
		uwrap_stash.have[i] = uwrap_parse_id(s, &uwrap_stash.ids[i]);
		if (!uwrap_stash.have[i]) {
			CWRAP_ERROR("%s='%s' is not an id in 0..%u, ignored",
				    uwrap_id_vars[i], s, UINT32_MAX - 1);
		}
		uwrap_stash.any = uwrap_stash.any || uwrap_stash.have[i];
	}
	uwrap_import_groups();
	uwrap_stash.any = uwrap_stash.any || uwrap_stash.have_groups;
	uwrap_remove_initial();
}

static void uwrap_real_groups(struct uwrap_ids *ids)
{
	int n = libc_getgroups(0, NULL);

	ids->ngroups = 0;
	ids->groups = NULL;
	while (n > 0) {
		ids->groups = malloc((size_t)n * sizeof(gid_t));
		if (ids->groups == NULL) {
			return;
		}
		int got = libc_getgroups(n, ids->groups);

		if (got >= 0) {
			ids->ngroups = (uint32_t)got;
			return;
		}
		free(ids->groups);
		ids->groups = NULL;
		n = libc_getgroups(0, NULL); /* changed meanwhile */
	}
}

void uwrap_initial_ids(struct uwrap_ids *ids)
{
	uint32_t *v[6] = {&ids->uid.r, &ids->uid.e, &ids->uid.s,
			  &ids->gid.r, &ids->gid.e, &ids->gid.s};
	int i;

	memset(ids, 0, sizeof(*ids));
	if (uwrap_stash.root) {
		ids->groups = malloc(sizeof(uint32_t));
		if (ids->groups != NULL) {
			ids->groups[0] = 0;
			ids->ngroups = 1;
		}
	} else {
		libc_getresuid(&ids->uid.r, &ids->uid.e, &ids->uid.s);
		libc_getresgid(&ids->gid.r, &ids->gid.e, &ids->gid.s);
		uwrap_real_groups(ids);
	}
	for (i = 0; i < 6; i++) {
		if (uwrap_stash.have[i]) {
			*v[i] = uwrap_stash.ids[i];
		}
	}
	if (uwrap_stash.have_groups) {
		free(ids->groups);
		ids->groups = NULL;
		ids->ngroups = 0;
		if (uwrap_stash.ngroups > 0) {
			size_t size = uwrap_stash.ngroups * sizeof(uint32_t);

			ids->groups = malloc(size);
			if (ids->groups == NULL) {
				return;
			}
			memcpy(ids->groups, uwrap_stash.groups, size);
			ids->ngroups = uwrap_stash.ngroups;
		}
	}
}

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
		if (has_initial || !uwrap_stash.any ||
		    root != uwrap_stash.root) {
			return envp;
		}
		uwrap_initial_ids(&ids);
		initial_groups = ids.groups;
	} else {
		struct uwrap_thread *t = uwrap_self();

		ids.uid = t->uid;
		ids.gid = t->gid;
		ids.ngroups = t->ngroups;
		ids.groups = uwrap_groups(t);
	}
	if (resetids) {
		ids.uid.e = ids.uid.r;
		ids.gid.e = ids.gid.r;
	}
	out = uwrap_env_with(envp, count, &ids);
	free(initial_groups);
	if (out == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	*to_free = out;
	return out;
}
