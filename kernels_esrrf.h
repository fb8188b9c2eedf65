/* kernels_esrrf.h — the eSRRF program (radial gradient convergence, its temporal statistics and the parameter sweep): its OpenCL C 1.2 sources as string literals, its host C twins
   (the same semantics; bit for bit where stated) and its kernels' declarations. One of the
   kernel families of kernels.h's design, included by esrrf.h (which launches them) and by tests;
   a program that does not include esrrf.h compiles none of it. Single-file, header-only, C99
   (and C++); HST_IMPLEMENTATION (or HST_KERNELS_ESRRF_IMPLEMENTATION, which esrrf.h's
   implementation defines) compiles the body, as for every halostream header. kernels.h
   explains the conventions every family keeps (FP contraction off, pieces of at most 4095
   characters, thread safety).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_KERNELS_ESRRF_H
#define HST_KERNELS_ESRRF_H

#include "backend.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_ESRRF_IMPLEMENTATION)
#  define HST_KERNELS_ESRRF_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>esrrf kernels */

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
     hst_k_esrrf_roberts     frames; grad_col,      uint rows, uint cols, uint gstep,  rows*cols
                             grad_row               uint groff
     hst_k_esrrf_magnify     in; out                rows, cols, uint rowsM, uint colsM, rowsM*colsM
                                                    float2 mag, float2 shift (s0: rows,
                                                    s1: columns), uint channels
     hst_k_esrrf_rgc         grad_col, grad_row,    rows, cols, mag, float radius,     rowsM*colsM
                             magnified; rgc         float sensitivity, int intensity_weighting,
                                                    gstep, groff
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
     hst_k_esrrf_roll        ring; win (not a stream stage; -DHST_FP64 builds only):   pixels
                             ulong win_off, ulong block_elems, ulong nslots, ulong b0,
                             uint nblocks, uint pixels, uint sum, ulong off_q,
                             ulong off_first, ulong off_last (elements; hst_k_esrrf_roll_host)

   Catmull-Rom (a = 0.5), in float: cubic(v) = ((1.5|v| - 2.5)|v|)|v| + 1 for |v| < 1,
   (((-0.5|v| + 2.5)|v|) - 4)|v| + 2 for 1 <= |v| < 2, else 0. interp(I, r, c) = 0 unless
   0 <= r < rows and 0 <= c < cols; r0 = (int)floor(r - 0.5), c0 likewise; for j = 0..3 (columns
   cn = c0 - 1 + j inside [0, cols)): p = sum over i = 0..3 (rows rn = r0 - 1 + i inside
   [0, rows)) of I[rn, cn] * cubic(r - (rn + 0.5)), in i order from 0; q += p * cubic(c - (cn +
   0.5)), in j order from 0 (zero padding: taps outside are skipped, no renormalisation).

   Gradient arrays (roberts' outputs, rgc's grad2 inputs): the gradient of pixel q (counted over
     all frames) is (grad_col[q gstep], grad_row[q gstep + groff]): one array of interleaved
     (Gc, Gr) pairs bound to both pointers (gstep 2, groff 1: the chained path's grad and grad2)
     or two arrays (gstep 1, groff 0: liquid.h's gradient_col and gradient_row, NanoPyx's).
   roberts (NanoPyx's Roberts cross, one work-item per pixel): r0 = max(r1 - 1, 0), c0 likewise,
     a = I[r0,c1], b = I[r1,c0], c = I[r0,c0], d = I[r1,c1];
     Gc = ((a - b) + d) - c,  Gr = ((b - a) + d) - c  (p = r1*cols+c1).
   magnify (NanoPyx's ShiftAndMagnify; mag = (mag_row, mag_col), shift = (shift_row,
     shift_col)): out pixel (yM, xM) of channel k (of rowsM x colsM) = interp(channel k of in,
     (float)yM / mag_row - shift_row, (float)xM / mag_col - shift_col), the divisions
     hst_k_esrrf_div, then one float subtraction each (a shift of 0 leaves the position's
     bits); channels 1 or 2 (interleaved, as grad). The chained path runs it twice,
     shifts 0: on frames with mag_row = mag_col = mag (M; rowsM = rows*mag) and on grad with
     2*mag (grad2, rows*2mag x cols*2mag pixels of (Gc, Gr)).
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
     d2 > tSO^2. (Gx, Gy) = grad2's gradient at row (int)(vy mag G), column (int)(vx mag G),
     each clamped to [0, 2 rows mag - 1] / [0, 2 cols mag - 1]; u = (Gx, Gy) / |G|
     (hst_e_unit: scaled by a power of two first, so finite gradients never overflow; (0, 0)
     for a zero or non-finite one).
     w = (d2 exp(dx^2 k) exp(dy^2 k))^2 (= (d exp(-d^2 / tSS))^4: the Gaussian is separable, no
     sqrt; a w below 1e-30 counts as 0, so no subnormal appears and flush-to-zero devices
     agree), wd = w rsqrt(d2) (= w / d); W += w; if fma(uy, dy, ux dx) < 0:
     R += fma(-|fma(uy, dx, -(ux dy))|, wd, w) (= Dk w, Dk = 1 - |Gy dx - Gx dy| / (|G| d)).
     R = W > 0 ? R / W : 0; if sensitivity > 1: R = R^sensitivity (repeated products
     for an integer sensitivity <= 64, else hst_k_esrrf_pow); R < 0 -> 0; times M[yM, xM] when
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
     default; esrrf.h builds NVIDIA GPUs with 40 and hst_k_esrrf_nv_options' geometry, and CPUs
     with HST_K_ESRRF_CPU_OPTIONS; the groups past the end return at once) of all frames'
     pixels in order frame, then vertical strips of HST_E_TW (16) magnified columns, row-major
     inside a strip; so a group of 256 covers a 16 x 128 output tile (64 x 160 with K 40 and
     strips of 64). On the table path the whole strip rows of a run go by blocks of
     HST_E_NP (2) x mag rows: one item takes HST_E_NP pixels of one phase, mag rows apart,
     through the sample loop at once (each pixel's sums in its own order: the same bits); in
     builds for one radius (HST_E_JN, NVIDIA's from mag 2) by items of HST_E_NP pixels of one
     phase along a row, mag columns apart, a window row's weights read once for them all and
     each tile position once for every pixel whose window holds it. For each run of its
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
     twin (and the chained rgc's twin) makes the same table once per call. Same bits either
     way.
     Built with -DHST_E_MAG=m (and -DHST_E_RADIUS=r, a float literal), the kernel computes at
     magnification m (radius r) as constants and writes nothing when called with another: esrrf.h
     builds each magnification (and on NVIDIA a call's radius) its own program. The same
     operations, so the same bits.
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

   The macro-pixel correction of the images is esrrf.h's (no kernel: its ">>macro-pixel
   correction" defines it).

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
   FP contraction (see the top of this file), at every sensitivity: exp and a non-integer power
   are computed by the same sequences on both sides (hst_k_esrrf_exp, hst_k_esrrf_pow), never
   by libm or OpenCL's exp and pow (which may differ by device and by C library). Measured: the
   host twin, PoCL and an NVIDIA H100 bit for bit (tests/test_esrrf.c on each; a non-integer
   sensitivity: the host twin and PoCL); the host twin built by mingw-w64 and run under Wine
   bit for bit with Linux (scripts/windows_check.sh).
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
   the sample offsets dx, dy come from the
   pixel's phase (NanoPyx: vx - xc in double, whose float rounding would differ from pixel to
   pixel of a phase). Kept as REFERENCE.md states them: the
   margin int(radius * mag) (NanoPyx's chained OpenCL path of the seed uses 2 mag), and the Roberts
   cross storing the difference of pixels c - 1 and c at pixel c, which puts the gradient field,
   and so the eSRRF image, +0.5 input pixel down and right of the input (measured: blinking
   emitters at x = 8.75 and 11.25 peak at 9.4 and 11.6; NanoPyx's later eSRRF compensates with
   xyoffset = -0.5, the chained path reproduced here does not). */

/* The eSRRF program's source pieces (static storage), as hst_kernels_vocab_source. Thread-safe. */
HST_API const char *const *hst_kernels_esrrf_source(size_t *count);

/* Every kernel of the program, declared once (backend.h's "Declared kernels"): id, name,
   parameters in the source's order, host twin. The stream stages' kernels end in stream.h's
   block arguments (HST_KESRRF_BLOCK: ulong base, begin, end, total, int flags); the words
   before them are the arrays ("global") and the scalars that esrrf.h's stages list in the same
   order. The twins are those of a build without -DHST_E_NS (one sensitivity) and with
   -DHST_FP64 (sums in double: the host's), over the launch's range:
     - the stage kernels of a 2-D range (to_float, roberts, magnify, rgc) compute frames
       [begin + offset[1], begin + offset[1] + global[1]) clipped to end; to_float each
       frame's items whole (dimension 0 from 0, as stream.h launches), roberts, magnify and rgc
       its items [offset[0], offset[0] + global[0]) clipped to a frame's, as the kernels do
       (liquid.h splits one frame's rows among the host device's threads so);
     - rgc_fused maps its work by work-group over all frames [begin, end) (the kernel needs a
       range of at least ceil(nrows colsM / HST_E_K) x (end - begin) items, offsets unread):
       its twin computes frames [begin, end) whatever the range;
     - temporal (1-D over pixels, loop_slices) pixels [offset[0], offset[0] + global[0]);
     - stat and roll (1-D, -DHST_FP64 builds only) pixels [offset[0], offset[0] + global[0])
       below `pixels`, as the sweep launches stat at an offset;
     - sweep_sum (1-D) items [offset[0], offset[0] + global[0]) of one sensitivity.
   On an OpenCL device a range is rounded up to its work-group and the kernels bound-check
   against their data only: a sub-range of the adding kernels (temporal, sweep_sum) must end at
   the data's end or at a multiple of the work-group.
   tests/test_kernel_decls.c checks the signatures against the source. */
#define HST_KESRRF_BLOCK "ulong ulong ulong ulong int"
#define HST_ESRRF_KERNELS(X) \
    X(HST_KESRRF_TO_FLOAT, hst_k_esrrf_to_float, \
      "global global uint uint " HST_KESRRF_BLOCK, hst__kt_esrrf_to_float) \
    X(HST_KESRRF_ROBERTS, hst_k_esrrf_roberts, \
      "global global global uint uint uint uint " HST_KESRRF_BLOCK, hst__kt_esrrf_roberts) \
    X(HST_KESRRF_MAGNIFY, hst_k_esrrf_magnify, \
      "global global uint uint uint uint value value uint " HST_KESRRF_BLOCK, \
      hst__kt_esrrf_magnify) \
    X(HST_KESRRF_RGC, hst_k_esrrf_rgc, \
      "global global global global uint uint uint float float int uint uint " HST_KESRRF_BLOCK, \
      hst__kt_esrrf_rgc) \
    X(HST_KESRRF_RGC_FUSED, hst_k_esrrf_rgc_fused, \
      "global global uint uint uint float float int uint uint " HST_KESRRF_BLOCK, hst__kt_esrrf_rgc_fused) \
    X(HST_KESRRF_TEMPORAL, hst_k_esrrf_temporal, \
      "global global uint ulong uint ulong uint ulong " HST_KESRRF_BLOCK, hst__kt_esrrf_temporal) \
    X(HST_KESRRF_STAT, hst_k_esrrf_stat, "global global ulong uint uint int", hst__kt_esrrf_stat) \
    X(HST_KESRRF_ROLL, hst_k_esrrf_roll, "global global ulong ulong ulong ulong uint uint uint ulong ulong ulong", \
      hst__kt_esrrf_roll) \
    X(HST_KESRRF_SWEEP_SUM, hst_k_esrrf_sweep_sum, "global global uint uint uint uint", \
      hst__kt_esrrf_sweep_sum)
enum { HST_ESRRF_KERNELS(HST_KERNEL_ID) HST_KESRRF_COUNT };
/* The family (name "esrrf", the source above, the declarations): static storage. Thread-safe. */
HST_API const hst_kernel_family *hst_kernels_esrrf_family(void);

/* Host twins (pointers at global frame base, frames [begin, end) relative to base; the same
   bits as the device under the conditions above). Thread-safe. hst_k_esrrf_rgc_host computes
   whole rows as the fused twin does (hst_k_esrrf_rgc_fused_host_rows below: a stack tile of
   unit gradients, here read from grad2, the (w, w / d) table, the lanes and their AVX2 /
   AVX-512 builds; ~60 KiB of stack), with hst_e_rgc's bits. */
HST_API void hst_k_esrrf_roberts_host(const float *frames, float *grad_col, float *grad_row,
                                      uint32_t rows, uint32_t cols, uint32_t gstep,
                                      uint32_t groff, uint64_t base, uint64_t begin,
                                      uint64_t end, uint64_t total);
HST_API void hst_k_esrrf_magnify_host(const float *in, float *out, uint32_t rows, uint32_t cols,
                                      uint32_t rowsM, uint32_t colsM, float mag_row,
                                      float mag_col, float shift_row, float shift_col,
                                      uint32_t channels, uint64_t base, uint64_t begin,
                                      uint64_t end, uint64_t total);
HST_API void hst_k_esrrf_rgc_host(const float *grad_col, const float *grad_row,
                                  const float *magnified, float *rgc, uint32_t rows,
                                  uint32_t cols, uint32_t mag, float radius, float sensitivity,
                                  int intensity_weighting, uint32_t gstep, uint32_t groff,
                                  uint64_t base, uint64_t begin, uint64_t end, uint64_t total);
#ifdef HST_KERNELS_TEST_API   /* the tests' references (esrrf.h runs the twins below) */
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
   CPU has, where the fma is one instruction; the same bits every way); a radius whose samples of
   one row do not fit (above ~10) goes per sample, with the same bits. Needs ~60 KiB of stack.
   No allocation, no failure path. Thread-safe. */
HST_API void hst_k_esrrf_rgc_fused_host_rows(const float *frame, float *rgc_frame,
                                             uint32_t rows, uint32_t cols, uint32_t mag,
                                             float radius, float sensitivity,
                                             int intensity_weighting, uint32_t yM0,
                                             uint32_t yM1);
#endif
/* hst_k_esrrf_rgc_fused_host_rows into a window of the output: out holds magnified rows [out_row0, ...) of the frame
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
   (the kernel: all of them), so threads may share a block. lag nonzero: the lag-1 sums, each
   block's first frame inside a time point reading the frame before it (the stage's halo_lo 1);
   0: the twin of a -DHST_E_NO_LAG1 build (the lag-1 sums left alone; halo_lo 0 will do).
   Thread-safe. */
HST_API void hst_k_esrrf_temporal_host(const float *rgc, double *acc, uint32_t pixels,
                                       uint64_t frames_per_tp, uint32_t acc_tps, uint64_t frame0,
                                       uint32_t skip, uint64_t frames_total, uint32_t i0,
                                       uint32_t i1, uint64_t base, uint64_t begin, uint64_t end,
                                       int lag);
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
   Thread-safe. The tests' (HST_KERNELS_TEST_API): the kernels and twins use them inside. */
#ifdef HST_KERNELS_TEST_API
HST_API float hst_k_esrrf_rcp(float b);
HST_API float hst_k_esrrf_div(float a, float b);
HST_API float hst_k_esrrf_rsqrt(float x);

/* exp(x) for x <= 0 as the kernels compute it (0 below -80; ~2 ulp; the final times 2^k is
   exact: the device and the twin build 2^k from its exponent bits). Thread-safe. */
HST_API float hst_k_esrrf_exp(float x);

/* R^s for 0 <= R <= 1, s > 0 as the kernels compute it (a non-integer sensitivity): 2^(s log2 R)
   with s log2 R in float-float and hst_k_esrrf_exp's polynomial, no pow; 0 where R < FLT_MIN or
   R^s < 2^-124. Within 2.1e-7 relative of pow in double for s <= 100 (2e6 R per s, 13 values of
   s: tests/windows/check.c checks 1e5). Thread-safe. */
HST_API float hst_k_esrrf_pow(float R, float s);
#endif

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

/* A rolling window's sum `sum` (0 S1, 1 S2, 2 lag-1 products, 3 first frame, 4 last frame; as
   hst_k_esrrf_temporal's) from the sums of its nblocks (>= 1) blocks of frames, b0 .. b0 +
   nblocks - 1, in a ring of nslots slots of block_elems doubles each (block b's sum q at ring +
   (b % nslots) block_elems + off_q; its first and last frames at off_first and off_last): S1,
   S2 the ordered sum from block b0 on; the lag-1 sum adds, before each later block's own, the
   product of the previous block's last frame and this block's first (frames that are neighbours
   across the blocks' edge; the product of two floats is exact in double); first is block b0's,
   last the last block's. Pixels [i0, i1) of `pixels` into win[win_off + i] (esrrf.h's rolling
   time points: the device's ring of block sums, or the host's of the requested sums). Thread-
   safe. */
HST_API void hst_k_esrrf_roll_host(const double *ring, double *win, uint64_t win_off,
                                   uint64_t block_elems, uint64_t nslots, uint64_t b0,
                                   uint32_t nblocks, uint32_t sum, uint64_t off_q,
                                   uint64_t off_first, uint64_t off_last, uint64_t i0,
                                   uint64_t i1);

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
/* Half-pixel positions the chained rgc kernel's tile of unit gradients holds, and entries of
   its (w, wd) table (mag 5, radius 1.5: one row's 5 phases x 49 samples): 8 KiB together,
   which with the fused kernel's 24 KiB keeps the program within 32 KiB of local memory where
   an implementation adds up its kernels' (Oclgrind does). */
#define HST_K_ESRRF_CHAINED_TILE 640
#define HST_K_ESRRF_CHAINED_WTAB 384
/* The fused kernel's (w, wd) table by default: entries of 2 floats (HST_E_WTAB) */
#define HST_K_ESRRF_WTAB 1536
/* The fused kernel's tile on NVIDIA GPUs by default: half-pixel positions (HST_E_TILE), and 3
   floats a 2 positions after it (HST_E_ITAB) for the separable tile's scratch (hst_e_tileg) and
   then the intensity's table (hst_e_itab): 20 + 15 KiB of local memory, and 12 KiB for the
   default (w, wd) table, within the 48 KiB an NVIDIA GPU gives a work-group */
#define HST_K_ESRRF_NV_TILE 2560
/* Its strips' magnified columns (HST_E_TW) at magnification mag: the fewest whole groups of
   an item's pixels (HST_K_ESRRF_NV_NP of a phase, mag columns apart) of at least 64 columns, so
   that a strip row's pixels make whole items (hst_e_fused_rowx) */
#define HST_K_ESRRF_NV_TW(mag) \
    (HST_K_ESRRF_NV_NP * (mag) * ((64u + HST_K_ESRRF_NV_NP * (mag) - 1) / (HST_K_ESRRF_NV_NP * (mag))))
/* Its tile rows as wide as the widest strip's (HST_E_NLS) from this magnification: measured on an
   H100 (1000 x 1000 frames, radius 1.5, the magnification and radius constants; ms a frame,
   without / with, 2026-12-06): mag 1 0.161 / 0.178 (rows of 133), 2 0.225 / 0.223, 3 0.366 /
   0.335, 4 0.548 / 0.519, 5 0.733 / 0.674, 6 1.073 / 0.993, 7 1.544 / 1.487, 8 1.906 / 1.799 */
#define HST_K_ESRRF_NV_NLS_MAG 3
/* Its same-phase pixels per work-item (HST_E_NP): along a row, 8 against 4 and 16 on an H100
   (1000 x 1000 frames, mag 5, radius 1.5, 2026-12-07): 0.530 against 0.566 and 0.546 ms a
   frame; down a column at mag 1, 8 against 4: 0.161 / 0.163 (2026-12-06) */
#define HST_K_ESRRF_NV_NP 8u
/* Its items along rows (HST_E_JN, the radius's window: hst_e_fused_rowx) from this
   magnification, down columns below it: measured on an H100 (1000 x 1000 frames, radius 1.5,
   the magnification and radius constants; ms a frame, the columns of 2026-12-06 (4 pixels at
   mags 2, 3, 4 and 8) against rows, 2026-12-07): mag 1 0.142 / 0.170, 2 0.190 / 0.186, 3 0.327 /
   0.294, 4 0.471 / 0.418, 5 0.582 / 0.530, 6 0.879 / 0.762, 7 1.356 / 1.036, 8 1.577 / 1.225 */
#define HST_K_ESRRF_NV_ROWX_MAG 2
/* The fused kernel's geometry for NVIDIA GPUs (esrrf.h adds the register cap where the compiler
   takes it, and the work indices per item) at magnification mag and radius (input pixels),
   with a (w, wd) table of wtab
   entries (HST_E_WTAB; 0: the default's HST_K_ESRRF_WTAB) in local_bytes of local memory a
   work-group (CL_DEVICE_LOCAL_MEM_SIZE): build options into buf (n bytes; their length returned,
   0 where they do not fit): strips of HST_K_ESRRF_NV_TW(mag) columns (HST_E_TW), HST_K_ESRRF_NV_NP
   pixels an item, along a row from HST_K_ESRRF_NV_ROWX_MAG (HST_E_JN, the window's positions a
   side), from HST_K_ESRRF_NV_NLS_MAG tile rows as wide as any strip's (HST_E_NLS:
   the sample loop's reads at constant offsets), the tile and its scratch (HST_K_ESRRF_NV_TILE), shrunk together where a larger table
   would not fit beside them (mags 6 and 8 at radius 1.5: 1764 and 3136 entries). Every geometry
   gives the same bits; measured on an H100 (2026-12-06, 1000 x 1000 frames, radius 1.5): mag 6
   1.280 ms a frame with the default tile (over the 48 KiB) against 1.266 with 2500 positions. */
HST_API size_t hst_k_esrrf_nv_options(uint32_t mag, float radius, uint64_t wtab, uint64_t local_bytes, char *buf,
                                      size_t n);
/* The fused kernel's build options for CPU devices (PoCL; esrrf.h passes them, with
   HST_K_ESRRF_CPU_K(mag) work indices per item, to CPUs with HST_K_ESRRF_CPU_LOCAL_BYTES of local
   memory): 16 same-phase pixels per work-item (HST_E_NP), their sample loop and intensity
   weight one float16 (hst_e_interpn) over a second copy of the tile laid out by columns
   (HST_E_TILE_T: hst_e_tile_t), so that the pixels' unit gradients, 2 tile rows apart, lie
   side by side; strips of 32 columns and a tile of
   HST_K_ESRRF_CPU_TILE positions (the default with HST_E_TILE_T), made separably
   (hst_e_tile_sep). Without a vector, PoCL runs the per-item loop a lane at a time. The same
   bits (each lane the scalar loop's operations in its order). Measured with PoCL 3.1 on 2 cores
   (AVX-512; esrrf_kernel_bench --device 0:0 --size 256 --per-item K, mag 5; bench/RESULTS.md),
   CPU ms per frame: 141 with 8 pixels, K 8, strips of 16 and the tile per position; 54 with
   this build at 8 pixels and K 32; 41.5 at 16 and K 48 (K 32: 47.2; K 64, 96: 41.9, 40.3). On
   a 2-core AMD EPYC (2026-12-05): 32.6 at K 48; 25.8 with an item a strip row's pixels in turn
   (HST_E_RUN), so that the intensity's column sums serve the row; 22.1 with the table and the
   pixels' values by vectors (hst_e_wtab_n, hst_e_outn); 17.4-17.9 in groups of one item
   (HST_K_ESRRF_CPU_LOCAL, below); 15.4-15.9 with the per-pixel calls inlined (HST_E_CPU_INL). */
#define HST_K_ESRRF_CPU_NP 16
#define HST_K_ESRRF_CPU_TW 32
#define HST_K_ESRRF_CPU_OPTIONS                                                                 \
    "-DHST_E_NP=" HST__KXSTR(HST_K_ESRRF_CPU_NP) " -DHST_E_TILE_T -DHST_E_TW=" HST__KXSTR(HST_K_ESRRF_CPU_TW)
/* Its work-groups, of HST_K_ESRRF_CPU_LOCAL items, and work indices per item at magnification
   mag: HST_K_ESRRF_CPU_BLOCKS whole blocks of hst_e_fused_rows (HST_E_NP mag rows of a strip),
   so that a group's segments start and end at blocks' first rows (hst_e_half), a group makes
   its (w, wd) table once for them all, and PoCL runs no work-item loop around the tile's
   steps. CPU ms a frame (the same bench, 2-core AMD EPYC, 2026-12-05): mag 5 22.0 with
   PoCL's default group and K 48, 17.3-17.9 with one item and 5-20 blocks; mag 1, 2, 3, 8:
   6.4, 7.4, 10.0, 53.5 -> 3.7, 5.5, 8.3, 42.7 (10 blocks). */
#define HST_K_ESRRF_CPU_LOCAL 1
#define HST_K_ESRRF_CPU_BLOCKS 10
#define HST_K_ESRRF_CPU_K(mag) \
    ((unsigned)HST_K_ESRRF_CPU_NP * HST_K_ESRRF_CPU_TW * HST_K_ESRRF_CPU_BLOCKS * (unsigned)(mag))
#define HST_K_ESRRF_CPU_TILE 4608
/* Its local memory: the tile, its copy by columns and hst_e_tile_sep's scratch (3
   HST_K_ESRRF_CPU_TILE float2), and the table: 120 KiB */
#define HST_K_ESRRF_CPU_LOCAL_BYTES ((3 * HST_K_ESRRF_CPU_TILE + HST_K_ESRRF_WTAB) * 8)
/* The chained rgc kernel's work-group, (L, 1), at (mag, radius): the largest L of 256, 128, ..
   16 whose row of pixels has its tile within HST_K_ESRRF_CHAINED_TILE positions (radius 1.5:
   mag 1 32, mag 2 and 3 64, mag 4 and above 128), and at most max_work_group (the device's
   limit, >= 1). Thread-safe. */
HST_API size_t hst_k_esrrf_rgc_local(uint32_t mag, float radius, size_t max_work_group);


/* <<esrrf kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_ESRRF_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_ESRRF_IMPLEMENTATION) && !defined(HST__KERNELS_ESRRF_IMPLEMENTATION_DONE)
#define HST__KERNELS_ESRRF_IMPLEMENTATION_DONE

#include <math.h>
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* getenv: $HST_HOST_ISA */
#include <string.h>

HST__KERNELS_FP_BEGIN

/* >>esrrf kernels */

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
"/* (e / n, e % n), e >= 0, n > 0 */\n"
"int2 hst_e_dm(int e, int n)\n"
"{\n"
"  int a = e / n;\n"
"  return (int2)(a, e - a * n);\n"
"}\n"
"\n"
"/* (e / n, e % n) from e's, q, and L's, d */\n"
"int2 hst_e_dm_next(int2 q, int2 d, int n)\n"
"{\n"
"  q = q + d;\n"
"  return q.y >= n ? (int2)(q.x + 1, q.y - n) : q;\n"
"}\n"
"\n"
"/* A work-group's loop over e = lid, lid + L, .. < na n (n >= 0) as q = (e / n, e % n): two\n"
"   divisions before it, none a step (a signed one is 27 instructions on an H100) */\n"
"#define HST_E_FOR_DM(q, lid, L, na, n)                                                     \\\n"
"  for (int2 d_ = hst_e_dm(L, max(n, 1)), q = hst_e_dm(lid, max(n, 1)); n > 0 && q.x < (na); \\\n"
"       q = hst_e_dm_next(q, d_, n))\n"
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
"/* Roberts cross from a = f(r0, c1), b = f(r1, c0), c = f(r0, c0), d = f(r1, c1) */\n"
"void hst_e_roberts_of(float a, float b, float c, float d, float *g)\n"
"{\n"
"  float s = a - b;\n"
"  s = s + d;\n"
"  g[0] = s - c;\n"
"  s = b - a;\n"
"  s = s + d;\n"
"  g[1] = s - c;\n"
"}\n"
"\n"
"/* Roberts cross at pixel (r1, c1): g[0] = Gc, g[1] = Gr */\n"
"void hst_e_roberts(__global const float *f, int cols, int r1, int c1, float *g)\n"
"{\n"
"  int r0 = r1 > 0 ? r1 - 1 : 0;\n"
"  int c0 = c1 > 0 ? c1 - 1 : 0;\n"
"  hst_e_roberts_of(f[(long)r0 * cols + c1], f[(long)r1 * cols + c0], f[(long)r0 * cols + c0],\n"
"                   f[(long)r1 * cols + c1], g);\n"
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
"/* a / b from y = hst_e_rcp(b) (one serves several a): q = a y, then Markstein's correction\n"
"   q += (a - b q) y in fma */\n"
"float hst_e_divy(float a, float b, float y)\n"
"{\n"
"  float q = a * y;\n"
"  float r = fma(-b, q, a);\n"
"  return fma(r, y, q);\n"
"}\n"
"\n"
"float hst_e_div(float a, float b)\n"
"{\n"
"  return hst_e_divy(a, b, hst_e_rcp(b));\n"
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
"\n";

static const char hst__esrrf_src_pow[] =
"\n"
"/* ln m = a + *lo for m = 1 + f in [0.707, 1.414]: u = f / (2 + f) in float-float (u0 + ul:\n"
"   2 + f as dh + dl exactly, the division's residual by fma), then 2 atanh(u) = 2u + 2u (z/3\n"
"   + z^2/5 + z^3/7 + z^4/9 + z^5/11), z = u0^2 (the next term below 2^-33 relative)\n"
"   (hst__e_lnm on the host) */\n"
"float hst_e_lnm(float f, float *lo)\n"
"{\n"
"  float dh = 2.0f + f;\n"
"  float dl = dh - 2.0f;\n"
"  dl = f - dl;\n"
"  float u0 = hst_e_div(f, dh);\n"
"  float res = fma(-u0, dh, f);\n"
"  res = fma(-u0, dl, res);\n"
"  float ul = res * hst_e_rcp(dh);\n"
"  float z = u0 * u0;\n"
"  float q = z * 0.0909090909f;\n"
"  q = q + 0.111111111f;\n"
"  q = q * z;\n"
"  q = q + 0.142857143f;\n"
"  q = q * z;\n"
"  q = q + 0.2f;\n"
"  q = q * z;\n"
"  q = q + 0.333333333f;\n"
"  q = q * z;\n"
"  float a = 2.0f * u0;\n"
"  q = a * q;\n"
"  ul = 2.0f * ul;\n"
"  *lo = ul + q;\n"
"  return a;\n"
"}\n"
"\n"
"/* R^s for 0 <= R <= 1, s > 0, no pow: R = m 2^e (m in [0.707, 1.414]), s log2 R = s e +\n"
"   s log2 m in float-float (log2 m from hst_e_lnm times log2(e) in two parts, the products'\n"
"   errors by fma, the sum's by TwoSum), then 2^(its fraction f, |f ln 2| < 0.35) by hst_e_exp\n"
"   (its k is then -1, 0 or 1) times 2^k; 0 for R\n"
"   below FLT_MIN or a result below 2^-124 (no subnormal: flush-to-zero devices agree).\n"
"   Within 2.1e-7 relative of pow in double for s <= 100 (hst_k_esrrf_pow on the host) */\n"
"float hst_e_pow(float R, float s)\n"
"{\n"
"  if (R < 1.17549435e-38f) return 0.0f;\n"
"  uint b = as_uint(R);\n"
"  int e = (int)(b >> 23) - 127;\n"
"  float m = as_float((b & 0x007FFFFFu) | 0x3F800000u);\n"
"  if (m > 1.41421356f) {\n"
"    m = 0.5f * m;\n"
"    e = e + 1;\n"
"  }\n"
"  float ef = (float)e;\n"
"  float lo;\n"
"  float a = hst_e_lnm(m - 1.0f, &lo);\n"
"  float L2h = a * 1.44269502f;\n"
"  float L2l = fma(a, 1.44269502f, -L2h);\n"
"  L2l = fma(a, 1.92596299e-8f, L2l);\n"
"  L2l = fma(lo, 1.44269502f, L2l);\n"
"  float P1 = s * ef;\n"
"  float P1e = fma(s, ef, -P1);\n"
"  float P2 = s * L2h;\n"
"  float P2e = fma(s, L2h, -P2);\n"
"  float sh = P1 + P2;\n"
"  float bb = sh - P1;\n"
"  lo = sh - bb;\n"
"  lo = P1 - lo;\n"
"  bb = P2 - bb;\n"
"  lo = lo + bb;\n"
"  lo = lo + P1e;\n"
"  lo = lo + P2e;\n"
"  lo = fma(s, L2l, lo);\n"
"  if (sh < -124.0f) return 0.0f;\n"
"  float k = floor(sh + 0.5f);\n"
"  float r = sh - k;\n"
"  r = r + lo;\n"
"  r = r * 0.693147182f;\n"
"  return hst_e_exp(r) * as_float((uint)((int)k + 127) << 23);\n"
"}\n"
"\n"
"/* R^s for R >= 0, s > 1: repeated products for an integer s <= 64, else hst_e_pow */\n"
"float hst_e_sens(float R, float s)\n"
"{\n"
"  if (s <= 64.0f && s == floor(s)) {\n"
"    int n = (int)s;\n"
"    float p = R;\n"
"    for (int e = 1; e < n; ++e) p = p * R;\n"
"    return p;\n"
"  }\n"
"  return hst_e_pow(R, s);\n"
"}\n"
"\n"
"/* R / W (0 where W is not positive), negatives to 0: hst_e_final's first steps (hst__e_ratio\n"
"   on the host) */\n"
"float hst_e_ratio(float R, float W)\n"
"{\n"
"  R = W > 0.0f ? hst_e_div(R, W) : 0.0f;\n"
"  return R < 0.0f ? 0.0f : R;\n"
"}\n"
"\n"
"/* hst_e_final's rest from the ratio q: the sensitivity power (0 stays 0) */\n"
"float hst_e_final_q(float q, float sens)\n"
"{\n"
"  return sens > 1.0f ? hst_e_sens(q, sens) : q;\n"
"}\n"
"\n"
"/* R / W, the sensitivity power, negatives to 0 (hst__e_ratio, hst__e_put on the host) */\n"
"float hst_e_final(float R, float W, float sens)\n"
"{\n"
"  return hst_e_final_q(hst_e_ratio(R, W), sens);\n"
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
"/* The vertical taps of the Roberts gradients of frame f at column cn (inside the frame): rows\n"
"   ry .. ry + ny - 1, those inside the frame (i in [ia, ib)), weighted by w, summed in order:\n"
"   (Gc, Gr). A row's two values serve the next row's gradients as their row r0's\n"
"   (hst_e_roberts's values: 2 loads a row, not 4, a row's address a step from the last's); the\n"
"   first row's r0 clamped into the frame (row 0 serves itself) */\n"
"float2 hst_e_vsum(__global const float *f, int rows, int cols, int ry, int ny, const float *w,\n"
"                  int cn)\n"
"{\n"
"  float pc = 0.0f, pr = 0.0f;\n"
"  int ia = max(0, -ry), ib = min(ny, rows - ry), c0 = cn > 0 ? cn - 1 : 0;\n"
"  __global const float *p = f + (long)clamp(ry + ia - 1, 0, rows - 1) * cols;\n"
"  float a = p[cn], c = p[c0];\n"
"  p = f + (long)(ry + ia) * cols;\n"
"  for (int i = ia; i < ib; ++i, p += cols) {\n"
"    float rg[2], b = p[c0], d = p[cn];\n"
"    hst_e_roberts_of(a, b, c, d, rg);\n"
"    a = d;\n"
"    c = b;\n"
"    float t = rg[0] * w[i];\n"
"    pc = pc + t;\n"
"    t = rg[1] * w[i];\n"
"    pr = pr + t;\n"
"  }\n"
"  return (float2)(pc, pr);\n"
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
"    float2 p = hst_e_vsum(f, rows, cols, ry, ny, wy, cn);\n"
"    float t = p.x * wx[j];\n"
"    qc = qc + t;\n"
"    t = p.y * wx[j];\n"
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
"\n";

static const char hst__esrrf_src_wd[] =
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
"#define HST_E_WTAB " HST__KXSTR(HST_K_ESRRF_WTAB) "\n"
"#endif\n"
"/* The RGC sums (R, W) of magnified pixel (yM, xM) (inside the margin; hst_e_final gives its\n"
"   value at a sensitivity). Gradients: mode 0 from grad2 (src:\n"
"   rows*2mag x cols*2mag pixels of (Gc, Gr)); mode 1 interpolated from the frame src per\n"
"   sample; mode 2 from tile: the unit gradients (hst_e_unit) of the half-pixel positions\n"
"   (k / 2, l / 2), k = k0.., l = l0.., nl per row, as mode 1 computes them; in mode 0 the\n"
"   gradient of grad2 pixel p is (src[p gstep], src2[p gstep + groff]): (2, 1) for one\n"
"   interleaved array (src2 = src), (1, 0) for two. Sample offsets\n"
"   come from the pixel's phase (yM % mag, xM % mag), so (w, wd) of sample (j, i) is the same\n"
"   for every pixel of a phase: with wt (usewt 1) they are read from the work-group's table,\n"
"   at 2 (((py mag + px) n + j - j0) n + i - j0), n = j1 - j0 */\n"
"float2 hst_e_rgc(__global const float *src, __global const float *src2, int gstep, int groff,\n"
"                 __local const float *tile, int mode, int rows, int cols, int mag, int yM,\n"
"                 int xM, float radius, int k0, int l0, int nl, __local const float *wt,\n"
"                 int usewt)\n"
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
"          long o = ((long)iy * cols2 + ix) * gstep;\n"
"          gx = src[o];\n"
"          gy = src2[o + groff];\n"
"        }\n"
"        hst_e_unit(gx, gy, u);\n"
"      }\n"
"      hst_e_acc(w, wd, dx, dy, u[0], u[1], &W, &R);\n"
"    }\n"
"  }\n"
"  return (float2)(R, W);\n"
"}\n"
"\n";

static const char hst__esrrf_src_wtabn[] =
"\n"
"#ifdef HST_E_TILE_T\n"
"/* hst_e_wtable's entries e .. e + HST_E_NP - 1 at once: each lane hst_e_wd2's operations in\n"
"   its order, a lane that does not count computed and then set to 0: its bits. Vector\n"
"   arguments and | of comparisons (hst_e_unitn says why) */\n"
"void hst_e_wtab_n(__local float *wt, __local const float *ax, int mag, int n, int py0,\n"
"                  const float *c, int e)\n"
"{\n"
"  float g[4][HST_E_NP], o[2][HST_E_NP];\n"
"  for (int m = 0; m < HST_E_NP; ++m) {\n"
"    int i = (e + m) % n, r = (e + m) / n;\n"
"    int j = r % n;\n"
"    r = r / n;\n"
"    int a = 2 * ((r % mag) * n + i), b = 2 * ((py0 + r / mag) * n + j);\n"
"    g[0][m] = ax[a];\n"
"    g[1][m] = ax[b];\n"
"    g[2][m] = ax[a + 1];\n"
"    g[3][m] = ax[b + 1];\n"
"  }\n"
"  HST_E_FV dx = HST_E_VLOAD(0, g[0]), dy = HST_E_VLOAD(0, g[1]);\n"
"  HST_E_FV t = dy * dy;\n"
"  HST_E_FV d2 = fma(dx, dx, t);\n"
"  HST_E_FV w = HST_E_VLOAD(0, g[2]) * HST_E_VLOAD(0, g[3]);\n"
"  w = d2 * w;\n"
"  w = w * w;\n"
"  HST_E_IV off = (d2 == 0.0f) | (d2 > (HST_E_FV)(c[1])) | (w < 1e-30f);\n"
"  HST_E_VSTORE(select(w, (HST_E_FV)(0.0f), off), 0, o[0]);\n"
"  HST_E_VSTORE(select(w * hst_e_rsqrtn(d2), (HST_E_FV)(0.0f), off), 0, o[1]);\n"
"  for (int m = 0; m < HST_E_NP; ++m) {\n"
"    wt[2 * (e + m)] = o[0][m];\n"
"    wt[2 * (e + m) + 1] = o[1][m];\n"
"  }\n"
"}\n"
"#endif\n";

static const char hst__esrrf_src_wtab[] =
"\n"

"/* The (w, wd) table of every sample of the phases of rows py0 .. py0 + npy - 1 (all: 0, mag)\n"
"   and every column phase (hst_e_rgc's wt from row phase py0), made by the work-group: 1 when\n"
"   it fits cap entries (mag 5, radius 1.5: 25 phases x 49 samples = 1225). First the mag n\n"
"   axis offsets of phase p, sample i and their hst_e_axexp into ax (2 mag n floats: the\n"
"   tile's memory, free until the tile is made) */\n"
"int hst_e_wtable(__local float *wt, __local float *ax, int mag, float radius, int j0, int n,\n"
"                 int py0, int npy, int cap, int lid, int L)\n"
"{\n"
"  int nt = npy * mag * n * n;\n"
"  if (nt > cap) return 0;\n"
"  float c[2];\n"
"  hst_e_consts(radius, c);\n"
"  for (int e = lid; e < mag * n; e += L) {\n"
"    int p = e / n, i = e % n;\n"
"    float d = fma((float)(hst_e_base(p, mag) + j0 + i), 0.5f, -hst_e_centre(p, mag));\n"
"    ax[2 * e] = d;\n"
"    ax[2 * e + 1] = hst_e_axexp(d, c);\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  int ev = 0; /* the entries made HST_E_NP at a time */\n"
"#ifdef HST_E_TILE_T\n"
"  ev = nt / HST_E_NP * HST_E_NP;\n"
"  for (int e = lid * HST_E_NP; e < ev; e += L * HST_E_NP)\n"
"    hst_e_wtab_n(wt, ax, mag, n, py0, c, e);\n"
"#endif\n"
"  for (int e = ev + lid; e < nt; e += L) {\n"
"    int i = e % n, r = e / n;\n"
"    int j = r % n;\n"
"    r = r / n;\n"
"    int a = 2 * ((r % mag) * n + i), b = 2 * ((py0 + r / mag) * n + j);\n"
"    float wd;\n"
"    wt[2 * e] = hst_e_wd2(ax[a], ax[b], ax[a + 1], ax[b + 1], c, &wd);\n"
"    wt[2 * e + 1] = wd;\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  return 1;\n"
"}\n"
"\n"
"/* hst_e_rgc in mode 2 with the table (from row phase py0), in its own function: no\n"
"   per-sample weight code (fewer registers); the same samples in the same order, so the same\n"
"   bits */\n"
"float2 hst_e_rgc_tab(__local const float *tile, __local const float *wt, int py0, int rows,\n"
"                     int cols, int mag, int yM, int xM, int k0, int l0, int nl, int j0, int n)\n"
"{\n"
"  int py = yM % mag, px = xM % mag;\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  int fy = (int)(2.0f * cy) + j0, fx = (int)(2.0f * cx) + j0;\n"
"  int by = 2 * (yM / mag) + fy - j0, bx = 2 * (xM / mag) + fx - j0; /* hst_e_base */\n"
"  /* samples i in [ia, ib): 0 < (bx + j0 + i) / 2 <= colsM - 1 (the others add +0) */\n"
"  int ia = max(0, 1 - bx - j0), ib = min(n, 2 * (cols * mag - 1) - bx - j0 + 1);\n"
"  __local const float *wp = wt + ((py - py0) * mag + px) * n * n * 2;\n"
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
"/* The fused kernel's tile of half-pixel unit gradients, float2 positions (hst_e_span); twice\n"
"   as many where the copy by columns doubles it (CPU builds: local memory is plentiful) */\n"
"#ifndef HST_E_TILE\n"
"#ifdef HST_E_TILE_T\n"
"#define HST_E_TILE " HST__KXSTR(HST_K_ESRRF_CPU_TILE) "\n"
"#else\n"
"#define HST_E_TILE 1536\n"
"#endif\n"
"#endif\n"
"#ifdef HST_E_TILE_T /* (CPU devices: the same-phase pixels one vector) */\n"
"#define HST_E_CAT(a, b) a##b\n"
"#define HST_E_XCAT(a, b) HST_E_CAT(a, b)\n"
"#define HST_E_FV HST_E_XCAT(float, HST_E_NP)\n"
"#define HST_E_VLOAD HST_E_XCAT(vload, HST_E_NP)\n"
"#define HST_E_VSTORE HST_E_XCAT(vstore, HST_E_NP)\n"
"#define HST_E_IV HST_E_XCAT(int, HST_E_NP)\n"
"#define HST_E_UV HST_E_XCAT(uint, HST_E_NP)\n"
"#define HST_E_ASU HST_E_XCAT(as_uint, HST_E_NP)\n"
"#define HST_E_ASF HST_E_XCAT(as_float, HST_E_NP)\n"
"#define HST_E_CVI HST_E_XCAT(convert_int, HST_E_NP)\n"
"#define HST_E_CVF HST_E_XCAT(convert_float, HST_E_NP)\n"
"/* (0, 1, .. HST_E_NP - 1) */\n"
"HST_E_IV hst_e_lanes(void)\n"
"{\n"
"  const int m[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};\n"
"  return HST_E_VLOAD(0, m);\n"
"}\n"
"#define HST_E_WI(m) (m) /* pixel m's W in hst_e_rgc_tabn's: its own; elsewhere W[0] */\n"
"/* hst_e_fused_rows' pixels of a row an item in turn: on CPU builds a strip row's (a group's\n"
"   items run in turn on a CPU, so fewer and longer ones cost nothing there), so that a\n"
"   column's intensity sums (hst_e_icol) serve the row's mag pixels that read it */\n"
"#define HST_E_RUN(ws) (ws)\n"
"#define HST_E_CPU_INL __attribute__((always_inline))\n"
"#else\n"
"#define HST_E_WI(m) 0\n"
"#define HST_E_RUN(ws) 1u\n"
"#define HST_E_CPU_INL\n"
"#endif\n"
"\n"
"#ifndef HST_E_TILE_T\n"
"/* One sample (w, wd) = w at offset (dx, dy) of hst_e_rgc_tabn's HST_E_NP pixels, pixel m's\n"
"   unit gradient at u[2 m nl] (2 m half-pixel rows down the tile), into R[m] */\n"
"void hst_e_tabs(float2 w, float dx, float dy, __local const float2 *u, int nl, float *R)\n"
"{\n"
"  for (int m = 0; m < HST_E_NP; ++m, u += 2 * nl)\n"
"    hst_e_accr(w.x, w.y, dx, dy, u[0].x, u[0].y, &R[m]);\n"
"}\n"
"#endif\n";

static const char hst__esrrf_src_tabn[] =
"\n"
"/* hst_e_rgc_tab of the HST_E_NP pixels (yM + m mag, xM), m < HST_E_NP, at once into (R[m],\n"
"   W[HST_E_WI(m)]), where all have the same sample rows [ja, jb) (else 0, and nothing written;\n"
"   CPU builds take each lane's own rows and W): one phase, so the same (w, wd) reads and\n"
"   offsets, pixel m's unit gradients 2 m half-pixel rows down the tile. Each R[m] sums its\n"
"   samples in hst_e_rgc_tab's order, and its W the same weights in the same order: each\n"
"   pixel gets hst_e_rgc_tab's bits */\n"
"HST_E_CPU_INL int hst_e_rgc_tabn(__local const float *tile, __local const float *wt, int rows,\n"
"                                 int cols, int mag, int yM, int xM, int k0, int l0, int nk,\n"
"                                 int nl, int j0, int n, float *R, float *Wm)\n"
"{\n"
"  int py = yM % mag, px = xM % mag;\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  int fy = (int)(2.0f * cy) + j0, fx = (int)(2.0f * cx) + j0;\n"
"  int by = 2 * (yM / mag) + fy - j0, bx = 2 * (xM / mag) + fx - j0; /* hst_e_base */\n"
"  int ja = max(0, 1 - by - j0), jb = min(n, 2 * (rows * mag - 1) - by - j0 + 1);\n"
"  int d = 2 * (HST_E_NP - 1); /* the last pixel's rows (the bounds fall with by: the middle\n"
"                                 pixels' lie between) */\n"
"#ifdef HST_E_TILE_T\n"
"  /* the rows of every lane, each lane adding a row outside its own as 0 (its sums are never\n"
"     -0: adding 0 leaves them be) */\n"
"  HST_E_IV bm = by + 2 * hst_e_lanes(), jam = max(0, 1 - bm - j0);\n"
"  HST_E_IV jbm = min(n, 2 * (rows * mag - 1) - bm - j0 + 1);\n"
"  ja = max(0, 1 - by - d - j0);\n"
"  HST_E_FV Wv = (HST_E_FV)(0.0f);\n"
"#else\n"
"  if (ja != max(0, 1 - by - d - j0) || jb != min(n, 2 * (rows * mag - 1) - by - d - j0 + 1))\n"
"    return 0;\n"
"#endif\n"
"  int ia = max(0, 1 - bx - j0), ib = min(n, 2 * (cols * mag - 1) - bx - j0 + 1);\n"
"  __local const float *wp = wt + (py * mag + px) * n * n * 2;\n"
"#ifdef HST_E_TILE_T\n"
"  /* the pixels' unit gradients side by side in the tile's copy by columns (hst_e_tile_t):\n"
"     one vector of HST_E_NP lanes a sample, each lane hst_e_accr's operations in its order\n"
"     (R + 0 where the sample does not count is R: R starts at +0 and is never -0) */\n"
"  int nkh = (nk + 1) / 2;\n"
"  __local const float *tx = tile + 2 * HST_E_TILE, *ty = tx + 2 * nl * nkh;\n"
"  HST_E_FV Rv = (HST_E_FV)(0.0f);\n"
"#else\n"
"  (void)nk;\n"
"  float W = 0.0f;\n"
"  for (int m = 0; m < HST_E_NP; ++m) R[m] = 0.0f;\n"
"  /* the rows' and their samples' tile positions and weights by pointers, counts in ints: no\n"
"     index a sample or a row, no 64-bit compare a sample (H100, mag 5: 0.619 -> 0.588 ms a\n"
"     frame) */\n"
"  __local const float2 *tr = (__local const float2 *)tile + (by + j0 + ja - k0) * nl + bx + j0 -\n"
"                             l0 + ia, *wr = (__local const float2 *)wp + ja * n + ia;\n"
"#endif\n"
"  for (int j = ja; j < jb; ++j) {\n"
"    float dy = fma((float)(fy + j), 0.5f, -cy), kx = (float)(fx + ia);\n"
"#ifndef HST_E_TILE_T\n"
"    __local const float2 *t = tr, *wi = wr;\n"
"    for (int i = ib - ia; i > 0; --i, ++wi, ++t) {\n"
"      float2 w = *wi;\n"
"      W = W + w.x;\n"
"      hst_e_tabs(w, fma(kx, 0.5f, -cx), dy, t, nl, R);\n"
"      kx = kx + 1.0f;\n"
"    }\n"
"    tr += nl;\n"
"    wr += n;\n"
"#else\n"
"    int ra = by + j0 + j - k0, c0 = ((ra & 1) * nl + bx + j0 - l0) * nkh + (ra >> 1);\n"
"    HST_E_IV inj = j >= jam && j < jbm;\n"
"    __local const float2 *wr = (__local const float2 *)wp + j * n;\n"
"    for (int i = ia; i < ib; ++i) {\n"
"      float2 w = wr[i];\n"
"      float dx = fma(kx, 0.5f, -cx);\n"
"      kx = kx + 1.0f;\n"
"      Wv = Wv + select((HST_E_FV)(0.0f), (HST_E_FV)(w.x), inj);\n"
"      HST_E_FV ux = HST_E_VLOAD(0, tx + c0 + i * nkh), uy = HST_E_VLOAD(0, ty + c0 + i * nkh);\n"
"      HST_E_FV t = ux * dx;\n"
"      HST_E_FV s = fma(uy, (HST_E_FV)(dy), t);\n"
"      t = ux * dy;\n"
"      HST_E_FV c = fma(uy, (HST_E_FV)(dx), -t);\n"
"      t = fma(-fabs(c), (HST_E_FV)(w.y), (HST_E_FV)(w.x));\n"
"      Rv = Rv + select((HST_E_FV)(0.0f), t, s < 0.0f && inj);\n"
"    }\n"
"#endif\n"
"  }\n"
"#ifdef HST_E_TILE_T\n"
"  HST_E_VSTORE(Rv, 0, R);\n"
"  HST_E_VSTORE(Wv, 0, Wm);\n"
"#else\n"
"  Wm[0] = W;\n"
"#endif\n"
"  return 1;\n"
"}\n"
"\n";

static const char hst__esrrf_src_interpn[] =
"\n"
"#ifdef HST_E_TILE_T\n"
"/* hst_e_cubic of HST_E_NP lanes: both pieces, each lane's own chosen */\n"
"HST_E_FV hst_e_cubicn(HST_E_FV v)\n"
"{\n"
"  v = fabs(v);\n"
"  HST_E_FV a = 1.5f * v;\n"
"  a = a - 2.5f;\n"
"  a = a * v;\n"
"  a = a * v;\n"
"  a = a + 1.0f;\n"
"  HST_E_FV b = -0.5f * v;\n"
"  b = b + 2.5f;\n"
"  b = b * v;\n"
"  b = b - 4.0f;\n"
"  b = b * v;\n"
"  b = b + 2.0f;\n"
"  return select(select((HST_E_FV)(0.0f), b, v < 2.0f), a, v < 1.0f);\n"
"}\n"
"\n"
"/* hst_e_put's intensity (hst_e_interp of the frame f at the magnified pixel) of the HST_E_NP\n"
"   pixels (yM + m mag, xM), m < HST_E_NP, along a row of xM: hst_e_irow_at's state of row yM,\n"
"   then hst_e_interpn at each xM. Each lane's column sum p (a column's 4 row taps, hst_e_icol)\n"
"   and its sum of the columns' (hst_e_interpn) are hst_e_interp's, in its order, so the same\n"
"   bits; the column sums serve every xM of the row that reads the column (mag of them) */\n"
"typedef struct {\n"
"  int ok, r0, c0;      /* lanes in the frame, m rows apart; first tap row; columns' c0 */\n"
"  HST_E_FV wr[4], p[4]; /* row tap i's weights; columns c0 - 1 .. c0 + 2's sums */\n"
"} hst_e_irow;\n"
"\n"
"void hst_e_irow_at(int rows, int mag, int yM, hst_e_irow *ir)\n"
"{\n"
"  float fm = (float)mag, ya[HST_E_NP];\n"
"  for (int m = 0; m < HST_E_NP; ++m) ya[m] = (float)(yM + m * mag);\n"
"  float y = hst_e_rcp(fm);\n"
"  HST_E_FV a = HST_E_VLOAD(0, ya), q = a * y; /* hst_e_div(a, fm) lane-wise */\n"
"  HST_E_FV r = fma(fma((HST_E_FV)(-fm), q, a), (HST_E_FV)(y), q);\n"
"  HST_E_IV r0 = HST_E_CVI(floor(r - 0.5f));\n"
"  ir->ok = !(any(r < 0.0f) || any(r >= (float)rows) || any(r0 - r0.s0 != hst_e_lanes()));\n"
"  ir->r0 = r0.s0;\n"
"  ir->c0 = -8; /* none kept (c0 >= -1) */\n"
"  for (int i = 0; i < 4; ++i) ir->wr[i] = hst_e_cubicn(r - (HST_E_CVF(r0 - 1 + i) + 0.5f));\n"
"}\n"
"\n"
"/* Column cn's sum of the lanes' 4 row taps (rows outside the frame 0) */\n"
"HST_E_FV hst_e_icol(__global const float *f, int rows, int cols, int cn, const hst_e_irow *ir)\n"
"{\n"
"  float col[HST_E_NP + 3];\n"
"  for (int k = 0; k < HST_E_NP + 3; ++k) {\n"
"    int rn = ir->r0 - 1 + k;\n"
"    col[k] = rn >= 0 && rn < rows && cn >= 0 && cn < cols ? f[(long)rn * cols + cn] : 0.0f;\n"
"  }\n"
"  HST_E_FV p = (HST_E_FV)(0.0f);\n"
"  for (int i = 0; i < 4; ++i) {\n"
"    HST_E_FV t = HST_E_VLOAD(0, col + i) * ir->wr[i];\n"
"    p = p + t;\n"
"  }\n"
"  return p;\n"
"}\n"
"\n"
"/* The intensity at column xM into im[m]: 1 where every pixel lies in the frame and pixel m's\n"
"   four tap rows are pixel 0's m rows down, else 0 (nothing written). The columns' sums kept\n"
"   from the last call move along; a column outside the frame is skipped, as hst_e_interp does */\n"
"HST_E_CPU_INL int hst_e_interpn(__global const float *f, int rows, int cols, int mag, int xM,\n"
"                                hst_e_irow *ir, float *im)\n"
"{\n"
"  float c = hst_e_div((float)xM, (float)mag);\n"
"  if (!ir->ok || c < 0.0f || c >= (float)cols) return 0;\n"
"  int c0 = (int)floor(c - 0.5f), s = c0 - ir->c0;\n"
"  if (s) {\n"
"    for (int j = 0; j < 4; ++j)\n"
"      ir->p[j] = s > 0 && j + s < 4 ? ir->p[j + s] : hst_e_icol(f, rows, cols, c0 - 1 + j, ir);\n"
"    ir->c0 = c0;\n"
"  }\n"
"  HST_E_FV q = (HST_E_FV)(0.0f);\n"
"  for (int j = 0; j < 4; ++j) {\n"
"    int cn = c0 - 1 + j;\n"
"    if (cn < 0 || cn >= cols) continue;\n"
"    float u = (float)cn + 0.5f;\n"
"    float w = hst_e_cubic(c - u);\n"
"    HST_E_FV t = ir->p[j] * w;\n"
"    q = q + t;\n"
"  }\n"
"  HST_E_VSTORE(q, 0, im);\n"
"  return 1;\n"
"}\n"
"#endif\n";

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
"}\n"
"\n"
"/* Floats of local memory after a GPU build's tile for hst_e_tileg's scratch, then hst_e_itab's\n"
"   table (0: neither; the tile per position, the intensity per pixel) */\n"
"#ifndef HST_E_ITAB\n"
"#define HST_E_ITAB 0\n"
"#endif\n"
"/* hst_e_tileg's frame columns for nl tile columns at most (hst_e_tileg_cols), and its\n"
"   scratch's floats for nk x nl */\n"
"#define HST_E_TGC(nl) ((nl) / 2 + 4)\n"
"#define HST_E_TGS(nk, nl) (6 * ((nk) + (nl)) + 2 * (long)(nk) * HST_E_TGC(nl))\n"
"\n"
"/* About half of n work indices of a strip ws wide: whole rows, on CPU builds whole blocks of\n"
"   hst_e_fused_rows (HST_E_NP mag rows) where n holds two (so that a segment that starts at a\n"
"   block's first row ends at one: no rows computed twice) */\n"
"ulong hst_e_half(ulong n, ulong ws, uint mag)\n"
"{\n"
"  ulong h = n / 2 / ws * ws;\n"
"#ifdef HST_E_TILE_T\n"
"  ulong bh = ws * HST_E_NP * mag;\n"
"  if (h >= bh) h = h / bh * bh;\n"
"#else\n"
"  (void)mag;\n"
"#endif\n"
"  return h;\n"
"}\n"
"\n";

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
"#ifdef HST_E_TILE_T\n"
"/* The tile's copy by columns, after its HST_E_TILE float2: the x plane, then the y plane,\n"
"   each of 2 nl columns of (nk + 1) / 2 floats, the even rows' columns first: position\n"
"   (a, e) at ((a & 1) nl + e) ((nk + 1) / 2) + a / 2, so the positions 2 rows apart that\n"
"   hst_e_rgc_tabn's pixels (mag rows apart) read at one sample lie side by side */\n"
"void hst_e_tile_t(__local float *tile, int nk, int nl, int a, int e, const float *u)\n"
"{\n"
"  int nkh = (nk + 1) / 2, o = ((a & 1) * nl + e) * nkh + (a >> 1);\n"
"  __local float *t = tile + 2 * HST_E_TILE;\n"
"  t[o] = u[0];\n"
"  t[2 * nl * nkh + o] = u[1];\n"
"}\n"
"\n"
"/* The frame's columns [*c0, *c0 + n) (n returned) that hst_e_tile_sep's positions l0 ..\n"
"   l0 + nl - 1 read: a position l from l / 2 - 2 to l / 2 + 1, clamped ones before the frame\n"
"   0 and 1, after it cols - 2 and cols - 1 (checked over mags 1-8, every start and width) */\n"
"int hst_e_sep_cols(int l0, int nl, int cols, int *c0)\n"
"{\n"
"  *c0 = clamp(l0 / 2 - 3, 0, cols);\n"
"  return clamp(max((l0 + nl - 1) / 2, 0) + 4, *c0, cols) - *c0;\n"
"}\n"
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
"#ifdef HST_E_TILE_T /* the copy by columns rounds the rows up to even; hst_e_tile_sep's\n"
"                       scratch holds its columns at most (checked here: PoCL 3.1 gave wrong\n"
"                       tiles with a branch around hst_e_tile_sep's barriers) */\n"
"  int c0, nc = hst_e_sep_cols(k[1], k[3], 1 << 29, &c0);\n"
"  return k[2] > 0 && k[3] > 0 && (long)(k[2] + 1) * k[3] <= HST_E_TILE &&\n"
"         2 * (long)k[2] * nc + 6 * (long)(k[2] + k[3]) <= 2 * HST_E_TILE;\n"
"#else\n"
"#ifdef HST_E_NLS /* a build's tile rows of HST_E_NLS positions (any strip's at most), so that\n"
"                    the sample loop reads its pixels' rows at constant offsets */\n"
"  int fits = k[3] <= HST_E_NLS;\n"
"  k[3] = HST_E_NLS;\n"
"  if (!fits) return 0;\n"
"#endif\n"
"  return k[2] > 0 && k[3] > 0 && (long)k[2] * k[3] <= HST_E_TILE &&\n"
"         HST_E_TGS(k[2], k[3]) * (HST_E_ITAB > 0) <= HST_E_ITAB;\n"
"#endif\n"
"}\n"

"\n";

static const char hst__esrrf_src_unitn[] =
"\n"
"#ifdef HST_E_TILE_T\n"
"/* hst_e_rsqrt and hst_e_unit of HST_E_NP values at once, each lane their operations in their\n"
"   order (a zero, infinite or NaN gradient's lane is computed too, then set to 0): their bits.\n"
"   Vector arguments throughout and & of comparisons (-1 or 0 a lane): Oclgrind 21.10 reads\n"
"   scalar arguments of min and max wrongly, and gives 1 for && of vectors, which select reads\n"
"   as false (its checks of this build failed with either; PoCL's did not) */\n"
"HST_E_FV hst_e_rsqrtn(HST_E_FV x)\n"
"{\n"
"  HST_E_FV y = HST_E_ASF(0x5F375A86u - (HST_E_ASU(x) >> 1));\n"
"  for (int k = 0; k < 4; ++k) {\n"
"    HST_E_FV p = y * y;\n"
"    HST_E_FV e = fma(-x, p, (HST_E_FV)(1.0f));\n"
"    if (k == 3) {\n"
"      HST_E_FV q = fma(y, y, -p);\n"
"      e = fma(-x, q, e);\n"
"    }\n"
"    HST_E_FV h = 0.5f * y;\n"
"    y = fma(h, e, y);\n"
"  }\n"
"  return y;\n"
"}\n"
"\n"
"/* hst_e_ratio of the lanes' sums R[m], W[m] into q[m] (q may be R), hst_e_div's operations */\n"
"void hst_e_ration(const float *R, const float *W, float *q)\n"
"{\n"
"  HST_E_FV a = HST_E_VLOAD(0, R), w = HST_E_VLOAD(0, W);\n"
"  HST_E_IV pos = w > 0.0f;\n"
"  HST_E_FV b = select((HST_E_FV)(1.0f), w, pos);\n"
"  HST_E_FV y = HST_E_ASF(0x7EF311C3u - HST_E_ASU(b));\n"
"  for (int k = 0; k < 3; ++k) {\n"
"    HST_E_FV e = fma(-b, y, (HST_E_FV)(1.0f));\n"
"    y = fma(y, e, y);\n"
"  }\n"
"  HST_E_FV r = a * y;\n"
"  r = fma(fma(-b, r, a), y, r);\n"
"  r = select((HST_E_FV)(0.0f), r, pos);\n"
"  HST_E_VSTORE(select(r, (HST_E_FV)(0.0f), r < 0.0f), 0, q);\n"
"}\n"
"\n"
"void hst_e_unitn(HST_E_FV gx, HST_E_FV gy, HST_E_FV *ux, HST_E_FV *uy)\n"
"{\n"
"  HST_E_UV m = max(HST_E_ASU(gx) & 0x7FFFFFFFu, HST_E_ASU(gy) & 0x7FFFFFFFu);\n"
"  HST_E_IV ok = (m != 0u) & (m < 0x7F800000u);\n"
"  HST_E_UV E = min(max(m >> 23, (HST_E_UV)(1u)), (HST_E_UV)(253u));\n"
"  HST_E_FV sc = HST_E_ASF((254u - E) << 23);\n"
"  HST_E_FV x = gx * sc;\n"
"  HST_E_FV y = gy * sc;\n"
"  x = select((HST_E_FV)(0.0f), x, (HST_E_ASU(x) & 0x7F800000u) != 0u);\n"
"  y = select((HST_E_FV)(0.0f), y, (HST_E_ASU(y) & 0x7F800000u) != 0u);\n"
"  HST_E_FV t = y * y;\n"
"  HST_E_FV n = fma(x, x, t);\n"
"  HST_E_FV r = hst_e_rsqrtn(n);\n"
"  *ux = select((HST_E_FV)(0.0f), x * r, ok);\n"
"  *uy = select((HST_E_FV)(0.0f), y * r, ok);\n"
"}\n"
"\n"
"/* The tile's gradients in its copy by columns (hst_e_tile_t) to unit gradients in place, and\n"
"   into the tile (position (a, e) at 2 (a nl + e)): a column's positions HST_E_NP at a time,\n"
"   the rest one by one; work-item lid of L takes columns lid, lid + L, .. */\n"
"void hst_e_tile_units(__local float *tile, int nk, int nl, int lid, int L)\n"
"{\n"
"  int nkh = (nk + 1) / 2;\n"
"  __local float *tx = tile + 2 * HST_E_TILE, *ty = tx + 2 * nl * nkh;\n"
"  for (int c = lid; c < 2 * nl; c += L) {\n"
"    int par = c >= nl, e = c - par * nl, n = (nk + 1 - par) / 2, r = 0; /* rows 2 r + par */\n"
"    __local float *px = tx + c * nkh, *py = ty + c * nkh;\n"
"    for (; r + HST_E_NP <= n; r += HST_E_NP) {\n"
"      HST_E_FV ux, uy;\n"
"      hst_e_unitn(HST_E_VLOAD(0, px + r), HST_E_VLOAD(0, py + r), &ux, &uy);\n"
"      HST_E_VSTORE(ux, 0, px + r);\n"
"      HST_E_VSTORE(uy, 0, py + r);\n"
"    }\n"
"    for (; r < n; ++r) {\n"
"      float u[2];\n"
"      hst_e_unit(px[r], py[r], u);\n"
"      px[r] = u[0];\n"
"      py[r] = u[1];\n"
"    }\n"
"    for (r = 0; r < n; ++r) {\n"
"      int o = 2 * ((2 * r + par) * nl + e);\n"
"      tile[o] = px[r];\n"
"      tile[o + 1] = py[r];\n"
"    }\n"
"  }\n"
"}\n"
"#endif\n";

static const char hst__esrrf_src_tilesep[] =
"\n"
"#ifdef HST_E_TILE_T\n"
"/* Position k's taps of one axis (hst_e_grad_fused's: size 2 n mag half-pixels): the first\n"
"   and their number into t[0], t[1], their weights into w */\n"
"void hst_e_axis_taps(int k, int n, int mag, __local int *t, __local float *w)\n"
"{\n"
"  int i = hst_e_gidx(k, (float)mag, 2 * n * mag), first = 0;\n"
"  float q[4];\n"
"  int nt = hst_e_taps(i % mag == 0 ? i / mag : -1, hst_e_div((float)i, (float)(2 * mag)), n,\n"
"                      &first, q);\n"
"  t[0] = first;\n"
"  t[1] = nt;\n"
"  for (int j = 0; j < nt; ++j) w[j] = q[j];\n"
"}\n"
"\n"
"/* hst_e_fused's tile (half-pixel rows k0 .. k0 + nk - 1, columns l0 .. l0 + nl - 1: each\n"
"   position's hst_e_unit_at into tile and its copy by columns) separably (CPU builds): each\n"
"   row's and column's taps, then the vertical taps of the Roberts gradients (hst_e_grad_fused's\n"
"   pc, pr) of each row at the frame's columns [c0, c1), then each position's horizontal taps of\n"
"   those into the copy by columns, each sum in hst_e_grad_fused's order: its bits, the vertical\n"
"   sums made once a row, not once a position; then the unit gradients a vector at a time\n"
"   (hst_e_tile_units). All in sc (hst_e_span's tiles fit in its 2 HST_E_TILE floats) */\n"
"void hst_e_tile_sep(__global const float *f, int rows, int cols, int mag, int k0, int l0,\n"
"                   int nk, int nl, __local float *tile, __local float *sc, int lid, int L)\n"
"{\n"
"  int c0, nc = hst_e_sep_cols(l0, nl, cols, &c0);\n"
"  /* rows' and columns' weights (4 floats each) after the sums, then their first taps and\n"
"     counts (2 ints each: as floats, small ints are subnormals, which a device may flush) */\n"
"  __local float *wy = sc + 2 * nk * nc, *wx = wy + 4 * nk;\n"
"  __local int *ty = (__local int *)(wx + 4 * nl), *tx = ty + 2 * nk;\n"
"  for (int e = lid; e < nk + nl; e += L) {\n"
"    if (e < nk)\n"
"      hst_e_axis_taps(k0 + e, rows, mag, ty + 2 * e, wy + 4 * e);\n"
"    else\n"
"      hst_e_axis_taps(l0 + e - nk, cols, mag, tx + 2 * (e - nk), wx + 4 * (e - nk));\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (int e = lid; e < nk * nc; e += L) {\n"
"    int a = e / nc, cn = c0 + e - a * nc;\n"
"    int ny = ty[2 * a + 1];\n"
"    float w[4];\n"
"    for (int i = 0; i < ny; ++i) w[i] = wy[4 * a + i];\n"
"    float2 p = hst_e_vsum(f, rows, cols, ty[2 * a], ny, w, cn);\n"
"    sc[2 * e] = p.x;\n"
"    sc[2 * e + 1] = p.y;\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (int e = lid; e < nk * nl; e += L) {\n"
"    int a = e / nl, b = e - a * nl;\n"
"    __local const float *t = wx + 4 * b;\n"
"    int cx = tx[2 * b], nx = ty[2 * a + 1] ? tx[2 * b + 1] : 0;\n"
"    float qc = 0.0f, qr = 0.0f, u[2];\n"
"    for (int j = 0; j < nx; ++j) {\n"
"      int cn = cx + j;\n"
"      if (cn < 0 || cn >= cols) continue;\n"
"      __local const float *p = sc + 2 * (a * nc + cn - c0);\n"
"      float q = p[0] * t[j];\n"
"      qc = qc + q;\n"
"      q = p[1] * t[j];\n"
"      qr = qr + q;\n"
"    }\n"
"    u[0] = qc;\n"
"    u[1] = qr;\n"
"    hst_e_tile_t(tile, nk, nl, a, b, u);\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  hst_e_tile_units(tile, nk, nl, lid, L);\n"
"}\n"
"#endif\n";

static const char hst__esrrf_src_itab[] =
"\n"
"/* hst_e_itab's row at r (in frame rows): its column sums p at the frame's columns ca + e, e =\n"
"   s, s + S, .. < nc, into o[e], the row's 4 tap weights made once for them, not once a sum\n"
"   (columns interleaved: a warp's items read neighbouring columns) */\n"
"void hst_e_itab_row(__global const float *f, int rows, int cols, float r, int ca, int s, int S,\n"
"                    int nc, __local float *o)\n"
"{\n"
"  int r0 = (int)floor(r - 0.5f) - 1, in = r >= 0.0f && r < (float)rows;\n"
"  float w[4];\n"
"  for (int i = 0; i < 4; ++i) w[i] = hst_e_cubic(r - ((float)(r0 + i) + 0.5f));\n"
"  for (int e = s; e < nc; e += S) {\n"
"    int cn = ca + e;\n"
"    float p = 0.0f;\n"
"    for (int i = 0; in && cn >= 0 && cn < cols && i < 4; ++i) {\n"
"      if (r0 + i < 0 || r0 + i >= rows) continue;\n"
"      float t = f[(long)(r0 + i) * cols + cn] * w[i];\n"
"      p = p + t;\n"
"    }\n"
"    o[e] = p;\n"
"  }\n"
"}\n"
"\n"
"/* GPU builds with HST_E_ITAB > 0 (floats of local memory): hst_e_put's intensity of a\n"
"   segment's pixels from a table the group makes once, not hst_e_interp a pixel (its two\n"
"   divisions, eight tap weights and 16 taps were a fifth of the kernel on an H200). it[0..3]:\n"
"   the first row yM, first column xM, first frame column ca, frame columns nc (int bits);\n"
"   column x's c0 (INT_MIN where c leaves the frame) and 4 tap weights at it + 4 + 5 x; row y's\n"
"   column sums p (hst_e_interp's, 0 outside the frame) at it + 4 + 5 HST_E_TW + y nc + cn - ca.\n"
"   hst_e_interp's operations in its order, 0 terms where it skips a tap (its sums start at +0\n"
"   and are never -0: adding +-0 leaves them be): the same bits. hst_e_fused makes it with\n"
"   the tile and then passes weighting 2 (hst_e_put: the intensity from the table) */\n"
"int hst_e_itab(__global const float *f, int rows, int cols, int mag, int ya, int ny, int xa,\n"
"               int nx, __local float *it, int lid, int L)\n"
"{\n"
"  float fm = (float)mag;\n"
"  int ca = (int)floor(hst_e_div((float)xa, fm) - 0.5f) - 1;\n"
"  int nc = (int)floor(hst_e_div((float)(xa + nx - 1), fm) - 0.5f) + 3 - ca;\n"
"  if (nx > HST_E_TW || 4 + 5 * HST_E_TW + (long)ny * nc > HST_E_ITAB) return 0;\n"
"  if (lid == 0) {\n"
"    it[0] = as_float(ya);\n"
"    it[1] = as_float(xa);\n"
"    it[2] = as_float(ca);\n"
"    it[3] = as_float(nc);\n"
"  }\n"
"  for (int x = lid; x < nx; x += L) {\n"
"    __local float *cw = it + 4 + 5 * x;\n"
"    float c = hst_e_div((float)(xa + x), fm);\n"
"    int c0 = (int)floor(c - 0.5f);\n"
"    cw[0] = as_float(c < 0.0f || c >= (float)cols ? INT_MIN : c0);\n"
"    for (int j = 0; j < 4; ++j) cw[1 + j] = hst_e_cubic(c - ((float)(c0 - 1 + j) + 0.5f));\n"
"  }\n"
"  int S = (nc + 3) / 4;\n"
"  HST_E_FOR_DM(q, lid, L, ny, S)\n"
"    hst_e_itab_row(f, rows, cols, hst_e_div((float)(ya + q.x), fm), ca, q.y, S, nc,\n"
"                   it + 4 + 5 * HST_E_TW + q.x * nc);\n"
"  return 1;\n"
"}\n"
"\n"
"/* hst_e_interp of the magnified frame at pixels (yM + m mag, xM), m < nm, from the table\n"
"   into im[m] (the column's taps read once) */\n"
"void hst_e_itab_col(__local const float *it, int yM, int xM, int mag, int nm, float *im)\n"
"{\n"
"  __local const float *cw = it + 4 + 5 * (xM - as_int(it[1]));\n"
"  int c0 = as_int(cw[0]), nc = as_int(it[3]), in = c0 != INT_MIN;\n"
"  __local const float *p = it + 4 + 5 * HST_E_TW + (yM - as_int(it[0])) * nc +\n"
"                           (in ? c0 - 1 - as_int(it[2]) : 0);\n"
"  float w[4];\n"
"  for (int j = 0; j < 4; ++j) w[j] = cw[1 + j];\n"
"  for (int m = 0; m < nm; ++m, p += mag * nc) {\n"
"    float q = 0.0f;\n"
"    for (int j = 0; in && j < 4; ++j) {\n"
"      float t = p[j] * w[j];\n"
"      q = q + t;\n"
"    }\n"
"    im[m] = q;\n"
"  }\n"
"}\n"
"\n"
"float hst_e_itab_at(__local const float *it, int yM, int xM)\n"
"{\n"
"  float q;\n"
"  hst_e_itab_col(it, yM, xM, 1, 1, &q);\n"
"  return q;\n"
"}\n";

static const char hst__esrrf_src_tileg[] =
"\n"
"/* GPU builds with HST_E_ITAB: the tile's unit gradients made separably (hst_e_unit_at's a\n"
"   position did 2 divisions, 8 tap weights and 16 Roberts gradients: a fifth of the kernel's\n"
"   instructions on an H200). The scratch s: each tile row's and column's taps (hst_e_grad_fused's: first,\n"
"   count, 4 weights), then each row's vertical sums (hst_e_vsum) at the frame columns its\n"
"   positions read (hst_e_tileg_cols); a position sums its columns' as hst_e_grad_fused does:\n"
"   the same bits. hst_e_span keeps the scratch within HST_E_ITAB floats (no branch around the\n"
"   barriers) */\n"
"void hst_e_tileg_taps(int k, int mag, int n, __local float *t)\n"
"{\n"
"  float w[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
"  int i2 = hst_e_gidx(k, (float)mag, 2 * n * mag), first = 0;\n"
"  float v = hst_e_div((float)i2, (float)(2 * mag));\n"
"  int m = hst_e_taps(i2 % mag == 0 ? i2 / mag : -1, v, n, &first, w);\n"
"  t[0] = as_float(first);\n"
"  t[1] = as_float(m);\n"
"  for (int i = 0; i < 4; ++i) t[2 + i] = w[i];\n"
"}\n"
"\n"
"/* The frame columns [*ca, *ca + n) (n returned, at most HST_E_TGC(nl)) that positions l0 ..\n"
"   l0 + nl - 1 read inside the frame: an even l from l / 2 - 2 to l / 2 + 1, an odd l column\n"
"   (l - 1) / 2, a negative l position 0's, one past the frame's end from cols - 2 (checked\n"
"   over mags 1-8, widths 1-79, every start from -20; an earlier bound, 9 columns past\n"
"   l0 / (2 mag), left a third of the positions' columns to per-position Roberts sums: 12% of\n"
"   the kernel's instructions on an H100) */\n"
"int hst_e_tileg_cols(int l0, int nl, int cols, int *ca)\n"
"{\n"
"  *ca = max(min(l0 / 2 - 2, cols - 2), 0);\n"
"  return clamp(max(l0 + nl - 1, 0) / 2 + 2, *ca, cols) - *ca;\n"
"}\n"
"\n"
"void hst_e_tileg(__global const float *f, int rows, int cols, int mag, int k0, int l0, int nk,\n"
"                 int nl, __local float *tile, __local float *s, int lid, int L)\n"
"{\n"
"  int ca, nc = hst_e_tileg_cols(l0, nl, cols, &ca);\n"
"  __local float *tr = s, *tc = s + 6 * nk;\n"
"  __local float2 *v = (__local float2 *)(tc + 6 * nl);\n"
"  for (int a = lid; a < nk + nl; a += L) {\n"
"    if (a < nk)\n"
"      hst_e_tileg_taps(k0 + a, mag, rows, tr + 6 * a);\n"
"    else\n"
"      hst_e_tileg_taps(l0 + a - nk, mag, cols, tc + 6 * (a - nk));\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  HST_E_FOR_DM(q, lid, L, nk, nc) {\n"
"    __local const float *t = tr + 6 * q.x;\n"
"    float w[4];\n"
"    for (int i = 0; i < 4; ++i) w[i] = t[2 + i];\n"
"    v[q.x * nc + q.y] = hst_e_vsum(f, rows, cols, as_int(t[0]), as_int(t[1]), w, ca + q.y);\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  HST_E_FOR_DM(q, lid, L, nk, nl) {\n"
"    int a = q.x, e = a * nl + q.y;\n"
"    __local const float *c = tc + 6 * q.y;\n"
"    int cx = as_int(c[0]), nx = as_int(tr[6 * a + 1]) ? as_int(c[1]) : 0;\n"
"    float qc = 0.0f, qr = 0.0f, u[2];\n"
"    for (int j = 0; j < nx; ++j) {\n"
"      int cn = cx + j;\n"
"      if (cn < 0 || cn >= cols) continue;\n"
"      float2 p = v[a * nc + cn - ca];\n"
"      float t = p.x * c[2 + j];\n"
"      qc = qc + t;\n"
"      t = p.y * c[2 + j];\n"
"      qr = qr + t;\n"
"    }\n"
"    hst_e_unit(qc, qr, u);\n"
"    tile[2 * e] = u[0];\n"
"    tile[2 * e + 1] = u[1];\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"}\n";

static const char hst__esrrf_src_fusedpx[] =
"\n"
"/* A pixel's HST_E_NS values into op[0 ..): 0 outside the margin (in 0), else from the ratio q\n"
"   of its sums (hst_e_ratio) hst_e_final at each sensitivity (sens, or HST_E_SENS's), times im\n"
"   (the magnified frame there) with intensity weighting */\n"
"void hst_e_out(__global float *op, int in, float q, float sens, int weighting, float im)\n"
"{\n"
"#if HST_E_NS > 1\n"
"  const float sl[HST_E_NS] = {HST_E_SENS};\n"
"#else\n"
"  const float sl[1] = {sens};\n"
"#endif\n"
"  for (int l = 0; l < HST_E_NS; ++l) {\n"
"    float v = 0.0f;\n"
"    if (in) {\n"
"      v = hst_e_final_q(q, sl[l]);\n"
"      if (weighting) v = v * im;\n"
"    }\n"
"    op[l] = v;\n"
"  }\n"
"}\n"
"\n"
"/* hst_e_out of HST_E_NP pixels at once, each in the margin, where they have one value each\n"
"   (HST_E_NS 1) at a sensitivity <= 1 and their intensity im (imn) where weighting: the ratio\n"
"   q[m], times im[m] with weighting, pixel m's at op + m step; else 0 (nothing written) */\n"
"int hst_e_outn(__global float *op, ulong step, const float *q, float sens, int weighting,\n"
"               int imn, const float *im)\n"
"{\n"
"  if (HST_E_NS != 1 || sens > 1.0f || (weighting && !imn)) return 0;\n"
"  for (int m = 0; m < HST_E_NP; ++m, op += step) *op = weighting ? q[m] * im[m] : q[m];\n"
"  return 1;\n"
"}\n"
"\n"
"#ifndef HST_E_TILE_T\n"
"/* hst_e_ratio of the pixels' sums R[m] over their one W[0] (one phase) into q[m] (q may be\n"
"   R): W's reciprocal once */\n"
"void hst_e_ration(const float *R, const float *W, float *q)\n"
"{\n"
"  float y = hst_e_rcp(W[0]);\n"
"  for (int m = 0; m < HST_E_NP; ++m) {\n"
"    float r = W[0] > 0.0f ? hst_e_divy(R[m], W[0], y) : 0.0f;\n"
"    q[m] = r < 0.0f ? 0.0f : r;\n"
"  }\n"
"}\n"
"#endif\n"
"\n"
"/* hst_e_out of pixel (yM, xM), the magnified frame there interpolated from the frame f\n"
"   (weighting 2: from the table hst_e_itab made after the tile) */\n"
"void hst_e_put(__global const float *f, __global float *op, __local const float *tile,\n"
"               uint rows, uint cols, uint mag, int yM, int xM, int in, float q, float sens,\n"
"               int weighting)\n"
"{\n"
"  float im = 1.0f;\n"
"  if (in && weighting == 2)\n"
"    im = hst_e_itab_at(tile + 2 * HST_E_TILE, yM, xM);\n"
"  else if (in && weighting) {\n"
"    float fm = (float)mag;\n"
"    float r = hst_e_div((float)yM, fm);\n"
"    float c = hst_e_div((float)xM, fm);\n"
"    im = hst_e_interp(f, (int)rows, (int)cols, 1, 0, r, c);\n"
"  }\n"
"  hst_e_out(op, in, q, sens, weighting, im);\n"
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
"        rw = hst_e_rgc_tab(tile, wt, 0, rows, cols, mag, yM, xM, k0, l0, nl, j0, jn);\n"
"      else\n"
"        rw = hst_e_rgc(f, f, 2, 1, tile, mode, rows, cols, mag, yM, xM, radius, k0, l0, nl, wt,\n"
"                       usewt);\n"
"    }\n"
"    hst_e_put(f, o + (qy * colsM + qx) * HST_E_NS, tile, rows, cols, mag, yM, xM, in,\n"
"              hst_e_ratio(rw.x, rw.y), sens, weighting);\n"
"  }\n"
"}\n";

static const char hst__esrrf_src_pairs[] =
"\n"
"/* The table path over a segment [q0, q1) of a strip: its whole rows in blocks of HST_E_NP\n"
"   mag rows, rows r, r + mag, .. of a block (r < mag) by one work-item through\n"
"   hst_e_rgc_tabn (1 / HST_E_NP of the table reads, HST_E_NP independent sums), HST_E_RUN\n"
"   pixels of a row an item, the rows after the last such block by one more ending at the\n"
"   last whole row (writing only those); the part rows before and after them one by one\n"
"   (hst_e_fused_px). Each pixel's value is hst_e_fused_px's, bit for bit */\n"
"void hst_e_fused_rows(__global const float *f, __global float *o, __local const float *tile,\n"
"                      __local const float *wt, uint rows, uint cols, uint mag, float radius,\n"
"                      float sens, int weighting, uint row0, int x0, uint ws, uint q0, uint q1,\n"
"                      int lid, int L, int k0, int l0, int nk, int nl, int j0, int jn)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag;\n"
"  int rowsM = (int)(rows * mag);\n"
"  float mr = radius * (float)mag;\n"
"  int margin = (int)mr;\n"
"  uint qa = min(q1, (q0 + ws - 1) / ws * ws), qb = max(qa, q1 / ws * ws); /* whole rows */\n"
"  uint bw = mag * ws, bh = HST_E_NP * bw, nb = (qb - qa) / bh, qc = qa + nb * bh;\n"
"#ifdef HST_E_TILE_T /* the block ending at qb, for rows [qc, qb) (on a GPU, slower than */\n"
"  uint nt = nb && qc < qb; /* those rows' pixels one by one: mag 3 on an H200 1.16 to 1.14 ms) */\n"
"#else\n"
"  uint nt = 0;\n"
"#endif\n"
"  uint run = HST_E_RUN(ws); /* items (b, r, run of columns): a row's runs in turn */\n"
"  HST_E_FOR_DM(q, lid, L, (int)((nb + nt) * mag), (int)(ws / run)) {\n"
"    uint b = (uint)q.x / mag, r = (uint)q.x - b * mag, qx0 = (uint)q.y * run;\n"
"    uint qy = (b < nb ? qa + b * bh : qb - bh) / ws + r;\n"
"    int yM = (int)row0 + (int)qy, in[HST_E_NP], rin = 1;\n"
"    for (int m = 0; m < HST_E_NP; ++m) {\n"
"      int y = yM + m * (int)mag;\n"
"      in[m] = y >= margin && y < rowsM - margin;\n"
"      rin = rin && in[m];\n"
"    }\n"
"#ifdef HST_E_TILE_T\n"
"    hst_e_irow ir;\n"
"    if (weighting) hst_e_irow_at((int)rows, (int)mag, yM, &ir);\n"
"#endif\n"
"    for (uint qx = qx0; qx < qx0 + run; ++qx) {\n"
"      int xM = x0 + (int)qx;\n"
"      int xin = xM >= margin && xM < (int)colsM - margin, all = xin;\n"
"      float R[HST_E_NP], W[HST_E_NP];\n"
"      for (int m = 0; m < HST_E_NP; ++m) {\n"
"        all = all && in[m];\n"
"        R[m] = 0.0f;\n"
"        W[m] = 0.0f;\n"
"      }\n"
"      float im[HST_E_NP];\n"
"#ifdef HST_E_TILE_T\n"
"      all = xin; /* the vectors take lanes in the margin too (their sums unused) */\n"
"      int imn = all && weighting && hst_e_interpn(f, (int)rows, (int)cols, (int)mag, xM, &ir, im);\n"
"#endif\n"
"      int done = all && hst_e_rgc_tabn(tile, wt, rows, cols, mag, yM, xM, k0, l0, nk, nl, j0, jn,\n"
"                                       R, W);\n"
"#ifndef HST_E_TILE_T\n"
"      int imn = done && b < nb && weighting == 2;\n"
"      if (imn) hst_e_itab_col(tile + 2 * HST_E_TILE, yM, xM, (int)mag, HST_E_NP, im);\n"
"#endif\n"
"      if (done) hst_e_ration(R, W, R); /* R[m]: the ratio */\n"
"      if (done && rin && xin && b < nb &&\n"
"          hst_e_outn(o + (qy * colsM + qx), mag * colsM, R, sens, weighting, imn, im))\n"
"        continue;\n"
"      for (int m = 0; m < HST_E_NP; ++m) {\n"
"        if (b == nb && qy + m * mag < qc / ws) continue; /* a whole block's row */\n"
"        int y = yM + m * (int)mag;\n"
"        int inm = in[m] && xin;\n"
"        float2 rw = (float2)(R[m], W[HST_E_WI(m)]);\n"
"        if (inm && !done) rw = hst_e_rgc_tab(tile, wt, 0, rows, cols, mag, y, xM, k0, l0, nl, j0, jn);\n"
"        __global float *op = o + ((qy + m * mag) * colsM + qx) * HST_E_NS;\n"
"        float q = done ? R[m] : hst_e_ratio(rw.x, rw.y);\n"
"        if (imn) {\n"
"          hst_e_out(op, inm, q, sens, 1, im[m]);\n"
"          continue;\n"
"        }\n"
"        hst_e_put(f, op, tile, rows, cols, mag, y, xM, inm, q, sens, weighting);\n"
"      }\n"
"    }\n"
"  }\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 q0 + (uint)lid, qa, L, k0, l0, nl, j0, jn, 3, 1);\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 (nt ? qb : qc) + (uint)lid, q1, L, k0, l0, nl, j0, jn, 3, 1);\n"
"}\n";

static const char hst__esrrf_src_tabr[] =
"\n"
"#ifdef HST_E_JN\n"
"/* Builds for one radius (HST_E_JN, the window's n; NVIDIA's): hst_e_rgc_tab of the HST_E_NP\n"
"   same-phase pixels (yM, xM + m mag), m < HST_E_NP, of one row at once into (R[m], W[0]),\n"
"   where every pixel's window has all its columns (else 0, nothing written). Pixel m's column\n"
"   i is the row's tile position i + 2 m: a window row's (w, wd) read once for all pixels, each\n"
"   tile position of the row once for the pixels whose windows hold it, with its ux dy (the\n"
"   loops unrolled: every (position, pixel) pair a constant). Each R[m] sums its samples in\n"
"   hst_e_rgc_tab's order (rows, then columns), W the same weights: hst_e_rgc_tab's bits */\n"
"int hst_e_rgc_tabr(__local const float *tile, __local const float *wt, int rows, int cols,\n"
"                   int mag, int yM, int xM, int k0, int l0, int nl, int j0, float *R, float *Wm)\n"
"{\n"
"  const int n = HST_E_JN;\n"
"  int py = yM % mag, px = xM % mag;\n"
"  float cy = hst_e_centre(py, mag), cx = hst_e_centre(px, mag);\n"
"  int fy = (int)(2.0f * cy) + j0, fx = (int)(2.0f * cx) + j0;\n"
"  int by = 2 * (yM / mag) + fy - j0, bx = 2 * (xM / mag) + fx - j0; /* hst_e_base */\n"
"  int ja = max(0, 1 - by - j0), jb = min(n, 2 * (rows * mag - 1) - by - j0 + 1);\n"
"  if (1 - bx - j0 > 0 || 2 * (cols * mag - 1) - bx - 2 * (HST_E_NP - 1) - j0 + 1 < n) return 0;\n"
"  float dx[HST_E_JN], W = 0.0f;\n"
"  for (int i = 0; i < n; ++i) dx[i] = fma((float)(fx + i), 0.5f, -cx);\n"
"  for (int m = 0; m < HST_E_NP; ++m) R[m] = 0.0f;\n"
"  __local const float2 *tr = (__local const float2 *)tile + (by + j0 + ja - k0) * nl + bx + j0 -\n"
"                             l0, *wr = (__local const float2 *)wt + ((py * mag + px) * n + ja) * n;\n"
"  for (int j = ja; j < jb; ++j, tr += nl, wr += n) {\n"
"    float dy = fma((float)(fy + j), 0.5f, -cy);\n"
"    float2 w[HST_E_JN];\n"
"    for (int i = 0; i < n; ++i) {\n"
"      w[i] = wr[i];\n"
"      W = W + w[i].x;\n"
"    }\n"
"#pragma unroll\n"
"    for (int c = 0; c < n + 2 * (HST_E_NP - 1); ++c) {\n"
"      float2 u = tr[c];\n"
"      float t = u.x * dy;\n"
"#pragma unroll\n"
"      for (int m = 0; m < HST_E_NP; ++m) {\n"
"        int i = c - 2 * m;\n"
"        if (i < 0 || i >= n) continue;\n"
"        float s = fma(u.y, dy, u.x * dx[i]);\n"
"        if (s < 0.0f) {\n"
"          float d = fma(u.y, dx[i], -t);\n"
"          R[m] = R[m] + fma(-fabs(d), w[i].y, w[i].x);\n"
"        }\n"
"      }\n"
"    }\n"
"  }\n"
"  Wm[0] = W;\n"
"  return 1;\n"
"}\n"
"#endif\n";

static const char hst__esrrf_src_rowx[] =
"\n"
"#ifdef HST_E_JN\n"
"/* hst_e_fused_rows in builds for one radius: a segment's whole rows by items of HST_E_NP\n"
"   same-phase pixels of a row, mag columns apart (hst_e_rgc_tabr; a strip row's groups of a\n"
"   phase, the last short where its pixels are not a multiple, which go one by one, as all do\n"
"   where the radius's window is not HST_E_JN), the part\n"
"   rows before and after them one by one (hst_e_fused_px). A warp's items: one row's phases\n"
"   side by side, so they read neighbouring tile positions. The item's pixels whole and one by\n"
"   one in branches of their own: fewer values live across hst_e_rgc_tab (H100, mag 5: 0.529\n"
"   -> 0.516 ms a frame). Each pixel's value is hst_e_fused_px's, bit for bit */\n"
"void hst_e_fused_rowx(__global const float *f, __global float *o, __local const float *tile,\n"
"                      __local const float *wt, uint rows, uint cols, uint mag, float radius,\n"
"                      float sens, int weighting, uint row0, int x0, uint ws, uint q0, uint q1,\n"
"                      int lid, int L, int k0, int l0, int nk, int nl, int j0, int jn)\n"
"{\n"
"  int colsM = (int)(cols * mag), rowsM = (int)(rows * mag), margin = (int)(radius * (float)mag);\n"
"  uint qa = min(q1, (q0 + ws - 1) / ws * ws), qb = max(qa, q1 / ws * ws); /* whole rows */\n"
"  uint np = ws / mag, ng = (np + HST_E_NP - 1) / HST_E_NP; /* a phase's pixels, groups */\n"
"  (void)nk;\n"
"  HST_E_FOR_DM(q, lid, L, (int)((qb - qa) / ws), (int)(ng * mag)) {\n"
"    uint g = (uint)q.y / mag, qy = qa / ws + (uint)q.x;\n"
"    uint qx = (uint)q.y - g * mag + g * HST_E_NP * mag; /* the first pixel's column */\n"
"    int yM = (int)row0 + (int)qy, xM = x0 + (int)qx;\n"
"    int rin = yM >= margin && yM < rowsM - margin;\n"
"    float R[HST_E_NP], W[1], im[HST_E_NP];\n"
"    __global float *op = o + ((ulong)qy * (uint)colsM + qx) * HST_E_NS;\n"
"    if (jn == HST_E_JN && (g + 1) * HST_E_NP <= np && rin && xM >= margin &&\n"
"        xM + (HST_E_NP - 1) * (int)mag < colsM - margin &&\n"
"        hst_e_rgc_tabr(tile, wt, rows, cols, mag, yM, xM, k0, l0, nl, j0, R, W)) {\n"
"      int imn = weighting == 2;\n"
"      for (int m = 0; imn && m < HST_E_NP; ++m)\n"
"        im[m] = hst_e_itab_at(tile + 2 * HST_E_TILE, yM, xM + m * (int)mag);\n"
"      hst_e_ration(R, W, R); /* R[m]: the ratio */\n"
"      if (hst_e_outn(op, mag, R, sens, weighting, imn, im)) continue;\n"
"      for (int m = 0; m < HST_E_NP; ++m, op += mag * HST_E_NS)\n"
"        if (imn)\n"
"          hst_e_out(op, 1, R[m], sens, 1, im[m]);\n"
"        else\n"
"          hst_e_put(f, op, tile, rows, cols, mag, yM, xM + m * (int)mag, 1, R[m], sens, weighting);\n"
"      continue;\n"
"    }\n"
"    for (int m = 0; m < HST_E_NP; ++m, op += mag * HST_E_NS) { /* one by one */\n"
"      int x = xM + m * (int)mag, in = rin && x >= margin && x < colsM - margin;\n"
"      float2 rw = (float2)(0.0f, 0.0f);\n"
"      if (qx + m * mag >= ws) continue;\n"
"      if (in) rw = hst_e_rgc_tab(tile, wt, 0, rows, cols, mag, yM, x, k0, l0, nl, j0, jn);\n"
"      hst_e_put(f, op, tile, rows, cols, mag, yM, x, in, hst_e_ratio(rw.x, rw.y), sens, weighting);\n"
"    }\n"
"  }\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 q0 + (uint)lid, qa, L, k0, l0, nl, j0, jn, 3, 1);\n"
"  hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sens, weighting, row0, x0, ws,\n"
"                 qb + (uint)lid, q1, L, k0, l0, nl, j0, jn, 3, 1);\n"
"}\n"
"#define HST_E_ROWS_FN hst_e_fused_rowx\n"
"#else\n"
"#define HST_E_ROWS_FN hst_e_fused_rows\n"
"#endif\n";

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
"  int usewt = hst_e_wtable(wt, tile, (int)mag, radius, j0, jn, 0, (int)mag, HST_E_WTAB, lid, L);\n"
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
"    while (!use && s1 - s0 > (ulong)L) { /* halves (whole strip rows), down to L indices */\n"
"      s1 = s0 + max((ulong)L, hst_e_half(s1 - s0, ws, mag));\n"
"      use = hst_e_span(s0, s1, sb, (uint)ws, (int)x0, (int)row0, (int)mag, j0, jn, k);\n"
"    }\n"
"    int k0 = k[0], l0 = k[1], nk = k[2], nl = k[3];\n"
"    ulong z = begin + zf;\n"
"    int iw = intensity_weighting;\n"
"    __global const float *f = frames + z * rows * cols;\n"
"    if (use) {\n"
"#ifdef HST_E_TILE_T\n"
"      hst_e_tile_sep(f, (int)rows, (int)cols, (int)mag, k0, l0, nk, nl, tile,\n"
"                     tile + 4 * HST_E_TILE, lid, L);\n"
"#elif HST_E_ITAB > 0\n"
"      hst_e_tileg(f, (int)rows, (int)cols, (int)mag, k0, l0, nk, nl, tile, tile + 2 * HST_E_TILE,\n"
"                  lid, L);\n"
"#else\n"
"      for (int e = lid; e < nk * nl; e += L) {\n"
"        float u[2];\n"
"        hst_e_unit_at(f, (int)rows, (int)cols, (int)mag, k0 + e / nl, l0 + e % nl, u);\n"
"        tile[2 * e] = u[0];\n"
"        tile[2 * e + 1] = u[1];\n"
"      }\n"
"#endif\n"
"#ifndef HST_E_TILE_T\n"
"      uint ya = (uint)(s0 - sb) / ws, ny = (uint)(s1 - 1 - sb) / ws - ya + 1;\n"
"      if (iw && hst_e_itab(f, (int)rows, (int)cols, (int)mag, (int)(row0 + ya), (int)ny, (int)x0,\n"
"                           (int)ws, tile + 2 * HST_E_TILE, lid, L))\n"
"        iw = 2;\n"
"#endif\n"
"      barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"    /* the table path in a call of its own (a loop of its own once inlined: fewer registers\n"
"       live in it than in one loop over all three modes) */\n"
"    __global float *o = rgc + (z * nW + x0) * HST_E_NS;\n"
"    uint q0 = (uint)(s0 - sb), q1 = (uint)(s1 - sb);\n"
"    if (use && usewt)\n"
"      HST_E_ROWS_FN(f, o, tile, wt, rows, cols, mag, radius, sensitivity,\n"
"                       iw, row0, (int)x0, (uint)ws, q0, q1, lid, L, k0, l0, nk,\n"
"                       nl, j0, jn);\n"
"    else\n"
"      hst_e_fused_px(f, o, tile, wt, rows, cols, mag, radius, sensitivity, iw,\n"
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
"#ifdef HST_E_MAG\n"
"  /* a build for one magnification (esrrf.h's on NVIDIA GPUs): its divisions by mag and its\n"
"     phases' centres fold to constants (the same operations, so the same bits) */\n"
"  if (mag != HST_E_MAG) return;\n"
"  mag = HST_E_MAG;\n"
"#endif\n"
"#ifdef HST_E_RADIUS\n"
"  if (radius != HST_E_RADIUS) return;\n"
"  radius = HST_E_RADIUS;\n"
"#endif\n"
"  /* float2: the sample loop reads (ux, uy) and (w, wd) pairs as float2, aligned */\n"
"#ifdef HST_E_TILE_T\n"
"  __local float2 tile[3 * HST_E_TILE]; /* the copy by columns (hst_e_tile_t), the scratch of\n"
"                                          hst_e_tile_sep */\n"
"#else\n"
"  __local float2 tile[HST_E_TILE + (HST_E_ITAB + 1) / 2]; /* and hst_e_itab's table */\n"
"#endif\n"
"  __local float2 wt[HST_E_WTAB];\n"
"  hst_e_fused(frames, rgc, (__local float *)tile, (__local float *)wt, rows, cols, mag, radius, sensitivity,\n"
"              intensity_weighting, row0, nrows, begin, end);\n"
"}\n";

static const char hst__esrrf_src_rgc3[] =
"\n"
"/* Chained RGC's pixel i of a frame into o[i]: mode 3 its samples' unit gradients from the\n"
"   tile (k0, l0, nl: hst_e_rgc's) and (w, wd) from the table wt (from row phase py0), mode 2\n"
"   from the tile, mode 0 from the gradients gc, gr (grad2 pixel p at gc[p gstep],\n"
"   gr[p gstep + groff]); 0 outside the margin; weighted by the magnified frame mg[i]\n"
"   (intensity weighting) */\n"
"void hst_e_chained_px(__global const float *gc, __global const float *gr,\n"
"                      __global const float *mg, __global float *o, __local const float *tile,\n"
"                      __local const float *wt, int py0, uint rows, uint cols, uint mag,\n"
"                      float radius, float sens, int weighting, uint gstep, uint groff, ulong i,\n"
"                      int k0, int l0, int nl, int j0, int jn, int mode)\n"
"{\n"
"  ulong colsM = (ulong)cols * mag;\n"
"  int yM = (int)(i / colsM), xM = (int)(i % colsM);\n"
"  float mr = radius * (float)mag;\n"
"  int margin = (int)mr;\n"
"  float v = 0.0f;\n"
"  if (yM >= margin && yM < (int)(rows * mag) - margin && xM >= margin &&\n"
"      xM < (int)colsM - margin) {\n"
"    float2 rw;\n"
"    if (mode == 3)\n"
"      rw = hst_e_rgc_tab(tile, wt, py0, rows, cols, mag, yM, xM, k0, l0, nl, j0, jn);\n"
"    else\n"
"      rw = hst_e_rgc(gc, gr, (int)gstep, (int)groff, tile, mode, rows, cols, mag, yM, xM,\n"
"                     radius, k0, l0, nl, wt, 0);\n"
"    v = hst_e_final(rw.x, rw.y, sens);\n"
"    if (weighting) v = v * mg[i];\n"
"  }\n"
"  o[i] = v;\n"
"}\n"
"\n"
"#ifndef HST_E_CTILE\n"
"#define HST_E_CTILE " HST__KXSTR(HST_K_ESRRF_CHAINED_TILE) "\n"
"#endif\n"
"#ifndef HST_E_CWTAB\n"
"#define HST_E_CWTAB " HST__KXSTR(HST_K_ESRRF_CHAINED_WTAB) "\n"
"#endif\n";

static const char hst__esrrf_src_rgc4[] =
"\n"
"/* Chained RGC: item i of dimension 0 is magnified pixel i of frame begin + id(1), over any\n"
"   2-D NDRange. The gradients magnified 2 mag (4 nM pixels a frame): one interleaved array\n"
"   bound twice (gstep 2, groff 1) or two arrays (1, 0). A work-group of one frame's pixels\n"
"   (local size (L, 1)) shares what the fused kernel's share: the tile of half-pixel unit\n"
"   gradients (read from grad2) of its pixels, all at once where the tile fits HST_E_CTILE,\n"
"   else one row's at a time, and the (w, wd) table of their row phases (one row: mag phases,\n"
"   within HST_E_CWTAB); any other work-group reads each sample's gradients (mode 0). The same\n"
"   samples in the same order every way: the same bits */\n"
"__kernel void hst_k_esrrf_rgc(__global const float *grad_col, __global const float *grad_row,\n"
"                              __global const float *magnified, __global float *rgc, uint rows,\n"
"                              uint cols, uint mag, float radius, float sensitivity,\n"
"                              int intensity_weighting, uint gstep, uint groff, ulong base,\n"
"                              ulong begin, ulong end, ulong total, int flags)\n"
"{\n"
"  __local float2 tile[HST_E_CTILE];\n"
"  __local float2 wt[HST_E_CWTAB];\n"
"  __local float *tl = (__local float *)tile, *wl = (__local float *)wt;\n"
"  ulong colsM = (ulong)cols * mag, nM = (ulong)rows * mag * colsM;\n"
"  ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
"  __global const float *gc = grad_col + z * 4 * nM * gstep, *gr = grad_row + z * 4 * nM * gstep;\n"
"  __global const float *mg = magnified + z * nM;\n"
"  __global float *o = rgc + z * nM;\n"
"  int L = (int)get_local_size(0), lid = (int)get_local_id(0);\n"
"  ulong q0 = i - (ulong)lid, q1 = min(q0 + (ulong)L, nM);\n"
"  if (get_local_size(1) != 1) { /* frames mixed in a group */\n"
"    if (i < nM && z < end)\n"
"      hst_e_chained_px(gc, gr, mg, o, tl, wl, 0, rows, cols, mag, radius, sensitivity,\n"
"                       intensity_weighting, gstep, groff, i, 0, 0, 0, 0, 0, 0);\n"
"    return;\n"
"  }\n"
"  if (z >= end || q0 >= nM) return; /* the whole group */\n"
"  float r2 = 2.0f * radius;\n"
"  int j0 = -(int)r2;\n"
"  r2 = r2 + 1.0f;\n"
"  int jn = (int)r2 - j0, rows2 = 2 * (int)(rows * mag), cols2 = 2 * (int)colsM;\n"
"  for (ulong s0 = q0, s1; s0 < q1; s0 = s1) {\n"
"    int k[4];\n"
"    s1 = q1;\n"
"    int use = hst_e_span(s0, s1, 0, (uint)colsM, 0, 0, (int)mag, j0, jn, k) &&\n"
"              k[2] * k[3] <= HST_E_CTILE;\n"
"    if (!use) { /* one row's pixels */\n"
"      s1 = min(q1, (s0 / colsM + 1) * colsM);\n"
"      use = hst_e_span(s0, s1, 0, (uint)colsM, 0, 0, (int)mag, j0, jn, k) &&\n"
"            k[2] * k[3] <= HST_E_CTILE;\n"
"    }\n"
"    /* the table of the segment's row phases, in the tile's memory's ax before the tile */\n"
"    int one = s0 / colsM == (s1 - 1) / colsM, py0 = one ? (int)(s0 / colsM % mag) : 0;\n"
"    int usewt = use && hst_e_wtable(wl, tl, (int)mag, radius, j0, jn, py0, one ? 1 : (int)mag,\n"
"                                    HST_E_CWTAB, lid, L);\n"
"    if (use) {\n"
"      for (int e = lid; e < k[2] * k[3]; e += L) {\n"
"        int iy = hst_e_gidx(k[0] + e / k[3], (float)mag, rows2);\n"
"        int ix = hst_e_gidx(k[1] + e % k[3], (float)mag, cols2);\n"
"        long p = ((long)iy * cols2 + ix) * gstep;\n"
"        float u[2];\n"
"        hst_e_unit(gc[p], gr[p + groff], u);\n"
"        tile[e] = (float2)(u[0], u[1]);\n"
"      }\n"
"      barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"    if (i >= s0 && i < s1)\n"
"      hst_e_chained_px(gc, gr, mg, o, tl, wl, py0, rows, cols, mag, radius, sensitivity,\n"
"                       intensity_weighting, gstep, groff, i, k[0], k[1], k[3], j0, jn,\n"
"                       use ? (usewt ? 3 : 2) : 0);\n"
"    if (use) barrier(CLK_LOCAL_MEM_FENCE);\n"
"  }\n"
"}\n";

static const char hst__esrrf_src_other[] =
"\n"
"/* grad_col[q gstep] = Gc, grad_row[q gstep + groff] = Gr at pixel q = z n + p (p of frame z):\n"
"   one interleaved array bound twice (gstep 2, groff 1) or two arrays (1, 0) */\n"
"__kernel void hst_k_esrrf_roberts(__global const float *frames, __global float *grad_col,\n"
"                                  __global float *grad_row, uint rows, uint cols, uint gstep,\n"
"                                  uint groff, ulong base, ulong begin, ulong end, ulong total,\n"
"                                  int flags)\n"
"{\n"
"  ulong n = (ulong)rows * cols;\n"
"  ulong i = get_global_id(0);\n"
"  ulong z = begin + get_global_id(1);\n"
"  if (i >= n || z >= end) return;\n"
"  float g[2];\n"
"  hst_e_roberts(frames + z * n, (int)cols, (int)(i / cols), (int)(i % cols), g);\n"
"  ulong q = (z * n + i) * gstep;\n"
"  grad_col[q] = g[0];\n"
"  grad_row[q + groff] = g[1];\n"
"}\n"
"\n"
"/* Catmull-Rom shift-and-magnify of 1 or 2 interleaved channels into rowsM x colsM pixels:\n"
"   output (rM, cM) samples the input at (rM / mag.s0 - shift.s0, cM / mag.s1 - shift.s1)\n"
"   (s0: rows, s1: columns) */\n"
"__kernel void hst_k_esrrf_magnify(__global const float *in, __global float *out, uint rows,\n"
"                                  uint cols, uint rowsM, uint colsM, float2 mag, float2 shift,\n"
"                                  uint channels, ulong base, ulong begin, ulong end,\n"
"                                  ulong total, int flags)\n"
"{\n"
"  ulong nM = (ulong)rowsM * colsM;\n"
"  ulong i = get_global_id(0);\n"
"  ulong z = begin + get_global_id(1);\n"
"  if (i >= nM || z >= end) return;\n"
"  float r = hst_e_div((float)(uint)(i / colsM), mag.s0);\n"
"  float c = hst_e_div((float)(uint)(i % colsM), mag.s1);\n"
"  r = r - shift.s0;\n"
"  c = c - shift.s1;\n"
"  __global const float *src = in + z * rows * cols * channels;\n"
"  for (uint k = 0; k < channels; ++k)\n"
"    out[(z * nM + i) * channels + k] =\n"
"        hst_e_interp(src, (int)rows, (int)cols, (int)channels, (int)k, r, c);\n"
"}\n";

static const char hst__esrrf_src_temporal[] =
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
"    ulong n = min(end - z, T - t), first = t == 0, g0 = g; /* the time point's frames here */\n"
"    /* no store in the loop, and its count known before it: the frames' loads can be in\n"
"       flight together (a store to acc between them, which may alias rgc, or an exit test\n"
"       between them, kept one load in flight an item); the time point's first frame and its\n"
"       last (or the acquisition's last) are read again after it (from the cache) */\n"
"#pragma unroll 4\n"
"    for (ulong k = 0; k < n; ++k) {\n"
"      HST_EACC x = (HST_EACC)rgc[(z + k) * P + i];\n"
"      s1 = s1 + x;\n"
"      HST_EACC y = x * x;\n"
"      s2 = s2 + y;\n"
"#ifndef HST_E_NO_LAG1\n"
"      if (k > 0 || !first) {\n"
"        y = prev * x;\n"
"        s3 = s3 + y;\n"
"      }\n"
"      prev = x;\n"
"#endif\n"
"    }\n"
"    a[0] = s1;\n"
"    a[P] = s2;\n"
"    a[2 * P] = s3;\n"
"    if (first) a[3 * P] = a[3 * P] + (HST_EACC)rgc[z * P + i];\n"
"    /* the acquisition's last frame among these, then the time point's last, once if one */\n"
"    ulong zl = frames_total > g0 && frames_total - g0 <= n ? z + (frames_total - 1 - g0) : end;\n"
"    if (zl < end) a[4 * P] = a[4 * P] + (HST_EACC)rgc[zl * P + i];\n"
"    z += n;\n"
"    t += n;\n"
"    g += n;\n"
"    if (t == T && zl != z - 1) a[4 * P] = a[4 * P] + (HST_EACC)rgc[(z - 1) * P + i];\n"
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
"\n"
"/* A rolling window's sum from its blocks' in a ring (hst_k_esrrf_roll_host: the order) */\n"
"__kernel void hst_k_esrrf_roll(__global const double *ring, __global double *win, ulong win_off,\n"
"                               ulong block_elems, ulong nslots, ulong b0, uint nblocks,\n"
"                               uint pixels, uint sum, ulong off_q, ulong off_first,\n"
"                               ulong off_last)\n"
"{\n"
"  ulong i = get_global_id(0);\n"
"  if (i >= pixels || nblocks == 0) return;\n"
"  ulong sl = (sum == 4 ? b0 + nblocks - 1 : b0) % nslots;\n"
"  double s = ring[sl * block_elems + off_q + i];\n"
"  for (uint j = 1; j < nblocks && sum < 3; ++j) {\n"
"    ulong prev = sl;\n"
"    sl = sl + 1 == nslots ? 0 : sl + 1;\n"
"    if (sum == 2) {\n"
"      double lf = ring[prev * block_elems + off_last + i] * ring[sl * block_elems + off_first + i];\n"
"      s = s + lf;\n"
"    }\n"
"    s = s + ring[sl * block_elems + off_q + i];\n"
"  }\n"
"  win[win_off + i] = s;\n"
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
HST__PIECE_FITS(e_wd, hst__esrrf_src_wd);
HST__PIECE_FITS(e_rgc2, hst__esrrf_src_rgc2);
HST__PIECE_FITS(e_rgc3, hst__esrrf_src_rgc3);
HST__PIECE_FITS(e_rgc4, hst__esrrf_src_rgc4);
HST__PIECE_FITS(e_wtabn, hst__esrrf_src_wtabn);
HST__PIECE_FITS(e_wtab, hst__esrrf_src_wtab);
HST__PIECE_FITS(e_fused, hst__esrrf_src_fused);
HST__PIECE_FITS(e_tab2, hst__esrrf_src_tab2);
HST__PIECE_FITS(e_tabn, hst__esrrf_src_tabn);
HST__PIECE_FITS(e_fusedpx, hst__esrrf_src_fusedpx);
HST__PIECE_FITS(e_pairs, hst__esrrf_src_pairs);
HST__PIECE_FITS(e_fused1, hst__esrrf_src_fused1);
HST__PIECE_FITS(e_fused2, hst__esrrf_src_fused2);
HST__PIECE_FITS(e_other, hst__esrrf_src_other);
HST__PIECE_FITS(e_temporal, hst__esrrf_src_temporal);
HST__PIECE_FITS(e_io, hst__esrrf_src_io);
HST__PIECE_FITS(e_unit, hst__esrrf_src_unit);
HST__PIECE_FITS(e_interpn, hst__esrrf_src_interpn);
HST__PIECE_FITS(e_unitn, hst__esrrf_src_unitn);
HST__PIECE_FITS(e_tilesep, hst__esrrf_src_tilesep);
HST__PIECE_FITS(e_sweep, hst__esrrf_src_sweep);
HST__PIECE_FITS(e_pow, hst__esrrf_src_pow);
HST__PIECE_FITS(e_itab, hst__esrrf_src_itab);
HST__PIECE_FITS(e_tileg, hst__esrrf_src_tileg);

static const char *const hst__esrrf_src[] = {
    hst__esrrf_src_common, hst__esrrf_src_math, hst__esrrf_src_pow, hst__esrrf_src_rgc,
    hst__esrrf_src_wd, hst__esrrf_src_rgc2, hst__esrrf_src_tab2, hst__esrrf_src_tabn,
    hst__esrrf_src_interpn, hst__esrrf_src_unit, hst__esrrf_src_fused, hst__esrrf_src_unitn,
    hst__esrrf_src_wtabn, hst__esrrf_src_wtab, hst__esrrf_src_tilesep, hst__esrrf_src_itab,
    hst__esrrf_src_tileg, hst__esrrf_src_fusedpx, hst__esrrf_src_pairs, hst__esrrf_src_tabr,
    hst__esrrf_src_rowx, hst__esrrf_src_fused1,
    hst__esrrf_src_fused2, hst__esrrf_src_rgc3, hst__esrrf_src_rgc4, hst__esrrf_src_other,
    hst__esrrf_src_temporal, hst__esrrf_src_io, hst__esrrf_src_sweep
};

/* ---- host twins: the device functions above, statement for statement ---------------------- */

/* The twins the fused RGC's hot loops call are inlined into each of its builds (the portable
   one and, on x86-64 with gcc or clang, ones for AVX2 + FMA and AVX-512 picked at run time:
   HST__E_AVX2). A twin's fused multiply-add is kernels.h's HST__FMAF, never the C library's
   fmaf (mingw-w64's rounds twice); in the helpers those builds inline it is HST__E_FMA(hw, a,
   b, c): hw is 1 in the builds for FMA, which pass it down as a constant, and there it is the
   instruction (HST__FMAF_HW: HST__FMAF would be a call per fma where the build as a whole does
   not target FMA, and no loop would vectorise); hw 0 (the portable build, the other twins) is
   HST__FMAF. The same bits every way. */
#if defined(__GNUC__)
#  define HST__E_INL static inline __attribute__((always_inline, unused))
#else
#  define HST__E_INL static inline
#endif
#if defined(__GNUC__) && defined(__x86_64__) && !defined(HST_NO_CPU_DISPATCH)
#  include <immintrin.h>   /* the lanes' sums in registers (hst__e_lanes_in512, _in256) */
#  define HST__E_AVX2 1
#  define HST__E_FMA(hw, a, b, c) ((hw) ? HST__FMAF_HW(a, b, c) : HST__FMAF(a, b, c))
#else
#  define HST__E_AVX2 0
#  define HST__E_FMA(hw, a, b, c) ((void)(hw), HST__FMAF(a, b, c))
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

/* c ? a : b, bit for bit, without a branch */
HST__E_INL float hst__e_pick(int c, float a, float b)
{
    uint32_t m = 0u - (uint32_t)(c != 0);
    return hst__e_float((hst__e_bits(a) & m) | (hst__e_bits(b) & ~m));
}

/* hst_e_rcp: 1/b from a bit seed and three Newton-Raphson steps in fma */
HST__E_INL float hst__e_rcp(int hw, float b)
{
    float y = hst__e_float(0x7EF311C3u - hst__e_bits(b)), e;
    int k;
    for (k = 0; k < 3; ++k) {
        e = HST__E_FMA(hw, -b, y, 1.0f);
        y = HST__E_FMA(hw, y, e, y);
    }
    return y;
}

/* hst_e_div: a / b with Markstein's correction (see hst_k_esrrf_div) */
HST__E_INL float hst__e_div(int hw, float a, float b)
{
    float y = hst__e_rcp(hw, b), q = a * y, r;
    r = HST__E_FMA(hw, -b, q, a);
    return HST__E_FMA(hw, r, y, q);
}

/* hst_e_rsqrt: 1/sqrt(x), bit seed, three Newton-Raphson steps, one with an exact residual */
HST__E_INL float hst__e_rsqrt(int hw, float x)
{
    float y = hst__e_float(0x5F375A86u - (hst__e_bits(x) >> 1)), p, e, q, h;
    int k;
    for (k = 0; k < 3; ++k) {
        p = y * y;
        e = HST__E_FMA(hw, -x, p, 1.0f);
        h = 0.5f * y;
        y = HST__E_FMA(hw, h, e, y);
    }
    p = y * y;   /* the last step's residual exact: 1 - x y^2 with y^2's rounding error q */
    e = HST__E_FMA(hw, -x, p, 1.0f);
    q = HST__E_FMA(hw, y, y, -p);
    e = HST__E_FMA(hw, -x, q, e);
    h = 0.5f * y;
    return HST__E_FMA(hw, h, e, y);
}

/* hst_e_unit: the unit gradient, the pair first scaled by a power of two (no overflow); (+0, +0)
   for a zero, infinite or NaN one. Without branches (the zero case selected at the end), so
   that hst__e_unit_lanes' loop vectorises. */
HST__E_INL void hst__e_unit(int hw, float gx, float gy, float *u)
{
    uint32_t a = hst__e_bits(gx) & 0x7FFFFFFFu, b = hst__e_bits(gy) & 0x7FFFFFFFu;
    uint32_t m = a > b ? a : b, E, ok = 0u - (uint32_t)((m != 0u) & (m < 0x7F800000u));
    float sc, x, y, t, n, r;
    E = m >> 23;
    E = E < 1u ? 1u : E > 253u ? 253u : E;
    sc = hst__e_float((254u - E) << 23);
    x = gx * sc;
    y = gy * sc;
    x = hst__e_pick(hst__e_bits(x) & 0x7F800000u, x, 0.0f);
    y = hst__e_pick(hst__e_bits(y) & 0x7F800000u, y, 0.0f);
    t = y * y;
    n = HST__E_FMA(hw, x, x, t);
    r = hst__e_rsqrt(hw, n);
    u[0] = hst__e_float(hst__e_bits(x * r) & ok);
    u[1] = hst__e_float(hst__e_bits(y * r) & ok);
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

/* One axis of hst__e_interp at position v (of an axis of n pixels): its first tap t0 (r0 - 1 or
   c0 - 1) and the 4 taps' cubic weights, as hst__e_interp computes them; 0 when v is outside
   [0, n) (the pixel is 0) */
HST__E_INL int hst__e_axis(float v, int n, int *t0, float *w)
{
    int i;
    if (v < 0.0f || v >= (float)n) return 0;
    *t0 = (int)floorf(v - 0.5f) - 1;
    for (i = 0; i < 4; ++i) {
        float u = (float)(*t0 + i) + 0.5f;
        w[i] = hst__e_cubic(v - u);
    }
    return 1;
}

/* hst__e_tapsum's column sum: column cn (inside the image) over the rows' taps i, those inside */
HST__E_INL float hst__e_vtap(const float *im, int rows, int cols, int ch, int k, int r0,
                             const float *wr, int cn)
{
    int i, ia = r0 < 0 ? -r0 : 0, ib = rows - r0 < 4 ? rows - r0 : 4;   /* the taps inside: a
                                      range that does not depend on cn, so a column loop keeps it */
    float p = 0.0f, t;
    for (i = ia; i < ib; ++i) {
        t = im[((size_t)(r0 + i) * (size_t)cols + (size_t)cn) * (size_t)ch + (size_t)k] * wr[i];
        p = p + t;
    }
    return p;
}

/* hst__e_tapsum's row of column sums: v[cn - vbase] is column cn's (hst__e_vtap), over the
   columns' taps j, those inside the image */
HST__E_INL float hst__e_htap(const float *v, int vbase, int cols, int c0, const float *wc)
{
    int j;
    float q = 0.0f, t;
    for (j = 0; j < 4; ++j) {
        int cn = c0 + j;
        if (cn < 0 || cn >= cols) continue;
        t = v[cn - vbase] * wc[j];
        q = q + t;
    }
    return q;
}

/* hst__e_htap of nl pixels at once over a row of column sums v that holds 0 at the columns
   outside the image: pixel l's tap j is v[l + j] (pixel 0's moved l columns), its weight
   wc[j ws + l], its value q[l]. A tap outside adds 0 * w, which leaves the sum as skipping it
   does (the sum starts at +0, so it is never -0, and q + 0 is q), with no test per tap; the
   pixels side by side through the taps (vectorised where nl is a constant) */
HST__E_INL void hst__e_htap0(const float *v, const float *wc, int ws, int nl, float *q)
{
    int j, l;
    for (l = 0; l < nl; ++l) q[l] = 0.0f;
    for (j = 0; j < 4; ++j)
        for (l = 0; l < nl; ++l) {
            float t = v[l + j] * wc[j * ws + l];
            q[l] = q[l] + t;
        }
}

/* The interpolated value from the taps of both axes (hst__e_axis): over columns j, then rows i,
   the taps inside the image only */
HST__E_INL float hst__e_tapsum(const float *im, int rows, int cols, int ch, int k, int r0,
                               const float *wr, int c0, const float *wc)
{
    float v[4];
    int j;
    for (j = 0; j < 4; ++j)
        v[j] = c0 + j < 0 || c0 + j >= cols ? 0.0f : hst__e_vtap(im, rows, cols, ch, k, r0, wr, c0 + j);
    return hst__e_htap(v, c0, cols, c0, wc);
}

HST__E_INL float hst__e_interp(const float *im, int rows, int cols, int ch, int k, float r,
                                  float c)
{
    int r0, c0;
    float wr[4], wc[4];
    if (!hst__e_axis(r, rows, &r0, wr) || !hst__e_axis(c, cols, &c0, wc)) return 0.0f;
    return hst__e_tapsum(im, rows, cols, ch, k, r0, wr, c0, wc);
}

/* The Roberts-cross gradients of one pixel from its four samples, in the device's order (hst_e_roberts's
   sums): *gc = ((a - b) + d) - c, *gr = ((b - a) + d) - c */
HST__E_INL void hst__e_roberts_of(float a, float b, float c, float d, float *gc, float *gr)
{
    float s = a - b;
    s = s + d;
    *gc = s - c;
    s = b - a;
    s = s + d;
    *gr = s - c;
}

/* The Roberts cross at row r1, column c1 of frame f (cols columns; the edge clamped): g[0] the
   column gradient, g[1] the row gradient, from a = f(r0, c1), b = f(r1, c0), c = f(r0, c0),
   d = f(r1, c1) as hst__e_roberts_of adds them */
HST__E_INL void hst__e_roberts(const float *f, int cols, int r1, int c1, float *g)
{
    int r0 = r1 > 0 ? r1 - 1 : 0;
    int c0 = c1 > 0 ? c1 - 1 : 0;
    hst__e_roberts_of(f[(size_t)r0 * (size_t)cols + (size_t)c1], f[(size_t)r1 * (size_t)cols + (size_t)c0],
                      f[(size_t)r0 * (size_t)cols + (size_t)c0], f[(size_t)r1 * (size_t)cols + (size_t)c1], &g[0],
                      &g[1]);
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
    return hst__e_exp_reduced(x, k) * hst__e_float((uint32_t)((int)k + 127) << 23);
}

/* hst_e_lnm: ln(1 + f) = a + *lo for 1 + f in [0.707, 1.414] */
HST__E_INL float hst__e_lnm(int hw, float f, float *lo)
{
    float dh = 2.0f + f, dl, u0, res, ul, z, q, a;
    dl = dh - 2.0f;
    dl = f - dl;
    u0 = hst__e_div(hw, f, dh);
    res = HST__E_FMA(hw, -u0, dh, f);
    res = HST__E_FMA(hw, -u0, dl, res);
    ul = res * hst__e_rcp(hw, dh);
    z = u0 * u0;
    q = z * 0.0909090909f;
    q = q + 0.111111111f;
    q = q * z;
    q = q + 0.142857143f;
    q = q * z;
    q = q + 0.2f;
    q = q * z;
    q = q + 0.333333333f;
    q = q * z;
    a = 2.0f * u0;
    q = a * q;
    ul = 2.0f * ul;
    *lo = ul + q;
    return a;
}

/* hst_e_pow: R^s for 0 <= R <= 1, s > 0 (hst_k_esrrf_pow) */
HST__E_INL float hst__e_pow(int hw, float R, float s)
{
    uint32_t b = hst__e_bits(R);
    float m, ef, a, lo, L2h, L2l, P1, P1e, P2, P2e, sh, bb, k, r;
    int e;
    if (R < 1.17549435e-38f) return 0.0f;
    e = (int)(b >> 23) - 127;
    m = hst__e_float((b & 0x007FFFFFu) | 0x3F800000u);
    if (m > 1.41421356f) {
        m = 0.5f * m;
        e = e + 1;
    }
    ef = (float)e;
    a = hst__e_lnm(hw, m - 1.0f, &lo);
    L2h = a * 1.44269502f;
    L2l = HST__E_FMA(hw, a, 1.44269502f, -L2h);
    L2l = HST__E_FMA(hw, a, 1.92596299e-8f, L2l);
    L2l = HST__E_FMA(hw, lo, 1.44269502f, L2l);
    P1 = s * ef;
    P1e = HST__E_FMA(hw, s, ef, -P1);
    P2 = s * L2h;
    P2e = HST__E_FMA(hw, s, L2h, -P2);
    sh = P1 + P2;
    bb = sh - P1;
    lo = sh - bb;
    lo = P1 - lo;
    bb = P2 - bb;
    lo = lo + bb;
    lo = lo + P1e;
    lo = lo + P2e;
    lo = HST__E_FMA(hw, s, L2l, lo);
    if (sh < -124.0f) return 0.0f;
    k = floorf(sh + 0.5f);
    r = sh - k;
    r = r + lo;
    r = r * 0.693147182f;
    return hst__e_exp(r) * hst__e_float((uint32_t)((int)k + 127) << 23);
}

HST__E_INL float hst__e_sens(int hw, float R, float s)
{
    if (s <= 64.0f && s == floorf(s)) {
        int n = (int)s, e;
        float p = R;
        for (e = 1; e < n; ++e) p = p * R;
        return p;
    }
    return hst__e_pow(hw, R, s);
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

/* The interpolation taps of grad2's index i (of 2 mag per pixel) along an axis of n pixels:
   their count (0 outside), the first pixel, the weights */
HST__E_INL int hst__e_gtaps(int hw, int i, int mag, int n, int *first, float *w)
{
    float v = hst__e_div(hw, (float)i, (float)(2 * mag));
    return hst__e_taps(i % mag == 0 ? i / mag : -1, v, n, first, w);
}

HST__E_INL int hst__e_clampi(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

/* Column cn's (inside the image) Roberts gradients summed over the row taps (ny from ry,
   weights wy) inside the image, i in [ia, ib): pc[0] column, pc[1] row (hst__e_grad_fused's
   inner loop; hst_e_vsum's statements: a row's two values serve the next row as its upper
   ones, the first row's upper row clamped into the image) */
HST__E_INL void hst__e_gcol(const float *f, int rows, int cols, int ry, int ny, const float *wy,
                            int cn, float *pc)
{
    int ia = ry < 0 ? -ry : 0, ib = ny < rows - ry ? ny : rows - ry, c0 = cn > 0 ? cn - 1 : 0, i;
    const float *p = f + (size_t)hst__e_clampi(ry + ia - 1, rows - 1) * (size_t)cols;
    float a = p[cn], c = p[c0], t;
    pc[0] = pc[1] = 0.0f;
    for (i = ia; i < ib; ++i) {
        float rg[2], b, d;
        p = f + (size_t)(ry + i) * (size_t)cols;
        b = p[c0];
        d = p[cn];
        hst__e_roberts_of(a, b, c, d, &rg[0], &rg[1]);
        a = d;
        c = b;
        t = rg[0] * wy[i];
        pc[0] = pc[0] + t;
        t = rg[1] * wy[i];
        pc[1] = pc[1] + t;
    }
}

/* The gradient from column sums: over the column taps (nx from cx, weights wx) inside the
   image, g += col(cn) wx[j] with col(cn) at pc[2 (cn - cbase)] (hst__e_grad_fused's outer loop) */
HST__E_INL void hst__e_grow(const float *pc, int cbase, int cols, int cx, int nx, const float *wx,
                            float *g)
{
    float qc = 0.0f, qr = 0.0f, t;
    int j;
    for (j = 0; j < nx; ++j) {
        int cn = cx + j;
        if (cn < 0 || cn >= cols) continue;
        t = pc[2 * (cn - cbase)] * wx[j];
        qc = qc + t;
        t = pc[2 * (cn - cbase) + 1] * wx[j];
        qr = qr + t;
    }
    g[0] = qc;
    g[1] = qr;
}

/* The Roberts-cross gradient at grad2's position (iy, ix), interpolated from frame f: over the
   column taps, each column's sum over the row taps, in the device's order */
HST__E_INL void hst__e_grad_fused(int hw, const float *f, int rows, int cols, int mag, int iy,
                                  int ix, float *g)
{
    float wy[4], wx[4], pc[8];
    int ry = 0, cx = 0, ny, nx, j;
    ny = hst__e_gtaps(hw, iy, mag, rows, &ry, wy);
    nx = hst__e_gtaps(hw, ix, mag, cols, &cx, wx);
    if (ny == 0 || nx == 0) ny = nx = 0;
    for (j = 0; j < nx; ++j)
        if (cx + j >= 0 && cx + j < cols) hst__e_gcol(f, rows, cols, ry, ny, wy, cx + j, pc + 2 * j);
    hst__e_grow(pc, cx, cols, cx, nx, wx, g);
}

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
    s = HST__FMAF(uy, dy, t);
    if (s < 0.0f) {
        t = ux * dy;
        c = HST__FMAF(uy, dx, -t);
        t = HST__FMAF(-fabsf(c), wd, w);
        *R = *R + t;
    }
}

/* hst_e_consts: c[0] = -2 / tSS, c[1] = tSO^2; and the sample range [j0, j1) */
HST__E_INL void hst__e_consts(float radius, float *c, int *j0, int *j1)
{
    float sigma = hst__e_div(0, radius, 2.355f), tSS, tSO, gr;
    tSS = sigma * sigma;
    tSS = 2.0f * tSS;
    c[0] = hst__e_div(0, -2.0f, tSS);
    tSO = 2.0f * sigma;
    tSO = tSO + 1.0f;
    c[1] = tSO * tSO;
    gr = 2.0f * radius;
    *j0 = -(int)gr;
    gr = gr + 1.0f;
    *j1 = (int)gr;
}

/* hst_e_centre: the centre of phase p in input pixels from its macro-pixel's start */
HST__E_INL float hst__e_centre(int hw, int p, int mag)
{
    float c = (float)p + 0.5f;
    return hst__e_div(hw, c, (float)mag);
}

/* hst_e_base: (int)(2 c), c = (y + 0.5) / mag, from y's phase: the first half-pixel position
   magnified row or column y samples is that plus j0 */
HST__E_INL int hst__e_base(int hw, int y, int mag)
{
    int q = y / mag;
    float c = hst__e_centre(hw, y - q * mag, mag);
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
HST__E_INL float hst__e_wd2(int hw, float dx, float dy, float ex, float ey, const float *c,
                            float *wd)
{
    float t = dy * dy, d2, w;
    d2 = HST__E_FMA(hw, dx, dx, t);
    *wd = 0.0f;
    if (d2 == 0.0f || d2 > c[1]) return 0.0f;
    w = ex * ey;
    w = d2 * w;
    w = w * w;
    if (w < 1e-30f) return 0.0f;
    *wd = w * hst__e_rsqrt(hw, d2);
    return w;
}

HST__E_INL float hst__e_wd(int hw, float dx, float dy, const float *c, float *wd)
{
    return hst__e_wd2(hw, dx, dy, hst__e_axexp(dx, c), hst__e_axexp(dy, c), c, wd);
}

/* hst_e_final's first steps, R / W (0 where W is not positive) and negatives to 0, without a
   branch: a block's lanes take them together (vectorised), their one division each */
HST__E_INL float hst__e_ratio(int hw, float R, float W)
{
    int pos = W > 0.0f;
    float q = hst__e_pick(pos, hst__e_div(hw, R, hst__e_pick(pos, W, 1.0f)), 0.0f);
    return hst__e_pick(q < 0.0f, 0.0f, q);
}


/* hst_e_rgc: the sums (R, W) of pixel (yM, xM), per sample; not fused: the gradient of grad2
   pixel p is (src[p gstep], src2[p gstep + groff]). wt: hst__e_wtable's table (the same (w, wd)
   bits as per sample, read instead of computed), or NULL */
HST__KPRIVATE void hst__e_rgc(const float *src, const float *src2, size_t gstep, size_t groff,
                              int fused, int rows, int cols, int mag, int yM, int xM,
                              float radius, const float *wt, float *Rs, float *Ws)
{
    float fm = (float)mag, c[2], cx, cy, ymax, xmax, R = 0.0f, W = 0.0f;
    int j0, j1, rows2 = 2 * rows * mag, cols2 = 2 * cols * mag, by, bx, fy, fx, i, j;
    hst__e_consts(radius, c, &j0, &j1);
    ymax = (float)(rows * mag - 1);
    xmax = (float)(cols * mag - 1);
    by = hst__e_base(0, yM, mag);
    bx = hst__e_base(0, xM, mag);
    fy = by - 2 * (yM / mag);
    fx = bx - 2 * (xM / mag);
    cy = hst__e_centre(0, yM % mag, mag);
    cx = hst__e_centre(0, xM % mag, mag);
    if (wt) wt += (size_t)((((yM % mag) * mag + xM % mag) * (j1 - j0)) * (j1 - j0)) * 2;
    for (j = j0; j < j1; ++j) {
        float vy = (float)(by + j) * 0.5f, dy;
        if (!(0.0f < vy && vy <= ymax)) continue;
        dy = HST__FMAF((float)(fy + j), 0.5f, -cy);
        for (i = j0; i < j1; ++i) {
            float vx = (float)(bx + i) * 0.5f, dx, wd, w, g[2], u[2];
            int iy, ix;
            if (!(0.0f < vx && vx <= xmax)) continue;
            dx = HST__FMAF((float)(fx + i), 0.5f, -cx);
            if (wt) {
                w = wt[((j - j0) * (j1 - j0) + i - j0) * 2];
                wd = wt[((j - j0) * (j1 - j0) + i - j0) * 2 + 1];
            } else {
                w = hst__e_wd(0, dx, dy, c, &wd);
            }
            if (w == 0.0f) continue;
            iy = hst__e_gidx(by + j, fm, rows2);
            ix = hst__e_gidx(bx + i, fm, cols2);
            if (fused) {
                hst__e_grad_fused(0, src, rows, cols, mag, iy, ix, g);
            } else {
                size_t o = ((size_t)iy * (size_t)cols2 + (size_t)ix) * gstep;
                g[0] = src[o];
                g[1] = src2[o + groff];
            }
            hst__e_unit(0, g[0], g[1], u);
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
   (and the chained twin's whole rows: the same blocks with the gradients read from grad2, the
   intensity from the magnified frame: hst__e_geom's g2c)
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
   The block code is built three times: portable, and (gcc/clang on x86-64) for AVX-512 (32
   lanes in two registers) and for AVX2 + FMA, the first the CPU has chosen at run time by
   __builtin_cpu_supports; the fma is the instruction in the latter two and HST__FMAF in the
   portable one (the instruction where the build targets FMA: -mfma, -march=haswell or later,
   aarch64; else a call per fma), correctly rounded in all, so the bits agree: measured on
   x86-64 without FMA, 9x slower than the AVX-512 build. */

/* Pixels of one row and phase computed together: 32 share each sample's scalar work (its
   weights, offsets, loop) among two AVX-512 registers' lanes; 16 took 7% more time on the
   shipped stack (2-core Xeon, AVX-512) */
#define HST__E_LANES 32
/* Half-pixel positions the stack tile holds (2 floats each: 36 KiB). Radius 1.5 needs 7 rows
   of 72 positions for one magnified row; a radius above ~10 (41 rows of about 106) needs more
   than it holds for one row and takes the per-sample path (hst__e_rgc), with the same bits. */
#define HST__E_HOST_TILE 4608
/* (w, wd) entries the stack table holds (32 KiB): mag^2 (j1 - j0)^2, 1225 at mag 5 radius
   1.5; more (mag 8 with radius 2, ...) compute each sample's weight, with the same bits. */
#define HST__E_HOST_WTAB 4096

/* Every per-frame number of hst__e_rgc and the margin, computed as there */
typedef struct hst__e_geom {
    int rows, cols, mag, rowsM, colsM, margin, j0, j1;
    int out_row0;           /* the output's first magnified row (row yM at (yM - out_row0) colsM) */
    int ns;                 /* values per pixel: one per sensitivity (pixel x's at x ns) */
    float fm, radius, c[2], ymax;
    const float *sens;      /* the ns sensitivities */
    const float *wt;        /* the (w, wd) table of every phase and sample, or NULL */
    /* The chained twin (hst_k_esrrf_rgc's): the gradients from grad2 (pixel p's at g2c[p gstep],
       g2r[p gstep + groff]) instead of interpolated from the frame, and the intensity weight
       from the magnified frame mimg (rowsM x colsM) instead of interp; g2c NULL: fused */
    const float *g2c, *g2r, *mimg;
    size_t gstep, groff;
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
    g->g2c = g->g2r = g->mimg = NULL;
    g->gstep = g->groff = 0;
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
            float d = HST__FMAF((float)(hst__e_base(0, p, g->mag) + g->j0 + i), 0.5f,
                                -hst__e_centre(0, p, g->mag));
            ax[2 * (p * n + i)] = d;
            ax[2 * (p * n + i) + 1] = hst__e_axexp(d, g->c);
        }
    for (r = 0; r < g->mag * g->mag; ++r)
        for (j = 0; j < n; ++j)
            for (i = 0; i < n; ++i, e += 2) {
                int a = 2 * ((r % g->mag) * n + i), b = 2 * ((r / g->mag) * n + j);
                e[0] = hst__e_wd2(0, ax[a], ax[b], ax[a + 1], ax[b + 1], g->c, &e[1]);
            }
    g->wt = wt;
}

/* The fused tile's interpolation, separable (the same operations, in the same order, as
   hst__e_grad_fused for each position): the column taps of every tile column e, once per tile;
   per tile row, each frame column's sum over the row's taps, once; then each position's sum of
   its columns' sums. At most HST__E_SEP_COLS tile columns and HST__E_SEP_PIXELS frame columns
   (a block's HST__E_LANES macro-pixels and the window's margin: about 70 tile columns and 36
   frame columns at radius 1.5, at any magnification) fit the stack; a wider tile interpolates each position alone, with the same bits. */
#define HST__E_SEP_COLS 512
#define HST__E_SEP_PIXELS 256
typedef struct hst__e_sep {
    int first[HST__E_SEP_COLS], n[HST__E_SEP_COLS];   /* tile column e's taps (hst__e_gtaps) */
    float w[HST__E_SEP_COLS][4];
    int cbase, cend;                                   /* the frame columns they cover */
    float col[2 * HST__E_SEP_PIXELS];                  /* a tile row's column sums (hst__e_gcol) */
} hst__e_sep;

/* The column taps of tile columns l0 .. l0 + nl - 1 and the frame columns they cover; 0 when
   they do not fit */
HST__E_INL int hst__e_sep_init(int hw, const hst__e_geom *g, int l0, int nl, hst__e_sep *sp)
{
    int e;
    if (nl > HST__E_SEP_COLS) return 0;
    sp->cbase = g->cols;
    sp->cend = 0;
    for (e = 0; e < nl; ++e) {
        int ix = hst__e_gidx(l0 + e, g->fm, 2 * g->colsM);
        sp->n[e] = hst__e_gtaps(hw, ix, g->mag, g->cols, &sp->first[e], sp->w[e]);
        if (sp->n[e] == 0) continue;
        if (sp->first[e] < sp->cbase) sp->cbase = sp->first[e] < 0 ? 0 : sp->first[e];
        if (sp->first[e] + sp->n[e] > sp->cend)
            sp->cend = sp->first[e] + sp->n[e] > g->cols ? g->cols : sp->first[e] + sp->n[e];
    }
    return sp->cend - sp->cbase <= HST__E_SEP_PIXELS;
}

/* Tile row iy's column sums; its row taps' count (0: every position's gradient is 0) */
HST__E_INL int hst__e_sep_row(int hw, const float *f, const hst__e_geom *g, int iy, hst__e_sep *sp)
{
    float wy[4];
    int ry = 0, ny = hst__e_gtaps(hw, iy, g->mag, g->rows, &ry, wy), cn;
    if (ny)
        for (cn = sp->cbase; cn < sp->cend; ++cn)
            hst__e_gcol(f, g->rows, g->cols, ry, ny, wy, cn, sp->col + 2 * (cn - sp->cbase));
    return ny;
}

/* The gradient of tile position (iy, tile column e): grad2's pixel (chained), from the row's
   column sums (sep: ny row taps), or interpolated alone */
HST__E_INL void hst__e_tile_grad(int hw, const float *f, const hst__e_geom *g, const hst__e_sep *sp,
                                 int sep, int ny, int iy, int l0, int e, float *gg)
{
    int ix = hst__e_gidx(l0 + e, g->fm, 2 * g->colsM);
    if (g->g2c) {
        size_t q = ((size_t)iy * (size_t)(2 * g->colsM) + (size_t)ix) * g->gstep;
        gg[0] = g->g2c[q];
        gg[1] = g->g2r[q + g->groff];
    } else if (sep) {
        hst__e_grow(sp->col, sp->cbase, g->cols, sp->first[e], ny ? sp->n[e] : 0, sp->w[e], gg);
    } else {
        hst__e_grad_fused(hw, f, g->rows, g->cols, g->mag, iy, ix, gg);
    }
}

/* The tile: unit gradients (ux, uy) of half-pixel positions (k0 + a, l0 + e), a < nk, e < nl,
   in two planes of nk rows of `stride` floats; in a row, even e first, then odd e (position e
   at (e & 1) * stride / 2 + e / 2), so the lanes' samples, 2 positions apart, are adjacent.
   The gradient of a position: interpolated from the frame f (fused; separably where sp fits),
   or grad2's pixel there (chained: hst__e_rgc's mode 0), normalised as hst__e_rgc does per
   sample. */
HST__E_INL void hst__e_tile(int hw, const float *f, const hst__e_geom *g, int k0, int nk, int l0,
                            int nl, int stride, float *tile, hst__e_sep *sp)
{
    size_t plane = (size_t)nk * (size_t)stride;
    int a, e0, l, half = stride / 2, sep = !g->g2c && hst__e_sep_init(hw, g, l0, nl, sp), ny = 0;
    for (a = 0; a < nk; ++a) {
        int iy = hst__e_gidx(k0 + a, g->fm, 2 * g->rowsM);
        if (sep) ny = hst__e_sep_row(hw, f, g, iy, sp);
        for (e0 = 0; e0 < nl; e0 += HST__E_LANES) {   /* the gradients of LANES positions, then their units */
            float gx[HST__E_LANES], gy[HST__E_LANES], ux[HST__E_LANES], uy[HST__E_LANES], gg[2];
            for (l = 0; l < HST__E_LANES; ++l) {
                gg[0] = gg[1] = 0.0f;
                if (e0 + l < nl) hst__e_tile_grad(hw, f, g, sp, sep, ny, iy, l0, e0 + l, gg);
                gx[l] = gg[0];
                gy[l] = gg[1];
            }
            for (l = 0; l < HST__E_LANES; ++l) {
                float u[2];
                hst__e_unit(hw, gx[l], gy[l], u);
                ux[l] = u[0];
                uy[l] = u[1];
            }
            for (l = 0; l < HST__E_LANES && e0 + l < nl; ++l) {
                size_t o = (size_t)a * (size_t)stride + (size_t)(((e0 + l) & 1) * half + ((e0 + l) >> 1));
                tile[o] = ux[l];
                tile[plane + o] = uy[l];
            }
        }
    }
}

/* One sample for lanes 0 .. nl - 1, whose pixels share a phase and so its offsets (dx, dy) and
   (w, wd): hst__e_acc where each lane's sample is inside the image (half-pixel column
   k = ki + 2 l with 0 < k <= kx; `in`: every lane's is, and W is the caller's); ux, uy: the
   lanes' unit gradients (adjacent) */
HST__E_INL void hst__e_lane_sample(int hw, int in, int nl, const float *ux, const float *uy, int ki, int kx,
                                   float dx, float dy, float w, float wd, float *W, float *R)
{
    int l;
    for (l = 0; l < nl; ++l) {
        int k = ki + 2 * l, ok = in | ((k > 0) & (k <= kx));
        float t = ux[l] * dx, s, c, v;
        s = HST__E_FMA(hw, uy[l], dy, t);
        t = ux[l] * dy;
        c = HST__E_FMA(hw, uy[l], dx, -t);
        v = HST__E_FMA(hw, -fabsf(c), wd, w);
        if (!in) W[l] = W[l] + hst__e_pick(ok, w, 0.0f);
        R[l] = R[l] + hst__e_pick(ok & (s < 0.0f), v, 0.0f);
    }
}

/* 1 when every sample of lanes 0 .. n - 1 from half-pixel column bx is inside the image's
   columns (hst__e_lane_sample's 0 < k <= kx for each i and lane; lane l's are lane 0's plus
   2 l) */
HST__E_INL int hst__e_lanes_inside(const hst__e_geom *g, int bx, int n)
{
    return bx + g->j0 > 0 && bx + g->j1 - 1 + 2 * (n - 1) <= 2 * (g->colsM - 1);
}

/* The samples one call of hst__e_lanes sums, in hst__e_rgc's order: the window's (j, i) whose
   row is inside the image and whose weight is not 0. Sample s of lane l: its unit gradient at
   base[off[s] + l] (ux; uy a plane further), base the tile's row of the window's first row j0;
   its half-pixel column k[s] + 2 l; its offsets dx, dy and weights w, wd, the same for every
   lane (one phase). Listed once per phase and block, so that the lanes' sums run through them
   with nothing else to do: a list depends on the phase (yM mod mag, x0 - xa), and on yM only
   where rows of the window fall outside the image (those calls list their own). */
#define HST__E_MAX_SAMPLES 2048   /* (j1 - j0)^2 at most: hst__e_block_rows keeps larger
                                     windows (radius above ~10) off the tile path */
#define HST__E_MAX_PHASES 256     /* phases kept (mag 16) */
typedef struct hst__e_list {
    const int *off, *k;
    const float *dx, *dy, *w, *wd;
    int n;
} hst__e_list;

typedef struct hst__e_samples {
    int n, off[HST__E_MAX_SAMPLES], k[HST__E_MAX_SAMPLES];   /* n: entries kept */
    float dx[HST__E_MAX_SAMPLES], dy[HST__E_MAX_SAMPLES], w[HST__E_MAX_SAMPLES], wd[HST__E_MAX_SAMPLES];
    int keep;                     /* the block's phases' lists fit with room for one more */
    int first[HST__E_MAX_PHASES], count[HST__E_MAX_PHASES];   /* phase q's; first < 0: not yet */
} hst__e_samples;

/* A block's lists: none yet */
HST__E_INL void hst__e_samples_init(const hst__e_geom *g, hst__e_samples *S)
{
    long n2 = (long)(g->j1 - g->j0) * (g->j1 - g->j0), q2 = (long)g->mag * g->mag, q;
    S->n = 0;
    S->keep = q2 <= HST__E_MAX_PHASES && (q2 + 1) * n2 <= HST__E_MAX_SAMPLES;
    for (q = 0; S->keep && q < q2; ++q) S->first[q] = -1;
}

/* The samples of the lanes' pixels (yM, x0 + l mag) from the tile (columns from half-pixel
   position l0, rows of `stride` floats), written from entry m of S; returns how many */
HST__E_INL int hst__e_samples_of(int hw, const hst__e_geom *g, int stride, int l0, int yM, int x0,
                                 hst__e_samples *S, int m)
{
    float cx, cy;
    int by, bx, fy, fx, j, i, half = stride / 2, n = g->j1 - g->j0, m0 = m;
    const float *wp = NULL;
    by = hst__e_base(hw, yM, g->mag);
    bx = hst__e_base(hw, x0, g->mag);
    fy = by - 2 * (yM / g->mag);
    fx = bx - 2 * (x0 / g->mag);
    cy = hst__e_centre(hw, yM % g->mag, g->mag);
    cx = hst__e_centre(hw, x0 % g->mag, g->mag);
    if (g->wt) wp = g->wt + (size_t)(((yM % g->mag) * g->mag + x0 % g->mag) * n * n) * 2;
    for (j = g->j0; j < g->j1; ++j) {
        float vy = (float)(by + j) * 0.5f, dy;
        int row = (j - g->j0) * stride;
        if (!(0.0f < vy && vy <= g->ymax)) continue;
        dy = HST__E_FMA(hw, (float)(fy + j), 0.5f, -cy);
        for (i = g->j0; i < g->j1; ++i) {
            int e = bx + i - l0;
            float dx = HST__E_FMA(hw, (float)(fx + i), 0.5f, -cx), wd, w;
            if (wp) {
                w = wp[((j - g->j0) * n + i - g->j0) * 2];
                wd = wp[((j - g->j0) * n + i - g->j0) * 2 + 1];
            } else {
                w = hst__e_wd(hw, dx, dy, g->c, &wd);
            }
            if (w == 0.0f) continue;
            S->off[m] = row + (e & 1) * half + (e >> 1);
            S->k[m] = bx + i;
            S->dx[m] = dx;
            S->dy[m] = dy;
            S->w[m] = w;
            S->wd[m] = wd;
            ++m;
        }
    }
    return m - m0;
}

/* The list of the lanes' pixels (yM, x0 + l mag), x0 phase p of the block: its phase's, listed
   the first time, where every row of the window is inside the image (the test of
   hst__e_samples_of's rows at the first and the last); else one for this call */
HST__E_INL hst__e_list hst__e_list_of(int hw, const hst__e_geom *g, int stride, int l0, int yM, int x0, int p,
                                      hst__e_samples *S)
{
    hst__e_list L;
    int by = hst__e_base(hw, yM, g->mag), q = (yM % g->mag) * g->mag + p, m = S->n;
    int keep = S->keep && 0.0f < (float)(by + g->j0) * 0.5f && (float)(by + g->j1 - 1) * 0.5f <= g->ymax;
    if (keep && S->first[q] >= 0) {
        m = S->first[q];
        L.n = S->count[q];
    } else {
        L.n = hst__e_samples_of(hw, g, stride, l0, yM, x0, S, m);
        if (keep) {
            S->first[q] = m;
            S->count[q] = L.n;
            S->n += L.n;
        }
    }
    L.off = S->off + m; L.k = S->k + m;
    L.dx = S->dx + m; L.dy = S->dy + m; L.w = S->w + m; L.wd = S->wd + m;
    return L;
}

/* The sums of lanes 0 .. nl - 1 over the samples, `in` given (a constant where it is inlined:
   with in, every lane's W is the same sum, added once per sample, and no lane's sample is
   tested) */
HST__E_INL void hst__e_lanes_sum(int hw, int in, int nl, const hst__e_list *L, const float *base, size_t plane,
                                 int kx, float *W, float *R)
{
    float Win = 0.0f;
    int s, l;
    for (l = 0; l < nl; ++l) W[l] = R[l] = 0.0f;
    for (s = 0; s < L->n; ++s) {
        const float *ux = base + L->off[s];
        if (in) Win = Win + L->w[s];
        hst__e_lane_sample(hw, in, nl, ux, ux + plane, L->k[s], kx, L->dx[s], L->dy[s], L->w[s], L->wd[s], W, R);
    }
    if (in)
        for (l = 0; l < nl; ++l) W[l] = Win;
}

#if HST__E_AVX2
#  if defined(__clang__)
#    define HST__E_T512 "avx512f,avx512vl,avx512dq,fma"
#  else
#    define HST__E_T512 "avx512f,avx512vl,avx512dq,fma,prefer-vector-width=512"
#  endif
/* hst__e_lanes_sum's inside form with the lanes' R in registers through the samples: compilers
   keep the portable form's R in memory (R may alias the tile), a load and a store a sample, and
   each sample's add waits for the last one's store (26 cycles a sample for 32 lanes on a Xeon).
   Lane by lane the operations of hst__e_lane_sample, so the same bits: a lane's R + 0 where its
   sample does not count is R (R is never -0: it starts at +0, and x + -x is +0), so a masked
   add (AVX-512) or an add of v or +0 (AVX2) is it. */
__attribute__((target(HST__E_T512))) static void
hst__e_lanes_in512(const hst__e_list *L, const float *base, size_t plane, float *W, float *R)
{
    __m512 r[HST__E_LANES / 16];
    const __m512 zero = _mm512_setzero_ps(), sign = _mm512_set1_ps(-0.0f);
    float Win = 0.0f;
    int s, v, l;
    for (v = 0; v < HST__E_LANES / 16; ++v) r[v] = zero;
    for (s = 0; s < L->n; ++s) {
        const float *ux = base + L->off[s], *uy = ux + plane;
        const __m512 dx = _mm512_set1_ps(L->dx[s]), dy = _mm512_set1_ps(L->dy[s]);
        const __m512 w = _mm512_set1_ps(L->w[s]), wd = _mm512_set1_ps(L->wd[s]);
        Win = Win + L->w[s];
        for (v = 0; v < HST__E_LANES / 16; ++v) {
            __m512 x = _mm512_loadu_ps(ux + 16 * v), y = _mm512_loadu_ps(uy + 16 * v);
            __m512 sn = _mm512_fmadd_ps(y, dy, _mm512_mul_ps(x, dx));
            __m512 c = _mm512_fmsub_ps(y, dx, _mm512_mul_ps(x, dy));
            __m512 val = _mm512_fnmadd_ps(_mm512_andnot_ps(sign, c), wd, w);
            r[v] = _mm512_mask_add_ps(r[v], _mm512_cmp_ps_mask(sn, zero, _CMP_LT_OQ), r[v], val);
        }
    }
    for (v = 0; v < HST__E_LANES / 16; ++v) _mm512_storeu_ps(R + 16 * v, r[v]);
    for (l = 0; l < HST__E_LANES; ++l) W[l] = Win;
}

/* hst__e_lanes_in512 for AVX2 + FMA: 8 lanes a register */
__attribute__((target("avx2,fma"))) static void
hst__e_lanes_in256(const hst__e_list *L, const float *base, size_t plane, float *W, float *R)
{
    __m256 r[HST__E_LANES / 8];
    const __m256 zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
    float Win = 0.0f;
    int s, v, l;
    for (v = 0; v < HST__E_LANES / 8; ++v) r[v] = zero;
    for (s = 0; s < L->n; ++s) {
        const float *ux = base + L->off[s], *uy = ux + plane;
        const __m256 dx = _mm256_set1_ps(L->dx[s]), dy = _mm256_set1_ps(L->dy[s]);
        const __m256 w = _mm256_set1_ps(L->w[s]), wd = _mm256_set1_ps(L->wd[s]);
        Win = Win + L->w[s];
        for (v = 0; v < HST__E_LANES / 8; ++v) {
            __m256 x = _mm256_loadu_ps(ux + 8 * v), y = _mm256_loadu_ps(uy + 8 * v);
            __m256 sn = _mm256_fmadd_ps(y, dy, _mm256_mul_ps(x, dx));
            __m256 c = _mm256_fmsub_ps(y, dx, _mm256_mul_ps(x, dy));
            __m256 val = _mm256_fnmadd_ps(_mm256_andnot_ps(sign, c), wd, w);
            r[v] = _mm256_add_ps(r[v], _mm256_and_ps(_mm256_cmp_ps(sn, zero, _CMP_LT_OQ), val));
        }
    }
    for (v = 0; v < HST__E_LANES / 8; ++v) _mm256_storeu_ps(R + 8 * v, r[v]);
    for (l = 0; l < HST__E_LANES; ++l) W[l] = Win;
}
#endif

/* The RGC sums R, W of the lanes' pixels (yM, x0 + l mag) from the tile (rows from half-pixel
   position k0, columns from l0), as hst__e_rgc computes each: lane l samples the half-pixel
   columns of lane 0 plus 2 l. Where the samples of lanes a .. n - 1 (n: the pixels the caller
   keeps) are all inside the columns (most of a frame), every lane takes the inside form, in
   registers in the builds for isa 2 (AVX-512) and 1 (AVX2), and lanes 0 .. a - 1 (whose
   windows start left of the image: the first pixels of a row) the tested form after it: each
   kept pixel's W is the same sequence of additions either way (lanes n.. read the tile's
   columns beyond, and are not kept). S: room for the samples. */
HST__E_INL void hst__e_lanes(int hw, int isa, const hst__e_geom *g, const float *tile, size_t plane, int stride,
                             int k0, int l0, int yM, int x0, int p, int n, hst__e_samples *S, float *W, float *R)
{
    int kx = 2 * (g->colsM - 1), bx = hst__e_base(hw, x0, g->mag);
    int a = bx + g->j0 > 0 ? 0 : (2 - bx - g->j0) / 2;   /* the first lane whose k > 0 throughout */
    hst__e_list L = hst__e_list_of(hw, g, stride, l0, yM, x0, p, S);
    const float *base = tile + (size_t)(hst__e_base(hw, yM, g->mag) + g->j0 - k0) * (size_t)stride;
    if (a >= n || !hst__e_lanes_inside(g, bx + 2 * a, n - a)) {
        hst__e_lanes_sum(hw, 0, HST__E_LANES, &L, base, plane, kx, W, R);
        return;
    }
#if HST__E_AVX2
    if (isa == 2) hst__e_lanes_in512(&L, base, plane, W, R);
    else if (isa == 1) hst__e_lanes_in256(&L, base, plane, W, R);
    else
#endif
        hst__e_lanes_sum(hw, 1, HST__E_LANES, &L, base, plane, kx, W, R);
    (void)isa;
    if (a) hst__e_lanes_sum(hw, 0, a, &L, base, plane, kx, W, R);
}

/* Pixel x of output row yM: its first value (of g->ns) */
HST__E_INL float *hst__e_out(float *out, const hst__e_geom *g, int yM, int x)
{
    return out + ((size_t)(yM - g->out_row0) * (size_t)g->colsM + (size_t)x) * (size_t)g->ns;
}

#define HST__E_MAG_COLS 512   /* output columns whose weights the magnify twin keeps at once */
#define HST__E_MAG_VCOLS 1024 /* input columns whose column sums it keeps (else tap by tap) */

/* The input columns [*lo, *hi] whose sums output columns [xa, xa + n) of a block from x0
   read (their first taps c0, inside-ness okc), clipped to the image; *hi < *lo where none is
   inside */
HST__E_INL void hst__e_mag_span(const int *c0, const int *okc, int cols, size_t x0, size_t xa, size_t xb,
                                int *lo, int *hi)
{
    size_t x;
    *lo = cols;
    *hi = -1;
    for (x = xa; x < xb; ++x)
        if (okc[x - x0]) {
            *lo = c0[x - x0] < *lo ? c0[x - x0] : *lo;
            *hi = c0[x - x0] + 3 > *hi ? c0[x - x0] + 3 : *hi;
        }
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi >= cols ? cols - 1 : *hi;
    if (*hi < *lo) *hi = *lo - 1;   /* no pixel inside: only the zeros written, none read */
}

/* One output row's pixels [xa, xb) of a block of output columns from x0 (their first taps c0,
   weights wc, inside-ness okc; the input columns they read [lo, hi]: hst__e_mag_span), frame
   src, channel k, at output stride `step`: each is hst__e_tapsum's value, its column sums
   (hst__e_vtap) made once per input column the block reads, not once per output pixel (4 +
   4 / mag multiplications and additions a pixel, not 20), where they fit HST__E_MAG_VCOLS. */
HST__E_INL void hst__e_magnify_row(const float *src, float *out, size_t step, int rows, int cols, int ch,
                                      int k, int r0, const float *wr, const int *c0, const float (*wc)[4],
                                      const int *okc, int lo, int hi, size_t x0, size_t xa, size_t xb)
{
    float v[HST__E_MAG_VCOLS + 4];   /* column cn's sum at v[2 + cn - lo]; 0 at the two columns
                                        either side a pixel's taps may reach outside the image */
    int cn;
    size_t x;
    if (hi - lo >= HST__E_MAG_VCOLS) {
        for (x = xa; x < xb; ++x)
            out[(x - xa) * step] = okc[x - x0] ? hst__e_tapsum(src, rows, cols, ch, k, r0, wr, c0[x - x0], wc[x - x0])
                                               : 0.0f;
        return;
    }
    /* taps reach 2 columns beyond [lo, hi] at most (hst__e_axis: c0 >= -2, c0 + 3 <= cols + 1) */
    v[0] = v[1] = v[hi - lo + 3] = v[hi - lo + 4] = 0.0f;
    for (cn = lo; cn <= hi; ++cn) v[2 + cn - lo] = hst__e_vtap(src, rows, cols, ch, k, r0, wr, cn);
    for (x = xa; x < xb; ++x) {
        float q = 0.0f;
        if (okc[x - x0]) hst__e_htap0(v + 2 + c0[x - x0] - lo, wc[x - x0], 1, 1, &q);
        out[(x - xa) * step] = q;
    }
}

/* The intensity weights of a block's lanes, pixels xa + p + l mag (phase p < mag, lane l <
   HST__E_LANES), a row at a time, as the magnify twin makes them (shift 0: hst__e_interp's
   values): the row's column sums (hst__e_vtap) once per input column, then each phase's lanes
   together (hst__e_htap0 lane by lane, vectorised), lane l's taps lane 0's moved l columns (the
   columns' taps checked to be so). Magnifications up to HST__E_IW_PHASES. */
#define HST__E_IW_PHASES 16
#define HST__E_IW_COLS (HST__E_LANES + 16)   /* input columns a block's lanes read, with 2 either side */
typedef struct hst__e_iwrow {
    int xa, lo, hi, okr;   /* the block's first column; input columns [lo, hi] it reads; the row's inside */
    int c0[HST__E_IW_PHASES];                        /* phase p's lane 0's first tap */
    float wc[HST__E_IW_PHASES][4][HST__E_LANES];     /* lane l's tap j weight */
    float v[HST__E_IW_COLS];   /* the row's column sums: column cn at v[2 + cn - lo], 0 outside the image */
} hst__e_iwrow;

/* The taps of the block's lanes inside [xa, xe) (the others': weights 0); 0 where they do not
   fit or are not lane 0's moved (hst__e_weights then interpolates each pixel) */
HST__E_INL int hst__e_iw_cols(int hw, const hst__e_geom *g, int xa, int xe, hst__e_iwrow *iw)
{
    int p, l, j, cmax = 0;
    if (g->mag > HST__E_IW_PHASES) return 0;
    iw->xa = xa;
    iw->lo = g->cols;
    iw->hi = -1;
    for (p = 0; p < g->mag; ++p)
        for (l = 0; l < HST__E_LANES; ++l) {
            float w[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            int c = 0, in = xa + p + l * g->mag < xe;
            if (in && !hst__e_axis(hst__e_div(hw, (float)(xa + p + l * g->mag), g->fm), g->cols, &c, w)) return 0;
            if (l == 0) iw->c0[p] = c;
            if (in && c != iw->c0[p] + l) return 0;
            for (j = 0; j < 4; ++j) iw->wc[p][j][l] = w[j];
            iw->lo = in && c < iw->lo ? c : iw->lo;
            iw->hi = in && c + 3 > iw->hi ? c + 3 : iw->hi;
            cmax = iw->c0[p] > cmax ? iw->c0[p] : cmax;
        }
    iw->lo = iw->lo < 0 ? 0 : iw->lo;   /* taps reach 2 columns beyond [lo, hi] at most (c >= -2) */
    iw->hi = iw->hi >= g->cols ? g->cols - 1 : iw->hi;
    /* every lane's 4 sums from v[2 + c0[p] - lo]: the last lane's too */
    return iw->hi >= iw->lo && 2 + cmax - iw->lo + HST__E_LANES + 3 <= HST__E_IW_COLS;
}

/* Output row yM's column sums (0 beyond, where lanes outside [xa, xe) read) */
HST__E_INL void hst__e_iw_row(int hw, const float *f, const hst__e_geom *g, int yM, hst__e_iwrow *iw)
{
    float wr[4];
    int r0 = 0, cn;
    iw->okr = hst__e_axis(hst__e_div(hw, (float)yM, g->fm), g->rows, &r0, wr);
    if (!iw->okr) return;
    for (cn = 0; cn < HST__E_IW_COLS; ++cn) iw->v[cn] = 0.0f;
    for (cn = iw->lo; cn <= iw->hi; ++cn) iw->v[2 + cn - iw->lo] = hst__e_vtap(f, g->rows, g->cols, 1, 0, r0, wr, cn);
}

/* The row's weights of phase p's lanes into im (HST__E_LANES of them) */
HST__E_INL void hst__e_iw_lanes(const hst__e_iwrow *iw, int p, float *im)
{
    int l;
    if (iw->okr)
        hst__e_htap0(iw->v + 2 + iw->c0[p] - iw->lo, iw->wc[p][0], HST__E_LANES, HST__E_LANES, im);
    else
        for (l = 0; l < HST__E_LANES; ++l) im[l] = 0.0f;
}

/* The intensity weights im[l] of the n inside pixels (yM, x0 + l step), l < n <= HST__E_LANES
   (im holds HST__E_LANES: the others' 1 or 0): 1 without weighting (iw 0); else g->mimg's
   pixels, iwr's row's (x0 a phase of its block, step mag), or interpolated from f (a loop for
   each source) */
HST__E_INL void hst__e_weights(int hw, const float *f, const hst__e_geom *g, int iw, const hst__e_iwrow *iwr,
                               int yM, int x0, int step, int n, float *im)
{
    int l;
    for (l = 0; l < HST__E_LANES; ++l) im[l] = iw ? 0.0f : 1.0f;
    if (!iw) return;
    if (g->mimg)
        for (l = 0; l < n; ++l) im[l] = g->mimg[(size_t)yM * (size_t)g->colsM + (size_t)(x0 + l * step)];
    else if (iwr)
        hst__e_iw_lanes(iwr, x0 - iwr->xa, im);
    else
        for (l = 0; l < n; ++l)
            im[l] = hst__e_interp(f, g->rows, g->cols, 1, 0, hst__e_div(hw, (float)yM, g->fm),
                                  hst__e_div(hw, (float)(x0 + l * step), g->fm));
}

/* The values of the n inside pixels (yM, x0 + l step), l < n <= HST__E_LANES, from their
   ratios q[l] (hst__e_ratio) and intensity weights im[l] (hst__e_weights; both HST__E_LANES
   long): hst_e_final at each sensitivity (the power where it is above 1; 0 stays 0), times im
   (exact where it is 1), into the pixel's o[0 .. ns). The arithmetic over all the lanes (loops
   of a constant count and no branch: vectorised), but the power's */
HST__E_INL void hst__e_put(int hw, float *out, const hst__e_geom *g, int yM, int x0, int step, int n,
                           const float *q, const float *im)
{
    float *o = hst__e_out(out, g, yM, x0), v[HST__E_LANES];
    size_t st = (size_t)step * (size_t)g->ns;
    int s, l;
    for (s = 0; s < g->ns; ++s) {
        float sens = g->sens[s];
        for (l = 0; l < HST__E_LANES; ++l) v[l] = q[l];
        if (sens > 1.0f)
            for (l = 0; l < n; ++l) v[l] = hst__e_sens(hw, v[l], sens);
        for (l = 0; l < HST__E_LANES; ++l) v[l] = v[l] * im[l];
        for (l = 0; l < n; ++l) o[(size_t)l * st + (size_t)s] = v[l];
    }
}

/* Inside pixel (yM, xM) the per-sample way (no tile) */
HST__KPRIVATE void hst__e_pixel(const float *f, float *out, const hst__e_geom *g, int iw, int yM,
                                int xM)
{
    float R, W, q[HST__E_LANES] = {0.0f}, im[HST__E_LANES];
    if (g->g2c)
        hst__e_rgc(g->g2c, g->g2r, g->gstep, g->groff, 0, g->rows, g->cols, g->mag, yM, xM,
                   g->radius, g->wt, &R, &W);
    else
        hst__e_rgc(f, f, 2, 1, 1, g->rows, g->cols, g->mag, yM, xM, g->radius, NULL, &R, &W);
    q[0] = hst__e_ratio(0, R, W);
    hst__e_weights(0, f, g, iw, NULL, yM, xM, 1, 1, im);
    hst__e_put(0, out, g, yM, xM, 1, 1, q, im);
}

/* Inside rows [ya, yb) (ya < yb), columns [xa, xa + LANES mag) clipped to the inside ones */
HST__E_INL void hst__e_block_any(int hw, int isa, const float *f, float *out, const hst__e_geom *g, int iw,
                                 int ya, int yb, int xa, int k0, int nk, float *tile)
{
    int xe = g->colsM - g->margin, w = HST__E_LANES * g->mag, p, y, l;
    int l0 = hst__e_base(hw, xa, g->mag) + g->j0;
    int nl = hst__e_base(hw, xa + w - 1, g->mag) + g->j1 - l0, stride = nl + (nl & 1);
    size_t plane = (size_t)nk * (size_t)stride;
    hst__e_sep sp;
    hst__e_iwrow iwr;
    hst__e_samples S;
    const hst__e_iwrow *iwp = iw && !g->mimg && hst__e_iw_cols(hw, g, xa, xe, &iwr) ? &iwr : NULL;
    hst__e_tile(hw, f, g, k0, nk, l0, nl, stride, tile, &sp);
    hst__e_samples_init(g, &S);
    for (y = ya; y < yb; ++y) {
        if (iwp) hst__e_iw_row(hw, f, g, y, &iwr);
        for (p = 0; p < g->mag && xa + p < xe; ++p) {
            float W[HST__E_LANES], R[HST__E_LANES], im[HST__E_LANES];
            int n = (xe - xa - p + g->mag - 1) / g->mag;   /* lanes inside */
            n = n < HST__E_LANES ? n : HST__E_LANES;
            hst__e_lanes(hw, isa, g, tile, plane, stride, k0, l0, y, xa + p, p, n, &S, W, R);
            for (l = 0; l < HST__E_LANES; ++l) R[l] = hst__e_ratio(hw, R[l], W[l]);   /* vectorised */
            hst__e_weights(hw, f, g, iw, iwp, y, xa + p, g->mag, n, im);
            hst__e_put(hw, out, g, y, xa + p, g->mag, n, R, im);
        }
    }
}

#if HST__E_AVX2
__attribute__((target(HST__E_T512))) static void
hst__e_block_avx512(const float *f, float *out, const hst__e_geom *g, int iw, int ya, int yb,
                    int xa, int k0, int nk, float *tile)
{
    hst__e_block_any(1, 2, f, out, g, iw, ya, yb, xa, k0, nk, tile);
}

__attribute__((target("avx2,fma"))) static void
hst__e_block_avx2(const float *f, float *out, const hst__e_geom *g, int iw, int ya, int yb,
                  int xa, int k0, int nk, float *tile)
{
    hst__e_block_any(1, 1, f, out, g, iw, ya, yb, xa, k0, nk, tile);
}
#endif

#if HST__E_AVX2
/* The best build the CPU runs: 2 AVX-512 (F, VL, DQ), 1 AVX2 + FMA, 0 portable; at most the
   one $HST_HOST_ISA names, avx2 or portable (the builds give the same bits: tests/test_esrrf.c
   compares them, and a user may compare their speed) */
HST__KPRIVATE int hst__e_isa(void)
{
    const char *cap = getenv("HST_HOST_ISA");
    int best = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        best = 2;
    if (cap && !strcmp(cap, "portable")) return 0;
    return cap && !strcmp(cap, "avx2") && best > 1 ? 1 : best;
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
    hst__e_block_any(0, 0, f, out, g, iw, ya, yb, xa, k0, nk, tile);
}

/* The last row (exclusive) of a block from ya whose tile fits: rows ya.. while their half-pixel
   rows k0..k0 + nk fit HST__E_HOST_TILE positions of `stride`; ya itself when one does not */
HST__KPRIVATE int hst__e_block_rows(const hst__e_geom *g, int ya, int ye, int stride, int *k0,
                                    int *nk)
{
    int yb = ya, n;
    *k0 = hst__e_base(0, ya, g->mag) + g->j0;
    if ((long)(g->j1 - g->j0) * (g->j1 - g->j0) > HST__E_MAX_SAMPLES) return ya;   /* the samples' list */
    while (yb < ye) {
        n = hst__e_base(0, yb, g->mag) + g->j1 - *k0;
        if ((long)n * stride > HST__E_HOST_TILE) break;
        *nk = n;
        ++yb;
    }
    return yb;
}

HST__KPRIVATE void hst__e_zero_outside(float *out, const hst__e_geom *g, int yM0, int yM1)
{
    size_t v = (size_t)g->ns * sizeof(float), m = (size_t)g->margin;
    int y;
    for (y = yM0; y < yM1; ++y) {
        if (y < g->margin || y >= g->rowsM - g->margin || 2 * g->margin >= g->colsM) {
            memset(hst__e_out(out, g, y, 0), 0, (size_t)g->colsM * v);   /* (a row: ns colsM floats) */
            continue;
        }
        memset(hst__e_out(out, g, y, 0), 0, m * v);
        memset(hst__e_out(out, g, y, g->colsM - g->margin), 0, m * v);
    }
}

/* Inside rows [ya, ye) of the column block from xa, in blocks whose tile fits; a row whose
   samples do not fit alone goes the per-sample way */
HST__KPRIVATE void hst__e_column(const float *f, float *out, const hst__e_geom *g, int iw, int ya,
                                 int ye, int xa, float *tile)
{
    int w = HST__E_LANES * g->mag, xe = g->colsM - g->margin;
    int nl = hst__e_base(0, xa + w - 1, g->mag) - hst__e_base(0, xa, g->mag) + g->j1 - g->j0;
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

#ifdef HST_KERNELS_TEST_API
HST__KDEF void hst_k_esrrf_rgc_fused_host_rows(const float *frame, float *rgc_frame,
                                               uint32_t rows, uint32_t cols, uint32_t mag,
                                               float radius, float sensitivity,
                                               int intensity_weighting, uint32_t yM0,
                                               uint32_t yM1)
{
    hst_k_esrrf_rgc_fused_host_rows_at(frame, rgc_frame, 0, rows, cols, mag, radius, sensitivity,
                                       intensity_weighting, yM0, yM1);
}
#endif

HST__KDEF void hst_k_esrrf_rgc_fused_host_rows_at(const float *frame, float *out,
                                                  uint32_t out_row0, uint32_t rows,
                                                  uint32_t cols, uint32_t mag, float radius,
                                                  float sensitivity, int intensity_weighting,
                                                  uint32_t yM0, uint32_t yM1)
{
    hst_k_esrrf_rgc_fused_host_rows_ns(frame, out, out_row0, rows, cols, mag, radius,
                                       &sensitivity, 1, intensity_weighting, yM0, yM1);
}

/* The fused twin's geometry g and its (w, wd) table wt (2 HST__E_HOST_WTAB floats) for output
   rows from out_row0: made once, read by any number of hst__e_fused_rows at once (a piece of
   64 rows at 1280 columns took as long again as its table, 2.7% of the host CLI's processor
   time when each piece made its own) */
HST__KPRIVATE void hst__e_fused_prepare(hst__e_geom *g, float *wt, uint32_t out_row0, uint32_t rows,
                                        uint32_t cols, uint32_t mag, float radius, const float *sens,
                                        uint32_t ns)
{
    hst__e_geom_init(g, rows, cols, mag, radius, sens, ns);
    g->out_row0 = (int)out_row0;
    hst__e_wtable(g, wt);
}

/* hst_k_esrrf_rgc_fused_host_rows_ns with g made (hst__e_fused_prepare) */
HST__KPRIVATE void hst__e_fused_rows(const float *frame, float *out, const hst__e_geom *g, int iw, uint32_t yM0,
                                     uint32_t yM1)
{
    float tile[2 * HST__E_HOST_TILE];
    int ya, ye, xa;
    if (yM1 > (uint32_t)g->rowsM) yM1 = (uint32_t)g->rowsM;
    if (yM0 < (uint32_t)g->out_row0) yM0 = (uint32_t)g->out_row0;
    if (yM0 >= yM1) return;
    hst__e_zero_outside(out, g, (int)yM0, (int)yM1);
    ya = (int)yM0 > g->margin ? (int)yM0 : g->margin;
    ye = (int)yM1 < g->rowsM - g->margin ? (int)yM1 : g->rowsM - g->margin;
    for (xa = g->margin; ya < ye && xa < g->colsM - g->margin; xa += HST__E_LANES * g->mag)
        hst__e_column(frame, out, g, iw, ya, ye, xa, tile);
}

HST__KDEF void hst_k_esrrf_rgc_fused_host_rows_ns(const float *frame, float *out,
                                                  uint32_t out_row0, uint32_t rows,
                                                  uint32_t cols, uint32_t mag, float radius,
                                                  const float *sensitivities, uint32_t ns,
                                                  int intensity_weighting, uint32_t yM0,
                                                  uint32_t yM1)
{
    float wt[2 * HST__E_HOST_WTAB];
    hst__e_geom g;
    hst__e_fused_prepare(&g, wt, out_row0, rows, cols, mag, radius, sensitivities, ns);
    hst__e_fused_rows(frame, out, &g, intensity_weighting, yM0, yM1);
}

/* ---- the sweep's sums (hst_k_esrrf_sweep_sum) on the host ------------------------------------ */

HST__KDEF uint64_t hst_k_esrrf_wtab_entries(uint32_t mag, float radius)
{
    float c[2];
    int j0, j1;
    hst__e_consts(radius, c, &j0, &j1);
    return (uint64_t)mag * mag * (uint64_t)(j1 - j0) * (uint64_t)(j1 - j0);
}

/* The tile T (even) and scratch 3T/2 take 8T + 4 (3T/2) = 14T bytes beside the table's 8 bytes an
   entry (the kernel's two __local arrays of float2) */
HST__KDEF size_t hst_k_esrrf_nv_options(uint32_t mag, float radius, uint64_t wtab, uint64_t local_bytes, char *buf,
                                        size_t n)
{
    uint64_t t = HST_K_ESRRF_NV_TILE, tab = (wtab ? wtab : HST_K_ESRRF_WTAB) * 2 * sizeof(float);
    float c[2];
    int len, j0, j1, p, nls = 0;
    if (mag == 0) return 0;
    if (local_bytes < tab + 14 * t) t = local_bytes > tab + 14 * 256 ? (local_bytes - tab) / 14 / 2 * 2 : 256;
    /* hst_e_span's tile width of a strip starting at any phase p (the kernel's hst_e_base) */
    hst__e_consts(radius, c, &j0, &j1);
    for (p = 0; p < (int)mag; p++) {
        int w = hst__e_base(0, p + (int)HST_K_ESRRF_NV_TW(mag) - 1, (int)mag) - hst__e_base(0, p, (int)mag);
        if (w > nls) nls = w;
    }
    len = snprintf(buf, n, "-DHST_E_TW=%u -DHST_E_NP=%u", HST_K_ESRRF_NV_TW(mag), HST_K_ESRRF_NV_NP);
    if (mag >= HST_K_ESRRF_NV_ROWX_MAG && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " -DHST_E_JN=%d", j1 - j0);
    if (mag >= HST_K_ESRRF_NV_NLS_MAG && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " -DHST_E_NLS=%d", nls + j1 - j0);
    if (len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " -DHST_E_TILE=%u -DHST_E_ITAB=%u", (unsigned)t, (unsigned)(t / 2 * 3));
    if (wtab && len > 0 && (size_t)len < n) len += snprintf(buf + len, n - (size_t)len, " -DHST_E_WTAB=%llu", (unsigned long long)wtab);
    return len > 0 && (size_t)len < n ? (size_t)len : 0;
}

/* A row's L pixels span at most L / mag + 2 input pixels' half-pixel columns, and n rows. */
HST__KDEF size_t hst_k_esrrf_rgc_local(uint32_t mag, float radius, size_t max_work_group)
{
    float c[2];
    int j0, j1;
    size_t L = 256, n;
    hst__e_consts(radius, c, &j0, &j1);
    n = (size_t)(j1 - j0);
    while (L > 16 && n * (2 * (L / (mag ? mag : 1) + 2) + n) > HST_K_ESRRF_CHAINED_TILE) L /= 2;
    while (L > max_work_group && L > 1) L /= 2;
    return L;
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

#ifdef HST_KERNELS_TEST_API
HST__KDEF float hst_k_esrrf_exp(float x) { return hst__e_exp(x); }
HST__KDEF float hst_k_esrrf_pow(float R, float s) { return hst__e_pow(0, R, s); }
HST__KDEF float hst_k_esrrf_rcp(float b) { return hst__e_rcp(0, b); }
HST__KDEF float hst_k_esrrf_div(float a, float b) { return hst__e_div(0, a, b); }
HST__KDEF float hst_k_esrrf_rsqrt(float x) { return hst__e_rsqrt(0, x); }
#endif

#define HST__E_RC_LANES 8   /* Roberts-cross twin: columns a block computes (fixed: -O2 vectorises it) */

/* hst__e_roberts's sums at columns [c, c + HST__E_RC_LANES) of a row (cur; up: the row above,
   or cur for row 0), c >= 1 (no column clamp), to oc[c * step], orow[c * step]: loads, sums and
   stores in fixed-count loops over local arrays, which -O2 vectorises (the output pointers may
   alias the input for all the compiler knows, so one loop over the columns stays scalar) */
HST__E_INL void hst__e_roberts_block(const float *up, const float *cur, float *oc, float *orow,
                                     size_t step, size_t c)
{
    float a[HST__E_RC_LANES], b[HST__E_RC_LANES], d[HST__E_RC_LANES], u[HST__E_RC_LANES];
    float gc[HST__E_RC_LANES], gr[HST__E_RC_LANES];
    int k;
    for (k = 0; k < HST__E_RC_LANES; ++k) {
        a[k] = up[c + k];
        b[k] = cur[c + k - 1];
        d[k] = cur[c + k];
        u[k] = up[c + k - 1];
    }
    for (k = 0; k < HST__E_RC_LANES; ++k) hst__e_roberts_of(a[k], b[k], u[k], d[k], &gc[k], &gr[k]);
    if (step == 1) {   /* the Liquid Engine's separate gradients: vector stores */
        memcpy(oc + c, gc, sizeof gc);
        memcpy(orow + c, gr, sizeof gr);
        return;
    }
    for (k = 0; k < HST__E_RC_LANES; ++k) {
        oc[(c + k) * step] = gc[k];
        orow[(c + k) * step] = gr[k];
    }
}

/* hst__e_roberts at row r, column c of frame f, stored to oc[c * step], orow[c * step] */
HST__E_INL void hst__e_roberts_at(const float *f, uint32_t cols, size_t r, size_t c, float *oc,
                                  float *orow, size_t step)
{
    float g[2];
    hst__e_roberts(f, (int)cols, (int)r, (int)c, g);
    oc[c * step] = g[0];
    orow[c * step] = g[1];
}

/* hst_k_esrrf_roberts_host over pixels [i0, i1) (at most a frame's) of each frame in [begin,
   end): hst__e_roberts's values, a row's run of columns at a time (its row found once, not by
   a division per pixel), the interior columns in vectorised blocks (hst__e_roberts_block): the
   same bits, the Liquid Engine's Roberts cross of 2 x 256 x 256 0.43 -> 0.26 ms a call on a
   2-core AMD EPYC */
HST__KPRIVATE void hst__e_roberts_items(const float *frames, float *grad_col, float *grad_row,
                                        uint32_t rows, uint32_t cols, uint32_t gstep,
                                        uint32_t groff, uint64_t begin, uint64_t end, size_t i0,
                                        size_t i1)
{
    size_t n = (size_t)rows * cols, i, c, c1, e, r;
    uint64_t z;
    for (z = begin; z < end; ++z)
        for (i = i0; i < i1; i += e - c1) {
            const float *f = frames + (size_t)z * n, *cur, *up;
            float *oc, *orow;
            r = i / cols;
            c = c1 = i % cols;
            e = i1 - i < cols - c ? i1 - i + c : cols;   /* this row's columns [c1, e) */
            cur = f + r * cols;
            up = r > 0 ? cur - cols : cur;
            oc = grad_col + ((size_t)z * n + r * cols) * gstep;
            orow = grad_row + ((size_t)z * n + r * cols) * gstep + groff;
            if (c == 0) hst__e_roberts_at(f, cols, r, c++, oc, orow, gstep);   /* c0 clamped */
            for (; c + HST__E_RC_LANES <= e; c += HST__E_RC_LANES)
                hst__e_roberts_block(up, cur, oc, orow, gstep, c);
            for (; c < e; ++c) hst__e_roberts_at(f, cols, r, c, oc, orow, gstep);
        }
}

HST__KDEF void hst_k_esrrf_roberts_host(const float *frames, float *grad_col, float *grad_row,
                                        uint32_t rows, uint32_t cols, uint32_t gstep,
                                        uint32_t groff, uint64_t base, uint64_t begin,
                                        uint64_t end, uint64_t total)
{
    (void)base;
    (void)total;
    hst__e_roberts_items(frames, grad_col, grad_row, rows, cols, gstep, groff, begin, end, 0,
                         (size_t)rows * cols);
}

/* hst_k_esrrf_magnify_host over output pixels [i0, i1) (at most a frame's) of each frame:
   hst__e_interp's sums in its order, the weights of each output column (a block of
   HST__E_MAG_COLS) and row computed once instead of per pixel (the same values), each input
   column's sum once per output row (hst__e_magnify_row) */
HST__KPRIVATE void hst__e_magnify_items(const float *in, float *out, uint32_t rows, uint32_t cols,
                                        uint32_t rowsM, uint32_t colsM, float mag_row,
                                        float mag_col, float shift_row, float shift_col,
                                        uint32_t channels, uint64_t begin, uint64_t end,
                                        size_t i0, size_t i1)
{
    size_t nM = (size_t)rowsM * colsM, y, y0 = i0 / colsM, y1, x0, x, xa, xb;
    float wc[HST__E_MAG_COLS][4], wr[4];
    int c0[HST__E_MAG_COLS], okc[HST__E_MAG_COLS], r0 = 0, okr, lo, hi;
    uint64_t z;
    uint32_t k;
    if (i0 >= i1) return;
    y1 = (i1 - 1) / colsM + 1;
    for (x0 = 0; x0 < colsM; x0 += HST__E_MAG_COLS) {
        size_t nx = colsM - x0 < HST__E_MAG_COLS ? colsM - x0 : HST__E_MAG_COLS;
        for (x = 0; x < nx; ++x) {
            float c = hst__e_div(0, (float)(uint32_t)(x0 + x), mag_col);
            c = c - shift_col;
            okc[x] = hst__e_axis(c, (int)cols, &c0[x], wc[x]);
        }
        for (y = y0; y < y1; ++y) {
            float r = hst__e_div(0, (float)(uint32_t)y, mag_row);
            r = r - shift_row;
            okr = hst__e_axis(r, (int)rows, &r0, wr);
            xa = y * colsM > i0 ? 0 : i0 - y * colsM;
            xb = (y + 1) * colsM < i1 ? colsM : i1 - y * colsM;
            xa = xa > x0 ? xa : x0;
            xb = xb < x0 + nx ? xb : x0 + nx;
            hst__e_mag_span(c0, okc, (int)cols, x0, xa, xb, &lo, &hi);
            for (z = begin; z < end; ++z) {
                const float *src = in + (size_t)z * rows * cols * channels;
                float *dst = out + ((size_t)z * nM + y * colsM + xa) * channels;
                for (k = 0; k < channels; ++k) {
                    if (okr)
                        hst__e_magnify_row(src, dst + k, channels, (int)rows, (int)cols, (int)channels, (int)k, r0,
                                           wr, c0, (const float (*)[4])wc, okc, lo, hi, x0, xa, xb);
                    else
                        for (x = xa; x < xb; ++x) dst[(x - xa) * channels + k] = 0.0f;
                }
            }
        }
    }
}

HST__KDEF void hst_k_esrrf_magnify_host(const float *in, float *out, uint32_t rows, uint32_t cols,
                                        uint32_t rowsM, uint32_t colsM, float mag_row,
                                        float mag_col, float shift_row, float shift_col,
                                        uint32_t channels, uint64_t base, uint64_t begin,
                                        uint64_t end, uint64_t total)
{
    (void)base;
    (void)total;
    hst__e_magnify_items(in, out, rows, cols, rowsM, colsM, mag_row, mag_col, shift_row,
                         shift_col, channels, begin, end, 0, (size_t)rowsM * colsM);
}

/* The chained twin's pixels [i0, i1) of one frame (rowsM x colsM, C order) one by one
   (hst__e_rgc per sample, g's grad2 and table) */
HST__KPRIVATE void hst__e_rgc_part(const hst__e_geom *g, float *out, int iw, size_t i0, size_t i1)
{
    size_t i;
    for (i = i0; i < i1; ++i) {
        int yM = (int)(i / (size_t)g->colsM), xM = (int)(i % (size_t)g->colsM);
        if (hst__e_inside((uint32_t)g->rows, (uint32_t)g->cols, (uint32_t)g->mag, g->radius, yM, xM))
            hst__e_pixel(NULL, out, g, iw, yM, xM);
        else
            out[i] = 0.0f;
    }
}

/* The chained twin's pixels [i0, i1) of one frame from g (its grad2, magnified frame and table
   set): whole rows by the fused twin's blocks (the tile of unit gradients read from grad2, the
   lanes, the AVX2 / AVX-512 builds), the pixels of part rows one by one. Every pixel's value
   is hst__e_rgc's (the fused twin's blocks keep its bits), so no split changes a bit. */
HST__KPRIVATE void hst__e_rgc_items(const hst__e_geom *g, float *out, int iw, size_t i0, size_t i1,
                                    float *tile)
{
    size_t colsM = (size_t)g->colsM, ra = (i0 + colsM - 1) / colsM, rb = i1 / colsM;
    size_t a = ra * colsM, b = rb * colsM;
    int ya, ye, xa;
    if (ra >= rb) a = b = i1;   /* no whole row */
    hst__e_rgc_part(g, out, iw, i0, a);
    hst__e_rgc_part(g, out, iw, b, i1);
    if (ra >= rb) return;
    hst__e_zero_outside(out, g, (int)ra, (int)rb);
    ya = (int)ra > g->margin ? (int)ra : g->margin;
    ye = (int)rb < g->rowsM - g->margin ? (int)rb : g->rowsM - g->margin;
    for (xa = g->margin; ya < ye && xa < g->colsM - g->margin; xa += HST__E_LANES * g->mag)
        hst__e_column(NULL, out, g, iw, ya, ye, xa, tile);
}

/* hst_k_esrrf_rgc_host over pixels [i0, i1) (clipped to a frame's) of each frame */
HST__KPRIVATE void hst__e_rgc_chained(const float *grad_col, const float *grad_row,
                                      const float *magnified, float *rgc, uint32_t rows,
                                      uint32_t cols, uint32_t mag, float radius, float sensitivity,
                                      int intensity_weighting, uint32_t gstep, uint32_t groff,
                                      uint64_t begin, uint64_t end, uint64_t i0, uint64_t i1)
{
    size_t nM = (size_t)rows * mag * cols * mag;
    float tile[2 * HST__E_HOST_TILE], wt[2 * HST__E_HOST_WTAB];   /* as the fused twin's */
    hst__e_geom g;
    uint64_t z;
    if (i1 > nM) i1 = nM;
    if (i0 >= i1) return;
    hst__e_geom_init(&g, rows, cols, mag, radius, &sensitivity, 1);
    hst__e_wtable(&g, wt);
    g.gstep = gstep;
    g.groff = groff;
    for (z = begin; z < end; ++z) {
        size_t g0 = (size_t)z * 4 * nM * gstep;
        g.g2c = grad_col + g0;
        g.g2r = grad_row + g0;
        g.mimg = intensity_weighting ? magnified + (size_t)z * nM : NULL;
        hst__e_rgc_items(&g, rgc + (size_t)z * nM, intensity_weighting, (size_t)i0, (size_t)i1,
                         tile);
    }
}

HST__KDEF void hst_k_esrrf_rgc_host(const float *grad_col, const float *grad_row,
                                    const float *magnified, float *rgc, uint32_t rows,
                                    uint32_t cols, uint32_t mag, float radius, float sensitivity,
                                    int intensity_weighting, uint32_t gstep, uint32_t groff,
                                    uint64_t base, uint64_t begin, uint64_t end, uint64_t total)
{
    (void)base;
    (void)total;
    hst__e_rgc_chained(grad_col, grad_row, magnified, rgc, rows, cols, mag, radius, sensitivity,
                       intensity_weighting, gstep, groff, begin, end, 0,
                       (uint64_t)rows * mag * cols * mag);
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

#ifdef HST_KERNELS_TEST_API
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
#endif

/* One frame's terms into the sums of n pixels (s1 = acc, then acc + P, ... as the kernel's five
   sums): x its values, prev the frame before in the same time point (NULL at its first frame,
   and without the lag-1 sums),
   first / last whether it is the time point's first / last frame. Each loop one sum, pixels
   inner, so the compiler vectorises it; one operation per statement (no contraction). */
HST__E_INL void hst__e_temporal_frame(double *acc, size_t P, const float *x, const float *prev, int first,
                                      int last, size_t n)
{
    double *s1 = acc, *s2 = acc + P, *s3 = acc + 2 * P, *f = acc + 3 * P, *l = acc + 4 * P;
    size_t i;
    for (i = 0; i < n; ++i) s1[i] = s1[i] + (double)x[i];
    for (i = 0; i < n; ++i) {
        double v = (double)x[i], y = v * v;
        s2[i] = s2[i] + y;
    }
    if (prev)
        for (i = 0; i < n; ++i) {
            double y = (double)prev[i];
            y = y * (double)x[i];
            s3[i] = s3[i] + y;
        }
    if (first) for (i = 0; i < n; ++i) f[i] = f[i] + (double)x[i];
    if (last) for (i = 0; i < n; ++i) l[i] = l[i] + (double)x[i];
}

/* Pixels in chunks that stay in the first-level cache (5 sums of HST__E_TEMPORAL_CHUNK doubles
   and two frames' floats), each chunk's frames in order: every pixel's sums add the frames in
   the kernel's order (the same bits), and a frame's time point (two divisions) is found once
   per chunk, not once per pixel. */
#define HST__E_TEMPORAL_CHUNK 512

/* hst__e_temporal_frame of a whole chunk, its count a constant: gcc's -O2 vectorises only
   loops whose count needs no scalar remainder, and left the run-time count's loops scalar
   (11% of the host CLI's processor time on the shipped stack); built for AVX2 where the CPU
   has it (hst__e_isa >= 1), each lane the portable operations, so the same bits (no FMA in
   its target: gnu-mode gcc could contract x * x + s otherwise) */
#if HST__E_AVX2
__attribute__((target("avx2"))) static void
hst__e_temporal_chunk256(double *acc, size_t P, const float *x, const float *prev, int first, int last)
{
    hst__e_temporal_frame(acc, P, x, prev, first, last, HST__E_TEMPORAL_CHUNK);
}
#endif

/* One frame's terms into n <= HST__E_TEMPORAL_CHUNK pixels' sums in the build for isa (>= 1:
   AVX2, 0 portable) */
static void hst__e_temporal_step(int isa, double *acc, size_t P, const float *x, const float *prev, int first,
                                 int last, size_t n)
{
#if HST__E_AVX2
    if (n == HST__E_TEMPORAL_CHUNK && isa >= 1) {
        hst__e_temporal_chunk256(acc, P, x, prev, first, last);
        return;
    }
#endif
    (void)isa;
    if (n == HST__E_TEMPORAL_CHUNK)
        hst__e_temporal_frame(acc, P, x, prev, first, last, HST__E_TEMPORAL_CHUNK);
    else
        hst__e_temporal_frame(acc, P, x, prev, first, last, n);
}

HST__KDEF void hst_k_esrrf_temporal_host(const float *rgc, double *acc, uint32_t pixels,
                                       uint64_t frames_per_tp, uint32_t acc_tps, uint64_t frame0,
                                       uint32_t skip, uint64_t frames_total, uint32_t i0,
                                       uint32_t i1, uint64_t base, uint64_t begin, uint64_t end,
                                       int lag)
{
    size_t P = pixels, c, n, hi = i1 < P ? i1 : P;
    uint64_t T = frames_per_tp ? frames_per_tp : UINT64_MAX;
    uint64_t z0 = skip > base ? skip - base : 0, z;
#if HST__E_AVX2
    int isa = hst__e_isa();
#else
    int isa = 0;
#endif
    if (acc_tps == 0) return;
    if (z0 < begin) z0 = begin;
    for (c = i0; c < hi; c += n) {
        n = hi - c < HST__E_TEMPORAL_CHUNK ? hi - c : HST__E_TEMPORAL_CHUNK;
        for (z = z0; z < end; ++z) {
            uint64_t g = frame0 + base + z, t = g % T;
            const float *x = rgc + (size_t)z * P + c;
            hst__e_temporal_step(isa, acc + (size_t)(g / T % acc_tps) * 5 * P + c, P, x,
                                 lag && t > 0 ? x - P : NULL, t == 0, t + 1 == T || g + 1 == frames_total, n);
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

/* ---- the declared kernels' twins (HST_ESRRF_KERNELS): the typed twins over a launch's range */

/* Frames [*z0, *z1) of a 2-D stage kernel's range: begin (args[blk + 1]) plus dimension 1's
   offset, its size of frames, clipped to end (args[blk + 2]); a 1-D range is frame begin alone
   (the kernel's get_global_id(1) is 0). */
HST__KPRIVATE void hst__kt_esrrf_frames(const hst_karg *a, unsigned blk, const hst_range *r, uint64_t *z0,
                                  uint64_t *z1)
{
    uint64_t end = a[blk + 2].v.u64, n = r->dims >= 2 ? r->global[1] : 1;
    *z0 = a[blk + 1].v.u64 + (r->dims >= 2 ? r->offset[1] : 0);
    if (*z0 > end) *z0 = end;
    *z1 = end - *z0 > n ? *z0 + n : end;
}

/* Items [*i0, *i1) of a 1-D range, clipped to n. */
HST__KPRIVATE void hst__kt_esrrf_items(const hst_range *r, uint64_t n, uint64_t *i0, uint64_t *i1)
{
    *i0 = r->offset[0] < n ? r->offset[0] : n;
    *i1 = n - *i0 > r->global[0] ? *i0 + r->global[0] : n;
}

HST__KPRIVATE void hst__kt_esrrf_to_float(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_esrrf_frames(a, 4, r, &z0, &z1);
    hst_k_esrrf_to_float_host(hst_karg_ptr(&a[0]), (float *)hst_karg_ptr(&a[1]), a[2].v.u32, a[3].v.u32,
                              a[4].v.u64, z0, z1, a[7].v.u64);
}

/* The stage kernels below compute dimension 0's items [offset[0], offset[0] + global[0]) of
   each frame (clipped to a frame's), as the OpenCL kernels do: a range may split a frame's
   items (liquid.h's threads on the host device) */
HST__KPRIVATE void hst__kt_esrrf_roberts(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1, i0, i1;
    hst__kt_esrrf_frames(a, 7, r, &z0, &z1);
    hst__kt_esrrf_items(r, (uint64_t)a[3].v.u32 * a[4].v.u32, &i0, &i1);
    hst__e_roberts_items((const float *)hst_karg_ptr(&a[0]), (float *)hst_karg_ptr(&a[1]),
                         (float *)hst_karg_ptr(&a[2]), a[3].v.u32, a[4].v.u32, a[5].v.u32,
                         a[6].v.u32, z0, z1, (size_t)i0, (size_t)i1);
}

HST__KPRIVATE void hst__kt_esrrf_magnify(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1, i0, i1;
    float mag[2], shift[2];   /* float2 values (the launch's bytes: 8 each) */
    memcpy(mag, a[6].v.value, sizeof mag);
    memcpy(shift, a[7].v.value, sizeof shift);
    hst__kt_esrrf_frames(a, 9, r, &z0, &z1);
    hst__kt_esrrf_items(r, (uint64_t)a[4].v.u32 * a[5].v.u32, &i0, &i1);
    hst__e_magnify_items((const float *)hst_karg_ptr(&a[0]), (float *)hst_karg_ptr(&a[1]), a[2].v.u32,
                         a[3].v.u32, a[4].v.u32, a[5].v.u32, mag[0], mag[1], shift[0], shift[1],
                         a[8].v.u32, z0, z1, (size_t)i0, (size_t)i1);
}

HST__KPRIVATE void hst__kt_esrrf_rgc(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1, i0, i1;
    hst__kt_esrrf_frames(a, 12, r, &z0, &z1);
    hst__kt_esrrf_items(r, (uint64_t)a[4].v.u32 * a[5].v.u32 * a[6].v.u32 * a[6].v.u32, &i0, &i1);
    hst__e_rgc_chained((const float *)hst_karg_ptr(&a[0]), (const float *)hst_karg_ptr(&a[1]),
                       (const float *)hst_karg_ptr(&a[2]), (float *)hst_karg_ptr(&a[3]), a[4].v.u32,
                       a[5].v.u32, a[6].v.u32, a[7].v.f32, a[8].v.f32, a[9].v.i32, a[10].v.u32,
                       a[11].v.u32, z0, z1, i0, i1);
}

HST__KPRIVATE void hst__kt_esrrf_rgc_fused(const hst_karg *a, const hst_range *r)
{
    (void)r;   /* the kernel's groups cover [begin, end) whatever their ids (above) */
    hst_k_esrrf_rgc_fused_window_host((const float *)hst_karg_ptr(&a[0]), (float *)hst_karg_ptr(&a[1]),
                                      a[2].v.u32, a[3].v.u32, a[4].v.u32, a[5].v.f32, a[6].v.f32,
                                      a[7].v.i32, a[8].v.u32, a[9].v.u32, a[10].v.u64, a[11].v.u64,
                                      a[12].v.u64, a[13].v.u64);
}

HST__KPRIVATE void hst__kt_esrrf_temporal(const hst_karg *a, const hst_range *r)
{
    uint64_t i0, i1;
    hst__kt_esrrf_items(r, a[2].v.u32, &i0, &i1);
    /* the kernel's default build's twin (a launch does not see the build's options) */
    hst_k_esrrf_temporal_host((const float *)hst_karg_ptr(&a[0]), (double *)hst_karg_ptr(&a[1]), a[2].v.u32,
                              a[3].v.u64, a[4].v.u32, a[5].v.u64, a[6].v.u32, a[7].v.u64, (uint32_t)i0,
                              (uint32_t)i1, a[8].v.u64, a[9].v.u64, a[10].v.u64, 1);
}

HST__KPRIVATE void hst__kt_esrrf_stat(const hst_karg *a, const hst_range *r)
{
    uint64_t i0, i1;
    hst__kt_esrrf_items(r, a[3].v.u32, &i0, &i1);
    if (i0 < i1)
        hst_k_esrrf_finalize_range(a[5].v.i32, (const double *)hst_karg_ptr(&a[0]) + a[2].v.u64 + i0,
                                   a[3].v.u32, (size_t)(i1 - i0), a[4].v.u32,
                                   (float *)hst_karg_ptr(&a[1]) + i0);
}

HST__KDEF void hst_k_esrrf_roll_host(const double *ring, double *win, uint64_t win_off,
                                   uint64_t block_elems, uint64_t nslots, uint64_t b0,
                                   uint32_t nblocks, uint32_t sum, uint64_t off_q,
                                   uint64_t off_first, uint64_t off_last, uint64_t i0,
                                   uint64_t i1)
{
    uint64_t first = (sum == 4 ? b0 + nblocks - 1 : b0) % nslots, i;
    uint32_t j;
    if (nblocks == 0) return;
    for (i = i0; i < i1; ++i) {
        uint64_t sl = first;
        double s = ring[sl * block_elems + off_q + i];
        for (j = 1; j < nblocks && sum < 3; ++j) {
            uint64_t prev = sl;
            sl = sl + 1 == nslots ? 0 : sl + 1;
            if (sum == 2) s = s + ring[prev * block_elems + off_last + i] * ring[sl * block_elems + off_first + i];
            s = s + ring[sl * block_elems + off_q + i];
        }
        win[win_off + i] = s;
    }
}

HST__KPRIVATE void hst__kt_esrrf_roll(const hst_karg *a, const hst_range *r)
{
    uint64_t i0, i1;
    hst__kt_esrrf_items(r, a[7].v.u32, &i0, &i1);
    hst_k_esrrf_roll_host((const double *)hst_karg_ptr(&a[0]), (double *)hst_karg_ptr(&a[1]), a[2].v.u64,
                          a[3].v.u64, a[4].v.u64, a[5].v.u64, a[6].v.u32, a[8].v.u32, a[9].v.u64, a[10].v.u64,
                          a[11].v.u64, i0, i1);
}

HST__KPRIVATE void hst__kt_esrrf_sweep_sum(const hst_karg *a, const hst_range *r)
{
    uint64_t e0, e1;
    hst__kt_esrrf_items(r, a[2].v.u32, &e0, &e1);
    hst_k_esrrf_sweep_sum_host((const float *)hst_karg_ptr(&a[0]), (double *)hst_karg_ptr(&a[1]), a[2].v.u32,
                               1, a[3].v.u32, a[4].v.u32, a[5].v.u32, (size_t)e0, (size_t)e1);
}

HST__KDEF const hst_kernel_family *hst_kernels_esrrf_family(void)
{
    static const hst_kernel_decl decls[HST_KESRRF_COUNT] = { HST_ESRRF_KERNELS(HST_KERNEL_DECL) };
    static const hst_kernel_family family = { "esrrf", hst_kernels_esrrf_source, decls, HST_KESRRF_COUNT };
    return &family;
}

/* <<esrrf kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_ESRRF_IMPLEMENTATION */

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
