/* test_vocab.c — halostream's array vocabulary (array.h + kernels.h twins).

   Runs once per device (HST_DEVICE=host, HST_DEVICE=P:D ...): the backend is created with
   desc.device = NULL so it honours HST_DEVICE. The vocabulary has identical semantics on every
   device, so every test computes its expected values with the host C twins of kernels.h
   (hst_k_*_host) on host memory and compares them with what the device produced: bitwise where
   the contract says "exact", within the stated ulp bound otherwise. */
#define HST_IMPLEMENTATION
#include "array.h"

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
   Helpers: deterministic host inputs (xorshift64*, not rand()), ulp distances; the backend
   and its captured log come from be_fixture.h (BE(state), LOG(state)). */

/* 1 when the capture holds item at level ERROR. */
static int cap_has(const cap_log *c, hst_log_item item) { return c->errors[item] != 0; }

static int has_fp64(void **state) { return hst_backend_device(BE(state))->fp64; }

/* xorshift64* */
typedef struct rng { uint64_t s; } rng;
static uint64_t rng_next(rng *r) {
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static rng rng_make(uint64_t seed) {
    rng r;
    r.s = seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
    if (!r.s) r.s = 1;
    return r;
}
/* uniform double in [0, 1) */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
/* uniform double in [lo, hi) */
static double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

/* Fills n elements of dtype dt with values in [lo, hi) (integers: rounded down into range). */
static void fill_random(hst_dtype dt, void *p, size_t n, uint64_t seed, double lo, double hi) {
    rng r = rng_make(seed);
    size_t i;
    for (i = 0; i < n; i++) {
        double v = rng_range(&r, lo, hi);
        switch (dt) {
        case HST_U8: ((uint8_t *)p)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); break;
        case HST_I8: ((int8_t *)p)[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); break;
        case HST_I16: ((int16_t *)p)[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); break;
        case HST_I32: ((int32_t *)p)[i] = (int32_t)v; break;
        case HST_I64: ((int64_t *)p)[i] = (int64_t)v; break;
        case HST_F32: ((float *)p)[i] = (float)v; break;
        case HST_F64: ((double *)p)[i] = v; break;
        case HST_C64:
            ((float *)p)[2 * i] = (float)v;
            ((float *)p)[2 * i + 1] = (float)rng_range(&r, lo, hi);
            break;
        case HST_C128:
            ((double *)p)[2 * i] = v;
            ((double *)p)[2 * i + 1] = rng_range(&r, lo, hi);
            break;
        }
    }
}

/* Orders floats/doubles as integers so that adjacent representable values differ by 1. */
static int64_t f_ord(float x) {
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}
static int64_t d_ord(double x) {
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? -(i & INT64_MAX) : i;
}
/* ulp distance: +0 and -0 equal; NaN vs NaN 0; NaN vs number "infinite". */
static uint64_t ulp_f(float a, float b) {
    int64_t d;
    if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : UINT64_MAX;
    d = f_ord(a) - f_ord(b);
    return (uint64_t)(d < 0 ? -d : d);
}
static uint64_t ulp_d(double a, double b) {
    int64_t oa, ob;
    if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : UINT64_MAX;
    oa = d_ord(a);
    ob = d_ord(b);
    if ((oa >= 0) == (ob >= 0)) return (uint64_t)(oa > ob ? oa - ob : ob - oa);
    return (uint64_t)(oa < 0 ? -oa : oa) + (uint64_t)(ob < 0 ? -ob : ob);
}

#define N_ALL 9
static const hst_dtype ALL_DT[N_ALL] = {HST_U8, HST_I32, HST_F32, HST_F64, HST_C64,
                                        HST_I8, HST_I16, HST_I64, HST_C128};
/* 1 when dt needs fp64 and the device lacks it (the test skips the dtype there). */
static int no_fp64(void **state, hst_dtype dt) { return hst_dtype_needs_fp64(dt) && !has_fp64(state); }
/* Complex dtypes hold two reals per element. */
static size_t parts(hst_dtype dt) { return hst_dtype_is_complex(dt) ? 2 : 1; }

/* Creates a 1-D array of n elements, asserting success. */
static hst_array *mk1(hst_backend *be, hst_dtype dt, size_t n) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_create(be, dt, 1, &n, &a), HST_SUCCESS);
    assert_non_null(a);
    return a;
}

/* Creates a 1-D array of n elements holding host data. */
static hst_array *mk1_data(hst_backend *be, hst_dtype dt, size_t n, const void *data) {
    hst_array *a = mk1(be, dt, n);
    assert_int_equal(hst_array_write(a, data, n * hst_dtype_size(dt)), HST_SUCCESS);
    return a;
}

/* Reads a whole array into fresh memory. */
static void *rd(const hst_array *a) {
    void *p = malloc(hst_array_bytes(a) ? hst_array_bytes(a) : 1);
    assert_non_null(p);
    assert_int_equal(hst_array_read(a, p, hst_array_bytes(a)), HST_SUCCESS);
    return p;
}

/* Prints the first differing element's bytes (for diagnosis) and fails when a != b. */
static void assert_bits(const void *got, const void *want, size_t n, size_t esize,
                        const char *what) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (memcmp((const char *)got + i * esize, (const char *)want + i * esize, esize)) {
            size_t k;
            fprintf(stderr, "# %s: element %zu differs: got", what, i);
            for (k = 0; k < esize; k++) fprintf(stderr, " %02x", ((const unsigned char *)got)[i * esize + k]);
            fprintf(stderr, " want");
            for (k = 0; k < esize; k++) fprintf(stderr, " %02x", ((const unsigned char *)want)[i * esize + k]);
            fprintf(stderr, "\n");
            fail_msg("%s: element %zu of %zu differs", what, i, n);
        }
    }
}

/* ------------------------------------------------------------------------------------------
   Creation and accessors: 1-D..4-D shapes report dtype, ndim, shape, count and bytes as given;
   the shape is copied (the caller's array may change afterwards). */
static void test_create_accessors(void **state) {
    hst_backend *be = BE(state);
    static const size_t shapes[4][4] = {{7, 0, 0, 0}, {3, 5, 0, 0}, {2, 3, 4, 0}, {2, 1, 3, 5}};
    unsigned nd;
    int d;
    for (d = 0; d < N_ALL; d++) {
        hst_dtype dt = ALL_DT[d];
        if (no_fp64(state, dt)) continue;
        for (nd = 1; nd <= 4; nd++) {
            size_t shape[4], count = 1;
            hst_array *a = NULL;
            unsigned k;
            memcpy(shape, shapes[nd - 1], sizeof shape);
            for (k = 0; k < nd; k++) count *= shape[k];
            assert_int_equal(hst_array_create(be, dt, nd, shape, &a), HST_SUCCESS);
            shape[0] = 99; /* the array keeps its own copy */
            assert_int_equal(hst_array_dtype(a), dt);
            assert_int_equal(hst_array_ndim(a), nd);
            for (k = 0; k < nd; k++) assert_int_equal(hst_array_shape(a)[k], shapes[nd - 1][k]);
            assert_int_equal(hst_array_count(a), count);
            assert_int_equal(hst_array_bytes(a), count * hst_dtype_size(dt));
            assert_non_null(hst_array_buffer(a));
            hst_array_destroy(a);
        }
    }
    hst_array_destroy(NULL);
}

/* ------------------------------------------------------------------------------------------
   Write/read round trip for every dtype: what is written comes back bit for bit (including NaN
   payloads, -0 and denormals for the float types); on a device without fp64, creating an f64
   array answers HST_ERROR_DTYPE. */
static void test_roundtrip(void **state) {
    hst_backend *be = BE(state);
    int d;
    size_t n = 1000;
    for (d = 0; d < N_ALL; d++) {
        hst_dtype dt = ALL_DT[d];
        size_t es = hst_dtype_size(dt), i;
        unsigned char *src, *back;
        hst_array *a = NULL;
        size_t shape[2] = {10, 100};
        rng r = rng_make(11 + (uint64_t)d);
        if (no_fp64(state, dt)) {
            cap_reset(LOG(state));
            assert_int_equal(hst_array_create(be, dt, 2, shape, &a), HST_ERROR_DTYPE);
            assert_null(a);
            assert_true(cap_has(LOG(state), HST_LOGITEM_DTYPE));
            continue;
        }
        src = (unsigned char *)malloc(n * es);
        assert_non_null(src);
        for (i = 0; i < n * es; i++) src[i] = (unsigned char)(rng_next(&r) >> 56);
        assert_int_equal(hst_array_create(be, dt, 2, shape, &a), HST_SUCCESS);
        assert_int_equal(hst_array_write(a, src, n * es), HST_SUCCESS);
        back = (unsigned char *)rd(a);
        assert_memory_equal(back, src, n * es);
        /* a second write replaces the contents */
        for (i = 0; i < n * es; i++) src[i] ^= 0x5a;
        assert_int_equal(hst_array_write(a, src, n * es), HST_SUCCESS);
        assert_int_equal(hst_array_read(a, back, n * es), HST_SUCCESS);
        assert_memory_equal(back, src, n * es);
        free(back);
        free(src);
        hst_array_destroy(a);
    }
}

/* ------------------------------------------------------------------------------------------
   fill/zeros/ones for every dtype: every element equals the expected element bytes (integers
   saturate value.i64 to the dtype; floats take value.re, c64 (re, im); ones of c64 is 1+0i). */
static void expect_filled(hst_array *a, const void *el, const char *what) {
    size_t n = hst_array_count(a), es = hst_dtype_size(hst_array_dtype(a)), i;
    unsigned char *want = (unsigned char *)malloc(n * es), *got;
    assert_non_null(want);
    for (i = 0; i < n; i++) memcpy(want + i * es, el, es);
    got = (unsigned char *)rd(a);
    assert_bits(got, want, n, es, what);
    free(got);
    free(want);
}

static void test_fill(void **state) {
    hst_backend *be = BE(state);
    size_t shape[3] = {3, 7, 13};   /* 273 elements: not a multiple of anything nice */
    int d;
    for (d = 0; d < N_ALL; d++) {
        hst_dtype dt = ALL_DT[d];
        hst_array *a = NULL;
        unsigned char zero[16], one[16], v1[16], v2[16];
        hst_scalar s1, s2;
        if (no_fp64(state, dt)) continue;
        assert_int_equal(hst_array_create(be, dt, 3, shape, &a), HST_SUCCESS);
        memset(zero, 0, sizeof zero);
        memset(one, 0, sizeof one);
        memset(v1, 0, sizeof v1);
        memset(v2, 0, sizeof v2);
        switch (dt) {
        case HST_U8: {
            uint8_t o = 1, a1 = 0, a2 = 200;
            memcpy(one, &o, 1); memcpy(v1, &a1, 1); memcpy(v2, &a2, 1);
            s1 = hst_int(-3); s2 = hst_int(200);
            break;
        }
        case HST_I32: {
            int32_t o = 1, a1 = INT32_MAX, a2 = -123456;
            memcpy(one, &o, 4); memcpy(v1, &a1, 4); memcpy(v2, &a2, 4);
            s1 = hst_int(5000000000LL); s2 = hst_int(-123456);
            break;
        }
        case HST_F32: {
            float o = 1.0f, a1 = 0.1f, a2 = -0.0f;
            memcpy(one, &o, 4); memcpy(v1, &a1, 4); memcpy(v2, &a2, 4);
            s1 = hst_real(0.1); s2 = hst_real(-0.0);
            break;
        }
        case HST_F64: {
            double o = 1.0, a1 = 0.1, a2 = -1e300;
            memcpy(one, &o, 8); memcpy(v1, &a1, 8); memcpy(v2, &a2, 8);
            s1 = hst_real(0.1); s2 = hst_real(-1e300);
            break;
        }
        case HST_I8: {
            int8_t o = 1, a1 = -128, a2 = 127;
            memcpy(one, &o, 1); memcpy(v1, &a1, 1); memcpy(v2, &a2, 1);
            s1 = hst_int(-300); s2 = hst_int(1000);
            break;
        }
        case HST_I16: {
            int16_t o = 1, a1 = -32768, a2 = -1234;
            memcpy(one, &o, 2); memcpy(v1, &a1, 2); memcpy(v2, &a2, 2);
            s1 = hst_int(-40000); s2 = hst_int(-1234);
            break;
        }
        case HST_I64: {
            int64_t o = 1, a1 = INT64_MIN, a2 = (int64_t)9007199254740993LL;   /* not a double */
            memcpy(one, &o, 8); memcpy(v1, &a1, 8); memcpy(v2, &a2, 8);
            s1 = hst_int(INT64_MIN); s2 = hst_int(9007199254740993LL);
            break;
        }
        case HST_C128: {
            double o[2] = {1.0, 0.0}, a1[2] = {0.1, -1e300}, a2[2] = {-0.0, 3e-320};
            memcpy(one, o, 16); memcpy(v1, a1, 16); memcpy(v2, a2, 16);
            s1 = hst_complex(0.1, -1e300); s2 = hst_complex(-0.0, 3e-320);
            break;
        }
        default: {
            float o[2] = {1.0f, 0.0f}, a1[2] = {1.5f, -2.25f}, a2[2] = {0.1f, 3e38f};
            memcpy(one, o, 8); memcpy(v1, a1, 8); memcpy(v2, a2, 8);
            s1 = hst_complex(1.5, -2.25); s2 = hst_complex(0.1, 3e38);
            break;
        }
        }
        assert_int_equal(hst_array_fill(a, s1), HST_SUCCESS);
        expect_filled(a, v1, "fill 1");
        assert_int_equal(hst_array_zeros(a), HST_SUCCESS);
        expect_filled(a, zero, "zeros");
        assert_int_equal(hst_array_fill(a, s2), HST_SUCCESS);
        expect_filled(a, v2, "fill 2");
        assert_int_equal(hst_array_ones(a), HST_SUCCESS);
        expect_filled(a, one, "ones");
        hst_array_destroy(a);
    }
    { /* saturation at the other ends */
        hst_array *a = mk1(be, HST_U8, 5), *b = mk1(be, HST_I32, 5);
        uint8_t u = 255;
        int32_t i = INT32_MIN;
        assert_int_equal(hst_array_fill(a, hst_int(1000)), HST_SUCCESS);
        expect_filled(a, &u, "u8 fill 1000");
        assert_int_equal(hst_array_fill(b, hst_int(-5000000000LL)), HST_SUCCESS);
        expect_filled(b, &i, "i32 fill -5e9");
        hst_array_destroy(a);
        hst_array_destroy(b);
    }
}

/* ------------------------------------------------------------------------------------------
   copy: dst gets src's bytes exactly (every dtype), src is unchanged, copy onto itself is a
   no-op, and a later change of src does not show in dst (distinct storage). */
static void test_copy(void **state) {
    hst_backend *be = BE(state);
    int d;
    size_t n = 5000;
    for (d = 0; d < N_ALL; d++) {
        hst_dtype dt = ALL_DT[d];
        size_t es = hst_dtype_size(dt);
        void *src, *got;
        hst_array *a, *b;
        if (no_fp64(state, dt)) continue;
        src = malloc(n * es);
        assert_non_null(src);
        fill_random(dt, src, n, 100 + (uint64_t)d, -1e3, 1e3);
        a = mk1_data(be, dt, n, src);
        b = mk1(be, dt, n);
        assert_int_equal(hst_array_zeros(b), HST_SUCCESS);
        assert_int_equal(hst_array_copy(b, a), HST_SUCCESS);
        got = rd(b);
        assert_memory_equal(got, src, n * es);
        free(got);
        got = rd(a);
        assert_memory_equal(got, src, n * es);
        free(got);
        assert_int_equal(hst_array_copy(a, a), HST_SUCCESS);
        got = rd(a);
        assert_memory_equal(got, src, n * es);
        free(got);
        assert_int_equal(hst_array_ones(a), HST_SUCCESS);
        got = rd(b);
        assert_memory_equal(got, src, n * es);
        free(got);
        hst_array_destroy(a);
        hst_array_destroy(b);
        free(src);
    }
}

/* ------------------------------------------------------------------------------------------
   cast: all 81 (dst, src) dtype pairs, on inputs with the edge cases (saturation, NaN, +-inf,
   -0, denormals, .5 ties, huge values), bitwise equal to hst_k_cast_host; plus spot values
   written out by hand, so the twin and the device are both held to the documented rules. */
#define CAST_N 1037
/* Signalling NaNs are made quiet in the general inputs (test_cast_snan covers them alone). */
static void quiet_snan_f(float *f, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &f[i], 4);
        if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x007fffffu)) w |= 0x00400000u;
        memcpy(&f[i], &w, 4);
    }
}
static void quiet_snan_d(double *f, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, &f[i], 8);
        if ((w & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (w & 0x000fffffffffffffull))
            w |= 0x0008000000000000ull;
        memcpy(&f[i], &w, 8);
    }
}
static void cast_input(hst_dtype dt, void *p) {
    static const double fs[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 254.5, 255.0,
                                255.5, 256.0, 300.7, -5.5, -0.999, 0.999, 1e10, -1e10,
                                2147483520.0, 2147483647.0, 2147483648.0, -2147483648.0,
                                -2147483904.0, 16777217.0, 1e-40, -1e-40, 1e-310, 1e38, 3.5e38,
                                1e300, -1e300, 123456789.123456789};
    size_t nf = sizeof fs / sizeof fs[0], i;
    rng r = rng_make(4242 + (uint64_t)dt);
    fill_random(dt, p, CAST_N, 77 + (uint64_t)dt, -3e9, 3e9);
    switch (dt) {
    case HST_U8:
        for (i = 0; i < 256; i++) ((uint8_t *)p)[i] = (uint8_t)i;
        break;
    case HST_I32: {
        static const int32_t is[] = {0, 1, -1, 255, 256, -255, 127, 128, INT32_MAX, INT32_MIN,
                                     INT32_MAX - 1, INT32_MIN + 1, 16777217, -16777217,
                                     2147483520, 1000, -1000};
        for (i = 0; i < sizeof is / sizeof is[0]; i++) ((int32_t *)p)[i] = is[i];
        for (; i < 400; i++) ((int32_t *)p)[i] = (int32_t)(rng_next(&r) >> 32);
        break;
    }
    case HST_F32: {
        float *f = (float *)p;
        for (i = 0; i < nf; i++) f[i] = (float)fs[i];
        f[i++] = NAN; f[i++] = -NAN; f[i++] = INFINITY; f[i++] = -INFINITY;
        f[i++] = FLT_MIN; f[i++] = nextafterf(0.0f, 1.0f); f[i++] = -nextafterf(FLT_MIN, 0.0f);
        f[i++] = FLT_MAX; f[i++] = -FLT_MAX;
        for (; i < 400; i++) { /* random bit patterns: every class of float */
            uint32_t w = (uint32_t)(rng_next(&r) >> 32);
            memcpy(&f[i], &w, 4);
        }
        quiet_snan_f(f, 400);
        break;
    }
    case HST_F64: {
        double *f = (double *)p;
        for (i = 0; i < nf; i++) f[i] = fs[i];
        f[i++] = NAN; f[i++] = -NAN; f[i++] = INFINITY; f[i++] = -INFINITY;
        f[i++] = DBL_MIN; f[i++] = nextafter(0.0, 1.0); f[i++] = FLT_MIN;
        f[i++] = (double)FLT_MAX * 1.0000001; f[i++] = -DBL_MAX;
        f[i++] = 0.5 + 0x1p-30; /* f32 rounding */
        for (; i < 400; i++) {
            uint64_t w = rng_next(&r);
            memcpy(&f[i], &w, 8);
        }
        quiet_snan_d(f, 400);
        break;
    }
    case HST_I8: case HST_I16: case HST_I64: {   /* the other integers' edges, then random bits */
        static const int64_t is[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768,
                                     -32768, -32769, INT32_MAX, INT32_MIN, 16777217, -16777217,
                                     (int64_t)1 << 53, ((int64_t)1 << 53) + 1, INT64_MAX,
                                     INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                                     (int64_t)0x7fffff8000000000ULL, -(int64_t)0x7fffff8000000001ULL};
        for (i = 0; i < 400; i++) {
            uint64_t w = rng_next(&r);
            int64_t v = i < sizeof is / sizeof is[0] ? is[i] : (int64_t)w;
            if (dt == HST_I64) ((int64_t *)p)[i] = v;
            else if (dt == HST_I16) ((int16_t *)p)[i] = (int16_t)(uint16_t)v;
            else ((int8_t *)p)[i] = (int8_t)(uint8_t)v;
        }
        break;
    }
    case HST_C128: {
        double *f = (double *)p;
        for (i = 0; i < nf; i++) { f[2 * i] = fs[i]; f[2 * i + 1] = fs[nf - 1 - i]; }
        f[2 * i] = NAN; f[2 * i + 1] = 1.0; i++;
        f[2 * i] = -INFINITY; f[2 * i + 1] = DBL_MAX; i++;
        f[2 * i] = 9.2233720368547758e18; f[2 * i + 1] = -9.2233720368547758e18; i++;
        for (; i < 400; i++) {
            uint64_t w[2];
            w[0] = rng_next(&r); w[1] = rng_next(&r);
            memcpy(&f[2 * i], w, 16);
        }
        quiet_snan_d(f, 800);
        break;
    }
    case HST_C64: {
        float *f = (float *)p;
        for (i = 0; i < nf; i++) { f[2 * i] = (float)fs[i]; f[2 * i + 1] = (float)fs[nf - 1 - i]; }
        f[2 * i] = NAN; f[2 * i + 1] = 1.0f; i++;
        f[2 * i] = 7.0f; f[2 * i + 1] = NAN; i++;
        f[2 * i] = -INFINITY; f[2 * i + 1] = INFINITY; i++;
        f[2 * i] = -0.0f; f[2 * i + 1] = -0.0f; i++;
        f[2 * i] = nextafterf(0.0f, 1.0f); f[2 * i + 1] = 3e9f; i++;
        for (; i < 400; i++) {
            uint64_t w = rng_next(&r);
            memcpy(&f[2 * i], &w, 8);
        }
        quiet_snan_f(f, 800);
        break;
    }
    }
}

static void test_cast_pairs(void **state) {
    hst_backend *be = BE(state);
    int ds, dd;
    for (ds = 0; ds < N_ALL; ds++) {
        hst_dtype st = ALL_DT[ds];
        void *in;
        hst_array *a;
        if (no_fp64(state, st)) continue;
        in = malloc(CAST_N * 16);
        assert_non_null(in);
        cast_input(st, in);
        a = mk1_data(be, st, CAST_N, in);
        for (dd = 0; dd < N_ALL; dd++) {
            hst_dtype dt = ALL_DT[dd];
            size_t es = hst_dtype_size(dt);
            void *want, *got;
            hst_array *b;
            char what[64];
            if (no_fp64(state, dt)) continue;
            want = malloc(CAST_N * es);
            assert_non_null(want);
            memset(want, 0xEE, CAST_N * es);
            hst_k_cast_host(dt, want, st, in, CAST_N);
            b = mk1(be, dt, CAST_N);
            assert_int_equal(hst_array_fill(b, hst_int(77)), HST_SUCCESS);
            assert_int_equal(hst_array_cast(b, a), HST_SUCCESS);
            got = rd(b);
            snprintf(what, sizeof what, "cast %s -> %s", hst_dtype_name(st), hst_dtype_name(dt));
            assert_bits(got, want, CAST_N, es, what);
            free(got);
            free(want);
            hst_array_destroy(b);
        }
        hst_array_destroy(a);
        free(in);
    }
}

/* cast of signalling NaNs between the float dtypes: still bitwise equal to the twin (the
   contract makes no NaN-payload exception for cast): f32 <-> c64 moves the bits on both sides
   (the twin's hst__cast_f32_c64), every widening or narrowing quiets the NaN on both. */
static void test_cast_snan(void **state) {
    hst_backend *be = BE(state);
    static const hst_dtype fl[4] = {HST_F32, HST_F64, HST_C64, HST_C128};
    int a, b, bad = 0;
    for (a = 0; a < 4; a++) {
        hst_dtype st = fl[a];
        unsigned char in[4 * 16];
        hst_array *x;
        uint32_t sf[8] = {0x7fa00001u, 0xffb9244cu, 0x7f800001u, 0x7fc00000u,
                          0x7fa00001u, 0x3f800000u, 0xff800002u, 0x7fffffffu};
        uint64_t sd[4] = {0x7ff4000000000001ull, 0xfff0000000000001ull, 0x7ff8000000000000ull,
                          0x7ff7ffffffffffffull};
        if (no_fp64(state, st)) continue;
        if (hst_dtype_needs_fp64(st)) { memcpy(in, sd, sizeof sd); memcpy(in + sizeof sd, sd, sizeof sd); }
        else memcpy(in, sf, sizeof sf);
        x = mk1_data(be, st, 4, in);
        for (b = 0; b < 4; b++) {
            hst_dtype dt = fl[b];
            size_t es = hst_dtype_size(dt);
            unsigned char want[4 * 16];
            void *got;
            hst_array *y;
            if (dt == st || (no_fp64(state, dt))) continue;
            hst_k_cast_host(dt, want, st, in, 4);
            y = mk1(be, dt, 4);
            assert_int_equal(hst_array_cast(y, x), HST_SUCCESS);
            got = rd(y);
            if (memcmp(got, want, 4 * es)) {
                size_t k;
                fprintf(stderr, "# cast %s -> %s of signalling NaNs: got", hst_dtype_name(st),
                        hst_dtype_name(dt));
                for (k = 0; k < 4 * es; k += 4) fprintf(stderr, " %08x", (unsigned)(((uint32_t *)got)[k / 4]));
                fprintf(stderr, " want");
                for (k = 0; k < 4 * es; k += 4) fprintf(stderr, " %08x", (unsigned)(((uint32_t *)(void *)want)[k / 4]));
                fprintf(stderr, "\n");
                bad++;
            }
            free(got);
            hst_array_destroy(y);
        }
        hst_array_destroy(x);
    }
    assert_int_equal(bad, 0);
}

/* Casts n host values of dtype st to dt on the device; returns fresh memory. */
static void *dev_cast(hst_backend *be, hst_dtype dt, hst_dtype st, const void *in, size_t n) {
    hst_array *a = mk1_data(be, st, n, in), *b = mk1(be, dt, n);
    void *got;
    assert_int_equal(hst_array_cast(b, a), HST_SUCCESS);
    got = rd(b);
    hst_array_destroy(a);
    hst_array_destroy(b);
    return got;
}

static void test_cast_values(void **state) {
    hst_backend *be = BE(state);
    { /* f32 -> u8 / i32: truncation toward zero, saturation, NaN -> 0 */
        const float in[] = {300.7f, -5.5f, NAN, 1e10f, -1e10f, 2.9f, -2.9f, 255.9f, -0.0f,
                            INFINITY, -INFINITY, 1e-40f, 2147483520.0f};
        const uint8_t wu[] = {255, 0, 0, 255, 0, 2, 0, 255, 0, 255, 0, 0, 255};
        const int32_t wi[] = {300, -5, 0, INT32_MAX, INT32_MIN, 2, -2, 255, 0, INT32_MAX,
                              INT32_MIN, 0, 2147483520};
        size_t n = sizeof in / sizeof in[0];
        uint8_t hu[13];
        int32_t hi[13];
        void *g = dev_cast(be, HST_U8, HST_F32, in, n);
        assert_memory_equal(g, wu, sizeof wu);
        free(g);
        g = dev_cast(be, HST_I32, HST_F32, in, n);
        assert_memory_equal(g, wi, sizeof wi);
        free(g);
        hst_k_cast_host(HST_U8, hu, HST_F32, in, n);   /* the twin agrees with the rules */
        assert_memory_equal(hu, wu, sizeof wu);
        hst_k_cast_host(HST_I32, hi, HST_F32, in, n);
        assert_memory_equal(hi, wi, sizeof wi);
    }
    { /* i32 -> u8 clamps; i32 -> f32 rounds to nearest even */
        const int32_t in[] = {-1, 0, 255, 256, INT32_MAX, INT32_MIN, 16777217, 16777219};
        const uint8_t wu[] = {0, 0, 255, 255, 255, 0, 255, 255};
        const float wf[] = {-1.0f, 0.0f, 255.0f, 256.0f, 2147483648.0f, -2147483648.0f,
                            16777216.0f, 16777220.0f};
        void *g = dev_cast(be, HST_U8, HST_I32, in, 8);
        assert_memory_equal(g, wu, sizeof wu);
        free(g);
        g = dev_cast(be, HST_F32, HST_I32, in, 8);
        assert_memory_equal(g, wf, sizeof wf);
        free(g);
    }
    { /* c64 -> f32 takes re; f32 -> c64 sets im = +0; -0 and denormals survive */
        const float c[8] = {1.5f, 2.5f, -0.0f, 9.0f, 1e-40f, -3.0f, NAN, 4.0f};
        const float wre[4] = {1.5f, -0.0f, 1e-40f, NAN};
        const float r[3] = {-0.0f, 1e-40f, -INFINITY};
        const float wc[6] = {-0.0f, 0.0f, 1e-40f, 0.0f, -INFINITY, 0.0f};
        float *g = (float *)dev_cast(be, HST_F32, HST_C64, c, 4);
        assert_memory_equal(g, wre, 3 * sizeof(float));
        assert_true(isnan(g[3]));
        free(g);
        g = (float *)dev_cast(be, HST_C64, HST_F32, r, 3);
        assert_memory_equal(g, wc, sizeof wc);
        free(g);
    }
    if (has_fp64(state)) { /* f64 -> f32 rounds to nearest even, overflows to inf, keeps -0 */
        const double in[] = {0.1, -0.0, 1e300, -1e300, 1e-320, 1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-50};
        const float w[] = {0.1f, -0.0f, INFINITY, -INFINITY, 0.0f, 1.0f, 1.0f + 0x1p-23f};
        const int32_t wi[] = {0, 0, INT32_MAX, INT32_MIN, 0, 1, 1};
        void *g = dev_cast(be, HST_F32, HST_F64, in, 7);
        assert_memory_equal(g, w, sizeof w);
        free(g);
        g = dev_cast(be, HST_I32, HST_F64, in, 7);
        assert_memory_equal(g, wi, sizeof wi);
        free(g);
    }
}

/* ------------------------------------------------------------------------------------------
   scale and axpy for f32, f64, c64 with several alphas (0, 1, -1, 0.1 (not exact in float),
   1e30 (overflow to inf), a denormal, and complex alphas for c64): bitwise equal to
   hst_k_scale_host / hst_k_axpy_host (alpha rounded to the element type, the product rounded
   before the add); x of axpy is unchanged. */
static const double ALPHAS[][2] = {{0.0, 0.0}, {1.0, 0.0}, {-1.0, 0.0}, {0.1, 0.0},
                                   {1e30, 0.0}, {1e-42, 0.0}, {0.1, 0.7}, {-2.5, -1.0 / 3.0},
                                   {0.0, 1.0}, {1.0000001, 1e-8}};
#define N_ALPHAS (sizeof ALPHAS / sizeof ALPHAS[0])
#define N_ARITH 4
static const hst_dtype ARITH_DT[N_ARITH] = {HST_F32, HST_F64, HST_C64, HST_C128};

static void test_scale(void **state) {
    hst_backend *be = BE(state);
    size_t n = 4099, k;
    int d;
    for (d = 0; d < N_ARITH; d++) {
        hst_dtype dt = ARITH_DT[d];
        size_t es = hst_dtype_size(dt);
        void *in, *want, *got;
        hst_array *x;
        if (no_fp64(state, dt)) continue;
        in = malloc(n * es);
        want = malloc(n * es);
        assert_non_null(in);
        assert_non_null(want);
        fill_random(dt, in, n, 300 + (uint64_t)d, -1e3, 1e3);
        x = mk1(be, dt, n);
        for (k = 0; k < N_ALPHAS; k++) {
            char what[64];
            if (!hst_dtype_is_complex(dt) && ALPHAS[k][1] != 0.0) continue;
            assert_int_equal(hst_array_write(x, in, n * es), HST_SUCCESS);
            assert_int_equal(hst_array_scale(x, hst_complex(ALPHAS[k][0], ALPHAS[k][1])), HST_SUCCESS);
            memcpy(want, in, n * es);
            hst_k_scale_host(dt, want, n, ALPHAS[k]);
            got = rd(x);
            snprintf(what, sizeof what, "scale %s alpha (%g, %g)", hst_dtype_name(dt), ALPHAS[k][0], ALPHAS[k][1]);
            assert_bits(got, want, n, es, what);
            free(got);
        }
        { /* scale by 2 is exact: an independent check of the twin's meaning */
            double two[2] = {2.0, 0.0};
            assert_int_equal(hst_array_write(x, in, n * es), HST_SUCCESS);
            assert_int_equal(hst_array_scale(x, hst_real(2.0)), HST_SUCCESS);
            got = rd(x);
            memcpy(want, in, n * es);
            hst_k_scale_host(dt, want, n, two);
            assert_bits(got, want, n, es, "scale by 2");
            if (dt == HST_F64 || dt == HST_C128) assert_true(((double *)got)[5] == 2.0 * ((double *)in)[5]);
            else assert_true(((float *)got)[5] == 2.0f * ((float *)in)[5]);
            free(got);
        }
        hst_array_destroy(x);
        free(in);
        free(want);
    }
}

static void test_axpy(void **state) {
    hst_backend *be = BE(state);
    size_t n = 5001, k;
    int d;
    for (d = 0; d < N_ARITH; d++) {
        hst_dtype dt = ARITH_DT[d];
        size_t es = hst_dtype_size(dt);
        void *xin, *yin, *want, *got;
        hst_array *x, *y;
        if (no_fp64(state, dt)) continue;
        xin = malloc(n * es);
        yin = malloc(n * es);
        want = malloc(n * es);
        assert_non_null(xin);
        assert_non_null(yin);
        assert_non_null(want);
        fill_random(dt, xin, n, 400 + (uint64_t)d, -10.0, 10.0);
        fill_random(dt, yin, n, 500 + (uint64_t)d, -10.0, 10.0);
        x = mk1_data(be, dt, n, xin);
        y = mk1(be, dt, n);
        for (k = 0; k < N_ALPHAS; k++) {
            char what[64];
            if (!hst_dtype_is_complex(dt) && ALPHAS[k][1] != 0.0) continue;
            assert_int_equal(hst_array_write(y, yin, n * es), HST_SUCCESS);
            assert_int_equal(hst_array_axpy(y, hst_complex(ALPHAS[k][0], ALPHAS[k][1]), x), HST_SUCCESS);
            memcpy(want, yin, n * es);
            hst_k_axpy_host(dt, want, xin, n, ALPHAS[k]);
            got = rd(y);
            snprintf(what, sizeof what, "axpy %s alpha (%g, %g)", hst_dtype_name(dt), ALPHAS[k][0], ALPHAS[k][1]);
            assert_bits(got, want, n, es, what);
            free(got);
        }
        got = rd(x);   /* x is read-only */
        assert_memory_equal(got, xin, n * es);
        free(got);
        /* accumulate twice: y += a x; y += a x */
        {
            double a[2] = {0.3, -0.2};
            assert_int_equal(hst_array_write(y, yin, n * es), HST_SUCCESS);
            assert_int_equal(hst_array_axpy(y, hst_complex(a[0], a[1]), x), HST_SUCCESS);
            assert_int_equal(hst_array_axpy(y, hst_complex(a[0], a[1]), x), HST_SUCCESS);
            memcpy(want, yin, n * es);
            hst_k_axpy_host(dt, want, xin, n, a);
            hst_k_axpy_host(dt, want, xin, n, a);
            got = rd(y);
            assert_bits(got, want, n, es, "axpy twice");
            free(got);
        }
        /* y = 1*x + y with y == x doubles x */
        {
            double one[2] = {1.0, 0.0};
            assert_int_equal(hst_array_axpy(x, hst_real(1.0), x), HST_SUCCESS);
            memcpy(want, xin, n * es);
            hst_k_axpy_host(dt, want, xin, n, one);
            got = rd(x);
            assert_bits(got, want, n, es, "axpy aliasing");
            free(got);
        }
        hst_array_destroy(x);
        hst_array_destroy(y);
        free(xin);
        free(yin);
        free(want);
    }
}

/* ------------------------------------------------------------------------------------------
   math for f32 and f64 against hst_k_math_host: abs bitwise; sqrt bitwise where the device
   rounds sqrt correctly (else within 3 ulp); exp within 3 ulp, sin/cos within 4, pow within 16
   (p = 2.5 and -1.5 on positive inputs). Inputs include the special values (+-0, +-inf, NaN,
   denormals, negatives for sqrt). Runs both out of place (src unchanged) and in place. */
#define MATH_N 3001
static void math_input(hst_dtype dt, hst_math_op op, void *p, uint64_t seed) {
    double lo = -1e3, hi = 1e3;
    size_t i = 0;
    static const double sp[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 3.14159, -3.14159, 10.0,
                                88.0, -87.0, 1e-40, 100.0, 1e4};
    switch (op) {
    case HST_MATH_SQRT: lo = 0.0; hi = 1e6; break;
    case HST_MATH_EXP: lo = dt == HST_F32 ? -87.0 : -700.0; hi = dt == HST_F32 ? 88.0 : 700.0; break;
    case HST_MATH_SIN: case HST_MATH_COS: lo = -1e4; hi = 1e4; break;
    case HST_MATH_POW: lo = 1e-3; hi = 1e3; break;
    case HST_MATH_ARCCOS: lo = -1.0; hi = 1.0; break;
    case HST_MATH_ERFC: lo = -6.0; hi = dt == HST_F32 ? 10.0 : 27.0; break;   /* to the denormals */
    default: break;
    }
    fill_random(dt, p, MATH_N, seed, lo, hi);
    if (op == HST_MATH_POW) return;   /* positive inputs only */
    for (i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        if (dt == HST_F32) ((float *)p)[i] = (float)sp[i]; else ((double *)p)[i] = sp[i];
    }
    if (dt == HST_F32) {
        float *f = (float *)p;
        f[i++] = INFINITY; f[i++] = -INFINITY; f[i++] = NAN; f[i++] = nextafterf(0.0f, 1.0f);
        f[i++] = FLT_MAX; f[i++] = -2.0f; f[i++] = 1e-30f;
        for (; i < 200; i++) f[i] = (float)ldexp(1.0 + (double)i / 256.0, (int)i % 60 - 30);
    } else {
        double *f = (double *)p;
        f[i++] = INFINITY; f[i++] = -INFINITY; f[i++] = NAN; f[i++] = nextafter(0.0, 1.0);
        f[i++] = DBL_MAX; f[i++] = -2.0; f[i++] = 1e-300;
        for (; i < 200; i++) f[i] = ldexp(1.0 + (double)i / 256.0, (int)i % 60 - 30);
    }
}

static void check_math(void **state, hst_dtype dt, hst_math_op op, double pw, uint64_t bound) {
    hst_backend *be = BE(state);
    size_t es = hst_dtype_size(dt), i, worst_i = 0;
    uint64_t worst = 0;
    void *in = malloc(MATH_N * es), *want = malloc(MATH_N * es), *got;
    hst_array *x, *y;
    assert_non_null(in);
    assert_non_null(want);
    math_input(dt, op, in, 600 + (uint64_t)op * 7 + (uint64_t)dt);
    x = mk1_data(be, dt, MATH_N, in);
    y = mk1(be, dt, MATH_N);
    hst_k_math_host(dt, want, in, MATH_N, op, pw);
    assert_int_equal(hst_array_math(y, x, op, pw), HST_SUCCESS);
    got = rd(y);
    for (i = 0; i < MATH_N; i++) {
        uint64_t u = dt == HST_F32 ? ulp_f(((float *)got)[i], ((float *)want)[i])
                                   : ulp_d(((double *)got)[i], ((double *)want)[i]);
        if (u > worst) { worst = u; worst_i = i; }
    }
    if (bound == 0) {
        /* NaN results (sqrt of a negative number) carry the device's own payload: NVIDIA
           returns 0x7fffffff where x86 returns 0xffc00000, so a NaN only has to be a NaN */
        for (i = 0; i < MATH_N; i++) {
            int nan_got = dt == HST_F32 ? isnan(((float *)got)[i]) : isnan(((double *)got)[i]);
            int nan_want = dt == HST_F32 ? isnan(((float *)want)[i]) : isnan(((double *)want)[i]);
            assert_int_equal(nan_got, nan_want);
            if (nan_got) memcpy((char *)got + i * es, (char *)want + i * es, es);
        }
        assert_bits(got, want, MATH_N, es, "math (bitwise)");
    } else if (worst > bound) {
        if (dt == HST_F32)
            fail_msg("math op %d f32: element %zu (x = %.9g) got %.9g want %.9g: %llu ulp > %llu",
                     (int)op, worst_i, ((float *)in)[worst_i], ((float *)got)[worst_i],
                     ((float *)want)[worst_i], (unsigned long long)worst, (unsigned long long)bound);
        else
            fail_msg("math op %d f64: element %zu (x = %.17g) got %.17g want %.17g: %llu ulp > %llu",
                     (int)op, worst_i, ((double *)in)[worst_i], ((double *)got)[worst_i],
                     ((double *)want)[worst_i], (unsigned long long)worst, (unsigned long long)bound);
    }
    free(got);
    got = rd(x);   /* src unchanged */
    assert_memory_equal(got, in, MATH_N * es);
    free(got);
    /* in place: dst == src gives the same values */
    {
        void *g1 = rd(y), *g2;
        assert_int_equal(hst_array_math(x, x, op, pw), HST_SUCCESS);
        g2 = rd(x);
        assert_memory_equal(g2, g1, MATH_N * es);
        free(g1);
        free(g2);
    }
    hst_array_destroy(x);
    hst_array_destroy(y);
    free(in);
    free(want);
}

static void test_math(void **state) {
    int d;
    for (d = 0; d < 2; d++) {
        hst_dtype dt = d == 0 ? HST_F32 : HST_F64;
        int crsqrt = hst_backend_device(BE(state))->correctly_rounded_sqrt;
        if (no_fp64(state, dt)) continue;
        check_math(state, dt, HST_MATH_ABS, 0.0, 0);
        /* f64 sqrt is correctly rounded on every OpenCL device; f32 only where the flag says */
        check_math(state, dt, HST_MATH_SQRT, 0.0, (dt == HST_F64 || crsqrt) ? 0 : 3);
        check_math(state, dt, HST_MATH_EXP, 0.0, 3);
        check_math(state, dt, HST_MATH_SIN, 0.0, 4);
        check_math(state, dt, HST_MATH_COS, 0.0, 4);
        check_math(state, dt, HST_MATH_POW, 2.5, 16);
        check_math(state, dt, HST_MATH_POW, -1.5, 16);
        /* against the double libm rounded once (the f32 twin) or libm itself (f64, within 1
           ulp): OpenCL's acos 4 ulp and erfc 16 ulp, plus 1 for the reference */
        check_math(state, dt, HST_MATH_ARCCOS, 0.0, 5);
        check_math(state, dt, HST_MATH_ERFC, 0.0, 17);
    }
    { /* spot values, independent of the twin */
        hst_backend *be = BE(state);
        const float in[4] = {-2.0f, 4.0f, 0.0f, -0.0f};
        float got[4];
        hst_array *x = mk1_data(be, HST_F32, 4, in);
        assert_int_equal(hst_array_math(x, x, HST_MATH_ABS, 0.0), HST_SUCCESS);
        assert_int_equal(hst_array_read(x, got, sizeof got), HST_SUCCESS);
        assert_true(got[0] == 2.0f && got[1] == 4.0f && got[2] == 0.0f && !signbit(got[3]));
        assert_int_equal(hst_array_math(x, x, HST_MATH_SQRT, 0.0), HST_SUCCESS);
        assert_int_equal(hst_array_read(x, got, sizeof got), HST_SUCCESS);
        assert_true(got[1] == 2.0f && got[2] == 0.0f);
        assert_int_equal(hst_array_math(x, x, HST_MATH_POW, 2.0), HST_SUCCESS);
        assert_int_equal(hst_array_read(x, got, sizeof got), HST_SUCCESS);
        assert_true(ulp_f(got[0], 2.0f) <= 16 && ulp_f(got[1], 4.0f) <= 16);
        hst_array_destroy(x);
    }
}

/* A call fails with code and logs item at ERROR (cap: the test's capture). */
#define EXPECT_ERR(call, code, item)                                                        \
    do {                                                                                    \
        cap_reset(cap);                                                                     \
        assert_int_equal((call), (code));                                                   \
        if (!cap_has(cap, (item)))                                                          \
            fail_msg("%s: log item %s not captured (%u messages, last: %s %s)", #call,      \
                     hst_log_item_name(item), cap->total, hst_log_item_name(cap->last_item), \
                     cap->last_message);                                                    \
    } while (0)

/* ------------------------------------------------------------------------------------------
   arccos, erfc spot values (exact where IEEE and OpenCL define them) and numpy.arctan2 through
   hst_array_binary: within 7 ulp (OpenCL's atan2 6, plus the reference's rounding) of the
   double libm (rounded once for f32) on random and special pairs, broadcasting, and NumPy's
   signed zeros exactly: arctan2(+-0, +0) = +-0, arctan2(+-0, -0) = +-pi, arctan2(+-0, x < 0)
   = +-pi, arctan2(+-y, +-inf) and the quadrants of infinities; NaN in, NaN out. */
static const double ATAN2_SP[][2] = {
    {0.0, 0.0}, {-0.0, 0.0}, {0.0, -0.0}, {-0.0, -0.0}, {0.0, -1.0}, {-0.0, -1.0}, {0.0, 2.0},
    {-0.0, 2.0}, {1.0, 0.0}, {-1.0, -0.0}, {INFINITY, INFINITY}, {INFINITY, -INFINITY},
    {-INFINITY, INFINITY}, {-INFINITY, -INFINITY}, {3.0, INFINITY}, {3.0, -INFINITY},
    {-3.0, -INFINITY}, {NAN, 1.0}, {1.0, NAN}, {1e-40, 1e30}, {1e30, 1e-40}, {-2.5, -2.5}};
#define N_ATAN2_SP (sizeof ATAN2_SP / sizeof ATAN2_SP[0])

static void check_atan2(void **state, hst_dtype dt) {
    hst_backend *be = BE(state);
    size_t n = 4099, es = hst_dtype_size(dt), i;
    void *a = malloc(n * es), *b = malloc(n * es), *got;
    hst_array *xa, *xb, *xd;
    assert_non_null(a);
    assert_non_null(b);
    fill_random(dt, a, n, 71, -1e3, 1e3);
    fill_random(dt, b, n, 72, -1e3, 1e3);
    for (i = 0; i < N_ATAN2_SP; i++) {
        if (dt == HST_F32) { ((float *)a)[i] = (float)ATAN2_SP[i][0]; ((float *)b)[i] = (float)ATAN2_SP[i][1]; }
        else { ((double *)a)[i] = ATAN2_SP[i][0]; ((double *)b)[i] = ATAN2_SP[i][1]; }
    }
    xa = mk1_data(be, dt, n, a);
    xb = mk1_data(be, dt, n, b);
    xd = mk1(be, dt, n);
    assert_int_equal(hst_array_binary(xd, xa, xb, HST_BINARY_ARCTAN2), HST_SUCCESS);
    got = rd(xd);
    for (i = 0; i < n; i++) {
        double y = dt == HST_F32 ? ((float *)a)[i] : ((double *)a)[i];
        double x = dt == HST_F32 ? ((float *)b)[i] : ((double *)b)[i];
        double w = atan2(y, x);
        uint64_t u = dt == HST_F32 ? ulp_f(((float *)got)[i], (float)w) : ulp_d(((double *)got)[i], w);
        double g = dt == HST_F32 ? ((float *)got)[i] : ((double *)got)[i];
        if (u > 7) fail_msg("arctan2 %s (%.17g, %.17g): got %.17g want %.17g (%llu ulp)", hst_dtype_name(dt), y, x, g, w, (unsigned long long)u);
        if (w == 0.0 && !(g == 0.0 && signbit(g) == signbit(w)))   /* signed zeros exactly */
            fail_msg("arctan2 %s (%g, %g): got %g, want %g", hst_dtype_name(dt), y, x, g, w);
    }
    free(got);
    {   /* broadcasting (3, 1) against (4,): dst (3, 4), as numpy.arctan2 does */
        size_t sc[2] = {3, 1}, sr = 4, sd[2] = {3, 4}, j;
        hst_array *c, *r, *o;
        assert_int_equal(hst_array_create(be, dt, 2, sc, &c), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, dt, 1, &sr, &r), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, dt, 2, sd, &o), HST_SUCCESS);
        assert_int_equal(hst_array_write(c, a, 3 * es), HST_SUCCESS);
        assert_int_equal(hst_array_write(r, (char *)b + 4 * es, 4 * es), HST_SUCCESS);
        assert_int_equal(hst_array_binary(o, c, r, HST_BINARY_ARCTAN2), HST_SUCCESS);
        got = rd(o);
        for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) {
            double y = dt == HST_F32 ? ((float *)a)[i] : ((double *)a)[i];
            double x = dt == HST_F32 ? ((float *)b)[4 + j] : ((double *)b)[4 + j];
            uint64_t u = dt == HST_F32 ? ulp_f(((float *)got)[i * 4 + j], (float)atan2(y, x))
                                       : ulp_d(((double *)got)[i * 4 + j], atan2(y, x));
            assert_true(u <= 7);
        }
        free(got);
        hst_array_destroy(c); hst_array_destroy(r); hst_array_destroy(o);
    }
    hst_array_destroy(xa); hst_array_destroy(xb); hst_array_destroy(xd);
    free(a); free(b);
}

static void test_transcendentals(void **state) {
    hst_backend *be = BE(state);
    cap_log *cap = LOG(state);
    const float in[6] = {1.0f, -1.0f, 0.0f, -INFINITY, INFINITY, NAN};
    float got[6];
    hst_array *x = mk1_data(be, HST_F32, 6, in), *y = mk1(be, HST_F32, 6), *k = mk1(be, HST_I32, 6);
    assert_int_equal(hst_array_math(y, x, HST_MATH_ARCCOS, 0.0), HST_SUCCESS);
    assert_int_equal(hst_array_read(y, got, sizeof got), HST_SUCCESS);
    assert_true(got[0] == 0.0f && !signbit(got[0]));                 /* acos(1) = +0 */
    assert_true(ulp_f(got[1], (float)acos(-1.0)) <= 5);              /* acos(-1) = pi */
    assert_true(ulp_f(got[2], (float)acos(0.0)) <= 5);
    assert_true(isnan(got[3]) && isnan(got[4]) && isnan(got[5]));    /* outside [-1, 1] */
    assert_int_equal(hst_array_math(y, x, HST_MATH_ERFC, 0.0), HST_SUCCESS);
    assert_int_equal(hst_array_read(y, got, sizeof got), HST_SUCCESS);
    assert_true(ulp_f(got[0], (float)erfc(1.0)) <= 17 && ulp_f(got[1], (float)erfc(-1.0)) <= 17);
    assert_true(got[2] == 1.0f && got[3] == 2.0f && got[4] == 0.0f && !signbit(got[4]) && isnan(got[5]));
    check_atan2(state, HST_F32);
    if (has_fp64(state)) check_atan2(state, HST_F64);
    /* integers have no arctan2 (NumPy would promote to float): the dtype error names it */
    EXPECT_ERR(hst_array_binary(k, k, k, HST_BINARY_ARCTAN2), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    assert_non_null(strstr(cap->last_message, "i32"));
    EXPECT_ERR(hst_array_math(k, k, HST_MATH_ERFC, 0.0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(k);
}

/* ------------------------------------------------------------------------------------------
   Reductions sum/dot/sqnorm/min/max, every supported dtype, sizes around the block and lane
   boundaries (1, 255, 256, 4096, 4097, 12289, 100003): the result is BITWISE equal (re, im and
   i64) to hst_k_reduce_host + hst_k_combine_host, because kernels.h fixes the order; and, on
   positive inputs, within a stated tolerance of an independent long-double loop (integer sums
   exact in i64, min/max exact). Mixed-sign inputs are checked bitwise only. */
static const size_t RED_SIZES[] = {1, 255, 256, 4096, 4097, 12289, 100003};
#define N_RED_SIZES (sizeof RED_SIZES / sizeof RED_SIZES[0])

static hst_scalar twin_reduce(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                              size_t n) {
    size_t steps, parts = hst_kernels_reduce_groups(n, &steps);
    void *partial = malloc(parts * hst_kernels_partial_size(dt, op) + 1);
    hst_scalar out;
    assert_non_null(partial);
    memset(&out, 0x55, sizeof out);
    hst_k_reduce_host(dt, op, x, y, n, steps, partial);
    hst_k_combine_host(dt, op, partial, parts, &out);
    free(partial);
    return out;
}

static hst_result dev_reduce(hst_reduce_op op, const hst_array *x, const hst_array *y,
                             hst_scalar *out) {
    memset(out, 0x33, sizeof *out);
    switch (op) {
    case HST_REDUCE_SUM: return hst_array_sum(x, out);
    case HST_REDUCE_DOT: return hst_array_dot(x, y, out);
    case HST_REDUCE_SQNORM: return hst_array_sqnorm(x, out);
    case HST_REDUCE_MIN: return hst_array_min(x, out);
    default: return hst_array_max(x, out);
    }
}

/* Bitwise, except that any NaN equals any NaN (kernels.h leaves reductions' NaN payloads
   unspecified). */
static int same_double_bits(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return !memcmp(&a, &b, sizeof a);
}
static void assert_scalar_bits(hst_scalar got, hst_scalar want, const char *what) {
    if (!same_double_bits(got.re, want.re) || !same_double_bits(got.im, want.im) ||
        got.i64 != want.i64)
        fail_msg("%s: got (%.17g, %.17g, %lld) want (%.17g, %.17g, %lld)", what, got.re, got.im,
                 (long long)got.i64, want.re, want.im, (long long)want.i64);
}

/* Independent reference in long double (integers exact in long long). */
static void ref_reduce(hst_dtype dt, hst_reduce_op op, const void *x, const void *y, size_t n,
                       long double *re, long double *im, long long *iv) {
    size_t i;
    long double r = 0, m = 0;
    long long s = 0;
    int first = 1;
    for (i = 0; i < n; i++) {
        long double a, b = 0, c = 0, e = 0;
        switch (dt) {
        case HST_U8: a = ((const uint8_t *)x)[i]; s += ((const uint8_t *)x)[i]; break;
        case HST_I8: a = ((const int8_t *)x)[i]; s += ((const int8_t *)x)[i]; break;
        case HST_I16: a = ((const int16_t *)x)[i]; s += ((const int16_t *)x)[i]; break;
        case HST_I32: a = ((const int32_t *)x)[i]; s += ((const int32_t *)x)[i]; break;
        case HST_I64: a = (long double)((const int64_t *)x)[i]; s += ((const int64_t *)x)[i]; break;
        case HST_F32: a = ((const float *)x)[i]; if (y) c = ((const float *)y)[i]; break;
        case HST_F64: a = ((const double *)x)[i]; if (y) c = ((const double *)y)[i]; break;
        case HST_C128:
            a = ((const double *)x)[2 * i]; b = ((const double *)x)[2 * i + 1];
            if (y) { c = ((const double *)y)[2 * i]; e = ((const double *)y)[2 * i + 1]; }
            break;
        default:
            a = ((const float *)x)[2 * i]; b = ((const float *)x)[2 * i + 1];
            if (y) { c = ((const float *)y)[2 * i]; e = ((const float *)y)[2 * i + 1]; }
            break;
        }
        switch (op) {
        case HST_REDUCE_SUM: r += a; m += b; break;
        case HST_REDUCE_DOT: r += a * c + b * e; m += a * e - b * c; break;   /* conj(x) y */
        case HST_REDUCE_SQNORM: r += a * a + b * b; break;
        case HST_REDUCE_MIN: if (a == a && (first || a < r)) { r = a; first = 0; } break;
        default: if (a == a && (first || a > r)) { r = a; first = 0; } break;
        }
    }
    *re = r;
    *im = m;
    *iv = s;
}

static void check_reduce(void **state, hst_dtype dt, hst_reduce_op op, size_t n, int positive,
                         uint64_t seed) {
    hst_backend *be = BE(state);
    size_t es = hst_dtype_size(dt);
    void *xin = malloc(n * es), *yin = malloc(n * es);
    hst_array *x, *y = NULL;
    hst_scalar got, want;
    char what[96];
    assert_non_null(xin);
    assert_non_null(yin);
    if (dt == HST_U8) fill_random(dt, xin, n, seed, 0.0, 256.0);
    else if (dt == HST_I8) fill_random(dt, xin, n, seed, positive ? 0.0 : -128.0, 128.0);
    else if (dt == HST_I16) fill_random(dt, xin, n, seed, positive ? 0.0 : -32768.0, 32768.0);
    else if (dt == HST_I32) fill_random(dt, xin, n, seed, positive ? 0.0 : -2.1e9, 2.1e9);
    else if (dt == HST_I64) fill_random(dt, xin, n, seed, positive ? 0.0 : -9e13, 9e13);   /* 1e5 terms: |sum| < 2^63 */
    else fill_random(dt, xin, n, seed, positive ? 0.5 : -100.0, positive ? 1.5 : 100.0);
    fill_random(dt, yin, n, seed + 1, positive ? 0.5 : -100.0, positive ? 1.5 : 100.0);
    x = mk1_data(be, dt, n, xin);
    if (op == HST_REDUCE_DOT) y = mk1_data(be, dt, n, yin);
    assert_int_equal(dev_reduce(op, x, y, &got), HST_SUCCESS);
    want = twin_reduce(dt, op, xin, op == HST_REDUCE_DOT ? yin : NULL, n);
    snprintf(what, sizeof what, "reduce op %d %s n=%zu %s", (int)op, hst_dtype_name(dt), n,
             positive ? "positive" : "mixed");
    assert_scalar_bits(got, want, what);
    if (positive) {
        long double rre, rim;
        long long riv;
        ref_reduce(dt, op, xin, op == HST_REDUCE_DOT ? yin : NULL, n, &rre, &rim, &riv);
        if (hst_dtype_is_int(dt)) {
            if (op == HST_REDUCE_SUM) assert_int_equal(got.i64, riv);
            else assert_true((long double)got.i64 == rre);
            assert_true(got.re == (double)got.i64);
            assert_true(got.im == 0.0);
        } else if (op == HST_REDUCE_MIN || op == HST_REDUCE_MAX) {
            assert_true((long double)got.re == rre);
            assert_true(got.im == 0.0);
        } else {
            /* relative bound: f32 accumulators 1e-5, f64 1e-12 (all terms positive) */
            long double tol = hst_dtype_needs_fp64(dt) ? 1e-12L : 1e-5L;
            long double mag = fabsl(rre) + fabsl(rim);
            if (fabsl((long double)got.re - rre) > tol * mag ||
                fabsl((long double)got.im - rim) > tol * mag)
                fail_msg("%s: got (%.17g, %.17g) reference (%.17Lg, %.17Lg)", what, got.re,
                         got.im, rre, rim);
            if (!hst_dtype_is_complex(dt) || op == HST_REDUCE_SQNORM) assert_true(got.im == 0.0);
        }
    }
    hst_array_destroy(x);
    hst_array_destroy(y);
    free(xin);
    free(yin);
}

static void test_reduce(void **state) {
    int d, op;
    size_t k;
    for (d = 0; d < N_ALL; d++) {
        hst_dtype dt = ALL_DT[d];
        if (no_fp64(state, dt)) continue;
        for (op = 0; op < HST_REDUCE_COUNT; op++) {
            if (!hst_kernels_reduce_supported(dt, (hst_reduce_op)op)) continue;
            for (k = 0; k < N_RED_SIZES; k++) {
                uint64_t seed = 1000 + (uint64_t)(d * 100 + op * 10) + k;
                check_reduce(state, dt, (hst_reduce_op)op, RED_SIZES[k], 1, seed);
                check_reduce(state, dt, (hst_reduce_op)op, RED_SIZES[k], 0, seed + 5000);
            }
        }
    }
    {   /* past HST_REDUCE_GROUPS blocks of the least steps: 17 elements a work-item, one short block */
        size_t steps, n = (size_t)HST_REDUCE_LOCAL * HST_REDUCE_GROUPS * HST_REDUCE_MIN_STEPS + 1;
        assert_int_equal(hst_kernels_reduce_groups(n, &steps), (size_t)HST_REDUCE_GROUPS - 240);
        assert_int_equal(steps, HST_REDUCE_MIN_STEPS + 1);
        assert_int_equal(hst_kernels_reduce_groups(0, &steps), 0);
        check_reduce(state, HST_F32, HST_REDUCE_SUM, n, 1, 77);
        check_reduce(state, HST_F32, HST_REDUCE_MAX, n, 0, 78);
    }
}

/* hst_array_sum_batch: each sum the bits of hst_array_sum of that array (random arrays of every
   summable dtype and of the reduction's odd sizes, in one batch); the rejections (count 0,
   NULL, an array of another backend), which leave out[] as it was. */
#define SUMB_N 12
static void test_reduce_sum_batch(void **state) {
    hst_backend *be = BE(state);
    cap_log *cap = LOG(state);
    const hst_array *x[SUMB_N];
    hst_array *a[SUMB_N];
    hst_scalar one, got[SUMB_N], keep;
    size_t k, n = 0;
    for (k = 0; k < SUMB_N; k++) {
        hst_dtype dt = ALL_DT[k % N_ALL];
        size_t len = RED_SIZES[k % N_RED_SIZES];
        void *data;
        if (no_fp64(state, dt) || !hst_kernels_reduce_supported(dt, HST_REDUCE_SUM)) continue;
        data = malloc(len * hst_dtype_size(dt));
        assert_non_null(data);
        fill_random(dt, data, len, 7000 + k, -100.0, 100.0);
        a[n] = mk1_data(be, dt, len, data);
        x[n] = a[n];
        n++;
        free(data);
    }
    assert_true(n >= 6);
    assert_int_equal(hst_array_sum_batch(x, n, got), HST_SUCCESS);
    for (k = 0; k < n; k++) {
        assert_int_equal(hst_array_sum(a[k], &one), HST_SUCCESS);
        assert_memory_equal(&got[k], &one, sizeof one);
    }
    memset(&keep, 0x5a, sizeof keep);
    got[0] = keep;
    assert_int_equal(hst_array_sum_batch(x, 0, got), HST_ERROR_INVALID_ARGUMENT);   /* no backend to log to */
    assert_int_equal(hst_array_sum_batch(NULL, n, got), HST_ERROR_INVALID_ARGUMENT);
    EXPECT_ERR(hst_array_sum_batch(x, n, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    {
        hst_backend *be2 = NULL;
        hst_backend_desc desc;
        const hst_array *mixed[2];
        desc = cap_desc(cap);
        desc.log_level = HST_LOG_WARN;
        assert_int_equal(hst_backend_create(&desc, &be2), HST_SUCCESS);
        mixed[0] = x[0];
        mixed[1] = mk1(be2, HST_F32, 9);
        EXPECT_ERR(hst_array_sum_batch(mixed, 2, got), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
        hst_array_destroy((hst_array *)(uintptr_t)mixed[1]);
        assert_int_equal(hst_backend_destroy(be2), HST_SUCCESS);
    }
    assert_memory_equal(&got[0], &keep, sizeof keep);
    for (k = 0; k < n; k++) hst_array_destroy(a[k]);
}

/* Spot values independent of any twin: exact integer sums past 2^32, sums of known values,
   dot of c64 conjugates x, min/max of mixed signs. */
static void test_reduce_values(void **state) {
    hst_backend *be = BE(state);
    hst_scalar s;
    {   /* i32: 100003 * INT32_MAX overflows 32 and even 2^46 bits exactly in i64 */
        size_t n = 100003;
        hst_array *a = mk1(be, HST_I32, n);
        assert_int_equal(hst_array_fill(a, hst_int(INT32_MAX)), HST_SUCCESS);
        assert_int_equal(hst_array_sum(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, (int64_t)n * INT32_MAX);
        assert_true(s.re == (double)((int64_t)n * INT32_MAX));
        assert_int_equal(hst_array_min(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, INT32_MAX);
        assert_int_equal(hst_array_fill(a, hst_int(INT32_MIN)), HST_SUCCESS);
        assert_int_equal(hst_array_sum(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, (int64_t)n * INT32_MIN);
        assert_int_equal(hst_array_max(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, INT32_MIN);
        hst_array_destroy(a);
    }
    {   /* i8 sums exact in int64; i64 sums wrap past 2^63 (two's complement), min/max exact */
        hst_array *a = mk1(be, HST_I8, 100003), *b = mk1(be, HST_I64, 5);
        assert_int_equal(hst_array_fill(a, hst_int(-128)), HST_SUCCESS);
        assert_int_equal(hst_array_sum(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, -128 * 100003);
        assert_int_equal(hst_array_fill(b, hst_int(INT64_MAX)), HST_SUCCESS);
        assert_int_equal(hst_array_sum(b, &s), HST_SUCCESS);
        assert_true(s.i64 == (int64_t)((uint64_t)INT64_MAX * 5u));
        assert_int_equal(hst_array_min(b, &s), HST_SUCCESS);
        assert_true(s.i64 == INT64_MAX);
        hst_array_destroy(a);
        hst_array_destroy(b);
    }
    {   /* u8: 255 * 12289 */
        hst_array *a = mk1(be, HST_U8, 12289);
        assert_int_equal(hst_array_fill(a, hst_int(255)), HST_SUCCESS);
        assert_int_equal(hst_array_sum(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, 255 * 12289);
        assert_int_equal(hst_array_max(a, &s), HST_SUCCESS);
        assert_int_equal(s.i64, 255);
        hst_array_destroy(a);
    }
    {   /* f32 ones: exact count; c64 dot of (1+2i) with itself: conj gives 5 + 0i per element */
        size_t n = 4097;
        hst_array *a = mk1(be, HST_F32, n), *c = mk1(be, HST_C64, n);
        assert_int_equal(hst_array_ones(a), HST_SUCCESS);
        assert_int_equal(hst_array_sum(a, &s), HST_SUCCESS);
        assert_true(s.re == 4097.0 && s.im == 0.0);
        assert_int_equal(hst_array_dot(a, a, &s), HST_SUCCESS);
        assert_true(s.re == 4097.0);
        assert_int_equal(hst_array_fill(c, hst_complex(1.0, 2.0)), HST_SUCCESS);
        assert_int_equal(hst_array_dot(c, c, &s), HST_SUCCESS);
        assert_true(s.re == 5.0 * 4097 && s.im == 0.0);
        assert_int_equal(hst_array_sqnorm(c, &s), HST_SUCCESS);
        assert_true(s.re == 5.0 * 4097 && s.im == 0.0);
        assert_int_equal(hst_array_sum(c, &s), HST_SUCCESS);
        assert_true(s.re == 4097.0 && s.im == 2.0 * 4097);
        hst_array_destroy(a);
        hst_array_destroy(c);
    }
    {   /* dot of c64 with conj: x = i, y = 1 -> conj(i) * 1 = -i */
        hst_array *x = mk1(be, HST_C64, 3), *y = mk1(be, HST_C64, 3);
        assert_int_equal(hst_array_fill(x, hst_complex(0.0, 1.0)), HST_SUCCESS);
        assert_int_equal(hst_array_fill(y, hst_complex(1.0, 0.0)), HST_SUCCESS);
        assert_int_equal(hst_array_dot(x, y, &s), HST_SUCCESS);
        assert_true(s.re == 0.0 && s.im == -3.0);
        hst_array_destroy(x);
        hst_array_destroy(y);
    }
}

/* min/max ignore NaN: with NaNs scattered (including the first and last element, and a whole
   NaN block) the result is the min/max of the non-NaN values; an all-NaN array gives NaN; both
   bitwise equal to the twin. */
static void test_minmax_nan(void **state) {
    hst_backend *be = BE(state);
    int d;
    size_t k;
    for (d = 0; d < 2; d++) {
        hst_dtype dt = d ? HST_F64 : HST_F32;
        if (no_fp64(state, dt)) continue;
        for (k = 0; k < N_RED_SIZES; k++) {
            size_t n = RED_SIZES[k], i, es = hst_dtype_size(dt);
            void *in = malloc(n * es);
            double lo = INFINITY, hi = -INFINITY;
            rng r = rng_make(77 + n);
            hst_array *x;
            hst_scalar got;
            int pass;
            assert_non_null(in);
            for (pass = 0; pass < 2; pass++) {   /* pass 1: all NaN */
                fill_random(dt, in, n, 900 + n, -50.0, 50.0);
                lo = INFINITY;
                hi = -INFINITY;
                for (i = 0; i < n; i++) {
                    int isn = pass == 1 || i == 0 || i == n - 1 || (rng_next(&r) & 3) == 0 ||
                              (i >= 4096 && i < 8192);
                    double v;
                    if (n == 1 && pass == 0) isn = 0;
                    if (dt == HST_F32) {
                        if (isn) ((float *)in)[i] = NAN;
                        v = ((float *)in)[i];
                    } else {
                        if (isn) ((double *)in)[i] = NAN;
                        v = ((double *)in)[i];
                    }
                    if (!isn) { if (v < lo) lo = v; if (v > hi) hi = v; }
                }
                x = mk1_data(be, dt, n, in);
                assert_int_equal(hst_array_min(x, &got), HST_SUCCESS);
                assert_scalar_bits(got, twin_reduce(dt, HST_REDUCE_MIN, in, NULL, n), "min nan");
                if (pass == 1) assert_true(isnan(got.re)); else assert_true(got.re == lo);
                assert_int_equal(hst_array_max(x, &got), HST_SUCCESS);
                if (pass == 1) assert_true(isnan(got.re)); else assert_true(got.re == hi);
                assert_scalar_bits(got, twin_reduce(dt, HST_REDUCE_MAX, in, NULL, n), "max nan");
                hst_array_destroy(x);
            }
            free(in);
        }
    }
}

/* ------------------------------------------------------------------------------------------
   Random numbers: uniform is bitwise equal to hst_k_random_host (f32, f64, c64; several seeds
   and offsets, including a counter that wraps past 2^64); normal within 1 ulp of the twin (2 for
   f64; on a device without fp64, float accuracy); uniform mean of 1e5 values within
   0.5 +- 0.005, all in [0, 1); normal mean within 0.02 of 0 and variance within 0.02 of 1;
   split invariance: filling with offset k gives elements k.. of the offset-0 fill, bitwise;
   different seeds give different numbers. */
static void test_random_twin(void **state) {
    hst_backend *be = BE(state);
    static const uint64_t seeds[3] = {0, 42, 0xDEADBEEFCAFEF00DULL};
    static const uint64_t offs[3] = {0, 12345, UINT64_MAX - 100};
    size_t n = 10007;
    int d, k, dist;
    uint32_t w[4];
    hst_k_philox4x32(0, 0, w);   /* Random123 known answer */
    assert_true(w[0] == 0x6627e8d5u && w[1] == 0xe169c58du && w[2] == 0xbc57ac4cu && w[3] == 0x9b00dbd8u);
    for (d = 0; d < N_ARITH; d++) {
        hst_dtype dt = ARITH_DT[d];
        size_t es = hst_dtype_size(dt), m = parts(dt) * n, i;
        void *want, *got;
        hst_array *x;
        if (no_fp64(state, dt)) continue;
        want = malloc(n * es);
        assert_non_null(want);
        x = mk1(be, dt, n);
        for (dist = 0; dist < 2; dist++) {
            for (k = 0; k < 3; k++) {
                char what[64];
                assert_int_equal(hst_array_random(x, (hst_random_dist)dist, seeds[k], offs[k]), HST_SUCCESS);
                hst_k_random_host(dt, want, n, seeds[k], offs[k], (hst_random_dist)dist);
                got = rd(x);
                snprintf(what, sizeof what, "random %s dist %d seed #%d", hst_dtype_name(dt), dist, k);
                if (dist == HST_RANDOM_UNIFORM) {
                    assert_bits(got, want, n, es, what);
                } else if (hst_dtype_needs_fp64(dt)) {
                    /* f64 and c128: x = sqrt(-2 log u1) * cos(2 pi u2) compounds the OpenCL bounds of
                       log (3 ulp, halved by sqrt: ~2), cos/sin (4) and the product (0.5), so a
                       single element may be up to ~7 ulp away; most are within 2. */
                    size_t within2 = 0;
                    uint64_t worst = 0;
                    for (i = 0; i < m; i++) {
                        uint64_t u = ulp_d(((double *)got)[i], ((double *)want)[i]);
                        if (u > worst) worst = u;
                        within2 += u <= 2;
                        if (u > 8)
                            fail_msg("%s: element %zu got %.17g want %.17g (%llu ulp)", what, i,
                                     ((double *)got)[i], ((double *)want)[i], (unsigned long long)u);
                    }
                    if (getenv("TV_VERBOSE"))
                        fprintf(stderr, "# %s: worst %llu ulp, %zu of %zu within 2\n", what,
                                (unsigned long long)worst, within2, m);
                    assert_true(within2 >= m - m / 100);
                } else if (has_fp64(state)) {
                    for (i = 0; i < m; i++)
                        if (ulp_f(((float *)got)[i], ((float *)want)[i]) > 1)
                            fail_msg("%s: element %zu got %.9g want %.9g", what, i,
                                     ((float *)got)[i], ((float *)want)[i]);
                } else { /* float Box-Muller on the device: float accuracy only */
                    for (i = 0; i < m; i++) {
                        float g = ((float *)got)[i], wv = ((float *)want)[i];
                        if (!(fabsf(g - wv) <= 1e-3f * (1.0f + fabsf(wv))))
                            fail_msg("%s: element %zu got %.9g want %.9g", what, i, g, wv);
                    }
                }
                free(got);
            }
        }
        hst_array_destroy(x);
        free(want);
    }
}

static void test_random_stats(void **state) {
    hst_backend *be = BE(state);
    size_t n = 100000, i;
    int d;
    for (d = 0; d < N_ARITH; d++) {
        hst_dtype dt = ARITH_DT[d];
        size_t m = parts(dt) * n;
        hst_array *x;
        double *v = (double *)malloc(m * sizeof(double)), sum = 0, sq = 0, mean, var;
        void *got;
        if (no_fp64(state, dt)) { free(v); continue; }
        assert_non_null(v);
        x = mk1(be, dt, n);
        /* uniform */
        assert_int_equal(hst_array_random(x, HST_RANDOM_UNIFORM, 2026, 0), HST_SUCCESS);
        got = rd(x);
        for (i = 0; i < m; i++) v[i] = hst_dtype_needs_fp64(dt) ? ((double *)got)[i] : ((float *)got)[i];
        free(got);
        for (i = 0; i < m; i++) {
            if (!(v[i] >= 0.0 && v[i] < 1.0)) fail_msg("uniform %s[%zu] = %.17g", hst_dtype_name(dt), i, v[i]);
            sum += v[i];
        }
        mean = sum / (double)m;
        if (fabs(mean - 0.5) > 0.005) fail_msg("uniform %s mean %.6f", hst_dtype_name(dt), mean);
        if (hst_dtype_is_complex(dt)) { /* re and im are separately uniform */
            double sr = 0, si = 0;
            for (i = 0; i < n; i++) { sr += v[2 * i]; si += v[2 * i + 1]; }
            assert_true(fabs(sr / (double)n - 0.5) < 0.005 && fabs(si / (double)n - 0.5) < 0.005);
        }
        /* normal */
        assert_int_equal(hst_array_random(x, HST_RANDOM_NORMAL, 2027, 0), HST_SUCCESS);
        got = rd(x);
        for (i = 0; i < m; i++) v[i] = hst_dtype_needs_fp64(dt) ? ((double *)got)[i] : ((float *)got)[i];
        free(got);
        sum = 0;
        for (i = 0; i < m; i++) {
            if (!isfinite(v[i])) fail_msg("normal %s[%zu] = %g", hst_dtype_name(dt), i, v[i]);
            sum += v[i];
        }
        mean = sum / (double)m;
        for (i = 0; i < m; i++) sq += (v[i] - mean) * (v[i] - mean);
        var = sq / (double)(m - 1);
        if (fabs(mean) > 0.02 || fabs(var - 1.0) > 0.02)
            fail_msg("normal %s: mean %.5f variance %.5f", hst_dtype_name(dt), mean, var);
        hst_array_destroy(x);
        free(v);
    }
}

static void test_random_split(void **state) {
    hst_backend *be = BE(state);
    size_t n = 9000, ks[3] = {1, 4096, 5555}, j;
    int d, dist;
    for (d = 0; d < N_ARITH; d++) {
        hst_dtype dt = ARITH_DT[d];
        size_t es = hst_dtype_size(dt);
        hst_array *full;
        unsigned char *a, *b;
        if (no_fp64(state, dt)) continue;
        full = mk1(be, dt, n);
        for (dist = 0; dist < 2; dist++) {
            assert_int_equal(hst_array_random(full, (hst_random_dist)dist, 99, 0), HST_SUCCESS);
            a = (unsigned char *)rd(full);
            for (j = 0; j < 3; j++) {
                size_t k = ks[j];
                hst_array *part = mk1(be, dt, n - k);
                char what[64];
                assert_int_equal(hst_array_random(part, (hst_random_dist)dist, 99, k), HST_SUCCESS);
                b = (unsigned char *)rd(part);
                snprintf(what, sizeof what, "split %s dist %d k %zu", hst_dtype_name(dt), dist, k);
                assert_bits(b, a + k * es, n - k, es, what);
                free(b);
                hst_array_destroy(part);
            }
            /* another seed differs almost everywhere; the same seed repeats exactly */
            assert_int_equal(hst_array_random(full, (hst_random_dist)dist, 100, 0), HST_SUCCESS);
            b = (unsigned char *)rd(full);
            {
                size_t same = 0;
                for (j = 0; j < n; j++) same += !memcmp(a + j * es, b + j * es, es);
                assert_true(same < n / 100);
            }
            free(b);
            assert_int_equal(hst_array_random(full, (hst_random_dist)dist, 99, 0), HST_SUCCESS);
            b = (unsigned char *)rd(full);
            assert_memory_equal(a, b, n * es);
            free(b);
            free(a);
        }
        hst_array_destroy(full);
    }
}

/* ------------------------------------------------------------------------------------------
   The test's own helpers: ulp distance counts representable steps (+0 == -0, NaN == NaN, a
   NaN against a number is "infinitely" far, across zero adds both sides), so the ulp bounds
   below mean what they say. */
static void test_helpers(void **state) {
    float f = 1.0f;
    double d = 1.0;
    (void)state;
    assert_int_equal(ulp_f(f, f), 0);
    assert_int_equal(ulp_f(f, nextafterf(f, 2.0f)), 1);
    assert_int_equal(ulp_f(nextafterf(f, 0.0f), nextafterf(f, 2.0f)), 2);
    assert_int_equal(ulp_f(0.0f, -0.0f), 0);
    assert_int_equal(ulp_f(nextafterf(0.0f, 1.0f), -nextafterf(0.0f, 1.0f)), 2);
    assert_int_equal(ulp_f(NAN, NAN), 0);
    assert_true(ulp_f(NAN, 1.0f) > 1000000);
    assert_int_equal(ulp_f(FLT_MAX, INFINITY), 1);
    assert_int_equal(ulp_d(d, d), 0);
    assert_int_equal(ulp_d(d, nextafter(d, 2.0)), 1);
    assert_int_equal(ulp_d(-d, nextafter(-d, -2.0)), 1);
    assert_int_equal(ulp_d(0.0, -0.0), 0);
    assert_int_equal(ulp_d(nextafter(0.0, 1.0), -nextafter(0.0, 1.0)), 2);
    assert_int_equal(ulp_d(NAN, NAN), 0);
    assert_true(ulp_d(NAN, 1.0) > 1000000);
    { /* the host input generator is deterministic and within range */
        float a[100], b[100];
        size_t i;
        fill_random(HST_F32, a, 100, 5, -2.0, 3.0);
        fill_random(HST_F32, b, 100, 5, -2.0, 3.0);
        assert_memory_equal(a, b, sizeof a);
        for (i = 0; i < 100; i++) assert_true(a[i] >= -2.0f && a[i] <= 3.0f);
        fill_random(HST_F32, b, 100, 6, -2.0, 3.0);
        assert_memory_not_equal(a, b, sizeof a);
    }
}

/* ------------------------------------------------------------------------------------------
   Declared kernels (kernels.h's vocabulary families): one family per program and dtype, named
   after both, whose every kernel has a host twin and a signature of backend.h's words, and
   whose name is one of its program's kernels. */
static void test_declared_families(void **state) {
    size_t k, count, piece;
    unsigned i;
    int p;
    (void)state;
    assert_null(hst_kernels_vocab_family((hst_dtype)0));
    assert_null(hst_kernels_vocabx_family((hst_dtype)HST_DTYPE_END));
    for (k = 0; k < N_ALL; k++) {
        const hst_kernel_family *fam[2];
        fam[0] = hst_kernels_vocab_family(ALL_DT[k]);
        fam[1] = hst_kernels_vocabx_family(ALL_DT[k]);
        for (p = 0; p < 2; p++) {
            const char *const *src;
            char want[32];
            assert_non_null(fam[p]);
            snprintf(want, sizeof want, "%s[%s]", p ? "vocabx" : "vocab", hst_dtype_name(ALL_DT[k]));
            assert_string_equal(fam[p]->name, want);
            assert_int_equal(fam[p]->num_kernels, p ? HST_KVX_COUNT : HST_KV_COUNT);
            assert_true(fam[p]->source == (p ? hst_kernels_vocabx_source : hst_kernels_vocab_source));
            src = fam[p]->source(&count);
            for (i = 0; i < fam[p]->num_kernels; i++) {
                const hst_kernel_decl *d = &fam[p]->kernels[i];
                hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
                char kernel[64], cast[64];   /* "void name(", or "HST_CAST(name, ...)" */
                int found = 0;
                assert_true(d->twin != NULL);
                assert_true(hst_kernel_signature(d, kinds, HST_KERNEL_MAX_ARGS) >= 3);
                snprintf(kernel, sizeof kernel, "void %s(", d->name);
                snprintf(cast, sizeof cast, "HST_CAST(%s,", d->name);
                for (piece = 0; piece < count && !found; piece++)
                    found = strstr(src[piece], kernel) || strstr(src[piece], cast);
                if (!found) fail_msg("%s: kernel %s is not in its program's source", want, d->name);
            }
        }
    }
}

/* Launches kernel id of dt's family fam over [0, n) in two launches, [0, cut) and [cut, n)
   (range.offset): a twin runs its range, a device kernel its global ids, either way the same
   elements as one launch. */
static void launch_split(hst_backend *be, const hst_kernel_family *fam, hst_dtype dt, unsigned id,
                         const hst_karg *args, size_t num_args, size_t n, size_t cut) {
    const hst_device_info *dev = hst_backend_device(be);
    char options[128];
    hst_launch_desc d;
    int part;
    snprintf(options, sizeof options, "%s%s%s", hst_kernels_vocab_options(dt), dev->fp64 ? " -DHST_FP64" : "",
             dev->correctly_rounded_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    for (part = 0; part < 2; part++) {
        memset(&d, 0, sizeof d);
        d.family = fam;
        d.options = options;
        d.kernel = id;
        d.args = args;
        d.num_args = num_args;
        d.range.dims = 1;
        d.range.offset[0] = part ? cut : 0;
        d.range.global[0] = part ? n - cut : cut;
        assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    }
}

/* The same bits from a split launch as from the array call (one launch): the twins honour a
   launch's offset (the host device), as the kernels do (OpenCL devices). */
static void test_declared_ranges(void **state) {
    hst_backend *be = BE(state);
    const size_t n = 1000, cut = 389;
    hst_dtype ft = has_fp64(state) ? HST_F64 : HST_F32;
    size_t es = hst_dtype_size(ft);
    hst_karg a[10];
    void *want, *got;
    { /* random: element i from counter offset + i */
        hst_array *x = mk1(be, ft, n), *y = mk1(be, ft, n);
        assert_int_equal(hst_array_random(x, HST_RANDOM_NORMAL, 77, 5), HST_SUCCESS);
        a[0] = hst_karg_buffer(hst_array_buffer(y)); a[1] = hst_karg_ulong(n); a[2] = hst_karg_ulong(77);
        a[3] = hst_karg_ulong(5); a[4] = hst_karg_int(HST_RANDOM_NORMAL);
        launch_split(be, hst_kernels_vocab_family(ft), ft, HST_KV_RANDOM, a, 5, n, cut);
        want = rd(x); got = rd(y);
        assert_bits(got, want, n, es, "random, split");
        free(want); free(got);
        hst_array_destroy(x); hst_array_destroy(y);
    }
    { /* randperm: pi(i) depends on n, not on the launch */
        hst_array *x = mk1(be, HST_I64, n), *y = mk1(be, HST_I64, n);
        assert_int_equal(hst_array_randperm(x, 9), HST_SUCCESS);
        a[0] = hst_karg_buffer(hst_array_buffer(y)); a[1] = hst_karg_ulong(n); a[2] = hst_karg_ulong(9);
        launch_split(be, hst_kernels_vocab_family(HST_I64), HST_I64, HST_KV_RANDPERM, a, 3, n, cut);
        want = rd(x); got = rd(y);
        assert_bits(got, want, n, 8, "randperm, split");
        free(want); free(got);
        hst_array_destroy(x); hst_array_destroy(y);
    }
    { /* ramp: start + i step with the absolute i, the last element set */
        hst_array *x = NULL, *y = mk1(be, ft, n);
        double start = -1.5, stop = 2.25, step = (stop - start) / (double)(n - 1);
        float fs = (float)start, fp = (float)step, fl = (float)stop;
        size_t db = has_fp64(state) ? 8 : 4;
        assert_int_equal(hst_array_linspace(be, ft, start, stop, n, 1, &x), HST_SUCCESS);
        a[0] = hst_karg_buffer(hst_array_buffer(y)); a[1] = hst_karg_ulong(n);
        a[2] = hst_karg_value(db, db == 8 ? (const void *)&start : &fs);
        a[3] = hst_karg_value(db, db == 8 ? (const void *)&step : &fp); a[4] = hst_karg_int(1);
        a[5] = hst_karg_value(db, db == 8 ? (const void *)&stop : &fl);
        launch_split(be, hst_kernels_vocabx_family(ft), ft, HST_KVX_RAMP, a, 6, n, cut);
        want = rd(x); got = rd(y);
        assert_bits(got, want, n, es, "ramp, split");
        free(want); free(got);
        hst_array_destroy(x); hst_array_destroy(y);
    }
    { /* gather (fftshift of (8, 125)): item i's 4-D index from the absolute i */
        size_t sh[2] = {8, 125};
        uint64_t shape[4] = {1, 1, 8, 125}, st[4] = {1000, 1000, 125, 1}, shift[4] = {0, 0, 4, 63};
        uint64_t zero = 0;
        hst_array *s = NULL, *x = NULL, *y = NULL;
        float *in = (float *)malloc(n * sizeof *in);
        assert_non_null(in);
        fill_random(HST_F32, in, n, 31, -4.0, 4.0);
        assert_int_equal(hst_array_from_host(be, HST_F32, 2, sh, in, &s), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_F32, 2, sh, &x), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_F32, 2, sh, &y), HST_SUCCESS);
        assert_int_equal(hst_array_fftshift(x, s, ~0u, 0), HST_SUCCESS);
        a[0] = hst_karg_buffer(hst_array_buffer(s)); a[1] = hst_karg_buffer(hst_array_buffer(y));
        a[2] = hst_karg_ulong(n); a[3] = hst_karg_value(sizeof shape, shape); a[4] = hst_karg_value(sizeof st, st);
        a[5] = hst_karg_value(sizeof st, st); a[6] = hst_karg_value(sizeof shift, shift);
        a[7] = hst_karg_value(sizeof shape, shape); a[8] = hst_karg_ulong(zero); a[9] = hst_karg_ulong(zero);
        launch_split(be, hst_kernels_vocabx_family(HST_F32), HST_F32, HST_KVX_GATHER, a, 10, n, cut);
        want = rd(x); got = rd(y);
        assert_bits(got, want, n, 4, "gather, split");
        free(want); free(got); free(in);
        hst_array_destroy(s); hst_array_destroy(x); hst_array_destroy(y);
    }
    { /* binary, broadcasting (8, 125) + (125): strides from the absolute i */
        size_t sh[2] = {8, 125};
        uint64_t shape[4] = {1, 1, 8, 125}, ast[4] = {0, 0, 125, 1}, bst[4] = {0, 0, 0, 1};
        float *in = (float *)malloc(n * sizeof *in);
        hst_array *p = NULL, *q = NULL, *x = NULL, *y = NULL;
        assert_non_null(in);
        fill_random(HST_F32, in, n, 32, -4.0, 4.0);
        assert_int_equal(hst_array_from_host(be, HST_F32, 2, sh, in, &p), HST_SUCCESS);
        assert_int_equal(hst_array_from_host(be, HST_F32, 1, &sh[1], in, &q), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_F32, 2, sh, &x), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_F32, 2, sh, &y), HST_SUCCESS);
        assert_int_equal(hst_array_binary(x, p, q, HST_BINARY_MUL), HST_SUCCESS);
        a[0] = hst_karg_buffer(hst_array_buffer(p)); a[1] = hst_karg_buffer(hst_array_buffer(q));
        a[2] = hst_karg_buffer(hst_array_buffer(y)); a[3] = hst_karg_ulong(n);
        a[4] = hst_karg_value(sizeof shape, shape); a[5] = hst_karg_value(sizeof ast, ast);
        a[6] = hst_karg_value(sizeof bst, bst); a[7] = hst_karg_int(HST_BINARY_MUL);
        launch_split(be, hst_kernels_vocabx_family(HST_F32), HST_F32, HST_KVX_BINARY, a, 8, n, cut);
        want = rd(x); got = rd(y);
        assert_bits(got, want, n, 4, "binary, split");
        free(want); free(got); free(in);
        hst_array_destroy(p); hst_array_destroy(q); hst_array_destroy(x); hst_array_destroy(y);
    }
    { /* nonzero_count: items are chunks, [0, 3) and [3, 7) of 7 chunks of 150 */
        const size_t chunk = 150, chunks = (n + chunk - 1) / chunk;
        int32_t *in = (int32_t *)malloc(n * sizeof *in);
        uint64_t host[7], dev[7];
        hst_array *x = NULL, *c = mk1(be, HST_I64, chunks);
        size_t i;
        assert_non_null(in);
        for (i = 0; i < n; i++) in[i] = (int32_t)(i % 3 == 0 || i % 7 == 0);
        x = mk1_data(be, HST_I32, n, in);
        hst_k_nonzero_count_host(HST_I32, in, n, chunk, host);
        a[0] = hst_karg_buffer(hst_array_buffer(x)); a[1] = hst_karg_ulong(n); a[2] = hst_karg_ulong(chunk);
        a[3] = hst_karg_buffer(hst_array_buffer(c));
        launch_split(be, hst_kernels_vocabx_family(HST_I32), HST_I32, HST_KVX_NONZERO_COUNT, a, 4, chunks, 3);
        assert_int_equal(hst_array_read(c, dev, sizeof dev), HST_SUCCESS);
        assert_memory_equal(dev, host, sizeof host);
        free(in);
        hst_array_destroy(x); hst_array_destroy(c);
    }
}

/* ------------------------------------------------------------------------------------------
   Errors: each rejected call answers its documented code AND logs the documented item at level
   ERROR through the backend's logger (captured here), and leaves no array behind. */

static void test_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *cap = LOG(state);
    size_t n = 64, sh2[2] = {8, 8}, sh5[5] = {1, 2, 3, 4, 5};
    hst_array *u8 = mk1(be, HST_U8, n), *i32 = mk1(be, HST_I32, n), *f32 = mk1(be, HST_F32, n);
    hst_array *c64 = mk1(be, HST_C64, n), *f32b = NULL, *f32_2d = NULL, *out = NULL;
    hst_scalar s;
    unsigned char buf[64 * 8];
    assert_int_equal(hst_array_create(be, HST_F32, 2, sh2, &f32_2d), HST_SUCCESS);
    f32b = mk1(be, HST_F32, 65);
    assert_int_equal(hst_array_zeros(f32), HST_SUCCESS);

    /* dtype: math on u8/i32/c64 (and every op), scale/axpy/random on integers, dot/sqnorm on
       u8, min/max on c64 */
    {
        int op;
        for (op = 0; op < HST_MATH_COUNT; op++) {
            EXPECT_ERR(hst_array_math(u8, u8, (hst_math_op)op, 2.0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
            EXPECT_ERR(hst_array_math(i32, i32, (hst_math_op)op, 2.0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
            EXPECT_ERR(hst_array_math(c64, c64, (hst_math_op)op, 2.0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        }
    }
    EXPECT_ERR(hst_array_scale(i32, hst_real(2.0)), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_scale(u8, hst_real(2.0)), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    {
        hst_array *i32b = mk1(be, HST_I32, n);
        EXPECT_ERR(hst_array_axpy(i32, hst_real(2.0), i32b), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        EXPECT_ERR(hst_array_dot(i32, i32b, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
        hst_array_destroy(i32b);
    }
    EXPECT_ERR(hst_array_random(i32, HST_RANDOM_UNIFORM, 1, 0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_random(u8, HST_RANDOM_NORMAL, 1, 0), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_dot(u8, u8, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_sqnorm(u8, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_sqnorm(i32, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_min(c64, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);
    EXPECT_ERR(hst_array_max(c64, &s), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);

    /* shape / dtype / backend mismatches */
    EXPECT_ERR(hst_array_copy(f32, f32b), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_copy(f32, f32_2d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_copy(f32, i32), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_cast(f32, f32b), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_axpy(f32, hst_real(1.0), f32b), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_axpy(f32, hst_real(1.0), c64), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_dot(f32, f32b, &s), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    EXPECT_ERR(hst_array_math(f32, f32b, HST_MATH_ABS, 0.0), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    {
        hst_backend *be2 = NULL;
        hst_backend_desc desc;
        hst_array *other = NULL;
        desc = cap_desc(cap);
        desc.log_level = HST_LOG_WARN;
        assert_int_equal(hst_backend_create(&desc, &be2), HST_SUCCESS);
        other = mk1(be2, HST_F32, n);
        assert_int_equal(hst_array_zeros(other), HST_SUCCESS);
        EXPECT_ERR(hst_array_axpy(f32, hst_real(1.0), other), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
        EXPECT_ERR(hst_array_axpy(other, hst_real(1.0), f32), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
        EXPECT_ERR(hst_array_copy(f32, other), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
        EXPECT_ERR(hst_array_dot(f32, other, &s), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
        hst_array_destroy(other);
        assert_int_equal(hst_backend_destroy(be2), HST_SUCCESS);
    }

    /* create: bad ndim, zero extent, NULL shape/out, overflow, bad dtype */
    EXPECT_ERR(hst_array_create(be, HST_F32, 0, sh2, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(out);
    EXPECT_ERR(hst_array_create(be, HST_F32, 5, sh5, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(out);
    {
        size_t z[3] = {4, 0, 4};
        EXPECT_ERR(hst_array_create(be, HST_F32, 3, z, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
        assert_null(out);
    }
    EXPECT_ERR(hst_array_create(be, HST_F32, 2, NULL, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    assert_null(out);
    EXPECT_ERR(hst_array_create(be, HST_F32, 2, sh2, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    EXPECT_ERR(hst_array_create(be, (hst_dtype)0, 2, sh2, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_create(be, (hst_dtype)HST_DTYPE_END, 2, sh2, &out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(out);
    {
        size_t big[2] = {SIZE_MAX / 2, 3};
        size_t big2[1] = {SIZE_MAX / 2};   /* count fits, bytes (x4) do not */
        EXPECT_ERR(hst_array_create(be, HST_U8, 2, big, &out), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW);
        assert_null(out);
        EXPECT_ERR(hst_array_create(be, HST_F32, 1, big2, &out), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW);
        assert_null(out);
    }

    /* write/read with the wrong byte count */
    EXPECT_ERR(hst_array_write(f32, buf, 63 * 4), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    EXPECT_ERR(hst_array_write(f32, buf, 65 * 4), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    EXPECT_ERR(hst_array_read(f32, buf, 64), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    EXPECT_ERR(hst_array_read(c64, buf, 64 * 4), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    EXPECT_ERR(hst_array_read(c64, buf, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);

    /* out-of-range enums */
    EXPECT_ERR(hst_array_math(f32, f32, HST_MATH_COUNT, 0.0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_math(f32, f32, (hst_math_op)-1, 0.0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_random(f32, (hst_random_dist)2, 1, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    EXPECT_ERR(hst_array_random(f32, (hst_random_dist)-1, 1, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);

    /* the rejected calls changed nothing: f32 is still all zeros */
    {
        float z[64], got[64];
        memset(z, 0, sizeof z);
        assert_int_equal(hst_array_read(f32, got, sizeof got), HST_SUCCESS);
        assert_memory_equal(got, z, sizeof z);
    }
    hst_array_destroy(u8);
    hst_array_destroy(i32);
    hst_array_destroy(f32);
    hst_array_destroy(f32b);
    hst_array_destroy(f32_2d);
    hst_array_destroy(c64);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_accessors),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_cast_pairs),
        cmocka_unit_test(test_cast_values),
        cmocka_unit_test(test_cast_snan),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_axpy),
        cmocka_unit_test(test_math),
        cmocka_unit_test(test_transcendentals),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_reduce_values),
        cmocka_unit_test(test_reduce_sum_batch),
        cmocka_unit_test(test_minmax_nan),
        cmocka_unit_test(test_random_twin),
        cmocka_unit_test(test_random_stats),
        cmocka_unit_test(test_random_split),
        cmocka_unit_test(test_declared_families),
        cmocka_unit_test(test_declared_ranges),
        cmocka_unit_test(test_errors),
    };
    /* one backend for the whole group: every dtype's program is built once per run */
    return cmocka_run_group_tests(tests, setup, teardown);
}
