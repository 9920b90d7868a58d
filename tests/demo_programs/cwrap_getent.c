/*
 * cwrap_getent: glibc's getent for the databases the tests query, with
 * its output byte for byte, built by the project so that the article's
 * nss_wrapper demo runs in every build (a musl-built wrapper cannot be
 * preloaded into the system's glibc getent):
 *     cwrap_getent passwd|group [KEY...]   by name, or by id if numeric
 *     cwrap_getent hosts [KEY...]          gethostbyname2 (IPv6, then
 *                                          IPv4), gethostbyaddr for an
 *                                          address
 *     cwrap_getent ahosts|ahostsv4|ahostsv6 [KEY...]   getaddrinfo
 * Without a key, the database is enumerated (ahosts* like hosts). The
 * same library calls as glibc's getent, in the same order, so that the
 * wrappers see what they would see from it. Exit status as getent: 0,
 * 1 for a usage error, 2 when a key was not found (the others are still
 * printed). Not done: getent's options, and IDN conversion (glibc's
 * AI_IDN; it changes nothing for ASCII names).
 * C11 + POSIX (and the BSD host calls every libc has): glibc and musl.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <netdb.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define PROG "cwrap_getent"

static const char *s_(const char *s)
{
	return s ? s : "";
}

/* glibc refuses to write a field holding its separators. */
static bool valid_field(const char *s, const char *bad)
{
	return s == NULL || strpbrk(s, bad) == NULL;
}

/* The key is an id when strtoul() takes it whole, as for getent. */
static bool numeric_key(const char *key, unsigned long *id)
{
	char *end;

	errno = 0;
	*id = strtoul(key, &end, 10);
	return errno != EINVAL && *key != '\0' && *end == '\0';
}

/* putpwent(): "+" and "-" entries (NIS compat) without ids; a gecos
 * holding ':' or '\n' is written with spaces there. */
static void print_passwd(const struct passwd *pw)
{
	const char *bad = ":\n";
	char *gecos;

	if (pw->pw_name == NULL || !valid_field(pw->pw_name, bad) ||
	    !valid_field(pw->pw_passwd, bad) || !valid_field(pw->pw_dir, bad) ||
	    !valid_field(pw->pw_shell, bad)) {
		fprintf(stderr, "error writing passwd entry: %s\n",
			strerror(EINVAL));
		return;
	}
	gecos = strdup(s_(pw->pw_gecos));
	if (gecos == NULL) {
		fprintf(stderr, "error writing passwd entry: %s\n",
			strerror(ENOMEM));
		return;
	}
	for (char *p = gecos; (p = strpbrk(p, bad)) != NULL;) {
		*p = ' ';
	}
	if (pw->pw_name[0] == '+' || pw->pw_name[0] == '-') {
		printf("%s:%s:::%s:%s:%s\n", pw->pw_name, s_(pw->pw_passwd),
		       gecos, s_(pw->pw_dir), s_(pw->pw_shell));
	} else {
		printf("%s:%s:%lu:%lu:%s:%s:%s\n", pw->pw_name,
		       s_(pw->pw_passwd), (unsigned long)pw->pw_uid,
		       (unsigned long)pw->pw_gid, gecos, s_(pw->pw_dir),
		       s_(pw->pw_shell));
	}
	free(gecos);
}

/* putgrent(). */
static void print_group(const struct group *gr)
{
	bool ok = gr->gr_name != NULL && valid_field(gr->gr_name, ":\n") &&
		  valid_field(gr->gr_passwd, ":\n");

	for (size_t i = 0; ok && gr->gr_mem && gr->gr_mem[i]; i++) {
		ok = valid_field(gr->gr_mem[i], ":\n,");
	}
	if (!ok) {
		fprintf(stderr, "error writing group entry: %s\n",
			strerror(EINVAL));
		return;
	}
	if (gr->gr_name[0] == '+' || gr->gr_name[0] == '-') {
		printf("%s:%s::", gr->gr_name, s_(gr->gr_passwd));
	} else {
		printf("%s:%s:%lu:", gr->gr_name, s_(gr->gr_passwd),
		       (unsigned long)gr->gr_gid);
	}
	for (size_t i = 0; gr->gr_mem && gr->gr_mem[i]; i++) {
		printf(i == 0 ? "%s" : ",%s", gr->gr_mem[i]);
	}
	putchar('\n');
}

static int passwd_keys(int n, char **key)
{
	struct passwd *pw;
	int rc = 0;

	if (n == 0) {
		setpwent();
		while ((pw = getpwent()) != NULL) {
			print_passwd(pw);
		}
		endpwent();
		return 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned long id;

		pw = numeric_key(key[i], &id) ? getpwuid((uid_t)id)
					      : getpwnam(key[i]);
		if (pw == NULL) {
			rc = 2;
		} else {
			print_passwd(pw);
		}
	}
	return rc;
}

static int group_keys(int n, char **key)
{
	struct group *gr;
	int rc = 0;

	if (n == 0) {
		setgrent();
		while ((gr = getgrent()) != NULL) {
			print_group(gr);
		}
		endgrent();
		return 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned long id;

		gr = numeric_key(key[i], &id) ? getgrgid((gid_t)id)
					      : getgrnam(key[i]);
		if (gr == NULL) {
			rc = 2;
		} else {
			print_group(gr);
		}
	}
	return rc;
}

/* "ADDRESS         NAME ALIAS..." for each address. */
static void print_hosts(const struct hostent *h)
{
	for (size_t i = 0; h->h_addr_list[i] != NULL; i++) {
		char buf[INET6_ADDRSTRLEN];
		const char *ip = inet_ntop(h->h_addrtype, h->h_addr_list[i],
					   buf, sizeof(buf));

		printf("%-15s %s", s_(ip), h->h_name);
		for (size_t a = 0; h->h_aliases[a] != NULL; a++) {
			printf(" %s", h->h_aliases[a]);
		}
		putchar('\n');
	}
}

static void enumerate_hosts(void)
{
	struct hostent *h;

	sethostent(0);
	while ((h = gethostent()) != NULL) {
		print_hosts(h);
	}
	endhostent();
}

static int hosts_keys(int n, char **key)
{
	int rc = 0;

	if (n == 0) {
		enumerate_hosts();
		return 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned char addr[16];
		struct hostent *h;

		if (inet_pton(AF_INET6, key[i], addr) > 0) {
			h = gethostbyaddr(addr, 16, AF_INET6);
		} else if (inet_pton(AF_INET, key[i], addr) > 0) {
			h = gethostbyaddr(addr, 4, AF_INET);
		} else if ((h = gethostbyname2(key[i], AF_INET6)) == NULL) {
			h = gethostbyname2(key[i], AF_INET);
		}
		if (h == NULL) {
			rc = 2;
		} else {
			print_hosts(h);
		}
	}
	return rc;
}

static const char *socktype_name(int type, char *buf, size_t len)
{
	switch (type) {
	case SOCK_STREAM:
		return "STREAM";
	case SOCK_DGRAM:
		return "DGRAM";
	case SOCK_RAW:
		return "RAW";
	case SOCK_SEQPACKET:
		return "SEQPACKET";
	default:
		snprintf(buf, len, "%d", type);
		return buf;
	}
}

/* "ADDRESS[%SCOPE] TYPE   CANONNAME", the address padded to 15. */
static void print_addrinfo(const struct addrinfo *ai)
{
	char type[16], scope[16] = "", buf[INET6_ADDRSTRLEN];
	const void *addr;
	int pad;

	if (ai->ai_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ai->ai_addr;

		addr = &s6->sin6_addr;
		if (s6->sin6_scope_id != 0) {
			snprintf(scope, sizeof(scope), "%%%" PRIu32,
				 (uint32_t)s6->sin6_scope_id);
		}
	} else {
		const struct sockaddr_in *s4 = (const void *)ai->ai_addr;

		addr = &s4->sin_addr;
	}
	if (inet_ntop(ai->ai_family, addr, buf, sizeof(buf)) == NULL) {
		strcpy(buf, "<invalid>");
		scope[0] = '\0';
	}
	pad = 15 - (int)strlen(buf) - (int)strlen(scope);
	printf("%s%-*s %-6s %s\n", buf, pad < 0 ? 0 : pad, scope,
	       socktype_name(ai->ai_socktype, type, sizeof(type)),
	       s_(ai->ai_canonname));
}

static int ahosts_family(int family, int n, char **key)
{
	struct addrinfo hints = {
	    .ai_family = family,
	    .ai_flags = AI_V4MAPPED | AI_ADDRCONFIG | AI_CANONNAME,
	};
	int rc = 0;

	if (n == 0) {
		enumerate_hosts();
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct addrinfo *res;

		if (getaddrinfo(key[i], NULL, &hints, &res) != 0) {
			rc = 2;
			continue;
		}
		for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			print_addrinfo(ai);
		}
		freeaddrinfo(res);
	}
	return rc;
}

static int ahosts_keys(int n, char **key)
{
	return ahosts_family(AF_UNSPEC, n, key);
}

static int ahostsv4_keys(int n, char **key)
{
	return ahosts_family(AF_INET, n, key);
}

static int ahostsv6_keys(int n, char **key)
{
	return ahosts_family(AF_INET6, n, key);
}

static const struct {
	const char *name;
	int (*keys)(int n, char **key);
} databases[] = {
    {"ahosts", ahosts_keys},	 {"ahostsv4", ahostsv4_keys},
    {"ahostsv6", ahostsv6_keys}, {"group", group_keys},
    {"hosts", hosts_keys},	 {"passwd", passwd_keys},
};

/* As getent: the error on stderr, the hint on stdout. */
static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "%s%s\n", msg, arg);
	printf("Try `" PROG " --help' or `" PROG
	       " --usage' for more information.\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		return usage_error(PROG ": wrong number of arguments", "");
	}
	for (size_t i = 0; i < sizeof(databases) / sizeof(databases[0]); i++) {
		if (strcmp(argv[1], databases[i].name) == 0) {
			int rc = databases[i].keys(argc - 2, argv + 2);

			return fflush(stdout) == 0 ? rc : 1;
		}
	}
	return usage_error("Unknown database: ", argv[1]);
}
