/*
 * The exported names of priv_wrapper: each asks the calling thread's
 * configuration (pwrap_conf.c) whether its request is disabled, and
 * answers it with the logic of pwrap_calls.c or passes it to the C
 * library unchanged. syscall() answers the numbers of the same calls
 * and passes every other number on to the next syscall() in the chain
 * (another wrapper's, or libc's), untouched. No state, no locks.
 */
#include <dlfcn.h>
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

/* A sanitizer runtime calls some of these names while it sets itself up,
 * before instrumented code may run (ASan lowers RLIMIT_CORE with
 * setrlimit(); on i386 the runtimes make their system calls through
 * syscall()): until this library's constructor has run (after the
 * runtime's), each goes straight to the next definition, found with a
 * plain dlsym(RTLD_NEXT) by uninstrumented code. The entry points are
 * uninstrumented for that reason; the logic they call is not.
 * Sanitizer builds only: otherwise the library does nothing at load. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#ifdef __SANITIZE_THREAD__
/* (TSan enters every instrumented function: not before it is set up) */
#define ENTRY_NO_SANITIZE __attribute__((no_sanitize("thread")))
#else
#define ENTRY_NO_SANITIZE CWRAP_NO_SANITIZE
#endif

static bool ready;

__attribute__((constructor)) static void set_ready(void)
{
	__atomic_store_n(&ready, true, __ATOMIC_RELEASE);
}

ENTRY_NO_SANITIZE static void *early_next(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

#define READY() __atomic_load_n(&ready, __ATOMIC_ACQUIRE)
#define EARLY(type, name, args)                                                \
	do {                                                                   \
		if (!READY()) {                                                \
			static void *early_##name;                             \
			return ((type)early_next(&early_##name, #name))args;   \
		}                                                              \
	} while (0)
#else
#define ENTRY_NO_SANITIZE
#define READY() true
#define EARLY(type, name, args)                                                \
	do {                                                                   \
	} while (0)
#endif

CWRAP_EXPORT bool priv_wrapper_enabled(void);

bool priv_wrapper_enabled(void)
{
	return pwrap_conf()->enabled;
}

ENTRY_NO_SANITIZE CWRAP_EXPORT int chroot(const char *path)
{
	EARLY(int (*)(const char *), chroot, (path));
	if (!pwrap_conf()->chroot_disabled) {
		return libc_chroot(path);
	}
	return pwrap_chroot(path);
}

/* glibc and musl read four more arguments whatever the option. */
ENTRY_NO_SANITIZE CWRAP_EXPORT int prctl(int option, ...)
{
	unsigned long a2, a3, a4, a5;
	va_list ap;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);

	EARLY(int (*)(int, ...), prctl, (option, a2, a3, a4, a5));
	if (pwrap_prctl_fake(pwrap_conf()->prctl, option, a2, a3, a4, a5)) {
		CWRAP_DEBUG("prctl(%d, %lu) disabled: returns 0", option, a2);
		return 0;
	}
	return libc_ptr_prctl()(option, a2, a3, a4, a5);
}

ENTRY_NO_SANITIZE CWRAP_EXPORT int setrlimit(CWRAP_RLIMIT_RESOURCE resource,
					     const struct rlimit *rlim)
{
	EARLY(int (*)(CWRAP_RLIMIT_RESOURCE, const struct rlimit *), setrlimit,
	      (resource, rlim));
	if (pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, rlim,
			      sizeof(rlim_t))) {
		CWRAP_DEBUG("setrlimit(%d) disabled: returns 0", (int)resource);
		return 0;
	}
	return libc_setrlimit(resource, rlim);
}

ENTRY_NO_SANITIZE CWRAP_EXPORT int prlimit(pid_t pid,
					   CWRAP_RLIMIT_RESOURCE resource,
					   const struct rlimit *new_limit,
					   struct rlimit *old_limit)
{
	EARLY(int (*)(pid_t, CWRAP_RLIMIT_RESOURCE, const struct rlimit *,
		      struct rlimit *),
	      prlimit, (pid, resource, new_limit, old_limit));
	if (!pwrap_rlimit_fake(pwrap_conf()->rlimit, resource, new_limit,
			       sizeof(rlim_t))) {
		return libc_prlimit(pid, resource, new_limit, old_limit);
	}
	CWRAP_DEBUG("prlimit(%d, %d) disabled: reads only", (int)pid,
		    (int)resource);
	return pwrap_prlimit_read(pid, resource, old_limit);
}

#ifdef HAVE_SETRLIMIT64
ENTRY_NO_SANITIZE CWRAP_EXPORT int setrlimit64(CWRAP_RLIMIT_RESOURCE resource,
					       const struct rlimit64 *rlim)
{
	EARLY(int (*)(CWRAP_RLIMIT_RESOURCE, const struct rlimit64 *),
	      setrlimit64, (resource, rlim));
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
ENTRY_NO_SANITIZE CWRAP_EXPORT int prlimit64(pid_t pid,
					     CWRAP_RLIMIT_RESOURCE resource,
					     const struct rlimit64 *new_limit,
					     struct rlimit64 *old_limit)
{
	EARLY(int (*)(pid_t, CWRAP_RLIMIT_RESOURCE, const struct rlimit64 *,
		      struct rlimit64 *),
	      prlimit64, (pid, resource, new_limit, old_limit));
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

/* A number that is not ours goes on without touching instrumented code
 * (see above), and the next syscall() is found with a plain
 * dlsym(RTLD_NEXT), which cannot return this one. */
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

	if (sys_owned(nr) && READY()) {
		r = pwrap_syscall(nr, a, &ours);
		if (ours) {
			return r;
		}
	}
	return cwrap_syscall_next(nr, a);
}
