/*
 * A small UDP DNS responder for the tests, run under the wrapper:
 *     swrap_dns_srv ADDRESS PORT ANSWER
 * answers every query for an A record with ANSWER (an IPv4 address, TTL
 * 60), every other query with no records, prints "ready" once bound and
 * "query NAME from ADDRESS" for each query on stdout. Runs until killed.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The question's name as text, and the offset after the question (0 if
 * malformed). */
static size_t question(const uint8_t *q, size_t n, char *name, size_t cap,
		       uint16_t *qtype)
{
	size_t off = 12, out = 0;

	while (off < n && q[off] != 0) {
		size_t len = q[off++];

		if (len > 63 || off + len > n || out + len + 2 > cap) {
			return 0;
		}
		if (out > 0) {
			name[out++] = '.';
		}
		memcpy(name + out, q + off, len);
		out += len;
		off += len;
	}
	if (off + 5 > n) {
		return 0;
	}
	name[out] = '\0';
	*qtype = (uint16_t)(q[off + 1] << 8 | q[off + 2]);
	return off + 5;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss, from;
	struct in_addr answer;
	socklen_t len;
	int fd;

	if (argc != 4 || inet_pton(AF_INET, argv[3], &answer) != 1) {
		fprintf(stderr, "usage: swrap_dns_srv ADDRESS PORT ANSWER\n");
		return 2;
	}
	memset(&ss, 0, sizeof(ss));
	if (strchr(argv[1], ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)atoi(argv[2]));
		inet_pton(AF_INET6, argv[1], &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)atoi(argv[2]));
		inet_pton(AF_INET, argv[1], &s4->sin_addr);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0) {
		perror("swrap_dns_srv: bind");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		uint8_t q[512], r[600];
		char name[256], a[INET6_ADDRSTRLEN] = "?";
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, q, sizeof(q), 0,
				     (struct sockaddr *)&from, &flen);
		uint16_t qtype = 0;
		size_t qend, rl;
		int match;

		if (n < 12) {
			continue;
		}
		qend = question(q, (size_t)n, name, sizeof(name), &qtype);
		if (qend == 0) {
			continue;
		}
		if (from.ss_family == AF_INET) {
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)&from)->sin_addr, a,
				  sizeof(a));
		} else if (from.ss_family == AF_INET6) {
			inet_ntop(AF_INET6,
				  &((struct sockaddr_in6 *)&from)->sin6_addr, a,
				  sizeof(a));
		}
		printf("query %s from %s\n", name, a);
		fflush(stdout);
		match = qtype == 1;
		/* Header: same id, QR + RD copied + RA, one question, the
		 * answer count; then the question, then the answer. */
		memcpy(r, q, qend);
		r[2] = (uint8_t)(0x80 | (q[2] & 0x01));
		r[3] = 0x80;
		r[6] = 0;
		r[7] = (uint8_t)match;
		memset(r + 8, 0, 4);
		rl = qend;
		if (match) {
			static const uint8_t rr[] = {0xc0, 0x0c, 0, 1,	0, 1,
						     0,	   0,	 0, 60, 0, 4};

			memcpy(r + rl, rr, sizeof(rr));
			rl += sizeof(rr);
			memcpy(r + rl, &answer, 4);
			rl += 4;
		}
		sendto(fd, r, rl, 0, (struct sockaddr *)&from, flen);
	}
}
