/*
 * The module backend: a glibc-style NSS module named by
 * NSS_WRAPPER_MODULE_SO_PATH, whose functions are
 * _nss_<NSS_WRAPPER_MODULE_FN_PREFIX>_getpwnam_r and friends. Loaded once,
 * from nwrap_config()'s pthread_once; the function pointers are then only
 * read. A function the module lacks answers "not found". Its
 * gethostbyname2_r and gethostbyaddr_r, when it has them, are asked before
 * NSS_WRAPPER_HOSTS (nwrap_hosts.c, nwrap_addrinfo.c). The module keeps
 * its own state; its enumeration is serialized by the callers' locks
 * (nwrap_pwd.c, nwrap_grp.c).
 */
#include "nwrap_backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <nss.h>
#include <stdio.h>
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
typedef enum nss_status (*nwrap_initgr_fn)(const char *, gid_t, long int *,
					   long int *, gid_t **, long int,
					   int *);

static struct {
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
	nwrap_initgr_fn initgroups_dyn;
	nwrap_hname_fn gethostbyname2_r;
	nwrap_haddr_fn gethostbyaddr_r;
} nwrap_mod;

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

static int nwrap_mod_getpwnam_r(const char *name, struct passwd *pw, char *buf,
				size_t len)
{
	int err = 0;

	if (nwrap_mod.getpwnam_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getpwnam_r(name, pw, buf, len, &err);

	return nwrap_status(st, err);
}

static int nwrap_mod_getpwuid_r(uid_t uid, struct passwd *pw, char *buf,
				size_t len)
{
	int err = 0;

	if (nwrap_mod.getpwuid_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getpwuid_r(uid, pw, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_setpwent(void)
{
	if (nwrap_mod.setpwent != NULL) {
		nwrap_mod.setpwent();
	}
}

static int nwrap_mod_getpwent_r(struct passwd *pw, char *buf, size_t len)
{
	int err = 0;

	if (nwrap_mod.getpwent_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getpwent_r(pw, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_endpwent(void)
{
	if (nwrap_mod.endpwent != NULL) {
		nwrap_mod.endpwent();
	}
}

static int nwrap_mod_getgrnam_r(const char *name, struct group *gr, char *buf,
				size_t len)
{
	int err = 0;

	if (nwrap_mod.getgrnam_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getgrnam_r(name, gr, buf, len, &err);

	return nwrap_status(st, err);
}

static int nwrap_mod_getgrgid_r(gid_t gid, struct group *gr, char *buf,
				size_t len)
{
	int err = 0;

	if (nwrap_mod.getgrgid_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getgrgid_r(gid, gr, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_setgrent(void)
{
	if (nwrap_mod.setgrent != NULL) {
		nwrap_mod.setgrent();
	}
}

static int nwrap_mod_getgrent_r(struct group *gr, char *buf, size_t len)
{
	int err = 0;

	if (nwrap_mod.getgrent_r == NULL) {
		return ENOENT;
	}
	enum nss_status st = nwrap_mod.getgrent_r(gr, buf, len, &err);

	return nwrap_status(st, err);
}

static void nwrap_mod_endgrent(void)
{
	if (nwrap_mod.endgrent != NULL) {
		nwrap_mod.endgrent();
	}
}

static int nwrap_mod_initgroups(const char *user, gid_t skip,
				struct nwrap_gids *g)
{
	int err = 0;
	enum nss_status st;
	long int start = g->n;

	if (nwrap_mod.initgroups_dyn == NULL) {
		return 0;
	}
	if (g->cap == 0) {
		if (nwrap_gids_add(g, skip) != 0) {
			return ENOMEM;
		}
		g->n = start; /* only to allocate the array */
	}
	st = nwrap_mod.initgroups_dyn(user, skip, &g->n, &g->cap, &g->v, -1,
				      &err);
	if (g->n < start) {
		g->n = start;
	}
	/* the module may repeat groups: keep the first of each */
	for (long i = start; i < g->n; i++) {
		bool dup = false;

		for (long j = 0; j < i && !dup; j++) {
			dup = g->v[j] == g->v[i];
		}
		if (dup || g->v[i] == skip) {
			memmove(&g->v[i], &g->v[i + 1],
				(size_t)(g->n - i - 1) * sizeof(gid_t));
			g->n--;
			i--;
		}
	}
	return st == NSS_STATUS_TRYAGAIN ? (err != 0 ? err : EAGAIN) : 0;
}

int nwrap_module_gethostbyname2_r(const char *name, int af, struct hostent *ret,
				  char *buf, size_t len)
{
	int err = 0, herr = 0;
	enum nss_status st;

	if (nwrap_mod.gethostbyname2_r == NULL) {
		return ENOENT;
	}
	st = nwrap_mod.gethostbyname2_r(name, af, ret, buf, len, &err, &herr);
	return nwrap_status(st, err);
}

int nwrap_module_gethostbyaddr_r(const void *addr, socklen_t alen, int af,
				 struct hostent *ret, char *buf, size_t len)
{
	int err = 0, herr = 0;
	enum nss_status st;

	if (nwrap_mod.gethostbyaddr_r == NULL) {
		return ENOENT;
	}
	st = nwrap_mod.gethostbyaddr_r(addr, alen, af, ret, buf, len, &err,
				       &herr);
	return nwrap_status(st, err);
}

static const struct nwrap_backend nwrap_module_backend = {
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

static void *nwrap_mod_sym(const char *prefix, const char *fn)
{
	char name[256];

	snprintf(name, sizeof(name), "_nss_%s_%s", prefix, fn);
	return dlsym(nwrap_mod.handle, name);
}

const struct nwrap_backend *nwrap_module_load(const char *path,
					      const char *prefix)
{
	nwrap_mod.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (nwrap_mod.handle == NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH=%s: cannot load: %s",
			    path, dlerror());
		return NULL;
	}
	nwrap_mod.getpwnam_r =
	    (nwrap_pwnam_fn)nwrap_mod_sym(prefix, "getpwnam_r");
	nwrap_mod.getpwuid_r =
	    (nwrap_pwuid_fn)nwrap_mod_sym(prefix, "getpwuid_r");
	nwrap_mod.setpwent = (nwrap_setent_fn)nwrap_mod_sym(prefix, "setpwent");
	nwrap_mod.getpwent_r =
	    (nwrap_pwent_fn)nwrap_mod_sym(prefix, "getpwent_r");
	nwrap_mod.endpwent = (nwrap_setent_fn)nwrap_mod_sym(prefix, "endpwent");
	nwrap_mod.getgrnam_r =
	    (nwrap_grnam_fn)nwrap_mod_sym(prefix, "getgrnam_r");
	nwrap_mod.getgrgid_r =
	    (nwrap_grgid_fn)nwrap_mod_sym(prefix, "getgrgid_r");
	nwrap_mod.setgrent = (nwrap_setent_fn)nwrap_mod_sym(prefix, "setgrent");
	nwrap_mod.getgrent_r =
	    (nwrap_grent_fn)nwrap_mod_sym(prefix, "getgrent_r");
	nwrap_mod.endgrent = (nwrap_setent_fn)nwrap_mod_sym(prefix, "endgrent");
	nwrap_mod.initgroups_dyn =
	    (nwrap_initgr_fn)nwrap_mod_sym(prefix, "initgroups_dyn");
	nwrap_mod.gethostbyname2_r =
	    (nwrap_hname_fn)nwrap_mod_sym(prefix, "gethostbyname2_r");
	nwrap_mod.gethostbyaddr_r =
	    (nwrap_haddr_fn)nwrap_mod_sym(prefix, "gethostbyaddr_r");
	if (nwrap_mod.getpwnam_r == NULL && nwrap_mod.getgrnam_r == NULL &&
	    nwrap_mod.gethostbyname2_r == NULL) {
		CWRAP_ERROR(
		    "NSS_WRAPPER_MODULE_SO_PATH=%s: no _nss_%s_getpwnam_r "
		    "or _nss_%s_getgrnam_r (NSS_WRAPPER_MODULE_FN_PREFIX)",
		    path, prefix, prefix);
	}
	return &nwrap_module_backend;
}
