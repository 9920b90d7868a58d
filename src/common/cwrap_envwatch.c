/*
 * The environment-changing functions, interposed by each of the three
 * libraries so that a variable set or unset between two calls is seen by
 * the next one (cwrap_env.h). Each passes the call on to the next
 * definition in the chain (another wrapper preloaded with us, then libc)
 * and records the change afterwards, so that whoever sees the new
 * generation also sees the new value. No state of its own.
 */
#include <stdlib.h>

#include "cwrap_bind.h"
#include "cwrap_compiler.h"
#include "cwrap_env.h"

static void *next_setenv, *next_unsetenv, *next_putenv, *next_clearenv;

CWRAP_EXPORT int setenv(const char *name, const char *value, int overwrite)
{
	int (*fn)(const char *, const char *, int) =
	    (int (*)(const char *, const char *, int))cwrap_bind_cached(
		&next_setenv, "setenv");
	int rc = fn(name, value, overwrite);

	cwrap_env_changed();
	return rc;
}

CWRAP_EXPORT int unsetenv(const char *name)
{
	int (*fn)(const char *) = (int (*)(const char *))cwrap_bind_cached(
	    &next_unsetenv, "unsetenv");
	int rc = fn(name);

	cwrap_env_changed();
	return rc;
}

CWRAP_EXPORT int putenv(char *string)
{
	int (*fn)(char *) =
	    (int (*)(char *))cwrap_bind_cached(&next_putenv, "putenv");
	int rc = fn(string);

	cwrap_env_changed();
	return rc;
}

CWRAP_EXPORT int clearenv(void)
{
	int (*fn)(void) =
	    (int (*)(void))cwrap_bind_cached(&next_clearenv, "clearenv");
	int rc = fn();

	cwrap_env_changed();
	return rc;
}
