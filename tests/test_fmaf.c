/* tests/test_fmaf.c — kernels.h's fused multiply-add without the C library: hst__fmaf_soft
   (the software one, for CPUs without the instruction) and HST__FMAF (what the portable host
   twins call) equal the CPU's FMA instruction bit for bit on every triple of an edge-value
   table and on FMAF_INPUTS generated inputs (default 10^8, spread over the processors:
   random bits, overflow, underflow and subnormals, cancellation, ties, signed zeros; see
   tests/windows/fmaf_checks.h). On a CPU without the instruction there is nothing to compare
   with: the test says so and skips. No device is involved: the generated inputs run on the
   host device's turn only (HST_DEVICE unset or "host"), the edge table on every turn. */
#define HST_IMPLEMENTATION
#ifndef HST_NO_OPENCL
#define HST_NO_OPENCL          /* only the OS shim's threads are used */
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "windows/fmaf_checks.h"

#define MAX_THREADS 64
#define DEFAULT_INPUTS 100000000ull   /* 10^8: about 1 s on 2 cores */

typedef struct share { uint64_t seed, n; fc_report rep; } share;

static void *share_main(void *p) {
    share *s = (share *)p;
    fc_run_random(&s->rep, s->seed, s->n);
    return NULL;
}

static void expect_none(const fc_report *rep) {
    char why[300];
    if (rep->mismatches) fail_msg("%s", fc_describe(rep, why, sizeof why));
}

static void test_fmaf_edges(void **state) {
    fc_report rep;
    (void)state;
    if (!fc_has_hw()) skip();
    memset(&rep, 0, sizeof rep);
    fc_run_edges(&rep);
    assert_int_equal(rep.tested, 48 * 48 * 48);
    expect_none(&rep);
}

static void test_fmaf_generated(void **state) {
    static share sh[MAX_THREADS];
    hst_thread t[MAX_THREADS];
    int started[MAX_THREADS];
    const char *env = getenv("FMAF_INPUTS");
    uint64_t total = env ? strtoull(env, NULL, 10) : DEFAULT_INPUTS, tested = 0;
    unsigned k, n = hst_cpu_count() < MAX_THREADS ? hst_cpu_count() : MAX_THREADS;
    (void)state;
    if (!fc_has_hw()) skip();
    if (getenv("HST_DEVICE") && strcmp(getenv("HST_DEVICE"), "host") != 0) {
        print_message("# no device is involved: the generated inputs run on the host device's turn\n");
        skip();
    }
    for (k = 0; k < n; k++) {
        memset(&sh[k], 0, sizeof sh[k]);
        sh[k].seed = 0x5eed0000u + k;
        sh[k].n = total / n + (k < total % n);
        started[k] = hst_thread_create(&t[k], share_main, &sh[k]);
        if (!started[k]) share_main(&sh[k]);
    }
    for (k = 0; k < n; k++) {
        if (started[k]) hst_thread_join(&t[k]);
        tested += sh[k].rep.tested;
        expect_none(&sh[k].rep);
    }
    assert_int_equal(tested, total);
    print_message("# %llu generated inputs on %u threads agree with the instruction\n",
                  (unsigned long long)tested, n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmaf_edges),
        cmocka_unit_test(test_fmaf_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
