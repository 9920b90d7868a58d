/*
 * Generator for the libc_<name>() functions: see cwrap_bind.h.
 * Include with CWRAP_LIBC_DEF set to the library's symbol list; define
 * CWRAP_LIBC_DEFINE first in exactly one .c file of the library.
 * This header has no include guard on purpose.
 */
#include "cwrap_bind.h"
#include "cwrap_config.h" /* the HAVE_* a symbol list may test */

#ifndef CWRAP_LIBC_DEF
#error "CWRAP_LIBC_DEF must name the symbol list"
#endif

#ifdef CWRAP_LIBC_DEFINE

#define CWRAP_SYM(ret, name, params, args)                                   \
	ret libc_##name params;                                              \
	static void *cwrap_libc_slot_##name;                                 \
	ret libc_##name params                                               \
	{                                                                    \
		ret(*fn) params = (ret(*) params)cwrap_bind_cached(          \
			&cwrap_libc_slot_##name, #name);                     \
		return fn args;                                              \
	}
#define CWRAP_SYM_VOID(name, params, args)                                   \
	void libc_##name params;                                             \
	static void *cwrap_libc_slot_##name;                                 \
	void libc_##name params                                              \
	{                                                                    \
		void(*fn) params = (void(*) params)cwrap_bind_cached(        \
			&cwrap_libc_slot_##name, #name);                     \
		fn args;                                                     \
	}
#define CWRAP_SYM_PTR(ret, name, params)                                     \
	ret(*libc_ptr_##name(void)) params;                                  \
	static void *cwrap_libc_slot_##name;                                 \
	ret(*libc_ptr_##name(void)) params                                   \
	{                                                                    \
		return (ret(*) params)cwrap_bind_cached(                     \
			&cwrap_libc_slot_##name, #name);                     \
	}

#else

#define CWRAP_SYM(ret, name, params, args) ret libc_##name params;
#define CWRAP_SYM_VOID(name, params, args) void libc_##name params;
#define CWRAP_SYM_PTR(ret, name, params) ret(*libc_ptr_##name(void)) params;

#endif

#include CWRAP_LIBC_DEF

#undef CWRAP_SYM
#undef CWRAP_SYM_VOID
#undef CWRAP_SYM_PTR
