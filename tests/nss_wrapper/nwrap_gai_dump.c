/*
 * nwrap_gai_dump [SET]: run a fixed list of getaddrinfo()/getnameinfo()
 * queries and print one line per query with everything a caller sees
 * (return code, and each node's family, socket type, protocol, address,
 * port, scope id and canonical name, in order). Run once without any
 * wrapper for real glibc's answers and once under nss_wrapper with
 * NSS_WRAPPER_HOSTS set: the lines must be equal (nss_hermetic.sh).
 * SET: "numeric" (numeric and NULL hosts, every type/protocol/service
 * combination), "flags" (families and flags), "ni" (getnameinfo of
 * numeric answers), "null" (a NULL node for both families), "addrconfig" (each
 * AI_ADDRCONFIG query beside the same without the flag, "same" or "differs":
 * glibc's answer depends on the machine, ours must always be "same"),
 * "nibuf ADDR..." (getnameinfo with every flag and buffer combination),
 * "hostent NAME... -- ADDR..." (the hostent calls, getaddrinfo's address
 * sets and the enumeration; nss_glibc_files.sh runs glibc's reference with
 * "hosts: files" on the same file). The sets
 * hold nothing real glibc would resolve by name except strings that are not
 * numeric for it (run the reference under nwrap_noinet
 * --deny: they fail with EAI_AGAIN instead of asking a server). No state.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static FILE *out;

static void dump(const char *node, const char *serv, int family, int st, int pr,
		 int flags)
{
	struct addrinfo h = {.ai_flags = flags,
			     .ai_family = family,
			     .ai_socktype = st,
			     .ai_protocol = pr};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(node, serv, &h, &res);

	fprintf(out, "%s|%s|f%d|t%d|p%d|x%x => %d", node ? node : "(null)",
		serv ? serv : "(null)", family, st, pr, (unsigned)flags, rc);
	for (struct addrinfo *a = res; rc == 0 && a != NULL; a = a->ai_next) {
		char buf[INET6_ADDRSTRLEN] = "?";
		unsigned port = 0, scope = 0;

		if (a->ai_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)a->ai_addr;

			inet_ntop(AF_INET, &s->sin_addr, buf, sizeof(buf));
			port = ntohs(s->sin_port);
		} else if (a->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const void *)a->ai_addr;

			inet_ntop(AF_INET6, &s->sin6_addr, buf, sizeof(buf));
			port = ntohs(s->sin6_port);
			scope = s->sin6_scope_id;
		}
		fprintf(out, " [%d %d %d %s %u %u %u %s]", a->ai_family,
			a->ai_socktype, a->ai_protocol, buf, port, scope,
			(unsigned)a->ai_addrlen,
			a->ai_canonname ? a->ai_canonname : "-");
	}
	fprintf(out, "\n");
	if (rc == 0) {
		freeaddrinfo(res);
	}
}

static const char *const serv_all[] = {
    NULL,   "22",  "ssh",   "domain",	     "tftp", "discard",
    "sink", "0",   "65535", "65536",	     "-1",   "+22",
    " 22",  "22x", "0x16",  "nosuchservice", "",
};

static void set_numeric(void)
{
	static const char *const nodes[] = {NULL, "127.0.0.1", "::1"};
	static const int sts[] = {
	    0, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET, 6, 99};
	static const int prs[] = {0,   IPPROTO_TCP,  IPPROTO_UDP,  IPPROTO_SCTP,
				  136, IPPROTO_DCCP, IPPROTO_ICMP, 255};

	for (size_t n = 0; n < sizeof(nodes) / sizeof(*nodes); n++) {
		for (size_t s = 0; s < sizeof(serv_all) / sizeof(*serv_all);
		     s++) {
			for (size_t t = 0; t < sizeof(sts) / sizeof(*sts);
			     t++) {
				for (size_t p = 0;
				     p < sizeof(prs) / sizeof(*prs); p++) {
					/* the order of a NULL node's two
					 * addresses depends on the machine's
					 * routes: one family at a time */
					dump(nodes[n], serv_all[s],
					     nodes[n] ? 0 : AF_INET, sts[t],
					     prs[p], AI_PASSIVE);
					dump(nodes[n], serv_all[s],
					     nodes[n] ? 0 : AF_INET6, sts[t],
					     prs[p], AI_NUMERICSERV);
				}
			}
		}
	}
}

static void set_flags(void)
{
	static const char *const nodes[] = {
	    NULL,
	    "127.0.0.1",
	    "10.1.2.3",
	    "127.1",
	    "0x7f.0.0.1",
	    "2130706433",
	    "1.2.3.4 ",
	    " 1.2.3.4",
	    "1.2.3.4.",
	    "1.2.3.256",
	    "::1",
	    "::",
	    "0.0.0.0",
	    "fd00::5357:5faa",
	    "::ffff:1.2.3.4",
	    "fe80::1%1",
	    "fe80::1%lo",
	    "fe80::1%99999",
	    "fe80::1%nosuchif",
	    "fd00::1%1",
	    "ff02::1%1",
	    "::1%",
	    /* glibc takes an interface name for link-local scopes only,
	     * a number as strtoull() reads it */
	    "fd00::1%lo",
	    "::1%lo",
	    "ff02::1%lo",
	    "ff01::1%lo",
	    "ff05::1%lo",
	    "fe80::1% 1",
	    "fe80::1%+1",
	    "fd00::1%-0",
	    "fd00::1%01",
	    "fd00::1%4294967295",
	    "fd00::1%4294967296",
	    "fd00::1%1x",
	    "0::53%7:5f0a",
	    "",
	    "[::1]",
	    "1::2::3",
	    "FD00::ABCD",
	    "127.0.0.170",
	};
	static const int fams[] = {0, AF_INET, AF_INET6, AF_UNIX, 99};
	static const int flags[] = {0,
				    AI_PASSIVE,
				    AI_CANONNAME,
				    AI_NUMERICHOST,
				    AI_NUMERICHOST | AI_CANONNAME,
				    AI_V4MAPPED,
				    AI_V4MAPPED | AI_ALL,
				    AI_ALL,
				    AI_V4MAPPED | AI_PASSIVE,
				    0x10000};
	static const char *const servs[] = {NULL, "22", "ssh", "tftp"};

	for (size_t n = 0; n < sizeof(nodes) / sizeof(*nodes); n++) {
		for (size_t f = 0; f < sizeof(fams) / sizeof(*fams); f++) {
			for (size_t x = 0; x < sizeof(flags) / sizeof(*flags);
			     x++) {
				for (size_t s = 0;
				     s < sizeof(servs) / sizeof(*servs); s++) {
					if (nodes[n] == NULL && fams[f] == 0) {
						continue; /* see set_numeric */
					}
					dump(nodes[n], servs[s], fams[f],
					     s == 3 ? SOCK_DGRAM : 0, 0,
					     flags[x]);
				}
			}
		}
	}
}

static void ni(const char *addr, unsigned scope, int port, int flags)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	char host[NI_MAXHOST] = "", serv[NI_MAXSERV] = "";
	int rc;

	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		s6->sin6_port = htons((unsigned short)port);
		s6->sin6_scope_id = scope;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &s4->sin_addr);
		s4->sin_port = htons((unsigned short)port);
		len = sizeof(*s4);
	}
	rc = getnameinfo((void *)&ss, len, host, sizeof(host), serv,
			 sizeof(serv), flags);
	fprintf(out, "ni %s%%%u:%d x%x => %d %s %s\n", addr, scope, port,
		(unsigned)flags, rc, rc == 0 ? host : "-",
		rc == 0 ? serv : "-");
}

static void set_ni(void)
{
	static const char *const addrs[] = {"192.0.2.1", "2001:db8::1",
					    "fe80::1", "ff02::1",
					    "::ffff:192.0.2.1"};
	/* numeric hosts only: real glibc would ask DNS for a name */
	static const int flags[] = {
	    NI_NUMERICHOST, NI_NUMERICHOST | NI_NUMERICSERV,
	    NI_NUMERICHOST | NI_DGRAM, NI_NUMERICHOST | NI_NOFQDN};
	static const int ports[] = {22, 53, 69, 0, 12345};

	for (size_t a = 0; a < sizeof(addrs) / sizeof(*addrs); a++) {
		for (size_t f = 0; f < sizeof(flags) / sizeof(*flags); f++) {
			for (size_t p = 0; p < sizeof(ports) / sizeof(*ports);
			     p++) {
				ni(addrs[a], a >= 1 && a <= 3 ? 1 : 0, ports[p],
				   flags[f]);
			}
		}
	}
}

/* A socket address for `addr` ("a.b.c.d" or IPv6 with an optional
 * %scope number) and `port`. */
static socklen_t sockaddr_of(const char *addr, int port,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (void *)ss;
		char buf[INET6_ADDRSTRLEN];
		const char *pct = strchr(addr, '%');

		snprintf(buf, sizeof(buf), "%.*s",
			 pct ? (int)(pct - addr) : (int)strlen(addr), addr);
		s6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, buf, &s6->sin6_addr);
		s6->sin6_port = htons((unsigned short)port);
		s6->sin6_scope_id = pct ? (unsigned)atoi(pct + 1) : 0;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (void *)ss;

	s4->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &s4->sin_addr);
	s4->sin_port = htons((unsigned short)port);
	return sizeof(*s4);
}

/* A buffer as the caller sees it after the call: every byte ('@' for a
 * NUL, '#' untouched), up to 24. */
static void put_buf(const char *b, int len)
{
	fputc('[', out);
	for (int i = 0; i < len && i < 24; i++) {
		fputc(b[i] == '\0' ? '@' : b[i], out);
	}
	fputc(']', out);
}

/* getnameinfo with every combination of the five flags and of NULL, empty,
 * short and long host and service buffers (-1: NULL). */
static void set_nibuf(int argc, char **argv)
{
	static const int fl[] = {NI_NUMERICHOST, NI_NUMERICSERV, NI_NAMEREQD,
				 NI_NOFQDN, NI_DGRAM};
	static const int hls[] = {-1, 0, 1, 4, 5, 9, 1025};
	static const int sls[] = {-1, 0, 2, 3, 4, 32};
	static const int ports[] = {22, 12345};

	for (int a = 0; a < argc; a++) {
		for (size_t p = 0; p < sizeof(ports) / sizeof(*ports); p++) {
			struct sockaddr_storage ss;
			socklen_t len = sockaddr_of(argv[a], ports[p], &ss);

			for (int m = 0; m < 32; m++) {
				int flags = 0;

				for (int i = 0; i < 5; i++) {
					flags |= (m & (1 << i)) ? fl[i] : 0;
				}
				for (size_t h = 0; h < sizeof(hls) / sizeof(*hls);
				     h++) {
					for (size_t v = 0;
					     v < sizeof(sls) / sizeof(*sls);
					     v++) {
						char hb[1025], sb[32];
						int hl = hls[h], sl = sls[v], rc;

						memset(hb, '#', sizeof(hb));
						memset(sb, '#', sizeof(sb));
						rc = getnameinfo(
						    (void *)&ss, len,
						    hl < 0 ? NULL : hb,
						    hl < 0 ? 0 : (socklen_t)hl,
						    sl < 0 ? NULL : sb,
						    sl < 0 ? 0 : (socklen_t)sl,
						    flags);
						fprintf(out,
							"ni %s:%d x%x h%d s%d "
							"=> %d ",
							argv[a], ports[p],
							(unsigned)flags, hl, sl,
							rc);
						put_buf(hb, hl);
						put_buf(sb, sl);
						fputc('\n', out);
					}
				}
			}
			/* too short an address, with and without buffers */
			for (int m = 0; m < 2; m++) {
				char hb[64];
				int rc = getnameinfo(
				    (void *)&ss, len - 1, m ? hb : NULL,
				    m ? sizeof(hb) : 0, NULL, 0, NI_NAMEREQD);

				fprintf(out, "ni %s short%d => %d\n", argv[a],
					m, rc);
			}
		}
	}
}

static void put_hostent(const char *what, const struct hostent *h)
{
	char b[INET6_ADDRSTRLEN];

	if (h == NULL) {
		fprintf(out, "%s => NULL h_errno %d\n", what, h_errno);
		return;
	}
	fprintf(out, "%s => %s %d %d aliases", what, h->h_name, h->h_addrtype,
		h->h_length);
	for (char **a = h->h_aliases; *a != NULL; a++) {
		fprintf(out, " %s", *a);
	}
	fprintf(out, " addrs");
	for (char **a = h->h_addr_list; *a != NULL; a++) {
		fprintf(out, " %s", inet_ntop(h->h_addrtype, *a, b, sizeof(b)));
	}
	fputc('\n', out);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* getaddrinfo's addresses (sorted: glibc orders them by the machine's
 * routes, we in file order) and the first node's canonical name. */
static void gai_set(const char *name, int family, int flags)
{
	struct addrinfo h = {.ai_flags = flags | AI_CANONNAME,
			     .ai_family = family,
			     .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL;
	char **v = NULL;
	size_t n = 0;
	int rc = getaddrinfo(name, NULL, &h, &res);

	fprintf(out, "gai %s f%d x%x => %d %s", name, family, (unsigned)flags,
		rc, rc == 0 && res->ai_canonname ? res->ai_canonname : "-");
	for (struct addrinfo *a = rc == 0 ? res : NULL; a != NULL;
	     a = a->ai_next) {
		char b[INET6_ADDRSTRLEN];
		const void *p =
		    a->ai_family == AF_INET6
			? (const void *)&((struct sockaddr_in6 *)(void *)
					      a->ai_addr)
			      ->sin6_addr
			: (const void *)&((struct sockaddr_in *)(void *)
					      a->ai_addr)
			      ->sin_addr;

		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = strdup(inet_ntop(a->ai_family, p, b, sizeof(b)));
	}
	if (n > 1) {
		qsort(v, n, sizeof(*v), cmp_str);
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(out, " %s", v[i]);
		free(v[i]);
	}
	free(v);
	fputc('\n', out);
	if (rc == 0) {
		freeaddrinfo(res);
	}
}

/* The hostent calls and getaddrinfo's addresses for NAME... -- ADDR...,
 * then the whole enumeration. */
static void set_hostent(int argc, char **argv)
{
	bool addrs = false;
	struct hostent *h;

	for (int i = 0; i < argc; i++) {
		char what[256];

		if (strcmp(argv[i], "--") == 0) {
			addrs = true;
			continue;
		}
		if (addrs) {
			struct sockaddr_storage ss;
			socklen_t len = sockaddr_of(argv[i], 0, &ss);
			const void *a =
			    len == sizeof(struct sockaddr_in6)
				? (const void *)&((struct sockaddr_in6 *)(void *)&ss)
				      ->sin6_addr
				: (const void *)&((struct sockaddr_in *)(void *)&ss)
				      ->sin_addr;
			int fam = len == sizeof(struct sockaddr_in6) ? AF_INET6
								     : AF_INET;

			snprintf(what, sizeof(what), "byaddr %s", argv[i]);
			put_hostent(what, gethostbyaddr(a, fam == AF_INET6
								? 16
								: 4,
							 fam));
			continue;
		}
		snprintf(what, sizeof(what), "byname %s", argv[i]);
		put_hostent(what, gethostbyname(argv[i]));
		snprintf(what, sizeof(what), "byname2 6 %s", argv[i]);
		put_hostent(what, gethostbyname2(argv[i], AF_INET6));
		/* a buffer too small for the answer (glibc's files module
		 * also fails with ERANGE for a name it does not find when the
		 * buffer cannot hold a line: only names found are asked) */
		if (gethostbyname(argv[i]) != NULL) {
			struct hostent he, *res = NULL;
			char small[8];
			int herr = 0;
			int rc = gethostbyname_r(argv[i], &he, small,
						 sizeof(small), &res, &herr);

			fprintf(out, "byname_r %s 8 => %d %s h_errno %d\n",
				argv[i], rc, res ? "res" : "NULL", herr);
		}
		gai_set(argv[i], AF_UNSPEC, 0);
		gai_set(argv[i], AF_INET, 0);
		gai_set(argv[i], AF_INET6, 0);
		gai_set(argv[i], AF_INET6, AI_V4MAPPED | AI_ALL);
	}
	sethostent(0);
	while ((h = gethostent()) != NULL) {
		put_hostent("ent", h);
	}
	endhostent();
}

/* A query with AI_ADDRCONFIG and the same without: one line saying
 * whether the answers are the same (what nss_wrapper documents: the flag
 * filters nothing), with both answers when they are not. */
static void addrconfig_pair(const char *node, int family, int flags)
{
	char *with = NULL, *without = NULL;
	size_t wlen = 0, wolen = 0;
	FILE *saved = out;
	const char *w, *wo;

	out = open_memstream(&with, &wlen);
	dump(node, "22", family, SOCK_STREAM, 0, flags | AI_ADDRCONFIG);
	fclose(out);
	out = open_memstream(&without, &wolen);
	dump(node, "22", family, SOCK_STREAM, 0, flags);
	fclose(out);
	out = saved;
	w = strstr(with, "=>");
	wo = strstr(without, "=>");
	if (w != NULL && wo != NULL && strcmp(w, wo) == 0) {
		fprintf(out, "same %s", with);
	} else {
		fprintf(out, "differs %sand %s", with, without);
	}
	free(with);
	free(without);
}

static void set_addrconfig(void)
{
	static const char *const nodes[] = {NULL, "127.0.0.1", "::1",
					    "192.0.2.1", "2001:db8::1"};
	static const int fams[] = {0, AF_INET, AF_INET6};

	for (size_t n = 0; n < sizeof(nodes) / sizeof(*nodes); n++) {
		for (size_t f = 0; f < sizeof(fams) / sizeof(*fams); f++) {
			addrconfig_pair(nodes[n], fams[f], 0);
			addrconfig_pair(nodes[n], fams[f], AI_PASSIVE);
			addrconfig_pair(nodes[n], fams[f], AI_V4MAPPED);
		}
	}
}

int main(int argc, char **argv)
{
	const char *set = argc > 1 ? argv[1] : "numeric";

	out = stdout;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (strcmp(set, "numeric") == 0) {
		set_numeric();
	} else if (strcmp(set, "flags") == 0) {
		set_flags();
	} else if (strcmp(set, "ni") == 0) {
		set_ni();
	} else if (strcmp(set, "null") == 0) {
		/* both families: real glibc sorts them with real sockets */
		dump(NULL, "22", AF_UNSPEC, SOCK_STREAM, 0, AI_PASSIVE);
		dump(NULL, "22", AF_UNSPEC, SOCK_STREAM, 0, 0);
	} else if (strcmp(set, "addrconfig") == 0) {
		set_addrconfig();
	} else if (strcmp(set, "nibuf") == 0) {
		set_nibuf(argc - 2, argv + 2);
	} else if (strcmp(set, "hostent") == 0) {
		set_hostent(argc - 2, argv + 2);
	} else {
		fprintf(
		    stderr,
		    "usage: nwrap_gai_dump numeric|flags|ni|null|addrconfig\n"
		    "       nwrap_gai_dump nibuf ADDR...\n"
		    "       nwrap_gai_dump hostent NAME... [-- ADDR...]\n");
		return 2;
	}
	return 0;
}
