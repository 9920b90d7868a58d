/*
 * Hosts as hostent: gethostbyname*, gethostbyaddr*, the hosts enumeration
 * and gethostname(), from NSS_WRAPPER_HOSTS and NSS_WRAPPER_HOSTNAME.
 * The answers are glibc's files module's ("multi on"): a name matches every
 * line that carries it (case-insensitive); for AF_INET the IPv4 lines and
 * the IPv4-mapped IPv6 ones (as IPv4), for AF_INET6 the IPv6 lines; the
 * first line gives h_name, and every line its address and names, in file
 * order, repeats kept (see nwrap_hout). gethostbyaddr answers the first
 * line with the address, gethostent the IPv4 lines. A name with one trailing
 * dot (a fully qualified DNS name) is looked up without it; h_name is the
 * file's. Numeric addresses need no line. A loaded NSS module that has
 * gethostbyname2_r and gethostbyaddr_r is asked after the file, for a
 * name (in the family asked) or an address the file lacks. Every
 * answer costs its own size: the db indexes names (a chain of the lines of
 * each) and the first line of each address. Locks: the static result
 * buffers (taken first), then the hosts cache, which also holds the
 * enumeration position. gethostname() and uname() answer
 * NSS_WRAPPER_HOSTNAME as read from the configuration at the time of the call.
 */
#include "cwrap_platform.h"
#include "nwrap_backend.h"
#include "nwrap_libc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static struct nwrap_static nwrap_hname_static = NWRAP_STATIC_INIT;
static struct hostent nwrap_hname_rec;
static struct nwrap_static nwrap_haddr_static = NWRAP_STATIC_INIT;
static struct hostent nwrap_haddr_rec;
static struct nwrap_static nwrap_hent_static = NWRAP_STATIC_INIT;
static struct hostent nwrap_hent_rec;

void nwrap_hosts_atfork_child(void)
{
	pthread_mutex_init(&nwrap_hname_static.lock, NULL);
	pthread_mutex_init(&nwrap_haddr_static.lock, NULL);
	pthread_mutex_init(&nwrap_hent_static.lock, NULL);
}

static size_t nwrap_alen(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

static const unsigned char nwrap_v4mapped[12] = {0, 0, 0, 0, 0,    0,
						 0, 0, 0, 0, 0xff, 0xff};

bool nwrap_host_as(const struct nwrap_hrec *h, int af, unsigned char *addr)
{
	if (h->family == af) {
		memcpy(addr, h->addr, nwrap_alen(af));
		return true;
	}
	if (af == AF_INET && h->family == AF_INET6 &&
	    memcmp(h->addr, nwrap_v4mapped, 12) == 0) {
		memcpy(addr, h->addr + 12, 4);
		return true;
	}
	return false;
}

uint32_t nwrap_host_by_addr(const struct nwrap_db *db, int af,
			    const void *addr)
{
	uint32_t i = nwrap_db_host_by_addr(db, af, addr);

	if (af == AF_INET) {
		unsigned char m[16];
		uint32_t j;

		memcpy(m, nwrap_v4mapped, 12);
		memcpy(m + 12, addr, 4);
		j = nwrap_db_host_by_addr(db, AF_INET6, m);
		if (j < i) { /* NWRAP_NONE is the largest */
			i = j;
		}
	}
	return i;
}

/* The lines an answer is made of, in file order: the lines of a name, or
 * one line; only those of family `af` as nwrap_host_as() sees them. */
struct nwrap_hsrc {
	const struct nwrap_db *db;
	const char *name; /* NULL: line `one` alone */
	uint32_t one;
	int af;
	struct nwrap_index_it it;
};

static uint32_t nwrap_hsrc_next(struct nwrap_hsrc *s, bool first)
{
	unsigned char a[16];
	uint32_t i;

	if (s->name == NULL) {
		return first && nwrap_host_as(&s->db->rec.h[s->one], s->af, a)
			   ? s->one
			   : NWRAP_NONE;
	}
	i = first ? nwrap_db_host_first(s->db, s->name, &s->it)
		  : nwrap_db_host_next(s->db, s->name, &s->it);
	while (i != NWRAP_NONE && !nwrap_host_as(&s->db->rec.h[i], s->af, a)) {
		i = nwrap_db_host_next(s->db, s->name, &s->it);
	}
	return i;
}

/* An answer as glibc's files module gives it: the first line's canonical
 * name is h_name and its aliases the first aliases; each further line adds
 * its aliases, then its canonical name unless it is h_name (compared as
 * strcmp does), and its address. Nothing else is dropped, repeats included.
 * Made in two passes over the lines, each reading every name once: one
 * that counts (al NULL), one that writes. */
struct nwrap_hout {
	char **al;    /* alias pointers, or NULL: count only */
	char **addr;  /* address pointers */
	char *a;      /* next address bytes */
	char *s;      /* next string byte */
	int af;
	size_t nal;   /* aliases */
	size_t naddr; /* addresses */
	size_t bytes; /* alias bytes, NULs included */
	const char *hname;
};

static void nwrap_hout_alias(struct nwrap_hout *o, const char *p, size_t n)
{
	if (o->al != NULL) {
		memcpy(o->s, p, n);
		o->al[o->nal] = o->s;
		o->s += n;
	}
	o->nal++;
	o->bytes += n;
}

static void nwrap_hout_line(struct nwrap_hout *o, const struct nwrap_db *db,
			    uint32_t i)
{
	const struct nwrap_hrec *h = &db->rec.h[i];
	const char *p = db->text + h->names;
	size_t n0 = strlen(p) + 1;
	const char *q = p + n0;

	for (uint32_t k = 1; k < h->nnames; k++) {
		size_t n = strlen(q) + 1;

		nwrap_hout_alias(o, q, n);
		q += n;
	}
	if (o->hname == NULL) {
		o->hname = p;
	} else if (strcmp(p, o->hname) != 0) {
		nwrap_hout_alias(o, p, n0);
	}
	if (o->al != NULL) {
		nwrap_host_as(h, o->af, (unsigned char *)o->a);
		o->addr[o->naddr] = o->a;
		o->a += nwrap_alen(o->af);
	}
	o->naddr++;
}

/* The answer of `src` in `buf`: 0, ENOENT when it has no line, or ERANGE
 * with *need set to a length that is enough whatever the buffer's
 * alignment. The layout is nwrap_copy_hostent()'s: pointer arrays,
 * addresses, strings. */
static int nwrap_host_fill(struct nwrap_hsrc *src, struct hostent *ret,
			   char *buf, size_t len, size_t *need)
{
	const size_t ps = sizeof(char *);
	size_t alen = nwrap_alen(src->af), hlen, pad;
	struct nwrap_hout o = {.af = src->af};
	uint32_t i;

	for (i = nwrap_hsrc_next(src, true); i != NWRAP_NONE;
	     i = nwrap_hsrc_next(src, false)) {
		nwrap_hout_line(&o, src->db, i);
	}
	if (o.hname == NULL) {
		return ENOENT;
	}
	hlen = strlen(o.hname) + 1;
	*need = (o.nal + o.naddr + 2) * ps + o.naddr * alen + o.bytes + hlen;
	pad = (ps - ((uintptr_t)buf % ps)) % ps;
	if (buf == NULL || *need + pad > len) {
		*need += ps - 1;
		return ERANGE;
	}
	o.al = (char **)(void *)(buf + pad);
	o.addr = o.al + o.nal + 1;
	o.a = (char *)(o.addr + o.naddr + 1);
	o.s = o.a + o.naddr * alen;
	o.nal = o.naddr = o.bytes = 0;
	o.hname = NULL;
	for (i = nwrap_hsrc_next(src, true); i != NWRAP_NONE;
	     i = nwrap_hsrc_next(src, false)) {
		nwrap_hout_line(&o, src->db, i);
	}
	o.al[o.nal] = NULL;
	o.addr[o.naddr] = NULL;
	memcpy(o.s, o.hname, hlen);
	ret->h_name = o.s;
	ret->h_aliases = o.al;
	ret->h_addrtype = src->af;
	ret->h_length = (int)alen;
	ret->h_addr_list = o.addr;
	return 0;
}

/* Could `name` be an address of `af`? Most names start with a letter no
 * address can contain, which saves the parser. */
static bool nwrap_maybe_numeric(const char *name, int af)
{
	for (const char *p = name; *p != '\0'; p++) {
		char c = *p;

		if ((c >= '0' && c <= '9') || c == '.') {
			continue;
		}
		if (af == AF_INET6 && (c == ':' || (c >= 'a' && c <= 'f') ||
				       (c >= 'A' && c <= 'F'))) {
			continue;
		}
		return false;
	}
	return true;
}

/* rc 0 with *res set, or the h_errno/return convention of glibc. */
static int nwrap_host_result(int rc, struct hostent *ret, struct hostent **res,
			     int *h_errnop)
{
	switch (rc) {
	case 0:
		*res = ret;
		*h_errnop = 0;
		return 0;
	case ENOENT:
		*h_errnop = HOST_NOT_FOUND;
		return 0;
	default:
		*h_errnop = NETDB_INTERNAL;
		errno = rc;
		return rc;
	}
}

/* gethostbyname2_r, and in *need the length that holds a file answer
 * that did not fit (0 when unknown). */
static int nwrap_byname(const struct nwrap_config *cfg, const char *name,
			int af, struct hostent *ret, char *buf, size_t len,
			size_t *need, struct hostent **res, int *h_errnop)
{
	unsigned char a[16];
	int rc = ENOENT;

	*res = NULL;
	*need = 0;
	if (af != AF_INET && af != AF_INET6) {
		return nwrap_host_result(EAFNOSUPPORT, ret, res, h_errnop);
	}
	if (name == NULL) {
		return nwrap_host_result(ENOENT, ret, res, h_errnop);
	}
	if (nwrap_maybe_numeric(name, af) && inet_pton(af, name, a) == 1) {
		rc = nwrap_copy_hostent(name, NULL, 0, af, a, 1, ret, buf, len);
	} else {
		struct nwrap_hsrc src = {.af = af};
		char key[NWRAP_NAME_KEY];

		name = nwrap_name_key(name, key);
		src.db = nwrap_cache_acquire_in(&nwrap_cache_hosts, cfg);
		src.name = name;
		if (src.db != NULL) {
			rc = nwrap_host_fill(&src, ret, buf, len, need);
		}
		nwrap_cache_release(&nwrap_cache_hosts);
		if (rc == ENOENT && cfg->module_enabled) {
			rc = nwrap_module_gethostbyname2_r(cfg->module, name,
							   af, ret, buf, len);
		}
	}
	return nwrap_host_result(rc, ret, res, h_errnop);
}

/* A module's answer in a buffer grown while it does not fit (up to 4 MiB):
 * 0 with *buf to free, or its error. */
static int nwrap_module_grow(const struct nwrap_config *cfg, const char *name,
			     const void *addr, int af, struct hostent *he,
			     char **buf)
{
	int rc = ERANGE;

	*buf = NULL;
	for (size_t len = 1024; rc == ERANGE && len <= (4u << 20); len *= 2) {
		char *p = realloc(*buf, len);

		if (p == NULL) {
			rc = ENOMEM;
			break;
		}
		*buf = p;
		rc = name != NULL
			 ? nwrap_module_gethostbyname2_r(cfg->module, name, af,
							 he, p, len)
			 : nwrap_module_gethostbyaddr_r(cfg->module, addr,
							(socklen_t)nwrap_alen(af),
							af, he, p, len);
	}
	if (rc != 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

char *nwrap_host_canon(const struct nwrap_config *cfg, const char *name,
		       const void *addr, int af)
{
	struct nwrap_hsrc src = {.af = af};
	unsigned char a[16];
	char key[NWRAP_NAME_KEY];
	char *out = NULL;

	if (name != NULL && nwrap_maybe_numeric(name, af) &&
	    inet_pton(af, name, a) == 1) {
		return strdup(name);
	}
	if (name != NULL) {
		name = nwrap_name_key(name, key);
	}
	src.db = nwrap_cache_acquire_in(&nwrap_cache_hosts, cfg);
	if (src.db != NULL) {
		uint32_t i;

		if (name != NULL) {
			src.name = name;
			i = nwrap_hsrc_next(&src, true);
		} else {
			i = nwrap_host_by_addr(src.db, af, addr);
		}
		if (i != NWRAP_NONE) {
			out = strdup(src.db->text + src.db->rec.h[i].names);
		}
	}
	nwrap_cache_release(&nwrap_cache_hosts);
	if (out == NULL && cfg->module_enabled) {
		struct hostent he;
		char *buf;

		if (nwrap_module_grow(cfg, name, addr, af, &he, &buf) == 0) {
			out = strdup(he.h_name);
			free(buf);
		}
	}
	return out;
}

int nwrap_gethostbyname2_r(const struct nwrap_config *cfg, const char *name,
			   int af, struct hostent *ret, char *buf, size_t len,
			   struct hostent **res, int *h_errnop)
{
	size_t need;

	return nwrap_byname(cfg, name, af, ret, buf, len, &need, res,
			    h_errnop);
}

/* gethostbyaddr_r: the first line with the address (for AF_INET also an
 * IPv4-mapped IPv6 line, given as IPv4), as glibc's files module. */
static int nwrap_byaddr(const void *addr, socklen_t alen, int type,
			struct hostent *ret, char *buf, size_t len,
			size_t *need, struct hostent **res, int *h_errnop)
{
	struct nwrap_hsrc src = {.af = type};
	int rc = ENOENT;

	*res = NULL;
	*need = 0;
	if (type != AF_INET && type != AF_INET6) {
		return nwrap_host_result(EAFNOSUPPORT, ret, res, h_errnop);
	}
	if (addr == NULL || alen != nwrap_alen(type)) {
		return nwrap_host_result(EINVAL, ret, res, h_errnop);
	}
	src.db = nwrap_cache_acquire(&nwrap_cache_hosts);
	if (src.db != NULL) {
		src.one = nwrap_host_by_addr(src.db, type, addr);
		if (src.one != NWRAP_NONE) {
			rc = nwrap_host_fill(&src, ret, buf, len, need);
		}
	}
	nwrap_cache_release(&nwrap_cache_hosts);
	if (rc == ENOENT && nwrap_config()->module_enabled) {
		rc = nwrap_module_gethostbyaddr_r(nwrap_config()->module, addr,
						  alen, type, ret, buf, len);
	}
	return nwrap_host_result(rc, ret, res, h_errnop);
}

int nwrap_gethostbyaddr_r(const void *addr, socklen_t alen, int type,
			  struct hostent *ret, char *buf, size_t len,
			  struct hostent **res, int *h_errnop)
{
	size_t need;

	return nwrap_byaddr(addr, alen, type, ret, buf, len, &need, res,
			    h_errnop);
}

struct nwrap_hctx {
	const struct nwrap_config *cfg;
	const char *name;
	int af;
	const void *addr;
	socklen_t alen;
	struct hostent *rec;
	struct hostent *res;
	int herr;
	size_t need; /* what an answer that did not fit needs, or 0 */
};

static int nwrap_hname_fill(struct nwrap_hctx *k, char *buf, size_t len)
{
	return nwrap_byname(k->cfg, k->name, k->af, k->rec, buf, len, &k->need,
			    &k->res, &k->herr);
}

static int nwrap_haddr_fill(struct nwrap_hctx *k, char *buf, size_t len)
{
	return nwrap_byaddr(k->addr, k->alen, k->af, k->rec, buf, len,
			    &k->need, &k->res, &k->herr);
}

/* Doubling is for the module's answers, whose size is unknown; a file's
 * answer says what it needs, which may be more (a name on every line). */
#define NWRAP_HOST_DOUBLING_MAX (64u * 1024 * 1024)

/* The non-reentrant calls: fill the static buffer, grown to what the
 * answer needs (or doubled) while it does not fit. */
static struct hostent *nwrap_h_static(struct nwrap_static *s,
				      int (*fill)(struct nwrap_hctx *, char *,
						  size_t),
				      struct nwrap_hctx *k)
{
	int rc = ERANGE;

	nwrap_static_lock(s);
	for (;;) {
		size_t len = s->len == 0 ? 1024 : s->len * 2;
		char *p;

		k->need = 0;
		if (s->buf != NULL) {
			rc = fill(k, s->buf, s->len);
			if (rc != ERANGE ||
			    (k->need == 0 &&
			     s->len >= NWRAP_HOST_DOUBLING_MAX)) {
				break;
			}
		}
		if (k->need > len) {
			len = k->need;
		}
		p = realloc(s->buf, len);
		if (p == NULL) {
			rc = ENOMEM;
			break;
		}
		s->buf = p;
		s->len = len;
	}
	nwrap_static_unlock(s);
	h_errno = k->herr;
	if (rc != 0) {
		h_errno = NETDB_INTERNAL;
		errno = rc;
		return NULL;
	}
	return k->res;
}

struct hostent *nwrap_gethostbyname2(const struct nwrap_config *cfg,
				     const char *name, int af)
{
	struct nwrap_hctx k = {
	    .cfg = cfg, .name = name, .af = af, .rec = &nwrap_hname_rec};

	return nwrap_h_static(&nwrap_hname_static, nwrap_hname_fill, &k);
}

struct hostent *nwrap_gethostbyaddr(const void *addr, socklen_t alen, int type)
{
	struct nwrap_hctx k = {
	    .addr = addr, .alen = alen, .af = type, .rec = &nwrap_haddr_rec};

	return nwrap_h_static(&nwrap_haddr_static, nwrap_haddr_fill, &k);
}

void nwrap_sethostent(int stayopen)
{
	(void)stayopen;
	nwrap_cache_acquire(&nwrap_cache_hosts);
	nwrap_cache_hosts.enum_pos = 0;
	nwrap_cache_release(&nwrap_cache_hosts);
}

void nwrap_endhostent(void)
{
	nwrap_sethostent(0);
}

/* The next IPv4 line (IPv4-mapped IPv6 ones as IPv4), as glibc's files
 * module enumerates: it skips the other IPv6 lines. */
static int nwrap_hent_fill(struct nwrap_hctx *k, char *buf, size_t len)
{
	struct nwrap_cache *c = &nwrap_cache_hosts;
	struct nwrap_hsrc src = {.db = nwrap_cache_acquire_next(c),
				 .af = AF_INET};
	unsigned char a[16];
	int rc = ENOENT;

	k->res = NULL;
	k->herr = HOST_NOT_FOUND;
	while (src.db != NULL && c->enum_pos < src.db->n &&
	       !nwrap_host_as(&src.db->rec.h[c->enum_pos], AF_INET, a)) {
		c->enum_pos++;
	}
	if (src.db != NULL && c->enum_pos < src.db->n) {
		src.one = (uint32_t)c->enum_pos;
		rc = nwrap_host_fill(&src, k->rec, buf, len, &k->need);
		if (rc == 0) {
			c->enum_pos++;
			k->res = k->rec;
			k->herr = 0;
		}
	}
	nwrap_cache_release(c);
	return rc == ENOENT ? 0 : rc;
}

struct hostent *nwrap_gethostent(void)
{
	struct nwrap_hctx k = {.rec = &nwrap_hent_rec};

	return nwrap_h_static(&nwrap_hent_static, nwrap_hent_fill, &k);
}

const char *nwrap_name_key(const char *name, char *key)
{
	const char *dot = strrchr(name, '.');
	size_t n;

	if (dot == NULL || dot[1] != '\0') {
		return name; /* most names: no trailing dot */
	}
	n = (size_t)(dot - name) + 1;
	if (n < 2 || name[n - 2] == '.' || n > NWRAP_NAME_KEY) {
		return name;
	}
	memcpy(key, name, n - 1);
	key[n - 1] = '\0';
	return key;
}

/* As glibc: as much of the name as fits is copied, and a name that does not
 * fit with its NUL gives ENAMETOOLONG. */
int nwrap_gethostname(char *name, size_t len)
{
	const struct nwrap_config *c = nwrap_config();
	size_t n = c->hostname_len + 1;

	if (name == NULL) {
		errno = EFAULT;
		return -1;
	}
	memcpy(name, c->hostname, len < n ? len : n);
	if (n > len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The nodename is NSS_WRAPPER_HOSTNAME, cut to what the field holds (the
 * kernel's limit, HOST_NAME_MAX; a longer value was reported). */
int nwrap_uname(struct utsname *u)
{
	const struct nwrap_config *c = nwrap_config();
	size_t n = c->hostname_len;

	if (libc_uname(u) != 0) {
		return -1;
	}
	if (n > sizeof(u->nodename) - 1) {
		n = sizeof(u->nodename) - 1;
	}
	memcpy(u->nodename, c->hostname, n);
	u->nodename[n] = '\0';
	return 0;
}
