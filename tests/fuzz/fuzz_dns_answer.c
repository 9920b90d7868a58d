/*
 * Fuzz target "dns_answer": what resolv_wrapper reads of a message a
 * nameserver sends back (its header and question, to match it to the
 * query) and of a query a program hands to res_send(). A question it
 * accepts lies within the message, names a text of at most 255 bytes,
 * and, when it is a usable name, makes a query that reads back the same.
 */
#include <string.h>
#include <strings.h>

#include "fuzz_util.h"
#include "rwrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rwrap_question q, q2;
	uint8_t *msg = malloc(size ? size : 1), again[600];
	int n;

	memcpy(msg, data, size);
	if (!rwrap_parse_question(msg, size, &q)) {
		free(msg);
		return 0;
	}
	FUZZ_CHECK(q.end <= size && q.end >= 17);
	FUZZ_CHECK(strlen(q.name) < sizeof(q.name));
	FUZZ_CHECK(q.id == (uint16_t)(msg[0] << 8 | msg[1]));
	n = rwrap_mkquery(q.id, q.rd, q.name, q.qclass, q.qtype, again,
			  sizeof(again));
	if (rwrap_name_valid(q.name) && strchr(q.name, '\\') == NULL) {
		FUZZ_CHECK(n > 0);
	}
	if (n > 0) {
		FUZZ_CHECK(rwrap_parse_question(again, (size_t)n, &q2));
		FUZZ_CHECK(q2.id == q.id && q2.rd == q.rd &&
			   q2.qtype == q.qtype && q2.qclass == q.qclass);
		FUZZ_CHECK(strcasecmp(q2.name, q.name) == 0 ||
			   strchr(q.name, '.') != NULL);
	}
	free(msg);
	return 0;
}
