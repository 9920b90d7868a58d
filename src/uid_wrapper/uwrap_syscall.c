/*
 * uwrap_syscall: the syscall() numbers uid_wrapper answers itself, one
 * table line each. As with glibc, a raw set*id system call changes only
 * the calling thread (thread scope of uwrap_ids.c). Every number not in
 * the table goes to the real syscall() with its six arguments untouched
 * (uwrap_entry.c). Results follow syscall(): -1 and errno on failure.
 * No state.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "uwrap.h"

#define ARG_ID(x) ((uint32_t)(unsigned long)(x))
#define ARG_PTR(x) ((uint32_t *)(uintptr_t)(x))

static long sys_getuid(const long a[6])
{
	(void)a;
	return uwrap_getuid();
}

static long sys_geteuid(const long a[6])
{
	(void)a;
	return uwrap_geteuid();
}

static long sys_getgid(const long a[6])
{
	(void)a;
	return uwrap_getgid();
}

static long sys_getegid(const long a[6])
{
	(void)a;
	return uwrap_getegid();
}

static long sys_getresuid(const long a[6])
{
	return uwrap_get_res(false, ARG_PTR(a[0]), ARG_PTR(a[1]),
			     ARG_PTR(a[2]));
}

static long sys_getresgid(const long a[6])
{
	return uwrap_get_res(true, ARG_PTR(a[0]), ARG_PTR(a[1]), ARG_PTR(a[2]));
}

static long sys_setuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SET, ARG_ID(a[0]), 0,
			     0);
}

static long sys_setgid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SET, ARG_ID(a[0]), 0,
			     0);
}

static long sys_setreuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRE, ARG_ID(a[0]),
			     ARG_ID(a[1]), 0);
}

static long sys_setregid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRE, ARG_ID(a[0]),
			     ARG_ID(a[1]), 0);
}

static long sys_setresuid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRES, ARG_ID(a[0]),
			     ARG_ID(a[1]), ARG_ID(a[2]));
}

static long sys_setresgid(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRES, ARG_ID(a[0]),
			     ARG_ID(a[1]), ARG_ID(a[2]));
}

static long sys_getgroups(const long a[6])
{
	/* The kernel takes an int count. */
	return uwrap_getgroups((int)a[0], (gid_t *)(uintptr_t)a[1]);
}

static long sys_setgroups(const long a[6])
{
	int n = (int)a[0];

	if (n < 0) {
		/* EPERM first for the unprivileged, as the kernel. */
		return uwrap_setgroups(UWRAP_THREAD,
				       (size_t)UWRAP_NGROUPS_MAX + 1, NULL);
	}
	return uwrap_setgroups(UWRAP_THREAD, (size_t)n,
			       (const gid_t *)(uintptr_t)a[1]);
}

/* setfsuid/setfsgid: the filesystem ids follow the effective ones here;
 * report them and change nothing (the real ones must not change). */
static long sys_setfsuid(const long a[6])
{
	(void)a;
	return uwrap_self()->uid.e;
}

static long sys_setfsgid(const long a[6])
{
	(void)a;
	return uwrap_self()->gid.e;
}

static const struct {
	long nr;
	uwrap_sys_fn fn;
} uwrap_sys_table[] = {
    {SYS_getuid, sys_getuid},	      {SYS_geteuid, sys_geteuid},
    {SYS_getgid, sys_getgid},	      {SYS_getegid, sys_getegid},
    {SYS_getresuid, sys_getresuid},   {SYS_getresgid, sys_getresgid},
    {SYS_setuid, sys_setuid},	      {SYS_setgid, sys_setgid},
    {SYS_setreuid, sys_setreuid},     {SYS_setregid, sys_setregid},
    {SYS_setresuid, sys_setresuid},   {SYS_setresgid, sys_setresgid},
    {SYS_getgroups, sys_getgroups},   {SYS_setgroups, sys_setgroups},
    {SYS_setfsuid, sys_setfsuid},     {SYS_setfsgid, sys_setfsgid},
#ifdef SYS_getuid32
    {SYS_getuid32, sys_getuid},	      {SYS_geteuid32, sys_geteuid},
    {SYS_getgid32, sys_getgid},	      {SYS_getegid32, sys_getegid},
    {SYS_getresuid32, sys_getresuid}, {SYS_getresgid32, sys_getresgid},
    {SYS_setuid32, sys_setuid},	      {SYS_setgid32, sys_setgid},
    {SYS_setreuid32, sys_setreuid},   {SYS_setregid32, sys_setregid},
    {SYS_setresuid32, sys_setresuid}, {SYS_setresgid32, sys_setresgid},
    {SYS_getgroups32, sys_getgroups}, {SYS_setgroups32, sys_setgroups},
    {SYS_setfsuid32, sys_setfsuid},   {SYS_setfsgid32, sys_setfsgid},
#endif
};

uwrap_sys_fn uwrap_syscall_find(long nr)
{
	size_t i;

	for (i = 0; i < CWRAP_ARRAY_SIZE(uwrap_sys_table); i++) {
		if (uwrap_sys_table[i].nr == nr) {
			return uwrap_sys_table[i].fn;
		}
	}
	return NULL;
}
