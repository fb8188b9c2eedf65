/* kernels.h — halostream's kernel library, its shared part: the element types and scalars every
   room uses, the core vocabulary (array.h's programs: casts, arithmetic, reductions, random
   numbers, and the second vocabulary program) as OpenCL C 1.2 sources in string literals with a
   host C twin of every kernel (the same semantics, bit for bit where stated), and the macros the
   kernel families share. Every other family lives beside the header that launches it, in its
   own header of sources and twins: kernels_stream.h (stream.h), kernels_esrrf.h (esrrf.h),
   kernels_halo.h (halo.h), kernels_quality.h (quality.h), kernels_nufft.h (nufft.h); a program
   that includes backend.h alone compiles none of them. Single-file, header-only, C99 (and C++).
   It includes no OpenCL header: it works with HST_NO_OPENCL too.

   Do this:
       #define HST_KERNELS_IMPLEMENTATION     (or HST_IMPLEMENTATION for every header)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.)

   Usage (the vocabulary program for f32, built with plain OpenCL, and its host reference):

       // given: cl_context ctx; cl_device_id dev; cl_int err; const float *x;   // n floats
       size_t count, n = 10000, steps, parts = hst_kernels_reduce_groups(n, &steps);
       const char *const *src = hst_kernels_vocab_source(&count);
       cl_program p = clCreateProgramWithSource(ctx, (cl_uint)count, (const char **)src, 0, &err);
       clBuildProgram(p, 1, &dev, hst_kernels_vocab_options(HST_F32), 0, 0);  // + -DHST_FP64
       // ... run hst_k_reduce_sum(x, n, steps, partial) with global = parts * 256, local = 256 ...
       float *partial = malloc(parts * hst_kernels_partial_size(HST_F32, HST_REDUCE_SUM));
       hst_k_reduce_host(HST_F32, HST_REDUCE_SUM, x, NULL, n, steps, partial);   // same bits
       hst_scalar s; hst_k_combine_host(HST_F32, HST_REDUCE_SUM, partial, parts, &s);
       // cc -std=c99 app.c -lOpenCL -lm

   Reference (every public function, by group; each is documented at its declaration):
     Dtypes        hst_dtype_size, hst_dtype_name          bytes per element; "f32"
                   hst_dtype_is_int, _is_complex, _needs_fp64
     Support       hst_kernels_math_supported, _reduce_supported, _arith_supported,
                   _binary_supported, _axis_supported      which (dtype, op) pairs exist
                   hst_kernels_partial_size                bytes of one reduction partial
                   hst_kernels_reduce_groups               a reduction's blocks and steps
     Programs      hst_kernels_vocab_source, _vocabx_source   the two programs' pieces
                   hst_kernels_vocab_options               a dtype's build options
                   hst_kernels_vocab_family, _vocabx_family   their declared kernels, per dtype
                                                           (for backend.h's hst_launch_kernel)
     Random        hst_k_philox4x32                        Philox4x32-10, one block
     Host twins    hst_k_cast_host, _scale_host, _axpy_host, _math_host, _random_host,
       (first)     _randperm_host, _reduce_host            each kernel's work on host memory
                   hst_k_combine_host                      reduction partials into a scalar
     Host twins    hst_k_gather_host, _binary_host, _axis_host, _ramp_host, _where_host,
       (second)    _cpart_host, _nonzero_count_host, _argwhere_host

   Declared kernels. Each program's kernels are listed once (HST_VOCAB_KERNELS,
   HST_VOCABX_KERNELS: id, name, OpenCL parameters, twin adapter); the ids (HST_KV_*, HST_KVX_*)
   index hst_kernels_vocab_family(dt) and hst_kernels_vocabx_family(dt), whose twins unpack the
   bound arguments and run the typed twins above over the launched range. The families need
   backend.h's launcher: their bodies compile where array.h's implementation is (see
   ">>vocabulary families" at the end of this file).

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_KERNELS_IMPLEMENTATION             the implementation TU: compile kernels.h's body only
     HST_STATIC                             every TU: all functions `static` (embed twice)
     HST_API                                every TU: the declaration prefix (default `extern`)
     HST_NO_CPU_DISPATCH                    the implementation TU: kernels_esrrf.h's twins without
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
   Where a kernel calls fma, its twin calls HST__FMAF (">>fma" below): the same bits with or
   without an FMA instruction, whatever the C library (never libm's fmaf).
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
   reqd_work_group_size) reduces one block of steps * HST_REDUCE_LOCAL elements into one
   partial; each work-item takes `steps` elements, at least HST_REDUCE_MIN_STEPS, more where n
   needs more than HST_REDUCE_GROUPS blocks (hst_kernels_reduce_groups): a large array's
   partials stay few (their read-back and combine cost more than the blocks' reads), a small
   one's blocks still fill a GPU. global size = groups * HST_REDUCE_LOCAL. */
#define HST_REDUCE_LOCAL 256
#define HST_REDUCE_MIN_STEPS 16
#define HST_REDUCE_GROUPS 4096

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
/* A reduction of n elements: returns its work-groups (= partials), ceil(n / (steps *
   HST_REDUCE_LOCAL)), and sets *steps, the elements per work-item: max(HST_REDUCE_MIN_STEPS,
   ceil(n / (HST_REDUCE_LOCAL * HST_REDUCE_GROUPS))), so at most HST_REDUCE_GROUPS partials
   (0 for n = 0). The order, and so the bits, depend on n only. Thread-safe. */
HST_API size_t hst_kernels_reduce_groups(size_t n, size_t *steps);

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

/* Block partials (twin of hst_k_reduce_<op>): writes ceil(n / (steps * HST_REDUCE_LOCAL))
   partials of hst_kernels_partial_size(dt, op) bytes, steps (>= 1) as the kernel's argument
   (hst_kernels_reduce_groups(n) gives the launch's). y is used by DOT only (may be NULL
   otherwise). The order is defined, so device and host partials are bitwise equal: for block g
   of B = 256 * steps elements, lane l = 0..255 starts from the identity and accumulates,
   k = 0..steps-1 in order, element g*B + l + 256*k when < n; then for s = 128, 64, ..., 1 lanes l < s set
   a[l] = combine(a[l], a[l+s]); partial[g] = a[0]. Accumulators: int64 for u8/i32 sums (exact
   while |sum| < 2^63), the real type for float sums (float for f32 and c64, double for f64), the
   element type for MIN/MAX. Identities: 0 for sums; MIN/MAX: NaN for floats, the integer
   dtype's largest/smallest value. Integer sums wrap past 2^63 (as the device's long); integer
   sums and min/max are exact in any order, so their twin reduces each block plainly. Float MIN is combine(a, b) = isnan(a) ? b : (b < a ? b : a) (MAX
   with >): fmin/fmax semantics with ties (-0, +0) keeping a; NaN payloads are not specified.
   Thread-safe. */
HST_API void hst_k_reduce_host(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                               size_t n, size_t steps, void *partial);

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

/* >>declared kernels: the two vocabulary programs' kernels, each listed once with its OpenCL
   parameters (backend.h's "Declared kernels": one word per parameter, `value` for the element
   type T, vectors such as ulong4 and the ramp's D) and its host twin adapter. The programs are
   generic over T, so there is one family per program AND dtype: hst_kernels_vocab_family(dt)
   launches with the options hst_kernels_vocab_options(dt) [+ " -DHST_FP64"] [+ " -cl-fp32-
   correctly-rounded-divide-sqrt"], and its twins run the dtype's host twin (a kernel has no
   argument naming its T; the dtype is the program's, so it is the family's). A kernel missing
   from dt's program (hst_k_scale for i32, see the tables above) still has a row: the OpenCL
   device refuses it when the kernel is made, its twin does nothing; array.h checks first.
   Rows X(P, id, name, signature, twin); HST_VOCAB_KERNELS(X) and HST_VOCABX_KERNELS(X) give
   backend.h's rows X(id, name, signature, twin) (P carries a parameter to the row: the dtype
   where kernels.h makes each dtype's twins). */
#define HST__VOCAB_ROWS(X, P) \
    X(P, HST_KV_CAST_FROM_U8, hst_k_cast_from_u8, "global global ulong", hst__kt_cast_from_u8) \
    X(P, HST_KV_CAST_FROM_I32, hst_k_cast_from_i32, "global global ulong", hst__kt_cast_from_i32) \
    X(P, HST_KV_CAST_FROM_F32, hst_k_cast_from_f32, "global global ulong", hst__kt_cast_from_f32) \
    X(P, HST_KV_CAST_FROM_F64, hst_k_cast_from_f64, "global global ulong", hst__kt_cast_from_f64) \
    X(P, HST_KV_CAST_FROM_C64, hst_k_cast_from_c64, "global global ulong", hst__kt_cast_from_c64) \
    X(P, HST_KV_CAST_FROM_I8, hst_k_cast_from_i8, "global global ulong", hst__kt_cast_from_i8) \
    X(P, HST_KV_CAST_FROM_I16, hst_k_cast_from_i16, "global global ulong", hst__kt_cast_from_i16) \
    X(P, HST_KV_CAST_FROM_I64, hst_k_cast_from_i64, "global global ulong", hst__kt_cast_from_i64) \
    X(P, HST_KV_CAST_FROM_C128, hst_k_cast_from_c128, "global global ulong", hst__kt_cast_from_c128) \
    X(P, HST_KV_SCALE, hst_k_scale, "global ulong value", hst__kt_scale) \
    X(P, HST_KV_AXPY, hst_k_axpy, "global global ulong value", hst__kt_axpy) \
    X(P, HST_KV_MATH, hst_k_math, "global global ulong int value", hst__kt_math) \
    X(P, HST_KV_REDUCE_SUM, hst_k_reduce_sum, "global ulong ulong global", hst__kt_reduce_sum) \
    X(P, HST_KV_REDUCE_DOT, hst_k_reduce_dot, "global global ulong ulong global", hst__kt_reduce_dot) \
    X(P, HST_KV_REDUCE_SQNORM, hst_k_reduce_sqnorm, "global ulong ulong global", hst__kt_reduce_sqnorm) \
    X(P, HST_KV_REDUCE_MIN, hst_k_reduce_min, "global ulong ulong global", hst__kt_reduce_min) \
    X(P, HST_KV_REDUCE_MAX, hst_k_reduce_max, "global ulong ulong global", hst__kt_reduce_max) \
    X(P, HST_KV_RANDOM, hst_k_random, "global ulong ulong ulong int", hst__kt_random) \
    X(P, HST_KV_RANDPERM, hst_k_randperm, "global ulong ulong", hst__kt_randperm)
#define HST__VOCABX_ROWS(X, P) \
    X(P, HST_KVX_GATHER, hst_k_gather, "global global ulong value value value value value ulong ulong", \
      hst__kt_gather) \
    X(P, HST_KVX_WHERE, hst_k_where, "global global global global ulong", hst__kt_where) \
    X(P, HST_KVX_RAMP, hst_k_ramp, "global ulong value value int value", hst__kt_ramp) \
    X(P, HST_KVX_BINARY, hst_k_binary, "global global global ulong value value value int", hst__kt_binary) \
    X(P, HST_KVX_CPART, hst_k_cpart, "global global ulong int", hst__kt_cpart) \
    X(P, HST_KVX_AXIS, hst_k_axis, "global global global ulong ulong ulong int", hst__kt_axis) \
    X(P, HST_KVX_NONZERO_COUNT, hst_k_nonzero_count, "global ulong ulong global", hst__kt_nonzero_count) \
    X(P, HST_KVX_ARGWHERE, hst_k_argwhere, "global ulong ulong global value uint global", hst__kt_argwhere)
#define HST__KROW(X, id, name, signature, twin) X(id, name, signature, twin)
#define HST_VOCAB_KERNELS(X) HST__VOCAB_ROWS(HST__KROW, X)
#define HST_VOCABX_KERNELS(X) HST__VOCABX_ROWS(HST__KROW, X)
#define HST__KROW_ID(P, id, name, signature, twin) id,
enum { HST__VOCAB_ROWS(HST__KROW_ID, 0) HST_KV_COUNT };
enum { HST__VOCABX_ROWS(HST__KROW_ID, 0) HST_KVX_COUNT };

/* The kernel family of dt's vocabulary program (hst_kernels_vocab_source) and of its second
   program (hst_kernels_vocabx_source), for backend.h's hst_launch_kernel; NULL for an invalid
   dtype. Family names "vocab[f32]", "vocabx[f32]", ... (its messages). Defined where array.h's
   implementation is compiled (or HST_KERNELS_VOCAB_IMPLEMENTATION, with kernels.h included
   after backend.h): they need backend.h's launcher. Static storage. Thread-safe. (With
   HST_STATIC their definitions declare them, in array.h's implementation: a static function
   declared but not defined in a translation unit without it would not compile cleanly.) */
#ifndef HST_STATIC
struct hst_kernel_family;
HST_API const struct hst_kernel_family *hst_kernels_vocab_family(hst_dtype dt);
HST_API const struct hst_kernel_family *hst_kernels_vocabx_family(hst_dtype dt);
#endif

/* Private to the library: the twins above over work-items [first, last) only (the twin adapters
   run a launched range with them; the public twins are their whole ranges). */
HST_API void hst__k_randperm_items(hst_dtype dt, void *dst, size_t n, uint64_t seed, size_t first,
                                   size_t last);
HST_API void hst__k_gather_items(size_t esize, const void *src, void *dst, size_t first,
                                 size_t last, const uint64_t shape[4], const uint64_t sstride[4],
                                 const uint64_t dstride[4], const uint64_t shift[4],
                                 const uint64_t mod[4], uint64_t soff, uint64_t doff);
HST_API void hst__k_binary_items(hst_dtype dt, const void *a, const void *b, void *dst,
                                 size_t first, size_t last, const uint64_t shape[4],
                                 const uint64_t astride[4], const uint64_t bstride[4],
                                 hst_binary_op op);
HST_API void hst__k_axis_items(hst_dtype dt, const void *src, void *dst, int32_t *idx, size_t len,
                               size_t inner, hst_axis_op op, size_t first, size_t last);
HST_API void hst__k_ramp_items(hst_dtype dt, void *dst, size_t n, double start, double step,
                               int set_last, double last, size_t first, size_t end);
HST_API void hst__k_nonzero_count_items(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                        uint64_t *counts, size_t first, size_t last);
HST_API void hst__k_argwhere_items(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                   const uint64_t *offsets, const uint64_t shape[4], unsigned ndim,
                                   int64_t *out, size_t first, size_t last);

/* >>shared by the kernel families (kernels.h and kernels_<family>.h): private to the library's
   implementation, here so that each family's body compiles in its own translation unit too. */
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
/* Clang contracts a*b + c within one expression by default; every family's body turns that
   off between these two (the device sources say FP_CONTRACT OFF; the twins must match). */
#if defined(__clang__) && ((defined(__apple_build_version__) && __clang_major__ >= 13) || \
                           (!defined(__apple_build_version__) && __clang_major__ >= 11))
#  define HST__KERNELS_FP_BEGIN _Pragma("float_control(push)") _Pragma("clang fp contract(off)")
#  define HST__KERNELS_FP_END _Pragma("float_control(pop)")
#else
#  define HST__KERNELS_FP_BEGIN
#  define HST__KERNELS_FP_END
#endif
/* >>fma: a*b + c rounded once (IEEE 754 fusedMultiplyAdd, round to nearest even), the same
   bits as every OpenCL device's fma, never the C library's fmaf: mingw-w64's rounds twice
   (through double), so its results differ from glibc's and the devices'. Three ways, one result:
     HST__FMAF_HW(a, b, c)  in code built for FMA (-mfma, or a function with
                            __attribute__((target("fma"))), as kernels_esrrf.h's AVX2 and
                            AVX-512 twins): one instruction;
     HST__FMAF(a, b, c)     in portable code: the instruction where the build targets FMA
                            (__FMA__, __ARM_FEATURE_FMA: every aarch64), else on x86 with GCC
                            or Clang the instruction where the CPU has it (__builtin_cpu_supports,
                            one call per fma, as libm's fmaf costs), else hst__fmaf_soft;
     hst__fmaf_soft         no instruction: the exact product in double, the sum rounded to odd
                            in double, then rounded to float once (Boldo and Melquiond,
                            "Emulation of FMA and correctly rounded sums: proved algorithms using
                            rounding to odd", IEEE Trans. Computers 57(4), 2008: double's 53 bits
                            >= 2 x 24 + 2 make the last rounding correct). Needs double arithmetic
                            rounded to double (FLT_EVAL_METHOD 0: SSE2, every x86-64 and aarch64).
   tests/test_fmaf.c compares hst__fmaf_soft and HST__FMAF with the instruction bit for bit. On
   a machine with FMA the three agree with glibc's fmaf, so the Linux bits do not change. */
HST__KERNELS_FP_BEGIN
HST__KPRIVATE float hst__fmaf_soft(float a, float b, float c)
{
    double p = (double)a * (double)b;   /* exact: 2 x 24 significant bits fit in 53 */
    double s = p + (double)c;           /* rounded to nearest */
    double back, err;
    union { double d; uint64_t u; } r;
    if (s - s != 0.0) return (float)s;  /* infinite or NaN: as IEEE 754's fma */
    back = s - p;                       /* TwoSum (Knuth): s + err == p + c exactly */
    err = (p - (s - back)) + ((double)c - back);
    r.d = s;
    if (err != 0.0 && !(r.u & 1u))      /* inexact and even: round to odd instead, */
        r.u = (err > 0.0) == (s > 0.0) ? r.u + 1u : r.u - 1u;   /* toward the exact sum */
    return (float)r.d;
}
HST__KERNELS_FP_END
#if defined(__GNUC__) || defined(__clang__)
#  define HST__FMAF_HW(a, b, c) __builtin_fmaf((a), (b), (c))
#  if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#    define HST__FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#  elif (defined(__x86_64__) || defined(__i386__)) && !defined(_MSC_VER)
#    define HST__FMAF(a, b, c) hst__fmaf_any((a), (b), (c))
HST__KPRIVATE __attribute__((target("fma"))) float hst__fmaf_fma(float a, float b, float c)
{
    return __builtin_fmaf(a, b, c);
}
HST__KPRIVATE float hst__fmaf_any(float a, float b, float c)
{
    return __builtin_cpu_supports("fma") ? hst__fmaf_fma(a, b, c) : hst__fmaf_soft(a, b, c);
}
#  else
#    define HST__FMAF(a, b, c) hst__fmaf_soft((a), (b), (c))
#  endif
#else
#  define HST__FMAF(a, b, c) hst__fmaf_soft((a), (b), (c))   /* MSVC: no dispatch (yet) */
#endif
/* Each piece of OpenCL C must fit the 4095 characters C99 promises for a string literal
   (sizeof counts the terminating NUL). */
#define HST__PIECE_FITS(name, piece) \
    typedef char hst__check_piece_##name[(sizeof(piece) <= 4096) ? 1 : -1]
#define HST__KSTR(x) #x
#define HST__KXSTR(x) HST__KSTR(x)
#define HST__TWO_PI 6.283185307179586                 /* same literal as the device sources */
/* The dtypes in value order (HST_U8 = 1 .. HST_C128 = 9), one row each: X(dtype, name, bytes,
   class, lo, hi), class 0 integer, 1 real float, 2 complex; [lo, hi] an integer's range
   (saturating conversions). */
#define HST__I32_MAX 2147483647
#define HST__I32_MIN (-HST__I32_MAX - 1)
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


/* The device source hard-codes these numbers; keep the enums and the source in step. */
typedef char hst__check_math_abi[(HST_MATH_ABS == 0 && HST_MATH_SQRT == 1 && HST_MATH_EXP == 2 &&
                                  HST_MATH_SIN == 3 && HST_MATH_COS == 4 && HST_MATH_POW == 5 &&
                                  HST_MATH_ARCCOS == 6 && HST_MATH_ERFC == 7)
                                 ? 1 : -1];
typedef char hst__check_random_abi[(HST_RANDOM_NORMAL == 1) ? 1 : -1];

HST__KERNELS_FP_BEGIN

/* >>types */

#define HST__P2M24F (1.0f / 16777216.0f)              /* 2^-24, exact */
#define HST__P2M32 (1.0 / 4294967296.0)               /* 2^-32, exact */
#define HST__P2M53 (1.0 / 9007199254740992.0)         /* 2^-53, exact */
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
"   [g*B, (g+1)*B), B = steps*HST_REDUCE_LOCAL, into partial[g], in a fixed order:\n"
"   lane l accumulates elements g*B + l + LOCAL*k for k = 0..steps-1 (when < n),\n"
"   then a tree a[l] = COMB(a[l], a[l+s]) for s = LOCAL/2 .. 1. The host twin copies it. */\n"
"#define HST_ADD(a, b) ((a) + (b))\n"
"#define HST_REDUCE_BODY(ACC, IDENT, TERM, COMB) \\\n"
"  __local ACC a[HST_REDUCE_LOCAL]; \\\n"
"  uint l = (uint)get_local_id(0); \\\n"
"  ulong g = get_group_id(0); \\\n"
"  ulong j = g * steps * HST_REDUCE_LOCAL + l; \\\n"
"  ACC acc = IDENT; \\\n"
"  for (ulong k = 0; k < steps; ++k, j += HST_REDUCE_LOCAL) \\\n"
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
"void hst_k_reduce_sum(__global const T *x, ulong n, ulong steps, __global A *partial)\n"
"{\n"
"  HST_REDUCE_BODY(A, (A)0, (A)x[j], HST_ADD)\n"
"}\n"
"\n"
"#ifdef HST_FLOAT\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_dot(__global const T *x, __global const T *y, ulong n, ulong steps, __global A *partial)\n"
"{\n"
"  HST_REDUCE_BODY(A, (A)0, hst_dot_term(x[j], y[j]), HST_ADD)\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_sqnorm(__global const T *x, ulong n, ulong steps, __global R *partial)\n"
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
"void hst_k_reduce_min(__global const T *x, ulong n, ulong steps, __global T *partial)\n"
"{\n"
"  HST_REDUCE_BODY(T, HST_MIN_IDENT, x[j], hst_min)\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_REDUCE_LOCAL, 1, 1)))\n"
"void hst_k_reduce_max(__global const T *x, ulong n, ulong steps, __global T *partial)\n"
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

HST__KDEF size_t hst_kernels_reduce_groups(size_t n, size_t *steps)
{
    const size_t most = (size_t)HST_REDUCE_LOCAL * HST_REDUCE_GROUPS;
    size_t block;
    *steps = n / most + (n % most != 0);
    if (*steps < HST_REDUCE_MIN_STEPS) *steps = HST_REDUCE_MIN_STEPS;
    block = *steps * HST_REDUCE_LOCAL;   /* <= n / HST_REDUCE_GROUPS + HST_REDUCE_LOCAL: no overflow */
    return n / block + (n % block != 0);
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
    HST__KPRIVATE void NAME(const XT *x, const XT *y, size_t n, size_t steps, AT *partial)       \
    {                                                                                            \
        AT a[HST_REDUCE_LOCAL];                                                                  \
        size_t g, l, k, s, block = steps * HST_REDUCE_LOCAL, groups = n / block + (n % block != 0); \
        (void)y;                                                                                 \
        for (g = 0; g < groups; ++g) {                                                           \
            for (l = 0; l < HST_REDUCE_LOCAL; ++l) {                                             \
                AT acc = IDENT;                                                                  \
                for (k = 0; k < steps; ++k) {                                                    \
                    size_t j = g * block + l + k * HST_REDUCE_LOCAL;                             \
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
                                   size_t steps, void *p)
{
    size_t g, j, block = steps * HST_REDUCE_LOCAL, groups = n / block + (n % block != 0);
    int64_t lo, hi;
    hst__int_range(dt, &lo, &hi);
    for (g = 0; g < groups; ++g) {
        size_t end = n - g * block < block ? n : (g + 1) * block;
        uint64_t sum = 0;
        int64_t best = op == HST_REDUCE_MIN ? hi : lo;
        for (j = g * block; j < end; ++j) {
            int64_t v = hst__load_int(dt, x, j);
            sum += (uint64_t)v;
            if (op == HST_REDUCE_MIN ? v < best : v > best) best = v;
        }
        if (op == HST_REDUCE_SUM) ((int64_t *)p)[g] = (int64_t)sum;
        else hst__store_int(dt, p, g, best);
    }
}

HST__KPRIVATE void hst__reduce_sum(hst_dtype dt, const void *x, size_t n, size_t steps,
                                   void *p)
{
    switch (dt) {
    case HST_F32: hst__rsum_f32((const float *)x, NULL, n, steps, (float *)p); break;
    case HST_F64: hst__rsum_f64((const double *)x, NULL, n, steps, (double *)p); break;
    case HST_C64: hst__rsum_c64((const float *)x, NULL, n, steps, (hst__c32 *)p); break;
    case HST_C128: hst__rsum_c128((const double *)x, NULL, n, steps, (hst__c64 *)p); break;
    default: hst__reduce_int(dt, HST_REDUCE_SUM, x, n, steps, p); break;
    }
}

HST__KPRIVATE void hst__reduce_dot(hst_dtype dt, const void *x, const void *y, size_t n, size_t steps,
                                   void *p)
{
    switch (dt) {
    case HST_F32: hst__rdot_f32((const float *)x, (const float *)y, n, steps, (float *)p); break;
    case HST_F64: hst__rdot_f64((const double *)x, (const double *)y, n, steps, (double *)p); break;
    case HST_C64: hst__rdot_c64((const float *)x, (const float *)y, n, steps, (hst__c32 *)p); break;
    case HST_C128: hst__rdot_c128((const double *)x, (const double *)y, n, steps, (hst__c64 *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_sqnorm(hst_dtype dt, const void *x, size_t n, size_t steps,
                                   void *p)
{
    switch (dt) {
    case HST_F32: hst__rsq_f32((const float *)x, NULL, n, steps, (float *)p); break;
    case HST_F64: hst__rsq_f64((const double *)x, NULL, n, steps, (double *)p); break;
    case HST_C64: hst__rsq_c64((const float *)x, NULL, n, steps, (float *)p); break;
    case HST_C128: hst__rsq_c128((const double *)x, NULL, n, steps, (double *)p); break;
    default: break;
    }
}

HST__KPRIVATE void hst__reduce_minmax(hst_dtype dt, int is_max, const void *x, size_t n, size_t steps,
                                   void *p)
{
    switch (dt) {
    case HST_F32:
        if (is_max) hst__rmax_f32((const float *)x, NULL, n, steps, (float *)p);
        else hst__rmin_f32((const float *)x, NULL, n, steps, (float *)p);
        break;
    case HST_F64:
        if (is_max) hst__rmax_f64((const double *)x, NULL, n, steps, (double *)p);
        else hst__rmin_f64((const double *)x, NULL, n, steps, (double *)p);
        break;
    default: hst__reduce_int(dt, is_max ? HST_REDUCE_MAX : HST_REDUCE_MIN, x, n, steps, p); break;
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

HST__KDEF void hst__k_randperm_items(hst_dtype dt, void *dst, size_t n, uint64_t seed, size_t first,
                                   size_t last)
{
    size_t i;
    unsigned h = 1;
    if (dt != HST_I32 && dt != HST_I64) return;
    while (h < 32 && ((uint64_t)1 << (2 * h)) < (uint64_t)n) ++h;
    for (i = first; i < last; ++i) {
        uint64_t y = hst__feistel(i, h, seed);
        while (y >= n) y = hst__feistel(y, h, seed);
        hst__store_int(dt, dst, i, (int64_t)y);
    }
}

HST__KDEF void hst_k_randperm_host(hst_dtype dt, void *dst, size_t n, uint64_t seed)
{
    hst__k_randperm_items(dt, dst, n, seed, 0, n);
}

HST__KDEF void hst_k_reduce_host(hst_dtype dt, hst_reduce_op op, const void *x, const void *y,
                               size_t n, size_t steps, void *partial)
{
    if (!hst_kernels_reduce_supported(dt, op) || steps == 0) return;
    switch (op) {
    case HST_REDUCE_SUM: hst__reduce_sum(dt, x, n, steps, partial); break;
    case HST_REDUCE_DOT: hst__reduce_dot(dt, x, y, n, steps, partial); break;
    case HST_REDUCE_SQNORM: hst__reduce_sqnorm(dt, x, n, steps, partial); break;
    case HST_REDUCE_MIN: hst__reduce_minmax(dt, 0, x, n, steps, partial); break;
    case HST_REDUCE_MAX: hst__reduce_minmax(dt, 1, x, n, steps, partial); break;
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

HST__KDEF void hst__k_gather_items(size_t esize, const void *src, void *dst, size_t first,
                                 size_t last, const uint64_t shape[4], const uint64_t sstride[4],
                                 const uint64_t dstride[4], const uint64_t shift[4],
                                 const uint64_t mod[4], uint64_t soff, uint64_t doff)
{
    size_t i;
    int d;
    for (i = first; i < last; i++) {
        uint64_t ix[4], sx[4];
        hst__idx4(i, shape, ix);
        for (d = 0; d < 4; d++) sx[d] = (ix[d] + shift[d]) % mod[d];
        memcpy((unsigned char *)dst + (doff + hst__dot4(ix, dstride)) * esize,
               (const unsigned char *)src + (soff + hst__dot4(sx, sstride)) * esize, esize);
    }
}

HST__KDEF void hst_k_gather_host(size_t esize, const void *src, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t sstride[4],
                               const uint64_t dstride[4], const uint64_t shift[4],
                               const uint64_t mod[4], uint64_t soff, uint64_t doff)
{
    hst__k_gather_items(esize, src, dst, 0, n, shape, sstride, dstride, shift, mod, soff, doff);
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

HST__KDEF void hst__k_binary_items(hst_dtype dt, const void *a, const void *b, void *dst,
                                 size_t first, size_t last, const uint64_t shape[4],
                                 const uint64_t astride[4], const uint64_t bstride[4],
                                 hst_binary_op op)
{
    size_t i;
    if (!hst_kernels_binary_supported(dt, op)) return;
    for (i = first; i < last; i++) {
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

HST__KDEF void hst_k_binary_host(hst_dtype dt, const void *a, const void *b, void *dst, size_t n,
                               const uint64_t shape[4], const uint64_t astride[4],
                               const uint64_t bstride[4], hst_binary_op op)
{
    hst__k_binary_items(dt, a, b, dst, 0, n, shape, astride, bstride, op);
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

HST__KDEF void hst__k_axis_items(hst_dtype dt, const void *src, void *dst, int32_t *idx, size_t len,
                               size_t inner, hst_axis_op op, size_t first, size_t last)
{
    size_t g, k, esize = hst_dtype_size(dt);
    if (!hst_kernels_axis_supported(dt, op)) return;
    for (g = first; g < last; g++) {
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

HST__KDEF void hst_k_axis_host(hst_dtype dt, const void *src, void *dst, int32_t *idx,
                             size_t outer, size_t len, size_t inner, hst_axis_op op)
{
    hst__k_axis_items(dt, src, dst, idx, len, inner, op, 0, outer * inner);
}

HST__KDEF void hst__k_ramp_items(hst_dtype dt, void *dst, size_t n, double start, double step,
                               int set_last, double last, size_t first, size_t end)
{
    size_t i;
    for (i = first; i < end; i++) {
        double v = (double)i * step;
        v = start + v;
        hst__store_real(dt, dst, i, (set_last && i == n - 1) ? last : v);
    }
}

HST__KDEF void hst_k_ramp_host(hst_dtype dt, void *dst, size_t n, double start, double step,
                             int set_last, double last)
{
    hst__k_ramp_items(dt, dst, n, start, step, set_last, last, 0, n);
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

/* Chunks of chunk elements in n (the items of hst_k_nonzero_count and hst_k_argwhere). */
HST__KPRIVATE size_t hst__chunks(size_t n, size_t chunk)
{
    return chunk ? n / chunk + (n % chunk != 0) : 0;
}

HST__KDEF void hst__k_nonzero_count_items(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                        uint64_t *counts, size_t first, size_t last)
{
    size_t g, i, chunks = hst__chunks(n, chunk);
    for (g = first; g < last && g < chunks; g++) {
        size_t hi = n - g * chunk < chunk ? n : (g + 1) * chunk;
        counts[g] = 0;
        for (i = g * chunk; i < hi; i++) counts[g] += (uint64_t)hst__nonzero(dt, src, i);
    }
}

HST__KDEF void hst_k_nonzero_count_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                      uint64_t *counts)
{
    hst__k_nonzero_count_items(dt, src, n, chunk, counts, 0, hst__chunks(n, chunk));
}

HST__KDEF void hst__k_argwhere_items(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                   const uint64_t *offsets, const uint64_t shape[4], unsigned ndim,
                                   int64_t *out, size_t first, size_t last)
{
    size_t g, i, chunks = hst__chunks(n, chunk);
    unsigned d;
    for (g = first; g < last && g < chunks; g++) {
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

HST__KDEF void hst_k_argwhere_host(hst_dtype dt, const void *src, size_t n, size_t chunk,
                                 const uint64_t *offsets, const uint64_t shape[4], unsigned ndim,
                                 int64_t *out)
{
    hst__k_argwhere_items(dt, src, n, chunk, offsets, shape, ndim, out, 0, hst__chunks(n, chunk));
}

/* <<vocabx kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_IMPLEMENTATION */

/* ============================================================================================= */
/* >>vocabulary families: the twin adapters, the declarations and the two accessors. They use
   backend.h's launcher types, so they compile once backend.h's declarations have been seen:
   where HST_KERNELS_VOCAB_IMPLEMENTATION is defined (array.h's implementation defines it and
   includes kernels.h again) at an inclusion of kernels.h after backend.h. They call the public
   twins only (and the hst__k_*_items), so they may live in another translation unit than
   kernels.h's implementation. */
#if defined(HST_KERNELS_VOCAB_IMPLEMENTATION) && defined(HST_KERNEL_DECL) && \
    !defined(HST__KERNELS_VOCAB_IMPLEMENTATION_DONE)
#define HST__KERNELS_VOCAB_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The items [*first, *first + count) that a launch's work-items [offset, offset + global) of
   dimension 0 run in a kernel that returns at an id >= n; returns count. */
static size_t hst__kt_items(const hst_range *r, uint64_t n, size_t *first)
{
    uint64_t off = r->offset[0], g = r->global[0];
    *first = (size_t)off;
    return off >= n ? 0 : (size_t)(g < n - off ? g : n - off);
}

/* [first, last) of a kernel that bounds its ids itself (by n, or by its chunks). */
static size_t hst__kt_last(const hst_range *r)
{
    return r->global[0] > SIZE_MAX - r->offset[0] ? SIZE_MAX : r->offset[0] + r->global[0];
}

/* Element `first` of a buffer argument of es-byte elements. */
static unsigned char *hst__kt_at(const hst_karg *a, size_t first, size_t es)
{
    return (unsigned char *)hst_karg_ptr(a) + first * es;
}

/* A `value` argument of type T (the program's dtype) as (re, im) in double, exactly (a c128
   cast); 0 when its bytes are not T's (the device refuses such an argument too). */
static int hst__kt_t(hst_dtype dt, const hst_karg *a, double z[2])
{
    if (a->bytes != hst_dtype_size(dt)) return 0;
    hst_k_cast_host(HST_C128, z, dt, a->v.value, 1);
    return 1;
}

/* count consecutive ulong4 `value` arguments from a into v; 0 when one is not 32 bytes. */
static int hst__kt_u64x4(const hst_karg *a, unsigned count, uint64_t (*v)[4])
{
    unsigned k;
    for (k = 0; k < count; k++) {
        if (a[k].bytes != sizeof v[k]) return 0;
        memcpy(v[k], a[k].v.value, sizeof v[k]);
    }
    return 1;
}

/* hst_k_ramp's D (double with HST_FP64, else float) as a double. */
static double hst__kt_d(const hst_karg *a)
{
    double d = 0.0;
    float f;
    if (a->bytes == sizeof d) memcpy(&d, a->v.value, sizeof d);
    else if (a->bytes == sizeof f) { memcpy(&f, a->v.value, sizeof f); d = f; }
    return d;
}

/* >>vocab adapters: hst__kt_<kernel>(dt, args, range), args in the signature's order. */
static void hst__kt_cast(hst_dtype dt, hst_dtype from, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[2].v.u64, &first);
    if (n) hst_k_cast_host(dt, hst__kt_at(&a[1], first, hst_dtype_size(dt)), from,
                           hst__kt_at(&a[0], first, hst_dtype_size(from)), n);
}
#define HST__KT_CAST(s, from) \
    static void hst__kt_cast_from_##s(hst_dtype dt, const hst_karg *a, const hst_range *r) \
    { hst__kt_cast(dt, from, a, r); }
HST__KT_CAST(u8, HST_U8)
HST__KT_CAST(i32, HST_I32)
HST__KT_CAST(f32, HST_F32)
HST__KT_CAST(f64, HST_F64)
HST__KT_CAST(c64, HST_C64)
HST__KT_CAST(i8, HST_I8)
HST__KT_CAST(i16, HST_I16)
HST__KT_CAST(i64, HST_I64)
HST__KT_CAST(c128, HST_C128)
#undef HST__KT_CAST

static void hst__kt_scale(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    double alpha[2];
    size_t first, n = hst__kt_items(r, a[1].v.u64, &first);
    if (n && hst__kt_t(dt, &a[2], alpha))
        hst_k_scale_host(dt, hst__kt_at(&a[0], first, hst_dtype_size(dt)), n, alpha);
}

static void hst__kt_axpy(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    double alpha[2];
    size_t first, n = hst__kt_items(r, a[2].v.u64, &first), es = hst_dtype_size(dt);
    if (n && hst__kt_t(dt, &a[3], alpha))
        hst_k_axpy_host(dt, hst__kt_at(&a[0], first, es), hst__kt_at(&a[1], first, es), n, alpha);
}

static void hst__kt_math(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    double p[2];
    size_t first, n = hst__kt_items(r, a[2].v.u64, &first), es = hst_dtype_size(dt);
    if (n && hst__kt_t(dt, &a[4], p))
        hst_k_math_host(dt, hst__kt_at(&a[0], first, es), hst__kt_at(&a[1], first, es), n,
                        (hst_math_op)a[3].v.i32, p[0]);
}

/* A reduction's work-groups are numbered from 0 whatever the launch's offset (OpenCL's
   get_group_id), so the twin makes the partials of groups [0, ceil(global / HST_REDUCE_LOCAL))
   over the elements below n; a launch of hst_kernels_reduce_groups(n) groups (array.h's) makes
   every partial. */
static void hst__kt_reduce(hst_dtype dt, hst_reduce_op op, const hst_karg *x, const hst_karg *y,
                           uint64_t n, uint64_t steps, const hst_karg *partial, const hst_range *r)
{
    size_t groups = r->global[0] / HST_REDUCE_LOCAL + (r->global[0] % HST_REDUCE_LOCAL != 0);
    uint64_t block = steps * HST_REDUCE_LOCAL;
    uint64_t items = steps == 0 || groups >= n / block + 1 ? n : (uint64_t)groups * block;
    hst_k_reduce_host(dt, op, hst_karg_ptr(x), y ? hst_karg_ptr(y) : NULL, (size_t)items, (size_t)steps,
                      hst_karg_ptr(partial));
}
static void hst__kt_reduce_sum(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__kt_reduce(dt, HST_REDUCE_SUM, &a[0], NULL, a[1].v.u64, a[2].v.u64, &a[3], r);
}
static void hst__kt_reduce_dot(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__kt_reduce(dt, HST_REDUCE_DOT, &a[0], &a[1], a[2].v.u64, a[3].v.u64, &a[4], r);
}
static void hst__kt_reduce_sqnorm(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__kt_reduce(dt, HST_REDUCE_SQNORM, &a[0], NULL, a[1].v.u64, a[2].v.u64, &a[3], r);
}
static void hst__kt_reduce_min(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__kt_reduce(dt, HST_REDUCE_MIN, &a[0], NULL, a[1].v.u64, a[2].v.u64, &a[3], r);
}
static void hst__kt_reduce_max(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__kt_reduce(dt, HST_REDUCE_MAX, &a[0], NULL, a[1].v.u64, a[2].v.u64, &a[3], r);
}

static void hst__kt_random(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[1].v.u64, &first);
    if (n) hst_k_random_host(dt, hst__kt_at(&a[0], first, hst_dtype_size(dt)), n, a[2].v.u64,
                             a[3].v.u64 + first, (hst_random_dist)a[4].v.i32);
}

static void hst__kt_randperm(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[1].v.u64, &first);
    if (n) hst__k_randperm_items(dt, hst_karg_ptr(&a[0]), (size_t)a[1].v.u64, a[2].v.u64, first, first + n);
}

/* >>vocabx adapters */
static void hst__kt_gather(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    uint64_t v[5][4];   /* shape, sst, dstr, shift, mod */
    size_t first, n = hst__kt_items(r, a[2].v.u64, &first);
    if (n && hst__kt_u64x4(&a[3], 5, v))
        hst__k_gather_items(hst_dtype_size(dt), hst_karg_ptr(&a[0]), hst_karg_ptr(&a[1]), first,
                            first + n, v[0], v[1], v[2], v[3], v[4], a[8].v.u64, a[9].v.u64);
}

static void hst__kt_where(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[4].v.u64, &first), es = hst_dtype_size(dt);
    if (n) hst_k_where_host(dt, hst__kt_at(&a[0], first, 1), hst__kt_at(&a[1], first, es),
                            hst__kt_at(&a[2], first, es), hst__kt_at(&a[3], first, es), n);
}

static void hst__kt_ramp(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[1].v.u64, &first);
    if (n) hst__k_ramp_items(dt, hst_karg_ptr(&a[0]), (size_t)a[1].v.u64, hst__kt_d(&a[2]),
                             hst__kt_d(&a[3]), a[4].v.i32, hst__kt_d(&a[5]), first, first + n);
}

static void hst__kt_binary(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    uint64_t v[3][4];   /* shape, ast, bst */
    size_t first, n = hst__kt_items(r, a[3].v.u64, &first);
    if (n && hst__kt_u64x4(&a[4], 3, v))
        hst__k_binary_items(dt, hst_karg_ptr(&a[0]), hst_karg_ptr(&a[1]), hst_karg_ptr(&a[2]), first,
                            first + n, v[0], v[1], v[2], (hst_binary_op)a[7].v.i32);
}

/* dst holds the real type E (half the element), or pairs for CONJ */
static void hst__kt_cpart(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst_complex_part part = (hst_complex_part)a[3].v.i32;
    size_t first, n = hst__kt_items(r, a[2].v.u64, &first), es = hst_dtype_size(dt);
    if (n) hst_k_cpart_host(dt, hst__kt_at(&a[0], first, es),
                            hst__kt_at(&a[1], first, part == HST_PART_CONJ ? es : es / 2), n, part);
}

static void hst__kt_axis(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    size_t first, n = hst__kt_items(r, a[3].v.u64 * a[5].v.u64, &first);   /* outer * inner */
    if (n) hst__k_axis_items(dt, hst_karg_ptr(&a[0]), hst_karg_ptr(&a[1]), (int32_t *)hst_karg_ptr(&a[2]),
                             (size_t)a[4].v.u64, (size_t)a[5].v.u64, (hst_axis_op)a[6].v.i32, first,
                             first + n);
}

static void hst__kt_nonzero_count(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    hst__k_nonzero_count_items(dt, hst_karg_ptr(&a[0]), (size_t)a[1].v.u64, (size_t)a[2].v.u64,
                               (uint64_t *)hst_karg_ptr(&a[3]), (size_t)r->offset[0], hst__kt_last(r));
}

static void hst__kt_argwhere(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    uint64_t shape[1][4];
    if (hst__kt_u64x4(&a[4], 1, shape))
        hst__k_argwhere_items(dt, hst_karg_ptr(&a[0]), (size_t)a[1].v.u64, (size_t)a[2].v.u64,
                              (const uint64_t *)hst_karg_ptr(&a[3]), shape[0], a[5].v.u32,
                              (int64_t *)hst_karg_ptr(&a[6]), (size_t)r->offset[0], hst__kt_last(r));
}

/* Each dtype's twins (hst_twin_fn: the adapter with the program's dtype), declarations and
   families, in dtype order (HST__DTYPES: dtype d at index d - 1). */
#define HST__KT_TWIN(d, id, name, signature, twin) \
    static void twin##_##d(const hst_karg *a, const hst_range *r) { twin(d, a, r); }
#define HST__KT_TWINS(d, dname, bytes, cls, lo, hi) \
    HST__VOCAB_ROWS(HST__KT_TWIN, d) HST__VOCABX_ROWS(HST__KT_TWIN, d)
HST__DTYPES(HST__KT_TWINS)

#define HST__KT_DECL(d, id, name, signature, twin) {#name, signature, twin##_##d},
#define HST__KT_VOCAB_DECLS(d, dname, bytes, cls, lo, hi) {HST__VOCAB_ROWS(HST__KT_DECL, d)},
#define HST__KT_VOCABX_DECLS(d, dname, bytes, cls, lo, hi) {HST__VOCABX_ROWS(HST__KT_DECL, d)},
static const hst_kernel_decl hst__vocab_decls[HST_DTYPE_END - 1][HST_KV_COUNT] = {
    HST__DTYPES(HST__KT_VOCAB_DECLS)
};
static const hst_kernel_decl hst__vocabx_decls[HST_DTYPE_END - 1][HST_KVX_COUNT] = {
    HST__DTYPES(HST__KT_VOCABX_DECLS)
};

#define HST__KT_VOCAB_FAMILY(d, dname, bytes, cls, lo, hi) \
    {"vocab[" dname "]", hst_kernels_vocab_source, hst__vocab_decls[d - 1], HST_KV_COUNT},
#define HST__KT_VOCABX_FAMILY(d, dname, bytes, cls, lo, hi) \
    {"vocabx[" dname "]", hst_kernels_vocabx_source, hst__vocabx_decls[d - 1], HST_KVX_COUNT},
static const hst_kernel_family hst__vocab_families[HST_DTYPE_END - 1] = {
    HST__DTYPES(HST__KT_VOCAB_FAMILY)
};
static const hst_kernel_family hst__vocabx_families[HST_DTYPE_END - 1] = {
    HST__DTYPES(HST__KT_VOCABX_FAMILY)
};

HST__KDEF const hst_kernel_family *hst_kernels_vocab_family(hst_dtype dt)
{
    return hst_dtype_size(dt) ? &hst__vocab_families[dt - 1] : NULL;
}

HST__KDEF const hst_kernel_family *hst_kernels_vocabx_family(hst_dtype dt)
{
    return hst_dtype_size(dt) ? &hst__vocabx_families[dt - 1] : NULL;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_KERNELS_VOCAB_IMPLEMENTATION */

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
