/*
 * socket_wrapper configuration: the SOCKET_WRAPPER_* variables, read once
 * on the first call that needs them (pthread_once, never in a
 * constructor), the global state lock and the fork handlers that keep it
 * consistent in a child.
 *
 * `conf` is written only inside the once routine (or by the test-only
 * reload) and read without lock afterwards. swrap_lock() guards record
 * state and the free list (swrap_fdtab.c); the fork handlers take it before
 * fork and release it in both processes, so a fork while another thread
 * is inside the wrapper never leaves the child with a held lock.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"
#include "cwrap_log.h"
#include "swrap.h"

const struct cwrap_lib cwrap_lib = {
	.name = "socket_wrapper",
	.log_prefix = "SWRAP",
	.env_prefix = "SOCKET_WRAPPER",
};

static struct swrap_conf conf;
static pthread_once_t conf_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t my_pid; /* atomic: 0 until first asked */

void swrap_lock(void)
{
	if (pthread_mutex_lock(&state_lock) != 0) {
		CWRAP_FATAL("pthread_mutex_lock failed");
	}
}

void swrap_unlock(void)
{
	if (pthread_mutex_unlock(&state_lock) != 0) {
		CWRAP_FATAL("pthread_mutex_unlock failed");
	}
}

static void atfork_prepare(void)
{
	swrap_lock();
}

static void atfork_parent(void)
{
	swrap_unlock();
}

static void atfork_child(void)
{
	__atomic_store_n(&my_pid, getpid(), __ATOMIC_RELAXED);
	swrap_unlock();
}

pid_t swrap_pid(void)
{
	pid_t p = __atomic_load_n(&my_pid, __ATOMIC_RELAXED);

	if (p == 0) {
		(void)swrap_conf(); /* the fork handler is registered */
		p = getpid();
		__atomic_store_n(&my_pid, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* The directory: resolved with realpath, usable, and short enough that
 * "$DIR/T0A0007" fits in sun_path. False (after one line) otherwise. */
static bool conf_dir(struct swrap_conf *c)
{
	const char *var = "SOCKET_WRAPPER_DIR";
	const char *val = getenv(var);
	const size_t room = sizeof(c->dir) - sizeof("/T0A0007");
	char *real;

	if (val == NULL || *val == '\0') {
		return false;
	}
	real = realpath(val, NULL);
	if (real == NULL) {
		CWRAP_ERROR("%s='%s': %s; socket_wrapper disabled", var, val,
			    strerror(errno));
		return false;
	}
	if (access(real, W_OK | X_OK) != 0) {
		CWRAP_ERROR("%s='%s': not a writable directory (%s); "
			    "socket_wrapper disabled",
			    var, val, strerror(errno));
		free(real);
		return false;
	}
	if (strlen(real) <= room) {
		strcpy(c->dir, real);
	} else if (cwrap_env_true("SOCKET_WRAPPER_DIR_ALLOW_ORIG") &&
		   strlen(val) <= room) {
		CWRAP_WARN("%s: resolved path '%s' is too long for a unix "
			   "socket name, using '%s' as given "
			   "(SOCKET_WRAPPER_DIR_ALLOW_ORIG)",
			   var, real, val);
		strcpy(c->dir, val);
	} else {
		CWRAP_ERROR("%s='%s': resolved path '%s' is longer than %zu "
			    "bytes, too long for a unix socket name; "
			    "socket_wrapper disabled",
			    var, val, real, room);
		free(real);
		return false;
	}
	free(real);
	/* Strip a trailing slash kept by the unresolved spelling. */
	c->dir_len = strlen(c->dir);
	while (c->dir_len > 1 && c->dir[c->dir_len - 1] == '/') {
		c->dir[--c->dir_len] = '\0';
	}
	return true;
}

static void conf_load(void)
{
	struct swrap_conf c;
	const char *net;

	memset(&c, 0, sizeof(c));
	c.default_iface = (unsigned)cwrap_env_long(
		"SOCKET_WRAPPER_DEFAULT_IFACE", 1, 1, SWRAP_IFACE_MAX);
	c.ipv4_net = 0x7f000000u;
	c.ipv4_bcast = 0x7fffffffu;
	net = getenv("SOCKET_WRAPPER_IPV4_NETWORK");
	if (net != NULL && *net != '\0' && strcmp(net, "127.0.0.0") != 0) {
		if (strcmp(net, "10.53.57.0") == 0) {
			c.ipv4_net = 0x0a353900u;
			c.ipv4_bcast = 0x0affffffu;
		} else {
			CWRAP_ERROR("SOCKET_WRAPPER_IPV4_NETWORK='%s' is neither "
				    "127.0.0.0 nor 10.53.57.0, using 127.0.0.0",
				    net);
		}
	}
	c.max_sockets =
		cwrap_env_long("SOCKET_WRAPPER_MAX_SOCKETS", 65535, 1, 256000);
	c.mtu = cwrap_env_long("SOCKET_WRAPPER_MTU", 1500, 512, 32768);
	c.enabled = conf_dir(&c);
	conf = c;
}

static void conf_once_fn(void)
{
	if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child) != 0) {
		CWRAP_FATAL("pthread_atfork failed");
	}
	conf_load();
}

const struct swrap_conf *swrap_conf(void)
{
	if (pthread_once(&conf_once, conf_once_fn) != 0) {
		CWRAP_FATAL("pthread_once failed");
	}
	return &conf;
}

bool swrap_enabled(void)
{
	return swrap_conf()->enabled;
}

void swrap_conf_reload(void)
{
	(void)swrap_conf();
	conf_load();
}
