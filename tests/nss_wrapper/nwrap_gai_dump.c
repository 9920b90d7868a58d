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
 * glibc's answer depends on the machine, ours must always be "same"). The sets
 * hold nothing real glibc would resolve by name except strings that are not
 * numeric for it (run the reference under nwrap_noinet
 * --deny: they fail with EAI_AGAIN instead of asking a server). No state.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
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
	} else {
		fprintf(
		    stderr,
		    "usage: nwrap_gai_dump numeric|flags|ni|null|addrconfig\n");
		return 2;
	}
	return 0;
}
