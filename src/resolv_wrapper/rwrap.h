/*
 * resolv_wrapper internal API (hidden visibility), grouped by layer:
 *   msg      DNS messages: names, queries, questions (rwrap_msg.c, pure);
 *   hosts    RESOLV_WRAPPER_HOSTS: the record file, parsed and indexed
 *            (rwrap_hosts.c builds an immutable db; rwrap_answer.c makes
 *            a DNS answer from it, pure);
 *   conf     RESOLV_WRAPPER_CONF + RES_OPTIONS + LOCALDOMAIN
 *            (rwrap_conf.c);
 *   cache    file -> parsed form, re-read when the file changes
 *            (rwrap_cache.c, one mutex per cache);
 *   send     the query over UDP, then TCP when truncated (rwrap_send.c,
 *            no state: ordinary socket calls that socket_wrapper sees);
 *   logic    res_nquery and friends with the resolver's semantics
 *            (rwrap_query.c).
 * The exported names live in rwrap_entry.c, libc's in rwrap_libc.c.
 */
#ifndef RWRAP_H
#define RWRAP_H

#include <netinet/in.h>
#include <pthread.h>
#include "rwrap_resolv.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cwrap_compiler.h"
#include "cwrap_log.h"

#define RWRAP_TTL 600
#define RWRAP_MAXMSG 65535
/* longest RDATA a line of the record file makes (TXT) */
#define RWRAP_MAXRDATA 4096
/* CNAME links followed in one answer */
#define RWRAP_MAX_CHAIN 16

/* ---- msg ------------------------------------------------------------- */

struct rwrap_buf {
	uint8_t *p;
	size_t len, cap;
	bool overflow; /* something did not fit: len stopped growing */
};

void rwrap_put8(struct rwrap_buf *b, unsigned v);
void rwrap_put16(struct rwrap_buf *b, unsigned v);
void rwrap_put32(struct rwrap_buf *b, uint32_t v);
void rwrap_put_bytes(struct rwrap_buf *b, const void *p, size_t n);
/* A domain name in text form ("a.b.c", "a.b.c." or ".") as labels. */
void rwrap_put_name(struct rwrap_buf *b, const char *name);

/* Whether `name` is a usable domain name: labels of 1..63 bytes, at most
 * 253 in all, an optional trailing dot; "." is the root. */
bool rwrap_name_valid(const char *name);
/* `name` lower-cased without its trailing dot into out (cap >= 256). */
void rwrap_name_key(const char *name, char *out, size_t cap);

/* A query message: 12-byte header with `id` (RD set when `rd`), one
 * question. Returns its length, or -1 if it does not fit or the name is
 * not valid. */
int rwrap_mkquery(uint16_t id, bool rd, const char *name, unsigned qclass,
		  unsigned qtype, uint8_t *out, size_t cap);

struct rwrap_question {
	uint16_t id;
	bool rd;
	char name[256]; /* text, no trailing dot ("" for the root) */
	uint16_t qtype, qclass;
	size_t end; /* offset after the question */
};

/* The first question of a message; false if it is malformed. */
bool rwrap_parse_question(const uint8_t *msg, size_t len,
			  struct rwrap_question *q);

uint16_t rwrap_random_id(void);

/* ---- hosts ----------------------------------------------------------- */

struct rwrap_db;

/* Parse a record file (its whole text); bad lines are reported naming
 * `path` and the line and left out. NULL only when out of memory. */
struct rwrap_db *rwrap_db_parse(const char *path, const char *text, size_t len);
void rwrap_db_free(struct rwrap_db *db);
size_t rwrap_db_count(const struct rwrap_db *db);

/* The answer to question q from db, with q's id, into out: a whole DNS
 * message (rcode NXDOMAIN for a name the file does not know). Returns
 * its length; when it does not fit, the whole records that do, with TC
 * set. -1 if even the header does not fit. */
int rwrap_db_answer(const struct rwrap_db *db, const struct rwrap_question *q,
		    uint8_t *out, size_t cap);

/* Internal to the hosts layer: records of one name. */
struct rwrap_rr {
	uint16_t type;
	uint16_t rdlen;
	uint32_t next;	/* index of the next record of this name, or ~0 */
	char *name;	/* key form: lower case, no trailing dot */
	char *target;	/* CNAME/SRV/MX/NS/PTR target (key form), or NULL */
	uint8_t *rdata; /* encoded, no compression */
};
/* First record of `key` (key form), or NULL. */
const struct rwrap_rr *rwrap_db_find(const struct rwrap_db *db,
				     const char *key);
const struct rwrap_rr *rwrap_db_next(const struct rwrap_db *db,
				     const struct rwrap_rr *rr);

/* ---- conf ------------------------------------------------------------ */

#define RWRAP_MAXNS 3
#define RWRAP_MAXDNSRCH 6

struct rwrap_conf {
	int nns;
	struct sockaddr_storage ns[RWRAP_MAXNS];
	socklen_t nslen[RWRAP_MAXNS];
	int nsearch;
	char search[RWRAP_MAXDNSRCH][256];
	int ndots;    /* default 1, at most 15 */
	int timeout;  /* seconds per try, default 5, at most 30 */
	int attempts; /* default 2, at most 5 */
	bool rotate, usevc, edns0;
};

/* Parse resolv.conf(5) text; bad lines reported with path:line. */
void rwrap_conf_parse(const char *path, const char *text, struct rwrap_conf *c);
/* Apply an `options` value (RES_OPTIONS syntax); `where` names it. */
void rwrap_conf_options(struct rwrap_conf *c, const char *opts,
			const char *where);
void rwrap_conf_defaults(struct rwrap_conf *c);

/* ---- cache ----------------------------------------------------------- */

/* What RESOLV_WRAPPER_CONF says now (re-read when the file changed),
 * with RES_OPTIONS and LOCALDOMAIN applied; an unreadable file (reported
 * once) gives no nameservers, and its errno is returned (0 otherwise). */
int rwrap_conf_get(const char *path, struct rwrap_conf *out);

/* Answer question q from the file `path` (re-read when it changed). */
int rwrap_hosts_answer(const char *path, const struct rwrap_question *q,
		       uint8_t *out, size_t cap);

/* Read a whole file; NULL (errno set) if it cannot be read. */
char *rwrap_read_file(const char *path, size_t *len);

void rwrap_cache_atfork_prepare(void);
void rwrap_cache_atfork_parent(void);
void rwrap_cache_atfork_child(void);

/* ---- send ------------------------------------------------------------ */

/* Send the query to the nameservers of c (UDP, TCP when the answer is
 * truncated or `usevc`), as many tries as c says. Returns the answer's
 * length (at most cap, TC set if cut) or -1 with errno (ECONNREFUSED,
 * ETIMEDOUT). */
int rwrap_send(const struct rwrap_conf *c, bool usevc, bool igntc,
	       const uint8_t *q, size_t qlen, uint8_t *ans, size_t cap);

/* ---- logic ----------------------------------------------------------- */

/* The variables now: hosts file, conf file; both NULL when inert. */
struct rwrap_mode {
	const char *hosts;
	const char *conf;
};
bool rwrap_mode(struct rwrap_mode *m);
bool rwrap_enabled(void);

int rwrap_res_ninit(res_state statp);
int rwrap_res_init(void);
void rwrap_res_nclose(res_state statp);
/* The thread's _res, initialised (with our configuration) if it was not:
 * what res_query and the other calls without a state use. */
res_state rwrap_res_default(void);
int rwrap_res_nquery(res_state statp, const char *dname, int qclass, int type,
		     unsigned char *answer, int anslen);
int rwrap_res_nsearch(res_state statp, const char *dname, int qclass, int type,
		      unsigned char *answer, int anslen);
int rwrap_res_nquerydomain(res_state statp, const char *name,
			   const char *domain, int qclass, int type,
			   unsigned char *answer, int anslen);
int rwrap_res_nsend(res_state statp, const unsigned char *msg, int msglen,
		    unsigned char *answer, int anslen);

#endif
