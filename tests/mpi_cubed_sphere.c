/* mpi-ranks: 6 24 */
/* tests/mpi_cubed_sphere.c — examples/cubed_sphere.c's check as a test: the distributed diffusion
   (examples/cubed_sphere.h: a halo exchange through halo.h's MPI exchanger every step) equals a
   single-process run of all 6 tiles bit for bit,
     - REPEATS times under the automatic choice of the device path's table variant, each
       repetition from scratch: a new backend whose choice registry starts empty and keeps no
       file (hst_choice_configure path "off", as on a machine with no timings yet: every rank
       measures both variants, then picks by its own timings), new plans, a new exchanger;
     - with the variants forced per rank ($HST_FORCE, read when a backend's plan first packs
       and unpacks): pack "runs" on odd ranks, unpack "runs" on ranks 2 and 3 mod 4 (neighbours
       run different variants, every pair of pack and unpack variants occurs), and the
       complement of that.
   A repetition's halos are the ones the exchange leaves, read by the next step's stencil with
   no wait of the caller's: an exchange that lets a neighbour's next message overwrite the
   receive mirror while this step's upload still reads it (fixed in halo.h: start waits for the
   last finish's uploads) shows here as cells that differ. On the host device there is one
   variant and the path is synchronous: the same checks, the forcing moot. Every rank
   checks its part, rank 0 compares; rank 0 prints TAP. Run by tests/run.sh (stage "mpi")
   under mpirun with the ranks above, on every device (HST_DEVICE's). */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv in strict C99 */
#define HST_IMPLEMENTATION
#define HST_HALO_MPI
#include "../examples/cubed_sphere.h"
#include "mpi_tap.h"

#define REPEATS 10
#define STEPS 40         /* launches 2 .. 4 of a variant are timed (blocking): the rest overlap */
#define TILE_N 24        /* cells per tile side */
#define NZ 4



/* A backend (HST_DEVICE's) whose choice starts empty and is never saved. */
static hst_backend *fresh_backend(void)
{
    hst_backend *be;
    hst_backend_desc bd;
    hst_choice_desc cd;
    memset(&bd, 0, sizeof bd);
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    CS_CHECK(hst_backend_create(&bd, &be));
    CS_CHECK(hst_choice_configure(be, &cd));
    return be;
}

/* One distributed run from scratch, compared on rank 0 with refs: 1 when identical. force:
   this rank's $HST_FORCE, NULL for the automatic choice. */
static int repetition(const double *refs, const char *force, const char *what, int rep)
{
    int L = cs_blocks_per_side(nranks), first = -1, same = 1;
    hst_backend *be;
    hst_halo_exchanger *ex;
    cs_ctx c;
    cs_block b;
    size_t cells = (size_t)3 * (TILE_N / L) * (TILE_N / L) * NZ, differ;
    double *mine = (double *)malloc(cells * sizeof(double)), *all = NULL;
    if (me == 0) all = (double *)malloc(cells * (size_t)nranks * sizeof(double));
    if (!mine || (me == 0 && !all)) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
    if (force) CS_CHECK(setenv("HST_FORCE", force, 1) ? HST_ERROR_OUT_OF_HOST_MEMORY : HST_SUCCESS);
    else unsetenv("HST_FORCE");
    be = fresh_backend();
    cs_ctx_init(&c, be, TILE_N / L, NZ);
    cs_block_create(&c, &b, L, me);
    ex = cs_exchanger(&b, MPI_COMM_WORLD);
    cs_run(&c, &b, ex, STEPS);
    cs_block_interior(&c, &b, mine);
    MPI_Gather(mine, (int)cells, MPI_DOUBLE, all, (int)cells, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        differ = cs_compare(all, refs, nranks, TILE_N, NZ, &first);
        if (differ) {
            fprintf(stderr, "mpi_cubed_sphere: %s, repetition %d: %zu cells differ from the "
                            "single-process run, the first on rank %d\n", what, rep, differ, first);
            same = 0;
        }
    }
    hst_halo_exchanger_destroy(ex);
    cs_block_destroy(&b);
    cs_ctx_release(&c);
    CS_CHECK(hst_backend_destroy(be));
    unsetenv("HST_FORCE");
    free(mine);
    free(all);
    return same;
}

/* rank's $HST_FORCE in a forced mix: pack "runs" on odd ranks, unpack "runs" on ranks 2, 3
   mod 4; complement: the other variant everywhere. */
static const char *mix(int rank, int complement)
{
    static char s[96];
    int pack_runs = (rank & 1) != complement, unpack_runs = ((rank >> 1) & 1) != complement;
    snprintf(s, sizeof s, "halo_pack_device:%s,halo_unpack_device:%s",
             pack_runs ? "runs" : "fused", unpack_runs ? "runs" : "fused");
    return s;
}

int main(int argc, char **argv)
{
    double *refs = NULL;
    int rep, ok, complement;
    char name[160];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (!cs_blocks_per_side(nranks) || TILE_N % cs_blocks_per_side(nranks) != 0) {
        if (me == 0) printf("1..0 # SKIP needs 6 L^2 ranks with L dividing %d, got %d\n", TILE_N, nranks);
        MPI_Finalize();
        return 0;
    }
    if (me == 0) {
        printf("1..3\n");
        refs = (double *)malloc((size_t)3 * TILE_N * TILE_N * NZ * 6 * sizeof(double));
        if (!refs) CS_CHECK(HST_ERROR_OUT_OF_HOST_MEMORY);
        {
            hst_backend *be = fresh_backend();
            cs_reference(be, TILE_N, NZ, STEPS, refs);
            CS_CHECK(hst_backend_destroy(be));
        }
    }
    for (rep = 0, ok = 1; rep < REPEATS; rep++) ok &= repetition(refs, NULL, "automatic choice", rep);
    snprintf(name, sizeof name, "%d runs under the automatic choice, each from an empty choice: "
             "identical to one process's run of all 6 tiles", REPEATS);
    tap(name, ok);
    for (complement = 0; complement < 2; complement++) {
        snprintf(name, sizeof name, "variants forced per rank (pack runs on %s ranks, unpack runs "
                 "on ranks %s mod 4): identical", complement ? "even" : "odd",
                 complement ? "0, 1" : "2, 3");
        tap(name, repetition(refs, mix(me, complement), name, 0));
    }
    free(refs);
    MPI_Finalize();
    return nfail ? 1 : 0;
}
