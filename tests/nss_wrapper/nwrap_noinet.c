/*
 * nwrap_noinet [--deny] PROGRAM ARGS...: run PROGRAM under a seccomp filter
 * that stops any AF_INET, AF_INET6 or AF_NETLINK socket from being made, by
 * PROGRAM, by the libc inside it (whose internal socket() calls no
 * preloaded guard could see), or by anything it executes. By default such a
 * socket() kills the process with SIGSYS, which the calling script reports;
 * with --deny it fails with EACCES instead, so real glibc can be run for a
 * reference answer without a query leaving the machine. AF_UNIX sockets
 * (socket_wrapper's, nscd's) stay allowed. On i386, where libc may make
 * sockets through socketcall(2), whose family the filter cannot read, every
 * socketcall(SYS_SOCKET) is treated the same way. No state.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NOINET_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define NOINET_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define NOINET_ARCH AUDIT_ARCH_AARCH64
#endif

#define ARG0 offsetof(struct seccomp_data, args[0])
#define NR offsetof(struct seccomp_data, nr)

int main(int argc, char **argv)
{
	int deny = argc > 1 && strcmp(argv[1], "--deny") == 0;
	unsigned int stop =
	    deny ? SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)
		 : SECCOMP_RET_KILL_PROCESS;
	struct sock_filter f[] = {
#ifdef NOINET_ARCH
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NOINET_ARCH, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
#ifdef SYS_socketcall
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketcall, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKET, 8, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
#ifdef SYS_socket
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
#endif
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    /* the family is the low 32 bits of the first argument */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, stop),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	char **cmd = argv + 1 + deny;

	if (*cmd == NULL) {
		fprintf(stderr,
			"usage: nwrap_noinet [--deny] PROGRAM ARGS...\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "nwrap_noinet: cannot install the filter: %s\n",
			strerror(errno));
		return 77;
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "nwrap_noinet: %s: %s\n", cmd[0], strerror(errno));
	return 127;
}
