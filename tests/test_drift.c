/* test_drift.c — quality.h's drift estimation (hst_drift_*) on stacks made here with a known
   drift, on the device under test ($HST_DEVICE) and against the host device in the same run.

   The stacks (40 frames of 192 x 208): 360 random Gaussian blobs (sigma 2 px, amplitudes 200 .. 1000 counts over a
   background of 100, a few counts of Gaussian noise, rounded to u16) rendered at their
   positions moved by the frame's drift: each frame is an exact, sub-pixel translation of one
   smooth (band-limited to float precision) scene, content entering and leaving at the edges as
   in a microscope. The drift: several pixels over the stack, sub-pixel, not linear.
   Known answers and tolerances:
   - every frame against the first: within 0.05 px RMS of the true drift (the bound)
     with the Gaussian peak fit; the parabola and NanoPyx's Catmull-Rom maximum are biased
     towards the integer pixel (up to ~0.1 px for these peaks: 0.12 px RMS bound);
   - against the mean of the first N frames: the true drift minus the N frames' mean drift;
   - against the previous frame: the steps add up, and so do their errors (HST_DRIFT_PREVIOUS_RMS);
   - temporal averaging of 4: the block means are estimated and interpolated: 0.05 px RMS on a
     smooth drift;
   - blocks of any size (1, 7, 16, the whole stack) give the same drift bit for bit; so do u8,
     i16 and f32 frames holding the same integers as u16 ones;
   - frames larger than a staging piece, pushed whole, one at a time or in blocks of 7: the same
     bits;
   - host device and device under test: the same kernels, only the FFT libraries (FFTW, VkFFT)
     differ: the drifts within HST_DRIFT_AGREE (1e-4 px; 5e-6 seen on PoCL);
   - max_shift bounds the search; a blank frame keeps the previous estimate, with a warning;
   - the drift undone (liquid.h's hst_shift_magnify, Catmull-Rom, shift -(dy, dx)): the corrected
     stack's estimated drift within 0.08 px RMS of 0 (what is left is the first estimate's error
     plus the second's, each ~0.035 px RMS);
   - a flat frame whose map is rounding, not 0 (1e6 counts +- 1: a GPU FFT's blank frame), has
     no peak either: the decision is relative to the frames' mean intensities;
   - the end-to-end bound: a noisy drifting stack, estimated and corrected, gives an
     eSRRF image (mag 2, AVG of the odd and of the even frames) whose FRC resolution is within
     5% of the still scene's, and more than 5% worse uncorrected;
   - the references' names (hst_drift_reference_parse);
   - rejected arguments: result codes and log items. */
#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_FFT
#include "quality.h"
#include "liquid.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#include "be_fixture.h"

#define ROWS 192
#define COLS 208
#define FRAMES 40
#define BLOBS 360
#define REACH 9   /* blobs drawn out to 4.5 sigma: beyond, below a count's rounding */
#define HST_DRIFT_AGREE 1e-4
/* Against the previous frame the steps' errors add up: 39 steps of 0.1 .. 0.3 px, each ~0.01 px
   short (the 3-point fits' pull towards the integer pixel has one sign for small steps), so
   the last frames are ~0.3 px short of the truth (NanoPyx's ref_option 1 adds its steps alike) */
#define HST_DRIFT_PREVIOUS_RMS 0.3

static uint64_t rng_state;
static double uniform(void) {   /* xorshift64*, [0, 1) */
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static double normal(void) {
    double u = uniform(), v = uniform();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* The true drift of frame t: (dy, dx), several pixels over the stack, sub-pixel, curved. */
static void true_drift(size_t t, int smooth, double *dy, double *dx) {
    double s = (double)t / (FRAMES - 1);
    *dy = 3.3 * s + (smooth ? 0.4 * s * s : 0.25 * sin(0.9 * (double)t));
    *dx = -4.6 * s + 1.1 * s * s + (smooth ? 0.0 : 0.2 * cos(0.7 * (double)t));
}

/* (FRAMES, ROWS, COLS) u16: the blobs at their positions + gain times the frame's drift, over
   a background of `background` counts with Gaussian noise of sigma `noise` counts, rounded
   (at least 0) (gain 0: the same scene and noise, still). */
static uint16_t *make_stack_gain(int smooth, uint64_t seed, double gain, double background, double noise,
                                 double *truth) {
    double by[BLOBS], bx[BLOBS], ba[BLOBS], *v = (double *)malloc(sizeof(double) * ROWS * COLS);
    uint16_t *s = (uint16_t *)malloc(sizeof(uint16_t) * FRAMES * ROWS * COLS);
    size_t t, i, b;
    long y, x;
    assert_non_null(s); assert_non_null(v);
    rng_state = seed;
    for (b = 0; b < BLOBS; b++) {
        by[b] = -8.0 + (ROWS + 16.0) * uniform();
        bx[b] = -8.0 + (COLS + 16.0) * uniform();
        ba[b] = 200.0 + 800.0 * uniform();
    }
    for (t = 0; t < FRAMES; t++) {
        double dy, dx;
        true_drift(t, smooth, &dy, &dx);
        dy *= gain; dx *= gain;
        truth[2 * t] = dy; truth[2 * t + 1] = dx;
        for (i = 0; i < (size_t)ROWS * COLS; i++) v[i] = background + noise * normal();
        for (b = 0; b < BLOBS; b++) {
            double cy = by[b] + dy, cx = bx[b] + dx;
            for (y = (long)floor(cy) - REACH; y <= (long)floor(cy) + REACH; y++)
                for (x = (long)floor(cx) - REACH; x <= (long)floor(cx) + REACH; x++) {
                    double ry = (double)y - cy, rx = (double)x - cx;
                    if (y < 0 || y >= ROWS || x < 0 || x >= COLS) continue;
                    v[y * COLS + x] += ba[b] * exp(-(ry * ry + rx * rx) / (2.0 * 2.0 * 2.0));
                }
        }
        for (i = 0; i < (size_t)ROWS * COLS; i++) s[t * ROWS * COLS + i] = (uint16_t)(v[i] > 0.0 ? v[i] + 0.5 : 0.0);   /* no wrap below 0 */
    }
    free(v);
    return s;
}

static uint16_t *make_stack(int smooth, uint64_t seed, double *truth) {
    return make_stack_gain(smooth, seed, 1.0, 100.0, 3.0, truth);
}

/* RMS over frames of |estimate - (truth - truth's offset)|, offset: the truth's mean over
   frames [0, n0) (the reference's position). */
static double rms_error(const double *est, const double *truth, size_t n0) {
    double oy = 0.0, ox = 0.0, s = 0.0;
    size_t t;
    for (t = 0; t < n0; t++) { oy += truth[2 * t] / (double)n0; ox += truth[2 * t + 1] / (double)n0; }
    for (t = 0; t < FRAMES; t++) {
        double ey = est[2 * t] - (truth[2 * t] - oy), ex = est[2 * t + 1] - (truth[2 * t + 1] - ox);
        s += ey * ey + ex * ex;
    }
    return sqrt(s / FRAMES);
}

static hst_drift_desc desc_of(hst_drift_reference ref, size_t n, hst_drift_peak peak, size_t averaging) {
    hst_drift_desc d;
    memset(&d, 0, sizeof d);
    d.reference = ref; d.reference_frames = n; d.peak = peak; d.averaging = averaging;
    return d;
}

static double run_rms(void **state, const hst_drift_desc *d, int smooth, size_t n0, double *est) {
    double truth[2 * FRAMES], e;
    uint16_t *s = make_stack(smooth, 7, truth);
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, d, est), HST_SUCCESS);
    free(s);
    e = rms_error(est, truth, n0);
    printf("# reference %d, peak %d, averaging %zu: %.4f px RMS\n", (int)d->reference, (int)d->peak,
           d->averaging, e);
    return e;
}

static void test_first_frame(void **state) {
    double est[2 * FRAMES];
    hst_drift_desc d = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    double truth[2 * FRAMES], e1[2 * FRAMES];
    uint16_t *s = make_stack(0, 7, truth);
    assert_true(run_rms(state, &d, 0, 1, est) < 0.05);
    assert_true(est[0] == 0.0 && est[1] == 0.0);
    /* desc NULL: these defaults */
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, NULL, e1), HST_SUCCESS);
    assert_memory_equal(est, e1, sizeof e1);
    free(s);
}

static void test_peak_methods(void **state) {
    double est[2 * FRAMES];
    hst_drift_desc d = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_PARABOLA, 0);
    assert_true(run_rms(state, &d, 0, 1, est) < 0.12);
    d.peak = HST_DRIFT_PEAK_CATMULL_ROM;
    assert_true(run_rms(state, &d, 0, 1, est) < 0.12);
}

static void test_mean_reference(void **state) {
    double est[2 * FRAMES];
    hst_drift_desc d = desc_of(HST_DRIFT_REF_MEAN, 5, HST_DRIFT_PEAK_GAUSSIAN, 0);
    assert_true(run_rms(state, &d, 0, 5, est) < 0.05);
}

static void test_previous_frame(void **state) {
    double est[2 * FRAMES];
    hst_drift_desc d = desc_of(HST_DRIFT_REF_PREVIOUS, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    assert_true(run_rms(state, &d, 0, 1, est) < HST_DRIFT_PREVIOUS_RMS);
    assert_true(est[0] == 0.0 && est[1] == 0.0);
}

/* The reference is the first block's mean: the truth's offset is the mean of its frames. */
static void test_averaging(void **state) {
    double est[2 * FRAMES];
    hst_drift_desc d = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 4);
    assert_true(run_rms(state, &d, 1, 4, est) < 0.05);
    d.averaging = 6;   /* 6 blocks of 6 and one of 4 */
    assert_true(run_rms(state, &d, 1, 6, est) < 0.05);
    d = desc_of(HST_DRIFT_REF_MEAN, 8, HST_DRIFT_PEAK_GAUSSIAN, 4);
    assert_true(run_rms(state, &d, 1, 8, est) < 0.05);
    d = desc_of(HST_DRIFT_REF_PREVIOUS, 0, HST_DRIFT_PEAK_GAUSSIAN, 4);
    assert_true(run_rms(state, &d, 1, 4, est) < HST_DRIFT_PREVIOUS_RMS);
}

/* Pushes the stack in blocks of `block` frames (dtype as given) into a session of batch `batch`. */
static void estimate_blocks(hst_backend *be, const void *s, hst_drift_dtype dt, size_t bytes, size_t block,
                            const hst_drift_desc *in, size_t batch, double *est) {
    hst_drift_desc d = *in;
    hst_drift *dr = NULL;
    size_t t;
    d.batch = batch;
    assert_int_equal(hst_drift_open(be, ROWS, COLS, &d, &dr), HST_SUCCESS);
    for (t = 0; t < FRAMES; t += block)
        assert_int_equal(hst_drift_push(dr, (const char *)s + t * ROWS * COLS * bytes, dt,
                                        FRAMES - t < block ? FRAMES - t : block), HST_SUCCESS);
    assert_int_equal(hst_drift_frames(dr), FRAMES);
    assert_int_equal(hst_drift_finish(dr, est, FRAMES), HST_SUCCESS);
    hst_drift_close(dr);
}

static void test_blocks_and_dtypes(void **state) {
    double truth[2 * FRAMES], e0[2 * FRAMES], e1[2 * FRAMES];
    uint16_t *s = make_stack(0, 11, truth);
    uint8_t *s8 = (uint8_t *)malloc(FRAMES * ROWS * COLS);
    int16_t *s16 = (int16_t *)malloc(2 * FRAMES * ROWS * COLS);
    float *s32 = (float *)malloc(4 * FRAMES * ROWS * COLS);
    size_t blocks[4] = { 1, 7, 16, FRAMES }, batches[3] = { 1, 5, 16 }, i, j, k;
    hst_drift_desc ds[3];
    ds[0] = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 3);
    ds[1] = desc_of(HST_DRIFT_REF_MEAN, 6, HST_DRIFT_PEAK_CATMULL_ROM, 0);
    ds[2] = desc_of(HST_DRIFT_REF_PREVIOUS, 0, HST_DRIFT_PEAK_PARABOLA, 0);
    assert_non_null(s8); assert_non_null(s16); assert_non_null(s32);
    for (i = 0; i < (size_t)FRAMES * ROWS * COLS; i++) {
        s8[i] = (uint8_t)(s[i] / 8); s[i] = (uint16_t)(s8[i] * 8);   /* integers all four hold */
        s16[i] = (int16_t)s[i]; s32[i] = (float)s[i];
    }
    for (k = 0; k < 3; k++) {
        assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, &ds[k], e0), HST_SUCCESS);
        for (i = 0; i < 4; i++)
            for (j = 0; j < 3; j++) {
                estimate_blocks(BE(state), s, HST_DRIFT_U16, 2, blocks[i], &ds[k], batches[j] + (k == 1 ? 5 : 0), e1);
                assert_memory_equal(e0, e1, sizeof e0);
            }
        estimate_blocks(BE(state), s16, HST_DRIFT_I16, 2, 9, &ds[k], 0, e1);
        assert_memory_equal(e0, e1, sizeof e0);
        estimate_blocks(BE(state), s32, HST_DRIFT_F32, 4, 13, &ds[k], 0, e1);
        assert_memory_equal(e0, e1, sizeof e0);
        /* u8 holds the values / 8: a scale moves no peak, but the sums round differently */
        estimate_blocks(BE(state), s8, HST_DRIFT_U8, 1, 40, &ds[k], 0, e1);
        for (i = 0; i < 2 * FRAMES; i++) assert_true(fabs(e0[i] - e1[i]) < 1e-3);
    }
    free(s); free(s8); free(s16); free(s32);
}

/* Frames larger than a staging piece (quality.h's HST__Q_DRIFT_STAGE_BYTES, 8 MiB: 7 f32 frames of
   520 x 520) go up to an OpenCL device in several pieces per batch, through its two pinned
   buffers in turn and its two raw buffers: the same bits as one frame per push (one piece) and
   as blocks of 7 (pieces and batches out of step). */
#define BIG 520
#define BIG_FRAMES 20
static void test_staged_pieces(void **state) {
    float *s = (float *)malloc(sizeof(float) * BIG_FRAMES * BIG * BIG);
    double e0[2 * BIG_FRAMES], e1[2 * BIG_FRAMES];
    size_t t, y, x, blocks[2] = { 1, 7 }, i, b;
    hst_drift *dr = NULL;
    assert_non_null(s);
    for (t = 0; t < BIG_FRAMES; t++)   /* a smooth pattern drifting by (0.3, -0.2) px per frame */
        for (y = 0; y < BIG; y++)
            for (x = 0; x < BIG; x++) {
                double u = (double)y - 0.3 * (double)t - BIG / 2, v = (double)x + 0.2 * (double)t - BIG / 2;
                double env = exp(-(u * u + v * v) / (2.0 * 100.0 * 100.0));   /* one peak, not a lattice */
                s[(t * BIG + y) * BIG + x] =
                    (float)floor(100.0 + env * (30.0 + 50.0 * sin(0.11 * u) * cos(0.07 * v)) + 0.5);
            }
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_F32, BIG_FRAMES, BIG, BIG, NULL, e0), HST_SUCCESS);
    for (i = 0; i < 2; i++) {
        assert_int_equal(hst_drift_open(BE(state), BIG, BIG, NULL, &dr), HST_SUCCESS);
        for (t = 0; t < BIG_FRAMES; t += b) {
            b = BIG_FRAMES - t < blocks[i] ? BIG_FRAMES - t : blocks[i];
            assert_int_equal(hst_drift_push(dr, s + t * BIG * BIG, HST_DRIFT_F32, b), HST_SUCCESS);
        }
        assert_int_equal(hst_drift_finish(dr, e1, BIG_FRAMES), HST_SUCCESS);
        hst_drift_close(dr);
        assert_memory_equal(e0, e1, sizeof e0);
    }
    assert_true(fabs(e0[2 * (BIG_FRAMES - 1)] - 0.3 * (BIG_FRAMES - 1)) < 0.5);   /* it found the drift */
    free(s);
}

static void test_devices_agree(void **state) {
    hst_backend *h = NULL;
    hst_backend_desc bd;
    double truth[2 * FRAMES], e0[2 * FRAMES], e1[2 * FRAMES], worst = 0.0;
    uint16_t *s;
    size_t i, k;
    hst_drift_desc ds[3];
    if (hst_backend_is_host(BE(state))) skip();
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    assert_int_equal(hst_backend_create(&bd, &h), HST_SUCCESS);
    ds[0] = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    ds[1] = desc_of(HST_DRIFT_REF_MEAN, 3, HST_DRIFT_PEAK_CATMULL_ROM, 2);
    ds[2] = desc_of(HST_DRIFT_REF_PREVIOUS, 0, HST_DRIFT_PEAK_PARABOLA, 0);
    s = make_stack(0, 13, truth);
    for (k = 0; k < 3; k++) {
        assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, &ds[k], e0), HST_SUCCESS);
        assert_int_equal(hst_drift_estimate(h, s, HST_DRIFT_U16, FRAMES, ROWS, COLS, &ds[k], e1), HST_SUCCESS);
        for (i = 0; i < 2 * FRAMES; i++) if (fabs(e0[i] - e1[i]) > worst) worst = fabs(e0[i] - e1[i]);
    }
    printf("# device vs host: %.3g px at most\n", worst);
    assert_true(worst < HST_DRIFT_AGREE);
    free(s);
    assert_int_equal(hst_backend_destroy(h), HST_SUCCESS);
}

/* A frame moved by (5, -6) against the first: found with max_shift 8; max_shift 3 keeps the
   search inside +-3 (the sub-pixel fit may add up to a pixel). */
static void test_max_shift(void **state) {
    double truth[2 * FRAMES], est[2 * FRAMES];
    uint16_t *s = make_stack(0, 17, truth), *two = (uint16_t *)malloc(sizeof(uint16_t) * 2 * ROWS * COLS);
    hst_drift_desc d = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    size_t y, x;
    assert_non_null(two);
    for (y = 0; y < ROWS; y++)   /* frame 1: frame 0 moved by (5, -6), the edges filled */
        for (x = 0; x < COLS; x++) {
            long sy = (long)y - 5, sx = (long)x + 6;
            sy = sy < 0 ? 0 : sy; sx = sx >= COLS ? COLS - 1 : sx;
            two[y * COLS + x] = s[y * COLS + x];
            two[ROWS * COLS + y * COLS + x] = s[(size_t)sy * COLS + (size_t)sx];
        }
    d.max_shift = 8;
    assert_int_equal(hst_drift_estimate(BE(state), two, HST_DRIFT_U16, 2, ROWS, COLS, &d, est), HST_SUCCESS);
    printf("# max_shift 8: %.4f %.4f\n", est[2], est[3]);
    assert_true(fabs(est[2] - 5.0) < 0.05 && fabs(est[3] + 6.0) < 0.05);
    d.max_shift = 3;
    assert_int_equal(hst_drift_estimate(BE(state), two, HST_DRIFT_U16, 2, ROWS, COLS, &d, est), HST_SUCCESS);
    assert_true(fabs(est[2]) <= 4.0 && fabs(est[3]) <= 4.0);
    free(s); free(two);
}

/* A blank frame: nothing correlates; its drift is the previous frame's, with a warning. */
static void test_blank_frame(void **state) {
    double truth[2 * FRAMES], est[2 * FRAMES];
    uint16_t *s = make_stack(0, 19, truth);
    hst_drift_desc d = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    size_t i;
    for (i = 0; i < (size_t)ROWS * COLS; i++) s[10 * ROWS * COLS + i] = 100;
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, &d, est), HST_SUCCESS);
    assert_true(LOG(state)->counts[HST_LOGITEM_NONE] >= 1 && LOG(state)->last_level == HST_LOG_WARN);
    assert_true(est[20] == est[18] && est[21] == est[19]);
    free(s);
}

/* A flat frame whose map is not exactly 0: 1e6 counts with +-1 of noise (float's rounding of
   a GPU FFT's blank frame, made on every device). Its peak, ~1e-3 of a count squared per
   pixel, is far below 1e-6 of the frames' means' product: no peak, as a blank frame. */
static void test_flat_frame_relative(void **state) {
    double truth[2 * FRAMES], est[2 * FRAMES];
    uint16_t *s = make_stack(0, 19, truth);
    float *f = (float *)malloc(sizeof(float) * FRAMES * ROWS * COLS);
    size_t i;
    assert_non_null(f);
    for (i = 0; i < (size_t)FRAMES * ROWS * COLS; i++) f[i] = (float)s[i];
    for (i = 0; i < (size_t)ROWS * COLS; i++) f[10 * ROWS * COLS + i] = (float)(1e6 + 2.0 * uniform() - 1.0);
    assert_int_equal(hst_drift_estimate(BE(state), f, HST_DRIFT_F32, FRAMES, ROWS, COLS, NULL, est), HST_SUCCESS);
    assert_true(LOG(state)->counts[HST_LOGITEM_NONE] >= 1 && LOG(state)->last_level == HST_LOG_WARN);
    assert_true(est[20] == est[18] && est[21] == est[19]);
    free(s); free(f);
}

/* Frames of s (u16) shifted back by est into c (f32): liquid.h's Catmull-Rom shift at
   magnification 1, shift -(dy, dx), as examples/esrrf.c's --drift applies it. */
static void correct_stack(hst_backend *be, const uint16_t *s, const double *est, float *c) {
    float *f32 = (float *)malloc(sizeof(float) * ROWS * COLS);
    size_t t, i, shape[2] = { ROWS, COLS };
    hst_array *src = NULL, *dst = NULL;
    assert_non_null(f32);
    assert_int_equal(hst_array_create(be, HST_F32, 2, shape, &src), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, shape, &dst), HST_SUCCESS);
    for (t = 0; t < FRAMES; t++) {
        hst_shift_magnify_desc sm;
        sm.shift_row = (float)-est[2 * t]; sm.shift_col = (float)-est[2 * t + 1];
        sm.magnification_row = sm.magnification_col = 1.0f;
        for (i = 0; i < (size_t)ROWS * COLS; i++) f32[i] = (float)s[t * ROWS * COLS + i];
        assert_int_equal(hst_array_write(src, f32, sizeof(float) * ROWS * COLS), HST_SUCCESS);
        assert_int_equal(hst_shift_magnify(dst, src, &sm), HST_SUCCESS);
        assert_int_equal(hst_array_read(dst, c + t * ROWS * COLS, sizeof(float) * ROWS * COLS), HST_SUCCESS);
    }
    hst_array_destroy(src); hst_array_destroy(dst);
    free(f32);
}

/* Each frame shifted back by its estimated drift (Catmull-Rom, as eSRRF's magnification will
   apply it): the corrected stack holds still. */
static void test_corrected(void **state) {
    double truth[2 * FRAMES], est[2 * FRAMES], again[2 * FRAMES], zero[2 * FRAMES];
    uint16_t *s = make_stack(0, 23, truth);
    float *c = (float *)malloc(sizeof(float) * FRAMES * ROWS * COLS);
    assert_non_null(c);
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, NULL, est), HST_SUCCESS);
    correct_stack(BE(state), s, est, c);
    assert_int_equal(hst_drift_estimate(BE(state), c, HST_DRIFT_F32, FRAMES, ROWS, COLS, NULL, again), HST_SUCCESS);
    memset(zero, 0, sizeof zero);
    printf("# corrected stack: %.4f px RMS (drift %.4f px RMS before)\n", rms_error(again, zero, 1),
           rms_error(est, zero, 1));
    assert_true(rms_error(again, zero, 1) < 0.08);
    free(s); free(c);
}

#define SR_MAG 2          /* eSRRF's magnification in the FRC comparison (quick, and enough) */
#define FRC_AGREE 0.05    /* the bound: within 5% of the still stack's resolution */
/* The FRC stack's background and noise (counts; blobs of 200 .. 1000): noisy enough that the
   odd and the even frames' eSRRF images part at high frequencies, so that their FRC curve
   crosses 1/7 (with the other stacks' 3 counts of noise it never does: FIRE 0); at this noise
   the drift estimate is ~0.15 px RMS off (the 0.05 px bound is the quieter stacks'). */
#define FRC_BACKGROUND 1000.0
#define FRC_NOISE 300.0
#define FRC_DRIFT_RMS 0.2

/* The FRC resolution (magnified pixels) of the eSRRF AVG images of the odd and the even frames
   of the f32 stack c (FRAMES, ROWS, COLS): the sweep's and --quality's measure. */
static double odd_even_frc(hst_backend *be, const float *c) {
    size_t px = (size_t)ROWS * COLS, pxm = px * SR_MAG * SR_MAG, t;
    float *half = (float *)malloc(sizeof(float) * (FRAMES / 2) * px), *img[2];
    hst_esrrf_desc d;
    hst_frc_desc fd;
    hst_frc_result fr;
    int k;
    img[0] = (float *)malloc(sizeof(float) * pxm); img[1] = (float *)malloc(sizeof(float) * pxm);
    assert_non_null(half); assert_non_null(img[0]); assert_non_null(img[1]);
    memset(&d, 0, sizeof d);
    d.magnification = SR_MAG;
    d.backends = &be;
    d.num_backends = 1;
    for (k = 0; k < 2; k++) {
        float *out[HST_ESRRF_NUM_MODES] = { NULL };
        for (t = 0; t < FRAMES / 2; t++) memcpy(half + t * px, c + (2 * t + (size_t)k) * px, sizeof(float) * px);
        out[0] = img[k];
        assert_int_equal(hst_esrrf_run(&d, half, HST_ESRRF_F32, FRAMES / 2, ROWS, COLS, out, NULL), HST_SUCCESS);
    }
    memset(&fd, 0, sizeof fd);
    assert_int_equal(hst_frc(be, img[0], img[1], ROWS * SR_MAG, COLS * SR_MAG, &fd, NULL, &fr), HST_SUCCESS);
    free(half); free(img[0]); free(img[1]);
    return fr.resolution;
}

/* The end-to-end bound: a noisy stack drifting several pixels (sub-pixel, curved), its
   drift estimated and undone, gives an eSRRF image whose FRC resolution is within 5% of the
   same scene's (same noise) without drift; uncorrected it is more than 5% worse. */
static void test_corrected_esrrf_resolution(void **state) {
    double truth[2 * FRAMES], still_truth[2 * FRAMES], est[2 * FRAMES], r_still, r_corr, r_raw;
    uint16_t *s = make_stack_gain(1, 29, 1.0, FRC_BACKGROUND, FRC_NOISE, truth),
             *still = make_stack_gain(1, 29, 0.0, FRC_BACKGROUND, FRC_NOISE, still_truth);
    float *c = (float *)malloc(sizeof(float) * FRAMES * ROWS * COLS);
    size_t i;
    assert_non_null(c);
    assert_int_equal(hst_drift_estimate(BE(state), s, HST_DRIFT_U16, FRAMES, ROWS, COLS, NULL, est), HST_SUCCESS);
    assert_true(rms_error(est, truth, 1) < FRC_DRIFT_RMS);
    for (i = 0; i < (size_t)FRAMES * ROWS * COLS; i++) c[i] = (float)still[i];
    r_still = odd_even_frc(BE(state), c);
    for (i = 0; i < (size_t)FRAMES * ROWS * COLS; i++) c[i] = (float)s[i];
    r_raw = odd_even_frc(BE(state), c);
    correct_stack(BE(state), s, est, c);
    r_corr = odd_even_frc(BE(state), c);
    printf("# drift %.4f px RMS off; FRC resolution (SR px): still %.4f, drifted %.4f, corrected %.4f (%+.2f%%)\n",
           rms_error(est, truth, 1), r_still, r_raw, r_corr, 100.0 * (r_corr - r_still) / r_still);
    assert_true(r_still > 0.0 && fabs(r_corr - r_still) <= FRC_AGREE * r_still);
    assert_true(r_raw > (1.0 + FRC_AGREE) * r_still);   /* uncorrected, the bound fails: it tells */
    free(s); free(still); free(c);
}

static void expect(void **state, hst_result got, hst_result want, hst_log_item item) {
    assert_int_equal(got, want);
    assert_true(LOG(state)->errors[item] >= 1);
    printf("# rejected: %s\n", LOG(state)->last_message);
    cap_reset(LOG(state));
}

/* The references' names (the command line's --drift=REF, Python's reference=). */
static void test_reference_names(void **state) {
    (void)state;
    assert_int_equal(hst_drift_reference_parse("first"), HST_DRIFT_REF_FIRST);
    assert_int_equal(hst_drift_reference_parse("mean"), HST_DRIFT_REF_MEAN);
    assert_int_equal(hst_drift_reference_parse("previous"), HST_DRIFT_REF_PREVIOUS);
    assert_int_equal(hst_drift_reference_parse("First"), -1);
    assert_int_equal(hst_drift_reference_parse("mean:3"), -1);
    assert_int_equal(hst_drift_reference_parse(""), -1);
    assert_int_equal(hst_drift_reference_parse(NULL), -1);
}

static void test_errors(void **state) {
    hst_backend *be = BE(state);
    hst_drift *d = NULL;
    hst_drift_desc dd = desc_of(HST_DRIFT_REF_FIRST, 0, HST_DRIFT_PEAK_GAUSSIAN, 0);
    static uint16_t frames[2 * ROWS * COLS];
    static float nan_frame[ROWS * COLS];
    double out[4];
    memset(frames, 0, sizeof frames);
    memset(nan_frame, 0, sizeof nan_frame);
    nan_frame[77] = NAN;
    expect(state, hst_drift_open(be, ROWS, COLS, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    expect(state, hst_drift_open(be, 7, COLS, NULL, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(d);
    dd.reference = (hst_drift_reference)3;
    expect(state, hst_drift_open(be, ROWS, COLS, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.reference = HST_DRIFT_REF_FIRST; dd.peak = (hst_drift_peak)-1;
    expect(state, hst_drift_open(be, ROWS, COLS, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.peak = HST_DRIFT_PEAK_GAUSSIAN; dd.reference_frames = 4;
    expect(state, hst_drift_open(be, ROWS, COLS, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    dd.reference_frames = 0; dd.max_shift = 0xffffffffu;
    expect(state, hst_drift_open(be, ROWS, COLS, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    expect(state, hst_drift_open(be, (size_t)1 << 40, (size_t)1 << 40, NULL, &d), HST_ERROR_OVERFLOW,
           HST_LOGITEM_SIZE_OVERFLOW);
    /* a session: bad pushes, then finish's checks */
    assert_int_equal(hst_drift_open(be, ROWS, COLS, NULL, &d), HST_SUCCESS);
    expect(state, hst_drift_finish(d, out, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    expect(state, hst_drift_push(d, NULL, HST_DRIFT_U16, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    expect(state, hst_drift_push(d, frames, HST_DRIFT_U16, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    expect(state, hst_drift_push(d, frames, (hst_drift_dtype)5, 1), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    expect(state, hst_drift_push(d, frames, (hst_drift_dtype)0, 1), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    assert_int_equal(hst_drift_push(d, nan_frame, HST_DRIFT_F32, 1), HST_ERROR_NON_FINITE);
    assert_non_null(strstr(LOG(state)->last_message, "frames[0] (frame 0 of the stack) pixel 77 is nan"));
    cap_reset(LOG(state));
    /* a rejected argument leaves the session as it was; a failure in the work ends it */
    hst_backend_interrupt(be);
    assert_int_equal(hst_drift_push(d, frames, HST_DRIFT_U16, 2), HST_ERROR_CANCELLED);
    hst_backend_interrupt_clear(be);
    cap_reset(LOG(state));
    expect(state, hst_drift_push(d, frames, HST_DRIFT_U16, 2), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE);
    hst_drift_close(d);
    assert_int_equal(hst_drift_open(be, ROWS, COLS, NULL, &d), HST_SUCCESS);
    assert_int_equal(hst_drift_push(d, frames, HST_DRIFT_U16, 2), HST_SUCCESS);
    expect(state, hst_drift_finish(d, NULL, 2), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    expect(state, hst_drift_finish(d, out, 3), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    hst_drift_close(d);
    /* REF_MEAN of more frames than pushed */
    dd = desc_of(HST_DRIFT_REF_MEAN, 5, HST_DRIFT_PEAK_GAUSSIAN, 0);
    expect(state, hst_drift_estimate(be, frames, HST_DRIFT_U16, 2, ROWS, COLS, &dd, out), HST_ERROR_INVALID_ARGUMENT,
           HST_LOGITEM_OUT_OF_RANGE);
    expect(state, hst_drift_estimate(be, NULL, HST_DRIFT_U16, 2, ROWS, COLS, &dd, out), HST_ERROR_INVALID_ARGUMENT,
           HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_drift_frames(NULL), 0);
    hst_drift_close(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_first_frame, reset_log),
        cmocka_unit_test_setup(test_peak_methods, reset_log),
        cmocka_unit_test_setup(test_mean_reference, reset_log),
        cmocka_unit_test_setup(test_previous_frame, reset_log),
        cmocka_unit_test_setup(test_averaging, reset_log),
        cmocka_unit_test_setup(test_blocks_and_dtypes, reset_log),
        cmocka_unit_test_setup(test_staged_pieces, reset_log),
        cmocka_unit_test_setup(test_devices_agree, reset_log),
        cmocka_unit_test_setup(test_max_shift, reset_log),
        cmocka_unit_test_setup(test_blank_frame, reset_log),
        cmocka_unit_test_setup(test_flat_frame_relative, reset_log),
        cmocka_unit_test_setup(test_corrected, reset_log),
        cmocka_unit_test_setup(test_corrected_esrrf_resolution, reset_log),
        cmocka_unit_test_setup(test_reference_names, reset_log),
        cmocka_unit_test_setup(test_errors, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
