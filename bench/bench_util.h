/* bench/bench_util.h — what the benchmarks share: a fatal check, the monotonic clock,
   sorting of times and the eSRRF benchmarks' synthetic stack. Include after the library header, with _POSIX_C_SOURCE >= 199309L defined
   before any system header (clock_gettime). */
#ifndef HST_BENCH_UTIL_H
#define HST_BENCH_UTIL_H

#include <stdint.h>
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

/* The eSRRF benchmarks' stack: frames x size x size samples of emitters blinking on a noisy
   background, u16 (f32 = 0) or f32 of the same values; malloc'd (exits when out of memory). */
static inline void *bench_blinking_stack(uint64_t frames, uint32_t size, int f32)
{
    size_t n = (size_t)frames * size * size, i, es = f32 ? 4 : 2;
    unsigned char *p = (unsigned char *)malloc(n * es);
    uint32_t s = 1u;
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < n; i++) {
        size_t f = i / ((size_t)size * size), x = i % size, y = i / size % size;
        double v = 100.0 + 20.0 * ((s = s * 1664525u + 1013904223u) >> 28);
        if ((x % 23 == 7 && y % 19 == 5) && ((f + x) % 3 != 0)) v += 3000.0;
        if (es == 4) ((float *)(void *)p)[i] = (float)v;
        else ((uint16_t *)(void *)p)[i] = (uint16_t)v;
    }
    return p;
}

#endif
