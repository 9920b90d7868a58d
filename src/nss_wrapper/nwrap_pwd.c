/*
 * Users: getpwnam_r and friends over the backends (files, then module),
 * with glibc's semantics: 0 and a NULL result when not found, ERANGE for a
 * small buffer, static results for the non-reentrant calls, enumeration in
 * backend then file order.
 * Locks: nwrap_pw_enum (which backend the enumeration is in) and the two
 * static result buffers; each is taken before any cache lock.
 */
#include "nwrap_backend.h"

#include <errno.h>

static pthread_mutex_t nwrap_pw_enum = PTHREAD_MUTEX_INITIALIZER;
static size_t nwrap_pw_enum_idx;
static bool nwrap_pw_enum_started;

static struct nwrap_static nwrap_pw_static = NWRAP_STATIC_INIT;
static struct passwd nwrap_pw_rec;
static struct nwrap_static nwrap_pwent_static = NWRAP_STATIC_INIT;
static struct passwd nwrap_pwent_rec;

void nwrap_pwd_atfork_child(void)
{
	pthread_mutex_init(&nwrap_pw_enum, NULL);
	pthread_mutex_init(&nwrap_pw_static.lock, NULL);
	pthread_mutex_init(&nwrap_pwent_static.lock, NULL);
}

struct nwrap_pw_key {
	const char *name;
	uid_t uid;
	struct passwd *rec;
	struct passwd *res;
};

static int nwrap_pw_lookup(const struct nwrap_pw_key *k, struct passwd *pw,
			   char *buf, size_t len)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	for (size_t i = 0; i < n; i++) {
		int rc = k->name != NULL
			     ? b[i]->getpwnam_r(b[i], k->name, pw, buf, len)
			     : b[i]->getpwuid_r(b[i], k->uid, pw, buf, len);

		if (rc != ENOENT) {
			return rc;
		}
	}
	return ENOENT;
}

int nwrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
		     struct passwd **res)
{
	struct nwrap_pw_key k = {.name = name};
	int rc;

	*res = NULL;
	if (name == NULL) {
		return 0;
	}
	rc = nwrap_pw_lookup(&k, pw, buf, len);
	if (rc == 0) {
		*res = pw;
	}
	return rc == ENOENT ? 0 : rc;
}

int nwrap_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
		     struct passwd **res)
{
	struct nwrap_pw_key k = {.uid = uid};
	int rc;

	*res = NULL;
	rc = nwrap_pw_lookup(&k, pw, buf, len);
	if (rc == 0) {
		*res = pw;
	}
	return rc == ENOENT ? 0 : rc;
}

static int nwrap_pw_fill(void *ctx, char *buf, size_t len)
{
	struct nwrap_pw_key *k = ctx;
	int rc = nwrap_pw_lookup(k, k->rec, buf, len);

	k->res = rc == 0 ? k->rec : NULL;
	return rc;
}

static struct passwd *nwrap_pw_static_lookup(struct nwrap_pw_key *k)
{
	int rc;

	k->rec = &nwrap_pw_rec;
	nwrap_static_lock(&nwrap_pw_static);
	rc = nwrap_static_run(&nwrap_pw_static, nwrap_pw_fill, k);
	nwrap_static_unlock(&nwrap_pw_static);
	if (rc != 0 && rc != ENOENT) {
		errno = rc;
	}
	return k->res;
}

struct passwd *nwrap_getpwnam(const char *name)
{
	struct nwrap_pw_key k = {.name = name};

	if (name == NULL) {
		return NULL;
	}
	return nwrap_pw_static_lookup(&k);
}

struct passwd *nwrap_getpwuid(uid_t uid)
{
	struct nwrap_pw_key k = {.uid = uid};

	return nwrap_pw_static_lookup(&k);
}

void nwrap_setpwent(void)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	nwrap_mutex_lock(&nwrap_pw_enum);
	for (size_t i = 0; i < n; i++) {
		b[i]->setpwent(b[i]);
	}
	nwrap_pw_enum_idx = 0;
	nwrap_pw_enum_started = true;
	nwrap_mutex_unlock(&nwrap_pw_enum);
}

void nwrap_endpwent(void)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);

	nwrap_mutex_lock(&nwrap_pw_enum);
	for (size_t i = 0; i < n; i++) {
		b[i]->endpwent(b[i]);
	}
	nwrap_pw_enum_idx = 0;
	nwrap_pw_enum_started = false;
	nwrap_mutex_unlock(&nwrap_pw_enum);
}

int nwrap_getpwent_r(struct passwd *pw, char *buf, size_t len,
		     struct passwd **res)
{
	const struct nwrap_backend *b[NWRAP_BACKEND_MAX];
	size_t n = nwrap_backends(b);
	int rc = ENOENT;

	*res = NULL;
	nwrap_mutex_lock(&nwrap_pw_enum);
	if (!nwrap_pw_enum_started) {
		for (size_t i = 0; i < n; i++) {
			b[i]->setpwent(b[i]);
		}
		nwrap_pw_enum_idx = 0;
		nwrap_pw_enum_started = true;
	}
	while (nwrap_pw_enum_idx < n) {
		rc = b[nwrap_pw_enum_idx]->getpwent_r(b[nwrap_pw_enum_idx], pw,
						      buf, len);
		if (rc != ENOENT) {
			break;
		}
		nwrap_pw_enum_idx++;
	}
	nwrap_mutex_unlock(&nwrap_pw_enum);
	if (rc == 0) {
		*res = pw;
	}
	return rc;
}

static int nwrap_pwent_fill(void *ctx, char *buf, size_t len)
{
	struct passwd **res = ctx;

	return nwrap_getpwent_r(&nwrap_pwent_rec, buf, len, res);
}

struct passwd *nwrap_getpwent(void)
{
	struct passwd *res = NULL;
	int rc;

	nwrap_static_lock(&nwrap_pwent_static);
	rc = nwrap_static_run(&nwrap_pwent_static, nwrap_pwent_fill, &res);
	nwrap_static_unlock(&nwrap_pwent_static);
	if (rc != 0 && rc != ENOENT) {
		errno = rc;
	}
	return res;
}
