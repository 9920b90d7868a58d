/*
 * Hosts under the preloaded nss_wrapper: gethostbyname*, gethostbyaddr*
 * and their _r forms, the hosts enumeration, getaddrinfo (families,
 * V4MAPPED/ALL, services, socket types, numeric hosts, errors),
 * freeaddrinfo (ours and glibc's on each other's results), getnameinfo
 * flags, gethostname() and uname() (read at each call), names with a
 * trailing dot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "nwrap_test.h"

static const char *hosts =
    "fd00::5357:5faa test.cwrap.org\n"
    "127.0.0.170 test.cwrap.org\n"
    "127.0.0.10\tserver.cwrap.org server srv   # a comment\n"
    "127.0.0.11 other.cwrap.org SERVER\n"
    "  # only a comment\n"
    "10.0.0.1 v4only.cwrap.org\n"
    "300.1.1.1 bad.cwrap.org\n"
    "10.0.0.2\n"
    "fe80::1%lo linklocal.cwrap.org\n";

static char *ntop(int af, const void *a)
{
	static char buf[INET6_ADDRSTRLEN];

	return (char *)inet_ntop(af, a, buf, sizeof(buf));
}

static void test_gethostbyname(void **state)
{
	struct hostent *h;

	(void)state;
	assert_true(nt_wrapper_bool("nss_wrapper_hosts_enabled"));
	assert_false(nt_wrapper_bool("nss_wrapper_enabled"));

	h = gethostbyname("server.cwrap.org");
	assert_non_null(h);
	assert_string_equal(h->h_name, "server.cwrap.org");
	assert_int_equal(h->h_addrtype, AF_INET);
	assert_int_equal(h->h_length, 4);
	assert_string_equal(h->h_aliases[0], "server");
	assert_string_equal(h->h_aliases[1], "srv");
	assert_null(h->h_aliases[2]);
	assert_string_equal(ntop(AF_INET, h->h_addr_list[0]), "127.0.0.10");
	assert_null(h->h_addr_list[1]);

	/* an alias, any case, on two lines: both addresses, first name */
	h = gethostbyname("Server");
	assert_non_null(h);
	assert_string_equal(h->h_name, "server.cwrap.org");
	assert_string_equal(ntop(AF_INET, h->h_addr_list[0]), "127.0.0.10");
	assert_string_equal(ntop(AF_INET, h->h_addr_list[1]), "127.0.0.11");
	assert_null(h->h_addr_list[2]);

	h = gethostbyname2("test.cwrap.org", AF_INET6);
	assert_non_null(h);
	assert_int_equal(h->h_length, 16);
	assert_string_equal(ntop(AF_INET6, h->h_addr_list[0]),
			    "fd00::5357:5faa");
	assert_null(h->h_addr_list[1]);
	h = gethostbyname("test.cwrap.org");
	assert_non_null(h);
	assert_string_equal(ntop(AF_INET, h->h_addr_list[0]), "127.0.0.170");

	h = gethostbyname("192.0.2.7"); /* numeric: no line needed */
	assert_non_null(h);
	assert_string_equal(h->h_name, "192.0.2.7");
	assert_string_equal(ntop(AF_INET, h->h_addr_list[0]), "192.0.2.7");

	assert_null(gethostbyname("nosuch.cwrap.org"));
	assert_int_equal(h_errno, HOST_NOT_FOUND);
	assert_null(gethostbyname("bad.cwrap.org"));
	assert_null(gethostbyname2("v4only.cwrap.org", AF_INET6));
	assert_int_equal(h_errno, HOST_NOT_FOUND);
}

static void test_gethostbyname_r_sizes(void **state)
{
	struct hostent he, *res;
	int herr, ok = 0;

	(void)state;
	for (size_t len = 0; len < 200; len++) {
		char *buf = malloc(len > 0 ? len : 1);
		int rc = gethostbyname_r("server", &he, buf, len, &res, &herr);

		if (rc == 0) {
			ok++;
			assert_ptr_equal(res, &he);
			assert_string_equal(he.h_name, "server.cwrap.org");
			assert_string_equal(ntop(AF_INET, he.h_addr_list[1]),
					    "127.0.0.11");
		} else {
			assert_int_equal(rc, ERANGE);
			assert_int_equal(herr, NETDB_INTERNAL);
			assert_null(res);
			assert_int_equal(ok, 0);
		}
		free(buf);
	}
	assert_true(ok > 0);
	{
		char buf[512];

		assert_int_equal(gethostbyname_r("nosuch", &he, buf,
						 sizeof(buf), &res, &herr),
				 0);
		assert_null(res);
		assert_int_equal(herr, HOST_NOT_FOUND);
		assert_int_equal(gethostbyname2_r("test.cwrap.org", AF_INET6,
						  &he, buf, sizeof(buf), &res,
						  &herr),
				 0);
		assert_non_null(res);
		assert_int_equal(he.h_addrtype, AF_INET6);
	}
}

static void test_gethostbyaddr(void **state)
{
	struct in_addr a4;
	struct in6_addr a6;
	struct hostent *h, he, *res;
	char buf[512];
	int herr;

	(void)state;
	inet_pton(AF_INET, "127.0.0.10", &a4);
	h = gethostbyaddr(&a4, sizeof(a4), AF_INET);
	assert_non_null(h);
	assert_string_equal(h->h_name, "server.cwrap.org");
	assert_string_equal(h->h_aliases[0], "server");

	inet_pton(AF_INET6, "fd00::5357:5faa", &a6);
	assert_int_equal(gethostbyaddr_r(&a6, sizeof(a6), AF_INET6, &he, buf,
					 sizeof(buf), &res, &herr),
			 0);
	assert_non_null(res);
	assert_string_equal(he.h_name, "test.cwrap.org");

	inet_pton(AF_INET, "127.0.0.99", &a4);
	assert_null(gethostbyaddr(&a4, sizeof(a4), AF_INET));
	assert_int_equal(h_errno, HOST_NOT_FOUND);
	assert_int_equal(gethostbyaddr_r(&a4, 3, AF_INET, &he, buf, sizeof(buf),
					 &res, &herr),
			 EINVAL);
}

/* As glibc's files module: the IPv4 lines only. */
static void test_gethostent(void **state)
{
	static const char *const order[] = {"test.cwrap.org", "server.cwrap.org",
					     "other.cwrap.org",
					     "v4only.cwrap.org"};
	struct hostent *h;
	size_t n = 0;

	(void)state;
	sethostent(1);
	while ((h = gethostent()) != NULL) {
		assert_true(n < CWRAP_ARRAY_SIZE(order));
		assert_string_equal(h->h_name, order[n]);
		assert_int_equal(h->h_addrtype, AF_INET);
		assert_non_null(h->h_addr_list[0]);
		assert_null(h->h_addr_list[1]);
		n++;
		assert_non_null(gethostbyname("srv"));
	}
	assert_int_equal(n, CWRAP_ARRAY_SIZE(order));
	endhostent();
}

/* "family socktype protocol address port canonname" per node. */
static char *ai_str(const struct addrinfo *ai)
{
	static char out[2048];
	size_t o = 0;

	out[0] = '\0';
	for (; ai != NULL; ai = ai->ai_next) {
		char a[INET6_ADDRSTRLEN];
		int port;

		if (ai->ai_family == AF_INET6) {
			struct sockaddr_in6 *s = (void *)ai->ai_addr;

			assert_int_equal(ai->ai_addrlen, sizeof(*s));
			inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
			port = ntohs(s->sin6_port);
		} else {
			struct sockaddr_in *s = (void *)ai->ai_addr;

			assert_int_equal(ai->ai_addrlen, sizeof(*s));
			inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
			port = ntohs(s->sin_port);
		}
		o += (size_t)snprintf(
		    out + o, sizeof(out) - o, "%s%d/%d/%d %s %d %s",
		    o ? "; " : "", ai->ai_family, ai->ai_socktype,
		    ai->ai_protocol, a, port,
		    ai->ai_canonname ? ai->ai_canonname : "-");
	}
	return out;
}

static int gai(const char *node, const char *serv, int flags, int family,
	       int socktype, int protocol, char **str)
{
	struct addrinfo h = {.ai_flags = flags,
			     .ai_family = family,
			     .ai_socktype = socktype,
			     .ai_protocol = protocol};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(node, serv, &h, &res);

	*str = NULL;
	if (rc == 0) {
		*str = strdup(ai_str(res));
		freeaddrinfo(res);
	}
	return rc;
}

#define GAI_OK(expect, ...)                                                    \
	do {                                                                   \
		char *s_;                                                      \
		assert_int_equal(gai(__VA_ARGS__, &s_), 0);                    \
		assert_string_equal(s_, expect);                               \
		free(s_);                                                      \
	} while (0)
#define GAI_ERR(err, ...)                                                      \
	do {                                                                   \
		char *s_;                                                      \
		assert_int_equal(gai(__VA_ARGS__, &s_), err);                  \
		free(s_);                                                      \
	} while (0)

static void test_getaddrinfo_families(void **state)
{
	(void)state;
	/* what `getent ahostsv6` asks */
	GAI_OK("10/2/17 fd00::5357:5faa 0 test.cwrap.org; "
	       "10/1/6 fd00::5357:5faa 0 test.cwrap.org",
	       "test.cwrap.org", NULL,
	       AI_CANONNAME | AI_V4MAPPED | AI_ADDRCONFIG, AF_INET6, 0, 0);
	GAI_OK("2/2/17 127.0.0.170 0 -; 2/1/6 127.0.0.170 0 -",
	       "test.cwrap.org", NULL, 0, AF_INET, 0, 0);
	GAI_OK("10/2/17 fd00::5357:5faa 0 -; 10/1/6 fd00::5357:5faa 0 -; "
	       "2/2/17 127.0.0.170 0 -; 2/1/6 127.0.0.170 0 -",
	       "TEST.cwrap.org", NULL, 0, AF_UNSPEC, 0, 0);
	GAI_OK("10/1/6 fd00::5357:5faa 0 -; 10/1/6 ::ffff:127.0.0.170 0 -",
	       "test.cwrap.org", NULL, AI_V4MAPPED | AI_ALL, AF_INET6,
	       SOCK_STREAM, 0);
	GAI_OK("10/1/6 ::ffff:10.0.0.1 0 v4only.cwrap.org", "v4only.cwrap.org",
	       NULL, AI_V4MAPPED | AI_CANONNAME, AF_INET6, SOCK_STREAM, 0);
	GAI_ERR(EAI_NONAME, "v4only.cwrap.org", NULL, 0, AF_INET6, 0, 0);
	GAI_ERR(EAI_NONAME, "nosuch.cwrap.org", NULL, 0, AF_UNSPEC, 0, 0);
	GAI_ERR(EAI_NONAME, "test.cwrap.org", NULL, AI_NUMERICHOST, 0, 0, 0);
	GAI_ERR(EAI_BADFLAGS, "test.cwrap.org", NULL, 0x40000000, 0, 0, 0);
	GAI_ERR(EAI_FAMILY, "test.cwrap.org", NULL, 0, AF_UNIX, 0, 0);

	/* hints NULL: AF_UNSPEC, every address */
	{
		struct addrinfo *res = NULL;

		assert_int_equal(getaddrinfo("srv", "22", NULL, &res), 0);
		assert_string_equal(ai_str(res), "2/2/17 127.0.0.10 22 -; "
						 "2/1/6 127.0.0.10 22 -");
		freeaddrinfo(res);
	}
}

static void test_getaddrinfo_services(void **state)
{
	(void)state;
	GAI_OK("2/2/17 127.0.0.10 53 -; 2/1/6 127.0.0.10 53 -", "srv", "domain",
	       0, AF_INET, 0, 0);
	GAI_OK("2/1/6 127.0.0.10 80 -", "srv", "http", 0, AF_INET, 0, 0);
	GAI_OK("2/2/17 127.0.0.10 8080 -", "srv", "8080", 0, AF_INET,
	       SOCK_DGRAM, 0);
	GAI_OK("2/1/6 127.0.0.10 7 -", "srv", "7", 0, AF_INET, 0, IPPROTO_TCP);
	GAI_OK("2/3/0 127.0.0.10 0 -", "srv", NULL, 0, AF_INET, SOCK_RAW, 0);
	GAI_ERR(EAI_SERVICE, "srv", "nosuchservice", 0, AF_INET, 0, 0);
	GAI_ERR(EAI_SERVICE, "srv", "ssh", 0, AF_INET, SOCK_RAW, 0);
	GAI_ERR(EAI_NONAME, "srv", "http", AI_NUMERICSERV, AF_INET, 0, 0);
	GAI_ERR(EAI_SOCKTYPE, "srv", NULL, 0, AF_INET, SOCK_STREAM,
		IPPROTO_UDP);
}

static void test_getaddrinfo_numeric(void **state)
{
	char *s;

	(void)state;
	/* numeric addresses need no line: glibc answers */
	GAI_OK("2/1/6 192.0.2.1 80 -", "192.0.2.1", "80", AI_NUMERICHOST,
	       AF_INET, SOCK_STREAM, 0);
	GAI_OK("10/1/6 ::1 80 -", "::1", "80", 0, AF_INET6, SOCK_STREAM, 0);
	GAI_OK("2/1/6 0.0.0.0 7 -", NULL, "7", AI_PASSIVE, AF_INET, SOCK_STREAM,
	       0);
	assert_int_equal(gai("fe80::1%lo", NULL, AI_NUMERICHOST, AF_INET6,
			     SOCK_STREAM, 0, &s),
			 0);
	free(s);
}

static void test_freeaddrinfo_compatible(void **state)
{
	void (*glibc_free)(struct addrinfo *) =
	    (void (*)(struct addrinfo *))nt_libc("freeaddrinfo");
	int (*glibc_gai)(const char *, const char *, const struct addrinfo *,
			 struct addrinfo **) =
	    (int (*)(const char *, const char *, const struct addrinfo *,
		     struct addrinfo **))nt_libc("getaddrinfo");
	struct addrinfo h = {.ai_flags = AI_CANONNAME}, *res;

	(void)state;
#ifndef __GLIBC__
	/* glibc's freeaddrinfo frees node by node, which this tests; musl's
	 * frees one block per answer of its own (and nss_wrapper copies
	 * libc's answers into its own nodes, test_not_in_file) */
	(void)glibc_free, (void)glibc_gai, (void)res, (void)h;
	skip();
#endif
	/* ours, freed by glibc node by node (ASan checks each free) */
	assert_int_equal(getaddrinfo("test.cwrap.org", "80", &h, &res), 0);
	glibc_free(res);
	/* glibc's, freed by ours */
	h.ai_flags = AI_NUMERICHOST | AI_CANONNAME;
	assert_int_equal(glibc_gai("127.0.0.1", "80", &h, &res), 0);
	freeaddrinfo(res);
	freeaddrinfo(NULL);
}

static void test_getnameinfo(void **state)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(80)};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = htons(53)};
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	const struct sockaddr *sa4 = (const void *)&s4;

	(void)state;
	inet_pton(AF_INET6, "::13", &s6.sin6_addr);
	assert_int_equal(getnameinfo((const void *)&s6, sizeof(s6), NULL, 0,
				     NULL, 0, 0),
			 0);
	inet_pton(AF_INET, "127.0.0.10", &s4.sin_addr);
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, sizeof(host), serv,
				     sizeof(serv), 0),
			 0);
	assert_string_equal(host, "server.cwrap.org");
	assert_string_equal(serv, "http");
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, sizeof(host), serv,
				     sizeof(serv),
				     NI_NUMERICHOST | NI_NUMERICSERV),
			 0);
	assert_string_equal(host, "127.0.0.10");
	assert_string_equal(serv, "80");
	/* NI_NOFQDN cuts the local domain only (glibc): here the host
	 * name's, test.example.org (no "localhost" in the file) */
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, sizeof(host), NULL,
				     0, NI_NOFQDN),
			 0);
	assert_string_equal(host, "server.cwrap.org");
	setenv("NSS_WRAPPER_HOSTNAME", "me.cwrap.org", 1);
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, sizeof(host), NULL,
				     0, NI_NOFQDN),
			 0);
	assert_string_equal(host, "server");
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, 7, NULL, 0,
				     NI_NOFQDN),
			 0);
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, 6, NULL, 0,
				     NI_NOFQDN),
			 EAI_OVERFLOW);
	setenv("NSS_WRAPPER_HOSTNAME", "test.example.org", 1);
	/* no buffer at all: nothing to do, unless a name is required
	 * (glibc; upstream's test_nwrap_getnameinfo_null) */
	assert_int_equal(getnameinfo(sa4, sizeof(s4), NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, 0, serv, 0, 0), 0);
	assert_int_equal(
	    getnameinfo(sa4, sizeof(s4), NULL, 0, NULL, 0, NI_NAMEREQD),
	    EAI_NONAME);
	assert_int_equal(
	    getnameinfo(sa4, sizeof(s4), host, 0, NULL, 0, NI_NAMEREQD), 0);
	/* a numeric port is cut to the buffer, as snprintf cuts it */
	memset(serv, '#', sizeof(serv));
	assert_int_equal(getnameinfo(sa4, sizeof(s4), NULL, 0, serv, 2,
				     NI_NUMERICSERV),
			 EAI_OVERFLOW);
	assert_memory_equal(serv, "8\0#", 3);
	memset(serv, '#', sizeof(serv));
	assert_int_equal(getnameinfo(sa4, sizeof(s4), NULL, 0, serv, 4, 0),
			 EAI_OVERFLOW);
	assert_int_equal(serv[0], '#'); /* "http" */
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, 5, NULL, 0, 0),
			 EAI_OVERFLOW);
	assert_int_equal(getnameinfo(sa4, 3, host, sizeof(host), NULL, 0, 0),
			 EAI_FAMILY);

	inet_pton(AF_INET, "127.0.0.99", &s4.sin_addr);
	assert_int_equal(
	    getnameinfo(sa4, sizeof(s4), host, sizeof(host), NULL, 0, 0), 0);
	assert_string_equal(host, "127.0.0.99");
	assert_int_equal(getnameinfo(sa4, sizeof(s4), host, sizeof(host), NULL,
				     0, NI_NAMEREQD),
			 EAI_NONAME);

	inet_pton(AF_INET6, "fd00::5357:5faa", &s6.sin6_addr);
	assert_int_equal(getnameinfo((const void *)&s6, sizeof(s6), host,
				     sizeof(host), serv, sizeof(serv),
				     NI_DGRAM),
			 0);
	assert_string_equal(host, "test.cwrap.org");
	assert_string_equal(serv, "domain");
	inet_pton(AF_INET6, "::ffff:127.0.0.170", &s6.sin6_addr);
	assert_int_equal(getnameinfo((const void *)&s6, sizeof(s6), host,
				     sizeof(host), NULL, 0, NI_NAMEREQD),
			 0);
	assert_string_equal(host, "test.cwrap.org");
}

static void test_gethostname(void **state)
{
	char buf[64];
	struct utsname u;
	int (*real_uname)(struct utsname *) =
	    (int (*)(struct utsname *))nt_libc("uname");

	(void)state;
	assert_int_equal(gethostname(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "test.example.org");
	assert_int_equal(gethostname(buf, 17), 0);
	/* glibc copies what fits, then says ENAMETOOLONG */
	memset(buf, 'x', sizeof(buf));
	errno = 0;
	assert_int_equal(gethostname(buf, 16), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_memory_equal(buf, "test.example.org", 16);
	assert_int_equal(buf[16], 'x');
	assert_int_equal(gethostname(buf, 0), -1);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(u.nodename, "test.example.org");

	/* read when called: a name set later, and unset again */
	setenv("NSS_WRAPPER_HOSTNAME", "later.example.org", 1);
	assert_int_equal(gethostname(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "later.example.org");
	assert_int_equal(uname(&u), 0);
	assert_string_equal(u.nodename, "later.example.org");
	unsetenv("NSS_WRAPPER_HOSTNAME");
	{
		struct utsname real;

		assert_int_equal(real_uname(&real), 0);
		assert_int_equal(uname(&u), 0);
		assert_string_equal(u.nodename, real.nodename);
		assert_int_equal(gethostname(buf, sizeof(buf)), 0);
		assert_string_equal(buf, real.nodename);
	}
	setenv("NSS_WRAPPER_HOSTNAME", "test.example.org", 1);
}

/* "host.example." is "host.example" (DNS-style names from Kerberos, LDAP
 * URLs); the canonical name is the file's. */
static void test_trailing_dot(void **state)
{
	struct hostent he, *res, *h;
	struct addrinfo hints = {.ai_flags = AI_CANONNAME,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char buf[1024];
	int herr;

	(void)state;
	h = gethostbyname("server.cwrap.org.");
	assert_non_null(h);
	assert_string_equal(h->h_name, "server.cwrap.org");
	assert_string_equal(ntop(AF_INET, h->h_addr_list[0]), "127.0.0.10");
	h = gethostbyname2("test.cwrap.org.", AF_INET6);
	assert_non_null(h);
	assert_string_equal(ntop(AF_INET6, h->h_addr_list[0]),
			    "fd00::5357:5faa");
	assert_int_equal(
	    gethostbyname_r("SERVER.", &he, buf, sizeof(buf), &res, &herr), 0);
	assert_non_null(res);
	assert_string_equal(res->h_name, "server.cwrap.org");
	assert_int_equal(getaddrinfo("server.cwrap.org.", "22", &hints, &ai),
			 0);
	assert_string_equal(ai->ai_canonname, "server.cwrap.org");
	assert_int_equal(ntohs(((struct sockaddr_in *)ai->ai_addr)->sin_port),
			 22);
	freeaddrinfo(ai);
	/* one dot only, and a dot is not a name */
	assert_null(gethostbyname("server.cwrap.org.."));
	assert_null(gethostbyname("."));
}

/* A name the file does not have goes to the system (localhost, from
 * /etc/hosts), except with NSS_WRAPPER_HOSTS_ONLY=1; gethostbyname never
 * asks the system (as upstream). */
static void test_not_in_file(void **state)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;

	(void)state;
	assert_int_equal(getaddrinfo("localhost", "80", &hints, &ai),
			 EAI_NONAME);
	unsetenv("NSS_WRAPPER_HOSTS_ONLY");
	assert_int_equal(getaddrinfo("localhost", "80", &hints, &ai), 0);
	assert_int_equal(ai->ai_family, AF_INET);
	assert_int_equal(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr,
			 htonl(INADDR_LOOPBACK));
	freeaddrinfo(ai);
	assert_null(gethostbyname("localhost"));
	/* a name of the file in another family only is answered here */
	hints.ai_family = AF_INET6;
	assert_int_equal(getaddrinfo("v4only.cwrap.org", NULL, &hints, &ai),
			 EAI_NONAME);
	setenv("NSS_WRAPPER_HOSTS_ONLY", "1", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gethostbyname),
	    cmocka_unit_test(test_gethostbyname_r_sizes),
	    cmocka_unit_test(test_gethostbyaddr),
	    cmocka_unit_test(test_gethostent),
	    cmocka_unit_test(test_getaddrinfo_families),
	    cmocka_unit_test(test_getaddrinfo_services),
	    cmocka_unit_test(test_getaddrinfo_numeric),
	    cmocka_unit_test(test_freeaddrinfo_compatible),
	    cmocka_unit_test(test_getnameinfo),
	    cmocka_unit_test(test_gethostname),
	    cmocka_unit_test(test_trailing_dot),
	    cmocka_unit_test(test_not_in_file),
	};

	nt_file("hosts", hosts, "NSS_WRAPPER_HOSTS");
	setenv("NSS_WRAPPER_HOSTNAME", "test.example.org", 1);
	/* names not in the file must not reach a real resolver here */
	setenv("NSS_WRAPPER_HOSTS_ONLY", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
