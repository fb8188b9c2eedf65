/* test_vocabx.c — backend.h's second vocabulary (>>vocabx: PyEPRI's rest) and the FFT entry
   point of a build without HST_FFT. Runs once per device; every result is compared with a
   reference computed here on the host with NumPy's definitions, bitwise where the contract says
   exact (everything but complex abs/angle, checked within OpenCL's 4 and 6 ulp). */
#define HST_IMPLEMENTATION
#include "array.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"

#include "be_fixture.h"

static void *rd(const hst_array *a) {
    void *p = malloc(hst_array_bytes(a));
    assert_non_null(p);
    assert_int_equal(hst_array_read(a, p, hst_array_bytes(a)), HST_SUCCESS);
    return p;
}
static hst_array *mkf(hst_backend *be, unsigned nd, const size_t *sh, const float *data) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_from_host(be, HST_F32, nd, sh, data, &a), HST_SUCCESS);
    return a;
}
static hst_array *mk(hst_backend *be, hst_dtype dt, unsigned nd, const size_t *sh) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_create(be, dt, nd, sh, &a), HST_SUCCESS);
    return a;
}
/* The same float bit for bit, or both NaN: IEEE 754 leaves the payload of an arithmetic NaN to
   the implementation (x86 keeps the operand's, NVIDIA GPUs give 0x7fffffff). */
static int same_f32(float a, float b) { return (a != a && b != b) || memcmp(&a, &b, sizeof a) == 0; }
static void ramp(float *v, size_t n, float scale) { size_t i; for (i = 0; i < n; i++) v[i] = (float)i * scale - 3.0f; }

static void test_ramps(void **state) {
    hst_backend *be = BE(state);
    hst_array *a;
    float *f;
    int32_t *k;
    double *d;
    size_t i;
    assert_int_equal(hst_array_arange(be, HST_F32, 0.5, 3.0, 0.5, &a), HST_SUCCESS);
    assert_int_equal(hst_array_count(a), 5);
    f = (float *)rd(a);
    for (i = 0; i < 5; i++) assert_true(f[i] == (float)(0.5 + (double)i * 0.5));
    free(f); hst_array_destroy(a);
    assert_int_equal(hst_array_arange(be, HST_I32, 3, 10, 2, &a), HST_SUCCESS);   /* [3 5 7 9] */
    k = (int32_t *)rd(a);
    assert_int_equal(hst_array_count(a), 4);
    for (i = 0; i < 4; i++) assert_int_equal(k[i], 3 + 2 * (int)i);
    free(k); hst_array_destroy(a);
    assert_int_equal(hst_array_linspace(be, HST_F32, -1.0, 1.0, 7, 1, &a), HST_SUCCESS);
    f = (float *)rd(a);
    for (i = 0; i < 6; i++) assert_true(f[i] == (float)(-1.0 + (double)i * (2.0 / 6.0)));
    assert_true(f[6] == 1.0f);   /* the endpoint exactly */
    free(f); hst_array_destroy(a);
    if (hst_backend_device(be)->fp64) {
        assert_int_equal(hst_array_linspace(be, HST_F64, 0.0, 1.0, 4, 0, &a), HST_SUCCESS);
        d = (double *)rd(a);
        for (i = 0; i < 4; i++) assert_true(d[i] == (double)i * 0.25);
        free(d); hst_array_destroy(a);
    }
    {   /* numpy.fft.fftfreq(8, 0.5) and (7), rfftfreq(7) */
        static const double f8[8] = {0, 0.25, 0.5, 0.75, -1, -0.75, -0.5, -0.25};
        static const double f7[7] = {0, 1, 2, 3, -3, -2, -1}, r7[4] = {0, 1, 2, 3};
        assert_int_equal(hst_array_fftfreq(be, HST_F32, 8, 0.5, 0, &a), HST_SUCCESS);
        f = (float *)rd(a);
        for (i = 0; i < 8; i++) assert_true(f[i] == (float)f8[i]);
        free(f); hst_array_destroy(a);
        assert_int_equal(hst_array_fftfreq(be, HST_F32, 7, 1.0, 0, &a), HST_SUCCESS);
        f = (float *)rd(a);
        for (i = 0; i < 7; i++) assert_true(f[i] == (float)(f7[i] * (1.0 / 7.0)));
        free(f); hst_array_destroy(a);
        assert_int_equal(hst_array_fftfreq(be, HST_F32, 7, 1.0, 1, &a), HST_SUCCESS);
        assert_int_equal(hst_array_count(a), 4);
        f = (float *)rd(a);
        for (i = 0; i < 4; i++) assert_true(f[i] == (float)(r7[i] * (1.0 / 7.0)));
        free(f); hst_array_destroy(a);
    }
}

static void test_moves(void **state) {
    hst_backend *be = BE(state);
    size_t sh[3] = {2, 3, 5}, tsh[3] = {5, 3, 2}, i, j, l;
    float x[30], *o;
    hst_array *a, *t, *s;
    ramp(x, 30, 1.0f);
    a = mkf(be, 3, sh, x);
    t = mk(be, HST_F32, 3, tsh);
    assert_int_equal(hst_array_transpose(t, a, NULL), HST_SUCCESS);   /* reversed axes */
    o = (float *)rd(t);
    for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) for (l = 0; l < 5; l++)
        assert_true(o[(l * 3 + j) * 2 + i] == x[(i * 3 + j) * 5 + l]);
    free(o);
    {   /* fftshift over axes 1, 2 (extents 3 and 5, odd): out[i] = in[(i + n - n/2) % n] */
        s = mk(be, HST_F32, 3, sh);
        assert_int_equal(hst_array_fftshift(s, a, 6u, 0), HST_SUCCESS);
        o = (float *)rd(s);
        for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) for (l = 0; l < 5; l++)
            assert_true(o[(i * 3 + j) * 5 + l] == x[(i * 3 + (j + 2) % 3) * 5 + (l + 3) % 5]);
        free(o);
        assert_int_equal(hst_array_fftshift(t, a, ~0u, 0) == HST_ERROR_SHAPE, 1);
        {   /* ifftshift undoes it on every axis (even extent 2 included) */
            hst_array *u = mk(be, HST_F32, 3, sh);
            assert_int_equal(hst_array_fftshift(s, a, ~0u, 0), HST_SUCCESS);
            assert_int_equal(hst_array_fftshift(u, s, ~0u, 1), HST_SUCCESS);
            o = (float *)rd(u);
            assert_memory_equal(o, x, sizeof x);
            free(o); hst_array_destroy(u);
        }
        hst_array_destroy(s);
    }
    {   /* concatenate along 1 (3 + 3 rows) and stack along 0 */
        size_t csh[3] = {2, 6, 5}, ssh[4] = {2, 2, 3, 5};
        hst_array *srcs[2], *c = mk(be, HST_F32, 3, csh), *st = mk(be, HST_F32, 4, ssh), *b;
        float y[30];
        ramp(y, 30, -2.0f);
        b = mkf(be, 3, sh, y);
        srcs[0] = a; srcs[1] = b;
        assert_int_equal(hst_array_concatenate(c, srcs, 2, 1), HST_SUCCESS);
        o = (float *)rd(c);
        for (i = 0; i < 2; i++) for (j = 0; j < 6; j++) for (l = 0; l < 5; l++)
            assert_true(o[(i * 6 + j) * 5 + l] == (j < 3 ? x[(i * 3 + j) * 5 + l] : y[(i * 3 + j - 3) * 5 + l]));
        free(o);
        assert_int_equal(hst_array_stack(st, srcs, 2, 0), HST_SUCCESS);
        o = (float *)rd(st);
        assert_memory_equal(o, x, sizeof x);
        assert_memory_equal(o + 30, y, sizeof y);
        free(o);
        assert_int_equal(hst_array_concatenate(st, srcs, 2, 1), HST_ERROR_SHAPE);
        assert_int_equal(LOG(state)->last_item, HST_LOGITEM_SHAPE_MISMATCH);
        hst_array_destroy(c); hst_array_destroy(st); hst_array_destroy(b);
    }
    {   /* meshgrid xy: X[i][j] = x[j], Y[i][j] = y[i] for x of 4, y of 3 */
        size_t n4 = 4, n3 = 3, gsh[2] = {3, 4};
        hst_array *v[2], *g[2];
        v[0] = mkf(be, 1, &n4, x); v[1] = mkf(be, 1, &n3, x + 10);
        g[0] = mk(be, HST_F32, 2, gsh); g[1] = mk(be, HST_F32, 2, gsh);
        assert_int_equal(hst_array_meshgrid(g, v, 2, 0), HST_SUCCESS);
        for (l = 0; l < 2; l++) {
            o = (float *)rd(g[l]);
            for (i = 0; i < 3; i++) for (j = 0; j < 4; j++)
                assert_true(o[i * 4 + j] == (l == 0 ? x[j] : x[10 + i]));
            free(o);
        }
        for (l = 0; l < 2; l++) { hst_array_destroy(v[l]); hst_array_destroy(g[l]); }
    }
    {   /* reshape: same memory, new shape; a wrong count is refused */
        size_t r2[2] = {6, 5}, bad[2] = {4, 4};
        assert_int_equal(hst_array_reshape(a, 2, r2), HST_SUCCESS);
        assert_int_equal(hst_array_ndim(a), 2);
        assert_int_equal(hst_array_reshape(a, 2, bad), HST_ERROR_SHAPE);
    }
    hst_array_destroy(a); hst_array_destroy(t);
}

static void test_binary(void **state) {
    hst_backend *be = BE(state);
    size_t sh[2] = {3, 4}, row = 4, col[2] = {3, 1}, i, j;
    float x[12], r[4] = {1.5f, -2.0f, 0.25f, 3.0f}, c[3] = {2.0f, -1.0f, 0.5f}, *o;
    hst_array *a, *b, *cc, *d;
    int op;
    ramp(x, 12, 0.75f);
    x[5] = NAN;
    a = mkf(be, 2, sh, x); b = mkf(be, 1, &row, r); cc = mkf(be, 2, col, c);
    d = mk(be, HST_F32, 2, sh);
    for (op = 0; op <= HST_BINARY_MINIMUM; op++) {   /* ARCTAN2: test_arctan2 */
        assert_int_equal(hst_array_binary(d, a, b, (hst_binary_op)op), HST_SUCCESS);
        o = (float *)rd(d);
        for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) {
            float p = x[i * 4 + j], q = r[j], w;
            w = op == 0 ? p + q : op == 1 ? p - q : op == 2 ? p * q : op == 3 ? p / q
              : p != p ? p : op == 4 ? (p > q ? p : q) : (p < q ? p : q);
            assert_true(same_f32(o[i * 4 + j], w));
        }
        free(o);
        assert_int_equal(hst_array_binary(d, cc, a, (hst_binary_op)op), HST_SUCCESS);   /* (3,1) op (3,4) */
        o = (float *)rd(d);
        for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) {
            float p = c[i], q = x[i * 4 + j], w;
            w = op == 0 ? p + q : op == 1 ? p - q : op == 2 ? p * q : op == 3 ? p / q
              : q != q ? q : op == 4 ? (p > q ? p : q) : (p < q ? p : q);
            assert_true(same_f32(o[i * 4 + j], w));
        }
        free(o);
    }
    assert_int_equal(hst_array_binary_scalar(d, a, hst_real(2.0), HST_BINARY_SUB, 1), HST_SUCCESS);
    o = (float *)rd(d);
    for (i = 0; i < 12; i++) if (i != 5) assert_true(o[i] == 2.0f - x[i]);
    free(o);
    assert_int_equal(hst_array_clip(d, a, -1.0, 2.0), HST_SUCCESS);
    o = (float *)rd(d);
    for (i = 0; i < 12; i++) {
        if (i == 5) { assert_true(o[i] != o[i]); continue; }
        assert_true(o[i] == (x[i] < -1.0f ? -1.0f : x[i] > 2.0f ? 2.0f : x[i]));
    }
    free(o);
    {   /* where */
        uint8_t m[12];
        hst_array *ma;
        for (i = 0; i < 12; i++) m[i] = (uint8_t)(i % 3 == 0);
        assert_int_equal(hst_array_from_host(be, HST_U8, 2, sh, m, &ma), HST_SUCCESS);
        assert_int_equal(hst_array_binary_scalar(d, a, hst_real(0.0), HST_BINARY_MUL, 0), HST_SUCCESS);
        assert_int_equal(hst_array_where(d, ma, a, d), HST_SUCCESS);
        o = (float *)rd(d);
        for (i = 0; i < 12; i++) if (i != 5) assert_true(o[i] == (m[i] ? x[i] : x[i] * 0.0f));
        free(o);
        hst_array_destroy(ma);
    }
    {   /* c64 multiply and divide: the documented formulas, bitwise */
        float p[4] = {1.5f, -2.25f, 0.3f, 7.0f}, q[4] = {-0.5f, 4.0f, 3.0f, -1.25f}, w[4];
        size_t two = 2;
        hst_array *pa, *qa, *ra = mk(be, HST_C64, 1, &two);
        assert_int_equal(hst_array_create(be, HST_C64, 1, &two, &pa), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_C64, 1, &two, &qa), HST_SUCCESS);
        assert_int_equal(hst_array_write(pa, p, 16), HST_SUCCESS);
        assert_int_equal(hst_array_write(qa, q, 16), HST_SUCCESS);
        assert_int_equal(hst_array_binary(ra, pa, qa, HST_BINARY_DIV), HST_SUCCESS);
        o = (float *)rd(ra);
        hst_k_binary_host(HST_C64, p, q, w, 2, (const uint64_t[4]){1, 1, 1, 2},
                          (const uint64_t[4]){0, 0, 0, 1}, (const uint64_t[4]){0, 0, 0, 1}, HST_BINARY_DIV);
        assert_memory_equal(o, w, 16);
        assert_true(fabs(o[0] - (-9.75 / 16.25)) < 1e-6);    /* (1.5-2.25i)/(-0.5+4i) */
        free(o);
        hst_array_destroy(pa); hst_array_destroy(qa); hst_array_destroy(ra);
    }
    hst_array_destroy(a); hst_array_destroy(b); hst_array_destroy(cc); hst_array_destroy(d);
}

static void test_axis(void **state) {
    hst_backend *be = BE(state);
    size_t sh[3] = {2, 5, 3}, rsh[2] = {2, 3}, i, j, k;
    float x[30], *o;
    int32_t *ix;
    hst_array *a, *s, *c, *am;
    ramp(x, 30, 0.37f);
    x[7] = 9.0f; x[20] = -8.0f; x[4] = NAN;
    a = mkf(be, 3, sh, x);
    s = mk(be, HST_F32, 2, rsh); c = mk(be, HST_F32, 3, sh); am = mk(be, HST_I32, 2, rsh);
    assert_int_equal(hst_array_reduce_axis(s, a, 1, HST_AXIS_SUM), HST_SUCCESS);
    assert_int_equal(hst_array_reduce_axis(c, a, 1, HST_AXIS_CUMSUM), HST_SUCCESS);
    o = (float *)rd(s);
    {
        float *cs = (float *)rd(c);
        for (i = 0; i < 2; i++) for (k = 0; k < 3; k++) {
            float acc = x[i * 15 + k];
            assert_true(same_f32(cs[i * 15 + k], acc));
            for (j = 1; j < 5; j++) {
                acc = acc + x[i * 15 + j * 3 + k];
                assert_true(same_f32(cs[i * 15 + j * 3 + k], acc));
            }
            assert_true(same_f32(o[i * 3 + k], acc));
        }
        free(cs);
    }
    free(o);
    assert_int_equal(hst_array_reduce_axis(am, a, 1, HST_AXIS_ARGMAX), HST_SUCCESS);
    ix = (int32_t *)rd(am);
    for (i = 0; i < 2; i++) for (k = 0; k < 3; k++) {
        size_t at = 0;
        for (j = 1; j < 5 && x[i * 15 + at * 3 + k] == x[i * 15 + at * 3 + k]; j++) {
            float v = x[i * 15 + j * 3 + k];
            if (v != v || v > x[i * 15 + at * 3 + k]) at = j;
        }
        assert_int_equal(ix[i * 3 + k], (int)at);
    }
    assert_int_equal(ix[1], 1);   /* the NaN at (0, 1, 1) */
    free(ix);
    assert_int_equal(hst_array_reduce_axis(am, a, 1, HST_AXIS_ARGMIN), HST_SUCCESS);
    ix = (int32_t *)rd(am);
    assert_int_equal(ix[3 + 2], 1);   /* -8 at (1, 1, 2) */
    free(ix);
    assert_int_equal(hst_array_reduce_axis(s, a, 1, HST_AXIS_MAX), HST_SUCCESS);
    o = (float *)rd(s);
    assert_true(o[1] != o[1]);        /* NaN propagates */
    assert_true(o[0] == x[12]);       /* column 0 of batch 0 rises along the axis */
    assert_true(o[3 + 1] == x[15 + 4 * 3 + 1]);
    free(o);
    assert_int_equal(hst_array_reduce_axis(s, a, 3, HST_AXIS_SUM), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_array_reduce_axis(am, a, 1, HST_AXIS_SUM), HST_ERROR_SHAPE);
    hst_array_destroy(a); hst_array_destroy(s); hst_array_destroy(c); hst_array_destroy(am);
}

static void test_complex_parts(void **state) {
    hst_backend *be = BE(state);
    size_t n = 6, i;
    float z[12] = {3, 4, -1, 0, 0, -2, 1e-3f, 5, -7.5f, -7.5f, 0, 0}, *o;
    hst_array *c, *f = mk(be, HST_F32, 1, &n), *cj = mk(be, HST_C64, 1, &n);
    int part;
    assert_int_equal(hst_array_create(be, HST_C64, 1, &n, &c), HST_SUCCESS);
    assert_int_equal(hst_array_write(c, z, sizeof z), HST_SUCCESS);
    for (part = HST_PART_REAL; part <= HST_PART_ANGLE; part++) {
        assert_int_equal(hst_array_complex_part(f, c, (hst_complex_part)part), HST_SUCCESS);
        o = (float *)rd(f);
        for (i = 0; i < n; i++) {
            double want = part == 0 ? z[2 * i] : part == 1 ? z[2 * i + 1]
                        : part == 2 ? hypot(z[2 * i], z[2 * i + 1]) : atan2(z[2 * i + 1], z[2 * i]);
            double ulp = ldexp(1.0, (int)floor(log2(fabs(want) > 1e-30 ? fabs(want) : 1e-30)) - 23);
            assert_true(fabs(o[i] - want) <= (part < 2 ? 0.0 : 6.0 * ulp));
        }
        free(o);
    }
    assert_int_equal(hst_array_complex_part(cj, c, HST_PART_CONJ), HST_SUCCESS);
    o = (float *)rd(cj);
    for (i = 0; i < n; i++) { assert_true(o[2 * i] == z[2 * i]); assert_true(o[2 * i + 1] == -z[2 * i + 1]); }
    free(o);
    assert_int_equal(hst_array_complex_part(cj, c, HST_PART_REAL), HST_ERROR_SHAPE);
    assert_int_equal(hst_array_complex_part(f, f, HST_PART_REAL), HST_ERROR_DTYPE);
    assert_int_equal(LOG(state)->last_item, HST_LOGITEM_DTYPE);
    hst_array_destroy(c); hst_array_destroy(f); hst_array_destroy(cj);
}

/* ------------------------------------------------------------------------------------------
   hst_array_view: arrays over part of a buffer they do not own. */
static size_t view_align(hst_backend *be) {   /* the smallest offset every device takes */
    return hst_backend_is_host(be) ? sizeof(float) : hst_backend_device(be)->mem_base_addr_align_bytes;
}

/* Reads, writes and vocabulary calls go to the viewed bytes only; a view of a view composes
   the offsets; destroying views frees nothing of the buffer. */
static void test_view_basics(void **state) {
    hst_backend *be = BE(state);
    /* offsets of whole alignment units, at least 16 floats apart (the views do not overlap) */
    size_t al = view_align(be) >= 64 ? view_align(be) : 64;
    size_t n = 3 * al / sizeof(float) + 40, i, sh2[2] = {2, 5}, ten = 10, k;
    size_t off = al, first = off / sizeof(float);
    float *v = (float *)malloc(n * sizeof(float)), *o, *p;
    hst_array *base, *view, *vv, *v3;
    hst_pool_stats before, after;
    uint64_t bytes0;
    assert_non_null(v);
    ramp(v, n, 0.25f);
    base = mkf(be, 1, &n, v);
    bytes0 = hst_backend_device_bytes(be);
    before = hst_pool_get_stats(hst_backend_pool(be));
    assert_int_equal(hst_array_view(hst_array_buffer(base), off, HST_F32, 2, sh2, &view), HST_SUCCESS);
    assert_int_equal(hst_array_ndim(view), 2);
    assert_int_equal(hst_array_count(view), 10);
    assert_int_equal(hst_array_bytes(view), 40);
    assert_int_equal(hst_buffer_bytes(hst_array_buffer(view)), 40);
    assert_true(hst_array_buffer(view) != hst_array_buffer(base));
    o = (float *)rd(view);
    for (i = 0; i < 10; i++) assert_true(o[i] == v[first + i]);
    free(o);
    /* writes through the view land in the base array's bytes, nowhere else */
    assert_int_equal(hst_array_scale(view, hst_real(2.0)), HST_SUCCESS);
    p = (float *)rd(base);
    for (i = 0; i < n; i++) assert_true(p[i] == (i >= first && i < first + 10 ? 2.0f * v[i] : v[i]));
    free(p);
    /* a view of the view's buffer, at another aligned offset from it: offsets add up */
    assert_int_equal(hst_array_view(hst_array_buffer(base), 0, HST_F32, 1, &n, &vv), HST_SUCCESS);
    assert_int_equal(hst_array_view(hst_array_buffer(vv), 2 * al, HST_F32, 1, &ten, &v3), HST_SUCCESS);
    o = (float *)rd(v3);
    for (i = 0; i < 10; i++) assert_true(o[i] == v[2 * first + i]);
    free(o);
    /* the vocabulary between a view and an array: v3 = view (copy), then write/read */
    assert_int_equal(hst_array_reshape(v3, 2, sh2), HST_SUCCESS);
    assert_int_equal(hst_array_copy(v3, view), HST_SUCCESS);
    p = (float *)rd(base);
    for (k = 0; k < 10; k++) assert_true(p[2 * first + k] == 2.0f * v[first + k]);
    free(p);
    for (i = 0; i < 10; i++) v[i] = (float)i;
    assert_int_equal(hst_array_write(view, v, 40), HST_SUCCESS);
    p = (float *)rd(base);
    for (i = 0; i < 10; i++) assert_true(p[first + i] == (float)i);
    free(p);
    hst_array_destroy(v3); hst_array_destroy(vv); hst_array_destroy(view);
    /* nothing allocated, nothing freed: the pool and the device bytes are as before */
    after = hst_pool_get_stats(hst_backend_pool(be));
    assert_int_equal(hst_backend_device_bytes(be), bytes0);
    assert_int_equal(after.active_blocks, before.active_blocks);
    p = (float *)rd(base);   /* the base array still holds its bytes */
    for (i = 0; i < 10; i++) assert_true(p[first + i] == (float)i);
    free(p);
    hst_array_destroy(base);
    free(v);
}

/* A view over a plain buffer and over the caller's memory (hst_buffer_wrap). */
static void test_view_buffers(void **state) {
    hst_backend *be = BE(state);
    size_t al = view_align(be), n = 16, i;
    float mem[64], *o;
    hst_buffer *b = NULL, *w = NULL;
    hst_array *v = NULL;
    for (i = 0; i < 64; i++) mem[i] = (float)i + 0.5f;
    assert_int_equal(hst_buffer_create(be, al + n * sizeof(float), 0, &b), HST_SUCCESS);
    assert_int_equal(hst_array_view(b, al, HST_F32, 1, &n, &v), HST_SUCCESS);
    assert_int_equal(hst_array_fill(v, hst_real(7.0)), HST_SUCCESS);
    o = (float *)rd(v);
    for (i = 0; i < n; i++) assert_true(o[i] == 7.0f);
    free(o);
    hst_array_destroy(v);
    hst_buffer_destroy(b);
    assert_int_equal(hst_buffer_wrap(be, mem, sizeof mem, 0, &w), HST_SUCCESS);
    assert_int_equal(hst_array_view(w, 0, HST_F32, 1, &n, &v), HST_SUCCESS);
    o = (float *)rd(v);
    for (i = 0; i < n; i++) assert_true(o[i] == (float)i + 0.5f);
    free(o);
    hst_array_destroy(v);
    hst_buffer_destroy(w);
}

#define assert_view_refused(call, code, item, text) do {                         \
        cap_reset(log);                                                          \
        assert_int_equal((call), (code));                                       \
        assert_int_equal(log->last_item, (item));                               \
        if (!strstr(log->last_message, (text))) {                               \
            print_error("\"%s\" lacks \"%s\"\n", log->last_message, (text));     \
            fail();                                                              \
        }                                                                        \
    } while (0)

static void test_view_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t n = 64, sh[2] = {4, 4}, zero[2] = {4, 0}, big[2] = {SIZE_MAX / 2, 4}, al = view_align(be);
    hst_array *base = mk(be, HST_F32, 1, &n), *v = (hst_array *)&n;
    hst_buffer *b = hst_array_buffer(base);
    /* no buffer, no backend: the default logger (stderr) says "buf is NULL" */
    assert_int_equal(hst_array_view(NULL, 0, HST_F32, 2, sh, &v), HST_ERROR_INVALID_ARGUMENT);
    assert_view_refused(hst_array_view(b, 0, HST_F32, 2, sh, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "out");
    assert_view_refused(hst_array_view(b, 0, (hst_dtype)99, 2, sh, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "dtype");
    assert_null(v);   /* *out is cleared on failure */
    assert_view_refused(hst_array_view(b, 0, HST_F32, 0, sh, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ndim");
    assert_view_refused(hst_array_view(b, 0, HST_F32, 5, sh, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ndim");
    assert_view_refused(hst_array_view(b, 0, HST_F32, 2, NULL, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "shape");
    assert_view_refused(hst_array_view(b, 0, HST_F32, 2, zero, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "shape[1]");
    assert_view_refused(hst_array_view(b, 2, HST_F32, 2, sh, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "offset_bytes");
    assert_view_refused(hst_array_view(b, 8, HST_C64, 2, sh, &v), hst_backend_is_host(be) ? HST_SUCCESS : HST_ERROR_ALIGNMENT,
                        hst_backend_is_host(be) ? log->last_item : HST_LOGITEM_MISALIGNED, hst_backend_is_host(be) ? "" : "alignment");
    hst_array_destroy(v);
    v = NULL;
    /* beyond the buffer: 64 floats hold 4 x 4 from element 48, not from 52 (nor 65 x 1) */
    assert_int_equal(hst_array_view(b, 48 * 4, HST_F32, 2, sh, &v), (48 * 4) % al == 0 || hst_backend_is_host(be) ? HST_SUCCESS : HST_ERROR_ALIGNMENT);
    hst_array_destroy(v);
    assert_view_refused(hst_array_view(b, 52 * 4, HST_F32, 2, sh, &v), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "offset_bytes");
    n = 65;
    assert_view_refused(hst_array_view(b, 0, HST_F32, 1, &n, &v), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "256 bytes");
    assert_view_refused(hst_array_view(b, 0, HST_F32, 2, big, &v), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "shape");
    n = 1;
    assert_view_refused(hst_array_view(b, SIZE_MAX - 3, HST_F32, 1, &n, &v), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "offset_bytes");
    if (!hst_backend_device(be)->fp64)
        assert_view_refused(hst_array_view(b, 0, HST_F64, 1, &n, &v), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "f64");
    hst_array_destroy(base);
}

/* This file is built without HST_FFT: the FFT call says so, with its code and log item. */
static void test_fft_not_built_in(void **state) {
    size_t n = 8;
    hst_array *x = mk(BE(state), HST_C64, 1, &n);
    cap_reset(LOG(state));
    assert_int_equal(hst_array_fft(x, x, 1, 0, HST_FFT_NORM_BACKWARD), HST_ERROR_NOT_BUILT_IN);
    assert_int_equal(LOG(state)->last_item, HST_LOGITEM_NOT_BUILT_IN);
    assert_non_null(strstr(LOG(state)->last_message, "HST_FFT"));
    assert_int_equal(hst_fft_built_in(), 0);
    assert_int_equal(hst_fft_plan_count(BE(state)), 0);
    hst_array_destroy(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramps),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_axis),
        cmocka_unit_test(test_complex_parts),
        cmocka_unit_test(test_view_basics),
        cmocka_unit_test(test_view_buffers),
        cmocka_unit_test(test_view_errors),
        cmocka_unit_test(test_fft_not_built_in),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
