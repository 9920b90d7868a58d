/*
 * One parsed file: its text (cut in place, records point into it), the
 * records in file order and the private indexes by name, by id or address
 * and by member/host name. Built once by nwrap_db_build() and then
 * immutable; the cache that owns it holds the lock while it is read.
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
		return sizeof(struct passwd);
	case NWRAP_GROUP:
		return sizeof(struct group);
	case NWRAP_SHADOW:
		return sizeof(struct spwd);
	case NWRAP_HOSTS:
		return sizeof(struct nwrap_host);
	}
	return 0;
}

static void *nwrap_rec_at(struct nwrap_db *db, size_t i)
{
	return (char *)db->rec.pw + i * nwrap_rec_size(db->kind);
}

void nwrap_db_free(struct nwrap_db *db)
{
	if (db == NULL) {
		return;
	}
	nwrap_index_free(&db->by_name);
	nwrap_index_free(&db->by_id);
	nwrap_index_free(&db->by_ptr);
	free(db->rec.pw);
	free(db->ptrs);
	free(db->owner);
	free(db->text);
	free(db);
}

/* Upper bound of the pointer slots the parsers may use. */
static size_t nwrap_ptr_bound(enum nwrap_kind kind, const char *text,
			      size_t len, size_t nlines)
{
	size_t n = 0;
	bool in_word = false;

	if (kind == NWRAP_GROUP) {
		for (size_t i = 0; i < len; i++) {
			n += text[i] == ',';
		}
		return n + 2 * nlines;
	}
	if (kind == NWRAP_HOSTS) {
		for (size_t i = 0; i < len; i++) {
			char c = text[i];
			bool sp = c == ' ' || c == '\t' || c == '\n' ||
				  c == '\r' || c == '\v' || c == '\f';

			n += !sp && !in_word;
			in_word = !sp;
		}
		return n + nlines;
	}
	return 0;
}

static int nwrap_parse_line(struct nwrap_db *db, char *line, const char **why)
{
	void *rec = nwrap_rec_at(db, db->n);
	char **slots = db->ptrs + db->nptrs;
	int rc = -1;

	switch (db->kind) {
	case NWRAP_PASSWD:
		rc = nwrap_parse_passwd(line, rec, why);
		break;
	case NWRAP_GROUP:
		rc = nwrap_parse_group(line, rec, slots, why);
		break;
	case NWRAP_SHADOW:
		rc = nwrap_parse_shadow(line, rec, why);
		break;
	case NWRAP_HOSTS:
		rc = nwrap_parse_hosts(line, rec, slots, why);
		break;
	}
	if (rc == 1 && (db->kind == NWRAP_GROUP || db->kind == NWRAP_HOSTS)) {
		size_t used = 0;

		while (slots[used] != NULL) {
			db->owner[db->nptrs + used] = (uint32_t)db->n;
			used++;
		}
		db->owner[db->nptrs + used] = (uint32_t)db->n;
		db->nptrs += used + 1;
	}
	return rc;
}

static int nwrap_db_parse(struct nwrap_db *db, const char *path, size_t len)
{
	char *text = db->text;
	char *end = text + len;
	size_t nlines = 1, nptr;
	size_t lineno = 0;

	for (size_t i = 0; i < len; i++) {
		nlines += text[i] == '\n';
	}
	nptr = nwrap_ptr_bound(db->kind, text, len, nlines);
	db->rec.pw = calloc(nlines, nwrap_rec_size(db->kind));
	if (nptr > 0) {
		db->ptrs = calloc(nptr, sizeof(*db->ptrs));
		db->owner = calloc(nptr, sizeof(*db->owner));
	}
	if (db->rec.pw == NULL || (nptr > 0 && (!db->ptrs || !db->owner))) {
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
		} else {
			int rc = nwrap_parse_line(db, line, &why);

			if (rc == 1) {
				db->n++;
			}
		}
		if (why != NULL) {
			CWRAP_WARN("%s:%zu: %s, line skipped", path, lineno,
				   why);
		}
		line = eol + 1;
	}

	if (db->n < nlines) {
		void *p = realloc(db->rec.pw, (db->n ? db->n : 1) *
						  nwrap_rec_size(db->kind));

		if (p != NULL) {
			db->rec.pw = p;
		}
	}
	db->bytes = len + 1 + db->n * nwrap_rec_size(db->kind) +
		    nptr * (sizeof(char *) + sizeof(uint32_t));
	return 0;
}

static int nwrap_db_index(struct nwrap_db *db)
{
	size_t nmem = 0;

	switch (db->kind) {
	case NWRAP_PASSWD:
		if (nwrap_index_init(&db->by_name, db->n) != 0 ||
		    nwrap_index_init(&db->by_id, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct passwd *pw = &db->rec.pw[i];

			nwrap_index_add(&db->by_name,
					nwrap_hash_str(pw->pw_name),
					(uint32_t)i);
			nwrap_index_add(&db->by_id, nwrap_hash_u32(pw->pw_uid),
					(uint32_t)i);
		}
		break;
	case NWRAP_GROUP:
		for (size_t i = 0; i < db->nptrs; i++) {
			nmem += db->ptrs[i] != NULL;
		}
		if (nwrap_index_init(&db->by_name, db->n) != 0 ||
		    nwrap_index_init(&db->by_id, db->n) != 0 ||
		    nwrap_index_init(&db->by_ptr, nmem) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct group *gr = &db->rec.gr[i];

			nwrap_index_add(&db->by_name,
					nwrap_hash_str(gr->gr_name),
					(uint32_t)i);
			nwrap_index_add(&db->by_id, nwrap_hash_u32(gr->gr_gid),
					(uint32_t)i);
		}
		for (size_t i = 0; i < db->nptrs; i++) {
			if (db->ptrs[i] != NULL) {
				nwrap_index_add(&db->by_ptr,
						nwrap_hash_str(db->ptrs[i]),
						(uint32_t)i);
			}
		}
		break;
	case NWRAP_SHADOW:
		if (nwrap_index_init(&db->by_name, db->n) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			nwrap_index_add(&db->by_name,
					nwrap_hash_str(db->rec.sp[i].sp_namp),
					(uint32_t)i);
		}
		break;
	case NWRAP_HOSTS:
		if (nwrap_index_init(&db->by_id, db->n) != 0 ||
		    nwrap_index_init(&db->by_ptr, db->nptrs) != 0) {
			return -1;
		}
		for (size_t i = 0; i < db->n; i++) {
			const struct nwrap_host *h = &db->rec.h[i];

			nwrap_index_add(&db->by_id,
					nwrap_hash_addr(h->family, h->addr),
					(uint32_t)i);
		}
		for (size_t i = 0; i < db->nptrs; i++) {
			if (db->ptrs[i] != NULL) {
				nwrap_index_add(&db->by_ptr,
						nwrap_hash_strcase(db->ptrs[i]),
						(uint32_t)i);
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
	struct nwrap_db *db = calloc(1, sizeof(*db));

	if (db == NULL) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	db->kind = kind;
	db->text = text;
	text[len] = '\0';
	if (nwrap_db_parse(db, path, len) != 0 || nwrap_db_index(db) != 0) {
		nwrap_db_free(db);
		errno = ENOMEM;
		return NULL;
	}
	return db;
}

static const char *nwrap_rec_name(const struct nwrap_db *db, uint32_t i)
{
	switch (db->kind) {
	case NWRAP_PASSWD:
		return db->rec.pw[i].pw_name;
	case NWRAP_GROUP:
		return db->rec.gr[i].gr_name;
	case NWRAP_SHADOW:
		return db->rec.sp[i].sp_namp;
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
		uint32_t v = db->kind == NWRAP_PASSWD ? db->rec.pw[i].pw_uid
						      : db->rec.gr[i].gr_gid;

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
		const struct nwrap_host *h = &db->rec.h[i];

		if (h->family == family && memcmp(h->addr, addr, alen) == 0) {
			break;
		}
	}
	return i;
}

/* Next pointer slot whose string equals `name` and whose record differs
 * from the previous answer; returns the record. */
static uint32_t nwrap_db_ptr_next(const struct nwrap_db *db, const char *name,
				  struct nwrap_index_it *it, uint32_t prev,
				  uint32_t i)
{
	bool icase = db->kind == NWRAP_HOSTS;

	for (; i != NWRAP_NONE; i = nwrap_index_next(it)) {
		const char *s = db->ptrs[i];
		bool eq =
		    icase ? strcasecmp(s, name) == 0 : strcmp(s, name) == 0;

		if (eq && db->owner[i] != prev) {
			return db->owner[i];
		}
	}
	return NWRAP_NONE;
}

uint32_t nwrap_db_host_first(const struct nwrap_db *db, const char *name,
			     struct nwrap_index_it *it)
{
	uint32_t i =
	    nwrap_index_find(&db->by_ptr, nwrap_hash_strcase(name), it);

	it->rec = nwrap_db_ptr_next(db, name, it, NWRAP_NONE, i);
	return it->rec;
}

uint32_t nwrap_db_host_next(const struct nwrap_db *db, const char *name,
			    struct nwrap_index_it *it)
{
	if (it->rec == NWRAP_NONE) {
		return NWRAP_NONE;
	}
	it->rec =
	    nwrap_db_ptr_next(db, name, it, it->rec, nwrap_index_next(it));
	return it->rec;
}

uint32_t nwrap_db_member_first(const struct nwrap_db *db, const char *name,
			       struct nwrap_index_it *it)
{
	uint32_t i = nwrap_index_find(&db->by_ptr, nwrap_hash_str(name), it);

	it->rec = nwrap_db_ptr_next(db, name, it, NWRAP_NONE, i);
	return it->rec;
}

uint32_t nwrap_db_member_next(const struct nwrap_db *db, const char *name,
			      struct nwrap_index_it *it)
{
	if (it->rec == NWRAP_NONE) {
		return NWRAP_NONE;
	}
	it->rec =
	    nwrap_db_ptr_next(db, name, it, it->rec, nwrap_index_next(it));
	return it->rec;
}
