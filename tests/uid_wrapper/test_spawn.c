/*
 * Children started by system(), popen(), posix_spawn() and posix_spawnp()
 * begin with the identity the process started with (UID_WRAPPER_ROOT, or
 * the UID_WRAPPER_INITIAL_* it was started with), as under the upstream
 * library; the program's own fork() + execv() hands on the current ids.
 * Run twice (tests/uid_wrapper/CMakeLists.txt):
 *   - as fake root (UID_WRAPPER_ROOT=1), switching with setuid(5000): the
 *     libssh suite's case (it restarts sshd with system() after that);
 *   - started with UID_WRAPPER_INITIAL_* ids 1000 (saved uid 0), switching
 *     to 2000.
 * Each case runs in a forked child, which switches, starts `id -u` (or the
 * uwrap_print_ids helper) and hands its output back through a pipe.
 */
#include <grp.h>
#include <spawn.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

extern char **environ;

static uid_t start_uid;	      /* the uid this process started with */
static uid_t switched_uid;    /* the uid after switch_ids() */
static const char *start_ids; /* uwrap_print_ids of the start */
static char helper[4096];

/* The switch of the scenario; _exit on failure (in the child). */
static void switch_ids(void)
{
	gid_t g = 7;

	if (start_uid == 0) {
		/* libssh's torture setup: as root, become a user for good */
		if (setuid(5000) != 0) {
			_exit(90);
		}
		return;
	}
	/* a dropped daemon (saved uid 0) switches to another user */
	if (seteuid(0) != 0 || setgroups(1, &g) != 0 ||
	    setresgid(300, 300, 300) != 0 || setresuid(2000, 2000, 0) != 0) {
		_exit(90);
	}
}

enum how { SYSTEM, POPEN, SPAWN, SPAWNP, FORK_EXECV };

static void start(enum how how, const char *prog, char *const envp[])
{
	char id[] = "id", dash_u[] = "-u";
	char *const id_argv[] = {id, dash_u, NULL};
	char *const helper_argv[] = {helper, NULL};
	char *const *argv = prog == NULL ? id_argv : helper_argv;
	const char *path = prog == NULL ? "/usr/bin/id" : prog;
	char cmd[4200], line[256];
	int status;
	pid_t pid;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "%s", prog == NULL ? "id -u" : prog);
	switch (how) {
	case SYSTEM:
		status = system(cmd);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 96);
	case POPEN:
		fp = popen(cmd, "r");
		if (fp == NULL || fgets(line, sizeof(line), fp) == NULL) {
			_exit(97);
		}
		fputs(line, stdout);
		fflush(stdout);
		_exit(pclose(fp) == 0 ? 0 : 98);
	case SPAWN:
	case SPAWNP:
		if ((how == SPAWN
			 ? posix_spawn(&pid, path, NULL, NULL, argv, envp)
			 : posix_spawnp(&pid, prog == NULL ? "id" : prog, NULL,
					NULL, argv, envp)) != 0) {
			_exit(93);
		}
		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 94);
	case FORK_EXECV:
		pid = fork();
		if (pid == 0) {
			execv(path, argv);
			_exit(95);
		}
		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 94);
	}
	_exit(99);
}

/* What the program started by `how` printed, from a child that switched
 * ids first (and set `var` to `value`, if given). */
static char *output_env(enum how how, const char *prog, char *const *envp,
			const char *var, const char *value)
{
	static char out[512];
	int fd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (prog == NULL) {
		CWRAP_TEST_NEED_HOST_PROGRAMS(); /* the system's id(1) */
	}
	if (how == SYSTEM) {
		CWRAP_TEST_NEED_HOST_SHELL();
	}
	fflush(stdout);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		switch_ids();
		if (getuid() != switched_uid || geteuid() != switched_uid) {
			_exit(91);
		}
		if (var != NULL) {
			setenv(var, value, 1);
		}
		start(how, prog, envp == NULL ? environ : envp);
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

static char *output(enum how how)
{
	return output_env(how, NULL, NULL, NULL, NULL);
}

static char *uid_line(uid_t uid)
{
	static char line[32];

	snprintf(line, sizeof(line), "%u\n", (unsigned)uid);
	return line;
}

static void test_system_starts_as_started(void **state)
{
	(void)state;
	assert_string_equal(output(SYSTEM), uid_line(start_uid));
}

static void test_popen_starts_as_started(void **state)
{
	(void)state;
	assert_string_equal(output(POPEN), uid_line(start_uid));
}

static void test_posix_spawn_starts_as_started(void **state)
{
	(void)state;
	assert_string_equal(output(SPAWN), uid_line(start_uid));
}

static void test_posix_spawnp_starts_as_started(void **state)
{
	(void)state;
	assert_string_equal(output(SPAWNP), uid_line(start_uid));
}

/* The program's own fork() + execv(): the current ids. */
static void test_fork_execv_keeps_current(void **state)
{
	(void)state;
	assert_string_equal(output(FORK_EXECV), uid_line(switched_uid));
}

/* The whole identity, gids and groups too, is the one it started with. */
static void test_whole_identity(void **state)
{
	(void)state;
	assert_string_equal(output_env(SPAWN, helper, NULL, NULL, NULL),
			    start_ids);
	assert_string_equal(output_env(SYSTEM, helper, NULL, NULL, NULL),
			    start_ids);
}

/* UID_WRAPPER_INITIAL_* the caller puts in the child's environment are
 * the child's start. */
static void test_explicit_initial_env(void **state)
{
	char entry[] = "UID_WRAPPER_INITIAL_RUID=4242";
	char **envp;
	size_t n = 0, i;

	(void)state;
	while (environ[n] != NULL) {
		n++;
	}
	envp = calloc(n + 2, sizeof(char *));
	assert_non_null(envp);
	for (i = 0; i < n; i++) {
		envp[i] = environ[i];
	}
	envp[n] = entry;
	assert_non_null(
	    strstr(output_env(SPAWN, helper, envp, NULL, NULL), "uid=4242,"));
	free(envp);
}

/* UID_WRAPPER_SPAWN_CURRENT=1 (read at the call): the caller's current
 * ids, as the kernel would give them; other values: one line, off. */
static void test_spawn_current(void **state)
{
	(void)state;
	assert_string_equal(
	    output_env(SYSTEM, NULL, NULL, "UID_WRAPPER_SPAWN_CURRENT", "1"),
	    uid_line(switched_uid));
	assert_string_equal(
	    output_env(SPAWN, NULL, NULL, "UID_WRAPPER_SPAWN_CURRENT", "1"),
	    uid_line(switched_uid));
	assert_string_equal(
	    output_env(POPEN, NULL, NULL, "UID_WRAPPER_SPAWN_CURRENT", "0"),
	    uid_line(start_uid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_system_starts_as_started),
	    cmocka_unit_test(test_popen_starts_as_started),
	    cmocka_unit_test(test_posix_spawn_starts_as_started),
	    cmocka_unit_test(test_posix_spawnp_starts_as_started),
	    cmocka_unit_test(test_fork_execv_keeps_current),
	    cmocka_unit_test(test_whole_identity),
	    cmocka_unit_test(test_explicit_initial_env),
	    cmocka_unit_test(test_spawn_current),
	};
	const char *bin = getenv("CWRAP_TEST_BIN");

	snprintf(helper, sizeof(helper), "%s/uwrap_print_ids",
		 bin != NULL ? bin : ".");
	uid_t r, e, s;

	start_uid = getuid();
	getresuid(&r, &e, &s);
	if (start_uid == 0 && e == 0 && s == 0) {
		switched_uid = 5000;
		start_ids = "uid=0,0,0 gid=0,0,0 groups=0 initial=0\n";
	} else if (start_uid == 1000 && e == 1000 && s == 0 &&
		   getgid() == 100 && getgroups(0, NULL) == 2 &&
		   getenv("UID_WRAPPER_INITIAL_RUID") == NULL) {
		/* started with UID_WRAPPER_INITIAL_*, which are gone from
		 * the environment: the library keeps its own copy */
		switched_uid = 2000;
		start_ids = "uid=1000,1000,0 gid=100,100,100 groups=100,200 "
			    "initial=0\n";
	} else {
		fprintf(stderr, "unexpected start: uid %u/%u/%u\n", (unsigned)r,
			(unsigned)e, (unsigned)s);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
