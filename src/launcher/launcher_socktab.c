/*
 * The kernel's table of AF_UNIX sockets for cwrap --sockets, as ss(8)
 * reads it: one sock_diag dump (NETLINK_SOCK_DIAG, unprivileged) gives
 * each socket's inode, type, state, name, the device and inode of the
 * file it is bound to (UNIX_DIAG_VFS: how a name renamed or linked
 * after bind() is still matched to its socket) and its peer's inode;
 * then /proc/PID/fd says which processes hold which socket inode, as far
 * as the caller may read them. Single-threaded: no locks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher.h"
#include "launcher_sockets.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (p == NULL) {
		launcher_die("out of memory");
	}
	return p;
}

static void add_sock(struct socktab *t, const struct unix_diag_msg *m,
		     size_t len)
{
	struct socktab_sock *s;
	struct rtattr *a = (struct rtattr *)(void *)(m + 1);
	int left = (int)(len - NLMSG_ALIGN(sizeof(*m)));

	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	s = &t->v[t->n++];
	memset(s, 0, sizeof(*s));
	s->ino = m->udiag_ino;
	s->type = m->udiag_type;
	s->state = m->udiag_state;
	for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		const unsigned char *d = RTA_DATA(a);
		size_t n = RTA_PAYLOAD(a);

		if (a->rta_type == UNIX_DIAG_NAME && n > 0) {
			/* A path ends with its NUL; an abstract name begins
			 * with one, shown as '@' (ss does the same). */
			s->name = xrealloc(NULL, n + 1);
			memcpy(s->name, d, n);
			s->name[n] = '\0';
			if (d[0] == '\0') {
				s->name[0] = '@';
			}
		} else if (a->rta_type == UNIX_DIAG_VFS &&
			   n >= sizeof(struct unix_diag_vfs)) {
			struct unix_diag_vfs vfs;

			memcpy(&vfs, d, sizeof(vfs));
			/* The kernel's own dev_t: 12 bits of major above
			 * 20 bits of minor. */
			s->has_vfs = true;
			s->vfs_ino = vfs.udiag_vfs_ino;
			s->vfs_major = vfs.udiag_vfs_dev >> 20;
			s->vfs_minor = vfs.udiag_vfs_dev & 0xfffffu;
		} else if (a->rta_type == UNIX_DIAG_PEER && n >= 4) {
			memcpy(&s->peer, d, 4);
			s->has_peer = true;
		} else if (a->rta_type == UNIX_DIAG_SHUTDOWN && n >= 1) {
			s->shutdown = d[0];
		}
	}
}

/* One dump of every unix socket: 0 or an errno value. */
static int dump(struct socktab *t)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req;
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	int err = 0;

	if (fd < 0) {
		return errno;
	}
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = ~0u;
	req.r.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_PEER;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		ssize_t got = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
		int left = (int)got;

		if (got < 0) {
			if (errno == EINTR) {
				continue;
			}
			err = errno;
			goto out;
		}
		if (got == 0) {
			err = EIO;
			goto out;
		}
		for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				goto out;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				err =
				    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
					    e->error < 0
					? -e->error
					: EIO;
				goto out;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
			    h->nlmsg_len >=
				NLMSG_LENGTH(sizeof(struct unix_diag_msg))) {
				add_sock(t, NLMSG_DATA(h),
					 h->nlmsg_len - NLMSG_LENGTH(0));
			}
		}
	}
out:
	close(fd);
	return err;
}

static int by_ino(const void *a, const void *b)
{
	const struct socktab_sock *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

const struct socktab_sock *socktab_find(const struct socktab *t, uint32_t ino)
{
	struct socktab_sock key = {.ino = ino};

	if (t->n == 0) {
		return NULL;
	}
	return bsearch(&key, t->v, t->n, sizeof(*t->v), by_ino);
}

static void read_comm(pid_t pid, char comm[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, 15);
		close(fd);
	}
	if (n <= 0) {
		strcpy(comm, "?");
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* The sockets that process `pid` holds, added to their holders. */
static void scan_fds(struct socktab *t, pid_t pid)
{
	char path[64], link[64], comm[16] = "";
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL) {
		/* ENOENT: gone meanwhile. EACCES: another user's, or not
		 * dumpable: its sockets cannot be told. */
		if (errno != ENOENT && errno != ESRCH) {
			t->unreadable = true;
		}
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct socktab_sock *s;
		unsigned long ino;
		ssize_t n;
		char *end;

		if (e->d_name[0] < '0' || e->d_name[0] > '9') {
			continue;
		}
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n <= 8 || memcmp(link, "socket:[", 8) != 0) {
			continue;
		}
		link[n] = '\0';
		ino = strtoul(link + 8, &end, 10);
		s = (struct socktab_sock *)socktab_find(t, (uint32_t)ino);
		if (*end != ']' || s == NULL) {
			continue;
		}
		if (comm[0] == '\0') {
			read_comm(pid, comm);
		}
		s->holders = xrealloc(s->holders,
				      (s->nholders + 1) * sizeof(*s->holders));
		s->holders[s->nholders].pid = pid;
		s->holders[s->nholders].fd = atoi(e->d_name);
		memcpy(s->holders[s->nholders].comm, comm, sizeof(comm));
		s->nholders++;
	}
	closedir(d);
}

int socktab_read(struct socktab *t)
{
	struct dirent *e;
	DIR *proc;
	int err;

	memset(t, 0, sizeof(*t));
	err = dump(t);
	if (err != 0) {
		return err;
	}
	if (t->n > 1) {
		qsort(t->v, t->n, sizeof(*t->v), by_ino);
	}
	proc = opendir("/proc");
	if (proc == NULL) {
		t->unreadable = true;
		return 0;
	}
	while ((e = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end == '\0' && pid > 0) {
			scan_fds(t, (pid_t)pid);
		}
	}
	closedir(proc);
	return 0;
}

void socktab_free(struct socktab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].holders);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
