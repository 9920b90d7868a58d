/*
 * pam_matrix's password file, parsed, searched and rewritten: see
 * pmatrix.h. Pure functions over the text; no state.
 */
#include <stdlib.h>
#include <string.h>

#include "pmatrix.h"

bool pmatrix_next(const char *text, size_t len, size_t *pos, size_t *line,
		  struct pmatrix_entry *e, pmatrix_report_fn report, void *ctx)
{
	while (*pos < len) {
		const char *s = text + *pos;
		const char *nl = memchr(s, '\n', len - *pos);
		size_t n = nl != NULL ? (size_t)(nl - s) : len - *pos;
		const char *c1, *c2;

		*pos += n + (nl != NULL ? 1 : 0);
		++*line;
		if (n == 0 || s[0] == '#') {
			continue;
		}
		c1 = memchr(s, ':', n);
		c2 = c1 != NULL ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s))
				: NULL;
		const char *why = NULL;
		if (memchr(s, '\0', n) != NULL) {
			why = "a NUL byte in the line";
		} else if (c1 == NULL) {
			why = "not user:password:service (no ':')";
		} else if (c2 == NULL) {
			why = "not user:password:service (no service)";
		} else if (c1 == s) {
			why = "an empty user name";
		}
		if (why != NULL) {
			if (report != NULL) {
				report(ctx, *line, why);
			}
			continue;
		}
		e->user = s;
		e->user_len = (size_t)(c1 - s);
		e->password = c1 + 1;
		e->password_len = (size_t)(c2 - c1 - 1);
		e->service = c2 + 1;
		e->service_len = n - (size_t)(c2 + 1 - s);
		e->line = *line;
		return true;
	}
	return false;
}

bool pmatrix_find(const char *text, size_t len, const char *user,
		  struct pmatrix_entry *e, pmatrix_report_fn report, void *ctx)
{
	struct pmatrix_entry cur;
	size_t pos = 0, line = 0, ulen = strlen(user);
	bool found = false;

	while (pmatrix_next(text, len, &pos, &line, &cur, report, ctx)) {
		if (!found && cur.user_len == ulen &&
		    memcmp(cur.user, user, ulen) == 0) {
			*e = cur;
			found = true;
			if (report == NULL) {
				break;
			}
		}
	}
	return found;
}

bool pmatrix_password_ok(const char *pw)
{
	return strpbrk(pw, ":\n") == NULL;
}

char *pmatrix_replace(const char *text, size_t len,
		      const struct pmatrix_entry *e, const char *pw,
		      size_t *out_len)
{
	size_t head = (size_t)(e->password - text);
	size_t tail = len - head - e->password_len;
	size_t pwlen = strlen(pw);
	char *out = malloc(head + pwlen + tail + 1);

	if (out == NULL) {
		return NULL;
	}
	memcpy(out, text, head);
	memcpy(out + head, pw, pwlen);
	memcpy(out + head + pwlen, e->password + e->password_len, tail);
	*out_len = head + pwlen + tail;
	out[*out_len] = '\0';
	return out;
}
