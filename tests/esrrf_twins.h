/* tests/esrrf_twins.h — kernels_esrrf.h's eSRRF host twins as stream.h stage functions
   (hst_stream_host_fn), with the scalars in the order the OpenCL kernels take them, and the
   macro-pixel correction's reference. Shared by tests/test_esrrf.c, tests/test_esrrf_api.c and
   tests/reliability/workload.h. Include after stream.h and kernels_esrrf.h. */
#ifndef HST_TESTS_ESRRF_TWINS_H
#define HST_TESTS_ESRRF_TWINS_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#  define ET_FN static __attribute__((unused))
#else
#  define ET_FN static
#endif

#define ET_U32(p) (*(const uint32_t *)(p))
#define ET_F32(p) (*(const float *)(p))
#define ET_I32(p) (*(const int *)(p))
#define ET_U64(p) (*(const uint64_t *)(p))

/* The temporal kernel's scalars, in its order; a whole stack from frame 0 as one stream:
   et_temporal_whole fills them (frames per time point T, 0: all; N frames). */
typedef struct et_temporal_par {
    uint32_t pixels;
    uint64_t frames_per_tp;
    uint32_t acc_tps;
    uint64_t frame0;
    uint32_t skip;
    uint64_t frames_total;
} et_temporal_par;

/* The macro-pixel correction as esrrf.h defines it (its ">>macro-pixel correction"), the
   tests' reference for the library's threaded one: one rowsM x colsM image in place (rowsM and
   colsM multiples of mag, 1 <= mag <= 32). */
ET_FN void et_macro_pixel(float *img, uint32_t rowsM, uint32_t colsM, uint32_t mag)
{
    double c[32 * 32];
    size_t y, x, rows, cols;
    if (!img || mag == 0 || mag > 32) return;
    rows = rowsM / mag;
    cols = colsM / mag;
    memset(c, 0, sizeof c);
    /* one row-major sweep: each phase (y % mag, x % mag) still sums its macro-pixels in row
       order, as the definition does, while the image is read once and in order */
    for (y = 0; y < rows * mag; ++y)
        for (x = 0; x < cols * mag; ++x) c[(y % mag) * mag + x % mag] += (double)img[y * colsM + x];
    for (y = 0; y < (size_t)mag * mag; ++y) c[y] /= (double)(rows * cols);
    for (y = 0; y < rows * mag; ++y)
        for (x = 0; x < cols * mag; ++x) {
            double m = c[(y % mag) * mag + x % mag];
            float *p = &img[y * colsM + x];
            if (m != 0.0) *p = (float)((double)*p / m);
        }
}

ET_FN void et_temporal_whole(et_temporal_par *t, uint32_t pixels, uint64_t T, uint64_t N)
{
    t->pixels = pixels;
    t->frames_per_tp = T;
    t->acc_tps = (uint32_t)(T ? (N + T - 1) / T : 1);
    t->frame0 = 0;
    t->skip = 0;
    t->frames_total = N;
}

/* Adds the six scalars to a temporal stage. */
ET_FN void et_temporal_scalars(hst_stream_stage *st, const et_temporal_par *t)
{
    const void *p[6];
    size_t b[6], k;
    p[0] = &t->pixels; b[0] = 4; p[1] = &t->frames_per_tp; b[1] = 8; p[2] = &t->acc_tps; b[2] = 4;
    p[3] = &t->frame0; b[3] = 8; p[4] = &t->skip; b[4] = 4; p[5] = &t->frames_total; b[5] = 8;
    for (k = 0; k < 6; k++) {
        st->scalars[st->num_scalars] = p[k];
        st->scalar_bytes[st->num_scalars++] = b[k];
    }
}

/* arrays: frames; grad_col, grad_row (one interleaved array bound twice: gstep 2, groff 1);
   scalars: rows, cols, gstep, groff */
ET_FN hst_result et_roberts(void *const *a, const void *const *s, const hst_stream_block *b,
                             void *u)
{
    (void)u;
    hst_k_esrrf_roberts_host((const float *)a[0], (float *)a[1], (float *)a[2], ET_U32(s[0]),
                             ET_U32(s[1]), ET_U32(s[2]), ET_U32(s[3]), b->base, b->begin, b->end,
                             b->total);
    return HST_SUCCESS;
}
/* scalars: rows, cols, rowsM, colsM, float2 mag (rows, cols), float2 shift, channels */
ET_FN hst_result et_magnify(void *const *a, const void *const *s, const hst_stream_block *b,
                             void *u)
{
    float m[2], sh[2];
    (void)u;
    memcpy(m, s[4], sizeof m);
    memcpy(sh, s[5], sizeof sh);
    hst_k_esrrf_magnify_host((const float *)a[0], (float *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                             ET_U32(s[2]), ET_U32(s[3]), m[0], m[1], sh[0], sh[1], ET_U32(s[6]),
                             b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* arrays: grad_col, grad_row (grad2 bound twice: gstep 2, groff 1), magnified; rgc;
   scalars: rows, cols, mag, radius, sensitivity, intensity weighting, gstep, groff */
ET_FN hst_result et_rgc(void *const *a, const void *const *s, const hst_stream_block *b,
                         void *u)
{
    (void)u;
    hst_k_esrrf_rgc_host((const float *)a[0], (const float *)a[1], (const float *)a[2],
                         (float *)a[3], ET_U32(s[0]), ET_U32(s[1]), ET_U32(s[2]), ET_F32(s[3]),
                         ET_F32(s[4]), ET_I32(s[5]), ET_U32(s[6]), ET_U32(s[7]), b->base,
                         b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: as et_rgc, then row0, nrows */
ET_FN hst_result et_rgc_fused(void *const *a, const void *const *s, const hst_stream_block *b,
                               void *u)
{
    (void)u;
    hst_k_esrrf_rgc_fused_window_host((const float *)a[0], (float *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                                      ET_U32(s[2]), ET_F32(s[3]), ET_F32(s[4]), ET_I32(s[5]),
                                      ET_U32(s[6]), ET_U32(s[7]), b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: et_temporal_par's; the sums in double */
ET_FN hst_result et_temporal(void *const *a, const void *const *s, const hst_stream_block *b,
                              void *u)
{
    (void)u;
    hst_k_esrrf_temporal_host((const float *)a[0], (double *)a[1], ET_U32(s[0]), ET_U64(s[1]),
                              ET_U32(s[2]), ET_U64(s[3]), ET_U32(s[4]), ET_U64(s[5]), 0,
                              ET_U32(s[0]), b->base, b->begin, b->end, 1);
    return HST_SUCCESS;
}

#endif
