/*
 * libc_<name>() for every libc function socket_wrapper calls through,
 * generated from swrap_libc.def.
 */
#ifndef SWRAP_LIBC_H
#define SWRAP_LIBC_H

#include <sys/socket.h>
#include <sys/types.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <spawn.h>
#include <time.h>

#define CWRAP_LIBC_DEF "swrap_libc.def"
#include "cwrap_libc_gen.h"
#undef CWRAP_LIBC_DEF

#endif
