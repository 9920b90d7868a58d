/*
 * Fuzz target "group": an input is NSS_WRAPPER_GROUP. Every group the
 * library's parser accepts (the first 64) must be found by name, with the
 * gid of its first line; by gid, a group with that gid; each of its
 * members (the first 8) must get its gid from getgrouplist(); enumeration
 * returns exactly the accepted lines.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_nss.h"

struct seen {
	size_t n, valid, maxgroups;
	char *name[64];
	char *buf; /* room for any line of the input (a pointer per member
		    * of two bytes or more): never ERANGE */
	size_t len;
	gid_t *groups;
};

static bool first_time(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->name[i], name) == 0) {
			return false;
		}
	}
	return true;
}

static void check_member(struct seen *s, const char *member, gid_t gid)
{
	int ng = (int)s->maxgroups;
	bool found = false;

	FUZZ_CHECK(nwrap_getgrouplist(member, 4294967294u, s->groups, &ng) >=
		   0);
	for (int i = 0; i < ng; i++) {
		found = found || s->groups[i] == gid;
	}
	FUZZ_CHECK(found);
}

static bool check_line(char *line, size_t lineno, void *ctx)
{
	struct seen *s = ctx;
	struct nwrap_grview want;
	struct group got, *res = NULL;
	const char *why;
	const char *m;
	int rc;

	(void)lineno;
	if (nwrap_parse_group(line, &want, &why) != 1) {
		return true;
	}
	s->valid++;
	if (s->n == CWRAP_ARRAY_SIZE(s->name)) {
		return true;
	}
	rc = nwrap_getgrnam_r(want.name, &got, s->buf, s->len, &res);
	FUZZ_CHECK(rc == 0 && res == &got);
	FUZZ_CHECK(strcmp(got.gr_name, want.name) == 0);
	if (first_time(s, want.name)) {
		FUZZ_CHECK(got.gr_gid == want.gid);
	}
	s->name[s->n++] = strdup(want.name);
	res = NULL;
	rc = nwrap_getgrgid_r(want.gid, &got, s->buf, s->len, &res);
	FUZZ_CHECK(rc == 0 && res == &got && got.gr_gid == want.gid);
	m = want.mem;
	for (size_t i = 0; i < want.nmem && i < 8; i++) {
		check_member(s, m, want.gid);
		m = nwrap_str_next(m);
	}
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
	struct seen s = {.len = size * 8 + 256, .maxgroups = size / 2 + 2};
	struct group gr, *res;
	size_t n = 0;
	int rc;

	s.buf = malloc(s.len);
	s.groups = malloc(s.maxgroups * sizeof(gid_t));
	fuzz_nss_load(NWRAP_GROUP, data, size);
	fuzz_lines(data, size, NWRAP_LINE_MAX, check_line, &s);

	nwrap_setgrent();
	while ((rc = nwrap_getgrent_r(&gr, s.buf, s.len, &res)) == 0) {
		n++;
		FUZZ_CHECK(n <= s.valid);
	}
	nwrap_endgrent();
	FUZZ_CHECK(rc == ENOENT && n == s.valid);

	if (memmem(data, size, "fuzz-absent", 11) == NULL) {
		res = &gr;
		rc = nwrap_getgrnam_r("fuzz-absent", &gr, s.buf, s.len, &res);
		FUZZ_CHECK(rc == 0 && res == NULL);
	}
	for (size_t i = 0; i < s.n; i++) {
		free(s.name[i]);
	}
	free(s.groups);
	free(s.buf);
	return 0;
}
