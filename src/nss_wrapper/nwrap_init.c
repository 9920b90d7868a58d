/*
 * nss_wrapper: library identity and the public functions of the contract.
 * No state of its own: the configuration is read once by nwrap_config().
 */
#include <stdbool.h>

#include "cwrap_compiler.h"
#include "cwrap_lib.h"
#include "nwrap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "nss_wrapper",
    .log_prefix = "NWRAP",
    .env_prefix = "NSS_WRAPPER",
};

CWRAP_EXPORT bool nss_wrapper_enabled(void);
CWRAP_EXPORT bool nss_wrapper_hosts_enabled(void);
CWRAP_EXPORT bool nss_wrapper_shadow_enabled(void);

/* Users and groups are wrapped: NSS_WRAPPER_PASSWD and NSS_WRAPPER_GROUP,
 * or a module that could be loaded. */
CWRAP_EXPORT bool nss_wrapper_enabled(void)
{
	return nwrap_config()->pwgr_enabled;
}

CWRAP_EXPORT bool nss_wrapper_hosts_enabled(void)
{
	return nwrap_config()->hosts_enabled;
}

CWRAP_EXPORT bool nss_wrapper_shadow_enabled(void)
{
	return nwrap_config()->shadow_enabled;
}
