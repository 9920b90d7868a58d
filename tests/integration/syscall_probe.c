/*
 * syscall_probe: what a program sees of ids and sockets when it makes
 * the calls through syscall(), under whatever LD_PRELOAD holds; one
 * "key=value" line each, for the scripts to check. Links nothing but
 * libc, so that another release's dynamic loader can run it
 * (syscall_upstream.sh). The kernel's view comes from libc's own
 * syscall(), found with dlsym() in libc.so.6, past every wrapper.
 *
 *   uid=      syscall(SYS_getuid)
 *   setresuid= syscall(SYS_setresuid, 1234, 1234, 1234)'s result,
 *   uid_after= syscall(SYS_getuid) then, kernel_uid= the kernel's getuid
 *   bound_files= the names in $SOCKET_WRAPPER_DIR after socket() and
 *             bind() to 127.0.0.10:9 (UDP) through libc's names,
 *   closed_files= the same after syscall(SYS_close) of that socket
 *   socket=   syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) >= 0
 *   bind=     syscall(SYS_bind) to 127.0.0.10:7's result
 *   name=     syscall(SYS_getsockname)'s address:port
 *   kernel_domain= the kernel's SO_DOMAIN of that socket (unix: emulated)
 *   early_alloc= what a preloaded tests/integration/early_alloc.so saw,
 *             when it is there
 *
 * With SYSCALL_PROBE_NO_IDS set, the id lines are left out, and with them
 * the setresuid: under socket_wrapper alone it would reach the kernel.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The names in $SOCKET_WRAPPER_DIR, -1 without it. */
static int dir_files(void)
{
	const char *path = getenv("SOCKET_WRAPPER_DIR");
	DIR *d = path != NULL ? opendir(path) : NULL;
	struct dirent *e;
	int n = 0;

	if (d == NULL) {
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		n += e->d_name[0] != '.';
	}
	closedir(d);
	return n;
}

int main(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	long (*raw)(long, ...) =
	    libc != NULL ? (long (*)(long, ...))dlsym(libc, "syscall") : NULL;
	const char *(*report)(void) =
	    (const char *(*)(void))dlsym(RTLD_DEFAULT, "early_alloc_report");
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(7)};
	socklen_t len = sizeof(sin);
	char addr[INET_ADDRSTRLEN] = "?";
	int domain = -1;
	socklen_t dlen = sizeof(domain);
	long fd, rc;

	if (raw == NULL) {
		fprintf(stderr, "syscall_probe: libc's syscall() not found\n");
		return 1;
	}
	if (report != NULL) {
		printf("early_alloc=%s\n", report());
	}
	if (getenv("SYSCALL_PROBE_NO_IDS") == NULL) {
		printf("uid=%ld\n", syscall(SYS_getuid));
		rc = syscall(SYS_setresuid, 1234L, 1234L, 1234L);
		printf("setresuid=%ld\n", rc);
		printf("uid_after=%ld\n", syscall(SYS_getuid));
		printf("kernel_uid=%ld\n", raw(SYS_getuid));
	}

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	sin.sin_port = htons(9);
	inet_pton(AF_INET, "127.0.0.10", &sin.sin_addr);
	bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	printf("bound_files=%d\n", dir_files());
	syscall(SYS_close, fd);
	printf("closed_files=%d\n", dir_files());

	sin.sin_port = htons(7);
	fd = syscall(SYS_socket, (long)AF_INET, (long)SOCK_STREAM, 0L);
	printf("socket=%s\n", fd >= 0 ? "ok" : "failed");
	inet_pton(AF_INET, "127.0.0.10", &sin.sin_addr);
	printf("bind=%ld\n", syscall(SYS_bind, fd, (long)&sin, (long)len));
	memset(&sin, 0, sizeof(sin));
	if (syscall(SYS_getsockname, fd, (long)&sin, (long)&len) == 0) {
		inet_ntop(AF_INET, &sin.sin_addr, addr, sizeof(addr));
	}
	printf("name=%s:%d\n", addr, ntohs(sin.sin_port));
	raw(SYS_getsockopt, fd, (long)SOL_SOCKET, (long)SO_DOMAIN,
	    (long)&domain, (long)&dlen);
	printf("kernel_domain=%s\n", domain == AF_UNIX	 ? "unix"
				     : domain == AF_INET ? "inet"
							 : "?");
	syscall(SYS_close, fd);
	return 0;
}
