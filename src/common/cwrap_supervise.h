/*
 * What the supervisor (src/supervisor/sup.h), the launcher and
 * socket_wrapper's exec wrappers share about programs that make their own
 * system calls: which programs need supervision, and how a process asks
 * whether it runs supervised already. Header of cwrap_elf.c; no state.
 */
#ifndef CWRAP_SUPERVISE_H
#define CWRAP_SUPERVISE_H

/* Why the program at `path` needs the supervisor: "static" (an ELF of
 * this machine's ABI without an interpreter), "Go" (a Go build), or NULL
 * (a dynamic program, a script, another ABI, unreadable). */
const char *cwrap_elf_kind(const char *path);

/* The file execvp() runs for `name` (searched in $PATH, "/bin:/usr/bin"
 * without one; an empty entry is the current directory), malloc'ed; NULL
 * when there is none. */
char *cwrap_find_command(const char *name);

/* The question "am I supervised?": socket(AF_INET, SOCK_DGRAM,
 * CWRAP_SUPERVISED_PROBE). The supervisor answers it with
 * CWRAP_SUPERVISED_ERRNO; the kernel, unsupervised, refuses the
 * protocol (EINVAL: above IPPROTO_MAX) and makes no socket. */
#define CWRAP_SUPERVISED_PROBE 0x5357
#define CWRAP_SUPERVISED_ERRNO EALREADY

#endif
