/* esrrf_bench.c — eSRRF speed on one device: milliseconds per frame of the fused and the chained
   RGC path (kernels only, the frame already on the device), a streamed run of many frames through
   stream.h with its overlap efficiency, and the host C twins (threaded over frames) against the
   OpenCL kernels, with the largest difference between their results.

       esrrf_bench [--device S] [--size N] [--frames F] [--mag M] [--radius R] [--reps K]
                   [--host-size N] [--host-frames F] [--no-host] [--no-chained]

   Defaults: 1000 x 1000 frames, mag 5, radius 1.5 (the and NanoPyx's benchmark), 10 timed
   frames per path after one warm-up, a stream of 500 frames, host twins on 256 x 256 frames (one
   per core, at least 2). Small on a laptop's CPU: --size 256 --frames 16 --reps 2.

   Figures:
     fused / chained ms per frame   RGC of one frame (chained: roberts, magnify x2, rgc), plus the
                                    temporal accumulation, timed over K frames with events waited
                                    once at the end (the queue runs them back to back);
     stream                         F frames from pageable host memory through stream.h (fused +
                                    temporal, GLOBAL accumulator, automatic block size as the esrrf
                                    CLI chooses it): frames/s, and the overlap efficiency
                                    = F x (fused ms per frame) / stream time: 1.0 when uploads are
                                    hidden behind compute and nothing else costs; the halo frame
                                    each block recomputes (1 per block) counts against it;
     host twin                      the same kernels in C on all cores, ms per frame, and
                                    max |OpenCL - host| / max |host| over the RGC images.

   Build: cc -std=c99 -O2 -I. bench/esrrf_bench.c -o esrrf_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#include "stream.h"
#include "kernels.h"
#include "bench_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PATTERNS 16          /* distinct synthetic frames, cycled */
#define TARGET_BLOCKS 16     /* the CLI's automatic block size */
#define MIN_BLOCK 16

typedef struct options {
    const char *device;
    unsigned size, mag, reps, host_size, host_frames, host, chained;
    uint64_t frames;
    float radius;
} options;

#define TRY(call) do { hst_result r_ = (call); if (r_ != HST_SUCCESS) { \
        fprintf(stderr, "esrrf_bench: %s failed: %s (%d)\n", #call, hst_result_string(r_), r_); \
        return r_; } } while (0)

/* Blinking emitters (Gaussian spots, PSF sigma 1.3 px, on in ~30% of frames) on a background,
   with deterministic noise: frame p of PATTERNS. */
static void make_frame(float *f, unsigned n, unsigned p)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (p + 1);
    unsigned y, e;
    for (y = 0; y < n * n; y++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        f[y] = 10.0f + (float)((s >> 40) & 0xFF) / 64.0f;
    }
    for (e = 0; e < n * n / 400; e++) {
        uint64_t h = (uint64_t)(e + 1) * 0xD1B54A32D192ED03ull;
        float cy = (float)((h >> 8) % n), cx = (float)((h >> 32) % n);
        int y0, x0;
        if (((h >> 20) ^ (p * 2654435761u)) % 10 >= 3) continue;   /* off in this frame */
        for (y0 = (int)cy - 4; y0 <= (int)cy + 4; y0++)
            for (x0 = (int)cx - 4; x0 <= (int)cx + 4; x0++) {
                float dy = (float)y0 - cy, dx = (float)x0 - cx;
                if (y0 < 0 || x0 < 0 || y0 >= (int)n || x0 >= (int)n) continue;
                f[(size_t)y0 * n + (size_t)x0] += 200.0f * expf(-(dx * dx + dy * dy) / (2 * 1.69f));
            }
    }
}

/* ------------------------------------------------------------------ kernels, launched directly */
/* Every buffer holds one frame: the launches use base 0, frames [0, 1) of 1 (the same frame each
   time: the cost of a frame does not depend on its index). */
typedef struct kset { hst_kernel *fused, *roberts, *magnify, *rgc, *temporal; } kset;
typedef struct dev_bufs { hst_buffer *frames, *rgc, *grad, *grad2, *mag, *acc; } dev_bufs;

static hst_result block_args_n(hst_kernel *k, unsigned i, cl_ulong frames)
{
    cl_ulong base = 0, begin = 0, end = frames, total = frames;
    cl_int flags = HST_STREAM_FIRST | HST_STREAM_LAST;
    TRY(hst_kernel_set_arg(k, i, 8, &base));
    TRY(hst_kernel_set_arg(k, i + 1, 8, &begin));
    TRY(hst_kernel_set_arg(k, i + 2, 8, &end));
    TRY(hst_kernel_set_arg(k, i + 3, 8, &total));
    return hst_kernel_set_arg(k, i + 4, 4, &flags);
}

static hst_result block_args(hst_kernel *k, unsigned i) { return block_args_n(k, i, 1); }

static hst_result magnify_args(hst_kernel *k, hst_buffer *in, hst_buffer *out, cl_uint n, cl_uint mag,
                               cl_uint channels)
{
    TRY(hst_kernel_set_buffer(k, 0, in));
    TRY(hst_kernel_set_buffer(k, 1, out));
    TRY(hst_kernel_set_arg(k, 2, 4, &n));
    TRY(hst_kernel_set_arg(k, 3, 4, &n));
    TRY(hst_kernel_set_arg(k, 4, 4, &mag));
    TRY(hst_kernel_set_arg(k, 5, 4, &channels));
    return block_args(k, 6);
}

/* Sets every kernel's arguments once (they do not change between frames). */
static hst_result set_args(kset *k, dev_bufs *b, const options *o, cl_uint n)
{
    cl_uint mag = o->mag, pixels = n * n * o->mag * o->mag, fpt = 1;
    cl_float radius = o->radius, sens = 1.0f;
    cl_int iw = 1;
    TRY(hst_kernel_set_buffer(k->fused, 0, b->frames));
    TRY(hst_kernel_set_buffer(k->fused, 1, b->rgc));
    TRY(hst_kernel_set_arg(k->fused, 2, 4, &n)); TRY(hst_kernel_set_arg(k->fused, 3, 4, &n));
    TRY(hst_kernel_set_arg(k->fused, 4, 4, &mag)); TRY(hst_kernel_set_arg(k->fused, 5, 4, &radius));
    TRY(hst_kernel_set_arg(k->fused, 6, 4, &sens)); TRY(hst_kernel_set_arg(k->fused, 7, 4, &iw));
    TRY(block_args(k->fused, 8));
    TRY(hst_kernel_set_buffer(k->temporal, 0, b->rgc));
    TRY(hst_kernel_set_buffer(k->temporal, 1, b->acc));
    TRY(hst_kernel_set_arg(k->temporal, 2, 4, &pixels));
    TRY(hst_kernel_set_arg(k->temporal, 3, 4, &fpt));
    TRY(block_args(k->temporal, 4));
    if (!o->chained) return HST_SUCCESS;
    TRY(hst_kernel_set_buffer(k->roberts, 0, b->frames));
    TRY(hst_kernel_set_buffer(k->roberts, 1, b->grad));
    TRY(hst_kernel_set_arg(k->roberts, 2, 4, &n)); TRY(hst_kernel_set_arg(k->roberts, 3, 4, &n));
    TRY(block_args(k->roberts, 4));
    TRY(hst_kernel_set_buffer(k->rgc, 0, b->grad2));
    TRY(hst_kernel_set_buffer(k->rgc, 1, b->mag));
    TRY(hst_kernel_set_buffer(k->rgc, 2, b->rgc));
    TRY(hst_kernel_set_arg(k->rgc, 3, 4, &n)); TRY(hst_kernel_set_arg(k->rgc, 4, 4, &n));
    TRY(hst_kernel_set_arg(k->rgc, 5, 4, &mag)); TRY(hst_kernel_set_arg(k->rgc, 6, 4, &radius));
    TRY(hst_kernel_set_arg(k->rgc, 7, 4, &sens)); TRY(hst_kernel_set_arg(k->rgc, 8, 4, &iw));
    return block_args(k->rgc, 9);
}

/* One frame's RGC (fused, or the chain of four) and its temporal accumulation, enqueued. */
static hst_result launch_frame(hst_queue *q, kset *k, dev_bufs *b, const options *o, unsigned n,
                               int chained)
{
    size_t pixels = (size_t)n * n * o->mag * o->mag, g[2];
    g[1] = 1;
    if (!chained) {
        g[0] = pixels;
        TRY(hst_launch(q, k->fused, 2, g, NULL, 0, NULL, NULL));
    } else {
        g[0] = (size_t)n * n;
        TRY(hst_launch(q, k->roberts, 2, g, NULL, 0, NULL, NULL));
        TRY(magnify_args(k->magnify, b->grad, b->grad2, n, 2 * o->mag, 2));
        g[0] = (size_t)n * n * 4 * o->mag * o->mag;
        TRY(hst_launch(q, k->magnify, 2, g, NULL, 0, NULL, NULL));
        TRY(magnify_args(k->magnify, b->frames, b->mag, n, o->mag, 1));
        g[0] = pixels;
        TRY(hst_launch(q, k->magnify, 2, g, NULL, 0, NULL, NULL));
        TRY(hst_launch(q, k->rgc, 2, g, NULL, 0, NULL, NULL));
    }
    g[0] = pixels;
    return hst_launch(q, k->temporal, 1, g, NULL, 0, NULL, NULL);
}

/* ms per frame of a path: one warm-up, then reps frames back to back, one wait at the end. */
static hst_result time_path(hst_queue *q, kset *k, dev_bufs *b, const options *o, int chained,
                            double *ms)
{
    unsigned r;
    double t0;
    TRY(launch_frame(q, k, b, o, o->size, chained));
    TRY(hst_queue_finish(q));
    t0 = now_s();
    for (r = 0; r < o->reps; r++) TRY(launch_frame(q, k, b, o, o->size, chained));
    TRY(hst_queue_finish(q));
    *ms = 1e3 * (now_s() - t0) / o->reps;
    return HST_SUCCESS;
}

/* ms per frame of the fused path with `nf` frames per launch (as the stream launches a block):
   fused then temporal over frames [0, nf) of buffers that hold nf frames. */
static hst_result time_fused_batch(hst_backend *be, hst_queue *q, kset *k, const options *o,
                                   const float *frame, unsigned nf, double *ms)
{
    size_t px = (size_t)o->size * o->size, pm = px * o->mag * o->mag, g[2];
    const hst_device_info *dev = hst_backend_device(be);
    dev_bufs b;
    cl_uint n = o->size, mag = o->mag, pixels = (cl_uint)pm, fpt = nf;
    cl_float radius = o->radius, sens = 1.0f;
    cl_int iw = 1;
    unsigned f, rep;
    double t0;
    hst_result r = HST_SUCCESS;
    static const unsigned char zero[8] = {0};
    memset(&b, 0, sizeof b);
    if ((r = hst_buffer_create(be, px * 4 * nf, HST_MEM_RESIDENT, &b.frames)) != HST_SUCCESS ||
        (r = hst_buffer_create(be, pm * 4 * nf, HST_MEM_RESIDENT, &b.rgc)) != HST_SUCCESS ||
        (r = hst_buffer_create(be, pm * 5 * (dev->fp64 ? 8 : 4), HST_MEM_RESIDENT, &b.acc)) != HST_SUCCESS)
        goto out;
    for (f = 0; f < nf && r == HST_SUCCESS; f++) r = hst_write(q, b.frames, px * 4 * f, frame, px * 4, 1, 0, NULL, NULL);
    if (r == HST_SUCCESS) r = hst_fill(q, b.acc, zero, 8, 0, pm * 5 * (dev->fp64 ? 8 : 4), 0, NULL, NULL);
    if (r != HST_SUCCESS) goto out;
    TRY(hst_kernel_set_buffer(k->fused, 0, b.frames));
    TRY(hst_kernel_set_buffer(k->fused, 1, b.rgc));
    TRY(hst_kernel_set_arg(k->fused, 2, 4, &n)); TRY(hst_kernel_set_arg(k->fused, 3, 4, &n));
    TRY(hst_kernel_set_arg(k->fused, 4, 4, &mag)); TRY(hst_kernel_set_arg(k->fused, 5, 4, &radius));
    TRY(hst_kernel_set_arg(k->fused, 6, 4, &sens)); TRY(hst_kernel_set_arg(k->fused, 7, 4, &iw));
    TRY(block_args_n(k->fused, 8, nf));
    TRY(hst_kernel_set_buffer(k->temporal, 0, b.rgc));
    TRY(hst_kernel_set_buffer(k->temporal, 1, b.acc));
    TRY(hst_kernel_set_arg(k->temporal, 2, 4, &pixels));
    TRY(hst_kernel_set_arg(k->temporal, 3, 4, &fpt));
    TRY(block_args_n(k->temporal, 4, nf));
    for (rep = 0; rep < 2; rep++) {   /* the first is the warm-up */
        t0 = now_s();
        g[0] = pm; g[1] = nf;
        TRY(hst_launch(q, k->fused, 2, g, NULL, 0, NULL, NULL));
        TRY(hst_launch(q, k->temporal, 1, g, NULL, 0, NULL, NULL));
        TRY(hst_queue_finish(q));
        *ms = 1e3 * (now_s() - t0) / nf;
    }
out:
    hst_buffer_destroy(b.frames); hst_buffer_destroy(b.rgc); hst_buffer_destroy(b.acc);
    return r;
}

/* ------------------------------------------------------------------ host twins, threaded */
typedef struct host_job {
    const float *frames;
    float *rgc, *grad, *grad2, *mag;
    unsigned n, f0, f1, chained;
    const options *o;
} host_job;

static void *host_thread(void *p)
{
    host_job *j = (host_job *)p;
    size_t px = (size_t)j->n * j->n, pm = px * j->o->mag * j->o->mag;
    unsigned f;
    for (f = j->f0; f < j->f1; f++) {   /* each frame as a one-frame block */
        const float *fr = j->frames + f * px;
        float *rgc = j->rgc + f * pm;
        if (!j->chained) {
            hst_k_esrrf_rgc_fused_host(fr, rgc, j->n, j->n, j->o->mag, j->o->radius, 1.0f, 1, 0, 0, 1, 1);
        } else {
            hst_k_esrrf_roberts_host(fr, j->grad, j->n, j->n, 0, 0, 1, 1);
            hst_k_esrrf_magnify_host(j->grad, j->grad2, j->n, j->n, 2 * j->o->mag, 2, 0, 0, 1, 1);
            hst_k_esrrf_magnify_host(fr, j->mag, j->n, j->n, j->o->mag, 1, 0, 0, 1, 1);
            hst_k_esrrf_rgc_host(j->grad2, j->mag, rgc, j->n, j->n, j->o->mag, j->o->radius, 1.0f, 1, 0, 0, 1, 1);
        }
    }
    return NULL;
}

/* frames (nf x n x n) -> rgc (nf x rowsM x colsM) on `threads` threads: seconds. */
static double host_rgc(const options *o, const float *frames, float *rgc, unsigned n, unsigned nf,
                       unsigned threads, int chained)
{
    host_job jobs[256];
    pthread_t th[256];
    unsigned t;
    double t0 = now_s();
    size_t px = (size_t)n * n;
    if (threads > nf) threads = nf;
    for (t = 0; t < threads; t++) {
        jobs[t].frames = frames; jobs[t].rgc = rgc; jobs[t].n = n; jobs[t].o = o;
        jobs[t].chained = (unsigned)chained;
        jobs[t].f0 = nf * t / threads; jobs[t].f1 = nf * (t + 1) / threads;
        jobs[t].grad = jobs[t].grad2 = jobs[t].mag = NULL;
        if (chained) {
            jobs[t].grad = (float *)malloc(px * 2 * sizeof(float));
            jobs[t].grad2 = (float *)malloc(px * 8 * o->mag * o->mag * sizeof(float));
            jobs[t].mag = (float *)malloc(px * o->mag * o->mag * sizeof(float));
            if (!jobs[t].grad || !jobs[t].grad2 || !jobs[t].mag) { fprintf(stderr, "out of host memory\n"); exit(1); }
        }
    }
    t0 = now_s();
    for (t = 1; t < threads; t++)
        if (pthread_create(&th[t], NULL, host_thread, &jobs[t]) != 0) { fprintf(stderr, "pthread_create failed\n"); exit(1); }
    host_thread(&jobs[0]);
    for (t = 1; t < threads; t++) pthread_join(th[t], NULL);
    t0 = now_s() - t0;
    for (t = 0; t < threads; t++) { free(jobs[t].grad); free(jobs[t].grad2); free(jobs[t].mag); }
    return t0;
}

/* ------------------------------------------------------------------ streamed run */
static hst_result host_dummy(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{
    (void)a; (void)s; (void)b; (void)u;
    return HST_ERROR_UNSUPPORTED;   /* the stream runs on an OpenCL device here */
}

/* frames: pinned host memory (hst_pinned_create), so the ring uploads straight from it. The
   stream runs twice and the second run is timed (the first pays the first launches). */
static hst_result stream_run(hst_backend *be, const options *o, const char *const *src, size_t count,
                             const char *opts, hst_buffer *frames, uint64_t nf, double *seconds,
                             uint64_t *block, uint64_t *blocks)
{
    static const int in0[1] = { 0 }, out1[1] = { 1 }, in1[1] = { 1 }, out2[1] = { 2 };
    cl_uint n = o->size, mag = o->mag, pixels = n * n * o->mag * o->mag, fpt = (cl_uint)nf;
    float radius = o->radius, sens = 1.0f;
    int iw = 1;
    hst_stream_array arr[3];
    hst_stream_stage st[2];
    hst_stream_desc d;
    hst_stream_report rep;
    hst_stream *s;
    double *acc;
    uint64_t B = (nf + TARGET_BLOCKS - 1) / TARGET_BLOCKS;
    hst_result r;
    if (B < MIN_BLOCK) B = MIN_BLOCK;
    if (B > nf) B = nf;
    if (!(acc = (double *)calloc((size_t)5 * pixels, sizeof(double)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    memset(arr, 0, sizeof arr);
    memset(st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    arr[0].kind = HST_STREAM_INPUT; arr[0].pinned = frames; arr[0].slice_bytes = (size_t)n * n * 4;
    arr[1].kind = HST_STREAM_TEMP; arr[1].slice_bytes = (size_t)pixels * 4;
    arr[2].kind = HST_STREAM_GLOBAL; arr[2].host = acc;
    arr[2].dtype = hst_backend_device(be)->fp64 ? HST_F64 : HST_F32;
    arr[2].global_bytes = (size_t)5 * pixels * (arr[2].dtype == HST_F64 ? 8 : 4);
    st[0].sources = st[1].sources = src;
    st[0].source_count = st[1].source_count = count;
    st[0].options = st[1].options = opts;
    st[0].host = st[1].host = host_dummy;
    st[0].kernel = "hst_k_esrrf_rgc_fused";
    st[0].num_inputs = 1; st[0].inputs = in0; st[0].num_outputs = 1; st[0].outputs = out1;
    st[0].items_per_slice = pixels;
    st[0].num_scalars = 6;
    st[0].scalars[0] = &n; st[0].scalars[1] = &n; st[0].scalars[2] = &mag;
    st[0].scalars[3] = &radius; st[0].scalars[4] = &sens; st[0].scalars[5] = &iw;
    st[0].scalar_bytes[0] = st[0].scalar_bytes[1] = st[0].scalar_bytes[2] = 4;
    st[0].scalar_bytes[3] = st[0].scalar_bytes[4] = st[0].scalar_bytes[5] = 4;
    st[1].kernel = "hst_k_esrrf_temporal";
    st[1].num_inputs = 1; st[1].inputs = in1; st[1].num_outputs = 1; st[1].outputs = out2;
    st[1].items_per_slice = pixels;
    st[1].loop_slices = 1;
    st[1].halo_lo = nf > 1 ? 1 : 0;
    st[1].num_scalars = 2;
    st[1].scalars[0] = &pixels; st[1].scalars[1] = &fpt;
    st[1].scalar_bytes[0] = st[1].scalar_bytes[1] = 4;
    d.backends = &be; d.num_backends = 1; d.num_slices = nf;
    d.arrays = arr; d.num_arrays = 3; d.stages = st; d.num_stages = 2;
    d.block_slices = B;
    r = hst_stream_create(&d, &s);
    if (r == HST_ERROR_OUT_OF_DEVICE_MEMORY) { d.block_slices = 0; r = hst_stream_create(&d, &s); }
    if (r != HST_SUCCESS) { free(acc); TRY(r); }
    *block = hst_stream_block_slices(s);
    r = hst_stream_run(s, &rep);
    if (r == HST_SUCCESS) r = hst_stream_run(s, &rep);
    *seconds = rep.seconds;
    *blocks = rep.blocks;
    hst_stream_destroy(s);
    free(acc);
    return r;
}

/* ------------------------------------------------------------------ main */
static void usage(FILE *to)
{
    fprintf(to, "usage: esrrf_bench [--device S] [--size N] [--frames F] [--mag M] [--radius R] [--reps K]\n"
                "                   [--host-size N] [--host-frames F] [--no-host] [--no-chained]\n");
}

static int parse(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->size = 1000; o->frames = 500; o->mag = 5; o->radius = 1.5f; o->reps = 10;
    o->host_size = 256; o->host = 1; o->chained = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-host")) { o->host = 0; continue; }
        if (!strcmp(a, "--no-chained")) { o->chained = 0; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
        if (!v) { usage(stderr); return 0; }
        i++;
        if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--size")) o->size = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--frames")) o->frames = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--mag")) o->mag = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--radius")) o->radius = strtof(v, NULL);
        else if (!strcmp(a, "--reps")) o->reps = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--host-size")) o->host_size = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--host-frames")) o->host_frames = (unsigned)strtoul(v, NULL, 10);
        else { usage(stderr); return 0; }
    }
    if (!o->size || !o->mag || !o->reps || !o->frames || !(o->radius > 0) || !o->host_size) {
        fprintf(stderr, "esrrf_bench: sizes, frames, reps, mag and radius must be > 0\n");
        return 0;
    }
    return 1;
}

static hst_result build(hst_backend *be, const char *const *src, size_t count, const char *opts, kset *k)
{
    hst_program *p;
    TRY(hst_program_build(be, count, src, opts, &p));
    TRY(hst_kernel_create(p, "hst_k_esrrf_rgc_fused", &k->fused));
    TRY(hst_kernel_create(p, "hst_k_esrrf_roberts", &k->roberts));
    TRY(hst_kernel_create(p, "hst_k_esrrf_magnify", &k->magnify));
    TRY(hst_kernel_create(p, "hst_k_esrrf_rgc", &k->rgc));
    TRY(hst_kernel_create(p, "hst_k_esrrf_temporal", &k->temporal));
    hst_program_release(p);
    return HST_SUCCESS;
}

static hst_result bench(const options *o)
{
    hst_backend_desc bd;
    hst_backend *be = NULL;
    const hst_device_info *dev;
    hst_queue *q;
    size_t count, px = (size_t)o->size * o->size, pm = px * o->mag * o->mag;
    const char *const *src = hst_kernels_esrrf_source(&count);
    char opts[96];
    kset k;
    dev_bufs b;
    float *frame;
    hst_buffer *pinned = NULL;
    double ms_fused = 0, ms_chained = 0, ms_batch = 0, t_build, stream_s = 0;
    uint64_t f, block = 0, blocks = 0;
    unsigned threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    hst_result r;

    memset(&bd, 0, sizeof bd);
    bd.device = o->device;
    memset(&k, 0, sizeof k);
    memset(&b, 0, sizeof b);
    TRY(hst_backend_create(&bd, &be));
    dev = hst_backend_device(be);
    if (hst_backend_is_host(be)) {
        fprintf(stderr, "esrrf_bench: the selector picked the host device; give an OpenCL device (--device)\n");
        hst_backend_destroy(be);
        return HST_ERROR_NO_DEVICE;
    }
    q = hst_backend_queue(be);
    snprintf(opts, sizeof opts, "%s%s", dev->correctly_rounded_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "",
             dev->fp64 ? " -DHST_FP64" : "");
    printf("esrrf_bench: %s (%s), %u compute units, fp64 %s; host %u cores\n", dev->name,
           dev->platform_name, dev->compute_units, dev->fp64 ? "yes" : "no", threads);
    printf("frames %ux%u, mag %u (%ux%u), radius %g, sensitivity 1, intensity weighting on\n",
           o->size, o->size, o->mag, o->size * o->mag, o->size * o->mag, o->radius);
    t_build = now_s();
    TRY(build(be, src, count, opts, &k));
    t_build = now_s() - t_build;
    printf("program build (or cache) %.2f s, options \"%s\"\n", t_build, opts);

    /* 1. ms per frame, kernels only */
    if (!(frame = (float *)malloc(px * sizeof(float)))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    make_frame(frame, o->size, 0);
    TRY(hst_buffer_create(be, px * 4, HST_MEM_RESIDENT, &b.frames));
    TRY(hst_buffer_create(be, pm * 4, HST_MEM_RESIDENT, &b.rgc));
    TRY(hst_buffer_create(be, pm * 5 * (dev->fp64 ? 8 : 4), HST_MEM_RESIDENT, &b.acc));
    TRY(hst_write(q, b.frames, 0, frame, px * 4, 1, 0, NULL, NULL));
    {
        static const unsigned char zero[8] = {0};
        TRY(hst_fill(q, b.acc, zero, 8, 0, pm * 5 * (dev->fp64 ? 8 : 4), 0, NULL, NULL));
    }
    if (o->chained) {
        TRY(hst_buffer_create(be, px * 8, HST_MEM_RESIDENT, &b.grad));
        r = hst_buffer_create(be, px * 8 * 4 * o->mag * o->mag, HST_MEM_RESIDENT, &b.grad2);
        if (r == HST_SUCCESS) r = hst_buffer_create(be, pm * 4, HST_MEM_RESIDENT, &b.mag);
        if (r != HST_SUCCESS) {
            printf("chained: the %.0f MiB gradient image does not fit (%s): skipped\n",
                   px * 32.0 * o->mag * o->mag / 1048576.0, hst_result_string(r));
            hst_buffer_destroy(b.grad2); b.grad2 = NULL;
        }
    }
    TRY(set_args(&k, &b, o, o->size));
    TRY(time_path(q, &k, &b, o, 0, &ms_fused));
    printf("fused    %9.2f ms per frame (RGC + temporal, %u one-frame launches)\n", ms_fused, o->reps);
    if (o->chained && b.grad2) {
        float *a = (float *)malloc(pm * 4), *c = (float *)malloc(pm * 4);
        double maxd = 0, maxv = 0;
        size_t i;
        TRY(time_path(q, &k, &b, o, 1, &ms_chained));
        printf("chained  %9.2f ms per frame (roberts, magnify x2, rgc + temporal; %.0f MiB of gradients per frame)\n",
               ms_chained, px * 32.0 * o->mag * o->mag / 1048576.0);
        printf("fused / chained: %.2fx the speed\n", ms_chained / ms_fused);
        /* fused against chained: the same frame, both RGC images */
        if (a && c) {
            TRY(hst_read(q, b.rgc, 0, c, pm * 4, 1, 0, NULL, NULL));
            TRY(launch_frame(q, &k, &b, o, o->size, 0));
            TRY(hst_read(q, b.rgc, 0, a, pm * 4, 1, 0, NULL, NULL));
            for (i = 0; i < pm; i++) {
                double d = fabs((double)a[i] - c[i]);
                if (d > maxd) maxd = d;
                if (fabs(c[i]) > maxv) maxv = fabs(c[i]);
            }
            printf("fused vs chained RGC: max |difference| %.3g (max |value| %.3g)%s\n", maxd, maxv,
                   maxd == 0 ? " - bitwise equal" : "");
        }
        free(a); free(c);
    }
    hst_buffer_destroy(b.grad); hst_buffer_destroy(b.grad2); hst_buffer_destroy(b.mag);
    b.grad = b.grad2 = b.mag = NULL;

    /* 2. the stream */
    if (hst_pinned_create(be, px * sizeof(float) * (size_t)o->frames, &pinned) != HST_SUCCESS) {
        printf("stream: %llu frames do not fit in pinned host memory: skipped\n", (unsigned long long)o->frames);
    } else {
        float *frames = (float *)hst_buffer_host_ptr(pinned);
        float *pat = (float *)malloc(px * sizeof(float) * PATTERNS);
        unsigned p;
        if (!pat) return HST_ERROR_OUT_OF_HOST_MEMORY;
        for (p = 0; p < PATTERNS; p++) make_frame(pat + p * px, o->size, p);
        for (f = 0; f < o->frames; f++) memcpy(frames + f * px, pat + (f % PATTERNS) * px, px * 4);
        free(pat);
        TRY(stream_run(be, o, src, count, opts, pinned, o->frames, &stream_s, &block, &blocks));
        /* the compute alone, launched as the stream launches a block, the data already there */
        r = time_fused_batch(be, q, &k, o, frame, (unsigned)block, &ms_batch);
        if (r != HST_SUCCESS) { printf("fused, %llu-frame launches: %s\n", (unsigned long long)block, hst_result_string(r)); ms_batch = ms_fused; }
        else printf("fused    %9.2f ms per frame (RGC + temporal, one launch of %llu frames, data resident)\n",
                    ms_batch, (unsigned long long)block);
        printf("stream   %llu frames in %.3f s: %.1f frames/s, %.2f ms per frame; blocks of %llu (%llu blocks)\n",
               (unsigned long long)o->frames, stream_s, o->frames / stream_s, 1e3 * stream_s / o->frames,
               (unsigned long long)block, (unsigned long long)blocks);
        printf("overlap efficiency %.3f  (= %llu x %.2f ms fused in %llu-frame launches / stream time; 1.0 = "
               "transfers hidden; the %llu halo frames recomputed alone cost %.3f)\n",
               o->frames * ms_batch / (1e3 * stream_s), (unsigned long long)o->frames, ms_batch,
               (unsigned long long)block,
               (unsigned long long)(blocks - 1), (double)(blocks - 1) / (double)(o->frames + blocks - 1));
    }

    /* 3. host twins against OpenCL */
    if (o->host) {
        unsigned n = o->host_size, nf = o->host_frames ? o->host_frames : (threads < 2 ? 2 : threads);
        size_t hpx = (size_t)n * n, hpm = hpx * o->mag * o->mag, i;
        float *hf = (float *)malloc(hpx * 4 * nf), *hr = (float *)malloc(hpm * 4 * nf), *dr = (float *)malloc(hpm * 4);
        options ho = *o;
        double th_f, th_c = 0, dev_f, maxd = 0, maxv = 0;
        unsigned p;
        if (!hf || !hr || !dr) return HST_ERROR_OUT_OF_HOST_MEMORY;
        for (p = 0; p < nf; p++) make_frame(hf + p * hpx, n, p);
        ho.size = n;
        if (o->chained) th_c = host_rgc(o, hf, hr, n, nf, threads, 1);
        th_f = host_rgc(o, hf, hr, n, nf, threads, 0);   /* last: hr holds the fused twin's */
        /* the device on the same frames: RGC of frame 0, and the fused time at this size */
        hst_buffer_destroy(b.frames); hst_buffer_destroy(b.rgc); hst_buffer_destroy(b.acc);
        TRY(hst_buffer_create(be, hpx * 4, HST_MEM_RESIDENT, &b.frames));
        TRY(hst_buffer_create(be, hpm * 4, HST_MEM_RESIDENT, &b.rgc));
        TRY(hst_buffer_create(be, hpm * 5 * (dev->fp64 ? 8 : 4), HST_MEM_RESIDENT, &b.acc));
        TRY(hst_write(q, b.frames, 0, hf, hpx * 4, 1, 0, NULL, NULL));
        ho.chained = 0;
        TRY(set_args(&k, &b, &ho, n));
        TRY(time_path(q, &k, &b, &ho, 0, &dev_f));
        TRY(launch_frame(q, &k, &b, &ho, n, 0));
        TRY(hst_read(q, b.rgc, 0, dr, hpm * 4, 1, 0, NULL, NULL));
        for (i = 0; i < hpm; i++) {
            double d = fabs((double)dr[i] - hr[i]);
            if (d > maxd) maxd = d;
            if (fabs(hr[i]) > maxv) maxv = fabs(hr[i]);
        }
        printf("host twins on %u threads, %ux%u frames (%u): fused %.1f ms per frame%s", threads, n, n, nf,
               1e3 * th_f / nf, o->chained ? "," : "\n");
        if (o->chained) printf(" chained %.1f ms per frame\n", 1e3 * th_c / nf);
        printf("OpenCL fused at %ux%u: %.1f ms per frame: %.2fx the threaded host twin\n", n, n, dev_f,
               1e3 * th_f / nf / dev_f);
        printf("OpenCL vs host RGC (frame 0): max |difference| %.3g of max |value| %.3g%s\n", maxd, maxv,
               maxd == 0 ? " - bitwise equal" : "");
        free(hf); free(hr); free(dr);
    }
    free(frame);
    hst_buffer_destroy(pinned);
    hst_buffer_destroy(b.frames); hst_buffer_destroy(b.rgc); hst_buffer_destroy(b.acc);
    hst_kernel_destroy(k.fused); hst_kernel_destroy(k.roberts); hst_kernel_destroy(k.magnify);
    hst_kernel_destroy(k.rgc); hst_kernel_destroy(k.temporal);
    hst_backend_destroy(be);
    return HST_SUCCESS;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) return 2;
    return bench(&o) == HST_SUCCESS ? 0 : 1;
}
