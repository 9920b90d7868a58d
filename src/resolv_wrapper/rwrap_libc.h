/*
 * libc_<name>() for every libc function resolv_wrapper calls through,
 * generated from rwrap_libc.def, and libc_res_close(), bound apart.
 */
#ifndef RWRAP_LIBC_H
#define RWRAP_LIBC_H

#include "rwrap_resolv.h"

#define CWRAP_LIBC_DEF "rwrap_libc.def"
#include "cwrap_libc_gen.h"
#undef CWRAP_LIBC_DEF

/* libresolv's res_close, or nothing when no libresolv is loaded. */
void libc_res_close(void);

#endif
