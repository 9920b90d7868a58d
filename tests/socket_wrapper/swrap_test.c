/*
 * Helpers of the socket_wrapper tests: see swrap_test.h. No state.
 */
#include "swrap_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

char *swrap_test_setup(const char *iface)
{
	char *dir = cwrap_test_mkdtemp("swrap");

	assert_int_equal(setenv("SOCKET_WRAPPER_DIR", dir, 1), 0);
	assert_int_equal(setenv("SOCKET_WRAPPER_DEFAULT_IFACE", iface, 1), 0);
	return dir;
}

void swrap_test_teardown(char *dir)
{
	cwrap_test_rmtree(dir);
	free(dir);
}

pid_t swrap_test_server(const char *type, const char *addr, int port)
{
	const char *bin = getenv("CWRAP_TEST_BIN");
	char path[4096], portstr[16], line[64];
	int p[2];
	pid_t pid;
	FILE *f;

	assert_non_null(bin);
	snprintf(path, sizeof(path), "%s/swrap_echo_srv", bin);
	snprintf(portstr, sizeof(portstr), "%d", port);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(path, path, type, addr, portstr, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ready\n");
	fclose(f);
	return pid;
}

void swrap_test_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

socklen_t swrap_test_sa(const char *addr, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET6, addr, &s6->sin6_addr), 1);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET, addr, &s4->sin_addr), 1);
		return sizeof(*s4);
	}
}

const char *swrap_test_ntop(const void *p, char *buf)
{
	const struct sockaddr *sa = p;
	char a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = p;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, 64, "%s:%u", a, ntohs(s4->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = p;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, 64, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		snprintf(buf, 64, "family %d", sa->sa_family);
	}
	return buf;
}

int swrap_test_connect(int type, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int fd = socket(ss.ss_family, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), 0);
	return fd;
}

bool swrap_test_has_socket(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

const char *swrap_test_name(int fd, char *buf, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	assert_int_equal(peer ? getpeername(fd, (struct sockaddr *)&ss, &len)
			      : getsockname(fd, (struct sockaddr *)&ss, &len),
			 0);
	return swrap_test_ntop(&ss, buf);
}

int swrap_test_bound(int type, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = swrap_test_sa(addr, port, &ss);
	int fd = socket(ss.ss_family, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
	return fd;
}

int swrap_test_listener(const char *addr, int port, int backlog)
{
	int fd = swrap_test_bound(SOCK_STREAM, addr, port);

	assert_int_equal(listen(fd, backlog), 0);
	return fd;
}

int swrap_test_real_socket(int family, int type, int protocol)
{
	const char *was = getenv("SOCKET_WRAPPER_DIR");
	char *keep = was != NULL ? strdup(was) : NULL;
	int fd, e;

	assert_int_equal(unsetenv("SOCKET_WRAPPER_DIR"), 0);
	fd = socket(family, type, protocol);
	e = errno;
	if (keep != NULL) {
		assert_int_equal(setenv("SOCKET_WRAPPER_DIR", keep, 1), 0);
		free(keep);
	}
	if (fd >= 0 && swrap_test_is_unix(fd)) {
		/* A wrapper that read SOCKET_WRAPPER_DIR once (an older
		 * build, to see a test fail without the fix): go round it. */
		close(fd);
		fd = (int)syscall(SYS_socket, family, type, protocol);
		e = errno;
	}
	errno = e;
	return fd;
}

bool swrap_test_is_unix(int fd)
{
	char line[512];
	struct stat st;
	bool found = false;
	FILE *f;

	assert_int_equal(fstat(fd, &st), 0);
	f = fopen("/proc/net/unix", "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		/* Num RefCount Protocol Flags Type St Inode Path */
		unsigned long n;

		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &n) == 1 &&
		    n == (unsigned long)st.st_ino) {
			found = true;
		}
	}
	fclose(f);
	return found;
}

void swrap_test_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		assert_true(w > 0);
		p += w;
		n -= (size_t)w;
	}
}

void swrap_test_read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = read(fd, p, n);

		assert_true(r > 0);
		p += r;
		n -= (size_t)r;
	}
}
