/*
 * A DNS server for the tests, run under socket_wrapper:
 *     rwrap_dns_srv ADDRESS RECORDS [--port N] [--tc BYTES] [--rcode N]
 *                   [--silent]
 * answers queries over UDP and TCP on ADDRESS:53 (or N) from RECORDS, a
 * file in RESOLV_WRAPPER_HOSTS format, with resolv_wrapper's own answer
 * code (linked from its logic library); --tc cuts UDP answers longer than
 * BYTES to a truncated header and question, so that clients ask again
 * over TCP; --rcode answers every query with that rcode and no records;
 * --silent never answers over UDP. Writes "ready" to descriptor 3 once
 * bound and "udp|tcp NAME TYPE" on stdout for each query. Runs until
 * killed.
 */
#include "rwrap.h"
#include "cwrap_lib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct cwrap_lib cwrap_lib = {
    .name = "rwrap_dns_srv",
    .log_prefix = "RWRAP_DNS_SRV",
    .env_prefix = "RWRAP_DNS_SRV",
};

static struct rwrap_db *db;
static int tc_limit = -1, fixed_rcode = -1;

static int answer(const uint8_t *q, size_t qlen, uint8_t *out, size_t cap,
		  const char *proto)
{
	struct rwrap_question qu;
	int n;

	if (!rwrap_parse_question(q, qlen, &qu)) {
		return -1;
	}
	printf("%s %s %u\n", proto, qu.name, qu.qtype);
	fflush(stdout);
	n = rwrap_db_answer(db, &qu, out, cap);
	if (fixed_rcode >= 0 && n >= 12) {
		out[3] = (uint8_t)((out[3] & 0xf0) | fixed_rcode);
		memset(out + 6, 0, 6);
		n = (int)qu.end;
	}
	if (strcmp(proto, "udp") == 0 && tc_limit >= 0 && n > tc_limit) {
		out[2] |= 0x02;
		memset(out + 6, 0, 6);
		n = (int)qu.end;
	}
	return n;
}

static void serve_tcp(int c)
{
	uint8_t q[65536], a[65538];
	uint8_t l[2];

	for (;;) {
		size_t len, got = 0;
		int n;

		if (recv(c, l, 2, MSG_WAITALL) != 2) {
			break;
		}
		len = (size_t)(l[0] << 8 | l[1]);
		while (got < len) {
			ssize_t r = recv(c, q + got, len - got, 0);

			if (r <= 0) {
				return;
			}
			got += (size_t)r;
		}
		n = answer(q, len, a + 2, sizeof(a) - 2, "tcp");
		if (n < 0) {
			break;
		}
		a[0] = (uint8_t)(n >> 8);
		a[1] = (uint8_t)n;
		if (send(c, a, (size_t)n + 2, MSG_NOSIGNAL) != n + 2) {
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int port = 53, u, t, one = 1;
	bool silent = false;
	char *text;
	size_t tlen;

	if (argc < 3) {
		fprintf(stderr,
			"usage: rwrap_dns_srv ADDRESS RECORDS [opts]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
			port = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--tc") == 0 && i + 1 < argc) {
			tc_limit = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--rcode") == 0 && i + 1 < argc) {
			fixed_rcode = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--silent") == 0) {
			silent = true;
		}
	}
	text = rwrap_read_file(argv[2], &tlen);
	if (text == NULL) {
		perror(argv[2]);
		return 1;
	}
	db = rwrap_db_parse(argv[2], text, tlen);
	free(text);
	memset(&ss, 0, sizeof(ss));
	if (strchr(argv[1], ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, argv[1], &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, argv[1], &s4->sin_addr);
		len = sizeof(*s4);
	}
	u = socket(ss.ss_family, SOCK_DGRAM, 0);
	t = socket(ss.ss_family, SOCK_STREAM, 0);
	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (u < 0 || t < 0 || bind(u, (struct sockaddr *)&ss, len) != 0 ||
	    bind(t, (struct sockaddr *)&ss, len) != 0 || listen(t, 16) != 0) {
		perror("rwrap_dns_srv: bind");
		return 1;
	}
	if (write(3, "ready\n", 6) != 6) {
		return 1;
	}
	close(3);
	for (;;) {
		struct pollfd p[2] = {{.fd = u, .events = POLLIN},
				      {.fd = t, .events = POLLIN}};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR) {
				continue;
			}
			return 1;
		}
		if (p[0].revents & POLLIN) {
			uint8_t q[65536], a[65536];
			struct sockaddr_storage from;
			socklen_t flen = sizeof(from);
			ssize_t n = recvfrom(u, q, sizeof(q), 0,
					     (struct sockaddr *)&from, &flen);
			int r;

			if (n > 0 &&
			    (r = answer(q, (size_t)n, a, 512, "udp")) > 0 &&
			    !silent) {
				sendto(u, a, (size_t)r, 0,
				       (struct sockaddr *)&from, flen);
			}
		}
		if (p[1].revents & POLLIN) {
			int c = accept(t, NULL, NULL);

			if (c >= 0) {
				serve_tcp(c);
				close(c);
			}
		}
	}
}
