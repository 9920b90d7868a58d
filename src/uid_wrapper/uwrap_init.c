/*
 * uid_wrapper: the enable switch and the constructor.
 *
 * UID_WRAPPER (exactly "1" enables) is read once (and with it
 * UID_WRAPPER_ROOT and UID_WRAPPER_INITIAL_*, uwrap_initial.c, and
 * UID_WRAPPER_FAKE_CHOWN, uwrap_owner.c), by the constructor (or by the
 * first wrapped call, if another library's constructor calls one earlier),
 * under a pthread_once; the result is an atomic int the entry points test with
 * one branch. The constructor only reads the environment: no dlsym, no syscall.
 * The ids themselves are set up on first use (uwrap_threads.c).
 * UID_WRAPPER and UID_WRAPPER_ROOT say how the process starts, unlike the
 * other wrapper variables: a program that sets or unsets them later changes
 * no id here, only the environment of the children it starts afterwards
 * (libssh's suite unsets UID_WRAPPER_ROOT after setuid(5000) so that its
 * ssh-agent runs as the real user, and expects to stay uid 5000).
 */
#include <pthread.h>

#include "cwrap_log.h"
#include "uwrap.h"
#include "uwrap_owner.h"

int uwrap_state = UWRAP_UNKNOWN;

static pthread_once_t uwrap_boot_once = PTHREAD_ONCE_INIT;

static void uwrap_boot_init(void)
{
	bool on = uwrap_env_flag("UID_WRAPPER", NULL);

	if (on) {
		/* Reads UID_WRAPPER_DEBUGLEVEL: a bad value is reported now,
		 * not at the first message. */
		(void)cwrap_log_level();
		uwrap_initial_import();
		uwrap_owner_boot();
	}
	__atomic_store_n(&uwrap_state, on ? UWRAP_ON : UWRAP_OFF,
			 __ATOMIC_RELEASE);
}

int uwrap_boot(void)
{
	pthread_once(&uwrap_boot_once, uwrap_boot_init);
	return __atomic_load_n(&uwrap_state, __ATOMIC_ACQUIRE);
}

__attribute__((constructor)) static void uwrap_constructor(void)
{
	uwrap_boot();
}
