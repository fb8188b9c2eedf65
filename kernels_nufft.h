/* kernels_nufft.h — the NUFFT program: non-uniform FFTs of type 1 and 2 (FINUFFT's algorithm): its OpenCL C 1.2 sources as string literals, its host C twins
   (the same semantics; bit for bit where stated) and its kernels' declarations. One of the
   kernel families of kernels.h's design, included by nufft.h (which launches them) and by tests;
   a program that does not include nufft.h compiles none of it. Single-file, header-only, C99
   (and C++); HST_IMPLEMENTATION (or HST_KERNELS_NUFFT_IMPLEMENTATION, which nufft.h's
   implementation defines) compiles the body, as for every halostream header. kernels.h
   explains the conventions every family keeps (FP contraction off, pieces of at most 4095
   characters, thread safety).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST__NU_TWIN_PASS
#ifndef HST_KERNELS_NUFFT_H
#define HST_KERNELS_NUFFT_H

#include "backend.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_NUFFT_IMPLEMENTATION)
#  define HST_KERNELS_NUFFT_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>nufft kernels */

/* The NUFFT program: nufft.h's non-uniform FFTs of type 1 and 2 in 2-D and 3-D (FINUFFT's
   algorithm: Barnett, Magland & af Klinteberg, SIAM J. Sci. Comput. 41(5), 2019; spreading by
   bins and subproblems as cuFINUFFT: Shih et al., IPDPSW 2021). Every grid is 3-D, C order
   (nf0, nf1, nf2): a 2-D problem has nf0 = 1 and width 1 along axis 0. Complex values are
   interleaved (re, im) pairs of the program's real type: float (OpenCL float2, c64), or
   double (double2, c128) with -D HST_NU_F64. Build options: -D HST_NU_W0=w0 -D HST_NU_W=w
   (the kernel widths along axis 0 and along axes 1 and 2, 1 <= w <= L, L the lanes:
   HST_K_NUFFT_LANES = 8 in float, HST_K_NUFFT_LANES_F64 = 16 in double), -D HST_NU_DEG=deg
   (the kernel polynomials' degree) and -D HST_NU_F64 (double: the device needs cl_khr_fp64
   and cl_khr_int64_base_atomics, whose 64-bit compare-and-swap makes spread's atomic adds):
   the loops over the taps have constant bounds, so a device keeps its accumulators in
   registers. Below, "real" is float or double and L the lanes of the build; every array
   named float in float is double in double (off, c, grid, tile, coef, corr).

   Points are sorted by bin (nufft.h's set_points); sorted point j of m has, per axis d, the
   first grid index its kernel touches, base[d m + j] (in [-w/2, nf_d): the taps wrap around
   the periodic grid), and off[d m + j] = base - s (s: the point's position in grid units,
   off in [-w/2, -w/2 + 1)); perm[j] is its index in the caller's order. The kernel's values
   at the w taps of an axis come from its piecewise polynomial (FINUFFT's Horner evaluation of
   the ES kernel, nufft.h fits it): with z = 2 off + w - 1 in [-1, 1), tap t's value is
   sum_k coef[k L + t] z^(deg - k), by Horner's rule (one multiply, then one add, per k);
   coef holds three axes' tables of (deg + 1) x L reals (L columns, the taps past w zero),
   axis a's at coef + a (deg + 1) L.
   The geometry g (16 ints, OpenCL int16): nf0..2 (s0-s2), bin extents (s3-s5), bins per axis
   (s6-s8), widths (s9-sb), pads (sc-se: ceil(w / 2)), points per subproblem at most (sf).
   Modes (nm0, nm1, nm2) in NumPy /
   FINUFFT modeord-0 order: index i along an axis of nm modes is frequency i - nm / 2; corr
   holds 1 / phihat per mode index, axis 0's nm0 values, then axis 1's, then axis 2's.

     kernel (HST_NUFFT_KERNELS)  arguments                                            global (1-D)
     hst_k_nufft_spread      base, off, perm, c, sub_bin, sub_first, bin_start, grid,  nsub x local
                             __local tile, uint m, int16 g, coef, ulong cofs
     hst_k_nufft_interp      base, off, perm, grid, c, uint m, int16 g, coef, ulong cofs  m
     hst_k_nufft_to_modes    grid, f, corr, int4 nf, int4 nm, ulong fofs              nm0 nm1 nm2
     hst_k_nufft_to_grid     f, grid, corr, int4 nf, int4 nm, ulong fofs              nf0 nf1 nf2
     hst_k_nufft_spread_gm   base, off, perm, c, grid, uint m, int16 g, coef, ulong cofs  m
     hst_k_nufft_interp_lanes  interp's                                                 m L
     hst_k_nufft_spread_lanes  spread's                                                 nsub x G

   cofs and fofs: the vector's first element in c and f (complex elements; nufft.h's batches of
   n_trans vectors: vector k at k m and at k nm0 nm1 nm2); the kernels read and write c + cofs,
   f + fofs as the single vector (the twins below take those pointers).

   spread: work-group s spreads subproblem s (points sub_first[s] .. min(sub_first[s] + g.sf,
   bin_start[bin + 1]) of bin sub_bin[s]) into a local tile (the bin padded by pad on each
   side: (b0 + 2 p0)(b1 + 2 p1)(b2 + 2 p2) float2, zeroed first) with atomic float adds
   (compare-and-swap loops), then adds the tile's non-zero values into the periodic grid with
   atomic adds: the order of the additions, hence the last bits, varies from run to run.
   Each tap adds (c.re k2[t]) (k0[a] k1[b]) and (c.im k2[t]) (k0[a] k1[b]).
   spread_gm (cuFINUFFT's GM-sort method, for tiles beyond the device's local memory): work-item
   j adds sorted point j's taps straight into the periodic grid with atomic adds, rows (a, b)
   in order, taps t in order, each tap's value as spread's.
   interp: c[perm[j]] = sum over the taps, rows (a, b) in order accumulating the 2 w2 floats
   of a row times k0[a] k1[b], then the row's taps t in order times k2[t]. No atomics.
   interp_lanes (for GPUs: a row's taps read side by side, where a work-item a point makes each
   load touch as many rows as the warp has points): interp with L work-items a point (L the
   lanes below, HST_NU_L: work-item i is point i / L's tap i % L along axis 2), work-groups of
   HST_K_NUFFT_INTERP_GROUP; a lane sums its tap's column over the rows in interp's order, then
   the point's first lane adds the products with k2[t] in t's order: interp's bits.
   spread_lanes (for GPUs: a warp's atomic adds of a row's taps fall on neighbouring words of
   the tile, not on words a point apart): spread with L work-items a point (work-item i of a
   group: point i / L of each G / L, its tap i % L along axis 2), work-groups of G =
   HST_K_NUFFT_SPREAD_GROUP; each tap's value as spread's. Its twin is spread's.
   to_modes: f[i] = grid[fine index of mode i] (corr0[i0] corr1[i1]) corr2[i2] (type 1's
   deconvolution and truncation); to_grid: grid = f placed at the modes' fine indices times the
   same factors, 0 elsewhere (type 2's). Each bound-checks its global id; the modes' kernels
   write each element once.

   The host twins below take the same arguments, with deg, (the twin of spread runs
   subproblems [sub0, sub1) one after another into the caller's tile of 2 (b0 + 2 p0)
   (b1 + 2 p1)(b2 + 2 p2) + 2 L reals, with plain adds; interp's runs sorted points [j0, j1),
   spread_gm's too, with plain adds: one thread at a time) and do the same real operations in
   the same order for every value they return, so type 2 gives the same bits on every device,
   type 1 the same up to the order of the atomic adds (spread's twin adds a tile's zeros too:
   the same bits). Spreading's and interpolation's loops are built three times on x86-64 with
   gcc or clang (portable, AVX2, AVX-512: the widest the CPU runs, chosen at run time, the same
   bits; see below). For SIMD, the twins compute L taps per
   row whatever w (8 in double where w <= 8; the extra taps have zero weights): spread's extra
   adds of 0 leave the tile unchanged, and interp reads up to L complex values past a row's w
   taps, so its grid must
   have that many readable complex values after its end (nufft.h allocates them).
   Sizes: m < 2^31, grids below 2^31 elements (nufft.h checks): the kernels index grids by
   int, their reals by size_t.

   Launched as declared kernels (backend.h's hst_launch_kernel, family
   hst_kernels_nufft_family(), the build options above), the twins run over the launched
   range: spread's (and spread_lanes'), subproblems [offset / G, ceil((offset + global) / G)) with G = range.local
   (1 when 0: a work-group per work-item), its __local tile then the host's scratch, which must
   hold the twin's tile (L complex reals more than the kernel's); interp's, sorted points
   [offset, min(offset + global, m)), spread_gm's likewise, interp_lanes' the points whose lanes
   the range holds; to_modes' and to_grid's, the elements [offset, min(offset + global, n)) of
   what they write (n its elements). deg is
   HST_K_NUFFT_DEGREE of the width g.sa, as the build option must be. The c128 kernels are
   the _F64 ids: the same kernels built with -D HST_NU_F64, their twins the _f64 functions
   (the same code over double and 16 lanes: kernels_nufft.h instantiates it twice; the hot
   part six times: per real type, portable, AVX2 and AVX-512). */
#define HST_K_NUFFT_LANES 8        /* float: taps per axis at most, and the twins' SIMD width */
#define HST_K_NUFFT_LANES_F64 16   /* double: likewise (FINUFFT's widest kernel, MAX_NSPREAD) */
/* The lanes kernels' work-groups (their points times their lanes), the fastest measured on an
   H100 (c64 eps 1e-6, 10^6 points: interp_lanes 3-D 0.43 ms at 256, 0.56 at 128 and 64;
   spread_lanes 3-D 2.47 ms at 128, 2.72 at 256, 3.35 at 64; c128 2-D 0.65, 0.83, 0.98). */
#define HST_K_NUFFT_INTERP_GROUP 256
#define HST_K_NUFFT_SPREAD_GROUP 128
/* The kernel polynomials' degree for width w: w + 3 keeps the fit's error below a tenth of
   eps at every width nufft.h offers, in float and in double (FINUFFT's Horner tables at
   upsampling 2 use about as many). */
#define HST_K_NUFFT_DEGREE(w) ((w) + 3)

/* The family's kernels: X(id, name, signature, twin adapter), in the source's parameter order. */
#define HST_NUFFT_KERNELS(X) \
    X(HST_KNUFFT_SPREAD, hst_k_nufft_spread, \
      "global global global global global global global global local uint value global ulong", \
      hst__kt_nufft_spread) \
    X(HST_KNUFFT_INTERP, hst_k_nufft_interp, "global global global global global uint value global ulong", \
      hst__kt_nufft_interp) \
    X(HST_KNUFFT_TO_MODES, hst_k_nufft_to_modes, "global global global value value ulong", \
      hst__kt_nufft_to_modes) \
    X(HST_KNUFFT_TO_GRID, hst_k_nufft_to_grid, "global global global value value ulong", hst__kt_nufft_to_grid) \
    X(HST_KNUFFT_SPREAD_GM, hst_k_nufft_spread_gm, "global global global global global uint value global ulong", \
      hst__kt_nufft_spread_gm) \
    X(HST_KNUFFT_INTERP_LANES, hst_k_nufft_interp_lanes, "global global global global global uint value global ulong", \
      hst__kt_nufft_interp_lanes) \
    X(HST_KNUFFT_SPREAD_LANES, hst_k_nufft_spread_lanes, \
      "global global global global global global global global local uint value global ulong", hst__kt_nufft_spread) \
    X(HST_KNUFFT_SPREAD_F64, hst_k_nufft_spread, \
      "global global global global global global global global local uint value global ulong", \
      hst__kt_nufft_spread_f64) \
    X(HST_KNUFFT_INTERP_F64, hst_k_nufft_interp, \
      "global global global global global uint value global ulong", hst__kt_nufft_interp_f64) \
    X(HST_KNUFFT_TO_MODES_F64, hst_k_nufft_to_modes, "global global global value value ulong", \
      hst__kt_nufft_to_modes_f64) \
    X(HST_KNUFFT_TO_GRID_F64, hst_k_nufft_to_grid, "global global global value value ulong", \
      hst__kt_nufft_to_grid_f64) \
    X(HST_KNUFFT_SPREAD_GM_F64, hst_k_nufft_spread_gm, \
      "global global global global global uint value global ulong", hst__kt_nufft_spread_gm_f64) \
    X(HST_KNUFFT_INTERP_LANES_F64, hst_k_nufft_interp_lanes, \
      "global global global global global uint value global ulong", hst__kt_nufft_interp_lanes_f64) \
    X(HST_KNUFFT_SPREAD_LANES_F64, hst_k_nufft_spread_lanes, \
      "global global global global global global global global local uint value global ulong", \
      hst__kt_nufft_spread_f64)
enum { HST_NUFFT_KERNELS(HST_KERNEL_ID) HST_KNUFFT_COUNT };
/* A c64 kernel's c128 twin id: id + HST_KNUFFT_F64 (the rows above, in the same order). */
#define HST_KNUFFT_F64 (HST_KNUFFT_SPREAD_F64 - HST_KNUFFT_SPREAD)

/* The NUFFT program's source pieces (static storage), as hst_kernels_vocab_source.
   Thread-safe. */
HST_API const char *const *hst_kernels_nufft_source(size_t *count);
/* The NUFFT family: its source, the kernels of HST_NUFFT_KERNELS and their twins (static
   storage). Thread-safe. */
HST_API const hst_kernel_family *hst_kernels_nufft_family(void);

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
/* Type 1's last step: f (nm0, nm1, nm2) c64 from grid (nf0, nf1, nf2), f's elements [i0, i1)
   (C order). nf, nm: 4 ints (the fourth unused). Thread-safe (disjoint ranges). */
HST_API void hst_k_nufft_to_modes_host(const float *grid, float *f, const float *corr,
                                       const int32_t nf[4], const int32_t nm[4], size_t i0, size_t i1);
/* Type 2's first step: grid (nf0, nf1, nf2) c64 from f (nm0, nm1, nm2), the grid's elements
   [i0, i1). Thread-safe (disjoint ranges). */
HST_API void hst_k_nufft_to_grid_host(const float *f, float *grid, const float *corr,
                                      const int32_t nf[4], const int32_t nm[4], size_t i0, size_t i1);
/* Type 1's global-memory spreading (spread_gm) of sorted points [j0, j1) into grid, plain adds
   (one thread at a time on a grid). */
HST_API void hst_k_nufft_spread_gm_host(const int32_t *base, const float *off, const uint32_t *perm,
                                        const float *c, float *grid, uint32_t m, const int32_t g[16],
                                        const float *coef, int deg, uint32_t j0, uint32_t j1);
/* The c128 twins (the _F64 kernels): the five above in double, with HST_K_NUFFT_LANES_F64
   lanes (tile: HST_K_NUFFT_LANES_F64 complex doubles more; grid readable that many past its
   end). */
HST_API void hst_k_nufft_spread_host_f64(const int32_t *base, const double *off, const uint32_t *perm,
                                         const double *c, const uint32_t *sub_bin,
                                         const uint32_t *sub_first, const uint32_t *bin_start,
                                         double *grid, double *tile, uint32_t m, const int32_t g[16],
                                         const double *coef, int deg, uint32_t sub0, uint32_t sub1);
HST_API void hst_k_nufft_interp_host_f64(const int32_t *base, const double *off, const uint32_t *perm,
                                         const double *grid, double *c, uint32_t m, const int32_t g[16],
                                         const double *coef, int deg, uint32_t j0, uint32_t j1);
HST_API void hst_k_nufft_to_modes_host_f64(const double *grid, double *f, const double *corr,
                                           const int32_t nf[4], const int32_t nm[4], size_t i0, size_t i1);
HST_API void hst_k_nufft_to_grid_host_f64(const double *f, double *grid, const double *corr,
                                          const int32_t nf[4], const int32_t nm[4], size_t i0, size_t i1);
HST_API void hst_k_nufft_spread_gm_host_f64(const int32_t *base, const double *off, const uint32_t *perm,
                                            const double *c, double *grid, uint32_t m, const int32_t g[16],
                                            const double *coef, int deg, uint32_t j0, uint32_t j1);


/* <<nufft kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_NUFFT_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_NUFFT_IMPLEMENTATION) && !defined(HST__KERNELS_NUFFT_IMPLEMENTATION_DONE)
#define HST__KERNELS_NUFFT_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>

HST__KERNELS_FP_BEGIN

/* >>nufft kernels */

/* The NUFFT program (see the declarations): pieces of at most 4095 characters, checked below.
   OpenCL C, one source line per literal line; the host twins below follow it line by line. */
static const char hst__nufft_src_types[] =
"/* halostream nufft program (kernels.h): -D HST_NU_W0=w0 -D HST_NU_W=w -D HST_NU_DEG=d\n"
"   [-D HST_NU_F64] */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"/* the real type, its complex pair, the lanes of coef, atomic adds by compare-and-swap */\n"
"#ifdef HST_NU_F64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
"typedef double hst_nu_r;\n"
"typedef double2 hst_nu_r2;\n"
"#define HST_NU_L 16\n"
"void hst_nu_add_local(volatile __local double *p, double v) {\n"
"    ulong old = as_ulong(*p), seen;\n"
"    while ((seen = atom_cmpxchg((volatile __local ulong *)p, old,\n"
"                                as_ulong(as_double(old) + v))) != old) old = seen;\n"
"}\n"
"void hst_nu_add_global(volatile __global double *p, double v) {\n"
"    ulong old = as_ulong(*p), seen;\n"
"    while ((seen = atom_cmpxchg((volatile __global ulong *)p, old,\n"
"                                as_ulong(as_double(old) + v))) != old) old = seen;\n"
"}\n"
"#else\n"
"typedef float hst_nu_r;\n"
"typedef float2 hst_nu_r2;\n"
"#define HST_NU_L 8\n"
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
"#endif\n";

static const char hst__nufft_src_common[] =
"/* the kernel's tap t of w from its polynomials (Horner in z = 2 off + w - 1), and all w */\n"
"hst_nu_r hst_nu_tap(__global const hst_nu_r *coef, hst_nu_r off, int w, int t) {\n"
"    hst_nu_r z = 2.0f * off + (hst_nu_r)(w - 1), p = coef[t];\n"
"    for (int k = 1; k <= HST_NU_DEG; k++) p = p * z + coef[k * HST_NU_L + t];\n"
"    return p;\n"
"}\n"
"void hst_nu_taps(__global const hst_nu_r *coef, hst_nu_r off, int w, hst_nu_r *v) {\n"
"    for (int t = 0; t < w; t++) v[t] = hst_nu_tap(coef, off, w, t);\n"
"}\n"
"/* x mod n for x in [-n, 2 n) (interp), and for any x (a tile's flush) */\n"
"int hst_nu_wrap(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }\n"
"int hst_nu_mod(int x, int n) { int r = x % n; return r < 0 ? r + n : r; }\n"
"/* a mode's fine index along an axis (modeord 0: index i is frequency i - nm / 2) */\n"
"int hst_nu_fine(int i, int nm, int nf) { int k = i - nm / 2; return k < 0 ? k + nf : k; }\n"
"/* a fine index's mode index, -1 where the grid holds no mode */\n"
"int hst_nu_mode(int gi, int nm, int nf) {\n"
"    return gi <= (nm - 1) / 2 ? gi + nm / 2 : gi >= nf - nm / 2 ? gi - nf + nm / 2 : -1;\n"
"}\n";

static const char hst__nufft_src_spread[] =
"/* subproblem s: its points [first, return, *last), its tile's origin o (its bin's less the\n"
"   pads) and sizes l (axes 0, 1, 2 in x, y, z), zeroed by the group */\n"
"uint hst_nu_sub(int16 g, __global const uint *sub_bin, __global const uint *sub_first,\n"
"                __global const uint *bin_start, __local hst_nu_r *tile, uint *last, int4 *o, int4 *l) {\n"
"    uint s = get_group_id(0), bin = sub_bin[s];\n"
"    *last = min(sub_first[s] + (uint)g.sf, bin_start[bin + 1]);\n"
"    *o = (int4)((int)bin / (g.s7 * g.s8) * g.s3 - g.sc, (int)bin / g.s8 % g.s7 * g.s4 - g.sd,\n"
"                (int)bin % g.s8 * g.s5 - g.se, 0);\n"
"    *l = (int4)(g.s3 + 2 * g.sc, g.s4 + 2 * g.sd, g.s5 + 2 * g.se, 0);\n"
"    for (int i = get_local_id(0); i < 2 * l->x * l->y * l->z; i += get_local_size(0)) tile[i] = 0.0f;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    return sub_first[s];\n"
"}\n"
"/* the tile added into the periodic grid by the group (its zeros skipped: atomics) */\n"
"void hst_nu_flush(__local const hst_nu_r *tile, __global hst_nu_r *grid, int16 g, int4 o, int4 l) {\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for (int i = get_local_id(0); i < l.x * l.y * l.z; i += get_local_size(0)) {\n"
"        hst_nu_r re = tile[2 * i], im = tile[2 * i + 1];\n"
"        int t0 = i / (l.y * l.z), t1 = i / l.z % l.y, t2 = i % l.z;\n"
"        if (re == 0.0f && im == 0.0f) continue;\n"
"        int gi = (hst_nu_mod(o.x + t0, g.s0) * g.s1 + hst_nu_mod(o.y + t1, g.s1)) * g.s2 + hst_nu_mod(o.z + t2, g.s2);\n"
"        hst_nu_add_global(grid + 2 * (size_t)gi, re);\n"
"        hst_nu_add_global(grid + 2 * (size_t)gi + 1, im);\n"
"    }\n"
"}\n"
"__kernel void hst_k_nufft_spread(__global const int *base, __global const hst_nu_r *off,\n"
"        __global const uint *perm, __global const hst_nu_r2 *c, __global const uint *sub_bin,\n"
"        __global const uint *sub_first, __global const uint *bin_start,\n"
"        __global hst_nu_r *grid, __local hst_nu_r *tile, uint m, int16 g, __global const hst_nu_r *coef,\n"
"        ulong cofs) {\n"
"    uint last, lsz = get_local_size(0);\n"
"    int4 o, l;\n"
"    uint first = hst_nu_sub(g, sub_bin, sub_first, bin_start, tile, &last, &o, &l);\n"
"    hst_nu_r k0[HST_NU_W0], k1[HST_NU_W], k2[HST_NU_W];\n"
"    for (uint j = first + get_local_id(0); j < last; j += lsz) {\n"
"        hst_nu_r2 v = c[cofs + perm[j]];\n"
"        int i0 = base[j] - o.x, i1 = base[m + j] - o.y, i2 = base[2 * m + j] - o.z;\n"
"        hst_nu_taps(coef + 0, off[j], HST_NU_W0, k0);\n"
"        hst_nu_taps(coef + (HST_NU_DEG + 1) * HST_NU_L, off[m + j], HST_NU_W, k1);\n"
"        hst_nu_taps(coef + 2 * (HST_NU_DEG + 1) * HST_NU_L, off[2 * m + j], HST_NU_W, k2);\n"
"        for (int a = 0; a < HST_NU_W0; a++)\n"
"            for (int b = 0; b < HST_NU_W; b++) {\n"
"                hst_nu_r kab = k0[a] * k1[b];\n"
"                __local hst_nu_r *row = tile + 2 * (((i0 + a) * l.y + i1 + b) * l.z + i2);\n"
"                for (int t = 0; t < HST_NU_W; t++) {\n"
"                    hst_nu_add_local(row + 2 * t, (v.x * k2[t]) * kab);\n"
"                    hst_nu_add_local(row + 2 * t + 1, (v.y * k2[t]) * kab);\n"
"                }\n"
"            }\n"
"    }\n"
"    hst_nu_flush(tile, grid, g, o, l);\n"
"}\n";

static const char hst__nufft_src_interp[] =
"__kernel void hst_k_nufft_interp(__global const int *base, __global const hst_nu_r *off,\n"
"        __global const uint *perm, __global const hst_nu_r *grid, __global hst_nu_r2 *c, uint m,\n"
"        int16 g, __global const hst_nu_r *coef, ulong cofs) {\n"
"    uint j = get_global_id(0);\n"
"    hst_nu_r k0[HST_NU_W0], k1[HST_NU_W], k2[HST_NU_W], acc[2 * HST_NU_W];\n"
"    hst_nu_r2 out = (hst_nu_r2)((hst_nu_r)0);\n"
"    int b1, b2, wraps;\n"
"    if (j >= m) return;\n"
"    hst_nu_taps(coef + 0, off[j], HST_NU_W0, k0);\n"
"    hst_nu_taps(coef + (HST_NU_DEG + 1) * HST_NU_L, off[m + j], HST_NU_W, k1);\n"
"    hst_nu_taps(coef + 2 * (HST_NU_DEG + 1) * HST_NU_L, off[2 * m + j], HST_NU_W, k2);\n"
"    b1 = base[m + j]; b2 = base[2 * m + j];\n"
"    wraps = b2 < 0 || b2 + HST_NU_W > g.s2;\n"
"    for (int u = 0; u < 2 * HST_NU_W; u++) acc[u] = 0.0f;\n"
"    for (int a = 0; a < HST_NU_W0; a++)\n"
"        for (int b = 0; b < HST_NU_W; b++) {\n"
"            hst_nu_r kab = k0[a] * k1[b];\n"
"            int row = (hst_nu_wrap(base[j] + a, g.s0) * g.s1 + hst_nu_wrap(b1 + b, g.s1)) * g.s2;\n"
"            if (!wraps) {\n"
"                __global const hst_nu_r *r = grid + 2 * (size_t)(row + b2);\n"
"                for (int u = 0; u < 2 * HST_NU_W; u++) acc[u] += r[u] * kab;\n"
"            } else {\n"
"                for (int u = 0; u < 2 * HST_NU_W; u++)\n"
"                    acc[u] += grid[2 * (size_t)(row + hst_nu_wrap(b2 + u / 2, g.s2)) + u % 2] * kab;\n"
"            }\n"
"        }\n"
"    for (int t = 0; t < HST_NU_W; t++) {\n"
"        out.x += acc[2 * t] * k2[t];\n"
"        out.y += acc[2 * t + 1] * k2[t];\n"
"    }\n"
"    c[cofs + perm[j]] = out;\n"
"}\n";

static const char hst__nufft_src_lanes[] =
"/* interp with HST_NU_L work-items a point, one a tap along axis 2 (GPUs: a row's taps are read\n"
"   side by side); a group's HST_NU_PI points share k0 and k1 through local memory */\n"
"#define HST_NU_PI (" HST__KXSTR(HST_K_NUFFT_INTERP_GROUP) " / HST_NU_L)\n"
"__kernel __attribute__((reqd_work_group_size(" HST__KXSTR(HST_K_NUFFT_INTERP_GROUP) ", 1, 1)))\n"
"void hst_k_nufft_interp_lanes(__global const int *base, __global const hst_nu_r *off,\n"
"        __global const uint *perm, __global const hst_nu_r2 *grid, __global hst_nu_r2 *c, uint m,\n"
"        int16 g, __global const hst_nu_r *coef, ulong cofs) {\n"
"    __local hst_nu_r kk[HST_NU_PI][2][HST_NU_L];\n"
"    __local hst_nu_r2 part[HST_NU_PI][HST_NU_L];\n"
"    uint t = get_local_id(0) % HST_NU_L, q = get_local_id(0) / HST_NU_L;\n"
"    uint j = (uint)(get_global_id(0) / HST_NU_L);\n"
"    int live = j < m;\n"
"    if (live && t < HST_NU_W0) kk[q][0][t] = hst_nu_tap(coef, off[j], HST_NU_W0, (int)t);\n"
"    if (live && t < HST_NU_W)\n"
"        kk[q][1][t] = hst_nu_tap(coef + (HST_NU_DEG + 1) * HST_NU_L, off[m + j], HST_NU_W, (int)t);\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    if (live && t < HST_NU_W) {\n"
"        hst_nu_r k2 = hst_nu_tap(coef + 2 * (HST_NU_DEG + 1) * HST_NU_L, off[2 * m + j], HST_NU_W, (int)t);\n"
"        int col = hst_nu_wrap(base[2 * m + j] + (int)t, g.s2), b0 = base[j], b1 = base[m + j];\n"
"        hst_nu_r2 acc = (hst_nu_r2)((hst_nu_r)0);\n"
"        for (int a = 0; a < HST_NU_W0; a++)\n"
"            for (int b = 0; b < HST_NU_W; b++) {\n"
"                hst_nu_r kab = kk[q][0][a] * kk[q][1][b];\n"
"                int row = (hst_nu_wrap(b0 + a, g.s0) * g.s1 + hst_nu_wrap(b1 + b, g.s1)) * g.s2;\n"
"                hst_nu_r2 v = grid[row + col];\n"
"                acc.x += v.x * kab;\n"
"                acc.y += v.y * kab;\n"
"            }\n"
"        part[q][t] = acc * k2;\n"
"    }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    if (live && t == 0) {\n"
"        hst_nu_r2 out = (hst_nu_r2)((hst_nu_r)0);\n"
"        for (int u = 0; u < HST_NU_W; u++) { out.x += part[q][u].x; out.y += part[q][u].y; }\n"
"        c[cofs + perm[j]] = out;\n"
"    }\n"
"}\n";

static const char hst__nufft_src_spread_lanes[] =
"/* spread with HST_NU_L work-items a point, one a tap along axis 2 (GPUs: a row's taps are\n"
"   added to neighbouring words of the tile, not to words a point apart), HST_NU_PS points at a\n"
"   time, sharing k0 and k1 through local memory */\n"
"#define HST_NU_PS (" HST__KXSTR(HST_K_NUFFT_SPREAD_GROUP) " / HST_NU_L)\n"
"__kernel __attribute__((reqd_work_group_size(" HST__KXSTR(HST_K_NUFFT_SPREAD_GROUP) ", 1, 1)))\n"
"void hst_k_nufft_spread_lanes(__global const int *base, __global const hst_nu_r *off,\n"
"        __global const uint *perm, __global const hst_nu_r2 *c, __global const uint *sub_bin,\n"
"        __global const uint *sub_first, __global const uint *bin_start,\n"
"        __global hst_nu_r *grid, __local hst_nu_r *tile, uint m, int16 g, __global const hst_nu_r *coef,\n"
"        ulong cofs) {\n"
"    __local hst_nu_r kk[HST_NU_PS][2][HST_NU_L];\n"
"    uint t = get_local_id(0) % HST_NU_L, q = get_local_id(0) / HST_NU_L, last;\n"
"    int4 o, l;\n"
"    uint first = hst_nu_sub(g, sub_bin, sub_first, bin_start, tile, &last, &o, &l);\n"
"    for (uint j = first + q; j - q < last; j += HST_NU_PS) {\n"
"        int live = j < last;\n"
"        if (live && t < HST_NU_W0) kk[q][0][t] = hst_nu_tap(coef, off[j], HST_NU_W0, (int)t);\n"
"        if (live && t < HST_NU_W)\n"
"            kk[q][1][t] = hst_nu_tap(coef + (HST_NU_DEG + 1) * HST_NU_L, off[m + j], HST_NU_W, (int)t);\n"
"        barrier(CLK_LOCAL_MEM_FENCE);\n"
"        if (live && t < HST_NU_W) {\n"
"            hst_nu_r2 v = c[cofs + perm[j]];\n"
"            hst_nu_r k2 = hst_nu_tap(coef + 2 * (HST_NU_DEG + 1) * HST_NU_L, off[2 * m + j], HST_NU_W, (int)t);\n"
"            hst_nu_r vx = v.x * k2, vy = v.y * k2;\n"
"            int i0 = base[j] - o.x, i1 = base[m + j] - o.y, i2 = base[2 * m + j] - o.z + (int)t;\n"
"            for (int a = 0; a < HST_NU_W0; a++)\n"
"                for (int b = 0; b < HST_NU_W; b++) {\n"
"                    hst_nu_r kab = kk[q][0][a] * kk[q][1][b];\n"
"                    __local hst_nu_r *x = tile + 2 * (((i0 + a) * l.y + i1 + b) * l.z + i2);\n"
"                    hst_nu_add_local(x, vx * kab);\n"
"                    hst_nu_add_local(x + 1, vy * kab);\n"
"                }\n"
"        }\n"
"        barrier(CLK_LOCAL_MEM_FENCE);   /* kk read: the next points may write it */\n"
"    }\n"
"    hst_nu_flush(tile, grid, g, o, l);\n"
"}\n";

static const char hst__nufft_src_modes[] =
"__kernel void hst_k_nufft_to_modes(__global const hst_nu_r2 *grid, __global hst_nu_r2 *f,\n"
"        __global const hst_nu_r *corr, int4 nf, int4 nm, ulong fofs) {\n"
"    size_t i = get_global_id(0), n12 = (size_t)nm.y * (size_t)nm.z;\n"
"    int i0, i1, i2;\n"
"    if (i >= (size_t)nm.x * n12) return;\n"
"    i0 = (int)(i / n12); i1 = (int)(i / (size_t)nm.z % (size_t)nm.y); i2 = (int)(i % (size_t)nm.z);\n"
"    f[fofs + i] = grid[((size_t)hst_nu_fine(i0, nm.x, nf.x) * (size_t)nf.y\n"
"                 + (size_t)hst_nu_fine(i1, nm.y, nf.y)) * (size_t)nf.z\n"
"                + (size_t)hst_nu_fine(i2, nm.z, nf.z)]\n"
"           * ((corr[i0] * corr[nm.x + i1]) * corr[nm.x + nm.y + i2]);\n"
"}\n"
"__kernel void hst_k_nufft_to_grid(__global const hst_nu_r2 *f, __global hst_nu_r2 *grid,\n"
"        __global const hst_nu_r *corr, int4 nf, int4 nm, ulong fofs) {\n"
"    size_t i = get_global_id(0), n12 = (size_t)nf.y * (size_t)nf.z;\n"
"    int i0, i1, i2;\n"
"    hst_nu_r2 v = (hst_nu_r2)((hst_nu_r)0);\n"
"    if (i >= (size_t)nf.x * n12) return;\n"
"    i0 = hst_nu_mode((int)(i / n12), nm.x, nf.x);\n"
"    i1 = hst_nu_mode((int)(i / (size_t)nf.z % (size_t)nf.y), nm.y, nf.y);\n"
"    i2 = hst_nu_mode((int)(i % (size_t)nf.z), nm.z, nf.z);\n"
"    if (i0 >= 0 && i1 >= 0 && i2 >= 0)\n"
"        v = f[fofs + ((size_t)i0 * (size_t)nm.y + (size_t)i1) * (size_t)nm.z + (size_t)i2]\n"
"            * ((corr[i0] * corr[nm.x + i1]) * corr[nm.x + nm.y + i2]);\n"
"    grid[i] = v;\n"
"}\n";

static const char hst__nufft_src_gm[] =
"__kernel void hst_k_nufft_spread_gm(__global const int *base, __global const hst_nu_r *off,\n"
"        __global const uint *perm, __global const hst_nu_r2 *c, __global hst_nu_r *grid, uint m,\n"
"        int16 g, __global const hst_nu_r *coef, ulong cofs) {\n"
"    uint j = get_global_id(0);\n"
"    hst_nu_r k0[HST_NU_W0], k1[HST_NU_W], k2[HST_NU_W];\n"
"    hst_nu_r2 v;\n"
"    if (j >= m) return;\n"
"    v = c[cofs + perm[j]];\n"
"    hst_nu_taps(coef + 0, off[j], HST_NU_W0, k0);\n"
"    hst_nu_taps(coef + (HST_NU_DEG + 1) * HST_NU_L, off[m + j], HST_NU_W, k1);\n"
"    hst_nu_taps(coef + 2 * (HST_NU_DEG + 1) * HST_NU_L, off[2 * m + j], HST_NU_W, k2);\n"
"    for (int a = 0; a < HST_NU_W0; a++)\n"
"        for (int b = 0; b < HST_NU_W; b++) {\n"
"            hst_nu_r kab = k0[a] * k1[b];\n"
"            int row = (hst_nu_wrap(base[j] + a, g.s0) * g.s1 + hst_nu_wrap(base[m + j] + b, g.s1)) * g.s2;\n"
"            for (int t = 0; t < HST_NU_W; t++) {\n"
"                size_t gi = 2 * (size_t)(row + hst_nu_wrap(base[2 * m + j] + t, g.s2));\n"
"                hst_nu_add_global(grid + gi, (v.x * k2[t]) * kab);\n"
"                hst_nu_add_global(grid + gi + 1, (v.y * k2[t]) * kab);\n"
"            }\n"
"        }\n"
"}\n";

HST__PIECE_FITS(nu_types, hst__nufft_src_types);
HST__PIECE_FITS(nu_common, hst__nufft_src_common);
HST__PIECE_FITS(nu_spread, hst__nufft_src_spread);
HST__PIECE_FITS(nu_interp, hst__nufft_src_interp);
HST__PIECE_FITS(nu_lanes, hst__nufft_src_lanes);
HST__PIECE_FITS(nu_spread_lanes, hst__nufft_src_spread_lanes);
HST__PIECE_FITS(nu_modes, hst__nufft_src_modes);
HST__PIECE_FITS(nu_gm, hst__nufft_src_gm);

static const char *const hst__nufft_src[] = { hst__nufft_src_types, hst__nufft_src_common, hst__nufft_src_spread,
                                              hst__nufft_src_interp, hst__nufft_src_lanes,
                                              hst__nufft_src_spread_lanes, hst__nufft_src_modes, hst__nufft_src_gm };

HST__KDEF const char *const *hst_kernels_nufft_source(size_t *count)
{
    if (count) *count = sizeof hst__nufft_src / sizeof hst__nufft_src[0];
    return hst__nufft_src;
}

/* Points whose values spread's twin gathers before it spreads them: 64 loads in flight hide
   the random reads' cache misses (with the row-wise flush: 463 -> 181 ms for 10^6 points
   on 2 cores, 2-D, w 7). */
#define HST__NU_GATHER 64u
/* Interpolation's results go to the caller's order, each store a cache miss on a large c: the
   twin asks for c's line HST__NU_AHEAD points ahead (gcc and clang: a write prefetch), so the
   misses overlap the points' arithmetic (2-D type 2, 10^6 points, 2 cores: about half the
   time went to those stores; 62 -> 38 ms). Spreading likewise asks for the next gather's
   values while it spreads the current one. */
#define HST__NU_AHEAD 32u
#if defined(__GNUC__)
#  define HST__NU_PREFETCH(p, w) __builtin_prefetch((p), (w), 0)
#else
#  define HST__NU_PREFETCH(p, w) ((void)(p))
#endif

/* The hot loops' vectors: hst__nu_<real><bytes>, 16, 32 or 64 bytes of floats or doubles, each
   build using the width of its registers (HST__NU_VB for a row's taps, HST__NU_TB for a
   kernel's: at most 8 lanes), so that gcc keeps a value in one register and broadcasts a
   scalar with one instruction (a vector wider than the registers, c128's 16 doubles in two
   zmm, had gcc build each broadcast in memory: 8-byte stores, then a 64-byte load that waits
   for them, most of the c128 spreading's time). gcc's and clang's vector types (lane by lane
   IEEE operations, the scalar broadcast: the bits of the scalar loop), or elsewhere structs
   with loops. Moved with memcpy (any alignment). */
#if defined(__GNUC__)
typedef float hst__nu_float16 __attribute__((vector_size(16)));
typedef float hst__nu_float32 __attribute__((vector_size(32)));
typedef float hst__nu_float64 __attribute__((vector_size(64)));
typedef double hst__nu_double16 __attribute__((vector_size(16)));
typedef double hst__nu_double32 __attribute__((vector_size(32)));
typedef double hst__nu_double64 __attribute__((vector_size(64)));
#  define HST__NU_MAC(acc, x, s) ((acc) += (x) * (s))           /* acc + x s, lane by lane */
#  define HST__NU_FMUL(p, z, c) ((p) = (p) * (z) + (c))         /* p z + c (Horner's step) */
#else
typedef struct { float v[4]; } hst__nu_float16;
typedef struct { float v[8]; } hst__nu_float32;
typedef struct { float v[16]; } hst__nu_float64;
typedef struct { double v[2]; } hst__nu_double16;
typedef struct { double v[4]; } hst__nu_double32;
typedef struct { double v[8]; } hst__nu_double64;
#  define HST__NU_MAC(acc, x, s) do {                                                          \
        unsigned u_;                                                                            \
        for (u_ = 0; u_ < sizeof (acc).v / sizeof (acc).v[0]; u_++) (acc).v[u_] += (x).v[u_] * (s); \
    } while (0)
#  define HST__NU_FMUL(p, z, c) do {                                                           \
        unsigned u_;                                                                            \
        for (u_ = 0; u_ < sizeof (p).v / sizeof (p).v[0]; u_++) (p).v[u_] = (p).v[u_] * (z) + (c).v[u_]; \
    } while (0)
#endif
typedef char hst__check_nufft_lanes[(HST_K_NUFFT_LANES == 8 && HST_K_NUFFT_LANES_F64 == 16) ? 1 : -1];

HST__KPRIVATE int hst__nu_wrap(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }
HST__KPRIVATE int hst__nu_mod(int x, int n) { int r = x % n; return r < 0 ? r + n : r; }
HST__KPRIVATE int hst__nu_fine(int i, int nm, int nf) { int k = i - nm / 2; return k < 0 ? k + nf : k; }
HST__KPRIVATE int hst__nu_mode(int gi, int nm, int nf) {
    return gi <= (nm - 1) / 2 ? gi + nm / 2 : gi >= nf - nm / 2 ? gi - nf + nm / 2 : -1;
}

/* Spreading's and interpolation's loops (the twins' hot part) are also built for AVX-512 and
   for AVX2 (gcc or clang on x86-64, as kernels_esrrf.h's twins; HST_NO_CPU_DISPATCH: the
   portable build only), the widest the CPU runs chosen at run time. The same C, without FP
   contraction (kernels.h): every build does the same float operations in the same order, so
   their bits agree; the wide builds keep a row's 8 complex taps in one or two registers
   (on 2 cores of an AMD EPYC with AVX-512: bench/RESULTS.md). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(HST_NO_CPU_DISPATCH)
#  define HST__NU_AVX 1
#  if defined(__clang__)
#    define HST__NU_T512 __attribute__((target("avx512f,avx512vl,avx512dq")))
#  else
#    define HST__NU_T512 __attribute__((target("avx512f,avx512vl,avx512dq,prefer-vector-width=512")))
#  endif
#  define HST__NU_T256 __attribute__((target("avx2")))
/* The widest build the CPU runs: 2 AVX-512 (F, VL, DQ), 1 AVX2, 0 portable. */
HST__KPRIVATE int hst__nu_isa(void) {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        return 2;
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
/* Calls the hot part's fn(args) of the widest build the CPU runs (HST__NU_N's real type). */
#  define HST__NU_BEST(fn, args) do {                                                          \
        switch (hst__nu_isa()) {                                                                \
        case 2: HST__NU_N(fn##_avx512) args; break;                                             \
        case 1: HST__NU_N(fn##_avx2) args; break;                                               \
        default: HST__NU_N(fn) args; break;                                                     \
        }                                                                                       \
    } while (0)
#else
#  define HST__NU_AVX 0
#  define HST__NU_BEST(fn, args) HST__NU_N(fn) args
#endif

/* The host twins, once per real type: kernels_nufft.h includes itself with HST__NU_TWIN_PASS
   (its end holds the twins' code, written over HST__NU_R, the real type, HST__NU_L, the lanes,
   and HST__NU_N, the names): float with HST_K_NUFFT_LANES lanes (the c64 twins), double with
   HST_K_NUFFT_LANES_F64 (the c128 twins, names ending _f64). Per real type the hot part is
   included first for each wide build (HST__NU_HOT_ONLY; HST__NU_T its target attribute,
   HST__NU_H its names: suffix _avx512, _avx2; HST__NU_VB and HST__NU_TB its vectors' bytes),
   then everything, portable. */
#define HST__NU_TWIN_PASS
#if HST__NU_AVX
#  define HST__NU_HOT_ONLY
#  define HST__NU_T HST__NU_T512
#  define HST__NU_H(name) HST__NU_N(name##_avx512)
#  define HST__NU_VB 64
#  define HST__NU_R float
#  define HST__NU_L HST_K_NUFFT_LANES
#  define HST__NU_N(name) name
#  define HST__NU_TB 32
#  include "kernels_nufft.h"
#  undef HST__NU_N
#  define HST__NU_N(name) name##_f64
#  undef HST__NU_R
#  undef HST__NU_L
#  undef HST__NU_TB
#  define HST__NU_R double
#  define HST__NU_L HST_K_NUFFT_LANES_F64
#  define HST__NU_TB 64
#  include "kernels_nufft.h"
#  undef HST__NU_T
#  undef HST__NU_H
#  undef HST__NU_VB
#  undef HST__NU_TB
#  define HST__NU_T HST__NU_T256
#  define HST__NU_H(name) HST__NU_N(name##_avx2)
#  define HST__NU_VB 32
#  define HST__NU_TB 32
#  include "kernels_nufft.h"
#  undef HST__NU_N
#  define HST__NU_N(name) name
#  undef HST__NU_R
#  undef HST__NU_L
#  define HST__NU_R float
#  define HST__NU_L HST_K_NUFFT_LANES
#  include "kernels_nufft.h"
#  undef HST__NU_T
#  undef HST__NU_H
#  undef HST__NU_R
#  undef HST__NU_L
#  undef HST__NU_N
#  undef HST__NU_VB
#  undef HST__NU_TB
#  undef HST__NU_HOT_ONLY
#endif
#define HST__NU_T
#define HST__NU_H(name) HST__NU_N(name)
#define HST__NU_VB 16   /* the portable build: SSE2's and NEON's width */
#define HST__NU_TB 16
#define HST__NU_R float
#define HST__NU_L HST_K_NUFFT_LANES
#define HST__NU_N(name) name
#include "kernels_nufft.h"
#undef HST__NU_R
#undef HST__NU_L
#undef HST__NU_N
#define HST__NU_R double
#define HST__NU_L HST_K_NUFFT_LANES_F64
#define HST__NU_N(name) name##_f64
#include "kernels_nufft.h"
#undef HST__NU_R
#undef HST__NU_L
#undef HST__NU_N
#undef HST__NU_VB
#undef HST__NU_TB
#undef HST__NU_T
#undef HST__NU_H
#undef HST__NU_TWIN_PASS

/* nufft.h finds a c128 kernel at its c64 id + HST_KNUFFT_F64. */
typedef char hst__check_nufft_f64_ids[(HST_KNUFFT_SPREAD_GM_F64 - HST_KNUFFT_SPREAD_GM == HST_KNUFFT_F64 &&
                                       HST_KNUFFT_COUNT == 2 * HST_KNUFFT_F64) ? 1 : -1];
static const hst_kernel_decl hst__nufft_decls[HST_KNUFFT_COUNT] = { HST_NUFFT_KERNELS(HST_KERNEL_DECL) };
static const hst_kernel_family hst__nufft_family = { "nufft", hst_kernels_nufft_source, hst__nufft_decls,
                                                     HST_KNUFFT_COUNT };

HST__KDEF const hst_kernel_family *hst_kernels_nufft_family(void) { return &hst__nufft_family; }

/* <<nufft kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_NUFFT_IMPLEMENTATION */

#else /* HST__NU_TWIN_PASS: the host twins over HST__NU_R, HST__NU_L, HST__NU_N (see above) */

/* The taps: c128's second 8 of its 16 lanes only where the width needs them (HST__NU_WIDE: w >
   8). A row of w complex taps: its 2 w reals rounded up to whole vectors (HST__NU_VN: NR reals
   each), the lanes past w zero; skipping the rest, which are zero too, leaves the results'
   bits as they are. The tap polynomials: HST__NU_VT, TN reals each. */
#if HST__NU_L == 8
#  define HST__NU_WIDE(w) 0
#else
#  define HST__NU_WIDE(w) ((w) > 8)
#endif
#define HST__NU_VEC2(r, b) hst__nu_##r##b
#define HST__NU_VEC(r, b) HST__NU_VEC2(r, b)
#define HST__NU_VN HST__NU_VEC(HST__NU_R, HST__NU_VB)
#define HST__NU_VT HST__NU_VEC(HST__NU_R, HST__NU_TB)
#define HST__NU_NR ((int)(HST__NU_VB / sizeof(HST__NU_R)))
#define HST__NU_TN ((int)(HST__NU_TB / sizeof(HST__NU_R)))
#define HST__NU_NV (2 * HST__NU_L / HST__NU_NR)   /* a row's vectors at most */
#if defined(__GNUC__) && !defined(__clang__)
#  define HST__NU_UNROLL _Pragma("GCC unroll 16")   /* a loop over NV: its accumulators in registers */
#else
#  define HST__NU_UNROLL
#endif
#define HST__NU_ROW_REALS(w) (2 * HST__NU_L <= HST__NU_NR ? HST__NU_NR   /* one vector: a constant */ \
                              : (2 * (w) + HST__NU_NR - 1) / HST__NU_NR * HST__NU_NR)

/* The kernel's taps along the three axes of two sorted points qa and qb (k[i][axis]: HST__NU_L
   per axis, the kernel's first w, by the kernel's operations; qb may be qa). The six Horner
   chains run interleaved: one alone waits on its own multiply and add latency (3x slower on
   the host's interpolation), three still wait on it about half the time. Width 1 along axis
   0 (a 2-D problem): its polynomial is the constant 1, its value the table's last row (0 z + 0
   is +0 whatever z, +0 + 1 is 1: the chain's bits), so that chain is left out. */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_taps)(const HST__NU_R *coef, int deg, const int32_t *g,
                                                    const HST__NU_R *off, size_t m, size_t qa, size_t qb,
                                                    HST__NU_R k[2][3][HST__NU_L]) {
    const HST__NU_R *c[3];
    HST__NU_R za[3], zb[3];
    int i, a, kk, h, lanes = HST__NU_WIDE(g[10]) ? HST__NU_L : 8, a0 = g[9] == 1;
    for (a = 0; a < 3; a++) {
        c[a] = coef + (size_t)a * (size_t)(deg + 1) * HST__NU_L;
        za[a] = 2.0f * off[(size_t)a * m + qa] + (HST__NU_R)(g[9 + a] - 1);
        zb[a] = 2.0f * off[(size_t)a * m + qb] + (HST__NU_R)(g[9 + a] - 1);
        for (i = 0; i < 2; i++)   /* lanes past `lanes` stay their coef: 0 */
            memcpy(k[i][a], c[a] + (a < a0 ? (size_t)deg * HST__NU_L : 0), HST__NU_L * sizeof(HST__NU_R));
    }
    for (h = 0; h < lanes; h += HST__NU_TN) {
        HST__NU_VT pa0, pa1, pa2, pb0, pb1, pb2, q;
        memcpy(&pa0, c[0] + h, sizeof q); pb0 = pa0;
        memcpy(&pa1, c[1] + h, sizeof q); pb1 = pa1;
        memcpy(&pa2, c[2] + h, sizeof q); pb2 = pa2;
        for (kk = 1; kk <= deg; kk++) {
            memcpy(&q, c[1] + kk * HST__NU_L + h, sizeof q);
            HST__NU_FMUL(pa1, za[1], q);
            HST__NU_FMUL(pb1, zb[1], q);
            memcpy(&q, c[2] + kk * HST__NU_L + h, sizeof q);
            HST__NU_FMUL(pa2, za[2], q);
            HST__NU_FMUL(pb2, zb[2], q);
            if (a0) continue;
            memcpy(&q, c[0] + kk * HST__NU_L + h, sizeof q);
            HST__NU_FMUL(pa0, za[0], q);
            HST__NU_FMUL(pb0, zb[0], q);
        }
        if (!a0) {
            memcpy(k[0][0] + h, &pa0, sizeof q);
            memcpy(k[1][0] + h, &pb0, sizeof q);
        }
        memcpy(k[0][1] + h, &pa1, sizeof q);
        memcpy(k[1][1] + h, &pb1, sizeof q);
        memcpy(k[0][2] + h, &pa2, sizeof q);
        memcpy(k[1][2] + h, &pb2, sizeof q);
    }
}

/* One point's taps added into a tile: rows (a, b), each of w2 complex taps. */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_spread_point)(HST__NU_R *tile, const HST__NU_R *k0, const HST__NU_R *k1,
                                        const HST__NU_R *k2, int w0, int w, int l1, int l2,
                                        int i0, int i1, int i2, HST__NU_R vr, HST__NU_R vi) {
    HST__NU_R kc[2 * HST__NU_L];
    HST__NU_VN v[HST__NU_NV], t;
    int a, b, u, h, n = HST__NU_ROW_REALS(w);
    for (u = 0; u < HST__NU_L; u++) { kc[2 * u] = vr * k2[u]; kc[2 * u + 1] = vi * k2[u]; }
    memcpy(v, kc, sizeof v);
    for (a = 0; a < w0; a++)
        for (b = 0; b < w; b++) {
            HST__NU_R kab = k0[a] * k1[b];
            HST__NU_R *row = tile + 2 * (((size_t)(i0 + a) * (size_t)l1 + (size_t)(i1 + b)) * (size_t)l2 + (size_t)i2);
            for (u = 0, h = 0; u < n; u += HST__NU_NR, h++) {   /* row[u] += kc[u] kab */
                memcpy(&t, row + u, sizeof t);
                HST__NU_MAC(t, v[h], kab);
                memcpy(row + u, &t, sizeof t);
            }
        }
}

/* A subproblem's tile added into the periodic grid, row by row: all of it (the kernel skips the
   zeros, for its atomics; adding +0 leaves the bits as they are, as neither tile nor grid holds
   a -0: both start at +0, and a sum is -0 only where both terms are), rows that do not wrap
   around the grid's last axis a vector at a time (a + b 1 = a + b). */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_flush)(const HST__NU_R *tile, HST__NU_R *grid, const int32_t *g, int l1, int l2,
                                 int o0, int o1, int o2) {
    int l0 = g[3] + 2 * g[12], t0, t1, t2, x0 = hst__nu_mod(o2, g[2]), n = 2 * l2;
    for (t0 = 0; t0 < l0; t0++)
        for (t1 = 0; t1 < l1; t1++) {
            const HST__NU_R *row = tile + 2 * ((size_t)t0 * (size_t)l1 + (size_t)t1) * (size_t)l2;
            HST__NU_R *out = grid + 2 * ((size_t)hst__nu_mod(o0 + t0, g[0]) * (size_t)g[1] +
                                     (size_t)hst__nu_mod(o1 + t1, g[1])) * (size_t)g[2];
            int x = x0, u = 0;
            if (x0 + l2 <= g[2]) {   /* the row in one piece: a vector at a time */
                for (out += 2 * x0; u + HST__NU_NR <= n; u += HST__NU_NR) {
                    HST__NU_VN a, b;
                    memcpy(&a, out + u, sizeof a);
                    memcpy(&b, row + u, sizeof b);
                    HST__NU_MAC(a, b, (HST__NU_R)1);   /* out[u] += row[u] */
                    memcpy(out + u, &a, sizeof a);
                }
                for (; u < n; u++) out[u] += row[u];
                continue;
            }
            for (t2 = 0; t2 < l2; t2++, x = x + 1 == g[2] ? 0 : x + 1) {
                out[2 * x] += row[2 * t2];
                out[2 * x + 1] += row[2 * t2 + 1];
            }
        }
}

/* Spread's twin (the declaration's hst_k_nufft_spread_host), this build. */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_spread_run)(const int32_t *base, const HST__NU_R *off, const uint32_t *perm,
                                       const HST__NU_R *c, const uint32_t *sub_bin,
                                       const uint32_t *sub_first, const uint32_t *bin_start,
                                       HST__NU_R *grid, HST__NU_R *tile, uint32_t m, const int32_t g[16],
                                       const HST__NU_R *coef, int deg, uint32_t sub0, uint32_t sub1)
{
    HST__NU_R tp[2][3][HST__NU_L];   /* a pair's taps */
    int l1 = g[4] + 2 * g[13], l2 = g[5] + 2 * g[14], n = (g[3] + 2 * g[12]) * l1 * l2;
    uint32_t s, j;
    for (s = sub0; s < sub1; s++) {
        uint32_t bin = sub_bin[s], first = sub_first[s], last = first + (uint32_t)g[15];
        int o0 = (int)bin / (g[7] * g[8]) * g[3] - g[12];
        int o1 = (int)bin / g[8] % g[7] * g[4] - g[13], o2 = (int)bin % g[8] * g[5] - g[14];
        if (last > bin_start[bin + 1]) last = bin_start[bin + 1];
        memset(tile, 0, (size_t)n * 2 * sizeof(HST__NU_R));
        for (j = first; j < last; j += HST__NU_GATHER) {
            HST__NU_R cv[2 * HST__NU_GATHER];
            uint32_t k, count = last - j < HST__NU_GATHER ? last - j : HST__NU_GATHER;
            for (k = 0; k < count; k++) {   /* the values first: their cache misses overlap */
                cv[2 * k] = c[2 * (size_t)perm[j + k]];
                cv[2 * k + 1] = c[2 * (size_t)perm[j + k] + 1];
                if (j + HST__NU_GATHER + k < last) HST__NU_PREFETCH(c + 2 * (size_t)perm[j + HST__NU_GATHER + k], 0);
            }
            for (k = 0; k < count; k++) {   /* points in pairs (taps), spread one after the other */
                size_t q = j + k;
                int i = (int)(k % 2);
                if (i == 0) HST__NU_H(hst__nu_taps)(coef, deg, g, off, m, q, k + 1 < count ? q + 1 : q, tp);
                HST__NU_H(hst__nu_spread_point)(tile, tp[i][0], tp[i][1], tp[i][2], g[9], g[10], l1, l2,
                                                base[q] - o0, base[m + q] - o1, base[2 * (size_t)m + q] - o2,
                                                cv[2 * k], cv[2 * k + 1]);
            }
        }
        HST__NU_H(hst__nu_flush)(tile, grid, g, l1, l2, o0, o1, o2);
    }
}

/* A point's row offsets along axes 0 and 1 (the periodic wraps done once, and only for an axis
   whose taps cross the grid's edge: a test per tap cost 4% of a 3-D type 2 execute), its rows'
   first element along axis 2 (b2 itself, or -1 where its taps cross the grid's edge). */
HST__NU_T HST__KPRIVATE int HST__NU_H(hst__nu_rows)(const int32_t *g, int b0, int b1, int b2, size_t *r0, size_t *r1) {
    size_t s1 = (size_t)g[2], s0 = (size_t)g[1] * s1;
    int a, b;
    if (b0 >= 0 && b0 + g[9] <= g[0])
        for (a = 0; a < g[9]; a++) r0[a] = (size_t)(b0 + a) * s0;
    else
        for (a = 0; a < g[9]; a++) r0[a] = (size_t)hst__nu_wrap(b0 + a, g[0]) * s0;
    if (b1 >= 0 && b1 + g[10] <= g[1])
        for (b = 0; b < g[10]; b++) r1[b] = (size_t)(b1 + b) * s1;
    else
        for (b = 0; b < g[10]; b++) r1[b] = (size_t)hst__nu_wrap(b1 + b, g[1]) * s1;
    return b2 < 0 || b2 + g[10] > g[2] ? -1 : b2;
}

/* A point's value from its rows' sums: its taps t in order times k2[t], tap t in lane t of va
   (2 L reals) for t < s, in lane t - s of vb for the rest (a row crossing the edge of axis 2). */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_finish)(const HST__NU_VN *va, const HST__NU_VN *vb, int s,
                                                      const HST__NU_R *k2, int w, HST__NU_R *out) {
    HST__NU_R acc[2][2 * HST__NU_L], re = 0.0f, im = 0.0f;
    int t;
    memcpy(acc[0], va, sizeof acc[0]);
    if (s < w) memcpy(acc[1], vb, sizeof acc[1]);
    for (t = 0; t < w; t++) {
        const HST__NU_R *x = t < s ? acc[0] + 2 * t : acc[1] + 2 * (t - s);
        re += x[0] * k2[t];
        im += x[1] * k2[t];
    }
    out[0] = re;
    out[1] = im;
}

/* One sorted point's interpolation (the kernel's loops; w taps along axes 1 and 2). Where its
   taps cross the edge of axis 2, a row's first s taps are read from column c = b2 mod g2 into
   va and the rest from column 0 into vb: two chains of adds, the reads in bounds (g2 >= 2 w, and
   the grid's tail), the same sums as the kernel's. Gathering the taps into a buffer and reading
   it back at once stalled on store forwarding: the 5-10% of 3-D points that wrap took a fifth of
   interp's time. */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_interp_point)(const HST__NU_R *grid, const int32_t *g, const HST__NU_R *k0,
                                        const HST__NU_R *k1, const HST__NU_R *k2, int b0, int b1,
                                        int b2, HST__NU_R *out) {
    HST__NU_VN va[HST__NU_NV], vb[HST__NU_NV], x;
    int w0 = g[9], w = g[10], c = hst__nu_wrap(b2, g[2]), s = g[2] - c < w ? g[2] - c : w, a, b, h;
    int na = HST__NU_ROW_REALS(s), nb = s < w ? HST__NU_ROW_REALS(w - s) : 0;
    size_t r0[HST__NU_L], r1[HST__NU_L];   /* the rows' offsets: the wraps done once */
    HST__NU_H(hst__nu_rows)(g, b0, b1, b2, r0, r1);
    memset(va, 0, sizeof va);
    memset(vb, 0, sizeof vb);
    for (a = 0; a < w0; a++)
        for (b = 0; b < w; b++) {
            HST__NU_R kab = k0[a] * k1[b];
            const HST__NU_R *r = grid + 2 * (r0[a] + r1[b]);
            HST__NU_UNROLL
            for (h = 0; h < HST__NU_NV; h++) {   /* acc[u] += r[u] kab; unrolled: va, vb in registers */
                if (h * HST__NU_NR < na) {
                    memcpy(&x, r + 2 * c + h * HST__NU_NR, sizeof x);
                    HST__NU_MAC(va[h], x, kab);
                }
                if (h * HST__NU_NR < nb) {
                    memcpy(&x, r + h * HST__NU_NR, sizeof x);
                    HST__NU_MAC(vb[h], x, kab);
                }
            }
        }
    HST__NU_H(hst__nu_finish)(va, vb, s, k2, w, out);
}

/* Two sorted points' interpolation, their rows interleaved, neither crossing the edge of axis 2
   (r: their row offsets, x: their rows' first elements, hst__nu_rows'): each point's sums in interp_point's order (the same
   bits), with two chains of dependent adds in flight instead of one (a row's add waits on the
   previous row's: a 3-D point at w 7 is 49 of them in one zmm of floats). */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_interp_pair)(const HST__NU_R *grid, const int32_t *g,
                                        HST__NU_R tp[2][3][HST__NU_L], const size_t r[2][2][HST__NU_L],
                                        const int x[2], HST__NU_R *out0, HST__NU_R *out1) {
    HST__NU_VN va[HST__NU_NV], vb[HST__NU_NV], y;
    int w0 = g[9], w = g[10], a, b, h, n = HST__NU_ROW_REALS(w);
    memset(va, 0, sizeof va);
    memset(vb, 0, sizeof vb);
    for (a = 0; a < w0; a++)
        for (b = 0; b < w; b++) {
            HST__NU_R ka = tp[0][0][a] * tp[0][1][b], kb = tp[1][0][a] * tp[1][1][b];
            const HST__NU_R *ra = grid + 2 * (r[0][0][a] + r[0][1][b] + (size_t)x[0]);
            const HST__NU_R *rb = grid + 2 * (r[1][0][a] + r[1][1][b] + (size_t)x[1]);
            HST__NU_UNROLL
            for (h = 0; h < HST__NU_NV; h++)
                if (h * HST__NU_NR < n) {
                    memcpy(&y, ra + h * HST__NU_NR, sizeof y);
                    HST__NU_MAC(va[h], y, ka);
                    memcpy(&y, rb + h * HST__NU_NR, sizeof y);
                    HST__NU_MAC(vb[h], y, kb);
                }
        }
    HST__NU_H(hst__nu_finish)(va, NULL, w, tp[0][2], w, out0);
    HST__NU_H(hst__nu_finish)(vb, NULL, w, tp[1][2], w, out1);
}

/* Interp's twin (the declaration's hst_k_nufft_interp_host), this build. */
HST__NU_T HST__KPRIVATE void HST__NU_H(hst__nu_interp_run)(const int32_t *base, const HST__NU_R *off, const uint32_t *perm,
                                       const HST__NU_R *grid, HST__NU_R *c, uint32_t m, const int32_t g[16],
                                       const HST__NU_R *coef, int deg, uint32_t j0, uint32_t j1)
{
    HST__NU_R tp[2][3][HST__NU_L];   /* a pair's taps */
    uint32_t j;
    int i;
    for (j = j0; j < j1; j += 2) {   /* points in pairs (taps; rows interleaved where neither wraps) */
        if (j1 - j > HST__NU_AHEAD + 1) {
            HST__NU_PREFETCH(c + 2 * (size_t)perm[j + HST__NU_AHEAD], 1);
            HST__NU_PREFETCH(c + 2 * (size_t)perm[j + HST__NU_AHEAD + 1], 1);
        }
        HST__NU_H(hst__nu_taps)(coef, deg, g, off, m, j, j + 1 < j1 ? j + 1 : j, tp);
        if (j + 1 < j1) {
            size_t r[2][2][HST__NU_L];
            int x[2];
            for (i = 0; i < 2; i++)
                x[i] = HST__NU_H(hst__nu_rows)(g, base[j + i], base[m + j + i], base[2 * (size_t)m + j + i],
                                               r[i][0], r[i][1]);
            if (x[0] >= 0 && x[1] >= 0) {
                HST__NU_H(hst__nu_interp_pair)(grid, g, tp, (const size_t(*)[2][HST__NU_L])r, x,
                                               c + 2 * (size_t)perm[j], c + 2 * (size_t)perm[j + 1]);
                continue;
            }
        }
        for (i = 0; i < 2 && j + (uint32_t)i < j1; i++) {
            size_t q = j + (uint32_t)i;
            HST__NU_H(hst__nu_interp_point)(grid, g, tp[i][0], tp[i][1], tp[i][2], base[q], base[m + q],
                                            base[2 * (size_t)m + q], c + 2 * (size_t)perm[q]);
        }
    }
}

#ifndef HST__NU_HOT_ONLY   /* the rest: once per real type, portable */

HST__KDEF void HST__NU_N(hst_k_nufft_spread_host)(const int32_t *base, const HST__NU_R *off, const uint32_t *perm,
                                       const HST__NU_R *c, const uint32_t *sub_bin,
                                       const uint32_t *sub_first, const uint32_t *bin_start,
                                       HST__NU_R *grid, HST__NU_R *tile, uint32_t m, const int32_t g[16],
                                       const HST__NU_R *coef, int deg, uint32_t sub0, uint32_t sub1)
{
    HST__NU_BEST(hst__nu_spread_run, (base, off, perm, c, sub_bin, sub_first, bin_start, grid, tile, m, g,
                                      coef, deg, sub0, sub1));
}

HST__KDEF void HST__NU_N(hst_k_nufft_interp_host)(const int32_t *base, const HST__NU_R *off, const uint32_t *perm,
                                       const HST__NU_R *grid, HST__NU_R *c, uint32_t m, const int32_t g[16],
                                       const HST__NU_R *coef, int deg, uint32_t j0, uint32_t j1)
{
    HST__NU_BEST(hst__nu_interp_run, (base, off, perm, grid, c, m, g, coef, deg, j0, j1));
}

HST__KDEF void HST__NU_N(hst_k_nufft_spread_gm_host)(const int32_t *base, const HST__NU_R *off,
                                                     const uint32_t *perm, const HST__NU_R *c, HST__NU_R *grid,
                                                     uint32_t m, const int32_t g[16], const HST__NU_R *coef,
                                                     int deg, uint32_t j0, uint32_t j1)
{
    HST__NU_R tp[2][3][HST__NU_L];   /* the point's taps (and a copy) */
    const HST__NU_R *k0 = tp[0][0], *k1 = tp[0][1], *k2 = tp[0][2];
    uint32_t j;
    int a, b, t;
    for (j = j0; j < j1; j++) {
        HST__NU_R vr = c[2 * (size_t)perm[j]], vi = c[2 * (size_t)perm[j] + 1];
        HST__NU_N(hst__nu_taps)(coef, deg, g, off, m, j, j, tp);
        for (a = 0; a < g[9]; a++)
            for (b = 0; b < g[10]; b++) {
                HST__NU_R kab = k0[a] * k1[b];
                size_t row = ((size_t)hst__nu_wrap(base[j] + a, g[0]) * (size_t)g[1]
                              + (size_t)hst__nu_wrap(base[m + j] + b, g[1])) * (size_t)g[2];
                for (t = 0; t < g[11]; t++) {
                    size_t gi = row + (size_t)hst__nu_wrap(base[2 * (size_t)m + j] + t, g[2]);
                    grid[2 * gi] += (vr * k2[t]) * kab;
                    grid[2 * gi + 1] += (vi * k2[t]) * kab;
                }
            }
    }
}

/* The modes' twins go by lines along axis 2 (the fastest), each a part of one: [e0, e1) of
   line l = e0 / n2 of n1 lines a plane. */
#define HST__NU_LINES(e0, e1, n1, n2, l, x0, x1, x2, end)                                    \
    for (l = (e0) / (size_t)(n2), x2 = (int)((e0) % (size_t)(n2)); (l) * (size_t)(n2) < (e1);   \
         l++, x2 = 0)                                                                          \
        if (x0 = (int)((l) / (size_t)(n1)), x1 = (int)((l) % (size_t)(n1)),                    \
            end = (e1) < ((l) + 1) * (size_t)(n2) ? (int)((e1) - (l) * (size_t)(n2)) : (n2), 1)

HST__KDEF void HST__NU_N(hst_k_nufft_to_modes_host)(const HST__NU_R *grid, HST__NU_R *f, const HST__NU_R *corr,
                                         const int32_t nf[4], const int32_t nm[4], size_t e0, size_t e1)
{
    size_t l;
    int i0, i1, i2, end;
    HST__NU_LINES(e0, e1, nm[1], nm[2], l, i0, i1, i2, end) {
        size_t row = ((size_t)hst__nu_fine(i0, nm[0], nf[0]) * (size_t)nf[1]
                      + (size_t)hst__nu_fine(i1, nm[1], nf[1])) * (size_t)nf[2];
        for (; i2 < end; i2++) {
            size_t i = l * (size_t)nm[2] + (size_t)i2, gi = row + (size_t)hst__nu_fine(i2, nm[2], nf[2]);
            HST__NU_R s = (corr[i0] * corr[nm[0] + i1]) * corr[nm[0] + nm[1] + i2];
            f[2 * i] = grid[2 * gi] * s;
            f[2 * i + 1] = grid[2 * gi + 1] * s;
        }
    }
}

HST__KDEF void HST__NU_N(hst_k_nufft_to_grid_host)(const HST__NU_R *f, HST__NU_R *grid, const HST__NU_R *corr,
                                        const int32_t nf[4], const int32_t nm[4], size_t e0, size_t e1)
{
    size_t l;
    int g0, g1, g2, end;
    HST__NU_LINES(e0, e1, nf[1], nf[2], l, g0, g1, g2, end) {
        int i0 = hst__nu_mode(g0, nm[0], nf[0]), i1 = hst__nu_mode(g1, nm[1], nf[1]);
        for (; g2 < end; g2++) {
            size_t i = l * (size_t)nf[2] + (size_t)g2;
            int i2 = hst__nu_mode(g2, nm[2], nf[2]);
            HST__NU_R re = 0.0f, im = 0.0f;
            if (i0 >= 0 && i1 >= 0 && i2 >= 0) {
                size_t fi = ((size_t)i0 * (size_t)nm[1] + (size_t)i1) * (size_t)nm[2] + (size_t)i2;
                HST__NU_R s = (corr[i0] * corr[nm[0] + i1]) * corr[nm[0] + nm[1] + i2];
                re = f[2 * fi] * s;
                im = f[2 * fi + 1] * s;
            }
            grid[2 * i] = re;
            grid[2 * i + 1] = im;
        }
    }
}

/* The twins as declared kernels' twins: the arguments unpacked, over the launched range (see
   the declarations). */
static void HST__NU_N(hst__kt_nufft_spread)(const hst_karg *a, const hst_range *r) {
    size_t per = r->local[0] ? r->local[0] : 1, end = r->offset[0] + r->global[0];
    const int32_t *g = (const int32_t *)a[10].v.value;
    HST__NU_N(hst_k_nufft_spread_host)((const int32_t *)hst_karg_ptr(&a[0]), (const HST__NU_R *)hst_karg_ptr(&a[1]),
                            (const uint32_t *)hst_karg_ptr(&a[2]),
                            (const HST__NU_R *)hst_karg_ptr(&a[3]) + 2 * (size_t)a[12].v.u64,
                            (const uint32_t *)hst_karg_ptr(&a[4]), (const uint32_t *)hst_karg_ptr(&a[5]),
                            (const uint32_t *)hst_karg_ptr(&a[6]), (HST__NU_R *)hst_karg_ptr(&a[7]),
                            (HST__NU_R *)hst_karg_ptr(&a[8]), a[9].v.u32, g,
                            (const HST__NU_R *)hst_karg_ptr(&a[11]), HST_K_NUFFT_DEGREE(g[10]),
                            (uint32_t)(r->offset[0] / per), (uint32_t)((end + per - 1) / per));
}

static void HST__NU_N(hst__kt_nufft_interp)(const hst_karg *a, const hst_range *r) {
    const int32_t *g = (const int32_t *)a[6].v.value;
    uint32_t m = a[5].v.u32;
    size_t end = r->offset[0] + r->global[0];
    if (r->offset[0] >= m) return;
    HST__NU_N(hst_k_nufft_interp_host)((const int32_t *)hst_karg_ptr(&a[0]), (const HST__NU_R *)hst_karg_ptr(&a[1]),
                            (const uint32_t *)hst_karg_ptr(&a[2]), (const HST__NU_R *)hst_karg_ptr(&a[3]),
                            (HST__NU_R *)hst_karg_ptr(&a[4]) + 2 * (size_t)a[8].v.u64, m, g,
                            (const HST__NU_R *)hst_karg_ptr(&a[7]),
                            HST_K_NUFFT_DEGREE(g[10]), (uint32_t)r->offset[0], end < m ? (uint32_t)end : m);
}

/* interp_lanes' twin: work-items [offset, offset + global) are lanes of sorted points, HST__NU_L
   a point (the kernel's HST_NU_L): interp's twin over the points they hold. */
static void HST__NU_N(hst__kt_nufft_interp_lanes)(const hst_karg *a, const hst_range *r) {
    hst_range points = *r;
    points.offset[0] = r->offset[0] / HST__NU_L;
    points.global[0] = (r->offset[0] + r->global[0] + HST__NU_L - 1) / HST__NU_L - points.offset[0];
    HST__NU_N(hst__kt_nufft_interp)(a, &points);
}

static void HST__NU_N(hst__kt_nufft_spread_gm)(const hst_karg *a, const hst_range *r) {
    const int32_t *g = (const int32_t *)a[6].v.value;
    uint32_t m = a[5].v.u32;
    size_t end = r->offset[0] + r->global[0];
    if (r->offset[0] >= m) return;
    HST__NU_N(hst_k_nufft_spread_gm_host)((const int32_t *)hst_karg_ptr(&a[0]), (const HST__NU_R *)hst_karg_ptr(&a[1]),
                                          (const uint32_t *)hst_karg_ptr(&a[2]),
                                          (const HST__NU_R *)hst_karg_ptr(&a[3]) + 2 * (size_t)a[8].v.u64,
                                          (HST__NU_R *)hst_karg_ptr(&a[4]), m, g, (const HST__NU_R *)hst_karg_ptr(&a[7]),
                                          HST_K_NUFFT_DEGREE(g[10]), (uint32_t)r->offset[0], end < m ? (uint32_t)end : m);
}

/* [e0, e1): the launched range's elements of the n = d0 d1 d2 written (d: nm or nf, 4 ints). */
static void HST__NU_N(hst__nu_elements)(const hst_range *r, const int32_t d[4], size_t *e0, size_t *e1) {
    size_t n = (size_t)d[0] * (size_t)d[1] * (size_t)d[2], end = r->offset[0] + r->global[0];
    *e0 = r->offset[0] < n ? r->offset[0] : n;
    *e1 = end < n ? end : n;
}

static void HST__NU_N(hst__kt_nufft_to_modes)(const hst_karg *a, const hst_range *r) {
    size_t e0, e1;
    HST__NU_N(hst__nu_elements)(r, (const int32_t *)a[4].v.value, &e0, &e1);
    HST__NU_N(hst_k_nufft_to_modes_host)((const HST__NU_R *)hst_karg_ptr(&a[0]),
                              (HST__NU_R *)hst_karg_ptr(&a[1]) + 2 * (size_t)a[5].v.u64,
                              (const HST__NU_R *)hst_karg_ptr(&a[2]), (const int32_t *)a[3].v.value,
                              (const int32_t *)a[4].v.value, e0, e1);
}

static void HST__NU_N(hst__kt_nufft_to_grid)(const hst_karg *a, const hst_range *r) {
    size_t e0, e1;
    HST__NU_N(hst__nu_elements)(r, (const int32_t *)a[3].v.value, &e0, &e1);
    HST__NU_N(hst_k_nufft_to_grid_host)((const HST__NU_R *)hst_karg_ptr(&a[0]) + 2 * (size_t)a[5].v.u64,
                             (HST__NU_R *)hst_karg_ptr(&a[1]),
                             (const HST__NU_R *)hst_karg_ptr(&a[2]), (const int32_t *)a[3].v.value,
                             (const int32_t *)a[4].v.value, e0, e1);
}

#endif /* HST__NU_HOT_ONLY */

#undef HST__NU_WIDE
#undef HST__NU_VEC2
#undef HST__NU_VEC
#undef HST__NU_VN
#undef HST__NU_VT
#undef HST__NU_NR
#undef HST__NU_TN
#undef HST__NU_NV
#undef HST__NU_UNROLL
#undef HST__NU_ROW_REALS

#endif /* HST__NU_TWIN_PASS */

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
