/*
 * cwrap_syscall_next(nr, a): syscall(nr, a[0..5]) through the next
 * syscall() after the calling library's (see cwrap_syscall.c).
 */
#ifndef CWRAP_SYSCALL_H
#define CWRAP_SYSCALL_H

long cwrap_syscall_next(long nr, const long a[6]);

#endif
