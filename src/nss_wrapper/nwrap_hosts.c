/*
 * Hosts as hostent: gethostbyname*, gethostbyaddr*, the hosts enumeration
 * and gethostname(), from NSS_WRAPPER_HOSTS and NSS_WRAPPER_HOSTNAME.
 * A name matches every line that carries it (case-insensitive), as glibc's
 * files module does with "multi on": the first line gives h_name, the
 * addresses of the requested family come in file order. A name with one
 * trailing dot (a fully qualified DNS name) is looked up without it; h_name
 * is the file's. Numeric addresses need no line. A loaded NSS module that has
 * gethostbyname2_r and gethostbyaddr_r is asked before the file. Locks: the
 * static result buffers (taken first), then the hosts cache, which also holds
 * the enumeration position. gethostname() and uname() answer
 * NSS_WRAPPER_HOSTNAME as read from the configuration at the time of the call.
 */
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

static bool nwrap_has(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i], s) == 0) {
			return true;
		}
	}
	return false;
}

#define NWRAP_HOST_SMALL 16

/* The hostent for `name` in family `af` from the db: ENOENT if no line has
 * it, ENOMEM, ERANGE or 0. One pass over the index when the name has a
 * few lines (the arrays then live on the stack), two otherwise. */
static int nwrap_host_collect(const struct nwrap_db *db, const char *name,
			      int af, struct hostent *ret, char *buf,
			      size_t len)
{
	uint32_t recs[NWRAP_HOST_SMALL];
	unsigned char addrs_s[NWRAP_HOST_SMALL * 16];
	const char *aliases_s[4 * NWRAP_HOST_SMALL];
	struct nwrap_index_it it;
	size_t nrec = 0, nnames = 0, naddr = 0, nal = 0;
	unsigned char *addrs = addrs_s;
	const char **aliases = aliases_s;
	const char *hname = NULL;
	bool small;
	uint32_t i;
	int rc;

	for (i = nwrap_db_host_first(db, name, &it); i != NWRAP_NONE;
	     i = nwrap_db_host_next(db, name, &it)) {
		if (db->rec.h[i].family == af) {
			if (nrec < NWRAP_HOST_SMALL) {
				recs[nrec] = i;
			}
			nrec++;
			nnames += db->rec.h[i].nnames;
		}
	}
	if (nrec == 0) {
		return ENOENT;
	}
	small = nrec <= NWRAP_HOST_SMALL && nnames <= 4 * NWRAP_HOST_SMALL;
	if (!small) {
		addrs = malloc(nrec * 16);
		aliases = malloc(nnames * sizeof(char *));
		if (addrs == NULL || aliases == NULL) {
			free(addrs);
			free(aliases);
			return ENOMEM;
		}
		i = nwrap_db_host_first(db, name, &it);
	}
	for (size_t r = 0; r < nrec; r++) {
		const struct nwrap_hrec *h;
		const char *p;

		if (small) {
			h = &db->rec.h[recs[r]];
		} else {
			while (db->rec.h[i].family != af) {
				i = nwrap_db_host_next(db, name, &it);
			}
			h = &db->rec.h[i];
			i = nwrap_db_host_next(db, name, &it);
		}
		p = db->text + h->names;
		if (hname == NULL) {
			hname = p;
		}
		memcpy(addrs + naddr++ * nwrap_alen(af), h->addr,
		       nwrap_alen(af));
		for (size_t k = 0; k < h->nnames; k++, p = nwrap_str_next(p)) {
			if (strcmp(p, hname) != 0 &&
			    !nwrap_has(aliases, nal, p)) {
				aliases[nal++] = p;
			}
		}
	}
	rc = nwrap_copy_hostent(hname, aliases, nal, af, addrs, naddr, ret, buf,
				len);
	if (!small) {
		free(addrs);
		free(aliases);
	}
	return rc;
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

int nwrap_gethostbyname2_r(const struct nwrap_config *cfg, const char *name,
			   int af, struct hostent *ret, char *buf, size_t len,
			   struct hostent **res, int *h_errnop)
{
	unsigned char a[16];
	int rc = ENOENT;

	*res = NULL;
	if (af != AF_INET && af != AF_INET6) {
		return nwrap_host_result(EAFNOSUPPORT, ret, res, h_errnop);
	}
	if (name == NULL) {
		return nwrap_host_result(ENOENT, ret, res, h_errnop);
	}
	if (nwrap_maybe_numeric(name, af) && inet_pton(af, name, a) == 1) {
		rc = nwrap_copy_hostent(name, NULL, 0, af, a, 1, ret, buf, len);
	} else {
		const struct nwrap_db *db;
		char key[NWRAP_NAME_KEY];

		name = nwrap_name_key(name, key);
		if (cfg->module_enabled) {
			rc = nwrap_module_gethostbyname2_r(cfg->module, name,
							   af, ret, buf, len);
			if (rc != ENOENT) {
				return nwrap_host_result(rc, ret, res,
							 h_errnop);
			}
		}
		db = nwrap_cache_acquire_in(&nwrap_cache_hosts, cfg);
		if (db != NULL) {
			rc = nwrap_host_collect(db, name, af, ret, buf, len);
		}
		nwrap_cache_release(&nwrap_cache_hosts);
	}
	return nwrap_host_result(rc, ret, res, h_errnop);
}

/* One line as a hostent: its names and its one address. */
static int nwrap_host_line(const struct nwrap_db *db, uint32_t i,
			   struct hostent *ret, char *buf, size_t len)
{
	struct nwrap_hview h;
	const char **al;
	const char *p;
	int rc;

	nwrap_db_h(db, i, &h);
	al = malloc(h.nnames * sizeof(*al));
	if (al == NULL) {
		return ENOMEM;
	}
	p = nwrap_str_next(h.names);
	for (size_t k = 1; k < h.nnames; k++, p = nwrap_str_next(p)) {
		al[k - 1] = p;
	}
	rc = nwrap_copy_hostent(h.names, al, h.nnames - 1, h.family, h.addr, 1,
				ret, buf, len);
	free(al);
	return rc;
}

int nwrap_gethostbyaddr_r(const void *addr, socklen_t alen, int type,
			  struct hostent *ret, char *buf, size_t len,
			  struct hostent **res, int *h_errnop)
{
	const struct nwrap_db *db;
	int rc = ENOENT;

	*res = NULL;
	if (type != AF_INET && type != AF_INET6) {
		return nwrap_host_result(EAFNOSUPPORT, ret, res, h_errnop);
	}
	if (addr == NULL || alen != nwrap_alen(type)) {
		return nwrap_host_result(EINVAL, ret, res, h_errnop);
	}
	if (nwrap_config()->module_enabled) {
		rc = nwrap_module_gethostbyaddr_r(nwrap_config()->module, addr,
						  alen, type, ret, buf, len);
		if (rc != ENOENT) {
			return nwrap_host_result(rc, ret, res, h_errnop);
		}
	}
	db = nwrap_cache_acquire(&nwrap_cache_hosts);
	if (db != NULL) {
		uint32_t i = nwrap_db_host_by_addr(db, type, addr);

		if (i != NWRAP_NONE) {
			rc = nwrap_host_line(db, i, ret, buf, len);
		}
	}
	nwrap_cache_release(&nwrap_cache_hosts);
	return nwrap_host_result(rc, ret, res, h_errnop);
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
};

static int nwrap_hname_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_hctx *k = ctx;

	return nwrap_gethostbyname2_r(k->cfg, k->name, k->af, k->rec, buf, len,
				      &k->res, &k->herr);
}

static int nwrap_haddr_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_hctx *k = ctx;

	return nwrap_gethostbyaddr_r(k->addr, k->alen, k->af, k->rec, buf, len,
				     &k->res, &k->herr);
}

static struct hostent *nwrap_h_static(struct nwrap_static *s,
				      int (*fill)(void *, char *, size_t),
				      struct nwrap_hctx *k)
{
	int rc;

	nwrap_static_lock(s);
	rc = nwrap_static_run(s, fill, k);
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

static int nwrap_hent_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_hctx *k = ctx;
	struct nwrap_cache *c = &nwrap_cache_hosts;
	const struct nwrap_db *db = nwrap_cache_acquire(c);
	int rc = ENOENT;

	k->res = NULL;
	k->herr = HOST_NOT_FOUND;
	if (db != NULL && c->enum_pos < db->n) {
		rc = nwrap_host_line(db, (uint32_t)c->enum_pos, k->rec, buf,
				     len);
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
