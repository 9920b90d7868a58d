/*
 * <resolv.h> without its renaming macros: glibc's header turns res_init,
 * res_ninit, res_close and res_nclose (older releases every res_ call)
 * into their __res_ spellings; resolv_wrapper defines both spellings and
 * names libc's explicitly.
 */
#ifndef RWRAP_RESOLV_H
#define RWRAP_RESOLV_H

#include <netinet/in.h>
#include <resolv.h>

#include "cwrap_config.h"

#undef res_init
#undef res_ninit
#undef res_close
#undef res_nclose
#undef res_query
#undef res_nquery
#undef res_search
#undef res_nsearch
#undef res_querydomain
#undef res_nquerydomain
#undef res_send
#undef res_nsend

/* What not every <resolv.h> names: RES_NOTLDQUERY (glibc's option bit,
 * which a program may set whatever its headers say) and the URI record
 * type (RFC 7553). */
#ifndef RES_NOTLDQUERY
#define RES_NOTLDQUERY 0x01000000
#endif
#define RWRAP_T_URI 256

/* libc's res_init: glibc's header renames it __res_init, the name its
 * library exports; elsewhere it is res_init itself. */
#ifdef HAVE___RES_INIT
#define rwrap_libc_res_init libc___res_init
#else
#define rwrap_libc_res_init libc_res_init
#endif

int __res_init(void);
int __res_ninit(res_state statp);
void __res_nclose(res_state statp);

#endif
