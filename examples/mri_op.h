/* mri_op.h — PyQMRI's Cartesian multi-coil MRI operator, streamed through stream.h; shared by
   examples/mri_cartesian.c and tests/test_mri.c (static functions: include it in the one C file
   that defines HST_IMPLEMENTATION, after defining HST_FFT there: the operator's FFTs are
   array.h's, and without HST_FFT mri_forward / mri_adjoint return HST_ERROR_NOT_BUILT_IN).

   The operator, per slice z (slice-major arrays, C order, complex64 as (re, im) float pairs):
     forward  A:   y[z, c] = M .* F (S[z, c] .* x[z])             for c = 0 .. C-1
     adjoint  A^H: x[z]    = sum_c conj(S[z, c]) .* F^-1 (M .* y[z, c])
   x (N, ny, nx) c64, S the coil sensitivities (N, C, ny, nx) c64, y k-space (N, C, ny, nx) c64,
   M the sampling mask (ny, nx) f32 (0 or 1, the same for every slice), F the orthonormal 2-D DFT
   (numpy.fft.fft2(norm="ortho")) and F^-1 its inverse (= F^H). k-space is in the DFT's own
   order, with no fftshift: row r holds frequency r for r < ny/2 and r - ny above, as numpy's
   fft2 gives it (the mask is made in that order too). PyQMRI shifts its data so that its FFTs
   see this order; nothing else differs. With sum_c |S_c|^2 <= 1 and M in {0, 1}, ||A|| <= 1.
   Any ny and nx up to MRI_MAX_LENGTH (FFTW and VkFFT transform every length).

   How the 2-D FFT runs inside a stream: it is the library's FFT, array.h's hst_array_fft
   (FFTW on the host device, VkFFT on OpenCL devices), called by a stage that is a call rather
   than a kernel (hst_stream_stage.arrays_fn): for each block it views the block's coil images
   in the device buffer as one (slices * C, ny, nx) c64 array (hst_array_view) and transforms
   its last two axes in place with norm "ortho", on the device's default queue, ordered with the
   stream's kernels by events (stream.h, hst_stream_array_fn). The element-wise parts stay
   kernels (FP_CONTRACT OFF; the host twins do the same IEEE operations in the same order).
   Both libraries give the same bits for a transform whatever the batch it is part of (FFTW's
   plans and VkFFT's kernels for one length do not change with the batch count: tests/test_mri.c
   asserts it for blocks of 1, 2, N slices and a budget's block), so the streamed result is the
   unstreamed one bit for bit; the host device and an OpenCL device differ by the two
   libraries' rounding (within test_mri.c's REF_TOL). mri_reference_forward/_adjoint compute
   the same operator on whole arrays with the array vocabulary and one hst_array_fft call.

   Streams, per call of mri_forward / mri_adjoint (arrays by index):
     forward  in x, coils; [ref y]       kernel coil:  t = S .* x              (t: TEMP)
                                         call fft:     t = F(t)                (in place)
                                         kernel mask:  y = M .* t
     adjoint  in y, coils; [ref x]       kernel mask:  t = M .* y              (t: TEMP)
                                         call ifft:    t = F^-1(t)             (in place)
                                         kernel coil:  x = sum_c conj(S_c) .* t_c, c in order
   and the accumulators of PyQMRI's evalwithnorm: SQSUM of the input and of the output, and
   DIFF2 |out - ref|^2 when a ref array is given (the line search's ||A x - y||^2). */
#ifndef MRI_OP_H
#define MRI_OP_H

#include "array.h"
#include "stream.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define MRI_FN static __attribute__((unused))
#else
#  define MRI_FN static
#endif

#define MRI_PI 3.14159265358979323846
#define MRI_MAX_LENGTH 65536u     /* ny, nx: 1 .. this */
#define MRI_MAX_COILS 1024u

typedef struct mri_dims {
    uint64_t slices;           /* N */
    uint32_t coils, ny, nx;    /* C, rows, columns */
} mri_dims;

typedef struct mri_op {
    hst_backend *be;
    mri_dims d;
    uint64_t budget_bytes;     /* stream budget (hst_stream_desc.budget_bytes; 0: its default) */
    uint64_t block_slices;     /* owned slices per block (0: the stream chooses) */
    float *mask;               /* (ny, nx), a copy of the caller's */
    uint32_t nc, plane;        /* the kernels' scalars: C, ny nx */
} mri_op;

/* What one streamed application gives besides its output. */
typedef struct mri_norms {
    double in_sq;              /* ||in||^2 */
    double out_sq;             /* ||out||^2 */
    double diff_sq;            /* ||out - ref||^2 (0 without ref) */
    uint64_t block_slices, num_blocks;
    double seconds;            /* the run, without the stream's setup */
} mri_norms;

/* ------------------------------------------------------------------------------------------
   Kernels (stream.h's convention: inputs, outputs, scalars uint nc, uint plane (ny nx), then
   the block arguments), one work-item per element of a slice. */
static const char *const mri_cl_source[] = {
"#pragma OPENCL FP_CONTRACT OFF\n"
"#define MRI_ARGS uint nc, uint plane, ulong base, ulong begin, ulong end, ulong total, int flags\n"
"/* item e = c plane + p: t = S .* x */\n"
"__kernel void mri_fwd_coil(__global const float2 *x, __global const float2 *coils, __global float2 *t, MRI_ARGS)\n"
"{\n"
"    ulong e = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (e >= (ulong)nc * plane || z >= end) return;\n"
"    ulong i = z * nc * plane + e;\n"
"    float2 a = coils[i], b = x[z * plane + e % plane];\n"
"    float re = a.x * b.x - a.y * b.y, im = a.x * b.y + a.y * b.x;\n"
"    t[i] = (float2)(re, im);\n"
"}\n"
"/* item e = c plane + p: out = M .* in (the forward's y from t, the adjoint's t from y) */\n"
"__kernel void mri_mask(__global const float2 *in, __global const float *mask, __global float2 *out, MRI_ARGS)\n"
"{\n"
"    ulong e = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (e >= (ulong)nc * plane || z >= end) return;\n"
"    ulong i = z * nc * plane + e;\n"
"    float m = mask[e % plane];\n"
"    float2 v = in[i];\n"
"    out[i] = (float2)(v.x * m, v.y * m);\n"
"}\n"
"/* item p < plane: x = sum_c conj(S_c) .* t_c, in coil order */\n"
"__kernel void mri_adj_coil(__global const float2 *t, __global const float2 *coils, __global float2 *x, MRI_ARGS)\n"
"{\n"
"    ulong p = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (p >= plane || z >= end) return;\n"
"    float re = 0.0f, im = 0.0f;\n"
"    for (uint c = 0; c < nc; c++) {\n"
"        ulong i = (z * nc + c) * plane + p;\n"
"        float2 a = coils[i], b = t[i];\n"
"        float pr = a.x * b.x + a.y * b.y, pi = a.x * b.y - a.y * b.x;\n"
"        if (c == 0) { re = pr; im = pi; } else { re = re + pr; im = im + pi; }\n"
"    }\n"
"    x[z * plane + p] = (float2)(re, im);\n"
"}\n"
};

/* ------------------------------------------------------------------------------------------
   Host twins: the kernels' operations in the same order (one IEEE operation per step; C99
   compilers do not contract a*b+c across statements, and GCC in ISO mode not at all). */
static uint32_t mri__u32(const void *const *s, unsigned k) { return *(const uint32_t *)s[k]; }

static hst_result mri__fwd_coil_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *x = (const float *)arr[0], *coils = (const float *)arr[1];
    float *t = (float *)arr[2];
    uint32_t nc = mri__u32(s, 0), plane = mri__u32(s, 1);
    uint64_t z;
    size_t e;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (e = 0; e < (size_t)nc * plane; e++) {
            size_t i = (size_t)z * nc * plane + e, j = (size_t)z * plane + e % plane;
            float ar = coils[2 * i], ai = coils[2 * i + 1], br = x[2 * j], bi = x[2 * j + 1];
            float p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br;
            t[2 * i] = p1 - p2;
            t[2 * i + 1] = p3 + p4;
        }
    return HST_SUCCESS;
}

static hst_result mri__mask_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *in = (const float *)arr[0], *mask = (const float *)arr[1];
    float *out = (float *)arr[2];
    uint32_t nc = mri__u32(s, 0), plane = mri__u32(s, 1);
    uint64_t z;
    size_t e;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (e = 0; e < (size_t)nc * plane; e++) {
            size_t i = (size_t)z * nc * plane + e;
            float m = mask[e % plane];
            out[2 * i] = in[2 * i] * m;
            out[2 * i + 1] = in[2 * i + 1] * m;
        }
    return HST_SUCCESS;
}

static hst_result mri__adj_coil_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *t = (const float *)arr[0], *coils = (const float *)arr[1];
    float *x = (float *)arr[2];
    uint32_t nc = mri__u32(s, 0), plane = mri__u32(s, 1), c;
    uint64_t z;
    size_t p;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (p = 0; p < plane; p++) {
            float re = 0.0f, im = 0.0f;
            for (c = 0; c < nc; c++) {
                size_t i = ((size_t)z * nc + c) * plane + p;
                float ar = coils[2 * i], ai = coils[2 * i + 1], br = t[2 * i], bi = t[2 * i + 1];
                float p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br;
                float pr = p1 + p2, pi = p3 - p4;
                if (c == 0) { re = pr; im = pi; } else { re = re + pr; im = im + pi; }
            }
            x[2 * ((size_t)z * plane + p)] = re;
            x[2 * ((size_t)z * plane + p) + 1] = im;
        }
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------------------------------
   The FFT stage (a call: hst_stream_array_fn): the block's slices [begin, end) of t, one
   (slices * C, ny, nx) c64 view, transformed in place over its last two axes. Binding 0 and 1
   are both t (read and written). */
static hst_result mri__fft_call(hst_backend *be, const hst_stream_binding *arr, unsigned n,
                                const void *const *scalars, const hst_stream_block *blk,
                                void *user, int inverse)
{
    const mri_op *op = (const mri_op *)user;
    hst_array *v = NULL;
    size_t shape[3];
    hst_result r;
    (void)be; (void)scalars;
    if (n != 2 || blk->end <= blk->begin) return HST_SUCCESS;
    shape[0] = (size_t)(blk->end - blk->begin) * op->nc;
    shape[1] = op->d.ny;
    shape[2] = op->d.nx;
    r = hst_array_view(arr[1].buffer, arr[1].offset_bytes + (size_t)blk->begin * arr[1].slice_bytes,
                       HST_C64, 3, shape, &v);
    if (r == HST_SUCCESS) r = hst_array_fft(v, v, 2, inverse, HST_FFT_NORM_ORTHO);
    hst_array_destroy(v);
    return r;
}

static hst_result mri__fft_fwd(hst_backend *be, const hst_stream_binding *arr, unsigned n,
                               const void *const *scalars, const hst_stream_block *blk, void *user)
{
    return mri__fft_call(be, arr, n, scalars, blk, user, 0);
}

static hst_result mri__fft_inv(hst_backend *be, const hst_stream_binding *arr, unsigned n,
                               const void *const *scalars, const hst_stream_block *blk, void *user)
{
    return mri__fft_call(be, arr, n, scalars, blk, user, 1);
}

/* ------------------------------------------------------------------------------------------
   The operator object. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static hst_result mri__bad(const hst_backend *be, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hst_backend_log(be, HST_LOG_ERROR, HST_LOGITEM_BAD_ARGUMENT, "%s", msg);
    return HST_ERROR_INVALID_ARGUMENT;
}

#define MRI__LEN_MSG "mri_op_init: %s = %lu: give 1..%u"

MRI_FN void mri_op_free(mri_op *op)
{
    if (!op || !op->be) return;
    hst_backend_free(op->be, op->mask);
    memset(op, 0, sizeof *op);
}

/* Prepares the operator on be for dims d and mask (ny * nx floats, copied). budget_bytes and
   block_slices go to every stream (hst_stream_desc's meaning) and may be changed in op between
   calls. Errors: HST_ERROR_INVALID_ARGUMENT (logged as HST_LOGITEM_BAD_ARGUMENT: NULL, zero slices,
   coils outside 1..MRI_MAX_COILS, ny or nx outside 1..MRI_MAX_LENGTH, a slice of C ny nx
   beyond 2^32 elements), HST_ERROR_OUT_OF_HOST_MEMORY. */
MRI_FN hst_result mri_op_init(mri_op *op, hst_backend *be, const mri_dims *d, const float *mask,
                              uint64_t budget_bytes, uint64_t block_slices)
{
    if (!op) return mri__bad(be, "mri_op_init: op is NULL");
    memset(op, 0, sizeof *op);
    if (!be || !d || !mask)
        return mri__bad(be, "mri_op_init: %s is NULL", !be ? "be" : !d ? "dims" : "mask");
    if (d->slices == 0) return mri__bad(be, "mri_op_init: slices = 0: give at least one slice");
    if (d->coils == 0 || d->coils > MRI_MAX_COILS)
        return mri__bad(be, "mri_op_init: coils = %lu: give 1..%u coils", (unsigned long)d->coils, MRI_MAX_COILS);
    if (d->ny == 0 || d->ny > MRI_MAX_LENGTH) return mri__bad(be, MRI__LEN_MSG, "ny", (unsigned long)d->ny, MRI_MAX_LENGTH);
    if (d->nx == 0 || d->nx > MRI_MAX_LENGTH) return mri__bad(be, MRI__LEN_MSG, "nx", (unsigned long)d->nx, MRI_MAX_LENGTH);
    if ((uint64_t)d->coils * d->ny * d->nx > UINT32_MAX)   /* the kernels index a slice in uint */
        return mri__bad(be, "mri_op_init: a slice of %lu coils x %lu x %lu exceeds 2^32 elements",
                        (unsigned long)d->coils, (unsigned long)d->ny, (unsigned long)d->nx);
    op->be = be;
    op->d = *d;
    op->budget_bytes = budget_bytes;
    op->block_slices = block_slices;
    op->nc = d->coils;
    op->plane = d->ny * d->nx;
    op->mask = (float *)hst_backend_alloc(be, (size_t)d->ny * d->nx * sizeof(float));
    if (!op->mask) { mri_op_free(op); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    memcpy(op->mask, mask, (size_t)d->ny * d->nx * sizeof(float));
    return HST_SUCCESS;
}

/* Bytes of one slice of the image (ny nx c64) and of the coil / k-space arrays (C ny nx c64). */
MRI_FN size_t mri_image_slice_bytes(const mri_dims *d) { return (size_t)d->ny * d->nx * 8; }
MRI_FN size_t mri_coil_slice_bytes(const mri_dims *d) { return (size_t)d->coils * d->ny * d->nx * 8; }

/* Array indices of both streams (the optional ref last). */
enum { MRI_A_IN, MRI_A_COILS, MRI_A_OUT, MRI_A_T, MRI_A_MASK, MRI_A_REF, MRI_A_MAX };

/* Every array of direction adjoint (0: forward); *count: how many (ref last when given). */
static void mri__arrays(const mri_op *op, int adjoint, const float *in, const float *coils,
                        const float *ref, float *out, hst_stream_array *a, unsigned *count)
{
    size_t img = mri_image_slice_bytes(&op->d), coil = mri_coil_slice_bytes(&op->d);
    memset(a, 0, MRI_A_MAX * sizeof *a);
    a[MRI_A_IN].kind = HST_STREAM_INPUT;
    a[MRI_A_IN].host = (void *)(uintptr_t)in;
    a[MRI_A_IN].slice_bytes = adjoint ? coil : img;
    a[MRI_A_COILS].kind = HST_STREAM_INPUT;
    a[MRI_A_COILS].host = (void *)(uintptr_t)coils;
    a[MRI_A_COILS].slice_bytes = coil;
    a[MRI_A_OUT].kind = HST_STREAM_OUTPUT;
    a[MRI_A_OUT].host = out;
    a[MRI_A_OUT].slice_bytes = adjoint ? img : coil;
    a[MRI_A_T].kind = HST_STREAM_TEMP;
    a[MRI_A_T].slice_bytes = coil;
    a[MRI_A_MASK].kind = HST_STREAM_GLOBAL;
    a[MRI_A_MASK].host = op->mask;
    a[MRI_A_MASK].global_bytes = (size_t)op->d.ny * op->d.nx * sizeof(float);
    a[MRI_A_MASK].dtype = HST_F32;
    *count = MRI_A_REF;
    if (ref) {
        a[MRI_A_REF].kind = HST_STREAM_INPUT;
        a[MRI_A_REF].host = (void *)(uintptr_t)ref;
        a[MRI_A_REF].slice_bytes = adjoint ? img : coil;
        *count = MRI_A_REF + 1;
    }
}

/* A kernel stage: kernel name, twin, bindings, items per slice. */
static void mri__stage(hst_stream_stage *st, const char *kernel, hst_stream_host_fn host,
                       const int *in, unsigned nin, const int *out, const mri_op *op, size_t items)
{
    memset(st, 0, sizeof *st);
    st->name = kernel;
    st->sources = mri_cl_source;
    st->num_sources = sizeof mri_cl_source / sizeof mri_cl_source[0];
    st->kernel = kernel;
    st->host = host;
    st->num_inputs = nin;
    st->inputs = in;
    st->num_outputs = 1;
    st->outputs = out;
    st->num_scalars = 2;
    st->scalars[0] = &op->nc;    st->scalar_bytes[0] = sizeof op->nc;
    st->scalars[1] = &op->plane; st->scalar_bytes[1] = sizeof op->plane;
    st->items_per_slice = items;
}

/* The FFT stage: a call on t, in place. */
static void mri__fft_stage(hst_stream_stage *st, const char *name, hst_stream_array_fn fn, const mri_op *op)
{
    static const int t[1] = {MRI_A_T};
    memset(st, 0, sizeof *st);
    st->name = name;
    st->arrays_fn = fn;
    st->arrays_user = (void *)(uintptr_t)op;
    st->num_inputs = 1;
    st->inputs = t;
    st->num_outputs = 1;
    st->outputs = t;
}

/* The chain of direction adjoint; returns the number of stages. */
static unsigned mri__stages(const mri_op *op, int adjoint, hst_stream_stage *st)
{
    static const int f_coil_in[2] = {MRI_A_IN, MRI_A_COILS}, f_mask_in[2] = {MRI_A_T, MRI_A_MASK};
    static const int a_mask_in[2] = {MRI_A_IN, MRI_A_MASK}, a_coil_in[2] = {MRI_A_T, MRI_A_COILS};
    static const int to_t[1] = {MRI_A_T}, to_out[1] = {MRI_A_OUT};
    size_t coil = (size_t)op->nc * op->plane;
    if (!adjoint) {
        mri__stage(&st[0], "mri_fwd_coil", mri__fwd_coil_host, f_coil_in, 2, to_t, op, coil);
        mri__fft_stage(&st[1], "mri_fft", mri__fft_fwd, op);
        mri__stage(&st[2], "mri_mask", mri__mask_host, f_mask_in, 2, to_out, op, coil);
    } else {
        mri__stage(&st[0], "mri_mask", mri__mask_host, a_mask_in, 2, to_t, op, coil);
        mri__fft_stage(&st[1], "mri_ifft", mri__fft_inv, op);
        mri__stage(&st[2], "mri_adj_coil", mri__adj_coil_host, a_coil_in, 2, to_out, op, op->plane);
    }
    return 3;
}

/* The evalwithnorm accumulators: SQSUM(in), SQSUM(out), DIFF2(out, ref). */
static unsigned mri__accs(int with_ref, int ref_index, hst_stream_acc *acc)
{
    memset(acc, 0, 3 * sizeof *acc);
    acc[0].kind = HST_STREAM_SQSUM; acc[0].dtype = HST_C64; acc[0].a = MRI_A_IN;
    acc[1].kind = HST_STREAM_SQSUM; acc[1].dtype = HST_C64; acc[1].a = MRI_A_OUT;
    acc[2].kind = HST_STREAM_DIFF2; acc[2].dtype = HST_C64; acc[2].a = MRI_A_OUT; acc[2].b = ref_index;
    return with_ref ? 3 : 2;
}

static hst_result mri__apply(mri_op *op, int adjoint, const float *in, const float *coils,
                             const float *ref, float *out, mri_norms *norms)
{
    hst_stream_array arrays[MRI_A_MAX];
    hst_stream_stage stages[3];
    hst_stream_acc accs[3];
    hst_stream_desc desc;
    hst_stream_report rep;
    hst_stream *s = NULL;
    hst_result r;
    const char *f = adjoint ? "mri_adjoint" : "mri_forward";
    if (!op || !op->be) return mri__bad(NULL, "%s: op is NULL or not initialised", f);
    if (!in || !coils || !out)
        return mri__bad(op->be, "%s: %s is NULL", f, !in ? "the input" : !coils ? "coils" : "the output");
    memset(&desc, 0, sizeof desc);
    desc.backends = &op->be;
    desc.num_backends = 1;
    desc.num_slices = op->d.slices;
    mri__arrays(op, adjoint, in, coils, ref, out, arrays, &desc.num_arrays);
    desc.arrays = arrays;
    desc.num_stages = mri__stages(op, adjoint, stages);
    desc.stages = stages;
    desc.num_accumulators = mri__accs(ref != NULL, MRI_A_REF, accs);
    desc.accumulators = accs;
    desc.budget_bytes = op->budget_bytes;
    desc.block_slices = op->block_slices;
    if ((r = hst_stream_create(&desc, &s)) != HST_SUCCESS) return r;
    r = hst_stream_run(s, &rep);
    hst_stream_destroy(s);
    if (r == HST_SUCCESS && norms) {
        memset(norms, 0, sizeof *norms);
        norms->in_sq = rep.acc[0];
        norms->out_sq = rep.acc[1];
        norms->diff_sq = ref ? rep.acc[2] : 0.0;
        norms->block_slices = rep.block_slices;
        norms->num_blocks = rep.num_blocks;
        norms->seconds = rep.seconds;
    }
    return r;
}

/* y = A x, streamed. x (N, ny, nx) c64, coils (N, C, ny, nx) c64, y (N, C, ny, nx) c64; ref
   (like y, may be NULL) gives norms->diff_sq = ||A x - ref||^2. Errors: those of
   hst_stream_create / hst_stream_run (HST_ERROR_OUT_OF_DEVICE_MEMORY: the budget cannot hold
   one slice of every array), HST_ERROR_INVALID_ARGUMENT (NULL), those of hst_array_fft
   (HST_ERROR_NOT_BUILT_IN without HST_FFT). */
MRI_FN hst_result mri_forward(mri_op *op, const float *x, const float *coils, const float *ref,
                              float *y, mri_norms *norms)
{
    return mri__apply(op, 0, x, coils, ref, y, norms);
}

/* x = A^H y, streamed; ref (like x, may be NULL) gives norms->diff_sq = ||A^H y - ref||^2. */
MRI_FN hst_result mri_adjoint(mri_op *op, const float *y, const float *coils, const float *ref,
                              float *x, mri_norms *norms)
{
    return mri__apply(op, 1, y, coils, ref, x, norms);
}

/* ------------------------------------------------------------------------------------------
   The reference: the same operator on whole arrays with the array vocabulary and
   hst_array_fft (numpy.fft.fft2 / ifft2 with norm="ortho"): FFTW on the host device, VkFFT
   on OpenCL devices. Needs HST_FFT where the implementation is compiled (else
   HST_ERROR_NOT_BUILT_IN). Holds the volume and its coil images on the device at once. */
typedef struct mri__ref { hst_array *a[5]; } mri__ref;

static void mri__ref_free(mri__ref *w)
{
    unsigned i;
    for (i = 0; i < 5; i++) hst_array_destroy(w->a[i]);
}

/* The mask as a c64 (ny, nx) array (binary MUL needs one dtype). */
static hst_result mri__ref_mask(hst_backend *be, const mri_dims *d, const float *mask, hst_array **out)
{
    size_t shape[2];
    hst_array *m = NULL;
    hst_result r;
    shape[0] = d->ny; shape[1] = d->nx;
    if ((r = hst_array_from_host(be, HST_F32, 2, shape, mask, &m)) != HST_SUCCESS) return r;
    if ((r = hst_array_create(be, HST_C64, 2, shape, out)) == HST_SUCCESS) r = hst_array_cast(*out, m);
    hst_array_destroy(m);
    return r;
}

MRI_FN hst_result mri_reference_forward(hst_backend *be, const mri_dims *d, const float *mask,
                                        const float *x, const float *coils, float *y)
{
    size_t sx[4], sc[4];
    mri__ref w;
    hst_result r;
    memset(&w, 0, sizeof w);
    sx[0] = sc[0] = (size_t)d->slices; sx[1] = 1; sc[1] = d->coils;
    sx[2] = sc[2] = d->ny; sx[3] = sc[3] = d->nx;
    r = hst_array_from_host(be, HST_C64, 4, sx, x, &w.a[0]);
    if (r == HST_SUCCESS) r = hst_array_from_host(be, HST_C64, 4, sc, coils, &w.a[1]);
    if (r == HST_SUCCESS) r = mri__ref_mask(be, d, mask, &w.a[2]);
    if (r == HST_SUCCESS) r = hst_array_binary(w.a[1], w.a[1], w.a[0], HST_BINARY_MUL);   /* S .* x */
    if (r == HST_SUCCESS) r = hst_array_fft(w.a[1], w.a[1], 2, 0, HST_FFT_NORM_ORTHO);
    if (r == HST_SUCCESS) r = hst_array_binary(w.a[1], w.a[1], w.a[2], HST_BINARY_MUL);   /* M .* */
    if (r == HST_SUCCESS) r = hst_array_read(w.a[1], y, hst_array_bytes(w.a[1]));
    mri__ref_free(&w);
    return r;
}

MRI_FN hst_result mri_reference_adjoint(hst_backend *be, const mri_dims *d, const float *mask,
                                        const float *y, const float *coils, float *x)
{
    size_t sx[3], sc[4];
    mri__ref w;
    hst_result r;
    memset(&w, 0, sizeof w);
    sx[0] = sc[0] = (size_t)d->slices; sc[1] = d->coils;
    sx[1] = sc[2] = d->ny; sx[2] = sc[3] = d->nx;
    r = hst_array_from_host(be, HST_C64, 4, sc, y, &w.a[0]);
    if (r == HST_SUCCESS) r = hst_array_from_host(be, HST_C64, 4, sc, coils, &w.a[1]);
    if (r == HST_SUCCESS) r = mri__ref_mask(be, d, mask, &w.a[2]);
    if (r == HST_SUCCESS) r = hst_array_create(be, HST_C64, 3, sx, &w.a[3]);
    if (r == HST_SUCCESS) r = hst_array_binary(w.a[0], w.a[0], w.a[2], HST_BINARY_MUL);   /* M .* y */
    if (r == HST_SUCCESS) r = hst_array_fft(w.a[0], w.a[0], 2, 1, HST_FFT_NORM_ORTHO);
    if (r == HST_SUCCESS) r = hst_array_complex_part(w.a[1], w.a[1], HST_PART_CONJ);
    if (r == HST_SUCCESS) r = hst_array_binary(w.a[0], w.a[0], w.a[1], HST_BINARY_MUL);   /* conj(S) .* */
    if (r == HST_SUCCESS) r = hst_array_reduce_axis(w.a[3], w.a[0], 1, HST_AXIS_SUM);    /* sum_c */
    if (r == HST_SUCCESS) r = hst_array_read(w.a[3], x, hst_array_bytes(w.a[3]));
    mri__ref_free(&w);
    return r;
}

/* ------------------------------------------------------------------------------------------
   Generated data, the same on every machine for a seed. */

/* xorshift64* in [0, 1). */
MRI_FN double mri_uniform(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller). */
MRI_FN double mri_normal(uint64_t *s)
{
    double u = mri_uniform(s), v = mri_uniform(s);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * MRI_PI * v);
}

/* Coordinates in [-1, 1) of row y, column x, slice z. */
static double mri__coord(uint64_t i, uint64_t n) { return n > 1 ? 2.0 * (double)i / (double)n - 1.0 : 0.0; }

/* A 3-D phantom (N, ny, nx) c64: ellipsoids of a few intensities (after Shepp and Logan's head
   phantom), with a smooth phase as real scans have. */
MRI_FN void mri_phantom(const mri_dims *d, float *x)
{
    /* centre x, y, z, semi-axes, value (added where inside) */
    static const double E[6][7] = {
        {0.0, 0.0, 0.0, 0.69, 0.92, 0.90, 1.0},   {0.0, -0.018, 0.0, 0.66, 0.87, 0.88, -0.8},
        {0.22, 0.0, -0.25, 0.11, 0.31, 0.41, -0.2}, {-0.22, 0.0, -0.25, 0.16, 0.41, 0.32, -0.2},
        {0.0, 0.35, 0.25, 0.21, 0.25, 0.41, 0.1},  {0.0, -0.6, 0.0, 0.05, 0.05, 0.05, 0.1}};
    uint64_t z, yy, xx;
    unsigned k;
    for (z = 0; z < d->slices; z++)
        for (yy = 0; yy < d->ny; yy++)
            for (xx = 0; xx < d->nx; xx++) {
                double u = mri__coord(xx, d->nx), v = mri__coord(yy, d->ny), w = mri__coord(z, d->slices);
                double val = 0.0, ph = 0.4 * MRI_PI * (0.5 * u + 0.3 * v + 0.2 * w);
                size_t i = (size_t)((z * d->ny + yy) * d->nx + xx);
                for (k = 0; k < 6; k++) {
                    double a = (u - E[k][0]) / E[k][3], b = (v - E[k][1]) / E[k][4], c = (w - E[k][2]) / E[k][5];
                    if (a * a + b * b + c * c <= 1.0) val += E[k][6];
                }
                x[2 * i] = (float)(val * cos(ph));
                x[2 * i + 1] = (float)(val * sin(ph));
            }
}

/* Smooth coil maps (N, C, ny, nx) c64: coils on a ring around the object, Gaussian fall-off
   with distance and a phase that turns with the coil's angle; normalised so that
   sum_c |S_c|^2 = 1 at every voxel (then ||A|| <= 1). */
MRI_FN void mri_coils(const mri_dims *d, float *s)
{
    size_t plane = (size_t)d->ny * d->nx;
    uint64_t z, yy, xx;
    uint32_t c;
    for (z = 0; z < d->slices; z++)
        for (yy = 0; yy < d->ny; yy++)
            for (xx = 0; xx < d->nx; xx++) {
                double u = mri__coord(xx, d->nx), v = mri__coord(yy, d->ny), w = mri__coord(z, d->slices);
                double sum = 0.0, mag[MRI_MAX_COILS];
                for (c = 0; c < d->coils; c++) {
                    double th = 2.0 * MRI_PI * c / d->coils, cx = 1.3 * cos(th), cy = 1.3 * sin(th);
                    double r2 = (u - cx) * (u - cx) + (v - cy) * (v - cy) + 0.25 * w * w;
                    mag[c] = exp(-r2 / (2.0 * 0.9 * 0.9));
                    sum += mag[c] * mag[c];
                }
                for (c = 0; c < d->coils; c++) {
                    double th = 2.0 * MRI_PI * c / d->coils, ph = th + 0.5 * MRI_PI * (u * cos(th) + v * sin(th));
                    size_t i = ((size_t)z * d->coils + c) * plane + (size_t)yy * d->nx + (size_t)xx;
                    s[2 * i] = (float)(mag[c] / sqrt(sum) * cos(ph));
                    s[2 * i + 1] = (float)(mag[c] / sqrt(sum) * sin(ph));
                }
            }
}

/* A variable-density Cartesian mask (ny, nx) in the DFT's order: whole phase-encoding lines
   (rows; the readout along x is always complete), the central ny/16 (at least 2) always, the
   others drawn with probability falling as (1 - |k|/(ny/2))^2 so that about ny/accel lines are
   sampled. Returns the number of sampled lines. */
MRI_FN uint32_t mri_mask(const mri_dims *d, double accel, uint64_t seed, float *mask)
{
    uint32_t r, lines = 0, centre = d->ny / 16 > 2 ? d->ny / 16 : 2;
    double weight = 0.0, lambda, target = (double)d->ny / (accel > 1.0 ? accel : 1.0);
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (r = 0; r < d->ny; r++) {
        double k = fabs((double)(r < (d->ny + 1) / 2 ? (int64_t)r : (int64_t)r - (int64_t)d->ny));
        if (k >= centre / 2.0) weight += pow(1.0 - k / (d->ny / 2.0), 2.0);
    }
    lambda = weight > 0.0 ? (target - centre) / weight : 0.0;
    for (r = 0; r < d->ny; r++) {
        double k = fabs((double)(r < (d->ny + 1) / 2 ? (int64_t)r : (int64_t)r - (int64_t)d->ny));
        int take = k < centre / 2.0 || mri_uniform(&s) < lambda * pow(1.0 - k / (d->ny / 2.0), 2.0);
        uint32_t x;
        for (x = 0; x < d->nx; x++) mask[(size_t)r * d->nx + x] = take ? 1.0f : 0.0f;
        lines += (uint32_t)take;
    }
    return lines;
}

/* ------------------------------------------------------------------------------------------
   Direct computations in double on the host, for the checks. */
MRI_FN double mri_dot_re(const float *a, const float *b, size_t n)   /* Re <a, b> = Re sum conj(a) b */
{
    double s = 0.0;
    size_t i;
    for (i = 0; i < n; i++) s += (double)a[2 * i] * b[2 * i] + (double)a[2 * i + 1] * b[2 * i + 1];
    return s;
}

MRI_FN double mri_dot_im(const float *a, const float *b, size_t n)   /* Im <a, b> */
{
    double s = 0.0;
    size_t i;
    for (i = 0; i < n; i++) s += (double)a[2 * i] * b[2 * i + 1] - (double)a[2 * i + 1] * b[2 * i];
    return s;
}

MRI_FN double mri_sqdiff(const float *a, const float *b, size_t n)   /* ||a - b||^2; b NULL: ||a||^2 */
{
    double s = 0.0;
    size_t i;
    for (i = 0; i < 2 * n; i++) {
        double v = (double)a[i] - (b ? (double)b[i] : 0.0);
        s += v * v;
    }
    return s;
}

/* |<A x, y> - <x, A^H y>| / (||A x|| ||y||): 0 for an exact adjoint pair, up to float rounding.
   n_k: complex elements of k-space, n_x: of the image. */
MRI_FN double mri_adjoint_mismatch(const float *x, const float *ax, const float *y, const float *ahy,
                                   size_t n_x, size_t n_k)
{
    double re = mri_dot_re(ax, y, n_k) - mri_dot_re(x, ahy, n_x);
    double im = mri_dot_im(ax, y, n_k) - mri_dot_im(x, ahy, n_x);
    double den = sqrt(mri_sqdiff(ax, NULL, n_k)) * sqrt(mri_sqdiff(y, NULL, n_k));
    return den > 0.0 ? sqrt(re * re + im * im) / den : sqrt(re * re + im * im);
}

/* ||a - b|| / ||b||. */
MRI_FN double mri_rel_error(const float *a, const float *b, size_t n)
{
    double nb = mri_sqdiff(b, NULL, n);
    return nb > 0.0 ? sqrt(mri_sqdiff(a, b, n) / nb) : sqrt(mri_sqdiff(a, b, n));
}

#endif /* MRI_OP_H */
