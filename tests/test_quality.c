/* test_quality.c — quality.h's metrics (error map, FRC / FIRE, decorrelation) on images made
   here, with answers known in closed form; on the device under test ($HST_DEVICE), and against
   the host device's twins in the same run.

   Known answers:
   - error map: an image against itself (RSE 0, RSP 1, alpha 1, beta 0); an image against its
     own Gaussian blur scaled and offset (the optimiser must find sigma, alpha and beta; also
     on an odd, non-square image narrower than the blur's window: the DCT-domain search); a
     cosine against its shifted copy (RSP = cos(k d), RSE = A |sin(k d)| / sqrt 2); two
     independent white noises (RSP ~ 0 within 4 / sqrt(n), RSE = the reference's standard
     deviation); a magnified image (the Fourier interpolation of a smooth image repeated 2 x 2:
     RSP above 0.99).
   - FRC: an image against itself (FRC = 1 everywhere: no crossing, resolution 0); white noise
     shifted by d pixels along x (FRC(k) = J0(2 pi k d): FIRE = 2 pi d / x0 with J0(x0) = 1/7);
     one blurred white noise with two independent noises added (FRC(k) = S(k) / (S(k) + N):
     FIRE where exp(-4 pi^2 s^2 k^2) = N / (6 S0)).
   - decorrelation: band-limited white noise (flat spectrum inside |k| < K0, faint noise
     outside): resolution 1 / K0 pixels, the cut-off; invariance to intensity scale
     and offset; pixel_size scales the resolution and nothing else; the ROI.
   - intensity scale: images times 2^60, 2^-60, 2^110, 2^-100 give the unscaled images' scores
     bit for bit (RSE, beta, alpha and the map scaled exactly), times 1e19, 1e-19 within the
     devices' agreement: quality.h scales images whose float sums would overflow or underflow.
   - rejected arguments: result codes and log items (backend.h's finest item for each).
   Tolerances are stated per test: sampling noise of the rings and the estimators' own bias
   (the taper, the smoothing, the local-maximum search) set them, each far below what a wrong
   radius, frequency scale or normalisation would give (factors of 2 and more).
   Devices agree: every metric within HST_AGREE (1e-4) relative between the host device and the
   device under test: the same kernels, sums in the same order, only OpenCL's cos and sqrt and
   the FFTs (FFTW, VkFFT) differ from the host's. The error map's fitted sigma within
   HST_AGREE_FIT (2e-3): the objective is flat at its minimum, so rounding moves the sigma the
   search stops at by a few 1e-4 while RSE and RSP stay within 1e-6. */
#define _POSIX_C_SOURCE 200809L   /* nanosleep, clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "quality.h"

#include <pthread.h>
#include <time.h>

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

#define TWO_PI 6.283185307179586476925286766559
#define HST_AGREE 1e-4
#define HST_AGREE_FIT 2e-3

/* ------------------------------------------------------------------------------------------
   Images. */
static uint64_t rng_state;
static double uniform(void) {   /* xorshift64*, [0, 1) */
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static double normal(void) {   /* Box-Muller */
    double u = uniform(), v = uniform();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(TWO_PI * v);
}

static float *image(size_t n) {
    float *p = (float *)calloc(n, sizeof(float));
    assert_non_null(p);
    return p;
}

static float *noise(size_t rows, size_t cols, uint64_t seed, double sd) {
    float *p = image(rows * cols);
    size_t i;
    rng_state = seed;
    for (i = 0; i < rows * cols; i++) p[i] = (float)(sd * normal());
    return p;
}

/* Gaussian blur in double, 'reflect' edges, radius 4 sigma (the test's own, not quality.h's). */
static int refl(long i, long n) {
    long p = 2 * n, m = ((i % p) + p) % p;
    return (int)(m < n ? m : p - 1 - m);
}
static void blur(float *img, size_t rows, size_t cols, double s) {
    int r = (int)(4 * s + 0.5), j;
    double *w = (double *)calloc((size_t)(2 * r + 1), sizeof(double)), sum = 0.0;
    double *tmp = (double *)calloc(rows * cols, sizeof(double));
    size_t x, y;
    assert_non_null(w); assert_non_null(tmp);
    for (j = -r; j <= r; j++) sum += w[j + r] = exp(-0.5 * j * j / (s * s));
    for (j = 0; j <= 2 * r; j++) w[j] /= sum;
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++) {
            double a = 0.0;
            for (j = -r; j <= r; j++) a += w[j + r] * img[(size_t)refl((long)y + j, (long)rows) * cols + x];
            tmp[y * cols + x] = a;
        }
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++) {
            double a = 0.0;
            for (j = -r; j <= r; j++) a += w[j + r] * tmp[y * cols + refl((long)x + j, (long)cols)];
            img[y * cols + x] = (float)a;
        }
    free(w); free(tmp);
}

static void add(float *dst, const float *a, const float *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) dst[i] = a[i] + b[i];
}

static double stddev(const float *p, size_t n) {
    double s = 0.0, ss = 0.0;
    size_t i;
    for (i = 0; i < n; i++) s += p[i];
    for (i = 0; i < n; i++) ss += (p[i] - s / n) * (p[i] - s / n);
    return sqrt(ss / n);
}

/* A host backend for the agreement checks (NULL when the device under test is the host). */
static hst_backend *host_twin(hst_backend *be) {
    hst_backend_desc d;
    hst_backend *h = NULL;
    if (hst_backend_is_host(be)) return NULL;
    memset(&d, 0, sizeof d);
    d.device = "host";
    assert_int_equal(hst_backend_create(&d, &h), HST_SUCCESS);
    return h;
}

static void agree_within(double dev, double host, double tol, const char *what) {
    double scale = fabs(host) > 1e-12 ? fabs(host) : 1.0;
    if (fabs(dev - host) > tol * scale)
        fail_msg("%s: device %.9g, host %.9g", what, dev, host);
}

static void agree(double dev, double host, const char *what) {
    agree_within(dev, host, HST_AGREE, what);
}

/* ------------------------------------------------------------------------------------------
   Error map. */
#define EM_N 96

static void test_error_map_self(void **state) {
    float *a = noise(EM_N, EM_N, 1, 10.0), *map = image(EM_N * EM_N);
    hst_error_map_result r;
    size_t i;
    blur(a, EM_N, EM_N, 2.0);
    assert_int_equal(hst_error_map(BE(state), a, EM_N, EM_N, a, EM_N, EM_N, NULL, map, &r), HST_SUCCESS);
    /* the optimum is no blur: sigma <= ~0 (NanoPyx's bracket walks to negative sigmas, which
       scipy's gaussian_filter treats as none) */
    assert_true(r.rse < 1e-4 * stddev(a, EM_N * EM_N));
    assert_true(r.rsp > 1.0 - 1e-6);
    assert_true(fabs(r.alpha - 1.0) < 1e-4 && fabs(r.beta) < 1e-3);
    assert_int_equal(r.magnification, 1);
    assert_true(r.evaluations > 3);
    for (i = 0; i < EM_N * EM_N; i++) assert_true(map[i] < 1e-3);
    free(a); free(map);
}

/* ref = 3 G_1.5(sr) + 20: sigma 1.5, alpha 3, beta 20, RSE ~ 0. The fixed-sigma call too. */
static void test_error_map_blurred(void **state) {
    float *sr = noise(EM_N, EM_N, 2, 10.0), *ref = image(EM_N * EM_N);
    hst_error_map_result r;
    hst_error_map_desc d;
    size_t i;
    blur(sr, EM_N, EM_N, 1.0);
    memcpy(ref, sr, EM_N * EM_N * sizeof(float));
    blur(ref, EM_N, EM_N, 1.5);
    for (i = 0; i < EM_N * EM_N; i++) ref[i] = 3.0f * ref[i] + 20.0f;
    assert_int_equal(hst_error_map(BE(state), ref, EM_N, EM_N, sr, EM_N, EM_N, NULL, NULL, &r), HST_SUCCESS);
    assert_true(fabs(r.sigma - 1.5) < 1e-3);
    assert_true(fabs(r.alpha - 3.0) < 1e-3 && fabs(r.beta - 20.0) < 1e-2);
    assert_true(r.rse < 1e-3 * stddev(ref, EM_N * EM_N));
    assert_true(r.rsp > 1.0 - 1e-6);
    memset(&d, 0, sizeof d);
    d.fixed_sigma = 1.5;
    assert_int_equal(hst_error_map(BE(state), ref, EM_N, EM_N, sr, EM_N, EM_N, &d, NULL, &r), HST_SUCCESS);
    assert_int_equal(r.evaluations, 0);
    assert_true(fabs(r.sigma - 1.5) < 1e-12);
    assert_true(r.rse < 1e-3 * stddev(ref, EM_N * EM_N));
    free(sr); free(ref);
}

/* The sigma search runs in the DCT domain (quality.h: scipy's 'reflect' blur is diagonal under
   the DCT-II): on an odd, non-square image whose blur window is wider than both sides (radius
   12 on 7 x 11, so the 'reflect' extension wraps more than once), ref = 2 G_3(sr) + 5 (the
   test's own blur, in double) must still give sigma 3, alpha 2, beta 5 and RSE ~ 0; and the
   spatial fits (fixed sigma) at sigma +- 0.01 must be worse than at the sigma found. */
static void test_error_map_wide_blur(void **state) {
    const size_t rows = 7, cols = 11;
    float *sr = noise(rows, cols, 18, 10.0), *ref = image(rows * cols);
    hst_error_map_result r, side;
    hst_error_map_desc d;
    size_t i;
    int k;
    memcpy(ref, sr, rows * cols * sizeof(float));
    blur(ref, rows, cols, 3.0);
    for (i = 0; i < rows * cols; i++) ref[i] = 2.0f * ref[i] + 5.0f;
    assert_int_equal(hst_error_map(BE(state), ref, rows, cols, sr, rows, cols, NULL, NULL, &r), HST_SUCCESS);
    assert_true(fabs(r.sigma - 3.0) < 1e-3);
    assert_true(fabs(r.alpha - 2.0) < 1e-3 && fabs(r.beta - 5.0) < 1e-2);
    assert_true(r.rse < 1e-4 * stddev(ref, rows * cols));
    memset(&d, 0, sizeof d);
    for (k = -1; k <= 1; k += 2) {
        d.fixed_sigma = r.sigma + 0.01 * k;
        assert_int_equal(hst_error_map(BE(state), ref, rows, cols, sr, rows, cols, &d, NULL, &side), HST_SUCCESS);
        assert_true(side.rse > r.rse);
    }
    free(sr); free(ref);
}

/* A cosine along x against its copy shifted by d: with no blur, RSP = cos(k d) and
   RSE = A |sin(k d)| / sqrt(2) (whole periods: the means and cross terms vanish). */
static void test_error_map_shifted(void **state) {
    const size_t rows = 32, cols = 128, period = 32;
    const double A = 50.0, d = 3.0, k = TWO_PI / period;
    float *ref = image(rows * cols), *sr = image(rows * cols);
    hst_error_map_result r;
    hst_error_map_desc desc;
    size_t x, y;
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++) {
            ref[y * cols + x] = (float)(100.0 + A * cos(k * x));
            sr[y * cols + x] = (float)(7.0 + 0.5 * A * cos(k * (x + d)));
        }
    memset(&desc, 0, sizeof desc);
    desc.fixed_sigma = 1e-6;   /* radius 0: no blur (the cosine's fit is flat in sigma) */
    assert_int_equal(hst_error_map(BE(state), ref, rows, cols, sr, rows, cols, &desc, NULL, &r), HST_SUCCESS);
    assert_true(fabs(r.rsp - cos(k * d)) < 1e-4);
    assert_true(fabs(r.rse / (A * fabs(sin(k * d)) / sqrt(2.0)) - 1.0) < 1e-3);
    free(ref); free(sr);
}

/* Independent white noises: no correlation; the fit is the mean, RSE the reference's SD. */
static void test_error_map_noise(void **state) {
    float *ref = noise(EM_N, EM_N, 3, 5.0), *sr = noise(EM_N, EM_N, 4, 5.0);
    hst_error_map_result r;
    double n = EM_N * EM_N;
    assert_int_equal(hst_error_map(BE(state), ref, EM_N, EM_N, sr, EM_N, EM_N, NULL, NULL, &r), HST_SUCCESS);
    /* the optimiser may blur a little to fit noise: |RSP| stays at the chance level */
    assert_true(fabs(r.rsp) < 4.0 / sqrt(n) * 3.0);
    assert_true(fabs(r.rse / stddev(ref, EM_N * EM_N) - 1.0) < 0.01);
    free(ref); free(sr);
}

/* Magnification 2: a smooth image against itself repeated 2 x 2 (the Fourier interpolation
   of the reference is compared with the blocky SR image). */
static void test_error_map_magnified(void **state) {
    const size_t h = 48, w = 40;
    float *ref = noise(h, w, 5, 10.0), *sr = image(4 * h * w), *map = image(4 * h * w);
    hst_error_map_result r;
    size_t x, y;
    blur(ref, h, w, 3.0);
    for (y = 0; y < 2 * h; y++)
        for (x = 0; x < 2 * w; x++) sr[y * 2 * w + x] = ref[(y / 2) * w + x / 2] + 100.0f;
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, 2 * h, 2 * w, NULL, map, &r), HST_SUCCESS);
    assert_int_equal(r.magnification, 2);
    assert_true(r.rsp > 0.99);   /* 0.9924 here; NanoPyx agrees (bench/quality_nanopyx.py) */
    assert_true(r.rse < 0.2 * stddev(ref, h * w));
    assert_true(fabs(r.alpha - 1.0) < 0.05);
    free(ref); free(sr); free(map);
}

/* desc.scores_only: the scores from the DCT-domain sums at the looser search's sigma agree
   with the full fit's to float rounding (a blurred, magnified, noisy scene: RSE and RSP 1e-5
   relative, alpha 1e-4, sigma 1e-3) in fewer evaluations; a map asked with it is refused;
   fixed_sigma ignores it. */
static void test_error_map_scores_only(void **state) {
    const size_t h = 48, w = 40, M = 3;
    float *ref = noise(h, w, 8, 10.0), *sr = noise(M * h, M * w, 9, 1.0), *map = image(M * M * h * w);
    hst_error_map_desc d;
    hst_error_map_result full, fast;
    size_t x, y;
    blur(ref, h, w, 2.0);
    for (y = 0; y < M * h; y++)
        for (x = 0; x < M * w; x++) sr[y * M * w + x] += 2.0f * ref[(y / M) * w + x / M] + 50.0f;
    memset(&d, 0, sizeof d);
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, M * h, M * w, &d, NULL, &full), HST_SUCCESS);
    d.scores_only = 1;
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, M * h, M * w, &d, NULL, &fast), HST_SUCCESS);
    assert_true(fabs(fast.sigma - full.sigma) <= 1e-3 * fabs(full.sigma) && fast.magnification == M);
    assert_true(fast.evaluations > 0 && fast.evaluations < full.evaluations);
    assert_true(fabs(fast.rse - full.rse) <= 1e-5 * full.rse);
    assert_true(fabs(fast.rsp - full.rsp) <= 1e-5 * fabs(full.rsp) && full.rsp > 0.5);
    assert_true(fabs(fast.alpha - full.alpha) <= 1e-4 * fabs(full.alpha));
    assert_true(fabs(fast.beta - full.beta) <= 1e-4 * (fabs(full.beta) + 1.0));
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, M * h, M * w, &d, map, &fast), HST_ERROR_INVALID_ARGUMENT);
    d.fixed_sigma = 1.5;
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, M * h, M * w, &d, NULL, &fast), HST_SUCCESS);
    d.scores_only = 0;
    assert_int_equal(hst_error_map(BE(state), ref, h, w, sr, M * h, M * w, &d, NULL, &full), HST_SUCCESS);
    assert_memory_equal(&fast, &full, sizeof fast);
    free(ref); free(sr); free(map);
}

/* ------------------------------------------------------------------------------------------
   FRC. */
#define FRC_N 256

static void test_frc_self(void **state) {
    float *a = noise(FRC_N, FRC_N, 6, 1.0), *curve;
    hst_frc_result r;
    size_t i, len = hst_frc_curve_length(FRC_N, FRC_N);
    assert_int_equal(len, FRC_N / 2 - 1);
    curve = image(2 * len);
    assert_int_equal(hst_frc(BE(state), a, a, FRC_N, FRC_N, NULL, curve, &r), HST_SUCCESS);
    assert_int_equal(r.curve_length, len);
    assert_true(r.resolution == 0.0);   /* never crosses 1/7 */
    for (i = 0; i < len; i++) assert_true(fabs(curve[2 * i + 1] - 1.0) < 1e-4);
    assert_true(fabs(curve[0]) < 1e-12 && fabs(curve[2 * (len - 1)] - 0.5) < 1e-6);
    free(a); free(curve);
}

/* J0 by its power series (enough terms for x < 3). */
static double bessel_j0(double x) {
    double t = 1.0, s = 1.0;
    int m;
    for (m = 1; m < 30; m++) { t *= -(x * x / 4.0) / ((double)m * m); s += t; }
    return s;
}

/* White noise and its copy shifted by D pixels along x: FIRE = 2 pi D / x0, J0(x0) = 1/7. */
static void test_frc_shifted(void **state) {
    const size_t D = 4;
    float *a = noise(FRC_N, FRC_N, 7, 1.0), *b = image(FRC_N * FRC_N);
    double lo = 0.0, hi = 2.404825557695773, x0, expect;
    hst_frc_result r;
    size_t x, y;
    int i;
    for (y = 0; y < FRC_N; y++)
        for (x = 0; x < FRC_N; x++) b[y * FRC_N + x] = a[y * FRC_N + (x + D) % FRC_N];
    for (i = 0; i < 60; i++) {   /* J0 falls from 1 to 0 on [0, its first zero] */
        double mid = 0.5 * (lo + hi);
        if (bessel_j0(mid) > 1.0 / 7.0) lo = mid; else hi = mid;
    }
    x0 = 0.5 * (lo + hi);
    expect = TWO_PI * D / x0;
    assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, NULL, NULL, &r), HST_SUCCESS);
    if (fabs(r.resolution / expect - 1.0) > 0.05)
        fail_msg("FIRE %.4f, J0 model %.4f", r.resolution, expect);
    free(a); free(b);
}

/* s = G_sb(white noise of variance 1): power spectrum S(k) = exp(-4 pi^2 sb^2 k^2) (the
   blur's transfer function squared); two images s + independent noises of variance nv:
   FRC = S / (S + nv), 1/7 where S = nv / 6. With pixel_size 0.1: FIRE in those units. */
static void test_frc_blurred_noise(void **state) {
    const double sb = 2.0, nv = 1e-4, ps = 0.1;
    float *s = noise(FRC_N, FRC_N, 8, 1.0), *n1 = noise(FRC_N, FRC_N, 9, sqrt(nv));
    float *n2 = noise(FRC_N, FRC_N, 10, sqrt(nv)), *a = image(FRC_N * FRC_N), *b = image(FRC_N * FRC_N);
    double k, expect;
    hst_frc_desc d;
    hst_frc_result r;
    blur(s, FRC_N, FRC_N, sb);
    add(a, s, n1, FRC_N * FRC_N);
    add(b, s, n2, FRC_N * FRC_N);
    k = sqrt(log(6.0 / nv)) / (TWO_PI * sb);
    expect = ps / k;
    memset(&d, 0, sizeof d);
    d.pixel_size = ps;
    assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, &d, NULL, &r), HST_SUCCESS);
    if (fabs(r.resolution / expect - 1.0) > 0.05)
        fail_msg("FIRE %.4f, model %.4f", r.resolution, expect);
    free(s); free(n1); free(n2); free(a); free(b);
}

/* pixel_size outside [HST_QUALITY_MIN_PIXEL_SIZE, _MAX] is refused, naming it, before any work
   (1e-320 gave a NaN resolution and success: the curve's frequencies are float); its ends give
   finite resolutions, pixel_size times the pixels'. Decorrelation takes the same range. */
static void test_pixel_size_range(void **state) {
    static const double bad[5] = {1e-320, 1e-30, 1e30, 1.7e308, -1.0};
    float *a = noise(FRC_N, FRC_N, 30, 1.0), *b = noise(FRC_N, FRC_N, 31, 1.0);
    cap_log *log = LOG(state);
    hst_frc_desc fd;
    hst_frc_result f, f1;
    hst_decorr_desc dd;
    hst_decorr_result d;
    size_t i;
    int k;
    blur(a, FRC_N, FRC_N, 2.0);   /* FRC = S / (S + N): it crosses 1/7 */
    for (i = 0; i < FRC_N * FRC_N; i++) { b[i] = a[i] + 0.01f * b[i]; a[i] += 0.01f * (float)normal(); }
    memset(&fd, 0, sizeof fd); memset(&dd, 0, sizeof dd);
    assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, NULL, NULL, &f1), HST_SUCCESS);
    assert_true(f1.resolution > 0.0);
    for (k = 0; k < 5; k++) {
        fd.pixel_size = bad[k]; dd.pixel_size = bad[k];
        cap_reset(log);
        assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, &fd, NULL, &f), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
        assert_non_null(strstr(log->last_message, "desc->pixel_size"));
        cap_reset(log);
        assert_int_equal(hst_decorr(BE(state), a, 32, 32, &dd, &d), HST_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(log->last_message, "desc->pixel_size"));
    }
    fd.pixel_size = HST_QUALITY_MIN_PIXEL_SIZE;
    assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, &fd, NULL, &f), HST_SUCCESS);
    agree(f.resolution, f1.resolution * HST_QUALITY_MIN_PIXEL_SIZE, "FIRE at the smallest pixel size");
    fd.pixel_size = HST_QUALITY_MAX_PIXEL_SIZE;
    assert_int_equal(hst_frc(BE(state), a, b, FRC_N, FRC_N, &fd, NULL, &f), HST_SUCCESS);
    agree(f.resolution, f1.resolution * HST_QUALITY_MAX_PIXEL_SIZE, "FIRE at the largest pixel size");
    free(a); free(b);
}

/* An all-zero image has no FRC (every ring's power is 0: 0 / 0): the resolution is NaN, the
   curve NaN, and a warning names the image (it gave a NaN curve and resolution 0, the value of
   a curve that never crosses 1/7); in a batch, only that pair. */
static void test_frc_zero_image(void **state) {
    float *a = noise(FRC_N, FRC_N, 32, 1.0), *z = image(FRC_N * FRC_N), *curve;
    const float *ha[2], *hb[2];
    size_t i, len = hst_frc_curve_length(FRC_N, FRC_N);
    cap_log *log = LOG(state);
    hst_image_batch ba, bb;
    hst_frc_result r, rb[2];
    curve = image(2 * len);
    cap_reset(log);
    assert_int_equal(hst_frc(BE(state), a, z, FRC_N, FRC_N, NULL, curve, &r), HST_SUCCESS);
    assert_true(isnan(r.resolution));
    for (i = 1; i < len; i++) assert_true(isnan(curve[2 * i + 1]));
    assert_int_equal(log->last_level, HST_LOG_WARN);
    assert_non_null(strstr(log->last_message, "b has no power"));
    assert_int_equal(hst_frc(BE(state), z, z, FRC_N, FRC_N, NULL, NULL, &r), HST_SUCCESS);
    assert_true(isnan(r.resolution));
    assert_non_null(strstr(log->last_message, "a has no power"));
    memset(&ba, 0, sizeof ba); memset(&bb, 0, sizeof bb);
    ha[0] = a; ha[1] = z; hb[0] = a; hb[1] = a;
    ba.host = ha; bb.host = hb;
    assert_int_equal(hst_frc_batch(BE(state), &ba, &bb, 2, FRC_N, FRC_N, NULL, NULL, rb), HST_SUCCESS);
    assert_true(rb[0].resolution == 0.0 && isnan(rb[1].resolution));
    assert_non_null(strstr(log->last_message, "a[1] has no power"));
    free(a); free(z); free(curve);
}

/* ------------------------------------------------------------------------------------------
   Decorrelation. */
#define DC_N 128

/* Band-limited white noise: every grid frequency with |k| < K0 cycles per pixel, unit
   amplitude, random phase (so the image is periodic and its spectrum is flat inside the disk
   and empty outside), plus a faint white noise. The unfiltered image's decorrelation curve
   rises while it adds signal and falls after: its maximum kc0 is the cut-off, 2 K0 in
   normalised frequency (Descloux et al. 2019, Fig. 1), within one of the num_radii = 50 samples.
   NanoPyx's second round then searches [kc0 - 0.05, kc0 + 0.3], where the high-pass curves
   of a hard cut-off have no interior maximum, and reports its lower end: the resolution is
   2 / (kc0 - 0.05) (NanoPyx 2.1.5 gives 4.5476 pixels for K0 = 0.25 too; bench/). */
#define DC_K0 0.25
static float *band_limited(uint64_t seed) {
    float *p = image(DC_N * DC_N);
    double *cx = (double *)malloc(DC_N * sizeof(double)), *sx = (double *)malloc(DC_N * sizeof(double));
    int m, l, kmax = (int)(DC_K0 * DC_N);
    size_t x, y;
    assert_non_null(cx); assert_non_null(sx);
    rng_state = seed;
    for (l = 0; l <= kmax; l++)       /* half plane: l > 0, or l = 0 and m > 0 */
        for (m = -kmax; m <= kmax; m++) {
            double ph;
            if ((l == 0 && m <= 0) || (double)(m * m + l * l) >= (DC_K0 * DC_N) * (DC_K0 * DC_N)) continue;
            ph = TWO_PI * uniform();
            for (x = 0; x < DC_N; x++) {
                cx[x] = cos(TWO_PI * m * (double)x / DC_N + ph);
                sx[x] = sin(TWO_PI * m * (double)x / DC_N + ph);
            }
            for (y = 0; y < DC_N; y++) {
                double cy = cos(TWO_PI * l * (double)y / DC_N), sy = sin(TWO_PI * l * (double)y / DC_N);
                for (x = 0; x < DC_N; x++) p[y * DC_N + x] += (float)(cx[x] * cy - sx[x] * sy);
            }
        }
    for (x = 0; x < DC_N * DC_N; x++) p[x] += (float)(0.05 * normal());
    free(cx); free(sx);
    return p;
}

static void test_decorr_band_limited(void **state) {
    float *a = band_limited(11), *b = image(DC_N * DC_N);
    hst_decorr_result r, r2;
    hst_decorr_desc d;
    size_t i;
    assert_int_equal(hst_decorr(BE(state), a, DC_N, DC_N, NULL, &r), HST_SUCCESS);
    if (fabs(r.kc0 - 2.0 * DC_K0) > 1.0 / 49.0)
        fail_msg("kc0 %.4f, cut-off %.4f", r.kc0, 2.0 * DC_K0);
    if (fabs(r.resolution * (r.kc0 - 0.05) / 2.0 - 1.0) > 1e-5)
        fail_msg("decorrelation %.4f pixels, 2 / (kc0 - 0.05) = %.4f", r.resolution, 2.0 / (r.kc0 - 0.05));
    assert_true(fabs(r.resolution - 2.0 / r.kc_max) < 1e-5 * r.resolution);
    /* scale and offset do not change the normalised curves; pixel_size scales the result */
    for (i = 0; i < DC_N * DC_N; i++) b[i] = 3.0f * a[i] + 7.0f;
    memset(&d, 0, sizeof d);
    d.pixel_size = 65.0;
    assert_int_equal(hst_decorr(BE(state), b, DC_N, DC_N, &d, &r2), HST_SUCCESS);
    if (fabs(r2.resolution / (65.0 * r.resolution) - 1.0) > 1e-3)
        fail_msg("scaled image, pixel size 65: %.5f, expected %.5f", r2.resolution, 65.0 * r.resolution);
    free(a); free(b);
}

/* The ROI: analysing a corner through roi equals analysing the cropped corner. */
static void test_decorr_roi(void **state) {
    const size_t R = 100, C = 90;
    float *a = noise(R, C, 13, 1.0), *crop = image(64 * 64);
    hst_decorr_desc d;
    hst_decorr_result r1, r2;
    size_t y;
    blur(a, R, C, 1.2);
    for (y = 0; y < 64; y++) memcpy(crop + y * 64, a + (y + 10) * C + 20, 64 * sizeof(float));
    memset(&d, 0, sizeof d);
    d.roi[0] = 20; d.roi[1] = 10; d.roi[2] = 84; d.roi[3] = 74;
    assert_int_equal(hst_decorr(BE(state), a, R, C, &d, &r1), HST_SUCCESS);
    assert_int_equal(hst_decorr(BE(state), crop, 64, 64, NULL, &r2), HST_SUCCESS);
    assert_true(r1.resolution == r2.resolution);
    assert_true(r1.resolution > 2.0 && isfinite(r1.resolution));
    free(a); free(crop);
}

/* White noise has no band limit: its normalised curves rise to the edge of the band, so no
   curve has an interior maximum, kc_max is 0 and the resolution inf (NanoPyx's value there is
   whatever its never-filled np.empty(3) held). With pixel_size it stays inf. */
static void test_decorr_white_noise(void **state) {
    float *a = noise(64, 64, 17, 1.0);
    hst_decorr_desc d;
    hst_decorr_result r;
    assert_int_equal(hst_decorr(BE(state), a, 64, 64, NULL, &r), HST_SUCCESS);
    if (!(r.kc_max == 0.0 && isinf(r.resolution) && r.resolution > 0))
        fail_msg("white noise: kc_max %.4f, resolution %.4f; expected 0 and inf", r.kc_max, r.resolution);
    memset(&d, 0, sizeof d);
    d.pixel_size = 65.0;
    assert_int_equal(hst_decorr(BE(state), a, 64, 64, &d, &r), HST_SUCCESS);
    assert_true(isinf(r.resolution) && r.resolution > 0);
    free(a);
}

/* Decorrelation's wide high-pass filters multiply the image's spectrum (one FFT per image)
   instead of blurring the image in space and transforming it per filter (which cost O(N^3) once
   the sigmas reached N / 2): the values the spatial blurs gave (quality.h at e92d81c, host
   device), kept here for blurred noise (256 x 256 and 200 x 300, PSF sigma 1.5, 2 and 4
   pixels). Tolerances: resolution, kc_max, kc_gm, kc0 and a0 within HST_AGREE (the devices'
   agreement: a curve's maximum is one of num_radii = 50 samples, so a maximum moved to another
   sample would change them by 2% or more); the amplitudes a_max and a_gm within 5e-3
   relative: a wide filter now sees the padded square as periodic where the spatial blur
   reflected it at its edges (the apodisation brings the image to its mean there, so only a
   strip of the filter's width differs, mostly at the lowest frequencies); over 52 images
   (band-limited and blurred noise, spots, the shipped confocal frames and their mean, an ROI,
   num_radii 80 and num_highpass 20, rmax 0.6) the largest change was 4e-3 of an A, and one maximum moved by
   one sample: bench/quality_bench.c's spots at 1024 x 1024, a flat-topped curve of amplitude
   0.19 (kc_max 0.3429 -> 0.3490, the resolution by 1.8%). Curves with a clear maximum, as
   these, keep it. */
#define DC_AMP_TOL 5e-3
static float *decorr_case(int k, size_t *rows, size_t *cols) {
    static const size_t shape[3][2] = {{256, 256}, {200, 300}, {256, 256}};
    static const double sigma[3] = {1.5, 2.0, 4.0};
    float *a, *b;
    size_t i, n;
    *rows = shape[k][0]; *cols = shape[k][1]; n = *rows * *cols;
    a = noise(*rows, *cols, 40 + (uint64_t)k, 10.0); b = noise(*rows, *cols, 50 + (uint64_t)k, 0.3 + 0.6 * k);
    blur(a, *rows, *cols, sigma[k]);
    for (i = 0; i < n; i++) a[i] += b[i] + 50.0f;
    free(b);
    return a;
}

static void test_decorr_spatial_values(void **state) {
    /* resolution, kc_max, a_max, kc_gm, a_gm, kc0, a0 */
    static const double want[3][7] = {
        {3.47593212, 0.575385213, 0.658316195, 0.575385213, 0.666598558, 0.326530606, 0.794128418},
        {5.21276617, 0.383673459, 0.590894938, 0.383673459, 0.590894938, 0.244897962, 0.704890251},
        {12.727272, 0.157142863, 0.340373963, 0.157142863, 0.369725913, 0.122448981, 0.389065027}};
    int k;
    for (k = 0; k < 3; k++) {
        size_t rows, cols;
        float *a = decorr_case(k, &rows, &cols);
        hst_decorr_result r;
        assert_int_equal(hst_decorr(BE(state), a, rows, cols, NULL, &r), HST_SUCCESS);
        agree(r.resolution, want[k][0], "resolution");
        agree(r.kc_max, want[k][1], "kc_max");
        agree_within(r.a_max, want[k][2], DC_AMP_TOL, "a_max");
        agree(r.kc_gm, want[k][3], "kc_gm");
        agree_within(r.a_gm, want[k][4], DC_AMP_TOL, "a_gm");
        agree(r.kc0, want[k][5], "kc0");
        agree(r.a0, want[k][6], "a0");
        free(a);
    }
}

/* num_highpass (NanoPyx's n_g) has its limit, HST_DECORR_MAX_NG (each round keeps its curves'
   maxima in arrays of that size: 5000 overflowed them and crashed, 2^32 - 1 returned silently);
   the refusal names the field and NanoPyx's name; the limit itself runs, on a small image. */
static void test_decorr_num_highpass_limit(void **state) {
    static const unsigned bad[3] = {HST_DECORR_MAX_NG + 1, 5000, 4294967295u};
    float *a = noise(32, 32, 21, 1.0);
    cap_log *log = LOG(state);
    hst_decorr_desc d;
    hst_decorr_result r;
    int i;
    memset(&d, 0, sizeof d);
    for (i = 0; i < 3; i++) {
        d.num_highpass = bad[i];
        cap_reset(log);
        assert_int_equal(hst_decorr(BE(state), a, 32, 32, &d, &r), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
        assert_non_null(strstr(log->last_message, "desc->num_highpass"));
        assert_non_null(strstr(log->last_message, "(NanoPyx's n_g)"));
    }
    d.num_highpass = HST_DECORR_MAX_NG;
    assert_int_equal(hst_decorr(BE(state), a, 32, 32, &d, &r), HST_SUCCESS);
    free(a);
}

/* ------------------------------------------------------------------------------------------
   The declared kernels' launched ranges (kernels_quality.h's HST_QUALITY_KERNELS): the kernels
   that quality.h launches over part of their work, hst_k_quality_partial_sums from a row offset
   and hst_k_quality_dct_moments from an image offset (ended by their n and kend arguments), do
   exactly those rows and images through hst_launch_kernel: on the host device the declared twin
   maps the range onto its typed twin's bounds, on OpenCL the kernel reads the offset. Each
   result equals the typed twin's on host memory bit for bit (neither source contracts: no
   product feeds a sum outside an explicit fma), and rows outside the range keep their
   sentinel. */
#define DS_H 4u          /* partial_sums: sums per row */
#define DS_G 37u         /* partials per row */
#define DS_STRIDE 40u    /* floats between rows */
#define DS_ROWS 8u
#define DM_R 5           /* dct_moments: images of DM_R x DM_C coefficients */
#define DM_C 6
#define DM_IMAGES 4u
#define DM_G 7u          /* work-items per image */
#define SENTINEL -7.0f

static hst_array *array_of(hst_backend *be, const float *x, size_t n) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_from_host(be, HST_F32, 1, &n, x, &a), HST_SUCCESS);
    return a;
}

static void launch_range(hst_backend *be, unsigned id, const hst_karg *a, size_t nargs, unsigned dims,
                         const size_t *offset, const size_t *global) {
    hst_launch_desc d;
    unsigned i;
    memset(&d, 0, sizeof d);
    d.family = hst_kernels_quality_family();
    d.kernel = id;
    d.args = a;
    d.num_args = nargs;
    d.range.dims = dims;
    for (i = 0; i < dims; i++) { d.range.offset[i] = offset[i]; d.range.global[i] = global[i]; }
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
}

static void test_declared_subranges(void **state) {
    hst_backend *be = BE(state);
    enum { NPART = DS_ROWS * DS_STRIDE, NSUM = DS_ROWS * DS_H, NCO = DM_R * DM_C,
           GSTRIDE = DM_R + DM_C, NDPART = 2 * DM_IMAGES * DM_G };
    static float part[NPART], sums[NSUM], want[NSUM], got[NSUM];
    static float s[DM_IMAGES * NCO], r[NCO], gains[DM_IMAGES * GSTRIDE], dwant[NDPART], dgot[NDPART];
    hst_array *ap, *as, *ds, *dr, *dg, *dp;
    size_t i, offset[2], global[2];
    rng_state = 77;
    for (i = 0; i < NPART; i++) part[i] = (float)normal();
    for (i = 0; i < NSUM; i++) sums[i] = want[i] = SENTINEL;
    ap = array_of(be, part, NPART);
    as = array_of(be, sums, NSUM);
    {   /* rows [2, 5): work-items [2 h, 5 h), n = 5 h */
        hst_karg a[6];
        a[0] = hst_karg_buffer(hst_array_buffer(ap)); a[1] = hst_karg_buffer(hst_array_buffer(as));
        a[2] = hst_karg_uint(DS_G); a[3] = hst_karg_uint(DS_H); a[4] = hst_karg_ulong(5 * DS_H);
        a[5] = hst_karg_ulong(DS_STRIDE);
        offset[0] = 2 * DS_H; global[0] = 3 * DS_H;
        launch_range(be, HST_KQUALITY_PARTIAL_SUMS, a, 6, 1, offset, global);
    }
    hst_k_quality_partial_sums_host(part, want, DS_G, DS_H, DS_STRIDE, 2, 5);
    assert_int_equal(hst_array_read(as, got, sizeof got), HST_SUCCESS);
    assert_memory_equal(got, want, sizeof got);
    for (i = 0; i < NSUM; i++) assert_true((got[i] == SENTINEL) == (i < 2 * DS_H || i >= 5 * DS_H));

    for (i = 0; i < DM_IMAGES * NCO; i++) s[i] = (float)normal();
    for (i = 0; i < NCO; i++) r[i] = (float)normal();
    for (i = 0; i < DM_IMAGES * GSTRIDE; i++) gains[i] = (float)uniform();
    for (i = 0; i < NDPART; i++) dwant[i] = SENTINEL;
    ds = array_of(be, s, DM_IMAGES * NCO);
    dr = array_of(be, r, NCO);
    dg = array_of(be, gains, DM_IMAGES * GSTRIDE);
    dp = array_of(be, dwant, NDPART);
    {   /* images [1, 3): dimension 1 from 1, kend 3 */
        hst_karg a[12];
        a[0] = hst_karg_buffer(hst_array_buffer(ds)); a[1] = hst_karg_buffer(hst_array_buffer(dr));
        a[2] = hst_karg_buffer(hst_array_buffer(dg)); a[3] = hst_karg_buffer(hst_array_buffer(dp));
        a[4] = hst_karg_int(DM_R); a[5] = hst_karg_int(DM_C); a[6] = hst_karg_uint(DM_G);
        a[7] = hst_karg_ulong(NCO); a[8] = hst_karg_ulong(GSTRIDE); a[9] = hst_karg_ulong(DM_R);
        a[10] = hst_karg_ulong(DM_G); a[11] = hst_karg_ulong(3);
        offset[0] = 0; offset[1] = 1; global[0] = DM_G; global[1] = 2;
        launch_range(be, HST_KQUALITY_DCT_MOMENTS, a, 12, 2, offset, global);
    }
    hst_k_quality_dct_moments_host(s, r, gains, dwant, DM_R, DM_C, DM_G, NCO, GSTRIDE, DM_R, DM_G, 1, 3);
    assert_int_equal(hst_array_read(dp, dgot, sizeof dgot), HST_SUCCESS);
    assert_memory_equal(dgot, dwant, sizeof dgot);
    for (i = 0; i < NDPART; i++) assert_true((dgot[i] == SENTINEL) == (i < 2 * DM_G || i >= 6 * DM_G));
    hst_array_destroy(ap); hst_array_destroy(as); hst_array_destroy(ds); hst_array_destroy(dr);
    hst_array_destroy(dg); hst_array_destroy(dp);
}

/* ------------------------------------------------------------------------------------------
   The host device and the device under test agree. */
static void test_devices_agree(void **state) {
    hst_backend *h = host_twin(BE(state));
    float *sr = noise(64, 64, 14, 10.0), *ref = image(32 * 32), *b = noise(64, 64, 15, 1.0);
    hst_error_map_result e1, e2;
    hst_frc_result f1, f2;
    hst_decorr_result d1, d2;
    size_t x, y;
    if (!h) { free(sr); free(ref); free(b); skip(); }
    blur(sr, 64, 64, 1.5);
    for (y = 0; y < 32; y++)
        for (x = 0; x < 32; x++) ref[y * 32 + x] = sr[(2 * y) * 64 + 2 * x] + 0.1f * b[y * 64 + x];
    add(b, b, sr, 64 * 64);
    assert_int_equal(hst_error_map(BE(state), ref, 32, 32, sr, 64, 64, NULL, NULL, &e1), HST_SUCCESS);
    assert_int_equal(hst_error_map(h, ref, 32, 32, sr, 64, 64, NULL, NULL, &e2), HST_SUCCESS);
    agree(e1.rse, e2.rse, "RSE"); agree(e1.rsp, e2.rsp, "RSP"); agree_within(e1.sigma, e2.sigma, HST_AGREE_FIT, "sigma");
    assert_int_equal(hst_frc(BE(state), sr, b, 64, 64, NULL, NULL, &f1), HST_SUCCESS);
    assert_int_equal(hst_frc(h, sr, b, 64, 64, NULL, NULL, &f2), HST_SUCCESS);
    agree(f1.resolution, f2.resolution, "FIRE");
    assert_int_equal(hst_decorr(BE(state), b, 64, 64, NULL, &d1), HST_SUCCESS);
    assert_int_equal(hst_decorr(h, b, 64, 64, NULL, &d2), HST_SUCCESS);
    agree(d1.resolution, d2.resolution, "decorrelation");
    assert_int_equal(hst_backend_destroy(h), HST_SUCCESS);
    free(sr); free(ref); free(b);
}

/* ------------------------------------------------------------------------------------------
   Batches: each image's result equals the single-image function's bit for bit (the single
   functions are batches of one, and an image's numbers must not depend on its neighbours),
   for host pointers and for device buffers at unaligned offsets and strides, in batches of
   several sizes; and within HST_AGREE of the host device's batch. */

/* count images of n floats into a new device buffer: image k at off + k stride bytes. */
static hst_buffer *device_batch(hst_backend *be, float *const *img, size_t count, size_t n,
                                size_t off, size_t stride) {
    hst_buffer *buf = NULL;
    size_t k;
    assert_int_equal(hst_buffer_create(be, off + (count - 1) * stride + n * sizeof(float), 0, &buf), HST_SUCCESS);
    for (k = 0; k < count; k++)
        assert_int_equal(hst_write(hst_backend_queue(be), buf, off + k * stride, img[k], n * sizeof(float), 1, 0, NULL, NULL),
                         HST_SUCCESS);
    return buf;
}

static void same_error_map(const hst_error_map_result *a, const hst_error_map_result *b, size_t k) {
    if (memcmp(&a->rse, &b->rse, sizeof a->rse) || memcmp(&a->rsp, &b->rsp, sizeof a->rsp) ||
        memcmp(&a->alpha, &b->alpha, sizeof a->alpha) || memcmp(&a->beta, &b->beta, sizeof a->beta) ||
        memcmp(&a->sigma, &b->sigma, sizeof a->sigma) || a->evaluations != b->evaluations ||
        a->magnification != b->magnification)
        fail_msg("image %zu: batch rse %.9g rsp %.9g sigma %.9g (%u evaluations), single %.9g %.9g %.9g (%u)",
                 k, a->rse, a->rsp, a->sigma, a->evaluations, b->rse, b->rsp, b->sigma, b->evaluations);
}

#define EMB_COUNT 5
/* Images against one reference (h, w) at magnification mag: the reference itself upsampled
   (RSP near 1), two blurred, scaled and offset copies (different sigmas: the searches stop
   after different numbers of evaluations), white noise (RSP ~ 0), and a blurred noise. */
static void error_map_batch_case(hst_backend *be, size_t h, size_t w, size_t mag) {
    const size_t H = h * mag, W = w * mag, n = H * W;
    hst_backend *twin = host_twin(be);
    float *ref = noise(h, w, 21, 10.0), *img[EMB_COUNT], *maps[EMB_COUNT], *map1 = image(n);
    hst_error_map_result one[EMB_COUNT], batch[EMB_COUNT], host[EMB_COUNT], last;
    hst_image_batch b;
    hst_buffer *buf;
    size_t k, i, x, y, sizes[3] = { 1, 2, EMB_COUNT }, s;
    blur(ref, h, w, 2.0);
    for (k = 0; k < EMB_COUNT; k++) {
        img[k] = k == 3 ? noise(H, W, 22, 5.0) : image(n);
        maps[k] = image(n);
        if (k == 3) continue;
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++) img[k][y * W + x] = ref[(y / mag) * w + x / mag];
        if (k == 1) blur(img[k], H, W, 0.8);
        if (k == 2) { blur(img[k], H, W, 1.6); for (i = 0; i < n; i++) img[k][i] = 0.5f * img[k][i] + 7.0f; }
        if (k == 4) { float *z = noise(H, W, 23, 3.0); add(img[k], img[k], z, n); free(z); }
    }
    for (k = 0; k < EMB_COUNT; k++) {
        assert_int_equal(hst_error_map(be, ref, h, w, img[k], H, W, NULL, map1, &one[k]), HST_SUCCESS);
        if (k == 0 && mag == 1) assert_true(one[k].rsp > 1.0 - 1e-6);
        /* k 3, white noise against a smooth reference: no known RSP (the fit blurs the noise
           until it correlates by chance with the reference's few degrees of freedom) */
        if (k == 3) assert_true(one[k].evaluations > 3 && fabs(one[k].rsp) < 1.0 - 1e-3);
    }
    memset(&b, 0, sizeof b);
    b.host = (const float *const *)img;
    for (s = 0; s < 3; s++) {   /* batches of 1, 2 and all: the same numbers */
        memset(batch, 0xff, sizeof batch);
        assert_int_equal(hst_error_map_batch(be, ref, h, w, &b, sizes[s], H, W, NULL, maps, batch), HST_SUCCESS);
        for (k = 0; k < sizes[s]; k++) same_error_map(&batch[k], &one[k], k);
    }
    assert_int_equal(hst_error_map(be, ref, h, w, img[EMB_COUNT - 1], H, W, NULL, map1, &last), HST_SUCCESS);
    assert_memory_equal(map1, maps[EMB_COUNT - 1], n * sizeof(float));
    /* on the device, at an offset and a stride that are not multiples of any alignment */
    buf = device_batch(be, img, EMB_COUNT, n, 12, n * sizeof(float) + 20);
    memset(&b, 0, sizeof b);
    b.buf = buf; b.offset_bytes = 12; b.stride_bytes = n * sizeof(float) + 20;
    assert_int_equal(hst_error_map_batch(be, ref, h, w, &b, EMB_COUNT, H, W, NULL, NULL, batch), HST_SUCCESS);
    for (k = 0; k < EMB_COUNT; k++) same_error_map(&batch[k], &one[k], k);
    if (twin) {   /* the host device's batch */
        memset(&b, 0, sizeof b);
        b.host = (const float *const *)img;
        assert_int_equal(hst_error_map_batch(twin, ref, h, w, &b, EMB_COUNT, H, W, NULL, NULL, host), HST_SUCCESS);
        for (k = 0; k < EMB_COUNT; k++) {
            agree_within(batch[k].rse, host[k].rse, HST_AGREE, "RSE");
            agree_within(batch[k].rsp, host[k].rsp, HST_AGREE, "RSP");
            agree_within(batch[k].sigma, host[k].sigma, HST_AGREE_FIT, "sigma");
        }
        assert_int_equal(hst_backend_destroy(twin), HST_SUCCESS);
    }
    hst_buffer_destroy(buf);
    for (k = 0; k < EMB_COUNT; k++) { free(img[k]); free(maps[k]); }
    free(ref); free(map1);
}

static void test_error_map_batch(void **state) {
    error_map_batch_case(BE(state), 40, 36, 1);
    error_map_batch_case(BE(state), 24, 20, 3);
}

#define FRCB_COUNT 4
static void test_frc_batch(void **state) {
    hst_backend *be = BE(state);
    const size_t sizes[2][2] = { { 64, 64 }, { 70, 58 } };
    size_t c, k, i;
    for (c = 0; c < 2; c++) {
        const size_t rows = sizes[c][0], cols = sizes[c][1], n = rows * cols;
        const size_t len = hst_frc_curve_length(rows, cols);
        float *a[FRCB_COUNT], *b[FRCB_COUNT], *curves[FRCB_COUNT], *curve1 = image(2 * len);
        hst_frc_result one[FRCB_COUNT], batch[FRCB_COUNT];
        hst_image_batch ia, ib;
        hst_buffer *ba, *bb;
        for (k = 0; k < FRCB_COUNT; k++) {   /* self; independent noises; blurred pairs */
            a[k] = noise(rows, cols, 30 + k, 1.0);
            b[k] = k == 0 ? noise(rows, cols, 30, 1.0) : noise(rows, cols, 40 + k, 1.0);
            curves[k] = image(2 * len);
            if (k >= 2) {
                float *s = noise(rows, cols, 50 + k, 4.0);
                blur(s, rows, cols, 1.0 + k);
                add(a[k], a[k], s, n); add(b[k], b[k], s, n);
                free(s);
            }
        }
        for (k = 0; k < FRCB_COUNT; k++)
            assert_int_equal(hst_frc(be, a[k], b[k], rows, cols, NULL, k == FRCB_COUNT - 1 ? curve1 : NULL, &one[k]),
                             HST_SUCCESS);
        assert_true(one[0].resolution == 0.0);   /* an image against itself never crosses */
        memset(&ia, 0, sizeof ia); memset(&ib, 0, sizeof ib);
        ia.host = (const float *const *)a; ib.host = (const float *const *)b;
        for (i = 1; i <= FRCB_COUNT; i += FRCB_COUNT - 1) {
            assert_int_equal(hst_frc_batch(be, &ia, &ib, i, rows, cols, NULL, curves, batch), HST_SUCCESS);
            for (k = 0; k < i; k++) {
                assert_memory_equal(&batch[k].resolution, &one[k].resolution, sizeof(double));
                assert_int_equal(batch[k].curve_length, len);
            }
        }
        assert_memory_equal(curves[FRCB_COUNT - 1], curve1, 2 * len * sizeof(float));
        ba = device_batch(be, a, FRCB_COUNT, n, 4, n * sizeof(float) + 4);
        bb = device_batch(be, b, FRCB_COUNT, n, 0, n * sizeof(float));
        memset(&ia, 0, sizeof ia); memset(&ib, 0, sizeof ib);
        ia.buf = ba; ia.offset_bytes = 4; ia.stride_bytes = n * sizeof(float) + 4;
        ib.buf = bb; ib.stride_bytes = n * sizeof(float);
        assert_int_equal(hst_frc_batch(be, &ia, &ib, FRCB_COUNT, rows, cols, NULL, NULL, batch), HST_SUCCESS);
        for (k = 0; k < FRCB_COUNT; k++) assert_memory_equal(&batch[k].resolution, &one[k].resolution, sizeof(double));
        hst_buffer_destroy(ba); hst_buffer_destroy(bb);
        for (k = 0; k < FRCB_COUNT; k++) { free(a[k]); free(b[k]); free(curves[k]); }
        free(curve1);
    }
}

/* ------------------------------------------------------------------------------------------
   Intensity scale (quality.h's "Large and small intensities"): the scores do not change with
   the images' intensity scale (RSE, beta and the map scale with the reference, alpha with the
   reference's scale over the SR image's), but float sums of squares overflow past ~1e19 per
   pixel and underflow below ~1e-19, so quality.h scales such images by a power of two. Images
   times 2^60 or 2^-60 give the unscaled images' numbers bit for bit (RSE, beta and the map times
   the reference's factor, alpha times the ratio: exact); times 1e19 or 1e-19 (the inputs round
   to float: each pixel moves by up to 2^-24 of itself) as the devices agree: HST_AGREE (RSE,
   RSP, FRC, decorrelation) and HST_AGREE_FIT (the fit's sigma, alpha, beta and the map: the
   objective is flat at its minimum). Seen on the host device and PoCL: RSE 8e-6, RSP 2e-7,
   beta 1e-5, alpha 2e-6, the map 5e-5 of its maximum, FIRE 3e-7, decorrelation 6e-8. On every
   path: single and batch calls, host pointers and device buffers, the DCT-domain search,
   scores_only, a fixed sigma, magnification 1 and 3. (Unscaled, these images trigger nothing:
   quality.h computes them as given.) */
#define TWO_60 1152921504606846976.0
#define SCALES 6
/* 2^110 and 2^-100 too: near float's ends (scaled in two steps; the reference times 2^110
   against the SR image times 2^-110: alpha 2^220, a double) */
static const double scales[SCALES] = { TWO_60, 1.0 / TWO_60, 1e19, 1e-19, TWO_60 * TWO_60 / 1024.0,
                                       1048576.0 / (TWO_60 * TWO_60) };

static float *scaled(const float *x, size_t n, double f) {
    float *p = image(n);
    size_t i;
    for (i = 0; i < n; i++) p[i] = (float)((double)x[i] * f);
    return p;
}

static int power_of_two(double f) {
    int e;
    return frexp(f, &e) == 0.5;
}

static const char *scale_case = "";   /* the call compared, for a failure's message */

static void close_to(double got, double want, double tol, const char *what, double fr, double fs) {
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("%s, x %g and x %g: %s %.9g, expected %.9g", scale_case, fr, fs, what, got, want);
}

/* r: the images with ref times fr and sr times fs; r0: unscaled. */
static void same_scaled_error_map(const hst_error_map_result *r, const hst_error_map_result *r0,
                                  double fr, double fs) {
    if (power_of_two(fr) && power_of_two(fs)) {
        if (r->rse != r0->rse * fr || r->rsp != r0->rsp || r->alpha != r0->alpha * (fr / fs) ||
            r->beta != r0->beta * fr || r->sigma != r0->sigma || r->evaluations != r0->evaluations ||
            r->magnification != r0->magnification)
            fail_msg("%s, ref x %g, sr x %g: rse %.17g rsp %.17g alpha %.17g beta %.17g sigma %.17g (%u), "
                     "unscaled %.17g %.17g %.17g %.17g %.17g (%u)", scale_case, fr, fs, r->rse, r->rsp, r->alpha,
                     r->beta, r->sigma, r->evaluations, r0->rse, r0->rsp, r0->alpha, r0->beta, r0->sigma,
                     r0->evaluations);
        return;
    }
    close_to(r->rse, r0->rse * fr, HST_AGREE, "RSE", fr, fs);
    close_to(r->rsp, r0->rsp, HST_AGREE, "RSP", fr, fs);
    close_to(r->alpha, r0->alpha * (fr / fs), HST_AGREE_FIT, "alpha", fr, fs);
    close_to(r->beta, r0->beta * fr, HST_AGREE_FIT, "beta", fr, fs);
    close_to(r->sigma, r0->sigma, HST_AGREE_FIT, "sigma", fr, fs);
}

/* The map of the images with ref times fr against the unscaled map0 (HST_AGREE_FIT of its
   largest value where fr is no power of two). */
static void same_scaled_map(const float *map, const float *map0, size_t n, double fr) {
    double top = 0.0;
    size_t i;
    for (i = 0; i < n; i++) top = fmax(top, map0[i] * fr);
    for (i = 0; i < n; i++)
        if (power_of_two(fr) ? map[i] != (float)(map0[i] * fr) : fabs(map[i] - map0[i] * fr) > HST_AGREE_FIT * top)
            fail_msg("ref x %g: map[%zu] %.9g, expected %.9g", fr, i, map[i], map0[i] * fr);
}

/* A blurred, offset reference and an SR image of it (magnification mag) with noise: their
   error maps unscaled and scaled (both images, the two the opposite ways, the reference
   alone), by the full fit, a fixed sigma and scores_only. */
static void error_map_scaled_case(hst_backend *be, size_t h, size_t w, size_t mag) {
    const size_t H = mag * h, W = mag * w, n = H * W;
    float *ref = noise(h, w, 70, 10.0), *sr = noise(H, W, 71, 0.2), *map0 = image(n), *map = image(n);
    hst_error_map_result r0, r, f0, f, s0, s;
    hst_error_map_desc fixed, fast;
    size_t x, y, i, j;
    blur(ref, h, w, 2.0);
    for (i = 0; i < h * w; i++) ref[i] += 100.0f;
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) sr[y * W + x] += 2.0f * ref[(y / mag) * w + x / mag] + 50.0f;
    memset(&fixed, 0, sizeof fixed); memset(&fast, 0, sizeof fast);
    fixed.fixed_sigma = 0.7;
    fast.scores_only = 1;
    assert_int_equal(hst_error_map(be, ref, h, w, sr, H, W, NULL, map0, &r0), HST_SUCCESS);
    assert_int_equal(hst_error_map(be, ref, h, w, sr, H, W, &fixed, NULL, &f0), HST_SUCCESS);
    assert_int_equal(hst_error_map(be, ref, h, w, sr, H, W, &fast, NULL, &s0), HST_SUCCESS);
    assert_true(r0.rsp > 0.5 && r0.evaluations > 3 && s0.evaluations > 3);
    for (i = 0; i < SCALES; i++)
        for (j = 0; j < 3; j++) {
            double fr = scales[i], fs = j == 0 ? scales[i] : j == 1 ? 1.0 / scales[i] : 1.0;
            float *rs = scaled(ref, h * w, fr), *ss = scaled(sr, n, fs);
            scale_case = "hst_error_map";
            assert_int_equal(hst_error_map(be, rs, h, w, ss, H, W, NULL, map, &r), HST_SUCCESS);
            same_scaled_error_map(&r, &r0, fr, fs);
            same_scaled_map(map, map0, n, fr);
            scale_case = "hst_error_map, fixed sigma";
            assert_int_equal(hst_error_map(be, rs, h, w, ss, H, W, &fixed, NULL, &f), HST_SUCCESS);
            same_scaled_error_map(&f, &f0, fr, fs);
            scale_case = "hst_error_map, scores_only";
            assert_int_equal(hst_error_map(be, rs, h, w, ss, H, W, &fast, NULL, &s), HST_SUCCESS);
            same_scaled_error_map(&s, &s0, fr, fs);
            free(rs); free(ss);
        }
    free(ref); free(sr); free(map0); free(map);
}

static void test_error_map_scaled(void **state) {
    error_map_scaled_case(BE(state), 40, 36, 1);
    error_map_scaled_case(BE(state), 24, 20, 3);
}

/* A batch of the SR image at every scale (and unscaled) against one reference, from host
   pointers and from a device buffer, by the full fit and by scores_only: each image's numbers
   are its single call's, bit for bit, and the unscaled image's as above; likewise with the
   reference times 2^-60. */
static void test_error_map_batch_scaled(void **state) {
    hst_backend *be = BE(state);
    const size_t h = 24, w = 20, mag = 3, H = mag * h, W = mag * w, n = H * W, count = SCALES + 1;
    float *ref = noise(h, w, 72, 10.0), *sr = noise(H, W, 73, 1.0), *img[SCALES + 1];
    hst_error_map_result one[SCALES + 1], batch[SCALES + 1], r0;
    hst_error_map_desc fast;
    hst_image_batch b;
    hst_buffer *buf;
    size_t x, y, k, d, rs;
    blur(ref, h, w, 1.5);
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) sr[y * W + x] += 3.0f * ref[(y / mag) * w + x / mag];
    memset(&fast, 0, sizeof fast);
    img[0] = sr;
    for (k = 1; k < count; k++) img[k] = scaled(sr, n, scales[k - 1]);
    for (rs = 0; rs < 2; rs++) {
        double fr = rs ? 1.0 / TWO_60 : 1.0;
        float *refk = scaled(ref, h * w, fr);
        for (d = 0; d < 2; d++) {
            fast.scores_only = (int)d;
            scale_case = d ? "hst_error_map_batch, scores_only" : "hst_error_map_batch";
            assert_int_equal(hst_error_map(be, ref, h, w, sr, H, W, &fast, NULL, &r0), HST_SUCCESS);
            for (k = 0; k < count; k++) {
                assert_int_equal(hst_error_map(be, refk, h, w, img[k], H, W, &fast, NULL, &one[k]), HST_SUCCESS);
                same_scaled_error_map(&one[k], &r0, fr, k ? scales[k - 1] : 1.0);
            }
            memset(&b, 0, sizeof b);
            b.host = (const float *const *)img;
            memset(batch, 0xff, sizeof batch);
            assert_int_equal(hst_error_map_batch(be, refk, h, w, &b, count, H, W, &fast, NULL, batch), HST_SUCCESS);
            for (k = 0; k < count; k++) same_error_map(&batch[k], &one[k], k);
            buf = device_batch(be, img, count, n, 8, n * sizeof(float) + 8);
            memset(&b, 0, sizeof b);
            b.buf = buf; b.offset_bytes = 8; b.stride_bytes = n * sizeof(float) + 8;
            memset(batch, 0xff, sizeof batch);
            assert_int_equal(hst_error_map_batch(be, refk, h, w, &b, count, H, W, &fast, NULL, batch), HST_SUCCESS);
            for (k = 0; k < count; k++) same_error_map(&batch[k], &one[k], k);
            hst_buffer_destroy(buf);
        }
        free(refk);
    }
    for (k = 1; k < count; k++) free(img[k]);
    free(ref); free(sr);
}

static void same_scaled_frc(const hst_frc_result *r, const hst_frc_result *r0, const float *curve,
                            const float *curve0, size_t len, double fa, double fb) {
    size_t i;
    assert_true(r0->resolution > 0.0);   /* the pairs cross 1/7 */
    if (power_of_two(fa) && power_of_two(fb)) {
        if (r->resolution != r0->resolution)
            fail_msg("a x %g, b x %g: FIRE %.17g, unscaled %.17g", fa, fb, r->resolution, r0->resolution);
        assert_memory_equal(curve, curve0, 2 * len * sizeof(float));
        return;
    }
    close_to(r->resolution, r0->resolution, HST_AGREE, "FIRE", fa, fb);
    for (i = 0; i < len; i++)
        if (fabs(curve[2 * i + 1] - curve0[2 * i + 1]) > HST_AGREE)
            fail_msg("a x %g, b x %g: FRC[%zu] %.9g, unscaled %.9g", fa, fb, i, curve[2 * i + 1], curve0[2 * i + 1]);
}

/* FRC pairs (a blurred signal, two noises) at every scale, both images and a alone, single
   and batched (host pointers, device buffers), square and cropped. */
static void test_frc_scaled(void **state) {
    hst_backend *be = BE(state);
    const size_t sizes[2][2] = { { 64, 64 }, { 70, 58 } };
    size_t c, i, j, k;
    scale_case = "hst_frc";
    for (c = 0; c < 2; c++) {
        const size_t rows = sizes[c][0], cols = sizes[c][1], n = rows * cols, len = hst_frc_curve_length(rows, cols);
        const size_t count = 2 * SCALES;
        float *a = noise(rows, cols, 80, 1.0), *b = noise(rows, cols, 81, 1.0), *s = noise(rows, cols, 82, 4.0);
        float *curve0 = image(2 * len), *curve = image(2 * len), *pa[2 * SCALES], *pb[2 * SCALES];
        hst_frc_result r0, r[2 * SCALES], batch[2 * SCALES];
        hst_image_batch ia, ib;
        hst_buffer *ba, *bb;
        blur(s, rows, cols, 2.0);
        add(a, a, s, n); add(b, b, s, n);
        assert_int_equal(hst_frc(be, a, b, rows, cols, NULL, curve0, &r0), HST_SUCCESS);
        for (i = 0; i < SCALES; i++)
            for (j = 0; j < 2; j++) {   /* both images; a alone */
                double fa = scales[i], fb = j ? 1.0 : scales[i];
                k = 2 * i + j;
                pa[k] = scaled(a, n, fa); pb[k] = scaled(b, n, fb);
                assert_int_equal(hst_frc(be, pa[k], pb[k], rows, cols, NULL, curve, &r[k]), HST_SUCCESS);
                same_scaled_frc(&r[k], &r0, curve, curve0, len, fa, fb);
            }
        memset(&ia, 0, sizeof ia); memset(&ib, 0, sizeof ib);
        ia.host = (const float *const *)pa; ib.host = (const float *const *)pb;
        assert_int_equal(hst_frc_batch(be, &ia, &ib, count, rows, cols, NULL, NULL, batch), HST_SUCCESS);
        for (k = 0; k < count; k++) assert_memory_equal(&batch[k].resolution, &r[k].resolution, sizeof(double));
        ba = device_batch(be, pa, count, n, 0, n * sizeof(float));
        bb = device_batch(be, pb, count, n, 4, n * sizeof(float) + 4);
        memset(&ia, 0, sizeof ia); memset(&ib, 0, sizeof ib);
        ia.buf = ba; ia.stride_bytes = n * sizeof(float);
        ib.buf = bb; ib.offset_bytes = 4; ib.stride_bytes = n * sizeof(float) + 4;
        assert_int_equal(hst_frc_batch(be, &ia, &ib, count, rows, cols, NULL, NULL, batch), HST_SUCCESS);
        for (k = 0; k < count; k++) assert_memory_equal(&batch[k].resolution, &r[k].resolution, sizeof(double));
        hst_buffer_destroy(ba); hst_buffer_destroy(bb);
        for (k = 0; k < count; k++) { free(pa[k]); free(pb[k]); }
        free(a); free(b); free(s); free(curve0); free(curve);
    }
}

/* Decorrelation of the band-limited image at every scale. */
static void test_decorr_scaled(void **state) {
    float *a = band_limited(11);
    hst_decorr_result r0, r;
    size_t i;
    scale_case = "hst_decorr";
    assert_int_equal(hst_decorr(BE(state), a, DC_N, DC_N, NULL, &r0), HST_SUCCESS);
    for (i = 0; i < SCALES; i++) {
        float *s = scaled(a, DC_N * DC_N, scales[i]);
        assert_int_equal(hst_decorr(BE(state), s, DC_N, DC_N, NULL, &r), HST_SUCCESS);
        if (power_of_two(scales[i])) {
            assert_memory_equal(&r, &r0, sizeof r);
        } else {
            close_to(r.resolution, r0.resolution, HST_AGREE, "decorrelation", scales[i], scales[i]);
            close_to(r.kc0, r0.kc0, HST_AGREE, "kc0", scales[i], scales[i]);
            close_to(r.a0, r0.a0, HST_AGREE, "A0", scales[i], scales[i]);
        }
        free(s);
    }
    free(a);
}

/* A call's result code and the log item of its rejection (HST_LOGITEM_LIST's finest fit). */
#define REJECTS(call, code, item)                          \
    do {                                                   \
        cap_reset(log);                                    \
        assert_int_equal((call), (code));                  \
        assert_int_equal(log->last_item, (item));          \
    } while (0)

/* Bad batches: codes and log items (the NaN's image and pixel named). */
static void test_batch_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    float *a = noise(16, 16, 60, 1.0), *c = noise(16, 16, 61, 1.0), *img[3];
    hst_error_map_result e[3];
    hst_frc_result f[3];
    hst_image_batch b, z;
    hst_buffer *buf = device_batch(be, &a, 1, 256, 0, 0);
    img[0] = a; img[1] = c; img[2] = a;
    memset(&b, 0, sizeof b);
    b.host = (const float *const *)img;
    assert_int_equal(hst_error_map_batch(NULL, a, 16, 16, &b, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT);
    REJECTS(hst_error_map_batch(be, a, 16, 16, NULL, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_error_map_batch(be, a, 16, 16, &b, 0, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_ZERO_SIZE);
    REJECTS(hst_error_map_batch(be, a, 16, 16, &b, 3, 16, 16, NULL, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_error_map_batch(be, a, 16, 16, &b, 3, 16, 15, NULL, NULL, e), HST_ERROR_SHAPE,
            HST_LOGITEM_SHAPE_MISMATCH);
    img[1] = NULL;   /* host[1] */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &b, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    img[1] = c;
    z = b; z.buf = buf;   /* both */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_BAD_ARGUMENT);
    memset(&z, 0, sizeof z);   /* neither */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    z.buf = buf; z.stride_bytes = 1024;   /* 3 images in a buffer of one */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 3, 16, 16, NULL, NULL, e), HST_ERROR_SHAPE,
            HST_LOGITEM_SHAPE_MISMATCH);
    z.stride_bytes = 1000;   /* below an image */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 3, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_OUT_OF_RANGE);
    z.stride_bytes = 1024; z.offset_bytes = 2;   /* not whole floats */
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 1, 16, 16, NULL, NULL, e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_MISALIGNED);
    z.offset_bytes = 0; z.stride_bytes = SIZE_MAX / 4 * 4;
    REJECTS(hst_error_map_batch(be, a, 16, 16, &z, 3, 16, 16, NULL, NULL, e), HST_ERROR_OVERFLOW,
            HST_LOGITEM_SIZE_OVERFLOW);
    c[77] = INFINITY;
    REJECTS(hst_error_map_batch(be, a, 16, 16, &b, 3, 16, 16, NULL, NULL, e), HST_ERROR_NON_FINITE,
            HST_LOGITEM_NON_FINITE);
    assert_non_null(strstr(log->last_message, "sr[1][77]"));   /* the documented pixel */
    REJECTS(hst_frc_batch(be, &b, &b, 3, 16, 16, NULL, NULL, f), HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE);
    assert_non_null(strstr(log->last_message, "a[1][77]"));
    c[77] = 0.0f;
    REJECTS(hst_frc_batch(be, &b, NULL, 3, 16, 16, NULL, NULL, f), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_frc_batch(be, &b, &b, 0, 16, 16, NULL, NULL, f), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_ZERO_SIZE);
    REJECTS(hst_frc_batch(be, &b, &b, 3, 16, 9, NULL, NULL, f), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_OUT_OF_RANGE);
    REJECTS(hst_frc_batch(be, &b, &b, 3, 16, 0, NULL, NULL, f), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_ZERO_SIZE);
    z.stride_bytes = 1024;
    REJECTS(hst_frc_batch(be, &b, &z, 3, 16, 16, NULL, NULL, f), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    hst_buffer_destroy(buf);
    free(a); free(c);
}

/* ------------------------------------------------------------------------------------------
   Errors: codes and log items. */
static void test_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    float *a = noise(16, 16, 16, 1.0), *big = noise(32, 32, 17, 1.0), *map = image(16 * 16);
    hst_error_map_result e;
    hst_error_map_desc ed;
    hst_frc_result f;
    hst_decorr_result d;
    hst_decorr_desc dd;
    assert_int_equal(hst_error_map(NULL, a, 16, 16, a, 16, 16, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT);
    REJECTS(hst_error_map(be, NULL, 16, 16, a, 16, 16, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_error_map(be, a, 16, 16, NULL, 16, 16, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_error_map(be, a, 16, 16, a, 16, 16, NULL, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_error_map(be, a, 0, 16, a, 16, 16, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    REJECTS(hst_error_map(be, a, 16, 16, big, 32, 31, NULL, NULL, &e), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    REJECTS(hst_error_map(be, big, 32, 32, a, 16, 16, NULL, NULL, &e), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    memset(&ed, 0, sizeof ed);
    ed.fixed_sigma = -1.0;
    REJECTS(hst_error_map(be, a, 16, 16, a, 16, 16, &ed, NULL, &e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_OUT_OF_RANGE);
    ed.fixed_sigma = 1e9;   /* a filter wider than an int holds */
    REJECTS(hst_error_map(be, a, 16, 16, a, 16, 16, &ed, NULL, &e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_OUT_OF_RANGE);
    ed.fixed_sigma = 0.0; ed.scores_only = 1;   /* no map with scores_only */
    REJECTS(hst_error_map(be, a, 16, 16, a, 16, 16, &ed, map, &e), HST_ERROR_INVALID_ARGUMENT,
            HST_LOGITEM_BAD_ARGUMENT);
    REJECTS(hst_error_map(be, a, (size_t)1 << 40, (size_t)1 << 40, a, (size_t)1 << 40, (size_t)1 << 40, NULL, NULL, &e),
            HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW);
    big[37] = NAN;
    REJECTS(hst_error_map(be, a, 16, 16, big, 32, 32, NULL, NULL, &e), HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE);
    assert_non_null(strstr(log->last_message, "sr[37]"));   /* the documented pixel */
    REJECTS(hst_frc(be, big, big, 32, 32, NULL, NULL, &f), HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE);
    REJECTS(hst_decorr(be, big, 32, 32, NULL, &d), HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE);
    REJECTS(hst_frc(be, a, a, 16, 9, NULL, NULL, &f), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    REJECTS(hst_frc(be, a, a, 0, 16, NULL, NULL, &f), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    REJECTS(hst_frc(be, a, NULL, 16, 16, NULL, NULL, &f), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_frc(be, a, a, 16, 16, NULL, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    {
        hst_frc_desc fd;
        memset(&fd, 0, sizeof fd);
        fd.pixel_size = -1.0;
        REJECTS(hst_frc(be, a, a, 16, 16, &fd, NULL, &f), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    }
    assert_int_equal(hst_frc_curve_length(9, 100), 0);
    REJECTS(hst_decorr(be, NULL, 16, 16, NULL, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    REJECTS(hst_decorr(be, a, 16, 0, NULL, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    REJECTS(hst_decorr(be, a, 16, 1, NULL, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    memset(&dd, 0, sizeof dd);
    dd.num_radii = HST_DECORR_MAX_NR + 1;
    REJECTS(hst_decorr(be, a, 16, 16, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.num_radii = 0; dd.num_highpass = 1;
    REJECTS(hst_decorr(be, a, 16, 16, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.num_highpass = 0; dd.rmin = 0.5; dd.rmax = 0.4;
    REJECTS(hst_decorr(be, a, 16, 16, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.rmin = 0.0; dd.rmax = 0.0; dd.pixel_size = NAN;
    REJECTS(hst_decorr(be, a, 16, 16, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    dd.pixel_size = 0.0;
    dd.roi[0] = 2; dd.roi[1] = 2; dd.roi[2] = 17; dd.roi[3] = 10;
    REJECTS(hst_decorr(be, a, 16, 16, &dd, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    free(a); free(big); free(map);
}

/* A one-column image in the error map is refused up front, naming the argument (its FFTs run
   along rows: they failed later with array.h's message about r2c and c2r); at magnification 2
   too (a 1 x 1 reference). */
static void test_error_map_one_column(void **state) {
    float *a = noise(16, 2, 33, 1.0);
    cap_log *log = LOG(state);
    hst_error_map_result e;
    cap_reset(log);
    assert_int_equal(hst_error_map(BE(state), a, 16, 1, a, 16, 1, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "ref_cols is 1"));
    cap_reset(log);
    assert_int_equal(hst_error_map(BE(state), a, 1, 1, a, 2, 2, NULL, NULL, &e), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(log->last_message, "ref_cols is 1"));
    assert_int_equal(hst_error_map(BE(state), a, 16, 2, a, 16, 2, NULL, NULL, &e), HST_SUCCESS);
    free(a);
}

/* Cancellation: on an interrupted backend every metric returns HST_ERROR_CANCELLED at once
   (no work: the output untouched), and after hst_backend_interrupt_clear works again. */
static void test_interrupted_backend(void **state) {
    hst_backend *be = BE(state);
    float *a = noise(32, 32, 34, 1.0);
    const float *one[1];
    hst_image_batch b;
    hst_error_map_result e;
    hst_frc_result f;
    hst_decorr_result d;
    one[0] = a;
    memset(&b, 0, sizeof b);
    b.host = one;
    hst_backend_interrupt(be);
    memset(&d, 0x5a, sizeof d);
    assert_int_equal(hst_decorr(be, a, 32, 32, NULL, &d), HST_ERROR_CANCELLED);
    assert_true(d.resolution != d.resolution || d.kc0 != 0.0);   /* untouched: 0x5a bytes */
    assert_int_equal(hst_frc(be, a, a, 32, 32, NULL, NULL, &f), HST_ERROR_CANCELLED);
    assert_int_equal(hst_frc_batch(be, &b, &b, 1, 32, 32, NULL, NULL, &f), HST_ERROR_CANCELLED);
    assert_int_equal(hst_error_map(be, a, 32, 32, a, 32, 32, NULL, NULL, &e), HST_ERROR_CANCELLED);
    assert_int_equal(hst_error_map_batch(be, a, 32, 32, &b, 1, 32, 32, NULL, NULL, &e), HST_ERROR_CANCELLED);
    hst_backend_interrupt_clear(be);
    assert_int_equal(hst_decorr(be, a, 32, 32, NULL, &d), HST_SUCCESS);
    assert_int_equal(hst_frc(be, a, a, 32, 32, NULL, NULL, &f), HST_SUCCESS);
    assert_int_equal(hst_error_map(be, a, 32, 32, a, 32, 32, NULL, NULL, &e), HST_SUCCESS);
    free(a);
}

/* A thread interrupts a long decorrelation (white noise of 2048 x 2048: kc0 0, so the filters'
   sigmas reach 1024 pixels; seconds of work on a CPU): it returns HST_ERROR_CANCELLED, not a
   result. The latency is printed, not asserted (bench/ measures speed); quality.h polls between
   curves, each a pass over the spectrum. */
#define CANCEL_SIDE 2048
#define CANCEL_AFTER_NS 200000000L
static void *interrupter(void *be) {
    struct timespec t;
    t.tv_sec = 0; t.tv_nsec = CANCEL_AFTER_NS;
    nanosleep(&t, NULL);
    hst_backend_interrupt((hst_backend *)be);
    return NULL;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void test_decorr_cancelled(void **state) {
    hst_backend *be = BE(state);
    float *a = noise(CANCEL_SIDE, CANCEL_SIDE, 35, 1.0);
    hst_decorr_result d;
    pthread_t th;
    double t0;
    hst_result r;
    assert_int_equal(pthread_create(&th, NULL, interrupter, be), 0);
    t0 = seconds();
    r = hst_decorr(be, a, CANCEL_SIDE, CANCEL_SIDE, NULL, &d);
    print_message("hst_decorr %dx%d: returned %.2f s after the interrupt\n", CANCEL_SIDE, CANCEL_SIDE,
                  seconds() - t0 - 1e-9 * CANCEL_AFTER_NS);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(r, HST_ERROR_CANCELLED);
    hst_backend_interrupt_clear(be);
    free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_map_self),
        cmocka_unit_test(test_error_map_blurred),
        cmocka_unit_test(test_error_map_wide_blur),
        cmocka_unit_test(test_error_map_shifted),
        cmocka_unit_test(test_error_map_noise),
        cmocka_unit_test(test_error_map_magnified),
        cmocka_unit_test(test_error_map_scores_only),
        cmocka_unit_test(test_frc_self),
        cmocka_unit_test(test_frc_shifted),
        cmocka_unit_test(test_frc_blurred_noise),
        cmocka_unit_test(test_decorr_band_limited),
        cmocka_unit_test(test_decorr_roi),
        cmocka_unit_test(test_decorr_white_noise),
        cmocka_unit_test(test_decorr_spatial_values),
        cmocka_unit_test(test_decorr_num_highpass_limit),
        cmocka_unit_test(test_pixel_size_range),
        cmocka_unit_test(test_frc_zero_image),
        cmocka_unit_test(test_error_map_one_column),
        cmocka_unit_test(test_interrupted_backend),
        cmocka_unit_test(test_decorr_cancelled),
        cmocka_unit_test(test_declared_subranges),
        cmocka_unit_test(test_devices_agree),
        cmocka_unit_test(test_error_map_batch),
        cmocka_unit_test(test_frc_batch),
        cmocka_unit_test(test_error_map_scaled),
        cmocka_unit_test(test_error_map_batch_scaled),
        cmocka_unit_test(test_frc_scaled),
        cmocka_unit_test(test_decorr_scaled),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_batch_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
