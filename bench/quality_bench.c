/* quality_bench.c — quality.h's metrics: the time of an error map and of an FRC of a large
   image on one device, and (for bench/quality_nanopyx.py) the metrics of given images.

       quality_bench [--device S] [--size N] [--mag M] [--reps R]
       quality_bench [--device S] --metrics DIR
       quality_bench [--device S] --batch B [--size N] [--mag M] [--reps R]
       quality_bench [--device S] --decorr [--shape RxC] [--reps R]

   Speed mode: an SR image of N x N (default 5000) pixels, Gaussian spots (sigma 2.5 pixels) on
   a noisy background, against its widefield reference: the same spots with sigma 4.717, each
   reference pixel the mean of M x M SR pixels (default 5: N / M pixels a side), so that the
   fitted sigma is near 4 SR pixels (an interior optimum, as in real data); FRC of two independently noisy copies of the SR image. Each figure is the median of R
   (default 5) whole calls (host images in, numbers and the error map out: uploads, kernels,
   FFTs, optimiser, downloads) after a warm-up call that builds the programs and FFT plans.
   The error map's sigma is optimised (NanoPyx's default); the evaluation count is printed, and
   the same call with the fitted sigma given (fixed_sigma: no search; uploads, the reference's
   interpolation, one fit and the map), whose difference is the sigma search's time.
   For scale, the time of one image's upload and download (hst_array_from_host + read) too:
   the error map moves its two images up and the map down, the FRC two images up.

   Batch mode (the eSRRF parameter sweep's scores: B = 9 images of 1280 x 1280 against one
   256 x 256 reference, --size 1280 --mag 5): B SR images (the speed mode's, each its own
   noise) scored one by one (B hst_error_map and B hst_frc calls, pairs of two noises) and as
   batches (hst_error_map_batch, hst_frc_batch) from host memory and from a device buffer
   (the images already there, as the sweep makes them), medians of R in the same run; the
   batches' numbers are checked equal to the single calls' bit for bit.

   Decorrelation mode: hst_decorr (NanoPyx's defaults) at 512 x 512, 1024 x 1024, 2048 x 2048
   and a 2 x 5000 strip (padded to an 8192 x 8192 square, as NanoPyx pads), or at the one
   --shape given, of two images each: the speed mode's SR scene (spots on a noisy background:
   a curve with a maximum, kc0 near 0.2, so the high-pass sigmas stay below 2 / kc0 = 10
   pixels) and uniform white noise (no maximum: kc0 0, so the sigmas reach N / 2 pixels, the
   widest filters NanoPyx asks for). One row per image: the median of R (default 3) whole
   calls after a warm-up call on a 256 x 256 image (the program), with the resolution and
   kc_max, so a change of speed is seen with its numbers.

   Metrics mode: DIR/inputs.txt lists `ref R C`, `sr R C`, `frc_a R C`, `frc_b R C`,
   `decorr R C` (any subset); each names DIR/<name>.f32 (float32, C order). Prints one line per
   metric with its numbers and seconds (one call, after a warm-up call of the same metric) and
   writes the error map to DIR/hst_error_map.f32.

   Build (needs FFTW and VkFFT headers): make build/bench/quality_bench */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "quality.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SIZE 5000
#define DEFAULT_MAG 5
#define DEFAULT_REPS 5
#define MAX_REPS 100
#define SPOT_SPACING 37      /* SR pixels between spots */
#define SPOT_SIGMA 2.5       /* SR pixels */
#define WIDEFIELD_SIGMA 4.717 /* SR pixels: sqrt(2.5^2 + 4^2) */
#define MAX_INPUTS 8

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* Gaussian spots of width `sigma` every SPOT_SPACING pixels on a background of 100, at (x, y). */
static double scene(double x, double y, double sigma) {
    double dx = fmod(x, SPOT_SPACING) - SPOT_SPACING / 2.0, dy = fmod(y, SPOT_SPACING) - SPOT_SPACING / 2.0;
    return 100.0 + 1000.0 * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
}

/* The SR image (rows, cols): the scene with spots of SPOT_SIGMA, plus uniform noise of
   amplitude `noise`. */
static float *synthetic_rect(size_t rows, size_t cols, uint32_t seed, double noise) {
    float *p = (float *)malloc(rows * cols * sizeof(float));
    size_t x, y;
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++)
            p[y * cols + x] = (float)(scene((double)x, (double)y, SPOT_SIGMA) +
                                      noise * ((lcg(&seed) >> 8) / 16777216.0 - 0.5));
    return p;
}

static float *synthetic(size_t n, uint32_t seed, double noise) { return synthetic_rect(n, n, seed, noise); }

/* The widefield reference: the scene with spots of WIDEFIELD_SIGMA (SR pixels), each reference
   pixel the mean over its m x m SR pixels. The error map's sigma should come out near
   sqrt(WIDEFIELD_SIGMA^2 - SPOT_SIGMA^2) = 4 SR pixels. */
static float *widefield(size_t n, size_t m) {
    size_t k = n / m, x, y, i, j;
    float *p = (float *)calloc(k * k, sizeof(float));
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (y = 0; y < k; y++)
        for (x = 0; x < k; x++) {
            double s = 0.0;
            for (j = 0; j < m; j++)
                for (i = 0; i < m; i++)
                    s += scene((double)(x * m + i), (double)(y * m + j), WIDEFIELD_SIGMA);
            p[y * k + x] = (float)(s / (double)(m * m));
        }
    return p;
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    return t[n / 2];
}

static void speed(hst_backend *be, size_t n, size_t mag, int reps) {
    float *sr = synthetic(n, 1u, 50.0), *sr2 = synthetic(n, 2u, 50.0), *ref, *map;
    double tem[MAX_REPS], tfix[MAX_REPS], tfrc[MAX_REPS], tcopy[MAX_REPS], t0;
    hst_error_map_result em, ef;
    hst_error_map_desc fixed;
    hst_frc_result fr;
    int i;
    n = n / mag * mag;
    ref = widefield(n, mag);
    if (!(map = (float *)malloc(n * n * sizeof(float)))) { fprintf(stderr, "out of memory\n"); exit(1); }
    CHECK(hst_error_map(be, ref, n / mag, n / mag, sr, n, n, NULL, map, &em));   /* warm-up */
    CHECK(hst_frc(be, sr, sr2, n, n, NULL, NULL, &fr));
    memset(&fixed, 0, sizeof fixed);
    fixed.fixed_sigma = em.sigma > 0.0 ? em.sigma / (double)mag : 1e-6;   /* reference pixels */
    for (i = 0; i < reps; i++) {
        t0 = now_s();
        CHECK(hst_error_map(be, ref, n / mag, n / mag, sr, n, n, NULL, map, &em));
        tem[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_error_map(be, ref, n / mag, n / mag, sr, n, n, &fixed, map, &ef));
        tfix[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_frc(be, sr, sr2, n, n, NULL, NULL, &fr));
        tfrc[i] = now_s() - t0;
    }
    for (i = 0; i < reps; i++) {   /* the PCIe share: one image up and down */
        hst_array *a;
        size_t shape[2];
        shape[0] = shape[1] = n;
        t0 = now_s();
        CHECK(hst_array_from_host(be, HST_F32, 2, shape, sr, &a));
        CHECK(hst_array_read(a, map, n * n * sizeof(float)));
        tcopy[i] = now_s() - t0;
        hst_array_destroy(a);
    }
    printf("device: %s\n", hst_backend_device(be)->name);
    printf("one %zu x %zu float image up and back down (pageable host memory): %.2f ms\n", n, n,
           1e3 * median(tcopy, reps));
    printf("error map %zu x %zu against %zu x %zu (mag %zu): %.2f ms median of %d "
           "(RSE %.4g, RSP %.6f, sigma %.4f, %u evaluations)\n",
           n, n, n / mag, n / mag, mag, 1e3 * median(tem, reps), reps, em.rse, em.rsp, em.sigma,
           em.evaluations);
    printf("  the same with sigma given (no search): %.2f ms median of %d (RSE %.4g)\n",
           1e3 * median(tfix, reps), reps, ef.rse);
    printf("FRC %zu x %zu: %.2f ms median of %d (FIRE %.4f pixels)\n", n, n,
           1e3 * median(tfrc, reps), reps, fr.resolution);
    free(sr); free(sr2); free(ref); free(map);
}

/* The batch mode (see the top). */
static void batch(hst_backend *be, size_t n, size_t mag, int count, int reps) {
    float **sr = (float **)calloc((size_t)count, sizeof *sr), **sr2 = (float **)calloc((size_t)count, sizeof *sr2), *ref;
    hst_error_map_result *one = (hst_error_map_result *)calloc((size_t)count, sizeof *one);
    hst_error_map_result *em = (hst_error_map_result *)calloc((size_t)count, sizeof *em);
    hst_frc_result *f1 = (hst_frc_result *)calloc((size_t)count, sizeof *f1);
    hst_frc_result *fb = (hst_frc_result *)calloc((size_t)count, sizeof *fb);
    double t1[MAX_REPS], tb[MAX_REPS], td[MAX_REPS], f1t[MAX_REPS], fbt[MAX_REPS], fdt[MAX_REPS], t0;
    hst_image_batch ha, hb, da, db;
    hst_buffer *bufa, *bufb;
    size_t bytes;
    int i, k, same = 1;
    if (!sr || !sr2 || !one || !em || !f1 || !fb) { fprintf(stderr, "out of memory\n"); exit(1); }
    n = n / mag * mag;
    bytes = n * n * sizeof(float);
    ref = widefield(n, mag);
    for (k = 0; k < count; k++) { sr[k] = synthetic(n, 1u + 2u * k, 50.0); sr2[k] = synthetic(n, 2u + 2u * k, 50.0); }
    CHECK(hst_buffer_create(be, (size_t)count * bytes, 0, &bufa));
    CHECK(hst_buffer_create(be, (size_t)count * bytes, 0, &bufb));
    for (k = 0; k < count; k++) {
        CHECK(hst_write(hst_backend_queue(be), bufa, (size_t)k * bytes, sr[k], bytes, 1, 0, NULL, NULL));
        CHECK(hst_write(hst_backend_queue(be), bufb, (size_t)k * bytes, sr2[k], bytes, 1, 0, NULL, NULL));
    }
    memset(&ha, 0, sizeof ha); memset(&hb, 0, sizeof hb); memset(&da, 0, sizeof da); memset(&db, 0, sizeof db);
    ha.host = (const float *const *)sr; hb.host = (const float *const *)sr2;
    da.buf = bufa; da.stride_bytes = bytes; db.buf = bufb; db.stride_bytes = bytes;
    CHECK(hst_error_map_batch(be, ref, n / mag, n / mag, &da, (size_t)count, n, n, NULL, NULL, em));   /* warm-up */
    CHECK(hst_frc_batch(be, &da, &db, (size_t)count, n, n, NULL, NULL, fb));
    for (i = 0; i < reps; i++) {
        t0 = now_s();
        for (k = 0; k < count; k++) CHECK(hst_error_map(be, ref, n / mag, n / mag, sr[k], n, n, NULL, NULL, &one[k]));
        t1[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_error_map_batch(be, ref, n / mag, n / mag, &ha, (size_t)count, n, n, NULL, NULL, em));
        tb[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_error_map_batch(be, ref, n / mag, n / mag, &da, (size_t)count, n, n, NULL, NULL, em));
        td[i] = now_s() - t0;
        t0 = now_s();
        for (k = 0; k < count; k++) CHECK(hst_frc(be, sr[k], sr2[k], n, n, NULL, NULL, &f1[k]));
        f1t[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_frc_batch(be, &ha, &hb, (size_t)count, n, n, NULL, NULL, fb));
        fbt[i] = now_s() - t0;
        t0 = now_s();
        CHECK(hst_frc_batch(be, &da, &db, (size_t)count, n, n, NULL, NULL, fb));
        fdt[i] = now_s() - t0;
    }
    for (k = 0; k < count; k++)
        same &= !memcmp(&one[k].rsp, &em[k].rsp, sizeof(double)) && !memcmp(&one[k].sigma, &em[k].sigma, sizeof(double)) &&
                !memcmp(&f1[k].resolution, &fb[k].resolution, sizeof(double));
    printf("device: %s\n", hst_backend_device(be)->name);
    printf("%d error maps %zu x %zu against one %zu x %zu (mag %zu), medians of %d:\n", count, n, n, n / mag,
           n / mag, mag, reps);
    printf("  one by one %.2f ms, batch from host %.2f ms, batch from the device %.2f ms (%.1fx)\n",
           1e3 * median(t1, reps), 1e3 * median(tb, reps), 1e3 * median(td, reps), median(t1, reps) / median(td, reps));
    printf("%d FRC pairs %zu x %zu:\n  one by one %.2f ms, batch from host %.2f ms, batch from the device %.2f ms (%.1fx)\n",
           count, n, n, 1e3 * median(f1t, reps), 1e3 * median(fbt, reps), 1e3 * median(fdt, reps),
           median(f1t, reps) / median(fdt, reps));
    printf("image 0: RSP %.6f, sigma %.4f (%u evaluations), FIRE %.4f pixels; batch == one by one, bit for bit: %s\n",
           em[0].rsp, em[0].sigma, em[0].evaluations, fb[0].resolution, same ? "yes" : "NO");
    hst_buffer_destroy(bufa); hst_buffer_destroy(bufb);
    for (k = 0; k < count; k++) { free(sr[k]); free(sr2[k]); }
    free(sr); free(sr2); free(ref); free(one); free(em); free(f1); free(fb);
    if (!same) exit(1);
}

/* >>decorrelation mode */
#define DECORR_REPS 3
#define DECORR_WARMUP_SIDE 256

/* One row: hst_decorr of the scene (noise 0) or of white noise (noise 1) at rows x cols, the
   median of reps calls. */
static void decorr_row(hst_backend *be, size_t rows, size_t cols, int noise, int reps) {
    float *img = synthetic_rect(rows, cols, 3u, 50.0);
    double t[MAX_REPS], t0;
    uint32_t seed = 5u;
    size_t k;
    hst_decorr_result dr;
    int i;
    memset(&dr, 0, sizeof dr);
    for (k = 0; noise && k < rows * cols; k++) img[k] = (float)((lcg(&seed) >> 8) / 16777216.0);
    for (i = 0; i < reps; i++) {
        t0 = now_s();
        CHECK(hst_decorr(be, img, rows, cols, NULL, &dr));
        t[i] = now_s() - t0;
    }
    printf("decorrelation %-5s %5zu x %-5zu %10.3f s median of %d (resolution %.6g pixels, kc_max %.6g, kc0 %.6g)\n",
           noise ? "noise" : "spots", rows, cols, median(t, reps), reps, dr.resolution, dr.kc_max, dr.kc0);
    fflush(stdout);
    free(img);
}

/* The decorrelation mode (see the top): shape 0 x 0 runs the four default shapes. */
static void decorr(hst_backend *be, size_t rows, size_t cols, int reps) {
    static const size_t shapes[4][2] = {{512, 512}, {1024, 1024}, {2048, 2048}, {2, 5000}};
    float *warm = synthetic(DECORR_WARMUP_SIDE, 9u, 50.0);
    hst_decorr_result dr;
    int i, noise;
    CHECK(hst_decorr(be, warm, DECORR_WARMUP_SIDE, DECORR_WARMUP_SIDE, NULL, &dr));
    free(warm);
    printf("device: %s\n", hst_backend_device(be)->name);
    for (i = 0; i < 4; i++)
        for (noise = 0; noise < 2; noise++)
            if (!rows) decorr_row(be, shapes[i][0], shapes[i][1], noise, reps);
            else if (i == 0) decorr_row(be, rows, cols, noise, reps);
}

/* >>metrics mode */
typedef struct input { char name[32]; size_t rows, cols; float *data; } input;

static float *read_f32(const char *dir, const char *name, size_t n) {
    char path[1024];
    float *p = (float *)malloc(n * sizeof(float));
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.f32", dir, name);
    if (!p || !(f = fopen(path, "rb")) || fread(p, sizeof(float), n, f) != n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return p;
}

static const input *find(const input *in, int n, const char *name) {
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(in[i].name, name)) return &in[i];
    return NULL;
}

static void metrics(hst_backend *be, const char *dir) {
    input in[MAX_INPUTS];
    int n = 0, i;
    char path[1024];
    const input *ref, *sr, *fa, *fb, *dc;
    FILE *f;
    double t0;
    snprintf(path, sizeof path, "%s/inputs.txt", dir);
    if (!(f = fopen(path, "r"))) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
    while (n < MAX_INPUTS && fscanf(f, "%31s %zu %zu", in[n].name, &in[n].rows, &in[n].cols) == 3)
        n++;
    fclose(f);
    for (i = 0; i < n; i++) in[i].data = read_f32(dir, in[i].name, in[i].rows * in[i].cols);
    printf("device %s\n", hst_backend_device(be)->name);
    if ((ref = find(in, n, "ref")) && (sr = find(in, n, "sr"))) {
        hst_error_map_result em;
        float *map = (float *)malloc(sr->rows * sr->cols * sizeof(float));
        if (!map) exit(1);
        CHECK(hst_error_map(be, ref->data, ref->rows, ref->cols, sr->data, sr->rows, sr->cols,
                            NULL, map, &em));
        t0 = now_s();
        CHECK(hst_error_map(be, ref->data, ref->rows, ref->cols, sr->data, sr->rows, sr->cols,
                            NULL, map, &em));
        printf("error_map rse %.9g rsp %.9g sigma %.9g alpha %.9g beta %.9g evaluations %u "
               "seconds %.6f\n", em.rse, em.rsp, em.sigma, em.alpha, em.beta, em.evaluations,
               now_s() - t0);
        snprintf(path, sizeof path, "%s/hst_error_map.f32", dir);
        if (!(f = fopen(path, "wb")) || fwrite(map, sizeof(float), sr->rows * sr->cols, f) !=
                                            sr->rows * sr->cols)
            exit(1);
        fclose(f);
        free(map);
    }
    if ((fa = find(in, n, "frc_a")) && (fb = find(in, n, "frc_b"))) {
        hst_frc_result fr;
        CHECK(hst_frc(be, fa->data, fb->data, fa->rows, fa->cols, NULL, NULL, &fr));
        t0 = now_s();
        CHECK(hst_frc(be, fa->data, fb->data, fa->rows, fa->cols, NULL, NULL, &fr));
        printf("frc fire %.9g seconds %.6f\n", fr.resolution, now_s() - t0);
    }
    if ((dc = find(in, n, "decorr"))) {
        hst_decorr_result dr;
        CHECK(hst_decorr(be, dc->data, dc->rows, dc->cols, NULL, &dr));
        t0 = now_s();
        CHECK(hst_decorr(be, dc->data, dc->rows, dc->cols, NULL, &dr));
        printf("decorr resolution %.9g kc_max %.9g a_max %.9g kc0 %.9g seconds %.6f\n",
               dr.resolution, dr.kc_max, dr.a_max, dr.kc0, now_s() - t0);
    }
    for (i = 0; i < n; i++) free(in[i].data);
}

int main(int argc, char **argv) {
    hst_backend_desc desc;
    hst_backend *be;
    size_t size = DEFAULT_SIZE, mag = DEFAULT_MAG;
    size_t rows = 0, cols = 0;
    int reps = 0, i, count = 0, dc = 0;
    const char *dir = NULL;
    memset(&desc, 0, sizeof desc);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) desc.device = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) size = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--mag") && i + 1 < argc) mag = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--metrics") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc) count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--decorr")) dc = 1;
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            if (sscanf(argv[++i], "%zux%zu", &rows, &cols) != 2 || rows < 2 || cols < 2) {
                fprintf(stderr, "--shape takes ROWSxCOLS, each >= 2\n");
                return 2;
            }
        }
        else { fprintf(stderr, "usage: see the top of bench/quality_bench.c\n"); return 2; }
    }
    if (!reps) reps = dc ? DECORR_REPS : DEFAULT_REPS;
    if (reps < 1 || reps > MAX_REPS || mag < 1 || size < 10 * mag || count < 0 || count > 64) {
        fprintf(stderr, "bad --reps, --mag, --size or --batch (1..64)\n");
        return 2;
    }
    CHECK(hst_backend_create(&desc, &be));
    if (dc) decorr(be, rows, cols, reps);
    else if (dir) metrics(be, dir);
    else if (count) batch(be, size, mag, count, reps);
    else speed(be, size, mag, reps);
    CHECK(hst_backend_destroy(be));
    return 0;
}
