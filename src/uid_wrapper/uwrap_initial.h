/*
 * uwrap_initial: how the process starts, the lowest layer of uid_wrapper
 * but the kernel's rules (uwrap_creds.c) and libc: the library's identity
 * (cwrap_lib), the 0/1 variables' reader, UID_WRAPPER_ROOT as it was at
 * load, and the
 * UID_WRAPPER_INITIAL_* variables, read (and removed from the
 * environment) at load and kept; the readers and parsers of those
 * variables, which exec (uwrap_exec.c) uses on a new image's environment.
 * The boot (uwrap_init.c) imports them, the process-wide ids start from
 * uwrap_initial_ids() (uwrap_threads.c), system()/popen()/posix_spawn()
 * hand them on (uwrap_exec.c); nothing here calls any of those.
 *
 * State: written once by uwrap_initial_import() (under the pthread_once of
 * uwrap_init.c, before the library says it is on), read-only afterwards.
 * No lock.
 */
#ifndef UWRAP_INITIAL_H
#define UWRAP_INITIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "uwrap_creds.h"

/* A set of ids: what a process starts with, or what one thread hands to
 * the thread it creates (uwrap_threads.c, which alone uses `seen`). */
struct uwrap_ids {
	uint64_t seen;
	struct uwrap_triple uid, gid;
	uint32_t ngroups;
	uint32_t *groups;
};

/* A 0/1 variable: true only for exactly "1". Unset, empty or "0": false.
 * Any other value: false, and one line naming the variable (only the
 * first time in this process, if `warned` is given). */
bool uwrap_env_flag(const char *var, int *warned);

/* At load (UID_WRAPPER set): read UID_WRAPPER_ROOT and the
 * UID_WRAPPER_INITIAL_* variables, and remove the latter. */
void uwrap_initial_import(void);
/* The process started with UID_WRAPPER_ROOT=1. */
bool uwrap_initial_root(void);
/* Some UID_WRAPPER_INITIAL_* value was accepted at load. */
bool uwrap_initial_given(void);
/* The ids the process starts with (the real ones, or root's, with the
 * accepted UID_WRAPPER_INITIAL_* values over them): groups malloc'd. */
void uwrap_initial_ids(struct uwrap_ids *ids);

/* ---- the variables, for exec's environments ---- */
#define UWRAP_INITIAL "UID_WRAPPER_INITIAL_"
#define UWRAP_COUNT_VAR UWRAP_INITIAL "GROUPS_COUNT"
#define UWRAP_GROUPS_VAR UWRAP_INITIAL "GROUPS"
/* _RUID, _EUID, _SUID, _RGID, _EGID, _SGID */
extern const char *const uwrap_id_vars[6];

/* UID_WRAPPER_INITIAL_* values as read from an environment: those that
 * were set and valid. */
struct uwrap_given {
	bool have[6];
	uint32_t ids[6];
	bool have_groups;
	uint32_t ngroups;
	uint32_t *groups; /* malloc()ed, NULL when ngroups is 0 */
};

/* An entry UID_WRAPPER_INITIAL_*=... */
bool uwrap_is_initial(const char *entry);
/* Every UID_WRAPPER_INITIAL_* value of `envp` (NULL: the process's
 * environment); a bad one is left out, with one line naming it and ending
 * with `id_instead` or `groups_instead`. Returns whether any was
 * accepted. */
bool uwrap_read_given(char *const *envp, const char *id_instead,
		      const char *groups_instead, struct uwrap_given *g);
/* The given values replace those of `ids`; ids->groups then points into
 * `g`. */
void uwrap_apply_given(const struct uwrap_given *g, struct uwrap_ids *ids);

/* Formatting and parsing of the variables (pure, for unit tests). */
bool uwrap_parse_id(const char *s, uint32_t *out);
/* Parses "1,2,3" with exactly `count` numbers into groups[]; false on any
 * error. */
bool uwrap_parse_groups(const char *s, uint32_t count, uint32_t *groups);

#endif
