/* array.h — halostream's array vocabulary: typed arrays of 1..4 dimensions (C order) on any
   device with identical semantics everywhere (fill, copy, cast, scale, axpy, math, reductions,
   random numbers; NumPy's gather, where, clip, binary and axis operations, complex parts) and,
   behind HST_FFT, numpy.fft's transforms. Single-file, header-only, C99 (and C++). Sits on
   backend.h (devices, memory, programs, launches) and kernels.h (the vocabulary's kernel
   sources and their host twins); with HST_FFT on OpenCL devices, choice.h (the VkFFT
   configuration for each transform shape, by measured time).

   Do this:
       #define HST_IMPLEMENTATION          (or HST_ARRAY_IMPLEMENTATION for this header alone)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations.

   Usage (a scaled random vector, summed, on whichever device HST_DEVICE or `auto` picks):

       hst_backend_desc desc = {0};               // zero means every documented default
       hst_backend *be; hst_array *x; hst_scalar s;
       size_t shape[2] = {512, 1024};              // C order, slowest axis first
       if (hst_backend_create(&desc, &be) != HST_SUCCESS) return 1;
       hst_result r = hst_array_create(be, HST_F32, 2, shape, &x);
       if (r == HST_SUCCESS) r = hst_array_random(x, HST_RANDOM_NORMAL, 42, 0);   // same numbers everywhere
       if (r == HST_SUCCESS) r = hst_array_scale(x, hst_real(0.5));
       if (r == HST_SUCCESS) r = hst_array_sqnorm(x, &s);   // s.re ~ 0.25 * 512 * 1024
       hst_array_destroy(x);                       // NULL (a failed create) is fine
       if (hst_backend_destroy(be) != HST_SUCCESS || r != HST_SUCCESS) return 1;
       // cc -std=c99 app.c -lOpenCL -lm

   Reference (every public function, by group; each is documented at its declaration):
     Scalars       hst_real, hst_complex, hst_int          operation arguments (hst_scalar)
     Arrays        hst_array_create                        a new array from the backend's pool
                   hst_array_view                          an array over a buffer's bytes
                   hst_array_destroy
                   hst_array_dtype, _ndim, _shape, _count, _bytes, _buffer
                   hst_array_write, hst_array_read         whole-array copies (blocking)
                   hst_array_from_host, hst_array_reshape  PyEPRI's from_numpy; numpy.reshape
     Element-wise  hst_array_fill, _zeros, _ones, _copy    set or copy every element
                   hst_array_cast                          to another dtype (kernels.h's rules)
                   hst_array_scale, hst_array_axpy         x = alpha x; y = alpha x + y
                   hst_array_math                          abs sqrt exp sin cos pow arccos erfc
                   hst_array_random, hst_array_randperm    Philox numbers; a permutation
                   hst_array_binary, _binary_scalar        NumPy's broadcasting a op b
                   hst_array_clip, hst_array_where         numpy.clip; numpy.where
                   hst_array_complex_part                  real, imag, abs, angle, conj
     Ramps         hst_array_arange, _linspace, _fftfreq   numpy's, as new 1-D arrays
     Reductions    hst_array_sum, _dot, _sqnorm, _min, _max   one scalar (blocking)
                   hst_array_sum_batch                     many sums, one wait
                   hst_array_reduce_axis                   sum, max, min, argmax, argmin, cumsum
                   hst_array_argwhere, hst_array_quantile  numpy.argwhere; numpy.quantile
     Moves         hst_array_transpose, _fftshift, _tile   strided copies (one gather each)
                   hst_array_concatenate, _stack, _meshgrid
     FFTs          hst_array_fft, hst_array_fftn           numpy.fft (HST_FFT)
                   hst_fft_built_in, hst_fft_plan_count

   Every operation launches a declared kernel of kernels.h's vocabulary families
   (hst_kernels_vocab_family, hst_kernels_vocabx_family) through backend.h's hst_launch_kernel:
   the kernel on an OpenCL device, its host twin on the host device.

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_ARRAY_IMPLEMENTATION               the implementation TU: compile array.h's body only
     HST_FFT                                the implementation TU: build hst_array_fft (FFTW 3 on
                                            the host device, VkFFT on OpenCL devices; link
                                            -lfftw3f -lfftw3); without it the FFT calls answer
                                            HST_ERROR_NOT_BUILT_IN
     HST_NO_OPENCL, HST_STATIC, HST_API     as in backend.h

   What it does NOT do: it does not broadcast implicitly beyond what each call documents; it does
   not pick a faster but different reduction order per device (sums are the same bits
   everywhere); it does not block except where a call says so (read, write, reductions).

   Version 0.1.0 (HST_VERSION_STRING in backend.h). MIT licence, Copyright (c) 2026 the
   halostream authors (the full text at the end of this file). */

#ifndef HST_ARRAY_H
#define HST_ARRAY_H

#include "backend.h"
#include "choice.h"   /* hst_array_fft's VkFFT configuration per shape (OpenCL devices) */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hst_array hst_array;

/* ---------------------------------------------------------------------------------------------
   Array vocabulary (PyEPRI's backend idea in C): typed arrays of 1..4 dimensions, C order, on any
   device, with identical semantics everywhere. Operations run in order on the backend's default
   queue; read, write and reductions block. The dtypes (kernels.h's hst_dtype): u8 i8 i16 i32
   i64 (NumPy's uint8 .. int64), f32 f64, c64 c128 (complex64, complex128); f64 and c128 need a
   device with fp64 (else HST_ERROR_DTYPE naming the dtype). Which operations each supports:
     fill/zeros/ones/copy/cast/sum: all dtypes;  min/max: the integers, f32, f64;
     scale/axpy/dot/sqnorm/random: f32 f64 c64 c128;
     math (abs sqrt exp sin cos pow arccos erfc): f32 f64.
   Exact on every device, bit for bit: fill, copy, cast, scale, axpy, abs, sqrt (where the device
   rounds sqrt correctly, see hst_device_info), sum/dot/sqnorm/min/max (the reduction order is
   fixed by kernels.h, not by the device; integer sums are int64, wrapping past 2^63), uniform
   random; a NaN that an operation creates (sqrt of a negative number) is a NaN everywhere, with
   the device's payload bits. Within OpenCL's ulp bounds of the host libm (double, rounded once
   for the f32 arccos and erfc): exp (3 ulp), sin and cos (4 ulp), arccos (4 ulp), erfc (16
   ulp), pow (16 ulp), normal random (computed in double, then rounded); the tests allow one
   ulp more for the reference's own rounding. Errors: HST_ERROR_DTYPE (op not defined for the
   dtype; f64 or c128 on a device without fp64), HST_ERROR_SHAPE (operands differ in shape,
   dtype or backend), plus those of the memory layer. */
#define HST_MAX_DIMS 4
/* Scalars for the operations below. Thread-safe. */
HST_API hst_scalar hst_real(double re);
HST_API hst_scalar hst_complex(double re, double im);
HST_API hst_scalar hst_int(int64_t i);

/* shape: ndim extents, C order (shape[0] slowest), each > 0. Memory from the backend's pool.
   Thread safety: per backend (also hst_array_destroy). */
HST_API HST_NODISCARD hst_result hst_array_create(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                                  const size_t *shape, hst_array **out);
/* A view: an array over bytes [offset_bytes, offset_bytes + hst_array_bytes) of buf (shape,
   C order, and dtype as hst_array_create) that does not own them. Every array function takes
   views as it takes arrays, hst_array_fft included, and reads and writes buf's memory there;
   views and buffer see each other's writes in queue order. hst_array_destroy releases the view
   only: it never frees buf, which must outlive it. buf may be any buffer of its backend (made,
   pooled, pinned or wrapped, another array's or view's). A view is an OpenCL sub-buffer of
   buf's underlying allocation (on the host device, a pointer into buf's memory), so where the
   array functions (and VkFFT, which takes no buffer offset) see the view's first element, the
   device sees a buffer start: offset_bytes must be a multiple of the element size on every
   device and, on an OpenCL device, also of CL_DEVICE_MEM_BASE_ADDR_ALIGN
   (hst_device_info.mem_base_addr_align_bytes: 128 bytes on PoCL, up to 4096 on GPUs), which
   OpenCL requires of a sub-buffer's origin; the host device needs only the element size.
   (Views carrying an element offset that every kernel honoured would lift the OpenCL rule at
   the cost of an argument in every vocabulary kernel; the rule costs nothing to a caller whose
   views start at slices of aligned sizes, and is checked here rather than failing later.)
   Errors: HST_ERROR_INVALID_ARGUMENT (buf, shape or out NULL; dtype not an hst_dtype; ndim not
   1..4; a zero extent; offset_bytes not a multiple of the element size: the log names the
   argument), HST_ERROR_SHAPE (logged as HST_LOGITEM_SHAPE_MISMATCH: the view's bytes end beyond
   buf's), HST_ERROR_OVERFLOW (shape's product or the end offset), HST_ERROR_ALIGNMENT (logged
   as HST_LOGITEM_MISALIGNED: an OpenCL device's base address alignment), HST_ERROR_DTYPE (f64 on a
   device without fp64), HST_ERROR_OUT_OF_HOST_MEMORY, OpenCL codes (clCreateSubBuffer).
   Thread safety: per backend (buf's; also hst_array_destroy of a view). */
HST_API HST_NODISCARD hst_result hst_array_view(hst_buffer *buf, size_t offset_bytes, hst_dtype dtype,
                                                unsigned ndim, const size_t *shape, hst_array **out);
HST_API void hst_array_destroy(hst_array *a);
/* Thread safety: while alive. */
HST_API hst_dtype hst_array_dtype(const hst_array *a);
HST_API unsigned hst_array_ndim(const hst_array *a);
HST_API const size_t *hst_array_shape(const hst_array *a);
HST_API size_t hst_array_count(const hst_array *a);   /* elements */
HST_API size_t hst_array_bytes(const hst_array *a);   /* count * dtype size */
HST_API hst_buffer *hst_array_buffer(const hst_array *a);
/* Blocking copies of the whole array; bytes must equal hst_array_bytes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_array_write(hst_array *a, const void *src, size_t bytes);
HST_API HST_NODISCARD hst_result hst_array_read(const hst_array *a, void *dst, size_t bytes);
/* value: integers take value.i64 saturated to the dtype; floats value.re (c64: re, im).
   Thread safety: per backend (also zeros, ones, copy). */
HST_API HST_NODISCARD hst_result hst_array_fill(hst_array *a, hst_scalar value);
HST_API HST_NODISCARD hst_result hst_array_zeros(hst_array *a);
HST_API HST_NODISCARD hst_result hst_array_ones(hst_array *a);
HST_API HST_NODISCARD hst_result hst_array_copy(hst_array *dst, const hst_array *src);  /* same dtype, shape */
/* Converts with kernels.h's rules (float->int truncates and saturates, NaN -> 0; c64->real
   keeps the real part). Same shape; dtypes may differ. Thread safety: per backend (also
   scale, axpy). */
HST_API HST_NODISCARD hst_result hst_array_cast(hst_array *dst, const hst_array *src);
HST_API HST_NODISCARD hst_result hst_array_scale(hst_array *x, hst_scalar alpha);       /* x = alpha x */
HST_API HST_NODISCARD hst_result hst_array_axpy(hst_array *y, hst_scalar alpha, const hst_array *x);
/* dst = op(src) element-wise (dst may be src); p is the exponent of HST_MATH_POW.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_array_math(hst_array *dst, const hst_array *src, hst_math_op op,
                                                double p);
/* Reductions, blocking. sum: integers exact in int64 (out->i64); dot: sum x*y, conj(x)*y for
   c64; sqnorm: sum |x|^2; min/max ignore NaN (all NaN gives NaN).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_array_sum(const hst_array *x, hst_scalar *out);
HST_API HST_NODISCARD hst_result hst_array_dot(const hst_array *x, const hst_array *y, hst_scalar *out);
HST_API HST_NODISCARD hst_result hst_array_sqnorm(const hst_array *x, hst_scalar *out);
HST_API HST_NODISCARD hst_result hst_array_min(const hst_array *x, hst_scalar *out);
HST_API HST_NODISCARD hst_result hst_array_max(const hst_array *x, hst_scalar *out);
/* out[k] = hst_array_sum(x[k]) for k < count, the same bits, with one wait for the device
   instead of count: every reduction is enqueued and its partials read back without blocking,
   then the queue is finished once (a batch of images' sums costs one round trip). The arrays
   share one backend. Errors: hst_array_sum's (the log names the array's index), and
   HST_ERROR_SHAPE where two arrays' backends differ; count 0 is INVALID_ARGUMENT. */
HST_API HST_NODISCARD hst_result hst_array_sum_batch(const hst_array *const *x, size_t count,
                                                     hst_scalar *out);
/* Counter-based random numbers (Philox4x32-10; Salmon et al., SC'11): element i gets the
   numbers of counter offset + i under key seed, so any device, block split or order gives the
   same values. uniform in [0, 1); normal: mean 0, variance 1 (c64: both parts).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_array_random(hst_array *x, hst_random_dist dist, uint64_t seed,
                                                  uint64_t offset);

/* ---------------------------------------------------------------------------------------------
   More vocabulary (>>vocabx): the rest of what PyEPRI's scripts call (README: "PyEPRI's
   vocabulary"), with NumPy's meaning and defaults, identical on every device (kernels.h's second
   vocabulary program; its host twins on the host device). Exact (bitwise equal everywhere):
   every copy-like call (tile included), where, clip, the binary operations (division needs a
   device that rounds division correctly, as the first vocabulary's sqrt; integers wrap as
   NumPy's), the axis operations, argwhere, randperm, quantile, the ramps on devices with fp64
   (else within float rounding). ABS and ANGLE of complex and ARCTAN2: OpenCL's 4, 6 and 6 ulp.
   Axes are numbered from 0 (slowest); shapes C order. Errors: HST_ERROR_INVALID_ARGUMENT (NULL,
   axis out of range, bad op/part, count 0), HST_ERROR_SHAPE (shapes, dtypes or backends
   disagree with what the call needs), HST_ERROR_DTYPE (the op is not defined for the dtype),
   memory errors. Thread safety: per backend (reshape: per object). */

/* numpy.arange(start, stop, step, dtype): ceil((stop - start) / step) elements start + i step
   (a 1-D array; at least one element, else HST_ERROR_INVALID_ARGUMENT). Real dtypes. */
HST_API HST_NODISCARD hst_result hst_array_arange(hst_backend *be, hst_dtype dtype, double start, double stop,
                                                  double step, hst_array **out);
/* numpy.linspace(start, stop, num, endpoint, dtype): start + i step with step = (stop - start)
   / (num - endpoint), the last element exactly stop when endpoint. num >= 1. Real dtypes. */
HST_API HST_NODISCARD hst_result hst_array_linspace(hst_backend *be, hst_dtype dtype, double start, double stop,
                                                    size_t num, int endpoint, hst_array **out);
/* numpy.fft.fftfreq(n, d) (rfft = 0; n elements: 0, 1, .., ceil(n/2) - 1, -floor(n/2), .., -1,
   over d n) and rfftfreq (rfft = 1; n / 2 + 1 elements 0 .. n/2 over d n), in cycles per unit
   of d. f32 or f64. */
HST_API HST_NODISCARD hst_result hst_array_fftfreq(hst_backend *be, hst_dtype dtype, size_t n, double d,
                                                   int rfft, hst_array **out);
/* Creates an array and copies `data` (hst_array_bytes bytes, C order) into it: PyEPRI's
   from_numpy. (to_numpy is hst_array_read.) */
HST_API HST_NODISCARD hst_result hst_array_from_host(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                                     const size_t *shape, const void *data, hst_array **out);
/* Gives a new shape with the same element count to the same memory (numpy.reshape of a
   C-contiguous array: no copy). */
HST_API HST_NODISCARD hst_result hst_array_reshape(hst_array *a, unsigned ndim, const size_t *shape);
/* dst = src.transpose(perm): dst.shape[i] = src.shape[perm[i]]; perm NULL reverses the axes
   (NumPy's default, PyEPRI's transpose). dst must not be src. */
HST_API HST_NODISCARD hst_result hst_array_transpose(hst_array *dst, const hst_array *src,
                                                     const unsigned *perm);
/* numpy.fft.fftshift (inverse = 0) / ifftshift (inverse = 1) over the axes whose bit is set in
   axes_mask (bit a = axis a; ~0u: all axes, NumPy's default). Same shape; dst must not be src. */
HST_API HST_NODISCARD hst_result hst_array_fftshift(hst_array *dst, const hst_array *src, unsigned axes_mask,
                                                    int inverse);
/* numpy.concatenate(srcs, axis): srcs agree in dtype, ndim and every extent but axis's; dst's
   axis extent is their sum. numpy.stack(srcs, axis): srcs of one shape; dst has one more axis,
   at `axis`, of extent count. */
HST_API HST_NODISCARD hst_result hst_array_concatenate(hst_array *dst, hst_array *const *srcs, size_t count,
                                                       unsigned axis);
HST_API HST_NODISCARD hst_result hst_array_stack(hst_array *dst, hst_array *const *srcs, size_t count,
                                                 unsigned axis);
/* numpy.meshgrid(*vecs, indexing): count 1-D arrays (count <= 4) of lengths n_k; each dst[k]
   has shape (n_0, n_1, ...) with indexing ij (ij = 1) or (n_1, n_0, n_2, ...) with xy
   (ij = 0, NumPy's default) and holds vecs[k] along the axis of n_k. */
HST_API HST_NODISCARD hst_result hst_array_meshgrid(hst_array *const *dst, hst_array *const *vecs,
                                                    size_t count, int ij);
/* dst = a op b, broadcasting as NumPy does: shapes are aligned at the last axis; each extent
   of a and b equals dst's or is 1 (or the axis is missing); dst's shape is the broadcast shape
   (dst may be a or b when it has their shape). Ops per dtype: kernels.h's hst_binary_op. */
HST_API HST_NODISCARD hst_result hst_array_binary(hst_array *dst, const hst_array *a, const hst_array *b,
                                                  hst_binary_op op);
/* dst = a op s (scalar_first = 0) or s op a (1), s rounded to a's dtype first. */
HST_API HST_NODISCARD hst_result hst_array_binary_scalar(hst_array *dst, const hst_array *a, hst_scalar s,
                                                         hst_binary_op op, int scalar_first);
/* numpy.clip: dst = minimum(maximum(src, lo), hi) (NaN stays NaN). i8 i16 i32 i64 u8 f32 f64. */
HST_API HST_NODISCARD hst_result hst_array_clip(hst_array *dst, const hst_array *src, double lo, double hi);
/* numpy.where(cond, a, b) with cond a u8 array (nonzero = true); all four of one shape. */
HST_API HST_NODISCARD hst_result hst_array_where(hst_array *dst, const hst_array *cond, const hst_array *a,
                                                 const hst_array *b);
/* Along `axis`: SUM, MAX, MIN (dst of src's dtype), ARGMAX, ARGMIN (dst i32; first index of
   the extreme, or of the first NaN), with dst's shape src's without axis ((1) for a 1-D src);
   CUMSUM (numpy.cumsum(axis): dst like src). Order and NaN rules: kernels.h's hst_k_axis. */
HST_API HST_NODISCARD hst_result hst_array_reduce_axis(hst_array *dst, const hst_array *src, unsigned axis,
                                                       hst_axis_op op);
/* numpy.tile(src, reps): dst holds src repeated reps[k] times along axis k. With
   d = max(src's ndim, nreps) (<= 4), src's shape and reps are first padded with leading 1s
   to d axes (NumPy's rule); dst's shape must be their product axis by axis, and its dtype
   src's. reps[k] >= 1 (a 0 would make an empty array, which the vocabulary has not). dst must
   not be src. Errors: HST_ERROR_INVALID_ARGUMENT (reps NULL, nreps 0 or > 4, a rep 0),
   HST_ERROR_SHAPE (dst's shape, dtype or backend), HST_ERROR_OVERFLOW. */
HST_API HST_NODISCARD hst_result hst_array_tile(hst_array *dst, const hst_array *src,
                                                const size_t *reps, unsigned nreps);
/* numpy.argwhere(src): the C-order indices of src's nonzero elements (NaN is nonzero, -0 is
   zero; complex: either part), as a new i64 array of shape (count, src's ndim) on src's
   backend, rows in C order of the elements; *count gets the number of rows. No nonzero
   element gives *out = NULL and *count = 0 (NumPy's (0, ndim) array: the vocabulary has no
   empty arrays). Any dtype; blocking (the counts come back to place the rows). Two passes
   (kernels.h's hst_k_nonzero_count, hst_k_argwhere), so the rows are the same everywhere.
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL), memory errors. */
HST_API HST_NODISCARD hst_result hst_array_argwhere(const hst_array *src, hst_array **out,
                                                    size_t *count);
/* numpy.quantile(x, q) over the whole array with NumPy's default method "linear" (Hyndman &
   Fan 1996, definition 7), for nq probabilities q[k] in [0, 1] into out[k]: with the n
   elements sorted ascending v[0..n), h = (n - 1) q, i = floor(h), g = h - i, and j = min(i + 1,
   n - 1), out = v[i] + (v[j] - v[i]) g, or v[j] - (v[j] - v[i]) (1 - g) when g >= 0.5 (NumPy's
   _lerp). Arithmetic as NumPy 2.4 does it for a Python float q: h and g in double; the lerp
   in f32 for f32 x (g and 1 - g rounded to f32, NumPy's weak promotion), in f64 for f64 and
   the integers (whose difference v[j] - v[i] is taken in int64, where NumPy's i8 / i16
   subtraction would wrap).
   Any NaN in x gives NaN (numpy.quantile, not nanquantile). Real dtypes. The sort runs on the
   host on a copy read back (blocking; x is unchanged): it is exact, so every device gives the
   same bits; a quantile is a few values of a display or threshold step, not worth a device
   sort. Errors: HST_ERROR_INVALID_ARGUMENT (NULL, nq 0, a q outside [0, 1] or NaN),
   HST_ERROR_DTYPE (complex), memory errors. */
HST_API HST_NODISCARD hst_result hst_array_quantile(const hst_array *x, const double *q, size_t nq,
                                                    double *out);
/* torch.randperm(n) / numpy.random.permutation(n), counter-based: dst (1-D, i32 or i64, n
   elements) gets a permutation of 0..n-1 that depends only on (n, seed), the same on every
   device (kernels.h's hst_k_randperm: a Philox-keyed Feistel network with cycle walking; it
   does not reproduce NumPy's or torch's generator streams). Errors: HST_ERROR_DTYPE (not i32
   or i64), HST_ERROR_SHAPE (dst not 1-D). */
HST_API HST_NODISCARD hst_result hst_array_randperm(hst_array *dst, uint64_t seed);
/* numpy.real / imag / abs / angle of a complex src into a dst of its shape and real type
   (f32 for c64, f64 for c128); CONJ: dst of src's dtype. */
HST_API HST_NODISCARD hst_result hst_array_complex_part(hst_array *dst, const hst_array *src,
                                                        hst_complex_part part);

/* ---------------------------------------------------------------------------------------------
   FFTs (>>fft): numpy.fft's semantics on every device. Opt-in: compile the implementation TU
   with HST_FFT defined (link -lfftw3f -lfftw3, FFTW's single and double precision libraries;
   it needs FFTW 3's fftw3.h, and, unless HST_NO_OPENCL,
   VkFFT's vkFFT.h: Debian libfftw3-dev and libvkfft-dev). Without HST_FFT every FFT call returns
   HST_ERROR_NOT_BUILT_IN and logs HST_LOGITEM_NOT_BUILT_IN; the rest of the library is unchanged.
   The host device runs FFTW (Frigo & Johnson, "The design and implementation of FFTW3",
   Proc. IEEE 93(2), 2005); OpenCL devices run VkFFT's OpenCL backend (Tolmachev, "VkFFT - a
   performant, cross-platform and open-source GPU FFT library", IEEE Access 11, 2023).

   hst_array_fft transforms the LAST `axes` axes (1, 2 or 3; NumPy's fft/fft2/fftn with the
   default axes) of src into dst, batched over the leading axes (C order, each batch contiguous).
   The kind follows the dtypes, in single (c64, f32) or double (c128, f64) precision:
     c64 -> c64, c128 -> c128   c2c, forward or inverse; dst may be src (in place: also two
                  views of the same bytes, see hst_array_view); same shapes.
     f32 -> c64, f64 -> c128    r2c (numpy.fft.rfftn), forward only: dst's last extent is
                  src's n / 2 + 1.
     c64 -> f32, c128 -> f64    c2r (numpy.fft.irfftn), inverse only: dst's shape gives the
                  real lengths (n, NumPy's `s`), src's last extent must be n / 2 + 1; src is
                  not modified. src must be the spectrum of a real array (Hermitian symmetric,
                  as r2c makes it); for other input the devices' results may differ.
   Double precision runs FFTW's double library on the host device and VkFFT's doublePrecision
   on OpenCL devices; it needs the device's fp64, as every f64/c128 array does (on a device
   without it hst_array_create and hst_array_view refuse the dtype: HST_ERROR_DTYPE).
   Sign: forward X[k] = sum_j x[j] exp(-2 pi i j k / n) per axis, inverse with +. norm is
   NumPy's: with N the product of the transformed (real-space) extents, BACKWARD scales the
   inverse by 1/N, ORTHO both by 1/sqrt(N), FORWARD the forward by 1/N (in the transform's
   precision).
   Plans are made on first use per (precision, kind, direction, lengths, batch, in-place) and
   kept by the backend until it is destroyed (VkFFT compiles its kernels then: the first call
   of a shape is slow on an OpenCL device, later ones are not). On an OpenCL device VkFFT's
   configuration is chosen by measured time (choice.h's operations array_fft_<c2c|r2c|c2r>_
   <c64|c128>, whose signature buckets each length and the batch by half-octaves): on a GPU the
   calls that measure one (the first 12 or so of each kind, precision and size range) make its
   plan, finish the queue and wait for the transform; the configurations round differently, so
   a GPU's results may differ in the last bits from one process to another (each within the
   error bound above). Other calls run in order on the backend's queue and do not block. Once
   a size range's choice has settled, the plans of the configurations not chosen there go.
   Views (hst_array_view) are transformed where they lie, on every device: FFTW gets their
   pointers, VkFFT their sub-buffers.
   On the host device a transform of 2^14 elements or more runs on all the host's cores
   (backend.h's hst_parallel), in pieces that FFTW plans of fewer transforms run: a batch's
   transforms; one transform of 2 or 3 axes, the slices along its faster axes, then the
   columns along its slowest (c2r: the other way round); a single 1-D transform stays on one
   core. The pieces follow the shape alone, so the host device's bits are the same for any
   number of cores (with FFTW 3.3.10 on x86-64 they are also the bits of one FFTW plan of the
   whole transform, as before the pieces: tests/test_fft.c checks it).
   Errors: HST_ERROR_NOT_BUILT_IN; HST_ERROR_INVALID_ARGUMENT (NULL, axes not 1..3 or > ndim,
   a direction the kind lacks, src and dst views of overlapping but not the same bytes);
   HST_ERROR_DTYPE (a dtype pair other than the six above: one precision per call, naming
   src's dtype);
   HST_ERROR_SHAPE (shapes or backends disagree); HST_ERROR_UNSUPPORTED with
   HST_LOGITEM_FFT_LIBRARY (FFTW or VkFFT refused the plan); memory errors.
   Thread safety: per backend. */
typedef enum hst_fft_norm {
    HST_FFT_NORM_BACKWARD = 0,   /* NumPy's default ("backward") */
    HST_FFT_NORM_ORTHO = 1,
    HST_FFT_NORM_FORWARD = 2
} hst_fft_norm;
#define HST_FFT_MAX_AXES 3
HST_API HST_NODISCARD hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                               int inverse, hst_fft_norm norm);
/* numpy.fft.fftn / ifftn / rfftn / irfftn with `s` and `axes` (fft / ifft / rfft / irfft with
   `n` and `axis`: naxes = 1): transforms src's axes[0..naxes) (distinct; NULL: the last naxes
   axes, NumPy's default) into dst, each transformed axis k of the input first cropped, or
   zero-padded at its end, to length s[k] (s NULL: src's extents, except c2r's last axis,
   2 (m - 1) for m bins: NumPy's defaults). The kind follows the dtypes as for hst_array_fft:
   r2c halves axes[naxes - 1] (NumPy's last axis of `axes`): dst's extent there is
   s / 2 + 1; c2r crops or pads that axis of src to s / 2 + 1 bins and dst's extent there is
   s. dst's shape: src's, with extent s[k] along axes[k] (r2c's last: s / 2 + 1). norm's N is
   the product of s. naxes 1..3. How: one gather moves the transformed axes last (in axes'
   order) and crops or pads, hst_array_fft transforms, one gather moves them back; each
   step is skipped when it would be a plain copy (the temporaries come from the backend's
   pool). dst may be src only where no step is needed (then hst_array_fft's in-place rules
   hold). Errors: hst_array_fft's, plus HST_ERROR_INVALID_ARGUMENT (an axis out of range or
   repeated, an s[k] of 0) and HST_ERROR_SHAPE (dst's shape is not the one above).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_array_fftn(hst_array *dst, const hst_array *src,
                                                unsigned naxes, const unsigned *axes,
                                                const size_t *s, int inverse, hst_fft_norm norm);
/* 1 when the implementation was compiled with HST_FFT. Thread-safe. */
HST_API int hst_fft_built_in(void);
/* Plans the backend holds (0 without HST_FFT): one per transform kind, precision, lengths and
   batch; on a GPU up to one per VkFFT configuration hst_array_fft measures for them (four)
   until the choice at their size range settles. Thread safety: per backend. */
HST_API size_t hst_fft_plan_count(const hst_backend *be);

#ifdef __cplusplus
}
#endif
#endif /* HST_ARRAY_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_IMPLEMENTATION) && !defined(HST_ARRAY_IMPLEMENTATION)
#  define HST_ARRAY_IMPLEMENTATION
#endif
#if defined(HST_ARRAY_IMPLEMENTATION) && !defined(HST__ARRAY_IMPLEMENTED)
#define HST__ARRAY_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>fft's libraries, outside extern "C" (their headers include C++-aware system headers). */
#ifdef HST_FFT
#  include <fftw3.h>
#  ifndef HST_NO_OPENCL
#    ifndef VKFFT_BACKEND
#      define VKFFT_BACKEND 3
#    elif VKFFT_BACKEND != 3
#      error "array.h's FFTs need VkFFT's OpenCL backend (VKFFT_BACKEND 3)"
#    endif
#    include <vkFFT.h>
#  endif
#endif

/* kernels.h's vocabulary families (the declared kernels array.h launches) compile here, now that
   backend.h's launcher types are declared. */
#ifndef HST_KERNELS_VOCAB_IMPLEMENTATION
#  define HST_KERNELS_VOCAB_IMPLEMENTATION
#endif
#include "kernels.h"

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__ADEF HST_API __attribute__((unused))
#else
#  define HST__ADEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>types (array.h uses backend.h's public API only, so its implementation may live in
   another translation unit than backend.h's; rejections go through hst_backend_fail and its
   hst__*_arg macros) ------------------------------------------------------------------------ */
struct hst_array {
    hst_backend *be;
    hst_dtype dtype;
    unsigned ndim;
    size_t shape[HST_MAX_DIMS];
    size_t count, bytes;
    hst_buffer *buf;
};


/* array.h's state on a backend (its "array" extension, made on first use): the FFT plans and,
   for VkFFT (which keeps their addresses), copies of the backend's OpenCL handles. (The
   vocabulary's programs and kernels are the backend's: hst_launch_kernel keeps them.) */
#define HST__ARRAY_EXTENSION "array"
typedef struct hst__array_state {
    struct hst__fft_plan *fft_plans;   /* >>fft: plans made so far and refusals kept (NULL
                                          without HST_FFT) */
#ifndef HST_NO_OPENCL
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queue;
#endif
} hst__array_state;

#ifdef HST_FFT   /* the state is made by the first FFT plan */
static void hst__fft_release(hst_backend *be, hst__array_state *st);

/* The state's destroy hook, called by hst_backend_destroy. */
static void hst__array_state_destroy(hst_backend *be, void *data) {
    hst__array_state *st = (hst__array_state *)data;
    hst__fft_release(be, st);
    hst_backend_free(be, st);
}

/* The backend's state into *out, made and attached on first use. Errors (logged):
   HST_ERROR_OUT_OF_HOST_MEMORY, hst_backend_attach's (every extension slot taken). */
static hst_result hst__array_state_of(hst_backend *be, hst__array_state **out) {
    hst__array_state *st = (hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    hst_result r;
    if ((*out = st) != NULL) return HST_SUCCESS;
    if (!(st = (hst__array_state *)hst_backend_calloc(be, sizeof *st))) return HST_ERROR_OUT_OF_HOST_MEMORY;
#ifndef HST_NO_OPENCL
    st->platform = hst_backend_cl_platform(be);
    st->dev = hst_backend_cl_device(be);
    st->ctx = hst_backend_cl_context(be);
    st->queue = hst_queue_cl(hst_backend_queue(be));
#endif
    if ((r = hst_backend_attach(be, HST__ARRAY_EXTENSION, st, hst__array_state_destroy)) != HST_SUCCESS) {
        hst_backend_free(be, st);
        return r;
    }
    *out = st;
    return HST_SUCCESS;
}
#endif

/* >>arrays ----------------------------------------------------------------------------------- */
HST__ADEF hst_scalar hst_real(double re) { return hst_complex(re, 0.0); }
HST__ADEF hst_scalar hst_complex(double re, double im) {
    hst_scalar s;
    s.re = re; s.im = im;
    s.i64 = re != re ? 0 : re >= 9223372036854775807.0 ? INT64_MAX
          : re <= -9223372036854775808.0 ? INT64_MIN : (int64_t)re;
    return s;
}
HST__ADEF hst_scalar hst_int(int64_t i) {
    hst_scalar s;
    s.re = (double)i; s.im = 0.0; s.i64 = i;
    return s;
}

HST__ADEF hst_dtype hst_array_dtype(const hst_array *a) { return a ? a->dtype : (hst_dtype)0; }
HST__ADEF unsigned hst_array_ndim(const hst_array *a) { return a ? a->ndim : 0; }
HST__ADEF const size_t *hst_array_shape(const hst_array *a) { return a ? a->shape : NULL; }
HST__ADEF size_t hst_array_count(const hst_array *a) { return a ? a->count : 0; }
HST__ADEF size_t hst_array_bytes(const hst_array *a) { return a ? a->bytes : 0; }
HST__ADEF hst_buffer *hst_array_buffer(const hst_array *a) { return a ? a->buf : NULL; }

/* f64 and c128 need the device's fp64 support, wherever they appear. */
static hst_result hst__check_fp64(const hst_backend *be, const char *func, hst_dtype dt) {
    if (hst_dtype_needs_fp64(dt) && !hst_backend_device(be)->fp64)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func,
                                "dtype %s: the device has no double precision (cl_khr_fp64)", hst_dtype_name(dt));
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_create(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                    const size_t *shape, hst_array **out) {
    static const char *F = "hst_array_create";
    hst_array *a;
    size_t count = 1, bytes;
    unsigned i;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (!hst_dtype_size(dtype)) return hst__range_arg(be, F, "dtype %d is not an hst_dtype", (int)dtype);
    if (ndim < 1 || ndim > HST_MAX_DIMS) return hst__range_arg(be, F, "ndim %u is not 1..%d", ndim, HST_MAX_DIMS);
    if (!shape) return hst__null_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++) {
        if (!shape[i]) return hst__zero_arg(be, F, "shape[%u] is 0", i);
        if (!hst_size_mul(count, shape[i], &count))
            return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "the product of shape overflows size_t");
    }
    if (!hst_size_mul(count, hst_dtype_size(dtype), &bytes))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "elements * element size overflows size_t");
    if ((r = hst__check_fp64(be, F, dtype)) != HST_SUCCESS) return r;
    if (!(a = (hst_array *)hst_backend_calloc(be, sizeof *a))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    a->be = be; a->dtype = dtype; a->ndim = ndim; a->count = count; a->bytes = bytes;
    for (i = 0; i < ndim; i++) a->shape[i] = shape[i];
    if ((r = hst_pool_alloc(hst_backend_pool(be), bytes, &a->buf)) != HST_SUCCESS) { hst_backend_free(be, a); return r; }
    *out = a;
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_view(hst_buffer *buf, size_t offset_bytes, hst_dtype dtype,
                                  unsigned ndim, const size_t *shape, hst_array **out) {
    static const char *F = "hst_array_view";
    hst_backend *be;
    hst_array *a;
    size_t count = 1, bytes, end, es = hst_dtype_size(dtype), align;
    unsigned i;
    hst_result r;
    if (!buf) return hst__null_arg(NULL, F, "buf is NULL");
    be = hst_buffer_backend(buf);
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (!es) return hst__range_arg(be, F, "dtype %d is not an hst_dtype", (int)dtype);
    if (ndim < 1 || ndim > HST_MAX_DIMS) return hst__range_arg(be, F, "ndim %u is not 1..%d", ndim, HST_MAX_DIMS);
    if (!shape) return hst__null_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++) {
        if (!shape[i]) return hst__zero_arg(be, F, "shape[%u] is 0", i);
        if (!hst_size_mul(count, shape[i], &count))
            return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "the product of shape overflows size_t");
    }
    if (!hst_size_mul(count, es, &bytes))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "elements * element size overflows size_t");
    if (offset_bytes % es)
        return hst__bad_arg(be, F, "offset_bytes %zu is not a multiple of the %s element size (%zu bytes)",
                            offset_bytes, hst_dtype_name(dtype), es);
    if (!hst_size_add(offset_bytes, bytes, &end))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "offset_bytes + the view's bytes overflows size_t");
    if (end > hst_buffer_bytes(buf))
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F, "offset_bytes %zu + "
                                "shape's %zu bytes = %zu exceed buf's %zu bytes", offset_bytes, bytes, end,
                                hst_buffer_bytes(buf));
    if ((r = hst__check_fp64(be, F, dtype)) != HST_SUCCESS) return r;
    /* the host device's pointers need only whole elements; OpenCL sub-buffers the device's
       base address alignment (a power of two at least as large as any element) */
    align = hst_backend_is_host(be) ? es : hst_backend_device(be)->mem_base_addr_align_bytes;
    if (!(a = (hst_array *)hst_backend_calloc(be, sizeof *a))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    a->be = be; a->dtype = dtype; a->ndim = ndim; a->count = count; a->bytes = bytes;
    for (i = 0; i < ndim; i++) a->shape[i] = shape[i];
    if ((r = hst_buffer_create_view(buf, offset_bytes, bytes, align, &a->buf)) != HST_SUCCESS) {
        hst_backend_free(be, a);
        return r;
    }
    *out = a;
    return HST_SUCCESS;
}

/* A view's buffer is its own sub-buffer: destroying it leaves the viewed memory alone. */
HST__ADEF void hst_array_destroy(hst_array *a) {
    if (!a) return;
    hst_buffer_destroy(a->buf);
    hst_backend_free(a->be, a);
}

static hst_result hst__check_array(const char *func, const hst_array *a, const char *name) {
    if (!a) return hst__null_arg(NULL, func, "%s is NULL", name);
    return HST_SUCCESS;
}

/* Two operands agree: same backend, same shape, and (when asked) the same dtype. */
static hst_result hst__check_pair(const char *func, const hst_array *a, const hst_array *b,
                                  int same_dtype) {
    unsigned i;
    int same = a->be == b->be && a->ndim == b->ndim && (!same_dtype || a->dtype == b->dtype);
    for (i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (same) return HST_SUCCESS;
    return hst_backend_fail(a->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                            "operands differ in %s", a->be != b->be ? "backend"
                            : (a->ndim != b->ndim || !same_dtype || a->dtype == b->dtype) ? "shape" : "dtype");
}

HST__ADEF hst_result hst_array_write(hst_array *a, const void *src, size_t bytes) {
    hst_result r;
    if ((r = hst__check_array("hst_array_write", a, "a")) != HST_SUCCESS) return r;
    if (bytes != a->bytes)
        return hst__bad_arg(a->be, "hst_array_write", "bytes %zu != the array's %zu", bytes, a->bytes);
    return hst_write(hst_backend_queue(a->be), a->buf, 0, src, bytes, 1, 0, NULL, NULL);
}

HST__ADEF hst_result hst_array_read(const hst_array *a, void *dst, size_t bytes) {
    hst_result r;
    if ((r = hst__check_array("hst_array_read", a, "a")) != HST_SUCCESS) return r;
    if (bytes != a->bytes)
        return hst__bad_arg(a->be, "hst_array_read", "bytes %zu != the array's %zu", bytes, a->bytes);
    return hst_read(hst_backend_queue(a->be), a->buf, 0, dst, bytes, 1, 0, NULL, NULL);
}

/* One element of dtype dt holding v, by the cast rules: integers saturate v.i64 (an i64
   cast), floats round v.re and v.im (a c128 cast). */
static void hst__element(hst_dtype dt, hst_scalar v, unsigned char *out) {
    double z[2];
    z[0] = v.re; z[1] = v.im;
    if (hst_dtype_is_int(dt)) hst_k_cast_host(dt, out, HST_I64, &v.i64, 1);
    else hst_k_cast_host(dt, out, HST_C128, z, 1);
}

HST__ADEF hst_result hst_array_fill(hst_array *a, hst_scalar value) {
    unsigned char el[16];
    hst_result r;
    if ((r = hst__check_array("hst_array_fill", a, "a")) != HST_SUCCESS) return r;
    hst__element(a->dtype, value, el);
    return hst_fill(hst_backend_queue(a->be), a->buf, el, hst_dtype_size(a->dtype), 0, a->bytes, 0, NULL, NULL);
}

HST__ADEF hst_result hst_array_zeros(hst_array *a) { return hst_array_fill(a, hst_int(0)); }
HST__ADEF hst_result hst_array_ones(hst_array *a) { return hst_array_fill(a, hst_int(1)); }

HST__ADEF hst_result hst_array_copy(hst_array *dst, const hst_array *src) {
    static const char *F = "hst_array_copy";
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    if (dst == src) return HST_SUCCESS;
    return hst_copy(hst_backend_queue(dst->be), dst->buf, 0, src->buf, 0, dst->bytes, 0, NULL, NULL);
}

/* Launches kernel `id` of dt's vocabulary program (fam: hst_kernels_vocab_family or
   hst_kernels_vocabx_family) over `items` work-items, in work-groups of `local` (0: any), on the
   backend's queue: the kernel on an OpenCL device, its host twin on the host device. */
static hst_result hst__launch(hst_backend *be, const struct hst_kernel_family *fam, hst_dtype dt,
                              unsigned id, const hst_karg *args, size_t num_args, size_t items,
                              size_t local) {
    const hst_device_info *dev = hst_backend_device(be);
    char options[128];
    hst_launch_desc d;
    if (!items) return HST_SUCCESS;
    snprintf(options, sizeof options, "%s%s%s", hst_kernels_vocab_options(dt), dev->fp64 ? " -DHST_FP64" : "",
             dev->correctly_rounded_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    memset(&d, 0, sizeof d);
    d.family = fam;
    d.options = options;
    d.kernel = id;
    d.args = args;
    d.num_args = num_args;
    d.range.dims = 1;
    d.range.global[0] = items;
    d.range.local[0] = local;
    return hst_launch_kernel(be, &d, NULL);
}

/* An element-wise kernel of a's dtype's first vocabulary program over a's elements. */
static hst_result hst__vocab_run(const hst_array *a, unsigned id, const hst_karg *args, size_t num_args) {
    return hst__launch(a->be, hst_kernels_vocab_family(a->dtype), a->dtype, id, args, num_args, a->count, 0);
}
/* A kernel of dt's second vocabulary program over `items` work-items. */
static hst_result hst__vocabx_run(hst_backend *be, hst_dtype dt, unsigned id, const hst_karg *args,
                                  size_t num_args, size_t items) {
    return hst__launch(be, hst_kernels_vocabx_family(dt), dt, id, args, num_args, items, 0);
}

/* A T-typed kernel argument holding v rounded to dt (hst__element's rules): bytes[0 .. size). */
typedef struct hst__targ { unsigned char bytes[16]; size_t size; } hst__targ;
static hst__targ hst__typed(hst_dtype dt, hst_scalar v) {
    hst__targ t;
    hst__element(dt, v, t.bytes);
    t.size = hst_dtype_size(dt);
    return t;
}

HST__ADEF hst_result hst_array_cast(hst_array *dst, const hst_array *src) {
    static const char *F = "hst_array_cast";
    static const unsigned from[HST_DTYPE_END] = {   /* the kernel converting from each dtype */
        0, HST_KV_CAST_FROM_U8, HST_KV_CAST_FROM_I32, HST_KV_CAST_FROM_F32, HST_KV_CAST_FROM_F64,
        HST_KV_CAST_FROM_C64, HST_KV_CAST_FROM_I8, HST_KV_CAST_FROM_I16, HST_KV_CAST_FROM_I64,
        HST_KV_CAST_FROM_C128
    };
    hst_karg a[3];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 0)) != HST_SUCCESS) return r;
    if (dst->dtype == src->dtype) return hst_array_copy(dst, src);
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_buffer(dst->buf); a[2] = hst_karg_ulong(dst->count);
    return hst__vocab_run(dst, from[src->dtype], a, 3);
}

/* The dtype supports the element-wise arithmetic family (scale, axpy, random). */
static hst_result hst__check_arith(const hst_array *a, const char *func) {
    if (!hst_kernels_arith_supported(a->dtype))
        return hst_backend_fail(a->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func, "dtype %s: defined for f32, "
                                "f64, c64 and c128 only", hst_dtype_name(a->dtype));
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_scale(hst_array *x, hst_scalar alpha) {
    static const char *F = "hst_array_scale";
    hst__targ t;
    hst_karg a[3];
    hst_result r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(x, F)) != HST_SUCCESS) return r;
    t = hst__typed(x->dtype, alpha);
    a[0] = hst_karg_buffer(x->buf); a[1] = hst_karg_ulong(x->count); a[2] = hst_karg_value(t.size, t.bytes);
    return hst__vocab_run(x, HST_KV_SCALE, a, 3);
}

HST__ADEF hst_result hst_array_axpy(hst_array *y, hst_scalar alpha, const hst_array *x) {
    static const char *F = "hst_array_axpy";
    hst__targ t;
    hst_karg a[4];
    hst_result r;
    if ((r = hst__check_array(F, y, "y")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, y, x, 1)) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(y, F)) != HST_SUCCESS) return r;
    t = hst__typed(y->dtype, alpha);
    a[0] = hst_karg_buffer(y->buf); a[1] = hst_karg_buffer(x->buf); a[2] = hst_karg_ulong(y->count);
    a[3] = hst_karg_value(t.size, t.bytes);
    return hst__vocab_run(y, HST_KV_AXPY, a, 4);
}

HST__ADEF hst_result hst_array_math(hst_array *dst, const hst_array *src, hst_math_op op,
                                  double p) {
    static const char *F = "hst_array_math";
    hst__targ t;
    hst_karg a[5];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_MATH_COUNT) return hst__range_arg(dst->be, F, "op %d is not an hst_math_op", (int)op);
    if (!hst_kernels_math_supported(dst->dtype, op))
        return hst_backend_fail(dst->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: element-wise math is defined for f32 and f64 only", hst_dtype_name(dst->dtype));
    t = hst__typed(dst->dtype, hst_real(p));
    a[0] = hst_karg_buffer(dst->buf); a[1] = hst_karg_buffer(src->buf); a[2] = hst_karg_ulong(dst->count);
    a[3] = hst_karg_int((int32_t)op); a[4] = hst_karg_value(t.size, t.bytes);
    return hst__vocab_run(dst, HST_KV_MATH, a, 5);
}

HST__ADEF hst_result hst_array_random(hst_array *x, hst_random_dist dist, uint64_t seed,
                                    uint64_t offset) {
    static const char *F = "hst_array_random";
    hst_karg a[5];
    hst_result r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(x, F)) != HST_SUCCESS) return r;
    if (dist != HST_RANDOM_UNIFORM && dist != HST_RANDOM_NORMAL)
        return hst__range_arg(x->be, F, "dist %d is not an hst_random_dist", (int)dist);
    a[0] = hst_karg_buffer(x->buf); a[1] = hst_karg_ulong(x->count); a[2] = hst_karg_ulong(seed);
    a[3] = hst_karg_ulong(offset); a[4] = hst_karg_int((int32_t)dist);
    return hst__vocab_run(x, HST_KV_RANDOM, a, 5);
}

/* >>reductions ------------------------------------------------------------------------------- */
/* Block partials (one work-group of HST_REDUCE_LOCAL per block of steps * HST_REDUCE_LOCAL
   elements, kernels.h's hst_kernels_reduce_groups: the kernel
   on an OpenCL device, its twin on the host device), read back into `partial`; the order is
   kernels.h's, so the bits are the same everywhere. keep NULL: the read blocks; else it does
   not, and *keep is the partials' buffer, for the caller to destroy once the queue has
   finished. */
static hst_result hst__reduce_partials(const hst_array *x, const hst_array *y, hst_reduce_op op,
                                       size_t groups, size_t bytes, void *partial, hst_buffer **keep) {
    static const unsigned kernel[HST_REDUCE_COUNT] = {
        HST_KV_REDUCE_SUM, HST_KV_REDUCE_DOT, HST_KV_REDUCE_SQNORM, HST_KV_REDUCE_MIN, HST_KV_REDUCE_MAX
    };
    hst_backend *be = x->be;
    const hst_device_info *dev = hst_backend_device(be);
    hst_buffer *pbuf;
    hst_karg a[5];
    size_t items, steps, k = 0;
    hst_result r;
    (void)hst_kernels_reduce_groups(x->count, &steps);   /* groups came from it too */
    /* the fixed order needs whole work-groups of HST_REDUCE_LOCAL (the host device's twins
       run a work-group serially: its limit of 1 does not apply) */
    if (!hst_backend_is_host(be) && dev->max_work_group_size < HST_REDUCE_LOCAL)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, "reduction", "reductions "
                                "need work-groups of %d; %s allows %zu", HST_REDUCE_LOCAL, dev->name,
                                dev->max_work_group_size);
    if (!hst_size_mul(groups, HST_REDUCE_LOCAL, &items))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "reduction",
                                "work-items overflows size_t");
    if ((r = hst_pool_alloc(hst_backend_pool(be), bytes, &pbuf)) != HST_SUCCESS) return r;
    a[k++] = hst_karg_buffer(x->buf);
    if (op == HST_REDUCE_DOT) a[k++] = hst_karg_buffer(y->buf);
    a[k++] = hst_karg_ulong(x->count);
    a[k++] = hst_karg_ulong(steps);
    a[k++] = hst_karg_buffer(pbuf);
    r = hst__launch(be, hst_kernels_vocab_family(x->dtype), x->dtype, kernel[op], a, k, items, HST_REDUCE_LOCAL);
    if (r == HST_SUCCESS) r = hst_read(hst_backend_queue(be), pbuf, 0, partial, bytes, !keep, 0, NULL, NULL);
    if (r == HST_SUCCESS && keep) *keep = pbuf;
    else hst_buffer_destroy(pbuf);
    return r;
}

/* The checks of a reduction of x (and y) and its partials: groups of them, bytes in all. */
static hst_result hst__reduce_check(const char *func, const char *name, const hst_array *x, const hst_array *y,
                                    hst_reduce_op op, size_t *groups, size_t *bytes) {
    hst_result r;
    if ((r = hst__check_array(func, x, name)) != HST_SUCCESS) return r;
    if (y && (r = hst__check_pair(func, x, y, 1)) != HST_SUCCESS) return r;
    if (!hst_kernels_reduce_supported(x->dtype, op))
        return hst_backend_fail(x->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func,
                                "dtype %s: this reduction is not defined for it", hst_dtype_name(x->dtype));
    {
        size_t steps;
        *groups = hst_kernels_reduce_groups(x->count, &steps);
    }
    if (!hst_size_mul(*groups, hst_kernels_partial_size(x->dtype, op), bytes))
        return hst_backend_fail(x->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, func,
                                "partials overflows size_t");
    return HST_SUCCESS;
}

/* Two levels: the partials of every block (device or host twin), then their combine on the host
   (hst_k_combine_host's fixed pairwise order). */
static hst_result hst__reduce(const char *func, const hst_array *x, const hst_array *y,
                              hst_reduce_op op, hst_scalar *out) {
    size_t groups, bytes;
    void *partial;
    hst_result r;
    if ((r = hst__reduce_check(func, "x", x, y, op, &groups, &bytes)) != HST_SUCCESS) return r;
    if (!out) return hst__null_arg(x->be, func, "out is NULL");
    if (!(partial = hst_backend_alloc(x->be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst__reduce_partials(x, y, op, groups, bytes, partial, NULL);
    if (r == HST_SUCCESS) hst_k_combine_host(x->dtype, op, partial, groups, out);
    hst_backend_free(x->be, partial);
    return r;
}

/* hst_array_sum_batch's checks: the arrays, one backend; each one's partials (groups[k] of them
   from byte off[k], 16-aligned: the host copies lie side by side). */
static hst_result hst__sum_batch_check(const hst_array *const *x, size_t count, size_t *groups, size_t *off) {
    static const char *F = "hst_array_sum_batch";
    char name[40];
    size_t k, bytes;
    hst_result r;
    off[0] = 0;
    for (k = 0; k < count; k++) {
        snprintf(name, sizeof name, "x[%lu]", (unsigned long)k);
        if ((r = hst__reduce_check(F, name, x[k], NULL, HST_REDUCE_SUM, &groups[k], &bytes)) != HST_SUCCESS) return r;
        if (x[k]->be != x[0]->be)
            return hst_backend_fail(x[k]->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "x[%zu] is another backend's than x[0]", k);
        if (!hst_size_add(off[k], bytes, &off[k + 1]) || !hst_size_add(off[k + 1], 15, &off[k + 1]))
            return hst_backend_fail(x[k]->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "partials overflows size_t");
        off[k + 1] &= ~(size_t)15;   /* each array's partials aligned for any scalar type */
    }
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_sum_batch(const hst_array *const *x, size_t count, hst_scalar *out) {
    static const char *F = "hst_array_sum_batch";
    hst_backend *be;
    hst_buffer **keep;
    size_t *groups, *off, k;
    unsigned char *partial = NULL;
    hst_result r;
    be = x && count && x[0] ? x[0]->be : NULL;   /* the log's, where there is one */
    if (!x || !out) return hst__null_arg(be, F, "x or out is NULL");
    if (!count) return hst__zero_arg(be, F, "count is 0");
    if (!x[0]) return hst__null_arg(NULL, F, "x[0] is NULL");
    if (count > SIZE_MAX / (2 * sizeof(size_t) + sizeof *keep) - 1)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "count overflows size_t");
    if (!(groups = (size_t *)hst_backend_calloc(be, (2 * count + 1) * sizeof(size_t) + count * sizeof *keep)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    off = groups + count;
    keep = (hst_buffer **)(void *)(off + count + 1);
    r = hst__sum_batch_check(x, count, groups, off);
    if (r == HST_SUCCESS && !(partial = (unsigned char *)hst_backend_alloc(be, off[count] ? off[count] : 1)))
        r = HST_ERROR_OUT_OF_HOST_MEMORY;
    for (k = 0; k < count && r == HST_SUCCESS; k++) {
        size_t bytes = groups[k] * hst_kernels_partial_size(x[k]->dtype, HST_REDUCE_SUM);   /* checked */
        r = hst__reduce_partials(x[k], NULL, HST_REDUCE_SUM, groups[k], bytes, partial + off[k], &keep[k]);
    }
    if (partial) {   /* every enqueued read lands before its memory goes */
        hst_result f = hst_queue_finish(hst_backend_queue(be));
        if (r == HST_SUCCESS) r = f;
    }
    for (k = 0; k < count && r == HST_SUCCESS; k++) hst_k_combine_host(x[k]->dtype, HST_REDUCE_SUM, partial + off[k], groups[k], &out[k]);
    for (k = 0; k < count; k++) hst_buffer_destroy(keep[k]);
    if (partial) hst_backend_free(be, partial);
    hst_backend_free(be, groups);
    return r;
}

HST__ADEF hst_result hst_array_sum(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_sum", x, NULL, HST_REDUCE_SUM, out);
}
HST__ADEF hst_result hst_array_dot(const hst_array *x, const hst_array *y, hst_scalar *out) {
    if (!y) return hst__null_arg(x ? x->be : NULL, "hst_array_dot", "y is NULL");
    return hst__reduce("hst_array_dot", x, y, HST_REDUCE_DOT, out);
}
HST__ADEF hst_result hst_array_sqnorm(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_sqnorm", x, NULL, HST_REDUCE_SQNORM, out);
}
HST__ADEF hst_result hst_array_min(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_min", x, NULL, HST_REDUCE_MIN, out);
}
HST__ADEF hst_result hst_array_max(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_max", x, NULL, HST_REDUCE_MAX, out);
}


/* >>vocabx ----------------------------------------------------------------------------------- */
/* A 4-D view: shapes padded with leading 1s, C-order strides (elements). */
typedef struct hst__v4 { uint64_t shape[4], stride[4]; } hst__v4;

static hst__v4 hst__view(unsigned ndim, const size_t *shape) {
    hst__v4 v;
    uint64_t s = 1;
    int d;
    for (d = 3; d >= 0; d--) {
        int a = d - (4 - (int)ndim);
        v.shape[d] = a >= 0 ? shape[a] : 1;
        v.stride[d] = s;
        s *= v.shape[d];
    }
    return v;
}

/* dst[doff + ix . dstride] = src[soff + ((ix + shift) % mod) . sstride] over `shape`. */
typedef struct hst__gather_args {
    uint64_t shape[4], sst[4], dst[4], shift[4], mod[4], soff, doff;
} hst__gather_args;

static hst_result hst__gather(hst_array *dst, const hst_array *src, const hst__gather_args *g) {
    uint64_t n = g->shape[0] * g->shape[1] * g->shape[2] * g->shape[3];
    hst_karg a[10];
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_buffer(dst->buf); a[2] = hst_karg_ulong(n);
    a[3] = hst_karg_value(sizeof g->shape, g->shape); a[4] = hst_karg_value(sizeof g->sst, g->sst);
    a[5] = hst_karg_value(sizeof g->dst, g->dst); a[6] = hst_karg_value(sizeof g->shift, g->shift);
    a[7] = hst_karg_value(sizeof g->mod, g->mod); a[8] = hst_karg_ulong(g->soff); a[9] = hst_karg_ulong(g->doff);
    return hst__vocabx_run(dst->be, dst->dtype, HST_KVX_GATHER, a, 10, (size_t)n);
}

/* A gather whose source and destination are both whole contiguous arrays of `shape`. */
static hst__gather_args hst__gather_plain(unsigned ndim, const size_t *shape) {
    hst__gather_args g;
    hst__v4 v = hst__view(ndim, shape);
    int d;
    memset(&g, 0, sizeof g);
    for (d = 0; d < 4; d++) {
        g.shape[d] = g.mod[d] = v.shape[d];
        g.sst[d] = g.dst[d] = v.stride[d];
    }
    return g;
}

static hst_result hst__check_axis(const hst_array *a, const char *func, unsigned axis) {
    if (axis >= a->ndim) return hst__range_arg(a->be, func, "axis %u is not < ndim %u", axis, a->ndim);
    return HST_SUCCESS;
}

/* dst[i] = start + i step (dst[n-1] = last when set_last) in the kernel's D: double with fp64,
   else float. */
static hst_result hst__ramp(hst_array *dst, double start, double step, int set_last, double last) {
    float fs = (float)start, ft = (float)step, fl = (float)last;
    int fp64 = hst_backend_device(dst->be)->fp64;
    size_t db = fp64 ? sizeof(double) : sizeof(float);
    hst_karg a[6];
    a[0] = hst_karg_buffer(dst->buf); a[1] = hst_karg_ulong(dst->count);
    a[2] = hst_karg_value(db, fp64 ? (const void *)&start : &fs);
    a[3] = hst_karg_value(db, fp64 ? (const void *)&step : &ft); a[4] = hst_karg_int(set_last);
    a[5] = hst_karg_value(db, fp64 ? (const void *)&last : &fl);
    return hst__vocabx_run(dst->be, dst->dtype, HST_KVX_RAMP, a, 6, dst->count);
}

static hst_result hst__make_1d(hst_backend *be, const char *func, hst_dtype dt, size_t n,
                               hst_array **out) {
    if (hst_dtype_is_complex(dt))
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func,
                                "dtype %s: ramps are real", hst_dtype_name(dt));
    return hst_array_create(be, dt, 1, &n, out);
}

HST__ADEF hst_result hst_array_arange(hst_backend *be, hst_dtype dtype, double start, double stop,
                                    double step, hst_array **out) {
    static const char *F = "hst_array_arange";
    double count = step != 0.0 ? ceil((stop - start) / step) : 0.0;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    if (!(count >= 1.0) || count > 1e18)
        return hst__bad_arg(be, F, "start %g, stop %g, step %g give no elements (or too many)", start, stop, step);
    if ((r = hst__make_1d(be, F, dtype, (size_t)count, out)) != HST_SUCCESS) return r;
    if ((r = hst__ramp(*out, start, step, 0, 0.0)) != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__ADEF hst_result hst_array_linspace(hst_backend *be, hst_dtype dtype, double start, double stop,
                                      size_t num, int endpoint, hst_array **out) {
    static const char *F = "hst_array_linspace";
    size_t div = endpoint ? num - 1 : num;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    if (!num) return hst__zero_arg(be, F, "num is 0");
    if ((r = hst__make_1d(be, F, dtype, num, out)) != HST_SUCCESS) return r;
    r = hst__ramp(*out, start, div ? (stop - start) / (double)div : 0.0, endpoint && num > 1, stop);
    if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__ADEF hst_result hst_array_fftfreq(hst_backend *be, hst_dtype dtype, size_t n, double d,
                                     int rfft, hst_array **out) {
    static const char *F = "hst_array_fftfreq";
    size_t len = rfft ? n / 2 + 1 : n, i;
    double *v;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    if (!n || !(d != 0.0)) return hst__zero_arg(be, F, "n %zu and d %g must be nonzero", n, d);
    if (dtype != HST_F32 && dtype != HST_F64)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: f32 or f64 only", hst_dtype_name(dtype));
    if (!(v = (double *)hst_backend_alloc(be, len * sizeof *v))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < len; i++)   /* NumPy: integer bins, then one multiplication by 1/(n d) */
        v[i] = (double)(i < (n + 1) / 2 || rfft ? (double)i : (double)i - (double)n) * (1.0 / ((double)n * d));
    if ((r = hst_array_create(be, dtype, 1, &len, out)) == HST_SUCCESS) {
        if (dtype == HST_F32) hst_k_cast_host(HST_F32, v, HST_F64, v, len);   /* in place, shrinking */
        r = hst_array_write(*out, v, hst_array_bytes(*out));
        if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    }
    hst_backend_free(be, v);
    return r;
}

HST__ADEF hst_result hst_array_from_host(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                       const size_t *shape, const void *data, hst_array **out) {
    hst_result r;
    if (!data) return hst__null_arg(be, "hst_array_from_host", "data is NULL");
    if ((r = hst_array_create(be, dtype, ndim, shape, out)) != HST_SUCCESS) return r;
    if ((r = hst_array_write(*out, data, (*out)->bytes)) != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__ADEF hst_result hst_array_reshape(hst_array *a, unsigned ndim, const size_t *shape) {
    static const char *F = "hst_array_reshape";
    size_t count = 1;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if (ndim < 1 || ndim > HST_MAX_DIMS) return hst__range_arg(a->be, F, "ndim %u is not 1..%d", ndim, HST_MAX_DIMS);
    if (!shape) return hst__null_arg(a->be, F, "shape is NULL");
    for (i = 0; i < ndim; i++)
        if (!hst_size_mul(count, shape[i], &count))
            return hst_backend_fail(a->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "the product of shape overflows size_t");
    if (count != a->count)
        return hst_backend_fail(a->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "the new shape has another element count");
    a->ndim = ndim;
    for (i = 0; i < HST_MAX_DIMS; i++) a->shape[i] = i < ndim ? shape[i] : 0;
    return HST_SUCCESS;
}

/* dst and src: non-NULL, distinct, same backend and dtype. */
static hst_result hst__check_move(const char *func, const hst_array *dst, const hst_array *src) {
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(func, src, "src")) != HST_SUCCESS) return r;
    if (dst == src || dst->buf == src->buf) return hst__bad_arg(dst->be, func, "dst must not be src");
    if (dst->be != src->be || dst->dtype != src->dtype)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "dst and src differ in backend or dtype");
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_transpose(hst_array *dst, const hst_array *src,
                                       const unsigned *perm) {
    static const char *F = "hst_array_transpose";
    unsigned p[HST_MAX_DIMS], i, seen = 0;
    size_t shape[HST_MAX_DIMS];
    hst__gather_args g;
    hst__v4 sv;
    hst_result r;
    if ((r = hst__check_move(F, dst, src)) != HST_SUCCESS) return r;
    for (i = 0; i < src->ndim; i++) {
        p[i] = perm ? perm[i] : src->ndim - 1 - i;
        if (p[i] >= src->ndim || (seen >> p[i] & 1u)) return hst__range_arg(dst->be, F, "perm is not a permutation of 0..%u", src->ndim - 1);
        seen |= 1u << p[i];
        shape[i] = src->shape[p[i]];
    }
    for (i = 0; i < src->ndim; i++)
        if (dst->ndim != src->ndim || dst->shape[i] != shape[i])
            return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "dst's shape is not src's permuted");
    g = hst__gather_plain(dst->ndim, dst->shape);
    sv = hst__view(src->ndim, src->shape);
    for (i = 0; i < src->ndim; i++) g.sst[4 - src->ndim + i] = sv.stride[4 - src->ndim + p[i]];
    return hst__gather(dst, src, &g);
}

HST__ADEF hst_result hst_array_fftshift(hst_array *dst, const hst_array *src, unsigned axes_mask,
                                      int inverse) {
    static const char *F = "hst_array_fftshift";
    hst__gather_args g;
    unsigned a;
    hst_result r;
    if ((r = hst__check_move(F, dst, src)) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    g = hst__gather_plain(src->ndim, src->shape);
    for (a = 0; a < src->ndim; a++)
        if (axes_mask >> a & 1u) {
            size_t n = src->shape[a];   /* out[i] = in[(i + shift) % n] */
            g.shift[4 - src->ndim + a] = inverse ? n / 2 : n - n / 2;
        }
    return hst__gather(dst, src, &g);
}

/* Copies src into the block of dst that starts at `at` along axis (concatenate and stack). */
static hst_result hst__place(hst_array *dst, const hst_array *src, unsigned axis, size_t at,
                             int new_axis) {
    hst__v4 dv = hst__view(dst->ndim, dst->shape), sv = hst__view(src->ndim, src->shape);
    hst__gather_args g;
    int d, da = 4 - (int)dst->ndim + (int)axis;
    memset(&g, 0, sizeof g);
    for (d = 0; d < 4; d++) {
        /* stack: src's axes map to dst's axes other than `axis` */
        int sd = !new_axis ? d : d < da ? d + 1 : d;
        g.shape[d] = new_axis && d == da ? 1 : sv.shape[sd];
        g.sst[d] = new_axis && d == da ? 0 : sv.stride[sd];
        g.mod[d] = g.shape[d];
        g.dst[d] = dv.stride[d];
    }
    g.doff = at * dv.stride[da];
    return hst__gather(dst, src, &g);
}

static hst_result hst__join(const char *func, hst_array *dst, hst_array *const *srcs,
                            size_t count, unsigned axis, int new_axis) {
    size_t k, at = 0;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if (!srcs) return hst__null_arg(dst->be, func, "srcs is NULL");
    if (!count) return hst__zero_arg(dst->be, func, "count is 0");
    if ((r = hst__check_axis(dst, func, axis)) != HST_SUCCESS) return r;
    for (k = 0; k < count; k++) {   /* shapes first: nothing is written unless all fit */
        const hst_array *s = srcs[k];
        if ((r = hst__check_move(func, dst, s)) != HST_SUCCESS) return r;
        if (s->ndim + (unsigned)new_axis != dst->ndim)
            return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                    "a src's ndim does not fit dst's");
        for (i = 0; i < dst->ndim; i++) {
            size_t want = new_axis ? (i == axis ? 1 : s->shape[i < axis ? i : i - 1]) : s->shape[i];
            if (i != axis && dst->shape[i] != want)
                return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                        "a src's extents do not fit dst's");
        }
        at += new_axis ? 1 : s->shape[axis];
    }
    if (at != dst->shape[axis])
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "dst's extent along axis is not the srcs' total");
    for (k = 0, at = 0; k < count && r == HST_SUCCESS; k++) {
        r = hst__place(dst, srcs[k], axis, at, new_axis);
        at += new_axis ? 1 : srcs[k]->shape[axis];
    }
    return r;
}

HST__ADEF hst_result hst_array_concatenate(hst_array *dst, hst_array *const *srcs, size_t count,
                                         unsigned axis) {
    return hst__join("hst_array_concatenate", dst, srcs, count, axis, 0);
}

HST__ADEF hst_result hst_array_stack(hst_array *dst, hst_array *const *srcs, size_t count,
                                   unsigned axis) {
    return hst__join("hst_array_stack", dst, srcs, count, axis, 1);
}

HST__ADEF hst_result hst_array_meshgrid(hst_array *const *dst, hst_array *const *vecs,
                                      size_t count, int ij) {
    static const char *F = "hst_array_meshgrid";
    size_t shape[HST_MAX_DIMS], k;
    unsigned i;
    hst_result r;
    if (!dst || !vecs) return hst__null_arg(NULL, F, "%s is NULL", dst ? "vecs" : "dst");
    if (!count) return hst__zero_arg(NULL, F, "count is 0");
    if (count > HST_MAX_DIMS) return hst__range_arg(NULL, F, "count %zu is not 1..%d", count, HST_MAX_DIMS);
    for (k = 0; k < count; k++) {
        if ((r = hst__check_array(F, vecs[k], "vecs[k]")) != HST_SUCCESS) return r;
        if (vecs[k]->ndim != 1)
            return hst_backend_fail(vecs[k]->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "vecs must be 1-D");
        shape[k] = vecs[k]->shape[0];
    }
    if (!ij && count >= 2) { size_t t = shape[0]; shape[0] = shape[1]; shape[1] = t; }
    for (k = 0; k < count; k++) {
        hst__gather_args g;
        unsigned along = (unsigned)k;
        if (!ij && k < 2 && count >= 2) along = 1 - (unsigned)k;
        if ((r = hst__check_move(F, dst[k], vecs[k])) != HST_SUCCESS) return r;
        for (i = 0; i < dst[k]->ndim; i++)
            if (dst[k]->ndim != count || dst[k]->shape[i] != shape[i])
                return hst_backend_fail(dst[k]->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                        "dst's shape is not the grid's");
        g = hst__gather_plain((unsigned)count, shape);
        for (i = 0; i < 4; i++) g.sst[i] = 4 - count + along == i ? 1 : 0;
        if ((r = hst__gather(dst[k], vecs[k], &g)) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

/* a's strides against dst's 4-D view, 0 on broadcast axes; fails if a does not broadcast. */
static int hst__broadcast(const hst_array *a, const hst__v4 *dv, uint64_t st[4]) {
    hst__v4 av = hst__view(a->ndim, a->shape);
    int d;
    for (d = 0; d < 4; d++) {
        if (av.shape[d] != dv->shape[d] && av.shape[d] != 1) return 0;
        st[d] = av.shape[d] == 1 ? 0 : av.stride[d];
    }
    return 1;
}

HST__ADEF hst_result hst_array_binary(hst_array *dst, const hst_array *a, const hst_array *b,
                                    hst_binary_op op) {
    static const char *F = "hst_array_binary";
    hst__v4 dv;
    uint64_t ast[4], bst[4];
    int iop = (int)op;
    hst_karg k[8];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, b, "b")) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_BINARY_COUNT) return hst__range_arg(dst->be, F, "op %d is not an hst_binary_op", iop);
    if (a->be != dst->be || b->be != dst->be || a->dtype != dst->dtype || b->dtype != dst->dtype)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "operands differ in backend or dtype");
    if (!hst_kernels_binary_supported(dst->dtype, op))
        return hst_backend_fail(dst->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: this op is not defined for it", hst_dtype_name(dst->dtype));
    dv = hst__view(dst->ndim, dst->shape);
    if (a->ndim > dst->ndim || b->ndim > dst->ndim || !hst__broadcast(a, &dv, ast) || !hst__broadcast(b, &dv, bst))
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "a or b does not broadcast to dst's shape");
    k[0] = hst_karg_buffer(a->buf); k[1] = hst_karg_buffer(b->buf); k[2] = hst_karg_buffer(dst->buf);
    k[3] = hst_karg_ulong(dst->count); k[4] = hst_karg_value(sizeof dv.shape, dv.shape);
    k[5] = hst_karg_value(sizeof ast, ast); k[6] = hst_karg_value(sizeof bst, bst); k[7] = hst_karg_int(iop);
    return hst__vocabx_run(dst->be, dst->dtype, HST_KVX_BINARY, k, 8, dst->count);
}

HST__ADEF hst_result hst_array_binary_scalar(hst_array *dst, const hst_array *a, hst_scalar s,
                                           hst_binary_op op, int scalar_first) {
    static const char *F = "hst_array_binary_scalar";
    hst_array *sa;
    size_t one = 1;
    hst_result r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst_array_create(a->be, a->dtype, 1, &one, &sa)) != HST_SUCCESS) return r;
    r = hst_array_fill(sa, s);   /* a one-element array broadcasts like NumPy's scalar */
    if (r == HST_SUCCESS) r = scalar_first ? hst_array_binary(dst, sa, a, op) : hst_array_binary(dst, a, sa, op);
    hst_array_destroy(sa);
    return r;
}

HST__ADEF hst_result hst_array_clip(hst_array *dst, const hst_array *src, double lo, double hi) {
    hst_result r = hst_array_binary_scalar(dst, src, hst_real(lo), HST_BINARY_MAXIMUM, 0);
    return r != HST_SUCCESS ? r : hst_array_binary_scalar(dst, dst, hst_real(hi), HST_BINARY_MINIMUM, 0);
}

HST__ADEF hst_result hst_array_where(hst_array *dst, const hst_array *cond, const hst_array *a,
                                   const hst_array *b) {
    static const char *F = "hst_array_where";
    hst_karg k[5];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, cond, "cond")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, b, "b")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, a, 1)) != HST_SUCCESS || (r = hst__check_pair(F, dst, b, 1)) != HST_SUCCESS ||
        (r = hst__check_pair(F, dst, cond, 0)) != HST_SUCCESS) return r;
    if (cond->dtype != HST_U8)
        return hst_backend_fail(dst->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: cond must be u8", hst_dtype_name(cond->dtype));
    k[0] = hst_karg_buffer(cond->buf); k[1] = hst_karg_buffer(a->buf); k[2] = hst_karg_buffer(b->buf);
    k[3] = hst_karg_buffer(dst->buf); k[4] = hst_karg_ulong(dst->count);
    return hst__vocabx_run(dst->be, dst->dtype, HST_KVX_WHERE, k, 5, dst->count);
}

HST__ADEF hst_result hst_array_reduce_axis(hst_array *dst, const hst_array *src, unsigned axis,
                                         hst_axis_op op) {
    static const char *F = "hst_array_reduce_axis";
    uint64_t outer = 1, inner = 1;
    int iop = (int)op, arg = op == HST_AXIS_ARGMAX || op == HST_AXIS_ARGMIN;
    unsigned i, k = 0;
    hst_karg a[7];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_axis(src, F, axis)) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_AXIS_COUNT) return hst__range_arg(src->be, F, "op %d is not an hst_axis_op", iop);
    if (!hst_kernels_axis_supported(src->dtype, op))
        return hst_backend_fail(src->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: this op is not defined for it", hst_dtype_name(src->dtype));
    if (dst->be != src->be || dst->dtype != (arg ? HST_I32 : src->dtype))
        return hst_backend_fail(src->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "dst's backend or dtype (i32 for ARGMAX/ARGMIN) is wrong");
    if (op == HST_AXIS_CUMSUM) {
        if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    } else {
        int ok = dst->ndim == (src->ndim > 1 ? src->ndim - 1 : 1);
        for (i = 0; ok && i < src->ndim; i++)
            if (i != axis) ok = dst->shape[k++] == src->shape[i];
        if (!ok || (src->ndim == 1 && dst->shape[0] != 1))
            return hst_backend_fail(src->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "dst's shape is not src's without axis");
    }
    if (arg && src->shape[axis] > (size_t)INT32_MAX) return hst__range_arg(src->be, F, "axis extent over INT32_MAX");
    for (i = 0; i < src->ndim; i++) {
        if (i < axis) outer *= src->shape[i];
        if (i > axis) inner *= src->shape[i];
    }
    /* dst is the kernel's dst and idx both: ARGMAX/ARGMIN write idx, the others dst */
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_buffer(dst->buf); a[2] = hst_karg_buffer(dst->buf);
    a[3] = hst_karg_ulong(outer); a[4] = hst_karg_ulong(src->shape[axis]); a[5] = hst_karg_ulong(inner);
    a[6] = hst_karg_int(iop);
    return hst__vocabx_run(src->be, src->dtype, HST_KVX_AXIS, a, 7, (size_t)(outer * inner));
}

HST__ADEF hst_result hst_array_complex_part(hst_array *dst, const hst_array *src,
                                          hst_complex_part part) {
    static const char *F = "hst_array_complex_part";
    int ip = (int)part;
    hst_karg a[4];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((int)part < 0 || part >= HST_PART_COUNT) return hst__range_arg(src->be, F, "part %d is not an hst_complex_part", ip);
    if (!hst_dtype_is_complex(src->dtype))
        return hst_backend_fail(src->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: src must be c64 or c128", hst_dtype_name(src->dtype));
    if ((r = hst__check_pair(F, dst, src, 0)) != HST_SUCCESS) return r;
    if (dst->dtype != (part == HST_PART_CONJ ? src->dtype : src->dtype == HST_C64 ? HST_F32 : HST_F64))
        return hst_backend_fail(src->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "dst must be src's real type (f32 for c64, f64 for c128; src's dtype for CONJ)");
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_buffer(dst->buf); a[2] = hst_karg_ulong(src->count);
    a[3] = hst_karg_int(ip);
    return hst__vocabx_run(src->be, src->dtype, HST_KVX_CPART, a, 4, src->count);
}

HST__ADEF hst_result hst_array_tile(hst_array *dst, const hst_array *src, const size_t *reps,
                                    unsigned nreps) {
    static const char *F = "hst_array_tile";
    size_t sshape[HST_MAX_DIMS], want;
    unsigned d, i;
    hst__gather_args g;
    hst__v4 sv;
    hst_result r;
    if ((r = hst__check_move(F, dst, src)) != HST_SUCCESS) return r;
    if (!reps) return hst__null_arg(dst->be, F, "reps is NULL");
    if (!nreps) return hst__zero_arg(dst->be, F, "nreps is 0");
    if (nreps > HST_MAX_DIMS) return hst__range_arg(dst->be, F, "nreps %u is not 1..%d", nreps, HST_MAX_DIMS);
    d = src->ndim > nreps ? src->ndim : nreps;
    if (dst->ndim != d)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "dst's ndim is not max(src's ndim, nreps)");
    for (i = 0; i < d; i++) {   /* both padded with leading 1s to d axes */
        size_t ext = i + src->ndim >= d ? src->shape[i + src->ndim - d] : 1;
        size_t rep = i + nreps >= d ? reps[i + nreps - d] : 1;
        if (!rep) return hst__zero_arg(dst->be, F, "reps[%u] is 0", i + nreps - d);
        if (!hst_size_mul(ext, rep, &want))
            return hst_backend_fail(dst->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "src's extent * reps overflows size_t");
        if (dst->shape[i] != want)
            return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "dst's shape is not src's times reps");
        sshape[i] = ext;
    }
    g = hst__gather_plain(d, dst->shape);   /* dst's index modulo src's shape */
    sv = hst__view(d, sshape);
    for (i = 0; i < 4; i++) { g.mod[i] = sv.shape[i]; g.sst[i] = sv.stride[i]; }
    return hst__gather(dst, src, &g);
}

HST__ADEF hst_result hst_array_randperm(hst_array *dst, uint64_t seed) {
    static const char *F = "hst_array_randperm";
    hst_karg a[3];
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if (dst->dtype != HST_I32 && dst->dtype != HST_I64)
        return hst_backend_fail(dst->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: dst must be i32 or i64", hst_dtype_name(dst->dtype));
    if (dst->ndim != 1)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F, "dst must be 1-D");
    if (dst->dtype == HST_I32 && dst->count > (size_t)INT32_MAX + 1)
        return hst__range_arg(dst->be, F, "n %zu does not fit i32 values", dst->count);
    a[0] = hst_karg_buffer(dst->buf); a[1] = hst_karg_ulong(dst->count); a[2] = hst_karg_ulong(seed);
    return hst__vocab_run(dst, HST_KV_RANDPERM, a, 3);
}

/* >>argwhere: elements per work-item of the two passes (a serial run per item keeps the rows
   in order without a device scan; the counts come back to the host, which places them). */
#define HST__ARGWHERE_CHUNK 4096

/* Pass 1: the nonzero count of each chunk into counts (groups of them). */
static hst_result hst__nonzero_counts(const hst_array *src, size_t groups, uint64_t *counts) {
    hst_buffer *cbuf;
    hst_karg a[4];
    hst_result r;
    if ((r = hst_pool_alloc(hst_backend_pool(src->be), groups * sizeof *counts, &cbuf)) != HST_SUCCESS) return r;
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_ulong(src->count); a[2] = hst_karg_ulong(HST__ARGWHERE_CHUNK);
    a[3] = hst_karg_buffer(cbuf);
    r = hst__vocabx_run(src->be, src->dtype, HST_KVX_NONZERO_COUNT, a, 4, groups);
    if (r == HST_SUCCESS) r = hst_read(hst_backend_queue(src->be), cbuf, 0, counts, groups * sizeof *counts, 1, 0, NULL, NULL);
    hst_buffer_destroy(cbuf);
    return r;
}

/* Pass 2: each chunk's rows into out from offsets[g]. */
static hst_result hst__argwhere_rows(const hst_array *src, size_t groups, const uint64_t *offsets,
                                     hst_array *out) {
    hst__v4 v = hst__view(src->ndim, src->shape);
    hst_buffer *obuf;
    hst_karg a[7];
    hst_result r;
    if ((r = hst_pool_alloc(hst_backend_pool(src->be), groups * sizeof *offsets, &obuf)) != HST_SUCCESS) return r;
    r = hst_write(hst_backend_queue(src->be), obuf, 0, offsets, groups * sizeof *offsets, 1, 0, NULL, NULL);
    a[0] = hst_karg_buffer(src->buf); a[1] = hst_karg_ulong(src->count); a[2] = hst_karg_ulong(HST__ARGWHERE_CHUNK);
    a[3] = hst_karg_buffer(obuf); a[4] = hst_karg_value(sizeof v.shape, v.shape); a[5] = hst_karg_uint(src->ndim);
    a[6] = hst_karg_buffer(out->buf);
    if (r == HST_SUCCESS) r = hst__vocabx_run(src->be, src->dtype, HST_KVX_ARGWHERE, a, 7, groups);
    hst_buffer_destroy(obuf);
    return r;
}

HST__ADEF hst_result hst_array_argwhere(const hst_array *src, hst_array **out, size_t *count) {
    static const char *F = "hst_array_argwhere";
    size_t groups, g, shape[2];
    uint64_t *counts, total = 0;
    hst_result r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if (!out || !count) return hst__null_arg(src->be, F, "out or count is NULL");
    *out = NULL;
    *count = 0;
    groups = src->count / HST__ARGWHERE_CHUNK + (src->count % HST__ARGWHERE_CHUNK != 0);
    if (!(counts = (uint64_t *)hst_backend_alloc(src->be, groups * sizeof *counts))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst__nonzero_counts(src, groups, counts);
    for (g = 0; r == HST_SUCCESS && g < groups; g++) {   /* counts -> exclusive offsets */
        uint64_t c = counts[g];
        counts[g] = total;
        total += c;
    }
    shape[0] = (size_t)total;
    shape[1] = src->ndim;
    if (r == HST_SUCCESS && total) r = hst_array_create(src->be, HST_I64, 2, shape, out);
    if (r == HST_SUCCESS && total) r = hst__argwhere_rows(src, groups, counts, *out);
    hst_backend_free(src->be, counts);
    if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; return r; }
    *count = (size_t)total;
    return HST_SUCCESS;
}

/* >>quantile: NumPy's "linear" method on a host copy (see the declaration). */
static int hst__cmp_f32(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
static int hst__cmp_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static int hst__cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* NumPy's _lerp(a, b, t) in float (f32 data: t and 1 - t are Python floats, rounded to f32
   by NumPy's weak promotion) or double. */
static float hst__lerp_f32(float a, float b, double t) {
    float d = b - a, r;
    if (t >= 0.5) { r = d * (float)(1.0 - t); return b - r; }
    r = d * (float)t;
    return a + r;
}
static double hst__lerp_f64(double a, double b, double t) {
    double d = b - a, r;
    if (t >= 0.5) { r = d * (1.0 - t); return b - r; }
    r = d * t;
    return a + r;
}

/* NumPy's indexes (_get_indexes): i = floor(h), j = i + 1; h >= n - 1 takes the last element
   twice, and the gamma of the lerp is then h - (-1) as NumPy leaves it (the two elements are
   equal, so it matters only for infinities and the sign of zero). Returns the gamma's base. */
static double hst__quantile_index(double h, size_t n, size_t *i, size_t *j) {
    if (h >= (double)(n - 1)) { *i = *j = n - 1; return -1.0; }
    *i = (size_t)floor(h);
    *j = *i + 1;
    return (double)*i;
}

/* The quantile of sorted data v (n elements of the sort type: f32, f64 or int64 for the
   integers) at probability q. */
static double hst__quantile_sorted(hst_dtype dt, const void *v, size_t n, double q) {
    size_t i, j;
    double base;
    if (dt == HST_F32) {
        const float *f = (const float *)v;
        double h = (double)(n - 1) * q;
        base = hst__quantile_index(h, n, &i, &j);
        return (double)hst__lerp_f32(f[i], f[j], h - base);
    }
    if (dt == HST_F64) {
        const double *f = (const double *)v;
        double h = (double)(n - 1) * q;
        base = hst__quantile_index(h, n, &i, &j);
        return hst__lerp_f64(f[i], f[j], h - base);
    }
    {
        const int64_t *k = (const int64_t *)v;
        double h = (double)(n - 1) * q, t, d, r;
        base = hst__quantile_index(h, n, &i, &j);
        t = h - base;
        d = (double)(int64_t)((uint64_t)k[j] - (uint64_t)k[i]);   /* NumPy: int64 subtract */
        if (t >= 0.5) { r = d * (1.0 - t); return (double)k[j] - r; }
        r = d * t;
        return (double)k[i] + r;
    }
}

/* x read back as the sort type (f32, f64 or int64) into *out, and whether it holds a NaN
   (whose value is then *nan). */
static hst_result hst__quantile_data(const hst_array *x, void **out, int *has_nan, double *nan) {
    size_t n = x->count, i, es = hst_dtype_is_int(x->dtype) ? 8 : hst_dtype_size(x->dtype), bytes;
    void *v;
    hst_result r;
    *has_nan = 0;
    if (!hst_size_mul(n, es, &bytes))
        return hst_backend_fail(x->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_array_quantile",
                                "the copy overflows size_t");
    if (!(v = hst_backend_alloc(x->be, bytes > x->bytes ? bytes : x->bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if ((r = hst_array_read(x, v, x->bytes)) != HST_SUCCESS) { hst_backend_free(x->be, v); return r; }
    if (hst_dtype_is_int(x->dtype)) {
        for (i = n; i-- > 0;)   /* widen in place from the end: exact */
            hst_k_cast_host(HST_I64, (int64_t *)v + i, x->dtype, (unsigned char *)v + i * hst_dtype_size(x->dtype), 1);
    }
    for (i = 0; i < n && !*has_nan; i++) {
        double e = x->dtype == HST_F32 ? (double)((float *)v)[i] : x->dtype == HST_F64 ? ((double *)v)[i] : 0.0;
        if (e != e) { *has_nan = 1; *nan = e; }
    }
    *out = v;
    return HST_SUCCESS;
}

HST__ADEF hst_result hst_array_quantile(const hst_array *x, const double *q, size_t nq, double *out) {
    static const char *F = "hst_array_quantile";
    void *v = NULL;
    size_t k;
    int has_nan;
    double nan = 0.0;
    hst_dtype sort_dt;
    hst_result r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if (!q || !out) return hst__null_arg(x->be, F, "q or out is NULL");
    if (!nq) return hst__zero_arg(x->be, F, "nq is 0");
    if (hst_dtype_is_complex(x->dtype))
        return hst_backend_fail(x->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %s: quantiles are of real dtypes", hst_dtype_name(x->dtype));
    for (k = 0; k < nq; k++)
        if (!(q[k] >= 0.0 && q[k] <= 1.0)) return hst__range_arg(x->be, F, "q[%zu] = %g is not in [0, 1]", k, q[k]);
    if ((r = hst__quantile_data(x, &v, &has_nan, &nan)) != HST_SUCCESS) return r;
    sort_dt = hst_dtype_is_int(x->dtype) ? HST_I64 : x->dtype;
    if (!has_nan)
        qsort(v, x->count, sort_dt == HST_F32 ? 4 : 8,
              sort_dt == HST_F32 ? hst__cmp_f32 : sort_dt == HST_F64 ? hst__cmp_f64 : hst__cmp_i64);
    for (k = 0; k < nq; k++) out[k] = has_nan ? nan : hst__quantile_sorted(sort_dt, v, x->count, q[k]);
    hst_backend_free(x->be, v);
    return HST_SUCCESS;
}

/* >>fft -------------------------------------------------------------------------------------- */
enum { HST__FFT_C2C = 0, HST__FFT_R2C = 1, HST__FFT_C2R = 2 };

/* What a plan is made for: the precision (cplx: the complex side's dtype, c64 or c128),
   lengths n[] of the transformed axes, fastest first (n[0] = the last axis, real-space length);
   unused entries are 1. */
typedef struct hst__fft_key {
    hst_dtype cplx;
    int kind, inverse, in_place;
    unsigned axes;
    unsigned variant;   /* OpenCL devices: hst__fft_variants' index (chosen by hst__fft_exec);
                           here, not last, so the key (compared with memcmp) has no padding */
    size_t n[HST_FFT_MAX_AXES], batch;
} hst__fft_key;

#ifdef HST_FFT
/* Which arrays a host step reads and writes: the call's input and output, the output in place,
   or the input in place (c2r's pooled copy). */
enum { HST__FFT_IN_OUT = 0, HST__FFT_OUT_OUT = 1, HST__FFT_IN_IN = 2 };

/* One step of a host-device transform: `units` FFTW transforms of one shape, ibytes / obytes
   apart in the arrays it reads and writes, run in pieces of `per` units (the last piece: the
   rest) by the plans [0] (per units) and [1] (the rest; none where per divides units). */
typedef struct hst__fft_step {
    int kind, io;
    size_t units, per, ibytes, obytes;
    fftwf_plan f[2];                 /* c64 */
    fftw_plan d[2];                  /* c128 */
} hst__fft_step;
#endif

struct hst__fft_plan {
    hst__fft_key key;
    struct hst__fft_plan *next;
    int refused;                     /* VkFFT refused key's configuration (not its own): no
                                        plan, kept so VkFFT is not asked again (hst__fft_plan) */
#ifdef HST_FFT
    hst__fft_step host[2];           /* host device: run in order; host[1].units 0: one step */
#  ifndef HST_NO_OPENCL
    VkFFTApplication *app;           /* OpenCL devices */
    /* VkFFT keeps the pointers it is given (sizes at init, buffers at each launch) and reads
       them again later: they point here, never at a stack frame. */
    uint64_t cbytes, rbytes;
    cl_mem cplx, real;
    unsigned runs;                   /* hst__fft_measure's: the first is not timed */
#  endif
#endif
};

HST__ADEF int hst_fft_built_in(void) {
#ifdef HST_FFT
    return 1;
#else
    return 0;
#endif
}

HST__ADEF size_t hst_fft_plan_count(const hst_backend *be) {
    const struct hst__fft_plan *p;
    size_t n = 0;
    const hst__array_state *st =
        (const hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    for (p = st ? st->fft_plans : NULL; p; p = p->next) n += !p->refused;
    return n;
}

/* The kind of a (src, dst) dtype pair of one precision (c64 with f32, c128 with f64); -1 for
   any other pair. */
static int hst__fft_kind(hst_dtype src, hst_dtype dst) {
    hst_dtype c = hst_dtype_is_complex(src) ? src : dst, re = c == HST_C64 ? HST_F32 : HST_F64;
    if (c != HST_C64 && c != HST_C128) return -1;
    if (src == c && dst == c) return HST__FFT_C2C;
    if (src == re && dst == c) return HST__FFT_R2C;
    if (src == c && dst == re) return HST__FFT_C2R;
    return -1;
}

/* The error of a pair hst__fft_kind refuses, naming src's dtype. */
static hst_result hst__fft_dtype_error(const hst_backend *be, const char *func, hst_dtype src) {
    return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func, "dtype %s: FFTs take c64 -> "
                            "c64, f32 -> c64 (forward), c64 -> f32 (inverse) and the same in double "
                            "precision (c128, f64); this is the src dtype", hst_dtype_name(src));
}

#ifndef HST_FFT

HST__ADEF hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                   int inverse, hst_fft_norm norm) {
    const hst_backend *be = dst ? dst->be : src ? src->be : NULL;
    (void)axes; (void)inverse; (void)norm;
    return hst_backend_fail(be, HST_ERROR_NOT_BUILT_IN, HST_LOGITEM_NOT_BUILT_IN, "hst_array_fft", "FFTs are "
                            "not built in: define HST_FFT where the implementation is compiled (FFTW "
                            "and VkFFT headers, link -lfftw3f -lfftw3)");
}
#else

/* Shapes agree for the kind: equal, except the last axis of the complex side of r2c/c2r,
   which holds n / 2 + 1 bins of the real side's n. */
static hst_result hst__fft_check_shapes(const char *func, const hst_array *real_side,
                                        const hst_array *cplx_side, int kind) {
    unsigned i, last = real_side->ndim - 1;
    int same = real_side->be == cplx_side->be && real_side->ndim == cplx_side->ndim;
    for (i = 0; same && i < real_side->ndim; i++) {
        size_t want = real_side->shape[i];
        if (i == last && kind != HST__FFT_C2C) want = want / 2 + 1;
        same = cplx_side->shape[i] == want;
    }
    if (same) return HST_SUCCESS;
    return hst_backend_fail(real_side->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                            "%s", real_side->be != cplx_side->be ? "operands differ in backend"
                            : kind == HST__FFT_C2C ? "src and dst differ in shape"
                            : "the complex array's shape must be the real one's with its last extent n / 2 + 1");
}

/* Drops transformed axes of length 1 (identities that VkFFT refuses as a radix); c2c with no
   axis left is a copy (axes = 0). The last axis of r2c/c2r stays: it is the real one. */
static void hst__fft_squeeze(hst__fft_key *key) {
    size_t kept[HST_FFT_MAX_AXES] = {1, 1, 1};
    unsigned i, m = 0;
    for (i = 0; i < key->axes; i++)
        if (key->n[i] > 1 || (i == 0 && key->kind != HST__FFT_C2C)) kept[m++] = key->n[i];
    memcpy(key->n, kept, sizeof kept);
    key->axes = m;
}

/* Validates a call and fills the plan key. */
static hst_result hst__fft_args(const char *func, hst_array *dst, const hst_array *src,
                                unsigned axes, int inverse, hst_fft_norm norm, hst__fft_key *key) {
    const hst_array *real_side;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(func, src, "src")) != HST_SUCCESS) return r;
    if (axes < 1 || axes > HST_FFT_MAX_AXES || axes > src->ndim)
        return hst__range_arg(dst->be, func, "axes %u is not 1..%d and <= src's ndim %u", axes,
                            HST_FFT_MAX_AXES, src->ndim);
    if ((int)norm < HST_FFT_NORM_BACKWARD || norm > HST_FFT_NORM_FORWARD)
        return hst__range_arg(dst->be, func, "norm %d is not an hst_fft_norm", (int)norm);
    memset(key, 0, sizeof *key);
    key->kind = hst__fft_kind(src->dtype, dst->dtype);
    if (key->kind < 0) return hst__fft_dtype_error(dst->be, func, src->dtype);
    if ((key->kind == HST__FFT_R2C && inverse) || (key->kind == HST__FFT_C2R && !inverse))
        return hst__bad_arg(dst->be, func, "inverse %d: %s", inverse, key->kind == HST__FFT_R2C
                            ? "r2c (real -> complex) is forward only"
                            : "c2r (complex -> real) is inverse only");
    key->cplx = key->kind == HST__FFT_R2C ? dst->dtype : src->dtype;
    real_side = key->kind == HST__FFT_C2R ? dst : src;
    r = hst__fft_check_shapes(func, real_side, key->kind == HST__FFT_C2R ? src : dst, key->kind);
    if (r != HST_SUCCESS) return r;
    key->inverse = inverse != 0;
    key->in_place = dst == src;
    key->axes = axes;
    key->batch = 1;
    for (i = 0; i < HST_FFT_MAX_AXES; i++)
        key->n[i] = i < axes ? real_side->shape[real_side->ndim - 1 - i] : 1;
    for (i = 0; i + axes < real_side->ndim; i++) key->batch *= real_side->shape[i];
    if (key->kind != HST__FFT_C2C && key->n[0] < 2)
        return hst__range_arg(dst->be, func, "the real side's last extent is 1: r2c and c2r "
                            "need n >= 2 (use c64 -> c64)");
    hst__fft_squeeze(key);
    return HST_SUCCESS;
}

/* NumPy's scale factor for the call: 1, 1/N or 1/sqrt(N). */
static double hst__fft_scale(const hst__fft_key *key, hst_fft_norm norm) {
    double n = (double)key->n[0] * (double)key->n[1] * (double)key->n[2];
    if (norm == HST_FFT_NORM_ORTHO) return 1.0 / sqrt(n);
    if ((norm == HST_FFT_NORM_BACKWARD) == (key->inverse != 0)) return 1.0 / n;
    return 1.0;
}

/* Element strides of the transformed axes (fastest first) of a contiguous array whose fastest
   axis holds `fast` elements, and the distance between batches. */
static void hst__fft_strides(const hst__fft_key *key, size_t fast, ptrdiff_t stride[3],
                             ptrdiff_t *dist) {
    size_t s = 1;
    unsigned i;
    for (i = 0; i < HST_FFT_MAX_AXES; i++) {
        stride[i] = (ptrdiff_t)s;
        s *= i == 0 ? fast : key->n[i];
    }
    *dist = (ptrdiff_t)s;
}

/* The host device's threads. FFTW's new-array execute calls are thread-safe (its planner is
   not: plans are made under the backend's serialisation, as every hst_array_fft call is), so a
   large transform is cut into pieces that plans of fewer transforms run on sub-ranges of the
   arrays, shared among the host's cores (backend.h's hst_parallel):
     a batch: pieces of the batch, one step;
     one transform of 2 or 3 axes: two steps by axes. c2c and r2c transform the faster axes for
       each index of the slowest (pieces of those slices), then c2c along the slowest axis
       (pieces of its columns, in place on the output); c2r the other way round, as an inverse
       real transform ends on its real axis: c2c along the slowest axis in place on its pooled
       copy of the spectrum (hst__fft_exec), then c2r of the slices;
     a single 1-D transform, or one smaller than two pieces: one piece, FFTW's plan of it all.
   A piece holds the fewest units (transforms, slices, columns) that make at least
   HST__FFT_HOST_PIECE_ELEMS elements, whatever the number of cores (which only says how many
   threads share the pieces): FFTW's plans for different numbers of transforms may round
   differently, so pieces sized by the cores would give bits that depend on them; these give
   the same bits on any number of cores. 2^13 elements (64 KiB of c64), measured with pieces of
   2^12 to 2^17 (c64 and c128; 128^3, 64 x 512^2, 1024^2, 4096 x 256 down to 32^3 and
   128 x 256): on 16 cores of an H200's host (Xeon) 2^12 to 2^15 run the large ones 8 to 12
   times faster than one plan on one core (c64 128^3 37 -> 3.5 ms, c128 32 -> 3.6 ms), 2^17
   less (no more pieces than cores); of the small ones 2^12 to 2^14 gain 1.5 to 2x where 2^15
   splits fewer and 2^16 none (c128 32^3 0.35 -> 0.21 ms at 2^13); 2 of its cores gain 1.1
   to 1.6x at 2^13 even there. A step costs one fork-join (56 us for 16 shares: backend.h)
   whatever its pieces; on one core pieces of 2^12 to 2^20 took the time of one plan within
   the noise (+-8%, a 2-core AMD EPYC). */
#define HST__FFT_HOST_PIECE_ELEMS ((size_t)1 << 13)

/* A host step to plan: its kind, which arrays it reads and writes (io), FFTW's dims of one
   unit (rank of them, slowest first) and the loop over its units (n of them, is / os elements
   apart). */
typedef struct hst__fft_shape {
    int kind, io, rank;
    fftw_iodim64 dims[HST_FFT_MAX_AXES], loop;
} hst__fft_shape;

/* The arrays a step of io reads and writes, of the call's in and out. */
static void hst__fft_io(int io, void *in, void *out, char **from, char **to) {
    *from = (char *)(io == HST__FFT_OUT_OUT ? out : in);
    *to = (char *)(io == HST__FFT_IN_IN ? in : out);
}

/* sh's dims: the key's axes lo .. hi - 1 (fastest first) as FFTW's dims of a step of sh's kind;
   rs, cs the real and complex side's strides (hst__fft_strides). */
static void hst__fft_dims(const hst__fft_key *key, unsigned lo, unsigned hi, const ptrdiff_t rs[3],
                          const ptrdiff_t cs[3], hst__fft_shape *sh) {
    unsigned i;
    sh->rank = (int)(hi - lo);
    for (i = 0; i < hi - lo; i++) {        /* FFTW lists dims slowest first */
        unsigned a = hi - 1 - i;
        sh->dims[i].n = (ptrdiff_t)key->n[a];
        sh->dims[i].is = sh->kind == HST__FFT_R2C ? rs[a] : cs[a];
        sh->dims[i].os = sh->kind == HST__FFT_C2R ? rs[a] : cs[a];
    }
}

/* FFTW's calls of one precision: prefix pre (fftwf: c64, fftw: c128), real type R; FFTW's
   API is the same per precision but for the prefix and the types. The plan of a step (from
   the caller's sh, loop, sign, flags, from, to), and its new-array execution (s, plan, from,
   to). Used by the functions below only. */
#define HST__FFTW_PLAN(pre, R)                                                                   \
    (sh->kind == HST__FFT_C2C                                                                    \
     ? pre##_plan_guru64_dft(sh->rank, sh->dims, 1, &loop, (pre##_complex *)from,               \
                             (pre##_complex *)to, sign, flags)                                   \
     : sh->kind == HST__FFT_R2C                                                                  \
     ? pre##_plan_guru64_dft_r2c(sh->rank, sh->dims, 1, &loop, (R *)from, (pre##_complex *)to,  \
                                 flags)                                                          \
     : pre##_plan_guru64_dft_c2r(sh->rank, sh->dims, 1, &loop, (pre##_complex *)from, (R *)to,  \
                                 flags))
#define HST__FFTW_RUN(pre, R, plan)                                                              \
    do {                                                                                         \
        if (s->kind == HST__FFT_C2C)                                                             \
            pre##_execute_dft(plan, (pre##_complex *)from, (pre##_complex *)to);                 \
        else if (s->kind == HST__FFT_R2C)                                                        \
            pre##_execute_dft_r2c(plan, (R *)from, (pre##_complex *)to);                         \
        else                                                                                     \
            pre##_execute_dft_c2r(plan, (pre##_complex *)from, (R *)to);                         \
    } while (0)

/* Step s's plans (guru64 interface: no int limits; FFTW_ESTIMATE leaves the arrays untouched;
   FFTW_UNALIGNED lets one plan run on any arrays, every piece's among them, through the
   new-array execute calls) for pieces of at least piece_elems elements (SIZE_MAX: one piece).
   0 when FFTW makes no plan. */
static int hst__fft_plan_step(const hst__fft_key *key, const hst__fft_shape *sh, size_t piece_elems,
                              void *in, void *out, hst__fft_step *s) {
    fftw_iodim64 loop = sh->loop;
    unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED, i;
    int sign = key->inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    size_t csize = hst_dtype_size(key->cplx), elems = 1, per;
    char *from, *to;
    for (i = 0; i < (unsigned)sh->rank; i++) elems *= (size_t)sh->dims[i].n;   /* <= the array's */
    per = piece_elems / elems + (piece_elems % elems != 0);
    s->kind = sh->kind;
    s->io = sh->io;
    s->units = (size_t)sh->loop.n;
    s->per = per < s->units ? per : s->units;
    s->ibytes = (size_t)sh->loop.is * (sh->kind == HST__FFT_R2C ? csize / 2 : csize);
    s->obytes = (size_t)sh->loop.os * (sh->kind == HST__FFT_C2R ? csize / 2 : csize);
    hst__fft_io(s->io, in, out, &from, &to);
    for (i = 0; i < 2; i++) {
        loop.n = (ptrdiff_t)(i == 0 ? s->per : s->units % s->per);
        if (loop.n == 0) break;
        if (key->cplx == HST_C128) s->d[i] = HST__FFTW_PLAN(fftw, double);
        else s->f[i] = HST__FFTW_PLAN(fftwf, float);
        if (!s->d[i] && !s->f[i]) return 0;
    }
    return 1;
}

static void hst__fft_destroy_host(struct hst__fft_plan *p) {
    unsigned i, j;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            if (p->host[i].f[j]) fftwf_destroy_plan(p->host[i].f[j]);
            if (p->host[i].d[j]) fftw_destroy_plan(p->host[i].d[j]);
        }
}

/* The host steps of key (see the host device's threads above). A piece FFTW refuses fails the
   call as a refused whole plan does, with no fallback to the whole plan: a piece is a problem
   of the whole's lengths with fewer transforms, which FFTW's solvers cover where they cover
   the whole, and a fallback would have to be logged (a refusal is not expected at all). */
static hst_result hst__fft_plan_host(hst_backend *be, const hst__fft_key *key, void *in,
                                     void *out, struct hst__fft_plan *p) {
    hst__fft_shape sh;
    ptrdiff_t rs[3], cs[3], rdist, cdist;
    unsigned last = key->axes - 1;
    int c2r = key->kind == HST__FFT_C2R, split, ok;
    size_t bins = key->kind == HST__FFT_C2C ? key->n[0] : key->n[0] / 2 + 1;
    hst__fft_strides(key, key->n[0], rs, &rdist);
    hst__fft_strides(key, bins, cs, &cdist);
    /* the real side's count (no overflow: the array holds it) makes two pieces or more */
    split = (size_t)rdist * key->batch / 2 >= HST__FFT_HOST_PIECE_ELEMS;
    sh.kind = key->kind;
    sh.io = HST__FFT_IN_OUT;
    if (!split || key->batch > 1 || key->axes == 1) {
        hst__fft_dims(key, 0, key->axes, rs, cs, &sh);
        sh.loop.n = (ptrdiff_t)key->batch;
        sh.loop.is = key->kind == HST__FFT_R2C ? rdist : cdist;
        sh.loop.os = c2r ? rdist : cdist;
        ok = hst__fft_plan_step(key, &sh, split ? HST__FFT_HOST_PIECE_ELEMS : SIZE_MAX, in, out,
                                &p->host[0]);
    } else {   /* the slices of the faster axes, then the columns along the slowest */
        hst__fft_dims(key, 0, last, rs, cs, &sh);
        sh.loop.n = (ptrdiff_t)key->n[last];
        sh.loop.is = key->kind == HST__FFT_R2C ? rs[last] : cs[last];
        sh.loop.os = c2r ? rs[last] : cs[last];
        ok = hst__fft_plan_step(key, &sh, HST__FFT_HOST_PIECE_ELEMS, in, out, &p->host[c2r]);
        sh.kind = HST__FFT_C2C;
        sh.io = c2r ? HST__FFT_IN_IN : HST__FFT_OUT_OUT;
        hst__fft_dims(key, last, key->axes, rs, cs, &sh);
        sh.loop.n = cs[last];
        sh.loop.is = sh.loop.os = 1;
        ok = ok && hst__fft_plan_step(key, &sh, HST__FFT_HOST_PIECE_ELEMS, in, out, &p->host[!c2r]);
    }
    if (ok) return HST_SUCCESS;
    hst__fft_destroy_host(p);
    return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_FFT_LIBRARY, "hst_array_fft",
                            "FFTW made no "
                            "plan for these lengths and batch");
}

/* A step's run: its pieces, shared among the calling thread and backend.h's workers. */
typedef struct hst__fft_job {
    const hst__fft_step *s;
    char *from, *to;
    size_t pieces;
} hst__fft_job;

static void hst__fft_piece(const hst__fft_job *job, size_t k) {
    const hst__fft_step *s = job->s;
    size_t first = k * s->per;                /* < units */
    int rest = s->units - first < s->per;     /* the last piece, shorter: plan [1] */
    char *from = job->from + first * s->ibytes, *to = job->to + first * s->obytes;
    if (s->d[rest]) HST__FFTW_RUN(fftw, double, s->d[rest]);
    else HST__FFTW_RUN(fftwf, float, s->f[rest]);
}

/* Share k of n: pieces / n of them, one more for the first pieces % n shares. */
static void hst__fft_share(void *ctx, unsigned k, unsigned n) {
    const hst__fft_job *job = (const hst__fft_job *)ctx;
    size_t q = job->pieces / n, r = job->pieces % n;
    size_t a = q * k + (k < r ? k : r), b = a + q + (k < r);
    for (; a < b; a++) hst__fft_piece(job, a);
}

static void hst__fft_run_host(const struct hst__fft_plan *p, void *in, void *out) {
    unsigned i, cores = hst_cpu_count();
    for (i = 0; i < 2 && p->host[i].units; i++) {
        const hst__fft_step *s = &p->host[i];
        hst__fft_job job;
        job.s = s;
        hst__fft_io(s->io, in, out, &job.from, &job.to);
        job.pieces = s->units / s->per + (s->units % s->per != 0);
        hst_parallel(hst__fft_share, &job, job.pieces < cores ? (unsigned)job.pieces : cores);
    }
}
#undef HST__FFTW_PLAN
#undef HST__FFTW_RUN

#ifndef HST_NO_OPENCL
/* The VkFFT configurations hst_array_fft chooses among on an OpenCL device, per transform kind,
   precision and shape, by measured time (choice.h's operation "array_fft_<kind>_<c64|c128>",
   signature n0, n1, n2 (fastest first), batch): no one configuration is the fastest everywhere.
   One H200 (bench/RESULTS.md, 2026-12-03 evening): 64-byte coalesced accesses take a batch of
   64 1024^2 c2c f32 from 0.659 to 0.579 ms and cost 1000^2 0.76 -> 0.89; 128-byte ones take
   512^3 from 1.92 to 1.64 ms; registers for non-power-of-two lengths 1536^2 from 0.473 to
   0.418. The first is VkFFT's own configuration for the device (its choice on CPU devices,
   which do not explore the others: each is a program build). */
typedef struct hst__fft_variant {
    const char *name;
    uint64_t coalesced;       /* VkFFT's coalescedMemory, bytes; 0: its default */
    uint64_t nonpow2_boost;   /* its registerBoostNonPow2 */
} hst__fft_variant;
static const hst__fft_variant hst__fft_variants[] = {
    {"vkfft", 0, 0}, {"coalesced64", 64, 0}, {"coalesced128", 128, 0}, {"nonpow2boost", 0, 1}
};
#define HST__FFT_VARIANTS (sizeof hst__fft_variants / sizeof hst__fft_variants[0])

/* initializeVkFFT's failure vr as the call's result. A configuration other than VkFFT's own
   that VkFFT refuses (other than for memory) is no error of the call: hst__fft_exec_variant
   runs VkFFT's own instead, so it is logged below the error level, once (hst__fft_plan keeps
   the refusal; the refusal of VkFFT's own configuration is the call's error). */
static hst_result hst__fft_init_error(hst_backend *be, const hst__fft_key *key, VkFFTResult vr) {
    if (vr == VKFFT_ERROR_MALLOC_FAILED) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (vr == VKFFT_ERROR_FAILED_TO_ALLOCATE || vr == VKFFT_ERROR_FAILED_TO_CREATE_BUFFER ||
        vr == VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY)   /* its scratch and tables on the device */
        return hst_backend_fail(be, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                                "hst_array_fft", "initializeVkFFT could not allocate device memory "
                                "(VkFFTResult %d)", (int)vr);
    if (key->variant == 0)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_FFT_LIBRARY, "hst_array_fft",
                                "initializeVkFFT failed (VkFFTResult %d)", (int)vr);
    hst_backend_log(be, HST_LOG_INFO, HST_LOGITEM_FFT_LIBRARY, "hst_array_fft: VkFFT refuses "
                    "configuration %s for lengths %zu x %zu x %zu, batch %zu (VkFFTResult %d); "
                    "VkFFT's own is used", hst__fft_variants[key->variant].name, key->n[0],
                    key->n[1], key->n[2], key->batch, (int)vr);
    return HST_ERROR_UNSUPPORTED;
}

/* The VkFFT application: sizes fastest first (VkFFT's W, H, D), batches as numberBatches,
   strides of every buffer given explicitly (the complex side holds n / 2 + 1 bins in r2c/c2r;
   the real side is VkFFT's unpadded "input buffer"). Only the direction needed is compiled. */
static hst_result hst__fft_plan_cl(hst_backend *be, const hst__fft_key *key, cl_mem cplx,
                                   cl_mem real, struct hst__fft_plan *p) {
    /* made by hst__fft_plan before any plan */
    hst__array_state *st = (hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    VkFFTConfiguration c;
    VkFFTResult vr;
    ptrdiff_t rs[3], cs[3], rdist, cdist;
    unsigned i;
    size_t bins = key->kind == HST__FFT_C2C ? key->n[0] : key->n[0] / 2 + 1;
    hst__fft_strides(key, key->n[0], rs, &rdist);
    hst__fft_strides(key, bins, cs, &cdist);
    p->cbytes = (uint64_t)cdist * key->batch * hst_dtype_size(key->cplx);
    p->rbytes = (uint64_t)rdist * key->batch * (hst_dtype_size(key->cplx) / 2);
    p->cplx = cplx;
    p->real = real;
    memset(&c, 0, sizeof c);
    c.doublePrecision = key->cplx == HST_C128;   /* the device has fp64: c128 arrays exist */
    c.FFTdim = key->axes;
    for (i = 0; i < HST_FFT_MAX_AXES; i++) {
        c.size[i] = key->n[i];
        c.bufferStride[i] = (uint64_t)(i + 1 < HST_FFT_MAX_AXES ? cs[i + 1] : cdist);
    }
    c.numberBatches = key->batch;
    c.platform = &st->platform;
    c.device = &st->dev;
    c.context = &st->ctx;
    c.commandQueue = &st->queue;
    c.buffer = &p->cplx;
    c.bufferSize = &p->cbytes;
    if (key->kind != HST__FFT_C2C) {
        c.performR2C = 1;
        c.isInputFormatted = 1;
        c.inputBuffer = &p->real;
        c.inputBufferSize = &p->rbytes;
        for (i = 0; i < HST_FFT_MAX_AXES; i++)
            c.inputBufferStride[i] = (uint64_t)(i + 1 < HST_FFT_MAX_AXES ? rs[i + 1] : rdist);
        c.inverseReturnToInputBuffer = 1;
    }
    c.makeForwardPlanOnly = !key->inverse;
    c.makeInversePlanOnly = key->inverse != 0;
    if (hst_backend_device(be)->unified_memory) c.coalescedMemory = 64;   /* CPU caches: 64-byte lines */
    if (hst__fft_variants[key->variant].coalesced) c.coalescedMemory = hst__fft_variants[key->variant].coalesced;
    c.registerBoostNonPow2 = hst__fft_variants[key->variant].nonpow2_boost;
    if (!(p->app = (VkFFTApplication *)hst_backend_calloc(be, sizeof *p->app)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    vr = initializeVkFFT(p->app, c);
    if (vr == VKFFT_SUCCESS) return HST_SUCCESS;
    hst_backend_free(be, p->app);
    p->app = NULL;
    return hst__fft_init_error(be, key, vr);
}

/* Enqueues the transform: c2c in place on cplx; r2c real -> cplx; c2r cplx -> real (cplx is
   overwritten: the caller passes a copy). */
static hst_result hst__fft_run_cl(hst_backend *be, struct hst__fft_plan *p, cl_mem cplx,
                                  cl_mem real) {
    /* made by hst__fft_plan before any plan */
    hst__array_state *st = (hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    VkFFTLaunchParams lp;
    VkFFTResult vr;
    memset(&lp, 0, sizeof lp);
    p->cplx = cplx;
    p->real = real;
    lp.commandQueue = &st->queue;
    lp.buffer = &p->cplx;
    if (p->key.kind != HST__FFT_C2C) lp.inputBuffer = &p->real;
    vr = VkFFTAppend(p->app, p->key.inverse ? 1 : -1, &lp);
    if (vr == VKFFT_SUCCESS) return HST_SUCCESS;
    return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_FFT_LIBRARY, "hst_array_fft",
                            "VkFFTAppend "
                            "failed (VkFFTResult %d)", (int)vr);
}
#endif

/* Frees plan p: its FFTW plans, or its VkFFT application (kernels, programs, device buffers). */
static void hst__fft_destroy(hst_backend *be, struct hst__fft_plan *p) {
    hst__fft_destroy_host(p);
#ifndef HST_NO_OPENCL
    if (p->app) { deleteVkFFT(p->app); hst_backend_free(be, p->app); }
#endif
    hst_backend_free(be, p);
}

static void hst__fft_release(hst_backend *be, hst__array_state *st) {
    while (st->fft_plans) {
        struct hst__fft_plan *p = st->fft_plans;
        st->fft_plans = p->next;
        hst__fft_destroy(be, p);
    }
}

/* st's entry for key (a plan or a refusal kept), or NULL. */
static struct hst__fft_plan *hst__fft_find(const hst__array_state *st, const hst__fft_key *key) {
    struct hst__fft_plan *p = st->fft_plans;
    while (p && memcmp(&p->key, key, sizeof *key)) p = p->next;
    return p;
}

/* The cached plan for key, made on first use from the call's arrays (cplx: the complex side,
   or the c2c in-place array; real: the real side; host pointers on the host device). VkFFT's
   refusal of a configuration other than its own is kept as an entry with no plan, refused
   again without asking VkFFT (its refusal is the same at every call; hst__fft_exec_variant
   runs VkFFT's own there); an out-of-memory is not kept (the caller may free memory and call
   again), nor the refusal of VkFFT's own (the call's error, logged as one at every call). */
static hst_result hst__fft_plan(hst_backend *be, const hst__fft_key *key, hst_buffer *in,
                                hst_buffer *out, struct hst__fft_plan **found) {
    hst__array_state *st;
    struct hst__fft_plan *p;
    hst_result r;
    if ((r = hst__array_state_of(be, &st)) != HST_SUCCESS) return r;
    if ((p = hst__fft_find(st, key)) != NULL) {
        if (p->refused) return HST_ERROR_UNSUPPORTED;
        *found = p;
        return HST_SUCCESS;
    }
    if (!(p = (struct hst__fft_plan *)hst_backend_calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->key = *key;
#ifndef HST_NO_OPENCL
    if (!hst_backend_is_host(be)) {
        int c2r = key->kind == HST__FFT_C2R;
        r = hst__fft_plan_cl(be, key, hst_buffer_cl(c2r ? in : out), hst_buffer_cl(c2r ? out : in), p);
    } else
#endif
        r = hst__fft_plan_host(be, key, hst_buffer_host_ptr(in), hst_buffer_host_ptr(out), p);
    if (r != HST_SUCCESS && (key->variant == 0 || hst_result_is_out_of_memory(r))) {
        hst_backend_free(be, p);
        return r;
    }
    p->refused = r != HST_SUCCESS;
    p->next = st->fft_plans;
    st->fft_plans = p;
    if (p->refused) return r;
    *found = p;
    return HST_SUCCESS;
}

/* Runs the transform unscaled with key's plan. Inputs are never modified: c2r (which both
   libraries run in place on the spectrum) works on a pooled copy; c2c on an OpenCL device
   copies src into dst and transforms dst in place. */
static hst_result hst__fft_exec_plan(hst_array *dst, const hst_array *src, const hst__fft_key *key) {
    hst_backend *be = dst->be;
    hst_buffer *in = src->buf, *tmp = NULL;
    struct hst__fft_plan *p;
    hst_result r = HST_SUCCESS;
    if (key->kind == HST__FFT_C2R) {
        if ((r = hst_pool_alloc(hst_backend_pool(be), src->bytes, &tmp)) != HST_SUCCESS) return r;
        r = hst_copy(hst_backend_queue(be), tmp, 0, src->buf, 0, src->bytes, 0, NULL, NULL);
        in = tmp;
    } else if (key->kind == HST__FFT_C2C && !hst_backend_is_host(be) && dst->buf != src->buf) {
        r = hst_copy(hst_backend_queue(be), dst->buf, 0, src->buf, 0, src->bytes, 0, NULL, NULL);
        in = dst->buf;
    }
    if (r == HST_SUCCESS) r = hst__fft_plan(be, key, in, dst->buf, &p);
#ifndef HST_NO_OPENCL
    if (r == HST_SUCCESS && !hst_backend_is_host(be)) {
        int c2r = key->kind == HST__FFT_C2R;
        r = hst__fft_run_cl(be, p, hst_buffer_cl(c2r ? in : dst->buf), hst_buffer_cl(c2r ? dst->buf : in));
    } else
#endif
    if (r == HST_SUCCESS) hst__fft_run_host(p, hst_buffer_host_ptr(in), hst_buffer_host_ptr(dst->buf));
    hst_buffer_destroy(tmp);
    return r;
}

#ifndef HST_NO_OPENCL
/* The timings of the variants for key's kind and precision on be (a timings-only operation:
   hst__fft_exec runs and measures), registered on first use; force, a variant's name: always
   that one (the tests' way to run each). */
static hst_result hst__fft_op(hst_backend *be, const hst__fft_key *key, const char *force, hst_choice_op **op) {
    static const char *const kinds[3] = {"c2c", "r2c", "c2r"};
    hst_choice_impl impls[HST__FFT_VARIANTS];
    hst_choice_op_desc od;
    char name[32];
    unsigned i;
    snprintf(name, sizeof name, "array_fft_%s_%s", kinds[key->kind], key->cplx == HST_C128 ? "c128" : "c64");
    if ((*op = hst_choice_find(be, name)) != NULL) return HST_SUCCESS;
    memset(impls, 0, sizeof impls);
    for (i = 0; i < HST__FFT_VARIANTS; i++) impls[i].name = hst__fft_variants[i].name;
    memset(&od, 0, sizeof od);
    od.name = name;
    od.impls = impls;
    od.num_impls = HST__FFT_VARIANTS;
    od.force = force;
    od.no_explore = hst_backend_device(be)->type != HST_DEVICE_GPU;
    return hst_choice_register(be, &od, op);
}

#define HST__FFT_SIG 4        /* the signature: n0, n1, n2, batch */
#define HST__FFT_SAMPLES 3     /* timings a GPU takes of a configuration at a size range */

/* key's signature in its operation. */
static void hst__fft_sig(const hst__fft_key *key, int64_t sig[HST__FFT_SIG]) {
    sig[0] = (int64_t)key->n[0]; sig[1] = (int64_t)key->n[1]; sig[2] = (int64_t)key->n[2];
    sig[3] = (int64_t)key->batch;
}

/* 1 when this call measures variant v at sig: a GPU with fewer than HST__FFT_SAMPLES timings of
   it there (the pick explores each unmeasured one in turn, then refines the fastest). */
static int hst__fft_measuring(hst_backend *be, const hst_choice_op *op, const int64_t *sig, unsigned v) {
    hst_choice_stat st[HST__FFT_VARIANTS];
    size_t n = 0;
    if (hst_backend_device(be)->type != HST_DEVICE_GPU ||
        hst_choice_stats(op, sig, HST__FFT_SIG, st, HST__FFT_VARIANTS, &n) != HST_SUCCESS || v >= n)
        return 0;
    return st[v].source != HST_CHOICE_EXACT || st[v].samples < HST__FFT_SAMPLES;
}

/* 1 when be keeps VkFFT's refusal of key (hst__fft_plan). */
static int hst__fft_refused(const hst_backend *be, const hst__fft_key *key) {
    const hst__array_state *st =
        (const hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    const struct hst__fft_plan *p = st ? hst__fft_find(st, key) : NULL;
    return p && p->refused;
}

/* 1 when plan p, of op's kind and precision, is of another configuration than the one the
   choice settled on at its size range (hst__fft_measuring: nothing left to measure), other
   than VkFFT's own at a shape where VkFFT refused the pick (the plan run there: the pick
   applies to the whole range, the refusal to the shape). A refusal kept holds no VkFFT
   resources and stays true: never lost. */
static int hst__fft_lost(hst_backend *be, const hst_choice_op *op, const struct hst__fft_plan *p) {
    int64_t sig[HST__FFT_SIG];
    hst__fft_key pick = p->key;
    hst__fft_sig(&p->key, sig);
    return !p->refused && hst_choice_pick(op, sig, HST__FFT_SIG, &pick.variant) == HST_SUCCESS &&
           pick.variant != p->key.variant && !hst__fft_measuring(be, op, sig, pick.variant) &&
           !(p->key.variant == 0 && hst__fft_refused(be, &pick));
}

/* Frees the plans of key's kind and precision whose size range has settled on another
   configuration: measuring made one per configuration, each holding VkFFT's kernels and
   device buffers, which only the pick needs now (a range whose pick changes later plans it
   again on first use). Called right after a queue finish: every plan runs on the backend's
   queue, so no transform still to run uses the plans freed. */
static void hst__fft_drop_losers(hst_backend *be, const hst_choice_op *op, const hst__fft_key *key) {
    /* made by hst__fft_plan before any plan */
    hst__array_state *st = (hst__array_state *)hst_backend_extension(be, HST__ARRAY_EXTENSION);
    struct hst__fft_plan **at = &st->fft_plans;
    while (*at) {
        struct hst__fft_plan *p = *at;
        if (p->key.kind == key->kind && p->key.cplx == key->cplx && hst__fft_lost(be, op, p)) {
            *at = p->next;
            hst__fft_destroy(be, p);
        } else {
            at = &p->next;
        }
    }
}

/* Runs key's variant on an idle queue (what was queued before finished first) to completion,
   and records its time at sig; a plan's first run (its program build, first launches) is not
   recorded. A failure records nothing (a later call measures again; an out-of-memory stays
   the caller's to recover from), except a plan VkFFT refuses: recorded as a failure at sig's
   size range, never picked there again in this process, and no time, so that the ranges near
   it still measure the configuration (VkFFT refuses shapes, not configurations). A time
   recorded may settle the choice: the queue is idle, the losers' plans go. */
static hst_result hst__fft_measure(hst_array *dst, const hst_array *src, const hst__fft_key *key,
                                   hst_choice_op *op, const int64_t *sig) {
    hst_queue *q = hst_backend_queue(dst->be);
    struct hst__fft_plan *p = NULL;
    double t0;
    hst_result r = hst__fft_plan(dst->be, key, key->kind == HST__FFT_C2C ? dst->buf : src->buf, dst->buf, &p);
    if (r != HST_SUCCESS) {
        if (!hst_result_is_out_of_memory(r)) {
            hst_result noted = hst_choice_record_failure(op, sig, HST__FFT_SIG,
                                                         hst__fft_variants[key->variant].name, r);
            (void)noted;   /* the call's error is the refusal */
        }
        return r;
    }
    if ((r = hst_queue_finish(q)) != HST_SUCCESS) return r;
    t0 = hst_time_s();
    r = hst__fft_exec_plan(dst, src, key);
    if (r == HST_SUCCESS) r = hst_queue_finish(q);
    if (r != HST_SUCCESS || p->runs++ == 0) return r;
    r = hst_choice_record(op, sig, HST__FFT_SIG, hst__fft_variants[key->variant].name, hst_time_s() - t0);
    hst__fft_drop_losers(dst->be, op, key);
    return r;
}

/* Runs key's variant, measured (hst__fft_measure) when `measuring`, else enqueued without
   waiting. Where a configuration other than VkFFT's own fails other than for memory (VkFFT
   refuses it at this shape: while measuring, or at a shape that shares its range with one
   where it was chosen), runs VkFFT's own; a refusal kept (hst__fft_plan) goes to it at once
   outside measuring (without the input's copy that running key's plan starts with). */
static hst_result hst__fft_exec_variant(hst_array *dst, const hst_array *src, const hst__fft_key *key,
                                        hst_choice_op *op, const int64_t *sig, int measuring) {
    hst__fft_key own = *key;
    hst_result r = HST_ERROR_UNSUPPORTED;
    if (measuring) r = hst__fft_measure(dst, src, key, op, sig);
    else if (!hst__fft_refused(dst->be, key)) r = hst__fft_exec_plan(dst, src, key);
    if (r == HST_SUCCESS || key->variant == 0 || hst_result_is_out_of_memory(r)) return r;
    own.variant = 0;
    return hst__fft_exec_plan(dst, src, &own);
}
#endif

/* Runs the transform unscaled (hst__fft_exec_plan); on an OpenCL device with the VkFFT
   configuration the choice picks for its size range (hst__fft_exec_variant), measured while it
   has too few timings there. */
static hst_result hst__fft_exec(hst_array *dst, const hst_array *src, const hst__fft_key *key) {
#ifndef HST_NO_OPENCL
    if (!hst_backend_is_host(dst->be)) {
        hst__fft_key k = *key;
        hst_choice_op *op = NULL;
        int64_t sig[HST__FFT_SIG];
        hst_result r = hst__fft_op(dst->be, key, NULL, &op);
        hst__fft_sig(key, sig);
        if (r == HST_SUCCESS) r = hst_choice_pick(op, sig, HST__FFT_SIG, &k.variant);
        if (r != HST_SUCCESS) return r;
        return hst__fft_exec_variant(dst, src, &k, op, sig, hst__fft_measuring(dst->be, op, sig, k.variant));
    }
#endif
    return hst__fft_exec_plan(dst, src, key);
}

/* Where an array's bytes lie: its buffer's underlying allocation and the offset in it. */
static const hst_buffer *hst__array_root(const hst_array *a, size_t *at) {
    return hst_buffer_root(a->buf, at);
}

/* 1: a and b (distinct arrays) cover the same bytes with the same dtype and shape (two views of
   one region: in place); -1: their bytes overlap otherwise; 0: they are apart. */
static int hst__array_alias(const hst_array *a, const hst_array *b) {
    size_t ao = 0, bo = 0;
    unsigned i;
    int same;
    if (hst__array_root(a, &ao) != hst__array_root(b, &bo)) return 0;
    if (ao >= bo + b->bytes || bo >= ao + a->bytes) return 0;
    same = ao == bo && a->dtype == b->dtype && a->ndim == b->ndim;
    for (i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    return same ? 1 : -1;
}

HST__ADEF hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                   int inverse, hst_fft_norm norm) {
    static const char *F = "hst_array_fft";
    hst__fft_key key;
    double scale;
    hst_result r;
    if (dst && src && dst != src) {
        int alias = hst__array_alias(dst, src);
        if (alias == 1) src = dst;   /* two views of the same bytes: in place */
        else if (alias < 0)
            return hst__bad_arg(dst->be, F, "src and dst are views of overlapping bytes (give "
                                "the same array, or views of the same bytes, to transform in place)");
    }
    if ((r = hst__fft_args(F, dst, src, axes, inverse, norm, &key)) != HST_SUCCESS) return r;
    if (!hst_backend_is_host(dst->be) && key.kind == HST__FFT_C2C) key.in_place = 1;  /* see exec */
    if (key.axes == 0) r = hst_array_copy(dst, src);     /* every length was 1 */
    else r = hst__fft_exec(dst, src, &key);
    if (r != HST_SUCCESS) return r;
    scale = hst__fft_scale(&key, norm);
    return scale == 1.0 ? HST_SUCCESS : hst_array_scale(dst, hst_real(scale));
}
#endif /* HST_FFT */

/* >>fftn: numpy.fft's `s` and `axes` on top of hst_array_fft. */
/* dst axis i = src axis perm[i] over the box of extents min(dst's, src's permuted): a
   transpose that crops, or pads with zeros where dst is larger. Same dtype and ndim. */
static hst_result hst__permute_box(hst_array *dst, const hst_array *src, const unsigned *perm) {
    size_t box[HST_MAX_DIMS] = {1, 1, 1, 1};
    hst__v4 sv = hst__view(src->ndim, src->shape), dv = hst__view(dst->ndim, dst->shape);
    hst__gather_args g;
    unsigned i, nd = dst->ndim, lead = HST_MAX_DIMS - dst->ndim;
    int pad = 0;
    hst_result r;
    for (i = 0; i < nd; i++) {
        size_t se = src->shape[perm[i]];
        box[i] = se < dst->shape[i] ? se : dst->shape[i];
        pad |= se < dst->shape[i];
    }
    if (pad && (r = hst_array_zeros(dst)) != HST_SUCCESS) return r;
    g = hst__gather_plain(nd, box);
    for (i = 0; i < HST_MAX_DIMS; i++) g.dst[i] = dv.stride[i];
    for (i = 0; i < nd; i++) g.sst[lead + i] = sv.stride[lead + perm[i]];
    return hst__gather(dst, src, &g);
}

/* The call's plan: perm (transformed axes last, in axes' order), the permuted input shape
   (transformed axes at their input lengths) and output shape. Validates axes and s. */
static hst_result hst__fftn_shapes(const char *func, const hst_array *src, const hst_array *dst,
                                   unsigned naxes, const unsigned *axes, const size_t *s,
                                   unsigned perm[HST_MAX_DIMS], size_t in[HST_MAX_DIMS],
                                   size_t out[HST_MAX_DIMS]) {
    unsigned nd = src->ndim, i, k, m = 0, used = 0;
    int kind = hst__fft_kind(src->dtype, dst->dtype);
    for (k = 0; k < naxes; k++) {
        unsigned a = axes ? axes[k] : nd - naxes + k;
        if (a >= nd || (used >> a) & 1u)
            return hst__range_arg(src->be, func, "axes[%u] = %u is out of range or repeated", k, a);
        used |= 1u << a;
    }
    for (i = 0; i < nd; i++) if (!((used >> i) & 1u)) perm[m++] = i;
    for (k = 0; k < naxes; k++, m++) {
        unsigned a = axes ? axes[k] : nd - naxes + k;
        int last = k + 1 == naxes;
        size_t len = s ? s[k] : kind == HST__FFT_C2R && last ? 2 * (src->shape[a] - 1) : src->shape[a];
        if (!len) return hst__zero_arg(src->be, func, "s[%u] is 0 (or c2r's default from one bin)", k);
        perm[m] = a;
        in[m] = kind == HST__FFT_C2R && last ? len / 2 + 1 : len;
        out[m] = kind == HST__FFT_R2C && last ? len / 2 + 1 : len;
    }
    for (i = 0; i + naxes < nd; i++) in[i] = out[i] = src->shape[perm[i]];
    if (dst->ndim != nd)
        return hst_backend_fail(src->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "dst's ndim is not src's");
    for (i = 0; i < nd; i++)
        if (dst->shape[perm[i]] != out[i])
            return hst_backend_fail(src->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                    "dst's shape is not src's with s along axes");
    return HST_SUCCESS;
}

/* 1 when array a already has the permuted layout (perm the identity, the extents shape). */
static int hst__fftn_in_place(const hst_array *a, const unsigned *perm, const size_t *shape) {
    unsigned i;
    int same = 1;
    for (i = 0; i < a->ndim; i++) same = same && perm[i] == i && a->shape[i] == shape[i];
    return same;
}

HST__ADEF hst_result hst_array_fftn(hst_array *dst, const hst_array *src, unsigned naxes,
                                    const unsigned *axes, const size_t *s, int inverse,
                                    hst_fft_norm norm) {
    static const char *F = "hst_array_fftn";
    unsigned perm[HST_MAX_DIMS], inv[HST_MAX_DIMS], i;
    size_t in[HST_MAX_DIMS], out[HST_MAX_DIMS];
    const hst_array *fin = src;
    hst_array *t1 = NULL, *t2 = NULL, *fout = dst;
    hst_result r;
    if (!hst_fft_built_in()) return hst_array_fft(dst, src, naxes, inverse, norm);   /* its error */
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if (naxes < 1 || naxes > HST_FFT_MAX_AXES || naxes > src->ndim)
        return hst__range_arg(dst->be, F, "naxes %u is not 1..%d and <= src's ndim %u", naxes, HST_FFT_MAX_AXES, src->ndim);
    if (hst__fft_kind(src->dtype, dst->dtype) < 0)
        return hst__fft_dtype_error(dst->be, F, src->dtype);
    if (dst->be != src->be)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "operands differ in backend");
    if ((r = hst__fftn_shapes(F, src, dst, naxes, axes, s, perm, in, out)) != HST_SUCCESS) return r;
    for (i = 0; i < src->ndim; i++) inv[perm[i]] = i;
    if (!hst__fftn_in_place(src, perm, in)) {   /* axes last, cropped or padded */
        if ((r = hst_array_create(src->be, src->dtype, src->ndim, in, &t1)) == HST_SUCCESS)
            r = hst__permute_box(t1, src, perm);
        fin = t1;
    }
    if (r == HST_SUCCESS && !hst__fftn_in_place(dst, perm, out)) {
        r = hst_array_create(dst->be, dst->dtype, dst->ndim, out, &t2);
        fout = t2;
    }
    if (r == HST_SUCCESS) r = hst_array_fft(fout, fin, naxes, inverse, norm);
    if (r == HST_SUCCESS && t2) r = hst_array_transpose(dst, t2, inv);   /* the axes back */
    hst_array_destroy(t1);
    hst_array_destroy(t2);
    return r;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_ARRAY_IMPLEMENTATION */

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
