/*
 * SO_REUSEPORT groups: several emulated sockets (TCP listeners, or UDP
 * sockets) on one address, in one process or several.
 *
 * The first socket that binds an address with SO_REUSEPORT takes the plain
 * name "$DIR/T0A1F90", which every client, upstream's too, can reach, and
 * marks its file setgid (a TCP one gets no hidden marker, so that our
 * clients take the group path). Each further member (SO_REUSEPORT set, the
 * holder's file of the same user) binds the lowest free file
 * "$DIR/.T0A1F90.k", k >= 1, setgid too. A member's files are removed
 * after a close() once its socket is gone from every process (a probe
 * tells); the plain name then goes to a live member, by a second name
 * (the closing thread's own) renamed onto it, so that clients that know
 * nothing of groups keep reaching the group. Files of members that died
 * without closing are taken over by the next member to bind (dead, by
 * the same probe). The group file "$DIR/.T0A1F90.g" is k + 1 bytes long
 * for the highest k that joined (written at offset k, so it never
 * shrinks): how far senders look.
 *
 * TCP clients take the members in turn from a rotating start, past dead
 * ones; a UDP flow (the sender's address) goes to one member, the next
 * live one when that one is gone, also for a socket connected in the
 * kernel (swrap_sock_dgram_connect). A UDP member that connect()s to a
 * peer gets that peer's datagrams, as on Linux: while connected, it has a
 * second name (a hard link) "$DIR/.U0A0035=U0A2710" (group, then peer),
 * which the peer's sends try first; its connection in the kernel (made
 * when the peer is bound) refuses everyone else's datagrams (EPERM), so
 * that their flows go to the next member.
 * The name goes at a disconnect or a connect elsewhere, and, once the
 * socket is gone, at the next close() or bind() of a member of the
 * group, which removes every dead one. Datagram senders learn that a
 * directory has groups at all from a counter in the shared file
 * "$DIR/.reuseport", mapped once per process and directory: one load per
 * datagram while no datagram group was made there.
 *
 * No lock: the maps are published with atomics and never freed; the
 * rotation counter is atomic.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cwrap_log.h"
#include "swrap.h"
#include "swrap_libc.h"

/* Member k has joined: the group file is at least k + 1 bytes long. */
static void group_note(const struct swrap_conf *c, const struct sockaddr_un *un,
		       unsigned k)
{
	struct sockaddr_un g;
	int fd;

	if (swrap_addr_unix_member(c, un, 0, &g) == 0) {
		return;
	}
	fd = open(g.sun_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || pwrite(fd, "g", 1, (off_t)k) != 1) {
		CWRAP_DEBUG("group file %s: %s", g.sun_path, strerror(errno));
	}
	if (fd >= 0) {
		libc_close(fd);
	}
}

/* How many member names to look at for the group of `un`; 0 when it
 * has no group file. */
static unsigned group_size(const struct swrap_conf *c,
			   const struct sockaddr_un *un)
{
	struct sockaddr_un g;
	struct stat st;

	if (swrap_addr_unix_member(c, un, 0, &g) == 0 ||
	    stat(g.sun_path, &st) != 0) {
		return 0;
	}
	if (st.st_size < 1) {
		return 1;
	}
	return st.st_size < SWRAP_GROUP_MAX ? (unsigned)st.st_size
					    : SWRAP_GROUP_MAX;
}

/* No socket behind `un` any more. Asked with a datagram socket: a live
 * stream socket answers EPROTOTYPE without a connection being made (a
 * stream probe would queue one on a live listener), a live datagram one
 * accepts (or EPERM, connected elsewhere). */
/* ---- who has groups: the shared counter --------------------------------- */

struct group_map {
	const struct swrap_conf *conf; /* NULL until published */
	unsigned *count;
	bool writable;
};
#define GROUP_MAPS 8
static struct group_map group_maps[GROUP_MAPS];
static unsigned group_nmaps;	   /* atomic */
static unsigned group_unknown = 1; /* no map: always look */

static struct group_map *group_map_of(const struct swrap_conf *c)
{
	unsigned n = __atomic_load_n(&group_nmaps, __ATOMIC_ACQUIRE);
	char path[sizeof(c->dir) + 16];
	struct group_map *m;
	bool wr = true;
	void *p;
	int fd;

	for (unsigned i = 0; i < n && i < GROUP_MAPS; i++) {
		if (__atomic_load_n(&group_maps[i].conf, __ATOMIC_ACQUIRE) ==
		    c) {
			return &group_maps[i];
		}
	}
	for (unsigned i = 0; i < n && i < GROUP_MAPS; i++) {
		/* Another configuration (the MTU changed...), same place. */
		const struct swrap_conf *o =
		    __atomic_load_n(&group_maps[i].conf, __ATOMIC_ACQUIRE);

		if (o != NULL && strcmp(o->dir, c->dir) == 0) {
			return &group_maps[i];
		}
	}
	n = __atomic_fetch_add(&group_nmaps, 1, __ATOMIC_ACQ_REL);
	if (n >= GROUP_MAPS) {
		return NULL; /* many directories: look every time */
	}
	m = &group_maps[n];
	snprintf(path, sizeof(path), "%s/.reuseport", c->dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		wr = false;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		p = MAP_FAILED;
	} else {
		struct stat st;

		/* Never shrink it: another process may have counted. */
		if (wr && (fstat(fd, &st) != 0 ||
			   (st.st_size < (off_t)sizeof(unsigned) &&
			    ftruncate(fd, sizeof(unsigned)) != 0))) {
			wr = false;
		}
		p = mmap(NULL, sizeof(unsigned),
			 wr ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
			 fd, 0);
		libc_close(fd);
	}
	m->count = p != MAP_FAILED ? p : &group_unknown;
	m->writable = p != MAP_FAILED && wr;
	__atomic_store_n(&m->conf, c, __ATOMIC_RELEASE);
	return m;
}

/* ---- members connected to a peer ---------------------------------------
 */

/* "$DIR/.U0A0035=U0A2710" for the group on the plain name `plain` and the
 * peer `peer`: the second name (a hard link) of the member connected to
 * that peer. 0 if it does not fit in sun_path. */
static socklen_t peer_link(const struct swrap_conf *c,
			   const struct sockaddr_un *plain,
			   const struct swrap_ep *peer, struct sockaddr_un *ln)
{
	struct swrap_ep e = *peer;
	struct sockaddr_un p;
	size_t n;

	if (e.iface < 1 || e.iface > SWRAP_IFACE_MAX ||
	    swrap_addr_unix_marker(c, plain, ln) == 0) {
		return 0;
	}
	n = strlen(ln->sun_path);
	if (n + 9 > sizeof(ln->sun_path)) {
		return 0; /* "=U0A2710" and the NUL */
	}
	e.type = SOCK_DGRAM;
	swrap_addr_unix(c, &e, &p);
	ln->sun_path[n] = '=';
	memcpy(ln->sun_path + n + 1, p.sun_path + c->dir_len + 1, 8);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 9);
}

/* The plain name of the group that the member bound to `path` is in. */
static bool member_plain(const struct swrap_conf *c,
			 const struct sockaddr_un *path,
			 struct sockaddr_un *plain)
{
	struct swrap_ep ep;

	if (!swrap_addr_from_unix(c, path, swrap_addr_path_len(path), &ep)) {
		return false;
	}
	swrap_addr_unix(c, &ep, plain);
	return true;
}

/* Remove the second names of the members of the group on `plain` whose
 * socket is gone (closed, or its process died). Read with getdents64 on a
 * stack buffer: this runs in close(), which a forked child may call. */
static void links_sweep(const struct swrap_conf *c,
			const struct sockaddr_un *plain)
{
	union {
		struct dirent64 align;
		char b[2048];
	} buf;
	struct sockaddr_un ln;
	const size_t base = c->dir_len + 1; /* "$DIR/" */
	size_t plen;
	ssize_t got;
	int d;

	if (swrap_addr_unix_marker(c, plain, &ln) == 0) {
		return;
	}
	plen = strlen(ln.sun_path + base); /* ".U0A0035" */
	d = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0) {
		return;
	}
	while ((got = getdents64(d, (void *)buf.b, sizeof(buf.b))) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *e = (struct dirent64 *)(buf.b + off);
			size_t n = strlen(e->d_name);

			off += e->d_reclen;
			if (n <= plen || e->d_name[plen] != '=' ||
			    memcmp(e->d_name, ln.sun_path + base, plen) != 0 ||
			    base + n >= sizeof(ln.sun_path)) {
				continue;
			}
			memcpy(ln.sun_path + base, e->d_name, n + 1);
			if (swrap_unix_name_dead(&ln,
						 swrap_addr_path_len(&ln))) {
				CWRAP_DEBUG("removing stale %s", ln.sun_path);
				unlink(ln.sun_path);
			}
		}
	}
	libc_close(d);
}

void swrap_group_peer(const struct swrap_sock *s, const struct swrap_ep *peer)
{
	const struct swrap_conf *c = s->conf;
	int saved = errno;
	struct sockaddr_un plain, ln;
	struct stat a, b;

	if (s->type != SOCK_DGRAM || !(s->flags & SWRAP_SOCK_GROUP) ||
	    !member_plain(c, &s->path, &plain)) {
		return;
	}
	if (s->flags & SWRAP_SOCK_CONNECTED) {
		struct swrap_ep old;

		/* The name of the former peer, unless another member
		 * connected to that peer since and took it. */
		swrap_addr_to_ep(&s->peer, SOCK_DGRAM, &old);
		if (peer_link(c, &plain, &old, &ln) != 0 &&
		    stat(ln.sun_path, &a) == 0 &&
		    stat(s->path.sun_path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			unlink(ln.sun_path);
		}
	}
	if (peer != NULL && peer_link(c, &plain, peer, &ln) != 0) {
		/* The member that connected last gets the peer's datagrams:
		 * a name left by another (or by a dead one) is replaced. */
		if (link(s->path.sun_path, ln.sun_path) != 0 &&
		    (errno != EEXIST || unlink(ln.sun_path) != 0 ||
		     link(s->path.sun_path, ln.sun_path) != 0)) {
			CWRAP_DEBUG("%s: %s", ln.sun_path, strerror(errno));
		}
	}
	errno = saved;
}

/* ---- bind -----------------------------------------------------------------
 */

/* The socket `fd` and the file `st` belong to the same user (a socket's
 * inode is owned by its creator's fsuid; geteuid() may be uid_wrapper's). */
static bool same_user(int fd, const struct stat *st)
{
	struct stat me;

	return fstat(fd, &me) == 0 && me.st_uid == st->st_uid;
}

static void group_found(struct swrap_sock *s, const struct sockaddr_un *un)
{
	struct stat st;

	if (stat(un->sun_path, &st) == 0) {
		chmod(un->sun_path, (st.st_mode & 07777) | S_ISGID);
	}
	/* A marker left by a listener that died leads nowhere; members
	 * never make one. */
	swrap_addr_unlink_marker(s->conf, s->type, un);
	group_note(s->conf, un, 0);
	if (s->type == SOCK_DGRAM) {
		struct group_map *m = group_map_of(s->conf);

		if (m != NULL && m->writable) {
			__atomic_fetch_add(m->count, 1, __ATOMIC_RELAXED);
		}
		links_sweep(s->conf, un); /* of members that died */
	}
}

int swrap_group_bind(struct swrap_sock *s, int fd, const struct sockaddr_un *un,
		     socklen_t ulen, struct sockaddr_un *mb)
{
	const struct swrap_conf *c = s->conf;
	struct stat st;

	if (libc_bind(fd, (const struct sockaddr *)un, ulen) == 0) {
		group_found(s, un);
		return 0;
	}
	if (errno != EADDRINUSE) {
		return -1;
	}
	if (stat(un->sun_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    !(st.st_mode & S_ISGID) && same_user(fd, &st)) {
		/* A first member marks its name just after its bind(): one
		 * that binds at the same moment waits for the mark (a holder
		 * without SO_REUSEPORT never makes it: EADDRINUSE, late). */
		for (int i = 0; i < 40 && !(st.st_mode & S_ISGID); i++) {
			struct timespec ts = {0, 500 * 1000};

			nanosleep(&ts, NULL);
			if (stat(un->sun_path, &st) != 0) {
				break;
			}
		}
	}
	if (stat(un->sun_path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    !(st.st_mode & S_ISGID) || !same_user(fd, &st)) {
		/* Held without SO_REUSEPORT, or by another user: in use,
		 * unless its holder is dead. */
		if (swrap_unix_name_dead(un, ulen)) {
			goto take;
		}
		errno = EADDRINUSE;
		return -1;
	}
	if (swrap_unix_name_dead(un, ulen)) {
		/* The group's first member died: its name is free. */
		goto take;
	}
	for (unsigned k = 1; k < SWRAP_GROUP_MAX; k++) {
		socklen_t mlen = swrap_addr_unix_member(c, un, k, mb);
		int rc;

		if (mlen == 0) {
			break;
		}
		rc = libc_bind(fd, (struct sockaddr *)mb, mlen);
		if (rc != 0 && errno == EADDRINUSE &&
		    swrap_unix_name_dead(mb, mlen)) {
			/* The file of a member that died without closing. */
			unlink(mb->sun_path);
			rc = libc_bind(fd, (struct sockaddr *)mb, mlen);
		}
		if (rc == 0) {
			/* setgid as the plain name: the mark of a group,
			 * also once this file is the plain name's too. */
			if (stat(mb->sun_path, &st) == 0) {
				chmod(mb->sun_path,
				      (st.st_mode & 07777) | S_ISGID);
			}
			group_note(c, un, k);
			if (s->type == SOCK_DGRAM) {
				links_sweep(c, un); /* of members that died */
			}
			CWRAP_DEBUG("fd %d: member %u of the group of %s", fd,
				    k, un->sun_path);
			return 1;
		}
		if (errno != EADDRINUSE) {
			return -1;
		}
	}
	errno = EADDRINUSE;
	return -1;
take:
	CWRAP_DEBUG("removing stale socket %s", un->sun_path);
	unlink(un->sun_path);
	if (libc_bind(fd, (const struct sockaddr *)un, ulen) != 0) {
		return -1;
	}
	group_found(s, un);
	return 0;
}

/* A live member of the group of the plain name `un` (its file in *mb),
 * other than `self`: its number, 0 if there is none. */
static unsigned live_member(const struct swrap_conf *c,
			    const struct sockaddr_un *un,
			    const struct sockaddr_un *self,
			    struct sockaddr_un *mb)
{
	unsigned n = group_size(c, un);

	for (unsigned k = 1; k < n; k++) {
		socklen_t mlen = swrap_addr_unix_member(c, un, k, mb);

		if (mlen != 0 &&
		    (self == NULL ||
		     strcmp(mb->sun_path, self->sun_path) != 0) &&
		    access(mb->sun_path, F_OK) == 0 &&
		    !swrap_unix_name_dead(mb, mlen)) {
			return k;
		}
	}
	return 0;
}

bool swrap_group_alive(const struct swrap_conf *c, const struct sockaddr_un *un)
{
	struct sockaddr_un mb;

	return swrap_group_lookup(c, un, NULL) &&
	       live_member(c, un, NULL, &mb) != 0;
}

/* The plain name `plain` of a group, if its socket is gone: given to a
 * member that lives on, in one step (a second name of the member renamed
 * onto it, so that no client finds it missing meanwhile), or removed.
 * Processes that close members of one group at the same moment (a
 * server's workers at its end) all do this at once: the second name is
 * the thread's own, so that none removes another's, and a process looks
 * again after its own step, a few times, until the name leads to a live
 * member or none lives (another may have handed it to a member that was
 * closing, or removed it just after another handed it over). */
static void plain_repair(const struct swrap_conf *c,
			 const struct sockaddr_un *plain, socklen_t plen)
{
	struct sockaddr_un mb, tmp;

	if (access(plain->sun_path, F_OK) != 0 ||
	    !swrap_unix_name_dead(plain, plen)) {
		return; /* no plain name, or its holder lives */
	}
	for (int round = 0; round < 4; round++) {
		/* (in a directory whose name leaves no room for the id,
		 * the shared ".h": the next round mends a clash) */
		if (live_member(c, plain, NULL, &mb) == 0 ||
		    (snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.h%ld",
			      mb.sun_path,
			      (long)gettid()) >= (int)sizeof(tmp.sun_path) &&
		     snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.h",
			      mb.sun_path) >= (int)sizeof(tmp.sun_path))) {
			if (swrap_unix_name_dead(plain, plen)) {
				unlink(plain->sun_path);
			}
			return;
		}
		unlink(tmp.sun_path); /* left by a dead thread of that id */
		if (link(mb.sun_path, tmp.sun_path) == 0) {
			rename(tmp.sun_path, plain->sun_path);
			/* (rename() leaves both names when they are links
			 * of one file: another handed the name to the same
			 * member just before) */
			unlink(tmp.sun_path);
		}
		if (access(plain->sun_path, F_OK) == 0 &&
		    !swrap_unix_name_dead(plain, plen)) {
			CWRAP_DEBUG("%s handed over to %s", plain->sun_path,
				    mb.sun_path);
			return;
		}
	}
}

void swrap_group_closed(const struct swrap_conf *c,
			const struct sockaddr_un *path)
{
	int saved = errno;
	struct sockaddr_un plain;
	struct swrap_ep ep;
	socklen_t plen;

	if (!swrap_addr_from_unix(c, path, swrap_addr_path_len(path), &ep)) {
		goto out;
	}
	plen = swrap_addr_unix(c, &ep, &plain);
	if (strcmp(path->sun_path, plain.sun_path) != 0 &&
	    swrap_unix_name_dead(path, swrap_addr_path_len(path))) {
		unlink(path->sun_path);
	}
	plain_repair(c, &plain, plen);
	if (ep.type == SOCK_DGRAM) {
		links_sweep(c, &plain);
	}
out:
	errno = saved;
}

/* ---- TCP clients ----------------------------------------------------------
 */

static unsigned group_next; /* atomic; which member a client tries first */

int swrap_group_lookup(const struct swrap_conf *c, const struct sockaddr_un *un,
		       const struct stat *st)
{
	struct sockaddr_un g;

	if (st != NULL) {
		return S_ISSOCK(st->st_mode) && (st->st_mode & S_ISGID);
	}
	/* No plain name: a group whose first member went may remain. */
	return swrap_addr_unix_member(c, un, 0, &g) != 0 &&
	       access(g.sun_path, F_OK) == 0;
}

int swrap_group_connect(struct swrap_sock *s, int fd,
			const struct sockaddr_un *un, socklen_t ulen)
{
	unsigned n = group_size(s->conf, un), r;
	struct sockaddr_un mb;

	if (n == 0) {
		n = 1;
	}
	r = __atomic_fetch_add(&group_next, 1, __ATOMIC_RELAXED);
	if (r == 0) {
		r = (unsigned)swrap_pid(); /* processes start apart */
		__atomic_store_n(&group_next, r + 1, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (r + i) % n;
		socklen_t mlen =
		    k == 0 ? ulen : swrap_addr_unix_member(s->conf, un, k, &mb);
		int rc;

		if (mlen == 0) {
			continue;
		}
		rc = libc_connect(
		    fd, (const struct sockaddr *)(k == 0 ? un : &mb), mlen);
		if (rc == 0 || (errno != ENOENT && errno != ECONNREFUSED)) {
			return rc;
		}
		if (k == 0 && errno == ECONNREFUSED) {
			/* The holder of the plain name died without closing:
			 * the name goes to a live member, for the clients
			 * that know only that name (upstream's). */
			plain_repair(s->conf, un, ulen);
		}
	}
	errno = ECONNREFUSED;
	return -1;
}

/* ---- datagrams ------------------------------------------------------------
 */

socklen_t swrap_group_name(const struct swrap_conf *c,
			   const struct swrap_ep *ep, unsigned k,
			   struct sockaddr_un *un)
{
	struct sockaddr_un plain;
	socklen_t len = swrap_addr_unix(c, ep, &plain);

	if (k == 0) {
		*un = plain;
		return len;
	}
	len = swrap_addr_unix_member(c, &plain, k, un);
	return len != 0 ? len : swrap_addr_unix(c, ep, un);
}

unsigned swrap_group_members(const struct swrap_conf *c,
			     const struct sockaddr_un *un)
{
	struct group_map *m = group_map_of(c);
	struct stat st;
	unsigned n;

	if (cwrap_likely(m != NULL) &&
	    __atomic_load_n(m->count, __ATOMIC_RELAXED) == 0) {
		return 0; /* no datagram group was ever made here */
	}
	if (stat(un->sun_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || !(st.st_mode & S_ISGID)) {
			return 0;
		}
	} else if (errno != ENOENT || !swrap_group_lookup(c, un, NULL)) {
		return 0;
	}
	n = group_size(c, un);
	return n <= 1 ? 0 : n;
}

unsigned swrap_group_dgram(const struct swrap_sock *s,
			   const struct swrap_ep *ep, struct sockaddr_un *un,
			   socklen_t *ulen, unsigned *k)
{
	const struct swrap_conf *c = s->conf;
	struct sockaddr_un ln;
	struct swrap_ep src;
	unsigned n = swrap_group_members(c, un);

	if (n == 0) {
		return 0;
	}
	swrap_sock_src_ep(s, &src);
	if (peer_link(c, un, &src, &ln) != 0 &&
	    access(ln.sun_path, F_OK) == 0) {
		/* A member is connected to this sender: it gets the
		 * datagrams, as Linux scores an exact match above the
		 * group. Should it be gone (killed, or connecting elsewhere
		 * at this moment), every member in turn from the first:
		 * n + 1 names, the next ones (n + i) % (n + 1) = i - 1. */
		*un = ln;
		*ulen = swrap_addr_path_len(&ln);
		*k = n;
		return n + 1;
	}
	/* One flow (the sender's address) goes to one member, as with the
	 * kernel's hash; consecutive ports to consecutive members. */
	*k = (src.port + src.iface * 31u) % n;
	*ulen = swrap_group_name(c, ep, *k, un);
	return n;
}
