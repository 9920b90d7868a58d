/*
 * nss_wrapper: library identity and the public functions.
 * (Placeholder of the foundation: the behaviour comes with the nss_wrapper issue.)
 */
#include <stdbool.h>

#include "cwrap_compiler.h"
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
	.name = "nss_wrapper",
	.log_prefix = "NWRAP",
	.env_prefix = "NSS_WRAPPER",
};

CWRAP_EXPORT bool nss_wrapper_enabled(void);

CWRAP_EXPORT bool nss_wrapper_enabled(void)
{
	return false;
}
