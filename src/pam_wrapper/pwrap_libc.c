/*
 * Definitions of the libc_<name>() functions from pwrap_libc.def; each
 * binds its symbol on first use (src/common/cwrap_bind.h).
 */
#include <stdio.h>
#include <sys/stat.h>

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "pwrap_libc.def"
#include "cwrap_libc_gen.h"
