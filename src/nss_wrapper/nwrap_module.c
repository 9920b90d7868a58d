/*
 * The module backend: a glibc-style NSS module named by
 * NSS_WRAPPER_MODULE_SO_PATH, whose functions are
 * _nss_<NSS_WRAPPER_MODULE_FN_PREFIX>_getpwnam_r and friends. Each path and
 * prefix is loaded once, when a configuration names it (nwrap_config.c,
 * under its lock), and never unloaded, since a lookup in flight may still
 * be inside it; the list of loads is only appended to, under that lock. A
 * function the module lacks answers "not found". Its gethostbyname2_r and
 * gethostbyaddr_r, when it has them, are asked after NSS_WRAPPER_HOSTS,
 * for what the file lacks (nwrap_hosts.c, nwrap_addrinfo.c). The module
 * keeps its own state; its enumeration is serialized by the callers' locks
 * (nwrap_pwd.c, nwrap_grp.c).
 */
#include "cwrap_platform.h"
#include "nwrap_backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum nss_status (*nwrap_pwnam_fn)(const char *, struct passwd *, char *,
					  size_t, int *);
typedef enum nss_status (*nwrap_pwuid_fn)(uid_t, struct passwd *, char *,
					  size_t, int *);
typedef enum nss_status (*nwrap_pwent_fn)(struct passwd *, char *, size_t,
					  int *);
typedef enum nss_status (*nwrap_grnam_fn)(const char *, struct group *, char *,
					  size_t, int *);
typedef enum nss_status (*nwrap_grgid_fn)(gid_t, struct group *, char *, size_t,
					  int *);
typedef enum nss_status (*nwrap_grent_fn)(struct group *, char *, size_t,
					  int *);
typedef enum nss_status (*nwrap_setent_fn)(void);
typedef enum nss_status (*nwrap_hname_fn)(const char *, int, struct hostent *,
					  char *, size_t, int *, int *);
typedef enum nss_status (*nwrap_haddr_fn)(const void *, socklen_t, int,
					  struct hostent *, char *, size_t,
					  int *, int *);

struct nwrap_module {
	struct nwrap_backend ops; /* first: the backend is the module */
	char *path;
	char *prefix;
	void *handle;
	nwrap_pwnam_fn getpwnam_r;
	nwrap_pwuid_fn getpwuid_r;
	nwrap_setent_fn setpwent;
	nwrap_pwent_fn getpwent_r;
	nwrap_setent_fn endpwent;
	nwrap_grnam_fn getgrnam_r;
	nwrap_grgid_fn getgrgid_r;
	nwrap_setent_fn setgrent;
	nwrap_grent_fn getgrent_r;
	nwrap_setent_fn endgrent;
	nwrap_hname_fn gethostbyname2_r;
	nwrap_haddr_fn gethostbyaddr_r;
	struct nwrap_module *next;
};

static struct nwrap_module *nwrap_mods;

static const struct nwrap_module *nwrap_mod_of(const struct nwrap_backend *b)
{
	return (const struct nwrap_module *)(const void *)b;
}

static int nwrap_status(enum nss_status st, int err)
{
	switch (st) {
	case NSS_STATUS_SUCCESS:
		return 0;
	case NSS_STATUS_TRYAGAIN:
		return err == ERANGE ? ERANGE : (err != 0 ? err : EAGAIN);
	case NSS_STATUS_NOTFOUND:
	case NSS_STATUS_UNAVAIL:
	default:
		return ENOENT;
	}
}

static int nwrap_mod_getpwnam_r(const struct nwrap_backend *b, const char *name,
				struct passwd *pw, char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getpwnam_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getpwnam_r(name, pw, buf, len, &err);

	return nwrap_status(st, err);
}

static int nwrap_mod_getpwuid_r(const struct nwrap_backend *b, uid_t uid,
				struct passwd *pw, char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getpwuid_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getpwuid_r(uid, pw, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_setpwent(const struct nwrap_backend *b)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	if (m->setpwent != NULL) {
		m->setpwent();
	}
}

static int nwrap_mod_getpwent_r(const struct nwrap_backend *b,
				struct passwd *pw, char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getpwent_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getpwent_r(pw, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_endpwent(const struct nwrap_backend *b)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	if (m->endpwent != NULL) {
		m->endpwent();
	}
}

static int nwrap_mod_getgrnam_r(const struct nwrap_backend *b, const char *name,
				struct group *gr, char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getgrnam_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getgrnam_r(name, gr, buf, len, &err);

	return nwrap_status(st, err);
}

static int nwrap_mod_getgrgid_r(const struct nwrap_backend *b, gid_t gid,
				struct group *gr, char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getgrgid_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getgrgid_r(gid, gr, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_setgrent(const struct nwrap_backend *b)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	if (m->setgrent != NULL) {
		m->setgrent();
	}
}

static int nwrap_mod_getgrent_r(const struct nwrap_backend *b, struct group *gr,
				char *buf, size_t len)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	int err = 0;

	if (m->getgrent_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = m->getgrent_r(gr, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_endgrent(const struct nwrap_backend *b)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	if (m->endgrent != NULL) {
		m->endgrent();
	}
}

/* An entry of the module's group enumeration that does not fit in this
 * much ends it (a module does not move past an entry it reports ERANGE
 * for). */
#define NWRAP_MOD_GRBUF_MAX (16u << 20)

/* The groups whose members list `user`, found by the module's group
 * enumeration, as upstream finds them; the module's initgroups_dyn, which
 * may answer more (winbind's does), is not asked: Samba's local.nss test
 * checks that getgrouplist() agrees with what getgrent() shows. The
 * caller holds the group enumeration's lock (nwrap_grp.c). An error of
 * the module ends the enumeration (debug line): what it gave is kept. */
static int nwrap_mod_initgroups(const struct nwrap_backend *b, const char *user,
				gid_t skip, struct nwrap_gids *g)
{
	const struct nwrap_module *m = nwrap_mod_of(b);
	size_t len = 1024;
	char *buf;
	int rc = 0;

	if (m->getgrent_r == NULL) {
		return 0;
	}
	buf = malloc(len);
	if (buf == NULL) {
		return ENOMEM;
	}
	if (m->setgrent != NULL) {
		m->setgrent();
	}
	while (rc == 0) {
		struct group gr;
		int err = 0;
		enum nss_status ns = m->getgrent_r(&gr, buf, len, &err);
		int st = nwrap_status(ns, err);

		if (st == ERANGE && len < NWRAP_MOD_GRBUF_MAX) {
			char *p = realloc(buf, len * 2);

			if (p == NULL) {
				rc = ENOMEM;
				break;
			}
			buf = p;
			len *= 2;
			continue;
		}
		if (st != 0) {
			if (st != ENOENT) {
				CWRAP_DEBUG(
				    "%s: getgrent_r: %s, the groups of %s "
				    "end there",
				    m->path, strerror(st), user);
			}
			break;
		}
		if (gr.gr_gid == skip || gr.gr_mem == NULL) {
			continue;
		}
		for (char **mem = gr.gr_mem; *mem != NULL; mem++) {
			if (strcmp(*mem, user) == 0) {
				rc = nwrap_gids_add(g, gr.gr_gid);
				break;
			}
		}
	}
	if (m->endgrent != NULL) {
		m->endgrent();
	}
	free(buf);
	return rc;
}

int nwrap_module_gethostbyname2_r(const struct nwrap_module *m,
				  const char *name, int af, struct hostent *ret,
				  char *buf, size_t len)
{
	int err = 0, herr = 0;
	enum nss_status st;

	if (m == NULL || m->gethostbyname2_r == NULL) {
		return ENOENT;
	}
	st = m->gethostbyname2_r(name, af, ret, buf, len, &err, &herr);
	return nwrap_status(st, err);
}

int nwrap_module_gethostbyaddr_r(const struct nwrap_module *m, const void *addr,
				 socklen_t alen, int af, struct hostent *ret,
				 char *buf, size_t len)
{
	int err = 0, herr = 0;
	enum nss_status st;

	if (m == NULL || m->gethostbyaddr_r == NULL) {
		return ENOENT;
	}
	st = m->gethostbyaddr_r(addr, alen, af, ret, buf, len, &err, &herr);
	return nwrap_status(st, err);
}

static const struct nwrap_backend nwrap_module_ops = {
    .name = "module",
    .getpwnam_r = nwrap_mod_getpwnam_r,
    .getpwuid_r = nwrap_mod_getpwuid_r,
    .setpwent = nwrap_mod_setpwent,
    .getpwent_r = nwrap_mod_getpwent_r,
    .endpwent = nwrap_mod_endpwent,
    .getgrnam_r = nwrap_mod_getgrnam_r,
    .getgrgid_r = nwrap_mod_getgrgid_r,
    .setgrent = nwrap_mod_setgrent,
    .getgrent_r = nwrap_mod_getgrent_r,
    .endgrent = nwrap_mod_endgrent,
    .initgroups = nwrap_mod_initgroups,
};

const struct nwrap_backend *nwrap_module_backend(const struct nwrap_module *m)
{
	return &m->ops;
}

/* _nss_<prefix>_<fn> of the module, noting a missing one in `missing`. */
static void *nwrap_mod_sym(struct nwrap_module *m, const char *fn,
			   char *missing, size_t mlen)
{
	char name[256];
	void *p;
	size_t used = strlen(missing);

	snprintf(name, sizeof(name), "_nss_%s_%s", m->prefix, fn);
	p = dlsym(m->handle, name);
	if (p == NULL && used + strlen(fn) + 3 < mlen) {
		snprintf(missing + used, mlen - used, "%s%s",
			 used > 0 ? ", " : "", fn);
	}
	return p;
}

static struct nwrap_module *nwrap_mod_open(const char *path, const char *prefix)
{
	struct nwrap_module *m = calloc(1, sizeof(*m));
	char missing[512] = "";

	if (m == NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH=%s: out of memory",
			    path);
		return NULL;
	}
	m->ops = nwrap_module_ops;
	m->path = strdup(path);
	m->prefix = strdup(prefix);
	if (m->path == NULL || m->prefix == NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH=%s: out of memory",
			    path);
		goto fail;
	}
	m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (m->handle == NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH=%s: cannot load: %s; "
			    "no module used",
			    path, dlerror());
		goto fail;
	}
	/* Each function the module lacks is named in `missing`. */
#define NWRAP_MOD_SYM(field, type)                                             \
	m->field = (type)nwrap_mod_sym(m, #field, missing, sizeof(missing))
	NWRAP_MOD_SYM(getpwnam_r, nwrap_pwnam_fn);
	NWRAP_MOD_SYM(getpwuid_r, nwrap_pwuid_fn);
	NWRAP_MOD_SYM(setpwent, nwrap_setent_fn);
	NWRAP_MOD_SYM(getpwent_r, nwrap_pwent_fn);
	NWRAP_MOD_SYM(endpwent, nwrap_setent_fn);
	NWRAP_MOD_SYM(getgrnam_r, nwrap_grnam_fn);
	NWRAP_MOD_SYM(getgrgid_r, nwrap_grgid_fn);
	NWRAP_MOD_SYM(setgrent, nwrap_setent_fn);
	NWRAP_MOD_SYM(getgrent_r, nwrap_grent_fn);
	NWRAP_MOD_SYM(endgrent, nwrap_setent_fn);
	NWRAP_MOD_SYM(gethostbyname2_r, nwrap_hname_fn);
	NWRAP_MOD_SYM(gethostbyaddr_r, nwrap_haddr_fn);
#undef NWRAP_MOD_SYM
	if (m->getpwnam_r == NULL && m->getpwuid_r == NULL &&
	    m->getgrnam_r == NULL && m->getgrgid_r == NULL &&
	    m->getgrent_r == NULL && m->gethostbyname2_r == NULL &&
	    m->gethostbyaddr_r == NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH=%s: has no _nss_%s_* "
			    "function (NSS_WRAPPER_MODULE_FN_PREFIX=%s); "
			    "no module used",
			    path, prefix, prefix);
		dlclose(m->handle);
		goto fail;
	}
	if (missing[0] != '\0') {
		CWRAP_WARN("NSS_WRAPPER_MODULE_SO_PATH=%s: no _nss_%s_ %s "
			   "(those lookups go to the files)",
			   path, prefix, missing);
	}
	return m;
fail:
	free(m->path);
	free(m->prefix);
	free(m);
	return NULL;
}

const struct nwrap_module *nwrap_module_load(const char *path,
					     const char *prefix)
{
	struct nwrap_module *m;

	for (m = nwrap_mods; m != NULL; m = m->next) {
		if (strcmp(m->path, path) == 0 &&
		    strcmp(m->prefix, prefix) == 0) {
			return m;
		}
	}
	m = nwrap_mod_open(path, prefix);
	if (m != NULL) {
		m->next = nwrap_mods;
		nwrap_mods = m;
	}
	return m;
}
