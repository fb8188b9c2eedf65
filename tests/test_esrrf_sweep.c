/* tests/test_esrrf_sweep.c — esrrf.h's parameter sweep (hst_esrrf_sweep) on the device under
   test ($HST_DEVICE, as tests/run.sh sets it):
   - the sweep's AVG image at every (radius, sensitivity) pair equals a separate hst_esrrf_run at
     that pair bit for bit (radii 1, 1.5, 2 and 0.8; sensitivities 1, 2, 4 and a non-integer
     2.5), with and without intensity weighting and macro-pixel correction, one time point and
     several with a shorter last one; and on odd sizes, magnifications 1 to 8, u8 / u16 / i16 /
     f32 samples, blocks of 1 to 3 frames that cut time points at odd and even frames,
     frames_per_timepoint remainders and clamping, one radius or one sensitivity;
   - the scores are NanoPyx's: each pair's RSP is hst_error_map's of the uncorrected AVG image
     against the frames' mean, its resolution hst_frc's of the AVG images of the odd and the
     even frames computed by separate runs over those frames (exactly: the same images), or
     hst_decorr's of the AVG image; time points' scores averaged; the same with blocks of 3 frames
     (a block's first frame odd in its time point); QnR recomputed here from the
     maps with NanoPyx's formula (logistic_image_conversion, harmonic mean; RSP below 0 as 0),
     within [0, 1], and the best pair its first maximum; every RSP of the blinking emitters
     above 0.5;
   - one frame per time point, and a 1-frame stack: no odd and even images, so every resolution
     and QnR is NaN (not 0) and the best pair is RSP's first maximum;
   - tiny frames (12 x 12 magnified pixels, mostly eSRRF's zero margins) whose RSP is negative
     at some pairs: QnR within [0, 1] (NanoPyx's formula gave -0.46 there), 0 at those pairs;
     frames too small for FRC (or decorrelation) refused before the pass, naming the argument;
   - progress: steps of frames and scores, rising to frames + the scores, seen during scoring;
   - interruption (hst_backend_interrupt from a second thread) during the scoring and during the
     pass: HST_ERROR_CANCELLED with no progress after it; at once while interrupted; cleared,
     the backend runs again;
   - errors: each with its code and log item. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HST_IMPLEMENTATION
#define HST_FFT
#include "esrrf.h"
#include "cap_log.h"
#include "be_fixture.h"

#define R 16
#define C 18
#define N 9
#define MAG 3
#define PX ((size_t)R * MAG * C * MAG)

static float frames[N * R * C];

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

/* Blinking emitters on a noisy background: integers 0..250 */
static void make_frames(void)
{
    uint32_t s = 777u;
    size_t z, y, x;
    for (z = 0; z < N; z++)
        for (y = 0; y < R; y++)
            for (x = 0; x < C; x++) {
                double v = 10.0 + 6.0 * ((s = s * 1664525u + 1013904223u) >> 29);
                double d1 = (double)y - 5.3, e1 = (double)x - 6.1, d2 = (double)y - 9.6, e2 = (double)x - 11.2;
                if ((z * 7 + 3) % 5 < 3) v += 200.0 * exp(-(d1 * d1 + e1 * e1) / 3.0);
                if ((z * 3 + 1) % 4 < 2) v += 180.0 * exp(-(d2 * d2 + e2 * e2) / 3.0);
                frames[(z * R + y) * C + x] = (float)floor(v > 250.0 ? 250.0 : v);
            }
}

static int group_setup(void **state)
{
    make_frames();
    return setup(state);
}

static void desc_init(hst_esrrf_desc *d, hst_backend **be)
{
    memset(d, 0, sizeof *d);
    d->backends = be;
    d->num_backends = 1;
    d->magnification = MAG;
}

/* The 3 x 2 pairs the score tests sweep (radii 1, 1.5, 2; sensitivities 1, 2) on desc_init's desc */
static const float pair_radii[3] = {1.0f, 1.5f, 2.0f}, pair_sens[2] = {1.0f, 2.0f};

static void pairs_init(hst_esrrf_desc *d, hst_esrrf_sweep_desc *sw, hst_backend **be)
{
    desc_init(d, be);
    memset(sw, 0, sizeof *sw);
    sw->radii = pair_radii; sw->num_radii = 3;
    sw->sensitivities = pair_sens; sw->num_sensitivities = 2;
}

static void expect_same(const char *what, const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            print_error("%s: element %zu: %.9g vs %.9g\n", what, i, (double)a[i], (double)b[i]);
            fail();
        }
}

/* One AVG run at (radius, sensitivity) over frames [a, a + n) taken every `step` frames. */
static void run_avg(hst_esrrf_desc d, float radius, float sens, size_t a, size_t n, size_t step, float *out)
{
    float *sub = (float *)xmalloc(n * R * C * sizeof(float)), *o[3] = {NULL, NULL, NULL};
    size_t k;
    for (k = 0; k < n; k++) memcpy(sub + k * R * C, frames + (a + k * step) * R * C, R * C * sizeof(float));
    d.radius = radius;
    d.sensitivity = sens;
    d.modes = HST_ESRRF_AVG;
    o[0] = out;
    assert_int_equal(hst_esrrf_run(&d, sub, HST_ESRRF_F32, n, R, C, o, NULL), HST_SUCCESS);
    free(sub);
}

/* ------------------------------------------------------------------ images == separate runs */
static void sweep_equals_runs(void **state, unsigned variant)
{
    static const float radii[4] = {1.0f, 1.5f, 2.0f, 0.8f}, sens[4] = {1.0f, 2.0f, 4.0f, 2.5f};
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    uint64_t ntp = 0;
    float *img[16], *one;
    unsigned p, k, l;
    desc_init(&d, &be);
    d.no_intensity_weighting = variant == 1;
    d.no_macro_pixel_correction = variant != 2;
    d.frames_per_timepoint = variant == 2 ? 4 : 0;   /* 9 frames: 4, 4, 1 */
    memset(&sw, 0, sizeof sw);
    sw.radii = radii; sw.num_radii = 4;
    sw.sensitivities = sens; sw.num_sensitivities = 4;
    assert_int_equal(hst_esrrf_output_shape(&d, N, R, C, &ntp, NULL, NULL), HST_SUCCESS);
    for (p = 0; p < 16; p++) img[p] = (float *)xmalloc(ntp * PX * sizeof(float));
    one = (float *)xmalloc(ntp * PX * sizeof(float));
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, img, &res), HST_SUCCESS);
    assert_int_equal(res.timepoints, ntp);
    for (l = 0; l < 4; l++)
        for (k = 0; k < 4; k++) {
            char what[96];
            hst_esrrf_desc e = d;
            float *o[3] = {NULL, NULL, NULL};
            e.radius = radii[k];
            e.sensitivity = sens[l];
            e.modes = HST_ESRRF_AVG;
            o[0] = one;
            assert_int_equal(hst_esrrf_run(&e, frames, HST_ESRRF_F32, N, R, C, o, NULL), HST_SUCCESS);
            snprintf(what, sizeof what, "variant %u, radius %g, sensitivity %g", variant, (double)radii[k],
                     (double)sens[l]);
            expect_same(what, img[l * 4 + k], one, ntp * PX);
        }
    for (p = 0; p < 16; p++) free(img[p]);
    free(one);
}

static void test_images_plain(void **state) { sweep_equals_runs(state, 0); }
static void test_images_unweighted(void **state) { sweep_equals_runs(state, 1); }
static void test_images_timepoints_corrected(void **state) { sweep_equals_runs(state, 2); }

/* One case of the shapes test: a stack of n frames of rows x cols (blinking spots on a noisy
   background, integers 0..250, every dtype holds them), mag, the desc's options, the pairs. */
typedef struct shape_case {
    uint32_t rows, cols, mag;
    uint64_t n, block, per;
    int unweighted, corrected;
    hst_esrrf_dtype dtype;
    unsigned nr, ns;
    float radii[3], sens[3];
} shape_case;

static void *shape_stack(const shape_case *c)
{
    static const size_t bytes[5] = {0, 1, 2, 2, 4};
    size_t i, n = (size_t)c->n * c->rows * c->cols;
    unsigned char *st = (unsigned char *)xmalloc(n * bytes[c->dtype]);
    uint32_t s = 99u + c->rows * 31u + c->mag;
    for (i = 0; i < n; i++) {
        size_t z = i / ((size_t)c->rows * c->cols), y = i / c->cols % c->rows, x = i % c->cols;
        double dy = (double)y - 0.4 * c->rows, dx = (double)x - 0.6 * c->cols;
        double v = 12.0 + 5.0 * ((s = s * 1664525u + 1013904223u) >> 29);
        if ((z * 5 + 2) % 3 < 2) v += 220.0 * exp(-(dy * dy + dx * dx) / 2.5);
        v = floor(v > 250.0 ? 250.0 : v);
        if (c->dtype == HST_ESRRF_U8) st[i] = (unsigned char)v;
        else if (c->dtype == HST_ESRRF_U16) ((uint16_t *)st)[i] = (uint16_t)v;
        else if (c->dtype == HST_ESRRF_I16) ((int16_t *)st)[i] = (int16_t)v;
        else ((float *)st)[i] = (float)v;
    }
    return st;
}

static void sweep_shape(void **state, const shape_case *c)
{
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    uint64_t ntp = 0;
    size_t px = (size_t)c->rows * c->mag * c->cols * c->mag;
    void *st = shape_stack(c);
    float *img[9], *one;
    unsigned k, l;
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = c->mag;
    d.block_frames = c->block;
    d.frames_per_timepoint = c->per;
    d.no_intensity_weighting = c->unweighted;
    d.no_macro_pixel_correction = !c->corrected;
    memset(&sw, 0, sizeof sw);
    sw.radii = c->radii; sw.num_radii = c->nr;
    sw.sensitivities = c->sens; sw.num_sensitivities = c->ns;
    assert_int_equal(hst_esrrf_output_shape(&d, c->n, c->rows, c->cols, &ntp, NULL, NULL), HST_SUCCESS);
    for (k = 0; k < c->nr * c->ns; k++) img[k] = (float *)xmalloc(ntp * px * sizeof(float));
    one = (float *)xmalloc(ntp * px * sizeof(float));
    /* the scores run too (HST_FFT; FRC needs 10 x 10 magnified pixels) */
    if (hst_esrrf_sweep(&d, &sw, st, c->dtype, c->n, c->rows, c->cols, img, &res) != HST_SUCCESS) {
        print_error("%u x %u mag %u: %s\n", c->rows, c->cols, c->mag, LOG(state)->last_message);
        fail();
    }
    for (l = 0; l < c->ns; l++)
        for (k = 0; k < c->nr; k++) {
            char what[160];
            hst_esrrf_desc e = d;
            float *o[3] = {NULL, NULL, NULL};
            e.radius = c->radii[k];
            e.sensitivity = c->sens[l];
            e.modes = HST_ESRRF_AVG;
            o[0] = one;
            assert_int_equal(hst_esrrf_run(&e, st, c->dtype, c->n, c->rows, c->cols, o, NULL), HST_SUCCESS);
            snprintf(what, sizeof what, "%u x %u, mag %u, dtype %d, block %u, per %u, radius %g, sensitivity %g",
                     c->rows, c->cols, c->mag, (int)c->dtype, (unsigned)c->block, (unsigned)c->per,
                     (double)c->radii[k], (double)c->sens[l]);
            expect_same(what, img[l * c->nr + k], one, ntp * px);
        }
    for (k = 0; k < c->nr * c->ns; k++) free(img[k]);
    free(one);
    free(st);
}

/* Odd sizes, magnifications 1 to 8, every dtype, blocks that cut time points, the time points'
   remainders and clamping, a single radius or sensitivity (the fused kernel's ordinary build) */
static void test_images_shapes(void **state)
{
    static const shape_case cases[] = {
        /* rows cols mag  n block per unw corr dtype         nr ns radii            sensitivities */
        { 11, 13, 1,  7, 0, 0,  0, 0, HST_ESRRF_U8,  2, 2, {1.0f, 2.0f},       {1.0f, 2.5f}},
        {  7, 11, 2,  8, 2, 3,  1, 0, HST_ESRRF_U16, 2, 3, {1.5f, 1.0f},       {4.0f, 1.0f, 2.0f}},
        {  5,  9, 5, 11, 3, 5,  0, 1, HST_ESRRF_I16, 3, 2, {1.0f, 1.5f, 2.0f}, {1.0f, 2.0f}},
        {  6,  5, 8,  3, 1, 0,  0, 0, HST_ESRRF_F32, 2, 2, {1.0f, 0.5f},       {2.0f, 1.0f}},
        {  9,  7, 4,  7, 0, 20, 1, 1, HST_ESRRF_U8,  1, 3, {1.5f},             {1.0f, 2.5f, 4.0f}},
        {  8,  8, 3,  5, 2, 0,  0, 0, HST_ESRRF_U16, 2, 1, {2.0f, 1.0f},       {2.5f}},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) sweep_shape(state, &cases[i]);
}

/* ------------------------------------------------------------------ the scores */
/* NanoPyx's calculate_qnr_score of the maps (ns x nr, C order) as esrrf.h documents it: the
   logistic over the finite resolutions, RSP below 0 as 0, NaN where RSP or resolution is */
static void qnr_of(const hst_esrrf_sweep_result *res, unsigned ns, unsigned nr, double q[8][8])
{
    double lo = INFINITY, hi = -INFINITY;
    const double M1 = 0.075, M2 = 0.925;
    double A1 = log((1 - M1) / M1), A2 = log((1 - M2) / M2);
    unsigned k, l;
    for (l = 0; l < ns; l++)
        for (k = 0; k < nr; k++)
            if (isfinite(res->resolution[l][k])) {
                if (res->resolution[l][k] < lo) lo = res->resolution[l][k];
                if (res->resolution[l][k] > hi) hi = res->resolution[l][k];
            }
    for (l = 0; l < ns; l++)
        for (k = 0; k < nr; k++) {
            double x0 = (A2 * hi - A1 * lo) / (A2 - A1), kk = 1.0 / (x0 - hi) * A1;
            double n = lo == hi ? 0.5 : 1.0 / (exp(-kk * (res->resolution[l][k] - x0)) + 1.0);
            double s = res->rsp[l][k] > 0.0 ? res->rsp[l][k] : 0.0;
            q[l][k] = s + n != 0.0 ? 2.0 * s * n / (s + n) : 0.0;
            if (isnan(res->rsp[l][k]) || isnan(res->resolution[l][k])) q[l][k] = NAN;
        }
}

/* The documented best pair: QnR's first maximum (NaN left out), else RSP's. */
static void expect_best(const hst_esrrf_sweep_result *res, unsigned ns, unsigned nr)
{
    const double (*m)[HST_ESRRF_SWEEP_MAX] = res->qnr;
    double best = -INFINITY;
    unsigned k, l, bl = 99, bk = 99, pass;
    for (pass = 0; pass < 2 && bl == 99; pass++, m = res->rsp)
        for (l = 0; l < ns; l++)
            for (k = 0; k < nr; k++)
                if (!isnan(m[l][k]) && (bl == 99 || m[l][k] > best)) { best = m[l][k]; bl = l; bk = k; }
    assert_int_equal(res->best_sensitivity, bl);
    assert_int_equal(res->best_radius, bk);
}

static void expect_scores(void **state, int use_decorr, uint64_t per, uint64_t block)
{
    const float *radii = pair_radii, *sens = pair_sens;
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    float *avg = (float *)xmalloc(PX * sizeof(float)), *odd = (float *)xmalloc(PX * sizeof(float));
    float *even = (float *)xmalloc(PX * sizeof(float)), ref[R * C];
    double q[8][8];
    unsigned k, l;
    uint64_t T = per ? per : N, a;
    pairs_init(&d, &sw, &be);
    d.frames_per_timepoint = per;
    d.block_frames = block;
    sw.use_decorr = use_decorr;
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_SUCCESS);
    d.no_macro_pixel_correction = 1;   /* NanoPyx's sweep scores uncorrected images */
    for (l = 0; l < 2; l++)
        for (k = 0; k < 3; k++) {
            double rsp = 0.0, resn = 0.0;
            unsigned nres = 0, ntp = 0;
            for (a = 0; a < N; a += T) {
                uint64_t n = N - a < T ? N - a : T, z;
                size_t i;
                hst_error_map_result em;
                hst_error_map_desc scores;   /* the sweep's error maps: scores only */
                memset(&scores, 0, sizeof scores);
                scores.scores_only = 1;
                for (i = 0; i < (size_t)R * C; i++) {
                    double s = 0.0;
                    for (z = a; z < a + n; z++) s += (double)frames[z * R * C + i];
                    ref[i] = (float)(s / (double)n);
                }
                run_avg(d, radii[k], sens[l], a, n, 1, avg);
                assert_int_equal(hst_error_map(be, ref, R, C, avg, R * MAG, C * MAG, &scores, NULL, &em), HST_SUCCESS);
                rsp += em.rsp;
                ntp++;
                if (use_decorr) {
                    hst_decorr_result dr;
                    assert_int_equal(hst_decorr(be, avg, R * MAG, C * MAG, NULL, &dr), HST_SUCCESS);
                    resn += dr.resolution;
                    nres++;
                } else if (n >= 2) {
                    hst_frc_result fr;
                    run_avg(d, radii[k], sens[l], a + 1, n / 2, 2, odd);
                    run_avg(d, radii[k], sens[l], a, (n + 1) / 2, 2, even);
                    assert_int_equal(hst_frc(be, odd, even, R * MAG, C * MAG, NULL, NULL, &fr), HST_SUCCESS);
                    resn += fr.resolution;
                    nres++;
                }
            }
            assert_true(res.rsp[l][k] == rsp / ntp);
            if (nres) assert_true(res.resolution[l][k] == resn / nres);
            else assert_true(isnan(res.resolution[l][k]));   /* no time point has odd and even frames */
            assert_true(res.rsp[l][k] > 0.5);   /* the emitters: a strong correlation */
        }
    qnr_of(&res, 2, 3, q);
    for (l = 0; l < 2; l++)
        for (k = 0; k < 3; k++) {
            if (isnan(q[l][k])) {
                assert_true(isnan(res.qnr[l][k]));
                continue;
            }
            assert_true(fabs(res.qnr[l][k] - q[l][k]) <= 1e-12);
            assert_true(res.qnr[l][k] >= 0.0 && res.qnr[l][k] <= 1.0);
        }
    expect_best(&res, 2, 3);
    free(avg);
    free(odd);
    free(even);
}

static void test_scores_frc(void **state) { expect_scores(state, 0, 0, 0); }
static void test_scores_frc_timepoints(void **state) { expect_scores(state, 0, 4, 0); }   /* 4, 4, 1: FRC of 2 */
static void test_scores_frc_blocks(void **state)
{
    expect_scores(state, 0, 0, 3);   /* blocks from frames 0, 3 (odd), 6 */
    expect_scores(state, 0, 4, 3);   /* each time point's blocks from frames 0 and 3 (odd) */
}
static void test_scores_decorr(void **state) { expect_scores(state, 1, 0, 0); }
/* one frame per time point: RSP per time point, resolution and QnR NaN, the best pair by RSP */
static void test_scores_one_frame_timepoints(void **state) { expect_scores(state, 0, 1, 0); }

/* ------------------------------------------------------------------ progress */
/* Every progress call: steps done and total */
typedef struct steps { unsigned calls; uint64_t done[64], total[64]; } steps;

static int record_steps(uint64_t done, uint64_t total, void *user)
{
    steps *s = (steps *)user;
    if (s->calls < 64) { s->done[s->calls] = done; s->total[s->calls] = total; }
    s->calls++;
    return 0;
}

/* A 1-frame stack: no FRC, so no resolution or QnR; the best pair is RSP's first maximum; the
   progress is its frame and its RSPs (1 + 6 steps). */
static void test_one_frame_stack(void **state)
{
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    steps st;
    unsigned k, l;
    memset(&st, 0, sizeof st);
    pairs_init(&d, &sw, &be);
    d.progress = record_steps;
    d.progress_user = &st;
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames + 2 * R * C, HST_ESRRF_F32, 1, R, C, NULL, &res), HST_SUCCESS);
    for (l = 0; l < 2; l++)
        for (k = 0; k < 3; k++) {
            assert_true(isfinite(res.rsp[l][k]));
            assert_true(isnan(res.resolution[l][k]));
            assert_true(isnan(res.qnr[l][k]));
        }
    expect_best(&res, 2, 3);
    assert_true(st.calls >= 2);
    assert_true(st.done[st.calls - 1] == 7 && st.total[st.calls - 1] == 7);
}

/* The steps: frames, then each time point's scores (RSPs at once, FRCs at once); total the
   frames and the scores; rising; the scoring shows (a call between the last frame and the end) */
static void expect_steps(void **state, uint64_t per, uint64_t total)
{
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    steps st;
    unsigned i, scoring = 0;
    memset(&st, 0, sizeof st);
    pairs_init(&d, &sw, &be);
    d.frames_per_timepoint = per;
    d.block_frames = 2;
    d.progress = record_steps;
    d.progress_user = &st;
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_SUCCESS);
    assert_true(st.calls >= 2 && st.calls <= 64);
    for (i = 0; i < st.calls; i++) {
        assert_true(st.total[i] == total);
        assert_true(i == 0 || st.done[i] > st.done[i - 1]);
        scoring += i > 0 && st.done[i] - st.done[i - 1] == 6;   /* 6 pairs' RSPs or FRCs */
    }
    assert_true(st.done[st.calls - 1] == total);
    assert_true(st.done[0] <= 2);   /* the first block's frames */
    assert_true(scoring >= (per ? 5u : 2u));
}

static void test_progress_steps(void **state)
{
    expect_steps(state, 0, N + 2 * 6);          /* 9 frames, 6 RSPs, 6 FRCs */
    expect_steps(state, 4, N + 2 * 12 + 6);     /* 4, 4, 1 frames: the last has no FRC */
}

/* ------------------------------------------------------------------ tiny frames */
/* 8 frames of 4 x 4 (noise and one bright pixel), whose eSRRF images at mag 3 are mostly their
   zero margins: at radius 1.5 the correlation with the mean frame is negative, and NanoPyx's
   harmonic mean gave QnR -0.46 (unbounded as RSP nears -nFRC) */
static void test_tiny_frames(void **state)
{
    enum { TR = 4, TN = 8 };
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    float st[TN * TR * TR];
    uint32_t s = 7;
    unsigned i, k, l, negative = 0;
    for (i = 0; i < TN * TR * TR; i++) {
        s = s * 1664525u + 1013904223u;
        st[i] = (float)(10 + (s >> 27)) + (i % (TR * TR) == TR * TR / 2 ? 200.0f : 0.0f);
    }
    pairs_init(&d, &sw, &be);
    assert_int_equal(hst_esrrf_sweep(&d, &sw, st, HST_ESRRF_F32, TN, TR, TR, NULL, &res), HST_SUCCESS);
    for (l = 0; l < 2; l++)
        for (k = 0; k < 3; k++) {
            if (isnan(res.resolution[l][k])) {   /* an all-zero image (radius 2: margins of 6) may have no FRC */
                assert_true(isnan(res.qnr[l][k]));
                continue;
            }
            assert_true(res.qnr[l][k] >= 0.0 && res.qnr[l][k] <= 1.0);
            if (res.rsp[l][k] < 0.0) {
                negative++;
                assert_true(res.qnr[l][k] == 0.0);
            }
        }
    assert_true(negative >= 1);   /* the case this test is about */
    expect_best(&res, 2, 3);
}

/* Frames too small for the resolution once magnified: refused before the pass (no progress),
   naming the argument; the same frames without FRC (one frame per time point) are scored */
static void test_too_small(void **state)
{
    static const float radius = 1.0f, sens = 1.0f;
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    steps st;
    memset(&st, 0, sizeof st);
    desc_init(&d, &be);   /* mag 3: 3 x 4 frames give 9 x 12 */
    d.progress = record_steps;
    d.progress_user = &st;
    memset(&sw, 0, sizeof sw);
    sw.radii = &radius; sw.num_radii = 1;
    sw.sensitivities = &sens; sw.num_sensitivities = 1;
    cap_reset(LOG(state));
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, 3, 4, NULL, &res), HST_ERROR_INVALID_ARGUMENT);
    assert_true(LOG(state)->counts[HST_LOGITEM_OUT_OF_RANGE] >= 1);
    assert_non_null(strstr(LOG(state)->last_message, "rows 3 at magnification 3"));
    assert_non_null(strstr(LOG(state)->last_message, "at least 10"));
    assert_int_equal(st.calls, 0);
    d.frames_per_timepoint = 1;
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, 3, 4, NULL, &res), HST_SUCCESS);
    assert_true(isnan(res.resolution[0][0]) && isnan(res.qnr[0][0]));
    d.frames_per_timepoint = 0;
    d.magnification = 1;   /* decorrelation: 2 x 2 at least */
    sw.use_decorr = 1;
    st.calls = 0;
    cap_reset(LOG(state));
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, 5, 1, NULL, &res), HST_ERROR_INVALID_ARGUMENT);
    assert_true(LOG(state)->counts[HST_LOGITEM_OUT_OF_RANGE] >= 1);
    assert_non_null(strstr(LOG(state)->last_message, "cols 1 at magnification 1"));
    assert_int_equal(st.calls, 0);
}

/* ------------------------------------------------------------------ interruption */
/* A second thread that interrupts the backend when the progress asks it (past `after` steps);
   the progress waits until it has, so the sweep's next check finds it. */
typedef struct interrupter {
    hst_backend *be;
    uint64_t after, at, total;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asked, sent;
    unsigned calls_after;           /* progress calls once interrupted */
} interrupter;

static void *interrupter_main(void *p)
{
    interrupter *it = (interrupter *)p;
    pthread_mutex_lock(&it->mu);
    while (!it->asked) pthread_cond_wait(&it->cv, &it->mu);
    hst_backend_interrupt(it->be);
    it->sent = 1;
    pthread_cond_broadcast(&it->cv);
    pthread_mutex_unlock(&it->mu);
    return NULL;
}

static int interrupter_progress(uint64_t done, uint64_t total, void *user)
{
    interrupter *it = (interrupter *)user;
    pthread_mutex_lock(&it->mu);
    it->total = total;
    if (it->sent) {
        it->calls_after++;
    } else if (done > it->after) {
        it->asked = 1;
        it->at = done;
        pthread_cond_broadcast(&it->cv);
        while (!it->sent) pthread_cond_wait(&it->cv, &it->mu);
    }
    pthread_mutex_unlock(&it->mu);
    return 0;   /* the interruption alone stops the call */
}

/* The sweep interrupted once its progress passes `after` steps: cancelled, nothing reported
   after; again at once while interrupted; cleared, it runs. */
static void interrupt_sweep(void **state, int use_decorr, uint64_t after)
{
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    interrupter it;
    hst_result r;
    memset(&it, 0, sizeof it);
    it.be = be;
    it.after = after;
    pthread_mutex_init(&it.mu, NULL);
    pthread_cond_init(&it.cv, NULL);
    assert_int_equal(pthread_create(&it.th, NULL, interrupter_main, &it), 0);
    pairs_init(&d, &sw, &be);
    d.block_frames = 2;
    d.progress = interrupter_progress;
    d.progress_user = &it;
    sw.use_decorr = use_decorr;
    r = hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res);
    pthread_mutex_lock(&it.mu);
    it.asked = 1;   /* a sweep that never asked lets the thread go too */
    pthread_cond_broadcast(&it.cv);
    pthread_mutex_unlock(&it.mu);
    pthread_join(it.th, NULL);
    assert_int_equal(r, HST_ERROR_CANCELLED);
    assert_true(it.at > after && it.at < it.total);
    assert_int_equal(it.calls_after, 0);
    assert_true(hst_backend_interrupted(be));
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_CANCELLED);
    assert_int_equal(it.calls_after, 0);   /* at once */
    hst_backend_interrupt_clear(be);
    d.progress = NULL;
    assert_int_equal(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_SUCCESS);
    pthread_mutex_destroy(&it.mu);
    pthread_cond_destroy(&it.cv);
}

static void test_interrupt_scoring(void **state)
{
    interrupt_sweep(state, 1, N);   /* after the RSPs: the decorrelations stop */
    interrupt_sweep(state, 0, N);   /* after the RSPs: the FRCs do not report */
}

static void test_interrupt_pass(void **state) { interrupt_sweep(state, 0, 0); }   /* after the first block */

/* ------------------------------------------------------------------ errors */
#define EXPECT_REFUSED(call, code, item, text) do {                                       \
        cap_reset(LOG(state));                                                           \
        assert_int_equal((call), (code));                                                \
        assert_true(LOG(state)->counts[(item)] >= 1);                                    \
        if (!strstr(LOG(state)->last_message, (text))) {                                 \
            print_error("log: '%s' lacks '%s'\n", LOG(state)->last_message, (text));     \
            fail();                                                                      \
        }                                                                                \
    } while (0)

static void test_errors(void **state)
{
    static const float radii[2] = {1.0f, 25.0f}, sens[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    hst_backend *be = BE(state), *two[2];
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    desc_init(&d, &be);
    memset(&sw, 0, sizeof sw);
    sw.radii = radii; sw.num_radii = 1;
    sw.sensitivities = sens; sw.num_sensitivities = 1;
    EXPECT_REFUSED(hst_esrrf_sweep(&d, NULL, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_NULL_ARGUMENT, "sweep is NULL");
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_NULL_ARGUMENT, "result is NULL");
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, NULL, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_NULL_ARGUMENT, "stack is NULL");
    sw.num_sensitivities = 9;
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_OUT_OF_RANGE, "9 sensitivities");
    sw.num_sensitivities = 1;
    sw.num_radii = 2;
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_OUT_OF_RANGE, "radii[1] 25");
    sw.num_radii = 1;
    two[0] = two[1] = be;
    d.backends = two;
    d.num_backends = 2;
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_BAD_ARGUMENT, "one backend");
    desc_init(&d, &be);
    d.magnification = 40;
    EXPECT_REFUSED(hst_esrrf_sweep(&d, &sw, frames, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_OUT_OF_RANGE, "magnification 40");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_images_plain, reset_log),
        cmocka_unit_test_setup(test_images_unweighted, reset_log),
        cmocka_unit_test_setup(test_images_timepoints_corrected, reset_log),
        cmocka_unit_test_setup(test_images_shapes, reset_log),
        cmocka_unit_test_setup(test_scores_frc, reset_log),
        cmocka_unit_test_setup(test_scores_frc_timepoints, reset_log),
        cmocka_unit_test_setup(test_scores_frc_blocks, reset_log),
        cmocka_unit_test_setup(test_scores_decorr, reset_log),
        cmocka_unit_test_setup(test_scores_one_frame_timepoints, reset_log),
        cmocka_unit_test_setup(test_one_frame_stack, reset_log),
        cmocka_unit_test_setup(test_progress_steps, reset_log),
        cmocka_unit_test_setup(test_tiny_frames, reset_log),
        cmocka_unit_test_setup(test_too_small, reset_log),
        cmocka_unit_test_setup(test_interrupt_scoring, reset_log),
        cmocka_unit_test_setup(test_interrupt_pass, reset_log),
        cmocka_unit_test_setup(test_errors, reset_log),
    };
    return cmocka_run_group_tests(tests, group_setup, teardown);
}
