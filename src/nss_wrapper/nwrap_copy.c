/*
 * Copying records into caller buffers, as the *_r calls require: strings
 * and pointer arrays are laid out in `buf`; a buffer too small gives
 * ERANGE and leaves the destination untouched. Pure: no state, no locks.
 */
#include "nwrap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct nwrap_buf {
	char *p;
	size_t left;
};

static char *nwrap_put_str(struct nwrap_buf *b, const char *s)
{
	char *d = b->p;
	size_t n = strlen(s) + 1;

	memcpy(d, s, n);
	b->p += n;
	b->left -= n;
	return d;
}

/* Room for `n` pointers at pointer alignment; NULL when it does not fit. */
static char **nwrap_put_ptrs(struct nwrap_buf *b, size_t n)
{
	size_t pad = (sizeof(char *) - ((uintptr_t)b->p % sizeof(char *))) %
		     sizeof(char *);
	char **v;

	if (pad > b->left || (b->left - pad) / sizeof(char *) < n) {
		return NULL;
	}
	v = (char **)(void *)(b->p + pad);
	b->p += pad + n * sizeof(char *);
	b->left -= pad + n * sizeof(char *);
	return v;
}

int nwrap_copy_passwd(const struct passwd *src, struct passwd *dst, char *buf,
		      size_t len)
{
	struct nwrap_buf b = {buf, len};
	size_t need = strlen(src->pw_name) + strlen(src->pw_passwd) +
		      strlen(src->pw_gecos) + strlen(src->pw_dir) +
		      strlen(src->pw_shell) + 5;

	if (buf == NULL || need > len) {
		return ERANGE;
	}
	dst->pw_name = nwrap_put_str(&b, src->pw_name);
	dst->pw_passwd = nwrap_put_str(&b, src->pw_passwd);
	dst->pw_uid = src->pw_uid;
	dst->pw_gid = src->pw_gid;
	dst->pw_gecos = nwrap_put_str(&b, src->pw_gecos);
	dst->pw_dir = nwrap_put_str(&b, src->pw_dir);
	dst->pw_shell = nwrap_put_str(&b, src->pw_shell);
	return 0;
}

int nwrap_copy_group(const struct nwrap_grview *src, struct group *dst,
		     char *buf, size_t len)
{
	struct nwrap_buf b = {buf, len};
	size_t need = strlen(src->name) + strlen(src->passwd) + 2;
	const char *m = src->mem;
	char **mem;

	if (buf == NULL) {
		return ERANGE;
	}
	for (size_t i = 0; i < src->nmem; i++) {
		size_t l = strlen(m) + 1;

		need += l;
		m += l;
	}
	mem = nwrap_put_ptrs(&b, src->nmem + 1);
	if (mem == NULL || need > b.left) {
		return ERANGE;
	}
	m = src->mem;
	for (size_t i = 0; i < src->nmem; i++) {
		mem[i] = nwrap_put_str(&b, m);
		m = nwrap_str_next(m);
	}
	mem[src->nmem] = NULL;
	dst->gr_mem = mem;
	dst->gr_name = nwrap_put_str(&b, src->name);
	dst->gr_passwd = nwrap_put_str(&b, src->passwd);
	dst->gr_gid = src->gid;
	return 0;
}

int nwrap_copy_spwd(const struct spwd *src, struct spwd *dst, char *buf,
		    size_t len)
{
	struct nwrap_buf b = {buf, len};
	size_t need = strlen(src->sp_namp) + strlen(src->sp_pwdp) + 2;

	if (buf == NULL || need > len) {
		return ERANGE;
	}
	*dst = *src;
	dst->sp_namp = nwrap_put_str(&b, src->sp_namp);
	dst->sp_pwdp = nwrap_put_str(&b, src->sp_pwdp);
	return 0;
}

int nwrap_copy_hostent(const char *name, const char *const *aliases,
		       size_t naliases, int family, const unsigned char *addrs,
		       size_t naddrs, struct hostent *dst, char *buf,
		       size_t len)
{
	struct nwrap_buf b = {buf, len};
	size_t alen = family == AF_INET6 ? 16 : 4;
	size_t need = strlen(name) + 1 + naddrs * alen;
	char **al, **addr;

	if (buf == NULL) {
		return ERANGE;
	}
	for (size_t i = 0; i < naliases; i++) {
		need += strlen(aliases[i]) + 1;
	}
	al = nwrap_put_ptrs(&b, naliases + 1);
	addr = al == NULL ? NULL : nwrap_put_ptrs(&b, naddrs + 1);
	if (addr == NULL || need > b.left) {
		return ERANGE;
	}
	/* addresses first: they stay aligned after the pointer arrays */
	for (size_t i = 0; i < naddrs; i++) {
		addr[i] = b.p;
		memcpy(b.p, addrs + i * alen, alen);
		b.p += alen;
		b.left -= alen;
	}
	addr[naddrs] = NULL;
	for (size_t i = 0; i < naliases; i++) {
		al[i] = nwrap_put_str(&b, aliases[i]);
	}
	al[naliases] = NULL;
	dst->h_name = nwrap_put_str(&b, name);
	dst->h_aliases = al;
	dst->h_addrtype = family;
	dst->h_length = (int)alen;
	dst->h_addr_list = addr;
	return 0;
}

/* The non-reentrant calls never need more than a record: a line is at most
 * NWRAP_LINE_MAX bytes, plus the pointer arrays. */
#define NWRAP_STATIC_MAX (64u * 1024 * 1024)

int nwrap_static_run(struct nwrap_static *s,
		     int (*fill)(void *ctx, char *buf, size_t len), void *ctx)
{
	for (;;) {
		size_t len = s->len == 0 ? 1024 : s->len * 2;
		char *p;
		int rc;

		if (s->buf != NULL) {
			rc = fill(ctx, s->buf, s->len);
			if (rc != ERANGE || s->len >= NWRAP_STATIC_MAX) {
				return rc;
			}
		}
		p = realloc(s->buf, len);
		if (p == NULL) {
			return ENOMEM;
		}
		s->buf = p;
		s->len = len;
	}
}

void nwrap_static_lock(struct nwrap_static *s)
{
	nwrap_mutex_lock(&s->lock);
}

void nwrap_static_unlock(struct nwrap_static *s)
{
	nwrap_mutex_unlock(&s->lock);
}
