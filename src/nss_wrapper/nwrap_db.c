/*
 * One parsed file: its text, cut in place by the parsers, compact records
 * in file order (offsets into the text plus the keys the indexes compare)
 * and the private indexes by name, by id or address, and by member or host
 * name. Built once by nwrap_db_build() and then immutable; the cache that
 * owns it holds the lock while it is read.
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

static int nwrap_db_index(struct nwrap_db *db, size_t nkeys)
{
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
		    nwrap_index_init(&db->by_id, db->n) != 0 ||
		    nwrap_index_init(&db->by_ptr, nkeys) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct nwrap_grrec *r = &db->rec.gr[i];
			const char *m = db->text + r->mem;

			nwrap_index_add(&db->by_name,
					nwrap_hash_str(db->text + r->off),
					(uint32_t)i);
			nwrap_index_add(&db->by_id, nwrap_hash_u32(r->gid),
					(uint32_t)i);
			for (uint32_t k = 0; k < r->nmem; k++) {
				nwrap_index_add(&db->by_ptr, nwrap_hash_str(m),
						(uint32_t)i);
				m = nwrap_str_next(m);
			}
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
		if (nwrap_index_init(&db->by_id, db->n) != 0 ||
		    nwrap_index_init(&db->by_ptr, nkeys) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct nwrap_hrec *r = &db->rec.h[i];
			const char *m = db->text + r->names;

			nwrap_index_add(&db->by_id,
					nwrap_hash_addr(r->family, r->addr),
					(uint32_t)i);
			for (uint32_t k = 0; k < r->nnames; k++) {
				nwrap_index_add(&db->by_ptr,
						nwrap_hash_strcase(m),
						(uint32_t)i);
				m = nwrap_str_next(m);
			}
		}
		break;
	}
	db->bytes += nwrap_index_bytes(&db->by_name) +
		     nwrap_index_bytes(&db->by_id) +
		     nwrap_index_bytes(&db->by_ptr);
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

/* Next record listing `name` (a member, or a host name in any case) other
 * than the previous answer. */
static uint32_t nwrap_db_ptr_next(const struct nwrap_db *db, const char *name,
				  struct nwrap_index_it *it, uint32_t prev,
				  uint32_t i)
{
	bool icase = db->kind == NWRAP_HOSTS;

	for (; i != NWRAP_NONE; i = nwrap_index_next(it)) {
		const char *s;
		uint32_t n;

		if (i == prev) {
			continue;
		}
		if (icase) {
			s = db->text + db->rec.h[i].names;
			n = db->rec.h[i].nnames;
		} else {
			s = db->text + db->rec.gr[i].mem;
			n = db->rec.gr[i].nmem;
		}
		for (uint32_t k = 0; k < n; k++, s = nwrap_str_next(s)) {
			if (icase ? strcasecmp(s, name) == 0
				  : strcmp(s, name) == 0) {
				return i;
			}
		}
	}
	return NWRAP_NONE;
}

static uint32_t nwrap_db_ptr_first(const struct nwrap_db *db, const char *name,
				   uint32_t hash, struct nwrap_index_it *it)
{
	uint32_t i = nwrap_index_find(&db->by_ptr, hash, it);

	it->rec = nwrap_db_ptr_next(db, name, it, NWRAP_NONE, i);
	return it->rec;
}

static uint32_t nwrap_db_ptr_again(const struct nwrap_db *db, const char *name,
				   struct nwrap_index_it *it)
{
	if (it->rec == NWRAP_NONE) {
		return NWRAP_NONE;
	}
	it->rec =
	    nwrap_db_ptr_next(db, name, it, it->rec, nwrap_index_next(it));
	return it->rec;
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
