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

int __res_init(void);
int __res_ninit(res_state statp);
void __res_nclose(res_state statp);

#endif
