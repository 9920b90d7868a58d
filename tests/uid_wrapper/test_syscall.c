/*
 * syscall() under uid_wrapper (preloaded, fake root): uid/gid numbers are
 * answered per thread, every other number reaches the kernel with all six
 * arguments intact.
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
	assert_int_equal(syscall(UT_SYS(getuid)), 0);
	assert_int_equal(syscall(UT_SYS(geteuid)), 0);
	assert_int_equal(syscall(UT_SYS(getgid)), 0);
	assert_int_equal(syscall(UT_SYS(getegid)), 0);
	assert_int_equal(syscall(UT_SYS(getresuid), &r, &e, &s), 0);
	assert_int_equal(r + e + s, 0);
	assert_int_equal(syscall(UT_SYS(getresgid), &r, &e, &s), 0);
	assert_int_equal(r + e + s, 0);
	assert_int_equal(syscall(UT_SYS(getgroups), 0, NULL), 1);
	assert_int_equal(syscall(UT_SYS(getgroups), 4, g), 1);
	assert_int_equal(g[0], 0);
	assert_int_equal(syscall(UT_SYS(getresuid), NULL, &e, &s), -1);
	assert_int_equal(errno, EFAULT);
}

static void test_setfsuid_changes_nothing_real(void **state)
{
	unsigned before[4], after[4], gbefore[4], gafter[4];

	(void)state;
	uwrap_test_real_ids("Uid:", before);
	uwrap_test_real_ids("Gid:", gbefore);
	/* the filesystem ids follow the effective ones */
	assert_int_equal(syscall(UT_SYS(setfsuid), 1234), 0);
	assert_int_equal(syscall(UT_SYS(setfsgid), 1234), 0);
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
	assert_int_equal(syscall(UT_SYS(setgroups), 2, g), 0);
	assert_int_equal(syscall(UT_SYS(setresgid), 50, 50, 50), 0);
	assert_int_equal(syscall(UT_SYS(setresuid), 1000, 1000, 1000), 0);
	errno = 0;
	o->perm_err = syscall(UT_SYS(setuid), 0) == -1 ? errno : 0;
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
	assert_int_equal(syscall(UT_SYS(setreuid), -1, 1000), 0);
	assert_int_equal(geteuid(), 1000);
	assert_int_equal(syscall(UT_SYS(setregid), 5, -1),
			 -1); /* not privileged */
	assert_int_equal(errno, EPERM);
	assert_int_equal(syscall(UT_SYS(setresuid), 0, 0, 0), 0);
	assert_int_equal(syscall(UT_SYS(setgid), 9), 0);
	assert_int_equal(getgid(), 9);
	assert_int_equal(syscall(UT_SYS(setgid), 0), 0);
	assert_int_equal(syscall(UT_SYS(setuid), 0), 0);
}

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

#if defined(__i386__)
	/* five arguments: pread64(fd, buf, count, offset low, offset high) */
	assert_int_equal(syscall(SYS_pread64, fd, buf, 2, 4095L, 0L), 2);
	assert_memory_equal(buf, "ab", 2);

	/* six: mmap2(addr, len, prot, flags, fd, offset in pages) -- the
	 * offset is the sixth and selects the 'b' page */
	m = (void *)syscall(SYS_mmap2, NULL, 4096L, (long)PROT_READ,
			    (long)MAP_PRIVATE, (long)fd, 1L);
#else
	/* four arguments: pread64(fd, buf, count, offset) */
	assert_int_equal(syscall(SYS_pread64, fd, buf, 2, 4095L), 2);
	assert_memory_equal(buf, "ab", 2);

	/* six: mmap(addr, len, prot, flags, fd, offset) -- the offset is the
	 * sixth and selects the 'b' page */
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

#ifdef SYS_getuid32
/* ---- the legacy 16-bit calls of i386: answered as the kernel does ---- */

struct seen16 {
	uint16_t r, e, s, guard;
	uint16_t groups[4];
	long ngroups, e16, e32, legacy_e;
};

static void *thread_legacy16(void *arg)
{
	struct seen16 *o = arg;
	uint16_t set[3] = {7, 8, 9};

	/* 16-bit ids: only the low 16 bits count; 0xffff is "unchanged" */
	assert_int_equal(syscall(SYS_setgroups, 3, set), 0);
	assert_int_equal(syscall(SYS_setresgid, 0x10000 + 50, 0xffff, 0xffff),
			 0);
	assert_int_equal(getgid(), 50);
	assert_int_equal(getegid(), 0);
	/* an id above 0xffff reads as the overflow id 65534 */
	assert_int_equal(syscall(SYS_setresuid32, 0, 70000, 0), 0);
	o->e16 = syscall(SYS_geteuid);
	o->e32 = syscall(SYS_geteuid32);
	o->guard = 0xabcd;
	assert_int_equal(syscall(SYS_getresuid, &o->r, &o->e, &o->s), 0);
	assert_int_equal(syscall(SYS_setresuid32, 0, 0, 0), 0);
	assert_int_equal(syscall(SYS_setreuid, 0xffff, 1000), 0);
	o->legacy_e = (long)geteuid();
	o->ngroups = syscall(SYS_getgroups, 4, o->groups);
	return NULL;
}

static void test_legacy16_per_thread(void **state)
{
	struct seen16 o;
	pthread_t t;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(pthread_create(&t, NULL, thread_legacy16, &o), 0);
	pthread_join(t, NULL);
	assert_int_equal(o.e16, 65534);
	assert_int_equal(o.e32, 70000);
	assert_int_equal(o.r, 0);
	assert_int_equal(o.e, 65534);
	assert_int_equal(o.s, 0);
	assert_int_equal(o.guard, 0xabcd); /* 16-bit stores, not 32 */
	assert_int_equal(o.legacy_e, 1000);
	assert_int_equal(o.ngroups, 3);
	assert_int_equal(o.groups[0], 7);
	assert_int_equal(o.groups[1], 8);
	assert_int_equal(o.groups[2], 9);
	/* the calling thread kept its ids */
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getgid(), 0);
	assert_int_equal(syscall(SYS_getgroups, 0, NULL), 1);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get_numbers),
	    cmocka_unit_test(test_setfsuid_changes_nothing_real),
	    cmocka_unit_test(test_syscall_is_per_thread),
	    cmocka_unit_test(test_syscall_in_this_thread),
	    cmocka_unit_test(test_forwarded),
#ifdef SYS_getuid32
	    cmocka_unit_test(test_legacy16_per_thread),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
