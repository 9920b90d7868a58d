/*
 * DNS messages (RFC 1035 section 4): writing names, queries and records
 * into a bounded buffer, reading the question of a message. Names are
 * written without compression, which every reader accepts. Pure code, no
 * state, apart from the query id's per-thread generator.
 */
#include "rwrap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

void rwrap_put_bytes(struct rwrap_buf *b, const void *p, size_t n)
{
	if (b->overflow || n > b->cap - b->len) {
		b->overflow = true;
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void rwrap_put8(struct rwrap_buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	rwrap_put_bytes(b, &c, 1);
}

void rwrap_put16(struct rwrap_buf *b, unsigned v)
{
	uint8_t c[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	rwrap_put_bytes(b, c, 2);
}

void rwrap_put32(struct rwrap_buf *b, uint32_t v)
{
	uint8_t c[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
			(uint8_t)(v >> 8), (uint8_t)v};

	rwrap_put_bytes(b, c, 4);
}

void rwrap_put_name(struct rwrap_buf *b, const char *name)
{
	const char *s = name;

	while (*s != '\0') {
		const char *dot = strchr(s, '.');
		size_t n = dot != NULL ? (size_t)(dot - s) : strlen(s);

		if (n == 0) {
			break; /* "." alone, or a trailing dot */
		}
		rwrap_put8(b, (unsigned)n);
		rwrap_put_bytes(b, s, n);
		s += n;
		if (*s == '.') {
			s++;
		}
	}
	rwrap_put8(b, 0);
}

bool rwrap_name_valid(const char *name)
{
	size_t total = strlen(name);
	const char *s = name;

	if (strcmp(name, ".") == 0) {
		return true;
	}
	if (total == 0 || name[0] == '.') {
		return false;
	}
	if (name[total - 1] == '.') {
		total--;
	}
	if (total > 253) {
		return false;
	}
	while (s < name + total) {
		const char *dot = memchr(s, '.', (size_t)(name + total - s));
		size_t n = dot != NULL ? (size_t)(dot - s)
				       : (size_t)(name + total - s);

		if (n == 0 || n > 63) {
			return false;
		}
		s += n + (dot != NULL ? 1 : 0);
		if (dot != NULL && s == name + total) {
			return false; /* "a..": an empty label */
		}
	}
	return true;
}

void rwrap_name_key(const char *name, char *out, size_t cap)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < cap; i++) {
		out[i] = (char)tolower((unsigned char)name[i]);
	}
	if (i > 0 && out[i - 1] == '.') {
		i--;
	}
	out[i] = '\0';
}

int rwrap_mkquery(uint16_t id, bool rd, const char *name, unsigned qclass,
		  unsigned qtype, uint8_t *out, size_t cap)
{
	struct rwrap_buf b = {.p = out, .cap = cap};

	if (!rwrap_name_valid(name)) {
		return -1;
	}
	rwrap_put16(&b, id);
	rwrap_put16(&b, rd ? 0x0100 : 0);
	rwrap_put16(&b, 1);
	rwrap_put16(&b, 0);
	rwrap_put16(&b, 0);
	rwrap_put16(&b, 0);
	rwrap_put_name(&b, name);
	rwrap_put16(&b, qtype);
	rwrap_put16(&b, qclass);
	return b.overflow ? -1 : (int)b.len;
}

bool rwrap_parse_question(const uint8_t *msg, size_t len,
			  struct rwrap_question *q)
{
	size_t off = 12, out = 0;

	if (len < 12 || (msg[4] << 8 | msg[5]) < 1) {
		return false;
	}
	q->id = (uint16_t)(msg[0] << 8 | msg[1]);
	q->rd = (msg[2] & 0x01) != 0;
	while (off < len && msg[off] != 0) {
		size_t n = msg[off++];

		/* a query's name is never compressed; a label with a dot in
		 * it has no text form that reads back as one label */
		if (n > 63 || off + n > len || out + n + 2 > sizeof(q->name) ||
		    memchr(msg + off, '.', n) != NULL) {
			return false;
		}
		if (out > 0) {
			q->name[out++] = '.';
		}
		memcpy(q->name + out, msg + off, n);
		out += n;
		off += n;
	}
	if (off + 5 > len) {
		return false;
	}
	q->name[out] = '\0';
	if (memchr(q->name, '\0', out) != NULL) {
		return false;
	}
	q->qtype = (uint16_t)(msg[off + 1] << 8 | msg[off + 2]);
	q->qclass = (uint16_t)(msg[off + 3] << 8 | msg[off + 4]);
	q->end = off + 5;
	return true;
}

uint16_t rwrap_random_id(void)
{
	static __thread uint32_t state;
	uint16_t id;

	if (state == 0 && getrandom(&state, sizeof(state), GRND_NONBLOCK) !=
			      (ssize_t)sizeof(state)) {
		state = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
	}
	/* xorshift: ids differ from query to query, which is all the
	 * matching of answers to queries needs */
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	if (state == 0) {
		state = 0x5357;
	}
	id = (uint16_t)(state >> 8);
	return id;
}
