/*
 * nss_wrapper: library identity, the public functions of the contract and
 * the fork handlers. No state of its own: the configuration is read by
 * nwrap_config(), each layer keeps its locks and their fork hooks, and the
 * handlers here (registered by the constructor, which does nothing else)
 * call them in the locks' order: the configuration's, then the caches'
 * before a fork; in the child, the locks of results and enumerations that
 * threads which do not exist there may have held are made afresh.
 */
#include <pthread.h>
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

static void nwrap_atfork_prepare(void)
{
	nwrap_config_atfork_prepare();
	nwrap_cache_atfork_prepare();
}

static void nwrap_atfork_parent(void)
{
	nwrap_cache_atfork_parent();
	nwrap_config_atfork_parent();
}

static void nwrap_atfork_child(void)
{
	nwrap_cache_atfork_child();
	nwrap_pwd_atfork_child();
	nwrap_grp_atfork_child();
	nwrap_shadow_atfork_child();
	nwrap_hosts_atfork_child();
	nwrap_config_atfork_child();
}

__attribute__((constructor)) static void nwrap_atfork_register(void)
{
	pthread_atfork(nwrap_atfork_prepare, nwrap_atfork_parent,
		       nwrap_atfork_child);
}
