/*
 * The answer a name server would give from the record file: the question
 * echoed, the records of the asked type (CNAME links followed), and in the
 * additional section the A and AAAA records (and CNAMEs to them) of the
 * targets of SRV, MX and NS answers, and of the target of a CNAME answer
 * (the rest of the chain, as upstream gives it). A name the file does not know
 * is NXDOMAIN, a known name without that type NOERROR with no answers (NODATA),
 * as RFC 2308 has it; a CNAME to an unknown name ends with NXDOMAIN (RFC 6604).
 * Pure: reads an immutable db.
 */
#include "rwrap.h"

#include <arpa/nameser.h>
#include <string.h>

struct rwrap_ans {
	struct rwrap_buf b;
	size_t fit; /* length of the last whole record that fitted */
	unsigned count[3];
	unsigned fitcount[3];
};

static void rwrap_rr_out(struct rwrap_ans *a, int sect, const char *owner,
			 const struct rwrap_rr *rr)
{
	rwrap_put_name(&a->b, owner);
	rwrap_put16(&a->b, rr->type);
	rwrap_put16(&a->b, ns_c_in);
	rwrap_put32(&a->b, RWRAP_TTL);
	rwrap_put16(&a->b, rr->rdlen);
	rwrap_put_bytes(&a->b, rr->rdata, rr->rdlen);
	a->count[sect]++;
	if (!a->b.overflow) {
		a->fit = a->b.len;
		memcpy(a->fitcount, a->count, sizeof(a->count));
	}
}

static const struct rwrap_rr *rwrap_find_type(const struct rwrap_db *db,
					      const struct rwrap_rr *rr,
					      unsigned type)
{
	for (; rr != NULL; rr = rwrap_db_next(db, rr)) {
		if (rr->type == type) {
			return rr;
		}
	}
	return NULL;
}

/* The records of `name` of `type` (any type for ANY), CNAMEs followed, into
 * section sect. Returns the rcode. */
static int rwrap_chase(const struct rwrap_db *db, struct rwrap_ans *a, int sect,
		       const char *name, unsigned type)
{
	char key[256];
	const char *owner = name;

	rwrap_name_key(name, key, sizeof(key));
	for (int hop = 0; hop < RWRAP_MAX_CHAIN; hop++) {
		const struct rwrap_rr *first = rwrap_db_find(db, key);
		const struct rwrap_rr *rr, *cname;
		bool any = false;

		if (first == NULL) {
			return ns_r_nxdomain;
		}
		for (rr = first; rr != NULL; rr = rwrap_db_next(db, rr)) {
			if (rr->type == type || type == ns_t_any) {
				rwrap_rr_out(a, sect, owner, rr);
				any = true;
			}
		}
		cname = rwrap_find_type(db, first, ns_t_cname);
		if (any || cname == NULL || type == ns_t_cname) {
			return ns_r_noerror;
		}
		rwrap_rr_out(a, sect, owner, cname);
		owner = cname->target;
		memmove(key, cname->target, strlen(cname->target) + 1);
	}
	return ns_r_noerror;
}

/* The A and AAAA records of `target`, and the CNAMEs that lead to them,
 * into the additional section. */
static void rwrap_addresses(const struct rwrap_db *db, struct rwrap_ans *a,
			    const char *target)
{
	char k[256];
	const struct rwrap_rr *t;
	int hop = 0;

	rwrap_chase(db, a, 2, target, ns_t_a);
	/* the CNAMEs, if any, are already there */
	memcpy(k, target, strlen(target) + 1);
	while ((t = rwrap_db_find(db, k)) != NULL &&
	       rwrap_find_type(db, t, ns_t_aaaa) == NULL &&
	       (t = rwrap_find_type(db, t, ns_t_cname)) != NULL &&
	       hop++ < RWRAP_MAX_CHAIN) {
		memmove(k, t->target, strlen(t->target) + 1);
	}
	for (t = rwrap_db_find(db, k); t != NULL; t = rwrap_db_next(db, t)) {
		if (t->type == ns_t_aaaa) {
			rwrap_rr_out(a, 2, k, t);
		}
	}
}

static void rwrap_additional(const struct rwrap_db *db, struct rwrap_ans *a,
			     const char *qname, unsigned qtype)
{
	char key[256];
	const struct rwrap_rr *rr;
	const char *seen[64];
	unsigned nseen = 0;

	rwrap_name_key(qname, key, sizeof(key));
	if (qtype == ns_t_cname) {
		/* the answer is the name's CNAME: where it leads */
		rr = rwrap_find_type(db, rwrap_db_find(db, key), ns_t_cname);
		if (rr != NULL) {
			rwrap_addresses(db, a, rr->target);
		}
		return;
	}
	if (qtype != ns_t_srv && qtype != ns_t_mx && qtype != ns_t_ns) {
		return;
	}
	/* the answer's records: at the end of a CNAME chain, if any */
	for (int hop = 0; hop < RWRAP_MAX_CHAIN; hop++) {
		const struct rwrap_rr *first = rwrap_db_find(db, key);
		const struct rwrap_rr *c;

		if (first == NULL ||
		    rwrap_find_type(db, first, qtype) != NULL) {
			break;
		}
		c = rwrap_find_type(db, first, ns_t_cname);
		if (c == NULL) {
			return;
		}
		memmove(key, c->target, strlen(c->target) + 1);
	}
	for (rr = rwrap_db_find(db, key); rr != NULL;
	     rr = rwrap_db_next(db, rr)) {
		bool dup = false;

		if (rr->type != qtype || rr->target == NULL) {
			continue;
		}
		for (unsigned i = 0; i < nseen; i++) {
			dup |= strcmp(seen[i], rr->target) == 0;
		}
		if (dup || nseen == CWRAP_ARRAY_SIZE(seen)) {
			continue;
		}
		seen[nseen++] = rr->target;
		rwrap_addresses(db, a, rr->target);
	}
}

int rwrap_db_answer(const struct rwrap_db *db, const struct rwrap_question *q,
		    uint8_t *out, size_t cap)
{
	struct rwrap_ans a = {.b = {.p = out, .cap = cap}};
	int rcode = ns_r_nxdomain;
	size_t qend;
	bool qfit;

	if (cap < 12) {
		return -1;
	}
	memset(out, 0, 12);
	a.b.len = 12;
	rwrap_put_name(&a.b, q->name[0] != '\0' ? q->name : ".");
	rwrap_put16(&a.b, q->qtype);
	rwrap_put16(&a.b, q->qclass);
	qend = a.b.len;
	qfit = !a.b.overflow;
	a.fit = qfit ? qend : 12;
	if (q->qclass == ns_c_in || q->qclass == ns_c_any) {
		rcode = rwrap_chase(db, &a, 0, q->name, q->qtype);
		if (rcode == ns_r_noerror) {
			rwrap_additional(db, &a, q->name, q->qtype);
		}
	} else {
		char key[256];

		rwrap_name_key(q->name, key, sizeof(key));
		if (rwrap_db_find(db, key) != NULL) {
			rcode = ns_r_noerror;
		}
	}
	out[0] = (uint8_t)(q->id >> 8);
	out[1] = (uint8_t)q->id;
	out[2] = 0x84 | (q->rd ? 0x01 : 0); /* QR, AA, RD as asked */
	out[3] = 0x80 | (uint8_t)rcode;	    /* RA */
	out[5] = qfit ? 1 : 0;
	if (a.b.overflow) {
		/* what fits, whole records only, flagged truncated */
		out[2] |= 0x02;
		memcpy(a.count, a.fitcount, sizeof(a.count));
	}
	out[7] = (uint8_t)a.count[0];
	out[6] = (uint8_t)(a.count[0] >> 8);
	out[9] = (uint8_t)a.count[1];
	out[8] = (uint8_t)(a.count[1] >> 8);
	out[11] = (uint8_t)a.count[2];
	out[10] = (uint8_t)(a.count[2] >> 8);
	return a.b.overflow ? (int)a.fit : (int)a.b.len;
}
