/*
 * Fuzz target "resolv_conf": an input is RESOLV_WRAPPER_CONF (and, the
 * same bytes, a RES_OPTIONS value). Whatever it holds, the configuration
 * stays within the resolver's limits: at most 3 nameservers, each an
 * IPv4 or IPv6 address of its family's length, at most 6 search domains,
 * each a usable name, ndots 0..15, timeout 1..30, attempts 1..5.
 */
#include <string.h>

#include "fuzz_util.h"
#include "rwrap.h"

static void check(const struct rwrap_conf *c)
{
	FUZZ_CHECK(c->nns >= 0 && c->nns <= RWRAP_MAXNS);
	for (int i = 0; i < c->nns; i++) {
		int f = c->ns[i].ss_family;

		FUZZ_CHECK((f == AF_INET &&
			    c->nslen[i] == sizeof(struct sockaddr_in)) ||
			   (f == AF_INET6 &&
			    c->nslen[i] == sizeof(struct sockaddr_in6)));
	}
	FUZZ_CHECK(c->nsearch >= 0 && c->nsearch <= RWRAP_MAXDNSRCH);
	for (int i = 0; i < c->nsearch; i++) {
		FUZZ_CHECK(memchr(c->search[i], '\0', sizeof(c->search[i])) !=
			   NULL);
		FUZZ_CHECK(rwrap_name_valid(c->search[i]));
	}
	FUZZ_CHECK(c->ndots >= 0 && c->ndots <= 15);
	FUZZ_CHECK(c->timeout >= 1 && c->timeout <= 30);
	FUZZ_CHECK(c->attempts >= 1 && c->attempts <= 5);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	setenv("RESOLV_WRAPPER_DEBUGLEVEL", "-1", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct rwrap_conf c;

	memcpy(text, data, size);
	text[size] = '\0';
	rwrap_conf_parse("fuzz", text, &c);
	check(&c);
	rwrap_conf_defaults(&c);
	rwrap_conf_options(&c, text, "RES_OPTIONS");
	check(&c);
	free(text);
	return 0;
}
