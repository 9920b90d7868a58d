/*
 * priv_wrapper internal API (hidden visibility). Module map:
 *   pwrap_conf.c     the PRIV_WRAPPER_* variables: parsed (pure list
 *                    parser), cached per thread per environment generation
 *   pwrap_calls.c    what a disabled call answers: the kernel's checks of
 *                    the arguments that cost nothing, then 0 without
 *                    effect; the syscall() numbers
 *   pwrap_libc.c     libc_<name>() from pwrap_libc.def
 *   pwrap_entry.c    the exported names: one branch, then the logic or
 *                    libc's function
 * No lock anywhere: the configuration is per thread, the rest has no state.
 */
#ifndef PWRAP_H
#define PWRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cwrap_compiler.h"
#include "cwrap_config.h"

/* ---- pwrap_conf.c ---------------------------------------------------- */

/* prctl() options PRIV_WRAPPER_PRCTL_DISABLE can name (bits). */
#define PWRAP_PR_SECCOMP 0x1u	   /* PR_SET_SECCOMP and seccomp(2) */
#define PWRAP_PR_NO_NEW_PRIVS 0x2u /* PR_SET_NO_NEW_PRIVS */
#define PWRAP_PR_DUMPABLE 0x4u	   /* PR_SET_DUMPABLE */

/* What the variables say now. Everything is false or 0 unless
 * PRIV_WRAPPER=1. */
struct pwrap_conf {
	bool enabled;	      /* PRIV_WRAPPER=1 */
	bool chroot_disabled; /* PRIV_WRAPPER_CHROOT_DISABLE=1 */
	uint32_t prctl;	      /* PWRAP_PR_* of PRIV_WRAPPER_PRCTL_DISABLE */
	uint32_t rlimit; /* 1 << RLIMIT_x of PRIV_WRAPPER_SETRLIMIT_DISABLE */
};

/* The calling thread's copy, read again when the environment changed
 * (cwrap_env_gen()); a few loads otherwise. */
const struct pwrap_conf *pwrap_conf(void);

/* Read the variables into *c. A bad value (a flag other than 0 or 1, an
 * unknown name in a list) is reported in one line on stderr, once for
 * each value it has in the process. */
void pwrap_conf_read(struct pwrap_conf *c);

/* A name a list may hold, and the bits it stands for. */
struct pwrap_name {
	const char *name;
	uint32_t bits;
};
extern const struct pwrap_name pwrap_prctl_names[];
extern const size_t pwrap_prctl_names_count;
extern const struct pwrap_name pwrap_rlimit_names[];
extern const size_t pwrap_rlimit_names_count;

/* A list value: names separated by '|' or ',', blanks around a name
 * ignored, empty items skipped; "ALL" stands for every name of the table.
 * Returns the union of the bits named. Each unknown name is given to
 * `unknown` (not NUL-terminated: `len` bytes) when it is not NULL. Pure,
 * linear in the value's length times the table's. */
typedef void (*pwrap_unknown_fn)(const char *name, size_t len, void *ctx);
uint32_t pwrap_parse_list(const char *value, const struct pwrap_name *table,
			  size_t count, pwrap_unknown_fn unknown, void *ctx);

/* ---- pwrap_calls.c --------------------------------------------------- */

/* chroot(path) while disabled: the errors the kernel gives for the path
 * (ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG, EFAULT), else 0 without
 * changing the root. */
int pwrap_chroot(const char *path);

/* Whether prctl(option, a2, a3, a4, a5) is to return 0 without effect
 * under the PWRAP_PR_* bits `mask`: the option is disabled and the
 * kernel would accept its arguments. Arguments the kernel refuses go to
 * the kernel (which refuses them, changing nothing). Pure. */
bool pwrap_prctl_fake(uint32_t mask, int option, unsigned long a2,
		      unsigned long a3, unsigned long a4, unsigned long a5);

/* seccomp(op, flags, args) under the bits `mask`. Pure. */
enum pwrap_verdict {
	PWRAP_PASS,  /* to the kernel */
	PWRAP_FAKE,  /* 0 without effect */
	PWRAP_EINVAL /* -1, EINVAL, as a kernel without that flag */
};
enum pwrap_verdict pwrap_seccomp_verdict(uint32_t mask, unsigned long op,
					 unsigned long flags,
					 unsigned long args);

/* Whether setting `resource` to the limit at `lim` is to return 0
 * without effect under the 1 << RLIMIT_x bits `mask`: the resource is
 * disabled and the kernel would not refuse the values as invalid (soft
 * above hard). `lim` holds two unsigned fields of `width` bytes (4 or 8),
 * soft then hard, as struct rlimit, struct rlimit64 and the kernel's
 * struct do; NULL (nothing to set) gives false. */
bool pwrap_rlimit_fake(uint32_t mask, long resource, const void *lim,
		       size_t width);

/* prlimit(pid, resource, new, old) whose setting is disabled: the
 * target's current limit into *old (if not NULL), read as the C
 * library's prlimit() reads it, so that the pid's errors (ESRCH, EPERM)
 * are the kernel's; 0 or -1 and errno. */
int pwrap_prlimit_read(pid_t pid, long resource, struct rlimit *old);
#ifdef HAVE_PRLIMIT64
int pwrap_prlimit64_read(pid_t pid, long resource, struct rlimit64 *old);
#endif

/* syscall(nr, a...) for the numbers priv_wrapper owns (chroot, prctl,
 * seccomp, setrlimit, prlimit64) while a disabled request is made:
 * returns the result with *ours true; otherwise *ours false and the
 * caller passes the call on. */
long pwrap_syscall(long nr, const long a[6], bool *ours);

#endif
