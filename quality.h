/* quality.h — halostream's image quality metrics for super-resolution microscopy, as NanoPyx 2.1
   computes them: SQUIRREL's error map (RSE, RSP and the RSE map), Fourier ring correlation with
   its FIRE resolution, and decorrelation analysis; NanoJ-eSRRF's estimate of the frames worth
   one time point; and NanoPyx's drift estimation of a stack
   (per-frame translation by FFT cross-correlation, streamed: stacks larger than memory). On any device of backend.h: the host device
   runs the host C twins of kernels_quality.h's kernels, OpenCL devices run the kernels (each
   launch through backend.h's hst_launch_kernel; the program is built on a backend's first
   call and kept with it). Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file (it compiles the bodies of every
   halostream header included there: one copy of the library per program); define HST_FFT there
   too (array.h's FFTs: FRC, decorrelation, drift estimation and the error map of a magnified
   image need them).
   Other files include it without the macros.

   Usage (a 1000 x 1000 widefield reference, its 5000 x 5000 eSRRF image, two half-stack images):

       // given: const float *ref, *sr, *odd, *even;   // the images, in host memory
       // given: hst_buffer *buf;   // and 9 SR images of 5000 x 5000 floats on be's device
       hst_backend *be; hst_backend_desc bd = {0};
       hst_error_map_result em; hst_frc_result fr; hst_decorr_result dr;
       if (hst_backend_create(&bd, &be) != HST_SUCCESS) return 1;   // $HST_DEVICE, else the best
       float *map = malloc(5000 * 5000 * 4);             // the RSE map: the SR image's shape
       hst_result r = hst_error_map(be, ref, 1000, 1000, sr, 5000, 5000, NULL, map, &em);  // em.rse, em.rsp
       hst_frc_desc fd = {0}; fd.pixel_size = 20.0;       // nm per SR pixel
       if (r == HST_SUCCESS) r = hst_frc(be, odd, even, 5000, 5000, &fd, NULL, &fr);  // fr.resolution (nm)
       if (r == HST_SUCCESS) r = hst_decorr(be, sr, 5000, 5000, NULL, &dr);  // NULL: NanoPyx's defaults
       // several SR images of the same reference in one call, here 9 already on the device,
       // back to back in an hst_buffer `buf` (host pointers work too: hst_image_batch.host)
       hst_image_batch batch = {0}; hst_error_map_result ems[9];
       batch.buf = buf; batch.stride_bytes = (size_t)5000 * 5000 * 4;
       if (r == HST_SUCCESS) r = hst_error_map_batch(be, ref, 1000, 1000, &batch, 9, 5000, 5000, NULL, NULL, ems);
       // the drift of a u16 stack read from disk 100 frames at a time, every frame against the first
       // given: const uint16_t *block; size_t frames; double *drift;   // drift: frames x 2 doubles
       hst_drift *ds = NULL;
       if (r == HST_SUCCESS) r = hst_drift_open(be, 1000, 1000, NULL, &ds);   // NULL: the defaults
       // for each block read: r = hst_drift_push(ds, block, HST_DRIFT_U16, 100);
       if (r == HST_SUCCESS) r = hst_drift_finish(ds, drift, frames);   // (dy, dx) per frame, pixels
       hst_drift_close(ds);
       if (r != HST_SUCCESS) puts(hst_result_string(r));   // the backend's log says why
       if (hst_backend_destroy(be) != HST_SUCCESS) return 1;
       // cc -std=c99 app.c -lOpenCL -lfftw3f -lfftw3 -lm   (with HST_FFT: vkFFT.h on the include path)

   Shapes and units. Images are 2-D float32, C order (rows, cols), host memory (the batches:
   or a device buffer, hst_image_batch), read only.
   Pixel sizes are in the caller's unit, and resolutions come back in that unit (NanoPyx's
   `units` argument only labels its plots: keep it beside the number). Frequencies are in
   cycles per unit (FRC) or normalised to the Nyquist frequency (decorrelation, 0 .. 1).

   What each computes (NanoPyx 2.1.5's sources, which are the specification; the deliberate
   differences are listed under each function):
     hst_error_map  SQUIRREL (Culley et al., "Quantitative mapping and minimization of super-
                    resolution optical imaging artifacts", Nat. Methods 2018), NanoPyx's
                    core/transform/error_map.pyx: the reference is Fourier-interpolated to the
                    SR image's size, the SR image is fitted to it as alpha * G_sigma(SR) + beta
                    (alpha, beta by linear least squares in closed form; sigma by Brent's method
                    with scipy's bracket, as NanoPyx, each sigma evaluated in the DCT-II domain:
                    Makhoul, IEEE Trans. ASSP 28(1), 1980, for the transform), RSE = root mean
                    square error, RSP = Pearson correlation, the map = |fitted - reference| per
                    pixel.
     hst_frc        NanoJ's / NanoPyx's core/analysis/frc.pyx: even-square crop, Tukey(0.25)
                    taper, ring sums sampled at 1 / r radians with bilinear interpolation,
                    Savitzky-Golay smoothing (window 0.0707 of the curve, order 3), the first
                    crossing of the fixed 1/7 threshold (FIRE; Nieuwenhuizen et al., Nat.
                    Methods 2013).
     hst_decorr     Descloux, Grussmayer & Radenovic, "Parameter-free image resolution
                    estimation based on decorrelation analysis", Nat. Methods 2019, as NanoPyx's
                    core/analysis/decorr.pyx (its ImageJ plugin's port): edge apodisation, power-
                    of-two padding, num_highpass high-pass filtered images in two refinement
                    rounds, the decorrelation curve's local maxima; resolution = 2 pixel_size / kc_max. The
                    wide high-pass filters multiply the image's spectrum (Descloux et al.'s
                    Fourier-domain filtering): O(N^2 log N) per image.
     hst_drift_*    NanoPyx's drift alignment (methods/drift_alignment, core/analysis/
                    _le_drift_calculator and ccm): each frame's (or block mean's) circular
                    cross-correlation with a reference (the first image, the mean of the first
                    N frames, or the previous image), its peak within max_shift, a sub-pixel fit,
                    the estimates interpolated to every frame. Deliberate differences: the
                    correlation of mean-free images (zero frequency dropped) divided by the
                    overlap of the two frames at each shift (NanoPyx rescales the map to its
                    Pearson range, which moves no peak, and keeps the overlap's pull towards
                    shift 0: ~0.1 px at 128 pixels, see bench/drift_nanopyx_compare.py); any
                    frame shape (NanoPyx crops to an even square); the Catmull-Rom maximum by a
                    refined grid (NanoPyx: Nelder-Mead); averaging interpolated linearly between
                    the blocks' centres (NanoPyx: a cubic spline through blocks placed at frames
                    1 .. F); the reported sign is the drift's, NanoPyx's the correction's.
     hst_estimate_frames  NanoJ-eSRRF's "Estimating maximum frame number" (its documentation;
                    NanoPyx has none): SSIM of frames by their separation within blocks, the
                    cut-off where the mean falls by `sigmas` deviations of lag 1's. Runs on
                    the host's processor on every backend (no kernels).

   Options (macros)                     matters in
     HST_IMPLEMENTATION                 the implementation TU: compile every header's body
     HST_QUALITY_IMPLEMENTATION         the implementation TU: compile quality.h's body only
     HST_FFT                            the implementation TU: array.h's FFTs (without them
                                        FRC, decorrelation and magnified error maps return
                                        HST_ERROR_NOT_BUILT_IN)
     HST_NO_OPENCL, HST_STATIC, HST_API as in backend.h

   What it does NOT do: no plots (NanoPyx's plot_* return images; the curves are returned here
   as numbers); no 3-D metrics; no registration of the two FRC images; no NanoJ-SQUIRREL
   extras (per-frame error maps, RSF output, border crops); a backend serves one call at a
   time (per backend, in backend.h's words). The parameter sweep (QnR) is esrrf.h's.

   Drift numerics: the kernels (block sums, cross-power spectra, the peak search) give the same
   bits on every device; the FFTs (FFTW on the host device, VkFFT on OpenCL devices) differ by
   rounding, so the drifts of the host device and PoCL agree within 1e-4 px (5e-6 px seen:
   tests/test_drift.c). Accuracy on a blob stack of 192 x 208 with a known sub-pixel drift of
   several pixels: 0.03 - 0.04 px RMS against the first frame or a mean (any peak fit),
   averaging included; against the previous frame the steps' errors add up (0.2 px RMS after
   39 steps; NanoPyx's ref_option 1 likewise).

   Numerics. Host and OpenCL devices run the same kernels in the same summation order; they
   differ only where OpenCL's float cos and sqrt differ from the host's correctly rounded ones
   (FRC sample positions, decorrelation ring radii) and where FFTW and VkFFT round differently
   (the FFTs, the error map's DCT among them): tests/test_quality.c states the agreement
   (relative 1e-4 on every metric; 2e-3 on the error map's fitted alpha, beta and sigma and on
   its map, as the objective is flat at its minimum: rounding moves the sigma the search stops
   at by a few 1e-4 while RSE and RSP stay within 1e-6). Sums over whole images run in float in a fixed
   order (32768 or 262144 strided partial sums, or one per column, or backend.h's reduction
   tree), the partial sums then in double on the host or by backend.h's reduction (the error
   map's DCT-domain objective: its 262144 partial sums in 1024 compensated float sums first).

   Large and small intensities. The scores do not depend on the images' intensity scale (RSE,
   beta and the map are in the reference's units, alpha in the reference's per the SR image's;
   RSP, sigma, FRC and decorrelation have none), but float sums of squares do: past about 1e19
   per pixel they overflow, below about 1e-19 they lose their digits to underflow. An image
   whose sums leave float's range is scaled by the power of two that brings its largest |pixel|
   into [0.5, 1) and computed again: exact, so its scores are the scaled image's bit for bit,
   and RSE, beta, alpha and the map are scaled back exactly (tests/test_quality.c: images times
   2^60 or 2^-60 give the unscaled images' scores bit for bit, times 1e19 or 1e-19 within the
   devices' agreement; single and batch calls, host and device images, every device). Which
   sums: the error map's at its first evaluation (each image's variance in [2^-80, 2^80]; the
   reference's once), each FRC pair's ring sums (finite, its strongest ring at least 2^-60),
   the decorrelation image's largest pixel (read on the host anyway). So an image within range
   costs nothing and keeps its bits; one out of range costs its largest |pixel| (two reductions
   on a device) and its work again, and is logged (HST_LOG_INFO). The thresholds and their
   reasons: HST__Q_SCALE_EXP in the implementation.

   Cancellation: hst_backend_interrupt(be) (async-signal-safe: a SIGINT handler may call it)
   makes a running metric return HST_ERROR_CANCELLED at its next check, between FFTs, curves,
   sigma-search rounds and images (each well under a second of work on a CPU at 2048 x 2048),
   and every later call on be at once, until hst_backend_interrupt_clear(be). No result is
   written then (out's contents are unspecified).

   Rejected arguments log backend.h's finest item (HST_LOGITEM_LIST): NULL_ARGUMENT (a NULL
   pointer, a batch with neither host nor buf), ZERO_SIZE (a zero extent or count),
   OUT_OF_RANGE (a value outside its range: fixed_sigma, pixel_size, rmin, rmax, num_radii,
   num_highpass, the ROI, sides below a metric's minimum, a one-column error-map image, a stride below an image), MISALIGNED (batch offsets
   not multiples of 4), SHAPE_MISMATCH (shapes; a buffer of another backend), BAD_ARGUMENT
   (host and buf both given; a map asked with scores_only).

   Batches (hst_error_map_batch, hst_frc_batch): several images against one reference, or
   several FRC pairs, in one call, from host memory or from a device buffer (hst_image_batch),
   with the shared work done once and the error maps' sigma searches in lockstep (one read-back
   per round for the whole batch). Each image's result is the single function's, bit for bit:
   the single functions are batches of one. The eSRRF parameter sweep (esrrf.h) scores its
   pairs' images this way, where it makes them, on the device.

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (the full text at the
   end of this file). */

#ifndef HST_QUALITY_H
#define HST_QUALITY_H

#include "array.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_QUALITY_IMPLEMENTATION)
#  define HST_QUALITY_IMPLEMENTATION
#endif
/* The quality kernel family: compiled where quality.h's implementation is. */
#if defined(HST_QUALITY_IMPLEMENTATION) && !defined(HST_KERNELS_QUALITY_IMPLEMENTATION)
#  define HST_KERNELS_QUALITY_IMPLEMENTATION
#endif
#include "kernels_quality.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   The error map. fixed_sigma: the blur's sigma in REFERENCE pixels (NanoPyx's fixedSigma; the
   blur applied to the SR image is fixed_sigma * magnification SR pixels); 0 (the default)
   optimises sigma. scores_only: nonzero where the caller needs the scores and no map (maps
   and map must be NULL): the sigma search stops at a relative tolerance of 1e-4 instead of
   scipy's 1.48e-8 (the objective is flat at its minimum: RSE and RSP move by ~1e-8; about half
   the evaluations), and where it ran in the DCT domain (HST_FFT), RSE, RSP, alpha and beta come
   from the DCT-domain sums at the fitted sigma instead of a blur in space and two more
   read-backs per image (beta without the blurred image's residual mean, ~1e-7 of the range,
   as the images are centred). They agree with the full fit's to float rounding (relative 1e-5
   on RSE and RSP, 1e-3 on sigma; tests/test_quality.c). fixed_sigma > 0 ignores it. The eSRRF
   parameter sweep ranks its images so. */
typedef struct hst_error_map_desc {
    double fixed_sigma;
    int scores_only;
} hst_error_map_desc;

typedef struct hst_error_map_result {
    double rse;            /* root mean square of fitted - reference, in reference intensity */
    double rsp;            /* Pearson correlation of fitted and reference, -1 .. 1 */
    double alpha, beta;    /* fitted = alpha * G_sigma(SR) + beta */
    double sigma;          /* in SR pixels (NanoPyx's get_sigma()); <= 0: no blur */
    unsigned magnification;
    unsigned evaluations;  /* objective evaluations by the optimiser (0 with fixed_sigma) */
} hst_error_map_result;

/* SQUIRREL's error map of an SR image against its diffraction-limited reference.
   ref: (ref_rows, ref_cols) float32, C order; sr: (sr_rows, sr_cols) with sr_rows = M ref_rows
   and sr_cols = M ref_cols for one integer magnification M >= 1; map: NULL or (sr_rows,
   sr_cols) floats receiving |alpha G_sigma(SR) + beta - ref_M| where ref_M is ref Fourier-
   interpolated by M (NanoPyx's fht_space_interpolation: mirror padding to a power-of-two
   square, zero-padded spectrum, range rescaled to ref's min and max). desc NULL: defaults.
   The fit: for a sigma, alpha and beta are the least-squares line of ref_M on G_sigma(SR)
   (closed form: alpha = cov / var, beta = mean_ref - alpha mean_b, as scipy's linregress), and
   the objective is the RMS residual, sqrt(var_ref - cov^2 / var_b); sigma minimises it by
   scipy.optimize.brent (bracket from (0, 4 / 2.35482 M), Brent's parabolic steps, tol 1.48e-8,
   at most 1000 iterations) as NanoPyx. G_sigma is scipy.ndimage.gaussian_filter (truncate 4,
   'reflect' edges; sigma <= 1e-15 is no blur). With HST_FFT the search evaluates the same
   objective in the DCT-II domain ('reflect' edges make the blur diagonal there: var_b and cov
   become sums over the coefficients of the two images, transformed once), not by blurring the
   SR image per sigma; the final fit and the map blur once, in space.
   Deliberate differences from NanoPyx 2.1.5: the SR image must be an exact multiple of ref
   (NanoPyx truncates the ratio and then fails on the shapes); the fitted image is
   alpha G(SR) + beta rather than G(alpha SR + beta) (equal by linearity: the weights sum to
   1); sums run in float on centred data (NanoPyx: float64 regression, float32 means);
   when no bracket is found (NanoPyx raises scipy's BracketError) the best sigma evaluated is
   kept, with a warning. Kept as NanoPyx has it: when the objective at sigma 0 is below the one
   at 4 / 2.35482 M, scipy's bracket walks to negative sigmas, which blur nothing, and the
   search ends at "no blur" (a negative sigma) even where a small positive sigma fits better.
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL be, ref, sr or out; a zero extent; ref_cols or
   sr_cols 1: the DCT's and the interpolation's FFTs run along rows and need 2 columns (give a
   one-column image transposed); fixed_sigma negative or not finite), HST_ERROR_SHAPE (sr not M
   times ref), HST_ERROR_NON_FINITE (NaN or Inf in ref or sr: the log gives the argument and
   index), HST_ERROR_OVERFLOW (sizes; a value of the map beyond float's range, |fitted - ref|
   past 3.4e38), HST_ERROR_NOT_BUILT_IN (M > 1 without HST_FFT), HST_ERROR_CANCELLED
   (hst_backend_interrupt: the opening comment's "Cancellation"), memory and OpenCL errors. Images of any finite intensity: the opening
   comment's "Large and small intensities". Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_error_map(hst_backend *be, const float *ref, size_t ref_rows,
                                 size_t ref_cols, const float *sr, size_t sr_rows,
                                 size_t sr_cols, const hst_error_map_desc *desc, float *map,
                                 hst_error_map_result *out);

/* ---------------------------------------------------------------------------------------------
   Batches: several images scored in one call, either in host memory or already on the device
   (e.g. made there by a kernel: no read-back and upload). Exactly one of host and buf is set.
   host: count pointers, each one (rows, cols) float32 image, C order. buf: a buffer of the
   backend holding image k at bytes [offset_bytes + k stride_bytes, .. + rows cols 4), float32,
   C order (offset_bytes and stride_bytes multiples of 4, stride_bytes >= rows cols 4 when
   count > 1; any alignment: the images are copied on the device into quality.h's own arrays,
   never written). */
typedef struct hst_image_batch {
    const float *const *host;
    hst_buffer *buf;
    size_t offset_bytes, stride_bytes;
} hst_image_batch;

/* SQUIRREL's error maps of count SR images against ONE reference: for each image k, what
   hst_error_map(be, ref, .., image k, .., desc, maps[k], &out[k]) returns, bit for bit (that
   function is this one with count 1; each image's numbers depend on that image alone, not on
   the batch), where the work common to the images is done once: the reference's Fourier
   interpolation, its mean, variance and DCT; each image is centred and transformed once; the
   sigma searches (one scipy.optimize.brent state per image) run in lockstep: each round, every
   unfinished image's objective is evaluated in one pass per image and their sums come back in
   one read-back (~30 rounds), instead of one read-back per image and evaluation.
   ref: (ref_rows, ref_cols) float32 in host memory; sr: the images, count >= 1, each
   (sr_rows, sr_cols) = M (ref_rows, ref_cols); maps: NULL, or count pointers, each NULL or
   (sr_rows, sr_cols) floats receiving image k's map; out: count results. Device memory: about
   2 count + 6 images of (sr_rows, sr_cols) floats, and 2 MiB per image.
   Errors: hst_error_map's (the log names the image: sr[k]), and HST_ERROR_INVALID_ARGUMENT
   (sr NULL, count 0, neither or both of host and buf, host[k] NULL, buf of another backend,
   offsets not multiples of 4, a stride below an image), HST_ERROR_SHAPE (the images end
   beyond buf), HST_ERROR_OVERFLOW (offsets or counts). On an error out's contents are
   unspecified. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_error_map_batch(hst_backend *be, const float *ref, size_t ref_rows,
                                       size_t ref_cols, const hst_image_batch *sr, size_t count,
                                       size_t sr_rows, size_t sr_cols,
                                       const hst_error_map_desc *desc, float *const *maps,
                                       hst_error_map_result *out);

/* ---------------------------------------------------------------------------------------------
   Pixel sizes (FRC and decorrelation): 0 (the default: 1), or in [HST_QUALITY_MIN_PIXEL_SIZE,
   HST_QUALITY_MAX_PIXEL_SIZE]. The curves' frequencies and the resolutions are float, as
   NanoPyx's: 1 / (2 pixel_size), a frequency step of that over 2^30 samples and a resolution of
   2^31 pixel_size all stay normal floats inside this range, for any image size the metrics
   take (so no pixel size gives a resolution of 0, inf or NaN by rounding; a unit from
   femtometres to kilometres for microscopy pixels lies far inside it). */
#define HST_QUALITY_MIN_PIXEL_SIZE 1e-20
#define HST_QUALITY_MAX_PIXEL_SIZE 1e20

/* ---------------------------------------------------------------------------------------------
   FRC. pixel_size: the images' pixel size in the caller's unit (0: 1, NanoPyx's default; see
   HST_QUALITY_MIN_PIXEL_SIZE for its range). */
typedef struct hst_frc_desc {
    double pixel_size;
} hst_frc_desc;

typedef struct hst_frc_result {
    double resolution;     /* FIRE: 1 / the first crossing of 1/7, in pixel_size units;
                              0 when the curve never crosses (NanoPyx's fire_number 0);
                              NaN when the FRC is undefined (an image without power in a
                              ring: an all-zero image) */
    size_t curve_length;   /* points of the curve: the even square's side / 2 - 1 */
} hst_frc_result;

/* The number of FRC curve points for images of rows x cols (the side of the centred even
   square NanoPyx crops to, halved, minus 1); 0 when it is too small (side < 10). Thread-safe. */
HST_API size_t hst_frc_curve_length(size_t rows, size_t cols);

/* Fourier ring correlation of two images of one scene (the images of odd and even frames),
   and its FIRE resolution. a, b: (rows, cols) float32, C order, rows and cols >= 10.
   curve: NULL or 2 * hst_frc_curve_length(rows, cols) floats receiving (spatial frequency in
   1 / pixel_size units, smoothed FRC) pairs, NanoPyx's frc_curve.
   NanoPyx's steps: the centred even square of side S = min(rows, cols) rounded down to even;
   a Tukey(alpha 0.25) taper along each axis; |FFT|-products at S/2 - 1 rings r, each sampled
   at angles 0, 1/r, 2/r, .. < 2 pi (float32 as numpy.arange) with bilinear interpolation of the
   products; FRC(r) = sum Re(F1 F2*) / sqrt(sum |F1|^2 sum |F2|^2), FRC(0) = 1; frequencies
   linspace(0, 1 / (2 pixel_size), S/2 - 1); scipy's savgol_filter (window int(0.0707 (S/2 -
   1)), at least 4, order 3, mode 'interp'); the first crossing of 1/7, linearly interpolated.
   Deliberate differences: each ring's samples are summed in chunks (NanoPyx: one float sum per
   ring); the FFT is float32 (NanoPyx: float64 then rounded to complex64); the product of the
   two ring power sums is taken in double (NanoPyx's float product overflows to inf, and its
   FRC to 0, once the sums pass 1.8e19, e.g. large images of large counts); a pair whose float
   ring sums overflow or underflow is scaled (the opening comment's "Large and small
   intensities").
   Undefined FRC: where either image has no power in a ring (an all-zero image, whose FRC is
   0 / 0), the curve is NaN there (the smoothing spreads it over its window) and the resolution
   is NaN, with a warning (HST_LOG_WARN) naming the image: NaN, not 0, which means "never
   crosses 1/7". The frequencies are computed in cycles per pixel and divided by pixel_size
   (the crossing's float products stay normal at any pixel size of the range).
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL be, a, b or out; rows or cols < 10; pixel_size
   NaN or outside 0 and [HST_QUALITY_MIN_PIXEL_SIZE, HST_QUALITY_MAX_PIXEL_SIZE]),
   HST_ERROR_NON_FINITE, HST_ERROR_OVERFLOW, HST_ERROR_NOT_BUILT_IN (without HST_FFT),
   HST_ERROR_CANCELLED (hst_backend_interrupt), memory and OpenCL errors. Thread safety: per
   backend. */
HST_API HST_NODISCARD hst_result hst_frc(hst_backend *be, const float *a, const float *b, size_t rows,
                           size_t cols, const hst_frc_desc *desc, float *curve,
                           hst_frc_result *out);

/* FRC of count image pairs (a's image k against b's image k): for each k, what
   hst_frc(be, a_k, b_k, rows, cols, desc, curves[k], &out[k]) returns, bit for bit (hst_frc is
   this function with count 1), with the taper, the ring tables and the work arrays made once
   and every pair's ring sums read back in one copy. a, b: count images of (rows, cols) each
   (hst_image_batch; a device image that is not square is cropped on the device, and only its
   even square is checked for NaN and Inf). curves: NULL, or count pointers, each NULL or
   2 hst_frc_curve_length(rows, cols) floats. out: count results.
   Errors: hst_frc's (the log names the image: a[k], b[k]), and the batch errors of
   hst_error_map_batch. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_frc_batch(hst_backend *be, const hst_image_batch *a,
                                 const hst_image_batch *b, size_t count, size_t rows,
                                 size_t cols, const hst_frc_desc *desc, float *const *curves,
                                 hst_frc_result *out);

/* ---------------------------------------------------------------------------------------------
   Decorrelation analysis. Zero fields take NanoPyx's defaults: rmin 0 and rmax 1 (normalised
   frequencies; rmax 0 means 1), num_radii 50 (the curve's samples: NanoPyx's n_r, 2 ..
   HST_DECORR_MAX_NR), num_highpass 10 (high-pass filtered images per round: NanoPyx's n_g,
   2 .. HST_DECORR_MAX_NG), pixel_size 1 (see HST_QUALITY_MIN_PIXEL_SIZE for its range); roi
   {x0, y0, x1, y1} in pixels (x1, y1 exclusive): all equal means the whole image. */
#define HST_DECORR_MAX_NR HST_K_QUALITY_MAX_NR   /* 128: the kernel's private array per column */
/* num_highpass at most: the curves' maxima of a round live in arrays of this size. NanoPyx
   documents 5 .. 40; each filter costs one pass over the padded spectrum, so 2 x 128 curves are already
   6x NanoPyx's largest request. */
#define HST_DECORR_MAX_NG 128
typedef struct hst_decorr_desc {
    double rmin, rmax;
    unsigned num_radii, num_highpass;
    double pixel_size;
    size_t roi[4];
} hst_decorr_desc;

typedef struct hst_decorr_result {
    double resolution;     /* 2 pixel_size / kc_max, in pixel_size units (inf if kc_max is 0) */
    double kc_max, a_max;  /* the highest cut-off frequency among the refined curves' maxima */
    double kc_gm, a_gm;    /* the maximum with the best kc * A (NanoPyx's kc_gm, agm) */
    double kc0, a0;        /* the unfiltered image's curve maximum */
} hst_decorr_result;

/* Decorrelation analysis of one image (Descloux et al. 2019, NanoPyx's DecorrAnalysis).
   img: (rows, cols) float32, C order, rows, cols >= 2. desc NULL: defaults.
   NanoPyx's steps: apodisation of a 20-pixel border towards the mean beyond the inscribed
   circle; padding to the next power-of-two square N (filled with the first pixel, the image at
   rows 0.., centred along x, as NanoPyx's loop places it); the normalised spectrum's
   cross-correlation d(r) with the spectrum, cumulated over rings mapped to num_radii samples of
   [rmin, rmax] (one half-plane); its last local maximum (NanoPyx's _get_d_corr_max, step 0.001);
   then 2 rounds of num_highpass images (image - G_sigma(image), sigma geometric in
   [0.14, 2 / kc0], refined to the best pair's neighbours in round 2 and rmin, rmax to their kc -0.05, +0.3).
   Deliberate differences: the ROI is applied (NanoPyx 2.1.5 crops and then analyses the whole
   image anyway); sums per column in float then in double (NanoPyx: float, in parallel);
   float32 FFT. The high-pass images of sigma >= 0.375 (filters of more than 3 taps) are made
   in the Fourier domain, as Descloux et al. filter: the padded image's spectrum (one FFT)
   times 1 - g(ky) g(kx), g the DFT of scipy's taps for sigma (the blur as a periodic filter),
   so a filter costs one pass over the spectrum whatever its width (NanoPyx blurs in space:
   O(N^2 sigma), sigma up to N / 2). That differs from scipy's blur only at the padded square's
   edges ('reflect' there; the apodisation brings the image to its mean, so a strip of the
   filter's width differs, mostly at the lowest frequencies): on 52 test images the
   amplitudes moved by at most 4e-3 and one maximum moved, by one of its num_radii samples (a
   flat-topped curve of amplitude 0.19: that image's resolution by 1.8%); tests/test_quality.c. Narrower filters (the first of each analysis,
   sigma 0.14, among them) are made in space, as NanoPyx makes them: their float high-pass is
   mostly rounding, which the Fourier product would not reproduce. Cost: O(N^2 log N) for the
   FFTs (one, plus one per narrow filter) and O(N^2) per curve, N the padded side.
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL be, img or out; rows or cols < 2; rmin < 0,
   rmax > 1, rmin >= rmax; num_radii or num_highpass out of range (HST_LOGITEM_OUT_OF_RANGE
   naming desc->num_radii or desc->num_highpass, and NanoPyx's name); a ROI beyond the image or
   empty in one axis; pixel_size outside its range),
   HST_ERROR_NON_FINITE, HST_ERROR_OVERFLOW, HST_ERROR_NOT_BUILT_IN (without HST_FFT),
   HST_ERROR_CANCELLED (hst_backend_interrupt), memory and OpenCL errors.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_decorr(hst_backend *be, const float *img, size_t rows, size_t cols,
                              const hst_decorr_desc *desc, hst_decorr_result *out);

/* ---------------------------------------------------------------------------------------------
   Drift estimation: each frame's translation against a reference, by FFT cross-correlation, as
   NanoPyx 2.1.5's drift alignment (methods/drift_alignment, core/analysis/_le_drift_calculator
   and ccm: the map IFFT(F conj(R)) of each (temporally averaged) frame against the first one or
   the previous one, its peak inside +-max_expected_drift, refined below a pixel, the block
   estimates interpolated to every frame), streamed: frames arrive in blocks of any size
   (hst_drift_push), so a stack larger than memory is read once, and only the reference's
   spectrum and one batch of images stay on the device.

   reference:
     HST_DRIFT_REF_FIRST     the first image (NanoPyx's ref_option 0): the first frame, or with
                             averaging the mean of the first `averaging` frames;
     HST_DRIFT_REF_MEAN      the mean of the first reference_frames frames (raw frames, before
                             any averaging; 0 means 1); a frame's drift is against that mean's
                             position, so frame 0's drift is not 0 in general;
     HST_DRIFT_REF_PREVIOUS  each image against the one before (NanoPyx's ref_option 1), the
                             steps added up from image 0: slow drift over a changing sample.
   peak (the sub-pixel refinement of the map's largest value, on the host, from its 7 x 7
   neighbourhood; the integer peak is found on the device):
     HST_DRIFT_PEAK_GAUSSIAN     a 3-point Gaussian (parabola of the logarithms) along each
                                 axis: exact for Gaussian-shaped peaks (spots, blobs); falls back
                                 to the parabola where a neighbour is not positive;
     HST_DRIFT_PEAK_PARABOLA     a 3-point parabola along each axis;
     HST_DRIFT_PEAK_CATMULL_ROM  NanoPyx's: the maximum of the map's Catmull-Rom (a = 0.5)
                                 interpolation within a pixel of the peak (NanoPyx: scipy's
                                 Nelder-Mead; here a grid search refined to 1e-4 pixel).
   max_shift: the largest |dy| and |dx| (pixels) searched against the reference (NanoPyx's
   max_expected_drift; for PREVIOUS: per step); 0: up to half the image.
   averaging: frames per image (NanoPyx's time_averaging; 0 or 1: none): each run of averaging
   frames (the last one possibly shorter) is averaged and estimated once, and a frame's drift is
   the linear interpolation between the images' centres (frame (b averaging + (n_b - 1) / 2)
   for image b of n_b frames), extended linearly before the first centre and after the last.
   batch: images per device pass (0: 16); a REF_MEAN session holds at least ceil(reference_frames
   / averaging) images. */
typedef enum hst_drift_reference {
    HST_DRIFT_REF_FIRST = 0,
    HST_DRIFT_REF_MEAN = 1,
    HST_DRIFT_REF_PREVIOUS = 2
} hst_drift_reference;

/* The frames' sample types (the values of esrrf.h's hst_esrrf_dtype). */
typedef enum hst_drift_dtype {
    HST_DRIFT_U8 = 1,
    HST_DRIFT_U16 = 2,
    HST_DRIFT_I16 = 3,
    HST_DRIFT_F32 = 4
} hst_drift_dtype;

typedef enum hst_drift_peak {
    HST_DRIFT_PEAK_GAUSSIAN = 0,
    HST_DRIFT_PEAK_PARABOLA = 1,
    HST_DRIFT_PEAK_CATMULL_ROM = 2
} hst_drift_peak;

typedef struct hst_drift_desc {
    hst_drift_reference reference;
    size_t reference_frames;    /* HST_DRIFT_REF_MEAN's N (0: 1); must be 0 otherwise */
    unsigned max_shift;         /* pixels; 0: half the image */
    hst_drift_peak peak;
    size_t averaging;           /* frames per estimate (0, 1: every frame) */
    size_t batch;               /* images per device pass (0: 16) */
} hst_drift_desc;

/* A drift estimation in progress on one backend (hst_drift_open .. hst_drift_close). */
typedef struct hst_drift hst_drift;

/* Opens an estimation of frames of (rows, cols) pixels, rows and cols >= 8. desc NULL: the
   defaults (first frame, Gaussian peak, whole map, no averaging). Device memory: the batch's
   images as float32, twice its r2c spectra, the reference's spectrum, one block sum, and one
   batch of frames as pushed (about 4 batch rows cols 4 bytes: 256 MB for 16 frames of 1000 x
   1000); on an OpenCL device a second batch of frames as pushed (320 MB in all) and 16 MiB of
   pinned host memory, the uploads' staging (without them, which is logged, pushes wait for
   their uploads). Errors: HST_ERROR_INVALID_ARGUMENT
   (be or out NULL; rows or cols < 8; a reference, peak out of its enum; reference_frames set
   without HST_DRIFT_REF_MEAN; max_shift beyond INT_MAX), HST_ERROR_OVERFLOW (sizes),
   HST_ERROR_NOT_BUILT_IN (without HST_FFT), memory and OpenCL errors. Thread safety: per
   backend (a session is the backend's while it is open; other calls on be in between are
   fine). */
HST_API HST_NODISCARD hst_result hst_drift_open(hst_backend *be, size_t rows, size_t cols,
                                                const hst_drift_desc *desc, hst_drift **out);

/* Adds count frames, (count, rows, cols) of dtype (u8, u16, i16 or f32, the host's byte order), C
   order, in host memory (read, never written; the call returns when they are no longer
   needed: on an OpenCL device it copies them into pinned staging, and the device uploads and
   estimates them while the caller reads the next). Blocks of any size (1 .. the whole stack)
   give the same drift, bit for bit. f32 frames must be finite. A batch's estimates are made
   while the device runs the next batch: their errors (a cross-correlation beyond float's range)
   come from the next push or from hst_drift_finish. Errors: HST_ERROR_INVALID_ARGUMENT (d or
   frames NULL; count 0), HST_ERROR_DTYPE (not an hst_drift_dtype), HST_ERROR_NON_FINITE (NaN or Inf: the log names the frame
   and pixel), HST_ERROR_OVERFLOW, HST_ERROR_CANCELLED (hst_backend_interrupt), memory and
   OpenCL errors; after an error the session only accepts hst_drift_close. */
HST_API HST_NODISCARD hst_result hst_drift_push(hst_drift *d, const void *frames, hst_drift_dtype dtype,
                                                size_t count);

/* The frames pushed so far (0 for NULL). */
HST_API size_t hst_drift_frames(const hst_drift *d);

/* Ends the estimation: drift receives (frames, 2) doubles, frame f's (dy, dx) in input pixels,
   frames = hst_drift_frames(d). Sign: the frame's content is the reference's moved by (dy,
   dx), frame(y, x) ~ ref(y - dy, x - dx): down and right are positive, as array indices grow.
   NanoPyx's drift table holds the opposite (its drift_y, drift_x: the translation that undoes
   it); liquid.h's hst_shift_magnify undoes it with shift_row = -dy, shift_col = -dx. With
   HST_DRIFT_REF_FIRST or _PREVIOUS the first image's estimate is 0 exactly. A map whose peak
   (per overlapping pixel) is at most 1e-6 of the product of the image's and its reference's
   mean intensities (a blank or flat image: nothing correlates beyond the FFTs' rounding, on
   every device) keeps the previous image's estimate (a step of 0 with _PREVIOUS), with a
   warning naming the image. Errors:
   HST_ERROR_INVALID_ARGUMENT (d or drift NULL; frames not the count pushed; no frame pushed;
   fewer frames than reference_frames), the errors of hst_drift_push; the session stays open
   (close it). */
HST_API HST_NODISCARD hst_result hst_drift_finish(hst_drift *d, double *drift, size_t frames);

/* Frees the session's memory (NULL is fine). */
HST_API void hst_drift_close(hst_drift *d);

/* The references by name, for command lines and bindings: "first", "mean", "previous" (as
   written, lower case) -> HST_DRIFT_REF_*; -1 for any other name or NULL. Thread-safe. */
HST_API int hst_drift_reference_parse(const char *name);

/* The whole estimation in one call: open, push the stack (frames, rows, cols) of dtype, finish
   into drift (frames, 2), close. Errors: the four's. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_drift_estimate(hst_backend *be, const void *stack, hst_drift_dtype dtype,
                                                    size_t frames, size_t rows, size_t cols,
                                                    const hst_drift_desc *desc, double *drift);

/* ---------------------------------------------------------------------------------------------
   How many frames one eSRRF time point should hold: NanoJ-eSRRF's "Estimating maximum frame
   number" (Laine et al., NanoJ-eSRRF's documentation): frames further apart than the sample
   moves in are not the same structure, and averaging their radial gradient convergence blurs
   it. The stack is cut into blocks of block_frames; in each, the structural similarity (SSIM:
   Wang, Bovik, Sheikh & Simoncelli, IEEE Trans. Image Process. 13(4), 2004: 11 x 11 Gaussian
   window of sigma 1.5, K1 0.01, K2 0.03, the mean over the window positions inside the image)
   of the block's first frame with each later one, by their separation (lag). Over the blocks,
   each lag's mean and standard deviation; the means smoothed by a centred moving mean of
   `smoothing` lags. The estimate is the first lag whose smoothed mean lies below lag 1's by at
   least `sigmas` standard deviations of lag 1's SSIMs (the frame-to-next-frame spread that
   noise and blinking make): frames that far apart differ by more than noise. Chosen over the
   eSRRF images' decorrelation resolution (quality.h's hst_decorr on K and 2K frames) because
   it is NanoJ-eSRRF's own, it needs no eSRRF runs (one SSIM per frame of the stack), and it
   measures what limits the frame count, the sample's motion, where resolution would also
   keep improving with noise averaged out. */
typedef struct hst_frames_desc {
    size_t block_frames;        /* frames per block, >= 2 (0: min(100, frames / 2)): a little
                                   more than the frame count expected */
    double sigmas;              /* the drop, in standard deviations of lag 1 (0: 2, NanoJ's) */
    size_t smoothing;           /* lags of the moving mean (0: 3; 1: none) */
    double range;               /* SSIM's dynamic range L (0: the stack's max - min, NanoJ's
                                   "dynamic range" choice; 255 or 65535: its "bit depth" one) */
} hst_frames_desc;

typedef struct hst_frames_estimate {
    size_t frames;              /* the most frames worth one time point (>= 1) */
    int reached;                /* 1: the drop was reached within the blocks; 0: never (frames
                                   = block_frames: the stack holds still that long; try larger
                                   blocks) */
    size_t blocks;              /* the blocks averaged */
    double range;               /* the L used */
} hst_frames_estimate;

/* The estimate above for a stack (frames, rows, cols) of dtype (u8, u16, i16 or f32), C order,
   in host memory (read only), rows and cols >= 11 (the SSIM window). curve (may be NULL)
   receives 2 block_frames doubles: the mean SSIM by lag (lag 0: 1), then their standard
   deviations (0 where one block covers the lag). Runs on the host's processor whatever be's
   device (one SSIM per block and lag: about 5 x 121 x rows x cols multiply-adds; crop to the
   region of interest, as NanoJ advises, for large frames); be takes the log and
   hst_backend_interrupt. Errors: HST_ERROR_INVALID_ARGUMENT (be, stack or out NULL; rows or
   cols < 11; fewer than two blocks of 2 frames: the log says how many frames and blocks;
   block_frames 1; sigmas or range negative or not finite; range 0 and every sample equal: SSIM
   needs a range), HST_ERROR_DTYPE (not an hst_drift_dtype), HST_ERROR_NON_FINITE (NaN or Inf:
   the log names frame and pixel), HST_ERROR_OVERFLOW,
   HST_ERROR_OUT_OF_HOST_MEMORY, HST_ERROR_CANCELLED. Thread safety: per backend. */
/* The frames per block the estimate of a stack of `frames` frames uses (desc NULL: the
   defaults): desc->block_frames, else min(100, frames / 2). curve's length is twice it.
   Thread-safe. */
HST_API size_t hst_estimate_frames_block(const hst_frames_desc *desc, size_t frames);
HST_API HST_NODISCARD hst_result hst_estimate_frames(hst_backend *be, const void *stack, hst_drift_dtype dtype,
                                                     size_t frames, size_t rows, size_t cols,
                                                     const hst_frames_desc *desc, double *curve,
                                                     hst_frames_estimate *out);

#ifdef __cplusplus
}
#endif
#endif /* HST_QUALITY_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_QUALITY_IMPLEMENTATION) && !defined(HST__QUALITY_IMPLEMENTED)
#define HST__QUALITY_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__QDEF HST_API __attribute__((unused))
#else
#  define HST__QDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__Q_PI 3.14159265358979323846
#define HST__Q_TRUNCATE 4.0           /* scipy.ndimage.gaussian_filter's default truncate */
#define HST__Q_NO_BLUR 1e-15          /* scipy skips axes with sigma at or below this */
#define HST__Q_FWHM 2.35482           /* NanoPyx's FWHM / sigma for the sigma bracket */
#define HST__Q_FRC_THRESHOLD (1.0f / 7.0f)
#define HST__Q_FRC_TUKEY 0.25
#define HST__Q_FRC_SAVGOL 0.0707      /* NanoPyx's window, as a share of the curve */
#define HST__Q_SAVGOL_ORDER 3
#define HST__Q_FRC_MIN_SIDE 10        /* a curve of 4 points: the smallest savgol window */
#define HST__Q_EM_MIN_COLS 2          /* the error map's r2c FFTs (DCT, interpolation) along rows */
/* Samples per FRC work-item: rings have 2 pi r samples; chunks spread the longest rings over
   many work-items, and their partial sums are added in order per ring afterwards. */
#define HST__Q_FRC_CHUNK 64
/* Work-items of the error map's moments (sums of b, b^2, b r): 32768 partial sums read back
   (384 KiB) and added in double on the host; enough work-items to keep a GPU's memory busy,
   and the partial sums stay short (763 terms each at 5000 x 5000). */
#define HST__Q_MOMENT_ITEMS 32768u
/* Work-items of the DCT-domain objective (one pass per sigma): enough to fill an H100's 132
   SMs with loads in flight (32768 left it latency-bound: ~0.8 ms a pass at 5000 x 5000, 0.1 ms
   of memory traffic); their partial sums (2 x 1 MiB) are summed on the device again
   (hst_k_quality_partial_sums, HST__Q_DCT_SUMS per image). */
#define HST__Q_DCT_ITEMS 262144u
/* Sums per image of the DCT objective's partial sums after hst_k_quality_partial_sums (each
   of HST__Q_DCT_ITEMS / 1024 = 256 compensated terms); read back, 8 KiB per image, and added
   in double on the host: a batch's evaluations cost one read-back. */
#define HST__Q_DCT_SUMS 1024u
#define HST__Q_DECORR_APODIZE 20      /* NanoPyx's apodisation border, pixels */
#define HST__Q_DECORR_G_MIN 0.14f
/* High-pass filters of at most this radius (sigma < 0.375) are made in space, as NanoPyx makes
   them: their float image - blur is dominated by rounding below sigma ~0.2 (the centre tap
   rounds to 1 or within a few ulps of it; sigma 0.14 is every first filter), which a product in
   the Fourier domain would not reproduce. Wider ones (1 - the centre tap >= 0.057: rounding
   ~1e-6 of the high-pass) multiply the spectrum; they differ from the spatial filter only by
   its 'reflect' edges (tests/test_quality.c states by how much). */
#define HST__Q_DECORR_SPACE_RADIUS 1
#define HST__Q_DECORR_DT 0.001f
/* scipy.optimize.brent and bracket's constants */
#define HST__Q_BRENT_TOL 1.48e-8
/* The search's relative tolerance on sigma with desc->scores_only: the objective is flat at its
   minimum (quadratic), so stopping 1e-4 from it moves RSE and RSP by ~1e-8, below the float
   sums' rounding, and halves the rounds. */
#define HST__Q_SCORES_TOL 1e-4
#define HST__Q_BRENT_MINTOL 1.0e-11
#define HST__Q_BRENT_CG 0.3819660
#define HST__Q_BRENT_MAXITER 1000
#define HST__Q_GOLD 1.618034
#define HST__Q_GROW_LIMIT 110.0
#define HST__Q_VERYSMALL 1e-21
/* Intensity scale (the opening comment's "Large and small intensities"). The float sums of
   squares and products, and the FFT coefficients squared, hold about 2^-126 .. 2^128: an image
   whose sums leave a margin inside that range is scaled by a power of two (exact) and computed
   again. The triggers read sums the metrics take anyway, so an image inside them costs nothing
   and keeps its bits: the error map's centred images with a mean square in [2^-80, 2^80] (RMS
   2^-40 .. 2^40: alpha = cov / var_b, the ratio of the two images' scales, stays a float); an
   FRC pair with finite ring sums whose strongest ring holds at least 2^-60 in each image; a
   decorrelation image (on the host already) with its largest |pixel| in [2^-40, 2^40] and N^2
   times it at most 2^60 (N^2 the padded pixels, so that |F|^2 <= 2^120). A triggered image's
   largest |pixel| (amax; on a device two more reductions) then decides: amax in
   [2^-40, 2^40] and no sum overflowed: computed as it is (a flat image, say); else scaled by
   2^-e with amax 2^-e in [0.5, 1), where no sum of any image size can overflow or underflow. */
#define HST__Q_SCALE_EXP 40     /* amax in [2^-40, 2^40]: computed as given */
#define HST__Q_MS_EXP 80        /* the error map's mean squares in [2^-80, 2^80] */
#define HST__Q_RING_EXP (-60)   /* FRC: the strongest ring's power at least 2^-60 */
#define HST__Q_FFT_EXP 60       /* decorrelation: N^2 amax at most 2^60 */
#define HST__Q_SCALE_STEP 100   /* hst__q_scale's factors stay normal floats: 2^-100 .. 2^100 */

/* >>types ------------------------------------------------------------------------------------ */
/* One call's state: its backend and how its log names things. The quality family's program is
   built with `options` on the backend's first launch and kept by the backend (hst_launch_kernel). */
typedef struct hst__q {
    hst_backend *be;
    int batch;            /* a batch function (the log names images by index) */
    const char *func;
    const char *options;  /* "-DHST_FP64" where the device has fp64 (hst_k_quality_gains) */
} hst__q;

static void hst__q_init(hst__q *q, hst_backend *be, const char *func) {
    memset(q, 0, sizeof *q);
    q->be = be;
    q->func = func;
    q->options = hst_backend_device(be)->fp64 ? "-DHST_FP64" : "";
}

/* An array as a kernel's buffer argument. */
static hst_karg hst__q_buf(const hst_array *a) { return hst_karg_buffer(hst_array_buffer(a)); }

/* A launch of the quality family's kernel id with args over (g0, g1) work-items (dims 1: g0),
   from offset 0, on the backend's queue. */
static hst_launch_desc hst__q_desc(const hst__q *q, unsigned id, const hst_karg *args, size_t nargs,
                                   unsigned dims, size_t g0, size_t g1) {
    hst_launch_desc d;
    memset(&d, 0, sizeof d);
    d.family = hst_kernels_quality_family();
    d.options = q->options;
    d.kernel = id;
    d.args = args;
    d.num_args = nargs;
    d.range.dims = dims;
    d.range.global[0] = g0;
    d.range.global[1] = g1;
    return d;
}

/* >>helpers ---------------------------------------------------------------------------------- */
/* desc->pixel_size: 0 (the default) or inside [HST_QUALITY_MIN_PIXEL_SIZE, _MAX] (NaN fails). */
static hst_result hst__q_pixel_size(const hst__q *q, double ps) {
    if (ps == 0.0 || (ps >= HST_QUALITY_MIN_PIXEL_SIZE && ps <= HST_QUALITY_MAX_PIXEL_SIZE)) return HST_SUCCESS;
    return hst__range_arg(q->be, q->func, "desc->pixel_size %g: 0 (the default, 1) or %g .. %g (the curves are float)",
                          ps, HST_QUALITY_MIN_PIXEL_SIZE, HST_QUALITY_MAX_PIXEL_SIZE);
}

/* HST_ERROR_CANCELLED where hst_backend_interrupt asked the backend's calls to stop (polled
   between FFTs, curves, search rounds and images: each well under a second of work). */
static hst_result hst__q_cancelled(const hst__q *q) {
    if (!hst_backend_interrupted(q->be)) return HST_SUCCESS;
    hst_backend_log(q->be, HST_LOG_INFO, HST_LOGITEM_NONE, "%s: interrupted: stopping (HST_ERROR_CANCELLED)", q->func);
    return HST_ERROR_CANCELLED;
}

/* The log's name of image k of the argument `name`: "name[k]" in a batch, else "name". */
static const char *hst__q_name(const hst__q *q, const char *name, size_t k, char *buf, size_t bytes) {
    if (q->batch) snprintf(buf, bytes, "%s[%zu]", name, k);
    else snprintf(buf, bytes, "%s", name);
    return buf;
}

static hst_result hst__q_count(const hst__q *q, size_t rows, size_t cols, size_t *n) {
    if (rows > (size_t)INT_MAX / 2 || cols > (size_t)INT_MAX / 2 ||
        (rows && cols > SIZE_MAX / sizeof(float) / 2 / rows)) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SIZE_OVERFLOW,
                        "%s: an image of %zu x %zu is too large", q->func, rows, cols);
        return HST_ERROR_OVERFLOW;
    }
    *n = rows * cols;
    return HST_SUCCESS;
}

static hst_result hst__q_finite(const hst__q *q, const char *name, const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_NON_FINITE,
                            "%s: %s[%zu] is %g", q->func, name, i, (double)x[i]);
            return HST_ERROR_NON_FINITE;
        }
    return HST_SUCCESS;
}

static hst_result hst__q_array(const hst__q *q, hst_dtype dt, size_t rows, size_t cols,
                               const void *data, hst_array **out) {
    size_t shape[2];
    shape[0] = rows; shape[1] = cols;
    *out = NULL;
    return data ? hst_array_from_host(q->be, dt, 2, shape, data, out)
                : hst_array_create(q->be, dt, 2, shape, out);
}

/* The copy of image k of src (rows, cols) that dst (h, w) holds: rows [y0, y0 + h), columns
   [x0, x0 + w). Host images go up (whole, or the rectangle); device images are copied on the
   device (a rectangle through a whole-image copy, as a buffer offset need not be a multiple
   of a row). */
static hst_result hst__q_copy_in(const hst__q *q, const hst_image_batch *src, size_t k,
                                 size_t rows, size_t cols, size_t y0, size_t x0, hst_array *dst) {
    const size_t *shape = hst_array_shape(dst);
    size_t h = shape[0], w = shape[1], region[3];
    hst_queue *queue = hst_backend_queue(q->be);
    hst_rect from, to;
    hst_array *whole = NULL;
    hst_result r;
    int part = h != rows || w != cols;
    if (src->host && !part) return hst_array_write(dst, src->host[k], h * w * sizeof(float));
    if (!src->host && !part)
        return hst_copy(queue, hst_array_buffer(dst), 0, src->buf, src->offset_bytes + k * src->stride_bytes,
                        h * w * sizeof(float), 0, NULL, NULL);
    memset(&from, 0, sizeof from); memset(&to, 0, sizeof to);
    from.origin[0] = x0 * sizeof(float); from.origin[1] = y0; from.row_pitch = cols * sizeof(float);
    region[0] = w * sizeof(float); region[1] = h; region[2] = 1;
    if (src->host)
        return hst_write_rect(queue, hst_array_buffer(dst), &to, src->host[k], &from, region, 1, 0, NULL, NULL);
    if ((r = hst__q_array(q, HST_F32, rows, cols, NULL, &whole)) == HST_SUCCESS)
        r = hst_copy(queue, hst_array_buffer(whole), 0, src->buf, src->offset_bytes + k * src->stride_bytes,
                     rows * cols * sizeof(float), 0, NULL, NULL);
    if (r == HST_SUCCESS)
        r = hst_copy_rect(queue, hst_array_buffer(dst), &to, hst_array_buffer(whole), &from, region, 0, NULL, NULL);
    hst_array_destroy(whole);
    return r;
}

/* Image k (name) on the device, dst, checked by its sum s: the device's sum of a finite image
   is finite, so only a non-finite sum costs a read-back and a scan (which names the image and
   its first bad pixel; a sum that overflowed from finite pixels passes, its mean then taken on
   the host). *mean: the pixels' mean. */
static hst_result hst__q_checked_mean(const hst__q *q, const char *name, size_t k, const hst_array *dst,
                                      hst_scalar s, double *mean) {
    size_t i, n = hst_array_count(dst);
    double sum = 0.0;
    float *x;
    char what[64];
    hst_result r;
    if (!isfinite(s.re)) {
        if (!(x = (float *)hst_backend_alloc(q->be, n * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        if (q->batch) snprintf(what, sizeof what, "%s[%zu]", name, k);
        else snprintf(what, sizeof what, "%s", name);
        if ((r = hst_array_read(dst, x, n * sizeof(float))) == HST_SUCCESS &&
            (r = hst__q_finite(q, what, x, n)) == HST_SUCCESS)
            for (i = 0; i < n; i++) sum += x[i];
        hst_backend_free(q->be, x);
        if (r != HST_SUCCESS) return r;
        s.re = sum;
    }
    *mean = s.re / (double)n;
    return HST_SUCCESS;
}

/* Image k of src into dst (see hst__q_copy_in), checked on the way (hst__q_checked_mean). */
static hst_result hst__q_fetch(const hst__q *q, const char *name, const hst_image_batch *src,
                               size_t k, size_t rows, size_t cols, size_t y0, size_t x0,
                               hst_array *dst, double *mean) {
    hst_scalar s;
    hst_result r = hst__q_copy_in(q, src, k, rows, cols, y0, x0, dst);
    if (r == HST_SUCCESS) r = hst_array_sum(dst, &s);
    return r == HST_SUCCESS ? hst__q_checked_mean(q, name, k, dst, s, mean) : r;
}

/* The images on the device, v[0 .. count), checked (hst__q_checked_mean) with one wait for
   their sums (hst_array_sum_batch), in order: v[k] is image k / nn of the batch names[k % nn].
   mean[k]: their means (mean NULL: not kept). */
static hst_result hst__q_check_all(const hst__q *q, const char *const *names, size_t nn, hst_array *const *v,
                                   size_t count, double *mean) {
    hst_scalar *s = (hst_scalar *)hst_backend_alloc(q->be, count * sizeof *s);
    size_t k;
    double m;
    hst_result r;
    if (!s) return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst_array_sum_batch((const hst_array *const *)v, count, s);
    for (k = 0; k < count && r == HST_SUCCESS; k++)
        if ((r = hst__q_checked_mean(q, names[k % nn], k / nn, v[k], s[k], &m)) == HST_SUCCESS && mean) mean[k] = m;
    hst_backend_free(q->be, s);
    return r;
}

/* Uploads one host image (a new array *out), checked as hst__q_fetch. */
static hst_result hst__q_upload(const hst__q *q, const char *name, const float *x, size_t rows,
                                size_t cols, hst_array **out, double *mean) {
    hst_image_batch one;
    hst_result r;
    memset(&one, 0, sizeof one);
    one.host = &x;
    r = hst__q_array(q, HST_F32, rows, cols, NULL, out);
    if (r == HST_SUCCESS) r = hst__q_fetch(q, name, &one, 0, rows, cols, 0, 0, *out, mean);
    if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

/* The bytes between a batch's images in quality.h's own buffers: one image rounded up to the
   alignment that makes each image a view (hst_array_view). 0 on overflow. */
static size_t hst__q_stride(const hst__q *q, size_t bytes) {
    size_t align = hst_backend_device(q->be)->mem_base_addr_align_bytes;
    if (align < sizeof(float)) align = sizeof(float);
    if (bytes > SIZE_MAX - align) return 0;
    return (bytes + align - 1) / align * align;
}

/* count views of (rows, cols) floats, stride bytes apart, over base's buffer into v[]. */
static hst_result hst__q_views(const hst_array *base, size_t count, size_t stride, size_t rows,
                               size_t cols, hst_array **v) {
    size_t k, shape[2];
    hst_result r = HST_SUCCESS;
    shape[0] = rows; shape[1] = cols;
    for (k = 0; k < count && r == HST_SUCCESS; k++)
        r = hst_array_view(hst_array_buffer(base), k * stride, HST_F32, 2, shape, &v[k]);
    return r;
}

/* The exponent e of the power of two an image is scaled by (x 2^-e; see HST__Q_SCALE_EXP):
   0 where its largest |pixel| amax is 0, or lies in [2^-40, 2^40] and none of its sums
   overflowed; else the e that brings amax into [0.5, 1). */
static int hst__q_shift(double amax, int overflowed) {
    int e = 0;
    if (!(amax > 0.0)) return 0;
    if (!overflowed && amax >= ldexp(1.0, -HST__Q_SCALE_EXP) && amax <= ldexp(1.0, HST__Q_SCALE_EXP))
        return 0;
    (void)frexp(amax, &e);
    return e;
}

/* x *= 2^-e on its device, exactly (factors of at most 2^100 each: normal floats). */
static hst_result hst__q_scale(hst_array *x, int e) {
    hst_result r = HST_SUCCESS;
    while (e != 0 && r == HST_SUCCESS) {
        int s = e > HST__Q_SCALE_STEP ? HST__Q_SCALE_STEP : e < -HST__Q_SCALE_STEP ? -HST__Q_SCALE_STEP : e;
        r = hst_array_scale(x, hst_real(ldexp(1.0, -s)));
        e -= s;
    }
    return r;
}

/* The largest |x| of a float array (its max and min: blocking reductions on a device). */
static hst_result hst__q_absmax(const hst_array *x, double *amax) {
    hst_scalar mn, mx;
    hst_result r = hst_array_max(x, &mx);
    if (r == HST_SUCCESS) r = hst_array_min(x, &mn);
    if (r == HST_SUCCESS) *amax = fmax(fabs(mx.re), fabs(mn.re));
    return r;
}

/* The largest |x| of n host floats. */
static double hst__q_host_absmax(const float *x, size_t n) {
    double m = 0.0;
    size_t i;
    for (i = 0; i < n; i++)
        if (fabs((double)x[i]) > m) m = fabs((double)x[i]);
    return m;
}

/* Logs that image `what` is scaled by 2^-e, and why. */
static void hst__q_log_scale(const hst__q *q, const char *what, int e, int overflowed) {
    hst_backend_log(q->be, HST_LOG_INFO, HST_LOGITEM_NONE, "%s: %s: scaled by 2^%d (its float sums %s)",
                    q->func, what, -e, overflowed ? "overflow" : e > 0 ? "would overflow" : "underflow");
}

/* A metric's float sums that overflowed even so (not reached for images within hst__q_count's
   sizes; a guard against a silent non-finite score). */
static hst_result hst__q_overflowed(const hst__q *q, const char *what) {
    return hst_backend_fail(q->be, HST_ERROR_OVERFLOW, HST_LOGITEM_OUT_OF_RANGE, q->func,
                            "%s: the float sums overflow even after scaling", what);
}

/* scipy.ndimage._gaussian_kernel1d: radius int(4 sigma + 0.5), weights exp(-x^2 / 2 sigma^2)
   normalised in double, then rounded to float. Returns the radius; w holds 2 radius + 1. */
static int hst__q_gauss_weights(double sigma, float *w) {
    int radius = (int)(HST__Q_TRUNCATE * sigma + 0.5), i;
    double sum = 0.0;
    for (i = -radius; i <= radius; i++) sum += exp(-0.5 / (sigma * sigma) * (double)i * i);
    for (i = -radius; i <= radius; i++)
        w[i + radius] = (float)(exp(-0.5 / (sigma * sigma) * (double)i * i) / sum);
    return radius;
}

/* dst = G_sigma(src) (rows, cols), tmp of the same shape; sigma <= 1e-15: a copy. */
static hst_result hst__q_blur(hst__q *q, hst_array *dst, const hst_array *src, hst_array *tmp,
                              double sigma) {
    const size_t *shape = hst_array_shape(src);
    int rows = (int)shape[0], cols = (int)shape[1], radius, axis;
    size_t wn;
    hst_array *w = NULL;
    float *wh;
    hst_result r = HST_SUCCESS;
    if (!(sigma > HST__Q_NO_BLUR)) return hst_array_copy(dst, src);
    if (HST__Q_TRUNCATE * sigma + 0.5 > (double)INT_MAX / 4)
        return hst__range_arg(q->be, q->func, "sigma is too large");
    wn = 2 * (size_t)(int)(HST__Q_TRUNCATE * sigma + 0.5) + 1;
    if (!(wh = (float *)hst_backend_alloc(q->be, wn * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    radius = hst__q_gauss_weights(sigma, wh);
    r = hst_array_from_host(q->be, HST_F32, 1, &wn, wh, &w);
    hst_backend_free(q->be, wh);
    if (r != HST_SUCCESS) return r;
    for (axis = 0; axis < 2 && r == HST_SUCCESS; axis++) {
        const hst_array *in = axis == 0 ? src : tmp;
        hst_array *o = axis == 0 ? tmp : dst;
        hst_karg a[7] = {hst__q_buf(in), hst__q_buf(o), hst__q_buf(w), hst_karg_int(radius),
                         hst_karg_int(rows), hst_karg_int(cols), hst_karg_int(axis)};
        hst_launch_desc d = hst__q_desc(q, HST_KQUALITY_BLUR, a, 7, 2, (size_t)cols, (size_t)rows);
        r = hst_launch_kernel(q->be, &d, NULL);
    }
    hst_array_destroy(w);
    return r;
}

/* >>error map -------------------------------------------------------------------------------- */
/* NanoPyx's _mirror_padding_even_square_c: tiles of img, flipped on odd tile offsets from the
   middle one, an odd number of tiles per axis, cropped to the centred power-of-two square
   (side *p). Returns malloc'd memory (the backend's allocator) or NULL. */
static float *hst__q_mirror_pad(const hst__q *q, const float *img, int h, int w, int *p) {
    int bw = (int)pow(2.0, ceil(log2((double)w))), bh = (int)pow(2.0, ceil(log2((double)h)));
    int dim = bw > bh ? bw : bh;
    int sw = (int)ceil(dim / (float)w), sh = (int)ceil(dim / (float)h), x, y;
    int xr, yr, midw, midh;
    float *out;
    if (sw % 2 == 0) sw++;
    if (sh % 2 == 0) sh++;
    midw = (sw - 1) / 2; midh = (sh - 1) / 2;
    xr = (sw * w - dim) / 2; yr = (sh * h - dim) / 2;
    if (!(out = (float *)hst_backend_alloc(q->be, (size_t)dim * dim * sizeof(float)))) return NULL;
    for (y = 0; y < dim; y++)
        for (x = 0; x < dim; x++) {
            int Y = y + yr, X = x + xr, tj = Y / h, ti = X / w, j = Y % h, i = X % w;
            int pi = ((ti - midw) % 2 == 0) ? i : w - 1 - i;
            int qj = ((tj - midh) % 2 == 0) ? j : h - 1 - j;
            out[(size_t)y * dim + x] = img[(size_t)qj * w + pi];
        }
    *p = dim;
    return out;
}

/* ref Fourier-interpolated by mag into dst (h mag, w mag) (NanoPyx's fht_space_interpolation
   with mirror padding): r2c of the padded p x p image, its spectrum placed centred in an
   (mag p)^2 one, c2c inverse, real part rescaled to ref's range, centre crop. */
static hst_result hst__q_fourier_interp(hst__q *q, const float *ref, int h, int w, int mag,
                                        hst_array *dst) {
    int p = 0, mp, y0, x0, rows = h * mag, cols = w * mag;
    size_t i, n = (size_t)h * w, half[2], full[2];
    float lo_in = ref[0], hi_in = ref[0], lo, scale = 1.0f;
    float *pad = hst__q_mirror_pad(q, ref, h, w, &p);
    hst_array *img = NULL, *spec = NULL, *big = NULL, *re = NULL;
    hst_scalar mn, mx;
    hst_result r;
    if (!pad) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 1; i < n; i++) {
        if (ref[i] < lo_in) lo_in = ref[i];
        if (ref[i] > hi_in) hi_in = ref[i];
    }
    mp = p * mag;
    if ((size_t)mp > (size_t)INT_MAX / 2 / (size_t)mp) { hst_backend_free(q->be, pad); return HST_ERROR_OVERFLOW; }
    half[0] = (size_t)p; half[1] = (size_t)p / 2 + 1;
    full[0] = full[1] = (size_t)mp;
    r = hst__q_array(q, HST_F32, (size_t)p, (size_t)p, pad, &img);
    hst_backend_free(q->be, pad);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, half, &spec);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, full, &big);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_F32, 2, full, &re);
    if (r == HST_SUCCESS) r = hst_array_fft(spec, img, 2, 0, HST_FFT_NORM_BACKWARD);
    if (r == HST_SUCCESS) {
        hst_karg a[4] = {hst__q_buf(spec), hst__q_buf(big), hst_karg_int(p), hst_karg_int(mp)};
        hst_launch_desc d = hst__q_desc(q, HST_KQUALITY_FOURIER_PAD, a, 4, 2, (size_t)mp, (size_t)mp);
        r = hst_launch_kernel(q->be, &d, NULL);
    }
    if (r == HST_SUCCESS) r = hst_array_fft(big, big, 2, 1, HST_FFT_NORM_BACKWARD);
    if (r == HST_SUCCESS) r = hst_array_complex_part(re, big, HST_PART_REAL);
    if (r == HST_SUCCESS) r = hst_array_min(re, &mn);
    if (r == HST_SUCCESS) r = hst_array_max(re, &mx);
    if (r == HST_SUCCESS) {
        hst_karg a[10];
        hst_launch_desc d;
        lo = (float)mn.re;
        if ((float)mx.re != lo) scale = (hi_in - lo_in) / ((float)mx.re - lo);
        else { lo = 0.0f; lo_in = 0.0f; }   /* NanoPyx leaves a constant output as it is */
        y0 = (mp - rows) / 2; x0 = (mp - cols) / 2;
        a[0] = hst__q_buf(re); a[1] = hst__q_buf(dst); a[2] = hst_karg_int(mp); a[3] = hst_karg_int(rows);
        a[4] = hst_karg_int(cols); a[5] = hst_karg_int(y0); a[6] = hst_karg_int(x0);
        a[7] = hst_karg_float(lo); a[8] = hst_karg_float(scale); a[9] = hst_karg_float(lo_in);
        d = hst__q_desc(q, HST_KQUALITY_CROP_RESCALE, a, 10, 2, (size_t)cols, (size_t)rows);
        r = hst_launch_kernel(q->be, &d, NULL);
    }
    hst_array_destroy(img); hst_array_destroy(spec); hst_array_destroy(big); hst_array_destroy(re);
    return r;
}

/* The sigma search of one image: scipy.optimize.bracket, then Brent.optimize (scipy 1.17's
   _optimize.py, line for line), as a state machine that stops at each objective evaluation:
   `req` is the sigma it asks for, hst__q_search_step takes the objective's value there and
   returns 1 with a new `req`, or 0 when done (sigma set). So several images' searches run in
   lockstep, each its own state, their evaluations in one batch (hst__q_objectives). */
enum { HST__QS_FA, HST__QS_FB, HST__QS_FC, HST__QS_INSIDE, HST__QS_SHIFT, HST__QS_BEYOND,
       HST__QS_BRENT, HST__QS_DONE };
typedef struct hst__qsearch {
    int state, iter, bracketed;
    double req, sigma, x0;   /* x0: the bracket's first xb, 4 / 2.35482 mag */
    double tol;              /* Brent's relative tolerance on sigma */
    double xa, xb, xc, fa, fb, fc, w, fw;             /* bracket */
    double x, v, bw, fx, fv, fbw, a, b, deltax, rat;  /* Brent (bw, fbw: its w, fw) */
} hst__qsearch;

static void hst__q_search_init(hst__qsearch *s, unsigned mag, double tol) {
    memset(s, 0, sizeof *s);
    s->tol = tol;
    s->xa = 0.0;
    s->xb = s->x0 = HST__Q_TRUNCATE / HST__Q_FWHM * mag;
    s->req = s->xa;
    s->state = HST__QS_FA;
}

static int hst__q_search_done(hst__qsearch *s, double sigma) {
    s->sigma = sigma;
    s->state = HST__QS_DONE;
    return 0;
}

/* Brent's next trial point, or done (tol 1.48e-8, at most 1000 iterations). */
static int hst__q_brent_next(hst__qsearch *s) {
    double x = s->x, tol1 = s->tol * fabs(x) + HST__Q_BRENT_MINTOL, tol2 = 2.0 * tol1;
    double xmid = 0.5 * (s->a + s->b), u;
    if (s->iter >= HST__Q_BRENT_MAXITER || fabs(x - xmid) < (tol2 - 0.5 * (s->b - s->a)))
        return hst__q_search_done(s, x);
    if (fabs(s->deltax) <= tol1) {
        s->deltax = x >= xmid ? s->a - x : s->b - x;
        s->rat = HST__Q_BRENT_CG * s->deltax;
    } else {
        double tmp1 = (x - s->bw) * (s->fx - s->fv), tmp2 = (x - s->v) * (s->fx - s->fbw), p, dx_temp;
        p = (x - s->v) * tmp2 - (x - s->bw) * tmp1;
        tmp2 = 2.0 * (tmp2 - tmp1);
        if (tmp2 > 0.0) p = -p;
        tmp2 = fabs(tmp2);
        dx_temp = s->deltax;
        s->deltax = s->rat;
        if (p > tmp2 * (s->a - x) && p < tmp2 * (s->b - x) && fabs(p) < fabs(0.5 * tmp2 * dx_temp)) {
            s->rat = p * 1.0 / tmp2;
            u = x + s->rat;
            if ((u - s->a) < tol2 || (s->b - u) < tol2) s->rat = xmid - x >= 0 ? tol1 : -tol1;
        } else {
            s->deltax = x >= xmid ? s->a - x : s->b - x;
            s->rat = HST__Q_BRENT_CG * s->deltax;
        }
    }
    s->req = fabs(s->rat) < tol1 ? (s->rat >= 0 ? x + tol1 : x - tol1) : x + s->rat;
    s->state = HST__QS_BRENT;
    return 1;
}

/* Brent's update with f(u), u = req. */
static int hst__q_brent_step(hst__qsearch *s, double fu) {
    double u = s->req;
    if (fu > s->fx) {
        if (u < s->x) s->a = u; else s->b = u;
        if (fu <= s->fbw || s->bw == s->x) { s->v = s->bw; s->bw = u; s->fv = s->fbw; s->fbw = fu; }
        else if (fu <= s->fv || s->v == s->x || s->v == s->bw) { s->v = u; s->fv = fu; }
    } else {
        if (u >= s->x) s->a = s->x; else s->b = s->x;
        s->v = s->bw; s->bw = s->x; s->x = u;
        s->fv = s->fbw; s->fbw = s->fx; s->fx = fu;
    }
    s->iter++;
    return hst__q_brent_next(s);
}

/* The bracket's end: Brent from (xa, xb, xc) if it is one, else done at xb (NanoPyx raises). */
static int hst__q_bracket_end(hst__qsearch *s) {
    if (!(((s->fb < s->fc && s->fb <= s->fa) || (s->fb < s->fa && s->fb <= s->fc)) &&
          ((s->xa < s->xb && s->xb < s->xc) || (s->xc < s->xb && s->xb < s->xa)) &&
          isfinite(s->xa) && isfinite(s->xb) && isfinite(s->xc)))
        return hst__q_search_done(s, s->xb);
    s->bracketed = 1;
    s->x = s->v = s->bw = s->xb;
    s->fx = s->fv = s->fbw = s->fb;
    if (s->xa < s->xc) { s->a = s->xa; s->b = s->xc; } else { s->a = s->xc; s->b = s->xa; }
    s->deltax = s->rat = 0.0;
    s->iter = 0;
    return hst__q_brent_next(s);
}

/* The bracket loop's head: while fc < fb, the next point w. */
static int hst__q_bracket_next(hst__qsearch *s) {
    double tmp1, tmp2, val, denom, wlim, xa = s->xa, xb = s->xb, xc = s->xc, w;
    if (!(s->fc < s->fb)) return hst__q_bracket_end(s);
    tmp1 = (xb - xa) * (s->fb - s->fc); tmp2 = (xb - xc) * (s->fb - s->fa); val = tmp2 - tmp1;
    denom = fabs(val) < HST__Q_VERYSMALL ? 2.0 * HST__Q_VERYSMALL : 2.0 * val;
    wlim = xb + HST__Q_GROW_LIMIT * (xc - xb);
    w = xb - ((xb - xc) * tmp2 - (xb - xa) * tmp1) / denom;
    if (s->iter > HST__Q_BRENT_MAXITER)   /* scipy raises; the caller's xb is the first one */
        return hst__q_search_done(s, s->x0);
    s->iter++;
    if ((w - xc) * (xb - w) > 0.0) s->state = HST__QS_INSIDE;
    else if ((w - wlim) * (wlim - xc) >= 0.0) { w = wlim; s->state = HST__QS_SHIFT; }
    else if ((w - wlim) * (xc - w) > 0.0) s->state = HST__QS_BEYOND;
    else { w = xc + HST__Q_GOLD * (xc - xb); s->state = HST__QS_SHIFT; }
    s->w = s->req = w;
    return 1;
}

/* The bracket's shift at the end of each loop iteration, with f(w). */
static int hst__q_bracket_shift(hst__qsearch *s, double fw) {
    s->xa = s->xb; s->xb = s->xc; s->xc = s->w;
    s->fa = s->fb; s->fb = s->fc; s->fc = fw;
    return hst__q_bracket_next(s);
}

/* Takes f(req); returns 1 with the next req, 0 when s->sigma is the answer. */
static int hst__q_search_step(hst__qsearch *s, double f) {
    double t;
    switch (s->state) {
    case HST__QS_FA:
        s->fa = f; s->req = s->xb; s->state = HST__QS_FB;
        return 1;
    case HST__QS_FB:
        s->fb = f;
        if (s->fa < s->fb) { t = s->xa; s->xa = s->xb; s->xb = t; t = s->fa; s->fa = s->fb; s->fb = t; }
        s->xc = s->req = s->xb + HST__Q_GOLD * (s->xb - s->xa);
        s->state = HST__QS_FC;
        return 1;
    case HST__QS_FC:
        s->fc = f;
        return hst__q_bracket_next(s);
    case HST__QS_INSIDE:   /* w between xb and xc */
        if (f < s->fc) { s->xa = s->xb; s->xb = s->w; s->fa = s->fb; s->fb = f; return hst__q_bracket_end(s); }
        if (f > s->fb) { s->xc = s->w; s->fc = f; return hst__q_bracket_end(s); }
        s->w = s->req = s->xc + HST__Q_GOLD * (s->xc - s->xb);
        s->state = HST__QS_SHIFT;
        return 1;
    case HST__QS_BEYOND:   /* w beyond xc, inside the growth limit */
        if (f < s->fc) {
            s->xb = s->xc; s->xc = s->w; s->w = s->req = s->xc + HST__Q_GOLD * (s->xc - s->xb);
            s->fb = s->fc; s->fc = f;
            s->state = HST__QS_SHIFT;
            return 1;
        }
        return hst__q_bracket_shift(s, f);
    case HST__QS_SHIFT:
        return hst__q_bracket_shift(s, f);
    case HST__QS_BRENT:
        return hst__q_brent_step(s, f);
    default:
        return 0;
    }
}

/* One image of an error-map batch: its fit at the last sigma (alpha = cov / var_b, beta from
   mean_b) and its search. */
typedef struct hst__qimg {
    double mean_sr, mean_b, var_b, cov, rmse;
    unsigned evaluations;
    int active;
    int shift;   /* the image is computed times 2^-shift (hst__q_shift) */
    hst__qsearch s;
} hst__qimg;

/* An error-map batch: count SR images against one reference, at the SR size (rows, cols).
   rz: the reference minus its mean; srz[k]: image k minus its mean (views of srz_all, `stride`
   bytes apart); b, tmp: one image's work arrays (the spatial fit); part, hpart: the moments'
   partial sums. All centred, so the float sums do not cancel.
   The DCT-domain objective (dct 1, with HST_FFT): rdct, sdct[k]: the orthonormal 2-D DCT-II of
   rz and srz[k]; gains: image k's blur gains per row, then column frequency (gstride floats
   per image, rstride of them the rows'), written from hg in one copy; dpart: image k's
   hst_k_quality_dct_moments partial sums in rows 2k, 2k + 1 (pstride floats apart), summed by
   hst_k_quality_partial_sums into dsum, read back to hsum in one copy; cos_r, cos_c:
   cos(pi m / n), m < 2 n, per axis. The gains follow from each image's filter taps: ht
   (wstride floats per image: t_0 .. t_R of the 2 R + 1 taps) and hrad (R), written by the host
   each round; then hst_k_quality_gains on the device where it has fp64 (taps, rad, dcos_r,
   dcos_c: the device's copies; dev_gains 1), else its twin on the host (into the gains'
   host memory, or hg, written up). wfull: one image's 2 R + 1 taps, as scipy makes them.
   src: the caller's images (an image scaled is copied again); ref_shift: the reference is
   computed times 2^-ref_shift (hst__q_shift), as each image k times 2^-img[k].shift. */
typedef struct hst__qem {
    hst__q *q;
    const hst_image_batch *src;
    int ref_shift;
    size_t count, stride, gstride, rstride, pstride, wstride;
    uint32_t items;      /* hst_k_quality_dct_moments' work-items: HST__Q_DCT_ITEMS, at most n */
    int rows, cols, dct, dev_gains;
    unsigned mag;
    double n, var_r, mean_r, tol;   /* tol: the sigma search's (HST__Q_BRENT_TOL or _SCORES_TOL) */
    hst_array *rz, *b, *tmp, *part, *srz_all, *rdct, *sdct_all, *gains, *dpart, *dsum;
    hst_array *taps, *rad, *dcos_r, *dcos_c;
    hst_array **views;   /* 2 count: srz, sdct */
    hst_array **srz, **sdct;
    float *hpart, *hg, *hsum, *ht, *wfull;
    int *hrad;
    double *cos_r, *cos_c;
    hst__qimg *img;
} hst__qem;

/* Sums of b, b^2 and b r over the image (hst_k_quality_moments' partials, added in double). */
static hst_result hst__q_moments(hst__qem *e, double m[3]) {
    uint32_t items = HST__Q_MOMENT_ITEMS;
    size_t i;
    hst_karg a[5] = {hst__q_buf(e->b), hst__q_buf(e->rz), hst__q_buf(e->part), hst_karg_ulong((uint64_t)e->n),
                     hst_karg_uint(items)};
    hst_launch_desc d = hst__q_desc(e->q, HST_KQUALITY_MOMENTS, a, 5, 1, items, 0);
    hst_result r = hst_launch_kernel(e->q->be, &d, NULL);
    if (r == HST_SUCCESS) r = hst_array_read(e->part, e->hpart, (size_t)items * 3 * sizeof(float));
    m[0] = m[1] = m[2] = 0.0;
    for (i = 0; r == HST_SUCCESS && i < 3 * (size_t)items; i++) m[i % 3] += e->hpart[i];
    return r;
}

/* The RMS residual of the least-squares line, from the blurred image's variance and its
   covariance with the reference. */
static double hst__q_rmse(const hst__qem *e, double var_b, double cov) {
    return var_b > 0.0 ? sqrt(fmax(0.0, e->var_r - cov * cov / var_b)) : sqrt(e->var_r);
}

/* Image k's fit at sigma, in space: b = G_sigma(srz[k]), its moments. */
static hst_result hst__q_fit(hst__qem *e, size_t k, double sigma) {
    hst__qimg *f = &e->img[k];
    double m[3];
    hst_result r = hst__q_blur(e->q, e->b, e->srz[k], e->tmp, sigma);
    if (r == HST_SUCCESS) r = hst__q_moments(e, m);
    if (r != HST_SUCCESS) return r;
    f->mean_b = m[0] / e->n;
    f->var_b = m[1] / e->n - f->mean_b * f->mean_b;
    f->cov = m[2] / e->n;   /* the reference is centred: its mean is 0 */
    f->rmse = hst__q_rmse(e, f->var_b, f->cov);
    return HST_SUCCESS;
}

/* The DCT domain. scipy's 'reflect' edges (d c b a | a b c d | d c b a) make each line the
   period-2n, half-sample symmetric extension of itself, which the DCT-II diagonalises: a
   symmetric filter of taps w_j (any radius: the extension wraps) multiplies coefficient k by
   its gain g(k) = sum_j w_j cos(pi k j / n), exactly. The blur is separable, so the
   coefficient (k1, k2) of G_sigma(SR) is gr(k1) gc(k2) S(k1, k2), and with the orthonormal
   transform (Parseval) the variance of G_sigma(SR) and its covariance with the reference are
   sums over the coefficients, the DC term (the means) left out:
       var_b = sum gr^2 gc^2 S^2 / n,   cov = sum gr gc S R / n.
   One transform of each image, then each sigma costs one pass over the coefficients instead
   of a blur. */

/* c[m] = cos(pi m / n), m < 2 n. */
static void hst__q_cos_table(double *c, int n) {
    int m;
    for (m = 0; m < 2 * n; m++) c[m] = cos(HST__Q_PI * m / n);
}

/* (n, 2) floats (c, s), c - i s = a(k) exp(-i pi k / 2 n) scale: a(k) = sqrt((k ? 2 : 1) / n)
   makes the transform orthonormal; the unpack kernel's formula halves one axis (scale). */
static hst_result hst__q_twiddles(hst__q *q, int n, double scale, hst_array **out) {
    float *t = (float *)hst_backend_alloc(q->be, 2 * (size_t)n * sizeof(float));
    hst_result r;
    int k;
    if (!t) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (k = 0; k < n; k++) {
        double a = sqrt((k ? 2.0 : 1.0) / n) * scale;
        t[2 * k] = (float)(a * cos(HST__Q_PI * k / (2.0 * n)));
        t[2 * k + 1] = (float)(a * sin(HST__Q_PI * k / (2.0 * n)));
    }
    r = hst__q_array(q, HST_F32, (size_t)n, 2, t, out);
    hst_backend_free(q->be, t);
    return r;
}

/* dst = the orthonormal 2-D DCT-II of src (rows, cols): pack, r2c into spec, unpack. */
static hst_result hst__q_dct(hst__q *q, int rows, int cols, const hst_array *src, hst_array *dst,
                             hst_array *spec, const hst_array *tr, const hst_array *tc) {
    hst_karg a[4] = {hst__q_buf(src), hst__q_buf(dst), hst_karg_int(rows), hst_karg_int(cols)};
    hst_karg b[6] = {hst__q_buf(spec), hst__q_buf(dst), hst__q_buf(tr), hst__q_buf(tc), hst_karg_int(rows),
                     hst_karg_int(cols)};
    hst_launch_desc pack = hst__q_desc(q, HST_KQUALITY_DCT_PACK, a, 4, 2, (size_t)cols, (size_t)rows);
    hst_launch_desc unpack = hst__q_desc(q, HST_KQUALITY_DCT_UNPACK, b, 6, 2, (size_t)cols, (size_t)rows);
    hst_result r = hst_launch_kernel(q->be, &pack, NULL);
    if (r == HST_SUCCESS) r = hst_array_fft(spec, dst, 2, 0, HST_FFT_NORM_BACKWARD);
    return r == HST_SUCCESS ? hst_launch_kernel(q->be, &unpack, NULL) : r;
}

/* The DCT domain's arrays (see hst__qem) and the transforms: the reference's once, each
   image's once. */
static hst_result hst__q_dct_arrays(hst__qem *e) {
    hst__q *q = e->q;
    size_t rows = (size_t)e->rows, cols = (size_t)e->cols, c2 = 2 * e->count;
    hst_result r;
    e->rstride = hst__q_stride(q, rows * sizeof(float)) / sizeof(float);
    e->gstride = e->rstride + hst__q_stride(q, cols * sizeof(float)) / sizeof(float);
    /* a small image's items each take one coefficient: no items that would sum nothing */
    e->items = e->n < (double)HST__Q_DCT_ITEMS ? (uint32_t)e->n : HST__Q_DCT_ITEMS;
    e->pstride = hst__q_stride(q, (size_t)e->items * sizeof(float)) / sizeof(float);
    if (!(e->cos_r = (double *)hst_backend_alloc(q->be, 2 * rows * sizeof(double))) ||
        !(e->cos_c = (double *)hst_backend_alloc(q->be, 2 * cols * sizeof(double))) ||
        !(e->hg = (float *)hst_backend_calloc(q->be, e->count * e->gstride * sizeof(float))) ||
        !(e->hrad = (int *)hst_backend_calloc(q->be, e->count * sizeof(int))) ||
        !(e->hsum = (float *)hst_backend_alloc(q->be, c2 * HST__Q_DCT_SUMS * sizeof(float))))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    hst__q_cos_table(e->cos_r, e->rows);
    hst__q_cos_table(e->cos_c, e->cols);
    e->dev_gains = hst_backend_device(q->be)->fp64;
    r = hst__q_array(q, HST_F32, rows, cols, NULL, &e->rdct);
    if (r == HST_SUCCESS && e->dev_gains) r = hst__q_array(q, HST_F64, 1, 2 * rows, e->cos_r, &e->dcos_r);
    if (r == HST_SUCCESS && e->dev_gains) r = hst__q_array(q, HST_F64, 1, 2 * cols, e->cos_c, &e->dcos_c);
    if (r == HST_SUCCESS && e->dev_gains) r = hst__q_array(q, HST_I32, 1, e->count, NULL, &e->rad);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, e->count, e->stride / sizeof(float), NULL, &e->sdct_all);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, e->count, e->gstride, NULL, &e->gains);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, c2, e->pstride, NULL, &e->dpart);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, c2, HST__Q_DCT_SUMS, NULL, &e->dsum);
    if (r == HST_SUCCESS) r = hst__q_views(e->sdct_all, e->count, e->stride, rows, cols, e->sdct);
    return r;
}

/* The transforms: DCT(rz) into rdct (with_ref), and DCT(srz[k]) into sdct[k] for images
   [k0, k1). */
static hst_result hst__q_dct_images(hst__qem *e, int with_ref, size_t k0, size_t k1) {
    hst__q *q = e->q;
    size_t half[2], k;
    hst_array *spec = NULL, *tr = NULL, *tc = NULL;
    hst_result r;
    half[0] = (size_t)e->rows; half[1] = (size_t)e->cols / 2 + 1;
    r = hst_array_create(q->be, HST_C64, 2, half, &spec);
    if (r == HST_SUCCESS) r = hst__q_twiddles(q, e->rows, 0.5, &tr);
    if (r == HST_SUCCESS) r = hst__q_twiddles(q, e->cols, 1.0, &tc);
    if (r == HST_SUCCESS && with_ref) r = hst__q_dct(q, e->rows, e->cols, e->rz, e->rdct, spec, tr, tc);
    for (k = k0; k < k1 && r == HST_SUCCESS; k++)
        if ((r = hst__q_cancelled(q)) == HST_SUCCESS)
            r = hst__q_dct(q, e->rows, e->cols, e->srz[k], e->sdct[k], spec, tr, tc);
    hst_array_destroy(spec); hst_array_destroy(tr); hst_array_destroy(tc);
    return r;
}

/* Switches the objective to the DCT domain where FFTs are built in (without HST_FFT it stays
   spatial): the arrays, DCT(rz) and DCT(srz[k]) for every image. */
static hst_result hst__q_dct_setup(hst__qem *e) {
    hst_result r;
    if (!hst_fft_built_in()) return HST_SUCCESS;
    r = hst__q_dct_arrays(e);
    if (r == HST_SUCCESS) r = hst__q_dct_images(e, 1, 0, e->count);
    if (r == HST_SUCCESS) e->dct = 1;
    return r;
}

/* Room for R + 1 taps per image in ht (and the device's taps), 2 R + 1 in wfull: grown to at
   least twice the old room, so a search that widens its sigma grows them a few times. */
static hst_result hst__q_taps_room(hst__qem *e, int radius) {
    hst__q *q = e->q;
    size_t need = (size_t)radius + 1, room = 2 * e->wstride > need ? 2 * e->wstride : need;
    if (need <= e->wstride) return HST_SUCCESS;
    if (room < 64) room = 64;
    if (room > SIZE_MAX / sizeof(float) / 2 / e->count) return HST_ERROR_OVERFLOW;
    if (e->ht) hst_backend_free(q->be, e->ht);
    if (e->wfull) hst_backend_free(q->be, e->wfull);
    hst_array_destroy(e->taps);
    e->taps = NULL; e->wstride = 0;
    if (!(e->ht = (float *)hst_backend_calloc(q->be, e->count * room * sizeof(float))) ||
        !(e->wfull = (float *)hst_backend_alloc(q->be, (2 * room + 1) * sizeof(float))))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    e->wstride = room;
    return e->dev_gains ? hst__q_array(q, HST_F32, e->count, room, NULL, &e->taps) : HST_SUCCESS;
}

/* The radius of sigma's filter (0: no blur), or -1 where it is too large for an int. */
static int hst__q_radius(double sigma) {
    if (!(sigma > HST__Q_NO_BLUR)) return 0;
    if (HST__Q_TRUNCATE * sigma + 0.5 > (double)INT_MAX / 4) return -1;
    return (int)(HST__Q_TRUNCATE * sigma + 0.5);
}

/* Every active image's taps at its search's sigma into ht and hrad (no blur: the one tap 1). */
static hst_result hst__q_taps(hst__qem *e) {
    size_t k;
    int most = 0;
    hst_result r;
    for (k = 0; k < e->count; k++) {
        int radius = e->img[k].active ? hst__q_radius(e->img[k].s.req) : 0;
        if (radius < 0) return hst__range_arg(e->q->be, e->q->func, "sigma is too large");
        if (radius > most) most = radius;
    }
    if ((r = hst__q_taps_room(e, most)) != HST_SUCCESS) return r;
    for (k = 0; k < e->count; k++) {
        float *t = e->ht + k * e->wstride;
        double sigma = e->img[k].s.req;
        if (!e->img[k].active) continue;
        if (!(sigma > HST__Q_NO_BLUR)) {
            e->hrad[k] = 0;
            t[0] = 1.0f;
            continue;
        }
        e->hrad[k] = hst__q_gauss_weights(sigma, e->wfull);
        memcpy(t, e->wfull + e->hrad[k], ((size_t)e->hrad[k] + 1) * sizeof(float));
    }
    return HST_SUCCESS;
}

/* Images [k0, k1)'s gains from their taps: hst_k_quality_gains over (rows + cols, images) where
   the device has fp64 (the host device has), else its typed twin on the host into hg (which
   hst__q_gains_all writes up). */
static hst_result hst__q_gains(hst__qem *e, size_t k0, size_t k1) {
    hst_karg a[11];
    hst_launch_desc d;
    if (!e->dev_gains) {
        hst_k_quality_gains_host(e->ht, e->hrad, e->cos_r, e->cos_c, e->hg, e->rows, e->cols, e->wstride,
                                 e->gstride, e->rstride, k0, k1);
        return HST_SUCCESS;
    }
    a[0] = hst__q_buf(e->taps); a[1] = hst__q_buf(e->rad); a[2] = hst__q_buf(e->dcos_r);
    a[3] = hst__q_buf(e->dcos_c); a[4] = hst__q_buf(e->gains); a[5] = hst_karg_int(e->rows);
    a[6] = hst_karg_int(e->cols); a[7] = hst_karg_ulong(e->wstride); a[8] = hst_karg_ulong(e->gstride);
    a[9] = hst_karg_ulong(e->rstride); a[10] = hst_karg_ulong(k1);
    d = hst__q_desc(e->q, HST_KQUALITY_GAINS, a, 11, 2, (size_t)e->rows + (size_t)e->cols, k1 - k0);
    d.range.offset[1] = k0;
    return hst_launch_kernel(e->q->be, &d, NULL);
}

/* Images [k0, k1)'s DCT-domain sums at their gains into dsum's rows [2 k0, 2 k1): their
   partial sums (hst_k_quality_dct_moments over (items, images)), then the second level. */
static hst_result hst__q_dct_run(hst__qem *e, size_t k0, size_t k1) {
    uint32_t h = HST__Q_DCT_SUMS;
    hst_karg a[12], b[6];
    hst_launch_desc moments, sums;
    hst_result r;
    a[0] = hst__q_buf(e->sdct_all); a[1] = hst__q_buf(e->rdct); a[2] = hst__q_buf(e->gains);
    a[3] = hst__q_buf(e->dpart); a[4] = hst_karg_int(e->rows); a[5] = hst_karg_int(e->cols);
    a[6] = hst_karg_uint(e->items); a[7] = hst_karg_ulong(e->stride / sizeof(float));
    a[8] = hst_karg_ulong(e->gstride); a[9] = hst_karg_ulong(e->rstride); a[10] = hst_karg_ulong(e->pstride);
    a[11] = hst_karg_ulong(k1);
    moments = hst__q_desc(e->q, HST_KQUALITY_DCT_MOMENTS, a, 12, 2, e->items, k1 - k0);
    moments.range.offset[1] = k0;
    /* rows [2 k0, 2 k1) of h sums: the offset starts them, n (2 k1 h) ends them */
    b[0] = hst__q_buf(e->dpart); b[1] = hst__q_buf(e->dsum); b[2] = hst_karg_uint(e->items);
    b[3] = hst_karg_uint(h); b[4] = hst_karg_ulong(2 * (uint64_t)k1 * h); b[5] = hst_karg_ulong(e->pstride);
    sums = hst__q_desc(e->q, HST_KQUALITY_PARTIAL_SUMS, b, 6, 1, 2 * (k1 - k0) * h, 0);
    sums.range.offset[0] = 2 * k0 * h;
    r = hst_launch_kernel(e->q->be, &moments, NULL);
    return r == HST_SUCCESS ? hst_launch_kernel(e->q->be, &sums, NULL) : r;
}

/* Calls f(e, k, end) on each run [k, end) of consecutive active images (one run until
   searches end), in order, while it succeeds. */
static hst_result hst__q_active_runs(hst__qem *e, hst_result (*f)(hst__qem *, size_t, size_t)) {
    size_t k, end;
    hst_result r = HST_SUCCESS;
    for (k = 0; k < e->count && r == HST_SUCCESS; k = end) {
        for (end = k; end < e->count && e->img[end].active; end++) continue;
        if (end == k) { end++; continue; }
        r = f(e, k, end);
    }
    return r;
}

/* The gains of every active image at its search's sigma: its taps (host), then the gains where
   they are made: the taps go up for the device's kernel, or the twin's gains go up. */
static hst_result hst__q_gains_all(hst__qem *e) {
    hst_result r = hst__q_taps(e);
    if (r == HST_SUCCESS && e->dev_gains) {
        r = hst_array_write(e->taps, e->ht, e->count * e->wstride * sizeof(float));
        if (r == HST_SUCCESS) r = hst_array_write(e->rad, e->hrad, e->count * sizeof(int));
        return r;
    }
    if (r == HST_SUCCESS) r = hst__q_active_runs(e, hst__q_gains);
    if (r == HST_SUCCESS) r = hst_array_write(e->gains, e->hg, e->count * e->gstride * sizeof(float));
    return r;
}

/* Images [k0, k1)'s objective on the device: their gains where the kernel makes them, then
   their DCT-domain sums. */
static hst_result hst__q_device_run(hst__qem *e, size_t k0, size_t k1) {
    hst_result r = e->dev_gains ? hst__q_gains(e, k0, k1) : HST_SUCCESS;
    return r == HST_SUCCESS ? hst__q_dct_run(e, k0, k1) : r;
}

/* The DCT-domain objective of every active image at its search's sigma: the gains (above), then
   for each run of consecutive active images one hst_k_quality_dct_moments and one
   hst_k_quality_partial_sums launch, every image's sums read back in one copy and added in
   double. */
static hst_result hst__q_objectives_dct(hst__qem *e) {
    size_t k, c;
    hst_result r = hst__q_gains_all(e);
    if (r == HST_SUCCESS) r = hst__q_active_runs(e, hst__q_device_run);
    if (r == HST_SUCCESS) r = hst_array_read(e->dsum, e->hsum, 2 * e->count * HST__Q_DCT_SUMS * sizeof(float));
    for (k = 0; k < e->count && r == HST_SUCCESS; k++) {
        double ss = 0.0, sr = 0.0;
        const float *hs = e->hsum + 2 * k * HST__Q_DCT_SUMS;
        if (!e->img[k].active) continue;
        for (c = 0; c < HST__Q_DCT_SUMS; c++) { ss += hs[c]; sr += hs[HST__Q_DCT_SUMS + c]; }
        e->img[k].var_b = ss / e->n;
        e->img[k].cov = sr / e->n;
        e->img[k].rmse = hst__q_rmse(e, e->img[k].var_b, e->img[k].cov);
    }
    return r;
}

/* The reference at the SR size, centred on the device: e->rz, e->var_r. */
static hst_result hst__q_reference_as_is(hst__qem *e, const float *ref, size_t h, size_t w) {
    hst_scalar s, ss;
    double mean = 0.0;
    unsigned mag = e->mag;
    hst_result r;
    if (mag == 1) {
        r = hst__q_upload(e->q, "ref", ref, h, w, &e->rz, &mean);
    } else if ((r = hst__q_array(e->q, HST_F32, h * mag, w * mag, NULL, &e->rz)) == HST_SUCCESS &&
               (r = hst__q_fourier_interp(e->q, ref, (int)h, (int)w, (int)mag, e->rz)) == HST_SUCCESS &&
               (r = hst_array_sum(e->rz, &s)) == HST_SUCCESS) {
        mean = s.re / e->n;
    }
    if (r == HST_SUCCESS) {
        e->mean_r = (float)mean;   /* as binary_scalar rounds it */
        r = hst_array_binary_scalar(e->rz, e->rz, hst_real(e->mean_r), HST_BINARY_SUB, 0);
    }
    if (r == HST_SUCCESS) r = hst_array_sqnorm(e->rz, &ss);
    if (r == HST_SUCCESS) e->var_r = ss.re / e->n;
    return r;
}

/* 1: a mean square the error map's float sums hold (HST__Q_MS_EXP). */
static int hst__q_ms_ok(double ms) {
    return ms >= ldexp(1.0, -HST__Q_MS_EXP) && ms <= ldexp(1.0, HST__Q_MS_EXP);
}

/* The reference (hst__q_reference_as_is), computed again times 2^-e (e->ref_shift) where its
   variance leaves hst__q_ms_ok and its largest |pixel| asks (hst__q_shift). */
static hst_result hst__q_reference(hst__qem *e, const float *ref, size_t h, size_t w) {
    size_t i, n = h * w;
    int over, shift = 0;
    float *scaled;
    hst_result r = hst__q_reference_as_is(e, ref, h, w);
    if (r != HST_SUCCESS || hst__q_ms_ok(e->var_r)) return r;
    over = !isfinite(e->var_r);
    if (!(shift = hst__q_shift(hst__q_host_absmax(ref, n), over)))
        return over ? hst__q_overflowed(e->q, "ref") : HST_SUCCESS;
    if (!(scaled = (float *)hst_backend_alloc(e->q->be, n * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < n; i++) scaled[i] = ldexpf(ref[i], -shift);
    hst_array_destroy(e->rz);
    e->rz = NULL;
    r = hst__q_reference_as_is(e, scaled, h, w);
    hst_backend_free(e->q->be, scaled);
    e->ref_shift = shift;
    hst__q_log_scale(e->q, "ref", shift, over);
    if (r == HST_SUCCESS && !isfinite(e->var_r)) r = hst__q_overflowed(e->q, "ref");
    return r;
}

/* srz[k] (image k's device copy) minus its mean, as binary_scalar rounds the mean. */
static hst_result hst__q_centre(hst__qem *e, size_t k, double mean) {
    e->img[k].mean_sr = (float)mean;   /* as binary_scalar rounds it */
    return hst_array_binary_scalar(e->srz[k], e->srz[k], hst_real(e->img[k].mean_sr), HST_BINARY_SUB, 0);
}

/* The SR images, each minus its mean, on the device: srz[k], img[k].mean_sr (the images go up
   or are copied, then checked with one wait for all). */
static hst_result hst__q_centred_images(hst__qem *e, const hst_image_batch *src) {
    static const char *const name = "sr";
    size_t k, rows = (size_t)e->rows, cols = (size_t)e->cols;
    double *mean = (double *)hst_backend_alloc(e->q->be, e->count * sizeof(double));
    hst_result r = mean ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
    for (k = 0; k < e->count && r == HST_SUCCESS; k++)
        if ((r = hst__q_cancelled(e->q)) == HST_SUCCESS) r = hst__q_copy_in(e->q, src, k, rows, cols, 0, 0, e->srz[k]);
    if (r == HST_SUCCESS) r = hst__q_check_all(e->q, &name, 1, e->srz, e->count, mean);
    for (k = 0; k < e->count && r == HST_SUCCESS; k++) r = hst__q_centre(e, k, mean[k]);
    if (mean) hst_backend_free(e->q->be, mean);
    return r;
}

/* Every active image's objective at its search's sigma: in the DCT domain, else by spatial fits. */
static hst_result hst__q_evaluate(hst__qem *e) {
    size_t k;
    hst_result r = HST_SUCCESS;
    if (e->dct) return hst__q_objectives_dct(e);
    for (k = 0; k < e->count && r == HST_SUCCESS; k++)
        if (e->img[k].active) r = hst__q_fit(e, k, e->img[k].s.req);
    return r;
}

/* Image k after an evaluation (var_b, cov at its sigma): where its variance leaves
   hst__q_ms_ok, its largest |pixel| (a copy in e->tmp) decides (hst__q_shift); an image to
   scale goes into srz[k] again times 2^-e, is centred and transformed again (*again = 1: its
   numbers must be evaluated again). */
static hst_result hst__q_rescale(hst__qem *e, size_t k, int *again) {
    hst__qimg *f = &e->img[k];
    size_t rows = (size_t)e->rows, cols = (size_t)e->cols;
    int over = !isfinite(f->var_b) || !isfinite(f->cov), shift = 0;
    double amax = 0.0, mean = 0.0;
    char what[64];
    hst_scalar s;
    hst_result r;
    if (!over && hst__q_ms_ok(f->var_b)) return HST_SUCCESS;
    r = hst__q_copy_in(e->q, e->src, k, rows, cols, 0, 0, e->tmp);
    if (r == HST_SUCCESS) r = hst__q_absmax(e->tmp, &amax);
    if (r != HST_SUCCESS || !(shift = hst__q_shift(amax, over))) return r;
    r = hst__q_copy_in(e->q, e->src, k, rows, cols, 0, 0, e->srz[k]);
    if (r == HST_SUCCESS) r = hst__q_scale(e->srz[k], shift);
    if (r == HST_SUCCESS) r = hst_array_sum(e->srz[k], &s);
    if (r == HST_SUCCESS) r = hst__q_checked_mean(e->q, "sr", k, e->srz[k], s, &mean);
    if (r == HST_SUCCESS) r = hst__q_centre(e, k, mean);
    if (r == HST_SUCCESS && e->dct) r = hst__q_dct_images(e, 0, k, k + 1);
    if (r != HST_SUCCESS) return r;
    f->shift = shift;
    *again = 1;
    hst__q_log_scale(e->q, hst__q_name(e->q, "sr", k, what, sizeof what), shift, over);
    return HST_SUCCESS;
}

/* The images' sums not finite even so: an error naming the first (hst__q_overflowed). */
static hst_result hst__q_finite_sums(hst__qem *e, size_t k0, size_t k1) {
    char what[64];
    size_t k;
    for (k = k0; k < k1; k++)
        if (!isfinite(e->img[k].var_b) || !isfinite(e->img[k].cov))
            return hst__q_overflowed(e->q, hst__q_name(e->q, "sr", k, what, sizeof what));
    return HST_SUCCESS;
}

/* After the search's first evaluation: every image rescaled where it asks (hst__q_rescale),
   then, if one was, the round evaluated again. */
static hst_result hst__q_rescale_all(hst__qem *e) {
    size_t k;
    int again = 0;
    hst_result r = HST_SUCCESS;
    for (k = 0; k < e->count && r == HST_SUCCESS; k++) r = hst__q_rescale(e, k, &again);
    if (r == HST_SUCCESS && again) r = hst__q_evaluate(e);
    return r == HST_SUCCESS ? hst__q_finite_sums(e, 0, e->count) : r;
}

/* NanoPyx's sigma search (brent(brack=(0, 4 / 2.35482 mag))) of every image in lockstep: each
   round evaluates every unfinished search's sigma together, then steps each. A failed bracket
   keeps the best point it saw (NanoPyx raises), with a warning. The first round (sigma 0: the
   images' own variances) finds the images to scale (hst__q_rescale_all). */
static hst_result hst__q_search(hst__qem *e) {
    size_t k, left = e->count;
    int first = 1;
    hst_result r = HST_SUCCESS;
    for (k = 0; k < e->count; k++) {
        hst__q_search_init(&e->img[k].s, e->mag, e->tol);
        e->img[k].active = 1;
    }
    while (left && r == HST_SUCCESS) {
        if ((r = hst__q_cancelled(e->q)) != HST_SUCCESS) break;
        r = hst__q_evaluate(e);
        if (r == HST_SUCCESS && first) r = hst__q_rescale_all(e);
        first = 0;
        for (k = 0; k < e->count && r == HST_SUCCESS; k++) {
            hst__qimg *f = &e->img[k];
            if (!f->active) continue;
            f->evaluations++;
            if (hst__q_search_step(&f->s, f->rmse)) continue;
            f->active = 0;
            left--;
            if (!f->s.bracketed)
                hst_backend_log(e->q->be, HST_LOG_WARN, HST_LOGITEM_NONE,
                                "%s: image %zu: no bracket of the blur's sigma; keeping sigma %g",
                                e->q->func, k, f->s.sigma);
            else if (fabs(f->s.sigma - f->s.x0) < 1e-4)
                hst_backend_log(e->q->be, HST_LOG_INFO, HST_LOGITEM_NONE,
                                "%s: image %zu: RSF constrained, as no good minimum found",
                                e->q->func, k);
        }
    }
    return r;
}

/* Image k's map in the reference's units: times 2^ref_shift (exact); a value beyond float's
   range (a reference near +-3.4e38 fitted far off) is an error, not an infinity. */
static hst_result hst__q_unscale_map(const hst__qem *e, size_t k, float *map) {
    size_t i, n = (size_t)e->n;
    char what[64];
    for (i = 0; i < n; i++) {
        map[i] = ldexpf(map[i], e->ref_shift);
        if (!isfinite(map[i]))
            return hst_backend_fail(e->q->be, HST_ERROR_OVERFLOW, HST_LOGITEM_OUT_OF_RANGE, e->q->func,
                                    "the map of %s: pixel %zu, |fitted - ref|, is beyond float's range",
                                    hst__q_name(e->q, "sr", k, what, sizeof what), i);
    }
    return HST_SUCCESS;
}

/* Image k's scores in the caller's units (hst__q_shift): RSE and beta in the reference's (times
   2^ref_shift), alpha in the reference's per the SR image's; RSP and sigma have no unit. Exact
   (powers of two in double); no shift leaves every bit. */
static void hst__q_unscale(const hst__qem *e, size_t k, hst_error_map_result *out) {
    out->rse = ldexp(out->rse, e->ref_shift);
    out->alpha = ldexp(out->alpha, e->ref_shift - e->img[k].shift);
    out->beta = ldexp(out->beta, e->ref_shift);
}

/* The map and the final RSE, RSP of image k at the fitted sigma (e->b holds G_sigma(srz[k])). */
static hst_result hst__q_error_map_final(hst__qem *e, size_t k, float *map, hst_error_map_result *out) {
    const hst__qimg *f = &e->img[k];
    double alpha = f->var_b > 0.0 ? f->cov / f->var_b : 0.0, beta = -alpha * f->mean_b;
    float fa = (float)alpha, fbeta = (float)beta;
    size_t n = (size_t)e->n;
    hst_scalar ss;
    hst_karg a[6] = {hst__q_buf(e->b), hst__q_buf(e->rz), hst__q_buf(e->tmp), hst_karg_float(fa),
                     hst_karg_float(fbeta), hst_karg_ulong(n)};
    hst_launch_desc d = hst__q_desc(e->q, HST_KQUALITY_ERROR_MAP, a, 6, 1, n, 0);
    hst_result r = hst_launch_kernel(e->q->be, &d, NULL);
    if (r == HST_SUCCESS) r = hst_array_sqnorm(e->tmp, &ss);
    if (r == HST_SUCCESS && map) r = hst_array_read(e->tmp, map, n * sizeof(float));
    if (r == HST_SUCCESS && map && e->ref_shift) r = hst__q_unscale_map(e, k, map);
    if (r != HST_SUCCESS) return r;
    out->rse = sqrt(ss.re / e->n);
    /* Least squares with an intercept: residual = (1 - rho^2) total, rho of cov's sign. */
    out->rsp = e->var_r > 0.0 ? sqrt(fmax(0.0, 1.0 - ss.re / e->n / e->var_r)) : 0.0;
    if (f->cov < 0.0) out->rsp = -out->rsp;
    out->alpha = alpha;
    out->beta = beta + (e->mean_r - alpha * f->mean_sr);   /* for the original (uncentred) images */
    return HST_SUCCESS;
}

/* Every image's scores at its fitted sigma from the DCT-domain sums (desc->scores_only): one
   more round of the objective, at each search's answer, then RSE = the RMS residual and RSP
   from it as hst__q_error_map_final has them (mean_b 0: the images are centred). */
static hst_result hst__q_scores_dct(hst__qem *e, hst_error_map_result *out) {
    size_t k;
    hst_result r;
    for (k = 0; k < e->count; k++) {
        e->img[k].s.req = e->img[k].s.sigma;
        e->img[k].active = 1;
    }
    r = hst__q_objectives_dct(e);
    for (k = 0; k < e->count && r == HST_SUCCESS; k++) {
        const hst__qimg *f = &e->img[k];
        double alpha = f->var_b > 0.0 ? f->cov / f->var_b : 0.0;
        out[k].rse = f->rmse;
        out[k].rsp = e->var_r > 0.0 ? sqrt(fmax(0.0, 1.0 - f->rmse * f->rmse / e->var_r)) : 0.0;
        if (f->cov < 0.0) out[k].rsp = -out[k].rsp;
        out[k].alpha = alpha;
        out[k].beta = e->mean_r - alpha * f->mean_sr;
        e->img[k].active = 0;
    }
    return r;
}

/* A batch's images against their count and shape: host pointers, or a device buffer whose
   ranges lie inside it (overflow-checked). */
static hst_result hst__q_batch_check(const hst__q *q, const char *name, const hst_image_batch *b,
                                     size_t count, size_t rows, size_t cols) {
    size_t k, bytes = rows * cols * sizeof(float), end;
    if (!b) return hst__null_arg(q->be, q->func, "an image batch is NULL");
    if (!count) return hst__zero_arg(q->be, q->func, "count is 0");
    if (!b->host && !b->buf)
        return hst__null_arg(q->be, q->func, "%s: host and buf are both NULL: give host pointers or a buffer", name);
    if (b->host && b->buf)
        return hst__bad_arg(q->be, q->func, "%s: give host pointers or a buffer, not both", name);
    if (b->host) {
        for (k = 0; k < count; k++)
            if (!b->host[k]) return hst__null_arg(q->be, q->func, "%s->host[%zu] is NULL", name, k);
        return HST_SUCCESS;
    }
    if (hst_buffer_backend(b->buf) != q->be)
        return hst_backend_fail(q->be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_SHAPE_MISMATCH, q->func,
                                "%s: the buffer is another backend's", name);
    if (b->offset_bytes % sizeof(float) || b->stride_bytes % sizeof(float))
        return hst_backend_fail(q->be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_MISALIGNED, q->func,
                                "%s: offset_bytes %zu and stride_bytes %zu must be multiples of 4", name,
                                b->offset_bytes, b->stride_bytes);
    if (count > 1 && b->stride_bytes < bytes)
        return hst__range_arg(q->be, q->func, "%s: stride_bytes %zu is below an image's %zu bytes", name,
                              b->stride_bytes, bytes);
    if (!hst_size_mul(count - 1, b->stride_bytes, &end) || !hst_size_add(end, b->offset_bytes, &end) ||
        !hst_size_add(end, bytes, &end)) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SIZE_OVERFLOW,
                        "%s: %s: offset_bytes + (count - 1) stride_bytes overflows", q->func, name);
        return HST_ERROR_OVERFLOW;
    }
    if (end > hst_buffer_bytes(b->buf)) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SHAPE_MISMATCH,
                        "%s: %s: %zu images end at byte %zu, beyond the buffer's %zu", q->func,
                        name, count, end, hst_buffer_bytes(b->buf));
        return HST_ERROR_SHAPE;
    }
    return HST_SUCCESS;
}

static hst_result hst__q_error_map_check(hst__q *q, const float *ref, size_t ref_rows,
                                         size_t ref_cols, const hst_image_batch *sr, size_t count,
                                         size_t sr_rows, size_t sr_cols,
                                         const hst_error_map_desc *d, float *const *maps,
                                         const hst_error_map_result *out, unsigned *mag) {
    size_t n;
    hst_result r;
    if (!ref || !out) return hst__null_arg(q->be, q->func, "ref and out must not be NULL");
    if (!ref_rows || !ref_cols || !sr_rows || !sr_cols) return hst__zero_arg(q->be, q->func, "an extent is 0");
    if (ref_cols < HST__Q_EM_MIN_COLS || sr_cols < HST__Q_EM_MIN_COLS)
        return hst__range_arg(q->be, q->func, "%s is %zu: ref and sr need %d or more columns (the FFTs of the DCT "
                              "and the interpolation run along rows); give a one-column image transposed",
                              ref_cols < HST__Q_EM_MIN_COLS ? "ref_cols" : "sr_cols",
                              ref_cols < HST__Q_EM_MIN_COLS ? ref_cols : sr_cols, HST__Q_EM_MIN_COLS);
    if (!(d->fixed_sigma >= 0.0) || !isfinite(d->fixed_sigma))
        return hst__range_arg(q->be, q->func, "desc->fixed_sigma must be finite and >= 0");
    if (d->scores_only && maps)
        return hst__bad_arg(q->be, q->func, "desc->scores_only makes no map: maps must be NULL");
    if ((r = hst__q_count(q, ref_rows, ref_cols, &n)) != HST_SUCCESS ||
        (r = hst__q_count(q, sr_rows, sr_cols, &n)) != HST_SUCCESS)
        return r;
    if ((r = hst__q_batch_check(q, "sr", sr, count, sr_rows, sr_cols)) != HST_SUCCESS) return r;
    if (count > SIZE_MAX / 8 / (hst__q_stride(q, n * sizeof(float)) + 1)) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SIZE_OVERFLOW,
                        "%s: %zu images of %zu x %zu are too many", q->func, count, sr_rows, sr_cols);
        return HST_ERROR_OVERFLOW;
    }
    *mag = (unsigned)(sr_rows / ref_rows);
    if (*mag < 1 || sr_rows != *mag * ref_rows || sr_cols != *mag * ref_cols) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SHAPE_MISMATCH,
                        "%s: sr (%zu x %zu) is not an integer magnification of ref (%zu x %zu)",
                        q->func, sr_rows, sr_cols, ref_rows, ref_cols);
        return HST_ERROR_SHAPE;
    }
    /* sr is checked as it goes up; ref too at magnification 1 (else the host reads it) */
    return *mag > 1 ? hst__q_finite(q, "ref", ref, ref_rows * ref_cols) : HST_SUCCESS;
}

/* The batch's host memory, the centred images' arrays and views, the spatial work arrays. */
static hst_result hst__q_em_open(hst__qem *e, size_t count, size_t rows, size_t cols) {
    hst__q *q = e->q;
    size_t k;
    hst_result r;
    e->count = count; e->rows = (int)rows; e->cols = (int)cols;
    e->n = (double)rows * (double)cols;
    e->stride = hst__q_stride(q, rows * cols * sizeof(float));
    if (!(e->img = (hst__qimg *)hst_backend_calloc(q->be, count * sizeof *e->img)) ||
        !(e->views = (hst_array **)hst_backend_calloc(q->be, 2 * count * sizeof *e->views)) ||
        !(e->hpart = (float *)hst_backend_alloc(q->be, (size_t)HST__Q_MOMENT_ITEMS * 3 * sizeof(float))))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    e->srz = e->views; e->sdct = e->srz + count;
    r = hst__q_array(q, HST_F32, count, e->stride / sizeof(float), NULL, &e->srz_all);
    if (r == HST_SUCCESS) r = hst__q_views(e->srz_all, count, e->stride, rows, cols, e->srz);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, rows, cols, NULL, &e->b);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, rows, cols, NULL, &e->tmp);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, HST__Q_MOMENT_ITEMS, 3, NULL, &e->part);
    for (k = 0; k < count; k++) e->img[k].s.state = HST__QS_DONE;
    return r;
}

static void hst__q_em_close(hst__qem *e) {
    const hst_backend *be = e->q->be;
    size_t k;
    if (e->views)   /* views before the arrays they view */
        for (k = 0; k < 2 * e->count; k++) hst_array_destroy(e->views[k]);
    hst_array_destroy(e->rz); hst_array_destroy(e->b); hst_array_destroy(e->tmp);
    hst_array_destroy(e->part); hst_array_destroy(e->srz_all); hst_array_destroy(e->rdct);
    hst_array_destroy(e->sdct_all); hst_array_destroy(e->gains); hst_array_destroy(e->dpart);
    hst_array_destroy(e->dsum); hst_array_destroy(e->taps); hst_array_destroy(e->rad);
    hst_array_destroy(e->dcos_r); hst_array_destroy(e->dcos_c);
    if (e->views) hst_backend_free(be, e->views);
    if (e->img) hst_backend_free(be, e->img);
    if (e->hpart) hst_backend_free(be, e->hpart);
    if (e->hg) hst_backend_free(be, e->hg);
    if (e->hsum) hst_backend_free(be, e->hsum);
    if (e->ht) hst_backend_free(be, e->ht);
    if (e->wfull) hst_backend_free(be, e->wfull);
    if (e->hrad) hst_backend_free(be, e->hrad);
    if (e->cos_r) hst_backend_free(be, e->cos_r);
    if (e->cos_c) hst_backend_free(be, e->cos_c);
}

/* hst_error_map_batch's body (hst_error_map: a batch of one). */
static hst_result hst__q_error_maps(hst__q *q, const float *ref, size_t ref_rows, size_t ref_cols,
                                    const hst_image_batch *sr, size_t count, size_t sr_rows,
                                    size_t sr_cols, const hst_error_map_desc *desc,
                                    float *const *maps, hst_error_map_result *out) {
    hst_error_map_desc zero;
    const hst_error_map_desc *d = desc ? desc : &zero;
    hst__qem e;
    unsigned mag = 0;
    size_t k;
    int spatial;
    hst_result r;
    memset(&zero, 0, sizeof zero);
    if ((r = hst__q_error_map_check(q, ref, ref_rows, ref_cols, sr, count, sr_rows, sr_cols, d,
                                    maps, out, &mag)) != HST_SUCCESS ||
        (r = hst__q_cancelled(q)) != HST_SUCCESS)
        return r;
    memset(out, 0, count * sizeof *out);
    memset(&e, 0, sizeof e);
    e.q = q;
    e.src = sr;
    e.mag = mag;
    e.tol = d->scores_only ? HST__Q_SCORES_TOL : HST__Q_BRENT_TOL;
    r = hst__q_em_open(&e, count, sr_rows, sr_cols);
    if (r == HST_SUCCESS) r = hst__q_centred_images(&e, sr);
    if (r == HST_SUCCESS) r = hst__q_reference(&e, ref, ref_rows, ref_cols);
    if (r == HST_SUCCESS && !(d->fixed_sigma > 0.0)) r = hst__q_dct_setup(&e);
    if (r == HST_SUCCESS && !(d->fixed_sigma > 0.0)) r = hst__q_search(&e);
    spatial = !(d->scores_only && e.dct);
    if (r == HST_SUCCESS && !spatial) r = hst__q_scores_dct(&e, out);
    for (k = 0; k < count && r == HST_SUCCESS; k++) {   /* the final fit blurs, in space */
        double sigma = d->fixed_sigma > 0.0 ? d->fixed_sigma * mag : e.img[k].s.sigma;
        int again = 0;
        if ((r = hst__q_cancelled(q)) != HST_SUCCESS) break;
        if (spatial) r = hst__q_fit(&e, k, sigma);
        if (r == HST_SUCCESS && d->fixed_sigma > 0.0) {   /* no search: this fit finds the scale */
            r = hst__q_rescale(&e, k, &again);
            if (r == HST_SUCCESS && again) r = hst__q_fit(&e, k, sigma);
            if (r == HST_SUCCESS) r = hst__q_finite_sums(&e, k, k + 1);
        }
        if (r == HST_SUCCESS && spatial) r = hst__q_error_map_final(&e, k, maps ? maps[k] : NULL, &out[k]);
        if (r == HST_SUCCESS) hst__q_unscale(&e, k, &out[k]);
        out[k].sigma = sigma;
        out[k].magnification = mag;
        out[k].evaluations = d->fixed_sigma > 0.0 ? 0 : e.img[k].evaluations;
    }
    hst__q_em_close(&e);
    return r;
}

HST__QDEF hst_result hst_error_map(hst_backend *be, const float *ref, size_t ref_rows,
                                   size_t ref_cols, const float *sr, size_t sr_rows,
                                   size_t sr_cols, const hst_error_map_desc *desc, float *map,
                                   hst_error_map_result *out) {
    hst_image_batch one;
    hst__q q;
    if (!be) return hst__null_arg(NULL, "hst_error_map", "be is NULL");
    hst__q_init(&q, be, "hst_error_map");
    if (!sr) return hst__null_arg(q.be, q.func, "sr must not be NULL");
    memset(&one, 0, sizeof one);
    one.host = &sr;
    return hst__q_error_maps(&q, ref, ref_rows, ref_cols, &one, 1, sr_rows, sr_cols, desc,
                             map ? &map : NULL, out);
}

HST__QDEF hst_result hst_error_map_batch(hst_backend *be, const float *ref, size_t ref_rows,
                                         size_t ref_cols, const hst_image_batch *sr, size_t count,
                                         size_t sr_rows, size_t sr_cols,
                                         const hst_error_map_desc *desc, float *const *maps,
                                         hst_error_map_result *out) {
    hst__q q;
    if (!be) return hst__null_arg(NULL, "hst_error_map_batch", "be is NULL");
    hst__q_init(&q, be, "hst_error_map_batch");
    q.batch = 1;
    return hst__q_error_maps(&q, ref, ref_rows, ref_cols, sr, count, sr_rows, sr_cols, desc, maps, out);
}

/* >>frc -------------------------------------------------------------------------------------- */
/* Solves the 4 x 4 (order + 1) normal equations m x = rhs in place (Gauss-Jordan with partial
   pivoting, double). */
static void hst__q_solve(double m[4][4], double rhs[4], int n) {
    int i, j, k;
    for (i = 0; i < n; i++) {
        int piv = i;
        for (k = i + 1; k < n; k++)
            if (fabs(m[k][i]) > fabs(m[piv][i])) piv = k;
        for (j = 0; j < n; j++) { double t = m[i][j]; m[i][j] = m[piv][j]; m[piv][j] = t; }
        { double t = rhs[i]; rhs[i] = rhs[piv]; rhs[piv] = t; }
        for (k = 0; k < n; k++) {
            double c;
            if (k == i || m[i][i] == 0.0) continue;
            c = m[k][i] / m[i][i];
            for (j = 0; j < n; j++) m[k][j] -= c * m[i][j];
            rhs[k] -= c * rhs[i];
        }
    }
    for (i = 0; i < n; i++) rhs[i] = m[i][i] != 0.0 ? rhs[i] / m[i][i] : 0.0;
}

/* Weights w[0..len) with sum_j w[j] x[j] = the least-squares polynomial of order
   HST__Q_SAVGOL_ORDER through (j, x[j]) evaluated at `at` (scipy's savgol_coeffs and
   _fit_edge are such weights). Positions are scaled by 1/len for conditioning. */
static void hst__q_savgol_weights(int len, double at, double *w) {
    double m[4][4] = {{0}}, e[4], s = 1.0 / len, p[4];
    int j, k, l, n = HST__Q_SAVGOL_ORDER + 1;
    for (j = 0; j < len; j++) {
        p[0] = 1.0;
        for (k = 1; k < n; k++) p[k] = p[k - 1] * (j * s);
        for (k = 0; k < n; k++)
            for (l = 0; l < n; l++) m[k][l] += p[k] * p[l];
    }
    e[0] = 1.0;
    for (k = 1; k < n; k++) e[k] = e[k - 1] * (at * s);
    hst__q_solve(m, e, n);   /* e = (A^T A)^-1 [1 at at^2 at^3] */
    for (j = 0; j < len; j++) {
        double v = 0.0, t = 1.0;
        for (k = 0; k < n; k++) { v += e[k] * t; t *= j * s; }
        w[j] = v;
    }
}

/* scipy.signal.savgol_filter(y, len, 3) with mode 'interp', in place on n floats: interior
   point i from the window [i - (len - 1) / 2, ..] evaluated at its position (len - 1) / 2
   (a half sample after i for even len, as scipy), the first and last len / 2 points from the
   polynomial through the first and last len points. */
static hst_result hst__q_savgol(const hst__q *q, float *y, int n, int len) {
    double *w = (double *)hst_backend_alloc(q->be, (size_t)(len + n) * sizeof(double));
    double *out;
    int i, j, a = (len - 1) / 2, half = len / 2;
    if (!w) return HST_ERROR_OUT_OF_HOST_MEMORY;
    out = w + len;
    hst__q_savgol_weights(len, (len - 1) / 2.0, w);
    for (i = half; i < n - half; i++) {
        double v = 0.0;
        for (j = 0; j < len; j++) v += w[j] * y[i - a + j];
        out[i] = v;
    }
    for (i = 0; i < half; i++) {
        double v = 0.0, u = 0.0;
        hst__q_savgol_weights(len, (double)i, w);
        for (j = 0; j < len; j++) v += w[j] * y[j];
        hst__q_savgol_weights(len, (double)(len - half + i), w);
        for (j = 0; j < len; j++) u += w[j] * y[n - len + j];
        out[i] = v;
        out[n - half + i] = u;
    }
    for (i = 0; i < n; i++) y[i] = (float)out[i];
    hst_backend_free(q->be, w);
    return HST_SUCCESS;
}

/* scipy.signal.windows.tukey(m, 0.25) rounded to float. */
static void hst__q_tukey(int m, float *w) {
    int width = (int)floor(HST__Q_FRC_TUKEY * (m - 1) / 2.0), n;
    for (n = 0; n < m; n++) {
        double v = 1.0;
        if (n <= width)
            v = 0.5 * (1 + cos(HST__Q_PI * (-1 + 2.0 * n / HST__Q_FRC_TUKEY / (m - 1))));
        else if (n >= m - width - 1)
            v = 0.5 * (1 + cos(HST__Q_PI * (-2.0 / HST__Q_FRC_TUKEY + 1 +
                                            2.0 * n / HST__Q_FRC_TUKEY / (m - 1))));
        w[n] = (float)v;
    }
}

HST__QDEF size_t hst_frc_curve_length(size_t rows, size_t cols) {
    size_t side = (rows < cols ? rows : cols) & ~(size_t)1;
    return side < HST__Q_FRC_MIN_SIDE ? 0 : side / 2 - 1;
}

/* FRC of a batch of pairs: the taper (tx (1, s), ty (s, 1)), the ring tables (count, step: the
   samples per ring and their angle step; nchunks per ring), the work arrays (img: one cropped
   image; f1, f2: a pair's spectra; part: the rings' chunk sums), and every pair's ring sums:
   ring[k] (max_r, 3) views of rings, `stride` bytes apart, read back once into hring. */
typedef struct hst__qfrc {
    hst__q *q;
    size_t count, stride;
    int s, max_r, nchunks;
    hst_array *tx, *ty, *img, *f1, *f2, *ac, *as, *part, *rings, **ring;
    float *hring;
} hst__qfrc;

/* The spectrum of the image in c->img times 2^-shift, tapered. */
static hst_result hst__q_frc_taper(hst__qfrc *c, int shift, hst_array *spec) {
    hst_result r = hst__q_scale(c->img, shift);
    if (r == HST_SUCCESS) r = hst_array_binary(c->img, c->img, c->tx, HST_BINARY_MUL);
    if (r == HST_SUCCESS) r = hst_array_binary(c->img, c->img, c->ty, HST_BINARY_MUL);
    if (r == HST_SUCCESS) r = hst_array_fft(spec, c->img, 2, 0, HST_FFT_NORM_BACKWARD);
    return r;
}

/* The spectrum of the centred even square of image k of src, tapered (NanoPyx's
   _make_even_square, then _get_squared_tapered_image: (img * taper_x) * taper_y in float, here
   broadcast on the device). A host image that is not square is checked whole on the host
   first (the device sees its square only); checked 0: the caller has checked the images. */
static hst_result hst__q_frc_spectrum(hst__qfrc *c, const char *name, const hst_image_batch *src,
                                      size_t k, size_t rows, size_t cols, int checked, hst_array *spec) {
    size_t s = (size_t)c->s;
    double mean;
    char what[64];
    hst_result r = HST_SUCCESS;
    if (src->host && (rows != s || cols != s))
        r = hst__q_finite(c->q, hst__q_name(c->q, name, k, what, sizeof what), src->host[k], rows * cols);
    if (r == HST_SUCCESS && checked) r = hst__q_copy_in(c->q, src, k, rows, cols, (rows - s) / 2, (cols - s) / 2, c->img);
    else if (r == HST_SUCCESS) r = hst__q_fetch(c->q, name, src, k, rows, cols, (rows - s) / 2, (cols - s) / 2, c->img, &mean);
    return r == HST_SUCCESS ? hst__q_frc_taper(c, 0, spec) : r;
}

/* The ring tables: count[r] samples at angles i step[r] (numpy.arange(0, 2 pi, 1 / r,
   float32)'s length), in chunks of HST__Q_FRC_CHUNK. */
static hst_result hst__q_frc_tables(hst__qfrc *c) {
    hst__q *q = c->q;
    int max_r = c->max_r, *count = (int *)hst_backend_alloc(q->be, (size_t)max_r * (sizeof(int) + sizeof(float)));
    float *step = (float *)(count + max_r), limit = (float)(2.0 * HST__Q_PI);
    int r, most = 0;
    size_t pshape[2], rshape[2];
    hst_result res;
    if (!count) return HST_ERROR_OUT_OF_HOST_MEMORY;
    count[0] = 0; step[0] = 0.0f;
    for (r = 1; r < max_r; r++) {
        step[r] = (float)(1.0 / r);
        count[r] = (int)ceil((double)limit / (double)step[r]);
        if (count[r] > most) most = count[r];
    }
    c->nchunks = (most + HST__Q_FRC_CHUNK - 1) / HST__Q_FRC_CHUNK;
    pshape[0] = (size_t)max_r * c->nchunks; pshape[1] = 3;
    rshape[0] = (size_t)max_r; rshape[1] = 3;
    res = hst_array_from_host(q->be, HST_I32, 1, rshape, count, &c->ac);
    if (res == HST_SUCCESS) res = hst_array_from_host(q->be, HST_F32, 1, rshape, step, &c->as);
    hst_backend_free(q->be, count);
    if (res == HST_SUCCESS) res = hst_array_create(q->be, HST_F32, 2, pshape, &c->part);
    return res;
}

/* Ring sums (Re F1 F2*, |F1|^2, |F2|^2) of f1, f2 for r < max_r into ring (max_r, 3). */
static hst_result hst__q_frc_rings(hst__qfrc *c, hst_array *ring) {
    hst_karg a[9] = {hst__q_buf(c->f1), hst__q_buf(c->f2), hst__q_buf(c->ac), hst__q_buf(c->as),
                     hst__q_buf(c->part), hst_karg_int(c->s), hst_karg_int(c->max_r),
                     hst_karg_int(HST__Q_FRC_CHUNK), hst_karg_int(c->nchunks)};
    hst_karg b[4] = {hst__q_buf(c->part), hst__q_buf(ring), hst_karg_int(c->max_r), hst_karg_int(c->nchunks)};
    hst_launch_desc partial = hst__q_desc(c->q, HST_KQUALITY_FRC_PARTIAL, a, 9, 2, (size_t)c->nchunks,
                                          (size_t)c->max_r);
    hst_launch_desc rings = hst__q_desc(c->q, HST_KQUALITY_FRC_RINGS, b, 4, 1, (size_t)c->max_r, 0);
    hst_result res = hst_launch_kernel(c->q->be, &partial, NULL);
    return res == HST_SUCCESS ? hst_launch_kernel(c->q->be, &rings, NULL) : res;
}

/* NanoPyx's _get_intersections: the first crossing of the threshold t, as its px. Returns 0
   when there is none. */
static float hst__q_first_crossing(const float *freq, const float *frc, int n, float t) {
    int i;
    for (i = 1; i < n; i++) {
        float y1 = frc[i - 1], y2 = frc[i], x1 = freq[i - 1], x2 = freq[i];
        float x1_x2 = x1 - x2, y1_y2 = y1 - y2, den;
        if (!((t >= y1 && t < y2) || (y1 >= t && y2 < t))) continue;
        den = x1_x2 * 0.0f - y1_y2 * x1_x2;   /* the threshold is flat: y3 - y4 = 0 */
        if (den == 0.0f) {
            if (y1 == t) return x1;
            continue;
        }
        return ((x1 * y2 - y1 * x2) * x1_x2 - x1_x2 * (x1 * t - t * x2)) / den;
    }
    return 0.0f;
}


static hst_result hst__q_frc_check(hst__q *q, const hst_image_batch *a, const hst_image_batch *b,
                                   size_t count, size_t rows, size_t cols, const hst_frc_desc *d,
                                   const hst_frc_result *out) {
    size_t n;
    hst_result r;
    if (!out) return hst__null_arg(q->be, q->func, "out must not be NULL");
    if (!rows || !cols) return hst__zero_arg(q->be, q->func, "rows and cols must be >= 10, not 0");
    if (rows < HST__Q_FRC_MIN_SIDE || cols < HST__Q_FRC_MIN_SIDE)
        return hst__range_arg(q->be, q->func, "rows and cols must be >= 10");
    if ((r = hst__q_pixel_size(q, d->pixel_size)) != HST_SUCCESS) return r;
    if ((r = hst__q_count(q, rows, cols, &n)) != HST_SUCCESS ||
        (r = hst__q_batch_check(q, "a", a, count, rows, cols)) != HST_SUCCESS ||
        (r = hst__q_batch_check(q, "b", b, count, rows, cols)) != HST_SUCCESS)
        return r;
    if (count > SIZE_MAX / 8 / (hst__q_stride(q, hst_frc_curve_length(rows, cols) * 3 * sizeof(float)) + 1)) {
        hst_backend_log(q->be, HST_LOG_ERROR, HST_LOGITEM_SIZE_OVERFLOW,
                        "%s: %zu pairs of %zu x %zu are too many", q->func, count, rows, cols);
        return HST_ERROR_OVERFLOW;
    }
    return HST_SUCCESS;   /* a and b are checked as they go up */
}

/* The curve (frequency in cycles per pixel, FRC) from the ring sums, smoothed. freq and frc
   hold max_r floats. In pixels whatever the pixel size, so that the crossing's products of
   frequencies stay normal floats (hst__q_frc_result scales the results). */
static hst_result hst__q_frc_curve(const hst__q *q, const float *ring, int max_r, float *freq,
                                   float *frc) {
    float stop = 0.5f;
    double step = (double)stop / (max_r - 1);
    int r, len = (int)(HST__Q_FRC_SAVGOL * max_r);
    if (HST__Q_SAVGOL_ORDER >= len) len = HST__Q_SAVGOL_ORDER + 1;
    for (r = 0; r < max_r; r++) freq[r] = r == max_r - 1 ? stop : (float)(r * step);
    frc[0] = 1.0f;
    /* the product in double: NanoPyx's float product overflows past 1.8e19 per ring sum */
    for (r = 1; r < max_r; r++)
        frc[r] = (float)((double)ring[3 * r] / sqrt((double)ring[3 * r + 1] * ring[3 * r + 2]));
    return hst__q_savgol(q, frc, max_r, len);
}

/* The taper, the tables and the arrays of a batch (see hst__qfrc). */
static hst_result hst__q_frc_open(hst__qfrc *c, size_t count, size_t rows, size_t cols) {
    hst__q *q = c->q;
    size_t hshape[2], tshape[2], s;
    float *taper;
    hst_result r;
    c->count = count;
    c->max_r = (int)hst_frc_curve_length(rows, cols);
    c->s = 2 * (c->max_r + 1);
    s = (size_t)c->s;
    c->stride = hst__q_stride(q, (size_t)c->max_r * 3 * sizeof(float));
    hshape[0] = s; hshape[1] = s / 2 + 1;
    if (!(taper = (float *)hst_backend_alloc(q->be, s * sizeof(float))) ||
        !(c->ring = (hst_array **)hst_backend_calloc(q->be, count * sizeof *c->ring)) ||
        !(c->hring = (float *)hst_backend_alloc(q->be, count * c->stride))) {
        if (taper) hst_backend_free(q->be, taper);
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    hst__q_tukey(c->s, taper);
    tshape[0] = 1; tshape[1] = s;
    r = hst_array_from_host(q->be, HST_F32, 2, tshape, taper, &c->tx);
    tshape[0] = s; tshape[1] = 1;
    if (r == HST_SUCCESS) r = hst_array_from_host(q->be, HST_F32, 2, tshape, taper, &c->ty);
    hst_backend_free(q->be, taper);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, s, s, NULL, &c->img);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, hshape, &c->f1);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, hshape, &c->f2);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, count, c->stride / sizeof(float), NULL, &c->rings);
    if (r == HST_SUCCESS) r = hst__q_views(c->rings, count, c->stride, (size_t)c->max_r, 3, c->ring);
    if (r == HST_SUCCESS) r = hst__q_frc_tables(c);
    return r;
}

static void hst__q_frc_close(hst__qfrc *c) {
    const hst_backend *be = c->q->be;
    size_t k;
    if (c->ring) {
        for (k = 0; k < c->count; k++) hst_array_destroy(c->ring[k]);
        hst_backend_free(be, c->ring);
    }
    hst_array_destroy(c->tx); hst_array_destroy(c->ty); hst_array_destroy(c->img);
    hst_array_destroy(c->f1); hst_array_destroy(c->f2); hst_array_destroy(c->ac);
    hst_array_destroy(c->as); hst_array_destroy(c->part); hst_array_destroy(c->rings);
    if (c->hring) hst_backend_free(be, c->hring);
}

/* The first ring r >= 1 where image j (0: a, 1: b) of pair k has no power (an all-zero image:
   its FRC is 0 / 0 there), or 0 where every ring has some. */
static int hst__q_frc_empty_ring(const hst__qfrc *c, size_t k, int j) {
    const float *ring = c->hring + k * (c->stride / sizeof(float));
    int i;
    for (i = 1; i < c->max_r; i++)
        if (ring[3 * i + 1 + j] == 0.0f) return i;
    return 0;
}

/* Pair k's curve and FIRE from its ring sums (hring), in pixel_size units (ps); NaN where an
   image has a ring without power (the FRC is undefined there), with a warning naming it. */
static hst_result hst__q_frc_result(hst__qfrc *c, size_t k, double ps, float *curve,
                                    hst_frc_result *out) {
    static const char *const names[2] = {"a", "b"};
    int max_r = c->max_r, i, j, empty = 0;
    float *freq = (float *)hst_backend_alloc(c->q->be, 2 * (size_t)max_r * sizeof(float)), *frc, x;
    char what[64];
    hst_result r;
    if (!freq) return HST_ERROR_OUT_OF_HOST_MEMORY;
    frc = freq + max_r;
    r = hst__q_frc_curve(c->q, c->hring + k * (c->stride / sizeof(float)), max_r, freq, frc);
    for (j = 0; j < 2 && r == HST_SUCCESS && !empty; j++)
        if ((empty = hst__q_frc_empty_ring(c, k, j)) != 0)
            hst_backend_log(c->q->be, HST_LOG_WARN, HST_LOGITEM_NONE,
                            "%s: %s has no power at ring %d (all zeros?): the FRC is undefined there; "
                            "resolution NaN", c->q->func, hst__q_name(c->q, names[j], k, what, sizeof what), empty);
    if (r == HST_SUCCESS) {
        x = hst__q_first_crossing(freq, frc, max_r, HST__Q_FRC_THRESHOLD);
        out->resolution = empty ? (double)NAN : x != 0.0f ? (double)(1.0f / x) * ps : 0.0;
        out->curve_length = (size_t)max_r;
        if (curve)
            for (i = 0; i < max_r; i++) { curve[2 * i] = (float)(freq[i] / ps); curve[2 * i + 1] = frc[i]; }
    }
    hst_backend_free(c->q->be, freq);
    return r;
}

/* 1: every image of src is a device buffer's range that can be an array view (offsets at the
   device's base address alignment). */
static int hst__q_viewable(const hst__q *q, const hst_image_batch *src) {
    size_t align = hst__q_stride(q, 1);
    return !src->host && src->offset_bytes % align == 0 && src->stride_bytes % align == 0;
}

/* Whole square images in device buffers, every pair's a and b, checked in place with one wait
   (views of the buffers, in the order the pairs' spectra take them). */
static hst_result hst__q_frc_check_device(hst__qfrc *c, const hst_image_batch *a, const hst_image_batch *b) {
    static const char *const names[2] = {"a", "b"};
    size_t k, s = (size_t)c->s, shape[2];
    hst_array **v = (hst_array **)hst_backend_calloc(c->q->be, 2 * c->count * sizeof *v);
    hst_result r = v ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
    shape[0] = shape[1] = s;
    for (k = 0; k < 2 * c->count && r == HST_SUCCESS; k++) {
        const hst_image_batch *src = k % 2 ? b : a;
        r = hst_array_view(src->buf, src->offset_bytes + k / 2 * src->stride_bytes, HST_F32, 2, shape, &v[k]);
    }
    if (r == HST_SUCCESS) r = hst__q_check_all(c->q, names, 2, v, 2 * c->count, NULL);
    for (k = 0; v && k < 2 * c->count; k++) hst_array_destroy(v[k]);
    if (v) hst_backend_free(c->q->be, v);
    return r;
}

/* 1: pair k's ring sums (hring) are finite, and each image's strongest ring holds at least
   2^-60 (HST__Q_RING_EXP). *over: a sum is not finite. */
static int hst__q_frc_rings_ok(const hst__qfrc *c, size_t k, int *over) {
    const float *ring = c->hring + k * (c->stride / sizeof(float));
    double p[2] = {0.0, 0.0};
    int i, j;
    *over = 0;
    for (i = 1; i < c->max_r; i++)
        for (j = 0; j < 3; j++) {
            double v = ring[3 * i + j];
            if (!isfinite(v)) *over = 1;
            else if (j && v > p[j - 1]) p[j - 1] = v;
        }
    return !*over && p[0] >= ldexp(1.0, HST__Q_RING_EXP) && p[1] >= ldexp(1.0, HST__Q_RING_EXP);
}

/* Pair k whose ring sums leave hst__q_frc_rings_ok: each image's largest |pixel| (its even
   square's) decides (hst__q_shift); where one is to be scaled, the pair's spectra and ring sums
   again, with its images times 2^-shift (FRC does not change with either image's scale), and
   its sums read back again. */
static hst_result hst__q_frc_rescale(hst__qfrc *c, const hst_image_batch *a, const hst_image_batch *b,
                                     size_t k, size_t rows, size_t cols) {
    static const char *const names[2] = {"a", "b"};
    const hst_image_batch *src[2];
    hst_array *spec[2];
    size_t s = (size_t)c->s, y0 = (rows - s) / 2, x0 = (cols - s) / 2;
    int over, shift[2] = {0, 0}, j;
    double amax = 0.0;
    char what[64];
    hst_result r = HST_SUCCESS;
    if (hst__q_frc_rings_ok(c, k, &over)) return HST_SUCCESS;
    src[0] = a; src[1] = b; spec[0] = c->f1; spec[1] = c->f2;
    for (j = 0; j < 2 && r == HST_SUCCESS; j++) {
        r = hst__q_copy_in(c->q, src[j], k, rows, cols, y0, x0, c->img);
        if (r == HST_SUCCESS) r = hst__q_absmax(c->img, &amax);
        if (r == HST_SUCCESS) shift[j] = hst__q_shift(amax, over);
    }
    if (r != HST_SUCCESS) return r;
    if (!shift[0] && !shift[1])
        return over ? hst__q_overflowed(c->q, hst__q_name(c->q, "a", k, what, sizeof what)) : HST_SUCCESS;
    for (j = 0; j < 2 && r == HST_SUCCESS; j++) {
        r = hst__q_copy_in(c->q, src[j], k, rows, cols, y0, x0, c->img);
        if (r == HST_SUCCESS) r = hst__q_frc_taper(c, shift[j], spec[j]);
        if (r == HST_SUCCESS && shift[j])
            hst__q_log_scale(c->q, hst__q_name(c->q, names[j], k, what, sizeof what), shift[j], over);
    }
    if (r == HST_SUCCESS) r = hst__q_frc_rings(c, c->ring[k]);
    if (r == HST_SUCCESS)
        r = hst_array_read(c->ring[k], c->hring + k * (c->stride / sizeof(float)), (size_t)c->max_r * 3 * sizeof(float));
    if (r != HST_SUCCESS) return r;
    (void)hst__q_frc_rings_ok(c, k, &over);
    return over ? hst__q_overflowed(c->q, hst__q_name(c->q, "a", k, what, sizeof what)) : HST_SUCCESS;
}

/* hst_frc_batch's body (hst_frc: a batch of one): each pair's spectra and ring sums on the
   device, every pair's sums read back in one copy, the curves on the host; a pair whose sums
   leave float's range computed again, scaled (hst__q_frc_rescale). */
static hst_result hst__q_frcs(hst__q *q, const hst_image_batch *a, const hst_image_batch *b,
                              size_t count, size_t rows, size_t cols, const hst_frc_desc *desc,
                              float *const *curves, hst_frc_result *out) {
    hst_frc_desc zero;
    const hst_frc_desc *d = desc ? desc : &zero;
    hst__qfrc c;
    double ps;
    size_t k;
    int checked;
    hst_result r;
    memset(&zero, 0, sizeof zero);
    if ((r = hst__q_frc_check(q, a, b, count, rows, cols, d, out)) != HST_SUCCESS ||
        (r = hst__q_cancelled(q)) != HST_SUCCESS)
        return r;
    memset(out, 0, count * sizeof *out);
    memset(&c, 0, sizeof c);
    c.q = q;
    ps = d->pixel_size > 0.0 ? d->pixel_size : 1.0;
    r = hst__q_frc_open(&c, count, rows, cols);
    checked = hst__q_viewable(q, a) && hst__q_viewable(q, b) && rows == (size_t)c.s && cols == (size_t)c.s;
    if (r == HST_SUCCESS && checked) r = hst__q_frc_check_device(&c, a, b);
    for (k = 0; k < count && r == HST_SUCCESS; k++) {
        if ((r = hst__q_cancelled(q)) != HST_SUCCESS) break;
        r = hst__q_frc_spectrum(&c, "a", a, k, rows, cols, checked, c.f1);
        if (r == HST_SUCCESS) r = hst__q_frc_spectrum(&c, "b", b, k, rows, cols, checked, c.f2);
        if (r == HST_SUCCESS) r = hst__q_frc_rings(&c, c.ring[k]);
    }
    if (r == HST_SUCCESS) r = hst_array_read(c.rings, c.hring, count * c.stride);
    for (k = 0; k < count && r == HST_SUCCESS; k++)
        if ((r = hst__q_cancelled(q)) == HST_SUCCESS) r = hst__q_frc_rescale(&c, a, b, k, rows, cols);
    for (k = 0; k < count && r == HST_SUCCESS; k++)
        r = hst__q_frc_result(&c, k, ps, curves ? curves[k] : NULL, &out[k]);
    hst__q_frc_close(&c);
    return r;
}

HST__QDEF hst_result hst_frc(hst_backend *be, const float *a, const float *b, size_t rows,
                             size_t cols, const hst_frc_desc *desc, float *curve,
                             hst_frc_result *out) {
    hst_image_batch ia, ib;
    hst__q q;
    if (!be) return hst__null_arg(NULL, "hst_frc", "be is NULL");
    hst__q_init(&q, be, "hst_frc");
    if (!a || !b) return hst__null_arg(q.be, q.func, "a, b and out must not be NULL");
    memset(&ia, 0, sizeof ia); memset(&ib, 0, sizeof ib);
    ia.host = &a; ib.host = &b;
    return hst__q_frcs(&q, &ia, &ib, 1, rows, cols, desc, curve ? &curve : NULL, out);
}

HST__QDEF hst_result hst_frc_batch(hst_backend *be, const hst_image_batch *a,
                                   const hst_image_batch *b, size_t count, size_t rows,
                                   size_t cols, const hst_frc_desc *desc, float *const *curves,
                                   hst_frc_result *out) {
    hst__q q;
    if (!be) return hst__null_arg(NULL, "hst_frc_batch", "be is NULL");
    hst__q_init(&q, be, "hst_frc_batch");
    q.batch = 1;
    return hst__q_frcs(&q, a, b, count, rows, cols, desc, curves, out);
}

/* >>decorrelation ---------------------------------------------------------------------------- */
/* A decorrelation: the padded image img and its spectrum spec0 (made once), a high-pass
   image's spectrum spec (per filter), the curves' column sums part and norm and their host
   copies. A wide filter's spectrum is spec0 times its gains: hg (n (h, g) float pairs, as
   hst_k_quality_decorr_highpass takes them) made on the host from the filter's taps (taps:
   room for 2 R + 1 of them, wtaps floats) folded onto one period (fold, n / 2 + 1 doubles) with
   the table cosn[m] = cos(2 pi m / n); a narrow one's is the FFT of img - G_sigma(img) made in
   space (blur, tmp: HST__Q_DECORR_SPACE_RADIUS). */
typedef struct hst__qdec {
    hst__q *q;
    int n, nr, ng;               /* padded side, curve samples, filters per round */
    float rmin, rmax;
    hst_array *img, *blur, *tmp, *spec0, *spec, *hg, *part, *norm;
    float *hpart, *hnorm;        /* host copies of part (n x 2 nr) and norm (n) */
    float *taps, *hhg;           /* the filter's taps; hg's host copy (2 n floats) */
    size_t wtaps;
    double *cosn, *fold;
} hst__qdec;

/* NanoPyx's _apodize_edges: a cosine ramp over the 20-pixel border towards the mean of the
   pixels beyond the circle of radius width / 2 - 20. In place on (h, w). */
static void hst__q_apodize(float *p, int h, int w) {
    float radius = (float)(w / 2.0 - HST__Q_DECORR_APODIZE), mean;
    double sum = 0.0;
    long count = 0;
    int x, y;
    for (x = 0; x < w; x++)
        for (y = 0; y < h; y++) {
            float dist = (float)((y - h / 2.0) * (y - h / 2.0) + (x - w / 2.0) * (x - w / 2.0));
            if (dist > radius * radius) { sum += p[(size_t)y * w + x]; count++; }
        }
    mean = count ? (float)(sum / (double)count) : 0.0f;
    for (x = 0; x < w; x++)
        for (y = 0; y < h; y++) {
            float x0 = (float)fabs(x - w / 2.0), y0 = (float)fabs(y - h / 2.0);
            float dx = (float)fabs(x0 - w / 2.0), dy = (float)fabs(y0 - h / 2.0);
            if (dx <= HST__Q_DECORR_APODIZE || dy <= HST__Q_DECORR_APODIZE) {
                double d = dx < dy ? dx : dy;
                double c = (cos(d * HST__Q_PI / HST__Q_DECORR_APODIZE - HST__Q_PI) + 1) / 2;
                float *v = &p[(size_t)y * w + x];
                *v = (float)(c * (*v - mean)) + mean;
            }
        }
}

/* NanoPyx's _get_preprocessed_image: an N x N square (N the next power of two of the larger
   side), filled with the first pixel, the image at rows 0 .. h - 1 and columns ox .. (its loop
   starts the rows at 0, not at the centring offset). Returns the backend allocator's memory. */
static int hst__q_pow2_side(int h, int w) {
    int big = h > w ? h : w;
    return (int)pow(2.0, ceil(log((double)big) / log(2.0)));
}

static float *hst__q_pad_pow2(const hst__q *q, const float *img, int h, int w, int *n_out) {
    int n = hst__q_pow2_side(h, w);
    int ox = (n - w) / 2, x, y;
    size_t i;
    float *out = (float *)hst_backend_alloc(q->be, (size_t)n * n * sizeof(float));
    if (!out) return NULL;
    for (i = 0; i < (size_t)n * n; i++) out[i] = img[0];
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) out[(size_t)y * n + ox + x] = img[(size_t)y * w + x];
    *n_out = n;
    return out;
}

/* d(k), k < nr, of the spectrum spec with ring range [crmin, crmax] (NanoPyx's _compute_d0 /
   the inner loop of _compute_d: cumulative ring sums over the norm). */
static hst_result hst__q_dcurve(hst__qdec *dd, const hst_array *spec, float crmin, float crmax,
                                int zero_dc, float *d) {
    hst__q *q = dd->q;
    int n = dd->n, nr = dd->nr, ox = (int)(n * (1 - crmax) / 2), oy = ox, w = (int)(n * crmax);
    int h = w, k, x;
    double cr = 0.0, dsum = 0.0, csum = 0.0, coef[2 * HST_DECORR_MAX_NR];
    float crf;
    hst_karg a[12] = {hst__q_buf(spec), hst__q_buf(dd->part), hst__q_buf(dd->norm), hst_karg_int(n),
                      hst_karg_int(nr), hst_karg_float(crmin), hst_karg_float(crmax), hst_karg_int(ox),
                      hst_karg_int(w), hst_karg_int(oy), hst_karg_int(h), hst_karg_int(zero_dc)};
    hst_launch_desc desc = hst__q_desc(q, HST_KQUALITY_DECORR_COLS, a, 12, 1, (size_t)n, 0);
    hst_result r = hst_launch_kernel(q->be, &desc, NULL);
    if (r == HST_SUCCESS) r = hst_array_read(dd->part, dd->hpart, (size_t)n * 2 * nr * sizeof(float));
    if (r == HST_SUCCESS) r = hst_array_read(dd->norm, dd->hnorm, (size_t)n * sizeof(float));
    if (r != HST_SUCCESS) return r;
    for (k = 0; k < 2 * nr; k++) coef[k] = 0.0;
    for (x = 0; x < n; x++) {
        cr += dd->hnorm[x];
        for (k = 0; k < 2 * nr; k++) coef[k] += dd->hpart[(size_t)x * 2 * nr + k];
    }
    crf = (float)sqrt(cr);
    for (k = 0; k < nr; k++) {
        dsum += coef[k];
        csum += coef[k + nr];
        d[k] = (crf == 0.0f || csum == 0.0) ? NAN : (float)(sqrt(2.0) * dsum / (crf * sqrt(csum)));
    }
    if (isnan(d[0])) d[0] = 0.0f;
    return HST_SUCCESS;
}

/* NanoPyx's _get_max / _get_min over [x1, x2): out = (index, value), first extreme. */
static void hst__q_extreme(const float *v, int x1, int x2, int want_max, float out[2]) {
    int k;
    out[0] = (float)x1; out[1] = v[x1];
    for (k = x1; k < x2; k++)
        if (want_max ? v[k] > out[1] : v[k] < out[1]) { out[0] = (float)k; out[1] = v[k]; }
}

/* NanoPyx's _get_d_corr_max: the curve's last local maximum (a maximum at the end is dropped
   until one stands more than 0.001 above what follows), as (frequency in [r1, r2], value). */
static void hst__q_dcorr_max(const float *d, int nr, float r1, float r2, float out[2]) {
    float t[HST_DECORR_MAX_NR], mn[2];
    int len = nr;
    memcpy(t, d, (size_t)nr * sizeof(float));
    hst__q_extreme(d, 0, nr, 1, out);
    while (out[0] == (float)(len - 1)) {
        t[len - 1] = 0.0f;
        len--;
        if (len == 0) { out[0] = 0.0f; out[1] = 0.0f; break; }
        hst__q_extreme(t, 0, nr, 1, out);
        hst__q_extreme(t, (int)out[0], len - 1, 0, mn);
        if (t[(int)out[0]] - mn[1] > HST__Q_DECORR_DT) break;
        t[(int)out[0]] = mn[1];
        out[0] = (float)(len - 1);
    }
    out[0] = r1 + (r2 - r1) * out[0] / (float)(nr - 1);
}

/* NanoPyx's _get_best_score (by kc * A, gm = 1) and _get_max_score (by kc): (kc, A, index). */
static void hst__q_best(const float *kc, const float *a, int n, int gm, float out[3]) {
    float best = 0.0f;
    int k;
    out[0] = out[1] = out[2] = 0.0f;
    for (k = 0; k < n; k++) {
        float s = gm ? kc[k] * a[k] : kc[k];
        if (s > best) { best = s; out[0] = kc[k]; out[1] = a[k]; out[2] = (float)k; }
    }
}

/* The gains of G_sigma (scipy's taps w_j, hst__q_gauss_weights) as a periodic filter of
   period n: g(k) = sum_j w_j cos(2 pi k j / n) in double, the taps folded onto one period first
   (fold[t] = the sum of w_j over j = +-t mod n, t <= n / 2: a radius of up to 2 n costs at
   most n / 2 + 1 terms per frequency), into hhg as (1 - g, g) float pairs for k < n
   (g(n - k) = g(k)), then up to hg. radius: sigma's (hst__q_radius), at least 1. */
static hst_result hst__q_decorr_gains(hst__qdec *dd, double sigma, int radius) {
    hst__q *q = dd->q;
    int n = dd->n, half = n / 2, tmax, j, k, t, m;
    if ((size_t)radius * 2 + 1 > dd->wtaps) {
        size_t room = (size_t)radius * 4 + 1;   /* twice the taps: the sigmas grow a few times */
        if (dd->taps) hst_backend_free(q->be, dd->taps);
        dd->wtaps = 0;
        if (!(dd->taps = (float *)hst_backend_alloc(q->be, room * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        dd->wtaps = room;
    }
    for (t = 0; t <= half; t++) dd->fold[t] = 0.0;
    (void)hst__q_gauss_weights(sigma, dd->taps);
    for (j = -radius; j <= radius; j++) {
        m = ((j % n) + n) % n;
        dd->fold[m <= half ? m : n - m] += (double)dd->taps[j + radius];
    }
    tmax = radius < half ? radius : half;
    for (k = 0; k <= half; k++) {
        double g = 0.0;
        for (t = 0, m = 0; t <= tmax; t++) {
            g += dd->fold[t] * dd->cosn[m];
            m += k;
            if (m >= n) m -= n;
        }
        dd->hhg[2 * k] = (float)(1.0 - g);
        dd->hhg[2 * k + 1] = (float)g;
        if (k > 0 && k < half) {
            dd->hhg[2 * (n - k)] = dd->hhg[2 * k];
            dd->hhg[2 * (n - k) + 1] = dd->hhg[2 * k + 1];
        }
    }
    return hst_array_write(dd->hg, dd->hhg, 2 * (size_t)n * sizeof(float));
}

/* A narrow filter's high-pass spectrum into spec, as NanoPyx makes the image: img - G_sigma(img)
   in space (3 taps), then an FFT; a single tap (sigma < 0.125) is 1, the image itself: the
   high-pass is exactly 0, with no blur or FFT. */
static hst_result hst__q_highpass_space(hst__qdec *dd, double sigma, int radius) {
    hst_result r;
    if (radius == 0) return hst_array_fill(dd->spec, hst_real(0.0));
    r = hst__q_blur(dd->q, dd->blur, dd->img, dd->tmp, sigma);
    if (r == HST_SUCCESS) r = hst_array_binary(dd->blur, dd->img, dd->blur, HST_BINARY_SUB);
    return r == HST_SUCCESS ? hst_array_fft(dd->spec, dd->blur, 2, 0, HST_FFT_NORM_BACKWARD) : r;
}

/* A wide filter's high-pass spectrum into spec: spec0 (1 - g(ky) g(kx)) (hst__q_decorr_gains:
   the blur as a periodic filter, diagonal in the DFT): one pass, no FFT, for any sigma. */
static hst_result hst__q_highpass_fourier(hst__qdec *dd, double sigma, int radius) {
    hst_karg a[4] = {hst__q_buf(dd->spec0), hst__q_buf(dd->spec), hst__q_buf(dd->hg), hst_karg_int(dd->n)};
    hst_launch_desc d = hst__q_desc(dd->q, HST_KQUALITY_DECORR_HIGHPASS, a, 4, 2, (size_t)dd->n / 2 + 1, (size_t)dd->n);
    hst_result r = hst__q_decorr_gains(dd, sigma, radius);
    return r == HST_SUCCESS ? hst_launch_kernel(dd->q->be, &d, NULL) : r;
}

/* One high-pass image's curve: d over [crmin, crmax] of the spectrum of img - G_sigma(img),
   made in space up to HST__Q_DECORR_SPACE_RADIUS taps a side, else in the Fourier domain. */
static hst_result hst__q_highpass_curve(hst__qdec *dd, double sigma, float crmin, float crmax,
                                        float *d) {
    int radius = hst__q_radius(sigma);
    hst_result r;
    if (radius < 0) return hst__range_arg(dd->q->be, dd->q->func, "a high-pass filter's sigma is too large");
    r = radius <= HST__Q_DECORR_SPACE_RADIUS ? hst__q_highpass_space(dd, sigma, radius)
                                              : hst__q_highpass_fourier(dd, sigma, radius);
    return r == HST_SUCCESS ? hst__q_dcurve(dd, dd->spec, crmin, crmax, 0, d) : r;
}

/* NanoPyx's _compute_d after d0: two rounds of num_highpass high-pass curves. */
static hst_result hst__q_decorr_rounds(hst__qdec *dd, const float *d0, float kc0,
                                       hst_decorr_result *out) {
    int ng = dd->ng, nr = dd->nr, refine, k;
    float gmax = kc0 == 0.0f ? (float)(dd->n / 2.0) : 2.0f / kc0, gmin = HST__Q_DECORR_G_MIN;
    float crmin = dd->rmin, crmax = dd->rmax, kc[HST_DECORR_MAX_NG + 1], a[HST_DECORR_MAX_NG + 1];
    float d[HST_DECORR_MAX_NR], res[2], gm[3], mx[3];
    hst_result r = HST_SUCCESS;
    for (refine = 0; refine < 2 && r == HST_SUCCESS; refine++) {
        for (k = 0; k < ng && r == HST_SUCCESS; k++) {
            double sig = exp(log((double)gmin) + (log((double)gmax) - log((double)gmin)) *
                                                     (double)((float)k / (float)(ng - 1)));
            if ((r = hst__q_cancelled(dd->q)) != HST_SUCCESS ||
                (r = hst__q_highpass_curve(dd, sig, crmin, crmax, d)) != HST_SUCCESS)
                break;
            hst__q_dcorr_max(d, nr, crmin, crmax, res);
            kc[k] = res[0]; a[k] = res[1];
        }
        if (r != HST_SUCCESS) break;
        if (refine == 0) {
            float ind1, ind2;
            hst__q_dcorr_max(d0, nr, crmin, crmax, res);
            kc[ng] = res[0]; a[ng] = res[1];
            hst__q_best(kc, a, ng + 1, 1, gm);
            hst__q_best(kc, a, ng + 1, 0, mx);
            crmin = fminf(gm[0], mx[0]) - 0.05f;
            if (crmin < dd->rmin) crmin = dd->rmin;
            crmax = fmaxf(gm[0], mx[0]) + 0.3f;
            if (crmax > dd->rmax) crmax = dd->rmax;
            ind1 = fminf(gm[2], mx[2]) - 1; ind2 = fmaxf(gm[2], mx[2]);
            if (ind2 < (float)ng) {
                double lmin = log((double)gmin), lmax = log((double)gmax);
                double gtemp = exp(lmin + (lmax - lmin) * (double)(ind1 / (float)(ng - 1)));
                gmax = (float)exp(lmin + (lmax - lmin) * (double)(ind2 / (float)(ng - 1)));
                gmin = (float)gtemp;
            } else {
                gmax = gmin;
                gmin = (float)(2.0 / dd->n);
            }
        } else {
            hst__q_best(kc, a, ng, 1, gm);
            hst__q_best(kc, a, ng, 0, mx);
            out->kc_gm = gm[0]; out->a_gm = gm[1];
            out->kc_max = mx[0]; out->a_max = mx[1];
        }
    }
    return r;
}

static hst_result hst__q_decorr_check(hst__q *q, const float *img, size_t rows, size_t cols,
                                      const hst_decorr_desc *d, const hst_decorr_result *out) {
    size_t n;
    hst_result r;
    const size_t *roi = d->roi;
    double rmax = d->rmax == 0.0 ? 1.0 : d->rmax;
    if (!img || !out) return hst__null_arg(q->be, q->func, "img and out must not be NULL");
    if (!rows || !cols) return hst__zero_arg(q->be, q->func, "rows and cols must be >= 2, not 0");
    if (rows < 2 || cols < 2) return hst__range_arg(q->be, q->func, "rows and cols must be >= 2");
    if (!(d->rmin >= 0.0) || !(rmax <= 1.0) || !(d->rmin < rmax))
        return hst__range_arg(q->be, q->func, "desc needs 0 <= rmin < rmax <= 1");
    if (d->num_radii == 1 || d->num_radii > HST_DECORR_MAX_NR)
        return hst__range_arg(q->be, q->func, "desc->num_radii %u (NanoPyx's n_r): 2 .. HST_DECORR_MAX_NR (%d), "
                              "or 0 for 50", d->num_radii, HST_DECORR_MAX_NR);
    if (d->num_highpass == 1 || d->num_highpass > HST_DECORR_MAX_NG)
        return hst__range_arg(q->be, q->func, "desc->num_highpass %u (NanoPyx's n_g): 2 .. HST_DECORR_MAX_NG (%d), "
                              "or 0 for 10", d->num_highpass, HST_DECORR_MAX_NG);
    if ((r = hst__q_pixel_size(q, d->pixel_size)) != HST_SUCCESS) return r;
    if (!(roi[0] == roi[2] && roi[1] == roi[3] && roi[0] == roi[1]) &&
        (roi[0] >= roi[2] || roi[1] >= roi[3] || roi[2] > cols || roi[3] > rows ||
         roi[2] - roi[0] < 2 || roi[3] - roi[1] < 2))
        return hst__range_arg(q->be, q->func, "desc->roi must be {x0, y0, x1, y1} inside the image, 2 pixels at least");
    if ((r = hst__q_count(q, rows, cols, &n)) != HST_SUCCESS) return r;
    return hst__q_finite(q, "img", img, n);
}

/* The analysed image: the ROI (or all), times 2^-e where its largest |pixel| or its padded
   spectrum would leave the float sums' range (HST__Q_SCALE_EXP, HST__Q_FFT_EXP; the curves do not
   change with the image's scale), apodised, padded (dd->n), its spectrum spec0; the arrays and
   host memory of the curves. */
static hst_result hst__q_decorr_setup(hst__qdec *dd, const float *img, size_t rows, size_t cols,
                                      const size_t *roi) {
    hst__q *q = dd->q;
    int whole = roi[0] == roi[2] && roi[1] == roi[3] && roi[0] == roi[1];
    size_t x0 = whole ? 0 : roi[0], y0 = whole ? 0 : roi[1];
    size_t w = whole ? cols : roi[2] - roi[0], h = whole ? rows : roi[3] - roi[1], y, n;
    size_t half[2];
    double side, amax;
    int over, shift;
    float *crop = (float *)hst_backend_alloc(q->be, w * h * sizeof(float)), *pad;
    hst_result r;
    if (!crop) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (y = 0; y < h; y++) memcpy(crop + y * w, img + (y0 + y) * cols + x0, w * sizeof(float));
    side = (double)hst__q_pow2_side((int)h, (int)w);
    amax = hst__q_host_absmax(crop, w * h);
    over = side * side * amax > ldexp(1.0, HST__Q_FFT_EXP);
    if ((shift = hst__q_shift(amax, over)) != 0) {
        for (y = 0; y < w * h; y++) crop[y] = ldexpf(crop[y], -shift);
        hst__q_log_scale(q, "img", shift, over);
    }
    hst__q_apodize(crop, (int)h, (int)w);
    pad = hst__q_pad_pow2(q, crop, (int)h, (int)w, &dd->n);
    hst_backend_free(q->be, crop);
    if (!pad) return HST_ERROR_OUT_OF_HOST_MEMORY;
    n = (size_t)dd->n;
    half[0] = n; half[1] = n / 2 + 1;
    r = hst__q_array(q, HST_F32, n, n, pad, &dd->img);
    hst_backend_free(q->be, pad);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, half, &dd->spec0);
    if (r == HST_SUCCESS) r = hst_array_fft(dd->spec0, dd->img, 2, 0, HST_FFT_NORM_BACKWARD);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, n, n, NULL, &dd->blur);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, n, n, NULL, &dd->tmp);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_C64, 2, half, &dd->spec);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, n, 2, NULL, &dd->hg);
    if (r == HST_SUCCESS) r = hst__q_array(q, HST_F32, n, 2 * (size_t)dd->nr, NULL, &dd->part);
    if (r == HST_SUCCESS) r = hst_array_create(q->be, HST_F32, 1, &n, &dd->norm);
    if (r == HST_SUCCESS &&
        (!(dd->hpart = (float *)hst_backend_alloc(q->be, n * (2 * (size_t)dd->nr + 3) * sizeof(float))) ||
         !(dd->cosn = (double *)hst_backend_alloc(q->be, (n + n / 2 + 1) * sizeof(double)))))
        r = HST_ERROR_OUT_OF_HOST_MEMORY;
    if (r != HST_SUCCESS) return r;
    dd->hnorm = dd->hpart + n * 2 * (size_t)dd->nr;
    dd->hhg = dd->hnorm + n;
    dd->fold = dd->cosn + n;
    hst__q_cos_table(dd->cosn, dd->n / 2);   /* cos(2 pi m / n), m < n */
    return HST_SUCCESS;
}

static void hst__q_decorr_close(hst__qdec *dd) {
    const hst_backend *be = dd->q->be;
    hst_array_destroy(dd->img); hst_array_destroy(dd->blur); hst_array_destroy(dd->tmp);
    hst_array_destroy(dd->spec0); hst_array_destroy(dd->spec); hst_array_destroy(dd->hg);
    hst_array_destroy(dd->part); hst_array_destroy(dd->norm);
    if (dd->hpart) hst_backend_free(be, dd->hpart);
    if (dd->cosn) hst_backend_free(be, dd->cosn);
    if (dd->taps) hst_backend_free(be, dd->taps);
}

HST__QDEF hst_result hst_decorr(hst_backend *be, const float *img, size_t rows, size_t cols,
                                const hst_decorr_desc *desc, hst_decorr_result *out) {
    hst_decorr_desc zero;
    const hst_decorr_desc *d = desc ? desc : &zero;
    hst__q q;
    hst__qdec dd;
    float d0[HST_DECORR_MAX_NR], res[2], ps;
    hst_result r;
    if (!be) return hst__null_arg(NULL, "hst_decorr", "be is NULL");
    hst__q_init(&q, be, "hst_decorr");
    memset(&zero, 0, sizeof zero);
    if ((r = hst__q_decorr_check(&q, img, rows, cols, d, out)) != HST_SUCCESS ||
        (r = hst__q_cancelled(&q)) != HST_SUCCESS)
        return r;
    memset(out, 0, sizeof *out);
    memset(&dd, 0, sizeof dd);
    dd.q = &q;
    dd.nr = d->num_radii ? (int)d->num_radii : 50;
    dd.ng = d->num_highpass ? (int)d->num_highpass : 10;
    dd.rmin = (float)d->rmin;
    dd.rmax = d->rmax == 0.0 ? 1.0f : (float)d->rmax;
    ps = d->pixel_size > 0.0 ? (float)d->pixel_size : 1.0f;
    r = hst__q_decorr_setup(&dd, img, rows, cols, d->roi);
    if (r == HST_SUCCESS) r = hst__q_cancelled(&q);
    if (r == HST_SUCCESS) r = hst__q_dcurve(&dd, dd.spec0, dd.rmin, dd.rmax, 1, d0);
    if (r == HST_SUCCESS) {
        hst__q_dcorr_max(d0, dd.nr, 0.0f, 1.0f, res);
        out->kc0 = res[0]; out->a0 = res[1];
        r = hst__q_decorr_rounds(&dd, d0, res[0], out);
    }
    if (r == HST_SUCCESS) out->resolution = (double)(2.0f * ps / (float)out->kc_max);
    hst__q_decorr_close(&dd);
    return r;
}

/* >>drift ------------------------------------------------------------------------------------ */
#define HST__Q_DRIFT_MIN_SIDE 8       /* the 7 x 7 peak patch and a shift of a few pixels */
#define HST__Q_DRIFT_BATCH 16         /* images per device pass by default */
#define HST__Q_DRIFT_P (2 * HST_K_QUALITY_DRIFT_R + 1)
#define HST__Q_DRIFT_PATCH (2 + HST__Q_DRIFT_P * HST__Q_DRIFT_P)   /* floats per image's patch */
#define HST__Q_DRIFT_CR_STEP 0.125    /* Catmull-Rom: the first grid's step over [-1, 1]^2 */
#define HST__Q_DRIFT_CR_TOL 1e-4      /* .. refined (steps / 4, +-4 steps) down to this */
/* "No peak": the map's peak (per overlapping pixel) at most this fraction of the two images'
   mean intensities' product, their energy at zero frequency. A flat image's spectrum holds
   only the FFT's rounding, float's 1e-7 of that energy, spread over its frequencies: its map
   is ~1e-9 of it on VkFFT (a GPU's map of a blank frame is not exactly 0, the host's FFTW and
   PoCL's are). 1e-6: 1000x above that rounding, 1e5x below a map of frames with 1% contrast
   (their covariance over the means' product: 1e-4 and up). Frames of mean 0: any peak > 0. */
#define HST__Q_DRIFT_FLAT 1e-6
/* Each pinned staging buffer's bytes, rounded down to whole frames of floats (at least one, at
   most a batch): pushes copy pieces this size (4 frames of 1000 x 1000 u16), so the copy of one
   overlaps the write of the one before, and a session pins 16 MB rather than a batch or two
   (freeing pinned memory cost 0.14-0.27 ms per MB on an H100: esrrf.h's kept pair; pinning it
   costs as much again). */
#define HST__Q_DRIFT_STAGE_BYTES ((size_t)8 << 20)

/* Uploads (hst__q_drift_upload). On OpenCL devices the pushes copy the caller's frames into two
   pinned buffers in turn and write them, without waiting, on an upload queue into one of two raw
   buffers while the backend's queue sums the frames of the other; a write waits for the sums
   that read its raw buffer before (raw_ev), the sums for their frames' writes (a barrier), the
   host for the write that read a pinned buffer before refilling it (pin_ev). The batches read
   their patches without waiting, and the host refines a batch while the device runs the next
   (hst__q_drift_collect). On the host device (hst_write is a copy there: staging would double
   it) or without pinned memory, a push writes from the caller's memory into raw[0], blocking. */
struct hst_drift {
    hst__q q;
    hst_drift_desc desc;          /* reference_frames >= 1 for MEAN, averaging >= 1, batch >= 1 */
    size_t rows, cols, npix, nspec, cap;
    int my, mx;
    hst_drift_dtype dtype;        /* the frames in raw */
    hst_array *raw[2];            /* (cap rows cols 4) u8: up to cap frames as pushed; [1]: staging */
    int cur;                      /* the raw buffer the sums read */
    hst_queue *up;                /* the uploads' queue; NULL: no staging */
    hst_buffer *pin[2];           /* pinned, pin_bytes each */
    hst_event pin_ev[2], raw_ev[2];   /* the write that read pin[k]; the point after the sums of raw[k] */
    size_t pin_bytes;
    int pin_next;
    hst_array *img;               /* (cap, rows, cols) f32: images to estimate, then their maps */
    hst_array *spec, *prod;       /* (cap, rows, cols / 2 + 1) c64: spectra, cross-power spectra */
    hst_array *ref;               /* (rows, cols / 2 + 1) c64: the reference's spectrum */
    hst_array *acc, *refacc;      /* (rows, cols) f32: the block's sum, REF_MEAN's sum */
    hst_array *val, *at, *patch;  /* the peak search: (cap, 2 my + 1) f32, i32; (cap, PATCH) f32 */
    float *patch_host;            /* (2, cap, PATCH): the patches of two batches, read in turn */
    float *dc_host;               /* (2, cap + 1, 2): the images' zero frequencies, then the reference's */
    int slot;                     /* the half of patch_host and dc_host the next batch reads into */
    hst_event pend_ev;            /* the pending batch's read (hst__q_drift_collect) */
    size_t pend_n;                /* its images; 0: none pending */
    int pend_first, pend_slot;    /* it was the first batch; its half */
    size_t nimg, in_block, ref_in, pushed;
    int have_ref, failed;
    double *est;                  /* (images, 2): each image's (dy, dx) */
    size_t nest, est_cap;
};

static hst_result hst__q_drift_desc(hst__q *q, const hst_drift_desc *in, hst_drift_desc *d) {
    if (in) *d = *in; else memset(d, 0, sizeof *d);
    if ((unsigned)d->reference > (unsigned)HST_DRIFT_REF_PREVIOUS)
        return hst__range_arg(q->be, q->func, "desc->reference %d is not an hst_drift_reference", (int)d->reference);
    if ((unsigned)d->peak > (unsigned)HST_DRIFT_PEAK_CATMULL_ROM)
        return hst__range_arg(q->be, q->func, "desc->peak %d is not an hst_drift_peak", (int)d->peak);
    if (d->reference_frames && d->reference != HST_DRIFT_REF_MEAN)
        return hst__bad_arg(q->be, q->func, "desc->reference_frames %zu is set but desc->reference is not "
                            "HST_DRIFT_REF_MEAN", d->reference_frames);
    if (d->max_shift > (unsigned)INT_MAX / 2)
        return hst__range_arg(q->be, q->func, "desc->max_shift %u: at most %d", d->max_shift, INT_MAX / 2);
    if (d->reference == HST_DRIFT_REF_MEAN && !d->reference_frames) d->reference_frames = 1;
    if (!d->averaging) d->averaging = 1;
    if (!d->batch) d->batch = HST__Q_DRIFT_BATCH;
    if (d->reference == HST_DRIFT_REF_MEAN) {   /* the images that arrive before the reference is whole */
        size_t early = (d->reference_frames + d->averaging - 1) / d->averaging;
        if (d->batch < early) d->batch = early;
    }
    if (d->batch > UINT32_MAX) return hst__range_arg(q->be, q->func, "desc->batch %zu: at most %u", d->batch, UINT32_MAX);
    return HST_SUCCESS;
}

/* A window half side: max_shift, at most (n - 1) / 2 (0: that). */
static int hst__q_drift_half(unsigned max_shift, size_t n) {
    size_t h = (n - 1) / 2;
    return (int)(max_shift && max_shift < h ? max_shift : h);
}

/* The staging's queue, second raw buffer, pinned buffers and events, released (the queue
   first: destroying it waits for its writes, which read the pinned buffers). */
static void hst__q_drift_unstage(hst_drift *d) {
    int k;
    hst_queue_destroy(d->up);
    d->up = NULL;
    for (k = 0; k < 2; k++) {
        hst_event_release(d->pin_ev[k]); hst_event_release(d->raw_ev[k]);
        hst_buffer_destroy(d->pin[k]);
        d->pin_ev[k] = d->raw_ev[k] = NULL;
        d->pin[k] = NULL;
    }
    hst_array_destroy(d->raw[1]);
    d->raw[1] = NULL;
}

/* Staging (struct hst_drift) on an OpenCL device, raw: the raw buffers' shape. Without it the
   pushes run as on the host device, slower: the reason is logged, the caller gets no error. */
static void hst__q_drift_stage(hst_drift *d, const size_t *raw) {
    size_t fb = d->npix * sizeof(float), n = HST__Q_DRIFT_STAGE_BYTES / fb;
    hst_result r;
    int k;
    if (hst_backend_is_host(d->q.be)) return;
    d->pin_bytes = (n < 1 ? 1 : n < d->cap ? n : d->cap) * fb;
    if ((r = hst_queue_create(d->q.be, &d->up)) == HST_SUCCESS)
        r = hst_array_create(d->q.be, HST_U8, 1, raw, &d->raw[1]);
    for (k = 0; k < 2 && r == HST_SUCCESS; k++) r = hst_pinned_create(d->q.be, d->pin_bytes, &d->pin[k]);
    if (r == HST_SUCCESS) return;
    hst__q_drift_unstage(d);
    hst_backend_log(d->q.be, HST_LOG_WARN, HST_LOGITEM_NONE, "%s: no pinned staging (%s): the pushes write "
                    "the frames from the caller's memory, waiting", d->q.func, hst_result_string(r));
}

static hst_result hst__q_drift_arrays(hst_drift *d) {
    size_t img[3], spec[3], one[2], half[2], peak[2], pat[2], raw[1], bytes;
    hst_result r;
    img[0] = spec[0] = d->cap; img[1] = spec[1] = half[0] = one[0] = d->rows; img[2] = one[1] = d->cols;
    spec[2] = half[1] = d->cols / 2 + 1;
    peak[0] = pat[0] = d->cap; peak[1] = (size_t)(2 * d->my + 1); pat[1] = HST__Q_DRIFT_PATCH;
    if (!hst_size_mul(d->cap, 2 * HST__Q_DRIFT_PATCH * sizeof(float), &bytes))
        return hst_backend_fail(d->q.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, d->q.func, "desc->batch %zu is too large", d->cap);
    if (!(d->patch_host = (float *)hst_backend_alloc(d->q.be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (!(d->dc_host = (float *)hst_backend_alloc(d->q.be, 2 * (d->cap + 1) * 2 * sizeof(float))))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (!hst_size_mul(d->cap * d->npix, sizeof(float), &raw[0]))
        return hst_backend_fail(d->q.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, d->q.func, "desc->batch %zu is too large", d->cap);
    if ((r = hst_array_create(d->q.be, HST_U8, 1, raw, &d->raw[0])) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_F32, 3, img, &d->img)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_C64, 3, spec, &d->spec)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_C64, 3, spec, &d->prod)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_C64, 2, half, &d->ref)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_F32, 2, peak, &d->val)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_I32, 2, peak, &d->at)) != HST_SUCCESS ||
        (r = hst_array_create(d->q.be, HST_F32, 2, pat, &d->patch)) != HST_SUCCESS)
        return r;
    if (d->desc.averaging > 1 && (r = hst_array_create(d->q.be, HST_F32, 2, one, &d->acc)) != HST_SUCCESS) return r;
    if (d->desc.reference == HST_DRIFT_REF_MEAN &&
        (r = hst_array_create(d->q.be, HST_F32, 2, one, &d->refacc)) != HST_SUCCESS) return r;
    /* the batch's unused slots go through the FFTs too: zeros, not stale memory */
    if ((r = hst_array_zeros(d->img)) != HST_SUCCESS || (r = hst_array_zeros(d->prod)) != HST_SUCCESS) return r;
    hst__q_drift_stage(d, raw);
    return HST_SUCCESS;
}

HST__QDEF hst_result hst_drift_open(hst_backend *be, size_t rows, size_t cols, const hst_drift_desc *desc,
                                  hst_drift **out) {
    static const char *F = "hst_drift_open";
    hst__q q;
    hst_drift_desc dd;
    hst_drift *d;
    size_t bytes;
    hst_result r;
    if (!be || !out) return hst__null_arg(be, F, "%s is NULL", be ? "out" : "be");
    *out = NULL;
    hst__q_init(&q, be, F);
    if (rows < HST__Q_DRIFT_MIN_SIDE || cols < HST__Q_DRIFT_MIN_SIDE)
        return hst__range_arg(be, F, "%s %zu: frames need at least %d rows and columns",
                              rows < HST__Q_DRIFT_MIN_SIDE ? "rows" : "cols", rows < HST__Q_DRIFT_MIN_SIDE ? rows : cols,
                              HST__Q_DRIFT_MIN_SIDE);
    if (!hst_fft_built_in())
        return hst_backend_fail(be, HST_ERROR_NOT_BUILT_IN, HST_LOGITEM_NOT_BUILT_IN, F,
                                "drift estimation needs array.h's FFTs: compile the implementation with HST_FFT");
    if ((r = hst__q_drift_desc(&q, desc, &dd)) != HST_SUCCESS) return r;
    if ((r = hst__q_count(&q, rows, cols, &bytes)) != HST_SUCCESS) return r;
    if (dd.batch > SIZE_MAX / 16 || !hst_size_mul(bytes, dd.batch * 4 * sizeof(float), &bytes))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "desc->batch %zu frames of %zu x %zu are too large", dd.batch, rows, cols);
    if (!(d = (hst_drift *)hst_backend_alloc(be, sizeof *d))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    memset(d, 0, sizeof *d);
    d->q = q;
    d->desc = dd;
    d->rows = rows; d->cols = cols; d->npix = rows * cols; d->nspec = rows * (cols / 2 + 1);
    d->cap = dd.batch;
    d->my = hst__q_drift_half(dd.max_shift, rows);
    d->mx = hst__q_drift_half(dd.max_shift, cols);
    if ((r = hst__q_drift_arrays(d)) != HST_SUCCESS) { hst_drift_close(d); return r; }
    *out = d;
    return HST_SUCCESS;
}

HST__QDEF void hst_drift_close(hst_drift *d) {
    hst_result r;
    if (!d) return;
    /* after an error, commands may still read the pinned buffers or fill patch_host and dc_host */
    r = hst_queue_finish(hst_backend_queue(d->q.be));
    (void)r;
    hst__q_drift_unstage(d);
    hst_event_release(d->pend_ev);
    hst_array_destroy(d->raw[0]); hst_array_destroy(d->img);
    hst_array_destroy(d->spec); hst_array_destroy(d->prod); hst_array_destroy(d->ref);
    hst_array_destroy(d->acc); hst_array_destroy(d->refacc);
    hst_array_destroy(d->val); hst_array_destroy(d->at); hst_array_destroy(d->patch);
    hst_backend_free(d->q.be, d->patch_host);
    hst_backend_free(d->q.be, d->dc_host);
    hst_backend_free(d->q.be, d->est);
    hst_backend_free(d->q.be, d);
}

HST__QDEF size_t hst_drift_frames(const hst_drift *d) { return d ? d->pushed : 0; }

/* Launches the quality family's kernel id (hst__q_desc) over (g0, g1). */
static hst_result hst__q_drift_launch(const hst_drift *d, unsigned id, const hst_karg *a, size_t na,
                                      unsigned dims, size_t g0, size_t g1) {
    hst_launch_desc ld = hst__q_desc(&d->q, id, a, na, dims, g0, g1);
    return hst_launch_kernel(d->q.be, &ld, NULL);
}

/* For j < nout: image doff + j of dst (f32, frames of rows x cols) = (reset ? 0 : itself) + the
   frames first + j count .. + count - 1 in d->raw, as floats (kernels_quality.h's drift_sum). */
static hst_result hst__q_drift_sum(const hst_drift *d, hst_array *dst, size_t doff, size_t first, size_t count,
                                   size_t nout, int reset) {
    hst_karg a[9];
    a[0] = hst__q_buf(d->raw[d->cur]); a[1] = hst__q_buf(dst);
    a[2] = hst_karg_ulong(d->npix); a[3] = hst_karg_ulong(first); a[4] = hst_karg_ulong(doff);
    a[5] = hst_karg_uint((uint32_t)count); a[6] = hst_karg_uint((uint32_t)nout);
    a[7] = hst_karg_int(reset); a[8] = hst_karg_int((int)d->dtype);
    return hst__q_drift_launch(d, HST_KQUALITY_DRIFT_SUM, a, 9, 2, d->npix, nout);
}

/* Appends an image's estimate. */
static hst_result hst__q_drift_keep(hst_drift *d, double dy, double dx) {
    if (d->nest == d->est_cap) {
        size_t cap = d->est_cap ? 2 * d->est_cap : 64, bytes;
        double *e;
        if (!hst_size_mul(cap, 2 * sizeof(double), &bytes)) return HST_ERROR_OVERFLOW;
        if (!(e = (double *)hst_backend_alloc(d->q.be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        if (d->nest) memcpy(e, d->est, d->nest * 2 * sizeof(double));
        hst_backend_free(d->q.be, d->est);
        d->est = e; d->est_cap = cap;
    }
    d->est[2 * d->nest] = dy; d->est[2 * d->nest + 1] = dx;
    d->nest++;
    return HST_SUCCESS;
}

/* The 3-point vertex offset of l, c, r (c the largest), in [-1, 1]: a parabola through the
   values, or through their logarithms (gauss, where all three are positive). */
static double hst__q_drift_vertex(double l, double c, double r, int gauss) {
    double den, off;
    if (gauss && l > 0.0 && c > 0.0 && r > 0.0) { l = log(l); c = log(c); r = log(r); }
    den = l - 2.0 * c + r;
    if (!(den < 0.0)) return 0.0;
    off = 0.5 * (l - r) / den;
    return off < -1.0 ? -1.0 : off > 1.0 ? 1.0 : off;
}

/* Catmull-Rom (a = 0.5) weights of the 4 taps at t in [0, 1) from the second. */
static void hst__q_drift_cr_weights(double t, double w[4]) {
    double t2 = t * t, t3 = t2 * t;
    w[0] = 0.5 * (-t3 + 2.0 * t2 - t);
    w[1] = 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0);
    w[2] = 0.5 * (-3.0 * t3 + 4.0 * t2 + t);
    w[3] = 0.5 * (t3 - t2);
}

/* The patch's (7 x 7 around the peak) Catmull-Rom interpolation at offset (y, x), |y|, |x| <= 1
   (its taps, offsets floor - 1 .. floor + 2, stay inside the patch). */
static double hst__q_drift_cr(const float *p, double y, double x) {
    double wy[4], wx[4], s = 0.0, fy = floor(y), fx = floor(x);
    int i, j, iy = (int)fy + HST_K_QUALITY_DRIFT_R - 1, ix = (int)fx + HST_K_QUALITY_DRIFT_R - 1;
    hst__q_drift_cr_weights(y - fy, wy);
    hst__q_drift_cr_weights(x - fx, wx);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) s += wy[i] * wx[j] * p[(iy + i) * HST__Q_DRIFT_P + ix + j];
    return s;
}

/* The interpolation's maximum within a pixel of the peak: a grid of HST__Q_DRIFT_CR_STEP over
   [-1, 1]^2, then grids of +-4 steps a quarter as wide around the best, down to
   HST__Q_DRIFT_CR_TOL (the first best kept on ties: deterministic). */
static void hst__q_drift_cr_max(const float *p, double *oy, double *ox) {
    double by = 0.0, bx = 0.0, best = hst__q_drift_cr(p, 0.0, 0.0), step = HST__Q_DRIFT_CR_STEP;
    int n = (int)(1.0 / HST__Q_DRIFT_CR_STEP + 0.5), i, j;
    for (; step >= HST__Q_DRIFT_CR_TOL; step /= 4.0, n = 4) {
        double cy = by, cx = bx;
        for (i = -n; i <= n; i++)
            for (j = -n; j <= n; j++) {
                double y = cy + i * step, x = cx + j * step, v;
                if (fabs(y) > 1.0 || fabs(x) > 1.0) continue;
                if ((v = hst__q_drift_cr(p, y, x)) > best) { best = v; by = y; bx = x; }
            }
    }
    *oy = by; *ox = bx;
}

/* The patch's values divided by the pixels that overlap at their shifts, (rows - |sy|) (cols -
   |sx|): the circular map of two frames of one moving scene is their correlation over the
   overlap (the wrapped rest is unrelated, mean-free content), which shrinks linearly away from
   shift 0 and so pulls the peak towards 0 by about its width^2 / side (0.1 px at 64 pixels, a
   few 1e-3 at 1000); divided, the peak is where the scene's correlation puts it. */
static void hst__q_drift_unbias(const hst_drift *d, const float *p, float *v) {
    int u, w, dy = (int)p[0], dx = (int)p[1];
    for (u = 0; u < HST__Q_DRIFT_P; u++)
        for (w = 0; w < HST__Q_DRIFT_P; w++) {
            double sy = fabs((double)(dy + u - HST_K_QUALITY_DRIFT_R)), sx = fabs((double)(dx + w - HST_K_QUALITY_DRIFT_R));
            v[u * HST__Q_DRIFT_P + w] = (float)((double)p[2 + u * HST__Q_DRIFT_P + w] /
                                                (((double)d->rows - sy) * ((double)d->cols - sx)));
        }
}

/* The magnitude of a complex zero frequency (re, im). */
static double hst__q_drift_abs(const float *z) { return sqrt((double)z[0] * z[0] + (double)z[1] * z[1]); }

/* Image k's estimate from its patch (dy, dx, then the values around the peak); dc: its zero
   frequency and its reference's (HST__Q_DRIFT_FLAT). */
static hst_result hst__q_drift_refine(hst_drift *d, const float *p, const float *dc, const float *dc_ref) {
    float v[HST__Q_DRIFT_P * HST__Q_DRIFT_P];
    const int c = HST_K_QUALITY_DRIFT_R * HST__Q_DRIFT_P + HST_K_QUALITY_DRIFT_R;
    double oy, ox, npix = (double)d->npix, flat = HST__Q_DRIFT_FLAT * (hst__q_drift_abs(dc) / npix) *
                                                  (hst__q_drift_abs(dc_ref) / npix);
    size_t i;
    hst__q_drift_unbias(d, p, v);
    for (i = 0; i < HST__Q_DRIFT_P * HST__Q_DRIFT_P; i++)
        if (!isfinite(v[i]))
            return hst_backend_fail(d->q.be, HST_ERROR_OVERFLOW, HST_LOGITEM_NON_FINITE, d->q.func,
                                    "image %zu's cross-correlation is not finite (frames beyond float's range?)", d->nest);
    if (!((double)v[c] > flat)) {   /* nothing correlates: keep the last estimate (a step of 0) */
        int prev = d->desc.reference == HST_DRIFT_REF_PREVIOUS || !d->nest;
        hst_backend_log(d->q.be, HST_LOG_WARN, HST_LOGITEM_NONE, "%s: image %zu (frames from %zu) has no "
                        "correlation peak (a blank or flat image?): its drift is the previous image's", d->q.func,
                        d->nest, d->nest * d->desc.averaging);
        return hst__q_drift_keep(d, prev ? 0.0 : d->est[2 * d->nest - 2], prev ? 0.0 : d->est[2 * d->nest - 1]);
    }
    if (d->desc.peak == HST_DRIFT_PEAK_CATMULL_ROM) hst__q_drift_cr_max(v, &oy, &ox);
    else {
        int g = d->desc.peak == HST_DRIFT_PEAK_GAUSSIAN;
        oy = hst__q_drift_vertex(v[c - HST__Q_DRIFT_P], v[c], v[c + HST__Q_DRIFT_P], g);
        ox = hst__q_drift_vertex(v[c - 1], v[c], v[c + 1], g);
    }
    return hst__q_drift_keep(d, (double)p[0] + oy, (double)p[1] + ox);
}

/* The zero frequencies of the batch's n spectra and of the reference's (before the previous
   image replaces it) into dc (dc_host's half), read without waiting: the batch's read of the
   patches comes later on the same in-order queue. */
static hst_result hst__q_drift_read_dc(hst_drift *d, size_t n, float *dc) {
    hst_queue *qu = hst_backend_queue(d->q.be);
    hst_rect src, dst;
    size_t region[3];
    hst_result r;
    memset(&src, 0, sizeof src); memset(&dst, 0, sizeof dst);
    src.row_pitch = d->nspec * 2 * sizeof(float);
    region[0] = 2 * sizeof(float); region[1] = n; region[2] = 1;
    if ((r = hst_read_rect(qu, hst_array_buffer(d->spec), &src, dc, &dst, region, 0, 0, NULL, NULL)) !=
        HST_SUCCESS) return r;
    return hst_read(qu, hst_array_buffer(d->ref), 0, dc + 2 * d->cap, 2 * sizeof(float), 0, 0, NULL, NULL);
}

/* The pending batch's estimates, appended in order once its patches are read. */
static hst_result hst__q_drift_collect(hst_drift *d) {
    const float *patch = d->patch_host + (size_t)d->pend_slot * d->cap * HST__Q_DRIFT_PATCH,
                *dc = d->dc_host + (size_t)d->pend_slot * 2 * (d->cap + 1);
    int prev = d->desc.reference == HST_DRIFT_REF_PREVIOUS;
    size_t k;
    hst_result r = hst_event_wait(1, &d->pend_ev);
    hst_event_release(d->pend_ev);
    d->pend_ev = NULL;
    for (k = 0; k < d->pend_n && r == HST_SUCCESS; k++) {
        const float *dc_ref = prev && k > 0 ? dc + 2 * (k - 1) : dc + 2 * d->cap;
        if (d->pend_first && k == 0 && d->desc.reference != HST_DRIFT_REF_MEAN) r = hst__q_drift_keep(d, 0.0, 0.0);
        else r = hst__q_drift_refine(d, patch + k * HST__Q_DRIFT_PATCH, dc + 2 * k, dc_ref);
    }
    d->pend_n = 0;
    return r;
}

/* The images in d->img [0, nimg): spectra, cross-power spectra against the reference (or the
   image before), maps, their peaks read without waiting; the batch before's estimates appended
   while the device runs this one, this one's pending (hst__q_drift_collect). */
static hst_result hst__q_drift_batch(hst_drift *d) {
    size_t spec_bytes = d->nspec * 2 * sizeof(float), n = d->nimg, wy = (size_t)(2 * d->my + 1);
    hst_queue *qu = hst_backend_queue(d->q.be);
    int first = !d->have_ref, prev = d->desc.reference == HST_DRIFT_REF_PREVIOUS;
    float *patch = d->patch_host + (size_t)d->slot * d->cap * HST__Q_DRIFT_PATCH;
    hst_event ev = NULL;
    hst_karg a[9];
    hst_result r;
    if (!n) return HST_SUCCESS;
    if ((r = hst__q_cancelled(&d->q)) != HST_SUCCESS) return r;
    if ((r = hst_array_fft(d->spec, d->img, 2, 0, HST_FFT_NORM_BACKWARD)) != HST_SUCCESS) return r;
    if (first && (r = hst_copy(qu, hst_array_buffer(d->ref), 0, hst_array_buffer(d->spec), 0, spec_bytes,
                               0, NULL, NULL)) != HST_SUCCESS) return r;
    d->have_ref = 1;
    if ((r = hst__q_drift_read_dc(d, n, d->dc_host + (size_t)d->slot * 2 * (d->cap + 1))) != HST_SUCCESS) return r;
    a[0] = hst__q_buf(d->spec); a[1] = hst__q_buf(d->ref); a[2] = hst__q_buf(d->prod);
    a[3] = hst_karg_ulong(d->nspec); a[4] = hst_karg_uint((uint32_t)n); a[5] = hst_karg_int(prev);
    if ((r = hst__q_drift_launch(d, HST_KQUALITY_DRIFT_CROSS, a, 6, 2, d->nspec, n)) != HST_SUCCESS) return r;
    if (prev && (r = hst_copy(qu, hst_array_buffer(d->ref), 0, hst_array_buffer(d->spec), (n - 1) * spec_bytes,
                              spec_bytes, 0, NULL, NULL)) != HST_SUCCESS) return r;
    if ((r = hst_array_fft(d->img, d->prod, 2, 1, HST_FFT_NORM_BACKWARD)) != HST_SUCCESS) return r;
    a[0] = hst__q_buf(d->img); a[1] = hst__q_buf(d->val); a[2] = hst__q_buf(d->at);
    a[3] = hst_karg_int((int)d->rows); a[4] = hst_karg_int((int)d->cols);
    a[5] = hst_karg_int(d->my); a[6] = hst_karg_int(d->mx); a[7] = hst_karg_uint((uint32_t)n);
    if ((r = hst__q_drift_launch(d, HST_KQUALITY_DRIFT_ROWS, a, 8, 2, wy, n)) != HST_SUCCESS) return r;
    a[3] = hst__q_buf(d->patch); a[4] = hst_karg_int((int)d->rows); a[5] = hst_karg_int((int)d->cols);
    a[6] = hst_karg_int(d->my); a[7] = hst_karg_int(d->mx); a[8] = hst_karg_uint((uint32_t)n);
    if ((r = hst__q_drift_launch(d, HST_KQUALITY_DRIFT_PEAK, a, 9, 1, n, 1)) != HST_SUCCESS) return r;
    if ((r = hst_read(qu, hst_array_buffer(d->patch), 0, patch, n * HST__Q_DRIFT_PATCH * sizeof(float), 0,
                      0, NULL, &ev)) != HST_SUCCESS ||
        (r = hst_queue_flush(qu)) != HST_SUCCESS || (r = hst__q_drift_collect(d)) != HST_SUCCESS) {
        hst_event_release(ev);   /* close finishes the queue before freeing patch_host */
        return r;
    }
    d->pend_ev = ev; d->pend_n = n; d->pend_first = first; d->pend_slot = d->slot;
    d->slot ^= 1;
    d->nimg = 0;
    return HST_SUCCESS;
}

/* count more images in d->img (written there); a full batch is estimated. */
static hst_result hst__q_drift_added(hst_drift *d, size_t count) {
    d->nimg += count;
    return d->nimg == d->cap ? hst__q_drift_batch(d) : HST_SUCCESS;
}

/* The block sum d->acc as the next image. */
static hst_result hst__q_drift_block(hst_drift *d) {
    size_t fb = d->npix * sizeof(float);
    hst_result r = hst_copy(hst_backend_queue(d->q.be), hst_array_buffer(d->img), d->nimg * fb,
                            hst_array_buffer(d->acc), 0, fb, 0, NULL, NULL);
    d->in_block = 0;
    return r == HST_SUCCESS ? hst__q_drift_added(d, 1) : r;
}

/* REF_MEAN: frames [0, n) of d->raw into the reference's sum; its spectrum once whole (the
   sum, not the mean: a scale moves no peak). */
static hst_result hst__q_drift_reference(hst_drift *d, size_t n) {
    size_t m = d->desc.reference_frames - d->ref_in;
    hst_result r;
    if (d->desc.reference != HST_DRIFT_REF_MEAN || !m) return HST_SUCCESS;
    if (m > n) m = n;
    if ((r = hst__q_drift_sum(d, d->refacc, 0, 0, m, 1, d->ref_in == 0)) != HST_SUCCESS) return r;
    d->ref_in += m;
    if (d->ref_in < d->desc.reference_frames) return HST_SUCCESS;
    d->have_ref = 1;
    return hst_array_fft(d->ref, d->refacc, 2, 0, HST_FFT_NORM_BACKWARD);
}

/* The n frames now in d->raw into images: each, or summed by blocks of `averaging`. */
static hst_result hst__q_drift_images(hst_drift *d, size_t n) {
    size_t t = d->desc.averaging, i = 0, m;
    hst_result r = HST_SUCCESS;
    while (i < n && r == HST_SUCCESS) {
        if (t == 1) {
            m = n - i < d->cap - d->nimg ? n - i : d->cap - d->nimg;
            if ((r = hst__q_drift_sum(d, d->img, d->nimg, i, 1, m, 1)) == HST_SUCCESS) r = hst__q_drift_added(d, m);
        } else {
            m = n - i < t - d->in_block ? n - i : t - d->in_block;
            r = hst__q_drift_sum(d, d->acc, 0, i, m, 1, d->in_block == 0);
            if (r == HST_SUCCESS && (d->in_block += m) == t) r = hst__q_drift_block(d);
        }
        i += m;
    }
    return r;
}

/* bytes of the caller's frames (fbytes each) into the raw buffer the next sums read: without
   staging a blocking write into raw[0]; with it into the other raw buffer, by pieces of whole
   frames through the pinned buffers in turn (a piece's copy overlaps the write of the one before
   and the sums of the frames before), then a barrier that holds the sums until the last write. */
static hst_result hst__q_drift_upload(hst_drift *d, const char *src, size_t bytes, size_t fbytes) {
    hst_queue *qu = hst_backend_queue(d->q.be);
    size_t off, m, piece = d->pin_bytes / fbytes * fbytes;
    hst_buffer *raw;
    hst_result r = HST_SUCCESS;
    if (!d->up) return hst_write(qu, hst_array_buffer(d->raw[0]), 0, src, bytes, 1, 0, NULL, NULL);
    d->cur ^= 1;
    raw = hst_array_buffer(d->raw[d->cur]);
    for (off = 0; off < bytes && r == HST_SUCCESS; off += m) {
        hst_event *pe = &d->pin_ev[d->pin_next], *re = &d->raw_ev[d->cur];
        void *pin = hst_buffer_host_ptr(d->pin[d->pin_next]);
        m = bytes - off < piece ? bytes - off : piece;
        if ((r = hst_event_wait(1, pe)) != HST_SUCCESS) return r;
        hst_event_release(*pe);
        *pe = NULL;
        hst_parallel_memcpy(pin, src + off, m);
        if ((r = hst_write(d->up, raw, off, pin, m, 0, *re ? 1 : 0, re, pe)) == HST_SUCCESS) r = hst_queue_flush(d->up);
        d->pin_next ^= 1;
    }
    return r == HST_SUCCESS ? hst_queue_barrier(qu, 1, &d->pin_ev[d->pin_next ^ 1], NULL) : r;
}

/* With staging: the point after the sums of raw[cur], which its next upload waits for; the
   sums sent to the device, to run while the host copies the next frames. */
static hst_result hst__q_drift_summed(hst_drift *d) {
    hst_queue *qu = hst_backend_queue(d->q.be);
    hst_result r;
    if (!d->up) return HST_SUCCESS;
    hst_event_release(d->raw_ev[d->cur]);
    d->raw_ev[d->cur] = NULL;
    if ((r = hst_queue_barrier(qu, 0, NULL, &d->raw_ev[d->cur])) != HST_SUCCESS) return r;
    return hst_queue_flush(qu);
}

static size_t hst__q_drift_bytes(hst_drift_dtype dt) {
    return dt == HST_DRIFT_U8 ? 1 : dt == HST_DRIFT_F32 ? 4 : 2;
}

static hst_result hst__q_drift_usable(hst_drift *d, const char *func) {
    d->q.func = func;
    if (!d->failed) return HST_SUCCESS;
    return hst__state_arg(d->q.be, func, "an earlier call on this session failed: close it");
}

HST__QDEF hst_result hst_drift_push(hst_drift *d, const void *frames, hst_drift_dtype dtype, size_t count) {
    static const char *F = "hst_drift_push";
    size_t i, done, n, fbytes;
    hst_result r = HST_SUCCESS;
    if (!d || !frames) return hst__null_arg(d ? d->q.be : NULL, F, "%s is NULL", d ? "frames" : "d");
    if ((r = hst__q_drift_usable(d, F)) != HST_SUCCESS) return r;
    if (!count) return hst__zero_arg(d->q.be, F, "count is 0");
    if ((unsigned)dtype - 1u > (unsigned)HST_DRIFT_F32 - 1u)
        return hst_backend_fail(d->q.be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                "dtype %d: HST_DRIFT_U8, _U16, _I16 or _F32", (int)dtype);
    if (!hst_size_mul(d->npix, hst__q_drift_bytes(dtype), &fbytes) || count > SIZE_MAX - d->pushed ||
        !hst_size_mul(count, fbytes, &n))
        return hst_backend_fail(d->q.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F, "count %zu frames of %zu x %zu",
                                count, d->rows, d->cols);
    if (dtype == HST_DRIFT_F32)
        for (i = 0; i < count * d->npix; i++)
            if (!isfinite(((const float *)frames)[i]))
                return hst_backend_fail(d->q.be, HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE, F,
                                        "frames[%zu] (frame %zu of the stack) pixel %zu is %g", i / d->npix,
                                        d->pushed + i / d->npix, i % d->npix, (double)((const float *)frames)[i]);
    for (done = 0; done < count && r == HST_SUCCESS; done += n) {
        n = count - done < d->cap ? count - done : d->cap;
        d->dtype = dtype;
        if ((r = hst__q_cancelled(&d->q)) == HST_SUCCESS &&
            (r = hst__q_drift_upload(d, (const char *)frames + done * fbytes, n * fbytes, fbytes)) == HST_SUCCESS &&
            (r = hst__q_drift_reference(d, n)) == HST_SUCCESS && (r = hst__q_drift_images(d, n)) == HST_SUCCESS)
            r = hst__q_drift_summed(d);
        if (r == HST_SUCCESS) d->pushed += n;
    }
    if (r != HST_SUCCESS) d->failed = 1;
    return r;
}

/* Image b's centre frame: its first frame + (its frames - 1) / 2 (the last may be shorter). */
static double hst__q_drift_centre(const hst_drift *d, size_t b) {
    size_t t = d->desc.averaging, n = b + 1 == d->nest ? d->pushed - b * t : t;
    return (double)(b * t) + 0.5 * (double)(n - 1);
}

/* Frame f's drift from the images' estimates (cumulated already): linear between the images'
   centres, extended linearly past the first and last. */
static void hst__q_drift_frames(const hst_drift *d, double *drift) {
    size_t b = 0, f, ni = d->nest;
    for (f = 0; f < d->pushed; f++) {
        double c0, c1, w;
        int j;
        if (ni == 1) { drift[2 * f] = d->est[0]; drift[2 * f + 1] = d->est[1]; continue; }
        while (b + 2 < ni && (double)f > hst__q_drift_centre(d, b + 1)) b++;
        c0 = hst__q_drift_centre(d, b); c1 = hst__q_drift_centre(d, b + 1);
        w = ((double)f - c0) / (c1 - c0);
        for (j = 0; j < 2; j++) drift[2 * f + j] = (1.0 - w) * d->est[2 * b + j] + w * d->est[2 * (b + 1) + j];
    }
}

HST__QDEF hst_result hst_drift_finish(hst_drift *d, double *drift, size_t frames) {
    static const char *F = "hst_drift_finish";
    size_t k;
    hst_result r;
    if (!d || !drift) return hst__null_arg(d ? d->q.be : NULL, F, "%s is NULL", d ? "drift" : "d");
    if ((r = hst__q_drift_usable(d, F)) != HST_SUCCESS) return r;
    if (!d->pushed) return hst__zero_arg(d->q.be, F, "no frame was pushed");
    if (frames != d->pushed)
        return hst__bad_arg(d->q.be, F, "frames %zu: %zu frames were pushed", frames, d->pushed);
    if (d->desc.reference == HST_DRIFT_REF_MEAN && d->ref_in < d->desc.reference_frames)
        return hst__range_arg(d->q.be, F, "desc->reference_frames %zu: only %zu frames were pushed",
                              d->desc.reference_frames, d->pushed);
    if (d->in_block) r = hst__q_drift_block(d);
    if (r == HST_SUCCESS && (r = hst__q_drift_batch(d)) == HST_SUCCESS) r = hst__q_drift_collect(d);
    if (r != HST_SUCCESS) { d->failed = 1; return r; }
    if (d->desc.reference == HST_DRIFT_REF_PREVIOUS)
        for (k = 2; k < 2 * d->nest; k++) d->est[k] += d->est[k - 2];
    hst__q_drift_frames(d, drift);
    return HST_SUCCESS;
}

static const char *const hst__q_drift_ref_names[] = { "first", "mean", "previous" };

HST__QDEF int hst_drift_reference_parse(const char *name) {
    int k;
    for (k = 0; name && k <= (int)HST_DRIFT_REF_PREVIOUS; k++)
        if (!strcmp(name, hst__q_drift_ref_names[k])) return k;
    return -1;
}

HST__QDEF hst_result hst_drift_estimate(hst_backend *be, const void *stack, hst_drift_dtype dtype, size_t frames,
                                      size_t rows, size_t cols, const hst_drift_desc *desc, double *drift) {
    hst_drift *d = NULL;
    hst_result r;
    if (!stack || !drift) return hst__null_arg(be, "hst_drift_estimate", "%s is NULL", stack ? "drift" : "stack");
    if ((r = hst_drift_open(be, rows, cols, desc, &d)) == HST_SUCCESS &&
        (r = hst_drift_push(d, stack, dtype, frames)) == HST_SUCCESS)
        r = hst_drift_finish(d, drift, frames);
    hst_drift_close(d);
    return r;
}

/* >>frames estimate ------------------------------------------------------------------------- */
#define HST__QF_WIN 11          /* the SSIM window's side (Wang et al.) */

/* One SSIM at a time: the window's weights, two frames as doubles, the five local moments'
   row-filtered planes. */
typedef struct hst__qf {
    hst_backend *be;
    hst_drift_dtype dtype;
    const unsigned char *stack;
    size_t rows, cols, px, sample_bytes;
    double g[HST__QF_WIN];
    double c1, c2;
    double *a, *b;              /* frames: px each */
    double *h;                  /* 5 planes of rows x (cols - 10) */
} hst__qf;

static size_t hst__qf_sample_bytes(hst_drift_dtype dt) {
    return dt == HST_DRIFT_U8 ? 1 : dt == HST_DRIFT_F32 ? 4 : 2;
}

/* Sample i of frame f as a double. */
static double hst__qf_at(const hst__qf *s, size_t f, size_t i) {
    const unsigned char *p = s->stack + (f * s->px + i) * s->sample_bytes;
    uint16_t u;
    int16_t v;
    float x;
    switch (s->dtype) {
    case HST_DRIFT_U8: return *p;
    case HST_DRIFT_U16: memcpy(&u, p, 2); return u;
    case HST_DRIFT_I16: memcpy(&v, p, 2); return v;
    default: memcpy(&x, p, 4); return x;
    }
}

static void hst__qf_frame(const hst__qf *s, size_t f, double *dst) {
    size_t i;
    for (i = 0; i < s->px; i++) dst[i] = hst__qf_at(s, f, i);
}

/* The frames' range, every sample finite (f32), into *lo, *hi. */
static hst_result hst__qf_range(const hst__qf *s, size_t frames, const char *F, double *lo, double *hi) {
    size_t f, i;
    *lo = HUGE_VAL;
    *hi = -HUGE_VAL;
    for (f = 0; f < frames; f++)
        for (i = 0; i < s->px; i++) {
            double v = hst__qf_at(s, f, i);
            if (!isfinite(v))
                return hst_backend_fail(s->be, HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE, F,
                                        "stack: frame %zu, pixel (%zu, %zu) is %g", f, i / s->cols, i % s->cols, v);
            if (v < *lo) *lo = v;
            if (v > *hi) *hi = v;
        }
    return HST_SUCCESS;
}

/* The mean SSIM of frames s->a and s->b over the window positions inside them: each of the
   five moments filtered along rows, then along columns (the Gaussian is separable). */
static double hst__qf_ssim(const hst__qf *s) {
    const size_t w = s->cols - (HST__QF_WIN - 1), hgt = s->rows - (HST__QF_WIN - 1), n = s->rows * w;
    double sum = 0.0;
    size_t y, x, k, m;
    for (y = 0; y < s->rows; y++)
        for (x = 0; x < w; x++) {
            const double *pa = s->a + y * s->cols + x, *pb = s->b + y * s->cols + x;
            double mo[5] = {0, 0, 0, 0, 0};
            for (k = 0; k < HST__QF_WIN; k++) {
                double ga = s->g[k] * pa[k], gb = s->g[k] * pb[k];
                mo[0] += ga; mo[1] += gb; mo[2] += ga * pa[k]; mo[3] += gb * pb[k]; mo[4] += ga * pb[k];
            }
            for (m = 0; m < 5; m++) s->h[m * n + y * w + x] = mo[m];
        }
    for (y = 0; y < hgt; y++)
        for (x = 0; x < w; x++) {
            double mo[5] = {0, 0, 0, 0, 0}, mx, my;
            for (k = 0; k < HST__QF_WIN; k++)
                for (m = 0; m < 5; m++) mo[m] += s->g[k] * s->h[m * n + (y + k) * w + x];
            mx = mo[0];
            my = mo[1];
            sum += ((2.0 * mx * my + s->c1) * (2.0 * (mo[4] - mx * my) + s->c2)) /
                   ((mx * mx + my * my + s->c1) * ((mo[2] - mx * mx) + (mo[3] - my * my) + s->c2));
        }
    return sum / (double)(hgt * w);
}

/* The desc's values with defaults applied, checked against the stack (F names the call). */
static hst_result hst__qf_desc(hst_backend *be, const char *F, const hst_frames_desc *desc, size_t frames,
                               hst_frames_desc *d, size_t *blocks) {
    static const hst_frames_desc zero = {0, 0.0, 0, 0.0};
    *d = desc ? *desc : zero;
    d->block_frames = hst_estimate_frames_block(desc, frames);
    if (d->sigmas == 0.0) d->sigmas = 2.0;
    if (!d->smoothing) d->smoothing = 3;
    if (d->block_frames < 2) return hst__range_arg(be, F, "desc->block_frames %zu: at least 2", d->block_frames);
    if (!(d->sigmas > 0.0) || !isfinite(d->sigmas))
        return hst__range_arg(be, F, "desc->sigmas %g: a positive number (0: 2)", d->sigmas);
    if (!(d->range >= 0.0) || !isfinite(d->range))
        return hst__range_arg(be, F, "desc->range %g: 0 (the stack's) or a positive number", d->range);
    *blocks = frames / d->block_frames + (frames % d->block_frames >= 2);
    if (*blocks < 2)
        return hst__range_arg(be, F, "frames %zu make %zu block(s) of %zu frames: at least 2 blocks of 2 frames are "
                              "needed (lower desc->block_frames, or give more frames)", frames, *blocks,
                              d->block_frames);
    return HST_SUCCESS;
}

/* The SSIMs of each block's first frame with its later ones: sums and sums of squares by lag. */
static hst_result hst__qf_blocks(hst__qf *s, const char *F, size_t frames, size_t B, double *sum, double *sq,
                                 size_t *cnt) {
    size_t b, l;
    for (b = 0; b + 1 < frames; b += B) {
        hst__qf_frame(s, b, s->a);
        for (l = 1; l < B && b + l < frames; l++) {
            double v;
            if (hst_backend_interrupted(s->be)) {
                hst_backend_log(s->be, HST_LOG_INFO, HST_LOGITEM_NONE, "%s: interrupted: stopping "
                                "(HST_ERROR_CANCELLED)", F);
                return HST_ERROR_CANCELLED;
            }
            hst__qf_frame(s, b + l, s->b);
            v = hst__qf_ssim(s);
            sum[l] += v;
            sq[l] += v * v;
            cnt[l]++;
        }
    }
    return HST_SUCCESS;
}

/* From the sums by lag: the curve (means, then deviations; lag 0: 1 and 0) and the estimate. */
static void hst__qf_decide(const hst_frames_desc *d, const double *sum, const double *sq, const size_t *cnt,
                           double *curve, hst_frames_estimate *out) {
    const size_t B = d->block_frames, lo = (d->smoothing - 1) / 2, hi = d->smoothing / 2;
    double *mean = curve, *sd = curve + B, base = 0.0;
    size_t l, j;
    mean[0] = 1.0;
    sd[0] = 0.0;
    for (l = 1; l < B; l++) {
        double var = cnt[l] > 1 ? (sq[l] - sum[l] * sum[l] / (double)cnt[l]) / (double)(cnt[l] - 1) : 0.0;
        mean[l] = sum[l] / (double)cnt[l];
        sd[l] = var > 0.0 ? sqrt(var) : 0.0;
    }
    out->frames = B;
    out->reached = 0;
    for (l = 1; l < B; l++) {   /* the smoothed mean at l: lags [l - lo, l + hi] within 1 .. B - 1 */
        size_t j0 = l > lo ? l - lo : 1, j1 = l + hi < B ? l + hi : B - 1;
        double m = 0.0;
        for (j = j0; j <= j1; j++) m += mean[j];
        m /= (double)(j1 - j0 + 1);
        if (l == 1) base = m;
        else if (base - m > d->sigmas * sd[1]) {
            out->frames = l;
            out->reached = 1;
            return;
        }
    }
}

HST__QDEF size_t hst_estimate_frames_block(const hst_frames_desc *desc, size_t frames) {
    return desc && desc->block_frames ? desc->block_frames : frames / 2 < 100 ? frames / 2 : 100;
}

HST__QDEF hst_result hst_estimate_frames(hst_backend *be, const void *stack, hst_drift_dtype dtype,
                                         size_t frames, size_t rows, size_t cols,
                                         const hst_frames_desc *desc, double *curve,
                                         hst_frames_estimate *out) {
    static const char *F = "hst_estimate_frames";
    hst_frames_desc d;
    hst__qf s;
    double lo, hi, gsum = 0.0, *work = NULL, *sums = NULL;
    size_t blocks = 0, planes, k, *cnt = NULL;
    hst_result r;
    if (!be || !stack || !out)
        return hst__null_arg(be, F, "%s is NULL", !be ? "be" : !stack ? "stack" : "out");
    if (dtype < HST_DRIFT_U8 || dtype > HST_DRIFT_F32)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "dtype %d is not an hst_drift_dtype",
                                (int)dtype);
    if (rows < HST__QF_WIN || cols < HST__QF_WIN)
        return hst__range_arg(be, F, "frames of %zu x %zu pixels: the SSIM window needs at least %d x %d", rows, cols,
                              HST__QF_WIN, HST__QF_WIN);
    if ((r = hst__qf_desc(be, F, desc, frames, &d, &blocks)) != HST_SUCCESS) return r;
    memset(&s, 0, sizeof s);
    s.be = be; s.dtype = dtype; s.stack = (const unsigned char *)stack; s.rows = rows; s.cols = cols;
    s.sample_bytes = hst__qf_sample_bytes(dtype);
    if (!hst_size_mul(rows, cols, &s.px) || !hst_size_mul(s.px, frames, &k) || !hst_size_mul(k, s.sample_bytes, &k) ||
        !hst_size_mul(rows, cols - (HST__QF_WIN - 1), &planes) || !hst_size_mul(planes, 5, &planes) ||
        !hst_size_add(planes, 2 * s.px, &planes) || !hst_size_mul(planes, sizeof(double), &k) ||
        !hst_size_mul(d.block_frames, 4 * sizeof(double), &k))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "a stack of %zu frames of %zu x %zu: its or the SSIM's sizes overflow size_t",
                                frames, rows, cols);
    if ((r = hst__qf_range(&s, frames, F, &lo, &hi)) != HST_SUCCESS) return r;
    out->range = d.range > 0.0 ? d.range : hi - lo;
    if (!(out->range > 0.0))
        return hst__bad_arg(be, F, "stack: every sample is %g: SSIM needs a range (give desc->range)", lo);
    for (k = 0; k < HST__QF_WIN; k++) {   /* sigma 1.5, normalised */
        double t = (double)k - (double)(HST__QF_WIN / 2);
        s.g[k] = exp(-t * t / (2.0 * 1.5 * 1.5));
        gsum += s.g[k];
    }
    for (k = 0; k < HST__QF_WIN; k++) s.g[k] /= gsum;
    s.c1 = (0.01 * out->range) * (0.01 * out->range);
    s.c2 = (0.03 * out->range) * (0.03 * out->range);
    work = (double *)hst_backend_alloc(be, planes * sizeof(double));
    sums = (double *)hst_backend_calloc(be, d.block_frames * 4 * sizeof(double));
    cnt = (size_t *)hst_backend_calloc(be, d.block_frames * sizeof(size_t));
    if (!work || !sums || !cnt)
        r = hst_backend_fail(be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, F,
                             "no host memory for the SSIM's %zu planes", planes);
    if (r == HST_SUCCESS) {
        s.a = work;
        s.b = work + s.px;
        s.h = work + 2 * s.px;
        r = hst__qf_blocks(&s, F, frames, d.block_frames, sums, sums + d.block_frames, cnt);
    }
    if (r == HST_SUCCESS) {
        hst__qf_decide(&d, sums, sums + d.block_frames, cnt, sums + 2 * d.block_frames, out);
        out->blocks = blocks;
        if (curve) memcpy(curve, sums + 2 * d.block_frames, 2 * d.block_frames * sizeof(double));
    }
    hst_backend_free(be, cnt);
    hst_backend_free(be, sums);
    hst_backend_free(be, work);
    return r;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_QUALITY_IMPLEMENTATION */

/* MIT License. Copyright (c) 2026 the halostream authors.
   Permission is hereby granted, free of charge, to any person obtaining a copy of this software
   and associated documentation files (the "Software"), to deal in the Software without
   restriction, including without limitation the rights to use, copy, modify, merge, publish,
   distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
   Software is furnished to do so, subject to the following conditions: The above copyright
   notice and this permission notice shall be included in all copies or substantial portions of
   the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
   IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A
   PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE
   LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
   OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
   IN THE SOFTWARE. */
