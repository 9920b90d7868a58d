/*
 * libc_<name>() for every C library function pam_wrapper calls through,
 * generated from pwrap_libc.def.
 */
#ifndef PWRAP_LIBC_H
#define PWRAP_LIBC_H

#include <stdio.h>
#include <sys/stat.h>

#define CWRAP_LIBC_DEF "pwrap_libc.def"
#include "cwrap_libc_gen.h"
#undef CWRAP_LIBC_DEF

#endif
