/* kernels.h — halostream's kernel library: OpenCL C 1.2 kernel sources as string literals, and a
   host C twin of every kernel with the same semantics (bit for bit where stated). Single-file,
   header-only, C99 (and C++). It includes no OpenCL header: it works with HST_NO_OPENCL too.

   Do this:
       #define HST_KERNELS_IMPLEMENTATION     (or HST_IMPLEMENTATION for every header)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.)

   Usage (the vocabulary program for f32, built with plain OpenCL, and its host reference):

       // given: cl_context ctx; cl_device_id dev; cl_int err; const float *x;   // n floats
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
     HST_NO_ESRRF_KERNELS                   every TU: leave out the eSRRF program and its twins
                                            (about 1,700 lines) for a program that does not
                                            include esrrf.h (which then refuses to compile)
     HST_NO_NUFFT_KERNELS                   every TU: leave out the NUFFT program and its twins
                                            (for a program that does not include nufft.h)
     HST_NO_CPU_DISPATCH                    the implementation TU: the eSRRF twins without
                                            their AVX2 / AVX-512 variants chosen at run time
                                            (x86-64 GCC/Clang; the portable build, same bits)

   Kernel sources. The vocabulary program is ONE generic OpenCL C 1.2 source, built once per dtype
   with -DHST_DT=<hst_dtype value> (hst_kernels_vocab_options) and, where the device has
   cl_khr_fp64, -DHST_FP64. The source is kept readable: one OpenCL source line per literal line,
   split into pieces (passed together to clCreateProgramWithSource) of at most 4095 characters
   each, C99's guaranteed minimum string literal length; a compile-time check enforces the limit.
   Kernels in the program, by build dtype (T = element type: uchar, char, short, int, long,
   float, double, float2, double2; "int" = the five integers, u8 i8 i16 i32 i64):

     kernel                                        int  f32  f64  c64  c128
     hst_k_cast_from_{u8,i8,i16,i32,i64,f32,c64}   x    x    x    x    x
     hst_k_cast_from_{f64,c128} (HST_FP64 only)    x    x    x    x    x
     hst_k_scale, hst_k_axpy, hst_k_random              x    x    x    x
     hst_k_math                                         x    x
     hst_k_reduce_sum                              x    x    x    x    x
     hst_k_reduce_dot, hst_k_reduce_sqnorm              x    x    x    x
     hst_k_reduce_min, hst_k_reduce_max            x    x    x
     hst_k_randperm                                i32 and i64 only
   (f64 and c128 programs need HST_FP64.)

   Bit-identical results. The device sources start with `#pragma OPENCL FP_CONTRACT OFF`, so
   a*x + y is two rounded operations, never an FMA. The host twins match only if the host
   translation unit is also compiled without FP contraction: gcc's default with -std=c99 (ISO
   modes); use -ffp-contract=off otherwise (gnu modes, -march with FMA). The twins keep one
   operation per statement where contraction could apply, and turn contraction off for clang.
   -ffast-math (and -cl-fast-relaxed-math on the device) breaks the NaN rules and is unsupported.
   The host twins assume IEEE 754 (C99 Annex F) float and double, as every supported host has.

   What it does NOT do: it does not create contexts, build programs or launch kernels (backend.h
   does); it does not validate calls (the backend does; a twin given an unsupported dtype/op pair
   does nothing); it does not make EXP, SIN, COS, POW, ARCCOS, ERFC, ARCTAN2 or normal random
   numbers bit-identical between device and host (they meet the OpenCL spec's ulp bounds
   against the host libm); it
   does not thread the host twins (callers split arrays; reductions split at block boundaries).

   Thread safety (backend.h's words): every function here is thread-safe. There is no state;
   sources and options are constant static storage; a host twin touches only its arguments (calls
   that write memory another call reads or writes must not overlap, as for any C function).

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
   laid out like C99 `float complex` and OpenCL `float2`; c128 likewise with doubles (`double
   complex`, `double2`; like f64 it needs a device with cl_khr_fp64). The integers are two's
   complement (int8_t .. int64_t; u8 is uint8_t). The values are also the -DHST_DT values of
   the vocabulary programs; HST_DTYPE_END is one past the largest. */
typedef enum hst_dtype {
    HST_U8 = 1, HST_I32 = 2, HST_F32 = 3, HST_F64 = 4, HST_C64 = 5,
    HST_I8 = 6, HST_I16 = 7, HST_I64 = 8, HST_C128 = 9
} hst_dtype;
#define HST_DTYPE_END 10

/* Thread-safe (also hst_dtype_name and the class tests). */
HST_API size_t hst_dtype_size(hst_dtype dt);       /* bytes per element; 0 for an invalid dtype */
/* "u8","i32","f32","f64","c64","i8","i16","i64","c128"; "invalid" */
HST_API const char *hst_dtype_name(hst_dtype dt);
HST_API int hst_dtype_is_int(hst_dtype dt);        /* u8 i8 i16 i32 i64 */
HST_API int hst_dtype_is_complex(hst_dtype dt);    /* c64 c128 */
HST_API int hst_dtype_needs_fp64(hst_dtype dt);    /* f64 c128 */

/* Element-wise math (hst_k_math's `op` argument; the numbers are part of the kernel ABI). */
typedef enum hst_math_op {
    HST_MATH_ABS = 0, HST_MATH_SQRT, HST_MATH_EXP, HST_MATH_SIN, HST_MATH_COS,
    HST_MATH_POW,   /* dst = pow(src, p) */
    HST_MATH_ARCCOS, HST_MATH_ERFC,   /* numpy.arccos; scipy.special.erfc */
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

/* Which (dtype, op) pairs exist; 1 or 0. The backend rejects other calls with these.
   Thread-safe. */
HST_API int hst_kernels_math_supported(hst_dtype dt, hst_math_op op);     /* f32, f64 */
/* SUM: every dtype; DOT, SQNORM: f32, f64, c64, c128; MIN, MAX: the integers, f32, f64.
   Thread-safe. */
HST_API int hst_kernels_reduce_supported(hst_dtype dt, hst_reduce_op op);
HST_API int hst_kernels_arith_supported(hst_dtype dt);  /* scale, axpy, random: f32 f64 c64 c128 */

/* Bytes of one partial, i.e. of the accumulator type: SUM of an integer: 8 (int64); f32: 4;
   f64: 8; c64 / c128 SUM and DOT: 8 / 16 (float / double pair); c64 / c128 SQNORM: 4 / 8;
   MIN/MAX: the element size. 0 for an unsupported pair. Thread-safe. */
HST_API size_t hst_kernels_partial_size(hst_dtype dt, hst_reduce_op op);

/* The vocabulary program's source: `*count` (if count is not NULL) pieces to pass together to
   clCreateProgramWithSource (NUL-terminated, so lengths may be NULL). Static storage.
   Thread-safe. */
HST_API const char *const *hst_kernels_vocab_source(size_t *count);

/* Build options for dtype dt: "-DHST_DT=<dt>"; NULL for an invalid dtype. The caller appends
   " -DHST_FP64" when the device has cl_khr_fp64 (an f64 program fails to build without it), and
   " -cl-fp32-correctly-rounded-divide-sqrt" where supported (needed for bitwise f32 SQRT).
   Static storage. Thread-safe. */
HST_API const char *hst_kernels_vocab_options(hst_dtype dt);

/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
   SC'11): counter {lo32(counter), hi32(counter), 0, 0}, key {lo32(seed), hi32(seed)}; 10 rounds,
   multipliers 0xD2511F53, 0xCD9E8D57, Weyl constants 0x9E3779B9, 0xBB67AE85. Writes 4 words.
   Known answer (Random123 kat_vectors): counter 0, key 0 -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
   Thread-safe. */
HST_API void hst_k_philox4x32(uint64_t counter, uint64_t seed, uint32_t out[4]);

/* Host twins. Arrays are flat, n elements (not bytes) each; c64 counts complex elements.
   Unsupported dtype/op pairs do nothing (the backend validates first).

   hst_k_cast_host: dst[i] = src[i] converted (twin of hst_k_cast_from_<src_dt>). Rules, bitwise:
   float -> integer truncates toward zero and saturates, NaN -> 0 (OpenCL convert_<int>_sat);
   float -> float and int -> float round to nearest even, once (i64 -> f32 directly, not through
   double); integer -> integer clamps to the destination's range (i64 -> i8: -128..127);
   complex -> real takes the real part; real -> complex sets im = 0; c64 <-> c128 converts both
   parts; same dtype copies. dst and src must not overlap
   unless the dtypes are equal (then dst == src is allowed). Thread-safe. */
HST_API void hst_k_cast_host(hst_dtype dst_dt, void *dst, hst_dtype src_dt, const void *src,
                             size_t n);

/* x = alpha * x (twin of hst_k_scale). alpha = {re, im} is first rounded to the element type
   ((float) for f32 and c64; im ignored unless complex), as the backend does for the kernel
   argument. Complex: (ar*xr - ai*xi, ar*xi + ai*xr), each product and sum rounded. f32, f64,
   c64, c128. Thread-safe. */
HST_API void hst_k_scale_host(hst_dtype dt, void *x, size_t n, const double alpha[2]);

/* y = alpha * x + y (twin of hst_k_axpy); alpha as in hst_k_scale_host; the product is rounded
   before the add. f32, f64, c64, c128. Thread-safe. */
HST_API void hst_k_axpy_host(hst_dtype dt, void *y, const void *x, size_t n,
                             const double alpha[2]);

/* dst = op(src) element-wise (twin of hst_k_math); p (POW's exponent) rounded to the element
   type first. dst may equal src. ABS and SQRT are bitwise equal to the device (f32 SQRT needs
   -cl-fp32-correctly-rounded-divide-sqrt there); EXP, SIN, COS, POW use the host libm, ARCCOS
   and ERFC the double libm (rounded once for f32), and the device agrees within the OpenCL
   spec's ulp bounds (f32 and f64: exp 3, sin/cos 4, acos 4, pow 16, erfc 16). f32, f64.
   Thread-safe. */
HST_API void hst_k_math_host(hst_dtype dt, void *dst, const void *src, size_t n, hst_math_op op,
                             double p);

/* Random fill (twin of hst_k_random): element i uses w = philox4x32(offset + i mod 2^64, seed).
   Uniform, in [0,1), bitwise everywhere: f32 (w0 >> 8) * 2^-24; f64 ((w0 << 21) | (w1 >> 11)) *
   2^-53; c64 (f32 rule on w0, f32 rule on w1). Normal (Box-Muller, Box & Muller 1958, computed
   in double): r = sqrt(-2 log u1), a = 2 pi u2; f32: u1 = (w0 + 1) * 2^-32 in (0,1],
   u2 = w1 * 2^-32, x = (float)(r cos a); c64: ((float)(r cos a), (float)(r sin a)); f64:
   u1 = (k(w0,w1) + 1) * 2^-53, u2 = k(w2,w3) * 2^-53 with k the 53-bit rule above, x = r cos a;
   c128: (r cos a, r sin a) from the f64 u1, u2. Uniform c128: (k(w0,w1), k(w2,w3)) * 2^-53.
   Normals agree with the device within a few ulp (libm); on a device without cl_khr_fp64 they are
   computed in float from 24-bit uniforms and agree only to float accuracy. f32, f64, c64, c128.
   Thread-safe. */
HST_API void hst_k_random_host(hst_dtype dt, void *x, size_t n, uint64_t seed, uint64_t offset,
                               hst_random_dist dist);

/* Random permutation (twin of hst_k_randperm, in the i32 and i64 vocabulary programs):
   dst[i] = pi(i) for i < n, pi a bijection of [0, n) that depends only on (n, seed). pi is a
   balanced Feistel network (Luby & Rackoff 1988) of 8 rounds on [0, 4^h), h the least in 1..32
   with 4^h >= n, x = (L, R) in h-bit halves, round k: (L, R) <- (R, L ^ (philox4x32(counter
   R | k << 32, seed) word 0 & (2^h - 1))); values >= n are enciphered again until they fall
   in [0, n) (cycle walking: Black & Rogaway, "Ciphers with arbitrary finite domains", CT-RSA
   2002), which keeps a bijection. Bitwise on every device. dt HST_I32 or HST_I64 (others do
   nothing). Thread-safe. */
HST_API void hst_k_randperm_host(hst_dtype dt, void *dst, size_t n, uint64_t seed);

/* Block partials (twin of hst_k_reduce_<op>): writes ceil(n / HST_REDUCE_BLOCK) partials of
   hst_kernels_partial_size(dt, op) bytes. y is used by DOT only (may be NULL otherwise).
   The order is defined, so device and host partials are bitwise equal: for block g, lane
   l = 0..255 starts from the identity and accumulates, k = 0..15 in order, element
   g*4096 + l + 256*k when < n; then for s = 128, 64, ..., 1 lanes l < s set
   a[l] = combine(a[l], a[l+s]); partial[g] = a[0]. Accumulators: int64 for u8/i32 sums (exact
   while |sum| < 2^63), the real type for float sums (float for f32 and c64, double for f64), the
   element type for MIN/MAX. Identities: 0 for sums; MIN/MAX: NaN for floats, the integer
   dtype's largest/smallest value. Integer sums wrap past 2^63 (as the device's long); integer
   sums and min/max are exact in any order, so their twin reduces each block plainly. Float MIN is combine(a, b) = isnan(a) ? b : (b < a ? b : a) (MAX
   with >): fmin/fmax semantics with ties (-0, +0) keeping a; NaN payloads are not specified.
   Thread-safe. */
HST_API void hst_k_reduce_host(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                               size_t n, void *partial);

/* Final combine of `count` partials (device or host made), on the host: a fixed pairwise
   recursion, combine(P[0..c)) = P[0] if c == 1, else combine(combine(P[0..h)), combine(P[h..c)))
   with h = c / 2 rounded down, in the accumulator type (float sums stay float until the end).
   Fills *out as described at hst_scalar. count == 0 (n == 0) gives the identity (0 for sums; NaN,
   or the integer identity, for MIN/MAX: min/max of an empty array is the backend's error).
   Thread-safe. */
HST_API void hst_k_combine_host(hst_dtype dt, hst_reduce_op op, const void *partial, size_t count,
                                hst_scalar *out);

/* >>vocabx kernels */

/* The second vocabulary program: what PyEPRI's scripts need beyond the first (strided copies
   for transpose/shift/concatenate/stack/meshgrid, broadcasting binary operations, reductions
   and cumulative sums along one axis, ramps, where, complex parts). Built like the first:
   hst_kernels_vocab_options(dt) [+ " -DHST_FP64"] [+ " -cl-fp32-correctly-rounded-divide-sqrt"].
   Every kernel is element-wise over n items (global size may exceed n). Index vectors are
   ulong4 (host: uint64_t[4]) over 4 dims, C order, dim 0 slowest; arrays of fewer dims pad
   with leading extents of 1.

     hst_k_gather      (src, dst, n, shape, sstride, dstride, shift, mod, soff, doff): item i
                       of shape at (i0..i3) copies src[soff + sum ((i_d + shift_d) % mod_d) *
                       sstride_d] to dst[doff + sum i_d * dstride_d]. All dtypes.
     hst_k_binary      (a, b, dst, n, shape, astride, bstride, op): dst[i] = a[..] op b[..]
                       (strides 0 broadcast). op: hst_binary_op. f32 f64 (all), c64 c128
                       (ADD..DIV), the integers (ADD SUB MUL wrapping in two's complement,
                       MAXIMUM MINIMUM).
     hst_k_axis        (src, dst, idx, outer, len, inner, op): src viewed as (outer, len,
                       inner); item (o, j) < outer*inner runs k = 0..len-1 in order. op:
                       hst_axis_op; ARGMAX/ARGMIN write int idx[o*inner + j], CUMSUM writes
                       dst like src, the others dst[o*inner + j]. SUM, CUMSUM: every dtype
                       but u8 (integers wrap); MAX MIN ARGMAX ARGMIN: the real dtypes.
     hst_k_ramp        (dst, n, start, step, set_last, last): dst[i] = T(start + i * step),
                       start/step/last double with HST_FP64 (else float); dst[n-1] = T(last)
                       when set_last. Real dtypes (integers truncate and saturate).
     hst_k_where       (cond, a, b, dst, n): dst[i] = cond[i] ? a[i] : b[i]; cond uchar.
     hst_k_cpart       (src T, dst E, n, part) [c64 and c128 programs]: hst_complex_part
                       into the real type E; CONJ writes pairs.
     hst_k_nonzero_count, hst_k_argwhere: argwhere's two passes (hst_k_argwhere_host).
   Float semantics: one IEEE operation per step (FP_CONTRACT OFF); MAXIMUM/MINIMUM and axis
   MAX/MIN/ARGMAX/ARGMIN propagate NaN as NumPy does (the first NaN wins); ARCTAN2 is OpenCL's
   atan2 (6 ulp; NumPy's signed zeros and infinities); complex MUL is
   (ar br - ai bi, ar bi + ai br), DIV ((ar br + ai bi) / d, (ai br - ar bi) / d) with
   d = br br + bi bi. Sums run in T in index order. The host twins below give the same bits
   (ABS and ANGLE: within OpenCL's hypot 4 ulp and atan2 6 ulp of the host libm; ARCTAN2:
   within 6 ulp of the double libm, rounded once for f32). */
typedef enum hst_binary_op {
    HST_BINARY_ADD = 0, HST_BINARY_SUB, HST_BINARY_MUL, HST_BINARY_DIV,
    HST_BINARY_MAXIMUM, HST_BINARY_MINIMUM,
    HST_BINARY_ARCTAN2,   /* numpy.arctan2(a, b) = atan2(a, b): f32 f64 */
    HST_BINARY_COUNT
} hst_binary_op;
typedef enum hst_axis_op {
    HST_AXIS_SUM = 0, HST_AXIS_MAX, HST_AXIS_MIN, HST_AXIS_ARGMAX, HST_AXIS_ARGMIN,
    HST_AXIS_CUMSUM, HST_AXIS_COUNT
} hst_axis_op;
typedef enum hst_complex_part {
    HST_PART_REAL = 0, HST_PART_IMAG, HST_PART_ABS, HST_PART_ANGLE, HST_PART_CONJ, HST_PART_COUNT
} hst_complex_part;

/* Which pairs exist (1 or 0). Thread-safe. */
HST_API int hst_kernels_binary_supported(hst_dtype dt, hst_binary_op op);
HST_API int hst_kernels_axis_supported(hst_dtype dt, hst_axis_op op);
/* The program's source (pieces, static storage). Thread-safe. */
HST_API const char *const *hst_kernels_vocabx_source(size_t *count);

/* Host twins (same arguments as the kernels; esize = bytes per element for the gather).
   Thread-safe. */
HST_API void hst_k_gather_host(size_t esize, const void *src, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t sstride[4],
                               const uint64_t dstride[4], const uint64_t shift[4],
                               const uint64_t mod[4], uint64_t soff, uint64_t doff);
HST_API void hst_k_binary_host(hst_dtype dt, const void *a, const void *b, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t astride[4],
                               const uint64_t bstride[4], hst_binary_op op);
HST_API void hst_k_axis_host(hst_dtype dt, const void *src, void *dst, int32_t *idx,
                             size_t outer, size_t len, size_t inner, hst_axis_op op);
HST_API void hst_k_ramp_host(hst_dtype dt, void *dst, size_t n, double start, double step,
                             int set_last, double last);
HST_API void hst_k_where_host(hst_dtype dt, const uint8_t *cond, const void *a, const void *b,
                              void *dst, size_t n);
HST_API void hst_k_cpart_host(hst_dtype dt, const void *src, void *dst, size_t n,
                              hst_complex_part part);
/* argwhere in two passes (twins of hst_k_nonzero_count and hst_k_argwhere; chunk >= 1
   elements per item): counts[g] = the nonzero elements (NaN counts, -0 does not; complex:
   either part) of chunk g = [g chunk, min(n, (g+1) chunk)); then, with offsets[g] the sum of
   counts before g, the C-order indices (the last ndim of the 4-D index in shape) of chunk g's
   nonzero elements fill rows offsets[g].. of out (ndim int64 per row), in order. */
HST_API void hst_k_nonzero_count_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                      uint64_t *counts);
HST_API void hst_k_argwhere_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                 const uint64_t *offsets, const uint64_t shape[4], unsigned ndim,
                                 int64_t *out);

/* <<vocabx kernels */

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
   hst_k_tv_primal, hst_k_tv_gap, hst_k_slice_acc. Static storage. Thread-safe. */
HST_API const char *const *hst_kernels_stream_source(size_t *count);

/* Host twins of the volume kernels: the same pointers (at global slice base) and block
   arguments; they compute slices [begin, end) of the block (all H*W voxels each). Same bits as
   the device under the conditions above. Distinct arrays must not overlap (tv_dual's p and
   tv_primal's x are single in/out arrays, read and written at the same voxel). Thread-safe. */
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
   built with -DHST_FP64). An unsupported dt or kind does nothing. Thread-safe. */
HST_API void hst_k_slice_acc_host(hst_dtype dt, int kind, const void *a, const void *b,
                                  size_t elems, double *out);

/* <<stream kernels */

/* >>esrrf kernels */
#ifndef HST_NO_ESRRF_KERNELS   /* an embedder without esrrf.h may drop this text */

/* The eSRRF program: enhanced super-resolution radial fluctuations (Culley et al., "Super-
   resolution radial fluctuations", Nat. Methods 2016; eSRRF: Laine et al., Nat. Methods 2023),
   with NanoPyx's conventions (../shared/REFERENCE.md section 2), as stream.h stage kernels.
   Frames are the stream's slices: a frame is rows x cols float, C order; frame z of an array
   starts at z * (its elements per frame). Magnified images are rowsM x colsM = rows*mag x
   cols*mag. Positions are in input pixels with pixel n covering [n, n + 1): its centre is n + 0.5.

   Kernels (stream.h's convention: arrays in, arrays out, scalars, then ulong base, ulong begin,
   ulong end, ulong total, int flags; pointers at global frame base; frames [begin, end)
   computed; NDRange 2-D: dim 0 = items of a frame (bound-checked), dim 1 = frames):

     kernel                  arrays (in; out)       scalars                            items
     hst_k_esrrf_roberts     frames; grad           uint rows, uint cols               rows*cols
     hst_k_esrrf_magnify     in; out                rows, cols, uint mag, uint channels rowsM*colsM
     hst_k_esrrf_rgc         grad2, magnified; rgc  rows, cols, mag, float radius,     rowsM*colsM
                                                    float sensitivity, int intensity_weighting
     hst_k_esrrf_rgc_fused   frames; rgc            rows, cols, mag, radius, sensitivity,  nrows*colsM
                                                    intensity_weighting, uint row0, uint nrows:
                                                    output rows [row0, row0 + nrows) of each
                                                    frame (0, rowsM: all), rgc frames of
                                                    nrows x colsM
     hst_k_esrrf_temporal    rgc; acc (GLOBAL)      uint pixels, ulong frames_per_tp,  pixels
                                                    uint acc_tps, ulong frame0,
                                                    uint skip, ulong frames_total
                             (loop_slices = 1, halo_lo = 1 on rgc)
     hst_k_esrrf_to_float    raw; frames            uint pixels, uint dtype            rows*cols
     hst_k_esrrf_stat        acc; image (not a stream stage; -DHST_FP64 builds only):  pixels
                             ulong first (elements), uint pixels, uint frames, int mode

   Catmull-Rom (a = 0.5), in float: cubic(v) = ((1.5|v| - 2.5)|v|)|v| + 1 for |v| < 1,
   (((-0.5|v| + 2.5)|v|) - 4)|v| + 2 for 1 <= |v| < 2, else 0. interp(I, r, c) = 0 unless
   0 <= r < rows and 0 <= c < cols; r0 = (int)floor(r - 0.5), c0 likewise; for j = 0..3 (columns
   cn = c0 - 1 + j inside [0, cols)): p = sum over i = 0..3 (rows rn = r0 - 1 + i inside
   [0, rows)) of I[rn, cn] * cubic(r - (rn + 0.5)), in i order from 0; q += p * cubic(c - (cn +
   0.5)), in j order from 0 (zero padding: taps outside are skipped, no renormalisation).

   roberts (NanoPyx's Roberts cross, one work-item per pixel): r0 = max(r1 - 1, 0), c0 likewise,
     a = I[r0,c1], b = I[r1,c0], c = I[r0,c0], d = I[r1,c1];
     grad[2 p] = Gc = ((a - b) + d) - c,  grad[2 p + 1] = Gr = ((b - a) + d) - c  (p = r1*cols+c1).
   magnify (shift-and-magnify, shift 0): out pixel (yM, xM) of channel k = interp(channel k of
     in, (float)yM / (float)mag, (float)xM / (float)mag); channels 1 or 2 (interleaved, as grad).
     The chained path runs it twice: on frames with mag (M) and on grad with 2*mag (grad2,
     rows*2mag x cols*2mag pixels of (Gc, Gr)).
   rgc (radial gradient convergence at magnified pixel (yM, xM), all in float; every division
     below is hst_k_esrrf_div, every 1/sqrt hst_k_esrrf_rsqrt, fma() is fma: see "Arithmetic"):
     margin = (int)(radius * mag); pixels with yM < margin, yM >= rowsM - margin (xM likewise)
     are exactly 0. Else the pixel's centre is (yc, xc) = ((yM + 0.5) / mag, (xM + 0.5) / mag),
     computed from its phase (py, px) = (yM % mag, xM % mag): cx = (px + 0.5f) / mag (float),
     bx = 2 (xM / mag) + (int)(2 cx) (= (int)(G xc)), fx = bx - 2 (xM / mag), likewise cy, by,
     fy; sigma = radius / 2.355, tSS = 2 sigma^2, tSO = 2 sigma + 1, G = 2, k = -2 / tSS; for j,
     then i, in [-(int)(G r), (int)(G r + 1)): vy = (by + j) / G, vx = (bx + i) / G; skip unless
     0 < vy <= rowsM - 1 and 0 < vx <= colsM - 1; dx = fma(fx + i, 1/2, -cx), dy likewise
     (vx - xc and vy - yc, but the same bits for every pixel of a phase: a pixel's offsets, and
     so its weights, depend on its phase only), d2 = fma(dx, dx, dy dy); skip if d2 == 0 or
     d2 > tSO^2. (Gx, Gy) = grad2 at row (int)(vy mag G), column (int)(vx mag G), each clamped to
     [0, 2 rows mag - 1] / [0, 2 cols mag - 1]; u = (Gx, Gy) / |G| (hst_e_unit: scaled by a power
     of two first, so finite gradients never overflow; (0, 0) for a zero or non-finite one).
     w = (d2 exp(dx^2 k) exp(dy^2 k))^2 (= (d exp(-d^2 / tSS))^4: the Gaussian is separable, no
     sqrt; a w below 1e-30 counts as 0, so no subnormal appears and flush-to-zero devices
     agree), wd = w rsqrt(d2) (= w / d); W += w; if fma(uy, dy, ux dx) < 0:
     R += fma(-|fma(uy, dx, -(ux dy))|, wd, w) (= Dk w, Dk = 1 - |Gy dx - Gx dy| / (|G| d)).
     R = W > 0 ? R / W : 0; if sensitivity > 1: R = R^sensitivity (repeated products
     for an integer sensitivity <= 64, else pow); R < 0 -> 0; times M[yM, xM] when
     intensity_weighting != 0.
   rgc_fused: the same map from the frames alone: grad2 and M are never stored. Since vy and vx
     are multiples of 1/2, the grad2 pixel (vy mag G) samples the gradients at input position
     exactly vy; the kernel interpolates the Roberts gradients there on the fly (a half-integer
     position has Catmull-Rom weights (-1/16, 9/16, 9/16, -1/16) or (0, 1, 0, 0), exact in
     float: the zero taps are skipped), and M by interp. The result is bitwise the chained one
     (finite inputs; only the sign of a zero may differ).
     Work mapping (any NDRange of at least ceil(nrows*colsM / K) x (end - begin) items, e.g.
     esrrf.h's; one item per pixel also works, the groups past the end returning; any uniform
     work-group size L, e.g. stream.h's default or a stage local_size): work-group g (linear id
     over both dimensions) computes the work indices [g K L, g K L + K L) (K = HST_E_K = 8 by
     default; esrrf.h builds NVIDIA GPUs with 40, HST_E_TILE 2560, HST_E_TW 64 and HST_E_NP 4,
     32 KiB of local memory in all; the groups past the end return at once) of all frames'
     pixels in order frame, then vertical strips of HST_E_TW (16) magnified columns, row-major
     inside a strip; so a group of 256 covers a 16 x 128 output tile (64 x 160 with K 40 and
     strips of 64). On the table path the whole strip rows of a run go by blocks of
     HST_E_NP (2) x mag rows: one item takes HST_E_NP pixels of one phase, mag rows apart,
     through the sample loop at once (each pixel's sums in its own order: the same bits). For each run of its
     indices inside one frame and strip (split into runs of L if its positions do not fit), the
     group first computes the unit gradients u
     of every half-pixel position its pixels sample into local memory (2 x HST_E_TILE = 3072
     floats, 12 KiB; at mag 5, radius 1.5: 58 x 14 positions for 2048 pixels x 49 samples),
     then each item reads them there. A run whose positions do not fit even so (a large radius)
     interpolates per sample. The values are the per-sample ones, so the bits do not change.
     The (w, wd) of every phase and sample (mag^2 (j1 - j0)^2 of them: 1225 at mag 5, radius
     1.5) are computed once per work-group into a local table (HST_E_WTAB = 1536 entries of 2
     floats at most, 12 KiB; more: per sample) from the mag (j1 - j0) axis offsets and their
     exp, so the sample loop is 2 local float2 reads, 4 fma, 3 mul/add and a select; the host
     twin makes the same table once per call. Same bits either way.
     A window of rows [row0, row0 + nrows) (margins and sample bounds those of the whole frame)
     gives the whole frame's values there, bitwise: a pixel's value does not depend on which
     pixels share its work-group's tile; strips are nrows high. How esrrf.h splits an image
     over MPI ranks and over backends.
   temporal (loop_slices: a 1-D NDRange over pixels; the kernel walks z = begin .. end - 1 in
     order). The stream may cover any piece of an acquisition: its slice 0 is the acquisition's
     frame frame0, and its first `skip` slices (0 or 1) are read only as the frame before the
     next one. For z with base + z >= skip: g = frame0 + base + z, T = frames_per_tp (0: all
     frames are one time point), tp = g / T, t = g % T, x = rgc[z pixels + i] (as ACC),
     a = acc + (tp % acc_tps) 5 pixels + i (a ring of acc_tps time points):
       a[0] += x;  a[P] += x x;  if t > 0: a[2P] += x_prev x (x_prev = frame z - 1: the halo or
       the skipped slice);  if t == 0: a[3P] += x;  if t == T - 1, or g == frames_total - 1
       (frames_total 0: not known yet), a[4P] += x   (P = pixels).
     A frame with t > 0 needs the frame before it loaded: a piece that starts inside a time point
     starts one frame early with skip = 1. S1, S2 and the lag-1 sum continue from the values in
     acc in frame order, so pieces run one after another give the bits of one run. Every slot is
     additive, so a time point's slots must start at zero, and a sum over devices (each its own
     acc) is the whole-stack result. ACC = double when built with -DHST_FP64, else float.
   stat: image[i] = hst_k_esrrf_finalize's value for pixel i of mode `mode` from the five sums at
     acc + first (one time point's slot of the ring), in double as the host's: the same bits
     (OpenCL's double +, -, *, / are correctly rounded; no contraction).
   to_float: frames[z pixels + i] = (float)raw[z pixels + i], raw of dtype 1 (uchar), 2 (ushort),
     3 (short) or 4 (float, copied), in the host's byte order (esrrf.h's hst_esrrf_dtype).

   Statistics (hst_k_esrrf_finalize, from one time point's 5 sums: S1 = sum x, S2 = sum x^2,
   P = sum_{t=0}^{T-2} x_t x_{t+1}, F = x_0, L = x_{T-1}; n = T frames, mu = S1 / n):
     AVG  = mu
     VAR  = S2 / n - mu^2                      (= mean (x - mu)^2, ddof 0; clamped at 0)
     TAC2 = (P - mu (2 S1 - F - L) + (n - 1) mu^2) / (n - 1)
          = mean over t = 0..n-2 of (x_t - mu)(x_{t+1} - mu), since sum_{t<n-1} x_t = S1 - L and
            sum_{t>0} x_t = S1 - F. (n < 2: TAC2 = 0.)
   In double. VAR and TAC2 subtract large, nearly equal terms: with double sums (fp64 device or
   the host twin) the cancellation costs ~1e-16 mu^2 absolute; with float sums (no fp64) ~1e-7 mu^2.

   Macro-pixel correction (hst_k_esrrf_macro_pixel), per output image: C[py][px] = mean, in
   double, over the rows x cols macro-pixels of the value at sub-offset (py, px) (zero margins
   included); each pixel (yM, xM) is divided by C[yM % mag][xM % mag] unless that is 0 (then
   unchanged). Corrected TAC2 may change sign (its phase means can be negative), as NanoPyx's.

   Arithmetic: the program has no float division and no sqrt, so every IEEE-754 device computes
   the host's bits without -cl-fp32-correctly-rounded-divide-sqrt (harmless if given): fma() is
   correctly rounded in OpenCL and C99 alike; divisions (positions y / mag, phase centres, the
   constants, R / W) use hst_k_esrrf_div and 1/|G|, 1/d hst_k_esrrf_rsqrt, fixed fma sequences
   from a bit-level seed, the same statements on both sides (their error bounds: below).
   Build options: "-DHST_FP64" where the device has cl_khr_fp64; "-DHST_E_NO_LAG1" for runs
   without TAC2: temporal leaves the lag-1 sum as it is and never reads frame z - 1 (its stage
   then needs no halo, and no block recomputes the frame before it); "-DHST_E_NS=ns
   -DHST_E_SENS=.." for the parameter sweep's values at ns sensitivities (below).
   Bitwise: roberts, magnify, rgc and rgc_fused equal their host twins when the host TU has no
   FP contraction (see the top of this file) and sensitivity <= 1 or an integer <= 64: exp is
   computed by the same range reduction and polynomial on both sides (hst_k_esrrf_exp), not by
   libm; a non-integer sensitivity > 1 uses pow (OpenCL allows 16 ulp: within ~2e-6
   relative). Measured: the host twin, PoCL and an NVIDIA H100 bit for bit (tests/test_esrrf.c
   on each).
   temporal equals its double twin when built with -DHST_FP64 (the products of two floats are
   exact in double); in float it agrees to float rounding of the sums.

   Deliberate differences from NanoPyx: margins are 0 (NanoPyx leaves them uninitialised); no
   -cl-fast-relaxed-math / -cl-mad-enable (NanoPyx's OpenCL build; its C path agrees with it to
   ~1e-4 relative only); everything in float where NanoPyx mixes double (cubic weights, the
   distance weight), so values differ from NanoPyx by float rounding (~1e-6 relative); sigma,
   tSS, tSO and the margin are computed in float from the float radius (NanoPyx: double from a
   Python float: for a radius such as 1.4 whose float is just below the decimal, radius * mag
   may land one below an integer and the margin be one pixel smaller); W == 0 gives 0 (NanoPyx:
   NaN); Dk w is w - |u x d| (w / d) with the unit gradient u and w / d from the table, where
   NanoPyx divides twice; d > tSO is tested as d^2 > tSO^2; the Gaussian is exp(dx^2 k) exp(dy^2 k)
   and w uses d^2 (no sqrt); a gradient whose |G|^2 overflows float still counts (NanoPyx: NaN,
   0); the divisions and 1/sqrt are fma sequences within 1 ulp; w below 1e-30 counts as 0;
   the macro-pixel means are in double (NanoPyx: float); the sample offsets dx, dy come from the
   pixel's phase (NanoPyx: vx - xc in double, whose float rounding would differ from pixel to
   pixel of a phase). Kept as REFERENCE.md states them: the
   margin int(radius * mag) (NanoPyx's chained OpenCL path of the seed uses 2 mag), and the Roberts
   cross storing the difference of pixels c - 1 and c at pixel c, which puts the gradient field,
   and so the eSRRF image, +0.5 input pixel down and right of the input (measured: blinking
   emitters at x = 8.75 and 11.25 peak at 9.4 and 11.6; NanoPyx's later eSRRF compensates with
   xyoffset = -0.5, the chained path reproduced here does not). */

/* The eSRRF program's source pieces (static storage), as hst_kernels_vocab_source. Thread-safe. */
HST_API const char *const *hst_kernels_esrrf_source(size_t *count);

/* Host twins (pointers at global frame base, frames [begin, end) relative to base; the same
   bits as the device under the conditions above). Thread-safe. */
HST_API void hst_k_esrrf_roberts_host(const float *frames, float *grad, uint32_t rows,
                                      uint32_t cols, uint64_t base, uint64_t begin,
                                      uint64_t end, uint64_t total);
HST_API void hst_k_esrrf_magnify_host(const float *in, float *out, uint32_t rows, uint32_t cols,
                                      uint32_t mag, uint32_t channels, uint64_t base,
                                      uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_esrrf_rgc_host(const float *grad2, const float *magnified, float *rgc,
                                  uint32_t rows, uint32_t cols, uint32_t mag, float radius,
                                  float sensitivity, int intensity_weighting, uint64_t base,
                                  uint64_t begin, uint64_t end, uint64_t total);
HST_API void hst_k_esrrf_rgc_fused_host(const float *frames, float *rgc, uint32_t rows,
                                        uint32_t cols, uint32_t mag, float radius,
                                        float sensitivity, int intensity_weighting,
                                        uint64_t base, uint64_t begin, uint64_t end,
                                        uint64_t total);
/* The fused twin's magnified rows [yM0, yM1) of ONE frame: frame points at its rows x cols
   floats, rgc_frame at its rowsM x colsM output (C order, rowsM = rows*mag, colsM = cols*mag);
   rows [yM0, yM1) of it are written (yM1 is clipped to rowsM), nothing else, bitwise equal to
   what hst_k_esrrf_rgc_fused_host writes there (which calls it for all rows of each frame).
   For threads: split a frame's rows between calls (disjoint ranges may run at once). Inside,
   a stack tile of the half-pixel unit gradients (24 KiB) is shared by blocks of pixels, as the
   device's local memory is, a stack table holds every phase's (w, w / d) (32 KiB), and 16
   pixels of a row go through their samples together (auto-vectorised by gcc -O2; with gcc or
   clang on x86-64 also built for AVX-512 and for AVX2 + FMA, chosen at run time by what the
   CPU has, where fmaf is one instruction; the same bits every way); a radius whose samples of
   one row do not fit (above ~10) goes per sample, with the same bits. Needs ~60 KiB of stack.
   No allocation, no failure path. Thread-safe. */
HST_API void hst_k_esrrf_rgc_fused_host_rows(const float *frame, float *rgc_frame,
                                             uint32_t rows, uint32_t cols, uint32_t mag,
                                             float radius, float sensitivity,
                                             int intensity_weighting, uint32_t yM0,
                                             uint32_t yM1);
/* The same into a window of the output: out holds magnified rows [out_row0, ...) of the frame
   (row yM at out + (yM - out_row0) * colsM); rows [max(yM0, out_row0), yM1) are written, bitwise
   what the whole frame's twin writes there. Thread-safe. */
HST_API void hst_k_esrrf_rgc_fused_host_rows_at(const float *frame, float *out,
                                                uint32_t out_row0, uint32_t rows, uint32_t cols,
                                                uint32_t mag, float radius, float sensitivity,
                                                int intensity_weighting, uint32_t yM0,
                                                uint32_t yM1);
/* hst_k_esrrf_rgc_fused's twin with its window: magnified rows [row0, row0 + nrows) of each
   frame, into rgc frames of nrows x colsM (hst_k_esrrf_rgc_fused_host: the whole frames).
   Thread-safe. */
HST_API void hst_k_esrrf_rgc_fused_window_host(const float *frames, float *rgc, uint32_t rows,
                                               uint32_t cols, uint32_t mag, float radius,
                                               float sensitivity, int intensity_weighting,
                                               uint32_t row0, uint32_t nrows, uint64_t base,
                                               uint64_t begin, uint64_t end, uint64_t total);
/* acc: the GLOBAL array, in double (the twin of a -DHST_FP64 build); pixels [i0, i1) only
   (the kernel: all of them), so threads may share a block. Thread-safe. */
HST_API void hst_k_esrrf_temporal_host(const float *rgc, double *acc, uint32_t pixels,
                                       uint64_t frames_per_tp, uint32_t acc_tps, uint64_t frame0,
                                       uint32_t skip, uint64_t frames_total, uint32_t i0,
                                       uint32_t i1, uint64_t base, uint64_t begin, uint64_t end);
/* raw: dtype 1 u8, 2 u16, 3 i16, 4 f32 samples. Thread-safe. */
HST_API void hst_k_esrrf_to_float_host(const void *raw, float *frames, uint32_t pixels,
                                       uint32_t dtype, uint64_t base, uint64_t begin,
                                       uint64_t end, uint64_t total);

/* The eSRRF program's fma sequences (every IEEE-754 device and the host give the same bits;
   no correctly rounded division or sqrt is needed). Measured against correctly rounded results
   by tests/test_esrrf.c (host; the kernels' bitwise tests carry the bits to the devices):
   - hst_k_esrrf_rcp(b) = 1/b for 2^-125 <= |b| <= 2^125: seed 0x7EF311C3 - bits(b), three
     Newton-Raphson steps y = fma(y, fma(-b, y, 1), y). Error <= 1 ulp.
   - hst_k_esrrf_div(a, b) = a / b (b as above, a / b normal or 0): q = a rcp(b), r = fma(-b,
     q, a), fma(r, y, q) (Markstein). Error <= 1 ulp (none seen on 2e7 random pairs); correctly rounded
     for the kernels' operands, integers a < 2^24 over 1 <= b <= 64 and (p + 0.5) / b (tests:
     every a < 2^17, every 61st above; every a < 2^21 once), so positions, phase centres and
     magnification coordinates keep the bits of a correctly rounded division.
   - hst_k_esrrf_rsqrt(x) = 1/sqrt(x) for 2^-126 <= x <= 2^125: seed 0x5F375A86 - bits(x) / 2, three
     Newton-Raphson steps y += (y / 2) fma(-x, y y, 1), a fourth with the residual 1 - x y^2
     computed exactly (y y split by fma). Error <= 1 ulp.
   Thread-safe. */
HST_API float hst_k_esrrf_rcp(float b);
HST_API float hst_k_esrrf_div(float a, float b);
HST_API float hst_k_esrrf_rsqrt(float x);

/* exp(x) for x <= 0 as the kernels compute it (0 below -80; ~2 ulp; the final times 2^k is
   exact: the device builds 2^k from its exponent bits, the twin with ldexpf). Thread-safe. */
HST_API float hst_k_esrrf_exp(float x);

/* One time point's statistic (mode 0 AVG, 1 VAR, 2 TAC2; other modes write nothing) from its
   5 x pixels sums (acc + tp * 5 * pixels of the GLOBAL array; a float array of a device without
   fp64 is widened by the caller) over `frames` frames (>= 1); out: pixels floats. Thread-safe. */
HST_API void hst_k_esrrf_finalize(int mode, const double *acc, size_t pixels, uint32_t frames,
                                  float *out);
/* The same for `count` pixels whose sums start at acc[0], acc[stride], ... acc[4 stride] (a
   share of an image: acc + i0 with stride = the image's pixels), into out[0 .. count).
   Thread-safe. */
HST_API void hst_k_esrrf_finalize_range(int mode, const double *acc, size_t stride, size_t count,
                                        uint32_t frames, float *out);
/* Macro-pixel correction of one rowsM x colsM image in place (1 <= mag <= 32; rowsM and colsM
   multiples of mag). Thread-safe. */
#define HST_K_ESRRF_MAX_MAG 32
HST_API void hst_k_esrrf_macro_pixel(float *img, uint32_t rowsM, uint32_t colsM, uint32_t mag);

/* The parameter sweep (esrrf.h's hst_esrrf_sweep): every (radius, sensitivity) pair from one
   upload of each frame. Per radius, hst_k_esrrf_rgc_fused built with -DHST_E_NS=ns
   -DHST_E_SENS=s0,..,s(ns-1) (float literals, e.g. 0x1.4p+1f) writes each pixel's value at
   every sensitivity from its one set of sums (R, W): rgc[(z P + i) ns + l] for pixel i of frame
   z (P = rowsM colsM; with ns 1, the ordinary layout), each bitwise the value of the ordinary
   build at that sensitivity (the same statements; only hst_e_final's sensitivity differs). Then
     hst_k_esrrf_sweep_sum   rgc; acc               uint pixels, uint k, uint n,       pixels*ns
                                                    uint odd0 (not a stream stage; 1-D)
   adds the n frames of a block of radius k to the sums of every pair p = k ns + l:
   acc[(3 p + q) P + i] += value, q = 0 every frame, 1 the odd frames, 2 the even ones (frame z's
   index in its time point is odd0 + z: NanoPyx's rgc[1::2] and rgc[::2]), each in frame order
   from the value in acc, as hst_k_esrrf_temporal's sum x, so that each pair's AVG is bitwise a
   run's (ACC double with -DHST_FP64, else float).
   Twins: hst_k_esrrf_rgc_fused_host_rows_ns (the fused twin at ns sensitivities, out in the
   layout above) and hst_k_esrrf_sweep_sum_host over items [e0, e1) (acc in double, the twin of
   a -DHST_FP64 build; disjoint ranges may run at once). Thread-safe. */
HST_API void hst_k_esrrf_rgc_fused_host_rows_ns(const float *frame, float *out,
                                                uint32_t out_row0, uint32_t rows, uint32_t cols,
                                                uint32_t mag, float radius,
                                                const float *sensitivities, uint32_t ns,
                                                int intensity_weighting, uint32_t yM0,
                                                uint32_t yM1);
HST_API void hst_k_esrrf_sweep_sum_host(const float *rgc, double *acc, uint32_t pixels,
                                        uint32_t ns, uint32_t k, uint32_t n, uint32_t odd0,
                                        size_t e0, size_t e1);
/* Entries of the fused kernel's (w, wd) table at (mag, radius): mag^2 n^2, n the sample window
   (2 floats each; the table path needs HST_E_WTAB >= it, else weights go per sample, the same
   bits: 1225 at mag 5, radius 1.5, 2025 at radius 2). Thread-safe. */
HST_API uint64_t hst_k_esrrf_wtab_entries(uint32_t mag, float radius);

#endif /* HST_NO_ESRRF_KERNELS */

/* <<esrrf kernels */

/* >>halo kernels */

/* The halo program: halo.h's fused pack and unpack. ONE launch packs every slot (one region of
   one quantity: a scalar, or one component of a vector pair) of every spec and every peer into
   one byte buffer, and one launch unpacks them (AMReX FillBoundary's fused-tag design, by
   work-group: each work-group finds its slot ONCE, by binary search over the prefix sums of the
   bands' work-group counts (below), and moves one part of it).

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
     DIRECT (0): chunks t G .. t G + G - 1 (G = 2^desc[LOG_G] chunks of HST_K_HALO_CHUNK
       elements, in buffer order: a large slot's work-groups pay their start-up, a chain of
       dependent loads, once per G chunks); 32-bit index math with magic-number division by
       the extents (desc[MAGIC + 0, 1, 2] divide by ext3, ext2, ext1), four loads in flight per
       work-item. Needs elements * elem and the slot's span (sum (ext-1) * |step| * elem)
       below 2^31.
     TILED (1): a transposing slot (dimension 3 is not contiguous in the quantity but a
       dimension B < 3 is, |step| 1): a TB x TA tile (TB = 2^desc[LOG_TB] along B, TA =
       2^desc[LOG_TA] along dimension 3) staged through local memory (at most
       HST_K_HALO_TILE_WORDS ulongs, pitch TA + 1), so that the quantity side runs along B and
       the buffer side along dimension 3. Tile u is (o1, o2, tile b, tile a) in C order over
       (ext[O1], N_O2, NT_B, NT_A), O1 < O2 the two dimensions < 3 other than B; work-group t
       moves tiles t G .. t G + G - 1 (G = 2^desc[LOG_G]) one after the other; MAGIC + 0, 1, 2
       divide by NT_A, NT_B, N_O2. QS_* quantity steps, BS_* buffer steps (elements, C
       order) of B, O1, O2. Same size limits as DIRECT; elements of at most 8 bytes.
     WIDE (2): 64-bit index math, element by element (larger slots, and 16-byte elements).
     RUNS (3): wide halos, many slices of contiguous runs (dimension 3 has step 1, so a run
       of ext3 elements is contiguous on both sides): runs move as whole 16-byte vectors,
       consecutive work-items on consecutive vectors, so every wavefront reads and writes
       whole sectors and cache lines (two work-items per 32-byte run), and each work-item
       loads 4 vectors before it stores them (more bytes in flight where the runs are short
       and scattered). desc[RUN_ALIGNED] 1: the slot's offsets and steps are multiples of
       16 bytes, so where the two base addresses are too (the kernel checks: a wrapped host
       array may be aligned to its element only) every vector moves by uint4 loads and
       stores; otherwise by vload4/vstore4 of uints. Work-group
       t moves runs t G .. t G + G - 1 (G = desc[RUN_G]), flattened over (run, vector) with
       desc[RUN_VPR] vectors per run; MAGIC + 0, 1, 2 divide by RUN_VPR, ext2, ext1; quantity
       offsets in 64-bit. Needs elements of 4 or 8 bytes, ext3 * elem a multiple of 16, fewer
       than 2^32 runs, RUN_G * RUN_VPR below 2^31 + 2^11; the op applies per element.
   Work-groups per slot: DIRECT ceil(elements / (G CHUNK)); WIDE ceil(elements / CHUNK); TILED
   ceil(ext[O1]*N_O2*NT_B*NT_A / G); RUNS ceil(ext0*ext1*ext2 / RUN_G).
   A magic word for divisor m (1 <= m < 2^32): l = ceil(log2 m), M = floor(2^32 (2^l - m) / m)
   + 1; word = M | min(l, 1) << 32 | max(l - 1, 0) << 40 (Granlund & Montgomery, 1994).

   Kernels (build options hst_kernels_halo_options(nq): -DHST_HALO_NQ=8,16,...,64):
     hst_k_halo_pack(table, prefix_at, desc_at, nbands, total, buf, q0, ..., q<NQ-1>)
     hst_k_halo_unpack(same arguments)
   table: uint64 words; desc = table + desc_at: the descriptors. A band is k >= 1 consecutive
   descriptors with the same work-group count m, whose k m work-groups take its slots in turn
   (work-group o of the band moves part o / k of slot first + o % k): slots that should move
   at the same time (halo.h: the edges of one quantity) share a band, any other slot is a band
   of its own. prefix = table + prefix_at: nbands + 1 running sums of the bands' work-group
   counts (prefix[0] = 0, prefix[nbands] = total), then 2 words per band: first, k. Launch
   total work-groups of any power-of-two local size up to 256 (global = total * local).
   Quantity arguments beyond the plan's count may be any buffer. */
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
    HST_K_HALO_D_RUN_VPR = 16,  /* RUNS: 16-byte vectors per run, runs per work-group, 1 when */
    HST_K_HALO_D_RUN_G = 17,    /* every vector is 16-byte aligned */
    HST_K_HALO_D_RUN_ALIGNED = 18,
    HST_K_HALO_D_NT_B = 18,     /* TILED: tiles along B and along dimension 3 */
    HST_K_HALO_D_NT_A = 19,
    HST_K_HALO_D_MAGIC = 20,    /* 3 words: magic divisors (see above) */
    HST_K_HALO_D_N_B = 23,      /* TILED: ext[B], ext[O2] */
    HST_K_HALO_D_N_O2 = 24,
    HST_K_HALO_D_QS_B = 25,     /* TILED: quantity steps of B, O1, O2 (signed, < 2^31) */
    HST_K_HALO_D_QS_O = 26,     /* 2 words */
    HST_K_HALO_D_BS_B = 28,     /* TILED: buffer element steps of B, O1, O2 */
    HST_K_HALO_D_BS_O = 29,     /* 2 words */
    HST_K_HALO_D_LOG_G = 31     /* DIRECT, TILED: log2 of the chunks or tiles one work-group
                                   moves (0..3) */
};
enum { HST_K_HALO_OP_COPY = 0, HST_K_HALO_OP_FLIP_SIGN = 1, HST_K_HALO_OP_NEGATE_INT = 2 };
enum { HST_K_HALO_MODE_DIRECT = 0, HST_K_HALO_MODE_TILED = 1, HST_K_HALO_MODE_WIDE = 2,
       HST_K_HALO_MODE_RUNS = 3 };

/* The halo program's source pieces (static storage), as hst_kernels_vocab_source. Thread-safe. */
HST_API const char *const *hst_kernels_halo_source(size_t *count);
/* "-DHST_HALO_NQ=<n rounded up to a multiple of 8>"; NULL when n is 0 or above 64. Thread-safe. */
HST_API const char *hst_kernels_halo_options(size_t num_quantities);
/* Host twins: every slot of desc[0 .. nslots) in order, the same moves as the kernels, in any
   mode. Runs along a contiguous slot dimension (step 1; RUNS mode's runs) move with one
   memcpy; others element by element. Thread-safe. */
HST_API void hst_k_halo_pack_host(const uint64_t *desc, size_t nslots, void *const *quantities,
                                  void *buffer);
HST_API void hst_k_halo_unpack_host(const uint64_t *desc, size_t nslots, const void *buffer,
                                    void *const *quantities);

/* <<halo kernels */

/* >>quality kernels */

/* The quality program: quality.h's image quality metrics for super-resolution microscopy
   (SQUIRREL's error map, Fourier ring correlation, decorrelation analysis, as NanoPyx 2.1
   computes them; quality.h names the sources and does the fit, the FFTs and the curves). Build
   option: "-DHST_FP64" where the device has cl_khr_fp64 (hst_k_quality_gains exists only then). Images are float32, C order (rows, cols). A spectrum is the r2c half of an
   n x n image's DFT, unshifted: (n, n / 2 + 1) c64 elements (interleaved (re, im) float pairs,
   OpenCL float2); "shifted" positions are numpy.fft.fftshift's, the missing half read as the
   conjugate of its mirror. Every kernel bound-checks its global ids (any global size at least
   the one named), has no local memory and writes each output element once.

     kernel                      arguments                                       global
     hst_k_quality_blur          src, dst, w, int radius, rows, cols, axis       (cols, rows)
     hst_k_quality_moments       b, r, part, ulong n, uint g                     g
     hst_k_quality_error_map     b, r, e, float alpha, float beta, ulong n       n
     hst_k_quality_fourier_pad   src, dst, int p, int mp                         (mp, mp)
     hst_k_quality_crop_rescale  src, dst, int mp, rows, cols, y0, x0,           (cols, rows)
                                 float lo, float scale, float base
     hst_k_quality_frc_partial   f1, f2, count, step, part, int s, max_r,        (nchunks, max_r)
                                 chunk, nchunks
     hst_k_quality_frc_rings     part, ring, int max_r, nchunks                  max_r
     hst_k_quality_decorr_cols   f, part, norm, int n, nr, float crmin, crmax,   n
                                 int ox, w, oy, h, zero_dc
     hst_k_quality_decorr_highpass  f0, f, hg, int n                             (n / 2 + 1, n)
     hst_k_quality_dct_pack      src, dst, int rows, cols                        (cols, rows)
     hst_k_quality_dct_unpack    spec, dst, tr, tc, int rows, cols               (cols, rows)
     hst_k_quality_dct_moments   s, r, gains, part, int rows, cols, uint g,      (g, images)
                                 ulong sstride, gstride, rstride, pstride, kend
     hst_k_quality_partial_sums  part, out, uint g, uint h, ulong n, ulong stride n
     hst_k_quality_gains         w, radius, cos_r, cos_c, gains, int rows,       (rows + cols,
                                 cols, ulong wstride, gstride, rstride, kend      images)

   The host twins below take the same arguments in the same order and do the same float
   operations in the same order (fma where the kernel calls fma). They differ from a device
   only where OpenCL's float cos and sqrt are not correctly rounded (frc_partial's sample
   positions, decorr_cols' ring radii), and where a device contracts a product and a sum the
   twin rounds twice: unlike the other programs, this source leaves FP_CONTRACT at its default
   (quality.h's tests state the agreement). Sizes and positions are int: sides below
   INT_MAX / 2 (quality.h checks them; offsets into arrays are size_t). */
#define HST_K_QUALITY_MAX_NR 128   /* decorr_cols' rings at most (a private array per column) */

/* The quality program's source pieces (static storage), as hst_kernels_vocab_source.
   Thread-safe. */
HST_API const char *const *hst_kernels_quality_source(size_t *count);

/* One axis of scipy.ndimage.gaussian_filter ('reflect' edges): dst = src correlated with the
   2 radius + 1 taps w along axis (0: down the columns, 1: along the rows); src, dst (rows,
   cols). Each pixel takes its taps in order j = -radius .. radius (fma), reflected
   (d c b a | a b c d | d c b a) only where the window leaves the line. Thread-safe. */
HST_API void hst_k_quality_blur_host(const float *src, float *dst, const float *w, int radius,
                                     int rows, int cols, int axis);
/* The error map's moments: part (g, 3) = for each i < g, the sums of b, b^2 and b r over
   elements i, i + g, i + 2 g, ... < n of b and r (n floats each), in that order. A fixed g
   fixes the summation order on every device. Thread-safe. */
HST_API void hst_k_quality_moments_host(const float *b, const float *r, float *part, size_t n,
                                        uint32_t g);
/* SQUIRREL's error map: e[i] = |alpha b[i] + beta - r[i]| (one fma), n floats. Thread-safe. */
HST_API void hst_k_quality_error_map_host(const float *b, const float *r, float *e, float alpha,
                                          float beta, size_t n);
/* The Fourier interpolation's zero-padded spectrum (NanoPyx's fht_space_interpolation):
   src (p, p / 2 + 1) c64, the r2c spectrum of a p x p image; dst (mp, mp) c64, unshifted,
   holds src's frequencies at the fftshifted placement NanoPyx gives them (centred in the
   larger square), zero elsewhere. Floats as interleaved (re, im) pairs. Thread-safe. */
HST_API void hst_k_quality_fourier_pad_host(const float *src, float *dst, int p, int mp);
/* dst (rows, cols) = (src[y0 + y][x0 + x] - lo) scale + base (one fma); src (mp, mp): the
   interpolated image's centre crop, rescaled to the reference's range. Thread-safe. */
HST_API void hst_k_quality_crop_rescale_host(const float *src, float *dst, int mp, int rows,
                                             int cols, int y0, int x0, float lo, float scale,
                                             float base);
/* FRC ring sums, first pass (NanoPyx's _calculate_frc_value): for ring r < max_r and chunk
   c < nchunks, the samples i in [c chunk, min(count[r], (c + 1) chunk)) at angle i step[r] on
   the circle of radius r about (max_r + 1, max_r + 1) of the shifted s x s spectra f1, f2
   (r2c halves, (s, s / 2 + 1) c64): the products (Re F1 F2*, |F1|^2, |F2|^2), bilinearly
   interpolated, summed in sample order into part (max_r, nchunks, 3). count, step: max_r ints
   and floats. Thread-safe. */
HST_API void hst_k_quality_frc_partial_host(const float *f1, const float *f2, const int *count,
                                            const float *step, float *part, int s, int max_r,
                                            int chunk, int nchunks);
/* FRC ring sums, second pass: ring (max_r, 3), ring[r][k] = the sum over c < nchunks, in
   order, of part[r][c][k]. Thread-safe. */
HST_API void hst_k_quality_frc_rings_host(const float *part, float *ring, int max_r,
                                          int nchunks);
/* Decorrelation, per shifted column x < n of an n x n spectrum f (r2c half, (n, n / 2 + 1)
   c64): norm[x] = the sum of |F|^2 inside the inscribed circle; part (n, 2 nr): part[x][d]
   and part[x][nr + d] = the sums of |F| and of |F / |F||^2 over ring d < nr (radius
   normalised to Nyquist, crmin .. crmax mapped to 0 .. nr - 1 and rounded; radii above crmax
   left out), over rows [oy, oy + h) and columns [ox, ox + w) and the half plane
   x n + y <= n^2 / 2 + n / 2 (NanoPyx's _get_corr_coef_ring window and hw plane); zero_dc:
   the DC term counts as 0. 2 <= nr <= HST_K_QUALITY_MAX_NR. Thread-safe. */
HST_API void hst_k_quality_decorr_cols_host(const float *f, float *part, float *norm, int n,
                                            int nr, float crmin, float crmax, int ox, int w,
                                            int oy, int h, int zero_dc);
/* Decorrelation's high-pass filter in the Fourier domain: f = f0 times 1 - g(ky) g(kx), f0 and f
   (n, n / 2 + 1) c64 (r2c halves of an n x n image, unshifted), g(k) the gain of a symmetric
   blur at frequency index k < n along either axis. hg: n (h, g) float pairs, h = 1 - g (both
   rounded from double): the factor is h(ky) + h(kx) g(ky) (one fma), which keeps its digits
   where g is near 1 (the low frequencies a high-pass removes). Thread-safe. */
HST_API void hst_k_quality_decorr_highpass_host(const float *f0, float *f, const float *hg, int n);
/* The error map's 2-D DCT-II (Makhoul, "A fast cosine transform in one and multiple
   dimensions", IEEE Trans. ASSP 28(1), 1980), in three steps around an r2c FFT. pack: dst
   (rows, cols) = src with each axis reordered, even indices up, then odd ones down (position
   m takes index 2 m where 2 m < n, else 2 n - 1 - 2 m). unpack: dst (rows, cols) = the DCT-II
   coefficients from spec (rows, cols / 2 + 1) c64, the r2c spectrum of the packed image:
   dst[k1][k2] = Re(t1 (t2 V[k1][k2] + conj(t2) V[k1][-k2])) with V the full DFT (the missing
   half read as the conjugate of its mirror) and t = tr[k1], tc[k2]: (c, s) float pairs meaning
   c - i s. quality.h gives a(k) (cos, sin)(pi k / 2 n) per axis, tr halved (a(k) the
   orthonormal scale), which makes dst the orthonormal DCT-II. Thread-safe. */
HST_API void hst_k_quality_dct_pack_host(const float *src, float *dst, int rows, int cols);
HST_API void hst_k_quality_dct_unpack_host(const float *spec, float *dst, const float *tr,
                                           const float *tc, int rows, int cols);
/* The error map's objective in the DCT domain, for images k in [k0, k1): part[2 k pstride + i]
   and part[(2 k + 1) pstride + i] = for each i < g, the sums of v^2 and v r[j] with
   v = gr[k1] gc[k2] s_k[j], over elements j = i, i + g, i + 2 g, ... < rows cols of s_k and r
   (DCT-II coefficients, (rows, cols); s_k = s + k sstride), j = k1 cols + k2, the DC term
   (j = 0) left out. gr = gains + k gstride (rows floats), gc = gr + rstride (cols floats): image
   k's blur gain per frequency. The kernel's work-item (i, k): a global offset k0 in dimension 1
   starts at image k0, its last argument kend (the twin's k1) ends the images. Thread-safe. */
HST_API void hst_k_quality_dct_moments_host(const float *s, const float *r, const float *gains,
                                            float *part, int rows, int cols, uint32_t g,
                                            uint64_t sstride, uint64_t gstride, uint64_t rstride,
                                            uint64_t pstride, size_t k0, size_t k1);
/* The second level of a batch of partial sums (quality.h's objective for several images in
   one read-back): for i = k h + c < n (c < h; row k of part, rows `stride` floats apart, g
   partials each), out[i] = the sum over j = c, c + h, c + 2 h, ... < g of part[k stride + j],
   in that order, compensated (Kahan: float rounding does not grow with the number of terms).
   A global offset k0 h starts at row k0. The twin does rows [k0, k1). Thread-safe. */
HST_API void hst_k_quality_partial_sums_host(const float *part, float *out, uint32_t g,
                                             uint32_t h, uint64_t stride, size_t k0, size_t k1);
/* The error map's blur gains per DCT frequency, for images k in [k0, k1): a symmetric filter of
   taps t_0 .. t_R each side (R = radius[k], t_j = w[k wstride + j]) multiplies DCT-II
   coefficient f of a line of n by g(f) = t_0 + 2 sum_{j=1..R} t_j cos(pi f j / n), the sum
   taken in double in order j = 1 .. R (one product, one sum per term: the device source
   disables contraction) with cos(pi m / n) from the table c (2 n doubles, m = f j mod 2 n),
   rounded to float once. Work-item (i, k): i < rows writes gains[k gstride + i] (n = rows,
   c = cos_r), else gains[k gstride + rstride + i - rows] (n = cols, c = cos_c). A global
   offset k0 in dimension 1 starts at image k0, kend (the twin's k1) ends them. Needs fp64 on a
   device. Thread-safe. */
HST_API void hst_k_quality_gains_host(const float *w, const int *radius, const double *cos_r,
                                      const double *cos_c, float *gains, int rows, int cols,
                                      uint64_t wstride, uint64_t gstride, uint64_t rstride,
                                      size_t k0, size_t k1);

/* <<quality kernels */

/* >>nufft kernels */
#ifndef HST_NO_NUFFT_KERNELS   /* an embedder without nufft.h may drop this text */

/* The NUFFT program: nufft.h's non-uniform FFTs of type 1 and 2 in 2-D and 3-D (FINUFFT's
   algorithm: Barnett, Magland & af Klinteberg, SIAM J. Sci. Comput. 41(5), 2019; spreading by
   bins and subproblems as cuFINUFFT: Shih et al., IPDPSW 2021). Every grid is 3-D, C order
   (nf0, nf1, nf2): a 2-D problem has nf0 = 1 and width 1 along axis 0. Complex values are
   interleaved (re, im) float pairs (OpenCL float2). Build options: -D HST_NU_W0=w0
   -D HST_NU_W=w (the kernel widths along axis 0 and along axes 1 and 2, 1 <= w <= 8) and
   -D HST_NU_DEG=deg (the kernel polynomials' degree): the loops over the taps have constant
   bounds, so a device keeps its accumulators in registers.

   Points are sorted by bin (nufft.h's set_points); sorted point j of m has, per axis d, the
   first grid index its kernel touches, base[d m + j] (in [-w/2, nf_d): the taps wrap around
   the periodic grid), and off[d m + j] = base - s (s: the point's position in grid units,
   off in [-w/2, -w/2 + 1)); perm[j] is its index in the caller's order. The kernel's values
   at the w taps of an axis come from its piecewise polynomial (FINUFFT's Horner evaluation of
   the ES kernel, nufft.h fits it): with z = 2 off + w - 1 in [-1, 1), tap t's value is
   sum_k coef[k 8 + t] z^(deg - k), by Horner's rule (one multiply, then one add, per k);
   coef holds three axes' tables of (deg + 1) x 8 floats (HST_K_NUFFT_LANES columns, the taps
   past w zero), axis a's at coef + a (deg + 1) 8.
   The geometry g (16 ints, OpenCL int16): nf0..2 (s0-s2), bin extents (s3-s5), bins per axis
   (s6-s8), widths (s9-sb), pads (sc-se: ceil(w / 2)), points per subproblem at most (sf).
   Modes (nm0, nm1, nm2) in NumPy /
   FINUFFT modeord-0 order: index i along an axis of nm modes is frequency i - nm / 2; corr
   holds 1 / phihat per mode index, axis 0's nm0 values, then axis 1's, then axis 2's.

     kernel                  arguments                                                global
     hst_k_nufft_spread      base, off, perm, c, sub_bin, sub_first, bin_start, grid,  nsub x local
                             __local tile, uint m, int16 g, coef
     hst_k_nufft_interp      base, off, perm, grid, c, uint m, int16 g, coef           m
     hst_k_nufft_to_modes    grid, f, corr, int4 nf, int4 nm                          nm0 nm1 nm2
     hst_k_nufft_to_grid     f, grid, corr, int4 nf, int4 nm                          nf0 nf1 nf2

   spread: work-group s spreads subproblem s (points sub_first[s] .. min(sub_first[s] + g.sf,
   bin_start[bin + 1]) of bin sub_bin[s]) into a local tile (the bin padded by pad on each
   side: (b0 + 2 p0)(b1 + 2 p1)(b2 + 2 p2) float2, zeroed first) with atomic float adds
   (compare-and-swap loops), then adds the tile's non-zero values into the periodic grid with
   atomic adds: the order of the additions, hence the last bits, varies from run to run.
   Each tap adds (c.re k2[t]) (k0[a] k1[b]) and (c.im k2[t]) (k0[a] k1[b]).
   interp: c[perm[j]] = sum over the taps, rows (a, b) in order accumulating the 2 w2 floats
   of a row times k0[a] k1[b], then the row's taps t in order times k2[t]. No atomics.
   to_modes: f[i] = grid[fine index of mode i] (corr0[i0] corr1[i1]) corr2[i2] (type 1's
   deconvolution and truncation); to_grid: grid = f placed at the modes' fine indices times the
   same factors, 0 elsewhere (type 2's). Each bound-checks its global id; the modes' kernels
   write each element once.

   The host twins below take the same arguments, with deg, (the twin of spread runs
   subproblems [sub0, sub1) one after another into the caller's tile of 2 (b0 + 2 p0)
   (b1 + 2 p1)(b2 + 2 p2) + 2 HST_K_NUFFT_LANES floats, with plain adds; interp's runs sorted
   points [j0, j1)) and do the same float operations in the same order for every value they
   return, so type 2 gives the same bits on every device, type 1 the same up to the order of
   the atomic adds. For SIMD, the twins compute HST_K_NUFFT_LANES taps per row whatever w
   (the extra taps have zero weights): spread's extra adds of 0 leave the tile unchanged, and
   interp reads up to HST_K_NUFFT_LANES complex values past a row's w taps, so its grid must
   have that many readable complex values after its end (nufft.h allocates them).
   Sizes: m < 2^31, grids below 2^31 elements (nufft.h checks). */
#define HST_K_NUFFT_LANES 8        /* taps per axis at most, and the twins' SIMD width */

/* The NUFFT program's source pieces (static storage), as hst_kernels_vocab_source.
   Thread-safe. */
HST_API const char *const *hst_kernels_nufft_source(size_t *count);

/* Spreading (type 1) of subproblems [sub0, sub1) into grid (nf0, nf1, nf2) c64; c: the
   caller's m values (c64); tile: 2 (b0 + 2 p0)(b1 + 2 p1)(b2 + 2 p2) + 2 HST_K_NUFFT_LANES
   floats of scratch.
   Thread-safe on disjoint grid regions (nufft.h runs non-overlapping stripes of bins at once). */
HST_API void hst_k_nufft_spread_host(const int32_t *base, const float *off, const uint32_t *perm,
                                     const float *c, const uint32_t *sub_bin,
                                     const uint32_t *sub_first, const uint32_t *bin_start,
                                     float *grid, float *tile, uint32_t m, const int32_t g[16],
                                     const float *coef, int deg, uint32_t sub0, uint32_t sub1);
/* Interpolation (type 2) of sorted points [j0, j1) from grid into c (c64, the caller's
   order); grid readable HST_K_NUFFT_LANES complex values past its end. Thread-safe (disjoint point ranges write disjoint c). */
HST_API void hst_k_nufft_interp_host(const int32_t *base, const float *off, const uint32_t *perm,
                                     const float *grid, float *c, uint32_t m, const int32_t g[16],
                                     const float *coef, int deg, uint32_t j0, uint32_t j1);
/* Type 1's last step: f (nm0, nm1, nm2) c64 from grid (nf0, nf1, nf2). nf, nm: 4 ints (the
   fourth unused). Thread-safe. */
HST_API void hst_k_nufft_to_modes_host(const float *grid, float *f, const float *corr,
                                       const int32_t nf[4], const int32_t nm[4]);
/* Type 2's first step: grid (nf0, nf1, nf2) c64 from f (nm0, nm1, nm2). Thread-safe. */
HST_API void hst_k_nufft_to_grid_host(const float *f, float *grid, const float *corr,
                                      const int32_t nf[4], const int32_t nm[4]);

#endif /* HST_NO_NUFFT_KERNELS */

/* <<nufft kernels */

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
                                  HST_MATH_SIN == 3 && HST_MATH_COS == 4 && HST_MATH_POW == 5 &&
                                  HST_MATH_ARCCOS == 6 && HST_MATH_ERFC == 7)
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
#define HST__PERM_ROUNDS 8                            /* Feistel rounds of hst_k_randperm */

typedef struct hst__c32 { float re, im; } hst__c32;   /* a c64 element or accumulator */
typedef struct hst__c64 { double re, im; } hst__c64;  /* a c128 element or accumulator */

/* >>device source */

/* Each piece is at most 4095 characters (C99 5.2.4.1's minimum for a string literal), checked
   below; the pieces are concatenated by clCreateProgramWithSource. */

static const char hst__vocab_src_types[] =
"/* halostream vocabulary program (kernels.h): -DHST_DT=1..9 (u8 i32 f32 f64 c64 i8 i16 i64\n"
"   c128) [-DHST_FP64] */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#ifdef HST_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"#endif\n"
"#define HST_REDUCE_LOCAL " HST__KXSTR(HST_REDUCE_LOCAL) "\n"
"#define HST_REDUCE_BLOCK " HST__KXSTR(HST_REDUCE_BLOCK) "\n"
"#define HST_REDUCE_STEPS (HST_REDUCE_BLOCK / HST_REDUCE_LOCAL)\n"
"#define HST_TWO_PI 6.283185307179586\n"
"#define HST_TWO_PI_F 6.2831853f\n"
"/* T element type, E its scalar component, R real accumulator, A sum/dot accumulator.\n"
"   Integers: U unsigned twin, W unsigned type of wrapping arithmetic, HST_AS_T its bits as\n"
"   T, [HST_LO, HST_HI] the range, HST_LO_F / HST_HI_F the float bounds of saturation\n"
"   (HST_HI_F = HST_HI + 1, powers of two). Classes: HST_INT, HST_CPLX, HST_FLOAT (every\n"
"   float and complex type), HST_RFLOAT (f32 f64). */\n"
"#if !defined(HST_DT)\n"
"#error \"build with -DHST_DT=1..9 (hst_kernels_vocab_options)\"\n"
"#elif HST_DT == 1 || HST_DT == 2 || (HST_DT >= 6 && HST_DT <= 8)\n"
"#define HST_INT 1\n"
"typedef long A;\n"
"#if HST_DT == 1\n"
"typedef uchar T; typedef uchar U; typedef uint W;\n"
"#define HST_AS_T as_uchar\n"
"#define HST_LO 0L\n"
"#define HST_HI 255L\n"
"#define HST_LO_F 0.0f\n"
"#define HST_HI_F 256.0f\n"
"#elif HST_DT == 6\n"
"typedef char T; typedef uchar U; typedef uint W;\n"
"#define HST_AS_T as_char\n"
"#define HST_LO (-128L)\n"
"#define HST_HI 127L\n"
"#define HST_LO_F (-128.0f)\n"
"#define HST_HI_F 128.0f\n"
"#elif HST_DT == 7\n"
"typedef short T; typedef ushort U; typedef uint W;\n"
"#define HST_AS_T as_short\n"
"#define HST_LO (-32768L)\n"
"#define HST_HI 32767L\n"
"#define HST_LO_F (-32768.0f)\n"
"#define HST_HI_F 32768.0f\n"
"#elif HST_DT == 2\n"
"typedef int T; typedef uint U; typedef uint W;\n"
"#define HST_AS_T as_int\n"
"#define HST_LO ((long)INT_MIN)\n"
"#define HST_HI ((long)INT_MAX)\n"
"#define HST_LO_F (-2147483648.0f)\n"
"#define HST_HI_F 2147483648.0f\n"
"#else\n"
"typedef long T; typedef ulong U; typedef ulong W;\n"
"#define HST_AS_T as_long\n"
"#define HST_LO LONG_MIN\n"
"#define HST_HI LONG_MAX\n"
"#define HST_LO_F (-9223372036854775808.0f)\n"
"#define HST_HI_F 9223372036854775808.0f\n"
"#endif\n"
"typedef T E;\n"
"#define HST_MIN_IDENT ((T)HST_HI)\n"
"#define HST_MAX_IDENT ((T)HST_LO)\n"
"#elif HST_DT == 3 || HST_DT == 5\n"
"#define HST_FLOAT 1\n"
"typedef float E;\n"
"typedef float R;\n"
"#define HST_CONVERT_E convert_float\n"
"#if HST_DT == 3\n"
"#define HST_RFLOAT 1\n"
"typedef float T; typedef float A;\n"
"#define HST_MIN_IDENT NAN\n"
"#define HST_MAX_IDENT NAN\n"
"#else\n"
"#define HST_CPLX 1\n"
"typedef float2 T; typedef float2 A;\n"
"#define HST_CONVERT_T convert_float2\n"
"#endif\n"
"#elif HST_DT == 4 || HST_DT == 9\n"
"#ifndef HST_FP64\n"
"#error \"an f64 or c128 program needs cl_khr_fp64: build with -DHST_FP64\"\n"
"#endif\n"
"#define HST_FLOAT 1\n"
"typedef double E;\n"
"typedef double R;\n"
"#define HST_CONVERT_E convert_double\n"
"#if HST_DT == 4\n"
"#define HST_RFLOAT 1\n"
"typedef double T; typedef double A;\n"
"#define HST_MIN_IDENT ((double)NAN)\n"
"#define HST_MAX_IDENT ((double)NAN)\n"
"#else\n"
"#define HST_CPLX 1\n"
"typedef double2 T; typedef double2 A;\n"
"#define HST_CONVERT_T convert_double2\n"
"#endif\n"
"#else\n"
"#error \"HST_DT must be 1..9\"\n"
"#endif\n";

static const char hst__vocab_src_convert[] =
"\n"
"/* conversions to E: integers truncate toward zero and saturate, NaN -> 0; floats round to\n"
"   nearest even */\n"
"#ifdef HST_INT\n"
"E hst_e_from_i64(long v) { return v < HST_LO ? (E)HST_LO : v > HST_HI ? (E)HST_HI : (E)v; }\n"
"E hst_e_from_f32(float v)\n"
"{\n"
"  return isnan(v) ? (E)0 : v >= HST_HI_F ? (E)HST_HI : v <= HST_LO_F ? (E)HST_LO : (E)v;\n"
"}\n"
"#ifdef HST_FP64\n"
"E hst_e_from_f64(double v)\n"
"{\n"
"  return isnan(v) ? (E)0 : v >= (double)HST_HI_F ? (E)HST_HI\n"
"       : v <= (double)HST_LO_F ? (E)HST_LO : (E)v;\n"
"}\n"
"#endif\n"
"#else\n"
"E hst_e_from_i64(long v) { return HST_CONVERT_E(v); }\n"
"E hst_e_from_f32(float v) { return HST_CONVERT_E(v); }\n"
"#ifdef HST_FP64\n"
"E hst_e_from_f64(double v) { return HST_CONVERT_E(v); }\n"
"#endif\n"
"#endif\n"
"\n"
"/* T from a complex value: complex T converts both parts, real T takes the real part */\n"
"#ifdef HST_CPLX\n"
"T hst_make(E v) { return (T)(v, (E)0); }\n"
"T hst_from_c64(float2 v) { return HST_CONVERT_T(v); }\n"
"#ifdef HST_FP64\n"
"T hst_from_c128(double2 v) { return HST_CONVERT_T(v); }\n"
"#endif\n"
"/* a*b = (ar*br - ai*bi, ar*bi + ai*br) */\n"
"T hst_mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
"/* conj(a)*b = (ar*br + ai*bi, ar*bi - ai*br) */\n"
"T hst_dot_term(T a, T b) { return (T)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x); }\n"
"R hst_sq_term(T a) { return a.x * a.x + a.y * a.y; }\n"
"#else\n"
"T hst_make(E v) { return v; }\n"
"T hst_from_c64(float2 v) { return hst_e_from_f32(v.x); }\n"
"#ifdef HST_FP64\n"
"T hst_from_c128(double2 v) { return hst_e_from_f64(v.x); }\n"
"#endif\n"
"#ifdef HST_FLOAT\n"
"T hst_mul(T a, T b) { return a * b; }\n"
"T hst_dot_term(T a, T b) { return a * b; }\n"
"R hst_sq_term(T a) { return a * a; }\n"
"#endif\n"
"#endif\n";

static const char hst__vocab_src_elementwise[] =
"\n"
"/* casts: dst[i] = src[i] converted to T (element-wise; global size may exceed n) */\n"
"T hst_c_int(long v) { return hst_make(hst_e_from_i64(v)); }\n"
"T hst_c_f32(float v) { return hst_make(hst_e_from_f32(v)); }\n"
"#define HST_CAST(name, S, CONV) \\\n"
"__kernel void name(__global const S *src, __global T *dst, ulong n) \\\n"
"{ \\\n"
"  ulong i = get_global_id(0); \\\n"
"  if (i < n) dst[i] = CONV(src[i]); \\\n"
"}\n"
"HST_CAST(hst_k_cast_from_u8, uchar, hst_c_int)\n"
"HST_CAST(hst_k_cast_from_i8, char, hst_c_int)\n"
"HST_CAST(hst_k_cast_from_i16, short, hst_c_int)\n"
"HST_CAST(hst_k_cast_from_i32, int, hst_c_int)\n"
"HST_CAST(hst_k_cast_from_i64, long, hst_c_int)\n"
"HST_CAST(hst_k_cast_from_f32, float, hst_c_f32)\n"
"HST_CAST(hst_k_cast_from_c64, float2, hst_from_c64)\n"
"#ifdef HST_FP64\n"
"T hst_c_f64(double v) { return hst_make(hst_e_from_f64(v)); }\n"
"HST_CAST(hst_k_cast_from_f64, double, hst_c_f64)\n"
"HST_CAST(hst_k_cast_from_c128, double2, hst_from_c128)\n"
"#endif\n"
"\n"
"#ifdef HST_FLOAT\n"
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
"#ifdef HST_RFLOAT\n"
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
"  case 6: v = acos(v); break;\n"
"  case 7: v = erfc(v); break;\n"
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
"#ifdef HST_FLOAT\n"
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
"#ifndef HST_CPLX\n"
"#ifdef HST_INT\n"
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
"#if HST_DT == 2 || HST_DT == 8\n"
"/* dst[i] = pi(i), pi a bijection of [0, n): a balanced Feistel network of HST_PERM_ROUNDS\n"
"   rounds on [0, 4^h) (4^h >= n), round function philox(R | r << 32, seed).x, walked\n"
"   until the value falls in [0, n) (cycle walking) */\n"
"#define HST_PERM_ROUNDS " HST__KXSTR(HST__PERM_ROUNDS) "\n"
"ulong hst_feistel(ulong x, uint h, ulong seed)\n"
"{\n"
"  ulong mask = (1UL << h) - 1UL, l = x >> h, r = x & mask;\n"
"  uint2 key = (uint2)((uint)seed, (uint)(seed >> 32));\n"
"  for (uint k = 0; k < HST_PERM_ROUNDS; ++k) {\n"
"    ulong f = (ulong)hst_philox((uint4)((uint)r, k, 0u, 0u), key).x & mask;\n"
"    ulong t = l ^ f;\n"
"    l = r;\n"
"    r = t;\n"
"  }\n"
"  return (l << h) | r;\n"
"}\n"
"__kernel void hst_k_randperm(__global T *dst, ulong n, ulong seed)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  uint h = 1;\n"
"  while (h < 32 && (1UL << (2 * h)) < n) ++h;\n"
"  ulong y = hst_feistel(i, h, seed);\n"
"  while (y >= n) y = hst_feistel(y, h, seed);\n"
"  dst[i] = (T)y;\n"
"}\n"
"#endif\n"
"\n"
"#ifdef HST_FLOAT\n"
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
"#elif HST_DT == 4 || HST_DT == 9\n"
"double hst_u53(uint hi, uint lo) { return (double)hst_k53(hi, lo) * 0x1.0p-53; }\n"
"double2 hst_normal53(uint4 w)\n"
"{\n"
"  double u1 = (double)(hst_k53(w.x, w.y) + 1) * 0x1.0p-53;\n"
"  return hst_box_muller(u1, hst_u53(w.z, w.w));\n"
"}\n"
"#if HST_DT == 4\n"
"T hst_uniform(uint4 w) { return hst_u53(w.x, w.y); }\n"
"T hst_normal(uint4 w) { return hst_normal53(w).x; }\n"
"#else\n"
"T hst_uniform(uint4 w) { return (double2)(hst_u53(w.x, w.y), hst_u53(w.z, w.w)); }\n"
"T hst_normal(uint4 w) { return hst_normal53(w); }\n"
"#endif\n"
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

/* Each piece of OpenCL C must fit the 4095 characters C99 promises for a string literal
   (sizeof counts the terminating NUL). */
#define HST__PIECE_FITS(name, piece) \
    typedef char hst__check_piece_##name[(sizeof(piece) <= 4096) ? 1 : -1]
HST__PIECE_FITS(types, hst__vocab_src_types);
HST__PIECE_FITS(convert, hst__vocab_src_convert);
HST__PIECE_FITS(elementw, hst__vocab_src_elementwise);
HST__PIECE_FITS(reduce, hst__vocab_src_reduce);
HST__PIECE_FITS(random, hst__vocab_src_random);

static const char *const hst__vocab_src[] = {
    hst__vocab_src_types, hst__vocab_src_convert, hst__vocab_src_elementwise,
    hst__vocab_src_reduce, hst__vocab_src_random
};

/* >>helpers */

/* The dtypes, one row each: X(dtype, name, bytes, class, lo, hi), class 0 integer, 1 real
   float, 2 complex; [lo, hi] an integer's range (saturating conversions). */
#define HST__DTYPES(X)                                          \
    X(HST_U8, "u8", 1, 0, 0, 255)                               \
    X(HST_I32, "i32", 4, 0, HST__I32_MIN, HST__I32_MAX)         \
    X(HST_F32, "f32", 4, 1, 0, 0)                               \
    X(HST_F64, "f64", 8, 1, 0, 0)                               \
    X(HST_C64, "c64", 8, 2, 0, 0)                               \
    X(HST_I8, "i8", 1, 0, -128, 127)                            \
    X(HST_I16, "i16", 2, 0, -32768, 32767)                      \
    X(HST_I64, "i64", 8, 0, INT64_MIN, INT64_MAX)               \
    X(HST_C128, "c128", 16, 2, 0, 0)

/* The class of dt (0 integer, 1 real float, 2 complex); -1 for an invalid dtype. */
HST__KPRIVATE int hst__dtype_class(hst_dtype dt)
{
#define HST__X(d, name, bytes, cls, lo, hi) if (dt == d) return cls;
    HST__DTYPES(HST__X)
#undef HST__X
    return -1;
}

HST__KPRIVATE int hst__dtype_valid(hst_dtype dt) { return hst__dtype_class(dt) >= 0; }
HST__KPRIVATE int hst__is_float(hst_dtype dt) { return hst__dtype_class(dt) >= 1; }
HST__KPRIVATE int hst__is_real_float(hst_dtype dt) { return hst__dtype_class(dt) == 1; }

/* An integer dtype's range. */
HST__KPRIVATE void hst__int_range(hst_dtype dt, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
#define HST__X(d, name, bytes, cls, l, h) if (dt == d) { *lo = l; *hi = h; }
    HST__DTYPES(HST__X)
#undef HST__X
}

HST__KPRIVATE size_t hst__groups(size_t n)
{
    return n / HST_REDUCE_BLOCK + (n % HST_REDUCE_BLOCK != 0);
}

/* Saturating conversions to integer dtype dt: an integer clamps; a float truncates toward
   zero, saturates, NaN -> 0 (every float promotes to double exactly; the bounds lo and hi + 1
   are exact in double). */
HST__KPRIVATE int64_t hst__sat_int(hst_dtype dt, int64_t v)
{
    int64_t lo, hi;
    hst__int_range(dt, &lo, &hi);
    return v < lo ? lo : v > hi ? hi : v;
}

HST__KPRIVATE int64_t hst__sat_real(hst_dtype dt, double v)
{
    int64_t lo, hi;
    hst__int_range(dt, &lo, &hi);
    if (v != v) return 0;
    if (v >= (double)hi + 1.0) return hi;   /* i64: (double)hi is 2^63 already */
    if (v <= (double)lo) return lo;
    return (int64_t)v;
}

/* Complex helpers for C (hst__c32 or hst__c64) of real type R, one rounding per operation:
   make, zero, add, mul a*b = (ar*br - ai*bi, ar*bi + ai*br), at (element j of an interleaved
   array), cdot conj(x[j])*y[j] = (xr*yr + xi*yi, xr*yi - xi*yr), abs2 |x[j]|^2. */
#define HST__COMPLEX_HELPERS(C, R)                                                               \
    HST__KPRIVATE C C##_make(R re, R im)                                                         \
    {                                                                                            \
        C c;                                                                                     \
        c.re = re;                                                                               \
        c.im = im;                                                                               \
        return c;                                                                                \
    }                                                                                            \
    HST__KPRIVATE C C##_zero(void) { return C##_make((R)0, (R)0); }                              \
    HST__KPRIVATE C C##_add(C a, C b) { return C##_make(a.re + b.re, a.im + b.im); }             \
    HST__KPRIVATE C C##_mul(C a, C b)                                                            \
    {                                                                                            \
        R p = a.re * b.re, q = a.im * b.im, s = a.re * b.im, t = a.im * b.re;                    \
        return C##_make(p - q, s + t);                                                           \
    }                                                                                            \
    HST__KPRIVATE C C##_at(const R *x, size_t j) { return C##_make(x[2 * j], x[2 * j + 1]); }    \
    HST__KPRIVATE C C##_cdot(const R *x, const R *y, size_t j)                                   \
    {                                                                                            \
        R p = x[2 * j] * y[2 * j], q = x[2 * j + 1] * y[2 * j + 1];                              \
        R s = x[2 * j] * y[2 * j + 1], t = x[2 * j + 1] * y[2 * j];                              \
        return C##_make(p + q, s - t);                                                           \
    }                                                                                            \
    HST__KPRIVATE R C##_abs2(const R *x, size_t j)                                               \
    {                                                                                            \
        R p = x[2 * j] * x[2 * j], q = x[2 * j + 1] * x[2 * j + 1];                              \
        return p + q;                                                                            \
    }
HST__COMPLEX_HELPERS(hst__c32, float)
HST__COMPLEX_HELPERS(hst__c64, double)

HST__KPRIVATE float hst__add_f32(float a, float b) { return a + b; }
HST__KPRIVATE double hst__add_f64(double a, double b) { return a + b; }
HST__KPRIVATE float hst__mul_f32(float a, float b) { return a * b; }
HST__KPRIVATE double hst__mul_f64(double a, double b) { return a * b; }

/* MIN/MAX combine: integers plainly; floats with NaN ignored and ties keeping a (as on device). */
HST__KPRIVATE int64_t hst__min_i64(int64_t a, int64_t b) { return b < a ? b : a; }
HST__KPRIVATE int64_t hst__max_i64(int64_t a, int64_t b) { return b > a ? b : a; }
HST__KPRIVATE float hst__min_f32(float a, float b) { return a != a ? b : (b < a ? b : a); }
HST__KPRIVATE float hst__max_f32(float a, float b) { return a != a ? b : (b > a ? b : a); }
HST__KPRIVATE double hst__min_f64(double a, double b) { return a != a ? b : (b < a ? b : a); }
HST__KPRIVATE double hst__max_f64(double a, double b) { return a != a ? b : (b > a ? b : a); }

/* >>casts */

/* Integer element i of dt (exact in int64), and a store of v's low bits (two's complement
   wrap; callers saturate first where the rules say so). */
HST__KPRIVATE int64_t hst__load_int(hst_dtype dt, const void *src, size_t i)
{
    switch (dt) {
    case HST_U8: return ((const uint8_t *)src)[i];
    case HST_I8: return ((const int8_t *)src)[i];
    case HST_I16: return ((const int16_t *)src)[i];
    case HST_I32: return ((const int32_t *)src)[i];
    case HST_I64: return ((const int64_t *)src)[i];
    default: return 0;
    }
}

HST__KPRIVATE void hst__store_int(hst_dtype dt, void *dst, size_t i, int64_t v)
{
    switch (dt) {
    case HST_U8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
    case HST_I8: ((int8_t *)dst)[i] = (int8_t)(uint8_t)v; break;
    case HST_I16: ((int16_t *)dst)[i] = (int16_t)(uint16_t)v; break;
    case HST_I32: ((int32_t *)dst)[i] = (int32_t)(uint32_t)v; break;
    case HST_I64: ((int64_t *)dst)[i] = v; break;
    default: break;
    }
}

/* Float or complex element i of dt as (re, im) in double (exact; im = 0 for real dtypes). */
HST__KPRIVATE void hst__load_cplx(hst_dtype dt, const void *src, size_t i, double *re, double *im)
{
    *im = 0.0;
    switch (dt) {
    case HST_F32: *re = (double)((const float *)src)[i]; break;
    case HST_F64: *re = ((const double *)src)[i]; break;
    case HST_C64:
        *re = (double)((const float *)src)[2 * i];
        *im = (double)((const float *)src)[2 * i + 1];
        break;
    case HST_C128:
        *re = ((const double *)src)[2 * i];
        *im = ((const double *)src)[2 * i + 1];
        break;
    default: *re = (double)hst__load_int(dt, src, i); break;
    }
}

/* (re, im) into float or complex element i of dt, each part rounded once (real dtypes drop
   im). */
HST__KPRIVATE void hst__store_cplx(hst_dtype dt, void *dst, size_t i, double re, double im)
{
    switch (dt) {
    case HST_F32: ((float *)dst)[i] = (float)re; break;
    case HST_F64: ((double *)dst)[i] = re; break;
    case HST_C64:
        ((float *)dst)[2 * i] = (float)re;
        ((float *)dst)[2 * i + 1] = (float)im;
        break;
    case HST_C128:
        ((double *)dst)[2 * i] = re;
        ((double *)dst)[2 * i + 1] = im;
        break;
    default: break;
    }
}

/* An integer into float or complex element i of dt, rounded once (an int64 through double
   would round twice on its way to float). */
HST__KPRIVATE void hst__store_from_int(hst_dtype dt, void *dst, size_t i, int64_t v)
{
    if (dt == HST_F32 || dt == HST_C64) {
        float f = (float)v;
        hst__store_cplx(dt, dst, i, (double)f, 0.0);
    } else {
        hst__store_cplx(dt, dst, i, (double)v, 0.0);
    }
}

/* A double into element i of dt by the cast rules (integers saturate; im = 0). */
HST__KPRIVATE void hst__store_real(hst_dtype dt, void *dst, size_t i, double v)
{
    if (hst__dtype_class(dt) == 0) hst__store_int(dt, dst, i, hst__sat_real(dt, v));
    else hst__store_cplx(dt, dst, i, v, 0.0);
}

/* Element i of src_dt converted to dst_dt (twin of the device's hst_k_cast_from_<src>). */
HST__KPRIVATE void hst__cast_one(hst_dtype dst_dt, void *dst, hst_dtype src_dt, const void *src,
                                 size_t i)
{
    double re, im;
    int int_dst = hst__dtype_class(dst_dt) == 0;
    if (hst__dtype_class(src_dt) == 0) {
        int64_t v = hst__load_int(src_dt, src, i);
        if (int_dst) hst__store_int(dst_dt, dst, i, hst__sat_int(dst_dt, v));
        else hst__store_from_int(dst_dt, dst, i, v);
        return;
    }
    hst__load_cplx(src_dt, src, i, &re, &im);
    if (int_dst) hst__store_int(dst_dt, dst, i, hst__sat_real(dst_dt, re));
    else hst__store_cplx(dst_dt, dst, i, re, im);
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

/* out = a x (scale: y NULL) or a x + y (axpy) on interleaved complex arrays of R, C the
   matching helper type; out may be x or y (element-wise). */
#define HST__COMPLEX_ARITH(NAME, C, R)                                                           \
    HST__KPRIVATE void NAME(R *out, const R *x, const R *y, size_t n, C a)                       \
    {                                                                                            \
        size_t i;                                                                                \
        for (i = 0; i < n; ++i) {                                                                \
            C r = C##_mul(a, C##_at(x, i));                                                      \
            if (y) r = C##_add(r, C##_at(y, i));                                                 \
            out[2 * i] = r.re;                                                                   \
            out[2 * i + 1] = r.im;                                                               \
        }                                                                                        \
    }
HST__COMPLEX_ARITH(hst__arith_c64, hst__c32, float)
HST__COMPLEX_ARITH(hst__arith_c128, hst__c64, double)

HST__KPRIVATE float hst__math_f32(hst_math_op op, float v, float p)
{
    switch (op) {
    case HST_MATH_ABS: return fabsf(v);
    case HST_MATH_SQRT: return sqrtf(v);
    case HST_MATH_EXP: return expf(v);
    case HST_MATH_SIN: return sinf(v);
    case HST_MATH_COS: return cosf(v);
    case HST_MATH_POW: return powf(v, p);
    case HST_MATH_ARCCOS: return (float)acos((double)v);   /* double libm, rounded once */
    case HST_MATH_ERFC: return (float)erfc((double)v);
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
    case HST_MATH_ARCCOS: return acos(v);
    case HST_MATH_ERFC: return erfc(v);
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
    } else {   /* f64 and c128: 53-bit uniforms from word pairs */
        if (dist == HST_RANDOM_NORMAL) {
            hst__box_muller((double)(hst__k53(w[0], w[1]) + 1) * HST__P2M53,
                            (double)hst__k53(w[2], w[3]) * HST__P2M53, g);
        } else {
            g[0] = (double)hst__k53(w[0], w[1]) * HST__P2M53;
            g[1] = (double)hst__k53(w[2], w[3]) * HST__P2M53;
        }
        hst__store_cplx(dt, x, i, g[0], g[1]);
    }
}

/* Feistel permutation of [0, 4^h) (twin of the device's hst_feistel). */
HST__KPRIVATE uint64_t hst__feistel(uint64_t x, unsigned h, uint64_t seed)
{
    uint64_t mask = ((uint64_t)1 << h) - 1, l = x >> h, r = x & mask;
    uint32_t key[2];
    unsigned k;
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    for (k = 0; k < HST__PERM_ROUNDS; ++k) {
        uint32_t c[4];
        uint64_t t;
        c[0] = (uint32_t)r; c[1] = k; c[2] = 0; c[3] = 0;
        hst__philox4x32_10(c, key);
        t = l ^ ((uint64_t)c[0] & mask);
        l = r;
        r = t;
    }
    return (l << h) | r;
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
HST__REDUCE_FN(hst__rsum_c128, double, hst__c64, hst__c64_zero(), hst__c64_at(x, j), hst__c64_add)
HST__REDUCE_FN(hst__rdot_c128, double, hst__c64, hst__c64_zero(), hst__c64_cdot(x, y, j),
               hst__c64_add)
HST__REDUCE_FN(hst__rsq_c128, double, double, 0.0, hst__c64_abs2(x, j), hst__add_f64)
HST__REDUCE_FN(hst__rmin_f32, float, float, (float)NAN, x[j], hst__min_f32)
HST__REDUCE_FN(hst__rmax_f32, float, float, (float)NAN, x[j], hst__max_f32)
HST__REDUCE_FN(hst__rmin_f64, double, double, (double)NAN, x[j], hst__min_f64)
HST__REDUCE_FN(hst__rmax_f64, double, double, (double)NAN, x[j], hst__max_f64)

/* Integers: int64 sums (wrapping; device and host alike) and min/max are exact in any order,
   so a block's partial is its plain reduction, written as the device writes it (int64 sums,
   T-typed min/max). */
HST__KPRIVATE void hst__reduce_int(hst_dtype dt, hst_reduce_op op, const void *x, size_t n,
                                   void *p)
{
    size_t g, j, groups = hst__groups(n);
    int64_t lo, hi;
    hst__int_range(dt, &lo, &hi);
    for (g = 0; g < groups; ++g) {
        size_t end = n - g * HST_REDUCE_BLOCK < HST_REDUCE_BLOCK ? n : (g + 1) * HST_REDUCE_BLOCK;
        uint64_t sum = 0;
        int64_t best = op == HST_REDUCE_MIN ? hi : lo;
        for (j = g * HST_REDUCE_BLOCK; j < end; ++j) {
            int64_t v = hst__load_int(dt, x, j);
            sum += (uint64_t)v;
            if (op == HST_REDUCE_MIN ? v < best : v > best) best = v;
        }
        if (op == HST_REDUCE_SUM) ((int64_t *)p)[g] = (int64_t)sum;
        else hst__store_int(dt, p, g, best);
    }
}

HST__KPRIVATE void hst__reduce_sum(hst_dtype dt, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_F32: hst__rsum_f32((const float *)x, NULL, n, (float *)p); break;
    case HST_F64: hst__rsum_f64((const double *)x, NULL, n, (double *)p); break;
    case HST_C64: hst__rsum_c64((const float *)x, NULL, n, (hst__c32 *)p); break;
    case HST_C128: hst__rsum_c128((const double *)x, NULL, n, (hst__c64 *)p); break;
    default: hst__reduce_int(dt, HST_REDUCE_SUM, x, n, p); break;
    }
}

HST__KPRIVATE void hst__reduce_dot(hst_dtype dt, const void *x, const void *y, size_t n, void *p)
{
    switch (dt) {
    case HST_F32: hst__rdot_f32((const float *)x, (const float *)y, n, (float *)p); break;
    case HST_F64: hst__rdot_f64((const double *)x, (const double *)y, n, (double *)p); break;
    case HST_C64: hst__rdot_c64((const float *)x, (const float *)y, n, (hst__c32 *)p); break;
    case HST_C128: hst__rdot_c128((const double *)x, (const double *)y, n, (hst__c64 *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_sqnorm(hst_dtype dt, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_F32: hst__rsq_f32((const float *)x, NULL, n, (float *)p); break;
    case HST_F64: hst__rsq_f64((const double *)x, NULL, n, (double *)p); break;
    case HST_C64: hst__rsq_c64((const float *)x, NULL, n, (float *)p); break;
    case HST_C128: hst__rsq_c128((const double *)x, NULL, n, (double *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_minmax(hst_dtype dt, int is_max, const void *x, size_t n, void *p)
{
    switch (dt) {
    case HST_F32:
        if (is_max) hst__rmax_f32((const float *)x, NULL, n, (float *)p);
        else hst__rmin_f32((const float *)x, NULL, n, (float *)p);
        break;
    case HST_F64:
        if (is_max) hst__rmax_f64((const double *)x, NULL, n, (double *)p);
        else hst__rmin_f64((const double *)x, NULL, n, (double *)p);
        break;
    default: hst__reduce_int(dt, is_max ? HST_REDUCE_MAX : HST_REDUCE_MIN, x, n, p); break;
    }
}

/* >>combine */

/* One accumulator of any kind, for the final combine (a few partials; clarity over speed). */
enum { HST__ACC_I64, HST__ACC_F32, HST__ACC_F64, HST__ACC_C32, HST__ACC_C64 };
typedef struct hst__acc { int64_t i; double d, z; float f[2]; } hst__acc;   /* z: c128's im */

HST__KPRIVATE int hst__acc_kind(hst_dtype dt, hst_reduce_op op)
{
    if (hst__dtype_class(dt) == 0) return HST__ACC_I64;
    if (dt == HST_C128) return op == HST_REDUCE_SQNORM ? HST__ACC_F64 : HST__ACC_C64;
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
    if (hst__dtype_class(dt) == 0) {
        int64_t lo, hi;
        hst__int_range(dt, &lo, &hi);
        a.i = is_min ? hi : lo;
    }
    a.f[0] = (float)NAN;
    a.d = (double)NAN;
    return a;
}

/* partial k as an accumulator: int64 sums, T-typed integer min/max, float, double, float or
   double pairs */
HST__KPRIVATE hst__acc hst__acc_load(hst_dtype dt, hst_reduce_op op, const void *p, size_t k)
{
    hst__acc a = hst__acc_zero();
    int is_sum = op != HST_REDUCE_MIN && op != HST_REDUCE_MAX;
    switch (hst__acc_kind(dt, op)) {
    case HST__ACC_I64:
        if (is_sum) a.i = ((const int64_t *)p)[k];
        else a.i = hst__load_int(dt, p, k);
        break;
    case HST__ACC_F32: a.f[0] = ((const float *)p)[k]; break;
    case HST__ACC_F64: a.d = ((const double *)p)[k]; break;
    case HST__ACC_C64:
        a.d = ((const double *)p)[2 * k];
        a.z = ((const double *)p)[2 * k + 1];
        break;
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
        a.i = is_min ? hst__min_i64(a.i, b.i) : is_max ? hst__max_i64(a.i, b.i)
            : (int64_t)((uint64_t)a.i + (uint64_t)b.i);   /* wraps, as the device's long */
        break;
    case HST__ACC_F32:
        a.f[0] = is_min ? hst__min_f32(a.f[0], b.f[0])
               : is_max ? hst__max_f32(a.f[0], b.f[0]) : a.f[0] + b.f[0];
        break;
    case HST__ACC_F64:
        a.d = is_min ? hst__min_f64(a.d, b.d) : is_max ? hst__max_f64(a.d, b.d) : a.d + b.d;
        break;
    case HST__ACC_C64:
        a.d = a.d + b.d;
        a.z = a.z + b.z;
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
    case HST__ACC_C64: out->re = a.d; out->im = a.z; break;
    default: out->re = (double)a.f[0]; out->im = (double)a.f[1]; break;
    }
}

/* >>public functions */

HST__KDEF size_t hst_dtype_size(hst_dtype dt)
{
#define HST__X(d, name, bytes, cls, lo, hi) if (dt == d) return bytes;
    HST__DTYPES(HST__X)
#undef HST__X
    return 0;
}

HST__KDEF const char *hst_dtype_name(hst_dtype dt)
{
#define HST__X(d, name, bytes, cls, lo, hi) if (dt == d) return name;
    HST__DTYPES(HST__X)
#undef HST__X
    return "invalid";
}

HST__KDEF int hst_dtype_is_int(hst_dtype dt) { return hst__dtype_class(dt) == 0; }
HST__KDEF int hst_dtype_is_complex(hst_dtype dt) { return hst__dtype_class(dt) == 2; }
HST__KDEF int hst_dtype_needs_fp64(hst_dtype dt) { return dt == HST_F64 || dt == HST_C128; }

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
    case HST_REDUCE_MAX: return !hst_dtype_is_complex(dt);
    default: return 0;
    }
}

HST__KDEF int hst_kernels_arith_supported(hst_dtype dt) { return hst__is_float(dt); }

HST__KDEF size_t hst_kernels_partial_size(hst_dtype dt, hst_reduce_op op)
{
    if (!hst_kernels_reduce_supported(dt, op)) return 0;
    if (op == HST_REDUCE_MIN || op == HST_REDUCE_MAX) return hst_dtype_size(dt);
    if (hst_dtype_is_int(dt)) return sizeof(int64_t);
    if (hst_dtype_is_complex(dt) && op == HST_REDUCE_SQNORM) return hst_dtype_size(dt) / 2;
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
        "-DHST_DT=1", "-DHST_DT=2", "-DHST_DT=3", "-DHST_DT=4", "-DHST_DT=5",
        "-DHST_DT=6", "-DHST_DT=7", "-DHST_DT=8", "-DHST_DT=9"
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
    for (i = 0; i < n; ++i) hst__cast_one(dst_dt, dst, src_dt, src, i);
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
        hst__arith_c64((float *)x, (const float *)x, NULL, n, hst__c32_make((float)alpha[0], (float)alpha[1]));
    } else if (dt == HST_C128) {
        hst__arith_c128((double *)x, (const double *)x, NULL, n, hst__c64_make(alpha[0], alpha[1]));
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
        hst__arith_c64((float *)y, (const float *)x, (const float *)y, n,
                       hst__c32_make((float)alpha[0], (float)alpha[1]));
    } else if (dt == HST_C128) {
        hst__arith_c128((double *)y, (const double *)x, (const double *)y, n, hst__c64_make(alpha[0], alpha[1]));
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

HST__KDEF void hst_k_randperm_host(hst_dtype dt, void *dst, size_t n, uint64_t seed)
{
    size_t i;
    unsigned h = 1;
    if (dt != HST_I32 && dt != HST_I64) return;
    while (h < 32 && ((uint64_t)1 << (2 * h)) < (uint64_t)n) ++h;
    for (i = 0; i < n; ++i) {
        uint64_t y = hst__feistel(i, h, seed);
        while (y >= n) y = hst__feistel(y, h, seed);
        hst__store_int(dt, dst, i, (int64_t)y);
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

/* >>vocabx kernels */

typedef char hst__check_vocabx_abi[(HST_BINARY_MINIMUM == 5 && HST_BINARY_ARCTAN2 == 6 &&
                                    HST_AXIS_CUMSUM == 5 &&
                                    HST_PART_CONJ == 4) ? 1 : -1];

static const char hst__vocabx_src_index[] =
"\n/* >>vocabx: 4-D index helpers (C order, dim 0 slowest) */\n"
"ulong4 hst_idx4(ulong i, ulong4 shape)\n"
"{\n"
"  ulong4 r;\n"
"  r.w = i % shape.w; i /= shape.w;\n"
"  r.z = i % shape.z; i /= shape.z;\n"
"  r.y = i % shape.y; r.x = i / shape.y;\n"
"  return r;\n"
"}\n"
"ulong hst_dot4(ulong4 a, ulong4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }\n"
"__kernel void hst_k_gather(__global const T *src, __global T *dst, ulong n, ulong4 shape,\n"
"                           ulong4 sst, ulong4 dstr, ulong4 shift, ulong4 mod, ulong soff,\n"
"                           ulong doff)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  ulong4 ix = hst_idx4(i, shape);\n"
"  dst[doff + hst_dot4(ix, dstr)] = src[soff + hst_dot4((ix + shift) % mod, sst)];\n"
"}\n"
"__kernel void hst_k_where(__global const uchar *c, __global const T *a, __global const T *b,\n"
"                          __global T *dst, ulong n)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  dst[i] = c[i] ? a[i] : b[i];\n"
"}\n"
"#ifdef HST_FP64\n"
"typedef double D;\n"
"#define HST_E_FROM_D hst_e_from_f64\n"
"#else\n"
"typedef float D;\n"
"#define HST_E_FROM_D hst_e_from_f32\n"
"#endif\n"
"#ifndef HST_CPLX\n"
"__kernel void hst_k_ramp(__global T *dst, ulong n, D start, D step, int set_last, D last)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  D v = (D)i * step;\n"
"  v = start + v;\n"
"  dst[i] = HST_E_FROM_D((set_last && i == n - 1) ? last : v);\n"
"}\n"
"#endif\n";

static const char hst__vocabx_src_binary[] =
"\n/* binary operations: op numbered as hst_binary_op */\n"
"#ifdef HST_CPLX\n"
"T hst_bin(T a, T b, int op)\n"
"{\n"
"  if (op == 0) return a + b;\n"
"  if (op == 1) return a - b;\n"
"  if (op == 2) return hst_mul(a, b);\n"
"  E d = b.x * b.x + b.y * b.y;\n"
"  E re = a.x * b.x + a.y * b.y, im = a.y * b.x - a.x * b.y;\n"
"  return (T)(re / d, im / d);\n"
"}\n"
"#elif defined(HST_INT)\n"
"/* two's complement wrap: the arithmetic runs in the unsigned W */\n"
"T hst_bin(T a, T b, int op)\n"
"{\n"
"  W ua = (W)(U)a, ub = (W)(U)b;\n"
"  if (op == 0) return HST_AS_T((U)(ua + ub));\n"
"  if (op == 1) return HST_AS_T((U)(ua - ub));\n"
"  if (op == 2) return HST_AS_T((U)(ua * ub));\n"
"  if (op == 4) return a > b ? a : b;\n"
"  return a < b ? a : b;\n"
"}\n"
"#else\n"
"T hst_bin(T a, T b, int op)\n"
"{\n"
"  if (op == 0) return a + b;\n"
"  if (op == 1) return a - b;\n"
"  if (op == 2) return a * b;\n"
"  if (op == 3) return a / b;\n"
"  if (op == 6) return atan2(a, b);\n"
"  if (isnan(a)) return a;\n"
"  if (isnan(b)) return b;\n"
"  if (op == 4) return a > b ? a : b;\n"
"  return a < b ? a : b;\n"
"}\n"
"#endif\n"
"__kernel void hst_k_binary(__global const T *a, __global const T *b, __global T *dst,\n"
"                           ulong n, ulong4 shape, ulong4 ast, ulong4 bst, int op)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  ulong4 ix = hst_idx4(i, shape);\n"
"  dst[i] = hst_bin(a[hst_dot4(ix, ast)], b[hst_dot4(ix, bst)], op);\n"
"}\n"
"#ifdef HST_CPLX\n"
"__kernel void hst_k_cpart(__global const T *src, __global E *dst, ulong n, int part)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= n) return;\n"
"  T v = src[i];\n"
"  if (part == 4) { dst[2 * i] = v.x; dst[2 * i + 1] = -v.y; return; }\n"
"  dst[i] = part == 0 ? v.x : part == 1 ? v.y : part == 2 ? hypot(v.x, v.y) : atan2(v.y, v.x);\n"
"}\n"
"#endif\n";

static const char hst__vocabx_src_axis[] =
"\n/* along one axis: op numbered as hst_axis_op; (o, j) item, k in order */\n"
"#ifdef HST_CPLX\n"
"int hst_isnan(T v) { return isnan(v.x) || isnan(v.y); }\n"
"#elif defined(HST_INT)\n"
"int hst_isnan(T v) { return 0; }\n"
"#else\n"
"int hst_isnan(T v) { return isnan(v); }\n"
"#endif\n"
"T hst_add(T a, T b) { return hst_bin(a, b, 0); }\n"
"__kernel void hst_k_axis(__global const T *src, __global T *dst, __global int *idx,\n"
"                         ulong outer, ulong len, ulong inner, int op)\n"
"{\n"
"  ulong g = get_global_id(0);\n"
"  if (g >= outer * inner) return;\n"
"  ulong o = g / inner, j = g % inner, base = o * len * inner + j, k;\n"
"#if HST_DT != 1\n"
"  if (op == 0 || op == 5) {\n"
"    T acc = src[base];\n"
"    if (op == 5) dst[base] = acc;\n"
"    for (k = 1; k < len; k++) {\n"
"      acc = hst_add(acc, src[base + k * inner]);\n"
"      if (op == 5) dst[base + k * inner] = acc;\n"
"    }\n"
"    if (op == 0) dst[g] = acc;\n"
"    return;\n"
"  }\n"
"#endif\n"
"#ifndef HST_CPLX\n"
"  T best = src[base];\n"
"  int at = 0;\n"
"  for (k = 1; k < len && !hst_isnan(best); k++) {\n"
"    T v = src[base + k * inner];\n"
"    int better = hst_isnan(v) || ((op == 1 || op == 3) ? v > best : v < best);\n"
"    if (better) { best = v; at = (int)k; }\n"
"  }\n"
"  if (op <= 2) dst[g] = best;\n"
"  else idx[g] = at;\n"
"#endif\n"
"}\n";

static const char hst__vocabx_src_select[] =
"\n/* argwhere: nonzero = NaN or any nonzero value (-0 is zero; complex: either part) */\n"
"#ifdef HST_CPLX\n"
"int hst_nonzero(T v) { return v.x != (E)0 || v.y != (E)0; }\n"
"#else\n"
"int hst_nonzero(T v) { return v != (T)0; }\n"
"#endif\n"
"/* item g: the nonzero elements of chunk [g chunk, (g+1) chunk) */\n"
"__kernel void hst_k_nonzero_count(__global const T *src, ulong n, ulong chunk,\n"
"                                  __global ulong *counts)\n"
"{\n"
"  ulong g = get_global_id(0), lo = g * chunk;\n"
"  if (lo >= n) return;\n"
"  ulong hi = min(n, lo + chunk), c = 0;\n"
"  for (ulong i = lo; i < hi; ++i) c += hst_nonzero(src[i]) ? 1UL : 0UL;\n"
"  counts[g] = c;\n"
"}\n"
"/* item g writes the C-order indices (the last ndim of the 4-D index) of its chunk's\n"
"   nonzero elements, in order, from row offsets[g] of out (rows of ndim longs) */\n"
"__kernel void hst_k_argwhere(__global const T *src, ulong n, ulong chunk,\n"
"                             __global const ulong *offsets, ulong4 shape, uint ndim,\n"
"                             __global long *out)\n"
"{\n"
"  ulong g = get_global_id(0), lo = g * chunk;\n"
"  if (lo >= n) return;\n"
"  ulong hi = min(n, lo + chunk), row = offsets[g];\n"
"  for (ulong i = lo; i < hi; ++i) {\n"
"    if (!hst_nonzero(src[i])) continue;\n"
"    ulong4 ix = hst_idx4(i, shape);\n"
"    ulong c[4] = {ix.x, ix.y, ix.z, ix.w};\n"
"    for (uint d = 0; d < ndim; ++d) out[row * ndim + d] = (long)c[4 - ndim + d];\n"
"    ++row;\n"
"  }\n"
"}\n";

HST__PIECE_FITS(vx_index, hst__vocabx_src_index);
HST__PIECE_FITS(vx_select, hst__vocabx_src_select);
HST__PIECE_FITS(vx_binary, hst__vocabx_src_binary);
HST__PIECE_FITS(vx_axis, hst__vocabx_src_axis);

static const char *const hst__vocabx_src[] = {
    hst__vocab_src_types, hst__vocab_src_convert, hst__vocabx_src_index, hst__vocabx_src_select,
    hst__vocabx_src_binary, hst__vocabx_src_axis
};

HST__KDEF const char *const *hst_kernels_vocabx_source(size_t *count)
{
    if (count) *count = sizeof hst__vocabx_src / sizeof hst__vocabx_src[0];
    return hst__vocabx_src;
}

HST__KDEF int hst_kernels_binary_supported(hst_dtype dt, hst_binary_op op)
{
    if ((int)op < 0 || op >= HST_BINARY_COUNT) return 0;
    switch (hst__dtype_class(dt)) {
    case 0: return op != HST_BINARY_DIV && op != HST_BINARY_ARCTAN2;
    case 1: return 1;
    case 2: return op <= HST_BINARY_DIV;
    default: return 0;
    }
}

HST__KDEF int hst_kernels_axis_supported(hst_dtype dt, hst_axis_op op)
{
    if ((int)op < 0 || op >= HST_AXIS_COUNT || !hst__dtype_valid(dt)) return 0;
    if (op == HST_AXIS_SUM || op == HST_AXIS_CUMSUM) return dt != HST_U8;
    return !hst_dtype_is_complex(dt);
}

/* The 4-D index of item i (C order) and a dot product with strides. */
HST__KPRIVATE void hst__idx4(uint64_t i, const uint64_t shape[4], uint64_t ix[4])
{
    ix[3] = i % shape[3]; i /= shape[3];
    ix[2] = i % shape[2]; i /= shape[2];
    ix[1] = i % shape[1]; ix[0] = i / shape[1];
}

HST__KPRIVATE uint64_t hst__dot4(const uint64_t a[4], const uint64_t b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

HST__KDEF void hst_k_gather_host(size_t esize, const void *src, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t sstride[4],
                               const uint64_t dstride[4], const uint64_t shift[4],
                               const uint64_t mod[4], uint64_t soff, uint64_t doff)
{
    size_t i;
    int d;
    for (i = 0; i < n; i++) {
        uint64_t ix[4], sx[4];
        hst__idx4(i, shape, ix);
        for (d = 0; d < 4; d++) sx[d] = (ix[d] + shift[d]) % mod[d];
        memcpy((unsigned char *)dst + (doff + hst__dot4(ix, dstride)) * esize,
               (const unsigned char *)src + (soff + hst__dot4(sx, sstride)) * esize, esize);
    }
}

HST__KPRIVATE float hst__bin_f(float a, float b, int op)
{
    if (op == HST_BINARY_ADD) return a + b;
    if (op == HST_BINARY_SUB) return a - b;
    if (op == HST_BINARY_MUL) return a * b;
    if (op == HST_BINARY_DIV) return a / b;
    if (op == HST_BINARY_ARCTAN2) return (float)atan2((double)a, (double)b);   /* rounded once */
    if (a != a) return a;
    if (b != b) return b;
    if (op == HST_BINARY_MAXIMUM) return a > b ? a : b;
    return a < b ? a : b;
}

HST__KPRIVATE double hst__bin_d(double a, double b, int op)
{
    if (op == HST_BINARY_ADD) return a + b;
    if (op == HST_BINARY_SUB) return a - b;
    if (op == HST_BINARY_MUL) return a * b;
    if (op == HST_BINARY_DIV) return a / b;
    if (op == HST_BINARY_ARCTAN2) return atan2(a, b);
    if (a != a) return a;
    if (b != b) return b;
    if (op == HST_BINARY_MAXIMUM) return a > b ? a : b;
    return a < b ? a : b;
}

/* Integers in int64; the caller stores the low bits (two's complement wrap, as the device's
   unsigned arithmetic). */
HST__KPRIVATE int64_t hst__bin_i(int64_t a, int64_t b, int op)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
    if (op == HST_BINARY_MAXIMUM) return a > b ? a : b;
    if (op == HST_BINARY_MINIMUM) return a < b ? a : b;
    r = op == HST_BINARY_ADD ? ua + ub : op == HST_BINARY_SUB ? ua - ub : ua * ub;
    return (int64_t)r;
}

/* Complex ADD SUB MUL DIV for C (hst__c32 or hst__c64) of real type R, one rounding per
   operation as on the device. */
#define HST__COMPLEX_BINARY(NAME, C, R)                                                          \
    HST__KPRIVATE C NAME(C a, C b, int op)                                                       \
    {                                                                                            \
        R d, re, im, t;                                                                          \
        if (op == HST_BINARY_ADD) return C##_make(a.re + b.re, a.im + b.im);                     \
        if (op == HST_BINARY_SUB) return C##_make(a.re - b.re, a.im - b.im);                     \
        if (op == HST_BINARY_MUL) return C##_mul(a, b);                                          \
        d = b.re * b.re; t = b.im * b.im; d = d + t;                                             \
        re = a.re * b.re; t = a.im * b.im; re = re + t;                                          \
        im = a.im * b.re; t = a.re * b.im; im = im - t;                                          \
        return C##_make(re / d, im / d);                                                         \
    }
HST__COMPLEX_BINARY(hst__bin_c, hst__c32, float)
HST__COMPLEX_BINARY(hst__bin_z, hst__c64, double)

HST__KDEF void hst_k_binary_host(hst_dtype dt, const void *a, const void *b, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t astride[4],
                               const uint64_t bstride[4], hst_binary_op op)
{
    size_t i;
    if (!hst_kernels_binary_supported(dt, op)) return;
    for (i = 0; i < n; i++) {
        uint64_t ix[4], ia, ib;
        hst__idx4(i, shape, ix);
        ia = hst__dot4(ix, astride);
        ib = hst__dot4(ix, bstride);
        switch (dt) {
        case HST_F32: ((float *)dst)[i] = hst__bin_f(((const float *)a)[ia], ((const float *)b)[ib], op); break;
        case HST_F64: ((double *)dst)[i] = hst__bin_d(((const double *)a)[ia], ((const double *)b)[ib], op); break;
        case HST_C64: ((hst__c32 *)dst)[i] = hst__bin_c(((const hst__c32 *)a)[ia], ((const hst__c32 *)b)[ib], op); break;
        case HST_C128: ((hst__c64 *)dst)[i] = hst__bin_z(((const hst__c64 *)a)[ia], ((const hst__c64 *)b)[ib], op); break;
        default:
            hst__store_int(dt, dst, i, hst__bin_i(hst__load_int(dt, a, ia), hst__load_int(dt, b, ib), op));
            break;
        }
    }
}

/* NaN tests and the axis comparison of elements k and at of a real array: integers compared
   in int64, floats in double (both exact). */
HST__KPRIVATE int hst__elem_isnan(hst_dtype dt, const void *p, size_t k)
{
    if (dt == HST_F32) { float v = ((const float *)p)[k]; return v != v; }
    if (dt == HST_F64) { double v = ((const double *)p)[k]; return v != v; }
    return 0;
}

HST__KPRIVATE int hst__elem_beats(hst_dtype dt, const void *p, size_t k, size_t at, int is_max)
{
    if (hst_dtype_is_int(dt)) {
        int64_t v = hst__load_int(dt, p, k), b = hst__load_int(dt, p, at);
        return is_max ? v > b : v < b;
    } else {
        double v, b, im;
        hst__load_cplx(dt, p, k, &v, &im);
        hst__load_cplx(dt, p, at, &b, &im);
        return is_max ? v > b : v < b;
    }
}

/* SUM / CUMSUM of one line in the element type, in index order. */
HST__KPRIVATE void hst__axis_sum(hst_dtype dt, const void *src, void *dst, size_t base,
                                 size_t len, size_t inner, size_t g, int cum)
{
    size_t k, esize = hst_dtype_size(dt);
    unsigned char acc[16], v[16];
    memcpy(acc, (const unsigned char *)src + base * esize, esize);
    if (cum) memcpy((unsigned char *)dst + base * esize, acc, esize);
    for (k = 1; k < len; k++) {
        uint64_t z[4] = {1, 1, 1, 1}, zero[4] = {0, 0, 0, 0};
        memcpy(v, (const unsigned char *)src + (base + k * inner) * esize, esize);
        hst_k_binary_host(dt, acc, v, acc, 1, z, zero, zero, HST_BINARY_ADD);
        if (cum) memcpy((unsigned char *)dst + (base + k * inner) * esize, acc, esize);
    }
    if (!cum) memcpy((unsigned char *)dst + g * esize, acc, esize);
}

HST__KDEF void hst_k_axis_host(hst_dtype dt, const void *src, void *dst, int32_t *idx,
                             size_t outer, size_t len, size_t inner, hst_axis_op op)
{
    size_t g, k, esize = hst_dtype_size(dt);
    if (!hst_kernels_axis_supported(dt, op)) return;
    for (g = 0; g < outer * inner; g++) {
        size_t base = g / inner * len * inner + g % inner, at = 0;
        int is_max = op == HST_AXIS_MAX || op == HST_AXIS_ARGMAX;
        if (op == HST_AXIS_SUM || op == HST_AXIS_CUMSUM) {
            hst__axis_sum(dt, src, dst, base, len, inner, g, op == HST_AXIS_CUMSUM);
            continue;
        }
        for (k = 1; k < len && !hst__elem_isnan(dt, src, base + at * inner); k++) {
            if (hst__elem_isnan(dt, src, base + k * inner) ||
                hst__elem_beats(dt, src, base + k * inner, base + at * inner, is_max)) at = k;
        }
        if (op == HST_AXIS_ARGMAX || op == HST_AXIS_ARGMIN) idx[g] = (int32_t)at;
        else memcpy((unsigned char *)dst + g * esize,
                    (const unsigned char *)src + (base + at * inner) * esize, esize);
    }
}

HST__KDEF void hst_k_ramp_host(hst_dtype dt, void *dst, size_t n, double start, double step,
                             int set_last, double last)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double v = (double)i * step;
        v = start + v;
        hst__store_real(dt, dst, i, (set_last && i == n - 1) ? last : v);
    }
}

HST__KDEF void hst_k_where_host(hst_dtype dt, const uint8_t *cond, const void *a, const void *b,
                              void *dst, size_t n)
{
    size_t i, es = hst_dtype_size(dt);
    for (i = 0; i < n; i++)
        memcpy((unsigned char *)dst + i * es, (const unsigned char *)(cond[i] ? a : b) + i * es, es);
}

HST__KDEF void hst_k_cpart_host(hst_dtype dt, const void *src, void *dst, size_t n,
                              hst_complex_part part)
{
    hst_dtype real = dt == HST_C128 ? HST_F64 : HST_F32;
    size_t i;
    if (!hst_dtype_is_complex(dt)) return;
    for (i = 0; i < n; i++) {
        double re, im;
        hst__load_cplx(dt, src, i, &re, &im);
        switch (part) {
        case HST_PART_REAL: hst__store_cplx(real, dst, i, re, 0.0); break;
        case HST_PART_IMAG: hst__store_cplx(real, dst, i, im, 0.0); break;
        case HST_PART_ABS:
            if (dt == HST_C64) hst__store_cplx(real, dst, i, hypotf((float)re, (float)im), 0.0);
            else hst__store_cplx(real, dst, i, hypot(re, im), 0.0);
            break;
        case HST_PART_ANGLE:
            if (dt == HST_C64) hst__store_cplx(real, dst, i, atan2f((float)im, (float)re), 0.0);
            else hst__store_cplx(real, dst, i, atan2(im, re), 0.0);
            break;
        case HST_PART_CONJ: hst__store_cplx(dt, dst, i, re, -im); break;
        default: break;
        }
    }
}

HST__KPRIVATE int hst__nonzero(hst_dtype dt, const void *src, size_t i)
{
    double re, im;
    if (hst_dtype_is_int(dt)) return hst__load_int(dt, src, i) != 0;
    hst__load_cplx(dt, src, i, &re, &im);
    return re != 0.0 || im != 0.0;   /* NaN != 0 */
}

HST__KDEF void hst_k_nonzero_count_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                      uint64_t *counts)
{
    size_t g, i;
    for (g = 0; chunk && g * chunk < n; g++) {
        size_t hi = n - g * chunk < chunk ? n : (g + 1) * chunk;
        counts[g] = 0;
        for (i = g * chunk; i < hi; i++) counts[g] += (uint64_t)hst__nonzero(dt, src, i);
    }
}

HST__KDEF void hst_k_argwhere_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                 const uint64_t *offsets, const uint64_t shape[4], unsigned ndim,
                                 int64_t *out)
{
    size_t g, i;
    unsigned d;
    for (g = 0; chunk && g * chunk < n; g++) {
        size_t hi = n - g * chunk < chunk ? n : (g + 1) * chunk;
        uint64_t row = offsets[g];
        for (i = g * chunk; i < hi; i++) {
            uint64_t ix[4];
            if (!hst__nonzero(dt, src, i)) continue;
            hst__idx4(i, shape, ix);
            for (d = 0; d < ndim; d++) out[row * ndim + d] = (int64_t)ix[4 - ndim + d];
            row++;
        }
    }
}

/* <<vocabx kernels */

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

HST__PIECE_FITS(s_common, hst__stream_src_common);
HST__PIECE_FITS(s_volume, hst__stream_src_volume);
HST__PIECE_FITS(s_acc, hst__stream_src_acc);

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

/* >>esrrf kernels */
#ifndef HST_NO_ESRRF_KERNELS   /* an embedder without esrrf.h may drop this text */

/* The eSRRF program (see the declarations): pieces of at most 4095 characters, checked below. */

static const char hst__esrrf_src_common[] =
"/* halostream eSRRF program (kernels.h): [-DHST_FP64]. No float division or sqrt: fma\n"
"   sequences (hst_e_rcp, hst_e_div, hst_e_rsqrt), the same bits on every IEEE-754 device */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#ifdef HST_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"typedef double HST_EACC;\n"
"#else\n"
"typedef float HST_EACC;\n"
"#endif\n"
"\n"
"/* Catmull-Rom weight, a = 0.5 */\n"
"float hst_e_cubic(float v)\n"
"{\n"
"  v = fabs(v);\n"
"  if (v < 1.0f) {\n"
"    float t = 1.5f * v;\n"
"    t = t - 2.5f;\n"
"    t = t * v;\n"
"    t = t * v;\n"
"    return t + 1.0f;\n"
"  }\n"
"  if (v < 2.0f) {\n"
"    float t = -0.5f * v;\n"
"    t = t + 2.5f;\n"
"    t = t * v;\n"
"    t = t - 4.0f;\n"
"    t = t * v;\n"
"    return t + 2.0f;\n"
"  }\n"
"  return 0.0f;\n"
"}\n"
"\n"
"/* Catmull-Rom at (r, c) of channel k of a rows x cols image of ch interleaved channels */\n"
"float hst_e_interp(__global const float *im, int rows, int cols, int ch, int k, float r,\n"
"                   float c)\n"
"{\n"
"  if (r < 0.0f || r >= (float)rows || c < 0.0f || c >= (float)cols) return 0.0f;\n"
"  int r0 = (int)floor(r - 0.5f);\n"
"  int c0 = (int)floor(c - 0.5f);\n"
"  float q = 0.0f, wr[4];\n"
"  for (int i = 0; i < 4; ++i) {\n"
"    float u = (float)(r0 - 1 + i) + 0.5f;\n"
"    wr[i] = hst_e_cubic(r - u);\n"
"  }\n"
"  for (int j = 0; j < 4; ++j) {\n"
"    int cn = c0 - 1 + j;\n"
"    if (cn < 0 || cn >= cols) continue;\n"
"    float p = 0.0f;\n"
"    for (int i = 0; i < 4; ++i) {\n"
"      int rn = r0 - 1 + i;\n"
"      if (rn < 0 || rn >= rows) continue;\n"
"      float t = im[((long)rn * cols + cn) * ch + k] * wr[i];\n"
"      p = p + t;\n"
"    }\n"
"    float u = (float)cn + 0.5f;\n"
"    float w = hst_e_cubic(c - u);\n"
"    float t = p * w;\n"
"    q = q + t;\n"
"  }\n"
"  return q;\n"
"}\n"
"\n"
"/* Roberts cross at pixel (r1, c1): g[0] = Gc, g[1] = Gr */\n"
"void hst_e_roberts(__global const float *f, int cols, int r1, int c1, float *g)\n"
"{\n"
"  int r0 = r1 > 0 ? r1 - 1 : 0;\n"
"  int c0 = c1 > 0 ? c1 - 1 : 0;\n"
"  float a = f[(long)r0 * cols + c1];\n"
"  float b = f[(long)r1 * cols + c0];\n"
"  float c = f[(long)r0 * cols + c0];\n"
"  float d = f[(long)r1 * cols + c1];\n"
"  float s = a - b;\n"
"  s = s + d;\n"
"  g[0] = s - c;\n"
"  s = b - a;\n"
"  s = s + d;\n"
"  g[1] = s - c;\n"
"}\n"
"\n"
"/* exp(x) for x <= 0: x = k ln2 + r, degree-7 Taylor polynomial of e^r, times 2^k (-115 <= k\n"
"   <= 0: 2^k and the product are exact, the same bits as ldexp) */\n"
"float hst_e_exp(float x)\n"
"{\n"
"  if (x < -80.0f) return 0.0f;\n"
"  float k = x * 1.44269504f;\n"
"  k = floor(k + 0.5f);\n"
"  float h = k * 0.693145752f;\n"
"  float r = x - h;\n"
"  h = k * 1.42860682e-6f;\n"
"  r = r - h;\n"
"  float p = 1.98412698e-4f;\n"
"  p = p * r;\n"
"  p = p + 1.38888889e-3f;\n"
"  p = p * r;\n"
"  p = p + 8.33333333e-3f;\n"
"  p = p * r;\n"
"  p = p + 4.16666667e-2f;\n"
"  p = p * r;\n"
"  p = p + 1.66666667e-1f;\n"
"  p = p * r;\n"
"  p = p + 0.5f;\n"
"  p = p * r;\n"
"  p = p + 1.0f;\n"
"  p = p * r;\n"
"  p = p + 1.0f;\n"
"  float s = as_float((uint)((int)k + 127) << 23);\n"
"  return p * s;\n"
"}\n"
"\n"
"/* R^s for R >= 0, s > 1: repeated products for an integer s <= 64, else pow */\n"
"float hst_e_sens(float R, float s)\n"
"{\n"
"  if (s <= 64.0f && s == floor(s)) {\n"
"    int n = (int)s;\n"
"    float p = R;\n"
"    for (int e = 1; e < n; ++e) p = p * R;\n"
"    return p;\n"
"  }\n"
"  return pow(R, s);\n"
"}\n"
"\n"
"\n";

static const char hst__esrrf_src_math[] =
"\n"
"/* 1/b for 2^-125 <= |b| <= 2^125: a seed from the bits (0x7EF311C3 - bits: within 13%), then\n"
"   three Newton-Raphson steps y += y (1 - b y) in fma (hst__e_rcp on the host) */\n"
"float hst_e_rcp(float b)\n"
"{\n"
"  float y = as_float(0x7EF311C3u - as_uint(b));\n"
"  for (int k = 0; k < 3; ++k) {\n"
"    float e = fma(-b, y, 1.0f);\n"
"    y = fma(y, e, y);\n"
"  }\n"
"  return y;\n"
"}\n"
"\n"
"/* a / b: q = a rcp(b), then Markstein's correction q += (a - b q) rcp(b) in fma */\n"
"float hst_e_div(float a, float b)\n"
"{\n"
"  float y = hst_e_rcp(b);\n"
"  float q = a * y;\n"
"  float r = fma(-b, q, a);\n"
"  return fma(r, y, q);\n"
"}\n"
"\n"
"/* 1/sqrt(x) for normal x > 0: a seed from the bits (0x5F375A86 - bits / 2: within 3.5%),\n"
"   three Newton-Raphson steps y += y/2 (1 - x y^2), then one whose residual 1 - x y^2 is\n"
"   taken exactly (y^2 split as p + (y^2 - p) by fma) */\n"
"float hst_e_rsqrt(float x)\n"
"{\n"
"  float y = as_float(0x5F375A86u - (as_uint(x) >> 1));\n"
"  for (int k = 0; k < 4; ++k) {\n"
"    float p = y * y;\n"
"    float e = fma(-x, p, 1.0f);\n"
"    if (k == 3) {\n"
"      float q = fma(y, y, -p);\n"
"      e = fma(-x, q, e);\n"
"    }\n"
"    float h = 0.5f * y;\n"
"    y = fma(h, e, y);\n"
"  }\n"
"  return y;\n"
"}\n"
"\n"
"/* The unit vector of the gradient (gx, gy) into u[0], u[1]: the pair is first scaled by the\n"
"   power of two that brings its larger magnitude to [1, 4) (exact; no overflow for finite\n"
"   input), scaled parts below FLT_MIN count as 0 (flush-to-zero devices agree); (0, 0) for a\n"
"   zero, infinite or NaN gradient (hst__e_unit on the host) */\n"
"void hst_e_unit(float gx, float gy, float *u)\n"
"{\n"
"  uint m = max(as_uint(gx) & 0x7FFFFFFFu, as_uint(gy) & 0x7FFFFFFFu);\n"
"  u[0] = 0.0f;\n"
"  u[1] = 0.0f;\n"
"  if (m == 0u || m >= 0x7F800000u) return;\n"
"  uint E = min(max(m >> 23, 1u), 253u);\n"
"  float sc = as_float((254u - E) << 23);\n"
"  float x = gx * sc;\n"
"  float y = gy * sc;\n"
"  x = (as_uint(x) & 0x7F800000u) ? x : 0.0f;\n"
"  y = (as_uint(y) & 0x7F800000u) ? y : 0.0f;\n"
"  float t = y * y;\n"
"  float n = fma(x, x, t);\n"
"  float r = hst_e_rsqrt(n);\n"
"  u[0] = x * r;\n"
"  u[1] = y * r;\n"
"}\n"
"\n"
"/* One counted sample of weight w (wd = w / d, d its distance) at offset (dx, dy), unit\n"
"   gradient (ux, uy): where the gradient points away from the pixel (u.d < 0) R += Dk w =\n"
"   w (1 - |u x d| / d) = w - |uy dx - ux dy| wd; hst_e_acc also W += w (hst__e_acc on the\n"
"   host). hst_e_accr alone serves pixels that share W (hst_e_rgc_tab2) */\n"
"void hst_e_accr(float w, float wd, float dx, float dy, float ux, float uy, float *R)\n"
"{\n"
"  float t = ux * dx;\n"
"  float s = fma(uy, dy, t);\n"
"  if (s < 0.0f) {\n"
"    t = ux * dy;\n"
"    float c = fma(uy, dx, -t);\n"
"    t = fma(-fabs(c), wd, w);\n"
"    *R = *R + t;\n"
"  }\n"
"}\n"
"\n"
"void hst_e_acc(float w, float wd, float dx, float dy, float ux, float uy, float *W, float *R)\n"
"{\n"
"  *W = *W + w;\n"
"  hst_e_accr(w, wd, dx, dy, ux, uy, R);\n"
"}\n"
"\n"
"/* R / W, the sensitivity power, negatives to 0 (hst__e_final on the host) */\n"
"float hst_e_final(float R, float W, float sens)\n"
"{\n"
"  R = W > 0.0f ? hst_e_div(R, W) : 0.0f;\n"
"  if (R < 0.0f) return 0.0f;\n"
"  return sens > 1.0f ? hst_e_sens(R, sens) : R;\n"
"}\n";

static const char hst__esrrf_src_rgc[] =
"\n"
"/* Catmull-Rom taps of one axis: n taps from `first` with weights w; for a position k / 2\n"
"   (k integer) the half-integer weights, exact in float; else the general ones at v */\n"
"int hst_e_taps(int k, float v, int size, int *first, float *w)\n"
"{\n"
"  if (k >= 0) {\n"
"    if (k & 1) {\n"
"      *first = (k - 1) / 2;\n"
"      w[0] = 1.0f;\n"
"      return 1;\n"
"    }\n"
"    *first = k / 2 - 2;\n"
"    w[0] = -0.0625f;\n"
"    w[1] = 0.5625f;\n"
"    w[2] = 0.5625f;\n"
"    w[3] = -0.0625f;\n"
"    return 4;\n"
"  }\n"
"  if (v < 0.0f || v >= (float)size) return 0;\n"
"  *first = (int)floor(v - 0.5f) - 1;\n"
"  for (int i = 0; i < 4; ++i) {\n"
"    float u = (float)(*first + i) + 0.5f;\n"
"    w[i] = hst_e_cubic(v - u);\n"
"  }\n"
"  return 4;\n"
"}\n"
"\n"
"/* Roberts gradients of frame f interpolated at the 2mag-magnified pixel (iy, ix) */\n"
"void hst_e_grad_fused(__global const float *f, int rows, int cols, int mag, int iy, int ix,\n"
"                      float *g)\n"
"{\n"
"  float wy[4], wx[4];\n"
"  int ry = 0, cx = 0;\n"
"  float m2 = (float)(2 * mag);\n"
"  float vy = hst_e_div((float)iy, m2);\n"
"  float vx = hst_e_div((float)ix, m2);\n"
"  int ny = hst_e_taps(iy % mag == 0 ? iy / mag : -1, vy, rows, &ry, wy);\n"
"  int nx = hst_e_taps(ix % mag == 0 ? ix / mag : -1, vx, cols, &cx, wx);\n"
"  if (ny == 0 || nx == 0) ny = nx = 0;\n"
"  float qc = 0.0f, qr = 0.0f;\n"
"  for (int j = 0; j < nx; ++j) {\n"
"    int cn = cx + j;\n"
"    if (cn < 0 || cn >= cols) continue;\n"
"    float pc = 0.0f, pr = 0.0f;\n"
"    for (int i = 0; i < ny; ++i) {\n"
"      int rn = ry + i;\n"
"      if (rn < 0 || rn >= rows) continue;\n"
"      float rg[2];\n"
"      hst_e_roberts(f, cols, rn, cn, rg);\n"
"      float t = rg[0] * wy[i];\n"
"      pc = pc + t;\n"
"      t = rg[1] * wy[i];\n"
"      pr = pr + t;\n"
"    }\n"
"    float t = pc * wx[j];\n"
"    qc = qc + t;\n"
"    t = pr * wx[j];\n"
"    qr = qr + t;\n"
"  }\n"
"  g[0] = qc;\n"
"  g[1] = qr;\n"
"}\n"
"\n"
"/* Index along one axis of grad2 (n2 = 2 * size * mag) of the half-pixel position k / 2 */\n"
"int hst_e_gidx(int k, float fm, int n2)\n"
"{\n"
"  float a = (float)k * 0.5f;\n"
"  a = a * fm;\n"
"  a = a * 2.0f;\n"
"  return min(max((int)a, 0), n2 - 1);\n"
"}\n"
"\n"
"/* Centre of phase p (0 <= p < mag) in input pixels from its macro-pixel's start */\n"
"float hst_e_centre(int p, int mag)\n"
"{\n"
"  float c = (float)p + 0.5f;\n"
"  return hst_e_div(c, (float)mag);\n"
"}\n"
"\n"
"/* (int)(2 c) of magnified row (or column) y, c = (y + 0.5) / mag: the first half-pixel\n"
"   position it samples is that plus j0; 2 (y / mag) plus its phase's */\n"
"int hst_e_base(int y, int mag)\n"
"{\n"
"  int q = y / mag;\n"
"  float c = hst_e_centre(y - q * mag, mag);\n"
"  return 2 * q + (int)(2.0f * c);\n"
"}\n"
"\n"
"/* sigma = radius / 2.355, tSS = 2 sigma^2, tSO = 2 sigma + 1: c[0] = -2 / tSS, c[1] = tSO^2 */\n"
"void hst_e_consts(float radius, float *c)\n"
"{\n"
"  float sigma = hst_e_div(radius, 2.355f);\n"
"  float tSS = sigma * sigma;\n"
"  tSS = 2.0f * tSS;\n"
"  c[0] = hst_e_div(-2.0f, tSS);\n"
"  float tSO = 2.0f * sigma;\n"
"  tSO = tSO + 1.0f;\n"
"  c[1] = tSO * tSO;\n"
"}\n"
"\n"
"/* exp(-2 d^2 / tSS) of one axis offset d: the weight's Gaussian is separable */\n"
"float hst_e_axexp(float d, const float *c)\n"
"{\n"
"  float t = d * d;\n"
"  t = t * c[0];\n"
"  return hst_e_exp(t);\n"
"}\n"
"\n"
"/* The weight of a sample at offset (dx, dy) from the pixel's centre (ex, ey: hst_e_axexp of\n"
"   dx, dy), d2 = dx^2 + dy^2: w = (d2 ex ey)^2 (= (d exp(-d^2 / tSS))^4: no sqrt); 0 for\n"
"   d2 == 0, d2 > tSO^2 or w < 1e-30 (the sample does not count); *wd = w / d = w rsqrt(d2) */\n"
"float hst_e_wd2(float dx, float dy, float ex, float ey, const float *c, float *wd)\n"
"{\n"
"  float t = dy * dy;\n"
"  float d2 = fma(dx, dx, t);\n"
"  *wd = 0.0f;\n"
"  if (d2 == 0.0f || d2 > c[1]) return 0.0f;\n"
"  float w = ex * ey;\n"
"  w = d2 * w;\n"
"  w = w * w;\n"
"  if (w < 1e-30f) return 0.0f;\n"
"  *wd = w * hst_e_rsqrt(d2);\n"
"  return w;\n"
"}\n"
"\n"
"float hst_e_wd(float dx, float dy, const float *c, float *wd)\n"
"{\n"
"  return hst_e_wd2(dx, dy, hst_e_axexp(dx, c), hst_e_axexp(dy, c), c, wd);\n"
"}\n"
"\n";

static const char hst__esrrf_src_rgc2[] =
"/* The (w, w / d) table of the fused kernel's work-groups: at most HST_E_WTAB (>= 1) entries\n"
"   of 2 floats. With the gradient tile (2 HST_E_TILE floats) 24 KiB of local memory (28 with\n"
"   HST_E_TILE 2048), within OpenCL's guaranteed 32 KiB */\n"
"#ifndef HST_E_WTAB\n"
"#define HST_E_WTAB 1536\n"
"#endif\n"
"/* The RGC sums (R, W) of magnified pixel (yM, xM) (inside the margin; hst_e_final gives its\n"
"   value at a sensitivity). Gradients: mode 0 from grad2 (src:\n"
"   rows*2mag x cols*2mag pixels of (Gc, Gr)); mode 1 interpolated from the frame src per\n"
"   sample; mode 2 from tile: the unit gradients (hst_e_unit) of the half-pixel positions\n"
"   (k / 2, l / 2), k = k0.., l = l0.., nl per row, as mode 1 computes them. Sample offsets\n"
"   come from the pixel's phase (yM % mag, xM % mag), so (w, wd) of sample (j, i) is the same\n"
"   for every pixel of a phase: with wt (usewt 1) they are read from the work-group's table,\n"
"   at 2 (((py mag + px) n + j - j0) n + i - j0), n = j1 - j0 */\n"
"float2 hst_e_rgc(__global const float *src, __local const float *tile, int mode, int rows,\n"
"                 int cols, int mag, int yM, int xM, float radius, int k0, int l0, int nl,\n"
"                 __local const float *wt, int usewt)\n"
"{\n"
"  float fm = (float)mag;\n"
"  float c[2];\n"
"  hst_e_consts(radius, c);\n"
"  float gr = 2.0f * radius;\n"
"  int j0 = -(int)gr;\n"
"  gr = gr + 1.0f;\n"
"  int j1 = (int)gr, n = j1 - j0;\n"
"  float ymax = (float)(rows * mag - 1);\n"
"  float xmax = (float)(cols * mag - 1);\n"
"  int rows2 = 2 * rows * mag, cols2 = 2 * cols * mag;\n"
"  int py = yM % mag, px = xM % mag;\n"
"  int by = hst_e_base(yM, mag), bx = hst_e_base(xM, mag);\n"
"  int fy = by - 2 * (yM / mag), fx = bx - 2 * (xM / mag);\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  float R = 0.0f, W = 0.0f;\n"
"  for (int j = j0; j < j1; ++j) {\n"
"    float vy = (float)(by + j) * 0.5f;\n"
"    if (!(0.0f < vy && vy <= ymax)) continue;\n"
"    float dy = fma((float)(fy + j), 0.5f, -cy);\n"
"    for (int i = j0; i < j1; ++i) {\n"
"      float vx = (float)(bx + i) * 0.5f;\n"
"      if (!(0.0f < vx && vx <= xmax)) continue;\n"
"      float dx = fma((float)(fx + i), 0.5f, -cx);\n"
"      float w, wd;\n"
"      if (usewt) {\n"
"        int e = (((py * mag + px) * n + j - j0) * n + i - j0) * 2;\n"
"        w = wt[e];\n"
"        wd = wt[e + 1];\n"
"      } else {\n"
"        w = hst_e_wd(dx, dy, c, &wd);\n"
"      }\n"
"      if (w == 0.0f) continue;\n"
"      float u[2];\n"
"      if (mode == 2) {\n"
"        int e = ((by + j - k0) * nl + bx + i - l0) * 2;\n"
"        u[0] = tile[e];\n"
"        u[1] = tile[e + 1];\n"
"      } else {\n"
"        float gx, gy;\n"
"        int iy = hst_e_gidx(by + j, fm, rows2);\n"
"        int ix = hst_e_gidx(bx + i, fm, cols2);\n"
"        if (mode == 1) {\n"
"          float g[2];\n"
"          hst_e_grad_fused(src, rows, cols, mag, iy, ix, g);\n"
"          gx = g[0];\n"
"          gy = g[1];\n"
"        } else {\n"
"          long o = ((long)iy * cols2 + ix) * 2;\n"
"          gx = src[o];\n"
"          gy = src[o + 1];\n"
"        }\n"
"        hst_e_unit(gx, gy, u);\n"
"      }\n"
"      hst_e_acc(w, wd, dx, dy, u[0], u[1], &W, &R);\n"
"    }\n"
"  }\n"
"  return (float2)(R, W);\n"
"}\n"
"\n";

static const char hst__esrrf_src_rgc3[] =
"/* Magnified pixel i of frame z (2-D NDRange: i, frames); margin from the radius */\n"
"#define HST_E_PIXEL \\\n"
"  ulong colsM = (ulong)cols * mag; \\\n"
"  ulong nM = (ulong)rows * mag * colsM; \\\n"
"  ulong i = get_global_id(0); \\\n"
"  ulong z = begin + get_global_id(1); \\\n"
"  if (i >= nM || z >= end) return; \\\n"
"  int yM = (int)(i / colsM); \\\n"
"  int xM = (int)(i % colsM); \\\n"
"  float mr = radius * (float)mag; \\\n"
"  int margin = (int)mr; \\\n"
"  int inside = yM >= margin && yM < (int)(rows * mag) - margin && xM >= margin && \\\n"
"               xM < (int)colsM - margin;\n"
"\n"
"__kernel void hst_k_esrrf_rgc(__global const float *grad2, __global const float *magnified,\n"
"                              __global float *rgc, uint rows, uint cols, uint mag,\n"
"                              float radius, float sensitivity, int intensity_weighting,\n"
"                              ulong base, ulong begin, ulong end, ulong total, int flags)\n"
"{\n"
"  HST_E_PIXEL\n"
"  float v = 0.0f;\n"
"  if (inside) {\n"
"    float2 rw = hst_e_rgc(grad2 + z * 8 * nM, 0, 0, rows, cols, mag, yM, xM, radius, 0, 0, 0,\n"
"                          0, 0);\n"
"    v = hst_e_final(rw.x, rw.y, sensitivity);\n"
"    if (intensity_weighting) v = v * magnified[z * nM + i];\n"
"  }\n"
"  rgc[z * nM + i] = v;\n"
"}\n";

static const char hst__esrrf_src_wtab[] =
"\n"

"/* The (w, wd) table of every phase and sample (hst_e_rgc's wt), made by the work-group: 1 when\n"
"   it fits HST_E_WTAB entries (mag 5, radius 1.5: 25 phases x 49 samples = 1225). First the\n"
"   mag n axis offsets of phase p, sample i and their hst_e_axexp into ax (2 mag n floats:\n"
"   the tile's memory, free until the tile is made) */\n"
"int hst_e_wtable(__local float *wt, __local float *ax, int mag, float radius, int j0, int n,\n"
"                 int lid, int L)\n"
"{\n"
"  int nt = mag * mag * n * n;\n"
"  if (nt > HST_E_WTAB) return 0;\n"
"  float c[2];\n"
"  hst_e_consts(radius, c);\n"
"  for (int e = lid; e < mag * n; e += L) {\n"
"    int p = e / n, i = e % n;\n"
"    float d = fma((float)(hst_e_base(p, mag) + j0 + i), 0.5f, -hst_e_centre(p, mag));\n"
"    ax[2 * e] = d;\n"
"    ax[2 * e + 1] = hst_e_axexp(d, c);\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (int e = lid; e < nt; e += L) {\n"
"    int i = e % n, r = e / n;\n"
"    int j = r % n;\n"
"    r = r / n;\n"
"    int a = 2 * ((r % mag) * n + i), b = 2 * ((r / mag) * n + j);\n"
"    float wd;\n"
"    wt[2 * e] = hst_e_wd2(ax[a], ax[b], ax[a + 1], ax[b + 1], c, &wd);\n"
"    wt[2 * e + 1] = wd;\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  return 1;\n"
"}\n"
"\n"
"/* hst_e_rgc in mode 2 with the table, in its own function: no per-sample weight code (fewer\n"
"   registers); the same samples in the same order, so the same bits */\n"
"float2 hst_e_rgc_tab(__local const float *tile, __local const float *wt, int rows, int cols,\n"
"                     int mag, int yM, int xM, int k0, int l0, int nl, int j0, int n)\n"
"{\n"
"  int py = yM % mag, px = xM % mag;\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  int fy = (int)(2.0f * cy) + j0, fx = (int)(2.0f * cx) + j0;\n"
"  int by = 2 * (yM / mag) + fy - j0, bx = 2 * (xM / mag) + fx - j0; /* hst_e_base */\n"
"  /* samples i in [ia, ib): 0 < (bx + j0 + i) / 2 <= colsM - 1 (the others add +0) */\n"
"  int ia = max(0, 1 - bx - j0), ib = min(n, 2 * (cols * mag - 1) - bx - j0 + 1);\n"
"  __local const float *wp = wt + (py * mag + px) * n * n * 2;\n"
"  float R = 0.0f, W = 0.0f;\n"
"  /* rows j in [ja, jb): 0 < (by + j0 + j) / 2 <= rowsM - 1, bounds as for the columns, not a\n"
"     test per row (the skipped rows add nothing) */\n"
"  int ja = max(0, 1 - by - j0), jb = min(n, 2 * (rows * mag - 1) - by - j0 + 1);\n"
"  for (int j = ja; j < jb; ++j) {\n"
"    float dy = fma((float)(fy + j), 0.5f, -cy);\n"
"    __local const float2 *tr = (__local const float2 *)tile + (by + j0 + j - k0) * nl + bx + j0 - l0;\n"
"    __local const float2 *wr = (__local const float2 *)wp + j * n;\n"
"    float kx = (float)(fx + ia); /* (float)(fx + i): integers, exact */\n"
"    for (int i = ia; i < ib; ++i) {\n"
"      float2 w = wr[i];\n"
"      float2 u = tr[i];\n"
"      float dx = fma(kx, 0.5f, -cx);\n"
"      kx = kx + 1.0f;\n"
"      hst_e_acc(w.x, w.y, dx, dy, u.x, u.y, &W, &R);\n"
"    }\n"
"  }\n"
"  return (float2)(R, W);\n"
"}\n"
"\n";

static const char hst__esrrf_src_tab2[] =
"\n"
"/* Same-phase pixels per work-item on the table path (hst_e_fused_rows) */\n"
"#ifndef HST_E_NP\n"
"#define HST_E_NP 2\n"
"#endif\n"
"/* hst_e_rgc_tab of the HST_E_NP pixels (yM + m mag, xM), m < HST_E_NP, at once, where all\n"
"   have the same sample rows [ja, jb) (else 0, and nothing written): one phase, so the same\n"
"   (w, wd) reads and offsets, pixel m's unit gradients 2 m half-pixel rows down the tile.\n"
"   Each R[m] sums its samples in hst_e_rgc_tab's order, and *Wp, the same weights in the same\n"
"   order, is every pixel's W: each pixel gets hst_e_rgc_tab's bits */\n"
"int hst_e_rgc_tabn(__local const float *tile, __local const float *wt, int rows, int cols,\n"
"                   int mag, int yM, int xM, int k0, int l0, int nl, int j0, int n, float *R,\n"
"                   float *Wp)\n"
"{\n"
"  int py = yM % mag, px = xM % mag;\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  int fy = (int)(2.0f * cy) + j0, fx = (int)(2.0f * cx) + j0;\n"
"  int by = 2 * (yM / mag) + fy - j0, bx = 2 * (xM / mag) + fx - j0; /* hst_e_base */\n"
"  int ja = max(0, 1 - by - j0), jb = min(n, 2 * (rows * mag - 1) - by - j0 + 1);\n"
"  int d = 2 * (HST_E_NP - 1); /* the last pixel's rows (the bounds fall with by: the middle\n"
"                                 pixels' lie between) */\n"
"  if (ja != max(0, 1 - by - d - j0) || jb != min(n, 2 * (rows * mag - 1) - by - d - j0 + 1))\n"
"    return 0;\n"
"  int ia = max(0, 1 - bx - j0), ib = min(n, 2 * (cols * mag - 1) - bx - j0 + 1);\n"
"  __local const float *wp = wt + (py * mag + px) * n * n * 2;\n"
"  float W = 0.0f;\n"
"  for (int m = 0; m < HST_E_NP; ++m) R[m] = 0.0f;\n"
"  for (int j = ja; j < jb; ++j) {\n"
"    float dy = fma((float)(fy + j), 0.5f, -cy);\n"
"    __local const float2 *tr = (__local const float2 *)tile + (by + j0 + j - k0) * nl + bx + j0 - l0;\n"
"    __local const float2 *wr = (__local const float2 *)wp + j * n;\n"
"    float kx = (float)(fx + ia);\n"
"    for (int i = ia; i < ib; ++i) {\n"
"      float2 w = wr[i];\n"
"      float dx = fma(kx, 0.5f, -cx);\n"
"      kx = kx + 1.0f;\n"
"      W = W + w.x;\n"
"      for (int m = 0; m < HST_E_NP; ++m) {\n"
"        float2 u = tr[i + 2 * m * nl];\n"
"        hst_e_accr(w.x, w.y, dx, dy, u.x, u.y, &R[m]);\n"
"      }\n"
"    }\n"
"  }\n"
"  *Wp = W;\n"
"  return 1;\n"
"}\n"
"\n";

static const char hst__esrrf_src_unit[] =
"\n"
"/* The unit gradient (hst_e_unit) of the Roberts gradients of frame f interpolated at the\n"
"   half-pixel position (k / 2, l / 2): what the fused kernel's tile holds */\n"
"void hst_e_unit_at(__global const float *f, int rows, int cols, int mag, int k, int l,\n"
"                   float *u)\n"
"{\n"
"  float fm = (float)mag;\n"
"  int iy = hst_e_gidx(k, fm, 2 * rows * mag);\n"
"  int ix = hst_e_gidx(l, fm, 2 * cols * mag);\n"
"  float g[2];\n"
"  hst_e_grad_fused(f, rows, cols, mag, iy, ix, g);\n"
"  hst_e_unit(g[0], g[1], u);\n"
"}\n";

static const char hst__esrrf_src_fused[] =
"\n"
"/* Fused RGC of magnified rows [row0, row0 + nrows) of each frame into rgc frames of nrows x\n"
"   colsM pixels (HST_E_NS values each). Any NDRange of at least (nrows*colsM / HST_E_K,\n"
"   end - begin) items and any uniform work-group size L: group g (linear) does the work\n"
"   indices [g K L, g K L + K L) (K = HST_E_K; given at least gpf = ceil(nW / (K L)) groups a\n"
"   frame, indices [g' K L, g' K L + K L) of frame g / gpf, g' = g % gpf, so that runs start\n"
"   at whole strip rows): frame w / nW; in a frame, pixels go by strips of HST_E_TW columns,\n"
"   row-major in each, so that a group covers a compact tile. The tile's\n"
"   half-pixel unit gradients are computed once into local memory (per group segment: one\n"
"   frame and strip); if they do not fit, per sample (mode 1). */\n"
"#ifndef HST_E_TW\n"
"#define HST_E_TW 16\n"
"#endif\n"
"#ifndef HST_E_TILE\n"
"#define HST_E_TILE 1536\n"
"#endif\n"
"/* Work indices per work-item: a group does HST_E_K L of them (groups past the end return at\n"
"   once), so its (w, wd) table and its tile's borders serve HST_E_K times the pixels */\n"
"#ifndef HST_E_K\n"
"#define HST_E_K 8\n"
"#endif\n"
"/* Values per pixel: HST_E_NS, at rgc[i HST_E_NS + l] for pixel i of the frames' pixels in\n"
"   order, value l the pixel's sums (R, W) at sensitivity l (hst_e_final): 1, at the kernel's\n"
"   sensitivity; the parameter sweep builds -DHST_E_NS=ns -DHST_E_SENS=s0,s1,.. (float literals)\n"
"   for all its sensitivities at once (the argument is then not read) */\n"
"#ifndef HST_E_NS\n"
"#define HST_E_NS 1\n"
"#endif\n"
"\n"
"/* The tile of work indices [s0, s1) of the strip whose first index is sb (ws columns from\n"
"   x0): half-pixel rows from k[0] (k[2] of them), columns from k[1] (k[3]); 1 if it fits */\n"
"int hst_e_span(ulong s0, ulong s1, ulong sb, uint ws, int x0, int row0, int mag, int j0,\n"
"               int jn, int *k)\n"
"{\n"
"  uint a = (uint)(s0 - sb), b = (uint)(s1 - 1 - sb);\n"
"  int ya = row0 + (int)(a / ws), yb = row0 + (int)(b / ws);\n"
"  int xa = x0, xb = x0 + (int)ws - 1;\n"
"  if (ya == yb) {\n"
"    xa = x0 + (int)(a % ws);\n"
"    xb = x0 + (int)(b % ws);\n"
"  }\n"
"  k[0] = hst_e_base(ya, mag) + j0;\n"
"  k[1] = hst_e_base(xa, mag) + j0;\n"
"  k[2] = hst_e_base(yb, mag) - (k[0] - j0) + jn;\n"
"  k[3] = hst_e_base(xb, mag) - (k[1] - j0) + jn;\n"
"  return k[2] > 0 && k[3] > 0 && (long)k[2] * k[3] <= HST_E_TILE;\n"
"}\n"

"\n";

static const char hst__esrrf_src_fusedpx[] =
"\n"
"/* Pixel (yM, xM)'s HST_E_NS values into op[0 ..): 0 outside the margin (in 0), else from\n"
"   its sums rw = (R, W) hst_e_final at each sensitivity (sens, or HST_E_SENS's), weighted by\n"
"   the magnified frame there (intensity weighting) */\n"
"void hst_e_put(__global const float *f, __global float *op, uint rows, uint cols, uint mag,\n"
"               int yM, int xM, int in, float2 rw, float sens, int weighting)\n"
"{\n"
"#if HST_E_NS > 1\n"
"  const float sl[HST_E_NS] = {HST_E_SENS};\n"
"#else\n"
"  const float sl[1] = {sens};\n"
"#endif\n"
"  float im = 1.0f;\n"
"  if (in && weighting) {\n"
"    float fm = (float)mag;\n"
"    float r = hst_e_div((float)yM, fm);\n"
"    float c = hst_e_div((float)xM, fm);\n"
"    im = hst_e_interp(f, (int)rows, (int)cols, 1, 0, r, c);\n"
"  }\n"
"  for (int l = 0; l < HST_E_NS; ++l) {\n"
"    float v = 0.0f;\n"
"    if (in) {\n"
"      v = hst_e_final(rw.x, rw.y, sl[l]);\n"
"      if (weighting) v = v * im;\n"
"    }\n"
"    op[l] = v;\n"
"  }\n"
"}\n"
"\n"
"/* The pixels of one segment: offsets q in [q, q1) step L from the strip's first index, ws\n"
"   columns from x0; into o (the strip's first pixel in its rgc frame, HST_E_NS values a pixel).\n"
"   mode 3: the table and tile (hst_e_rgc_tab), 2: the tile, 1: per sample (hst_e_rgc); 32-bit\n"
"   offsets */\n"
"void hst_e_fused_px(__global const float *f, __global float *o, __local const float *tile,\n"
"                    __local const float *wt, uint rows, uint cols, uint mag, float radius,\n"
"                    float sens, int weighting, uint row0, int x0, uint ws, uint q, uint q1,\n"
"                    int L, int k0, int l0, int nl, int j0, int jn, int mode, int usewt)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag;\n"
"  int rowsM = (int)(rows * mag);\n"
"  float mr = radius * (float)mag;\n"
"  int margin = (int)mr;\n"
"  for (; q < q1; q += (uint)L) {\n"
"    uint qy = q / ws, qx = q - qy * ws;\n"
"    int yM = (int)row0 + (int)qy, xM = x0 + (int)qx;\n"
"    int in = yM >= margin && yM < rowsM - margin && xM >= margin && xM < (int)colsM - margin;\n"
"    float2 rw = (float2)(0.0f, 0.0f);\n"
"    if (in) {\n"
"      if (mode == 3)\n"
"        rw = hst_e_rgc_tab(tile, wt, rows, cols, mag, yM, xM, k0, l0, nl, j0, jn);\n"
"      else\n"
"        rw = hst_e_rgc(f, tile, mode, rows, cols, mag, yM, xM, radius, k0, l0, nl, wt, usewt);\n"
"    }\n"
"    hst_e_put(f, o + (qy * colsM + qx) * HST_E_NS, rows, cols, mag, yM, xM, in, rw, sens,\n"
"              weighting);\n"
"  }\n"
"}\n";

static const char hst__esrrf_src_pairs[] =
"\n"
"/* The table path over a segment [q0, q1) of a strip: its whole rows in blocks of HST_E_NP\n"
"   mag rows, rows r, r + mag, .. of a block (r < mag) by one work-item through\n"
"   hst_e_rgc_tabn (1 / HST_E_NP of the table reads, HST_E_NP independent sums); the part row\n"
"   before them, the rows after the last block and the part row after them one by one\n"
"   (hst_e_fused_px). Each pixel's value is hst_e_fused_px's, bit for bit */\n"
"void hst_e_fused_rows(__global const float *f, __global float *o, __local const float *tile,\n"
"                      __local const float *wt, uint rows, uint cols, uint mag, float radius,\n"
"                      float sens, int weighting, uint row0, int x0, uint ws, uint q0, uint q1,\n"
"                      int lid, int L, int k0, int l0, int nl, int j0, int jn)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag;\n"
"  int rowsM = (int)(rows * mag);\n"
"  float mr = radius * (float)mag;\n"
"  int margin = (int)mr;\n"
"  uint qa = min(q1, (q0 + ws - 1) / ws * ws); /* the whole rows: [qa, qb) */\n"
"  uint bw = mag * ws, nb = (max(qa, q1 / ws * ws) - qa) / (HST_E_NP * bw);\n"
"  for (uint u = (uint)lid; u < nb * bw; u += (uint)L) {\n"
"    uint b = u / bw, e = u - b * bw;\n"
"    uint r = e / ws, qx = e - r * ws;\n"
"    uint qy = qa / ws + HST_E_NP * mag * b + r;\n"
"    int yM = (int)row0 + (int)qy, xM = x0 + (int)qx;\n"
"    int all = xM >= margin && xM < (int)colsM - margin, in[HST_E_NP];\n"
"    float R[HST_E_NP], W = 0.0f;\n"
"    for (int m = 0; m < HST_E_NP; ++m) {\n"
"      int y = yM + m * (int)mag;\n"
"      in[m] = y >= margin && y < rowsM - margin;\n"
"      all = all && in[m];\n"
"      R[m] = 0.0f;\n"
"    }\n"
"    int done = all && hst_e_rgc_tabn(tile, wt, rows, cols, mag, yM, xM, k0, l0, nl, j0, jn, R,\n"
"                                     &W);\n"
"    for (int m = 0; m < HST_E_NP; ++m) {\n"
"      int y = yM + m * (int)mag;\n"
"      int inm = in[m] && xM >= margin && xM < (int)colsM - margin;\n"
"      float2 rw = (float2)(R[m], W);\n"
"      if (inm && !done) rw = hst_e_rgc_tab(tile, wt, rows, cols, mag, y, xM, k0, l0, nl, j0, jn);\n"
"      hst_e_put(f, o + ((qy + m * mag) * colsM + qx) * HST_E_NS, rows, cols, mag, y, xM, inm,\n"
"                rw, sens, weighting);\n"
"    }\n"
"  }\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 q0 + (uint)lid, qa, L, k0, l0, nl, j0, jn, 3, 1);\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 qa + HST_E_NP * nb * bw + (uint)lid, q1, L, k0, l0, nl, j0, jn, 3, 1);\n"
"}\n";

static const char hst__esrrf_src_fused1[] =
"void hst_e_fused(__global const float *frames, __global float *rgc, __local float *tile,\n"
"                 __local float *wt, uint rows, uint cols, uint mag, float radius,\n"
"                 float sensitivity, int intensity_weighting, uint row0, uint nrows,\n"
"                 ulong begin, ulong end)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag, nW = (ulong)nrows * colsM;\n"
"  int L = (int)(get_local_size(0) * get_local_size(1));\n"
"  int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));\n"
"  ulong g = get_group_id(1) * get_num_groups(0) + get_group_id(0), per = (ulong)L * HST_E_K;\n"
"  if (end <= begin) return; /* (not a saturating subtraction: Oclgrind 21.10 lacks usub.sat) */\n"
"  ulong F = end - begin, gpf = (nW + per - 1) / per, w0, wend;\n"
"  if (get_num_groups(0) * get_num_groups(1) >= F * gpf) {\n"
"    /* enough groups: gpf per frame, so runs start at a frame's multiple of K L (whole strip\n"
"       rows: the same-phase blocks serve them all) */\n"
"    ulong zf = g / gpf;\n"
"    w0 = zf * nW + (g - zf * gpf) * per;\n"
"    wend = zf < F ? min(w0 + per, (zf + 1) * nW) : 0;\n"
"  } else {\n"
"    w0 = g * per;\n"
"    wend = min(w0 + per, F * nW);\n"
"  }\n"
"  if (w0 >= wend) return;\n"
"  float gr = 2.0f * radius;\n"
"  int j0 = -(int)gr;\n"
"  gr = gr + 1.0f;\n"
"  int jn = (int)gr - j0;\n"
"  int usewt = hst_e_wtable(wt, tile, (int)mag, radius, j0, jn, lid, L);\n"
"  ulong strip = (ulong)nrows * HST_E_TW;\n"
"  for (ulong s0 = w0; s0 < wend;) {\n"
"    ulong zf = s0 / nW;\n"
"    ulong st = (s0 - zf * nW) / strip;\n"
"    ulong x0 = st * HST_E_TW;\n"
"    ulong ws = min((ulong)HST_E_TW, colsM - x0);\n"
"    ulong sb = zf * nW + st * strip;\n"
"    ulong s1 = min(wend, sb + (ulong)nrows * ws);\n"
"    int k[4];\n"
"    int use = hst_e_span(s0, s1, sb, (uint)ws, (int)x0, (int)row0, (int)mag, j0, jn, k);\n"
"    if (!use && s1 - s0 > (ulong)L) { /* a tile per L indices, as a group of HST_E_K 1 */\n"
"      s1 = s0 + L;\n"
"      use = hst_e_span(s0, s1, sb, (uint)ws, (int)x0, (int)row0, (int)mag, j0, jn, k);\n"
"    }\n"
"    int k0 = k[0], l0 = k[1], nk = k[2], nl = k[3];\n"
"    ulong z = begin + zf;\n"
"    __global const float *f = frames + z * rows * cols;\n"
"    if (use) {\n"
"      for (int e = lid; e < nk * nl; e += L) {\n"
"        float u[2];\n"
"        hst_e_unit_at(f, (int)rows, (int)cols, (int)mag, k0 + e / nl, l0 + e % nl, u);\n"
"        tile[2 * e] = u[0];\n"
"        tile[2 * e + 1] = u[1];\n"
"      }\n"
"      barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"    /* the table path in a call of its own (a loop of its own once inlined: fewer registers\n"
"       live in it than in one loop over all three modes) */\n"
"    __global float *o = rgc + (z * nW + x0) * HST_E_NS;\n"
"    uint q0 = (uint)(s0 - sb), q1 = (uint)(s1 - sb);\n"
"    if (use && usewt)\n"
"      hst_e_fused_rows(f, o, tile, wt, rows, cols, mag, radius, sensitivity,\n"
"                       intensity_weighting, row0, (int)x0, (uint)ws, q0, q1, lid, L, k0, l0, nl,\n"
"                       j0, jn);\n"
"    else\n"
"      hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sensitivity, intensity_weighting,\n"
"                     row0, (int)x0, (uint)ws, q0 + lid, q1, L, k0, l0, nl, j0, jn, use ? 2 : 1,\n"
"                     usewt);\n"
"    if (use) barrier(CLK_LOCAL_MEM_FENCE);\n"
"    s0 = s1;\n"
"  }\n"
"}\n";

static const char hst__esrrf_src_fused2[] =
"\n"
"/* Rows [row0, row0 + nrows) of each frame: nrows = rowsM, row0 = 0 for whole frames (one MPI\n"
"   rank's or one backend's share of the image otherwise). One kernel declares the local arrays:\n"
"   some implementations add up the local memory of every kernel of a program. */\n"
"__kernel void hst_k_esrrf_rgc_fused(__global const float *frames, __global float *rgc,\n"
"                                    uint rows, uint cols, uint mag, float radius,\n"
"                                    float sensitivity, int intensity_weighting, uint row0,\n"
"                                    uint nrows, ulong base, ulong begin, ulong end, ulong total,\n"
"                                    int flags)\n"
"{\n"
"  /* float2: the sample loop reads (ux, uy) and (w, wd) pairs as float2, aligned */\n"
"  __local float2 tile[HST_E_TILE];\n"
"  __local float2 wt[HST_E_WTAB];\n"
"  hst_e_fused(frames, rgc, (__local float *)tile, (__local float *)wt, rows, cols, mag, radius, sensitivity,\n"
"              intensity_weighting, row0, nrows, begin, end);\n"
"}\n";

static const char hst__esrrf_src_other[] =
"\n"
"/* grad[2 p] = Gc, grad[2 p + 1] = Gr at pixel p of frame z */\n"
"__kernel void hst_k_esrrf_roberts(__global const float *frames, __global float *grad,\n"
"                                  uint rows, uint cols, ulong base, ulong begin, ulong end,\n"
"                                  ulong total, int flags)\n"
"{\n"
"  ulong n = (ulong)rows * cols;\n"
"  ulong i = get_global_id(0);\n"
"  ulong z = begin + get_global_id(1);\n"
"  if (i >= n || z >= end) return;\n"
"  float g[2];\n"
"  hst_e_roberts(frames + z * n, (int)cols, (int)(i / cols), (int)(i % cols), g);\n"
"  grad[2 * (z * n + i)] = g[0];\n"
"  grad[2 * (z * n + i) + 1] = g[1];\n"
"}\n"
"\n"
"/* Catmull-Rom shift-and-magnify (shift 0) of 1 or 2 interleaved channels */\n"
"__kernel void hst_k_esrrf_magnify(__global const float *in, __global float *out, uint rows,\n"
"                                  uint cols, uint mag, uint channels, ulong base, ulong begin,\n"
"                                  ulong end, ulong total, int flags)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag;\n"
"  ulong nM = (ulong)rows * mag * colsM;\n"
"  ulong i = get_global_id(0);\n"
"  ulong z = begin + get_global_id(1);\n"
"  if (i >= nM || z >= end) return;\n"
"  float fm = (float)mag;\n"
"  float r = hst_e_div((float)(uint)(i / colsM), fm);\n"
"  float c = hst_e_div((float)(uint)(i % colsM), fm);\n"
"  __global const float *src = in + z * rows * cols * channels;\n"
"  for (uint k = 0; k < channels; ++k)\n"
"    out[(z * nM + i) * channels + k] =\n"
"        hst_e_interp(src, (int)rows, (int)cols, (int)channels, (int)k, r, c);\n"
"}\n"
"\n"
"/* Temporal sums of pixel i over frames [begin, end) in order (1-D NDRange; halo_lo 1, or 0\n"
"   with -DHST_E_NO_LAG1, which leaves the lag-1 sum alone):\n"
"   acc[((tp % acc_tps) * 5 + q) * pixels + i], q = sum x, sum x^2, sum x_t x_{t+1}, first,\n"
"   last; the stream's slice 0 is frame frame0; its first `skip` slices are only read */\n"
"__kernel void hst_k_esrrf_temporal(__global const float *rgc, __global HST_EACC *acc,\n"
"                                   uint pixels, ulong frames_per_tp, uint acc_tps,\n"
"                                   ulong frame0, uint skip, ulong frames_total, ulong base,\n"
"                                   ulong begin, ulong end, ulong total, int flags)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= pixels) return;\n"
"  ulong P = pixels;\n"
"  ulong T = frames_per_tp ? frames_per_tp : ULONG_MAX;\n"
"  /* skip <= 1: only a stream's first block (base 0) holds skipped slices; max(), not a\n"
"     subtraction that LLVM turns into an intrinsic Oclgrind 21.10 lacks (usub.sat) */\n"
"  ulong z = base == 0 ? max(begin, (ulong)skip) : begin;\n"
"  if (z >= end) return;\n"
"  /* frame g = frame0 + base + z is frame t of time point tp; both counted on, not divided\n"
"     (64-bit divisions per frame cost as much as the sums), and the frame before held in\n"
"     prev, not read again: the host twin's values in its order, so its bits */\n"
"  ulong g = frame0 + base + z;\n"
"  ulong tp = g / T;\n"
"  ulong t = g - tp * T;\n"
"#ifndef HST_E_NO_LAG1\n"
"  HST_EACC prev = t > 0 ? (HST_EACC)rgc[(z - 1) * P + i] : (HST_EACC)0;\n"
"#endif\n"
"  while (z < end) {\n"
"    __global HST_EACC *a = acc + (tp % acc_tps) * 5 * P + i;\n"
"    HST_EACC s1 = a[0], s2 = a[P], s3 = a[2 * P];\n"
"    for (; z < end && t < T; ++z, ++t, ++g) {\n"
"      HST_EACC x = (HST_EACC)rgc[z * P + i];\n"
"      s1 = s1 + x;\n"
"      HST_EACC y = x * x;\n"
"      s2 = s2 + y;\n"
"#ifndef HST_E_NO_LAG1\n"
"      if (t > 0) {\n"
"        y = prev * x;\n"
"        s3 = s3 + y;\n"
"      }\n"
"      prev = x;\n"
"#endif\n"
"      if (t == 0) a[3 * P] = a[3 * P] + x;\n"
"      if (t + 1 == T || g + 1 == frames_total) a[4 * P] = a[4 * P] + x;\n"
"    }\n"
"    a[0] = s1;\n"
"    a[P] = s2;\n"
"    a[2 * P] = s3;\n"
"    t = 0;\n"
"    tp = tp + 1;\n"
"  }\n"
"}\n";

static const char hst__esrrf_src_io[] =
"\n"
"/* Raw samples (1 uchar, 2 ushort, 3 short, 4 float) to float frames */\n"
"__kernel void hst_k_esrrf_to_float(__global const uchar *raw, __global float *frames,\n"
"                                   uint pixels, uint dtype, ulong base, ulong begin,\n"
"                                   ulong end, ulong total, int flags)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  ulong z = begin + get_global_id(1);\n"
"  if (i >= pixels || z >= end) return;\n"
"  ulong k = z * pixels + i;\n"
"  float v;\n"
"  if (dtype == 1) v = (float)raw[k];\n"
"  else if (dtype == 2) v = (float)((__global const ushort *)raw)[k];\n"
"  else if (dtype == 3) v = (float)((__global const short *)raw)[k];\n"
"  else v = ((__global const float *)raw)[k];\n"
"  frames[k] = v;\n"
"}\n"
"\n"
"#ifdef HST_FP64\n"
"/* One time point's statistic from its five sums (hst_k_esrrf_finalize, on the device) */\n"
"__kernel void hst_k_esrrf_stat(__global const double *acc, __global float *image, ulong first,\n"
"                               uint pixels, uint frames, int mode)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= pixels || frames == 0) return;\n"
"  __global const double *a = acc + first + i;\n"
"  ulong P = pixels;\n"
"  double n = (double)frames;\n"
"  double s1 = a[0];\n"
"  double mu = s1 / n;\n"
"  double v;\n"
"  if (mode == 0) {\n"
"    v = mu;\n"
"  } else if (mode == 1) {\n"
"    double q = a[P] / n;\n"
"    double m2 = mu * mu;\n"
"    v = q - m2;\n"
"    if (v < 0.0) v = 0.0;\n"
"  } else if (frames < 2) {\n"
"    v = 0.0;\n"
"  } else {\n"
"    double cross = 2.0 * s1;\n"
"    cross = cross - a[3 * P];\n"
"    cross = cross - a[4 * P];\n"
"    double t = mu * cross;\n"
"    double u = n - 1.0;\n"
"    double w = u * mu;\n"
"    w = w * mu;\n"
"    double num = a[2 * P] - t;\n"
"    num = num + w;\n"
"    v = num / u;\n"
"  }\n"
"  image[i] = (float)v;\n"
"}\n"
"#endif\n";

/* >>esrrf sweep kernels (esrrf.h's hst_esrrf_sweep) */
static const char hst__esrrf_src_sweep[] =
"\n"
"/* The parameter sweep's sums: a block of n frames of hst_k_esrrf_rgc_fused's values at radius\n"
"   k (HST_E_NS sensitivities: rgc[(z pixels + i) HST_E_NS + l]) added to the sums of every pair\n"
"   p = k HST_E_NS + l, acc[(3 p + q) pixels + i]: q = 0 every frame, 1 the odd frames, 2 the\n"
"   even ones (frame z's index in its time point is odd0 + z; NanoPyx's rgc[1::2] and rgc[::2]),\n"
"   each a sum x in frame order as hst_k_esrrf_temporal's. 1-D NDRange of pixels HST_E_NS items:\n"
"   item e = i HST_E_NS + l, so a frame's values are read in order */\n"
"__kernel void hst_k_esrrf_sweep_sum(__global const float *rgc, __global HST_EACC *acc,\n"
"                                    uint pixels, uint k, uint n, uint odd0)\n"
"{\n"
"  ulong e = get_global_id(0), P = pixels;\n"
"  if (e >= P * HST_E_NS) return;\n"
"  ulong i = e / HST_E_NS, l = e - i * HST_E_NS;\n"
"  __global HST_EACC *a = acc + 3 * (k * HST_E_NS + l) * P + i;\n"
"  HST_EACC s = a[0], so = a[P], se = a[2 * P];\n"
"  for (uint z = 0; z < n; ++z) {\n"
"    HST_EACC x = (HST_EACC)rgc[z * P * HST_E_NS + e];\n"
"    s = s + x;\n"
"    if ((odd0 + z) & 1u)\n"
"      so = so + x;\n"
"    else\n"
"      se = se + x;\n"
"  }\n"
"  a[0] = s;\n"
"  a[P] = so;\n"
"  a[2 * P] = se;\n"
"}\n";

HST__PIECE_FITS(e_common, hst__esrrf_src_common);
HST__PIECE_FITS(e_math, hst__esrrf_src_math);
HST__PIECE_FITS(e_rgc, hst__esrrf_src_rgc);
HST__PIECE_FITS(e_rgc2, hst__esrrf_src_rgc2);
HST__PIECE_FITS(e_rgc3, hst__esrrf_src_rgc3);
HST__PIECE_FITS(e_wtab, hst__esrrf_src_wtab);
HST__PIECE_FITS(e_fused, hst__esrrf_src_fused);
HST__PIECE_FITS(e_tab2, hst__esrrf_src_tab2);
HST__PIECE_FITS(e_fusedpx, hst__esrrf_src_fusedpx);
HST__PIECE_FITS(e_pairs, hst__esrrf_src_pairs);
HST__PIECE_FITS(e_fused1, hst__esrrf_src_fused1);
HST__PIECE_FITS(e_fused2, hst__esrrf_src_fused2);
HST__PIECE_FITS(e_other, hst__esrrf_src_other);
HST__PIECE_FITS(e_io, hst__esrrf_src_io);
HST__PIECE_FITS(e_unit, hst__esrrf_src_unit);
HST__PIECE_FITS(e_sweep, hst__esrrf_src_sweep);

static const char *const hst__esrrf_src[] = {
    hst__esrrf_src_common, hst__esrrf_src_math, hst__esrrf_src_rgc, hst__esrrf_src_rgc2,
    hst__esrrf_src_rgc3, hst__esrrf_src_wtab, hst__esrrf_src_tab2, hst__esrrf_src_unit,
    hst__esrrf_src_fused, hst__esrrf_src_fusedpx, hst__esrrf_src_pairs, hst__esrrf_src_fused1,
    hst__esrrf_src_fused2, hst__esrrf_src_other, hst__esrrf_src_io, hst__esrrf_src_sweep
};

/* ---- host twins: the device functions above, statement for statement ---------------------- */

/* The twins the fused RGC's hot loops call are inlined into each of its builds (the portable
   one and, on x86-64 with gcc or clang, one for AVX2 + FMA picked at run time): inside the
   latter, fmaf is one instruction instead of a libm call. */
#if defined(__GNUC__)
#  define HST__E_INL static inline __attribute__((always_inline, unused))
#else
#  define HST__E_INL static inline
#endif

HST__E_INL uint32_t hst__e_bits(float f)
{
    union { float f; uint32_t u; } x;
    x.f = f;
    return x.u;
}

HST__E_INL float hst__e_float(uint32_t u)
{
    union { float f; uint32_t u; } x;
    x.u = u;
    return x.f;
}

/* hst_e_rcp: 1/b from a bit seed and three Newton-Raphson steps in fma */
HST__E_INL float hst__e_rcp(float b)
{
    float y = hst__e_float(0x7EF311C3u - hst__e_bits(b)), e;
    int k;
    for (k = 0; k < 3; ++k) {
        e = fmaf(-b, y, 1.0f);
        y = fmaf(y, e, y);
    }
    return y;
}

/* hst_e_div: a / b with Markstein's correction (see hst_k_esrrf_div) */
HST__E_INL float hst__e_div(float a, float b)
{
    float y = hst__e_rcp(b), q = a * y, r;
    r = fmaf(-b, q, a);
    return fmaf(r, y, q);
}

/* hst_e_rsqrt: 1/sqrt(x), bit seed, three Newton-Raphson steps, one with an exact residual */
HST__E_INL float hst__e_rsqrt(float x)
{
    float y = hst__e_float(0x5F375A86u - (hst__e_bits(x) >> 1)), p, e, q, h;
    int k;
    for (k = 0; k < 4; ++k) {
        p = y * y;
        e = fmaf(-x, p, 1.0f);
        if (k == 3) {
            q = fmaf(y, y, -p);
            e = fmaf(-x, q, e);
        }
        h = 0.5f * y;
        y = fmaf(h, e, y);
    }
    return y;
}

/* hst_e_unit: the unit gradient, the pair first scaled by a power of two (no overflow) */
HST__E_INL void hst__e_unit(float gx, float gy, float *u)
{
    uint32_t a = hst__e_bits(gx) & 0x7FFFFFFFu, b = hst__e_bits(gy) & 0x7FFFFFFFu;
    uint32_t m = a > b ? a : b, E;
    float sc, x, y, t, n, r;
    u[0] = 0.0f;
    u[1] = 0.0f;
    if (m == 0u || m >= 0x7F800000u) return;
    E = m >> 23;
    E = E < 1u ? 1u : E > 253u ? 253u : E;
    sc = hst__e_float((254u - E) << 23);
    x = gx * sc;
    y = gy * sc;
    x = (hst__e_bits(x) & 0x7F800000u) ? x : 0.0f;
    y = (hst__e_bits(y) & 0x7F800000u) ? y : 0.0f;
    t = y * y;
    n = fmaf(x, x, t);
    r = hst__e_rsqrt(n);
    u[0] = x * r;
    u[1] = y * r;
}

HST__E_INL float hst__e_cubic(float v)
{
    float t;
    v = fabsf(v);
    if (v < 1.0f) {
        t = 1.5f * v;
        t = t - 2.5f;
        t = t * v;
        t = t * v;
        return t + 1.0f;
    }
    if (v < 2.0f) {
        t = -0.5f * v;
        t = t + 2.5f;
        t = t * v;
        t = t - 4.0f;
        t = t * v;
        return t + 2.0f;
    }
    return 0.0f;
}

HST__E_INL float hst__e_interp(const float *im, int rows, int cols, int ch, int k, float r,
                                  float c)
{
    int r0, c0, i, j;
    float q = 0.0f, wr[4];
    if (r < 0.0f || r >= (float)rows || c < 0.0f || c >= (float)cols) return 0.0f;
    r0 = (int)floorf(r - 0.5f);
    c0 = (int)floorf(c - 0.5f);
    for (i = 0; i < 4; ++i) {
        float u = (float)(r0 - 1 + i) + 0.5f;
        wr[i] = hst__e_cubic(r - u);
    }
    for (j = 0; j < 4; ++j) {
        int cn = c0 - 1 + j;
        float p = 0.0f, u, w, t;
        if (cn < 0 || cn >= cols) continue;
        for (i = 0; i < 4; ++i) {
            int rn = r0 - 1 + i;
            if (rn < 0 || rn >= rows) continue;
            t = im[((size_t)rn * (size_t)cols + (size_t)cn) * (size_t)ch + (size_t)k] * wr[i];
            p = p + t;
        }
        u = (float)cn + 0.5f;
        w = hst__e_cubic(c - u);
        t = p * w;
        q = q + t;
    }
    return q;
}

HST__E_INL void hst__e_roberts(const float *f, int cols, int r1, int c1, float *g)
{
    int r0 = r1 > 0 ? r1 - 1 : 0;
    int c0 = c1 > 0 ? c1 - 1 : 0;
    float a = f[(size_t)r0 * (size_t)cols + (size_t)c1];
    float b = f[(size_t)r1 * (size_t)cols + (size_t)c0];
    float c = f[(size_t)r0 * (size_t)cols + (size_t)c0];
    float d = f[(size_t)r1 * (size_t)cols + (size_t)c1];
    float s = a - b;
    s = s + d;
    g[0] = s - c;
    s = b - a;
    s = s + d;
    g[1] = s - c;
}

/* e^(x - k ln 2) for the integer k nearest x / ln 2: the range reduction (ln 2 in two parts)
   and the degree-7 Taylor polynomial the device's hst_e_exp computes, operation for operation */
HST__E_INL float hst__e_exp_reduced(float x, float k)
{
    float h, r, p;
    h = k * 0.693145752f;
    r = x - h;
    h = k * 1.42860682e-6f;
    r = r - h;
    p = 1.98412698e-4f;
    p = p * r;
    p = p + 1.38888889e-3f;
    p = p * r;
    p = p + 8.33333333e-3f;
    p = p * r;
    p = p + 4.16666667e-2f;
    p = p * r;
    p = p + 1.66666667e-1f;
    p = p * r;
    p = p + 0.5f;
    p = p * r;
    p = p + 1.0f;
    p = p * r;
    p = p + 1.0f;
    return p;
}

HST__E_INL float hst__e_exp(float x)
{
    float k;
    if (x < -80.0f) return 0.0f;
    k = x * 1.44269504f;
    k = floorf(k + 0.5f);
    return hst__e_exp_reduced(x, k) * ldexpf(1.0f, (int)k);
}

HST__KPRIVATE float hst__e_sens(float R, float s)
{
    if (s <= 64.0f && s == floorf(s)) {
        int n = (int)s, e;
        float p = R;
        for (e = 1; e < n; ++e) p = p * R;
        return p;
    }
    return powf(R, s);
}

HST__E_INL int hst__e_taps(int k, float v, int size, int *first, float *w)
{
    int i;
    if (k >= 0) {
        if (k & 1) {
            *first = (k - 1) / 2;
            w[0] = 1.0f;
            return 1;
        }
        *first = k / 2 - 2;
        w[0] = -0.0625f;
        w[1] = 0.5625f;
        w[2] = 0.5625f;
        w[3] = -0.0625f;
        return 4;
    }
    if (v < 0.0f || v >= (float)size) return 0;
    *first = (int)floorf(v - 0.5f) - 1;
    for (i = 0; i < 4; ++i) {
        float u = (float)(*first + i) + 0.5f;
        w[i] = hst__e_cubic(v - u);
    }
    return 4;
}

HST__E_INL void hst__e_grad_fused(const float *f, int rows, int cols, int mag, int iy, int ix,
                                     float *g)
{
    float wy[4], wx[4], m2 = (float)(2 * mag), vy, vx, qc = 0.0f, qr = 0.0f;
    int ry = 0, cx = 0, ny, nx, i, j;
    vy = hst__e_div((float)iy, m2);
    vx = hst__e_div((float)ix, m2);
    ny = hst__e_taps(iy % mag == 0 ? iy / mag : -1, vy, rows, &ry, wy);
    nx = hst__e_taps(ix % mag == 0 ? ix / mag : -1, vx, cols, &cx, wx);
    if (ny == 0 || nx == 0) ny = nx = 0;
    for (j = 0; j < nx; ++j) {
        int cn = cx + j;
        float pc = 0.0f, pr = 0.0f, t;
        if (cn < 0 || cn >= cols) continue;
        for (i = 0; i < ny; ++i) {
            int rn = ry + i;
            float rg[2];
            if (rn < 0 || rn >= rows) continue;
            hst__e_roberts(f, cols, rn, cn, rg);
            t = rg[0] * wy[i];
            pc = pc + t;
            t = rg[1] * wy[i];
            pr = pr + t;
        }
        t = pc * wx[j];
        qc = qc + t;
        t = pr * wx[j];
        qr = qr + t;
    }
    g[0] = qc;
    g[1] = qr;
}

HST__E_INL int hst__e_clampi(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

/* Index along one axis of grad2 of the half-pixel position k / 2 */
HST__E_INL int hst__e_gidx(int k, float fm, int n2)
{
    float a = (float)k * 0.5f;
    a = a * fm;
    a = a * 2.0f;
    return hst__e_clampi((int)a, n2 - 1);
}

/* One counted sample (hst_e_acc): W += w; R += w - |uy dx - ux dy| wd where u.d < 0 */
HST__E_INL void hst__e_acc(float w, float wd, float dx, float dy, float ux, float uy, float *W,
                           float *R)
{
    float s, t, c;
    *W = *W + w;
    t = ux * dx;
    s = fmaf(uy, dy, t);
    if (s < 0.0f) {
        t = ux * dy;
        c = fmaf(uy, dx, -t);
        t = fmaf(-fabsf(c), wd, w);
        *R = *R + t;
    }
}

/* hst_e_consts: c[0] = -2 / tSS, c[1] = tSO^2; and the sample range [j0, j1) */
HST__E_INL void hst__e_consts(float radius, float *c, int *j0, int *j1)
{
    float sigma = hst__e_div(radius, 2.355f), tSS, tSO, gr;
    tSS = sigma * sigma;
    tSS = 2.0f * tSS;
    c[0] = hst__e_div(-2.0f, tSS);
    tSO = 2.0f * sigma;
    tSO = tSO + 1.0f;
    c[1] = tSO * tSO;
    gr = 2.0f * radius;
    *j0 = -(int)gr;
    gr = gr + 1.0f;
    *j1 = (int)gr;
}

/* hst_e_centre: the centre of phase p in input pixels from its macro-pixel's start */
HST__E_INL float hst__e_centre(int p, int mag)
{
    float c = (float)p + 0.5f;
    return hst__e_div(c, (float)mag);
}

/* hst_e_base: (int)(2 c), c = (y + 0.5) / mag, from y's phase: the first half-pixel position
   magnified row or column y samples is that plus j0 */
HST__E_INL int hst__e_base(int y, int mag)
{
    int q = y / mag;
    float c = hst__e_centre(y - q * mag, mag);
    return 2 * q + (int)(2.0f * c);
}

/* hst_e_axexp: exp(-2 d^2 / tSS) of one axis offset (c: hst__e_consts) */
HST__KPRIVATE float hst__e_axexp(float d, const float *c)
{
    float t = d * d;
    t = t * c[0];
    return hst__e_exp(t);
}

/* hst_e_wd2: the weight w of a sample at offset (dx, dy), *wd = w / d (ex, ey: axexp) */
HST__E_INL float hst__e_wd2(float dx, float dy, float ex, float ey, const float *c, float *wd)
{
    float t = dy * dy, d2, w;
    d2 = fmaf(dx, dx, t);
    *wd = 0.0f;
    if (d2 == 0.0f || d2 > c[1]) return 0.0f;
    w = ex * ey;
    w = d2 * w;
    w = w * w;
    if (w < 1e-30f) return 0.0f;
    *wd = w * hst__e_rsqrt(d2);
    return w;
}

HST__E_INL float hst__e_wd(float dx, float dy, const float *c, float *wd)
{
    return hst__e_wd2(dx, dy, hst__e_axexp(dx, c), hst__e_axexp(dy, c), c, wd);
}

HST__E_INL float hst__e_final(float R, float W, float sens)
{
    R = W > 0.0f ? hst__e_div(R, W) : 0.0f;
    if (R < 0.0f) return 0.0f;
    return sens > 1.0f ? hst__e_sens(R, sens) : R;
}

/* hst_e_rgc: the sums (R, W) of pixel (yM, xM), per sample */
HST__KPRIVATE void hst__e_rgc(const float *src, int fused, int rows, int cols, int mag, int yM,
                              int xM, float radius, float *Rs, float *Ws)
{
    float fm = (float)mag, c[2], cx, cy, ymax, xmax, R = 0.0f, W = 0.0f;
    int j0, j1, rows2 = 2 * rows * mag, cols2 = 2 * cols * mag, by, bx, fy, fx, i, j;
    hst__e_consts(radius, c, &j0, &j1);
    ymax = (float)(rows * mag - 1);
    xmax = (float)(cols * mag - 1);
    by = hst__e_base(yM, mag);
    bx = hst__e_base(xM, mag);
    fy = by - 2 * (yM / mag);
    fx = bx - 2 * (xM / mag);
    cy = hst__e_centre(yM % mag, mag);
    cx = hst__e_centre(xM % mag, mag);
    for (j = j0; j < j1; ++j) {
        float vy = (float)(by + j) * 0.5f, dy;
        if (!(0.0f < vy && vy <= ymax)) continue;
        dy = fmaf((float)(fy + j), 0.5f, -cy);
        for (i = j0; i < j1; ++i) {
            float vx = (float)(bx + i) * 0.5f, dx, wd, w, g[2], u[2];
            int iy, ix;
            if (!(0.0f < vx && vx <= xmax)) continue;
            dx = fmaf((float)(fx + i), 0.5f, -cx);
            w = hst__e_wd(dx, dy, c, &wd);
            if (w == 0.0f) continue;
            iy = hst__e_gidx(by + j, fm, rows2);
            ix = hst__e_gidx(bx + i, fm, cols2);
            if (fused) {
                hst__e_grad_fused(src, rows, cols, mag, iy, ix, g);
            } else {
                size_t o = ((size_t)iy * (size_t)cols2 + (size_t)ix) * 2;
                g[0] = src[o];
                g[1] = src[o + 1];
            }
            hst__e_unit(g[0], g[1], u);
            hst__e_acc(w, wd, dx, dy, u[0], u[1], &W, &R);
        }
    }
    *Rs = R;
    *Ws = W;
}

/* 1 when magnified pixel (yM, xM) is inside the margin (int)(radius * mag) */
HST__KPRIVATE int hst__e_inside(uint32_t rows, uint32_t cols, uint32_t mag, float radius, int yM,
                                int xM)
{
    float mr = radius * (float)mag;
    int margin = (int)mr;
    return yM >= margin && yM < (int)(rows * mag) - margin && xM >= margin &&
           xM < (int)(cols * mag) - margin;
}

/* ---- the fused RGC on the host, by rows (hst_k_esrrf_rgc_fused_host_rows) ------------------
   The device's local-memory tile, on the stack: for a block of magnified rows and of
   HST__E_LANES * mag columns, the unit gradients of every half-pixel position its pixels
   sample are computed once (hst__e_grad_fused, hst__e_unit, as the device's tile), and the
   (w, w / d) of every phase and sample once per call (the device's table); then each row's
   pixels of one phase (columns x0 + l mag, l = 0..HST__E_LANES-1, whose sample windows start
   exactly 2 half positions apart) walk their samples together, lane by lane, every lane in the
   per-pixel order. The lane loop has no branches (selects by bit masks: gcc's -O2 vectoriser
   needs if-converted loops, and with -ftrapping-math it does not if-convert a C ?: around float
   operations). Skipped samples add +0 to W and R, which leaves them bitwise unchanged: both
   start at +0 and a sum that starts at +0 is never -0 in round-to-nearest.
   The block code is built three times: portable, and (gcc/clang on x86-64) for AVX-512 (16
   lanes in one register) and for AVX2 + FMA, the first the CPU has chosen at run time by
   __builtin_cpu_supports; fmaf is correctly rounded in all, so the bits agree. The portable
   build calls libm's fmaf unless the build targets FMA (-mfma, -march=haswell or later;
   aarch64 always has it): measured on x86-64 without it, 9x slower than the AVX-512 build. */

#define HST__E_LANES 16     /* pixels of one row and phase computed together */
/* Half-pixel positions the stack tile holds (2 floats each: 24 KiB). Radius 1.5 needs 7 rows
   of 40 positions for one magnified row; a radius above ~10 needs more than it holds for one
   row and takes the per-sample path (hst__e_rgc), with the same bits. */
#define HST__E_HOST_TILE 3072
/* (w, wd) entries the stack table holds (32 KiB): mag^2 (j1 - j0)^2, 1225 at mag 5 radius
   1.5; more (mag 8 with radius 2, ...) compute each sample's weight, with the same bits. */
#define HST__E_HOST_WTAB 4096

#if defined(__GNUC__) && defined(__x86_64__) && !defined(HST_NO_CPU_DISPATCH)
#  define HST__E_AVX2 1
#else
#  define HST__E_AVX2 0
#endif

/* Every per-frame number of hst__e_rgc and the margin, computed as there */
typedef struct hst__e_geom {
    int rows, cols, mag, rowsM, colsM, margin, j0, j1;
    int out_row0;           /* the output's first magnified row (row yM at (yM - out_row0) colsM) */
    int ns;                 /* values per pixel: one per sensitivity (pixel x's at x ns) */
    float fm, radius, c[2], ymax;
    const float *sens;      /* the ns sensitivities */
    const float *wt;        /* the (w, wd) table of every phase and sample, or NULL */
} hst__e_geom;

HST__KPRIVATE void hst__e_geom_init(hst__e_geom *g, uint32_t rows, uint32_t cols, uint32_t mag,
                                    float radius, const float *sens, uint32_t ns)
{
    float mr = radius * (float)mag;
    hst__e_consts(radius, g->c, &g->j0, &g->j1);
    g->rows = (int)rows;
    g->cols = (int)cols;
    g->mag = (int)mag;
    g->rowsM = (int)(rows * mag);
    g->colsM = (int)(cols * mag);
    g->margin = (int)mr;
    g->fm = (float)mag;
    g->radius = radius;
    g->sens = sens;
    g->ns = (int)ns;
    g->ymax = (float)(g->rowsM - 1);
    g->out_row0 = 0;
    g->wt = NULL;
}

/* The device's hst_e_wtable into wt (HST__E_HOST_WTAB entries) if it fits: g->wt set */
HST__KPRIVATE void hst__e_wtable(hst__e_geom *g, float *wt)
{
    float ax[2 * 64];       /* mag n <= 64 when mag^2 n^2 <= HST__E_HOST_WTAB */
    int n = g->j1 - g->j0, p, j, i, r;
    float *e = wt;
    if ((long)g->mag * g->mag * n * n > HST__E_HOST_WTAB) return;
    for (p = 0; p < g->mag; ++p)
        for (i = 0; i < n; ++i) {
            float d = fmaf((float)(hst__e_base(p, g->mag) + g->j0 + i), 0.5f,
                           -hst__e_centre(p, g->mag));
            ax[2 * (p * n + i)] = d;
            ax[2 * (p * n + i) + 1] = hst__e_axexp(d, g->c);
        }
    for (r = 0; r < g->mag * g->mag; ++r)
        for (j = 0; j < n; ++j)
            for (i = 0; i < n; ++i, e += 2) {
                int a = 2 * ((r % g->mag) * n + i), b = 2 * ((r / g->mag) * n + j);
                e[0] = hst__e_wd2(ax[a], ax[b], ax[a + 1], ax[b + 1], g->c, &e[1]);
            }
    g->wt = wt;
}

/* c ? a : b, bit for bit, without a branch */
HST__E_INL float hst__e_pick(int c, float a, float b)
{
    uint32_t m = 0u - (uint32_t)(c != 0);
    return hst__e_float((hst__e_bits(a) & m) | (hst__e_bits(b) & ~m));
}

/* The tile: unit gradients (ux, uy) of half-pixel positions (k0 + a, l0 + e), a < nk, e < nl,
   in two planes of nk rows of `stride` floats; in a row, even e first, then odd e (position e
   at (e & 1) * stride / 2 + e / 2), so the lanes' samples, 2 positions apart, are adjacent. */
HST__E_INL void hst__e_tile(const float *f, const hst__e_geom *g, int k0, int nk, int l0, int nl,
                            int stride, float *tile)
{
    size_t plane = (size_t)nk * (size_t)stride;
    int a, e, half = stride / 2;
    for (a = 0; a < nk; ++a) {
        int iy = hst__e_gidx(k0 + a, g->fm, 2 * g->rowsM);
        for (e = 0; e < nl; ++e) {
            int ix = hst__e_gidx(l0 + e, g->fm, 2 * g->colsM);
            size_t o = (size_t)a * (size_t)stride + (size_t)((e & 1) * half + (e >> 1));
            float gg[2], u[2];
            hst__e_grad_fused(f, g->rows, g->cols, g->mag, iy, ix, gg);
            hst__e_unit(gg[0], gg[1], u);
            tile[o] = u[0];
            tile[plane + o] = u[1];
        }
    }
}

/* One sample for the lanes, whose pixels share a phase and so its offsets (dx, dy) and
   (w, wd): hst__e_acc where each lane's sample is inside the image (half-pixel column
   k = ki + 2 l with 0 < k <= kx); ux, uy: the lanes' unit gradients (adjacent) */
HST__E_INL void hst__e_lane_sample(const float *ux, const float *uy, int ki, int kx, float dx,
                                   float dy, float w, float wd, float *W, float *R)
{
    int l;
    for (l = 0; l < HST__E_LANES; ++l) {
        int k = ki + 2 * l, ok = (k > 0) & (k <= kx);
        float t = ux[l] * dx, s, c, v;
        s = fmaf(uy[l], dy, t);
        t = ux[l] * dy;
        c = fmaf(uy[l], dx, -t);
        v = fmaf(-fabsf(c), wd, w);
        W[l] = W[l] + hst__e_pick(ok, w, 0.0f);
        R[l] = R[l] + hst__e_pick(ok & (s < 0.0f), v, 0.0f);
    }
}

/* The RGC sums R, W of the lanes' pixels (yM, x0 + l mag) from the tile (rows from half-pixel
   position k0, columns from l0), as hst__e_rgc computes each: lane l samples the half-pixel
   columns of lane 0 plus 2 l */
HST__E_INL void hst__e_lanes(const hst__e_geom *g, const float *tile, size_t plane, int stride,
                             int k0, int l0, int yM, int x0, float *W, float *R)
{
    float cx, cy;
    int by, bx, fy, fx, j, i, l, half = stride / 2, n = g->j1 - g->j0;
    const float *wp = NULL;
    by = hst__e_base(yM, g->mag);
    bx = hst__e_base(x0, g->mag);
    fy = by - 2 * (yM / g->mag);
    fx = bx - 2 * (x0 / g->mag);
    cy = hst__e_centre(yM % g->mag, g->mag);
    cx = hst__e_centre(x0 % g->mag, g->mag);
    if (g->wt) wp = g->wt + (size_t)(((yM % g->mag) * g->mag + x0 % g->mag) * n * n) * 2;
    for (l = 0; l < HST__E_LANES; ++l) W[l] = R[l] = 0.0f;
    for (j = g->j0; j < g->j1; ++j) {
        float vy = (float)(by + j) * 0.5f, dy;
        const float *row = tile + (size_t)(by + j - k0) * (size_t)stride;
        if (!(0.0f < vy && vy <= g->ymax)) continue;
        dy = fmaf((float)(fy + j), 0.5f, -cy);
        for (i = g->j0; i < g->j1; ++i) {
            int e = bx + i - l0;
            const float *ux = row + (e & 1) * half + (e >> 1);
            float dx = fmaf((float)(fx + i), 0.5f, -cx), wd, w;
            if (wp) {
                w = wp[((j - g->j0) * n + i - g->j0) * 2];
                wd = wp[((j - g->j0) * n + i - g->j0) * 2 + 1];
            } else {
                w = hst__e_wd(dx, dy, g->c, &wd);
            }
            if (w != 0.0f)
                hst__e_lane_sample(ux, ux + plane, bx + i, 2 * (g->colsM - 1), dx, dy, w, wd,
                                   W, R);
        }
    }
}

/* Pixel x of output row yM: its first value (of g->ns) */
HST__E_INL float *hst__e_out(float *out, const hst__e_geom *g, int yM, int x)
{
    return out + ((size_t)(yM - g->out_row0) * (size_t)g->colsM + (size_t)x) * (size_t)g->ns;
}

/* The values of inside pixel (yM, xM) from its sums R, W: hst__e_final at each sensitivity,
   times the magnified frame when weighting, into o[0 .. ns) */
HST__E_INL void hst__e_put(const float *f, const hst__e_geom *g, int iw, int yM, int xM, float R,
                           float W, float *o)
{
    float im = 1.0f, v;
    int s;
    if (iw) {
        float rr = hst__e_div((float)yM, g->fm);
        float c = hst__e_div((float)xM, g->fm);
        im = hst__e_interp(f, g->rows, g->cols, 1, 0, rr, c);
    }
    for (s = 0; s < g->ns; ++s) {
        v = hst__e_final(R, W, g->sens[s]);
        o[s] = iw ? v * im : v;
    }
}

/* Inside pixel (yM, xM) the per-sample way (no tile) */
HST__KPRIVATE void hst__e_pixel(const float *f, float *out, const hst__e_geom *g, int iw, int yM,
                                int xM)
{
    float R, W;
    hst__e_rgc(f, 1, g->rows, g->cols, g->mag, yM, xM, g->radius, &R, &W);
    hst__e_put(f, g, iw, yM, xM, R, W, hst__e_out(out, g, yM, xM));
}

/* Inside rows [ya, yb) (ya < yb), columns [xa, xa + LANES mag) clipped to the inside ones */
HST__E_INL void hst__e_block_any(const float *f, float *out, const hst__e_geom *g, int iw,
                                 int ya, int yb, int xa, int k0, int nk, float *tile)
{
    int xe = g->colsM - g->margin, w = HST__E_LANES * g->mag, p, y, l;
    int l0 = hst__e_base(xa, g->mag) + g->j0;
    int nl = hst__e_base(xa + w - 1, g->mag) + g->j1 - l0, stride = nl + (nl & 1);
    size_t plane = (size_t)nk * (size_t)stride;
    hst__e_tile(f, g, k0, nk, l0, nl, stride, tile);
    for (p = 0; p < g->mag && xa + p < xe; ++p) {
        for (y = ya; y < yb; ++y) {
            float W[HST__E_LANES], R[HST__E_LANES];
            hst__e_lanes(g, tile, plane, stride, k0, l0, y, xa + p, W, R);
            for (l = 0; l < HST__E_LANES; ++l) {
                int x = xa + p + l * g->mag;
                if (x >= xe) break;
                hst__e_put(f, g, iw, y, x, R[l], W[l], hst__e_out(out, g, y, x));
            }
        }
    }
}

#if HST__E_AVX2
#  if defined(__clang__)
#    define HST__E_T512 "avx512f,avx512vl,avx512dq,fma"
#  else
#    define HST__E_T512 "avx512f,avx512vl,avx512dq,fma,prefer-vector-width=512"
#  endif
__attribute__((target(HST__E_T512))) static void
hst__e_block_avx512(const float *f, float *out, const hst__e_geom *g, int iw, int ya, int yb,
                    int xa, int k0, int nk, float *tile)
{
    hst__e_block_any(f, out, g, iw, ya, yb, xa, k0, nk, tile);
}

__attribute__((target("avx2,fma"))) static void
hst__e_block_avx2(const float *f, float *out, const hst__e_geom *g, int iw, int ya, int yb,
                  int xa, int k0, int nk, float *tile)
{
    hst__e_block_any(f, out, g, iw, ya, yb, xa, k0, nk, tile);
}
#endif

#if HST__E_AVX2
/* The best build the CPU runs: 2 AVX-512 (F, VL, DQ), 1 AVX2 + FMA, 0 portable */
HST__KPRIVATE int hst__e_isa(void)
{
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        return 2;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
}
#endif

/* hst__e_block_any, built for the CPU at hand */
HST__KPRIVATE void hst__e_block(const float *f, float *out, const hst__e_geom *g, int iw, int ya,
                                int yb, int xa, int k0, int nk, float *tile)
{
#if HST__E_AVX2
    switch (hst__e_isa()) {
    case 2: hst__e_block_avx512(f, out, g, iw, ya, yb, xa, k0, nk, tile); return;
    case 1: hst__e_block_avx2(f, out, g, iw, ya, yb, xa, k0, nk, tile); return;
    default: break;
    }
#endif
    hst__e_block_any(f, out, g, iw, ya, yb, xa, k0, nk, tile);
}

/* The last row (exclusive) of a block from ya whose tile fits: rows ya.. while their half-pixel
   rows k0..k0 + nk fit HST__E_HOST_TILE positions of `stride`; ya itself when one does not */
HST__KPRIVATE int hst__e_block_rows(const hst__e_geom *g, int ya, int ye, int stride, int *k0,
                                    int *nk)
{
    int yb = ya, n;
    *k0 = hst__e_base(ya, g->mag) + g->j0;
    while (yb < ye) {
        n = hst__e_base(yb, g->mag) + g->j1 - *k0;
        if ((long)n * stride > HST__E_HOST_TILE) break;
        *nk = n;
        ++yb;
    }
    return yb;
}

HST__KPRIVATE void hst__e_zero_outside(float *out, const hst__e_geom *g, int yM0, int yM1)
{
    int y, x;
    for (y = yM0; y < yM1; ++y) {
        int in = y >= g->margin && y < g->rowsM - g->margin;
        for (x = 0; x < g->colsM; ++x)
            if (!in || x < g->margin || x >= g->colsM - g->margin)
                memset(hst__e_out(out, g, y, x), 0, (size_t)g->ns * sizeof(float));
    }
}

/* Inside rows [ya, ye) of the column block from xa, in blocks whose tile fits; a row whose
   samples do not fit alone goes the per-sample way */
HST__KPRIVATE void hst__e_column(const float *f, float *out, const hst__e_geom *g, int iw, int ya,
                                 int ye, int xa, float *tile)
{
    int w = HST__E_LANES * g->mag, xe = g->colsM - g->margin;
    int nl = hst__e_base(xa + w - 1, g->mag) - hst__e_base(xa, g->mag) + g->j1 - g->j0;
    int stride = nl + (nl & 1), x;
    while (ya < ye) {
        int k0 = 0, nk = 0, yb = hst__e_block_rows(g, ya, ye, stride, &k0, &nk);
        if (yb > ya) {
            hst__e_block(f, out, g, iw, ya, yb, xa, k0, nk, tile);
            ya = yb;
            continue;
        }
        for (x = xa; x < xa + w && x < xe; ++x) hst__e_pixel(f, out, g, iw, ya, x);
        ++ya;
    }
}

HST__KDEF void hst_k_esrrf_rgc_fused_host_rows(const float *frame, float *rgc_frame,
                                               uint32_t rows, uint32_t cols, uint32_t mag,
                                               float radius, float sensitivity,
                                               int intensity_weighting, uint32_t yM0,
                                               uint32_t yM1)
{
    hst_k_esrrf_rgc_fused_host_rows_at(frame, rgc_frame, 0, rows, cols, mag, radius, sensitivity,
                                       intensity_weighting, yM0, yM1);
}

HST__KDEF void hst_k_esrrf_rgc_fused_host_rows_at(const float *frame, float *out,
                                                  uint32_t out_row0, uint32_t rows,
                                                  uint32_t cols, uint32_t mag, float radius,
                                                  float sensitivity, int intensity_weighting,
                                                  uint32_t yM0, uint32_t yM1)
{
    hst_k_esrrf_rgc_fused_host_rows_ns(frame, out, out_row0, rows, cols, mag, radius,
                                       &sensitivity, 1, intensity_weighting, yM0, yM1);
}

HST__KDEF void hst_k_esrrf_rgc_fused_host_rows_ns(const float *frame, float *out,
                                                  uint32_t out_row0, uint32_t rows,
                                                  uint32_t cols, uint32_t mag, float radius,
                                                  const float *sensitivities, uint32_t ns,
                                                  int intensity_weighting, uint32_t yM0,
                                                  uint32_t yM1)
{
    float tile[2 * HST__E_HOST_TILE], wt[2 * HST__E_HOST_WTAB];
    hst__e_geom g;
    int ya, ye, xa;
    hst__e_geom_init(&g, rows, cols, mag, radius, sensitivities, ns);
    g.out_row0 = (int)out_row0;
    if (yM1 > (uint32_t)g.rowsM) yM1 = (uint32_t)g.rowsM;
    if (yM0 < out_row0) yM0 = out_row0;
    if (yM0 >= yM1) return;
    hst__e_zero_outside(out, &g, (int)yM0, (int)yM1);
    ya = (int)yM0 > g.margin ? (int)yM0 : g.margin;
    ye = (int)yM1 < g.rowsM - g.margin ? (int)yM1 : g.rowsM - g.margin;
    if (ya >= ye) return;
    hst__e_wtable(&g, wt);
    for (xa = g.margin; xa < g.colsM - g.margin; xa += HST__E_LANES * g.mag)
        hst__e_column(frame, out, &g, intensity_weighting, ya, ye, xa, tile);
}

/* ---- the sweep's sums (hst_k_esrrf_sweep_sum) on the host ------------------------------------ */

HST__KDEF uint64_t hst_k_esrrf_wtab_entries(uint32_t mag, float radius)
{
    float c[2];
    int j0, j1;
    hst__e_consts(radius, c, &j0, &j1);
    return (uint64_t)mag * mag * (uint64_t)(j1 - j0) * (uint64_t)(j1 - j0);
}

HST__KDEF void hst_k_esrrf_sweep_sum_host(const float *rgc, double *acc, uint32_t pixels,
                                          uint32_t ns, uint32_t k, uint32_t n, uint32_t odd0,
                                          size_t e0, size_t e1)
{
    size_t P = pixels, e;
    uint32_t z;
    for (e = e0; e < e1 && e < P * ns; ++e) {
        size_t i = e / ns, l = e - i * ns;
        double *a = acc + 3 * ((size_t)k * ns + l) * P + i, s = a[0], so = a[P], se = a[2 * P];
        for (z = 0; z < n; ++z) {
            double x = (double)rgc[(size_t)z * P * ns + e];
            s = s + x;
            if ((odd0 + z) & 1u)
                so = so + x;
            else
                se = se + x;
        }
        a[0] = s;
        a[P] = so;
        a[2 * P] = se;
    }
}

HST__KDEF const char *const *hst_kernels_esrrf_source(size_t *count)
{
    if (count) *count = sizeof hst__esrrf_src / sizeof hst__esrrf_src[0];
    return hst__esrrf_src;
}

HST__KDEF float hst_k_esrrf_exp(float x) { return hst__e_exp(x); }
HST__KDEF float hst_k_esrrf_rcp(float b) { return hst__e_rcp(b); }
HST__KDEF float hst_k_esrrf_div(float a, float b) { return hst__e_div(a, b); }
HST__KDEF float hst_k_esrrf_rsqrt(float x) { return hst__e_rsqrt(x); }

HST__KDEF void hst_k_esrrf_roberts_host(const float *frames, float *grad, uint32_t rows,
                                      uint32_t cols, uint64_t base, uint64_t begin,
                                      uint64_t end, uint64_t total)
{
    size_t n = (size_t)rows * cols, i;
    uint64_t z;
    (void)base;
    (void)total;
    for (z = begin; z < end; ++z)
        for (i = 0; i < n; ++i) {
            size_t o = (size_t)z * n + i;
            float g[2];
            hst__e_roberts(frames + (size_t)z * n, (int)cols, (int)(i / cols), (int)(i % cols), g);
            grad[2 * o] = g[0];
            grad[2 * o + 1] = g[1];
        }
}

HST__KDEF void hst_k_esrrf_magnify_host(const float *in, float *out, uint32_t rows, uint32_t cols,
                                      uint32_t mag, uint32_t channels, uint64_t base,
                                      uint64_t begin, uint64_t end, uint64_t total)
{
    size_t colsM = (size_t)cols * mag, nM = (size_t)rows * mag * colsM, i;
    float fm = (float)mag;
    uint64_t z;
    uint32_t k;
    (void)base;
    (void)total;
    for (z = begin; z < end; ++z) {
        const float *src = in + (size_t)z * rows * cols * channels;
        for (i = 0; i < nM; ++i) {
            float r = hst__e_div((float)(uint32_t)(i / colsM), fm);
            float c = hst__e_div((float)(uint32_t)(i % colsM), fm);
            for (k = 0; k < channels; ++k)
                out[((size_t)z * nM + i) * channels + k] =
                    hst__e_interp(src, (int)rows, (int)cols, (int)channels, (int)k, r, c);
        }
    }
}

HST__KDEF void hst_k_esrrf_rgc_host(const float *grad2, const float *magnified, float *rgc,
                                  uint32_t rows, uint32_t cols, uint32_t mag, float radius,
                                  float sensitivity, int intensity_weighting, uint64_t base,
                                  uint64_t begin, uint64_t end, uint64_t total)
{
    size_t colsM = (size_t)cols * mag, nM = (size_t)rows * mag * colsM, i;
    uint64_t z;
    (void)base;
    (void)total;
    for (z = begin; z < end; ++z)
        for (i = 0; i < nM; ++i) {
            int yM = (int)(i / colsM), xM = (int)(i % colsM);
            float v = 0.0f;
            if (hst__e_inside(rows, cols, mag, radius, yM, xM)) {
                float R, W;
                hst__e_rgc(grad2 + (size_t)z * 8 * nM, 0, (int)rows, (int)cols, (int)mag, yM, xM,
                           radius, &R, &W);
                v = hst__e_final(R, W, sensitivity);
                if (intensity_weighting) v = v * magnified[(size_t)z * nM + i];
            }
            rgc[(size_t)z * nM + i] = v;
        }
}

HST__KDEF void hst_k_esrrf_rgc_fused_window_host(const float *frames, float *rgc, uint32_t rows,
                                                 uint32_t cols, uint32_t mag, float radius,
                                                 float sensitivity, int intensity_weighting,
                                                 uint32_t row0, uint32_t nrows, uint64_t base,
                                                 uint64_t begin, uint64_t end, uint64_t total)
{
    size_t n = (size_t)rows * cols, nW = (size_t)nrows * cols * mag;
    uint64_t z;
    (void)base;
    (void)total;
    for (z = begin; z < end; ++z)
        hst_k_esrrf_rgc_fused_host_rows_at(frames + (size_t)z * n, rgc + (size_t)z * nW, row0, rows,
                                           cols, mag, radius, sensitivity, intensity_weighting,
                                           row0, row0 + nrows);
}

HST__KDEF void hst_k_esrrf_rgc_fused_host(const float *frames, float *rgc, uint32_t rows,
                                        uint32_t cols, uint32_t mag, float radius,
                                        float sensitivity, int intensity_weighting,
                                        uint64_t base, uint64_t begin, uint64_t end,
                                        uint64_t total)
{
    size_t n = (size_t)rows * cols, nM = n * mag * mag;
    uint64_t z;
    (void)base;
    (void)total;
    for (z = begin; z < end; ++z)
        hst_k_esrrf_rgc_fused_host_rows(frames + (size_t)z * n, rgc + (size_t)z * nM, rows, cols,
                                        mag, radius, sensitivity, intensity_weighting, 0,
                                        rows * mag);
}

HST__KDEF void hst_k_esrrf_temporal_host(const float *rgc, double *acc, uint32_t pixels,
                                       uint64_t frames_per_tp, uint32_t acc_tps, uint64_t frame0,
                                       uint32_t skip, uint64_t frames_total, uint32_t i0,
                                       uint32_t i1, uint64_t base, uint64_t begin, uint64_t end)
{
    size_t P = pixels, i;
    uint64_t T = frames_per_tp ? frames_per_tp : UINT64_MAX;
    uint64_t z0 = skip > base ? skip - base : 0;
    if (acc_tps == 0) return;
    if (z0 < begin) z0 = begin;
    for (i = i0; i < i1 && i < P; ++i) {
        uint64_t z = z0;
        while (z < end) {
            uint64_t tp = (frame0 + base + z) / T;
            double *a = acc + (size_t)(tp % acc_tps) * 5 * P + i;
            double s1 = a[0], s2 = a[P], s3 = a[2 * P];
            for (; z < end && (frame0 + base + z) / T == tp; ++z) {
                uint64_t g = frame0 + base + z, t = g % T;
                double x = (double)rgc[(size_t)z * P + i], y;
                s1 = s1 + x;
                y = x * x;
                s2 = s2 + y;
                if (t > 0) {
                    y = (double)rgc[(size_t)(z - 1) * P + i];
                    y = y * x;
                    s3 = s3 + y;
                }
                if (t == 0) a[3 * P] = a[3 * P] + x;
                if (t + 1 == T || g + 1 == frames_total) a[4 * P] = a[4 * P] + x;
            }
            a[0] = s1;
            a[P] = s2;
            a[2 * P] = s3;
        }
    }
}

HST__KDEF void hst_k_esrrf_to_float_host(const void *raw, float *frames, uint32_t pixels,
                                       uint32_t dtype, uint64_t base, uint64_t begin,
                                       uint64_t end, uint64_t total)
{
    size_t k = (size_t)begin * pixels, k1 = (size_t)end * pixels;
    (void)base;
    (void)total;
    for (; k < k1; ++k)
        frames[k] = dtype == 1 ? (float)((const uint8_t *)raw)[k]
                  : dtype == 2 ? (float)((const uint16_t *)raw)[k]
                  : dtype == 3 ? (float)((const int16_t *)raw)[k] : ((const float *)raw)[k];
}

HST__KDEF void hst_k_esrrf_finalize(int mode, const double *acc, size_t pixels, uint32_t frames,
                                  float *out)
{
    hst_k_esrrf_finalize_range(mode, acc, pixels, pixels, frames, out);
}

HST__KDEF void hst_k_esrrf_finalize_range(int mode, const double *acc, size_t stride, size_t count,
                                        uint32_t frames, float *out)
{
    size_t i, P = stride;
    double n = (double)frames;
    if (mode < 0 || mode > 2 || frames == 0) return;
    for (i = 0; i < count; ++i) {   /* each mode reads only its sums (the others may be unset) */
        double s1 = acc[i], mu = s1 / n, v;
        if (mode == 0) {
            v = mu;
        } else if (mode == 1) {
            v = acc[P + i] / n - mu * mu;
            if (v < 0.0) v = 0.0;
        } else if (frames < 2) {
            v = 0.0;
        } else {
            double cross = 2.0 * s1 - acc[3 * P + i] - acc[4 * P + i];
            v = (acc[2 * P + i] - mu * cross + (n - 1.0) * mu * mu) / (n - 1.0);
        }
        out[i] = (float)v;
    }
}

HST__KDEF void hst_k_esrrf_macro_pixel(float *img, uint32_t rowsM, uint32_t colsM, uint32_t mag)
{
    double c[HST_K_ESRRF_MAX_MAG * HST_K_ESRRF_MAX_MAG];
    size_t y, x, rows, cols;
    if (!img || mag == 0 || mag > HST_K_ESRRF_MAX_MAG) return;
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

#endif /* HST_NO_ESRRF_KERNELS */

/* <<esrrf kernels */

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
"/* the band of work-group g: the last b with prefix[b] <= g (prefix strictly increasing) */\n"
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
"/* mode 0: chunks t G .. t G + G - 1 (G = 2^d[31]) of HST_CHUNK elements in buffer order,\n"
"   4 loads in flight per work-item */\n"
"void hst_halo_direct(__global const ulong *d, uint t, __global uchar *bb, __global uchar *qb,\n"
"                     uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12], L = get_local_size(0);\n"
"  uint n1 = (uint)d[7], n2 = (uint)d[8], n3 = (uint)d[9], n = (uint)d[6] * n1 * n2 * n3;\n"
"  uint s0 = (uint)d[2], s1 = (uint)d[3], s2 = (uint)d[4], s3 = (uint)d[5];\n"
"  ulong m3 = d[20], m2 = d[21], m1 = d[22];\n"
"  uint span = HST_CHUNK << (uint)d[31], c0 = t * span;\n"
"  for (uint j = get_local_id(0); j < span && c0 + j < n; j += 4u * L) {\n"
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
"/* mode 1: tiles t G .. t G + G - 1 (G = 2^d[31]), each TB x TA through local memory; B the\n"
"   quantity-contiguous dimension, A (3) the buffer-contiguous one: the quantity side runs\n"
"   along B, the buffer side along A */\n"
"void hst_halo_tiled(__global const ulong *d, uint t, __global uchar *bb, __global uchar *qb,\n"
"                    __local ulong *tile, uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12], L = get_local_size(0);\n"
"  uint lid = get_local_id(0), lb = (uint)d[16], la = (uint)d[17];\n"
"  uint TB = 1u << lb, TA = 1u << la, pitch = TA + 1u, sz = TB << la, G = 1u << (uint)d[31];\n"
"  uint n1 = (uint)d[d[14] == 0 ? 7 : 6];\n"
"  for (uint u = t * G; u < t * G + G; ++u) {\n"
"  uint r = hst_halo_div(u, d[20]), ta = u - r * (uint)d[19];\n"
"  uint r2 = hst_halo_div(r, d[21]), tb = r - r2 * (uint)d[18];\n"
"  uint io1 = hst_halo_div(r2, d[22]), io2 = r2 - io1 * (uint)d[24];\n"
"  if (io1 >= n1) break;\n"
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
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  }\n"
"}\n";

static const char hst__halo_src_runs[] =
"/* mode 3: runs t G .. t G + G - 1 (G = d[17]) of d[16] 16-byte vectors each, flattened over\n"
"   (run, vector): consecutive work-items on consecutive vectors, HST_RUN_K vectors per\n"
"   work-item loaded before any is stored. d[18] 1 and both bases 16-byte aligned: uint4 loads\n"
"   and stores; else vload4 / vstore4 of uints. 8-byte elements move as ulong pairs. */\n"
"#define HST_RUN_K 4u\n"
"uint4 hst_halo_vld(__global const uchar *p, uint al)\n"
"{\n"
"  return al ? *(__global const uint4 *)p : vload4(0, (__global const uint *)p);\n"
"}\n"
"void hst_halo_vst(__global uchar *p, uint al, uint4 w)\n"
"{\n"
"  if (al) *(__global uint4 *)p = w; else vstore4(w, 0, (__global uint *)p);\n"
"}\n"
"/* the pack op on the 4 or 2 elements of a vector (as hst_halo_op) */\n"
"uint4 hst_halo_vop(uint4 w, uint es, uint op)\n"
"{\n"
"  if (op == 1u && es == 4u) return w ^ (uint4)(0x80000000u);\n"
"  if (op == 1u) return as_uint4(as_ulong2(w) ^ (ulong2)(0x8000000000000000UL));\n"
"  if (op == 2u && es == 4u) return (uint4)(0u) - w;\n"
"  if (op == 2u) return as_uint4((ulong2)(0UL) - as_ulong2(w));\n"
"  return w;\n"
"}\n"
"void hst_halo_runs(__global const ulong *d, ulong t, __global uchar *bb, __global uchar *qb,\n"
"                   uint un)\n"
"{\n"
"  uint es = (uint)d[11], op = un ? 0u : (uint)d[12], L = get_local_size(0);\n"
"  uint al = d[18] != 0UL && ((ulong)qb & 15UL) == 0UL && ((ulong)bb & 15UL) == 0UL;\n"
"  uint vpr = (uint)d[16], n1 = (uint)d[7], n2 = (uint)d[8], tot = (uint)d[17] * vpr;\n"
"  ulong nruns = d[6] * d[7] * d[8], r0 = t * d[17];\n"
"  for (uint j = get_local_id(0); j < tot; j += HST_RUN_K * L) {\n"
"    uint4 w[HST_RUN_K];\n"
"    long qo[HST_RUN_K];\n"
"    ulong bo[HST_RUN_K];\n"
"    for (uint k = 0; k < HST_RUN_K; ++k) {\n"
"      uint x = j + k * L, u = hst_halo_div(x, d[20]), v = x - u * vpr;\n"
"      ulong R = r0 + u;\n"
"      bo[k] = ~0UL;\n"
"      if (x >= tot || R >= nruns) continue;\n"
"      uint q1 = hst_halo_div((uint)R, d[21]), i2 = (uint)R - q1 * n2;\n"
"      uint i0 = hst_halo_div(q1, d[22]), i1 = q1 - i0 * n1;\n"
"      qo[k] = ((long)i0 * (long)d[2] + (long)i1 * (long)d[3] + (long)i2 * (long)d[4])\n"
"              * (long)es + 16L * (long)v;\n"
"      bo[k] = (R * vpr + v) * 16UL;\n"
"      w[k] = hst_halo_vld(un ? bb + bo[k] : qb + qo[k], al);\n"
"    }\n"
"    for (uint k = 0; k < HST_RUN_K; ++k) {\n"
"      if (bo[k] == ~0UL) continue;\n"
"      if (un) hst_halo_vst(qb + qo[k], al, w[k]);\n"
"      else hst_halo_vst(bb + bo[k], al, hst_halo_vop(w[k], es, op));\n"
"    }\n"
"  }\n"
"}\n";

static const char hst__halo_src_kernels[] =
"/* one work-group: find its band and slot once, pick the quantity once, move the slot's part */\n"
"void hst_halo_group(__global uchar *buf, __global uchar *p, __global const ulong *d, ulong t,\n"
"                    __local ulong *tile, uint un)\n"
"{\n"
"  uint es = (uint)d[11], mode = (uint)d[13];\n"
"  if (mode == 2u || es == 16u) { hst_halo_wide(d, t, buf, p, un); return; }\n"
"  __global uchar *qb = p + (long)d[1] * (long)es, *bb = buf + d[0];\n"
"  if (mode == 3u) hst_halo_runs(d, t, bb, qb, un);\n"
"  else if (mode == 1u) hst_halo_tiled(d, (uint)t, bb, qb, tile, un);\n"
"  else hst_halo_direct(d, (uint)t, bb, qb, un);\n"
"}\n"
"#define HST_HALO_KERNEL(name, un) \\\n"
"__kernel void name(__global const ulong *table, ulong prefix_at, ulong desc_at, ulong nbands, \\\n"
"                   ulong total, __global uchar *buf HST_HQALL) \\\n"
"{ \\\n"
"  __local ulong tile[HST_TILE_WORDS]; \\\n"
"  ulong g = get_group_id(0); \\\n"
"  if (g >= total) return; \\\n"
"  __global const ulong *prefix = table + prefix_at, *band = prefix + nbands + 1; \\\n"
"  ulong b = hst_halo_find(prefix, nbands, g), o = g - prefix[b], k = band[2 * b + 1]; \\\n"
"  ulong s = band[2 * b] + o % k; \\\n"
"  __global const ulong *d = table + desc_at + s * HST_DW; \\\n"
"  uint qi = (uint)d[10]; \\\n"
"  __global uchar *p = q0; \\\n"
"  HST_HSALL \\\n"
"  hst_halo_group(buf, p, d, o / k, tile, un); \\\n"
"}\n"
"HST_HALO_KERNEL(hst_k_halo_pack, 0u)\n"
"HST_HALO_KERNEL(hst_k_halo_unpack, 1u)\n";

HST__PIECE_FITS(halo_args, hst__halo_src_args);
HST__PIECE_FITS(halo_helpers, hst__halo_src_helpers);
HST__PIECE_FITS(halo_modes, hst__halo_src_modes);
HST__PIECE_FITS(halo_runs, hst__halo_src_runs);
HST__PIECE_FITS(halo_kernels, hst__halo_src_kernels);
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
                                  HST_K_HALO_D_BS_O == 29 && HST_K_HALO_D_LOG_G == 31 &&
                                  HST_K_HALO_DESC_WORDS == 32 &&
                                  HST_K_HALO_CHUNK == 1024 && HST_K_HALO_TILE_WORDS == 1536 &&
                                  HST_K_HALO_OP_FLIP_SIGN == 1 && HST_K_HALO_OP_NEGATE_INT == 2 &&
                                  HST_K_HALO_MODE_TILED == 1 && HST_K_HALO_MODE_WIDE == 2 &&
                                  HST_K_HALO_MODE_RUNS == 3 && HST_K_HALO_D_RUN_VPR == 16 &&
                                  HST_K_HALO_D_RUN_G == 17 && HST_K_HALO_D_RUN_ALIGNED == 18 &&
                                  HST_K_HALO_MAX_QUANTITIES == 64) ? 1 : -1];

static const char *const hst__halo_src[] = { hst__halo_src_args, hst__halo_src_helpers,
                                             hst__halo_src_modes, hst__halo_src_runs,
                                             hst__halo_src_kernels };

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

HST__KDEF const char *hst_kernels_halo_options(size_t num_quantities)
{
    static const char *const options[] = {
        "-DHST_HALO_NQ=8", "-DHST_HALO_NQ=16", "-DHST_HALO_NQ=24", "-DHST_HALO_NQ=32",
        "-DHST_HALO_NQ=40", "-DHST_HALO_NQ=48", "-DHST_HALO_NQ=56", "-DHST_HALO_NQ=64"
    };
    if (num_quantities == 0 || num_quantities > HST_K_HALO_MAX_QUANTITIES) return NULL;
    return options[(num_quantities - 1) / 8];
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

/* >>quality kernels */

/* The quality program (see the declarations): pieces of at most 4095 characters, checked below.
   OpenCL C, one source line per literal line; the host twins below follow it line by line. */
static const char hst__quality_src_map[] =
"/* halostream quality program (kernels.h): no build options */\n"
"/* scipy.ndimage's 'reflect' (d c b a | a b c d | d c b a) for any offset (2 n <= INT_MAX) */\n"
"int hst_q_reflect(int i, int n) {\n"
"    int p = 2 * n, m = i % p;\n"
"    if (m < 0) m += p;\n"
"    return m < n ? m : p - 1 - m;\n"
"}\n"
"/* one axis of a Gaussian blur: dst = correlate(src, w) along axis (0: rows, 1: cols); the\n"
"   taps in order j = -radius .. radius, reflected only where the window leaves the line */\n"
"__kernel void hst_k_quality_blur(__global const float *src, __global float *dst,\n"
"                         __global const float *w, int radius, int rows, int cols, int axis) {\n"
"    int x = get_global_id(0), y = get_global_id(1), j, n = axis == 0 ? rows : cols;\n"
"    int p = axis == 0 ? y : x;\n"
"    size_t step = axis == 0 ? (size_t)cols : 1;\n"
"    __global const float *s;\n"
"    float acc = 0.0f;\n"
"    if (x >= cols || y >= rows) return;\n"
"    s = src + (axis == 0 ? (size_t)x : (size_t)y * cols);\n"
"    if (p - radius >= 0 && p + radius < n)\n"
"        for (j = -radius; j <= radius; j++) acc = fma(w[j + radius], s[(p + j) * step], acc);\n"
"    else\n"
"        for (j = -radius; j <= radius; j++)\n"
"            acc = fma(w[j + radius], s[hst_q_reflect(p + j, n) * step], acc);\n"
"    dst[(size_t)y * cols + x] = acc;\n"
"}\n"
"/* Work-item i of g sums b, b^2 and b r over elements i, i + g, i + 2 g, .. in order into\n"
"   part[i][3] (coalesced; the order is fixed by g, not by the device) */\n"
"__kernel void hst_k_quality_moments(__global const float *b, __global const float *r,\n"
"                            __global float *part, ulong n, uint g) {\n"
"    size_t i = get_global_id(0), j;\n"
"    float s = 0.0f, ss = 0.0f, sr = 0.0f;\n"
"    if (i >= g) return;\n"
"    for (j = i; j < n; j += g) {\n"
"        float v = b[j];\n"
"        s += v; ss = fma(v, v, ss); sr = fma(v, r[j], sr);\n"
"    }\n"
"    part[3 * i] = s; part[3 * i + 1] = ss; part[3 * i + 2] = sr;\n"
"}\n"
"/* e = |alpha b + beta - r| */\n"
"__kernel void hst_k_quality_error_map(__global const float *b, __global const float *r,\n"
"                              __global float *e, float alpha, float beta, ulong n) {\n"
"    size_t i = get_global_id(0);\n"
"    if (i < n) e[i] = fabs(fma(alpha, b[i], beta) - r[i]);\n"
"}\n";

static const char hst__quality_src_fourier[] =
"/* The Fourier interpolation's spectrum (NanoPyx's fht_space_interpolation): dst (mp, mp)\n"
"   unshifted holds src's frequencies (src: the r2c hw spectrum of a p x p image) at the\n"
"   fftshifted placement NanoPyx gives them, zero elsewhere. */\n"
"__kernel void hst_k_quality_fourier_pad(__global const float2 *src, __global float2 *dst,\n"
"                                int p, int mp) {\n"
"    int u = get_global_id(0), v = get_global_id(1), roi = (mp - p) / 2, hw = p / 2 + 1;\n"
"    int ju, jv, fu, fv;\n"
"    float2 z = (float2)(0.0f, 0.0f);\n"
"    if (u >= mp || v >= mp) return;\n"
"    ju = (u + mp / 2) % mp - roi;\n"
"    jv = (v + mp / 2) % mp - roi;\n"
"    if (ju >= 0 && ju < p && jv >= 0 && jv < p) {\n"
"        fu = ((ju - p / 2) % p + p) % p;\n"
"        fv = ((jv - p / 2) % p + p) % p;\n"
"        if (fu < hw) z = src[(size_t)fv * hw + fu];\n"
"        else { z = src[(size_t)((p - fv) % p) * hw + (p - fu)]; z.y = -z.y; }\n"
"    }\n"
"    dst[(size_t)v * mp + u] = z;\n"
"}\n"
"/* dst (rows, cols) = (src[y0 + y][x0 + x] - lo) scale + base, src (mp, mp) */\n"
"__kernel void hst_k_quality_crop_rescale(__global const float *src, __global float *dst, int mp,\n"
"                                 int rows, int cols, int y0, int x0, float lo, float scale,\n"
"                                 float base) {\n"
"    int x = get_global_id(0), y = get_global_id(1);\n"
"    if (x >= cols || y >= rows) return;\n"
"    dst[(size_t)y * cols + x] = fma(src[(size_t)(y + y0) * mp + x + x0] - lo, scale, base);\n"
"}\n";

static const char hst__quality_src_frc[] =
"/* The FRC products (Re F1 F2*, |F1|^2, |F2|^2) at shifted position (y, x) of an s x s\n"
"   spectrum held as r2c halves (the products are the same at -k). */\n"
"float3 hst_q_frc_at(__global const float2 *f1, __global const float2 *f2, int s, int y,\n"
"                    int x) {\n"
"    int hw = s / 2 + 1, ky = (y + s / 2) % s, kx = (x + s / 2) % s;\n"
"    float2 a, b;\n"
"    size_t i;\n"
"    if (kx >= hw) { kx = s - kx; ky = (s - ky) % s; }\n"
"    i = (size_t)ky * hw + kx;\n"
"    a = f1[i]; b = f2[i];\n"
"    return (float3)(a.x * b.x + a.y * b.y, a.x * a.x + a.y * a.y, b.x * b.x + b.y * b.y);\n"
"}\n"
"/* Ring r's samples [c chunk, (c + 1) chunk) of count[r], at angles i step[r] (NanoPyx's\n"
"   _calculate_frc_value), bilinearly interpolated products summed into part[r][c][3]. */\n"
"__kernel void hst_k_quality_frc_partial(__global const float2 *f1, __global const float2 *f2,\n"
"                                __global const int *count, __global const float *step,\n"
"                                __global float *part, int s, int max_r, int chunk,\n"
"                                int nchunks) {\n"
"    int c = get_global_id(0), r = get_global_id(1), i, end;\n"
"    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;\n"
"    if (c >= nchunks || r >= max_r) return;\n"
"    end = min(count[r], (c + 1) * chunk);\n"
"    for (i = c * chunk; i < end; i++) {\n"
"        float angle = (float)i * step[r], ca = cos(angle), sa = sqrt(1.0f - ca * ca);\n"
"        float x = (float)(max_r + 1) + (float)r * ca, y, xf, yf;\n"
"        int xb, yb;\n"
"        float3 ll, lr, ul, ur, lo, up, v;\n"
"        if (angle > M_PI_F) sa = -sa;\n"
"        y = (float)(max_r + 1) + (float)r * sa;\n"
"        xb = (int)x; yb = (int)y;\n"
"        xf = fmax(x - (float)xb, 0.0f); yf = fmax(y - (float)yb, 0.0f);\n"
"        ll = hst_q_frc_at(f1, f2, s, yb, xb); lr = hst_q_frc_at(f1, f2, s, yb, xb + 1);\n"
"        ul = hst_q_frc_at(f1, f2, s, yb + 1, xb); ur = hst_q_frc_at(f1, f2, s, yb + 1, xb + 1);\n"
"        up = ul + xf * (ur - ul);\n"
"        lo = ll + xf * (lr - ll);\n"
"        v = lo + yf * (up - lo);\n"
"        s0 += v.x; s1 += v.y; s2 += v.z;\n"
"    }\n"
"    part[((size_t)r * nchunks + c) * 3 + 0] = s0;\n"
"    part[((size_t)r * nchunks + c) * 3 + 1] = s1;\n"
"    part[((size_t)r * nchunks + c) * 3 + 2] = s2;\n"
"}\n"
"/* ring[r][k] = sum over chunks c in order of part[r][c][k] */\n"
"__kernel void hst_k_quality_frc_rings(__global const float *part, __global float *ring, int max_r,\n"
"                              int nchunks) {\n"
"    int r = get_global_id(0), c, k;\n"
"    if (r >= max_r) return;\n"
"    for (k = 0; k < 3; k++) {\n"
"        float s = 0.0f;\n"
"        for (c = 0; c < nchunks; c++) s += part[((size_t)r * nchunks + c) * 3 + k];\n"
"        ring[r * 3 + k] = s;\n"
"    }\n"
"}\n";

static const char hst__quality_src_decorr[] =
"/* Decorrelation, one shifted column x of an n x n spectrum (r2c halves): norm[x] = sum of\n"
"   |F|^2 inside the inscribed circle; part[x][d] and part[x][nr + d] = sums of |F| and of\n"
"   |F / |F||^2 over ring d (NanoPyx's _get_corr_coef_ring window and hw plane). */\n"
"#define HST_Q_MAX_NR 128\n"
"__kernel void hst_k_quality_decorr_cols(__global const float2 *f, __global float *part,\n"
"                                __global float *norm, int n, int nr, float crmin,\n"
"                                float crmax, int ox, int w, int oy, int h, int zero_dc) {\n"
"    int x = get_global_id(0), y, d, hw = n / 2 + 1;\n"
"    float bins[2 * HST_Q_MAX_NR], cn = 0.0f;\n"
"    long limit = (long)n * n / 2 + n / 2;\n"
"    if (x >= n) return;\n"
"    for (d = 0; d < 2 * nr; d++) bins[d] = 0.0f;\n"
"    for (y = 0; y < n; y++) {\n"
"        int ky = (y + n / 2) % n, kx = (x + n / 2) % n, dy = y - n / 2, dx = x - n / 2;\n"
"        float2 z;\n"
"        if (kx >= hw) { kx = n - kx; ky = (n - ky) % n; }\n"
"        z = f[(size_t)ky * hw + kx];\n"
"        if (zero_dc && dx == 0 && dy == 0) z = (float2)(0.0f, 0.0f);\n"
"        if ((long)dy * dy + (long)dx * dx < (long)n * n / 4) cn += z.x * z.x + z.y * z.y;\n"
"        if (x >= ox && x < ox + w && y >= oy && y < oy + h && (long)x * n + y <= limit) {\n"
"            float dist = sqrt(4.0f * (float)(dx * dx + dy * dy) / (float)((long)n * n));\n"
"            if (dist <= crmax) {\n"
"                float mag = sqrt(z.x * z.x + z.y * z.y), nx = 0.0f, ny = 0.0f;\n"
"                dist = (dist - crmin) / (crmax - crmin) * (float)(nr - 1);\n"
"                d = (int)round(fmax(dist, 0.0f));\n"
"                if (mag != 0.0f) { nx = z.x / mag; ny = z.y / mag; }\n"
"                if (d < nr) {\n"
"                    bins[d] += z.x * nx + z.y * ny;\n"
"                    bins[d + nr] += nx * nx + ny * ny;\n"
"                }\n"
"            }\n"
"        }\n"
"    }\n"
"    for (d = 0; d < 2 * nr; d++) part[(size_t)x * 2 * nr + d] = bins[d];\n"
"    norm[x] = cn;\n"
"}\n"
"/* f = f0 (1 - g(ky) g(kx)) on r2c halves: the factor as h(ky) + h(kx) g(ky), hg[k] = (h, g) */\n"
"__kernel void hst_k_quality_decorr_highpass(__global const float2 *f0, __global float2 *f,\n"
"                                    __global const float2 *hg, int n) {\n"
"    int kx = get_global_id(0), ky = get_global_id(1), hw = n / 2 + 1;\n"
"    size_t i = (size_t)ky * hw + kx;\n"
"    if (kx >= hw || ky >= n) return;\n"
"    f[i] = f0[i] * fma(hg[kx].x, hg[ky].y, hg[ky].x);\n"
"}\n";

static const char hst__quality_src_dct[] =
"/* The error map's 2-D DCT-II around an r2c FFT (Makhoul 1980); see the host twins */\n"
"int hst_q_pack(int m, int n) { return 2 * m < n ? 2 * m : 2 * n - 1 - 2 * m; }\n"
"__kernel void hst_k_quality_dct_pack(__global const float *src, __global float *dst, int rows,\n"
"                             int cols) {\n"
"    int x = get_global_id(0), y = get_global_id(1);\n"
"    if (x >= cols || y >= rows) return;\n"
"    dst[(size_t)y * cols + x] = src[(size_t)hst_q_pack(y, rows) * cols + hst_q_pack(x, cols)];\n"
"}\n"
"/* V[k1][k2] of the full DFT from the r2c half (rows, hw) */\n"
"float2 hst_q_full(__global const float2 *spec, int k1, int k2, int rows, int cols) {\n"
"    int hw = cols / 2 + 1;\n"
"    float2 z;\n"
"    if (k2 < hw) return spec[(size_t)k1 * hw + k2];\n"
"    z = spec[(size_t)((rows - k1) % rows) * hw + (cols - k2)];\n"
"    return (float2)(z.x, -z.y);\n"
"}\n"
"__kernel void hst_k_quality_dct_unpack(__global const float2 *spec, __global float *dst,\n"
"                               __global const float2 *tr, __global const float2 *tc,\n"
"                               int rows, int cols) {\n"
"    int x = get_global_id(0), y = get_global_id(1);\n"
"    float2 a, b, t1, t2;\n"
"    float re, im;\n"
"    if (x >= cols || y >= rows) return;\n"
"    a = hst_q_full(spec, y, x, rows, cols);\n"
"    b = hst_q_full(spec, y, (cols - x) % cols, rows, cols);\n"
"    t1 = tr[y]; t2 = tc[x];\n"
"    re = fma(t2.x, a.x + b.x, t2.y * (a.y - b.y));\n"
"    im = fma(t2.x, a.y + b.y, -(t2.y * (a.x - b.x)));\n"
"    dst[(size_t)y * cols + x] = fma(t1.x, re, t1.y * im);\n"
"}\n"
"/* Work-item (i, k) of (g, images) sums image k's v^2 and v r, v = gr[k1] gc[k2] s[j], over\n"
"   j = i, i + g, .. in order (the DC term left out) into part's rows 2 k, 2 k + 1 (k < kend);\n"
"   image k's coefficients at s + k sstride, its gains at gains + k gstride (gr, then gc\n"
"   rstride on) */\n"
"__kernel void hst_k_quality_dct_moments(__global const float *s, __global const float *r,\n"
"                                __global const float *gains, __global float *part, int rows,\n"
"                                int cols, uint g, ulong sstride, ulong gstride,\n"
"                                ulong rstride, ulong pstride, ulong kend) {\n"
"    size_t i = get_global_id(0), k = get_global_id(1), n = (size_t)rows * cols, j;\n"
"    __global const float *gr = gains + k * gstride, *gc = gr + rstride;\n"
"    int k1, k2, d1 = (int)(g / (uint)cols), d2 = (int)(g % (uint)cols);\n"
"    float ss = 0.0f, sr = 0.0f;\n"
"    if (i >= g || k >= kend) return;\n"
"    s += k * sstride;\n"
"    k1 = (int)(i / (size_t)cols); k2 = (int)(i % (size_t)cols);\n"
"    for (j = i; j < n; j += g) {\n"
"        float v = gr[k1] * gc[k2] * s[j];\n"
"        if (j > 0) { ss = fma(v, v, ss); sr = fma(v, r[j], sr); }\n"
"        k1 += d1; k2 += d2;\n"
"        if (k2 >= cols) { k2 -= cols; k1++; }\n"
"    }\n"
"    part[2 * k * pstride + i] = ss; part[(2 * k + 1) * pstride + i] = sr;\n"
"}\n";

static const char hst__quality_src_sums[] =
"/* out[i], i = k h + c < n: Kahan sum over j = c, c + h, .. < g of part[k stride + j]. The\n"
"   terms are loaded 32 at a time before they are added (in order): the adds wait on one\n"
"   another, the loads need not, so a work-item has 32 loads in flight, not one. Whole blocks\n"
"   load unconditionally (a CPU device vectorises them); the last terms go one by one */\n"
"#define HST_Q_SUMS_LOADS 32\n"
"__kernel void hst_k_quality_partial_sums(__global const float *part, __global float *out,\n"
"                                 uint g, uint h, ulong n, ulong stride) {\n"
"    size_t i = get_global_id(0), k = i / h, c = i % h, j;\n"
"    __global const float *p = part + k * stride;\n"
"    float s = 0.0f, e = 0.0f, v[HST_Q_SUMS_LOADS];\n"
"    int u;\n"
"    if (i >= n) return;\n"
"    for (j = c; j + (HST_Q_SUMS_LOADS - 1) * (size_t)h < g; j += HST_Q_SUMS_LOADS * (size_t)h) {\n"
"#pragma unroll\n"
"        for (u = 0; u < HST_Q_SUMS_LOADS; u++) v[u] = p[j + u * (size_t)h];\n"
"#pragma unroll\n"
"        for (u = 0; u < HST_Q_SUMS_LOADS; u++) {\n"
"            float y = v[u] - e, t = s + y;\n"
"            e = (t - s) - y;\n"
"            s = t;\n"
"        }\n"
"    }\n"
"    for (; j < g; j += h) {   /* the last terms, fewer than HST_Q_SUMS_LOADS */\n"
"        float y = p[j] - e, t = s + y;\n"
"        e = (t - s) - y;\n"
"        s = t;\n"
"    }\n"
"    out[i] = s;\n"
"}\n";

/* Last in the program: its pragma holds to the end of the source. */
static const char hst__quality_src_gains[] =
"/* Image k's gain at frequency f of the rows (i < rows) or columns: t_0 + 2 sum t_j cos(pi f j\n"
"   / n), in double, each product and sum rounded once as the twin's */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#ifdef HST_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"__kernel void hst_k_quality_gains(__global const float *w, __global const int *radius,\n"
"                                  __global const double *cos_r, __global const double *cos_c,\n"
"                                  __global float *gains, int rows, int cols, ulong wstride,\n"
"                                  ulong gstride, ulong rstride, ulong kend) {\n"
"    size_t i = get_global_id(0), k = get_global_id(1), m = 0, n = (size_t)rows, f = i;\n"
"    __global const float *t = w + k * wstride;\n"
"    __global const double *c = cos_r;\n"
"    __global float *g = gains + k * gstride;\n"
"    double acc = 0.0;\n"
"    int j;\n"
"    if (i >= (size_t)rows + (size_t)cols || k >= kend) return;\n"
"    if (i >= (size_t)rows) { n = (size_t)cols; f = i - (size_t)rows; c = cos_c; g += rstride; }\n"
"    for (j = 1; j <= radius[k]; j++) {\n"
"        m += f;\n"
"        if (m >= 2 * n) m -= 2 * n;\n"
"        acc += (double)t[j] * c[m];\n"
"    }\n"
"    g[f] = (float)(t[0] + 2.0 * acc);\n"
"}\n"
"#endif\n";

HST__PIECE_FITS(q_map, hst__quality_src_map);
HST__PIECE_FITS(q_gains, hst__quality_src_gains);
HST__PIECE_FITS(q_sums, hst__quality_src_sums);
HST__PIECE_FITS(q_fourier, hst__quality_src_fourier);
HST__PIECE_FITS(q_frc, hst__quality_src_frc);
HST__PIECE_FITS(q_decorr, hst__quality_src_decorr);
HST__PIECE_FITS(q_dct, hst__quality_src_dct);
/* The device source hard-codes the decorrelation's ring limit. */
typedef char hst__check_quality_abi[(HST_K_QUALITY_MAX_NR == 128) ? 1 : -1];

static const char *const hst__quality_src[] = { hst__quality_src_map, hst__quality_src_fourier,
                                                hst__quality_src_frc, hst__quality_src_decorr,
                                                hst__quality_src_dct, hst__quality_src_sums,
                                                hst__quality_src_gains };

#define HST__QUALITY_PI_F ((float)(HST__TWO_PI / 2.0))   /* the device's M_PI_F */

HST__KDEF const char *const *hst_kernels_quality_source(size_t *count)
{
    if (count) *count = sizeof hst__quality_src / sizeof hst__quality_src[0];
    return hst__quality_src;
}

/* scipy.ndimage's 'reflect', as the device's hst_q_reflect. */
HST__KPRIVATE int hst__quality_reflect(int i, int n) {
    int p = 2 * n, m = i % p;
    if (m < 0) m += p;
    return m < n ? m : p - 1 - m;
}

/* Along rows (axis 0) it accumulates whole output rows, tap by tap, so it
   reads rows in memory order; each pixel still takes its taps in the kernel's order. */
HST__KDEF void hst_k_quality_blur_host(const float *src, float *dst, const float *w, int radius, int rows,
                             int cols, int axis) {
    int x, y, j;
    for (y = 0; y < rows; y++) {
        float *o = dst + (size_t)y * cols;
        if (axis == 0) {
            for (x = 0; x < cols; x++) o[x] = 0.0f;
            for (j = -radius; j <= radius; j++) {
                const float *s = src + (size_t)hst__quality_reflect(y + j, rows) * cols;
                float wj = w[j + radius];
                for (x = 0; x < cols; x++) o[x] = fmaf(wj, s[x], o[x]);
            }
            continue;
        }
        for (x = 0; x < cols; x++) {
            const float *s = src + (size_t)y * cols;
            float acc = 0.0f;
            if (x - radius >= 0 && x + radius < cols)
                for (j = -radius; j <= radius; j++) acc = fmaf(w[j + radius], s[x + j], acc);
            else
                for (j = -radius; j <= radius; j++)
                    acc = fmaf(w[j + radius], s[hst__quality_reflect(x + j, cols)], acc);
            o[x] = acc;
        }
    }
}

HST__KDEF void hst_k_quality_moments_host(const float *b, const float *r, float *part, size_t n,
                                uint32_t g) {
    size_t i, j;
    for (i = 0; i < g; i++) {
        float sum = 0.0f, ss = 0.0f, sr = 0.0f;
        for (j = i; j < n; j += g) {
            float v = b[j];
            sum += v; ss = fmaf(v, v, ss); sr = fmaf(v, r[j], sr);
        }
        part[3 * i] = sum; part[3 * i + 1] = ss; part[3 * i + 2] = sr;
    }
}

HST__KDEF void hst_k_quality_error_map_host(const float *b, const float *r, float *e, float alpha,
                                  float beta, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) e[i] = fabsf(fmaf(alpha, b[i], beta) - r[i]);
}

HST__KDEF void hst_k_quality_fourier_pad_host(const float *src, float *dst, int p, int mp) {
    int u, v, roi = (mp - p) / 2, half = p / 2 + 1;
    for (v = 0; v < mp; v++)
        for (u = 0; u < mp; u++) {
            int ju = (u + mp / 2) % mp - roi, jv = (v + mp / 2) % mp - roi;
            float zr = 0.0f, zi = 0.0f;
            if (ju >= 0 && ju < p && jv >= 0 && jv < p) {
                int fu = ((ju - p / 2) % p + p) % p, fv = ((jv - p / 2) % p + p) % p;
                size_t i = fu < half ? (size_t)fv * half + fu
                                     : (size_t)((p - fv) % p) * half + (p - fu);
                zr = src[2 * i];
                zi = fu < half ? src[2 * i + 1] : -src[2 * i + 1];
            }
            dst[2 * ((size_t)v * mp + u)] = zr;
            dst[2 * ((size_t)v * mp + u) + 1] = zi;
        }
}

HST__KDEF void hst_k_quality_crop_rescale_host(const float *src, float *dst, int mp, int rows, int cols,
                                     int y0, int x0, float lo, float scale, float base) {
    int x, y;
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++)
            dst[(size_t)y * cols + x] =
                fmaf(src[(size_t)(y + y0) * mp + x + x0] - lo, scale, base);
}

HST__KPRIVATE void hst__quality_frc_at(const float *f1, const float *f2, int s, int y, int x, float v[3]) {
    int half = s / 2 + 1, ky = (y + s / 2) % s, kx = (x + s / 2) % s;
    size_t i;
    float ar, ai, br, bi;
    if (kx >= half) { kx = s - kx; ky = (s - ky) % s; }
    i = (size_t)ky * half + kx;
    ar = f1[2 * i]; ai = f1[2 * i + 1]; br = f2[2 * i]; bi = f2[2 * i + 1];
    v[0] = ar * br + ai * bi; v[1] = ar * ar + ai * ai; v[2] = br * br + bi * bi;
}

HST__KDEF void hst_k_quality_frc_partial_host(const float *f1, const float *f2, const int *count,
                                    const float *step, float *part, int s, int max_r, int chunk,
                                    int nchunks) {
    int c, r, i, k;
    for (r = 0; r < max_r; r++)
        for (c = 0; c < nchunks; c++) {
            int end = count[r] < (c + 1) * chunk ? count[r] : (c + 1) * chunk;
            float sum[3] = {0.0f, 0.0f, 0.0f};
            for (i = c * chunk; i < end; i++) {
                float angle = (float)i * step[r], ca = (float)cos(angle);
                float sa = (float)sqrt(1.0f - ca * ca), x, y, xf, yf;
                float ll[3], lr[3], ul[3], ur[3];
                int xb, yb;
                if (angle > HST__QUALITY_PI_F) sa = -sa;
                x = (float)(max_r + 1) + (float)r * ca;
                y = (float)(max_r + 1) + (float)r * sa;
                xb = (int)x; yb = (int)y;
                xf = fmaxf(x - (float)xb, 0.0f); yf = fmaxf(y - (float)yb, 0.0f);
                hst__quality_frc_at(f1, f2, s, yb, xb, ll);
                hst__quality_frc_at(f1, f2, s, yb, xb + 1, lr);
                hst__quality_frc_at(f1, f2, s, yb + 1, xb, ul);
                hst__quality_frc_at(f1, f2, s, yb + 1, xb + 1, ur);
                for (k = 0; k < 3; k++) {
                    float up = ul[k] + xf * (ur[k] - ul[k]), lo = ll[k] + xf * (lr[k] - ll[k]);
                    sum[k] += lo + yf * (up - lo);
                }
            }
            for (k = 0; k < 3; k++) part[((size_t)r * nchunks + c) * 3 + k] = sum[k];
        }
}

HST__KDEF void hst_k_quality_frc_rings_host(const float *part, float *ring, int max_r, int nchunks) {
    int r, c, k;
    for (r = 0; r < max_r; r++)
        for (k = 0; k < 3; k++) {
            float s = 0.0f;
            for (c = 0; c < nchunks; c++) s += part[((size_t)r * nchunks + c) * 3 + k];
            ring[r * 3 + k] = s;
        }
}

/* Row by row (the spectrum in memory order, not a column's stride of n / 2 + 1 elements per
   step: 10x fewer cache misses at 2048 x 2048), each column's sums still taken in y order, as
   the kernel's work-item x takes them. */
HST__KDEF void hst_k_quality_decorr_cols_host(const float *f, float *part, float *norm, int n, int nr,
                                    float crmin, float crmax, int ox, int w, int oy, int h,
                                    int zero_dc) {
    int x, y, d, half = n / 2 + 1;
    long limit = (long)n * n / 2 + n / 2;
    for (x = 0; x < n; x++) {
        for (d = 0; d < 2 * nr; d++) part[(size_t)x * 2 * nr + d] = 0.0f;
        norm[x] = 0.0f;
    }
    for (y = 0; y < n; y++)
        for (x = 0; x < n; x++) {
            float *bins = part + (size_t)x * 2 * nr;
            int ky = (y + n / 2) % n, kx = (x + n / 2) % n, dy = y - n / 2, dx = x - n / 2;
            float zr, zi;
            if (kx >= half) { kx = n - kx; ky = (n - ky) % n; }
            zr = f[2 * ((size_t)ky * half + kx)]; zi = f[2 * ((size_t)ky * half + kx) + 1];
            if (zero_dc && dx == 0 && dy == 0) zr = zi = 0.0f;
            if ((long)dy * dy + (long)dx * dx < (long)n * n / 4) norm[x] += zr * zr + zi * zi;
            if (x >= ox && x < ox + w && y >= oy && y < oy + h && (long)x * n + y <= limit) {
                float dist = sqrtf(4.0f * (float)(dx * dx + dy * dy) / (float)((long)n * n));
                if (dist <= crmax) {
                    float mag = sqrtf(zr * zr + zi * zi), nx = 0.0f, ny = 0.0f;
                    dist = (dist - crmin) / (crmax - crmin) * (float)(nr - 1);
                    d = (int)roundf(fmaxf(dist, 0.0f));
                    if (mag != 0.0f) { nx = zr / mag; ny = zi / mag; }
                    if (d < nr) {
                        bins[d] += zr * nx + zi * ny;
                        bins[d + nr] += nx * nx + ny * ny;
                    }
                }
            }
        }
}

HST__KDEF void hst_k_quality_decorr_highpass_host(const float *f0, float *f, const float *hg, int n) {
    int kx, ky, hw = n / 2 + 1;
    for (ky = 0; ky < n; ky++)
        for (kx = 0; kx < hw; kx++) {
            size_t i = 2 * ((size_t)ky * hw + kx);
            float m = fmaf(hg[2 * kx], hg[2 * ky + 1], hg[2 * ky]);
            f[i] = f0[i] * m;
            f[i + 1] = f0[i + 1] * m;
        }
}

HST__KPRIVATE int hst__quality_pack(int m, int n) { return 2 * m < n ? 2 * m : 2 * n - 1 - 2 * m; }

HST__KDEF void hst_k_quality_dct_pack_host(const float *src, float *dst, int rows, int cols) {
    int x, y;
    for (y = 0; y < rows; y++) {
        const float *s = src + (size_t)hst__quality_pack(y, rows) * cols;
        for (x = 0; x < cols; x++) dst[(size_t)y * cols + x] = s[hst__quality_pack(x, cols)];
    }
}

/* V[k1][k2] of the full DFT from the r2c half, as the device's hst_q_full. */
HST__KPRIVATE void hst__quality_full(const float *spec, int k1, int k2, int rows, int cols,
                                     float z[2]) {
    int hw = cols / 2 + 1;
    size_t i = k2 < hw ? (size_t)k1 * hw + k2 : (size_t)((rows - k1) % rows) * hw + (cols - k2);
    z[0] = spec[2 * i];
    z[1] = k2 < hw ? spec[2 * i + 1] : -spec[2 * i + 1];
}

HST__KDEF void hst_k_quality_dct_unpack_host(const float *spec, float *dst, const float *tr,
                                   const float *tc, int rows, int cols) {
    int x, y;
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++) {
            float a[2], b[2], re, im;
            hst__quality_full(spec, y, x, rows, cols, a);
            hst__quality_full(spec, y, (cols - x) % cols, rows, cols, b);
            re = fmaf(tc[2 * x], a[0] + b[0], tc[2 * x + 1] * (a[1] - b[1]));
            im = fmaf(tc[2 * x], a[1] + b[1], -(tc[2 * x + 1] * (a[0] - b[0])));
            dst[(size_t)y * cols + x] = fmaf(tr[2 * y], re, tr[2 * y + 1] * im);
        }
}

HST__KDEF void hst_k_quality_dct_moments_host(const float *s, const float *r, const float *gains,
                                    float *part, int rows, int cols, uint32_t g,
                                    uint64_t sstride, uint64_t gstride, uint64_t rstride,
                                    uint64_t pstride, size_t k0, size_t k1) {
    size_t i, j, k, n = (size_t)rows * cols;
    int d1 = (int)(g / (uint32_t)cols), d2 = (int)(g % (uint32_t)cols);
    for (k = k0; k < k1; k++) {
        const float *sk = s + k * sstride, *gr = gains + k * gstride, *gc = gr + rstride;
        for (i = 0; i < g; i++) {
            int c1 = (int)(i / (size_t)cols), c2 = (int)(i % (size_t)cols);
            float ss = 0.0f, sr = 0.0f;
            for (j = i; j < n; j += g) {
                float v = gr[c1] * gc[c2] * sk[j];
                if (j > 0) { ss = fmaf(v, v, ss); sr = fmaf(v, r[j], sr); }
                c1 += d1; c2 += d2;
                if (c2 >= cols) { c2 -= cols; c1++; }
            }
            part[2 * k * pstride + i] = ss; part[(2 * k + 1) * pstride + i] = sr;
        }
    }
}

/* Each sum c takes its terms in the kernel's order; the twin walks part in memory order, the
   sums of a block of c side by side (the same operations on each sum, in the same order). */
#define HST__QUALITY_SUMS_BLOCK 256
HST__KDEF void hst_k_quality_partial_sums_host(const float *part, float *out, uint32_t g,
                                     uint32_t h, uint64_t stride, size_t k0, size_t k1) {
    float e[HST__QUALITY_SUMS_BLOCK];
    size_t k, c0, c, j, nb;
    for (k = k0; k < k1; k++)
        for (c0 = 0; c0 < h; c0 += nb) {
            const float *p = part + k * stride;
            float *s = out + k * h + c0;
            nb = h - c0 < HST__QUALITY_SUMS_BLOCK ? h - c0 : HST__QUALITY_SUMS_BLOCK;
            for (c = 0; c < nb; c++) { s[c] = 0.0f; e[c] = 0.0f; }
            for (j = c0; j < g; j += h)
                for (c = 0; c < nb && j + c < g; c++) {
                    float y = p[j + c] - e[c], t = s[c] + y;
                    e[c] = (t - s[c]) - y;
                    s[c] = t;
                }
        }
}

HST__KDEF void hst_k_quality_gains_host(const float *w, const int *radius, const double *cos_r,
                                      const double *cos_c, float *gains, int rows, int cols,
                                      uint64_t wstride, uint64_t gstride, uint64_t rstride,
                                      size_t k0, size_t k1) {
    size_t i, k, m, n, f;
    int j;
    for (k = k0; k < k1; k++)
        for (i = 0; i < (size_t)rows + (size_t)cols; i++) {
            const float *t = w + k * wstride;
            const double *c = i < (size_t)rows ? cos_r : cos_c;
            float *g = gains + k * gstride + (i < (size_t)rows ? 0 : rstride);
            double acc = 0.0;
            n = i < (size_t)rows ? (size_t)rows : (size_t)cols;
            f = i < (size_t)rows ? i : i - (size_t)rows;
            for (j = 1, m = 0; j <= radius[k]; j++) {
                m += f;
                if (m >= 2 * n) m -= 2 * n;
                acc += (double)t[j] * c[m];
            }
            g[f] = (float)(t[0] + 2.0 * acc);
        }
}

/* <<quality kernels */

/* >>nufft kernels */
#ifndef HST_NO_NUFFT_KERNELS   /* an embedder without nufft.h may drop this text */

/* The NUFFT program (see the declarations): pieces of at most 4095 characters, checked below.
   OpenCL C, one source line per literal line; the host twins below follow it line by line. */
static const char hst__nufft_src_common[] =
"/* halostream nufft program (kernels.h): -D HST_NU_W0=w0 -D HST_NU_W=w -D HST_NU_DEG=d */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"/* the kernel's w taps from its polynomials (Horner in z = 2 off + w - 1) */\n"
"void hst_nu_taps(__global const float *coef, float off, int w, float *v) {\n"
"    float z = 2.0f * off + (float)(w - 1);\n"
"    for (int t = 0; t < w; t++) {\n"
"        float p = coef[t];\n"
"        for (int k = 1; k <= HST_NU_DEG; k++) p = p * z + coef[k * 8 + t];\n"
"        v[t] = p;\n"
"    }\n"
"}\n"
"/* x mod n for x in [-n, 2 n) (interp), and for any x (a tile's flush) */\n"
"int hst_nu_wrap(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }\n"
"int hst_nu_mod(int x, int n) { int r = x % n; return r < 0 ? r + n : r; }\n"
"/* float atomic add by compare-and-swap (OpenCL 1.2 has no float atomics) */\n"
"void hst_nu_add_local(volatile __local float *p, float v) {\n"
"    uint old = as_uint(*p), seen;\n"
"    while ((seen = atomic_cmpxchg((volatile __local uint *)p, old,\n"
"                                  as_uint(as_float(old) + v))) != old) old = seen;\n"
"}\n"
"void hst_nu_add_global(volatile __global float *p, float v) {\n"
"    uint old = as_uint(*p), seen;\n"
"    while ((seen = atomic_cmpxchg((volatile __global uint *)p, old,\n"
"                                  as_uint(as_float(old) + v))) != old) old = seen;\n"
"}\n"
"/* a mode's fine index along an axis (modeord 0: index i is frequency i - nm / 2) */\n"
"int hst_nu_fine(int i, int nm, int nf) { int k = i - nm / 2; return k < 0 ? k + nf : k; }\n"
"/* a fine index's mode index, -1 where the grid holds no mode */\n"
"int hst_nu_mode(int gi, int nm, int nf) {\n"
"    return gi <= (nm - 1) / 2 ? gi + nm / 2 : gi >= nf - nm / 2 ? gi - nf + nm / 2 : -1;\n"
"}\n";

static const char hst__nufft_src_spread[] =
"__kernel void hst_k_nufft_spread(__global const int *base, __global const float *off,\n"
"        __global const uint *perm, __global const float2 *c, __global const uint *sub_bin,\n"
"        __global const uint *sub_first, __global const uint *bin_start,\n"
"        __global float *grid, __local float *tile, uint m, int16 g, __global const float *coef) {\n"
"    uint s = get_group_id(0), lid = get_local_id(0), lsz = get_local_size(0);\n"
"    uint bin = sub_bin[s], first = sub_first[s];\n"
"    uint last = min(first + (uint)g.sf, bin_start[bin + 1]);\n"
"    int o0 = (int)bin / (g.s7 * g.s8) * g.s3 - g.sc;\n"
"    int o1 = (int)bin / g.s8 % g.s7 * g.s4 - g.sd, o2 = (int)bin % g.s8 * g.s5 - g.se;\n"
"    int l1 = g.s4 + 2 * g.sd, l2 = g.s5 + 2 * g.se, n = (g.s3 + 2 * g.sc) * l1 * l2;\n"
"    float k0[HST_NU_W0], k1[HST_NU_W], k2[HST_NU_W];\n"
"    for (int i = lid; i < n; i += lsz) { tile[2 * i] = 0.0f; tile[2 * i + 1] = 0.0f; }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for (uint j = first + lid; j < last; j += lsz) {\n"
"        float2 v = c[perm[j]];\n"
"        int i0 = base[j] - o0, i1 = base[m + j] - o1, i2 = base[2 * m + j] - o2;\n"
"        hst_nu_taps(coef + 0, off[j], HST_NU_W0, k0);\n"
"        hst_nu_taps(coef + (HST_NU_DEG + 1) * 8, off[m + j], HST_NU_W, k1);\n"
"        hst_nu_taps(coef + 2 * (HST_NU_DEG + 1) * 8, off[2 * m + j], HST_NU_W, k2);\n"
"        for (int a = 0; a < HST_NU_W0; a++)\n"
"            for (int b = 0; b < HST_NU_W; b++) {\n"
"                float kab = k0[a] * k1[b];\n"
"                __local float *row = tile + 2 * (((i0 + a) * l1 + i1 + b) * l2 + i2);\n"
"                for (int t = 0; t < HST_NU_W; t++) {\n"
"                    hst_nu_add_local(row + 2 * t, (v.x * k2[t]) * kab);\n"
"                    hst_nu_add_local(row + 2 * t + 1, (v.y * k2[t]) * kab);\n"
"                }\n"
"            }\n"
"    }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for (int i = lid; i < n; i += lsz) {\n"
"        float re = tile[2 * i], im = tile[2 * i + 1];\n"
"        int t0 = i / (l1 * l2), t1 = i / l2 % l1, t2 = i % l2;\n"
"        size_t gi;\n"
"        if (re == 0.0f && im == 0.0f) continue;\n"
"        gi = ((size_t)hst_nu_mod(o0 + t0, g.s0) * (size_t)g.s1 + (size_t)hst_nu_mod(o1 + t1, g.s1))\n"
"             * (size_t)g.s2 + (size_t)hst_nu_mod(o2 + t2, g.s2);\n"
"        hst_nu_add_global(grid + 2 * gi, re);\n"
"        hst_nu_add_global(grid + 2 * gi + 1, im);\n"
"    }\n"
"}\n";

static const char hst__nufft_src_interp[] =
"__kernel void hst_k_nufft_interp(__global const int *base, __global const float *off,\n"
"        __global const uint *perm, __global const float *grid, __global float2 *c, uint m,\n"
"        int16 g, __global const float *coef) {\n"
"    uint j = get_global_id(0);\n"
"    float k0[HST_NU_W0], k1[HST_NU_W], k2[HST_NU_W], acc[2 * HST_NU_W];\n"
"    float2 out = (float2)(0.0f, 0.0f);\n"
"    int b1, b2, wraps;\n"
"    if (j >= m) return;\n"
"    hst_nu_taps(coef + 0, off[j], HST_NU_W0, k0);\n"
"    hst_nu_taps(coef + (HST_NU_DEG + 1) * 8, off[m + j], HST_NU_W, k1);\n"
"    hst_nu_taps(coef + 2 * (HST_NU_DEG + 1) * 8, off[2 * m + j], HST_NU_W, k2);\n"
"    b1 = base[m + j]; b2 = base[2 * m + j];\n"
"    wraps = b2 < 0 || b2 + HST_NU_W > g.s2;\n"
"    for (int u = 0; u < 2 * HST_NU_W; u++) acc[u] = 0.0f;\n"
"    for (int a = 0; a < HST_NU_W0; a++)\n"
"        for (int b = 0; b < HST_NU_W; b++) {\n"
"            float kab = k0[a] * k1[b];\n"
"            size_t row = ((size_t)hst_nu_wrap(base[j] + a, g.s0) * (size_t)g.s1\n"
"                          + (size_t)hst_nu_wrap(b1 + b, g.s1)) * (size_t)g.s2;\n"
"            if (!wraps) {\n"
"                __global const float *r = grid + 2 * (row + (size_t)b2);\n"
"                for (int u = 0; u < 2 * HST_NU_W; u++) acc[u] += r[u] * kab;\n"
"            } else {\n"
"                for (int u = 0; u < 2 * HST_NU_W; u++)\n"
"                    acc[u] += grid[2 * (row + (size_t)hst_nu_wrap(b2 + u / 2, g.s2)) + u % 2] * kab;\n"
"            }\n"
"        }\n"
"    for (int t = 0; t < HST_NU_W; t++) {\n"
"        out.x += acc[2 * t] * k2[t];\n"
"        out.y += acc[2 * t + 1] * k2[t];\n"
"    }\n"
"    c[perm[j]] = out;\n"
"}\n";

static const char hst__nufft_src_modes[] =
"__kernel void hst_k_nufft_to_modes(__global const float2 *grid, __global float2 *f,\n"
"        __global const float *corr, int4 nf, int4 nm) {\n"
"    size_t i = get_global_id(0), n12 = (size_t)nm.y * (size_t)nm.z;\n"
"    int i0, i1, i2;\n"
"    if (i >= (size_t)nm.x * n12) return;\n"
"    i0 = (int)(i / n12); i1 = (int)(i / (size_t)nm.z % (size_t)nm.y); i2 = (int)(i % (size_t)nm.z);\n"
"    f[i] = grid[((size_t)hst_nu_fine(i0, nm.x, nf.x) * (size_t)nf.y\n"
"                 + (size_t)hst_nu_fine(i1, nm.y, nf.y)) * (size_t)nf.z\n"
"                + (size_t)hst_nu_fine(i2, nm.z, nf.z)]\n"
"           * ((corr[i0] * corr[nm.x + i1]) * corr[nm.x + nm.y + i2]);\n"
"}\n"
"__kernel void hst_k_nufft_to_grid(__global const float2 *f, __global float2 *grid,\n"
"        __global const float *corr, int4 nf, int4 nm) {\n"
"    size_t i = get_global_id(0), n12 = (size_t)nf.y * (size_t)nf.z;\n"
"    int i0, i1, i2;\n"
"    float2 v = (float2)(0.0f, 0.0f);\n"
"    if (i >= (size_t)nf.x * n12) return;\n"
"    i0 = hst_nu_mode((int)(i / n12), nm.x, nf.x);\n"
"    i1 = hst_nu_mode((int)(i / (size_t)nf.z % (size_t)nf.y), nm.y, nf.y);\n"
"    i2 = hst_nu_mode((int)(i % (size_t)nf.z), nm.z, nf.z);\n"
"    if (i0 >= 0 && i1 >= 0 && i2 >= 0)\n"
"        v = f[((size_t)i0 * (size_t)nm.y + (size_t)i1) * (size_t)nm.z + (size_t)i2]\n"
"            * ((corr[i0] * corr[nm.x + i1]) * corr[nm.x + nm.y + i2]);\n"
"    grid[i] = v;\n"
"}\n";

HST__PIECE_FITS(nu_common, hst__nufft_src_common);
HST__PIECE_FITS(nu_spread, hst__nufft_src_spread);
HST__PIECE_FITS(nu_interp, hst__nufft_src_interp);
HST__PIECE_FITS(nu_modes, hst__nufft_src_modes);

static const char *const hst__nufft_src[] = { hst__nufft_src_common, hst__nufft_src_spread,
                                              hst__nufft_src_interp, hst__nufft_src_modes };

HST__KDEF const char *const *hst_kernels_nufft_source(size_t *count)
{
    if (count) *count = sizeof hst__nufft_src / sizeof hst__nufft_src[0];
    return hst__nufft_src;
}

/* Points whose values spread's twin gathers before it spreads them: 64 loads in flight hide
   the random reads' cache misses (with the row-wise flush: 463 -> 181 ms for 10^6 points
   on 2 cores, 2-D, w 7). */
#define HST__NU_GATHER 64u

/* One Horner step on 8 lanes, p = p z + c, written out (HST_K_NUFFT_LANES is 8). */
#define HST__NU_HORNER(p, z, c) do {                                                        \
        p[0] = p[0] * (z) + (c)[0]; p[1] = p[1] * (z) + (c)[1]; p[2] = p[2] * (z) + (c)[2];  \
        p[3] = p[3] * (z) + (c)[3]; p[4] = p[4] * (z) + (c)[4]; p[5] = p[5] * (z) + (c)[5];  \
        p[6] = p[6] * (z) + (c)[6]; p[7] = p[7] * (z) + (c)[7];                              \
    } while (0)
/* acc[u] += r[u] s for the 16 floats (8 complex taps) of a row, written out likewise. */
#define HST__NU_AXPY16(acc, r, s) do {                                                      \
        acc[0] += (r)[0] * (s); acc[1] += (r)[1] * (s); acc[2] += (r)[2] * (s);              \
        acc[3] += (r)[3] * (s); acc[4] += (r)[4] * (s); acc[5] += (r)[5] * (s);              \
        acc[6] += (r)[6] * (s); acc[7] += (r)[7] * (s); acc[8] += (r)[8] * (s);              \
        acc[9] += (r)[9] * (s); acc[10] += (r)[10] * (s); acc[11] += (r)[11] * (s);          \
        acc[12] += (r)[12] * (s); acc[13] += (r)[13] * (s); acc[14] += (r)[14] * (s);        \
        acc[15] += (r)[15] * (s);                                                            \
    } while (0)
typedef char hst__check_nufft_lanes[(HST_K_NUFFT_LANES == 8) ? 1 : -1];

/* The kernel's taps along the three axes, HST_K_NUFFT_LANES per axis (the kernel's first w,
   by the kernel's operations). The three Horner chains run interleaved: one alone waits on its
   own multiply-add latency (3x slower on the host's interpolation). */
HST__KPRIVATE void hst__nu_taps(const float *coef, int deg, const int32_t *g, float off0,
                                float off1, float off2, float *k0, float *k1, float *k2) {
    float z0 = 2.0f * off0 + (float)(g[9] - 1), z1 = 2.0f * off1 + (float)(g[10] - 1);
    float z2 = 2.0f * off2 + (float)(g[11] - 1);
    float p0[HST_K_NUFFT_LANES], p1[HST_K_NUFFT_LANES], p2[HST_K_NUFFT_LANES];   /* no aliasing */
    const float *c1 = coef + (size_t)(deg + 1) * HST_K_NUFFT_LANES, *c2 = c1 + (size_t)(deg + 1) * HST_K_NUFFT_LANES;
    int k;
    memcpy(p0, coef, sizeof p0);
    memcpy(p1, c1, sizeof p1);
    memcpy(p2, c2, sizeof p2);
    for (k = 1; k <= deg; k++) {   /* lanes written out: the arrays stay in registers */
        HST__NU_HORNER(p0, z0, coef + k * HST_K_NUFFT_LANES);
        HST__NU_HORNER(p1, z1, c1 + k * HST_K_NUFFT_LANES);
        HST__NU_HORNER(p2, z2, c2 + k * HST_K_NUFFT_LANES);
    }
    memcpy(k0, p0, sizeof p0);
    memcpy(k1, p1, sizeof p1);
    memcpy(k2, p2, sizeof p2);
}

HST__KPRIVATE int hst__nu_wrap(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }
HST__KPRIVATE int hst__nu_mod(int x, int n) { int r = x % n; return r < 0 ? r + n : r; }
HST__KPRIVATE int hst__nu_fine(int i, int nm, int nf) { int k = i - nm / 2; return k < 0 ? k + nf : k; }
HST__KPRIVATE int hst__nu_mode(int gi, int nm, int nf) {
    return gi <= (nm - 1) / 2 ? gi + nm / 2 : gi >= nf - nm / 2 ? gi - nf + nm / 2 : -1;
}

/* One point's taps added into a tile: rows (a, b), each of w2 complex taps. */
HST__KPRIVATE void hst__nu_spread_point(float *tile, const float *k0, const float *k1,
                                        const float *k2, int w0, int w, int l1, int l2,
                                        int i0, int i1, int i2, float vr, float vi) {
    float kc[2 * HST_K_NUFFT_LANES];
    int a, b, u;
    for (u = 0; u < HST_K_NUFFT_LANES; u++) { kc[2 * u] = vr * k2[u]; kc[2 * u + 1] = vi * k2[u]; }
    for (a = 0; a < w0; a++)
        for (b = 0; b < w; b++) {
            float kab = k0[a] * k1[b];
            float *row = tile + 2 * (((size_t)(i0 + a) * (size_t)l1 + (size_t)(i1 + b)) * (size_t)l2 + (size_t)i2);
            for (u = 0; u < 2 * HST_K_NUFFT_LANES; u++) row[u] += kc[u] * kab;
        }
}

/* A subproblem's tile added into the periodic grid (its non-zero values), row by row. */
HST__KPRIVATE void hst__nu_flush(const float *tile, float *grid, const int32_t *g, int l1, int l2,
                                 int o0, int o1, int o2) {
    int l0 = g[3] + 2 * g[12], t0, t1, t2;
    for (t0 = 0; t0 < l0; t0++)
        for (t1 = 0; t1 < l1; t1++) {
            const float *row = tile + 2 * ((size_t)t0 * (size_t)l1 + (size_t)t1) * (size_t)l2;
            float *out = grid + 2 * ((size_t)hst__nu_mod(o0 + t0, g[0]) * (size_t)g[1] +
                                     (size_t)hst__nu_mod(o1 + t1, g[1])) * (size_t)g[2];
            int x = hst__nu_mod(o2, g[2]);
            for (t2 = 0; t2 < l2; t2++, x = x + 1 == g[2] ? 0 : x + 1) {
                if (row[2 * t2] == 0.0f && row[2 * t2 + 1] == 0.0f) continue;
                out[2 * x] += row[2 * t2];
                out[2 * x + 1] += row[2 * t2 + 1];
            }
        }
}

HST__KDEF void hst_k_nufft_spread_host(const int32_t *base, const float *off, const uint32_t *perm,
                                       const float *c, const uint32_t *sub_bin,
                                       const uint32_t *sub_first, const uint32_t *bin_start,
                                       float *grid, float *tile, uint32_t m, const int32_t g[16],
                                       const float *coef, int deg, uint32_t sub0, uint32_t sub1)
{
    float k0[HST_K_NUFFT_LANES], k1[HST_K_NUFFT_LANES], k2[HST_K_NUFFT_LANES];
    int l1 = g[4] + 2 * g[13], l2 = g[5] + 2 * g[14], n = (g[3] + 2 * g[12]) * l1 * l2;
    uint32_t s, j;
    for (s = sub0; s < sub1; s++) {
        uint32_t bin = sub_bin[s], first = sub_first[s], last = first + (uint32_t)g[15];
        int o0 = (int)bin / (g[7] * g[8]) * g[3] - g[12];
        int o1 = (int)bin / g[8] % g[7] * g[4] - g[13], o2 = (int)bin % g[8] * g[5] - g[14];
        if (last > bin_start[bin + 1]) last = bin_start[bin + 1];
        memset(tile, 0, (size_t)n * 2 * sizeof(float));
        for (j = first; j < last; j += HST__NU_GATHER) {
            float cv[2 * HST__NU_GATHER];
            uint32_t k, count = last - j < HST__NU_GATHER ? last - j : HST__NU_GATHER;
            for (k = 0; k < count; k++) {   /* the values first: their cache misses overlap */
                cv[2 * k] = c[2 * (size_t)perm[j + k]];
                cv[2 * k + 1] = c[2 * (size_t)perm[j + k] + 1];
            }
            for (k = 0; k < count; k++) {
                size_t q = j + k;
                hst__nu_taps(coef, deg, g, off[q], off[m + q], off[2 * (size_t)m + q], k0, k1, k2);
                hst__nu_spread_point(tile, k0, k1, k2, g[9], g[10], l1, l2, base[q] - o0,
                                     base[m + q] - o1, base[2 * (size_t)m + q] - o2, cv[2 * k],
                                     cv[2 * k + 1]);
            }
        }
        hst__nu_flush(tile, grid, g, l1, l2, o0, o1, o2);
    }
}

/* One sorted point's interpolation (the kernel's loops; w taps along axes 1 and 2). */
HST__KPRIVATE void hst__nu_interp_point(const float *grid, const int32_t *g, const float *k0,
                                        const float *k1, const float *k2, int b0, int b1,
                                        int b2, float *out) {
    float acc[2 * HST_K_NUFFT_LANES], wrapped[2 * HST_K_NUFFT_LANES];
    int w0 = g[9], w = g[10], a, b, u, t, wraps = b2 < 0 || b2 + w > g[2];
    float re = 0.0f, im = 0.0f;
    for (u = 0; u < 2 * HST_K_NUFFT_LANES; u++) acc[u] = 0.0f;
    for (a = 0; a < w0; a++)
        for (b = 0; b < w; b++) {
            float kab = k0[a] * k1[b];
            size_t row = ((size_t)hst__nu_wrap(b0 + a, g[0]) * (size_t)g[1]
                          + (size_t)hst__nu_wrap(b1 + b, g[1])) * (size_t)g[2];
            const float *r = wrapped;
            if (wraps) {   /* the row's taps gathered across the periodic edge */
                for (u = 0; u < 2 * HST_K_NUFFT_LANES; u++)
                    wrapped[u] = u < 2 * w ? grid[2 * (row + (size_t)hst__nu_wrap(b2 + u / 2, g[2])) + u % 2] : 0.0f;
            } else {       /* formed only in range: a pointer before the grid is undefined */
                r = grid + 2 * (row + (size_t)b2);
            }
            HST__NU_AXPY16(acc, r, kab);
        }
    for (t = 0; t < w; t++) {
        re += acc[2 * t] * k2[t];
        im += acc[2 * t + 1] * k2[t];
    }
    out[0] = re;
    out[1] = im;
}

HST__KDEF void hst_k_nufft_interp_host(const int32_t *base, const float *off, const uint32_t *perm,
                                       const float *grid, float *c, uint32_t m, const int32_t g[16],
                                       const float *coef, int deg, uint32_t j0, uint32_t j1)
{
    float k0[HST_K_NUFFT_LANES], k1[HST_K_NUFFT_LANES], k2[HST_K_NUFFT_LANES];
    uint32_t j;
    for (j = j0; j < j1; j++) {
        hst__nu_taps(coef, deg, g, off[j], off[m + j], off[2 * (size_t)m + j], k0, k1, k2);
        hst__nu_interp_point(grid, g, k0, k1, k2, base[j], base[m + j], base[2 * (size_t)m + j],
                             c + 2 * (size_t)perm[j]);
    }
}

HST__KDEF void hst_k_nufft_to_modes_host(const float *grid, float *f, const float *corr,
                                         const int32_t nf[4], const int32_t nm[4])
{
    int i0, i1, i2;
    size_t i = 0;
    for (i0 = 0; i0 < nm[0]; i0++)
        for (i1 = 0; i1 < nm[1]; i1++)
            for (i2 = 0; i2 < nm[2]; i2++, i++) {
                size_t gi = ((size_t)hst__nu_fine(i0, nm[0], nf[0]) * (size_t)nf[1]
                             + (size_t)hst__nu_fine(i1, nm[1], nf[1])) * (size_t)nf[2]
                            + (size_t)hst__nu_fine(i2, nm[2], nf[2]);
                float s = (corr[i0] * corr[nm[0] + i1]) * corr[nm[0] + nm[1] + i2];
                f[2 * i] = grid[2 * gi] * s;
                f[2 * i + 1] = grid[2 * gi + 1] * s;
            }
}

HST__KDEF void hst_k_nufft_to_grid_host(const float *f, float *grid, const float *corr,
                                        const int32_t nf[4], const int32_t nm[4])
{
    int g0, g1, g2;
    size_t i = 0;
    for (g0 = 0; g0 < nf[0]; g0++)
        for (g1 = 0; g1 < nf[1]; g1++)
            for (g2 = 0; g2 < nf[2]; g2++, i++) {
                int i0 = hst__nu_mode(g0, nm[0], nf[0]), i1 = hst__nu_mode(g1, nm[1], nf[1]);
                int i2 = hst__nu_mode(g2, nm[2], nf[2]);
                float re = 0.0f, im = 0.0f;
                if (i0 >= 0 && i1 >= 0 && i2 >= 0) {
                    size_t fi = ((size_t)i0 * (size_t)nm[1] + (size_t)i1) * (size_t)nm[2] + (size_t)i2;
                    float s = (corr[i0] * corr[nm[0] + i1]) * corr[nm[0] + nm[1] + i2];
                    re = f[2 * fi] * s;
                    im = f[2 * fi + 1] * s;
                }
                grid[2 * i] = re;
                grid[2 * i + 1] = im;
            }
}

#endif /* HST_NO_NUFFT_KERNELS */

/* <<nufft kernels */

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
