/*
 * Fuzz target "hosts": an input is NSS_WRAPPER_HOSTS (with
 * NSS_WRAPPER_HOSTS_ONLY=1, so nothing leaves the file). For the first 12
 * lines the parser accepts, each of their names (the first 3) must be
 * found by gethostbyname2_r() and getaddrinfo() with that line's address
 * among the answers, and every address answered (the first 16, for the
 * first 8 names: the check scans the file) must be one the file gives
 * that name; the address must be found by
 * gethostbyaddr_r() and getnameinfo() under a name the file gives it;
 * enumeration returns exactly the accepted IPv4 lines (IPv4-mapped ones
 * included), as glibc's files module does. Lookups that would be
 * answered without the file (numeric names, a trailing dot) are skipped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "fuzz_nss.h"

struct line {
	int family;
	unsigned char addr[16];
	char *names;
	size_t nnames, len;
};

struct seen {
	struct line *v;
	size_t n, cap;
	char *buf; /* room for any answer: never ERANGE */
	size_t len;
	unsigned scans; /* answers checked against the whole file, so far */
};

static size_t alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

static bool has_name(const struct line *l, const char *name)
{
	const char *p = l->names;

	for (size_t i = 0; i < l->nnames; i++, p = nwrap_str_next(p)) {
		if (strcasecmp(p, name) == 0) {
			return true;
		}
	}
	return false;
}

static bool collect(char *line, size_t lineno, void *ctx)
{
	struct seen *s = ctx;
	struct nwrap_hview h;
	const char *why, *last;
	struct line *l;

	(void)lineno;
	if (nwrap_parse_hosts(line, &h, &why) != 1) {
		return true;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		FUZZ_CHECK(s->v != NULL);
	}
	l = &s->v[s->n++];
	l->family = h.family;
	memcpy(l->addr, h.addr, sizeof(l->addr));
	l->nnames = h.nnames;
	last = h.names;
	for (size_t i = 0; i < h.nnames; i++) {
		last = nwrap_str_next(last);
	}
	l->len = (size_t)(last - h.names);
	l->names = malloc(l->len);
	memcpy(l->names, h.names, l->len);
	return true;
}

/* A name the library answers from the file: not numeric, no trailing dot. */
static bool from_file(const char *name)
{
	struct in_addr a4;
	struct in6_addr a6;
	size_t n = strlen(name);

	return n > 0 && n < 1000 && name[n - 1] != '.' &&
	       inet_aton(name, &a4) == 0 && inet_pton(AF_INET6, name, &a6) != 1;
}

/* An IPv6 address with a %scope, whatever the scope: getaddrinfo()
 * answers it without the file, as glibc does (the address, or EAI_NONAME
 * for a scope that names nothing); gethostbyname2() looks it up. */
static bool scoped_v6(const char *name)
{
	const char *pct = strchr(name, '%');
	char buf[INET6_ADDRSTRLEN + 1];
	struct in6_addr a6;

	if (pct == NULL || (size_t)(pct - name) >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, name, (size_t)(pct - name));
	buf[pct - name] = '\0';
	return inet_pton(AF_INET6, buf, &a6) == 1;
}

/* Whether line `l` gives `addr` as an address of `family`; for AF_INET,
 * an IPv4-mapped IPv6 line counts as its IPv4 address (as in glibc). */
static bool line_gives(const struct line *l, int family, const void *addr)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0,	   0,
						 0, 0, 0, 0, 0xff, 0xff};

	if (l->family == family) {
		return memcmp(l->addr, addr, alen(family)) == 0;
	}
	return family == AF_INET && l->family == AF_INET6 &&
	       memcmp(l->addr, mapped, 12) == 0 &&
	       memcmp(l->addr + 12, addr, 4) == 0;
}

/* A line with that name and address. */
static bool file_has(const struct seen *s, const char *name, int family,
		     const void *addr)
{
	for (size_t i = 0; i < s->n; i++) {
		if (line_gives(&s->v[i], family, addr) &&
		    has_name(&s->v[i], name)) {
			return true;
		}
	}
	return false;
}

/* The lines that carry `name` (one pass over the file), so that each
 * address of an answer is checked against them alone. */
struct named {
	const struct line **v;
	size_t n;
};

static void named_lines(const struct seen *s, const char *name,
			struct named *out)
{
	out->v = malloc((s->n + 1) * sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (has_name(&s->v[i], name)) {
			out->v[out->n++] = &s->v[i];
		}
	}
}

static bool named_give(const struct named *nl, int family, const void *addr)
{
	for (size_t i = 0; i < nl->n; i++) {
		if (line_gives(nl->v[i], family, addr)) {
			return true;
		}
	}
	return false;
}

static void check_name(struct seen *s, const struct line *l, const char *name)
{
	const struct nwrap_config *cfg = nwrap_config();
	struct hostent he, *res = NULL;
	struct addrinfo hints = {.ai_family = l->family}, *ai, *p;
	bool found = false, scan = s->scans++ < 8;
	struct named nl = {0};
	int herr = 0, rc, k;

	if (scan) {
		named_lines(s, name, &nl);
	}
	rc = nwrap_gethostbyname2_r(cfg, name, l->family, &he, s->buf, s->len,
				    &res, &herr);
	FUZZ_CHECK(rc == 0 && res == &he && he.h_addrtype == l->family);
	for (k = 0; he.h_addr_list[k] != NULL; k++) {
		found = found || memcmp(he.h_addr_list[k], l->addr,
					alen(l->family)) == 0;
		if (scan && k < 16) {
			FUZZ_CHECK(
			    named_give(&nl, l->family, he.h_addr_list[k]));
		}
	}
	FUZZ_CHECK(found);
	if (scoped_v6(name)) {
		free(nl.v);
		return;
	}

	rc = nwrap_getaddrinfo(name, NULL, &hints, &ai);
	FUZZ_CHECK(rc == 0);
	found = false;
	k = 0;
	for (p = ai; p != NULL; p = p->ai_next, k++) {
		const void *a =
		    l->family == AF_INET
			? (const void *)&(
			      (struct sockaddr_in *)(void *)p->ai_addr)
			      ->sin_addr
			: (const void *)&(
			      (struct sockaddr_in6 *)(void *)p->ai_addr)
			      ->sin6_addr;

		FUZZ_CHECK(p->ai_family == l->family);
		found = found || memcmp(a, l->addr, alen(l->family)) == 0;
		if (scan && k < 48) {
			FUZZ_CHECK(named_give(&nl, l->family, a));
		}
	}
	FUZZ_CHECK(found);
	nwrap_freeaddrinfo(ai);
	free(nl.v);
}

static void check_addr(struct seen *s, const struct line *l)
{
	struct hostent he, *res = NULL;
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	char host[1025];
	int herr = 0, rc;

	rc = nwrap_gethostbyaddr_r(l->addr, (socklen_t)alen(l->family),
				   l->family, &he, s->buf, s->len, &res, &herr);
	FUZZ_CHECK(rc == 0 && res == &he);
	if (s->scans++ < 16) {
		FUZZ_CHECK(file_has(s, he.h_name, l->family, l->addr));
	}

	if (l->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)(void *)&ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, l->addr, 4);
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)(void *)&ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, l->addr, 16);
		sl = sizeof(*sin6);
	}
	rc = nwrap_getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host),
			       NULL, 0, NI_NAMEREQD);
	/* a name longer than the buffer is EAI_OVERFLOW, as in glibc */
	FUZZ_CHECK(rc == 0 || rc == EAI_OVERFLOW);
	if (rc == 0 && s->scans++ < 24) {
		FUZZ_CHECK(file_has(s, host, l->family, l->addr));
	}
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
	struct seen s = {.len = size * 8 + 4096};
	size_t n = 0, v4 = 0;

	s.buf = malloc(s.len);
	fuzz_nss_load(NWRAP_HOSTS, data, size);
	fuzz_lines(data, size, NWRAP_LINE_MAX, collect, &s);

	for (size_t i = 0; i < s.n && i < 12; i++) {
		const struct line *l = &s.v[i];
		const char *name = l->names;

		for (size_t k = 0; k < l->nnames && k < 3;
		     k++, name = nwrap_str_next(name)) {
			if (from_file(name)) {
				check_name(&s, l, name);
			}
		}
		check_addr(&s, l);
	}

	/* As glibc's files module: the IPv4 lines, IPv4-mapped ones too. */
	for (size_t i = 0; i < s.n; i++) {
		v4 += s.v[i].family == AF_INET ||
		      IN6_IS_ADDR_V4MAPPED(
			  (const struct in6_addr *)(const void *)s.v[i].addr);
	}
	nwrap_sethostent(0);
	while (nwrap_gethostent() != NULL) {
		n++;
		FUZZ_CHECK(n <= v4);
	}
	nwrap_endhostent();
	FUZZ_CHECK(n == v4);

	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].names);
	}
	free(s.v);
	free(s.buf);
	return 0;
}
