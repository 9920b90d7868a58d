/*
 * Fuzz target "shadow": an input is NSS_WRAPPER_SHADOW. Every entry the
 * library's parser accepts (the first 64) must be found by name, with the
 * password and dates of its first line; enumeration returns exactly the
 * accepted lines.
 */
#include <string.h>

#include "fuzz_nss.h"

struct seen {
	size_t n, valid;
	char *name[64];
};

static bool check_line(char *line, size_t lineno, void *ctx)
{
	struct seen *s = ctx;
	struct spwd want, *got;
	const char *why;
	bool first = true;

	(void)lineno;
	if (nwrap_parse_shadow(line, &want, &why) != 1) {
		return true;
	}
	s->valid++;
	if (s->n == CWRAP_ARRAY_SIZE(s->name)) {
		return true;
	}
	got = nwrap_getspnam(want.sp_namp);
	FUZZ_CHECK(got != NULL);
	FUZZ_CHECK(strcmp(got->sp_namp, want.sp_namp) == 0);
	for (size_t i = 0; i < s->n; i++) {
		first = first && strcmp(s->name[i], want.sp_namp) != 0;
	}
	if (first) {
		FUZZ_CHECK(strcmp(got->sp_pwdp, want.sp_pwdp) == 0);
		FUZZ_CHECK(got->sp_lstchg == want.sp_lstchg);
		FUZZ_CHECK(got->sp_max == want.sp_max);
		FUZZ_CHECK(got->sp_expire == want.sp_expire);
	}
	s->name[s->n++] = strdup(want.sp_namp);
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	fuzz_nss_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = {0};
	size_t n = 0;

	fuzz_nss_load(NWRAP_SHADOW, data, size);
	fuzz_lines(data, size, NWRAP_LINE_MAX, check_line, &s);

	nwrap_setspent();
	while (nwrap_getspent() != NULL) {
		n++;
		FUZZ_CHECK(n <= s.valid);
	}
	nwrap_endspent();
	FUZZ_CHECK(n == s.valid);
	if (memmem(data, size, "fuzz-absent", 11) == NULL) {
		FUZZ_CHECK(nwrap_getspnam("fuzz-absent") == NULL);
	}
	for (size_t i = 0; i < s.n; i++) {
		free(s.name[i]);
	}
	return 0;
}
