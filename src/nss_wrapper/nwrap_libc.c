/*
 * Definitions of the libc_<name>() functions from nwrap_libc.def; each binds
 * its symbol on first use (src/common/cwrap_bind.h).
 */
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <shadow.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>

#define CWRAP_LIBC_DEFINE
#define CWRAP_LIBC_DEF "nwrap_libc.def"
#include "cwrap_libc_gen.h"
