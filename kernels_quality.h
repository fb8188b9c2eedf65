/* kernels_quality.h — the quality program: SQUIRREL's error map, Fourier ring correlation, decorrelation analysis and drift estimation: its OpenCL C 1.2 sources as string literals, its host C twins
   (the same semantics; bit for bit where stated) and its kernels' declarations. One of the
   kernel families of kernels.h's design, included by quality.h (which launches them) and by tests;
   a program that does not include quality.h compiles none of it. Single-file, header-only, C99
   (and C++); HST_IMPLEMENTATION (or HST_KERNELS_QUALITY_IMPLEMENTATION, which quality.h's
   implementation defines) compiles the body, as for every halostream header. kernels.h
   explains the conventions every family keeps (FP contraction off, pieces of at most 4095
   characters, thread safety).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_KERNELS_QUALITY_H
#define HST_KERNELS_QUALITY_H

#include "backend.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_QUALITY_IMPLEMENTATION)
#  define HST_KERNELS_QUALITY_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

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
     hst_k_quality_drift_sum     raw, dst, ulong npix, first, doff, uint count,  (npix, nout)
                                 nout, int reset, dtype
     hst_k_quality_drift_cross   spec, prev, out, ulong n, uint count,           (n, count)
                                 int previous
     hst_k_quality_drift_rows    map, val, at, int rows, cols, my, mx,           (2 my + 1, count)
                                 uint count
     hst_k_quality_drift_peak    map, val, at, patch, int rows, cols, my, mx,    count
                                 uint count
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

/* Drift estimation (quality.h's hst_drift_*): the kernels between two FFTs and after the
   second. Frames and cross-correlation maps are float32 (rows, cols), C order, count of them
   back to back (npix = rows cols floats apart); spectra are r2c halves, (rows, cols / 2 + 1)
   c64, n complex values apart. */
/* Frames as floats, and the block sums of the temporal averaging: raw holds frames of dtype 1
   u8, 2 u16, 3 i16 or 4 f32 (esrrf.h's codes), npix samples each; for output j < nout,
   dst[(doff + j) npix + i] = (reset ? 0 : itself) + the sum of frames first + j count + f,
   f = 0 .. count - 1, at sample i, each converted to float and added in that order (i < npix).
   Thread-safe. */
HST_API void hst_k_quality_drift_sum_host(const void *raw, float *dst, uint64_t npix, uint64_t first,
                                          uint64_t doff, uint32_t count, uint32_t nout, int reset, int dtype);
/* Cross-power spectra: out[k n + i] = spec[k n + i] conj(ref_k[i]) for k < count, i < n, with
   ref_k = prev for k = 0, and for every k unless previous is nonzero, else spec[(k - 1) n ..];
   out[k n] (the zero frequency) = 0, so each map is the correlation of mean-free images. Each
   product: re = fma(a.re, b.re, a.im b.im), im = fma(a.im, b.re, -(a.re b.im)) (device and
   twin alike). Thread-safe. */
HST_API void hst_k_quality_drift_cross_host(const float *spec, const float *prev, float *out, uint64_t n,
                                            uint32_t count, int previous);
/* The best of each window row: for map k < count and window row j < 2 my + 1 (shift dy = j -
   my, map row (dy + rows) mod rows), over dx = -mx .. mx (column (dx + cols) mod cols) in that
   order, the first largest value: val[k (2 my + 1) + j] and its dx in at[..]. my < rows, mx <
   cols. Thread-safe. */
HST_API void hst_k_quality_drift_rows_host(const float *map, float *val, int *at, int rows, int cols,
                                           int my, int mx, uint32_t count);
/* Each map's peak and its neighbourhood: the first largest of the rows' bests (j in order);
   patch[k (2 + p^2) ..] = dy, dx (as floats), then the p x p values around the peak (p = 2
   HST_K_QUALITY_DRIFT_R + 1, rows dy - R .. dy + R, each a row of columns dx - R .. dx + R,
   wrapped around the map). Thread-safe. */
HST_API void hst_k_quality_drift_peak_host(const float *map, const float *val, const int *at, float *patch,
                                           int rows, int cols, int my, int mx, uint32_t count);
#define HST_K_QUALITY_DRIFT_R 3   /* the patch's half side: Catmull-Rom's 4 taps at +-1 pixel */

/* The family's kernels, declared once (backend.h's "Declared kernels"): X(id, kernel,
   signature, host twin), in the source's order, each signature the kernel's parameters in
   order. quality.h launches them through hst_launch_kernel with the options above.
   hst_k_quality_gains exists only in a program built with "-DHST_FP64". On the host device a
   twin does the work-items of its launched range along the dimension that its typed twin above
   bounds (images [k0, k1) of dct_moments and gains: dimension 1's offset, ended at kend;
   partial_sums' rows of h, from the offset to the end of the range or n, whichever is first),
   and in every other dimension (and every other kernel) the whole extent its arguments give:
   launch those from offset 0 over at least that extent, as quality.h does. */
#define HST_QUALITY_KERNELS(X) \
    X(HST_KQUALITY_BLUR, hst_k_quality_blur, "global global global int int int int", hst__kt_quality_blur) \
    X(HST_KQUALITY_MOMENTS, hst_k_quality_moments, "global global global ulong uint", hst__kt_quality_moments) \
    X(HST_KQUALITY_ERROR_MAP, hst_k_quality_error_map, "global global global float float ulong", \
      hst__kt_quality_error_map) \
    X(HST_KQUALITY_FOURIER_PAD, hst_k_quality_fourier_pad, "global global int int", hst__kt_quality_fourier_pad) \
    X(HST_KQUALITY_CROP_RESCALE, hst_k_quality_crop_rescale, "global global int int int int int float float float", \
      hst__kt_quality_crop_rescale) \
    X(HST_KQUALITY_FRC_PARTIAL, hst_k_quality_frc_partial, "global global global global global int int int int", \
      hst__kt_quality_frc_partial) \
    X(HST_KQUALITY_FRC_RINGS, hst_k_quality_frc_rings, "global global int int", hst__kt_quality_frc_rings) \
    X(HST_KQUALITY_DECORR_COLS, hst_k_quality_decorr_cols, \
      "global global global int int float float int int int int int", hst__kt_quality_decorr_cols) \
    X(HST_KQUALITY_DECORR_HIGHPASS, hst_k_quality_decorr_highpass, "global global global int", \
      hst__kt_quality_decorr_highpass) \
    X(HST_KQUALITY_DCT_PACK, hst_k_quality_dct_pack, "global global int int", hst__kt_quality_dct_pack) \
    X(HST_KQUALITY_DCT_UNPACK, hst_k_quality_dct_unpack, "global global global global int int", \
      hst__kt_quality_dct_unpack) \
    X(HST_KQUALITY_DCT_MOMENTS, hst_k_quality_dct_moments, \
      "global global global global int int uint ulong ulong ulong ulong ulong", hst__kt_quality_dct_moments) \
    X(HST_KQUALITY_PARTIAL_SUMS, hst_k_quality_partial_sums, "global global uint uint ulong ulong", \
      hst__kt_quality_partial_sums) \
    X(HST_KQUALITY_DRIFT_SUM, hst_k_quality_drift_sum, "global global ulong ulong ulong uint uint int int", \
      hst__kt_quality_drift_sum) \
    X(HST_KQUALITY_DRIFT_CROSS, hst_k_quality_drift_cross, "global global global ulong uint int", \
      hst__kt_quality_drift_cross) \
    X(HST_KQUALITY_DRIFT_ROWS, hst_k_quality_drift_rows, "global global global int int int int uint", \
      hst__kt_quality_drift_rows) \
    X(HST_KQUALITY_DRIFT_PEAK, hst_k_quality_drift_peak, "global global global global int int int int uint", \
      hst__kt_quality_drift_peak) \
    X(HST_KQUALITY_GAINS, hst_k_quality_gains, "global global global global global int int ulong ulong ulong ulong", \
      hst__kt_quality_gains)
enum { HST_QUALITY_KERNELS(HST_KERNEL_ID) HST_KQUALITY_COUNT };

/* The quality family (static storage): its source and HST_QUALITY_KERNELS' declarations, for
   hst_launch_kernel and hst_family_kernel. Thread-safe. */
HST_API const hst_kernel_family *hst_kernels_quality_family(void);

/* <<quality kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_QUALITY_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_QUALITY_IMPLEMENTATION) && !defined(HST__KERNELS_QUALITY_IMPLEMENTATION_DONE)
#define HST__KERNELS_QUALITY_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>

HST__KERNELS_FP_BEGIN

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

static const char hst__quality_src_drift[] =
"/* drift estimation: block sums, cross-power spectra, the windowed peak and its patch */\n"
"#define HST_Q_DRIFT_R 3\n"
"/* sample k of raw frames of dtype 1 u8, 2 u16, 3 i16, 4 f32 */\n"
"float hst_q_drift_raw(__global const uchar *raw, size_t k, int dtype) {\n"
"    return dtype == 1 ? (float)raw[k] : dtype == 2 ? (float)((__global const ushort *)raw)[k]\n"
"         : dtype == 3 ? (float)((__global const short *)raw)[k] : ((__global const float *)raw)[k];\n"
"}\n"
"__kernel void hst_k_quality_drift_sum(__global const uchar *raw, __global float *dst, ulong npix,\n"
"                                      ulong first, ulong doff, uint count, uint nout, int reset,\n"
"                                      int dtype) {\n"
"    size_t i = get_global_id(0), j = get_global_id(1), base = first + j * count;\n"
"    __global float *o;\n"
"    uint f;\n"
"    float s;\n"
"    if (i >= npix || j >= nout) return;\n"
"    o = dst + (doff + j) * npix + i;\n"
"    s = reset ? 0.0f : *o;\n"
"    for (f = 0; f < count; f++) s = s + hst_q_drift_raw(raw, (base + f) * npix + i, dtype);\n"
"    *o = s;\n"
"}\n"
"__kernel void hst_k_quality_drift_cross(__global const float2 *spec, __global const float2 *prev,\n"
"                                        __global float2 *out, ulong n, uint count, int previous) {\n"
"    size_t i = get_global_id(0), k = get_global_id(1);\n"
"    float2 a, b;\n"
"    if (i >= n || k >= count) return;\n"
"    a = spec[k * n + i];\n"
"    b = previous && k > 0 ? spec[(k - 1) * n + i] : prev[i];\n"
"    out[k * n + i] = i == 0 ? (float2)(0.0f, 0.0f)\n"
"                            : (float2)(fma(a.x, b.x, a.y * b.y), fma(a.y, b.x, -(a.x * b.y)));\n"
"}\n"
"__kernel void hst_k_quality_drift_rows(__global const float *map, __global float *val, __global int *at,\n"
"                                       int rows, int cols, int my, int mx, uint count) {\n"
"    size_t j = get_global_id(0), k = get_global_id(1), w = (size_t)(2 * my + 1);\n"
"    __global const float *m;\n"
"    float best;\n"
"    int dx, bx = -mx;\n"
"    if (j >= w || k >= count) return;\n"
"    m = map + (k * (size_t)rows + (size_t)(((int)j - my + rows) % rows)) * (size_t)cols;\n"
"    best = m[(cols - mx) % cols];\n"
"    for (dx = -mx + 1; dx <= mx; dx++) {\n"
"        float v = m[(dx + cols) % cols];\n"
"        if (v > best) { best = v; bx = dx; }\n"
"    }\n"
"    val[k * w + j] = best;\n"
"    at[k * w + j] = bx;\n"
"}\n"
"__kernel void hst_k_quality_drift_peak(__global const float *map, __global const float *val,\n"
"                                       __global const int *at, __global float *patch, int rows,\n"
"                                       int cols, int my, int mx, uint count) {\n"
"    size_t k = get_global_id(0), w = (size_t)(2 * my + 1), j, bj = 0;\n"
"    const int p = 2 * HST_Q_DRIFT_R + 1;\n"
"    __global float *o;\n"
"    __global const float *m;\n"
"    int u, v, dy, dx;\n"
"    (void)mx;\n"
"    if (k >= count) return;\n"
"    for (j = 1; j < w; j++) if (val[k * w + j] > val[k * w + bj]) bj = j;\n"
"    dy = (int)bj - my;\n"
"    dx = at[k * w + bj];\n"
"    o = patch + k * (size_t)(2 + p * p);\n"
"    m = map + k * (size_t)rows * (size_t)cols;\n"
"    o[0] = (float)dy;\n"
"    o[1] = (float)dx;\n"
"    for (u = -HST_Q_DRIFT_R; u <= HST_Q_DRIFT_R; u++)\n"
"        for (v = -HST_Q_DRIFT_R; v <= HST_Q_DRIFT_R; v++)\n"
"            o[2 + (u + HST_Q_DRIFT_R) * p + v + HST_Q_DRIFT_R] =\n"
"                m[(size_t)(((dy + u) % rows + rows) % rows) * (size_t)cols + (size_t)(((dx + v) % cols + cols) % cols)];\n"
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
HST__PIECE_FITS(q_drift, hst__quality_src_drift);
/* The device source hard-codes the decorrelation's ring limit. */
typedef char hst__check_quality_abi[(HST_K_QUALITY_MAX_NR == 128) ? 1 : -1];
/* ... and the drift patch's half side. */
typedef char hst__check_quality_drift_r[(HST_K_QUALITY_DRIFT_R == 3) ? 1 : -1];

static const char *const hst__quality_src[] = { hst__quality_src_map, hst__quality_src_fourier,
                                                hst__quality_src_frc, hst__quality_src_decorr,
                                                hst__quality_src_dct, hst__quality_src_sums,
                                                hst__quality_src_drift, hst__quality_src_gains };

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

/* Sample k of raw frames of dtype (1 u8, 2 u16, 3 i16, 4 f32), as the device's hst_q_drift_raw. */
HST__KPRIVATE float hst__quality_drift_raw(const void *raw, size_t k, int dtype) {
    return dtype == 1 ? (float)((const uint8_t *)raw)[k] : dtype == 2 ? (float)((const uint16_t *)raw)[k]
         : dtype == 3 ? (float)((const int16_t *)raw)[k] : ((const float *)raw)[k];
}

HST__KDEF void hst_k_quality_drift_sum_host(const void *raw, float *dst, uint64_t npix, uint64_t first,
                                          uint64_t doff, uint32_t count, uint32_t nout, int reset, int dtype) {
    size_t i, j;
    uint32_t f;
    for (j = 0; j < nout; j++) {
        size_t base = (size_t)first + j * count;
        float *o = dst + (size_t)(doff + j) * npix;
        for (i = 0; i < npix; i++) {
            float s = reset ? 0.0f : o[i];
            for (f = 0; f < count; f++) s = s + hst__quality_drift_raw(raw, (base + f) * npix + i, dtype);
            o[i] = s;
        }
    }
}

HST__KDEF void hst_k_quality_drift_cross_host(const float *spec, const float *prev, float *out, uint64_t n,
                                            uint32_t count, int previous) {
    size_t i, k;
    for (k = 0; k < count; k++)
        for (i = 0; i < n; i++) {
            const float *a = spec + 2 * (k * n + i), *b = previous && k > 0 ? spec + 2 * ((k - 1) * n + i) : prev + 2 * i;
            float *o = out + 2 * (k * n + i);
            if (i == 0) { o[0] = 0.0f; o[1] = 0.0f; continue; }
            o[0] = fmaf(a[0], b[0], a[1] * b[1]);
            o[1] = fmaf(a[1], b[0], -(a[0] * b[1]));
        }
}

HST__KDEF void hst_k_quality_drift_rows_host(const float *map, float *val, int *at, int rows, int cols,
                                           int my, int mx, uint32_t count) {
    size_t j, k, w = (size_t)(2 * my + 1);
    int dx;
    for (k = 0; k < count; k++)
        for (j = 0; j < w; j++) {
            const float *m = map + (k * (size_t)rows + (size_t)(((int)j - my + rows) % rows)) * (size_t)cols;
            float best = m[(cols - mx) % cols];
            int bx = -mx;
            for (dx = -mx + 1; dx <= mx; dx++) {
                float v = m[(dx + cols) % cols];
                if (v > best) { best = v; bx = dx; }
            }
            val[k * w + j] = best;
            at[k * w + j] = bx;
        }
}

HST__KDEF void hst_k_quality_drift_peak_host(const float *map, const float *val, const int *at, float *patch,
                                           int rows, int cols, int my, int mx, uint32_t count) {
    const int p = 2 * HST_K_QUALITY_DRIFT_R + 1;
    size_t k, j, w = (size_t)(2 * my + 1);
    int u, v;
    (void)mx;
    for (k = 0; k < count; k++) {
        size_t bj = 0;
        float *o = patch + k * (size_t)(2 + p * p);
        const float *m = map + k * (size_t)rows * (size_t)cols;
        int dy, dx;
        for (j = 1; j < w; j++) if (val[k * w + j] > val[k * w + bj]) bj = j;
        dy = (int)bj - my;
        dx = at[k * w + bj];
        o[0] = (float)dy;
        o[1] = (float)dx;
        for (u = -HST_K_QUALITY_DRIFT_R; u <= HST_K_QUALITY_DRIFT_R; u++)
            for (v = -HST_K_QUALITY_DRIFT_R; v <= HST_K_QUALITY_DRIFT_R; v++)
                o[2 + (u + HST_K_QUALITY_DRIFT_R) * p + v + HST_K_QUALITY_DRIFT_R] =
                    m[(size_t)(((dy + u) % rows + rows) % rows) * (size_t)cols + (size_t)(((dx + v) % cols + cols) % cols)];
    }
}

/* The twins as declared kernels (HST_QUALITY_KERNELS): each unpacks its bound arguments (a
   buffer's memory, a scalar's value) and calls its typed twin over the range its declaration
   states. */
#define HST__KQ_F(i) ((float *)hst_karg_ptr(&a[i]))

HST__KPRIVATE void hst__kt_quality_blur(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_blur_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), a[3].v.i32, a[4].v.i32, a[5].v.i32,
                            a[6].v.i32);
}

HST__KPRIVATE void hst__kt_quality_moments(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_moments_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), (size_t)a[3].v.u64, a[4].v.u32);
}

HST__KPRIVATE void hst__kt_quality_error_map(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_error_map_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), a[3].v.f32, a[4].v.f32,
                                 (size_t)a[5].v.u64);
}

HST__KPRIVATE void hst__kt_quality_fourier_pad(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_fourier_pad_host(HST__KQ_F(0), HST__KQ_F(1), a[2].v.i32, a[3].v.i32);
}

HST__KPRIVATE void hst__kt_quality_crop_rescale(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_crop_rescale_host(HST__KQ_F(0), HST__KQ_F(1), a[2].v.i32, a[3].v.i32, a[4].v.i32, a[5].v.i32,
                                    a[6].v.i32, a[7].v.f32, a[8].v.f32, a[9].v.f32);
}

HST__KPRIVATE void hst__kt_quality_frc_partial(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_frc_partial_host(HST__KQ_F(0), HST__KQ_F(1), (const int *)hst_karg_ptr(&a[2]), HST__KQ_F(3),
                                   HST__KQ_F(4), a[5].v.i32, a[6].v.i32, a[7].v.i32, a[8].v.i32);
}

HST__KPRIVATE void hst__kt_quality_frc_rings(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_frc_rings_host(HST__KQ_F(0), HST__KQ_F(1), a[2].v.i32, a[3].v.i32);
}

HST__KPRIVATE void hst__kt_quality_decorr_cols(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_decorr_cols_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), a[3].v.i32, a[4].v.i32, a[5].v.f32,
                                   a[6].v.f32, a[7].v.i32, a[8].v.i32, a[9].v.i32, a[10].v.i32, a[11].v.i32);
}

HST__KPRIVATE void hst__kt_quality_decorr_highpass(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_decorr_highpass_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), a[3].v.i32);
}

HST__KPRIVATE void hst__kt_quality_dct_pack(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_dct_pack_host(HST__KQ_F(0), HST__KQ_F(1), a[2].v.i32, a[3].v.i32);
}

HST__KPRIVATE void hst__kt_quality_dct_unpack(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_dct_unpack_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), HST__KQ_F(3), a[4].v.i32, a[5].v.i32);
}

/* The images [k0, k1) that a range's dimension 1 covers, ended at kend (0 images: k0 = k1). */
HST__KPRIVATE void hst__kq_images(const hst_range *range, uint64_t kend, size_t *k0, size_t *k1) {
    uint64_t end = (uint64_t)range->offset[1] + range->global[1];
    *k0 = range->offset[1];
    *k1 = (size_t)(end < kend ? end : kend);
    if (*k1 < *k0) *k1 = *k0;
}

HST__KPRIVATE void hst__kt_quality_dct_moments(const hst_karg *a, const hst_range *range) {
    size_t k0, k1;
    hst__kq_images(range, a[11].v.u64, &k0, &k1);
    hst_k_quality_dct_moments_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), HST__KQ_F(3), a[4].v.i32,
                                   a[5].v.i32, a[6].v.u32, a[7].v.u64, a[8].v.u64, a[9].v.u64, a[10].v.u64,
                                   k0, k1);
}

/* Rows [offset / h, ceil(end / h)), end the range's or n, whichever is first. */
HST__KPRIVATE void hst__kt_quality_partial_sums(const hst_karg *a, const hst_range *range) {
    uint64_t h = a[3].v.u32, n = a[4].v.u64, end = (uint64_t)range->offset[0] + range->global[0];
    if (end > n) end = n;
    if (h == 0 || end <= range->offset[0]) return;
    hst_k_quality_partial_sums_host(HST__KQ_F(0), HST__KQ_F(1), a[2].v.u32, a[3].v.u32, a[5].v.u64,
                                    (size_t)(range->offset[0] / h), (size_t)((end + h - 1) / h));
}

HST__KPRIVATE void hst__kt_quality_gains(const hst_karg *a, const hst_range *range) {
    size_t k0, k1;
    hst__kq_images(range, a[10].v.u64, &k0, &k1);
    hst_k_quality_gains_host(HST__KQ_F(0), (const int *)hst_karg_ptr(&a[1]), (const double *)hst_karg_ptr(&a[2]),
                             (const double *)hst_karg_ptr(&a[3]), HST__KQ_F(4), a[5].v.i32, a[6].v.i32,
                             a[7].v.u64, a[8].v.u64, a[9].v.u64, k0, k1);
}

HST__KPRIVATE void hst__kt_quality_drift_sum(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_drift_sum_host(hst_karg_ptr(&a[0]), HST__KQ_F(1), a[2].v.u64, a[3].v.u64, a[4].v.u64, a[5].v.u32,
                                 a[6].v.u32, a[7].v.i32, a[8].v.i32);
}

HST__KPRIVATE void hst__kt_quality_drift_cross(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_drift_cross_host(HST__KQ_F(0), HST__KQ_F(1), HST__KQ_F(2), a[3].v.u64, a[4].v.u32, a[5].v.i32);
}

HST__KPRIVATE void hst__kt_quality_drift_rows(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_drift_rows_host(HST__KQ_F(0), HST__KQ_F(1), (int *)hst_karg_ptr(&a[2]), a[3].v.i32, a[4].v.i32,
                                  a[5].v.i32, a[6].v.i32, a[7].v.u32);
}

HST__KPRIVATE void hst__kt_quality_drift_peak(const hst_karg *a, const hst_range *range) {
    (void)range;
    hst_k_quality_drift_peak_host(HST__KQ_F(0), HST__KQ_F(1), (const int *)hst_karg_ptr(&a[2]), HST__KQ_F(3),
                                  a[4].v.i32, a[5].v.i32, a[6].v.i32, a[7].v.i32, a[8].v.u32);
}

HST__KDEF const hst_kernel_family *hst_kernels_quality_family(void) {
    static const hst_kernel_decl decls[HST_KQUALITY_COUNT] = { HST_QUALITY_KERNELS(HST_KERNEL_DECL) };
    static const hst_kernel_family family = { "quality", hst_kernels_quality_source, decls, HST_KQUALITY_COUNT };
    return &family;
}

/* <<quality kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_QUALITY_IMPLEMENTATION */

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
