/*
 * Pure parsers: one passwd(5), group(5), shadow(5) or hosts(5) line into a
 * record whose strings point into the line, which is cut in place. No
 * state, no locks, no allocation.
 */
#include "nwrap.h"

#include "cwrap_env.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool nwrap_blank(const char *line)
{
	while (*line == ' ' || *line == '\t') {
		line++;
	}
	return *line == '\0' || *line == '#';
}

/* Split `line` at ':' into at most `max` fields; returns the count found
 * (max + 1 if there were more). */
static size_t nwrap_split(char *line, char **field, size_t max)
{
	size_t n = 0;
	char *p = line;

	/* fields are short: a byte loop beats a strchr() call per field */
	field[n++] = p;
	for (; *p != '\0'; p++) {
		if (*p == ':') {
			if (n == max) {
				return max + 1;
			}
			*p = '\0';
			field[n++] = p + 1;
		}
	}
	return n;
}

/* A decimal id below UINT32_MAX (which is (uid_t)-1), digits only. */
static bool nwrap_parse_id(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!cwrap_parse_digits(s, strlen(s), UINT32_MAX - 1, &v)) {
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* shadow's numeric fields: empty means -1. */
static bool nwrap_parse_days(const char *s, long *out)
{
	char *end = NULL;

	if (*s == '\0') {
		*out = -1;
		return true;
	}
	if ((*s < '0' || *s > '9') && *s != '-') {
		return false;
	}
	errno = 0;
	*out = strtol(s, &end, 10);
	return errno == 0 && *end == '\0';
}

int nwrap_parse_passwd(char *line, struct passwd *pw, const char **why)
{
	char *f[7];
	size_t n;
	uint32_t uid, gid;

	if (nwrap_blank(line)) {
		return 0;
	}
	n = nwrap_split(line, f, 7);
	if (n != 7) {
		*why = n < 7 ? "missing field" : "too many fields";
		return -1;
	}
	if (*f[0] == '\0') {
		*why = "empty user name";
		return -1;
	}
	if (!nwrap_parse_id(f[2], &uid)) {
		*why = "bad uid";
		return -1;
	}
	if (!nwrap_parse_id(f[3], &gid)) {
		*why = "bad gid";
		return -1;
	}
	pw->pw_name = f[0];
	pw->pw_passwd = f[1];
	pw->pw_uid = uid;
	pw->pw_gid = gid;
	pw->pw_gecos = f[4];
	pw->pw_dir = f[5];
	pw->pw_shell = f[6];
	return 1;
}

int nwrap_parse_group(char *line, struct nwrap_grview *gr, const char **why)
{
	char *f[4];
	size_t n, m = 0;
	uint32_t gid;
	char *p, *w;

	if (nwrap_blank(line)) {
		return 0;
	}
	n = nwrap_split(line, f, 4);
	if (n == 3) {
		f[3] = f[2] + strlen(f[2]); /* "name:x:gid" */
		n = 4;
	}
	if (n != 4) {
		*why = n < 4 ? "missing field" : "too many fields";
		return -1;
	}
	if (*f[0] == '\0') {
		*why = "empty group name";
		return -1;
	}
	if (!nwrap_parse_id(f[2], &gid)) {
		*why = "bad gid";
		return -1;
	}
	/* pack the non-empty members: "a,,b," -> "a\0b\0", one pass: in
	 * place (only the commas change) up to the first empty member, then
	 * moved left over the empty ones */
	for (p = strchrnul(f[3], ','); *p != '\0'; p = strchrnul(p + 1, ',')) {
		if (p == f[3] || p[1] == ',' || p[1] == '\0') {
			break;
		}
		*p = '\0';
		m++;
	}
	if (*p == ',' && p != f[3]) {
		*p++ = '\0'; /* the end of a member, an empty one next */
		m++;
	}
	w = p;
	for (char *start = w; *p != '\0'; p++) {
		if (*p != ',') {
			*w++ = *p;
		} else if (w != start) {
			*w++ = '\0';
			start = w;
			m++;
		}
	}
	if (w != f[3] && w[-1] != '\0') {
		*w = '\0';
		m++;
	}
	gr->name = f[0];
	gr->passwd = f[1];
	gr->gid = gid;
	gr->mem = f[3];
	gr->nmem = m;
	return 1;
}

int nwrap_parse_shadow(char *line, struct spwd *sp, const char **why)
{
	char *f[9];
	size_t n;
	long v[6];
	char *end = NULL;

	if (nwrap_blank(line)) {
		return 0;
	}
	n = nwrap_split(line, f, 9);
	if (n != 9) {
		*why = n < 9 ? "missing field" : "too many fields";
		return -1;
	}
	if (*f[0] == '\0') {
		*why = "empty user name";
		return -1;
	}
	for (size_t i = 0; i < 6; i++) {
		if (!nwrap_parse_days(f[2 + i], &v[i])) {
			*why = "bad number";
			return -1;
		}
	}
	sp->sp_namp = f[0];
	sp->sp_pwdp = f[1];
	sp->sp_lstchg = v[0];
	sp->sp_min = v[1];
	sp->sp_max = v[2];
	sp->sp_warn = v[3];
	sp->sp_inact = v[4];
	sp->sp_expire = v[5];
	if (*f[8] == '\0') {
		sp->sp_flag = ~0UL;
	} else {
		errno = 0;
		sp->sp_flag = strtoul(f[8], &end, 10);
		if (errno != 0 || *end != '\0' || *f[8] < '0' || *f[8] > '9') {
			*why = "bad flag";
			return -1;
		}
	}
	return 1;
}

static bool nwrap_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* The next blank-separated word from *p: *p is moved to its start and its
 * length stored in *len; NULL at the end of the line. */
static char *nwrap_word(char **p, size_t *len)
{
	char *s = *p;
	size_t n = 0;

	while (nwrap_space(*s)) {
		s++;
	}
	*p = s;
	if (*s == '\0') {
		return NULL;
	}
	while (s[n] != '\0' && !nwrap_space(s[n])) {
		n++;
	}
	*len = n;
	return s;
}

int nwrap_parse_hosts(char *line, struct nwrap_hview *h, const char **why)
{
	char *c = strchr(line, '#');
	char *addr = NULL, *w = NULL, *names = NULL;
	size_t nn = 0;
	char *p = line;
	char *pct;

	if (c != NULL) {
		*c = '\0';
	}
	for (;;) {
		size_t len;

		if (nwrap_word(&p, &len) == NULL) {
			break;
		}
		if (addr == NULL) {
			addr = p;
			w = names = p + len + 1; /* names are packed here */
			if (p[len] == '\0') {
				break;
			}
			p[len] = '\0';
			p += len + 1;
			continue;
		}
		/* w <= p: the names move left, never over unread text */
		bool end = p[len] == '\0';

		memmove(w, p, len);
		w[len] = '\0';
		w += len + 1;
		nn++;
		if (end) {
			break;
		}
		p += len + 1;
	}
	if (addr == NULL) {
		return 0;
	}
	if (nn == 0) {
		*why = "address without a name";
		return -1;
	}
	/* a scope ("fe80::1%eth0") is not part of the address */
	pct = strchr(addr, '%');
	if (pct != NULL) {
		*pct = '\0';
	}
	memset(h->addr, 0, sizeof(h->addr));
	if (inet_pton(AF_INET, addr, h->addr) == 1) {
		h->family = AF_INET;
	} else if (inet_pton(AF_INET6, addr, h->addr) == 1) {
		h->family = AF_INET6;
	} else {
		*why = "bad address";
		return -1;
	}
	h->names = names;
	h->nnames = nn;
	return 1;
}

/* services(5): "name port/proto [alias...] [# comment]". The names are
 * packed from the start of the line, the protocol after them. */
int nwrap_parse_service(char *line, struct nwrap_svview *sv, const char **why)
{
	char *tok[3] = {NULL, NULL, NULL};
	char proto[32];
	char *c = strchr(line, '#');
	char *p = line, *w, *slash, *end = NULL;
	size_t nn = 0, plen;
	unsigned long port;

	if (c != NULL) {
		*c = '\0';
	}
	/* name and port/proto; the aliases stay where they are for now */
	for (size_t i = 0; i < 3; i++) {
		size_t len;

		if (nwrap_word(&p, &len) == NULL) {
			break;
		}
		tok[i] = p;
		if (i == 2 || p[len] == '\0') {
			break;
		}
		p[len] = '\0';
		p += len + 1;
	}
	if (tok[0] == NULL) {
		return 0;
	}
	if (tok[1] == NULL || (slash = strchr(tok[1], '/')) == NULL) {
		*why = "missing port/protocol";
		return -1;
	}
	*slash = '\0';
	plen = strlen(slash + 1);
	errno = 0;
	port = strtoul(tok[1], &end, 10);
	if (*tok[1] < '0' || *tok[1] > '9' || errno != 0 || *end != '\0' ||
	    port > 65535) {
		*why = "bad port";
		return -1;
	}
	if (plen == 0 || plen >= sizeof(proto)) {
		*why = "bad protocol";
		return -1;
	}
	memcpy(proto, slash + 1, plen + 1);
	/* pack: name, aliases, then the protocol; everything moves left */
	w = line;
	memmove(w, tok[0], strlen(tok[0]) + 1);
	w += strlen(w) + 1;
	nn = 1;
	p = tok[2];
	while (p != NULL && *p != '\0') {
		size_t len;
		bool last;

		if (nwrap_word(&p, &len) == NULL) {
			break;
		}
		last = p[len] == '\0';
		memmove(w, p, len);
		w[len] = '\0';
		w += len + 1;
		nn++;
		if (last) {
			break;
		}
		p += len + 1;
	}
	memcpy(w, proto, plen + 1);
	sv->names = line;
	sv->nnames = nn;
	sv->proto = w;
	sv->port = (uint16_t)port;
	return 1;
}

/* An id the parser checked (digits only, below UINT32_MAX). */
static uint32_t nwrap_checked_id(const char *s)
{
	uint32_t v = 0;

	for (; *s != '\0'; s++) {
		v = v * 10 + (uint32_t)(*s - '0');
	}
	return v;
}

void nwrap_view_passwd(const char *line, struct passwd *pw)
{
	const char *uid, *gid;

	pw->pw_name = (char *)(uintptr_t)line;
	pw->pw_passwd = (char *)(uintptr_t)nwrap_str_next(line);
	uid = nwrap_str_next(pw->pw_passwd);
	gid = nwrap_str_next(uid);
	pw->pw_uid = (uid_t)nwrap_checked_id(uid);
	pw->pw_gid = (gid_t)nwrap_checked_id(gid);
	pw->pw_gecos = (char *)(uintptr_t)nwrap_str_next(gid);
	pw->pw_dir = (char *)(uintptr_t)nwrap_str_next(pw->pw_gecos);
	pw->pw_shell = (char *)(uintptr_t)nwrap_str_next(pw->pw_dir);
}

void nwrap_view_shadow(const char *line, struct spwd *sp)
{
	long *num[6] = {&sp->sp_lstchg, &sp->sp_min,   &sp->sp_max,
			&sp->sp_warn,	&sp->sp_inact, &sp->sp_expire};
	const char *f;

	sp->sp_namp = (char *)(uintptr_t)line;
	sp->sp_pwdp = (char *)(uintptr_t)nwrap_str_next(line);
	f = nwrap_str_next(sp->sp_pwdp);
	for (size_t i = 0; i < 6; i++) {
		if (!nwrap_parse_days(f, num[i])) {
			*num[i] = -1;
		}
		f = nwrap_str_next(f);
	}
	sp->sp_flag = *f == '\0' ? ~0UL : strtoul(f, NULL, 10);
}
