/* mri_op.h — PyQMRI's Cartesian multi-coil MRI operator, streamed through stream.h; shared by
   examples/mri_cartesian.c and tests/test_mri.c (static functions: include it in the one C file
   that defines HST_IMPLEMENTATION, after defining HST_FFT there for mri_reference_*).

   The operator, per slice z (slice-major arrays, C order, complex64 as (re, im) float pairs):
     forward  A:   y[z, c] = M .* F (S[z, c] .* x[z])             for c = 0 .. C-1
     adjoint  A^H: x[z]    = sum_c conj(S[z, c]) .* F^-1 (M .* y[z, c])
   x (N, ny, nx) c64, S the coil sensitivities (N, C, ny, nx) c64, y k-space (N, C, ny, nx) c64,
   M the sampling mask (ny, nx) f32 (0 or 1, the same for every slice), F the orthonormal 2-D DFT
   (numpy.fft.fft2(norm="ortho")) and F^-1 its inverse (= F^H). k-space is in the DFT's own
   order, with no fftshift: row r holds frequency r for r < ny/2 and r - ny above, as numpy's
   fft2 gives it (the mask is made in that order too). PyQMRI shifts its data so that its FFTs
   see this order; nothing else differs. With sum_c |S_c|^2 <= 1 and M in {0, 1}, ||A|| <= 1.

   How the 2-D FFT runs inside a stream. stream.h's stages are OpenCL kernels (with host C
   twins on the host device); a stage cannot call VkFFT or hst_array_fft on the block's device
   buffers, so the FFT is itself a pair of stage kernels: a radix-2 FFT of one line per
   work-item, along the rows in one stage and along the columns in the next, fused with the
   element-wise parts (coil products, mask, coil sum). Every line is independent, so any block
   size gives the same bits. Twiddles exp(-2 pi i k / n) come from a table made on the host in
   double and rounded once (GLOBAL arrays of the stream, like the mask), so no device's sin/cos
   enters; with FP_CONTRACT OFF the kernels and their twins do the same IEEE operations in the
   same order, hence the same bits on the host device, PoCL and GPUs. The radix-2 transform
   needs power-of-two ny and nx. mri_reference_forward/_adjoint compute the same operator on
   whole arrays with backend.h's vocabulary and hst_array_fft (FFTW / VkFFT): the check that
   the streamed FFT is numpy's.

   Streams, per call of mri_forward / mri_adjoint (arrays by index):
     forward  in x, coils; [ref y]       stage rows: t = F_x(S .* x) / sqrt(nx)   (t: TEMP)
                                         stage cols: y = M .* F_y(t) / sqrt(ny)
     adjoint  in y, coils; [ref x]       stage cols: t = F_y^-1(M .* y) / sqrt(ny) (t: TEMP)
                                         stage rows: u = conj(S) .* F_x^-1(t) / sqrt(nx) (u: TEMP)
                                         stage sum:  x = sum_c u_c, c in order
   and the accumulators of PyQMRI's evalwithnorm: SQSUM of the input and of the output, and
   DIFF2 |out - ref|^2 when a ref array is given (the line search's ||A x - y||^2). */
#ifndef MRI_OP_H
#define MRI_OP_H

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
#define MRI_MAX_LENGTH 65536u     /* ny, nx: powers of two up to this (2^16) */
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
    float *tw_x, *tw_y;        /* n/2 (at least 1) complex twiddles exp(-2 pi i k / n) */
    uint32_t nc, ny, nx;       /* the kernels' scalars */
    float scale_x, scale_y;    /* 1/sqrt(nx), 1/sqrt(ny): the orthonormal scaling per axis */
} mri_op;

/* What one streamed application gives besides its output. */
typedef struct mri_norms {
    double in_sq;              /* ||in||^2 */
    double out_sq;             /* ||out||^2 */
    double diff_sq;            /* ||out - ref||^2 (0 without ref) */
    uint64_t block_slices, blocks;
    double seconds;            /* the run, without the stream's setup */
} mri_norms;

/* ------------------------------------------------------------------------------------------
   Kernels (stream.h's convention: inputs, outputs, scalars uint nc, uint ny, uint nx, float
   scale, then the block arguments). */
static const char *const mri_cl_source[] = {
"#pragma OPENCL FP_CONTRACT OFF\n"
"/* k with its log2(n) low bits reversed */\n"
"inline uint mri_rev(uint k, uint n)\n"
"{\n"
"    uint r = 0;\n"
"    for (uint m = n >> 1; m; m >>= 1) { r = (r << 1) | (k & 1u); k >>= 1; }\n"
"    return r;\n"
"}\n"
"inline float2 mri_mul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
"/* conj(a) b */\n"
"inline float2 mri_cmul(float2 a, float2 b) { return (float2)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x); }\n"
"/* radix-2 decimation in time over a line already in bit-reversed order */\n"
"void mri_butterflies(__global float2 *v, ulong stride, uint n, __global const float2 *tw, int inverse)\n"
"{\n"
"    for (uint len = 2; len <= n; len <<= 1) {\n"
"        uint hl = len >> 1, ts = n / len;\n"
"        for (uint i = 0; i < n; i += len)\n"
"            for (uint j = 0; j < hl; j++) {\n"
"                float2 w = tw[j * ts], a = v[(i + j) * stride], b = v[(i + j + hl) * stride], t;\n"
"                if (inverse) w.y = -w.y;\n"
"                t = mri_mul(w, b);\n"
"                v[(i + j) * stride] = a + t;\n"
"                v[(i + j + hl) * stride] = a - t;\n"
"            }\n"
"    }\n"
"}\n",
"#define MRI_ARGS uint nc, uint ny, uint nx, float scale, ulong base, ulong begin, ulong end, ulong total, int flags\n"
"/* item i = c ny + row: t's row = F_x(coil row .* image row) scale */\n"
"__kernel void mri_fwd_rows(__global const float2 *x, __global const float2 *coils, __global const float2 *tw,\n"
"                           __global float2 *t, MRI_ARGS)\n"
"{\n"
"    ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (i >= (ulong)nc * ny || z >= end) return;\n"
"    ulong img = (z * ny + i % ny) * nx, line = (z * nc * ny + i) * nx;\n"
"    for (uint k = 0; k < nx; k++) t[line + mri_rev(k, nx)] = mri_mul(coils[line + k], x[img + k]);\n"
"    mri_butterflies(t + line, 1, nx, tw, 0);\n"
"    for (uint k = 0; k < nx; k++) t[line + k] = t[line + k] * scale;\n"
"}\n"
"/* item i = c nx + col: y's column = mask .* F_y(t's column) scale */\n"
"__kernel void mri_fwd_cols(__global const float2 *t, __global const float *mask, __global const float2 *tw,\n"
"                           __global float2 *y, MRI_ARGS)\n"
"{\n"
"    ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (i >= (ulong)nc * nx || z >= end) return;\n"
"    ulong col = i % nx, first = (z * nc + i / nx) * ny * nx + col;\n"
"    for (uint r = 0; r < ny; r++) y[first + (ulong)mri_rev(r, ny) * nx] = t[first + (ulong)r * nx];\n"
"    mri_butterflies(y + first, nx, ny, tw, 0);\n"
"    for (uint r = 0; r < ny; r++)\n"
"        y[first + (ulong)r * nx] = y[first + (ulong)r * nx] * scale * mask[(ulong)r * nx + col];\n"
"}\n",
"/* item i = c nx + col: t's column = F_y^-1(mask .* y's column) scale */\n"
"__kernel void mri_adj_cols(__global const float2 *y, __global const float *mask, __global const float2 *tw,\n"
"                           __global float2 *t, MRI_ARGS)\n"
"{\n"
"    ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (i >= (ulong)nc * nx || z >= end) return;\n"
"    ulong col = i % nx, first = (z * nc + i / nx) * ny * nx + col;\n"
"    for (uint r = 0; r < ny; r++)\n"
"        t[first + (ulong)mri_rev(r, ny) * nx] = y[first + (ulong)r * nx] * mask[(ulong)r * nx + col];\n"
"    mri_butterflies(t + first, nx, ny, tw, 1);\n"
"    for (uint r = 0; r < ny; r++) t[first + (ulong)r * nx] = t[first + (ulong)r * nx] * scale;\n"
"}\n"
"/* item i = c ny + row: u's row = conj(coil row) .* F_x^-1(t's row) scale */\n"
"__kernel void mri_adj_rows(__global const float2 *t, __global const float2 *coils, __global const float2 *tw,\n"
"                           __global float2 *u, MRI_ARGS)\n"
"{\n"
"    ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
"    if (i >= (ulong)nc * ny || z >= end) return;\n"
"    ulong line = (z * nc * ny + i) * nx;\n"
"    for (uint k = 0; k < nx; k++) u[line + mri_rev(k, nx)] = t[line + k];\n"
"    mri_butterflies(u + line, 1, nx, tw, 1);\n"
"    for (uint k = 0; k < nx; k++) u[line + k] = mri_cmul(coils[line + k], u[line + k] * scale);\n"
"}\n"
"/* item e < ny nx: x = the sum over coils of u, in coil order */\n"
"__kernel void mri_adj_sum(__global const float2 *u, __global float2 *x, MRI_ARGS)\n"
"{\n"
"    ulong e = get_global_id(0), z = begin + get_global_id(1), plane = (ulong)ny * nx;\n"
"    if (e >= plane || z >= end) return;\n"
"    float2 s = u[z * nc * plane + e];\n"
"    for (uint c = 1; c < nc; c++) s = s + u[(z * nc + c) * plane + e];\n"
"    x[z * plane + e] = s;\n"
"}\n"
};

/* ------------------------------------------------------------------------------------------
   Host twins: the kernels' operations in the same order (one IEEE operation per step; C99
   compilers do not contract a*b+c across statements, and GCC in ISO mode not at all). */
static uint32_t mri__rev(uint32_t k, uint32_t n)
{
    uint32_t r = 0, m;
    for (m = n >> 1; m; m >>= 1) { r = (r << 1) | (k & 1u); k >>= 1; }
    return r;
}

/* (re, im) pairs: o = a b, or conj(a) b */
static void mri__mul(const float *a, const float *b, float *o)
{
    float re = a[0] * b[0] - a[1] * b[1], im = a[0] * b[1] + a[1] * b[0];
    o[0] = re; o[1] = im;
}

static void mri__cmul(const float *a, const float *b, float *o)
{
    float re = a[0] * b[0] + a[1] * b[1], im = a[0] * b[1] - a[1] * b[0];
    o[0] = re; o[1] = im;
}

static void mri__butterflies(float *v, size_t stride, uint32_t n, const float *tw, int inverse)
{
    uint32_t len, i, j;
    for (len = 2; len <= n; len <<= 1) {
        uint32_t hl = len >> 1, ts = n / len;
        for (i = 0; i < n; i += len)
            for (j = 0; j < hl; j++) {
                float *a = v + 2 * (size_t)(i + j) * stride, *b = v + 2 * (size_t)(i + j + hl) * stride;
                float w[2], t[2], ar = a[0], ai = a[1];
                w[0] = tw[2 * (size_t)j * ts];
                w[1] = inverse ? -tw[2 * (size_t)j * ts + 1] : tw[2 * (size_t)j * ts + 1];
                mri__mul(w, b, t);
                a[0] = ar + t[0]; a[1] = ai + t[1];
                b[0] = ar - t[0]; b[1] = ai - t[1];
            }
    }
}

/* The scalars every stage gets: nc, ny, nx, scale. */
typedef struct mri__sc { uint32_t nc, ny, nx; float scale; } mri__sc;

static mri__sc mri__scalars(const void *const *s)
{
    mri__sc v;
    v.nc = *(const uint32_t *)s[0];
    v.ny = *(const uint32_t *)s[1];
    v.nx = *(const uint32_t *)s[2];
    v.scale = *(const float *)s[3];
    return v;
}

static hst_result mri__fwd_rows_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *x = (const float *)arr[0], *coils = (const float *)arr[1], *tw = (const float *)arr[2];
    float *t = (float *)arr[3];
    mri__sc p = mri__scalars(s);
    uint64_t z, i;
    uint32_t k;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (i = 0; i < (uint64_t)p.nc * p.ny; i++) {
            size_t img = (size_t)((z * p.ny + i % p.ny) * p.nx), line = (size_t)((z * p.nc * p.ny + i) * p.nx);
            for (k = 0; k < p.nx; k++) mri__mul(coils + 2 * (line + k), x + 2 * (img + k), t + 2 * (line + mri__rev(k, p.nx)));
            mri__butterflies(t + 2 * line, 1, p.nx, tw, 0);
            for (k = 0; k < 2 * p.nx; k++) t[2 * line + k] = t[2 * line + k] * p.scale;
        }
    return HST_SUCCESS;
}

static hst_result mri__fwd_cols_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *t = (const float *)arr[0], *mask = (const float *)arr[1], *tw = (const float *)arr[2];
    float *y = (float *)arr[3];
    mri__sc p = mri__scalars(s);
    uint64_t z, i;
    uint32_t r;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (i = 0; i < (uint64_t)p.nc * p.nx; i++) {
            size_t col = (size_t)(i % p.nx), first = (size_t)((z * p.nc + i / p.nx) * p.ny * p.nx) + col;
            for (r = 0; r < p.ny; r++) {
                float *o = y + 2 * (first + (size_t)mri__rev(r, p.ny) * p.nx);
                o[0] = t[2 * (first + (size_t)r * p.nx)];
                o[1] = t[2 * (first + (size_t)r * p.nx) + 1];
            }
            mri__butterflies(y + 2 * first, p.nx, p.ny, tw, 0);
            for (r = 0; r < p.ny; r++) {
                float *o = y + 2 * (first + (size_t)r * p.nx), m = mask[(size_t)r * p.nx + col];
                o[0] = o[0] * p.scale * m;
                o[1] = o[1] * p.scale * m;
            }
        }
    return HST_SUCCESS;
}

static hst_result mri__adj_cols_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *y = (const float *)arr[0], *mask = (const float *)arr[1], *tw = (const float *)arr[2];
    float *t = (float *)arr[3];
    mri__sc p = mri__scalars(s);
    uint64_t z, i;
    uint32_t r;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (i = 0; i < (uint64_t)p.nc * p.nx; i++) {
            size_t col = (size_t)(i % p.nx), first = (size_t)((z * p.nc + i / p.nx) * p.ny * p.nx) + col;
            for (r = 0; r < p.ny; r++) {
                float *o = t + 2 * (first + (size_t)mri__rev(r, p.ny) * p.nx), m = mask[(size_t)r * p.nx + col];
                o[0] = y[2 * (first + (size_t)r * p.nx)] * m;
                o[1] = y[2 * (first + (size_t)r * p.nx) + 1] * m;
            }
            mri__butterflies(t + 2 * first, p.nx, p.ny, tw, 1);
            for (r = 0; r < p.ny; r++) {
                float *o = t + 2 * (first + (size_t)r * p.nx);
                o[0] = o[0] * p.scale;
                o[1] = o[1] * p.scale;
            }
        }
    return HST_SUCCESS;
}

static hst_result mri__adj_rows_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *t = (const float *)arr[0], *coils = (const float *)arr[1], *tw = (const float *)arr[2];
    float *u = (float *)arr[3];
    mri__sc p = mri__scalars(s);
    uint64_t z, i;
    uint32_t k;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (i = 0; i < (uint64_t)p.nc * p.ny; i++) {
            size_t line = (size_t)((z * p.nc * p.ny + i) * p.nx);
            for (k = 0; k < p.nx; k++) {
                float *o = u + 2 * (line + mri__rev(k, p.nx));
                o[0] = t[2 * (line + k)];
                o[1] = t[2 * (line + k) + 1];
            }
            mri__butterflies(u + 2 * line, 1, p.nx, tw, 1);
            for (k = 0; k < p.nx; k++) {
                float *o = u + 2 * (line + k), v[2];
                v[0] = o[0] * p.scale;
                v[1] = o[1] * p.scale;
                mri__cmul(coils + 2 * (line + k), v, o);
            }
        }
    return HST_SUCCESS;
}

static hst_result mri__adj_sum_host(void *const *arr, const void *const *s, const hst_stream_block *blk, void *user)
{
    const float *u = (const float *)arr[0];
    float *x = (float *)arr[1];
    mri__sc p = mri__scalars(s);
    size_t plane = (size_t)p.ny * p.nx, e;
    uint64_t z;
    uint32_t c;
    (void)user;
    for (z = blk->begin; z < blk->end; z++)
        for (e = 0; e < plane; e++) {
            float re = u[2 * ((size_t)z * p.nc * plane + e)], im = u[2 * ((size_t)z * p.nc * plane + e) + 1];
            for (c = 1; c < p.nc; c++) {
                re = re + u[2 * (((size_t)z * p.nc + c) * plane + e)];
                im = im + u[2 * (((size_t)z * p.nc + c) * plane + e) + 1];
            }
            x[2 * ((size_t)z * plane + e)] = re;
            x[2 * ((size_t)z * plane + e) + 1] = im;
        }
    return HST_SUCCESS;
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
    hst_backend_log(be, HST_LOG_ERROR, HST_LOG_BAD_ARGUMENT, "%s", msg);
    return HST_ERROR_INVALID_ARGUMENT;
}

#define MRI__POW2_MSG "mri_op_init: %s = %lu must be a power of two in 1..%u (radix-2 FFT)"
static int mri__pow2(uint32_t n) { return n >= 1 && n <= MRI_MAX_LENGTH && (n & (n - 1)) == 0; }

/* exp(-2 pi i k / n) for k < max(n/2, 1), in double, rounded once. */
static float *mri__twiddles(const hst_backend *be, uint32_t n)
{
    uint32_t k, count = n > 1 ? n / 2 : 1;
    float *tw = (float *)hst_backend_alloc(be, 2 * (size_t)count * sizeof(float));
    for (k = 0; tw && k < count; k++) {
        double a = -2.0 * MRI_PI * (double)k / (double)n;
        tw[2 * k] = (float)cos(a);
        tw[2 * k + 1] = (float)sin(a);
    }
    return tw;
}

MRI_FN void mri_op_free(mri_op *op)
{
    if (!op || !op->be) return;
    hst_backend_free(op->be, op->mask);
    hst_backend_free(op->be, op->tw_x);
    hst_backend_free(op->be, op->tw_y);
    memset(op, 0, sizeof *op);
}

/* Prepares the operator on be for dims d and mask (ny * nx floats, copied). budget_bytes and
   block_slices go to every stream (hst_stream_desc's meaning) and may be changed in op between
   calls. Errors: HST_ERROR_INVALID_ARGUMENT (logged as HST_LOG_BAD_ARGUMENT: NULL, zero slices,
   coils outside 1..MRI_MAX_COILS, ny or nx not a power of two up to MRI_MAX_LENGTH),
   HST_ERROR_OUT_OF_HOST_MEMORY. */
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
    if (!mri__pow2(d->ny)) return mri__bad(be, MRI__POW2_MSG, "ny", (unsigned long)d->ny, MRI_MAX_LENGTH);
    if (!mri__pow2(d->nx)) return mri__bad(be, MRI__POW2_MSG, "nx", (unsigned long)d->nx, MRI_MAX_LENGTH);
    op->be = be;
    op->d = *d;
    op->budget_bytes = budget_bytes;
    op->block_slices = block_slices;
    op->nc = d->coils; op->ny = d->ny; op->nx = d->nx;
    op->scale_x = (float)(1.0 / sqrt((double)d->nx));
    op->scale_y = (float)(1.0 / sqrt((double)d->ny));
    op->mask = (float *)hst_backend_alloc(be, (size_t)d->ny * d->nx * sizeof(float));
    op->tw_x = mri__twiddles(be, d->nx);
    op->tw_y = mri__twiddles(be, d->ny);
    if (!op->mask || !op->tw_x || !op->tw_y) { mri_op_free(op); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    memcpy(op->mask, mask, (size_t)d->ny * d->nx * sizeof(float));
    return HST_SUCCESS;
}

/* Bytes of one slice of the image (ny nx c64) and of the coil / k-space arrays (C ny nx c64). */
MRI_FN size_t mri_image_slice_bytes(const mri_dims *d) { return (size_t)d->ny * d->nx * 8; }
MRI_FN size_t mri_coil_slice_bytes(const mri_dims *d) { return (size_t)d->coils * d->ny * d->nx * 8; }

/* Array indices of both streams: the adjoint's coil images U, then the optional ref (the
   forward's ref takes U's place). */
enum { MRI_A_IN, MRI_A_COILS, MRI_A_OUT, MRI_A_T, MRI_A_MASK, MRI_A_TWX, MRI_A_TWY, MRI_A_U, MRI_A_MAX = 9 };
static int mri__ref_index(int adjoint) { return adjoint ? MRI_A_U + 1 : MRI_A_U; }

static void mri__global(hst_stream_array *a, float *table, size_t bytes)
{
    a->kind = HST_STREAM_GLOBAL;
    a->host = table;
    a->global_bytes = bytes;
    a->dtype = HST_F32;
}

/* Every array of direction adjoint (0: forward); *count: how many (ref last when given). */
static void mri__arrays(const mri_op *op, int adjoint, const float *in, const float *coils,
                        const float *ref, float *out, hst_stream_array *a, unsigned *count)
{
    size_t img = mri_image_slice_bytes(&op->d), coil = mri_coil_slice_bytes(&op->d);
    size_t twx = 8 * (size_t)(op->nx > 1 ? op->nx / 2 : 1), twy = 8 * (size_t)(op->ny > 1 ? op->ny / 2 : 1);
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
    mri__global(&a[MRI_A_MASK], op->mask, (size_t)op->ny * op->nx * sizeof(float));
    mri__global(&a[MRI_A_TWX], op->tw_x, twx);
    mri__global(&a[MRI_A_TWY], op->tw_y, twy);
    *count = MRI_A_U;
    if (adjoint) {
        a[MRI_A_U].kind = HST_STREAM_TEMP;
        a[MRI_A_U].slice_bytes = coil;
        *count = MRI_A_U + 1;
    }
    if (ref) {
        hst_stream_array *r = &a[mri__ref_index(adjoint)];
        r->kind = HST_STREAM_INPUT;
        r->host = (void *)(uintptr_t)ref;
        r->slice_bytes = adjoint ? img : coil;
        *count = (unsigned)mri__ref_index(adjoint) + 1;
    }
}

/* One stage: kernel name, twin, bindings, scalars, items per slice. */
static void mri__stage(hst_stream_stage *st, const char *kernel, hst_stream_host_fn host,
                       const int *in, unsigned nin, const int *out, const mri_op *op,
                       const float *scale, size_t items)
{
    memset(st, 0, sizeof *st);
    st->name = kernel;
    st->sources = mri_cl_source;
    st->source_count = sizeof mri_cl_source / sizeof mri_cl_source[0];
    st->kernel = kernel;
    st->host = host;
    st->num_inputs = nin;
    st->inputs = in;
    st->num_outputs = 1;
    st->outputs = out;
    st->num_scalars = 4;
    st->scalars[0] = &op->nc; st->scalar_bytes[0] = sizeof op->nc;
    st->scalars[1] = &op->ny; st->scalar_bytes[1] = sizeof op->ny;
    st->scalars[2] = &op->nx; st->scalar_bytes[2] = sizeof op->nx;
    st->scalars[3] = scale;   st->scalar_bytes[3] = sizeof *scale;
    st->items_per_slice = items;
}

/* The chain of direction adjoint; returns the number of stages. */
static unsigned mri__stages(const mri_op *op, int adjoint, hst_stream_stage *st)
{
    static const int f_rows_in[3] = {MRI_A_IN, MRI_A_COILS, MRI_A_TWX}, f_rows_out[1] = {MRI_A_T};
    static const int f_cols_in[3] = {MRI_A_T, MRI_A_MASK, MRI_A_TWY}, f_cols_out[1] = {MRI_A_OUT};
    static const int a_cols_in[3] = {MRI_A_IN, MRI_A_MASK, MRI_A_TWY}, a_cols_out[1] = {MRI_A_T};
    static const int a_rows_in[3] = {MRI_A_T, MRI_A_COILS, MRI_A_TWX}, a_rows_out[1] = {MRI_A_U};
    static const int a_sum_in[1] = {MRI_A_U}, a_sum_out[1] = {MRI_A_OUT};
    size_t rows = (size_t)op->nc * op->ny, cols = (size_t)op->nc * op->nx;
    if (!adjoint) {
        mri__stage(&st[0], "mri_fwd_rows", mri__fwd_rows_host, f_rows_in, 3, f_rows_out, op, &op->scale_x, rows);
        mri__stage(&st[1], "mri_fwd_cols", mri__fwd_cols_host, f_cols_in, 3, f_cols_out, op, &op->scale_y, cols);
        return 2;
    }
    mri__stage(&st[0], "mri_adj_cols", mri__adj_cols_host, a_cols_in, 3, a_cols_out, op, &op->scale_y, cols);
    mri__stage(&st[1], "mri_adj_rows", mri__adj_rows_host, a_rows_in, 3, a_rows_out, op, &op->scale_x, rows);
    mri__stage(&st[2], "mri_adj_sum", mri__adj_sum_host, a_sum_in, 1, a_sum_out, op, &op->scale_x,
               (size_t)op->ny * op->nx);
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
    desc.num_accumulators = mri__accs(ref != NULL, mri__ref_index(adjoint), accs);
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
        norms->blocks = rep.blocks;
        norms->seconds = rep.seconds;
    }
    return r;
}

/* y = A x, streamed. x (N, ny, nx) c64, coils (N, C, ny, nx) c64, y (N, C, ny, nx) c64; ref
   (like y, may be NULL) gives norms->diff_sq = ||A x - ref||^2. Errors: those of
   hst_stream_create / hst_stream_run (HST_ERROR_OUT_OF_DEVICE_MEMORY: the budget cannot hold
   one slice of every array), HST_ERROR_INVALID_ARGUMENT (NULL). */
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
