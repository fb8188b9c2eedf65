/* tests/test_estimate_frames.c — quality.h's hst_estimate_frames (NanoJ-eSRRF's estimate of the
   most frames worth one eSRRF time point, from the SSIM of frames by their separation).

   Checked: the SSIM against a direct evaluation of Wang et al.'s definition (every window's
   11 x 11 Gaussian-weighted moments summed in place); a still scene with noise never drops
   (the estimate is the block); a moving scene drops, sooner the faster it moves; u16 and f32
   stacks of the same values give the same curve, bit for bit; the range defaults to the
   stack's; bad input is refused naming the argument; an interrupted call stops.

   Runs once per device (HST_DEVICE): the estimate runs on the host's processor whatever the
   device, so every device gives the same numbers. */
#define HST_IMPLEMENTATION
#include "quality.h"

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
#define BE_FIXTURE_LOG_LEVEL 0
#include "be_fixture.h"

enum { R = 48, C = 44 };

/* |got - want| <= tol, both printed when not. */
#define assert_close(got, want, tol) assert_close_at((got), (want), (tol), __FILE__, __LINE__)
static void assert_close_at(double got, double want, double tol, const char *file, int line) {
    if (fabs(got - want) <= tol) return;
    print_error("%.17g != %.17g (tolerance %g)\n", got, want, tol);
    _fail(file, line);
}

/* A smooth scene: 12 Gaussian spots (sigma 2 px) at fixed pseudo-random places, moved down by
   dy pixels on a torus (a spot leaving the bottom comes back at the top, so every block sees
   the same motion), plus noise of amplitude `noise` (a deterministic hash of frame and pixel), on a
   background of 100: values within 0 .. 2000, rounded to integers so u16 holds them exactly. */
static float scene(size_t f, size_t y, size_t x, double dy, double noise) {
    static const double spots[12][3] = {{10, 8, 900}, {30, 12, 700}, {20, 30, 800}, {38, 36, 600},
                                        {6, 26, 500}, {42, 6, 750}, {25, 20, 650}, {14, 40, 550},
                                        {34, 24, 850}, {4, 14, 450}, {18, 4, 700}, {44, 30, 500}};
    double v = 100.0;
    uint32_t h = (uint32_t)(f * 2654435761u) ^ (uint32_t)(y * 40503u + x * 9973u);
    int k;
    for (k = 0; k < 12; k++) {
        double ry = remainder((double)y - spots[k][0] - dy, (double)R), rx = (double)x - spots[k][1];
        v += spots[k][2] * exp(-(ry * ry + rx * rx) / 8.0);
    }
    h ^= h >> 15; h *= 0x2c1b3c6du; h ^= h >> 12; h *= 0x297a2d39u; h ^= h >> 15;
    v += noise * ((double)(h % 2001u) / 1000.0 - 1.0);
    return (float)floor(v + 0.5);
}

/* n frames moving `speed` pixels a frame. */
static float *stack_f32(size_t n, double speed, double noise) {
    float *s = (float *)malloc(n * R * C * sizeof *s);
    size_t f, y, x;
    assert_non_null(s);
    for (f = 0; f < n; f++)
        for (y = 0; y < R; y++)
            for (x = 0; x < C; x++) s[(f * R + y) * C + x] = scene(f, y, x, speed * (double)f, noise);
    return s;
}

/* Wang et al.'s mean SSIM of two frames, each window's moments summed directly. */
static double ssim_direct(const float *a, const float *b, double L) {
    double g[11], gs = 0.0, c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L), sum = 0.0;
    int i, j, y, x;
    for (i = 0; i < 11; i++) { g[i] = exp(-(double)((i - 5) * (i - 5)) / 4.5); gs += g[i]; }
    for (y = 0; y + 11 <= R; y++)
        for (x = 0; x + 11 <= C; x++) {
            double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
            for (i = 0; i < 11; i++)
                for (j = 0; j < 11; j++) {
                    double w = g[i] * g[j] / (gs * gs), p = a[(y + i) * C + x + j], q = b[(y + i) * C + x + j];
                    mx += w * p; my += w * q; xx += w * p * p; yy += w * q * q; xy += w * p * q;
                }
            sum += ((2 * mx * my + c1) * (2 * (xy - mx * my) + c2)) /
                   ((mx * mx + my * my + c1) * ((xx - mx * mx) + (yy - my * my) + c2));
        }
    return sum / (double)((R - 10) * (C - 10));
}

/* Blocks of 2 frames, the second pair a copy of the first: the curve at lag 1 is the pair's
   SSIM, its deviation 0. */
static void test_ssim_is_wangs(void **state) {
    hst_backend *be = BE(state);
    float *s = stack_f32(4, 0.7, 40.0);
    hst_frames_desc d;
    hst_frames_estimate est;
    double curve[4], want;
    memcpy(s + 2 * R * C, s, 2 * R * C * sizeof *s);
    memset(&d, 0, sizeof d);
    d.block_frames = 2;
    d.range = 2000.0;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 4, R, C, &d, curve, &est), HST_SUCCESS);
    want = ssim_direct(s, s + R * C, 2000.0);
    assert_true(want > 0.3 && want < 0.999);   /* the pair differs: a test that can fail */
    assert_close(curve[0], 1.0, 0.0);
    assert_close(curve[1], want, 1e-12);
    assert_close(curve[3], 0.0, 1e-12);
    assert_int_equal(est.blocks, 2);
    assert_close(est.range, 2000.0, 0.0);
    d.range = 0.0;   /* the stack's own range */
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 4, R, C, &d, curve, &est), HST_SUCCESS);
    {
        float lo = s[0], hi = s[0];
        size_t i;
        for (i = 0; i < 4 * R * C; i++) { lo = s[i] < lo ? s[i] : lo; hi = s[i] > hi ? s[i] : hi; }
        assert_close(est.range, (double)hi - (double)lo, 0.0);
        assert_close(curve[1], ssim_direct(s, s + R * C, est.range), 1e-12);
    }
    free(s);
}

/* A still scene: only noise changes, so no lag drops past 2 deviations of lag 1's spread. */
static void test_still_scene_keeps_the_block(void **state) {
    hst_backend *be = BE(state);
    float *s = stack_f32(60, 0.0, 60.0);
    hst_frames_desc d;
    hst_frames_estimate est;
    double curve[40];
    memset(&d, 0, sizeof d);
    d.block_frames = 20;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 60, R, C, &d, curve, &est), HST_SUCCESS);
    assert_int_equal(est.reached, 0);
    assert_int_equal(est.frames, 20);
    assert_int_equal(est.blocks, 3);
    assert_true(curve[20 + 1] > 0.0);   /* noise: lag 1's SSIMs spread */
    free(s);
}

/* A moving scene drops; the faster it moves, the sooner; u16 gives f32's curve bit for bit. */
static void test_motion_limits_the_frames(void **state) {
    hst_backend *be = BE(state);
    const size_t n = 90;
    float *fast = stack_f32(n, 0.5, 60.0), *slow = stack_f32(n, 0.05, 60.0);
    uint16_t *u = (uint16_t *)malloc(n * R * C * sizeof *u);
    hst_frames_desc d;
    hst_frames_estimate ef, es, eu;
    double cf[60], cu[60];
    size_t i;
    assert_non_null(u);
    for (i = 0; i < n * R * C; i++) u[i] = (uint16_t)fast[i];
    memset(&d, 0, sizeof d);
    d.block_frames = 30;
    assert_int_equal(hst_estimate_frames(be, fast, HST_DRIFT_F32, n, R, C, &d, cf, &ef), HST_SUCCESS);
    assert_int_equal(hst_estimate_frames(be, slow, HST_DRIFT_F32, n, R, C, &d, NULL, &es), HST_SUCCESS);
    assert_int_equal(hst_estimate_frames(be, u, HST_DRIFT_U16, n, R, C, &d, cu, &eu), HST_SUCCESS);
    assert_int_equal(ef.reached, 1);
    assert_int_equal(es.reached, 1);
    assert_true(ef.frames >= 2 && ef.frames < es.frames);
    assert_true(cf[1] > cf[10] && cf[10] > cf[29]);   /* similarity falls with separation */
    assert_int_equal(eu.frames, ef.frames);
    assert_memory_equal(cu, cf, sizeof cf);
    free(u);
    free(slow);
    free(fast);
}



static void test_bad_input(void **state) {
    fixture *f = (fixture *)*state;
    hst_backend *be = f->be;
    float *s = stack_f32(8, 0.3, 10.0);
    hst_frames_desc d;
    hst_frames_estimate est;
    memset(&d, 0, sizeof d);
    d.block_frames = 4;
    assert_int_equal(hst_estimate_frames(NULL, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_estimate_frames(be, NULL, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "stack"));
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "out"));
    assert_int_equal(hst_estimate_frames(be, s, (hst_drift_dtype)9, 8, R, C, &d, NULL, &est), HST_ERROR_DTYPE);
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, 10, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "window"));
    d.block_frames = 5;   /* 8 frames: one block of 5 and one of 3 */
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_SUCCESS);
    d.block_frames = 7;   /* one block of 7 and one of 1: too few */
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "block_frames"));
    d.block_frames = 1;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    d.block_frames = 4;
    d.sigmas = -1.0;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "sigmas"));
    d.sigmas = 0.0;
    d.range = NAN;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "range"));
    d.range = 0.0;
    s[(5 * R + 3) * C + 7] = NAN;
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_NON_FINITE);
    assert_non_null(strstr(f->log.last_message, "frame 5, pixel (3, 7)"));
    {
        size_t i;
        for (i = 0; i < 8 * R * C; i++) s[i] = 42.0f;
    }
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "every sample is 42"));
    d.range = 255.0;   /* a given range: the constant stack is fine (SSIM 1 everywhere) */
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_SUCCESS);
    assert_int_equal(est.reached, 0);
    hst_backend_interrupt(be);
    assert_int_equal(hst_estimate_frames(be, s, HST_DRIFT_F32, 8, R, C, &d, NULL, &est), HST_ERROR_CANCELLED);
    hst_backend_interrupt_clear(be);
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_ssim_is_wangs, reset_log),
        cmocka_unit_test_setup(test_still_scene_keeps_the_block, reset_log),
        cmocka_unit_test_setup(test_motion_limits_the_frames, reset_log),
        cmocka_unit_test_setup(test_bad_input, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
