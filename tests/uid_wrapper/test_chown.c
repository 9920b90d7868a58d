/*
 * Fake ownership, preloaded as fake root with UID_WRAPPER_FAKE_CHOWN=1.
 *
 * The scenario below makes every call of the chown and stat families with
 * the results a kernel gives root and the users root becomes: owners
 * given away and seen in every stat form, EPERM where the kernel refuses,
 * set-ID bits cleared, symbolic links, hard links, fifos, read-only files,
 * inode reuse, the syscall() numbers. It runs twice: under the wrapper
 * (always), and, when the test runs as real root, as a copy of this
 * program started without any wrapper, against the kernel itself: every
 * check holds for both, so the wrapper answers as the kernel does.
 *
 * Then what only the wrapper has: what another process sees (fork, exec,
 * a process without the setting), files never chowned, damaged or copied
 * attributes (one line, the real owner), listxattr().
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cwrap_compiler.h"
#include "cwrap_test.h"
#include "uwrap_test.h"

#define OWNER_XATTR "user.uid_wrapper.owner"

/* fchown's 32-bit system call */
#ifdef SYS_fchown32
#define SYS_FCHOWN SYS_fchown32
#else
#define SYS_FCHOWN SYS_fchown
#endif

static int fails;

#define CK(cond)                                                               \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
				"%s:%d: check failed: %s (errno %s)\n",        \
				__FILE__, __LINE__, #cond, strerror(errno));   \
			fails++;                                               \
		}                                                              \
	} while (0)

#define CK_ERR(e, expr)                                                        \
	do {                                                                   \
		long r_;                                                       \
		int e_;                                                        \
		errno = 0;                                                     \
		r_ = (long)(expr);                                             \
		e_ = errno;                                                    \
		if (r_ != -1 || e_ != (e)) {                                   \
			fprintf(stderr,                                        \
				"%s:%d: %s: %ld (%s), expected -1 (%s)\n",     \
				__FILE__, __LINE__, #expr, r_, strerror(e_),   \
				strerror(e));                                  \
			fails++;                                               \
		}                                                              \
	} while (0)

static void real_ids(uint32_t *uid, uint32_t *gid)
{
	unsigned u[4], g[4];

	uwrap_test_real_ids("Uid:", u);
	uwrap_test_real_ids("Gid:", g);
	*uid = u[3]; /* the fs ids new files get */
	*gid = g[3];
}

static void bad_owner(int line, const char *how, const char *path, unsigned u,
		      unsigned g, unsigned wu, unsigned wg)
{
	fprintf(stderr, "line %d: %s(%s): %u:%u, expected %u:%u\n", line, how,
		path, u, g, wu, wg);
	fails++;
}

#define CK_ST(line, how, path, st, wu, wg)                                     \
	do {                                                                   \
		if ((st).st_uid != (wu) || (st).st_gid != (wg)) {              \
			bad_owner(line, how, path, (st).st_uid, (st).st_gid,   \
				  wu, wg);                                     \
		}                                                              \
	} while (0)

/* The owner of `path` (following symbolic links unless `nofollow`), as
 * every stat form says it. */
static void owner_is(int line, const char *path, bool nofollow, unsigned wu,
		     unsigned wg)
{
	int at = nofollow ? AT_SYMLINK_NOFOLLOW : 0;
	int dfd = open(".", O_PATH | O_DIRECTORY);
	struct stat st;
	int fd;

	if ((nofollow ? lstat(path, &st) : stat(path, &st)) != 0) {
		fprintf(stderr, "line %d: stat(%s): %s\n", line, path,
			strerror(errno));
		fails++;
		close(dfd);
		return;
	}
	CK_ST(line, nofollow ? "lstat" : "stat", path, st, wu, wg);
	CK(fstatat(AT_FDCWD, path, &st, at) == 0);
	CK_ST(line, "fstatat", path, st, wu, wg);
	CK(fstatat(dfd, path, &st, at) == 0);
	CK_ST(line, "fstatat(dirfd)", path, st, wu, wg);
#ifdef HAVE_STAT64_FUNCTION
	{
		struct stat64 st64;

		CK((nofollow ? lstat64(path, &st64) : stat64(path, &st64)) ==
		   0);
		CK_ST(line, "stat64", path, st64, wu, wg);
		CK(fstatat64(dfd, path, &st64, at) == 0);
		CK_ST(line, "fstatat64", path, st64, wu, wg);
	}
#endif
#ifdef HAVE_STATX
	{
		struct statx sx;

		CK(statx(dfd, path, at, STATX_UID | STATX_GID, &sx) == 0);
		if (sx.stx_uid != wu || sx.stx_gid != wg) {
			bad_owner(line, "statx", path, sx.stx_uid, sx.stx_gid,
				  wu, wg);
		}
		memset(&sx, 0, sizeof(sx));
		CK(syscall(SYS_statx, AT_FDCWD, path, at, STATX_BASIC_STATS,
			   &sx) == 0);
		if (sx.stx_uid != wu || sx.stx_gid != wg) {
			bad_owner(line, "syscall(SYS_statx)", path, sx.stx_uid,
				  sx.stx_gid, wu, wg);
		}
	}
#endif
	/* the kernel's own structure through syscall() */
#if defined(SYS_newfstatat)
	CK(syscall(SYS_newfstatat, AT_FDCWD, path, &st, at) == 0);
	CK_ST(line, "syscall(SYS_newfstatat)", path, st, wu, wg);
#elif defined(SYS_fstatat64)
	{
		struct stat64 st64;

		CK(syscall(SYS_fstatat64, AT_FDCWD, path, &st64, at) == 0);
		CK_ST(line, "syscall(SYS_fstatat64)", path, st64, wu, wg);
	}
#endif
	/* an O_PATH descriptor */
	fd = open(path, O_PATH | (nofollow ? O_NOFOLLOW : 0));
	CK(fd >= 0);
	CK(fstat(fd, &st) == 0);
	CK_ST(line, "fstat(O_PATH)", path, st, wu, wg);
	CK(fstatat(fd, "", &st, AT_EMPTY_PATH) == 0);
	CK_ST(line, "fstatat(AT_EMPTY_PATH)", path, st, wu, wg);
	close(fd);
	/* an open file, where it opens without blocking */
	if (!nofollow) {
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			CK(fstat(fd, &st) == 0);
			CK_ST(line, "fstat", path, st, wu, wg);
#if defined(SYS_fstat) && !defined(SYS_fstat64)
			CK(syscall(SYS_fstat, fd, &st) == 0);
			CK_ST(line, "syscall(SYS_fstat)", path, st, wu, wg);
#endif
			close(fd);
		}
	}
	close(dfd);
}

#define OWNER(path, u, g) owner_is(__LINE__, path, false, u, g)
#define LOWNER(path, u, g) owner_is(__LINE__, path, true, u, g)

static mode_t mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static void make(const char *path, mode_t mode)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);

	CK(fd >= 0);
	close(fd);
	CK(chown(path, 0, 0) == 0);
	CK(chmod(path, mode) == 0);
}

/* Become uid:gid with these groups, keeping root as the saved uid. */
static void become(uid_t uid, gid_t gid, int n, const gid_t *groups)
{
	CK(setresuid(0, 0, 0) == 0);
	CK(setgroups((size_t)n, groups) == 0);
	CK(setresgid(gid, gid, gid) == 0);
	CK(setresuid(uid, uid, 0) == 0);
}

static void scenario_files(void)
{
	/* (through a pointer without the nonnull attribute: UBSan) */
	int (*volatile chown_fn)(const char *, uid_t, gid_t) = chown;
	int fd, dfd;

	/* a file given away and back */
	make("f", 0644);
	OWNER("f", 0, 0);
	CK(chown("f", 1234, 5678) == 0);
	OWNER("f", 1234, 5678);
	CK(chown("f", -1, -1) == 0);
	OWNER("f", 1234, 5678);
	CK(chown("f", 42, -1) == 0);
	OWNER("f", 42, 5678);
	CK(lchown("f", -1, 43) == 0);
	OWNER("f", 42, 43);
	fd = open("f", O_RDONLY);
	CK(fchown(fd, 1234, 5678) == 0);
	OWNER("f", 1234, 5678);
	close(fd);
	/* O_PATH: the kernel's fchown refuses it (glibc's too; musl's goes
	 * on with /proc/self/fd), fchownat(AT_EMPTY_PATH) does not */
	fd = open("f", O_PATH);
	CK_ERR(EBADF, syscall(SYS_FCHOWN, fd, 7, 8));
#ifdef __GLIBC__
	CK_ERR(EBADF, fchown(fd, 7, 8));
#else
	CK(fchown(fd, 7, 8) == 0);
	OWNER("f", 7, 8);
#endif
	CK(fchownat(fd, "", 7, 8, AT_EMPTY_PATH) == 0);
	OWNER("f", 7, 8);
	CK_ERR(ENOENT, fchownat(fd, "", 7, 8, 0));
	close(fd);
	CK_ERR(EBADF, fchown(-1, 7, 8));
	CK_ERR(EBADF, fchownat(-1, "f", 7, 8, 0));
	CK_ERR(EINVAL, fchownat(AT_FDCWD, "f", 7, 8, 0x800));
	CK_ERR(EFAULT, chown_fn(NULL, 7, 8));
	CK_ERR(EFAULT, syscall(SYS_fchownat, AT_FDCWD, NULL, 7, 8, 0));
	CK_ERR(ENOENT, chown("nothere", 7, 8));
	CK_ERR(ENOTDIR, chown("f/", 7, 8));
	CK_ERR(ENOENT, chown("", 7, 8));
	dfd = open(".", O_RDONLY | O_DIRECTORY);
	CK(fchownat(dfd, "f", 9, 10, 0) == 0);
	OWNER("f", 9, 10);
	close(dfd);

	/* symbolic links: chown follows, lchown does not */
	CK(symlink("f", "l") == 0);
	CK(lchown("l", 0, 0) == 0);
	LOWNER("l", 0, 0);
	CK(chown("l", 1, 2) == 0);
	OWNER("f", 1, 2);
	OWNER("l", 1, 2);
	LOWNER("l", 0, 0);
	CK(lchown("l", 3, 4) == 0);
	LOWNER("l", 3, 4);
	OWNER("f", 1, 2);
	CK(fchownat(AT_FDCWD, "l", 5, 6, AT_SYMLINK_NOFOLLOW) == 0);
	LOWNER("l", 5, 6);
	CK(symlink("nothere", "dangling") == 0);
	CK_ERR(ENOENT, chown("dangling", 7, 7));
	CK(lchown("dangling", 7, 7) == 0);
	LOWNER("dangling", 7, 7);

	/* a directory, and what is in it */
	CK(mkdir("d", 0755) == 0);
	CK(chown("d", 11, 12) == 0);
	CK(chmod("d", 06755) == 0);
	CK(chown("d", 13, 14) == 0);
	OWNER("d", 13, 14);
	CK(mode_of("d") == 06755);
	make("d/in", 0644);
	CK(chown("d/in", 15, 16) == 0);
	OWNER("d/in", 15, 16);

	/* hard links and renames keep the owner: it is the inode's */
	CK(link("f", "h") == 0);
	OWNER("h", 1, 2);
	CK(rename("h", "d/h2") == 0);
	OWNER("d/h2", 1, 2);
	CK(chown("d/h2", 17, 18) == 0);
	OWNER("f", 17, 18);

	/* a fifo and a read-only file */
	CK(mkfifo("p", 0644) == 0);
	CK(chown("p", 0, 0) == 0);
	CK(chown("p", 21, 22) == 0);
	OWNER("p", 21, 22);
	make("ro", 0444);
	CK(chown("ro", 31, 32) == 0);
	OWNER("ro", 31, 32);
	CK(mode_of("ro") == 0444);
}

/* The set-ID bits a chown clears, for root. */
static void scenario_setid(void)
{
	make("s1", 04755);
	CK(chown("s1", 0, 0) == 0);
	CK(mode_of("s1") == 0755);
	make("s2", 02755);
	CK(chown("s2", 1, -1) == 0);
	CK(mode_of("s2") == 0755);
	make("s3", 02745);
	CK(chown("s3", -1, 1) == 0);
	CK(mode_of("s3") == 02745);
	make("s4", 06755);
	CK(chown("s4", -1, -1) == 0);
	CK(mode_of("s4") == 0755);
	OWNER("s4", 0, 0);
}

/* What a user root became may do. */
static void scenario_user(void)
{
	static const gid_t groups[] = {1000, 2000};

	make("o", 0644);
	CK(chown("o", 1000, 1000) == 0);
	make("r", 0644);
	make("su", 04755);
	make("sg", 06745);
	CK(chown("sg", 1000, 1000) == 0);
	CK(chmod("sg", 06745) == 0);
	CK(symlink("o", "ol") == 0);
	CK(lchown("ol", 0, 0) == 0);

	become(1000, 1000, 2, groups);
	/* the owner: to one of its groups, never away */
	CK(chown("o", -1, 2000) == 0);
	OWNER("o", 1000, 2000);
	CK_ERR(EPERM, chown("o", -1, 3000));
	CK_ERR(EPERM, chown("o", 1001, -1));
	CK_ERR(EPERM, chown("o", 0, 0));
	CK(chown("o", 1000, -1) == 0);
	CK(chown("o", -1, -1) == 0);
	OWNER("o", 1000, 2000);
	/* not the owner: only chown(-1, -1) of a plain file */
	CK(chown("r", -1, -1) == 0);
	CK_ERR(EPERM, chown("r", -1, 1000));
	CK_ERR(EPERM, chown("r", 1000, 1000));
	CK_ERR(EPERM, chown("su", -1, -1));
	CK(mode_of("su") == 04755);
	CK_ERR(EPERM, lchown("ol", 1000, 1000));
	/* the owner's set-group-ID bit without group execute stays in a
	 * group of its own; set-user-ID goes */
	CK(chown("sg", -1, 2000) == 0);
	OWNER("sg", 1000, 2000);
	CK(mode_of("sg") == 02745);
	CK(setresuid(0, 0, 0) == 0);

	OWNER("r", 0, 0);
	OWNER("su", 0, 0);
	LOWNER("ol", 0, 0);
}

/* A file on a reused inode number is a new file: it is owned by its
 * creator, whatever the old one was given. */
static void scenario_reuse(bool symlinks)
{
	uint32_t ru, rg;
	char name[32];
	ino_t old;
	int i;

	real_ids(&ru, &rg);
	if (symlinks) {
		CK(symlink("x", "old") == 0);
		CK(lchown("old", 4321, 4321) == 0);
	} else {
		make("old", 0644);
		CK(chown("old", 4321, 4321) == 0);
	}
	old = ino_of("old");
	CK(unlink("old") == 0);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "new%s%d", symlinks ? "l" : "", i);
		if (symlinks) {
			CK(symlink("y", name) == 0);
		} else {
			int fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);

			CK(fd >= 0);
			close(fd);
		}
		if (ino_of(name) == old) {
			LOWNER(name, ru, rg);
			return;
		}
	}
	fprintf(stderr, "(no inode number was reused in 200 files)\n");
}

/* Back to the real owner: nothing is left on the file. */
static void scenario_back(void)
{
	uint32_t ru, rg;
	char v[64];

	real_ids(&ru, &rg);
	make("b", 0644);
	CK(chown("b", 1234, 5678) == 0);
	CK(chown("b", ru, rg) == 0);
	OWNER("b", ru, rg);
	CK_ERR(ENODATA, getxattr("b", OWNER_XATTR, v, sizeof(v)));
	CK(chown("b", 1234, 5678) == 0);
	/* not in the list of attributes */
	CK(listxattr("b", v, sizeof(v)) == 0);
	CK(listxattr("b", NULL, 0) == 0);
	CK(llistxattr("b", v, sizeof(v)) == 0);
	{
		int fd = open("b", O_RDONLY);

		CK(flistxattr(fd, v, sizeof(v)) == 0);
		close(fd);
	}
}

/* The raw system calls, 16-bit ids included where the platform has
 * them. */
static void scenario_syscall(void)
{
	make("sc", 0644);
	CK(syscall(SYS_fchownat, AT_FDCWD, "sc", 51, 52, 0) == 0);
	OWNER("sc", 51, 52);
#ifdef SYS_chown32
	CK(syscall(SYS_chown32, "sc", 53, 54) == 0);
	OWNER("sc", 53, 54);
	/* the old calls: 16-bit ids, 0xffff keeps */
	CK(syscall(SYS_chown, "sc", 55, 0xffff) == 0);
	OWNER("sc", 55, 54);
	CK(syscall(SYS_lchown32, "sc", 56, 57) == 0);
	OWNER("sc", 56, 57);
#else
#ifdef SYS_chown
	CK(syscall(SYS_chown, "sc", 53, 54) == 0);
	OWNER("sc", 53, 54);
	CK(syscall(SYS_lchown, "sc", 56, 57) == 0);
	OWNER("sc", 56, 57);
#endif
#endif
	{
		int fd = open("sc", O_RDONLY);

#ifdef SYS_fchown32
		CK(syscall(SYS_fchown32, fd, 58, 59) == 0);
#else
		CK(syscall(SYS_fchown, fd, 58, 59) == 0);
#endif
		OWNER("sc", 58, 59);
		close(fd);
	}
}

/* glibc's old names, as programs built before glibc 2.33 call them. */
static void scenario_xstat(void)
{
	/* (built with 64-bit time, struct stat is not theirs) */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__USE_TIME_BITS64)
#if defined(__x86_64__)
	const int ver = 1;
#else
	const int ver = 3;
#endif
	int (*xstat)(int, const char *, struct stat *) =
	    (int (*)(int, const char *, struct stat *))dlsym(RTLD_DEFAULT,
							     "__xstat");
	int (*lxstat)(int, const char *, struct stat *) =
	    (int (*)(int, const char *, struct stat *))dlsym(RTLD_DEFAULT,
							     "__lxstat");
	struct stat st;

	if (xstat == NULL || lxstat == NULL) {
		return; /* not glibc */
	}
	CK(xstat(ver, "l", &st) == 0);
	CK_ST(__LINE__, "__xstat", "l", st, 17, 18);
	CK(lxstat(ver, "l", &st) == 0);
	CK_ST(__LINE__, "__lxstat", "l", st, 5, 6);
#endif
}

static int scenario(const char *dir)
{
	fails = 0;
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	scenario_files();
	scenario_xstat();
	scenario_setid();
	scenario_user();
	scenario_reuse(false);
	scenario_reuse(true);
	scenario_back();
	scenario_syscall();
	return fails;
}

static int run_scenario_child(const char *dir)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		_exit(scenario(dir) == 0 ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static char *self_exe;

static void test_scenario_wrapped(void **state)
{
	char *dir = cwrap_test_mkdtemp("uwrap-chown");

	(void)state;
	assert_int_equal(chmod(dir, 0755), 0);
	assert_true(run_scenario_child(dir));
	cwrap_test_rmtree(dir);
	free(dir);
}

/* The same scenario, without any wrapper, as real root: the kernel's
 * answers. */
static void test_scenario_kernel(void **state)
{
	extern char **environ;
	char **env, *dir;
	size_t n = 0, k = 0;
	pid_t pid;
	int status;

	(void)state;
	if (uwrap_test_real_uid() != 0) {
		skip();
	}
	dir = cwrap_test_mkdtemp("uwrap-chown-kernel");
	assert_int_equal(chmod(dir, 0755), 0);
	while (environ[n] != NULL) {
		n++;
	}
	env = calloc(n + 1, sizeof(*env));
	assert_non_null(env);
	for (n = 0; environ[n] != NULL; n++) {
		if (strncmp(environ[n], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[n], "UID_WRAPPER", 11) != 0) {
			env[k++] = environ[n];
		}
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = {self_exe, (char *)"--kernel", dir, NULL};

		execve(self_exe, argv, env);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	cwrap_test_rmtree(dir);
	free(dir);
	free(env);
}

/* ---- what only the wrapper has ---- */

static char *tdir;

/* "uid:gid" of `path` (lstat) as a new image of this program prints it,
 * started with the variable `unset` removed (NULL: the same
 * environment). */
static char *owner_in_exec(const char *path, const char *unset)
{
	char cmd[PATH_MAX * 2 + 64];
	static char out[64];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s%s%s '%s' --owner '%s'",
		 unset != NULL ? "env -u " : "", unset != NULL ? unset : "",
		 unset != NULL ? " " : "", self_exe, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	out[0] = '\0';
	if (fgets(out, sizeof(out), p) == NULL) {
		out[0] = '\0';
	}
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void test_other_processes(void **state)
{
	char *f = cwrap_test_path(tdir, "seen");
	char want[64];
	uint32_t ru, rg;
	struct stat st;
	pid_t pid;
	int status;

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL();
	cwrap_test_write_file(f, "x");
	assert_int_equal(chown(f, 2345, 6789), 0);
	/* a child */
	pid = fork();
	if (pid == 0) {
		_exit(stat(f, &st) == 0 && st.st_uid == 2345 &&
			      st.st_gid == 6789
			  ? 0
			  : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* a new image, and one without the setting */
	assert_string_equal(owner_in_exec(f, NULL), "2345:6789");
	real_ids(&ru, &rg);
	snprintf(want, sizeof(want), "%u:%u", ru, rg);
	assert_string_equal(owner_in_exec(f, "UID_WRAPPER_FAKE_CHOWN"), want);
	free(f);
}

/* A file nobody chowned shows its real owner. */
static void test_never_chowned(void **state)
{
	char *f = cwrap_test_path(tdir, "plain");
	uint32_t ru, rg;
	struct stat st;

	(void)state;
	real_ids(&ru, &rg);
	cwrap_test_write_file(f, "x");
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_uid, ru);
	assert_int_equal(st.st_gid, rg);
	free(f);
}

/* stat() of `path` in a child whose stderr is captured: the owner it saw
 * and what it printed. */
static void stat_capture(const char *path, unsigned *uid, char *err,
			 size_t size)
{
	char *ef = cwrap_test_path(tdir, "stderr");
	char *text;
	pid_t pid;
	int status, p[2];

	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		int fd = open(ef, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		struct stat st;
		unsigned u = (unsigned)-1;

		dup2(fd, 2);
		if (stat(path, &st) == 0) {
			u = st.st_uid;
		}
		/* a second look prints nothing more */
		if (stat(path, &st) != 0) {
			u = (unsigned)-1;
		}
		_exit(write(p[1], &u, sizeof(u)) == sizeof(u) ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(read(p[0], uid, sizeof(*uid)), (ssize_t)sizeof(*uid));
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	text = cwrap_test_read_file(ef, NULL);
	assert_non_null(text);
	snprintf(err, size, "%s", text);
	free(text);
	free(ef);
}

static void test_damaged_attribute(void **state)
{
	static const char *const bad[] = {"garbage", "1:2", "1:2:3:4",
					  "\x01\x02\x03", "99999999999:1:1"};
	char *f = cwrap_test_path(tdir, "damaged");
	char err[1024];
	uint32_t ru, rg;
	unsigned u;
	ino_t ino;
	size_t i;

	(void)state;
	real_ids(&ru, &rg);
	cwrap_test_write_file(f, "x");
	ino = ino_of(f);
	for (i = 0; i < CWRAP_ARRAY_SIZE(bad); i++) {
		assert_int_equal(
		    setxattr(f, OWNER_XATTR, bad[i], strlen(bad[i]), 0), 0);
		stat_capture(f, &u, err, sizeof(err));
		assert_int_equal(u, ru);
		if (strstr(err, OWNER_XATTR) == NULL ||
		    strstr(err, "not UID:GID:INODE") == NULL ||
		    strchr(err, '\n') != err + strlen(err) - 1) {
			fail_msg("value '%s': stderr '%s'", bad[i], err);
		}
	}
	/* a copy's attribute names another inode */
	snprintf(err, sizeof(err), "1:2:%llu", (unsigned long long)ino + 1);
	assert_int_equal(setxattr(f, OWNER_XATTR, err, strlen(err), 0), 0);
	stat_capture(f, &u, err, sizeof(err));
	assert_int_equal(u, ru);
	if (strstr(err, "written for inode") == NULL ||
	    strchr(err, '\n') != err + strlen(err) - 1) {
		fail_msg("copied value: stderr '%s'", err);
	}
	/* chown writes a good one over it */
	assert_int_equal(chown(f, 3, 4), 0);
	stat_capture(f, &u, err, sizeof(err));
	assert_int_equal(u, 3);
	assert_string_equal(err, "");
	free(f);
}

/* The attribute of another program stays visible; ours does not. */
static void test_listxattr(void **state)
{
	char *f = cwrap_test_path(tdir, "attrs");
	char list[256];
	ssize_t n;

	(void)state;
	cwrap_test_write_file(f, "x");
	if (setxattr(f, "user.other", "1", 1, 0) != 0) {
		skip(); /* no user attributes here */
	}
	assert_int_equal(chown(f, 1, 1), 0);
	n = listxattr(f, list, sizeof(list));
	assert_int_equal(n, (ssize_t)sizeof("user.other"));
	assert_memory_equal(list, "user.other", sizeof("user.other"));
	assert_int_equal(listxattr(f, NULL, 0), (ssize_t)sizeof("user.other"));
	/* a buffer that holds the list only without ours */
	n = listxattr(f, list, sizeof("user.other"));
	assert_int_equal(n, (ssize_t)sizeof("user.other"));
	free(f);
}

static int setup(void **state)
{
	(void)state;
	tdir = cwrap_test_mkdtemp("uwrap-chown-only");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cwrap_test_rmtree(tdir);
	free(tdir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scenario_wrapped),
	    cmocka_unit_test(test_scenario_kernel),
	    cmocka_unit_test(test_other_processes),
	    cmocka_unit_test(test_never_chowned),
	    cmocka_unit_test(test_damaged_attribute),
	    cmocka_unit_test(test_listxattr),
	};
	static char exe[PATH_MAX];
	ssize_t n;

	if (argc == 3 && strcmp(argv[1], "--kernel") == 0) {
		return scenario(argv[2]) == 0 ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "--owner") == 0) {
		struct stat st;

		if (lstat(argv[2], &st) != 0) {
			return 1;
		}
		printf("%u:%u\n", (unsigned)st.st_uid, (unsigned)st.st_gid);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		return 1;
	}
	exe[n] = '\0';
	self_exe = exe;
	return cmocka_run_group_tests(tests, setup, teardown);
}
