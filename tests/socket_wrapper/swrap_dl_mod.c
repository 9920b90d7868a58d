/*
 * Test module for test_swrap_dlopen, opened with dlopen() as Samba's ldb
 * opens its modules: it makes a TCP connection with the socket calls its
 * symbol lookup finds (libc's first when opened with RTLD_DEEPBIND), and
 * tells which swrap_dl_probe() it reaches and its dependency's value.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int swrap_dl_mod_connect(const char *addr, int port);
int swrap_dl_mod_dep(void);
const char *swrap_dl_mod_probe(void);
int swrap_dl_dep_value(void);
const char *swrap_dl_probe(void);

/* A socket connected to addr:port, or -1. */
int swrap_dl_mod_connect(const char *addr, int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	return fd;
}

int swrap_dl_mod_dep(void)
{
	return swrap_dl_dep_value();
}

const char *swrap_dl_mod_probe(void)
{
	return swrap_dl_probe();
}
