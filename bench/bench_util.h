/* bench/bench_util.h — what the benchmarks share: a fatal check, the monotonic clock and
   sorting of times. Include after the library header, with _POSIX_C_SOURCE >= 199309L defined
   before any system header (clock_gettime). */
#ifndef HST_BENCH_UTIL_H
#define HST_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Benchmarks stop at the first failure: a figure after one would mean nothing. */
#define CHECK(call) do { hst_result r_ = (call); if (r_ != HST_SUCCESS) {                       \
        fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hst_result_string(r_)); \
        exit(1); } } while (0)

/* Seconds on the monotonic clock. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort order of doubles, ascending. */
static inline int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
