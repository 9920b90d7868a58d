/*
 * pam_wrapper's identity (cwrap_lib: its name in messages, its variables'
 * prefix) and its mode: whether it is enabled, i.e. PAM_WRAPPER is "1" and
 * PAM_WRAPPER_SERVICE_DIR is not empty (what upstream's
 * pam_wrapper_enabled() answers). Read again whenever the environment
 * changed (cwrap_env_gen()), so that a test may set the variables between
 * two pam_start() calls of one process. State: one atomic word holding
 * the environment generation it was computed for and the answer, so that
 * a reader never pairs one generation with another's answer.
 */
#include <stdlib.h>
#include <string.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"
#include "pwrap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "pam_wrapper",
    .log_prefix = "PWRAP",
    .env_prefix = "PAM_WRAPPER",
};

static unsigned long pwrap_mode_word; /* gen << 1 | enabled; 0: not read */

static bool pwrap_mode_read(void)
{
	const char *on = getenv("PAM_WRAPPER");
	const char *dir = getenv("PAM_WRAPPER_SERVICE_DIR");

	return on != NULL && strcmp(on, "1") == 0 && dir != NULL &&
	       *dir != '\0';
}

bool pwrap_enabled(void)
{
	unsigned long gen = cwrap_env_gen();
	unsigned long w = __atomic_load_n(&pwrap_mode_word, __ATOMIC_ACQUIRE);
	bool on;

	if (cwrap_likely(w >> 1 == (gen & (~0UL >> 1)))) {
		return (w & 1) != 0;
	}
	on = pwrap_mode_read();
	__atomic_store_n(&pwrap_mode_word, (gen << 1) | (on ? 1UL : 0UL),
			 __ATOMIC_RELEASE);
	return on;
}
