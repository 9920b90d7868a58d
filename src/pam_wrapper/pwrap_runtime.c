/*
 * PAM_WRAPPER_RUNTIME_DIR: the directory libpam reads services from,
 * named in the environment for the process and its children, as upstream's
 * library names its temporary copy there. Ours reads the service directory
 * itself (PAM_WRAPPER_SERVICE_DIR, at each pam_start), so the variable
 * names it, and a service file a test writes there after load is read by
 * its next pam_start. Set by the constructor when the library loads
 * enabled, and only then, as upstream's: setting it later, from
 * pam_start() say, would change the environment under a program's other
 * threads (setenv() may move the array that their getenv() reads; a
 * threaded test's pam_start calls showed it under TSan). No state of its
 * own: the environment is the state.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_env.h"
#include "pwrap.h"

#define PWRAP_RUNTIME_VAR "PAM_WRAPPER_RUNTIME_DIR"

static bool pwrap_runtime_current(const char *dir)
{
	const char *now = getenv(PWRAP_RUNTIME_VAR);

	return now != NULL && strcmp(now, dir) == 0;
}

/* PAM_WRAPPER=1 somewhere in the environment (necessary for enabled),
 * seen without a call into libc: in a program that never uses PAM, the
 * first call of getenv() from this library, which binds the symbol, cost
 * more than the whole check (1,300 instructions at every start). */
static bool pwrap_runtime_may_be_enabled(void)
{
	static const char want[] = "PAM_WRAPPER=1";

	for (char **e = environ; e != NULL && *e != NULL; e++) {
		size_t i = 0;

		while (want[i] != '\0' && (*e)[i] == want[i]) {
			i++;
		}
		if (want[i] == '\0' && (*e)[i] == '\0') {
			return true;
		}
	}
	return false;
}

/* At load, single-threaded, without binding a libc symbol (never in a
 * constructor): a new environ with the entry replaced or added, as
 * setenv() would make it. The strings and the array stay for the life of
 * the process, as setenv()'s do. */
void pwrap_runtime_at_load(void)
{
	const size_t vlen = sizeof(PWRAP_RUNTIME_VAR) - 1;
	size_t n = 0, i;
	bool placed = false;
	const char *dir;
	char *entry, **env;

	if (!pwrap_runtime_may_be_enabled() || !pwrap_enabled()) {
		return;
	}
	dir = getenv("PAM_WRAPPER_SERVICE_DIR");
	if (pwrap_runtime_current(dir)) {
		return;
	}
	entry = malloc(vlen + 1 + strlen(dir) + 1);
	if (entry == NULL) {
		return;
	}
	memcpy(entry, PWRAP_RUNTIME_VAR "=", vlen + 1);
	strcpy(entry + vlen + 1, dir);
	for (; environ != NULL && environ[n] != NULL; n++) {
	}
	env = malloc((n + 2) * sizeof(*env));
	if (env == NULL) {
		free(entry);
		return;
	}
	/* the first entry replaced (getenv() reads the first), or added */
	for (i = 0; i < n; i++) {
		env[i] = environ[i];
		if (!placed &&
		    strncmp(environ[i], PWRAP_RUNTIME_VAR "=", vlen + 1) == 0) {
			env[i] = entry;
			placed = true;
		}
	}
	env[n] = placed ? NULL : entry;
	env[n + 1] = NULL;
	environ = env;
	cwrap_env_changed();
}
