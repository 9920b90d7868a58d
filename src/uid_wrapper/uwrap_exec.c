/*
 * uwrap_exec: the ids a process starts with, and the ids it hands to the
 * image it execs, through the UID_WRAPPER_INITIAL_* variables:
 *     UID_WRAPPER_INITIAL_RUID, _EUID, _SUID, _RGID, _EGID, _SGID
 *     UID_WRAPPER_INITIAL_GROUPS_COUNT, UID_WRAPPER_INITIAL_GROUPS (1,2,3)
 * At load the constructor reads and removes them (uwrap_exec_import); the
 * exec and posix_spawn wrappers add the calling thread's current ids to the
 * new image's environment (uwrap_exec_envp).
 *
 * State: uwrap_stash, written once by the constructor (under the
 * pthread_once of uwrap_init.c) and read once by the process record's
 * initialisation (under the pthread_once of uwrap_threads.c). No lock.
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
	bool have[6];
	uint32_t ids[6];
	bool have_groups;
	uint32_t ngroups;
	uint32_t *groups;
} uwrap_stash;

bool uwrap_parse_id(const char *s, uint32_t *out)
{
	/* (uid_t)-1 is not an id. */
	return cwrap_parse_u32(s, UINT32_MAX - 1, out);
}

bool uwrap_parse_groups(const char *s, uint32_t count, uint32_t *groups)
{
	char buf[16];
	uint32_t i;

	for (i = 0; i < count; i++) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= sizeof(buf)) {
			return false;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (!uwrap_parse_id(buf, &groups[i])) {
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
			CWRAP_ERROR("%s is set without %s, ignored",
				    UWRAP_GROUPS_VAR, UWRAP_COUNT_VAR);
		}
		return;
	}
	if (!cwrap_parse_long(cs, 0, UWRAP_NGROUPS_MAX, &n)) {
		CWRAP_ERROR("%s='%s' is not a number in 0..%d, ignored",
			    UWRAP_COUNT_VAR, cs, UWRAP_NGROUPS_MAX);
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
			CWRAP_ERROR("%s='%s' is not a list of %ld group ids "
				    "(%s), ignored",
				    UWRAP_GROUPS_VAR, gs != NULL ? gs : "", n,
				    UWRAP_COUNT_VAR);
			free(uwrap_stash.groups);
			uwrap_stash.groups = NULL;
			return;
		}
	}
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

	uwrap_stash.root = cwrap_env_true("UID_WRAPPER_ROOT");
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
	}
	uwrap_import_groups();
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
		ids->groups = uwrap_stash.groups;
		ids->ngroups = uwrap_stash.ngroups;
		uwrap_stash.groups = NULL;
	}
}

/* "UID_WRAPPER=<value>" with a value that enables it? */
static bool uwrap_env_enables(const char *entry)
{
	static const char var[] = "UID_WRAPPER=";
	const char *v;

	if (strncmp(entry, var, sizeof(var) - 1) != 0) {
		return false;
	}
	v = entry + sizeof(var) - 1;
	return v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}

char *const *uwrap_exec_envp(char *const envp[], bool resetids, void **to_free)
{
	struct uwrap_thread *t;
	uint32_t ids[6];
	const uint32_t *groups;
	size_t count = 0, keep = 0, size, i;
	bool enables = false;
	char **out, *p, *end;

	*to_free = NULL;
	if (envp == NULL || !uwrap_enabled()) {
		return envp;
	}
	for (i = 0; envp[i] != NULL; i++) {
		enables = enables || uwrap_env_enables(envp[i]);
		count++;
	}
	if (!enables) {
		return envp; /* the new image is not wrapped */
	}

	t = uwrap_self();
	ids[UWRAP_RUID] = t->uid.r;
	ids[UWRAP_EUID] = resetids ? t->uid.r : t->uid.e;
	ids[UWRAP_SUID] = t->uid.s;
	ids[UWRAP_RGID] = t->gid.r;
	ids[UWRAP_EGID] = resetids ? t->gid.r : t->gid.e;
	ids[UWRAP_SGID] = t->gid.s;
	groups = uwrap_groups(t);

	/* One block: the pointer array, then our strings. */
	size =
	    (count + 9) * sizeof(char *) + 8 * 48 + (size_t)t->ngroups * 11 + 1;
	out = malloc(size);
	if (out == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < count; i++) {
		if (strncmp(envp[i], UWRAP_INITIAL,
			    sizeof(UWRAP_INITIAL) - 1) != 0) {
			out[keep++] = envp[i];
		}
	}
	p = (char *)(out + count + 9);
	end = (char *)out + size;
	for (i = 0; i < 6; i++) {
		out[keep++] = p;
		p += snprintf(p, (size_t)(end - p), "%s=%u", uwrap_id_vars[i],
			      ids[i]) +
		     1;
	}
	out[keep++] = p;
	p += snprintf(p, (size_t)(end - p), "%s=%u", UWRAP_COUNT_VAR,
		      t->ngroups) +
	     1;
	if (t->ngroups > 0) {
		out[keep++] = p;
		p += snprintf(p, (size_t)(end - p), "%s=", UWRAP_GROUPS_VAR);
		for (i = 0; i < t->ngroups; i++) {
			p += snprintf(p, (size_t)(end - p), "%s%u",
				      i > 0 ? "," : "", groups[i]);
		}
	}
	out[keep] = NULL;
	*to_free = out;
	return out;
}
