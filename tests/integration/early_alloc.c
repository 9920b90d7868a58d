/*
 * early_alloc.so: a malloc that, like jemalloc, makes system calls
 * through syscall() from its own setup, under its own non-recursive lock,
 * at its first allocation, which a preloaded library's constructor (its
 * own, below) makes inside the dynamic loader, before or after the
 * wrappers' constructors depending on the order in LD_PRELOAD. The calls
 * are jemalloc's (its thread id; open, read and close a /proc file: read
 * and close are socket_wrapper's numbers) plus two of uid_wrapper's
 * (getuid, geteuid). A wrapper that allocated while answering one
 * would re-enter this malloc during its setup: that is reported on stderr
 * and the process exits 99 (jemalloc would deadlock). Memory comes from
 * one mapping, handed out in order and never reused.
 *
 * early_alloc_report() (dlsym) says what the setup saw:
 *   "setup=N uid=U" N calls made, U what syscall(SYS_getuid) answered.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARENA_SIZE (1UL << 30)
#define HDR 16

const char *early_alloc_report(void);
size_t malloc_usable_size(void *p);
void *memalign(size_t align, size_t n);
void *pvalloc(size_t n);

static char *arena;
static atomic_size_t used;
static atomic_flag setup_lock = ATOMIC_FLAG_INIT;
static atomic_int ready;
static __thread int in_setup;
static int setup_calls;
static long setup_uid = -1;
static char report[64];

static void die(const char *msg)
{
	if (write(2, msg, strlen(msg)) < 0) {
		/* nothing more to say */
	}
	_exit(99);
}

static void setup(void)
{
	char buf[64];
	long fd;

	if (in_setup) {
		die("early_alloc: malloc re-entered from a syscall() of its "
		    "own setup\n");
	}
	while (atomic_flag_test_and_set(&setup_lock)) {
		/* another thread sets up */
	}
	if (atomic_load(&ready)) {
		atomic_flag_clear(&setup_lock);
		return;
	}
	in_setup = 1;
	arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		die("early_alloc: mmap failed\n");
	}
	syscall(SYS_gettid);
	fd = syscall(SYS_openat, (long)AT_FDCWD,
		     (long)"/proc/sys/vm/overcommit_memory", (long)O_RDONLY);
	if (fd >= 0) {
		syscall(SYS_read, fd, (long)buf, (long)sizeof(buf));
		syscall(SYS_close, fd);
	}
	setup_uid = syscall(SYS_getuid);
	syscall(SYS_geteuid);
	setup_calls = 6;
	in_setup = 0;
	atomic_store(&ready, 1);
	atomic_flag_clear(&setup_lock);
}

static void *take(size_t n, size_t align)
{
	size_t start, off;

	if (!atomic_load(&ready)) {
		setup();
	}
	if (align < HDR) {
		align = HDR;
	}
	n = (n + HDR + align + 15) & ~(size_t)15;
	start = atomic_fetch_add(&used, n);
	if (start + n > ARENA_SIZE) {
		die("early_alloc: arena exhausted\n");
	}
	off = (start + HDR + align - 1) & ~(align - 1);
	*(size_t *)(arena + off - HDR) = n - (off - start);
	return arena + off;
}

void *malloc(size_t n)
{
	return take(n, HDR);
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t m)
{
	if (m != 0 && n > SIZE_MAX / m) {
		return NULL;
	}
	return take(n * m, HDR); /* fresh pages: already zero */
}

size_t malloc_usable_size(void *p)
{
	return p == NULL ? 0 : *(size_t *)((char *)p - HDR) - HDR;
}

void *realloc(void *p, size_t n)
{
	size_t old = malloc_usable_size(p);
	void *q = take(n, HDR);

	if (p != NULL) {
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

void *memalign(size_t align, size_t n)
{
	return take(n, align);
}

void *aligned_alloc(size_t align, size_t n)
{
	return take(n, align);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	*out = take(n, align);
	return 0;
}

void *valloc(size_t n)
{
	return take(n, 4096);
}

void *pvalloc(size_t n)
{
	return take((n + 4095) & ~(size_t)4095, 4096);
}

const char *early_alloc_report(void)
{
	snprintf(report, sizeof(report), "setup=%d uid=%ld", setup_calls,
		 setup_uid);
	return report;
}

/* The first allocation, from inside the dynamic loader. */
__attribute__((constructor)) static void early_alloc_start(void)
{
	void *volatile p = malloc(1); /* (not optimised away) */

	free(p);
}
