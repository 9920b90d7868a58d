/*
 * pam_wrapper: library identity. No state of its own here: the mode is in
 * pwrap_mode.c, the real functions in pwrap_libpam.c.
 */
#include "cwrap_lib.h"

const struct cwrap_lib cwrap_lib = {
    .name = "pam_wrapper",
    .log_prefix = "PWRAP",
    .env_prefix = "PAM_WRAPPER",
};
