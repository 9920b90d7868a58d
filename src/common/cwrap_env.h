/*
 * Environment parsing with range checks, shared by the three libraries.
 * A value that is not a number, or out of range, is reported in one line
 * naming the variable and the default is used instead.
 *
 * Variables are read when they are used: test suites setenv() a fresh
 * SOCKET_WRAPPER_DIR or NSS_WRAPPER_PASSWD between two tests of one
 * process. A library caches what it parsed together with cwrap_env_gen()
 * and parses again when that number has moved. The only state is the
 * generation counter and the last `environ` seen, both atomics.
 */
#ifndef CWRAP_ENV_H
#define CWRAP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unset or empty: `dflt`, silently. */
long cwrap_env_long(const char *var, long dflt, long min, long max);

/* Set to a non-empty value other than "0". */
bool cwrap_env_true(const char *var);

/* Parse `str` as a whole decimal number in [min, max]; false otherwise. */
bool cwrap_parse_long(const char *str, long min, long max, long *out);

/* The `len` bytes at `s` as a number of decimal digits only (no sign, no
 * space; leading zeros allowed) of at most `max` (below UINT64_MAX / 10);
 * false otherwise, *out untouched. For the ids, counts and durations of
 * the libraries' files and variables. */
bool cwrap_parse_digits(const char *s, size_t len, uint64_t max, uint64_t *out);

/* A number that changes whenever the environment may have changed: after
 * every setenv/unsetenv/putenv/clearenv made through the names each library
 * interposes (cwrap_envwatch.c), and when `environ` itself was replaced
 * since the last call. Never 0, so 0 can mean "not read yet". Lock free:
 * one or two atomic loads when nothing changed. A program that edits the
 * strings of environ in place is not noticed. */
unsigned long cwrap_env_gen(void);

/* Record a change of the environment: called by the interposed functions
 * after the real one returned. Also makes the log level be read again. */
void cwrap_env_changed(void);

#endif
