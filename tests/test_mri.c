/* test_mri.c — the streamed Cartesian multi-coil MRI operator of examples/mri_op.h (PyQMRI's
   forward and adjoint; its FFTs are array.h's hst_array_fft, called by stream.h stages that
   are calls, on views of the block's device memory) on the device under test ($HST_DEVICE), and
   hst_array_fft on views (hst_array_view).

   Asserts: the pair is adjoint, |<A x, y> - <x, A^H y>| / (||A x|| ||y||) <= ADJ_TOL, for
   power-of-two and other sizes (60 x 72, 96 x 80); it is numpy's operator (the same on whole
   arrays with one hst_array_fft call: FFTW on the host device, VkFFT on OpenCL devices) within
   REF_TOL; the streamed result equals the unstreamed one (one block of every slice) bit for bit
   for blocks of 1, 2 and N slices and for a block chosen under a budget smaller than the
   volume (so the libraries' result for a transform does not depend on the batch it is part
   of: FFTW's plans and VkFFT's kernels for one length are the same for every batch count);
   an OpenCL device agrees with the host device within REF_TOL (VkFFT and FFTW round
   differently: not bit for bit); the evalwithnorm accumulators equal direct sums; bad
   arguments give their codes. hst_array_fft on a view equals hst_array_fft on a copy of the
   viewed bytes bit for bit (c2c in place and out of place, r2c, c2r; the same plan), leaves
   the bytes around the view alone, and refuses views of overlapping bytes; on an OpenCL device
   a view whose offset breaks the base address alignment is refused (HST_ERROR_ALIGNMENT) while
   the host device takes any element offset.

   Tolerances. eps = 2^-24 (float32's unit roundoff). A float FFT of n points errs by at most
   about c eps log2 n of the transform's norm (Higham, "Accuracy and Stability of Numerical
   Algorithms", 2nd ed., section 24.1; tests/test_fft.c uses c = 8), and by about
   eps sqrt(log2 n) in practice (Schatzman, SIAM J. Sci. Comput. 17(5), 1996).
     REF_TOL = 2 * 8 * log2(2 ny nx) eps: two different FFTs of the same data, each within
       test_fft.c's bound (the coil products and the sum over coils add a few eps).
     ADJ_TOL = 1e-5: A and A^H each err by the 2-D FFT's error (2.5e-7 rms for 256 x 256) times
       ||x|| / ||A x|| (at most 1 / sqrt(sampled fraction) for these data, ||A|| <= 1), and the
       inner products are taken in double: 1e-5 leaves a margin of more than 10 for 256 x 256,
       while a wrong adjoint (a missing conjugate, a wrong scale, a mask on one side only) gives
       a mismatch of order 0.1 to 1.
     Norms: the accumulators sum per slice in double where the device has fp64 (then the
       difference to a direct double sum is summation order only: NORM_TOL_F64 = 1e-9), else
       in float (NORM_TOL_F32 = 1e-4: a lane sums up to slice/256 terms). */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "array.h"
#include "stream.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#include "be_fixture.h"
#include "../examples/mri_op.h"

#define EPS32 (1.0 / 16777216.0)
#define ADJ_TOL 1e-5
#define NORM_TOL_F64 1e-9
#define NORM_TOL_F32 1e-4

static double ref_tol(const mri_dims *d) { return 16.0 * log2(2.0 * d->ny * d->nx) * EPS32; }

/* One data set: x, coils, mask, a k-space y (random, every entry) and the outputs. */
typedef struct data {
    mri_dims d;
    size_t n_x, n_k;      /* complex elements of an image volume, of a k-space volume */
    float *x, *coils, *mask, *y, *ax, *ahy;
} data;

static float *falloc(size_t n) {
    float *p = (float *)calloc(n ? n : 1, sizeof(float));
    assert_non_null(p);
    return p;
}

static void data_make(data *t, uint64_t slices, uint32_t coils, uint32_t ny, uint32_t nx) {
    uint64_t s = 0x2b7e151628aed2a6ULL ^ (slices * 131 + coils * 17 + ny * 7 + nx);
    size_t i;
    memset(t, 0, sizeof *t);
    t->d.slices = slices; t->d.coils = coils; t->d.ny = ny; t->d.nx = nx;
    t->n_x = (size_t)slices * ny * nx;
    t->n_k = t->n_x * coils;
    t->x = falloc(2 * t->n_x); t->ahy = falloc(2 * t->n_x);
    t->coils = falloc(2 * t->n_k); t->y = falloc(2 * t->n_k); t->ax = falloc(2 * t->n_k);
    t->mask = falloc((size_t)ny * nx);
    mri_phantom(&t->d, t->x);
    mri_coils(&t->d, t->coils);
    (void)mri_mask(&t->d, 2.0, 5, t->mask);
    for (i = 0; i < 2 * t->n_k; i++) t->y[i] = (float)mri_normal(&s);
}

static void data_free(data *t) {
    free(t->x); free(t->coils); free(t->mask); free(t->y); free(t->ax); free(t->ahy);
}

static void op_make(mri_op *op, hst_backend *be, const data *t, uint64_t block, uint64_t budget) {
    assert_int_equal(mri_op_init(op, be, &t->d, t->mask, budget, block), HST_SUCCESS);
}

/* ------------------------------------------------------------------------------------------
   Adjointness, on a non-square slice (an axis mix-up cannot hide) and a larger square one. */
static void check_adjoint(hst_backend *be, uint64_t slices, uint32_t coils, uint32_t ny, uint32_t nx) {
    data t;
    mri_op op;
    double mis;
    data_make(&t, slices, coils, ny, nx);
    op_make(&op, be, &t, 2, 0);
    assert_int_equal(mri_forward(&op, t.x, t.coils, NULL, t.ax, NULL), HST_SUCCESS);
    assert_int_equal(mri_adjoint(&op, t.y, t.coils, NULL, t.ahy, NULL), HST_SUCCESS);
    mis = mri_adjoint_mismatch(t.x, t.ax, t.y, t.ahy, t.n_x, t.n_k);
    print_message("# adjoint mismatch %.3e (tolerance %.0e) for %llu x %u x %u x %u\n", mis, ADJ_TOL,
                  (unsigned long long)slices, (unsigned)coils, (unsigned)ny, (unsigned)nx);
    assert_true(mis <= ADJ_TOL);
    assert_true(mri_sqdiff(t.ax, NULL, t.n_k) > 0.0);   /* not a vacuous 0 = 0 */
    mri_op_free(&op);
    data_free(&t);
}

static void test_adjointness(void **state) {
    check_adjoint(BE(state), 5, 3, 16, 32);
    check_adjoint(BE(state), 2, 4, 128, 128);
    check_adjoint(BE(state), 3, 2, 60, 72);    /* no power of two: 2^2 3 5 by 2^3 3^2 */
    check_adjoint(BE(state), 2, 3, 96, 80);
}

/* ------------------------------------------------------------------------------------------
   The streamed FFT is numpy's: the same operator from hst_array_fft on whole arrays. */
static void check_library_fft(hst_backend *be, uint32_t ny, uint32_t nx) {
    data t;
    mri_op op;
    float *ref_k, *ref_x;
    double ek, ex;
    data_make(&t, 4, 3, ny, nx);
    ref_k = falloc(2 * t.n_k); ref_x = falloc(2 * t.n_x);
    op_make(&op, be, &t, 1, 0);
    assert_int_equal(mri_forward(&op, t.x, t.coils, NULL, t.ax, NULL), HST_SUCCESS);
    assert_int_equal(mri_adjoint(&op, t.y, t.coils, NULL, t.ahy, NULL), HST_SUCCESS);
    assert_int_equal(mri_reference_forward(be, &t.d, t.mask, t.x, t.coils, ref_k), HST_SUCCESS);
    assert_int_equal(mri_reference_adjoint(be, &t.d, t.mask, t.y, t.coils, ref_x), HST_SUCCESS);
    ek = mri_rel_error(t.ax, ref_k, t.n_k);
    ex = mri_rel_error(t.ahy, ref_x, t.n_x);
    print_message("# vs hst_array_fft: forward %.3e, adjoint %.3e (tolerance %.2e)\n", ek, ex, ref_tol(&t.d));
    assert_true(ek <= ref_tol(&t.d));
    assert_true(ex <= ref_tol(&t.d));
    mri_op_free(&op);
    free(ref_k); free(ref_x);
    data_free(&t);
}

static void test_matches_library_fft(void **state) {
    check_library_fft(BE(state), 16, 32);
    check_library_fft(BE(state), 60, 72);
}

/* ------------------------------------------------------------------------------------------
   Streamed = unstreamed, bit for bit: outputs and every accumulator. */
typedef struct run { float *ax, *ahy; mri_norms nf, na; } run;

static void run_both(hst_backend *be, const data *t, uint64_t block, uint64_t budget, run *o) {
    mri_op op;
    o->ax = falloc(2 * t->n_k);
    o->ahy = falloc(2 * t->n_x);
    op_make(&op, be, t, block, budget);
    assert_int_equal(mri_forward(&op, t->x, t->coils, t->y, o->ax, &o->nf), HST_SUCCESS);
    assert_int_equal(mri_adjoint(&op, t->y, t->coils, t->x, o->ahy, &o->na), HST_SUCCESS);
    mri_op_free(&op);
}

static void run_free(run *o) { free(o->ax); free(o->ahy); }

static void expect_same(const run *a, const run *b, const data *t) {
    assert_memory_equal(a->ax, b->ax, 8 * t->n_k);
    assert_memory_equal(a->ahy, b->ahy, 8 * t->n_x);
    assert_memory_equal(&a->nf.in_sq, &b->nf.in_sq, sizeof(double));
    assert_memory_equal(&a->nf.out_sq, &b->nf.out_sq, sizeof(double));
    assert_memory_equal(&a->nf.diff_sq, &b->nf.diff_sq, sizeof(double));
    assert_memory_equal(&a->na.in_sq, &b->na.in_sq, sizeof(double));
    assert_memory_equal(&a->na.out_sq, &b->na.out_sq, sizeof(double));
    assert_memory_equal(&a->na.diff_sq, &b->na.diff_sq, sizeof(double));
}

static void check_streamed(hst_backend *be, uint32_t ny, uint32_t nx) {
    const uint64_t N = 12, blocks[3] = {1, 2, 12};
    data t;
    run whole, part;
    size_t per;
    unsigned i;
    data_make(&t, N, 3, ny, nx);
    run_both(be, &t, N, 0, &whole);
    assert_int_equal(whole.nf.num_blocks, 1);
    for (i = 0; i < 3; i++) {
        run_both(be, &t, blocks[i], 0, &part);
        assert_int_equal(part.nf.block_slices, blocks[i]);
        assert_int_equal(part.na.num_blocks, (N + blocks[i] - 1) / blocks[i]);
        expect_same(&part, &whole, &t);
        run_free(&part);
    }
    /* the stream's own block under a budget of a fraction of the volume: on the host device
       (no ring) it holds 7 slices of every array, on an OpenCL device (3 slots) about 2 */
    per = mri_image_slice_bytes(&t.d) * 2 + mri_coil_slice_bytes(&t.d) * 3;
    run_both(be, &t, 0, 6 * per + 65536, &part);
    print_message("# %u x %u: budget %zu bytes (the volume: %zu): blocks of %llu slices\n", (unsigned)ny,
                  (unsigned)nx, 6 * per + 65536, (size_t)N * per, (unsigned long long)part.na.block_slices);
    assert_true(part.nf.num_blocks > 1 && part.na.num_blocks > 1);
    expect_same(&part, &whole, &t);
    run_free(&part);
    run_free(&whole);
    data_free(&t);
}

static void test_streamed_equals_unstreamed(void **state) {
    check_streamed(BE(state), 16, 32);
    check_streamed(BE(state), 96, 80);
}

/* An OpenCL device agrees with the host device within REF_TOL: the kernels give the same
   bits (FP_CONTRACT OFF), the FFTs are two libraries' (VkFFT and FFTW), not bit for bit. */
static void test_agrees_with_host(void **state) {
    hst_backend *be = BE(state), *host = NULL;
    hst_backend_desc hd;
    data t;
    run dev, ref;
    double ek, ex;
    if (hst_backend_is_host(be)) { skip(); return; }
    memset(&hd, 0, sizeof hd);
    hd.device = "host";
    assert_int_equal(hst_backend_create(&hd, &host), HST_SUCCESS);
    data_make(&t, 3, 3, 16, 32);
    run_both(be, &t, 2, 0, &dev);
    run_both(host, &t, 2, 0, &ref);
    ek = mri_rel_error(dev.ax, ref.ax, t.n_k);
    ex = mri_rel_error(dev.ahy, ref.ahy, t.n_x);
    print_message("# device vs host: forward %.3e, adjoint %.3e (tolerance %.2e)\n", ek, ex, ref_tol(&t.d));
    assert_true(ek <= ref_tol(&t.d));
    assert_true(ex <= ref_tol(&t.d));
    run_free(&dev); run_free(&ref);
    data_free(&t);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* ------------------------------------------------------------------------------------------
   evalwithnorm: the accumulators against direct double sums of the outputs. */
static void expect_norm(double got, double want, double tol, const char *what) {
    double rel = fabs(got - want) / (want > 0.0 ? want : 1.0);
    if (rel > tol) fail_msg("%s: accumulator %.17g, direct %.17g (relative %.3e > %.0e)", what, got, want, rel, tol);
}

static void test_norms(void **state) {
    hst_backend *be = BE(state);
    double tol = hst_backend_device(be)->fp64 ? NORM_TOL_F64 : NORM_TOL_F32;
    data t;
    run o;
    data_make(&t, 7, 2, 32, 16);
    run_both(be, &t, 3, 0, &o);
    expect_norm(o.nf.in_sq, mri_sqdiff(t.x, NULL, t.n_x), tol, "forward ||x||^2");
    expect_norm(o.nf.out_sq, mri_sqdiff(o.ax, NULL, t.n_k), tol, "forward ||A x||^2");
    expect_norm(o.nf.diff_sq, mri_sqdiff(o.ax, t.y, t.n_k), tol, "forward ||A x - y||^2");
    expect_norm(o.na.in_sq, mri_sqdiff(t.y, NULL, t.n_k), tol, "adjoint ||y||^2");
    expect_norm(o.na.out_sq, mri_sqdiff(o.ahy, NULL, t.n_x), tol, "adjoint ||A^H y||^2");
    expect_norm(o.na.diff_sq, mri_sqdiff(o.ahy, t.x, t.n_x), tol, "adjoint ||A^H y - x||^2");
    /* ||A|| <= 1 (normalised coils, a 0/1 mask): the norms say so too */
    assert_true(o.nf.out_sq <= o.nf.in_sq * (1.0 + 1e-5));
    assert_true(o.na.out_sq <= o.na.in_sq * (1.0 + 1e-5));
    run_free(&o);
    data_free(&t);
}

/* ------------------------------------------------------------------------------------------
   hst_array_fft on views (hst_array_view): the bits of the same transform of a copy. */
static void *read_all(const hst_array *a) {
    void *p = malloc(hst_array_bytes(a));
    assert_non_null(p);
    assert_int_equal(hst_array_read(a, p, hst_array_bytes(a)), HST_SUCCESS);
    return p;
}

static void expect_same_array(const hst_array *a, const hst_array *b) {
    void *pa = read_all(a), *pb = read_all(b);
    assert_int_equal(hst_array_bytes(a), hst_array_bytes(b));
    assert_memory_equal(pa, pb, hst_array_bytes(a));
    free(pa); free(pb);
}

/* The buffer's bytes outside [lo, hi) are still `orig`'s. */
static void expect_pads(hst_backend *be, hst_buffer *buf, const unsigned char *orig, size_t lo, size_t hi) {
    size_t total = hst_buffer_bytes(buf);
    unsigned char *now = (unsigned char *)malloc(total);
    assert_non_null(now);
    assert_int_equal(hst_read(hst_backend_queue(be), buf, 0, now, total, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(now, orig, lo);
    assert_memory_equal(now + hi, orig + hi, total - hi);
    free(now);
}

static void test_fft_views(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    int host = hst_backend_is_host(be);
    size_t al = host ? 8 : hst_backend_device(be)->mem_base_addr_align_bytes;
    size_t sh[3] = {4, 6, 10}, half[3] = {4, 6, 6}, two[3] = {2, 6, 10}, n = 240, bytes = 8 * n;
    size_t total = 2 * al + bytes + 256, i, unal = 8;
    float *init = (float *)malloc(total);
    uint64_t seed = 99;
    hst_buffer *buf = NULL;
    hst_array *v = NULL, *v2 = NULL, *c = NULL, *o1 = NULL, *o2 = NULL, *s1 = NULL, *s2 = NULL;
    assert_non_null(init);
    for (i = 0; i < total / 4; i++) init[i] = (float)mri_normal(&seed);
    assert_int_equal(hst_buffer_create(be, total, 0, &buf), HST_SUCCESS);
    assert_int_equal(hst_write(hst_backend_queue(be), buf, 0, init, total, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_array_view(buf, al, HST_C64, 3, sh, &v), HST_SUCCESS);
    assert_int_equal(hst_array_from_host(be, HST_C64, 3, sh, init + al / 4, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 3, sh, &o1), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 3, sh, &o2), HST_SUCCESS);
    /* out of place: the same bits, the viewed bytes untouched */
    assert_int_equal(hst_array_fft(o1, v, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
    assert_int_equal(hst_array_fft(o2, c, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
    expect_same_array(o1, o2);
    expect_pads(be, buf, (const unsigned char *)init, 0, 0);
    /* in place on the view: its bytes change, the rest of the buffer does not */
    assert_int_equal(hst_array_fft(v, v, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
    assert_int_equal(hst_array_fft(c, c, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
    expect_same_array(v, c);
    expect_pads(be, buf, (const unsigned char *)init, al, al + bytes);
    /* two views of the same bytes: in place */
    assert_int_equal(hst_array_view(buf, al, HST_C64, 3, sh, &v2), HST_SUCCESS);
    assert_int_equal(hst_array_fft(v2, v, 1, 1, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_int_equal(hst_array_fft(c, c, 1, 1, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_same_array(v, c);
    hst_array_destroy(v2);
    /* overlapping views that are not the same bytes: refused */
    assert_int_equal(hst_array_view(buf, 2 * al, HST_C64, 3, two, &v2), HST_SUCCESS);
    cap_reset(log);
    assert_int_equal(hst_array_fft(v2, v, 2, 0, HST_FFT_NORM_ORTHO), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, "overlapping"));
    hst_array_destroy(v2);
    hst_array_destroy(v);
    /* r2c from a real view, c2r from a complex view (which it leaves alone) */
    assert_int_equal(hst_array_view(buf, al, HST_F32, 3, sh, &v), HST_SUCCESS);
    hst_array_destroy(c);
    assert_int_equal(hst_array_create(be, HST_F32, 3, sh, &c), HST_SUCCESS);
    assert_int_equal(hst_array_copy(c, v), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 3, half, &s1), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 3, half, &s2), HST_SUCCESS);
    assert_int_equal(hst_array_fft(s1, v, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    assert_int_equal(hst_array_fft(s2, c, 2, 0, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_same_array(s1, s2);
    hst_array_destroy(v);
    assert_int_equal(hst_array_view(buf, 2 * al, HST_C64, 3, half, &v), HST_SUCCESS);
    assert_int_equal(hst_array_copy(v, s2), HST_SUCCESS);
    assert_int_equal(hst_array_fft(c, v, 2, 1, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    hst_array_destroy(o1);
    assert_int_equal(hst_array_create(be, HST_F32, 3, sh, &o1), HST_SUCCESS);
    assert_int_equal(hst_array_fft(o1, s2, 2, 1, HST_FFT_NORM_BACKWARD), HST_SUCCESS);
    expect_same_array(c, o1);
    expect_same_array(v, s2);   /* c2r's src unchanged */
    hst_array_destroy(v);
    /* an offset of one c64 element: the host device takes it (any element offset), an OpenCL
       device refuses it where its base address alignment is larger (VkFFT takes no offset and
       a sub-buffer must start aligned): HST_ERROR_ALIGNMENT, logged as HST_LOGITEM_MISALIGNED */
    cap_reset(log);
    if (host || al <= unal) {
        hst_array *u = NULL;
        assert_int_equal(hst_array_view(buf, unal, HST_C64, 3, sh, &v), HST_SUCCESS);
        assert_int_equal(hst_array_from_host(be, HST_C64, 3, sh, init + unal / 4, &u), HST_SUCCESS);
        assert_int_equal(hst_write(hst_backend_queue(be), buf, 0, init, total, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_array_fft(v, v, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
        assert_int_equal(hst_array_fft(u, u, 2, 0, HST_FFT_NORM_ORTHO), HST_SUCCESS);
        expect_same_array(v, u);
        hst_array_destroy(u);
        hst_array_destroy(v);
    } else {
        assert_int_equal(hst_array_view(buf, unal, HST_C64, 3, sh, &v), HST_ERROR_ALIGNMENT);
        assert_int_equal(log->last_item, HST_LOGITEM_MISALIGNED);
        assert_null(v);
    }
    hst_array_destroy(c); hst_array_destroy(o1); hst_array_destroy(o2);
    hst_array_destroy(s1); hst_array_destroy(s2);
    hst_buffer_destroy(buf);
    free(init);
}

/* ------------------------------------------------------------------------------------------
   Bad arguments: their codes and log items. */
static void expect_bad_init(void **state, uint64_t slices, uint32_t coils, uint32_t ny, uint32_t nx,
                            const char *needle) {
    mri_dims d;
    mri_op op;
    float mask[64] = {0};
    cap_log *log = LOG(state);
    d.slices = slices; d.coils = coils; d.ny = ny; d.nx = nx;
    cap_reset(log);
    assert_int_equal(mri_op_init(&op, BE(state), &d, mask, 0, 0), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(log->last_message, needle));
}

static void test_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    data t;
    mri_op op;
    expect_bad_init(state, 2, 2, 0, 4, "ny = 0");
    expect_bad_init(state, 2, 2, 4, MRI_MAX_LENGTH + 1, "nx = 65537");
    expect_bad_init(state, 2, 0, 4, 4, "coils = 0");
    expect_bad_init(state, 0, 2, 4, 4, "slices = 0");
    assert_int_equal(mri_op_init(&op, be, NULL, NULL, 0, 0), HST_ERROR_INVALID_ARGUMENT);

    data_make(&t, 3, 2, 8, 8);
    op_make(&op, be, &t, 0, 0);
    cap_reset(log);
    assert_int_equal(mri_forward(&op, NULL, t.coils, NULL, t.ax, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_int_equal(mri_adjoint(&op, t.y, t.coils, NULL, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    /* a budget that cannot hold one slice of every array */
    op.budget_bytes = 1024;
    cap_reset(log);
    assert_int_equal(mri_forward(&op, t.x, t.coils, NULL, t.ax, NULL), HST_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    mri_op_free(&op);
    data_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adjointness),
        cmocka_unit_test(test_matches_library_fft),
        cmocka_unit_test(test_streamed_equals_unstreamed),
        cmocka_unit_test(test_agrees_with_host),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_fft_views),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
