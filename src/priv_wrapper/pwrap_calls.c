/*
 * What a disabled call answers. A disabled request returns 0 and changes
 * nothing, but only where the kernel would have accepted it: a request
 * whose arguments the kernel refuses as such (a missing directory for
 * chroot(), PR_SET_DUMPABLE 2, a soft limit above the hard one...) gets
 * the kernel's error, as in production, so that a test of a program's
 * error path means the same with and without the wrapper. Those checks
 * are the ones that cost nothing and change nothing: either the same
 * test the kernel makes (pure functions below), or the request handed to
 * the kernel itself when it must fail there without effect (a NULL
 * filter program: EFAULT). What needs privilege is what is skipped: the
 * EPERM a non-root chroot() gets, the hard limit an ordinary user may
 * not raise. No state.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_syscall.h"
#include "pwrap.h"
#include "pwrap_libc.h"

/* <linux/seccomp.h>, which musl's compiler does not see: kernel ABI. */
#define PWRAP_SECCOMP_MODE_STRICT 1UL
#define PWRAP_SECCOMP_MODE_FILTER 2UL
#define PWRAP_SECCOMP_SET_MODE_STRICT 0UL
#define PWRAP_SECCOMP_SET_MODE_FILTER 1UL
#define PWRAP_SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#define PWRAP_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
/* TSYNC, LOG, SPEC_ALLOW, NEW_LISTENER, TSYNC_ESRCH, WAIT_KILLABLE_RECV */
#define PWRAP_SECCOMP_FILTER_FLAGS 0x3fUL

int pwrap_chroot(const char *path)
{
	struct stat st;

	/* The kernel looks the path up first, then checks search permission
	 * on the directory, and only then privilege (EPERM). */
	if (path == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (stat(path, &st) != 0) {
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (access(path, X_OK) != 0) {
		return -1;
	}
	CWRAP_DEBUG("chroot(\"%s\") disabled: returns 0, the root is unchanged",
		    path);
	return 0;
}

bool pwrap_prctl_fake(uint32_t mask, int option, unsigned long a2,
		      unsigned long a3, unsigned long a4, unsigned long a5)
{
	switch (option) {
	case PR_SET_DUMPABLE:
		/* SUID_DUMP_DISABLE or SUID_DUMP_USER; anything else EINVAL */
		return (mask & PWRAP_PR_DUMPABLE) != 0 && a2 <= 1;
	case PR_SET_NO_NEW_PRIVS:
		return (mask & PWRAP_PR_NO_NEW_PRIVS) != 0 && a2 == 1 &&
		       a3 == 0 && a4 == 0 && a5 == 0;
	case PR_SET_SECCOMP:
		/* strict mode ignores a3; a filter without a program is
		 * EFAULT; another mode EINVAL */
		return (mask & PWRAP_PR_SECCOMP) != 0 &&
		       (a2 == PWRAP_SECCOMP_MODE_STRICT ||
			(a2 == PWRAP_SECCOMP_MODE_FILTER && a3 != 0));
	default:
		return false;
	}
}

enum pwrap_verdict pwrap_seccomp_verdict(uint32_t mask, unsigned long op,
					 unsigned long flags,
					 unsigned long args)
{
	if ((mask & PWRAP_PR_SECCOMP) == 0) {
		return PWRAP_PASS;
	}
	switch (op) {
	case PWRAP_SECCOMP_SET_MODE_STRICT:
		/* anything else is EINVAL: libseccomp probes for seccomp()
		 * with flags 1 and expects that */
		return flags == 0 && args == 0 ? PWRAP_FAKE : PWRAP_PASS;
	case PWRAP_SECCOMP_SET_MODE_FILTER:
		/* A flag we do not know may be one the kernel knows: the
		 * filter must not reach it. A listener is a descriptor a
		 * filter that is not installed cannot give: refused as by a
		 * kernel without the flag. */
		if ((flags & ~PWRAP_SECCOMP_FILTER_FLAGS) != 0 ||
		    (flags & (PWRAP_SECCOMP_FILTER_FLAG_NEW_LISTENER |
			      PWRAP_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)) !=
			0) {
			return PWRAP_EINVAL;
		}
		return args == 0 ? PWRAP_PASS : PWRAP_FAKE;
	default:
		/* SECCOMP_GET_ACTION_AVAIL, SECCOMP_GET_NOTIF_SIZES: reads */
		return PWRAP_PASS;
	}
}

static uint64_t load_field(const unsigned char *p, size_t width)
{
	uint32_t v32;
	uint64_t v64;

	if (width == sizeof(v32)) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

bool pwrap_rlimit_fake(uint32_t mask, long resource, const void *lim,
		       size_t width)
{
	const unsigned char *p = lim;

	if (p == NULL || resource < 0 || resource >= 32 ||
	    (mask & (1u << resource)) == 0) {
		return false;
	}
	/* soft above hard: EINVAL from the kernel, without effect */
	return load_field(p, width) <= load_field(p + width, width);
}

int pwrap_prlimit_read(pid_t pid, long resource, struct rlimit *old)
{
	struct rlimit tmp;

#ifdef HAVE_PRLIMIT64
	if (sizeof(rlim_t) < sizeof(uint64_t)) {
		/* A 32-bit rlim_t: the C library's prlimit() that sets a
		 * limit reports an old one that does not fit as
		 * RLIM_INFINITY, where a read alone fails with EOVERFLOW. */
		struct rlimit64 v;

		if (libc_prlimit64(pid, resource, NULL, &v) != 0) {
			return -1;
		}
		if (old != NULL) {
			old->rlim_cur = v.rlim_cur >= RLIM_INFINITY
					    ? RLIM_INFINITY
					    : (rlim_t)v.rlim_cur;
			old->rlim_max = v.rlim_max >= RLIM_INFINITY
					    ? RLIM_INFINITY
					    : (rlim_t)v.rlim_max;
		}
		return 0;
	}
#endif
	return libc_prlimit(pid, resource, NULL, old != NULL ? old : &tmp);
}

#ifdef HAVE_PRLIMIT64
int pwrap_prlimit64_read(pid_t pid, long resource, struct rlimit64 *old)
{
	struct rlimit64 tmp;

	return libc_prlimit64(pid, resource, NULL, old != NULL ? old : &tmp);
}
#endif

/* ---- syscall() ------------------------------------------------------- */

long pwrap_syscall(long nr, const long a[6], bool *ours)
{
	const struct pwrap_conf *c = pwrap_conf();

	*ours = false;
	switch (nr) {
	case SYS_chroot:
		if (!c->chroot_disabled) {
			return 0;
		}
		*ours = true;
		return pwrap_chroot((const char *)a[0]);
	case SYS_prctl:
		/* the kernel takes an int option */
		if (!pwrap_prctl_fake(c->prctl, (int)a[0], (unsigned long)a[1],
				      (unsigned long)a[2], (unsigned long)a[3],
				      (unsigned long)a[4])) {
			return 0;
		}
		CWRAP_DEBUG("prctl(%d) disabled: returns 0", (int)a[0]);
		*ours = true;
		return 0;
#ifdef SYS_seccomp
	case SYS_seccomp:
		/* the kernel takes unsigned int op and flags */
		switch (pwrap_seccomp_verdict(c->prctl, (unsigned int)a[0],
					      (unsigned int)a[1],
					      (unsigned long)a[2])) {
		case PWRAP_PASS:
			return 0;
		case PWRAP_EINVAL:
			*ours = true;
			errno = EINVAL;
			return -1;
		case PWRAP_FAKE:
			break;
		}
		CWRAP_DEBUG("seccomp(%u) disabled: returns 0", (unsigned)a[0]);
		*ours = true;
		return 0;
#endif
#ifdef SYS_setrlimit
	case SYS_setrlimit:
		/* the kernel's struct rlimit: two unsigned longs */
		if (!pwrap_rlimit_fake(c->rlimit, (unsigned int)a[0],
				       (const void *)a[1],
				       sizeof(unsigned long))) {
			return 0;
		}
		CWRAP_DEBUG("setrlimit(%u) disabled: returns 0",
			    (unsigned)a[0]);
		*ours = true;
		return 0;
#endif
#ifdef SYS_prlimit64
	case SYS_prlimit64: {
		uint64_t tmp[2];
		long rd[6] = {a[0], a[1], 0, a[3], 0, 0};

		if (!pwrap_rlimit_fake(c->rlimit, (unsigned int)a[1],
				       (const void *)a[2], sizeof(uint64_t))) {
			return 0;
		}
		CWRAP_DEBUG("prlimit64(%ld, %u) disabled: reads only", a[0],
			    (unsigned)a[1]);
		if (rd[3] == 0) {
			rd[3] = (long)tmp;
		}
		*ours = true;
		return cwrap_syscall_next(SYS_prlimit64, rd);
	}
#endif
	default:
		return 0;
	}
}
