/*
 * getnameinfo while NSS_WRAPPER_HOSTS is set, as glibc's with its files
 * module, never asking a server. The name of an address comes from the
 * file (gethostbyaddr's line), then the module; an IPv4-mapped IPv6
 * address the file has no line for is looked up as IPv4, as glibc's DNS
 * module would. An address without a name gives its numeric form (with
 * %scope as glibc writes it, the scope cut when only the address fits), or
 * EAI_NONAME with NI_NAMEREQD. NI_NOFQDN
 * cuts the local domain, found as glibc finds it (nwrap_ni_domain), from
 * the answers of the file and the module. Buffers as glibc: a part whose
 * buffer is NULL or empty is skipped (both skipped: 0, or EAI_NONAME with
 * NI_NAMEREQD); a name or service that does not fit gives EAI_OVERFLOW and
 * leaves its buffer untouched, except a numeric port, which is cut as
 * snprintf cuts it. Service names come from /etc/services, through our own
 * cache. Locks: the hosts and services caches, each held only while read.
 */
#include "cwrap_platform.h"
#include "nwrap_backend.h"
#include "nwrap_libc.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The local domain for NI_NOFQDN, malloc'd, as glibc's getnameinfo finds
 * it: what follows the first dot of the canonical name of "localhost", else
 * of the host name (NSS_WRAPPER_HOSTNAME when set), else of the canonical
 * name of the host name, else of the name of 127.0.0.1. NULL when none has
 * a dot. glibc finds it once per process; we at each call, so it follows
 * the files. */
static char *nwrap_ni_domain(const struct nwrap_config *cfg)
{
	static const unsigned char lo[4] = {127, 0, 0, 1};
	char hostname[NWRAP_HOST_NAME_MAX + 2] = "";
	char *dom = NULL;

	for (int step = 0; step < 4 && dom == NULL; step++) {
		char *name = NULL;
		const char *dot;

		switch (step) {
		case 0:
			name = nwrap_host_canon(cfg, "localhost", NULL,
						AF_INET);
			break;
		case 1:
			if (cfg->hostname_enabled) {
				snprintf(hostname, sizeof(hostname), "%s",
					 cfg->hostname);
			} else if (libc_gethostname(hostname,
						    sizeof(hostname) - 1) !=
				   0) {
				hostname[0] = '\0';
			}
			hostname[sizeof(hostname) - 1] = '\0';
			name = strdup(hostname);
			break;
		case 2:
			if (hostname[0] != '\0') {
				name = nwrap_host_canon(cfg, hostname, NULL,
							AF_INET);
			}
			break;
		default:
			name = nwrap_host_canon(cfg, NULL, lo, AF_INET);
			break;
		}
		dot = name != NULL ? strchr(name, '.') : NULL;
		if (dot != NULL) {
			dom = strdup(dot + 1);
		}
		free(name);
	}
	return dom;
}

/* `name` into host, with NI_NOFQDN without the local domain (where glibc
 * finds it: its first occurrence, after a dot); 0 or EAI_OVERFLOW. */
static int nwrap_ni_name(const struct nwrap_config *cfg, const char *name,
			 char *host, socklen_t hostlen, int flags)
{
	size_t n = strlen(name);

	if (flags & NI_NOFQDN) {
		char *dom = nwrap_ni_domain(cfg);
		const char *c = dom != NULL ? strstr(name, dom) : NULL;

		if (c != NULL && c != name && c[-1] == '.') {
			n = (size_t)(c - 1 - name);
		}
		free(dom);
	}
	if (n + 1 > hostlen) {
		return EAI_OVERFLOW;
	}
	memcpy(host, name, n);
	host[n] = '\0';
	return 0;
}

/* The name of the address, malloc'd, or NULL. */
static char *nwrap_ni_lookup(const struct nwrap_config *cfg, int family,
			     const unsigned char *addr)
{
	char *name = nwrap_host_canon(cfg, NULL, addr, family);

	if (name == NULL && family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED((const void *)addr)) {
		name = nwrap_host_canon(cfg, NULL, addr + 12, AF_INET);
	}
	return name;
}

/* The numeric form, with "%scope" as glibc writes it: the interface's
 * name for link-local addresses, the number otherwise. As glibc, an
 * address that fits is written even when its scope then does not: the
 * scope is cut (and EAI_OVERFLOW returned). */
static int nwrap_ni_numeric(int family, const unsigned char *addr,
			    uint32_t scope, char *host, socklen_t hostlen)
{
	char buf[INET6_ADDRSTRLEN], sc[IF_NAMESIZE + 12];
	size_t n;

	inet_ntop(family, addr, buf, sizeof(buf));
	n = strlen(buf);
	if (n + 1 > hostlen) {
		return EAI_OVERFLOW;
	}
	memcpy(host, buf, n + 1);
	if (family == AF_INET6 && scope != 0) {
		const struct in6_addr *a6 = (const void *)addr;
		char ifname[IF_NAMESIZE];

		if ((IN6_IS_ADDR_LINKLOCAL(a6) ||
		     IN6_IS_ADDR_MC_LINKLOCAL(a6)) &&
		    if_indextoname(scope, ifname) != NULL) {
			snprintf(sc, sizeof(sc), "%%%s", ifname);
		} else {
			snprintf(sc, sizeof(sc), "%%%u", (unsigned)scope);
		}
		if ((size_t)snprintf(host + n, hostlen - n, "%s", sc) >=
		    hostlen - n) {
			return EAI_OVERFLOW;
		}
	}
	return 0;
}

static int nwrap_ni_host(int family, const unsigned char *addr,
			 uint32_t scope, char *host, socklen_t hostlen,
			 int flags)
{
	if (!(flags & NI_NUMERICHOST)) {
		const struct nwrap_config *cfg = nwrap_config();
		char *name = nwrap_ni_lookup(cfg, family, addr);

		if (name != NULL) {
			int rc = nwrap_ni_name(cfg, name, host, hostlen, flags);

			free(name);
			return rc;
		}
	}
	if (flags & NI_NAMEREQD) {
		return EAI_NONAME;
	}
	return nwrap_ni_numeric(family, addr, scope, host, hostlen);
}

/* The service of `port` (network order): its name for tcp (udp with
 * NI_DGRAM) from the services file, or the number (cut to the buffer, as
 * glibc's snprintf does, when it does not fit). */
static int nwrap_ni_serv(uint16_t port, char *serv, socklen_t servlen,
			 int flags)
{
	int rc = 0;

	if (!(flags & NI_NUMERICSERV)) {
		const struct nwrap_db *db =
		    nwrap_cache_acquire(&nwrap_cache_services);
		uint32_t i =
		    db == NULL ? NWRAP_NONE
			       : nwrap_db_service_by_port(
				     db, ntohs(port),
				     (flags & NI_DGRAM) ? "udp" : "tcp");

		if (i != NWRAP_NONE) {
			const char *s = db->text + db->rec.sv[i].names;
			size_t n = strlen(s);

			if (n + 1 > servlen) {
				rc = EAI_OVERFLOW;
			} else {
				memcpy(serv, s, n + 1);
			}
		}
		nwrap_cache_release(&nwrap_cache_services);
		if (i != NWRAP_NONE) {
			return rc;
		}
	}
	if ((socklen_t)snprintf(serv, servlen, "%u", (unsigned)ntohs(port)) >=
	    servlen) {
		return EAI_OVERFLOW;
	}
	return 0;
}

int nwrap_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
		      socklen_t hostlen, char *serv, socklen_t servlen,
		      int flags)
{
	unsigned char addr[16];
	uint32_t scope = 0;
	uint16_t port;
	int family;
	int rc;

	if (flags & ~(NI_NUMERICHOST | NI_NUMERICSERV | NI_NOFQDN |
		      NI_NAMEREQD | NI_DGRAM | NI_IDN)) {
		return EAI_BADFLAGS;
	}
	if (sa == NULL || salen < (socklen_t)sizeof(sa_family_t)) {
		return EAI_FAMILY;
	}
	family = sa->sa_family;
	if (family != AF_INET && family != AF_INET6) {
		return libc_getnameinfo(sa, salen, host, hostlen, serv, servlen,
					flags);
	}
	/* glibc asks for a name only with a buffer to put it in */
	if ((flags & NI_NAMEREQD) && host == NULL && serv == NULL) {
		return EAI_NONAME;
	}
	if (family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		if (salen < (socklen_t)sizeof(struct sockaddr_in)) {
			return EAI_FAMILY;
		}
		memcpy(addr, &s4->sin_addr, 4);
		port = s4->sin_port;
	} else {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		if (salen < (socklen_t)sizeof(struct sockaddr_in6)) {
			return EAI_FAMILY;
		}
		memcpy(addr, &s6->sin6_addr, 16);
		scope = s6->sin6_scope_id;
		port = s6->sin6_port;
	}
	if (host != NULL && hostlen > 0) {
		rc = nwrap_ni_host(family, addr, scope, host, hostlen, flags);
		if (rc != 0) {
			return rc;
		}
	}
	if (serv != NULL && servlen > 0) {
		return nwrap_ni_serv(port, serv, servlen, flags);
	}
	return 0;
}
