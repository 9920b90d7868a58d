/*
 * Fuzz target "faults": an input is a SOCKET_WRAPPER_FAULTS file, parsed
 * line by line as the library parses it. A line is a rule, a blank or
 * comment, or malformed (reported, left out), never anything else; a rule
 * stays within its grammar (a protocol, an address family and port, a
 * direction, one of the effects, percentages as at most 10000 basis
 * points); and a rule for any protocol, address and port covers every
 * endpoint.
 *
 * Every line of the input is parsed (with its number), the first 64
 * rules are matched against a few endpoints.
 */
#include <string.h>

#include "fuzz_swrap.h"
#include "faults/swrap_fx.h"

struct ctx {
	struct swrap_conf c;
	unsigned rules;
};

static bool check_line(char *line, size_t lineno, void *vctx)
{
	static const struct swrap_ep eps[] = {
	    {AF_INET, SOCK_STREAM, 10, 80},  {AF_INET, SOCK_DGRAM, 10, 53},
	    {AF_INET6, SOCK_STREAM, 10, 80}, {AF_INET6, SOCK_DGRAM, 20, 7},
	    {AF_INET, SOCK_DGRAM, 255, 137},
	};
	struct ctx *x = vctx;
	struct swrap_fx_rule r;
	int rc;

	memset(&r, 0xa5, sizeof(r));
	rc = swrap_fx_parse_line(line, "fuzz", (unsigned)lineno, &r);
	FUZZ_CHECK(rc == -1 || rc == 0 || rc == 1);
	if (rc != 1) {
		return true;
	}
	FUZZ_CHECK(r.proto == 0 || r.proto == SOCK_STREAM ||
		   r.proto == SOCK_DGRAM);
	FUZZ_CHECK(r.family == 0 || r.family == AF_INET ||
		   r.family == AF_INET6);
	FUZZ_CHECK(r.port <= 65535);
	FUZZ_CHECK(r.dir >= 1 && r.dir <= (SWRAP_FX_TO | SWRAP_FX_FROM));
	FUZZ_CHECK(r.kind >= SWRAP_FX_DELAY && r.kind <= SWRAP_FX_SLICE);
	FUZZ_CHECK(r.prob <= 10000);
	if (r.kind == SWRAP_FX_LOSS || r.kind == SWRAP_FX_DUPLICATE ||
	    r.kind == SWRAP_FX_REORDER) {
		FUZZ_CHECK(r.arg <= 10000);
	}
	if (x->rules++ < 64) {
		for (size_t i = 0; i < CWRAP_ARRAY_SIZE(eps); i++) {
			bool m =
			    swrap_fx_match(&r, &x->c, eps[i].type, &eps[i]);

			if (r.proto == 0 && r.family == 0 && r.port == 0) {
				FUZZ_CHECK(m);
			}
			if (r.proto != 0 && r.proto != eps[i].type) {
				FUZZ_CHECK(!m);
			}
			if (r.port != 0 && r.port != eps[i].port) {
				FUZZ_CHECK(!m);
			}
		}
	}
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	setenv("SOCKET_WRAPPER_DEBUGLEVEL", "-1", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx x = {.rules = 0};

	fuzz_swrap_conf(&x.c, 10, size & 1);
	fuzz_lines(data, size, 1 << 20, check_line, &x);
	return 0;
}
