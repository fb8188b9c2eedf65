/* esrrf_kernel_bench.c — the fused eSRRF RGC kernel (hst_k_esrrf_rgc_fused) alone on one device,
   the frames already there, against the device's peaks; and its host twin on one thread.

       esrrf_kernel_bench [--device S] [--size N] [--mag M] [--radius R] [--frames F] [--reps K]
                          [--local L[,L...]] [--variant OPTS]... [--peak-gflops G] [--peak-gbs B]
                          [--host-size N] [--no-host] [--no-weighting] [--rows R0,NR]
                          [--per-item K]

   Defaults: 1000 x 1000 frames, mag 5, radius 1.5, sensitivity 1, intensity weighting on (the
   issue's and NanoPyx's benchmark), F = 32 frames per launch (the block esrrf_bench's 500-frame
   stream launches), K = 5 timed launches after one warm-up (median), the backend's default
   work-group (L = 0: 16 x 16 over (pixels, frames), as stream.h launches it).
   --variant adds build options (e.g. "-DHST_E_TW=32") to the program's own; each variant and
   each work-group size is timed in the same process, and its first frame is compared with the
   first variant's (bitwise; the output is filled with NaN before each, so one that writes
   nothing differs). --rows: only magnified rows [R0, R0 + NR) of each frame (one of
   several devices' share, as esrrf.h splits a frame's rows; default the whole frame). --per-item
   K: the NDRange's dimension 0 is ceil(pixels / K), K the variants' HST_E_K (each group then
   has work to do); default the pixels (the groups past K / 1 of them return at once).
   --peak-gflops / --peak-gbs: the device's peak float rate (FMA
   counted as 2) and memory bandwidth, as its maker states them (0: not stated).

   Figures:
     ms per frame        launch time / F, frames resident, nothing else in the queue; and the
                         process's CPU time per frame (all threads: a CPU device's work,
                         robust on a shared machine; on a GPU, the host waiting);
     flops per pixel     a count of the kernel's float operations from its source (FMA counts
                         2; comparisons, conversions and selects not counted; floor counts 1):
                           per sample of the window (the table path: every one):  7 (offset
                                                             fma + step, W, u.d 3)
                                                           + 6 where the gradient points away
                                                             (|u x d| 3, Dk w 2, R: taken as
                                                             half the samples)
                           per pixel: 96 (interpolated intensity: 8 weights, 20 taps),
                                      87 (5 divisions of 17: 2 centres, R / W, the intensity
                                      position; 2 (int)(2 c))
                         with the window counts taken exactly for this mag and radius (all mag^2
                         sub-pixel phases averaged, inside pixels), and per work-group the tile's
                         unit gradients (107 per half-pixel position: 72 interpolation, 35 unit)
                         and the (w, w/d) table (35 per entry, 45 per axis value) added;
     bytes per pixel     4 written + the frame read (4 / mag^2): the compulsory traffic;
     achieved            flops per pixel x pixels / time, and bytes likewise, against the peaks;
     host twin           hst_k_esrrf_rgc_fused_host on one frame of --host-size (threads = 1),
                         ms per frame (best of 3), its GFLOP/s by the same count against one
                         core's FMA peak measured in the same process (a register-only loop of
                         fused multiply-adds, the widest build the twin runs: AVX-512 or
                         AVX2 + FMA; $HST_HOST_ISA caps both), and the device's result there
                         compared bitwise.

   Build: cc -std=c99 -O2 -I. bench/esrrf_kernel_bench.c -o esrrf_kernel_bench -lOpenCL -lm */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_KERNELS_TEST_API   /* hst_k_esrrf_rgc_fused_host: the host reference */
#include "backend.h"
#include "kernels_esrrf.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARIANTS 8
#define MAX_LOCALS 8
#define TILE_FLOPS 107.0    /* one half-pixel unit gradient of the tile: 6.25 taps x 10, sums,
                               scaling 2, |G|^2 3, rsqrt 28, unit 2 */
#define WTAB_FLOPS 35.0     /* one (w, w/d) table entry: d2 3, w 3, rsqrt 28, w/d 1 */
#define AXIS_FLOPS 45.0     /* one axis value of the table: offset 2 + centre 17, exp 22 + 4 */

typedef struct options {
    const char *device, *variant[MAX_VARIANTS];
    unsigned size, mag, frames, reps, host_size, host, nvariant, nlocal, row0, nrows, per_item;
    int weighting;
    size_t local[MAX_LOCALS];
    float radius;
    double peak_gflops, peak_gbs;
} options;

/* Frames of blurred random spots on a noisy background (deterministic): gradients everywhere */
static void make_frame(float *f, unsigned n, unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    unsigned i, e, y, x;
    for (i = 0; i < n * n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = 10.0f + (float)((s >> 40) & 0xFF) / 64.0f;
    }
    for (e = 0; e < n * n / 400 + 1; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        {
            float cy = (float)((s >> 16) % n), cx = (float)((s >> 40) % n);
            for (y = 0; y < n; y++) {
                float dy = (float)y - cy;
                if (dy * dy > 25.0f) continue;
                for (x = 0; x < n; x++) {
                    float dx = (float)x - cx;
                    if (dx * dx > 25.0f) continue;
                    f[(size_t)y * n + x] += 200.0f * expf(-(dx * dx + dy * dy) / 3.38f);
                }
            }
        }
    }
}

/* Samples per inside pixel, averaged over the mag^2 sub-pixel phases: candidates in the window
   (cand) and those within tSO (near), as the kernel selects them (float, same operations). */
static void window_counts(unsigned mag, float radius, double *cand, double *near)
{
    float fm = (float)mag, sigma = radius / 2.355f, tSO = 2.0f * sigma + 1.0f, gr = 2.0f * radius;
    int j0 = -(int)gr, j1 = (int)(gr + 1.0f), py, px, j, i;
    unsigned long c = 0, nr = 0;
    for (py = 0; py < (int)mag; py++)
        for (px = 0; px < (int)mag; px++) {
            /* a pixel far from the borders: macro-pixel 100 */
            int yM = 100 * (int)mag + py, xM = 100 * (int)mag + px;
            float yc = ((float)yM + 0.5f) / fm, xc = ((float)xM + 0.5f) / fm;
            int by = (int)(2.0f * yc), bx = (int)(2.0f * xc);
            for (j = j0; j < j1; j++)
                for (i = j0; i < j1; i++) {
                    float dy = (float)(by + j) * 0.5f - yc, dx = (float)(bx + i) * 0.5f - xc;
                    float d = sqrtf(dx * dx + dy * dy);
                    c++;
                    if (d != 0.0f && !(d > tSO)) nr++;
                }
        }
    *cand = (double)c / (mag * mag);
    *near = (double)nr / (mag * mag);
}

#define GROUP_PIXELS (256.0 * 8.0)   /* a work-group of 256 items, HST_E_K = 8 pixels each */

/* Half-pixel positions a 16-column strip of GROUP_PIXELS output pixels needs, per pixel (the
   local tile) */
static double tile_per_pixel(unsigned mag, float radius)
{
    float gr = 2.0f * radius;
    int jn = (int)(gr + 1.0f) + (int)gr;
    return (2.0 * 16.0 / mag + jn) * (2.0 * GROUP_PIXELS / 16.0 / mag + jn) / GROUP_PIXELS;
}

/* The bench's count of float operations per output pixel of a side x side frame (the header
   says what it counts), cand window samples a pixel */
static double flops_per_pixel(const options *o, unsigned side, double cand)
{
    unsigned margin = (unsigned)(o->radius * (float)o->mag);
    double pm = (double)side * side * o->mag * o->mag;
    double inside = (double)(side * o->mag - 2 * margin) * (side * o->mag - 2 * margin) / pm;
    int jn = (int)(2.0f * o->radius + 1.0f) + (int)(2.0f * o->radius);
    double nt = (double)o->mag * o->mag * jn * jn;
    return inside * ((7.0 + 3.0) * cand + (o->weighting ? 96.0 + 87.0 : 53.0)) +
           tile_per_pixel(o->mag, o->radius) * TILE_FLOPS +
           (nt <= 1536 ? (nt * WTAB_FLOPS + (double)o->mag * jn * AXIS_FLOPS) / GROUP_PIXELS : 0.0);
}

/* One core's FMA peak, GFLOP/s (an FMA counts 2): twelve independent chains of fused
   multiply-adds in registers (more than the 2 pipes x 4 cycles of latency in flight), the
   widest build the twin runs (hst__e_isa: AVX-512 or AVX2 + FMA); best of 5 runs of about 0.1
   s. 0 where the twins have no such build (not x86-64 with gcc or clang). *isa names it. */
#if HST__E_AVX2
#define FMA_CHAINS 12
#define FMA_PROBE(name, tgt, vec, set1, fmadd, add, storeu, lanes)                               \
    __attribute__((target(tgt))) static double name(uint64_t iters)                             \
    {                                                                                           \
        vec a[FMA_CHAINS], m = set1(0.9999999f), c = set1(1e-7f);                               \
        float out[lanes];                                                                       \
        uint64_t n;                                                                             \
        int i;                                                                                  \
        for (i = 0; i < FMA_CHAINS; i++) a[i] = set1((float)i);                                 \
        for (n = 0; n < iters; n++) {                                                           \
            _Pragma("GCC unroll 12")                                                            \
            for (i = 0; i < FMA_CHAINS; i++) a[i] = fmadd(a[i], m, c);                          \
        }                                                                                       \
        for (i = 1; i < FMA_CHAINS; i++) a[0] = add(a[0], a[i]);                                \
        storeu(out, a[0]);                                                                      \
        return (double)out[0];                                                                  \
    }
FMA_PROBE(fma_probe512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps, 16)
FMA_PROBE(fma_probe256, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps, 8)
#endif

static double fma_peak_gflops(const char **isa)
{
#if HST__E_AVX2
    int wide = hst__e_isa();
    unsigned lanes = wide == 2 ? 16 : 8, run;
    uint64_t iters = 1u << 22;
    double best = 0.0, sink = 0.0;
    *isa = wide == 2 ? "AVX-512" : "AVX2 + FMA";
    if (!wide) { *isa = "portable"; return 0.0; }
    for (run = 0; run < 5; run++) {
        double t0 = now_s(), s;
        sink += wide == 2 ? fma_probe512(iters) : fma_probe256(iters);
        s = now_s() - t0;
        if (s < 0.05) { iters *= 2; run--; continue; }   /* too short to time: longer */
        if (FMA_CHAINS * lanes * 2.0 * (double)iters / s / 1e9 > best) best = FMA_CHAINS * lanes * 2.0 * (double)iters / s / 1e9;
    }
    if (sink == 1.0) printf(" ");   /* the chains' results used */
    return best;
#else
    *isa = "portable";
    return 0.0;
#endif
}

typedef struct run {
    hst_backend *be;
    hst_queue *q;
    hst_buffer *frames, *rgc;
    const options *o;
} run;

static hst_kernel *build(run *r, const char *extra)
{
    const hst_device_info *dev = hst_backend_device(r->be);
    size_t count;
    const char *const *src = hst_kernels_esrrf_source(&count);
    char opts[512];
    hst_program *p;
    hst_kernel *k;
    /* no -cl-fp32-correctly-rounded-divide-sqrt: the program has no float division or sqrt */
    snprintf(opts, sizeof opts, "%s %s", dev->fp64 ? "-DHST_FP64" : "", extra);
    CHECK(hst_program_build(r->be, count, src, opts, &p));
    CHECK(hst_kernel_create(p, "hst_k_esrrf_rgc_fused", &k));
    hst_program_release(p);
    return k;
}

static void set_args(hst_kernel *k, run *r, cl_uint n, cl_uint frames)
{
    cl_uint mag = r->o->mag;
    cl_float radius = r->o->radius, sens = 1.0f;
    cl_int iw = r->o->weighting, flags = 3;
    cl_uint row0 = r->o->nrows ? r->o->row0 : 0, nrows = r->o->nrows ? r->o->nrows : n * mag;
    cl_ulong base = 0, begin = 0, end = frames, total = frames;
    CHECK(hst_kernel_set_buffer(k, 0, r->frames));
    CHECK(hst_kernel_set_buffer(k, 1, r->rgc));
    CHECK(hst_kernel_set_arg(k, 2, 4, &n));
    CHECK(hst_kernel_set_arg(k, 3, 4, &n));
    CHECK(hst_kernel_set_arg(k, 4, 4, &mag));
    CHECK(hst_kernel_set_arg(k, 5, 4, &radius));
    CHECK(hst_kernel_set_arg(k, 6, 4, &sens));
    CHECK(hst_kernel_set_arg(k, 7, 4, &iw));
    CHECK(hst_kernel_set_arg(k, 8, 4, &row0));
    CHECK(hst_kernel_set_arg(k, 9, 4, &nrows));
    CHECK(hst_kernel_set_arg(k, 10, 8, &base));
    CHECK(hst_kernel_set_arg(k, 11, 8, &begin));
    CHECK(hst_kernel_set_arg(k, 12, 8, &end));
    CHECK(hst_kernel_set_arg(k, 13, 8, &total));
    CHECK(hst_kernel_set_arg(k, 14, 4, &flags));
}

/* One launch over `frames` frames of n x n; local 0: the backend's default */
static void launch(hst_kernel *k, run *r, unsigned n, unsigned frames, size_t local)
{
    size_t g[2], l[2];
    g[0] = (size_t)(r->o->nrows && n == r->o->size ? r->o->nrows : n * r->o->mag) * n * r->o->mag;
    if (r->o->per_item && n == r->o->size) g[0] = (g[0] + r->o->per_item - 1) / r->o->per_item;
    g[1] = frames;
    l[0] = local;
    l[1] = 1;
    CHECK(hst_launch(r->q, k, 2, g, local ? l : NULL, 0, NULL, NULL));
}

/* CPU seconds of the process, all threads (a CPU device's work even on a shared machine) */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median ms per frame over the reps launches, after one warm-up; *cpu_ms: the process's CPU
   milliseconds per frame in that launch */
static double time_kernel(hst_kernel *k, run *r, size_t local, double *cpu_ms)
{
    double t[64], c[64], t0, c0;
    unsigned i, reps = r->o->reps < 64 ? r->o->reps : 64;
    launch(k, r, r->o->size, r->o->frames, local);
    CHECK(hst_queue_finish(r->q));
    for (i = 0; i < reps; i++) {
        t0 = now_s();
        c0 = cpu_s();
        launch(k, r, r->o->size, r->o->frames, local);
        CHECK(hst_queue_finish(r->q));
        t[i] = 1e3 * (now_s() - t0) / r->o->frames;
        c[i] = 1e3 * (cpu_s() - c0) / r->o->frames;
    }
    qsort(t, reps, sizeof t[0], cmp_d);
    qsort(c, reps, sizeof c[0], cmp_d);
    *cpu_ms = c[reps / 2];
    return t[reps / 2];
}

static size_t first_differs(const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) return i;
    return n;
}

/* The host twin on one thread at host_size, and the device's result there (default variant) */
static void host_twin(run *r, hst_kernel *k, double cand)
{
    const char *isa;
    double peak = fma_peak_gflops(&isa), gf;
    unsigned n = r->o->host_size;
    size_t px = (size_t)n * n, pm = px * r->o->mag * r->o->mag, at;
    float *f = (float *)malloc(px * 4), *h = (float *)malloc(pm * 4), *d = (float *)malloc(pm * 4);
    hst_buffer *fb = r->frames, *rb = r->rgc;
    double ms;
    unsigned rep;
    if (!f || !h || !d) { fprintf(stderr, "out of host memory\n"); exit(1); }
    make_frame(f, n, 7);
    for (rep = 0, ms = 0.0; rep < 3; rep++) {   /* the best of 3: the first touches the output's pages */
        double t0 = now_s(), t;
        hst_k_esrrf_rgc_fused_host(f, h, n, n, r->o->mag, r->o->radius, 1.0f, r->o->weighting, 0, 0, 1, 1);
        t = 1e3 * (now_s() - t0);
        if (!rep || t < ms) ms = t;
    }
    CHECK(hst_buffer_create(r->be, px * 4, HST_MEM_RESIDENT, &r->frames));
    CHECK(hst_buffer_create(r->be, pm * 4, HST_MEM_RESIDENT, &r->rgc));
    CHECK(hst_write(r->q, r->frames, 0, f, px * 4, 1, 0, NULL, NULL));
    set_args(k, r, n, 1);
    launch(k, r, n, 1, 0);
    CHECK(hst_read(r->q, r->rgc, 0, d, pm * 4, 1, 0, NULL, NULL));
    at = first_differs(d, h, pm);
    gf = flops_per_pixel(r->o, n, cand) * (double)pm / (ms * 1e-3) / 1e9;
    printf("host twin, 1 thread, %ux%u: %.1f ms per frame, %.1f GFLOP/s", n, n, ms, gf);
    if (peak > 0) printf(" (%.3f of one core's measured FMA peak, %.1f GFLOP/s %s)", gf / peak, peak, isa);
    printf("; device vs twin there: %s", at == pm ? "bitwise equal\n" : "DIFFERENT");
    if (at < pm) printf(" at %zu: %.9g vs %.9g\n", at, (double)d[at], (double)h[at]);
    hst_buffer_destroy(r->frames);
    hst_buffer_destroy(r->rgc);
    r->frames = fb;
    r->rgc = rb;
    free(f); free(h); free(d);
}

static void bench(const options *o)
{
    hst_backend_desc bd;
    run r;
    const hst_device_info *dev;
    size_t px = (size_t)o->size * o->size, pm = px * o->mag * o->mag, i;
    float *frame = (float *)malloc(px * 4), *ref = (float *)malloc(pm * 4), *got = (float *)malloc(pm * 4);
    double cand, near, flops, bytes;
    unsigned v, li, f;
    double pw = o->nrows ? (double)o->nrows * o->size * o->mag : (double)pm;   /* pixels timed */
    memset(&bd, 0, sizeof bd);
    memset(&r, 0, sizeof r);
    bd.device = o->device;
    r.o = o;
    if (!frame || !ref || !got) { fprintf(stderr, "out of host memory\n"); exit(1); }
    CHECK(hst_backend_create(&bd, &r.be));
    if (hst_backend_is_host(r.be)) { fprintf(stderr, "esrrf_kernel_bench: give an OpenCL device (--device)\n"); exit(2); }
    dev = hst_backend_device(r.be);
    r.q = hst_backend_queue(r.be);
    window_counts(o->mag, o->radius, &cand, &near);
    flops = flops_per_pixel(o, o->size, cand);
    bytes = 4.0 + 4.0 / (o->mag * o->mag);
    printf("esrrf_kernel_bench: %s (%s), %u compute units\n", dev->name, dev->platform_name,
           dev->compute_units);
    printf("frames %ux%u, mag %u, radius %g, sensitivity 1, weighting %s; %u frames per launch, "
           "median of %u launches\n", o->size, o->size, o->mag, (double)o->radius,
           o->weighting ? "on" : "off", o->frames, o->reps);
    if (o->nrows || o->per_item)
        printf("magnified rows [%u, %u) of each frame; NDRange dimension 0: the pixels / %u\n",
               o->nrows ? o->row0 : 0, o->nrows ? o->row0 + o->nrows : o->size * o->mag,
               o->per_item ? o->per_item : 1);
    printf("per pixel: %.1f window samples, %.1f within tSO; %.0f flops, %.2f bytes (%.0f flops/byte)\n",
           cand, near, flops, bytes, flops / bytes);
    make_frame(frame, o->size, 1);
    CHECK(hst_buffer_create(r.be, px * 4 * o->frames, HST_MEM_RESIDENT, &r.frames));
    CHECK(hst_buffer_create(r.be, pm * 4 * o->frames, HST_MEM_RESIDENT, &r.rgc));
    for (f = 0; f < o->frames; f++)
        CHECK(hst_write(r.q, r.frames, px * 4 * f, frame, px * 4, 1, 0, NULL, NULL));
    for (v = 0; v < o->nvariant; v++) {
        hst_kernel *k = build(&r, o->variant[v]);
        set_args(k, &r, o->size, o->frames);
        for (li = 0; li < o->nlocal; li++) {
            const uint32_t nan = 0xFFFFFFFFu;   /* so that a variant which writes nothing differs */
            double cms, ms;
            CHECK(hst_fill(r.q, r.rgc, &nan, sizeof nan, 0, pm * 4 * o->frames, 0, NULL, NULL));
            ms = time_kernel(k, &r, o->local[li], &cms);
            double gf = flops * pw / (ms * 1e-3) / 1e9, gb = bytes * pw / (ms * 1e-3) / 1e9;
            CHECK(hst_read(r.q, r.rgc, 0, v + li ? got : ref, pm * 4, 1, 0, NULL, NULL));
            i = v + li ? first_differs(got, ref, pm) : pm;
            printf("variant \"%s\" local %zu: %8.3f ms per frame  %8.0f GFLOP/s", o->variant[v],
                   o->local[li], ms, gf);
            if (o->peak_gflops > 0) printf(" (%.3f of peak)", gf / o->peak_gflops);
            printf("  %7.1f GB/s", gb);
            if (o->peak_gbs > 0) printf(" (%.4f of peak)", gb / o->peak_gbs);
            printf("  cpu %.1f ms  %s\n", cms, i == pm ? (v + li ? "= first" : "") : "DIFFERS from the first");
        }
        if (v == 0 && o->host) host_twin(&r, k, cand);
        hst_kernel_destroy(k);
    }
    if (o->peak_gflops > 0 && o->peak_gbs > 0)
        printf("peaks stated: %.0f GFLOP/s, %.0f GB/s: ridge %.1f flops/byte; the kernel: %.0f flops/byte -> "
               "compute bound (time at the float peak %.3f ms per frame, at the bandwidth %.4f)\n",
               o->peak_gflops, o->peak_gbs, o->peak_gflops / o->peak_gbs, flops / bytes,
               flops * pm / o->peak_gflops / 1e6, bytes * pm / o->peak_gbs / 1e6);
    hst_buffer_destroy(r.frames);
    hst_buffer_destroy(r.rgc);
    CHECK(hst_backend_destroy(r.be));
    free(frame); free(ref); free(got);
}

static void usage(FILE *to)
{
    fprintf(to, "usage: esrrf_kernel_bench [--device S] [--size N] [--mag M] [--radius R] [--frames F] [--reps K]\n"
                "                          [--local L[,L...]] [--variant OPTS]... [--peak-gflops G] [--peak-gbs B]\n"
                "                          [--host-size N] [--no-host] [--no-weighting] [--rows R0,NR]\n"
                "                          [--per-item K]\n");
}

static int parse(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->size = 1000; o->mag = 5; o->radius = 1.5f; o->frames = 32; o->reps = 5;
    o->host_size = 256; o->host = 1; o->weighting = 1;
    o->nlocal = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-host")) { o->host = 0; continue; }
        if (!strcmp(a, "--no-weighting")) { o->weighting = 0; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
        if (!v) { usage(stderr); return 0; }
        i++;
        if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--size")) o->size = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--mag")) o->mag = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--radius")) o->radius = strtof(v, NULL);
        else if (!strcmp(a, "--frames")) o->frames = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--reps")) o->reps = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--host-size")) o->host_size = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--peak-gflops")) o->peak_gflops = strtod(v, NULL);
        else if (!strcmp(a, "--peak-gbs")) o->peak_gbs = strtod(v, NULL);
        else if (!strcmp(a, "--per-item")) o->per_item = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--rows")) {
            char *e = (char *)v;
            o->row0 = (unsigned)strtoul(e, &e, 10);
            o->nrows = *e == ',' ? (unsigned)strtoul(e + 1, NULL, 10) : 0;
        } else if (!strcmp(a, "--variant") && o->nvariant < MAX_VARIANTS) o->variant[o->nvariant++] = v;
        else if (!strcmp(a, "--local")) {
            char *e = (char *)v;
            o->nlocal = 0;
            while (*e && o->nlocal < MAX_LOCALS) {
                o->local[o->nlocal++] = (size_t)strtoul(e, &e, 10);
                if (*e == ',') e++;
                else break;
            }
        } else { usage(stderr); return 0; }
    }
    if (!o->nvariant) o->variant[o->nvariant++] = "";
    if (o->nrows && (uint64_t)o->row0 + o->nrows > (uint64_t)o->size * o->mag) {
        fprintf(stderr, "esrrf_kernel_bench: --rows beyond the magnified frame\n");
        return 0;
    }
    if (!o->size || !o->mag || !o->frames || !o->reps || !o->nlocal || !o->host_size ||
        !(o->radius > 0)) {
        fprintf(stderr, "esrrf_kernel_bench: sizes, mag, frames, reps and radius must be > 0\n");
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) return 2;
    bench(&o);
    return 0;
}
