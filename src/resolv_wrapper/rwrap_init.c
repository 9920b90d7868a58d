/*
 * resolv_wrapper: library identity. No state of its own: the variables are
 * read at each call (rwrap_query.c), the files by rwrap_cache.c.
 */
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
    .name = "resolv_wrapper",
    .log_prefix = "RWRAP",
    .env_prefix = "RESOLV_WRAPPER",
};
