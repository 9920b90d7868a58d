/*
 * socket_wrapper configuration: the SOCKET_WRAPPER_* variables, read once
 * on the first call that needs them (pthread_once, never in a
 * constructor), the global state lock and the fork handlers that keep it
 * consistent in a child.
 *
 * `conf` is written once under conf_mutex (or by the test-only reload)
 * and read without lock after `conf_ready` is set. swrap_lock() guards
 * record state and the free list (swrap_fdtab.c). The fork handlers,
 * registered by a constructor (nothing else happens there), take both
 * locks before fork and release them in both processes, so a fork while
 * another thread is inside the wrapper, even in the middle of the first
 * initialisation, never leaves the child with a held lock. (pthread_once
 * is not used for this reason: a fork during the once routine leaves it
 * "in progress" forever in the child under some runtimes, TSan's.)
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
static bool conf_ready; /* atomic */
static pthread_mutex_t conf_mutex = PTHREAD_MUTEX_INITIALIZER;
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
	pthread_mutex_lock(&conf_mutex);
	swrap_lock();
}

static void atfork_parent(void)
{
	swrap_unlock();
	pthread_mutex_unlock(&conf_mutex);
}

static void atfork_child(void)
{
	__atomic_store_n(&my_pid, getpid(), __ATOMIC_RELAXED);
	swrap_unlock();
	pthread_mutex_unlock(&conf_mutex);
}

__attribute__((constructor)) static void swrap_register_fork_handlers(void)
{
	if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child) != 0) {
		CWRAP_FATAL("pthread_atfork failed");
	}
}

pid_t swrap_pid(void)
{
	pid_t p = __atomic_load_n(&my_pid, __ATOMIC_RELAXED);

	if (p == 0) {
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
			CWRAP_ERROR(
			    "SOCKET_WRAPPER_IPV4_NETWORK='%s' is neither "
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

const struct swrap_conf *swrap_conf(void)
{
	if (cwrap_likely(__atomic_load_n(&conf_ready, __ATOMIC_ACQUIRE))) {
		return &conf;
	}
	pthread_mutex_lock(&conf_mutex);
	if (!conf_ready) {
		conf_load();
		__atomic_store_n(&conf_ready, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&conf_mutex);
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
