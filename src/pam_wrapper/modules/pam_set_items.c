/*
 * pam_set_items: a PAM test module that sets the PAM items from the
 * process environment: every hook sets each item whose constant name is
 * a variable of the environment (PAM_AUTHTOK=secret sets PAM_AUTHTOK;
 * see pitems.h) to that variable's value, then succeeds. Options: none.
 * No state.
 */
#include <stdlib.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "pitems.h"

static int pitems_set(pam_handle_t *ph, int flags, int argc, const char **argv)
{
	(void)flags;
	for (int i = 0; i < argc; i++) {
		pam_syslog(ph, LOG_ERR, "unknown option '%s' (none known)",
			   argv[i]);
	}
	for (size_t i = 0; i < PITEMS_COUNT; i++) {
		const char *v = getenv(pitems[i].name);
		int rc;

		if (v == NULL) {
			continue;
		}
		rc = pam_set_item(ph, pitems[i].item, v);
		if (rc != PAM_SUCCESS) {
			return rc;
		}
	}
	return PAM_SUCCESS;
}

PITEMS_HOOKS(pitems_set)
