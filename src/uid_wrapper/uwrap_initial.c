/*
 * uwrap_initial: how the process starts (see uwrap_initial.h): the
 * library's identity (cwrap_lib, for the log and the variables' prefix:
 * here, at the bottom, for every file that logs), the 0/1 variables'
 * reader, and the ids a process starts with, from the
 * UID_WRAPPER_INITIAL_* variables:
 *     UID_WRAPPER_INITIAL_RUID, _EUID, _SUID, _RGID, _EGID, _SGID
 *     UID_WRAPPER_INITIAL_GROUPS_COUNT, UID_WRAPPER_INITIAL_GROUPS (1,2,3)
 * At load the constructor reads and removes them (uwrap_initial_import),
 * keeping the values it accepted, and UID_WRAPPER_ROOT; the process-wide
 * ids start from them (uwrap_initial_ids). The same readers serve exec
 * (uwrap_exec.c) on the environment it hands to a new image.
 *
 * State: uwrap_stash, written once by the constructor (under the
 * pthread_once of uwrap_init.c), read-only afterwards. No lock.
 */
#include <stdlib.h>
#include <string.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"
#include "cwrap_log.h"
#include "uwrap_initial.h"
#include "uwrap_libc.h"

extern char **environ;

const struct cwrap_lib cwrap_lib = {
    .name = "uid_wrapper",
    .log_prefix = "UWRAP",
    .env_prefix = "UID_WRAPPER",
};

const char *const uwrap_id_vars[6] = {
    UWRAP_INITIAL "RUID", UWRAP_INITIAL "EUID", UWRAP_INITIAL "SUID",
    UWRAP_INITIAL "RGID", UWRAP_INITIAL "EGID", UWRAP_INITIAL "SGID",
};

bool uwrap_env_flag(const char *var, int *warned)
{
	const char *s = getenv(var);

	if (s == NULL || s[0] == '\0' || (s[0] == '0' && s[1] == '\0')) {
		return false;
	}
	if (s[0] == '1' && s[1] == '\0') {
		return true;
	}
	if (warned == NULL ||
	    !__atomic_exchange_n(warned, 1, __ATOMIC_RELAXED)) {
		CWRAP_ERROR("%s='%s' is neither 1 nor 0, taken as 0 (off)", var,
			    s);
	}
	return false;
}

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

bool uwrap_read_given(char *const *envp, const char *id_instead,
		      const char *groups_instead, struct uwrap_given *g)
{
	uwrap_lookup_fn get =
	    envp != NULL ? uwrap_lookup_envp : uwrap_lookup_environ;
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

void uwrap_apply_given(const struct uwrap_given *g, struct uwrap_ids *ids)
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

bool uwrap_is_initial(const char *entry)
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

void uwrap_initial_import(void)
{
	struct uwrap_given *g = &uwrap_stash.given;

	uwrap_stash.root = uwrap_env_flag("UID_WRAPPER_ROOT", NULL);
	if (!uwrap_have_initial()) {
		return;
	}
	uwrap_stash.any = uwrap_read_given(NULL, "ignored", "both ignored", g);
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

bool uwrap_initial_root(void)
{
	return uwrap_stash.root;
}

bool uwrap_initial_given(void)
{
	return uwrap_stash.any;
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
