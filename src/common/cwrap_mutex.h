/*
 * cwrap_robust_mutex_word(m): the word of robust mutex m that the kernel's
 * robust-futex ABI defines (owner thread id in FUTEX_TID_MASK,
 * FUTEX_OWNER_DIED), read with atomic loads by code that must know whether
 * a lock's owner is alive without taking it. NULL if the C library keeps
 * no such word (then nothing can be known).
 */
#ifndef CWRAP_MUTEX_H
#define CWRAP_MUTEX_H

#include <pthread.h>

const int *cwrap_robust_mutex_word(const pthread_mutex_t *m);

#endif
