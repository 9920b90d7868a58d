/*
 * One parsed file: its text, cut in place by the parsers, compact records
 * in file order (offsets into the text plus the keys the indexes compare)
 * and the private indexes by name, by id, address or port, and by member,
 * host or service name. The last one points at references (record, name),
 * one per distinct name of a record, so finding the groups of a user costs
 * one comparison per group the user is in, however long the member lists
 * are, and a name repeated in one list costs nothing more (repeats are
 * counted and reported once, at debug level). Built once by nwrap_db_build()
 * and then immutable; the cache that owns it holds the lock while it is read.
 *
 * Memory: the text, 4 to 28 bytes a record and about 5.3 bytes an index
 * entry, so a file costs about twice its size.
 */
#include "nwrap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t nwrap_rec_size(enum nwrap_kind kind)
{
	switch (kind) {
	case NWRAP_PASSWD:
		return sizeof(struct nwrap_pwrec);
	case NWRAP_GROUP:
		return sizeof(struct nwrap_grrec);
	case NWRAP_SHADOW:
		return sizeof(struct nwrap_sprec);
	case NWRAP_HOSTS:
		return sizeof(struct nwrap_hrec);
	case NWRAP_SERVICES:
		return sizeof(struct nwrap_svrec);
	}
	return 0;
}

void nwrap_db_free(struct nwrap_db *db)
{
	if (db == NULL) {
		return;
	}
	nwrap_index_free(&db->by_name);
	nwrap_index_free(&db->by_id);
	nwrap_index_free(&db->by_ptr);
	free(db->ref);
	free(db->next);
	free(db->rec.any);
	free(db->text);
	free(db);
}

static uint32_t nwrap_off(const struct nwrap_db *db, const char *p)
{
	return (uint32_t)(p - db->text);
}

/* Parse one line into record db->n; *nkeys counts the multimap keys. */
static int nwrap_parse_line(struct nwrap_db *db, char *line, const char **why,
			    size_t *nkeys)
{
	struct passwd pw;
	struct spwd sp;
	struct nwrap_grview gr;
	struct nwrap_hview h;
	struct nwrap_svview sv;
	int rc = -1;

	switch (db->kind) {
	case NWRAP_PASSWD:
		rc = nwrap_parse_passwd(line, &pw, why);
		if (rc == 1) {
			db->rec.pw[db->n] = (struct nwrap_pwrec){
			    nwrap_off(db, pw.pw_name), pw.pw_uid, pw.pw_gid};
		}
		break;
	case NWRAP_GROUP:
		rc = nwrap_parse_group(line, &gr, why);
		if (rc == 1) {
			db->rec.gr[db->n] = (struct nwrap_grrec){
			    nwrap_off(db, gr.name), gr.gid,
			    nwrap_off(db, gr.mem), (uint32_t)gr.nmem};
			*nkeys += gr.nmem;
		}
		break;
	case NWRAP_SHADOW:
		rc = nwrap_parse_shadow(line, &sp, why);
		if (rc == 1) {
			db->rec.sp[db->n].off = nwrap_off(db, sp.sp_namp);
		}
		break;
	case NWRAP_HOSTS:
		rc = nwrap_parse_hosts(line, &h, why);
		if (rc == 1) {
			struct nwrap_hrec *r = &db->rec.h[db->n];

			r->family = h.family;
			memcpy(r->addr, h.addr, sizeof(r->addr));
			r->names = nwrap_off(db, h.names);
			r->nnames = (uint32_t)h.nnames;
			*nkeys += h.nnames;
		}
		break;
	case NWRAP_SERVICES:
		rc = nwrap_parse_service(line, &sv, why);
		if (rc == 1) {
			db->rec.sv[db->n] = (struct nwrap_svrec){
			    nwrap_off(db, sv.names), (uint32_t)sv.nnames,
			    nwrap_off(db, sv.proto), sv.port};
			*nkeys += sv.nnames;
		}
		break;
	}
	return rc;
}

static int nwrap_db_parse(struct nwrap_db *db, const char *path, size_t len,
			  size_t *nkeys)
{
	char *text = db->text;
	char *end = text + len;
	size_t nlines = 1;
	size_t lineno = 0;

	for (size_t i = 0; i < len; i++) {
		nlines += text[i] == '\n';
	}
	db->rec.any = calloc(nlines, nwrap_rec_size(db->kind));
	if (db->rec.any == NULL) {
		return -1;
	}

	for (char *line = text; line < end;) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		size_t llen;
		const char *why = NULL;

		if (eol == NULL) {
			eol = end;
		}
		*eol = '\0';
		lineno++;
		llen = (size_t)(eol - line);
		if (llen > 0 && line[llen - 1] == '\r') {
			line[--llen] = '\0';
		}
		if (llen > NWRAP_LINE_MAX) {
			why = "line too long";
		} else if (memchr(line, '\0', llen) != NULL) {
			why = "NUL byte in line";
		} else if (nwrap_parse_line(db, line, &why, nkeys) == 1) {
			db->n++;
		}
		if (why != NULL) {
			CWRAP_WARN("%s:%zu: %s, line skipped", path, lineno,
				   why);
		}
		line = eol + 1;
	}

	if (db->n < nlines) {
		void *p = realloc(db->rec.any, (db->n ? db->n : 1) *
						   nwrap_rec_size(db->kind));

		if (p != NULL) {
			db->rec.any = p;
		}
	}
	db->bytes = len + 1 + db->n * nwrap_rec_size(db->kind);
	return 0;
}

/* Per-record set of the names already referenced, to skip repeats:
 * hashes and refs in 2^k slots, reused from record to record. */
struct nwrap_seen {
	uint32_t *hash;
	uint32_t *ref;	/* ref + 1, 0: empty */
	size_t alloc;	/* slots allocated */
	size_t cap;	/* slots in use for the current record (2^k) */
	uint32_t *tail; /* first ref of a name -> its last ref (all records) */
};

/* Room for a record of `n` names: the slots it uses are cleared, and only
 * those (a record after a much longer one costs its own size). */
static int nwrap_seen_reserve(struct nwrap_seen *t, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2) {
		cap *= 2;
	}
	if (cap > t->alloc) {
		free(t->hash);
		free(t->ref);
		t->hash = malloc(cap * sizeof(*t->hash));
		t->ref = malloc(cap * sizeof(*t->ref));
		t->alloc = cap;
		if (t->hash == NULL || t->ref == NULL) {
			t->alloc = 0;
			return -1;
		}
	}
	t->cap = cap;
	memset(t->ref, 0, cap * sizeof(*t->ref));
	return 0;
}

/* The first reference to `name` (its case ignored for hosts), or
 * NWRAP_NONE; `it` then stands on it. */
static uint32_t nwrap_db_ptr_find(const struct nwrap_db *db, const char *name,
				  uint32_t hash, struct nwrap_index_it *it)
{
	bool icase = db->kind == NWRAP_HOSTS;
	uint32_t k;

	for (k = nwrap_index_find(&db->by_ptr, hash, it); k != NWRAP_NONE;
	     k = nwrap_index_next(it)) {
		const char *s = db->text + db->ref[k].off;

		if ((icase ? strcasecmp(s, name) : strcmp(s, name)) == 0) {
			break;
		}
	}
	it->rec = k;
	return k;
}

/* A new reference to name `m` (hash `h`) in record `rec`: indexed if it is
 * the name's first, chained after the name's last otherwise. */
static void nwrap_db_ref(struct nwrap_db *db, struct nwrap_seen *t,
			 uint32_t rec, const char *m, uint32_t h)
{
	uint32_t k = (uint32_t)db->nref, first;
	struct nwrap_index_it it;

	first = nwrap_db_ptr_find(db, m, h, &it);
	db->ref[k] = (struct nwrap_ref){rec, nwrap_off(db, m)};
	db->next[k] = NWRAP_NONE;
	if (first == NWRAP_NONE) {
		nwrap_index_add(&db->by_ptr, h, k);
		t->tail[k] = k;
	} else {
		db->next[t->tail[first]] = k;
		t->tail[first] = k;
	}
	db->nref++;
}

/* Reference the `n` packed names at `names` of record `rec`, each once. */
static int nwrap_db_names(struct nwrap_db *db, struct nwrap_seen *t,
			  uint32_t rec, const char *names, uint32_t n,
			  bool icase)
{
	const char *m = names;
	bool big = n > 8;

	if (big && nwrap_seen_reserve(t, n) != 0) {
		return -1;
	}
	for (uint32_t k = 0; k < n; k++, m = nwrap_str_next(m)) {
		uint32_t h = icase ? nwrap_hash_strcase(m) : nwrap_hash_str(m);
		bool dup = false;

		if (big) {
			size_t mask = t->cap - 1, i = h & mask;

			for (; t->ref[i] != 0; i = (i + 1) & mask) {
				const char *o =
				    db->text + db->ref[t->ref[i] - 1].off;

				if (t->hash[i] == h &&
				    (icase ? strcasecmp(o, m) : strcmp(o, m)) ==
					0) {
					dup = true;
					break;
				}
			}
			if (!dup) {
				t->hash[i] = h;
				t->ref[i] = (uint32_t)db->nref + 1;
			}
		} else {
			const char *o = names;

			for (uint32_t j = 0; j < k && !dup;
			     j++, o = nwrap_str_next(o)) {
				dup = (icase ? strcasecmp(o, m)
					     : strcmp(o, m)) == 0;
			}
		}
		if (dup) {
			db->ndup++;
			continue;
		}
		nwrap_db_ref(db, t, rec, m, h);
	}
	return 0;
}

static int nwrap_db_index(struct nwrap_db *db, size_t nkeys)
{
	struct nwrap_seen seen = {0};
	int rc = 0;

	if (db->kind == NWRAP_GROUP || db->kind == NWRAP_HOSTS ||
	    db->kind == NWRAP_SERVICES) {
		db->ref = malloc((nkeys ? nkeys : 1) * sizeof(*db->ref));
		db->next = malloc((nkeys ? nkeys : 1) * sizeof(*db->next));
		seen.tail = malloc((nkeys ? nkeys : 1) * sizeof(*seen.tail));
		if (db->ref == NULL || db->next == NULL || seen.tail == NULL ||
		    nwrap_index_init(&db->by_ptr, nkeys) != 0) {
			free(seen.tail);
			return -1;
		}
	}
	switch (db->kind) {
	case NWRAP_PASSWD:
		if (nwrap_index_init(&db->by_name, db->n) != 0 ||
		    nwrap_index_init(&db->by_id, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct nwrap_pwrec *r = &db->rec.pw[i];

			nwrap_index_add(&db->by_name,
					nwrap_hash_str(db->text + r->off),
					(uint32_t)i);
			nwrap_index_add(&db->by_id, nwrap_hash_u32(r->uid),
					(uint32_t)i);
		}
		break;
	case NWRAP_GROUP:
		if (nwrap_index_init(&db->by_name, db->n) != 0 ||
		    nwrap_index_init(&db->by_id, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n && rc == 0; i++) {
			const struct nwrap_grrec *r = &db->rec.gr[i];

			nwrap_index_add(&db->by_name,
					nwrap_hash_str(db->text + r->off),
					(uint32_t)i);
			nwrap_index_add(&db->by_id, nwrap_hash_u32(r->gid),
					(uint32_t)i);
			rc = nwrap_db_names(db, &seen, (uint32_t)i,
					    db->text + r->mem, r->nmem, false);
		}
		break;
	case NWRAP_SHADOW:
		if (nwrap_index_init(&db->by_name, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			nwrap_index_add(
			    &db->by_name,
			    nwrap_hash_str(db->text + db->rec.sp[i].off),
			    (uint32_t)i);
		}
		break;
	case NWRAP_HOSTS:
		if (nwrap_index_init(&db->by_id, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n && rc == 0; i++) {
			const struct nwrap_hrec *r = &db->rec.h[i];

			/* the first line of an address is the one looked
			 * up: only it is indexed, so a million lines of one
			 * address are not a million probes each */
			if (nwrap_db_host_by_addr(db, r->family, r->addr) ==
			    NWRAP_NONE) {
				nwrap_index_add(
				    &db->by_id,
				    nwrap_hash_addr(r->family, r->addr),
				    (uint32_t)i);
			}
			rc = nwrap_db_names(db, &seen, (uint32_t)i,
					    db->text + r->names, r->nnames,
					    true);
		}
		break;
	case NWRAP_SERVICES:
		if (nwrap_index_init(&db->by_id, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n && rc == 0; i++) {
			const struct nwrap_svrec *r = &db->rec.sv[i];

			nwrap_index_add(&db->by_id, nwrap_hash_u32(r->port),
					(uint32_t)i);
			rc = nwrap_db_names(db, &seen, (uint32_t)i,
					    db->text + r->names, r->nnames,
					    false);
		}
		break;
	}
	free(seen.hash);
	free(seen.ref);
	free(seen.tail);
	if (rc != 0) {
		errno = ENOMEM;
		return -1;
	}
	db->bytes += nwrap_index_bytes(&db->by_name) +
		     nwrap_index_bytes(&db->by_id) +
		     nwrap_index_bytes(&db->by_ptr) +
		     db->nref * (sizeof(*db->ref) + sizeof(*db->next));
	return 0;
}

struct nwrap_db *nwrap_db_build(enum nwrap_kind kind, const char *path,
				char *text, size_t len)
{
	struct nwrap_db *db;
	size_t nkeys = 0;

	if (len >= UINT32_MAX) {
		CWRAP_ERROR("%s: file too large (%zu bytes)", path, len);
		free(text);
		errno = EFBIG;
		return NULL;
	}
	db = calloc(1, sizeof(*db));
	if (db == NULL) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	db->kind = kind;
	db->text = text;
	text[len] = '\0';
	if (nwrap_db_parse(db, path, len, &nkeys) != 0 ||
	    nwrap_db_index(db, nkeys) != 0) {
		int err = errno;

		nwrap_db_free(db);
		errno = err == EFBIG ? EFBIG : ENOMEM;
		return NULL;
	}
	if (db->ndup > 0) {
		CWRAP_DEBUG("%s: %zu names listed more than once in one line "
			    "(each counts once)",
			    path, db->ndup);
	}
	return db;
}

void nwrap_db_pw(const struct nwrap_db *db, uint32_t i, struct passwd *pw)
{
	nwrap_view_passwd(db->text + db->rec.pw[i].off, pw);
}

void nwrap_db_sp(const struct nwrap_db *db, uint32_t i, struct spwd *sp)
{
	nwrap_view_shadow(db->text + db->rec.sp[i].off, sp);
}

void nwrap_db_gr(const struct nwrap_db *db, uint32_t i, struct nwrap_grview *gr)
{
	const struct nwrap_grrec *r = &db->rec.gr[i];

	gr->name = db->text + r->off;
	gr->passwd = nwrap_str_next(gr->name);
	gr->gid = r->gid;
	gr->mem = db->text + r->mem;
	gr->nmem = r->nmem;
}

void nwrap_db_h(const struct nwrap_db *db, uint32_t i, struct nwrap_hview *h)
{
	const struct nwrap_hrec *r = &db->rec.h[i];

	h->family = r->family;
	memcpy(h->addr, r->addr, sizeof(h->addr));
	h->names = db->text + r->names;
	h->nnames = r->nnames;
}

static const char *nwrap_rec_name(const struct nwrap_db *db, uint32_t i)
{
	switch (db->kind) {
	case NWRAP_PASSWD:
		return db->text + db->rec.pw[i].off;
	case NWRAP_GROUP:
		return db->text + db->rec.gr[i].off;
	case NWRAP_SHADOW:
		return db->text + db->rec.sp[i].off;
	case NWRAP_HOSTS:
	case NWRAP_SERVICES:
		break;
	}
	return "";
}

uint32_t nwrap_db_by_name(const struct nwrap_db *db, const char *name)
{
	struct nwrap_index_it it;
	uint32_t i;

	for (i = nwrap_index_find(&db->by_name, nwrap_hash_str(name), &it);
	     i != NWRAP_NONE; i = nwrap_index_next(&it)) {
		if (strcmp(nwrap_rec_name(db, i), name) == 0) {
			break;
		}
	}
	return i;
}

uint32_t nwrap_db_by_id(const struct nwrap_db *db, uint32_t id)
{
	struct nwrap_index_it it;
	uint32_t i;

	for (i = nwrap_index_find(&db->by_id, nwrap_hash_u32(id), &it);
	     i != NWRAP_NONE; i = nwrap_index_next(&it)) {
		uint32_t v = db->kind == NWRAP_PASSWD ? db->rec.pw[i].uid
						      : db->rec.gr[i].gid;

		if (v == id) {
			break;
		}
	}
	return i;
}

uint32_t nwrap_db_host_by_addr(const struct nwrap_db *db, int family,
			       const void *addr)
{
	struct nwrap_index_it it;
	size_t alen = family == AF_INET6 ? 16 : 4;
	uint32_t i;

	for (i = nwrap_index_find(&db->by_id, nwrap_hash_addr(family, addr),
				  &it);
	     i != NWRAP_NONE; i = nwrap_index_next(&it)) {
		const struct nwrap_hrec *h = &db->rec.h[i];

		if (h->family == family && memcmp(h->addr, addr, alen) == 0) {
			break;
		}
	}
	return i;
}

static uint32_t nwrap_db_ptr_first(const struct nwrap_db *db, const char *name,
				   uint32_t hash, struct nwrap_index_it *it)
{
	uint32_t k = nwrap_db_ptr_find(db, name, hash, it);

	return k == NWRAP_NONE ? NWRAP_NONE : db->ref[k].rec;
}

/* The record of the next reference to the name `it` stands on. */
static uint32_t nwrap_db_ptr_again(const struct nwrap_db *db, const char *name,
				   struct nwrap_index_it *it)
{
	(void)name;
	if (it->rec != NWRAP_NONE) {
		it->rec = db->next[it->rec];
	}
	return it->rec == NWRAP_NONE ? NWRAP_NONE : db->ref[it->rec].rec;
}

uint32_t nwrap_db_host_first(const struct nwrap_db *db, const char *name,
			     struct nwrap_index_it *it)
{
	return nwrap_db_ptr_first(db, name, nwrap_hash_strcase(name), it);
}

uint32_t nwrap_db_host_next(const struct nwrap_db *db, const char *name,
			    struct nwrap_index_it *it)
{
	return nwrap_db_ptr_again(db, name, it);
}

uint32_t nwrap_db_member_first(const struct nwrap_db *db, const char *name,
			       struct nwrap_index_it *it)
{
	return nwrap_db_ptr_first(db, name, nwrap_hash_str(name), it);
}

uint32_t nwrap_db_member_next(const struct nwrap_db *db, const char *name,
			      struct nwrap_index_it *it)
{
	return nwrap_db_ptr_again(db, name, it);
}

uint32_t nwrap_db_service(const struct nwrap_db *db, const char *name,
			  const char *proto)
{
	struct nwrap_index_it it;

	for (uint32_t i =
		 nwrap_db_ptr_first(db, name, nwrap_hash_str(name), &it);
	     i != NWRAP_NONE; i = nwrap_db_ptr_again(db, name, &it)) {
		if (strcmp(db->text + db->rec.sv[i].proto, proto) == 0) {
			return i;
		}
	}
	return NWRAP_NONE;
}

uint32_t nwrap_db_service_by_port(const struct nwrap_db *db, uint32_t port,
				  const char *proto)
{
	struct nwrap_index_it it;

	for (uint32_t i =
		 nwrap_index_find(&db->by_id, nwrap_hash_u32(port), &it);
	     i != NWRAP_NONE; i = nwrap_index_next(&it)) {
		const struct nwrap_svrec *r = &db->rec.sv[i];

		if (r->port == port &&
		    strcmp(db->text + r->proto, proto) == 0) {
			return i;
		}
	}
	return NWRAP_NONE;
}
