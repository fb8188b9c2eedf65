/* tests/reliability/workload.h — small end-to-end workloads shared by the reliability programs
   (fault injection, soak, threads, Oclgrind): each creates what it needs on a given backend,
   runs it, copies the results out and frees everything on every path (success or error), so a
   caller can inject a failure anywhere and then check for leaks. Include after the halostream
   implementation (stream.h and halo.h). Every function returns the first error it met. */
#ifndef HST_TESTS_RELIABILITY_WORKLOAD_H
#define HST_TESTS_RELIABILITY_WORKLOAD_H

#include <stdint.h>
#include <string.h>

#include "array.h"   /* the workloads use hst_array_* */
#include "kernels_esrrf.h"   /* the eSRRF twins the esrrf workloads run as stage functions */
#include "../esrrf_twins.h"

#if defined(__GNUC__)
#  define WL_FN static __attribute__((unused))
#else
#  define WL_FN static
#endif

#define WL_TRY(expr) do { r = (expr); if (r != HST_SUCCESS) goto done; } while (0)

/* Deterministic test data. */
WL_FN void wl_fill_f32(float *x, size_t n, uint32_t seed)
{
    size_t i;
    uint32_t s = seed * 2654435761u + 1u;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)((int32_t)(s >> 8) % 2000) / 256.0f;
    }
}

/* The stream program's build options for a backend (kernels.h: bitwise with the host twins). */
WL_FN const char *wl_stream_options(hst_backend *be)
{
    const hst_device_info *info = hst_backend_device(be);
    if (hst_backend_is_host(be)) return "";
    if (info->fp64 && info->correctly_rounded_sqrt)
        return "-cl-fp32-correctly-rounded-divide-sqrt -DHST_FP64";
    if (info->fp64) return "-DHST_FP64";
    if (info->correctly_rounded_sqrt) return "-cl-fp32-correctly-rounded-divide-sqrt";
    return "";
}

/* ---- a stream: p = grad3(x), d = div3(p), acc = sum over slices of |d|^2 ------------------- */
typedef struct wl_stream_cfg {
    uint32_t N, H, W;
    uint64_t block;        /* owned slices per block; 0: the largest that fits */
} wl_stream_cfg;

#define WL_U32(p) (*(const uint32_t *)(p))
static hst_result wl_h_grad3(void *const *a, const void *const *s, const hst_stream_block *b,
                             void *u)
{
    (void)u;
    hst_k_grad3_host((const float *)a[0], (float *)a[1], WL_U32(s[0]), WL_U32(s[1]), b->base,
                     b->begin, b->end, b->total);
    return HST_SUCCESS;
}
static hst_result wl_h_div3(void *const *a, const void *const *s, const hst_stream_block *b,
                            void *u)
{
    (void)u;
    hst_k_div3_host((const float *)a[0], (float *)a[1], WL_U32(s[0]), WL_U32(s[1]), b->base,
                    b->begin, b->end, b->total);
    return HST_SUCCESS;
}

/* Keeps what the stages point at (scalars) alive for the stream's life. */
typedef struct wl_stream_ctx {
    hst_stream_array arr[3];
    hst_stream_stage st[2];
    hst_stream_acc acc;
    hst_stream_desc desc;
    uint32_t H, W;
} wl_stream_ctx;

/* Fills ctx and creates the stream (x: N*H*W floats in; p: N*H*W*3 out; d: N*H*W out). */
WL_FN hst_result wl_stream_create(hst_backend **be, unsigned nbe, const wl_stream_cfg *cfg,
                                  const float *x, float *p, float *d, wl_stream_ctx *c,
                                  hst_stream **out)
{
    static const int in0[1] = {0}, in1[1] = {1}, o1[1] = {1}, o2[1] = {2};
    size_t count, slice = (size_t)cfg->H * cfg->W;
    unsigned i;
    memset(c, 0, sizeof *c);
    c->H = cfg->H;
    c->W = cfg->W;
    c->arr[0].kind = HST_STREAM_INPUT;
    c->arr[0].host = (void *)(uintptr_t)x;
    c->arr[0].slice_bytes = slice * sizeof(float);
    c->arr[1].kind = HST_STREAM_OUTPUT;
    c->arr[1].host = p;
    c->arr[1].slice_bytes = 3 * slice * sizeof(float);
    c->arr[2].kind = HST_STREAM_OUTPUT;
    c->arr[2].host = d;
    c->arr[2].slice_bytes = slice * sizeof(float);
    for (i = 0; i < 2; i++) {
        hst_stream_stage *st = &c->st[i];
        st->name = i ? "div3" : "grad3";
        st->sources = hst_kernels_stream_source(&count);
        st->num_sources = count;
        st->options = wl_stream_options(be[0]);
        st->kernel = i ? "hst_k_div3" : "hst_k_grad3";
        st->host = i ? wl_h_div3 : wl_h_grad3;
        st->num_inputs = 1;
        st->inputs = i ? in1 : in0;
        st->num_outputs = 1;
        st->outputs = i ? o2 : o1;
        st->num_scalars = 2;
        st->scalars[0] = &c->H;
        st->scalar_bytes[0] = 4;
        st->scalars[1] = &c->W;
        st->scalar_bytes[1] = 4;
        st->items_per_slice = slice;
    }
    c->st[0].halo_hi = 1;   /* grad reads x[z+1] */
    c->st[1].halo_lo = 1;   /* div reads p[z-1] */
    c->acc.kind = HST_STREAM_SQSUM;
    c->acc.dtype = HST_F32;
    c->acc.a = 2;
    c->desc.backends = be;
    c->desc.num_backends = nbe;
    c->desc.num_slices = cfg->N;
    c->desc.arrays = c->arr;
    c->desc.num_arrays = 3;
    c->desc.stages = c->st;
    c->desc.num_stages = 2;
    c->desc.accumulators = &c->acc;
    c->desc.num_accumulators = 1;
    c->desc.block_slices = cfg->block;
    return hst_stream_create(&c->desc, out);
}

/* Create, run once, destroy. acc receives the accumulator's total. */
WL_FN hst_result wl_stream_once(hst_backend *be, const wl_stream_cfg *cfg, const float *x,
                                float *p, float *d, double *acc)
{
    wl_stream_ctx c;
    hst_stream *s = NULL;
    hst_stream_report rep;
    hst_result r;
    WL_TRY(wl_stream_create(&be, 1, cfg, x, p, d, &c, &s));
    WL_TRY(hst_stream_run(s, &rep));
    if (acc) *acc = rep.acc[0];
done:
    hst_stream_destroy(s);
    return r;
}

/* ---- a halo plan: one 3-D f32 scalar (all 8 boundaries, rotations 0..3) and one i32 vector
   pair (W and N, rotation 1: NEGATE_INT), packed, sent to itself, unpacked ----------------- */
#define WL_HALO_NQ 3
typedef struct wl_halo {
    hst_halo_layout lay[WL_HALO_NQ];
    hst_halo_spec specs[10];
    size_t num_specs, bytes[WL_HALO_NQ];
} wl_halo;

WL_FN hst_result wl_halo_init(wl_halo *h)
{
    size_t q, b;
    hst_result r = HST_SUCCESS;
    memset(h, 0, sizeof *h);
    for (q = 0; q < WL_HALO_NQ; q++) {
        hst_halo_layout *l = &h->lay[q];
        l->ndim = 3;
        l->elem_bytes = 4;
        l->number = q ? HST_HALO_INT : HST_HALO_FLOAT;
        l->n_halo = 2;
        l->dims[0] = HST_HALO_DIM_Z; l->dims[1] = HST_HALO_DIM_Y; l->dims[2] = HST_HALO_DIM_X;
        l->shape[0] = 3; l->extent[0] = 3;
        l->shape[1] = 6 + 4; l->origin[1] = 2; l->extent[1] = 6;
        l->shape[2] = 6 + 4; l->origin[2] = 2; l->extent[2] = 6;
        WL_TRY(hst_halo_layout_bytes(l, &h->bytes[q]));
    }
    for (b = 0; b < 8; b++)
        WL_TRY(hst_halo_spec_scalar(&h->lay[0], 0, (hst_halo_boundary)b, (unsigned)b % 4, b,
                                    &h->specs[h->num_specs++]));
    WL_TRY(hst_halo_spec_vector(&h->lay[1], 1, &h->lay[2], 2, HST_HALO_WEST, 1, 0,
                                &h->specs[h->num_specs++]));
    WL_TRY(hst_halo_spec_vector(&h->lay[1], 1, &h->lay[2], 2, HST_HALO_NORTH, 1, 2,
                                &h->specs[h->num_specs++]));
done:
    return r;
}

WL_FN hst_result wl_halo_plan(hst_backend *be, const wl_halo *h, hst_halo_plan **plan)
{
    hst_halo_plan_desc d;
    memset(&d, 0, sizeof d);
    d.num_quantities = WL_HALO_NQ;
    d.layouts = h->lay;
    d.num_specs = h->num_specs;
    d.specs = h->specs;
    d.num_peers = 8;
    return hst_halo_plan_create(be, &d, plan);
}

/* One cycle on device buffers: pack, copy every peer's segment to its own receive segment,
   unpack, wait. */
WL_FN hst_result wl_halo_cycle(hst_halo_plan *plan, hst_buffer *const *qs)
{
    hst_result r;
    size_t p;
    WL_TRY(hst_halo_pack(plan, NULL, WL_HALO_NQ, qs, 0, NULL, NULL));
    for (p = 0; p < hst_halo_plan_peers(plan); p++)
        WL_TRY(hst_halo_copy_peer(plan, p, plan, p, NULL, 0, NULL, NULL));
    WL_TRY(hst_halo_unpack(plan, NULL, WL_HALO_NQ, qs, 0, NULL, NULL));
    WL_TRY(hst_halo_plan_synchronize(plan));
done:
    return r;
}

/* Create buffers (from init[q]), a plan, run one cycle, read the quantities back into
   result[q] and the send buffer into send (stats.send_bytes; may be NULL), free all. */
WL_FN hst_result wl_halo_once(hst_backend *be, const wl_halo *h, void *const *init,
                              void *const *result, void *send, size_t send_cap)
{
    hst_buffer *qs[WL_HALO_NQ] = {NULL, NULL, NULL};
    hst_halo_plan *plan = NULL;
    hst_queue *q = hst_backend_queue(be);
    hst_result r;
    size_t i;
    for (i = 0; i < WL_HALO_NQ; i++) {
        WL_TRY(hst_buffer_create(be, h->bytes[i], 0, &qs[i]));
        WL_TRY(hst_write(q, qs[i], 0, init[i], h->bytes[i], 1, 0, NULL, NULL));
    }
    WL_TRY(wl_halo_plan(be, h, &plan));
    WL_TRY(wl_halo_cycle(plan, qs));
    for (i = 0; i < WL_HALO_NQ; i++)
        WL_TRY(hst_read(q, qs[i], 0, result[i], h->bytes[i], 1, 0, NULL, NULL));
    if (send) {
        size_t sb = hst_halo_plan_stats(plan).send_bytes;
        size_t p, off, len, at = 0;
        if (sb > send_cap) sb = send_cap;
        WL_TRY(hst_read(q, hst_halo_plan_send_buffer(plan), 0, send, sb, 1, 0, NULL, NULL));
        /* the padding between peers' segments is never written: zero it for comparisons */
        for (p = 0; p < hst_halo_plan_peers(plan); p++) {
            WL_TRY(hst_halo_plan_peer(plan, p, &off, &len, NULL, NULL));
            if (off > at && off <= sb) memset((unsigned char *)send + at, 0, off - at);
            at = off + len;
        }
        if (at < sb) memset((unsigned char *)send + at, 0, sb - at);
    }
done:
    hst_halo_plan_destroy(plan);
    for (i = 0; i < WL_HALO_NQ; i++) hst_buffer_destroy(qs[i]);
    return r;
}

/* ---- the array vocabulary: out[0..7] = sum, dot, sqnorm, min, max of f32 ops, then the
   sum of an f64 cast, the sum of an i32 cast; y (n floats) the final f32 array ------------- */
#define WL_ARRAY_OUTS 7
WL_FN hst_result wl_array_ops(hst_backend *be, const float *in, size_t n, double *out, float *y)
{
    hst_array *a = NULL, *b = NULL, *c = NULL, *e = NULL;
    hst_scalar s;
    hst_result r;
    const hst_device_info *info = hst_backend_device(be);
    int f64 = hst_backend_is_host(be) || info->fp64;
    WL_TRY(hst_array_create(be, HST_F32, 1, &n, &a));
    WL_TRY(hst_array_create(be, HST_F32, 1, &n, &b));
    WL_TRY(hst_array_create(be, f64 ? HST_F64 : HST_F32, 1, &n, &c));
    WL_TRY(hst_array_create(be, HST_I32, 1, &n, &e));
    WL_TRY(hst_array_write(a, in, n * sizeof(float)));
    WL_TRY(hst_array_random(b, HST_RANDOM_UNIFORM, 7, 0));
    WL_TRY(hst_array_axpy(b, hst_real(0.5), a));
    WL_TRY(hst_array_scale(b, hst_real(2.0)));
    WL_TRY(hst_array_math(b, b, HST_MATH_ABS, 0.0));
    WL_TRY(hst_array_sum(b, &s)); out[0] = s.re;
    WL_TRY(hst_array_dot(a, b, &s)); out[1] = s.re;
    WL_TRY(hst_array_sqnorm(b, &s)); out[2] = s.re;
    WL_TRY(hst_array_min(a, &s)); out[3] = s.re;
    WL_TRY(hst_array_max(a, &s)); out[4] = s.re;
    WL_TRY(hst_array_cast(c, b));
    WL_TRY(hst_array_sum(c, &s)); out[5] = s.re;
    WL_TRY(hst_array_cast(e, a));
    WL_TRY(hst_array_sum(e, &s)); out[6] = (double)s.i64;
    WL_TRY(hst_array_read(b, y, n * sizeof(float)));
done:
    hst_array_destroy(a);
    hst_array_destroy(b);
    hst_array_destroy(c);
    hst_array_destroy(e);
    return r;
}

/* ---- a program build and one launch of the vocabulary's scale kernel (OpenCL devices) ----- */
WL_FN hst_result wl_program(hst_backend *be, const float *in, size_t n, float *out)
{
    hst_program *prog = NULL;
    hst_kernel *k = NULL;
    hst_buffer *buf = NULL;
    hst_queue *q = hst_backend_queue(be);
    size_t count;
    const char *const *src = hst_kernels_vocab_source(&count);
    uint64_t n64 = n;
    float alpha = 3.0f;
    hst_result r;
    WL_TRY(hst_program_build(be, count, src, hst_kernels_vocab_options(HST_F32), &prog));
    WL_TRY(hst_kernel_create(prog, "hst_k_scale", &k));
    WL_TRY(hst_buffer_create(be, n * sizeof(float), 0, &buf));
    WL_TRY(hst_write(q, buf, 0, in, n * sizeof(float), 1, 0, NULL, NULL));
    WL_TRY(hst_kernel_set_buffer(k, 0, buf));
    WL_TRY(hst_kernel_set_arg(k, 1, sizeof n64, &n64));
    WL_TRY(hst_kernel_set_arg(k, 2, sizeof alpha, &alpha));
    WL_TRY(hst_launch(q, k, 1, &n, NULL, 0, NULL, NULL));
    WL_TRY(hst_read(q, buf, 0, out, n * sizeof(float), 1, 0, NULL, NULL));
done:
    hst_buffer_destroy(buf);
    hst_kernel_destroy(k);
    hst_program_release(prog);
    return r;
}

/* ---- eSRRF: the radial gradient convergence of every frame, chained (roberts -> magnify x2 ->
   rgc) or fused (rgc_fused), then the temporal sums of each group of WL_ESRRF_T frames into a
   GLOBAL accumulator; fixed small sizes, block 2 ------------------------------------------- */
#define WL_ESRRF_ROWS 6u
#define WL_ESRRF_COLS 5u
#define WL_ESRRF_MAG 2u
#define WL_ESRRF_T 3u            /* frames per time point */
#define WL_ESRRF_RADIUS 1.5f
#define WL_ESRRF_SENS 2.0f       /* sensitivity */
#define WL_ESRRF_IW 1            /* intensity weighting */
#define WL_ESRRF_PIXELS (WL_ESRRF_ROWS * WL_ESRRF_COLS)                  /* one input frame */
#define WL_ESRRF_MPIXELS (WL_ESRRF_PIXELS * WL_ESRRF_MAG * WL_ESRRF_MAG) /* one rgc frame */
/* Elements of the accumulator for N frames: 5 sums per magnified pixel per time point. */
#define WL_ESRRF_ACC_ELEMS(N) (((size_t)(N) + WL_ESRRF_T - 1) / WL_ESRRF_T * 5 * WL_ESRRF_MPIXELS)

/* Deterministic frames in [1, 8.4]: positive, as a microscope's are. */
WL_FN void wl_fill_frames(float *f, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) f[i] = 1.0f + (float)((i * 7919u) % 97u) / 13.0f;
}

/* The stages' scalars, alive for the stream's life. */
typedef struct wl_esrrf_par {
    uint32_t rows, cols, mag, one, two, P, T, row0, rowsM, colsM, rowsM2, colsM2;
    float magv[2], mag2v[2], zerov[2];   /* magnify's float2 magnifications and shifts */
    float radius, sens;
    int iw;
    et_temporal_par tpar;
} wl_esrrf_par;

/* One stage of the eSRRF program reading array in[0] and writing array out[0]. */
WL_FN void wl_esrrf_stage(hst_stream_stage *st, hst_backend *be, const char *kernel,
                           hst_stream_host_fn host, size_t items, const int *in, const int *out)
{
    size_t count;
    memset(st, 0, sizeof *st);
    st->name = kernel;
    st->sources = hst_kernels_esrrf_source(&count);
    st->num_sources = count;
    st->options = wl_stream_options(be);
    st->kernel = kernel;
    st->host = host;
    st->items_per_slice = items;
    st->num_inputs = 1;
    st->inputs = in;
    st->num_outputs = 1;
    st->outputs = out;
}

/* Appends a 4-byte scalar (a uint32, a float or an int). */
WL_FN void wl_esrrf_scalar(hst_stream_stage *st, const void *p)
{
    st->scalars[st->num_scalars] = p;
    st->scalar_bytes[st->num_scalars++] = 4;
}

/* Appends a float2 (magnify's magnifications and shifts). */
WL_FN void wl_esrrf_scalar2(hst_stream_stage *st, const float *p)
{
    st->scalars[st->num_scalars] = p;
    st->scalar_bytes[st->num_scalars++] = 2 * sizeof(float);
}

/* The stages from the frames (array 0) to the rgc image (array 4), chained through the
   temporaries 1 (gradients), 2 (magnified gradients) and 3 (magnified frames) or fused; returns
   how many. */
WL_FN unsigned wl_esrrf_rgc_stages(hst_stream_stage *st, hst_backend *be, int fused,
                                    const wl_esrrf_par *e)
{
    static const int a0[1] = {0}, a1[1] = {1}, a2[1] = {2}, a3[1] = {3}, a4[1] = {4};
    static const int a11[2] = {1, 1}, a223[3] = {2, 2, 3};
    size_t n = (size_t)e->rows * e->cols, nM = e->P;
    unsigned ns = 0;
    if (!fused) {
        /* the gradients: one interleaved array as grad_col and grad_row (gstep 2, groff 1) */
        wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_roberts", et_roberts, n, a0, a11);
        st[ns].num_outputs = 2;
        wl_esrrf_scalar(&st[ns], &e->rows); wl_esrrf_scalar(&st[ns], &e->cols);
        wl_esrrf_scalar(&st[ns], &e->two); wl_esrrf_scalar(&st[ns], &e->one); ns++;
        /* the two gradient channels, magnified */
        wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_magnify", et_magnify, 4 * nM, a1, a2);
        wl_esrrf_scalar(&st[ns], &e->rows); wl_esrrf_scalar(&st[ns], &e->cols);
        wl_esrrf_scalar(&st[ns], &e->rowsM2); wl_esrrf_scalar(&st[ns], &e->colsM2);
        wl_esrrf_scalar2(&st[ns], e->mag2v); wl_esrrf_scalar2(&st[ns], e->zerov); wl_esrrf_scalar(&st[ns], &e->two); ns++;
        /* the frames, magnified */
        wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_magnify", et_magnify, nM, a0, a3);
        wl_esrrf_scalar(&st[ns], &e->rows); wl_esrrf_scalar(&st[ns], &e->cols);
        wl_esrrf_scalar(&st[ns], &e->rowsM); wl_esrrf_scalar(&st[ns], &e->colsM);
        wl_esrrf_scalar2(&st[ns], e->magv); wl_esrrf_scalar2(&st[ns], e->zerov); wl_esrrf_scalar(&st[ns], &e->one); ns++;
        wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_rgc", et_rgc, nM, a223, a4);
        st[ns].num_inputs = 3;
    } else {
        wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_rgc_fused", et_rgc_fused, nM, a0, a4);
    }
    wl_esrrf_scalar(&st[ns], &e->rows); wl_esrrf_scalar(&st[ns], &e->cols);
    wl_esrrf_scalar(&st[ns], &e->mag); wl_esrrf_scalar(&st[ns], &e->radius);
    wl_esrrf_scalar(&st[ns], &e->sens); wl_esrrf_scalar(&st[ns], &e->iw);
    if (fused) { wl_esrrf_scalar(&st[ns], &e->row0); wl_esrrf_scalar(&st[ns], &e->rowsM); }
    else { wl_esrrf_scalar(&st[ns], &e->two); wl_esrrf_scalar(&st[ns], &e->one); }   /* gstep, groff */
    return ns + 1;
}

/* The arrays: 0 frames in, 1..3 the chained path's temporaries, 4 rgc out, 5 the accumulator. */
WL_FN void wl_esrrf_arrays(hst_stream_array *arr, const float *frames, uint32_t N, float *rgc,
                           void *acc, int fp64)
{
    size_t n = WL_ESRRF_PIXELS, nM = WL_ESRRF_MPIXELS;
    memset(arr, 0, 6 * sizeof *arr);
    arr[0].kind = HST_STREAM_INPUT;
    arr[0].host = (void *)(uintptr_t)frames;
    arr[0].slice_bytes = n * 4;
    arr[1].kind = HST_STREAM_TEMP;
    arr[1].slice_bytes = 2 * n * 4;
    arr[2].kind = HST_STREAM_TEMP;
    arr[2].slice_bytes = 8 * nM * 4;
    arr[3].kind = HST_STREAM_TEMP;
    arr[3].slice_bytes = nM * 4;
    arr[4].kind = HST_STREAM_OUTPUT;
    arr[4].host = rgc;
    arr[4].slice_bytes = nM * 4;
    arr[5].kind = HST_STREAM_GLOBAL;
    arr[5].host = acc;
    arr[5].dtype = fp64 ? HST_F64 : HST_F32;
    arr[5].global_bytes = WL_ESRRF_ACC_ELEMS(N) * (fp64 ? 8 : 4);
}

/* Create, run once, destroy: N frames (N * WL_ESRRF_PIXELS floats) in; rgc
   (N * WL_ESRRF_MPIXELS floats) and acc (WL_ESRRF_ACC_ELEMS(N) doubles, or floats where fp64
   is 0: the dtype the device's temporal kernel accumulates in) out. */
WL_FN hst_result wl_esrrf_once(hst_backend *be, int fused, const float *frames, uint32_t N,
                               float *rgc, void *acc, int fp64)
{
    static const int a4[1] = {4}, a5[1] = {5};
    wl_esrrf_par e;
    hst_stream_array arr[6];
    hst_stream_stage st[5];
    hst_stream_desc d;
    hst_stream *s = NULL;
    unsigned ns;
    hst_result r;
    e.rows = WL_ESRRF_ROWS; e.cols = WL_ESRRF_COLS; e.mag = WL_ESRRF_MAG;
    e.one = 1; e.two = 2; e.P = WL_ESRRF_MPIXELS; e.T = WL_ESRRF_T;
    e.colsM = WL_ESRRF_COLS * WL_ESRRF_MAG; e.rowsM2 = 2 * WL_ESRRF_ROWS * WL_ESRRF_MAG; e.colsM2 = 2 * e.colsM;
    e.magv[0] = e.magv[1] = (float)WL_ESRRF_MAG; e.mag2v[0] = e.mag2v[1] = (float)(2 * WL_ESRRF_MAG);
    e.zerov[0] = e.zerov[1] = 0.0f;
    e.row0 = 0; e.rowsM = WL_ESRRF_ROWS * WL_ESRRF_MAG;   /* the fused stage: whole frames */
    e.radius = WL_ESRRF_RADIUS; e.sens = WL_ESRRF_SENS; e.iw = WL_ESRRF_IW;
    wl_esrrf_arrays(arr, frames, N, rgc, acc, fp64);
    ns = wl_esrrf_rgc_stages(st, be, fused, &e);
    /* temporal reads the previous frame's rgc (the lag-1 sum: halo_lo 1) and adds each
       pixel's frames into the GLOBAL sums in order (loop_slices 1) */
    wl_esrrf_stage(&st[ns], be, "hst_k_esrrf_temporal", et_temporal, WL_ESRRF_MPIXELS, a4, a5);
    et_temporal_whole(&e.tpar, e.P, e.T, N);
    et_temporal_scalars(&st[ns], &e.tpar);
    st[ns].halo_lo = 1; st[ns].loop_slices = 1; ns++;
    memset(&d, 0, sizeof d);
    d.backends = &be; d.num_backends = 1; d.num_slices = N; d.arrays = arr; d.num_arrays = 6;
    d.stages = st; d.num_stages = ns; d.block_slices = 2;
    memset(acc, 0, arr[5].global_bytes);   /* the stream adds to the caller's contents */
    WL_TRY(hst_stream_create(&d, &s));
    WL_TRY(hst_stream_run(s, NULL));
done:
    hst_stream_destroy(s);
    return r;
}

#endif
