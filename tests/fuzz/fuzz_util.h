/*
 * Shared pieces of the fuzz targets (tests/fuzz/fuzz_*.c): a private
 * directory for the files a target writes, writing an input to a file,
 * splitting an input into lines the way the libraries do, and FUZZ_CHECK,
 * which aborts (a finding) when an answer breaks an invariant.
 *
 * Each target is built twice: with libFuzzer (tools/fuzz, clang), and with
 * fuzz_replay.c as its main() in every ordinary build, where ctest replays
 * its corpus and its regression inputs (tests/fuzz/corpus/<target>,
 * tests/fuzz/regress/<target>) through it.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Where the targets' own reports go: the process's stderr, whatever
 * fuzz_quiet() did to the library's. */
extern FILE *fuzz_report;

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(fuzz_report, "%s:%d: wrong answer: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* Under libFuzzer (tools/fuzz), from LLVMFuzzerInitialize(): what the
 * libraries print on stderr (an error line for each malformed line of a
 * rules or configuration file: a write(2) per line, and a log of
 * gigabytes in an hour) is formatted as usual, then dropped, unless
 * CWRAP_FUZZ_VERBOSE is set. Sanitizer and libFuzzer reports, and
 * FUZZ_CHECK's, still reach file descriptor 2. The replay programs of
 * ordinary builds keep every message. */
void fuzz_quiet(void);

/* A directory of this process's own, made at the first call and removed
 * at exit; `name` inside it (a static buffer per call site is the
 * caller's business: the result is malloc'd once and kept). */
const char *fuzz_path(const char *name);

/* Replace the file `path` with `size` bytes of `data`. */
void fuzz_write(const char *path, const uint8_t *data, size_t size);

/* The lines of `data` as the nss_wrapper and resolv_wrapper loaders see
 * them: split at '\n', one trailing '\r' dropped; `fn` gets each line as
 * a NUL-terminated copy it may cut, and its number (from 1). Lines with a
 * NUL byte or longer than `max` are skipped, as the loaders skip them.
 * Stops when fn returns false. */
void fuzz_lines(const uint8_t *data, size_t size, size_t max,
		bool (*fn)(char *line, size_t lineno, void *ctx), void *ctx);

/* `len` bytes (at most `max`, the same at every call) for the library to
 * write an answer in: a window on one allocation of `max` bytes made at
 * the first call, the rest of it poisoned under ASan, so that a byte
 * written past either end is reported as with a malloc of `len` bytes,
 * without a malloc per answer (their page faults made most of a
 * target's time); without ASan, a malloc of `len` bytes, for valgrind.
 * Valid until the next call. */
struct fuzz_window {
	uint8_t *base;
	size_t max;
};
uint8_t *fuzz_window(struct fuzz_window *w, size_t len, size_t max);

/* A small deterministic generator for the choices a target makes from
 * its input (which name to look up, and so on). */
struct fuzz_rng {
	uint64_t s;
};
uint32_t fuzz_rand(struct fuzz_rng *r);

#endif
