/*
 * uid_wrapper entry points: the exported libc names, a few lines each.
 * Inert (UID_WRAPPER unset): one branch, then the real function. Enabled:
 * the operations of uwrap_ids.c, the syscall table (with the
 * cross-library protocol: socket_wrapper's numbers go to
 * socket_wrapper_syscall_va()), the thread hand-over and the exec
 * hand-over. No state of its own.
 */
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cwrap_compiler.h"
#include "cwrap_exec.h"
#include "cwrap_platform.h"
#include "cwrap_syscall.h"
#include "uwrap.h"
#include "uwrap_libc.h"
#include "uwrap_owner.h"

extern char **environ;
CWRAP_EXPORT bool uid_wrapper_enabled(void);
CWRAP_EXPORT bool uid_wrapper_syscall_valid(long nr);
CWRAP_EXPORT long uid_wrapper_syscall_va(long nr, va_list ap);
#ifdef HAVE___CHK_FAIL
extern void __chk_fail(void) __attribute__((noreturn));
CWRAP_EXPORT int __getgroups_chk(int size, gid_t list[], size_t listlen);
#endif

CWRAP_EXPORT bool uid_wrapper_enabled(void)
{
	return uwrap_enabled();
}

/* ---- reading ids: no lock, no kernel entry ---- */

CWRAP_EXPORT uid_t getuid(void)
{
	if (!uwrap_enabled()) {
		return libc_getuid();
	}
	return uwrap_getuid();
}

CWRAP_EXPORT uid_t geteuid(void)
{
	if (!uwrap_enabled()) {
		return libc_geteuid();
	}
	return uwrap_geteuid();
}

CWRAP_EXPORT gid_t getgid(void)
{
	if (!uwrap_enabled()) {
		return libc_getgid();
	}
	return uwrap_getgid();
}

CWRAP_EXPORT gid_t getegid(void)
{
	if (!uwrap_enabled()) {
		return libc_getegid();
	}
	return uwrap_getegid();
}

CWRAP_EXPORT int getresuid(uid_t *r, uid_t *e, uid_t *s)
{
	if (!uwrap_enabled()) {
		return libc_getresuid(r, e, s);
	}
	return uwrap_get_res(false, r, e, s);
}

CWRAP_EXPORT int getresgid(gid_t *r, gid_t *e, gid_t *s)
{
	if (!uwrap_enabled()) {
		return libc_getresgid(r, e, s);
	}
	return uwrap_get_res(true, r, e, s);
}

CWRAP_EXPORT int getgroups(int size, gid_t list[])
{
	if (!uwrap_enabled()) {
		return libc_getgroups(size, list);
	}
	return uwrap_getgroups(size, list);
}

#ifdef HAVE___CHK_FAIL
CWRAP_EXPORT int __getgroups_chk(int size, gid_t list[], size_t listlen)
{
	if (!uwrap_enabled()) {
		return libc___getgroups_chk(size, list, listlen);
	}
	if (size < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)size > listlen / sizeof(gid_t)) {
		__chk_fail();
	}
	return uwrap_getgroups(size, list);
}
#endif

/* ---- changing ids: process-wide, as glibc does ---- */

CWRAP_EXPORT int setuid(uid_t uid)
{
	if (!uwrap_enabled()) {
		return libc_setuid(uid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, false, UWRAP_OP_SET, uid, 0, 0);
}

CWRAP_EXPORT int seteuid(uid_t euid)
{
	if (!uwrap_enabled()) {
		return libc_seteuid(euid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, false, UWRAP_OP_SETE, euid, 0, 0);
}

CWRAP_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	if (!uwrap_enabled()) {
		return libc_setreuid(ruid, euid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, false, UWRAP_OP_SETRE, ruid, euid,
			     0);
}

CWRAP_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	if (!uwrap_enabled()) {
		return libc_setresuid(ruid, euid, suid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, false, UWRAP_OP_SETRES, ruid, euid,
			     suid);
}

CWRAP_EXPORT int setgid(gid_t gid)
{
	if (!uwrap_enabled()) {
		return libc_setgid(gid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, true, UWRAP_OP_SET, gid, 0, 0);
}

CWRAP_EXPORT int setegid(gid_t egid)
{
	if (!uwrap_enabled()) {
		return libc_setegid(egid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, true, UWRAP_OP_SETE, egid, 0, 0);
}

CWRAP_EXPORT int setregid(gid_t rgid, gid_t egid)
{
	if (!uwrap_enabled()) {
		return libc_setregid(rgid, egid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, true, UWRAP_OP_SETRE, rgid, egid,
			     0);
}

CWRAP_EXPORT int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	if (!uwrap_enabled()) {
		return libc_setresgid(rgid, egid, sgid);
	}
	return uwrap_set_ids(UWRAP_PROCESS, true, UWRAP_OP_SETRES, rgid, egid,
			     sgid);
}

CWRAP_EXPORT int setgroups(size_t size, const gid_t *list)
{
	if (!uwrap_enabled()) {
		return libc_setgroups(size, list);
	}
	return uwrap_setgroups(UWRAP_PROCESS, size, list);
}

CWRAP_EXPORT int initgroups(const char *user, gid_t group)
{
	if (!uwrap_enabled()) {
		return libc_initgroups(user, group);
	}
	return uwrap_initgroups(user, group);
}

/* ---- syscall(): uid/gid numbers per thread, the rest untouched ---- */

/* Until this library's constructor has run, every number goes down the
 * chain untouched (cwrap_syscall.h): a sanitizer runtime that sets itself
 * up, or a malloc that calls syscall() from its own setup inside the
 * dynamic loader, meets none of the code that allocates or locks. When
 * enabled, the constructor first sets up the process's ids (which
 * allocates), so that an id number answered later, from such a malloc's
 * setup after the constructors, allocates nothing. Then it names
 * socket_wrapper's half of the protocol (ours or upstream's); the first
 * number that is not uid_wrapper's looks it up (cwrap_syscall_peer), so
 * that a program start pays nothing for it. */
__attribute__((constructor)) static void sys_start(void)
{
	if (uwrap_enabled()) {
		(void)uwrap_getuid();
	}
	cwrap_syscall_start("socket_wrapper_syscall_valid",
			    "socket_wrapper_syscall_va");
}

/* The handler syscall() uses for `nr` now, NULL if it passes it on:
 * uid/gid numbers while enabled, chown and stat numbers with
 * UID_WRAPPER_FAKE_CHOWN=1. Uninstrumented (uwrap_syscall_find is too). */
CWRAP_NO_SANITIZE static uwrap_sys_fn sys_handler(long nr)
{
	uwrap_sys_fn fn;

	if (!cwrap_syscall_ready()) {
		return NULL;
	}
	fn = uwrap_syscall_find(nr);
	if (fn != NULL && uwrap_enabled()) {
		return fn;
	}
	if (uwrap_owner_on()) {
		return uwrap_syscall_find_file(nr);
	}
	return NULL;
}

/* The cross-library protocol (cwrap_syscall.h): true for the numbers this
 * library's syscall() answers itself at this moment. */
CWRAP_NO_SANITIZE CWRAP_EXPORT bool uid_wrapper_syscall_valid(long nr)
{
	return sys_handler(nr) != NULL;
}

/* The numbers of uid_wrapper_syscall_valid(), from another library's
 * syscall(); any other goes down the chain, never back to a peer. */
CWRAP_NO_SANITIZE CWRAP_EXPORT long uid_wrapper_syscall_va(long nr, va_list ap)
{
	uwrap_sys_fn fn = sys_handler(nr);
	long a[6];
	int i;

	for (i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	return fn != NULL ? fn(a) : cwrap_syscall_next(nr, a);
}

/* The sanitizer runtimes call syscall() on i386 before they are set up:
 * a number that is not ours goes on without touching instrumented code
 * (CWRAP_NO_SANITIZE): to socket_wrapper when its
 * socket_wrapper_syscall_valid() says it is its own, or to the next
 * syscall(), found with a plain dlsym(RTLD_NEXT), which cannot return
 * this one. */
CWRAP_NO_SANITIZE CWRAP_EXPORT long syscall(long nr, ...)
{
	uwrap_sys_fn fn = sys_handler(nr);
	va_list ap;
	long a[6], r;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	va_end(ap);

	if (fn != NULL) {
		return fn(a);
	}
	if (cwrap_syscall_ready() && cwrap_syscall_peer(nr, a, &r)) {
		return r;
	}
	return cwrap_syscall_next(nr, a);
}

/* ---- threads: a new thread starts with its creator's ids ---- */

#if defined(__i386__) && defined(HAVE_DLVSYM)
/* i386: exported as pthread_create@@GLIBC_2.34 and pthread_create@GLIBC_2.1,
 * the versions glibc gives it (see CMakeLists.txt). */
#define UWRAP_PTHREAD_CREATE uwrap_pthread_create
int uwrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			 void *(*fn)(void *), void *arg);
#else
#define UWRAP_PTHREAD_CREATE pthread_create
#endif

CWRAP_EXPORT int UWRAP_PTHREAD_CREATE(pthread_t *th, const pthread_attr_t *attr,
				      void *(*fn)(void *), void *arg)
{
	struct uwrap_start *st;
	int rc;

	if (!uwrap_enabled()) {
		return libc_pthread_create(th, attr, fn, arg);
	}
	st = uwrap_thread_prepare(fn, arg);
	if (st == NULL) {
		return EAGAIN;
	}
	rc = libc_pthread_create(th, attr, uwrap_thread_start, st);
	if (rc != 0) {
		uwrap_thread_discard(st);
	}
	return rc;
}

#if defined(__i386__) && defined(HAVE_DLVSYM)
int uwrap_pthread_create_2_1(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
    __attribute__((alias("uwrap_pthread_create"), visibility("default")));
__asm__(".symver uwrap_pthread_create, pthread_create@@GLIBC_2.34");
__asm__(".symver uwrap_pthread_create_2_1, pthread_create@GLIBC_2.1");
#endif

/* ---- exec: the current ids travel in UID_WRAPPER_INITIAL_* ---- */

static int uwrap_exec_failed(void *to_free)
{
	int saved = errno;

	free(to_free);
	errno = saved;
	return -1;
}

CWRAP_EXPORT int execve(const char *path, char *const argv[],
			char *const envp[])
{
	char *const *env;
	void *to_free;

	if (!uwrap_enabled()) {
		return libc_execve(path, argv, envp);
	}
	env = uwrap_exec_envp(envp, UWRAP_HAND_CURRENT, false, &to_free);
	if (env == NULL && envp != NULL) {
		return -1;
	}
	libc_execve(path, argv, env);
	return uwrap_exec_failed(to_free);
}

/* The vector and list forms go on through these hidden names of the
 * functions above and below, never through the exported ones. */
CWRAP_HIDDEN_ALIAS(execve, uwrap_entry_execve);

CWRAP_EXPORT int execv(const char *path, char *const argv[])
{
	if (!uwrap_enabled()) {
		return libc_execv(path, argv);
	}
	return uwrap_entry_execve(path, argv, environ);
}
CWRAP_HIDDEN_ALIAS(execv, uwrap_entry_execv);

CWRAP_EXPORT int execvpe(const char *file, char *const argv[],
			 char *const envp[])
{
	char *const *env;
	void *to_free;

	if (!uwrap_enabled()) {
		return libc_execvpe(file, argv, envp);
	}
	env = uwrap_exec_envp(envp, UWRAP_HAND_CURRENT, false, &to_free);
	if (env == NULL && envp != NULL) {
		return -1;
	}
	libc_execvpe(file, argv, env);
	return uwrap_exec_failed(to_free);
}

CWRAP_HIDDEN_ALIAS(execvpe, uwrap_entry_execvpe);

CWRAP_EXPORT int execvp(const char *file, char *const argv[])
{
	if (!uwrap_enabled()) {
		return libc_execvp(file, argv);
	}
	return uwrap_entry_execvpe(file, argv, environ);
}
CWRAP_HIDDEN_ALIAS(execvp, uwrap_entry_execvp);

CWRAP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char *const *env;
	void *to_free;

	if (!uwrap_enabled()) {
		return libc_fexecve(fd, argv, envp);
	}
	env = uwrap_exec_envp(envp, UWRAP_HAND_CURRENT, false, &to_free);
	if (env == NULL && envp != NULL) {
		return -1;
	}
	libc_fexecve(fd, argv, env);
	return uwrap_exec_failed(to_free);
}

/* execl*(): through the vector forms above (CWRAP_COLLECT_ARGS). */
CWRAP_EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	char *const *unused;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, unused);
	(void)unused;
	return uwrap_entry_execv(path, argv);
}

CWRAP_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv;
	char *const *envp;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, envp);
	return uwrap_entry_execve(path, argv, envp);
}

CWRAP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	char *const *unused;
	va_list ap;

	CWRAP_COLLECT_ARGS(arg, argv, ap, unused);
	(void)unused;
	return uwrap_entry_execvp(file, argv);
}

/* ---- posix_spawn*(), system(), popen(): the child starts from the ids
 * the process started with, as under the upstream library (uwrap_exec.c) */

static bool uwrap_spawn_resetids(const posix_spawnattr_t *attr)
{
	short flags = 0;

	return attr != NULL && posix_spawnattr_getflags(attr, &flags) == 0 &&
	       (flags & POSIX_SPAWN_RESETIDS) != 0;
}

CWRAP_EXPORT int posix_spawn(pid_t *pid, const char *path,
			     const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[],
			     char *const envp[])
{
	char *const *env;
	void *to_free;
	int rc;

	if (!uwrap_enabled()) {
		return libc_posix_spawn(pid, path, fa, attr, argv, envp);
	}
	env = uwrap_exec_envp(envp, UWRAP_HAND_INITIAL,
			      uwrap_spawn_resetids(attr), &to_free);
	if (env == NULL && envp != NULL) {
		return ENOMEM;
	}
	rc = libc_posix_spawn(pid, path, fa, attr, argv, env);
	free(to_free);
	return rc;
}

CWRAP_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			      const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	char *const *env;
	void *to_free;
	int rc;

	if (!uwrap_enabled()) {
		return libc_posix_spawnp(pid, file, fa, attr, argv, envp);
	}
	env = uwrap_exec_envp(envp, UWRAP_HAND_INITIAL,
			      uwrap_spawn_resetids(attr), &to_free);
	if (env == NULL && envp != NULL) {
		return ENOMEM;
	}
	rc = libc_posix_spawnp(pid, file, fa, attr, argv, env);
	free(to_free);
	return rc;
}

CWRAP_EXPORT int system(const char *command)
{
	if (!uwrap_enabled()) {
		return libc_system(command);
	}
	return uwrap_system(command);
}

CWRAP_EXPORT FILE *popen(const char *command, const char *mode)
{
	if (!uwrap_enabled()) {
		return libc_popen(command, mode);
	}
	return uwrap_popen(command, mode);
}

CWRAP_EXPORT int pclose(FILE *fp)
{
	bool ours = false;
	int rc;

	if (!uwrap_enabled()) {
		return libc_pclose(fp);
	}
	rc = uwrap_pclose(fp, &ours);
	return ours ? rc : libc_pclose(fp);
}
