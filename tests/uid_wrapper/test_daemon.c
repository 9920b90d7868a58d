/*
 * The story in one program: a daemon started as (fake) root serves
 * "connections" in worker threads that each switch to their user by
 * syscall (per thread) while the others keep theirs, and forks a child per
 * session that drops privileges for good and execs a helper. All of it as
 * whatever user runs the test; every file still belongs to that user.
 */
#include <grp.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

#define WORKERS 4
#define ROUNDS 2000

static pthread_barrier_t barrier;
static char *dir;
static unsigned real_euid;

struct worker {
	int id;
	int errors;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	uid_t user = (uid_t)(2000 + w->id);
	char name[64];
	struct stat st;
	int i;

	pthread_barrier_wait(&barrier);
	for (i = 0; i < ROUNDS; i++) {
		/* become the connection's user, in this thread only */
		if (syscall(UWRAP_SYS(setresgid), -1, user, -1) != 0 ||
		    syscall(UWRAP_SYS(setresuid), -1, user, -1) != 0) {
			w->errors++;
			continue;
		}
		if (geteuid() != user || getegid() != user || getuid() != 0) {
			w->errors++;
		}
		if (i == 0) {
			char *path;

			snprintf(name, sizeof(name), "worker-%d", w->id);
			path = cwrap_test_path(dir, name);
			cwrap_test_write_file(path, "data");
			if (stat(path, &st) != 0 || st.st_uid != real_euid) {
				w->errors++;
			}
			free(path);
		}
		/* and back to root (the saved id) */
		if (syscall(UWRAP_SYS(setresuid), -1, 0, -1) != 0 ||
		    syscall(UWRAP_SYS(setresgid), -1, 0, -1) != 0 ||
		    geteuid() != 0) {
			w->errors++;
		}
	}
	return NULL;
}

static void test_daemon(void **state)
{
	struct worker w[WORKERS];
	pthread_t t[WORKERS];
	char helper[4096];
	int i;

	(void)state;
	dir = cwrap_test_mkdtemp("uwrap_daemon");
	real_euid = uwrap_test_real_uid();
	snprintf(helper, sizeof(helper), "%s/uwrap_print_ids",
		 getenv("CWRAP_TEST_BIN"));
	assert_int_equal(geteuid(), 0);

	pthread_barrier_init(&barrier, NULL, WORKERS + 1);
	for (i = 0; i < WORKERS; i++) {
		w[i].id = i;
		w[i].errors = 0;
		assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
	}
	pthread_barrier_wait(&barrier);

	/* meanwhile: a session child per user drops privileges for good */
	for (i = 0; i < 3; i++) {
		char expect[128], out[256] = "";
		int fd[2], status;
		pid_t pid;

		assert_int_equal(pipe(fd), 0);
		pid = fork();
		if (pid == 0) {
			gid_t groups[2] = {(gid_t)(3000 + i), 100};
			char *const argv[] = {helper, NULL};

			dup2(fd[1], 1);
			if (setgroups(2, groups) != 0 ||
			    setgid((gid_t)(3000 + i)) != 0 ||
			    setuid((uid_t)(3000 + i)) != 0 || setuid(0) != -1) {
				_exit(1);
			}
			execv(helper, argv);
			_exit(2);
		}
		close(fd[1]);
		assert_true(read(fd[0], out, sizeof(out) - 1) > 0);
		close(fd[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		snprintf(expect, sizeof(expect),
			 "uid=%d,%d,%d gid=%d,%d,%d groups=100,%d initial=0\n",
			 3000 + i, 3000 + i, 3000 + i, 3000 + i, 3000 + i,
			 3000 + i, 3000 + i);
		assert_string_equal(out, expect);
	}

	for (i = 0; i < WORKERS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].errors, 0);
	}
	/* the main thread never moved */
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getegid(), 0);
	pthread_barrier_destroy(&barrier);
	cwrap_test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_daemon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
