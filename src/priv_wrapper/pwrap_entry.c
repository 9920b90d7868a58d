/*
 * The exported names of priv_wrapper: each asks the calling thread's
 * configuration (pwrap_conf.c) whether its request is disabled, and
 * answers it with the logic of pwrap_calls.c or passes it to the C
 * library unchanged. syscall() answers the numbers of the same calls
 * and passes every other number on to the next syscall() in the chain
 * (another wrapper's, or libc's), untouched. No state, no locks.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "cwrap_syscall.h"
#include "pwrap.h"
#include "pwrap_libc.h"

CWRAP_EXPORT bool priv_wrapper_enabled(void);

bool priv_wrapper_enabled(void)
{
	return pwrap_conf()->enabled;
}

CWRAP_EXPORT int chroot(const char *path)
{
	if (!pwrap_conf()->chroot_disabled) {
		return libc_chroot(path);
	}
	return pwrap_chroot(path);
}

/* glibc and musl read four more arguments whatever the option. */
CWRAP_EXPORT int prctl(int option, ...)
{
	unsigned long a2, a3, a4, a5;
	va_list ap;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);

	if (pwrap_prctl_fake(pwrap_conf()->prctl, option, a2, a3, a4, a5)) {
		CWRAP_DEBUG("prctl(%d, %lu) disabled: returns 0", option, a2);
		return 0;
	}
	return libc_ptr_prctl()(option, a2, a3, a4, a5);
}

CWRAP_EXPORT int setrlimit(CWRAP_RLIMIT_RESOURCE resource,
			   const struct rlimit *rlim)
{
	if (pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, rlim,
			      sizeof(rlim_t))) {
		CWRAP_DEBUG("setrlimit(%d) disabled: returns 0", (int)resource);
		return 0;
	}
	return libc_setrlimit(resource, rlim);
}

CWRAP_EXPORT int prlimit(pid_t pid, CWRAP_RLIMIT_RESOURCE resource,
			 const struct rlimit *new_limit,
			 struct rlimit *old_limit)
{
	if (!pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, new_limit,
			       sizeof(rlim_t))) {
		return libc_prlimit(pid, resource, new_limit, old_limit);
	}
	CWRAP_DEBUG("prlimit(%d, %d) disabled: reads only", (int)pid,
		    (int)resource);
	return pwrap_prlimit_read(pid, resource, old_limit);
}

#ifdef HAVE_SETRLIMIT64
CWRAP_EXPORT int setrlimit64(CWRAP_RLIMIT_RESOURCE resource,
			     const struct rlimit64 *rlim)
{
	if (pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, rlim,
			      sizeof(rlim64_t))) {
		CWRAP_DEBUG("setrlimit64(%d) disabled: returns 0",
			    (int)resource);
		return 0;
	}
	return libc_setrlimit64(resource, rlim);
}
#endif

#ifdef HAVE_PRLIMIT64
CWRAP_EXPORT int prlimit64(pid_t pid, CWRAP_RLIMIT_RESOURCE resource,
			   const struct rlimit64 *new_limit,
			   struct rlimit64 *old_limit)
{
	if (!pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, new_limit,
			       sizeof(rlim64_t))) {
		return libc_prlimit64(pid, resource, new_limit, old_limit);
	}
	CWRAP_DEBUG("prlimit64(%d, %d) disabled: reads only", (int)pid,
		    (int)resource);
	return pwrap_prlimit64_read(pid, resource, old_limit);
}
#endif

/* ---- syscall(): the numbers of the calls above, the rest untouched ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* A sanitizer runtime makes system calls through syscall() while it sets
 * itself up (i386), before the code they would reach here can run: until
 * this library's constructor has run (after the runtime's), every number
 * goes on. Sanitizer builds only: the library does nothing at load
 * otherwise. */
static bool sys_ready;

__attribute__((constructor)) static void sys_set_ready(void)
{
	__atomic_store_n(&sys_ready, true, __ATOMIC_RELEASE);
}
#define SYS_READY() __atomic_load_n(&sys_ready, __ATOMIC_ACQUIRE)
#else
#define SYS_READY() true
#endif

CWRAP_NO_SANITIZE static bool sys_owned(long nr)
{
	switch (nr) {
	case SYS_chroot:
	case SYS_prctl:
#ifdef SYS_seccomp
	case SYS_seccomp:
#endif
#ifdef SYS_setrlimit
	case SYS_setrlimit:
#endif
#ifdef SYS_prlimit64
	case SYS_prlimit64:
#endif
		return true;
	default:
		return false;
	}
}

/* Uninstrumented (see above): a number that is not ours goes on without
 * touching instrumented code, and the next syscall() is found with a
 * plain dlsym(RTLD_NEXT), which cannot return this one. */
CWRAP_NO_SANITIZE CWRAP_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6], r;
	bool ours;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	va_end(ap);

	if (sys_owned(nr) && SYS_READY()) {
		r = pwrap_syscall(nr, a, &ours);
		if (ours) {
			return r;
		}
	}
	return cwrap_syscall_next(nr, a);
}
