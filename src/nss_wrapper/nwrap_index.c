/*
 * Private hash indexes (never hsearch(3), whose single process-wide table
 * belongs to the application): see struct nwrap_index. Load factor at most
 * 3/4, 32 bits a slot, so an index costs about 5.3 bytes per item (the
 * memory budget is 3x the file). An index is built
 * once when a file is loaded and then only read: no lock of its own (the
 * owning cache's lock covers it). The hash set of a list of gids (struct
 * nwrap_gids, for initgroups and getgrouplist) is its caller's alone.
 */
#include "nwrap.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int nwrap_index_init(struct nwrap_index *ix, size_t nitems)
{
	size_t cap = nitems + nitems / 3 + 8;

	ix->cap = 0;
	ix->slot = NULL;
	if (nitems > NWRAP_INDEX_MAX) {
		errno = EFBIG;
		return -1;
	}
	ix->slot = calloc(cap, sizeof(*ix->slot));
	if (ix->slot == NULL) {
		errno = ENOMEM;
		return -1;
	}
	ix->cap = (uint32_t)cap;
	return 0;
}

void nwrap_index_free(struct nwrap_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = 0;
}

size_t nwrap_index_bytes(const struct nwrap_index *ix)
{
	return (size_t)ix->cap * sizeof(*ix->slot);
}

#define NWRAP_TAG_SHIFT 26

static uint32_t nwrap_index_start(const struct nwrap_index *ix, uint32_t hash)
{
	return (uint32_t)(((uint64_t)hash * ix->cap) >> 32);
}

void nwrap_index_add(struct nwrap_index *ix, uint32_t hash, uint32_t item)
{
	uint32_t pos = nwrap_index_start(ix, hash);

	while (ix->slot[pos] != 0) {
		pos = pos + 1 == ix->cap ? 0 : pos + 1;
	}
	ix->slot[pos] = ((hash & 63u) << NWRAP_TAG_SHIFT) | (item + 1);
}

uint32_t nwrap_index_next(struct nwrap_index_it *it)
{
	const struct nwrap_index *ix = it->ix;

	if (ix->cap == 0) {
		return NWRAP_NONE;
	}
	for (;;) {
		uint32_t s = ix->slot[it->pos];

		if (s == 0) {
			return NWRAP_NONE;
		}
		it->pos = it->pos + 1 == ix->cap ? 0 : it->pos + 1;
		if ((s >> NWRAP_TAG_SHIFT) == it->tag) {
			return (s & ((1u << NWRAP_TAG_SHIFT) - 1)) - 1;
		}
	}
}

uint32_t nwrap_index_find(const struct nwrap_index *ix, uint32_t hash,
			  struct nwrap_index_it *it)
{
	it->ix = ix;
	it->tag = hash & 63u;
	it->pos = ix->cap == 0 ? 0 : nwrap_index_start(ix, hash);
	return nwrap_index_next(it);
}

/* FNV-1a, then a finalizer so the low bits (the slot) mix well. */
static uint32_t nwrap_mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t nwrap_hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0') {
		h = (h ^ (unsigned char)*s++) * 16777619u;
	}
	return nwrap_mix(h);
}

uint32_t nwrap_hash_strcase(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0') {
		unsigned char c = (unsigned char)*s++;

		/* ASCII folding, as strcasecmp in the C locale host names use
		 */
		c = c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
		h = (h ^ c) * 16777619u;
	}
	return nwrap_mix(h);
}

uint32_t nwrap_hash_u32(uint32_t v)
{
	return nwrap_mix(v ^ 0x9e3779b9u);
}

uint32_t nwrap_hash_addr(int family, const void *addr)
{
	const unsigned char *a = addr;
	size_t len = family == AF_INET6 ? 16 : 4;
	uint32_t h = 2166136261u ^ (uint32_t)family;

	for (size_t i = 0; i < len; i++) {
		h = (h ^ a[i]) * 16777619u;
	}
	return nwrap_mix(h);
}

/* ---- the gid list's set (struct nwrap_gids) ---- */

static uint32_t *nwrap_gids_slot(uint32_t *set, long cap, gid_t gid)
{
	size_t nslot = (size_t)cap * 2;
	size_t i = (size_t)(((uint64_t)nwrap_hash_u32(gid) * nslot) >> 32);

	while (set[i] != 0 && set[i] != (uint32_t)gid + 1) {
		i = i + 1 == nslot ? 0 : i + 1;
	}
	return &set[i];
}

int nwrap_gids_add(struct nwrap_gids *g, gid_t gid)
{
	uint32_t *slot;

	if (g->n == g->cap) {
		long cap = g->cap > 0 ? g->cap * 2 : 32;
		gid_t *v = realloc(g->v, (size_t)cap * sizeof(gid_t));
		uint32_t *set;

		if (v == NULL) {
			return ENOMEM;
		}
		g->v = v;
		set = calloc((size_t)cap * 2, sizeof(*set));
		if (set == NULL) {
			return ENOMEM;
		}
		for (long i = 0; i < g->n; i++) {
			*nwrap_gids_slot(set, cap, g->v[i]) =
			    (uint32_t)g->v[i] + 1;
		}
		free(g->set);
		g->set = set;
		g->cap = cap;
	}
	/* gid + 1 would be 0, "empty": look for that one in the list */
	if (gid == (gid_t)-1) {
		for (long i = 0; i < g->n; i++) {
			if (g->v[i] == gid) {
				return 0;
			}
		}
		g->v[g->n++] = gid;
		return 0;
	}
	slot = nwrap_gids_slot(g->set, g->cap, gid);
	if (*slot == 0) {
		*slot = (uint32_t)gid + 1;
		g->v[g->n++] = gid;
	}
	return 0;
}

void nwrap_gids_free(struct nwrap_gids *g)
{
	free(g->v);
	free(g->set);
	g->v = NULL;
	g->set = NULL;
	g->n = g->cap = 0;
}
