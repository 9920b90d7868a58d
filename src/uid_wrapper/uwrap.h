/*
 * uid_wrapper internals: the enable switch, the id operations the entry
 * points and the syscall table call, exec hand-over and the syscall table.
 * Module map, top-down: each file calls only files below it (no two call
 * each other, tests/foundation/check_layers.sh checks it):
 *   uwrap_entry.c    the exported libc names (and uwrap_entry_file.c:
 *                    chown, stat, listxattr; uwrap_entry_time64.c)
 *   uwrap_spawn.c    system(), popen()/pclose()
 *   uwrap_syscall.c  syscall() numbers handled per thread
 *   uwrap_exec.c     UID_WRAPPER_INITIAL_* handed to a new image
 *   uwrap_ids.c      get/set operations, process or thread scope
 *   uwrap_init.c     enable switch (UID_WRAPPER), constructor
 *   uwrap_owner.c    fake ownership (UID_WRAPPER_FAKE_CHOWN), with
 *                    uwrap_odb.c, the owner database
 *   uwrap_threads.c  process-wide and per-thread ids (seqlock + TLS)
 *   uwrap_initial.c  how the process starts: identity, UID_WRAPPER_ROOT,
 *                    UID_WRAPPER_INITIAL_* (uwrap_initial.h)
 *   uwrap_creds.c    the kernel's rules, pure
 */
#ifndef UWRAP_H
#define UWRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cwrap_compiler.h"
#include "uwrap_initial.h"
#include "uwrap_threads.h"

/* ---- uwrap_init.c: enabled? (decided once, at load: UID_WRAPPER and
 * UID_WRAPPER_ROOT say how a process starts; changing them later reaches
 * only the children it starts afterwards) ---- */
enum { UWRAP_UNKNOWN = 0, UWRAP_OFF = 1, UWRAP_ON = 2 };
extern int uwrap_state CWRAP_HIDDEN;
int uwrap_boot(void);

static inline bool uwrap_enabled(void)
{
	int s = __atomic_load_n(&uwrap_state, __ATOMIC_ACQUIRE);

	if (cwrap_unlikely(s == UWRAP_UNKNOWN)) {
		s = uwrap_boot();
	}
	return s == UWRAP_ON;
}

/* ---- uwrap_ids.c: operations; -1 and errno on failure ---- */
enum uwrap_scope {
	UWRAP_PROCESS, /* set*id(): every thread */
	UWRAP_THREAD,  /* syscall(SYS_set*id): the calling thread */
};
enum uwrap_op {
	UWRAP_OP_SET,	/* setuid(a) */
	UWRAP_OP_SETE,	/* seteuid(a) */
	UWRAP_OP_SETRE, /* setreuid(a, b) */
	UWRAP_OP_SETRES /* setresuid(a, b, c) */
};

int uwrap_set_ids(enum uwrap_scope scope, bool gid, enum uwrap_op op,
		  uint32_t a, uint32_t b, uint32_t c);
int uwrap_get_res(bool gid, uint32_t *r, uint32_t *e, uint32_t *s);
uid_t uwrap_geteuid(void);
int uwrap_getgroups(long size, gid_t *list);
int uwrap_setgroups(enum uwrap_scope scope, size_t size, const gid_t *list);
int uwrap_initgroups(const char *user, gid_t group);

static inline uid_t uwrap_getuid(void)
{
	return uwrap_self()->uid.r;
}

static inline gid_t uwrap_getgid(void)
{
	return uwrap_self()->gid.r;
}

static inline gid_t uwrap_getegid(void)
{
	return uwrap_self()->gid.e;
}

/* ---- uwrap_exec.c ---- */
enum uwrap_handover {
	UWRAP_HAND_CURRENT, /* exec*(): the calling thread's current ids */
	UWRAP_HAND_INITIAL, /* system(), popen(), posix_spawn*(): the ids the
			     * process started with (the current ones with
			     * UID_WRAPPER_SPAWN_CURRENT=1) */
};

/* The environment for a new image: `envp` plus the ids `how` says in
 * UID_WRAPPER_INITIAL_*, if `envp` enables uid_wrapper; otherwise `envp`
 * itself. CURRENT keeps the valid such entries of envp (one line for a bad
 * one) and fills in the others from the current ids, and adds none to an
 * envp that has UID_WRAPPER_ROOT=1 when this process did not start with it
 * (the new image starts as root); INITIAL leaves an envp
 * that has some unchanged, and adds the process's own only if it started
 * with some and envp's UID_WRAPPER_ROOT is what it was then (otherwise the
 * child starts from envp's UID_WRAPPER_ROOT or the real ids, as under the
 * upstream library). *to_free receives what to free() after the
 * call (NULL if nothing). `resetids`: effective ids become the real ones
 * (POSIX_SPAWN_RESETIDS). NULL with errno on ENOMEM. */
char *const *uwrap_exec_envp(char *const envp[], enum uwrap_handover how,
			     bool resetids, void **to_free);

/* ---- uwrap_spawn.c: system() and popen() (uwrap_exec_envp's ids) ---- */
int uwrap_system(const char *command);
FILE *uwrap_popen(const char *command, const char *mode);
/* *ours: fp came from uwrap_popen() (otherwise nothing was done). */
int uwrap_pclose(FILE *fp, bool *ours);

/* ---- uwrap_syscall.c ---- */
typedef long (*uwrap_sys_fn)(const long a[6]);
/* The handler of a uid/gid syscall number, NULL for every other number. */
uwrap_sys_fn uwrap_syscall_find(long nr);
/* The handler of a chown or stat number (fake ownership), NULL for every
 * other number: only while uwrap_owner_on(). */
uwrap_sys_fn uwrap_syscall_find_file(long nr);

#endif
