/*
 * Configuration: the NSS_WRAPPER_* variables, read on the first wrapped
 * call (never in a constructor) and again whenever the environment changed
 * (cwrap_env_gen()), so a program that setenv()s NSS_WRAPPER_PASSWD or
 * NSS_WRAPPER_HOSTNAME between two lookups gets the new value on the next.
 *
 * Each reading is an immutable struct nwrap_config. The current one and the
 * environment generation it was checked against are two atomics: a call
 * whose generation matches takes the pointer without a lock. Otherwise the
 * variables are read again under nwrap_cfg_lock; a reading equal to one
 * made before reuses it (so setenv("TZ") in a loop allocates nothing), a
 * new one is made and kept. Readings are never freed: a lookup in flight
 * may still use the one it started with. A module named by the variables
 * is loaded when its reading is made (nwrap_module.c keeps one load per
 * path and prefix). nwrap_cfg_lock's fork hooks live here; nwrap_init.c
 * registers the library's fork handlers, which call every layer's.
 */
#include "nwrap_backend.h"
#include "cwrap_env.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct nwrap_config *nwrap_cfg_cur;
static unsigned long nwrap_cfg_gen; /* 0: not read yet */
static struct nwrap_config *nwrap_cfg_all;
static pthread_mutex_t nwrap_cfg_lock = PTHREAD_MUTEX_INITIALIZER;
/* set while this thread builds a reading (a module's constructor may call
 * a wrapped function): it gets the previous reading */
static __thread bool nwrap_cfg_busy __attribute__((tls_model("initial-exec")));
static const struct nwrap_config nwrap_cfg_none;

/* Fork (nwrap_init.c calls these first in prepare, last after): the
 * configuration lock, which a thread building a reading may hold. */
void nwrap_config_atfork_prepare(void)
{
	nwrap_mutex_lock(&nwrap_cfg_lock);
}

void nwrap_config_atfork_parent(void)
{
	nwrap_mutex_unlock(&nwrap_cfg_lock);
}

void nwrap_config_atfork_child(void)
{
	pthread_mutex_init(&nwrap_cfg_lock, NULL);
}

/* The value, or NULL when unset or empty. */
static const char *nwrap_var(const char *var)
{
	const char *s = getenv(var);

	return s == NULL || *s == '\0' ? NULL : s;
}

static bool nwrap_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool nwrap_cfg_equal(const struct nwrap_config *a,
			    const struct nwrap_config *b)
{
	return nwrap_same(a->passwd, b->passwd) &&
	       nwrap_same(a->group, b->group) &&
	       nwrap_same(a->shadow, b->shadow) &&
	       nwrap_same(a->hosts, b->hosts) &&
	       nwrap_same(a->hostname, b->hostname) &&
	       nwrap_same(a->module_path, b->module_path) &&
	       nwrap_same(a->module_prefix, b->module_prefix) &&
	       a->hosts_only == b->hosts_only;
}

static char *nwrap_dup(const char *s, bool *fail)
{
	char *d;

	if (s == NULL) {
		return NULL;
	}
	d = strdup(s);
	*fail |= d == NULL;
	return d;
}

/* A new reading from the values in `v` (borrowed from the environment),
 * reporting what is wrong with them; NULL when out of memory. */
static struct nwrap_config *nwrap_cfg_make(const struct nwrap_config *v)
{
	struct nwrap_config *c = calloc(1, sizeof(*c));
	bool fail = false;

	if (c == NULL) {
		return NULL;
	}
	c->passwd = nwrap_dup(v->passwd, &fail);
	c->group = nwrap_dup(v->group, &fail);
	c->shadow = nwrap_dup(v->shadow, &fail);
	c->hosts = nwrap_dup(v->hosts, &fail);
	c->hostname = nwrap_dup(v->hostname, &fail);
	c->module_path = nwrap_dup(v->module_path, &fail);
	c->module_prefix = nwrap_dup(v->module_prefix, &fail);
	c->hosts_only = v->hosts_only;
	if (fail) {
		free((void *)c->passwd);
		free((void *)c->group);
		free((void *)c->shadow);
		free((void *)c->hosts);
		free((void *)c->hostname);
		free((void *)c->module_path);
		free((void *)c->module_prefix);
		free(c);
		return NULL;
	}

	/* accepted for compatibility: a hint, never a limit */
	(void)cwrap_env_long("NSS_WRAPPER_MAX_HOSTENTS", 100, 1, LONG_MAX);

	/* The files and the module: which backends answer, and in what
	 * order, is nwrap_backend.c's. */
	c->files_enabled = c->passwd != NULL && c->group != NULL;
	if (c->files_enabled) {
		c->file[NWRAP_PASSWD] = c->passwd;
		c->file[NWRAP_GROUP] = c->group;
	} else if (c->passwd != NULL || c->group != NULL) {
		CWRAP_ERROR(
		    "NSS_WRAPPER_PASSWD and NSS_WRAPPER_GROUP must both "
		    "be set; users and groups come from the system");
	}
	if (c->module_path != NULL && c->module_prefix != NULL) {
		c->module = nwrap_module_load(c->module_path, c->module_prefix);
		c->module_enabled = c->module != NULL;
	} else if (c->module_path != NULL || c->module_prefix != NULL) {
		CWRAP_ERROR("NSS_WRAPPER_MODULE_SO_PATH and "
			    "NSS_WRAPPER_MODULE_FN_PREFIX must both be set; "
			    "no module loaded");
	}
	c->pwgr_enabled = c->files_enabled || c->module_enabled;
	c->shadow_enabled = c->shadow != NULL;
	c->file[NWRAP_SHADOW] = c->shadow;
	c->hosts_enabled = c->hosts != NULL;
	c->file[NWRAP_HOSTS] = c->hosts;
	c->file[NWRAP_SERVICES] = c->hosts_enabled ? NWRAP_SERVICES_FILE : NULL;
	c->hostname_enabled = c->hostname != NULL;
	if (c->hostname != NULL) {
		c->hostname_len = strlen(c->hostname);
		if (c->hostname_len > NWRAP_HOST_NAME_MAX) {
			CWRAP_ERROR(
			    "NSS_WRAPPER_HOSTNAME is %zu bytes long, "
			    "more than HOST_NAME_MAX (%d): gethostname() "
			    "fails with ENAMETOOLONG for buffers that "
			    "cannot hold it, uname() gives its first %d",
			    c->hostname_len, NWRAP_HOST_NAME_MAX,
			    NWRAP_HOST_NAME_MAX);
		}
	}
	return c;
}

static const struct nwrap_config *nwrap_config_slow(unsigned long gen)
{
	struct nwrap_config v = {0}, *c;
	const char *only;

	if (nwrap_cfg_busy) {
		c = __atomic_load_n(&nwrap_cfg_cur, __ATOMIC_ACQUIRE);
		return c != NULL ? c : &nwrap_cfg_none;
	}
	nwrap_mutex_lock(&nwrap_cfg_lock);
	if (__atomic_load_n(&nwrap_cfg_gen, __ATOMIC_ACQUIRE) == gen) {
		c = nwrap_cfg_cur;
		goto out;
	}
	v.passwd = nwrap_var("NSS_WRAPPER_PASSWD");
	v.group = nwrap_var("NSS_WRAPPER_GROUP");
	v.shadow = nwrap_var("NSS_WRAPPER_SHADOW");
	v.hosts = nwrap_var("NSS_WRAPPER_HOSTS");
	v.hostname = nwrap_var("NSS_WRAPPER_HOSTNAME");
	v.module_path = nwrap_var("NSS_WRAPPER_MODULE_SO_PATH");
	v.module_prefix = nwrap_var("NSS_WRAPPER_MODULE_FN_PREFIX");
	only = nwrap_var("NSS_WRAPPER_HOSTS_ONLY");
	v.hosts_only = only != NULL && strcmp(only, "1") == 0;
	if (only != NULL && !v.hosts_only && strcmp(only, "0") != 0) {
		CWRAP_ERROR(
		    "NSS_WRAPPER_HOSTS_ONLY='%s' is not 0 or 1, using 0", only);
	}
	for (c = nwrap_cfg_all; c != NULL; c = c->next) {
		if (nwrap_cfg_equal(c, &v)) {
			break;
		}
	}
	if (c == NULL) {
		nwrap_cfg_busy = true;
		c = nwrap_cfg_make(&v);
		nwrap_cfg_busy = false;
		if (c == NULL) {
			/* out of memory: keep what we had, read again next time
			 */
			c = nwrap_cfg_cur != NULL
				? nwrap_cfg_cur
				: (struct nwrap_config *)&nwrap_cfg_none;
			nwrap_mutex_unlock(&nwrap_cfg_lock);
			return c;
		}
		c->next = nwrap_cfg_all;
		nwrap_cfg_all = c;
	}
	__atomic_store_n(&nwrap_cfg_cur, c, __ATOMIC_RELEASE);
	__atomic_store_n(&nwrap_cfg_gen, gen, __ATOMIC_RELEASE);
out:
	nwrap_mutex_unlock(&nwrap_cfg_lock);
	return c;
}

const struct nwrap_config *nwrap_config(void)
{
	unsigned long gen = cwrap_env_gen();

	if (cwrap_likely(__atomic_load_n(&nwrap_cfg_gen, __ATOMIC_ACQUIRE) ==
			 gen)) {
		return __atomic_load_n(&nwrap_cfg_cur, __ATOMIC_ACQUIRE);
	}
	return nwrap_config_slow(gen);
}
