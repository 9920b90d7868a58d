/* The stand-in peer of the syscall() protocol (syscall_peer_mock.c). */
#ifndef SYSCALL_PEER_MOCK_H
#define SYSCALL_PEER_MOCK_H

/* The one number the stand-in owns: no kernel has it (ENOSYS). */
#define SYSCALL_PEER_NR 0x7ffe0101L

/* How many numbers the stand-in's _va answered. */
__attribute__((visibility("default"))) long syscall_peer_mock_calls(void);

#endif
