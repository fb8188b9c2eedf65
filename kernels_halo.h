/* kernels_halo.h — the halo program: the fused pack and unpack of every region of every quantity: its OpenCL C 1.2 sources as string literals, its host C twins
   (the same semantics; bit for bit where stated) and its kernels' declarations. One of the
   kernel families of kernels.h's design, included by halo.h (which launches them) and by tests;
   a program that does not include halo.h compiles none of it. Single-file, header-only, C99
   (and C++); HST_IMPLEMENTATION (or HST_KERNELS_HALO_IMPLEMENTATION, which halo.h's
   implementation defines) compiles the body, as for every halostream header. kernels.h
   explains the conventions every family keeps (FP contraction off, pieces of at most 4095
   characters, thread safety).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_KERNELS_HALO_H
#define HST_KERNELS_HALO_H

#include "backend.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_KERNELS_HALO_IMPLEMENTATION)
#  define HST_KERNELS_HALO_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

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

/* The declared kernels (backend.h's "Declared kernels"). The program's parameter list depends
   on its build option HST_HALO_NQ (8, 16, ..., 64 quantity buffers), so each (NQ, kernel) is a
   row of its own, generated by HST__KHALO_ROWS: ids HST_KHALO_PACK_<NQ>, HST_KHALO_UNPACK_<NQ>,
   in that order for NQ = 8, 16, ..., 64 (hst_kernels_halo_kernel picks one). Signature:
   table, prefix_at, desc_at, nbands, total, buf, q0 .. q<NQ-1>. Twins (host device): every
   slot of every band in which a work-group of the range falls (work-groups offset / local up
   to (offset + global) / local rounded up; local 0 counts as 1), whole and in table order,
   through hst_k_halo_pack_host / _unpack_host: a slot that two sub-ranges share moves twice,
   the same bytes both times. */
#define HST__KHALO_Q8 " global global global global global global global global"
#define HST__KHALO_SIG_8 "global ulong ulong ulong ulong global" HST__KHALO_Q8
#define HST__KHALO_SIG_16 HST__KHALO_SIG_8 HST__KHALO_Q8
#define HST__KHALO_SIG_24 HST__KHALO_SIG_16 HST__KHALO_Q8
#define HST__KHALO_SIG_32 HST__KHALO_SIG_24 HST__KHALO_Q8
#define HST__KHALO_SIG_40 HST__KHALO_SIG_32 HST__KHALO_Q8
#define HST__KHALO_SIG_48 HST__KHALO_SIG_40 HST__KHALO_Q8
#define HST__KHALO_SIG_56 HST__KHALO_SIG_48 HST__KHALO_Q8
#define HST__KHALO_SIG_64 HST__KHALO_SIG_56 HST__KHALO_Q8
#define HST__KHALO_ROWS(X, nq) \
    X(HST_KHALO_PACK_##nq, hst_k_halo_pack, HST__KHALO_SIG_##nq, hst__kt_halo_pack_##nq) \
    X(HST_KHALO_UNPACK_##nq, hst_k_halo_unpack, HST__KHALO_SIG_##nq, hst__kt_halo_unpack_##nq)
#define HST_HALO_KERNELS(X) \
    HST__KHALO_ROWS(X, 8) HST__KHALO_ROWS(X, 16) HST__KHALO_ROWS(X, 24) HST__KHALO_ROWS(X, 32) \
    HST__KHALO_ROWS(X, 40) HST__KHALO_ROWS(X, 48) HST__KHALO_ROWS(X, 56) HST__KHALO_ROWS(X, 64)
enum { HST_HALO_KERNELS(HST_KERNEL_ID) HST_KHALO_COUNT };
/* The family: name "halo", hst_kernels_halo_source, the rows above. Thread-safe. */
HST_API const hst_kernel_family *hst_kernels_halo_family(void);
/* The row of a plan of num_quantities quantities (build it with hst_kernels_halo_options of the
   same count): pack (unpack = 0) or unpack; HST_KHALO_COUNT when num_quantities is 0 or above
   64. Thread-safe. */
HST_API unsigned hst_kernels_halo_kernel(size_t num_quantities, int unpack);
/* Host twins: every slot of desc[0 .. nslots) in order, the same moves as the kernels, in any
   mode. Runs along a contiguous slot dimension (step 1; RUNS mode's runs) move with one
   memcpy; others element by element. Thread-safe. */
HST_API void hst_k_halo_pack_host(const uint64_t *desc, size_t nslots, void *const *quantities,
                                  void *buffer);
HST_API void hst_k_halo_unpack_host(const uint64_t *desc, size_t nslots, const void *buffer,
                                    void *const *quantities);

/* <<halo kernels */

#ifdef __cplusplus
}
#endif

#endif /* HST_KERNELS_HALO_H */

/* ============================================================================================= */

#if defined(HST_KERNELS_HALO_IMPLEMENTATION) && !defined(HST__KERNELS_HALO_IMPLEMENTATION_DONE)
#define HST__KERNELS_HALO_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>

HST__KERNELS_FP_BEGIN

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

/* The NQ variant of a plan of n quantities: (n + 7) / 8 - 1, i.e. NQ = 8 (variant + 1); -1
   when n is 0 or above 64. */
HST__KPRIVATE int hst__halo_nq_variant(size_t n)
{
    return n == 0 || n > HST_K_HALO_MAX_QUANTITIES ? -1 : (int)((n - 1) / 8);
}

HST__KDEF const char *hst_kernels_halo_options(size_t num_quantities)
{
    static const char *const options[] = {
        "-DHST_HALO_NQ=8", "-DHST_HALO_NQ=16", "-DHST_HALO_NQ=24", "-DHST_HALO_NQ=32",
        "-DHST_HALO_NQ=40", "-DHST_HALO_NQ=48", "-DHST_HALO_NQ=56", "-DHST_HALO_NQ=64"
    };
    int v = hst__halo_nq_variant(num_quantities);
    return v < 0 ? NULL : options[v];
}

/* The rows run pack, unpack per NQ, NQ ascending (HST__KHALO_ROWS). */
typedef char hst__check_halo_rows[(HST_KHALO_PACK_8 == 0 && HST_KHALO_UNPACK_8 == 1 &&
                                   HST_KHALO_PACK_16 == 2 && HST_KHALO_UNPACK_64 == 15 &&
                                   HST_KHALO_COUNT == 16) ? 1 : -1];

HST__KDEF unsigned hst_kernels_halo_kernel(size_t num_quantities, int unpack)
{
    int v = hst__halo_nq_variant(num_quantities);
    return v < 0 ? (unsigned)HST_KHALO_COUNT : (unsigned)(2 * v + (unpack != 0));
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

/* The declared kernels' twins: the range's bands (see the declarations) through the typed
   twins. Arguments as the signature: table, prefix_at, desc_at, nbands, total, buf, q0 .. */
static void hst__kt_halo(const hst_karg *a, const hst_range *range, size_t nq, int unpack)
{
    const uint64_t *table = (const uint64_t *)hst_karg_ptr(&a[0]);
    const uint64_t *prefix = table + a[1].v.u64, *desc = table + a[2].v.u64;
    const uint64_t nbands = a[3].v.u64, *band = prefix + nbands + 1;
    uint64_t local = range->local[0] ? range->local[0] : 1, g0, g1, b;
    void *q[HST_K_HALO_MAX_QUANTITIES];
    void *buf = hst_karg_ptr(&a[5]);
    size_t i;
    g0 = range->offset[0] / local;
    g1 = range->offset[0] / local + (range->global[0] + local - 1) / local;
    for (i = 0; i < nq; ++i) q[i] = hst_karg_ptr(&a[6 + i]);
    for (b = 0; b < nbands && prefix[b] < g1; ++b) {
        const uint64_t *d = desc + band[2 * b] * HST_K_HALO_DESC_WORDS;
        if (prefix[b + 1] <= g0) continue;
        if (unpack) hst_k_halo_unpack_host(d, (size_t)band[2 * b + 1], buf, q);
        else hst_k_halo_pack_host(d, (size_t)band[2 * b + 1], q, buf);
    }
}

#define HST__KT_HALO(nq) \
    static void hst__kt_halo_pack_##nq(const hst_karg *a, const hst_range *r) \
    { hst__kt_halo(a, r, nq, 0); } \
    static void hst__kt_halo_unpack_##nq(const hst_karg *a, const hst_range *r) \
    { hst__kt_halo(a, r, nq, 1); }
HST__KT_HALO(8)
HST__KT_HALO(16)
HST__KT_HALO(24)
HST__KT_HALO(32)
HST__KT_HALO(40)
HST__KT_HALO(48)
HST__KT_HALO(56)
HST__KT_HALO(64)
#undef HST__KT_HALO

HST__KDEF const hst_kernel_family *hst_kernels_halo_family(void)
{
    static const hst_kernel_decl decls[HST_KHALO_COUNT] = { HST_HALO_KERNELS(HST_KERNEL_DECL) };
    static const hst_kernel_family family = { "halo", hst_kernels_halo_source, decls,
                                              HST_KHALO_COUNT };
    return &family;
}

/* <<halo kernels */

HST__KERNELS_FP_END

#endif /* HST_KERNELS_HALO_IMPLEMENTATION */

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
