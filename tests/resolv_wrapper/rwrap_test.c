/*
 * Helpers of the resolv_wrapper tests: see rwrap_test.h.
 */
#include "rwrap_test.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <resolv.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *type_name(int t)
{
	switch (t) {
	case ns_t_a:
		return "A";
	case ns_t_aaaa:
		return "AAAA";
	case ns_t_cname:
		return "CNAME";
	case ns_t_srv:
		return "SRV";
	case ns_t_mx:
		return "MX";
	case ns_t_txt:
		return "TXT";
	case ns_t_soa:
		return "SOA";
	case ns_t_ns:
		return "NS";
	case ns_t_ptr:
		return "PTR";
	case 256:
		return "URI";
	default:
		return "?";
	}
}

static void rdata_text(const ns_msg *m, const ns_rr *rr, char *out, size_t cap)
{
	const unsigned char *rd = ns_rr_rdata(*rr), *eom = ns_msg_end(*m);
	unsigned len = ns_rr_rdlen(*rr);
	char n1[NS_MAXDNAME], n2[NS_MAXDNAME];
	int k;

	out[0] = '\0';
	switch (ns_rr_type(*rr)) {
	case ns_t_a:
		assert_int_equal(len, 4);
		inet_ntop(AF_INET, rd, out, (socklen_t)cap);
		break;
	case ns_t_aaaa:
		assert_int_equal(len, 16);
		inet_ntop(AF_INET6, rd, out, (socklen_t)cap);
		break;
	case ns_t_cname:
	case ns_t_ns:
	case ns_t_ptr:
		assert_true(
		    dn_expand(ns_msg_base(*m), eom, rd, n1, sizeof(n1)) > 0);
		snprintf(out, cap, "%s", n1);
		break;
	case ns_t_srv:
		assert_true(len > 6);
		assert_true(dn_expand(ns_msg_base(*m), eom, rd + 6, n1,
				      sizeof(n1)) > 0);
		snprintf(out, cap, "%u %u %u %s", ns_get16(rd),
			 ns_get16(rd + 2), ns_get16(rd + 4), n1);
		break;
	case ns_t_mx:
		assert_true(dn_expand(ns_msg_base(*m), eom, rd + 2, n1,
				      sizeof(n1)) > 0);
		snprintf(out, cap, "%u %s", ns_get16(rd), n1);
		break;
	case 256:
		snprintf(out, cap, "%u %u %.*s", ns_get16(rd), ns_get16(rd + 2),
			 (int)len - 4, rd + 4);
		break;
	case ns_t_txt: {
		size_t o = 0;

		for (unsigned i = 0; i < len; i += 1 + rd[i]) {
			assert_true(i + 1 + rd[i] <= len);
			o += (size_t)snprintf(out + o, cap - o, "%s%.*s",
					      i > 0 ? "|" : "", rd[i],
					      rd + i + 1);
		}
		break;
	}
	case ns_t_soa:
		k = dn_expand(ns_msg_base(*m), eom, rd, n1, sizeof(n1));
		assert_true(k > 0);
		rd += k;
		k = dn_expand(ns_msg_base(*m), eom, rd, n2, sizeof(n2));
		assert_true(k > 0);
		rd += k;
		snprintf(out, cap, "%s %s %lu %lu %lu %lu %lu", n1, n2,
			 (unsigned long)ns_get32(rd),
			 (unsigned long)ns_get32(rd + 4),
			 (unsigned long)ns_get32(rd + 8),
			 (unsigned long)ns_get32(rd + 12),
			 (unsigned long)ns_get32(rd + 16));
		break;
	default:
		snprintf(out, cap, "(%u bytes)", len);
	}
}

static char *format(const unsigned char *msg, int len, bool answers_only)
{
	static const char *sect[] = {"qd", "an", "ns", "ar"};
	size_t cap = 65536, o = 0;
	char *out = malloc(cap);
	ns_msg m;

	assert_non_null(out);
	out[0] = '\0';
	assert_true(len >= 12);
	assert_int_equal(ns_initparse(msg, len, &m), 0);
	if (!answers_only) {
		o += (size_t)snprintf(out + o, cap - o, "rcode=%d%s%s\n",
				      ns_msg_getflag(m, ns_f_rcode),
				      ns_msg_getflag(m, ns_f_tc) ? " tc" : "",
				      ns_msg_getflag(m, ns_f_qr) ? ""
								 : " query");
	}
	for (int s = answers_only ? 1 : 0; s < (answers_only ? 2 : 4); s++) {
		for (int i = 0; i < ns_msg_count(m, s); i++) {
			ns_rr rr;
			char rd[4096];

			assert_int_equal(ns_parserr(&m, s, i, &rr), 0);
			if (s == 0) {
				o += (size_t)snprintf(
				    out + o, cap - o, "qd %s %s\n",
				    ns_rr_name(rr), type_name(ns_rr_type(rr)));
				continue;
			}
			assert_int_equal(ns_rr_class(rr), ns_c_in);
			rdata_text(&m, &rr, rd, sizeof(rd));
			if (answers_only) {
				o += (size_t)snprintf(
				    out + o, cap - o, "%s %s;",
				    type_name(ns_rr_type(rr)), rd);
			} else {
				o += (size_t)snprintf(
				    out + o, cap - o, "%s %s %s %s\n", sect[s],
				    ns_rr_name(rr), type_name(ns_rr_type(rr)),
				    rd);
			}
		}
	}
	return out;
}

char *rwrap_test_format(const unsigned char *msg, int len)
{
	return format(msg, len, false);
}

char *rwrap_test_answers(const unsigned char *msg, int len)
{
	return format(msg, len, true);
}

pid_t rwrap_test_server(const char *addr, const char *records, const char *log,
			...)
{
	char *argv[16], *bin;
	int pfd[2], n = 0;
	pid_t pid;
	va_list ap;
	char buf[64];
	ssize_t got;

	assert_int_equal(
	    asprintf(&bin, "%s/rwrap_dns_srv", getenv("CWRAP_TEST_BIN")) > 0,
	    1);
	argv[n++] = bin;
	argv[n++] = (char *)addr;
	argv[n++] = (char *)records;
	va_start(ap, log);
	for (char *a; (a = va_arg(ap, char *)) != NULL && n < 15;) {
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		dup2(pfd[1], 3);
		if (fd >= 0) {
			dup2(fd, 1);
		}
		execv(bin, argv);
		_exit(127);
	}
	close(pfd[1]);
	got = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	free(bin);
	assert_true(got > 0);
	buf[got] = '\0';
	assert_non_null(strstr(buf, "ready"));
	return pid;
}

void rwrap_test_stop(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
}

int rwrap_test_count(const char *path, const char *needle)
{
	char *text = cwrap_test_read_file(path, NULL);
	int n = 0;

	if (text == NULL) {
		return 0;
	}
	for (char *p = text; (p = strstr(p, needle)) != NULL; p++) {
		n++;
	}
	free(text);
	return n;
}

int rwrap_test_msglen(const unsigned char *msg, int cap)
{
	const unsigned char *p = msg + 12, *end = msg + cap;
	int counts[4];

	assert_true(cap >= 12);
	for (int s = 0; s < 4; s++) {
		counts[s] = msg[4 + 2 * s] << 8 | msg[5 + 2 * s];
	}
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < counts[s]; i++) {
			int k = dn_skipname(p, end);

			assert_true(k > 0);
			p += k + (s == 0 ? 4 : 10);
			assert_true(p <= end);
			if (s > 0) {
				p += p[-2] << 8 | p[-1];
			}
		}
	}
	assert_true(p <= end);
	return (int)(p - msg);
}
