/* esrrf_rolling_bench.c — rolling time points (esrrf.h's desc.rolling_step): the batch call with
   windows of W frames every S frames against plain AVG over the same frames (one time point,
   and time points of W frames cut one after another), and how often a rolling window's images
   differ from the window computed alone (hst_esrrf_run on its W frames).

       esrrf_rolling_bench [--device S] [--size N] [--frames F] [--mag M] [--window W] [--step S]
                           [--modes all|avg] [--reps K] [--check K]

   Defaults: 1000 x 1000 u16 frames (bench_util.h's blinking stack), mag 5, 500 frames, W = 100,
   S = 10 (the issue's), AVG, the fused path, best of K = 2 timed runs after one untimed run; --check K compares
   the first K windows with the windows alone (0: none; default 3). A 2-core CPU: --size 64
   --frames 200.

   Figures: ms per frame of plain AVG (frames_per_timepoint 0), of AVG over time points of W
   frames, of rolling (W, S); rolling / plain (the issue asks <= 1.3); the rolling call's
   finish_seconds (the windows' sums, statistics and images: on the device where esrrf.h keeps
   the blocks there, else on the host; correction and check on the host) against its
   stream_seconds; then per mode the floats that differ from the windows alone, and the largest
   difference in ulp of the window's own value.

   Build: cc -std=c99 -O2 -I. bench/esrrf_rolling_bench.c -o esrrf_rolling_bench -lOpenCL -lm -lpthread */
#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct args { const char *device; uint32_t size, mag; uint64_t frames, W, S; unsigned modes, reps, check; } args;

static void parse(int argc, char **argv, args *a)
{
    int i;
    a->device = NULL; a->size = 1000; a->mag = 5; a->frames = 500; a->W = 100; a->S = 10;
    a->modes = HST_ESRRF_AVG; a->reps = 2; a->check = 3;
    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device")) a->device = argv[i + 1];
        else if (!strcmp(argv[i], "--size")) a->size = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) a->frames = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--mag")) a->mag = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--window")) a->W = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--step")) a->S = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) a->reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--check")) a->check = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--modes")) a->modes = strcmp(argv[i + 1], "all") ? HST_ESRRF_AVG : 7u;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); exit(2); }
    }
    if (i < argc) { fprintf(stderr, "option %s needs a value\n", argv[i]); exit(2); }
}

/* Images of ntp time points per requested mode. */
static void alloc_out(float **out, unsigned modes, uint64_t ntp, size_t px)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        out[m] = NULL;
        if ((modes & (1u << m)) && !(out[m] = (float *)malloc(ntp * px * sizeof(float)))) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
}

/* Best of reps timed calls (after one untimed), seconds; the last report in *rep. */
static double best_run(const hst_esrrf_desc *d, const void *stack, const args *a, float **out, hst_esrrf_report *rep)
{
    double best = INFINITY;
    unsigned k;
    for (k = 0; k <= a->reps; k++) {
        double t0 = now_s(), t;
        CHECK(hst_esrrf_run(d, stack, HST_ESRRF_U16, a->frames, a->size, a->size, out, rep));
        t = now_s() - t0;
        if (k && t < best) best = t;
    }
    return best;
}

/* Floats of window k's images (rolling) that differ from the window alone, per mode, and the
   largest difference in ulp of the value alone. */
static void compare_windows(const hst_esrrf_desc *rd, const void *stack, const args *a, float **roll, size_t px)
{
    hst_esrrf_desc d = *rd;
    float *one[HST_ESRRF_NUM_MODES];
    unsigned m, k;
    size_t diff[HST_ESRRF_NUM_MODES] = {0}, i;
    double worst[HST_ESRRF_NUM_MODES] = {0};
    d.frames_per_timepoint = 0;
    d.rolling_step = 0;
    alloc_out(one, d.modes, 1, px);
    for (k = 0; k < a->check && k < (a->frames - a->W) / a->S + 1; k++) {
        const uint16_t *src = (const uint16_t *)stack + (size_t)k * a->S * a->size * a->size;
        CHECK(hst_esrrf_run(&d, src, HST_ESRRF_U16, a->W, a->size, a->size, one, NULL));
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
            for (i = 0; one[m] && i < px; i++) {
                float x = roll[m][(size_t)k * px + i], y = one[m][i];
                double ulp = (double)nextafterf(fabsf(y), INFINITY) - fabsf(y);
                if (memcmp(&x, &y, sizeof x)) {
                    diff[m]++;
                    if (fabs((double)x - y) / ulp > worst[m]) worst[m] = fabs((double)x - y) / ulp;
                }
            }
    }
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (one[m])
            printf("%-5s %zu of %zu floats of %u windows differ from the windows alone (%.2g), largest %.3g ulp\n",
                   hst_esrrf_mode_name((int)m), diff[m], (size_t)k * px, k, (double)diff[m] / ((double)k * px), worst[m]);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(one[m]);
}

int main(int argc, char **argv)
{
    args a;
    hst_backend *be;
    hst_backend_desc bd;
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    float *out[HST_ESRRF_NUM_MODES];
    uint64_t ntp;
    size_t px;
    double plain, cut, roll;
    void *stack;
    unsigned m;
    parse(argc, argv, &a);
    memset(&bd, 0, sizeof bd);
    bd.device = a.device;
    CHECK(hst_esrrf_backend_create(&bd, &be, NULL));
    stack = bench_blinking_stack(a.frames, a.size, 0);
    px = (size_t)a.size * a.mag * a.size * a.mag;
    memset(&d, 0, sizeof d);
    d.backends = &be; d.num_backends = 1; d.magnification = a.mag; d.modes = a.modes;
    d.path = HST_ESRRF_PATH_FUSED;   /* every call the same path: no measuring pieces in the times */
    printf("device %s, %llu frames of %u x %u u16, mag %u, W %llu, S %llu, modes 0x%x\n",
           hst_backend_device(be)->name, (unsigned long long)a.frames, a.size, a.size, a.mag,
           (unsigned long long)a.W, (unsigned long long)a.S, a.modes);
    fflush(stdout);
    alloc_out(out, a.modes, 1, px);
    plain = best_run(&d, stack, &a, out, &rep);
    printf("plain AVG (1 time point)        %8.3f ms/frame\n", 1e3 * plain / (double)a.frames);
    fflush(stdout);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    d.frames_per_timepoint = a.W;
    CHECK(hst_esrrf_output_shape(&d, a.frames, a.size, a.size, &ntp, NULL, NULL));
    alloc_out(out, a.modes, ntp, px);
    cut = best_run(&d, stack, &a, out, &rep);
    printf("cut time points of W            %8.3f ms/frame\n", 1e3 * cut / (double)a.frames);
    fflush(stdout);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    d.rolling_step = a.S;
    CHECK(hst_esrrf_output_shape(&d, a.frames, a.size, a.size, &ntp, NULL, NULL));
    alloc_out(out, a.modes, ntp, px);
    roll = best_run(&d, stack, &a, out, &rep);
    printf("rolling W, S (%llu windows)     %8.3f ms/frame\n", (unsigned long long)ntp, 1e3 * roll / (double)a.frames);
    printf("rolling / plain                 %8.3f   (rolling / cut %.3f)\n", roll / plain, roll / cut);
    printf("rolling call: stream %.3f s, finish %.3f s (windows' sums, statistics, correction), setup %.3f s\n",
           rep.stream_seconds, rep.finish_seconds, rep.setup_seconds);
    compare_windows(&d, stack, &a, out, px);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
    free(stack);
    CHECK(hst_backend_destroy(be));
    return 0;
}
