/* fft_bench.c — batched FFTs through hst_array_fft on one device, against a peer in the same
   run: cuFFT through CuPy on a GPU, numpy.fft (pocketfft) on the host device and CPU devices.

       fft_bench [S | --device S] [--reps N] [--small] [--peer cupy|numpy|none]

   S is a device selector (default $HST_DEVICE, else auto). Transforms, c2c f32 (c64 data),
   forward, norm "backward" (unscaled), in place:
     2-D: 64 x 1024 x 1024 (64 transforms of 1024 x 1024)     3-D: 256 x 256 x 256
   (--small: 8 x 256 x 256 and 64 x 64 x 64, for CPU devices). Each figure is the median of
   --reps (default 10) transforms after a warm-up call that makes the plan; the input is refilled
   (untimed) before each, so values stay finite. Time per transform: CLOCK_MONOTONIC around
   hst_array_fft + hst_queue_finish. GFLOP/s counts 5 N log2 N per complex transform of N points
   (the convention of FFTW's benchmarks). The peer runs bench/fft_peer.py (python3) with the
   same shapes: its own median of the same number of calls, with the plan made first; CuPy's
   fftn is out of place (an output allocated from CuPy's pool), ours in place. The last column
   is the speed ratio, peer time / our time (>= 0.8 is the goal against cuFFT).

   Correctness: after the timed runs one transform's output is checked against its inverse
   (norm backward), which must give the input back within 1e-5 relative (L2), so a plan that
   computed nothing would fail, not look fast.

   Build (needs FFTW and VkFFT headers): make build/bench/fft_bench
   (or: cc -std=c99 -O2 -I. bench/fft_bench.c -o fft_bench -lfftw3f -lfftw3 -lOpenCL -lm -lpthread) */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime, popen in strict C99 */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "array.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPS 10
#define MAX_REPS 1000
#define ROUND_TRIP_TOL 1e-5

typedef struct bshape { size_t shape[3]; unsigned axes; char spec[48]; } bshape;

static void spec_of(bshape *b) {
    snprintf(b->spec, sizeof b->spec, "%zux%zux%zu:%u", b->shape[0], b->shape[1], b->shape[2],
             b->axes);
}

/* Median seconds per transform of x in place (refilled before each run, untimed). */
static double time_fft(hst_backend *be, hst_array *x, unsigned axes, int reps) {
    double t[MAX_REPS];
    int i;
    CHECK(hst_array_random(x, HST_RANDOM_UNIFORM, 1, 0));
    CHECK(hst_array_fft(x, x, axes, 0, HST_FFT_NORM_BACKWARD));   /* makes the plan */
    for (i = 0; i < reps; i++) {
        double t0;
        CHECK(hst_array_random(x, HST_RANDOM_UNIFORM, 1, 0));
        CHECK(hst_queue_finish(hst_backend_queue(be)));
        t0 = now_s();
        CHECK(hst_array_fft(x, x, axes, 0, HST_FFT_NORM_BACKWARD));
        CHECK(hst_queue_finish(hst_backend_queue(be)));
        t[i] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    return t[reps / 2];
}

/* The inverse of the forward transform gives the input back. */
static void check_round_trip(hst_array *x, unsigned axes) {
    size_t n = hst_array_count(x), i;
    float *a = (float *)malloc(n * 8), *b = (float *)malloc(n * 8);
    double err = 0.0, norm = 0.0;
    if (!a || !b) { fprintf(stderr, "out of host memory\n"); exit(1); }
    CHECK(hst_array_random(x, HST_RANDOM_UNIFORM, 2, 0));
    CHECK(hst_array_read(x, a, n * 8));
    CHECK(hst_array_fft(x, x, axes, 0, HST_FFT_NORM_BACKWARD));
    CHECK(hst_array_fft(x, x, axes, 1, HST_FFT_NORM_BACKWARD));
    CHECK(hst_array_read(x, b, n * 8));
    for (i = 0; i < 2 * n; i++) {
        double d = (double)a[i] - b[i];
        err += d * d;
        norm += (double)a[i] * a[i];
    }
    if (!(sqrt(err) <= ROUND_TRIP_TOL * sqrt(norm))) {
        fprintf(stderr, "round trip error %.3g (relative) > %.0e\n", sqrt(err / norm), ROUND_TRIP_TOL);
        exit(1);
    }
    free(a); free(b);
}

/* The peer's median per shape (seconds), 0 where it gave none. */
static void run_peer(const char *peer, int reps, bshape *b, int nb, double *out) {
    char cmd[512], line[256];
    FILE *p;
    int i;
    for (i = 0; i < nb; i++) out[i] = 0.0;
    if (!strcmp(peer, "none")) return;
    snprintf(cmd, sizeof cmd, "python3 bench/fft_peer.py %s %d", peer, reps);
    for (i = 0; i < nb; i++) {
        strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
        strncat(cmd, b[i].spec, sizeof cmd - strlen(cmd) - 1);
    }
    if (!(p = popen(cmd, "r"))) { printf("peer %s: could not start python3\n", peer); return; }
    while (fgets(line, sizeof line, p)) {
        char spec[64];
        double s;
        if (sscanf(line, "%63s %lf", spec, &s) != 2) { printf("peer %s: %s", peer, line); continue; }
        for (i = 0; i < nb; i++) if (!strcmp(spec, b[i].spec)) out[i] = s;
    }
    pclose(p);
}

int main(int argc, char **argv) {
    hst_backend_desc desc;
    hst_backend *be;
    bshape b[2] = {{{64, 1024, 1024}, 2, ""}, {{256, 256, 256}, 3, ""}};
    const char *peer = NULL;
    double ours[2], theirs[2];
    int reps = DEFAULT_REPS, i;
    memset(&desc, 0, sizeof desc);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) desc.device = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc) peer = argv[++i];
        else if (!strcmp(argv[i], "--small")) {
            b[0].shape[0] = 8; b[0].shape[1] = b[0].shape[2] = 256;
            b[1].shape[0] = b[1].shape[1] = b[1].shape[2] = 64;
        } else if (argv[i][0] != '-') desc.device = argv[i];
        else { fprintf(stderr, "usage: %s [S | --device S] [--reps N] [--small] [--peer cupy|numpy|none]\n", argv[0]); return 2; }
    }
    if (reps < 1 || reps > MAX_REPS) { fprintf(stderr, "--reps: 1..%d\n", MAX_REPS); return 2; }
    CHECK(hst_backend_create(&desc, &be));
    if (!peer) peer = hst_backend_device(be)->type == HST_DEVICE_GPU ? "cupy" : "numpy";
    printf("device: %s (%s)\n", hst_backend_device(be)->name, hst_backend_device(be)->selector);
    for (i = 0; i < 2; i++) {
        hst_array *x;
        spec_of(&b[i]);
        CHECK(hst_array_create(be, HST_C64, 3, b[i].shape, &x));
        ours[i] = time_fft(be, x, b[i].axes, reps);
        check_round_trip(x, b[i].axes);
        hst_array_destroy(x);
    }
    CHECK(hst_backend_destroy(be));   /* frees the device memory before the peer allocates its own */
    run_peer(peer, reps, b, 2, theirs);
    printf("| transform | ours (ms) | GFLOP/s | %s (ms) | speed ratio %s/ours |\n|---|---|---|---|---|\n",
           peer, peer);
    for (i = 0; i < 2; i++) {
        double n = (double)(b[i].axes == 2 ? b[i].shape[1] * b[i].shape[2]
                            : b[i].shape[0] * b[i].shape[1] * b[i].shape[2]);
        double count = b[i].axes == 2 ? (double)b[i].shape[0] : 1.0;
        double flops = 5.0 * n * log2(n) * count;
        printf("| %s c2c f32 | %.3f | %.0f | ", b[i].spec, ours[i] * 1e3, flops / ours[i] * 1e-9);
        if (theirs[i] > 0) printf("%.3f | %.2f |\n", theirs[i] * 1e3, theirs[i] / ours[i]);
        else printf("n/a | n/a |\n");
    }
    return 0;
}
