/*
 * Shadow entries from NSS_WRAPPER_SHADOW: getspnam and the enumeration,
 * both non-reentrant with static results as in glibc. Locks: the static
 * result buffer (taken first), then the shadow cache, which also holds
 * the enumeration position.
 */
#include "nwrap.h"

#include <errno.h>

static struct nwrap_static nwrap_sp_static = NWRAP_STATIC_INIT;
static struct spwd nwrap_sp_rec;

void nwrap_shadow_atfork_child(void)
{
	pthread_mutex_init(&nwrap_sp_static.lock, NULL);
}

struct nwrap_sp_ctx {
	const char *name; /* NULL: next entry of the enumeration */
	struct spwd *res;
};

static int nwrap_sp_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_sp_ctx *k = ctx;
	struct nwrap_cache *c = &nwrap_cache_shadow;
	const struct nwrap_db *db = k->name != NULL
					? nwrap_cache_acquire(c)
					: nwrap_cache_acquire_next(c);
	int rc = ENOENT;

	k->res = NULL;
	if (db != NULL && k->name != NULL) {
		uint32_t i = nwrap_db_by_name(db, k->name);

		if (i != NWRAP_NONE) {
			struct spwd v;

			nwrap_db_sp(db, i, &v);
			rc = nwrap_copy_spwd(&v, &nwrap_sp_rec, buf, len);
		}
	} else if (db != NULL && c->enum_pos < db->n) {
		struct spwd v;

		nwrap_db_sp(db, (uint32_t)c->enum_pos, &v);
		rc = nwrap_copy_spwd(&v, &nwrap_sp_rec, buf, len);
		if (rc == 0) {
			c->enum_pos++;
		}
	}
	nwrap_cache_release(c);
	if (rc == 0) {
		k->res = &nwrap_sp_rec;
	}
	return rc;
}

static struct spwd *nwrap_sp_get(const char *name)
{
	struct nwrap_sp_ctx k = {.name = name};
	int rc;

	nwrap_static_lock(&nwrap_sp_static);
	rc = nwrap_static_run(&nwrap_sp_static, nwrap_sp_fill, &k);
	nwrap_static_unlock(&nwrap_sp_static);
	if (rc != 0 && rc != ENOENT) {
		errno = rc;
	}
	return k.res;
}

struct spwd *nwrap_getspnam(const char *name)
{
	if (name == NULL) {
		return NULL;
	}
	return nwrap_sp_get(name);
}

struct spwd *nwrap_getspent(void)
{
	return nwrap_sp_get(NULL);
}

void nwrap_setspent(void)
{
	nwrap_cache_acquire(&nwrap_cache_shadow);
	nwrap_cache_shadow.enum_pos = 0;
	nwrap_cache_release(&nwrap_cache_shadow);
}

void nwrap_endspent(void)
{
	nwrap_setspent();
}
