/*
 * A module with one function only (_nss_cwraphalf_getpwnam_r, answering
 * "half"), to check that nss_wrapper names the functions a module lacks
 * and still uses the one it has. No state.
 */
#include <errno.h>
#include "cwrap_platform.h" /* enum nss_status */
#include <pwd.h>
#include <string.h>

__attribute__((visibility("default"))) enum nss_status
_nss_cwraphalf_getpwnam_r(const char *name, struct passwd *pw, char *buf,
			  size_t len, int *err);

enum nss_status _nss_cwraphalf_getpwnam_r(const char *name, struct passwd *pw,
					  char *buf, size_t len, int *err)
{
	static const char str[] = "half\0x\0Half\0/\0/bin/sh";

	if (strcmp(name, "half") != 0) {
		return NSS_STATUS_NOTFOUND;
	}
	if (len < sizeof(str)) {
		*err = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	memcpy(buf, str, sizeof(str));
	pw->pw_name = buf;
	pw->pw_passwd = buf + 5;
	pw->pw_gecos = buf + 7;
	pw->pw_dir = buf + 12;
	pw->pw_shell = buf + 14;
	pw->pw_uid = 4242;
	pw->pw_gid = 4242;
	return NSS_STATUS_SUCCESS;
}
