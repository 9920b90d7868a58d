/*
 * uid_wrapper: library identity, the enable switch and the constructor.
 *
 * UID_WRAPPER (exactly "1" enables) is read when it is used, like every
 * wrapper variable: the switch word keeps the answer with the
 * cwrap_env_gen() it was read at, so an entry point tests it with two
 * loads and a compare, and reads the environment again only after it
 * changed. The first reading (the constructor's, or the first wrapped call
 * if another library's constructor calls one earlier) also imports what an
 * exec handed over (UID_WRAPPER_INITIAL_*); the constructor only reads the
 * environment: no dlsym, no syscall. The ids themselves are set up on
 * first use (uwrap_threads.c). When UID_WRAPPER is enabled again after it
 * was off, or UID_WRAPPER_ROOT changed while it is on, the ids start over
 * as in a process started now (root, or the real ids): a cmocka suite
 * that sets them in a test's setup gets a fresh identity in each test.
 */
#include <pthread.h>
#include <stdlib.h>

#include "cwrap_lib.h"
#include "cwrap_log.h"
#include "uwrap.h"

static void uwrap_env_changed(void);

const struct cwrap_lib cwrap_lib = {
    .name = "uid_wrapper",
    .log_prefix = "UWRAP",
    .env_prefix = "UID_WRAPPER",
    .env_changed = uwrap_env_changed,
};

unsigned long uwrap_switch;

static pthread_once_t uwrap_boot_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t uwrap_switch_lock = PTHREAD_MUTEX_INITIALIZER;
static bool uwrap_on;	/* what the switch word says */
static bool uwrap_root; /* UID_WRAPPER_ROOT the ids started from */
static int uwrap_on_warned, uwrap_root_warned; /* bad values: said once */

bool uwrap_env_flag(const char *var, int *warned)
{
	const char *s = getenv(var);

	if (s == NULL || s[0] == '\0' || (s[0] == '0' && s[1] == '\0')) {
		return false;
	}
	if (s[0] == '1' && s[1] == '\0') {
		return true;
	}
	if (warned == NULL ||
	    !__atomic_exchange_n(warned, 1, __ATOMIC_RELAXED)) {
		CWRAP_ERROR("%s='%s' is neither 1 nor 0, taken as 0 (off)", var,
			    s);
	}
	return false;
}

static void uwrap_switch_atfork_child(void)
{
	/* a thread of the parent may have held it: one thread is left */
	pthread_mutex_init(&uwrap_switch_lock, NULL);
}

static void uwrap_boot_init(void)
{
	uwrap_on = uwrap_env_flag("UID_WRAPPER", &uwrap_on_warned);
	uwrap_root = uwrap_env_flag("UID_WRAPPER_ROOT", &uwrap_root_warned);
	if (uwrap_on) {
		/* Reads UID_WRAPPER_DEBUGLEVEL: a bad value is reported now,
		 * not at the first message. */
		(void)cwrap_log_level();
		uwrap_exec_import(uwrap_root);
	}
	pthread_atfork(NULL, NULL, uwrap_switch_atfork_child);
}

bool uwrap_switch_update(void)
{
	unsigned long gen;
	bool on, root;

	/* the generation before the variables: a change after it is seen
	 * next time (and the log level, read at boot, stays read) */
	gen = cwrap_env_gen();
	pthread_once(&uwrap_boot_once, uwrap_boot_init);
	pthread_mutex_lock(&uwrap_switch_lock);
	on = uwrap_env_flag("UID_WRAPPER", &uwrap_on_warned);
	root = uwrap_env_flag("UID_WRAPPER_ROOT", &uwrap_root_warned);
	if (on && (!uwrap_on || root != uwrap_root)) {
		CWRAP_DEBUG("UID_WRAPPER=1%s: the ids start over",
			    root ? ", UID_WRAPPER_ROOT=1" : "");
		uwrap_exec_restart(root);
		uwrap_proc_restart();
		uwrap_root = root;
	}
	uwrap_on = on;
	__atomic_store_n(&uwrap_switch, (gen << 1) | (on ? 1UL : 0UL),
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&uwrap_switch_lock);
	return on;
}

/* Every change is looked at when it is made, so that an unset followed by
 * a set (a test's teardown, the next one's setup) is not missed when no
 * wrapped call came between them. */
static void uwrap_env_changed(void)
{
	(void)uwrap_switch_update();
}

__attribute__((constructor)) static void uwrap_constructor(void)
{
	(void)uwrap_enabled();
}
