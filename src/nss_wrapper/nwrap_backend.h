/*
 * The sources of users and groups: an ops table per backend. The loaded
 * NSS module (nwrap_module.c) is asked first, then the files
 * (nwrap_files.c). Each operation returns 0 (found, record filled),
 * ENOENT (not found, or end of the enumeration: ask the next backend),
 * ERANGE (buffer too small) or another errno value. Backends keep their own
 * state and locks; the table itself is immutable.
 */
#ifndef NWRAP_BACKEND_H
#define NWRAP_BACKEND_H

#include "nwrap.h"

struct nwrap_backend {
	const char *name;
	int (*getpwnam_r)(const char *name, struct passwd *pw, char *buf,
			  size_t len);
	int (*getpwuid_r)(uid_t uid, struct passwd *pw, char *buf, size_t len);
	void (*setpwent)(void);
	int (*getpwent_r)(struct passwd *pw, char *buf, size_t len);
	void (*endpwent)(void);
	int (*getgrnam_r)(const char *name, struct group *gr, char *buf,
			  size_t len);
	int (*getgrgid_r)(gid_t gid, struct group *gr, char *buf, size_t len);
	void (*setgrent)(void);
	int (*getgrent_r)(struct group *gr, char *buf, size_t len);
	void (*endgrent)(void);
	/* Append the groups that list `user` as a member, except `skip`. */
	int (*initgroups)(const char *user, gid_t skip, struct nwrap_gids *g);
};

extern const struct nwrap_backend nwrap_files_backend;

/* The backends to ask, in order; *n is their count (0 when inert). */
const struct nwrap_backend *const *nwrap_backends(size_t *n);

/* Load the module once: NULL (reported) if it cannot be loaded. */
const struct nwrap_backend *nwrap_module_load(const char *path,
					      const char *prefix);

/* The module's hosts functions (0, ENOENT when absent or not found,
 * ERANGE or another errno value); only when module_enabled. */
int nwrap_module_gethostbyname2_r(const char *name, int af, struct hostent *ret,
				  char *buf, size_t len);
int nwrap_module_gethostbyaddr_r(const void *addr, socklen_t alen, int af,
				 struct hostent *ret, char *buf, size_t len);

#endif
