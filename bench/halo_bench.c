/* bench/halo_bench.c — halo.h's fused pack/unpack against the device's copy bandwidth and
   against NDSL's unfused pattern, measured in one run on one device (HST_DEVICE or --device).

     build/bench/halo_bench [--device SEL] [--iters N] [--large-fields N] [--quick]
                            [--case large|ndsl]

   1. Large halos: fields of 512 x 512 x 128 (z, y, x; halo 8 on each side), all 8 boundaries,
      rotation 0 and 1: pack + unpack bytes per second (each halo byte read and written once by
      pack and once by unpack) against hst_copy of a buffer as large as the packed halos
      (bytes read + written per second). Goal >= 0.8x. And against this layout's own bound
      (OpenCL devices, rotation 0): the west and east edges are 32-byte runs at the row pitch,
      which DRAM serves at a fraction of streaming speed. A probe moves the same bytes with
      the simplest kernels there are: one gather (pack) and one scatter (unpack) of the two
      8-float runs of every row of every field, plus hst_copy of the north and south edges'
      bytes (rows of 512 floats: contiguous but for 3%); the fused pair's time over the
      probe's says how close the fused kernels come to what the layout allows.
   2. NDSL-typical: 96 x 96 x 79 compute domain, 3-point halo, 10 scalars and 2 vectors (14
      arrays), all 8 boundaries (rotation 1 on the vectors' west edge, as on a cubed-sphere tile
      edge): one fused pack + one fused unpack against the unfused baseline of one launch per
      array per boundary (NDSL's GPU path: 8 x 14 = 112 pack + 112 unpack launches). Goal >= 5x.
   The fused kernels' table variant (kernels.h's RUNS mode, whole 16-byte vectors along
   contiguous runs, or the other modes) is halo.h's choice by measured speed; HST_FORCE=
   "halo_pack_device:runs,halo_unpack_device:runs" (or :fused) times one variant alone.
   Times: best and median of N iterations after 3 warm-ups, each iteration ending in
   hst_queue_finish (wall clock). */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 199309L
#include "halo.h"

#include <string.h>

#include "bench_util.h"

#define WARMUPS 3
#define MAX_ITERS 1000

typedef struct timing { double best, median; } timing;

static timing summarize(double *t, int n)
{
    timing s;
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    s.best = t[0];
    s.median = t[n / 2];
    return s;
}

static hst_halo_layout layout3(size_t nx, size_t ny, size_t nz, size_t h)
{
    hst_halo_layout l;
    memset(&l, 0, sizeof l);
    l.ndim = 3; l.elem_bytes = 4; l.n_halo = h;
    l.dims[0] = HST_HALO_DIM_Z; l.dims[1] = HST_HALO_DIM_Y; l.dims[2] = HST_HALO_DIM_X;
    l.shape[0] = nz; l.shape[1] = ny + 2 * h; l.shape[2] = nx + 2 * h;
    l.origin[1] = l.origin[2] = h;
    l.extent[0] = nz; l.extent[1] = ny; l.extent[2] = nx;
    return l;
}

/* Times `iters` rounds of pack + unpack of every plan in plans[0..np). */
static timing time_plans(hst_backend *be, hst_halo_plan **plans, size_t np, size_t nq,
                         hst_buffer **const *qs, int iters)
{
    double t[MAX_ITERS];
    int it;
    size_t i;
    hst_queue *q = hst_backend_queue(be);
    for (it = -WARMUPS; it < iters; it++) {
        double t0 = now_s();
        for (i = 0; i < np; i++) CHECK(hst_halo_pack(plans[i], q, nq, qs[i], 0, NULL, NULL));
        for (i = 0; i < np; i++) CHECK(hst_halo_unpack(plans[i], q, nq, qs[i], 0, NULL, NULL));
        CHECK(hst_queue_finish(q));
        if (it >= 0) t[it] = now_s() - t0;
    }
    return summarize(t, iters);
}

static timing time_copy(hst_backend *be, hst_buffer *dst, hst_buffer *src, size_t bytes, int iters)
{
    double t[MAX_ITERS];
    int it;
    hst_queue *q = hst_backend_queue(be);
    for (it = -WARMUPS; it < iters; it++) {
        double t0 = now_s();
        CHECK(hst_copy(q, dst, 0, src, 0, bytes, 0, NULL, NULL));
        CHECK(hst_queue_finish(q));
        if (it >= 0) t[it] = now_s() - t0;
    }
    return summarize(t, iters);
}

/* The layout-bound probe's kernels: row r of the fields (pitch P floats) holds two runs of R
   floats, at O0 and O1; element i of the packed side is run (i / R) % 2 of row i / (2 R). */
static const char *const probe_src =
    "__kernel void gather(__global const float *f, __global float *p) {\n"
    "    uint i = get_global_id(0), r = i / (2 * R), k = i % (2 * R);\n"
    "    p[i] = f[r * P + (k < R ? O0 + k : O1 + k - R)];\n"
    "}\n"
    "__kernel void scatter(__global float *f, __global const float *p) {\n"
    "    uint i = get_global_id(0), r = i / (2 * R), k = i % (2 * R);\n"
    "    f[r * P + (k < R ? O0 + k : O1 + k - R)] = p[i];\n"
    "}\n";

/* Times `iters` rounds of what the layout allows: gather + scatter of the west and east runs
   of rows rows (one launch each, all fields in one buffer), plus two hst_copy of ns_bytes (the
   north and south edges, pack and unpack). Where the fields exceed the device's largest
   allocation, a fraction of both is timed and the times scaled up (said in *scale). */
static timing time_probe(hst_backend *be, size_t n, size_t h, size_t rows, size_t ns_bytes,
                         int iters, double *scale)
{
    char opts[128];
    const size_t pitch = n + 2 * h, run = h, fit = hst_backend_device(be)->max_alloc_bytes
                                                  / (pitch * 4);
    size_t moved;
    hst_queue *q = hst_backend_queue(be);
    timing tm;
    hst_program *prog;
    hst_kernel *g, *sc;
    hst_buffer *fields, *packed, *a, *b;
    double t[MAX_ITERS];
    int it;
    *scale = 1.0;
    if (rows > fit) {
        *scale = (double)rows / (double)fit;
        ns_bytes = (size_t)((double)ns_bytes / *scale) / 4 * 4;
        rows = fit;
    }
    moved = rows * 2 * run;
    snprintf(opts, sizeof opts, "-DR=%zuu -DP=%zuu -DO0=%zuu -DO1=%zuu", run, pitch, h, n);
    CHECK(hst_program_build(be, 1, &probe_src, opts, &prog));
    CHECK(hst_kernel_create(prog, "gather", &g));
    CHECK(hst_kernel_create(prog, "scatter", &sc));
    CHECK(hst_buffer_create(be, rows * pitch * 4, 0, &fields));
    CHECK(hst_buffer_create(be, moved * 4, 0, &packed));
    CHECK(hst_buffer_create(be, ns_bytes, 0, &a));
    CHECK(hst_buffer_create(be, ns_bytes, 0, &b));
    CHECK(hst_fill(q, fields, &it, 1, 0, rows * pitch * 4, 0, NULL, NULL));
    CHECK(hst_fill(q, a, &it, 1, 0, ns_bytes, 0, NULL, NULL));
    CHECK(hst_kernel_set_buffer(g, 0, fields));
    CHECK(hst_kernel_set_buffer(g, 1, packed));
    CHECK(hst_kernel_set_buffer(sc, 0, fields));
    CHECK(hst_kernel_set_buffer(sc, 1, packed));
    for (it = -WARMUPS; it < iters; it++) {
        double t0 = now_s();
        CHECK(hst_launch(q, g, 1, &moved, NULL, 0, NULL, NULL));
        CHECK(hst_copy(q, b, 0, a, 0, ns_bytes, 0, NULL, NULL));
        CHECK(hst_launch(q, sc, 1, &moved, NULL, 0, NULL, NULL));
        CHECK(hst_copy(q, a, 0, b, 0, ns_bytes, 0, NULL, NULL));
        CHECK(hst_queue_finish(q));
        if (it >= 0) t[it] = now_s() - t0;
    }
    hst_buffer_destroy(fields); hst_buffer_destroy(packed);
    hst_buffer_destroy(a); hst_buffer_destroy(b);
    hst_kernel_destroy(g); hst_kernel_destroy(sc);
    hst_program_release(prog);
    tm = summarize(t, iters);
    tm.best *= *scale;
    tm.median *= *scale;
    return tm;
}

static void large(hst_backend *be, int iters, size_t nf, int quick)
{
    size_t n = quick ? 128 : 512, nz = quick ? 16 : 128, h = 8, i, bytes, halo_bytes;
    hst_halo_layout *l = (hst_halo_layout *)calloc(nf, sizeof *l);
    hst_halo_spec *specs = (hst_halo_spec *)calloc(8 * nf, sizeof *specs);
    hst_buffer **q = (hst_buffer **)calloc(nf, sizeof *q), *a, *b;
    hst_halo_plan *plan;
    hst_halo_plan_desc d;
    timing tp, tc = {1.0, 1.0};
    unsigned r;
    for (i = 0; i < nf; i++) l[i] = layout3(n, n, nz, h);
    CHECK(hst_halo_layout_bytes(&l[0], &bytes));
    for (i = 0; i < nf; i++) {
        float v = (float)i;
        CHECK(hst_buffer_create(be, bytes, 0, &q[i]));
        CHECK(hst_fill(hst_backend_queue(be), q[i], &v, 4, 0, bytes, 0, NULL, NULL));
    }
    printf("1. large halos: %zu fields of %zu x %zu x %zu floats (z, y, x), halo %zu, 8 boundaries\n",
           nf, nz, n, n, h);
    for (r = 0; r < 2; r++) {
        size_t ns = 0, b2;
        int bd;
        for (bd = 0; bd < 8; bd++)
            for (i = 0; i < nf; i++)
                CHECK(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)bd, r, (size_t)bd, &specs[ns++]));
        memset(&d, 0, sizeof d);
        d.num_quantities = nf; d.layouts = l; d.num_specs = ns; d.specs = specs; d.num_peers = 8;
        CHECK(hst_halo_plan_create(be, &d, &plan));
        halo_bytes = hst_halo_plan_stats(plan).send_bytes;
        tp = time_plans(be, &plan, 1, nf, &q, iters);
        if (r == 0) {
            CHECK(hst_buffer_create(be, halo_bytes, 0, &a));
            CHECK(hst_buffer_create(be, halo_bytes, 0, &b));
            CHECK(hst_fill(hst_backend_queue(be), b, &r, 4, 0, halo_bytes / 4 * 4, 0, NULL, NULL));
            tc = time_copy(be, a, b, halo_bytes, iters);
            hst_buffer_destroy(a);
            hst_buffer_destroy(b);
            printf("   copy of %.1f MB (hst_copy): best %.3f ms, %.1f GB/s read+write\n",
                   halo_bytes / 1e6, tc.best * 1e3, 2.0 * halo_bytes / tc.best / 1e9);
        }
        /* pack reads + writes halo_bytes, unpack the same: 4 x halo_bytes moved */
        b2 = 4 * halo_bytes;
        printf("   rotation %u: pack + unpack of %.1f MB each: best %.3f ms (median %.3f), "
               "%.1f GB/s read+write = %.2fx copy  [launches: 1 + 1]\n",
               r, halo_bytes / 1e6, tp.best * 1e3, tp.median * 1e3, b2 / tp.best / 1e9,
               (b2 / tp.best) / (2.0 * halo_bytes / tc.best));
        if (r == 0 && !hst_backend_is_host(be)) {
            /* west + east: every interior row of every field; north + south: 2 h rows of n
               per z of every field */
            size_t rows = nf * nz * n, ns = nf * nz * 2 * h * n * 4;
            double scale;
            timing tb = time_probe(be, n, h, rows, ns, iters, &scale);
            printf("   layout bound (probe: gather + scatter of the %zu-float W/E runs at a "
                   "%zu-float pitch, hst_copy of the N/S bytes%s): best %.3f ms; fused / "
                   "probe speed %.2f\n", h, n + 2 * h,
                   scale > 1.0 ? "; a part timed, scaled up" : "", tb.best * 1e3,
                   tb.best / tp.best);
        }
        hst_halo_plan_destroy(plan);
    }
    for (i = 0; i < nf; i++) hst_buffer_destroy(q[i]);
    free(l); free(specs); free(q);
}

static void ndsl(hst_backend *be, int iters)
{
    enum { NQ = 14, NB = 8 };
    hst_halo_layout l[NQ];
    hst_halo_spec specs[NB * 12], one[NB * NQ];
    hst_buffer *q[NQ], **qs_un[NB * NQ], **qs_f[1];
    hst_halo_plan *fused, *unfused[NB * NQ];
    hst_halo_plan_desc d;
    size_t i, ns = 0, nu = 0, bytes;
    int b;
    timing tf, tu;
    double *hostq[NQ];
    unsigned char *hb;
    for (i = 0; i < NQ; i++) l[i] = layout3(96, 96, 79, 3);
    CHECK(hst_halo_layout_bytes(&l[0], &bytes));
    for (i = 0; i < NQ; i++) {
        float v = (float)i;
        CHECK(hst_buffer_create(be, bytes, 0, &q[i]));
        CHECK(hst_fill(hst_backend_queue(be), q[i], &v, 4, 0, bytes, 0, NULL, NULL));
    }
    for (b = 0; b < NB; b++) {
        unsigned rot = b == HST_HALO_WEST ? 1u : 0u;
        for (i = 0; i < 10; i++)
            CHECK(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b, rot, (size_t)b, &specs[ns++]));
        for (i = 10; i < NQ; i += 2)
            CHECK(hst_halo_spec_vector(&l[i], i, &l[i + 1], i + 1, (hst_halo_boundary)b, rot,
                                       (size_t)b, &specs[ns++]));
        /* the baseline: one plan (one launch) per array per boundary */
        for (i = 0; i < NQ; i++) {
            CHECK(hst_halo_spec_scalar(&l[i], 0, (hst_halo_boundary)b, rot, 0, &one[nu]));
            memset(&d, 0, sizeof d);
            d.num_quantities = 1; d.layouts = &l[i]; d.num_specs = 1; d.specs = &one[nu];
            CHECK(hst_halo_plan_create(be, &d, &unfused[nu]));
            qs_un[nu] = &q[i];
            nu++;
        }
    }
    memset(&d, 0, sizeof d);
    d.num_quantities = NQ; d.layouts = l; d.num_specs = ns; d.specs = specs; d.num_peers = NB;
    CHECK(hst_halo_plan_create(be, &d, &fused));
    qs_f[0] = q;
    tf = time_plans(be, &fused, 1, NQ, qs_f, iters);
    tu = time_plans(be, unfused, nu, 1, qs_un, iters);
    printf("2. NDSL-typical: 96 x 96 x 79, halo 3, 10 scalars + 2 vectors, 8 boundaries "
           "(%.2f MB packed)\n", hst_halo_plan_stats(fused).send_bytes / 1e6);
    printf("   fused:   best %.1f us (median %.1f) per pack + unpack  [launches: 1 + 1]\n",
           tf.best * 1e6, tf.median * 1e6);
    printf("   unfused: best %.1f us (median %.1f) per pack + unpack  [launches: %zu + %zu]\n",
           tu.best * 1e6, tu.median * 1e6, nu, nu);
    printf("   fused / unfused speed-up: %.1fx (best), %.1fx (median)\n", tu.best / tf.best,
           tu.median / tf.median);
    /* the host path on the same plan (host arrays), for reference */
    for (i = 0; i < NQ; i++) hostq[i] = (double *)calloc(bytes, 1);
    hb = (unsigned char *)malloc(hst_halo_plan_stats(fused).send_bytes);
    {   /* correctness on this device: random bit patterns (NaNs included), device vs host path */
        size_t sb = hst_halo_plan_stats(fused).send_bytes, k, p;
        unsigned char *db = (unsigned char *)malloc(sb), *dq = (unsigned char *)malloc(bytes);
        uint64_t x = 88172645463325252ull;
        int same = 1;
        for (i = 0; i < NQ; i++) {
            unsigned char *h = (unsigned char *)hostq[i];
            for (k = 0; k < bytes; k++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; h[k] = (unsigned char)x; }
            CHECK(hst_write(hst_backend_queue(be), q[i], 0, h, bytes, 1, 0, NULL, NULL));
        }
        CHECK(hst_halo_pack(fused, NULL, NQ, q, 0, NULL, NULL));
        CHECK(hst_read(hst_backend_queue(be), hst_halo_plan_send_buffer(fused), 0, db, sb, 1, 0,
                       NULL, NULL));
        CHECK(hst_halo_pack_host(fused, NQ, (void *const *)hostq, NULL, hb));
        for (p = 0; p < NB; p++) {
            size_t so = 0, sn = 0;
            CHECK(hst_halo_plan_peer(fused, p, &so, &sn, NULL, NULL));
            same &= memcmp(db + so, hb + so, sn) == 0;
            CHECK(hst_halo_copy_peer(fused, p, fused, p, NULL, 0, NULL, NULL));
        }
        CHECK(hst_halo_unpack(fused, NULL, NQ, q, 0, NULL, NULL));
        CHECK(hst_halo_unpack_host(fused, NQ, (void *const *)hostq, NULL, hb));
        for (i = 0; i < NQ; i++) {
            CHECK(hst_read(hst_backend_queue(be), q[i], 0, dq, bytes, 1, 0, NULL, NULL));
            same &= memcmp(dq, hostq[i], bytes) == 0;
        }
        printf("   device pack and unpack identical to the host path, bit for bit: %s\n",
               same ? "yes" : "NO");
        free(db);
        free(dq);
    }
    {
        double t[MAX_ITERS];
        int it;
        timing th;
        for (it = -WARMUPS; it < iters; it++) {
            double t0 = now_s();
            CHECK(hst_halo_pack_host(fused, NQ, (void *const *)hostq, NULL, hb));
            CHECK(hst_halo_unpack_host(fused, NQ, (void *const *)hostq, NULL, hb));
            if (it >= 0) t[it] = now_s() - t0;
        }
        th = summarize(t, iters);
        printf("   host path (one thread, memcpy runs): best %.1f us per pack + unpack\n",
               th.best * 1e6);
    }
    for (i = 0; i < NQ; i++) { free(hostq[i]); hst_buffer_destroy(q[i]); }
    free(hb);
    for (i = 0; i < nu; i++) hst_halo_plan_destroy(unfused[i]);
    hst_halo_plan_destroy(fused);
}

int main(int argc, char **argv)
{
    hst_backend_desc bd;
    hst_backend *be;
    int i, iters = 50, quick = 0;
    const char *only = "";   /* --case: one of the two cases alone */
    size_t nf = 8;
    memset(&bd, 0, sizeof bd);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) bd.device = argv[++i];
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--large-fields") && i + 1 < argc) nf = (size_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = argv[++i];
        else { fprintf(stderr, "usage: %s [--device SEL] [--iters N] [--large-fields N] [--quick] "
                       "[--case large|ndsl]\n", argv[0]); return 2; }
    }
    if (iters < 1) iters = 1;
    if (iters > MAX_ITERS) iters = MAX_ITERS;
    if (nf < 1 || nf > HST_HALO_MAX_QUANTITIES) nf = 8;
    CHECK(hst_backend_create(&bd, &be));
    printf("halo_bench on %s (%s), %d iterations, device variant: %s\n",
           hst_backend_device(be)->name, hst_backend_device(be)->driver_version, iters,
           getenv("HST_FORCE") ? getenv("HST_FORCE") : "chosen by measured speed");
    if (strcmp(only, "ndsl") != 0) large(be, iters, nf, quick);
    if (strcmp(only, "large") != 0) ndsl(be, iters);
    CHECK(hst_backend_destroy(be));
    return 0;
}
