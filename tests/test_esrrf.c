/* tests/test_esrrf.c — kernels_esrrf.h's kernels, run through stream.h on the device HST_DEVICE
   picks (on the host device, stream.h runs the host twins; the same stream description works
   on every device):
   - every kernel against its host twin: roberts, magnify, rgc and rgc_fused bitwise (every
     sensitivity: a non-integer one's power is a fixed sequence on both sides), temporal bitwise
     with fp64 (float sums otherwise: within float rounding); fused == chained RGC bitwise;
   - hst_k_esrrf_rgc_fused_host_rows: frames split into row calls (thirds, one row per call,
     an end past the last row), mag 1..8, radius 0.5..4 (and 12: the per-sample path),
     sensitivity 1, 2, 2.5, weighting on and off, bitwise the whole-frame twin and the device;
   - the whole pipeline (per-frame RGC, temporal AVG/VAR/TAC2, macro-pixel correction) against
     an independent double-precision reference written here from REFERENCE.md section 2's
     formulas (margins, half-pixel centres, the clamped gradient index, ...): every mode with
     macro-pixel correction within 1e-4 of the peak and Pearson r >= 0.999999 (with fp64 sums);
   - streamed == whole-stack results over block sizes that split the stack unevenly and
     frames-per-time-point values that split blocks;
   - two blinking emitters 2.5 px apart (PSF sigma 1.5 px) are resolved in the eSRRF image and
     not in the mean image;
   - the fma sequences (hst_k_esrrf_rcp, _div, _rsqrt) against correctly rounded results, within
     the bounds kernels_esrrf.h states; the device's fused RGC == the row twin on 13 x 11 frames for
     every mag 1..8 x radius 0.5, 1, 1.5, 3 x weighting off/on; frames scaled by 2^117 (|G|^2
     beyond float) give finite RGC, bitwise that of the frames unscaled;
   - every declared kernel (kernels_esrrf.h's HST_ESRRF_KERNELS) through hst_launch_kernel, its
     range in two launches: bitwise the typed twin (the kernel on an OpenCL device, the declared
     twin on the host device). */
#define _XOPEN_SOURCE 700   /* setenv: $HST_HOST_ISA */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HST_IMPLEMENTATION
#define HST_KERNELS_TEST_API   /* the fma sequences, exp and the whole-frame fused twin */
#include "stream.h"
#include "kernels_esrrf.h"
#include "esrrf_twins.h"

/* ---- fixture ------------------------------------------------------------------------------ */
/* be_fixture.h's backend on the device under test (its teardown fails the group if a test left
   a pool block in use); the tests reach it as `be`, with the device's program options. */
#include "cap_log.h"
#include "be_fixture.h"

static hst_backend *be;
static int fp64;          /* temporal sums in double: the host device, or an fp64 device */
static char options[256];
static size_t device_options;   /* strlen(options) as the group's set-up made them */

static int group_setup(void **state)
{
    const hst_device_info *info;
    if (setup(state) != 0) return -1;
    be = BE(state);
    info = hst_backend_device(be);
    fp64 = hst_backend_is_host(be) || info->fp64;
    /* no -cl-fp32-correctly-rounded-divide-sqrt: the program has no float division or sqrt */
    snprintf(options, sizeof options, "%s",
             !hst_backend_is_host(be) && info->fp64 ? "-DHST_FP64" : "");
    device_options = strlen(options);
    return 0;
}

/* Each test starts from the device's options (one that fails while building as for CPUs,
   rows_device_case_built, would leave them added) */
static int test_setup(void **state)
{
    (void)state;
    options[device_options] = '\0';
    return 0;
}

static int group_teardown(void **state)
{
    be = NULL;
    return teardown(state);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    assert_non_null(p);
    return p;
}

/* ---- deterministic randomness (xorshift64*) ------------------------------------------------ */
static uint64_t rng_state = 1;
static void rng_seed(uint64_t s) { rng_state = s ? s : 1; }
static double rng_uniform(void)   /* [0, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static double rng_normal(void)
{
    double u1 = 1.0 - rng_uniform(), u2 = rng_uniform();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Frames of blurred random spots on a background, with noise: gradients in every direction. */
static float *make_frames(uint32_t N, uint32_t rows, uint32_t cols, uint64_t seed)
{
    float *f = (float *)xcalloc((size_t)N * rows * cols, sizeof *f);
    uint32_t z, k, y, x;
    rng_seed(seed);
    for (z = 0; z < N; z++)
        for (k = 0; k < 6; k++) {
            double py = rng_uniform() * rows, px = rng_uniform() * cols, a = 20.0 + 80.0 * rng_uniform();
            for (y = 0; y < rows; y++)
                for (x = 0; x < cols; x++) {
                    double dy = y + 0.5 - py, dx = x + 0.5 - px;
                    f[((size_t)z * rows + y) * cols + x] += (float)(a * exp(-(dx * dx + dy * dy) / 4.5));
                }
        }
    for (k = 0; k < N * rows * cols; k++) f[k] += (float)(10.0 + rng_normal());
    return f;
}

/* ---- the stream: chained or fused RGC, then (optionally) the temporal sums ------------------ */
typedef struct epipe {
    /* configuration */
    const float *frames;
    uint32_t N, rows, cols, mag;
    float radius, sens;
    int iw, fused, temporal;
    uint32_t T;                    /* frames per time point, 0: all */
    uint64_t block;                /* 0: whole stack */
    /* outputs (NULL: TEMP / not run) */
    float *grad, *grad2, *M, *rgc;
    void *acc;                     /* ntp * 5 * P values, double when fp64 else float */
    /* kernel scalars (the stages point at these) */
    uint32_t one, two, P, row0, rowsM, colsM, rowsM2, colsM2;
    float magv[2], mag2v[2], zerov[2];   /* magnify's float2 magnifications and shifts */
    et_temporal_par tpar;
} epipe;

static void stage_init(hst_stream_stage *st, const char *kernel, hst_stream_host_fn host,
                       size_t items)
{
    size_t count;
    memset(st, 0, sizeof *st);
    st->name = kernel;
    st->sources = hst_kernels_esrrf_source(&count);
    st->num_sources = count;
    st->options = options;
    st->kernel = kernel;
    st->host = host;
    st->items_per_slice = items;
}

static void scalar(hst_stream_stage *st, const void *p, size_t bytes)
{
    st->scalars[st->num_scalars] = p;
    st->scalar_bytes[st->num_scalars++] = bytes;
}

static uint32_t n_tp(const epipe *p) { return p->T ? (p->N + p->T - 1) / p->T : 1; }
static size_t acc_elem(void) { return fp64 ? sizeof(double) : sizeof(float); }

/* Builds and runs the stream. Array indices: 0 frames, 1 grad, 2 grad2, 3 M, 4 rgc, 5 acc. */
static void run_pipe(epipe *p)
{
    hst_stream_array arr[6];
    hst_stream_stage st[5];
    static const int in0[1] = {0}, in1[1] = {1}, in223[3] = {2, 2, 3}, in4[1] = {4};
    static const int o11[2] = {1, 1}, o2[1] = {2}, o3[1] = {3}, o4[1] = {4}, o5[1] = {5};
    hst_stream_desc desc;
    hst_stream *s = NULL;
    hst_result r;
    size_t n = (size_t)p->rows * p->cols, nM = n * p->mag * p->mag;
    unsigned ns = 0;
    memset(arr, 0, sizeof arr);
    memset(&desc, 0, sizeof desc);
    p->row0 = 0;
    p->rowsM = p->rows * p->mag;
    p->colsM = p->cols * p->mag;
    p->rowsM2 = 2 * p->rowsM;
    p->colsM2 = 2 * p->colsM;
    p->magv[0] = p->magv[1] = (float)p->mag;
    p->mag2v[0] = p->mag2v[1] = (float)(2 * p->mag);
    p->zerov[0] = p->zerov[1] = 0.0f;
    p->one = 1;
    p->two = 2;
    p->P = (uint32_t)nM;
    arr[0].kind = HST_STREAM_INPUT;
    arr[0].host = (void *)(uintptr_t)p->frames;
    arr[0].slice_bytes = n * sizeof(float);
    arr[1].slice_bytes = 2 * n * sizeof(float);
    arr[2].slice_bytes = 8 * nM * sizeof(float);
    arr[3].slice_bytes = nM * sizeof(float);
    arr[4].slice_bytes = nM * sizeof(float);
    arr[1].host = p->grad;
    arr[2].host = p->grad2;
    arr[3].host = p->M;
    arr[4].host = p->rgc;
    arr[1].kind = p->grad ? HST_STREAM_OUTPUT : HST_STREAM_TEMP;
    arr[2].kind = p->grad2 ? HST_STREAM_OUTPUT : HST_STREAM_TEMP;
    arr[3].kind = p->M ? HST_STREAM_OUTPUT : HST_STREAM_TEMP;
    arr[4].kind = p->rgc ? HST_STREAM_OUTPUT : HST_STREAM_TEMP;
    arr[5].kind = HST_STREAM_GLOBAL;
    arr[5].host = p->acc;
    arr[5].dtype = fp64 ? HST_F64 : HST_F32;
    arr[5].global_bytes = (size_t)n_tp(p) * 5 * nM * acc_elem();
    if (!p->fused) {
        /* the gradients: one interleaved array as grad_col and grad_row (gstep 2, groff 1) */
        stage_init(&st[ns], "hst_k_esrrf_roberts", et_roberts, n);
        scalar(&st[ns], &p->rows, 4); scalar(&st[ns], &p->cols, 4);
        scalar(&st[ns], &p->two, 4); scalar(&st[ns], &p->one, 4);
        st[ns].num_inputs = 1; st[ns].inputs = in0; st[ns].num_outputs = 2; st[ns].outputs = o11;
        ns++;
        stage_init(&st[ns], "hst_k_esrrf_magnify", et_magnify, 4 * nM);
        scalar(&st[ns], &p->rows, 4); scalar(&st[ns], &p->cols, 4);
        scalar(&st[ns], &p->rowsM2, 4); scalar(&st[ns], &p->colsM2, 4);
        scalar(&st[ns], p->mag2v, 8); scalar(&st[ns], p->zerov, 8); scalar(&st[ns], &p->two, 4);
        st[ns].num_inputs = 1; st[ns].inputs = in1; st[ns].num_outputs = 1; st[ns].outputs = o2;
        ns++;
        stage_init(&st[ns], "hst_k_esrrf_magnify", et_magnify, nM);
        scalar(&st[ns], &p->rows, 4); scalar(&st[ns], &p->cols, 4);
        scalar(&st[ns], &p->rowsM, 4); scalar(&st[ns], &p->colsM, 4);
        scalar(&st[ns], p->magv, 8); scalar(&st[ns], p->zerov, 8); scalar(&st[ns], &p->one, 4);
        st[ns].num_inputs = 1; st[ns].inputs = in0; st[ns].num_outputs = 1; st[ns].outputs = o3;
        ns++;
        stage_init(&st[ns], "hst_k_esrrf_rgc", et_rgc, nM);
        st[ns].num_inputs = 3; st[ns].inputs = in223;
    } else {
        stage_init(&st[ns], "hst_k_esrrf_rgc_fused", et_rgc_fused, nM);
        st[ns].num_inputs = 1; st[ns].inputs = in0;
    }
    scalar(&st[ns], &p->rows, 4); scalar(&st[ns], &p->cols, 4); scalar(&st[ns], &p->mag, 4);
    scalar(&st[ns], &p->radius, 4); scalar(&st[ns], &p->sens, 4); scalar(&st[ns], &p->iw, 4);
    if (p->fused) { scalar(&st[ns], &p->row0, 4); scalar(&st[ns], &p->rowsM, 4); }   /* whole frames */
    else { scalar(&st[ns], &p->two, 4); scalar(&st[ns], &p->one, 4); }                /* gstep, groff */
    st[ns].num_outputs = 1; st[ns].outputs = o4;
    ns++;
    if (p->temporal) {
        stage_init(&st[ns], "hst_k_esrrf_temporal", et_temporal, nM);
        et_temporal_whole(&p->tpar, p->P, p->T, p->N);
        et_temporal_scalars(&st[ns], &p->tpar);
        st[ns].num_inputs = 1; st[ns].inputs = in4; st[ns].num_outputs = 1; st[ns].outputs = o5;
        st[ns].halo_lo = 1;
        st[ns].loop_slices = 1;
        ns++;
    }
    desc.backends = &be;
    desc.num_backends = 1;
    desc.num_slices = p->N;
    desc.arrays = arr;
    desc.num_arrays = p->temporal ? 6 : 5;
    desc.stages = st;
    desc.num_stages = ns;
    desc.block_slices = p->block;
    r = hst_stream_create(&desc, &s);
    if (r != HST_SUCCESS) print_error("hst_stream_create: %s\n", hst_result_string(r));
    assert_int_equal(r, HST_SUCCESS);
    r = hst_stream_run(s, NULL);
    hst_stream_destroy(s);
    assert_int_equal(r, HST_SUCCESS);
}

/* acc as doubles (widened from float on a device without fp64) */
static double *acc_double(const epipe *p)
{
    size_t n = (size_t)n_tp(p) * 5 * p->P, i;
    double *d = (double *)xcalloc(n, sizeof *d);
    for (i = 0; i < n; i++)
        d[i] = fp64 ? ((const double *)p->acc)[i] : (double)((const float *)p->acc)[i];
    return d;
}

/* ---- comparisons ---------------------------------------------------------------------------- */
static void expect_bitwise(const char *what, const float *got, const float *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            print_error("%s: element %zu: got %.9g want %.9g (not bitwise)\n", what, i,
                        (double)got[i], (double)want[i]);
            fail();
        }
}

/* |got - want| <= rel * max|want| everywhere; returns the largest error relative to max|want| */
static double expect_close(const char *what, const float *got, const double *want, size_t n,
                           double rel)
{
    double m = 0.0, worst = 0.0;
    size_t i, at = 0;
    for (i = 0; i < n; i++) m = fabs(want[i]) > m ? fabs(want[i]) : m;
    for (i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (e > worst) { worst = e; at = i; }
    }
    worst = m > 0 ? worst / m : worst;
    if (worst > rel) {
        print_error("%s: element %zu: got %.9g want %.9g: error %.3g of max %.3g > %.3g\n", what,
                    at, (double)got[at], want[at], worst, m, rel);
        fail();
    }
    return worst;
}

/* Pearson's r of got against want (1 for two equal constant images) */
static double pearson(const float *got, const double *want, size_t n)
{
    double mg = 0.0, mw = 0.0, sgg = 0.0, sww = 0.0, sgw = 0.0;
    size_t i;
    for (i = 0; i < n; i++) { mg += got[i]; mw += want[i]; }
    mg /= (double)n;
    mw /= (double)n;
    for (i = 0; i < n; i++) {
        double a = got[i] - mg, b = want[i] - mw;
        sgg += a * a; sww += b * b; sgw += a * b;
    }
    return sgg > 0.0 && sww > 0.0 ? sgw / sqrt(sgg * sww) : (sgg == sww ? 1.0 : 0.0);
}

/* ============================================================================================
   1. Every kernel against its host twin; fused == chained. */
static void twins_case(uint32_t mag, float radius, float sens, int iw, uint32_t T)
{
    const uint32_t N = 4, rows = 24, cols = 20;
    size_t n = (size_t)rows * cols, nM = n * mag * mag, i;
    float *frames = make_frames(N, rows, cols, 7 + mag);
    float *grad = (float *)xcalloc(N * 2 * n, sizeof(float)), *grad2 = (float *)xcalloc(N * 8 * nM, sizeof(float));
    float *M = (float *)xcalloc(N * nM, sizeof(float)), *rgc = (float *)xcalloc(N * nM, sizeof(float));
    float *rgcf = (float *)xcalloc(N * nM, sizeof(float));
    float *tg = (float *)xcalloc(N * 2 * n, sizeof(float)), *tg2 = (float *)xcalloc(N * 8 * nM, sizeof(float));
    float *tM = (float *)xcalloc(N * nM, sizeof(float)), *tr = (float *)xcalloc(N * nM, sizeof(float));
    float *tf = (float *)xcalloc(N * nM, sizeof(float));
    epipe p;
    uint32_t ntp;
    double *tacc, *dacc;
    char what[160];
    memset(&p, 0, sizeof p);
    p.frames = frames; p.N = N; p.rows = rows; p.cols = cols; p.mag = mag;
    p.radius = radius; p.sens = sens; p.iw = iw; p.T = T; p.temporal = 1; p.block = 3;
    p.grad = grad; p.grad2 = grad2; p.M = M; p.rgc = rgc;
    ntp = n_tp(&p);
    p.acc = xcalloc((size_t)ntp * 5 * nM, acc_elem());
    run_pipe(&p);
    /* the twins over the whole stack */
    hst_k_esrrf_roberts_host(frames, tg, tg, rows, cols, 2, 1, 0, 0, N, N);
    hst_k_esrrf_magnify_host(tg, tg2, rows, cols, 2 * rows * mag, 2 * cols * mag, (float)(2 * mag),
                             (float)(2 * mag), 0.0f, 0.0f, 2, 0, 0, N, N);
    hst_k_esrrf_magnify_host(frames, tM, rows, cols, rows * mag, cols * mag, (float)mag, (float)mag, 0.0f,
                             0.0f, 1, 0, 0, N, N);
    hst_k_esrrf_rgc_host(tg2, tg2, tM, tr, rows, cols, mag, radius, sens, iw, 2, 1, 0, 0, N, N);
    hst_k_esrrf_rgc_fused_host(frames, tf, rows, cols, mag, radius, sens, iw, 0, 0, N, N);
    snprintf(what, sizeof what, "mag %u radius %g sens %g iw %d", mag, (double)radius, (double)sens, iw);
    expect_bitwise("roberts", grad, tg, N * 2 * n);
    expect_bitwise("magnify 2 channels", grad2, tg2, N * 8 * nM);
    expect_bitwise("magnify", M, tM, N * nM);
    expect_bitwise("rgc", rgc, tr, N * nM);
    /* fused == chained, twins and device */
    expect_bitwise("fused twin == chained twin", tf, tr, N * nM);
    p.fused = 1; p.grad = p.grad2 = p.M = NULL; p.rgc = rgcf;
    memset(p.acc, 0, (size_t)ntp * 5 * nM * acc_elem());
    run_pipe(&p);
    expect_bitwise("fused == chained (device)", rgcf, rgc, N * nM);
    /* temporal: twin on the device's RGC */
    tacc = (double *)xcalloc((size_t)ntp * 5 * nM, sizeof *tacc);
    hst_k_esrrf_temporal_host(rgcf, tacc, (uint32_t)nM, T, ntp, 0, 0, N, 0, (uint32_t)nM, 0, 0, N, 1);
    dacc = acc_double(&p);
    for (i = 0; i < (size_t)ntp * 5 * nM; i++) {
        double e = fabs(dacc[i] - tacc[i]);
        if (fp64 ? memcmp(&dacc[i], &tacc[i], sizeof(double)) != 0 : e > 1e-6 * fabs(tacc[i]) + 1e-30) {
            print_error("%s: temporal acc %zu: got %.17g want %.17g\n", what, i, dacc[i], tacc[i]);
            fail();
        }
    }
    free(tacc); free(dacc); free(p.acc);
    free(frames); free(grad); free(grad2); free(M); free(rgc); free(rgcf);
    free(tg); free(tg2); free(tM); free(tr); free(tf);
}

static void test_twins(void **state)
{
    (void)state;
    twins_case(2, 1.5f, 1.0f, 1, 0);
    twins_case(3, 1.0f, 2.0f, 0, 2);
    twins_case(5, 1.5f, 1.0f, 1, 3);
    twins_case(4, 2.0f, 1.5f, 1, 4);
}

/* ============================================================================================
   1b. hst_k_esrrf_rgc_fused_host_rows: any split of a frame's rows into calls gives bitwise
   what hst_k_esrrf_rgc_fused_host writes, and what the device's fused kernel writes. */

/* Frame z of frames by row calls split at cuts[0..ncut) (each clipped to rowsM); rows not
   covered keep their sentinel */
static void rows_by_calls(const float *frame, float *out, uint32_t rows, uint32_t cols,
                          uint32_t mag, float radius, float sens, int iw, const uint32_t *cuts,
                          unsigned ncut)
{
    unsigned c;
    for (c = 0; c + 1 < ncut; c++)
        hst_k_esrrf_rgc_fused_host_rows(frame, out, rows, cols, mag, radius, sens, iw, cuts[c],
                                        cuts[c + 1]);
}

/* Every split below of frame 1 of a 2-frame stack, against the twin over the stack */
static void rows_case(uint32_t rows, uint32_t cols, uint32_t mag, float radius, float sens,
                      int iw, const float *frames, const float *whole)
{
    uint32_t rowsM = rows * mag, third = rowsM / 3;
    size_t n = (size_t)rows * cols, nM = n * mag * mag, i;
    float *got = (float *)xcalloc(nM, sizeof(float));
    char what[160];
    const uint32_t split3[4] = {0, third, 2 * third + 1, rowsM};
    const uint32_t past[3] = {0, rowsM / 2, rowsM + 7};   /* the end clipped to rowsM */
    uint32_t ones[1024];
    unsigned k, s;
    assert_true(rowsM < 1023);
    for (k = 0; k <= rowsM; k++) ones[k] = k;              /* one row per call */
    snprintf(what, sizeof what, "rows: %ux%u mag %u radius %g sens %g iw %d", rows, cols, mag,
             (double)radius, (double)sens, iw);
    for (s = 0; s < 3; s++) {
        for (i = 0; i < nM; i++) got[i] = -1.0f;            /* sentinel: every row is written */
        if (s == 0) rows_by_calls(frames + n, got, rows, cols, mag, radius, sens, iw, split3, 4);
        else if (s == 1) rows_by_calls(frames + n, got, rows, cols, mag, radius, sens, iw, past, 3);
        else rows_by_calls(frames + n, got, rows, cols, mag, radius, sens, iw, ones, rowsM + 1);
        expect_bitwise(what, got, whole + nM, nM);
    }
    /* an empty range and a range past the end write nothing */
    for (i = 0; i < nM; i++) got[i] = -1.0f;
    hst_k_esrrf_rgc_fused_host_rows(frames + n, got, rows, cols, mag, radius, sens, iw, third, third);
    hst_k_esrrf_rgc_fused_host_rows(frames + n, got, rows, cols, mag, radius, sens, iw, rowsM, rowsM + 5);
    for (i = 0; i < nM; i++) assert_true(got[i] == -1.0f);
    free(got);
}

/* The device's fused RGC of the stack against the row calls of each frame */
static void rows_device_case(uint32_t rows, uint32_t cols, uint32_t mag, float radius,
                             float sens, int iw, const float *frames)
{
    size_t n = (size_t)rows * cols, nM = n * mag * mag;
    float *dev = (float *)xcalloc(2 * nM, sizeof(float)), *host = (float *)xcalloc(2 * nM, sizeof(float));
    const uint32_t cuts[3] = {0, rows * mag / 2 + 1, rows * mag};
    epipe p;
    unsigned z;
    memset(&p, 0, sizeof p);
    p.frames = frames; p.N = 2; p.rows = rows; p.cols = cols; p.mag = mag;
    p.radius = radius; p.sens = sens; p.iw = iw; p.fused = 1; p.rgc = dev;
    run_pipe(&p);
    for (z = 0; z < 2; z++)
        rows_by_calls(frames + z * n, host + z * nM, rows, cols, mag, radius, sens, iw, cuts, 3);
    expect_bitwise("rows == device fused", host, dev, 2 * nM);
    free(dev);
    free(host);
}

/* rows_device_case with the kernel built with extra build options (the device's, then these) */
static void rows_device_case_built(uint32_t rows, uint32_t cols, uint32_t mag, float radius,
                                   float sens, int iw, const float *frames, const char *extra)
{
    size_t n = strlen(options);
    int w = snprintf(options + n, sizeof options - n, " %s", extra);
    assert_true(w > 0 && (size_t)w < sizeof options - n);
    rows_device_case(rows, cols, mag, radius, sens, iw, frames);
    options[n] = '\0';
}

/* ... built as esrrf.h builds it for CPU devices (HST_K_ESRRF_CPU_OPTIONS and
   HST_K_ESRRF_CPU_K(mag): the same-phase pixels' sample loop and intensity one vector, over the
   tile's copy by columns; the magnification a constant), and as for NVIDIA GPUs (the
   magnification and radius constants; hst_k_esrrf_nv_options in 48 KiB of local memory with the radius's (w, wd) table where esrrf.h passes it: the tile shrunk beside a
   large one; HST_K_ESRRF_NV_NP same-phase pixels an item, the intensity from hst_e_itab's
   table where it fits), on any OpenCL device: the twin's bits each way */
static void rows_device_case_builds(uint32_t rows, uint32_t cols, uint32_t mag, float radius,
                                    float sens, int iw, const float *frames)
{
    uint64_t need = hst_k_esrrf_wtab_entries(mag, radius);
    char cpu[160], nv[256];
    int k;
    snprintf(cpu, sizeof cpu, "%s -DHST_E_K=%u -DHST_E_MAG=%u", HST_K_ESRRF_CPU_OPTIONS, HST_K_ESRRF_CPU_K(mag), mag);
    k = snprintf(nv, sizeof nv, "-DHST_E_K=40 -DHST_E_MAG=%u -DHST_E_RADIUS=%af ", mag, (double)radius);
    if (need <= HST_K_ESRRF_WTAB || 8 * (need + HST_K_ESRRF_NV_TILE) > 48 * 1024) need = 0;
    assert_true(hst_k_esrrf_nv_options(mag, radius, need, 48 * 1024, nv + k, sizeof nv - (size_t)k) > 0);
    rows_device_case_built(rows, cols, mag, radius, sens, iw, frames, cpu);
    rows_device_case_built(rows, cols, mag, radius, sens, iw, frames, nv);
}

static void test_fused_rows(void **state)
{
    static const float radii[5] = {0.5f, 1.0f, 1.5f, 2.5f, 4.0f}, sens[3] = {1.0f, 2.0f, 2.5f};
    const uint32_t rows = 13, cols = 11;
    float *frames = make_frames(2, rows, cols, 99);
    uint32_t mag;
    unsigned r, s, iw;
    (void)state;
    for (mag = 1; mag <= 8; mag++) {
        size_t nM = (size_t)rows * cols * mag * mag;
        float *whole = (float *)xcalloc(2 * nM, sizeof(float));
        for (r = 0; r < 5; r++)
            for (s = 0; s < 3; s++)
                for (iw = 0; iw < 2; iw++) {
                    hst_k_esrrf_rgc_fused_host(frames, whole, rows, cols, mag, radii[r], sens[s],
                                               (int)iw, 0, 0, 2, 2);
                    rows_case(rows, cols, mag, radii[r], sens[s], (int)iw, frames, whole);
                }
        rows_device_case(rows, cols, mag, radii[mag % 5], sens[mag % 3], (int)(mag & 1), frames);
        free(whole);
    }
    free(frames);
    {   /* a radius whose samples exceed the row path's tile: the per-sample path, same bits */
        const uint32_t R = 40, C = 36;
        size_t nM = (size_t)R * C * 4;
        float *f = make_frames(2, R, C, 5), *whole = (float *)xcalloc(2 * nM, sizeof(float));
        hst_k_esrrf_rgc_fused_host(f, whole, R, C, 2, 12.0f, 1.0f, 1, 0, 0, 2, 2);
        rows_case(R, C, 2, 12.0f, 1.0f, 1, f, whole);
        rows_device_case(R, C, 2, 12.0f, 1.0f, 1, f);
        free(f);
        free(whole);
    }
}

/* ============================================================================================
   2. An independent reference from REFERENCE.md section 2, in double. */
static double ref_cubic(double v)
{
    v = fabs(v);
    if (v < 1) return 1.5 * v * v * v - 2.5 * v * v + 1;
    if (v < 2) return -0.5 * v * v * v + 2.5 * v * v - 4 * v + 2;
    return 0;
}

/* shift-and-magnify by m: out (rows*m x cols*m) samples in at r = rM / m, c = cM / m */
static double *ref_magnify(const double *in, int rows, int cols, int m)
{
    int rM, cM, n, k;
    double *out = (double *)xcalloc((size_t)rows * m * cols * m, sizeof *out);
    for (rM = 0; rM < rows * m; rM++)
        for (cM = 0; cM < cols * m; cM++) {
            double r = (double)rM / m, c = (double)cM / m, v = 0;
            int r0 = (int)floor(r - 0.5), c0 = (int)floor(c - 0.5);
            for (n = r0 - 1; n <= r0 + 2; n++)
                for (k = c0 - 1; k <= c0 + 2; k++)
                    if (n >= 0 && n < rows && k >= 0 && k < cols)
                        v += in[n * cols + k] * ref_cubic(r - (n + 0.5)) * ref_cubic(c - (k + 0.5));
            out[(size_t)rM * cols * m + cM] = v;
        }
    return out;
}

/* one frame's RGC map (rows*m x cols*m) */
static void ref_rgc_frame(const float *f, int rows, int cols, int m, double radius, double s,
                          int iw, double *out)
{
    int n = rows * cols, r1, c1, yM, xM, i, j, rowsM = rows * m, colsM = cols * m;
    int margin = (int)(radius * m), rows2 = 2 * rows * m, cols2 = 2 * cols * m;
    double *I = (double *)xcalloc((size_t)n, sizeof *I), *Gc = (double *)xcalloc((size_t)n, sizeof *Gc);
    double *Gr = (double *)xcalloc((size_t)n, sizeof *Gr), *M, *Gc2, *Gr2;
    double sigma = radius / 2.355, tSS = 2 * sigma * sigma, tSO = 2 * sigma + 1, G = 2;
    for (i = 0; i < n; i++) I[i] = f[i];
    for (r1 = 0; r1 < rows; r1++)
        for (c1 = 0; c1 < cols; c1++) {
            int r0 = r1 > 0 ? r1 - 1 : 0, c0 = c1 > 0 ? c1 - 1 : 0;
            Gc[r1 * cols + c1] = I[r0 * cols + c1] + I[r1 * cols + c1] - I[r0 * cols + c0] - I[r1 * cols + c0];
            Gr[r1 * cols + c1] = I[r1 * cols + c0] + I[r1 * cols + c1] - I[r0 * cols + c0] - I[r0 * cols + c1];
        }
    M = ref_magnify(I, rows, cols, m);
    Gc2 = ref_magnify(Gc, rows, cols, 2 * m);
    Gr2 = ref_magnify(Gr, rows, cols, 2 * m);
    for (yM = 0; yM < rowsM; yM++)
        for (xM = 0; xM < colsM; xM++) {
            double xc = (xM + 0.5) / m, yc = (yM + 0.5) / m, R = 0, W = 0;
            if (yM < margin || yM >= rowsM - margin || xM < margin || xM >= colsM - margin) {
                out[yM * colsM + xM] = 0;
                continue;
            }
            for (j = -(int)(G * radius); j < (int)(G * radius + 1); j++)
                for (i = -(int)(G * radius); i < (int)(G * radius + 1); i++) {
                    double vy = ((int)(G * yc) + j) / G, vx = ((int)(G * xc) + i) / G, dx, dy, d, w;
                    double gx, gy;
                    int iy, ix;
                    if (!(0 < vy && vy <= rowsM - 1 && 0 < vx && vx <= colsM - 1)) continue;
                    dx = vx - xc; dy = vy - yc; d = sqrt(dx * dx + dy * dy);
                    if (d == 0 || d > tSO) continue;
                    iy = (int)(vy * m * G); ix = (int)(vx * m * G);
                    iy = iy < 0 ? 0 : iy > rows2 - 1 ? rows2 - 1 : iy;
                    ix = ix < 0 ? 0 : ix > cols2 - 1 ? cols2 - 1 : ix;
                    gx = Gc2[(size_t)iy * cols2 + ix]; gy = Gr2[(size_t)iy * cols2 + ix];
                    w = pow(d * exp(-d * d / tSS), 4);
                    W += w;
                    if (gx * dx + gy * dy < 0) {
                        double Dk = 1 - fabs(gy * dx - gx * dy) / (sqrt(gx * gx + gy * gy) * d);
                        if (isnan(Dk)) Dk = 0;
                        R += Dk * w;
                    }
                }
            R = W > 0 ? R / W : 0;
            if (s > 1) R = pow(R, s);
            if (R < 0) R = 0;
            if (iw) R *= M[yM * colsM + xM];
            out[yM * colsM + xM] = R;
        }
    free(I); free(Gc); free(Gr); free(M); free(Gc2); free(Gr2);
}

/* statistics of frames [t0, t0 + T) of the per-frame maps, two-pass, then macro-pixel */
static void ref_stat(const double *maps, size_t P, int t0, int T, int mode, double *out)
{
    size_t i;
    int t;
    for (i = 0; i < P; i++) {
        double mu = 0, v = 0;
        for (t = 0; t < T; t++) mu += maps[(size_t)(t0 + t) * P + i];
        mu /= T;
        if (mode == 0) v = mu;
        else if (mode == 1) { for (t = 0; t < T; t++) v += pow(maps[(size_t)(t0 + t) * P + i] - mu, 2); v /= T; }
        else if (T > 1) {
            for (t = 0; t + 1 < T; t++)
                v += (maps[(size_t)(t0 + t) * P + i] - mu) * (maps[(size_t)(t0 + t + 1) * P + i] - mu);
            v /= T - 1;
        }
        out[i] = v;
    }
}

static void ref_macro(double *img, int rowsM, int colsM, int m)
{
    int py, px, y, x;
    for (py = 0; py < m; py++)
        for (px = 0; px < m; px++) {
            double c = 0;
            for (y = py; y < rowsM; y += m)
                for (x = px; x < colsM; x += m) c += img[y * colsM + x];
            c /= (double)(rowsM / m) * (colsM / m);
            if (c != 0)
                for (y = py; y < rowsM; y += m)
                    for (x = px; x < colsM; x += m) img[y * colsM + x] /= c;
        }
}

static void reference_case(uint32_t mag, float radius, float sens, int iw, uint32_t T, int fused)
{
    const uint32_t N = 7, rows = 16, cols = 14;
    size_t nM = (size_t)rows * cols * mag * mag, z, i;
    uint32_t rowsM = rows * mag, colsM = cols * mag, ntp, tp, y, x, margin = (uint32_t)(radius * mag);
    float *frames = make_frames(N, rows, cols, 99 + mag);
    float *rgc = (float *)xcalloc(N * nM, sizeof(float)), *img = (float *)xcalloc(nM, sizeof(float));
    double *maps = (double *)xcalloc(N * nM, sizeof(double)), *want = (double *)xcalloc(nM, sizeof(double));
    double *acc, worst = 0.0;
    int mode;
    char what[160];
    epipe p;
    memset(&p, 0, sizeof p);
    p.frames = frames; p.N = N; p.rows = rows; p.cols = cols; p.mag = mag;
    p.radius = radius; p.sens = sens; p.iw = iw; p.T = T; p.temporal = 1; p.fused = fused;
    p.rgc = rgc;
    ntp = n_tp(&p);
    p.acc = xcalloc((size_t)ntp * 5 * nM, acc_elem());
    run_pipe(&p);
    for (z = 0; z < N; z++)
        ref_rgc_frame(frames + z * rows * cols, (int)rows, (int)cols, (int)mag, radius, sens, iw, maps + z * nM);
    snprintf(what, sizeof what, "reference mag %u radius %g sens %g iw %d T %u %s", mag,
             (double)radius, (double)sens, iw, T, fused ? "fused" : "chained");
    /* per-frame maps, margins exactly 0 */
    for (z = 0; z < N; z++)
        for (y = 0; y < rowsM; y++)
            for (x = 0; x < colsM; x++)
                if ((y < margin || y >= rowsM - margin || x < margin || x >= colsM - margin) &&
                    rgc[z * nM + (size_t)y * colsM + x] != 0.0f) {
                    print_error("%s: margin pixel (%u, %u) of frame %zu is %g\n", what, y, x, z,
                                (double)rgc[z * nM + (size_t)y * colsM + x]);
                    fail();
                }
    for (z = 0; z < N; z++) {
        double e = expect_close(what, rgc + z * nM, maps + z * nM, nM, 2e-5);
        worst = e > worst ? e : worst;
    }
    acc = acc_double(&p);
    for (mode = 0; mode < 3; mode++)
        for (tp = 0; tp < ntp; tp++) {
            int t0 = (int)(tp * (T ? T : N)), nt = T ? (int)T : (int)N;
            if (t0 + nt > (int)N) nt = (int)N - t0;
            hst_k_esrrf_finalize(mode, acc + (size_t)tp * 5 * nM, nM, (uint32_t)nt, img);
            et_macro_pixel(img, rowsM, colsM, mag);
            ref_stat(maps, nM, t0, nt, mode, want);
            ref_macro(want, (int)rowsM, (int)colsM, (int)mag);
            for (i = 0; i < nM; i++)
                if (want[i] == 0.0 && img[i] != 0.0f) {
                    print_error("%s mode %d: pixel %zu: got %g want exactly 0\n", what, mode, i, (double)img[i]);
                    fail();
                }
            /* VAR and TAC2 subtract terms of size mu^2: float sums (no fp64) lose ~1e-7 mu^2 */
            worst = fmax(worst, expect_close(what, img, want, nM, mode == 0 || fp64 ? 1e-4 : 5e-2));
            /* the accuracy asked against NanoPyx (bench/esrrf_nanopyx_compare.py): r >= 0.999999 */
            if (mode == 0 || fp64) {
                double r = pearson(img, want, nM);
                if (!(r >= 0.999999)) {
                    print_error("%s mode %d: Pearson r %.9f < 0.999999\n", what, mode, r);
                    fail();
                }
            }
        }
    print_message("# %s: largest error %.3g of the image maximum\n", what, worst);
    free(acc); free(p.acc); free(frames); free(rgc); free(img); free(maps); free(want);
}

static void test_reference(void **state)
{
    (void)state;
    reference_case(2, 1.5f, 1.0f, 1, 0, 1);
    reference_case(3, 1.0f, 2.0f, 0, 3, 0);
    reference_case(5, 1.5f, 1.0f, 1, 4, 1);
    reference_case(4, 1.3f, 1.0f, 1, 2, 0);
}

/* ============================================================================================
   3. Streamed == whole stack: per-frame maps, the sums and AVG/VAR/TAC2, bitwise. */
static void test_streamed(void **state)
{
    const uint32_t N = 13, rows = 12, cols = 10, mag = 3;
    static const uint64_t blocks[] = {1, 2, 4, 5, 6};
    static const uint32_t Ts[] = {0, 4, 5, 3};
    size_t nM = (size_t)rows * cols * mag * mag, bytes;
    float *frames = make_frames(N, rows, cols, 5);
    unsigned b, t;
    int fused;
    (void)state;
    for (fused = 0; fused < 2; fused++)
        for (t = 0; t < sizeof Ts / sizeof Ts[0]; t++) {
            epipe whole;
            float *wr = (float *)xcalloc(N * nM, sizeof(float));
            memset(&whole, 0, sizeof whole);
            whole.frames = frames; whole.N = N; whole.rows = rows; whole.cols = cols;
            whole.mag = mag; whole.radius = 1.5f; whole.sens = 1.0f; whole.iw = 1;
            whole.T = Ts[t]; whole.temporal = 1; whole.fused = fused; whole.rgc = wr;
            bytes = (size_t)n_tp(&whole) * 5 * nM * acc_elem();
            whole.acc = xcalloc(1, bytes);
            run_pipe(&whole);
            for (b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
                epipe p = whole;
                float *r = (float *)xcalloc(N * nM, sizeof(float));
                double *da, *dw;
                float *s1 = (float *)xcalloc(nM, sizeof(float)), *s2 = (float *)xcalloc(nM, sizeof(float));
                uint32_t tp, mode;
                p.block = blocks[b];
                p.rgc = r;
                p.acc = xcalloc(1, bytes);
                run_pipe(&p);
                expect_bitwise("streamed rgc", r, wr, N * nM);
                if (memcmp(p.acc, whole.acc, bytes) != 0) {
                    print_error("fused %d T %u block %u: temporal sums differ\n", fused, Ts[t], (unsigned)blocks[b]);
                    fail();
                }
                da = acc_double(&p);
                dw = acc_double(&whole);
                for (tp = 0; tp < n_tp(&p); tp++)
                    for (mode = 0; mode < 3; mode++) {
                        uint32_t T = Ts[t] ? Ts[t] : N, nt = tp * T + T > N ? N - tp * T : T;
                        hst_k_esrrf_finalize((int)mode, da + (size_t)tp * 5 * nM, nM, nt, s1);
                        hst_k_esrrf_finalize((int)mode, dw + (size_t)tp * 5 * nM, nM, nt, s2);
                        expect_bitwise("streamed statistic", s1, s2, nM);
                    }
                free(da); free(dw); free(s1); free(s2); free(r); free(p.acc);
            }
            free(wr); free(whole.acc);
        }
    free(frames);
}

/* ============================================================================================
   4. Two emitters closer than the PSF width, blinking independently. */
static void test_blinking(void **state)
{
    const uint32_t N = 100, rows = 20, cols = 20, mag = 4;
    const double sigma = 1.5, py = 10.5, px1 = 8.75, px2 = 11.25, amp = 100.0, bg = 10.0;
    size_t n = (size_t)rows * cols, nM = n * mag * mag, k;
    uint32_t z, y, x, colsM = cols * mag;
    float *frames = (float *)xcalloc(N * n, sizeof(float)), *img = (float *)xcalloc(nM, sizeof(float));
    double *mean = (double *)xcalloc(n, sizeof(double)), *acc;
    epipe p;
    int yM, x1, x2, xm, peak1 = -1, peak2 = -1, xx;
    double v1 = -1, v2 = -1, vmin = 1e300;
    (void)state;
    rng_seed(2024);
    for (z = 0; z < N; z++) {
        int on1 = rng_uniform() < 0.3, on2 = rng_uniform() < 0.3;
        for (y = 0; y < rows; y++)
            for (x = 0; x < cols; x++) {
                double dy = y + 0.5 - py, d1 = x + 0.5 - px1, d2 = x + 0.5 - px2;
                double v = bg + rng_normal();
                if (on1) v += amp * exp(-(d1 * d1 + dy * dy) / (2 * sigma * sigma));
                if (on2) v += amp * exp(-(d2 * d2 + dy * dy) / (2 * sigma * sigma));
                frames[(size_t)z * n + y * cols + x] = (float)v;
                mean[y * cols + x] += v / N;
            }
    }
    /* the mean image: one peak along the row of the emitters (no dip between them) */
    y = (uint32_t)py;
    for (x = (uint32_t)px1; x + 1 <= (uint32_t)px2; x++)
        if (mean[y * cols + x] < mean[y * cols + x - 1] && mean[y * cols + x] < mean[y * cols + x + 1]) {
            print_error("the mean image already resolves the emitters (dip at column %u)\n", x);
            fail();
        }
    memset(&p, 0, sizeof p);
    p.frames = frames; p.N = N; p.rows = rows; p.cols = cols; p.mag = mag;
    p.radius = 1.5f; p.sens = 2.0f; p.iw = 1; p.T = 0; p.temporal = 1; p.fused = 1;
    p.block = 32;
    p.acc = xcalloc(5 * nM, acc_elem());
    run_pipe(&p);
    acc = acc_double(&p);
    hst_k_esrrf_finalize(0, acc, nM, N, img);
    et_macro_pixel(img, rows * mag, cols * mag, mag);
    /* Along the magnified row through the emitters. Magnified pixel xM's RGC centre is input
       position (xM + 0.5) / m, so an emitter at q is near xM = q m - 0.5; but REFERENCE.md's
       Roberts cross stores the difference of pixels c - 1 and c at pixel c, which shifts the
       gradient field (and the eSRRF image) by +0.5 input pixel down and right (NanoPyx's
       later eSRRF compensates with xyoffset = -0.5; the chained path we reproduce does not).
       So the row taken is the brightest within one input pixel below the emitters' row. */
    x1 = (int)(px1 * mag - 0.5);
    x2 = (int)(px2 * mag - 0.5);
    xm = (x1 + x2) / 2;
    yM = (int)(py * mag - 0.5);
    for (xx = yM + 1; xx <= (int)(py * mag - 0.5) + (int)mag; xx++)
        if (img[xx * colsM + xm] > img[yM * colsM + xm]) yM = xx;
    for (xx = x1 - (int)mag; xx <= xm; xx++)
        if (img[yM * colsM + xx] > v1) { v1 = img[yM * colsM + xx]; peak1 = xx; }
    for (xx = xm; xx <= x2 + (int)mag; xx++)
        if (img[yM * colsM + xx] > v2) { v2 = img[yM * colsM + xx]; peak2 = xx; }
    for (xx = peak1; xx <= peak2; xx++) vmin = fmin(vmin, img[yM * colsM + xx]);
    print_message("# blinking: row %d: eSRRF peaks %.4g at x %d and %.4g at x %d (emitters at "
                  "%d, %d), minimum between %.4g (%.0f%%)\n", yM, v1, peak1, v2, peak2, x1, x2,
                  vmin, 100.0 * vmin / fmin(v1, v2));
    assert_true(peak1 < xm && peak2 > xm);
    assert_true(abs(peak1 - x1) <= (int)mag && abs(peak2 - x2) <= (int)mag);
    assert_true(vmin < 0.8 * fmin(v1, v2));
    for (k = 0; k < nM; k++) assert_true(isfinite(img[k]));
    free(acc); free(p.acc); free(frames); free(img); free(mean);
}

/* ============================================================================================
   5. Host functions: finalize's algebra on known sums, macro-pixel's zero-phase rule, exp. */
static void test_host_functions(void **state)
{
    /* one pixel, x = 1, 4, 2, 7: mu 3.5, var 5.25, tac2 ((-2.5)(0.5) + (0.5)(-1.5) + (-1.5)(3.5))/3 */
    const double acc[5] = {14.0, 70.0, 4.0 + 8.0 + 14.0, 1.0, 7.0};
    float out, img[4 * 4];
    float x;
    int i;
    (void)state;
    hst_k_esrrf_finalize(0, acc, 1, 4, &out);
    assert_true(out == 3.5f);
    hst_k_esrrf_finalize(1, acc, 1, 4, &out);
    assert_true(out == 5.25f);
    hst_k_esrrf_finalize(2, acc, 1, 4, &out);
    assert_true(fabs(out - (-1.25 - 0.75 - 5.25) / 3.0) < 1e-6);
    /* phase (0,0) all zero: unchanged; other phases divided by their means */
    for (i = 0; i < 16; i++) img[i] = (float)(i % 2 == 0 && (i / 4) % 2 == 0 ? 0 : 1 + i);
    et_macro_pixel(img, 4, 4, 2);
    assert_true(img[0] == 0.0f && img[2] == 0.0f && img[8] == 0.0f && img[10] == 0.0f);
    assert_true(fabs(img[1] - 2.0 / ((2.0 + 4.0 + 10.0 + 12.0) / 4.0)) < 1e-6);
    for (x = -30.0f; x <= 0.0f; x += 0.0137f) {
        double e = exp((double)x), g = hst_k_esrrf_exp(x);
        assert_true(fabs(g - e) <= 4e-7 * e);
    }
    assert_true(hst_k_esrrf_exp(-100.0f) == 0.0f);
}

/* ============================================================================================
   7. The fma sequences against correctly rounded results (kernels_esrrf.h states the bounds), and
   the RGC with no correctly rounded division or sqrt: device == twin over a grid of odd sizes,
   and finite gradients near FLT_MAX. */
static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* Units in the last place between two finite floats of one sign */
static uint32_t ulps(float a, float b)
{
    uint32_t x = f2u(a), y = f2u(b);
    return x > y ? x - y : y - x;
}

static void test_sequences(void **state)
{
    uint32_t u, worst_rcp = 0, worst_rsqrt = 0, worst_div = 0, e;
    long k, a;
    int b, p;
    (void)state;
    /* rcp: every 97th float of [2^-125, 2^125], both signs; <= 1 ulp */
    for (u = 0x01000000u; u < 0x7E000000u; u += 97) {
        float x = u2f(u);
        e = ulps(hst_k_esrrf_rcp(x), (float)(1.0 / (double)x));
        worst_rcp = e > worst_rcp ? e : worst_rcp;
        assert_true(f2u(hst_k_esrrf_rcp(-x)) == (f2u(hst_k_esrrf_rcp(x)) | 0x80000000u));
    }
    /* rsqrt: every 97th float of [2^-126, 2^125]; <= 1 ulp */
    for (u = 0x00800000u; u < 0x7E000000u; u += 97) {
        float x = u2f(u);
        e = ulps(hst_k_esrrf_rsqrt(x), (float)(1.0 / sqrt((double)x)));
        worst_rsqrt = e > worst_rsqrt ? e : worst_rsqrt;
    }
    /* div: random operands over [2^-60, 2^60] of both signs; <= 1 ulp */
    rng_seed(21);
    for (k = 0; k < 2000000; k++) {
        float x = (float)ldexp(rng_uniform() + 0.5, (int)(rng_uniform() * 120) - 60);
        float y = (float)ldexp(rng_uniform() + 0.5, (int)(rng_uniform() * 120) - 60);
        if (rng_uniform() < 0.5) x = -x;
        e = ulps(hst_k_esrrf_div(x, y), (float)((double)x / (double)y));
        worst_div = e > worst_div ? e : worst_div;
    }
    print_message("# sequences: rcp %u ulp, rsqrt %u ulp, div %u ulp at most (bounds 1, 1, 1)\n",
                  worst_rcp, worst_rsqrt, worst_div);
    assert_true(worst_rcp <= 1 && worst_rsqrt <= 1 && worst_div <= 1);
    /* div correctly rounded on the kernels' operands: integers a / b, (p + 0.5) / b, b <= 64 */
    for (b = 1; b <= 64; b++) {
        for (a = 0; a < (1L << 24); a += a < (1L << 17) ? 1 : 61)
            if (f2u(hst_k_esrrf_div((float)a, (float)b)) != f2u((float)a / (float)b)) {
                print_error("div %ld / %d: %a, not %a\n", a, b,
                            (double)hst_k_esrrf_div((float)a, (float)b), (double)((float)a / (float)b));
                fail();
            }
        for (p = 0; p < b; p++)
            assert_true(f2u(hst_k_esrrf_div((float)p + 0.5f, (float)b)) ==
                        f2u(((float)p + 0.5f) / (float)b));
    }
}

/* On an OpenCL device: the fused kernel launched straight (not through stream.h) on NDRanges of
   other shapes, each frame's 27 x 19 pixels (mag 1: 513, not a multiple of a strip's width): an
   item per pixel with work-groups of (16, 1) (gpf groups a frame: each frame's runs apart) and
   ceil(513 / K) items, rounded to 16, with work-groups of (16, 4) (fewer groups than frames x
   gpf: the runs go on across frames); the same bits as the twin either way. */
static void fused_launch_shapes(void)
{
    const uint32_t N = 4, rows = 27, cols = 19, mag = 1, K = 8;
    const size_t n = (size_t)rows * cols;
    const size_t items[2] = {(n + 15) & ~(size_t)15, ((n + K - 1) / K + 15) & ~(size_t)15};
    const size_t local[2][2] = {{16, 1}, {16, 4}};
    float *f = make_frames(N, rows, cols, 513), *want = (float *)xcalloc(N * n, sizeof(float));
    float *got = (float *)xcalloc(N * n, sizeof(float));
    const char *const *src;
    size_t count, global[2];
    char opts[sizeof options + 32];
    hst_program *prog;
    hst_kernel *k;
    hst_buffer *fb, *ob;
    hst_queue *q;
    unsigned c;
    q = hst_backend_queue(be);
    src = hst_kernels_esrrf_source(&count);
    snprintf(opts, sizeof opts, "%s -DHST_E_K=%u", options, (unsigned)K);
    assert_int_equal(hst_program_build(be, count, src, opts, &prog), HST_SUCCESS);
    assert_int_equal(hst_kernel_create(prog, "hst_k_esrrf_rgc_fused", &k), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, N * n * sizeof(float), 0, &fb), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, N * n * sizeof(float), 0, &ob), HST_SUCCESS);
    assert_int_equal(hst_write(q, fb, 0, f, N * n * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);
    hst_k_esrrf_rgc_fused_host(f, want, rows, cols, mag, 1.5f, 1.0f, 1, 0, 0, N, N);
    for (c = 0; c < 2; c++) {
        float radius = 1.5f, sens = 1.0f;
        int32_t iw = 1, flags = 3;
        uint32_t row0 = 0, nrows = rows * mag;
        uint64_t base = 0, begin = 0, end = N, total = N;
        assert_int_equal(hst_kernel_set_buffer(k, 0, fb), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_buffer(k, 1, ob), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 2, 4, &rows), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 3, 4, &cols), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 4, 4, &mag), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 5, 4, &radius), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 6, 4, &sens), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 7, 4, &iw), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 8, 4, &row0), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 9, 4, &nrows), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 10, 8, &base), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 11, 8, &begin), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 12, 8, &end), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 13, 8, &total), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 14, 4, &flags), HST_SUCCESS);
        global[0] = items[c];
        global[1] = N;
        memset(got, 0xff, N * n * sizeof(float));   /* NaN: a pixel never written fails */
        assert_int_equal(hst_write(q, ob, 0, got, N * n * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_launch(q, k, 2, global, local[c], 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_read(q, ob, 0, got, N * n * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);
        expect_bitwise(c ? "fused, K items a pixel, groups across frames" : "fused, an item a pixel",
                       got, want, N * n);
    }
    hst_buffer_destroy(fb);
    hst_buffer_destroy(ob);
    hst_kernel_destroy(k);
    hst_program_release(prog);
    free(f); free(want); free(got);
}

/* Device fused RGC == the row twin: odd sizes, mag 1..8, radius 0.5..3, weighting off and on,
   on an OpenCL device built both ways (as for GPUs and as for CPUs); there also the kernel on
   NDRanges of other shapes (fused_launch_shapes) */
/* The widest tile row of a strip of tw magnified columns at radius 1.5 (a window of 7
   half-pixel positions), by the first and last positions of every start (the twin's rule) */
static unsigned nls_want(unsigned mag, unsigned tw)
{
    unsigned x, w = 0;
    for (x = 0; x < 2 * mag; x++) {
        double c0 = (x % mag + 0.5) / mag, c1 = ((x + tw - 1) % mag + 0.5) / mag;
        unsigned a = 2 * (x / mag) + (unsigned)(2 * c0), b = 2 * ((x + tw - 1) / mag) + (unsigned)(2 * c1);
        if (b - a + 7 > w) w = b - a + 7;
    }
    return w;
}

/* hst_k_esrrf_nv_options: the default geometry where the table fits beside it, and the tile
   and its scratch (3 floats a 2 positions) shrunk together beside a larger table so that the
   kernel's local memory (8 bytes a tile position and a table entry) stays within the device's;
   tile rows as wide as the widest strip's; strips of whole items (8 same-phase pixels of a
   row) at least 64 columns wide; the radius's window (7 at 1.5) */
static void test_nv_geometry(void **state)
{
    static const uint64_t locals[2] = {48 * 1024, 64 * 1024};
    unsigned mag, l;
    char o[160];
    (void)state;
    assert_true(hst_k_esrrf_nv_options(5, 1.5f, 0, 48 * 1024, o, sizeof o) > 0);
    assert_string_equal(o, "-DHST_E_TW=80 -DHST_E_NP=8 -DHST_E_JN=7 -DHST_E_NLS=39 -DHST_E_TILE=2560 -DHST_E_ITAB=3840");
    assert_true(hst_k_esrrf_nv_options(6, 1.5f, 1764, 48 * 1024, o, sizeof o) > 0);
    assert_string_equal(o, "-DHST_E_TW=96 -DHST_E_NP=8 -DHST_E_JN=7 -DHST_E_NLS=39 -DHST_E_TILE=2502 -DHST_E_ITAB=3753 -DHST_E_WTAB=1764");
    assert_int_equal(hst_k_esrrf_nv_options(5, 1.5f, 0, 48 * 1024, o, 20), 0);   /* too short a buffer */
    for (l = 0; l < 2; l++)
        for (mag = 1; mag <= 8; mag++) {
            uint64_t w = hst_k_esrrf_wtab_entries(mag, 1.5f);
            unsigned tw, np, nls, t, it, wt = HST_K_ESRRF_WTAB;
            int got;
            char *jn;
            if (w <= HST_K_ESRRF_WTAB) w = 0;
            assert_true(hst_k_esrrf_nv_options(mag, 1.5f, w, locals[l], o, sizeof o) > 0);
            jn = strstr(o, " -DHST_E_JN=7");   /* items along rows: the window's 7 positions */
            assert_true((jn != NULL) == (mag >= HST_K_ESRRF_NV_ROWX_MAG));
            if (jn) memmove(jn, jn + 13, strlen(jn + 13) + 1);
            if (mag >= HST_K_ESRRF_NV_NLS_MAG) {
                got = sscanf(o, "-DHST_E_TW=%u -DHST_E_NP=%u -DHST_E_NLS=%u -DHST_E_TILE=%u -DHST_E_ITAB=%u -DHST_E_WTAB=%u",
                             &tw, &np, &nls, &t, &it, &wt);
                assert_int_equal(got, w ? 6 : 5);
                assert_int_equal(nls, nls_want(mag, tw));
            } else {
                got = sscanf(o, "-DHST_E_TW=%u -DHST_E_NP=%u -DHST_E_TILE=%u -DHST_E_ITAB=%u -DHST_E_WTAB=%u", &tw, &np, &t, &it, &wt);
                assert_int_equal(got, w ? 5 : 4);
                assert_null(strstr(o, "NLS"));
            }
            assert_int_equal(np, HST_K_ESRRF_NV_NP);
            assert_true(tw % (np * mag) == 0 && tw >= 64 && tw - np * mag < 64);
            assert_true(t % 2 == 0 && it == t / 2 * 3 && t <= HST_K_ESRRF_NV_TILE && t >= 1024);
            assert_true(8 * (uint64_t)t + 4 * (uint64_t)it + 8 * (uint64_t)wt <= locals[l]);
            assert_true(t == HST_K_ESRRF_NV_TILE || 8 * (uint64_t)(t + 2) + 4 * (uint64_t)(it + 3) + 8 * (uint64_t)wt > locals[l]);
        }
}

static void test_fused_grid(void **state)
{
    static const float radii[4] = {0.5f, 1.0f, 1.5f, 3.0f};
    const uint32_t rows = 13, cols = 11;
    float *frames = make_frames(2, rows, cols, 2121);
    uint32_t mag;
    unsigned r, iw;
    (void)state;
    for (mag = 1; mag <= 8; mag++)
        for (r = 0; r < 4; r++)
            for (iw = 0; iw < 2; iw++) {
                rows_device_case(rows, cols, mag, radii[r], 1.0f, (int)iw, frames);
                if (!hst_backend_is_host(be)) rows_device_case_builds(rows, cols, mag, radii[r], 1.0f, (int)iw, frames);
            }
    free(frames);
    if (!hst_backend_is_host(be)) fused_launch_shapes();
}

/* Frames wide enough for whole blocks of lanes inside the columns (the inside form of the
   host's fused block: hst__e_lanes_in512 / _in256): the host twin in each build the CPU has
   ($HST_HOST_ISA caps it: avx2, portable) bitwise the best build's, and the device's fused RGC
   the twin's, built both ways on an OpenCL device. mag 5 radius 1.5 keeps every phase's sample list; mag 7 radius 1.5 (49 phases of
   49 samples) lists them call by call; mag 2 radius 4 is a wide window. */
static void test_fused_wide(void **state)
{
    static const struct { uint32_t mag; float radius, sens; int iw; } cases[4] = {
        {1, 1.5f, 1.0f, 1}, {2, 4.0f, 2.0f, 0}, {5, 1.5f, 1.0f, 1}, {7, 1.5f, 2.5f, 1}};
    static const char *const caps[2] = {"avx2", "portable"};
    const uint32_t rows = 14, cols = 84;
    float *frames = make_frames(2, rows, cols, 4242);
    unsigned c, i;
    (void)state;
    for (c = 0; c < 4; c++) {
        size_t nM = (size_t)rows * cols * cases[c].mag * cases[c].mag;
        float *best = (float *)xcalloc(2 * nM, sizeof(float)), *got = (float *)xcalloc(2 * nM, sizeof(float));
        char what[120];
        assert_int_equal(unsetenv("HST_HOST_ISA"), 0);
        hst_k_esrrf_rgc_fused_host(frames, best, rows, cols, cases[c].mag, cases[c].radius, cases[c].sens,
                                   cases[c].iw, 0, 0, 2, 2);
        for (i = 0; i < 2; i++) {
            assert_int_equal(setenv("HST_HOST_ISA", caps[i], 1), 0);
            memset(got, 0xff, 2 * nM * sizeof(float));
            hst_k_esrrf_rgc_fused_host(frames, got, rows, cols, cases[c].mag, cases[c].radius, cases[c].sens,
                                       cases[c].iw, 0, 0, 2, 2);
            assert_int_equal(unsetenv("HST_HOST_ISA"), 0);   /* before a failure can leave it set */
            snprintf(what, sizeof what, "HST_HOST_ISA=%s vs the best build, mag %u", caps[i], cases[c].mag);
            expect_bitwise(what, got, best, 2 * nM);
        }
        rows_device_case(rows, cols, cases[c].mag, cases[c].radius, cases[c].sens, cases[c].iw, frames);
        if (!hst_backend_is_host(be))
            rows_device_case_builds(rows, cols, cases[c].mag, cases[c].radius, cases[c].sens, cases[c].iw, frames);
        free(best);
        free(got);
    }
    free(frames);
}

/* Frames tall enough for whole blocks of the CPU build's same-phase pixels (HST_E_NP of them,
   HST_E_NP mag rows) on an OpenCL device, == the twin: blocks with lanes in the margin and
   at clipped sample rows, the block ending at a segment's last whole row, part rows, the
   separable tile, intensity weighting on and off, a sensitivity with a power. On every
   device first the twin by rows against the whole frames. */
static void test_fused_cpu_blocks(void **state)
{
    static const struct { uint32_t mag; float radius, sens; int iw; } cases[5] = {
        {1, 1.5f, 1.0f, 1}, {2, 0.5f, 2.5f, 1}, {3, 2.5f, 1.0f, 0}, {4, 1.0f, 2.0f, 1}, {5, 1.5f, 1.0f, 1}};
    const uint32_t rows = 41, cols = 23;
    float *frames = make_frames(2, rows, cols, 4141);
    unsigned c;
    (void)state;
    for (c = 0; c < 5; c++) {
        size_t nM = (size_t)rows * cols * cases[c].mag * cases[c].mag;
        float *whole = (float *)xcalloc(2 * nM, sizeof(float));
        hst_k_esrrf_rgc_fused_host(frames, whole, rows, cols, cases[c].mag, cases[c].radius, cases[c].sens,
                                   cases[c].iw, 0, 0, 2, 2);
        rows_case(rows, cols, cases[c].mag, cases[c].radius, cases[c].sens, cases[c].iw, frames, whole);
        if (!hst_backend_is_host(be))
            rows_device_case_builds(rows, cols, cases[c].mag, cases[c].radius, cases[c].sens, cases[c].iw, frames);
        free(whole);
    }
    free(frames);
}

/* Frames times 2^117 (values near 2.5e37, gradients near 1e38, whose squares overflow float):
   the RGC is finite and, gradients being scaled exactly, bitwise that of the frames unscaled,
   on the device and the twin; times 2^120 (gradients overflow: they count as 0) still finite */
static void test_near_flt_max(void **state)
{
    const uint32_t N = 2, rows = 17, cols = 15, mag = 3;
    size_t n = (size_t)rows * cols, nM = n * mag * mag, i;
    float *f = make_frames(N, rows, cols, 117), *big = (float *)xcalloc(N * n, sizeof(float));
    float *want = (float *)xcalloc(N * nM, sizeof(float)), *got = (float *)xcalloc(N * nM, sizeof(float));
    float *dev = (float *)xcalloc(N * nM, sizeof(float));
    epipe p;
    (void)state;
    for (i = 0; i < N * n; i++) big[i] = (float)ldexp(f[i], 117);
    hst_k_esrrf_rgc_fused_host(f, want, rows, cols, mag, 1.5f, 1.0f, 0, 0, 0, N, N);
    hst_k_esrrf_rgc_fused_host(big, got, rows, cols, mag, 1.5f, 1.0f, 0, 0, 0, N, N);
    memset(&p, 0, sizeof p);
    p.frames = big; p.N = N; p.rows = rows; p.cols = cols; p.mag = mag;
    p.radius = 1.5f; p.sens = 1.0f; p.iw = 0; p.fused = 1; p.rgc = dev;
    run_pipe(&p);
    for (i = 0; i < N * nM; i++) assert_true(isfinite(got[i]) && got[i] >= 0.0f && got[i] <= 1.0f);
    expect_bitwise("RGC of frames x 2^117 == RGC of frames (twin)", got, want, N * nM);
    expect_bitwise("RGC of frames x 2^117 (device) == twin", dev, got, N * nM);
    /* x 2^120: the frames are finite (below 1.5e38), Roberts sums of them overflow to inf */
    for (i = 0; i < N * n; i++) big[i] = (float)ldexp(f[i], 120);
    hst_k_esrrf_rgc_fused_host(big, got, rows, cols, mag, 1.5f, 1.0f, 0, 0, 0, N, N);
    run_pipe(&p);
    for (i = 0; i < N * nM; i++) assert_true(isfinite(got[i]) && got[i] >= 0.0f && got[i] <= 1.0f);
    expect_bitwise("RGC of frames x 2^120 (device) == twin", dev, got, N * nM);
    free(f); free(big); free(want); free(got); free(dev);
}

/* ------------------------------------------------ the declared kernels through hst_launch_kernel */
/* kernels_esrrf.h's HST_ESRRF_KERNELS, each launched through backend.h's one launcher with its
   declared arguments: on an OpenCL device the kernel, on the host device the declared twin
   (the adapters over the range); either way bitwise the typed twin run here. Ranges split in
   two launches (frames, or pixels: the kernels that only write) so the offsets count. */
static hst_buffer *dev_copy(const void *p, size_t bytes)
{
    hst_buffer *b;
    void *z = p ? NULL : xcalloc(bytes, 1);
    assert_int_equal(hst_buffer_create(be, bytes, 0, &b), HST_SUCCESS);
    assert_int_equal(hst_write(hst_backend_queue(be), b, 0, p ? p : z, bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    free(z);
    return b;
}

static void dev_expect(const char *what, hst_buffer *b, const void *want, size_t bytes)
{
    void *got = xcalloc(bytes, 1);
    assert_int_equal(hst_read(hst_backend_queue(be), b, 0, got, bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    if (memcmp(got, want, bytes) != 0) {
        print_error("%s: the declared kernel differs from its typed twin\n", what);
        fail();
    }
    free(got);
}

/* Launches id over items x frames [f0, f1) (frames 0: a 1-D range of items [f0, f1)). */
static void launch_declared(unsigned id, const hst_karg *a, size_t n, size_t items, size_t f0, size_t f1,
                            int frames)
{
    hst_launch_desc l;
    memset(&l, 0, sizeof l);
    l.family = hst_kernels_esrrf_family();
    l.options = options;
    l.kernel = id;
    l.args = a;
    l.num_args = n;
    l.range.dims = frames ? 2 : 1;
    l.range.global[0] = frames ? items : f1 - f0;
    l.range.offset[0] = frames ? 0 : f0;
    l.range.global[1] = frames ? f1 - f0 : 0;
    l.range.offset[1] = frames ? f0 : 0;
    assert_int_equal(hst_launch_kernel(be, &l, NULL), HST_SUCCESS);
}

/* Both halves of a range: [0, h) and [h, n). */
static void launch_halves(unsigned id, const hst_karg *a, size_t na, size_t items, size_t n, int frames)
{
    launch_declared(id, a, na, items, n / 2, n, frames);
    launch_declared(id, a, na, items, 0, n / 2, frames);
}

static void block_args(hst_karg *a, uint64_t n)
{
    a[0] = hst_karg_ulong(0); a[1] = hst_karg_ulong(0); a[2] = hst_karg_ulong(n); a[3] = hst_karg_ulong(n);
    a[4] = hst_karg_int(0);
}

/* The temporal kernel against its twin where the acquisition's last frame (frames_total - 1)
   lies inside a launch's frames: (T, frames_total) = (all, 3): that frame alone is a last one;
   (2, 4): it is a time point's last too, added once; (5, 3): both it and the time point's last
   (all time points into one slot of the sums) */
static void temporal_last_frames(hst_buffer *br, const float *rgc, uint32_t P, uint32_t N)
{
    static const uint64_t T[3] = {0, 2, 5}, total[3] = {3, 4, 3};
    double *acc = (double *)xcalloc((size_t)5 * P, sizeof(double));
    hst_buffer *bacc;
    hst_karg a[13];
    int c;
    for (c = 0; c < 3; c++) {
        memset(acc, 0, (size_t)5 * P * sizeof(double));
        hst_k_esrrf_temporal_host(rgc, acc, P, T[c], 1, 0, 0, total[c], 0, P, 0, 0, N, 1);
        bacc = dev_copy(NULL, (size_t)5 * P * sizeof(double));
        a[0] = hst_karg_buffer(br); a[1] = hst_karg_buffer(bacc); a[2] = hst_karg_uint(P);
        a[3] = hst_karg_ulong(T[c]); a[4] = hst_karg_uint(1); a[5] = hst_karg_ulong(0); a[6] = hst_karg_uint(0);
        a[7] = hst_karg_ulong(total[c]);
        block_args(a + 8, N);
        launch_declared(HST_KESRRF_TEMPORAL, a, 13, 0, 0, P, 0);
        dev_expect("temporal, the acquisition's last frame inside", bacc, acc, (size_t)5 * P * sizeof(double));
        hst_buffer_destroy(bacc);
    }
    free(acc);
}

static void test_declared(void **state)
{
    const uint32_t N = 5, rows = 9, cols = 7, mag = 3, px = rows * cols, P = px * mag * mag;
    const float radius = 1.5f, sens = 2.0f;
    float *f = make_frames(N, rows, cols, 77), *grad = (float *)xcalloc((size_t)N * 2 * px, sizeof(float));
    float *grad2 = (float *)xcalloc((size_t)N * 8 * P, sizeof(float)), *M = (float *)xcalloc((size_t)N * P, sizeof(float));
    float *rgc = (float *)xcalloc((size_t)N * P, sizeof(float)), *fl = (float *)xcalloc((size_t)N * px, sizeof(float));
    float *img = (float *)xcalloc(P, sizeof(float));
    double *acc = (double *)xcalloc((size_t)5 * P, sizeof(double)), *sw = (double *)xcalloc((size_t)3 * P, sizeof(double));
    uint16_t *raw = (uint16_t *)xcalloc((size_t)N * px, sizeof(uint16_t));
    hst_buffer *bf, *bg, *bg2, *bm, *br, *bo, *bacc;
    hst_karg a[17];
    float m2[2], zero[2] = {0.0f, 0.0f};
    size_t i;
    (void)state;
    m2[0] = m2[1] = (float)(2 * mag);
    for (i = 0; i < (size_t)N * px; i++) raw[i] = (uint16_t)(f[i] * 1000.0f);
    hst_k_esrrf_to_float_host(raw, fl, px, 2, 0, 0, N, N);
    hst_k_esrrf_roberts_host(f, grad, grad, rows, cols, 2, 1, 0, 0, N, N);
    hst_k_esrrf_magnify_host(grad, grad2, rows, cols, 2 * rows * mag, 2 * cols * mag, m2[0], m2[1], 0.0f, 0.0f, 2,
                             0, 0, N, N);
    hst_k_esrrf_magnify_host(f, M, rows, cols, rows * mag, cols * mag, (float)mag, (float)mag, 0.0f, 0.0f, 1, 0, 0,
                             N, N);
    bf = dev_copy(raw, (size_t)N * px * sizeof(uint16_t));
    bo = dev_copy(NULL, (size_t)N * px * sizeof(float));
    /* to_float(raw; frames | uint pixels, uint dtype | block) */
    a[0] = hst_karg_buffer(bf); a[1] = hst_karg_buffer(bo); a[2] = hst_karg_uint(px); a[3] = hst_karg_uint(2);
    block_args(a + 4, N);
    launch_halves(HST_KESRRF_TO_FLOAT, a, 9, px, N, 1);
    dev_expect("to_float", bo, fl, (size_t)N * px * sizeof(float));
    hst_buffer_destroy(bf); hst_buffer_destroy(bo);
    bf = dev_copy(f, (size_t)N * px * sizeof(float));
    bg = dev_copy(NULL, (size_t)N * 2 * px * sizeof(float));
    /* roberts(frames; grad_col = grad_row = grad | uint rows, uint cols, uint gstep, uint groff | block) */
    a[0] = hst_karg_buffer(bf); a[1] = hst_karg_buffer(bg); a[2] = hst_karg_buffer(bg); a[3] = hst_karg_uint(rows);
    a[4] = hst_karg_uint(cols); a[5] = hst_karg_uint(2); a[6] = hst_karg_uint(1);
    block_args(a + 7, N);
    launch_halves(HST_KESRRF_ROBERTS, a, 12, px, N, 1);
    dev_expect("roberts", bg, grad, (size_t)N * 2 * px * sizeof(float));
    bg2 = dev_copy(NULL, (size_t)N * 8 * P * sizeof(float));
    /* magnify(grad; grad2 | uint rows, uint cols, uint rowsM, uint colsM, float2 mag, float2 shift,
               uint channels | block) */
    a[0] = hst_karg_buffer(bg); a[1] = hst_karg_buffer(bg2); a[2] = hst_karg_uint(rows); a[3] = hst_karg_uint(cols);
    a[4] = hst_karg_uint(2 * rows * mag); a[5] = hst_karg_uint(2 * cols * mag); a[6] = hst_karg_value(sizeof m2, m2);
    a[7] = hst_karg_value(sizeof zero, zero); a[8] = hst_karg_uint(2);
    block_args(a + 9, N);
    launch_halves(HST_KESRRF_MAGNIFY, a, 14, 4 * (size_t)P, N, 1);
    dev_expect("magnify (2 channels)", bg2, grad2, (size_t)N * 8 * P * sizeof(float));
    bm = dev_copy(M, (size_t)N * P * sizeof(float));
    br = dev_copy(NULL, (size_t)N * P * sizeof(float));
    /* rgc(grad_col = grad_row = grad2, magnified; rgc | uint rows, uint cols, uint mag, float radius,
           float sensitivity, int intensity_weighting, uint gstep, uint groff | block) */
    hst_k_esrrf_rgc_host(grad2, grad2, M, rgc, rows, cols, mag, radius, sens, 1, 2, 1, 0, 0, N, N);
    a[0] = hst_karg_buffer(bg2); a[1] = hst_karg_buffer(bg2); a[2] = hst_karg_buffer(bm); a[3] = hst_karg_buffer(br);
    a[4] = hst_karg_uint(rows); a[5] = hst_karg_uint(cols); a[6] = hst_karg_uint(mag); a[7] = hst_karg_float(radius);
    a[8] = hst_karg_float(sens); a[9] = hst_karg_int(1); a[10] = hst_karg_uint(2); a[11] = hst_karg_uint(1);
    block_args(a + 12, N);
    launch_halves(HST_KESRRF_RGC, a, 17, P, N, 1);
    dev_expect("rgc", br, rgc, (size_t)N * P * sizeof(float));
    /* rgc_fused(frames; rgc | uint rows, uint cols, uint mag, float radius, float sensitivity,
                 int intensity_weighting, uint row0, uint nrows | block): one item a pixel, the
       frames split by begin and end (its groups cover them whatever their ids) */
    hst_k_esrrf_rgc_fused_window_host(f, rgc, rows, cols, mag, radius, sens, 1, 0, rows * mag, 0, 0, N, N);
    a[0] = hst_karg_buffer(bf); a[1] = hst_karg_buffer(br); a[2] = hst_karg_uint(rows); a[3] = hst_karg_uint(cols);
    a[4] = hst_karg_uint(mag); a[5] = hst_karg_float(radius); a[6] = hst_karg_float(sens); a[7] = hst_karg_int(1);
    a[8] = hst_karg_uint(0); a[9] = hst_karg_uint(rows * mag);
    block_args(a + 10, N);
    assert_int_equal(hst_write(hst_backend_queue(be), br, 0, grad2, (size_t)N * P * sizeof(float), 1, 0, NULL, NULL),
                     HST_SUCCESS);   /* other values there first */
    a[11] = hst_karg_ulong(N / 2);
    launch_declared(HST_KESRRF_RGC_FUSED, a, 15, P, 0, N - N / 2, 1);
    a[11] = hst_karg_ulong(0); a[12] = hst_karg_ulong(N / 2);
    launch_declared(HST_KESRRF_RGC_FUSED, a, 15, P, 0, N / 2, 1);
    dev_expect("rgc_fused", br, rgc, (size_t)N * P * sizeof(float));
    if (fp64) {   /* the sums' kernels in double (a device without fp64 sums in float) */
        bacc = dev_copy(NULL, (size_t)5 * P * sizeof(double));
        /* temporal(rgc; acc | uint pixels, ulong frames_per_tp, uint acc_tps, ulong frame0,
                    uint skip, ulong frames_total | block): one launch (it adds to acc, and an
           OpenCL device rounds a range up to its work-group: a first half would overlap) */
        hst_k_esrrf_temporal_host(rgc, acc, P, 0, 1, 0, 0, N, 0, P, 0, 0, N, 1);
        a[0] = hst_karg_buffer(br); a[1] = hst_karg_buffer(bacc); a[2] = hst_karg_uint(P); a[3] = hst_karg_ulong(0);
        a[4] = hst_karg_uint(1); a[5] = hst_karg_ulong(0); a[6] = hst_karg_uint(0); a[7] = hst_karg_ulong(N);
        block_args(a + 8, N);
        launch_declared(HST_KESRRF_TEMPORAL, a, 13, 0, 0, P, 0);
        dev_expect("temporal", bacc, acc, (size_t)5 * P * sizeof(double));
        temporal_last_frames(br, rgc, P, N);
        /* stat(acc, image | ulong first, uint pixels, uint frames, int mode): TAC2 */
        hst_k_esrrf_finalize(2, acc, P, N, img);
        bo = dev_copy(NULL, (size_t)P * sizeof(float));
        a[0] = hst_karg_buffer(bacc); a[1] = hst_karg_buffer(bo); a[2] = hst_karg_ulong(0); a[3] = hst_karg_uint(P);
        a[4] = hst_karg_uint(N); a[5] = hst_karg_int(2);
        launch_halves(HST_KESRRF_STAT, a, 6, 0, P, 0);
        dev_expect("stat (TAC2)", bo, img, (size_t)P * sizeof(float));
        hst_buffer_destroy(bo);
        hst_buffer_destroy(bacc);
        /* sweep_sum(rgc, acc | uint pixels, uint k, uint n, uint odd0): one sensitivity, one
           launch (it adds, as temporal) */
        hst_k_esrrf_sweep_sum_host(rgc, sw, P, 1, 0, N, 1, 0, P);
        bacc = dev_copy(NULL, (size_t)3 * P * sizeof(double));
        a[0] = hst_karg_buffer(br); a[1] = hst_karg_buffer(bacc); a[2] = hst_karg_uint(P); a[3] = hst_karg_uint(0);
        a[4] = hst_karg_uint(N); a[5] = hst_karg_uint(1);
        launch_declared(HST_KESRRF_SWEEP_SUM, a, 6, 0, 0, P, 0);
        dev_expect("sweep_sum", bacc, sw, (size_t)3 * P * sizeof(double));
        hst_buffer_destroy(bacc);
    }
    hst_buffer_destroy(bf); hst_buffer_destroy(bg); hst_buffer_destroy(bg2); hst_buffer_destroy(bm);
    hst_buffer_destroy(br);
    free(f); free(grad); free(grad2); free(M); free(rgc); free(fl); free(img); free(acc); free(sw); free(raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_host_functions, test_setup),
        cmocka_unit_test_setup(test_twins, test_setup),
        cmocka_unit_test_setup(test_fused_rows, test_setup),
        cmocka_unit_test_setup(test_reference, test_setup),
        cmocka_unit_test_setup(test_streamed, test_setup),
        cmocka_unit_test_setup(test_blinking, test_setup),
        cmocka_unit_test_setup(test_sequences, test_setup),
        cmocka_unit_test_setup(test_nv_geometry, test_setup),
        cmocka_unit_test_setup(test_fused_grid, test_setup),
        cmocka_unit_test_setup(test_fused_wide, test_setup),
        cmocka_unit_test_setup(test_fused_cpu_blocks, test_setup),
        cmocka_unit_test_setup(test_near_flt_max, test_setup),
        cmocka_unit_test_setup(test_declared, test_setup),
    };
    return cmocka_run_group_tests_name("esrrf", tests, group_setup, group_teardown);
}
