/*
 * Groups: getgrnam_r and friends over the backends (files, then module),
 * with glibc's semantics: 0 and a NULL result when not found, ERANGE for a
 * small buffer, static results for the non-reentrant calls, enumeration in
 * backend then file order.
 * Locks: nwrap_gr_enum (which backend the enumeration is in) and the two
 * static result buffers; each is taken before any cache lock.
 */
#include "nwrap_backend.h"

#include <errno.h>
#include <stdlib.h>

static pthread_mutex_t nwrap_gr_enum = PTHREAD_MUTEX_INITIALIZER;
static size_t nwrap_gr_enum_idx;
static bool nwrap_gr_enum_started;

static struct nwrap_static nwrap_gr_static = NWRAP_STATIC_INIT;
static struct group nwrap_gr_rec;
static struct nwrap_static nwrap_grent_static = NWRAP_STATIC_INIT;
static struct group nwrap_grent_rec;

void nwrap_grp_atfork_child(void)
{
	pthread_mutex_init(&nwrap_gr_enum, NULL);
	pthread_mutex_init(&nwrap_gr_static.lock, NULL);
	pthread_mutex_init(&nwrap_grent_static.lock, NULL);
}

struct nwrap_gr_key {
	const char *name;
	gid_t gid;
	struct group *rec;
	struct group *res;
};

static int nwrap_gr_lookup(const struct nwrap_gr_key *k, struct group *gr,
			   char *buf, size_t len)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	for (size_t i = 0; i < n; i++) {
		int rc = k->name != NULL
			     ? b[i]->getgrnam_r(b[i], k->name, gr, buf, len)
			     : b[i]->getgrgid_r(b[i], k->gid, gr, buf, len);

		if (rc != ENOENT) {
			return rc;
		}
	}
	return ENOENT;
}

int nwrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t len,
		     struct group **res)
{
	struct nwrap_gr_key k = {.name = name};
	int rc;

	*res = NULL;
	if (name == NULL) {
		return 0;
	}
	rc = nwrap_gr_lookup(&k, gr, buf, len);
	if (rc == 0) {
		*res = gr;
	}
	return rc == ENOENT ? 0 : rc;
}

int nwrap_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
		     struct group **res)
{
	struct nwrap_gr_key k = {.gid = gid};
	int rc;

	*res = NULL;
	rc = nwrap_gr_lookup(&k, gr, buf, len);
	if (rc == 0) {
		*res = gr;
	}
	return rc == ENOENT ? 0 : rc;
}

static int nwrap_gr_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_gr_key *k = ctx;
	int rc = nwrap_gr_lookup(k, k->rec, buf, len);

	k->res = rc == 0 ? k->rec : NULL;
	return rc;
}

static struct group *nwrap_gr_static_lookup(struct nwrap_gr_key *k)
{
	int rc;

	k->rec = &nwrap_gr_rec;
	nwrap_static_lock(&nwrap_gr_static);
	rc = nwrap_static_run(&nwrap_gr_static, nwrap_gr_fill, k);
	nwrap_static_unlock(&nwrap_gr_static);
	if (rc != 0 && rc != ENOENT) {
		errno = rc;
	}
	return k->res;
}

struct group *nwrap_getgrnam(const char *name)
{
	struct nwrap_gr_key k = {.name = name};

	if (name == NULL) {
		return NULL;
	}
	return nwrap_gr_static_lookup(&k);
}

struct group *nwrap_getgrgid(gid_t gid)
{
	struct nwrap_gr_key k = {.gid = gid};

	return nwrap_gr_static_lookup(&k);
}

void nwrap_setgrent(void)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	nwrap_mutex_lock(&nwrap_gr_enum);
	for (size_t i = 0; i < n; i++) {
		b[i]->setgrent(b[i]);
	}
	nwrap_gr_enum_idx = 0;
	nwrap_gr_enum_started = true;
	nwrap_mutex_unlock(&nwrap_gr_enum);
}

void nwrap_endgrent(void)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	nwrap_mutex_lock(&nwrap_gr_enum);
	for (size_t i = 0; i < n; i++) {
		b[i]->endgrent(b[i]);
	}
	nwrap_gr_enum_idx = 0;
	nwrap_gr_enum_started = false;
	nwrap_mutex_unlock(&nwrap_gr_enum);
}

int nwrap_getgrent_r(struct group *gr, char *buf, size_t len,
		     struct group **res)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);
	int rc = ENOENT;

	*res = NULL;
	nwrap_mutex_lock(&nwrap_gr_enum);
	if (!nwrap_gr_enum_started) {
		for (size_t i = 0; i < n; i++) {
			b[i]->setgrent(b[i]);
		}
		nwrap_gr_enum_idx = 0;
		nwrap_gr_enum_started = true;
	}
	while (nwrap_gr_enum_idx < n) {
		rc = b[nwrap_gr_enum_idx]->getgrent_r(b[nwrap_gr_enum_idx], gr,
						      buf, len);
		if (rc != ENOENT) {
			break;
		}
		nwrap_gr_enum_idx++;
	}
	nwrap_mutex_unlock(&nwrap_gr_enum);
	if (rc == 0) {
		*res = gr;
	}
	return rc;
}

static int nwrap_grent_fill(void *ctx, char *buf, size_t len)
{
	struct group **res = ctx;

	return nwrap_getgrent_r(&nwrap_grent_rec, buf, len, res);
}

struct group *nwrap_getgrent(void)
{
	struct group *res = NULL;
	int rc;

	nwrap_static_lock(&nwrap_grent_static);
	rc = nwrap_static_run(&nwrap_grent_static, nwrap_grent_fill, &res);
	nwrap_static_unlock(&nwrap_grent_static);
	if (rc != 0 && rc != ENOENT) {
		errno = rc;
	}
	return res;
}

/* `group` first, then every group listing `user`, each gid once. Under
 * the enumeration's lock: the module's groups are found by enumerating
 * them (nwrap_module.c). */
static int nwrap_groups_of(const char *user, gid_t group, struct nwrap_gids *g)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);
	int rc = nwrap_gids_add(g, group);

	nwrap_mutex_lock(&nwrap_gr_enum);
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = b[i]->initgroups(b[i], user, group, g);
		if (rc == ENOENT) {
			rc = 0;
		}
	}
	nwrap_mutex_unlock(&nwrap_gr_enum);
	return rc;
}

int nwrap_getgrouplist(const char *user, gid_t group, gid_t *groups,
		       int *ngroups)
{
	struct nwrap_gids g = {0};
	int rc = nwrap_groups_of(user, group, &g);
	int total, have = *ngroups > 0 ? *ngroups : 0;

	if (rc != 0) {
		nwrap_gids_free(&g);
		errno = rc;
		return -1;
	}
	total = (int)g.n;
	for (int i = 0; i < total && i < have; i++) {
		groups[i] = g.v[i];
	}
	nwrap_gids_free(&g);
	rc = total > have ? -1 : total;
	*ngroups = total;
	return rc;
}

int nwrap_initgroups(const char *user, gid_t group)
{
	struct nwrap_gids g = {0};
	int rc = nwrap_groups_of(user, group, &g);
	int err;

	if (rc != 0) {
		nwrap_gids_free(&g);
		errno = rc;
		return -1;
	}
	/* not libc_setgroups: uid_wrapper's setgroups when it is loaded */
	rc = setgroups((size_t)g.n, g.v);
	err = errno;
	nwrap_gids_free(&g);
	errno = err;
	return rc;
}
