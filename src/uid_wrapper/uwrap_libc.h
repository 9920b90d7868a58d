/*
 * libc_<name>() for every libc function uid_wrapper calls through,
 * generated from uwrap_libc.def.
 */
#ifndef UWRAP_LIBC_H
#define UWRAP_LIBC_H

#define CWRAP_LIBC_DEF "uwrap_libc.def"
#include "cwrap_libc_gen.h"
#undef CWRAP_LIBC_DEF

#endif
