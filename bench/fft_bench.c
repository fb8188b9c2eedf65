/* fft_bench.c — a table of FFTs through hst_array_fft on one device, against a peer in the same
   run: cuFFT through CuPy on a GPU, numpy.fft (pocketfft) on the host device and CPU devices.
   The goal (an issue's): speed ratio >= 1.0 against cuFFT on every row, measured in one job.

       fft_bench [S | --device S] [--reps N] [--small] [--peer cupy|numpy|none] [--only TEXT]

   S is a device selector (default $HST_DEVICE, else auto). --reps: timed calls per row (default
   10). --small: the CPU-sized table (every row's small twin, for the host device and PoCL).
   --peer: default cupy on a GPU, numpy elsewhere. --only: the rows whose name contains TEXT
   (e.g. ":c2r:", ":f64", "2048"). Run from the repository root (the peer is bench/fft_peer.py).

   Rows (ROWS below: one line each, run in every precision it names; a row's name is its peer
   spec, "64x1024x1024:2:c2c:f32" = real-space shape, C order : transformed (last) axes : kind :
   precision; the leading extents are the batch):
     c2c forward, in place, c64 and c128        (--small's twins)
       2-D batches   64 x 1024^2, 256 x 512^2, 16 x 2048^2   (8 x 256^2, 16 x 128^2, 2 x 512^2)
       3-D           256^3, 512^3 (c128: 2 GiB)               (64^3, 128^3)
       non-powers    64 x 1000^2, 16 x 1536^2                 (8 x 100^2, 4 x 192^2)
       3 x 5 x 7     64 x 840^2, 210^3 (840 = 2^3 3 5 7)      (8 x 105^2, 105^3)
     r2c forward (f32 -> c64, f64 -> c128) and c2r inverse (back), out of place:
                     64 x 1024^2, 256^3                       (8 x 256^2, 64^3)
   A row that runs out of host or device memory (the library's or OpenCL's out-of-memory codes,
   from any of its calls) or needs fp64 the device lacks is skipped, with the reason printed; it
   counts as not meeting the goal. A plan VkFFT refuses (also for lack of memory for its own
   scratch buffer: HST_ERROR_UNSUPPORTED, the log gives the VkFFTResult) is a failed row.

   Method: norm "backward" (forward unscaled). Each figure is the median of --reps calls after
   2 x 4 + 1 warm-up calls (the plans made and, on an OpenCL device, array.h's choice among its
   4 VkFFT configurations settled for the shape: the figure is the chosen one's); time per call: CLOCK_MONOTONIC around hst_array_fft +
   hst_queue_finish. c2c is in place on a random input refilled (untimed) before each call, so
   values stay finite; r2c and c2r leave their input alone (c2r's input is the r2c of a random
   real array: Hermitian, as c2r requires). GFLOP/s counts 5 N log2 N per complex transform of
   N points, 2.5 N log2 N per real one (the convention of FFTW's benchmarks; N the real-space
   points per transform, times the batch). Between rows the backend's pool frees its held
   blocks (plans stay until the end).
   Peer: after the whole table, the backend is destroyed (its device memory freed) and one
   python3 bench/fft_peer.py run measures every row: the same transform (fftn / rfftn / irfftn
   over the same axes, complex64/complex128 or float32/float64 input), its own median of the
   same number of calls with the plan made first. CuPy's transforms are out of place (outputs
   from CuPy's pool), our c2c in place. Ratio = peer time / our time (>= 1.0: as fast as the peer
   or faster).
   Correctness, per row after its timed calls: c2c forward then inverse (norm backward) gives a
   fresh random input back; r2c and c2r rows: the r2c then c2r of a random real array gives it
   back; within 1e-5 (f32) or 1e-12 (f64) relative L2 error, so a plan that computed nothing
   would fail, not look fast. A row that fails it, or any other error, is reported in the table
   and the exit status is 1.
   Last line: the rows at >= 1.0x and the worst ratio with its row.

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
#define TOL_F32 1e-5              /* round trip, relative L2 */
#define TOL_F64 1e-12
#define GOAL_RATIO 1.0            /* peer time / ours */
#define MAX_DIMS 4                /* array.h's arrays: ndim 1..4 */
#define SEED_TIMED 1
#define SEED_CHECK 2

typedef enum fft_kind { C2C, R2C, C2R } fft_kind;
static const char *const KIND_NAMES[] = {"c2c", "r2c", "c2r"};
enum { F32 = 1, F64 = 2, BOTH = F32 | F64 };   /* a row's precisions */

/* One line of the table: shapes are real-space extents, C order, 0-terminated; the last `axes`
   are transformed, the ones before them are the batch. */
typedef struct row_def {
    fft_kind kind;
    unsigned precisions;
    unsigned axes;
    size_t shape[MAX_DIMS];       /* the GPU table's */
    size_t small[MAX_DIMS];       /* --small's */
} row_def;

static const row_def ROWS[] = {
    /* kind precisions axes  shape                --small */
    {C2C, BOTH, 2, {64, 1024, 1024},      {8, 256, 256}},     /* 2-D batches */
    {C2C, BOTH, 2, {256, 512, 512},       {16, 128, 128}},
    {C2C, BOTH, 2, {16, 2048, 2048},      {2, 512, 512}},
    {C2C, BOTH, 3, {256, 256, 256},       {64, 64, 64}},      /* 3-D */
    {C2C, BOTH, 3, {512, 512, 512},       {128, 128, 128}},
    {C2C, BOTH, 2, {64, 1000, 1000},      {8, 100, 100}},     /* non-powers of two */
    {C2C, BOTH, 2, {16, 1536, 1536},      {4, 192, 192}},
    {C2C, BOTH, 2, {64, 840, 840},        {8, 105, 105}},     /* 3 x 5 x 7 */
    {C2C, BOTH, 3, {210, 210, 210},       {105, 105, 105}},
    {R2C, BOTH, 2, {64, 1024, 1024},      {8, 256, 256}},     /* real <-> complex */
    {R2C, BOTH, 3, {256, 256, 256},       {64, 64, 64}},
    {C2R, BOTH, 2, {64, 1024, 1024},      {8, 256, 256}},
    {C2R, BOTH, 3, {256, 256, 256},       {64, 64, 64}},
};
#define N_DEFS (sizeof ROWS / sizeof ROWS[0])
#define MAX_ROWS (2 * N_DEFS)

/* A row as run: one precision of a row_def. */
typedef struct row {
    fft_kind kind;
    int f64;
    unsigned axes, ndim;
    size_t shape[MAX_DIMS];
    char spec[64];                /* the peer's spec and the table's name */
    double ours_s, peer_s;        /* median seconds per call; 0: none */
    double err;                   /* round trip, relative L2; -1: not checked */
    int skipped, failed;
    char note[128];               /* why skipped or failed */
} row;

static void row_init(row *r, const row_def *d, int small, int f64) {
    const size_t *s = small ? d->small : d->shape;
    size_t len;
    unsigned i;
    memset(r, 0, sizeof *r);
    r->kind = d->kind;
    r->f64 = f64;
    r->axes = d->axes;
    r->err = -1.0;
    for (i = 0; i < MAX_DIMS && s[i]; i++) r->shape[i] = s[i];
    r->ndim = i;
    for (i = 0; i < r->ndim; i++) {
        len = strlen(r->spec);
        snprintf(r->spec + len, sizeof r->spec - len, "%s%zu", i ? "x" : "", r->shape[i]);
    }
    len = strlen(r->spec);
    snprintf(r->spec + len, sizeof r->spec - len, ":%u:%s:%s", r->axes, KIND_NAMES[r->kind],
             f64 ? "f64" : "f32");
}

/* Floating-point operations of one call (FFTW's convention). */
static double row_flops(const row *r) {
    double n = 1.0, batch = 1.0;
    unsigned i;
    for (i = 0; i < r->ndim; i++) {
        if (i + r->axes < r->ndim) batch *= (double)r->shape[i];
        else n *= (double)r->shape[i];
    }
    return (r->kind == C2C ? 5.0 : 2.5) * n * log2(n) * batch;
}

/* Errors that mean "does not fit here" rather than "wrong": the row is skipped. */
static int is_memory_error(hst_result res) {
    if (res == HST_ERROR_OUT_OF_HOST_MEMORY || res == HST_ERROR_OUT_OF_DEVICE_MEMORY) return 1;
#ifndef HST_NO_OPENCL
    if (res == CL_MEM_OBJECT_ALLOCATION_FAILURE || res == CL_OUT_OF_RESOURCES ||
        res == CL_OUT_OF_HOST_MEMORY || res == CL_INVALID_BUFFER_SIZE) return 1;
#endif
    return 0;
}

/* Every hst_ call of a row goes through TRY: on an error it records the call and leaves. */
#define TRY(call) do { if ((res = (call)) != HST_SUCCESS) { *what = #call; goto done; } } while (0)

/* Calls before the timed ones: on a GPU hst_array_fft measures each of its VkFFT configurations
   for a new shape (a warm-up run and a timed one each) before it picks the fastest, which it
   then measures twice more within the timed calls' first ones (the median leaves them out). */
#ifdef HST_NO_OPENCL
#  define WARMUP_CALLS 1
#else
#  define WARMUP_CALLS (2 * (int)HST__FFT_VARIANTS + 1)
#endif

/* Median seconds per hst_array_fft(dst, src) call, after WARMUP_CALLS (the plans made, the
   configuration chosen); refill: src is refilled (untimed) before each call (c2c in place). */
static hst_result time_calls(hst_backend *be, const row *r, hst_array *dst, hst_array *src,
                             int inverse, int refill, int reps, double *median_s,
                             const char **what) {
    double t[MAX_REPS];
    hst_result res = HST_SUCCESS;
    int i;
    for (i = 0; i < WARMUP_CALLS; i++) {
        if (refill) TRY(hst_array_random(src, HST_RANDOM_UNIFORM, SEED_TIMED, 0));
        TRY(hst_array_fft(dst, src, r->axes, inverse, HST_FFT_NORM_BACKWARD));
    }
    for (i = 0; i < reps; i++) {
        double t0;
        if (refill) TRY(hst_array_random(src, HST_RANDOM_UNIFORM, SEED_TIMED, 0));
        TRY(hst_queue_finish(hst_backend_queue(be)));
        t0 = now_s();
        TRY(hst_array_fft(dst, src, r->axes, inverse, HST_FFT_NORM_BACKWARD));
        TRY(hst_queue_finish(hst_backend_queue(be)));
        t[i] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    *median_s = t[reps / 2];
done:
    return res;
}

/* Relative L2 distance of two host copies of n scalars (float or double). */
static double rel_l2(const void *a, const void *b, size_t n, int f64) {
    double err = 0.0, norm = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = f64 ? ((const double *)a)[i] : (double)((const float *)a)[i];
        double y = f64 ? ((const double *)b)[i] : (double)((const float *)b)[i];
        err += (x - y) * (x - y);
        norm += x * x;
    }
    return norm > 0.0 ? sqrt(err / norm) : sqrt(err);
}

/* The round trip: x (c2c: forward then inverse in place; else x real, r2c into y, c2r back)
   gives a fresh random x back. */
static hst_result round_trip(const row *r, hst_array *x, hst_array *y, double *err,
                             const char **what) {
    size_t bytes = hst_array_bytes(x);
    size_t scalars = bytes / (r->f64 ? sizeof(double) : sizeof(float));
    void *a = malloc(bytes), *b = malloc(bytes);
    hst_result res = HST_SUCCESS;
    if (!a || !b) {
        res = HST_ERROR_OUT_OF_HOST_MEMORY;
        *what = "malloc (round trip copies)";
        goto done;
    }
    TRY(hst_array_random(x, HST_RANDOM_UNIFORM, SEED_CHECK, 0));
    TRY(hst_array_read(x, a, bytes));
    if (r->kind == C2C) {
        TRY(hst_array_fft(x, x, r->axes, 0, HST_FFT_NORM_BACKWARD));
        TRY(hst_array_fft(x, x, r->axes, 1, HST_FFT_NORM_BACKWARD));
    } else {
        TRY(hst_array_fft(y, x, r->axes, 0, HST_FFT_NORM_BACKWARD));
        TRY(hst_array_fft(x, y, r->axes, 1, HST_FFT_NORM_BACKWARD));
    }
    TRY(hst_array_read(x, b, bytes));
    *err = rel_l2(a, b, scalars, r->f64);
done:
    free(a);
    free(b);
    return res;
}

/* Measures one row: its time and round trip, or why not (r->skipped, r->failed, r->note). */
static void measure_row(hst_backend *be, row *r, int reps) {
    hst_dtype real = r->f64 ? HST_F64 : HST_F32, cplx = r->f64 ? HST_C128 : HST_C64;
    size_t bins[MAX_DIMS];
    hst_array *x = NULL, *y = NULL;
    const char *failed_call = NULL, **what = &failed_call;
    hst_result res = HST_SUCCESS;
    if (r->f64 && !hst_backend_device(be)->fp64) {
        r->skipped = 1;
        snprintf(r->note, sizeof r->note, "skipped: the device has no fp64");
        return;
    }
    memcpy(bins, r->shape, sizeof bins);
    bins[r->ndim - 1] = r->shape[r->ndim - 1] / 2 + 1;
    if (r->kind == C2C) {
        TRY(hst_array_create(be, cplx, r->ndim, r->shape, &x));
        res = time_calls(be, r, x, x, 0, 1, reps, &r->ours_s, what);
        if (res != HST_SUCCESS) goto done;
    } else {
        TRY(hst_array_create(be, real, r->ndim, r->shape, &x));
        TRY(hst_array_create(be, cplx, r->ndim, bins, &y));
        TRY(hst_array_random(x, HST_RANDOM_UNIFORM, SEED_TIMED, 0));
        if (r->kind == R2C) res = time_calls(be, r, y, x, 0, 0, reps, &r->ours_s, what);
        else {
            TRY(hst_array_fft(y, x, r->axes, 0, HST_FFT_NORM_BACKWARD));   /* a Hermitian input */
            res = time_calls(be, r, x, y, 1, 0, reps, &r->ours_s, what);
        }
        if (res != HST_SUCCESS) goto done;
    }
    res = round_trip(r, x, y, &r->err, what);
done:
    hst_array_destroy(y);
    hst_array_destroy(x);
    hst_pool_free_held(hst_backend_pool(be));
    if (res != HST_SUCCESS) {
        r->ours_s = 0.0;
        r->err = -1.0;
        if (is_memory_error(res)) r->skipped = 1;
        else r->failed = 1;
        snprintf(r->note, sizeof r->note, "%s: %s: %s", r->skipped ? "skipped" : "FAILED",
                 failed_call ? failed_call : "?", hst_result_string(res));
    } else if (!(r->err <= (r->f64 ? TOL_F64 : TOL_F32))) {
        r->failed = 1;
        snprintf(r->note, sizeof r->note, "FAILED: round trip error %.3g > %.0e", r->err,
                 r->f64 ? TOL_F64 : TOL_F32);
    }
}

/* The peer's median per row (seconds) into rows[i].peer_s, 0 where it gave none; its other
   lines (versions, a row it could not run, "unavailable <why>") are echoed. */
static void run_peer(const char *peer, int reps, row *rows, int nrows) {
    char line[512];
    size_t cap = 64, len;
    char *cmd;
    FILE *p;
    int i;
    if (!strcmp(peer, "none")) return;
    for (i = 0; i < nrows; i++) cap += strlen(rows[i].spec) + 1;
    if (!(cmd = (char *)malloc(cap))) { printf("peer %s: out of host memory\n", peer); return; }
    snprintf(cmd, cap, "python3 bench/fft_peer.py %s %d", peer, reps);
    for (i = 0; i < nrows; i++) {
        len = strlen(cmd);
        snprintf(cmd + len, cap - len, " %s", rows[i].spec);
    }
    fflush(stdout);   /* the peer's stderr lands in order */
    p = popen(cmd, "r");
    free(cmd);
    if (!p) { printf("peer %s: could not start python3\n", peer); return; }
    while (fgets(line, sizeof line, p)) {
        char spec[64], rest[8];
        double s;
        int matched = 0;
        if (sscanf(line, "%63s %lf %7s", spec, &s, rest) == 2)
            for (i = 0; i < nrows; i++)
                if (!strcmp(spec, rows[i].spec)) { rows[i].peer_s = s; matched = 1; }
        if (!matched) printf("peer %s: %s", peer, line);
    }
    if (pclose(p) != 0) printf("peer %s: python3 bench/fft_peer.py exited with an error\n", peer);
}

static void print_table(const char *peer, const row *rows, int nrows) {
    int i;
    printf("\n| transform | ours (ms) | GFLOP/s | %s (ms) | %s GFLOP/s | ratio %s/ours | round trip "
           "| note |\n|---|---|---|---|---|---|---|---|\n", peer, peer, peer);
    for (i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        double flops = row_flops(r);
        printf("| %s | ", r->spec);
        if (r->ours_s > 0) printf("%.3f | %.0f | ", r->ours_s * 1e3, flops / r->ours_s * 1e-9);
        else printf("- | - | ");
        if (r->peer_s > 0) printf("%.3f | %.0f | ", r->peer_s * 1e3, flops / r->peer_s * 1e-9);
        else printf("n/a | n/a | ");
        if (r->peer_s > 0 && r->ours_s > 0) printf("%.2f | ", r->peer_s / r->ours_s);
        else printf("n/a | ");
        if (r->err >= 0) printf("%.1e | ", r->err);
        else printf("- | ");
        printf("%s |\n", r->note);
    }
}

/* The last line: rows at the goal, the worst ratio and its row; exits 1 after a failed row. */
static int print_summary(const char *peer, const row *rows, int nrows) {
    int i, at_goal = 0, compared = 0, skipped = 0, failed = 0, worst = -1;
    double worst_ratio = 0.0;
    for (i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        double ratio;
        skipped += r->skipped;
        failed += r->failed;
        if (r->skipped || r->failed || !(r->ours_s > 0 && r->peer_s > 0)) continue;
        ratio = r->peer_s / r->ours_s;
        compared++;
        if (ratio >= GOAL_RATIO) at_goal++;
        if (worst < 0 || ratio < worst_ratio) { worst = i; worst_ratio = ratio; }
    }
    printf("\nsummary: %d of %d rows at >= %.1fx %s (%d compared, %d skipped, %d failed)",
           at_goal, nrows, GOAL_RATIO, peer, compared, skipped, failed);
    if (worst >= 0) printf("; worst %.2fx: %s\n", worst_ratio, rows[worst].spec);
    else printf("; no ratio\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    hst_backend_desc desc;
    hst_backend *be;
    static row rows[MAX_ROWS];
    const char *peer = NULL, *only = NULL;
    int reps = DEFAULT_REPS, small = 0, nrows = 0, i, p;
    memset(&desc, 0, sizeof desc);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) desc.device = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc) peer = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--small")) small = 1;
        else if (argv[i][0] != '-') desc.device = argv[i];
        else {
            fprintf(stderr, "usage: %s [S | --device S] [--reps N] [--small] "
                    "[--peer cupy|numpy|none] [--only TEXT]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS) { fprintf(stderr, "--reps: 1..%d\n", MAX_REPS); return 2; }
    for (i = 0; i < (int)N_DEFS; i++)
        for (p = 0; p < 2; p++) {
            if (!(ROWS[i].precisions & (p ? F64 : F32))) continue;
            row_init(&rows[nrows], &ROWS[i], small, p);
            if (!only || strstr(rows[nrows].spec, only)) nrows++;
        }
    if (!nrows) {
        fprintf(stderr, "--only %s: no row's name contains it\n", only);
        return 2;
    }
    CHECK(hst_backend_create(&desc, &be));
    if (!peer) peer = hst_backend_device(be)->type == HST_DEVICE_GPU ? "cupy" : "numpy";
    printf("device: %s (%s); %d rows, median of %d calls each\n", hst_backend_device(be)->name,
           hst_backend_device(be)->selector, nrows, reps);
    for (i = 0; i < nrows; i++) {   /* progress, so a job cut short still has its figures */
        measure_row(be, &rows[i], reps);
        printf("[%2d/%d] %-26s ", i + 1, nrows, rows[i].spec);
        if (rows[i].err >= 0)
            printf("ours %9.3f ms  round trip %8.1e  ", rows[i].ours_s * 1e3, rows[i].err);
        printf("%s\n", rows[i].note);
        fflush(stdout);
    }
    CHECK(hst_backend_destroy(be));   /* frees the device memory before the peer allocates its own */
    run_peer(peer, reps, rows, nrows);
    print_table(peer, rows, nrows);
    return print_summary(peer, rows, nrows);
}
