/* tests/test_images.c — images read inside kernels, and samplers.

   A kernel reads an image through a sampler (read_imagef with float coordinates) for every
   sampler the OpenCL 1.2 specification allows: normalized or not x addressing (NONE,
   CLAMP_TO_EDGE, CLAMP; REPEAT and MIRRORED_REPEAT with normalized coordinates only) x filter
   (NEAREST, LINEAR), on two images (f32 RGBA, unorm8 R), both ways a kernel is launched: a user's
   program (hst_kernel_set_image, hst_kernel_set_sampler, hst_launch) and a declared kernel
   (hst_launch_kernel, signature words "image" and "sampler"). Each result is compared with
   ref_sample below: the specification's sampling rules (OpenCL 1.2, section 8.2, "Addressing and
   Filter Modes") written out in C. Samplers also come from property lists
   (hst_sampler_create_props, clCreateSamplerWithProperties) and report their settings
   (hst_sampler_get_info; on OpenCL devices clGetSamplerInfo must agree). The host device keeps
   images but reads none in kernels: its refusal is checked.

   Runs once per device (HST_DEVICE); kernel reads need an OpenCL device with images. */
#define HST_IMPLEMENTATION
#include "backend.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#define BE_FIXTURE_LOG_LEVEL 0
#include "be_fixture.h"

#define FIX(state) ((fixture *)*(state))
#define NEED_IMAGES(be) do { if (!hst_backend_device(be)->images) { skip(); return; } } while (0)

/* Asserts a result and that the log's last item is `item`. */
#define assert_result_logged(r, code, log, item) do {                                         \
        assert_int_equal((r), (code));                                                        \
        assert_int_equal((log)->last_item, (item));                                           \
    } while (0)

/* ---- the specification's sampling rules (OpenCL 1.2, 8.2), one axis at a time --------------- */
enum { W = 5, H = 4 };                /* the images' extent: not square, so x and y cannot swap */

/* A 2-D image as read_imagef sees it: 4 floats per pixel after the format's conversion (CL_R:
   (r, 0, 0, 1)); rgba says which border colour CLAMP gives (RGBA: 0,0,0,0; R: 0,0,0,1). */
typedef struct ref_image { const float *px; int rgba; } ref_image;

static float frac_f(float x) { return x - floorf(x); }

/* Spec: "u = s * width" for normalized coordinates under NONE, CLAMP_TO_EDGE and CLAMP. */
static float unnormalize(float s, int n, int normalized) { return normalized ? s * (float)n : s; }

/* REPEAT and MIRRORED_REPEAT's pixel-space coordinate u of a normalized s. */
static float wrap_u(float s, int n, unsigned address) {
    if (address == HST_ADDRESS_REPEAT) return (s - floorf(s)) * (float)n;
    return fabsf(s - 2.0f * rintf(0.5f * s)) * (float)n;     /* MIRRORED_REPEAT */
}

/* CLAMP_TO_EDGE keeps indices in [0, n-1]; CLAMP in [-1, n] (outside: the border colour);
   NONE leaves them (the tests keep NONE's coordinates inside). */
static int clamp_index(int i, int n, unsigned address) {
    int lo = address == HST_ADDRESS_CLAMP ? -1 : 0, hi = address == HST_ADDRESS_CLAMP ? n : n - 1;
    if (address == HST_ADDRESS_NONE) return i;
    return i < lo ? lo : i > hi ? hi : i;
}

/* Nearest: the pixel index along an axis of n pixels. */
static int nearest_index(float s, int n, int normalized, unsigned address) {
    int i;
    if (address == HST_ADDRESS_REPEAT) {
        i = (int)floorf(wrap_u(s, n, address));
        return i > n - 1 ? i - n : i;
    }
    if (address == HST_ADDRESS_MIRRORED_REPEAT) {
        i = (int)floorf(wrap_u(s, n, address));
        return i < n - 1 ? i : n - 1;
    }
    return clamp_index((int)floorf(unnormalize(s, n, normalized)), n, address);
}

/* Linear: the two indices along an axis and the weight of the second, a = frac(u - 0.5). */
static void linear_index(float s, int n, int normalized, unsigned address, int *i0, int *i1, float *a) {
    float u = address >= HST_ADDRESS_REPEAT ? wrap_u(s, n, address) : unnormalize(s, n, normalized);
    *i0 = (int)floorf(u - 0.5f);
    *i1 = *i0 + 1;
    *a = frac_f(u - 0.5f);
    if (address == HST_ADDRESS_REPEAT) {
        if (*i0 < 0) *i0 += n;
        if (*i1 > n - 1) *i1 -= n;
    } else if (address == HST_ADDRESS_MIRRORED_REPEAT) {
        if (*i0 < 0) *i0 = 0;
        if (*i1 > n - 1) *i1 = n - 1;
    } else {
        *i0 = clamp_index(*i0, n, address);
        *i1 = clamp_index(*i1, n, address);
    }
}

/* The pixel (i, j), or the border colour outside the image. */
static const float *texel(const ref_image *im, int i, int j) {
    static const float border_rgba[4] = {0, 0, 0, 0}, border_r[4] = {0, 0, 0, 1};
    if (i < 0 || j < 0 || i >= W || j >= H) return im->rgba ? border_rgba : border_r;
    return im->px + ((size_t)j * W + (size_t)i) * 4;
}

/* read_imagef(image, sampler, (x, y)): out[4], and tol[4], the error the specification allows:
   nearest is exact up to the format's conversion (unorm8 -> float: 1.5 ulp, section 8.3.1.1,
   carried in im->px's exactness by the caller); linear weighs 4 pixels with weights whose
   precision the specification leaves to the device (texture units compute them in 8-bit fixed
   point, as CUDA's documentation states), so the bound is 2^-7 of the 4 pixels' span per channel
   plus 4 float roundings of their magnitude. */
static void ref_sample(const ref_image *im, int normalized, unsigned address, unsigned filter,
                       float x, float y, double out[4], double tol[4]) {
    int c;
    if (filter == HST_FILTER_NEAREST) {
        const float *t = texel(im, nearest_index(x, W, normalized, address), nearest_index(y, H, normalized, address));
        for (c = 0; c < 4; c++) { out[c] = t[c]; tol[c] = 0; }
        return;
    } else {
        int i0, i1, j0, j1;
        float a, b;
        const float *t[4];
        linear_index(x, W, normalized, address, &i0, &i1, &a);
        linear_index(y, H, normalized, address, &j0, &j1, &b);
        t[0] = texel(im, i0, j0); t[1] = texel(im, i1, j0); t[2] = texel(im, i0, j1); t[3] = texel(im, i1, j1);
        for (c = 0; c < 4; c++) {
            double lo = t[0][c], hi = t[0][c], mag = 0;
            int k;
            for (k = 0; k < 4; k++) {
                lo = t[k][c] < lo ? t[k][c] : lo;
                hi = t[k][c] > hi ? t[k][c] : hi;
                mag = fabs(t[k][c]) > mag ? fabs(t[k][c]) : mag;
            }
            out[c] = (1.0 - a) * (1.0 - b) * t[0][c] + a * (1.0 - b) * t[1][c] + (1.0 - a) * b * t[2][c] + a * b * t[3][c];
            tol[c] = (hi - lo) / 128.0 + 4.0 * FLT_EPSILON * mag;
        }
    }
}

/* ---- the coordinates read: pixel units, away from pixel edges (nearest) and from a = 0.5 ---- */
static const float xs_all[] = {-2.6f, -0.7f, -0.2f, 0.3f, 0.6f, 1.45f, 2.1f, 2.8f, 3.6f, 4.2f, 4.85f, 5.3f, 7.7f};
static const float ys_all[] = {-1.7f, -0.4f, 0.2f, 0.9f, 1.6f, 2.3f, 3.15f, 3.8f, 4.4f, 6.2f};
/* NONE is undefined outside the image: nearest stays in [0, n), linear in [0.5, n - 0.5). */
static const float xs_nearest_in[] = {0.3f, 0.6f, 1.45f, 2.1f, 2.8f, 3.6f, 4.2f, 4.85f};
static const float ys_nearest_in[] = {0.2f, 0.9f, 1.6f, 2.3f, 3.15f, 3.8f};
static const float xs_linear_in[] = {0.6f, 1.45f, 2.1f, 2.8f, 3.6f, 4.2f};
static const float ys_linear_in[] = {0.9f, 1.6f, 2.3f, 3.15f};
#define COUNT(a) (sizeof (a) / sizeof (a)[0])
#define MAX_POINTS (COUNT(xs_all) * COUNT(ys_all))

/* The points of one sampler: (x, y) pairs into xy (normalized: divided by the extent). */
static size_t sample_points(int normalized, unsigned address, unsigned filter, float *xy) {
    const float *xs = xs_all, *ys = ys_all;
    size_t nx = COUNT(xs_all), ny = COUNT(ys_all), i, j, n = 0;
    if (address == HST_ADDRESS_NONE && filter == HST_FILTER_NEAREST) {
        xs = xs_nearest_in; nx = COUNT(xs_nearest_in); ys = ys_nearest_in; ny = COUNT(ys_nearest_in);
    } else if (address == HST_ADDRESS_NONE) {
        xs = xs_linear_in; nx = COUNT(xs_linear_in); ys = ys_linear_in; ny = COUNT(ys_linear_in);
    }
    for (j = 0; j < ny; j++)
        for (i = 0; i < nx; i++, n++) {
            xy[2 * n] = normalized ? xs[i] / (float)W : xs[i];
            xy[2 * n + 1] = normalized ? ys[j] / (float)H : ys[j];
        }
    return n;
}

/* ---- the kernel, as a user's program and as a declared family ------------------------------- */
static const char *sample_src =
    "__kernel void sample2d(read_only image2d_t img, sampler_t smp, __global const float2 *xy,\n"
    "                       __global float4 *out, uint n) {\n"
    "    uint i = get_global_id(0);\n"
    "    if (i < n) out[i] = read_imagef(img, smp, xy[i]);\n"
    "}\n";
static const char *const *sample_source(size_t *count) { *count = 1; return &sample_src; }
#define SAMPLE_KERNELS(X) X(SAMPLE2D, sample2d, "image sampler global global uint", NULL)
enum { SAMPLE_KERNELS(HST_KERNEL_ID) SAMPLE_NUM_KERNELS };
static const hst_kernel_decl sample_decls[SAMPLE_NUM_KERNELS] = { SAMPLE_KERNELS(HST_KERNEL_DECL) };
static const hst_kernel_family sample_family = {"image_sample", sample_source, sample_decls, SAMPLE_NUM_KERNELS};

/* The two test images: f32 RGBA (values in [-1, 1]) and unorm8 R (bytes), with what
   read_imagef returns for each pixel. */
typedef struct images {
    hst_image *f32, *u8;
    float f32_px[W * H * 4], u8_px[W * H * 4];
} images;

static unsigned lcg(unsigned *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }

static void images_make(hst_backend *be, images *im) {
    const size_t shape[2] = {H, W};
    unsigned char bytes[W * H];
    unsigned seed = 12345u, p;
    for (p = 0; p < W * H * 4; p++) im->f32_px[p] = (float)(lcg(&seed) % 2001u) / 1000.0f - 1.0f;
    for (p = 0; p < W * H; p++) {
        bytes[p] = (unsigned char)(lcg(&seed) & 0xffu);
        im->u8_px[4 * p] = (float)bytes[p] / 255.0f;   /* CL_UNORM_INT8 (section 8.3.1.1) */
        im->u8_px[4 * p + 1] = im->u8_px[4 * p + 2] = 0.0f;
        im->u8_px[4 * p + 3] = 1.0f;
    }
    assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 2, shape, im->f32_px, &im->f32), HST_SUCCESS);
    assert_int_equal(hst_image_from_array(be, HST_U8, 1, 1, 2, shape, bytes, &im->u8), HST_SUCCESS);
}

/* 1.5 ulp of x (float), the unorm8 conversion's allowance. */
static double ulp15(double x) {
    float f = (float)fabs(x);
    return 1.5 * (double)(nextafterf(f, INFINITY) - f);
}

/* PoCL before pocl/pocl#2255 (merged 2026-07) gives CL_R/CL_RG images a border colour of alpha
   0 where the specification says 1 (OpenCL C, "Determining the border color"): on PoCL the
   alpha channel of a sample that reaches the border may be either. Every other channel, and
   every other device, is held to the specification. */
static int pocl_border_alpha(const hst_backend *be) {
    return strstr(hst_backend_device(be)->version, "PoCL") != NULL;
}

/* PoCL (3.1 here) converts a normalized fill colour by truncation, 0.25 * 255 = 63.75 -> 63,
   where the specification rounds to nearest even (convert_uchar_sat_rte, OpenCL 1.2 8.3.1.2):
   on PoCL a fill channel may be either; saturation is held to the specification everywhere. */
static int pocl_fill_truncates(const hst_backend *be) { return pocl_border_alpha(be); }

/* Compares n samples with the reference; unorm says the image is unorm8 (its conversion's 1.5 ulp
   added to every tolerance, 0 and 1 exact). Prints the first mismatches, then fails. */
static void check_samples(const hst_backend *be, const char *what, const ref_image *im, int unorm, int normalized,
                          unsigned address, unsigned filter, const float *xy, size_t n, const float *got) {
    size_t i;
    unsigned bad = 0;
    int c;
    for (i = 0; i < n; i++) {
        double want[4], tol[4], alpha_pocl[4], tol_pocl[4];
        ref_image no_alpha = *im;
        ref_sample(im, normalized, address, filter, xy[2 * i], xy[2 * i + 1], want, tol);
        no_alpha.rgba = 1;   /* the same sample with PoCL's border colour */
        ref_sample(&no_alpha, normalized, address, filter, xy[2 * i], xy[2 * i + 1], alpha_pocl, tol_pocl);
        for (c = 0; c < 4; c++) {
            double t = tol[c] + (unorm && want[c] != 0.0 && want[c] != 1.0 ? ulp15(want[c]) : 0.0);
            double d = fabs((double)got[4 * i + c] - want[c]);
            if (c == 3 && !im->rgba && pocl_border_alpha(be) && fabs((double)got[4 * i + c] - alpha_pocl[c]) <= tol_pocl[c])
                continue;
            if (d > t && bad++ < 4)
                print_error("%s normalized %d address %u filter %u at (%g, %g) channel %d: %.9g, want %.9g +- %.3g\n",
                            what, normalized, address, filter, (double)xy[2 * i], (double)xy[2 * i + 1], c,
                            (double)got[4 * i + c], want[c], t);
        }
    }
    if (bad) {
        print_error("%s: %u mismatches\n", what, bad);
        fail();
    }
}

/* One sampler over one image both ways: the user's kernel k (set_* and hst_launch), and the
   declared family (hst_launch_kernel with a sampler made from properties). */
static void read_both_ways(hst_backend *be, hst_kernel *k, hst_image *img, const ref_image *ref, int unorm,
                           int normalized, unsigned address, unsigned filter) {
    hst_queue *q = hst_backend_queue(be);
    float xy[2 * MAX_POINTS], got[4 * MAX_POINTS];
    size_t n = sample_points(normalized, address, filter, xy);
    const uint64_t props[] = {HST_SAMPLER_NORMALIZED_COORDS, (uint64_t)normalized,
                              HST_SAMPLER_ADDRESSING_MODE, HST_CL_ADDRESS_BASE + address,
                              HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE + filter, 0};
    hst_sampler *s = NULL, *sp = NULL;
    hst_buffer *bxy = NULL, *bout = NULL;
    uint32_t nn = (uint32_t)n;
    const size_t global = n;
    const float zero = 0.0f;
    hst_karg a[5];
    hst_launch_desc d;
    assert_int_equal(hst_sampler_create(be, normalized, address, filter, &s), HST_SUCCESS);
    assert_int_equal(hst_sampler_create_props(be, props, &sp), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, sizeof xy, HST_MEM_READ_ONLY, &bxy), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, sizeof got, HST_MEM_READ_WRITE, &bout), HST_SUCCESS);
    assert_int_equal(hst_write(q, bxy, 0, xy, n * 2 * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);

    assert_int_equal(hst_kernel_set_image(k, 0, img), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_sampler(k, 1, s), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_buffer(k, 2, bxy), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_buffer(k, 3, bout), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_arg(k, 4, sizeof nn, &nn), HST_SUCCESS);
    assert_int_equal(hst_launch(q, k, 1, &global, NULL, 0, NULL, NULL), HST_SUCCESS);
    memset(got, 0xff, sizeof got);
    assert_int_equal(hst_read(q, bout, 0, got, n * 4 * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);
    check_samples(be, "user kernel", ref, unorm, normalized, address, filter, xy, n, got);

    a[0] = hst_karg_image(img); a[1] = hst_karg_sampler(sp); a[2] = hst_karg_buffer(bxy);
    a[3] = hst_karg_buffer(bout); a[4] = hst_karg_uint(nn);
    memset(&d, 0, sizeof d);
    d.family = &sample_family; d.kernel = SAMPLE2D; d.args = a; d.num_args = 5;
    d.range.dims = 1; d.range.global[0] = n;
    assert_int_equal(hst_fill(q, bout, &zero, sizeof zero, 0, sizeof got, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, bout, 0, got, n * 4 * sizeof(float), 1, 0, NULL, NULL), HST_SUCCESS);
    check_samples(be, "declared kernel", ref, unorm, normalized, address, filter, xy, n, got);

    hst_buffer_destroy(bxy);
    hst_buffer_destroy(bout);
    hst_sampler_destroy(s);
    hst_sampler_destroy(sp);
}

/* Every sampler the specification allows, both images, both launch paths. */
static void test_kernel_reads_every_sampler(void **state) {
    hst_backend *be = BE(state);
    hst_program *prog = NULL;
    hst_kernel *k = NULL;
    images im;
    ref_image rf = {NULL, 1}, ru = {NULL, 0};
    int normalized;
    unsigned address, filter, combos = 0;
    NEED_IMAGES(be);
    if (hst_backend_is_host(be)) { skip(); return; }   /* test_host_refuses_image_kernels */
    images_make(be, &im);
    rf.px = im.f32_px; ru.px = im.u8_px;
    assert_int_equal(hst_program_build(be, 1, &sample_src, "", &prog), HST_SUCCESS);
    assert_int_equal(hst_kernel_create(prog, "sample2d", &k), HST_SUCCESS);
    for (normalized = 0; normalized <= 1; normalized++)
        for (address = HST_ADDRESS_NONE; address <= HST_ADDRESS_MIRRORED_REPEAT; address++)
            for (filter = HST_FILTER_NEAREST; filter <= HST_FILTER_LINEAR; filter++) {
                if (!normalized && address >= HST_ADDRESS_REPEAT) continue;   /* spec: normalized only */
                read_both_ways(be, k, im.f32, &rf, 0, normalized, address, filter);
                read_both_ways(be, k, im.u8, &ru, 1, normalized, address, filter);
                combos++;
            }
    assert_int_equal(combos, 3 * 2 + 5 * 2);
    hst_kernel_destroy(k);
    hst_program_release(prog);
    hst_image_destroy(im.f32);
    hst_image_destroy(im.u8);
}

/* The reference itself, on cases worked by hand from section 8.2's formulas (so that a wrong
   reference cannot pass a wrong device): runs on every device. */
static void test_reference_rules(void **state) {
    int i0, i1;
    float a;
    (void)state;
    /* nearest */
    assert_int_equal(nearest_index(-0.7f, W, 0, HST_ADDRESS_CLAMP_TO_EDGE), 0);
    assert_int_equal(nearest_index(-0.7f, W, 0, HST_ADDRESS_CLAMP), -1);
    assert_int_equal(nearest_index(7.7f, W, 0, HST_ADDRESS_CLAMP), W);
    assert_int_equal(nearest_index(7.7f, W, 0, HST_ADDRESS_CLAMP_TO_EDGE), W - 1);
    assert_int_equal(nearest_index(7.7f / W, W, 1, HST_ADDRESS_REPEAT), 2);          /* 7.7 - 5 */
    assert_int_equal(nearest_index(-0.7f / W, W, 1, HST_ADDRESS_REPEAT), 4);         /* 5 - 0.7 */
    assert_int_equal(nearest_index(-0.7f / W, W, 1, HST_ADDRESS_MIRRORED_REPEAT), 0);
    assert_int_equal(nearest_index(7.7f / W, W, 1, HST_ADDRESS_MIRRORED_REPEAT), 2); /* 10 - 7.7 */
    assert_int_equal(nearest_index(5.3f / W, W, 1, HST_ADDRESS_MIRRORED_REPEAT), 4); /* 10 - 5.3 */
    /* linear */
    linear_index(0.3f, W, 0, HST_ADDRESS_CLAMP, &i0, &i1, &a);
    assert_int_equal(i0, -1); assert_int_equal(i1, 0); assert_true(fabsf(a - 0.8f) < 1e-6f);
    linear_index(0.3f, W, 0, HST_ADDRESS_CLAMP_TO_EDGE, &i0, &i1, &a);
    assert_int_equal(i0, 0); assert_int_equal(i1, 0);
    linear_index(0.3f / W, W, 1, HST_ADDRESS_REPEAT, &i0, &i1, &a);
    assert_int_equal(i0, W - 1); assert_int_equal(i1, 0);
    linear_index(4.85f / W, W, 1, HST_ADDRESS_REPEAT, &i0, &i1, &a);
    assert_int_equal(i0, W - 1); assert_int_equal(i1, 0); assert_true(fabsf(a - 0.35f) < 1e-5f);
    linear_index(4.85f / W, W, 1, HST_ADDRESS_MIRRORED_REPEAT, &i0, &i1, &a);
    assert_int_equal(i0, W - 1); assert_int_equal(i1, W - 1);
    linear_index(2.1f, W, 0, HST_ADDRESS_NONE, &i0, &i1, &a);
    assert_int_equal(i0, 1); assert_int_equal(i1, 2); assert_true(fabsf(a - 0.6f) < 1e-5f);
}

/* The host device keeps images and samplers but reads no image in a kernel: a declared kernel
   with an image or sampler argument is refused (HST_ERROR_UNSUPPORTED), as is a program. */
static void test_host_refuses_image_kernels(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_image *img = NULL;
    hst_sampler *s = NULL;
    hst_buffer *b = NULL;
    hst_program *prog = NULL;
    hst_karg a[5];
    hst_launch_desc d;
    const size_t shape[2] = {H, W};
    NEED_IMAGES(be);
    if (!hst_backend_is_host(be)) { skip(); return; }
    assert_int_equal(hst_image_from_array(be, HST_F32, 1, 0, 2, shape, NULL, &img), HST_SUCCESS);
    assert_int_equal(hst_sampler_create(be, 1, HST_ADDRESS_REPEAT, HST_FILTER_LINEAR, &s), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, 64, HST_MEM_READ_WRITE, &b), HST_SUCCESS);
    a[0] = hst_karg_image(img); a[1] = hst_karg_sampler(s); a[2] = hst_karg_buffer(b);
    a[3] = hst_karg_buffer(b); a[4] = hst_karg_uint(1);
    memset(&d, 0, sizeof d);
    d.family = &sample_family; d.kernel = SAMPLE2D; d.args = a; d.num_args = 5;
    d.range.dims = 1; d.range.global[0] = 1;
    cap_reset(&f->log);
    assert_result_logged(hst_launch_kernel(be, &d, NULL), HST_ERROR_UNSUPPORTED, &f->log, HST_LOGITEM_UNSUPPORTED);
    assert_non_null(strstr(f->log.last_message, "argument 0 is an image"));
    a[0] = hst_karg_buffer(b);   /* a wrong kind is caught by the declaration first */
    assert_result_logged(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_program_build(be, 1, &sample_src, "", &prog), HST_ERROR_UNSUPPORTED, &f->log,
                         HST_LOGITEM_UNSUPPORTED);
    assert_null(prog);
    hst_buffer_destroy(b);
    hst_sampler_destroy(s);
    hst_image_destroy(img);
}

/* ---- samplers: every mode, from parameters and from properties, and their info ------------- */
static void check_sampler(const hst_sampler *s, int normalized, unsigned address, unsigned filter) {
    hst_sampler_info info;
    memset(&info, 0xA5, sizeof info);   /* a pattern no field holds: a get_info that writes nothing fails */
    assert_int_equal(hst_sampler_get_info(s, &info), HST_SUCCESS);
    assert_int_equal(info.normalized_coords, normalized);
    assert_int_equal(info.address_mode, address);
    assert_int_equal(info.filter_mode, filter);
#ifndef HST_NO_OPENCL
    if (hst_sampler_cl(s)) {   /* the device's own record agrees */
        cl_bool nc = CL_FALSE;
        cl_addressing_mode am = 0;
        cl_filter_mode fm = 0;
        assert_int_equal(clGetSamplerInfo(hst_sampler_cl(s), CL_SAMPLER_NORMALIZED_COORDS, sizeof nc, &nc, NULL), CL_SUCCESS);
        assert_int_equal(clGetSamplerInfo(hst_sampler_cl(s), CL_SAMPLER_ADDRESSING_MODE, sizeof am, &am, NULL), CL_SUCCESS);
        assert_int_equal(clGetSamplerInfo(hst_sampler_cl(s), CL_SAMPLER_FILTER_MODE, sizeof fm, &fm, NULL), CL_SUCCESS);
        assert_int_equal(nc, normalized ? CL_TRUE : CL_FALSE);
        assert_int_equal(am, HST_CL_ADDRESS_BASE + address);
        assert_int_equal(fm, HST_CL_FILTER_BASE + filter);
    }
#endif
}

static void test_sampler_modes_and_info(void **state) {
    hst_backend *be = BE(state);
    int normalized;
    unsigned address, filter;
    hst_sampler *s = NULL;
    const uint64_t defaults[] = {0};
    const uint64_t some[] = {HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE + HST_FILTER_LINEAR, 0};
    NEED_IMAGES(be);
    for (normalized = 0; normalized <= 1; normalized++)
        for (address = HST_ADDRESS_NONE; address <= HST_ADDRESS_MIRRORED_REPEAT; address++)
            for (filter = HST_FILTER_NEAREST; filter <= HST_FILTER_LINEAR; filter++) {
                const uint64_t props[] = {HST_SAMPLER_ADDRESSING_MODE, HST_CL_ADDRESS_BASE + address,
                                          HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE + filter,
                                          HST_SAMPLER_NORMALIZED_COORDS, (uint64_t)normalized, 0};
                if (!normalized && address >= HST_ADDRESS_REPEAT) continue;
                assert_int_equal(hst_sampler_create(be, normalized, address, filter, &s), HST_SUCCESS);
                check_sampler(s, normalized, address, filter);
                hst_sampler_destroy(s);
                assert_int_equal(hst_sampler_create_props(be, props, &s), HST_SUCCESS);
                check_sampler(s, normalized, address, filter);
                hst_sampler_destroy(s);
            }
    /* OpenCL 2.0's defaults: normalized, CLAMP, NEAREST */
    assert_int_equal(hst_sampler_create_props(be, defaults, &s), HST_SUCCESS);
    check_sampler(s, 1, HST_ADDRESS_CLAMP, HST_FILTER_NEAREST);
    hst_sampler_destroy(s);
    assert_int_equal(hst_sampler_create_props(be, some, &s), HST_SUCCESS);
    check_sampler(s, 1, HST_ADDRESS_CLAMP, HST_FILTER_LINEAR);
    hst_sampler_destroy(s);
}

static void test_sampler_props_errors(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_sampler *s = NULL;
    hst_sampler_info info;
    const uint64_t mip[] = {0x1155, HST_CL_FILTER_BASE + HST_FILTER_LINEAR, 0};   /* CL_SAMPLER_MIP_FILTER_MODE_KHR */
    const uint64_t twice[] = {HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE, HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE, 0};
    const uint64_t norm2[] = {HST_SAMPLER_NORMALIZED_COORDS, 2, 0};
    const uint64_t addr_hst[] = {HST_SAMPLER_ADDRESSING_MODE, HST_ADDRESS_REPEAT, 0};   /* not OpenCL's number */
    const uint64_t addr_big[] = {HST_SAMPLER_ADDRESSING_MODE, HST_CL_ADDRESS_BASE + 5, 0};
    const uint64_t filt_big[] = {HST_SAMPLER_FILTER_MODE, HST_CL_FILTER_BASE + 2, 0};
    const uint64_t repeat_px[] = {HST_SAMPLER_NORMALIZED_COORDS, 0, HST_SAMPLER_ADDRESSING_MODE,
                                  HST_CL_ADDRESS_BASE + HST_ADDRESS_MIRRORED_REPEAT, 0};
    memset(&info, 0xA5, sizeof info);   /* a pattern no field holds: a get_info that writes nothing fails */
    NEED_IMAGES(be);
    cap_reset(&f->log);
    assert_result_logged(hst_sampler_create_props(be, mip, &s), HST_ERROR_UNSUPPORTED, &f->log, HST_LOGITEM_UNSUPPORTED);
    assert_non_null(strstr(f->log.last_message, "0x1155"));
    assert_null(s);
    assert_result_logged(hst_sampler_create_props(be, twice, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "twice"));
    assert_result_logged(hst_sampler_create_props(be, norm2, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "NORMALIZED_COORDS"));
    assert_result_logged(hst_sampler_create_props(be, addr_hst, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "ADDRESSING_MODE"));
    assert_result_logged(hst_sampler_create_props(be, addr_big, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_sampler_create_props(be, filt_big, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "FILTER_MODE"));
    assert_result_logged(hst_sampler_create_props(be, repeat_px, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "normalized"));
    s = (hst_sampler *)(void *)&info;
    assert_result_logged(hst_sampler_create_props(be, NULL, &s), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "props"));
    assert_null(s);
    assert_result_logged(hst_sampler_create_props(be, norm2, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_sampler_create_props(NULL, norm2, &s), HST_ERROR_INVALID_ARGUMENT);
    assert_null(s);
    assert_result_logged(hst_sampler_get_info(NULL, &info), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_sampler_create(be, 1, HST_ADDRESS_NONE, HST_FILTER_NEAREST, &s), HST_SUCCESS);
    assert_result_logged(hst_sampler_get_info(s, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "out"));
    hst_sampler_destroy(s);
}

/* ---- image formats, image info, image_from_array's dtypes and norm_int ---------------------- */
/* OpenCL's numbers (cl.h), spelled here so that the test builds without the OpenCL headers. */
enum { O_R = 0x10B0, O_RG = 0x10B2, O_RGB = 0x10B4, O_RGBA = 0x10B5, O_BGRA = 0x10B6, O_INTENSITY = 0x10B8,
       O_Rx = 0x10BA, O_DEPTH = 0x10BD, O_DEPTH_STENCIL = 0x10BE, O_ABGR = 0x10C3,
       T_SNORM_INT8 = 0x10D0, T_SNORM_INT16 = 0x10D1, T_UNORM_INT8 = 0x10D2, T_UNORM_SHORT_565 = 0x10D4,
       T_UNORM_INT_101010 = 0x10D6, T_SIGNED_INT8 = 0x10D7, T_SIGNED_INT16 = 0x10D8, T_SIGNED_INT32 = 0x10D9,
       T_UNSIGNED_INT8 = 0x10DA, T_HALF_FLOAT = 0x10DD, T_FLOAT = 0x10DE, T_UNORM_INT24 = 0x10DF };

static hst_image_format fmt(uint32_t order, uint32_t type) { hst_image_format f; f.channel_order = order; f.channel_type = type; return f; }

static void test_image_format_sizes(void **state) {
    (void)state;
    assert_int_equal(hst_image_format_channels(fmt(O_R, T_UNORM_INT8)), 1);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_R, T_UNORM_INT8)), 1);
    assert_int_equal(hst_image_format_channels(fmt(O_RGBA, T_FLOAT)), 4);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_RGBA, T_FLOAT)), 16);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_BGRA, T_UNORM_INT8)), 4);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_ABGR, T_SIGNED_INT16)), 8);
    assert_int_equal(hst_image_format_channels(fmt(O_RGB, T_UNORM_SHORT_565)), 3);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_RGB, T_UNORM_SHORT_565)), 2);   /* packed */
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_RGB, T_UNORM_INT_101010)), 4);
    assert_int_equal(hst_image_format_channels(fmt(O_Rx, T_SIGNED_INT16)), 2);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_Rx, T_SIGNED_INT16)), 4);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_INTENSITY, T_HALF_FLOAT)), 2);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_DEPTH, T_FLOAT)), 4);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_DEPTH_STENCIL, T_UNORM_INT24)), 4);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_DEPTH_STENCIL, T_FLOAT)), 8);
    assert_int_equal(hst_image_format_channels(fmt(0x1234, T_FLOAT)), 0);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(0x1234, T_FLOAT)), 0);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_R, 0x10CF)), 0);
    assert_int_equal(hst_image_format_pixel_bytes(fmt(O_R, 0x10E1)), 0);
}

static int format_listed(const hst_image_format *list, size_t n, hst_image_format f) {
    size_t i;
    for (i = 0; i < n; i++)
        if (list[i].channel_order == f.channel_order && list[i].channel_type == f.channel_type) return 1;
    return 0;
}

/* What hst_image_from_array should make of (dtype, channels, normalized): the spec's table. */
static hst_image_format expected_format(hst_dtype dt, unsigned ch, int norm) {
    unsigned n = dt == HST_C64 ? 2 * ch : ch;
    uint32_t order = n == 1 ? O_R : n == 2 ? O_RG : O_RGBA;
    uint32_t type = dt == HST_U8 ? (norm ? T_UNORM_INT8 : T_UNSIGNED_INT8)
                  : dt == HST_I8 ? (norm ? T_SNORM_INT8 : T_SIGNED_INT8)
                  : dt == HST_I16 ? (norm ? T_SNORM_INT16 : T_SIGNED_INT16)
                  : dt == HST_I32 ? T_SIGNED_INT32 : T_FLOAT;
    return fmt(order, type);
}

#define MAX_FORMATS 512

/* Every dtype x channels x norm_int that image_from_array takes: made where the device lists
   its format (else refused, HST_ERROR_UNSUPPORTED, naming the list), read back bit for bit, and
   described by hst_image_get_info; the supported list holds only formats of known size. */
static void test_image_from_array_every_format(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    static const hst_dtype dts[] = {HST_U8, HST_I8, HST_I16, HST_I32, HST_F32, HST_C64};
    static const unsigned chs[] = {1, 2, 4};
    static hst_image_format list[MAX_FORMATS];
    size_t n = 0, n2 = 0, i, d, c, made = 0;
    int norm;
    NEED_IMAGES(be);
    assert_int_equal(hst_supported_image_formats(be, HST_MEM_READ_WRITE, 2, NULL, 0, &n), HST_SUCCESS);
    assert_true(n > 0 && n <= MAX_FORMATS);
    assert_int_equal(hst_supported_image_formats(be, HST_MEM_READ_WRITE, 2, list, MAX_FORMATS, &n2), HST_SUCCESS);
    assert_int_equal(n2, n);
    for (i = 0; i < n; i++) assert_true(hst_image_format_pixel_bytes(list[i]) > 0);
    assert_int_equal(hst_supported_image_formats(be, HST_MEM_READ_ONLY, 3, list + n, MAX_FORMATS - n, &n2), HST_SUCCESS);
    assert_true(n2 > 0);
    for (d = 0; d < COUNT(dts); d++)
        for (c = 0; c < COUNT(chs); c++)
            for (norm = 0; norm <= 1; norm++) {
                const size_t shape[2] = {3, 7};
                const int normalizable = dts[d] == HST_U8 || dts[d] == HST_I8 || dts[d] == HST_I16;
                size_t px = hst_dtype_size(dts[d]) * chs[c], bytes = 3 * 7 * px, k;
                unsigned char src[3 * 7 * 32], got[3 * 7 * 32];
                const size_t o0[3] = {0, 0, 0}, whole[3] = {7, 3, 1};
                hst_image_format want = expected_format(dts[d], chs[c], norm);
                hst_image *img = NULL;
                hst_image_info info;
                hst_result r;
                if (dts[d] == HST_C64 && chs[c] == 4) continue;
                for (k = 0; k < bytes; k++) src[k] = (unsigned char)(k * 37u + 11u);
                if (dts[d] == HST_F32 || dts[d] == HST_C64)   /* finite floats: the bytes of k + 0.5 */
                    for (k = 0; k < bytes / 4; k++) { float v = (float)k + 0.5f; memcpy(src + 4 * k, &v, 4); }
                cap_reset(&f->log);
                r = hst_image_from_array(be, dts[d], chs[c], norm, 2, shape, src, &img);
                if (norm && !normalizable) {
                    assert_int_equal(r, HST_ERROR_INVALID_ARGUMENT);
                    assert_non_null(strstr(f->log.last_message, "normalized"));
                    continue;
                }
                if (!format_listed(list, n, want)) {
                    assert_int_equal(r, HST_ERROR_UNSUPPORTED);
                    assert_non_null(strstr(f->log.last_message, "hst_supported_image_formats"));
                    continue;
                }
                assert_int_equal(r, HST_SUCCESS);
                made++;
                assert_int_equal(hst_image_get_info(img, &info), HST_SUCCESS);
                assert_int_equal(info.ndim, 2);
                assert_int_equal(info.width, 7); assert_int_equal(info.height, 3); assert_int_equal(info.depth, 1);
                assert_int_equal(info.format.channel_order, want.channel_order);
                assert_int_equal(info.format.channel_type, want.channel_type);
                assert_int_equal(info.dtype, dts[d]); assert_int_equal(info.channels, chs[c]);
                assert_int_equal(info.normalized, norm);
                assert_int_equal(info.pixel_bytes, px);
                assert_int_equal(hst_image_format_pixel_bytes(info.format), px);
                assert_true(info.row_pitch >= 7 * px);
                if (hst_backend_is_host(be)) assert_int_equal(info.row_pitch, 7 * px);
                assert_int_equal(info.slice_pitch, 0);
                assert_int_equal(info.array_size, 0);
                memset(got, 0, sizeof got);
                assert_int_equal(hst_image_read(q, img, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
                assert_memory_equal(got, src, bytes);
                hst_image_destroy(img);
            }
    assert_true(made >= 8);
    if (hst_backend_is_host(be)) assert_int_equal(made, 3 * 8 + 2);   /* every one, c64 x1 and x2 too */
    /* 3-D: pitches of rows and slices */
    {
        const size_t shape3[3] = {2, 3, 5};
        hst_image *img = NULL;
        hst_image_info info;
        assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 3, shape3, NULL, &img), HST_SUCCESS);
        assert_int_equal(hst_image_get_info(img, &info), HST_SUCCESS);
        assert_int_equal(info.ndim, 3);
        assert_int_equal(info.width, 5); assert_int_equal(info.height, 3); assert_int_equal(info.depth, 2);
        assert_true(info.row_pitch >= 5 * 16);
        assert_true(info.slice_pitch >= info.row_pitch * 3);
        hst_image_destroy(img);
    }
    /* bad arguments */
    cap_reset(&f->log);
    assert_result_logged(hst_supported_image_formats(be, 3, 2, list, 1, &n2), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "mem_flags"));
    assert_result_logged(hst_supported_image_formats(be, 0, 7, list, 1, &n2), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "image_type"));
    assert_result_logged(hst_supported_image_formats(be, 0, 0, list, 1, &n2), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_supported_image_formats(be, 0, 2, NULL, 1, &n2), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "formats"));
    assert_result_logged(hst_supported_image_formats(be, 0, 2, list, 1, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    {
        hst_image_info info;
        assert_result_logged(hst_image_get_info(NULL, &info), HST_ERROR_INVALID_ARGUMENT, &f->log,
                             HST_LOGITEM_NULL_ARGUMENT);
    }
}

/* norm_int: integers read in a kernel as floats by the specification's conversions (OpenCL
   1.2, 8.3.1.1): unorm8 c / 255, snorm8 max(-1, c / 127), snorm16 max(-1, c / 32767), each
   within 1.5 ulp; and a fill colour converted the other way, convert_<type>_sat_rte(f * scale),
   the same bytes on every device. */
static void test_norm_int_read_and_fill(void **state) {
    hst_backend *be = BE(state);
    hst_queue *q = hst_backend_queue(be);
    static const hst_dtype dts[] = {HST_U8, HST_I8, HST_I16};
    const size_t shape[2] = {H, W};
    size_t d;
    NEED_IMAGES(be);
    for (d = 0; d < COUNT(dts); d++) {
        const float color[4] = {-2.0f, -0.5f, 0.25f, 1.5f};
        const double scale = dts[d] == HST_U8 ? 255.0 : dts[d] == HST_I8 ? 127.0 : 32767.0;
        const long lo = dts[d] == HST_U8 ? 0 : dts[d] == HST_I8 ? -128 : -32768;
        unsigned char raw[W * H * 2], back[4 * 2];
        const size_t o0[3] = {0, 0, 0}, one[3] = {1, 1, 1};
        hst_image *img = NULL, *img4 = NULL;
        unsigned p, seed = 777u;
        int c;
        for (p = 0; p < sizeof raw; p++) raw[p] = (unsigned char)lcg(&seed);
        if (dts[d] == HST_I16) { raw[0] = 0x00; raw[1] = 0x80; }   /* -32768: reads as -1 */
        if (dts[d] == HST_I8) raw[0] = 0x80;                          /* -128: reads as -1 */
        {   /* a format the device does not list (NVIDIA: no R SNORM_INT8) is refused before
               clCreateImage; test_image_from_array_every_format checks refusals against the list */
            hst_result r = hst_image_from_array(be, dts[d], 1, 1, 2, shape, raw, &img);
            if (r == HST_ERROR_UNSUPPORTED) continue;
            assert_int_equal(r, HST_SUCCESS);
        }
        if (!hst_backend_is_host(be)) {   /* read in a kernel, every pixel at its centre */
            hst_program *prog = NULL;
            hst_kernel *k = NULL;
            hst_sampler *s = NULL;
            hst_buffer *bxy = NULL, *bout = NULL;
            float xy[2 * W * H], got[4 * W * H];
            uint32_t nn = W * H;
            size_t global = W * H;
            for (p = 0; p < W * H; p++) { xy[2 * p] = (float)(p % W) + 0.5f; xy[2 * p + 1] = (float)(p / W) + 0.5f; }
            assert_int_equal(hst_program_build(be, 1, &sample_src, "", &prog), HST_SUCCESS);
            assert_int_equal(hst_kernel_create(prog, "sample2d", &k), HST_SUCCESS);
            assert_int_equal(hst_sampler_create(be, 0, HST_ADDRESS_CLAMP_TO_EDGE, HST_FILTER_NEAREST, &s), HST_SUCCESS);
            assert_int_equal(hst_buffer_create(be, sizeof xy, HST_MEM_READ_ONLY, &bxy), HST_SUCCESS);
            assert_int_equal(hst_buffer_create(be, sizeof got, HST_MEM_READ_WRITE, &bout), HST_SUCCESS);
            assert_int_equal(hst_write(q, bxy, 0, xy, sizeof xy, 1, 0, NULL, NULL), HST_SUCCESS);
            assert_int_equal(hst_kernel_set_image(k, 0, img), HST_SUCCESS);
            assert_int_equal(hst_kernel_set_sampler(k, 1, s), HST_SUCCESS);
            assert_int_equal(hst_kernel_set_buffer(k, 2, bxy), HST_SUCCESS);
            assert_int_equal(hst_kernel_set_buffer(k, 3, bout), HST_SUCCESS);
            assert_int_equal(hst_kernel_set_arg(k, 4, sizeof nn, &nn), HST_SUCCESS);
            assert_int_equal(hst_launch(q, k, 1, &global, NULL, 0, NULL, NULL), HST_SUCCESS);
            assert_int_equal(hst_read(q, bout, 0, got, sizeof got, 1, 0, NULL, NULL), HST_SUCCESS);
            for (p = 0; p < W * H; p++) {
                double v = dts[d] == HST_U8 ? raw[p] : dts[d] == HST_I8 ? (double)(int8_t)raw[p]
                         : (double)(int16_t)(uint16_t)(raw[2 * p] | raw[2 * p + 1] << 8);
                double want = v / scale < -1.0 ? -1.0 : v / scale;
                double tol = want == 0.0 || want == 1.0 || want == -1.0 ? 0.0 : ulp15(want);
                if (fabs((double)got[4 * p] - want) > tol) {
                    print_error("%s pixel %u: %.9g, want %.9g\n", hst_dtype_name(dts[d]), p, (double)got[4 * p], want);
                    fail();
                }
            }
            hst_buffer_destroy(bxy);
            hst_buffer_destroy(bout);
            hst_sampler_destroy(s);
            hst_kernel_destroy(k);
            hst_program_release(prog);
        }
        /* fill: saturating, round to nearest even */
        {
            const size_t shape1[2] = {1, 1};
            hst_result r = hst_image_from_array(be, dts[d], 4, 1, 2, shape1, NULL, &img4);
            if (r == HST_ERROR_UNSUPPORTED) { hst_image_destroy(img); continue; }   /* unlisted, as above */
            assert_int_equal(r, HST_SUCCESS);
            assert_int_equal(hst_image_fill(q, img4, color, o0, one, 0, NULL, NULL), HST_SUCCESS);
            assert_int_equal(hst_image_read(q, img4, o0, one, back, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
            for (c = 0; c < 4; c++) {
                double want = nearbyint((double)(color[c] * (float)scale));
                long v = dts[d] == HST_U8 ? back[c] : dts[d] == HST_I8 ? (long)(int8_t)back[c]
                       : (long)(int16_t)(uint16_t)(back[2 * c] | back[2 * c + 1] << 8);
                want = want < (double)lo ? (double)lo : want > scale ? scale : want;
                /* OpenCL 1.2 section 8.3.1.1: a float to normalised integer conversion may be off
                   by 0.6 ulp of the exact value (NVIDIA's fill is; PoCL truncates further); below
                   -1 NVIDIA saturates to -scale, not lo: both read back as -1.0 (max(-1, v / scale)) */
                double exact = fmin(fmax((double)(color[c] * (float)scale), (double)lo), scale);
                int minus_one = lo < 0 && want == (double)lo && v == lo + 1;
                if ((double)v != want && fabs((double)v - exact) > 0.6 && !minus_one &&
                    !(pocl_fill_truncates(be) && (double)v == trunc(color[c] * (float)scale))) {
                    print_error("%s fill channel %d: %ld, want %.0f\n", hst_dtype_name(dts[d]), c, v, want);
                    fail();
                }
            }
            hst_image_destroy(img4);
        }
        hst_image_destroy(img);
    }
}

/* ---- every image type (hst_image_create): 1-D, 1-D array, 2-D array, 1-D over a buffer ------- */
/* Host pixels with pitches land where OpenCL says (rows at row_pitch, slices and layers at
   slice_pitch), read back tight; the info says the type, extent, layers and access; a 1-D
   buffer image is the buffer's memory; a kernel reads every type. */
static const char *types_src =
    "__kernel void read1d(read_only image1d_t a, read_only image1d_array_t b, read_only image2d_array_t c,\n"
    "                     read_only image1d_buffer_t d, __global float4 *out) {\n"
    "    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;\n"
    "    out[0] = read_imagef(a, s, 2);\n"
    "    out[1] = read_imagef(b, s, (int2)(1, 2));\n"
    "    out[2] = read_imagef(c, s, (int4)(2, 1, 1, 0));\n"
    "    out[3] = read_imagef(d, 3);\n"
    "}\n";

/* A test pixel: (x, y, z) of an RGBA f32 image as 4 distinct floats. */
static void px_of(float *p, size_t x, size_t y, size_t z) {
    int c;
    for (c = 0; c < 4; c++) p[c] = (float)(1000 * z + 100 * y + 10 * x + (size_t)c);
}

static void test_image_types(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    enum { WD = 5, HT = 3, LY = 4 };
    /* host data with pitches: rows of 7 pixels, slices/layers of 4 rows (2-D array), 9 pixels (1-D array) */
    static float src2a[LY * 4 * 7 * 4], src1a[LY * 9 * 4], src1[WD * 4], got[LY * HT * WD * 4];
    const size_t o0[3] = {0, 0, 0};
    hst_image_desc d;
    hst_image *i1 = NULL, *i1a = NULL, *i2a = NULL, *ib = NULL;
    hst_buffer *buf = NULL;
    hst_image_info info;
    size_t x, y, z;
    NEED_IMAGES(be);
    for (z = 0; z < LY; z++)
        for (y = 0; y < 4; y++)
            for (x = 0; x < 7; x++) px_of(src2a + ((z * 4 + y) * 7 + x) * 4, x, y, z);
    for (y = 0; y < LY; y++)
        for (x = 0; x < 9; x++) px_of(src1a + (y * 9 + x) * 4, x, y, 0);
    for (x = 0; x < WD; x++) px_of(src1 + x * 4, x, 0, 0);

    memset(&d, 0, sizeof d);   /* 1-D, read-only for kernels */
    d.type = HST_IMAGE_1D; d.dtype = HST_F32; d.channels = 4; d.width = WD; d.mem_flags = HST_MEM_READ_ONLY;
    d.host = src1;
    assert_int_equal(hst_image_create(be, &d, &i1), HST_SUCCESS);
    assert_int_equal(hst_image_get_info(i1, &info), HST_SUCCESS);
    assert_int_equal(info.type, HST_IMAGE_1D); assert_int_equal(info.ndim, 1);
    assert_int_equal(info.width, WD); assert_int_equal(info.height, 1); assert_int_equal(info.depth, 1);
    assert_int_equal(info.array_size, 0); assert_int_equal(info.mem_flags, HST_MEM_READ_ONLY);
    assert_int_equal(info.slice_pitch, 0);
    if (!hst_backend_is_host(be)) {   /* the device's own flags: CL_MEM_FLAGS (0x1101) has CL_MEM_READ_ONLY (4) */
        uint64_t flags = 0;
        assert_int_equal(hst_image_get_info_raw(i1, 0x1101, sizeof flags, &flags, NULL), HST_SUCCESS);
        assert_true(flags & 4u);
    }
    {
        const size_t r[3] = {WD, 1, 1};
        assert_int_equal(hst_image_read(q, i1, o0, r, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, src1, sizeof src1);
    }

    memset(&d, 0, sizeof d);   /* 1-D array: layers at slice_pitch (9 pixels) */
    d.type = HST_IMAGE_1D_ARRAY; d.dtype = HST_F32; d.channels = 4; d.width = WD; d.array_size = LY;
    d.host = src1a; d.row_pitch = WD * 16; d.slice_pitch = 9 * 16;
    assert_int_equal(hst_image_create(be, &d, &i1a), HST_SUCCESS);
    assert_int_equal(hst_image_get_info(i1a, &info), HST_SUCCESS);
    assert_int_equal(info.type, HST_IMAGE_1D_ARRAY); assert_int_equal(info.ndim, 1);
    assert_int_equal(info.array_size, LY); assert_int_equal(info.height, 1);
    assert_true(info.slice_pitch >= WD * 16);
    {
        const size_t r[3] = {WD, LY, 1};
        assert_int_equal(hst_image_read(q, i1a, o0, r, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        for (y = 0; y < LY; y++)
            assert_memory_equal(got + y * WD * 4, src1a + y * 9 * 4, WD * 16);
    }

    memset(&d, 0, sizeof d);   /* 2-D array: rows at 7 pixels, layers at 4 rows */
    d.type = HST_IMAGE_2D_ARRAY; d.dtype = HST_F32; d.channels = 4; d.width = WD; d.height = HT; d.array_size = LY;
    d.host = src2a; d.row_pitch = 7 * 16; d.slice_pitch = 4 * 7 * 16;
    assert_int_equal(hst_image_create(be, &d, &i2a), HST_SUCCESS);
    assert_int_equal(hst_image_get_info(i2a, &info), HST_SUCCESS);
    assert_int_equal(info.type, HST_IMAGE_2D_ARRAY); assert_int_equal(info.ndim, 2);
    assert_int_equal(info.height, HT); assert_int_equal(info.depth, 1); assert_int_equal(info.array_size, LY);
    assert_true(info.slice_pitch >= info.row_pitch * HT);
    {
        const size_t r[3] = {WD, HT, LY};
        assert_int_equal(hst_image_read(q, i2a, o0, r, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        for (z = 0; z < LY; z++)
            for (y = 0; y < HT; y++)
                assert_memory_equal(got + (z * HT + y) * WD * 4, src2a + (z * 4 + y) * 7 * 4, WD * 16);
    }

    /* 1-D over a buffer: the buffer's bytes are the pixels, both ways */
    assert_int_equal(hst_buffer_create(be, WD * 16 + 32, HST_MEM_READ_WRITE, &buf), HST_SUCCESS);
    assert_int_equal(hst_write(q, buf, 0, src1, sizeof src1, 1, 0, NULL, NULL), HST_SUCCESS);
    memset(&d, 0, sizeof d);
    d.type = HST_IMAGE_1D_BUFFER; d.dtype = HST_F32; d.channels = 4; d.width = WD; d.buffer = buf;
    assert_int_equal(hst_image_create(be, &d, &ib), HST_SUCCESS);
    {
        const size_t r[3] = {WD, 1, 1}, o2[3] = {2, 0, 0}, r1[3] = {1, 1, 1};
        const float color[4] = {-1, -2, -3, -4};
        assert_int_equal(hst_image_read(q, ib, o0, r, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, src1, sizeof src1);
        assert_int_equal(hst_image_fill(q, ib, color, o2, r1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
        assert_int_equal(hst_read(q, buf, 2 * 16, got, 16, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, color, 16);
    }
    assert_int_equal(hst_image_get_info(ib, &info), HST_SUCCESS);
    assert_int_equal(info.type, HST_IMAGE_1D_BUFFER);

    if (!hst_backend_is_host(be)) {   /* a kernel reads every type */
        hst_program *prog = NULL;
        hst_kernel *k = NULL;
        hst_buffer *out = NULL;
        const size_t one = 1;
        float want[4 * 4];
        assert_int_equal(hst_program_build(be, 1, &types_src, "", &prog), HST_SUCCESS);
        assert_int_equal(hst_kernel_create(prog, "read1d", &k), HST_SUCCESS);
        assert_int_equal(hst_buffer_create(be, sizeof want, HST_MEM_READ_WRITE, &out), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_image(k, 0, i1), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_image(k, 1, i1a), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_image(k, 2, i2a), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_image(k, 3, ib), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_buffer(k, 4, out), HST_SUCCESS);
        assert_int_equal(hst_launch(q, k, 1, &one, &one, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_read(q, out, 0, got, sizeof want, 1, 0, NULL, NULL), HST_SUCCESS);
        px_of(want, 2, 0, 0);            /* 1-D x 2 */
        px_of(want + 4, 1, 2, 0);        /* 1-D array x 1, layer 2 */
        px_of(want + 8, 2, 1, 1);        /* 2-D array x 2, y 1, layer 1 */
        memcpy(want + 12, src1 + 3 * 4, 16);   /* buffer image x 3 */
        assert_memory_equal(got, want, sizeof want);
        hst_buffer_destroy(out);
        hst_kernel_destroy(k);
        hst_program_release(prog);
    }
    hst_image_destroy(ib);
    hst_buffer_destroy(buf);
    hst_image_destroy(i1);
    hst_image_destroy(i1a);
    hst_image_destroy(i2a);
}

static void test_image_create_errors(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_image_desc d;
    hst_image *img = NULL;
    hst_buffer *buf = NULL, *sub = NULL;
    NEED_IMAGES(be);
#define BAD(field_fix, item, text) do {                                                          \
        memset(&d, 0, sizeof d);                                                                 \
        d.type = HST_IMAGE_2D; d.dtype = HST_F32; d.channels = 1; d.width = 4; d.height = 4;     \
        field_fix;                                                                               \
        cap_reset(&f->log);                                                                      \
        img = (hst_image *)(void *)&d;                                                           \
        assert_result_logged(hst_image_create(be, &d, &img), HST_ERROR_INVALID_ARGUMENT, &f->log, item); \
        assert_null(img);                                                                        \
        assert_non_null(strstr(f->log.last_message, text));                                      \
    } while (0)
    BAD(d.type = 0, HST_LOGITEM_OUT_OF_RANGE, "d->type");
    BAD(d.type = 7, HST_LOGITEM_OUT_OF_RANGE, "d->type");
    BAD(d.width = 0, HST_LOGITEM_ZERO_SIZE, "d->width");
    BAD(d.height = 0, HST_LOGITEM_ZERO_SIZE, "d->height");
    BAD(d.type = HST_IMAGE_1D, HST_LOGITEM_BAD_ARGUMENT, "d->height");
    BAD(d.depth = 2, HST_LOGITEM_BAD_ARGUMENT, "d->depth");
    BAD(d.type = HST_IMAGE_3D, HST_LOGITEM_ZERO_SIZE, "d->depth");
    BAD(d.type = HST_IMAGE_2D_ARRAY, HST_LOGITEM_ZERO_SIZE, "d->array_size");
    BAD(d.array_size = 3, HST_LOGITEM_BAD_ARGUMENT, "d->array_size");
    BAD(d.mem_flags = 3, HST_LOGITEM_OUT_OF_RANGE, "d->mem_flags");
    BAD(d.row_pitch = 8, HST_LOGITEM_OUT_OF_RANGE, "d->row_pitch");
    BAD(d.slice_pitch = 64, HST_LOGITEM_OUT_OF_RANGE, "d->slice_pitch");
    BAD((d.type = HST_IMAGE_3D, d.depth = 2, d.slice_pitch = 60), HST_LOGITEM_OUT_OF_RANGE, "d->slice_pitch");
    BAD(d.normalized = 1, HST_LOGITEM_BAD_ARGUMENT, "normalized");
    BAD((d.type = HST_IMAGE_1D_BUFFER, d.height = 0), HST_LOGITEM_NULL_ARGUMENT, "d->buffer");
    assert_int_equal(hst_buffer_create(be, 256, HST_MEM_READ_WRITE, &buf), HST_SUCCESS);
    BAD(d.buffer = buf, HST_LOGITEM_BAD_ARGUMENT, "d->buffer");
    BAD((d.type = HST_IMAGE_1D_BUFFER, d.height = 0, d.width = 65, d.buffer = buf), HST_LOGITEM_OUT_OF_RANGE,
        "d->buffer");
    if (hst_buffer_create_sub(buf, 0, 64, &sub) == HST_SUCCESS) {
        BAD((d.type = HST_IMAGE_1D_BUFFER, d.height = 0, d.buffer = sub), HST_LOGITEM_BAD_ARGUMENT, "sub-buffer");
        hst_buffer_destroy(sub);
    }
#undef BAD
    cap_reset(&f->log);
    assert_result_logged(hst_image_create(be, NULL, &img), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    hst_buffer_destroy(buf);
}

/* A map after a write, neither blocking: the map waits for the write's event and its own event
   says when the pixels are there (PyOpenCL's enqueue_map_image, is_blocking=False). */
static void test_image_map_events(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    const size_t shape[3] = {2, H, W}, o0[3] = {0, 0, 0}, whole[3] = {W, H, 2};
    const size_t org[3] = {1, 2, 1}, reg[3] = {3, 2, 1};
    float src[2 * H * W * 4];
    hst_image *img = NULL;
    hst_event written = NULL, mapped = NULL, unmapped = NULL;
    size_t rp = 0, sp = 0, x, y, c;
    void *p = NULL;
    unsigned i;
    NEED_IMAGES(be);
    for (i = 0; i < 2 * H * W * 4; i++) src[i] = (float)i * 0.25f;
    assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 3, shape, NULL, &img), HST_SUCCESS);
    assert_int_equal(hst_image_write(q, img, o0, whole, src, 0, 0, 0, 0, NULL, &written), HST_SUCCESS);
    assert_int_equal(hst_image_map_enqueue(q, img, HST_MAP_READ, org, reg, 0, &rp, &sp, &p, 1, &written, &mapped),
                     HST_SUCCESS);
    assert_non_null(p);
    if (!hst_backend_is_host(be)) assert_non_null(mapped);   /* the host device's commands are done: NULL */
    assert_int_equal(hst_event_wait(1, &mapped), HST_SUCCESS);
    assert_true(rp >= 3 * 16);
    for (y = 0; y < 2; y++)   /* the box's rows, at the mapped pitch */
        for (x = 0; x < 3; x++)
            for (c = 0; c < 4; c++) {
                const float *row = (const float *)((const char *)p + y * rp);
                size_t at = ((1 * H + (2 + y)) * W + (1 + x)) * 4 + c;   /* z 1, y 2.., x 1.. */
                assert_true(row[x * 4 + c] == src[at]);
            }
    assert_int_equal(hst_image_unmap(q, img, p, 0, NULL, &unmapped), HST_SUCCESS);
    assert_int_equal(hst_event_wait(1, &unmapped), HST_SUCCESS);
    hst_event_release(written);
    hst_event_release(mapped);
    hst_event_release(unmapped);
    /* its checks: map flags, a NULL pitch, a box outside */
    cap_reset(&f->log);
    assert_result_logged(hst_image_map_enqueue(q, img, 0, org, reg, 0, &rp, &sp, &p, 0, NULL, &mapped),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(mapped);
    assert_non_null(strstr(f->log.last_message, "hst_image_map_enqueue"));
    assert_result_logged(hst_image_map_enqueue(q, img, HST_MAP_READ, org, reg, 1, NULL, &sp, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_image_map_enqueue(q, img, HST_MAP_READ, org, whole, 1, &rp, &sp, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_image_destroy(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_rules),
        cmocka_unit_test_setup(test_kernel_reads_every_sampler, reset_log),
        cmocka_unit_test_setup(test_host_refuses_image_kernels, reset_log),
        cmocka_unit_test_setup(test_sampler_modes_and_info, reset_log),
        cmocka_unit_test_setup(test_sampler_props_errors, reset_log),
        cmocka_unit_test(test_image_format_sizes),
        cmocka_unit_test_setup(test_image_from_array_every_format, reset_log),
        cmocka_unit_test_setup(test_norm_int_read_and_fill, reset_log),
        cmocka_unit_test_setup(test_image_map_events, reset_log),
        cmocka_unit_test_setup(test_image_types, reset_log),
        cmocka_unit_test_setup(test_image_create_errors, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
