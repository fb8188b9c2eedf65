/* test_fft.c — array.h's FFTs (built with HST_FFT): FFTW on the host device, VkFFT on
   OpenCL devices, one semantics (numpy.fft's).

   Runs once per device (HST_DEVICE=host, HST_DEVICE=P:D ...), in single (c64, f32) and double
   (c128, f64) precision. Every transform is compared with a direct DFT computed here in long
   double (separable: a direct O(n^2) sum along each transformed axis, twiddles
   exp(-+2 pi i (j k mod n) / n), stored as doubles between axes: 2^-53 relative per axis).
   Tolerance, in ulps of the transform's norm: ||got - ref||_2 <= FFT_ULPS * log2(2N) * eps *
   ||ref||_2, with eps the precision's unit roundoff (2^-24 for f32, 2^-53 for f64: about
   8e-15 relative for N = 100) and N the transform's size; an FFT's error grows as eps log2 N
   (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 24.1), so a
   wrong twiddle, bin or scale (errors of order ||ref||), or a double transform computed in
   float (errors of order 2^-24), cannot pass, and rounding can. On an OpenCL device the host
   device's transforms (FFTW) must agree with the device's (VkFFT) within twice that bound.
   Sizes include 1, odd and even sizes, primes (7, 13, 97: VkFFT's Bluestein path) and powers
   of 2. The host device's large transforms, which run in pieces on its cores, are compared
   with FFTW's one plan of the whole transform, bit for bit. On a device without fp64 the
   double precision cases check that c128 arrays are refused (HST_ERROR_DTYPE naming c128)
   instead. */
#define HST_IMPLEMENTATION
#define HST_FFT
/* OpenCL calls through tests/reliability/cl_hooks.h's wrappers (VkFFT's too: vkFFT.h is
   included below them), so a test can fail the k-th one: a VkFFT refusal, an out-of-memory. */
#if !defined(HST_NO_OPENCL) && !defined(__APPLE__)
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#  include "reliability/cl_hooks.h"
#endif
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
#define TWO_PI 6.283185307179586476925286766559L

/* ------------------------------------------------------------------------------------------
   Fixture: one backend for the group (VkFFT plans are costly to make on a CPU device). */
#include "be_fixture.h"

/* A precision: complex and real dtypes, the real element size, the unit roundoff. */
typedef struct prec { hst_dtype cplx, real; size_t rsize; double eps; } prec;
static const prec PRECS[2] = {{HST_C64, HST_F32, 4, 1.0 / 16777216.0},
                              {HST_C128, HST_F64, 8, 1.0 / 9007199254740992.0}};
#define NPRECS (sizeof PRECS / sizeof PRECS[0])

/* Host arrays of p's real type (a complex element is two of them), read and written as double. */
static double get(const prec *p, const void *b, size_t i) {
    return p->rsize == 8 ? ((const double *)b)[i] : (double)((const float *)b)[i];
}
static void put(const prec *p, void *b, size_t i, double v) {
    if (p->rsize == 8) ((double *)b)[i] = v;
    else ((float *)b)[i] = (float)v;
}

/* 1 when the device runs p's transforms; on a device without fp64, double precision's arrays
   are refused with the dtype named (and the caller skips p). */
static int runs(void **state, const prec *p) {
    hst_array *a = NULL;
    size_t n = 4;
    if (!hst_dtype_needs_fp64(p->cplx) || hst_backend_device(BE(state))->fp64) return 1;
    cap_reset(LOG(state));
    assert_int_equal(hst_array_create(BE(state), p->cplx, 1, &n, &a), HST_ERROR_DTYPE);
    assert_int_equal(LOG(state)->last_item, HST_LOGITEM_DTYPE);
    assert_non_null(strstr(LOG(state)->last_message, hst_dtype_name(p->cplx)));
    assert_null(a);
    return 0;
}

/* A transform: `axes` transformed lengths n[] fastest first (n[0] = the last axis), over
   `batch` leading elements (one leading axis). */
typedef struct fcase { unsigned axes; size_t batch, n[3]; } fcase;

static size_t total(const fcase *c) { return c->n[0] * c->n[1] * c->n[2]; }
static size_t bins(const fcase *c) { return c->n[0] / 2 + 1; }

/* The last extent of a transform's array of dtype dt whose other side is of dtype other: the
   complex side of r2c and c2r holds the bins. */
static size_t last_of(const fcase *c, hst_dtype dt, hst_dtype other) {
    return hst_dtype_is_complex(dt) && !hst_dtype_is_complex(other) ? bins(c) : c->n[0];
}

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

/* Deterministic inputs in [-1, 1) (xorshift64*), exact in p's real type. */
static double unit(const prec *p, uint64_t *s) {
    uint64_t x = *s;
    double u;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    u = (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    return p->rsize == 8 ? u : (double)(float)u;
}

/* ------------------------------------------------------------------------------------------
   The reference: z holds batch * n[2] * n[1] * n[0] complex doubles (re, im), C order with
   n[0] fastest; each transformed axis gets a direct DFT in place. */
static void dft_line(double *z, size_t n, size_t stride, int inverse, double *tmp) {
    size_t j, k;
    long double sign = inverse ? 1.0L : -1.0L;
    for (k = 0; k < n; k++) {
        long double re = 0.0L, im = 0.0L;
        for (j = 0; j < n; j++) {
            long double a = sign * TWO_PI * (long double)((j * k) % n) / (long double)n;
            long double xr = z[2 * j * stride], xi = z[2 * j * stride + 1];
            re += xr * cosl(a) - xi * sinl(a);
            im += xr * sinl(a) + xi * cosl(a);
        }
        tmp[2 * k] = (double)re; tmp[2 * k + 1] = (double)im;
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

/* ||got - ref||_2 <= ulps * FFT_ULPS * log2(2 N) * eps ||ref||_2; got is count elements (pairs
   when complex_) of p's real type, ref complex doubles (their real parts when !complex_). */
static void expect_within(const prec *p, const void *got, const double *ref, size_t count,
                          int complex_, size_t n_total, double ulps, const char *what) {
    double err = 0.0, norm = 0.0, tol;
    size_t i, m = complex_ ? 2 * count : count;
    for (i = 0; i < m; i++) {
        double v = ref[complex_ ? i : 2 * i], d = get(p, got, i) - v;
        err += d * d;
        norm += v * v;
    }
    tol = ulps * FFT_ULPS * log2(2.0 * (double)n_total) * p->eps * sqrt(norm);
    if (!(sqrt(err) <= tol)) {
        print_error("%s %s: ||err|| = %.3g > %.3g (= %.3g ulps of ||ref|| = %.3g)\n",
                    hst_dtype_name(p->cplx), what, sqrt(err), tol, sqrt(err) / (p->eps * sqrt(norm)),
                    sqrt(norm));
        fail();
    }
}

/* Against the direct DFT: the bound above. */
static void expect_close(const prec *p, const void *got, const double *ref, size_t count,
                         int complex_, size_t n_total, const char *what) {
    expect_within(p, got, ref, count, complex_, n_total, 1.0, what);
}

static double norm_factor(const fcase *c, hst_fft_norm norm, int inverse) {
    double n = (double)total(c);
    if (norm == HST_FFT_NORM_ORTHO) return 1.0 / sqrt(n);
    if ((norm == HST_FFT_NORM_BACKWARD) == (inverse != 0)) return 1.0 / n;
    return 1.0;
}

/* ------------------------------------------------------------------------------------------
   c2c against the reference, forward and inverse (and in place for the inverse). */
static void check_c2c(hst_backend *be, const prec *p, const fcase *c, int inverse,
                      hst_fft_norm norm, int in_place) {
    size_t cnt = c->batch * total(c), cb = cnt * 2 * p->rsize, i;
    void *h = malloc(cb), *out = malloc(cb);
    double *ref = (double *)malloc(cnt * 16), f = norm_factor(c, norm, inverse);
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ cnt;
    hst_array *x = mk(be, p->cplx, c, c->n[0]), *y = in_place ? x : mk(be, p->cplx, c, c->n[0]);
    char what[128];
    assert_non_null(h); assert_non_null(out); assert_non_null(ref);
    for (i = 0; i < 2 * cnt; i++) { ref[i] = unit(p, &s); put(p, h, i, ref[i]); }
    ref_dft(ref, c, inverse);
    for (i = 0; i < 2 * cnt; i++) ref[i] *= f;
    assert_int_equal(hst_array_write(x, h, cb), HST_SUCCESS);
    assert_int_equal(hst_array_fft(y, x, c->axes, inverse, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(y, out, cb), HST_SUCCESS);
    snprintf(what, sizeof what, "c2c %uD n=(%zu,%zu,%zu) batch %zu %s norm %d%s", c->axes,
             c->n[0], c->n[1], c->n[2], c->batch, inverse ? "inverse" : "forward", (int)norm,
             in_place ? " in place" : "");
    expect_close(p, out, ref, cnt, 1, total(c), what);
    if (!in_place) {   /* src is left as it was */
        assert_int_equal(hst_array_read(x, out, cb), HST_SUCCESS);
        assert_memory_equal(out, h, cb);
        hst_array_destroy(y);
    }
    hst_array_destroy(x);
    free(h); free(out); free(ref);
}

static const fcase C2C_CASES[] = {
    {1, 3, {1, 1, 1}}, {1, 2, {2, 1, 1}}, {1, 3, {7, 1, 1}}, {1, 2, {16, 1, 1}},
    {1, 1, {97, 1, 1}}, {2, 2, {8, 5, 1}}, {2, 1, {12, 13, 1}}, {3, 2, {5, 6, 4}},
    {3, 1, {9, 3, 7}}
};

static void test_c2c(void **state) {
    size_t i, k;
    for (k = 0; k < NPRECS; k++) {
        if (!runs(state, &PRECS[k])) continue;
        for (i = 0; i < sizeof C2C_CASES / sizeof C2C_CASES[0]; i++) {
            check_c2c(BE(state), &PRECS[k], &C2C_CASES[i], 0, HST_FFT_NORM_BACKWARD, 0);
            check_c2c(BE(state), &PRECS[k], &C2C_CASES[i], 1, HST_FFT_NORM_BACKWARD, 1);
        }
    }
}

/* Every norm mode scales as NumPy's, both directions (the plans of test_c2c are reused). */
static void test_norms(void **state) {
    int norm, inv;
    size_t k;
    for (k = 0; k < NPRECS; k++) {
        if (!runs(state, &PRECS[k])) continue;
        for (norm = HST_FFT_NORM_BACKWARD; norm <= HST_FFT_NORM_FORWARD; norm++)
            for (inv = 0; inv < 2; inv++)
                check_c2c(BE(state), &PRECS[k], &C2C_CASES[5], inv, (hst_fft_norm)norm, inv);
    }
}

/* ------------------------------------------------------------------------------------------
   r2c: the first n/2+1 bins of the full DFT of the real input. c2r: the real part of the
   inverse DFT of the Hermitian extension of a real signal's half spectrum. */
static const fcase R2C_CASES[] = {
    {1, 3, {8, 1, 1}}, {1, 2, {7, 1, 1}}, {2, 2, {10, 6, 1}}, {2, 1, {9, 5, 1}}, {3, 1, {6, 4, 3}},
    {3, 2, {5, 3, 7}}
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

static void check_r2c_c2r(hst_backend *be, const prec *p, const fcase *c, hst_fft_norm norm) {
    size_t cnt = c->batch * total(c), hcnt = cnt / c->n[0] * bins(c), i;
    size_t rb = cnt * p->rsize, hb = hcnt * 2 * p->rsize;
    void *x = malloc(rb), *hs = malloc(hb), *xo = malloc(rb), *again = malloc(hb);
    double *full = (double *)calloc(2 * cnt, sizeof(double)), *half = (double *)malloc(hcnt * 16);
    double *back = (double *)calloc(2 * cnt, sizeof(double));
    uint64_t s = 0x51ed270b27f1d2a3ULL ^ cnt;
    hst_array *xr = mk(be, p->real, c, c->n[0]), *xc = mk(be, p->cplx, c, bins(c));
    hst_array *xr2 = mk(be, p->real, c, c->n[0]);
    char what[128];
    double f = norm_factor(c, norm, 0), g = norm_factor(c, norm, 1);
    assert_non_null(x); assert_non_null(hs); assert_non_null(xo); assert_non_null(again);
    assert_non_null(full); assert_non_null(half); assert_non_null(back);
    for (i = 0; i < cnt; i++) { full[2 * i] = unit(p, &s); put(p, x, i, full[2 * i]); }
    ref_dft(full, c, 0);
    half_of(full, c, half);
    for (i = 0; i < 2 * hcnt; i++) half[i] *= f;
    snprintf(what, sizeof what, "%uD n=(%zu,%zu,%zu) batch %zu norm %d", c->axes, c->n[0],
             c->n[1], c->n[2], c->batch, (int)norm);

    assert_int_equal(hst_array_write(xr, x, rb), HST_SUCCESS);
    assert_int_equal(hst_array_fft(xc, xr, c->axes, 0, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(xc, hs, hb), HST_SUCCESS);
    expect_close(p, hs, half, hcnt, 1, total(c), what);

    /* c2r of the device's spectrum: the reference inverts its Hermitian extension (the full
       spectrum above, scaled like it) and must give x back times f * g * N */
    for (i = 0; i < 2 * cnt; i++) back[i] = full[i] * f;
    ref_dft(back, c, 1);
    for (i = 0; i < 2 * cnt; i++) back[i] *= g;
    assert_int_equal(hst_array_fft(xr2, xc, c->axes, 1, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(xr2, xo, rb), HST_SUCCESS);
    expect_close(p, xo, back, cnt, 0, total(c), what);
    /* the spectrum is left as it was */
    assert_int_equal(hst_array_read(xc, again, hb), HST_SUCCESS);
    assert_memory_equal(again, hs, hb);
    hst_array_destroy(xr); hst_array_destroy(xc); hst_array_destroy(xr2);
    free(x); free(hs); free(xo); free(again); free(full); free(half); free(back);
}

static void test_r2c_c2r(void **state) {
    size_t i, k;
    for (k = 0; k < NPRECS; k++) {
        const prec *p = &PRECS[k];
        if (!runs(state, p)) continue;
        for (i = 0; i < sizeof R2C_CASES / sizeof R2C_CASES[0]; i++)
            check_r2c_c2r(BE(state), p, &R2C_CASES[i], HST_FFT_NORM_BACKWARD);
        check_r2c_c2r(BE(state), p, &R2C_CASES[2], HST_FFT_NORM_ORTHO);
        check_r2c_c2r(BE(state), p, &R2C_CASES[2], HST_FFT_NORM_FORWARD);
    }
}

/* ------------------------------------------------------------------------------------------
   Round trips: ifft(fft(x)) == x for each norm (c2c in place, r2c then c2r). */
static void round_trips(hst_backend *be, const prec *p) {
    const fcase *c = &C2C_CASES[6], *r = &R2C_CASES[3];
    size_t cnt = c->batch * total(c), rc = r->batch * total(r), i;
    void *h = malloc(cnt * 2 * p->rsize), *hr = malloc(rc * p->rsize), *o = malloc(cnt * 2 * p->rsize);
    double *ref = (double *)malloc(cnt * 16), *rref = (double *)calloc(2 * rc, sizeof(double));
    hst_array *x = mk(be, p->cplx, c, c->n[0]), *xr = mk(be, p->real, r, r->n[0]);
    hst_array *xh = mk(be, p->cplx, r, bins(r));
    uint64_t s = 77;
    int norm;
    assert_non_null(h); assert_non_null(hr); assert_non_null(o); assert_non_null(ref); assert_non_null(rref);
    for (i = 0; i < 2 * cnt; i++) { ref[i] = unit(p, &s); put(p, h, i, ref[i]); }
    for (i = 0; i < rc; i++) { rref[2 * i] = unit(p, &s); put(p, hr, i, rref[2 * i]); }
    for (norm = 0; norm < 3; norm++) {
        assert_int_equal(hst_array_write(x, h, hst_array_bytes(x)), HST_SUCCESS);
        assert_int_equal(hst_array_fft(x, x, c->axes, 0, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_fft(x, x, c->axes, 1, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_read(x, o, hst_array_bytes(x)), HST_SUCCESS);
        expect_close(p, o, ref, cnt, 1, total(c), "c2c round trip");

        assert_int_equal(hst_array_write(xr, hr, hst_array_bytes(xr)), HST_SUCCESS);
        assert_int_equal(hst_array_fft(xh, xr, r->axes, 0, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_fft(xr, xh, r->axes, 1, (hst_fft_norm)norm), HST_SUCCESS);
        assert_int_equal(hst_array_read(xr, o, hst_array_bytes(xr)), HST_SUCCESS);
        expect_close(p, o, rref, rc, 0, total(r), "r2c/c2r round trip");
    }
    hst_array_destroy(x); hst_array_destroy(xr); hst_array_destroy(xh);
    free(h); free(hr); free(o); free(ref); free(rref);
}

static void test_round_trips(void **state) {
    size_t k;
    for (k = 0; k < NPRECS; k++)
        if (runs(state, &PRECS[k])) round_trips(BE(state), &PRECS[k]);
}

/* ------------------------------------------------------------------------------------------
   Plans: one per (precision, kind, direction, lengths, batch), so a repeated call makes none;
   on a GPU up to one per VkFFT configuration the choice measures for them (fewer where the
   timings file already knows the shape). */
#ifdef HST_NO_OPENCL
#  define PLANS_A_SHAPE_ON_GPUS 1
#else
#  define PLANS_A_SHAPE_ON_GPUS HST__FFT_VARIANTS
#endif
static void expect_plans(hst_backend *be, size_t before, size_t keys) {
    size_t most = hst_backend_device(be)->type == HST_DEVICE_GPU ? PLANS_A_SHAPE_ON_GPUS : 1;
    size_t now = hst_fft_plan_count(be);
    assert_true(now >= before + keys && now <= before + keys * most);
}

static void test_plan_reuse(void **state) {
    hst_backend *be = BE(state);
    fcase c = {2, 3, {4, 6, 1}}, d = {2, 2, {4, 6, 1}};
    hst_array *x = mk(be, HST_C64, &c, 4), *y = mk(be, HST_C64, &c, 4), *z = mk(be, HST_C64, &d, 4);
    hst_array *w = NULL;
    size_t before;
    assert_int_equal(hst_array_zeros(x), HST_SUCCESS);
    assert_int_equal(hst_array_zeros(z), HST_SUCCESS);
    before = hst_fft_plan_count(be);
    assert_int_equal(hst_array_fft(y, x, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_plans(be, before, 1);
    assert_int_equal(hst_array_fft(y, x, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);  /* norm: no plan */
    assert_int_equal(hst_array_fft(x, y, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_plans(be, before, 1);
    assert_int_equal(hst_array_fft(z, z, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);  /* batch */
    expect_plans(be, before, 2);
    assert_int_equal(hst_array_fft(z, z, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_plans(be, before, 2);
    if (runs(state, &PRECS[1])) {   /* the same lengths in double precision: a plan of its own */
        w = mk(be, HST_C128, &d, 4);
        assert_int_equal(hst_array_zeros(w), HST_SUCCESS);
        assert_int_equal(hst_array_fft(w, w, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
        expect_plans(be, before, 3);
        assert_int_equal(hst_array_fft(w, w, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
        expect_plans(be, before, 3);
    }
    assert_true(hst_fft_built_in());
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(z); hst_array_destroy(w);
}

/* ------------------------------------------------------------------------------------------
   On an OpenCL device, the host device (FFTW) and the device (VkFFT) agree within twice the
   reference bound (each is within it of the exact transform): c2c 3-D, r2c, and c2r of the
   host's spectrum (Hermitian, as c2r needs). Skipped on the host device (as test_mri's
   test_agrees_with_host). */
static void *fft_on(hst_backend *be, hst_dtype in, hst_dtype out, const fcase *c, int inverse,
                    hst_fft_norm norm, int in_place, const void *x) {
    hst_array *a = mk(be, in, c, last_of(c, in, out));
    hst_array *b = in_place ? a : mk(be, out, c, last_of(c, out, in));
    void *y = malloc(hst_array_bytes(b));
    assert_non_null(y);
    assert_int_equal(hst_array_write(a, x, hst_array_bytes(a)), HST_SUCCESS);
    assert_int_equal(hst_array_fft(b, a, c->axes, inverse, norm), HST_SUCCESS);
    assert_int_equal(hst_array_read(b, y, hst_array_bytes(b)), HST_SUCCESS);
    if (!in_place) hst_array_destroy(b);
    hst_array_destroy(a);
    return y;
}

/* y (count elements of p's real type, from the device) within 2 bounds of ref (the host's). */
static void expect_agree(const prec *p, const void *y, const void *ref, size_t count,
                         size_t n_total, const char *what) {
    double *r = (double *)calloc(2 * count, sizeof(double));
    size_t i;
    assert_non_null(r);
    for (i = 0; i < count; i++) r[2 * i] = get(p, ref, i);
    expect_within(p, y, r, count, 0, n_total, 2.0, what);
    free(r);
}

static void host_agrees(hst_backend *be, hst_backend *host, const prec *p) {
    const fcase c = {3, 2, {6, 5, 3}};
    size_t cnt = c.batch * total(&c), hcnt = cnt / c.n[0] * bins(&c), i;
    void *x = malloc(cnt * 2 * p->rsize), *yh, *yd, *zh, *zd;
    uint64_t s = 5;
    assert_non_null(x);
    for (i = 0; i < 2 * cnt; i++) put(p, x, i, unit(p, &s));
    yh = fft_on(host, p->cplx, p->cplx, &c, 0, HST_FFT_NORM_ORTHO, 0, x);
    yd = fft_on(be, p->cplx, p->cplx, &c, 0, HST_FFT_NORM_ORTHO, 0, x);
    expect_agree(p, yd, yh, 2 * cnt, total(&c), "host vs device c2c");
    free(yh); free(yd);
    yh = fft_on(host, p->real, p->cplx, &c, 0, HST_FFT_NORM_ORTHO, 0, x);
    yd = fft_on(be, p->real, p->cplx, &c, 0, HST_FFT_NORM_ORTHO, 0, x);
    expect_agree(p, yd, yh, 2 * hcnt, total(&c), "host vs device r2c");
    zh = fft_on(host, p->cplx, p->real, &c, 1, HST_FFT_NORM_ORTHO, 0, yh);
    zd = fft_on(be, p->cplx, p->real, &c, 1, HST_FFT_NORM_ORTHO, 0, yh);
    expect_agree(p, zd, zh, cnt, total(&c), "host vs device c2r");
    free(yh); free(yd); free(zh); free(zd); free(x);
}

static void test_host_agrees(void **state) {
    hst_backend_desc desc = cap_desc(LOG(state));
    hst_backend *host = NULL;
    size_t k;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* nothing to compare with */
    desc.device = "host";
    assert_int_equal(hst_backend_create(&desc, &host), HST_SUCCESS);
    for (k = 0; k < NPRECS; k++)
        if (runs(state, &PRECS[k])) host_agrees(BE(state), host, &PRECS[k]);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* Every VkFFT configuration that hst_array_fft chooses among on an OpenCL device (array.h's
   hst__fft_variants) agrees with the host device's FFTW, as the chosen one does: each run on a
   backend of the device whose array_fft operations are registered forced to it before any
   transform (c2c, r2c and c2r, both precisions). */
#ifndef HST_NO_OPENCL
static void test_variants_agree(void **state) {
    static const int kinds[3] = {HST__FFT_C2C, HST__FFT_R2C, HST__FFT_C2R};
    hst_backend_desc desc = cap_desc(LOG(state)), hdesc = cap_desc(LOG(state));
    hst_backend *host = NULL, *be = NULL;
    unsigned v, k, j;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* FFTW there: no variants */
    hdesc.device = "host";
    desc.device = hst_backend_device(BE(state))->selector;
    assert_int_equal(hst_backend_create(&hdesc, &host), HST_SUCCESS);
    for (v = 0; v < HST__FFT_VARIANTS; v++) {
        assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
        for (k = 0; k < 3; k++)
            for (j = 0; j < NPRECS; j++) {
                hst__fft_key key;
                hst_choice_op *op = NULL;
                memset(&key, 0, sizeof key);
                key.kind = kinds[k];
                key.cplx = PRECS[j].cplx;
                assert_int_equal(hst__fft_op(be, &key, hst__fft_variants[v].name, &op), HST_SUCCESS);
            }
        for (j = 0; j < NPRECS; j++)
            if (runs(state, &PRECS[j])) host_agrees(be, host, &PRECS[j]);
        assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    }
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* A c2c transform driven below hst_array_fft, as a GPU's calls run it, on any OpenCL device:
   its arrays (a: the input, written; b: the output), the key hst_array_fft makes (variant 0),
   its operation (timings cleared: none from an earlier run), signature, and the host device's
   FFTW result to compare with. */
typedef struct driven {
    const prec *p;
    fcase c;
    hst_array *a, *b;
    hst__fft_key key;
    hst_choice_op *op;
    int64_t sig[HST__FFT_SIG];
    void *ref, *got;
} driven;

static void drive_open(hst_backend *be, cap_log *log, const prec *p, const fcase *c, driven *d) {
    hst_backend_desc hdesc = cap_desc(log);
    hst_backend *host = NULL;
    size_t cnt = c->batch * total(c), i;
    void *x = malloc(cnt * 2 * p->rsize);
    uint64_t seed = 9;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->c = *c;
    d->got = malloc(cnt * 2 * d->p->rsize);
    assert_non_null(x); assert_non_null(d->got);
    for (i = 0; i < 2 * cnt; i++) put(d->p, x, i, unit(d->p, &seed));
    hdesc.device = "host";
    assert_int_equal(hst_backend_create(&hdesc, &host), HST_SUCCESS);
    d->ref = fft_on(host, d->p->cplx, d->p->cplx, c, 0, HST_FFT_NORM_BACKWARD, 0, x);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
    d->a = mk(be, d->p->cplx, c, c->n[0]);
    d->b = mk(be, d->p->cplx, c, c->n[0]);
    assert_int_equal(hst_array_write(d->a, x, hst_array_bytes(d->a)), HST_SUCCESS);
    free(x);
    assert_int_equal(hst__fft_args("test", d->b, d->a, c->axes, 0, HST_FFT_NORM_BACKWARD, &d->key), HST_SUCCESS);
    d->key.in_place = 1;   /* as hst_array_fft's c2c on an OpenCL device */
    hst__fft_sig(&d->key, d->sig);
    assert_int_equal(hst__fft_op(be, &d->key, NULL, &d->op), HST_SUCCESS);
    assert_int_equal(hst_choice_clear(d->op), HST_SUCCESS);
}

/* b holds the transform of a. */
static void drive_check(driven *d, const char *what) {
    assert_int_equal(hst_array_read(d->b, d->got, hst_array_bytes(d->b)), HST_SUCCESS);
    expect_agree(d->p, d->got, d->ref, 2 * d->c.batch * total(&d->c), total(&d->c), what);
}

static void drive_stats(const driven *d, hst_choice_stat st[HST__FFT_VARIANTS]) {
    size_t n = 0;
    assert_int_equal(hst_choice_stats(d->op, d->sig, HST__FFT_SIG, st, HST__FFT_VARIANTS, &n), HST_SUCCESS);
    assert_int_equal(n, HST__FFT_VARIANTS);
}

static void drive_close(driven *d) {
    assert_int_equal(hst_choice_clear(d->op), HST_SUCCESS);   /* later tests: VkFFT's own, as before */
    hst_array_destroy(d->a); hst_array_destroy(d->b);
    free(d->ref); free(d->got);
}

/* A backend of the device under test of its own (its own plans and log, at info level: the
   refusals' level). */
static hst_backend *own_backend(void **state, cap_log *log) {
    hst_backend_desc desc = cap_desc(log);
    hst_backend *be = NULL;
    desc.device = hst_backend_device(BE(state))->selector;
    desc.log_level = HST_LOG_INFO;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    cap_reset(log);
    return be;
}

/* hst__fft_measure (a GPU's way until every configuration has a timing at a shape; called here
   on any OpenCL device): its result is the transform (against the host's FFTW); the plan's
   first run records nothing, the second records the configuration's time at the shape. */
static void test_measure_records(void **state) {
    const fcase c = {2, 3, {8, 6, 1}};
    hst_choice_stat st[HST__FFT_VARIANTS];
    driven d;
    unsigned k;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* FFTW: no configurations */
    drive_open(BE(state), LOG(state), &PRECS[0], &c, &d);
    d.key.variant = 1;
    for (k = 0; k < 2; k++) {
        assert_int_equal(hst__fft_measure(d.b, d.a, &d.key, d.op, d.sig), HST_SUCCESS);
        drive_check(&d, "measured run");
        drive_stats(&d, st);
        assert_int_equal(st[1].source == HST_CHOICE_EXACT, k == 1);
        assert_int_equal(st[1].samples, k);
        assert_int_equal(st[1].failed, HST_SUCCESS);
    }
    drive_close(&d);
}

#ifdef REL_HOOKS_CL
/* hst__fft_exec_variant of d's key (measured when `measuring`) with the k-th OpenCL call that
   can fail failing (once); `failed`: that call's name ("" when fewer calls were made). */
static hst_result exec_failing(driven *d, int measuring, long k, char failed[sizeof rel_injected_call]) {
    hst_result r;
    rel_reset_faults(k);
    r = hst__fft_exec_variant(d->b, d->a, &d->key, d->op, d->sig, measuring);
    memcpy(failed, rel_injected_call, sizeof rel_injected_call);
    rel_reset_faults(0);
    return r;
}

/* An out-of-memory before d's key has a plan: the call's error, logged as one; nothing
   recorded, no plan made (the backend holds `plans`), no OpenCL object left behind. */
static void expect_plan_oom(driven *d, cap_log *log, hst_result r, const rel_counts *before, size_t plans) {
    hst_choice_stat st[HST__FFT_VARIANTS];
    unsigned v;
    assert_true(hst_result_is_out_of_memory(r));
    assert_int_equal(log->last_level, HST_LOG_ERROR);
    assert_int_equal(hst_fft_plan_count(d->b->be), plans);
    assert_true(rel_counts_equal(&rel_live, before));
    drive_stats(d, st);
    for (v = 0; v < HST__FFT_VARIANTS; v++) assert_int_equal(st[v].samples, 0);
}

/* hst__fft_exec_variant of d's key (a shape without a plan) with VkFFT refusing it: the k-th
   OpenCL call that can fail fails, k = 1, 2, ... until the one failed makes a program (an
   initializeVkFFT failure other than for memory). Those failed before it are out-of-memories
   (VkFFT's tables' buffer, on devices where it keeps them; outside measuring, the copy of the
   input into the output). */
static hst_result exec_refused(driven *d, cap_log *log, int measuring) {
    char failed[sizeof rel_injected_call];
    rel_counts before = rel_live;
    size_t plans = hst_fft_plan_count(d->b->be);
    hst_result r;
    long k;
    for (k = 1;; k++) {
        cap_reset(log);
        r = exec_failing(d, measuring, k, failed);
        assert_true(failed[0] != '\0');   /* a call failed: the plan was still to make */
        if (strstr(failed, "Program")) return r;
        expect_plan_oom(d, log, r, &before, plans);
    }
}

/* A configuration VkFFT refuses while it is measured is recorded as failed at the shape's range,
   logged at info level, not as an error, and the call returns the transform by VkFFT's own
   configuration; VkFFT's own refused (outside measuring) is the call's error, logged as one. */
static void test_measure_refused(void **state) {
    const fcase c = {2, 3, {8, 6, 1}}, other = {2, 2, {8, 6, 1}};
    hst_choice_stat st[HST__FFT_VARIANTS];
    cap_log log;
    hst_backend *be;
    driven d;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* FFTW: no configurations */
    be = own_backend(state, &log);
    drive_open(be, &log, &PRECS[0], &c, &d);
    d.key.variant = 1;
    assert_int_equal(exec_refused(&d, &log, 1), HST_SUCCESS);
    drive_check(&d, "refused configuration's call");
    drive_stats(&d, st);
    assert_int_equal(st[1].failed, HST_ERROR_UNSUPPORTED);   /* never picked at this range */
    assert_int_equal(st[1].samples, 0);                      /* no time: other ranges measure it */
    assert_int_equal(st[0].samples, 0);               /* VkFFT's own ran unmeasured */
    assert_int_equal(hst_fft_plan_count(be), 1);      /* VkFFT's own: the refused one made none */
    assert_int_equal(log.counts[HST_LOGITEM_FFT_LIBRARY], 1);
    assert_int_equal(log.errors[HST_LOGITEM_FFT_LIBRARY], 0);
    assert_int_equal(log.last_level, HST_LOG_INFO);
    assert_non_null(strstr(log.last_message, hst__fft_variants[1].name));
    assert_non_null(strstr(log.last_message, "VkFFT's own is used"));
    drive_close(&d);

    drive_open(be, &log, &PRECS[0], &other, &d);   /* a new shape: its plan is made by the call */
    assert_int_equal(exec_refused(&d, &log, 0), HST_ERROR_UNSUPPORTED);
    assert_int_equal(log.errors[HST_LOGITEM_FFT_LIBRARY], 1);
    assert_int_equal(log.last_level, HST_LOG_ERROR);
    drive_close(&d);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* An out-of-memory while a configuration is measured (the first OpenCL call of a double
   precision plan: the buffer of VkFFT's tables, which it keeps for double precision on every
   device) is the call's error and records nothing (expect_plan_oom), nor is it kept as a
   refusal: the next call plans and runs it. */
static void test_measure_out_of_memory(void **state) {
    const fcase c = {2, 2, {8, 6, 1}};
    char failed[sizeof rel_injected_call];
    struct hst__fft_plan *p = NULL;
    rel_counts before;
    cap_log log;
    hst_backend *be;
    driven d;
    hst_result r;
    if (hst_backend_is_host(BE(state)) || !runs(state, &PRECS[1])) { skip(); return; }
    be = own_backend(state, &log);
    drive_open(be, &log, &PRECS[1], &c, &d);
    d.key.variant = 1;
    before = rel_live;
    r = exec_failing(&d, 1, 1, failed);
    assert_string_equal(failed, "clCreateBuffer");
    assert_int_equal(r, HST_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_int_equal(log.last_item, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    expect_plan_oom(&d, &log, r, &before, 0);
    assert_int_equal(hst__fft_exec_variant(d.b, d.a, &d.key, d.op, d.sig, 1), HST_SUCCESS);
    drive_check(&d, "call after an out-of-memory");
    assert_int_equal(hst_fft_plan_count(be), 1);
    assert_int_equal(hst__fft_plan(be, &d.key, d.b->buf, d.b->buf, &p), HST_SUCCESS);   /* found */
    assert_int_equal(p->key.variant, 1);
    drive_close(&d);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* 1 when no VkFFT plan was made or freed since `before` (each holds programs and kernels). */
static int same_vkfft_objects(const rel_counts *before) {
    return rel_live.programs == before->programs && rel_live.kernels == before->kernels;
}

/* A configuration VkFFT refuses at one shape of a size range that settles on it (timed at
   another shape of the range) is refused once: later calls at the shape run VkFFT's own plan
   with no plan made and no refusal logged again; a measured call at the other shape (which
   frees the range's losers) keeps VkFFT's own plan at the shape, the one run there. Every
   result is the transform. */
static void test_refusal_kept(void **state) {
    const fcase c = {2, 3, {10, 6, 1}}, other = {2, 3, {8, 6, 1}};   /* one size range */
    rel_counts before;
    cap_log log;
    hst_backend *be;
    driven d, o;
    unsigned v, k;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* FFTW: no configurations */
    be = own_backend(state, &log);
    drive_open(be, &log, &PRECS[0], &c, &d);
    drive_open(be, &log, &PRECS[0], &other, &o);
    d.key.variant = 1;
    assert_int_equal(exec_refused(&d, &log, 0), HST_SUCCESS);
    drive_check(&d, "refused configuration's call");
    assert_int_equal(log.counts[HST_LOGITEM_FFT_LIBRARY], 1);
    assert_int_equal(hst_fft_plan_count(be), 1);   /* VkFFT's own */
    for (v = 0; v < HST__FFT_VARIANTS; v++)        /* the range settles on configuration 1 */
        for (k = 0; k < HST__FFT_SAMPLES; k++)
            assert_int_equal(hst_choice_record(o.op, o.sig, HST__FFT_SIG, hst__fft_variants[v].name,
                                               v == 1 ? 0.5 : 1.0), HST_SUCCESS);
    before = rel_live;
    for (k = 0; k < 3; k++) {
        assert_int_equal(hst_array_fft(d.b, d.a, c.axes, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
        drive_check(&d, "call where the pick is refused");
    }
    assert_true(same_vkfft_objects(&before));      /* configuration 1 not planned again */
    assert_int_equal(hst_fft_plan_count(be), 1);
    o.key.variant = 1;
    for (k = 0; k < 2; k++) {   /* the second is timed: the losers go */
        assert_int_equal(hst__fft_measure(o.b, o.a, &o.key, o.op, o.sig), HST_SUCCESS);
        drive_check(&o, "measured call at the other shape");
    }
    assert_int_equal(hst_fft_plan_count(be), 2);   /* VkFFT's own at c, configuration 1 at other */
    before = rel_live;
    assert_int_equal(hst_array_fft(d.b, d.a, c.axes, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    drive_check(&d, "call after the losers went");
    assert_true(same_vkfft_objects(&before));
    assert_int_equal(hst_fft_plan_count(be), 2);
    assert_int_equal(log.counts[HST_LOGITEM_FFT_LIBRARY], 1);   /* the refusal's line only */
    drive_close(&d); drive_close(&o);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}
#else   /* no call interception here */
static void test_measure_refused(void **state) { (void)state; skip(); }
static void test_measure_out_of_memory(void **state) { (void)state; skip(); }
static void test_refusal_kept(void **state) { (void)state; skip(); }
#endif

/* The plans of the configurations not chosen at a size range go once the choice there has
   settled (on a GPU: the pick has its HST__FFT_SAMPLES timings; elsewhere nothing is measured
   and the pick settles at once), freed by the measuring call whose timing settles it; the
   pick's plan stays, and the shape's transform stays right. */
static void test_losers_freed(void **state) {
    const fcase c = {2, 3, {8, 6, 1}};
    int gpu = hst_backend_device(BE(state))->type == HST_DEVICE_GPU;
    struct hst__fft_plan *p;
    cap_log log;
    hst_backend *be;
    driven d;
    unsigned v;
    if (hst_backend_is_host(BE(state))) { skip(); return; }   /* FFTW: no configurations */
    be = own_backend(state, &log);
    drive_open(be, &log, &PRECS[0], &c, &d);
    for (v = 0; v < HST__FFT_VARIANTS; v++) {   /* one plan each, as exploring makes them */
        d.key.variant = v;
        assert_int_equal(hst__fft_plan(be, &d.key, d.b->buf, d.b->buf, &p), HST_SUCCESS);
        assert_int_equal(hst_choice_record(d.op, d.sig, HST__FFT_SIG, hst__fft_variants[v].name,
                                           v == 2 ? 0.5 : 1.0), HST_SUCCESS);
    }
    d.key.variant = 2;   /* the pick: its measured runs keep it the fastest (a median under 0.5 s) */
    assert_int_equal(hst__fft_measure(d.b, d.a, &d.key, d.op, d.sig), HST_SUCCESS);   /* untimed */
    assert_int_equal(hst_fft_plan_count(be), HST__FFT_VARIANTS);
    assert_int_equal(hst__fft_measure(d.b, d.a, &d.key, d.op, d.sig), HST_SUCCESS);
    assert_int_equal(hst_fft_plan_count(be), gpu ? HST__FFT_VARIANTS : 1);   /* GPU: 2 timings */
    assert_int_equal(hst__fft_measure(d.b, d.a, &d.key, d.op, d.sig), HST_SUCCESS);
    assert_int_equal(hst_fft_plan_count(be), 1);
    assert_int_equal(hst__fft_plan(be, &d.key, d.b->buf, d.b->buf, &p), HST_SUCCESS);
    assert_int_equal(p->key.variant, 2);
    assert_int_equal(hst_fft_plan_count(be), 1);   /* the pick's: found, not made */
    drive_check(&d, "pick after the losers went");
    assert_int_equal(hst_array_fft(d.b, d.a, c.axes, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    drive_check(&d, "call after the losers went");
    assert_int_equal(hst_fft_plan_count(be), 1);
    drive_close(&d);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}
#else   /* no OpenCL devices: no configurations to choose */
static void test_variants_agree(void **state) { (void)state; skip(); }
static void test_measure_records(void **state) { (void)state; skip(); }
static void test_measure_refused(void **state) { (void)state; skip(); }
static void test_measure_out_of_memory(void **state) { (void)state; skip(); }
static void test_refusal_kept(void **state) { (void)state; skip(); }
static void test_losers_freed(void **state) { (void)state; skip(); }
#endif

/* ------------------------------------------------------------------------------------------
   The host device's large transforms run in pieces on all its cores (array.h's host threads):
   the pieces and their FFTW plans follow the shape alone, so the bits cannot depend on the
   cores. Each case has two pieces' worth of elements or more (HST__FFT_HOST_PIECE_ELEMS,
   array.h's) and lengths that leave a shorter last piece: a 3-D c2c (out of place forward, in
   place inverse), a batch of 1-D and one of 2-D c2c, r2c and c2r of 2 and 3 axes. Each result
   must be within twice the bound of, and bit for bit, FFTW's one plan of the whole transform
   made here with array.h's flags (its plan before the split); unscaled norms, so no scaling
   step comes between. On OpenCL devices (VkFFT: no pieces) skipped. */
static const fcase PIECE_CASES[] = {
    {3, 1, {40, 36, 50}}, {1, 300, {250, 1, 1}}, {2, 7, {60, 50, 1}}, {2, 1, {300, 250, 1}},
    {3, 1, {34, 30, 70}}
};

/* FFTW's calls of one precision (pre: fftwf or fftw, real type R): the plan of one kind. */
#define WHOLE_PLAN(pre, R)                                                                       \
    (ci && co ? pre##_plan_guru64_dft(rank, dims, 1, &loop, (pre##_complex *)a,                 \
                                      (pre##_complex *)b,                                        \
                                      inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags)             \
     : co ? pre##_plan_guru64_dft_r2c(rank, dims, 1, &loop, (R *)a, (pre##_complex *)b, flags)  \
     : pre##_plan_guru64_dft_c2r(rank, dims, 1, &loop, (pre##_complex *)a, (R *)b, flags))

/* Reals (of p's type) in c's array of dtype dt whose other side is of dtype other. */
static size_t reals_of(const fcase *c, hst_dtype dt, hst_dtype other) {
    size_t parts = hst_dtype_is_complex(dt) ? 2 : 1;   /* reals an element */
    return c->batch * total(c) / c->n[0] * last_of(c, dt, other) * parts;
}

/* FFTW's one plan of c (in -> out dtypes, in place or not) run on a copy of x: malloc'ed. */
static void *fftw_whole(const prec *p, hst_dtype in, hst_dtype out, const fcase *c, int inverse,
                        int in_place, const void *x) {
    int ci = hst_dtype_is_complex(in), co = hst_dtype_is_complex(out), rank = (int)c->axes, i;
    size_t ib = reals_of(c, in, out) * p->rsize, ob = reals_of(c, out, in) * p->rsize;
    unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    ptrdiff_t rs = 1, cs = 1;
    fftw_iodim64 dims[3], loop;
    void *a = malloc(ib), *b = in_place ? a : malloc(ob);
    assert_non_null(a); assert_non_null(b);
    memcpy(a, x, ib);
    for (i = 0; i < rank; i++) {           /* FFTW lists dims slowest first */
        fftw_iodim64 *d = &dims[rank - 1 - i];
        d->n = (ptrdiff_t)c->n[i];
        d->is = ci ? cs : rs;
        d->os = co ? cs : rs;
        rs *= (ptrdiff_t)c->n[i];
        cs *= (ptrdiff_t)(i == 0 && !(ci && co) ? bins(c) : c->n[i]);   /* r2c, c2r: bins */
    }
    loop.n = (ptrdiff_t)c->batch;
    loop.is = ci ? cs : rs;
    loop.os = co ? cs : rs;
    if (p->rsize == 8) {
        fftw_plan f = WHOLE_PLAN(fftw, double);
        assert_non_null(f);
        fftw_execute(f);
        fftw_destroy_plan(f);
    } else {
        fftwf_plan f = WHOLE_PLAN(fftwf, float);
        assert_non_null(f);
        fftwf_execute(f);
        fftwf_destroy_plan(f);
    }
    if (!in_place) free(a);
    return b;
}
#undef WHOLE_PLAN

/* The host device's in -> out of x against FFTW's one plan; the host's result (malloc'ed). */
static void *expect_whole(hst_backend *be, const prec *p, hst_dtype in, hst_dtype out,
                          const fcase *c, int inverse, int in_place, const void *x) {
    hst_fft_norm norm = inverse ? HST_FFT_NORM_FORWARD : HST_FFT_NORM_BACKWARD;   /* unscaled */
    void *y = fft_on(be, in, out, c, inverse, norm, in_place, x);
    void *ref = fftw_whole(p, in, out, c, inverse, in_place, x);
    size_t count = reals_of(c, out, in);
    char what[128];
    snprintf(what, sizeof what, "%s -> %s %uD n=(%zu,%zu,%zu) batch %zu%s in pieces",
             hst_dtype_name(in), hst_dtype_name(out), c->axes, c->n[0], c->n[1], c->n[2], c->batch,
             in_place ? " in place" : "");
    expect_agree(p, y, ref, count, total(c), what);
    assert_memory_equal(y, ref, count * p->rsize);
    free(ref);
    return y;
}

/* c2c forward, then inverse in place; r2c, then c2r of its spectrum (Hermitian, as c2r needs). */
static void host_pieces(hst_backend *be, const prec *p, const fcase *c) {
    size_t cnt = c->batch * total(c), i;
    void *x = malloc(cnt * 2 * p->rsize), *y;
    uint64_t s = 11;
    assert_true(cnt >= 2 * HST__FFT_HOST_PIECE_ELEMS);
    assert_non_null(x);
    for (i = 0; i < 2 * cnt; i++) put(p, x, i, unit(p, &s));
    y = expect_whole(be, p, p->cplx, p->cplx, c, 0, 0, x);
    free(expect_whole(be, p, p->cplx, p->cplx, c, 1, 1, y));
    free(y);
    y = expect_whole(be, p, p->real, p->cplx, c, 0, 0, x);
    free(expect_whole(be, p, p->cplx, p->real, c, 1, 0, y));
    free(y); free(x);
}

static void test_host_pieces(void **state) {
    size_t i, k;
    if (!hst_backend_is_host(BE(state))) { skip(); return; }   /* no pieces on OpenCL devices */
    for (k = 0; k < NPRECS; k++)
        for (i = 0; i < sizeof PIECE_CASES / sizeof PIECE_CASES[0]; i++)
            host_pieces(BE(state), &PRECS[k], &PIECE_CASES[i]);
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
    EXPECT_ERR(hst_array_fft(y, x, 1, 0, (hst_fft_norm)3), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "norm"));
    EXPECT_ERR(hst_array_fft(y, i32, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_fft(r, r, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_fft(h, r, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, "forward only"));
    EXPECT_ERR(hst_array_fft(r, h, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, "inverse only"));
    {   /* r2c and c2r of one real element: no transform of that length */
        size_t one = 1;
        hst_array *r1 = NULL, *h1 = NULL;
        assert_int_equal(hst_array_create(be, HST_F32, 1, &one, &r1), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_C64, 1, &one, &h1), HST_SUCCESS);
        EXPECT_ERR(hst_array_fft(h1, r1, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
        assert_non_null(strstr(log->last_message, "last extent is 1"));
        EXPECT_ERR(hst_array_fft(r1, h1, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
        hst_array_destroy(r1); hst_array_destroy(h1);
    }
    EXPECT_ERR(hst_array_fft(small, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(hbad, r, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(r, hbad, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_fft(v, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    if (runs(state, &PRECS[1])) {   /* one precision per call: mixed pairs name src's dtype */
        hst_array *d = mk(be, HST_F64, &c, 8), *z = mk(be, HST_C128, &c, 8);
        EXPECT_ERR(hst_array_fft(z, r, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        assert_non_null(strstr(log->last_message, "dtype f32"));
        EXPECT_ERR(hst_array_fft(d, h, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        assert_non_null(strstr(log->last_message, "dtype c64"));
        EXPECT_ERR(hst_array_fft(z, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        EXPECT_ERR(hst_array_fft(d, d, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        EXPECT_ERR(hst_array_fft(z, d, 1, 1, HST_FFT_NORM_BACKWARD), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
        EXPECT_ERR(hst_array_fftn(z, r, 1, NULL, NULL, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        hst_array_destroy(d); hst_array_destroy(z);
    }
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

static void check_fftn(void **state, const ncase *c) {
    hst_backend *be = BE(state);
    const prec *p = &PRECS[hst_dtype_needs_fp64(c->in)];
    int c2r = !hst_dtype_is_complex(c->out), r2c = !hst_dtype_is_complex(c->in);
    nd a;
    size_t cnt, i, n_total = 1, dsh[3];
    unsigned k, last = c->axes[c->naxes - 1];
    void *h, *got;
    hst_array *x, *y;
    double f;
    char what[160];
    if (!runs(state, p)) return;
    a.ndim = c->ndim;
    memcpy(a.sh, c->sh, sizeof a.sh);
    cnt = nd_count(&a);
    a.z = (double *)calloc(2 * cnt, sizeof(double));
    h = malloc(2 * cnt * p->rsize);
    assert_non_null(a.z); assert_non_null(h);
    {
        uint64_t s = 0x1234567ULL + cnt;
        for (i = 0; i < cnt; i++) {
            a.z[2 * i] = unit(p, &s);
            a.z[2 * i + 1] = r2c ? 0.0 : unit(p, &s);
        }
        if (c2r) {   /* c2r: bin 0 (and n/2, within the bins) real, as rfft's */
            size_t inner = nd_stride(&a, last), m = c->sh[last];
            for (i = 0; i < cnt; i++) {
                size_t b = i / inner % m;
                if (b == 0 || (c->s[c->naxes - 1] % 2 == 0 && b == c->s[c->naxes - 1] / 2)) a.z[2 * i + 1] = 0.0;
            }
        }
        for (i = 0; i < cnt; i++) {
            if (r2c) { put(p, h, i, a.z[2 * i]); continue; }
            put(p, h, 2 * i, a.z[2 * i]);
            put(p, h, 2 * i + 1, a.z[2 * i + 1]);
        }
    }
    assert_int_equal(hst_array_create(be, c->in, c->ndim, c->sh, &x), HST_SUCCESS);
    assert_int_equal(hst_array_write(x, h, hst_array_bytes(x)), HST_SUCCESS);
    /* NumPy: the non-real axes first (crop/pad, transform), then the real one */
    for (k = 0; k < c->naxes; k++) {
        unsigned ax = c->axes[k];
        n_total *= c->s[k];
        if (c2r && ax == last) continue;
        a = nd_resize(a, ax, c->s[k]);
        nd_dft(&a, ax, c->inverse);
    }
    if (c2r) a = nd_c2r(nd_resize(a, last, c->s[c->naxes - 1] / 2 + 1), last, c->s[c->naxes - 1]);
    if (r2c) a = nd_resize(a, last, c->s[c->naxes - 1] / 2 + 1);   /* r2c keeps the bins */
    f = c->norm == HST_FFT_NORM_ORTHO ? 1.0 / sqrt((double)n_total)
      : (c->norm == HST_FFT_NORM_BACKWARD) == (c->inverse != 0) ? 1.0 / (double)n_total : 1.0;
    for (i = 0; i < 2 * nd_count(&a); i++) a.z[i] *= f;
    memcpy(dsh, a.sh, sizeof dsh);
    assert_int_equal(hst_array_create(be, c->out, c->ndim, dsh, &y), HST_SUCCESS);
    assert_int_equal(hst_array_fftn(y, x, c->naxes, c->axes, c->s, c->inverse, c->norm), HST_SUCCESS);
    got = malloc(hst_array_bytes(y));
    assert_non_null(got);
    assert_int_equal(hst_array_read(y, got, hst_array_bytes(y)), HST_SUCCESS);
    snprintf(what, sizeof what, "fftn %s->%s (%zu,%zu,%zu) axes %u [%u %u] s [%zu %zu]", hst_dtype_name(c->in),
             hst_dtype_name(c->out), c->sh[0], c->sh[1], c->sh[2], c->naxes, c->axes[0], c->axes[1], c->s[0], c->s[1]);
    expect_close(p, got, a.z, nd_count(&a), !c2r, n_total, what);
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
    {HST_C64, HST_C64, 3, {3, 8, 5}, 2, {1, 2}, {8, 5}, 0, HST_FFT_NORM_BACKWARD},
    /* double precision: c2c over axes 0 and 2 padded and cropped, rfftn over all three axes
       in another order, irfft(X, n=9, axis=1), ortho */
    {HST_C128, HST_C128, 3, {4, 6, 5}, 2, {0, 2}, {7, 3}, 1, HST_FFT_NORM_FORWARD},
    {HST_F64, HST_C128, 3, {5, 4, 6}, 3, {1, 2, 0}, {4, 6, 8}, 0, HST_FFT_NORM_ORTHO},
    {HST_C128, HST_F64, 3, {3, 4, 5}, 1, {1}, {9}, 1, HST_FFT_NORM_ORTHO}
};

static void test_fftn(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t i, sh[2] = {3, 5}, bad[2] = {3, 6}, s0 = 0, s8 = 8, o8[2] = {3, 8};
    unsigned rep[2] = {1, 1}, out_of[1] = {2};
    hst_array *x, *y, *r;
    for (i = 0; i < sizeof FFTN_CASES / sizeof FFTN_CASES[0]; i++) check_fftn(state, &FFTN_CASES[i]);
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
        cmocka_unit_test(test_host_agrees),
        cmocka_unit_test(test_variants_agree),
        cmocka_unit_test(test_measure_records),
        cmocka_unit_test(test_measure_refused),
        cmocka_unit_test(test_measure_out_of_memory),
        cmocka_unit_test(test_refusal_kept),
        cmocka_unit_test(test_losers_freed),
        cmocka_unit_test(test_host_pieces),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fftn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
