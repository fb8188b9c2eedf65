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
     live               ms per frame from the first push to hst_esrrf_live_finish (the session's
                        create, which allocates and makes the first streams, is set-up done before
                        a camera starts; printed apart)
     live / batch       frames per second ratio (the issue asks >= 0.95)
     stages             on an OpenCL device, one more batch call of the default desc (several
                        devices: the fused call on all) on backends whose queues profile
                        (bench/cl_profile.h): per device, the device time per frame of each
                        kernel, of the uploads (with their bytes: the frames in their own
                        dtype), read-backs and fills, and of everything but the fused RGC
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
#endif
#include "esrrf.h"
#include "bench_util.h"

#include <math.h>
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

typedef struct sink { float *img; size_t px; } sink;

static void on_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    sink *s = (sink *)user;
    (void)tp; (void)rm; (void)cm;
    memcpy(s->img, images[0] ? images[0] : images[1] ? images[1] : images[2], s->px * sizeof(float));
}

static double batch_ms(const args *a, hst_esrrf_desc *d, const void *stack, float *const *out,
                       hst_esrrf_report *rep)
{
    double best = INFINITY;
    unsigned k;
    for (k = 0; k <= a->reps; k++) {   /* run 0: programs and the choice's measuring */
        double t0 = now_s(), t;
        CHECK(hst_esrrf_run(d, stack, a->dtype, a->frames, a->size, a->size, out, rep));
        t = now_s() - t0;
        if (k && t < best) best = t;
    }
    return 1e3 * best / (double)a->frames;
}

static double live_ms(const args *a, hst_esrrf_desc *d, const void *stack, sink *s, hst_esrrf_report *rep,
                      double *create_s)
{
    size_t fb = (size_t)a->size * a->size * (a->dtype == HST_ESRRF_F32 ? 4 : 2);
    double best = INFINITY;
    unsigned k;
    d->on_timepoint = on_tp;
    d->timepoint_user = s;
    for (k = 0; k < a->reps; k++) {
        hst_esrrf_live *lv;
        uint64_t f;
        double t0 = now_s(), t;
        CHECK(hst_esrrf_live_create(d, a->dtype, a->size, a->size, &lv));
        *create_s = now_s() - t0;   /* set-up before the camera starts: not in the rate */
        t0 = now_s();
        for (f = 0; f < a->frames; f++)
            CHECK(hst_esrrf_live_push(lv, (const unsigned char *)stack + f * fb, 1, a->size, a->size));
        CHECK(hst_esrrf_live_finish(lv, rep));
        hst_esrrf_live_destroy(lv);
        t = now_s() - t0;
        if (t < best) best = t;
    }
    d->on_timepoint = NULL;
    return 1e3 * best / (double)a->frames;
}

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
    size_t px;
    unsigned m, first = 0;
    double def, fused, chained, lv, create_s = 0;
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
    s.img = (float *)malloc(px * sizeof(float));
    stack = bench_blinking_stack(a.frames, a.size, a.dtype == HST_ESRRF_F32);
    if (!s.img) return 1;
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
    printf("  batch, default desc  %9.3f ms per frame  (%s, blocks of %llu frames; of the call: streams "
           "%.3f s, reading back and finishing %.3f s, the rest %.3f s)\n", def,
           rep.path == HST_ESRRF_PATH_CHAINED ? "chained" : "fused", (unsigned long long)rep.block_frames,
           rep.stream_seconds, rep.finish_seconds, rep.seconds - rep.stream_seconds - rep.finish_seconds);
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
    d.block_frames = rep.block_frames;   /* the batch call's blocks, so both stream alike */
    lv = live_ms(&a, &d, stack, &s, &rep, &create_s);
    printf("  live, 1 frame/push   %9.3f ms per frame  (first push to finish; live / batch frames per second: "
           "%.3f; the last session: create %.3f s, then streams %.3f s, finishing %.3f s)\n", lv, def / lv,
           create_s, rep.stream_seconds, rep.finish_seconds);
    printf("  live == batch        %s\n", memcmp(s.img, out[first], px * sizeof(float)) ? "NO: the bits differ" : "bit for bit");
    if (!hst_backend_is_host(be)) {   /* the choice's timings to the file first: no measuring there */
        hst_backend *pbe;
        CHECK(hst_choice_save(be));
        make_backends(a.device, 1, &pbe);
        d.backends = &pbe;
        d.block_frames = 0;
        stages(&a, &d, stack, out);
        CHECK(hst_backend_destroy(pbe));
    }
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    free(s.img);
    free(stack);
    CHECK(hst_backend_destroy(be));
    return 0;
}
