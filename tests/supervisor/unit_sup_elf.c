/*
 * Which programs the supervisor takes (src/common/cwrap_elf.c, linked directly): a
 * statically linked program and a Go program yes, a dynamic program, a
 * script, a shared library and anything that is not a whole ELF file of
 * this machine no; every prefix of a real program and corrupted headers
 * are read without a crash. The programs are given by the test's
 * environment (SUP_STATIC, SUP_GO: absent where not built); the fuzz
 * target's seeds (tests/fuzz/corpus/elf: minimal x86_64 headers of each
 * kind) are checked where they are this machine's.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_test.h"
#include "cwrap_supervise.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = cwrap_test_mkdtemp("sup_elf");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cwrap_test_rmtree(dir);
	free(dir);
	return 0;
}

static const char *kind_of_bytes(const char *name, const void *p, size_t n)
{
	char *path = cwrap_test_path(dir, name);
	FILE *f = fopen(path, "w");
	const char *k;

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
	k = cwrap_elf_kind(path);
	free(path);
	return k;
}

static void test_dynamic_and_others(void **state)
{
	(void)state;
	/* this test itself, the shell, the C library */
	assert_null(cwrap_elf_kind("/proc/self/exe"));
	assert_null(cwrap_elf_kind("/bin/sh"));
	assert_null(cwrap_elf_kind("/nonexistent/program"));
	assert_null(cwrap_elf_kind(dir));
	assert_null(kind_of_bytes("script", "#!/bin/sh\nexit 0\n", 17));
	assert_null(kind_of_bytes("empty", "", 0));
	assert_null(kind_of_bytes("magic", ELFMAG, SELFMAG));
}

static void test_static(void **state)
{
	const char *p = getenv("SUP_STATIC");

	(void)state;
	if (p == NULL || *p == '\0') {
		skip();
	}
	assert_string_equal(cwrap_elf_kind(p), "static");
}

static void test_go(void **state)
{
	const char *p = getenv("SUP_GO");

	(void)state;
	if (p == NULL || *p == '\0') {
		skip();
	}
	assert_string_equal(cwrap_elf_kind(p), "Go");
}

static void test_seeds(void **state)
{
	static const struct {
		const char *file, *kind;
	} seeds[] = {
	    {"static", "static"}, {"dynamic", NULL},  {"go_note", "Go"},
	    {"go_section", "Go"}, {"script", NULL},
	};
	const char *src = getenv("CWRAP_SOURCE_DIR");

	(void)state;
#ifndef __x86_64__
	skip(); /* (the seeds are x86_64's) */
#endif
	assert_non_null(src);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char *p;
		const char *k;

		assert_true(asprintf(&p, "%s/tests/fuzz/corpus/elf/%s", src,
				     seeds[i].file) > 0);
		k = cwrap_elf_kind(p);
		if (seeds[i].kind == NULL) {
			assert_null(k);
		} else {
			assert_non_null(k);
			assert_string_equal(k, seeds[i].kind);
		}
		free(p);
	}
}

/* Every prefix of a real program's first pages, and the same pages with
 * each header byte flipped: an answer (or none), never a crash. */
static void test_damaged(void **state)
{
	const char *p = getenv("SUP_STATIC");
	size_t len, n;
	char *data;

	(void)state;
	if (p == NULL || *p == '\0') {
		p = "/proc/self/exe";
	}
	data = cwrap_test_read_file(p, &len);
	assert_non_null(data);
	n = len < 8192 ? len : 8192;
	for (size_t i = 0; i < n; i += i < 256 ? 1 : 61) {
		(void)kind_of_bytes("prefix", data, i);
	}
	for (size_t i = 0; i < sizeof(Elf64_Ehdr) && i < len; i++) {
		char *copy = malloc(n);

		assert_non_null(copy);
		memcpy(copy, data, n);
		copy[i] = (char)~copy[i];
		(void)kind_of_bytes("flipped", copy, n);
		copy[i] = (char)0xff;
		(void)kind_of_bytes("flipped", copy, n);
		free(copy);
	}
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dynamic_and_others),
	    cmocka_unit_test(test_static),
	    cmocka_unit_test(test_go),
	    cmocka_unit_test(test_seeds),
	    cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
