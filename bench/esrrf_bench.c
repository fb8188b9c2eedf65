/* esrrf_bench.c — eSRRF end to end through esrrf.h, as a user calls it: milliseconds per frame of
   the batch call (hst_esrrf_run) with a zero desc (the default path chosen by measured speed,
   automatic blocks), of each path forced, and of the live API (hst_esrrf_live_push, frames pushed
   one at a time as a camera delivers them, on the same stack), with live / batch frames per
   second, and that the outputs are the same bits.

       esrrf_bench [--device S[,S...]] [--size N] [--frames F] [--mag M] [--modes all|avg]
                   [--dtype u16|f32] [--reps K] [--no-paths]

   With several selectors (--device 1:0,1:1): the fused batch call on the first device alone and
   on all of them (each computes its rows of every frame), the speed-up and the images' bits.

   Defaults: 1000 x 1000 frames, mag 5, radius 1.5 (the and NanoPyx's benchmark), 500
   frames of u16 from a synthetic blinking-emitter stack, AVG only, best of K = 2 timed runs after
   one untimed run (which builds or loads the programs and lets the choice measure both paths).
   A 2-core CPU: --size 256 --frames 50 (the shipped stack's shape).

   Figures (one process, one device, one run of this program):
     batch default      ms per frame of hst_esrrf_run with every desc field at its default
     batch fused/chained the same with the path forced
     live               ms per frame from the first push to the return of hst_esrrf_live_destroy
                        after hst_esrrf_live_finish (the teardown is in, as a batch call's own is;
                        the session's create, which allocates and makes the first streams, is
                        set-up done before a camera starts, not in the rate; on an OpenCL device
                        the pinned staging is kept on the backend, so only the first session
                        makes it), best of K sessions,
                        with the zero desc (the session's own blocks) and then with the batch
                        call's blocks; the first session's callback compares the image with the
                        batch call's (bit for bit), the others' only count the calls
     live / batch       frames per second ratio (the issue asks >= 0.95)
     live breakdown     the last session's create; its pushes (their copying into the staging,
                        their waits for the worker), finish (its wait for the worker) and destroy;
                        the worker's hand-offs (pieces of frames, each one run of the streams),
                        the largest, its idle time, the stream runs, the finishing (read-back,
                        statistics, macro-pixel correction) and what lies outside both
     stages             on an OpenCL device, one more batch call of the default desc (several
                        devices: the fused call on all) on backends whose queues profile
                        (bench/cl_profile.h): per device, the device time per frame of each
                        kernel, of the uploads (with their bytes: the frames in their own
                        dtype), read-backs and fills, and of everything but the fused RGC;
                        before them each device's timeline: the compute engine's idle time
                        between kernels, split into "enqueued late" (the host was behind),
                        "upload late" (the block's upload was) and the rest, its largest gaps
                        and ten commands from the middle of the call (queued, submitted,
                        started, ended)
     host time          after each timed batch setting (OpenCL): the last call's wall time
                        split as its report splits it, and the host seconds (all threads) in
                        the OpenCL calls that make and free a call's buffers, in waits, in
                        enqueues, and in memcpy of 1 MB or more
     staging memcpy     with several devices: the host's copy rate from the stack into pinned
                        memory, one thread and one per device at once
   --no-paths leaves out the runs with the path forced.

   Build: cc -std=c99 -O2 -I. bench/esrrf_bench.c -o esrrf_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#ifndef HST_NO_OPENCL
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#  include "cl_profile.h"
#  include <pthread.h>
#  include <time.h>
/* Host time inside the OpenCL calls that set up and tear down a call's streams, and in large
   memcpy (summed over threads): where a call's time outside the device's commands goes. */
enum { AC_CREATE, AC_MAP, AC_UNMAP, AC_RELEASE, AC_MIGRATE, AC_WAIT, AC_FINISH, AC_BUILD, AC_WRITE, AC_READ,
       AC_MEMCPY, AC_N };
static const char *const ac_name[AC_N] = { "clCreateBuffer", "map", "unmap", "clReleaseMemObject", "migrate",
                                           "clWaitForEvents", "clFinish", "build", "write enqueue",
                                           "read enqueue", "memcpy >= 1 MB" };
static double ac_s[AC_N];
static unsigned long ac_n[AC_N];
static pthread_mutex_t ac_mu = PTHREAD_MUTEX_INITIALIZER;
static double ac_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void ac_add(int k, double t0)
{
    double t = ac_now() - t0;
    pthread_mutex_lock(&ac_mu);
    ac_s[k] += t; ac_n[k]++;
    pthread_mutex_unlock(&ac_mu);
}
static void ac_reset(void) { memset(ac_s, 0, sizeof ac_s); memset(ac_n, 0, sizeof ac_n); }
static void ac_print(const char *label)
{
    int k;
    printf("  host time of %s (all threads), s (calls):", label);
    for (k = 0; k < AC_N; k++) if (ac_n[k]) printf(" %s %.4f (%lu);", ac_name[k], ac_s[k], ac_n[k]);
    printf("\n");
}
static cl_mem ac_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *p, cl_int *e)
{ double t0 = ac_now(); cl_mem m = clCreateBuffer(c, f, n, p, e); ac_add(AC_CREATE, t0); return m; }
static void *ac_clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t o, size_t n,
                                   cl_uint nw, const cl_event *w, cl_event *ev, cl_int *e)
{ double t0 = ac_now(); void *p = clEnqueueMapBuffer(q, b, bl, f, o, n, nw, w, ev, e); ac_add(AC_MAP, t0); return p; }
static cl_int ac_clEnqueueUnmapMemObject(cl_command_queue q, cl_mem b, void *p, cl_uint nw, const cl_event *w, cl_event *ev)
{ double t0 = ac_now(); cl_int r = clEnqueueUnmapMemObject(q, b, p, nw, w, ev); ac_add(AC_UNMAP, t0); return r; }
static cl_int ac_clReleaseMemObject(cl_mem b)
{ double t0 = ac_now(); cl_int r = clReleaseMemObject(b); ac_add(AC_RELEASE, t0); return r; }
static cl_int ac_clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint n, const cl_mem *m, cl_mem_migration_flags f,
                                            cl_uint nw, const cl_event *w, cl_event *ev)
{ double t0 = ac_now(); cl_int r = clEnqueueMigrateMemObjects(q, n, m, f, nw, w, ev); ac_add(AC_MIGRATE, t0); return r; }
static cl_int ac_clWaitForEvents(cl_uint n, const cl_event *e)
{ double t0 = ac_now(); cl_int r = clWaitForEvents(n, e); ac_add(AC_WAIT, t0); return r; }
static cl_int ac_clFinish(cl_command_queue q)
{ double t0 = ac_now(); cl_int r = clFinish(q); ac_add(AC_FINISH, t0); return r; }
static cl_int ac_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                                void (CL_CALLBACK *cb)(cl_program, void *), void *u)
{ double t0 = ac_now(); cl_int r = clBuildProgram(p, n, d, o, cb, u); ac_add(AC_BUILD, t0); return r; }
static cl_int ac_clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t n, const void *p,
                                      cl_uint nw, const cl_event *w, cl_event *ev)
{ double t0 = ac_now(); cl_int r = prof_clEnqueueWriteBuffer(q, b, bl, o, n, p, nw, w, ev); ac_add(AC_WRITE, t0); return r; }
static cl_int ac_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t n, void *p,
                                     cl_uint nw, const cl_event *w, cl_event *ev)
{ double t0 = ac_now(); cl_int r = prof_clEnqueueReadBuffer(q, b, bl, o, n, p, nw, w, ev); ac_add(AC_READ, t0); return r; }
/* Not inlined: GCC would carry its large-copy branch into every small memcpy of the headers
   (a 32-byte pixel, say) and warn of a bound that branch never meets (-Warray-bounds). */
#  if defined(__GNUC__)
__attribute__((noinline))
#  endif
static void *ac_memcpy(void *d, const void *s, size_t n)
{
    double t0;
    if (n < ((size_t)1 << 20)) return memcpy(d, s, n);
    t0 = ac_now(); memcpy(d, s, n); ac_add(AC_MEMCPY, t0);
    return d;
}
#  undef clEnqueueWriteBuffer
#  undef clEnqueueReadBuffer
#  define clCreateBuffer ac_clCreateBuffer
#  define clEnqueueMapBuffer ac_clEnqueueMapBuffer
#  define clEnqueueUnmapMemObject ac_clEnqueueUnmapMemObject
#  define clReleaseMemObject ac_clReleaseMemObject
#  define clEnqueueMigrateMemObjects ac_clEnqueueMigrateMemObjects
#  define clWaitForEvents ac_clWaitForEvents
#  define clFinish ac_clFinish
#  define clBuildProgram ac_clBuildProgram
#  define clEnqueueWriteBuffer ac_clEnqueueWriteBuffer
#  define clEnqueueReadBuffer ac_clEnqueueReadBuffer
#  define memcpy ac_memcpy
#endif
#include "esrrf.h"
#include "bench_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct args {
    const char *device;
    uint32_t size, mag;
    uint64_t frames;
    unsigned reps, modes, paths;
    hst_esrrf_dtype dtype;
} args;

static void parse(int argc, char **argv, args *a)
{
    int i;
    a->device = NULL; a->size = 1000; a->mag = 5; a->frames = 500; a->reps = 2;
    a->modes = HST_ESRRF_AVG; a->dtype = HST_ESRRF_U16; a->paths = 1;
    for (i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--no-paths")) { a->paths = 0; i--; continue; }
        if (i + 1 == argc) break;
        if (!strcmp(argv[i], "--device")) a->device = argv[i + 1];
        else if (!strcmp(argv[i], "--size")) a->size = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) a->frames = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--mag")) a->mag = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) a->reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--modes")) a->modes = strcmp(argv[i + 1], "all") ? HST_ESRRF_AVG : 7u;
        else if (!strcmp(argv[i], "--dtype")) a->dtype = strcmp(argv[i + 1], "f32") ? HST_ESRRF_U16 : HST_ESRRF_F32;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); exit(2); }
    }
    if (i < argc || !a->size || !a->frames || !a->reps) { fprintf(stderr, "bad arguments\n"); exit(2); }
}

/* The live session's callback: in the first session of each setting it compares the image
   with the batch call's (check); in the others it only counts, since what a viewer does with an
   image is the caller's time, not the library's (the batch call's images, too, only land in
   the caller's memory). */
typedef struct sink { const float *expect; size_t px; int check; unsigned calls, same; } sink;

static void on_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    sink *s = (sink *)user;
    (void)tp; (void)rm; (void)cm;
    s->calls++;
    if (s->check)
        s->same = !memcmp(s->expect, images[0] ? images[0] : images[1] ? images[1] : images[2], s->px * sizeof(float));
}

/* A call's time that no field of its report names (esrrf.h: wait_seconds). */
static double rest_s(const hst_esrrf_report *rep)
{
    return rep->seconds - rep->setup_seconds - rep->stream_seconds - rep->finish_seconds - rep->teardown_seconds -
           rep->wait_seconds;
}

static double batch_ms(const args *a, hst_esrrf_desc *d, const void *stack, float *const *out,
                       hst_esrrf_report *rep)
{
    double best = INFINITY;
    unsigned k;
    for (k = 0; k <= a->reps; k++) {   /* run 0: programs and the choice's measuring */
        double t0, t;
#ifndef HST_NO_OPENCL
        ac_reset();
#endif
        t0 = now_s();
        CHECK(hst_esrrf_run(d, stack, a->dtype, a->frames, a->size, a->size, out, rep));
        t = now_s() - t0;
        if (k && t < best) best = t;
    }
#ifndef HST_NO_OPENCL
    printf("  the last call: %.3f s; set-up %.3f s, stream runs %.3f s, finishing %.3f s, teardown %.3f s, "
           "waiting for the other devices %.3f s, the rest %.3f s\n", rep->seconds, rep->setup_seconds,
           rep->stream_seconds, rep->finish_seconds, rep->teardown_seconds, rep->wait_seconds, rest_s(rep));
    ac_print("the last call");
#endif
    return 1e3 * best / (double)a->frames;
}

/* One live session's times (seconds) besides its report. */
typedef struct live_times { double create, pushes, finish, destroy; } live_times;

/* ms per frame of the best of K live sessions (one frame per push; the first checks the bits);
   rep and lt: the last one's; s->same: the first one's bits. */
static double live_ms(const args *a, hst_esrrf_desc *d, const void *stack, sink *s, hst_esrrf_report *rep,
                      live_times *lt)
{
    size_t fb = (size_t)a->size * a->size * (a->dtype == HST_ESRRF_F32 ? 4 : 2);
    double best = INFINITY;
    unsigned k;
    d->on_timepoint = on_tp;
    d->timepoint_user = s;
    for (k = 0; k < a->reps; k++) {
        hst_esrrf_live *lv;
        uint64_t f;
        double t0 = now_s(), t1, t2, t3;
        s->calls = 0;
        s->check = k == 0;
        if (s->check) s->same = 0;
        CHECK(hst_esrrf_live_create(d, a->dtype, a->size, a->size, &lv));
        t1 = now_s();   /* set-up before the camera starts: not in the rate */
        for (f = 0; f < a->frames; f++)
            CHECK(hst_esrrf_live_push(lv, (const unsigned char *)stack + f * fb, 1, a->size, a->size));
        t2 = now_s();
        CHECK(hst_esrrf_live_finish(lv, rep));
        t3 = now_s();
        hst_esrrf_live_destroy(lv);   /* in the rate, as a batch call's own teardown is in its time */
        lt->create = t1 - t0; lt->pushes = t2 - t1; lt->finish = t3 - t2; lt->destroy = now_s() - t3;
        if (now_s() - t1 < best) best = now_s() - t1;
    }
    d->on_timepoint = NULL;
    return 1e3 * best / (double)a->frames;
}

/* A live session's figures: ms per frame, live / batch, and where the last session's time went
   (the pushes' own copying and waiting, the worker's hand-offs and idle time, the streams, the
   finish and the teardown). */
static void live_print(const char *label, double ms, double batch, const hst_esrrf_report *rep,
                       const live_times *lt, const sink *s)
{
    double total = lt->pushes + lt->finish + lt->destroy;
    printf("  live, %-14s %9.3f ms per frame  (live / batch frames per second: %.3f; %s)\n", label, ms,
           batch / ms, s->calls == 1 && s->same ? "bit for bit the batch call's" : "NOT the batch call's bits");
    printf("    the last session, s: create %.3f (not in the rate); first push to destroy %.3f = pushes %.3f "
           "(copying %.3f, waiting for the worker %.3f) + finish %.3f (waiting for the worker %.3f) + destroy %.3f\n",
           lt->create, total, lt->pushes, rep->push_copy_seconds, rep->push_wait_seconds, lt->finish,
           rep->finish_wait_seconds, lt->destroy);
    printf("    its worker: %llu hand-offs (blocks of %llu frames, the largest piece %llu), idle %.3f s; "
           "stream runs %.3f s, reading back and finishing %.3f s; outside the stream runs and finishing %.3f s\n",
           (unsigned long long)rep->handoffs, (unsigned long long)rep->block_frames,
           (unsigned long long)rep->handoff_frames_max, rep->worker_idle_seconds, rep->stream_seconds,
           rep->finish_seconds, total - rep->stream_seconds - rep->finish_seconds);
}

#ifndef HST_NO_OPENCL
/* One profiled command on the device clock (ns): host enqueue (queued), submission, start, end. */
typedef struct tl_cmd { const char *name; int upload; cl_ulong q, s, b, e; } tl_cmd;

static int tl_by_start(const void *x, const void *y)
{
    const tl_cmd *a = (const tl_cmd *)x, *b = (const tl_cmd *)y;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Where each device's compute engine idles inside its commands' span (call before prof_collect,
   which releases the events): the kernels in start order, each gap between one kernel's end and
   the next one's start split into "enqueued late" (the host enqueued the next kernel after the
   previous had ended: the host was the bottleneck), "upload late" (its block's upload ended
   after the previous kernel: the copy engine or the staging was) and the rest (enqueued and fed
   in time, yet idle: the driver's scheduling of a cross-queue wait); then one block's commands. */
static void timeline(double frames)
{
    size_t i, j;
    tl_cmd *c = (tl_cmd *)calloc(prof_n ? prof_n : 1, sizeof *c);
    unsigned d;
    if (!c) return;
    for (d = 0; d < PROF_MAX_DEVICES; d++) {
        size_t m = 0, nk = 0;
        double gap = 0, late = 0, up = 0, big[6] = {0, 0, 0, 0, 0, 0};
        const char *bign[6] = {0, 0, 0, 0, 0, 0};
        cl_ulong lastup = 0, t0 = 0, prev_end = 0;
        const tl_cmd *prev = NULL;
        for (i = 0; i < prof_n; i++) {
            prof_device *p;
            clWaitForEvents(1, &prof_cmds[i].ev);
            p = prof_device_of(prof_cmds[i].ev);
            if (!p || p != &prof_dev[d]) continue;
            c[m].name = prof_cmds[i].stage ? prof_cmds[i].stage : prof_cmds[i].kernel;
            c[m].upload = prof_cmds[i].stage && !strcmp(prof_cmds[i].stage, "upload");
            clGetEventProfilingInfo(prof_cmds[i].ev, CL_PROFILING_COMMAND_QUEUED, sizeof c[m].q, &c[m].q, NULL);
            clGetEventProfilingInfo(prof_cmds[i].ev, CL_PROFILING_COMMAND_SUBMIT, sizeof c[m].s, &c[m].s, NULL);
            clGetEventProfilingInfo(prof_cmds[i].ev, CL_PROFILING_COMMAND_START, sizeof c[m].b, &c[m].b, NULL);
            clGetEventProfilingInfo(prof_cmds[i].ev, CL_PROFILING_COMMAND_END, sizeof c[m].e, &c[m].e, NULL);
            m++;
        }
        if (!m) break;
        qsort(c, m, sizeof *c, tl_by_start);
        t0 = c[0].b;
        for (i = 0; i < m; i++) {
            double g, l, u;
            if (c[i].upload) { if (c[i].e > lastup) lastup = c[i].e; continue; }
            if (!c[i].name || !strcmp(c[i].name, "read-back") || !strcmp(c[i].name, "fill")) continue;
            nk++;
            if (prev && c[i].b > prev_end) {
                g = 1e-6 * (double)(c[i].b - prev_end);
                l = c[i].q > prev_end ? 1e-6 * (double)(c[i].q - prev_end) : 0;
                u = lastup > prev_end ? 1e-6 * (double)(lastup - prev_end) : 0;
                if (l > g) l = g;
                if (u > g) u = g;
                gap += g; late += l; up += u > l ? u - l : 0;
                for (j = 0; j < 6 && g <= big[j]; j++) {}
                if (j < 6) {
                    memmove(big + j + 1, big + j, (5 - j) * sizeof *big);
                    memmove(bign + j + 1, bign + j, (5 - j) * sizeof *bign);
                    big[j] = g; bign[j] = c[i].name;
                }
            }
            if (!prev || c[i].e > prev_end) prev_end = c[i].e;
            prev = &c[i];
        }
        printf("    device %u timeline: %zu kernels; compute idle inside the span %.4f ms per frame "
               "(enqueued late %.4f, upload late %.4f, other %.4f)\n", d, nk, gap / frames, late / frames,
               up / frames, (gap - late - up) / frames);
        printf("      largest idle gaps (ms, before):");
        for (j = 0; j < 6 && bign[j]; j++) printf(" %.3f %s;", big[j], bign[j]);
        printf("\n      commands around the middle (ms from the first start: queued submit start end):\n");
        for (i = m / 2, j = 0; i < m && j < 10; i++, j++)
            printf("        %-24s %9.3f %9.3f %9.3f %9.3f\n", c[i].name ? c[i].name : "?",
                   1e-6 * ((double)c[i].q - (double)t0), 1e-6 * ((double)c[i].s - (double)t0),
                   1e-6 * ((double)c[i].b - (double)t0), 1e-6 * ((double)c[i].e - (double)t0));
    }
    free(c);
}
#endif

/* The stages of one batch call (desc d, on backends made with profiling queues), from OpenCL
   event profiling: per device its commands' span, then each stage's device time per frame
   (kernels by name, uploads, read-backs, fills), the commands and bytes per frame, and what
   the device spent outside the fused RGC kernel. */
static void stages(const args *a, hst_esrrf_desc *d, const void *stack, float *const *out)
{
#ifndef HST_NO_OPENCL
    hst_esrrf_report rep;
    double t0, wall, F = (double)a->frames;
    unsigned i, k;
    prof_clear();
    prof_on = 1;
    t0 = now_s();
    CHECK(hst_esrrf_run(d, stack, a->dtype, a->frames, a->size, a->size, out, &rep));
    wall = now_s() - t0;
    prof_on = 0;
    timeline(F);
    prof_collect();
    printf("  stages of one batch call (OpenCL event profiling; %.3f ms per frame of wall time; %s; device time "
           "per frame):\n", 1e3 * wall / F, rep.path == HST_ESRRF_PATH_CHAINED ? "chained" : "fused");
    for (i = 0; i < prof_ndev; i++) {
        const prof_device *dv = &prof_dev[i];
        double outside = 0.0;
        printf("    device %u: its commands span %.3f ms per frame\n", i, 1e-6 * (double)(dv->last - dv->first) / F);
        for (k = 0; k < dv->nstage; k++) {
            const prof_stage *st = &dv->stage[k];
            printf("      %-26s %9.4f ms  %7.2f commands  %9.3f MB\n", st->name, 1e3 * st->seconds / F,
                   (double)st->count / F, 1e-6 * (double)st->bytes / F);
            if (strcmp(st->name, "hst_k_esrrf_rgc_fused")) outside += st->seconds;
        }
        printf("      %-26s %9.4f ms\n", "all but the fused RGC", 1e3 * outside / F);
    }
    prof_clear();
#else
    (void)a; (void)d; (void)stack; (void)out;
#endif
}

/* One live session (one frame per push, desc d on backends made with profiling queues) from
   OpenCL event profiling: the device's timeline from the first push to finish (its compute
   idle time and largest gaps: each hand-off's run starts with its first block's upload) and its
   commands' span against the session's wall time. */
static void live_stages(const args *a, hst_esrrf_desc *d, const void *stack, sink *s)
{
#ifndef HST_NO_OPENCL
    size_t fb = (size_t)a->size * a->size * (a->dtype == HST_ESRRF_F32 ? 4 : 2);
    hst_esrrf_live *lv;
    hst_esrrf_report rep;
    double t0, wall, F = (double)a->frames;
    uint64_t f;
    unsigned i;
    d->on_timepoint = on_tp;
    d->timepoint_user = s;
    prof_on = 1;   /* the streams' queues, made at create, profile */
    CHECK(hst_esrrf_live_create(d, a->dtype, a->size, a->size, &lv));
    prof_clear();   /* from the first push on */
    t0 = now_s();
    for (f = 0; f < a->frames; f++)
        CHECK(hst_esrrf_live_push(lv, (const unsigned char *)stack + f * fb, 1, a->size, a->size));
    CHECK(hst_esrrf_live_finish(lv, &rep));
    wall = now_s() - t0;
    prof_on = 0;
    hst_esrrf_live_destroy(lv);
    d->on_timepoint = NULL;
    printf("  one live session on profiling queues (%llu hand-offs, blocks of %llu frames): first push to finish "
           "%.3f ms per frame\n", (unsigned long long)rep.handoffs, (unsigned long long)rep.block_frames, 1e3 * wall / F);
    timeline(F);
    prof_collect();
    for (i = 0; i < prof_ndev; i++)
        printf("    device %u: its commands span %.3f ms per frame\n", i,
               1e-6 * (double)(prof_dev[i].last - prof_dev[i].first) / F);
    prof_clear();
#else
    (void)a; (void)d; (void)stack; (void)s;
#endif
}

/* Backends on the selectors' devices (NULL: $HST_DEVICE or the best), with profiling queues
   when `profiled` (for stages()). */
static unsigned make_backends(const char *devices, int profiled, hst_backend **be)
{
    char list[256], *tok, *save = NULL;
    hst_backend_desc bd;
    unsigned n = 0;
    memset(&bd, 0, sizeof bd);
#ifndef HST_NO_OPENCL
    prof_on = profiled;
#else
    (void)profiled;
#endif
    snprintf(list, sizeof list, "%s", devices ? devices : "");
    for (tok = strtok_r(list, ",", &save); tok && n < HST_STREAM_MAX_BACKENDS; tok = strtok_r(NULL, ",", &save)) {
        bd.device = tok;
        CHECK(hst_backend_create(&bd, &be[n++]));
    }
    if (!n) CHECK(hst_backend_create(&bd, &be[n++]));
#ifndef HST_NO_OPENCL
    prof_on = 0;
#endif
    return n;
}

/* The host's staging copy: bytes per second of memcpy from the stack into pinned memory of
   each backend (one thread per backend, all at once), best of 4 copies of `bytes`. */
typedef struct copy_job { hst_backend *be; const void *src; size_t bytes; double seconds; } copy_job;

static void *copy_main(void *p)
{
    copy_job *j = (copy_job *)p;
    hst_buffer *pin;
    unsigned k;
    j->seconds = INFINITY;
    if (hst_pinned_create(j->be, j->bytes, &pin) != HST_SUCCESS) return NULL;
    for (k = 0; k < 4; k++) {
        double t0 = now_s(), t;
        memcpy(hst_buffer_host_ptr(pin), j->src, j->bytes);
        t = now_s() - t0;
        if (t < j->seconds) j->seconds = t;
    }
    hst_buffer_destroy(pin);
    return NULL;
}

static void copy_rate(hst_backend *const *be, unsigned n, const void *src, size_t bytes)
{
    copy_job j[HST_STREAM_MAX_BACKENDS];
    pthread_t th[HST_STREAM_MAX_BACKENDS];
    unsigned k, m;
    for (m = 1; m <= n; m += n > 1 ? n - 1 : 1) {
        for (k = 0; k < m; k++) {
            j[k].be = be[k]; j[k].src = src; j[k].bytes = bytes;
            if (pthread_create(&th[k], NULL, copy_main, &j[k])) exit(1);
        }
        for (k = 0; k < m; k++) pthread_join(th[k], NULL);
        printf("  staging memcpy, %u thread(s) at once: %.1f GB/s each (%.2f ms per %.1f MB)\n", m,
               1e-9 * (double)bytes / j[0].seconds, 1e3 * j[0].seconds, 1e-6 * (double)bytes);
    }
}

/* --device a,b,...: the fused batch call on the first device alone and on all of them (each its
   rows of every frame), ms per frame, the speed-up and whether the images are the same bits. */
static int several_devices(const args *a, const void *stack, float *const *out, size_t px)
{
    hst_backend *be[HST_STREAM_MAX_BACKENDS];
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    float *all[HST_ESRRF_NUM_MODES] = {NULL, NULL, NULL};
    unsigned n = make_backends(a->device, 0, be), m, same = 1;
    double one, many;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (out[m] && !(all[m] = (float *)malloc(px * sizeof(float)))) { fprintf(stderr, "out of memory\n"); exit(1); }
    memset(&d, 0, sizeof d);
    d.magnification = a->mag;
    d.modes = a->modes;
    d.path = HST_ESRRF_PATH_FUSED;
    d.backends = be;
    d.num_backends = 1;
    printf("esrrf_bench: %u devices (%s, ...); %llu frames of %u x %u, mag %u, modes 0x%x, fused\n", n,
           hst_backend_device(be[0])->name, (unsigned long long)a->frames, a->size, a->size, a->mag, a->modes);
    one = batch_ms(a, &d, stack, out, &rep);
    d.num_backends = n;
    many = batch_ms(a, &d, stack, all, &rep);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (out[m]) { same &= memcmp(out[m], all[m], px * sizeof(float)) == 0; free(all[m]); }
    printf("  first device alone   %9.3f ms per frame\n", one);
    printf("  all %u devices        %9.3f ms per frame\n", n, many);
    printf("  speed-up             %9.3f\n", one / many);
    printf("  images               %s\n", same ? "bit-identical to one device" : "DIFFERENT from one device");
    copy_rate(be, n, stack, (size_t)32 * a->size * a->size * (a->dtype == HST_ESRRF_F32 ? 4 : 2));
    while (n) CHECK(hst_backend_destroy(be[--n]));
    n = make_backends(a->device, 1, be);
    d.backends = be;
    stages(a, &d, stack, out);
    while (n) CHECK(hst_backend_destroy(be[--n]));
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    args a;
    hst_backend_desc bd;
    hst_backend *be;
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    float *out[HST_ESRRF_NUM_MODES] = {NULL, NULL, NULL};
    void *stack;
    sink s;
    live_times lt;
    uint64_t batch_block;
    size_t px;
    unsigned m, first = 0;
    double def, fused, chained, lv;
    char first_dev[256];
    parse(argc, argv, &a);
    memset(&bd, 0, sizeof bd);
    snprintf(first_dev, sizeof first_dev, "%s", a.device ? a.device : "");
    first_dev[strcspn(first_dev, ",")] = '\0';   /* several: the first one here */
    bd.device = a.device ? first_dev : NULL;
    CHECK(hst_backend_create(&bd, &be));
    px = (size_t)a.size * a.size * a.mag * a.mag;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (a.modes & (1u << m)) {
            if (!(out[m] = (float *)malloc(px * sizeof(float)))) { fprintf(stderr, "out of memory\n"); return 1; }
        }
    while (!(a.modes & (1u << first))) first++;
    s.px = px;
    s.expect = out[first];
    stack = bench_blinking_stack(a.frames, a.size, a.dtype == HST_ESRRF_F32);
    if (a.device && strchr(a.device, ',')) {
        int rc = several_devices(&a, stack, out, px);
        CHECK(hst_backend_destroy(be));
        return rc;
    }
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = a.mag;
    d.modes = a.modes;
    printf("esrrf_bench: %s; %llu frames of %u x %u %s, mag %u, radius 1.5, modes 0x%x\n",
           hst_backend_device(be)->name, (unsigned long long)a.frames, a.size, a.size,
           a.dtype == HST_ESRRF_F32 ? "f32" : "u16", a.mag, a.modes);
    def = batch_ms(&a, &d, stack, out, &rep);
    printf("  batch, default desc  %9.3f ms per frame  (%s, blocks of %llu frames; of the call: set-up %.3f s, "
           "streams %.3f s, reading back and finishing %.3f s, teardown %.3f s, the rest %.3f s)\n", def,
           rep.path == HST_ESRRF_PATH_CHAINED ? "chained" : "fused", (unsigned long long)rep.block_frames,
           rep.setup_seconds, rep.stream_seconds, rep.finish_seconds, rep.teardown_seconds, rest_s(&rep));
    if (a.paths) {
        d.path = HST_ESRRF_PATH_FUSED;
        fused = batch_ms(&a, &d, stack, out, &rep);
        printf("  batch, fused         %9.3f ms per frame\n", fused);
        d.path = HST_ESRRF_PATH_CHAINED;
        chained = batch_ms(&a, &d, stack, out, &rep);
        printf("  batch, chained       %9.3f ms per frame\n", chained);
        printf("  default / best path  %9.3f\n", def / (fused < chained ? fused : chained));
        d.path = HST_ESRRF_PATH_AUTO;
    }
    /* live, one frame per push: the zero desc (the session's own blocks), as the batch call's;
       then the batch call's blocks, so both stream alike */
    batch_block = rep.block_frames;
    lv = live_ms(&a, &d, stack, &s, &rep, &lt);
    live_print("1 frame/push", lv, def, &rep, &lt, &s);
    d.block_frames = batch_block;
    lv = live_ms(&a, &d, stack, &s, &rep, &lt);
    d.block_frames = 0;
    live_print("batch's blocks", lv, def, &rep, &lt, &s);
    if (!hst_backend_is_host(be)) {   /* the choice's timings to the file first: no measuring there */
        hst_backend *pbe;
        CHECK(hst_choice_save(be));
        make_backends(a.device, 1, &pbe);
        d.backends = &pbe;
        d.block_frames = 0;
        stages(&a, &d, stack, out);
        live_stages(&a, &d, stack, &s);
        CHECK(hst_backend_destroy(pbe));
    }
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    free(stack);
    CHECK(hst_backend_destroy(be));
    return 0;
}
