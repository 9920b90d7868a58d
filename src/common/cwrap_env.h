/*
 * Environment parsing with range checks, shared by the three libraries.
 * A value that is not a number, or out of range, is reported in one line
 * naming the variable and the default is used instead. No state.
 */
#ifndef CWRAP_ENV_H
#define CWRAP_ENV_H

#include <stdbool.h>

/* Unset or empty: `dflt`, silently. */
long cwrap_env_long(const char *var, long dflt, long min, long max);

/* Set to a non-empty value other than "0". */
bool cwrap_env_true(const char *var);

/* Parse `str` as a whole decimal number in [min, max]; false otherwise. */
bool cwrap_parse_long(const char *str, long min, long max, long *out);

#endif
