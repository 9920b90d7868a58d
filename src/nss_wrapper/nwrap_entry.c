/*
 * The exported libc names: each decides "is this wrapped?" (one branch on
 * the current configuration) and calls the logic or the real function.
 * No state, no locks. Every function has the same shape; keep it thin.
 */
#include "cwrap_platform.h"
#include "nwrap.h"
#include "nwrap_libc.h"

#include <sys/socket.h>
#include <sys/utsname.h>

CWRAP_EXPORT struct passwd *getpwnam(const char *name);

struct passwd *getpwnam(const char *name)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwnam(name);
	}
	return nwrap_getpwnam(name);
}

CWRAP_EXPORT struct passwd *getpwuid(uid_t uid);

struct passwd *getpwuid(uid_t uid)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwuid(uid);
	}
	return nwrap_getpwuid(uid);
}

CWRAP_EXPORT int getpwnam_r(const char *name, struct passwd *pw, char *buf,
			    size_t len, struct passwd **res);

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwnam_r(name, pw, buf, len, res);
	}
	return nwrap_getpwnam_r(name, pw, buf, len, res);
}

CWRAP_EXPORT int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
			    struct passwd **res);

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwuid_r(uid, pw, buf, len, res);
	}
	return nwrap_getpwuid_r(uid, pw, buf, len, res);
}

CWRAP_EXPORT void setpwent(void);

void setpwent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		libc_setpwent();
		return;
	}
	nwrap_setpwent();
}

CWRAP_EXPORT struct passwd *getpwent(void);

struct passwd *getpwent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwent();
	}
	return nwrap_getpwent();
}

#ifdef HAVE_GETPWENT_R
CWRAP_EXPORT int getpwent_r(struct passwd *pw, char *buf, size_t len,
			    struct passwd **res);

int getpwent_r(struct passwd *pw, char *buf, size_t len, struct passwd **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getpwent_r(pw, buf, len, res);
	}
	return nwrap_getpwent_r(pw, buf, len, res);
}
#endif

CWRAP_EXPORT void endpwent(void);

void endpwent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		libc_endpwent();
		return;
	}
	nwrap_endpwent();
}

CWRAP_EXPORT struct group *getgrnam(const char *name);

struct group *getgrnam(const char *name)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrnam(name);
	}
	return nwrap_getgrnam(name);
}

CWRAP_EXPORT struct group *getgrgid(gid_t gid);

struct group *getgrgid(gid_t gid)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrgid(gid);
	}
	return nwrap_getgrgid(gid);
}

CWRAP_EXPORT int getgrnam_r(const char *name, struct group *gr, char *buf,
			    size_t len, struct group **res);

int getgrnam_r(const char *name, struct group *gr, char *buf, size_t len,
	       struct group **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrnam_r(name, gr, buf, len, res);
	}
	return nwrap_getgrnam_r(name, gr, buf, len, res);
}

CWRAP_EXPORT int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
			    struct group **res);

int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
	       struct group **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrgid_r(gid, gr, buf, len, res);
	}
	return nwrap_getgrgid_r(gid, gr, buf, len, res);
}

CWRAP_EXPORT void setgrent(void);

void setgrent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		libc_setgrent();
		return;
	}
	nwrap_setgrent();
}

CWRAP_EXPORT struct group *getgrent(void);

struct group *getgrent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrent();
	}
	return nwrap_getgrent();
}

#ifdef HAVE_GETGRENT_R
CWRAP_EXPORT int getgrent_r(struct group *gr, char *buf, size_t len,
			    struct group **res);

int getgrent_r(struct group *gr, char *buf, size_t len, struct group **res)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrent_r(gr, buf, len, res);
	}
	return nwrap_getgrent_r(gr, buf, len, res);
}
#endif

CWRAP_EXPORT void endgrent(void);

void endgrent(void)
{
	if (!nwrap_config()->pwgr_enabled) {
		libc_endgrent();
		return;
	}
	nwrap_endgrent();
}

CWRAP_EXPORT int getgrouplist(const char *user, gid_t group, gid_t *groups,
			      int *ngroups);

int getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_getgrouplist(user, group, groups, ngroups);
	}
	return nwrap_getgrouplist(user, group, groups, ngroups);
}

CWRAP_EXPORT int initgroups(const char *user, gid_t group);

int initgroups(const char *user, gid_t group)
{
	if (!nwrap_config()->pwgr_enabled) {
		return libc_initgroups(user, group);
	}
	return nwrap_initgroups(user, group);
}

CWRAP_EXPORT struct spwd *getspnam(const char *name);

struct spwd *getspnam(const char *name)
{
	if (!nwrap_config()->shadow_enabled) {
		return libc_getspnam(name);
	}
	return nwrap_getspnam(name);
}

CWRAP_EXPORT void setspent(void);

void setspent(void)
{
	if (!nwrap_config()->shadow_enabled) {
		libc_setspent();
		return;
	}
	nwrap_setspent();
}

CWRAP_EXPORT struct spwd *getspent(void);

struct spwd *getspent(void)
{
	if (!nwrap_config()->shadow_enabled) {
		return libc_getspent();
	}
	return nwrap_getspent();
}

CWRAP_EXPORT void endspent(void);

void endspent(void)
{
	if (!nwrap_config()->shadow_enabled) {
		libc_endspent();
		return;
	}
	nwrap_endspent();
}

CWRAP_EXPORT struct hostent *gethostbyname(const char *name);

struct hostent *gethostbyname(const char *name)
{
	const struct nwrap_config *cfg = nwrap_config();

	if (!cfg->hosts_enabled) {
		return libc_gethostbyname(name);
	}
	return nwrap_gethostbyname2(cfg, name, AF_INET);
}

CWRAP_EXPORT struct hostent *gethostbyname2(const char *name, int af);

struct hostent *gethostbyname2(const char *name, int af)
{
	const struct nwrap_config *cfg = nwrap_config();

	if (!cfg->hosts_enabled) {
		return libc_gethostbyname2(name, af);
	}
	return nwrap_gethostbyname2(cfg, name, af);
}

CWRAP_EXPORT int gethostbyname_r(const char *name, struct hostent *ret,
				 char *buf, size_t len, struct hostent **res,
				 int *herr);

int gethostbyname_r(const char *name, struct hostent *ret, char *buf,
		    size_t len, struct hostent **res, int *herr)
{
	const struct nwrap_config *cfg = nwrap_config();

	if (!cfg->hosts_enabled) {
		return libc_gethostbyname_r(name, ret, buf, len, res, herr);
	}
	return nwrap_gethostbyname2_r(cfg, name, AF_INET, ret, buf, len, res,
				      herr);
}

CWRAP_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret,
				  char *buf, size_t len, struct hostent **res,
				  int *herr);

int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf,
		     size_t len, struct hostent **res, int *herr)
{
	const struct nwrap_config *cfg = nwrap_config();

	if (!cfg->hosts_enabled) {
		return libc_gethostbyname2_r(name, af, ret, buf, len, res,
					     herr);
	}
	return nwrap_gethostbyname2_r(cfg, name, af, ret, buf, len, res, herr);
}

CWRAP_EXPORT struct hostent *gethostbyaddr(const void *addr, socklen_t alen,
					   int type);

struct hostent *gethostbyaddr(const void *addr, socklen_t alen, int type)
{
	if (!nwrap_config()->hosts_enabled) {
		return libc_gethostbyaddr(addr, alen, type);
	}
	return nwrap_gethostbyaddr(addr, alen, type);
}

CWRAP_EXPORT int gethostbyaddr_r(const void *addr, socklen_t alen, int type,
				 struct hostent *ret, char *buf, size_t len,
				 struct hostent **res, int *herr);

int gethostbyaddr_r(const void *addr, socklen_t alen, int type,
		    struct hostent *ret, char *buf, size_t len,
		    struct hostent **res, int *herr)
{
	if (!nwrap_config()->hosts_enabled) {
		return libc_gethostbyaddr_r(addr, alen, type, ret, buf, len,
					    res, herr);
	}
	return nwrap_gethostbyaddr_r(addr, alen, type, ret, buf, len, res,
				     herr);
}

CWRAP_EXPORT void sethostent(int stayopen);

void sethostent(int stayopen)
{
	if (!nwrap_config()->hosts_enabled) {
		libc_sethostent(stayopen);
		return;
	}
	nwrap_sethostent(stayopen);
}

CWRAP_EXPORT struct hostent *gethostent(void);

struct hostent *gethostent(void)
{
	if (!nwrap_config()->hosts_enabled) {
		return libc_gethostent();
	}
	return nwrap_gethostent();
}

CWRAP_EXPORT void endhostent(void);

void endhostent(void)
{
	if (!nwrap_config()->hosts_enabled) {
		libc_endhostent();
		return;
	}
	nwrap_endhostent();
}

CWRAP_EXPORT int getaddrinfo(const char *node, const char *service,
			     const struct addrinfo *hints,
			     struct addrinfo **res);

int getaddrinfo(const char *node, const char *service,
		const struct addrinfo *hints, struct addrinfo **res)
{
	if (!nwrap_config()->hosts_enabled) {
		return libc_getaddrinfo(node, service, hints, res);
	}
	return nwrap_getaddrinfo(node, service, hints, res);
}

CWRAP_EXPORT void freeaddrinfo(struct addrinfo *ai);

void freeaddrinfo(struct addrinfo *ai)
{
	if (!nwrap_config()->hosts_enabled) {
		libc_freeaddrinfo(ai);
		return;
	}
	nwrap_freeaddrinfo(ai);
}

CWRAP_EXPORT int getnameinfo(const struct sockaddr *sa, socklen_t salen,
			     char *host, socklen_t hostlen, char *serv,
			     socklen_t servlen, int flags);

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
		socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
	if (!nwrap_config()->hosts_enabled) {
		return libc_getnameinfo(sa, salen, host, hostlen, serv, servlen,
					flags);
	}
	return nwrap_getnameinfo(sa, salen, host, hostlen, serv, servlen,
				 flags);
}

CWRAP_EXPORT int gethostname(char *name, size_t len);

int gethostname(char *name, size_t len)
{
	if (!nwrap_config()->hostname_enabled) {
		return libc_gethostname(name, len);
	}
	return nwrap_gethostname(name, len);
}

CWRAP_EXPORT int uname(struct utsname *u);

int uname(struct utsname *u)
{
	if (!nwrap_config()->hostname_enabled) {
		return libc_uname(u);
	}
	return nwrap_uname(u);
}
