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
 * since (uwrap_exec_envp). Values the caller put in the environment it
 * hands over win: exec*() fills in only the missing ones, the others leave
 * such an environment as it is; an exec*() whose environment gained
 * UID_WRAPPER_ROOT=1 since this process started adds nothing either.
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

/* UID_WRAPPER_INITIAL_* values as read from an environment: those that
 * were set and valid. */
struct uwrap_given {
	bool have[6];
	uint32_t ids[6];
	bool have_groups;
	uint32_t ngroups;
	uint32_t *groups; /* malloc()ed, NULL when ngroups is 0 */
};

static struct {
	bool root;
	bool any; /* some UID_WRAPPER_INITIAL_* value was accepted */
	struct uwrap_given given;
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

/* Where the values are read: the process's environment at start, or the
 * environment given to exec*(). Returns NULL for an unset or empty
 * variable (an empty value is the same as an unset one). */
typedef const char *(*uwrap_lookup_fn)(const char *name, char *const *envp);

static const char *uwrap_lookup_environ(const char *name, char *const *envp)
{
	const char *v = getenv(name);

	(void)envp;
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* The first entry, as getenv() finds it. */
static const char *uwrap_lookup_envp(const char *name, char *const *envp)
{
	size_t len = strlen(name);

	for (; *envp != NULL; envp++) {
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=') {
			return (*envp)[len + 1] != '\0' ? *envp + len + 1
							: NULL;
		}
	}
	return NULL;
}

/* The group pair: a count with a list of exactly that many ids (no list
 * for 0). A list without its count, or one that disagrees with it, is
 * left out with one line ending with `instead`. */
static void uwrap_read_groups(uwrap_lookup_fn get, char *const *envp,
			      const char *instead, struct uwrap_given *g)
{
	const char *cs = get(UWRAP_COUNT_VAR, envp);
	const char *gs = get(UWRAP_GROUPS_VAR, envp);
	long n;

	if (cs == NULL) {
		if (gs != NULL) {
			CWRAP_ERROR("%s='%s' is set without %s, %s",
				    UWRAP_GROUPS_VAR, gs, UWRAP_COUNT_VAR,
				    instead);
		}
		return;
	}
	if (!cwrap_parse_long(cs, 0, UWRAP_NGROUPS_MAX, &n)) {
		CWRAP_ERROR("%s='%s' is not a number in 0..%d, %s",
			    UWRAP_COUNT_VAR, cs, UWRAP_NGROUPS_MAX, instead);
		return;
	}
	if (n == 0 && gs != NULL) {
		CWRAP_ERROR("%s='%s' disagrees with %s=0, %s", UWRAP_GROUPS_VAR,
			    gs, UWRAP_COUNT_VAR, instead);
		return;
	}
	if (n > 0) {
		g->groups = malloc((size_t)n * sizeof(uint32_t));
		if (g->groups == NULL) {
			CWRAP_ERROR("out of memory for %s, %s",
				    UWRAP_GROUPS_VAR, instead);
			return;
		}
		if (gs == NULL ||
		    !uwrap_parse_groups(gs, (uint32_t)n, g->groups)) {
			CWRAP_ERROR("%s='%s' is not %ld comma-separated ids "
				    "in 0..%u (%s=%ld), %s",
				    UWRAP_GROUPS_VAR, gs != NULL ? gs : "", n,
				    UINT32_MAX - 1, UWRAP_COUNT_VAR, n,
				    instead);
			free(g->groups);
			g->groups = NULL;
			return;
		}
	}
	g->ngroups = (uint32_t)n;
	g->have_groups = true;
}

/* Every UID_WRAPPER_INITIAL_* value `get` finds; a bad one is left out,
 * with one line naming it. Returns whether any was accepted. */
static bool uwrap_read_given(uwrap_lookup_fn get, char *const *envp,
			     const char *id_instead, const char *groups_instead,
			     struct uwrap_given *g)
{
	bool any = false;
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < 6; i++) {
		const char *s = get(uwrap_id_vars[i], envp);

		if (s == NULL) {
			continue;
		}
		g->have[i] = uwrap_parse_id(s, &g->ids[i]);
		if (!g->have[i]) {
			CWRAP_ERROR("%s='%s' is not an id in 0..%u, %s",
				    uwrap_id_vars[i], s, UINT32_MAX - 1,
				    id_instead);
		}
		any = any || g->have[i];
	}
	uwrap_read_groups(get, envp, groups_instead, g);
	return any || g->have_groups;
}

/* The given values replace those of `ids`; ids->groups then points into
 * `g`. */
static void uwrap_apply_given(const struct uwrap_given *g,
			      struct uwrap_ids *ids)
{
	uint32_t *v[6] = {&ids->uid.r, &ids->uid.e, &ids->uid.s,
			  &ids->gid.r, &ids->gid.e, &ids->gid.s};
	int i;

	for (i = 0; i < 6; i++) {
		if (g->have[i]) {
			*v[i] = g->ids[i];
		}
	}
	if (g->have_groups) {
		ids->ngroups = g->ngroups;
		ids->groups = g->groups;
	}
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
	struct uwrap_given *g = &uwrap_stash.given;

	uwrap_stash.root = uwrap_env_flag("UID_WRAPPER_ROOT", NULL);
	if (!uwrap_have_initial()) {
		return;
	}
	uwrap_stash.any = uwrap_read_given(uwrap_lookup_environ, NULL,
					   "ignored", "both ignored", g);
	/* sorted, as the kernel keeps them */
	uwrap_sort_groups(g->groups, g->ngroups);
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
	const struct uwrap_given *g = &uwrap_stash.given;

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
	if (g->have_groups) {
		free(ids->groups);
	}
	uwrap_apply_given(g, ids);
	if (g->have_groups && g->ngroups > 0) {
		/* the caller owns (and frees) what it gets */
		size_t size = g->ngroups * sizeof(uint32_t);

		ids->groups = malloc(size);
		if (ids->groups == NULL) {
			ids->ngroups = 0;
			return;
		}
		memcpy(ids->groups, g->groups, size);
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
		if (has_initial || !uwrap_stash.any ||
		    root != uwrap_stash.root) {
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
		if (root && !uwrap_stash.root && !has_initial) {
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
			    uwrap_lookup_envp, envp,
			    "the current id is passed instead",
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
