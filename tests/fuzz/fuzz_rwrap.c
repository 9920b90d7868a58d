/*
 * The resolv_wrapper fuzz targets' common piece: the library's name in
 * its messages (rwrap_init.c, which defines it, is an entry file, not
 * part of the logic the targets link).
 */
#include "cwrap_lib.h"
#include "fuzz_util.h"

const struct cwrap_lib cwrap_lib = {
    .name = "resolv_wrapper",
    .log_prefix = "RWRAP",
    .env_prefix = "RESOLV_WRAPPER",
};
