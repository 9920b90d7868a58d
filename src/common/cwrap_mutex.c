/*
 * The futex word of a robust mutex, found without knowing the C library's
 * pthread_mutex_t layout. The kernel's robust-futex ABI fixes what the word
 * holds (the owner's thread id, FUTEX_OWNER_DIED when the owner died), and
 * every C library that offers robust mutexes on Linux keeps such a word in
 * the mutex; only where it sits differs (glibc: first, musl: second). It
 * is found once, by locking a robust, process-shared mutex and looking for
 * the word that holds this thread's id.
 */
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#include "cwrap_mutex.h"
#include "cwrap_platform.h"

static size_t cwrap_word_index = (size_t)-1;
static pthread_once_t cwrap_word_once = PTHREAD_ONCE_INIT;

static void cwrap_find_word(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	const int *w = (const int *)&m;
	unsigned tid = (unsigned)gettid();

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
	if (pthread_mutex_lock(&m) == 0) {
		for (size_t i = 0; i < sizeof(m) / sizeof(int); i++) {
			if (((unsigned)w[i] & FUTEX_TID_MASK) == tid) {
				cwrap_word_index = i;
				break;
			}
		}
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_destroy(&m);
}

const int *cwrap_robust_mutex_word(const pthread_mutex_t *m)
{
	pthread_once(&cwrap_word_once, cwrap_find_word);
	if (cwrap_word_index == (size_t)-1) {
		return NULL;
	}
	return (const int *)m + cwrap_word_index;
}
