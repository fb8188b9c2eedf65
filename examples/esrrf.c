/* esrrf.c — eSRRF super-resolution of a fluorescence time series, streamed through a device.

       esrrf [options] input.tif output.tif

   Reads a TIFF stack (8-, 16-, 32-bit integer or 32/64-bit float samples, big- or little-endian,
   one page per frame, ImageJ hyperstacks included), streams its frames through stream.h (frames
   are the slices: a stack larger than the device's memory works) and writes
     output.tif          float32, one page per time point, pixel size scaled by 1/mag
                         (XResolution/YResolution multiplied by mag);
     output_preview.png  the widefield mean (left, upscaled) beside the eSRRF image (right),
                         each contrast-stretched between its 0.1% and 99.9% quantiles,
                         labelled, with a scale bar from the input's pixel size.
   A file that does not hold what it promises (a page chain that ends early, short strips, fewer
   frames than its ImageJ header says) is an error: examples/image_io.h reads and writes the files.
   Both are written under temporary names in the output's directory and renamed at the end, so
   an error or Ctrl-C never leaves a partial output behind.

   The math and its conventions are NanoPyx's eSRRF (Catmull-Rom interpolation, radial gradient
   convergence, temporal AVG/VAR/TAC2, macro-pixel correction): ../shared/REFERENCE.md section 2
   and kernels.h's eSRRF section. Two paths compute the same numbers (bitwise):
     --fused          one kernel per frame: RGC with the 2x-magnified gradients interpolated on
                      the fly (never stored), then the temporal accumulation;
     --chained        Roberts cross -> Catmull-Rom magnify (gradients at 2 mag, the frame at
                      mag) -> RGC -> temporal, with device-only (TEMP) arrays between them.
   Given neither, the faster is chosen by measured speed (backend.h's >>choice: operation
   "esrrf", implementations "fused" and "chained", signature {rows, cols, mag, frames per
   block}): while the choice still measures this signature on this device, blocks run one by one
   through it (each path's first block in the process is a warm-up, not timed), then the rest of
   the stack runs in one stream of the path it picks, whose time per block is recorded too.
   Timings persist in the cache directory ($HST_CACHE_DIR), so later runs go straight to the
   faster path; HST_FORCE=esrrf:chained (or :fused) forces one. The summary says which path ran
   and why.

   Options (defaults in brackets):
     --mag N                    magnification, 1..32 [5]
     --radius R                 radius in input pixels, 0 < R <= 20 [1.5]
     --sensitivity S            sensitivity, 0 < S <= 100 [1]
     --no-intensity-weighting   do not weight the RGC by the magnified frame
     --frames-per-timepoint T   frames per output image, 0 = all [0]; trailing frames that do
                                not fill a time point are left out (with a note)
     --mode avg|var|tac2        temporal statistic [avg]
     --no-macro-pixel           skip the macro-pixel correction
     --channel C                ImageJ hyperstacks with several channels: the channel, from 1
     --device S                 device selector: auto, gpu, cpu, host, P:D or a name
                                substring [$HST_DEVICE, else auto] (see build/examples/devices)
     --budget-mib M             device memory for the stream's ring, MiB [3/4 of the device]
     --block N                  frames per streamed block, 0 = automatic [0]
     --max-frames N             use only the first N frames, 0 = all [0]
     --fused, --chained         this path [the faster, measured]
     --no-preview               do not write the PNG preview
     -q, --quiet                no progress bar and no summary
     -h, --help

   Exit status: 0 success, 1 an error while running (message on stderr), 2 bad usage or input.

   Build: cc -std=c99 -O2 -I. examples/esrrf.c -o esrrf -ltiff -lpng -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime, mkstemp, fileno, sigaction in strict C99 */
#define HST_IMPLEMENTATION
#include "stream.h"
#include "kernels.h"

#define IMAGE_IO_IMPLEMENTATION
#include "image_io.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "esrrf"
#define MAX_MAG 32
#define MAX_RADIUS 20.0
#define MAX_SENSITIVITY 100.0
#define ACC_VALUES 5                   /* per pixel and time point: sum x, x^2, lag-1, first, last */
#define PROGRESS_AFTER_S 2.0           /* without a terminal: progress lines only after this */
#define TARGET_BLOCKS 16               /* automatic block size: about this many blocks ... */
#define MIN_BLOCK 16                   /* ... of at least this many frames (the temporal stage
                                          reads one frame before each block: 1/B extra work) */

enum mode { MODE_AVG = 0, MODE_VAR = 1, MODE_TAC2 = 2 };   /* hst_k_esrrf_finalize's numbers */
static const char *const mode_names[] = { "avg", "var", "tac2" };

typedef struct options {
    const char *input, *output, *device;
    unsigned mag;
    double radius, sensitivity;
    int intensity_weighting, macro_pixel, chained, path_given, preview, quiet;
    uint64_t frames_per_tp, block, budget_mib, max_frames;
    unsigned channel;                  /* 0: not given */
    enum mode mode;
} options;

/* ------------------------------------------------------------------------------ messages */
static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, PROG ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The library's log: errors are kept and printed once with our message; warnings go out. */
typedef struct log_state { char last[1024]; } log_state;

static void logger(void *user, hst_log_level level, hst_log_item item, const char *msg)
{
    log_state *ls = (log_state *)user;
    (void)item;
    if (level == HST_LOG_ERROR)
        snprintf(ls->last, sizeof ls->last, "%s", msg);
    else if (level == HST_LOG_WARN)
        fprintf(stderr, PROG ": warning: %s\n", msg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------ options */
static void usage(FILE *f)
{
    fprintf(f,
        "usage: " PROG " [options] input.tif output.tif\n"
        "  --mag N (1..%d, 5)  --radius R (1.5)  --sensitivity S (1)  --no-intensity-weighting\n"
        "  --frames-per-timepoint T (0 = all)  --mode avg|var|tac2  --no-macro-pixel\n"
        "  --channel C  --device S  --budget-mib M  --block N  --max-frames N  --fused | --chained\n"
        "  --no-preview  -q\n"
        "Writes output.tif (float32, one page per time point) and output_preview.png.\n",
        MAX_MAG);
}

static int parse_u64(const char *name, const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+') goto bad;
    v = strtoull(s, &end, 10);
    if (errno || *end) goto bad;
    if (v > max) {
        fail("%s %s is too large (at most %llu)", name, s, (unsigned long long)max);
        return 0;
    }
    *out = v;
    return 1;
bad:
    fail("%s: '%s' is not a non-negative integer", name, s ? s : "");
    return 0;
}

static int parse_double(const char *name, const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!s || !*s) goto bad;
    *out = strtod(s, &end);
    if (errno || *end || !isfinite(*out)) goto bad;
    return 1;
bad:
    fail("%s: '%s' is not a finite number", name, s ? s : "");
    return 0;
}

/* Returns 0 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    int i, npos = 0;
    uint64_t v;
    memset(o, 0, sizeof *o);
    o->mag = 5; o->radius = 1.5; o->sensitivity = 1.0;
    o->intensity_weighting = 1; o->macro_pixel = 1; o->preview = 1;
    o->mode = MODE_AVG;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[64];
        const char *eq;
        if (a[0] != '-' || a[1] == '\0') {
            if (npos == 0) o->input = a;
            else if (npos == 1) o->output = a;
            else { fail("unexpected argument '%s' (give one input and one output)", a); usage(stderr); return 2; }
            npos++;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return -1; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--no-intensity-weighting")) { o->intensity_weighting = 0; continue; }
        if (!strcmp(a, "--no-macro-pixel")) { o->macro_pixel = 0; continue; }
        if (!strcmp(a, "--chained")) { o->chained = 1; o->path_given = 1; continue; }
        if (!strcmp(a, "--fused")) { o->chained = 0; o->path_given = 1; continue; }
        if (!strcmp(a, "--no-preview")) { o->preview = 0; continue; }
        /* options with a value: --name value or --name=value */
        eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else { fail("%s needs a value", name); usage(stderr); return 2; }
        if (!strcmp(name, "--mag")) {
            if (!parse_u64(name, val, UINT64_MAX, &v)) return 2;
            if (v < 1 || v > MAX_MAG) { fail("--mag %s: the magnification must be 1..%d", val, MAX_MAG); return 2; }
            o->mag = (unsigned)v;
        } else if (!strcmp(name, "--radius")) {
            if (!parse_double(name, val, &o->radius)) return 2;
            if (!(o->radius > 0.0) || o->radius > MAX_RADIUS) {
                fail("--radius %s: the radius must be > 0 and <= %g input pixels", val, MAX_RADIUS);
                return 2;
            }
        } else if (!strcmp(name, "--sensitivity")) {
            if (!parse_double(name, val, &o->sensitivity)) return 2;
            if (!(o->sensitivity > 0.0) || o->sensitivity > MAX_SENSITIVITY) {
                fail("--sensitivity %s: the sensitivity must be > 0 and <= %g", val, MAX_SENSITIVITY);
                return 2;
            }
        } else if (!strcmp(name, "--frames-per-timepoint")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->frames_per_tp)) return 2;
        } else if (!strcmp(name, "--mode")) {
            if (!strcmp(val, "avg")) o->mode = MODE_AVG;
            else if (!strcmp(val, "var")) o->mode = MODE_VAR;
            else if (!strcmp(val, "tac2")) o->mode = MODE_TAC2;
            else { fail("--mode %s: expected avg, var or tac2", val); return 2; }
        } else if (!strcmp(name, "--channel")) {
            if (!parse_u64(name, val, 65535, &v)) return 2;
            if (v < 1) { fail("--channel counts from 1"); return 2; }
            o->channel = (unsigned)v;
        } else if (!strcmp(name, "--device")) {
            o->device = val;
        } else if (!strcmp(name, "--budget-mib")) {
            if (!parse_u64(name, val, (uint64_t)1 << 40, &o->budget_mib)) return 2;
        } else if (!strcmp(name, "--max-frames")) {
            if (!parse_u64(name, val, UINT64_MAX, &o->max_frames)) return 2;
        } else if (!strcmp(name, "--block")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->block)) return 2;
        } else {
            fail("unknown option '%s'", name);
            usage(stderr);
            return 2;
        }
    }
    if (npos != 2) {
        fail(npos == 0 ? "no input and output given" : "no output given");
        usage(stderr);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------------------ reading */
/* The stack as read (native samples, size, pixel size: image_io.h) and as the stream takes it. */
typedef struct stack {
    io_stack in;
    uint32_t rows, cols;
    uint64_t frames;
    float *data;                       /* frames x rows x cols */
} stack;

/* in's samples -> float (the stream's input type). */
static int stack_to_float(stack *st)
{
    size_t i, n = (size_t)st->in.frames * st->in.rows * st->in.cols;
    st->rows = st->in.rows; st->cols = st->in.cols; st->frames = st->in.frames;
    if (st->in.dtype == IO_F32) { st->data = (float *)st->in.data; st->in.data = NULL; return 1; }
    if (!(st->data = (float *)malloc((n ? n : 1) * sizeof(float)))) { fail("out of host memory"); return 0; }
    for (i = 0; i < n; i++)
        st->data[i] = st->in.dtype == IO_U8 ? (float)((const uint8_t *)st->in.data)[i]
                    : st->in.dtype == IO_U16 ? (float)((const uint16_t *)st->in.data)[i]
                    : (float)((const int16_t *)st->in.data)[i];
    io_stack_free(&st->in);
    return 1;
}

static int read_stack(const options *o, stack *st)
{
    char err[1024];
    if (!io_read_stack(o->input, o->channel, o->max_frames, &st->in, err, sizeof err)) { fail("%s", err); return 0; }
    return stack_to_float(st);
}

/* ------------------------------------------------------------------------------ host twins */
/* The stages' host twins, for the host device. Per-frame stages run on all cores, each thread a
   contiguous share of the block's frames; the temporal stage walks the frames in order. */
enum twin { TWIN_FUSED, TWIN_ROBERTS, TWIN_MAGNIFY, TWIN_RGC, TWIN_TEMPORAL };

typedef struct twin_job {
    enum twin kind;
    void *const *a;
    const void *const *s;
    uint64_t base, begin, end, total;
} twin_job;

#define U32(i) (*(const uint32_t *)j->s[i])
#define F32(i) (*(const float *)j->s[i])
#define I32(i) (*(const int *)j->s[i])

static void twin_run(const twin_job *j)
{
    switch (j->kind) {
    case TWIN_FUSED:
        hst_k_esrrf_rgc_fused_host((const float *)j->a[0], (float *)j->a[1], U32(0), U32(1), U32(2),
                                   F32(3), F32(4), I32(5), j->base, j->begin, j->end, j->total);
        break;
    case TWIN_ROBERTS:
        hst_k_esrrf_roberts_host((const float *)j->a[0], (float *)j->a[1], U32(0), U32(1),
                                 j->base, j->begin, j->end, j->total);
        break;
    case TWIN_MAGNIFY:
        hst_k_esrrf_magnify_host((const float *)j->a[0], (float *)j->a[1], U32(0), U32(1), U32(2),
                                 U32(3), j->base, j->begin, j->end, j->total);
        break;
    case TWIN_RGC:
        hst_k_esrrf_rgc_host((const float *)j->a[0], (const float *)j->a[1], (float *)j->a[2],
                             U32(0), U32(1), U32(2), F32(3), F32(4), I32(5), j->base, j->begin,
                             j->end, j->total);
        break;
    case TWIN_TEMPORAL:
        hst_k_esrrf_temporal_host((const float *)j->a[0], (double *)j->a[1], U32(0), U32(1),
                                  j->base, j->begin, j->end, j->total);
        break;
    }
}

static void *twin_thread(void *p)
{
    twin_run((const twin_job *)p);
    return NULL;
}

static unsigned host_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

static hst_result twin_dispatch(enum twin kind, void *const *a, const void *const *s,
                                const hst_stream_block *b)
{
    twin_job jobs[256];
    pthread_t th[256];
    int created[256];
    uint64_t n = b->end - b->begin;
    unsigned t, nt = host_threads();
    if (kind == TWIN_TEMPORAL || n < 2) nt = 1;   /* temporal: one ordered walk over the frames */
    if (nt > n) nt = (unsigned)n;
    for (t = 0; t < nt; t++) {
        jobs[t].kind = kind; jobs[t].a = a; jobs[t].s = s;
        jobs[t].base = b->base; jobs[t].total = b->total;
        jobs[t].begin = b->begin + n * t / nt;
        jobs[t].end = b->begin + n * (t + 1) / nt;
    }
    for (t = 1; t < nt; t++) created[t] = pthread_create(&th[t], NULL, twin_thread, &jobs[t]) == 0;
    if (nt) twin_run(&jobs[0]);
    for (t = 1; t < nt; t++) {
        if (created[t]) pthread_join(th[t], NULL);
        else twin_run(&jobs[t]);   /* no thread: this one does it */
    }
    return HST_SUCCESS;
}

static hst_result host_fused(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(TWIN_FUSED, a, s, b); }
static hst_result host_roberts(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(TWIN_ROBERTS, a, s, b); }
static hst_result host_magnify(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(TWIN_MAGNIFY, a, s, b); }
static hst_result host_rgc(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(TWIN_RGC, a, s, b); }
static hst_result host_temporal(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(TWIN_TEMPORAL, a, s, b); }

/* ------------------------------------------------------------------------------ progress */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct progress {
    int tty, quiet, drawn;
    double t0, last;
    unsigned last_tenth;
    uint64_t base, all;     /* a stream of the later frames: done counts from base, of all */
} progress;

/* A bar on a terminal; else, once the run is long, a line every 10%. Cancels on Ctrl-C. */
static int on_progress(uint64_t done, uint64_t total, void *user)
{
    progress *p = (progress *)user;
    double t, rate;
    unsigned tenth;
    if (p->all) { done += p->base; total = p->all; }
    t = now_s() - p->t0;
    rate = t > 0 ? (double)done / t : 0.0;
    tenth = (unsigned)(10 * done / (total ? total : 1));
    if (p->quiet || interrupted) return interrupted;
    if (p->tty) {
        if (t - p->last >= 0.1 || done == total) {
            char bar[31];
            unsigned k, fill = (unsigned)(30 * done / (total ? total : 1));
            for (k = 0; k < 30; k++) bar[k] = k < fill ? '#' : '.';
            bar[30] = '\0';
            fprintf(stderr, "\r[%s] %3u%%  %llu/%llu frames  %.1f frames/s  ", bar,
                    (unsigned)(100 * done / (total ? total : 1)), (unsigned long long)done,
                    (unsigned long long)total, rate);
            if (rate > 0 && done < total) fprintf(stderr, "%.0f s left ", (double)(total - done) / rate);
            fflush(stderr);
            p->last = t;
            p->drawn = 1;
        }
    } else if (t >= PROGRESS_AFTER_S && tenth > p->last_tenth) {
        fprintf(stderr, PROG ": %3u%%  %llu/%llu frames  %.1f frames/s\n",
                (unsigned)(100 * done / (total ? total : 1)), (unsigned long long)done,
                (unsigned long long)total, rate);
        p->last_tenth = tenth;
    }
    return 0;
}

static void progress_end(progress *p)
{
    if (p->drawn) fputc('\n', stderr);
    p->drawn = 0;
}

/* ------------------------------------------------------------------------------ the stream */
/* Scalar arguments of the stages (the stream reads them through pointers at run time). */
typedef struct params {
    uint32_t rows, cols, mag, mag2, one, two, pixels, frames_per_tp;
    float radius, sensitivity;
    int intensity_weighting;
} params;

static void scalar(hst_stream_stage *g, const void *p, size_t bytes)
{
    g->scalars[g->num_scalars] = p;
    g->scalar_bytes[g->num_scalars++] = bytes;
}

/* Array indices and bindings; static: the stream keeps pointers to the binding lists. */
enum { A_FRAMES, A_RGC, A_ACC, A_GRAD, A_GRAD2, A_MAG };
static const int in_frames[1] = { A_FRAMES }, out_rgc[1] = { A_RGC }, in_rgc[1] = { A_RGC },
                 out_acc[1] = { A_ACC }, out_grad[1] = { A_GRAD }, in_grad[1] = { A_GRAD },
                 out_grad2[1] = { A_GRAD2 }, out_mag[1] = { A_MAG },
                 in_rgc_inputs[2] = { A_GRAD2, A_MAG };

typedef struct run_info {
    double stream_s, upload_s, download_s, compute_s;
    uint64_t block, blocks, runs;
    double acc_moved;       /* bytes of temporal sums copied up and down (each run) */
    int estimated;          /* upload/download from measured bandwidth (OpenCL devices) */
    int chained;            /* the path that ran the most frames */
} run_info;

/* Best of three blocking copies of `bytes` through pinned memory: seconds per byte each way. */
static void measure_copies(hst_backend *be, size_t bytes, double *up_s_per_b, double *down_s_per_b)
{
    hst_buffer *pin = NULL, *dev = NULL;
    hst_queue *q = hst_backend_queue(be);
    int k;
    *up_s_per_b = *down_s_per_b = 0;
    if (bytes > ((size_t)64 << 20)) bytes = (size_t)64 << 20;
    if (!bytes || hst_pinned_create(be, bytes, &pin) != HST_SUCCESS ||
        hst_buffer_create(be, bytes, HST_MEM_RESIDENT, &dev) != HST_SUCCESS)
        goto out;
    memset(hst_buffer_host_ptr(pin), 0, bytes);
    for (k = 0; k < 3; k++) {
        double t0 = now_s(), t1, t2;
        if (hst_write(q, dev, 0, hst_buffer_host_ptr(pin), bytes, 1, 0, NULL, NULL) != HST_SUCCESS) break;
        t1 = now_s();
        if (hst_read(q, dev, 0, hst_buffer_host_ptr(pin), bytes, 1, 0, NULL, NULL) != HST_SUCCESS) break;
        t2 = now_s();
        if (k == 0 || (t1 - t0) / bytes < *up_s_per_b) *up_s_per_b = (t1 - t0) / bytes;
        if (k == 0 || (t2 - t1) / bytes < *down_s_per_b) *down_s_per_b = (t2 - t1) / bytes;
    }
out:
    hst_buffer_destroy(dev);
    hst_buffer_destroy(pin);
}

/* One path's stream over n frames of st from `first` (replaceable between runs), into the GLOBAL
   acc (acc_bytes: the time points it touches; frames_per_tp 0: the n frames are one time point,
   or a piece of it, see piece_fix), in blocks of `block` frames. P lives beside the stream: the
   stream reads the stages' scalars through pointers at run time. */
typedef struct path_stream {
    hst_stream *s;
    params P;
    size_t acc_bytes;
} path_stream;

static hst_result stream_open(const options *o, hst_backend *be, const stack *st, int chained,
                              float *first, uint64_t n, uint32_t frames_per_tp, void *acc,
                              size_t acc_bytes, int acc_f64, uint64_t block, progress *pg,
                              path_stream *ps)
{
    const hst_device_info *dev = hst_backend_device(be);
    size_t count = 0;
    const char *const *src = hst_kernels_esrrf_source(&count);
    char opts[96];
    params *P = &ps->P;
    hst_stream_array arrays[6];
    hst_stream_stage stages[5];
    hst_stream_desc d;
    size_t frame_px = (size_t)st->rows * st->cols, pixels;
    unsigned ns = 0, k;
    hst_result r;

    ps->s = NULL;
    ps->acc_bytes = acc_bytes;
    memset(P, 0, sizeof *P);
    P->rows = st->rows; P->cols = st->cols; P->mag = o->mag; P->mag2 = 2 * o->mag;
    P->one = 1; P->two = 2;
    pixels = frame_px * o->mag * o->mag;
    P->pixels = (uint32_t)pixels;
    P->frames_per_tp = frames_per_tp;
    P->radius = (float)o->radius; P->sensitivity = (float)o->sensitivity;
    P->intensity_weighting = o->intensity_weighting;
    snprintf(opts, sizeof opts, "%s%s", dev->correctly_rounded_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "",
             dev->fp64 ? " -DHST_FP64" : "");

    memset(arrays, 0, sizeof arrays);
    arrays[A_FRAMES].kind = HST_STREAM_INPUT;
    arrays[A_FRAMES].host = first;
    arrays[A_FRAMES].slice_bytes = frame_px * sizeof(float);
    arrays[A_RGC].kind = HST_STREAM_TEMP;
    arrays[A_RGC].slice_bytes = pixels * sizeof(float);
    arrays[A_ACC].kind = HST_STREAM_GLOBAL;
    arrays[A_ACC].host = acc;
    arrays[A_ACC].global_bytes = acc_bytes;
    arrays[A_ACC].dtype = acc_f64 ? HST_F64 : HST_F32;
    arrays[A_GRAD].kind = HST_STREAM_TEMP;
    arrays[A_GRAD].slice_bytes = 2 * frame_px * sizeof(float);
    arrays[A_GRAD2].kind = HST_STREAM_TEMP;
    arrays[A_GRAD2].slice_bytes = 2 * frame_px * (size_t)P->mag2 * P->mag2 * sizeof(float);
    arrays[A_MAG].kind = HST_STREAM_TEMP;
    arrays[A_MAG].slice_bytes = pixels * sizeof(float);

    memset(stages, 0, sizeof stages);
    for (k = 0; k < 5; k++) {
        stages[k].sources = src;
        stages[k].source_count = count;
        stages[k].options = opts;
    }
    if (!chained) {
        hst_stream_stage *g = &stages[ns++];
        g->name = "esrrf_rgc_fused"; g->kernel = "hst_k_esrrf_rgc_fused"; g->host = host_fused;
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_rgc;
        g->items_per_slice = pixels;
        scalar(g, &P->rows, 4); scalar(g, &P->cols, 4); scalar(g, &P->mag, 4);
        scalar(g, &P->radius, 4); scalar(g, &P->sensitivity, 4); scalar(g, &P->intensity_weighting, 4);
    } else {
        hst_stream_stage *g = &stages[ns++];
        g->name = "esrrf_roberts"; g->kernel = "hst_k_esrrf_roberts"; g->host = host_roberts;
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_grad;
        g->items_per_slice = frame_px;
        scalar(g, &P->rows, 4); scalar(g, &P->cols, 4);
        g = &stages[ns++];
        g->name = "esrrf_magnify_gradients"; g->kernel = "hst_k_esrrf_magnify"; g->host = host_magnify;
        g->num_inputs = 1; g->inputs = in_grad; g->num_outputs = 1; g->outputs = out_grad2;
        g->items_per_slice = frame_px * P->mag2 * P->mag2;
        scalar(g, &P->rows, 4); scalar(g, &P->cols, 4); scalar(g, &P->mag2, 4); scalar(g, &P->two, 4);
        g = &stages[ns++];
        g->name = "esrrf_magnify_frame"; g->kernel = "hst_k_esrrf_magnify"; g->host = host_magnify;
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_mag;
        g->items_per_slice = pixels;
        scalar(g, &P->rows, 4); scalar(g, &P->cols, 4); scalar(g, &P->mag, 4); scalar(g, &P->one, 4);
        g = &stages[ns++];
        g->name = "esrrf_rgc"; g->kernel = "hst_k_esrrf_rgc"; g->host = host_rgc;
        g->num_inputs = 2; g->inputs = in_rgc_inputs; g->num_outputs = 1; g->outputs = out_rgc;
        g->items_per_slice = pixels;
        scalar(g, &P->rows, 4); scalar(g, &P->cols, 4); scalar(g, &P->mag, 4);
        scalar(g, &P->radius, 4); scalar(g, &P->sensitivity, 4); scalar(g, &P->intensity_weighting, 4);
    }
    {   /* the temporal sums: one ordered walk over the frames per pixel, into the GLOBAL acc;
           the frame before each block (halo 1) gives the lag-1 product across blocks */
        hst_stream_stage *g = &stages[ns++];
        g->name = "esrrf_temporal"; g->kernel = "hst_k_esrrf_temporal"; g->host = host_temporal;
        g->num_inputs = 1; g->inputs = in_rgc; g->num_outputs = 1; g->outputs = out_acc;
        g->items_per_slice = pixels;
        g->loop_slices = 1;
        g->halo_lo = n > 1 ? 1 : 0;
        scalar(g, &P->pixels, 4); scalar(g, &P->frames_per_tp, 4);
    }

    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.num_slices = n;
    d.arrays = arrays;
    d.num_arrays = chained ? 6 : 3;
    d.stages = stages;
    d.num_stages = ns;
    d.budget_bytes = o->budget_mib << 20;
    d.progress = pg ? on_progress : NULL;
    d.progress_user = pg;
    d.block_slices = block < n ? block : n;
    r = hst_stream_create(&d, &ps->s);
    if (r == HST_ERROR_OUT_OF_DEVICE_MEMORY && !o->block) {   /* smaller blocks, if they fit */
        d.block_slices = 0;
        r = hst_stream_create(&d, &ps->s);
    }
    if (r != HST_SUCCESS) ps->s = NULL;
    return r;
}

/* Runs an open stream once; adds its time and blocks to ri. */
static hst_result stream_go(path_stream *ps, run_info *ri)
{
    hst_stream_report rep;
    uint64_t b = hst_stream_block_slices(ps->s);
    hst_result r = hst_stream_run(ps->s, &rep);
    ri->stream_s += rep.seconds;
    ri->blocks += rep.blocks;
    ri->runs++;
    ri->acc_moved += 2.0 * (double)ps->acc_bytes;   /* up at the start, down at the end */
    if (b > ri->block) ri->block = b;
    return r;
}

/* A piece [c0, c1) of the one time point (c0 > 0), streamed with frames_per_tp 0 into the whole
   acc: its stream counts frame c0 as the time point's first (adds it to F) and has no lag-1
   product between frames c0 - 1 and c0. Before the run F and L (L holds frame c0 - 1) are kept
   in `keep` (2 x pixels) and cleared; after it, that product is added and F restored. S1, S2
   and the piece's own lag-1 products continue in frame order (the stream uploads acc), so AVG
   and VAR are bitwise those of one stream; TAC2's lag-1 sum adds the pieces' boundary products
   after their inner ones (a rounding of the double sum, whichever path ran each piece). */
static void piece_fix(void *acc, int acc_f64, size_t P, void *keep, int after)
{
    size_t i;
    if (acc_f64) {
        double *a = (double *)acc, *k = (double *)keep, y;
        for (i = 0; i < P; i++) {
            if (!after) { k[i] = a[3 * P + i]; k[P + i] = a[4 * P + i]; a[3 * P + i] = a[4 * P + i] = 0; }
            else { y = k[P + i] * a[3 * P + i]; a[2 * P + i] = a[2 * P + i] + y; a[3 * P + i] = k[i]; }
        }
    } else {
        float *a = (float *)acc, *k = (float *)keep, y;
        for (i = 0; i < P; i++) {
            if (!after) { k[i] = a[3 * P + i]; k[P + i] = a[4 * P + i]; a[3 * P + i] = a[4 * P + i] = 0; }
            else { y = k[P + i] * a[3 * P + i]; a[2 * P + i] = a[2 * P + i] + y; a[3 * P + i] = k[i]; }
        }
    }
}

/* The choice between the paths (backend.h's >>choice): operation "esrrf" with implementations
   "fused" and "chained", one call per piece of `chunk` frames, signature {rows, cols, mag,
   chunk}. A piece is a block of the one time point (frames_per_tp 0, into acc with piece_fix),
   or whole time points (into a zeroed scratch acc, then copied to their place). */
typedef struct auto_job {
    const options *o;
    hst_backend *be;
    const stack *st;
    uint64_t chunk, begin;             /* this call: frames [begin, begin + chunk) */
    uint32_t frames_per_tp;
    void *acc;                         /* the pieces' GLOBAL */
    size_t acc_bytes;
    int acc_f64;
    path_stream ps[2];                 /* fused, chained: opened on first use, kept */
    run_info *ri;
} auto_job;

static hst_result run_piece(auto_job *j, int chained)
{
    path_stream *ps = &j->ps[chained];
    float *first = j->st->data + j->begin * ((size_t)j->st->rows * j->st->cols);
    hst_result r;
    if (!ps->s && (r = stream_open(j->o, j->be, j->st, chained, first, j->chunk, j->frames_per_tp,
                                   j->acc, j->acc_bytes, j->acc_f64, j->chunk, NULL, ps)) != HST_SUCCESS)
        return r;
    if ((r = hst_stream_set_array(ps->s, A_FRAMES, first, NULL)) != HST_SUCCESS) return r;
    return stream_go(ps, j->ri);
}
static hst_result run_fused(void *args, void *user) { (void)user; return run_piece((auto_job *)args, 0); }
static hst_result run_chained(void *args, void *user) { (void)user; return run_piece((auto_job *)args, 1); }

/* Whether the choice still measures at sig: a usable path without timings of its own. */
static int measuring(const hst_choice_op *op, const int64_t *sig)
{
    hst_choice_stat st[2];
    size_t n = 0, i;
    if (hst_choice_stats(op, sig, 4, st, 2, &n) != HST_SUCCESS) return 0;
    for (i = 0; i < n; i++)
        if (!st[i].failed && st[i].source != HST_CHOICE_EXACT && st[i].source != HST_CHOICE_DEFAULT)
            return 1;
    return 0;
}

/* What the final report says about the choice. */
typedef struct choice_info {
    int used, forced;                  /* chosen (no --fused / --chained); by HST_FORCE */
    uint64_t chunk, pieces[2];         /* pieces run through the choice, per path */
    hst_choice_stat stat[2];           /* after the run; valid while the backend lives */
} choice_info;

/* Streams frames [0, n) of st into acc (5 x pixels x time points, double or float as acc_f64):
   without --fused / --chained, pieces through the choice while it measures, then the rest in
   one stream of the path it picks (whose time per piece is recorded). Returns an hst_result. */
static hst_result run_all(const options *o, hst_backend *be, const stack *st, uint64_t n,
                          uint32_t T, void *acc, int acc_f64, progress *pg, run_info *ri,
                          choice_info *ci)
{
    size_t pixels = (size_t)st->rows * st->cols * o->mag * o->mag, esz = acc_f64 ? sizeof(double) : sizeof(float);
    size_t tp_bytes = ACC_VALUES * pixels * esz;
    uint64_t ntp = n / T, f = 0, block;
    int chained = o->chained;
    void *scratch = NULL;
    path_stream rest;
    hst_result r = HST_SUCCESS;

    /* Blocks small enough that uploads overlap compute and the bar moves, large enough that the
       halo frame each block recomputes stays a small share. */
    block = o->block ? o->block : (n + TARGET_BLOCKS - 1) / TARGET_BLOCKS;
    if (!o->block && block < MIN_BLOCK) block = MIN_BLOCK;
    if (block > n) block = n;
    ri->block = 0;
    pg->t0 = now_s();
    memset(ci, 0, sizeof *ci);
    if (!o->path_given) {
        static const hst_choice_impl impls[2] = { { "fused", run_fused, NULL, NULL, NULL, 0 },
                                                  { "chained", run_chained, NULL, NULL, NULL, 0 } };
        hst_choice_op_desc od;
        hst_choice_op *op = NULL;
        hst_choice_outcome oc;
        auto_job j;
        int64_t sig[4];
        unsigned pick;
        size_t count;
        const char *force = getenv("HST_FORCE");
        memset(&j, 0, sizeof j);
        j.o = o; j.be = be; j.st = st; j.acc_f64 = acc_f64; j.ri = ri;
        if (ntp == 1) {                 /* blocks of the one time point, straight into acc */
            j.chunk = block; j.frames_per_tp = 0; j.acc = acc; j.acc_bytes = tp_bytes;
            scratch = malloc(2 * pixels * esz);
        } else {                        /* whole time points, through a scratch acc */
            j.chunk = (uint64_t)T * (block / T ? block / T : 1);
            j.frames_per_tp = T; j.acc_bytes = (size_t)(j.chunk / T) * tp_bytes;
            j.acc = scratch = calloc(j.acc_bytes, 1);
        }
        if (!scratch) return HST_ERROR_OUT_OF_HOST_MEMORY;
        memset(&od, 0, sizeof od);
        od.name = "esrrf";
        od.impls = impls;
        od.num_impls = 2;
        sig[0] = st->rows; sig[1] = st->cols; sig[2] = o->mag; sig[3] = (int64_t)j.chunk;
        ci->used = 1;
        ci->chunk = j.chunk;
        ci->forced = force && (!strncmp(force, "esrrf:", 6) || strstr(force, ",esrrf:"));
        if ((r = hst_choice_register(be, &od, &op)) != HST_SUCCESS) { free(scratch); return r; }
        while (f + j.chunk <= n && measuring(op, sig) && !interrupted) {
            j.begin = f;
            if (ntp == 1 && f > 0) piece_fix(acc, acc_f64, pixels, scratch, 0);
            r = hst_choice_run(op, sig, 4, &j, NULL, &oc);
            if (r != HST_SUCCESS) break;
            if (ntp == 1 && f > 0) piece_fix(acc, acc_f64, pixels, scratch, 1);
            if (ntp > 1) {
                memcpy((char *)acc + (size_t)(f / T) * tp_bytes, scratch, j.acc_bytes);
                memset(scratch, 0, j.acc_bytes);
            }
            ci->pieces[oc.impl]++;
            f += j.chunk;
            on_progress(f, n, pg);
            if (!oc.explored || oc.forced) break;
        }
        hst_stream_destroy(j.ps[0].s);
        hst_stream_destroy(j.ps[1].s);
        if (r == HST_SUCCESS && (r = hst_choice_pick(op, sig, 4, &pick)) == HST_SUCCESS)
            chained = pick == 1;
        if (r == HST_SUCCESS && f < n && !interrupted) {   /* the rest: one stream of that path */
            double s0 = ri->stream_s;
            int fix = ntp == 1 && f > 0;
            pg->base = f;
            pg->all = n;
            if (fix) piece_fix(acc, acc_f64, pixels, scratch, 0);
            r = stream_open(o, be, st, chained, st->data + f * ((size_t)st->rows * st->cols), n - f,
                            ntp == 1 ? 0 : T, (char *)acc + (size_t)(f / T) * tp_bytes,
                            (size_t)(ntp - f / T) * tp_bytes, acc_f64, block, pg, &rest);
            if (r == HST_SUCCESS) r = stream_go(&rest, ri);
            hst_stream_destroy(rest.s);
            if (r == HST_SUCCESS && fix) piece_fix(acc, acc_f64, pixels, scratch, 1);
            if (r == HST_SUCCESS && n - f >= j.chunk)       /* its time per piece, for the choice */
                hst_choice_record(op, sig, 4, impls[chained].name,
                                  (ri->stream_s - s0) * (double)j.chunk / (double)(n - f));
            f = n;
        }
        hst_choice_stats(op, sig, 4, ci->stat, 2, &count);
        free(scratch);
    } else {
        r = stream_open(o, be, st, chained, st->data, n, ntp == 1 ? 0 : T, acc, (size_t)ntp * tp_bytes,
                        acc_f64, block, pg, &rest);
        if (r == HST_SUCCESS) r = stream_go(&rest, ri);
        hst_stream_destroy(rest.s);
    }
    progress_end(pg);
    if (r == HST_SUCCESS && interrupted) r = HST_ERROR_CANCELLED;
    ri->chained = chained;
    return r;
}

/* stream.h's report has no per-queue times: on an OpenCL device the transfers are estimated
   from their sizes and the copy speed measured here; compute is the rest of the stream's time. */
static void estimate_transfers(hst_backend *be, const stack *st, uint64_t n, run_info *ri)
{
    double up, down, frame = (double)st->rows * st->cols * sizeof(float);
    double loaded = (double)n + (double)ri->blocks * (n > 1 ? 1 : 0);
    double first = (double)(ri->block < n ? ri->block : n) * frame * (double)ri->runs;
    ri->upload_s = ri->download_s = 0;
    ri->compute_s = ri->stream_s;
    ri->estimated = 0;
    if (hst_backend_is_host(be)) return;
    measure_copies(be, (size_t)((double)ri->block * frame), &up, &down);
    ri->upload_s = up * loaded * frame;
    ri->download_s = down * ri->acc_moved;   /* the sums, up and down, per run */
    ri->compute_s = ri->stream_s - up * first - ri->download_s;
    if (ri->compute_s < 0) ri->compute_s = 0;
    ri->estimated = 1;
}

/* ------------------------------------------------------------------------------ main */
static const char *device_kind(const hst_device_info *d)
{
    switch (d->type) {
    case HST_DEVICE_CPU: return "OpenCL CPU";
    case HST_DEVICE_GPU: return "OpenCL GPU";
    case HST_DEVICE_ACCELERATOR: return "OpenCL accelerator";
    default: return "OpenCL";
    }
}

/* The path line of the summary: which path ran and why (the choice's times per frame). */
static void print_path(const choice_info *ci, int chained)
{
    static const char *const from[] = { "", "measured", "shipped default", "nearest size's" };
    unsigned i;
    printf("  path      %s", chained ? "chained" : "fused");
    if (!ci->used) { printf(" (%s)\n", chained ? "--chained" : "--fused"); return; }
    printf(" (%s):", ci->forced ? "forced by HST_FORCE"
                     : ci->stat[0].source == HST_CHOICE_NONE && ci->stat[1].source == HST_CHOICE_NONE
                     ? "the first choice until timings exist; a run's first block is a warm-up"
                     : "chosen by measured speed");
    for (i = 0; i < 2; i++) {
        const hst_choice_stat *s = &ci->stat[i];
        printf("%s %s ", i ? "," : "", i ? "chained" : "fused");
        if (s->failed) printf("failed (%s)", hst_result_string(s->failed));
        else if (s->source == HST_CHOICE_NONE) printf("not measured yet");
        else printf("%.3f ms per frame (%s, %u run%s)", 1e3 * s->seconds / (double)ci->chunk,
                    from[s->source], s->samples, s->samples == 1 ? "" : "s");
    }
    printf("\n            (blocks of %llu frames; this run measured %llu fused and %llu chained)\n",
           (unsigned long long)ci->chunk, (unsigned long long)ci->pieces[0],
           (unsigned long long)ci->pieces[1]);
}

/* output.tif -> output_preview.png */
static void preview_name(const char *out, char *buf, size_t bytes)
{
    size_t n = strlen(out);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash) && dot != out && (!slash || dot > slash + 1)) n = (size_t)(dot - out);
    snprintf(buf, bytes, "%.*s_preview.png", (int)n, out);
}

int main(int argc, char **argv)
{
    options o;
    stack st;
    io_outfile tif_out, png_out;
    char png_path[4096], software[160], err[1024], label[32];
    hst_backend_desc bd;
    hst_backend *be = NULL;
    log_state ls;
    progress pg;
    run_info ri;
    choice_info ci;
    struct sigaction sa;
    struct stat in_sb, out_sb;
    double t_start = now_s(), t_read, t_write = 0, t0;
    uint64_t n_all, n, ntp, T, tp;
    size_t pixels, frame_px, acc_count;
    float *out = NULL, *mean = NULL, *preview = NULL;
    void *acc = NULL;
    double *accd = NULL, *sum = NULL;
    int status = 1, acc_f64, rc;
    hst_result r;

    memset(&tif_out, 0, sizeof tif_out);
    memset(&png_out, 0, sizeof png_out);
    memset(&st, 0, sizeof st);
    if ((rc = parse_args(argc, argv, &o)) != 0) return rc < 0 ? 0 : rc;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* Outputs first: an unwritable path fails before any work. */
    if (stat(o.input, &in_sb) == 0 && stat(o.output, &out_sb) == 0 && in_sb.st_dev == out_sb.st_dev &&
        in_sb.st_ino == out_sb.st_ino) {
        fail("the output %s is the input: refused", o.output);
        return 2;
    }
    preview_name(o.output, png_path, sizeof png_path);
    if (stat(o.input, &in_sb) != 0) { fail("%s: %s", o.input, strerror(errno)); return 2; }
    if (!io_outfile_open(&tif_out, o.output, err, sizeof err)) { fail("%s", err); return 2; }
    if (o.preview && !io_outfile_open(&png_out, png_path, err, sizeof err)) {
        fail("%s", err);
        io_outfile_discard(&tif_out);
        return 2;
    }

    /* Read. */
    t0 = now_s();
    if (!read_stack(&o, &st)) { status = 2; goto done; }
    t_read = now_s() - t0;
    n_all = st.frames;
    if (o.max_frames && n_all > o.max_frames) n_all = o.max_frames;
    if (n_all == 0) { fail("%s: no frames", o.input); status = 2; goto done; }
    T = o.frames_per_tp ? o.frames_per_tp : n_all;
    if (T > n_all) {
        fail("--frames-per-timepoint %llu: the stack has only %llu frames", (unsigned long long)T,
             (unsigned long long)n_all);
        status = 2; goto done;
    }
    if (o.mode != MODE_AVG && T < 2) {
        fail("--mode %s needs at least 2 frames per time point; %s", mode_names[o.mode],
             n_all < 2 ? "the stack has 1 frame (use --mode avg)" : "raise --frames-per-timepoint");
        status = 2; goto done;
    }
    ntp = n_all / T;
    n = ntp * T;
    if (n < n_all && !o.quiet)
        fprintf(stderr, PROG ": note: the last %llu frame(s) do not fill a time point of %llu and are left out\n",
                (unsigned long long)(n_all - n), (unsigned long long)T);
    frame_px = (size_t)st.rows * st.cols;
    if ((uint64_t)st.rows * o.mag > UINT32_MAX / 2 || (uint64_t)st.cols * o.mag > UINT32_MAX / 2 ||
        (uint64_t)frame_px * o.mag * o.mag > UINT32_MAX ||
        (uint64_t)frame_px * o.mag * o.mag * ntp > SIZE_MAX / (ACC_VALUES * sizeof(double))) {
        fail("--mag %u: %ux%u magnified is too large (%llu pixels per image)", o.mag, st.cols, st.rows,
             (unsigned long long)((uint64_t)frame_px * o.mag * o.mag));
        status = 2; goto done;
    }
    pixels = frame_px * o.mag * o.mag;

    /* Device. */
    memset(&ls, 0, sizeof ls);
    memset(&bd, 0, sizeof bd);
    bd.device = o.device;
    bd.logger = logger;
    bd.log_user = &ls;
    bd.log_level = HST_LOG_WARN;
    if ((r = hst_backend_create(&bd, &be)) != HST_SUCCESS) {
        fail("no device for '%s': %s%s%s", o.device ? o.device : "auto", hst_result_string(r),
             ls.last[0] ? ": " : "", ls.last);
        status = r == HST_ERROR_NO_DEVICE ? 2 : 1;
        goto done;
    }
    acc_f64 = hst_backend_device(be)->fp64 != 0;
    acc_count = ACC_VALUES * pixels * (size_t)ntp;
    acc = calloc(acc_count, acc_f64 ? sizeof(double) : sizeof(float));
    out = (float *)malloc(pixels * (size_t)ntp * sizeof(float));
    mean = (float *)malloc(frame_px * sizeof(float));
    sum = (double *)calloc(frame_px, sizeof(double));
    if (!acc || !out || !mean || !sum) { fail("out of host memory"); goto done; }

    /* Widefield mean of the frames used, for the preview. */
    {
        uint64_t f;
        size_t i;
        for (f = 0; f < n; f++)
            for (i = 0; i < frame_px; i++) sum[i] += st.data[f * frame_px + i];
        for (i = 0; i < frame_px; i++) mean[i] = (float)(sum[i] / (double)n);
    }

    /* Stream. */
    memset(&pg, 0, sizeof pg);
    pg.tty = isatty(fileno(stderr));
    pg.quiet = o.quiet;
    memset(&ri, 0, sizeof ri);
    r = run_all(&o, be, &st, n, (uint32_t)T, acc, acc_f64, &pg, &ri, &ci);
    if (r == HST_SUCCESS) estimate_transfers(be, &st, n, &ri);
    if (r == HST_ERROR_CANCELLED || interrupted) { fail("interrupted: no output written"); status = 130; goto done; }
    if (r != HST_SUCCESS) {
        fail("streaming on %s failed: %s%s%s", hst_backend_device(be)->name, hst_result_string(r),
             ls.last[0] ? ": " : "", ls.last);
        if (r == HST_ERROR_OUT_OF_DEVICE_MEMORY)
            fail("hint: raise --budget-mib, use the fused path, or a smaller --mag");
        goto done;
    }

    /* Temporal statistic and macro-pixel correction, per time point. */
    t0 = now_s();
    if (acc_f64) accd = (double *)acc;
    else {
        size_t i;
        if (!(accd = (double *)malloc(acc_count * sizeof(double)))) { fail("out of host memory"); goto done; }
        for (i = 0; i < acc_count; i++) accd[i] = ((const float *)acc)[i];
    }
    for (tp = 0; tp < ntp; tp++) {
        float *img = out + tp * pixels;
        hst_k_esrrf_finalize((int)o.mode, accd + tp * ACC_VALUES * pixels, pixels, (uint32_t)T, img);
        if (o.macro_pixel) hst_k_esrrf_macro_pixel(img, st.rows * o.mag, st.cols * o.mag, o.mag);
    }

    /* Write: the TIFF, the preview, then both renamed into place. */
    snprintf(software, sizeof software, "halostream " HST_VERSION_STRING " esrrf (mag %u, radius %g, "
             "sensitivity %g, %s, %s%s)", o.mag, o.radius, o.sensitivity, mode_names[o.mode],
             o.intensity_weighting ? "intensity-weighted" : "unweighted", o.macro_pixel ? ", macro-pixel corrected" : "");
    if (!io_write_tiff(&tif_out, &st.in, o.mag, out, ntp, st.rows * o.mag, st.cols * o.mag, software, err, sizeof err)) {
        fail("%s", err);
        goto done;
    }
    if (o.preview) {
        if (ntp > 1) {   /* the preview shows the mean over the time points */
            size_t i;
            if (!(preview = (float *)calloc(pixels, sizeof(float)))) { fail("out of host memory"); goto done; }
            for (tp = 0; tp < ntp; tp++)
                for (i = 0; i < pixels; i++) preview[i] += out[tp * pixels + i] / (float)ntp;
        }
        snprintf(label, sizeof label, "eSRRF %s", o.mode == MODE_AVG ? "AVG" : o.mode == MODE_VAR ? "VAR" : "TAC2");
        if (!io_write_png_preview(&png_out, mean, st.rows, st.cols, preview ? preview : out, o.mag,
                                  st.in.pixel_size, st.in.unit, "widefield mean", label, err, sizeof err)) {
            fail("%s", err);
            goto done;
        }
    }
    if (interrupted) { fail("interrupted: no output written"); status = 130; goto done; }
    if (!io_outfile_commit(&tif_out, err, sizeof err)) { fail("%s", err); goto done; }
    if (o.preview && !io_outfile_commit(&png_out, err, sizeof err)) { fail("%s", err); unlink(o.output); goto done; }
    t_write = now_s() - t0;
    status = 0;

    if (!o.quiet) {
        const hst_device_info *dev = hst_backend_device(be);
        double total = now_s() - t_start;
        printf("esrrf: %s: %llu frames %ux%u (%s) -> %llu time point(s) of %ux%u, %s\n", o.input,
               (unsigned long long)n, st.cols, st.rows, st.in.kind, (unsigned long long)ntp,
               st.cols * o.mag, st.rows * o.mag, mode_names[o.mode]);
        printf("  settings  mag %u, radius %g, sensitivity %g, intensity weighting %s, macro-pixel %s\n",
               o.mag, o.radius, o.sensitivity, o.intensity_weighting ? "on" : "off",
               o.macro_pixel ? "on" : "off");
        print_path(&ci, ri.chained);
        if (hst_backend_is_host(be))
            printf("  device    host: the kernels' C twins on %u threads\n", host_threads());
        else
            printf("  device    %s (%s; %s)\n", dev->name, device_kind(dev), dev->platform_name);
        printf("  speed     %.1f frames/s (%llu frames in %.3f s; %llu blocks of up to %llu frames)\n",
               ri.stream_s > 0 ? (double)n / ri.stream_s : 0.0, (unsigned long long)n, ri.stream_s,
               (unsigned long long)ri.blocks, (unsigned long long)ri.block);
        printf("  time      read %.3f s | upload %s%.3f s | compute %.3f s | download %s%.3f s | write %.3f s | total %.3f s\n",
               t_read, ri.estimated ? "~" : "", ri.upload_s, ri.compute_s, ri.estimated ? "~" : "",
               ri.download_s, t_write, total);
        if (ri.estimated)
            printf("            (~ from transfer sizes and the measured copy speed; uploads overlap compute)\n");
        printf("  wrote     %s%s%s\n", o.output, o.preview ? " and " : "", o.preview ? png_path : "");
    }
done:
    if (status != 0) {
        io_outfile_discard(&tif_out);
        io_outfile_discard(&png_out);
    }
    if (accd != (double *)acc) free(accd);
    free(acc);
    free(out);
    free(mean);
    free(sum);
    free(preview);
    free(st.data);
    io_stack_free(&st.in);
    hst_backend_destroy(be);
    return status;
}
