/*
 * Definitions of the libc_<name>() functions from swrap_libc.def; each binds
 * its symbol on first use (src/common/cwrap_bind.h).
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <spawn.h>

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "swrap_libc.def"
#include "cwrap_libc_gen.h"
