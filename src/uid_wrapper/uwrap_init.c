/*
 * uid_wrapper: library identity and the public functions.
 * (Placeholder of the foundation: the behaviour comes with the uid_wrapper issue.)
 */
#include <stdbool.h>

#include "cwrap_compiler.h"
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
	.name = "uid_wrapper",
	.log_prefix = "UWRAP",
	.env_prefix = "UID_WRAPPER",
};

CWRAP_EXPORT bool uid_wrapper_enabled(void);

CWRAP_EXPORT bool uid_wrapper_enabled(void)
{
	return false;
}
