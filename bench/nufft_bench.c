/* nufft_bench.c — nufft.h's time per execute on one device: by default the problem,
   PyEPRI's projection kernel: 2-D type 2, 256 x 256 modes, 10^6 points uniform in [-pi, pi)^2,
   eps 1e-6 (the figure bench/nufft_peer.py compares with finufft and cufinufft).

       nufft_bench [--device S] [--type 1|2] [--dim 2|3] [--modes N] [--points M] [--eps E]
                   [--reps R] [--n-trans T] [--dtype c64|c128] [--method 0|1|2] [--profile 1]

   The plan is made and the points set once (both timed and printed apart); then R (default
   10) executes, each followed by hst_queue_finish, after one warm-up execute (VkFFT's plan);
   the median is printed as "nufft_bench: ... ms per execute", with the median processor time
   of the process's threads over an execute ("cpu ... ms": on shared cores, what the work cost
   when others' jobs stretch the wall time). Points and values come from a
   fixed generator (the same on every run). Modes N per axis, N^dim in all. --n-trans T (FINUFFT's
   n_trans, PyEPRI's Nb): T vectors per execute (c (T, M), f (T, N, ..)), also printed per vector.
   --dtype c128 (desc.dtype HST_C128, FINUFFT's double precision): points, values and the
   transform in double (eps down to 1e-14). --method: desc.method (type 1's spreading).
   --profile 1: after the timed executes one more, its device time per kernel from OpenCL event
   profiling (bench/cl_profile.h; the queue is made with profiling on, which may cost the timed
   executes a little: take the time from a run without it).
   --dim 3 with --modes 64 and the default points is the 3-D case (64^3 modes, 10^6
   points); bench/nufft_peer.py runs the four cases (types 1 and 2, 2-D and 3-D) against finufft.

   Build (needs FFTW and VkFFT headers): make build/bench/nufft_bench */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#define HST_FFT
#ifndef HST_NO_OPENCL
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#  include "cl_profile.h"
#endif
#include "nufft.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 1000
#define PI 3.14159265358979323846

static uint64_t lcg = 0x853c49e6748fea9bULL;
static double next_uniform(void) {   /* [0, 1), 53 bits (PCG's LCG step, upper bits) */
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) * (1.0 / 9007199254740992.0);
}

/* One execute's device time per kernel (--profile). */
static void profile_execute(hst_backend *be, hst_nufft_plan *plan, hst_array *c, hst_array *f) {
#ifndef HST_NO_OPENCL
    unsigned i, k;
    prof_clear();
    prof_on = 1;
    CHECK(hst_nufft_execute(plan, c, f));
    CHECK(hst_queue_finish(hst_backend_queue(be)));
    prof_on = 0;
    prof_collect();
    for (i = 0; i < prof_ndev; i++)
        for (k = 0; k < prof_dev[i].nstage; k++)
            printf("nufft_bench: profile %-28s %8.4f ms  %lu commands\n", prof_dev[i].stage[k].name,
                   1e3 * prof_dev[i].stage[k].seconds, prof_dev[i].stage[k].count);
#else
    (void)be; (void)plan; (void)c; (void)f;
#endif
}

int main(int argc, char **argv) {
    hst_backend_desc bd;
    hst_backend *be;
    hst_nufft_desc nd;
    hst_nufft_plan *plan;
    hst_nufft_info info;
    hst_array *c, *f;
    size_t n = 256, m = 1000000, nmodes, j, d;
    unsigned dim = 2;
    int type = 2, reps = 10, i;
    size_t n_trans = 1, cshape[2], fshape[4];
    double eps = 1e-6, t0, t_plan, t_points, times[MAX_REPS], cpu[MAX_REPS];
    clock_t c0;
    double *coords[3] = {NULL, NULL, NULL}, *vals;
    float *coords32[3] = {NULL, NULL, NULL}, *vals32 = NULL;
    int f64 = 0, method = 0, profile = 0;
    size_t real;
    memset(&bd, 0, sizeof bd);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { fprintf(stderr, "nufft_bench: %s needs a value\n", a); return 2; }
        if (!strcmp(a, "--device")) bd.device = v;
        else if (!strcmp(a, "--type")) type = atoi(v);
        else if (!strcmp(a, "--dim")) dim = (unsigned)atoi(v);
        else if (!strcmp(a, "--modes")) n = (size_t)atol(v);
        else if (!strcmp(a, "--points")) m = (size_t)atol(v);
        else if (!strcmp(a, "--eps")) eps = atof(v);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "--n-trans")) n_trans = (size_t)atol(v);
        else if (!strcmp(a, "--dtype") && (!strcmp(v, "c64") || !strcmp(v, "c128"))) f64 = !strcmp(v, "c128");
        else if (!strcmp(a, "--method")) method = atoi(v);
        else if (!strcmp(a, "--profile")) profile = atoi(v);
        else { fprintf(stderr, "nufft_bench: unknown option %s\n", a); return 2; }
        i++;
    }
    if (reps < 1 || reps > MAX_REPS || (dim != 2 && dim != 3) || n == 0 || m == 0 || n_trans == 0) {
        fprintf(stderr, "nufft_bench: --reps 1..%d, --dim 2|3, --modes, --points and --n-trans > 0\n", MAX_REPS);
        return 2;
    }
    nmodes = dim == 2 ? n * n : n * n * n;
#ifndef HST_NO_OPENCL
    prof_on = profile;   /* the queue made with profiling */
#endif
    CHECK(hst_backend_create(&bd, &be));
#ifndef HST_NO_OPENCL
    prof_on = 0;
#endif
    real = f64 ? sizeof(double) : sizeof(float);
    for (d = 0; d < dim; d++) {   /* c64: the doubles rounded to float */
        coords[d] = (double *)malloc(m * sizeof(double));
        coords32[d] = (float *)malloc(m * sizeof(float));
        if (!coords[d] || !coords32[d]) { fprintf(stderr, "out of memory\n"); return 1; }
        for (j = 0; j < m; j++) coords32[d][j] = (float)(coords[d][j] = PI * (2.0 * next_uniform() - 1.0));
    }
    j = 2 * n_trans * (m > nmodes ? m : nmodes);
    vals = (double *)malloc(j * sizeof(double));
    vals32 = (float *)malloc(j * sizeof(float));
    if (!vals || !vals32) { fprintf(stderr, "out of memory\n"); return 1; }
    for (d = 0; d < j; d++) vals32[d] = (float)(vals[d] = 2.0 * next_uniform() - 1.0);

    memset(&nd, 0, sizeof nd);
    nd.type = type; nd.dim = dim; nd.eps = eps; nd.n_trans = n_trans; nd.method = method;
    nd.dtype = f64 ? HST_C128 : HST_C64;
    for (d = 0; d < dim; d++) nd.modes[d] = n;
    t0 = now_s();
    CHECK(hst_nufft_plan_create(be, &nd, &plan));
    t_plan = now_s() - t0;
    t0 = now_s();
    if (f64) CHECK(hst_nufft_set_points_f64(plan, m, (const double *const *)coords));
    else CHECK(hst_nufft_set_points(plan, m, (const float *const *)coords32));
    CHECK(hst_queue_finish(hst_backend_queue(be)));
    t_points = now_s() - t0;
    cshape[0] = fshape[0] = n_trans;   /* the batch's axis only for n_trans > 1 */
    cshape[1] = m;
    for (d = 0; d < dim; d++) fshape[1 + d] = n;
    CHECK(hst_array_create(be, nd.dtype, n_trans > 1 ? 2 : 1, cshape + (n_trans == 1), &c));
    CHECK(hst_array_create(be, nd.dtype, dim + (n_trans > 1), fshape + (n_trans == 1), &f));
    CHECK(hst_array_write(c, f64 ? (const void *)vals : vals32, 2 * n_trans * m * real));
    CHECK(hst_array_write(f, f64 ? (const void *)vals : vals32, 2 * n_trans * nmodes * real));
    for (i = -1; i < reps; i++) {   /* i = -1: the warm-up (VkFFT's plan, first launches) */
        t0 = now_s();
        c0 = clock();
        CHECK(hst_nufft_execute(plan, c, f));
        CHECK(hst_queue_finish(hst_backend_queue(be)));
        if (i >= 0) {
            times[i] = now_s() - t0;
            cpu[i] = (double)(clock() - c0) / CLOCKS_PER_SEC;
        }
    }
    qsort(times, (size_t)reps, sizeof times[0], cmp_d);
    qsort(cpu, (size_t)reps, sizeof cpu[0], cmp_d);
    CHECK(hst_nufft_plan_info(plan, &info));
    printf("nufft_bench: device %s\n", hst_backend_device(be)->name);
    printf("nufft_bench: %s type %d, %u-D, %zu^%u modes, %zu points, eps %g: width %u, fine grid %zu^%u\n",
           f64 ? "c128" : "c64", type, dim, n, dim, m, eps, info.width, info.fine[0], dim);
    printf("nufft_bench: plan %.1f ms, set_points %.1f ms\n", 1e3 * t_plan, 1e3 * t_points);
    printf("nufft_bench: %.3f ms per execute (median of %d; min %.3f, max %.3f; cpu %.3f ms)\n",
           1e3 * times[reps / 2], reps, 1e3 * times[0], 1e3 * times[reps - 1], 1e3 * cpu[reps / 2]);
    if (n_trans > 1)
        printf("nufft_bench: n_trans %zu: %.2f ms per vector\n", n_trans, 1e3 * times[reps / 2] / (double)n_trans);
    if (profile) profile_execute(be, plan, c, f);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    CHECK(hst_backend_destroy(be));
    for (d = 0; d < dim; d++) { free(coords[d]); free(coords32[d]); }
    free(vals);
    free(vals32);
    return 0;
}
