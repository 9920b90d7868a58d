/*
 * One parsed file: its text, cut in place by the parsers, compact records
 * in file order (offsets into the text plus the keys the indexes compare)
 * and the private indexes by name, by id, address or port, and by member,
 * host or service name. The last one points at references (record, name),
 * one per distinct name of a record, so finding the groups of a user costs
 * one comparison per group the user is in, however long the member lists
 * are, and a name repeated in one list costs nothing more (repeats are
 * counted and reported once, at debug level). Built by nwrap_db_build();
 * afterwards only the indexes of passwd, group and shadow are added, each
 * at the second lookup that needs it (the first scans the records), under
 * the lock of the cache that owns the db, which every reader holds.
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

/* The number of '\n' in p[0..len), eight bytes at a time. */
static size_t nwrap_count_newlines(const char *p, size_t len)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t highs = 0x8080808080808080ULL;
	size_t n = 0, i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		w ^= ones * '\n'; /* a newline byte is now 0 */
		/* exact per byte: a 0 byte, and only a 0 byte, gets its
		 * high bit set */
		w = ~(((w & ~highs) + ~highs) | w) & highs;
		/* add up the marks (0 or 1 a byte) in the top byte: no
		 * popcnt instruction in the baseline x86-64 */
		n += (size_t)(((w >> 7) * ones) >> 56);
	}
	for (; i < len; i++) {
		n += p[i] == '\n';
	}
	return n;
}

static int nwrap_db_parse(struct nwrap_db *db, const char *path, size_t len,
			  size_t *nkeys)
{
	char *text = db->text;
	char *end = text + len;
	/* a last line without its newline counts too */
	size_t nlines = nwrap_count_newlines(text, len) +
			(len > 0 && text[len - 1] != '\n');
	size_t lineno = 0;
	/* lines are checked for a NUL byte only if the file has one */
	bool nul = memchr(text, '\0', len) != NULL;
	db->rec.any = calloc(nlines ? nlines : 1, nwrap_rec_size(db->kind));
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
		} else if (nul && memchr(line, '\0', llen) != NULL) {
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

/* The references of every record's list (`nkeys` names in all), each
 * distinct name of a list once, and their index by name. */
static int nwrap_db_refs(struct nwrap_db *db, size_t nkeys)
{
	struct nwrap_seen seen = {0};
	int rc = 0;

	db->ref = malloc((nkeys ? nkeys : 1) * sizeof(*db->ref));
	db->next = malloc((nkeys ? nkeys : 1) * sizeof(*db->next));
	seen.tail = malloc((nkeys ? nkeys : 1) * sizeof(*seen.tail));
	if (db->ref == NULL || db->next == NULL || seen.tail == NULL ||
	    nwrap_index_init(&db->by_ptr, nkeys) != 0) {
		rc = -1;
	}
	for (size_t i = 0; i < db->n && rc == 0; i++) {
		const char *names = NULL;
		uint32_t nn = 0;

		switch (db->kind) {
		case NWRAP_GROUP:
			names = db->text + db->rec.gr[i].mem;
			nn = db->rec.gr[i].nmem;
			break;
		case NWRAP_HOSTS:
			names = db->text + db->rec.h[i].names;
			nn = db->rec.h[i].nnames;
			break;
		case NWRAP_SERVICES:
			names = db->text + db->rec.sv[i].names;
			nn = db->rec.sv[i].nnames;
			break;
		case NWRAP_PASSWD:
		case NWRAP_SHADOW:
			break;
		}
		rc = nwrap_db_names(db, &seen, (uint32_t)i, names, nn,
				    db->kind == NWRAP_HOSTS);
	}
	free(seen.hash);
	free(seen.ref);
	free(seen.tail);
	if (rc != 0) {
		free(db->ref);
		free(db->next);
		nwrap_index_free(&db->by_ptr);
		db->ref = NULL;
		db->next = NULL;
		db->nref = 0;
		db->ndup = 0;
		errno = ENOMEM;
		return -1;
	}
	if (db->ndup > 0) {
		CWRAP_DEBUG("%s: %zu names listed more than once in one line "
			    "(each counts once)",
			    db->path, db->ndup);
	}
	db->bytes += nwrap_index_bytes(&db->by_ptr) +
		     db->nref * (sizeof(*db->ref) + sizeof(*db->next));
	return 0;
}

static const char *nwrap_rec_name(const struct nwrap_db *db, uint32_t i);

static uint32_t nwrap_rec_id(const struct nwrap_db *db, uint32_t i)
{
	return db->kind == NWRAP_PASSWD ? db->rec.pw[i].uid : db->rec.gr[i].gid;
}

/* Build index `ix` (NWRAP_IX_*) of a passwd, group or shadow db. */
static int nwrap_db_build_index(struct nwrap_db *db, unsigned ix)
{
	struct nwrap_index *x = ix == NWRAP_IX_NAME ? &db->by_name : &db->by_id;

	if (ix == NWRAP_IX_MEMBER) {
		return nwrap_db_refs(db, db->nkeys);
	}
	if (nwrap_index_init(x, db->n) != 0) {
		return -1;
	}
	for (size_t i = 0; i < db->n; i++) {
		uint32_t h =
		    ix == NWRAP_IX_NAME
			? nwrap_hash_str(nwrap_rec_name(db, (uint32_t)i))
			: nwrap_hash_u32(nwrap_rec_id(db, (uint32_t)i));

		nwrap_index_add(x, h, (uint32_t)i);
	}
	db->bytes += nwrap_index_bytes(x);
	return 0;
}

/* May index `ix` answer this lookup? No for the first lookup that needs it
 * (the caller scans the records: one pass over them costs less than
 * building the index), and when memory is short; the second builds it.
 * The caller holds the owning cache's lock. */
static bool nwrap_db_indexed(const struct nwrap_db *cdb, unsigned ix)
{
	/* not a const object: the db is malloc'd, and its lazy part is
	 * changed only under the cache's lock, as the caller holds */
	struct nwrap_db *db = (struct nwrap_db *)(uintptr_t)cdb;

	if (cwrap_likely(db->built & ix)) {
		return true;
	}
	if (!(db->scanned & ix)) {
		db->scanned |= ix;
		return false;
	}
	if (nwrap_db_build_index(db, ix) != 0) {
		return false;
	}
	db->built |= ix;
	return true;
}

/* Hosts and services: every index now. Passwd, group, shadow: none yet,
 * but at debug level a group's members are indexed at once, so that the
 * names listed twice in one line are counted and reported at load. */
static int nwrap_db_index(struct nwrap_db *db, size_t nkeys)
{
	db->nkeys = nkeys;
	if (db->kind == NWRAP_GROUP && cwrap_log_level() >= CWRAP_LOG_DEBUG &&
	    nwrap_db_refs(db, nkeys) == 0) {
		db->built |= NWRAP_IX_MEMBER;
	}
	if (db->kind != NWRAP_HOSTS && db->kind != NWRAP_SERVICES) {
		return 0;
	}
	if (nwrap_index_init(&db->by_id, db->n) != 0) {
		return -1;
	}
	for (size_t i = 0; i < db->n; i++) {
		uint32_t h;

		if (db->kind == NWRAP_HOSTS) {
			const struct nwrap_hrec *r = &db->rec.h[i];

			/* the first line of an address is the one looked
			 * up: only it is indexed, so a million lines of one
			 * address are not a million probes each */
			if (nwrap_db_host_by_addr(db, r->family, r->addr) !=
			    NWRAP_NONE) {
				continue;
			}
			h = nwrap_hash_addr(r->family, r->addr);
		} else {
			h = nwrap_hash_u32(db->rec.sv[i].port);
		}
		nwrap_index_add(&db->by_id, h, (uint32_t)i);
	}
	db->bytes += nwrap_index_bytes(&db->by_id);
	return nwrap_db_refs(db, nkeys);
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
	db->path = path;
	db->text = text;
	text[len] = '\0';
	if (nwrap_db_parse(db, path, len, &nkeys) != 0 ||
	    nwrap_db_index(db, nkeys) != 0) {
		int err = errno;

		nwrap_db_free(db);
		errno = err == EFBIG ? EFBIG : ENOMEM;
		return NULL;
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

	if (!nwrap_db_indexed(db, NWRAP_IX_NAME)) {
		for (i = 0; i < db->n; i++) {
			const char *s = nwrap_rec_name(db, i);

			if (s[0] == name[0] && strcmp(s, name) == 0) {
				return i;
			}
		}
		return NWRAP_NONE;
	}
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

	if (!nwrap_db_indexed(db, NWRAP_IX_ID)) {
		for (i = 0; i < db->n; i++) {
			if (nwrap_rec_id(db, i) == id) {
				return i;
			}
		}
		return NWRAP_NONE;
	}
	for (i = nwrap_index_find(&db->by_id, nwrap_hash_u32(id), &it);
	     i != NWRAP_NONE; i = nwrap_index_next(&it)) {
		if (nwrap_rec_id(db, i) == id) {
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

/* The first group from record `from` on that lists `name` (scan mode of
 * the member iterator: it->ix is NULL, it->pos the next record). */
static uint32_t nwrap_db_member_scan(const struct nwrap_db *db,
				     const char *name, uint32_t from,
				     struct nwrap_index_it *it)
{
	for (uint32_t i = from; i < db->n; i++) {
		const struct nwrap_grrec *r = &db->rec.gr[i];
		const char *m = db->text + r->mem;

		for (uint32_t k = 0; k < r->nmem; k++, m = nwrap_str_next(m)) {
			if (m[0] == name[0] && strcmp(m, name) == 0) {
				it->pos = i + 1;
				return i;
			}
		}
	}
	it->pos = (uint32_t)db->n;
	return NWRAP_NONE;
}

uint32_t nwrap_db_member_first(const struct nwrap_db *db, const char *name,
			       struct nwrap_index_it *it)
{
	if (!nwrap_db_indexed(db, NWRAP_IX_MEMBER)) {
		it->ix = NULL;
		return nwrap_db_member_scan(db, name, 0, it);
	}
	return nwrap_db_ptr_first(db, name, nwrap_hash_str(name), it);
}

uint32_t nwrap_db_member_next(const struct nwrap_db *db, const char *name,
			      struct nwrap_index_it *it)
{
	if (it->ix == NULL) {
		return nwrap_db_member_scan(db, name, it->pos, it);
	}
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
