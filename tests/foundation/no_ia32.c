/*
 * no_ia32 PROGRAM ARGS...: run PROGRAM as on a host whose kernel runs no
 * 32-bit x86 program (IA32 emulation off: containers, VMs and CI runners
 * seen so): a seccomp filter kills, with SIGSYS, any process that makes a
 * system call of the i386 ABI, which a 32-bit program does from its first
 * instruction on. 64-bit programs, and everything they execute, run as
 * usual. tools/test's probe of the host (tools/host-caps i686) is tested
 * under it. x86_64 only.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (argc < 2) {
		fprintf(stderr, "usage: no_ia32 PROGRAM ARGS...\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "no_ia32: cannot install the filter: %s\n",
			strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no_ia32: %s: %s\n", argv[1], strerror(errno));
	return 127;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "no_ia32: x86_64 only\n");
	return 2;
#endif
}
