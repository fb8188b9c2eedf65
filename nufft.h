/* nufft.h — halostream's non-uniform FFTs: type 1 (non-uniform points to Fourier modes) and
   type 2 (modes to points) in 2-D and 3-D, in complex64 (float) or complex128 (double, FINUFFT's
   double precision: desc.dtype), batched (n_trans), as FINUFFT defines them, on any
   device of backend.h (its kernels, kernels_nufft.h's, launched through backend.h's
   hst_launch_kernel: the host device runs their host C twins, in threads; OpenCL devices run
   the kernels). PyEPRI's nufft2d / nufft3d (type 2) and
   nufft2d_adjoint / nufft3d_adjoint (type 1). Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file (it compiles the bodies of every
   halostream header included there: one copy of the library per program), and define HST_FFT
   there too (array.h's FFTs: FFTW on the host device, VkFFT on OpenCL devices; without them
   hst_nufft_plan_create answers HST_ERROR_NOT_BUILT_IN). Other files include it without the
   macros.

   Usage (PyEPRI's nufft2d: 256 x 256 modes u to 10^6 points (y, x) in [-pi, pi)):

       // given: hst_backend *be; const float *y, *x; hst_array *u, *c;  // u: c64 (256, 256); c: c64 (1000000)
       hst_nufft_desc nd = {0};
       hst_nufft_plan *plan;
       const float *coords[2];
       nd.type = 2; nd.dim = 2; nd.modes[0] = 256; nd.modes[1] = 256; nd.eps = 1e-6;
       coords[0] = y; coords[1] = x;                     // axis 0 (rows) first, as u's shape
       hst_result r = hst_nufft_plan_create(be, &nd, &plan);
       if (r == HST_SUCCESS) r = hst_nufft_set_points(plan, 1000000, coords);   // once
       if (r == HST_SUCCESS) r = hst_nufft_execute(plan, c, u);   // c[j] = sum_k u[k] e^{-i k.p_j}
       hst_nufft_plan_destroy(plan);                     // NULL (a failed create) is fine
       // In double (PyEPRI's complex128): nd.dtype = HST_C128 (eps down to 1e-14), u and c c128,
       // the points const double *: hst_nufft_set_points_f64; link FFTW's -lfftw3 too.
       // cc -std=c99 app.c -lOpenCL -lfftw3f -lm -lpthread   (with HST_FFT: vkFFT.h on the include path)

   The transforms (FINUFFT's, with its default modeord 0, "CMCL" ordering). For M points p_j
   (coords[d][j] is coordinate d of point j, d = 0 the slowest axis of the modes' array), and
   modes k = (k_0, .., k_{dim-1}) with -N_d/2 <= k_d <= (N_d - 1)/2 (integer division),
   stored in C order at index k_d + N_d/2 along axis d (NumPy's fftshift order: the zero
   frequency at N_d/2):
       type 1:  f[k] = sum_j c[j] exp(isign i k . p_j)       (c: M values -> f: the modes)
       type 2:  c[j] = sum_k f[k] exp(isign i k . p_j)       (f -> c)
   isign 0 takes FINUFFT's (and so PyEPRI's) default: +1 for type 1, -1 for type 2; then type 1
   is type 2's adjoint. Coordinates are radians, periodic: any finite value in [-3 pi, 3 pi]
   (FINUFFT's range) is taken modulo 2 pi; PyEPRI passes [-pi, pi). PyEPRI's calls, which go to
   finufft / cufinufft with their defaults: nufft2d(y, x, u, eps) is type 2 with coords {y, x}
   and f = u; nufft2d_adjoint(y, x, c, n_modes, eps) is type 1 with modes n_modes; the 3-D
   ones likewise with three coordinates in the array's axis order.

   The algorithm (Barnett, Magland & af Klinteberg, "A parallel non-uniform fast Fourier
   transform library based on an 'exponential of semicircle' kernel", SIAM J. Sci. Comput.
   41(5), 2019; FINUFFT 2.x's choices): kernel width w = ceil(log10(1 / eps)) + 1 (2 .. 7 over
   complex64's eps range, up to 15 over complex128's), the ES kernel exp(beta (sqrt(1 - (2x/w)^2) - 1)) with beta = 2.30 w
   (FINUFFT's 2.20, 2.26, 2.38 for w = 2, 3, 4), evaluated as FINUFFT does by a piecewise
   polynomial (one per tap, Horner's rule), upsampling 2: a fine grid of nf_d =
   next235even(max(2 N_d, 2 w)) points per axis. Type 1 spreads the points onto the fine grid,
   FFTs it (sign isign) and keeps the modes divided by the kernel's Fourier transform (its
   deconvolution; phihat by Gauss-Legendre quadrature with 2 + 3 w / 2 nodes on the half
   kernel, as FINUFFT's onedim_fseries_kernel); type 2 runs the same steps backwards
   (deconvolve and zero-pad, FFT, interpolate). Points are sorted by bin once, in
   hst_nufft_set_points (a counting sort: O(M)). On OpenCL devices spreading runs by bins and
   subproblems as cuFINUFFT's SM method (Shih, Wright, Andén, Blaschke, Barnett, "cuFINUFFT: a
   load-balanced GPU library for general-purpose nonuniform FFTs", IPDPSW 2021): bins of 32 x
   32 (2-D) or 8 x 8 x 8 (3-D) fine-grid points, at most 1024 points per work-group, spread into
   local memory and added to the grid with atomic float adds (compare-and-swap loops: 32-bit,
   or 64-bit through cl_khr_int64_base_atomics in complex128); where a bin's tile does not fit
   the device's local memory (complex128's wide 3-D kernels on GPUs: 64 KB at eps 1e-6, 165 KB
   at 1e-12, against 48 KB) type 1 spreads instead as cuFINUFFT's GM-sort method, one work-item
   per sorted point adding straight into the grid (desc.method picks either);
   interpolation needs no atomics (one work-item per point, sorted). On GPUs both run with a
   work-item per tap along the fastest axis instead (kernels_nufft.h's spread_lanes, and
   interp_lanes for 3-D complex64), so that a warp's atomic adds and loads of a row's taps fall on
   neighbouring words rather than on as many rows as the warp has points. The host device spreads
   bins of 32 x 32 (2-D) or 16 x 16 x 16 (3-D: its tiles overlap the grid less than 8^3 bins'
   and stay in a core's cache), one subproblem per bin, in threads (one per core), whole
   cells of bins at a time (one index along each of the two slowest axes), in phases of cells
   apart so that no two threads touch one grid point (no atomics); it interpolates point ranges in threads; its spreading and
   interpolation loops run in AVX-512 or AVX2 where the CPU has them (kernels_nufft.h: the
   same bits). Speed (bench/nufft_bench.c, eps 1e-6, complex64, 10^6 points; 256 x 256 modes
   in 2-D, 64^3 in 3-D): on 2 shared cores of an AMD EPYC host (AVX-512), against finufft 2.5.1
   with 2 threads in the same job (bench/nufft_peer.py, alternating rounds; bench/RESULTS.md),
   medians of 3 rounds: type 1 0.29 .. 0.44 (2-D) and 0.73 .. 0.81 (3-D) times finufft's time,
   type 2 0.51 .. 0.55 (2-D) and 0.82 .. 0.83 (3-D; one run of three 1.35 by the wall clock
   where the processor time was 0.87: the cores were shared). Complex128 at eps 1e-9 against
   finufft 2.5.1's double precision with 16 threads on an H200's 16-core Xeon host (2 rounds
   of 5, 2026-12-03): type 1 0.43 (2-D) and 1.04 (3-D) times finufft's time, type 2 1.28 (2-D)
   and 1.75 .. 2.30 (3-D). Complex64 at eps 1e-6 on that host's 16 cores (2026-12-06): type 1
   0.19 (2-D) and 0.62 (3-D) times finufft's time, type 2 0.34 and 0.46. On an H100 against
   cuFINUFFT 2.5.1 (2026-12-06, one job): type 1 0.92 (2-D) and 0.34 (3-D) times its time,
   type 2 0.88 and 0.70.

   Accuracy. The relative l2 error against direct summation stays below 10 eps for eps in
   [1e-6, 1e-1] (tests/test_nufft.c checks 1e-2 .. 1e-6 in 2-D and 3-D, both types); below
   1e-6 single precision's rounding, not the kernel, sets the error, so smaller eps is refused
   for complex64. Complex128 plans compute everything in double (points, kernel polynomials of
   16 lanes, fine grid, FFT: FFTW's double library, VkFFT's doublePrecision) and reach eps down
   to 1e-14 (width 15; FINUFFT's double floor): errors of 0.6 .. 3.3 eps at eps 1e-6, 1e-9,
   1e-12 (tests/test_nufft.c checks <= 10 eps, 2-D and 3-D, both types); eps below 1e-14 is
   refused. Complex128 needs the device's fp64 (HST_ERROR_DTYPE naming c128 otherwise).
   Numerics across devices: the kernel's values come from its piecewise polynomial (FINUFFT's
   Horner form: degree w + 3, fitted here in double at Chebyshev points) evaluated by the same
   float (or double) operations on every device, so spreading and interpolation do the same arithmetic
   everywhere; the FFTs differ (FFTW against VkFFT, a few ulp), and type 1's atomic adds land in
   an order that varies from run to run on OpenCL devices, so its last bits are not
   reproducible there (the host device's are, on a given number of cores: its spreading's cells
   depend on it, >>host threads). tests/test_nufft.c states the agreement of the
   host device and the device under test: relative l2 difference below 1e-5 (both types; 2e-7
   measured on PoCL); complex128 below 1e-13 (9e-16 measured on PoCL).

   Options (macros)                     matters in
     HST_IMPLEMENTATION                 the implementation TU: compile every header's body
     HST_NUFFT_IMPLEMENTATION           the implementation TU: compile nufft.h's body only
     HST_FFT                            the implementation TU: array.h's FFTs (required)
     HST_NO_OPENCL, HST_STATIC, HST_API as in backend.h
   The implementation uses backend.h's OS shim (the host device's threads): link with -lpthread
   where it runs on POSIX threads (Win32 threads on Windows).

   What it does NOT do: no type 3; no 1-D; no mixed precision (c and f both the plan's dtype:
   complex64 or complex128; either set_points takes float or double points); batches
   (desc.n_trans, FINUFFT's n_trans) run vector by vector through one fine grid, not several
   grids per FFT as FINUFFT's batches (the same bits as n_trans single executes); no modeord 1 (FFT-style order: apply hst_array_fftshift);
   eps below 1e-6 (complex64) or 1e-14 (complex128) is refused (see Accuracy); one execute at a time per plan (and per backend,
   in backend.h's words).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (the full text at the
   end of this file). */

#ifndef HST_NUFFT_H
#define HST_NUFFT_H

#include "array.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_NUFFT_IMPLEMENTATION)
#  define HST_NUFFT_IMPLEMENTATION
#endif
/* The nufft kernel family: compiled where nufft.h's implementation is. */
#if defined(HST_NUFFT_IMPLEMENTATION) && !defined(HST_KERNELS_NUFFT_IMPLEMENTATION)
#  define HST_KERNELS_NUFFT_IMPLEMENTATION
#endif
#include "kernels_nufft.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HST_NUFFT_EPS_MIN 1e-6      /* complex64: single precision's floor (see Accuracy above) */
#define HST_NUFFT_EPS_MIN_C128 1e-14   /* complex128: double's floor, kernel width 15 (Accuracy) */
#define HST_NUFFT_EPS_MAX 1e-1
#define HST_NUFFT_EPS_DEFAULT 1e-6  /* FINUFFT's Python default, and PyEPRI's */

/* What a plan computes. Zero fields take the defaults named. */
typedef struct hst_nufft_desc {
    int type;              /* 1 or 2 (no default) */
    unsigned dim;          /* 2 or 3 (no default) */
    size_t modes[3];       /* N_0 .. N_{dim-1}, C order (modes[0] the slowest axis), each >= 1 */
    double eps;            /* requested relative tolerance, HST_NUFFT_EPS_MIN (c64) or
                              HST_NUFFT_EPS_MIN_C128 (c128) .. HST_NUFFT_EPS_MAX; 0: 1e-6 */
    int isign;             /* +1 or -1; 0: +1 for type 1, -1 for type 2 (FINUFFT's default) */
    size_t n_trans;        /* vectors per execute (FINUFFT's n_trans; PyEPRI passes Nb): c and f
                              then carry a leading axis of n_trans; 0: 1 (no leading axis) */
    hst_dtype dtype;       /* c and f: HST_C64 (float arithmetic) or HST_C128 (double: the
                              points, the kernel, the fine grid and its FFT; FINUFFT's double
                              precision); 0: HST_C64 */
    int method;            /* type 1's spreading (cuFINUFFT's gpu_method): HST_NUFFT_SPREAD_* */
} hst_nufft_desc;

/* desc.method. AUTO: bins where a bin's tile fits the device's local memory, else global. BINS:
   cuFINUFFT's SM method (bins and subproblems, local-memory tiles; on the host device, cells
   of bins in threads; refused where the tile does not fit). GLOBAL: cuFINUFFT's GM-sort (one
   work-item per sorted point, atomic adds into the fine grid; no local memory: c128's wide 3-D
   tiles on GPUs, e.g. 64 KB at eps 1e-6 against 48 KB; on the host device, one thread). */
enum { HST_NUFFT_SPREAD_AUTO = 0, HST_NUFFT_SPREAD_GLOBAL = 1, HST_NUFFT_SPREAD_BINS = 2 };

/* What a plan chose (FINUFFT's parameters for the desc). */
typedef struct hst_nufft_info {
    unsigned width;        /* kernel width w, fine-grid points per axis */
    double beta;           /* the ES kernel's beta */
    size_t fine[3];        /* the fine grid, C order (dim extents) */
    size_t num_points;     /* points set (0 before hst_nufft_set_points) */
    size_t num_bins, num_subproblems;   /* the spreading's bins and work-groups (type 1; else 0) */
    int method;            /* type 1's spreading as it runs: HST_NUFFT_SPREAD_BINS or _GLOBAL
                              (desc.method AUTO resolved); type 2: 0 */
    hst_dtype dtype;       /* HST_C64 or HST_C128 */
} hst_nufft_info;

typedef struct hst_nufft_plan hst_nufft_plan;

/* A plan: the desc checked, w, beta and the fine grid chosen, the deconvolution factors
   computed, the fine grid allocated (nf_0 .. nf_{dim-1} complex values of the dtype on the
   device) and, on OpenCL devices, the NUFFT program built (with the width and the real type as
   build options: cached per backend and on disk). Errors: HST_ERROR_INVALID_ARGUMENT (be,
   desc or out NULL; type not 1 or 2; dim not 2 or 3; a zero mode count; eps not finite or
   outside [1e-6, 1e-1] (c64) or [1e-14, 1e-1] (c128); isign not -1, 0 or +1; method not one
   of HST_NUFFT_SPREAD_*: the log names the field), HST_ERROR_DTYPE (dtype not 0, c64 or c128;
   c128 on a device without fp64), HST_ERROR_OVERFLOW (the fine grid or the modes beyond
   2^31 - 1 elements), HST_ERROR_NOT_BUILT_IN (without HST_FFT), HST_ERROR_UNSUPPORTED (method
   BINS on an OpenCL device with less local memory than a bin's tile: 12.8 KB in 2-D, 32 KB
   in 3-D at w = 7 in c64, twice that in c128), memory and OpenCL errors (the c128 program
   also needs cl_khr_int64_base_atomics: a device without it fails its build). Thread safety:
   per backend. */
HST_API HST_NODISCARD hst_result hst_nufft_plan_create(hst_backend *be, const hst_nufft_desc *desc,
                                                       hst_nufft_plan **out);
/* Sets (or replaces) the plan's M points: coords[d] (d < dim) holds M floats in host memory,
   coordinate d of each point, in radians (see the top of this file). They are folded into the
   periodic grid, sorted by bin and uploaded; the caller's arrays are not kept. On failure the
   plan keeps its previous points. Errors: HST_ERROR_INVALID_ARGUMENT (plan, coords or a
   coords[d] NULL; m 0 or above 2^31 - 1), HST_ERROR_NON_FINITE (a NaN or Inf coordinate:
   the log names coords[d][j]), HST_ERROR_INVALID_ARGUMENT with HST_LOGITEM_OUT_OF_RANGE (a
   coordinate outside [-3 pi, 3 pi]), HST_ERROR_OVERFLOW, memory and OpenCL errors.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_nufft_set_points(hst_nufft_plan *plan, size_t m,
                                                      const float *const *coords);
/* The same with the coordinates in double (FINUFFT's double precision takes float64 points):
   a c128 plan keeps their double positions; a c64 plan's are those of hst_nufft_set_points
   (each point's offset rounded to float). Either function sets either plan's points. Errors:
   as hst_nufft_set_points. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_nufft_set_points_f64(hst_nufft_plan *plan, size_t m,
                                                          const double *const *coords);
/* Runs the plan's transform. c: array of shape (M) (the points' values, in the order of
   the coordinates); f: array of the modes' shape (N_0, .., N_{dim-1}), C order, modes as
   at the top of this file; both of the plan's desc.dtype (c64 or c128). With desc.n_trans = T > 1 (FINUFFT's n_trans) both carry a leading
   axis: c (T, M), f (T, N_0, ..), vector k transformed as a single execute of c[k] and f[k]
   would (the same bits: the same arithmetic, vector after vector). Type 1 reads c and writes
   f; type 2 reads f and writes c. Both arrays on the plan's backend (any arrays or views of it). Runs in order on the backend's
   queue: on OpenCL devices it does not block (read the result with hst_array_read).
   Errors: HST_ERROR_INVALID_ARGUMENT (plan, c or f NULL), HST_ERROR_INVALID_ARGUMENT with
   HST_LOGITEM_BAD_STATE (no points set), HST_ERROR_DTYPE (c or f not the plan's dtype), HST_ERROR_SHAPE
   (a shape other than the above, or another backend's array), memory and OpenCL errors (the
   plan stays usable). Thread safety: per backend (one execute of a plan at a time). */
HST_API HST_NODISCARD hst_result hst_nufft_execute(hst_nufft_plan *plan, hst_array *c, hst_array *f);
/* The plan's parameters. Errors: HST_ERROR_INVALID_ARGUMENT (plan or out NULL).
   Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_nufft_plan_info(const hst_nufft_plan *plan, hst_nufft_info *out);
/* Frees the plan and its device memory (NULL is fine). Thread safety: per backend. */
HST_API void hst_nufft_plan_destroy(hst_nufft_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* HST_NUFFT_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_NUFFT_IMPLEMENTATION) && !defined(HST__NUFFT_IMPLEMENTED)
#define HST__NUFFT_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__NUDEF HST_API __attribute__((unused))
#else
#  define HST__NUDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__NU_PI 3.14159265358979323846
#define HST__NU_MAX_ELEMS 2147483647u   /* grids, modes and points: int indices in the kernels */
#define HST__NU_MIN_WIDTH 2             /* FINUFFT's MIN_NSPREAD */
/* cuFINUFFT's SM defaults: 32 x 32 bins in 2-D, 8 x 8 x 8 in 3-D, 1024 points per subproblem
   (Shih et al. 2021, section IV); the 3-D tile at w = 7 (16^3 complex floats, 32 KB) fits the
   32 KB of local memory OpenCL promises. Bins of at least 2 ceil(w / 2) keep cells two
   apart from touching on the host (>>host threads). */
#define HST__NU_BIN_2D 32
#define HST__NU_BIN_3D 8
/* The host device's 3-D bins: 16 x 16 x 16 (its tile, 24^3 complex floats at w = 7, stays in
   a core's L2 cache; the tiles overlap 3.4 times the grid where 8^3 bins' overlap 8 times, and
   each grid value is added that many times). */
#define HST__NU_HOST_BIN_3D 16
/* Its 3-D bins for type 2, 2 x 2 x 2: there they only sort the points (no tiles), and points of
   one small bin interpolate from nearly the same rows, which stay in a core's L1 cache (2
   cores, 64^3 modes, 10^6 points, eps 1e-6, ms an execute: 52-53 at 16^3, 50 at 8^3, 47 at
   4^3, 46 at 2^3 and at 1; 2-D's bins of 32^2 already fit: 8^2, 4^2, 2^2 no faster). */
#define HST__NU_HOST_BIN_3D_INTERP 2
/* An OpenCL device's bins for type 2, 2^2 and 2^3: only a sort there too, so a work-group's
   points lie close together and read nearly the same rows of the grid (an H100, c64, 10^6
   points: interp_lanes 3-D 0.331 -> 0.315 ms against 8^3; 2-D 0.124 -> 0.119). */
#define HST__NU_BIN_2D_INTERP 2
#define HST__NU_BIN_3D_INTERP 2
/* Type 2's bins at most (its counting sort's table of bin starts: 16 MiB). At 2^3, 512^3 modes
   (a 1024^3 grid) would have 2^27 bins, a 512 MiB table; capped, their bins are 8^3. */
#define HST__NU_MAX_SORT_BINS (1u << 22)
#define HST__NU_MAX_SUB 1024
/* The host device's subproblems: whole bins (one tile flush per bin; threads share cells). */
#define HST__NU_HOST_SUB 2147483647
/* Work-items per spreading work-group (cuFINUFFT's 256 threads per block halved: PoCL and GPUs
   both take it, and a bin's tile is zeroed and flushed by all of them). */
#define HST__NU_LOCAL 128

/* >>types ------------------------------------------------------------------------------------ */
/* Internally every problem is 3-D (kernels_nufft.h's convention): a 2-D problem's axes are 1 and
   2, axis 0 has one grid point and a kernel of width 1. */
struct hst_nufft_plan {
    hst_backend *be;
    int host, type, isign;         /* host: the host device (>>device) */
    int f64;                       /* a c128 plan: double everywhere, the family's _F64 kernels */
    int gm;                        /* type 1 spreads by HST_KNUFFT_SPREAD_GM (>>device) */
    unsigned kernel;               /* the points' kernel: spread's or interp's (>>device) */
    hst_dtype dt, rdt;             /* c and f's dtype (c64, c128), its real type (f32, f64) */
    size_t real;                   /* bytes of a real: 4 or 8 */
    unsigned lanes;                /* the twins' lanes: HST_K_NUFFT_LANES or _F64 */
    size_t n_trans;                /* vectors per execute (>= 1) */
    unsigned dim, threads;
    int width;
    double beta;
    int32_t nf[4], nm[4];          /* fine grid and modes, 3-D, the fourth unused */
    int32_t g[16];                 /* kernels_nufft.h's geometry */
    int deg;                       /* the kernel polynomials' degree */
    size_t tile_bytes;             /* spreading's __local argument: a bin's tile (>>device) */
    char options[96];              /* the program's build options: widths, degree, real type */
    hst_buffer *grid_buf;          /* the fine grid's memory, HST_K_NUFFT_LANES c64 longer */
    hst_array *grid, *corr, *coef; /* the fine grid (dim axes), 1 / phihat per mode index, the
                                      kernel's polynomials (kernels_nufft.h's coef) */
    /* the points, sorted by bin (set_points) */
    size_t m, nsub, nbins;
    hst_array *base, *off, *perm, *sub_bin, *sub_first, *bin_start;
    uint32_t *cell_sub;            /* first subproblem of each cell of bins, + end (>>host threads) */
    size_t local;                  /* spreading's work-group size */
};

/* >>helpers ---------------------------------------------------------------------------------- */
/* FINUFFT's next235even: the smallest even n' >= n whose only prime factors are 2, 3, 5. */
static size_t hst__nu_next235even(size_t n) {
    size_t p, d;
    if (n <= 2) return 2;
    if (n % 2) n++;
    for (p = n;; p += 2) {
        d = p;
        while (d % 2 == 0) d /= 2;
        while (d % 3 == 0) d /= 3;
        while (d % 5 == 0) d /= 5;
        if (d == 1) return p;
    }
}

/* FINUFFT's width and beta for eps at upsampling 2 (setup_spreader). */
static int hst__nu_width(double eps) {
    int w = (int)ceil(-log10(eps / 10.0));
    return w < HST__NU_MIN_WIDTH ? HST__NU_MIN_WIDTH : w;
}
static double hst__nu_beta(int w) {
    double per = w == 2 ? 2.20 : w == 3 ? 2.26 : w == 4 ? 2.38 : 2.30;
    return per * (double)w;
}

/* The ES kernel at x (fine-grid units; 0 outside (-w/2, w/2)), in double. */
static double hst__nu_es(double x, int w, double beta) {
    double u = 1.0 - 4.0 * x * x / ((double)w * w);
    return u > 0.0 ? exp(beta * (sqrt(u) - 1.0)) : 0.0;
}

/* Solves the n x n system a x = b in place (Gaussian elimination with partial pivoting);
   b receives x. a is row-major. */
static void hst__nu_solve(double *a, double *b, int n) {
    int i, j, k;
    for (k = 0; k < n; k++) {
        int piv = k;
        for (i = k + 1; i < n; i++) if (fabs(a[i * n + k]) > fabs(a[piv * n + k])) piv = i;
        for (j = 0; j < n && piv != k; j++) { double t = a[k * n + j]; a[k * n + j] = a[piv * n + j]; a[piv * n + j] = t; }
        if (piv != k) { double t = b[k]; b[k] = b[piv]; b[piv] = t; }
        for (i = k + 1; i < n; i++) {
            double f = a[i * n + k] / a[k * n + k];
            for (j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (k = n - 1; k >= 0; k--) {
        for (j = k + 1; j < n; j++) b[k] -= a[k * n + j] * b[j];
        b[k] /= a[k * n + k];
    }
}

/* One axis's table (kernels_nufft.h's coef): tap t's polynomial in z = 2 off + w - 1 in [-1, 1]
   interpolates the kernel at x = (z + 1) / 2 - w / 2 + t on deg + 1 Chebyshev points (a
   piecewise polynomial as FINUFFT's Horner kernels); highest degree first, `lanes` columns,
   in double (a c64 plan rounds them to float). Width 1 (the unused axis of a 2-D problem):
   the constant 1. */
static void hst__nu_fit(int w, double beta, int deg, unsigned lanes, double *coef) {
    double v[(HST_K_NUFFT_LANES_F64 + 4) * (HST_K_NUFFT_LANES_F64 + 4)], f[HST_K_NUFFT_LANES_F64 + 4];
    int n = deg + 1, t, i, k;
    memset(coef, 0, (size_t)n * lanes * sizeof(double));
    if (w == 1) { coef[(size_t)deg * lanes] = 1.0; return; }
    for (t = 0; t < w; t++) {
        for (i = 0; i < n; i++) {
            double z = cos(HST__NU_PI * (i + 0.5) / n), p = 1.0;
            for (k = 0; k < n; k++) { v[i * n + k] = p; p *= z; }
            f[i] = hst__nu_es((z + 1.0) / 2.0 - w / 2.0 + t, w, beta);
        }
        hst__nu_solve(v, f, n);
        for (k = 0; k < n; k++) coef[(size_t)(deg - k) * lanes + t] = f[k];
    }
}

/* The n-point Gauss-Legendre nodes in (0, 1) and their weights (n even: n / 2 of them), by
   Newton's method on the Legendre recurrence (as FINUFFT's legendre_compute_glr, in double). */
static void hst__nu_gauss_legendre(int n, double *x, double *wt) {
    int i, k, it;
    for (i = 0; i < n / 2; i++) {
        double z = cos(HST__NU_PI * (i + 0.75) / (n + 0.5)), p0 = 1.0, p1 = 0.0, dp = 1.0;
        for (it = 0; it < 100; it++) {
            double dz;
            p0 = 1.0; p1 = 0.0;
            for (k = 1; k <= n; k++) {
                double p2 = p1;
                p1 = p0;
                p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
            }
            dp = n * (z * p0 - p1) / (z * z - 1.0);
            dz = p0 / dp;
            z -= dz;
            if (fabs(dz) < 1e-16) break;
        }
        x[i] = z;
        wt[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

/* 1 / phihat(k) for the modes of one axis (FINUFFT's onedim_fseries_kernel): phihat(k) =
   integral of the kernel times cos(2 pi k z / nf) over z in [-w/2, w/2] (fine-grid units), by
   Gauss-Legendre quadrature on the half kernel. corr[i] for mode index i = k + nm / 2, in
   double (a c64 plan rounds them to float). */
static void hst__nu_corrections(int w, double beta, int nm, int nf, double *corr) {
    double x[HST_K_NUFFT_LANES_F64 * 3 + 4], wt[HST_K_NUFFT_LANES_F64 * 3 + 4];
    double f[HST_K_NUFFT_LANES_F64 * 3 + 4], half = w / 2.0;
    int q = (int)(2 + 3.0 * half), n, i;
    hst__nu_gauss_legendre(2 * q, x, wt);
    for (n = 0; n < q; n++) {
        double z = x[n];
        f[n] = half * wt[n] * exp(beta * (sqrt(1.0 - z * z) - 1.0));
        x[n] = z * half;
    }
    for (i = 0; i < nm; i++) {
        double k = (double)(i - nm / 2), s = 0.0;
        for (n = 0; n < q; n++) s += 2.0 * f[n] * cos(2.0 * HST__NU_PI * k * x[n] / nf);
        corr[i] = 1.0 / s;
    }
}

/* >>launches ------------------------------------------------------------------------------- */
static hst_karg hst__nu_buf(const hst_array *a) { return hst_karg_buffer(hst_array_buffer(a)); }

/* Launches the family's kernel `id` (its c64 id: a c128 plan runs the _F64 twin) over work-items [first, first + count) (1-D; work-groups
   of local items, 0: the launcher's choice) on the backend's queue. */
static hst_result hst__nu_run(const hst_nufft_plan *p, unsigned id, size_t first, size_t count,
                              size_t local, size_t num_args, const hst_karg *args) {
    hst_launch_desc d;
    memset(&d, 0, sizeof d);
    d.family = hst_kernels_nufft_family();
    d.options = p->options;
    d.kernel = p->f64 ? id + HST_KNUFFT_F64 : id;   /* the c128 build's */
    d.range.dims = 1;
    d.range.offset[0] = first;
    d.range.global[0] = count;
    d.range.local[0] = local;
    d.args = args;
    d.num_args = num_args;
    return hst_launch_kernel(p->be, &d, NULL);
}

/* Spreading's and interpolation's arguments (kernels_nufft.h's order). */
#define HST__NU_SPREAD_ARGS 13
#define HST__NU_INTERP_ARGS 9
/* cofs: the vector's first complex element in c (vector k of a batch: k m) */
static void hst__nu_spread_args(const hst_nufft_plan *p, const hst_array *c, size_t cofs, hst_karg *a) {
    a[0] = hst__nu_buf(p->base); a[1] = hst__nu_buf(p->off); a[2] = hst__nu_buf(p->perm);
    a[3] = hst__nu_buf(c); a[4] = hst__nu_buf(p->sub_bin); a[5] = hst__nu_buf(p->sub_first);
    a[6] = hst__nu_buf(p->bin_start); a[7] = hst__nu_buf(p->grid);
    a[8] = hst_karg_local(p->tile_bytes);
    a[9] = hst_karg_uint((uint32_t)p->m);
    a[10] = hst_karg_value(sizeof p->g, p->g);
    a[11] = hst__nu_buf(p->coef);
    a[12] = hst_karg_ulong((uint64_t)cofs);
}

/* Spreads subproblems [s0, s1): a work-group of p->local work-items each. */
static hst_result hst__nu_spread_subs(const hst_nufft_plan *p, const hst_karg *a, size_t s0, size_t s1) {
    size_t end;
    if (s1 == s0) return HST_SUCCESS;
    if (!hst_size_mul(s1, p->local, &end))
        return hst_backend_fail(p->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_nufft_execute",
                                "%zu subproblems of %zu work-items are beyond size_t", s1, p->local);
    return hst__nu_run(p, p->kernel, s0 * p->local, end - s0 * p->local, p->local,
                       HST__NU_SPREAD_ARGS, a);
}

/* >>host threads ----------------------------------------------------------------------------- */
/* The host device takes launches of disjoint ranges from several threads at once (backend.h):
   shares k = 0 .. n - 1 on its cores through backend.h's hst_parallel. */

/* One execute's launches shared among threads, and each share's result. Spreading on the host
   device (its twin adds without atomics) goes by cells: the bins of one index along the slowest
   real axis A (a stripe of bins), or, where a phase of stripes would leave threads idle, along
   each of the two slowest, A and B (3-D: a column of bins along the fastest axis; 2-D: one bin;
   a cell's subproblems are consecutive; stripes keep more of the grid in the cache, so they are
   the first choice: 2 cores spread c64 3-D 1.3x faster by stripes than by columns). A cell's tiles reach at most a pad (<= half a bin)
   beyond it, so cells whose indices along A, or along B, are two or more apart and not
   neighbours through the periodic wrap never touch one grid point. Each axis's indices get
   colours: where the indices pair up around the wrap (an even number of them, the last at least
   two pads wide) their parity; else the parity of 1 .. S - 2, and 0 and S - 1 a colour each.
   The cells of one colour pair (A's, B's) form a phase, shared among the threads (columns give
   many cores work: 16 a phase at 16^3 bins over a 128^3 grid, where stripes gave 4); the phases
   run one after the other. The order of the additions, hence the bits, depends on the cells
   (the plan's, from its thread count: hst__nu_cells_b), never on the threads' timing. */
#define HST__NU_COLOURS 4
typedef struct hst__nushare {
    const hst_nufft_plan *p;
    const hst_karg *args;
    unsigned id;               /* the modes' kernel (to_modes or to_grid) */
    size_t count;              /* and the elements it writes */
    unsigned s[2];             /* cells along A and B */
    int paired[2];
    unsigned colour[2];        /* the phase's */
    hst_result r[HST_PARALLEL_MAX_THREADS];
} hst__nushare;

/* Cells along B (see above): 1 (stripes) where a phase of stripes, half of them, gives every
   thread one. */
static unsigned hst__nu_cells_b(const hst_nufft_plan *p) {
    unsigned lead = 3 - p->dim;
    return (unsigned)p->g[6 + lead] / 2 >= p->threads ? 1u : (unsigned)p->g[7 + lead];
}

/* Index i's colour along an axis of S cells (see above). */
static unsigned hst__nu_colour(unsigned i, unsigned S, int paired) {
    if (paired || (i > 0 && i + 1 < S)) return i % 2;
    return i == 0 ? 2 : 3;
}

/* 1 when one of the S indices has colour c. */
static int hst__nu_has_colour(unsigned c, unsigned S, int paired) {
    unsigned i;
    for (i = 0; i < S; i++)
        if (hst__nu_colour(i, S, paired) == c) return 1;
    return 0;
}

/* Runs fn's n shares (>= 1, n <= HST_PARALLEL_MAX_THREADS); the first share's failure. */
static hst_result hst__nu_shares(hst_parallel_fn fn, hst__nushare *h, unsigned n) {
    unsigned k;
    for (k = 0; k < n; k++) h->r[k] = HST_SUCCESS;
    hst_parallel(fn, h, n);
    for (k = 0; k < n; k++)
        if (h->r[k] != HST_SUCCESS) return h->r[k];
    return HST_SUCCESS;
}

/* Share k of the phase's cells, in turn. */
static void hst__nu_spread_share(void *ctx, unsigned k, unsigned n) {
    hst__nushare *h = (hst__nushare *)ctx;
    unsigned a, b, count = 0;
    for (a = 0; a < h->s[0]; a++) {
        if (hst__nu_colour(a, h->s[0], h->paired[0]) != h->colour[0]) continue;
        for (b = 0; b < h->s[1] && h->r[k] == HST_SUCCESS; b++) {
            size_t c = (size_t)a * h->s[1] + b;
            if (hst__nu_colour(b, h->s[1], h->paired[1]) != h->colour[1] || count++ % n != k) continue;
            h->r[k] = hst__nu_spread_subs(h->p, h->args, h->p->cell_sub[c], h->p->cell_sub[c + 1]);
        }
    }
}

/* Interpolation: the sorted points in n equal shares (one launch on OpenCL devices, n = 1);
   interp_lanes runs p->lanes work-items a point. */
static void hst__nu_interp_share(void *ctx, unsigned k, unsigned n) {
    hst__nushare *h = (hst__nushare *)ctx;
    const hst_nufft_plan *p = h->p;
    size_t j0 = (size_t)((uint64_t)p->m * k / n), j1 = (size_t)((uint64_t)p->m * (k + 1) / n);
    size_t per = p->kernel == HST_KNUFFT_INTERP_LANES ? p->lanes : 1, first, count;
    if (!hst_size_mul(j0, per, &first) || !hst_size_mul(j1 - j0, per, &count)) {
        h->r[k] = hst_backend_fail(p->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_nufft_execute",
                                   "%zu points of %zu work-items are beyond size_t", j1, per);
        return;
    }
    h->r[k] = hst__nu_run(p, p->kernel, first, count, per > 1 ? p->local : 0,
                          HST__NU_INTERP_ARGS, h->args);
}

/* The global-memory spreading (desc.method): every sorted point in one launch (the host
   device's twin: one thread, plain adds). */
static hst_result hst__nu_spread_gm(const hst_nufft_plan *p, const hst_array *c, size_t cofs) {
    hst_karg a[HST__NU_INTERP_ARGS];   /* interp's arguments, c and the grid swapped */
    a[0] = hst__nu_buf(p->base); a[1] = hst__nu_buf(p->off); a[2] = hst__nu_buf(p->perm);
    a[3] = hst__nu_buf(c); a[4] = hst__nu_buf(p->grid); a[5] = hst_karg_uint((uint32_t)p->m);
    a[6] = hst_karg_value(sizeof p->g, p->g); a[7] = hst__nu_buf(p->coef);
    a[8] = hst_karg_ulong((uint64_t)cofs);
    return hst__nu_run(p, HST_KNUFFT_SPREAD_GM, 0, p->m, 0, HST__NU_INTERP_ARGS, a);
}

/* Spreads c's vector from cofs onto the zeroed grid: on OpenCL devices every subproblem in one
   launch (atomic adds); on the host device cells in phases, threaded (above); or by points
   (p->gm). */
static hst_result hst__nu_spread(const hst_nufft_plan *p, const hst_array *c, size_t cofs) {
    hst_karg a[HST__NU_SPREAD_ARGS];
    hst__nushare h;
    hst_result r = HST_SUCCESS;
    unsigned lead = 3 - p->dim, x, ca, cb;   /* A = lead, the slowest real axis; B = lead + 1 */
    if (p->gm) return hst__nu_spread_gm(p, c, cofs);
    hst__nu_spread_args(p, c, cofs, a);
    if (!p->host) return hst__nu_spread_subs(p, a, 0, p->nsub);
    h.p = p; h.args = a;
    for (x = 0; x < 2; x++) {
        unsigned axis = lead + x;
        h.s[x] = x == 0 ? (unsigned)p->g[6 + axis] : hst__nu_cells_b(p);
        h.paired[x] = h.s[x] % 2 == 0 &&
                      p->g[axis] - (int32_t)(h.s[x] - 1) * p->g[3 + axis] >= 2 * p->g[12 + axis];
    }
    for (ca = 0; ca < HST__NU_COLOURS && r == HST_SUCCESS; ca++)
        for (cb = 0; cb < HST__NU_COLOURS && r == HST_SUCCESS; cb++) {
            if (!hst__nu_has_colour(ca, h.s[0], h.paired[0]) || !hst__nu_has_colour(cb, h.s[1], h.paired[1]))
                continue;
            h.colour[0] = ca; h.colour[1] = cb;
            r = hst__nu_shares(hst__nu_spread_share, &h, p->threads);
        }
    return r;
}

/* Interpolates the grid at the points into c's vector from cofs, in p->threads shares. */
static hst_result hst__nu_interp(const hst_nufft_plan *p, const hst_array *c, size_t cofs) {
    hst_karg a[HST__NU_INTERP_ARGS];
    hst__nushare h;
    unsigned n = p->threads;
    a[0] = hst__nu_buf(p->base); a[1] = hst__nu_buf(p->off); a[2] = hst__nu_buf(p->perm);
    a[3] = hst__nu_buf(p->grid); a[4] = hst__nu_buf(c); a[5] = hst_karg_uint((uint32_t)p->m);
    a[6] = hst_karg_value(sizeof p->g, p->g); a[7] = hst__nu_buf(p->coef);
    a[8] = hst_karg_ulong((uint64_t)cofs);
    memset(&h, 0, sizeof h);
    h.p = p; h.args = a;
    if ((size_t)n > p->m) n = (unsigned)p->m;
    return hst__nu_shares(hst__nu_interp_share, &h, n);
}

/* The modes' kernel over share k of n of what it writes. */
static void hst__nu_modes_share(void *ctx, unsigned k, unsigned n) {
    hst__nushare *h = (hst__nushare *)ctx;
    size_t e0 = (size_t)((uint64_t)h->count * k / n), e1 = (size_t)((uint64_t)h->count * (k + 1) / n);
    h->r[k] = hst__nu_run(h->p, h->id, e0, e1 - e0, 0, 6, h->args);
}

/* to_modes (grid -> f's vector from fofs) or to_grid (f's vector -> grid) over what it writes
   (the modes or the fine grid; the grid's view excludes the twins' tail), in p->threads
   shares. */
static hst_result hst__nu_modes(const hst_nufft_plan *p, unsigned id, const hst_array *f, size_t fofs) {
    hst_karg a[6];
    hst__nushare h;
    int to_modes = id == HST_KNUFFT_TO_MODES;
    unsigned n = p->threads;
    a[0] = hst__nu_buf(to_modes ? p->grid : f); a[1] = hst__nu_buf(to_modes ? f : p->grid);
    a[2] = hst__nu_buf(p->corr);
    a[3] = hst_karg_value(sizeof p->nf, p->nf); a[4] = hst_karg_value(sizeof p->nm, p->nm);
    a[5] = hst_karg_ulong((uint64_t)fofs);
    memset(&h, 0, sizeof h);
    h.p = p; h.args = a; h.id = id;
    h.count = to_modes ? (size_t)p->nm[0] * (size_t)p->nm[1] * (size_t)p->nm[2] : hst_array_count(p->grid);
    if ((size_t)n > h.count) n = (unsigned)h.count;
    return hst__nu_shares(hst__nu_modes_share, &h, n);
}

/* >>device ----------------------------------------------------------------------------------- */
/* How the device runs the plan. The launcher picks twin or kernel; what differs is the shape of
   the work: the host device spreads whole bins per subproblem (HST__NU_HOST_SUB: one tile flush
   per bin), in cells from p->threads threads (>>host threads), its tile (the launcher's
   scratch) with the twin's SIMD tail, and has no local-memory limit; an OpenCL device runs each
   kernel in one launch (p->threads 1), the tile in its local memory, and builds the program here
   (its errors are the plan's; later launches find it built). The build options (the widths as
   constants: kernels_nufft.h) were set with the geometry. Type 1 spreads by points (p->gm)
   where desc.method asks, or (AUTO) where the device's local memory cannot hold a bin's tile;
   BINS there is refused. */

/* A lanes kernel's plain counterpart (the kernel itself where it is none). */
static unsigned hst__nu_plain(unsigned id) {
    if (id == HST_KNUFFT_INTERP_LANES) return HST_KNUFFT_INTERP;
    if (id == HST_KNUFFT_SPREAD_LANES) return HST_KNUFFT_SPREAD;
    return id;
}

/* A lanes kernel's work-group (0: the kernel is not one). */
static size_t hst__nu_lanes_group(unsigned id) {
    return id == HST_KNUFFT_INTERP_LANES ? HST_K_NUFFT_INTERP_GROUP
           : id == HST_KNUFFT_SPREAD_LANES ? HST_K_NUFFT_SPREAD_GROUP : 0;
}

/* The points' kernel (p->gm set): type 1's spreading by bins (SPREAD) or by points (SPREAD_GM),
   type 2's interpolation (INTERP); on GPUs the lanes kernels (SPREAD_LANES, and c64's 3-D
   INTERP_LANES: p->lanes work-items a point, one a tap along axis 2, so that a warp's reads and
   atomic adds of a row's taps fall on neighbouring words). c128 interpolates by INTERP: its 16
   lanes a point ran 2-D 1.5x slower on an H100, 3-D no faster. So does a 2-D plan: its 7 rows a
   point are too little work for 8 work-items and two barriers (H100, c64, 10^6 points from 2^2
   bins: interp 0.073 ms, interp_lanes 0.119-0.130; in 3-D interp 0.59, interp_lanes 0.31).
   SPREAD_LANES's local memory holds its points' taps along axes 0 and 1 besides the tile:
   2 HST_K_NUFFT_SPREAD_GROUP reals. */
static unsigned hst__nu_kernel(const hst_nufft_plan *p, const hst_device_info *d) {
    unsigned id = p->type == 2 ? (p->f64 || p->dim == 2 ? HST_KNUFFT_INTERP : HST_KNUFFT_INTERP_LANES)
                  : p->gm ? HST_KNUFFT_SPREAD_GM : HST_KNUFFT_SPREAD_LANES;
    size_t group = hst__nu_lanes_group(id);
    int fits = p->type == 2 || p->tile_bytes + 2 * group * p->real <= d->local_mem_bytes;
    if (group && (p->host || d->type != HST_DEVICE_GPU || d->max_work_group_size < group || !fits))
        return hst__nu_plain(id);
    return id;
}

/* Builds the family's kernel id (its c64 id) for the plan (the program at the first). */
static hst_result hst__nu_build(const hst_nufft_plan *p, unsigned id, hst_kernel **k) {
    return hst_family_kernel(p->be, hst_kernels_nufft_family(), p->options, id + (p->f64 ? HST_KNUFFT_F64 : 0), k);
}

/* Builds p->kernel and fits p->local to it: a lanes kernel's group (where the build's registers
   allow less, the plain kernel instead), spread's at most what the build allows. */
static hst_result hst__nu_build_points(hst_nufft_plan *p) {
    hst_kernel *k;
    hst_kernel_wg_info wg;
    hst_result r;
    size_t group = hst__nu_lanes_group(p->kernel);
    if ((r = hst__nu_build(p, p->kernel, &k)) != HST_SUCCESS || (r = hst_kernel_work_group_info(k, &wg)) != HST_SUCCESS)
        return r;
    if (group && wg.work_group_size >= group) {
        p->local = group;
    } else if (group) {
        p->kernel = hst__nu_plain(p->kernel);
        return hst__nu_build_points(p);
    } else if (wg.work_group_size < p->local) {
        p->local = wg.work_group_size ? wg.work_group_size : 1;
    }
    return HST_SUCCESS;
}

static hst_result hst__nu_device(hst_nufft_plan *p, int method) {
    const hst_device_info *d = hst_backend_device(p->be);
    int fits = p->host || (uint64_t)p->tile_bytes <= d->local_mem_bytes;
    p->local = d->max_work_group_size < HST__NU_LOCAL ? d->max_work_group_size : HST__NU_LOCAL;
    if (p->local == 0) p->local = 1;
    p->gm = p->type == 1 && (method == HST_NUFFT_SPREAD_GLOBAL || (method == HST_NUFFT_SPREAD_AUTO && !fits));
    if (p->type == 1 && method == HST_NUFFT_SPREAD_BINS && !fits)
        return hst_backend_fail(p->be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, "hst_nufft_plan_create",
                                "desc->method BINS: a bin's tile needs %zu bytes of local memory, the device "
                                "has %llu", p->tile_bytes, (unsigned long long)d->local_mem_bytes);
    p->kernel = hst__nu_kernel(p, d);
    return p->host ? HST_SUCCESS : hst__nu_build_points(p);
}

/* >>plan ------------------------------------------------------------------------------------- */
static hst_result hst__nu_check_desc(hst_backend *be, const hst_nufft_desc *d) {
    static const char *F = "hst_nufft_plan_create";
    int f64 = d->dtype == HST_C128;
    double eps_min = f64 ? HST_NUFFT_EPS_MIN_C128 : HST_NUFFT_EPS_MIN;
    unsigned i;
    if (d->type != 1 && d->type != 2)
        return hst__range_arg(be, F, "desc->type must be 1 or 2");
    if (d->dim != 2 && d->dim != 3)
        return hst__range_arg(be, F, "desc->dim must be 2 or 3");
    for (i = 0; i < d->dim; i++)
        if (d->modes[i] == 0) return hst__zero_arg(be, F, "desc->modes has a 0");
    if (d->dtype != 0 && d->dtype != HST_C64 && d->dtype != HST_C128)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "desc->dtype must be c64 or "
                                "c128 (or 0)");
    if (d->eps != 0.0 && !(d->eps >= eps_min && d->eps <= HST_NUFFT_EPS_MAX))
        return hst__range_arg(be, F, "desc->eps must be in [%g, 1e-1] (or 0) for %s", eps_min,
                              f64 ? "c128 (double's floor)" : "c64 (single precision's floor: c128 goes "
                              "to 1e-14)");
    if (f64 && !hst_backend_device(be)->fp64)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "desc->dtype c128: the device "
                                "has no double precision (cl_khr_fp64)");
    if (d->isign < -1 || d->isign > 1)
        return hst__range_arg(be, F, "desc->isign must be -1, 0 or +1");
    if (d->method < HST_NUFFT_SPREAD_AUTO || d->method > HST_NUFFT_SPREAD_BINS)
        return hst__range_arg(be, F, "desc->method must be HST_NUFFT_SPREAD_AUTO, _GLOBAL or _BINS");
    return HST_SUCCESS;
}

/* A bin's edge along each real axis (the bins above; nf: the fine grid, axes 0-2). Type 2's
   bins only sort the points, so where the grid would have more than HST__NU_MAX_SORT_BINS of
   them their edge doubles until it has no more. */
static int hst__nu_bin(int host, const hst_nufft_desc *d, const int32_t nf[3]) {
    int edge;
    if (d->type == 1) return d->dim == 2 ? HST__NU_BIN_2D : host ? HST__NU_HOST_BIN_3D : HST__NU_BIN_3D;
    edge = d->dim == 2 ? (host ? HST__NU_BIN_2D : HST__NU_BIN_2D_INTERP)
                       : host ? HST__NU_HOST_BIN_3D_INTERP : HST__NU_BIN_3D_INTERP;
    for (;; edge *= 2) {
        uint64_t n = 1;
        unsigned a;
        for (a = 0; a < 3; a++) n *= ((uint64_t)nf[a] + (uint64_t)edge - 1) / (uint64_t)edge;
        if (n <= HST__NU_MAX_SORT_BINS) return edge;
    }
}

/* The geometry: fine grid, modes, bins, widths, pads (kernels_nufft.h's g), 3-D with axis 0
   unused in 2-D; the tile; the build options. Errors: HST_ERROR_OVERFLOW. */
static hst_result hst__nu_geometry(hst_nufft_plan *p, const hst_nufft_desc *d) {
    unsigned lead = 3 - d->dim, a;
    uint64_t grid = 1, modes = 1, bins = 1;
    size_t tile_floats;   /* reals */
    int pad = (p->width + 1) / 2, bin;
    memset(p->g, 0, sizeof p->g);
    for (a = 0; a < 3; a++) {
        int real = a >= lead;
        size_t n = real ? d->modes[a - lead] : 1, nf;
        if (n > HST__NU_MAX_ELEMS / 4) return HST_ERROR_OVERFLOW;
        nf = real ? hst__nu_next235even(n * 2 > (size_t)(2 * p->width) ? n * 2 : (size_t)(2 * p->width)) : 1;
        if (nf > HST__NU_MAX_ELEMS) return HST_ERROR_OVERFLOW;
        p->nf[a] = p->g[a] = (int32_t)nf;
        p->nm[a] = (int32_t)n;
        p->g[9 + a] = real ? p->width : 1;
        p->g[12 + a] = real ? pad : 0;
        grid *= nf; modes *= n;
        if (grid > HST__NU_MAX_ELEMS || modes > HST__NU_MAX_ELEMS) return HST_ERROR_OVERFLOW;
    }
    bin = hst__nu_bin(p->host, d, p->g);
    for (a = 0; a < 3; a++) {
        p->g[3 + a] = a >= lead ? (p->g[a] < bin ? p->g[a] : bin) : 1;
        p->g[6 + a] = (p->g[a] + p->g[3 + a] - 1) / p->g[3 + a];
        bins *= (uint64_t)p->g[6 + a];
    }
    p->g[15] = p->host ? HST__NU_HOST_SUB : HST__NU_MAX_SUB;
    p->nbins = (size_t)bins;
    tile_floats = 2 * (size_t)(p->g[3] + 2 * p->g[12]) * (size_t)(p->g[4] + 2 * p->g[13]) *
                  (size_t)(p->g[5] + 2 * p->g[14]);
    p->tile_bytes = (tile_floats + (p->host ? 2 * (size_t)p->lanes : 0)) * p->real;
    snprintf(p->options, sizeof p->options, "-D HST_NU_W0=%d -D HST_NU_W=%d -D HST_NU_DEG=%d%s",
             (int)p->g[9], p->width, p->deg, p->f64 ? " -D HST_NU_F64" : "");
    return HST_SUCCESS;
}

/* n reals computed in double into a new device array of the plan's real type (a c64 plan's:
   each rounded to float). */
static hst_result hst__nu_upload_reals(hst_nufft_plan *p, size_t n, const double *v, hst_array **out) {
    float *f;
    hst_result r;
    size_t i;
    if (p->f64) return hst_array_from_host(p->be, HST_F64, 1, &n, v, out);
    if (!(f = (float *)hst_backend_alloc(p->be, n * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < n; i++) f[i] = (float)v[i];
    r = hst_array_from_host(p->be, HST_F32, 1, &n, f, out);
    hst_backend_free(p->be, f);
    return r;
}

/* The kernel's polynomials of the three axes (kernels_nufft.h's coef) into a device array. */
static hst_result hst__nu_coef(hst_nufft_plan *p) {
    size_t tab = (size_t)(p->deg + 1) * p->lanes, n = 3 * tab, a;
    double *coef = (double *)hst_backend_alloc(p->be, n * sizeof(double));
    hst_result r;
    if (!coef) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (a = 0; a < 3; a++) hst__nu_fit(p->g[9 + a], p->beta, p->deg, p->lanes, coef + a * tab);
    r = hst__nu_upload_reals(p, n, coef, &p->coef);
    hst_backend_free(p->be, coef);
    return r;
}

/* The fine grid: a view over a buffer p->lanes complex values longer (the host twin of
   interp reads that far past a row's taps), all of it zeroed (the tail: finite). */
static hst_result hst__nu_grid(hst_nufft_plan *p) {
    size_t shape[3], all = (size_t)p->nf[0] * (size_t)p->nf[1] * (size_t)p->nf[2] + p->lanes;
    unsigned a;
    hst_array *whole = NULL;
    hst_result r;
    for (a = 0; a < p->dim; a++) shape[a] = (size_t)p->nf[3 - p->dim + a];
    if ((r = hst_pool_alloc(hst_backend_pool(p->be), 2 * p->real * all, &p->grid_buf)) != HST_SUCCESS) return r;
    r = hst_array_view(p->grid_buf, 0, p->dt, 1, &all, &whole);
    if (r == HST_SUCCESS) r = hst_array_zeros(whole);
    hst_array_destroy(whole);
    return r == HST_SUCCESS ? hst_array_view(p->grid_buf, 0, p->dt, p->dim, shape, &p->grid) : r;
}

/* The deconvolution factors of the three axes, one after another, into a device array. */
static hst_result hst__nu_corr(hst_nufft_plan *p) {
    size_t n = (size_t)p->nm[0] + (size_t)p->nm[1] + (size_t)p->nm[2], a, at = 0;
    double *corr = (double *)hst_backend_alloc(p->be, n * sizeof(double));
    hst_result r;
    if (!corr) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (a = 0; a < 3; a++) {
        if (p->g[9 + a] == 1) corr[at] = 1.0;
        else hst__nu_corrections(p->width, p->beta, p->nm[a], p->nf[a], corr + at);
        at += (size_t)p->nm[a];
    }
    r = hst__nu_upload_reals(p, n, corr, &p->corr);
    hst_backend_free(p->be, corr);
    return r;
}

HST__NUDEF hst_result hst_nufft_plan_create(hst_backend *be, const hst_nufft_desc *desc,
                                            hst_nufft_plan **out) {
    static const char *F = "hst_nufft_plan_create";
    hst_nufft_plan *p;
    hst_result r;
    if (out) *out = NULL;
    if (!be || !desc || !out)
        return hst__null_arg(be, F, "%s is NULL", !be ? "be" : !desc ? "desc" : "out");
    if ((r = hst__nu_check_desc(be, desc)) != HST_SUCCESS) return r;
    if (!hst_fft_built_in())
        return hst_backend_fail(be, HST_ERROR_NOT_BUILT_IN, HST_LOGITEM_NOT_BUILT_IN, F, "FFTs are not built "
                                "in: define HST_FFT where the implementation is compiled");
    if (!(p = (hst_nufft_plan *)hst_backend_calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->be = be;
    p->host = hst_backend_is_host(be);
    p->type = desc->type;
    p->dim = desc->dim;
    p->isign = desc->isign ? desc->isign : desc->type == 1 ? 1 : -1;
    p->n_trans = desc->n_trans ? desc->n_trans : 1;
    p->f64 = desc->dtype == HST_C128;
    p->dt = p->f64 ? HST_C128 : HST_C64;
    p->rdt = p->f64 ? HST_F64 : HST_F32;
    p->real = p->f64 ? sizeof(double) : sizeof(float);
    p->lanes = p->f64 ? HST_K_NUFFT_LANES_F64 : HST_K_NUFFT_LANES;
    p->width = hst__nu_width(desc->eps != 0.0 ? desc->eps : HST_NUFFT_EPS_DEFAULT);
    p->beta = hst__nu_beta(p->width);
    p->deg = HST_K_NUFFT_DEGREE(p->width);
    p->threads = p->host ? hst_backend_device(be)->compute_units : 1;   /* >>device */
    if (p->threads < 1) p->threads = 1;
    if (p->threads > HST_PARALLEL_MAX_THREADS) p->threads = HST_PARALLEL_MAX_THREADS;
    if ((r = hst__nu_geometry(p, desc)) != HST_SUCCESS) {
        hst_backend_free(be, p);
        return hst_backend_fail(be, r, HST_LOGITEM_SIZE_OVERFLOW, F, "desc->modes give a fine grid or a "
                                "mode array beyond 2^31 - 1 elements");
    }
    r = hst__nu_grid(p);
    if (r == HST_SUCCESS) r = hst__nu_corr(p);
    if (r == HST_SUCCESS) r = hst__nu_coef(p);
    if (r == HST_SUCCESS) r = hst__nu_device(p, desc->method);
    if (r != HST_SUCCESS) { hst_nufft_plan_destroy(p); return r; }
    *out = p;
    return HST_SUCCESS;
}

static void hst__nu_free_points(hst_nufft_plan *p) {
    hst_array_destroy(p->base); hst_array_destroy(p->off); hst_array_destroy(p->perm);
    hst_array_destroy(p->sub_bin); hst_array_destroy(p->sub_first); hst_array_destroy(p->bin_start);
    hst_backend_free(p->be, p->cell_sub);
    p->base = p->off = p->perm = p->sub_bin = p->sub_first = p->bin_start = NULL;
    p->cell_sub = NULL;
    p->m = p->nsub = 0;
}

HST__NUDEF void hst_nufft_plan_destroy(hst_nufft_plan *p) {
    if (!p) return;
    hst__nu_free_points(p);
    hst_array_destroy(p->grid);
    hst_buffer_destroy(p->grid_buf);
    hst_array_destroy(p->corr);
    hst_array_destroy(p->coef);
    hst_backend_free(p->be, p);
}

HST__NUDEF hst_result hst_nufft_plan_info(const hst_nufft_plan *p, hst_nufft_info *out) {
    unsigned a;
    if (!p || !out)
        return hst__null_arg(p ? p->be : NULL, "hst_nufft_plan_info", "%s is NULL", !p ? "plan" : "out");
    memset(out, 0, sizeof *out);
    out->width = (unsigned)p->width;
    out->beta = p->beta;
    for (a = 0; a < p->dim; a++) out->fine[a] = (size_t)p->nf[3 - p->dim + a];
    out->num_points = p->m;
    if (p->type == 1) {
        out->num_bins = p->nbins;
        out->num_subproblems = p->nsub;
        out->method = p->gm ? HST_NUFFT_SPREAD_GLOBAL : HST_NUFFT_SPREAD_BINS;
    }
    out->dtype = p->dt;
    return HST_SUCCESS;
}

/* >>points ----------------------------------------------------------------------------------- */
/* The sorted points' host arrays while set_points builds them. */
typedef struct hst__nusort {
    int32_t *base;          /* (3, m) */
    void *off;              /* (3, m), the plan's real type */
    uint32_t *perm, *bin, *bin_start, *sub_bin, *sub_first, *cell_sub;
    size_t nsub;
} hst__nusort;

static void hst__nu_sort_free(const hst_backend *be, hst__nusort *s) {
    hst_backend_free(be, s->base); hst_backend_free(be, s->off); hst_backend_free(be, s->perm);
    hst_backend_free(be, s->bin); hst_backend_free(be, s->bin_start);
    hst_backend_free(be, s->sub_bin); hst_backend_free(be, s->sub_first);
    hst_backend_free(be, s->cell_sub);
}

/* The caller's coordinates: float (hst_nufft_set_points) or double (_f64), read as double. */
typedef struct hst__nucoords { const float *const *f32; const double *const *f64; } hst__nucoords;

static double hst__nu_coord(hst__nucoords c, unsigned d, size_t j) {
    return c.f64 ? c.f64[d][j] : (double)c.f32[d][j];
}

/* Checks every coordinate: finite, within [-3 pi, 3 pi]. */
static hst_result hst__nu_check_coords(const hst_nufft_plan *p, size_t m, hst__nucoords coords) {
    static const char *F = "hst_nufft_set_points";
    unsigned d;
    size_t j;
    for (d = 0; d < p->dim; d++)
        for (j = 0; j < m; j++) {
            double x = hst__nu_coord(coords, d, j);
            if (!isfinite(x))
                return hst_backend_fail(p->be, HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE, F,
                                        "coords[%u][%zu] is %g", d, j, x);
            if (fabs(x) > 3.0 * HST__NU_PI)
                return hst__range_arg(p->be, F, "coords[%u][%zu] = %g is outside [-3 pi, 3 pi]", d, j, x);
        }
    return HST_SUCCESS;
}

/* Point j's grid position along axis a (fine-grid units, folded into [0, nf)): its first tap
   (base), the offset base - s (in double: a c64 plan rounds it to float), and its bin. */
static int hst__nu_locate(const hst_nufft_plan *p, unsigned a, double x, int32_t *base, double *off) {
    double nf = (double)p->nf[a], s = x * (nf / (2.0 * HST__NU_PI)), i0;
    while (s < 0.0) s += nf;
    while (s >= nf) s -= nf;
    i0 = ceil(s - p->g[9 + a] / 2.0);
    *base = (int32_t)i0;
    *off = i0 - s;
    return (int)floor(s) / p->g[3 + a];
}

/* Bins, counting sort (stable: within a bin, the caller's order), subproblems, cells. */
static hst_result hst__nu_sort(const hst_nufft_plan *p, size_t m, hst__nucoords coords,
                               hst__nusort *s) {
    unsigned lead = 3 - p->dim, a, cells = (unsigned)p->g[6 + lead] * hst__nu_cells_b(p);
    size_t j, b, nb = p->nbins, per_cell = nb / cells;
    uint32_t maxsub = (uint32_t)p->g[15];
    const hst_backend *be = p->be;
    memset(s, 0, sizeof *s);
    s->base = (int32_t *)hst_backend_alloc(be, 3 * m * sizeof(int32_t));
    s->off = hst_backend_alloc(be, 3 * m * p->real);
    s->perm = (uint32_t *)hst_backend_alloc(be, m * sizeof(uint32_t));
    s->bin = (uint32_t *)hst_backend_alloc(be, m * sizeof(uint32_t));
    s->bin_start = (uint32_t *)hst_backend_calloc(be, (nb + 1) * sizeof(uint32_t));
    s->cell_sub = (uint32_t *)hst_backend_alloc(be, (cells + 1) * sizeof(uint32_t));
    if (!s->base || !s->off || !s->perm || !s->bin || !s->bin_start || !s->cell_sub)
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (j = 0; j < m; j++) {   /* bins, counted */
        size_t bin = 0;
        for (a = 0; a < 3; a++) {
            int32_t bs;
            double of;
            int k = a >= lead ? hst__nu_locate(p, a, hst__nu_coord(coords, a - lead, j), &bs, &of) : 0;
            bin = bin * (size_t)p->g[6 + a] + (size_t)k;
        }
        s->bin[j] = (uint32_t)bin;
        s->bin_start[bin + 1]++;
    }
    for (b = 0; b < nb; b++) s->bin_start[b + 1] += s->bin_start[b];
    for (j = 0; j < m; j++) {   /* scatter: perm, then each sorted point's base and off */
        uint32_t at = s->bin_start[s->bin[j]]++;
        s->perm[at] = (uint32_t)j;
    }
    for (b = nb; b > 0; b--) s->bin_start[b] = s->bin_start[b - 1];
    s->bin_start[0] = 0;
    for (j = 0; j < m; j++)
        for (a = 0; a < 3; a++) {
            double of = 0.0;
            s->base[a * m + j] = 0;
            if (a >= lead) hst__nu_locate(p, a, hst__nu_coord(coords, a - lead, s->perm[j]), &s->base[a * m + j], &of);
            if (p->f64) ((double *)s->off)[a * m + j] = of;
            else ((float *)s->off)[a * m + j] = (float)of;
        }
    for (b = 0; b < nb; b++)
        s->nsub += (s->bin_start[b + 1] - s->bin_start[b] + (size_t)maxsub - 1) / maxsub;
    s->sub_bin = (uint32_t *)hst_backend_alloc(be, (s->nsub ? s->nsub : 1) * sizeof(uint32_t));
    s->sub_first = (uint32_t *)hst_backend_alloc(be, (s->nsub ? s->nsub : 1) * sizeof(uint32_t));
    if (!s->sub_bin || !s->sub_first) return HST_ERROR_OUT_OF_HOST_MEMORY;
    s->nsub = 0;
    for (b = 0; b < nb; b++) {   /* subproblems in bin order; cells: bins per_cell at a time */
        uint32_t f;
        if (b % per_cell == 0) s->cell_sub[b / per_cell] = (uint32_t)s->nsub;
        for (f = s->bin_start[b]; f < s->bin_start[b + 1]; f += maxsub) {
            s->sub_bin[s->nsub] = (uint32_t)b;
            s->sub_first[s->nsub++] = f;
        }
    }
    s->cell_sub[cells] = (uint32_t)s->nsub;
    
    return HST_SUCCESS;
}

/* The sorted points onto the device (arrays of the plan's backend). */
static hst_result hst__nu_upload(hst_nufft_plan *p, size_t m, const hst__nusort *s) {
    size_t n3 = 3 * m, nb1 = p->nbins + 1, ns = s->nsub;
    hst_result r = hst_array_from_host(p->be, HST_I32, 1, &n3, s->base, &p->base);
    if (r == HST_SUCCESS) r = hst_array_from_host(p->be, p->rdt, 1, &n3, s->off, &p->off);
    if (r == HST_SUCCESS) r = hst_array_from_host(p->be, HST_I32, 1, &m, s->perm, &p->perm);
    if (r == HST_SUCCESS && p->type == 1) {
        r = hst_array_from_host(p->be, HST_I32, 1, &ns, s->sub_bin, &p->sub_bin);
        if (r == HST_SUCCESS) r = hst_array_from_host(p->be, HST_I32, 1, &ns, s->sub_first, &p->sub_first);
        if (r == HST_SUCCESS) r = hst_array_from_host(p->be, HST_I32, 1, &nb1, s->bin_start, &p->bin_start);
    }
    return r;
}

/* set_points and set_points_f64: coords' real type apart, one function. */
static hst_result hst__nu_set_points(hst_nufft_plan *p, size_t m, hst__nucoords coords) {
    static const char *F = "hst_nufft_set_points";
    hst_nufft_plan old;
    hst__nusort s;
    hst_result r;
    unsigned d;
    if (!p) return hst__null_arg(NULL, F, "plan is NULL");
    if (!coords.f32 && !coords.f64) return hst__null_arg(p->be, F, "coords is NULL");
    for (d = 0; d < p->dim; d++)
        if (coords.f64 ? !coords.f64[d] : !coords.f32[d]) return hst__null_arg(p->be, F, "coords[%u] is NULL", d);
    if (m == 0) return hst__zero_arg(p->be, F, "m is 0");
    if (m > HST__NU_MAX_ELEMS / 3)
        return hst_backend_fail(p->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F, "m = %zu points: at "
                                "most %u", m, HST__NU_MAX_ELEMS / 3);
    if ((r = hst__nu_check_coords(p, m, coords)) != HST_SUCCESS) return r;
    old = *p;   /* the previous points stay until the new ones are on the device */
    p->base = p->off = p->perm = p->sub_bin = p->sub_first = p->bin_start = NULL;
    p->cell_sub = NULL;
    r = hst__nu_sort(p, m, coords, &s);
    if (r == HST_SUCCESS) r = hst__nu_upload(p, m, &s);
    if (r == HST_SUCCESS) {
        p->cell_sub = s.cell_sub;
        s.cell_sub = NULL;
        p->m = m;
        p->nsub = s.nsub;
    }
    hst__nu_sort_free(p->be, &s);
    if (r != HST_SUCCESS) {
        hst__nu_free_points(p);
        p->base = old.base; p->off = old.off; p->perm = old.perm; p->sub_bin = old.sub_bin;
        p->sub_first = old.sub_first; p->bin_start = old.bin_start; p->cell_sub = old.cell_sub;
        p->m = old.m; p->nsub = old.nsub;
        return r;
    }
    hst__nu_free_points(&old);
    return HST_SUCCESS;
}

HST__NUDEF hst_result hst_nufft_set_points(hst_nufft_plan *p, size_t m, const float *const *coords) {
    hst__nucoords c;
    c.f32 = coords;
    c.f64 = NULL;
    return hst__nu_set_points(p, m, c);
}

HST__NUDEF hst_result hst_nufft_set_points_f64(hst_nufft_plan *p, size_t m, const double *const *coords) {
    hst__nucoords c;
    c.f32 = NULL;
    c.f64 = coords;
    return hst__nu_set_points(p, m, c);
}

/* >>execute ---------------------------------------------------------------------------------- */
static hst_result hst__nu_check_exec(const hst_nufft_plan *p, const hst_array *c, const hst_array *f) {
    static const char *F = "hst_nufft_execute";
    const size_t *fs, *cs;
    unsigned d, lead = p->n_trans > 1;   /* the batch's axis */
    if (!c || !f) return hst__null_arg(p->be, F, "%s is NULL", !c ? "c" : "f");
    if (!p->m) return hst__state_arg(p->be, F, "no points: call hst_nufft_set_points first");
    if (hst_array_dtype(c) != p->dt || hst_array_dtype(f) != p->dt)
        return hst_backend_fail(p->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "%s must be %s (the plan's "
                                "desc.dtype)", hst_array_dtype(c) != p->dt ? "c" : "f", hst_dtype_name(p->dt));
    fs = hst_array_shape(f);
    cs = hst_array_shape(c);
    if (hst_buffer_backend(hst_array_buffer(c)) != p->be || hst_buffer_backend(hst_array_buffer(f)) != p->be)
        return hst_backend_fail(p->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F, "c or f is another backend's");
    if (hst_array_ndim(c) != 1 + lead || cs[lead] != p->m || (lead && cs[0] != p->n_trans))
        return hst_backend_fail(p->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F, "c must have shape "
                                "(%s%zu): n_trans %zu, the points set", lead ? "n_trans, " : "", p->m, p->n_trans);
    for (d = 0; d < p->dim && hst_array_ndim(f) == p->dim + lead; d++)
        if (fs[lead + d] != (size_t)p->nm[3 - p->dim + d]) break;
    if (hst_array_ndim(f) != p->dim + lead || d != p->dim || (lead && fs[0] != p->n_trans))
        return hst_backend_fail(p->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F, "f must have the "
                                "plan's modes as its shape (%s%u axes)", lead ? "n_trans, then " : "", p->dim);
    return HST_SUCCESS;
}

/* The fine grid's FFT, in place, unnormalised, with the plan's sign. */
static hst_result hst__nu_fft(hst_nufft_plan *p) {
    return p->isign > 0 ? hst_array_fft(p->grid, p->grid, p->dim, 1, HST_FFT_NORM_FORWARD)
                        : hst_array_fft(p->grid, p->grid, p->dim, 0, HST_FFT_NORM_BACKWARD);
}

/* One vector: c's from cofs, f's from fofs (complex elements). */
static hst_result hst__nu_type1(hst_nufft_plan *p, hst_array *c, size_t cofs, hst_array *f, size_t fofs) {
    hst_result r = hst_array_zeros(p->grid);
    if (r == HST_SUCCESS) r = hst__nu_spread(p, c, cofs);
    if (r == HST_SUCCESS) r = hst__nu_fft(p);
    return r == HST_SUCCESS ? hst__nu_modes(p, HST_KNUFFT_TO_MODES, f, fofs) : r;
}

static hst_result hst__nu_type2(hst_nufft_plan *p, hst_array *c, size_t cofs, hst_array *f, size_t fofs) {
    hst_result r = hst__nu_modes(p, HST_KNUFFT_TO_GRID, f, fofs);
    if (r == HST_SUCCESS) r = hst__nu_fft(p);
    return r == HST_SUCCESS ? hst__nu_interp(p, c, cofs) : r;
}

/* The batch vector by vector through the one fine grid (FINUFFT batches several grids per FFT;
   here every vector is a single execute's arithmetic, in order on the queue). */
HST__NUDEF hst_result hst_nufft_execute(hst_nufft_plan *p, hst_array *c, hst_array *f) {
    size_t modes, k;
    hst_result r;
    if (!p) return hst__null_arg(NULL, "hst_nufft_execute", "plan is NULL");
    if ((r = hst__nu_check_exec(p, c, f)) != HST_SUCCESS) return r;
    modes = (size_t)p->nm[0] * (size_t)p->nm[1] * (size_t)p->nm[2];
    for (k = 0; k < p->n_trans && r == HST_SUCCESS; k++)
        r = p->type == 1 ? hst__nu_type1(p, c, k * p->m, f, k * modes)
                         : hst__nu_type2(p, c, k * p->m, f, k * modes);
    return r;
}

#ifdef __cplusplus
}
#endif

#endif /* HST_NUFFT_IMPLEMENTATION */

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
