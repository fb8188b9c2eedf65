/* drift_bench.c — quality.h's drift estimation (hst_drift_*): milliseconds per frame on one
   device, and (for bench/drift_nanopyx_compare.py) the drift of a given stack.

       drift_bench [--device S] [--size N] [--frames F] [--batch B] [--block K] [--averaging T]
                   [--reference first|mean|previous] [--peak gauss|parabola|catmull] [--reps R]
       drift_bench [--device S] --stack FILE --shape FxRxC [options above] --out CSV

   Speed mode: F (default 200) u16 frames of N x N (default 256; the figure is at
   1000) pixels: Gaussian blobs (sigma 2 px, one per 180 pixels) drifting 5 px over the stack,
   pushed in blocks of K frames (default 50, as a reader of a large file would) into one
   session of batch B (0: the default, 16); the time of the whole estimation (open, pushes:
   the uploads, kernels and FFTs; finish: the last batch and the interpolation; close), the
   median of R (default 3) runs after a warm-up run that builds the program and the FFT plans,
   divided by F. Also prints the RMS error against the drift the stack was made with (so a
   change of speed is seen with its accuracy), and that run's split: open and the pushes (on a
   GPU: the copies into pinned staging, with the device's work behind them), finish and close
   (the device's last batches and the interpolation).

   Stack mode: FILE holds F x R x C u16 samples (C order, the host's byte order); writes
   frame,dy,dx per line to CSV (pixels; hst_drift_finish's sign: the frame's content moved by
   (dy, dx) from the reference's). */
#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_FFT
#include "quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static uint64_t rng = 88172645463325252ULL;
static double uniform(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* frames x n x n u16: blobs (amplitude 200 .. 1000 over 100) moved by truth[2 f], truth[2 f + 1]. */
static uint16_t *make_stack(size_t frames, size_t n, double *truth) {
    size_t blobs = n * n / 180 + 1, f, b, i;
    double *by = (double *)malloc(blobs * sizeof(double)), *bx = (double *)malloc(blobs * sizeof(double));
    double *ba = (double *)malloc(blobs * sizeof(double)), *v = (double *)malloc(n * n * sizeof(double));
    uint16_t *s = (uint16_t *)malloc(frames * n * n * sizeof(uint16_t));
    long y, x;
    if (!by || !bx || !ba || !v || !s) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (b = 0; b < blobs; b++) {
        by[b] = -8.0 + ((double)n + 16.0) * uniform();
        bx[b] = -8.0 + ((double)n + 16.0) * uniform();
        ba[b] = 200.0 + 800.0 * uniform();
    }
    for (f = 0; f < frames; f++) {
        double t = (double)f / (double)(frames > 1 ? frames - 1 : 1);
        truth[2 * f] = 3.0 * t + 0.3 * sin(7.0 * t);
        truth[2 * f + 1] = -4.0 * t + 0.2 * cos(5.0 * t) - 0.2;
        for (i = 0; i < n * n; i++) v[i] = 100.0;
        for (b = 0; b < blobs; b++) {
            double cy = by[b] + truth[2 * f], cx = bx[b] + truth[2 * f + 1];
            for (y = (long)cy - 9; y <= (long)cy + 9; y++)
                for (x = (long)cx - 9; x <= (long)cx + 9; x++)
                    if (y >= 0 && y < (long)n && x >= 0 && x < (long)n)
                        v[(size_t)y * n + (size_t)x] +=
                            ba[b] * exp(-((y - cy) * (y - cy) + (x - cx) * (x - cx)) / 8.0);
        }
        for (i = 0; i < n * n; i++) s[f * n * n + i] = (uint16_t)(v[i] + 0.5);
    }
    free(by); free(bx); free(ba); free(v);
    return s;
}

/* The estimation of a stack pushed in blocks of `block` frames; its seconds into t[0] (open and
   pushes) and t[1] (finish and close). */
static void estimate(hst_backend *be, const uint16_t *s, size_t frames, size_t rows, size_t cols,
                     const hst_drift_desc *d, size_t block, double *out, double t[2]) {
    hst_drift *dr = NULL;
    size_t f;
    double t0 = now_s(), t1;
    CHECK(hst_drift_open(be, rows, cols, d, &dr));
    for (f = 0; f < frames; f += block)
        CHECK(hst_drift_push(dr, s + f * rows * cols, HST_DRIFT_U16, frames - f < block ? frames - f : block));
    t1 = now_s();
    CHECK(hst_drift_finish(dr, out, frames));
    hst_drift_close(dr);
    t[0] = t1 - t0; t[1] = now_s() - t1;
}

static int option(const char *v, const char *const *names, int n) {
    int i;
    for (i = 0; i < n; i++) if (!strcmp(v, names[i])) return i;
    fprintf(stderr, "unknown option value %s\n", v);
    exit(2);
}

int main(int argc, char **argv) {
    static const char *const refs[] = { "first", "mean", "previous" }, *const peaks[] = { "gauss", "parabola", "catmull" };
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_drift_desc d;
    size_t n = 256, frames = 200, block = 50, rows = 0, cols = 0, i;
    const char *stack = NULL, *out = NULL;
    int reps = 3, k;
    double *est, *truth, *t, (*split)[2], t2[2];
    uint16_t *s;
    memset(&bd, 0, sizeof bd);
    memset(&d, 0, sizeof d);
    for (i = 1; i < (size_t)argc; i++) {
        const char *a = argv[i], *v = i + 1 < (size_t)argc ? argv[i + 1] : NULL;
        if (!v) { fprintf(stderr, "%s needs a value\n", a); return 2; }
        i++;
        if (!strcmp(a, "--device")) bd.device = v;
        else if (!strcmp(a, "--size")) n = (size_t)atol(v);
        else if (!strcmp(a, "--frames")) frames = (size_t)atol(v);
        else if (!strcmp(a, "--batch")) d.batch = (size_t)atol(v);
        else if (!strcmp(a, "--block")) block = (size_t)atol(v);
        else if (!strcmp(a, "--averaging")) d.averaging = (size_t)atol(v);
        else if (!strcmp(a, "--reference-frames")) d.reference_frames = (size_t)atol(v);
        else if (!strcmp(a, "--reference")) d.reference = (hst_drift_reference)option(v, refs, 3);
        else if (!strcmp(a, "--peak")) d.peak = (hst_drift_peak)option(v, peaks, 3);
        else if (!strcmp(a, "--max-shift")) d.max_shift = (unsigned)atol(v);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "--stack")) stack = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--shape")) {
            if (sscanf(v, "%zux%zux%zu", &frames, &rows, &cols) != 3) { fprintf(stderr, "--shape FxRxC\n"); return 2; }
        } else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    }
    if (!block || !frames || reps < 1) { fprintf(stderr, "--block, --frames and --reps must be positive\n"); return 2; }
    CHECK(hst_backend_create(&bd, &be));
    if (stack) {   /* stack mode */
        FILE *f = fopen(stack, "rb"), *o;
        if (!out || !f) { fprintf(stderr, "--stack needs a readable FILE and --out\n"); return 2; }
        s = (uint16_t *)malloc(frames * rows * cols * 2);
        est = (double *)malloc(frames * 2 * sizeof(double));
        if (!s || !est || fread(s, 2, frames * rows * cols, f) != frames * rows * cols) {
            fprintf(stderr, "cannot read %zu x %zu x %zu u16 from %s\n", frames, rows, cols, stack);
            return 1;
        }
        fclose(f);
        estimate(be, s, frames, rows, cols, &d, block, est, t2);
        if (!(o = fopen(out, "w"))) { fprintf(stderr, "cannot write %s\n", out); return 1; }
        fprintf(o, "frame,dy,dx\n");
        for (i = 0; i < frames; i++) fprintf(o, "%zu,%.6f,%.6f\n", i, est[2 * i], est[2 * i + 1]);
        fclose(o);
    } else {   /* speed mode */
        double err = 0.0, oy, ox, med[2] = { 0.0, 0.0 };
        s = make_stack(frames, n, truth = (double *)malloc(frames * 2 * sizeof(double)));
        est = (double *)malloc(frames * 2 * sizeof(double));
        t = (double *)malloc((size_t)reps * sizeof(double));
        split = (double (*)[2])malloc((size_t)reps * sizeof *split);
        if (!est || !t || !truth || !split) { fprintf(stderr, "out of memory\n"); return 1; }
        estimate(be, s, frames, n, n, &d, block, est, t2);   /* warm-up: program, FFT plans */
        for (k = 0; k < reps; k++) {
            estimate(be, s, frames, n, n, &d, block, est, split[k]);
            t[k] = split[k][0] + split[k][1];
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        for (k = 0; k < reps; k++)   /* the median run's split */
            if (split[k][0] + split[k][1] == t[reps / 2]) { med[0] = split[k][0]; med[1] = split[k][1]; }
        oy = truth[0]; ox = truth[1];
        for (i = 0; i < frames; i++) {
            double ey = est[2 * i] - (truth[2 * i] - oy), ex = est[2 * i + 1] - (truth[2 * i + 1] - ox);
            err += ey * ey + ex * ex;
        }
        printf("device: %s\n", hst_backend_device(be)->name);
        printf("drift %zu frames of %zu x %zu u16, reference %s, peak %s, averaging %zu, blocks of %zu: "
               "%.3f ms per frame (median of %d: %.3f s), RMS error %.4f px%s\n",
               frames, n, n, refs[d.reference], peaks[d.peak], d.averaging ? d.averaging : 1, block,
               1e3 * t[reps / 2] / (double)frames, reps, t[reps / 2], sqrt(err / (double)frames),
               d.reference == HST_DRIFT_REF_FIRST && d.averaging <= 1 ? "" : " (against frame 0's truth)");
        printf("of which open and pushes %.3f ms per frame, finish and close %.3f ms per frame\n",
               1e3 * med[0] / (double)frames, 1e3 * med[1] / (double)frames);
        free(truth); free(t); free(split);
    }
    free(s); free(est);
    CHECK(hst_backend_destroy(be));
    return 0;
}
