/* mri_cartesian.c — PyQMRI's Cartesian multi-coil MRI operator (forward and adjoint) streamed
   through stream.h over a generated volume larger than the device memory budget, with the
   checks that make it trustworthy and the norms of PyQMRI's evalwithnorm.

       mri_cartesian [options]

   Per slice z:  forward  y[z, c] = M .* F(S[z, c] .* x[z])       (F: orthonormal 2-D DFT)
                 adjoint  x[z]    = sum_c conj(S[z, c]) .* F^H(M .* y[z, c])
   F is the library's FFT, array.h's hst_array_fft (FFTW on the host device, VkFFT on OpenCL
   devices), called by stream stages on views of each block's device memory (examples/mri_op.h
   has the operator, its layout and how the FFT runs inside the stream).

   It generates a 3-D phantom x (N, ny, nx) complex64, smooth coil maps S (N, C, ny, nx)
   normalised to sum_c |S_c|^2 = 1, and a variable-density Cartesian mask M (ny, nx) that keeps
   whole phase-encoding rows, about one in --accel; the measured k-space is y = A x plus complex
   Gaussian noise on the sampled entries. Then, streamed in blocks of slices under --budget:
     1. y_obs = A x + noise; A x again with the evalwithnorm accumulators (||x||^2, ||A x||^2
        and ||A x - y_obs||^2, summed on the device), and A^H y_obs (||y_obs||^2,
        ||A^H y_obs||^2, ||A^H y_obs - x||^2);
     2. checks, each printed with its tolerance:
        adjoint    |<A x, y> - <x, A^H y>| / (||A x|| ||y||) <= 1e-5 (float32 FFTs: the
                   mismatch is float rounding only; tests/test_mri.c explains the figure)
        streamed   the same runs unstreamed (one block of all N slices): the same bits, outputs
                   and accumulators
        norms      the accumulators against direct double sums on the host: 1e-9 relative
                   (1e-4 on a device without fp64, which accumulates in float)
        numpy      the same operator on whole arrays through array.h's hst_array_fft (FFTW
                   on the host device, VkFFT on OpenCL devices), numpy.fft's semantics:
                   16 log2(2 ny nx) 2^-24 relative (two float FFTs' error bounds); skipped with
                   --no-reference (it holds the whole volume on the device)

   Options
     --device S     device selector (default $HST_DEVICE, else auto; `host` runs the C twins)
     --slices N     slices (default 64)          --coils C    coils (default 8)
     --ny R         rows, any length (128)       --nx K       columns, any length (128)
     --budget B     device bytes for a stream's blocks (suffix k, M or G: 1024-based; default
                    32M, an eighth of the default volume's arrays); on the host device it bounds
                    one block's scratch
     --block S      owned slices per block (default: the stream's choice within the budget)
     --accel R      undersampling: about ny/R rows sampled (default 3)
     --noise F      noise standard deviation, as a fraction of the rms of the sampled k-space
                    (default 0.02)
     --seed S       seed of the mask and the noise (default 1)
     --no-reference skip the hst_array_fft comparison

   Exit status 0 when every check passes, 1 on errors (options, memory, device), 2 when a check
   fails.

   Build: make examples (links -lfftw3f -lfftw3: HST_FFT is defined below), or
     cc -std=c99 -O2 -I. examples/mri_cartesian.c -o mri_cartesian -lfftw3f -lfftw3 -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_FFT
#include "array.h"
#include "stream.h"
#include "mri_op.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ADJ_TOL 1e-5
#define NORM_TOL_F64 1e-9
#define NORM_TOL_F32 1e-4
#define EPS32 (1.0 / 16777216.0)
#define MIB (1024.0 * 1024.0)

typedef struct options {
    const char *device;
    mri_dims d;
    uint64_t budget, block, seed;
    double accel, noise;
    int reference;
} options;

/* The host arrays: inputs, the streamed outputs, the unstreamed ones, the reference's. */
typedef struct arrays {
    size_t n_x, n_k;                 /* complex elements of the image and k-space volumes */
    float *x, *coils, *mask, *y_obs, *ax, *ahy, *ax1, *ahy1, *ref_k, *ref_x;
} arrays;

static void usage(FILE *f)
{
    fprintf(f, "usage: mri_cartesian [--device S] [--slices N] [--coils C] [--ny R] [--nx K]\n"
               "                     [--budget BYTES[k|M|G]] [--block S] [--accel R] [--noise F]\n"
               "                     [--seed S] [--no-reference]\n");
}

/* An unsigned integer with an optional 1024-based suffix; 0 on success. */
static int parse_u64(const char *s, uint64_t *out, int suffix)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return 1;
    if (suffix && *end) {
        unsigned shift = *end == 'k' || *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 64;
        if (shift == 64 || end[1] || v > (UINT64_MAX >> shift)) return 1;
        v <<= shift;
        end++;
    }
    *out = v;
    return *end != '\0';
}

static int parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (parse_u64(s, &v, 0) || v > UINT32_MAX) return 1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end == s || *end != '\0' || !(*out >= 0.0);
}

static int known_option(const char *a)
{
    static const char *const names[] = {"--device", "--slices", "--coils", "--ny", "--nx", "--budget",
                                        "--block", "--accel", "--noise", "--seed"};
    size_t k;
    for (k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(a, names[k])) return 1;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    int i, bad = 0;
    memset(o, 0, sizeof *o);
    o->d.slices = 64; o->d.coils = 8; o->d.ny = 128; o->d.nx = 128;
    o->budget = (uint64_t)32 << 20;
    o->seed = 1; o->accel = 3.0; o->noise = 0.02; o->reference = 1;
    for (i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
        if (!strcmp(a, "--no-reference")) { o->reference = 0; continue; }
        if (!known_option(a)) {
            fprintf(stderr, "mri_cartesian: unknown option %s\n", a);
            usage(stderr);
            return 1;
        }
        if (!v) { fprintf(stderr, "mri_cartesian: %s needs a value\n", a); return 1; }
        i++;
        if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--slices")) bad = parse_u64(v, &o->d.slices, 0) || o->d.slices == 0;
        else if (!strcmp(a, "--coils")) bad = parse_u32(v, &o->d.coils);
        else if (!strcmp(a, "--ny")) bad = parse_u32(v, &o->d.ny);
        else if (!strcmp(a, "--nx")) bad = parse_u32(v, &o->d.nx);
        else if (!strcmp(a, "--budget")) bad = parse_u64(v, &o->budget, 1);
        else if (!strcmp(a, "--block")) bad = parse_u64(v, &o->block, 0);
        else if (!strcmp(a, "--accel")) bad = parse_double(v, &o->accel) || o->accel < 1.0;
        else if (!strcmp(a, "--noise")) bad = parse_double(v, &o->noise);
        else if (!strcmp(a, "--seed")) bad = parse_u64(v, &o->seed, 0);
        if (bad) fprintf(stderr, "mri_cartesian: bad value '%s' for %s\n", v, a);
    }
    return bad;
}

/* ------------------------------------------------------------------ data */

static float *falloc(size_t n, const char *what)
{
    float *p = n <= SIZE_MAX / sizeof(float) ? (float *)calloc(n, sizeof(float)) : NULL;
    if (!p) fprintf(stderr, "mri_cartesian: out of host memory for %s (%.1f MiB)\n", what, (double)n * 4 / MIB);
    return p;
}

static void arrays_free(arrays *a)
{
    free(a->x); free(a->coils); free(a->mask); free(a->y_obs); free(a->ax); free(a->ahy);
    free(a->ax1); free(a->ahy1); free(a->ref_k); free(a->ref_x);
}

static int arrays_alloc(arrays *a, const options *o)
{
    const mri_dims *d = &o->d;
    memset(a, 0, sizeof *a);
    a->n_x = (size_t)d->slices * d->ny * d->nx;
    a->n_k = a->n_x * d->coils;
    if (!(a->x = falloc(2 * a->n_x, "x")) || !(a->coils = falloc(2 * a->n_k, "the coil maps")) ||
        !(a->mask = falloc((size_t)d->ny * d->nx, "the mask")) || !(a->y_obs = falloc(2 * a->n_k, "k-space")) ||
        !(a->ax = falloc(2 * a->n_k, "A x")) || !(a->ahy = falloc(2 * a->n_x, "A^H y")) ||
        !(a->ax1 = falloc(2 * a->n_k, "the unstreamed A x")) || !(a->ahy1 = falloc(2 * a->n_x, "the unstreamed A^H y")))
        return 1;
    if (o->reference && (!(a->ref_k = falloc(2 * a->n_k, "the reference A x")) ||
                         !(a->ref_x = falloc(2 * a->n_x, "the reference A^H y"))))
        return 1;
    return 0;
}

/* y_obs += noise on the sampled entries: sigma = noise times the rms of the sampled y. */
static void add_noise(const options *o, arrays *a)
{
    size_t plane = (size_t)o->d.ny * o->d.nx, i, sampled = 0;
    double energy = 0.0, sigma;
    uint64_t s = o->seed * 0xD1B54A32D192ED03ULL + 7;
    for (i = 0; i < a->n_k; i++)
        if (a->mask[i % plane] != 0.0f) {
            energy += (double)a->y_obs[2 * i] * a->y_obs[2 * i] + (double)a->y_obs[2 * i + 1] * a->y_obs[2 * i + 1];
            sampled++;
        }
    sigma = o->noise * sqrt(energy / (double)(sampled ? sampled : 1) / 2.0);
    for (i = 0; i < a->n_k; i++)
        if (a->mask[i % plane] != 0.0f) {
            a->y_obs[2 * i] += (float)(sigma * mri_normal(&s));
            a->y_obs[2 * i + 1] += (float)(sigma * mri_normal(&s));
        }
}

/* ------------------------------------------------------------------ checks */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int check_norm(const char *what, double acc, double direct, double tol)
{
    double rel = fabs(acc - direct) / (direct > 0.0 ? direct : 1.0);
    printf("  %-24s %.9e   direct %.9e   rel %.1e %s\n", what, acc, direct, rel, rel <= tol ? "ok" : "FAIL");
    return rel <= tol;
}

static int same_norms(const mri_norms *a, const mri_norms *b)
{
    return !memcmp(&a->in_sq, &b->in_sq, sizeof(double)) && !memcmp(&a->out_sq, &b->out_sq, sizeof(double)) &&
           !memcmp(&a->diff_sq, &b->diff_sq, sizeof(double));
}

/* The evalwithnorm accumulators against direct sums. */
static int check_norms(const arrays *a, const mri_norms *f, const mri_norms *h, double tol)
{
    int ok = 1;
    printf("evalwithnorm (accumulated on the device per slice, summed in slice order; tolerance %.0e)\n", tol);
    ok &= check_norm("||x||^2", f->in_sq, mri_sqdiff(a->x, NULL, a->n_x), tol);
    ok &= check_norm("||A x||^2", f->out_sq, mri_sqdiff(a->ax, NULL, a->n_k), tol);
    ok &= check_norm("||A x - y_obs||^2", f->diff_sq, mri_sqdiff(a->ax, a->y_obs, a->n_k), tol);
    ok &= check_norm("||y_obs||^2", h->in_sq, mri_sqdiff(a->y_obs, NULL, a->n_k), tol);
    ok &= check_norm("||A^H y_obs||^2", h->out_sq, mri_sqdiff(a->ahy, NULL, a->n_x), tol);
    ok &= check_norm("||A^H y_obs - x||^2", h->diff_sq, mri_sqdiff(a->ahy, a->x, a->n_x), tol);
    return ok;
}

/* The same runs in one block of all N slices: the same bits. */
static int check_unstreamed(mri_op *op, arrays *a, const mri_norms *f, const mri_norms *h, hst_result *r)
{
    uint64_t block = op->block_slices, budget = op->budget_bytes;
    mri_norms f1, h1;
    int same;
    op->block_slices = op->d.slices;
    op->budget_bytes = 0;
    *r = mri_forward(op, a->x, a->coils, a->y_obs, a->ax1, &f1);
    if (*r == HST_SUCCESS) *r = mri_adjoint(op, a->y_obs, a->coils, a->x, a->ahy1, &h1);
    op->block_slices = block;
    op->budget_bytes = budget;
    if (*r != HST_SUCCESS) return 0;
    same = !memcmp(a->ax, a->ax1, 8 * a->n_k) && !memcmp(a->ahy, a->ahy1, 8 * a->n_x) &&
           same_norms(f, &f1) && same_norms(h, &h1);
    printf("streamed     %s the unstreamed run (1 block of %llu slices): outputs and accumulators %s\n",
           same ? "==" : "!=", (unsigned long long)op->d.slices, same ? "bit for bit" : "DIFFER: FAIL");
    return same;
}

static int check_reference(hst_backend *be, const options *o, arrays *a, hst_result *r)
{
    double tol = 16.0 * log2(2.0 * o->d.ny * o->d.nx) * EPS32, ek, ex, t0 = now_s(), t1, t2;
    *r = mri_reference_forward(be, &o->d, a->mask, a->x, a->coils, a->ref_k);
    t1 = now_s();
    if (*r == HST_SUCCESS) *r = mri_reference_adjoint(be, &o->d, a->mask, a->y_obs, a->coils, a->ref_x);
    t2 = now_s();
    if (*r != HST_SUCCESS) return 0;
    ek = mri_rel_error(a->ax, a->ref_k, a->n_k);
    ex = mri_rel_error(a->ahy, a->ref_x, a->n_x);
    printf("numpy        vs hst_array_fft on whole arrays: A x %.2e, A^H y %.2e relative (tolerance %.2e) %s\n"
           "             (its forward %.3f s, adjoint %.3f s, uploads and downloads included; plans made on first use)\n",
           ek, ex, tol, ek <= tol && ex <= tol ? "ok" : "FAIL", t1 - t0, t2 - t1);
    return ek <= tol && ex <= tol;
}

/* ------------------------------------------------------------------ main */

static void print_setup(const options *o, const hst_device_info *dev, const arrays *a, uint32_t lines)
{
    double img = (double)a->n_x * 8 / MIB, k = (double)a->n_k * 8 / MIB;
    printf("device       %s [%s]\n", dev->name, dev->selector);
    printf("volume       %llu slices of %u x %u, %u coils: image %.1f MiB, coil maps and k-space %.1f MiB each\n",
           (unsigned long long)o->d.slices, (unsigned)o->d.ny, (unsigned)o->d.nx, (unsigned)o->d.coils, img, k);
    printf("mask         %u of %u phase-encoding rows (accel %.2f), variable density, DFT order\n",
           (unsigned)lines, (unsigned)o->d.ny, (double)o->d.ny / (lines ? lines : 1));
    printf("budget       %llu bytes (%.1f MiB) per stream; the forward's host arrays hold %.1f MiB%s\n",
           (unsigned long long)o->budget, (double)o->budget / MIB, img + 3 * k,
           o->block ? "" : "; block chosen by the stream");
}

static int fail_r(const char *what, hst_result r)
{
    fprintf(stderr, "mri_cartesian: %s failed: %s (%d)\n", what, hst_result_string(r), (int)r);
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    arrays a;
    hst_backend *be = NULL;
    hst_backend_desc bd;
    mri_op op;
    mri_norms f, h, f0;
    hst_result r;
    uint32_t lines;
    double mis, tol_norm;
    int ok = 1, status = 1;

    memset(&op, 0, sizeof op);
    if (parse_options(argc, argv, &o)) return 1;
    memset(&bd, 0, sizeof bd);
    bd.device = o.device;
    if ((r = hst_backend_create(&bd, &be)) != HST_SUCCESS) return fail_r("hst_backend_create", r);
    if (arrays_alloc(&a, &o)) goto done;
    lines = mri_mask(&o.d, o.accel, o.seed, a.mask);
    if ((r = mri_op_init(&op, be, &o.d, a.mask, o.budget, o.block)) != HST_SUCCESS) { fail_r("mri_op_init", r); goto done; }
    mri_phantom(&o.d, a.x);
    mri_coils(&o.d, a.coils);
    print_setup(&o, hst_backend_device(be), &a, lines);

    /* y_obs = A x + noise, then A x with ||A x - y_obs||^2 and A^H y_obs */
    if ((r = mri_forward(&op, a.x, a.coils, NULL, a.y_obs, &f0)) != HST_SUCCESS) { fail_r("mri_forward", r); goto done; }
    add_noise(&o, &a);
    if ((r = mri_forward(&op, a.x, a.coils, a.y_obs, a.ax, &f)) != HST_SUCCESS) { fail_r("mri_forward", r); goto done; }
    if ((r = mri_adjoint(&op, a.y_obs, a.coils, a.x, a.ahy, &h)) != HST_SUCCESS) { fail_r("mri_adjoint", r); goto done; }
    printf("streamed     forward %llu blocks of %llu slices, %.3f s (%.1f slices/s); adjoint %llu blocks of %llu, "
           "%.3f s (%.1f slices/s)\n", (unsigned long long)f.num_blocks, (unsigned long long)f.block_slices, f.seconds,
           (double)o.d.slices / f.seconds, (unsigned long long)h.num_blocks, (unsigned long long)h.block_slices, h.seconds,
           (double)o.d.slices / h.seconds);

    mis = mri_adjoint_mismatch(a.x, a.ax, a.y_obs, a.ahy, a.n_x, a.n_k);
    printf("adjoint      |<A x, y> - <x, A^H y>| / (||A x|| ||y||) = %.2e (tolerance %.0e) %s\n", mis, ADJ_TOL,
           mis <= ADJ_TOL ? "ok" : "FAIL");
    ok &= mis <= ADJ_TOL;
    ok &= check_unstreamed(&op, &a, &f, &h, &r);
    if (r != HST_SUCCESS) { fail_r("the unstreamed run", r); goto done; }
    if (o.reference) {
        ok &= check_reference(be, &o, &a, &r);
        if (r != HST_SUCCESS) { fail_r("the hst_array_fft reference", r); goto done; }
    }
    tol_norm = hst_backend_device(be)->fp64 ? NORM_TOL_F64 : NORM_TOL_F32;
    ok &= check_norms(&a, &f, &h, tol_norm);
    printf("result       %s\n", ok ? "every check passed" : "A CHECK FAILED");
    status = ok ? 0 : 2;
done:
    mri_op_free(&op);
    arrays_free(&a);
    if (hst_backend_destroy(be) != HST_SUCCESS) status = 1;   /* logged, naming what holds it */
    return status;
}
