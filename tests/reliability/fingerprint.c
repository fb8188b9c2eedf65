/* fingerprint.c — the exact bytes of the library's results on one device, for before/after
   comparisons of a refactoring that must not change a single bit (scripts/fingerprint.sh runs it
   on the host device and on each OpenCL device, and hashes what it writes).

       fingerprint DIR           runs every section on the device $HST_DEVICE selects and writes
                                 each result's bytes to DIR/<name>.bin (DIR/<name>.failed, holding
                                 the error, where a call failed); exit status 1 on any failure
       fingerprint --tiff IN OUT the pixel bytes of every page of the TIFF file IN, page after page
                                 in native byte order, into OUT (the CLI's outputs carry the
                                 library's version in their tags: the pixels are what must agree)

   Only public calls of esrrf.h, array.h, halo.h, quality.h, nufft.h and stream.h (with the stream
   kernels' sources and twins from kernels.h, as examples/stream_tv.c uses them), on deterministic
   inputs made here from integers, so that the program builds against the tree before and after
   the refactoring alike (hence its own inputs, not tests/reliability/workload.h's, which move
   with the tree). One function per section; a result is an array's bytes or, for scalars, their
   doubles in the order the section lists them.

   Results that are not reproducible from run to run are left out where the library says so:
   nufft.h's type 1 on an OpenCL device adds its points with atomics in a varying order, so
   there the type 1 case spreads points far enough apart that no two touch one grid point; the
   dense type 1 case runs on the host device only.

   Build (scripts/fingerprint.sh does it): cc -std=c99 -O2 -I<tree> -DHST_FFT
   tests/reliability/fingerprint.c -o fingerprint -ltiff -lfftw3f -lfftw3 -lOpenCL -lm -lpthread */
#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_FFT
#include "esrrf.h"
#include "halo.h"
#include "nufft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

static const char *out_dir;
static int failures;

/* ------------------------------------------------------------------------------------------
   Output: one file per result. */
static void emit(const char *name, const void *data, size_t bytes)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.bin", out_dir, name);
    f = fopen(path, "wb");
    if (!f || (bytes && fwrite(data, 1, bytes, f) != bytes) || fclose(f) != 0) {
        fprintf(stderr, "fingerprint: cannot write %s\n", path);
        exit(2);
    }
}

static void emit_doubles(const char *name, const double *v, size_t n) { emit(name, v, n * sizeof *v); }

/* A failed call: the section's name and the result's string, in DIR/<name>.failed. */
static void fail(const char *name, hst_result r)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.failed", out_dir, name);
    f = fopen(path, "w");
    if (f) { fprintf(f, "%s\n", hst_result_string(r)); fclose(f); }
    fprintf(stderr, "fingerprint: %s: %s\n", name, hst_result_string(r));
    failures++;
}

/* Reads a whole array back and emits it. */
static hst_result emit_array(const char *name, const hst_array *a)
{
    size_t n = hst_array_bytes(a);
    void *p = malloc(n);
    hst_result r = p ? hst_array_read(a, p, n) : HST_ERROR_OUT_OF_HOST_MEMORY;
    if (r == HST_SUCCESS) emit(name, p, n);
    free(p);
    return r;
}

/* Up to 8 reduction results: (re, im, i64) each. */
static void emit_scalars(const char *name, const hst_scalar *s, size_t n)
{
    double v[3 * 8];
    size_t i;
    for (i = 0; i < n && i < 8; i++) { v[3 * i] = s[i].re; v[3 * i + 1] = s[i].im; v[3 * i + 2] = (double)s[i].i64; }
    emit_doubles(name, v, 3 * i);
}

#define TRY(expr) do { r = (expr); if (r != HST_SUCCESS) goto done; } while (0)

/* ------------------------------------------------------------------------------------------
   Deterministic inputs (integer generators; the only libm calls are exp on fixed arguments,
   the same on every run of one machine). */
static uint32_t lcg(uint32_t *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }

/* Gaussian spots (sigma 1.3 input pixels) on a background, with noise: (rows, cols) floats. */
static void spots(float *img, size_t rows, size_t cols, uint32_t seed, double scale, double noise)
{
    static const double at[5][2] = { {0.21, 0.33}, {0.52, 0.47}, {0.55, 0.52}, {0.78, 0.71}, {0.35, 0.80} };
    uint32_t s = seed;
    size_t y, x, k;
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++) {
            double v = 10.0;
            for (k = 0; k < 5; k++) {
                double dy = (double)y - at[k][0] * (double)rows, dx = (double)x - at[k][1] * (double)cols;
                v += scale * (1.0 + 0.25 * (double)k) * exp(-(dy * dy + dx * dx) / (2.0 * 1.3 * 1.3));
            }
            img[y * cols + x] = (float)(v + noise * ((double)(lcg(&s) % 2001u) / 1000.0 - 1.0));
        }
}

/* ------------------------------------------------------------------------------------------
   esrrf.h through hst_esrrf_run and the live API on a u16 stack of 12 frames of 48 x 40
   (spots that blink frame to frame, on a background, with noise). */
#define ES_T 12u
#define ES_ROWS 48u
#define ES_COLS 40u

static void esrrf_stack(uint16_t *stack)
{
    float frame[ES_ROWS * ES_COLS];
    uint32_t z;
    size_t i;
    for (z = 0; z < ES_T; z++) {
        spots(frame, ES_ROWS, ES_COLS, 1000u + z, 800.0 + 150.0 * (double)((z * 5u) % 7u), 40.0);
        for (i = 0; i < ES_ROWS * ES_COLS; i++) stack[(size_t)z * ES_ROWS * ES_COLS + i] = (uint16_t)frame[i];
    }
}

typedef struct es_out {
    float *img[HST_ESRRF_NUM_MODES];
    size_t image_floats;   /* one time point's image */
} es_out;

static void es_on_timepoint(uint64_t tp, const float *const *images, uint32_t rows_mag, uint32_t cols_mag,
                            void *user)
{
    es_out *o = (es_out *)user;
    unsigned m;
    (void)rows_mag; (void)cols_mag;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (images[m]) memcpy(o->img[m] + tp * o->image_floats, images[m], o->image_floats * sizeof(float));
}

/* One case: the desc on the stack (dtype), batch or live (pushes of 5 frames, then the rest);
   emits <name>_avg, _var, _tac2 and _counts (time points, their length, the last one's). */
static void esrrf_case(hst_backend *be, const char *name, hst_esrrf_desc d, const void *stack,
                       hst_esrrf_dtype dtype, size_t sample_bytes, int live)
{
    static const char *const mode_name[HST_ESRRF_NUM_MODES] = { "avg", "var", "tac2" };
    es_out o;
    hst_esrrf_report rep;
    hst_esrrf_live *lv = NULL;
    uint64_t tps = 0;
    uint32_t rm = 0, cm = 0;
    char full[256];
    unsigned m;
    hst_result r;
    memset(&o, 0, sizeof o);
    memset(&rep, 0, sizeof rep);
    d.backends = &be;
    d.num_backends = 1;
    TRY(hst_esrrf_output_shape(&d, ES_T, ES_ROWS, ES_COLS, &tps, &rm, &cm));
    o.image_floats = (size_t)rm * cm;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (!(o.img[m] = (float *)calloc(tps * o.image_floats, sizeof(float)))) { r = HST_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    if (!live) {
        TRY(hst_esrrf_run(&d, stack, dtype, ES_T, ES_ROWS, ES_COLS, o.img, &rep));
    } else {
        const unsigned char *s = (const unsigned char *)stack;
        size_t frame = (size_t)ES_ROWS * ES_COLS * sample_bytes;
        d.on_timepoint = es_on_timepoint;
        d.timepoint_user = &o;
        TRY(hst_esrrf_live_create(&d, dtype, ES_ROWS, ES_COLS, &lv));
        TRY(hst_esrrf_live_push(lv, s, 5, ES_ROWS, ES_COLS));
        TRY(hst_esrrf_live_push(lv, s + 5 * frame, ES_T - 5, ES_ROWS, ES_COLS));
        TRY(hst_esrrf_live_finish(lv, &rep));
    }
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        snprintf(full, sizeof full, "%s_%s", name, mode_name[m]);
        emit(full, o.img[m], tps * o.image_floats * sizeof(float));
    }
    {
        double c[4];
        c[0] = (double)rep.timepoints; c[1] = (double)rep.frames_per_timepoint;
        c[2] = (double)rep.last_timepoint_frames; c[3] = (double)rep.frames;
        snprintf(full, sizeof full, "%s_counts", name);
        emit_doubles(full, c, 4);
    }
done:
    if (r != HST_SUCCESS) fail(name, r);
    hst_esrrf_live_destroy(lv);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(o.img[m]);
}

static void section_esrrf(hst_backend *be)
{
    static uint16_t stack[ES_T * ES_ROWS * ES_COLS];
    static float stack_f32[ES_T * ES_ROWS * ES_COLS];
    hst_esrrf_desc d;
    size_t i;
    esrrf_stack(stack);
    for (i = 0; i < ES_T * ES_ROWS * ES_COLS; i++) stack_f32[i] = (float)stack[i] * 0.125f + 0.0625f;

    memset(&d, 0, sizeof d);   /* NanoPyx's defaults: mag 5, radius 1.5, sensitivity 1, corrected */
    d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    esrrf_case(be, "esrrf_api_u16_default", d, stack, HST_ESRRF_U16, 2, 0);

    d.path = HST_ESRRF_PATH_CHAINED;   /* time points 5, 5, 2; no correction; the other path */
    d.magnification = 3; d.radius = 2.0f; d.sensitivity = 2.0f;
    d.frames_per_timepoint = 5; d.no_macro_pixel_correction = 1; d.no_intensity_weighting = 1;
    esrrf_case(be, "esrrf_api_u16_chained_fpt5", d, stack, HST_ESRRF_U16, 2, 0);

    memset(&d, 0, sizeof d);
    d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    d.path = HST_ESRRF_PATH_FUSED; d.magnification = 4; d.radius = 1.0f; d.frames_per_timepoint = 6;
    d.block_frames = 4;
    esrrf_case(be, "esrrf_api_f32_fused_fpt6", d, stack_f32, HST_ESRRF_F32, 4, 0);

    memset(&d, 0, sizeof d);
    d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    d.frames_per_timepoint = 4;
    esrrf_case(be, "esrrf_live_u16_fpt4", d, stack, HST_ESRRF_U16, 2, 1);
}

/* ------------------------------------------------------------------------------------------
   halo.h: one plan of five quantities (a 3-D f32 scalar on all 8 boundaries with rotations 0..3,
   a 2-D f64 vector pair under rotations 1, 2, 3, a staggered i16 scalar, 16-byte scalars on a
   corner and through the "opposite" pairing, a negated scalar) over 8 peers; packed on the
   device, every peer's segment sent back to itself, unpacked; and the same through the host
   path. Emits the send buffer (padding zeroed before the pack) and every quantity after. */
#define HQ 5

static void halo_layouts(hst_halo_layout *L)
{
    unsigned q;
    memset(L, 0, HQ * sizeof *L);
    /* q0: f32 (z, y, x), 2-point halo around 6 x 6 */
    L[0].ndim = 3; L[0].elem_bytes = 4; L[0].number = HST_HALO_FLOAT; L[0].n_halo = 2;
    L[0].dims[0] = HST_HALO_DIM_Z; L[0].dims[1] = HST_HALO_DIM_Y; L[0].dims[2] = HST_HALO_DIM_X;
    L[0].shape[0] = 3; L[0].extent[0] = 3;
    L[0].shape[1] = 10; L[0].origin[1] = 2; L[0].extent[1] = 6;
    L[0].shape[2] = 10; L[0].origin[2] = 2; L[0].extent[2] = 6;
    /* q1, q2: f64 (y, x) vector components */
    for (q = 1; q <= 2; q++) {
        L[q].ndim = 2; L[q].elem_bytes = 8; L[q].number = HST_HALO_FLOAT; L[q].n_halo = 2;
        L[q].dims[0] = HST_HALO_DIM_Y; L[q].dims[1] = HST_HALO_DIM_X;
        L[q].shape[0] = L[q].shape[1] = 10; L[q].origin[0] = L[q].origin[1] = 2;
        L[q].extent[0] = L[q].extent[1] = 6;
    }
    /* q3: i16 (y, x_interface): 7 interface points along x */
    L[3].ndim = 2; L[3].elem_bytes = 2; L[3].number = HST_HALO_INT; L[3].n_halo = 2;
    L[3].dims[0] = HST_HALO_DIM_Y; L[3].dims[1] = HST_HALO_DIM_X_INTERFACE;
    L[3].shape[0] = 10; L[3].origin[0] = 2; L[3].extent[0] = 6;
    L[3].shape[1] = 11; L[3].origin[1] = 2; L[3].extent[1] = 7;
    /* q4: 16-byte (y, x) scalars around 4 x 4 */
    L[4].ndim = 2; L[4].elem_bytes = 16; L[4].number = HST_HALO_INT; L[4].n_halo = 2;
    L[4].dims[0] = HST_HALO_DIM_Y; L[4].dims[1] = HST_HALO_DIM_X;
    L[4].shape[0] = L[4].shape[1] = 8; L[4].origin[0] = L[4].origin[1] = 2;
    L[4].extent[0] = L[4].extent[1] = 4;
}

static hst_result halo_specs(const hst_halo_layout *L, hst_halo_spec *sp, size_t *n)
{
    hst_result r = HST_SUCCESS;
    size_t b;
    *n = 0;
    for (b = 0; b < 8; b++)
        TRY(hst_halo_spec_scalar(&L[0], 0, (hst_halo_boundary)b, (unsigned)b % 4, b, &sp[(*n)++]));
    TRY(hst_halo_spec_vector(&L[1], 1, &L[2], 2, HST_HALO_WEST, 1, 0, &sp[(*n)++]));
    TRY(hst_halo_spec_vector(&L[1], 1, &L[2], 2, HST_HALO_NORTH, 2, 2, &sp[(*n)++]));
    TRY(hst_halo_spec_vector(&L[1], 1, &L[2], 2, HST_HALO_SOUTHEAST, 3, 7, &sp[(*n)++]));
    TRY(hst_halo_spec_scalar(&L[3], 3, HST_HALO_EAST, 0, 1, &sp[(*n)++]));
    TRY(hst_halo_spec_scalar(&L[3], 3, HST_HALO_SOUTH, 2, 3, &sp[(*n)++]));
    TRY(hst_halo_spec_scalar(&L[4], 4, HST_HALO_NORTHWEST, 1, 4, &sp[(*n)++]));
    TRY(hst_halo_spec_scalar_opposite(&L[4], 4, HST_HALO_WEST, 0, 6, &sp[(*n)++]));
    TRY(hst_halo_spec_scalar(&L[0], 0, HST_HALO_NORTHEAST, 0, 5, &sp[*n]));
    sp[(*n)++].negate = 1;
done:
    return r;
}

/* Finite values of each quantity's type from a counter (floats: k / 8 - 100; integers: bytes). */
static void halo_init(const hst_halo_layout *L, const size_t *bytes, unsigned char **init)
{
    unsigned q;
    size_t i;
    uint32_t s = 77u;
    for (q = 0; q < HQ; q++) {
        for (i = 0; i < bytes[q] / L[q].elem_bytes; i++) {
            double v = (double)(lcg(&s) % 1601u) / 8.0 - 100.0;
            if (L[q].elem_bytes == 4) { float f = (float)v; memcpy(init[q] + 4 * i, &f, 4); }
            else if (L[q].elem_bytes == 8) memcpy(init[q] + 8 * i, &v, 8);
            else {
                size_t k;
                for (k = 0; k < L[q].elem_bytes; k++) init[q][i * L[q].elem_bytes + k] = (unsigned char)lcg(&s);
            }
        }
    }
}

static void halo_emit_all(const char *prefix, unsigned char *const *qs, const size_t *bytes,
                          const void *send, size_t send_bytes)
{
    char name[128];
    unsigned q;
    snprintf(name, sizeof name, "%s_send", prefix);
    emit(name, send, send_bytes);
    for (q = 0; q < HQ; q++) {
        snprintf(name, sizeof name, "%s_unpacked_q%u", prefix, q);
        emit(name, qs[q], bytes[q]);
    }
}

static void section_halo(hst_backend *be)
{
    hst_halo_layout L[HQ];
    hst_halo_spec sp[20];
    hst_halo_plan_desc pd;
    hst_halo_plan *plan = NULL;
    hst_buffer *qb[HQ] = {0};
    unsigned char *init[HQ] = {0}, *host[HQ] = {0}, *send = NULL;
    size_t bytes[HQ], nspec = 0, send_bytes, p;
    hst_queue *q = hst_backend_queue(be);
    unsigned char zero = 0;
    unsigned i;
    hst_result r;
    halo_layouts(L);
    for (i = 0; i < HQ; i++) TRY(hst_halo_layout_bytes(&L[i], &bytes[i]));
    TRY(halo_specs(L, sp, &nspec));
    memset(&pd, 0, sizeof pd);
    pd.num_quantities = HQ; pd.layouts = L; pd.num_specs = nspec; pd.specs = sp; pd.num_peers = 8;
    TRY(hst_halo_plan_create(be, &pd, &plan));
    send_bytes = hst_halo_plan_stats(plan).send_bytes;
    for (i = 0; i < HQ; i++) {
        init[i] = (unsigned char *)malloc(bytes[i]);
        host[i] = (unsigned char *)malloc(bytes[i]);
        if (!init[i] || !host[i]) { r = HST_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    }
    if (!(send = (unsigned char *)calloc(send_bytes, 1))) { r = HST_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    halo_init(L, bytes, init);

    /* the device path */
    for (i = 0; i < HQ; i++) {
        TRY(hst_buffer_create(be, bytes[i], 0, &qb[i]));
        TRY(hst_write(q, qb[i], 0, init[i], bytes[i], 1, 0, NULL, NULL));
    }
    TRY(hst_fill(q, hst_halo_plan_send_buffer(plan), &zero, 1, 0, send_bytes, 0, NULL, NULL));
    TRY(hst_halo_pack(plan, NULL, HQ, qb, 0, NULL, NULL));
    TRY(hst_halo_plan_synchronize(plan));
    TRY(hst_read(q, hst_halo_plan_send_buffer(plan), 0, send, send_bytes, 1, 0, NULL, NULL));
    for (p = 0; p < hst_halo_plan_peers(plan); p++)
        TRY(hst_halo_copy_peer(plan, p, plan, p, NULL, 0, NULL, NULL));
    TRY(hst_halo_unpack(plan, NULL, HQ, qb, 0, NULL, NULL));
    TRY(hst_halo_plan_synchronize(plan));
    for (i = 0; i < HQ; i++) TRY(hst_read(q, qb[i], 0, host[i], bytes[i], 1, 0, NULL, NULL));
    halo_emit_all("halo_device", host, bytes, send, send_bytes);

    /* the host path on host arrays: pack, the buffer back as received, unpack */
    for (i = 0; i < HQ; i++) memcpy(host[i], init[i], bytes[i]);
    memset(send, 0, send_bytes);
    TRY(hst_halo_pack_host(plan, HQ, (void *const *)host, bytes, send));
    TRY(hst_halo_unpack_host(plan, HQ, (void *const *)host, bytes, send));
    halo_emit_all("halo_host", host, bytes, send, send_bytes);
done:
    if (r != HST_SUCCESS) fail("halo", r);
    hst_halo_plan_destroy(plan);
    for (i = 0; i < HQ; i++) { hst_buffer_destroy(qb[i]); free(init[i]); free(host[i]); }
    free(send);
}

/* ------------------------------------------------------------------------------------------
   quality.h: the error map (RSE, RSP, fit and map) of a 2x image against its reference, with
   the fitted sigma and with a fixed one; FRC (curve and FIRE) of two noisy images of one scene;
   decorrelation with the defaults and with a ROI and other n_r, n_g. */
#define QR 32u
#define QC 36u
#define FN 64u

static void emit_error_map(const char *name, const hst_error_map_result *e)
{
    double v[7];
    v[0] = e->rse; v[1] = e->rsp; v[2] = e->alpha; v[3] = e->beta; v[4] = e->sigma;
    v[5] = (double)e->magnification; v[6] = (double)e->evaluations;
    emit_doubles(name, v, 7);
}

static void emit_decorr(const char *name, const hst_decorr_result *d)
{
    double v[7];
    v[0] = d->resolution; v[1] = d->kc_max; v[2] = d->a_max; v[3] = d->kc_gm; v[4] = d->a_gm;
    v[5] = d->kc0; v[6] = d->a0;
    emit_doubles(name, v, 7);
}

static void section_quality(hst_backend *be)
{
    static float ref[QR * QC], sr[4 * QR * QC], map[4 * QR * QC], a[FN * FN], b[FN * FN];
    float *curve = NULL;
    hst_error_map_result em;
    hst_error_map_desc ed;
    hst_frc_result fr;
    hst_decorr_result dr;
    /* rmin 0, rmax 0 (1), 30 curve samples, 8 high-pass images, pixel size 0.1, ROI {x0, y0, x1, y1}:
       by position, as the two counts' field names changed (n_r, n_g; num_radii, num_highpass) */
    hst_decorr_desc dd = { 0.0, 0.0, 30, 8, 0.1, {4, 2, 60, 58} };
    size_t len = hst_frc_curve_length(FN, FN - 4);
    double v[2];
    hst_result r;
    spots(ref, QR, QC, 5u, 300.0, 8.0);
    spots(sr, 2 * QR, 2 * QC, 6u, 500.0, 2.0);

    TRY(hst_error_map(be, ref, QR, QC, sr, 2 * QR, 2 * QC, NULL, map, &em));
    emit_error_map("quality_error_map_fit_scores", &em);
    emit("quality_error_map_fit_map", map, sizeof map);
    memset(&ed, 0, sizeof ed);
    ed.fixed_sigma = 1.25;
    TRY(hst_error_map(be, ref, QR, QC, sr, 2 * QR, 2 * QC, &ed, map, &em));
    emit_error_map("quality_error_map_sigma1.25_scores", &em);
    emit("quality_error_map_sigma1.25_map", map, sizeof map);

    spots(a, FN, FN - 4, 7u, 400.0, 30.0);   /* two noisy images of one scene, 64 x 60 */
    spots(b, FN, FN - 4, 8u, 400.0, 30.0);
    if (!(curve = (float *)malloc(2 * len * sizeof(float)))) { r = HST_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    TRY(hst_frc(be, a, b, FN, FN - 4, NULL, curve, &fr));
    v[0] = fr.resolution; v[1] = (double)fr.curve_length;
    emit_doubles("quality_frc_result", v, 2);
    emit("quality_frc_curve", curve, 2 * len * sizeof(float));

    spots(a, FN, FN, 9u, 400.0, 20.0);
    TRY(hst_decorr(be, a, FN, FN, NULL, &dr));
    emit_decorr("quality_decorr_default", &dr);
    TRY(hst_decorr(be, a, FN, FN, &dd, &dr));
    emit_decorr("quality_decorr_roi", &dr);
done:
    if (r != HST_SUCCESS) fail("quality", r);
    free(curve);
}

/* ------------------------------------------------------------------------------------------
   nufft.h: 2-D type 2 and type 1 (eps 1e-5) and 3-D type 2 (eps 1e-3) on points from the
   counter; type 1 of 16 points 8 fine-grid cells apart (no two kernels overlap: the same bits
   on every device); the dense type 1 on the host device only (see the top of the file). */
static hst_result nufft_case(hst_backend *be, const char *name, int type, unsigned dim,
                             const size_t *modes, double eps, size_t m, float *const *coords)
{
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    size_t nmodes = 1, i;
    float *vals = NULL;
    uint32_t s = 4242u;
    hst_result r;
    memset(&nd, 0, sizeof nd);
    nd.type = type; nd.dim = dim; nd.eps = eps;
    for (i = 0; i < dim; i++) { nd.modes[i] = modes[i]; nmodes *= modes[i]; }
    TRY(hst_nufft_plan_create(be, &nd, &plan));
    TRY(hst_nufft_set_points(plan, m, (const float *const *)coords));
    TRY(hst_array_create(be, HST_C64, 1, &m, &c));
    TRY(hst_array_create(be, HST_C64, dim, modes, &f));
    if (!(vals = (float *)malloc(2 * (m > nmodes ? m : nmodes) * sizeof(float)))) { r = HST_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    for (i = 0; i < 2 * (m > nmodes ? m : nmodes); i++) vals[i] = (float)((int)(lcg(&s) % 2001u) - 1000) / 1000.0f;
    if (type == 1) TRY(hst_array_write(c, vals, m * 8));
    else TRY(hst_array_write(f, vals, nmodes * 8));
    TRY(hst_nufft_execute(plan, c, f));
    TRY(emit_array(name, type == 1 ? f : c));
done:
    if (r != HST_SUCCESS) fail(name, r);
    free(vals);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    return r;
}

static void section_nufft(hst_backend *be)
{
    static float cy[600], cx[600], cz[600];
    float *c2[2], *c3[3];
    const size_t m2[2] = {24, 20}, m3[3] = {8, 6, 10}, msparse[2] = {16, 16};
    const double pi = 3.14159265358979323846;
    uint32_t s = 99u;
    size_t i;
    for (i = 0; i < 600; i++) {
        cy[i] = (float)(((double)(lcg(&s) % 100000u) / 100000.0 * 2.0 - 1.0) * pi);
        cx[i] = (float)(((double)(lcg(&s) % 100000u) / 100000.0 * 2.0 - 1.0) * pi);
        cz[i] = (float)(((double)(lcg(&s) % 100000u) / 100000.0 * 2.0 - 1.0) * pi);
    }
    c2[0] = cy; c2[1] = cx;
    c3[0] = cz; c3[1] = cy; c3[2] = cx;
    (void)nufft_case(be, "nufft_2d_type2", 2, 2, m2, 1e-5, 600, c2);
    (void)nufft_case(be, "nufft_3d_type2", 2, 3, m3, 1e-3, 400, c3);
    if (hst_backend_is_host(be)) (void)nufft_case(be, "nufft_2d_type1_dense", 1, 2, m2, 1e-5, 600, c2);
    /* 16 x 16 modes, eps 1e-3: fine grid 32 x 32, kernel width 4; a 4 x 4 lattice of points
       8 cells (pi / 2) apart */
    for (i = 0; i < 16; i++) {
        cy[i] = (float)(-pi + 0.3 + (double)(i / 4) * pi / 2.0);
        cx[i] = (float)(-pi + 0.7 + (double)(i % 4) * pi / 2.0);
    }
    (void)nufft_case(be, "nufft_2d_type1_sparse", 1, 2, msparse, 1e-3, 16, c2);
}

/* ------------------------------------------------------------------------------------------
   array.h: f32, f64 and i32 arrays through fills, casts, axpy, scale, math, reductions,
   where, the gathers (transpose, fftshift, tile), broadcast binary ops, axis reductions, clip,
   quantiles, randperm, argwhere, batched sums, ramps and FFTs. f64 where the device has it. */
#define AR 25u
#define AC 40u

static void section_array(hst_backend *be)
{
    const size_t n = AR * AC, shape2[2] = {AR, AC}, tshape[2] = {AC, AR}, row[1] = {AC};
    const size_t small[2] = {3, 5}, tiled[2] = {6, 15}, cshape[2] = {16, 12}, axis0[1] = {AC};
    const size_t reps[2] = {2, 3};
    const int f64 = hst_backend_is_host(be) || hst_backend_device(be)->fp64;
    hst_array *x = NULL, *y = NULL, *t = NULL, *u = NULL, *xd = NULL, *yd = NULL, *zi = NULL,
              *cond = NULL, *w = NULL, *bc = NULL, *red = NULL, *idx = NULL, *sm = NULL, *tl = NULL,
              *perm = NULL, *aw = NULL, *cx = NULL, *cf = NULL, *re = NULL, *ramp = NULL;
    hst_scalar s[8];
    const hst_array *batch[3];
    static const double qs[5] = {0.0, 0.25, 0.5, 0.9, 1.0};
    double qv[5];
    unsigned char cmask[AR * AC];
    size_t i, count = 0;
    hst_result r;
    for (i = 0; i < n; i++) cmask[i] = (unsigned char)((i * 7u) % 3u == 0u);

    TRY(hst_array_create(be, HST_F32, 2, shape2, &x));
    TRY(hst_array_create(be, HST_F32, 2, shape2, &y));
    TRY(hst_array_random(x, HST_RANDOM_UNIFORM, 11, 0));
    TRY(hst_array_random(y, HST_RANDOM_NORMAL, 12, 5));
    TRY(emit_array("array_f32_random_uniform", x));
    TRY(emit_array("array_f32_random_normal", y));
    TRY(hst_array_axpy(y, hst_real(0.75), x));
    TRY(hst_array_scale(y, hst_real(-1.5)));
    TRY(emit_array("array_f32_axpy_scale", y));
    TRY(hst_array_sum(y, &s[0]));
    TRY(hst_array_dot(x, y, &s[1]));
    TRY(hst_array_sqnorm(y, &s[2]));
    TRY(hst_array_min(y, &s[3]));
    TRY(hst_array_max(y, &s[4]));
    emit_scalars("array_f32_sum_dot_sqnorm_min_max", s, 5);

    TRY(hst_array_create(be, HST_F32, 2, shape2, &t));
    TRY(hst_array_math(t, y, HST_MATH_ABS, 0.0));
    TRY(hst_array_math(t, t, HST_MATH_SQRT, 0.0));
    TRY(emit_array("array_f32_abs_sqrt", t));
    TRY(hst_array_math(t, x, HST_MATH_EXP, 0.0));
    TRY(emit_array("array_f32_exp", t));

    TRY(hst_array_create(be, HST_I32, 2, shape2, &zi));   /* cast with truncation, i32 sums */
    TRY(hst_array_copy(t, y));
    TRY(hst_array_scale(t, hst_real(1000.0)));
    TRY(hst_array_cast(zi, t));
    TRY(emit_array("array_i32_cast", zi));
    TRY(hst_array_sum(zi, &s[0]));
    TRY(hst_array_min(zi, &s[1]));
    TRY(hst_array_max(zi, &s[2]));
    emit_scalars("array_i32_sum_min_max", s, 3);

    if (f64) {
        TRY(hst_array_create(be, HST_F64, 2, shape2, &xd));
        TRY(hst_array_create(be, HST_F64, 2, shape2, &yd));
        TRY(hst_array_cast(xd, x));
        TRY(hst_array_random(yd, HST_RANDOM_NORMAL, 13, 0));
        TRY(hst_array_axpy(yd, hst_real(0.3), xd));
        TRY(emit_array("array_f64_cast_random_axpy", yd));
        TRY(hst_array_sum(yd, &s[0]));
        TRY(hst_array_dot(xd, yd, &s[1]));
        TRY(hst_array_sqnorm(yd, &s[2]));
        TRY(hst_array_min(yd, &s[3]));
        TRY(hst_array_max(yd, &s[4]));
        emit_scalars("array_f64_sum_dot_sqnorm_min_max", s, 5);
        TRY(hst_array_linspace(be, HST_F64, -2.0, 3.0, 37, 1, &ramp));
        TRY(emit_array("array_f64_linspace", ramp));
    }

    TRY(hst_array_from_host(be, HST_U8, 2, shape2, cmask, &cond));   /* where, gathers */
    TRY(hst_array_create(be, HST_F32, 2, shape2, &w));
    TRY(hst_array_where(w, cond, x, y));
    TRY(emit_array("array_f32_where", w));
    TRY(hst_array_create(be, HST_F32, 2, tshape, &u));
    TRY(hst_array_transpose(u, y, NULL));
    TRY(emit_array("array_f32_transpose", u));
    TRY(hst_array_fftshift(w, y, ~0u, 0));
    TRY(emit_array("array_f32_fftshift", w));
    TRY(hst_array_create(be, HST_I32, 2, small, &sm));
    TRY(hst_array_create(be, HST_I32, 2, tiled, &tl));
    TRY(hst_array_random(t, HST_RANDOM_UNIFORM, 3, 0));
    {
        hst_array *v = NULL;
        TRY(hst_array_view(hst_array_buffer(zi), 0, HST_I32, 2, small, &v));
        r = hst_array_copy(sm, v);
        hst_array_destroy(v);
        if (r != HST_SUCCESS) goto done;
    }
    TRY(hst_array_tile(tl, sm, reps, 2));
    TRY(emit_array("array_i32_tile", tl));

    TRY(hst_array_create(be, HST_F32, 1, row, &bc));   /* broadcast division, clip, axes */
    TRY(hst_array_random(bc, HST_RANDOM_UNIFORM, 21, 0));
    TRY(hst_array_binary_scalar(bc, bc, hst_real(0.5), HST_BINARY_ADD, 0));
    TRY(hst_array_binary(w, y, bc, HST_BINARY_DIV));
    TRY(emit_array("array_f32_binary_div_broadcast", w));
    TRY(hst_array_clip(w, w, -1.0, 2.5));
    TRY(emit_array("array_f32_clip", w));
    TRY(hst_array_create(be, HST_F32, 1, axis0, &red));
    TRY(hst_array_reduce_axis(red, y, 0, HST_AXIS_SUM));
    TRY(emit_array("array_f32_axis0_sum", red));
    {
        const size_t ar[1] = {AR};
        TRY(hst_array_create(be, HST_I32, 1, ar, &idx));
    }
    TRY(hst_array_reduce_axis(idx, y, 1, HST_AXIS_ARGMAX));
    TRY(emit_array("array_f32_axis1_argmax", idx));
    TRY(hst_array_reduce_axis(w, y, 1, HST_AXIS_CUMSUM));
    TRY(emit_array("array_f32_axis1_cumsum", w));
    TRY(hst_array_quantile(y, qs, 5, qv));
    emit_doubles("array_f32_quantile", qv, 5);

    {
        const size_t pn[1] = {n};
        TRY(hst_array_create(be, HST_I32, 1, pn, &perm));
    }
    TRY(hst_array_randperm(perm, 1234));
    TRY(emit_array("array_i32_randperm", perm));
    TRY(hst_array_argwhere(cond, &aw, &count));
    TRY(emit_array("array_i64_argwhere", aw));
    batch[0] = x; batch[1] = y; batch[2] = t;
    TRY(hst_array_sum_batch(batch, 3, s));
    emit_scalars("array_f32_sum_batch", s, 3);

    TRY(hst_array_create(be, HST_C64, 2, cshape, &cx));   /* FFTs: c2c 2-D, then its real part */
    TRY(hst_array_create(be, HST_C64, 2, cshape, &cf));
    TRY(hst_array_random(cx, HST_RANDOM_NORMAL, 31, 0));
    TRY(hst_array_fft(cf, cx, 2, 0, HST_FFT_NORM_BACKWARD));
    TRY(emit_array("array_c64_fft2", cf));
    TRY(hst_array_fft(cf, cf, 1, 1, HST_FFT_NORM_ORTHO));
    TRY(emit_array("array_c64_ifft_ortho", cf));
    TRY(hst_array_create(be, HST_F32, 2, cshape, &re));
    TRY(hst_array_complex_part(re, cf, HST_PART_ABS));
    TRY(emit_array("array_c64_abs", re));
done:
    if (r != HST_SUCCESS) fail("array", r);
    hst_array_destroy(x); hst_array_destroy(y); hst_array_destroy(t); hst_array_destroy(u);
    hst_array_destroy(xd); hst_array_destroy(yd); hst_array_destroy(zi); hst_array_destroy(cond);
    hst_array_destroy(w); hst_array_destroy(bc); hst_array_destroy(red); hst_array_destroy(idx);
    hst_array_destroy(sm); hst_array_destroy(tl); hst_array_destroy(perm); hst_array_destroy(aw);
    hst_array_destroy(cx); hst_array_destroy(cf); hst_array_destroy(re); hst_array_destroy(ramp);
}

/* ------------------------------------------------------------------------------------------
   stream.h: a volume of 10 slices of 12 x 16 in blocks of 3: p = grad3(x), d = div3(p) with the
   SQSUM of d; then, in blocks of 4, the TV gap of (x, p, f) per voxel with its SUM
   (examples/stream_tv.c's kernels and halos). */
#define SN 10u
#define SH 12u
#define SW 16u
#define U32(p) (*(const uint32_t *)(p))
#define F32(p) (*(const float *)(p))

static hst_result twin_grad3(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{
    (void)u;
    hst_k_grad3_host((const float *)a[0], (float *)a[1], U32(s[0]), U32(s[1]), b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
static hst_result twin_div3(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{
    (void)u;
    hst_k_div3_host((const float *)a[0], (float *)a[1], U32(s[0]), U32(s[1]), b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}
static hst_result twin_gap(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{
    (void)u;
    hst_k_tv_gap_host((const float *)a[0], (const float *)a[1], (const float *)a[2], (float *)a[3],
                      U32(s[0]), U32(s[1]), F32(s[2]), b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}

static void stream_stage(hst_stream_stage *st, hst_backend *be, const char *kernel, hst_stream_host_fn twin,
                         unsigned nin, const int *in, const int *out, const uint32_t *hw)
{
    size_t count;
    memset(st, 0, sizeof *st);
    st->name = kernel;
    st->sources = hst_kernels_stream_source(&count);
    st->num_sources = count;
    st->options = !hst_backend_is_host(be) && hst_backend_device(be)->correctly_rounded_sqrt
                  ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
    st->kernel = kernel;
    st->host = twin;
    st->num_inputs = nin;
    st->inputs = in;
    st->num_outputs = 1;
    st->outputs = out;
    st->num_scalars = 2;
    st->scalars[0] = &hw[0]; st->scalar_bytes[0] = 4;
    st->scalars[1] = &hw[1]; st->scalar_bytes[1] = 4;
    st->items_per_slice = (size_t)hw[0] * hw[1];
}

static hst_result stream_run(hst_backend **be, hst_stream_array *arr, unsigned narr, hst_stream_stage *st,
                             unsigned nst, hst_stream_acc *acc, uint64_t block, double *total)
{
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    hst_result r;
    memset(&d, 0, sizeof d);
    d.backends = be; d.num_backends = 1; d.num_slices = SN;
    d.arrays = arr; d.num_arrays = narr; d.stages = st; d.num_stages = nst;
    d.accumulators = acc; d.num_accumulators = 1; d.block_slices = block;
    TRY(hst_stream_create(&d, &s));
    TRY(hst_stream_run(s, &rep));
    *total = rep.acc[0];
done:
    hst_stream_destroy(s);
    return r;
}

static void section_stream(hst_backend *be)
{
    static float x[SN * SH * SW], p[3 * SN * SH * SW], dv[SN * SH * SW], f[SN * SH * SW], gap[SN * SH * SW];
    static const int a0[1] = {0}, a1[1] = {1}, a2[1] = {2}, a012[3] = {0, 1, 2}, a3[1] = {3};
    const uint32_t hw[2] = {SH, SW};
    const float lambda = 0.1f;
    const size_t slice = (size_t)SH * SW * sizeof(float);
    hst_stream_array arr[4];
    hst_stream_stage st[2];
    hst_stream_acc acc;
    double sums[2];
    uint32_t s = 5u;
    size_t i;
    hst_result r;
    for (i = 0; i < SN * SH * SW; i++) {
        x[i] = (float)(lcg(&s) % 1000u) / 100.0f;
        f[i] = x[i] + (float)((int)(lcg(&s) % 201u) - 100) / 50.0f;
    }
    memset(arr, 0, sizeof arr);
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = x; arr[0].slice_bytes = slice;
    arr[1].kind = HST_STREAM_OUTPUT; arr[1].host = p; arr[1].slice_bytes = 3 * slice;
    arr[2].kind = HST_STREAM_OUTPUT; arr[2].host = dv; arr[2].slice_bytes = slice;
    stream_stage(&st[0], be, "hst_k_grad3", twin_grad3, 1, a0, a1, hw);
    stream_stage(&st[1], be, "hst_k_div3", twin_div3, 1, a1, a2, hw);
    st[0].halo_hi = 1;   /* grad reads x[z+1] */
    st[1].halo_lo = 1;   /* div reads p[z-1] */
    memset(&acc, 0, sizeof acc);
    acc.kind = HST_STREAM_SQSUM; acc.dtype = HST_F32; acc.a = 2;
    TRY(stream_run(&be, arr, 3, st, 2, &acc, 3, &sums[0]));
    emit("stream_grad3", p, sizeof p);
    emit("stream_div3", dv, sizeof dv);

    arr[1].kind = HST_STREAM_INPUT;   /* x, p, f -> gap */
    arr[2].host = f; arr[2].kind = HST_STREAM_INPUT;
    arr[3].kind = HST_STREAM_OUTPUT; arr[3].host = gap; arr[3].slice_bytes = slice;
    stream_stage(&st[0], be, "hst_k_tv_gap", twin_gap, 3, a012, a3, hw);
    st[0].scalars[2] = &lambda; st[0].scalar_bytes[2] = 4; st[0].num_scalars = 3;
    st[0].halo_lo = 1; st[0].halo_hi = 1;   /* x[z+1], p[z-1] */
    acc.kind = HST_STREAM_SUM; acc.a = 3;
    TRY(stream_run(&be, arr, 4, st, 1, &acc, 4, &sums[1]));
    emit("stream_tv_gap", gap, sizeof gap);
    emit_doubles("stream_acc_sqsum_div_sum_gap", sums, 2);
done:
    if (r != HST_SUCCESS) fail("stream", r);
}

/* ------------------------------------------------------------------------------------------
   The CLI's outputs: pixels of a TIFF. */
static int tiff_pixels(const char *in, const char *out)
{
    TIFF *t = TIFFOpen(in, "r");
    FILE *f;
    unsigned char *buf = NULL;
    int ok = 1;
    if (!t) { fprintf(stderr, "fingerprint: cannot read %s\n", in); return 2; }
    if (!(f = fopen(out, "wb"))) { fprintf(stderr, "fingerprint: cannot write %s\n", out); TIFFClose(t); return 2; }
    do {
        tstrip_t k, n = TIFFNumberOfStrips(t);
        tmsize_t cap = TIFFStripSize(t), got;
        if (!(buf = (unsigned char *)realloc(buf, (size_t)cap))) { ok = 0; break; }
        for (k = 0; k < n && ok; k++) {
            got = TIFFReadEncodedStrip(t, k, buf, cap);
            ok = got >= 0 && fwrite(buf, 1, (size_t)got, f) == (size_t)got;
        }
    } while (ok && TIFFReadDirectory(t));
    free(buf);
    TIFFClose(t);
    if (fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "fingerprint: cannot copy the pixels of %s\n", in);
    return ok ? 0 : 2;
}

int main(int argc, char **argv)
{
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_result r;
    if (argc == 4 && !strcmp(argv[1], "--tiff")) return tiff_pixels(argv[2], argv[3]);
    if (argc != 2) {
        fprintf(stderr, "usage: fingerprint DIR  (device: $HST_DEVICE) | fingerprint --tiff IN OUT\n");
        return 2;
    }
    out_dir = argv[1];
    memset(&bd, 0, sizeof bd);
    if ((r = hst_backend_create(&bd, &be)) != HST_SUCCESS) {
        fprintf(stderr, "fingerprint: no backend: %s\n", hst_result_string(r));
        return 2;
    }
    section_esrrf(be);
    section_halo(be);
    section_quality(be);
    section_nufft(be);
    section_array(be);
    section_stream(be);
    if ((r = hst_backend_destroy(be)) != HST_SUCCESS) fail("backend_destroy", r);
    return failures ? 1 : 0;
}
