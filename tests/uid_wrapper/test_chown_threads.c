/*
 * Fake ownership under concurrency, preloaded as fake root with
 * UID_WRAPPER_FAKE_CHOWN=1 (also run under TSan).
 *
 * A chown(uid, -1) and a chown(-1, gid) of the same file, made at once by
 * two threads or two processes, must both last, as with the kernel, which
 * changes an inode under its lock: the wrapper's read-modify-write of the
 * stored owner is serialised. Readers meanwhile only ever see owners that
 * were set. Regular files (the attribute) and symbolic links (the owner
 * database) alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cwrap_test.h"

/* Chowns per writer: fewer for links, each of which adds a record to the
 * owner database, which only grows. */
#define ROUNDS(link) ((link) ? 100u : 300u)
#define BASE 100000u

static char *dir;

struct job {
	const char *path;
	bool link;
	bool gid; /* change the gid (else the uid) */
	int bad;
};

static int set_owner(const char *path, bool link, uid_t u, gid_t g)
{
	return link ? lchown(path, u, g) : chown(path, u, g);
}

static void *writer(void *arg)
{
	struct job *j = arg;
	uint32_t i;

	for (i = 1; i <= ROUNDS(j->link); i++) {
		if (set_owner(j->path, j->link, j->gid ? (uid_t)-1 : BASE + i,
			      j->gid ? BASE + i : (gid_t)-1) != 0) {
			j->bad++;
		}
	}
	return NULL;
}

/* Every owner seen is one that was set (from BASE on). */
static void *reader(void *arg)
{
	struct job *j = arg;
	struct stat st;
	int i;

	for (i = 0; i < (int)ROUNDS(j->link) * 2; i++) {
		if ((j->link ? lstat(j->path, &st) : stat(j->path, &st)) != 0 ||
		    st.st_uid < BASE || st.st_uid > BASE + ROUNDS(j->link) ||
		    st.st_gid < BASE || st.st_gid > BASE + ROUNDS(j->link)) {
			j->bad++;
		}
	}
	return NULL;
}

static char *make(const char *name, bool link)
{
	char *p = cwrap_test_path(dir, name);

	if (link) {
		assert_int_equal(symlink("target", p), 0);
	} else {
		cwrap_test_write_file(p, "x");
	}
	assert_int_equal(set_owner(p, link, BASE, BASE), 0);
	return p;
}

static void check_final(const char *p, bool link)
{
	struct stat st;

	assert_int_equal(link ? lstat(p, &st) : stat(p, &st), 0);
	assert_int_equal(st.st_uid, BASE + ROUNDS(link));
	assert_int_equal(st.st_gid, BASE + ROUNDS(link));
}

static void threads_case(const char *name, bool link)
{
	char *p = make(name, link);
	struct job w1 = {p, link, false, 0}, w2 = {p, link, true, 0};
	struct job r = {p, link, false, 0};
	pthread_t t[3];

	assert_int_equal(pthread_create(&t[0], NULL, writer, &w1), 0);
	assert_int_equal(pthread_create(&t[1], NULL, writer, &w2), 0);
	assert_int_equal(pthread_create(&t[2], NULL, reader, &r), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	assert_int_equal(w1.bad + w2.bad, 0);
	assert_int_equal(r.bad, 0);
	check_final(p, link);
	free(p);
}

static void test_threads_file(void **state)
{
	(void)state;
	threads_case("tf", false);
}

static void test_threads_symlink(void **state)
{
	(void)state;
	threads_case("tl", true);
}

static void processes_case(const char *name, bool link)
{
	char *p = make(name, link);
	pid_t pid[3];
	int i, status;

	for (i = 0; i < 3; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct job j = {p, link, i == 1, 0};

			if (i == 2) {
				reader(&j);
			} else {
				writer(&j);
			}
			_exit(j.bad == 0 ? 0 : 1);
		}
		assert_true(pid[i] > 0);
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	check_final(p, link);
	free(p);
}

static void test_processes_file(void **state)
{
	(void)state;
	processes_case("pf", false);
}

static void test_processes_symlink(void **state)
{
	(void)state;
	processes_case("pl", true);
}

/* Many files at once, and a fork while others chown: the child's own
 * chown and stat work (the lock was not held across the fork). */
static void *many(void *arg)
{
	long k = (long)arg;
	char p[4096];
	int i;

	/* (no heap here: a block a thread holds at the fork would be lost
	 * in the child, for valgrind) */
	for (i = 0; i < 50; i++) {
		struct stat st;

		snprintf(p, sizeof(p), "%s/m%ld-%d", dir, k, i);
		if (k % 2 == 0) {
			int fd = open(p, O_CREAT | O_WRONLY, 0644);

			if (fd < 0) {
				abort();
			}
			close(fd);
		} else if (symlink("t", p) != 0) {
			abort();
		}
		if (lchown(p, (uid_t)(k * 1000 + i), 7) != 0 ||
		    lstat(p, &st) != 0 || st.st_uid != (uid_t)(k * 1000 + i)) {
			abort();
		}
	}
	return NULL;
}

static void test_many_and_fork(void **state)
{
	pthread_t t[4];
	long k;
	int r;

	(void)state;
	for (k = 0; k < 4; k++) {
		assert_int_equal(pthread_create(&t[k], NULL, many, (void *)k),
				 0);
	}
	for (r = 0; r < 5; r++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			struct stat st;
			char p[4096];

			snprintf(p, sizeof(p), "%s/%d", dir, r);
			/* (exit_group: a thread sanitizer's _exit() would
			 * count the parent's running threads as leaked) */
			syscall(SYS_exit_group,
				symlink("t", p) != 0 ||
					lchown(p, 99, 98) != 0 ||
					lstat(p, &st) != 0 || st.st_uid != 99
				    ? 1
				    : 0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (k = 0; k < 4; k++) {
		pthread_join(t[k], NULL);
	}
}

static int setup(void **state)
{
	(void)state;
	dir = cwrap_test_mkdtemp("uwrap-chown-threads");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cwrap_test_rmtree(dir);
	free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_file),
	    cmocka_unit_test(test_threads_symlink),
	    cmocka_unit_test(test_processes_file),
	    cmocka_unit_test(test_processes_symlink),
	    cmocka_unit_test(test_many_and_fork),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
