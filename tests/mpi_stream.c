/* mpi-ranks: 1 2 3 4 */
/* tests/mpi_stream.c — stream.h over MPI ranks (HST_STREAM_MPI, desc.mpi_comm) under `mpirun -np
   1..4` (the counts above, read by tests/run.sh): every rank runs the same stream alone on the
   whole array (mpi_comm NULL) as the reference, then the stream over the ranks on its own
   slices, and the two must agree bit for bit: outputs (a chain of two halo stages through a
   TEMP array, halos on both sides), accumulators (SUM, SQSUM, DIFF2) and a GLOBAL array
   (integer-valued data: exact whatever the split), for N = 1, 2, 3 (fewer slices than ranks)
   and 23 (not divisible by 2, 3 or 4), forward and reverse, default and small blocks, one and
   two devices per rank, pageable and pinned local memory. A GLOBAL array of non-integer data is
   checked against its definition: the copies of rank 0 (from the caller's contents) and of
   every later rank (from zeros) summed in rank order, device by device (on the host device a
   rank's devices update one copy). Then the rank ranges, the split by measured speeds, and
   errors on one rank only (a bad desc, descriptions that differ, a budget too small, out NULL,
   memory not given, a host twin's error, a cancel): every rank returns the same code, no rank
   hangs, and every other rank logs HST_LOGITEM_RANK_FAILED naming the failing one. Rank 0 prints
   TAP.

   The device is HST_DEVICE's (every rank uses the same one). */
#define HST_IMPLEMENTATION
#define HST_STREAM_MPI
#include <mpi.h>
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#include "mpi_tap.h"

#define E 16                /* floats per slice */
#define SENTINEL (-1234.5f)

static int bad_rank;
static hst_backend *be[2];
static cap_log logs[2];

/* One TAP line for a check every rank made: ok only where it held on every rank. */


/* ---- the stages --------------------------------------------------------------------------
   "wsum": y[g] = sum over d = -lo..hi of (2 d + 9) x[g + d] (terms outside [0, N) left out)
   + c g, NaN where the flags do not match the compute range (a wrong base or offset shows).
   "colsum": g[i] += x[z][i] over the block's slices, in order (a GLOBAL accumulation). */
static const char *const SRC[] = {
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void wsum(__global const float *x, __global float *y, uint lo, uint hi, float c,\n"
    "                   ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0), z = begin + get_global_id(1);\n"
    "  if (i >= 16 || z >= end) return;\n"
    "  long g = (long)(base + z);\n"
    "  float acc = 0.0f;\n"
    "  for (int d = -(int)lo; d <= (int)hi; d++) {\n"
    "    if (g + d < 0 || g + d >= (long)total) continue;\n"
    "    float t = (float)(2 * d + 9) * x[((long)z + d) * 16 + (long)i];\n"
    "    acc = acc + t;\n"
    "  }\n"
    "  float cg = c * (float)g;\n"
    "  acc = acc + cg;\n"
    "  if (flags != ((base + begin == 0 ? 1 : 0) | (base + end == total ? 2 : 0))) acc = NAN;\n"
    "  y[z * 16 + i] = acc;\n"
    "}\n"
    "__kernel void colsum(__global const float *x, __global float *g, ulong base, ulong begin,\n"
    "                     ulong end, ulong total, int flags)\n"
    "{\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i >= 16) return;\n"
    "  for (ulong z = begin; z < end; z++) g[i] += x[z * 16 + i];\n"
    "}\n"
};

typedef struct wpar { uint32_t lo, hi; float c; } wpar;

static int fail_here;   /* a rank whose host twins fail */

static hst_result wsum_host(void *const *a, const void *const *sc, const hst_stream_block *b, void *user)
{
    const float *x = (const float *)a[0];
    float *y = (float *)a[1];
    const wpar *p = (const wpar *)user;
    uint64_t z;
    int i, d;
    (void)sc;
    if (fail_here) return HST_ERROR_IO;
    for (z = b->begin; z < b->end; z++)
        for (i = 0; i < E; i++) {
            int64_t g = (int64_t)(b->base + z);
            float acc = 0.0f, cg;
            int want = (b->base + b->begin == 0 ? HST_STREAM_FIRST : 0) |
                       (b->base + b->end == b->total ? HST_STREAM_LAST : 0);
            for (d = -(int)p->lo; d <= (int)p->hi; d++) {
                float t;
                if (g + d < 0 || g + d >= (int64_t)b->total) continue;
                if (g + d < (int64_t)b->base) return HST_ERROR_ALIGNMENT;   /* not loaded */
                t = (float)(2 * d + 9) * x[((int64_t)z + d) * E + i];
                acc = acc + t;
            }
            cg = p->c * (float)g;
            acc = acc + cg;
            y[z * E + i] = b->flags == want ? acc : (float)NAN;
        }
    return HST_SUCCESS;
}

static hst_result colsum_host(void *const *a, const void *const *sc, const hst_stream_block *b, void *user)
{
    const float *x = (const float *)a[0];
    float *g = (float *)a[1];
    uint64_t z;
    int i;
    (void)sc; (void)user;
    for (i = 0; i < E; i++)
        for (z = b->begin; z < b->end; z++) g[i] += x[z * E + i];
    return HST_SUCCESS;
}

/* ---- the chain -----------------------------------------------------------------------------
   arrays: 0 x INPUT, 1 t TEMP, 2 y OUTPUT, 3 g GLOBAL (E floats); stages: wsum x -> t (halo 2,
   1), wsum t -> y (halo 1, 2), colsum x -> g; accumulators SUM(y), SQSUM(x), DIFF2(y, x). The
   chain's halo: 3 slices on each side. With global_only, colsum x -> g alone. */
#define CHAIN_HALO 3
typedef struct chain {
    hst_stream_array arr[4];
    hst_stream_stage st[3];
    hst_stream_acc acc[3];
    wpar par[2];
    int idx[4];
    unsigned nst, nacc, narr;
} chain;

static void stage(hst_stream_stage *st, const char *kernel, hst_stream_host_fn host, void *user,
                  const int *in, const int *out)
{
    memset(st, 0, sizeof *st);
    st->name = kernel; st->sources = SRC; st->num_sources = 1; st->kernel = kernel;
    st->host = host; st->host_user = user; st->items_per_slice = E;
    st->num_inputs = 1; st->inputs = in; st->num_outputs = 1; st->outputs = out;
}

static void chain_init(chain *c, int global_only, float *g)
{
    int k;
    memset(c, 0, sizeof *c);
    for (k = 0; k < 4; k++) c->idx[k] = k;
    c->arr[0].kind = HST_STREAM_INPUT; c->arr[0].slice_bytes = E * sizeof(float);
    c->arr[1].kind = HST_STREAM_TEMP; c->arr[1].slice_bytes = E * sizeof(float);
    c->arr[2].kind = HST_STREAM_OUTPUT; c->arr[2].slice_bytes = E * sizeof(float);
    c->arr[3].kind = HST_STREAM_GLOBAL; c->arr[3].global_bytes = E * sizeof(float);
    c->arr[3].dtype = HST_F32; c->arr[3].host = g;
    c->par[0].lo = 2; c->par[0].hi = 1; c->par[0].c = 0.25f;
    c->par[1].lo = 1; c->par[1].hi = 2; c->par[1].c = -0.5f;
    for (k = 0; k < 2; k++) {
        hst_stream_stage *st = &c->st[k];
        stage(st, "wsum", wsum_host, &c->par[k], &c->idx[k], &c->idx[k + 1]);
        st->halo_lo = c->par[k].lo; st->halo_hi = c->par[k].hi;
        st->num_scalars = 3;
        st->scalar_bytes[0] = st->scalar_bytes[1] = sizeof(uint32_t); st->scalar_bytes[2] = sizeof(float);
        st->scalars[0] = &c->par[k].lo; st->scalars[1] = &c->par[k].hi; st->scalars[2] = &c->par[k].c;
    }
    stage(&c->st[2], "colsum", colsum_host, NULL, &c->idx[0], &c->idx[3]);
    c->st[2].loop_slices = 1;
    c->acc[0].kind = HST_STREAM_SUM; c->acc[0].dtype = HST_F32; c->acc[0].a = 2;
    c->acc[1].kind = HST_STREAM_SQSUM; c->acc[1].dtype = HST_F32; c->acc[1].a = 0;
    c->acc[2].kind = HST_STREAM_DIFF2; c->acc[2].dtype = HST_F32; c->acc[2].a = 2; c->acc[2].b = 0;
    c->narr = 4; c->nst = 3; c->nacc = 3;
    if (global_only) {   /* colsum alone: x and g */
        c->st[0] = c->st[2];
        c->st[0].outputs = &c->idx[1];
        c->arr[1] = c->arr[3];
        c->narr = 2; c->nst = 1; c->nacc = 0;
    }
}

static hst_stream_desc chain_desc(chain *c, uint64_t N, unsigned nb, int reverse, uint64_t block,
                                  const void *comm)
{
    hst_stream_desc d;
    memset(&d, 0, sizeof d);
    d.backends = be; d.num_backends = nb; d.num_slices = N;
    d.arrays = c->arr; d.num_arrays = c->narr; d.stages = c->st; d.num_stages = c->nst;
    d.accumulators = c->acc; d.num_accumulators = c->nacc;
    d.block_slices = block; d.reverse = reverse; d.mpi_comm = comm;
    return d;
}

static int exact_data = 1;
static void fill_x(float *x, uint64_t N)
{
    uint64_t k;
    for (k = 0; k < N * E; k++)
        x[k] = exact_data ? (float)((k * 131u + 7u) % 17u) - 8.0f            /* small integers */
                          : (float)((k * 2654435761u) % 1000003u) / 997.0f;   /* not integers */
}
static void fill_g(float *g)
{
    int i;
    for (i = 0; i < E; i++) g[i] = exact_data ? (float)(i - 5) : 0.1f * (float)i;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    return p;
}

/* The stream over the ranks with this rank's slices of x (pageable or pinned) and y: creates,
   asks the range, gives the memory, runs. y_loc gets this rank's loaded range (SENTINEL where
   not written). Returns the run's result (or create's). */
typedef struct ranked {
    hst_stream *s;
    uint64_t own0, own1, load0, load1;
    float *y_loc;
    hst_buffer *pin;
    hst_stream_report rep;
} ranked;

static hst_result ranked_run(chain *c, hst_stream_desc *d, const float *x, int pinned, ranked *rk)
{
    hst_result r;
    uint64_t L, k;
    float *x_loc = NULL;
    memset(rk, 0, sizeof *rk);
    c->arr[0].host = NULL;
    if (c->narr > 2) c->arr[2].host = NULL;
    if ((r = hst_stream_create(d, &rk->s)) != HST_SUCCESS) return r;
    if ((r = hst_stream_rank_range(rk->s, &rk->own0, &rk->own1, &rk->load0, &rk->load1)) != HST_SUCCESS) return r;
    L = rk->load1 - rk->load0;
    rk->y_loc = (float *)xmalloc(L * E * sizeof(float));
    for (k = 0; k < L * E; k++) rk->y_loc[k] = SENTINEL;
    if (L) {
        if (pinned) {
            if (hst_pinned_create(be[0], L * E * sizeof(float), &rk->pin) != HST_SUCCESS) return HST_ERROR_IO;
            x_loc = (float *)hst_buffer_host_ptr(rk->pin);
        } else
            x_loc = (float *)xmalloc(L * E * sizeof(float));
        memcpy(x_loc, x + rk->load0 * E, L * E * sizeof(float));
        if ((r = hst_stream_set_array(rk->s, 0, pinned ? NULL : x_loc, rk->pin)) != HST_SUCCESS) return r;
        if (c->narr > 2 && (r = hst_stream_set_array(rk->s, 2, rk->y_loc, NULL)) != HST_SUCCESS) return r;
    }
    r = hst_stream_run(rk->s, &rk->rep);
    if (!pinned) free(x_loc);
    return r;
}

static void ranked_free(ranked *rk)
{
    hst_stream_destroy(rk->s);
    hst_buffer_destroy(rk->pin);
    free(rk->y_loc);
    memset(rk, 0, sizeof *rk);
}

/* 1 when the loaded range's owned slices equal the reference and the rest is untouched. */
static int outputs_equal(const ranked *rk, const float *y_ref)
{
    uint64_t z;
    for (z = rk->load0; z < rk->load1; z++) {
        const float *got = rk->y_loc + (z - rk->load0) * E;
        int owned = z >= rk->own0 && z < rk->own1, i;
        for (i = 0; i < E; i++)
            if (owned ? memcmp(&got[i], &y_ref[z * E + i], sizeof(float)) != 0 : got[i] != SENTINEL) {
                fprintf(stderr, "rank %d: slice %llu element %d: %g, expected %g\n", me,
                        (unsigned long long)z, i, (double)got[i], owned ? (double)y_ref[z * E + i] : (double)SENTINEL);
                return 0;
            }
    }
    return 1;
}

/* ---- bit-identical to one process ------------------------------------------------------- */
static void check_same_bits(uint64_t N, int reverse, uint64_t block, unsigned nb, int pinned)
{
    chain c;
    float *x = (float *)xmalloc(N * E * sizeof(float)), *y_ref = (float *)xmalloc(N * E * sizeof(float));
    float g_ref[E], g[E];
    hst_stream *ref = NULL;
    hst_stream_report rep_ref;
    hst_stream_desc d;
    ranked rk;
    char name[160];
    int ok;
    hst_result r;
    fill_x(x, N);
    fill_g(g_ref);
    chain_init(&c, 0, g_ref);
    c.arr[0].host = x; c.arr[2].host = y_ref;
    d = chain_desc(&c, N, nb, reverse, block, NULL);
    ok = hst_stream_create(&d, &ref) == HST_SUCCESS && hst_stream_run(ref, &rep_ref) == HST_SUCCESS;
    hst_stream_destroy(ref);
    fill_g(g);
    c.arr[3].host = g;
    d = chain_desc(&c, N, nb, reverse, block, &(MPI_Comm){MPI_COMM_WORLD});
    r = ranked_run(&c, &d, x, pinned, &rk);
    if (r != HST_SUCCESS) fprintf(stderr, "rank %d: %s\n", me, hst_result_string(r));
    ok = ok && r == HST_SUCCESS && outputs_equal(&rk, y_ref) &&
         memcmp(rk.rep.acc, rep_ref.acc, 3 * sizeof(double)) == 0 && memcmp(g, g_ref, sizeof g) == 0 &&
         rk.rep.rank_begin == rk.own0 && rk.rep.rank_end == rk.own1 &&
         rk.rep.slices_done == rk.own1 - rk.own0 && rk.rep.slices_done_all == N;
    if (ok && rk.own1 > rk.own0 && (rk.rep.range_begin[0] != rk.own0 || rk.rep.range_end[nb - 1] != rk.own1))
        ok = 0;
    ranked_free(&rk);
    snprintf(name, sizeof name, "N=%llu %s block=%llu devices=%u %s: outputs, SUM/SQSUM/DIFF2 and GLOBAL "
             "bits equal one process", (unsigned long long)N, reverse ? "reverse" : "forward",
             (unsigned long long)block, nb, pinned ? "pinned" : "pageable");
    tap(name, ok);
    free(x);
    free(y_ref);
}

/* MPI_COMM_SELF: one rank of its own, the whole array, the same bits as mpi_comm NULL. */
static void check_comm_self(void)
{
    const uint64_t N = 23;
    chain c;
    float *x = (float *)xmalloc(N * E * sizeof(float)), *y1 = (float *)xmalloc(N * E * sizeof(float));
    float *y2 = (float *)xmalloc(N * E * sizeof(float)), g1[E], g2[E];
    hst_stream *s = NULL;
    hst_stream_report r1, r2;
    hst_stream_desc d;
    uint64_t o0 = 9, o1 = 9, l0 = 9, l1 = 9;
    int ok;
    fill_x(x, N);
    fill_g(g1);
    fill_g(g2);
    chain_init(&c, 0, g1);
    c.arr[0].host = x; c.arr[2].host = y1;
    d = chain_desc(&c, N, 1, 0, 4, NULL);
    ok = hst_stream_create(&d, &s) == HST_SUCCESS && hst_stream_run(s, &r1) == HST_SUCCESS &&
         hst_stream_rank_range(s, &o0, &o1, &l0, &l1) == HST_SUCCESS && o0 == 0 && o1 == N && l0 == 0 && l1 == N;
    hst_stream_destroy(s);
    s = NULL;
    c.arr[2].host = y2; c.arr[3].host = g2;
    d = chain_desc(&c, N, 1, 0, 4, &(MPI_Comm){MPI_COMM_SELF});
    ok = ok && hst_stream_create(&d, &s) == HST_SUCCESS && hst_stream_run(s, &r2) == HST_SUCCESS &&
         memcmp(y1, y2, N * E * sizeof(float)) == 0 && memcmp(g1, g2, sizeof g1) == 0 &&
         memcmp(r1.acc, r2.acc, sizeof r1.acc) == 0;
    hst_stream_destroy(s);
    tap("MPI_COMM_SELF: memory given at create, the same bits as one process", ok);
    free(x); free(y1); free(y2);
}

/* Non-integer GLOBAL data: the definition, built from the ranges the ranks report. The copies
   (per device on OpenCL devices, per rank on the host device) are summed in order: the first
   from the caller's contents, the others from zeros, each updated slice by slice in its walk
   order (blocks of B from its range's start, or from its end in reverse). */
static void copy_update(float *g, const float *x, uint64_t r0, uint64_t r1, uint64_t B, int reverse)
{
    uint64_t n = r1 > r0 ? (r1 - r0 + B - 1) / B : 0, k, z, b0, b1;
    int e;
    for (k = 0; k < n; k++) {
        if (reverse) { b1 = r1 - k * B; b0 = b1 - r0 > B ? b1 - B : r0; }
        else { b0 = r0 + k * B; b1 = b0 + B < r1 ? b0 + B : r1; }
        for (e = 0; e < E; e++)
            for (z = b0; z < b1; z++) g[e] += x[z * E + (uint64_t)e];
    }
}

static void check_global_definition(uint64_t N, int reverse, unsigned nb)
{
    chain c;
    float *x = (float *)xmalloc(N * E * sizeof(float)), g[E], want[E];
    uint64_t mine[2 * 2 + 1], *all = (uint64_t *)xmalloc((size_t)nranks * 5 * sizeof(uint64_t));
    hst_stream_desc d;
    ranked rk;
    char name[128];
    int ok, host = hst_backend_is_host(be[0]), k;
    unsigned dv;
    hst_result r;
    exact_data = 0;
    fill_x(x, N);
    fill_g(g);
    chain_init(&c, 1, g);
    d = chain_desc(&c, N, nb, reverse, 3, &(MPI_Comm){MPI_COMM_WORLD});
    r = ranked_run(&c, &d, x, 0, &rk);
    ok = r == HST_SUCCESS;
    /* every rank's device ranges and block, to every rank */
    for (dv = 0; dv < 2; dv++) {
        mine[2 * dv] = dv < nb ? rk.rep.range_begin[dv] : 0;
        mine[2 * dv + 1] = dv < nb ? rk.rep.range_end[dv] : 0;
    }
    mine[4] = rk.rep.block_slices;
    MPI_Allgather(mine, 5, MPI_UINT64_T, all, 5, MPI_UINT64_T, MPI_COMM_WORLD);
    fill_g(want);
    for (k = 0; k < nranks; k++) {
        float part[E];
        int e;
        uint64_t *q = all + 5 * k;
        if (host) {   /* the rank's one copy: its devices one after the other */
            memset(part, 0, sizeof part);
            if (k == 0) fill_g(part);
            for (dv = 0; dv < nb; dv++) copy_update(part, x, q[2 * dv], q[2 * dv + 1], q[4], reverse);
            if (k == 0) memcpy(want, part, sizeof part);
            else if (q[1] > q[0] || q[3] > q[2]) for (e = 0; e < E; e++) want[e] += part[e];
            continue;
        }
        for (dv = 0; dv < nb; dv++) {
            if (q[2 * dv + 1] == q[2 * dv] && !(k == 0 && dv == 0)) continue;   /* no slices: adds 0 */
            memset(part, 0, sizeof part);
            if (k == 0 && dv == 0) fill_g(part);
            copy_update(part, x, q[2 * dv], q[2 * dv + 1], q[4], reverse);
            if (k == 0 && dv == 0) memcpy(want, part, sizeof part);
            else for (e = 0; e < E; e++) want[e] += part[e];
        }
    }
    ok = ok && memcmp(g, want, sizeof g) == 0;
    if (!ok) fprintf(stderr, "rank %d: g[0] %.9g, want %.9g (%s)\n", me, (double)g[0], (double)want[0], hst_result_string(r));
    ranked_free(&rk);
    exact_data = 1;
    snprintf(name, sizeof name, "non-integer GLOBAL N=%llu %s devices=%u: rank-order sum as defined",
             (unsigned long long)N, reverse ? "reverse" : "forward", nb);
    tap(name, ok);
    free(x);
    free(all);
}

/* ---- the ranges ------------------------------------------------------------------------- */
static void check_ranges(uint64_t N)
{
    chain c;
    float g[E];
    hst_stream *s = NULL;
    hst_stream_desc d;
    uint64_t mine[4] = {0, 0, 0, 0}, *all = (uint64_t *)xmalloc((size_t)nranks * 4 * sizeof(uint64_t)), at = 0;
    char name[96];
    int ok, k;
    fill_g(g);
    chain_init(&c, 0, g);
    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    ok = hst_stream_create(&d, &s) == HST_SUCCESS &&
         hst_stream_rank_range(s, &mine[0], &mine[1], &mine[2], &mine[3]) == HST_SUCCESS;
    MPI_Allgather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, MPI_COMM_WORLD);
    for (k = 0; k < nranks && ok; k++) {
        const uint64_t *q = all + 4 * k;
        uint64_t l0 = q[0] > CHAIN_HALO ? q[0] - CHAIN_HALO : 0, l1 = q[1] + CHAIN_HALO < N ? q[1] + CHAIN_HALO : N;
        ok = q[0] == at && q[1] >= q[0] && (N < (uint64_t)nranks || q[1] > q[0]) &&
             (q[1] == q[0] ? q[2] == q[0] && q[3] == q[0] : q[2] == l0 && q[3] == l1);
        at = q[1];
    }
    ok = ok && at == N;
    hst_stream_destroy(s);
    snprintf(name, sizeof name, "N=%llu: contiguous ranges in rank order, loaded range = owned + halo",
             (unsigned long long)N);
    tap(name, ok);
    free(all);
}

/* Timings fed to the split op: rank r takes (r + 1) ms per slice, so the next stream of the
   chain splits in proportion to 1 / (r + 1). A chain of its own (items_per_slice 5), so no
   earlier run's timings mix in. */
static void check_split_by_speed(void)
{
    const uint64_t N = 60;
    chain c;
    float g[E];
    hst_stream *s = NULL;
    hst_stream_desc d;
    hst_choice_op *op;
    int64_t sig = 3 * E * (int64_t)sizeof(float);   /* bytes of a slice over x, t and y */
    uint64_t o0 = 0, o1 = 0;
    double total = 0.0, before = 0.0, want0, want1;
    int ok, k;
    fill_g(g);
    chain_init(&c, 0, g);
    for (k = 0; k < 3; k++) c.st[k].items_per_slice = 5;
    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    ok = hst_stream_create(&d, &s) == HST_SUCCESS && (op = hst_stream_choice_op(s)) != NULL &&
         hst_choice_record(op, &sig, 1, "d0", 1e-3 * (me + 1)) == HST_SUCCESS;
    hst_stream_destroy(s);
    s = NULL;
    ok = ok && hst_stream_create(&d, &s) == HST_SUCCESS && hst_stream_rank_range(s, &o0, &o1, NULL, NULL) == HST_SUCCESS;
    for (k = 0; k < nranks; k++) total += 1.0 / (k + 1);
    for (k = 0; k < me; k++) before += 1.0 / (k + 1);
    want0 = (double)N * before / total;
    want1 = (double)N * (before + 1.0 / (me + 1)) / total;
    ok = ok && (double)o0 > want0 - 1.0 && (double)o0 < want0 + 1.0 && (double)o1 > want1 - 1.0 && (double)o1 < want1 + 1.0;
    if (!ok) fprintf(stderr, "rank %d: [%llu, %llu), want about [%g, %g)\n", me, (unsigned long long)o0,
                     (unsigned long long)o1, want0, want1);
    hst_stream_destroy(s);
    tap("the split across ranks follows the measured speeds of the chain", ok);
}

/* ---- errors on one rank ----------------------------------------------------------------- */
/* Every rank got `want`, and every other rank than the failing one logged HST_LOGITEM_RANK_FAILED
   naming it. */
static int same_everywhere(hst_result r, hst_result want)
{
    char who[32];
    int named;
    snprintf(who, sizeof who, "rank %d of", bad_rank);
    named = me == bad_rank || (logs[0].last_item == HST_LOGITEM_RANK_FAILED && strstr(logs[0].last_message, who));
    if (r != want) fprintf(stderr, "rank %d: %s, expected %s\n", me, hst_result_string(r), hst_result_string(want));
    if (!named) fprintf(stderr, "rank %d: log \"%s\" lacks \"%s\"\n", me, logs[0].last_message, who);
    return r == want && named;
}

static void check_create_errors(void)
{
    chain c;
    float g[E];
    hst_stream *s;
    hst_stream_desc d;
    hst_result r;
    const uint64_t N = 11;
    fill_g(g);
    chain_init(&c, 0, g);

    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    if (me == bad_rank) d.ring = 1;
    s = (hst_stream *)&s;
    cap_reset(&logs[0]);
    r = hst_stream_create(&d, &s);
    tap("a bad desc on one rank: HST_ERROR_INVALID_ARGUMENT on every rank, rank named",
        same_everywhere(r, HST_ERROR_INVALID_ARGUMENT) && s == NULL);

    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    if (me == bad_rank) d.num_slices = N + 1;
    cap_reset(&logs[0]);
    r = hst_stream_create(&d, &s);
    if (nranks == 1) {   /* nothing to differ from */
        tap("descriptions that differ: (one rank) created", r == HST_SUCCESS);
        hst_stream_destroy(s);
    } else {
        tap("descriptions that differ: HST_ERROR_SHAPE on every rank", r == HST_ERROR_SHAPE && s == NULL &&
            logs[0].last_item == HST_LOGITEM_SHAPE_MISMATCH && strstr(logs[0].last_message, "rank 1's description"));
    }

    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    if (me == bad_rank) d.budget_bytes = 64;
    cap_reset(&logs[0]);
    r = hst_stream_create(&d, &s);
    tap("a budget too small on one rank: HST_ERROR_OUT_OF_DEVICE_MEMORY on every rank",
        same_everywhere(r, HST_ERROR_OUT_OF_DEVICE_MEMORY) && s == NULL);

    d = chain_desc(&c, N, 1, 0, 0, &(MPI_Comm){MPI_COMM_WORLD});
    cap_reset(&logs[0]);
    s = NULL;
    r = hst_stream_create(&d, me == bad_rank ? NULL : &s);
    tap("out NULL on one rank: HST_ERROR_INVALID_ARGUMENT on every rank",
        same_everywhere(r, HST_ERROR_INVALID_ARGUMENT) && s == NULL);
}

static int cancel_here;
static int cancel_fn(uint64_t done, uint64_t total, void *user)
{
    (void)user;
    return cancel_here && done <= total;
}

static void check_run_errors(void)
{
    const uint64_t N = 13;
    chain c;
    float *x = (float *)xmalloc(N * E * sizeof(float)), g[E];
    hst_stream_desc d;
    ranked rk;
    hst_result r;
    int host = hst_backend_is_host(be[0]);
    fill_x(x, N);
    fill_g(g);
    chain_init(&c, 0, g);

    /* memory not given on one rank */
    d = chain_desc(&c, N, 1, 0, 2, &(MPI_Comm){MPI_COMM_WORLD});
    {
        hst_stream *s = NULL;
        uint64_t l0 = 0, l1 = 0;
        float *xl = NULL, *yl = NULL;
        int given = 1;
        c.arr[0].host = NULL; c.arr[2].host = NULL;
        r = hst_stream_create(&d, &s);
        if (r == HST_SUCCESS) r = hst_stream_rank_range(s, NULL, NULL, &l0, &l1);
        if (r == HST_SUCCESS) {
            xl = (float *)xmalloc((l1 - l0) * E * sizeof(float));
            yl = (float *)xmalloc((l1 - l0) * E * sizeof(float));
            if (l1 > l0) memcpy(xl, x + l0 * E, (l1 - l0) * E * sizeof(float));
            if (me != bad_rank && l1 > l0)   /* the other ranks give theirs */
                given = hst_stream_set_array(s, 0, xl, NULL) == HST_SUCCESS &&
                        hst_stream_set_array(s, 2, yl, NULL) == HST_SUCCESS;
            cap_reset(&logs[0]);
            r = hst_stream_run(s, NULL);
        }
        tap("memory not given on one rank: HST_ERROR_INVALID_ARGUMENT from every rank's run",
            same_everywhere(r, HST_ERROR_INVALID_ARGUMENT) && given);
        hst_stream_destroy(s);
        free(xl);
        free(yl);
    }

    /* a host twin fails on one rank (the host device runs the twins; OpenCL devices do not) */
    if (host) {
        fail_here = me == bad_rank;
        cap_reset(&logs[0]);
        d = chain_desc(&c, N, 1, 0, 2, &(MPI_Comm){MPI_COMM_WORLD});
        r = ranked_run(&c, &d, x, 0, &rk);
        fail_here = 0;
        tap("a host twin fails on one rank: its code (HST_ERROR_IO) on every rank", same_everywhere(r, HST_ERROR_IO));
        ranked_free(&rk);
    } else
        tap_skip("a host twin fails on one rank", "the host device runs the twins");

    /* a cancel on one rank: the others finish their slices, every rank returns the cancel */
    cancel_here = me == bad_rank;
    cap_reset(&logs[0]);
    d = chain_desc(&c, N, 1, 0, 1, &(MPI_Comm){MPI_COMM_WORLD});
    d.progress = cancel_fn;
    r = ranked_run(&c, &d, x, 0, &rk);
    tap("a cancel on one rank: HST_ERROR_CANCELLED on every rank, the others' slices done",
        same_everywhere(r, HST_ERROR_CANCELLED) &&   /* (the blocks in flight finish on the rank that cancels) */
        (me == bad_rank || rk.rep.slices_done == rk.own1 - rk.own0));
    cancel_here = 0;
    ranked_free(&rk);

    /* and the communicator still works: the same stream runs after all that */
    d = chain_desc(&c, N, 1, 0, 2, &(MPI_Comm){MPI_COMM_WORLD});
    r = ranked_run(&c, &d, x, 0, &rk);
    tap("after the errors the ranks still stream together", r == HST_SUCCESS && rk.rep.slices_done_all == N);
    ranked_free(&rk);
    free(x);
}

int main(int argc, char **argv)
{
    static const uint64_t Ns[] = {1, 2, 3, 23};
    hst_choice_desc off;
    unsigned n, rev, b, nb;
    int k, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    bad_rank = nranks > 1 ? 1 : 0;
    /* backends, 16 same-bits cases, 2 pinned, COMM_SELF, 4 GLOBAL definitions, 4 ranges, the
       split by speed, 4 create errors, 4 run errors */
    if (me == 0) printf("1..%d\n", 1 + 16 + 2 + 1 + 4 + 4 + 1 + 4 + 4);
    memset(&off, 0, sizeof off);
    off.path = "off";   /* timings in memory: no file shared by the ranks */
    for (k = 0; k < 2; k++) {
        hst_backend_desc bd = cap_desc(&logs[k]);
        ok = ok && hst_backend_create(&bd, &be[k]) == HST_SUCCESS && hst_choice_configure(be[k], &off) == HST_SUCCESS;
    }
    tap("backends", ok);
    if (!ok) { MPI_Finalize(); return 1; }
    if (me == 0) printf("# %d ranks on %s\n", nranks, hst_backend_device(be[0])->name);

    for (n = 0; n < 4; n++)
        for (rev = 0; rev < 2; rev++)
            for (b = 0; b < 2; b++)
                check_same_bits(Ns[n], (int)rev, b ? 2 : 0, b ? 2 : 1, 0);
    for (rev = 0; rev < 2; rev++) check_same_bits(23, (int)rev, 3, 1, 1);   /* pinned local x */
    check_comm_self();
    for (rev = 0; rev < 2; rev++)
        for (nb = 1; nb <= 2; nb++) check_global_definition(23, (int)rev, nb);
    for (n = 0; n < 4; n++) check_ranges(Ns[n]);
    check_split_by_speed();
    check_create_errors();
    check_run_errors();

    if (hst_backend_destroy(be[1]) != HST_SUCCESS) nfail++;   /* logged, naming what holds it */
    if (hst_backend_destroy(be[0]) != HST_SUCCESS) nfail++;
    MPI_Finalize();
    return nfail ? 1 : 0;
}
