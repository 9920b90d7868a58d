/*
 * fork and exec under uid_wrapper (preloaded, fake root): ids survive
 * fork; every exec form hands the current ids to the new image (the helper
 * uwrap_print_ids prints what it sees, and that the UID_WRAPPER_INITIAL_*
 * variables were removed); posix_spawn, system() and popen() start it as
 * root, the identity this process started with, or with the current ids
 * under UID_WRAPPER_SPAWN_CURRENT=1; a thread's own ids are the ones that
 * travel when it execs; an environment without UID_WRAPPER gets no
 * variables; UID_WRAPPER_INITIAL_* the caller puts in the environment win
 * over the current ids (exec*) or the initial ones (posix_spawn).
 * (test_spawn.c: the same rule with real programs.)
 */
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

extern char **environ;

#define SWITCHED "uid=1000,1001,0 gid=100,101,102 groups=10,20 initial=0\n"
#define STARTED "uid=0,0,0 gid=0,0,0 groups=0 initial=0\n"
/* The shell system() and popen() run sees real != effective ids and drops
 * to the real ones (setgid(getgid()); setuid(getuid())), as it would for
 * real; POSIX_SPAWN_RESETIDS does the same. */
#define SWITCHED_RESET                                                         \
	"uid=1000,1000,0 gid=100,100,102 groups=10,20 initial=0\n"

/* Set in the child before it starts the helper: the kernel-like hand-over. */
static bool spawn_current;
/* Put into the child's environment before it starts the helper, as a
 * wrapped shell does for `UID_WRAPPER_INITIAL_RUID=N cmd`. */
static const char *const *given;

static char helper[4096];

static int setup(void **state)
{
	const char *bin = getenv("CWRAP_TEST_BIN");

	(void)state;
	snprintf(helper, sizeof(helper), "%s/uwrap_print_ids",
		 bin != NULL ? bin : ".");
	return 0;
}

static void switch_ids(void)
{
	gid_t g[2] = {20, 10};

	if (setgroups(2, g) != 0 || setresgid(100, 101, 102) != 0 ||
	    setresuid(1000, 1001, 0) != 0) {
		_exit(90);
	}
}

enum how {
	EXECV,
	EXECVE,
	EXECVP,
	EXECVPE,
	EXECL,
	EXECLE,
	EXECLP,
	FEXECVE,
	SPAWN,
	SPAWNP,
	SPAWN_RESETIDS,
	EXECVE_NO_WRAPPER,
	THREAD_EXECV,
	SYSTEM,
	POPEN,
};

static void *thread_exec(void *arg)
{
	char *const argv[] = {helper, NULL};

	(void)arg;
	/* only this thread's ids, and they are what exec keeps */
	if (syscall(UWRAP_SYS(setresuid), 1000, 1000, 1000) != 0) {
		_exit(91);
	}
	execv(helper, argv);
	_exit(92);
}

static void run_exec(enum how how)
{
	char *const argv[] = {helper, NULL};
	char dir[4096];
	char path_env[4200];
	char *envp_plain[3] = {NULL, NULL, NULL};
	posix_spawnattr_t attr;
	pid_t pid;
	int status;
	pthread_t t;

	snprintf(dir, sizeof(dir), "%s", helper);
	*strrchr(dir, '/') = '\0';
	snprintf(path_env, sizeof(path_env), "%s:/usr/bin:/bin", dir);
	switch_ids();
	if (spawn_current) {
		setenv("UID_WRAPPER_SPAWN_CURRENT", "1", 1);
	}
	for (const char *const *g = given; g != NULL && *g != NULL; g++) {
		char name[64];
		const char *eq = strchr(*g, '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - *g), *g);
		setenv(name, eq + 1, 1);
	}
	switch (how) {
	case EXECV:
		execv(helper, argv);
		break;
	case EXECVE:
		execve(helper, argv, environ);
		break;
	case EXECVP:
		setenv("PATH", path_env, 1);
		execvp("uwrap_print_ids", argv);
		break;
	case EXECVPE:
		setenv("PATH", path_env, 1);
		execvpe("uwrap_print_ids", argv, environ);
		break;
	case EXECL:
		execl(helper, helper, (char *)NULL);
		break;
	case EXECLE:
		execle(helper, helper, (char *)NULL, environ);
		break;
	case EXECLP:
		setenv("PATH", path_env, 1);
		execlp("uwrap_print_ids", "uwrap_print_ids", (char *)NULL);
		break;
	case FEXECVE:
		fexecve(open(helper, O_RDONLY | O_CLOEXEC), argv, environ);
		break;
	case SPAWN:
	case SPAWNP:
	case SPAWN_RESETIDS:
		posix_spawnattr_init(&attr);
		if (how == SPAWN_RESETIDS) {
			posix_spawnattr_setflags(&attr, POSIX_SPAWN_RESETIDS);
		}
		setenv("PATH", path_env, 1);
		if ((how == SPAWNP ? posix_spawnp(&pid, "uwrap_print_ids", NULL,
						  &attr, argv, environ)
				   : posix_spawn(&pid, helper, NULL, &attr,
						 argv, environ)) != 0) {
			_exit(93);
		}
		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 94);
	case EXECVE_NO_WRAPPER:
		/* LD_PRELOAD stays, UID_WRAPPER does not: not wrapped */
		envp_plain[0] = getenv("LD_PRELOAD") - strlen("LD_PRELOAD=");
		execve(helper, argv, envp_plain);
		break;
	case SYSTEM:
		status = system(helper);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 96);
	case POPEN: {
		char line[256];
		FILE *fp = popen(helper, "r");

		if (fp == NULL || fgets(line, sizeof(line), fp) == NULL) {
			_exit(97);
		}
		fputs(line, stdout);
		fflush(stdout);
		_exit(pclose(fp) == 0 ? 0 : 98);
	}
	case THREAD_EXECV:
		pthread_create(&t, NULL, thread_exec, NULL);
		pthread_join(t, NULL);
		break;
	}
	_exit(95);
}

/* Output of the helper started by `how` in a child that switched ids. */
static char *exec_output_mode(enum how how, bool current)
{
	static char out[512];
	int fd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (how == SYSTEM || how == POPEN) {
		CWRAP_TEST_NEED_HOST_SHELL();
	}
	if (current && (how == SYSTEM || how == POPEN)) {
		/* what is judged is the shell's own reset of the ids */
		CWRAP_TEST_NEED_HOST_PROGRAMS();
	}
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		spawn_current = current;
		run_exec(how);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + len, sizeof(out) - 1 - (size_t)len)) >
	       0) {
		len += n;
	}
	out[len] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return out;
}

static char *exec_output(enum how how)
{
	return exec_output_mode(how, false);
}

static void test_fork_keeps_ids(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(setresuid(0, 1000, 0), 0);
	pid = fork();
	if (pid == 0) {
		_exit(getuid() == 0 && geteuid() == 1000 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(setresuid(0, 0, 0), 0);
}

static void test_exec_root(void **state)
{
	pid_t pid;
	int fd[2], status;
	char out[256] = {0};
	char *const argv[] = {helper, NULL};

	(void)state;
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		execv(helper, argv);
		_exit(1);
	}
	close(fd[1]);
	assert_true(read(fd[0], out, sizeof(out) - 1) > 0);
	close(fd[0]);
	waitpid(pid, &status, 0);
	assert_string_equal(out, "uid=0,0,0 gid=0,0,0 groups=0 initial=0\n");
}

#define EXEC_TEST(name, how, expected)                                         \
	static void name(void **state)                                         \
	{                                                                      \
		(void)state;                                                   \
		assert_string_equal(exec_output(how), expected);               \
	}

EXEC_TEST(test_execv, EXECV, SWITCHED)
EXEC_TEST(test_execve, EXECVE, SWITCHED)
EXEC_TEST(test_execvp, EXECVP, SWITCHED)
EXEC_TEST(test_execvpe, EXECVPE, SWITCHED)
EXEC_TEST(test_execl, EXECL, SWITCHED)
EXEC_TEST(test_execle, EXECLE, SWITCHED)
EXEC_TEST(test_execlp, EXECLP, SWITCHED)
EXEC_TEST(test_fexecve, FEXECVE, SWITCHED)
/* Started as this process started: fake root. */
EXEC_TEST(test_posix_spawn, SPAWN, STARTED)
EXEC_TEST(test_posix_spawnp, SPAWNP, STARTED)
EXEC_TEST(test_system, SYSTEM, STARTED)
EXEC_TEST(test_popen, POPEN, STARTED)
EXEC_TEST(test_posix_spawn_resetids, SPAWN_RESETIDS, STARTED)

/* UID_WRAPPER_SPAWN_CURRENT=1: the caller's ids, as the kernel gives them. */
#define CURRENT_TEST(name, how, expected)                                      \
	static void name(void **state)                                         \
	{                                                                      \
		(void)state;                                                   \
		assert_string_equal(exec_output_mode(how, true), expected);    \
	}

CURRENT_TEST(test_posix_spawn_current, SPAWN, SWITCHED)
CURRENT_TEST(test_posix_spawnp_current, SPAWNP, SWITCHED)
CURRENT_TEST(test_system_current, SYSTEM, SWITCHED_RESET)
CURRENT_TEST(test_popen_current, POPEN, SWITCHED_RESET)
CURRENT_TEST(test_posix_spawn_resetids_current, SPAWN_RESETIDS, SWITCHED_RESET)
/* exec is not affected by it */
CURRENT_TEST(test_execv_current, EXECV, SWITCHED)
EXEC_TEST(test_thread_exec, THREAD_EXECV,
	  "uid=1000,1000,1000 gid=100,101,102 groups=10,20 initial=0\n")

/* UID_WRAPPER_INITIAL_* in the environment given to exec*(): the caller's
 * values win, the missing ones are the current ids (SWITCHED). */
static const char *const given_ruid_euid[] = {
    "UID_WRAPPER_INITIAL_RUID=2000", "UID_WRAPPER_INITIAL_EUID=2000", NULL};
static const char *const given_all[] = {"UID_WRAPPER_INITIAL_RUID=3",
					"UID_WRAPPER_INITIAL_EUID=4",
					"UID_WRAPPER_INITIAL_SUID=5",
					"UID_WRAPPER_INITIAL_RGID=6",
					"UID_WRAPPER_INITIAL_EGID=7",
					"UID_WRAPPER_INITIAL_SGID=8",
					"UID_WRAPPER_INITIAL_GROUPS_COUNT=3",
					"UID_WRAPPER_INITIAL_GROUPS=30,9,300",
					NULL};
static const char *const given_gid_groups[] = {
    "UID_WRAPPER_INITIAL_EGID=50", "UID_WRAPPER_INITIAL_GROUPS_COUNT=1",
    "UID_WRAPPER_INITIAL_GROUPS=50", NULL};
static const char *const given_no_groups[] = {
    "UID_WRAPPER_INITIAL_GROUPS_COUNT=0", NULL};
/* an empty value is an unset one */
static const char *const given_empty[] = {
    "UID_WRAPPER_INITIAL_RUID=", "UID_WRAPPER_INITIAL_GROUPS_COUNT=", NULL};

#define GIVEN_TEST(name, how, list, expected)                                  \
	static void name(void **state)                                         \
	{                                                                      \
		(void)state;                                                   \
		given = list;                                                  \
		assert_string_equal(exec_output(how), expected);               \
		given = NULL;                                                  \
	}

GIVEN_TEST(test_execv_given_ruid_euid, EXECV, given_ruid_euid,
	   "uid=2000,2000,0 gid=100,101,102 groups=10,20 initial=0\n")
GIVEN_TEST(test_execvp_given_ruid_euid, EXECVP, given_ruid_euid,
	   "uid=2000,2000,0 gid=100,101,102 groups=10,20 initial=0\n")
GIVEN_TEST(test_execle_given_all, EXECLE, given_all,
	   "uid=3,4,5 gid=6,7,8 groups=9,30,300 initial=0\n")
GIVEN_TEST(test_fexecve_given_gid_groups, FEXECVE, given_gid_groups,
	   "uid=1000,1001,0 gid=100,50,102 groups=50 initial=0\n")
GIVEN_TEST(test_execve_given_no_groups, EXECVE, given_no_groups,
	   "uid=1000,1001,0 gid=100,101,102 groups= initial=0\n")
GIVEN_TEST(test_execve_given_empty, EXECVE, given_empty, SWITCHED)
/* a thread's own ids fill in what is missing */
GIVEN_TEST(test_thread_exec_given, THREAD_EXECV, given_no_groups,
	   "uid=1000,1000,1000 gid=100,101,102 groups= initial=0\n")
/* posix_spawn*(): the values given are used as they are, the others are
 * how this process started (fake root), not its current ids */
GIVEN_TEST(test_posix_spawn_given_ruid_euid, SPAWN, given_ruid_euid,
	   "uid=2000,2000,0 gid=0,0,0 groups=0 initial=0\n")

/* system() still behaves like glibc's: status, NULL, signals restored */
static void test_system_status(void **state)
{
	struct sigaction sa;

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	assert_int_not_equal(system(NULL), 0);
	assert_true(WIFEXITED(system("exit 3")));
	assert_int_equal(WEXITSTATUS(system("exit 3")), 3);
	if (cwrap_test_host_programs_wrapped()) { /* id(1) under the wrapper */
		assert_int_equal(WEXITSTATUS(system("test \"$(id -u)\" = 0")),
				 0);
	}
	assert_int_equal(
	    WEXITSTATUS(system("/nonexistent/program 2>/dev/null")), 127);
	assert_int_equal(sigaction(SIGINT, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
}

/* popen() still behaves like glibc's */
static void test_popen_behaves(void **state)
{
	char *dir = cwrap_test_mkdtemp("uwrap_popen");
	char *path = cwrap_test_path(dir, "out");
	char cmd[4300], line[64] = "";
	FILE *w, *r;
	char *got;

	(void)state;
	CWRAP_TEST_NEED_HOST_SHELL(); /* system(), popen() */
	/* write mode, and the exit status */
	snprintf(cmd, sizeof(cmd), "cat > '%s'; exit 5", path);
	w = popen(cmd, "w");
	assert_non_null(w);
	fputs("through the pipe\n", w);
	/* a later popen() child does not hold the earlier stream open */
	snprintf(cmd, sizeof(cmd),
		 "test -e /proc/self/fd/%d && echo leaked || echo closed",
		 fileno(w));
	r = popen(cmd, "r");
	assert_non_null(r);
	assert_non_null(fgets(line, sizeof(line), r));
	assert_int_equal(pclose(r), 0);
	assert_string_equal(line, "closed\n");
	assert_int_equal(fcntl(fileno(w), F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(WEXITSTATUS(pclose(w)), 5);
	got = cwrap_test_read_file(path, NULL);
	assert_string_equal(got, "through the pipe\n");
	free(got);

	/* "e": close-on-exec; bad modes */
	r = popen("id -u", "re");
	assert_non_null(r);
	assert_int_equal(fcntl(fileno(r), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_non_null(fgets(line, sizeof(line), r));
	if (cwrap_test_host_programs_wrapped()) { /* id(1) under the wrapper */
		assert_string_equal(line, "0\n");
	}
	assert_int_equal(pclose(r), 0);
	errno = 0;
	assert_null(popen("true", "rw"));
	assert_int_equal(errno, EINVAL);
	assert_null(popen("true", "x"));
	assert_int_equal(errno, EINVAL);

	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
}

static void test_exec_unwrapped_env(void **state)
{
	char want[1400];
	char groups[1024], *p;
	unsigned u[4], g[4];

	(void)state;
	/* the real ids, and no UID_WRAPPER_INITIAL_* leaked into it */
	uwrap_test_real_ids("Uid:", u);
	uwrap_test_real_ids("Gid:", g);
	uwrap_test_real_groups(groups, sizeof(groups));
	for (p = groups; *p != '\0'; p++) {
		if (*p == ' ') {
			*p = ',';
		}
	}
	snprintf(want, sizeof(want),
		 "uid=%u,%u,%u gid=%u,%u,%u groups=%s initial=0\n", u[0], u[1],
		 u[2], g[0], g[1], g[2], groups);
	assert_string_equal(exec_output(EXECVE_NO_WRAPPER), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fork_keeps_ids),
	    cmocka_unit_test(test_exec_root),
	    cmocka_unit_test(test_execv),
	    cmocka_unit_test(test_execve),
	    cmocka_unit_test(test_execvp),
	    cmocka_unit_test(test_execvpe),
	    cmocka_unit_test(test_execl),
	    cmocka_unit_test(test_execle),
	    cmocka_unit_test(test_execlp),
	    cmocka_unit_test(test_fexecve),
	    cmocka_unit_test(test_posix_spawn),
	    cmocka_unit_test(test_posix_spawnp),
	    cmocka_unit_test(test_posix_spawn_resetids),
	    cmocka_unit_test(test_system),
	    cmocka_unit_test(test_system_status),
	    cmocka_unit_test(test_popen),
	    cmocka_unit_test(test_posix_spawn_current),
	    cmocka_unit_test(test_posix_spawnp_current),
	    cmocka_unit_test(test_posix_spawn_resetids_current),
	    cmocka_unit_test(test_system_current),
	    cmocka_unit_test(test_popen_current),
	    cmocka_unit_test(test_execv_current),
	    cmocka_unit_test(test_popen_behaves),
	    cmocka_unit_test(test_thread_exec),
	    cmocka_unit_test(test_exec_unwrapped_env),
	    cmocka_unit_test(test_execv_given_ruid_euid),
	    cmocka_unit_test(test_execvp_given_ruid_euid),
	    cmocka_unit_test(test_execle_given_all),
	    cmocka_unit_test(test_fexecve_given_gid_groups),
	    cmocka_unit_test(test_execve_given_no_groups),
	    cmocka_unit_test(test_execve_given_empty),
	    cmocka_unit_test(test_thread_exec_given),
	    cmocka_unit_test(test_posix_spawn_given_ruid_euid),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
