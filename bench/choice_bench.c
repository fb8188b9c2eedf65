/* choice_bench.c — the choice among implementations by measured speed (choice.h):

   1. Overhead: the time hst_choice_run adds to a call (signature bucketing, lookup among 64
      known signatures, picking among 3 implementations, two clock reads, recording), measured
      as the difference between N calls through the choice and N direct calls of the same
      trivial implementation, and printed as a fraction of a 10 ms operation (goal: < 1%).
      The same fraction is then measured on a real 10 ms operation (a spin on the clock),
      direct against chosen, where it is within the noise.
   2. A real operation on every device: z = y + 0.5 x; sum(z) on f32 arrays of 1e3 .. 1e7
      elements, with an implementation on the host device (the reference) and one on each
      OpenCL device, the data already resident on each. For each size: benchmark mode's table
      (times, cross-check of z against the host), then the mean time of calls left to the
      choice against the mean time of every implementation forced, and their ratio (the
      choice must stay within 10% of the best after warm-up).

       choice_bench [--quick]

   --quick: sizes up to 1e6 and shorter measurements. Times come from CLOCK_MONOTONIC. The
   registry here keeps its timings in memory (path "off"), so every run starts unmeasured.

   Build: cc -std=c99 -O2 -I. bench/choice_bench.c -o choice_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#include "array.h"
#include "choice.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OVERHEAD_CALLS 200000      /* a call costs well under a microsecond: 0.1 s in all */
#define OVERHEAD_SIGS 64           /* signatures already measured when the overhead is timed */
#define OP_10MS_S 0.010
#define OP_10MS_CALLS 60
#define MAX_DEVICES 8
#define NSIZES 5
static const size_t sizes[NSIZES] = { 1000, 10000, 100000, 1000000, 10000000 };
/* Forced and chosen calls are measured in ROUNDS interleaved rounds, each a batch of calls
   lasting at least BATCH_S (MIN_CALLS..MAX_CALLS); a figure is the median of its rounds' means,
   so a slow spell on a shared machine hits every path alike and is voted out. */
#define ROUNDS 7
#define BATCH_S 0.05
#define MIN_CALLS 3
#define MAX_CALLS 3000
#define BENCH_REPS 10

static void die(const char *what, hst_result r)
{
    fprintf(stderr, "choice_bench: %s: %s (%d)\n", what, hst_result_string(r), r);
    exit(1);
}

/* ---- 1. overhead ------------------------------------------------------------------------ */
static volatile unsigned long sink;
static hst_result nop_run(void *args, void *user) { (void)args; (void)user; sink++; return 0; }
static hst_result spin_run(void *args, void *user)
{
    double t0 = now_s();
    (void)args; (void)user;
    while (now_s() - t0 < OP_10MS_S) sink++;
    return 0;
}

static void overhead(hst_backend *be)
{
    hst_choice_impl impls[3];
    hst_choice_op_desc d;
    hst_choice_op *op, *op10;
    int64_t sig[2];
    double t0, direct, chosen, per_call, d10, c10;
    long i;
    memset(impls, 0, sizeof impls);
    impls[0].name = "serial"; impls[1].name = "threaded"; impls[2].name = "opencl";
    for (i = 0; i < 3; i++) impls[i].run = nop_run;
    memset(&d, 0, sizeof d);
    d.name = "overhead";
    d.impls = impls;
    d.num_impls = 3;
    if (hst_choice_register(be, &d, &op) != HST_SUCCESS) die("register", -1);
    for (i = 0; i < OVERHEAD_SIGS; i++) {        /* a registry that has seen some sizes */
        sig[0] = 16 << (i % 16); sig[1] = 3 << (i / 16);
        CHECK(hst_choice_record(op, sig, 2, "serial", 3e-3));
        CHECK(hst_choice_record(op, sig, 2, "threaded", 1e-3));
        CHECK(hst_choice_record(op, sig, 2, "opencl", 2e-3));
    }
    sig[0] = 4096; sig[1] = 24;
    for (i = 0; i < 1000; i++) CHECK(hst_choice_run(op, sig, 2, NULL, NULL, NULL));   /* warm */
    t0 = now_s();
    for (i = 0; i < OVERHEAD_CALLS; i++) nop_run(NULL, NULL);
    direct = now_s() - t0;
    t0 = now_s();
    for (i = 0; i < OVERHEAD_CALLS; i++) CHECK(hst_choice_run(op, sig, 2, NULL, NULL, NULL));
    chosen = now_s() - t0;
    per_call = (chosen - direct) / OVERHEAD_CALLS;
    printf("1. overhead of the choice per call (3 implementations, %d known signatures):\n"
           "   %.3f us per call (%ld calls: %.1f ms through the choice, %.1f ms direct)\n"
           "   as a fraction of a 10 ms operation: %.4f%% (goal < 1%%)\n",
           OVERHEAD_SIGS + 1, 1e6 * per_call, (long)OVERHEAD_CALLS, 1e3 * chosen, 1e3 * direct,
           100.0 * per_call / OP_10MS_S);

    for (i = 0; i < 3; i++) impls[i].run = spin_run;
    d.name = "spin10ms";
    if (hst_choice_register(be, &d, &op10) != HST_SUCCESS) die("register", -1);
    for (i = 0; i < 8; i++) CHECK(hst_choice_run(op10, sig, 2, NULL, NULL, NULL));   /* measure all */
    t0 = now_s();
    for (i = 0; i < OP_10MS_CALLS; i++) spin_run(NULL, NULL);
    d10 = (now_s() - t0) / OP_10MS_CALLS;
    t0 = now_s();
    for (i = 0; i < OP_10MS_CALLS; i++) CHECK(hst_choice_run(op10, sig, 2, NULL, NULL, NULL));
    c10 = (now_s() - t0) / OP_10MS_CALLS;
    printf("   a real 10 ms operation: %.4f ms direct, %.4f ms chosen: ratio %.5f "
           "(noise-limited)\n\n", 1e3 * d10, 1e3 * c10, c10 / d10);
}

/* ---- 2. axpy + sum on each device --------------------------------------------------------- */
typedef struct dev_impl {
    hst_backend *be;
    char name[64];              /* "host" or "opencl:P:D" */
    hst_array *x[NSIZES], *y[NSIZES], *z[NSIZES];
    hst_scalar sum;
} dev_impl;

typedef struct call_args {
    unsigned size;              /* index into sizes */
    dev_impl *last;             /* the implementation that ran last (for the output) */
    float *host;                /* readback buffer */
} call_args;

static hst_result axpy_sum_run(void *args, void *user)
{
    call_args *a = (call_args *)args;
    dev_impl *d = (dev_impl *)user;
    hst_result r;
    if ((r = hst_array_copy(d->z[a->size], d->y[a->size])) != HST_SUCCESS) return r;
    if ((r = hst_array_axpy(d->z[a->size], hst_real(0.5), d->x[a->size])) != HST_SUCCESS) return r;
    a->last = d;
    return hst_array_sum(d->z[a->size], &d->sum);     /* blocking: the call is complete */
}

static hst_result axpy_sum_output(void *args, double *dst, size_t capacity, size_t *count)
{
    call_args *a = (call_args *)args;
    size_t n = sizes[a->size], i;
    hst_result r;
    *count = n;
    if (!dst) return HST_SUCCESS;
    if (capacity < n || !a->last) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst_array_read(a->last->z[a->size], a->host, n * sizeof(float))) != HST_SUCCESS)
        return r;
    for (i = 0; i < n; i++) dst[i] = a->host[i];
    return HST_SUCCESS;
}

static hst_result make_arrays(dev_impl *d, unsigned nsizes)
{
    unsigned s;
    hst_result r = HST_SUCCESS;
    for (s = 0; s < nsizes && r == HST_SUCCESS; s++) {
        size_t shape = sizes[s];
        if ((r = hst_array_create(d->be, HST_F32, 1, &shape, &d->x[s])) != HST_SUCCESS ||
            (r = hst_array_create(d->be, HST_F32, 1, &shape, &d->y[s])) != HST_SUCCESS ||
            (r = hst_array_create(d->be, HST_F32, 1, &shape, &d->z[s])) != HST_SUCCESS)
            break;
        /* counter-based: the same numbers on every device */
        if ((r = hst_array_random(d->x[s], HST_RANDOM_UNIFORM, 1, 0)) == HST_SUCCESS)
            r = hst_array_random(d->y[s], HST_RANDOM_NORMAL, 2, 0);
    }
    return r;
}

/* Mean seconds of calls (forced to `force`, or left to the choice when NULL); counts how often
   each implementation ran into `ran`. */
static double mean_call(hst_choice_op *op, int64_t *sig, call_args *a, const char *force,
                        unsigned *ran)
{
    double t0 = now_s(), t;
    long n = 0;
    hst_choice_outcome oc;
    hst_result r;
    do {
        if ((r = hst_choice_run(op, sig, 1, a, force, &oc)) != HST_SUCCESS) die("run", r);
        if (ran) ran[oc.impl]++;
        n++;
        t = now_s() - t0;
    } while (n < MAX_CALLS && (n < MIN_CALLS || t < BATCH_S));
    return t / (double)n;
}

static double median_of(double *v, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        double x = v[i];
        for (j = i; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    return v[n / 2];
}

static void devices_bench(hst_backend *host, int quick)
{
    hst_device_info infos[MAX_DEVICES + 1];
    dev_impl dev[MAX_DEVICES + 1];
    hst_choice_impl impls[MAX_DEVICES + 1];
    hst_choice_bench_row rows[MAX_DEVICES + 1];
    hst_choice_op_desc d;
    hst_choice_op *op;
    call_args args;
    size_t ndev = 0, total = 0, count, i, k;
    unsigned s, nsizes = quick ? 4 : NSIZES, ran[MAX_DEVICES + 1], share[NSIZES];
    double mean[NSIZES][MAX_DEVICES + 1], choice[NSIZES];
    size_t best[NSIZES], most[NSIZES];
    char *table;
    hst_result r;

    memset(dev, 0, sizeof dev);
    memset(impls, 0, sizeof impls);
    dev[0].be = host;
    snprintf(dev[0].name, sizeof dev[0].name, "host");
    ndev = 1;
    if ((r = hst_devices(infos, MAX_DEVICES + 1, &total)) != HST_SUCCESS) die("hst_devices", r);
    for (i = 0; i < total && i < MAX_DEVICES + 1; i++) {
        hst_backend_desc bd;
        if (infos[i].type == HST_DEVICE_HOST) continue;
        memset(&bd, 0, sizeof bd);
        bd.device = infos[i].selector;
        if (hst_backend_create(&bd, &dev[ndev].be) != HST_SUCCESS) continue;
        snprintf(dev[ndev].name, sizeof dev[ndev].name, "opencl:%.31s", infos[i].selector);
        ndev++;
    }
    printf("2. z = y + 0.5 x; sum(z) (f32), data resident on each device; %zu device(s):\n",
           ndev);
    for (i = 0; i < ndev; i++)
        printf("   %-14s %s\n", dev[i].name, hst_backend_device(dev[i].be)->name);
    if (ndev == 1) printf("   (no OpenCL device: the host implementation alone)\n");
    for (i = 0; i < ndev; i++) {
        if ((r = make_arrays(&dev[i], nsizes)) != HST_SUCCESS) die("arrays", r);
        impls[i].name = dev[i].name;
        impls[i].run = axpy_sum_run;
        impls[i].user = &dev[i];
        impls[i].backend = dev[i].be;
        impls[i].reference = i == 0;
    }
    memset(&d, 0, sizeof d);
    d.name = "axpy_sum";
    d.impls = impls;
    d.num_impls = ndev;
    d.output = axpy_sum_output;
    if ((r = hst_choice_register(host, &d, &op)) != HST_SUCCESS) die("register", r);
    args.last = NULL;
    args.host = (float *)malloc(sizes[nsizes - 1] * sizeof(float));
    if (!args.host) die("malloc", HST_ERROR_OUT_OF_HOST_MEMORY);

    table = NULL;
    for (s = 0; s < nsizes; s++) {
        int64_t sig = (int64_t)sizes[s];
        args.size = s;
        /* benchmark mode: every implementation, cross-checked, timings recorded */
        if ((r = hst_choice_benchmark(op, &sig, 1, &args, BENCH_REPS, rows, ndev + 1, &count))
            != HST_SUCCESS)
            die("benchmark", r);
        k = hst_choice_table(rows, count, NULL, 0);
        free(table);
        table = (char *)malloc(k);
        if (!table) die("malloc", HST_ERROR_OUT_OF_HOST_MEMORY);
        hst_choice_table(rows, count, table, k);
        printf("\n   benchmark mode at %zu elements:\n%s", sizes[s], table);
        /* then calls left to the choice against each implementation forced */
        memset(ran, 0, sizeof ran);
        {
            double rf[MAX_DEVICES + 1][ROUNDS], rc[ROUNDS];
            int round;
            /* the order rotates: no path always follows the same one (a CPU device's
               threads may still spin after its calls, slowing whatever runs next) */
            for (round = 0; round < ROUNDS; round++)
                for (k = 0; k <= ndev; k++) {
                    size_t p = (k + (size_t)round) % (ndev + 1);
                    if (p == ndev) rc[round] = mean_call(op, &sig, &args, NULL, ran);
                    else rf[p][round] = mean_call(op, &sig, &args, dev[p].name, NULL);
                }
            for (i = 0; i < ndev; i++) mean[s][i] = median_of(rf[i], ROUNDS);
            choice[s] = median_of(rc, ROUNDS);
        }
        best[s] = most[s] = 0;
        for (i = 0; i < ndev; i++) {
            if (mean[s][i] < mean[s][best[s]]) best[s] = i;
            if (ran[i] > ran[most[s]]) most[s] = i;
        }
        for (i = 0, k = 0; i < ndev; i++) k += ran[i];
        share[s] = (unsigned)(100.0 * ran[most[s]] / (double)k + 0.5);
    }
    printf("   %-9s %-16s %6s %12s", "elements", "chosen", "calls", "choice ms");
    for (i = 0; i < ndev; i++) printf(" %15.15s", dev[i].name);
    printf(" %12s\n", "choice/best");
    for (s = 0; s < nsizes; s++) {
        printf("   %-9zu %-16.16s %5u%% %12.4f", sizes[s], dev[most[s]].name, share[s],
               1e3 * choice[s]);
        for (i = 0; i < ndev; i++) printf(" %15.4f", 1e3 * mean[s][i]);
        printf(" %12.3f\n", choice[s] / mean[s][best[s]]);
    }
    printf("   (ms per call: median of %d interleaved rounds' means, each over >= %.2f s of "
           "calls; calls: the share of chosen calls that ran it; choice/best: the choice's figure over the best forced figure)\n", ROUNDS,
           BATCH_S);
    free(table);
    free(args.host);
    for (i = 0; i < ndev; i++) {
        for (s = 0; s < nsizes; s++) {
            hst_array_destroy(dev[i].x[s]); hst_array_destroy(dev[i].y[s]);
            hst_array_destroy(dev[i].z[s]);
        }
    }
    for (i = 1; i < ndev; i++) CHECK(hst_backend_destroy(dev[i].be));
}

int main(int argc, char **argv)
{
    hst_backend_desc desc;
    hst_choice_desc cd;
    hst_backend *host;
    hst_result r;
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    memset(&desc, 0, sizeof desc);
    desc.device = "host";
    if ((r = hst_backend_create(&desc, &host)) != HST_SUCCESS) die("backend", r);
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    if ((r = hst_choice_configure(host, &cd)) != HST_SUCCESS) die("configure", r);
    overhead(host);
    devices_bench(host, quick);
    CHECK(hst_backend_destroy(host));
    return 0;
}
