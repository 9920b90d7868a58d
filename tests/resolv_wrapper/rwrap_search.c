/*
 * rwrap_search [-q | -d DOMAIN] NAME TYPE: what a program that resolves
 * through the resolver API gets (linked with -lresolv): res_search(NAME)
 * by default, res_query with -q, res_querydomain(NAME, DOMAIN) with -d.
 * Prints the answer records one a line ("A 127.0.0.10"), or
 * "h_errno=N" and exits 2. TYPE is a name (A, AAAA, SRV, ...) or number.
 */
#include "rwrap_test.h"

#include <arpa/nameser.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int type_of(const char *s)
{
	static const struct {
		const char *name;
		int type;
	} t[] = {{"A", ns_t_a},	    {"AAAA", ns_t_aaaa}, {"CNAME", ns_t_cname},
		 {"SRV", ns_t_srv}, {"MX", ns_t_mx},	 {"TXT", ns_t_txt},
		 {"SOA", ns_t_soa}, {"NS", ns_t_ns},	 {"PTR", ns_t_ptr},
		 {"URI", 256}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strcasecmp(s, t[i].name) == 0) {
			return t[i].type;
		}
	}
	return atoi(s);
}

int main(int argc, char **argv)
{
	static unsigned char ans[65536];
	const char *domain = NULL;
	int mode = 's', n, a = 1;
	char *text;

	if (argc > 1 && strcmp(argv[1], "-q") == 0) {
		mode = 'q';
		a = 2;
	} else if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		mode = 'd';
		domain = argv[2];
		a = 3;
	}
	if (argc != a + 2) {
		fprintf(stderr,
			"usage: rwrap_search [-q | -d DOMAIN] NAME TYPE\n");
		return 1;
	}
	switch (mode) {
	case 'q':
		n = res_query(argv[a], ns_c_in, type_of(argv[a + 1]), ans,
			      sizeof(ans));
		break;
	case 'd':
		n = res_querydomain(argv[a], domain, ns_c_in,
				    type_of(argv[a + 1]), ans, sizeof(ans));
		break;
	default:
		n = res_search(argv[a], ns_c_in, type_of(argv[a + 1]), ans,
			       sizeof(ans));
	}
	if (n < 0) {
		printf("h_errno=%d\n", h_errno);
		return 2;
	}
	text = rwrap_test_answers(ans, n);
	for (char *p = text; *p != '\0'; p++) {
		if (*p == ';') {
			*p = '\n';
		}
	}
	fputs(text, stdout);
	free(text);
	return 0;
}
