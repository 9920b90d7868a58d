/*
 * uwrap_syscall: the syscall() numbers uid_wrapper answers itself, one
 * table line each. As with glibc, a raw set*id system call changes only
 * the calling thread (thread scope of uwrap_ids.c). Every number not in
 * the table goes to the real syscall() with its six arguments untouched
 * (uwrap_entry.c). Results follow syscall(): -1 and errno on failure.
 * No state.
 *
 * Where the kernel has *32 calls (i386, 32-bit arm), the plain numbers
 * are the legacy 16-bit ones (kernel/uid16.c): their ids are 16 bits wide,
 * 0xffff means "unchanged" (-1), an id above 0xffff reads as the overflow
 * id 65534, and group lists are arrays of 16-bit ids. They are answered
 * here the way the kernel answers them, per thread like the others.
 */
#include <errno.h>
#include <stdlib.h>
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

#ifdef SYS_getuid32
#define UWRAP_OVERFLOW_ID 65534u

/* A 16-bit id argument: the low 16 bits; 0xffff stands for -1. */
static uint32_t arg_id16(long x)
{
	uint16_t v = (uint16_t)(unsigned long)x;

	return v == 0xffffu ? UINT32_MAX : v;
}

static uint16_t id16(uint32_t id)
{
	return id > 0xffffu ? (uint16_t)UWRAP_OVERFLOW_ID : (uint16_t)id;
}

static long sys_getuid16(const long a[6])
{
	(void)a;
	return id16(uwrap_getuid());
}

static long sys_geteuid16(const long a[6])
{
	(void)a;
	return id16(uwrap_geteuid());
}

static long sys_getgid16(const long a[6])
{
	(void)a;
	return id16(uwrap_getgid());
}

static long sys_getegid16(const long a[6])
{
	(void)a;
	return id16(uwrap_getegid());
}

static long get_res16(bool gid, const long a[6])
{
	uint16_t *p[3];
	uint32_t v[3];
	int i;

	for (i = 0; i < 3; i++) {
		p[i] = (uint16_t *)(uintptr_t)a[i];
	}
	if (uwrap_get_res(gid, &v[0], &v[1], &v[2]) != 0) {
		return -1;
	}
	if (p[0] == NULL || p[1] == NULL || p[2] == NULL) {
		errno = EFAULT;
		return -1;
	}
	for (i = 0; i < 3; i++) {
		*p[i] = id16(v[i]);
	}
	return 0;
}

static long sys_getresuid16(const long a[6])
{
	return get_res16(false, a);
}

static long sys_getresgid16(const long a[6])
{
	return get_res16(true, a);
}

static long sys_setuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SET, arg_id16(a[0]),
			     0, 0);
}

static long sys_setgid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SET, arg_id16(a[0]),
			     0, 0);
}

static long sys_setreuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRE,
			     arg_id16(a[0]), arg_id16(a[1]), 0);
}

static long sys_setregid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRE, arg_id16(a[0]),
			     arg_id16(a[1]), 0);
}

static long sys_setresuid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, false, UWRAP_OP_SETRES,
			     arg_id16(a[0]), arg_id16(a[1]), arg_id16(a[2]));
}

static long sys_setresgid16(const long a[6])
{
	return uwrap_set_ids(UWRAP_THREAD, true, UWRAP_OP_SETRES,
			     arg_id16(a[0]), arg_id16(a[1]), arg_id16(a[2]));
}

static long sys_getgroups16(const long a[6])
{
	int n = (int)a[0];
	uint16_t *out = (uint16_t *)(uintptr_t)a[1];
	gid_t *tmp;
	int i, rc;

	if (n <= 0) {
		return uwrap_getgroups(n, NULL);
	}
	if (n > UWRAP_NGROUPS_MAX) {
		n = UWRAP_NGROUPS_MAX; /* no list is longer: same answer */
	}
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (tmp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	rc = uwrap_getgroups(n, out == NULL ? NULL : tmp);
	for (i = 0; i < rc; i++) {
		out[i] = id16(tmp[i]);
	}
	free(tmp);
	return rc;
}

static long sys_setgroups16(const long a[6])
{
	int n = (int)a[0];
	const uint16_t *in = (const uint16_t *)(uintptr_t)a[1];
	gid_t *tmp;
	long rc;
	int i;

	if (n <= 0 || n > UWRAP_NGROUPS_MAX || in == NULL) {
		/* The errors, in the kernel's order, are sys_setgroups's. */
		return sys_setgroups(a);
	}
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (tmp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		tmp[i] = arg_id16(in[i]);
	}
	rc = uwrap_setgroups(UWRAP_THREAD, (size_t)n, tmp);
	free(tmp);
	return rc;
}

static long sys_setfsuid16(const long a[6])
{
	(void)a;
	return id16(uwrap_self()->uid.e);
}

static long sys_setfsgid16(const long a[6])
{
	(void)a;
	return id16(uwrap_self()->gid.e);
}
#endif

static const struct {
	long nr;
	uwrap_sys_fn fn;
} uwrap_sys_table[] = {
#ifdef SYS_getuid32
    {SYS_getuid, sys_getuid16},	      {SYS_geteuid, sys_geteuid16},
    {SYS_getgid, sys_getgid16},	      {SYS_getegid, sys_getegid16},
    {SYS_getresuid, sys_getresuid16}, {SYS_getresgid, sys_getresgid16},
    {SYS_setuid, sys_setuid16},	      {SYS_setgid, sys_setgid16},
    {SYS_setreuid, sys_setreuid16},   {SYS_setregid, sys_setregid16},
    {SYS_setresuid, sys_setresuid16}, {SYS_setresgid, sys_setresgid16},
    {SYS_getgroups, sys_getgroups16}, {SYS_setgroups, sys_setgroups16},
    {SYS_setfsuid, sys_setfsuid16},   {SYS_setfsgid, sys_setfsgid16},
    {SYS_getuid32, sys_getuid},	      {SYS_geteuid32, sys_geteuid},
    {SYS_getgid32, sys_getgid},	      {SYS_getegid32, sys_getegid},
    {SYS_getresuid32, sys_getresuid}, {SYS_getresgid32, sys_getresgid},
    {SYS_setuid32, sys_setuid},	      {SYS_setgid32, sys_setgid},
    {SYS_setreuid32, sys_setreuid},   {SYS_setregid32, sys_setregid},
    {SYS_setresuid32, sys_setresuid}, {SYS_setresgid32, sys_setresgid},
    {SYS_getgroups32, sys_getgroups}, {SYS_setgroups32, sys_setgroups},
    {SYS_setfsuid32, sys_setfsuid},   {SYS_setfsgid32, sys_setfsgid},
#else
    {SYS_getuid, sys_getuid},	    {SYS_geteuid, sys_geteuid},
    {SYS_getgid, sys_getgid},	    {SYS_getegid, sys_getegid},
    {SYS_getresuid, sys_getresuid}, {SYS_getresgid, sys_getresgid},
    {SYS_setuid, sys_setuid},	    {SYS_setgid, sys_setgid},
    {SYS_setreuid, sys_setreuid},   {SYS_setregid, sys_setregid},
    {SYS_setresuid, sys_setresuid}, {SYS_setresgid, sys_setresgid},
    {SYS_getgroups, sys_getgroups}, {SYS_setgroups, sys_setgroups},
    {SYS_setfsuid, sys_setfsuid},   {SYS_setfsgid, sys_setfsgid},
#endif
};

/* Uninstrumented: called for every syscall(), also by a sanitizer
 * runtime that is not initialised yet (uwrap_entry.c). */
CWRAP_NO_SANITIZE uwrap_sys_fn uwrap_syscall_find(long nr)
{
	size_t i;

	for (i = 0; i < CWRAP_ARRAY_SIZE(uwrap_sys_table); i++) {
		if (uwrap_sys_table[i].nr == nr) {
			return uwrap_sys_table[i].fn;
		}
	}
	return NULL;
}
