/*
 * Fuzz target "priv_lists": the values of priv_wrapper's variables.
 * A list (PRIV_WRAPPER_PRCTL_DISABLE, PRIV_WRAPPER_SETRLIMIT_DISABLE)
 * names exactly what a plain model finds in it: split at '|' and ',',
 * blanks trimmed, empty items skipped, "ALL" for every name of its table;
 * the bits are a subset of the table's; every other item is reported as
 * unknown, once, in order, as written. Read through the environment, as
 * the library reads it, the same value gives the same bits, and
 * PRIV_WRAPPER_CHROOT_DISABLE is on exactly for "1".
 *
 * Input: byte 0 picks the table (bit 0: 0 prctl, 1 setrlimit); the rest,
 * up to a NUL, is the value.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pwrap.h"

#define MAX_UNKNOWN 64

struct seen {
	char *names[MAX_UNKNOWN];
	size_t n; /* may pass MAX_UNKNOWN: counted, not kept */
};

static void record(const char *name, size_t len, void *ctx)
{
	struct seen *s = ctx;

	FUZZ_CHECK(len > 0);
	FUZZ_CHECK(memchr(name, '|', len) == NULL);
	FUZZ_CHECK(memchr(name, ',', len) == NULL);
	FUZZ_CHECK(!isspace((unsigned char)name[0]));
	FUZZ_CHECK(!isspace((unsigned char)name[len - 1]));
	if (s->n < MAX_UNKNOWN) {
		s->names[s->n] = strndup(name, len);
	}
	s->n++;
}

static uint32_t model(const char *v, const struct pwrap_name *t, size_t n,
		      struct seen *unknown)
{
	uint32_t all = 0, bits = 0;
	size_t start = 0, len = strlen(v);

	for (size_t i = 0; i < n; i++) {
		all |= t[i].bits;
	}
	for (size_t i = 0; i <= len; i++) {
		size_t a = start, b = i;
		bool found = false;
		char *item;

		if (i < len && v[i] != '|' && v[i] != ',') {
			continue;
		}
		start = i + 1;
		while (a < b && isspace((unsigned char)v[a])) {
			a++;
		}
		while (b > a && isspace((unsigned char)v[b - 1])) {
			b--;
		}
		if (a == b) {
			continue;
		}
		item = strndup(v + a, b - a);
		if (strcmp(item, "ALL") == 0) {
			bits |= all;
			found = true;
		}
		for (size_t k = 0; k < n && !found; k++) {
			if (strcmp(item, t[k].name) == 0) {
				bits |= t[k].bits;
				found = true;
			}
		}
		if (!found) {
			if (unknown->n < MAX_UNKNOWN) {
				unknown->names[unknown->n] = item;
				item = NULL;
			}
			unknown->n++;
		}
		free(item);
	}
	return bits;
}

static void forget(struct seen *s)
{
	for (size_t i = 0; i < s->n && i < MAX_UNKNOWN; i++) {
		free(s->names[i]);
	}
}

/* "NAME=value" for putenv(), rewritten in place for each input */
#define VAR_MAX (70 * 1024)
static char chroot_var[VAR_MAX], prctl_var[VAR_MAX], rlimit_var[VAR_MAX];

static void set_var(char *buf, const char *name, const char *value)
{
	size_t n = strlen(name), len = strlen(value);

	if (n + len + 1 > VAR_MAX) {
		len = VAR_MAX - n - 1;
	}
	memcpy(buf, name, n);
	memcpy(buf + n, value, len);
	buf[n + len] = '\0';
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	setenv("PRIV_WRAPPER", "1", 1);
	set_var(chroot_var, "PRIV_WRAPPER_CHROOT_DISABLE=", "");
	set_var(prctl_var, "PRIV_WRAPPER_PRCTL_DISABLE=", "");
	set_var(rlimit_var, "PRIV_WRAPPER_SETRLIMIT_DISABLE=", "");
	putenv(chroot_var);
	putenv(prctl_var);
	putenv(rlimit_var);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pwrap_name *t;
	struct seen got = {0}, want = {0};
	struct pwrap_conf c;
	uint32_t all = 0, bits;
	size_t n;
	char *v;

	if (size < 1) {
		return 0;
	}
	t = (data[0] & 1) ? pwrap_rlimit_names : pwrap_prctl_names;
	n = (data[0] & 1) ? pwrap_rlimit_names_count : pwrap_prctl_names_count;
	v = strndup((const char *)data + 1,
		    size - 1 < VAR_MAX / 2 ? size - 1 : VAR_MAX / 2);
	for (size_t i = 0; i < n; i++) {
		all |= t[i].bits;
	}

	bits = pwrap_parse_list(v, t, n, record, &got);
	FUZZ_CHECK((bits & ~all) == 0);
	FUZZ_CHECK(bits == model(v, t, n, &want));
	FUZZ_CHECK(got.n == want.n);
	for (size_t i = 0; i < got.n && i < MAX_UNKNOWN; i++) {
		FUZZ_CHECK(strcmp(got.names[i], want.names[i]) == 0);
	}
	FUZZ_CHECK(pwrap_parse_list(v, t, n, NULL, NULL) == bits);

	/* as the library reads it (putenv() of buffers of our own: glibc's
	 * setenv() keeps every value it was ever given) */
	set_var(chroot_var, "PRIV_WRAPPER_CHROOT_DISABLE=", v);
	set_var(prctl_var,
		"PRIV_WRAPPER_PRCTL_DISABLE=", (data[0] & 1) ? "" : v);
	set_var(rlimit_var,
		"PRIV_WRAPPER_SETRLIMIT_DISABLE=", (data[0] & 1) ? v : "");
	pwrap_conf_read(&c);
	FUZZ_CHECK(c.enabled);
	FUZZ_CHECK(c.chroot_disabled == (strcmp(v, "1") == 0));
	FUZZ_CHECK(((data[0] & 1) ? c.rlimit : c.prctl) == bits);
	FUZZ_CHECK(((data[0] & 1) ? c.prctl : c.rlimit) == 0);

	forget(&got);
	forget(&want);
	free(v);
	return 0;
}
