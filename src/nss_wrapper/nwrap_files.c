/*
 * The files backend: users and groups from NSS_WRAPPER_PASSWD and
 * NSS_WRAPPER_GROUP through their caches. Each operation holds the cache
 * lock while it reads the db and copies the record out; the enumeration
 * position lives in the cache, under the same lock.
 */
#include "nwrap_backend.h"

#include <errno.h>

static int
nwrap_files_pw(uint32_t (*find)(const struct nwrap_db *, const void *),
	       const void *key, struct passwd *pw, char *buf, size_t len)
{
	const struct nwrap_db *db = nwrap_cache_acquire(&nwrap_cache_passwd);
	int rc = ENOENT;

	if (db != NULL) {
		uint32_t i = find(db, key);

		if (i != NWRAP_NONE) {
			struct passwd v;

			nwrap_db_pw(db, i, &v);
			rc = nwrap_copy_passwd(&v, pw, buf, len);
		}
	}
	nwrap_cache_release(&nwrap_cache_passwd);
	return rc;
}

static uint32_t nwrap_find_name(const struct nwrap_db *db, const void *key)
{
	return nwrap_db_by_name(db, key);
}

static uint32_t nwrap_find_id(const struct nwrap_db *db, const void *key)
{
	return nwrap_db_by_id(db, *(const uint32_t *)key);
}

static int nwrap_files_getpwnam_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  const char *name, struct passwd *pw,
				  char *buf, size_t len)
{
	return nwrap_files_pw(nwrap_find_name, name, pw, buf, len);
}

static int nwrap_files_getpwuid_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  uid_t uid, struct passwd *pw, char *buf,
				  size_t len)
{
	uint32_t id = uid;

	return nwrap_files_pw(nwrap_find_id, &id, pw, buf, len);
}

static void nwrap_files_rewind(struct nwrap_cache *c)
{
	nwrap_cache_acquire(c);
	c->enum_pos = 0;
	nwrap_cache_release(c);
}

static void nwrap_files_setpwent(const struct nwrap_backend *b CWRAP_UNUSED)
{
	nwrap_files_rewind(&nwrap_cache_passwd);
}

static int nwrap_files_getpwent_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  struct passwd *pw, char *buf, size_t len)
{
	struct nwrap_cache *c = &nwrap_cache_passwd;
	const struct nwrap_db *db = nwrap_cache_acquire_next(c);
	int rc = ENOENT;

	if (db != NULL && c->enum_pos < db->n) {
		struct passwd v;

		nwrap_db_pw(db, (uint32_t)c->enum_pos, &v);
		rc = nwrap_copy_passwd(&v, pw, buf, len);
		if (rc == 0) {
			c->enum_pos++;
		}
	}
	nwrap_cache_release(c);
	return rc;
}

static int
nwrap_files_gr(uint32_t (*find)(const struct nwrap_db *, const void *),
	       const void *key, struct group *gr, char *buf, size_t len)
{
	const struct nwrap_db *db = nwrap_cache_acquire(&nwrap_cache_group);
	int rc = ENOENT;

	if (db != NULL) {
		uint32_t i = find(db, key);

		if (i != NWRAP_NONE) {
			struct nwrap_grview v;

			nwrap_db_gr(db, i, &v);
			rc = nwrap_copy_group(&v, gr, buf, len);
		}
	}
	nwrap_cache_release(&nwrap_cache_group);
	return rc;
}

static int nwrap_files_getgrnam_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  const char *name, struct group *gr, char *buf,
				  size_t len)
{
	return nwrap_files_gr(nwrap_find_name, name, gr, buf, len);
}

static int nwrap_files_getgrgid_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  gid_t gid, struct group *gr, char *buf,
				  size_t len)
{
	uint32_t id = gid;

	return nwrap_files_gr(nwrap_find_id, &id, gr, buf, len);
}

static void nwrap_files_setgrent(const struct nwrap_backend *b CWRAP_UNUSED)
{
	nwrap_files_rewind(&nwrap_cache_group);
}

static int nwrap_files_getgrent_r(const struct nwrap_backend *b CWRAP_UNUSED,
				  struct group *gr, char *buf, size_t len)
{
	struct nwrap_cache *c = &nwrap_cache_group;
	const struct nwrap_db *db = nwrap_cache_acquire_next(c);
	int rc = ENOENT;

	if (db != NULL && c->enum_pos < db->n) {
		struct nwrap_grview v;

		nwrap_db_gr(db, (uint32_t)c->enum_pos, &v);
		rc = nwrap_copy_group(&v, gr, buf, len);
		if (rc == 0) {
			c->enum_pos++;
		}
	}
	nwrap_cache_release(c);
	return rc;
}

static int nwrap_files_initgroups(const struct nwrap_backend *b CWRAP_UNUSED,
				  const char *user, gid_t skip,
				  struct nwrap_gids *g)
{
	const struct nwrap_db *db = nwrap_cache_acquire(&nwrap_cache_group);
	struct nwrap_index_it it;
	int rc = 0;

	if (db != NULL) {
		for (uint32_t i = nwrap_db_member_first(db, user, &it);
		     i != NWRAP_NONE && rc == 0;
		     i = nwrap_db_member_next(db, user, &it)) {
			if (db->rec.gr[i].gid != skip) {
				rc = nwrap_gids_add(g, db->rec.gr[i].gid);
			}
		}
	}
	nwrap_cache_release(&nwrap_cache_group);
	return rc;
}

const struct nwrap_backend nwrap_files_backend = {
    .name = "files",
    .getpwnam_r = nwrap_files_getpwnam_r,
    .getpwuid_r = nwrap_files_getpwuid_r,
    .setpwent = nwrap_files_setpwent,
    .getpwent_r = nwrap_files_getpwent_r,
    .endpwent = nwrap_files_setpwent,
    .getgrnam_r = nwrap_files_getgrnam_r,
    .getgrgid_r = nwrap_files_getgrgid_r,
    .setgrent = nwrap_files_setgrent,
    .getgrent_r = nwrap_files_getgrent_r,
    .endgrent = nwrap_files_setgrent,
    .initgroups = nwrap_files_initgroups,
};
