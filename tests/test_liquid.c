/* tests/test_liquid.c — liquid.h on the device under test ($HST_DEVICE, as tests/run.sh sets it):
   - each device call against its host twin (kernels_esrrf.h), bit for bit: shift-and-magnify
     with sub-pixel shifts and per-axis float magnifications, Roberts cross into two arrays, RGC
     from two gradient arrays (equal to the twin on one interleaved array: the chained path's);
   - shift-and-magnify against an independent reference written here from NanoPyx's formulas
     (_c_cubic and _c_interpolate in double, positions rM / magnification - shift in float as
     NanoPyx's C and OpenCL paths compute them), within 1e-5 of the image's largest |value|:
     our weights and sums are float (about 16 roundings of terms bounded by 1.6 max|I|: 3e-6
     max|I|), and a position may differ by an ulp where NanoPyx divides by a non-integer
     magnification (an ulp of 17 is 2e-6 pixels: at most 4e-6 max|I| through the slope);
   - one frame's rows split (the host device's threads: shift-and-magnify of one frame) and the
     RGC kernel launched over parts of a frame's pixels (cuts inside rows and across rows; the
     twin's table, no-table and per-sample ways): the twins' bits, each part writing its own
     pixels only (host device);
   - the tutorial's chain by hand (magnify M, Roberts, magnify both by 2M, RGC) == hst_esrrf_run's
     per-frame image (frames_per_timepoint 1, correction off, AVG) on every path, bit for bit
     (compared as floats: the fused path may give -0 where the chained gives +0);
   - the per-frame stack of hst_esrrf_run: one image per frame, each the fused twin's image of
     that frame;
   - the engine: every device present by default (names, tags); each method on host memory equal
     to the device call's bits whichever device runs it; names and "@tag" forced; the measured
     fastest chosen (after timings recorded; and with the real clock: the chosen one has the
     lowest median); clear; testing mode (an op of choice.h wrapping the engine's calls with a
     deliberately wrong implementation: excluded, HST_ERROR_MISMATCH when forced; the engine's
     own testing mode over two devices keeps both); benchmark rows and NanoPyx's table; eSRRF on
     host memory == hst_esrrf_run;
   - bad input: a clear code and log item naming the argument. */
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
#define HST_KERNELS_TEST_API   /* hst_k_esrrf_rgc_fused_host: the per-frame reference */
#include "liquid.h"
#include "cap_log.h"
#include "be_fixture.h"

#define NF 3      /* frames */
#define R 13
#define C 17

/* ---- helpers ---------------------------------------------------------------------------- */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

/* Values in [0, 100) from an LCG: the same on every run and device. */
static void fill_random(float *x, size_t n, uint32_t seed)
{
    size_t i;
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / (float)(1u << 24) * 100.0f;
    }
}

/* Blinking spots on a background (eSRRF's kind of input), integers 0..250. */
static void fill_spots(float *x, size_t frames, size_t rows, size_t cols)
{
    uint32_t s = 12345u;
    size_t z, y, c;
    for (z = 0; z < frames; z++)
        for (y = 0; y < rows; y++)
            for (c = 0; c < cols; c++) {
                double v = 10.0 + 4.0 * ((s = s * 1664525u + 1013904223u) >> 29);
                double d1 = (double)y - 4.3, e1 = (double)c - 5.1, d2 = (double)y - 7.6, e2 = (double)c - 9.2;
                if ((z * 7 + 3) % 5 < 3) v += 200.0 * exp(-(d1 * d1 + e1 * e1) / 2.0);
                if ((z * 3 + 1) % 4 < 2) v += 180.0 * exp(-(d2 * d2 + e2 * e2) / 2.0);
                x[(z * rows + y) * cols + c] = (float)floor(v > 250.0 ? 250.0 : v);
            }
}

static hst_array *upload(hst_backend *be, const float *src, size_t f, size_t r, size_t c)
{
    size_t shape[3];
    hst_array *a = NULL;
    shape[0] = f; shape[1] = r; shape[2] = c;
    assert_int_equal(hst_array_create(be, HST_F32, 3, shape, &a), HST_SUCCESS);
    if (src) assert_int_equal(hst_array_write(a, src, hst_array_bytes(a)), HST_SUCCESS);
    return a;
}

static float *download(const hst_array *a)
{
    float *p = (float *)xmalloc(hst_array_bytes(a));
    assert_int_equal(hst_array_read(a, p, hst_array_bytes(a)), HST_SUCCESS);
    return p;
}

/* Bitwise equality of n floats (memcmp: zeros of either sign must match too). */
static void assert_bits(const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            print_error("element %zu: %.9g != %.9g\n", i, (double)a[i], (double)b[i]);
            fail();
        }
}

/* Equality as floats (-0 == +0). */
static void assert_same(const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!(a[i] == b[i])) {
            print_error("element %zu: %.9g != %.9g\n", i, (double)a[i], (double)b[i]);
            fail();
        }
}

/* ---- device calls against their twins ------------------------------------------------------ */
static void check_magnify(void **state, float shr, float shc, float mr, float mc)
{
    hst_backend *be = BE(state);
    hst_shift_magnify_desc d;
    float *in = (float *)xmalloc(NF * R * C * sizeof(float)), *got, *want;
    uint32_t rm, cm;
    hst_array *src, *dst;
    d.shift_row = shr; d.shift_col = shc; d.magnification_row = mr; d.magnification_col = mc;
    fill_random(in, NF * R * C, 7u);
    assert_int_equal(hst_shift_magnify_shape(R, C, &d, &rm, &cm), HST_SUCCESS);
    assert_int_equal(rm, (uint32_t)floor((double)R * mr));
    assert_int_equal(cm, (uint32_t)floor((double)C * mc));
    src = upload(be, in, NF, R, C);
    dst = upload(be, NULL, NF, rm, cm);
    assert_int_equal(hst_shift_magnify(dst, src, &d), HST_SUCCESS);
    got = download(dst);
    want = (float *)xmalloc((size_t)NF * rm * cm * sizeof(float));
    hst_k_esrrf_magnify_host(in, want, R, C, rm, cm, mr, mc, shr, shc, 1, 0, 0, NF, NF);
    assert_bits(got, want, (size_t)NF * rm * cm);
    hst_array_destroy(src); hst_array_destroy(dst);
    free(in); free(got); free(want);
}

static void test_magnify_twin(void **state)
{
    check_magnify(state, 0.0f, 0.0f, 5.0f, 5.0f);
    check_magnify(state, 0.3f, -1.7f, 2.5f, 3.0f);
    check_magnify(state, -2.25f, 0.6f, 1.3f, 0.75f);
}

/* NanoPyx's _c_cubic and _c_interpolate (src/include/_c_interpolation_catmull_rom.c), in double
   as NanoPyx computes them. */
static double ref_cubic(double v)
{
    double a = 0.5, z = 0;
    if (v < 0) v = -v;
    if (v < 1)
        z = v * v * (v * (-a + 2) + (a - 3)) + 1;
    else if (v < 2)
        z = -a * v * v * v + 5 * a * v * v - 8 * a * v + 4 * a;
    return z;
}

static double ref_interp(const float *image, float r, float c, int rows, int cols)
{
    int r_int, c_int, i, j;
    double q = 0, p;
    if (r < 0 || r >= rows || c < 0 || c >= cols) return 0;
    r_int = (int)floor((float)(r - 0.5));
    c_int = (int)floor((float)(c - 0.5));
    for (j = 0; j < 4; j++) {
        int cn = c_int - 1 + j;
        p = 0;
        if (cn < 0 || cn >= cols) continue;
        for (i = 0; i < 4; i++) {
            int rn = r_int - 1 + i;
            if (rn < 0 || rn >= rows) continue;
            p = p + image[rn * cols + cn] * ref_cubic(r - (rn + 0.5));
        }
        q = q + p * ref_cubic(c - (cn + 0.5));
    }
    return q;
}

/* NanoPyx's ShiftAndMagnify (_run_unthreaded): out[f, i, j] = _c_interpolate(frame f,
   i / magnification_row - shift_row, j / magnification_col - shift_col), floats. */
static void check_magnify_reference(void **state, float shr, float shc, float mr, float mc)
{
    hst_backend *be = BE(state);
    hst_shift_magnify_desc d;
    float *in = (float *)xmalloc(NF * R * C * sizeof(float)), *got, big = 0.0f;
    uint32_t rm, cm, f, i, j;
    hst_array *src, *dst;
    double worst = 0.0;
    d.shift_row = shr; d.shift_col = shc; d.magnification_row = mr; d.magnification_col = mc;
    fill_random(in, NF * R * C, 99u);
    for (i = 0; i < NF * R * C; i++) big = in[i] > big ? in[i] : big;
    assert_int_equal(hst_shift_magnify_shape(R, C, &d, &rm, &cm), HST_SUCCESS);
    src = upload(be, in, NF, R, C);
    dst = upload(be, NULL, NF, rm, cm);
    assert_int_equal(hst_shift_magnify(dst, src, &d), HST_SUCCESS);
    got = download(dst);
    for (f = 0; f < NF; f++)
        for (i = 0; i < rm; i++)
            for (j = 0; j < cm; j++) {
                float row = (float)i / mr - shr, col = (float)j / mc - shc;
                double ref = ref_interp(in + f * R * C, row, col, R, C);
                double e = fabs((double)got[((size_t)f * rm + i) * cm + j] - ref);
                worst = e > worst ? e : worst;
            }
    if (!(worst <= 1e-5 * big)) {
        print_error("shift (%g, %g), magnification (%g, %g): %.3g from NanoPyx's formula (max |I| %g)\n",
                    (double)shr, (double)shc, (double)mr, (double)mc, worst, (double)big);
        fail();
    }
    hst_array_destroy(src); hst_array_destroy(dst);
    free(in); free(got);
}

static void test_magnify_reference(void **state)
{
    check_magnify_reference(state, 0.0f, 0.0f, 4.0f, 4.0f);
    check_magnify_reference(state, 0.5f, -0.25f, 2.0f, 3.0f);
    check_magnify_reference(state, 1.37f, 2.6f, 2.5f, 1.5f);
    check_magnify_reference(state, -3.1f, 0.9f, 0.5f, 1.75f);
}

/* An integer shift at magnification 1 moves the image by whole pixels: pixel (r, c) of the
   output is the input's interpolated value at (r - s, c - t), which equals the unshifted
   output at (r - s, c - t) where that is inside. */
static void test_magnify_shift_moves(void **state)
{
    hst_backend *be = BE(state);
    hst_shift_magnify_desc d0 = {0.0f, 0.0f, 1.0f, 1.0f}, d1 = {2.0f, -3.0f, 1.0f, 1.0f};
    float *in = (float *)xmalloc(R * C * sizeof(float)), *a, *b;
    hst_array *src, *o0, *o1;
    size_t shape[2] = {R, C};
    int r, c;
    fill_random(in, R * C, 5u);
    assert_int_equal(hst_array_create(be, HST_F32, 2, shape, &src), HST_SUCCESS);
    assert_int_equal(hst_array_write(src, in, sizeof(float) * R * C), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, shape, &o0), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, shape, &o1), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(o0, src, &d0), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(o1, src, &d1), HST_SUCCESS);
    a = download(o0);
    b = download(o1);
    for (r = 0; r < R; r++)
        for (c = 0; c < C; c++) {
            int r0 = r - 2, c0 = c + 3;
            if (r0 >= 0 && c0 < C) assert_true(b[r * C + c] == a[r0 * C + c0]);
            else assert_true(b[r * C + c] == 0.0f);
        }
    hst_array_destroy(src); hst_array_destroy(o0); hst_array_destroy(o1);
    free(in); free(a); free(b);
}

#define NAMES(word) assert_non_null(strstr(LOG(state)->last_message, (word)))

/* A block of output columns that reads more input columns than the twin keeps column sums of
   (magnification 0.1 over 3000 columns): its tap-by-tap path, against the device's bits. */
static void test_magnify_wide_span(void **state)
{
    hst_backend *be = BE(state);
    hst_shift_magnify_desc d = {0.25f, -1.5f, 1.0f, 0.1f};
    enum { WR = 5, WC = 3000 };
    float *in = (float *)xmalloc(WR * WC * sizeof(float)), *got, *want;
    uint32_t rm, cm;
    hst_array *src, *dst;
    fill_random(in, WR * WC, 11u);
    assert_int_equal(hst_shift_magnify_shape(WR, WC, &d, &rm, &cm), HST_SUCCESS);
    src = upload(be, in, 1, WR, WC);
    dst = upload(be, NULL, 1, rm, cm);
    assert_int_equal(hst_shift_magnify(dst, src, &d), HST_SUCCESS);
    got = download(dst);
    want = (float *)xmalloc((size_t)rm * cm * sizeof(float));
    hst_k_esrrf_magnify_host(in, want, WR, WC, rm, cm, 1.0f, 0.1f, 0.25f, -1.5f, 1, 0, 0, 1, 1);
    assert_bits(got, want, (size_t)rm * cm);
    hst_array_destroy(src); hst_array_destroy(dst);
    free(in); free(got); free(want);
}

/* hst_drift_correct: each frame the twin's shift by minus its drift, in place, bit for bit; a
   NaN drift named, an interrupted backend, and neither touching the frames. */
static void test_drift_correct(void **state)
{
    hst_backend *be = BE(state);
    static const double drift[2 * NF] = {0.0, 0.0, 0.37, -1.25, -2.5, 3.125};
    double nan_drift[2 * NF];
    float *in = (float *)xmalloc(NF * R * C * sizeof(float)), *got = (float *)xmalloc(NF * R * C * sizeof(float));
    float *want = (float *)xmalloc(NF * R * C * sizeof(float));
    size_t f;
    fill_random(in, NF * R * C, 9u);
    for (f = 0; f < NF; f++)
        hst_k_esrrf_magnify_host(in + f * R * C, want + f * R * C, R, C, R, C, 1.0f, 1.0f, (float)-drift[2 * f],
                                 (float)-drift[2 * f + 1], 1, 0, 0, 1, 1);
    memcpy(got, in, NF * R * C * sizeof(float));
    assert_int_equal(hst_drift_correct(be, got, NF, R, C, drift), HST_SUCCESS);
    assert_bits(got, want, NF * R * C);
    memcpy(nan_drift, drift, sizeof drift);
    nan_drift[3] = NAN;
    memcpy(got, in, NF * R * C * sizeof(float));
    assert_int_equal(hst_drift_correct(be, got, NF, R, C, nan_drift), HST_ERROR_INVALID_ARGUMENT);
    NAMES("drift[3]");
    assert_int_equal(hst_drift_correct(be, got, 0, R, C, drift), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_drift_correct(be, NULL, NF, R, C, drift), HST_ERROR_INVALID_ARGUMENT);
    NAMES("frames");
    hst_backend_interrupt(be);
    assert_int_equal(hst_drift_correct(be, got, NF, R, C, drift), HST_ERROR_CANCELLED);
    hst_backend_interrupt_clear(be);
    assert_bits(got, in, NF * R * C);
    free(in); free(got); free(want);
}

static void test_roberts_twin(void **state)
{
    hst_backend *be = BE(state);
    float *in = (float *)xmalloc(NF * R * C * sizeof(float)), *gc, *gr;
    float *wc = (float *)xmalloc(NF * R * C * sizeof(float)), *wr = (float *)xmalloc(NF * R * C * sizeof(float));
    hst_array *src, *agc, *agr;
    size_t z, r, c;
    fill_random(in, NF * R * C, 3u);
    src = upload(be, in, NF, R, C);
    agc = upload(be, NULL, NF, R, C);
    agr = upload(be, NULL, NF, R, C);
    assert_int_equal(hst_roberts_cross(agc, agr, src), HST_SUCCESS);
    gc = download(agc);
    gr = download(agr);
    hst_k_esrrf_roberts_host(in, wc, wr, R, C, 1, 0, 0, 0, NF, NF);
    assert_bits(gc, wc, NF * R * C);
    assert_bits(gr, wr, NF * R * C);
    for (z = 0; z < NF; z++)   /* NanoPyx's formula, in its order */
        for (r = 0; r < R; r++)
            for (c = 0; c < C; c++) {
                const float *I = in + z * R * C;
                size_t r0 = r ? r - 1 : 0, c0 = c ? c - 1 : 0;
                float a = I[r0 * C + c], b = I[r * C + c0], cc = I[r0 * C + c0], d = I[r * C + c];
                float x = a - b, y = b - a;
                x = x + d; y = y + d;
                assert_true(gc[(z * R + r) * C + c] == x - cc);
                assert_true(gr[(z * R + r) * C + c] == y - cc);
            }
    hst_array_destroy(src); hst_array_destroy(agc); hst_array_destroy(agr);
    free(in); free(gc); free(gr); free(wc); free(wr);
}

static void test_rgc_twin(void **state)
{
    hst_backend *be = BE(state);
    const unsigned mag = 2;
    const size_t rm = R * mag, cm = C * mag, n2 = NF * 4 * rm * cm, n = NF * rm * cm;
    float *gc = (float *)xmalloc(n2 * sizeof(float)), *gr = (float *)xmalloc(n2 * sizeof(float));
    float *g2 = (float *)xmalloc(2 * n2 * sizeof(float)), *im = (float *)xmalloc(n * sizeof(float));
    float *want = (float *)xmalloc(n * sizeof(float)), *want2 = (float *)xmalloc(n * sizeof(float)), *got;
    hst_radial_gradient_convergence_desc d;
    hst_array *agc, *agr, *aim, *out;
    size_t i;
    int iw;
    fill_random(gc, n2, 11u);
    fill_random(gr, n2, 12u);
    fill_random(im, n, 13u);
    for (i = 0; i < n2; i++) { gc[i] -= 50.0f; gr[i] -= 50.0f; g2[2 * i] = gc[i]; g2[2 * i + 1] = gr[i]; }
    agc = upload(be, gc, NF, 2 * rm, 2 * cm);
    agr = upload(be, gr, NF, 2 * rm, 2 * cm);
    aim = upload(be, im, NF, rm, cm);
    out = upload(be, NULL, NF, rm, cm);
    for (iw = 0; iw < 2; iw++) {
        memset(&d, 0, sizeof d);
        d.magnification = mag; d.radius = iw ? 1.5f : 2.0f; d.sensitivity = iw ? 1.0f : 2.0f;
        d.no_intensity_weighting = !iw;
        assert_int_equal(hst_radial_gradient_convergence(out, agc, agr, aim, &d), HST_SUCCESS);
        got = download(out);
        hst_k_esrrf_rgc_host(gc, gr, im, want, R, C, mag, d.radius, d.sensitivity, iw, 1, 0, 0, 0, NF, NF);
        hst_k_esrrf_rgc_host(g2, g2, im, want2, R, C, mag, d.radius, d.sensitivity, iw, 2, 1, 0, 0, NF, NF);
        assert_bits(got, want, n);
        assert_bits(want2, want, n);   /* two arrays == one interleaved array (the chained path's) */
        free(got);
    }
    hst_array_destroy(agc); hst_array_destroy(agr); hst_array_destroy(aim); hst_array_destroy(out);
    free(gc); free(gr); free(g2); free(im); free(want); free(want2);
}

/* Items [i0, i1) of the frames of a stage kernel's launch (dimension 0 at an offset), as the
   host device's threads split one frame's rows. */
static void launch_items(hst_backend *be, unsigned id, const hst_karg *a, size_t na, size_t i0, size_t i1,
                         size_t frames)
{
    hst_launch_desc l;
    memset(&l, 0, sizeof l);
    l.family = hst_kernels_esrrf_family();
    l.kernel = id;
    l.args = a;
    l.num_args = na;
    l.range.dims = 2;
    l.range.offset[0] = i0;
    l.range.global[0] = i1 - i0;
    l.range.global[1] = frames;
    assert_int_equal(hst_launch_kernel(be, &l, NULL), HST_SUCCESS);
}

/* One frame (the host device splits its rows among threads) and the RGC kernel over parts of a
   frame's pixels (cut inside rows, inside one row, across whole rows): the twin's bits, which
   no split changes (whole rows go by the twin's blocks, part rows pixel by pixel). */
static void rgc_split_case(hst_backend *be, uint32_t rows, uint32_t cols, unsigned mag, float radius)
{
    const size_t rm = rows * mag, cm = cols * mag, n = rm * cm, n2 = 4 * n;
    const size_t cuts[][2] = {{0, 5}, {5, 3 * cm + 7}, {3 * cm + 7, 3 * cm + 20}, {3 * cm + 20, n - cm - 1},
                              {n - cm - 1, n}};
    float *gc = (float *)xmalloc(n2 * sizeof(float)), *gr = (float *)xmalloc(n2 * sizeof(float));
    float *im = (float *)xmalloc(n * sizeof(float)), *want = (float *)xmalloc(n * sizeof(float)), *got;
    size_t s2[2], s1[2], i, k;
    hst_radial_gradient_convergence_desc d;
    hst_array *agc = NULL, *agr = NULL, *aim = NULL, *out = NULL;
    hst_karg a[17];
    fill_random(gc, n2, 21u);
    fill_random(gr, n2, 22u);
    fill_random(im, n, 23u);
    for (i = 0; i < n2; i++) { gc[i] -= 50.0f; gr[i] -= 50.0f; }
    s2[0] = 2 * rm; s2[1] = 2 * cm; s1[0] = rm; s1[1] = cm;
    assert_int_equal(hst_array_create(be, HST_F32, 2, s2, &agc), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s2, &agr), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s1, &aim), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s1, &out), HST_SUCCESS);
    assert_int_equal(hst_array_write(agc, gc, hst_array_bytes(agc)), HST_SUCCESS);
    assert_int_equal(hst_array_write(agr, gr, hst_array_bytes(agr)), HST_SUCCESS);
    assert_int_equal(hst_array_write(aim, im, hst_array_bytes(aim)), HST_SUCCESS);
    memset(&d, 0, sizeof d);
    d.magnification = mag; d.radius = radius; d.sensitivity = 1.0f;
    hst_k_esrrf_rgc_host(gc, gr, im, want, rows, cols, mag, d.radius, d.sensitivity, 1, 1, 0, 0, 0, 1, 1);
    assert_int_equal(hst_radial_gradient_convergence(out, agc, agr, aim, &d), HST_SUCCESS);
    got = download(out);
    assert_bits(got, want, n);
    free(got);
    /* rgc(grad_col, grad_row, magnified; rgc | rows, cols, mag, radius, sensitivity, weighting,
           gstep 1, groff 0 | base, begin, end, total, flags) */
    a[0] = hst_karg_buffer(hst_array_buffer(agc)); a[1] = hst_karg_buffer(hst_array_buffer(agr));
    a[2] = hst_karg_buffer(hst_array_buffer(aim)); a[3] = hst_karg_buffer(hst_array_buffer(out));
    a[4] = hst_karg_uint(rows); a[5] = hst_karg_uint(cols); a[6] = hst_karg_uint(mag);
    a[7] = hst_karg_float(d.radius); a[8] = hst_karg_float(d.sensitivity); a[9] = hst_karg_int(1);
    a[10] = hst_karg_uint(1); a[11] = hst_karg_uint(0);
    a[12] = hst_karg_ulong(0); a[13] = hst_karg_ulong(0); a[14] = hst_karg_ulong(1); a[15] = hst_karg_ulong(1);
    a[16] = hst_karg_int(0);
    assert_int_equal(hst_array_write(out, im, hst_array_bytes(out)), HST_SUCCESS);   /* not the result */
    launch_items(be, HST_KESRRF_RGC, a, 17, cuts[1][0], cuts[1][1], 1);
    got = download(out);
    for (i = 0; i < n; i++)   /* the part's pixels, and on the host device (whose range is not
                                 rounded up to a work-group) nothing else */
        if (i >= cuts[1][0] && i < cuts[1][1]) assert_bits(got + i, want + i, 1);
        else if (hst_backend_is_host(be)) assert_bits(got + i, im + i, 1);
    free(got);
    for (k = sizeof cuts / sizeof cuts[0]; k-- > 0;) launch_items(be, HST_KESRRF_RGC, a, 17, cuts[k][0], cuts[k][1], 1);
    got = download(out);
    assert_bits(got, want, n);
    free(got);
    hst_array_destroy(agc); hst_array_destroy(agr); hst_array_destroy(aim); hst_array_destroy(out);
    free(gc); free(gr); free(im); free(want);
}

/* The twin's three ways: the table and tile (mag 1 and 3, radius 1.5), no table (mag 8, radius 2:
   64 x 81 weights), a sample window larger than the tile (radius 11: per sample) */
/* The chained kernel's work-group: a row of its pixels' tile within HST_K_ESRRF_CHAINED_TILE,
   the device's limit kept */
static void test_rgc_local(void **state)
{
    (void)state;
    assert_int_equal(hst_k_esrrf_rgc_local(1, 1.5f, 1024), 32);    /* 7 x 75 positions */
    assert_int_equal(hst_k_esrrf_rgc_local(3, 1.5f, 1024), 64);    /* 7 x 53; 128: 7 x 95 */
    assert_int_equal(hst_k_esrrf_rgc_local(5, 1.5f, 1024), 128);   /* 7 x 61; 256: 7 x 113 */
    assert_int_equal(hst_k_esrrf_rgc_local(5, 2.0f, 1024), 128);   /* 9 x 63 */
    assert_int_equal(hst_k_esrrf_rgc_local(5, 1.5f, 100), 64);
    assert_int_equal(hst_k_esrrf_rgc_local(1, 11.0f, 1024), 16);   /* no tile fits: per sample */
}

static void test_rgc_split(void **state)
{
    rgc_split_case(BE(state), R, C, 1, 1.5f);   /* the device's work-groups of 64: part rows */
    rgc_split_case(BE(state), R, C, 3, 1.5f);
    rgc_split_case(BE(state), 8, 300, 3, 1.5f);   /* rows wider than a tile: groups across rows */
    rgc_split_case(BE(state), R, C, 8, 2.0f);
    rgc_split_case(BE(state), 30, 30, 2, 11.0f);
}

/* Shift-and-magnify and Roberts cross of one frame: their twins' bits (the magnified frame's
   81396 pixels are enough for the host device to split its rows among two threads or more). */
static void test_one_frame_split(void **state)
{
    hst_backend *be = BE(state);
    const hst_shift_magnify_desc sm = {0.3f, -0.7f, 20.5f, 18.0f};
    size_t s[2] = {R, C}, sM[2] = {266, 306};   /* floor(13 x 20.5), 17 x 18 */
    float f[R * C], *want = (float *)xmalloc(sM[0] * sM[1] * sizeof(float)), *want2, *got;
    hst_array *af = NULL, *am = NULL, *ag = NULL, *ag2 = NULL;
    want2 = want + (size_t)R * C;
    fill_random(f, (size_t)R * C, 31u);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s, &af), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, sM, &am), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s, &ag), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 2, s, &ag2), HST_SUCCESS);
    assert_int_equal(hst_array_write(af, f, sizeof f), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(am, af, &sm), HST_SUCCESS);
    hst_k_esrrf_magnify_host(f, want, R, C, (uint32_t)sM[0], (uint32_t)sM[1], 20.5f, 18.0f, 0.3f, -0.7f, 1, 0, 0,
                             1, 1);
    got = download(am);
    assert_bits(got, want, sM[0] * sM[1]);
    free(got);
    assert_int_equal(hst_roberts_cross(ag, ag2, af), HST_SUCCESS);
    hst_k_esrrf_roberts_host(f, want, want2, R, C, 1, 0, 0, 0, 1, 1);
    got = download(ag);
    assert_bits(got, want, (size_t)R * C);
    free(got);
    got = download(ag2);
    assert_bits(got, want2, (size_t)R * C);
    free(got);
    hst_array_destroy(af); hst_array_destroy(am); hst_array_destroy(ag); hst_array_destroy(ag2);
    free(want);
}

/* Shift 0 and magnification M (and 2M on each gradient): the pipeline's magnify stages' bits
   (one channel of grad is channel k of the twin's interleaved magnification). */
static void test_magnify_is_pipeline_stage(void **state)
{
    hst_backend *be = BE(state);
    const unsigned mag = 3;
    hst_shift_magnify_desc d2 = {0.0f, 0.0f, 6.0f, 6.0f};
    const size_t n = NF * R * C, n2 = n * 36;
    float *in = (float *)xmalloc(n * sizeof(float)), *g = (float *)xmalloc(2 * n * sizeof(float));
    float *want = (float *)xmalloc(2 * n2 * sizeof(float)), *gc, *gr;
    hst_array *src, *agc, *agr, *mc, *mr;
    size_t i;
    fill_spots(in, NF, R, C);
    hst_k_esrrf_roberts_host(in, g, g, R, C, 2, 1, 0, 0, NF, NF);
    hst_k_esrrf_magnify_host(g, want, R, C, R * 2 * mag, C * 2 * mag, 6.0f, 6.0f, 0.0f, 0.0f, 2, 0, 0, NF, NF);
    src = upload(be, in, NF, R, C);
    agc = upload(be, NULL, NF, R, C);
    agr = upload(be, NULL, NF, R, C);
    mc = upload(be, NULL, NF, R * 6, C * 6);
    mr = upload(be, NULL, NF, R * 6, C * 6);
    assert_int_equal(hst_roberts_cross(agc, agr, src), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(mc, agc, &d2), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(mr, agr, &d2), HST_SUCCESS);
    gc = download(mc);
    gr = download(mr);
    for (i = 0; i < n2; i++) {
        assert_true(memcmp(&gc[i], &want[2 * i], 4) == 0);
        assert_true(memcmp(&gr[i], &want[2 * i + 1], 4) == 0);
    }
    hst_array_destroy(src); hst_array_destroy(agc); hst_array_destroy(agr); hst_array_destroy(mc);
    hst_array_destroy(mr);
    free(in); free(g); free(want); free(gc); free(gr);
}

/* ---- the tutorial's chain == eSRRF's per-frame image ------------------------------------------ */
#define EN 4
#define ER 12
#define EC 14
#define EMAG 3

/* NanoPyx's tutorial on device arrays: magnified, gradients, their 2M magnification, RGC. */
static float *hand_chain(hst_backend *be, const float *frames, float radius, float sens, int iw)
{
    hst_shift_magnify_desc m1 = {0.0f, 0.0f, EMAG, EMAG}, m2 = {0.0f, 0.0f, 2 * EMAG, 2 * EMAG};
    hst_radial_gradient_convergence_desc rd;
    hst_array *img = upload(be, frames, EN, ER, EC), *mag = upload(be, NULL, EN, ER * EMAG, EC * EMAG);
    hst_array *gc = upload(be, NULL, EN, ER, EC), *gr = upload(be, NULL, EN, ER, EC);
    hst_array *gci = upload(be, NULL, EN, 2 * ER * EMAG, 2 * EC * EMAG);
    hst_array *gri = upload(be, NULL, EN, 2 * ER * EMAG, 2 * EC * EMAG);
    hst_array *rgc = upload(be, NULL, EN, ER * EMAG, EC * EMAG);
    float *out;
    memset(&rd, 0, sizeof rd);
    rd.magnification = EMAG; rd.radius = radius; rd.sensitivity = sens; rd.no_intensity_weighting = !iw;
    assert_int_equal(hst_shift_magnify(mag, img, &m1), HST_SUCCESS);
    assert_int_equal(hst_roberts_cross(gc, gr, img), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(gci, gc, &m2), HST_SUCCESS);
    assert_int_equal(hst_shift_magnify(gri, gr, &m2), HST_SUCCESS);
    assert_int_equal(hst_radial_gradient_convergence(rgc, gci, gri, mag, &rd), HST_SUCCESS);
    out = download(rgc);
    hst_array_destroy(img); hst_array_destroy(mag); hst_array_destroy(gc); hst_array_destroy(gr);
    hst_array_destroy(gci); hst_array_destroy(gri); hst_array_destroy(rgc);
    return out;
}

static float *esrrf_per_frame(hst_backend *be, const float *frames, float radius, float sens, int iw,
                              hst_esrrf_path path)
{
    hst_esrrf_desc d;
    float *out = (float *)xmalloc((size_t)EN * ER * EMAG * EC * EMAG * sizeof(float));
    float *outs[HST_ESRRF_NUM_MODES] = {0};
    memset(&d, 0, sizeof d);
    d.magnification = EMAG; d.radius = radius; d.sensitivity = sens; d.no_intensity_weighting = !iw;
    d.no_macro_pixel_correction = 1; d.frames_per_timepoint = 1; d.modes = HST_ESRRF_AVG; d.path = path;
    d.backends = &be; d.num_backends = 1;
    outs[0] = out;
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, EN, ER, EC, outs, NULL), HST_SUCCESS);
    return out;
}

static void test_chain_equals_esrrf(void **state)
{
    hst_backend *be = BE(state);
    float frames[EN * ER * EC];
    const size_t n = (size_t)EN * ER * EMAG * EC * EMAG;
    int v;
    fill_spots(frames, EN, ER, EC);
    for (v = 0; v < 2; v++) {
        float radius = v ? 2.0f : 1.5f, sens = v ? 2.0f : 1.0f;
        int iw = !v;
        float *hand = hand_chain(be, frames, radius, sens, iw), *e;
        double top = 0.0;
        size_t i;
        hst_esrrf_path p;
        for (i = 0; i < n; i++) top = hand[i] > top ? hand[i] : top;
        assert_true(top > 0.0);   /* a real image, not all zero */
        for (p = HST_ESRRF_PATH_AUTO; p <= HST_ESRRF_PATH_CHAINED; p = (hst_esrrf_path)(p + 1)) {
            e = esrrf_per_frame(be, frames, radius, sens, iw, p);
            assert_same(hand, e, n);
            free(e);
        }
        free(hand);
    }
}

/* hst_esrrf_run's per-frame stack (frames_per_timepoint 1, correction off): one AVG image per
   frame, each the fused twin's RGC image of that frame. */
static void test_per_frame_stack(void **state)
{
    hst_backend *be = BE(state);
    float frames[EN * ER * EC];
    const size_t fm = (size_t)ER * EMAG * EC * EMAG;
    float *want = (float *)xmalloc(EN * fm * sizeof(float)), *got;
    hst_esrrf_desc d;
    uint64_t tps;
    uint32_t rm, cm;
    fill_spots(frames, EN, ER, EC);
    memset(&d, 0, sizeof d);
    d.magnification = EMAG; d.frames_per_timepoint = 1; d.no_macro_pixel_correction = 1;
    d.backends = &be; d.num_backends = 1;
    assert_int_equal(hst_esrrf_output_shape(&d, EN, ER, EC, &tps, &rm, &cm), HST_SUCCESS);
    assert_int_equal(tps, EN);
    assert_int_equal(rm, ER * EMAG);
    assert_int_equal(cm, EC * EMAG);
    got = esrrf_per_frame(be, frames, 1.5f, 1.0f, 1, HST_ESRRF_PATH_AUTO);
    hst_k_esrrf_rgc_fused_host(frames, want, ER, EC, EMAG, 1.5f, 1.0f, 1, 0, 0, EN, EN);
    assert_same(got, want, EN * fm);
    assert_true(memcmp(got, got + fm, fm * sizeof(float)) != 0);   /* the frames differ */
    free(want); free(got);
}

/* ---- bad input ---------------------------------------------------------------------------- */
#define REJECT(call, code, item) do { cap_reset(LOG(state)); assert_int_equal((call), (code)); \
                                      assert_int_equal(LOG(state)->last_item, (item)); } while (0)

static void test_bad_input(void **state)
{
    hst_backend *be = BE(state), *other = NULL;
    hst_backend_desc hd;
    hst_shift_magnify_desc d = {0.0f, 0.0f, 2.0f, 2.0f}, bad;
    hst_radial_gradient_convergence_desc rd, rbad;
    size_t s1[1] = {R}, s4[4] = {1, 1, R, C}, s2[2] = {R, C};
    hst_array *src = upload(be, NULL, NF, R, C), *dst = upload(be, NULL, NF, 2 * R, 2 * C);
    hst_array *wrong = upload(be, NULL, NF, 2 * R + 1, 2 * C), *two = NULL, *one = NULL, *four = NULL, *ints = NULL;
    hst_array *gc = upload(be, NULL, NF, R, C), *gr = upload(be, NULL, NF, R, C), *far = NULL;
    hst_array *im = upload(be, NULL, NF, 2 * R, 2 * C), *g2 = upload(be, NULL, NF, 4 * R, 4 * C);
    hst_array *g2b = upload(be, NULL, NF, 4 * R, 4 * C), *im_odd = upload(be, NULL, NF, 2 * R + 1, 2 * C);
    uint32_t rm, cm;
    assert_int_equal(hst_array_create(be, HST_F32, 2, s2, &two), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 1, s1, &one), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 4, s4, &four), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_I32, 3, hst_array_shape(src), &ints), HST_SUCCESS);
    memset(&hd, 0, sizeof hd);
    hd.device = "host";
    assert_int_equal(hst_backend_create(&hd, &other), HST_SUCCESS);
    far = upload(other, NULL, NF, 2 * R, 2 * C);

    /* shift-and-magnify */
    REJECT(hst_shift_magnify(dst, src, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    REJECT(hst_shift_magnify(NULL, src, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT); NAMES("dst");
    REJECT(hst_shift_magnify(dst, NULL, &d), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT); NAMES("src");
    bad = d; bad.magnification_row = 0.0f;
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE); NAMES("magnification_row");
    bad = d; bad.magnification_col = 64.5f;
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE); NAMES("magnification_col");
    bad = d; bad.magnification_col = NAN;
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE); NAMES("magnification_col");
    bad = d; bad.shift_row = NAN;
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE); NAMES("shift_row");
    bad = d; bad.shift_col = INFINITY;
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE); NAMES("shift_col");
    bad = d; bad.magnification_row = 0.01f;   /* 13 rows x 0.01: no output row */
    REJECT(hst_shift_magnify(dst, src, &bad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE);
    REJECT(hst_shift_magnify(wrong, src, &d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("dst");
    REJECT(hst_shift_magnify(two, src, &d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("dst");
    REJECT(hst_shift_magnify(dst, one, &d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("src");
    REJECT(hst_shift_magnify(dst, four, &d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("src");
    REJECT(hst_shift_magnify(dst, ints, &d), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE); NAMES("src");
    REJECT(hst_shift_magnify(far, src, &d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("another backend");
    assert_int_equal(hst_shift_magnify_shape(R, C, &d, NULL, &cm), HST_ERROR_INVALID_ARGUMENT);   /* stderr's log */
    bad = d; bad.magnification_row = -1.0f;
    assert_int_equal(hst_shift_magnify_shape(R, C, &bad, &rm, &cm), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_shift_magnify_shape(0, C, &d, &rm, &cm), HST_ERROR_INVALID_ARGUMENT);

    /* Roberts cross */
    REJECT(hst_roberts_cross(gc, gr, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT); NAMES("src");
    REJECT(hst_roberts_cross(NULL, gr, src), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT); NAMES("gradient_col");
    REJECT(hst_roberts_cross(gc, dst, src), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH); NAMES("gradient_row");
    REJECT(hst_roberts_cross(gc, gc, src), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    REJECT(hst_roberts_cross(gc, gr, ints), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE);

    /* RGC (magnification 2: image 2R x 2C, gradients 4R x 4C) */
    memset(&rd, 0, sizeof rd);
    rd.magnification = 2;
    assert_int_equal(hst_radial_gradient_convergence(dst, g2, g2b, im, &rd), HST_SUCCESS);
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    rbad = rd; rbad.magnification = HST_ESRRF_MAX_MAG + 1;
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, &rbad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    NAMES("magnification");
    rbad = rd; rbad.radius = NAN;
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, &rbad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    NAMES("radius");
    rbad = rd; rbad.radius = -1.0f;
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, &rbad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    rbad = rd; rbad.sensitivity = NAN;
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, &rbad), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    NAMES("sensitivity");
    rbad = rd; rbad.magnification = 3;   /* 2R x 2C is not a frame magnified by 3 */
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im, &rbad), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    NAMES("image_interp");
    REJECT(hst_radial_gradient_convergence(dst, src, g2b, im, &rd), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    NAMES("gradient_col_interp");
    REJECT(hst_radial_gradient_convergence(dst, g2, src, im, &rd), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    NAMES("gradient_row_interp");
    REJECT(hst_radial_gradient_convergence(src, g2, g2b, im, &rd), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);
    NAMES("dst");
    REJECT(hst_radial_gradient_convergence(im, g2, g2b, im, &rd), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    REJECT(hst_radial_gradient_convergence(dst, g2, g2b, im_odd, &rd), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH);

    hst_array_destroy(src); hst_array_destroy(dst); hst_array_destroy(wrong); hst_array_destroy(two);
    hst_array_destroy(one); hst_array_destroy(four); hst_array_destroy(ints); hst_array_destroy(gc);
    hst_array_destroy(gr); hst_array_destroy(im); hst_array_destroy(g2); hst_array_destroy(g2b);
    hst_array_destroy(im_odd); hst_array_destroy(far);
    assert_int_equal(hst_backend_destroy(other), HST_SUCCESS);
}

/* ---- the engine ------------------------------------------------------------------------- */
/* An engine on the host device and the device under test (a second host backend when that is
   the host device), timings in memory only, the given clock (NULL: the real one). */
typedef struct eng { hst_backend *b[2]; hst_liquid *lq; } eng;

static void eng_open(void **state, eng *e, int testing, hst_choice_clock_fn clk, void *clk_user)
{
    hst_backend_desc hd = cap_desc(LOG(state));
    hst_liquid_desc ld;
    hst_choice_desc cd;
    memset(&ld, 0, sizeof ld);
    memset(&cd, 0, sizeof cd);
    hd.device = "host";
    assert_int_equal(hst_backend_create(&hd, &e->b[0]), HST_SUCCESS);
    e->b[1] = BE(state);
    cd.path = "off";
    cd.clock = clk;
    cd.clock_user = clk_user;
    ld.backends = e->b; ld.num_backends = 2;
    ld.choice = &cd;
    ld.testing = testing;
    ld.verbose = 1;
    assert_int_equal(hst_liquid_create(&ld, &e->lq), HST_SUCCESS);
}

static void eng_close(eng *e)
{
    assert_int_equal(hst_liquid_destroy(e->lq), HST_SUCCESS);
    assert_int_equal(hst_backend_destroy(e->b[0]), HST_SUCCESS);
}

/* Every device present, by default: one implementation each, named and tagged. */
static void test_engine_default_devices(void **state)
{
    hst_liquid_desc ld;
    hst_choice_desc cd;
    hst_liquid *lq = NULL;
    hst_device_info infos[16];
    size_t count = 0, i;
    unsigned k, hosts = 0;
    (void)state;
    memset(&ld, 0, sizeof ld);
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    ld.choice = &cd;
    assert_int_equal(hst_devices(infos, 16, &count), HST_SUCCESS);
    assert_int_equal(hst_liquid_create(&ld, &lq), HST_SUCCESS);
    assert_int_equal(hst_liquid_num_backends(lq), (unsigned)count);
    for (k = 0; k < hst_liquid_num_backends(lq); k++) {
        const hst_device_info *info = hst_backend_device(hst_liquid_backend(lq, k));
        const char *tags = hst_liquid_impl_tags(lq, k);
        assert_string_equal(info->selector, infos[k].selector);
        if (info->type == HST_DEVICE_HOST) {
            hosts++;
            assert_string_equal(hst_liquid_impl_name(lq, k), "host");
            assert_string_equal(tags, "host threaded cpu");
        } else {
            assert_non_null(strstr(hst_liquid_impl_name(lq, k), info->name));
            assert_string_equal(tags, info->type == HST_DEVICE_GPU ? "opencl gpu" : info->type == HST_DEVICE_CPU
                                ? "opencl cpu" : "opencl");
        }
    }
    assert_int_equal(hosts, 1);
    assert_null(hst_liquid_backend(lq, (unsigned)count));
    for (i = 0; i < HST_LIQUID_NUM_METHODS; i++) assert_non_null(hst_liquid_op(lq, (hst_liquid_method)i));
    assert_null(hst_liquid_op(lq, HST_LIQUID_NUM_METHODS));
    assert_int_equal(hst_liquid_destroy(lq), HST_SUCCESS);
}

/* Each method on host memory, forced on each implementation: the device calls' bits (the
   host device's run of the same call). */
static void test_engine_methods(void **state)
{
    eng e;
    hst_shift_magnify_desc sd = {0.4f, -0.3f, 2.0f, 2.0f};   /* 2R x 2C: RGC's gradients at mag 1 */
    hst_liquid_shift_magnify_args sa;
    hst_liquid_roberts_cross_args ra;
    hst_liquid_radial_gradient_convergence_args ga;
    hst_choice_outcome oc;
    uint32_t rm, cm;
    float *in = (float *)xmalloc(NF * R * C * sizeof(float)), *ref[4], *got[4];
    const size_t n2 = (size_t)NF * 4 * R * C * 4;
    unsigned k, j;
    eng_open(state, &e, 0, NULL, NULL);
    fill_spots(in, NF, R, C);
    assert_int_equal(hst_shift_magnify_shape(R, C, &sd, &rm, &cm), HST_SUCCESS);
    for (j = 0; j < 4; j++) {
        ref[j] = (float *)xmalloc(n2 * sizeof(float));
        got[j] = (float *)xmalloc(n2 * sizeof(float));
    }
    for (k = 0; k < 2; k++) {
        float **o = k ? got : ref;
        const char *name = hst_liquid_impl_name(e.lq, k);
        memset(&sa, 0, sizeof sa);
        sa.image = in; sa.frames = NF; sa.rows = R; sa.cols = C; sa.desc = sd; sa.out = o[0];
        assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, name, &oc), HST_SUCCESS);
        assert_string_equal(oc.name, name);
        assert_true(oc.forced);
        memset(&ra, 0, sizeof ra);
        ra.image = in; ra.frames = NF; ra.rows = R; ra.cols = C; ra.gradient_col = o[1]; ra.gradient_row = o[2];
        assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, name, &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, k);
        memset(&ga, 0, sizeof ga);   /* RGC at magnification 1: the gradients are 2R x 2C */
        ga.gradient_col_interp = o[0]; ga.gradient_row_interp = o[0]; ga.image_interp = in;
        ga.frames = NF; ga.rows_mag = R; ga.cols_mag = C; ga.desc.magnification = 1; ga.out = o[3];
        assert_int_equal(hst_liquid_radial_gradient_convergence(e.lq, &ga, name, &oc), HST_SUCCESS);
        assert_string_equal(oc.name, name);
    }
    assert_bits(got[0], ref[0], (size_t)NF * rm * cm);
    assert_bits(got[1], ref[1], (size_t)NF * R * C);
    assert_bits(got[2], ref[2], (size_t)NF * R * C);
    assert_bits(got[3], ref[3], (size_t)NF * R * C);
    /* the engine's host run is the device call's */
    {
        hst_array *src = upload(e.b[0], in, NF, R, C), *dst = upload(e.b[0], NULL, NF, rm, cm);
        float *dev;
        assert_int_equal(hst_shift_magnify(dst, src, &sd), HST_SUCCESS);
        dev = download(dst);
        assert_bits(ref[0], dev, (size_t)NF * rm * cm);
        free(dev);
        hst_array_destroy(src); hst_array_destroy(dst);
    }
    for (j = 0; j < 4; j++) { free(ref[j]); free(got[j]); }
    free(in);
    eng_close(&e);
}

/* Forcing: a name, a tag, none matching; the verbose line. */
static void test_engine_forcing(void **state)
{
    eng e;
    hst_liquid_roberts_cross_args ra;
    hst_choice_outcome oc;
    float in[R * C], gc[R * C], gr[R * C];
    int dev_host;
    eng_open(state, &e, 0, NULL, NULL);
    dev_host = hst_backend_is_host(e.b[1]);
    fill_random(in, R * C, 21u);
    memset(&ra, 0, sizeof ra);
    ra.image = in; ra.frames = 1; ra.rows = R; ra.cols = C; ra.gradient_col = gc; ra.gradient_row = gr;
    assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, "@threaded", &oc), HST_SUCCESS);
    assert_true(oc.forced);
    assert_non_null(strstr(hst_liquid_impl_tags(e.lq, oc.impl), "threaded"));
    assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, hst_liquid_impl_name(e.lq, 1), &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1);
    if (!dev_host) {
        assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, "@opencl", &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, 1);
    } else {
        assert_string_equal(hst_liquid_impl_name(e.lq, 1), "host #2");
        cap_reset(LOG(state));
        assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, "@opencl", &oc), HST_ERROR_INVALID_ARGUMENT);
    }
    cap_reset(LOG(state));
    assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, "no such device", &oc), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, "@tpu", &oc), HST_ERROR_INVALID_ARGUMENT);
    cap_reset(LOG(state));   /* verbose: the run logged at info level with its name */
    assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, NULL, &oc), HST_SUCCESS);
    eng_close(&e);
}

/* The choice follows recorded timings: the faster implementation runs; after clear nothing is
   known and each is measured again. */
static void test_engine_fastest_and_clear(void **state)
{
    eng e;
    hst_liquid_shift_magnify_args sa;
    hst_choice_outcome oc;
    hst_choice_stat st[2];
    hst_shift_magnify_desc sd = {0.0f, 0.0f, 2.0f, 2.0f};
    float in[R * C], *out = (float *)xmalloc(4 * R * C * sizeof(float));
    int64_t sig[4];
    size_t n;
    unsigned k, fast, i;
    eng_open(state, &e, 0, NULL, NULL);
    fill_random(in, R * C, 31u);
    memset(&sa, 0, sizeof sa);
    sa.image = in; sa.frames = 1; sa.rows = R; sa.cols = C; sa.desc = sd; sa.out = out;
    sig[0] = 1; sig[1] = R; sig[2] = C; sig[3] = 4 * R * C;   /* hst_liquid_shift_magnify's */
    for (fast = 0; fast < 2; fast++) {
        assert_int_equal(hst_liquid_clear(e.lq, HST_LIQUID_SHIFT_MAGNIFY), HST_SUCCESS);
        for (i = 0; i < HST_CHOICE_HISTORY; i++)
            for (k = 0; k < 2; k++)
                assert_int_equal(hst_choice_record(hst_liquid_op(e.lq, HST_LIQUID_SHIFT_MAGNIFY), sig, 4,
                                                   hst_liquid_impl_name(e.lq, k), k == fast ? 1e-6 : 1.0), HST_SUCCESS);
        assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, fast);
        assert_false(oc.explored);
    }
    assert_int_equal(hst_liquid_clear(e.lq, HST_LIQUID_NUM_METHODS), HST_SUCCESS);
    assert_int_equal(hst_choice_stats(hst_liquid_op(e.lq, HST_LIQUID_SHIFT_MAGNIFY), sig, 4, st, 2, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    for (k = 0; k < 2; k++) assert_int_equal(st[k].samples, 0);
    assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
    assert_true(oc.explored);   /* nothing known: measured again */
    assert_int_equal(hst_liquid_clear(e.lq, (hst_liquid_method)-1), HST_ERROR_INVALID_ARGUMENT);
    free(out);
    eng_close(&e);
}

/* With the real clock: once every implementation is measured, the one chosen is the one whose
   timings are the lowest. */
static void test_engine_measured_fastest(void **state)
{
    eng e;
    hst_liquid_radial_gradient_convergence_args ga;
    hst_choice_outcome oc;
    hst_choice_stat st[2];
    float *gi = (float *)xmalloc(16 * R * C * sizeof(float)), *im = (float *)xmalloc(4 * R * C * sizeof(float));
    float *out = (float *)xmalloc(4 * R * C * sizeof(float));
    int64_t sig[4];
    size_t n;
    unsigned i, best;
    eng_open(state, &e, 0, NULL, NULL);
    fill_random(gi, 16 * R * C, 41u);
    fill_random(im, 4 * R * C, 42u);
    memset(&ga, 0, sizeof ga);
    ga.gradient_col_interp = gi; ga.gradient_row_interp = gi; ga.image_interp = im; ga.frames = 1;
    ga.rows_mag = 2 * R; ga.cols_mag = 2 * C; ga.desc.magnification = 2; ga.out = out;
    for (i = 0; i < 8; i++) assert_int_equal(hst_liquid_radial_gradient_convergence(e.lq, &ga, NULL, &oc), HST_SUCCESS);
    sig[0] = 1; sig[1] = 2 * R; sig[2] = 2 * C; sig[3] = 7;   /* radius 1.5: samples -3..3 */
    assert_int_equal(hst_choice_stats(hst_liquid_op(e.lq, HST_LIQUID_RADIAL_GRADIENT_CONVERGENCE), sig, 4, st, 2, &n),
                     HST_SUCCESS);
    assert_true(st[0].samples > 0 && st[1].samples > 0);
    best = st[1].seconds < st[0].seconds ? 1u : 0u;
    assert_int_equal(hst_liquid_radial_gradient_convergence(e.lq, &ga, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, best);
    assert_false(oc.explored);
    free(gi); free(im); free(out);
    eng_close(&e);
}

/* Testing mode through choice.h: an operation whose implementations run the engine's call,
   forced on the host device (the reference) or on the device under test, and one that adds
   1% to a pixel of the host's result: excluded (HST_ERROR_MISMATCH) and never the answer. */
typedef struct wrapped { hst_liquid *lq; hst_liquid_shift_magnify_args a; size_t n; } wrapped;
static hst_result w_host(void *args, void *user)
{
    wrapped *w = (wrapped *)args;
    (void)user;
    return hst_liquid_shift_magnify(w->lq, &w->a, hst_liquid_impl_name(w->lq, 0), NULL);
}
static hst_result w_dev(void *args, void *user)
{
    wrapped *w = (wrapped *)args;
    (void)user;
    return hst_liquid_shift_magnify(w->lq, &w->a, hst_liquid_impl_name(w->lq, 1), NULL);
}
static hst_result w_wrong(void *args, void *user)
{
    wrapped *w = (wrapped *)args;
    hst_result r = w_host(args, user);
    w->a.out[w->n / 2] *= 1.01f;
    return r;
}
static hst_result w_output(void *args, double *dst, size_t capacity, size_t *count)
{
    wrapped *w = (wrapped *)args;
    size_t i;
    *count = w->n;
    if (dst) for (i = 0; i < w->n && i < capacity; i++) dst[i] = w->a.out[i];
    return HST_SUCCESS;
}

static void test_engine_testing(void **state)
{
    eng e;
    wrapped w;
    hst_choice_impl impls[3];
    hst_choice_op_desc od;
    hst_choice_op *op = NULL;
    hst_choice_outcome oc;
    hst_choice_stat st[3];
    hst_shift_magnify_desc sd = {0.25f, 0.5f, 3.0f, 3.0f};
    float in[R * C], *out = (float *)xmalloc(9 * R * C * sizeof(float)), *ref = (float *)xmalloc(9 * R * C * sizeof(float));
    int64_t sig[1] = {R * C};
    size_t n;
    unsigned i;
    eng_open(state, &e, 1, NULL, NULL);   /* the engine's own testing mode on too */
    fill_random(in, R * C, 51u);
    memset(&w, 0, sizeof w);
    w.lq = e.lq; w.n = 9 * R * C;
    w.a.image = in; w.a.frames = 1; w.a.rows = R; w.a.cols = C; w.a.desc = sd; w.a.out = out;
    memset(impls, 0, sizeof impls);
    impls[0].name = "engine host"; impls[0].run = w_host; impls[0].reference = 1; impls[0].tags = "cpu";
    impls[1].name = "wrong"; impls[1].run = w_wrong; impls[1].tags = "cpu";
    impls[2].name = "engine device"; impls[2].run = w_dev; impls[2].tags = "device";
    memset(&od, 0, sizeof od);
    od.name = "test_liquid_testing"; od.impls = impls; od.num_impls = 3; od.output = w_output; od.testing = 1;
    od.no_warmup = 1;
    assert_int_equal(hst_choice_register(e.b[0], &od, &op), HST_SUCCESS);
    assert_int_equal(w_host(&w, NULL), HST_SUCCESS);
    memcpy(ref, out, w.n * sizeof(float));
    cap_reset(LOG(state));
    for (i = 0; i < 4; i++) {
        memset(out, 0, w.n * sizeof(float));
        assert_int_equal(hst_choice_run(op, sig, 1, &w, NULL, &oc), HST_SUCCESS);
        assert_int_not_equal(oc.impl, 1);
        assert_bits(out, ref, w.n);   /* never the wrong output */
    }
    assert_true(LOG(state)->counts[HST_LOGITEM_CHOICE_EXCLUDED] >= 1);
    assert_int_equal(hst_choice_stats(op, sig, 1, st, 3, &n), HST_SUCCESS);
    assert_int_equal(st[1].failed, HST_ERROR_MISMATCH);
    assert_int_equal(st[2].failed, HST_SUCCESS);   /* the device agrees with the host */
    assert_int_equal(hst_choice_run(op, sig, 1, &w, "wrong", &oc), HST_ERROR_MISMATCH);
    /* the engine's own ops in testing mode: both of its implementations agree, none excluded */
    {
        hst_liquid_shift_magnify_args sa = w.a;
        hst_choice_stat es[2];
        int64_t esig[4];
        for (i = 0; i < 4; i++) assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
        esig[0] = 1; esig[1] = R; esig[2] = C; esig[3] = 9 * R * C;
        assert_int_equal(hst_choice_stats(hst_liquid_op(e.lq, HST_LIQUID_SHIFT_MAGNIFY), esig, 4, es, 2, &n), HST_SUCCESS);
        assert_int_equal(es[0].failed, HST_SUCCESS);
        assert_int_equal(es[1].failed, HST_SUCCESS);
        assert_true(es[1].samples > 0);
    }
    free(out); free(ref);
    eng_close(&e);
}

/* NanoPyx's benchmark: one row per implementation, the host device's the reference, every
   output equal to it; the table names them. */
static void test_engine_benchmark(void **state)
{
    eng e;
    hst_liquid_roberts_cross_args ra;
    hst_choice_bench_row rows[HST_CHOICE_MAX_IMPLS];
    float in[NF * R * C], gc[NF * R * C], gr[NF * R * C];
    char table[4096];
    size_t n = 0, need;
    unsigned k;
    eng_open(state, &e, 0, NULL, NULL);
    fill_random(in, NF * R * C, 61u);
    memset(&ra, 0, sizeof ra);
    ra.image = in; ra.frames = NF; ra.rows = R; ra.cols = C; ra.gradient_col = gc; ra.gradient_row = gr;
    assert_int_equal(hst_liquid_benchmark(e.lq, HST_LIQUID_ROBERTS_CROSS, &ra, 2, NULL, 0, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(hst_liquid_benchmark(e.lq, HST_LIQUID_ROBERTS_CROSS, &ra, 2, rows, HST_CHOICE_MAX_IMPLS, &n),
                     HST_SUCCESS);
    assert_int_equal(n, 2);
    assert_true(rows[0].reference);
    assert_string_equal(rows[0].impl, "host");
    for (k = 0; k < 2; k++) {
        assert_int_equal(rows[k].result, HST_SUCCESS);
        assert_int_equal(rows[k].runs, 2);
        assert_true(rows[k].max_rel_error == 0.0);
        assert_string_equal(rows[k].impl, hst_liquid_impl_name(e.lq, k));
    }
    need = hst_choice_table(rows, n, table, sizeof table);
    assert_true(need > 1 && need <= sizeof table);
    {   /* a header and a line per implementation, the reference's named */
        unsigned lines = 0;
        const char *p;
        for (p = table; *p; p++) lines += *p == '\n';
        assert_true(lines >= 1 + n);
        assert_non_null(strstr(table, "host"));
    }
    cap_reset(LOG(state));
    assert_int_equal(hst_liquid_benchmark(e.lq, HST_LIQUID_ROBERTS_CROSS, &ra, 2, rows, 1, &n),
                     HST_ERROR_INVALID_ARGUMENT);   /* capacity below the count */
    eng_close(&e);
}

/* eSRRF on host memory, chosen or forced, == hst_esrrf_run on the host device; the tutorial's
   methods chained on host memory == its per-frame image. */
static void test_engine_esrrf(void **state)
{
    eng e;
    hst_liquid_esrrf_args ea;
    hst_choice_outcome oc;
    float frames[EN * ER * EC];
    const size_t fm = (size_t)ER * EMAG * EC * EMAG;
    float *want, *got = (float *)xmalloc(EN * fm * sizeof(float)), *outs[HST_ESRRF_NUM_MODES] = {0};
    unsigned k;
    eng_open(state, &e, 0, NULL, NULL);
    fill_spots(frames, EN, ER, EC);
    want = esrrf_per_frame(e.b[0], frames, 1.5f, 1.0f, 1, HST_ESRRF_PATH_AUTO);
    memset(&ea, 0, sizeof ea);
    ea.desc.magnification = EMAG; ea.desc.frames_per_timepoint = 1; ea.desc.no_macro_pixel_correction = 1;
    ea.stack = frames; ea.dtype = HST_ESRRF_F32; ea.frames = EN; ea.rows = ER; ea.cols = EC;
    outs[0] = got;
    ea.out = outs;
    for (k = 0; k < 3; k++) {
        memset(got, 0, EN * fm * sizeof(float));
        assert_int_equal(hst_liquid_esrrf(e.lq, &ea, k < 2 ? hst_liquid_impl_name(e.lq, k) : NULL, &oc), HST_SUCCESS);
        assert_same(got, want, EN * fm);
    }
    {   /* the methods by hand on host memory, as NanoPyx's tutorial */
        hst_liquid_shift_magnify_args sa;
        hst_liquid_roberts_cross_args ra;
        hst_liquid_radial_gradient_convergence_args ga;
        float *mag = (float *)xmalloc(EN * fm * sizeof(float)), *gc = (float *)xmalloc(sizeof frames);
        float *gr = (float *)xmalloc(sizeof frames), *gci = (float *)xmalloc(4 * EN * fm * sizeof(float));
        float *gri = (float *)xmalloc(4 * EN * fm * sizeof(float)), *rgc = (float *)xmalloc(EN * fm * sizeof(float));
        memset(&sa, 0, sizeof sa);
        sa.image = frames; sa.frames = EN; sa.rows = ER; sa.cols = EC; sa.out = mag;
        sa.desc.magnification_row = sa.desc.magnification_col = EMAG;
        assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
        memset(&ra, 0, sizeof ra);
        ra.image = frames; ra.frames = EN; ra.rows = ER; ra.cols = EC; ra.gradient_col = gc; ra.gradient_row = gr;
        assert_int_equal(hst_liquid_roberts_cross(e.lq, &ra, NULL, &oc), HST_SUCCESS);
        sa.desc.magnification_row = sa.desc.magnification_col = 2 * EMAG;
        sa.image = gc; sa.out = gci;
        assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
        sa.image = gr; sa.out = gri;
        assert_int_equal(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_SUCCESS);
        memset(&ga, 0, sizeof ga);
        ga.gradient_col_interp = gci; ga.gradient_row_interp = gri; ga.image_interp = mag; ga.frames = EN;
        ga.rows_mag = ER * EMAG; ga.cols_mag = EC * EMAG; ga.desc.magnification = EMAG; ga.out = rgc;
        assert_int_equal(hst_liquid_radial_gradient_convergence(e.lq, &ga, NULL, &oc), HST_SUCCESS);
        assert_same(rgc, want, EN * fm);
        free(mag); free(gc); free(gr); free(gci); free(gri); free(rgc);
    }
    frames[5] = NAN;   /* refused before any implementation runs: not their failure */
    cap_reset(LOG(state));
    assert_int_equal(hst_liquid_esrrf(e.lq, &ea, NULL, &oc), HST_ERROR_NON_FINITE);
    frames[5] = 1.0f;
    assert_int_equal(hst_liquid_esrrf(e.lq, &ea, NULL, &oc), HST_SUCCESS);
    free(want); free(got);
    eng_close(&e);
}

static void test_engine_bad_input(void **state)
{
    eng e;
    hst_liquid_desc ld;
    hst_liquid *lq = NULL;
    hst_backend *two[2];
    hst_liquid_shift_magnify_args sa;
    hst_liquid_esrrf_args ea;
    hst_choice_outcome oc;
    float in[R * C], out[4 * R * C], *outs[HST_ESRRF_NUM_MODES] = {0};
    size_t count = 0;
    eng_open(state, &e, 0, NULL, NULL);
    memset(in, 0, sizeof in);
    memset(&ld, 0, sizeof ld);
    assert_int_equal(hst_liquid_create(NULL, &lq), HST_ERROR_INVALID_ARGUMENT);   /* no backend: stderr's log */
    assert_int_equal(hst_liquid_create(&ld, NULL), HST_ERROR_INVALID_ARGUMENT);
    two[0] = two[1] = e.b[0];
    ld.backends = two; ld.num_backends = 2;
    REJECT(hst_liquid_create(&ld, &lq), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT);
    assert_null(lq);
    ld.num_backends = 0;
    assert_int_equal(hst_liquid_create(&ld, &lq), HST_ERROR_INVALID_ARGUMENT);
    ld.num_backends = 1; ld.tolerance = NAN;
    assert_int_equal(hst_liquid_create(&ld, &lq), HST_ERROR_INVALID_ARGUMENT);
    ld.tolerance = 0.0;   /* another engine on backends[0] with other backends */
    REJECT(hst_liquid_create(&ld, &lq), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE);
    memset(&sa, 0, sizeof sa);
    sa.image = in; sa.frames = 1; sa.rows = R; sa.cols = C; sa.out = out;
    sa.desc.magnification_row = 2.0f; sa.desc.magnification_col = 0.0f;
    REJECT(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    NAMES("magnification_col");
    sa.desc.magnification_col = 2.0f; sa.out = NULL;
    REJECT(hst_liquid_shift_magnify(e.lq, &sa, NULL, &oc), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    REJECT(hst_liquid_shift_magnify(e.lq, NULL, NULL, &oc), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_liquid_shift_magnify(NULL, &sa, NULL, &oc), HST_ERROR_INVALID_ARGUMENT);
    memset(&ea, 0, sizeof ea);
    ea.stack = in; ea.dtype = HST_ESRRF_F32; ea.frames = 1; ea.rows = R; ea.cols = C; ea.out = outs;
    ea.desc.magnification = 40;
    REJECT(hst_liquid_esrrf(e.lq, &ea, NULL, &oc), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE);
    ea.desc.magnification = 2;
    REJECT(hst_liquid_esrrf(e.lq, &ea, NULL, &oc), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT);
    NAMES("out[0]");
    REJECT(hst_liquid_benchmark(e.lq, HST_LIQUID_NUM_METHODS, &sa, 1, NULL, 0, &count), HST_ERROR_INVALID_ARGUMENT,
           HST_LOGITEM_OUT_OF_RANGE);
    eng_close(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_magnify_twin, reset_log),
        cmocka_unit_test_setup(test_magnify_reference, reset_log),
        cmocka_unit_test_setup(test_magnify_shift_moves, reset_log),
        cmocka_unit_test_setup(test_magnify_wide_span, reset_log),
        cmocka_unit_test_setup(test_drift_correct, reset_log),
        cmocka_unit_test_setup(test_roberts_twin, reset_log),
        cmocka_unit_test_setup(test_rgc_twin, reset_log),
        cmocka_unit_test(test_rgc_local),
        cmocka_unit_test_setup(test_rgc_split, reset_log),
        cmocka_unit_test_setup(test_one_frame_split, reset_log),
        cmocka_unit_test_setup(test_magnify_is_pipeline_stage, reset_log),
        cmocka_unit_test_setup(test_chain_equals_esrrf, reset_log),
        cmocka_unit_test_setup(test_per_frame_stack, reset_log),
        cmocka_unit_test_setup(test_bad_input, reset_log),
        cmocka_unit_test_setup(test_engine_default_devices, reset_log),
        cmocka_unit_test_setup(test_engine_methods, reset_log),
        cmocka_unit_test_setup(test_engine_forcing, reset_log),
        cmocka_unit_test_setup(test_engine_fastest_and_clear, reset_log),
        cmocka_unit_test_setup(test_engine_measured_fastest, reset_log),
        cmocka_unit_test_setup(test_engine_testing, reset_log),
        cmocka_unit_test_setup(test_engine_benchmark, reset_log),
        cmocka_unit_test_setup(test_engine_esrrf, reset_log),
        cmocka_unit_test_setup(test_engine_bad_input, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
