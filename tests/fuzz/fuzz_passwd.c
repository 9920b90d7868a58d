/*
 * Fuzz target "passwd": an input is NSS_WRAPPER_PASSWD. Every user the
 * library's parser accepts (the first 64) must be found by name, with the
 * fields of its first line; by uid, a user with that uid; enumeration must
 * return exactly the accepted lines; a name absent from the file is not
 * found.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_nss.h"

struct seen {
	size_t n, valid;
	char *name[64];
	char *buf; /* room for any line of the input: never ERANGE */
	size_t len;
};

static bool check_line(char *line, size_t lineno, void *ctx)
{
	struct seen *s = ctx;
	struct passwd want, got, *res = NULL;
	const char *why;
	int rc;

	(void)lineno;
	if (nwrap_parse_passwd(line, &want, &why) != 1) {
		return true;
	}
	s->valid++;
	if (s->n == CWRAP_ARRAY_SIZE(s->name)) {
		return true; /* counted for the enumeration only */
	}
	rc = nwrap_getpwnam_r(want.pw_name, &got, s->buf, s->len, &res);
	FUZZ_CHECK(rc == 0 && res == &got);
	FUZZ_CHECK(strcmp(got.pw_name, want.pw_name) == 0);
	{
		bool first = true;

		for (size_t i = 0; i < s->n; i++) {
			first = first && strcmp(s->name[i], want.pw_name) != 0;
		}
		if (first) {
			FUZZ_CHECK(got.pw_uid == want.pw_uid);
			FUZZ_CHECK(got.pw_gid == want.pw_gid);
			FUZZ_CHECK(strcmp(got.pw_dir, want.pw_dir) == 0);
			FUZZ_CHECK(strcmp(got.pw_shell, want.pw_shell) == 0);
			FUZZ_CHECK(strcmp(got.pw_gecos, want.pw_gecos) == 0);
		}
	}
	s->name[s->n++] = strdup(want.pw_name);
	res = NULL;
	rc = nwrap_getpwuid_r(want.pw_uid, &got, s->buf, s->len, &res);
	FUZZ_CHECK(rc == 0 && res == &got);
	FUZZ_CHECK(got.pw_uid == want.pw_uid);
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
	struct seen s = {.len = size + 256};
	struct passwd pw, *res;
	size_t n = 0;
	int rc;

	s.buf = malloc(s.len);
	fuzz_nss_load(NWRAP_PASSWD, data, size);
	fuzz_lines(data, size, NWRAP_LINE_MAX, check_line, &s);

	nwrap_setpwent();
	while ((rc = nwrap_getpwent_r(&pw, s.buf, s.len, &res)) == 0) {
		n++;
		FUZZ_CHECK(n <= s.valid);
	}
	nwrap_endpwent();
	FUZZ_CHECK(rc == ENOENT && n == s.valid);

	if (memmem(data, size, "fuzz-absent", 11) == NULL) {
		res = &pw;
		rc = nwrap_getpwnam_r("fuzz-absent", &pw, s.buf, s.len, &res);
		FUZZ_CHECK(rc == 0 && res == NULL);
	}
	for (size_t i = 0; i < s.n; i++) {
		free(s.name[i]);
	}
	free(s.buf);
	return 0;
}
