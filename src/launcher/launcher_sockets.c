/*
 * cwrap --sockets [DIR] [--json] [--listening]: a socket directory as
 * ss(8) shows a host's sockets. Each name in it is an emulated endpoint
 * ("T0A0007": T tcp/IPv4, U udp/IPv4, X tcp/IPv6, Y udp/IPv6, then the
 * interface and the port in hex; upstream's names are the same), and
 * ours adds hidden ones: ".T0A0007" (a listener's marker, the same
 * file), ".T0A1F90.3" (member 3 of a SO_REUSEPORT group), ".T0A1F90.g"
 * and ".reuseport" (plain files), ".U0A0035=U0A2710" and ".T0A1F90.h..."
 * (second names of a member). The kernel's table (launcher_socktab.c)
 * says which socket is bound to which file, so one line is printed per
 * socket whose name is in the directory: listeners, bound datagram
 * sockets, both ends of connections (an accepted socket carries its
 * listener's name, a client of ours an abstract one "@DIR/T0A9C41"); and
 * one per file that no socket is bound to any more (stale: its process
 * died). Single-threaded: no locks.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cwrap_sockname.h"
#include "launcher.h"
#include "launcher_sockets.h"

/* An emulated endpoint, from a name such as "T0A0007". */
struct ep {
	char letter; /* T U X Y */
	unsigned iface, port;
};

enum name_kind {
	NAME_PLAIN,  /* T0A0007 */
	NAME_MEMBER, /* .T0A1F90.3 */
	NAME_MARKER, /* .T0A0007 */
	NAME_SECOND, /* .T0A1F90.h..., .U0A0035=U0A2710 */
	NAME_FILE,   /* .T0A1F90.g, .reuseport: not sockets */
	NAME_OTHER,
};

struct dfile {
	char *name;
	enum name_kind kind;
	struct ep ep;
	unsigned member; /* k of a member's name; 0 for the others */
	struct stat st;
	bool held; /* a socket is bound to it */
};

struct row {
	const char *netid, *state;
	struct ep local;
	int peer; /* 0: none, 1: `peer_ep`, 2: not an emulated endpoint */
	struct ep peer_ep;
	char *names;  /* comma-separated; NULL: none (abstract, or removed) */
	bool removed; /* bound to a file no longer in the directory */
	bool reuseport;
	unsigned member; /* sorts a group's members: plain name first */
	const struct socktab_sock *sock; /* NULL: a stale name */
	long uid;			 /* the file's owner; -1: no file */
};

struct listing {
	const char *dir;
	char *real;   /* realpath(dir) */
	uint32_t net; /* the IPv4 network, host order */
	struct dfile *files;
	size_t nfiles;
	struct socktab tab;
	struct row *rows;
	size_t nrows;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n == 0 ? 1 : n, size);

	if (p == NULL) {
		launcher_die("out of memory");
	}
	return p;
}

/* ---- names ------------------------------------------------------------ */

/* The 7 characters at `s`: a letter, 2 hex digits of interface (1..254;
 * 255, the broadcast address, for IPv4), 4 of port. */
static bool ep_parse(const char *s, struct ep *ep)
{
	if (!cwrap_sockname_parse(s, &ep->letter, &ep->iface, &ep->port)) {
		return false;
	}
	return ep->iface >= 1 &&
	       (ep->iface <= 254 ||
		(ep->iface == 255 && (s[0] == 'T' || s[0] == 'U')));
}

static enum name_kind name_parse(const char *name, struct ep *ep)
{
	size_t n = strlen(name);

	if (n == 7 && ep_parse(name, ep)) {
		return NAME_PLAIN;
	}
	if (strcmp(name, ".reuseport") == 0) {
		return NAME_FILE;
	}
	if (name[0] != '.' || n < 8 || !ep_parse(name + 1, ep)) {
		return NAME_OTHER;
	}
	if (n == 8) {
		return NAME_MARKER;
	}
	if (name[8] == '=' && n == 16 && ep_parse(name + 9, &(struct ep){0})) {
		return NAME_SECOND;
	}
	if (name[8] != '.' || n == 9) {
		return NAME_OTHER;
	}
	if (strspn(name + 9, "0123456789") == n - 9) {
		return NAME_MEMBER;
	}
	if (strcmp(name + 9, "g") == 0) {
		return NAME_FILE;
	}
	if (name[9] == 'h' && strspn(name + 10, "0123456789") == n - 10) {
		return NAME_SECOND;
	}
	return NAME_OTHER;
}

static bool ep_v6(const struct ep *ep)
{
	return ep->letter == 'X' || ep->letter == 'Y';
}

/* "127.0.0.10:7", "[fd00::5357:5f0a]:7": the address as the program sees
 * it. */
static void ep_format(const struct listing *l, const struct ep *ep, char *buf,
		      size_t len, bool with_port)
{
	char a[INET6_ADDRSTRLEN];

	if (ep_v6(ep)) {
		unsigned char b[16] = {0xfd, 0, 0, 0, 0,    0,	  0,   0,
				       0,    0, 0, 0, 0x53, 0x57, 0x5f};

		b[15] = (unsigned char)ep->iface;
		inet_ntop(AF_INET6, b, a, sizeof(a));
	} else {
		/* Interface 255: the broadcast address, 127.255.255.255
		 * (10.255.255.255). */
		uint32_t ip = ep->iface == 255
				  ? ((l->net & 0xff000000u) | 0x00ffffffu)
				  : (l->net | ep->iface);
		struct in_addr in = {.s_addr = htonl(ip)};

		inet_ntop(AF_INET, &in, a, sizeof(a));
	}
	if (!with_port) {
		snprintf(buf, len, "%s", a);
	} else if (ep_v6(ep)) {
		snprintf(buf, len, "[%s]:%u", a, ep->port);
	} else {
		snprintf(buf, len, "%s:%u", a, ep->port);
	}
}

static int ep_cmp(const struct ep *a, const struct ep *b)
{
	if (ep_v6(a) != ep_v6(b)) {
		return ep_v6(a) ? 1 : -1;
	}
	if (a->iface != b->iface) {
		return a->iface < b->iface ? -1 : 1;
	}
	if (a->port != b->port) {
		return a->port < b->port ? -1 : 1;
	}
	return (a->letter > b->letter) - (a->letter < b->letter);
}

/* ---- the directory ---------------------------------------------------- */

static void read_dir(struct listing *l)
{
	size_t cap = 16, entries = 0, ours = 0;
	struct dirent *e;
	DIR *d = opendir(l->dir);

	if (d == NULL) {
		launcher_die("--sockets %s: %s", l->dir, strerror(errno));
	}
	l->files = xcalloc(cap, sizeof(*l->files));
	while ((e = readdir(d)) != NULL) {
		struct dfile f = {0};

		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0) {
			continue;
		}
		entries++;
		f.kind = name_parse(e->d_name, &f.ep);
		if (f.kind == NAME_OTHER) {
			continue;
		}
		if (f.kind == NAME_MEMBER) {
			f.member = (unsigned)strtoul(e->d_name + 9, NULL, 10);
		}
		ours++;
		if (f.kind == NAME_FILE ||
		    fstatat(dirfd(d), e->d_name, &f.st, AT_SYMLINK_NOFOLLOW) !=
			0 ||
		    !S_ISSOCK(f.st.st_mode)) {
			continue;
		}
		f.name = strdup(e->d_name);
		if (f.name == NULL) {
			launcher_die("out of memory");
		}
		if (l->nfiles == cap) {
			cap *= 2;
			l->files = realloc(l->files, cap * sizeof(*l->files));
			if (l->files == NULL) {
				launcher_die("out of memory");
			}
		}
		l->files[l->nfiles++] = f;
	}
	closedir(d);
	if (entries > 0 && ours == 0) {
		launcher_die("--sockets %s: not a socket directory (none of "
			     "its %zu names is socket_wrapper's, such as "
			     "T0A0007)",
			     l->dir, entries);
	}
}

/* `path` ("DIR/T0A0007", from a socket's name) is in the directory. */
static bool in_dir(const struct listing *l, const char *path, size_t dlen)
{
	char *dir, *real;
	bool same;

	if (strlen(l->dir) == dlen && strncmp(path, l->dir, dlen) == 0) {
		return true;
	}
	if (strlen(l->real) == dlen && strncmp(path, l->real, dlen) == 0) {
		return true;
	}
	dir = strndup(path, dlen);
	if (dir == NULL) {
		launcher_die("out of memory");
	}
	real = realpath(dir, NULL);
	same = real != NULL && strcmp(real, l->real) == 0;
	free(real);
	free(dir);
	return same;
}

/* Appends `name` to the comma-separated list *names. */
static void add_name(char **names, const char *name)
{
	size_t n = *names != NULL ? strlen(*names) : 0;
	char *p = realloc(*names, n + strlen(name) + 2);

	if (p == NULL) {
		launcher_die("out of memory");
	}
	if (n > 0) {
		p[n++] = ',';
	}
	strcpy(p + n, name);
	*names = p;
}

/* The emulated endpoint socket `s` is bound to: the file it is bound to
 * in the directory (its names into `r`, when given), else its name: a
 * client of ours (abstract), or a socket whose file was removed. */
static bool sock_ep(struct listing *l, const struct socktab_sock *s,
		    struct ep *ep, struct row *r)
{
	enum name_kind best = NAME_OTHER;
	const char *base, *path;

	for (size_t i = 0; s->has_vfs && i < l->nfiles; i++) {
		struct dfile *f = &l->files[i];

		if ((uint32_t)f->st.st_ino != s->vfs_ino ||
		    major(f->st.st_dev) != s->vfs_major ||
		    minor(f->st.st_dev) != s->vfs_minor) {
			continue;
		}
		f->held = true;
		if (f->kind < best) {
			best = f->kind;
			*ep = f->ep;
			if (r != NULL) {
				r->member = f->member;
			}
		}
		if (r != NULL) {
			r->uid = (long)f->st.st_uid;
			r->reuseport |= f->kind == NAME_MEMBER ||
					(f->kind == NAME_PLAIN &&
					 (f->st.st_mode & S_ISGID));
		}
	}
	if (best != NAME_OTHER) {
		for (size_t i = 0; r != NULL && i < l->nfiles; i++) {
			const struct dfile *f = &l->files[i];

			/* Markers and second names only when the socket
			 * has no plain or member name. */
			if ((uint32_t)f->st.st_ino == s->vfs_ino &&
			    major(f->st.st_dev) == s->vfs_major &&
			    minor(f->st.st_dev) == s->vfs_minor &&
			    (f->kind <= NAME_MEMBER || f->kind == best)) {
				add_name(&r->names, f->name);
			}
		}
		return true;
	}
	if (s->name == NULL) {
		return false;
	}
	path = s->name[0] == '@' ? s->name + 1 : s->name;
	base = strrchr(path, '/');
	if (base == NULL || strlen(base + 1) != 7 || !ep_parse(base + 1, ep) ||
	    !in_dir(l, path, (size_t)(base - path))) {
		return false;
	}
	if (r != NULL && s->name[0] != '@') {
		r->removed = true;
	}
	return true;
}

/* ---- rows ------------------------------------------------------------- */

static const char *netid_of(char letter, int type)
{
	if (letter == 'T' || letter == 'X') {
		return "tcp";
	}
	return type == SOCK_SEQPACKET ? "quic" : "udp";
}

static const char *state_of(const struct socktab_sock *s)
{
	switch (s->state) {
	case SOCKTAB_LISTEN:
		return "listening";
	case SOCKTAB_ESTABLISHED:
		/* (A datagram socket that another connected to is marked
		 * established too, with no peer of its own.) */
		if (!s->has_peer) {
			return "bound";
		}
		if (s->peer == 0 && s->type != SOCK_DGRAM) {
			/* The other end has no socket: still in the
			 * listener's queue, or closed (which shut this
			 * one down both ways). */
			return s->shutdown == 3 ? "closed" : "queued";
		}
		return "connected";
	case SOCKTAB_SYN_SENT:
		return "connecting";
	case SOCKTAB_CLOSE:
		return "bound";
	default:
		return "unknown";
	}
}

static int state_rank(const char *state)
{
	static const char *const order[] = {
	    "listening", "bound",  "connecting", "queued",
	    "connected", "closed", "stale"};

	for (int i = 0; i < 7; i++) {
		if (strcmp(state, order[i]) == 0) {
			return i;
		}
	}
	return 7;
}

static struct row *new_row(struct listing *l)
{
	struct row *r;

	l->rows = realloc(l->rows, (l->nrows + 1) * sizeof(*l->rows));
	if (l->rows == NULL) {
		launcher_die("out of memory");
	}
	r = &l->rows[l->nrows++];
	memset(r, 0, sizeof(*r));
	r->uid = -1;
	return r;
}

static bool same_file(const struct dfile *a, const struct dfile *b)
{
	return a->st.st_ino == b->st.st_ino && a->st.st_dev == b->st.st_dev;
}

static void make_rows(struct listing *l)
{
	for (size_t i = 0; i < l->tab.n; i++) {
		const struct socktab_sock *s = &l->tab.v[i];
		struct row *r = new_row(l);

		if (!sock_ep(l, s, &r->local, r)) {
			free(r->names);
			l->nrows--;
			continue;
		}
		r->sock = s;
		r->netid = netid_of(r->local.letter, s->type);
		r->state = state_of(s);
		if (s->has_peer) {
			const struct socktab_sock *p =
			    socktab_find(&l->tab, s->peer);

			r->peer = p != NULL && sock_ep(l, p, &r->peer_ep, NULL)
				      ? 1
				      : 2;
		}
	}
	/* The names no socket is bound to: stale, one row per file (a
	 * marker is the same file as its listener's name). */
	for (size_t i = 0; i < l->nfiles; i++) {
		struct dfile *f = &l->files[i];
		enum name_kind best;
		struct row *r;
		size_t j;

		if (f->held) {
			continue;
		}
		for (j = 0; j < i; j++) {
			if (same_file(&l->files[j], f)) {
				break;
			}
		}
		if (j < i) {
			continue; /* listed with its first name */
		}
		r = new_row(l);
		r->local = f->ep;
		r->member = f->member;
		r->netid = netid_of(f->ep.letter, 0);
		r->state = "stale";
		r->uid = (long)f->st.st_uid;
		best = f->kind;
		for (j = i; j < l->nfiles; j++) {
			struct dfile *g = &l->files[j];

			if (same_file(g, f) && g->kind < best) {
				best = g->kind;
				r->local = g->ep;
				r->member = g->member;
			}
		}
		for (j = i; j < l->nfiles; j++) {
			struct dfile *g = &l->files[j];

			if (!same_file(g, f)) {
				continue;
			}
			if (g->kind <= NAME_MEMBER || g->kind == best) {
				add_name(&r->names, g->name);
			}
			r->reuseport |= g->kind == NAME_MEMBER ||
					(g->kind == NAME_PLAIN &&
					 (g->st.st_mode & S_ISGID));
		}
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = ep_cmp(&x->local, &y->local);

	if (c == 0) {
		c = strcmp(x->netid, y->netid);
	}
	if (c == 0) {
		c = state_rank(x->state) - state_rank(y->state);
	}
	if (c == 0) {
		c = x->peer - y->peer;
	}
	if (c == 0 && x->peer == 1) {
		c = ep_cmp(&x->peer_ep, &y->peer_ep);
	}
	if (c == 0 && x->member != y->member) {
		c = x->member < y->member ? -1 : 1;
	}
	if (c == 0) {
		c = strcmp(x->names != NULL ? x->names : "",
			   y->names != NULL ? y->names : "");
	}
	if (c == 0 && x->sock != NULL && y->sock != NULL) {
		c = (x->sock->ino > y->sock->ino) -
		    (x->sock->ino < y->sock->ino);
	}
	return c;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct socktab_holder *x = a, *y = b;

	if (x->pid != y->pid) {
		return x->pid < y->pid ? -1 : 1;
	}
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* ---- output ----------------------------------------------------------- */

/* Who holds the row's socket: found, "not readable" (some processes'
 * descriptors could not be read: another user's, or not dumpable), or
 * none ("-": a stale name, or a socket no process holds). */
static bool readable(const struct listing *l, const struct row *r)
{
	return r->sock == NULL || r->sock->nholders > 0 || !l->tab.unreadable;
}

/* A command name as text: no control characters. */
static void clean(char *out, const char *in)
{
	for (; *in != '\0'; in++) {
		*out++ = (unsigned char)*in < 0x20 || *in == 0x7f ? '?' : *in;
	}
	*out = '\0';
}

static char *process_text(const struct listing *l, const struct row *r)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f;

	if (r->sock == NULL || r->sock->nholders == 0) {
		return strdup(readable(l, r) ? "-" : "not readable");
	}
	f = open_memstream(&t, &len);
	if (f == NULL) {
		launcher_die("out of memory");
	}
	fputs("users:(", f);
	for (size_t i = 0; i < r->sock->nholders; i++) {
		const struct socktab_holder *h = &r->sock->holders[i];
		char comm[sizeof(h->comm)];

		clean(comm, h->comm);
		fprintf(f, "%s(\"%s\",pid=%d,fd=%d)", i > 0 ? "," : "", comm,
			(int)h->pid, h->fd);
	}
	fputc(')', f);
	fclose(f);
	return t;
}

static void peer_text(const struct listing *l, const struct row *r, char *buf,
		      size_t len)
{
	if (r->peer == 1) {
		ep_format(l, &r->peer_ep, buf, len, true);
	} else {
		snprintf(buf, len, "%s", r->peer == 2 ? "?" : "*");
	}
}

static void names_text(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->names != NULL ? r->names : "-",
		 r->removed ? " (removed)" : "",
		 r->reuseport ? " [reuseport]" : "");
}

static void print_text(const struct listing *l)
{
	static const char *const head[5] = {"Netid", "State",
					    "Local Address:Port",
					    "Peer Address:Port", "Name"};
	size_t w[5];
	char cell[5][160];

	for (int c = 0; c < 5; c++) {
		w[c] = strlen(head[c]);
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			printf("%-*s %-*s %-*s %-*s %-*s Process\n", (int)w[0],
			       head[0], (int)w[1], head[1], (int)w[2], head[2],
			       (int)w[3], head[3], (int)w[4], head[4]);
		}
		for (size_t i = 0; i < l->nrows; i++) {
			const struct row *r = &l->rows[i];
			char *proc;

			snprintf(cell[0], sizeof(cell[0]), "%s", r->netid);
			snprintf(cell[1], sizeof(cell[1]), "%s", r->state);
			ep_format(l, &r->local, cell[2], sizeof(cell[2]), true);
			peer_text(l, r, cell[3], sizeof(cell[3]));
			names_text(r, cell[4], sizeof(cell[4]));
			if (pass == 0) {
				for (int c = 0; c < 5; c++) {
					size_t n = strlen(cell[c]);

					w[c] = n > w[c] ? n : w[c];
				}
				continue;
			}
			proc = process_text(l, r);
			if (proc == NULL) {
				launcher_die("out of memory");
			}
			printf("%-*s %-*s %-*s %-*s %-*s %s\n", (int)w[0],
			       cell[0], (int)w[1], cell[1], (int)w[2], cell[2],
			       (int)w[3], cell[3], (int)w[4], cell[4], proc);
			free(proc);
		}
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			printf("\\%c", ch);
		} else if (ch < 0x20 || ch == 0x7f) {
			printf("\\u%04x", ch);
		} else {
			putchar(ch);
		}
	}
	putchar('"');
}

static void json_ep(const struct listing *l, const struct ep *ep)
{
	char a[INET6_ADDRSTRLEN];

	ep_format(l, ep, a, sizeof(a), false);
	printf("{\"address\": \"%s\", \"port\": %u}", a, ep->port);
}

static void print_json(const struct listing *l)
{
	if (l->nrows == 0) {
		puts("[]");
		return;
	}
	puts("[");
	for (size_t i = 0; i < l->nrows; i++) {
		const struct row *r = &l->rows[i];
		const char *n = r->names;

		printf("  {\"netid\": \"%s\", \"state\": \"%s\", \"local\": ",
		       r->netid, r->state);
		json_ep(l, &r->local);
		fputs(", \"peer\": ", stdout);
		if (r->peer == 1) {
			json_ep(l, &r->peer_ep);
		} else {
			fputs(r->peer == 2
				  ? "{\"address\": null, \"port\": null}"
				  : "null",
			      stdout);
		}
		fputs(", \"names\": [", stdout);
		while (n != NULL && *n != '\0') {
			size_t k = strcspn(n, ",");

			printf("%s\"%.*s\"", n == r->names ? "" : ", ", (int)k,
			       n);
			n += k + (n[k] == ',');
		}
		printf("], \"removed\": %s, \"reuseport\": %s, \"inode\": ",
		       r->removed ? "true" : "false",
		       r->reuseport ? "true" : "false");
		if (r->sock != NULL) {
			printf("%u", (unsigned)r->sock->ino);
		} else {
			fputs("null", stdout);
		}
		if (r->uid >= 0) {
			printf(", \"uid\": %ld", r->uid);
		} else {
			fputs(", \"uid\": null", stdout);
		}
		fputs(", \"processes\": [", stdout);
		for (size_t k = 0; r->sock != NULL && k < r->sock->nholders;
		     k++) {
			const struct socktab_holder *h = &r->sock->holders[k];

			printf("%s{\"pid\": %d, \"command\": ",
			       k > 0 ? ", " : "", (int)h->pid);
			json_string(h->comm);
			printf(", \"fd\": %d}", h->fd);
		}
		printf("], \"processes_readable\": %s}%s\n",
		       readable(l, r) ? "true" : "false",
		       i + 1 < l->nrows ? "," : "");
	}
	puts("]");
}

/* ---- the command ------------------------------------------------------ */

/* The IPv4 network the programs see, from their variable. */
static uint32_t ipv4_network(void)
{
	const char *net = getenv("SOCKET_WRAPPER_IPV4_NETWORK");

	if (net == NULL || *net == '\0' || strcmp(net, "127.0.0.0") == 0) {
		return 0x7f000000u;
	}
	if (strcmp(net, "10.53.57.0") == 0) {
		return 0x0a353900u;
	}
	launcher_die("SOCKET_WRAPPER_IPV4_NETWORK='%s' is neither 127.0.0.0 "
		     "nor 10.53.57.0",
		     net);
}

int launcher_sockets(const char *dir, bool json, bool listening)
{
	struct listing l = {.dir = dir};
	struct stat st;
	size_t kept = 0;
	int err;

	if (l.dir == NULL) {
		l.dir = getenv("SOCKET_WRAPPER_DIR");
		if (l.dir == NULL || *l.dir == '\0') {
			launcher_die("--sockets: no directory given, and "
				     "SOCKET_WRAPPER_DIR is not set");
		}
	}
	l.net = ipv4_network();
	if (stat(l.dir, &st) != 0) {
		launcher_die("--sockets %s: %s", l.dir, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode)) {
		launcher_die("--sockets %s: not a directory", l.dir);
	}
	l.real = realpath(l.dir, NULL);
	if (l.real == NULL) {
		launcher_die("--sockets %s: %s", l.dir, strerror(errno));
	}
	read_dir(&l);
	err = socktab_read(&l.tab);
	if (err != 0) {
		launcher_die("--sockets: the kernel's table of unix sockets "
			     "(sock_diag) cannot be read: %s",
			     strerror(err));
	}
	make_rows(&l);
	for (size_t i = 0; i < l.nrows; i++) {
		if (!listening || strcmp(l.rows[i].state, "listening") == 0) {
			l.rows[kept++] = l.rows[i];
		} else {
			free(l.rows[i].names);
		}
	}
	l.nrows = kept;
	for (size_t i = 0; i < l.tab.n; i++) {
		if (l.tab.v[i].nholders < 2) {
			continue;
		}
		qsort(l.tab.v[i].holders, l.tab.v[i].nholders,
		      sizeof(*l.tab.v[i].holders), holder_cmp);
	}
	if (l.nrows > 1) {
		qsort(l.rows, l.nrows, sizeof(*l.rows), row_cmp);
	}
	if (json) {
		print_json(&l);
	} else {
		print_text(&l);
	}
	for (size_t i = 0; i < l.nrows; i++) {
		free(l.rows[i].names);
	}
	for (size_t i = 0; i < l.nfiles; i++) {
		free(l.files[i].name);
	}
	free(l.rows);
	free(l.files);
	free(l.real);
	socktab_free(&l.tab);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		launcher_die("--sockets: standard output: %s", strerror(errno));
	}
	return 0;
}
