/* tests/esrrf_twins.h — kernels.h's eSRRF host twins as stream.h stage functions
   (hst_stream_host_fn), with the scalars in the order the OpenCL kernels take them. Shared by
   tests/test_esrrf.c and tests/reliability/workload.h. Include after stream.h and kernels.h. */
#ifndef HST_TESTS_ESRRF_TWINS_H
#define HST_TESTS_ESRRF_TWINS_H

#include <stdint.h>

#if defined(__GNUC__)
#  define ET_FN static __attribute__((unused))
#else
#  define ET_FN static
#endif

#define ET_U32(p) (*(const uint32_t *)(p))
#define ET_F32(p) (*(const float *)(p))
#define ET_I32(p) (*(const int *)(p))

/* scalars: rows, cols */
ET_FN hst_result et_roberts(void *const *a, const void *const *s, const hst_stream_block *b,
                             void *u)
{
    (void)u;
    hst_k_esrrf_roberts_host((const float *)a[0], (float *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                             b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: rows, cols, mag, channels */
ET_FN hst_result et_magnify(void *const *a, const void *const *s, const hst_stream_block *b,
                             void *u)
{
    (void)u;
    hst_k_esrrf_magnify_host((const float *)a[0], (float *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                             ET_U32(s[2]), ET_U32(s[3]), b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: rows, cols, mag, radius, sensitivity, intensity weighting */
ET_FN hst_result et_rgc(void *const *a, const void *const *s, const hst_stream_block *b,
                         void *u)
{
    (void)u;
    hst_k_esrrf_rgc_host((const float *)a[0], (const float *)a[1], (float *)a[2], ET_U32(s[0]),
                         ET_U32(s[1]), ET_U32(s[2]), ET_F32(s[3]), ET_F32(s[4]), ET_I32(s[5]),
                         b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: as et_rgc */
ET_FN hst_result et_rgc_fused(void *const *a, const void *const *s, const hst_stream_block *b,
                               void *u)
{
    (void)u;
    hst_k_esrrf_rgc_fused_host((const float *)a[0], (float *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                               ET_U32(s[2]), ET_F32(s[3]), ET_F32(s[4]), ET_I32(s[5]), b->base,
                               b->begin, b->end, b->total);
    return HST_SUCCESS;
}
/* scalars: pixels, frames per time point; the sums in double */
ET_FN hst_result et_temporal(void *const *a, const void *const *s, const hst_stream_block *b,
                              void *u)
{
    (void)u;
    hst_k_esrrf_temporal_host((const float *)a[0], (double *)a[1], ET_U32(s[0]), ET_U32(s[1]),
                              b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}

#endif
