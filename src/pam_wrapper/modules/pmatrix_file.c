/*
 * pam_matrix's password file on disk: read whole, and replaced atomically
 * (see pmatrix.h). No state. Two processes that change passwords in one
 * file at the same moment each replace the whole file: the last rename
 * wins, as with any file rewritten by rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmatrix.h"

char *pmatrix_read(const char *path, size_t *len)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf = NULL;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	buf = malloc(cap);
	if (buf == NULL) {
		goto fail;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			goto fail;
		}
		if (r == 0) {
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

static int pmatrix_write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w < 0) {
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int pmatrix_write(const char *path, const char *text, size_t len)
{
	char real[PATH_MAX], tmp[PATH_MAX + 16];
	struct stat st;
	int fd, saved;

	/* A symbolic link keeps pointing at the file, now rewritten. */
	if (realpath(path, real) == NULL) {
		return -1;
	}
	if (stat(real, &st) != 0) {
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", real);
	fd = mkstemp(tmp);
	if (fd < 0) {
		return -1;
	}
	/* (an owner we may not give, as an ordinary user, stays ours) */
	if (fchown(fd, st.st_uid, st.st_gid) != 0) {
		errno = 0;
	}
	if (fchmod(fd, st.st_mode & 07777) != 0 ||
	    pmatrix_write_all(fd, text, len) != 0 || fsync(fd) != 0) {
		goto fail;
	}
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, real) != 0) {
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0) {
		close(fd);
	}
	unlink(tmp);
	errno = saved;
	return -1;
}
