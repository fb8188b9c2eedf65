/* tests/test_threads.c — two threads, each with its own backend, run streams (grad3 -> div3
   with an accumulator) and array vocabulary operations concurrently, several rounds each; every
   result equals the single-threaded result bit for bit. Once on the device HST_DEVICE picks
   (both backends open it: on an OpenCL device two contexts, and the program builds race on the
   disk cache) and once on the host device (the host twins in two threads). Kept short: it runs
   in `make test` on every device, with the sanitizers too. */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "halo.h"
#include "kernels.h"
#include "reliability/workload.h"

#define ROUNDS 3
#define NA 9000
static const wl_stream_cfg CFG = {12, 16, 9, 5};
#define SN (12 * 16 * 9)

typedef struct result {
    float p[3 * SN], d[SN], ay[NA];
    double acc, aout[WL_ARRAY_OUTS];
} result;

typedef struct job {
    const char *device;        /* NULL: HST_DEVICE */
    uint32_t seed;
    float x[SN], in[NA];
    result want, got;
    hst_result r;
    int mismatches;
    int rounds_done;
} job;

static hst_result run_once(hst_backend *be, job *j, result *out)
{
    hst_result r = wl_stream_once(be, &CFG, j->x, out->p, out->d, &out->acc);
    if (r == HST_SUCCESS) r = wl_array_ops(be, j->in, NA, out->aout, out->ay);
    return r;
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    hst_backend_desc desc;
    hst_backend *be = NULL;
    int k;
    memset(&desc, 0, sizeof desc);
    desc.device = j->device;
    j->r = hst_backend_create(&desc, &be);
    for (k = 0; k < ROUNDS && j->r == HST_SUCCESS; k++) {
        memset(&j->got, 0xA5, sizeof j->got);
        j->r = run_once(be, j, &j->got);
        if (j->r == HST_SUCCESS && memcmp(&j->got, &j->want, sizeof j->got)) j->mismatches++;
        j->rounds_done++;
    }
    hst_backend_destroy(be);
    return NULL;
}

static void two_threads(const char *device)
{
    static job jobs[2];
    pthread_t t[2];
    int i;
    for (i = 0; i < 2; i++) {
        hst_backend_desc desc;
        hst_backend *be;
        job *j = &jobs[i];
        memset(j, 0, sizeof *j);
        j->device = device;
        j->seed = 10u + (uint32_t)i;
        wl_fill_f32(j->x, SN, j->seed);
        wl_fill_f32(j->in, NA, j->seed + 100u);
        memset(&desc, 0, sizeof desc);
        desc.device = device;
        assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
        memset(&j->want, 0xA5, sizeof j->want);
        assert_int_equal(run_once(be, j, &j->want), HST_SUCCESS);   /* single-threaded */
        hst_backend_destroy(be);
    }
    for (i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
    for (i = 0; i < 2; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (i = 0; i < 2; i++) {
        if (jobs[i].r != HST_SUCCESS)
            print_error("thread %d: %s after %d rounds\n", i, hst_result_string(jobs[i].r),
                        jobs[i].rounds_done);
        assert_int_equal(jobs[i].r, HST_SUCCESS);
        assert_int_equal(jobs[i].rounds_done, ROUNDS);
        assert_int_equal(jobs[i].mismatches, 0);
    }
}

static void test_threads_device(void **state) { (void)state; two_threads(NULL); }
static void test_threads_host(void **state) { (void)state; two_threads("host"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_device),
        cmocka_unit_test(test_threads_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
