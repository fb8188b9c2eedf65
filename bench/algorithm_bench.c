/* algorithm_bench.c — algorithm.h's generated kernels against the device's own memory rate,
   measured in the same run on the same device:

     copy   hst_copy of n floats, buffer to buffer: the reference rate, counted as the bytes it
            reads and writes (2 x 4n per copy, as STREAM's copy counts them)
     axpy   hst_elementwise "y[i] = a * x[i] + y[i]" (reads 8n bytes, writes 4n): its rate over
            the copy rate (issue goal on a GPU: >= 0.9)
     sum    hst_reduction of f32 "a + b" over x[i] (reads 4n): its read rate over the copy rate
            (goal >= 0.85), beside array.h's hst_array_sum (the library's fixed-order sum)
     scan   hst_scan of i32 "a + b", inclusive (reads 4n, writes 4n, as a copy): copy time over
            scan time (goal >= 0.5; three passes move 12n bytes, so 0.67 is the ceiling)

       algorithm_bench [log2n]

   log2n: n = 2^log2n elements (default 22 here: PoCL's CPU device on a small machine; the
   issue's GPU figures use 28). The device is $HST_DEVICE's (else auto). Each figure is the
   median of REPS runs after a warm-up (the first run builds the program), each run waited for
   with hst_queue_finish and timed with CLOCK_MONOTONIC. Every result is checked (x = 1, y = 2:
   axpy's y, the sum, the scan's last element), so a path that skipped work fails instead of
   looking fast. The host device runs no generated kernels (algorithm.h): there the benchmark
   says so and exits 0.

   Build: cc -std=c99 -O2 -I. bench/algorithm_bench.c -o algorithm_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#include "algorithm.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9
#define DEFAULT_LOG2N 22

/* One measured operation: run it (enqueue), finish the queue. */
typedef struct bench_ctx {
    hst_backend *be;
    hst_array *x, *y, *yi, *zi, *out;
    hst_elementwise *axpy;
    hst_reduction *sum;
    hst_scan *scan;
    size_t n;
} bench_ctx;
typedef void (*bench_fn)(bench_ctx *c);

static void run_copy(bench_ctx *c) {
    CHECK(hst_copy(hst_backend_queue(c->be), hst_array_buffer(c->y), 0, hst_array_buffer(c->x), 0,
                   hst_array_bytes(c->x), 0, NULL, NULL));
}
static void run_axpy(bench_ctx *c) {
    hst_alg_arg a[3];
    a[0] = hst_alg_array(c->y); a[1] = hst_alg_scalar(HST_F32, hst_real(1.0)); a[2] = hst_alg_array(c->x);
    CHECK(hst_elementwise_run(c->axpy, c->n, 3, a));
}
static void run_sum(bench_ctx *c) {
    hst_alg_arg a = hst_alg_array(c->x);
    CHECK(hst_reduction_run_to(c->sum, c->n, 1, &a, c->out));
}
static void run_array_sum(bench_ctx *c) {
    hst_scalar s;
    CHECK(hst_array_sum(c->x, &s));
}
static void run_scan(bench_ctx *c) { CHECK(hst_scan_run(c->scan, c->yi, c->zi, c->n, 0)); }

/* The median time of REPS runs after one untimed run, seconds. */
static double measure(bench_ctx *c, bench_fn fn) {
    double t[REPS], t0;
    int k;
    fn(c);
    CHECK(hst_queue_finish(hst_backend_queue(c->be)));
    for (k = 0; k < REPS; k++) {
        t0 = now_s();
        fn(c);
        CHECK(hst_queue_finish(hst_backend_queue(c->be)));
        t[k] = now_s() - t0;
    }
    qsort(t, REPS, sizeof t[0], cmp_d);
    return t[REPS / 2];
}

static void expect(int ok, const char *what) {
    if (!ok) { fprintf(stderr, "wrong result: %s\n", what); exit(1); }
}

int main(int argc, char **argv) {
    hst_backend_desc desc;
    bench_ctx c;
    int log2n = argc > 1 ? atoi(argv[1]) : DEFAULT_LOG2N;
    size_t one = 1;
    double t_copy, t_axpy, t_sum, t_asum, t_scan, bw_copy;
    float yv = 0, sv = 0;
    int32_t last = 0;
    hst_result r;
    if (log2n < 10 || log2n > 30) { fprintf(stderr, "usage: algorithm_bench [log2n: 10 .. 30]\n"); return 2; }
    memset(&desc, 0, sizeof desc);
    memset(&c, 0, sizeof c);
    c.n = (size_t)1 << log2n;
    CHECK(hst_backend_create(&desc, &c.be));
    printf("device: %s (%s)\nn = 2^%d = %zu elements\n", hst_backend_device(c.be)->name,
           hst_backend_device(c.be)->platform_name, log2n, c.n);
    r = hst_elementwise_create(c.be, "float *y, float a, const float *x", "y[i] = a * x[i] + y[i]", NULL, &c.axpy);
    if (r == HST_ERROR_UNSUPPORTED && hst_backend_is_host(c.be)) {
        printf("the host device runs no generated kernels: select an OpenCL device (HST_DEVICE)\n");
        CHECK(hst_backend_destroy(c.be));
        return 0;
    }
    CHECK(r);
    CHECK(hst_reduction_create(c.be, HST_F32, "0", "a + b", "x[i]", "const float *x", NULL, &c.sum));
    CHECK(hst_scan_create(c.be, HST_I32, "a + b", "0", NULL, &c.scan));
    CHECK(hst_array_create(c.be, HST_F32, 1, &c.n, &c.x));
    CHECK(hst_array_create(c.be, HST_F32, 1, &c.n, &c.y));
    CHECK(hst_array_create(c.be, HST_I32, 1, &c.n, &c.yi));
    CHECK(hst_array_create(c.be, HST_I32, 1, &c.n, &c.zi));
    CHECK(hst_array_create(c.be, HST_F32, 1, &one, &c.out));
    CHECK(hst_array_fill(c.x, hst_real(1.0)));
    CHECK(hst_array_fill(c.yi, hst_int(1)));

    t_copy = measure(&c, run_copy);                        /* y = 1 */
    t_axpy = measure(&c, run_axpy);                        /* y += x, REPS + 1 times */
    CHECK(hst_read(hst_backend_queue(c.be), hst_array_buffer(c.y), 4 * (c.n - 1), &yv, 4, 1, 0, NULL, NULL));
    expect(yv == 1.0f + (REPS + 1), "axpy");
    t_sum = measure(&c, run_sum);
    CHECK(hst_array_read(c.out, &sv, sizeof sv));
    expect(sv == (float)c.n, "sum");                       /* exact: every partial is an integer < 2^24 */
    t_asum = measure(&c, run_array_sum);
    t_scan = measure(&c, run_scan);
    CHECK(hst_read(hst_backend_queue(c.be), hst_array_buffer(c.zi), 4 * (c.n - 1), &last, 4, 1, 0, NULL, NULL));
    expect((size_t)last == c.n, "scan");

    bw_copy = 8.0 * (double)c.n / t_copy;
    printf("%-34s %10s %10s %8s\n", "operation", "ms", "GB/s", "ratio");
    printf("%-34s %10.3f %10.2f %8s\n", "copy (hst_copy, read + write)", 1e3 * t_copy, 1e-9 * bw_copy, "1");
    printf("%-34s %10.3f %10.2f %8.3f\n", "axpy (elementwise, 12n bytes)", 1e3 * t_axpy,
           1e-9 * 12.0 * (double)c.n / t_axpy, 12.0 * (double)c.n / t_axpy / bw_copy);
    printf("%-34s %10.3f %10.2f %8.3f\n", "sum f32 (reduction, read 4n)", 1e3 * t_sum,
           1e-9 * 4.0 * (double)c.n / t_sum, 4.0 * (double)c.n / t_sum / bw_copy);
    printf("%-34s %10.3f %10.2f %8.3f\n", "sum f32 (hst_array_sum, read 4n)", 1e3 * t_asum,
           1e-9 * 4.0 * (double)c.n / t_asum, 4.0 * (double)c.n / t_asum / bw_copy);
    printf("%-34s %10.3f %10.2f %8.3f\n", "scan i32 (inclusive, as a copy)", 1e3 * t_scan,
           1e-9 * bw_copy * t_copy / t_scan, t_copy / t_scan);
    printf("ratios: each rate over the copy rate (goals on a GPU: axpy >= 0.9, sum >= 0.85, scan >= 0.5)\n");

    hst_array_destroy(c.x); hst_array_destroy(c.y); hst_array_destroy(c.yi); hst_array_destroy(c.zi);
    hst_array_destroy(c.out);
    hst_elementwise_destroy(c.axpy); hst_reduction_destroy(c.sum); hst_scan_destroy(c.scan);
    CHECK(hst_backend_destroy(c.be));
    return 0;
}
