/* tests/windows/fmaf_checks.h — kernels.h's fused multiply-adds (hst__fmaf_soft, HST__FMAF)
   against the CPU's FMA instruction, bit for bit, on generated inputs: random bit patterns
   (every class: NaN, infinities, subnormals), products near the overflow and the underflow
   thresholds, cancellation (c close to -a b), ties (a b + c exactly halfway between two
   floats: ties to even), and every triple of an edge-value table (signed zeros, the smallest
   and largest subnormals and normals, 1 and its neighbours, infinities, NaN). Shared by
   tests/test_fmaf.c (cmocka) and tests/windows/check.c (mingw-w64 under Wine). Include after
   kernels.h. Two NaNs agree whatever their payloads (IEEE 754 leaves them open); every other
   result must have the same bits, the sign of zero included. */
#ifndef HST_TESTS_FMAF_CHECKS_H
#define HST_TESTS_FMAF_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#  define FC_FN static __attribute__((unused))
#else
#  define FC_FN static
#endif

/* The instruction: fc_has_hw() says whether this CPU has it. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(_MSC_VER)
__attribute__((target("fma"))) static float fc_hw(float a, float b, float c) { return HST__FMAF_HW(a, b, c); }
static int fc_has_hw(void) { return __builtin_cpu_supports("fma") != 0; }
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__ARM_FEATURE_FMA)
static float fc_hw(float a, float b, float c) { return HST__FMAF_HW(a, b, c); }
static int fc_has_hw(void) { return 1; }
#else
static float fc_hw(float a, float b, float c) { return hst__fmaf_soft(a, b, c); }
static int fc_has_hw(void) { return 0; }
#endif

static uint32_t fc_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float fc_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static int fc_same(float x, float y) { return x != x ? y != y : fc_bits(x) == fc_bits(y); }

static uint64_t fc_next(uint64_t *s) {   /* splitmix64 (Steele, Lea and Flood, OOPSLA 2014) */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A float with a random sign and mantissa and a biased exponent in [lo, hi] (0: subnormal). */
static float fc_with_exp(uint64_t r, unsigned lo, unsigned hi) {
    uint32_t e = lo + (uint32_t)((r >> 32) % (hi - lo + 1));
    return fc_float((uint32_t)(r & 0x807fffffu) | e << 23);
}

#define FC_KINDS 7
/* The i-th input of kind i % FC_KINDS from the generator state s. */
static void fc_input(uint64_t *s, uint64_t i, float *a, float *b, float *c) {
    uint64_t r1 = fc_next(s), r2 = fc_next(s), r3 = fc_next(s);
    switch (i % FC_KINDS) {
    case 0:   /* any bits */
        *a = fc_float((uint32_t)r1); *b = fc_float((uint32_t)r2); *c = fc_float((uint32_t)r3);
        break;
    case 1:   /* ordinary magnitudes, c of any size near theirs */
        *a = fc_with_exp(r1, 100, 154); *b = fc_with_exp(r2, 100, 154); *c = fc_with_exp(r3, 60, 200);
        break;
    case 2: { /* cancellation: c = -(a b) rounded, nudged by a few ulps */
        int32_t nudge = (int32_t)(r3 % 9) - 4;
        *a = fc_with_exp(r1, 1, 254); *b = fc_with_exp(r2, 127 - 60, 127 + 60);
        *c = -(*a * *b);
        if (*c == *c && *c - *c == 0.0f) *c = fc_float(fc_bits(*c) + (uint32_t)nudge);
        break;
    }
    case 3:   /* products and sums near the overflow threshold */
        *a = fc_with_exp(r1, 160, 200); *b = fc_with_exp(r2, 180, 225);   /* 2^86 .. 2^171 */
        *c = fc_with_exp(r3, 240, 254);
        break;
    case 4:   /* products in and below the subnormal range, c subnormal or tiny */
        *a = fc_with_exp(r1, 1, 80); *b = fc_with_exp(r2, 1, 80); *c = fc_with_exp(r3, 0, 3);
        break;
    case 5: { /* near ties: 13-bit significands make a b exact in at most 26 bits, often a
                 midpoint between two floats; c lies 24 to 63 places below it, so the exact sum
                 is a tie, or just off one by less than double resolves (where rounding
                 through double goes wrong) */
        uint32_t ea = 110 + (uint32_t)(r1 >> 40) % 30, eb = 110 + (uint32_t)(r2 >> 40) % 30;
        *a = fc_float((uint32_t)(r1 & 0x80000000u) | ea << 23 | ((uint32_t)r1 & 0x7ff800u));
        *b = fc_float((uint32_t)(r2 & 0x80000000u) | eb << 23 | ((uint32_t)r2 & 0x7ff800u));
        *c = fc_float((uint32_t)(r3 & 0x807fffffu) | (ea + eb - 127 - 24 - (uint32_t)(r3 >> 40) % 40) << 23);
        break;
    }
    default:  /* exact zeros from cancellation and signed zeros in c */
        *a = fc_with_exp(r1, 100, 154); *b = fc_with_exp(r2, 100, 154);
        *c = (r3 & 1) ? -(*a * *b) : ((r3 & 2) ? -0.0f : 0.0f);
        break;
    }
}

typedef struct fc_report {
    uint64_t tested, mismatches;
    float a, b, c, want, got;   /* the first mismatch */
    const char *which;          /* "hst__fmaf_soft" or "HST__FMAF" */
} fc_report;

static void fc_one(fc_report *rep, float a, float b, float c) {
    float want = fc_hw(a, b, c), soft = hst__fmaf_soft(a, b, c), any = HST__FMAF(a, b, c);
    int ok_soft = fc_same(soft, want), ok_any = fc_same(any, want);
    rep->tested++;
    if (ok_soft && ok_any) return;
    if (rep->mismatches++ == 0) {
        rep->a = a; rep->b = b; rep->c = c; rep->want = want;
        rep->got = ok_soft ? any : soft;
        rep->which = ok_soft ? "HST__FMAF" : "hst__fmaf_soft";
    }
}

/* n generated inputs from seed, into rep (zeroed first by the caller). */
FC_FN void fc_run_random(fc_report *rep, uint64_t seed, uint64_t n) {
    uint64_t i, s = seed;
    for (i = 0; i < n; i++) {
        float a, b, c;
        fc_input(&s, i, &a, &b, &c);
        fc_one(rep, a, b, c);
    }
}

/* Every triple of the edge table, each value with both signs (48^3 inputs). */
FC_FN void fc_run_edges(fc_report *rep) {
    static const uint32_t mag[] = {
        0x00000000u, 0x00000001u, 0x00000002u, 0x003fffffu, 0x00400000u, 0x007fffffu,
        0x00800000u, 0x00800001u, 0x3f7fffffu, 0x3f800000u, 0x3f800001u, 0x3fffffffu,
        0x40000000u, 0x33800000u, 0x34000000u, 0x1f800000u, 0x5f800000u, 0x7f7fffffu,
        0x7f7ffffeu, 0x7f000000u, 0x7f800000u, 0x7fc00000u, 0x0c800000u, 0x26000000u};
    enum { N = sizeof mag / sizeof mag[0] };
    float v[2 * N];
    unsigned i, j, k;
    for (i = 0; i < N; i++) { v[2 * i] = fc_float(mag[i]); v[2 * i + 1] = fc_float(mag[i] | 0x80000000u); }
    for (i = 0; i < 2 * N; i++)
        for (j = 0; j < 2 * N; j++)
            for (k = 0; k < 2 * N; k++) fc_one(rep, v[i], v[j], v[k]);
}

/* "" when rep has no mismatch, else a line describing the first (into buf). */
FC_FN const char *fc_describe(const fc_report *rep, char *buf, size_t cap) {
    if (!rep->mismatches) return "";
    snprintf(buf, cap, "%s: %lu of %lu differ from the instruction; first fma(%a, %a, %a) = %a, got %a",
             rep->which, (unsigned long)rep->mismatches, (unsigned long)rep->tested, (double)rep->a,
             (double)rep->b, (double)rep->c, (double)rep->want, (double)rep->got);
    return buf;
}

#endif /* HST_TESTS_FMAF_CHECKS_H */
