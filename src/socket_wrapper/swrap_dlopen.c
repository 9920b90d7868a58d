/*
 * dlopen(): libraries opened with RTLD_DEEPBIND stay wrapped.
 *
 * A library opened with RTLD_DEEPBIND (Samba's ldb modules) looks its
 * symbols up in its own dependencies first, which is libc, not the
 * preloaded wrapper: its socket() and connect() would make real AF_INET
 * sockets. While socket_wrapper is enabled, the flag is dropped, so that
 * every library a wrapped program loads sees the wrapped calls.
 *
 * glibc's dlopen() works on behalf of its caller, found from its return
 * address: a name without a slash is looked up along the caller's RPATH
 * and RUNPATH, $ORIGIN in the name is the caller's directory, and the new
 * library goes into the caller's namespace. A wrapper that called the
 * real dlopen() would make itself the caller. So the exported dlopen is a
 * few instructions that ask swrap_dlopen_target() for the flags and the
 * real function and then jump to it, leaving the stack and the return
 * address as the program's call made them (x86_64 and i386; elsewhere a
 * C tail call). No state, no lock: the real pointer is bound once
 * (cwrap_bind_cached) and the environment is read through swrap_enabled().
 */
#include <dlfcn.h>

#include "cwrap_config.h"

/* A C library without RTLD_DEEPBIND (musl) has nothing to drop: dlopen is
 * not interposed there. */
#ifdef HAVE_RTLD_DEEPBIND
#include "cwrap_bind.h"
#include "cwrap_compiler.h"
#include "cwrap_log.h"
#include "swrap.h"

typedef void *(*swrap_dlopen_fn)(const char *file, int mode);

static void *real_dlopen; /* cwrap_bind_cached() slot */

/* The real dlopen, with *mode as it should reach it. Called by the stub
 * below with the program's flags in place; hidden. */
CWRAP_HIDDEN swrap_dlopen_fn swrap_dlopen_target(int *mode);

swrap_dlopen_fn swrap_dlopen_target(int *mode)
{
	if ((*mode & RTLD_DEEPBIND) && swrap_enabled()) {
		CWRAP_DEBUG("dlopen: RTLD_DEEPBIND dropped, so that the "
			    "library sees the wrapped socket calls");
		*mode &= ~RTLD_DEEPBIND;
	}
	return (swrap_dlopen_fn)cwrap_bind_cached(&real_dlopen, "dlopen");
}

#ifdef __CET__
#define SWRAP_ENDBR64 "	endbr64\n"
#define SWRAP_ENDBR32 "	endbr32\n"
#else
#define SWRAP_ENDBR64 ""
#define SWRAP_ENDBR32 ""
#endif

/* clang-format off */
#if defined(__x86_64__)
/* rdi = file, rsi = mode: mode is saved on the stack, handed to the
 * helper by address, reloaded; then a jump, not a call. At entry rsp is
 * 8 mod 16; two pushes and 8 bytes keep the call aligned. */
__asm__(".pushsection .text\n"
	".globl dlopen\n"
	".type dlopen, @function\n"
	"dlopen:\n"
	".cfi_startproc\n" SWRAP_ENDBR64
	"	pushq %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	movq %rsp, %rdi\n"
	"	subq $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"	call swrap_dlopen_target\n"
	"	addq $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	jmp *%rax\n"
	".cfi_endproc\n"
	".size dlopen, .-dlopen\n"
	".popsection\n");
#elif defined(__i386__)
/* cdecl: file at 4(%esp), mode at 8(%esp), the callee's to change in
 * place. At entry esp is 12 mod 16; 8 bytes and one push align the call. */
__asm__(".pushsection .text\n"
	".globl dlopen\n"
	".type dlopen, @function\n"
	"dlopen:\n"
	".cfi_startproc\n" SWRAP_ENDBR32
	"	leal 8(%esp), %eax\n"
	"	subl $8, %esp\n"
	".cfi_adjust_cfa_offset 8\n"
	"	pushl %eax\n"
	".cfi_adjust_cfa_offset 4\n"
	"	call swrap_dlopen_target\n"
	"	addl $12, %esp\n"
	".cfi_adjust_cfa_offset -12\n"
	"	jmp *%eax\n"
	".cfi_endproc\n"
	".size dlopen, .-dlopen\n"
	".popsection\n");
#else
/* Elsewhere: a tail call, which the compiler makes at -O1 and above. */
CWRAP_EXPORT void *dlopen(const char *file, int mode)
{
	swrap_dlopen_fn fn = swrap_dlopen_target(&mode);

	return fn(file, mode);
}
#endif
/* clang-format on */
#endif /* HAVE_RTLD_DEEPBIND */
