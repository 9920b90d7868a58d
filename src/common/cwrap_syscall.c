/*
 * The next syscall() in the chain and the cross-library protocol (see
 * cwrap_syscall.h). The next syscall() is another wrapper's
 * (uid_wrapper's when socket_wrapper is first, ...) or libc's, found with
 * a plain dlsym(RTLD_NEXT), which cannot return the caller's own.
 *
 * The peer's pair is looked up when first needed, by the first syscall()
 * given a number this library does not answer, not at load: a lookup in
 * the constructor cost every program start about 9,500 instructions
 * (two snprintf() and two dlsym(), which fail where the peer is not
 * loaded). That first syscall() may come from a malloc's own setup, so
 * the lookup must not allocate, which a dlsym() that fails does
 * (dlerror()'s message), nor take the dynamic loader's lock that dlopen()
 * holds while it allocates. It reads the symbol tables of the loaded
 * objects instead (dl_iterate_phdr(), their GNU or SysV hash table), in
 * load order, as dlsym(RTLD_DEFAULT) searches the preloaded libraries:
 * no allocation, no dlerror(), no state but the result.
 *
 * State: the next syscall(), the peer's pair and two flags, atomics.
 * The pair is published once, by the thread that claims it (a
 * compare-and-swap); a thread, or a signal handler, that finds the
 * lookup claimed but not yet published makes its own lookup and uses it
 * unpublished, so no caller waits for another: a signal handler that
 * interrupted a lookup, or a child forked in the middle of a publication
 * (which then looks up on each call, and finds the same), goes on. The
 * only lock is dl_iterate_phdr()'s own (recursive in glibc, taken for
 * reading in musl). All of it uninstrumented: the sanitizer runtimes
 * call syscall() on i386 before they are set up.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "cwrap_compiler.h"
#include "cwrap_syscall.h"

typedef long (*cwrap_next_syscall_fn)(long, ...);
typedef bool (*cwrap_valid_fn)(long);
typedef long (*cwrap_va_fn)(long, va_list);

/* The peer's pair as looked up; both NULL when it is not loaded. */
struct cwrap_peer {
	cwrap_valid_fn valid;
	cwrap_va_fn va;
};

enum { PEER_UNKNOWN, PEER_CLAIMED, PEER_PUBLISHED };

static cwrap_next_syscall_fn cwrap_next_syscall;
static const char *cwrap_peer_valid_name;
static const char *cwrap_peer_va_name;
static bool cwrap_started;
static int cwrap_peer_state;
static cwrap_valid_fn cwrap_peer_valid;
static cwrap_va_fn cwrap_peer_va;

CWRAP_NO_SANITIZE long cwrap_syscall_next(long nr, const long a[6])
{
	cwrap_next_syscall_fn next;

	next = __atomic_load_n(&cwrap_next_syscall, __ATOMIC_ACQUIRE);
	if (cwrap_unlikely(next == NULL)) {
		next = (cwrap_next_syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (next == NULL) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&cwrap_next_syscall, next, __ATOMIC_RELEASE);
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

CWRAP_NO_SANITIZE void cwrap_syscall_start(const char *peer_valid,
					   const char *peer_va)
{
	__atomic_store_n(&cwrap_peer_valid_name, peer_valid, __ATOMIC_RELAXED);
	__atomic_store_n(&cwrap_peer_va_name, peer_va, __ATOMIC_RELAXED);
	__atomic_store_n(&cwrap_started, true, __ATOMIC_RELEASE);
}

CWRAP_NO_SANITIZE bool cwrap_syscall_ready(void)
{
	return __atomic_load_n(&cwrap_started, __ATOMIC_ACQUIRE);
}

/* ---- the lookup: one loaded object's dynamic symbol table ---- */

/* What the lookup reads of one object. */
struct cwrap_elf {
	ElfW(Addr) base;
	const ElfW(Sym) * symtab;
	const char *strtab;
	const ElfW(Half) * versym;
	const uint32_t *gnu_hash;
	const ElfW(Word) * sysv_hash;
};

CWRAP_NO_SANITIZE static bool cwrap_streq(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* A defined function of that name, of a version a lookup without version
 * may bind to (not hidden). (st_info: the binding in the high four bits,
 * the type in the low four, in either class.) */
CWRAP_NO_SANITIZE static bool cwrap_elf_match(const struct cwrap_elf *e,
					      uint32_t i, const char *name)
{
	const ElfW(Sym) *s = &e->symtab[i];
	unsigned bind = s->st_info >> 4, type = s->st_info & 0xf;

	return s->st_shndx != SHN_UNDEF && s->st_shndx != SHN_ABS &&
	       s->st_value != 0 && type == STT_FUNC &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       (e->versym == NULL || (e->versym[i] & 0x8000) == 0) &&
	       cwrap_streq(e->strtab + s->st_name, name);
}

CWRAP_NO_SANITIZE static const ElfW(Sym) *
    cwrap_elf_gnu(const struct cwrap_elf *e, const char *name)
{
	const uint32_t *h = e->gnu_hash;
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
	uint32_t shift = h[3], hash = 5381, i, chain;
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(const void *)&h[4];
	const uint32_t *buckets, *chains;
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	ElfW(Addr) word, mask;
	const unsigned char *c;

	if (nbuckets == 0 || bloom_size == 0) {
		return NULL;
	}
	for (c = (const unsigned char *)name; *c != '\0'; c++) {
		hash = hash * 33 + *c;
	}
	word = bloom[(hash / bits) % bloom_size];
	mask = ((ElfW(Addr))1 << (hash % bits)) |
	       ((ElfW(Addr))1 << ((hash >> shift) % bits));
	if ((word & mask) != mask) {
		return NULL;
	}
	buckets = (const uint32_t *)(const void *)&bloom[bloom_size];
	chains = &buckets[nbuckets];
	i = buckets[hash % nbuckets];
	if (i < symoffset) {
		return NULL;
	}
	do {
		chain = chains[i - symoffset];
		if ((chain | 1) == (hash | 1) && cwrap_elf_match(e, i, name)) {
			return &e->symtab[i];
		}
		i++;
	} while ((chain & 1) == 0);
	return NULL;
}

CWRAP_NO_SANITIZE static const ElfW(Sym) *
    cwrap_elf_sysv(const struct cwrap_elf *e, const char *name)
{
	const ElfW(Word) *h = e->sysv_hash;
	ElfW(Word) nbuckets = h[0], nchains = h[1], hash = 0, g, i;
	const ElfW(Word) *buckets = &h[2], *chains = &h[2 + nbuckets];
	const unsigned char *c;

	if (nbuckets == 0) {
		return NULL;
	}
	for (c = (const unsigned char *)name; *c != '\0'; c++) {
		hash = (hash << 4) + *c;
		g = hash & 0xf0000000;
		if (g != 0) {
			hash ^= g >> 24;
		}
		hash &= ~g;
	}
	for (i = buckets[hash % nbuckets]; i != STN_UNDEF && i < nchains;
	     i = chains[i]) {
		if (cwrap_elf_match(e, i, name)) {
			return &e->symtab[i];
		}
	}
	return NULL;
}

CWRAP_NO_SANITIZE static void *cwrap_elf_find(const struct cwrap_elf *e,
					      const char *name)
{
	const ElfW(Sym) *s = e->gnu_hash != NULL    ? cwrap_elf_gnu(e, name)
			     : e->sysv_hash != NULL ? cwrap_elf_sysv(e, name)
						    : NULL;

	return s != NULL ? (void *)(e->base + s->st_value) : NULL;
}

/* What the walk over the loaded objects looks for, and finds. */
struct cwrap_peer_search {
	const char *valid_name, *va_name;
	struct cwrap_peer found;
};

/* dl_iterate_phdr()'s callback: nonzero (stop) at the first object that
 * defines both functions. glibc relocates most objects' dynamic entries
 * in place, musl and the vDSO's not: an address below the object's base
 * is an offset from it. */
CWRAP_NO_SANITIZE static int cwrap_peer_in(struct dl_phdr_info *info,
					   size_t size, void *data)
{
	struct cwrap_peer_search *search = data;
	struct cwrap_elf e = {.base = info->dlpi_addr};
	const ElfW(Dyn) *d = NULL;
	void *valid, *va;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
			d = (const ElfW(Dyn) *)(info->dlpi_addr +
						info->dlpi_phdr[i].p_vaddr);
			break;
		}
	}
	for (; d != NULL && d->d_tag != DT_NULL; d++) {
		ElfW(Addr) p = d->d_un.d_ptr;

		if (p < e.base) {
			p += e.base;
		}
		switch (d->d_tag) {
		case DT_SYMTAB:
			e.symtab = (const ElfW(Sym) *)p;
			break;
		case DT_STRTAB:
			e.strtab = (const char *)p;
			break;
		case DT_VERSYM:
			e.versym = (const ElfW(Half) *)p;
			break;
		case DT_GNU_HASH:
			e.gnu_hash = (const uint32_t *)p;
			break;
		case DT_HASH:
			e.sysv_hash = (const ElfW(Word) *)p;
			break;
		default:
			break;
		}
	}
	if (e.symtab == NULL || e.strtab == NULL) {
		return 0;
	}
	valid = cwrap_elf_find(&e, search->valid_name);
	va = valid != NULL ? cwrap_elf_find(&e, search->va_name) : NULL;
	if (va == NULL) {
		return 0;
	}
	search->found.valid = (cwrap_valid_fn)valid;
	search->found.va = (cwrap_va_fn)va;
	return 1;
}

/* The peer's pair: published, or looked up now (and published, unless
 * another thread or an interrupted call of this one is publishing). */
CWRAP_NO_SANITIZE static struct cwrap_peer cwrap_peer_get(void)
{
	struct cwrap_peer_search search = {0};
	int expected = PEER_UNKNOWN;

	if (__atomic_load_n(&cwrap_peer_state, __ATOMIC_ACQUIRE) ==
	    PEER_PUBLISHED) {
		search.found.valid =
		    __atomic_load_n(&cwrap_peer_valid, __ATOMIC_RELAXED);
		search.found.va =
		    __atomic_load_n(&cwrap_peer_va, __ATOMIC_RELAXED);
		return search.found;
	}
	search.valid_name =
	    __atomic_load_n(&cwrap_peer_valid_name, __ATOMIC_RELAXED);
	search.va_name = __atomic_load_n(&cwrap_peer_va_name, __ATOMIC_RELAXED);
	if (search.valid_name == NULL || search.va_name == NULL) {
		return search.found;
	}
	(void)dl_iterate_phdr(cwrap_peer_in, &search);
	if (__atomic_compare_exchange_n(&cwrap_peer_state, &expected,
					PEER_CLAIMED, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		__atomic_store_n(&cwrap_peer_valid, search.found.valid,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&cwrap_peer_va, search.found.va,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&cwrap_peer_state, PEER_PUBLISHED,
				 __ATOMIC_RELEASE);
	}
	return search.found;
}

CWRAP_NO_SANITIZE static long cwrap_call_va(cwrap_va_fn va, long nr, ...)
{
	va_list ap;
	long rc;

	va_start(ap, nr);
	rc = va(nr, ap);
	va_end(ap);
	return rc;
}

CWRAP_NO_SANITIZE bool cwrap_syscall_peer(long nr, const long a[6], long *rc)
{
	struct cwrap_peer peer = cwrap_peer_get();

	if (peer.valid == NULL || !peer.valid(nr)) {
		return false;
	}
	*rc = cwrap_call_va(peer.va, nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	return true;
}
