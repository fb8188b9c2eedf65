/* tests/fuzz/fuzz_esrrf.c — esrrf.h's argument checks and edges on the host device: fuzzed
   descs (magnification, radius, sensitivity, modes, path, frames per time point, block), dtypes
   and shapes (zero and huge frames, rows, cols) and samples (f32 bits from the input: NaN, Inf,
   values near FLT_MAX). Properties:
   - hst_esrrf_run and hst_esrrf_output_shape agree; a refused shape is refused before the stack
     or out is touched (both are one float long then: a read or write is an ASan report);
   - zero frames, rows or cols is HST_ERROR_INVALID_ARGUMENT, always;
   - a success gives finite images only (finite input, finite output, or an error);
   - the live API on the same frames: a push of 0 frames is refused, and after finish (or a
     failure) every push and finish is INVALID_ARGUMENT; the backend is held meanwhile. */
#define HST_IMPLEMENTATION
#include <math.h>
#include <stdlib.h>
#include "esrrf.h"
#include "fuzz_common.h"

#define MAX_SIDE 8
#define MAX_FRAMES 8

static void fz_on_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    size_t i;
    unsigned m;
    (void)tp; (void)user;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        for (i = 0; images[m] && i < (size_t)rm * cm; i++)
            if (!isfinite(images[m][i])) __builtin_trap();   /* a non-finite image delivered */
}

static int fz_known(hst_result r)
{
    return r == HST_SUCCESS || r == HST_ERROR_INVALID_ARGUMENT || r == HST_ERROR_OVERFLOW ||
           r == HST_ERROR_NON_FINITE || r == HST_ERROR_OUT_OF_HOST_MEMORY || r == HST_ERROR_OUT_OF_DEVICE_MEMORY;
}

/* A side of 0 .. MAX_SIDE, now and then huge (the overflow checks). */
static uint32_t fz_side(fz *f)
{
    size_t v = fz_size(f, MAX_SIDE);
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The live session on the frames: states and holds (the batch call's checks came first). */
static void fz_live(const hst_esrrf_desc *d, hst_esrrf_dtype dt, const void *stack, uint64_t frames,
                    uint32_t rows, uint32_t cols, size_t frame_bytes, unsigned step)
{
    hst_esrrf_desc ld = *d;
    hst_esrrf_live *lv = NULL;
    hst_backend *be = d->backends[0];
    hst_result r = HST_SUCCESS;
    uint64_t f;
    ld.on_timepoint = fz_on_tp;
    if (hst_esrrf_live_create(&ld, dt, rows, cols, &lv) != HST_SUCCESS) {
        if (lv || hst_backend_holds(be) != 0) __builtin_trap();
        return;
    }
    if (hst_backend_destroy(be) != HST_ERROR_INVALID_ARGUMENT) __builtin_trap();   /* held */
    if (hst_esrrf_live_push(lv, stack, 0, rows, cols) != HST_ERROR_INVALID_ARGUMENT) __builtin_trap();
    for (f = 0; f < frames && r == HST_SUCCESS; f += step) {
        uint64_t k = frames - f < step ? frames - f : step;
        r = hst_esrrf_live_push(lv, (const unsigned char *)stack + f * frame_bytes, k, rows, cols);
    }
    if (r == HST_SUCCESS) r = hst_esrrf_live_finish(lv, NULL);
    if (!fz_known(r)) __builtin_trap();
    if (hst_esrrf_live_finish(lv, NULL) != HST_ERROR_INVALID_ARGUMENT ||
        hst_esrrf_live_push(lv, stack, 1, rows, cols) != HST_ERROR_INVALID_ARGUMENT)
        __builtin_trap();   /* FINISHED or FAILED: only destroy remains */
    hst_esrrf_live_destroy(lv);
    if (hst_backend_holds(be) != 0) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t dsize[6] = { 0, 1, 2, 2, 4, 0 };
    static float one[1];
    fz f = {data, size};
    hst_backend *be = fz_host();
    hst_esrrf_desc d;
    hst_esrrf_dtype dt;
    float *out[HST_ESRRF_NUM_MODES] = {NULL, NULL, NULL}, *tiny[HST_ESRRF_NUM_MODES] = {one, one, one};
    unsigned char *stack = NULL;
    uint64_t frames, ntp = 0;
    uint32_t rows, cols, rm = 0, cm = 0;
    size_t n = 0, i, px;
    unsigned m, step;
    hst_result shape, r;
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = fz_u8(&f) % 6;
    d.radius = (float)(fz_u8(&f) % 48) * 0.5f - 1.0f;   /* -1 .. 22.5: both sides of the range */
    if (d.radius > 22.0f) d.radius = NAN;
    d.sensitivity = (float)(fz_u8(&f) % 8);
    d.modes = fz_u8(&f) % 16;
    d.path = (hst_esrrf_path)(fz_u8(&f) % 4);
    d.frames_per_timepoint = fz_u8(&f) % 6;
    d.block_frames = fz_u8(&f) % 4;
    d.no_macro_pixel_correction = fz_u8(&f) & 1;
    dt = (hst_esrrf_dtype)(fz_u8(&f) % 6);
    step = 1 + fz_u8(&f) % 4;
    frames = fz_size(&f, MAX_FRAMES);
    rows = fz_side(&f);
    cols = fz_side(&f);
    shape = hst_esrrf_output_shape(&d, frames, rows, cols, &ntp, &rm, &cm);
    /* no frame, row or column: never a result; INVALID_ARGUMENT unless another size overflows */
    if ((frames == 0 || rows == 0 || cols == 0) &&
        (shape == HST_SUCCESS || (rows <= MAX_SIDE && cols <= MAX_SIDE && shape != HST_ERROR_INVALID_ARGUMENT)))
        __builtin_trap();
    if (shape == HST_SUCCESS && dsize[dt] &&
        (frames > MAX_FRAMES || (uint64_t)rows * cols > (uint64_t)MAX_SIDE * MAX_SIDE))
        return 0;   /* a valid job too large to run here */
    if (shape != HST_SUCCESS || dsize[dt] == 0) {
        /* refused (or a dtype output_shape does not see): run refuses before touching memory */
        r = hst_esrrf_run(&d, one, dt, frames, rows, cols, tiny, NULL);
        if (r == HST_SUCCESS || !fz_known(r)) __builtin_trap();
        if (shape != HST_SUCCESS && dsize[dt] && r != shape) __builtin_trap();   /* the same checks */
        return 0;
    }
    n = (size_t)frames * rows * cols * dsize[dt];
    px = (size_t)ntp * rm * cm;
    if (!(stack = (unsigned char *)calloc(n, 1))) return 0;
    for (i = 0; i < n; i++) stack[i] = (unsigned char)fz_u8(&f);   /* f32: any bits, NaN and Inf too */
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (!(out[m] = (float *)malloc(px * sizeof(float)))) goto done;
    r = hst_esrrf_run(&d, stack, dt, frames, rows, cols, out, NULL);
    if (!fz_known(r)) __builtin_trap();
    for (m = 0; r == HST_SUCCESS && m < HST_ESRRF_NUM_MODES; m++)
        for (i = 0; ((d.modes ? d.modes : HST_ESRRF_AVG) & (1u << m)) && i < px; i++)
            if (!isfinite(out[m][i])) __builtin_trap();   /* success means finite images */
    fz_live(&d, dt, stack, frames, rows, cols, (size_t)rows * cols * dsize[dt], step);
done:
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    free(stack);
    return 0;
}
