/* kernels_stream.h — the stream program: stage kernels on f32 volumes (gradient, divergence, a TV denoising chain) and the per-slice accumulators: its OpenCL C 1.2 sources as string literals, its host C twins
   (the same semantics; bit for bit where stated) and its kernels' declarations. One of the
   kernel families of kernels.h's design, included by stream.h (which launches them) and by tests;
   a program that does not include stream.h compiles none of it. Single-file, header-only, C99
   (and C++); HST_IMPLEMENTATION (or HST_KERNELS_STREAM_IMPLEMENTATION, which stream.h's
   implementation defines) compiles the body, as for every halostream header. kernels.h
   explains the conventions every family keeps (FP contraction off, pieces of at most 4095
   characters, thread safety).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_KERNELS_STREAM_H
#define HST_KERNELS_STREAM_H

#include "backend.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_STREAM_IMPLEMENTATION)
#  define HST_KERNELS_STREAM_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

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
   T = float, or float2 (c64) with -DHST_ACC_C64, double (f64) with -DHST_ACC_F64, double2
   (c128) with -DHST_ACC_C128 (these two need -DHST_FP64: PyQMRI runs float64/complex128);
   ACC = double with -DHST_FP64, else float.
   kind 1 SUM (of a; complex: of the real part), 2 SQSUM (|a|^2), 3 DIFF2 (|a - b|^2; b is not read
   otherwise, may be NULL); the numbers are hst_stream_acc_kind's. Other kinds write nothing.
   NDRange 2-D: global (HST_REDUCE_LOCAL = 256, end - begin), local (256, 1). The work-group of
   slice z = begin + get_group_id(1) (slice z of a and b starts at element z*elems): lane l,
   from 0, adds in ACC the terms of elements l, l+256, l+512, ... < elems (each element converted
   to ACC before any arithmetic; complex SQSUM/DIFF2 term re*re + im*im); then a local tree
   a[l] = a[l] + a[l+s] for s = 128, 64, ..., 1; writes acc[acc_offset + (z - begin)].

   Build the program once per accumulator element type with
     "-cl-fp32-correctly-rounded-divide-sqrt [-DHST_FP64] [-DHST_ACC_C64 | _F64 | _C128]"
   (-DHST_FP64 where the device has cl_khr_fp64). The volume kernels ignore -DHST_FP64 and
   -DHST_ACC_*. Bitwise: the host twins below equal the device when the program is built with
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
   at the slice's `elems` elements (dt HST_F32, HST_C64, HST_F64 or HST_C128; complex types count
   complex elements); *out gets the value in exactly the device's order, in double (bitwise
   equal to a device program built with -DHST_FP64). An unsupported dt or kind does nothing.
   Thread-safe. */
HST_API void hst_k_slice_acc_host(hst_dtype dt, int kind, const void *a, const void *b,
                                  size_t elems, double *out);

/* The family's kernels, declared once (backend.h's "Declared kernels"): rows X(id, name in the
   program, parameters, host twin). The twins take a launch's range as stream.h gives it
   (dim 1: end - begin slices from begin, dim 0: a slice's work-items) and compute whole slices
   z = begin + offset[1] .. begin + offset[1] + global[1] (clipped to end), every voxel of each:
   a range splits by slices, never within one (a 1-D range: all of [begin, end)). Their results
   are the typed twins' above. hst_k_slice_acc is built once per element type: row
   HST_KSTREAM_SLICE_ACC is its f32 build, HST_KSTREAM_SLICE_ACC_C64 its -DHST_ACC_C64 build,
   _F64 and _C128 its -DHST_ACC_F64 and -DHST_ACC_C128 builds (the same parameters; each twin
   reads its element type); every twin writes acc as double, as the -DHST_FP64 build does (a
   build without it writes float, which no twin does: the host device has fp64). */
#define HST_STREAM_KERNELS(X) \
    X(HST_KSTREAM_GRAD3, hst_k_grad3, "global global uint uint ulong ulong ulong ulong int", hst__kt_grad3) \
    X(HST_KSTREAM_DIV3, hst_k_div3, "global global uint uint ulong ulong ulong ulong int", hst__kt_div3) \
    X(HST_KSTREAM_TV_DUAL, hst_k_tv_dual, "global global uint uint float ulong ulong ulong ulong int", \
      hst__kt_tv_dual) \
    X(HST_KSTREAM_TV_PRIMAL, hst_k_tv_primal, \
      "global global global global uint uint float float ulong ulong ulong ulong int", hst__kt_tv_primal) \
    X(HST_KSTREAM_TV_GAP, hst_k_tv_gap, \
      "global global global global uint uint float ulong ulong ulong ulong int", hst__kt_tv_gap) \
    X(HST_KSTREAM_SLICE_ACC, hst_k_slice_acc, "global global ulong ulong ulong int global ulong", \
      hst__kt_slice_acc) \
    X(HST_KSTREAM_SLICE_ACC_C64, hst_k_slice_acc, "global global ulong ulong ulong int global ulong", \
      hst__kt_slice_acc_c64) \
    X(HST_KSTREAM_SLICE_ACC_F64, hst_k_slice_acc, "global global ulong ulong ulong int global ulong", \
      hst__kt_slice_acc_f64) \
    X(HST_KSTREAM_SLICE_ACC_C128, hst_k_slice_acc, "global global ulong ulong ulong int global ulong", \
      hst__kt_slice_acc_c128)
enum { HST_STREAM_KERNELS(HST_KERNEL_ID) HST_KSTREAM_COUNT };

/* The stream family: its source (hst_kernels_stream_source) and HST_STREAM_KERNELS's
   declarations, for hst_launch_kernel (and stream.h's declared stages). Static storage.
   Thread-safe. */
HST_API const hst_kernel_family *hst_kernels_stream_family(void);

/* <<stream kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_STREAM_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_STREAM_IMPLEMENTATION) && !defined(HST__KERNELS_STREAM_IMPLEMENTATION_DONE)
#define HST__KERNELS_STREAM_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>

HST__KERNELS_FP_BEGIN

/* >>stream kernels */

/* The stream program (see the declarations): pieces of at most 4095 characters, checked below. */

static const char hst__stream_src_common[] =
"/* halostream stream program (kernels.h): f32 (N, H, W) volume kernels and per-slice\n"
"   accumulators; -cl-fp32-correctly-rounded-divide-sqrt [-DHST_FP64] [-DHST_ACC_<type>] */\n"
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
"/* Per-slice accumulators: T element (float; float2, double, double2 with -DHST_ACC_C64,\n"
"   _F64, _C128), ACC accumulator (double with -DHST_FP64, else float). kind 1 SUM (complex:\n"
"   real part), 2 SQSUM |a|^2, 3 DIFF2 |a - b|^2. Every element is converted to ACC first. */\n"
"#if defined(HST_ACC_C128)\n"
"typedef double2 HST_AT;\n"
"#define HST_ACC_COMPLEX\n"
"#elif defined(HST_ACC_C64)\n"
"typedef float2 HST_AT;\n"
"#define HST_ACC_COMPLEX\n"
"#elif defined(HST_ACC_F64)\n"
"typedef double HST_AT;\n"
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
"#ifdef HST_ACC_COMPLEX\n"
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

/* Element k of a real array of dt's real type (float for f32 and c64, double for f64 and c128)
   in double: the accumulators' conversion. */
HST__KPRIVATE double hst__s_acc_real(hst_dtype dt, const void *p, size_t k)
{
    return dt == HST_F64 || dt == HST_C128 ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

/* twin of hst_s_acc_term in double (dt HST_F32, HST_C64, HST_F64 or HST_C128; kind 1..3) */
HST__KPRIVATE double hst__s_acc_term(hst_dtype dt, int kind, const void *a, const void *b,
                                     size_t j)
{
    if (dt == HST_C64 || dt == HST_C128) {
        double re = hst__s_acc_real(dt, a, 2 * j), im = hst__s_acc_real(dt, a, 2 * j + 1), s, t;
        if (kind == 1) return re;
        if (kind == 3) {
            re = re - hst__s_acc_real(dt, b, 2 * j);
            im = im - hst__s_acc_real(dt, b, 2 * j + 1);
        }
        s = re * re;
        t = im * im;
        return s + t;
    } else {
        double v = hst__s_acc_real(dt, a, j);
        if (kind == 1) return v;
        if (kind == 3) v = v - hst__s_acc_real(dt, b, j);
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
    if ((dt != HST_F32 && dt != HST_C64 && dt != HST_F64 && dt != HST_C128) || kind < 1 || kind > 3) return;
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

/* Declared kernels' twins (HST_STREAM_KERNELS): the block arguments at blk (base, begin, end,
   total, flags), the slices [*z0, *z1) of the range (see the declarations). */
HST__KPRIVATE void hst__kt_slices(const hst_karg *blk, const hst_range *r, uint64_t *z0,
                                  uint64_t *z1)
{
    uint64_t begin = blk[1].v.u64, end = blk[2].v.u64;
    *z0 = r->dims < 2 ? begin : begin + r->offset[1];
    *z1 = end;
    if (*z0 >= end) *z0 = end;
    else if (r->dims >= 2 && r->global[1] < end - *z0) *z1 = *z0 + r->global[1];
}

#define HST__KT_PTR(i) hst_karg_ptr(&a[i])

static void hst__kt_grad3(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_slices(a + 4, r, &z0, &z1);
    hst_k_grad3_host((const float *)HST__KT_PTR(0), (float *)HST__KT_PTR(1), a[2].v.u32, a[3].v.u32,
                     a[4].v.u64, z0, z1, a[7].v.u64);
}

static void hst__kt_div3(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_slices(a + 4, r, &z0, &z1);
    hst_k_div3_host((const float *)HST__KT_PTR(0), (float *)HST__KT_PTR(1), a[2].v.u32, a[3].v.u32,
                    a[4].v.u64, z0, z1, a[7].v.u64);
}

static void hst__kt_tv_dual(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_slices(a + 5, r, &z0, &z1);
    hst_k_tv_dual_host((const float *)HST__KT_PTR(0), (float *)HST__KT_PTR(1), a[2].v.u32, a[3].v.u32,
                       a[4].v.f32, a[5].v.u64, z0, z1, a[8].v.u64);
}

static void hst__kt_tv_primal(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_slices(a + 8, r, &z0, &z1);
    hst_k_tv_primal_host((const float *)HST__KT_PTR(0), (const float *)HST__KT_PTR(1),
                         (float *)HST__KT_PTR(2), (float *)HST__KT_PTR(3), a[4].v.u32, a[5].v.u32,
                         a[6].v.f32, a[7].v.f32, a[8].v.u64, z0, z1, a[11].v.u64);
}

static void hst__kt_tv_gap(const hst_karg *a, const hst_range *r)
{
    uint64_t z0, z1;
    hst__kt_slices(a + 7, r, &z0, &z1);
    hst_k_tv_gap_host((const float *)HST__KT_PTR(0), (const float *)HST__KT_PTR(1),
                      (const float *)HST__KT_PTR(2), (float *)HST__KT_PTR(3), a[4].v.u32, a[5].v.u32,
                      a[6].v.f32, a[7].v.u64, z0, z1, a[10].v.u64);
}

/* hst_k_slice_acc's work-groups z - begin of the range (one per slice, the 256 lanes of dim 0
   together): a, b (kind 3 only), elems, begin, end, kind, acc (double), acc_offset. */
static void hst__kt_slice_acc_dt(hst_dtype dt, const hst_karg *a, const hst_range *r)
{
    const unsigned char *pa = (const unsigned char *)HST__KT_PTR(0), *pb = (const unsigned char *)HST__KT_PTR(1);
    uint64_t elems = a[2].v.u64, begin = a[3].v.u64, z0 = begin + (r->dims > 1 ? r->offset[1] : 0), z;
    uint64_t z1 = r->dims > 1 ? z0 + r->global[1] : z0 + 1;
    size_t slice = (size_t)elems * hst_dtype_size(dt);
    double *acc = (double *)HST__KT_PTR(6);
    int kind = a[5].v.i32;
    for (z = z0; z < z1 && z < a[4].v.u64; z++)
        hst_k_slice_acc_host(dt, kind, pa + (size_t)z * slice, kind == 3 ? pb + (size_t)z * slice : NULL,
                             (size_t)elems, &acc[a[7].v.u64 + (z - begin)]);
}

static void hst__kt_slice_acc(const hst_karg *a, const hst_range *r) { hst__kt_slice_acc_dt(HST_F32, a, r); }
static void hst__kt_slice_acc_c64(const hst_karg *a, const hst_range *r) { hst__kt_slice_acc_dt(HST_C64, a, r); }
static void hst__kt_slice_acc_f64(const hst_karg *a, const hst_range *r) { hst__kt_slice_acc_dt(HST_F64, a, r); }
static void hst__kt_slice_acc_c128(const hst_karg *a, const hst_range *r) { hst__kt_slice_acc_dt(HST_C128, a, r); }

#undef HST__KT_PTR

static const hst_kernel_decl hst__stream_decls[HST_KSTREAM_COUNT] = { HST_STREAM_KERNELS(HST_KERNEL_DECL) };

HST__KDEF const hst_kernel_family *hst_kernels_stream_family(void)
{
    static const hst_kernel_family f = { "stream", hst_kernels_stream_source, hst__stream_decls,
                                         HST_KSTREAM_COUNT };
    return &f;
}

/* <<stream kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_STREAM_IMPLEMENTATION */

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
