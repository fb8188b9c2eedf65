/* bench/halo_choice_bench.c — halo.h's host path by measured speed (hst_halo_pack_host_choose
   and hst_halo_unpack_host_choose) on one device: for halos of host arrays, the "host"
   implementation (memcpy'd runs on one thread) against "device" (the fused kernel on the arrays
   in place, hst_buffer_wrap), and what the choice runs once it has measured both.

     build/bench/halo_choice_bench [--device SEL] [--iters N] [--quick]

   Cases (f32 fields, z y x, all 8 boundaries, one peer each, rotation 0):
     small   NDSL-typical: 14 fields of 79 x 102 x 102 (96 x 96 domain, halo 3)
     medium  14 fields of 79 x 390 x 390 (384 x 384 domain, halo 3)
     large   8 fields of 128 x 528 x 528 (512 x 512 domain, halo 8)
   Per case and direction: median of N forced calls of each implementation (after 3 warm-ups),
   then 40 unforced calls (the choice explores and warms up), then the median of N unforced
   calls; "best/chosen" is the faster forced median over that median (the goal: >= 0.9, i.e. the
   choice never more than 10% slower than the best). Every implementation's output is compared
   byte for byte with the host's first (pack: the buffer; unpack: every array). The timings file
   is off, so each run starts from nothing. */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 199309L
#include "halo.h"

#include <string.h>

#include "bench_util.h"

#define WARMUPS 3
#define EXPLORE 40
#define MAX_ITERS 1000

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    return t[n / 2];
}

/* One case: the plan, the host arrays, the buffer. */
typedef struct hcase {
    const char *name;
    size_t nf, nx, nz, h;
    hst_halo_plan *plan;
    void **arrays;
    size_t bytes;                   /* of one array */
    unsigned char *buffer;          /* send_bytes */
    size_t buffer_bytes;
} hcase;

static void case_open(hst_backend *be, hcase *c)
{
    hst_halo_layout *l = (hst_halo_layout *)calloc(c->nf, sizeof *l);
    hst_halo_spec *specs = (hst_halo_spec *)calloc(8 * c->nf, sizeof *specs);
    hst_halo_plan_desc d;
    size_t i, k, ns = 0;
    int b;
    if (!l || !specs) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < c->nf; i++) {
        l[i].ndim = 3; l[i].elem_bytes = 4; l[i].n_halo = c->h;
        l[i].dims[0] = HST_HALO_DIM_Z; l[i].dims[1] = HST_HALO_DIM_Y; l[i].dims[2] = HST_HALO_DIM_X;
        l[i].shape[0] = c->nz; l[i].shape[1] = l[i].shape[2] = c->nx + 2 * c->h;
        l[i].origin[1] = l[i].origin[2] = c->h;
        l[i].extent[0] = c->nz; l[i].extent[1] = l[i].extent[2] = c->nx;
    }
    for (b = 0; b < 8; b++)
        for (i = 0; i < c->nf; i++)
            CHECK(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b, 0, (size_t)b, &specs[ns++]));
    memset(&d, 0, sizeof d);
    d.num_quantities = c->nf; d.layouts = l; d.num_specs = ns; d.specs = specs; d.num_peers = 8;
    CHECK(hst_halo_plan_create(be, &d, &c->plan));
    CHECK(hst_halo_layout_bytes(&l[0], &c->bytes));
    c->buffer_bytes = hst_halo_plan_stats(c->plan).send_bytes;
    c->buffer = (unsigned char *)calloc(1, c->buffer_bytes);
    c->arrays = (void **)calloc(c->nf, sizeof *c->arrays);
    if (!c->buffer || !c->arrays) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < c->nf; i++) {
        float *a = (float *)malloc(c->bytes);
        if (!a) { fprintf(stderr, "out of memory\n"); exit(1); }
        for (k = 0; k < c->bytes / 4; k++) a[k] = (float)(i * 1000003u + k);
        c->arrays[i] = a;
    }
    free(l);
    free(specs);
}

static void case_close(hcase *c)
{
    size_t i;
    for (i = 0; i < c->nf; i++) free(c->arrays[i]);
    free(c->arrays);
    free(c->buffer);
    hst_halo_plan_destroy(c->plan);
}

static hst_result run(hcase *c, int unpack, const char *force, hst_choice_outcome *oc)
{
    return unpack ? hst_halo_unpack_host_choose(c->plan, c->nf, c->arrays, NULL, c->buffer,
                                                force, oc)
                  : hst_halo_pack_host_choose(c->plan, c->nf, c->arrays, NULL, c->buffer,
                                              force, oc);
}

/* Median seconds of iters calls (after warm-ups); *name: what the last one ran. */
static double time_calls(hcase *c, int unpack, const char *force, int iters, const char **name)
{
    double t[MAX_ITERS];
    hst_choice_outcome oc;
    int it;
    for (it = -WARMUPS; it < iters; it++) {
        double t0 = now_s();
        CHECK(run(c, unpack, force, &oc));
        if (it >= 0) t[it] = now_s() - t0;
    }
    if (name) *name = oc.name;
    return median(t, iters);
}

/* What one implementation produces, for the byte-for-byte comparison: pack fills the buffer
   from the original arrays; unpack writes a known buffer into fresh copies of them. */
static unsigned char *snapshot(hcase *c, int unpack, const char *force, void **orig)
{
    size_t i, total = unpack ? c->nf * c->bytes : c->buffer_bytes;
    unsigned char *out = (unsigned char *)malloc(total);
    if (!out) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < c->nf; i++) memcpy(c->arrays[i], orig[i], c->bytes);
    if (unpack) memset(c->buffer, 0x3c, c->buffer_bytes);
    CHECK(run(c, unpack, force, NULL));
    if (!unpack) memcpy(out, c->buffer, total);
    else for (i = 0; i < c->nf; i++) memcpy(out + i * c->bytes, c->arrays[i], c->bytes);
    return out;
}

/* 1 when every implementation gives the host's bytes. */
static int outputs_agree(hcase *c, int unpack, const char *const *impls, size_t n)
{
    void **orig = (void **)calloc(c->nf, sizeof *orig);
    unsigned char *ref, *got;
    size_t i, total = unpack ? c->nf * c->bytes : c->buffer_bytes;
    int same = 1;
    for (i = 0; i < c->nf; i++) {
        orig[i] = malloc(c->bytes);
        if (!orig[i]) { fprintf(stderr, "out of memory\n"); exit(1); }
        memcpy(orig[i], c->arrays[i], c->bytes);
    }
    ref = snapshot(c, unpack, impls[0], orig);
    for (i = 1; i < n; i++) {
        got = snapshot(c, unpack, impls[i], orig);
        same &= memcmp(ref, got, total) == 0;
        free(got);
    }
    for (i = 0; i < c->nf; i++) { memcpy(c->arrays[i], orig[i], c->bytes); free(orig[i]); }
    free(orig);
    free(ref);
    return same;
}

static void bench_case(hst_backend *be, hcase *c, int iters)
{
    static const char *const impls[2] = {"host", "device"};
    size_t n = hst_backend_is_host(be) ? 1 : 2, i;
    int unpack;
    case_open(be, c);
    for (unpack = 0; unpack < 2; unpack++) {
        double t[2] = {0.0, 0.0}, best = 0.0, tc;
        const char *chosen = NULL;
        int agree = outputs_agree(c, unpack, impls, n), k;
        for (i = 0; i < n; i++) {
            t[i] = time_calls(c, unpack, impls[i], iters, NULL);
            if (i == 0 || t[i] < best) best = t[i];
        }
        for (k = 0; k < EXPLORE; k++) CHECK(run(c, unpack, NULL, NULL));
        tc = time_calls(c, unpack, NULL, iters, &chosen);
        char dev[32] = "-";
        if (n > 1) snprintf(dev, sizeof dev, "%.1f us", t[1] * 1e6);
        printf("| %s | %s | %.2f MB | %.1f us | %s | %s | %.3f | %s |\n", c->name,
               unpack ? "unpack" : "pack", c->buffer_bytes / 1e6, t[0] * 1e6, dev, chosen,
               best / tc, agree ? "identical" : "DIFFER");
    }
    case_close(c);
}

int main(int argc, char **argv)
{
    hcase cases[3] = {{"small (NDSL-typical)", 14, 96, 79, 3, NULL, NULL, 0, NULL, 0},
                      {"medium", 14, 384, 79, 3, NULL, NULL, 0, NULL, 0},
                      {"large", 8, 512, 128, 8, NULL, NULL, 0, NULL, 0}};
    hst_backend_desc bd;
    hst_choice_desc cd;
    hst_backend *be;
    int i, iters = 30, quick = 0;
    size_t ncases = 3, k;
    memset(&bd, 0, sizeof bd);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) bd.device = argv[++i];
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--iters N] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (iters < 1) iters = 1;
    if (iters > MAX_ITERS) iters = MAX_ITERS;
    if (quick) ncases = 2;
    CHECK(hst_backend_create(&bd, &be));
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    CHECK(hst_choice_configure(be, &cd));
    printf("halo_choice_bench on %s (%s), %d iterations\n\n", hst_backend_device(be)->name,
           hst_backend_device(be)->driver_version, iters);
    printf("| case | direction | halo bytes | host (median) | device (median) | chosen | "
           "best/chosen | outputs |\n|---|---|---|---|---|---|---|---|\n");
    for (k = 0; k < ncases; k++) bench_case(be, &cases[k], iters);
    CHECK(hst_backend_destroy(be));
    return 0;
}
