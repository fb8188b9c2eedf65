/* tests/mpi_tap.h — the TAP lines of the MPI tests (tests/mpi_*.c): one line per test, printed
   by rank 0, "not ok" when the test failed on any rank. The test sets me and nranks after
   MPI_Init and prints the plan and totals from ntest and nfail. */
#ifndef HST_TESTS_MPI_TAP_H
#define HST_TESTS_MPI_TAP_H

#include <mpi.h>
#include <stdio.h>

static int me, nranks, ntest, nfail;

/* One test's line: local_ok is this rank's verdict; every rank must call (a collective). */
static inline void tap(const char *name, int local_ok)
{
    int all = 0, bad = !local_ok;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ++ntest;
    if (all) ++nfail;
    if (me == 0) printf("%sok %d - %s (%d ranks)%s\n", all ? "not " : "", ntest, name, nranks,
                        all ? " (failed on some ranks)" : "");
    fflush(stdout);
}

/* A test not run, and why (no collective). */
static inline void tap_skip(const char *name, const char *why)
{
    ++ntest;
    if (me == 0) printf("ok %d - %s # SKIP %s\n", ntest, name, why);
    fflush(stdout);
}

#endif
