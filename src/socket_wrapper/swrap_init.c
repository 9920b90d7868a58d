/*
 * socket_wrapper configuration: the SOCKET_WRAPPER_* variables, the global
 * state lock and the fork handlers that keep it consistent in a child.
 *
 * Variables are read when they are used: test suites setenv() a fresh
 * SOCKET_WRAPPER_DIR (and interface) between two tests of one process. A
 * configuration is an immutable snapshot (struct swrap_conf), published
 * through `conf_cur` together with the environment generation it was read
 * at (`conf_gen`, cwrap_env.h); swrap_conf() compares that generation with
 * the current one (a few atomic loads) and, when the environment moved,
 * reads the variables again under conf_mutex. If their values are the
 * ones already parsed, the snapshot is kept and nothing is printed again;
 * otherwise a new snapshot is published. Snapshots are never freed (they
 * stay on `conf_all`): a socket record points to the one it was made
 * under, and a thread may still be reading an older one. Nothing happens
 * in a constructor but registering the fork handlers.
 *
 * swrap_lock() guards record state and the free list (swrap_fdtab.c). The
 * fork handlers take conf_mutex and the state lock before fork and release
 * them in both processes, so a fork while another thread is inside the
 * wrapper, even while it reads the environment, never leaves the child
 * with a held lock. (pthread_once is not used for this reason: a fork
 * during the once routine leaves it "in progress" forever in the child
 * under some runtimes, TSan's.)
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
#include "capture/swrap_pcap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "socket_wrapper",
    .log_prefix = "SWRAP",
    .env_prefix = "SOCKET_WRAPPER",
};

/* A published snapshot and the raw values it was parsed from. */
struct conf_snap {
	struct swrap_conf conf; /* first: &snap->conf == (void *)snap */
	char *raw[7];		/* conf_vars[i] as read, NULL if unset */
	bool dir_missing;	/* SOCKET_WRAPPER_DIR did not resolve */
	struct conf_snap *older;
};

static const char *const conf_vars[7] = {
    "SOCKET_WRAPPER_DIR",	    "SOCKET_WRAPPER_DIR_ALLOW_ORIG",
    "SOCKET_WRAPPER_DEFAULT_IFACE", "SOCKET_WRAPPER_IPV4_NETWORK",
    "SOCKET_WRAPPER_MAX_SOCKETS",   "SOCKET_WRAPPER_MTU",
    "SOCKET_WRAPPER_PCAP_FILE",
};

static struct conf_snap *conf_cur; /* atomic; NULL until first read */
static unsigned long conf_gen;	   /* atomic; generation of conf_cur */
static struct conf_snap *conf_all; /* conf_mutex: every snapshot */
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

/* Forks made by this process and its ancestors (each one counts in both
 * the parent and the child). */
static unsigned fork_gen;

static void atfork_prepare(void)
{
	pthread_mutex_lock(&conf_mutex);
	swrap_lock();
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
}

unsigned swrap_fork_gen(void)
{
	return __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
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
static bool conf_dir(struct swrap_conf *c, const char *val,
		     const char *allow_orig)
{
	const char *var = "SOCKET_WRAPPER_DIR";
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
	} else if (allow_orig != NULL && *allow_orig != '\0' &&
		   strcmp(allow_orig, "0") != 0 && strlen(val) <= room) {
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

/* A number variable (raw value `val`): unset or empty gives `dflt`
 * silently, a bad value one line and `dflt`. */
static long conf_long(const char *var, const char *val, long dflt, long min,
		      long max)
{
	long v;

	if (val == NULL || *val == '\0') {
		return dflt;
	}
	if (!cwrap_parse_long(val, min, max, &v)) {
		CWRAP_ERROR("%s='%s' is not a number in %ld..%ld, using %ld",
			    var, val, min, max, dflt);
		v = dflt;
	}
	return v;
}

/* Under conf_mutex: an earlier snapshot that resolved the same relative
 * SOCKET_WRAPPER_DIR (with the same ALLOW_ORIG), or NULL. A relative
 * directory is resolved where the program was when it first used it: a
 * daemon that chdir("/")s and then changes another variable keeps its
 * sockets where they were. */
static const struct conf_snap *conf_resolved_before(char *const raw[])
{
	if (raw[0] == NULL || raw[0][0] == '/' || raw[0][0] == '\0') {
		return NULL;
	}
	for (const struct conf_snap *p = conf_all; p != NULL; p = p->older) {
		if (p->conf.enabled && p->raw[0] != NULL &&
		    strcmp(p->raw[0], raw[0]) == 0 &&
		    (p->raw[1] == NULL) == (raw[1] == NULL) &&
		    (raw[1] == NULL || strcmp(p->raw[1], raw[1]) == 0)) {
			return p;
		}
	}
	return NULL;
}

void swrap_conf_parse(struct swrap_conf *c, char *const raw[])
{
	const struct conf_snap *before = conf_resolved_before(raw);
	const char *net = raw[3];

	memset(c, 0, sizeof(*c));
	c->default_iface =
	    (unsigned)conf_long(conf_vars[2], raw[2], 1, 1, SWRAP_IFACE_MAX);
	c->ipv4_net = 0x7f000000u;
	c->ipv4_bcast = 0x7fffffffu;
	if (net != NULL && *net != '\0' && strcmp(net, "127.0.0.0") != 0) {
		if (strcmp(net, "10.53.57.0") == 0) {
			c->ipv4_net = 0x0a353900u;
			c->ipv4_bcast = 0x0affffffu;
		} else {
			CWRAP_ERROR(
			    "SOCKET_WRAPPER_IPV4_NETWORK='%s' is neither "
			    "127.0.0.0 nor 10.53.57.0, using 127.0.0.0",
			    net);
		}
	}
	c->max_sockets = conf_long(conf_vars[4], raw[4], 65535, 1, 256000);
	c->mtu = conf_long(conf_vars[5], raw[5], 1500, 512, 32768);
	c->pcap_file = raw[6] != NULL && *raw[6] != '\0' ? raw[6] : NULL;
	if (before != NULL) {
		memcpy(c->dir, before->conf.dir, sizeof(c->dir));
		c->dir_len = before->conf.dir_len;
		c->enabled = true;
		return;
	}
	c->enabled = conf_dir(c, raw[0], raw[1]);
}

static bool same_raw(char *const a[], const char *const b[])
{
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(conf_vars); i++) {
		if ((a[i] == NULL) != (b[i] == NULL) ||
		    (a[i] != NULL && strcmp(a[i], b[i]) != 0)) {
			return false;
		}
	}
	return true;
}

/* A snapshot stands for the same raw values again, unless its directory
 * was missing or unwritable and is usable by now. */
static bool reusable(const struct conf_snap *p, const char *const now[])
{
	return same_raw(p->raw, now) &&
	       (!p->dir_missing || access(p->raw[0], W_OK | X_OK) != 0);
}

static void snap_free(struct conf_snap *n)
{
	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(conf_vars); i++) {
		free(n->raw[i]);
	}
	free(n);
}

/* Used when memory runs out before any configuration was read. */
static struct conf_snap conf_oom = {
    .conf = {.default_iface = 1,
	     .ipv4_net = 0x7f000000u,
	     .ipv4_bcast = 0x7fffffffu,
	     .max_sockets = 65535,
	     .mtu = 1500},
};

/* Under conf_mutex: the snapshot for the environment as it is now. */
static struct conf_snap *conf_read(struct conf_snap *cur)
{
	const char *now[CWRAP_ARRAY_SIZE(conf_vars)];
	struct conf_snap *n, *p;
	int saved_errno = errno;
	bool oom = false;

	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(conf_vars); i++) {
		now[i] = getenv(conf_vars[i]);
	}
	/* Another variable changed, or the program went back to values it
	 * used before (a suite alternating two directories): nothing to
	 * parse, nothing printed again. */
	if (cur != NULL && reusable(cur, now)) {
		return cur;
	}
	for (p = conf_all; p != NULL; p = p->older) {
		if (reusable(p, now)) {
			return p;
		}
	}
	n = calloc(1, sizeof(*n));
	oom = n == NULL;
	for (size_t i = 0; !oom && i < CWRAP_ARRAY_SIZE(conf_vars); i++) {
		oom = now[i] != NULL && (n->raw[i] = strdup(now[i])) == NULL;
	}
	if (oom) {
		CWRAP_ERROR("out of memory reading SOCKET_WRAPPER_*; keeping "
			    "the previous configuration");
		if (n != NULL) {
			snap_free(n);
		}
		errno = saved_errno;
		return cur != NULL ? cur : &conf_oom;
	}
	swrap_conf_parse(&n->conf, n->raw);
	n->dir_missing = !n->conf.enabled && n->raw[0] != NULL &&
			 *n->raw[0] != '\0' &&
			 access(n->raw[0], W_OK | X_OK) != 0;
	errno = saved_errno;
	n->older = conf_all;
	conf_all = n;
	return n;
}

const struct swrap_conf *swrap_conf(void)
{
	unsigned long gen = cwrap_env_gen();
	struct conf_snap *c;

	if (cwrap_likely(__atomic_load_n(&conf_gen, __ATOMIC_ACQUIRE) == gen)) {
		return &__atomic_load_n(&conf_cur, __ATOMIC_ACQUIRE)->conf;
	}
	pthread_mutex_lock(&conf_mutex);
	gen = cwrap_env_gen();
	c = conf_cur;
	if (conf_gen != gen || c == NULL) {
		c = conf_read(c);
		__atomic_store_n(&conf_cur, c, __ATOMIC_RELEASE);
		__atomic_store_n(&conf_gen, gen, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&conf_mutex);
	return &c->conf;
}

bool swrap_pcap_enabled(void)
{
	struct conf_snap *s = __atomic_load_n(&conf_cur, __ATOMIC_ACQUIRE);
	const struct swrap_conf *c =
	    cwrap_likely(s != NULL) ? &s->conf : swrap_conf();

	return swrap_pcap_follow(c, c->pcap_file, c->mtu);
}

bool swrap_enabled(void)
{
	return swrap_conf()->enabled;
}
