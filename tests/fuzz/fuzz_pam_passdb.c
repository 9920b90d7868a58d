/*
 * Fuzz target "pam_passdb": an input is pam_matrix's password file. Every
 * line is either an entry (a user name without ':', a password without
 * ':', a service: the rest of the line) or reported in one line naming
 * its number and why; a user's lookup finds the first entry of that
 * user; a password change (pmatrix_replace) changes that entry's
 * password alone: every other byte kept, the same entries and reports
 * before and after.
 */
#include <string.h>

#include "fuzz_util.h"
#include "pmatrix.h"

#define MAXUSERS 16

struct walk {
	size_t reports, last_line, lines;
};

static void report(void *ctx, size_t line, const char *why)
{
	struct walk *w = ctx;

	/* one line, naming a line of the file, in order */
	FUZZ_CHECK(why != NULL && *why != '\0' && strchr(why, '\n') == NULL);
	FUZZ_CHECK(line >= 1 && line <= w->lines && line > w->last_line);
	w->last_line = line;
	w->reports++;
}

static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		n += text[i] == '\n';
	}
	return n + (len > 0 && text[len - 1] != '\n');
}

/* Every entry of the text, checked; *reports the bad lines. */
static size_t walk(const char *text, size_t len, struct pmatrix_entry *first,
		   size_t *nfirst, size_t *reports)
{
	struct walk w = {0, 0, count_lines(text, len)};
	struct pmatrix_entry e;
	size_t pos = 0, line = 0, n = 0, last = 0;

	*nfirst = 0;
	while (pmatrix_next(text, len, &pos, &line, &e, report, &w)) {
		FUZZ_CHECK(e.user >= text &&
			   e.service + e.service_len <= text + len);
		FUZZ_CHECK(e.user_len > 0);
		FUZZ_CHECK(memchr(e.user, ':', e.user_len) == NULL);
		FUZZ_CHECK(memchr(e.password, ':', e.password_len) == NULL);
		FUZZ_CHECK(memchr(e.service, '\n', e.service_len) == NULL);
		FUZZ_CHECK(memchr(e.user, '\0',
				  e.service + e.service_len - e.user) == NULL);
		FUZZ_CHECK(e.password == e.user + e.user_len + 1);
		FUZZ_CHECK(e.service == e.password + e.password_len + 1);
		FUZZ_CHECK(e.line > last && e.line <= w.lines);
		FUZZ_CHECK(e.line > w.last_line || w.reports == 0 ||
			   e.line != w.last_line);
		last = e.line;
		/* the first entry of each user, for the lookups */
		bool seen = false;
		for (size_t i = 0; i < *nfirst; i++) {
			seen |= first[i].user_len == e.user_len &&
				memcmp(first[i].user, e.user, e.user_len) == 0;
		}
		if (!seen && *nfirst < MAXUSERS) {
			first[(*nfirst)++] = e;
		}
		n++;
	}
	*reports = w.reports;
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct pmatrix_entry first[MAXUSERS], first2[MAXUSERS], e;
	size_t n, nfirst, reports, n2, nfirst2, reports2, len2;
	char user[4096];
	char *changed;

	n = walk(text, size, first, &nfirst, &reports);
	for (size_t i = 0; i < nfirst; i++) {
		if (first[i].user_len >= sizeof(user) ||
		    memchr(first[i].user, '\0', first[i].user_len) != NULL) {
			continue;
		}
		memcpy(user, first[i].user, first[i].user_len);
		user[first[i].user_len] = '\0';
		FUZZ_CHECK(pmatrix_find(text, size, user, &e, NULL, NULL));
		FUZZ_CHECK(e.user == first[i].user && e.line == first[i].line);
	}
	if (nfirst == 0) {
		return 0;
	}
	/* a new password for the last user seen first */
	e = first[nfirst - 1];
	FUZZ_CHECK(pmatrix_password_ok("n3w pass"));
	changed = pmatrix_replace(text, size, &e, "n3w pass", &len2);
	FUZZ_CHECK(changed != NULL);
	size_t head = (size_t)(e.password - text);
	size_t tail = size - head - e.password_len;
	FUZZ_CHECK(len2 == head + 8 + tail);
	FUZZ_CHECK(memcmp(changed, text, head) == 0);
	FUZZ_CHECK(memcmp(changed + head, "n3w pass", 8) == 0);
	FUZZ_CHECK(
	    memcmp(changed + head + 8, e.password + e.password_len, tail) == 0);
	n2 = walk(changed, len2, first2, &nfirst2, &reports2);
	FUZZ_CHECK(n2 == n && nfirst2 == nfirst && reports2 == reports);
	if (e.user_len < sizeof(user) &&
	    memchr(e.user, '\0', e.user_len) == NULL) {
		struct pmatrix_entry f;

		memcpy(user, e.user, e.user_len);
		user[e.user_len] = '\0';
		FUZZ_CHECK(pmatrix_find(changed, len2, user, &f, NULL, NULL));
		FUZZ_CHECK(f.password_len == 8 &&
			   memcmp(f.password, "n3w pass", 8) == 0);
		FUZZ_CHECK(f.service_len == e.service_len &&
			   memcmp(f.service, e.service, e.service_len) == 0);
	}
	free(changed);
	return 0;
}
