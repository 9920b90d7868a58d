/*
 * The filter a supervised process runs under, its installation, and what
 * the host must have for it: seccomp user notification with
 * SECCOMP_ADDFD_FLAG_SEND (Linux 5.14), pidfd_getfd (5.6), and the right
 * to read and write the process's memory (Yama's ptrace_scope below 2:
 * the supervised process is our child). No state.
 *
 * Besides the kernel's version and seccomp, sup_host_lacks() tries the
 * calls it makes on a program on this process itself.
 *
 * The filter (classic BPF, one pass, no loop): for this architecture's
 * calls, socket() of AF_INET/AF_INET6, the socket calls that name an
 * address or an option, sendto()/recvfrom() only with an address, go to
 * the supervisor; io_uring_setup() fails with ENOSYS (its operations
 * would bypass everything); the rest is allowed. Every call of another
 * ABI (i386's int 0x80, x32) fails with ENOSYS: its socket calls cannot
 * be emulated, and let through they would reach the real network (the
 * launcher supervises only programs of this machine's ABI).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sup.h"

#if defined(__x86_64__)
#define SUP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SUP_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define SUP_ARCH AUDIT_ARCH_RISCV64
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

#define NR_OFF offsetof(struct seccomp_data, nr)
#define ARCH_OFF offsetof(struct seccomp_data, arch)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4)

#define RET(v) ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (v)))
#define LD(off) ((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define JEQ(k, t, f) ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f)))

#ifdef SUP_ARCH
/* The calls sent to the supervisor whatever their arguments. */
static const int notified[] = {
    __NR_bind,	     __NR_connect,     __NR_listen,	 __NR_accept,
    __NR_accept4,    __NR_getsockname, __NR_getpeername, __NR_getsockopt,
    __NR_setsockopt, __NR_sendmsg,     __NR_recvmsg,	 __NR_sendmmsg,
    __NR_recvmmsg,
};

#define NNOTIFIED (sizeof(notified) / sizeof(notified[0]))
/* The program: see the paragraph at the top. */
#define PROG_MAX (32 + NNOTIFIED)

static size_t build(struct sock_filter *f)
{
	size_t n = 0;

	f[n++] = LD(ARCH_OFF);
	f[n++] = JEQ(SUP_ARCH, 1, 0);
	f[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS); /* another ABI */
	f[n++] = LD(NR_OFF);
#ifdef __x86_64__
	/* x32 calls: bit 30 */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	f[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS);
#endif
	/* socket(): the family, its low 32 bits (an int) */
	f[n++] = JEQ(__NR_socket, 0, 5);
	f[n++] = LD(ARG_LO(0));
	f[n++] = JEQ(AF_INET, 1, 0);
	f[n++] = JEQ(AF_INET6, 0, 1);
	f[n++] = RET(SECCOMP_RET_USER_NOTIF);
	f[n++] = RET(SECCOMP_RET_ALLOW);
	f[n++] = JEQ(__NR_io_uring_setup, 0, 1);
	f[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS);
	/* sendto()/recvfrom(): only with an address (argument 4) */
	f[n++] = JEQ(__NR_sendto, 1, 0);
	f[n++] = JEQ(__NR_recvfrom, 0, 6);
	f[n++] = LD(ARG_LO(4));
	f[n++] = JEQ(0, 0, 2);
	f[n++] = LD(ARG_HI(4));
	f[n++] = JEQ(0, 1, 0);
	f[n++] = RET(SECCOMP_RET_USER_NOTIF);
	f[n++] = RET(SECCOMP_RET_ALLOW);
	for (size_t i = 0; i < NNOTIFIED; i++) {
		/* jump to the RET USER_NOTIF after the list */
		f[n] = JEQ((unsigned)notified[i], (unsigned char)(NNOTIFIED - i), 0);
		n++;
	}
	f[n++] = RET(SECCOMP_RET_ALLOW);
	f[n++] = RET(SECCOMP_RET_USER_NOTIF);
	return n;
}
#endif

static int sys_seccomp(unsigned op, unsigned flags, void *arg)
{
	return (int)syscall(__NR_seccomp, op, flags, arg);
}

int sup_filter_install(void)
{
#ifdef SUP_ARCH
	struct sock_filter f[PROG_MAX];
	struct sock_fprog prog;
	int fd;

	prog.len = (unsigned short)build(f);
	prog.filter = f;
	fd = sys_seccomp(SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0 && errno == EACCES) {
		/* Without CAP_SYS_ADMIN a filter needs no_new_privs: a
		 * set-user-ID program it runs does not gain its owner's
		 * rights (there is no real privilege to gain under cwrap). */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
			return -errno;
		}
		fd = sys_seccomp(SECCOMP_SET_MODE_FILTER,
				 SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	}
	return fd < 0 ? -errno : fd;
#else
	return -ENOSYS;
#endif
}

/* The calls the supervisor makes on a program, tried on this process:
 * a container's seccomp profile may refuse them (Docker's default one
 * does without CAP_SYS_PTRACE). */
static const char *own_access(void)
{
	char src = 'x', dst = 0;
	struct iovec l = {&dst, 1}, r = {&src, 1};
	int pidfd, fd;

	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 1 || dst != 'x') {
		return "process_vm_readv() (refused here: a container's "
		       "seccomp profile?)";
	}
	pidfd = (int)syscall(__NR_pidfd_open, getpid(), 0);
	fd = pidfd < 0 ? -1 : (int)syscall(__NR_pidfd_getfd, pidfd, pidfd, 0);
	if (pidfd >= 0) {
		close(pidfd);
	}
	if (fd < 0) {
		return "pidfd_open() and pidfd_getfd() (Linux 5.6; refused "
		       "here: a container's seccomp profile?)";
	}
	close(fd);
	return NULL;
}

const char *sup_host_lacks(void)
{
#ifdef SUP_ARCH
	struct seccomp_notif_sizes sz;
	struct utsname u;
	unsigned major = 0, minor = 0;
	FILE *f;
	int scope = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    major < 5 || (major == 5 && minor < 14)) {
		return "Linux 5.14 or later (seccomp user notification with "
		       "SECCOMP_ADDFD_FLAG_SEND)";
	}
	if (sys_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0) {
		return "seccomp user notification (the kernel or the "
		       "container refuses seccomp)";
	}
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f != NULL) {
		if (fscanf(f, "%d", &scope) != 1) {
			scope = 0;
		}
		fclose(f);
	}
	if (scope >= 2 && geteuid() != 0) {
		return "access to the program's memory and descriptors "
		       "(kernel.yama.ptrace_scope is 2 or more)";
	}
	return own_access();
#else
	return "an architecture the supervisor knows (x86_64, aarch64, "
	       "riscv64)";
#endif
}
