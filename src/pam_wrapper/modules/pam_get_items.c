/*
 * pam_get_items: a PAM test module that makes the PAM items visible to
 * the application. Every hook puts each item that is set into the PAM
 * environment under the item's constant name (PAM_USER=alice,
 * PAM_AUTHTOK=secret, ...; see pitems.h), where pam_getenv() and
 * pam_getenvlist() read it, then succeeds. Options: none. No state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "pitems.h"

static int pitems_get(pam_handle_t *ph, int flags, int argc, const char **argv)
{
	(void)flags;
	for (int i = 0; i < argc; i++) {
		pam_syslog(ph, LOG_ERR, "unknown option '%s' (none known)",
			   argv[i]);
	}
	for (size_t i = 0; i < PITEMS_COUNT; i++) {
		const void *v = NULL;
		char *s;
		int rc;

		if (pam_get_item(ph, pitems[i].item, &v) != PAM_SUCCESS ||
		    v == NULL) {
			continue;
		}
		if (asprintf(&s, "%s=%s", pitems[i].name, (const char *)v) <
		    0) {
			return PAM_BUF_ERR;
		}
		rc = pam_putenv(ph, s);
		free(s);
		if (rc != PAM_SUCCESS) {
			return rc;
		}
	}
	return PAM_SUCCESS;
}

PITEMS_HOOKS(pitems_get)
