/* tests/fuzz/fuzz_nufft.c — nufft.h's argument checks and edges on the host device: fuzzed
   descs (type, dim, modes: zero, small, huge; eps: both ends of its range, NaN, Inf,
   subnormals; isign), points (count 0, small, huge; coordinates from the input's f32 bits:
   NaN, Inf, beyond [-3 pi, 3 pi], the range's ends) and execute's arrays (the right shapes,
   a wrong length, a wrong dtype, no points set). Properties:
   - every call returns a documented code; a refused create leaves *out NULL;
   - a plan runs only with the shapes it documents (a wrong one is HST_ERROR_SHAPE or DTYPE,
     before any element is touched) and without points set is refused (BAD_STATE);
   - a success on finite inputs gives finite outputs. */
#define HST_IMPLEMENTATION
#define HST_FFT
#include <math.h>
#include <stdlib.h>
#include "nufft.h"
#include "fuzz_common.h"

#define MAX_MODES 8
#define MAX_POINTS 16

static int fz_known(hst_result r)
{
    return r == HST_SUCCESS || r == HST_ERROR_INVALID_ARGUMENT || r == HST_ERROR_OVERFLOW ||
           r == HST_ERROR_NON_FINITE || r == HST_ERROR_SHAPE || r == HST_ERROR_DTYPE ||
           r == HST_ERROR_OUT_OF_HOST_MEMORY || r == HST_ERROR_OUT_OF_DEVICE_MEMORY;
}

static double fz_eps(fz *f)
{
    static const double edge[12] = {0.0, 1e-6, 1e-1, 9.9e-7, 0.11, 1e-320, -1e-3, 1e-3, 1.0, 5e-4, 1e-6, 1e-2};
    unsigned t = fz_u8(f);
    if (t < 12) return edge[t];
    if (t == 12) return NAN;
    if (t == 13) return INFINITY;
    return 1e-6 * pow(10.0, (double)(t % 6));
}

/* A coordinate: the range's ends, beyond them, or f32 bits from the input. */
static float fz_coord(fz *f)
{
    static const float edge[8] = {0.0f, -3.14159265f, 3.14159265f, -9.42477796f, 9.42477796f, 9.43f, -1e30f, 1e-40f};
    unsigned t = fz_u8(f);
    if (t < 8) return edge[t];
    if (t == 8) { uint32_t v = fz_u16(f) | ((uint32_t)fz_u16(f) << 16); float x; memcpy(&x, &v, 4); return x; }
    return (float)((double)t / 255.0 * 6.283185307 - 3.14159265);
}

static int fz_finite(const hst_array *a, size_t n)
{
    static float buf[2 * MAX_MODES * MAX_MODES * MAX_MODES];
    size_t i;
    if (hst_array_read(a, buf, n * 2 * sizeof(float)) != HST_SUCCESS) return 0;
    for (i = 0; i < 2 * n; i++)
        if (!isfinite(buf[i])) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static float xs[3][MAX_POINTS];
    fz f = {data, size};
    hst_backend *be = fz_host();
    hst_nufft_desc d;
    hst_nufft_plan *plan = (hst_nufft_plan *)&d;   /* must come back NULL on a refusal */
    hst_array *c = NULL, *m = NULL;
    const float *coords[3];
    size_t k, nm = 1, npts, cshape, mshape[3];
    unsigned j, dt;
    int small = 1, finite = 1, have_points = 0;
    hst_result r;
    memset(&d, 0, sizeof d);
    d.type = (int)(fz_u8(&f) % 4);
    d.dim = fz_u8(&f) % 5;
    for (j = 0; j < 3; j++) {
        d.modes[j] = fz_size(&f, MAX_MODES);
        if (d.modes[j] > MAX_MODES) small = 0;
    }
    d.eps = fz_eps(&f);
    d.isign = (int)(fz_u8(&f) % 5) - 2;
    r = hst_nufft_plan_create(be, &d, &plan);
    if (!fz_known(r)) __builtin_trap();
    if (r != HST_SUCCESS) {
        if (plan) __builtin_trap();
        return 0;
    }
    if (!small) { hst_nufft_plan_destroy(plan); return 0; }   /* valid, but too large to run here */
    npts = fz_size(&f, MAX_POINTS);
    for (j = 0; j < 3; j++) {
        for (k = 0; k < MAX_POINTS; k++) {
            xs[j][k] = fz_coord(&f);
            if (k < npts && j < d.dim && !isfinite(xs[j][k])) finite = 0;
        }
        coords[j] = xs[j];
    }
    if (fz_u8(&f) % 4) {   /* now and then no points: execute must refuse */
        r = hst_nufft_set_points(plan, npts <= MAX_POINTS ? npts : (size_t)-1, coords);
        if (!fz_known(r)) __builtin_trap();
        if (npts > MAX_POINTS && r == HST_SUCCESS) __builtin_trap();
        if (!finite && r == HST_SUCCESS) __builtin_trap();
        have_points = r == HST_SUCCESS;
    }
    for (j = 0; j < d.dim; j++) { mshape[j] = d.modes[j]; nm *= d.modes[j]; }
    cshape = have_points ? npts : 1;
    if (fz_u8(&f) % 4 == 0) cshape += 1;   /* a wrong length */
    dt = fz_u8(&f) % 4 == 0 ? HST_F32 : HST_C64;
    if (hst_array_create(be, (hst_dtype)dt, 1, &cshape, &c) != HST_SUCCESS ||
        hst_array_create(be, HST_C64, d.dim, mshape, &m) != HST_SUCCESS)
        __builtin_trap();
    if (hst_array_fill(c, hst_complex(1.0, -0.5)) != HST_SUCCESS || hst_array_fill(m, hst_complex(0.25, 2.0)) != HST_SUCCESS)
        __builtin_trap();
    r = hst_nufft_execute(plan, c, m);
    if (!fz_known(r)) __builtin_trap();
    if (r == HST_SUCCESS && (!have_points || cshape != npts || dt != HST_C64)) __builtin_trap();
    if (r == HST_SUCCESS && !(d.type == 1 ? fz_finite(m, nm) : fz_finite(c, npts))) __builtin_trap();
    hst_array_destroy(c);
    hst_array_destroy(m);
    hst_nufft_plan_destroy(plan);
    return 0;
}
