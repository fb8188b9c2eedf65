/* test_vocabx.c — array.h's second vocabulary (PyEPRI's rest) and the FFT entry
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

/* A refused call: its code, the log's last item and a text of its message (naming the argument). */
#define assert_view_refused(call, code, item, text) do {                         \
        cap_reset(log);                                                          \
        assert_int_equal((call), (code));                                       \
        assert_int_equal(log->last_item, (item));                               \
        if (!strstr(log->last_message, (text))) {                               \
            print_error("\"%s\" lacks \"%s\"\n", log->last_message, (text));     \
            fail();                                                              \
        }                                                                        \
    } while (0)

static void test_moves(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
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
    {
        const unsigned twice[3] = {2, 2, 0}, past[3] = {2, 1, 3};
        assert_view_refused(hst_array_transpose(t, a, twice), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "perm");
        assert_view_refused(hst_array_transpose(t, a, past), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "perm");
    }
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
        assert_view_refused(hst_array_concatenate(c, NULL, 2, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "srcs is NULL");
        assert_view_refused(hst_array_concatenate(c, srcs, 0, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "count is 0");
        assert_view_refused(hst_array_stack(st, srcs, 0, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "count is 0");
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
        /* no backend to log to (the default logger says which argument): the code only */
        assert_int_equal(hst_array_meshgrid(NULL, v, 2, 0), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_array_meshgrid(g, NULL, 2, 0), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_array_meshgrid(g, v, 0, 0), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_array_meshgrid(g, v, HST_MAX_DIMS + 1, 0), HST_ERROR_INVALID_ARGUMENT);
        for (l = 0; l < 2; l++) { hst_array_destroy(v[l]); hst_array_destroy(g[l]); }
    }
    {   /* reshape: same memory, new shape; a wrong count is refused */
        size_t r2[2] = {6, 5}, bad[2] = {4, 4};
        assert_int_equal(hst_array_reshape(a, 2, r2), HST_SUCCESS);
        assert_int_equal(hst_array_ndim(a), 2);
        assert_int_equal(hst_array_reshape(a, 2, bad), HST_ERROR_SHAPE);
        assert_view_refused(hst_array_reshape(a, 0, r2), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ndim 0");
        assert_view_refused(hst_array_reshape(a, HST_MAX_DIMS + 1, r2), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ndim");
        assert_view_refused(hst_array_reshape(a, 2, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "shape is NULL");
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

static void test_view_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t n = 64, sh[2] = {4, 4}, zero[2] = {4, 0}, big[2] = {SIZE_MAX / 2, 4}, al = view_align(be);
    hst_array *base = mk(be, HST_F32, 1, &n), *v = (hst_array *)&n;
    hst_buffer *b = hst_array_buffer(base);
    /* no buffer, no backend: the default logger (stderr) says "buf is NULL" */
    assert_int_equal(hst_array_view(NULL, 0, HST_F32, 2, sh, &v), HST_ERROR_INVALID_ARGUMENT);
    assert_view_refused(hst_array_view(b, 0, HST_F32, 2, sh, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "out");
    assert_view_refused(hst_array_view(b, 0, (hst_dtype)99, 2, sh, &v), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "dtype");
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

/* ------------------------------------------------------------------------------------------
   The new dtypes in the second vocabulary: integer binary operations wrap (NumPy's int8 / int16
   / int64 arithmetic), maximum/minimum exact; c128 + - * / in double with the c64 formulas;
   axis reductions compare int64 exactly (values past 2^53 that a double would merge); complex
   parts of c128 into f64; moves of any element size (transpose of i8 and c128). */
static int64_t wrap_to(hst_dtype dt, uint64_t v) {
    return dt == HST_I8 ? (int8_t)(uint8_t)v : dt == HST_I16 ? (int16_t)(uint16_t)v : (int64_t)v;
}
static int64_t ld_int(hst_dtype dt, const void *p, size_t i) {
    return dt == HST_I8 ? ((const int8_t *)p)[i] : dt == HST_I16 ? ((const int16_t *)p)[i] : ((const int64_t *)p)[i];
}
static void st_int(hst_dtype dt, void *p, size_t i, int64_t v) {
    if (dt == HST_I8) ((int8_t *)p)[i] = (int8_t)v;
    else if (dt == HST_I16) ((int16_t *)p)[i] = (int16_t)v;
    else ((int64_t *)p)[i] = v;
}

static void test_int_dtypes(void **state) {
    hst_backend *be = BE(state);
    static const hst_dtype dts[3] = {HST_I8, HST_I16, HST_I64};
    static const int64_t av[8] = {127, -128, 100, -1, 0, 77, INT64_MAX, INT64_MIN};
    static const int64_t bv[8] = {1, -1, 100, -1, 5, -3, 1, 2};
    size_t n = 8, i, d;
    int op;
    for (d = 0; d < 3; d++) {
        hst_dtype dt = dts[d];
        unsigned char a[64], b[64], *o;
        hst_array *xa, *xb, *xd;
        for (i = 0; i < n; i++) { st_int(dt, a, i, wrap_to(dt, (uint64_t)av[i])); st_int(dt, b, i, wrap_to(dt, (uint64_t)bv[i])); }
        assert_int_equal(hst_array_from_host(be, dt, 1, &n, a, &xa), HST_SUCCESS);
        assert_int_equal(hst_array_from_host(be, dt, 1, &n, b, &xb), HST_SUCCESS);
        xd = mk(be, dt, 1, &n);
        for (op = 0; op <= HST_BINARY_MINIMUM; op++) {
            if (op == HST_BINARY_DIV) {
                assert_int_equal(hst_array_binary(xd, xa, xb, HST_BINARY_DIV), HST_ERROR_DTYPE);
                continue;
            }
            assert_int_equal(hst_array_binary(xd, xa, xb, (hst_binary_op)op), HST_SUCCESS);
            o = (unsigned char *)rd(xd);
            for (i = 0; i < n; i++) {
                int64_t p = ld_int(dt, a, i), q = ld_int(dt, b, i), w;
                uint64_t up = (uint64_t)p, uq = (uint64_t)q;
                w = op == 0 ? wrap_to(dt, up + uq) : op == 1 ? wrap_to(dt, up - uq) : op == 2 ? wrap_to(dt, up * uq)
                  : op == 4 ? (p > q ? p : q) : (p < q ? p : q);
                if (ld_int(dt, o, i) != w) fail_msg("%s op %d [%zu]: got %lld want %lld", hst_dtype_name(dt), op, i, (long long)ld_int(dt, o, i), (long long)w);
            }
            free(o);
        }
        {   /* i8: 127 + 1 wraps to -128 (NumPy); argmax picks the first of equal maxima */
            if (dt == HST_I8) {
                int8_t *g;
                assert_int_equal(hst_array_binary(xd, xa, xb, HST_BINARY_ADD), HST_SUCCESS);
                g = (int8_t *)rd(xd);
                assert_int_equal(g[0], -128);
                free(g);
            }
        }
        hst_array_destroy(xa); hst_array_destroy(xb); hst_array_destroy(xd);
    }
    {   /* i64 along an axis: 2^62 + 1 beats 2^62 (a double would tie them), cumsum wraps */
        int64_t v[6] = {(int64_t)1 << 62, ((int64_t)1 << 62) + 1, 5, INT64_MAX, 1, -7}, *o;
        size_t sh[2] = {2, 3}, one = 2;
        int32_t *ix;
        hst_array *x, *m, *am, *c;
        assert_int_equal(hst_array_from_host(be, HST_I64, 2, sh, v, &x), HST_SUCCESS);
        m = mk(be, HST_I64, 1, &one); am = mk(be, HST_I32, 1, &one); c = mk(be, HST_I64, 2, sh);
        assert_int_equal(hst_array_reduce_axis(am, x, 1, HST_AXIS_ARGMAX), HST_SUCCESS);
        ix = (int32_t *)rd(am);
        assert_int_equal(ix[0], 1); assert_int_equal(ix[1], 0);
        free(ix);
        assert_int_equal(hst_array_reduce_axis(m, x, 1, HST_AXIS_MIN), HST_SUCCESS);
        o = (int64_t *)rd(m);
        assert_true(o[0] == 5 && o[1] == -7);
        free(o);
        assert_int_equal(hst_array_reduce_axis(c, x, 1, HST_AXIS_CUMSUM), HST_SUCCESS);
        o = (int64_t *)rd(c);
        assert_true(o[1] == (int64_t)(((uint64_t)1 << 63) + 1));   /* 2^62 + 2^62 + 1 wraps */
        assert_true(o[4] == (int64_t)((uint64_t)INT64_MAX + 1));
        assert_true(o[5] == (int64_t)((uint64_t)INT64_MAX + 1 - 7));
        free(o);
        hst_array_destroy(x); hst_array_destroy(m); hst_array_destroy(am); hst_array_destroy(c);
    }
    {   /* moves of 1-byte elements: transpose (2, 3) i8 */
        int8_t v[6] = {1, 2, 3, -4, -5, -6}, *o;
        size_t sh[2] = {2, 3}, tsh[2] = {3, 2};
        hst_array *x, *t;
        assert_int_equal(hst_array_from_host(be, HST_I8, 2, sh, v, &x), HST_SUCCESS);
        t = mk(be, HST_I8, 2, tsh);
        assert_int_equal(hst_array_transpose(t, x, NULL), HST_SUCCESS);
        o = (int8_t *)rd(t);
        for (size_t i = 0; i < 3; i++) for (size_t j = 0; j < 2; j++) assert_int_equal(o[i * 2 + j], v[j * 3 + i]);
        free(o);
        hst_array_destroy(x); hst_array_destroy(t);
    }
}

static void test_c128(void **state) {
    hst_backend *be = BE(state);
    size_t n = 5, i, sh[2] = {5, 1}, tsh[2] = {1, 5};
    double z[10] = {3, 4, -1, 0, 0, -2, 1e-3, 5, -7.5, 1e300};
    double w[10] = {1, -1, 2, 0.5, -3, 3, 1e-300, 1, 0.25, -2};
    double *o;
    hst_array *a, *b, *d, *f, *t;
    int op, part;
    if (!hst_backend_device(be)->fp64) {   /* the dtype error names c128 */
        cap_reset(LOG(state));
        assert_int_equal(hst_array_create(be, HST_C128, 1, &n, &a), HST_ERROR_DTYPE);
        assert_int_equal(LOG(state)->last_item, HST_LOGITEM_DTYPE);
        assert_non_null(strstr(LOG(state)->last_message, "c128"));
        return;
    }
    assert_int_equal(hst_array_from_host(be, HST_C128, 1, &n, z, &a), HST_SUCCESS);
    assert_int_equal(hst_array_from_host(be, HST_C128, 1, &n, w, &b), HST_SUCCESS);
    d = mk(be, HST_C128, 1, &n);
    f = mk(be, HST_F64, 1, &n);
    for (op = 0; op <= HST_BINARY_DIV; op++) {
        assert_int_equal(hst_array_binary(d, a, b, (hst_binary_op)op), HST_SUCCESS);
        o = (double *)rd(d);
        for (i = 0; i < n; i++) {   /* the c64 formulas in double, one rounding per operation */
            double ar = z[2 * i], ai = z[2 * i + 1], br = w[2 * i], bi = w[2 * i + 1], re, im, t1, t2;
            if (op == 0) { re = ar + br; im = ai + bi; }
            else if (op == 1) { re = ar - br; im = ai - bi; }
            else if (op == 2) { t1 = ar * br; t2 = ai * bi; re = t1 - t2; t1 = ar * bi; t2 = ai * br; im = t1 + t2; }
            else {
                double dd; t1 = br * br; t2 = bi * bi; dd = t1 + t2;
                t1 = ar * br; t2 = ai * bi; re = (t1 + t2) / dd; t1 = ai * br; t2 = ar * bi; im = (t1 - t2) / dd;
            }
            assert_memory_equal(&o[2 * i], &re, 8);
            assert_memory_equal(&o[2 * i + 1], &im, 8);
        }
        free(o);
    }
    assert_int_equal(hst_array_binary(d, a, b, HST_BINARY_MAXIMUM), HST_ERROR_DTYPE);
    for (part = HST_PART_REAL; part <= HST_PART_ANGLE; part++) {
        assert_int_equal(hst_array_complex_part(f, a, (hst_complex_part)part), HST_SUCCESS);
        o = (double *)rd(f);
        for (i = 0; i < n; i++) {
            double want = part == 0 ? z[2 * i] : part == 1 ? z[2 * i + 1]
                        : part == 2 ? hypot(z[2 * i], z[2 * i + 1]) : atan2(z[2 * i + 1], z[2 * i]);
            double ulp = ldexp(1.0, (int)floor(log2(fabs(want) > 1e-300 ? fabs(want) : 1e-300)) - 52);
            assert_true(fabs(o[i] - want) <= (part < 2 ? 0.0 : 7.0 * ulp));   /* hypot 4, atan2 6 ulp + 1 */
        }
        free(o);
    }
    assert_int_equal(hst_array_complex_part(d, a, HST_PART_CONJ), HST_SUCCESS);
    o = (double *)rd(d);
    for (i = 0; i < n; i++) assert_true(o[2 * i] == z[2 * i] && o[2 * i + 1] == -z[2 * i + 1]);
    free(o);
    {   /* a c64 dst for a c128 src is the wrong real type: the shape error says so */
        hst_array *f32 = mk(be, HST_F32, 1, &n);
        assert_int_equal(hst_array_complex_part(f32, a, HST_PART_REAL), HST_ERROR_SHAPE);
        hst_array_destroy(f32);
    }
    /* 16-byte moves: reshape + transpose (5, 1) -> (1, 5) keeps the values */
    assert_int_equal(hst_array_reshape(a, 2, sh), HST_SUCCESS);
    t = mk(be, HST_C128, 2, tsh);
    assert_int_equal(hst_array_transpose(t, a, NULL), HST_SUCCESS);
    o = (double *)rd(t);
    assert_memory_equal(o, z, sizeof z);
    free(o);
    hst_array_destroy(a); hst_array_destroy(b); hst_array_destroy(d); hst_array_destroy(f); hst_array_destroy(t);
}

/* ------------------------------------------------------------------------------------------
   numpy.tile: NumPy's documented examples (a = [0 1 2]: tile(a, 2), tile(a, (2, 2)),
   tile(a, (2, 1, 2)); b = [[1 2] [3 4]]: tile(b, 2), tile(b, (2, 1))) with the result
   computed here from dst[i] = src[i mod shape], plus the errors. */
static void check_tile(hst_backend *be, unsigned snd, const size_t *ssh, const size_t *reps,
                       unsigned nreps, unsigned dnd, const size_t *dsh) {
    size_t sn = 1, dn = 1, i;
    unsigned k;
    int32_t src[16] = {0}, *o;
    hst_array *s, *d;
    for (k = 0; k < snd; k++) sn *= ssh[k];
    for (k = 0; k < dnd; k++) dn *= dsh[k];
    for (i = 0; i < sn; i++) src[i] = (int32_t)(i * 7 + 1);
    assert_int_equal(hst_array_from_host(be, HST_I32, snd, ssh, src, &s), HST_SUCCESS);
    d = mk(be, HST_I32, dnd, dsh);
    assert_int_equal(hst_array_tile(d, s, reps, nreps), HST_SUCCESS);
    o = (int32_t *)rd(d);
    for (i = 0; i < dn; i++) {   /* dst index (C order over dsh) modulo src's padded shape */
        size_t rest = i, at = 0, stride = 1;
        for (k = dnd; k-- > 0;) {
            size_t c = rest % dsh[k], se = k + snd >= dnd ? ssh[k + snd - dnd] : 1;
            rest /= dsh[k];
            at += (c % se) * stride;
            stride *= se;
        }
        assert_int_equal(o[i], src[at]);
    }
    free(o);
    hst_array_destroy(s); hst_array_destroy(d);
}

/* NumPy's meshgrid (numpy/lib/_function_base_impl.py): input k reshaped to all 1s but -1 at
   axis k, then broadcast; "xy" (NumPy's default, ij = 0) puts input 0 on axis 1 and input 1 on
   axis 0. The axis input k runs along, and the grid's shape, by that definition. */
static unsigned numpy_mesh_axis(size_t count, unsigned k, int ij) {
    if (ij || count < 2 || k > 1) return k;
    return 1 - k;
}

/* Grids of 3 and 4 inputs (PyEPRI's 3-D and 4-D grids), both indexings, in f32 and, where the
   device has fp64, f64: every element of every output against the definition above, exactly
   (meshgrid moves values). A dst of the other indexing's shape is refused. */
static void check_meshgrid(hst_backend *be, hst_dtype dt, size_t count, int ij) {
    const size_t n[4] = {2, 3, 4, 5};
    size_t gsh[4] = {0, 0, 0, 0}, idx[4], total = 1, e, k;
    hst_array *v[4] = {NULL, NULL, NULL, NULL}, *g[4] = {NULL, NULL, NULL, NULL};
    double vals[4][5];
    unsigned d;
    for (k = 0; k < count; k++) {
        float f[5];
        for (e = 0; e < n[k]; e++) {
            vals[k][e] = 100.0 * (double)k + 1.5 * (double)e - 3.0;
            f[e] = (float)vals[k][e];
        }
        v[k] = dt == HST_F32 ? mkf(be, 1, &n[k], f) : NULL;
        if (dt == HST_F64) assert_int_equal(hst_array_from_host(be, dt, 1, &n[k], vals[k], &v[k]), HST_SUCCESS);
        gsh[numpy_mesh_axis(count, (unsigned)k, ij)] = n[k];
    }
    for (k = 0; k < count; k++) { total *= gsh[k]; g[k] = mk(be, dt, (unsigned)count, gsh); }
    assert_int_equal(hst_array_meshgrid(g, v, count, ij), HST_SUCCESS);
    for (k = 0; k < count; k++) {
        void *o = rd(g[k]);
        unsigned ax = numpy_mesh_axis(count, (unsigned)k, ij);
        for (e = 0; e < total; e++) {
            size_t rest = e;
            for (d = (unsigned)count; d-- > 0;) { idx[d] = rest % gsh[d]; rest /= gsh[d]; }
            if (dt == HST_F32) assert_true(((float *)o)[e] == (float)vals[k][idx[ax]]);
            else assert_true(((double *)o)[e] == vals[k][idx[ax]]);
        }
        free(o);
    }
    /* the other indexing's grid: its first two extents swapped */
    assert_int_equal(hst_array_meshgrid(g, v, count, !ij), HST_ERROR_SHAPE);
    for (k = 0; k < count; k++) { hst_array_destroy(v[k]); hst_array_destroy(g[k]); }
}

static void test_meshgrid_nd(void **state) {
    hst_backend *be = BE(state);
    size_t count;
    int ij;
    for (count = 3; count <= 4; count++)
        for (ij = 0; ij <= 1; ij++) {
            check_meshgrid(be, HST_F32, count, ij);
            if (hst_backend_device(be)->fp64) check_meshgrid(be, HST_F64, count, ij);
        }
    assert_int_equal(LOG(state)->last_item, HST_LOGITEM_SHAPE_MISMATCH);
}

static void test_tile(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t a3 = 3, b22[2] = {2, 2};
    size_t r2 = 2, r22[2] = {2, 2}, r212[3] = {2, 1, 2}, r21[2] = {2, 1};
    size_t d6 = 6, d26[2] = {2, 6}, d216[3] = {2, 1, 6}, d24[2] = {2, 4}, d42[2] = {4, 2};
    int32_t want6[6] = {1, 8, 15, 1, 8, 15}, *o;
    hst_array *s, *d;
    check_tile(be, 1, &a3, &r2, 1, 1, &d6);
    check_tile(be, 1, &a3, r22, 2, 2, d26);
    check_tile(be, 1, &a3, r212, 3, 3, d216);
    check_tile(be, 2, b22, &r2, 1, 2, d24);
    check_tile(be, 2, b22, r21, 2, 2, d42);
    assert_int_equal(hst_array_from_host(be, HST_I32, 1, &a3, want6, &s), HST_SUCCESS);
    d = mk(be, HST_I32, 1, &d6);
    assert_int_equal(hst_array_tile(d, s, &r2, 1), HST_SUCCESS);   /* numpy.tile([0 1 2], 2) */
    o = (int32_t *)rd(d);
    assert_memory_equal(o, want6, sizeof want6);
    free(o);
    {
        size_t zero = 0, r3 = 3, five[5] = {1, 1, 1, 1, 1};
        assert_view_refused(hst_array_tile(d, s, &zero, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "reps[0]");
        assert_view_refused(hst_array_tile(d, s, &r3, 1), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "times reps");
        assert_view_refused(hst_array_tile(d, s, five, 5), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "nreps 5");
        assert_view_refused(hst_array_tile(d, s, five, 0), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "nreps is 0");
        assert_view_refused(hst_array_tile(d, s, NULL, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "reps is NULL");
        assert_view_refused(hst_array_tile(d, d, &r2, 1), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "dst must not be src");
    }
    hst_array_destroy(s); hst_array_destroy(d);
}

/* ------------------------------------------------------------------------------------------
   numpy.argwhere: NumPy's example (x = arange(6).reshape(2, 3); argwhere(x > 1) = [[0 2]
   [1 0] [1 1] [1 2]]); NaN counts, -0 does not, complex either part; a sparse 3-D array over
   several chunks against rows computed here in C order; nothing nonzero gives no array. */
static void test_argwhere(void **state) {
    hst_backend *be = BE(state);
    size_t sh[2] = {2, 3}, count = 99, i;
    int64_t *o;
    hst_array *x, *w;
    {
        uint8_t v[6] = {0, 1, 2, 3, 4, 5};
        static const int64_t want[8] = {0, 2, 1, 0, 1, 1, 1, 2};
        for (i = 0; i < 6; i++) v[i] = v[i] > 1;
        assert_int_equal(hst_array_from_host(be, HST_U8, 2, sh, v, &x), HST_SUCCESS);
        assert_int_equal(hst_array_argwhere(x, &w, &count), HST_SUCCESS);
        assert_int_equal(count, 4);
        assert_int_equal(hst_array_dtype(w), HST_I64);
        assert_int_equal(hst_array_ndim(w), 2);
        assert_int_equal(hst_array_shape(w)[0], 4); assert_int_equal(hst_array_shape(w)[1], 2);
        o = (int64_t *)rd(w);
        assert_memory_equal(o, want, sizeof want);
        free(o);
        hst_array_destroy(x); hst_array_destroy(w);
    }
    {
        float v[6] = {0.0f, -0.0f, NAN, 1e-45f, 0.0f, -3.0f};
        static const int64_t want[3] = {2, 3, 5};
        size_t n = 6;
        assert_int_equal(hst_array_from_host(be, HST_F32, 1, &n, v, &x), HST_SUCCESS);
        assert_int_equal(hst_array_argwhere(x, &w, &count), HST_SUCCESS);
        assert_int_equal(count, 3);
        o = (int64_t *)rd(w);
        assert_memory_equal(o, want, sizeof want);
        free(o);
        hst_array_destroy(x); hst_array_destroy(w);
    }
    {
        float v[8] = {0, 0, 0, 1, -0.0f, 0, 2, 0};   /* (0,0) (0,1) (-0,0) (2,0) */
        static const int64_t want[2] = {1, 3};
        size_t n = 4;
        assert_int_equal(hst_array_from_host(be, HST_C64, 1, &n, v, &x), HST_SUCCESS);
        assert_int_equal(hst_array_argwhere(x, &w, &count), HST_SUCCESS);
        assert_int_equal(count, 2);
        o = (int64_t *)rd(w);
        assert_memory_equal(o, want, sizeof want);
        free(o);
        hst_array_destroy(w);
        assert_int_equal(hst_array_zeros(x), HST_SUCCESS);
        w = x;
        assert_int_equal(hst_array_argwhere(x, &w, &count), HST_SUCCESS);
        assert_null(w);
        assert_int_equal(count, 0);
        hst_array_destroy(x);
    }
    {   /* 3 x 50 x 97 i16 (14550 elements, 4 chunks), about 1 in 7 nonzero */
        size_t s3[3] = {3, 50, 97}, n = 3 * 50 * 97, rows = 0, j;
        int16_t *v = (int16_t *)malloc(n * sizeof *v);
        int64_t *want = (int64_t *)malloc(n * 3 * sizeof *want);
        uint64_t r = 12345;
        assert_non_null(v); assert_non_null(want);
        for (i = 0; i < n; i++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            v[i] = (int16_t)((r >> 33) % 7 == 0 ? (int16_t)(r >> 40) | 1 : 0);
            if (v[i]) { want[rows * 3] = (int64_t)(i / (50 * 97)); want[rows * 3 + 1] = (int64_t)(i / 97 % 50); want[rows * 3 + 2] = (int64_t)(i % 97); rows++; }
        }
        assert_int_equal(hst_array_from_host(be, HST_I16, 3, s3, v, &x), HST_SUCCESS);
        assert_int_equal(hst_array_argwhere(x, &w, &count), HST_SUCCESS);
        assert_int_equal(count, rows);
        assert_true(rows > 1500);
        o = (int64_t *)rd(w);
        for (j = 0; j < rows * 3; j++) if (o[j] != want[j]) fail_msg("argwhere row %zu col %zu: %lld != %lld", j / 3, j % 3, (long long)o[j], (long long)want[j]);
        free(o); free(v); free(want);
        hst_array_destroy(x); hst_array_destroy(w);
    }
    assert_int_equal(hst_array_argwhere(NULL, &w, &count), HST_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------------------------
   numpy.quantile (method 'linear', a Python float q): bitwise equal to values NumPy 2.4.6
   printed (the table below: f32 keeps NumPy's float32 arithmetic, f64 includes +-1e300 whose
   difference overflows, i64 / i8 are computed in float64), NaN gives NaN, one element gives
   it for every q, and the errors name q. */
/* numpy 2.4.6: numpy.quantile(x, q) for a Python float q (method 'linear') */
static const double Q_PROBS[10] = {0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 0.99, 1.0};
static const float Q_F32[11] = {3.5f, -1.25f, 7.f, 0.1f, 2.2f, 2.2f, -0.0f, 9.75f, 0.001f, 4.4f, 5.f};
static const uint32_t Q_F32_WANT[10] = {0xbfa00000u, 0x00000000u, 0x3d4ed917u, 0x3dcccccdu, 0x400ccccdu, 0x40600000u, 0x40966666u, 0x40e00000u, 0x4117999au, 0x411c0000u};
static const double Q_F64[14] = {3.5, -1.15, 7.2, 0.4, 2.6, 2.7, 0.6, 10.45, 0.801, 5.3, 6.0, 1e+300, -1e+300, 0.125};
static const uint64_t Q_F64_WANT[10] = {0xfe37e43c8800759cull, 0xbfe88f5c28f5c28eull, 0x3fdccccccccccccdull, 0x3fe28f5c28f5c28full, 0x4005333333333334ull, 0x400ab851eb851eb8ull, 0x40174ccccccccccdull, 0x4022f33333333335ull, 0x7e34c9202ea43d57ull, 0x7e37e43c8800759cull};
static const int64_t Q_I64[10] = {5LL, -3LL, 100LL, 7LL, 7LL, 1099511627776LL, -1099511627776LL, 0LL, 1LL, 3LL};
static const uint64_t Q_I64_WANT[10] = {0xc270000000000000ull, 0xc2399999999c4ccbull, 0x3fd0000000000000ull, 0x3fe6666666666664ull, 0x4010000000000000ull, 0x4017333333333332ull, 0x401c000000000000ull, 0x4239999999f39980ull, 0x426d1eb851eca520ull, 0x4270000000000000ull};
static const int8_t Q_I8[8] = {-128, 127, 0, 5, -7, 3, 3, 99};
static const uint64_t Q_I8_WANT[10] = {0xc060000000000000ull, 0xc045a66666666665ull, 0xbffc000000000000ull, 0x3fd3333333333338ull, 0x4008000000000000ull, 0x400b333333333334ull, 0x403c800000000000ull, 0x405ad99999999999ull, 0x405f428f5c28f5c2ull, 0x405fc00000000000ull};

static void test_quantile(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    size_t nq = sizeof Q_PROBS / sizeof Q_PROBS[0], n, k;
    double out[16], q;
    hst_array *x;
    n = sizeof Q_F32 / sizeof Q_F32[0];
    assert_int_equal(hst_array_from_host(be, HST_F32, 1, &n, Q_F32, &x), HST_SUCCESS);
    assert_int_equal(hst_array_quantile(x, Q_PROBS, nq, out), HST_SUCCESS);
    for (k = 0; k < nq; k++) {
        float f = (float)out[k];
        uint32_t bits;
        memcpy(&bits, &f, 4);
        assert_true((double)f == out[k]);
        if (bits != Q_F32_WANT[k]) fail_msg("f32 quantile %g: %08x != numpy %08x", Q_PROBS[k], bits, Q_F32_WANT[k]);
    }
    hst_array_destroy(x);
    if (hst_backend_device(be)->fp64) {
        n = sizeof Q_F64 / sizeof Q_F64[0];
        assert_int_equal(hst_array_from_host(be, HST_F64, 1, &n, Q_F64, &x), HST_SUCCESS);
        assert_int_equal(hst_array_quantile(x, Q_PROBS, nq, out), HST_SUCCESS);
        assert_memory_equal(out, Q_F64_WANT, nq * 8);
        hst_array_destroy(x);
    }
    n = sizeof Q_I64 / sizeof Q_I64[0];
    assert_int_equal(hst_array_from_host(be, HST_I64, 1, &n, Q_I64, &x), HST_SUCCESS);
    assert_int_equal(hst_array_quantile(x, Q_PROBS, nq, out), HST_SUCCESS);
    assert_memory_equal(out, Q_I64_WANT, nq * 8);
    hst_array_destroy(x);
    n = sizeof Q_I8 / sizeof Q_I8[0];
    assert_int_equal(hst_array_from_host(be, HST_I8, 1, &n, Q_I8, &x), HST_SUCCESS);
    assert_int_equal(hst_array_quantile(x, Q_PROBS, nq, out), HST_SUCCESS);
    assert_memory_equal(out, Q_I8_WANT, nq * 8);
    hst_array_destroy(x);
    {
        float v[3] = {1.0f, NAN, 3.0f};
        n = 3;
        assert_int_equal(hst_array_from_host(be, HST_F32, 1, &n, v, &x), HST_SUCCESS);
        assert_int_equal(hst_array_quantile(x, Q_PROBS, 2, out), HST_SUCCESS);
        assert_true(isnan(out[0]) && isnan(out[1]));
        hst_array_destroy(x);
        n = 1;
        assert_int_equal(hst_array_from_host(be, HST_F32, 1, &n, v + 2, &x), HST_SUCCESS);
        assert_int_equal(hst_array_quantile(x, Q_PROBS, nq, out), HST_SUCCESS);
        for (k = 0; k < nq; k++) assert_true(out[k] == 3.0);
        q = 1.5;
        assert_view_refused(hst_array_quantile(x, &q, 1, out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "q[0]");
        q = NAN;
        assert_view_refused(hst_array_quantile(x, &q, 1, out), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "q[0]");
        hst_array_destroy(x);
    }
    {
        size_t m = 2;
        hst_array *c = mk(be, HST_C64, 1, &m);
        assert_view_refused(hst_array_quantile(c, Q_PROBS, 1, out), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "c64");
        hst_array_destroy(c);
    }
}

/* ------------------------------------------------------------------------------------------
   randperm: every value 0..n-1 exactly once for sizes around the Feistel domain's powers of
   four; the same as the host twin (so the same on every device); i32 and i64 agree; the seed
   matters; each value's position is roughly uniform (n = 8 over 4000 seeds: every cell of the
   8 x 8 position table within 500 +- 110, about 5 standard deviations). */
static void test_randperm(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    static const size_t sizes[] = {1, 2, 3, 4, 5, 16, 17, 1000, 4097, 65537};
    size_t k, i;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        hst_array *p64 = mk(be, HST_I64, 1, &n), *p32 = mk(be, HST_I32, 1, &n);
        int64_t *g = NULL, *want = (int64_t *)malloc(n * 8);
        int32_t *g32;
        unsigned char *seen = (unsigned char *)calloc(n, 1);
        assert_non_null(want); assert_non_null(seen);
        assert_int_equal(hst_array_randperm(p64, 2026), HST_SUCCESS);
        assert_int_equal(hst_array_randperm(p32, 2026), HST_SUCCESS);
        g = (int64_t *)rd(p64);
        g32 = (int32_t *)rd(p32);
        hst_k_randperm_host(HST_I64, want, n, 2026);
        assert_memory_equal(g, want, n * 8);
        for (i = 0; i < n; i++) {
            assert_true(g[i] >= 0 && (size_t)g[i] < n && !seen[g[i]]);
            seen[g[i]] = 1;
            assert_int_equal(g32[i], g[i]);
        }
        if (n >= 1000) {   /* another seed: another permutation */
            size_t same = 0;
            free(g);
            assert_int_equal(hst_array_randperm(p64, 2027), HST_SUCCESS);
            g = (int64_t *)rd(p64);
            for (i = 0; i < n; i++) same += (size_t)g[i] == (size_t)want[i];
            assert_true(same < n / 50);
        }
        free(g); free(g32); free(want); free(seen);
        hst_array_destroy(p64); hst_array_destroy(p32);
    }
    {
        size_t n = 8, cnt[8][8], s, v;
        hst_array *p = mk(be, HST_I32, 1, &n);
        memset(cnt, 0, sizeof cnt);
        for (s = 0; s < 4000; s++) {
            int32_t *g;
            assert_int_equal(hst_array_randperm(p, s), HST_SUCCESS);
            g = (int32_t *)rd(p);
            for (v = 0; v < 8; v++) cnt[v][g[v]]++;
            free(g);
        }
        for (v = 0; v < 64; v++) if (cnt[v / 8][v % 8] < 390 || cnt[v / 8][v % 8] > 610) fail_msg("position %zu of value %zu: %zu of 4000", v / 8, v % 8, cnt[v / 8][v % 8]);
        hst_array_destroy(p);
    }
    {
        size_t n = 4, sh[2] = {2, 2};
        hst_array *f = mk(be, HST_F32, 1, &n), *m = mk(be, HST_I64, 2, sh);
        assert_view_refused(hst_array_randperm(f, 1), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "f32");
        assert_view_refused(hst_array_randperm(m, 1), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "1-D");
        hst_array_destroy(f); hst_array_destroy(m);
    }
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
        cmocka_unit_test(test_int_dtypes),
        cmocka_unit_test(test_c128),
        cmocka_unit_test(test_meshgrid_nd),
        cmocka_unit_test(test_tile),
        cmocka_unit_test(test_argwhere),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_randperm),
        cmocka_unit_test(test_fft_not_built_in),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
