/*
 * pam_matrix's password file, linked directly (pmatrix_logic): parsing,
 * the reports of bad lines, lookup, replacement, the atomic rewrite.
 */
#include "cwrap_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmatrix.h"

struct reports {
	int n;
	size_t lines[16];
	const char *why[16];
};

static void report(void *ctx, size_t line, const char *why)
{
	struct reports *r = ctx;

	if (r->n < 16) {
		r->lines[r->n] = line;
		r->why[r->n] = why;
	}
	r->n++;
}

static bool field(const char *p, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(p, want, len) == 0;
}

static void test_parse(void **state)
{
	const char *text = "# comment\n\nalice:secret:svc\nnocolon\n:pw:x\n"
			   "one:colon\nbob::a:b:c\ncarol:c:\nlast:l:end";
	struct pmatrix_entry e;
	struct reports r = {0};
	size_t pos = 0, line = 0;

	(void)state;
	assert_true(
	    pmatrix_next(text, strlen(text), &pos, &line, &e, report, &r));
	assert_true(field(e.user, e.user_len, "alice"));
	assert_true(field(e.password, e.password_len, "secret"));
	assert_true(field(e.service, e.service_len, "svc"));
	assert_int_equal(e.line, 3);
	assert_true(
	    pmatrix_next(text, strlen(text), &pos, &line, &e, report, &r));
	assert_true(field(e.user, e.user_len, "bob"));
	assert_true(field(e.password, e.password_len, ""));
	assert_true(field(e.service, e.service_len, "a:b:c"));
	assert_int_equal(e.line, 7);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.lines[0], 4);
	assert_string_equal(r.why[0], "not user:password:service (no ':')");
	assert_int_equal(r.lines[1], 5);
	assert_string_equal(r.why[1], "an empty user name");
	assert_int_equal(r.lines[2], 6);
	assert_string_equal(r.why[2], "not user:password:service (no service)");
	assert_true(
	    pmatrix_next(text, strlen(text), &pos, &line, &e, report, &r));
	assert_true(field(e.user, e.user_len, "carol"));
	assert_true(field(e.service, e.service_len, ""));
	/* the last line without its line end */
	assert_true(
	    pmatrix_next(text, strlen(text), &pos, &line, &e, report, &r));
	assert_true(field(e.service, e.service_len, "end"));
	assert_int_equal(e.line, 9);
	assert_false(
	    pmatrix_next(text, strlen(text), &pos, &line, &e, report, &r));
	assert_int_equal(r.n, 3);
}

static void test_nul_and_find(void **state)
{
	const char text[] = "a:b:c\nx\0y:p:s\nx:first:s\nx:second:s\n";
	struct pmatrix_entry e;
	struct reports r = {0};

	(void)state;
	assert_true(pmatrix_find(text, sizeof(text) - 1, "x", &e, report, &r));
	assert_true(field(e.password, e.password_len, "first"));
	assert_int_equal(r.n, 1);
	assert_int_equal(r.lines[0], 2);
	assert_string_equal(r.why[0], "a NUL byte in the line");
	assert_false(pmatrix_find(text, sizeof(text) - 1, "y", &e, NULL, NULL));
	assert_false(pmatrix_find(text, sizeof(text) - 1, "", &e, NULL, NULL));
	assert_false(pmatrix_find("", 0, "a", &e, NULL, NULL));
}

static void test_replace(void **state)
{
	const char *text = "# c\nalice:old:svc\nalice:other:x\nbob:pw:y";
	struct pmatrix_entry e;
	size_t len;
	char *out;

	(void)state;
	assert_true(pmatrix_find(text, strlen(text), "alice", &e, NULL, NULL));
	out =
	    pmatrix_replace(text, strlen(text), &e, "a much longer one", &len);
	assert_string_equal(out, "# c\nalice:a much longer one:svc\n"
				 "alice:other:x\nbob:pw:y");
	assert_int_equal(len, strlen(out));
	free(out);
	assert_true(pmatrix_find(text, strlen(text), "bob", &e, NULL, NULL));
	out = pmatrix_replace(text, strlen(text), &e, "", &len);
	assert_string_equal(out, "# c\nalice:old:svc\nalice:other:x\nbob::y");
	free(out);
	assert_true(pmatrix_password_ok("fine pass"));
	assert_false(pmatrix_password_ok("a:b"));
	assert_false(pmatrix_password_ok("a\nb"));
}

static void test_file(void **state)
{
	char *dir = cwrap_test_mkdtemp("pmatrix");
	char *path = cwrap_test_path(dir, "passdb");
	char *link = cwrap_test_path(dir, "link");
	struct stat st, st2;
	size_t len;
	char *text;

	(void)state;
	assert_null(pmatrix_read(path, &len));
	cwrap_test_write_file(path, "a:b:c\n");
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(symlink("passdb", link), 0);
	/* through the link: the file it names is replaced, the link kept */
	assert_int_equal(pmatrix_write(link, "x:y:z\n", 6), 0);
	text = pmatrix_read(path, &len);
	assert_string_equal(text, "x:y:z\n");
	assert_int_equal(len, 6);
	free(text);
	assert_int_equal(lstat(link, &st2), 0);
	assert_true(S_ISLNK(st2.st_mode));
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st2.st_mode & 07777, 0604);
	assert_true(st2.st_ino != st.st_ino);
	/* a directory is not a password file */
	assert_null(pmatrix_read(dir, &len));
	/* a file that is not there cannot be rewritten, nothing is left */
	assert_int_equal(pmatrix_write("/nonexistent/dir/passdb", "", 0), -1);
	cwrap_test_rmtree(dir);
	free(dir);
	free(path);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_nul_and_find),
	    cmocka_unit_test(test_replace),
	    cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
