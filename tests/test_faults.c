/* tests/test_faults.c — fault injection: for every k, the k-th host allocation of the library
   fails, and (separately) the k-th OpenCL call that can fail (create buffer, sub-buffer,
   context, queue, program, kernel; build; every enqueue; map) fails with a realistic code,
   along five paths: a backend create + array vocabulary, a stream create + run (grad3 -> div3
   with an accumulator), a halo plan create + pack + copy + unpack, a program build + launch,
   and two eSRRF streams on one backend (fused rgc, then chained roberts -> magnify x2 -> rgc,
   each followed by the temporal sums into a GLOBAL accumulator). For every k: the path ends
   with a clean error (or, where the library absorbs the failure, with results equal to the
   fault-free run), nothing crashes, nothing leaks (the allocator's live count returns to 0,
   every OpenCL object created is released; LeakSanitizer in the san build), and the caller's
   input arrays are unchanged.

   Host allocations are counted through the backend desc's allocator hook AND through malloc()
   called directly by the library code compiled here (renamed by a macro below, so an allocation
   that bypassed the hook would be a fault point too). OpenCL calls are intercepted by
   tests/reliability/cl_hooks.h. Runs on the device HST_DEVICE picks; the program-build path
   skips on the host device. Prints the number of fault points exercised. */
#define HST_IMPLEMENTATION
#define HST_KERNELS_TEST_API   /* hst_k_esrrf_rgc_fused_host, the faults' reference */
#define _POSIX_C_SOURCE 200809L

/* Every system header the implementation includes, before malloc becomes a macro. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/time.h>
#include <unistd.h>
#include <fcntl.h>

#if !defined(HST_NO_OPENCL) && !defined(__APPLE__)
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#endif
#include "reliability/cl_hooks.h"

/* ---- host allocation faults ----------------------------------------------------------------
   flt_n counts allocations (hook and direct); the flt_fail_at-th returns NULL. flt_live counts
   the hook's live blocks (direct ones are freed with free(), which LeakSanitizer watches). */
static long flt_n, flt_fail_at, flt_injected, flt_live;

static int flt_fail_now(void)
{
    flt_n++;
    if (flt_fail_at && flt_n == flt_fail_at) { flt_injected++; return 1; }
    return 0;
}
static void *flt_alloc(size_t bytes, void *user)
{
    void *p;
    (void)user;
    if (flt_fail_now()) return NULL;
    p = malloc(bytes);
    if (p) flt_live++;
    return p;
}
static void flt_free(void *p, void *user)
{
    (void)user;
    if (p) flt_live--;
    free(p);
}
static void *flt_direct_malloc(size_t n) { return flt_fail_now() ? NULL : malloc(n); }

#define malloc(n) flt_direct_malloc(n)
#include "stream.h"
#include "halo.h"
#include "kernels_stream.h"
#include "kernels_esrrf.h"
#undef malloc
#include "reliability/workload.h"

/* ---- a quiet logger: the runs below fail thousands of times on purpose ---------------------- */
static unsigned log_errors;
static void quiet_logger(void *user, hst_log_level level, hst_log_item item, const char *msg)
{
    (void)user; (void)item; (void)msg;
    if (level == HST_LOG_ERROR) log_errors++;
}

/* ---- the paths ------------------------------------------------------------------------------ */
enum { P_ARRAYS, P_STREAM, P_HALO, P_PROGRAM, P_ESRRF, P_COUNT };
static const char *const path_names[P_COUNT] = {"arrays", "stream", "halo", "program", "esrrf"};

#define NA 5000
static const wl_stream_cfg SCFG = {8, 6, 5, 3};
#define SN (8 * 6 * 5)
/* eSRRF frames: 3 blocks of 2; both time points (frames 0..2, 3..4) span two blocks */
#define EN 5
#define ERGC (EN * WL_ESRRF_MPIXELS)
#define EACC WL_ESRRF_ACC_ELEMS(EN)

typedef struct io {
    /* inputs (checked unchanged) */
    float in[NA], x[SN], frames[EN * WL_ESRRF_PIXELS];
    unsigned char hinit[WL_HALO_NQ][2048];
    /* outputs */
    double aout[WL_ARRAY_OUTS];
    float ay[NA], p[3 * SN], d[SN], prog[NA];
    double acc;
    unsigned char hres[WL_HALO_NQ][2048], send[8192];
    float ergc[2][ERGC];        /* eSRRF, [0] fused, [1] chained */
    double eacc[2][EACC];       /* (floats in the first half where the device has no fp64) */
} io;

static io pristine, ref, cur;
static wl_halo halo;
static int es_fp64;              /* the eSRRF accumulator is in double (else float) */
static int path_ok[P_COUNT];     /* the fault-free run succeeded (else the path is skipped) */

/* Poisons the outputs of one path, so a run that claims success must have written them. */
static void clear_outputs(int path, io *o)
{
    switch (path) {
    case P_ARRAYS: memset(o->aout, 0xA5, sizeof o->aout); memset(o->ay, 0xA5, sizeof o->ay); break;
    case P_STREAM:
        memset(o->p, 0xA5, sizeof o->p);
        memset(o->d, 0xA5, sizeof o->d);
        memset(&o->acc, 0xA5, sizeof o->acc);
        break;
    case P_HALO: memset(o->hres, 0xA5, sizeof o->hres); memset(o->send, 0xA5, sizeof o->send); break;
    case P_ESRRF: memset(o->ergc, 0xA5, sizeof o->ergc); memset(o->eacc, 0xA5, sizeof o->eacc); break;
    default: memset(o->prog, 0xA5, sizeof o->prog); break;
    }
}

/* The eSRRF path: the fused variant, then the chained one on the same backend (reusing the
   program the fused run built: hst_program_build caches per backend). */
static hst_result run_esrrf(hst_backend *be, io *o)
{
    hst_result r = wl_esrrf_once(be, 1, o->frames, EN, o->ergc[0], o->eacc[0], es_fp64);
    if (r == HST_SUCCESS)
        r = wl_esrrf_once(be, 0, o->frames, EN, o->ergc[1], o->eacc[1], es_fp64);
    return r;
}

static hst_result run_path(int path, hst_backend *be, io *o)
{
    switch (path) {
    case P_ARRAYS: return wl_array_ops(be, o->in, NA, o->aout, o->ay);
    case P_STREAM: return wl_stream_once(be, &SCFG, o->x, o->p, o->d, &o->acc);
    case P_HALO: {
        void *init[WL_HALO_NQ], *res[WL_HALO_NQ];
        size_t q;
        for (q = 0; q < WL_HALO_NQ; q++) { init[q] = o->hinit[q]; res[q] = o->hres[q]; }
        return wl_halo_once(be, &halo, init, res, o->send, sizeof o->send);
    }
    case P_ESRRF: return run_esrrf(be, o);
    default:
#ifndef HST_NO_OPENCL
        return wl_program(be, o->in, NA, o->prog);
#else
        return HST_ERROR_UNSUPPORTED;
#endif
    }
}

static int outputs_equal(int path, const io *a, const io *b)
{
    switch (path) {
    case P_ARRAYS: return !memcmp(a->aout, b->aout, sizeof a->aout) && !memcmp(a->ay, b->ay, sizeof a->ay);
    case P_STREAM: return !memcmp(a->p, b->p, sizeof a->p) && !memcmp(a->d, b->d, sizeof a->d) &&
                          !memcmp(&a->acc, &b->acc, sizeof a->acc);
    case P_HALO: return !memcmp(a->hres, b->hres, sizeof a->hres) && !memcmp(a->send, b->send, sizeof a->send);
    case P_ESRRF: return !memcmp(a->ergc, b->ergc, sizeof a->ergc) && !memcmp(a->eacc, b->eacc, sizeof a->eacc);
    default: return !memcmp(a->prog, b->prog, sizeof a->prog);
    }
}

static int inputs_equal(const io *a, const io *b)
{
    return !memcmp(a->in, b->in, sizeof a->in) && !memcmp(a->x, b->x, sizeof a->x) &&
           !memcmp(a->hinit, b->hinit, sizeof a->hinit) &&
           !memcmp(a->frames, b->frames, sizeof a->frames);
}

/* One run of a path, a fresh backend included, with the k-th allocation (mode 0) or OpenCL
   call (mode 1) failing; k = 0: nothing fails. Returns the result; *injected says whether the
   fault happened (k was reached). Checks leaks and inputs here. */
static hst_result one_run(int path, int mode, long k, io *o, int *injected)
{
    hst_backend_desc desc;
    hst_backend *be = NULL;
    hst_result r;
    rel_counts before = rel_live;
    memset(&desc, 0, sizeof desc);
    desc.logger = quiet_logger;
    desc.log_level = HST_LOG_ERROR;
    desc.allocator.alloc = flt_alloc;
    desc.allocator.free = flt_free;
    desc.no_disk_cache = 1;
    clear_outputs(path, o);
    flt_n = 0;
    flt_injected = 0;
    flt_fail_at = mode == 0 ? k : 0;
    rel_reset_faults(mode == 1 ? k : 0);
    r = hst_backend_create(&desc, &be);
    if (r == HST_SUCCESS) r = run_path(path, be, o);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    flt_fail_at = 0;
    rel_fail_at = 0;
    *injected = mode == 0 ? flt_injected > 0 : rel_injected > 0;
    if (flt_live != 0) {
        print_error("%s: %s fault %ld: %ld host blocks leaked (result %s)\n", path_names[path],
                    mode ? "OpenCL" : "allocation", k, flt_live, hst_result_string(r));
        flt_live = 0;
        fail();
    }
    if (!rel_counts_equal(&before, &rel_live)) {
        print_error("%s: %s fault %ld (%s): OpenCL objects leaked: events %ld mems %ld queues %ld "
                    "kernels %ld programs %ld contexts %ld (result %s)\n", path_names[path],
                    mode ? "OpenCL" : "allocation", k, rel_injected_call,
                    rel_live.events - before.events, rel_live.mems - before.mems,
                    rel_live.queues - before.queues, rel_live.kernels - before.kernels,
                    rel_live.programs - before.programs, rel_live.contexts - before.contexts,
                    hst_result_string(r));
        rel_live = before;
        fail();
    }
    if (!inputs_equal(o, &pristine)) {
        print_error("%s: fault %ld: the caller's input arrays changed\n", path_names[path], k);
        fail();
    }
    return r;
}

static long total_points;

/* Every k for one path and mode, until a run reaches no k-th call. */
static void sweep(int path, int mode)
{
    long k, points = 0, absorbed = 0;
    char inj[64];
    for (k = 1;; k++) {
        int injected;
        hst_result r = one_run(path, mode, k, &cur, &injected);
        strcpy(inj, mode ? rel_injected_call : "alloc");
        if (!injected) {
            /* k past the last fallible call: a clean run */
            if (r != HST_SUCCESS || !outputs_equal(path, &cur, &ref)) {
                print_error("%s: run past the last fault point: %s\n", path_names[path],
                            hst_result_string(r));
                fail();
            }
            break;
        }
        points++;
        if (r == HST_SUCCESS) {
            /* absorbed (a fallback, a retry, a cache write): the results must still be right */
            absorbed++;
            if (!outputs_equal(path, &cur, &ref)) {
                print_error("%s: %s fault %ld (%s) returned success with wrong results\n",
                            path_names[path], mode ? "OpenCL" : "allocation", k, inj);
                fail();
            }
        } else if (mode == 0 ? r != HST_ERROR_OUT_OF_HOST_MEMORY
                             : (r >= 0 || !strncmp(hst_result_string(r), "UNKNOWN", 7))) {
            print_error("%s: allocation fault %ld returned %s (%d), not HST_ERROR_OUT_OF_HOST_MEMORY\n",
                        path_names[path], k, hst_result_string(r), r);
            fail();
        }
        if (k > 100000) { print_error("runaway sweep\n"); fail(); }
    }
    total_points += points;
    printf("# %-8s %-11s %5ld fault points (%ld absorbed)\n", path_names[path],
           mode ? "OpenCL" : "allocation", points, absorbed);
    fflush(stdout);
}

/* ---- fixture ------------------------------------------------------------------------------- */
static int is_host;

static int group_setup(void **state)
{
    size_t q, i;
    int injected, path;
    (void)state;
    wl_fill_f32(pristine.in, NA, 1);
    wl_fill_f32(pristine.x, SN, 2);
    wl_fill_frames(pristine.frames, EN * WL_ESRRF_PIXELS);
    if (wl_halo_init(&halo) != HST_SUCCESS) return -1;
    for (q = 0; q < WL_HALO_NQ; q++) {
        if (halo.bytes[q] > sizeof pristine.hinit[q]) return -1;
        for (i = 0; i < sizeof pristine.hinit[q]; i++)
            pristine.hinit[q][i] = (unsigned char)(i * 37 + q * 11 + 5);
    }
    {
        hst_backend *be;
        hst_backend_desc d;
        memset(&d, 0, sizeof d);
        if (hst_backend_create(&d, &be) != HST_SUCCESS) return -1;
        is_host = hst_backend_is_host(be);
        es_fp64 = is_host || hst_backend_device(be)->fp64;
        printf("# device: %s\n", hst_backend_device(be)->name);
        assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    }
    memcpy(&ref, &pristine, sizeof ref);
    memcpy(&cur, &pristine, sizeof cur);
    for (path = 0; path < P_COUNT; path++) {
        hst_result r = one_run(path, 0, 0, &ref, &injected);
        path_ok[path] = r == HST_SUCCESS;
        if (!path_ok[path]) printf("# %s: fault-free run: %s (path skipped)\n", path_names[path],
                                   hst_result_string(r));
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    printf("# fault points exercised: %ld\n", total_points);
    return 0;
}

#define PATH_TEST(name, path)                                                              \
    static void name(void **state)                                                        \
    {                                                                                     \
        (void)state;                                                                      \
        if (!path_ok[path]) { skip(); return; }                                           \
        sweep(path, 0);                                                                   \
        if (REL_OPENCL && !is_host) sweep(path, 1);                                       \
    }
#ifdef REL_HOOKS_CL
#  define REL_OPENCL 1
#else
#  define REL_OPENCL 0
#endif
PATH_TEST(test_faults_arrays, P_ARRAYS)
PATH_TEST(test_faults_stream, P_STREAM)
PATH_TEST(test_faults_halo, P_HALO)
PATH_TEST(test_faults_program, P_PROGRAM)
PATH_TEST(test_faults_esrrf, P_ESRRF)

/* The fault-free reference itself: right where it can be checked independently. */
static void test_reference_sane(void **state)
{
    float p[3 * SN], d[SN];
    (void)state;
    if (!path_ok[P_STREAM]) { skip(); return; }
    hst_k_grad3_host(pristine.x, p, 6, 5, 0, 0, 8, 8);
    hst_k_div3_host(p, d, 6, 5, 0, 0, 8, 8);
    assert_memory_equal(p, ref.p, sizeof p);
    assert_memory_equal(d, ref.d, sizeof d);
}

/* a (n floats, or doubles where dbl) against b: |a - b| <= rel * max |b| everywhere. The device
   may round differently from the twins (and the chained path from the fused one), but a wrong,
   missing or doubled result is far off. */
static int close_to(const void *a, int dbl, const double *b, size_t n, double rel)
{
    const float *af = (const float *)a;
    const double *ad = (const double *)a;
    size_t i;
    double m = 0.0;
    for (i = 0; i < n; i++) m = fabs(b[i]) > m ? fabs(b[i]) : m;
    for (i = 0; i < n; i++)
        if (!(fabs((dbl ? ad[i] : (double)af[i]) - b[i]) <= rel * (m > 0 ? m : 1.0))) return 0;
    return 1;
}

/* The eSRRF reference, both variants, against the fused rgc twin and the temporal twin. */
static void test_reference_esrrf(void **state)
{
    static float twin_rgc[ERGC];
    static double rgc[ERGC], acc[EACC];
    size_t i;
    int v;
    (void)state;
    if (!path_ok[P_ESRRF]) { skip(); return; }
    hst_k_esrrf_rgc_fused_host(pristine.frames, twin_rgc, WL_ESRRF_ROWS, WL_ESRRF_COLS,
                               WL_ESRRF_MAG, WL_ESRRF_RADIUS, WL_ESRRF_SENS, WL_ESRRF_IW, 0, 0,
                               EN, EN);
    memset(acc, 0, sizeof acc);
    hst_k_esrrf_temporal_host(twin_rgc, acc, WL_ESRRF_MPIXELS, WL_ESRRF_T,
                              (uint32_t)((EN + WL_ESRRF_T - 1) / WL_ESRRF_T), 0, 0, EN, 0,
                              WL_ESRRF_MPIXELS, 0, 0, EN, 1);
    for (i = 0; i < ERGC; i++) rgc[i] = twin_rgc[i];
    for (v = 0; v < 2; v++) {
        if (!close_to(ref.ergc[v], 0, rgc, ERGC, 1e-5) ||
            !close_to(ref.eacc[v], es_fp64, acc, EACC, 1e-5)) {
            print_error("esrrf (%s): the fault-free run differs from the host twins\n",
                        v ? "chained" : "fused");
            fail();
        }
    }
}

/* A backend destroyed under a stream: refused (the log names the stream), nothing freed; with
   the stream gone it goes, and the k-th allocation failing at the hold is a clean error (the
   stream path's sweep above covers it: the hold's node is one of its allocations). */
static void test_backend_held_by_stream(void **state)
{
    hst_backend *be = NULL;
    hst_backend_desc bd;
    wl_stream_ctx c;
    hst_stream *s = NULL;
    hst_stream_report rep;
    (void)state;
    memset(&bd, 0, sizeof bd);
    bd.logger = quiet_logger;
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    memcpy(&cur, &pristine, sizeof cur);
    assert_int_equal(wl_stream_create(&be, 1, &SCFG, cur.x, cur.p, cur.d, &c, &s), HST_SUCCESS);
    assert_int_equal(hst_backend_holds(be), 1);
    log_errors = 0;
    assert_int_equal(hst_backend_destroy(be), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log_errors, 1);
    assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);   /* the backend is still whole */
    assert_memory_equal(cur.d, ref.d, sizeof cur.d);
    hst_stream_destroy(s);
    assert_int_equal(hst_backend_holds(be), 0);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_sane),
        cmocka_unit_test(test_reference_esrrf),
        cmocka_unit_test(test_faults_arrays),
        cmocka_unit_test(test_faults_stream),
        cmocka_unit_test(test_faults_halo),
        cmocka_unit_test(test_faults_program),
        cmocka_unit_test(test_faults_esrrf),
        cmocka_unit_test(test_backend_held_by_stream),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
