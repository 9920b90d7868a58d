/*
 * What the libraries' exec wrappers share: the argument list of execl(),
 * execle() and execlp() made a vector. Header only.
 */
#ifndef CWRAP_EXEC_H
#define CWRAP_EXEC_H

#include <alloca.h>
#include <stdarg.h>
#include <stddef.h>

/* execl*(): collect the arguments on the stack, as glibc does, and go
 * through the vector forms: `argv` on the stack (alloca), with
 * `envp_out` the argument after the NULL (execle's; garbage for the
 * others, unused). */
#define CWRAP_COLLECT_ARGS(arg, argv, ap, envp_out)                            \
	do {                                                                   \
		size_t n_ = 1, i_;                                             \
		va_start(ap, arg);                                             \
		while (va_arg(ap, char *) != NULL) {                           \
			n_++;                                                  \
		}                                                              \
		va_end(ap);                                                    \
		argv = alloca((n_ + 1) * sizeof(char *));                      \
		argv[0] = (char *)arg;                                         \
		va_start(ap, arg);                                             \
		for (i_ = 1; i_ <= n_; i_++) {                                 \
			argv[i_] = va_arg(ap, char *);                         \
		}                                                              \
		envp_out = va_arg(ap, char *const *);                          \
		va_end(ap);                                                    \
	} while (0)

#endif
