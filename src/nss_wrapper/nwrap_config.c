/*
 * Configuration: the NSS_WRAPPER_* variables, read once under
 * pthread_once on the first wrapped call (never in a constructor), then
 * only read. Also the list of backends (module first, then files) and the
 * fork handlers, registered from the same once-routine.
 */
#include "nwrap_backend.h"
#include "cwrap_env.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct nwrap_config nwrap_cfg;
static const struct nwrap_backend *nwrap_backend_list[2];
static size_t nwrap_backend_count;
static pthread_once_t nwrap_cfg_once = PTHREAD_ONCE_INIT;

static void nwrap_atfork_prepare(void)
{
	nwrap_cache_atfork_prepare();
}

static void nwrap_atfork_parent(void)
{
	nwrap_cache_atfork_parent();
}

/* The other locks (non-reentrant results, enumerations) may have been held
 * by threads that do not exist in the child. */
static void nwrap_atfork_child(void)
{
	nwrap_cache_atfork_child();
	nwrap_pwd_atfork_child();
	nwrap_grp_atfork_child();
	nwrap_shadow_atfork_child();
	nwrap_hosts_atfork_child();
}

/* A copy of the variable, or NULL when it is unset or empty. */
static const char *nwrap_getenv(const char *var)
{
	const char *s = getenv(var);

	if (s == NULL || *s == '\0') {
		return NULL;
	}
	return strdup(s);
}

static void nwrap_config_init(void)
{
	struct nwrap_config *c = &nwrap_cfg;

	c->passwd = nwrap_getenv("NSS_WRAPPER_PASSWD");
	c->group = nwrap_getenv("NSS_WRAPPER_GROUP");
	c->shadow = nwrap_getenv("NSS_WRAPPER_SHADOW");
	c->hosts = nwrap_getenv("NSS_WRAPPER_HOSTS");
	c->hostname = nwrap_getenv("NSS_WRAPPER_HOSTNAME");
	c->module_path = nwrap_getenv("NSS_WRAPPER_MODULE_SO_PATH");
	c->module_prefix = nwrap_getenv("NSS_WRAPPER_MODULE_FN_PREFIX");

	/* accepted for compatibility: a hint, never a limit */
	(void)cwrap_env_long("NSS_WRAPPER_MAX_HOSTENTS", 100, 1, LONG_MAX);

	c->files_enabled = c->passwd != NULL && c->group != NULL;
	if (c->module_path != NULL && c->module_prefix != NULL) {
		const struct nwrap_backend *m =
		    nwrap_module_load(c->module_path, c->module_prefix);

		if (m != NULL) {
			nwrap_backend_list[nwrap_backend_count++] = m;
			c->module_enabled = true;
		}
	} else if (c->module_path != NULL || c->module_prefix != NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH and "
			    "NSS_WRAPPER_MODULE_FN_PREFIX must both be set; "
			    "no module loaded");
	}
	if (c->files_enabled) {
		nwrap_cache_passwd.path = c->passwd;
		nwrap_cache_group.path = c->group;
		nwrap_backend_list[nwrap_backend_count++] =
		    &nwrap_files_backend;
	} else if (c->passwd != NULL || c->group != NULL) {
		CWRAP_ERROR(
		    "NSS_WRAPPER_PASSWD and NSS_WRAPPER_GROUP must both "
		    "be set; users and groups come from the system");
	}
	c->pwgr_enabled = nwrap_backend_count > 0;
	c->shadow_enabled = c->shadow != NULL;
	nwrap_cache_shadow.path = c->shadow;
	c->hosts_enabled = c->hosts != NULL;
	nwrap_cache_hosts.path = c->hosts;
	c->hostname_enabled = c->hostname != NULL;

	pthread_atfork(nwrap_atfork_prepare, nwrap_atfork_parent,
		       nwrap_atfork_child);
}

const struct nwrap_config *nwrap_config(void)
{
	pthread_once(&nwrap_cfg_once, nwrap_config_init);
	return &nwrap_cfg;
}

const struct nwrap_backend *const *nwrap_backends(size_t *n)
{
	nwrap_config();
	*n = nwrap_backend_count;
	return nwrap_backend_list;
}

int nwrap_gids_add(struct nwrap_gids *g, gid_t gid)
{
	for (long i = 0; i < g->n; i++) {
		if (g->v[i] == gid) {
			return 0;
		}
	}
	if (g->n == g->cap) {
		long cap = g->cap > 0 ? g->cap * 2 : 16;
		gid_t *v = realloc(g->v, (size_t)cap * sizeof(gid_t));

		if (v == NULL) {
			return ENOMEM;
		}
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = gid;
	return 0;
}
