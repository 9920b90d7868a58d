/*
 * syscall() under uid_wrapper (preloaded, fake root): uid/gid numbers are
 * answered per thread, every other number reaches the kernel with all six
 * arguments intact. Where the *32 numbers exist (i686), they are per thread
 * too, and the plain numbers answer as the kernel's old 16-bit calls (the
 * expected values were taken from the real kernel, as root, with the same
 * calls).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "cwrap_test.h"
#include "uwrap_test.h"

static void test_get_numbers(void **state)
{
	uid_t r, e, s;
	gid_t g[4];

	(void)state;
	assert_int_equal(syscall(UWRAP_SYS(getuid)), 0);
	assert_int_equal(syscall(UWRAP_SYS(geteuid)), 0);
	assert_int_equal(syscall(UWRAP_SYS(getgid)), 0);
	assert_int_equal(syscall(UWRAP_SYS(getegid)), 0);
	assert_int_equal(syscall(UWRAP_SYS(getresuid), &r, &e, &s), 0);
	assert_int_equal(r + e + s, 0);
	assert_int_equal(syscall(UWRAP_SYS(getresgid), &r, &e, &s), 0);
	assert_int_equal(r + e + s, 0);
	assert_int_equal(syscall(UWRAP_SYS(getgroups), 0, NULL), 1);
	assert_int_equal(syscall(UWRAP_SYS(getgroups), 4, g), 1);
	assert_int_equal(g[0], 0);
	assert_int_equal(syscall(UWRAP_SYS(getresuid), NULL, &e, &s), -1);
	assert_int_equal(errno, EFAULT);
}

static void test_setfsuid_changes_nothing_real(void **state)
{
	unsigned before[4], after[4], gbefore[4], gafter[4];

	(void)state;
	uwrap_test_real_ids("Uid:", before);
	uwrap_test_real_ids("Gid:", gbefore);
	/* the filesystem ids follow the effective ones */
	assert_int_equal(syscall(UWRAP_SYS(setfsuid), 1234), 0);
	assert_int_equal(syscall(UWRAP_SYS(setfsgid), 1234), 0);
	uwrap_test_real_ids("Uid:", after);
	uwrap_test_real_ids("Gid:", gafter);
	assert_memory_equal(before, after, sizeof(before));
	assert_memory_equal(gbefore, gafter, sizeof(gbefore));
}

/* ---- per thread ---- */

struct seen {
	uid_t r, e, s;
	gid_t gr;
	int ngroups;
	uid_t child_e; /* what a thread created by this one sees */
	int perm_err;
};

static void *child_report(void *arg)
{
	struct seen *o = arg;

	o->child_e = geteuid();
	return NULL;
}

static void *thread_switch(void *arg)
{
	struct seen *o = arg;
	gid_t g[2] = {7, 8};
	pthread_t t;

	/* only this thread */
	assert_int_equal(syscall(UWRAP_SYS(setgroups), 2, g), 0);
	assert_int_equal(syscall(UWRAP_SYS(setresgid), 50, 50, 50), 0);
	assert_int_equal(syscall(UWRAP_SYS(setresuid), 1000, 1000, 1000), 0);
	errno = 0;
	o->perm_err = syscall(UWRAP_SYS(setuid), 0) == -1 ? errno : 0;
	getresuid(&o->r, &o->e, &o->s);
	o->gr = getgid();
	o->ngroups = getgroups(0, NULL);
	/* a thread it creates starts with its ids */
	assert_int_equal(pthread_create(&t, NULL, child_report, o), 0);
	pthread_join(t, NULL);
	return NULL;
}

static void test_syscall_is_per_thread(void **state)
{
	struct seen o = {0};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, thread_switch, &o), 0);
	pthread_join(t, NULL);
	assert_int_equal(o.r, 1000);
	assert_int_equal(o.e, 1000);
	assert_int_equal(o.s, 1000);
	assert_int_equal(o.gr, 50);
	assert_int_equal(o.ngroups, 2);
	assert_int_equal(o.perm_err, EPERM);
	assert_int_equal(o.child_e, 1000);
	/* this thread kept its ids */
	assert_int_equal(getuid(), 0);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getgid(), 0);
	assert_int_equal(getgroups(0, NULL), 1);
}

static void test_syscall_in_this_thread(void **state)
{
	(void)state;
	assert_int_equal(syscall(UWRAP_SYS(setreuid), -1, 1000), 0);
	assert_int_equal(geteuid(), 1000);
	assert_int_equal(syscall(UWRAP_SYS(setregid), 5, -1),
			 -1); /* not privileged */
	assert_int_equal(errno, EPERM);
	assert_int_equal(syscall(UWRAP_SYS(setresuid), 0, 0, 0), 0);
	assert_int_equal(syscall(UWRAP_SYS(setgid), 9), 0);
	assert_int_equal(getgid(), 9);
	assert_int_equal(syscall(UWRAP_SYS(setgid), 0), 0);
	assert_int_equal(syscall(UWRAP_SYS(setuid), 0), 0);
}

#ifdef SYS_getuid32
/* ---- i686 and other CONFIG_UID16 platforms ---- */

static void *thread_switch32(void *arg)
{
	struct seen *o = arg;
	gid_t g[3] = {3, 70002, 2};
	uint32_t r, e, s;

	assert_int_equal(syscall(SYS_setresgid32, 70000, 70001, 5), 0);
	assert_int_equal(syscall(SYS_setgroups32, 3, g), 0);
	assert_int_equal(syscall(SYS_setresuid32, 100000, 100001, 0), 0);
	assert_int_equal(syscall(SYS_getuid32), 100000);
	assert_int_equal(syscall(SYS_geteuid32), 100001);
	assert_int_equal(syscall(SYS_getgid32), 70000);
	assert_int_equal(syscall(SYS_getegid32), 70001);
	assert_int_equal(syscall(SYS_getresuid32, &r, &e, &s), 0);
	assert_true(r == 100000 && e == 100001 && s == 0);
	assert_int_equal(syscall(SYS_getresgid32, &r, &e, &s), 0);
	assert_true(r == 70000 && e == 70001 && s == 5);
	assert_int_equal(syscall(SYS_getgroups32, 0, NULL), 3);
	o->r = (uid_t)syscall(SYS_getuid32);
	o->gr = getgid();
	o->ngroups = getgroups(0, NULL);
	/* unprivileged, the saved uid 0 may become the effective one */
	assert_int_equal(syscall(SYS_setuid32, 0), 0);
	assert_int_equal(syscall(SYS_getresuid32, &r, &e, &s), 0);
	assert_true(r == 100000 && e == 0 && s == 0);
	/* root: every other *32 set call */
	assert_int_equal(syscall(SYS_setresuid32, 0, 0, 0), 0);
	assert_int_equal(syscall(SYS_setregid32, 9, 10), 0);
	assert_int_equal(syscall(SYS_getresgid32, &r, &e, &s), 0);
	assert_true(r == 9 && e == 10 && s == 10);
	assert_int_equal(syscall(SYS_setgid32, 11), 0);
	assert_int_equal(syscall(SYS_getresgid32, &r, &e, &s), 0);
	assert_true(r == 11 && e == 11 && s == 11);
	assert_int_equal(syscall(SYS_setreuid32, 7, 8), 0);
	assert_int_equal(syscall(SYS_getresuid32, &r, &e, &s), 0);
	assert_true(r == 7 && e == 8 && s == 8);
	/* unprivileged now */
	assert_int_equal(syscall(SYS_setregid32, 12, -1), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(syscall(SYS_setuid32, 0), -1);
	o->perm_err = errno;
	assert_int_equal(syscall(SYS_setfsuid32, 8), 8);
	assert_int_equal(syscall(SYS_setfsgid32, 11), 11);
	o->e = geteuid();
	return NULL;
}

static void test_syscall32_is_per_thread(void **state)
{
	struct seen o = {0};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, thread_switch32, &o), 0);
	pthread_join(t, NULL);
	assert_int_equal(o.r, 100000);
	assert_int_equal(o.gr, 70000);
	assert_int_equal(o.ngroups, 3);
	assert_int_equal(o.e, 8);
	assert_int_equal(o.perm_err, EPERM);
	/* this thread kept its ids */
	assert_int_equal(syscall(SYS_getuid32), 0);
	assert_int_equal(getuid(), 0);
	assert_int_equal(getgid(), 0);
	assert_int_equal(getgroups(0, NULL), 1);
}

static void *thread_uid16(void *arg)
{
	uint16_t r[2], e[2], s[2], g[4];
	uint32_t r32, e32, s32, g32[2];
	gid_t big[3] = {3, 70002, 2};

	(void)arg;
	assert_int_equal(syscall(SYS_setresgid32, 70000, 70001, 5), 0);
	assert_int_equal(syscall(SYS_setgroups32, 3, big), 0);
	assert_int_equal(syscall(SYS_setresuid32, 100000, 100001, 0), 0);
	/* ids above 65535 read as the overflow id */
	assert_int_equal(syscall(SYS_getuid), 65534);
	assert_int_equal(syscall(SYS_geteuid), 65534);
	assert_int_equal(syscall(SYS_getgid), 65534);
	assert_int_equal(syscall(SYS_getegid), 65534);
	/* 16-bit arrays: nothing written past them */
	memset(r, 0xab, sizeof(r));
	memset(e, 0xab, sizeof(e));
	memset(s, 0xab, sizeof(s));
	assert_int_equal(syscall(SYS_getresuid, r, e, s), 0);
	assert_true(r[0] == 65534 && e[0] == 65534 && s[0] == 0);
	assert_true(r[1] == 0xabab && e[1] == 0xabab && s[1] == 0xabab);
	assert_int_equal(syscall(SYS_getresgid, r, e, s), 0);
	assert_true(r[0] == 65534 && e[0] == 65534 && s[0] == 5);
	memset(g, 0xab, sizeof(g));
	assert_int_equal(syscall(SYS_getgroups, 0, NULL), 3);
	assert_int_equal(syscall(SYS_getgroups, 4, g), 3);
	assert_true(g[0] == 2 && g[1] == 3 && g[2] == 65534 && g[3] == 0xabab);
	assert_int_equal(syscall(SYS_getgroups, 2, g), -1);
	assert_int_equal(errno, EINVAL);

	/* root again (saved 0): 16-bit arguments, 0xffff is -1 */
	assert_int_equal(syscall(SYS_setresuid32, -1, 0, -1), 0);
	g[0] = 9;
	assert_int_equal(syscall(SYS_setgroups, 1, g), 0);
	assert_int_equal(syscall(SYS_getgroups32, 2, g32), 1);
	assert_int_equal(g32[0], 9);
	assert_int_equal(syscall(SYS_setresgid, 13, 0xffff, 15), 0);
	assert_int_equal(syscall(SYS_getresgid32, &r32, &e32, &s32), 0);
	assert_true(r32 == 13 && e32 == 70001 && s32 == 15);
	assert_int_equal(syscall(SYS_setresuid, 0x10000 + 7, 0xffff, 8), 0);
	assert_int_equal(syscall(SYS_getresuid32, &r32, &e32, &s32), 0);
	assert_true(r32 == 7 && e32 == 0 && s32 == 8);
	assert_int_equal(syscall(SYS_setuid, 0xffff), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(syscall(SYS_setuid, 0x10000), 0); /* uid 0 */
	assert_int_equal(syscall(SYS_getresuid32, &r32, &e32, &s32), 0);
	assert_true(r32 == 0 && e32 == 0 && s32 == 0);
	assert_int_equal(syscall(SYS_setreuid, 0xffff, 7), 0);
	assert_int_equal(syscall(SYS_getresuid32, &r32, &e32, &s32), 0);
	assert_true(r32 == 0 && e32 == 7 && s32 == 7);
	return NULL;
}

static void test_uid16_calls(void **state)
{
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, thread_uid16, NULL), 0);
	pthread_join(t, NULL);
	assert_int_equal(syscall(SYS_getuid), 0);
	assert_int_equal(getuid(), 0);
	assert_int_equal(getgroups(0, NULL), 1);
}
#endif

/* ---- every other number: untouched ---- */

static void test_forwarded(void **state)
{
	char *dir = cwrap_test_mkdtemp("uwrap_sys");
	char *path = cwrap_test_path(dir, "data");
	char page[8192];
	char buf[4];
	long pagesize = sysconf(_SC_PAGESIZE);
	void *m;
	int fd;

	(void)state;
	assert_int_equal(syscall(SYS_getpid), getpid());
	assert_int_equal(syscall(SYS_gettid), gettid());

	assert_true(pagesize <= 4096);
	memset(page, 'a', 4096);
	memset(page + 4096, 'b', 4096);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));

	/* four arguments: pread64(fd, buf, count, offset); i686 passes the
	 * 64-bit offset as two (low, high) */
#ifdef __i386__
	assert_int_equal(syscall(SYS_pread64, fd, buf, 2, 4095L, 0L), 2);
#else
	assert_int_equal(syscall(SYS_pread64, fd, buf, 2, 4095L), 2);
#endif
	assert_memory_equal(buf, "ab", 2);

	/* six: mmap(addr, len, prot, flags, fd, offset) -- the offset is the
	 * sixth and selects the 'b' page (mmap2 on i686: in 4096-byte units) */
#ifdef SYS_mmap2
	m = (void *)syscall(SYS_mmap2, NULL, 4096L, (long)PROT_READ,
			    (long)MAP_PRIVATE, (long)fd, 1L);
#else
	m = (void *)syscall(SYS_mmap, NULL, 4096L, (long)PROT_READ,
			    (long)MAP_PRIVATE, (long)fd, 4096L);
#endif
	assert_true(m != MAP_FAILED);
	assert_int_equal(((char *)m)[0], 'b');
	assert_int_equal(((char *)m)[4095], 'b');
	assert_int_equal(syscall(SYS_munmap, m, 4096L), 0);

	/* errors come back as -1 and errno */
	assert_int_equal(syscall(SYS_close, 12345), -1);
	assert_int_equal(errno, EBADF);

	close(fd);
	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get_numbers),
	    cmocka_unit_test(test_setfsuid_changes_nothing_real),
	    cmocka_unit_test(test_syscall_is_per_thread),
	    cmocka_unit_test(test_syscall_in_this_thread),
#ifdef SYS_getuid32
	    cmocka_unit_test(test_syscall32_is_per_thread),
	    cmocka_unit_test(test_uid16_calls),
#endif
	    cmocka_unit_test(test_forwarded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
