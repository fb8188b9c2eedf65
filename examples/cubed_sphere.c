/* examples/cubed_sphere.c — diffusion of a scalar and of a vector field on the cubed sphere, with
   a halo exchange (halo.h's MPI exchanger: one fused pack and one fused unpack per step) every
   step, on the device HST_DEVICE picks.

       mpirun -np 6  build/examples/cubed_sphere [steps] [cells per tile side] [levels]
       mpirun -np 24 build/examples/cubed_sphere 100            (2 x 2 ranks per tile)
       make mpi-demo                                            (both)

   6 * L^2 ranks split each of the 6 tiles into L x L blocks; the model (a scalar in flux form,
   whose mass is conserved to round-off, and a vector rotated across tile edges) is
   examples/cubed_sphere.h's. Rank 0 prints the mass before and after, then runs all 6 tiles in
   one process and checks that the distributed result is identical bit for bit (exit status 1
   when not); tests/mpi_cubed_sphere.c repeats that check under the device path's automatic
   choice and forced variant mixes. */
#define HST_IMPLEMENTATION
#define HST_HALO_MPI
#include "cubed_sphere.h"

int main(int argc, char **argv)
{
    int me, nranks, L, steps, tile_n, nz;
    hst_backend *be;
    hst_backend_desc bd;
    cs_ctx c;
    cs_block b;
    hst_halo_exchanger *ex;
    size_t p, cells;
    double *mine, *all = NULL, mass0 = 0, mass1 = 0, local, t0, t1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    steps = argc > 1 ? atoi(argv[1]) : 100;
    tile_n = argc > 2 ? atoi(argv[2]) : 24;
    nz = argc > 3 ? atoi(argv[3]) : 4;
    L = cs_blocks_per_side(nranks);
    if (!L || tile_n % L != 0 || steps < 0 || nz < 1) {
        if (me == 0) fprintf(stderr, "cubed_sphere: needs 6 L^2 ranks (6, 24, 54, ...) and a tile "
                                     "side divisible by L; got %d ranks, side %d\n", nranks, tile_n);
        MPI_Finalize();
        return 2;
    }
    memset(&bd, 0, sizeof bd);
    CS_CHECK(hst_backend_create(&bd, &be));
    cs_ctx_init(&c, be, tile_n / L, nz);
    cs_block_create(&c, &b, L, me);
    ex = cs_exchanger(&b, MPI_COMM_WORLD);
    cells = (size_t)3 * c.n * c.n * c.nz;
    mine = (double *)malloc(cells * sizeof(double));
    if (!mine) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
    cs_block_interior(&c, &b, mine);
    for (p = 0, local = 0; p < cells / 3; p++) local += mine[p];
    MPI_Allreduce(&local, &mass0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    cs_run(&c, &b, ex, steps);
    cs_block_interior(&c, &b, mine);
    t1 = MPI_Wtime();
    for (p = 0, local = 0; p < cells / 3; p++) local += mine[p];
    MPI_Allreduce(&local, &mass1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        all = (double *)malloc(cells * (size_t)nranks * sizeof(double));
        if (!all) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
    }
    MPI_Gather(mine, (int)cells, MPI_DOUBLE, all, (int)cells, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (me == 0) {
        /* all 6 tiles in this process, exchanged with direct copies */
        double *refs = (double *)malloc((size_t)3 * tile_n * tile_n * nz * 6 * sizeof(double));
        int first;
        size_t differ;
        if (!refs) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
        cs_reference(be, tile_n, nz, steps, refs);
        differ = cs_compare(all, refs, nranks, tile_n, nz, &first);
        printf("cubed_sphere: %d ranks (%d x %d per tile), tiles of %d x %d x %d, %d steps on %s\n",
               nranks, L, L, tile_n, tile_n, nz, steps, hst_backend_device(be)->name);
        printf("  halo exchange: %zu peers per rank, 1 pack + 1 unpack launch per step "
               "(rank 0: %llu packs, %llu unpacks)\n", b.np,
               (unsigned long long)hst_halo_plan_stats(b.plan).pack_launches,
               (unsigned long long)hst_halo_plan_stats(b.plan).unpack_launches);
        printf("  scalar mass: %.17g -> %.17g (relative change %.3g)\n", mass0, mass1,
               (mass1 - mass0) / mass0);
        if (differ)
            printf("  identical to a single-process run of all 6 tiles: NO (%zu cells differ, "
                   "the first on rank %d)\n", differ, first);
        else
            printf("  identical to a single-process run of all 6 tiles: yes\n");
        printf("  time: %.3f s (%.3f ms per step)\n", t1 - t0, steps ? 1e3 * (t1 - t0) / steps : 0.0);
        free(refs);
        free(all);
        if (differ) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(mine);
    hst_halo_exchanger_destroy(ex);
    cs_block_destroy(&b);
    cs_ctx_release(&c);
    CS_CHECK(hst_backend_destroy(be));
    MPI_Finalize();
    return 0;
}
