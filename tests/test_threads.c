/* tests/test_threads.c — two threads, each with its own backend, run streams (grad3 -> div3
   with an accumulator) and array vocabulary operations concurrently, several rounds each; every
   result equals the single-threaded result bit for bit. Once on the device HST_DEVICE picks
   (both backends open it: on an OpenCL device two contexts, and the program builds race on the
   disk cache) and once on the host device (the host twins in two threads). Kept short: it runs
   in `make test` on every device, with the sanitizers too. The threads are backend.h's OS shim's,
   whose own checks (tests/windows/shim_checks.h, also run on Windows by
   scripts/windows_check.sh) come first. */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "halo.h"
#include "kernels.h"
#include "reliability/workload.h"
#include "windows/shim_checks.h"

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
    {   /* a worker thread: the result joins the job's, which the main thread asserts */
        hst_result d = hst_backend_destroy(be);
        if (j->r == HST_SUCCESS) j->r = d;
    }
    return NULL;
}

static void two_threads(const char *device)
{
    static job jobs[2];
    hst_thread t[2];
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
        assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    }
    for (i = 0; i < 2; i++) assert_true(hst_thread_create(&t[i], worker, &jobs[i]));
    for (i = 0; i < 2; i++) hst_thread_join(&t[i]);
    for (i = 0; i < 2; i++) {
        if (jobs[i].r != HST_SUCCESS)
            print_error("thread %d: %s after %d rounds\n", i, hst_result_string(jobs[i].r),
                        jobs[i].rounds_done);
        assert_int_equal(jobs[i].r, HST_SUCCESS);
        assert_int_equal(jobs[i].rounds_done, ROUNDS);
        assert_int_equal(jobs[i].mismatches, 0);
    }
}

/* ---- two threads saving choice timings to one file ---------------------------------------- */
#define SAVES 40
typedef struct saver { const char *path, *op; hst_result r; } saver;

/* Registers a timings-only op of its own, then records one new signature and saves, SAVES
   times: every save merges with the file under its lock. */
static hst_result save_rounds(hst_backend *be, const saver *sv)
{
    hst_choice_desc cd;
    hst_choice_impl im;
    hst_choice_op_desc d;
    hst_choice_op *op = NULL;
    hst_result r;
    int64_t k;
    memset(&cd, 0, sizeof cd);
    cd.path = sv->path;
    memset(&im, 0, sizeof im);
    im.name = "only";
    memset(&d, 0, sizeof d);
    d.name = sv->op; d.impls = &im; d.num_impls = 1;
    if ((r = hst_choice_configure(be, &cd)) != HST_SUCCESS) return r;
    if ((r = hst_choice_register(be, &d, &op)) != HST_SUCCESS) return r;
    for (k = 0; k < SAVES && r == HST_SUCCESS; k++) {
        int64_t sig = (int64_t)1 << k;   /* one bucket each */
        r = hst_choice_record(op, &sig, 1, "only", 1e-3 * (double)(k + 1));
        if (r == HST_SUCCESS) r = hst_choice_save(be);
    }
    return r;
}

static void *saver_thread(void *arg)
{
    saver *sv = (saver *)arg;
    hst_backend_desc desc;
    hst_backend *be = NULL;
    memset(&desc, 0, sizeof desc);
    desc.device = "host";
    sv->r = hst_backend_create(&desc, &be);
    if (sv->r == HST_SUCCESS) sv->r = save_rounds(be, sv);
    {   /* a worker thread: the result joins the job's, which the main thread asserts */
        hst_result d = hst_backend_destroy(be);
        if (sv->r == HST_SUCCESS) sv->r = d;
    }
    return NULL;
}

/* Each thread's every signature is in the file afterwards: no save lost another's update. */
static void test_threads_choice_file(void **state)
{
    static saver sv[2];
    char path[512];
    const char *dir = getenv("HST_CACHE_DIR");
    hst_thread t[2];
    hst_backend_desc desc;
    hst_backend *be;
    hst_choice_desc cd;
    hst_choice_impl im;
    hst_choice_op_desc d;
    hst_choice_op *op;
    int i;
    int64_t k;
    (void)state;
    snprintf(path, sizeof path, "%s/threads-choice-%ld.txt", dir ? dir : "/tmp", hst_process_id());
    remove(path);
    for (i = 0; i < 2; i++) {
        sv[i].path = path;
        sv[i].op = i ? "thread_b" : "thread_a";
        assert_true(hst_thread_create(&t[i], saver_thread, &sv[i]));
    }
    for (i = 0; i < 2; i++) hst_thread_join(&t[i]);
    for (i = 0; i < 2; i++) assert_int_equal(sv[i].r, HST_SUCCESS);
    memset(&desc, 0, sizeof desc);
    desc.device = "host";
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    memset(&cd, 0, sizeof cd);
    cd.path = path;
    assert_int_equal(hst_choice_configure(be, &cd), HST_SUCCESS);
    memset(&im, 0, sizeof im);
    im.name = "only";
    for (i = 0; i < 2; i++) {
        memset(&d, 0, sizeof d);
        d.name = sv[i].op; d.impls = &im; d.num_impls = 1;
        assert_int_equal(hst_choice_register(be, &d, &op), HST_SUCCESS);
        for (k = 0; k < SAVES; k++) {
            int64_t sig = (int64_t)1 << k;
            hst_choice_stat st;
            size_t n = 0;
            assert_int_equal(hst_choice_stats(op, &sig, 1, &st, 1, &n), HST_SUCCESS);
            if (st.source != HST_CHOICE_EXACT || st.samples != 1)
                fail_msg("%s: signature 2^%d lost (source %d, %u samples)", sv[i].op, (int)k,
                         st.source, st.samples);
        }
    }
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    remove(path);
    snprintf(path + strlen(path), sizeof path - strlen(path), ".lock");
    remove(path);
}

/* ---- backend.h's OS shim ------------------------------------------------------------------ */
#define SHIM_TEST(name, call) \
    static void name(void **state) { const char *why = (call); (void)state; if (why) fail_msg("%s", why); }
SHIM_TEST(test_shim_mutex_atomic, sc_check_mutex_atomic())
SHIM_TEST(test_shim_atomic_values, sc_check_atomic_values())
SHIM_TEST(test_shim_rmutex, sc_check_rmutex())
SHIM_TEST(test_shim_broadcast, sc_check_broadcast())
SHIM_TEST(test_shim_signal, sc_check_signal())
SHIM_TEST(test_shim_once, sc_check_once())
SHIM_TEST(test_shim_parallel, sc_check_parallel())
SHIM_TEST(test_shim_parallel_copies, sc_check_parallel_copies())
SHIM_TEST(test_shim_system, sc_check_system())
SHIM_TEST(test_shim_files, sc_check_files(getenv("HST_CACHE_DIR") ? getenv("HST_CACHE_DIR") : "/tmp"))
SHIM_TEST(test_shim_file_lock, sc_check_file_lock(getenv("HST_CACHE_DIR") ? getenv("HST_CACHE_DIR") : "/tmp"))

static void test_threads_device(void **state) { (void)state; two_threads(NULL); }
static void test_threads_host(void **state) { (void)state; two_threads("host"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shim_mutex_atomic),
        cmocka_unit_test(test_shim_atomic_values),
        cmocka_unit_test(test_shim_rmutex),
        cmocka_unit_test(test_shim_broadcast),
        cmocka_unit_test(test_shim_signal),
        cmocka_unit_test(test_shim_once),
        cmocka_unit_test(test_shim_parallel),
        cmocka_unit_test(test_shim_parallel_copies),
        cmocka_unit_test(test_shim_system),
        cmocka_unit_test(test_shim_files),
        cmocka_unit_test(test_shim_file_lock),
        cmocka_unit_test(test_threads_device),
        cmocka_unit_test(test_threads_host),
        cmocka_unit_test(test_threads_choice_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
