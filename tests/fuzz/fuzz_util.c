/*
 * Shared pieces of the fuzz targets: see fuzz_util.h. Single-threaded, as
 * the targets are.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *fuzz_dir;

FILE *fuzz_report;

__attribute__((constructor)) static void fuzz_report_init(void)
{
	fuzz_report = stderr;
}

#ifdef CWRAP_FUZZ_LIBFUZZER
static ssize_t fuzz_discard(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)size;
}
#endif

void fuzz_quiet(void)
{
#ifdef CWRAP_FUZZ_LIBFUZZER
	static const cookie_io_functions_t discard = {.write = fuzz_discard};
	FILE *f;

	if (getenv("CWRAP_FUZZ_VERBOSE") != NULL) {
		return;
	}
	f = fopencookie(NULL, "w", discard);
	if (f != NULL) {
		stderr = f;
	}
#endif
}

static void fuzz_cleanup(void)
{
	char cmd[4200];

	if (fuzz_dir != NULL && strstr(fuzz_dir, "/cwrap-fuzz-") != NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir);
		if (system(cmd) != 0) {
			fprintf(fuzz_report, "fuzz: could not remove %s\n",
				fuzz_dir);
		}
	}
}

const char *fuzz_path(const char *name)
{
	char *p;

	if (fuzz_dir == NULL) {
		/* in memory where there is /dev/shm: a file per input */
		char shm[] = "/dev/shm/cwrap-fuzz-XXXXXX";
		char tmp[] = "/tmp/cwrap-fuzz-XXXXXX";
		char *d = mkdtemp(shm);

		if (d == NULL && (d = mkdtemp(tmp)) == NULL) {
			fprintf(fuzz_report, "fuzz: mkdtemp: %s\n", strerror(errno));
			abort();
		}
		fuzz_dir = strdup(d);
		atexit(fuzz_cleanup);
	}
	p = malloc(strlen(fuzz_dir) + strlen(name) + 2);
	if (p == NULL) {
		abort();
	}
	sprintf(p, "%s/%s", fuzz_dir, name);
	return p;
}

void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		fprintf(fuzz_report, "%s: %s\n", path, strerror(errno));
		abort();
	}
	while (size > 0) {
		ssize_t n = write(fd, data, size);

		if (n <= 0) {
			fprintf(fuzz_report, "%s: %s\n", path,
				strerror(errno));
			abort();
		}
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* A line's copy of exactly len + 1 bytes. Under ASan, the end of one
 * buffer per input, the rest of it poisoned (a malloc per line, and its
 * page faults, cost more than the parse); otherwise a malloc of its own,
 * which valgrind watches as well. */
static char *fuzz_line_get(char *buf, size_t cap, size_t len)
{
#ifdef FUZZ_ASAN
	char *line = buf + ((cap - (len + 1)) & ~(size_t)7);

	ASAN_UNPOISON_MEMORY_REGION(line, len + 1);
	return line;
#else
	char *line = malloc(len + 1);

	(void)buf;
	(void)cap;
	if (line == NULL) {
		abort();
	}
	return line;
#endif
}

static void fuzz_line_put(char *line, size_t len)
{
#ifdef FUZZ_ASAN
	ASAN_POISON_MEMORY_REGION(line, len + 1);
#else
	(void)len;
	free(line);
#endif
}

void fuzz_lines(const uint8_t *data, size_t size, size_t max,
		bool (*fn)(char *line, size_t lineno, void *ctx), void *ctx)
{
	const uint8_t *p = data, *end = data + size;
	size_t lineno = 0, cap = size + 1;
	char *buf = NULL;

#ifdef FUZZ_ASAN
	buf = malloc(cap);
	if (buf == NULL) {
		abort();
	}
	ASAN_POISON_MEMORY_REGION(buf, cap);
#endif
	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len;
		char *line;
		bool more;

		if (eol == NULL) {
			eol = end;
		}
		lineno++;
		len = (size_t)(eol - p);
		if (len > 0 && p[len - 1] == '\r') {
			len--;
		}
		if (len <= max && memchr(p, '\0', len) == NULL) {
			line = fuzz_line_get(buf, cap, len);
			memcpy(line, p, len);
			line[len] = '\0';
			more = fn(line, lineno, ctx);
			fuzz_line_put(line, len);
			if (!more) {
				break;
			}
		}
		p = eol + 1;
	}
	free(buf);
}

uint8_t *fuzz_window(struct fuzz_window *w, size_t len, size_t max)
{
#ifdef FUZZ_ASAN
	size_t off;

	if (w->base == NULL) {
		w->base = malloc(max);
		w->max = max;
		if (w->base == NULL) {
			abort();
		}
	}
	FUZZ_CHECK(len <= w->max && max == w->max);
	/* the start on ASan's 8-byte granule: a poisoned prefix ends where
	 * a granule starts; the suffix may start anywhere in one */
	off = (w->max - len) & ~(size_t)7;
	ASAN_UNPOISON_MEMORY_REGION(w->base, w->max);
	ASAN_POISON_MEMORY_REGION(w->base, off);
	ASAN_POISON_MEMORY_REGION(w->base + off + len, w->max - off - len);
	return w->base + off;
#else
	/* a malloc of its own, which valgrind watches */
	FUZZ_CHECK(len <= max);
	free(w->base);
	w->base = malloc(len ? len : 1);
	if (w->base == NULL) {
		abort();
	}
	return w->base;
#endif
}

uint32_t fuzz_rand(struct fuzz_rng *r)
{
	r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(r->s >> 33);
}
