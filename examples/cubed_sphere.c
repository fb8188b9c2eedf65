/* examples/cubed_sphere.c — diffusion of a scalar and of a vector field on the cubed sphere, with
   a halo exchange (halo.h's MPI exchanger: one fused pack and one fused unpack per step) every
   step, on the device HST_DEVICE picks.

       mpirun -np 6  build/examples/cubed_sphere [steps] [cells per tile side] [levels]
       mpirun -np 24 build/examples/cubed_sphere 100            (2 x 2 ranks per tile)
       make mpi-demo                                            (both)

   6 * L^2 ranks split each of the 6 tiles into L x L blocks. The scalar diffuses in flux form
   (each face's flux is the same expression on both sides), so its total mass is conserved to
   round-off; the vector's components diffuse with the 5-point Laplacian, rotated with NDSL's
   rules across tile edges. At the end rank 0 runs all 6 tiles in one process (one plan per tile,
   hst_halo_copy_peer between them) and checks that the distributed result is identical bit for
   bit. The stencil runs as an OpenCL kernel (FP_CONTRACT OFF, so every device gives the same
   doubles) or, on the host device, as the same C expression. */
#include <mpi.h>
#define HST_IMPLEMENTATION
#define HST_HALO_MPI
#include "halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KAPPA 0.125   /* diffusion number: stable for the 5-point stencil below 0.25 */

static const char *stencil_src =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void diffuse(__global const double *c, __global double *out, int n, int nz,\n"
    "                      int s, double k)\n"
    "{\n"
    "  int i = get_global_id(0), j = get_global_id(1), z = get_global_id(2);\n"
    "  if (i >= n || j >= n || z >= nz) return;\n"
    "  long at = ((long)z * s + j + 1) * s + i + 1;\n"
    "  double a = c[at];\n"
    "  double fe = k * (c[at + 1] - a), fw = k * (a - c[at - 1]);\n"
    "  double fn = k * (c[at + s] - a), fs = k * (a - c[at - s]);\n"
    "  double dx = fe - fw, dy = fn - fs;\n"
    "  out[at] = a + (dx + dy);\n"
    "}\n";

/* The host twin: the same operations in the same order. */
static void diffuse_host(const double *c, double *out, int n, int nz, int s, double k)
{
    int i, j, z;
    for (z = 0; z < nz; z++)
        for (j = 0; j < n; j++)
            for (i = 0; i < n; i++) {
                long at = ((long)z * s + j + 1) * s + i + 1;
                double a = c[at];
                double fe = k * (c[at + 1] - a), fw = k * (a - c[at - 1]);
                double fn = k * (c[at + s] - a), fs = k * (a - c[at - s]);
                double dx = fe - fw, dy = fn - fs;
                out[at] = a + (dx + dy);
            }
}

typedef struct block {          /* one rank's (or tile's) fields: scalar, u, v, and scratch */
    hst_buffer *cur[3], *next[3];
    hst_halo_plan *plan;
    hst_cubed_sphere_neighbor nb[8];
    hst_halo_boundary pb[8];
    size_t np;
} block;

typedef struct ctx {
    hst_backend *be;
    hst_kernel *k;              /* NULL on the host device */
    int n, nz, s;               /* block cells per side, levels, allocated side (n + 2) */
    size_t bytes;
    hst_halo_layout lay[3];
} ctx;

#define CHECK(call) do { hst_result r_ = (call); if (r_ != HST_SUCCESS) {                       \
        fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hst_result_string(r_)); \
        MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static double initial(int comp, int t, long gi, long gj, long k)
{
    long v = (t * 7 + gi * 3 + gj * 5 + k * 11 + comp * 13) % 17;
    return comp == 0 ? 1.0 + (double)v : (double)(v - 8);
}

static void block_create(ctx *c, block *b, int L, int rank)
{
    hst_halo_field fields[2] = {{0, 0, 0}, {1, 1, 2}};
    hst_halo_spec specs[16];
    hst_halo_plan_desc d;
    size_t ns, q;
    int t = rank / (L * L), rx = rank % (L * L) % L, ry = rank % (L * L) / L;
    double *h = (double *)calloc(c->bytes, 1);
    CHECK(hst_cubed_sphere_specs((size_t)L, rank, 2, fields, c->lay, specs, &ns, b->nb, b->pb,
                                 &b->np));
    memset(&d, 0, sizeof d);
    d.num_quantities = 3; d.layouts = c->lay; d.num_specs = ns; d.specs = specs; d.num_peers = b->np;
    CHECK(hst_halo_plan_create(c->be, &d, &b->plan));
    for (q = 0; q < 3; q++) {
        long z, j, i;
        for (z = 0; z < c->nz; z++)
            for (j = 0; j < c->n; j++)
                for (i = 0; i < c->n; i++)
                    h[((size_t)z * c->s + (size_t)j + 1) * c->s + (size_t)i + 1] =
                        initial((int)q, t, rx * c->n + i, ry * c->n + j, z);
        CHECK(hst_buffer_create(c->be, c->bytes, 0, &b->cur[q]));
        CHECK(hst_buffer_create(c->be, c->bytes, 0, &b->next[q]));
        CHECK(hst_write(hst_backend_queue(c->be), b->cur[q], 0, h, c->bytes, 1, 0, NULL, NULL));
        CHECK(hst_write(hst_backend_queue(c->be), b->next[q], 0, h, c->bytes, 1, 0, NULL, NULL));
    }
    free(h);
}

static void block_destroy(block *b)
{
    size_t q;
    for (q = 0; q < 3; q++) { hst_buffer_destroy(b->cur[q]); hst_buffer_destroy(b->next[q]); }
    hst_halo_plan_destroy(b->plan);
}

/* cur -> next for the three fields, then swap. */
static void block_step(ctx *c, block *b)
{
    size_t q;
    for (q = 0; q < 3; q++) {
        if (!c->k) {
            diffuse_host((const double *)hst_buffer_host_ptr(b->cur[q]),
                         (double *)hst_buffer_host_ptr(b->next[q]), c->n, c->nz, c->s, KAPPA);
        } else {
            size_t g[3];
            double k = KAPPA;
            g[0] = (size_t)c->n; g[1] = (size_t)c->n; g[2] = (size_t)c->nz;
            CHECK(hst_kernel_set_buffer(c->k, 0, b->cur[q]));
            CHECK(hst_kernel_set_buffer(c->k, 1, b->next[q]));
            CHECK(hst_kernel_set_arg(c->k, 2, sizeof(int), &c->n));
            CHECK(hst_kernel_set_arg(c->k, 3, sizeof(int), &c->nz));
            CHECK(hst_kernel_set_arg(c->k, 4, sizeof(int), &c->s));
            CHECK(hst_kernel_set_arg(c->k, 5, sizeof(double), &k));
            CHECK(hst_launch(hst_backend_queue(c->be), c->k, 3, g, NULL, 0, NULL, NULL));
        }
    }
    for (q = 0; q < 3; q++) { hst_buffer *t = b->cur[q]; b->cur[q] = b->next[q]; b->next[q] = t; }
}

/* The interiors of a block's three fields, [field][z][j][i]. */
static void block_interior(ctx *c, block *b, double *out)
{
    double *h = (double *)malloc(c->bytes);
    size_t q, at = 0;
    CHECK(hst_queue_finish(hst_backend_queue(c->be)));
    for (q = 0; q < 3; q++) {
        long z, j, i;
        CHECK(hst_read(hst_backend_queue(c->be), b->cur[q], 0, h, c->bytes, 1, 0, NULL, NULL));
        for (z = 0; z < c->nz; z++)
            for (j = 0; j < c->n; j++)
                for (i = 0; i < c->n; i++)
                    out[at++] = h[((size_t)z * c->s + (size_t)j + 1) * c->s + (size_t)i + 1];
    }
    free(h);
}

static void ctx_init(ctx *c, hst_backend *be, int n, int nz)
{
    size_t q;
    memset(c, 0, sizeof *c);
    c->be = be; c->n = n; c->nz = nz; c->s = n + 2;
    for (q = 0; q < 3; q++) {
        hst_halo_layout *l = &c->lay[q];
        l->ndim = 3; l->elem_bytes = 8; l->n_halo = 1;
        l->dims[0] = HST_HALO_DIM_Z; l->dims[1] = HST_HALO_DIM_Y; l->dims[2] = HST_HALO_DIM_X;
        l->shape[0] = (size_t)nz; l->shape[1] = l->shape[2] = (size_t)c->s;
        l->origin[1] = l->origin[2] = 1;
        l->extent[0] = (size_t)nz; l->extent[1] = l->extent[2] = (size_t)n;
    }
    CHECK(hst_halo_layout_bytes(&c->lay[0], &c->bytes));
    if (!hst_backend_is_host(be)) {
        hst_program *p;
        if (!hst_backend_device(be)->fp64) {
            fprintf(stderr, "cubed_sphere: %s has no fp64; use HST_DEVICE=host\n",
                    hst_backend_device(be)->name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK(hst_program_build(be, 1, &stencil_src, "", &p));
        CHECK(hst_kernel_create(p, "diffuse", &c->k));
        hst_program_release(p);
    }
}

int main(int argc, char **argv)
{
    int me, nranks, L, steps, tile_n, nz, step, t;
    hst_backend *be;
    hst_backend_desc bd;
    ctx c;
    block b;
    hst_halo_mpi_peer mp[8];
    hst_halo_exchanger *ex;
    size_t p, cells;
    double *mine, *all = NULL, mass0 = 0, mass1 = 0, local, t0, t1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    steps = argc > 1 ? atoi(argv[1]) : 100;
    tile_n = argc > 2 ? atoi(argv[2]) : 24;
    nz = argc > 3 ? atoi(argv[3]) : 4;
    for (L = 1; 6 * L * L < nranks; L++) {}
    if (6 * L * L != nranks || tile_n % L != 0 || steps < 0 || nz < 1) {
        if (me == 0) fprintf(stderr, "cubed_sphere: needs 6 L^2 ranks (6, 24, 54, ...) and a tile "
                                     "side divisible by L; got %d ranks, side %d\n", nranks, tile_n);
        MPI_Finalize();
        return 2;
    }
    memset(&bd, 0, sizeof bd);
    CHECK(hst_backend_create(&bd, &be));
    ctx_init(&c, be, tile_n / L, nz);
    block_create(&c, &b, L, me);
    for (p = 0; p < b.np; p++) {
        mp[p].send_rank = mp[p].recv_rank = b.nb[p].rank;
        mp[p].send_tag = (int)b.pb[p];
        mp[p].recv_tag = (int)b.nb[p].boundary;
    }
    CHECK(hst_halo_exchanger_create(b.plan, MPI_COMM_WORLD, mp, &ex));
    cells = (size_t)3 * c.n * c.n * c.nz;
    mine = (double *)malloc(cells * sizeof(double));
    block_interior(&c, &b, mine);
    for (p = 0, local = 0; p < cells / 3; p++) local += mine[p];
    MPI_Allreduce(&local, &mass0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (step = 0; step < steps; step++) {
        CHECK(hst_halo_exchange_start(ex, NULL, 3, b.cur, 0, NULL));
        CHECK(hst_halo_exchange_finish(ex, NULL, 3, b.cur, NULL));
        block_step(&c, &b);
    }
    block_interior(&c, &b, mine);
    t1 = MPI_Wtime();
    for (p = 0, local = 0; p < cells / 3; p++) local += mine[p];
    MPI_Allreduce(&local, &mass1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) all = (double *)malloc(cells * (size_t)nranks * sizeof(double));
    MPI_Gather(mine, (int)cells, MPI_DOUBLE, all, (int)cells, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (me == 0) {
        /* all 6 tiles in this process, one block per tile, exchanged with direct copies */
        ctx c1;
        block tiles[6];
        int n1 = tile_n, same = 1, r;
        size_t tile_cells = (size_t)3 * n1 * n1 * nz;
        double *refs = (double *)malloc(tile_cells * 6 * sizeof(double));
        ctx_init(&c1, be, n1, nz);
        for (t = 0; t < 6; t++) block_create(&c1, &tiles[t], 1, t);
        for (step = 0; step < steps; step++) {
            for (t = 0; t < 6; t++) CHECK(hst_halo_pack(tiles[t].plan, NULL, 3, tiles[t].cur, 0, NULL, NULL));
            for (t = 0; t < 6; t++)
                for (p = 0; p < tiles[t].np; p++) {
                    int to = tiles[t].nb[p].rank;
                    size_t tp;
                    for (tp = 0; tiles[to].pb[tp] != tiles[t].nb[p].boundary; tp++) {}
                    CHECK(hst_halo_copy_peer(tiles[t].plan, p, tiles[to].plan, tp, NULL, 0, NULL, NULL));
                }
            for (t = 0; t < 6; t++) CHECK(hst_halo_unpack(tiles[t].plan, NULL, 3, tiles[t].cur, 0, NULL, NULL));
            for (t = 0; t < 6; t++) block_step(&c1, &tiles[t]);
        }
        for (t = 0; t < 6; t++) block_interior(&c1, &tiles[t], refs + (size_t)t * tile_cells);
        /* compare: rank r's block (rx, ry) of tile t against the tile's run */
        for (r = 0; r < nranks; r++) {
            int tt = r / (L * L), rx = r % (L * L) % L, ry = r % (L * L) / L, q, z, j, i;
            const double *blk = all + (size_t)r * cells;
            for (q = 0; q < 3; q++)
                for (z = 0; z < nz; z++)
                    for (j = 0; j < c.n; j++)
                        for (i = 0; i < c.n; i++) {
                            double a = blk[(((size_t)q * nz + z) * c.n + j) * c.n + i];
                            double e = refs[(size_t)tt * tile_cells +
                                            (((size_t)q * nz + z) * n1 + ry * c.n + j) * n1 +
                                            rx * c.n + i];
                            if (memcmp(&a, &e, sizeof a) != 0) same = 0;
                        }
        }
        printf("cubed_sphere: %d ranks (%d x %d per tile), tiles of %d x %d x %d, %d steps on %s\n",
               nranks, L, L, tile_n, tile_n, nz, steps, hst_backend_device(be)->name);
        printf("  halo exchange: %zu peers per rank, 1 pack + 1 unpack launch per step "
               "(rank 0: %llu packs, %llu unpacks)\n", b.np,
               (unsigned long long)hst_halo_plan_stats(b.plan).pack_launches,
               (unsigned long long)hst_halo_plan_stats(b.plan).unpack_launches);
        printf("  scalar mass: %.17g -> %.17g (relative change %.3g)\n", mass0, mass1,
               (mass1 - mass0) / mass0);
        printf("  identical to a single-process run of all 6 tiles: %s\n", same ? "yes" : "NO");
        printf("  time: %.3f s (%.3f ms per step)\n", t1 - t0, steps ? 1e3 * (t1 - t0) / steps : 0.0);
        for (t = 0; t < 6; t++) block_destroy(&tiles[t]);
        hst_kernel_destroy(c1.k);
        free(refs);
        free(all);
        if (!same) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(mine);
    hst_halo_exchanger_destroy(ex);
    block_destroy(&b);
    hst_kernel_destroy(c.k);
    CHECK(hst_backend_destroy(be));
    MPI_Finalize();
    return 0;
}
