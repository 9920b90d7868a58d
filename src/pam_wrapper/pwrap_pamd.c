/*
 * The service directory read as /etc/pam.d (see pwrap.h): Linux-PAM
 * reads a service's own file from the directory pam_start_confdir() was
 * given, but Debian's libpam looks for the files a service includes
 * (`auth include NAME`, `substack`, `@include`) in /etc/pam.d, after a
 * stat() of that directory. While pam_wrapper is enabled those paths name
 * the service directory instead, so that includes work as with upstream's
 * pam_wrapper (whose copy of libpam says its own directory there) and
 * nothing of the system's configuration is read. No state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pwrap.h"

#define PWRAP_PAMD "/etc/pam.d"
#define PWRAP_PAMD_LEN (sizeof(PWRAP_PAMD) - 1)

const char *pwrap_pamd_path(const char *path, char *buf, size_t cap)
{
	const char *dir;
	int n;

	if (path == NULL || strncmp(path, PWRAP_PAMD, PWRAP_PAMD_LEN) != 0 ||
	    (path[PWRAP_PAMD_LEN] != '\0' && path[PWRAP_PAMD_LEN] != '/')) {
		return path;
	}
	dir = getenv("PAM_WRAPPER_SERVICE_DIR");
	if (dir == NULL || *dir == '\0') {
		return path;
	}
	n = snprintf(buf, cap, "%s%s", dir, path + PWRAP_PAMD_LEN);
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	CWRAP_DEBUG("%s read as %s (PAM_WRAPPER_SERVICE_DIR)", path, buf);
	return buf;
}
