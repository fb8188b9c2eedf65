/* cubed_sphere.h — the diffusion on the cubed sphere of examples/cubed_sphere.c, shared by it and
   tests/mpi_cubed_sphere.c (static functions: include it in the one C file that defines
   HST_IMPLEMENTATION and HST_HALO_MPI). Errors abort the MPI job (MPI_Abort) after printing
   the failing call.

   The fields: a scalar and a vector (u, v), each [z][j][i] of (n + 2)^2 * nz doubles per rank
   (a 1-cell halo around an n x n block of levels nz). 6 * L^2 ranks split each of the 6 tiles
   into L x L blocks: rank r holds block (r % L^2 % L, r % L^2 / L) of tile r / L^2. Every step
   exchanges the halos (halo.h's MPI exchanger: one fused pack and one fused unpack) and then
   diffuses the three fields. The scalar diffuses in flux form (each face's flux is the same
   expression on both sides), so its total mass is conserved to round-off; the vector's
   components diffuse with the 5-point Laplacian, rotated with NDSL's rules across tile edges.
   The stencil runs as an OpenCL kernel (FP_CONTRACT OFF, so every device gives the same
   doubles) or, on the host device, as the same C expression: a distributed run equals
   cs_reference's single-process run of all 6 tiles (one plan per tile, hst_halo_copy_peer
   between them) bit for bit. */
#ifndef CUBED_SPHERE_H
#define CUBED_SPHERE_H

#include <mpi.h>
#include "halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_KAPPA 0.125   /* diffusion number: stable for the 5-point stencil below 0.25 */

static const char *cs_stencil_src =
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
static void cs_diffuse_host(const double *c, double *out, int n, int nz, int s, double k)
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

typedef struct cs_block {       /* one rank's (or tile's) fields: scalar, u, v, and scratch */
    hst_buffer *cur[3], *next[3];
    hst_halo_plan *plan;
    hst_cubed_sphere_neighbor nb[8];
    hst_halo_boundary pb[8];
    size_t np;
} cs_block;

typedef struct cs_ctx {
    hst_backend *be;
    hst_kernel *k;              /* NULL on the host device */
    int n, nz, s;               /* block cells per side, levels, allocated side (n + 2) */
    size_t bytes;
    hst_halo_layout lay[3];
} cs_ctx;

#define CS_CHECK(call) do { hst_result r_ = (call); if (r_ != HST_SUCCESS) {                    \
        fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hst_result_string(r_)); \
        MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* L for 6 L^2 ranks; 0 for any other count. */
static int cs_blocks_per_side(int nranks)
{
    int L;
    for (L = 1; 6 * L * L < nranks; L++) {}
    return 6 * L * L == nranks ? L : 0;
}

static double cs_initial(int comp, int t, long gi, long gj, long k)
{
    long v = (t * 7 + gi * 3 + gj * 5 + k * 11 + comp * 13) % 17;
    return comp == 0 ? 1.0 + (double)v : (double)(v - 8);
}

static void cs_block_create(cs_ctx *c, cs_block *b, int L, int rank)
{
    hst_halo_field fields[2] = {{0, 0, 0}, {1, 1, 2}};
    hst_halo_spec specs[16];
    hst_halo_plan_desc d;
    size_t ns, q;
    int t = rank / (L * L), rx = rank % (L * L) % L, ry = rank % (L * L) / L;
    double *h = (double *)calloc(c->bytes, 1);
    if (!h) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
    CS_CHECK(hst_cubed_sphere_specs((size_t)L, rank, 2, fields, c->lay, specs, &ns, b->nb, b->pb,
                                    &b->np));
    memset(&d, 0, sizeof d);
    d.num_quantities = 3; d.layouts = c->lay; d.num_specs = ns; d.specs = specs; d.num_peers = b->np;
    CS_CHECK(hst_halo_plan_create(c->be, &d, &b->plan));
    for (q = 0; q < 3; q++) {
        long z, j, i;
        for (z = 0; z < c->nz; z++)
            for (j = 0; j < c->n; j++)
                for (i = 0; i < c->n; i++)
                    h[((size_t)z * c->s + (size_t)j + 1) * c->s + (size_t)i + 1] =
                        cs_initial((int)q, t, rx * c->n + i, ry * c->n + j, z);
        CS_CHECK(hst_buffer_create(c->be, c->bytes, 0, &b->cur[q]));
        CS_CHECK(hst_buffer_create(c->be, c->bytes, 0, &b->next[q]));
        CS_CHECK(hst_write(hst_backend_queue(c->be), b->cur[q], 0, h, c->bytes, 1, 0, NULL, NULL));
        CS_CHECK(hst_write(hst_backend_queue(c->be), b->next[q], 0, h, c->bytes, 1, 0, NULL, NULL));
    }
    free(h);
}

static void cs_block_destroy(cs_block *b)
{
    size_t q;
    for (q = 0; q < 3; q++) { hst_buffer_destroy(b->cur[q]); hst_buffer_destroy(b->next[q]); }
    hst_halo_plan_destroy(b->plan);
}

/* cur -> next for the three fields, then swap. */
static void cs_block_step(cs_ctx *c, cs_block *b)
{
    size_t q;
    for (q = 0; q < 3; q++) {
        if (!c->k) {
            cs_diffuse_host((const double *)hst_buffer_host_ptr(b->cur[q]),
                            (double *)hst_buffer_host_ptr(b->next[q]), c->n, c->nz, c->s, CS_KAPPA);
        } else {
            size_t g[3];
            double k = CS_KAPPA;
            g[0] = (size_t)c->n; g[1] = (size_t)c->n; g[2] = (size_t)c->nz;
            CS_CHECK(hst_kernel_set_buffer(c->k, 0, b->cur[q]));
            CS_CHECK(hst_kernel_set_buffer(c->k, 1, b->next[q]));
            CS_CHECK(hst_kernel_set_arg(c->k, 2, sizeof(int), &c->n));
            CS_CHECK(hst_kernel_set_arg(c->k, 3, sizeof(int), &c->nz));
            CS_CHECK(hst_kernel_set_arg(c->k, 4, sizeof(int), &c->s));
            CS_CHECK(hst_kernel_set_arg(c->k, 5, sizeof(double), &k));
            CS_CHECK(hst_launch(hst_backend_queue(c->be), c->k, 3, g, NULL, 0, NULL, NULL));
        }
    }
    for (q = 0; q < 3; q++) { hst_buffer *t = b->cur[q]; b->cur[q] = b->next[q]; b->next[q] = t; }
}

/* The interiors of a block's three fields, [field][z][j][i]: 3 n^2 nz doubles. */
static void cs_block_interior(cs_ctx *c, cs_block *b, double *out)
{
    double *h = (double *)malloc(c->bytes);
    size_t q, at = 0;
    if (!h) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
    CS_CHECK(hst_queue_finish(hst_backend_queue(c->be)));
    for (q = 0; q < 3; q++) {
        long z, j, i;
        CS_CHECK(hst_read(hst_backend_queue(c->be), b->cur[q], 0, h, c->bytes, 1, 0, NULL, NULL));
        for (z = 0; z < c->nz; z++)
            for (j = 0; j < c->n; j++)
                for (i = 0; i < c->n; i++)
                    out[at++] = h[((size_t)z * c->s + (size_t)j + 1) * c->s + (size_t)i + 1];
    }
    free(h);
}

/* Layouts of n x n blocks of nz levels, and the stencil's kernel on an OpenCL device. */
static void cs_ctx_init(cs_ctx *c, hst_backend *be, int n, int nz)
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
    CS_CHECK(hst_halo_layout_bytes(&c->lay[0], &c->bytes));
    if (!hst_backend_is_host(be)) {
        hst_program *p;
        if (!hst_backend_device(be)->fp64) {
            fprintf(stderr, "cubed_sphere: %s has no fp64; use HST_DEVICE=host\n",
                    hst_backend_device(be)->name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CS_CHECK(hst_program_build(be, 1, &cs_stencil_src, "", &p));
        CS_CHECK(hst_kernel_create(p, "diffuse", &c->k));
        hst_program_release(p);
    }
}

static void cs_ctx_release(cs_ctx *c) { hst_kernel_destroy(c->k); c->k = NULL; }

/* The block's exchanger on comm: each peer's messages tagged with the boundaries (ours toward
   it for sends, its toward us for receives). */
static hst_halo_exchanger *cs_exchanger(cs_block *b, MPI_Comm comm)
{
    hst_halo_mpi_peer mp[8];
    hst_halo_exchanger *ex;
    size_t p;
    for (p = 0; p < b->np; p++) {
        mp[p].send_rank = mp[p].recv_rank = b->nb[p].rank;
        mp[p].send_tag = (int)b->pb[p];
        mp[p].recv_tag = (int)b->nb[p].boundary;
    }
    CS_CHECK(hst_halo_exchanger_create(b->plan, comm, mp, &ex));
    return ex;
}

/* steps of (exchange, diffuse) on this rank's block. */
static void cs_run(cs_ctx *c, cs_block *b, hst_halo_exchanger *ex, int steps)
{
    int step;
    for (step = 0; step < steps; step++) {
        CS_CHECK(hst_halo_exchange_start(ex, NULL, 3, b->cur, 0, NULL));
        CS_CHECK(hst_halo_exchange_finish(ex, NULL, 3, b->cur, NULL));
        cs_block_step(c, b);
    }
}

/* All 6 tiles of tile_n^2 cells in this process after `steps` steps, one block per tile,
   exchanged with direct copies: refs receives 6 blocks of 3 tile_n^2 nz doubles, tile by tile,
   each as cs_block_interior gives them. */
static void cs_reference(hst_backend *be, int tile_n, int nz, int steps, double *refs)
{
    cs_ctx c1;
    cs_block tiles[6];
    size_t p, tile_cells = (size_t)3 * tile_n * tile_n * nz;
    int t, step;
    cs_ctx_init(&c1, be, tile_n, nz);
    for (t = 0; t < 6; t++) cs_block_create(&c1, &tiles[t], 1, t);
    for (step = 0; step < steps; step++) {
        for (t = 0; t < 6; t++)
            CS_CHECK(hst_halo_pack(tiles[t].plan, NULL, 3, tiles[t].cur, 0, NULL, NULL));
        for (t = 0; t < 6; t++)
            for (p = 0; p < tiles[t].np; p++) {
                int to = tiles[t].nb[p].rank;
                size_t tp;
                for (tp = 0; tiles[to].pb[tp] != tiles[t].nb[p].boundary; tp++) {}
                CS_CHECK(hst_halo_copy_peer(tiles[t].plan, p, tiles[to].plan, tp, NULL, 0, NULL, NULL));
            }
        for (t = 0; t < 6; t++)
            CS_CHECK(hst_halo_unpack(tiles[t].plan, NULL, 3, tiles[t].cur, 0, NULL, NULL));
        for (t = 0; t < 6; t++) cs_block_step(&c1, &tiles[t]);
    }
    for (t = 0; t < 6; t++) cs_block_interior(&c1, &tiles[t], refs + (size_t)t * tile_cells);
    for (t = 0; t < 6; t++) cs_block_destroy(&tiles[t]);
    cs_ctx_release(&c1);
}

/* Compares the gathered blocks of nranks = 6 L^2 ranks (each 3 n^2 nz doubles, n = tile_n / L,
   as cs_block_interior gives them) with cs_reference's tiles, bit for bit. Returns the number
   of cells that differ; *first_rank receives the first rank holding one (-1: none). */
static size_t cs_compare(const double *all, const double *refs, int nranks, int tile_n, int nz,
                         int *first_rank)
{
    int L = cs_blocks_per_side(nranks), n = tile_n / L, r;
    size_t tile_cells = (size_t)3 * tile_n * tile_n * nz, cells = (size_t)3 * n * n * nz, bad = 0;
    *first_rank = -1;
    for (r = 0; r < nranks; r++) {
        int tt = r / (L * L), rx = r % (L * L) % L, ry = r % (L * L) / L, q, z, j, i;
        const double *blk = all + (size_t)r * cells;
        for (q = 0; q < 3; q++)
            for (z = 0; z < nz; z++)
                for (j = 0; j < n; j++)
                    for (i = 0; i < n; i++) {
                        double a = blk[(((size_t)q * nz + z) * n + j) * n + i];
                        double e = refs[(size_t)tt * tile_cells +
                                        (((size_t)q * nz + z) * tile_n + ry * n + j) * tile_n +
                                        rx * n + i];
                        if (memcmp(&a, &e, sizeof a) != 0) {
                            if (*first_rank < 0) *first_rank = r;
                            bad++;
                        }
                    }
    }
    return bad;
}

#endif /* CUBED_SPHERE_H */
