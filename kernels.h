/* kernels.h — halostream's kernel library: OpenCL C 1.2 kernel sources as string literals, and a
   host C twin of every kernel with the same semantics (bit for bit where stated). Single-file,
   header-only, C99 (and C++). It includes no OpenCL header: it works with HST_NO_OPENCL too.

   Do this:
       #define HST_KERNELS_IMPLEMENTATION     (or HST_IMPLEMENTATION for every header)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.)

   Usage (the vocabulary program for f32, built with plain OpenCL, and its host reference):

       size_t count, n = 10000, parts = (n + HST_REDUCE_BLOCK - 1) / HST_REDUCE_BLOCK;
       const char *const *src = hst_kernels_vocab_source(&count);
       cl_program p = clCreateProgramWithSource(ctx, (cl_uint)count, (const char **)src, 0, &err);
       clBuildProgram(p, 1, &dev, hst_kernels_vocab_options(HST_F32), 0, 0);  // + -DHST_FP64
       // ... run hst_k_reduce_sum with global = parts * HST_REDUCE_LOCAL, local = 256 ...
       float *partial = malloc(parts * hst_kernels_partial_size(HST_F32, HST_REDUCE_SUM));
       hst_k_reduce_host(HST_F32, HST_REDUCE_SUM, x, NULL, n, partial);   // same bits
       hst_scalar s; hst_k_combine_host(HST_F32, HST_REDUCE_SUM, partial, parts, &s);
       // cc -std=c99 app.c -lOpenCL -lm

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_KERNELS_IMPLEMENTATION             the implementation TU: compile kernels.h's body only
     HST_STATIC                             every TU: all functions `static` (embed twice)
     HST_API                                every TU: the declaration prefix (default `extern`)

   Kernel sources. The vocabulary program is ONE generic OpenCL C 1.2 source, built once per dtype
   with -DHST_DT=<hst_dtype value> (hst_kernels_vocab_options) and, where the device has
   cl_khr_fp64, -DHST_FP64. The source is kept readable: one OpenCL source line per literal line,
   split into pieces (passed together to clCreateProgramWithSource) of at most 4095 characters
   each, C99's guaranteed minimum string literal length; a compile-time check enforces the limit.
   Kernels in the program, by build dtype (T = element type: uchar, int, float, double, float2):

     kernel                                u8  i32  f32  f64  c64
     hst_k_cast_from_{u8,i32,f32,c64}      x   x    x    x    x
     hst_k_cast_from_f64 (HST_FP64 only)   x   x    x    x    x
     hst_k_scale, hst_k_axpy, hst_k_random           x    x    x
     hst_k_math                                      x    x
     hst_k_reduce_sum                      x   x    x    x    x
     hst_k_reduce_dot, hst_k_reduce_sqnorm           x    x    x
     hst_k_reduce_min, hst_k_reduce_max    x   x    x    x

   Bit-identical results. The device sources start with `#pragma OPENCL FP_CONTRACT OFF`, so
   a*x + y is two rounded operations, never an FMA. The host twins match only if the host
   translation unit is also compiled without FP contraction: gcc's default with -std=c99 (ISO
   modes); use -ffp-contract=off otherwise (gnu modes, -march with FMA). The twins keep one
   operation per statement where contraction could apply, and turn contraction off for clang.
   -ffast-math (and -cl-fast-relaxed-math on the device) breaks the NaN rules and is unsupported.
   The host twins assume IEEE 754 (C99 Annex F) float and double, as every supported host has.

   What it does NOT do: it does not create contexts, build programs or launch kernels (backend.h
   does); it does not validate calls (the backend does; a twin given an unsupported dtype/op pair
   does nothing); it does not make EXP, SIN, COS, POW or normal random numbers bit-identical
   between device and host (they meet the OpenCL spec's ulp bounds against the host libm); it
   does not thread the host twins (callers split arrays; reductions split at block boundaries).

   Version 0.1.0 (HST_KERNELS_VERSION). MIT licence, Copyright (c) 2026 the halostream authors
   (see the end of file). */

#ifndef HST_KERNELS_H
#define HST_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifndef HST_VERSION_MAJOR
#define HST_VERSION_MAJOR 0
#define HST_VERSION_MINOR 1
#define HST_VERSION_PATCH 0
#endif
/* major * 10000 + minor * 100 + patch */
#define HST_KERNELS_VERSION \
    (HST_VERSION_MAJOR * 10000 + HST_VERSION_MINOR * 100 + HST_VERSION_PATCH)

#ifndef HST_API
#  ifdef HST_STATIC
#    define HST_API static
#  else
#    define HST_API extern
#  endif
#endif

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_IMPLEMENTATION)
#  define HST_KERNELS_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. Arrays are flat runs of n elements; c64 is interleaved (re, im) float pairs,
   laid out like C99 `float complex` and OpenCL `float2`. The values are also the -DHST_DT
   values of the vocabulary program. */
typedef enum hst_dtype { HST_U8 = 1, HST_I32 = 2, HST_F32 = 3, HST_F64 = 4, HST_C64 = 5 } hst_dtype;

HST_API size_t hst_dtype_size(hst_dtype dt);       /* bytes per element; 0 for an invalid dtype */
HST_API const char *hst_dtype_name(hst_dtype dt);  /* "u8","i32","f32","f64","c64"; "invalid" */

/* Element-wise math (hst_k_math's `op` argument; the numbers are part of the kernel ABI). */
typedef enum hst_math_op {
    HST_MATH_ABS = 0, HST_MATH_SQRT, HST_MATH_EXP, HST_MATH_SIN, HST_MATH_COS,
    HST_MATH_POW,   /* dst = pow(src, p) */
    HST_MATH_COUNT
} hst_math_op;

typedef enum hst_reduce_op {
    HST_REDUCE_SUM = 0,  /* sum x */
    HST_REDUCE_DOT,      /* sum x*y; c64: sum conj(x)*y, like BLAS cdotc */
    HST_REDUCE_SQNORM,   /* sum |x|^2, in the real type */
    HST_REDUCE_MIN,      /* NaN ignored (fmin); all NaN gives NaN */
    HST_REDUCE_MAX,      /* NaN ignored (fmax); all NaN gives NaN */
    HST_REDUCE_COUNT
} hst_reduce_op;

/* hst_k_random's `dist` argument (numbers are part of the kernel ABI). */
typedef enum hst_random_dist { HST_RANDOM_UNIFORM = 0, HST_RANDOM_NORMAL = 1 } hst_random_dist;

/* Reductions: one work-group of HST_REDUCE_LOCAL work-items (required by the kernels'
   reqd_work_group_size) reduces one block of HST_REDUCE_BLOCK elements into one partial; global
   size = ceil(n / HST_REDUCE_BLOCK) * HST_REDUCE_LOCAL. Each work-item takes 16 elements. */
#define HST_REDUCE_LOCAL 256
#define HST_REDUCE_BLOCK 4096

/* A reduction result: re/im for floating types (im = 0 unless c64; i64 = 0); for integer
   dtypes (sums, min, max) i64 holds the exact value and re the same value as a double. */
typedef struct hst_scalar { double re, im; int64_t i64; } hst_scalar;

/* Which (dtype, op) pairs exist; 1 or 0. The backend rejects other calls with these. */
HST_API int hst_kernels_math_supported(hst_dtype dt, hst_math_op op);     /* f32, f64 */
/* SUM: all five; DOT, SQNORM: f32, f64, c64; MIN, MAX: u8, i32, f32, f64 */
HST_API int hst_kernels_reduce_supported(hst_dtype dt, hst_reduce_op op);
HST_API int hst_kernels_arith_supported(hst_dtype dt);  /* scale, axpy, random: f32, f64, c64 */

/* Bytes of one partial, i.e. of the accumulator type: SUM of u8/i32: 8 (int64); f32: 4; f64: 8;
   c64 SUM and DOT: 8 (float pair); c64 SQNORM: 4 (float); MIN/MAX: the element size.
   0 for an unsupported pair. */
HST_API size_t hst_kernels_partial_size(hst_dtype dt, hst_reduce_op op);

/* The vocabulary program's source: `*count` (if count is not NULL) pieces to pass together to
   clCreateProgramWithSource (NUL-terminated, so lengths may be NULL). Static storage. */
HST_API const char *const *hst_kernels_vocab_source(size_t *count);

/* Build options for dtype dt: "-DHST_DT=<dt>"; NULL for an invalid dtype. The caller appends
   " -DHST_FP64" when the device has cl_khr_fp64 (an f64 program fails to build without it), and
   " -cl-fp32-correctly-rounded-divide-sqrt" where supported (needed for bitwise f32 SQRT).
   Static storage. */
HST_API const char *hst_kernels_vocab_options(hst_dtype dt);

/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
   SC'11): counter {lo32(counter), hi32(counter), 0, 0}, key {lo32(seed), hi32(seed)}; 10 rounds,
   multipliers 0xD2511F53, 0xCD9E8D57, Weyl constants 0x9E3779B9, 0xBB67AE85. Writes 4 words.
   Known answer (Random123 kat_vectors): counter 0, key 0 -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8. */
HST_API void hst_k_philox4x32(uint64_t counter, uint64_t seed, uint32_t out[4]);

/* Host twins. Arrays are flat, n elements (not bytes) each; c64 counts complex elements.
   Unsupported dtype/op pairs do nothing (the backend validates first).

   hst_k_cast_host: dst[i] = src[i] converted (twin of hst_k_cast_from_<src_dt>). Rules, bitwise:
   float -> integer truncates toward zero and saturates, NaN -> 0 (OpenCL convert_<int>_sat);
   float -> float and int -> float round to nearest even; i32 -> u8 clamps to 0..255; c64 -> real
   takes the real part; real -> c64 sets im = 0; same dtype copies. dst and src must not overlap
   unless the dtypes are equal (then dst == src is allowed). */
HST_API void hst_k_cast_host(hst_dtype dst_dt, void *dst, hst_dtype src_dt, const void *src,
                             size_t n);

/* x = alpha * x (twin of hst_k_scale). alpha = {re, im} is first rounded to the element type
   ((float) for f32 and c64; im ignored unless c64), as the backend does for the kernel argument.
   c64: (ar*xr - ai*xi, ar*xi + ai*xr), each product and sum rounded. f32, f64, c64. */
HST_API void hst_k_scale_host(hst_dtype dt, void *x, size_t n, const double alpha[2]);

/* y = alpha * x + y (twin of hst_k_axpy); alpha as in hst_k_scale_host; the product is rounded
   before the add. f32, f64, c64. */
HST_API void hst_k_axpy_host(hst_dtype dt, void *y, const void *x, size_t n,
                             const double alpha[2]);

/* dst = op(src) element-wise (twin of hst_k_math); p (POW's exponent) rounded to the element
   type first. dst may equal src. ABS and SQRT are bitwise equal to the device (f32 SQRT needs
   -cl-fp32-correctly-rounded-divide-sqrt there); EXP, SIN, COS, POW use the host libm and agree
   within the OpenCL spec's ulp bounds (f32 and f64: exp 3, sin/cos 4, pow 16). f32, f64. */
HST_API void hst_k_math_host(hst_dtype dt, void *dst, const void *src, size_t n, hst_math_op op,
                             double p);

/* Random fill (twin of hst_k_random): element i uses w = philox4x32(offset + i mod 2^64, seed).
   Uniform, in [0,1), bitwise everywhere: f32 (w0 >> 8) * 2^-24; f64 ((w0 << 21) | (w1 >> 11)) *
   2^-53; c64 (f32 rule on w0, f32 rule on w1). Normal (Box-Muller, Box & Muller 1958, computed
   in double): r = sqrt(-2 log u1), a = 2 pi u2; f32: u1 = (w0 + 1) * 2^-32 in (0,1],
   u2 = w1 * 2^-32, x = (float)(r cos a); c64: ((float)(r cos a), (float)(r sin a)); f64:
   u1 = (k(w0,w1) + 1) * 2^-53, u2 = k(w2,w3) * 2^-53 with k the 53-bit rule above, x = r cos a.
   Normals agree with the device within a few ulp (libm); on a device without cl_khr_fp64 they are
   computed in float from 24-bit uniforms and agree only to float accuracy. f32, f64, c64. */
HST_API void hst_k_random_host(hst_dtype dt, void *x, size_t n, uint64_t seed, uint64_t offset,
                               hst_random_dist dist);

/* Block partials (twin of hst_k_reduce_<op>): writes ceil(n / HST_REDUCE_BLOCK) partials of
   hst_kernels_partial_size(dt, op) bytes. y is used by DOT only (may be NULL otherwise).
   The order is defined, so device and host partials are bitwise equal: for block g, lane
   l = 0..255 starts from the identity and accumulates, k = 0..15 in order, element
   g*4096 + l + 256*k when < n; then for s = 128, 64, ..., 1 lanes l < s set
   a[l] = combine(a[l], a[l+s]); partial[g] = a[0]. Accumulators: int64 for u8/i32 sums (exact
   while |sum| < 2^63), the real type for float sums (float for f32 and c64, double for f64), the
   element type for MIN/MAX. Identities: 0 for sums; MIN/MAX: NaN for floats, 255/0 (u8),
   INT32_MAX/INT32_MIN (i32). Float MIN is combine(a, b) = isnan(a) ? b : (b < a ? b : a) (MAX
   with >): fmin/fmax semantics with ties (-0, +0) keeping a; NaN payloads are not specified. */
HST_API void hst_k_reduce_host(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                               size_t n, void *partial);

/* Final combine of `count` partials (device or host made), on the host: a fixed pairwise
   recursion, combine(P[0..c)) = P[0] if c == 1, else combine(combine(P[0..h)), combine(P[h..c)))
   with h = c / 2 rounded down, in the accumulator type (float sums stay float until the end).
   Fills *out as described at hst_scalar. count == 0 (n == 0) gives the identity (0 for sums; NaN,
   or the integer identity, for MIN/MAX: min/max of an empty array is the backend's error). */
HST_API void hst_k_combine_host(hst_dtype dt, hst_reduce_op op, const void *partial, size_t count,
                                hst_scalar *out);

/* >>stream kernels */

/* The stream program: stream.h stage kernels on f32 volumes, and its per-slice accumulators.

   Volumes are f32 arrays of shape (N, H, W), C order, slice axis z first: voxel (z, y, x) is at
   z*H*W + y*W + x. Vector fields (gradients, dual variables) are (N, H, W, 3), interleaved per
   voxel as (pz, py, px): component c of voxel i of slice z is at (z*H*W + i)*3 + c. Units: those
   of the volume (differences per voxel; unit grid spacing on every axis).

   Volume kernels (stream.h's calling convention): array pointers first (inputs, then outputs;
   in/out arrays where listed), then the scalars, then `ulong base, ulong begin, ulong end,
   ulong total, int flags`. Every pointer points at global slice `base`; slices [begin, end)
   (relative to base) are computed; global slice g = base + z, total = N. NDRange 2-D: dim 0 =
   H*W voxels of a slice (rounded up freely: bound-checked), dim 1 = end - begin slices
   (z = begin + get_global_id(1)). Boundaries come from g and total, so flags is not read.

     kernel            arrays (in; out)                  scalars              halo lo/hi
     hst_k_grad3       x; p                              uint H, uint W       0 / 1 on x
     hst_k_div3        p; d                              uint H, uint W       1 on p / 0
     hst_k_tv_dual     xbar; p (in/out)                  H, W, float sigma    0 / 1 on xbar
     hst_k_tv_primal   p, f; x (in/out), xbar            H, W, tau, lambda    1 on p / 0
     hst_k_tv_gap      x, p, f; gap                      H, W, float lambda   1 on p / 1 on x

   grad (forward differences, Neumann boundary: 0 at the last index of each axis):
     pz = g+1 < N ? x[z+1][y][x] - x[z][y][x] : 0,  py = y+1 < H ? x[z][y+1][x] - x[z][y][x] : 0,
     px = x+1 < W ? x[z][y][x+1] - x[z][y][x] : 0.
   div (the exact negative adjoint, <grad x, p> = -<x, div p> for all x and p):
     div p = (dz + dy) + dx,  dz = (g < N-1 ? pz[z] : 0) - (g > 0 ? pz[z-1] : 0), dy and dx alike.
     (Summation by parts: sum_g (x[g+1] - x[g]) pz[g] over g < N-1 = -sum_g x[g] dz[g].)

   TV (ROF) denoising by Chambolle & Pock, "A first-order primal-dual algorithm for convex
   problems with applications to imaging", J. Math. Imaging Vis. 40 (2011), Algorithm 1 with
   K = grad: primal P(x) = ||grad x||_1 + lambda/2 ||x - f||^2, with the isotropic norm
   ||q||_1 = sum over voxels of |q| = sqrt(qz*qz + qy*qy + qx*qx). One iteration is
   hst_k_tv_dual (on xbar) then hst_k_tv_primal; converges for tau * sigma * ||grad||^2 <= 1,
   ||grad||^2 <= 12 in 3-D (e.g. tau = sigma = 1/sqrt(12)). Start with x = xbar = f, p = 0.
     tv_dual:   q = p + sigma * grad(xbar);  p = q / max(1, |q|)   (projection onto |p| <= 1)
     tv_primal: xo = x;  xn = ((xo + tau * div p) + (tau * lambda) * f) / (1 + tau * lambda);
                x = xn;  xbar = 2 xn - xo
     tv_gap:    gap = ((|grad x| + (lambda/2) (x - f)^2) + f * div p) + (div p)^2 / (2 lambda)
   The dual of P (F = ||.||_1 on K x, G = lambda/2 ||. - f||^2, K^T = -div, G*(v) = <v, f> +
   ||v||^2 / (2 lambda)) is D(p) = -<f, div p> - ||div p||^2 / (2 lambda) for max |p| <= 1, so
   the sum of gap over all voxels is P(x) - D(p) = sum (|grad x| - grad x . p)
   + sum (lambda/2) (x - f - div p / lambda)^2 >= 0 (using <grad x, p> = -<x, div p>), and 0
   exactly at the saddle point. Single voxels' terms may be negative; sum them (stream.h SUM
   accumulator) for the gap. Units: P and D in (volume units) x voxels; lambda in 1/(volume units).

   Per-slice accumulators (stream.h's hst_stream_acc), one kernel compiled per element type:
     __kernel __attribute__((reqd_work_group_size(256, 1, 1)))
     void hst_k_slice_acc(__global const T *a, __global const T *b, ulong elems, ulong begin,
                          ulong end, int kind, __global ACC *acc, ulong acc_offset)
   T = float, or float2 (c64) with -DHST_ACC_C64; ACC = double with -DHST_FP64, else float.
   kind 1 SUM (of a; c64: of the real part), 2 SQSUM (|a|^2), 3 DIFF2 (|a - b|^2; b is not read
   otherwise, may be NULL); the numbers are hst_stream_acc_kind's. Other kinds write nothing.
   NDRange 2-D: global (HST_REDUCE_LOCAL = 256, end - begin), local (256, 1). The work-group of
   slice z = begin + get_group_id(1) (slice z of a and b starts at element z*elems): lane l,
   from 0, adds in ACC the terms of elements l, l+256, l+512, ... < elems (each element converted
   to ACC before any arithmetic; c64 SQSUM/DIFF2 term re*re + im*im); then a local tree
   a[l] = a[l] + a[l+s] for s = 128, 64, ..., 1; writes acc[acc_offset + (z - begin)].

   Build the program once per accumulator element type with
     "-cl-fp32-correctly-rounded-divide-sqrt [-DHST_FP64] [-DHST_ACC_C64]"
   (-DHST_FP64 where the device has cl_khr_fp64). The volume kernels ignore -DHST_FP64 and
   -DHST_ACC_C64. Bitwise: the host twins below equal the device when the program is built with
   -cl-fp32-correctly-rounded-divide-sqrt (sqrt and division are then correctly rounded, as on
   the host; without it OpenCL allows 3 ulp for sqrt and 2.5 ulp for division, which touches
   tv_dual, tv_primal and tv_gap; grad3 and div3 use neither) and the host TU is compiled
   without FP contraction (see the top of this file); hst_k_slice_acc_host equals the device
   built with -DHST_FP64 (without it the device accumulates in float). */

/* The stream program's source: `*count` (if not NULL) pieces for clCreateProgramWithSource
   (NUL-terminated; lengths may be NULL). Kernels: hst_k_grad3, hst_k_div3, hst_k_tv_dual,
   hst_k_tv_primal, hst_k_tv_gap, hst_k_slice_acc. Static storage. */
HST_API const char *const *hst_kernels_stream_source(size_t *count);

/* Host twins of the volume kernels: the same pointers (at global slice base) and block
   arguments; they compute slices [begin, end) of the block (all H*W voxels each). Same bits as
   the device under the conditions above. Distinct arrays must not overlap (tv_dual's p and
   tv_primal's x are single in/out arrays, read and written at the same voxel). */
HST_API void hst_k_grad3_host(const float *x, float *p, uint32_t H, uint32_t W, uint64_t base,
                              uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_div3_host(const float *p, float *d, uint32_t H, uint32_t W, uint64_t base,
                             uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_tv_dual_host(const float *xbar, float *p, uint32_t H, uint32_t W, float sigma,
                                uint64_t base, uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_tv_primal_host(const float *p, const float *f, float *x, float *xbar,
                                  uint32_t H, uint32_t W, float tau, float lambda, uint64_t base,
                                  uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_tv_gap_host(const float *x, const float *p, const float *f, float *gap,
                               uint32_t H, uint32_t W, float lambda, uint64_t base,
                               uint64_t begin, uint64_t end, uint64_t total);

/* Host twin of hst_k_slice_acc for ONE slice: a (and b for DIFF2; may be NULL otherwise) point
   at the slice's `elems` elements (dt HST_F32 or HST_C64; c64 counts complex elements); *out
   gets the value in exactly the device's order, in double (bitwise equal to a device program
   built with -DHST_FP64). An unsupported dt or kind does nothing. */
HST_API void hst_k_slice_acc_host(hst_dtype dt, int kind, const void *a, const void *b,
                                  size_t elems, double *out);

/* <<stream kernels */


/* >>halo kernels */

/* The halo program: halo.h's fused pack and unpack. ONE launch packs every slot (one region of
   one quantity: a scalar, or one component of a vector pair) of every spec and every peer into
   one byte buffer, and one launch unpacks them (AMReX FillBoundary's fused-tag design, by
   work-group: each work-group finds its slot ONCE, by binary search over the prefix sums of the
   slots' work-group counts, and moves one part of it).

   A slot is described by HST_K_HALO_DESC_WORDS uint64 words (table below). Element e of a slot
   is its C-order index over the 4 extents (leading extents 1 for fewer dimensions); it moves
   between byte (desc[BUF] + e * elem) of the buffer and element
     base + i0*step0 + i1*step1 + i2*step2 + i3*step3          (steps signed, in elements)
   of the quantity. Rotations are negative steps and swapped extents (halo.h computes them), so
   the kernels never branch on a rotation. Moves are loads and stores of the element's bit
   pattern (uchar, ushort, uint, ulong, uint4 for 1, 2, 4, 8, 16 bytes), so device and host
   results are identical bit for bit; pack may change the sign (HST_K_HALO_OP_*):
     FLIP_SIGN:  xor of the top bit (IEEE float16/32/64: exact negation, NaN payload kept);
     NEGATE_INT: two's complement 0 - v, wrapping (INT_MIN stays INT_MIN).
   Unpack never changes a value. Alignment: desc[BUF] and the quantities' base addresses are
   multiples of the element size (halo.h guarantees it).

   How a work-group moves its part (desc[MODE], chosen by halo.h per slot):
     DIRECT (0): chunk t (HST_K_HALO_CHUNK elements in buffer order); 32-bit index math with
       magic-number division by the extents (desc[MAGIC + 0, 1, 2] divide by ext3, ext2, ext1),
       four loads in flight per work-item. Needs elements * elem and the slot's span
       (sum (ext-1) * |step| * elem) below 2^31.
     TILED (1): a transposing slot (dimension 3 is not contiguous in the quantity but a
       dimension B < 3 is, |step| 1): a TB x TA tile (TB = 2^desc[LOG_TB] along B, TA =
       2^desc[LOG_TA] along dimension 3) staged through local memory (at most
       HST_K_HALO_TILE_WORDS ulongs, pitch TA + 1), so that the quantity side runs along B and
       the buffer side along dimension 3. Work-group t is (o1, o2, tile b, tile a) in C order
       over (ext[O1], N_O2, NT_B, NT_A), O1 < O2 the two dimensions < 3 other than B; MAGIC + 0,
       1, 2 divide by NT_A, NT_B, N_O2. QS_* quantity steps, BS_* buffer steps (elements, C
       order) of B, O1, O2. Same size limits as DIRECT; elements of at most 8 bytes.
     WIDE (2): 64-bit index math, element by element (larger slots, and 16-byte elements).
   Work-groups per slot: DIRECT and WIDE ceil(elements / CHUNK); TILED ext[O1]*N_O2*NT_B*NT_A.
   A magic word for divisor m (1 <= m < 2^32): l = ceil(log2 m), M = floor(2^32 (2^l - m) / m)
   + 1; word = M | min(l, 1) << 32 | max(l - 1, 0) << 40 (Granlund & Montgomery, 1994).

   Kernels (build options hst_kernels_halo_options(nq): -DHST_HALO_NQ=8,16,...,64):
     hst_k_halo_pack(table, prefix_at, desc_at, nslots, total, buf, q0, ..., q<NQ-1>)
     hst_k_halo_unpack(same arguments)
   table: uint64 words; prefix = table + prefix_at: nslots + 1 running sums of the slots'
   work-group counts (prefix[0] = 0, prefix[nslots] = total); desc = table + desc_at: nslots
   descriptors. Launch total work-groups of any power-of-two local size up to 256 (global =
   total * local). Quantity arguments beyond the plan's count may be any buffer. */
#define HST_K_HALO_DESC_WORDS 32
#define HST_K_HALO_MAX_QUANTITIES 64
#define HST_K_HALO_CHUNK 1024        /* elements per DIRECT / WIDE work-group; TILED tile size */
#define HST_K_HALO_TILE_WORDS 1536   /* local ulongs of a TILED tile: TB * (TA + 1) at most */
#define HST_K_HALO_MAX_LOCAL 256     /* the largest local size the kernels are written for */
enum {
    HST_K_HALO_D_BUF = 0,       /* byte offset of the slot's segment in the buffer */
    HST_K_HALO_D_BASE = 1,      /* element offset of the slot's first element in the quantity */
    HST_K_HALO_D_STEP = 2,      /* 4 words: signed element steps per slot dimension (C order) */
    HST_K_HALO_D_EXT = 6,       /* 4 words: slot extents, C order, each >= 1 */
    HST_K_HALO_D_QUANTITY = 10, /* quantity index, < NQ */
    HST_K_HALO_D_ELEM = 11,     /* element bytes: 1, 2, 4, 8, 16 */
    HST_K_HALO_D_OP = 12,       /* HST_K_HALO_OP_* (pack only) */
    HST_K_HALO_D_MODE = 13,     /* HST_K_HALO_MODE_* */
    HST_K_HALO_D_TILE_B = 14,   /* TILED: B, the quantity-contiguous dimension (0, 1 or 2) */
    HST_K_HALO_D_GROUPS = 15,   /* work-groups of the slot */
    HST_K_HALO_D_LOG_TB = 16,   /* TILED: log2 TB, log2 TA (TB * TA <= CHUNK) */
    HST_K_HALO_D_LOG_TA = 17,
    HST_K_HALO_D_NT_B = 18,     /* TILED: tiles along B and along dimension 3 */
    HST_K_HALO_D_NT_A = 19,
    HST_K_HALO_D_MAGIC = 20,    /* 3 words: magic divisors (see above) */
    HST_K_HALO_D_N_B = 23,      /* TILED: ext[B], ext[O2] */
    HST_K_HALO_D_N_O2 = 24,
    HST_K_HALO_D_QS_B = 25,     /* TILED: quantity steps of B, O1, O2 (signed, < 2^31) */
    HST_K_HALO_D_QS_O = 26,     /* 2 words */
    HST_K_HALO_D_BS_B = 28,     /* TILED: buffer element steps of B, O1, O2 */
    HST_K_HALO_D_BS_O = 29      /* 2 words; word 31 unused */
};
enum { HST_K_HALO_OP_COPY = 0, HST_K_HALO_OP_FLIP_SIGN = 1, HST_K_HALO_OP_NEGATE_INT = 2 };
enum { HST_K_HALO_MODE_DIRECT = 0, HST_K_HALO_MODE_TILED = 1, HST_K_HALO_MODE_WIDE = 2 };

/* The halo program's source pieces (static storage), as hst_kernels_vocab_source. */
HST_API const char *const *hst_kernels_halo_source(size_t *count);
/* "-DHST_HALO_NQ=<n rounded up to a multiple of 8>"; NULL when n is 0 or above 64. */
HST_API const char *hst_kernels_halo_options(size_t n_quantities);
/* Host twins: every slot of desc[0 .. nslots) in order, the same moves as the kernels. Runs
   along a contiguous slot dimension (step 1) move with one memcpy; others element by element. */
HST_API void hst_k_halo_pack_host(const uint64_t *desc, size_t nslots, void *const *quantities,
                                  void *buffer);
HST_API void hst_k_halo_unpack_host(const uint64_t *desc, size_t nslots, const void *buffer,
                                    void *const *quantities);

/* <<halo kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_IMPLEMENTATION) && !defined(HST__KERNELS_IMPLEMENTATION_DONE)
#define HST__KERNELS_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>

/* >>checks */

#if defined(__GNUC__)
#  define HST__KPRIVATE static __attribute__((unused))
#else
#  define HST__KPRIVATE static
#endif
/* Definitions of public functions; with HST_STATIC an unused one must not warn either. */
#if defined(HST_STATIC) && defined(__GNUC__)
#  define HST__KDEF HST_API __attribute__((unused))
#else
#  define HST__KDEF HST_API
#endif

/* The device source hard-codes these numbers; keep the enums and the source in step. */
typedef char hst__check_math_abi[(HST_MATH_ABS == 0 && HST_MATH_SQRT == 1 && HST_MATH_EXP == 2 &&
                                  HST_MATH_SIN == 3 && HST_MATH_COS == 4 && HST_MATH_POW == 5)
                                 ? 1 : -1];
typedef char hst__check_random_abi[(HST_RANDOM_NORMAL == 1) ? 1 : -1];
typedef char hst__check_block[(HST_REDUCE_BLOCK == 16 * HST_REDUCE_LOCAL) ? 1 : -1];

/* Clang contracts a*b + c within one expression by default; turn that off for this body. */
#if defined(__clang__) && ((defined(__apple_build_version__) && __clang_major__ >= 13) || \
                           (!defined(__apple_build_version__) && __clang_major__ >= 11))
#  define HST__KERNELS_CLANG_FP 1
#  pragma float_control(push)
#  pragma clang fp contract(off)
#endif

/* >>types */

#define HST__KSTR(x) #x
#define HST__KXSTR(x) HST__KSTR(x)
#define HST__REDUCE_STEPS (HST_REDUCE_BLOCK / HST_REDUCE_LOCAL)
#define HST__I32_MAX 2147483647
#define HST__I32_MIN (-HST__I32_MAX - 1)
#define HST__P2M24F (1.0f / 16777216.0f)              /* 2^-24, exact */
#define HST__P2M32 (1.0 / 4294967296.0)               /* 2^-32, exact */
#define HST__P2M53 (1.0 / 9007199254740992.0)         /* 2^-53, exact */
#define HST__TWO_PI 6.283185307179586                 /* same literal as the device source */

typedef struct hst__c32 { float re, im; } hst__c32;   /* a c64 element or accumulator */

/* >>device source */

/* Each piece is at most 4095 characters (C99 5.2.4.1's minimum for a string literal), checked
   below; the pieces are concatenated by clCreateProgramWithSource. */

static const char hst__vocab_src_types[] =
"/* halostream vocabulary program (kernels.h): -DHST_DT=1..5 (u8 i32 f32 f64 c64) [-DHST_FP64] */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#ifdef HST_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"#endif\n"
"#define HST_REDUCE_LOCAL " HST__KXSTR(HST_REDUCE_LOCAL) "\n"
"#define HST_REDUCE_BLOCK " HST__KXSTR(HST_REDUCE_BLOCK) "\n"
"#define HST_REDUCE_STEPS (HST_REDUCE_BLOCK / HST_REDUCE_LOCAL)\n"
"#define HST_TWO_PI 6.283185307179586\n"
"#define HST_TWO_PI_F 6.2831853f\n"
"/* T element type, E its scalar component, R real accumulator, A sum/dot accumulator */\n"
"#if !defined(HST_DT)\n"
"#error \"build with -DHST_DT=1..5 (hst_kernels_vocab_options)\"\n"
"#elif HST_DT == 1\n"
"typedef uchar T;\n"
"typedef uchar E;\n"
"typedef long A;\n"
"#define HST_MIN_IDENT ((uchar)255)\n"
"#define HST_MAX_IDENT ((uchar)0)\n"
"#elif HST_DT == 2\n"
"typedef int T;\n"
"typedef int E;\n"
"typedef long A;\n"
"#define HST_MIN_IDENT INT_MAX\n"
"#define HST_MAX_IDENT INT_MIN\n"
"#elif HST_DT == 3\n"
"typedef float T;\n"
"typedef float E;\n"
"typedef float R;\n"
"typedef float A;\n"
"#define HST_CONVERT_E convert_float\n"
"#define HST_MIN_IDENT NAN\n"
"#define HST_MAX_IDENT NAN\n"
"#elif HST_DT == 4\n"
"#ifndef HST_FP64\n"
"#error \"an f64 program needs cl_khr_fp64: build with -DHST_FP64\"\n"
"#endif\n"
"typedef double T;\n"
"typedef double E;\n"
"typedef double R;\n"
"typedef double A;\n"
"#define HST_CONVERT_E convert_double\n"
"#define HST_MIN_IDENT ((double)NAN)\n"
"#define HST_MAX_IDENT ((double)NAN)\n"
"#elif HST_DT == 5\n"
"typedef float2 T;\n"
"typedef float E;\n"
"typedef float R;\n"
"typedef float2 A;\n"
"#define HST_CONVERT_E convert_float\n"
"#else\n"
"#error \"HST_DT must be 1..5\"\n"
"#endif\n"
"\n"
"/* conversions to E: truncate toward zero and saturate, NaN -> 0; else round to nearest */\n"
"#if HST_DT == 1\n"
"E hst_e_from_i32(int v) { return v < 0 ? (uchar)0 : v > 255 ? (uchar)255 : (uchar)v; }\n"
"E hst_e_from_f32(float v)\n"
"{\n"
"  return (isnan(v) || v <= 0.0f) ? (uchar)0 : v >= 255.0f ? (uchar)255 : (uchar)v;\n"
"}\n"
"#ifdef HST_FP64\n"
"E hst_e_from_f64(double v)\n"
"{\n"
"  return (isnan(v) || v <= 0.0) ? (uchar)0 : v >= 255.0 ? (uchar)255 : (uchar)v;\n"
"}\n"
"#endif\n"
"#elif HST_DT == 2\n"
"E hst_e_from_i32(int v) { return v; }\n"
"E hst_e_from_f32(float v)\n"
"{\n"
"  return isnan(v) ? 0 : v >= 2147483648.0f ? INT_MAX : v <= -2147483648.0f ? INT_MIN : (int)v;\n"
"}\n"
"#ifdef HST_FP64\n"
"E hst_e_from_f64(double v)\n"
"{\n"
"  return isnan(v) ? 0 : v >= 2147483648.0 ? INT_MAX : v <= -2147483648.0 ? INT_MIN : (int)v;\n"
"}\n"
"#endif\n"
"#else\n"
"E hst_e_from_i32(int v) { return HST_CONVERT_E(v); }\n"
"E hst_e_from_f32(float v) { return HST_CONVERT_E(v); }\n"
"#ifdef HST_FP64\n"
"E hst_e_from_f64(double v) { return HST_CONVERT_E(v); }\n"
"#endif\n"
"#endif\n"
"\n"
"#if HST_DT == 5\n"
"T hst_make(E v) { return (T)(v, 0.0f); }\n"
"/* a*b = (ar*br - ai*bi, ar*bi + ai*br) */\n"
"T hst_mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
"/* conj(a)*b = (ar*br + ai*bi, ar*bi - ai*br) */\n"
"T hst_dot_term(T a, T b) { return (T)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x); }\n"
"R hst_sq_term(T a) { return a.x * a.x + a.y * a.y; }\n"
"#else\n"
"T hst_make(E v) { return v; }\n"
"#if HST_DT >= 3\n"
"T hst_mul(T a, T b) { return a * b; }\n"
"T hst_dot_term(T a, T b) { return a * b; }\n"
"R hst_sq_term(T a) { return a * a; }\n"
"#endif\n"
"#endif\n";

static const char hst__vocab_src_elementwise[] =
"\n"
"/* casts: dst[i] = src[i] converted to T (element-wise; global size may exceed n) */\n"
"__kernel void hst_k_cast_from_u8(__global const uchar *src, __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  dst[i] = hst_make(hst_e_from_i32((int)src[i]));\n"
"}\n"
"__kernel void hst_k_cast_from_i32(__global const int *src, __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  dst[i] = hst_make(hst_e_from_i32(src[i]));\n"
"}\n"
"__kernel void hst_k_cast_from_f32(__global const float *src, __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  dst[i] = hst_make(hst_e_from_f32(src[i]));\n"
"}\n"
"#ifdef HST_FP64\n"
"__kernel void hst_k_cast_from_f64(__global const double *src, __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  dst[i] = hst_make(hst_e_from_f64(src[i]));\n"
"}\n"
"#endif\n"
"__kernel void hst_k_cast_from_c64(__global const float2 *src, __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"#if HST_DT == 5\n"
"  dst[i] = src[i];\n"
"#else\n"
"  dst[i] = hst_make(hst_e_from_f32(src[i].x));\n"
"#endif\n"
"}\n"
"\n"
"#if HST_DT >= 3\n"
"/* x = alpha * x */\n"
"__kernel void hst_k_scale(__global T *x, ulong n, T alpha)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  x[i] = hst_mul(alpha, x[i]);\n"
"}\n"
"/* y = alpha * x + y */\n"
"__kernel void hst_k_axpy(__global T *y, __global const T *x, ulong n, T alpha)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  y[i] = hst_mul(alpha, x[i]) + y[i];\n"
"}\n"
"#endif\n"
"\n"
"#if HST_DT == 3 || HST_DT == 4\n"
"/* dst = op(src), op numbered as hst_math_op; dst may equal src */\n"
"__kernel void hst_k_math(__global T *dst, __global const T *src, ulong n, int op, T p)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  T v = src[i];\n"
"  switch (op) {\n"
"  case 0: v = fabs(v); break;\n"
"  case 1: v = sqrt(v); break;\n"
"  case 2: v = exp(v); break;\n"
"  case 3: v = sin(v); break;\n"
"  case 4: v = cos(v); break;\n"
"  case 5: v = pow(v, p); break;\n"
"  default: break;\n"
"  }\n"
"  dst[i] = v;\n"
"}\n"
"#endif\n";

static const char hst__vocab_src_reduce[] =
"\n"
"/* Reductions: one work-group of HST_REDUCE_LOCAL reduces block g = elements\n"
"   [g*HST_REDUCE_BLOCK, (g+1)*HST_REDUCE_BLOCK) into partial[g], in a fixed order:\n"
"   lane l accumulates elements g*BLOCK + l + LOCAL*k for k = 0..STEPS-1 (when < n),\n"
"   then a tree a[l] = COMB(a[l], a[l+s]) for s = LOCAL/2 .. 1. The host twin copies it. */\n"
"#define HST_ADD(a, b) ((a) + (b))\n"
"#define HST_REDUCE_BODY(ACC, IDENT, TERM, COMB) \\\n"
"  __local ACC a[HST_REDUCE_LOCAL]; \\\n"
"  uint l = (uint)get_local_id(0); \\\n"
"  ulong g = get_group_id(0); \\\n"
"  ulong j = g * HST_REDUCE_BLOCK + l; \\\n"
"  ACC acc = IDENT; \\\n"
"  for (uint k = 0; k < HST_REDUCE_STEPS; ++k, j += HST_REDUCE_LOCAL) \\\n"
"    if (j < n) acc = COMB(acc, TERM); \\\n"
"  a[l] = acc; \\\n"
"  barrier(CLK_LOCAL_MEM_FENCE); \\\n"
"  for (uint s = HST_REDUCE_LOCAL / 2; s > 0; s >>= 1) { \\\n"
"    if (l < s) a[l] = COMB(a[l], a[l + s]); \\\n"
"    barrier(CLK_LOCAL_MEM_FENCE); \\\n"
"  } \\\n"
"  if (l == 0) partial[g] = a[0];\n"
"\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_sum(__global const T *x, ulong n, __global A *partial)\n"
"{\n"
"  HST_REDUCE_BODY(A, (A)0, (A)x[j], HST_ADD)\n"
"}\n"
"\n"
"#if HST_DT >= 3\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_dot(__global const T *x, __global const T *y, ulong n, __global A *partial)\n"
"{\n"
"  HST_REDUCE_BODY(A, (A)0, hst_dot_term(x[j], y[j]), HST_ADD)\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_sqnorm(__global const T *x, ulong n, __global R *partial)\n"
"{\n"
"  HST_REDUCE_BODY(R, (R)0, hst_sq_term(x[j]), HST_ADD)\n"
"}\n"
"#endif\n"
"\n"
"#if HST_DT <= 4\n"
"#if HST_DT <= 2\n"
"T hst_min(T a, T b) { return b < a ? b : a; }\n"
"T hst_max(T a, T b) { return b > a ? b : a; }\n"
"#else\n"
"/* fmin/fmax semantics (NaN ignored) with a defined tie: (-0, +0) keeps a */\n"
"T hst_min(T a, T b) { return isnan(a) ? b : (b < a ? b : a); }\n"
"T hst_max(T a, T b) { return isnan(a) ? b : (b > a ? b : a); }\n"
"#endif\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_min(__global const T *x, ulong n, __global T *partial)\n"
"{\n"
"  HST_REDUCE_BODY(T, HST_MIN_IDENT, x[j], hst_min)\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_max(__global const T *x, ulong n, __global T *partial)\n"
"{\n"
"  HST_REDUCE_BODY(T, HST_MAX_IDENT, x[j], hst_max)\n"
"}\n"
"#endif\n";

static const char hst__vocab_src_random[] =
"\n"
"#if HST_DT >= 3\n"
"/* Philox4x32-10 (Salmon et al., SC'11) */\n"
"uint4 hst_philox(uint4 c, uint2 k)\n"
"{\n"
"  for (int r = 0; r < 10; ++r) {\n"
"    if (r > 0) {\n"
"      k.x += 0x9E3779B9u;\n"
"      k.y += 0xBB67AE85u;\n"
"    }\n"
"    uint h0 = mul_hi(0xD2511F53u, c.x);\n"
"    uint h1 = mul_hi(0xCD9E8D57u, c.z);\n"
"    c = (uint4)(h1 ^ c.y ^ k.x, 0xCD9E8D57u * c.z, h0 ^ c.w ^ k.y, 0xD2511F53u * c.x);\n"
"  }\n"
"  return c;\n"
"}\n"
"float hst_u24(uint w) { return (float)(w >> 8) * 0x1.0p-24f; }\n"
"#ifdef HST_FP64\n"
"ulong hst_k53(uint hi, uint lo) { return ((ulong)hi << 21) | (ulong)(lo >> 11); }\n"
"double2 hst_box_muller(double u1, double u2)\n"
"{\n"
"  double r = sqrt(-2.0 * log(u1));\n"
"  double a = HST_TWO_PI * u2;\n"
"  return (double2)(r * cos(a), r * sin(a));\n"
"}\n"
"/* u1 in (0,1], u2 in [0,1) from 32-bit words, Box-Muller in double */\n"
"double2 hst_normal2(uint4 w)\n"
"{\n"
"  return hst_box_muller(((double)w.x + 1.0) * 0x1.0p-32, (double)w.y * 0x1.0p-32);\n"
"}\n"
"#else\n"
"/* no fp64: 24-bit uniforms, Box-Muller in float (float accuracy only) */\n"
"float2 hst_normal2(uint4 w)\n"
"{\n"
"  float u1 = (float)((w.x >> 8) + 1u) * 0x1.0p-24f;\n"
"  float r = sqrt(-2.0f * log(u1));\n"
"  float a = HST_TWO_PI_F * hst_u24(w.y);\n"
"  return (float2)(r * cos(a), r * sin(a));\n"
"}\n"
"#endif\n"
"#if HST_DT == 3\n"
"T hst_uniform(uint4 w) { return hst_u24(w.x); }\n"
"T hst_normal(uint4 w) { return convert_float(hst_normal2(w).x); }\n"
"#elif HST_DT == 4\n"
"T hst_uniform(uint4 w) { return (double)hst_k53(w.x, w.y) * 0x1.0p-53; }\n"
"T hst_normal(uint4 w)\n"
"{\n"
"  double u1 = (double)(hst_k53(w.x, w.y) + 1) * 0x1.0p-53;\n"
"  return hst_box_muller(u1, (double)hst_k53(w.z, w.w) * 0x1.0p-53).x;\n"
"}\n"
"#else\n"
"T hst_uniform(uint4 w) { return (float2)(hst_u24(w.x), hst_u24(w.y)); }\n"
"T hst_normal(uint4 w) { return convert_float2(hst_normal2(w)); }\n"
"#endif\n"
"/* x[i] from philox(counter = offset + i, key = seed); dist numbered as hst_random_dist */\n"
"__kernel void hst_k_random(__global T *x, ulong n, ulong seed, ulong offset, int dist)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  ulong idx = offset + i;\n"
"  uint4 c = (uint4)((uint)idx, (uint)(idx >> 32), 0u, 0u);\n"
"  uint4 w = hst_philox(c, (uint2)((uint)seed, (uint)(seed >> 32)));\n"
"  x[i] = dist == 1 ? hst_normal(w) : hst_uniform(w);\n"
"}\n"
"#endif\n";

/* sizeof counts the terminating NUL: 4096 bytes = 4095 characters */
typedef char hst__check_piece_types[(sizeof(hst__vocab_src_types) <= 4096) ? 1 : -1];
typedef char hst__check_piece_elementw[(sizeof(hst__vocab_src_elementwise) <= 4096) ? 1 : -1];
typedef char hst__check_piece_reduce[(sizeof(hst__vocab_src_reduce) <= 4096) ? 1 : -1];
typedef char hst__check_piece_random[(sizeof(hst__vocab_src_random) <= 4096) ? 1 : -1];

static const char *const hst__vocab_src[] = {
    hst__vocab_src_types, hst__vocab_src_elementwise, hst__vocab_src_reduce, hst__vocab_src_random
};

/* >>helpers */

HST__KPRIVATE int hst__dtype_valid(hst_dtype dt) { return dt >= HST_U8 && dt <= HST_C64; }
HST__KPRIVATE int hst__is_float(hst_dtype dt) { return dt >= HST_F32 && dt <= HST_C64; }

HST__KPRIVATE size_t hst__groups(size_t n)
{
    return n / HST_REDUCE_BLOCK + (n % HST_REDUCE_BLOCK != 0);
}

/* float -> integer: truncate toward zero, saturate, NaN -> 0 (float promotes exactly). */
HST__KPRIVATE uint8_t hst__sat_u8(double v)
{
    if (v != v || v <= 0.0) return 0;
    if (v >= 255.0) return 255;
    return (uint8_t)v;
}

HST__KPRIVATE int32_t hst__sat_i32(double v)
{
    if (v != v) return 0;
    if (v >= 2147483648.0) return HST__I32_MAX;
    if (v <= -2147483648.0) return HST__I32_MIN;
    return (int32_t)v;
}

HST__KPRIVATE hst__c32 hst__c32_make(float re, float im)
{
    hst__c32 c;
    c.re = re;
    c.im = im;
    return c;
}

/* a*b = (ar*br - ai*bi, ar*bi + ai*br), one rounding per operation */
HST__KPRIVATE hst__c32 hst__c32_mul(hst__c32 a, hst__c32 b)
{
    float p = a.re * b.re, q = a.im * b.im, s = a.re * b.im, t = a.im * b.re;
    return hst__c32_make(p - q, s + t);
}

HST__KPRIVATE hst__c32 hst__c32_add(hst__c32 a, hst__c32 b)
{
    return hst__c32_make(a.re + b.re, a.im + b.im);
}

HST__KPRIVATE hst__c32 hst__c32_zero(void) { return hst__c32_make(0.0f, 0.0f); }
HST__KPRIVATE hst__c32 hst__c32_at(const float *x, size_t j)
{
    return hst__c32_make(x[2 * j], x[2 * j + 1]);
}

/* conj(x[j]) * y[j] = (xr*yr + xi*yi, xr*yi - xi*yr) */
HST__KPRIVATE hst__c32 hst__c32_cdot(const float *x, const float *y, size_t j)
{
    float p = x[2 * j] * y[2 * j], q = x[2 * j + 1] * y[2 * j + 1];
    float s = x[2 * j] * y[2 * j + 1], t = x[2 * j + 1] * y[2 * j];
    return hst__c32_make(p + q, s - t);
}

HST__KPRIVATE float hst__c32_abs2(const float *x, size_t j)
{
    float p = x[2 * j] * x[2 * j], q = x[2 * j + 1] * x[2 * j + 1];
    return p + q;
}

HST__KPRIVATE int64_t hst__add_i64(int64_t a, int64_t b) { return a + b; }
HST__KPRIVATE float hst__add_f32(float a, float b) { return a + b; }
HST__KPRIVATE double hst__add_f64(double a, double b) { return a + b; }
HST__KPRIVATE float hst__mul_f32(float a, float b) { return a * b; }
HST__KPRIVATE double hst__mul_f64(double a, double b) { return a * b; }

/* MIN/MAX combine: integers plainly; floats with NaN ignored and ties keeping a (as on device). */
HST__KPRIVATE uint8_t hst__min_u8(uint8_t a, uint8_t b) { return b < a ? b : a; }
HST__KPRIVATE uint8_t hst__max_u8(uint8_t a, uint8_t b) { return b > a ? b : a; }
HST__KPRIVATE int32_t hst__min_i32(int32_t a, int32_t b) { return b < a ? b : a; }
HST__KPRIVATE int32_t hst__max_i32(int32_t a, int32_t b) { return b > a ? b : a; }
HST__KPRIVATE int64_t hst__min_i64(int64_t a, int64_t b) { return b < a ? b : a; }
HST__KPRIVATE int64_t hst__max_i64(int64_t a, int64_t b) { return b > a ? b : a; }
HST__KPRIVATE float hst__min_f32(float a, float b) { return a != a ? b : (b < a ? b : a); }
HST__KPRIVATE float hst__max_f32(float a, float b) { return a != a ? b : (b > a ? b : a); }
HST__KPRIVATE double hst__min_f64(double a, double b) { return a != a ? b : (b < a ? b : a); }
HST__KPRIVATE double hst__max_f64(double a, double b) { return a != a ? b : (b > a ? b : a); }

/* >>casts */

/* Every source value is exact in double (u8, i32, f32, f64, c64's real part), so converting
   through double rounds once, as the device's direct conversion does. */
HST__KPRIVATE double hst__load_real(hst_dtype dt, const void *src, size_t i)
{
    switch (dt) {
    case HST_U8: return (double)((const uint8_t *)src)[i];
    case HST_I32: return (double)((const int32_t *)src)[i];
    case HST_F32: return (double)((const float *)src)[i];
    case HST_F64: return ((const double *)src)[i];
    case HST_C64: return (double)((const float *)src)[2 * i];
    default: return 0.0;
    }
}

HST__KPRIVATE void hst__store_real(hst_dtype dt, void *dst, size_t i, double v)
{
    switch (dt) {
    case HST_U8: ((uint8_t *)dst)[i] = hst__sat_u8(v); break;
    case HST_I32: ((int32_t *)dst)[i] = hst__sat_i32(v); break;
    case HST_F32: ((float *)dst)[i] = (float)v; break;
    case HST_F64: ((double *)dst)[i] = v; break;
    case HST_C64:
        ((float *)dst)[2 * i] = (float)v;
        ((float *)dst)[2 * i + 1] = 0.0f;
        break;
    default: break;
    }
}

/* f32 <-> c64 moves the float unconverted, as the device does: a trip through double would
   quieten a signalling NaN and break bitwise agreement. */
HST__KPRIVATE void hst__cast_f32_c64(hst_dtype dst_dt, void *dst, hst_dtype src_dt,
                                     const void *src, size_t n)
{
    size_t i, ds = dst_dt == HST_C64 ? 2 : 1, ss = src_dt == HST_C64 ? 2 : 1;
    const float zero = 0.0f;
    for (i = 0; i < n; ++i) {
        memcpy((float *)dst + ds * i, (const float *)src + ss * i, sizeof(float));
        if (ds == 2) memcpy((float *)dst + 2 * i + 1, &zero, sizeof(float));
    }
}

/* >>arith */

HST__KPRIVATE void hst__scale_c64(float *x, size_t n, hst__c32 a)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        hst__c32 r = hst__c32_mul(a, hst__c32_at(x, i));
        x[2 * i] = r.re;
        x[2 * i + 1] = r.im;
    }
}

HST__KPRIVATE void hst__axpy_c64(float *y, const float *x, size_t n, hst__c32 a)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        hst__c32 r = hst__c32_mul(a, hst__c32_at(x, i));
        y[2 * i] = r.re + y[2 * i];
        y[2 * i + 1] = r.im + y[2 * i + 1];
    }
}

HST__KPRIVATE float hst__math_f32(hst_math_op op, float v, float p)
{
    switch (op) {
    case HST_MATH_ABS: return fabsf(v);
    case HST_MATH_SQRT: return sqrtf(v);
    case HST_MATH_EXP: return expf(v);
    case HST_MATH_SIN: return sinf(v);
    case HST_MATH_COS: return cosf(v);
    case HST_MATH_POW: return powf(v, p);
    default: return v;
    }
}

HST__KPRIVATE double hst__math_f64(hst_math_op op, double v, double p)
{
    switch (op) {
    case HST_MATH_ABS: return fabs(v);
    case HST_MATH_SQRT: return sqrt(v);
    case HST_MATH_EXP: return exp(v);
    case HST_MATH_SIN: return sin(v);
    case HST_MATH_COS: return cos(v);
    case HST_MATH_POW: return pow(v, p);
    default: return v;
    }
}

/* >>random */

/* One Philox4x32 round on c with key k (Salmon et al. 2011, Random123's philox4x32round). */
HST__KPRIVATE void hst__philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t r0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k[0];
    uint32_t r2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k[1];
    c[0] = r0;
    c[1] = (uint32_t)p1;
    c[2] = r2;
    c[3] = (uint32_t)p0;
}

/* Philox4x32-10 in place on c with key k: 10 rounds, the key bumped by the Weyl constants
   between rounds. */
HST__KPRIVATE void hst__philox4x32_10(uint32_t c[4], const uint32_t key[2])
{
    uint32_t k[2];
    int r;
    k[0] = key[0];
    k[1] = key[1];
    for (r = 0; r < 10; ++r) {
        if (r > 0) {
            k[0] += 0x9E3779B9u;
            k[1] += 0xBB67AE85u;
        }
        hst__philox_round(c, k);
    }
}

HST__KPRIVATE float hst__u24(uint32_t w) { return (float)(w >> 8) * HST__P2M24F; }
HST__KPRIVATE uint64_t hst__k53(uint32_t hi, uint32_t lo)
{
    return ((uint64_t)hi << 21) | (lo >> 11);
}

/* Box & Muller (1958): (r cos a, r sin a), r = sqrt(-2 log u1), a = 2 pi u2; u1 in (0,1]. */
HST__KPRIVATE void hst__box_muller(double u1, double u2, double out[2])
{
    double r = sqrt(-2.0 * log(u1));
    double a = HST__TWO_PI * u2;
    out[0] = r * cos(a);
    out[1] = r * sin(a);
}

/* Box-Muller from 32-bit words: u1 = (w0 + 1) * 2^-32, u2 = w1 * 2^-32 (f32 and c64). */
HST__KPRIVATE void hst__normal2_32(const uint32_t w[4], double out[2])
{
    hst__box_muller(((double)w[0] + 1.0) * HST__P2M32, (double)w[1] * HST__P2M32, out);
}

HST__KPRIVATE void hst__random_store(hst_dtype dt, void *x, size_t i, const uint32_t w[4],
                                     hst_random_dist dist)
{
    double g[2];
    if (dt == HST_F32) {
        if (dist == HST_RANDOM_NORMAL) hst__normal2_32(w, g);
        ((float *)x)[i] = dist == HST_RANDOM_NORMAL ? (float)g[0] : hst__u24(w[0]);
    } else if (dt == HST_C64) {
        if (dist == HST_RANDOM_NORMAL) hst__normal2_32(w, g);
        ((float *)x)[2 * i] = dist == HST_RANDOM_NORMAL ? (float)g[0] : hst__u24(w[0]);
        ((float *)x)[2 * i + 1] = dist == HST_RANDOM_NORMAL ? (float)g[1] : hst__u24(w[1]);
    } else if (dist == HST_RANDOM_NORMAL) {
        hst__box_muller((double)(hst__k53(w[0], w[1]) + 1) * HST__P2M53,
                        (double)hst__k53(w[2], w[3]) * HST__P2M53, g);
        ((double *)x)[i] = g[0];
    } else {
        ((double *)x)[i] = (double)hst__k53(w[0], w[1]) * HST__P2M53;
    }
}

/* >>reductions */

/* Defines NAME(x, y, n, partial): the block reduction of the device kernels, serially. TERM is
   an expression of x, y and the element index j; COMB(acc, value) the combine. */
#define HST__REDUCE_FN(NAME, XT, AT, IDENT, TERM, COMB)                                          \
    HST__KPRIVATE void NAME(const XT *x, const XT *y, size_t n, AT *partial)                     \
    {                                                                                            \
        AT a[HST_REDUCE_LOCAL];                                                                  \
        size_t g, l, k, s, groups = hst__groups(n);                                              \
        (void)y;                                                                                 \
        for (g = 0; g < groups; ++g) {                                                           \
            for (l = 0; l < HST_REDUCE_LOCAL; ++l) {                                             \
                AT acc = IDENT;                                                                  \
                for (k = 0; k < HST__REDUCE_STEPS; ++k) {                                        \
                    size_t j = g * HST_REDUCE_BLOCK + l + k * HST_REDUCE_LOCAL;                  \
                    if (j < n) acc = COMB(acc, TERM);                                            \
                }                                                                                \
                a[l] = acc;                                                                      \
            }                                                                                    \
            for (s = HST_REDUCE_LOCAL / 2; s > 0; s >>= 1)                                       \
                for (l = 0; l < s; ++l) a[l] = COMB(a[l], a[l + s]);                             \
            partial[g] = a[0];                                                                   \
        }                                                                                        \
    }

HST__REDUCE_FN(hst__rsum_u8, uint8_t, int64_t, 0, (int64_t)x[j], hst__add_i64)
HST__REDUCE_FN(hst__rsum_i32, int32_t, int64_t, 0, (int64_t)x[j], hst__add_i64)
HST__REDUCE_FN(hst__rsum_f32, float, float, 0.0f, x[j], hst__add_f32)
HST__REDUCE_FN(hst__rsum_f64, double, double, 0.0, x[j], hst__add_f64)
HST__REDUCE_FN(hst__rsum_c64, float, hst__c32, hst__c32_zero(), hst__c32_at(x, j), hst__c32_add)
HST__REDUCE_FN(hst__rdot_f32, float, float, 0.0f, hst__mul_f32(x[j], y[j]), hst__add_f32)
HST__REDUCE_FN(hst__rdot_f64, double, double, 0.0, hst__mul_f64(x[j], y[j]), hst__add_f64)
HST__REDUCE_FN(hst__rdot_c64, float, hst__c32, hst__c32_zero(), hst__c32_cdot(x, y, j),
               hst__c32_add)
HST__REDUCE_FN(hst__rsq_f32, float, float, 0.0f, hst__mul_f32(x[j], x[j]), hst__add_f32)
HST__REDUCE_FN(hst__rsq_f64, double, double, 0.0, hst__mul_f64(x[j], x[j]), hst__add_f64)
HST__REDUCE_FN(hst__rsq_c64, float, float, 0.0f, hst__c32_abs2(x, j), hst__add_f32)
HST__REDUCE_FN(hst__rmin_u8, uint8_t, uint8_t, 255, x[j], hst__min_u8)
HST__REDUCE_FN(hst__rmax_u8, uint8_t, uint8_t, 0, x[j], hst__max_u8)
HST__REDUCE_FN(hst__rmin_i32, int32_t, int32_t, HST__I32_MAX, x[j], hst__min_i32)
HST__REDUCE_FN(hst__rmax_i32, int32_t, int32_t, HST__I32_MIN, x[j], hst__max_i32)
HST__REDUCE_FN(hst__rmin_f32, float, float, (float)NAN, x[j], hst__min_f32)
HST__REDUCE_FN(hst__rmax_f32, float, float, (float)NAN, x[j], hst__max_f32)
HST__REDUCE_FN(hst__rmin_f64, double, double, (double)NAN, x[j], hst__min_f64)
HST__REDUCE_FN(hst__rmax_f64, double, double, (double)NAN, x[j], hst__max_f64)

HST__KPRIVATE void hst__reduce_sum(hst_dtype dt, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_U8: hst__rsum_u8((const uint8_t *)x, NULL, n, (int64_t *)p); break;
    case HST_I32: hst__rsum_i32((const int32_t *)x, NULL, n, (int64_t *)p); break;
    case HST_F32: hst__rsum_f32((const float *)x, NULL, n, (float *)p); break;
    case HST_F64: hst__rsum_f64((const double *)x, NULL, n, (double *)p); break;
    case HST_C64: hst__rsum_c64((const float *)x, NULL, n, (hst__c32 *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_dot(hst_dtype dt, const void *x, const void *y, size_t n, void *p)
{
    switch (dt) {
    case HST_F32: hst__rdot_f32((const float *)x, (const float *)y, n, (float *)p); break;
    case HST_F64: hst__rdot_f64((const double *)x, (const double *)y, n, (double *)p); break;
    case HST_C64: hst__rdot_c64((const float *)x, (const float *)y, n, (hst__c32 *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_sqnorm(hst_dtype dt, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_F32: hst__rsq_f32((const float *)x, NULL, n, (float *)p); break;
    case HST_F64: hst__rsq_f64((const double *)x, NULL, n, (double *)p); break;
    case HST_C64: hst__rsq_c64((const float *)x, NULL, n, (float *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_minmax(hst_dtype dt, int is_max, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_U8:
        if (is_max) hst__rmax_u8((const uint8_t *)x, NULL, n, (uint8_t *)p);
        else hst__rmin_u8((const uint8_t *)x, NULL, n, (uint8_t *)p);
        break;
    case HST_I32:
        if (is_max) hst__rmax_i32((const int32_t *)x, NULL, n, (int32_t *)p);
        else hst__rmin_i32((const int32_t *)x, NULL, n, (int32_t *)p);
        break;
    case HST_F32:
        if (is_max) hst__rmax_f32((const float *)x, NULL, n, (float *)p);
        else hst__rmin_f32((const float *)x, NULL, n, (float *)p);
        break;
    case HST_F64:
        if (is_max) hst__rmax_f64((const double *)x, NULL, n, (double *)p);
        else hst__rmin_f64((const double *)x, NULL, n, (double *)p);
        break;
    default: break;
    }
}

/* >>combine */

/* One accumulator of any kind, for the final combine (a few partials; clarity over speed). */
enum { HST__ACC_I64, HST__ACC_F32, HST__ACC_F64, HST__ACC_C32 };
typedef struct hst__acc { int64_t i; double d; float f[2]; } hst__acc;

HST__KPRIVATE int hst__acc_kind(hst_dtype dt, hst_reduce_op op)
{
    if (dt == HST_U8 || dt == HST_I32) return HST__ACC_I64;
    if (dt == HST_F64) return HST__ACC_F64;
    if (dt == HST_C64 && op != HST_REDUCE_SQNORM) return HST__ACC_C32;
    return HST__ACC_F32;
}

HST__KPRIVATE hst__acc hst__acc_zero(void)
{
    hst__acc a;
    memset(&a, 0, sizeof a);
    return a;
}

HST__KPRIVATE hst__acc hst__acc_identity(hst_dtype dt, hst_reduce_op op)
{
    hst__acc a = hst__acc_zero();
    int is_min = op == HST_REDUCE_MIN;
    if (op != HST_REDUCE_MIN && op != HST_REDUCE_MAX) return a;
    if (dt == HST_U8) a.i = is_min ? 255 : 0;
    if (dt == HST_I32) a.i = is_min ? HST__I32_MAX : HST__I32_MIN;
    a.f[0] = (float)NAN;
    a.d = (double)NAN;
    return a;
}

/* partial k as an accumulator: int64 sums, T-typed u8/i32 min/max, float, double, float pairs */
HST__KPRIVATE hst__acc hst__acc_load(hst_dtype dt, hst_reduce_op op, const void *p, size_t k)
{
    hst__acc a = hst__acc_zero();
    int is_sum = op != HST_REDUCE_MIN && op != HST_REDUCE_MAX;
    switch (hst__acc_kind(dt, op)) {
    case HST__ACC_I64:
        if (is_sum) a.i = ((const int64_t *)p)[k];
        else if (dt == HST_U8) a.i = ((const uint8_t *)p)[k];
        else a.i = ((const int32_t *)p)[k];
        break;
    case HST__ACC_F32: a.f[0] = ((const float *)p)[k]; break;
    case HST__ACC_F64: a.d = ((const double *)p)[k]; break;
    default:
        a.f[0] = ((const float *)p)[2 * k];
        a.f[1] = ((const float *)p)[2 * k + 1];
        break;
    }
    return a;
}

HST__KPRIVATE hst__acc hst__acc_join(int kind, hst_reduce_op op, hst__acc a, hst__acc b)
{
    int is_min = op == HST_REDUCE_MIN, is_max = op == HST_REDUCE_MAX;
    switch (kind) {
    case HST__ACC_I64:
        a.i = is_min ? hst__min_i64(a.i, b.i) : is_max ? hst__max_i64(a.i, b.i) : a.i + b.i;
        break;
    case HST__ACC_F32:
        a.f[0] = is_min ? hst__min_f32(a.f[0], b.f[0])
               : is_max ? hst__max_f32(a.f[0], b.f[0]) : a.f[0] + b.f[0];
        break;
    case HST__ACC_F64:
        a.d = is_min ? hst__min_f64(a.d, b.d) : is_max ? hst__max_f64(a.d, b.d) : a.d + b.d;
        break;
    default:
        a.f[0] = a.f[0] + b.f[0];
        a.f[1] = a.f[1] + b.f[1];
        break;
    }
    return a;
}

/* combine(P[first .. first+count)), count >= 1: split at h = count / 2 (rounded down). */
HST__KPRIVATE hst__acc hst__combine_range(hst_dtype dt, hst_reduce_op op, const void *p,
                                          size_t first, size_t count)
{
    size_t h = count / 2;
    if (count == 1) return hst__acc_load(dt, op, p, first);
    return hst__acc_join(hst__acc_kind(dt, op), op, hst__combine_range(dt, op, p, first, h),
                         hst__combine_range(dt, op, p, first + h, count - h));
}

HST__KPRIVATE void hst__acc_to_scalar(int kind, hst__acc a, hst_scalar *out)
{
    out->re = 0.0;
    out->im = 0.0;
    out->i64 = 0;
    switch (kind) {
    case HST__ACC_I64: out->i64 = a.i; out->re = (double)a.i; break;
    case HST__ACC_F32: out->re = (double)a.f[0]; break;
    case HST__ACC_F64: out->re = a.d; break;
    default: out->re = (double)a.f[0]; out->im = (double)a.f[1]; break;
    }
}

/* >>public functions */

HST__KDEF size_t hst_dtype_size(hst_dtype dt)
{
    switch (dt) {
    case HST_U8: return 1;
    case HST_I32: return 4;
    case HST_F32: return 4;
    case HST_F64: return 8;
    case HST_C64: return 8;
    default: return 0;
    }
}

HST__KDEF const char *hst_dtype_name(hst_dtype dt)
{
    switch (dt) {
    case HST_U8: return "u8";
    case HST_I32: return "i32";
    case HST_F32: return "f32";
    case HST_F64: return "f64";
    case HST_C64: return "c64";
    default: return "invalid";
    }
}

HST__KDEF int hst_kernels_math_supported(hst_dtype dt, hst_math_op op)
{
    return (dt == HST_F32 || dt == HST_F64) && (int)op >= 0 && (int)op < (int)HST_MATH_COUNT;
}

HST__KDEF int hst_kernels_reduce_supported(hst_dtype dt, hst_reduce_op op)
{
    if (!hst__dtype_valid(dt)) return 0;
    switch (op) {
    case HST_REDUCE_SUM: return 1;
    case HST_REDUCE_DOT:
    case HST_REDUCE_SQNORM: return hst__is_float(dt);
    case HST_REDUCE_MIN:
    case HST_REDUCE_MAX: return dt != HST_C64;
    default: return 0;
    }
}

HST__KDEF int hst_kernels_arith_supported(hst_dtype dt) { return hst__is_float(dt); }

HST__KDEF size_t hst_kernels_partial_size(hst_dtype dt, hst_reduce_op op)
{
    if (!hst_kernels_reduce_supported(dt, op)) return 0;
    if (op == HST_REDUCE_MIN || op == HST_REDUCE_MAX) return hst_dtype_size(dt);
    if (dt == HST_U8 || dt == HST_I32) return sizeof(int64_t);
    if (dt == HST_C64 && op == HST_REDUCE_SQNORM) return sizeof(float);
    return hst_dtype_size(dt);
}

HST__KDEF const char *const *hst_kernels_vocab_source(size_t *count)
{
    if (count) *count = sizeof hst__vocab_src / sizeof hst__vocab_src[0];
    return hst__vocab_src;
}

HST__KDEF const char *hst_kernels_vocab_options(hst_dtype dt)
{
    static const char *const options[] = {
        "-DHST_DT=1", "-DHST_DT=2", "-DHST_DT=3", "-DHST_DT=4", "-DHST_DT=5"
    };
    return hst__dtype_valid(dt) ? options[dt - HST_U8] : NULL;
}

HST__KDEF void hst_k_philox4x32(uint64_t counter, uint64_t seed, uint32_t out[4])
{
    uint32_t key[2];
    out[0] = (uint32_t)counter;
    out[1] = (uint32_t)(counter >> 32);
    out[2] = 0;
    out[3] = 0;
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    hst__philox4x32_10(out, key);
}

HST__KDEF void hst_k_cast_host(hst_dtype dst_dt, void *dst, hst_dtype src_dt, const void *src,
                             size_t n)
{
    size_t i;
    if (!hst__dtype_valid(dst_dt) || !hst__dtype_valid(src_dt)) return;
    if (dst_dt == src_dt) {
        if (dst != src && n > 0) memmove(dst, src, n * hst_dtype_size(dst_dt));
        return;
    }
    if ((dst_dt == HST_F32 || dst_dt == HST_C64) && (src_dt == HST_F32 || src_dt == HST_C64)) {
        hst__cast_f32_c64(dst_dt, dst, src_dt, src, n);
        return;
    }
    for (i = 0; i < n; ++i) hst__store_real(dst_dt, dst, i, hst__load_real(src_dt, src, i));
}

HST__KDEF void hst_k_scale_host(hst_dtype dt, void *x, size_t n, const double alpha[2])
{
    size_t i;
    if (dt == HST_F32) {
        float a = (float)alpha[0], *v = (float *)x;
        for (i = 0; i < n; ++i) v[i] = a * v[i];
    } else if (dt == HST_F64) {
        double a = alpha[0], *v = (double *)x;
        for (i = 0; i < n; ++i) v[i] = a * v[i];
    } else if (dt == HST_C64) {
        hst__scale_c64((float *)x, n, hst__c32_make((float)alpha[0], (float)alpha[1]));
    }
}

HST__KDEF void hst_k_axpy_host(hst_dtype dt, void *y, const void *x, size_t n,
                             const double alpha[2])
{
    size_t i;
    if (dt == HST_F32) {
        float a = (float)alpha[0], *w = (float *)y;
        const float *v = (const float *)x;
        for (i = 0; i < n; ++i) {
            float t = a * v[i];
            w[i] = t + w[i];
        }
    } else if (dt == HST_F64) {
        double a = alpha[0], *w = (double *)y;
        const double *v = (const double *)x;
        for (i = 0; i < n; ++i) {
            double t = a * v[i];
            w[i] = t + w[i];
        }
    } else if (dt == HST_C64) {
        hst__axpy_c64((float *)y, (const float *)x, n,
                      hst__c32_make((float)alpha[0], (float)alpha[1]));
    }
}

HST__KDEF void hst_k_math_host(hst_dtype dt, void *dst, const void *src, size_t n, hst_math_op op,
                             double p)
{
    size_t i;
    if (!hst_kernels_math_supported(dt, op)) return;
    if (dt == HST_F32) {
        const float *s = (const float *)src;
        float *d = (float *)dst, pf = (float)p;
        for (i = 0; i < n; ++i) d[i] = hst__math_f32(op, s[i], pf);
    } else {
        const double *s = (const double *)src;
        double *d = (double *)dst;
        for (i = 0; i < n; ++i) d[i] = hst__math_f64(op, s[i], p);
    }
}

HST__KDEF void hst_k_random_host(hst_dtype dt, void *x, size_t n, uint64_t seed, uint64_t offset,
                               hst_random_dist dist)
{
    size_t i;
    if (!hst_kernels_arith_supported(dt)) return;
    for (i = 0; i < n; ++i) {
        uint32_t w[4];
        hst_k_philox4x32(offset + (uint64_t)i, seed, w);
        hst__random_store(dt, x, i, w, dist);
    }
}

HST__KDEF void hst_k_reduce_host(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                               size_t n, void *partial)
{
    if (!hst_kernels_reduce_supported(dt, op)) return;
    switch (op) {
    case HST_REDUCE_SUM: hst__reduce_sum(dt, x, n, partial); break;
    case HST_REDUCE_DOT: hst__reduce_dot(dt, x, y, n, partial); break;
    case HST_REDUCE_SQNORM: hst__reduce_sqnorm(dt, x, n, partial); break;
    case HST_REDUCE_MIN: hst__reduce_minmax(dt, 0, x, n, partial); break;
    case HST_REDUCE_MAX: hst__reduce_minmax(dt, 1, x, n, partial); break;
    default: break;
    }
}

HST__KDEF void hst_k_combine_host(hst_dtype dt, hst_reduce_op op, const void *partial, size_t count,
                                hst_scalar *out)
{
    hst__acc a;
    memset(out, 0, sizeof *out);
    if (!hst_kernels_reduce_supported(dt, op)) return;
    a = count == 0 ? hst__acc_identity(dt, op) : hst__combine_range(dt, op, partial, 0, count);
    hst__acc_to_scalar(hst__acc_kind(dt, op), a, out);
}

/* >>stream kernels */

/* The stream program (see the declarations): pieces of at most 4095 characters, checked below. */

static const char hst__stream_src_common[] =
"/* halostream stream program (kernels.h): f32 (N, H, W) volume kernels and per-slice\n"
"   accumulators; -cl-fp32-correctly-rounded-divide-sqrt [-DHST_FP64] [-DHST_ACC_C64] */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#ifdef HST_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"#endif\n"
"\n"
"/* Volume kernels: pointers at global slice base, slices [begin, end) computed, total = N.\n"
"   Voxel o = z*hw + i of slice z (y = i / W, x = i % W); vector fields interleave\n"
"   (pz, py, px) at 3*o. gz = base + z is the global slice. */\n"
"#define HST_VOXEL \\\n"
"  ulong hw = (ulong)H * (ulong)W; \\\n"
"  ulong i = get_global_id(0); \\\n"
"  ulong z = begin + get_global_id(1); \\\n"
"  if (i >= hw || z >= end) return; \\\n"
"  ulong gz = base + z; \\\n"
"  uint yy = (uint)(i / W); \\\n"
"  uint xx = (uint)(i % W); \\\n"
"  ulong o = z * hw + i;\n"
"#define HST_AT_VOXEL gz, total, yy, xx, H, W, hw\n"
"\n"
"/* forward differences at voxel o, 0 at the last index of each axis (Neumann) */\n"
"void hst_s_grad(__global const float *x, ulong o, ulong gz, ulong total, uint yy, uint xx,\n"
"                uint H, uint W, ulong hw, float *q)\n"
"{\n"
"  float v = x[o];\n"
"  q[0] = gz + 1 < total ? x[o + hw] - v : 0.0f;\n"
"  q[1] = yy + 1 < H ? x[o + W] - v : 0.0f;\n"
"  q[2] = xx + 1 < W ? x[o + 1] - v : 0.0f;\n"
"}\n"
"\n"
"/* the negative adjoint of hst_s_grad at voxel o: (dz + dy) + dx */\n"
"float hst_s_div(__global const float *p, ulong o, ulong gz, ulong total, uint yy, uint xx,\n"
"                uint H, uint W, ulong hw)\n"
"{\n"
"  ulong k = 3 * o;\n"
"  float dz = (gz + 1 < total ? p[k] : 0.0f) - (gz > 0 ? p[k - 3 * hw] : 0.0f);\n"
"  float dy = (yy + 1 < H ? p[k + 1] : 0.0f) - (yy > 0 ? p[k + 1 - 3 * (ulong)W] : 0.0f);\n"
"  float dx = (xx + 1 < W ? p[k + 2] : 0.0f) - (xx > 0 ? p[k - 1] : 0.0f);\n"
"  float s = dz + dy;\n"
"  return s + dx;\n"
"}\n"
"\n"
"/* sqrt((a*a + b*b) + c*c) */\n"
"float hst_s_norm3(float a, float b, float c)\n"
"{\n"
"  float s = a * a;\n"
"  float t = b * b;\n"
"  s = s + t;\n"
"  t = c * c;\n"
"  s = s + t;\n"
"  return sqrt(s);\n"
"}\n";

static const char hst__stream_src_volume[] =
"\n"
"/* p = grad x (halo_hi 1 on x) */\n"
"__kernel void hst_k_grad3(__global const float *x, __global float *p, uint H, uint W,\n"
"                          ulong base, ulong begin, ulong end, ulong total, int flags)\n"
"{\n"
"  HST_VOXEL\n"
"  float q[3];\n"
"  hst_s_grad(x, o, HST_AT_VOXEL, q);\n"
"  p[3 * o] = q[0];\n"
"  p[3 * o + 1] = q[1];\n"
"  p[3 * o + 2] = q[2];\n"
"}\n"
"\n"
"/* d = div p (halo_lo 1 on p) */\n"
"__kernel void hst_k_div3(__global const float *p, __global float *d, uint H, uint W,\n"
"                         ulong base, ulong begin, ulong end, ulong total, int flags)\n"
"{\n"
"  HST_VOXEL\n"
"  d[o] = hst_s_div(p, o, HST_AT_VOXEL);\n"
"}\n"
"\n"
"/* Chambolle-Pock dual step, p in/out: q = p + sigma * grad(xbar); p = q / max(1, |q|) */\n"
"__kernel void hst_k_tv_dual(__global const float *xbar, __global float *p, uint H, uint W,\n"
"                            float sigma, ulong base, ulong begin, ulong end, ulong total,\n"
"                            int flags)\n"
"{\n"
"  HST_VOXEL\n"
"  float q[3];\n"
"  hst_s_grad(xbar, o, HST_AT_VOXEL, q);\n"
"  for (int c = 0; c < 3; ++c) {\n"
"    float t = sigma * q[c];\n"
"    q[c] = p[3 * o + c] + t;\n"
"  }\n"
"  float n = hst_s_norm3(q[0], q[1], q[2]);\n"
"  float m = n > 1.0f ? n : 1.0f;\n"
"  for (int c = 0; c < 3; ++c)\n"
"    p[3 * o + c] = q[c] / m;\n"
"}\n"
"\n"
"/* Chambolle-Pock primal step, x in/out:\n"
"   xn = ((x + tau * div p) + (tau * lambda) * f) / (1 + tau * lambda); xbar = 2 xn - x */\n"
"__kernel void hst_k_tv_primal(__global const float *p, __global const float *f,\n"
"                              __global float *x, __global float *xbar, uint H, uint W,\n"
"                              float tau, float lambda, ulong base, ulong begin, ulong end,\n"
"                              ulong total, int flags)\n"
"{\n"
"  HST_VOXEL\n"
"  float xo = x[o];\n"
"  float dv = hst_s_div(p, o, HST_AT_VOXEL);\n"
"  float tl = tau * lambda;\n"
"  float a = tau * dv;\n"
"  float b = tl * f[o];\n"
"  float num = xo + a;\n"
"  num = num + b;\n"
"  float den = 1.0f + tl;\n"
"  float xn = num / den;\n"
"  float t = 2.0f * xn;\n"
"  x[o] = xn;\n"
"  xbar[o] = t - xo;\n"
"}\n"
"\n"
"/* per-voxel primal-dual gap term (sum over voxels = P(x) - D(p)):\n"
"   ((|grad x| + (lambda/2) (x - f)^2) + f div p) + (div p)^2 / (2 lambda) */\n"
"__kernel void hst_k_tv_gap(__global const float *x, __global const float *p,\n"
"                           __global const float *f, __global float *gap, uint H, uint W,\n"
"                           float lambda, ulong base, ulong begin, ulong end, ulong total,\n"
"                           int flags)\n"
"{\n"
"  HST_VOXEL\n"
"  float q[3];\n"
"  hst_s_grad(x, o, HST_AT_VOXEL, q);\n"
"  float n = hst_s_norm3(q[0], q[1], q[2]);\n"
"  float dv = hst_s_div(p, o, HST_AT_VOXEL);\n"
"  float fo = f[o];\n"
"  float r = x[o] - fo;\n"
"  float hl = 0.5f * lambda;\n"
"  float a = r * r;\n"
"  a = hl * a;\n"
"  float b = fo * dv;\n"
"  float c = dv * dv;\n"
"  float l2 = 2.0f * lambda;\n"
"  c = c / l2;\n"
"  float s = n + a;\n"
"  s = s + b;\n"
"  gap[o] = s + c;\n"
"}\n";

static const char hst__stream_src_acc[] =
"\n"
"/* Per-slice accumulators: T element (float, or float2 with -DHST_ACC_C64), ACC accumulator\n"
"   (double with -DHST_FP64, else float). kind 1 SUM (c64: real part), 2 SQSUM |a|^2,\n"
"   3 DIFF2 |a - b|^2. Every element is converted to ACC first. */\n"
"#ifdef HST_ACC_C64\n"
"typedef float2 HST_AT;\n"
"#else\n"
"typedef float HST_AT;\n"
"#endif\n"
"#ifdef HST_FP64\n"
"typedef double HST_ACC;\n"
"#else\n"
"typedef float HST_ACC;\n"
"#endif\n"
"#define HST_ACC_LOCAL " HST__KXSTR(HST_REDUCE_LOCAL) "\n"
"\n"
"HST_ACC hst_s_acc_term(__global const HST_AT *a, __global const HST_AT *b, ulong j, int kind)\n"
"{\n"
"#ifdef HST_ACC_C64\n"
"  HST_ACC re = (HST_ACC)a[j].x;\n"
"  HST_ACC im = (HST_ACC)a[j].y;\n"
"  if (kind == 1) return re;\n"
"  if (kind == 3) {\n"
"    re = re - (HST_ACC)b[j].x;\n"
"    im = im - (HST_ACC)b[j].y;\n"
"  }\n"
"  HST_ACC s = re * re;\n"
"  HST_ACC t = im * im;\n"
"  return s + t;\n"
"#else\n"
"  HST_ACC v = (HST_ACC)a[j];\n"
"  if (kind == 1) return v;\n"
"  if (kind == 3) v = v - (HST_ACC)b[j];\n"
"  return v * v;\n"
"#endif\n"
"}\n"
"\n"
"/* one work-group per slice z = begin + group(1): lane l adds elements l + 256 k, then a tree */\n"
"__kernel __attribute__((reqd_work_group_size(HST_ACC_LOCAL, 1, 1)))\n"
"void hst_k_slice_acc(__global const HST_AT *a, __global const HST_AT *b, ulong elems,\n"
"                     ulong begin, ulong end, int kind, __global HST_ACC *acc, ulong acc_offset)\n"
"{\n"
"  __local HST_ACC s[HST_ACC_LOCAL];\n"
"  uint l = (uint)get_local_id(0);\n"
"  ulong z = begin + get_group_id(1);\n"
"  if (z >= end || kind < 1 || kind > 3) return;\n"
"  ulong o = z * elems;\n"
"  HST_ACC v = 0;\n"
"  for (ulong j = l; j < elems; j += HST_ACC_LOCAL) {\n"
"    HST_ACC t = hst_s_acc_term(a, b, o + j, kind);\n"
"    v = v + t;\n"
"  }\n"
"  s[l] = v;\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (uint k = HST_ACC_LOCAL / 2; k > 0; k >>= 1) {\n"
"    if (l < k) s[l] = s[l] + s[l + k];\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"  }\n"
"  if (l == 0) acc[acc_offset + (z - begin)] = s[0];\n"
"}\n";

typedef char hst__check_piece_s_common[(sizeof(hst__stream_src_common) <= 4096) ? 1 : -1];
typedef char hst__check_piece_s_volume[(sizeof(hst__stream_src_volume) <= 4096) ? 1 : -1];
typedef char hst__check_piece_s_acc[(sizeof(hst__stream_src_acc) <= 4096) ? 1 : -1];

static const char *const hst__stream_src[] = {
    hst__stream_src_common, hst__stream_src_volume, hst__stream_src_acc
};

/* One voxel of a block, as the device's HST_VOXEL sees it. */
typedef struct hst__svox {
    size_t o, hw;       /* voxel index relative to base; H*W */
    uint64_t g, total;  /* global slice; N */
    uint32_t y, x, H, W;
} hst__svox;

HST__KPRIVATE void hst__svox_at(hst__svox *v, uint32_t H, uint32_t W, uint64_t base,
                                uint64_t total, uint64_t z, size_t i)
{
    v->hw = (size_t)H * (size_t)W;
    v->o = (size_t)z * v->hw + i;
    v->g = base + z;
    v->total = total;
    v->y = (uint32_t)(i / W);
    v->x = (uint32_t)(i % W);
    v->H = H;
    v->W = W;
}

/* twin of hst_s_grad */
HST__KPRIVATE void hst__s_grad(const float *x, const hst__svox *v, float q[3])
{
    float c = x[v->o];
    q[0] = v->g + 1 < v->total ? x[v->o + v->hw] - c : 0.0f;
    q[1] = v->y + 1 < v->H ? x[v->o + v->W] - c : 0.0f;
    q[2] = v->x + 1 < v->W ? x[v->o + 1] - c : 0.0f;
}

/* twin of hst_s_div */
HST__KPRIVATE float hst__s_div(const float *p, const hst__svox *v)
{
    size_t k = 3 * v->o;
    float dz = (v->g + 1 < v->total ? p[k] : 0.0f) - (v->g > 0 ? p[k - 3 * v->hw] : 0.0f);
    float dy = (v->y + 1 < v->H ? p[k + 1] : 0.0f) - (v->y > 0 ? p[k + 1 - 3 * (size_t)v->W]
                                                                : 0.0f);
    float dx = (v->x + 1 < v->W ? p[k + 2] : 0.0f) - (v->x > 0 ? p[k - 1] : 0.0f);
    float s = dz + dy;
    return s + dx;
}

/* twin of hst_s_norm3 */
HST__KPRIVATE float hst__s_norm3(float a, float b, float c)
{
    float s = a * a;
    float t = b * b;
    s = s + t;
    t = c * c;
    s = s + t;
    return sqrtf(s);
}

/* twin of hst_s_acc_term in double (dt HST_F32 or HST_C64; kind 1..3) */
HST__KPRIVATE double hst__s_acc_term(hst_dtype dt, int kind, const void *a, const void *b,
                                     size_t j)
{
    if (dt == HST_C64) {
        const float *pa = (const float *)a, *pb = (const float *)b;
        double re = (double)pa[2 * j], im = (double)pa[2 * j + 1], s, t;
        if (kind == 1) return re;
        if (kind == 3) {
            re = re - (double)pb[2 * j];
            im = im - (double)pb[2 * j + 1];
        }
        s = re * re;
        t = im * im;
        return s + t;
    } else {
        double v = (double)((const float *)a)[j];
        if (kind == 1) return v;
        if (kind == 3) v = v - (double)((const float *)b)[j];
        return v * v;
    }
}

HST__KDEF const char *const *hst_kernels_stream_source(size_t *count)
{
    if (count) *count = sizeof hst__stream_src / sizeof hst__stream_src[0];
    return hst__stream_src;
}

HST__KDEF void hst_k_grad3_host(const float *x, float *p, uint32_t H, uint32_t W, uint64_t base,
                              uint64_t begin, uint64_t end, uint64_t total)
{
    uint64_t z;
    size_t i, hw = (size_t)H * (size_t)W;
    for (z = begin; z < end; ++z)
        for (i = 0; i < hw; ++i) {
            hst__svox v;
            float q[3];
            hst__svox_at(&v, H, W, base, total, z, i);
            hst__s_grad(x, &v, q);
            p[3 * v.o] = q[0];
            p[3 * v.o + 1] = q[1];
            p[3 * v.o + 2] = q[2];
        }
}

HST__KDEF void hst_k_div3_host(const float *p, float *d, uint32_t H, uint32_t W, uint64_t base,
                             uint64_t begin, uint64_t end, uint64_t total)
{
    uint64_t z;
    size_t i, hw = (size_t)H * (size_t)W;
    for (z = begin; z < end; ++z)
        for (i = 0; i < hw; ++i) {
            hst__svox v;
            hst__svox_at(&v, H, W, base, total, z, i);
            d[v.o] = hst__s_div(p, &v);
        }
}

HST__KDEF void hst_k_tv_dual_host(const float *xbar, float *p, uint32_t H, uint32_t W, float sigma,
                                uint64_t base, uint64_t begin, uint64_t end, uint64_t total)
{
    uint64_t z;
    size_t i, hw = (size_t)H * (size_t)W;
    for (z = begin; z < end; ++z)
        for (i = 0; i < hw; ++i) {
            hst__svox v;
            float q[3], n, m;
            int c;
            hst__svox_at(&v, H, W, base, total, z, i);
            hst__s_grad(xbar, &v, q);
            for (c = 0; c < 3; ++c) {
                float t = sigma * q[c];
                q[c] = p[3 * v.o + (size_t)c] + t;
            }
            n = hst__s_norm3(q[0], q[1], q[2]);
            m = n > 1.0f ? n : 1.0f;
            for (c = 0; c < 3; ++c) p[3 * v.o + (size_t)c] = q[c] / m;
        }
}

HST__KDEF void hst_k_tv_primal_host(const float *p, const float *f, float *x, float *xbar,
                                  uint32_t H, uint32_t W, float tau, float lambda, uint64_t base,
                                  uint64_t begin, uint64_t end, uint64_t total)
{
    uint64_t z;
    size_t i, hw = (size_t)H * (size_t)W;
    for (z = begin; z < end; ++z)
        for (i = 0; i < hw; ++i) {
            hst__svox v;
            float xo, dv, tl, a, b, num, den, xn, t;
            hst__svox_at(&v, H, W, base, total, z, i);
            xo = x[v.o];
            dv = hst__s_div(p, &v);
            tl = tau * lambda;
            a = tau * dv;
            b = tl * f[v.o];
            num = xo + a;
            num = num + b;
            den = 1.0f + tl;
            xn = num / den;
            t = 2.0f * xn;
            x[v.o] = xn;
            xbar[v.o] = t - xo;
        }
}

HST__KDEF void hst_k_tv_gap_host(const float *x, const float *p, const float *f, float *gap,
                               uint32_t H, uint32_t W, float lambda, uint64_t base,
                               uint64_t begin, uint64_t end, uint64_t total)
{
    uint64_t z;
    size_t i, hw = (size_t)H * (size_t)W;
    for (z = begin; z < end; ++z)
        for (i = 0; i < hw; ++i) {
            hst__svox v;
            float q[3], n, dv, fo, r, hl, a, b, c, l2, s;
            hst__svox_at(&v, H, W, base, total, z, i);
            hst__s_grad(x, &v, q);
            n = hst__s_norm3(q[0], q[1], q[2]);
            dv = hst__s_div(p, &v);
            fo = f[v.o];
            r = x[v.o] - fo;
            hl = 0.5f * lambda;
            a = r * r;
            a = hl * a;
            b = fo * dv;
            c = dv * dv;
            l2 = 2.0f * lambda;
            c = c / l2;
            s = n + a;
            s = s + b;
            gap[v.o] = s + c;
        }
}

HST__KDEF void hst_k_slice_acc_host(hst_dtype dt, int kind, const void *a, const void *b,
                                  size_t elems, double *out)
{
    double lane[HST_REDUCE_LOCAL];
    size_t l, j, s;
    if ((dt != HST_F32 && dt != HST_C64) || kind < 1 || kind > 3) return;
    for (l = 0; l < HST_REDUCE_LOCAL; ++l) {
        double v = 0.0;
        for (j = l; j < elems; j += HST_REDUCE_LOCAL) {
            double t = hst__s_acc_term(dt, kind, a, b, j);
            v = v + t;
        }
        lane[l] = v;
    }
    for (s = HST_REDUCE_LOCAL / 2; s > 0; s >>= 1)
        for (l = 0; l < s; ++l) lane[l] = lane[l] + lane[l + s];
    *out = lane[0];
}

/* <<stream kernels */


/* >>halo kernels */

/* The halo program (hst_kernels_halo_source); each piece at most 4095 characters, checked below. */
static const char hst__halo_src_args[] =
"/* halostream halo program (kernels.h): -DHST_HALO_NQ=8,16,...,64 quantity arguments */\n"
"#if !defined(HST_HALO_NQ) || HST_HALO_NQ < 8 || HST_HALO_NQ > 64 || (HST_HALO_NQ % 8) != 0\n"
"#error \"build with -DHST_HALO_NQ=8,16,...,64 (hst_kernels_halo_options)\"\n"
"#endif\n"
"#define HST_DW " HST__KXSTR(HST_K_HALO_DESC_WORDS) "\n"
"/* quantity parameters and the selection of quantity qi, 8 at a time */\n"
"#define HST_HQ(a, b, c, d, e, f, g, h) , __global uchar *q##a, __global uchar *q##b, \\\n"
"  __global uchar *q##c, __global uchar *q##d, __global uchar *q##e, __global uchar *q##f, \\\n"
"  __global uchar *q##g, __global uchar *q##h\n"
"#define HST_HS(a, b, c, d, e, f, g, h) if (qi == a##u) p = q##a; if (qi == b##u) p = q##b; \\\n"
"  if (qi == c##u) p = q##c; if (qi == d##u) p = q##d; if (qi == e##u) p = q##e; \\\n"
"  if (qi == f##u) p = q##f; if (qi == g##u) p = q##g; if (qi == h##u) p = q##h;\n"
"#if HST_HALO_NQ > 8\n"
"#define HST_HQ1 HST_HQ(8, 9, 10, 11, 12, 13, 14, 15)\n"
"#define HST_HS1 HST_HS(8, 9, 10, 11, 12, 13, 14, 15)\n"
"#else\n"
"#define HST_HQ1\n"
"#define HST_HS1\n"
"#endif\n"
"#if HST_HALO_NQ > 16\n"
"#define HST_HQ2 HST_HQ(16, 17, 18, 19, 20, 21, 22, 23)\n"
"#define HST_HS2 HST_HS(16, 17, 18, 19, 20, 21, 22, 23)\n"
"#else\n"
"#define HST_HQ2\n"
"#define HST_HS2\n"
"#endif\n"
"#if HST_HALO_NQ > 24\n"
"#define HST_HQ3 HST_HQ(24, 25, 26, 27, 28, 29, 30, 31)\n"
"#define HST_HS3 HST_HS(24, 25, 26, 27, 28, 29, 30, 31)\n"
"#else\n"
"#define HST_HQ3\n"
"#define HST_HS3\n"
"#endif\n"
"#if HST_HALO_NQ > 32\n"
"#define HST_HQ4 HST_HQ(32, 33, 34, 35, 36, 37, 38, 39)\n"
"#define HST_HS4 HST_HS(32, 33, 34, 35, 36, 37, 38, 39)\n"
"#else\n"
"#define HST_HQ4\n"
"#define HST_HS4\n"
"#endif\n"
"#if HST_HALO_NQ > 40\n"
"#define HST_HQ5 HST_HQ(40, 41, 42, 43, 44, 45, 46, 47)\n"
"#define HST_HS5 HST_HS(40, 41, 42, 43, 44, 45, 46, 47)\n"
"#else\n"
"#define HST_HQ5\n"
"#define HST_HS5\n"
"#endif\n"
"#if HST_HALO_NQ > 48\n"
"#define HST_HQ6 HST_HQ(48, 49, 50, 51, 52, 53, 54, 55)\n"
"#define HST_HS6 HST_HS(48, 49, 50, 51, 52, 53, 54, 55)\n"
"#else\n"
"#define HST_HQ6\n"
"#define HST_HS6\n"
"#endif\n"
"#if HST_HALO_NQ > 56\n"
"#define HST_HQ7 HST_HQ(56, 57, 58, 59, 60, 61, 62, 63)\n"
"#define HST_HS7 HST_HS(56, 57, 58, 59, 60, 61, 62, 63)\n"
"#else\n"
"#define HST_HQ7\n"
"#define HST_HS7\n"
"#endif\n"
"#define HST_HQALL HST_HQ(0, 1, 2, 3, 4, 5, 6, 7) HST_HQ1 HST_HQ2 HST_HQ3 HST_HQ4 HST_HQ5 \\\n"
"  HST_HQ6 HST_HQ7\n"
"#define HST_HSALL HST_HS(0, 1, 2, 3, 4, 5, 6, 7) HST_HS1 HST_HS2 HST_HS3 HST_HS4 HST_HS5 \\\n"
"  HST_HS6 HST_HS7\n";

static const char hst__halo_src_helpers[] =
"#define HST_CHUNK 1024u\n"
"#define HST_TILE_WORDS 1536\n"
"/* the slot of work-group g: the last s with prefix[s] <= g (prefix strictly increasing) */\n"
"ulong hst_halo_find(__global const ulong *prefix, ulong nslots, ulong g)\n"
"{\n"
"  ulong lo = 0, hi = nslots;\n"
"  while (hi - lo > 1) {\n"
"    ulong mid = lo + (hi - lo) / 2;\n"
"    if (prefix[mid] <= g) lo = mid; else hi = mid;\n"
"  }\n"
"  return lo;\n"
"}\n"
"/* n / d by d's magic word (Granlund-Montgomery; halo.h computes it) */\n"
"uint hst_halo_div(uint n, ulong mg)\n"
"{\n"
"  uint t = mul_hi(n, (uint)mg);\n"
"  return (t + ((n - t) >> (uint)((mg >> 32) & 1UL))) >> (uint)(mg >> 40);\n"
"}\n"
"ulong hst_halo_ld(__global const uchar *p, uint es)\n"
"{\n"
"  if (es == 4u) return (ulong)*(__global const uint *)p;\n"
"  if (es == 8u) return *(__global const ulong *)p;\n"
"  if (es == 2u) return (ulong)*(__global const ushort *)p;\n"
"  return (ulong)*p;\n"
"}\n"
"void hst_halo_st(__global uchar *p, uint es, ulong v)\n"
"{\n"
"  if (es == 4u) *(__global uint *)p = (uint)v;\n"
"  else if (es == 8u) *(__global ulong *)p = v;\n"
"  else if (es == 2u) *(__global ushort *)p = (ushort)v;\n"
"  else *p = (uchar)v;\n"
"}\n"
"/* op 1 flips the sign bit, op 2 negates (two's complement, wrapping at es bytes) */\n"
"ulong hst_halo_op(ulong v, uint es, uint op)\n"
"{\n"
"  if (op == 1u && es > 1u) v ^= 1UL << (es * 8u - 1u);\n"
"  else if (op == 2u) v = 0UL - v;\n"
"  return v;\n"
"}\n"
"/* 64-bit path (mode 2, 16-byte elements): element e of the slot, moved alone */\n"
"void hst_halo_move(__global uchar *dst, __global const uchar *src, uint es, uint op)\n"
"{\n"
"  if (es == 16u) *(__global uint4 *)dst = *(__global const uint4 *)src;\n"
"  else hst_halo_st(dst, es, hst_halo_op(hst_halo_ld(src, es), es, op));\n"
"}\n"
"void hst_halo_wide(__global const ulong *d, ulong t, __global uchar *buf, __global uchar *p,\n"
"                   uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12];\n"
"  ulong n = d[6] * d[7] * d[8] * d[9];\n"
"  for (uint l = get_local_id(0); l < HST_CHUNK; l += get_local_size(0)) {\n"
"    ulong e = t * HST_CHUNK + l, m = e, i0, i1, i2, i3;\n"
"    if (e >= n) break;\n"
"    i3 = m % d[9]; m /= d[9]; i2 = m % d[8]; m /= d[8]; i1 = m % d[7]; i0 = m / d[7];\n"
"    long o = (long)d[1] + (long)i0 * (long)d[2] + (long)i1 * (long)d[3]\n"
"             + (long)i2 * (long)d[4] + (long)i3 * (long)d[5];\n"
"    __global uchar *b = buf + d[0] + e * es, *q = p + o * (long)es;\n"
"    if (un) hst_halo_move(q, b, es, 0u); else hst_halo_move(b, q, es, op);\n"
"  }\n"
"}\n";

static const char hst__halo_src_modes[] =
"/* mode 0: chunk t of HST_CHUNK elements in buffer order, 4 loads in flight per work-item */\n"
"void hst_halo_direct(__global const ulong *d, uint t, __global uchar *bb, __global uchar *qb,\n"
"                     uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12], L = get_local_size(0);\n"
"  uint n1 = (uint)d[7], n2 = (uint)d[8], n3 = (uint)d[9], n = (uint)d[6] * n1 * n2 * n3;\n"
"  uint s0 = (uint)d[2], s1 = (uint)d[3], s2 = (uint)d[4], s3 = (uint)d[5];\n"
"  ulong m3 = d[20], m2 = d[21], m1 = d[22];\n"
"  uint c0 = t * HST_CHUNK;\n"
"  for (uint j = get_local_id(0); j < HST_CHUNK; j += 4u * L) {\n"
"    ulong v[4];\n"
"    uint e[4], o[4];\n"
"    for (uint k = 0; k < 4u; ++k) {\n"
"      uint x = c0 + j + k * L, r = hst_halo_div(x, m3), i3 = x - r * n3;\n"
"      uint r2 = hst_halo_div(r, m2), i2 = r - r2 * n2;\n"
"      uint i0 = hst_halo_div(r2, m1), i1 = r2 - i0 * n1;\n"
"      e[k] = x;\n"
"      o[k] = (i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3) * es;\n"
"      v[k] = 0;\n"
"      if (x < n) v[k] = un ? hst_halo_ld(bb + x * es, es) : hst_halo_ld(qb + (int)o[k], es);\n"
"    }\n"
"    for (uint k = 0; k < 4u; ++k) {\n"
"      if (e[k] >= n) continue;\n"
"      if (un) hst_halo_st(qb + (int)o[k], es, v[k]);\n"
"      else hst_halo_st(bb + e[k] * es, es, hst_halo_op(v[k], es, op));\n"
"    }\n"
"  }\n"
"}\n"
"/* mode 1: a TB x TA tile through local memory; B the quantity-contiguous dimension, A (3) the\n"
"   buffer-contiguous one: the quantity side runs along B, the buffer side along A */\n"
"void hst_halo_tiled(__global const ulong *d, uint t, __global uchar *bb, __global uchar *qb,\n"
"                    __local ulong *tile, uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12], L = get_local_size(0);\n"
"  uint lid = get_local_id(0), lb = (uint)d[16], la = (uint)d[17];\n"
"  uint TB = 1u << lb, TA = 1u << la, pitch = TA + 1u, sz = TB << la;\n"
"  uint r = hst_halo_div(t, d[20]), ta = t - r * (uint)d[19];\n"
"  uint r2 = hst_halo_div(r, d[21]), tb = r - r2 * (uint)d[18];\n"
"  uint io1 = hst_halo_div(r2, d[22]), io2 = r2 - io1 * (uint)d[24];\n"
"  uint b0 = tb << lb, a0 = ta << la;\n"
"  uint vb = min(TB, (uint)d[23] - b0), va = min(TA, (uint)d[9] - a0);\n"
"  uint qsb = (uint)d[25], qsa = (uint)d[5], bsb = (uint)d[28];\n"
"  uint qo = io1 * (uint)d[26] + io2 * (uint)d[27] + b0 * qsb + a0 * qsa;\n"
"  uint bo = io1 * (uint)d[29] + io2 * (uint)d[30] + b0 * bsb + a0;\n"
"  for (uint j = lid; j < sz; j += 4u * L) {\n"
"    ulong v[4];\n"
"    uint w[4];\n"
"    for (uint k = 0; k < 4u; ++k) {\n"
"      uint l = j + k * L, a, b;\n"
"      if (un) { a = l & (TA - 1u); b = l >> la; } else { b = l & (TB - 1u); a = l >> lb; }\n"
"      w[k] = (l < sz && a < va && b < vb) ? b * pitch + a : 0xffffffffu;\n"
"      v[k] = 0;\n"
"      if (w[k] != 0xffffffffu)\n"
"        v[k] = un ? hst_halo_ld(bb + (bo + b * bsb + a) * es, es)\n"
"                  : hst_halo_ld(qb + (int)((qo + b * qsb + a * qsa) * es), es);\n"
"    }\n"
"    for (uint k = 0; k < 4u; ++k)\n"
"      if (w[k] != 0xffffffffu) tile[w[k]] = v[k];\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (uint l = lid; l < sz; l += L) {\n"
"    uint a, b;\n"
"    if (un) { b = l & (TB - 1u); a = l >> lb; } else { a = l & (TA - 1u); b = l >> la; }\n"
"    if (a >= va || b >= vb) continue;\n"
"    ulong v = tile[b * pitch + a];\n"
"    if (un) hst_halo_st(qb + (int)((qo + b * qsb + a * qsa) * es), es, v);\n"
"    else hst_halo_st(bb + (bo + b * bsb + a) * es, es, hst_halo_op(v, es, op));\n"
"  }\n"
"}\n";

static const char hst__halo_src_kernels[] =
"/* one work-group: find its slot once, pick the quantity once, move the slot's part */\n"
"void hst_halo_group(__global uchar *buf, __global uchar *p, __global const ulong *d, ulong t,\n"
"                    __local ulong *tile, uint un)\n"
"{\n"
"  uint es = (uint)d[11], mode = (uint)d[13];\n"
"  if (mode == 2u || es == 16u) { hst_halo_wide(d, t, buf, p, un); return; }\n"
"  __global uchar *qb = p + (long)d[1] * (long)es, *bb = buf + d[0];\n"
"  if (mode == 1u) hst_halo_tiled(d, (uint)t, bb, qb, tile, un);\n"
"  else hst_halo_direct(d, (uint)t, bb, qb, un);\n"
"}\n"
"#define HST_HALO_KERNEL(name, un) \\\n"
"__kernel void name(__global const ulong *table, ulong prefix_at, ulong desc_at, ulong nslots, \\\n"
"                   ulong total, __global uchar *buf HST_HQALL) \\\n"
"{ \\\n"
"  __local ulong tile[HST_TILE_WORDS]; \\\n"
"  ulong g = get_group_id(0); \\\n"
"  if (g >= total) return; \\\n"
"  __global const ulong *prefix = table + prefix_at; \\\n"
"  ulong s = hst_halo_find(prefix, nslots, g); \\\n"
"  __global const ulong *d = table + desc_at + s * HST_DW; \\\n"
"  uint qi = (uint)d[10]; \\\n"
"  __global uchar *p = q0; \\\n"
"  HST_HSALL \\\n"
"  hst_halo_group(buf, p, d, g - prefix[s], tile, un); \\\n"
"}\n"
"HST_HALO_KERNEL(hst_k_halo_pack, 0u)\n"
"HST_HALO_KERNEL(hst_k_halo_unpack, 1u)\n";

typedef char hst__check_piece_halo_args[(sizeof(hst__halo_src_args) <= 4096) ? 1 : -1];
typedef char hst__check_piece_halo_helpers[(sizeof(hst__halo_src_helpers) <= 4096) ? 1 : -1];
typedef char hst__check_piece_halo_modes[(sizeof(hst__halo_src_modes) <= 4096) ? 1 : -1];
typedef char hst__check_piece_halo_kernels[(sizeof(hst__halo_src_kernels) <= 4096) ? 1 : -1];
/* The device source hard-codes the descriptor words, op and mode numbers. */
typedef char hst__check_halo_abi[(HST_K_HALO_D_BUF == 0 && HST_K_HALO_D_BASE == 1 &&
                                  HST_K_HALO_D_STEP == 2 && HST_K_HALO_D_EXT == 6 &&
                                  HST_K_HALO_D_QUANTITY == 10 && HST_K_HALO_D_ELEM == 11 &&
                                  HST_K_HALO_D_OP == 12 && HST_K_HALO_D_MODE == 13 &&
                                  HST_K_HALO_D_LOG_TB == 16 && HST_K_HALO_D_LOG_TA == 17 &&
                                  HST_K_HALO_D_NT_B == 18 && HST_K_HALO_D_NT_A == 19 &&
                                  HST_K_HALO_D_MAGIC == 20 && HST_K_HALO_D_N_B == 23 &&
                                  HST_K_HALO_D_N_O2 == 24 && HST_K_HALO_D_QS_B == 25 &&
                                  HST_K_HALO_D_QS_O == 26 && HST_K_HALO_D_BS_B == 28 &&
                                  HST_K_HALO_D_BS_O == 29 && HST_K_HALO_DESC_WORDS == 32 &&
                                  HST_K_HALO_CHUNK == 1024 && HST_K_HALO_TILE_WORDS == 1536 &&
                                  HST_K_HALO_OP_FLIP_SIGN == 1 && HST_K_HALO_OP_NEGATE_INT == 2 &&
                                  HST_K_HALO_MODE_TILED == 1 && HST_K_HALO_MODE_WIDE == 2 &&
                                  HST_K_HALO_MAX_QUANTITIES == 64) ? 1 : -1];

static const char *const hst__halo_src[] = { hst__halo_src_args, hst__halo_src_helpers,
                                             hst__halo_src_modes, hst__halo_src_kernels };

/* Applies a pack op to n elements of es bytes at p, in place (bit patterns via memcpy, so no
   alignment or aliasing assumptions). */
HST__KPRIVATE void hst__halo_op(unsigned char *p, size_t n, size_t es, unsigned op)
{
    size_t i;
    if (op == HST_K_HALO_OP_COPY) return;
    for (i = 0; i < n; ++i, p += es) {
        if (es == 1) {
            if (op == HST_K_HALO_OP_NEGATE_INT) *p = (unsigned char)(0u - *p);
        } else if (es == 2) {
            uint16_t v;
            memcpy(&v, p, 2);
            v = (uint16_t)(op == HST_K_HALO_OP_FLIP_SIGN ? v ^ 0x8000u : 0u - v);
            memcpy(p, &v, 2);
        } else if (es == 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = op == HST_K_HALO_OP_FLIP_SIGN ? v ^ 0x80000000u : 0u - v;
            memcpy(p, &v, 4);
        } else if (es == 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = op == HST_K_HALO_OP_FLIP_SIGN ? v ^ ((uint64_t)1 << 63) : (uint64_t)0 - v;
            memcpy(p, &v, 8);
        }
    }
}

/* One slot, in the kernels' element order: runs along the last dimension are memcpy'd when
   contiguous (step 1), element by element otherwise. */
HST__KPRIVATE void hst__halo_slot(const uint64_t *d, unsigned char *q, unsigned char *buf,
                                  int pack)
{
    size_t es = (size_t)d[HST_K_HALO_D_ELEM], i0, i1, i2, i3;
    size_t n0 = (size_t)d[HST_K_HALO_D_EXT], n1 = (size_t)d[HST_K_HALO_D_EXT + 1];
    size_t n2 = (size_t)d[HST_K_HALO_D_EXT + 2], n3 = (size_t)d[HST_K_HALO_D_EXT + 3];
    int64_t s0 = (int64_t)d[HST_K_HALO_D_STEP], s1 = (int64_t)d[HST_K_HALO_D_STEP + 1];
    int64_t s2 = (int64_t)d[HST_K_HALO_D_STEP + 2], s3 = (int64_t)d[HST_K_HALO_D_STEP + 3];
    unsigned op = pack ? (unsigned)d[HST_K_HALO_D_OP] : (unsigned)HST_K_HALO_OP_COPY;
    unsigned char *seg = buf + d[HST_K_HALO_D_BUF];
    for (i0 = 0; i0 < n0; ++i0)
        for (i1 = 0; i1 < n1; ++i1)
            for (i2 = 0; i2 < n2; ++i2) {
                int64_t off = (int64_t)d[HST_K_HALO_D_BASE] + (int64_t)i0 * s0 +
                              (int64_t)i1 * s1 + (int64_t)i2 * s2;
                if (s3 == 1) {
                    unsigned char *qp = q + (size_t)off * es;
                    if (pack) {
                        memcpy(seg, qp, n3 * es);
                        hst__halo_op(seg, n3, es, op);
                    } else {
                        memcpy(qp, seg, n3 * es);
                    }
                    seg += n3 * es;
                    continue;
                }
                for (i3 = 0; i3 < n3; ++i3, seg += es) {
                    unsigned char *qp = q + (size_t)(off + (int64_t)i3 * s3) * es;
                    if (pack) {
                        memcpy(seg, qp, es);
                        hst__halo_op(seg, 1, es, op);
                    } else {
                        memcpy(qp, seg, es);
                    }
                }
            }
}

HST__KDEF const char *const *hst_kernels_halo_source(size_t *count)
{
    if (count) *count = sizeof hst__halo_src / sizeof hst__halo_src[0];
    return hst__halo_src;
}

HST__KDEF const char *hst_kernels_halo_options(size_t n_quantities)
{
    static const char *const options[] = {
        "-DHST_HALO_NQ=8", "-DHST_HALO_NQ=16", "-DHST_HALO_NQ=24", "-DHST_HALO_NQ=32",
        "-DHST_HALO_NQ=40", "-DHST_HALO_NQ=48", "-DHST_HALO_NQ=56", "-DHST_HALO_NQ=64"
    };
    if (n_quantities == 0 || n_quantities > HST_K_HALO_MAX_QUANTITIES) return NULL;
    return options[(n_quantities - 1) / 8];
}

HST__KDEF void hst_k_halo_pack_host(const uint64_t *desc, size_t nslots, void *const *quantities,
                                    void *buffer)
{
    size_t s;
    for (s = 0; s < nslots; ++s) {
        const uint64_t *d = desc + s * HST_K_HALO_DESC_WORDS;
        hst__halo_slot(d, (unsigned char *)quantities[d[HST_K_HALO_D_QUANTITY]],
                       (unsigned char *)buffer, 1);
    }
}

HST__KDEF void hst_k_halo_unpack_host(const uint64_t *desc, size_t nslots, const void *buffer,
                                      void *const *quantities)
{
    size_t s;
    for (s = 0; s < nslots; ++s) {
        const uint64_t *d = desc + s * HST_K_HALO_DESC_WORDS;
        hst__halo_slot(d, (unsigned char *)quantities[d[HST_K_HALO_D_QUANTITY]],
                       (unsigned char *)(uintptr_t)buffer, 0);
    }
}

/* <<halo kernels */

#ifdef HST__KERNELS_CLANG_FP
#  pragma float_control(pop)
#endif

#endif /* HST_KERNELS_IMPLEMENTATION */

/* MIT License

   Copyright (c) 2026 the halostream authors

   Permission is hereby granted, free of charge, to any person obtaining a copy of this software
   and associated documentation files (the "Software"), to deal in the Software without
   restriction, including without limitation the rights to use, copy, modify, merge, publish,
   distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
   Software is furnished to do so, subject to the following conditions:

   The above copyright notice and this permission notice shall be included in all copies or
   substantial portions of the Software.

   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
   BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
   NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
   DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
   OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE. */
