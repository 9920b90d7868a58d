/*
 * The record file of RESOLV_WRAPPER_HOSTS, in upstream's format: one
 * record a line, `TYPE NAME VALUE...`, `#` comments:
 *     A      name address            AAAA  name address
 *     CNAME  alias target            PTR   name target
 *     NS     name nameserver         TXT   name text...
 *     SRV    _svc._proto.name target port [priority [weight]]
 *     URI    _svc.name uri [priority [weight]]
 *     MX     name exchanger [preference]
 *     SOA    name mname rname serial refresh retry expire minimum
 * Parsed once into an immutable db: every record with its RDATA already
 * encoded, and a hash index from the name (lower case, no trailing dot)
 * to the chain of its records, so a lookup costs the same for a file of
 * ten lines and one of ten thousand. A db has no lock: the cache
 * (rwrap_cache.c) swaps whole dbs under its own.
 */
#include "rwrap.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RWRAP_NONE UINT32_MAX

struct rwrap_slot {
	const char *key; /* NULL: empty */
	uint32_t first, last;
};

struct rwrap_db {
	struct rwrap_rr *rr;
	size_t n, cap;
	struct rwrap_slot *tab;
	size_t mask;
};

static uint32_t rwrap_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static struct rwrap_slot *rwrap_slot(const struct rwrap_db *db, const char *key)
{
	size_t i = rwrap_hash(key) & db->mask;

	while (db->tab[i].key != NULL && strcmp(db->tab[i].key, key) != 0) {
		i = (i + 1) & db->mask;
	}
	return &db->tab[i];
}

const struct rwrap_rr *rwrap_db_find(const struct rwrap_db *db, const char *key)
{
	const struct rwrap_slot *s;

	if (db == NULL || db->tab == NULL) {
		return NULL;
	}
	s = rwrap_slot(db, key);
	return s->key != NULL ? &db->rr[s->first] : NULL;
}

const struct rwrap_rr *rwrap_db_next(const struct rwrap_db *db,
				     const struct rwrap_rr *rr)
{
	return rr->next != RWRAP_NONE ? &db->rr[rr->next] : NULL;
}

size_t rwrap_db_count(const struct rwrap_db *db)
{
	return db != NULL ? db->n : 0;
}

void rwrap_db_free(struct rwrap_db *db)
{
	if (db == NULL) {
		return;
	}
	for (size_t i = 0; i < db->n; i++) {
		free(db->rr[i].name);
		free(db->rr[i].target);
		free(db->rr[i].rdata);
	}
	free(db->rr);
	free(db->tab);
	free(db);
}

static bool rwrap_index(struct rwrap_db *db)
{
	size_t size = 16;

	while (size < db->n * 2) {
		size <<= 1;
	}
	db->tab = calloc(size, sizeof(*db->tab));
	if (db->tab == NULL) {
		return false;
	}
	db->mask = size - 1;
	for (size_t i = 0; i < db->n; i++) {
		struct rwrap_slot *s = rwrap_slot(db, db->rr[i].name);

		db->rr[i].next = RWRAP_NONE;
		if (s->key == NULL) {
			s->key = db->rr[i].name;
			s->first = (uint32_t)i;
		} else {
			db->rr[s->last].next = (uint32_t)i;
		}
		s->last = (uint32_t)i;
	}
	return true;
}

/* A whole number in [0, max]. */
static bool rwrap_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (s == NULL || !isdigit((unsigned char)*s)) {
		return false;
	}
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && *out <= max;
}

struct rwrap_line {
	const char *path;
	unsigned lineno;
	char *tok[10];
	int ntok;
	const char *rest; /* text after the name (TXT) */
};

static bool rwrap_target(const struct rwrap_line *l, const char *t,
			 struct rwrap_buf *b, char **key)
{
	char k[256];

	if (!rwrap_name_valid(t)) {
		CWRAP_ERROR("%s:%u: '%s' is not a domain name, line ignored",
			    l->path, l->lineno, t);
		return false;
	}
	rwrap_put_name(b, t);
	rwrap_name_key(t, k, sizeof(k));
	*key = strdup(k);
	return *key != NULL;
}

/* Optional numbers at tok[first..], defaults in vals. */
static bool rwrap_opt_nums(const struct rwrap_line *l, int first, int count,
			   unsigned long *vals)
{
	for (int i = 0; i < count && first + i < l->ntok; i++) {
		if (!rwrap_num(l->tok[first + i], 65535, &vals[i])) {
			CWRAP_ERROR("%s:%u: '%s' is not a number 0..65535, "
				    "line ignored",
				    l->path, l->lineno, l->tok[first + i]);
			return false;
		}
	}
	if (l->ntok > first + count) {
		CWRAP_ERROR("%s:%u: extra '%s', line ignored", l->path,
			    l->lineno, l->tok[first + count]);
		return false;
	}
	return true;
}

/* The RDATA of one line into b; type in *type. */
static bool rwrap_rdata(const struct rwrap_line *l, uint16_t *type,
			struct rwrap_buf *b, char **target)
{
	const char *t = l->tok[0];
	int need = 3;
	unsigned long v[7] = {0};
	uint8_t addr[16];

#define RWRAP_NEED(n)                                                          \
	if (l->ntok < (n)) {                                                   \
		CWRAP_ERROR("%s:%u: %s needs %d fields, line ignored",         \
			    l->path, l->lineno, t, (n));                       \
		return false;                                                  \
	}
	RWRAP_NEED(need);
	if (strcasecmp(t, "A") == 0 || strcasecmp(t, "AAAA") == 0) {
		bool v6 = t[1] != '\0';

		*type = v6 ? ns_t_aaaa : ns_t_a;
		if (l->ntok > 3 ||
		    inet_pton(v6 ? AF_INET6 : AF_INET, l->tok[2], addr) != 1) {
			CWRAP_ERROR("%s:%u: '%s' is not an %s address, line "
				    "ignored",
				    l->path, l->lineno, l->tok[2],
				    v6 ? "IPv6" : "IPv4");
			return false;
		}
		rwrap_put_bytes(b, addr, v6 ? 16 : 4);
	} else if (strcasecmp(t, "CNAME") == 0 || strcasecmp(t, "PTR") == 0 ||
		   strcasecmp(t, "NS") == 0) {
		*type = toupper((unsigned char)t[0]) == 'C'   ? ns_t_cname
			: toupper((unsigned char)t[0]) == 'P' ? ns_t_ptr
							      : ns_t_ns;
		if (!rwrap_opt_nums(l, 3, 0, v) ||
		    !rwrap_target(l, l->tok[2], b, target)) {
			return false;
		}
	} else if (strcasecmp(t, "SRV") == 0) {
		*type = ns_t_srv;
		RWRAP_NEED(4);
		v[0] = 1;   /* priority: upstream's defaults */
		v[1] = 100; /* weight */
		if (!rwrap_num(l->tok[3], 65535, &v[2])) {
			CWRAP_ERROR("%s:%u: '%s' is not a port, line ignored",
				    l->path, l->lineno, l->tok[3]);
			return false;
		}
		if (!rwrap_opt_nums(l, 4, 2, v)) {
			return false;
		}
		rwrap_put16(b, (unsigned)v[0]);
		rwrap_put16(b, (unsigned)v[1]);
		rwrap_put16(b, (unsigned)v[2]);
		return rwrap_target(l, l->tok[2], b, target);
	} else if (strcasecmp(t, "URI") == 0) {
		*type = RWRAP_T_URI;
		v[0] = 1;
		v[1] = 100;
		if (!rwrap_opt_nums(l, 3, 2, v)) {
			return false;
		}
		rwrap_put16(b, (unsigned)v[0]);
		rwrap_put16(b, (unsigned)v[1]);
		rwrap_put_bytes(b, l->tok[2], strlen(l->tok[2]));
	} else if (strcasecmp(t, "MX") == 0) {
		*type = ns_t_mx;
		v[0] = 10; /* preference, when the line has none */
		if (!rwrap_opt_nums(l, 3, 1, v)) {
			return false;
		}
		rwrap_put16(b, (unsigned)v[0]);
		return rwrap_target(l, l->tok[2], b, target);
	} else if (strcasecmp(t, "TXT") == 0) {
		size_t n = strlen(l->rest);

		*type = ns_t_txt;
		/* one character-string per 255 bytes */
		do {
			size_t c = n > 255 ? 255 : n;

			rwrap_put8(b, (unsigned)c);
			rwrap_put_bytes(b, l->rest + strlen(l->rest) - n, c);
			n -= c;
		} while (n > 0);
	} else if (strcasecmp(t, "SOA") == 0) {
		char *ignored = NULL;
		bool ok;

		*type = ns_t_soa;
		RWRAP_NEED(9);
		for (int i = 0; i < 5; i++) {
			if (!rwrap_num(l->tok[4 + i], UINT32_MAX, &v[i])) {
				CWRAP_ERROR("%s:%u: '%s' is not a 32-bit "
					    "number, line ignored",
					    l->path, l->lineno, l->tok[4 + i]);
				return false;
			}
		}
		if (l->ntok > 9) {
			CWRAP_ERROR("%s:%u: extra '%s', line ignored", l->path,
				    l->lineno, l->tok[9]);
			return false;
		}
		ok = rwrap_target(l, l->tok[2], b, &ignored);
		free(ignored);
		ignored = NULL;
		ok = ok && rwrap_target(l, l->tok[3], b, &ignored);
		free(ignored);
		if (!ok) {
			return false;
		}
		for (int i = 0; i < 5; i++) {
			rwrap_put32(b, (uint32_t)v[i]);
		}
	} else {
		CWRAP_ERROR("%s:%u: unknown record type '%s', line ignored",
			    l->path, l->lineno, t);
		return false;
	}
#undef RWRAP_NEED
	return true;
}

/* Split a line (modified in place) into at most 10 fields; `orig` is a
 * copy of it, where the text after the name stays whole. */
static void rwrap_split(struct rwrap_line *l, char *line, char *orig)
{
	char *s = line;

	l->ntok = 0;
	l->rest = "";
	while (l->ntok < (int)CWRAP_ARRAY_SIZE(l->tok)) {
		while (*s == ' ' || *s == '\t' || *s == '\r') {
			s++;
		}
		if (*s == '\0') {
			break;
		}
		if (l->ntok == 2) {
			/* TXT: the text is the rest of the line, as written */
			char *r = orig + (s - line);
			char *e = r + strlen(r);

			while (e > r && isspace((unsigned char)e[-1])) {
				e--;
			}
			*e = '\0';
			l->rest = r;
		}
		l->tok[l->ntok++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\r') {
			s++;
		}
		if (*s != '\0') {
			*s++ = '\0';
		}
	}
}

static bool rwrap_add(struct rwrap_db *db, const struct rwrap_line *l)
{
	uint8_t rdata[RWRAP_MAXRDATA];
	struct rwrap_buf b = {.p = rdata, .cap = sizeof(rdata)};
	struct rwrap_rr rr = {0};
	char key[256];

	if (l->ntok < 3) {
		CWRAP_ERROR("%s:%u: expected TYPE NAME VALUE..., line ignored",
			    l->path, l->lineno);
		return true;
	}
	if (!rwrap_name_valid(l->tok[1]) || strcmp(l->tok[1], ".") == 0) {
		CWRAP_ERROR("%s:%u: '%s' is not a domain name, line ignored",
			    l->path, l->lineno, l->tok[1]);
		return true;
	}
	if (!rwrap_rdata(l, &rr.type, &b, &rr.target)) {
		free(rr.target);
		return true;
	}
	if (b.overflow) {
		CWRAP_ERROR("%s:%u: record too long, line ignored", l->path,
			    l->lineno);
		free(rr.target);
		return true;
	}
	rwrap_name_key(l->tok[1], key, sizeof(key));
	rr.rdlen = (uint16_t)b.len;
	rr.name = strdup(key);
	rr.rdata = malloc(b.len > 0 ? b.len : 1);
	if (db->n == db->cap) {
		size_t cap = db->cap != 0 ? db->cap * 2 : 64;
		struct rwrap_rr *p = realloc(db->rr, cap * sizeof(*p));

		if (p != NULL) {
			db->rr = p;
			db->cap = cap;
		}
	}
	if (rr.name == NULL || rr.rdata == NULL || db->n == db->cap) {
		free(rr.name);
		free(rr.rdata);
		free(rr.target);
		return false;
	}
	memcpy(rr.rdata, rdata, b.len);
	db->rr[db->n++] = rr;
	return true;
}

struct rwrap_db *rwrap_db_parse(const char *path, const char *text, size_t len)
{
	struct rwrap_db *db = calloc(1, sizeof(*db));
	struct rwrap_line l = {.path = path};
	const char *p = text, *end = text + len;
	char *line = NULL, *orig = NULL;
	size_t linecap = 0;

	if (db == NULL) {
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		char *hash;

		l.lineno++;
		if (n + 1 > linecap) {
			char *np = realloc(line, n + 1);
			char *no = realloc(orig, n + 1);

			line = np != NULL ? np : line;
			orig = no != NULL ? no : orig;
			if (np == NULL || no == NULL) {
				goto fail;
			}
			linecap = n + 1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL ? 1 : 0);
		if (strlen(line) != n) {
			CWRAP_ERROR("%s:%u: NUL byte, line ignored", path,
				    l.lineno);
			continue;
		}
		hash = strchr(line, '#');
		if (hash != NULL &&
		    (hash == line || isspace((unsigned char)hash[-1]))) {
			*hash = '\0';
		}
		memcpy(orig, line, strlen(line) + 1);
		rwrap_split(&l, line, orig);
		if (l.ntok == 0) {
			continue;
		}
		if (!rwrap_add(db, &l)) {
			goto fail;
		}
	}
	free(line);
	free(orig);
	if (!rwrap_index(db)) {
		rwrap_db_free(db);
		return NULL;
	}
	return db;
fail:
	free(line);
	free(orig);
	rwrap_db_free(db);
	return NULL;
}
