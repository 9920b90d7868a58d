/*
 * nss_wrapper internal API (hidden visibility), grouped by layer:
 *   config   the variables, read once (nwrap_config.c, pthread_once);
 *   parse    pure line parsers (nwrap_parse.c, no state);
 *   index    private hash indexes (nwrap_index.c, no global state);
 *   db       one parsed file: text, records, indexes (nwrap_db.c, immutable
 *            once built);
 *   cache    file -> db, reloaded when the file changes (nwrap_cache.c, one
 *            mutex per cache);
 *   copy     records into caller buffers with ERANGE (nwrap_copy.c, pure);
 *   backends files then module (nwrap_backend.h, nwrap_backend.c: the
 *            order, from the configuration);
 *   logic    nwrap_pwd.c, nwrap_grp.c, nwrap_shadow.c, nwrap_hosts.c,
 *            nwrap_addrinfo.c: libc's semantics, errno like libc.
 * The exported names live in nwrap_entry.c and nwrap_init.c.
 */
#ifndef NWRAP_H
#define NWRAP_H

#include <grp.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <shadow.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cwrap_compiler.h"
#include "cwrap_log.h"

/* ---- config ---------------------------------------------------------- */

struct nwrap_module;

/* The services file getaddrinfo and getnameinfo read themselves while
 * NSS_WRAPPER_HOSTS is set (glibc's would ask nscd first). */
#define NWRAP_SERVICES_FILE "/etc/services"
/* Linux's HOST_NAME_MAX: what uname()'s nodename holds without its NUL. */
#define NWRAP_HOST_NAME_MAX 64

/* One reading of the NSS_WRAPPER_* variables. Immutable once published and
 * never freed (a lookup in flight may still hold an older one); a reading
 * equal to an earlier one reuses it, so memory grows only with the number
 * of distinct configurations a process uses. */
struct nwrap_config {
	const char *passwd;   /* NSS_WRAPPER_PASSWD or NULL */
	const char *group;    /* NSS_WRAPPER_GROUP */
	const char *shadow;   /* NSS_WRAPPER_SHADOW */
	const char *hosts;    /* NSS_WRAPPER_HOSTS */
	const char *hostname; /* NSS_WRAPPER_HOSTNAME */
	const char *module_path;
	const char *module_prefix;
	size_t hostname_len;
	bool hosts_only;     /* NSS_WRAPPER_HOSTS_ONLY=1 */
	bool files_enabled;  /* passwd and group both set */
	bool module_enabled; /* module path and prefix both set, and loaded */
	bool pwgr_enabled;   /* files or module */
	bool shadow_enabled;
	bool hosts_enabled;
	bool hostname_enabled;
	/* the file each cache reads (NULL: none), by enum nwrap_kind */
	const char *file[5];
	const struct nwrap_module *module; /* loaded, or NULL */
	struct nwrap_config *next;	   /* every reading made, for reuse */
};

/* The configuration for the current environment: read again when
 * cwrap_env_gen() moved (one comparison otherwise). */
const struct nwrap_config *nwrap_config(void);
/* Fork: the configuration lock, taken first (before the caches' locks: a
 * module loaded while it is held may look users up). The library's
 * handlers (nwrap_init.c) call each layer's hooks, top-down for none of
 * them calls up. */
void nwrap_config_atfork_prepare(void);
void nwrap_config_atfork_parent(void);
void nwrap_config_atfork_child(void);

/* ---- parse ----------------------------------------------------------- */

/* A group or a hosts line as the parser leaves it in the text: members
 * (or names, the canonical name first) packed as `n` NUL-terminated
 * strings one after another. */
struct nwrap_grview {
	const char *name;
	const char *passwd;
	gid_t gid;
	const char *mem;
	size_t nmem;
};

struct nwrap_hview {
	int family; /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	const char *names;
	size_t nnames;
};

struct nwrap_svview {
	const char *names; /* the service name, then its aliases */
	size_t nnames;
	const char *proto;
	uint16_t port; /* host order */
};

/* Next string of a packed list. */
static inline const char *nwrap_str_next(const char *s)
{
	while (*s != '\0') {
		s++;
	}
	return s + 1;
}

/* Line parsers: `line` is NUL-terminated, without its newline, and is cut
 * in place (fields NUL-terminated where they are). They return 1 for a
 * record, 0 for a blank or comment line and -1 for a malformed line with
 * *why set to the reason. */
int nwrap_parse_passwd(char *line, struct passwd *pw, const char **why);
int nwrap_parse_group(char *line, struct nwrap_grview *gr, const char **why);
int nwrap_parse_shadow(char *line, struct spwd *sp, const char **why);
int nwrap_parse_hosts(char *line, struct nwrap_hview *h, const char **why);
int nwrap_parse_service(char *line, struct nwrap_svview *sv, const char **why);
/* Views of a line already cut by its parser. */
void nwrap_view_passwd(const char *line, struct passwd *pw);
void nwrap_view_shadow(const char *line, struct spwd *sp);

/* Longest line accepted; longer lines are reported and skipped. */
#define NWRAP_LINE_MAX (1024 * 1024)

/* ---- index ----------------------------------------------------------- */

/* Open addressing, linear probing over exactly n * 4/3 slots (the hash
 * picks the start slot by multiply-shift, no power-of-two rounding). A slot
 * is 32 bits: a 6-bit tag from the hash and the item number + 1, so most
 * probes that miss never touch the records. Items with equal keys come
 * back in insertion order, so the first line of a file wins and multimaps
 * keep file order. */
struct nwrap_index {
	uint32_t *slot;
	uint32_t cap;
};

struct nwrap_index_it {
	const struct nwrap_index *ix;
	uint32_t pos;
	uint32_t tag;
	uint32_t rec; /* for the db's iterators: the current ref */
};

/* Items per index: below 2^26 (files of 64 million lines). */
#define NWRAP_INDEX_MAX ((1u << 26) - 2)

#define NWRAP_NONE UINT32_MAX

int nwrap_index_init(struct nwrap_index *ix, size_t nitems);
void nwrap_index_free(struct nwrap_index *ix);
void nwrap_index_add(struct nwrap_index *ix, uint32_t hash, uint32_t item);
/* Items whose hash equals `hash`, in insertion order; NWRAP_NONE at the
 * end. The caller compares the keys. */
uint32_t nwrap_index_find(const struct nwrap_index *ix, uint32_t hash,
			  struct nwrap_index_it *it);
uint32_t nwrap_index_next(struct nwrap_index_it *it);
size_t nwrap_index_bytes(const struct nwrap_index *ix);

uint32_t nwrap_hash_str(const char *s);
uint32_t nwrap_hash_strcase(const char *s);
uint32_t nwrap_hash_u32(uint32_t v);
uint32_t nwrap_hash_addr(int family, const void *addr);

/* ---- db -------------------------------------------------------------- */

enum nwrap_kind {
	NWRAP_PASSWD,
	NWRAP_GROUP,
	NWRAP_SHADOW,
	NWRAP_HOSTS,
	NWRAP_SERVICES,
};

/* Compact records: offsets into the db's text, where the parser left
 * the fields, and the keys the indexes compare. */
struct nwrap_pwrec {
	uint32_t off;
	uint32_t uid;
	uint32_t gid;
};

struct nwrap_grrec {
	uint32_t off;
	uint32_t gid;
	uint32_t mem;
	uint32_t nmem;
};

struct nwrap_sprec {
	uint32_t off;
};

struct nwrap_hrec {
	int32_t family;
	unsigned char addr[16];
	uint32_t names;
	uint32_t nnames;
};

struct nwrap_svrec {
	uint32_t names;
	uint32_t nnames;
	uint32_t proto;
	uint32_t port;
};

/* One name of a record's list (a group member, a host or service name).
 * The by_ptr index holds the first reference to each distinct name, so a
 * match costs one comparison; the others follow it in file order through
 * db->next (a user in 1,000 groups is one index entry and a chain of
 * 1,000, not a probe run that every insertion would walk). A name listed
 * twice in one record has one reference. */
struct nwrap_ref {
	uint32_t rec;
	uint32_t off;
};

/* The indexes a passwd, group or shadow db builds when first needed. */
#define NWRAP_IX_NAME 1u   /* by_name */
#define NWRAP_IX_ID 2u	   /* by_id */
#define NWRAP_IX_MEMBER 4u /* by_ptr with ref and next, for groups */

struct nwrap_db {
	enum nwrap_kind kind;
	const char *path; /* for messages; outlives the db */
	char *text;	  /* the file, cut in place */
	size_t n;	  /* records */
	union {
		void *any;
		struct nwrap_pwrec *pw;
		struct nwrap_grrec *gr;
		struct nwrap_sprec *sp;
		struct nwrap_hrec *h;
		struct nwrap_svrec *sv;
	} rec;
	struct nwrap_ref *ref; /* group, hosts, services */
	uint32_t *next;	       /* ref -> next ref to its name, NWRAP_NONE */
	size_t nref;
	size_t nkeys;		    /* names in the records' lists */
	size_t ndup;		    /* names listed twice in one record */
	unsigned scanned;	    /* NWRAP_IX_* answered once by a scan */
	unsigned built;		    /* NWRAP_IX_* built */
	struct nwrap_index by_name; /* passwd, group, shadow: name */
	struct nwrap_index by_id;   /* uid, gid; hosts: address; port */
	struct nwrap_index by_ptr;  /* member / host / service name -> ref */
	size_t bytes;		    /* memory held, for the memory budget */
};

/* Parse `text` (malloc'd, `len` bytes, owned by the db afterwards) read
 * from `path`; malformed lines are reported at warning level. NULL and
 * errno = ENOMEM when out of memory (text is freed).
 * Hosts and services are indexed here. A passwd, group or shadow db is
 * not: its first lookup by name, by id or by member scans the records (a
 * process that looks up once, as id or getent do, never pays for an
 * index), the second builds that index (or scans again if memory is
 * short). The lookups may thus change the db: callers hold the owning
 * cache's lock, as they do to read it. */
struct nwrap_db *nwrap_db_build(enum nwrap_kind kind, const char *path,
				char *text, size_t len);
void nwrap_db_free(struct nwrap_db *db);

/* Record i as the structures the copy layer takes (pointing into text). */
void nwrap_db_pw(const struct nwrap_db *db, uint32_t i, struct passwd *pw);
void nwrap_db_gr(const struct nwrap_db *db, uint32_t i,
		 struct nwrap_grview *gr);
void nwrap_db_sp(const struct nwrap_db *db, uint32_t i, struct spwd *sp);
void nwrap_db_h(const struct nwrap_db *db, uint32_t i, struct nwrap_hview *h);

/* Lookups: record number or NWRAP_NONE. */
uint32_t nwrap_db_by_name(const struct nwrap_db *db, const char *name);
uint32_t nwrap_db_by_id(const struct nwrap_db *db, uint32_t id);
uint32_t nwrap_db_host_by_addr(const struct nwrap_db *db, int family,
			       const void *addr);
/* Host records carrying `name` (case-insensitive) and group records listing
 * member `name`: iterate with the returned iterator, record numbers in file
 * order, NWRAP_NONE at the end. */
uint32_t nwrap_db_host_first(const struct nwrap_db *db, const char *name,
			     struct nwrap_index_it *it);
uint32_t nwrap_db_host_next(const struct nwrap_db *db, const char *name,
			    struct nwrap_index_it *it);
uint32_t nwrap_db_member_first(const struct nwrap_db *db, const char *name,
			       struct nwrap_index_it *it);
uint32_t nwrap_db_member_next(const struct nwrap_db *db, const char *name,
			      struct nwrap_index_it *it);
/* The service `name` (or an alias) for `proto`, or port `port` (host
 * order) for `proto`: a record number or NWRAP_NONE. */
uint32_t nwrap_db_service(const struct nwrap_db *db, const char *name,
			  const char *proto);
uint32_t nwrap_db_service_by_port(const struct nwrap_db *db, uint32_t port,
				  const char *proto);

/* ---- cache ----------------------------------------------------------- */

struct nwrap_stamp {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	off_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
};

struct nwrap_cache {
	pthread_mutex_t lock;
	enum nwrap_kind kind;
	const char *var;  /* the variable that names the file, for messages */
	bool follow;	  /* path follows nwrap_config()->file[kind] */
	const char *path; /* NULL: no file */
	int fd;		  /* the file loaded, kept open for fstat; -1 */
	struct nwrap_db *db;
	struct nwrap_stamp stamp;
	uint64_t digest; /* of the bytes loaded */
	int64_t read_ns; /* realtime of the last read */
	bool reported;	 /* missing/unreadable file reported */
	size_t enum_pos; /* set*ent/get*ent position */
	unsigned loads;	 /* number of parses, for tests */
};

#define NWRAP_CACHE_INIT(k, v)                                                 \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER, .kind = (k), .var = (v),    \
		.fd = -1,                                                      \
	}
#define NWRAP_CACHE_CONFIG(k, v)                                               \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER, .kind = (k), .var = (v),    \
		.fd = -1, .follow = true,                                      \
	}

/* Files larger than this are refused (reported, read as empty). */
#define NWRAP_FILE_MAX (256u * 1024 * 1024)

extern struct nwrap_cache nwrap_cache_passwd;
extern struct nwrap_cache nwrap_cache_group;
extern struct nwrap_cache nwrap_cache_shadow;
extern struct nwrap_cache nwrap_cache_hosts;
extern struct nwrap_cache nwrap_cache_services;

/* Lock the cache and bring it up to date with the file (for the global
 * caches: the file the current configuration names); returns the db (NULL
 * when there is no file, or it is missing, unreadable, not a regular file
 * or too large). Always pair with nwrap_cache_release(). */
const struct nwrap_db *nwrap_cache_acquire(struct nwrap_cache *c);
/* The same with the configuration the caller already read (a lookup reads
 * it once, at its entry). */
const struct nwrap_db *nwrap_cache_acquire_in(struct nwrap_cache *c,
					      const struct nwrap_config *cfg);
/* For get*ent: the same, but once the enumeration has started (enum_pos
 * past 0, records loaded) the file is not checked again until set*ent or
 * end*ent rewinds it: an enumeration goes on over the records of its
 * first entry, without a system call per entry. */
const struct nwrap_db *nwrap_cache_acquire_next(struct nwrap_cache *c);
void nwrap_cache_release(struct nwrap_cache *c);
/* Drop what is loaded (tests, and the unit test of the cache). */
void nwrap_cache_reset(struct nwrap_cache *c);
void nwrap_cache_atfork_prepare(void);
void nwrap_cache_atfork_parent(void);
void nwrap_cache_atfork_child(void);

/* ---- copy ------------------------------------------------------------ */

int nwrap_copy_passwd(const struct passwd *src, struct passwd *dst, char *buf,
		      size_t len);
int nwrap_copy_group(const struct nwrap_grview *src, struct group *dst,
		     char *buf, size_t len);
int nwrap_copy_spwd(const struct spwd *src, struct spwd *dst, char *buf,
		    size_t len);
/* A hostent from a name, aliases and addresses (each `addrlen` bytes). */
int nwrap_copy_hostent(const char *name, const char *const *aliases,
		       size_t naliases, int family, const unsigned char *addrs,
		       size_t naddrs, struct hostent *dst, char *buf,
		       size_t len);

/* Growable buffer for the non-reentrant calls: retry `fill` with a doubled
 * buffer while it returns ERANGE. Returns fill's last result. */
struct nwrap_static {
	pthread_mutex_t lock;
	char *buf;
	size_t len;
};
#define NWRAP_STATIC_INIT                                                      \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER                              \
	}

/* With s->lock held: call fill(ctx, buf, len) on the static buffer, which
 * grows while fill returns ERANGE. Returns fill's last result. */
int nwrap_static_run(struct nwrap_static *s,
		     int (*fill)(void *ctx, char *buf, size_t len), void *ctx);
/* A lock held before any cache lock. */
void nwrap_static_lock(struct nwrap_static *s);
void nwrap_static_unlock(struct nwrap_static *s);
/* Mutexes that abort on failure (a broken invariant). */
static inline void nwrap_mutex_lock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_lock(m);

	if (rc != 0) {
		CWRAP_FATAL("pthread_mutex_lock: %s", strerror(rc));
	}
}

static inline void nwrap_mutex_unlock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_unlock(m);

	if (rc != 0) {
		CWRAP_FATAL("pthread_mutex_unlock: %s", strerror(rc));
	}
}

/* ---- groups list ----------------------------------------------------- */

/* A list of gids in the order added, each once: a hash set beside the
 * list makes adding one O(1). */
struct nwrap_gids {
	gid_t *v;
	long n;
	long cap;
	uint32_t *set; /* gid + 1 per slot, 0 empty; 2 * cap slots */
};

int nwrap_gids_add(struct nwrap_gids *g, gid_t gid); /* 0 or ENOMEM */
void nwrap_gids_free(struct nwrap_gids *g);

/* ---- logic ----------------------------------------------------------- */

/* Fork: re-initialize each file's own locks in the child. */
void nwrap_pwd_atfork_child(void);
void nwrap_grp_atfork_child(void);
void nwrap_shadow_atfork_child(void);
void nwrap_hosts_atfork_child(void);

int nwrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
		     struct passwd **res);
int nwrap_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
		     struct passwd **res);
struct passwd *nwrap_getpwnam(const char *name);
struct passwd *nwrap_getpwuid(uid_t uid);
void nwrap_setpwent(void);
int nwrap_getpwent_r(struct passwd *pw, char *buf, size_t len,
		     struct passwd **res);
struct passwd *nwrap_getpwent(void);
void nwrap_endpwent(void);

int nwrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t len,
		     struct group **res);
int nwrap_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
		     struct group **res);
struct group *nwrap_getgrnam(const char *name);
struct group *nwrap_getgrgid(gid_t gid);
void nwrap_setgrent(void);
int nwrap_getgrent_r(struct group *gr, char *buf, size_t len,
		     struct group **res);
struct group *nwrap_getgrent(void);
void nwrap_endgrent(void);
int nwrap_getgrouplist(const char *user, gid_t group, gid_t *groups,
		       int *ngroups);
int nwrap_initgroups(const char *user, gid_t group);

struct spwd *nwrap_getspnam(const char *name);
void nwrap_setspent(void);
struct spwd *nwrap_getspent(void);
void nwrap_endspent(void);

/* The by-name lookups take the configuration their entry point read. */
int nwrap_gethostbyname2_r(const struct nwrap_config *cfg, const char *name,
			   int af, struct hostent *ret, char *buf, size_t len,
			   struct hostent **res, int *h_errnop);
int nwrap_gethostbyaddr_r(const void *addr, socklen_t alen, int type,
			  struct hostent *ret, char *buf, size_t len,
			  struct hostent **res, int *h_errnop);
struct hostent *nwrap_gethostbyname2(const struct nwrap_config *cfg,
				     const char *name, int af);
struct hostent *nwrap_gethostbyaddr(const void *addr, socklen_t alen, int type);
void nwrap_sethostent(int stayopen);
struct hostent *nwrap_gethostent(void);
void nwrap_endhostent(void);
int nwrap_gethostname(char *name, size_t len);
struct utsname;
int nwrap_uname(struct utsname *u);

/* Line `h` as glibc's files module reads it for family `af`: for AF_INET
 * an IPv4 line or an IPv4-mapped IPv6 one (its IPv4 address), for AF_INET6
 * an IPv6 line. True with the address in `addr`, false for other lines. */
bool nwrap_host_as(const struct nwrap_hrec *h, int af, unsigned char *addr);
/* The line gethostbyaddr answers for `addr` of family `af` (the first that
 * nwrap_host_as() reads as it), or NWRAP_NONE. */
uint32_t nwrap_host_by_addr(const struct nwrap_db *db, int af,
			    const void *addr);

/* h_name of what gethostbyname2(name, af) answers, or with `name` NULL of
 * gethostbyaddr(addr, af) (file, then module; never the C library),
 * malloc'd; NULL when there is none (or no memory). */
char *nwrap_host_canon(const struct nwrap_config *cfg, const char *name,
		       const void *addr, int af);

/* `name` without one trailing dot ("host.example." is "host.example"),
 * copied into `key` when it has one; `name` itself otherwise. */
#define NWRAP_NAME_KEY 1025
const char *nwrap_name_key(const char *name, char *key);

int nwrap_getaddrinfo(const char *node, const char *service,
		      const struct addrinfo *hints, struct addrinfo **res);
void nwrap_freeaddrinfo(struct addrinfo *ai);
/* nwrap_nameinfo.c */
int nwrap_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
		      socklen_t hostlen, char *serv, socklen_t servlen,
		      int flags);

#endif
