/*
 * libnss_cwraptest.so: a small glibc-style NSS module for the tests of
 * NSS_WRAPPER_MODULE_SO_PATH / NSS_WRAPPER_MODULE_FN_PREFIX=cwraptest.
 * Fixed records: users moduser (7001), shared (7002, also in the test
 * passwd file with another uid: the files must win) and CWRAPDOM/root
 * (uid 0, as winbind maps root once it has seen it; by name also "root":
 * the test passwd file's root must win), groups modgroup (7001: moduser),
 * modextra (7003: moduser, bob) and CWRAPDOM/root (0: bob; also "root");
 * hosts mod.cwrap.org (alias mod: 127.0.0.77 and fd00::77) and
 * shared.cwrap.org (127.0.0.78, also in the test hosts file with another
 * address: the file must win).
 * The enumeration cursors are guarded by one mutex.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <grp.h>
#include "cwrap_platform.h" /* enum nss_status */
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#define EXPORT __attribute__((visibility("default")))

/* -Wwrite-strings: the records are never written through */
#define S(x) ((char *)(uintptr_t)(x))

static const struct passwd mod_users[] = {
    {S("moduser"), S("x"), 7001, 7001, S("Module User"), S("/home/moduser"),
     S("/bin/sh")},
    {S("shared"), S("x"), 7002, 7001, S("From the module"), S("/home/shared"),
     S("/bin/sh")},
    {S("CWRAPDOM/root"), S("x"), 0, 0, S("Module root"), S("/"), S("/bin/sh")},
};

static char *modgroup_mem[] = {S("moduser"), NULL};
static char *modextra_mem[] = {S("moduser"), S("bob"), NULL};
static char *modroot_mem[] = {S("bob"), NULL};

static const struct group mod_groups[] = {
    {S("modgroup"), S("x"), 7001, modgroup_mem},
    {S("modextra"), S("x"), 7003, modextra_mem},
    {S("CWRAPDOM/root"), S("x"), 0, modroot_mem},
};

#define NUSERS (sizeof(mod_users) / sizeof(mod_users[0]))
#define NGROUPS (sizeof(mod_groups) / sizeof(mod_groups[0]))

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;

/* `name` is the record's, or the record's without its "CWRAPDOM/" (a
 * default domain, as winbind's "winbind use default domain"). */
static bool name_is(const char *record, const char *name)
{
	static const char dom[] = "CWRAPDOM/";

	if (strncmp(record, dom, sizeof(dom) - 1) == 0 &&
	    strcmp(record + sizeof(dom) - 1, name) == 0) {
		return true;
	}
	return strcmp(record, name) == 0;
}
static size_t mod_pw_pos;
static size_t mod_gr_pos;

static char *put(char **p, size_t *left, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = *p;

	memcpy(d, s, n);
	*p += n;
	*left -= n;
	return d;
}

static enum nss_status copy_pw(const struct passwd *s, struct passwd *d,
			       char *buf, size_t len, int *errnop)
{
	size_t need = strlen(s->pw_name) + strlen(s->pw_passwd) +
		      strlen(s->pw_gecos) + strlen(s->pw_dir) +
		      strlen(s->pw_shell) + 5;

	if (need > len) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	*d = *s;
	d->pw_name = put(&buf, &len, s->pw_name);
	d->pw_passwd = put(&buf, &len, s->pw_passwd);
	d->pw_gecos = put(&buf, &len, s->pw_gecos);
	d->pw_dir = put(&buf, &len, s->pw_dir);
	d->pw_shell = put(&buf, &len, s->pw_shell);
	return NSS_STATUS_SUCCESS;
}

static enum nss_status copy_gr(const struct group *s, struct group *d,
			       char *buf, size_t len, int *errnop)
{
	size_t n = 0, need = strlen(s->gr_name) + strlen(s->gr_passwd) + 2;
	size_t pad =
	    (sizeof(char *) - (uintptr_t)buf % sizeof(char *)) % sizeof(char *);
	char **mem;

	while (s->gr_mem[n] != NULL) {
		need += strlen(s->gr_mem[n++]) + 1;
	}
	need += pad + (n + 1) * sizeof(char *);
	if (need > len) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	mem = (char **)(void *)(buf + pad);
	buf += pad + (n + 1) * sizeof(char *);
	len -= pad + (n + 1) * sizeof(char *);
	for (size_t i = 0; i < n; i++) {
		mem[i] = put(&buf, &len, s->gr_mem[i]);
	}
	mem[n] = NULL;
	d->gr_mem = mem;
	d->gr_name = put(&buf, &len, s->gr_name);
	d->gr_passwd = put(&buf, &len, s->gr_passwd);
	d->gr_gid = s->gr_gid;
	return NSS_STATUS_SUCCESS;
}

EXPORT enum nss_status _nss_cwraptest_getpwnam_r(const char *name,
						 struct passwd *pw, char *buf,
						 size_t len, int *errnop);
EXPORT enum nss_status _nss_cwraptest_getpwuid_r(uid_t uid, struct passwd *pw,
						 char *buf, size_t len,
						 int *errnop);
EXPORT enum nss_status _nss_cwraptest_setpwent(void);
EXPORT enum nss_status _nss_cwraptest_getpwent_r(struct passwd *pw, char *buf,
						 size_t len, int *errnop);
EXPORT enum nss_status _nss_cwraptest_endpwent(void);
EXPORT enum nss_status _nss_cwraptest_getgrnam_r(const char *name,
						 struct group *gr, char *buf,
						 size_t len, int *errnop);
EXPORT enum nss_status _nss_cwraptest_getgrgid_r(gid_t gid, struct group *gr,
						 char *buf, size_t len,
						 int *errnop);
EXPORT enum nss_status _nss_cwraptest_setgrent(void);
EXPORT enum nss_status _nss_cwraptest_getgrent_r(struct group *gr, char *buf,
						 size_t len, int *errnop);
EXPORT enum nss_status _nss_cwraptest_endgrent(void);
EXPORT enum nss_status
_nss_cwraptest_initgroups_dyn(const char *user, gid_t group, long int *start,
			      long int *size, gid_t **groupsp, long int limit,
			      int *errnop);

enum nss_status _nss_cwraptest_getpwnam_r(const char *name, struct passwd *pw,
					  char *buf, size_t len, int *errnop)
{
	for (size_t i = 0; i < NUSERS; i++) {
		if (name_is(mod_users[i].pw_name, name)) {
			return copy_pw(&mod_users[i], pw, buf, len, errnop);
		}
	}
	return NSS_STATUS_NOTFOUND;
}

enum nss_status _nss_cwraptest_getpwuid_r(uid_t uid, struct passwd *pw,
					  char *buf, size_t len, int *errnop)
{
	for (size_t i = 0; i < NUSERS; i++) {
		if (mod_users[i].pw_uid == uid) {
			return copy_pw(&mod_users[i], pw, buf, len, errnop);
		}
	}
	return NSS_STATUS_NOTFOUND;
}

enum nss_status _nss_cwraptest_setpwent(void)
{
	pthread_mutex_lock(&mod_lock);
	mod_pw_pos = 0;
	pthread_mutex_unlock(&mod_lock);
	return NSS_STATUS_SUCCESS;
}

enum nss_status _nss_cwraptest_endpwent(void)
{
	return _nss_cwraptest_setpwent();
}

enum nss_status _nss_cwraptest_getpwent_r(struct passwd *pw, char *buf,
					  size_t len, int *errnop)
{
	enum nss_status st = NSS_STATUS_NOTFOUND;

	pthread_mutex_lock(&mod_lock);
	if (mod_pw_pos < NUSERS) {
		st = copy_pw(&mod_users[mod_pw_pos], pw, buf, len, errnop);
		if (st == NSS_STATUS_SUCCESS) {
			mod_pw_pos++;
		}
	}
	pthread_mutex_unlock(&mod_lock);
	return st;
}

enum nss_status _nss_cwraptest_getgrnam_r(const char *name, struct group *gr,
					  char *buf, size_t len, int *errnop)
{
	for (size_t i = 0; i < NGROUPS; i++) {
		if (name_is(mod_groups[i].gr_name, name)) {
			return copy_gr(&mod_groups[i], gr, buf, len, errnop);
		}
	}
	return NSS_STATUS_NOTFOUND;
}

enum nss_status _nss_cwraptest_getgrgid_r(gid_t gid, struct group *gr,
					  char *buf, size_t len, int *errnop)
{
	for (size_t i = 0; i < NGROUPS; i++) {
		if (mod_groups[i].gr_gid == gid) {
			return copy_gr(&mod_groups[i], gr, buf, len, errnop);
		}
	}
	return NSS_STATUS_NOTFOUND;
}

enum nss_status _nss_cwraptest_setgrent(void)
{
	pthread_mutex_lock(&mod_lock);
	mod_gr_pos = 0;
	pthread_mutex_unlock(&mod_lock);
	return NSS_STATUS_SUCCESS;
}

enum nss_status _nss_cwraptest_endgrent(void)
{
	return _nss_cwraptest_setgrent();
}

enum nss_status _nss_cwraptest_getgrent_r(struct group *gr, char *buf,
					  size_t len, int *errnop)
{
	enum nss_status st = NSS_STATUS_NOTFOUND;

	pthread_mutex_lock(&mod_lock);
	if (mod_gr_pos < NGROUPS) {
		st = copy_gr(&mod_groups[mod_gr_pos], gr, buf, len, errnop);
		if (st == NSS_STATUS_SUCCESS) {
			mod_gr_pos++;
		}
	}
	pthread_mutex_unlock(&mod_lock);
	return st;
}

/* glibc's contract: append to *groupsp (growing it with realloc), skip
 * `group`, respect `limit` when positive. It also gives bob 4242, a group
 * no enumeration shows (as winbind's gives groups its getgrent does not
 * list members of): nss_wrapper must not ask it, as upstream does not. */
enum nss_status _nss_cwraptest_initgroups_dyn(const char *user, gid_t group,
					      long int *start, long int *size,
					      gid_t **groupsp, long int limit,
					      int *errnop)
{
	(void)errnop;
	for (size_t i = 0; i < NGROUPS; i++) {
		if (mod_groups[i].gr_gid == group) {
			continue;
		}
		for (char **m = mod_groups[i].gr_mem; *m != NULL; m++) {
			if (strcmp(*m, user) != 0) {
				continue;
			}
			if (*start == *size) {
				long int ns = *size * 2;
				gid_t *g;

				if (limit > 0 && ns > limit) {
					ns = limit;
				}
				if (ns <= *size) {
					return NSS_STATUS_SUCCESS;
				}
				g = realloc(*groupsp,
					    (size_t)ns * sizeof(gid_t));
				if (g == NULL) {
					return NSS_STATUS_TRYAGAIN;
				}
				*groupsp = g;
				*size = ns;
			}
			(*groupsp)[(*start)++] = mod_groups[i].gr_gid;
		}
	}
	if (strcmp(user, "bob") == 0) {
		if (*start == *size) {
			gid_t *g = realloc(*groupsp,
					   (size_t)(*size + 1) * sizeof(gid_t));

			if (g == NULL) {
				return NSS_STATUS_TRYAGAIN;
			}
			*groupsp = g;
			*size += 1;
		}
		(*groupsp)[(*start)++] = 4242;
	}
	return NSS_STATUS_SUCCESS;
}

struct mod_host {
	const char *name;
	const char *alias;
	int af;
	const char *addr;
};

static const struct mod_host mod_hosts[] = {
    {"mod.cwrap.org", "mod", AF_INET, "127.0.0.77"},
    {"mod.cwrap.org", "mod", AF_INET6, "fd00::77"},
    {"shared.cwrap.org", "shared", AF_INET, "127.0.0.78"},
};

#define NHOSTS (sizeof(mod_hosts) / sizeof(mod_hosts[0]))

static enum nss_status fill_host(const struct mod_host *m, struct hostent *he,
				 char *buf, size_t len, int *errnop,
				 int *h_errnop)
{
	size_t alen = m->af == AF_INET6 ? 16 : 4;
	size_t pad =
	    (sizeof(char *) - (uintptr_t)buf % sizeof(char *)) % sizeof(char *);
	size_t need = pad + 4 * sizeof(char *) + alen + strlen(m->name) +
		      strlen(m->alias) + 2;
	char **v;

	if (need > len) {
		*errnop = ERANGE;
		*h_errnop = NETDB_INTERNAL;
		return NSS_STATUS_TRYAGAIN;
	}
	v = (char **)(void *)(buf + pad);
	buf += pad + 4 * sizeof(char *);
	inet_pton(m->af, m->addr, buf);
	v[0] = buf; /* h_addr_list */
	v[1] = NULL;
	buf += alen;
	v[2] = put(&buf, &len, m->alias); /* h_aliases */
	v[3] = NULL;
	he->h_name = put(&buf, &len, m->name);
	he->h_aliases = &v[2];
	he->h_addr_list = &v[0];
	he->h_addrtype = m->af;
	he->h_length = (int)alen;
	return NSS_STATUS_SUCCESS;
}

EXPORT enum nss_status _nss_cwraptest_gethostbyname2_r(const char *name, int af,
						       struct hostent *he,
						       char *buf, size_t len,
						       int *errnop,
						       int *h_errnop);
EXPORT enum nss_status
_nss_cwraptest_gethostbyaddr_r(const void *addr, socklen_t alen, int af,
			       struct hostent *he, char *buf, size_t len,
			       int *errnop, int *h_errnop);

enum nss_status _nss_cwraptest_gethostbyname2_r(const char *name, int af,
						struct hostent *he, char *buf,
						size_t len, int *errnop,
						int *h_errnop)
{
	for (size_t i = 0; i < NHOSTS; i++) {
		if (mod_hosts[i].af == af &&
		    (strcasecmp(mod_hosts[i].name, name) == 0 ||
		     strcasecmp(mod_hosts[i].alias, name) == 0)) {
			return fill_host(&mod_hosts[i], he, buf, len, errnop,
					 h_errnop);
		}
	}
	*h_errnop = HOST_NOT_FOUND;
	return NSS_STATUS_NOTFOUND;
}

enum nss_status _nss_cwraptest_gethostbyaddr_r(const void *addr, socklen_t alen,
					       int af, struct hostent *he,
					       char *buf, size_t len,
					       int *errnop, int *h_errnop)
{
	for (size_t i = 0; i < NHOSTS; i++) {
		unsigned char a[16];

		if (mod_hosts[i].af != af ||
		    alen != (af == AF_INET6 ? 16u : 4u)) {
			continue;
		}
		inet_pton(af, mod_hosts[i].addr, a);
		if (memcmp(a, addr, alen) == 0) {
			return fill_host(&mod_hosts[i], he, buf, len, errnop,
					 h_errnop);
		}
	}
	*h_errnop = HOST_NOT_FOUND;
	return NSS_STATUS_NOTFOUND;
}
