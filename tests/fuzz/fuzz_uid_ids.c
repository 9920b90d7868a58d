/*
 * Fuzz target "uid_ids": the ids a parent hands to an exec'd image in
 * UID_WRAPPER_INITIAL_RUID ... _SGID, _GROUPS_COUNT and _GROUPS. An id is
 * accepted exactly when it is all decimal digits naming a value below
 * (uid_t)-1, and then as that value; a group list exactly when it holds
 * the announced count of such ids, separated by single commas.
 *
 * Input: byte 0 the announced count (0..255), then the value, whose
 * bytes are also tried as a single id.
 */
#include <string.h>

#include "fuzz_util.h"
#include "uwrap.h"

/* What an id should parse to: -1 if it is not one. */
static long long want_id(const char *s, size_t n)
{
	unsigned long long v = 0;
	size_t digits = 0;

	if (n == 0) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return -1;
		}
		/* leading zeros are allowed, and count for nothing */
		if (v != 0 || s[i] != '0') {
			if (++digits > 10) {
				return -1;
			}
			v = v * 10 + (unsigned)(s[i] - '0');
		}
	}
	return v < UINT32_MAX ? (long long)v : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	uint32_t count, v = 7, *groups;
	long long want;
	bool ok, want_ok = true;
	size_t n = 0, len;

	if (size < 1) {
		return 0;
	}
	count = data[0];
	len = size - 1;
	s = malloc(len + 1);
	memcpy(s, data + 1, len);
	s[len] = '\0';
	len = strlen(s);

	want = want_id(s, len);
	ok = uwrap_parse_id(s, &v);
	FUZZ_CHECK(ok == (want >= 0));
	FUZZ_CHECK(ok ? v == (uint32_t)want : v == 7);

	groups = malloc((count + 1) * sizeof(uint32_t));
	ok = uwrap_parse_groups(s, count, groups);
	/* the model: split at commas, each part an id, `count` parts */
	for (const char *p = s;; n++) {
		size_t part = strcspn(p, ",");

		if (n < count) {
			want = want_id(p, part);
			want_ok = want_ok && want >= 0;
			if (ok && want >= 0) {
				FUZZ_CHECK(groups[n] == (uint32_t)want);
			}
		}
		if (p[part] == '\0') {
			n++;
			break;
		}
		p += part + 1;
	}
	if (count == 0) {
		want_ok = len == 0;
	} else {
		want_ok = want_ok && n == count;
	}
	FUZZ_CHECK(ok == want_ok);
	free(groups);
	free(s);
	return 0;
}
