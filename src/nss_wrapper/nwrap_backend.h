/*
 * The sources of users and groups: an ops table per backend. The files
 * (nwrap_files.c) are asked first, then the loaded NSS module
 * (nwrap_module.c), for what the files lack; enumerations and group lists
 * go through both in that order (nwrap_backends(), nwrap_backend.c, which
 * asks the configuration which are in force: the configuration names no
 * backend, for the files backend reads through the caches, which ask the
 * configuration). Each operation returns 0 (found, record
 * filled), ENOENT (not found, or end of the enumeration: ask the next
 * backend), ERANGE (buffer too small) or another errno value. Backends keep
 * their own state and locks; the table itself is immutable.
 */
#ifndef NWRAP_BACKEND_H
#define NWRAP_BACKEND_H

#include "nwrap.h"

struct nwrap_backend {
	const char *name;
	int (*getpwnam_r)(const struct nwrap_backend *b, const char *name,
			  struct passwd *pw, char *buf, size_t len);
	int (*getpwuid_r)(const struct nwrap_backend *b, uid_t uid,
			  struct passwd *pw, char *buf, size_t len);
	void (*setpwent)(const struct nwrap_backend *b);
	int (*getpwent_r)(const struct nwrap_backend *b, struct passwd *pw,
			  char *buf, size_t len);
	void (*endpwent)(const struct nwrap_backend *b);
	int (*getgrnam_r)(const struct nwrap_backend *b, const char *name,
			  struct group *gr, char *buf, size_t len);
	int (*getgrgid_r)(const struct nwrap_backend *b, gid_t gid,
			  struct group *gr, char *buf, size_t len);
	void (*setgrent)(const struct nwrap_backend *b);
	int (*getgrent_r)(const struct nwrap_backend *b, struct group *gr,
			  char *buf, size_t len);
	void (*endgrent)(const struct nwrap_backend *b);
	/* Append the groups that list `user` as a member, except `skip`. */
	int (*initgroups)(const struct nwrap_backend *b, const char *user,
			  gid_t skip, struct nwrap_gids *g);
};

extern const struct nwrap_backend nwrap_files_backend;

#define NWRAP_BACKEND_MAX 2

/* The backends the current configuration puts in force, in the order they
 * are asked, in b[]; returns their count (0 when inert). */
size_t nwrap_backends(const struct nwrap_backend *b[NWRAP_BACKEND_MAX]);

/* The module at `path` with functions _nss_<prefix>_*: loaded once per
 * path and prefix, never unloaded; NULL (reported in one line) if it cannot
 * be loaded or has none of the functions. */
const struct nwrap_module *nwrap_module_load(const char *path,
					     const char *prefix);
const struct nwrap_backend *nwrap_module_backend(const struct nwrap_module *m);

/* The module's hosts functions (0, ENOENT when absent or not found,
 * ERANGE or another errno value); `m` may be NULL (ENOENT). */
int nwrap_module_gethostbyname2_r(const struct nwrap_module *m,
				  const char *name, int af, struct hostent *ret,
				  char *buf, size_t len);
int nwrap_module_gethostbyaddr_r(const struct nwrap_module *m, const void *addr,
				 socklen_t alen, int af, struct hostent *ret,
				 char *buf, size_t len);

#endif
