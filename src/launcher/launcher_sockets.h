/*
 * cwrap --sockets: the kernel's side of the listing. launcher_socktab.c
 * reads every AF_UNIX socket of this network namespace (sock_diag: its
 * inode, type, state, name, the file it is bound to, its peer) and the
 * processes that hold them (/proc/PID/fd); launcher_sockets.c matches
 * them with the names in the socket directory and prints the table.
 * Single-threaded: no locks.
 */
#ifndef CWRAP_LAUNCHER_SOCKETS_H
#define CWRAP_LAUNCHER_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel's states of a unix socket (the TCP numbers it reuses). */
#define SOCKTAB_ESTABLISHED 1
#define SOCKTAB_SYN_SENT 2
#define SOCKTAB_CLOSE 7
#define SOCKTAB_LISTEN 10

struct socktab_holder {
	pid_t pid;
	int fd;
	char comm[16]; /* /proc/PID/comm */
};

struct socktab_sock {
	uint32_t ino;  /* as in /proc/PID/fd: "socket:[ino]" */
	uint32_t peer; /* the connected peer's inode; 0: none known */
	uint8_t type;  /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	uint8_t state; /* SOCKTAB_* */
	bool has_vfs;  /* bound to a file (or accepted from a listener
			* bound to one): its device and inode */
	bool has_peer;
	uint8_t shutdown; /* SHUT_RD and SHUT_WR seen: 1 | 2 */
	unsigned vfs_major, vfs_minor;
	uint32_t vfs_ino;
	char *name; /* the address it is bound to (or its listener's),
		     * NUL-terminated; an abstract one begins with '@';
		     * NULL: none */
	struct socktab_holder *holders;
	size_t nholders;
};

struct socktab {
	struct socktab_sock *v; /* sorted by inode */
	size_t n;
	bool unreadable; /* some /proc/PID/fd could not be read */
};

/* Fills `t`: 0, or an errno value (sock_diag refused or missing). */
int socktab_read(struct socktab *t);
/* The socket of inode `ino`, or NULL. */
const struct socktab_sock *socktab_find(const struct socktab *t, uint32_t ino);
void socktab_free(struct socktab *t);

/* launcher_sockets.c: prints the listing of `dir` (NULL:
 * $SOCKET_WRAPPER_DIR) on stdout; returns the exit status, or dies with
 * one line. */
int launcher_sockets(const char *dir, bool json, bool listening);

#endif
