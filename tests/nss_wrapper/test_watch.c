/*
 * A file looked up often is watched instead of fstat()ed at every lookup
 * (nwrap_watch.c): every kind of change must still be seen by the next
 * lookup, whoever makes it (this thread, another thread, another process),
 * after a fork, after the application closed every descriptor, and under
 * a seccomp filter (as container runtimes install).
 * The watch is checked to exist (an io_uring mapping in /proc/self/maps)
 * where the kernel allows io_uring, so the changes are seen through it and
 * not through the fstat() it replaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>

#include "nwrap_test.h"

#ifndef IORING_SETUP_COOP_TASKRUN /* older kernel headers */
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif

static char *passwd_path;
static bool ring_allowed;

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Does this kernel let us set up the ring nss_wrapper would? */
static bool probe_ring(void)
{
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	fd = (int)syscall(SYS_io_uring_setup, 2, &p);
	if (fd < 0) {
		return false;
	}
	close(fd);
	return true;
}

/* Is this process under a seccomp filter (a container's)? The library
 * builds no watch there. */
static bool under_filter(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int mode = -1;

	if (f == NULL) {
		return true;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Seccomp: %d", &mode) == 1) {
			break;
		}
	}
	fclose(f);
	return mode != 0;
}

/* Is `path` on a filesystem the library watches (ext*, xfs, btrfs, f2fs,
 * tmpfs, ramfs)? */
static bool local_fs(const char *path)
{
	static const unsigned long local[] = {
	    0xEF53, 0x58465342, 0x9123683E, 0xF2F52010, 0x01021994, 0x858458F6};
	struct statfs sf;

	if (statfs(path, &sf) != 0) {
		return false;
	}
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(local); i++) {
		if ((unsigned long)sf.f_type == local[i]) {
			return true;
		}
	}
	return false;
}

/* io_uring mappings of this process (3 per watch, 2 with a single CQ/SQ
 * mapping). */
static int ring_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		n += strstr(line, "io_uring") != NULL;
	}
	fclose(f);
	return n;
}

/* The user's uid, or -1 if there is no such user. */
static long uid_of(const char *name)
{
	struct passwd *pw = getpwnam(name);

	return pw == NULL ? -1 : (long)pw->pw_uid;
}

static void write_passwd(const char *name, int uid)
{
	char line[128];

	snprintf(line, sizeof(line), "%s:x:%d:%d::/home/%s:/bin/sh\n", name,
		 uid, uid, name);
	cwrap_test_write_file(passwd_path, line);
}

/* Make the passwd cache hot on `name` (past the racy window of a file just
 * written, then a loop of lookups, more than 5,000 in a second): watched
 * from here on where allowed. */
static void heat(const char *name, long uid)
{
	sleep_ms(60);
	/* 6,000 lookups, and more where a slow run (valgrind) makes fewer
	 * than 5,000 a second: until the watch is there */
	for (int i = 0; i < 6000 || (ring_allowed && i < 60000); i++) {
		assert_int_equal(uid_of(name), uid);
		if (i >= 6000 && i % 1000 == 0 && ring_maps() > 0) {
			break;
		}
	}
	if (ring_allowed) {
		assert_true(ring_maps() > 0);
	}
}

static void test_in_place_same_size(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	write_passwd("bea", 1001); /* same size, same inode */
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("bea"), 1001);
}

static void test_rename_over(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	nt_replace(passwd_path, "cid:x:1002:1002::/:/bin/sh\n");
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("cid"), 1002);
}

static void test_unlink_and_truncate(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(unlink(passwd_path), 0);
	assert_int_equal(uid_of("amy"), -1);

	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(truncate(passwd_path, 0), 0);
	assert_int_equal(uid_of("amy"), -1);
}

static void test_edit_by_another_process(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(passwd_path, O_WRONLY);

		/* "amy" becomes "amz" in place: one byte, one write */
		_exit(fd >= 0 && pwrite(fd, "z", 1, 2) == 1 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("amz"), 1001);
}

static int edited;
static char edit_byte;

static void *edit_thread(void *arg)
{
	int fd = open(passwd_path, O_WRONLY);

	(void)arg;
	if (fd < 0 || pwrite(fd, &edit_byte, 1, 2) != 1) {
		abort();
	}
	close(fd);
	__atomic_store_n(&edited, 1, __ATOMIC_RELEASE);
	for (;;) {
		/* stays alive, so the lookup below cannot be after a join */
		if (__atomic_load_n(&edited, __ATOMIC_ACQUIRE) == 2) {
			return NULL;
		}
	}
}

/* The builder of the watch learns of another thread's edit through memory
 * alone: it spins, no system call in between. The kernel has then either
 * posted the completion or only raised the ring's flag (it depends on
 * whether this thread was scheduled out meanwhile): ten rounds see both. */
static void test_edit_by_another_thread(void **state)
{
	char name[] = "amy";

	(void)state;
	write_passwd(name, 1001);
	for (int i = 0; i < 10; i++) {
		pthread_t t;

		heat(name, 1001);
		edit_byte = i % 2 ? 'y' : 'w';
		__atomic_store_n(&edited, 0, __ATOMIC_RELEASE);
		assert_int_equal(pthread_create(&t, NULL, edit_thread, NULL),
				 0);
		while (__atomic_load_n(&edited, __ATOMIC_ACQUIRE) == 0) {
		}
		assert_int_equal(uid_of(name), -1);
		name[2] = edit_byte;
		assert_int_equal(uid_of(name), 1001);
		__atomic_store_n(&edited, 2, __ATOMIC_RELEASE);
		assert_int_equal(pthread_join(t, NULL), 0);
	}
}

static void *lookup_thread(void *arg)
{
	return (void *)(intptr_t)uid_of((const char *)arg);
}

/* A thread that did not build the watch sees changes as well. */
static void test_other_thread_looks_up(void **state)
{
	pthread_t t;
	void *r;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	write_passwd("dot", 1003);
	assert_int_equal(pthread_create(&t, NULL, lookup_thread, (void *)"dot"),
			 0);
	assert_int_equal(pthread_join(t, &r), 0);
	assert_int_equal((intptr_t)r, 1003);
	assert_int_equal(uid_of("dot"), 1003);
}

/* The writer maps the file and writes through the mapping: seen once it
 * closes its descriptor. */
static void test_mapped_write_then_close(void **state)
{
	int fd;
	char *m;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	fd = open(passwd_path, O_RDWR);
	assert_true(fd >= 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	m[2] = 'x';
	assert_int_equal(munmap(m, 4096), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("amx"), 1001);
}

/* A daemon closes every descriptor: the watch has none, and goes on. */
static void test_application_closes_everything(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	for (int fd = 3; fd < 1024; fd++) {
		close(fd);
	}
	assert_int_equal(uid_of("amy"), 1001);
	write_passwd("eve", 1004);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("eve"), 1004);
}

/* A child forked while the parent watches: it sees every later change,
 * the parent's and its own, and so does the parent. */
static void test_fork(void **state)
{
	int to_child[2], to_parent[2], status;
	pid_t pid;
	char c;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = uid_of("amy") == 1001;

		for (int i = 0; i < 300; i++) {
			ok &= uid_of("amy") == 1001;
		}
		ok &= write(to_parent[1], "1", 1) == 1;
		ok &= read(to_child[0], &c, 1) == 1; /* the parent edited */
		ok &= uid_of("amy") == -1 && uid_of("fay") == 1005;
		for (int i = 0; i < 300; i++) {
			ok &= uid_of("fay") == 1005;
		}
		ok &= write(to_parent[1], "2", 1) == 1;
		ok &= read(to_child[0], &c, 1) == 1; /* edited again */
		ok &= uid_of("fay") == -1 && uid_of("gus") == 1006;
		write_passwd("hal", 1007);
		ok &= uid_of("hal") == 1007;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	write_passwd("fay", 1005);
	assert_int_equal(uid_of("fay"), 1005);
	assert_int_equal(write(to_child[1], "1", 1), 1);
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	write_passwd("gus", 1006);
	assert_int_equal(write(to_child[1], "2", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(uid_of("hal"), 1007);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* Watches come and go with the changes: never more than one at a time for
 * this one file, whatever the number of cycles. */
static void test_no_watch_piles_up(void **state)
{
	(void)state;
	for (int i = 0; i < 8; i++) {
		write_passwd(i % 2 ? "ivy" : "jon", 1008);
		heat(i % 2 ? "ivy" : "jon", 1008);
		if (ring_allowed) {
			assert_true(ring_maps() <= 3);
		}
	}
}

/* A process under a seccomp filter (as container runtimes and sandboxed
 * daemons install) builds no watch: the filter may kill it for a system
 * call it did not list. This one refuses io_uring; lookups go on
 * fstat()ing and see every change. */
static void test_io_uring_refused(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	write_passwd("amy", 1001);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter f[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			     offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0,
			     1),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {CWRAP_ARRAY_SIZE(f), f};
		int ok = 1;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			_exit(2);
		}
		sleep_ms(60);
		for (int i = 0; i < 6000; i++) {
			ok &= uid_of("amy") == 1001;
		}
		ok &= ring_maps() == 0;
		write_passwd("kim", 1009);
		ok &= uid_of("amy") == -1 && uid_of("kim") == 1009;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A process that looks up now and then (4,000 times here, under the 5,000
 * a second that make a loop) takes none of the user's inotify instances;
 * nor does one after the user ran out of them, even once some are free
 * again: they are the application's. */
static void test_instances_left_to_the_application(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	write_passwd("amy", 1001);
	sleep_ms(60);
	for (int i = 0; i < 4000; i++) {
		assert_int_equal(uid_of("amy"), 1001);
	}
	assert_int_equal(ring_maps(), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static int fds[4096];
		int n = 0, ok = 1;

		while (n < 4096 && (fds[n] = inotify_init1(IN_CLOEXEC)) >= 0) {
			n++;
		}
		ok &= n < 4096 && (errno == EMFILE || errno == ENFILE);
		for (int i = 0; i < 12000; i++) {
			ok &= uid_of("amy") == 1001;
		}
		ok &= ring_maps() == 0;
		while (n > 0) {
			close(fds[--n]);
		}
		for (int i = 0; i < 12000; i++) {
			ok &= uid_of("amy") == 1001;
		}
		ok &= ring_maps() == 0;
		write_passwd("lou", 1010);
		ok &= uid_of("amy") == -1 && uid_of("lou") == 1010;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_io_uring_refused),
	    cmocka_unit_test(test_instances_left_to_the_application),
	    cmocka_unit_test(test_in_place_same_size),
	    cmocka_unit_test(test_rename_over),
	    cmocka_unit_test(test_unlink_and_truncate),
	    cmocka_unit_test(test_edit_by_another_process),
	    cmocka_unit_test(test_edit_by_another_thread),
	    cmocka_unit_test(test_other_thread_looks_up),
	    cmocka_unit_test(test_mapped_write_then_close),
	    cmocka_unit_test(test_application_closes_everything),
	    cmocka_unit_test(test_fork),
	    cmocka_unit_test(test_no_watch_piles_up),
	};

	passwd_path = nt_file("passwd", "amy:x:1001:1001::/:/bin/sh\n",
			      "NSS_WRAPPER_PASSWD");
	ring_allowed = probe_ring() && !under_filter() && local_fs(passwd_path);
	if (!ring_allowed) {
		fprintf(stderr, "no watch can be built here (io_uring refused, "
				"a seccomp filter, or not a local "
				"filesystem): only the fstat() path is "
				"tested\n");
	}
	nt_file("group", "users:x:1000:amy\n", "NSS_WRAPPER_GROUP");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
