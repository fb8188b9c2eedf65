/* liquid_bench.c — NanoPyx's tutorial chain of liquid.h's device calls (shift-and-magnify by M,
   Roberts cross, both gradients magnified by 2M, radial gradient convergence), the arrays kept on
   one device, against eSRRF's fused path (hst_esrrf_run, one image per frame: frames_per_timepoint
   1, no macro-pixel correction, AVG) for the same output, per frame; and each granular call's
   time.

       liquid_bench [--device S] [--size N] [--frames F] [--mag M] [--radius R] [--reps K]

   Defaults: 1000 x 1000 frames, F = 4, mag 5, radius 1.5, sensitivity 1, intensity weighting
   on (the and NanoPyx's benchmark), K = 3 timed runs after one untimed (programs built,
   memory touched), the median reported; device: hst_backend_create's (--device, else
   $HST_DEVICE, else auto). The chain at 1000 x 1000, mag 5 holds about 1.1 GB of device
   arrays per frame (the 2M gradients: 400 MB each).

   Figures (seconds per frame; the machine and device named first):
     each granular call     launched, then the queue finished: its own time on the device
     chain (device)         the five calls back to back, then one finish: the arrays never
                            leave the device (NanoPyx's point in the tutorial)
     chain + read           and the RGC images read back to host memory: the same output as
     fused hst_esrrf_run    the fused call's, which takes the stack from host memory and
                            returns the images there (its setup included: streams, buffers)
     ratio                  chain + read over fused (the issue asks within 1.3 on a GPU)
   The chain's images are compared with the fused call's (equal as floats: kernels_esrrf.h).

   Build: make bench/liquid_bench (or cc -std=c99 -O2 -I. bench/liquid_bench.c -lOpenCL -lm
   -lpthread). */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#include "liquid.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALLS 5     /* magnify, roberts, magnify (gradient_col), magnify (gradient_row), rgc */

typedef struct options {
    const char *device;
    unsigned size, frames, mag, reps;
    float radius;
} options;

/* The tutorial's arrays on one device. */
typedef struct chain {
    hst_backend *be;
    hst_array *img, *mag, *gc, *gr, *gci, *gri, *rgc;
    hst_shift_magnify_desc m1, m2;
    hst_radial_gradient_convergence_desc rd;
} chain;

static const char *const call_names[CALLS] = {
    "shift_magnify (M)", "roberts_cross", "shift_magnify (2M, col)", "shift_magnify (2M, row)",
    "radial_gradient_convergence"
};

static hst_array *make(hst_backend *be, size_t f, size_t r, size_t c)
{
    size_t shape[3];
    hst_array *a = NULL;
    shape[0] = f; shape[1] = r; shape[2] = c;
    CHECK(hst_array_create(be, HST_F32, 3, shape, &a));
    return a;
}

static hst_result call(chain *c, int k)
{
    switch (k) {
    case 0: return hst_shift_magnify(c->mag, c->img, &c->m1);
    case 1: return hst_roberts_cross(c->gc, c->gr, c->img);
    case 2: return hst_shift_magnify(c->gci, c->gc, &c->m2);
    case 3: return hst_shift_magnify(c->gri, c->gr, &c->m2);
    default: return hst_radial_gradient_convergence(c->rgc, c->gci, c->gri, c->mag, &c->rd);
    }
}

static double median(double *t, unsigned n)
{
    qsort(t, n, sizeof *t, cmp_d);
    return t[(n - 1) / 2];
}

static void usage(FILE *f)
{
    fprintf(f, "usage: liquid_bench [--device S] [--size N] [--frames F] [--mag M] [--radius R] [--reps K]\n");
}

static int parse(int argc, char **argv, options *o)
{
    int i;
    o->device = NULL; o->size = 1000; o->frames = 4; o->mag = 5; o->reps = 3; o->radius = 1.5f;
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
        if (!v) { usage(stderr); return 0; }
        if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--size")) o->size = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--frames")) o->frames = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--mag")) o->mag = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--radius")) o->radius = strtof(v, NULL);
        else if (!strcmp(a, "--reps")) o->reps = (unsigned)strtoul(v, NULL, 10);
        else { usage(stderr); return 0; }
    }
    if (!o->size || !o->frames || !o->mag || !o->reps || o->reps > 100) { usage(stderr); return 0; }
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    hst_backend_desc bd;
    chain c;
    hst_esrrf_desc ed;
    hst_esrrf_report rep;
    const hst_device_info *info;
    float *stack, *fused, *chained, *outs[HST_ESRRF_NUM_MODES] = {0};
    double t_call[CALLS][100], t_chain[100], t_read[100], t_fused[100], t0, setup[100];
    size_t n, nM, i, differ = 0;
    unsigned rep_i, k, M;
    char host[256] = "?";
    if (!parse(argc, argv, &o)) return 2;
    M = o.mag;
    n = (size_t)o.frames * o.size * o.size;
    nM = n * M * M;
    memset(&bd, 0, sizeof bd);
    bd.device = o.device;
    memset(&c, 0, sizeof c);
    CHECK(hst_backend_create(&bd, &c.be));
    info = hst_backend_device(c.be);
    (void)gethostname(host, sizeof host - 1);
    printf("machine %s; device %s (%s, %s), %u compute units\n", host, info->name, info->selector,
           info->driver_version, info->compute_units);
    printf("stack %u x %u x %u float32, mag %u, radius %g, sensitivity 1, intensity weighting; median of %u\n",
           o.frames, o.size, o.size, M, (double)o.radius, o.reps);
    stack = (float *)bench_blinking_stack(o.frames, o.size, 1);
    fused = (float *)malloc(nM * sizeof(float));
    chained = (float *)malloc(nM * sizeof(float));
    if (!fused || !chained) { fprintf(stderr, "out of memory\n"); return 1; }

    c.img = make(c.be, o.frames, o.size, o.size);
    c.mag = make(c.be, o.frames, (size_t)o.size * M, (size_t)o.size * M);
    c.gc = make(c.be, o.frames, o.size, o.size);
    c.gr = make(c.be, o.frames, o.size, o.size);
    c.gci = make(c.be, o.frames, (size_t)o.size * 2 * M, (size_t)o.size * 2 * M);
    c.gri = make(c.be, o.frames, (size_t)o.size * 2 * M, (size_t)o.size * 2 * M);
    c.rgc = make(c.be, o.frames, (size_t)o.size * M, (size_t)o.size * M);
    c.m1.magnification_row = c.m1.magnification_col = (float)M;
    c.m2.magnification_row = c.m2.magnification_col = (float)(2 * M);
    c.rd.magnification = M;
    c.rd.radius = o.radius;
    CHECK(hst_array_write(c.img, stack, n * sizeof(float)));

    memset(&ed, 0, sizeof ed);
    ed.magnification = M; ed.radius = o.radius; ed.frames_per_timepoint = 1; ed.no_macro_pixel_correction = 1;
    ed.modes = HST_ESRRF_AVG; ed.path = HST_ESRRF_PATH_FUSED; ed.backends = &c.be; ed.num_backends = 1;
    outs[0] = fused;

    for (rep_i = 0; rep_i <= o.reps; rep_i++) {   /* run 0 untimed */
        unsigned r = rep_i ? rep_i - 1 : 0;
        for (k = 0; k < CALLS; k++) {   /* each call alone */
            t0 = now_s();
            CHECK(call(&c, (int)k));
            CHECK(hst_queue_finish(hst_backend_queue(c.be)));
            t_call[k][r] = now_s() - t0;
        }
        t0 = now_s();   /* the chain back to back */
        for (k = 0; k < CALLS; k++) CHECK(call(&c, (int)k));
        CHECK(hst_queue_finish(hst_backend_queue(c.be)));
        t_chain[r] = now_s() - t0;
        CHECK(hst_array_read(c.rgc, chained, nM * sizeof(float)));
        t_read[r] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_esrrf_run(&ed, stack, HST_ESRRF_F32, o.frames, o.size, o.size, outs, &rep));
        t_fused[r] = now_s() - t0;
        setup[r] = rep.setup_seconds;
    }
    for (i = 0; i < nM; i++) differ += !(chained[i] == fused[i]);

    printf("\n%-30s %14s\n", "call", "s per frame");
    for (k = 0; k < CALLS; k++) printf("%-30s %14.6f\n", call_names[k], median(t_call[k], o.reps) / o.frames);
    printf("%-30s %14.6f\n", "chain (device)", median(t_chain, o.reps) / o.frames);
    printf("%-30s %14.6f\n", "chain + read", median(t_read, o.reps) / o.frames);
    printf("%-30s %14.6f   (setup %.4f s per call)\n", "fused hst_esrrf_run", median(t_fused, o.reps) / o.frames,
           median(setup, o.reps));
    printf("ratio chain + read / fused: %.3f;  chain (device) / fused: %.3f\n",
           median(t_read, o.reps) / median(t_fused, o.reps), median(t_chain, o.reps) / median(t_fused, o.reps));
    printf("images: %s (%zu of %zu pixels differ)\n", differ ? "DIFFER" : "equal", differ, nM);

    hst_array_destroy(c.img); hst_array_destroy(c.mag); hst_array_destroy(c.gc); hst_array_destroy(c.gr);
    hst_array_destroy(c.gci); hst_array_destroy(c.gri); hst_array_destroy(c.rgc);
    CHECK(hst_backend_destroy(c.be));
    free(stack); free(fused); free(chained);
    return differ ? 1 : 0;
}
