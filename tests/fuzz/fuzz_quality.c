/* tests/fuzz/fuzz_quality.c — quality.h's argument checks and edges on the host device: fuzzed
   descs (error map: fixed_sigma, scores_only; FRC: pixel_size; decorrelation: rmin, rmax, num_radii,
   num_highpass, pixel_size, roi), shapes (zero, small, huge rows and cols; an SR image that is or is
   not a multiple of the reference; one-column images) and samples (f32 bits from the input:
   NaN, Inf, subnormals, values near FLT_MAX, all zeros). Properties:
   - every call returns a documented code; a shape no image here holds is refused before the
     image is read (the images are only as long as the small shapes: a read past them is an
     ASan report), and so are descs outside their ranges (num_highpass = 2^32 - 1 overflowed a stack
     array);
   - a success gives sane numbers: RSP in [-1, 1], RSE >= 0, FIRE >= 0 or NaN (undefined FRC),
     a decorrelation resolution >= 0 (inf: no maximum) and kc_max in [0, 1];
   - an interrupted backend returns HST_ERROR_CANCELLED and nothing else, cleared it works. */
#define HST_IMPLEMENTATION
#define HST_FFT
#include <math.h>
#include <stdlib.h>
#include "quality.h"
#include "fuzz_common.h"

#define MAX_SIDE 24   /* FRC needs 10; decorrelation pads to 32 at most: fast */

static int fz_known(hst_result r)
{
    return r == HST_SUCCESS || r == HST_ERROR_INVALID_ARGUMENT || r == HST_ERROR_OVERFLOW ||
           r == HST_ERROR_NON_FINITE || r == HST_ERROR_SHAPE || r == HST_ERROR_OUT_OF_HOST_MEMORY ||
           r == HST_ERROR_OUT_OF_DEVICE_MEMORY;
}

/* A double from a table of edges (both sides of each range, NaN, Inf, subnormals) or the bytes. */
static double fz_double(fz *f)
{
    static const double edge[16] = {0.0, -0.0, 1.0, 0.5, 1e-320, -1.0, 1e-20, 1e20, 1e-21, 1e21,
                                    1.7e308, 2.0, 0.999, 65.0, 0.0, 0.0};
    unsigned t = fz_u8(f);
    if (t < 16) return edge[t];
    if (t == 16) return NAN;
    if (t == 17) return INFINITY;
    if (t == 18) { uint64_t v = 0; unsigned i; double d; for (i = 0; i < 8; i++) v = (v << 8) | fz_u8(f); memcpy(&d, &v, sizeof d); return d; }
    return (double)(t - 19) / 64.0;   /* 0 .. 3.7 in steps of 1/64 */
}

/* A side: small (0 .. MAX_SIDE, the images' size), or huge (> INT_MAX / 2: always refused). */
static size_t fz_side(fz *f, int *huge)
{
    size_t v = fz_size(f, MAX_SIDE);
    if (v > MAX_SIDE) { *huge = 1; return v > (size_t)INT_MAX / 2 ? v : (size_t)INT_MAX; }
    return v;
}

/* n samples: f32 bits from the input (now and then), else a smooth pattern with noise. */
static void fz_image(fz *f, float *p, size_t n)
{
    unsigned mode = fz_u8(f) % 8;
    size_t i;
    for (i = 0; i < n; i++) {
        if (mode == 0) p[i] = 0.0f;
        else if (mode == 1) { uint32_t v = fz_u16(f) | ((uint32_t)fz_u16(f) << 16); memcpy(&p[i], &v, 4); }
        else p[i] = (float)(sin(0.3 * (double)i * mode) + (double)fz_u8(f) / 256.0) * (mode == 7 ? 1e30f : 1.0f);
    }
}

static void fz_error_map(hst_backend *be, fz *f, const float *a, const float *b)
{
    hst_error_map_desc d;
    hst_error_map_result r;
    static float map[MAX_SIDE * MAX_SIDE * 4];
    int huge = 0;
    size_t rr = fz_side(f, &huge), rc = fz_side(f, &huge), mag = 1 + fz_u8(f) % 2;
    size_t sr = rr * mag, sc = rc * mag;
    hst_result res;
    memset(&d, 0, sizeof d);
    d.fixed_sigma = fz_u8(f) % 4 ? 0.0 : fz_double(f);
    d.scores_only = fz_u8(f) % 2;
    if (fz_u8(f) % 4 == 0) sc += 1;   /* not a multiple */
    if (!huge && sr * sc > MAX_SIDE * MAX_SIDE) return;   /* valid but larger than b */
    res = hst_error_map(be, a, rr, rc, b, sr, sc, &d, d.scores_only ? NULL : map, &r);
    if (!fz_known(res)) __builtin_trap();
    if (huge && res == HST_SUCCESS) __builtin_trap();
    if (res == HST_SUCCESS && (!(r.rse >= 0.0) || !(r.rsp >= -1.0 && r.rsp <= 1.0))) __builtin_trap();
}

static void fz_frc(hst_backend *be, fz *f, const float *a, const float *b)
{
    hst_frc_desc d;
    hst_frc_result r;
    static float curve[MAX_SIDE];
    int huge = 0;
    size_t rows = fz_side(f, &huge), cols = fz_side(f, &huge);
    hst_result res;
    memset(&d, 0, sizeof d);
    d.pixel_size = fz_double(f);
    if (!huge && rows * cols > MAX_SIDE * MAX_SIDE) return;
    res = hst_frc(be, a, b, rows, cols, &d, curve, &r);
    if (!fz_known(res)) __builtin_trap();
    if (huge && res == HST_SUCCESS) __builtin_trap();
    if (res == HST_SUCCESS && r.resolution < 0.0) __builtin_trap();   /* NaN: undefined FRC */
}

static void fz_decorr(hst_backend *be, fz *f, const float *a)
{
    hst_decorr_desc d;
    hst_decorr_result r;
    int huge = 0, k;
    size_t rows = fz_side(f, &huge), cols = fz_side(f, &huge);
    hst_result res;
    memset(&d, 0, sizeof d);
    d.rmin = fz_u8(f) % 2 ? 0.0 : fz_double(f);
    d.rmax = fz_u8(f) % 2 ? 0.0 : fz_double(f);
    d.num_radii = fz_u8(f) % 2 ? 0u : (unsigned)fz_size(f, 140);
    d.num_highpass = fz_u8(f) % 2 ? 0u : (unsigned)fz_size(f, 140);
    d.pixel_size = fz_u8(f) % 2 ? 0.0 : fz_double(f);
    for (k = 0; k < 4; k++) d.roi[k] = fz_u8(f) % 4 ? 0 : fz_size(f, MAX_SIDE + 2);
    if (!huge && rows * cols > MAX_SIDE * MAX_SIDE) return;
    res = hst_decorr(be, a, rows, cols, &d, &r);
    if (!fz_known(res)) __builtin_trap();
    if (huge && res == HST_SUCCESS) __builtin_trap();
    if (d.num_highpass > HST_DECORR_MAX_NG && res == HST_SUCCESS) __builtin_trap();
    if (res == HST_SUCCESS && (!(r.resolution >= 0.0) || !(r.kc_max >= 0.0 && r.kc_max <= 1.0))) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static float a[MAX_SIDE * MAX_SIDE * 4], b[MAX_SIDE * MAX_SIDE * 4];
    fz f = {data, size};
    hst_backend *be = fz_host();
    unsigned which = fz_u8(&f) % 4;
    hst_decorr_result r;
    fz_image(&f, a, MAX_SIDE * MAX_SIDE);
    fz_image(&f, b, MAX_SIDE * MAX_SIDE);
    if (which == 0) fz_error_map(be, &f, a, b);
    else if (which == 1) fz_frc(be, &f, a, b);
    else if (which == 2) fz_decorr(be, &f, a);
    else {   /* interrupted: cancelled at once, whatever the arguments' fate */
        hst_result res;
        hst_backend_interrupt(be);
        res = hst_decorr(be, a, 16, 16, NULL, &r);
        hst_backend_interrupt_clear(be);
        if (res != HST_ERROR_CANCELLED && res != HST_ERROR_NON_FINITE) __builtin_trap();
    }
    return 0;
}
