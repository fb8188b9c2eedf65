/* tests/mpi_halo.c — halo.h's MPI exchanger under `mpirun -np 6` (one cubed-sphere tile per
   rank) or `-np 24` (2 x 2 ranks per tile): a scalar and a vector with a unique value per
   (tile, i, j, k, component) exchanged through the device path and the host path; two
   exchangers in flight at once on one communicator (tags cannot collide); a size mismatch
   between peers is refused at creation on the ranks that see it; at -np 6, NDSL's vector-interface
   sync (its own worked values). Every rank checks every cell of its
   arrays; rank 0 prints TAP. Built with mpicc by `make test` (tests/run.sh, stage "mpi").

   The device is HST_DEVICE's (every rank uses the same one). */
#define HST_IMPLEMENTATION
#define HST_HALO_MPI
#include "halo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_tap.h"

#define NX 4
#define NZ 2
#define H 2
#define SENTINEL (-0.5)

static int L;


/* The test's own statement of the tile connections (as tests/test_halo.c). */
static int fold_cell(int t, long i, long j, long N, int *tn, long *in, long *jn, unsigned *r)
{
    int even = t % 2 == 0;
    *tn = t; *in = i; *jn = j; *r = 0;
    if ((i < 0 || i >= N) && (j < 0 || j >= N)) return 0;
    if (i < 0) {
        if (even) { *tn = (t + 4) % 6; *r = 1; *in = N - 1 - j; *jn = N + i; }
        else { *tn = t - 1; *in = N + i; }
    } else if (i >= N) {
        if (even) { *tn = t + 1; *in = i - N; }
        else { *tn = (t + 2) % 6; *r = 1; *in = N - 1 - j; *jn = i - N; }
    } else if (j >= N) {
        if (even) { *tn = (t + 2) % 6; *r = 3; *in = j - N; *jn = N - 1 - i; }
        else { *tn = (t + 1) % 6; *jn = j - N; }
    } else if (j < 0) {
        if (even) { *tn = (t + 5) % 6; *jn = N + j; }
        else { *tn = (t + 4) % 6; *r = 3; *in = N + j; *jn = N - 1 - i; }
    }
    return 1;
}

static double value(int t, long i, long j, long k, int comp, int salt)
{
    return (double)(((((salt * 6 + t) * 64 + i) * 64 + j) * 8 + k) * 4 + comp + 1);
}

static void layouts(hst_halo_layout lay[3], size_t n_halo)
{
    int q;
    for (q = 0; q < 3; q++) {
        memset(&lay[q], 0, sizeof lay[q]);
        lay[q].ndim = 3; lay[q].elem_bytes = 8; lay[q].n_halo = n_halo;
        lay[q].dims[0] = HST_HALO_DIM_Z; lay[q].dims[1] = HST_HALO_DIM_Y;
        lay[q].dims[2] = HST_HALO_DIM_X;
        lay[q].shape[0] = NZ; lay[q].shape[1] = lay[q].shape[2] = NX + 2 * H;
        lay[q].origin[1] = lay[q].origin[2] = H;
        lay[q].extent[0] = NZ; lay[q].extent[1] = lay[q].extent[2] = NX;
    }
}

/* NDSL's synchronize_vector_interfaces on 6 tiles of one rank (tests/test_sync_shared_boundary.py
   of NDSL, layout (1, 1)): x on [y_interface, x] (3, 2), y on [y, x_interface] (2, 3), no halo.
   counting = 0: every value is the rank, and afterwards |x|'s north row and |y|'s east column
   hold the neighbour's rank (even tile t: t + 2 and t + 1; odd: t + 1 and t + 2), the rest
   ours. counting = 1: x = 6 rank + 0..5, y = 36 + 6 rank + 0..5 in memory order; ranks 0 and
   1 then hold NDSL's worked values exactly (signs and order across the rotated edges). */

static int vector_interfaces(hst_backend *be, int dev_path, int counting)
{
    hst_halo_layout lv[2];
    hst_halo_spec specs[2];
    hst_halo_route routes[2];
    hst_halo_plan_desc d;
    hst_halo_plan *plan = NULL;
    hst_halo_exchanger *ex = NULL;
    hst_buffer *dev[2] = {NULL, NULL};
    double v[2][6];
    void *hv[2];
    size_t bytes = 6 * sizeof(double);
    int c, k, ok = 1;
    static const double want_x0[6] = {0, 1, 2, 3, -51, -48}, want_y0[6] = {36, 37, 42, 39, 40, 45};
    static const double want_x1[6] = {6, 7, 8, 9, 12, 13}, want_y1[6] = {42, 43, -19, 45, 46, -18};
    for (c = 0; c < 2; c++) {
        memset(&lv[c], 0, sizeof lv[c]);
        lv[c].ndim = 2; lv[c].elem_bytes = 8; lv[c].n_halo = 1;
        lv[c].dims[0] = c ? HST_HALO_DIM_Y : HST_HALO_DIM_Y_INTERFACE;
        lv[c].dims[1] = c ? HST_HALO_DIM_X_INTERFACE : HST_HALO_DIM_X;
        lv[c].shape[0] = lv[c].extent[0] = c ? 2 : 3;
        lv[c].shape[1] = lv[c].extent[1] = c ? 3 : 2;
        for (k = 0; k < 6; k++)
            v[c][k] = counting ? (double)(36 * c + 6 * me + k) : (double)me;
        hv[c] = v[c];
    }
    ok = hst_cubed_sphere_vector_interface_specs(1, me, &lv[0], 0, &lv[1], 1, specs, routes) == HST_SUCCESS;
    memset(&d, 0, sizeof d);
    d.num_quantities = 2; d.layouts = lv; d.num_specs = 2; d.specs = specs; d.num_peers = 2;
    ok = ok && hst_halo_plan_create(be, &d, &plan) == HST_SUCCESS;
    ok = ok && hst_halo_exchanger_create(plan, MPI_COMM_WORLD, routes, &ex) == HST_SUCCESS;
    if (ok && dev_path) {
        for (c = 0; c < 2; c++)
            ok = ok && hst_buffer_create(be, bytes, 0, &dev[c]) == HST_SUCCESS &&
                 hst_write(hst_backend_queue(be), dev[c], 0, v[c], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
        ok = ok && hst_halo_exchange_start(ex, NULL, 2, dev, 0, NULL) == HST_SUCCESS &&
             hst_halo_exchange_finish(ex, NULL, 2, dev, NULL) == HST_SUCCESS;
        for (c = 0; c < 2; c++)
            ok = ok && hst_read(hst_backend_queue(be), dev[c], 0, v[c], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
    } else if (ok) {
        ok = hst_halo_exchange_start_host(ex, 2, hv, NULL) == HST_SUCCESS &&
             hst_halo_exchange_finish_host(ex, 2, hv, NULL) == HST_SUCCESS;
    }
    if (ok && !counting) {
        int t = me, nx = t % 2 ? (t + 1) % 6 : (t + 2) % 6, ny = t % 2 ? (t + 2) % 6 : (t + 1) % 6;
        for (k = 0; k < 6; k++) {
            ok = ok && fabs(v[0][k]) == (double)(k >= 4 ? nx : t);
            ok = ok && fabs(v[1][k]) == (double)(k % 3 == 2 ? ny : t);
        }
    } else if (ok && me < 2) {
        ok = memcmp(v[0], me ? want_x1 : want_x0, bytes) == 0 &&
             memcmp(v[1], me ? want_y1 : want_y0, bytes) == 0;
    }
    hst_halo_exchanger_destroy(ex);
    hst_halo_plan_destroy(plan);
    hst_buffer_destroy(dev[0]);
    hst_buffer_destroy(dev[1]);
    return ok;
}

typedef struct rankplan {
    hst_halo_plan *plan;
    hst_halo_mpi_peer mp[8];
} rankplan;

static int make_plan(hst_backend *be, size_t n_halo, rankplan *rp)
{
    hst_halo_layout lay[3];
    hst_halo_field fields[2] = {{0, 0, 0}, {1, 1, 2}};
    hst_halo_spec specs[16];
    hst_cubed_sphere_neighbor nb[8];
    hst_halo_boundary pb[8];
    size_t ns, np, p;
    hst_halo_plan_desc d;
    layouts(lay, n_halo);
    if (hst_cubed_sphere_specs((size_t)L, me, 2, fields, lay, specs, &ns, nb, pb, &np)) return 0;
    memset(&d, 0, sizeof d);
    d.num_quantities = 3; d.layouts = lay; d.num_specs = ns; d.specs = specs; d.num_peers = np;
    if (hst_halo_plan_create(be, &d, &rp->plan) != HST_SUCCESS) return 0;
    for (p = 0; p < np; p++) {
        rp->mp[p].send_rank = rp->mp[p].recv_rank = nb[p].rank;
        rp->mp[p].send_tag = (int)pb[p];          /* my boundary toward it */
        rp->mp[p].recv_tag = (int)nb[p].boundary; /* its boundary toward me */
    }
    return 1;
}

static void fill(double *h[3], int salt)
{
    const long S = NX + 2 * H;
    int t = me / (L * L), rx = me % (L * L) % L, ry = me % (L * L) / L, q;
    long k, j, i;
    for (q = 0; q < 3; q++)
        for (k = 0; k < NZ; k++)
            for (j = 0; j < S; j++)
                for (i = 0; i < S; i++) {
                    int inside = i >= H && i < H + NX && j >= H && j < H + NX;
                    h[q][(k * S + j) * S + i] =
                        inside ? value(t, rx * NX + i - H, ry * NX + j - H, k, q, salt) : SENTINEL;
                }
}

/* 1 when every cell holds what the exchange must leave there. */
static int check(double *v[3], int salt)
{
    const long S = NX + 2 * H, N = (long)L * NX;
    int t = me / (L * L), rx = me % (L * L) % L, ry = me % (L * L) / L, ok = 1;
    long k, j, i;
    for (k = 0; k < NZ; k++)
        for (j = 0; j < S; j++)
            for (i = 0; i < S; i++) {
                long gi = rx * NX + i - H, gj = ry * NX + j - H, in, jn;
                size_t at = (size_t)((k * S + j) * S + i);
                int tn;
                unsigned r;
                double es, eu, ev, su, sv;
                if (!fold_cell(t, gi, gj, N, &tn, &in, &jn, &r)) {
                    ok &= v[0][at] == SENTINEL && v[1][at] == SENTINEL && v[2][at] == SENTINEL;
                    continue;
                }
                es = value(tn, in, jn, k, 0, salt);
                su = value(tn, in, jn, k, 1, salt);
                sv = value(tn, in, jn, k, 2, salt);
                r = (4 - r) % 4;   /* the sender's rotation toward us */
                eu = r == 0 ? su : r == 1 ? -sv : r == 2 ? -su : sv;
                ev = r == 0 ? sv : r == 1 ? su : r == 2 ? -sv : -su;
                if (v[0][at] != es || v[1][at] != eu || v[2][at] != ev) {
                    if (ok) fprintf(stderr, "rank %d cell (%ld, %ld, %ld): (%g %g %g) != (%g %g %g)\n",
                                    me, k, j, i, v[0][at], v[1][at], v[2][at], es, eu, ev);
                    ok = 0;
                }
            }
    return ok;
}

/* The backend's logger: stderr, with the rank, except while a refusal is expected. */
static int expecting_refusal;
static void logger(void *user, hst_log_level level, hst_log_item item, const char *msg)
{
    (void)user; (void)item;
    if (!expecting_refusal && level <= HST_LOG_WARN) fprintf(stderr, "rank %d: %s\n", me, msg);
}

int main(int argc, char **argv)
{
    hst_backend *be = NULL;
    hst_backend_desc bd;
    rankplan rp, rp2;
    hst_halo_exchanger *ex = NULL, *ex2 = NULL;
    hst_buffer *dev[3], *dev2[3];
    double *h[3], *h2[3];
    size_t bytes = 0, q;
    hst_halo_layout lay[3];
    int ok;
    memset(&rp, 0, sizeof rp);
    memset(&rp2, 0, sizeof rp2);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    L = (int)(sqrt(nranks / 6.0) + 0.5);
    if (6 * L * L != nranks || L > 2) {
        if (me == 0) printf("1..0 # SKIP needs 6 * L^2 ranks, got %d\n", nranks);
        MPI_Finalize();
        return 0;
    }
    if (me == 0) printf("1..%d\n", L == 1 ? 7 : 5);   /* L 1: the vector-interface sync too */
    memset(&bd, 0, sizeof bd);
    bd.logger = logger;
    ok = hst_backend_create(&bd, &be) == HST_SUCCESS;
    tap("backend", ok);
    if (!ok) { MPI_Finalize(); return 1; }
    layouts(lay, H);
    ok = hst_halo_layout_bytes(&lay[0], &bytes) == HST_SUCCESS;
    for (q = 0; ok && q < 3; q++) {
        h[q] = (double *)malloc(bytes);
        h2[q] = (double *)malloc(bytes);
        ok = h[q] && h2[q] && hst_buffer_create(be, bytes, 0, &dev[q]) == HST_SUCCESS &&
             hst_buffer_create(be, bytes, 0, &dev2[q]) == HST_SUCCESS;
    }
    if (!ok) {   /* every later check needs them */
        fprintf(stderr, "mpi_halo: rank %d: the layout's buffers could not be made\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* the device path */
    ok = make_plan(be, H, &rp) &&
         hst_halo_exchanger_create(rp.plan, MPI_COMM_WORLD, rp.mp, &ex) == HST_SUCCESS;
    if (ok) {
        fill(h, 1);
        for (q = 0; q < 3; q++)
            ok = ok && hst_write(hst_backend_queue(be), dev[q], 0, h[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
        ok = ok && hst_halo_exchange_start(ex, NULL, 3, dev, 0, NULL) == HST_SUCCESS &&
             hst_halo_exchange_finish(ex, NULL, 3, dev, NULL) == HST_SUCCESS &&
             hst_halo_plan_synchronize(rp.plan) == HST_SUCCESS;
        for (q = 0; q < 3; q++)
            ok = ok && hst_read(hst_backend_queue(be), dev[q], 0, h[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
        ok = ok && check(h, 1) && hst_halo_plan_stats(rp.plan).pack_launches == 1 &&
             hst_halo_plan_stats(rp.plan).unpack_launches == 1;
    }
    tap("device exchange: every cell, vector signs included", ok);

    /* the host path through the same exchanger */
    fill(h, 2);
    ok = ex && hst_halo_exchange_start_host(ex, 3, (void *const *)h, NULL) == HST_SUCCESS &&
         hst_halo_exchange_finish_host(ex, 3, (void *const *)h, NULL) == HST_SUCCESS && check(h, 2);
    tap("host exchange", ok);

    /* two exchangers in flight on one communicator: finished in the opposite order */
    ok = make_plan(be, H, &rp2) &&
         hst_halo_exchanger_create(rp2.plan, MPI_COMM_WORLD, rp2.mp, &ex2) == HST_SUCCESS;
    if (ok) {
        fill(h, 3);
        fill(h2, 4);
        for (q = 0; q < 3; q++)
            ok = ok && hst_write(hst_backend_queue(be), dev[q], 0, h[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS &&
                 hst_write(hst_backend_queue(be), dev2[q], 0, h2[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
        ok = ok && hst_halo_exchange_start(ex, NULL, 3, dev, 0, NULL) == HST_SUCCESS &&
             hst_halo_exchange_start(ex2, NULL, 3, dev2, 0, NULL) == HST_SUCCESS &&
             hst_halo_exchange_finish(ex2, NULL, 3, dev2, NULL) == HST_SUCCESS &&
             hst_halo_exchange_finish(ex, NULL, 3, dev, NULL) == HST_SUCCESS;
        ok = hst_queue_finish(hst_backend_queue(be)) == HST_SUCCESS && ok;
        for (q = 0; q < 3; q++)
            ok = ok && hst_read(hst_backend_queue(be), dev[q], 0, h[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS &&
                 hst_read(hst_backend_queue(be), dev2[q], 0, h2[q], bytes, 1, 0, NULL, NULL) == HST_SUCCESS;
        ok = ok && check(h, 3) && check(h2, 4);
    }
    tap("two exchangers at once", ok);
    hst_halo_exchanger_destroy(ex2);
    if (rp2.plan) hst_halo_plan_destroy(rp2.plan);

    /* odd tiles use a 1-point halo: every rank has a peer whose messages differ in size */
    {
        rankplan rp3;
        hst_halo_layout l3[3];
        hst_halo_field fields[2] = {{0, 0, 0}, {1, 1, 2}};
        hst_halo_spec specs[16];
        hst_cubed_sphere_neighbor nb[8];
        hst_halo_boundary pb[8];
        size_t ns, np, p;
        hst_halo_plan_desc d;
        hst_halo_exchanger *ex3 = NULL;
        rp3.plan = NULL;
        layouts(l3, (me / (L * L)) % 2 ? 1 : 2);
        ok = hst_cubed_sphere_specs((size_t)L, me, 2, fields, l3, specs, &ns, nb, pb, &np) == 0;
        memset(&d, 0, sizeof d);
        d.num_quantities = 3; d.layouts = l3; d.num_specs = ns; d.specs = specs; d.num_peers = np;
        ok = ok && hst_halo_plan_create(be, &d, &rp3.plan) == HST_SUCCESS;
        for (p = 0; ok && p < np; p++) {
            rp3.mp[p].send_rank = rp3.mp[p].recv_rank = nb[p].rank;
            rp3.mp[p].send_tag = (int)pb[p];
            rp3.mp[p].recv_tag = (int)nb[p].boundary;
        }
        /* refused exactly where a peer lies on a tile of the other parity */
        {
            int differs = 0;
            hst_result r;
            for (p = 0; ok && p < np; p++)
                differs |= (nb[p].rank / (L * L)) % 2 != (me / (L * L)) % 2;
            expecting_refusal = 1;
            r = ok ? hst_halo_exchanger_create(rp3.plan, MPI_COMM_WORLD, rp3.mp, &ex3)
                   : HST_ERROR_INVALID_ARGUMENT;
            expecting_refusal = 0;
            ok = differs ? (r == HST_ERROR_SHAPE && ex3 == NULL) : r == HST_SUCCESS;
        }
        hst_halo_exchanger_destroy(ex3);
        if (rp3.plan) hst_halo_plan_destroy(rp3.plan);
    }
    tap("message sizes checked at creation", ok);

    if (L == 1) {
        int dev_path;
        for (dev_path = 0; dev_path < 2; dev_path++) {
            ok = vector_interfaces(be, dev_path, 0) && vector_interfaces(be, dev_path, 1);
            tap(dev_path ? "vector interfaces synchronised as NDSL (device path)"
                         : "vector interfaces synchronised as NDSL (host path)", ok);
        }
    }

    hst_halo_exchanger_destroy(ex);
    if (rp.plan) hst_halo_plan_destroy(rp.plan);
    for (q = 0; q < 3; q++) {
        hst_buffer_destroy(dev[q]);
        hst_buffer_destroy(dev2[q]);
        free(h[q]);
        free(h2[q]);
    }
    if (hst_backend_destroy(be) != HST_SUCCESS) nfail++;   /* logged, naming what holds it */
    MPI_Finalize();
    return nfail ? 1 : 0;
}
