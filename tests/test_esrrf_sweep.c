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
     maps with NanoPyx's formula (logistic_image_conversion, harmonic mean), within [0, 1], and
     the best pair its first maximum; every RSP of the blinking emitters above 0.5;
   - errors: each with its code and log item. */
#define _POSIX_C_SOURCE 200809L
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
/* NanoPyx's calculate_qnr_score of the maps (ns x nr, C order) */
static void qnr_of(const hst_esrrf_sweep_result *res, unsigned ns, unsigned nr, double q[8][8])
{
    double lo = INFINITY, hi = -INFINITY;
    const double M1 = 0.075, M2 = 0.925;
    double A1 = log((1 - M1) / M1), A2 = log((1 - M2) / M2);
    unsigned k, l;
    for (l = 0; l < ns; l++)
        for (k = 0; k < nr; k++) {
            if (res->resolution[l][k] < lo) lo = res->resolution[l][k];
            if (res->resolution[l][k] > hi) hi = res->resolution[l][k];
        }
    for (l = 0; l < ns; l++)
        for (k = 0; k < nr; k++) {
            double x0 = (A2 * hi - A1 * lo) / (A2 - A1), kk = 1.0 / (x0 - hi) * A1;
            double n = lo == hi ? 0.5 : 1.0 / (exp(-kk * (res->resolution[l][k] - x0)) + 1.0);
            double s = res->rsp[l][k];
            q[l][k] = s + n != 0.0 ? 2.0 * s * n / (s + n) : 0.0;
        }
}

static void expect_scores(void **state, int use_decorr, uint64_t per, uint64_t block)
{
    static const float radii[3] = {1.0f, 1.5f, 2.0f}, sens[2] = {1.0f, 2.0f};
    hst_backend *be = BE(state);
    hst_esrrf_desc d;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    float *avg = (float *)xmalloc(PX * sizeof(float)), *odd = (float *)xmalloc(PX * sizeof(float));
    float *even = (float *)xmalloc(PX * sizeof(float)), ref[R * C];
    double q[8][8], best = -1.0;
    unsigned k, l, bl = 0, bk = 0;
    uint64_t T = per ? per : N, a;
    desc_init(&d, &be);
    d.frames_per_timepoint = per;
    d.block_frames = block;
    memset(&sw, 0, sizeof sw);
    sw.radii = radii; sw.num_radii = 3;
    sw.sensitivities = sens; sw.num_sensitivities = 2;
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
            assert_true(res.resolution[l][k] == (nres ? resn / nres : 0.0));
            assert_true(res.rsp[l][k] > 0.5);   /* the emitters: a strong correlation */
        }
    qnr_of(&res, 2, 3, q);
    for (l = 0; l < 2; l++)
        for (k = 0; k < 3; k++) {
            assert_true(fabs(res.qnr[l][k] - q[l][k]) <= 1e-12);
            assert_true(res.qnr[l][k] >= 0.0 && res.qnr[l][k] <= 1.0);
            if (q[l][k] > best) { best = q[l][k]; bl = l; bk = k; }
        }
    assert_int_equal(res.best_sensitivity, bl);
    assert_int_equal(res.best_radius, bk);
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
        cmocka_unit_test_setup(test_errors, reset_log),
    };
    return cmocka_run_group_tests(tests, group_setup, teardown);
}
