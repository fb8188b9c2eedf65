/* stream_bench.c — how well stream.h overlaps uploads, compute and downloads, on one device.

       stream_bench [--device S] [--chain grad|diff] [--gib G] [--blocks K] [--ring R] [--reps N]

   Two chains over a slice-major f32 volume of G GiB (default 8; slices of 1024 x 1024) in pinned
   caller arrays (hst_stream_pinned_create: several pinned buffers where one allocation of the
   device cannot hold an array). Memory bound: the kernels do a few flops per byte, so the copies
   decide the time. Every desc field is at its default (block size, budget, ring) unless
   --blocks K (a budget that makes at least K blocks) or --ring R is given.

   --chain diff: t = 2 x + 1 into a TEMP array, then the forward difference y[z] = t[z+1] - t[z]
   (halo_hi 1; 0 at the last slice), G GiB in and G GiB out; the stages have no host twins.
   Reported, in this order, every time the best of N repetitions (default 3) after a warm-up:
     full-duplex limit  the chain's bytes (halos excluded) uploaded and downloaded at once on two
                        queues in pieces of 256 MiB, from and to the pinned arrays: what the copy
                        engines allow
     default            the stream with every desc field at its default: its seconds, the block
                        size it chose, its fraction of the full-duplex limit (goal >= 0.92)
     sweep              block_slices = 1, 2, 4, 8, 12, 16, 24, ..., 1024 (<= N) and the
                        default's block again: seconds of each; the default against the best
                        of them (goal: within 5%)
   The default run's output is checked bit for bit against the host's formula.

   --chain grad (the default): y = a x + b (an axpy-like stage into a device-only TEMP array)
   feeding kernels.h's hst_k_grad3 (forward differences, halo_hi 1), whose 3-component gradient
   (3 G GiB) comes back to the host. Reported from one run, every figure the best of N
   repetitions (default 3) after a warm-up:
     upload alone     the same block size and ring, a stream whose only stage does nothing:
                      the input's blocks (with their halo) go up and nothing comes back
     compute alone    the chain's two kernels on resident device data, the same blocks, one queue
     download alone   a stream whose only stage writes nothing: the gradient's blocks come back
     streamed         the chain, with pinned caller arrays (no staging copy)
     overlap efficiency = max(upload, compute, download alone) / streamed  (goal >= 0.95)
     pinned peak      hst_write / hst_read of one block from pinned memory, blocking
     sequential       NanoPyx's pattern: per block a blocking upload from pageable (malloc)
                      memory, the kernels, a blocking download to pageable memory; one buffer set;
                      the driver's copies, not the library's staged transfers
     double-buffered  PyQMRI's pattern: two slots, upload + compute and download on two queues
                      per slot, non-blocking copies from and to pageable memory, the host waiting
                      for a slot's previous block before it reuses the slot
   The streamed, sequential and double-buffered results are compared bit for bit.

   On a CPU OpenCL device (PoCL) "device" memory is host memory and copies are memcpy: the run
   checks the machinery (try --gib 0.25); the figures that matter come from a GPU.
   Memory: grad needs 4 G GiB pinned and 7 G GiB pageable host memory, diff 2 G GiB pinned.

   Build: make bench-build, or
     cc -std=c99 -O2 -I. bench/stream_bench.c -o stream_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#include "stream.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIDE 1024                 /* slices of SIDE x SIDE floats: 4 MiB */
#define DEFAULT_GIB 8.0
#define DEFAULT_REPS 3
#define FD_PIECE ((size_t)256 << 20)  /* full-duplex limit: bytes per copy command */
#define SWEEP_MAX 1024                /* the sweep's largest block (slices) */
#define SWEEP_SIZES 32                /* room for sweep_sizes' list */
#define DIFF_A 2.0f                   /* diff chain: t = 2 x + 1 */
#define DIFF_B 1.0f
#define PEAK_REPS 5
#define AXPY_A 1.5f
#define AXPY_B -0.25f
#define GB 1e9
#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct options {
    const char *device;
    int diff;                         /* --chain diff */
    double gib;
    unsigned blocks, ring, reps;      /* blocks, ring 0: the desc's defaults */
} options;

/* The bench's own kernels, in stream.h's calling convention. */
static const char bench_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "/* t = a x + b over slices [begin, end) of n floats */\n"
    "__kernel void bench_axpy(__global const float *x, __global float *t, float a, float b,\n"
    "                         ulong n, ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i >= n || z >= end) return;\n"
    "  float v = a * x[z * n + i];\n"
    "  t[z * n + i] = v + b;\n"
    "}\n"
    "/* y[z] = t[z+1] - t[z] over slices [begin, end) of n floats; 0 at the last slice */\n"
    "__kernel void bench_fdiff(__global const float *t, __global float *y, ulong n, ulong base,\n"
    "                          ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i >= n || z >= end) return;\n"
    "  y[z * n + i] = base + z + 1 < total ? t[(z + 1) * n + i] - t[z * n + i] : 0.0f;\n"
    "}\n"
    "/* binds one array and does nothing: a stream of this stage only moves data */\n"
    "__kernel void bench_nop(__global float *x, ulong base, ulong begin, ulong end, ulong total,\n"
    "                        int flags)\n"
    "{\n"
    "}\n";

typedef struct bench {
    hst_backend *be;
    const hst_device_info *dev;
    uint64_t N, B, hw;
    size_t sb;                        /* bytes of one input slice */
    uint32_t H, W;
    float a, b;
    hst_stream_pinned *x_pin, *p_pin; /* caller arrays of the streamed run (p: y for diff) */
    float *x_page, *p_seq, *p_dbl;    /* pageable: baselines' input and outputs */
    const char *const *src;           /* bench source + kernels.h's stream source */
    size_t nsrc;
    const char *pieces[16];
    hst_program *prog;
    hst_kernel *k_axpy, *k_grad;
    hst_buffer *xb[2], *tb[2], *pb[2];   /* baselines' device buffers (slot 0 for compute) */
    uint64_t up_bytes, down_bytes;    /* per pass, halos included */
} bench;

#define TRY(what, call)                                                                    \
    do {                                                                                   \
        hst_result r_ = (call);                                                            \
        if (r_ != HST_SUCCESS) {                                                           \
            fprintf(stderr, "stream_bench: %s failed: %s (%d)\n", what,                    \
                    hst_result_string(r_), r_);                                            \
            return r_;                                                                     \
        }                                                                                  \
    } while (0)

/* ------------------------------------------------------------------ host twins */

static hst_result axpy_host(void *const *arr, const void *const *sc, const hst_stream_block *blk,
                            void *user)
{
    const float *x = (const float *)arr[0];
    float *t = (float *)arr[1], a = *(const float *)sc[0], b = *(const float *)sc[1];
    uint64_t n = *(const uint64_t *)sc[2], i;
    (void)user;
    for (i = blk->begin * n; i < blk->end * n; ++i) {
        float v = a * x[i];
        t[i] = v + b;
    }
    return HST_SUCCESS;
}

static hst_result grad_host(void *const *arr, const void *const *sc, const hst_stream_block *blk,
                            void *user)
{
    (void)user;
    hst_k_grad3_host((const float *)arr[0], (float *)arr[1], *(const uint32_t *)sc[0],
                     *(const uint32_t *)sc[1], blk->base, blk->begin, blk->end, blk->total);
    return HST_SUCCESS;
}

static hst_result nop_host(void *const *arr, const void *const *sc, const hst_stream_block *blk,
                           void *user)
{
    (void)arr; (void)sc; (void)blk; (void)user;
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------ streams */

enum { S_CHAIN, S_UPLOAD, S_DOWNLOAD, S_DIFF };

/* The chain (x -> t TEMP -> p), or a one-stage stream that only uploads x or downloads p, all
   with the same block size and ring (block 0: from the budget). */
static hst_result make_stream(bench *bn, int kind, uint64_t budget, uint64_t block, unsigned ring,
                              hst_stream **out)
{
    static const int in0[1] = { 0 }, out1[1] = { 1 }, in1[1] = { 1 }, out2[1] = { 2 };
    hst_stream_desc d;
    hst_stream_array arr[3];
    hst_stream_stage st[2];
    memset(&d, 0, sizeof d);
    memset(arr, 0, sizeof arr);
    memset(st, 0, sizeof st);
    d.backends = &bn->be;
    d.num_backends = 1;
    d.num_slices = bn->N;
    d.arrays = arr;
    d.stages = st;
    d.budget_bytes = budget;
    d.block_slices = block;
    d.ring = ring;
    st[0].sources = bn->src;
    st[0].num_sources = bn->nsrc;
    st[0].items_per_slice = (size_t)bn->hw;
    if (kind == S_DIFF) {   /* no host twins: the stream runs on OpenCL devices only */
        arr[0].kind = HST_STREAM_INPUT;  arr[0].pinned_array = bn->x_pin; arr[0].slice_bytes = bn->sb;
        arr[1].kind = HST_STREAM_TEMP;   arr[1].slice_bytes = bn->sb;
        arr[2].kind = HST_STREAM_OUTPUT; arr[2].pinned_array = bn->p_pin; arr[2].slice_bytes = bn->sb;
        st[0].name = "affine"; st[0].kernel = "bench_axpy";
        st[0].num_inputs = 1; st[0].inputs = in0; st[0].num_outputs = 1; st[0].outputs = out1;
        st[0].num_scalars = 3;
        st[0].scalars[0] = &bn->a;  st[0].scalar_bytes[0] = sizeof bn->a;
        st[0].scalars[1] = &bn->b;  st[0].scalar_bytes[1] = sizeof bn->b;
        st[0].scalars[2] = &bn->hw; st[0].scalar_bytes[2] = sizeof bn->hw;
        st[1] = st[0];
        st[1].name = "fdiff"; st[1].kernel = "bench_fdiff";
        st[1].inputs = in1; st[1].outputs = out2;
        st[1].num_scalars = 1;
        st[1].scalars[0] = &bn->hw; st[1].scalar_bytes[0] = sizeof bn->hw;
        st[1].halo_hi = 1;
        d.num_arrays = 3;
        d.num_stages = 2;
    } else if (kind == S_CHAIN) {
        arr[0].kind = HST_STREAM_INPUT;  arr[0].pinned_array = bn->x_pin; arr[0].slice_bytes = bn->sb;
        arr[1].kind = HST_STREAM_TEMP;   arr[1].slice_bytes = bn->sb;
        arr[2].kind = HST_STREAM_OUTPUT; arr[2].pinned_array = bn->p_pin; arr[2].slice_bytes = 3 * bn->sb;
        st[0].name = "axpy"; st[0].kernel = "bench_axpy"; st[0].host = axpy_host;
        st[0].num_inputs = 1; st[0].inputs = in0; st[0].num_outputs = 1; st[0].outputs = out1;
        st[0].num_scalars = 3;
        st[0].scalars[0] = &bn->a;  st[0].scalar_bytes[0] = sizeof bn->a;
        st[0].scalars[1] = &bn->b;  st[0].scalar_bytes[1] = sizeof bn->b;
        st[0].scalars[2] = &bn->hw; st[0].scalar_bytes[2] = sizeof bn->hw;
        st[1] = st[0];
        st[1].name = "grad3"; st[1].kernel = "hst_k_grad3"; st[1].host = grad_host;
        st[1].inputs = in1; st[1].outputs = out2;
        st[1].num_scalars = 2;
        st[1].scalars[0] = &bn->H; st[1].scalar_bytes[0] = sizeof bn->H;
        st[1].scalars[1] = &bn->W; st[1].scalar_bytes[1] = sizeof bn->W;
        st[1].halo_hi = 1;
        d.num_arrays = 3;
        d.num_stages = 2;
    } else {
        /* x INPUT loaded with the chain's halo, or p OUTPUT; the stage touches nothing */
        arr[0].kind = kind == S_UPLOAD ? HST_STREAM_INPUT : HST_STREAM_OUTPUT;
        arr[0].pinned_array = kind == S_UPLOAD ? bn->x_pin : bn->p_pin;
        arr[0].slice_bytes = kind == S_UPLOAD ? bn->sb : 3 * bn->sb;
        st[0].name = "nop"; st[0].kernel = "bench_nop"; st[0].host = nop_host;
        st[0].items_per_slice = 1;
        if (kind == S_UPLOAD) { st[0].num_inputs = 1; st[0].inputs = in0; st[0].halo_hi = 1; }
        else { st[0].num_outputs = 1; st[0].outputs = in0; }
        d.num_arrays = 1;
        d.num_stages = 1;
    }
    return hst_stream_create(&d, out);
}

/* Best wall time of reps runs after one warm-up. */
static hst_result time_stream(hst_stream *s, unsigned reps, double *best, hst_stream_report *rep)
{
    unsigned i;
    *best = 1e300;
    TRY("hst_stream_run (warm-up)", hst_stream_run(s, rep));
    for (i = 0; i < reps; ++i) {
        double t0 = now_s();
        TRY("hst_stream_run", hst_stream_run(s, rep));
        t0 = now_s() - t0;
        if (t0 < *best) *best = t0;
    }
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------ hand-written paths */

static void loaded(const bench *bn, uint64_t b1, uint64_t *end)
{
    *end = b1 + 1 < bn->N ? b1 + 1 : bn->N;
}

/* The chain's two kernels for owned slices [b0, b1) on slot s's buffers (pointers at b0). */
static hst_result launch_chain(bench *bn, hst_queue *q, int s, uint64_t b0, uint64_t b1,
                               size_t nwait, const hst_event *wait, hst_event *done)
{
    cl_ulong base = b0, begin = 0, end, total = bn->N, n = bn->hw;
    cl_int flags = 0;
    size_t g[2];
    uint64_t e;
    loaded(bn, b1, &e);
    end = e - b0;
    TRY("set args", hst_kernel_set_buffer(bn->k_axpy, 0, bn->xb[s]));
    TRY("set args", hst_kernel_set_buffer(bn->k_axpy, 1, bn->tb[s]));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 2, sizeof bn->a, &bn->a));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 3, sizeof bn->b, &bn->b));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 4, sizeof n, &n));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 5, sizeof base, &base));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 6, sizeof begin, &begin));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 7, sizeof end, &end));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 8, sizeof total, &total));
    TRY("set args", hst_kernel_set_arg(bn->k_axpy, 9, sizeof flags, &flags));
    g[0] = (size_t)bn->hw;
    g[1] = (size_t)end;
    TRY("launch axpy", hst_launch(q, bn->k_axpy, 2, g, NULL, nwait, wait, NULL));
    end = b1 - b0;
    TRY("set args", hst_kernel_set_buffer(bn->k_grad, 0, bn->tb[s]));
    TRY("set args", hst_kernel_set_buffer(bn->k_grad, 1, bn->pb[s]));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 2, sizeof bn->H, &bn->H));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 3, sizeof bn->W, &bn->W));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 4, sizeof base, &base));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 5, sizeof begin, &begin));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 6, sizeof end, &end));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 7, sizeof total, &total));
    TRY("set args", hst_kernel_set_arg(bn->k_grad, 8, sizeof flags, &flags));
    g[1] = (size_t)end;
    TRY("launch grad3", hst_launch(q, bn->k_grad, 2, g, NULL, 0, NULL, done));
    return HST_SUCCESS;
}

/* Compute alone: every block's kernels on resident data, one queue, one wait at the end. */
static hst_result compute_alone(bench *bn, hst_queue *q, double *t)
{
    uint64_t b0;
    double t0 = now_s();
    for (b0 = 0; b0 < bn->N; b0 += bn->B) {
        uint64_t b1 = b0 + bn->B < bn->N ? b0 + bn->B : bn->N;
        hst_result r = launch_chain(bn, q, 0, b0, b1, 0, NULL, NULL);
        if (r != HST_SUCCESS) return r;
    }
    TRY("hst_queue_finish", hst_queue_finish(q));
    *t = now_s() - t0;
    return HST_SUCCESS;
}

/* NanoPyx's pattern: blocking upload from pageable memory, kernels, blocking download. Each
   copy is enqueued without blocking and then waited for: the same wait, but the driver's own
   copy from pageable memory, as PyOpenCL's blocking enqueue_copy makes it (a blocking hst_write
   of 8 MiB or more would go through backend.h's staged transfers, which are ours, not the
   peer's). */
static hst_result sequential(bench *bn, hst_queue *q, double *t)
{
    uint64_t b0, e;
    double t0 = now_s();
    for (b0 = 0; b0 < bn->N; b0 += bn->B) {
        uint64_t b1 = b0 + bn->B < bn->N ? b0 + bn->B : bn->N;
        hst_result r;
        loaded(bn, b1, &e);
        TRY("hst_write (sequential)", hst_write(q, bn->xb[0], 0, (const unsigned char *)bn->x_page + b0 * bn->sb,
                                                (size_t)(e - b0) * bn->sb, 0, 0, NULL, NULL));
        TRY("hst_queue_finish (sequential upload)", hst_queue_finish(q));
        if ((r = launch_chain(bn, q, 0, b0, b1, 0, NULL, NULL)) != HST_SUCCESS) return r;
        TRY("hst_read (sequential)", hst_read(q, bn->pb[0], 0, (unsigned char *)bn->p_seq + 3 * b0 * bn->sb,
                                              (size_t)(b1 - b0) * 3 * bn->sb, 0, 0, NULL, NULL));
        TRY("hst_queue_finish (sequential download)", hst_queue_finish(q));
    }
    *t = now_s() - t0;
    return HST_SUCCESS;
}

/* PyQMRI's pattern: two slots; per slot an upload + compute queue and a download queue;
   non-blocking copies from and to pageable memory chained by events; the host waits for a
   slot's previous download before reusing the slot. */
static hst_result double_buffered(bench *bn, hst_queue *const *qc, hst_queue *const *qd, double *t)
{
    hst_event down[2] = { NULL, NULL };
    uint64_t b0, e, i = 0;
    double t0 = now_s();
    for (b0 = 0; b0 < bn->N; b0 += bn->B, ++i) {
        uint64_t b1 = b0 + bn->B < bn->N ? b0 + bn->B : bn->N;
        int s = (int)(i & 1);
        hst_event up = NULL, comp = NULL;
        hst_result r;
        if (down[s] != NULL) {
            TRY("hst_event_wait", hst_event_wait(1, &down[s]));
            hst_event_release(down[s]);
            down[s] = NULL;
        }
        loaded(bn, b1, &e);
        TRY("hst_write (double-buffered)", hst_write(qc[s], bn->xb[s], 0, (const unsigned char *)bn->x_page + b0 * bn->sb,
                                                     (size_t)(e - b0) * bn->sb, 0, 0, NULL, &up));
        r = launch_chain(bn, qc[s], s, b0, b1, 0, NULL, &comp);
        hst_event_release(up);
        if (r != HST_SUCCESS) return r;
        r = hst_read(qd[s], bn->pb[s], 0, (unsigned char *)bn->p_dbl + 3 * b0 * bn->sb,
                     (size_t)(b1 - b0) * 3 * bn->sb, 0, 1, &comp, &down[s]);
        hst_event_release(comp);
        TRY("hst_read (double-buffered)", r);
        TRY("hst_queue_flush", hst_queue_flush(qc[s]));
        TRY("hst_queue_flush", hst_queue_flush(qd[s]));
    }
    TRY("hst_event_wait", hst_event_wait(2, down));
    hst_event_release(down[0]);
    hst_event_release(down[1]);
    *t = now_s() - t0;
    return HST_SUCCESS;
}

static hst_result best_of(unsigned reps, double *best, hst_result (*fn)(bench *, hst_queue *, double *),
                          bench *bn, hst_queue *q)
{
    unsigned i;
    double t;
    *best = 1e300;
    for (i = 0; i < reps; ++i) {
        hst_result r = fn(bn, q, &t);
        if (r != HST_SUCCESS) return r;
        if (t < *best) *best = t;
    }
    return HST_SUCCESS;
}

/* Pinned peak: one block's bytes, blocking, best of PEAK_REPS. */
static hst_result pinned_peak(bench *bn, hst_queue *q, double *up_gbps, double *down_gbps)
{
    size_t up = (size_t)(bn->B + 1 < bn->N ? bn->B + 1 : bn->N) * bn->sb;
    size_t down = (size_t)(bn->B < bn->N ? bn->B : bn->N) * 3 * bn->sb;
    double bu = 1e300, bd = 1e300, t0;
    int i;
    for (i = 0; i <= PEAK_REPS; ++i) {   /* the first of each is a warm-up */
        t0 = now_s();
        TRY("hst_write (pinned)", hst_write(q, bn->xb[0], 0, hst_stream_pinned_slice(bn->x_pin, 0, NULL), up, 1, 0, NULL, NULL));
        t0 = now_s() - t0;
        if (i > 0 && t0 < bu) bu = t0;
        t0 = now_s();
        TRY("hst_read (pinned)", hst_read(q, bn->pb[0], 0, hst_stream_pinned_slice(bn->p_pin, 0, NULL), down, 1, 0, NULL, NULL));
        t0 = now_s() - t0;
        if (i > 0 && t0 < bd) bd = t0;
    }
    *up_gbps = (double)up / bu / GB;
    *down_gbps = (double)down / bd / GB;
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------ main */

/* The streams' sources: ours, then kernels.h's stream program (hst_k_grad3). */
static void set_sources(bench *bn)
{
    size_t count, j;
    const char *const *ks = hst_kernels_stream_source(&count);
    bn->pieces[0] = bench_source;
    for (j = 0; j < count && j + 1 < sizeof bn->pieces / sizeof bn->pieces[0]; ++j)
        bn->pieces[j + 1] = ks[j];
    bn->src = bn->pieces;
    bn->nsrc = j + 1;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: stream_bench [--device S] [--chain grad|diff] [--gib G] [--blocks K] [--ring R] [--reps N]\n"
            "  --device S  device selector (default: $HST_DEVICE, else auto)\n"
            "  --chain C   grad (default: the 3-component gradient, 3 G GiB back) or diff (the\n"
            "              forward difference, G GiB back, with the full-duplex limit and a sweep)\n"
            "  --gib G     input volume in GiB (default %g)\n"
            "  --blocks K  a budget that makes at least K blocks (default: the desc's default block)\n"
            "  --ring R    ring slots, 2..8 (default: the desc's default)\n"
            "  --reps N    timed repetitions of each measurement (default %d)\n",
            DEFAULT_GIB, DEFAULT_REPS);
}

static int parse_options(int argc, char **argv, options *o)
{
    int i;
    o->device = NULL;
    o->diff = 0;
    o->gib = DEFAULT_GIB;
    o->blocks = 0;
    o->ring = 0;
    o->reps = DEFAULT_REPS;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        char *end = NULL;
        double v = 0.0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc || a[0] != '-' || a[1] != '-') {
            fprintf(stderr, "stream_bench: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 1;
        }
        if (strcmp(a, "--device") == 0) {
            o->device = argv[++i];
            continue;
        }
        if (strcmp(a, "--chain") == 0 && (strcmp(argv[i + 1], "grad") == 0 || strcmp(argv[i + 1], "diff") == 0)) {
            o->diff = strcmp(argv[++i], "diff") == 0;
            continue;
        }
        v = strtod(argv[++i], &end);
        if (end == argv[i] || *end != '\0' || !(v > 0.0) || v > 1e6) {
            fprintf(stderr, "stream_bench: %s wants a positive number, not '%s'\n", a, argv[i]);
            return 1;
        }
        if (strcmp(a, "--gib") == 0) o->gib = v;
        else if (strcmp(a, "--blocks") == 0 && v == floor(v)) o->blocks = (unsigned)v;
        else if (strcmp(a, "--ring") == 0 && v == floor(v) && v >= 2 && v <= 8) o->ring = (unsigned)v;
        else if (strcmp(a, "--reps") == 0 && v == floor(v)) o->reps = (unsigned)v;
        else {
            fprintf(stderr, "stream_bench: unknown option or bad value '%s %s'\n", a, argv[i]);
            usage(stderr);
            return 1;
        }
    }
    return 0;
}

/* The host's CPU model and its count of logical CPUs (Linux /proc/cpuinfo; else unknown). */
static void host_cpu(char *model, size_t bytes, int *cpus)
{
    char line[512];
    FILE *fp = fopen("/proc/cpuinfo", "r");
    snprintf(model, bytes, "unknown CPU");
    *cpus = 0;
    if (fp == NULL) return;
    while (fgets(line, sizeof line, fp) != NULL) {
        if (strncmp(line, "processor", 9) == 0) ++*cpus;
        if (*cpus == 1 && strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c != NULL) {
                snprintf(model, bytes, "%s", c + 2);
                model[strcspn(model, "\n")] = '\0';
            }
        }
    }
    fclose(fp);
}

/* ------------------------------------------------------------------ pinned arrays */

/* Whether the pinned array (slices of sb bytes) holds the same bytes as ref. */
static int pinned_equal(const hst_stream_pinned *p, const float *ref, size_t sb)
{
    const unsigned char *r = (const unsigned char *)ref;
    uint64_t z, run = 0;
    const void *q;
    for (z = 0; (q = hst_stream_pinned_slice(p, z, &run)) != NULL; z += run)
        if (memcmp(q, r + (size_t)z * sb, (size_t)run * sb) != 0) return 0;
    return 1;
}

/* Sets every byte of the pinned array to zero (pages touched before timing). */
static void pinned_zero(hst_stream_pinned *p, size_t sb)
{
    uint64_t z, run = 0;
    void *q;
    for (z = 0; (q = hst_stream_pinned_slice(p, z, &run)) != NULL; z += run) memset(q, 0, (size_t)run * sb);
}

static void print_copy_model(const bench *bn)
{
    double t0 = 0.0, bw = 0.0;
    if (hst_stream_copy_model(bn->be, &t0, &bw) == HST_SUCCESS)
        printf("copies    the device's copy model (stream.h's default block): %.1f us per command, "
               "%.2f GB/s\n", t0 * 1e6, bw / GB);
}

/* ------------------------------------------------------------------ the diff chain */

/* x[i] of global element i: a smooth pattern with every slice different. */
static float pattern(uint64_t i)
{
    return (float)((i * 2654435761u) >> 20 & 1023) * 0.125f;
}

/* The full-duplex limit: the chain's bytes (N slices up, N down; halos excluded) copied at
   once on two queues, in pieces of FD_PIECE bytes, from and to the pinned arrays. */
static hst_result full_duplex(bench *bn, hst_queue *qu, hst_queue *qd, hst_buffer *const *dev, double *t)
{
    uint64_t z, run = 0, per = FD_PIECE / bn->sb ? FD_PIECE / bn->sb : 1;
    double t0 = now_s();
    for (z = 0; z < bn->N; z += run) {
        void *src = hst_stream_pinned_slice(bn->x_pin, z, &run);
        void *dst = hst_stream_pinned_slice(bn->p_pin, z, NULL);
        uint64_t dst_run = 0;
        (void)hst_stream_pinned_slice(bn->p_pin, z, &dst_run);
        if (run > per) run = per;
        if (run > dst_run) run = dst_run;
        TRY("hst_write (full duplex)", hst_write(qu, dev[0], 0, src, (size_t)run * bn->sb, 0, 0, NULL, NULL));
        TRY("hst_read (full duplex)", hst_read(qd, dev[1], 0, dst, (size_t)run * bn->sb, 0, 0, NULL, NULL));
        TRY("hst_queue_flush", hst_queue_flush(qu));
        TRY("hst_queue_flush", hst_queue_flush(qd));
    }
    TRY("hst_queue_finish", hst_queue_finish(qu));
    TRY("hst_queue_finish", hst_queue_finish(qd));
    *t = now_s() - t0;
    return HST_SUCCESS;
}

/* The sweep's block sizes, ascending: powers of two up to SWEEP_MAX, 1.5 times each from 8 on
   (the plateau's shape), and the default block B_def timed again among them (the default's
   own run comes first in the process: this one shows whether its place or its size decides);
   none beyond N. Returns the count (<= SWEEP_SIZES). */
static uint64_t sweep_sizes(uint64_t N, uint64_t B_def, uint64_t *sizes)
{
    uint64_t b, n = 0, k, j;
    for (b = 1; b <= SWEEP_MAX && b <= N; b *= 2) {
        sizes[n++] = b;
        if (b >= 8 && b + b / 2 <= SWEEP_MAX && b + b / 2 <= N) sizes[n++] = b + b / 2;
    }
    for (k = 0; k < n && sizes[k] != B_def; ++k) continue;
    if (k == n && B_def <= N) {   /* insert B_def in order */
        for (j = n++; j > 0 && sizes[j - 1] > B_def; --j) sizes[j] = sizes[j - 1];
        sizes[j] = B_def;
    }
    return n;
}

/* Best of reps runs (after a warm-up) of the diff chain with block_slices = block (0: every
   desc field at its default); *B: the block it used. */
static hst_result time_diff(bench *bn, uint64_t block, unsigned reps, double *best, uint64_t *B)
{
    hst_stream *s = NULL;
    hst_stream_report rep;
    hst_result r = make_stream(bn, S_DIFF, 0, block, 0, &s);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "stream_bench: hst_stream_create (diff, block %llu) failed: %s (%d)\n",
                (unsigned long long)block, hst_result_string(r), r);
        return r;
    }
    *B = hst_stream_block_slices(s);
    r = time_stream(s, reps, best, &rep);
    hst_stream_destroy(s);
    return r;
}

/* The diff chain's output against the host's formula, bit for bit (FP_CONTRACT OFF on the
   device, the same operations in the same order here). */
static int diff_correct(const bench *bn)
{
    uint64_t z, i, n = bn->hw;
    for (z = 0; z < bn->N; ++z) {
        const float *y = (const float *)hst_stream_pinned_slice(bn->p_pin, z, NULL);
        for (i = 0; i < n; ++i) {
            float want = 0.0f;
            if (z + 1 < bn->N) {
                float v1 = DIFF_A * pattern((z + 1) * n + i), v0 = DIFF_A * pattern(z * n + i);
                float t1 = v1 + DIFF_B, t0 = v0 + DIFF_B;
                want = t1 - t0;
            }
            if (memcmp(&y[i], &want, sizeof want) != 0) {
                fprintf(stderr, "stream_bench: diff output slice %llu element %llu: %.9g, want %.9g\n",
                        (unsigned long long)z, (unsigned long long)i, (double)y[i], (double)want);
                return 0;
            }
        }
    }
    return 1;
}

static hst_result run_diff(bench *bn, const options *o)
{
    hst_queue *qu = NULL, *qd = NULL;
    hst_buffer *dev[2] = { NULL, NULL };
    uint64_t B_def = 0, B, sizes[SWEEP_SIZES], nsizes = 0, k, best_k = 0;
    double t_fd = 1e300, t_def, t_sweep[SWEEP_SIZES], gb = 2.0 * (double)bn->N * (double)bn->sb / GB, t;
    char cpu[256];
    int cpus, ok;
    unsigned j;
    hst_result r = HST_SUCCESS;

    bn->a = DIFF_A;
    bn->b = DIFF_B;
    host_cpu(cpu, sizeof cpu, &cpus);
    printf("machine   %s [%s], %s, driver %s; host: %s, %d logical CPUs\n", bn->dev->name,
           bn->dev->selector, bn->dev->platform_name, bn->dev->driver_version, cpu, cpus);
    printf("chain     t = %g x + %g (TEMP) -> y[z] = t[z+1] - t[z] (halo_hi 1); stages without host twins\n",
           (double)bn->a, (double)bn->b);
    printf("volume    %llu slices of %u x %u f32: %.2f GiB in, %.2f GiB out, pinned arrays of %zu + %zu "
           "buffers\n", (unsigned long long)bn->N, (unsigned)bn->H, (unsigned)bn->W,
           (double)bn->N * (double)bn->sb / GIB, (double)bn->N * (double)bn->sb / GIB,
           hst_stream_pinned_chunks(bn->x_pin), hst_stream_pinned_chunks(bn->p_pin));
    TRY("hst_queue_create", hst_queue_create(bn->be, &qu));
    TRY("hst_queue_create", hst_queue_create(bn->be, &qd));
    for (j = 0; j < 2; ++j)
        TRY("hst_buffer_create", hst_buffer_create(bn->be, FD_PIECE, HST_MEM_RESIDENT, &dev[j]));

    /* the limit first (its warm-up also wakes the GPU and the copy engines from idle), then
       the default (its stream measures the device's copy model if the timings file lacks it),
       then the sweep */
    for (j = 0; j <= o->reps; ++j) {   /* the first is a warm-up */
        if ((r = full_duplex(bn, qu, qd, dev, &t)) != HST_SUCCESS) goto out;
        if (j > 0 && t < t_fd) t_fd = t;
    }
    if ((r = time_diff(bn, 0, o->reps, &t_def, &B_def)) != HST_SUCCESS) goto out;
    ok = diff_correct(bn);
    print_copy_model(bn);
    nsizes = sweep_sizes(bn->N, B_def, sizes);
    printf("best of %u after a warm-up\n\n%-44s %9s %10s\n", o->reps, "", "seconds", "GB/s");
    printf("%-44s %9.4f %10.2f  (%.2f GB up + down at once)\n", "full-duplex limit (2 queues, 256 MiB copies)",
           t_fd, gb / t_fd, gb);
    printf("%-44s %9.4f %10.2f  (block %llu, chosen)\n", "streamed, every desc field default", t_def, gb / t_def,
           (unsigned long long)B_def);
    for (k = 0; k < nsizes; ++k) {
        char label[64];
        if ((r = time_diff(bn, sizes[k], o->reps, &t_sweep[k], &B)) != HST_SUCCESS) goto out;
        if (t_sweep[k] < t_sweep[best_k]) best_k = k;
        snprintf(label, sizeof label, "streamed, block_slices = %llu", (unsigned long long)sizes[k]);
        printf("%-44s %9.4f %10.2f  (%llu blocks)\n", label, t_sweep[k], gb / t_sweep[k],
               (unsigned long long)((bn->N + B - 1) / B));
    }
    printf("\nratios\n");
    printf("  default / full-duplex limit: %.4f / %.4f s = %.3f of the limit (goal >= 0.92)\n", t_def, t_fd,
           t_fd / t_def);
    printf("  default against the sweep's best (block %llu, %.4f s): %.3fx its time (goal <= 1.05)\n",
           (unsigned long long)sizes[best_k], t_sweep[best_k], t_def / t_sweep[best_k]);
    printf("  result: %s\n", ok ? "bit-identical to the host's formula" : "DIFFERS from the host's formula");
    printf("\nstream_bench: %s: diff chain %.2f GiB in / out, default block %llu: %.4f s, %.3f of the full-duplex "
           "limit, %.3fx the best block of the sweep (%llu), results %s\n", bn->dev->name,
           (double)bn->N * (double)bn->sb / GIB, (unsigned long long)B_def, t_def, t_fd / t_def,
           t_def / t_sweep[best_k], (unsigned long long)sizes[best_k], ok ? "identical" : "DIFFER");
    if (!ok) r = HST_ERROR_SHAPE;
out:
    hst_buffer_destroy(dev[0]);
    hst_buffer_destroy(dev[1]);
    hst_queue_destroy(qu);
    hst_queue_destroy(qd);
    return r;
}

static hst_result run(bench *bn, const options *o)
{
    hst_queue *q = hst_backend_queue(bn->be), *qc[2] = { NULL, NULL }, *qd[2] = { NULL, NULL };
    hst_stream *chain = NULL, *upload = NULL, *download = NULL;
    hst_stream_report rep;
    uint64_t budget, per, b0, total = bn->N * bn->sb, blocks = 0;
    double t_up, t_comp, t_down, t_stream, t_seq, t_dbl, peak_up, peak_down, eff, worst;
    char cpu[256];
    int cpus, same_seq, same_dbl, k;
    unsigned j;

    /* --blocks K: the budget that holds blocks of B = floor(N / K) slices, ring x (B + 1) x 5
       floats; else every desc field at its default */
    per = bn->sb * 5;
    budget = 0;
    if (o->blocks) {
        bn->B = bn->N / o->blocks ? bn->N / o->blocks : 1;
        budget = (uint64_t)(o->ring ? o->ring : 3) * (bn->B + 1) * per;
    }
    TRY("hst_stream_create (chain)", make_stream(bn, S_CHAIN, budget, 0, o->ring, &chain));
    bn->B = hst_stream_block_slices(chain);
    TRY("hst_stream_create (upload)", make_stream(bn, S_UPLOAD, 0, bn->B, o->ring, &upload));
    TRY("hst_stream_create (download)", make_stream(bn, S_DOWNLOAD, 0, bn->B, o->ring, &download));
    for (b0 = 0; b0 < bn->N; b0 += bn->B, ++blocks) {
        uint64_t b1 = b0 + bn->B < bn->N ? b0 + bn->B : bn->N, e;
        loaded(bn, b1, &e);
        bn->up_bytes += (e - b0) * bn->sb;
        bn->down_bytes += (b1 - b0) * 3 * bn->sb;
    }

    /* the hand-written paths: kernels and two slots of buffers */
    TRY("hst_program_build", hst_program_build(bn->be, bn->nsrc, bn->src, NULL, &bn->prog));
    TRY("hst_kernel_create", hst_kernel_create(bn->prog, "bench_axpy", &bn->k_axpy));
    TRY("hst_kernel_create", hst_kernel_create(bn->prog, "hst_k_grad3", &bn->k_grad));
    for (k = 0; k < 2; ++k) {
        TRY("hst_buffer_create", hst_buffer_create(bn->be, (size_t)(bn->B + 1) * bn->sb, HST_MEM_RESIDENT, &bn->xb[k]));
        TRY("hst_buffer_create", hst_buffer_create(bn->be, (size_t)(bn->B + 1) * bn->sb, HST_MEM_RESIDENT, &bn->tb[k]));
        TRY("hst_buffer_create", hst_buffer_create(bn->be, (size_t)bn->B * 3 * bn->sb, HST_MEM_RESIDENT, &bn->pb[k]));
        TRY("hst_queue_create", hst_queue_create(bn->be, &qc[k]));
        TRY("hst_queue_create", hst_queue_create(bn->be, &qd[k]));
    }

    host_cpu(cpu, sizeof cpu, &cpus);
    printf("machine   %s [%s], %s, driver %s; host: %s, %d logical CPUs\n", bn->dev->name,
           bn->dev->selector, bn->dev->platform_name, bn->dev->driver_version, cpu, cpus);
    printf("chain     t = %g x + %g (TEMP) -> hst_k_grad3 (halo_hi 1) -> p (3 components)\n",
           (double)bn->a, (double)bn->b);
    printf("volume    %llu slices of %u x %u f32: %.2f GiB in, %.2f GiB out\n",
           (unsigned long long)bn->N, (unsigned)bn->H, (unsigned)bn->W, (double)total / GIB,
           3.0 * (double)total / GIB);
    print_copy_model(bn);
    printf("blocks    %llu blocks of %llu slices (%s), ring %u%s; best of %u after a warm-up\n\n",
           (unsigned long long)blocks, (unsigned long long)bn->B,
           o->blocks ? "from the --blocks budget" : "the default block, default budget", o->ring ? o->ring : 3,
           o->ring ? "" : " (default)", o->reps);

    TRY("pinned peak", pinned_peak(bn, q, &peak_up, &peak_down));
    TRY("upload alone", time_stream(upload, o->reps, &t_up, &rep));
    TRY("compute alone", compute_alone(bn, q, &t_comp));   /* warm-up */
    TRY("compute alone", best_of(o->reps, &t_comp, compute_alone, bn, q));
    TRY("download alone", time_stream(download, o->reps, &t_down, &rep));
    TRY("streamed", time_stream(chain, o->reps, &t_stream, &rep));
    TRY("sequential", sequential(bn, q, &t_seq));   /* warm-up */
    TRY("sequential", best_of(o->reps, &t_seq, sequential, bn, q));
    TRY("double-buffered", double_buffered(bn, qc, qd, &t_dbl));
    for (j = 0; j < o->reps; ++j) {
        double t;
        TRY("double-buffered", double_buffered(bn, qc, qd, &t));
        if (t < t_dbl || j == 0) t_dbl = t;
    }
    same_seq = pinned_equal(bn->p_pin, bn->p_seq, 3 * bn->sb);
    same_dbl = memcmp(bn->p_dbl, bn->p_seq, (size_t)(3 * total)) == 0;

    worst = t_up > t_comp ? t_up : t_comp;
    if (t_down > worst) worst = t_down;
    eff = worst / t_stream;
    printf("%-34s %9s %10s\n", "", "seconds", "GB/s");
    printf("%-34s %9.4f %10.2f  (%.2f GB up)\n", "pinned peak, one block up", (double)(bn->B + 1) * bn->sb / peak_up / GB, peak_up, (double)(bn->B + 1) * bn->sb / GB);
    printf("%-34s %9.4f %10.2f  (%.2f GB down)\n", "pinned peak, one block down", (double)bn->B * 3 * bn->sb / peak_down / GB, peak_down, (double)bn->B * 3 * bn->sb / GB);
    printf("%-34s %9.4f %10.2f  (%.2f GB, halos included)\n", "upload alone (ring)", t_up, (double)bn->up_bytes / t_up / GB, (double)bn->up_bytes / GB);
    printf("%-34s %9.4f %10.2f  (device GB read + written)\n", "compute alone (resident)", t_comp, (double)(3 * bn->up_bytes + bn->down_bytes) / t_comp / GB);
    printf("%-34s %9.4f %10.2f  (%.2f GB)\n", "download alone (ring)", t_down, (double)bn->down_bytes / t_down / GB, (double)bn->down_bytes / GB);
    printf("%-34s %9.4f %10.2f  (up + down)\n", "streamed (pinned caller arrays)", t_stream, (double)(bn->up_bytes + bn->down_bytes) / t_stream / GB);
    printf("%-34s %9.4f %10.2f\n", "sequential (pageable, blocking)", t_seq, (double)(bn->up_bytes + bn->down_bytes) / t_seq / GB);
    printf("%-34s %9.4f %10.2f\n", "double-buffered (pageable, PyQMRI)", t_dbl, (double)(bn->up_bytes + bn->down_bytes) / t_dbl / GB);
    printf("\nratios\n");
    printf("  overlap efficiency = max(up %.4f, compute %.4f, down %.4f) / streamed %.4f = %.3f "
           "(goal >= 0.95)\n", t_up, t_comp, t_down, t_stream, eff);
    printf("  upload through the ring alone: %.2f GB/s = %.1f%% of the pinned peak %.2f GB/s\n",
           (double)bn->up_bytes / t_up / GB, 100.0 * (double)bn->up_bytes / t_up / GB / peak_up, peak_up);
    printf("  upload in the streamed run: %.2f GB/s = %.1f%% of the pinned peak (download %.2f GB/s "
           "= %.1f%% of its peak %.2f GB/s)\n", (double)bn->up_bytes / t_stream / GB,
           100.0 * (double)bn->up_bytes / t_stream / GB / peak_up, (double)bn->down_bytes / t_stream / GB,
           100.0 * (double)bn->down_bytes / t_stream / GB / peak_down, peak_down);
    printf("  speedup vs sequential: %.2fx (goal >= 3x); vs double-buffered: %.2fx\n",
           t_seq / t_stream, t_dbl / t_stream);
    printf("  results: streamed %s sequential, double-buffered %s sequential\n",
           same_seq ? "==" : "!=", same_dbl ? "==" : "!=");
    printf("\nstream_bench: %s: %.2f GiB in / %.2f GiB out in %llu blocks: streamed %.3f s, overlap "
           "efficiency %.2f, upload %.0f%% of pinned peak alone, %.2fx vs sequential, %.2fx vs "
           "double-buffered, results %s\n", bn->dev->name, (double)total / GIB, 3.0 * (double)total / GIB,
           (unsigned long long)blocks, t_stream, eff, 100.0 * (double)bn->up_bytes / t_up / GB / peak_up,
           t_seq / t_stream, t_dbl / t_stream, same_seq && same_dbl ? "identical" : "DIFFER");

    for (k = 0; k < 2; ++k) {
        hst_queue_destroy(qc[k]);
        hst_queue_destroy(qd[k]);
    }
    hst_stream_destroy(chain);
    hst_stream_destroy(upload);
    hst_stream_destroy(download);
    return same_seq && same_dbl ? HST_SUCCESS : HST_ERROR_SHAPE;
}

int main(int argc, char **argv)
{
    options o;
    bench bn;
    hst_device_info pick;
    hst_backend_desc desc;
    char why[512] = "";
    uint64_t total, i, n;
    size_t out_sb;
    hst_result r;
    int k, status = 1;

    if (parse_options(argc, argv, &o) != 0)
        return 1;
    memset(&bn, 0, sizeof bn);
    if ((r = hst_device_select(o.device, &pick, why, sizeof why)) != HST_SUCCESS) {
        fprintf(stderr, "stream_bench: no device for '%s': %s (%d)\n  %s\n",
                o.device ? o.device : "$HST_DEVICE/auto", hst_result_string(r), r, why);
        return 1;
    }
    if (pick.type == HST_DEVICE_HOST) {
        fprintf(stderr, "stream_bench: the host device has no transfers to overlap; pick an "
                "OpenCL device\n");
        return 1;
    }
    memset(&desc, 0, sizeof desc);
    desc.device = pick.selector;
    if ((r = hst_backend_create(&desc, &bn.be)) != HST_SUCCESS) {
        fprintf(stderr, "stream_bench: hst_backend_create failed: %s (%d)\n", hst_result_string(r), r);
        return 1;
    }
    bn.dev = hst_backend_device(bn.be);
    bn.H = bn.W = SIDE;
    bn.hw = (uint64_t)SIDE * SIDE;
    bn.sb = (size_t)bn.hw * sizeof(float);
    bn.a = AXPY_A;
    bn.b = AXPY_B;
    bn.N = (uint64_t)(o.gib * GIB / (double)bn.sb + 0.5);
    if (bn.N < 2) bn.N = 2;
    if (bn.N < o.blocks) {
        fprintf(stderr, "stream_bench: %llu slices cannot make %u blocks; raise --gib\n",
                (unsigned long long)bn.N, o.blocks);
        goto done;
    }
    total = bn.N * bn.sb;
    out_sb = o.diff ? bn.sb : 3 * bn.sb;
    set_sources(&bn);

    /* caller arrays: pinned arrays for the streamed runs (several pinned buffers where one
       allocation of the device cannot hold one), pageable ones for the baselines */
    if ((r = hst_stream_pinned_create(bn.be, bn.sb, bn.N, 0, &bn.x_pin)) != HST_SUCCESS ||
        (r = hst_stream_pinned_create(bn.be, out_sb, bn.N, 0, &bn.p_pin)) != HST_SUCCESS) {
        fprintf(stderr, "stream_bench: pinned memory for %.2f GiB + %.2f GiB: %s (%d)\n",
                (double)total / GIB, (double)(out_sb * bn.N) / GIB, hst_result_string(r), r);
        goto done;
    }
    for (i = 0; i < bn.N; ++i) {   /* a smooth pattern with every slice different */
        float *x = (float *)hst_stream_pinned_slice(bn.x_pin, i, NULL);
        for (n = 0; n < bn.hw; ++n) x[n] = pattern(i * bn.hw + n);
    }
    pinned_zero(bn.p_pin, out_sb);   /* pages exist before timing */
    if (o.diff) {
        status = run_diff(&bn, &o) == HST_SUCCESS ? 0 : 1;
        goto done;
    }
    bn.x_page = (float *)malloc((size_t)total);
    bn.p_seq = (float *)malloc((size_t)(3 * total));
    bn.p_dbl = (float *)malloc((size_t)(3 * total));
    if (bn.x_page == NULL || bn.p_seq == NULL || bn.p_dbl == NULL) {
        fprintf(stderr, "stream_bench: out of host memory (%.2f GiB pageable)\n", 7.0 * (double)total / GIB);
        goto done;
    }
    CHECK(hst_stream_pinned_read(bn.x_pin, 0, bn.x_page, bn.N));
    memset(bn.p_seq, 0, (size_t)(3 * total));
    memset(bn.p_dbl, 0, (size_t)(3 * total));

    status = run(&bn, &o) == HST_SUCCESS ? 0 : 1;
done:
    for (k = 0; k < 2; ++k) {
        hst_buffer_destroy(bn.xb[k]);
        hst_buffer_destroy(bn.tb[k]);
        hst_buffer_destroy(bn.pb[k]);
    }
    hst_kernel_destroy(bn.k_axpy);
    hst_kernel_destroy(bn.k_grad);
    hst_program_release(bn.prog);
    hst_stream_pinned_destroy(bn.x_pin);
    hst_stream_pinned_destroy(bn.p_pin);
    free(bn.x_page);
    free(bn.p_seq);
    free(bn.p_dbl);
    CHECK(hst_backend_destroy(bn.be));
    return status;
}
