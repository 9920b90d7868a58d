/*
 * The resolver configuration of RESOLV_WRAPPER_CONF, in resolv.conf(5)
 * syntax, as glibc reads /etc/resolv.conf: `nameserver` (IPv4 or IPv6, the
 * first three), `search` and `domain` (the last one wins), `options`
 * ndots:, timeout:, attempts:, rotate, use-vc, edns0 (others ignored, as
 * glibc ignores them); then the RES_OPTIONS and LOCALDOMAIN variables, as
 * the resolver applies them. A bad value is reported in one line naming
 * the file and line and left out. Pure: no state.
 */
#include "rwrap.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rwrap_conf_defaults(struct rwrap_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->ndots = 1;
	c->timeout = 5;
	c->attempts = 2;
}

static bool rwrap_conf_num(const char *opt, const char *name, int max, int *out,
			   const char *where)
{
	size_t n = strlen(name);
	char *end;
	long v;

	if (strncmp(opt, name, n) != 0) {
		return false;
	}
	errno = 0;
	v = strtol(opt + n, &end, 10);
	if (errno != 0 || end == opt + n || *end != '\0' || v < 0) {
		CWRAP_ERROR("%s: bad option '%s', ignored", where, opt);
		return true;
	}
	*out = v > max ? max : (int)v;
	return true;
}

void rwrap_conf_options(struct rwrap_conf *c, const char *opts,
			const char *where)
{
	char buf[1024];
	char *save = NULL, *o;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (o = strtok_r(buf, " \t\r\n", &save); o != NULL;
	     o = strtok_r(NULL, " \t\r\n", &save)) {
		if (rwrap_conf_num(o, "ndots:", 15, &c->ndots, where) ||
		    rwrap_conf_num(o, "timeout:", 30, &c->timeout, where) ||
		    rwrap_conf_num(o, "attempts:", 5, &c->attempts, where)) {
			continue;
		}
		if (strcmp(o, "rotate") == 0) {
			c->rotate = true;
		} else if (strcmp(o, "use-vc") == 0) {
			c->usevc = true;
		} else if (strcmp(o, "edns0") == 0) {
			c->edns0 = true;
		}
	}
	if (c->timeout < 1) {
		c->timeout = 1;
	}
	if (c->attempts < 1) {
		c->attempts = 1;
	}
}

/* The search list from the words of `list`. */
static void rwrap_conf_search(struct rwrap_conf *c, char *list,
			      const char *where)
{
	char *save = NULL, *d;

	c->nsearch = 0;
	for (d = strtok_r(list, " \t\r\n", &save); d != NULL;
	     d = strtok_r(NULL, " \t\r\n", &save)) {
		if (!rwrap_name_valid(d) || strcmp(d, ".") == 0) {
			CWRAP_ERROR("%s: '%s' is not a domain name, ignored",
				    where, d);
			continue;
		}
		if (c->nsearch == RWRAP_MAXDNSRCH) {
			CWRAP_DEBUG("%s: more than %d search domains, '%s' "
				    "ignored",
				    where, RWRAP_MAXDNSRCH, d);
			continue;
		}
		rwrap_name_key(d, c->search[c->nsearch++], 256);
	}
}

static bool rwrap_conf_addr(const char *s, struct sockaddr_storage *ss,
			    socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *pct;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(53);
		*len = sizeof(*s4);
		return true;
	}
	if (strlen(s) >= sizeof(buf)) {
		return false;
	}
	strcpy(buf, s);
	pct = strchr(buf, '%');
	if (pct != NULL) {
		*pct++ = '\0';
	}
	if (inet_pton(AF_INET6, buf, &s6->sin6_addr) != 1) {
		return false;
	}
	if (pct != NULL) {
		char *end;
		unsigned long v = strtoul(pct, &end, 10);

		s6->sin6_scope_id = *end == '\0' && end != pct
					? (uint32_t)v
					: if_nametoindex(pct);
		if (s6->sin6_scope_id == 0) {
			return false;
		}
	}
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(53);
	*len = sizeof(*s6);
	return true;
}

void rwrap_conf_parse(const char *path, const char *text, struct rwrap_conf *c)
{
	const char *p = text;
	unsigned lineno = 0;

	rwrap_conf_defaults(c);
	while (p != NULL && *p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char line[1024], where[512], *kw, *save = NULL, *arg;

		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (n >= sizeof(line)) {
			CWRAP_ERROR("%s: line too long, ignored", where);
			p = nl != NULL ? nl + 1 : NULL;
			continue;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl != NULL ? nl + 1 : NULL;
		kw = strtok_r(line, " \t\r", &save);
		if (kw == NULL || kw[0] == '#' || kw[0] == ';') {
			continue;
		}
		arg = save;
		if (strcmp(kw, "nameserver") == 0) {
			char *a = strtok_r(NULL, " \t\r", &save);
			struct sockaddr_storage ss;
			socklen_t len;

			if (a == NULL || !rwrap_conf_addr(a, &ss, &len)) {
				CWRAP_ERROR(
				    "%s: nameserver '%s' is not an IPv4 "
				    "or IPv6 address, ignored",
				    where, a != NULL ? a : "");
			} else if (c->nns == RWRAP_MAXNS) {
				/* glibc uses the first three; so do we */
				CWRAP_DEBUG("%s: more than %d nameservers, "
					    "'%s' ignored",
					    where, RWRAP_MAXNS, a);
			} else {
				c->ns[c->nns] = ss;
				c->nslen[c->nns++] = len;
			}
		} else if (strcmp(kw, "search") == 0 ||
			   strcmp(kw, "domain") == 0) {
			rwrap_conf_search(c, arg != NULL ? arg : (char *)"",
					  where);
			if (kw[0] == 'd' && c->nsearch > 1) {
				c->nsearch = 1;
			}
		} else if (strcmp(kw, "options") == 0) {
			rwrap_conf_options(c, arg != NULL ? arg : "", where);
		}
	}
}
