/* test_algorithm.c — algorithm.h's generated kernels: elementwise, reductions, scans, copy_if.

   Runs once per device (HST_DEVICE=host, HST_DEVICE=P:D ...). On an OpenCL device every result
   is compared with a host computation: bit for bit where the operation is exact or where the
   host follows the documented order (reductions: hst_reduction_create's three steps; scans of
   values whose sums are exact), within a stated error bound otherwise. On the host device every
   create checks its arguments as on any device, then refuses with HST_ERROR_UNSUPPORTED (the
   documented host device rule): the tests assert exactly that there. */
#define HST_IMPLEMENTATION
#include "algorithm.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"

#include "be_fixture.h"   /* one backend on $HST_DEVICE, logging at WARN into a cap_log */

/* ------------------------------------------------------------------------------------------
   Helpers. */

static int on_host(void **state) { return hst_backend_is_host(BE(state)); }
static int has_fp64(void **state) { return hst_backend_device(BE(state))->fp64; }

/* A create's result: on the host device the documented refusal (then 0: nothing to run), on
   an OpenCL device success (1). */
static int created(void **state, hst_result r) {
    if (on_host(state)) {
        assert_int_equal(r, HST_ERROR_UNSUPPORTED);
        assert_int_equal(LOG(state)->last_item, HST_LOGITEM_UNSUPPORTED);
        assert_non_null(strstr(LOG(state)->last_message, "HST_DEVICE=cpu"));
        return 0;
    }
    assert_int_equal(r, HST_SUCCESS);
    return 1;
}

/* The last logged message is item's and names `what`. */
static void logged(void **state, hst_log_item item, const char *what) {
    assert_int_equal(LOG(state)->last_item, item);
    if (!strstr(LOG(state)->last_message, what))
        fail_msg("log \"%s\" lacks \"%s\"", LOG(state)->last_message, what);
}

/* xorshift64* */
static uint64_t rng_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
/* uniform in [-1, 1) */
static double rng_sym(uint64_t *s) { return (double)(rng_next(s) >> 11) * (2.0 / 9007199254740992.0) - 1.0; }

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}
static hst_array *make(void **state, hst_dtype dt, size_t n, const void *data) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_create(BE(state), dt, 1, &n, &a), HST_SUCCESS);
    if (data) assert_int_equal(hst_array_write(a, data, n * hst_dtype_size(dt)), HST_SUCCESS);
    return a;
}
static void get(const hst_array *a, void *dst) {
    assert_int_equal(hst_array_read(a, dst, hst_array_bytes(a)), HST_SUCCESS);
}

typedef struct cf { float re, im; } cf;
typedef struct cd { double re, im; } cd;
/* cfloat_mul and + as the device computes them (one rounding per operation) */
static cf cf_mul(cf z, cf w) {
    cf r;
    r.re = z.re * w.re - z.im * w.im;
    r.im = z.re * w.im + z.im * w.re;
    return r;
}
static cf cf_add(cf a, cf b) { a.re = a.re + b.re; a.im = a.im + b.im; return a; }
static cd cd_mul(cd z, cd w) {
    cd r;
    r.re = z.re * w.re - z.im * w.im;
    r.im = z.re * w.im + z.im * w.re;
    return r;
}
static cd cd_add(cd a, cd b) { a.re = a.re + b.re; a.im = a.im + b.im; return a; }
static float f_add(float a, float b) { return a + b; }
static double d_add(double a, double b) { return a + b; }
static int64_t l_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int32_t i_max(int32_t a, int32_t b) { return a > b ? a : b; }

/* The reduction order of hst_reduction_create's comment, over mapped values v[0 .. n). */
#define REF_REDUCE(NAME, T, OP)                                                                   \
    static T NAME(const T *v, size_t n, T neutral) {                                              \
        enum { L = HST_REDUCTION_LOCAL, G = HST_REDUCTION_GROUPS };                               \
        T part[G], lm[L], acc;                                                                    \
        size_t g, t, s, i, lanes = (size_t)G * L;                                                 \
        for (g = 0; g < G; g++) {                                                                 \
            for (t = 0; t < L; t++) {                                                             \
                for (acc = neutral, i = g * L + t; i < n; i += lanes) acc = OP(acc, v[i]);        \
                lm[t] = acc;                                                                      \
            }                                                                                     \
            for (s = L / 2; s > 0; s >>= 1) for (t = 0; t < s; t++) lm[t] = OP(lm[t], lm[t + s]); \
            part[g] = lm[0];                                                                      \
        }                                                                                         \
        for (t = 0; t < L; t++) {                                                                 \
            for (acc = neutral, i = t; i < G; i += L) acc = OP(acc, part[i]);                     \
            lm[t] = acc;                                                                          \
        }                                                                                         \
        for (s = L / 2; s > 0; s >>= 1) for (t = 0; t < s; t++) lm[t] = OP(lm[t], lm[t + s]);     \
        return lm[0];                                                                             \
    }
REF_REDUCE(ref_sum_f, float, f_add)
REF_REDUCE(ref_sum_d, double, d_add)
REF_REDUCE(ref_sum_l, int64_t, l_add)
REF_REDUCE(ref_max_i, int32_t, i_max)
REF_REDUCE(ref_sum_cf, cf, cf_add)

/* Sizes around the reductions' lanes and the scans' tiles and chunks. */
static const size_t sizes[] = {1, 2, 255, 257, 2047, 2048, 2049, 100003,
                               (size_t)HST_SCAN_GROUPS * HST_SCAN_LOCAL * HST_SCAN_PER_ITEM + 5};
#define NUM_SIZES (sizeof sizes / sizeof sizes[0])

/* ------------------------------------------------------------------------------------------
   Elementwise. */

/* y = a x + y in f32 and f64; the host computes the same one-rounding-per-operation values. */
static void test_elementwise_real(void **state) {
    size_t n = 1003, i;
    hst_elementwise *kf = NULL, *kd = NULL;
    float *xf = (float *)xmalloc(n * sizeof *xf), *yf = (float *)xmalloc(n * sizeof *yf);
    float *of = (float *)xmalloc(n * sizeof *of);
    double *xd = (double *)xmalloc(n * sizeof *xd), *yd = (double *)xmalloc(n * sizeof *yd);
    double *od = (double *)xmalloc(n * sizeof *od);
    uint64_t s = 7;
    for (i = 0; i < n; i++) {
        xf[i] = (float)rng_sym(&s); yf[i] = (float)rng_sym(&s);
        xd[i] = rng_sym(&s); yd[i] = rng_sym(&s);
    }
    if (created(state, hst_elementwise_create(BE(state), "float *y, float a, const float *x",
                                              "y[i] = a * x[i] + y[i]", NULL, &kf))) {
        hst_array *x = make(state, HST_F32, n, xf), *y = make(state, HST_F32, n, yf);
        hst_alg_arg args[3];
        args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_F32, hst_real(0.3)); args[2] = hst_alg_array(x);
        assert_int_equal(hst_elementwise_run(kf, n, 3, args), HST_SUCCESS);
        get(y, of);
        for (i = 0; i < n; i++) assert_memory_equal(&of[i], &(float){0.3f * xf[i] + yf[i]}, sizeof(float));
        /* n smaller than the arrays: the rest untouched */
        assert_int_equal(hst_elementwise_run(kf, 5, 3, args), HST_SUCCESS);
        get(y, of);
        for (i = 0; i < n; i++) {
            float once = 0.3f * xf[i] + yf[i], twice = 0.3f * xf[i] + once;
            assert_memory_equal(&of[i], i < 5 ? &twice : &once, sizeof(float));
        }
        hst_array_destroy(x); hst_array_destroy(y);
    }
    if (has_fp64(state) &&
        created(state, hst_elementwise_create(BE(state), "double *y, double a, const double *x",
                                              "y[i] = a * x[i] + y[i]", NULL, &kd))) {
        hst_array *x = make(state, HST_F64, n, xd), *y = make(state, HST_F64, n, yd);
        hst_alg_arg args[3];
        args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_F64, hst_real(-1.7)); args[2] = hst_alg_array(x);
        assert_int_equal(hst_elementwise_run(kd, n, 3, args), HST_SUCCESS);
        get(y, od);
        for (i = 0; i < n; i++) assert_memory_equal(&od[i], &(double){-1.7 * xd[i] + yd[i]}, sizeof(double));
        hst_array_destroy(x); hst_array_destroy(y);
    }
    hst_elementwise_destroy(kf); hst_elementwise_destroy(kd);
    free(xf); free(yf); free(of); free(xd); free(yd); free(od);
}

/* Every integer type: arrays and by-value scalars of uchar, short, char, int and long. */
static void test_elementwise_ints(void **state) {
    size_t n = 777, i;
    hst_elementwise *k8 = NULL, *k64 = NULL;
    uint8_t *y8 = (uint8_t *)xmalloc(n);
    int32_t *x32 = (int32_t *)xmalloc(n * 4);
    int64_t *x64 = (int64_t *)xmalloc(n * 8), *y64 = (int64_t *)xmalloc(n * 8);
    for (i = 0; i < n; i++) { x32[i] = (int32_t)(i * 2654435761u); x64[i] = (int64_t)i * 1000003 - 400000000; }
    if (created(state, hst_elementwise_create(BE(state), "uchar *y, uchar a, short b, char c, const int *x",
                                              "y[i] = (uchar)(a + b * c + (x[i] & 15) + (int)(i % 7))", NULL, &k8))) {
        hst_array *y = make(state, HST_U8, n, NULL), *x = make(state, HST_I32, n, x32);
        hst_alg_arg args[5];
        args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_U8, hst_int(200));
        args[2] = hst_alg_scalar(HST_I16, hst_int(-300)); args[3] = hst_alg_scalar(HST_I8, hst_int(-7));
        args[4] = hst_alg_array(x);
        assert_int_equal(hst_elementwise_run(k8, n, 5, args), HST_SUCCESS);
        get(y, y8);
        for (i = 0; i < n; i++) assert_int_equal(y8[i], (uint8_t)(200 + -300 * -7 + (x32[i] & 15) + (int)(i % 7)));
        hst_array_destroy(y); hst_array_destroy(x);
    }
    if (created(state, hst_elementwise_create(BE(state), "long *y, const long *x, long k, int d",
                                              "y[i] = x[i] * k + (long)i + d", NULL, &k64))) {
        hst_array *y = make(state, HST_I64, n, NULL), *x = make(state, HST_I64, n, x64);
        hst_alg_arg args[4];
        args[0] = hst_alg_array(y); args[1] = hst_alg_array(x);
        args[2] = hst_alg_scalar(HST_I64, hst_int(-3000000000LL)); args[3] = hst_alg_scalar(HST_I32, hst_int(-5));
        assert_int_equal(hst_elementwise_run(k64, n, 4, args), HST_SUCCESS);
        get(y, y64);
        for (i = 0; i < n; i++) assert_true(y64[i] == x64[i] * -3000000000LL + (int64_t)i - 5);
        hst_array_destroy(y); hst_array_destroy(x);
    }
    hst_elementwise_destroy(k8); hst_elementwise_destroy(k64);
    free(y8); free(x32); free(x64); free(y64);
}

/* Complex: y = a * conj(x) + y with PyOpenCL's helpers, c64 and c128. */
static void test_elementwise_complex(void **state) {
    size_t n = 513, i;
    hst_elementwise *kf = NULL, *kd = NULL;
    cf *xf = (cf *)xmalloc(n * sizeof *xf), *yf = (cf *)xmalloc(n * sizeof *yf), *of = (cf *)xmalloc(n * sizeof *of);
    cd *xd = (cd *)xmalloc(n * sizeof *xd), *yd = (cd *)xmalloc(n * sizeof *yd), *od = (cd *)xmalloc(n * sizeof *od);
    cf af = {0.25f, -1.5f};
    cd ad = {-0.75, 2.125};
    uint64_t s = 11;
    for (i = 0; i < n; i++) {
        xf[i].re = (float)rng_sym(&s); xf[i].im = (float)rng_sym(&s);
        yf[i].re = (float)rng_sym(&s); yf[i].im = (float)rng_sym(&s);
        xd[i].re = rng_sym(&s); xd[i].im = rng_sym(&s); yd[i].re = rng_sym(&s); yd[i].im = rng_sym(&s);
    }
    if (created(state, hst_elementwise_create(BE(state), "cfloat_t *y, cfloat_t a, const cfloat_t *x",
                                              "y[i] = cfloat_mul(a, cfloat_conj(x[i])) + y[i]", NULL, &kf))) {
        hst_array *x = make(state, HST_C64, n, xf), *y = make(state, HST_C64, n, yf);
        hst_alg_arg args[3];
        args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_C64, hst_complex(af.re, af.im));
        args[2] = hst_alg_array(x);
        assert_int_equal(hst_elementwise_run(kf, n, 3, args), HST_SUCCESS);
        get(y, of);
        for (i = 0; i < n; i++) {
            cf c = xf[i], e;
            c.im = -c.im;
            e = cf_add(cf_mul(af, c), yf[i]);
            assert_memory_equal(&of[i], &e, sizeof e);
        }
        hst_array_destroy(x); hst_array_destroy(y);
    }
    if (has_fp64(state) &&
        created(state, hst_elementwise_create(BE(state), "cdouble_t *y, cdouble_t a, const cdouble_t *x",
                                              "y[i] = cdouble_mul(a, cdouble_conj(x[i])) + y[i]", NULL, &kd))) {
        hst_array *x = make(state, HST_C128, n, xd), *y = make(state, HST_C128, n, yd);
        hst_alg_arg args[3];
        args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_C128, hst_complex(ad.re, ad.im));
        args[2] = hst_alg_array(x);
        assert_int_equal(hst_elementwise_run(kd, n, 3, args), HST_SUCCESS);
        get(y, od);
        for (i = 0; i < n; i++) {
            cd c = xd[i], e;
            c.im = -c.im;
            e = cd_add(cd_mul(ad, c), yd[i]);
            assert_memory_equal(&od[i], &e, sizeof e);
        }
        hst_array_destroy(x); hst_array_destroy(y);
    }
    hst_elementwise_destroy(kf); hst_elementwise_destroy(kd);
    free(xf); free(yf); free(of); free(xd); free(yd); free(od);
}

/* ------------------------------------------------------------------------------------------
   Reductions. */

/* Sum of f32 and dot of f64 in the documented order: the host's bits, the same on every run;
   and the f32 sum within the error bound of any summation order of the exact sum. */
static void test_reduction_sum_dot(void **state) {
    size_t k, i, nmax = sizes[NUM_SIZES - 1];
    hst_reduction *sum = NULL, *dot = NULL;
    float *xf = (float *)xmalloc(nmax * sizeof *xf);
    double *xd = (double *)xmalloc(nmax * sizeof *xd), *yd = (double *)xmalloc(nmax * sizeof *yd);
    double *vd = (double *)xmalloc(nmax * sizeof *vd);
    hst_array *x = NULL, *a = NULL, *b = NULL;
    uint64_t s = 3;
    for (i = 0; i < nmax; i++) { xf[i] = (float)rng_sym(&s); xd[i] = rng_sym(&s); yd[i] = rng_sym(&s); }
    if (created(state, hst_reduction_create(BE(state), HST_F32, "0", "a + b", "x[i]", "const float *x", NULL, &sum))) {
        x = make(state, HST_F32, nmax, xf);
        for (k = 0; k < NUM_SIZES; k++) {
            size_t n = sizes[k];
            float got = 0, again = 0, want = ref_sum_f(xf, n, 0.0f);
            double exact = 0, abs_sum = 0;
            hst_alg_arg arg = hst_alg_array(x);
            assert_int_equal(hst_reduction_run(sum, n, 1, &arg, &got, sizeof got), HST_SUCCESS);
            assert_int_equal(hst_reduction_run(sum, n, 1, &arg, &again, sizeof again), HST_SUCCESS);
            assert_memory_equal(&got, &want, sizeof got);
            assert_memory_equal(&got, &again, sizeof got);
            for (i = 0; i < n; i++) { exact += xf[i]; abs_sum += fabs(xf[i]); }
            /* any order: |error| <= (n - 1) u sum|x| (Higham, Accuracy and Stability, 4.2) */
            assert_true(fabs(got - exact) <= (double)(n - 1) * ldexp(1.0, -24) * abs_sum * 1.01 + 1e-30);
        }
        /* into a 1-element array, without blocking */
        {
            float got = 0, want = ref_sum_f(xf, 100003, 0.0f);
            hst_alg_arg arg = hst_alg_array(x);
            hst_array *out = make(state, HST_F32, 1, NULL);
            assert_int_equal(hst_reduction_run_to(sum, 100003, 1, &arg, out), HST_SUCCESS);
            get(out, &got);
            assert_memory_equal(&got, &want, sizeof got);
            hst_array_destroy(out);
        }
    }
    if (has_fp64(state) &&
        created(state, hst_reduction_create(BE(state), HST_F64, "0", "a + b", "x[i] * y[i]",
                                            "const double *x, const double *y", NULL, &dot))) {
        a = make(state, HST_F64, nmax, xd);
        b = make(state, HST_F64, nmax, yd);
        for (i = 0; i < nmax; i++) vd[i] = xd[i] * yd[i];
        for (k = 0; k < NUM_SIZES; k++) {
            double got = 0, want = ref_sum_d(vd, sizes[k], 0.0);
            hst_alg_arg args[2];
            args[0] = hst_alg_array(a); args[1] = hst_alg_array(b);
            assert_int_equal(hst_reduction_run(dot, sizes[k], 2, args, &got, sizeof got), HST_SUCCESS);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
    hst_array_destroy(x); hst_array_destroy(a); hst_array_destroy(b);
    hst_reduction_destroy(sum); hst_reduction_destroy(dot);
    free(xf); free(xd); free(yd); free(vd);
}

/* max of i32 (exact: any order); a custom one: the long count of values above a threshold
   (a scalar argument) weighted by the index parity; a complex dot (c64) in the order. */
static void test_reduction_custom(void **state) {
    size_t k, i, nmax = sizes[NUM_SIZES - 1];
    hst_reduction *mx = NULL, *cnt = NULL, *cdot = NULL;
    int32_t *xi = (int32_t *)xmalloc(nmax * sizeof *xi);
    int64_t *vl = (int64_t *)xmalloc(nmax * sizeof *vl);
    cf *xc = (cf *)xmalloc(nmax * sizeof *xc), *yc = (cf *)xmalloc(nmax * sizeof *yc), *vc = (cf *)xmalloc(nmax * sizeof *vc);
    hst_array *x = NULL, *a = NULL, *b = NULL;
    uint64_t s = 5;
    for (i = 0; i < nmax; i++) {
        xi[i] = (int32_t)(rng_next(&s) >> 32);
        xc[i].re = (float)rng_sym(&s); xc[i].im = (float)rng_sym(&s);
        yc[i].re = (float)rng_sym(&s); yc[i].im = (float)rng_sym(&s);
    }
    if (created(state, hst_reduction_create(BE(state), HST_I32, "INT_MIN", "max(a, b)", "x[i]", "const int *x",
                                            NULL, &mx))) {
        x = make(state, HST_I32, nmax, xi);
        assert_int_equal(hst_reduction_create(BE(state), HST_I64, "0", "a + b", "x[i] > t ? (long)(i % 2 + 1) : 0",
                                              "const int *x, int t", NULL, &cnt), HST_SUCCESS);
        for (i = 0; i < nmax; i++) vl[i] = xi[i] > 1000000 ? (int64_t)(i % 2 + 1) : 0;
        for (k = 0; k < NUM_SIZES; k++) {
            size_t n = sizes[k];
            int32_t got = 0, want = INT32_MIN;
            int64_t gotl = 0;
            hst_alg_arg args[2];
            args[0] = hst_alg_array(x); args[1] = hst_alg_scalar(HST_I32, hst_int(1000000));
            for (i = 0; i < n; i++) want = i_max(want, xi[i]);
            assert_int_equal(hst_reduction_run(mx, n, 1, args, &got, sizeof got), HST_SUCCESS);
            assert_int_equal(got, want);
            assert_int_equal(ref_max_i(xi, n, INT32_MIN), want);   /* the order's twin agrees */
            assert_int_equal(hst_reduction_run(cnt, n, 2, args, &gotl, sizeof gotl), HST_SUCCESS);
            assert_true(gotl == ref_sum_l(vl, n, 0));
        }
        assert_int_equal(hst_reduction_create(BE(state), HST_C64, "cfloat_new(0, 0)", "a + b",
                                              "cfloat_mul(cfloat_conj(x[i]), y[i])",
                                              "const cfloat_t *x, const cfloat_t *y", NULL, &cdot), HST_SUCCESS);
        a = make(state, HST_C64, nmax, xc);
        b = make(state, HST_C64, nmax, yc);
        for (i = 0; i < nmax; i++) { cf c = xc[i]; c.im = -c.im; vc[i] = cf_mul(c, yc[i]); }
        for (k = 0; k < NUM_SIZES; k++) {
            cf got, zero = {0.0f, 0.0f}, want = ref_sum_cf(vc, sizes[k], zero);
            hst_alg_arg args[2];
            args[0] = hst_alg_array(a); args[1] = hst_alg_array(b);
            assert_int_equal(hst_reduction_run(cdot, sizes[k], 2, args, &got, sizeof got), HST_SUCCESS);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
    hst_array_destroy(x); hst_array_destroy(a); hst_array_destroy(b);
    hst_reduction_destroy(mx); hst_reduction_destroy(cnt); hst_reduction_destroy(cdot);
    free(xi); free(vl); free(xc); free(yc); free(vc);
}

/* ------------------------------------------------------------------------------------------
   Scans. */

/* i32 sums (exact: |prefix| < 2^31, as OpenCL leaves signed overflow undefined), inclusive
   and exclusive, at every size; an i64 max scan in place; an operator that does not commute
   (forward fill: the last non-zero value so far), whose result any reordering would change. */
static void test_scan_ints(void **state) {
    size_t k, i, nmax = sizes[NUM_SIZES - 1];
    hst_scan *si = NULL, *smax = NULL, *sfill = NULL;
    int32_t *xi = (int32_t *)xmalloc(nmax * sizeof *xi), *yi = (int32_t *)xmalloc(nmax * sizeof *yi);
    int64_t *xl = (int64_t *)xmalloc(nmax * sizeof *xl), *yl = (int64_t *)xmalloc(nmax * sizeof *yl);
    hst_array *x = NULL, *y = NULL, *z = NULL;
    uint64_t s = 9;
    int excl;
    for (i = 0; i < nmax; i++) { xi[i] = (int32_t)(rng_next(&s) % 1001) - 500; xl[i] = (int64_t)rng_next(&s); }
    if (created(state, hst_scan_create(BE(state), HST_I32, "a + b", "0", NULL, &si))) {
        x = make(state, HST_I32, nmax, xi);
        y = make(state, HST_I32, nmax, NULL);
        for (k = 0; k < NUM_SIZES; k++)
            for (excl = 0; excl <= 1; excl++) {
                size_t n = sizes[k];
                uint32_t acc = 0;
                assert_int_equal(hst_scan_run(si, x, y, n, excl), HST_SUCCESS);
                get(y, yi);
                for (i = 0; i < n; i++) {
                    if (!excl) acc += (uint32_t)xi[i];
                    if ((uint32_t)yi[i] != acc) fail_msg("n %zu exclusive %d: y[%zu] = %d, want %d", n, excl, i, yi[i], (int32_t)acc);
                    if (excl) acc += (uint32_t)xi[i];
                }
            }
        assert_int_equal(hst_scan_create(BE(state), HST_I64, "max(a, b)", "LONG_MIN", NULL, &smax), HST_SUCCESS);
        z = make(state, HST_I64, nmax, xl);
        assert_int_equal(hst_scan_run(smax, z, z, nmax, 0), HST_SUCCESS);   /* in place */
        get(z, yl);
        {
            int64_t m = INT64_MIN;
            for (i = 0; i < nmax; i++) { m = xl[i] > m ? xl[i] : m; assert_true(yl[i] == m); }
        }
        assert_int_equal(hst_scan_create(BE(state), HST_I32, "b != 0 ? b : a", "0", NULL, &sfill), HST_SUCCESS);
        for (i = 0; i < nmax; i++) xi[i] = rng_next(&s) % 97 == 0 ? (int32_t)(i % 1000003) + 1 : 0;
        assert_int_equal(hst_array_write(x, xi, nmax * sizeof *xi), HST_SUCCESS);
        for (excl = 0; excl <= 1; excl++) {
            int32_t last = 0;
            assert_int_equal(hst_scan_run(sfill, x, y, nmax, excl), HST_SUCCESS);
            get(y, yi);
            for (i = 0; i < nmax; i++) {
                if (!excl && xi[i]) last = xi[i];
                if (yi[i] != last) fail_msg("fill, exclusive %d: y[%zu] = %d, want %d", excl, i, yi[i], last);
                if (excl && xi[i]) last = xi[i];
            }
        }
    }
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(z);
    hst_scan_destroy(si); hst_scan_destroy(smax); hst_scan_destroy(sfill);
    free(xi); free(yi); free(xl); free(yl);
}

/* f32 and f64: integer values (every partial sum exact: the serial bits), then random values
   within the error bound of any order, the same bits on a second run. */
static void test_scan_floats(void **state) {
    size_t k, i, nmax = sizes[NUM_SIZES - 1];
    hst_scan *sf = NULL, *sd = NULL;
    float *xf = (float *)xmalloc(nmax * sizeof *xf), *yf = (float *)xmalloc(nmax * sizeof *yf);
    float *y2 = (float *)xmalloc(nmax * sizeof *y2);
    double *xd = (double *)xmalloc(nmax * sizeof *xd), *yd = (double *)xmalloc(nmax * sizeof *yd);
    hst_array *x = NULL, *y = NULL, *a = NULL, *b = NULL;
    uint64_t s = 13;
    int excl;
    for (i = 0; i < nmax; i++) { xf[i] = (float)(int)(rng_next(&s) % 5); xd[i] = (double)(int)(rng_next(&s) % 2001) - 1000; }
    if (created(state, hst_scan_create(BE(state), HST_F32, "a + b", "0", NULL, &sf))) {
        x = make(state, HST_F32, nmax, xf);   /* sums below 2^24: exact */
        y = make(state, HST_F32, nmax, NULL);
        for (k = 0; k < NUM_SIZES; k++)
            for (excl = 0; excl <= 1; excl++) {
                float acc = 0;
                assert_int_equal(hst_scan_run(sf, x, y, sizes[k], excl), HST_SUCCESS);
                get(y, yf);
                for (i = 0; i < sizes[k]; i++) {
                    if (!excl) acc += xf[i];
                    assert_memory_equal(&yf[i], &acc, sizeof acc);
                    if (excl) acc += xf[i];
                }
            }
        /* random values: within (i) u sum|x| of the exact prefix (any order), same bits twice */
        for (i = 0; i < nmax; i++) xf[i] = (float)rng_sym(&s);
        assert_int_equal(hst_array_write(x, xf, nmax * sizeof *xf), HST_SUCCESS);
        assert_int_equal(hst_scan_run(sf, x, y, nmax, 0), HST_SUCCESS);
        get(y, yf);
        assert_int_equal(hst_scan_run(sf, x, y, nmax, 0), HST_SUCCESS);
        get(y, y2);
        assert_memory_equal(yf, y2, nmax * sizeof *yf);
        {
            double exact = 0, abs_sum = 0;
            for (i = 0; i < nmax; i++) {
                exact += xf[i]; abs_sum += fabs(xf[i]);
                if (fabs(yf[i] - exact) > (double)i * ldexp(1.0, -24) * abs_sum * 1.01 + 1e-30)
                    fail_msg("y[%zu] = %.9g, exact %.17g", i, yf[i], exact);
            }
        }
    }
    if (has_fp64(state) && created(state, hst_scan_create(BE(state), HST_F64, "a + b", "0", NULL, &sd))) {
        a = make(state, HST_F64, nmax, xd);
        b = make(state, HST_F64, nmax, NULL);
        for (excl = 0; excl <= 1; excl++) {
            double acc = 0;
            assert_int_equal(hst_scan_run(sd, a, b, nmax, excl), HST_SUCCESS);
            get(b, yd);
            for (i = 0; i < nmax; i++) {
                if (!excl) acc += xd[i];
                assert_memory_equal(&yd[i], &acc, sizeof acc);
                if (excl) acc += xd[i];
            }
        }
    }
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(a); hst_array_destroy(b);
    hst_scan_destroy(sf); hst_scan_destroy(sd);
    free(xf); free(yf); free(y2); free(xd); free(yd);
}

/* A generic scan: long prefix sums of k x[i] from an int array (input expression and a scalar
   argument), written with the difference item - prev_item beside them (the output statement). */
static void test_scan_generic(void **state) {
    size_t n = 70001, i;
    hst_scan *g = NULL;
    int32_t *xi = (int32_t *)xmalloc(n * sizeof *xi);
    int64_t *yl = (int64_t *)xmalloc(n * sizeof *yl), *dl = (int64_t *)xmalloc(n * sizeof *dl);
    uint64_t s = 17;
    for (i = 0; i < n; i++) xi[i] = (int32_t)(rng_next(&s) >> 33) - (1 << 30);
    if (created(state, hst_scan_create_generic(BE(state), HST_I64, "const int *x, long *y, long *d, int k",
                                               "(long)x[i] * k", "a + b", "0", "y[i] = item; d[i] = item - prev_item",
                                               NULL, &g))) {
        hst_array *x = make(state, HST_I32, n, xi), *y = make(state, HST_I64, n, NULL), *d = make(state, HST_I64, n, NULL);
        hst_alg_arg args[4];
        int64_t acc = 0;
        args[0] = hst_alg_array(x); args[1] = hst_alg_array(y); args[2] = hst_alg_array(d);
        args[3] = hst_alg_scalar(HST_I32, hst_int(-3));
        assert_int_equal(hst_scan_run_generic(g, n, 4, args), HST_SUCCESS);
        get(y, yl); get(d, dl);
        for (i = 0; i < n; i++) {
            acc += (int64_t)xi[i] * -3;
            assert_true(yl[i] == acc);
            assert_true(dl[i] == (int64_t)xi[i] * -3);
        }
        /* a plain scan's run refuses it */
        assert_int_equal(hst_scan_run(g, x, x, n, 0), HST_ERROR_INVALID_ARGUMENT);
        logged(state, HST_LOGITEM_BAD_STATE, "hst_scan_create_generic");
        hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(d);
    }
    hst_scan_destroy(g);
    free(xi); free(yl); free(dl);
}

/* copy_if: f32 values above a limit (an extra argument) at every size, none and all kept, and
   c64 values inside the unit circle. */
static void test_copy_if(void **state) {
    size_t k, i, nmax = sizes[NUM_SIZES - 1], count = 0;
    hst_scan *ci = NULL, *cc = NULL;
    float *xf = (float *)xmalloc(nmax * sizeof *xf), *yf = (float *)xmalloc(nmax * sizeof *yf);
    cf *xc = (cf *)xmalloc(nmax * sizeof *xc), *yc = (cf *)xmalloc(nmax * sizeof *yc);
    hst_array *x = NULL, *y = NULL, *a = NULL, *b = NULL;
    uint64_t s = 19;
    for (i = 0; i < nmax; i++) { xf[i] = (float)rng_sym(&s); xc[i].re = (float)(2 * rng_sym(&s)); xc[i].im = (float)rng_sym(&s); }
    if (created(state, hst_copy_if_create(BE(state), HST_F32, "x[i] > limit", "float limit", NULL, &ci))) {
        static const double limits[] = {0.5, -2.0, 2.0};   /* some, all, none */
        size_t l;
        hst_alg_arg extra;
        x = make(state, HST_F32, nmax, xf);
        y = make(state, HST_F32, nmax, NULL);
        for (l = 0; l < 3; l++)
            for (k = 0; k < NUM_SIZES; k++) {
                size_t n = sizes[k], want = 0;
                float sentinel = 12345.0f;
                for (i = 0; i < nmax; i++) yf[i] = sentinel;
                assert_int_equal(hst_array_write(y, yf, nmax * sizeof *yf), HST_SUCCESS);
                extra = hst_alg_scalar(HST_F32, hst_real(limits[l]));
                assert_int_equal(hst_copy_if_run(ci, x, y, n, 1, &extra, &count), HST_SUCCESS);
                get(y, yf);
                for (i = 0; i < n; i++)
                    if (xf[i] > (float)limits[l]) { assert_memory_equal(&yf[want], &xf[i], sizeof(float)); want++; }
                assert_int_equal(count, want);
                for (i = want; i < nmax; i++) assert_true(yf[i] == sentinel);   /* the rest untouched */
            }
        assert_int_equal(hst_copy_if_create(BE(state), HST_C64, "cfloat_abs2(x[i]) < 1.0f", NULL, NULL, &cc),
                         HST_SUCCESS);
        a = make(state, HST_C64, nmax, xc);
        b = make(state, HST_C64, nmax, NULL);
        assert_int_equal(hst_copy_if_run(cc, a, b, nmax, 0, NULL, &count), HST_SUCCESS);
        get(b, yc);
        {
            size_t want = 0;
            for (i = 0; i < nmax; i++)
                if (xc[i].re * xc[i].re + xc[i].im * xc[i].im < 1.0f) {
                    assert_memory_equal(&yc[want], &xc[i], sizeof(cf));
                    want++;
                }
            assert_int_equal(count, want);
        }
    }
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(a); hst_array_destroy(b);
    hst_scan_destroy(ci); hst_scan_destroy(cc);
    free(xf); free(yf); free(xc); free(yc);
}

/* ------------------------------------------------------------------------------------------
   Bad input. */

/* Argument lists and strings: refused the same way on every device, before the device rule. */
static void test_bad_lists(void **state) {
    static const struct { const char *list; const char *names; } bad[] = {
        {"float **y", "pointer to a pointer"}, {"vec3 *x", "unknown type"}, {"float *i", "generated code's own"},
        {"float *x, int x", "taken by parameter 0"}, {"float *y z", "text after the name"}, {"float", "no name"},
        {"*float y", "before the type"}, {"float *y,", "no type"}, {"float *hst_y", "generated code's own"},
        {"float &y", "not part of a declaration"}, {"float * const y", "const after"},
    };
    hst_elementwise *k = NULL;
    hst_reduction *r = NULL;
    hst_scan *s = NULL;
    size_t b;
    for (b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        assert_int_equal(hst_elementwise_create(BE(state), bad[b].list, "y[i] = 0", NULL, &k), HST_ERROR_INVALID_ARGUMENT);
        assert_null(k);
        logged(state, HST_LOGITEM_BAD_ARGUMENT, bad[b].names);
    }
    {   /* one parameter more than HST_ALGORITHM_MAX_ARGS */
        char list[HST_ALGORITHM_MAX_ARGS * 16 + 16];
        size_t at = 0, p;
        for (p = 0; p <= HST_ALGORITHM_MAX_ARGS; p++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%sint a%zu", p ? ", " : "", p);
        assert_int_equal(hst_elementwise_create(BE(state), list, "(void)a0", NULL, &k), HST_ERROR_INVALID_ARGUMENT);
        logged(state, HST_LOGITEM_OUT_OF_RANGE, "more than 32 parameters");
    }
    assert_int_equal(hst_elementwise_create(BE(state), "float *y", NULL, NULL, &k), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_NULL_ARGUMENT, "operation");
    assert_int_equal(hst_elementwise_create(BE(state), "float *y", "", NULL, &k), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_ZERO_SIZE, "operation");
    assert_int_equal(hst_reduction_create(BE(state), HST_F32, "0", NULL, "x[i]", "const float *x", NULL, &r),
                     HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_NULL_ARGUMENT, "reduce");
    assert_int_equal(hst_reduction_create(BE(state), (hst_dtype)42, "0", "a + b", "x[i]", "const float *x", NULL, &r),
                     HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_OUT_OF_RANGE, "dtype 42");
    assert_int_equal(hst_scan_create(BE(state), HST_C64, "a + b", "0", NULL, &s), HST_ERROR_DTYPE);
    logged(state, HST_LOGITEM_DTYPE, "c64");
    assert_int_equal(hst_copy_if_create(BE(state), HST_F32, "x[i] > 0", "int x", NULL, &s), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_BAD_ARGUMENT, "the name x is taken");
    assert_int_equal(hst_copy_if_create(BE(state), HST_F32, "", NULL, NULL, &s), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_ZERO_SIZE, "predicate");
    assert_null(r);
    assert_null(s);
}

/* A statement that does not compile: OpenCL's build failure code, and the compiler's log (it
   names the unknown function) in the logged error. */
static void test_build_failure(void **state) {
    hst_elementwise *k = NULL;
    hst_result r = hst_elementwise_create(BE(state), "float *y", "y[i] = no_such_function_xyz(y[i])", NULL, &k);
    if (on_host(state)) { (void)created(state, r); return; }
#ifndef HST_NO_OPENCL
    assert_int_equal(r, CL_BUILD_PROGRAM_FAILURE);
#endif
    assert_null(k);
    assert_true(LOG(state)->errors[HST_LOGITEM_BUILD_FAILED] >= 1);
    logged(state, HST_LOGITEM_BUILD_FAILED, "no_such_function_xyz");
    assert_non_null(strstr(LOG(state)->last_message, "build log"));
}

/* Calls' arguments: each refusal names its argument; nothing runs. */
static void test_bad_arguments(void **state) {
    size_t n = 100;
    hst_elementwise *k = NULL, *none = NULL;
    hst_reduction *red = NULL;
    hst_scan *sc = NULL;
    hst_array *xf, *xd, *yf, *short_y, *xi;
    hst_alg_arg args[3];
    float f = 0;
    if (!created(state, hst_elementwise_create(BE(state), "float *y, uchar a, const float *x",
                                               "y[i] = a * x[i]", NULL, &k)))
        return;
    xf = make(state, HST_F32, n, NULL); yf = make(state, HST_F32, n, NULL);
    xd = make(state, HST_I32, n, NULL); short_y = make(state, HST_F32, n - 1, NULL); xi = make(state, HST_I32, n, NULL);
    args[0] = hst_alg_array(yf); args[1] = hst_alg_scalar(HST_U8, hst_int(2)); args[2] = hst_alg_array(xf);
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_SUCCESS);
    args[2] = hst_alg_array(xd);                                      /* wrong dtype */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_SHAPE);
    logged(state, HST_LOGITEM_SHAPE_MISMATCH, "argument 2 (x): an array of dtype i32");
    args[2] = hst_alg_array(xf);
    args[1] = hst_alg_scalar(HST_F32, hst_real(2));                   /* wrong scalar dtype */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_SHAPE);
    logged(state, HST_LOGITEM_SHAPE_MISMATCH, "argument 1 (a)");
    args[1] = hst_alg_scalar(HST_U8, hst_int(256));                   /* out of the type's range */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_OUT_OF_RANGE, "argument 1 (a): 256");
    args[1] = hst_alg_array(xf);                                      /* an array for a scalar */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_BAD_ARGUMENT, "argument 1 (a) is a scalar");
    args[1] = hst_alg_scalar(HST_U8, hst_int(2));
    args[0] = hst_alg_scalar(HST_F32, hst_real(1));                   /* a scalar for an array */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_BAD_ARGUMENT, "argument 0 (y) is an array");
    args[0] = hst_alg_array(short_y);                                 /* shorter than n */
    assert_int_equal(hst_elementwise_run(k, n, 3, args), HST_ERROR_SHAPE);
    logged(state, HST_LOGITEM_SHAPE_MISMATCH, "fewer than n = 100");
    args[0] = hst_alg_array(yf);
    assert_int_equal(hst_elementwise_run(k, n, 2, args), HST_ERROR_INVALID_ARGUMENT);   /* count */
    logged(state, HST_LOGITEM_BAD_ARGUMENT, "num_args is 2");
    assert_int_equal(hst_elementwise_run(k, 0, 3, args), HST_ERROR_INVALID_ARGUMENT);   /* n = 0 */
    logged(state, HST_LOGITEM_ZERO_SIZE, "n is 0");
    assert_int_equal(hst_elementwise_run(k, SIZE_MAX, 3, args), HST_ERROR_SHAPE);       /* n past the arrays */
    /* a list without arrays: n = SIZE_MAX overflows the launch range */
    assert_int_equal(hst_elementwise_create(BE(state), "int a", "(void)a", NULL, &none), HST_SUCCESS);
    args[0] = hst_alg_scalar(HST_I32, hst_int(1));
    assert_int_equal(hst_elementwise_run(none, SIZE_MAX, 1, args), HST_ERROR_OVERFLOW);
    {   /* likewise a reduction's lanes, and a scan's chunks */
        hst_reduction *ones = NULL;
        hst_scan *gs = NULL;
        int64_t got = 0;
        assert_int_equal(hst_reduction_create(BE(state), HST_I64, "0", "a + b", "a", "int a", NULL, &ones), HST_SUCCESS);
        assert_int_equal(hst_reduction_run(ones, SIZE_MAX, 1, args, &got, sizeof got), HST_ERROR_OVERFLOW);
        logged(state, HST_LOGITEM_SIZE_OVERFLOW, "overflow");
        assert_int_equal(hst_reduction_run(ones, 3000, 1, args, &got, sizeof got), HST_SUCCESS);
        assert_true(got == 3000);
        assert_int_equal(hst_scan_create_generic(BE(state), HST_I32, "int a", "a", "a + b", "0", "(void)item", NULL, &gs),
                         HST_SUCCESS);
        assert_int_equal(hst_scan_run_generic(gs, SIZE_MAX, 1, args), HST_ERROR_OVERFLOW);
        logged(state, HST_LOGITEM_SIZE_OVERFLOW, "overflow");
        hst_reduction_destroy(ones);
        hst_scan_destroy(gs);
    }
    /* reductions: result size, out array dtype; scans: n past the arrays, exclusive, n = 0 */
    assert_int_equal(hst_reduction_create(BE(state), HST_F32, "0", "a + b", "x[i]", "const float *x", NULL, &red),
                     HST_SUCCESS);
    args[0] = hst_alg_array(xf);
    assert_int_equal(hst_reduction_run(red, n, 1, args, &f, 8), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_BAD_ARGUMENT, "result_bytes is 8");
    assert_int_equal(hst_reduction_run_to(red, n, 1, args, xi), HST_ERROR_SHAPE);
    logged(state, HST_LOGITEM_SHAPE_MISMATCH, "out");
    assert_int_equal(hst_reduction_run(red, 0, 1, args, &f, 4), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_reduction_run(red, SIZE_MAX, 1, args, &f, 4), HST_ERROR_SHAPE);
    assert_int_equal(hst_scan_create(BE(state), HST_F32, "a + b", "0", NULL, &sc), HST_SUCCESS);
    assert_int_equal(hst_scan_run(sc, xf, short_y, n, 0), HST_ERROR_SHAPE);
    logged(state, HST_LOGITEM_SHAPE_MISMATCH, "argument 1 (y)");
    assert_int_equal(hst_scan_run(sc, xf, yf, n, 2), HST_ERROR_INVALID_ARGUMENT);
    logged(state, HST_LOGITEM_OUT_OF_RANGE, "exclusive is 2");
    assert_int_equal(hst_scan_run(sc, xf, yf, 0, 0), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_scan_run(sc, xf, xi, n, 0), HST_ERROR_SHAPE);
    {
        size_t count = 7;
        assert_int_equal(hst_copy_if_run(sc, xf, yf, n, 0, NULL, &count), HST_ERROR_INVALID_ARGUMENT);
        logged(state, HST_LOGITEM_BAD_STATE, "hst_scan_create");
        assert_int_equal(count, 7);
    }
    hst_array_destroy(xf); hst_array_destroy(yf); hst_array_destroy(xd); hst_array_destroy(short_y); hst_array_destroy(xi);
    hst_elementwise_destroy(k); hst_elementwise_destroy(none);
    hst_reduction_destroy(red); hst_scan_destroy(sc);
}

/* Programs are cached by their source: a second backend with the disk cache loads the binary
   the fixture's backend wrote (CACHE_HIT), and a second create there builds nothing more. */
static void test_cache(void **state) {
    static const char *op = "y[i] = 2.5f * y[i] + 0.125f";   /* this test's own source */
    hst_elementwise *k1 = NULL, *k2 = NULL, *k3 = NULL;
    hst_backend *be2 = NULL;
    cap_log log2;
    hst_backend_desc desc = cap_desc(&log2);
    if (!created(state, hst_elementwise_create(BE(state), "float *y", op, NULL, &k1))) return;
    if (!hst_backend_cache_dir(BE(state))[0]) { hst_elementwise_destroy(k1); skip(); }
    cap_reset(&log2);
    desc.log_level = HST_LOG_DEBUG;
    assert_int_equal(hst_backend_create(&desc, &be2), HST_SUCCESS);
    assert_int_equal(hst_elementwise_create(be2, "float *y", op, NULL, &k2), HST_SUCCESS);
    assert_int_equal(log2.counts[HST_LOGITEM_CACHE_HIT], 1);
    assert_int_equal(hst_elementwise_create(be2, "float *y", op, NULL, &k3), HST_SUCCESS);
    assert_int_equal(log2.counts[HST_LOGITEM_CACHE_HIT], 1);   /* from memory: no second load */
    hst_elementwise_destroy(k1); hst_elementwise_destroy(k2); hst_elementwise_destroy(k3);
    assert_int_equal(hst_backend_destroy(be2), HST_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_elementwise_real, reset_log),
        cmocka_unit_test_setup(test_elementwise_ints, reset_log),
        cmocka_unit_test_setup(test_elementwise_complex, reset_log),
        cmocka_unit_test_setup(test_reduction_sum_dot, reset_log),
        cmocka_unit_test_setup(test_reduction_custom, reset_log),
        cmocka_unit_test_setup(test_scan_ints, reset_log),
        cmocka_unit_test_setup(test_scan_floats, reset_log),
        cmocka_unit_test_setup(test_scan_generic, reset_log),
        cmocka_unit_test_setup(test_copy_if, reset_log),
        cmocka_unit_test_setup(test_bad_lists, reset_log),
        cmocka_unit_test_setup(test_build_failure, reset_log),
        cmocka_unit_test_setup(test_bad_arguments, reset_log),
        cmocka_unit_test_setup(test_cache, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
