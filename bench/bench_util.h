/*
 * Timing helpers for the benchmark programs: a monotonic clock in
 * nanoseconds and the one-line result bench/run reads.
 */
#ifndef CWRAP_BENCH_UTIL_H
#define CWRAP_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The result line: "<value> <unit>". Units ending in "/s" are better when
 * higher; "ns/op" and "us/op" are better when lower. */
static inline void bench_report(double value, const char *unit)
{
	printf("%.3f %s\n", value, unit);
	fflush(stdout);
}

#endif
