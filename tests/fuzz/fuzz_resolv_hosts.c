/*
 * Fuzz target "resolv_hosts": an input is RESOLV_WRAPPER_HOSTS. For the
 * names of its first 16 lines, and every record type, the answer is a
 * DNS message that glibc's own parser reads (ns_initparse, ns_parserr on
 * every record, dn_expand on every name in it), that echoes the question
 * and the id, that says NXDOMAIN only when the file has no record of the
 * name or a CNAME chain leads to one it has not (RFC 6604), and that fits the
 * caller's buffer (cut whole records with TC set when it does not).
 */
#include <arpa/nameser.h>
#include <resolv.h>
#include <string.h>
#include <strings.h>

#include "fuzz_util.h"
#include "rwrap.h"

static const uint16_t types[] = {ns_t_a,   ns_t_aaaa,	  ns_t_cname, ns_t_srv,
				 ns_t_mx,  ns_t_txt,	  ns_t_soa,   ns_t_ns,
				 ns_t_ptr, 256 /* URI */, ns_t_any};

struct ctx {
	const struct rwrap_db *db;
	unsigned cap_seed;
	unsigned lines;
};

/* A name whose text glibc writes as it is (no escapes). */
static bool plain(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s <= ' ' || *s >= 127 || strchr("\\\"();@$", *s) != NULL) {
			return false;
		}
	}
	return true;
}

static void check_answer(const struct rwrap_db *db, const char *name,
			 uint16_t type, size_t cap)
{
	static struct fuzz_window win;
	struct rwrap_question q = {.id = 0x5357, .rd = true, .qclass = ns_c_in};
	uint8_t *out = fuzz_window(&win, cap, RWRAP_MAXMSG);
	char key[256], exp[NS_MAXDNAME];
	ns_msg msg;
	ns_rr rr;
	int len;

	q.qtype = type;
	snprintf(q.name, sizeof(q.name), "%s", name);
	len = rwrap_db_answer(db, &q, out, cap);
	if (len < 0) {
		FUZZ_CHECK(cap < 12);
		return;
	}
	FUZZ_CHECK((size_t)len <= cap && len >= 12);
	FUZZ_CHECK(out[0] == 0x53 && out[1] == 0x57 && (out[2] & 0x80));
	FUZZ_CHECK(ns_initparse(out, len, &msg) == 0);
	rwrap_name_key(name, key, sizeof(key));
	if (ns_msg_getflag(msg, ns_f_rcode) == ns_r_nxdomain) {
		/* a name the file has: only through a CNAME to a name it
		 * has not (the rcode is the chain's end's, RFC 6604) */
		if (rwrap_db_find(db, key) != NULL) {
			FUZZ_CHECK(ns_msg_count(msg, ns_s_an) > 0 ||
				   ns_msg_getflag(msg, ns_f_tc));
			if (ns_msg_count(msg, ns_s_an) > 0) {
				FUZZ_CHECK(ns_parserr(&msg, ns_s_an, 0, &rr) ==
					   0);
				FUZZ_CHECK(ns_rr_type(rr) == ns_t_cname);
			}
		}
	} else {
		FUZZ_CHECK(ns_msg_getflag(msg, ns_f_rcode) == ns_r_noerror);
	}
	if (ns_msg_count(msg, ns_s_qd) == 1) {
		FUZZ_CHECK(ns_parserr(&msg, ns_s_qd, 0, &rr) == 0);
		FUZZ_CHECK(ns_rr_type(rr) == type);
		/* (the text glibc gives escapes other bytes: \168) */
		FUZZ_CHECK(
		    !plain(key) || strcasecmp(ns_rr_name(rr), key) == 0 ||
		    (key[0] == '\0' && strcmp(ns_rr_name(rr), ".") == 0));
	} else {
		/* only a buffer too small for the question leaves it out */
		FUZZ_CHECK(ns_msg_count(msg, ns_s_qd) == 0 &&
			   ns_msg_getflag(msg, ns_f_tc));
	}
	for (int sect = ns_s_an; sect <= ns_s_ar; sect++) {
		for (int i = 0; i < ns_msg_count(msg, (ns_sect)sect); i++) {
			FUZZ_CHECK(ns_parserr(&msg, (ns_sect)sect, i, &rr) ==
				   0);
			if (ns_rr_type(rr) == ns_t_cname ||
			    ns_rr_type(rr) == ns_t_ns ||
			    ns_rr_type(rr) == ns_t_ptr) {
				FUZZ_CHECK(dn_expand(out, out + len,
						     ns_rr_rdata(rr), exp,
						     sizeof(exp)) ==
					   ns_rr_rdlen(rr));
			}
		}
	}
}

static bool check_line(char *line, size_t lineno, void *vctx)
{
	struct ctx *c = vctx;
	char *save = NULL, *type, *name;

	(void)lineno;
	if (c->lines++ >= 16) {
		return false;
	}
	type = strtok_r(line, " \t", &save);
	name = type != NULL ? strtok_r(NULL, " \t", &save) : NULL;
	/* the names a question can carry (rwrap_parse_question) */
	if (name == NULL || !rwrap_name_valid(name)) {
		return true;
	}
	for (size_t t = 0; t < CWRAP_ARRAY_SIZE(types); t++) {
		/* a big buffer, and one of the input's choosing */
		check_answer(c->db, name, types[t], RWRAP_MAXMSG);
		c->cap_seed = c->cap_seed * 1103515245u + 12345u;
		check_answer(c->db, name, types[t], (c->cap_seed >> 16) % 600);
	}
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	setenv("RESOLV_WRAPPER_DEBUGLEVEL", "0", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rwrap_db *db = rwrap_db_parse("fuzz", (const char *)data, size);
	struct ctx c = {.db = db, .cap_seed = (unsigned)size};

	FUZZ_CHECK(db != NULL);
	fuzz_lines(data, size, 1 << 20, check_line, &c);
	check_answer(db, "fuzz-absent.example", ns_t_a, RWRAP_MAXMSG);
	rwrap_db_free(db);
	return 0;
}
