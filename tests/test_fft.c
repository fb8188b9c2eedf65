/* test_fft.c — backend.h's FFTs (>>fft, built with HST_FFT): FFTW on the host device, VkFFT on
   OpenCL devices, one semantics (numpy.fft's).

   Runs once per device (HST_DEVICE=host, HST_DEVICE=P:D ...). Every transform is compared with
   a direct DFT computed here in double precision (separable: a direct O(n^2) sum along each
   transformed axis, twiddles exp(-+2 pi i (j k mod n) / n)). Tolerance, in ulps of the
   transform's norm: ||got - ref||_2 <= FFT_ULPS * log2(2N) * eps * ||ref||_2, with eps = 2^-24
   (f32's unit roundoff) and N the transform's size; an FFT's error grows as eps log2 N
   (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 24.1), so a
   wrong twiddle, bin or scale (errors of order ||ref||) cannot pass, and float rounding can.
   Sizes include 1, primes (7, 13, 97: VkFFT's Bluestein path) and powers of 2. */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "array.h"

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

#define FFT_ULPS 8.0
#define EPS32 (1.0 / 16777216.0)
#define TWO_PI 6.283185307179586476925286766559

/* ------------------------------------------------------------------------------------------
   Fixture: one backend for the group (VkFFT plans are costly to make on a CPU device). */
#include "be_fixture.h"

/* A transform: `axes` transformed lengths n[] fastest first (n[0] = the last axis), over
   `batch` leading elements (one leading axis). */
typedef struct fcase { unsigned axes; size_t batch, n[3]; } fcase;

static size_t total(const fcase *c) { return c->n[0] * c->n[1] * c->n[2]; }
static size_t bins(const fcase *c) { return c->n[0] / 2 + 1; }

/* The array shape (batch, n[axes-1], ..., n[0]) with the last extent replaced by `last`. */
static unsigned shape_of(const fcase *c, size_t last, size_t shape[4]) {
    unsigned i;
    shape[0] = c->batch;
    for (i = 0; i < c->axes; i++) shape[1 + i] = c->n[c->axes - 1 - i];
    shape[c->axes] = last;
    return c->axes + 1;
}

static hst_array *mk(hst_backend *be, hst_dtype dt, const fcase *c, size_t last) {
    size_t shape[4];
    unsigned nd = shape_of(c, last, shape);
    hst_array *a = NULL;
    assert_int_equal(hst_array_create(be, dt, nd, shape, &a), HST_SUCCESS);
    return a;
}

/* Deterministic inputs in [-1, 1) (xorshift64*). */
static double unit(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* ------------------------------------------------------------------------------------------
   The reference: z holds batch * n[2] * n[1] * n[0] complex doubles (re, im), C order with
   n[0] fastest; each transformed axis gets a direct DFT in place. */
static void dft_line(double *z, size_t n, size_t stride, int inverse, double *tmp) {
    size_t j, k;
    double sign = inverse ? 1.0 : -1.0;
    for (k = 0; k < n; k++) {
        double re = 0.0, im = 0.0;
        for (j = 0; j < n; j++) {
            double a = sign * TWO_PI * (double)((j * k) % n) / (double)n;
            double xr = z[2 * j * stride], xi = z[2 * j * stride + 1];
            re += xr * cos(a) - xi * sin(a);
            im += xr * sin(a) + xi * cos(a);
        }
        tmp[2 * k] = re; tmp[2 * k + 1] = im;
    }
    for (k = 0; k < n; k++) { z[2 * k * stride] = tmp[2 * k]; z[2 * k * stride + 1] = tmp[2 * k + 1]; }
}

static void ref_dft(double *z, const fcase *c, int inverse) {
    size_t tot = total(c), ax, b, line, stride = 1;
    double *tmp = (double *)malloc(2 * 128 * sizeof(double) + 2 * tot * sizeof(double));
    assert_non_null(tmp);
    for (ax = 0; ax < c->axes; ax++) {
        size_t n = c->n[ax];
        for (b = 0; b < c->batch; b++)
            for (line = 0; line < tot / n; line++) {   /* lines along axis ax */
                size_t outer = line / stride, inner = line % stride;
                dft_line(z + 2 * (b * tot + outer * n * stride + inner), n, stride, inverse, tmp);
            }
        stride *= n;
    }
    free(tmp);
}

/* ||got - ref||_2 within the tolerance of ||ref||_2; got is float pairs or floats. */
static void expect_close(const float *got, const double *ref, size_t count, int complex_,
                         size_t n_total, const char *what) {
    double err = 0.0, norm = 0.0, tol;
    size_t i, m = complex_ ? 2 * count : count;
    for (i = 0; i < m; i++) {
        double d = (double)got[i] - ref[complex_ ? i : 2 * i];
        double v = ref[complex_ ? i : 2 * i];
        err += d * d;
        norm += v * v;
    }
    tol = FFT_ULPS * log2(2.0 * (double)n_total) * EPS32 * sqrt(norm);
    if (!(sqrt(err) <= tol)) {
        print_error("%s: ||err|| = %.3g > %.3g (= %.3g ulps of ||ref|| = %.3g)\n", what,
                    sqrt(err), tol, sqrt(err) / (EPS32 * sqrt(norm)), sqrt(norm));
        fail();
    }
}

static double norm_factor(const fcase *c, hst_fft_norm norm, int inverse) {
    double n = (double)total(c);
    if (norm == HST_FFT_NORM_ORTHO) return 1.0 / sqrt(n);
    if ((norm == HST_FFT_NORM_BACKWARD) == (inverse != 0)) return 1.0 / n;
    return 1.0;
}

/* ------------------------------------------------------------------------------------------
   c2c against the reference, forward and inverse (and in place for the inverse). */
static void check_c2c(hst_backend *be, const fcase *c, int inverse, hst_fft_norm norm,
                      int in_place) {
    size_t cnt = c->batch * total(c), i;
    float *h = (float *)malloc(cnt * 8), *out = (float *)malloc(cnt * 8);
    double *ref = (double *)malloc(cnt * 16), f = norm_factor(c, norm, inverse);
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ cnt;
    hst_array *x = mk(be, HST_C64, c, c->n[0]), *y = in_place ? x : mk(be, HST_C64, c, c->n[0]);
    char what[128];
    for (i = 0; i < 2 * cnt; i++) { h[i] = (float)unit(&s); ref[i] = h[i]; }
    ref_dft(ref, c, inverse);
    for (i = 0; i < 2 * cnt; i++) ref[i] *= f;
    assert_int_equal(hst_array_write(x, h, cnt * 8), HST_SUCCESS);
    assert_int_equal(hst_array_fft(y, x, c->axes, inverse, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(y, out, cnt * 8), HST_SUCCESS);
    snprintf(what, sizeof what, "c2c %uD n=(%zu,%zu,%zu) batch %zu %s norm %d%s", c->axes,
             c->n[0], c->n[1], c->n[2], c->batch, inverse ? "inverse" : "forward", (int)norm,
             in_place ? " in place" : "");
    expect_close(out, ref, cnt, 1, total(c), what);
    if (!in_place) {   /* src is left as it was */
        assert_int_equal(hst_array_read(x, out, cnt * 8), HST_SUCCESS);
        assert_memory_equal(out, h, cnt * 8);
        hst_array_destroy(y);
    }
    hst_array_destroy(x);
    free(h); free(out); free(ref);
}

static const fcase C2C_CASES[] = {
    {1, 3, {1, 1, 1}}, {1, 2, {2, 1, 1}}, {1, 3, {7, 1, 1}}, {1, 2, {16, 1, 1}},
    {1, 1, {97, 1, 1}}, {2, 2, {8, 5, 1}}, {2, 1, {12, 13, 1}}, {3, 2, {5, 6, 4}}
};

static void test_c2c(void **state) {
    size_t i;
    for (i = 0; i < sizeof C2C_CASES / sizeof C2C_CASES[0]; i++) {
        check_c2c(BE(state), &C2C_CASES[i], 0, HST_FFT_NORM_BACKWARD, 0);
        check_c2c(BE(state), &C2C_CASES[i], 1, HST_FFT_NORM_BACKWARD, 1);
    }
}

/* Every norm mode scales as NumPy's, both directions (the plans of test_c2c are reused). */
static void test_norms(void **state) {
    int norm, inv;
    for (norm = HST_FFT_NORM_BACKWARD; norm <= HST_FFT_NORM_FORWARD; norm++)
        for (inv = 0; inv < 2; inv++) check_c2c(BE(state), &C2C_CASES[5], inv, (hst_fft_norm)norm, inv);
}

/* ------------------------------------------------------------------------------------------
   r2c: the first n/2+1 bins of the full DFT of the real input. c2r: the real part of the
   inverse DFT of the Hermitian extension of a real signal's half spectrum. */
static const fcase R2C_CASES[] = {
    {1, 3, {8, 1, 1}}, {1, 2, {7, 1, 1}}, {2, 2, {10, 6, 1}}, {2, 1, {9, 5, 1}}, {3, 1, {6, 4, 3}}
};

/* The half spectrum (batch * rest * bins complex doubles) of a full one. */
static void half_of(const double *full, const fcase *c, double *half) {
    size_t rows = c->batch * total(c) / c->n[0], r, k;
    for (r = 0; r < rows; r++)
        for (k = 0; k < bins(c); k++) {
            half[2 * (r * bins(c) + k)] = full[2 * (r * c->n[0] + k)];
            half[2 * (r * bins(c) + k) + 1] = full[2 * (r * c->n[0] + k) + 1];
        }
}

static void check_r2c_c2r(hst_backend *be, const fcase *c, hst_fft_norm norm) {
    size_t cnt = c->batch * total(c), hcnt = cnt / c->n[0] * bins(c), i;
    float *x = (float *)malloc(cnt * 4), *hs = (float *)malloc(hcnt * 8);
    float *xo = (float *)malloc(cnt * 4);
    double *full = (double *)calloc(2 * cnt, sizeof(double)), *half = (double *)malloc(hcnt * 16);
    double *back = (double *)calloc(2 * cnt, sizeof(double));
    uint64_t s = 0x51ed270b27f1d2a3ULL ^ cnt;
    hst_array *xr = mk(be, HST_F32, c, c->n[0]), *xc = mk(be, HST_C64, c, bins(c));
    hst_array *xr2 = mk(be, HST_F32, c, c->n[0]);
    char what[128];
    double f = norm_factor(c, norm, 0), g = norm_factor(c, norm, 1);
    for (i = 0; i < cnt; i++) { x[i] = (float)unit(&s); full[2 * i] = x[i]; }
    ref_dft(full, c, 0);
    half_of(full, c, half);
    for (i = 0; i < 2 * hcnt; i++) half[i] *= f;
    snprintf(what, sizeof what, "%uD n=(%zu,%zu,%zu) batch %zu norm %d", c->axes, c->n[0],
             c->n[1], c->n[2], c->batch, (int)norm);

    assert_int_equal(hst_array_write(xr, x, cnt * 4), HST_SUCCESS);
    assert_int_equal(hst_array_fft(xc, xr, c->axes, 0, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(xc, hs, hcnt * 8), HST_SUCCESS);
    expect_close(hs, half, hcnt, 1, total(c), what);

    /* c2r of the device's spectrum: the reference inverts its Hermitian extension (the full
       spectrum above, scaled like it) and must give x back times f * g * N */
    for (i = 0; i < 2 * cnt; i++) back[i] = full[i] * f;
    ref_dft(back, c, 1);
    for (i = 0; i < 2 * cnt; i++) back[i] *= g;
    assert_int_equal(hst_array_fft(xr2, xc, c->axes, 1, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(xr2, xo, cnt * 4), HST_SUCCESS);
    expect_close(xo, back, cnt, 0, total(c), what);
    {   /* the spectrum is left as it was */
        float *again = (float *)malloc(hcnt * 8);
        assert_int_equal(hst_array_read(xc, again, hcnt * 8), HST_SUCCESS);
        assert_memory_equal(again, hs, hcnt * 8);
        free(again);
    }
    hst_array_destroy(xr); hst_array_destroy(xc); hst_array_destroy(xr2);
    free(x); free(hs); free(xo); free(full); free(half); free(back);
}

static void test_r2c_c2r(void **state) {
    size_t i;
    for (i = 0; i < sizeof R2C_CASES / sizeof R2C_CASES[0]; i++)
        check_r2c_c2r(BE(state), &R2C_CASES[i], HST_FFT_NORM_BACKWARD);
    check_r2c_c2r(BE(state), &R2C_CASES[2], HST_FFT_NORM_ORTHO);
    check_r2c_c2r(BE(state), &R2C_CASES[2], HST_FFT_NORM_FORWARD);
}

/* ------------------------------------------------------------------------------------------
   Round trips: ifft(fft(x)) == x for each norm (c2c in place, r2c then c2r). */
static void test_round_trips(void **state) {
    hst_backend *be = BE(state);
    const fcase *c = &C2C_CASES[6], *r = &R2C_CASES[3];
    size_t cnt = c->batch * total(c), rc = r->batch * total(r), i;
    float *h = (float *)malloc(cnt * 8), *o = (float *)malloc(cnt * 8);
    double *ref = (double *)malloc(cnt * 16);
    hst_array *x = mk(be, HST_C64, c, c->n[0]), *xr = mk(be, HST_F32, r, r->n[0]);
    hst_array *xh = mk(be, HST_C64, r, bins(r));
    uint64_t s = 77;
    int norm;
    for (i = 0; i < 2 * cnt; i++) { h[i] = (float)unit(&s); ref[i] = h[i]; }
    for (norm = 0; norm < 3; norm++) {
        assert_int_equal(hst_array_write(x, h, cnt * 8), HST_SUCCESS);
        assert_int_equal(hst_array_fft(x, x, c->axes, 0, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_fft(x, x, c->axes, 1, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_read(x, o, cnt * 8), HST_SUCCESS);
        expect_close(o, ref, cnt, 1, total(c), "c2c round trip");

        assert_int_equal(hst_array_write(xr, h, rc * 4), HST_SUCCESS);
        for (i = 0; i < rc; i++) ref[2 * i] = h[i];
        assert_int_equal(hst_array_fft(xh, xr, r->axes, 0, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_fft(xr, xh, r->axes, 1, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_read(xr, o, rc * 4), HST_SUCCESS);
        expect_close(o, ref, rc, 0, total(r), "r2c/c2r round trip");
        for (i = 0; i < 2 * cnt; i++) ref[i] = h[i];
    }
    hst_array_destroy(x); hst_array_destroy(xr); hst_array_destroy(xh);
    free(h); free(o); free(ref);
}

/* ------------------------------------------------------------------------------------------
   Plans: one per (kind, direction, lengths, batch); a repeated call makes none. */
static void test_plan_reuse(void **state) {
    hst_backend *be = BE(state);
    fcase c = {2, 3, {4, 6, 1}}, d = {2, 2, {4, 6, 1}};
    hst_array *x = mk(be, HST_C64, &c, 4), *y = mk(be, HST_C64, &c, 4), *z = mk(be, HST_C64, &d, 4);
    size_t before;
    assert_int_equal(hst_array_zeros(x), HST_SUCCESS);
    assert_int_equal(hst_array_zeros(z), HST_SUCCESS);
    before = hst_fft_plan_count(be);
    assert_int_equal(hst_array_fft(y, x, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_int_equal(hst_fft_plan_count(be), before + 1);
    assert_int_equal(hst_array_fft(y, x, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);  /* norm: no plan */
    assert_int_equal(hst_array_fft(x, y, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_int_equal(hst_fft_plan_count(be), before + 1);
    assert_int_equal(hst_array_fft(z, z, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);  /* batch */
    assert_true(hst_fft_plan_count(be) == before + 2);
    assert_int_equal(hst_array_fft(z, z, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_true(hst_fft_plan_count(be) == before + 2);
    assert_true(hst_fft_built_in());
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(z);
}

/* ------------------------------------------------------------------------------------------
   Bad arguments: the code and the log item of each. */
#define EXPECT_ERR(call, code, item) do {                                                      \
        cap_reset(log);                                                                        \
        assert_int_equal((call), (code));                                                      \
        assert_int_equal(log->last_item, (item));                                              \
        assert_int_equal(log->last_level, HST_LOG_ERROR);                                      \
    } while (0)

static void test_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    fcase c = {2, 2, {8, 4, 1}};
    size_t sh1[1] = {8};
    hst_array *x = mk(be, HST_C64, &c, 8), *y = mk(be, HST_C64, &c, 8), *r = mk(be, HST_F32, &c, 8);
    hst_array *h = mk(be, HST_C64, &c, 5), *hbad = mk(be, HST_C64, &c, 4), *i32 = mk(be, HST_I32, &c, 8);
    hst_array *small = mk(be, HST_C64, &c, 4), *v = NULL;
    size_t before = hst_fft_plan_count(be);
    assert_int_equal(hst_array_create(be, HST_C64, 1, sh1, &v), HST_SUCCESS);

    /* a NULL array has no backend to log through: the default logger reports it */
    assert_int_equal(hst_array_fft(NULL, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_array_fft(y, NULL, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT);
    EXPECT_ERR(hst_array_fft(y, x, 0, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_fft(y, x, 4, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_fft(v, v, 2, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "axes"));
    EXPECT_ERR(hst_array_fft(y, x, 1, 0, (hst_fft_norm)3), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, "norm"));
    EXPECT_ERR(hst_array_fft(y, i32, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_fft(r, r, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_fft(h, r, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, "forward only"));
    EXPECT_ERR(hst_array_fft(r, h, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    EXPECT_ERR(hst_array_fft(small, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(hbad, r, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(r, hbad, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(v, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    assert_int_equal(hst_fft_plan_count(be), before);   /* nothing was planned */
    assert_string_equal(hst_result_string(HST_ERROR_NOT_BUILT_IN), "HST_ERROR_NOT_BUILT_IN");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_FFT_LIBRARY), "FFT_LIBRARY");
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(r); hst_array_destroy(h);
    hst_array_destroy(hbad); hst_array_destroy(i32); hst_array_destroy(small); hst_array_destroy(v);
}

/* ------------------------------------------------------------------------------------------
   hst_array_fftn: numpy.fft's `s` and `axes`. The reference follows NumPy's definition step by
   step on complex doubles of up to 3 axes: crop or zero-pad each transformed axis at its end
   to s, a direct DFT along each (c2r: the Hermitian extension of the last one's bins, real
   part), r2c keeping s / 2 + 1 bins of the last axis of `axes`; the same norm tolerance. */
typedef struct nd { unsigned ndim; size_t sh[3]; double *z; } nd;   /* complex doubles, C order */

static size_t nd_count(const nd *a) { size_t n = 1; unsigned i; for (i = 0; i < a->ndim; i++) n *= a->sh[i]; return n; }
static size_t nd_stride(const nd *a, unsigned ax) { size_t s = 1; unsigned i; for (i = ax + 1; i < a->ndim; i++) s *= a->sh[i]; return s; }

/* a with axis ax cropped or zero-padded to len (frees a's data). */
static nd nd_resize(nd a, unsigned ax, size_t len) {
    nd b = a;
    size_t i, outer, inner = nd_stride(&a, ax), k;
    b.sh[ax] = len;
    b.z = (double *)calloc(2 * nd_count(&b), sizeof(double));
    assert_non_null(b.z);
    outer = nd_count(&a) / (a.sh[ax] * inner);
    for (i = 0; i < outer; i++)
        for (k = 0; k < len && k < a.sh[ax]; k++)
            memcpy(b.z + 2 * ((i * len + k) * inner), a.z + 2 * ((i * a.sh[ax] + k) * inner), 2 * inner * sizeof(double));
    free(a.z);
    return b;
}

static void nd_dft(nd *a, unsigned ax, int inverse) {
    size_t inner = nd_stride(a, ax), n = a->sh[ax], outer = nd_count(a) / (n * inner), o, j;
    double *tmp = (double *)malloc(2 * n * sizeof(double));
    assert_non_null(tmp);
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) dft_line(a->z + 2 * (o * n * inner + j), n, inner, inverse, tmp);
    free(tmp);
}

/* c2r along ax: bins m -> n real values (as complex with im 0): the Hermitian extension
   X[k] = conj(X[n - k]) for k > n / 2, an inverse DFT, the real part (as numpy.fft.irfft). */
static nd nd_c2r(nd a, unsigned ax, size_t n) {
    size_t inner = nd_stride(&a, ax), outer, o, j, k, m = a.sh[ax];
    nd b = nd_resize(a, ax, n);   /* bins 0..m-1 kept, the rest zero */
    outer = nd_count(&b) / (n * inner);
    (void)m;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            double *z = b.z + 2 * (o * n * inner + j);
            for (k = n / 2 + 1; k < n; k++) { z[2 * k * inner] = z[2 * (n - k) * inner]; z[2 * k * inner + 1] = -z[2 * (n - k) * inner + 1]; }
        }
    nd_dft(&b, ax, 1);
    for (k = 0; k < nd_count(&b); k++) b.z[2 * k + 1] = 0.0;
    return b;
}

typedef struct ncase {
    hst_dtype in, out;
    unsigned ndim; size_t sh[3];
    unsigned naxes, axes[3]; size_t s[3];
    int inverse; hst_fft_norm norm;
} ncase;

static void check_fftn(hst_backend *be, const ncase *c) {
    nd a;
    size_t cnt, i, n_total = 1, dsh[3];
    unsigned k, last = c->axes[c->naxes - 1];
    float *h, *got;
    hst_array *x, *y;
    double f;
    char what[160];
    a.ndim = c->ndim;
    memcpy(a.sh, c->sh, sizeof a.sh);
    cnt = nd_count(&a);
    a.z = (double *)calloc(2 * cnt, sizeof(double));
    h = (float *)malloc(2 * cnt * sizeof(float));
    assert_non_null(a.z); assert_non_null(h);
    {
        uint64_t s = 0x1234567ULL + cnt;
        int cplx = c->in == HST_C64;
        for (i = 0; i < cnt; i++) {
            h[cplx ? 2 * i : i] = (float)unit(&s);
            if (cplx) h[2 * i + 1] = (float)unit(&s);
            a.z[2 * i] = h[cplx ? 2 * i : i];
            a.z[2 * i + 1] = cplx ? h[2 * i + 1] : 0.0;
        }
        if (cplx && c->out == HST_F32) {   /* c2r: bin 0 (and n/2, within the bins) real, as rfft's */
            size_t inner = nd_stride(&a, last), m = c->sh[last];
            for (i = 0; i < cnt; i++) {
                size_t b = i / inner % m;
                if (b == 0 || (c->s[c->naxes - 1] % 2 == 0 && b == c->s[c->naxes - 1] / 2)) { h[2 * i + 1] = 0.0f; a.z[2 * i + 1] = 0.0; }
            }
        }
    }
    assert_int_equal(hst_array_create(be, c->in, c->ndim, c->sh, &x), HST_SUCCESS);
    assert_int_equal(hst_array_write(x, h, hst_array_bytes(x)), HST_SUCCESS);
    /* NumPy: the non-real axes first (crop/pad, transform), then the real one */
    for (k = 0; k < c->naxes; k++) {
        unsigned ax = c->axes[k];
        n_total *= c->s[k];
        if (c->out == HST_F32 && ax == last) continue;
        a = nd_resize(a, ax, c->s[k]);
        nd_dft(&a, ax, c->inverse);
    }
    if (c->out == HST_F32) a = nd_c2r(nd_resize(a, last, c->s[c->naxes - 1] / 2 + 1), last, c->s[c->naxes - 1]);
    if (c->in == HST_F32) a = nd_resize(a, last, c->s[c->naxes - 1] / 2 + 1);   /* r2c keeps the bins */
    f = c->norm == HST_FFT_NORM_ORTHO ? 1.0 / sqrt((double)n_total)
      : (c->norm == HST_FFT_NORM_BACKWARD) == (c->inverse != 0) ? 1.0 / (double)n_total : 1.0;
    for (i = 0; i < 2 * nd_count(&a); i++) a.z[i] *= f;
    memcpy(dsh, a.sh, sizeof dsh);
    assert_int_equal(hst_array_create(be, c->out, c->ndim, dsh, &y), HST_SUCCESS);
    assert_int_equal(hst_array_fftn(y, x, c->naxes, c->axes, c->s, c->inverse, c->norm), HST_SUCCESS);
    got = (float *)malloc(hst_array_bytes(y));
    assert_non_null(got);
    assert_int_equal(hst_array_read(y, got, hst_array_bytes(y)), HST_SUCCESS);
    snprintf(what, sizeof what, "fftn %s->%s (%zu,%zu,%zu) axes %u [%u %u] s [%zu %zu]", hst_dtype_name(c->in),
             hst_dtype_name(c->out), c->sh[0], c->sh[1], c->sh[2], c->naxes, c->axes[0], c->axes[1], c->s[0], c->s[1]);
    expect_close(got, a.z, nd_count(&a), c->out == HST_C64, n_total, what);
    assert_int_equal(hst_array_read(x, got, hst_array_bytes(x)), HST_SUCCESS);   /* src unchanged */
    assert_memory_equal(got, h, hst_array_bytes(x));
    free(got); free(h); free(a.z);
    hst_array_destroy(x); hst_array_destroy(y);
}

static const ncase FFTN_CASES[] = {
    /* c2c over axes 0 and 2, padding 4 -> 8 and cropping 5 -> 3 */
    {HST_C64, HST_C64, 3, {4, 6, 5}, 2, {0, 2}, {8, 3}, 0, HST_FFT_NORM_BACKWARD},
    /* ifft(x, n=9, axis=1), ortho */
    {HST_C64, HST_C64, 3, {4, 6, 5}, 1, {1}, {9}, 1, HST_FFT_NORM_ORTHO},
    /* the axes in reverse order: the last of `axes` (0) is the one r2c halves */
    {HST_F32, HST_C64, 3, {5, 4, 6}, 2, {2, 0}, {3, 8}, 0, HST_FFT_NORM_BACKWARD},
    /* rfft(x, n=7, axis=0) */
    {HST_F32, HST_C64, 2, {6, 5}, 1, {0}, {7}, 0, HST_FFT_NORM_FORWARD},
    /* irfft(X, n=10, axis=0): 4 bins padded to 6 */
    {HST_C64, HST_F32, 2, {4, 3}, 1, {0}, {10}, 1, HST_FFT_NORM_BACKWARD},
    /* the last axes, s = the extents: hst_array_fft's own path */
    {HST_C64, HST_C64, 3, {3, 8, 5}, 2, {1, 2}, {8, 5}, 0, HST_FFT_NORM_BACKWARD}
};

static void test_fftn(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t i, sh[2] = {3, 5}, bad[2] = {3, 6}, s0 = 0, s8 = 8, o8[2] = {3, 8};
    unsigned rep[2] = {1, 1}, out_of[1] = {2};
    hst_array *x, *y, *r;
    for (i = 0; i < sizeof FFTN_CASES / sizeof FFTN_CASES[0]; i++) check_fftn(be, &FFTN_CASES[i]);
    /* defaults: axes NULL = the last naxes, s NULL = src's extents (c2r: 2 (m - 1)) */
    assert_int_equal(hst_array_create(be, HST_C64, 2, sh, &x), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, sh, &y), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, o8, &r), HST_SUCCESS);
    assert_int_equal(hst_array_zeros(x), HST_SUCCESS);
    assert_int_equal(hst_array_fftn(y, x, 2, NULL, NULL, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_int_equal(hst_array_fftn(r, x, 1, NULL, NULL, 1, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    EXPECT_ERR(hst_array_fftn(y, x, 2, rep, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "axes[1]"));
    EXPECT_ERR(hst_array_fftn(y, x, 1, out_of, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_fftn(y, x, 1, NULL, &s0, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    EXPECT_ERR(hst_array_fftn(y, x, 1, NULL, &s8, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fftn(y, x, 0, NULL, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_fftn(r, r, 1, NULL, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    hst_array_destroy(r);
    assert_int_equal(hst_array_create(be, HST_C64, 2, bad, &r), HST_SUCCESS);
    EXPECT_ERR(hst_array_fftn(r, x, 2, NULL, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c2c),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_r2c_c2r),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_plan_reuse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fftn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
