/* esrrf_choice_bench.c — the choice among eSRRF implementations by measured speed (backend.h's
   >>choice, issue 6's benchmark): for frames of 100 x 100, 500 x 500 and 1000 x 1000 (mag 5,
   radius 1.5, sensitivity 1, intensity weighting, AVG sums), one operation per size with the
   implementations
     host              the fused RGC and the temporal sums as C twins on all host threads;
     P:D-fused         the fused kernel + temporal on OpenCL device P:D (each device found);
     P:D-chained       roberts -> magnify x2 -> rgc -> temporal on that device,
   each a stream.h stream over one block of F frames (the frames in host memory, the sums in a
   GLOBAL array: what examples/esrrf.c runs per block). hst_choice runs calls until it has
   measured every implementation after its warm-up, then benchmark mode times each one
   (cross-checked against the host twin), then calls are left to the choice. The table: the
   chosen implementation, its median time per call against every implementation's, and
   chosen/best (goal: <= 1.10).

       esrrf_choice_bench [--quick] [--reps N]

   --quick: 32 x 32, 64 x 64 and 100 x 100 (a CPU through PoCL). --reps: timed runs per
   implementation in benchmark mode (3). --host-max N: leave the host twins out above N x N (at
   1000 x 1000 they take tens of seconds a frame). The registry keeps its timings
   in memory (path "off"): every run starts unmeasured. No libtiff.

   Build: cc -std=c99 -O2 -I. bench/esrrf_choice_bench.c -o esrrf_choice_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime, sysconf in strict C99 */
#define HST_IMPLEMENTATION
#include "stream.h"
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAG 5
#define RADIUS 1.5f
#define MAX_IMPLS 9                /* host + fused and chained on up to 4 OpenCL devices */
#define NSIZES 3
#define CHOSEN_CALLS 5

static void die(const char *what, hst_result r)
{
    fprintf(stderr, "esrrf_choice_bench: %s: %s (%d)\n", what, hst_result_string(r), r);
    exit(1);
}

/* ------------------------------------------------------------------ host twins, threaded */
typedef struct twin_job {
    int temporal;
    void *const *a;
    const void *const *s;
    uint64_t base, begin, end, total;
} twin_job;

static void *twin_thread(void *p)
{
    const twin_job *j = (const twin_job *)p;
    const void *const *s = j->s;
    if (j->temporal)
        hst_k_esrrf_temporal_host((const float *)j->a[0], (double *)j->a[1], *(const uint32_t *)s[0],
                                  *(const uint32_t *)s[1], j->base, j->begin, j->end, j->total);
    else
        hst_k_esrrf_rgc_fused_host((const float *)j->a[0], (float *)j->a[1], *(const uint32_t *)s[0],
                                   *(const uint32_t *)s[1], *(const uint32_t *)s[2], *(const float *)s[3],
                                   *(const float *)s[4], *(const int *)s[5], j->base, j->begin, j->end,
                                   j->total);
    return NULL;
}

/* Frames split over the threads (the temporal walk: pixels are independent, so rows of pixels
   would do, but its twin takes frames: one thread, as examples/esrrf.c). */
static hst_result twin_dispatch(int temporal, void *const *a, const void *const *s, const hst_stream_block *b)
{
    twin_job jobs[256];
    pthread_t th[256];
    int created[256];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t n = b->end - b->begin;
    unsigned t, nt = ncpu < 1 ? 1 : ncpu > 256 ? 256 : (unsigned)ncpu;
    if (temporal || n < 2) nt = 1;
    if (nt > n) nt = (unsigned)n;
    for (t = 0; t < nt; t++) {
        jobs[t].temporal = temporal; jobs[t].a = a; jobs[t].s = s;
        jobs[t].base = b->base; jobs[t].total = b->total;
        jobs[t].begin = b->begin + n * t / nt;
        jobs[t].end = b->begin + n * (t + 1) / nt;
    }
    for (t = 1; t < nt; t++) created[t] = pthread_create(&th[t], NULL, twin_thread, &jobs[t]) == 0;
    if (nt) twin_thread(&jobs[0]);
    for (t = 1; t < nt; t++) {
        if (created[t]) pthread_join(th[t], NULL);
        else twin_thread(&jobs[t]);
    }
    return HST_SUCCESS;
}

static hst_result host_fused(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(0, a, s, b); }
static hst_result host_temporal(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)u; return twin_dispatch(1, a, s, b); }
static hst_result no_twin(void *const *a, const void *const *s, const hst_stream_block *b, void *u)
{ (void)a; (void)s; (void)b; (void)u; return HST_ERROR_UNSUPPORTED; }   /* OpenCL only */

/* ------------------------------------------------------------------ one implementation */
typedef struct impl {
    char name[48];
    hst_backend *be;
    int chained, f64;
    hst_stream *s;
    uint32_t rows, cols, mag, mag2, one, two, pixels, fpt;
    float radius, sensitivity;
    int weighting;
    void *acc;                     /* 5 x pixels sums, f64 or f32 */
    unsigned long runs;
} impl;

typedef struct call_args { impl *last; double *tmp; } call_args;

enum { A_FRAMES, A_RGC, A_ACC, A_GRAD, A_GRAD2, A_MAG };
static const int in_frames[1] = { A_FRAMES }, out_rgc[1] = { A_RGC }, in_rgc[1] = { A_RGC },
                 out_acc[1] = { A_ACC }, out_grad[1] = { A_GRAD }, in_grad[1] = { A_GRAD },
                 out_grad2[1] = { A_GRAD2 }, out_mag[1] = { A_MAG },
                 in_rgc_inputs[2] = { A_GRAD2, A_MAG };

static void scalar(hst_stream_stage *g, const void *p)
{
    g->scalars[g->num_scalars] = p;
    g->scalar_bytes[g->num_scalars++] = 4;
}

static hst_result impl_open(impl *m, float *frames, unsigned n, unsigned F)
{
    const hst_device_info *dev = hst_backend_device(m->be);
    size_t count = 0, px = (size_t)n * n, pixels = px * MAG * MAG;
    const char *const *src = hst_kernels_esrrf_source(&count);
    static char opts[2][96];
    hst_stream_array arrays[6];
    hst_stream_stage stages[5];
    hst_stream_desc d;
    unsigned ns = 0, k;
    hst_stream_stage *g;
    m->rows = m->cols = n; m->mag = MAG; m->mag2 = 2 * MAG; m->one = 1; m->two = 2;
    m->pixels = (uint32_t)pixels; m->fpt = 0;
    m->radius = RADIUS; m->sensitivity = 1.0f; m->weighting = 1;
    m->f64 = hst_backend_is_host(m->be) || dev->fp64;
    m->runs = 0;
    if (!(m->acc = calloc(5 * pixels, m->f64 ? 8 : 4))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    snprintf(opts[m->f64], sizeof opts[0], "%s%s", dev->correctly_rounded_sqrt ?
             "-cl-fp32-correctly-rounded-divide-sqrt" : "", m->f64 ? " -DHST_FP64" : "");
    memset(arrays, 0, sizeof arrays);
    arrays[A_FRAMES].kind = HST_STREAM_INPUT; arrays[A_FRAMES].host = frames;
    arrays[A_FRAMES].slice_bytes = px * 4;
    arrays[A_RGC].kind = HST_STREAM_TEMP; arrays[A_RGC].slice_bytes = pixels * 4;
    arrays[A_ACC].kind = HST_STREAM_GLOBAL; arrays[A_ACC].host = m->acc;
    arrays[A_ACC].global_bytes = 5 * pixels * (m->f64 ? 8 : 4);
    arrays[A_ACC].dtype = m->f64 ? HST_F64 : HST_F32;
    arrays[A_GRAD].kind = HST_STREAM_TEMP; arrays[A_GRAD].slice_bytes = 2 * px * 4;
    arrays[A_GRAD2].kind = HST_STREAM_TEMP; arrays[A_GRAD2].slice_bytes = 2 * px * 4 * m->mag2 * m->mag2;
    arrays[A_MAG].kind = HST_STREAM_TEMP; arrays[A_MAG].slice_bytes = pixels * 4;
    memset(stages, 0, sizeof stages);
    for (k = 0; k < 5; k++) {
        stages[k].sources = src; stages[k].source_count = count; stages[k].options = opts[m->f64];
        stages[k].host = no_twin;
    }
    if (!m->chained) {
        g = &stages[ns++];
        g->name = "rgc_fused"; g->kernel = "hst_k_esrrf_rgc_fused"; g->host = host_fused;
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_rgc;
        g->items_per_slice = pixels;
        scalar(g, &m->rows); scalar(g, &m->cols); scalar(g, &m->mag);
        scalar(g, &m->radius); scalar(g, &m->sensitivity); scalar(g, &m->weighting);
    } else {
        g = &stages[ns++];
        g->name = "roberts"; g->kernel = "hst_k_esrrf_roberts";
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_grad;
        g->items_per_slice = px;
        scalar(g, &m->rows); scalar(g, &m->cols);
        g = &stages[ns++];
        g->name = "magnify_gradients"; g->kernel = "hst_k_esrrf_magnify";
        g->num_inputs = 1; g->inputs = in_grad; g->num_outputs = 1; g->outputs = out_grad2;
        g->items_per_slice = px * m->mag2 * m->mag2;
        scalar(g, &m->rows); scalar(g, &m->cols); scalar(g, &m->mag2); scalar(g, &m->two);
        g = &stages[ns++];
        g->name = "magnify_frame"; g->kernel = "hst_k_esrrf_magnify";
        g->num_inputs = 1; g->inputs = in_frames; g->num_outputs = 1; g->outputs = out_mag;
        g->items_per_slice = pixels;
        scalar(g, &m->rows); scalar(g, &m->cols); scalar(g, &m->mag); scalar(g, &m->one);
        g = &stages[ns++];
        g->name = "rgc"; g->kernel = "hst_k_esrrf_rgc";
        g->num_inputs = 2; g->inputs = in_rgc_inputs; g->num_outputs = 1; g->outputs = out_rgc;
        g->items_per_slice = pixels;
        scalar(g, &m->rows); scalar(g, &m->cols); scalar(g, &m->mag);
        scalar(g, &m->radius); scalar(g, &m->sensitivity); scalar(g, &m->weighting);
    }
    g = &stages[ns++];
    g->name = "temporal"; g->kernel = "hst_k_esrrf_temporal"; g->host = host_temporal;
    g->num_inputs = 1; g->inputs = in_rgc; g->num_outputs = 1; g->outputs = out_acc;
    g->items_per_slice = pixels; g->loop_slices = 1; g->halo_lo = F > 1 ? 1 : 0;
    scalar(g, &m->pixels); scalar(g, &m->fpt);
    memset(&d, 0, sizeof d);
    d.backends = &m->be; d.num_backends = 1; d.num_slices = F;
    d.arrays = arrays; d.num_arrays = m->chained ? 6 : 3;
    d.stages = stages; d.num_stages = ns;
    d.block_slices = F;
    return hst_stream_create(&d, &m->s);
}

static hst_result impl_run(void *args, void *user)
{
    impl *m = (impl *)user;
    hst_result r = hst_stream_run(m->s, NULL);     /* blocking: the sums are in m->acc */
    if (r == HST_SUCCESS) { m->runs++; ((call_args *)args)->last = m; }
    return r;
}

/* The last run's S1 sums over the runs so far: the same numbers for every implementation. */
static hst_result impl_output(void *args, double *dst, size_t capacity, size_t *count)
{
    impl *m = ((call_args *)args)->last;
    size_t i;
    if (!m) return HST_ERROR_INVALID_ARGUMENT;
    *count = m->pixels;
    if (!dst) return HST_SUCCESS;
    if (capacity < m->pixels) return HST_ERROR_INVALID_ARGUMENT;
    for (i = 0; i < m->pixels; i++)
        dst[i] = (m->f64 ? ((const double *)m->acc)[i] : (double)((const float *)m->acc)[i]) / (double)m->runs;
    return HST_SUCCESS;
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

/* Blinking Gaussian spots on a dim background (deterministic). */
static void make_frames(float *f, unsigned n, unsigned F)
{
    unsigned z, y, x, k;
    uint32_t seed = 12345;
    for (z = 0; z < F; z++)
        for (y = 0; y < n; y++)
            for (x = 0; x < n; x++) {
                float v = 100.0f;
                for (k = 0; k < 6; k++) {
                    float cx = (float)((k * 37 + 11) % n) + 0.3f, cy = (float)((k * 53 + 7) % n) + 0.6f;
                    float dx = (float)x - cx, dy = (float)y - cy, on = ((k + z) % 3) ? 1.0f : 0.3f;
                    v += 800.0f * on * expf(-(dx * dx + dy * dy) / 4.5f);
                }
                seed = seed * 1664525u + 1013904223u;
                f[((size_t)z * n + y) * n + x] = v + (float)(seed >> 24) / 16.0f;
            }
}

int main(int argc, char **argv)
{
    static const unsigned full[NSIZES] = { 100, 500, 1000 }, quick_sizes[NSIZES] = { 32, 64, 100 };
    static const unsigned frames_full[NSIZES] = { 8, 2, 1 }, frames_quick[NSIZES] = { 2, 1, 1 };
    const unsigned *sizes = full, *frames_per = frames_full;
    hst_backend_desc bd;
    hst_choice_desc cd;
    hst_backend *host, *ocl[4];
    hst_device_info infos[16];
    impl im[MAX_IMPLS];
    size_t total = 0, i, nocl = 0, nimpl, count;
    unsigned s, reps = 3, chosen_impl[NSIZES], host_max = 0;
    double med[NSIZES][MAX_IMPLS], chosen_ms[NSIZES];
    int a, ok[NSIZES][MAX_IMPLS];
    hst_result opened[NSIZES][MAX_IMPLS];
    hst_result r;

    setvbuf(stdout, NULL, _IOLBF, 0);   /* a run cut short keeps what it printed */
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick")) { sizes = quick_sizes; frames_per = frames_quick; }
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = (unsigned)atoi(argv[++a]);
        else if (!strcmp(argv[a], "--host-max") && a + 1 < argc) host_max = (unsigned)atoi(argv[++a]);
        else { fprintf(stderr, "usage: esrrf_choice_bench [--quick] [--reps N] [--host-max N]\n"); return 2; }
    }
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    if ((r = hst_backend_create(&bd, &host)) != HST_SUCCESS) die("host backend", r);
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    if ((r = hst_choice_configure(host, &cd)) != HST_SUCCESS) die("configure", r);
    if ((r = hst_devices(infos, 16, &total)) != HST_SUCCESS) die("hst_devices", r);
    for (i = 0; i < total && i < 16 && nocl < 4; i++) {
        if (infos[i].type == HST_DEVICE_HOST) continue;
        memset(&bd, 0, sizeof bd);
        bd.device = infos[i].selector;
        if (hst_backend_create(&bd, &ocl[nocl]) == HST_SUCCESS) nocl++;
    }
    memset(im, 0, sizeof im);
    snprintf(im[0].name, sizeof im[0].name, "host");
    im[0].be = host;
    nimpl = 1;
    for (i = 0; i < nocl; i++) {
        const hst_device_info *dv = hst_backend_device(ocl[i]);
        for (a = 0; a < 2; a++) {
            snprintf(im[nimpl].name, sizeof im[nimpl].name, "%.20s-%s", dv->selector, a ? "chained" : "fused");
            im[nimpl].be = ocl[i];
            im[nimpl].chained = a;
            nimpl++;
        }
    }
    printf("eSRRF (mag %d, radius %g, AVG sums) per call of F frames; host: C twins on %ld threads\n",
           MAG, (double)RADIUS, sysconf(_SC_NPROCESSORS_ONLN));
    for (i = 0; i < nocl; i++)
        printf("  OpenCL %s: %s (%s)\n", hst_backend_device(ocl[i])->selector,
               hst_backend_device(ocl[i])->name, hst_backend_device(ocl[i])->driver_version);

    for (s = 0; s < NSIZES; s++) {
        unsigned n = sizes[s], F = frames_per[s], k, counts[MAX_IMPLS], idx[MAX_IMPLS];
        size_t nreg;
        hst_choice_impl impls[MAX_IMPLS];
        hst_choice_bench_row rows[MAX_IMPLS];
        hst_choice_op_desc od;
        hst_choice_op *op;
        hst_choice_outcome oc;
        call_args ca;
        char opname[32], *table;
        int64_t sig[4];
        double t[CHOSEN_CALLS];
        float *frames = (float *)malloc((size_t)n * n * F * sizeof(float));
        if (!frames) die("malloc", HST_ERROR_OUT_OF_HOST_MEMORY);
        make_frames(frames, n, F);
        memset(impls, 0, sizeof impls);
        for (i = 0, nreg = 0; i < nimpl; i++) {    /* one that cannot open is left out here */
            opened[s][i] = r = i == 0 && host_max && n > host_max ? HST_ERROR_UNSUPPORTED
                                                                  : impl_open(&im[i], frames, n, F);
            if (r != HST_SUCCESS) {
                fprintf(stderr, "esrrf_choice_bench: %s at %u x %u: %s: left out\n", im[i].name, n, n,
                        hst_result_string(r));
                continue;
            }
            impls[nreg].name = im[i].name;
            impls[nreg].run = impl_run;
            impls[nreg].user = &im[i];
            impls[nreg].backend = im[i].be;
            impls[nreg].reference = i == 0;
            idx[nreg++] = (unsigned)i;
        }
        if (!nreg) die("no implementation", r);
        snprintf(opname, sizeof opname, "esrrf-%u", n);
        memset(&od, 0, sizeof od);
        od.name = opname; od.impls = impls; od.num_impls = nreg; od.output = impl_output;
        if ((r = hst_choice_register(host, &od, &op)) != HST_SUCCESS) die("register", r);
        sig[0] = n; sig[1] = n; sig[2] = MAG; sig[3] = F;
        ca.last = NULL;
        /* 1. the choice measures every implementation (after its warm-up run) */
        for (k = 0; k < 4 * nreg; k++) {
            if ((r = hst_choice_run(op, sig, 4, &ca, NULL, &oc)) != HST_SUCCESS) die("run", r);
            if (!oc.explored) break;
        }
        /* 2. benchmark mode: every implementation, cross-checked against the host twin */
        if ((r = hst_choice_benchmark(op, sig, 4, &ca, reps, rows, MAX_IMPLS, &count)) != HST_SUCCESS)
            die("benchmark", r);
        table = (char *)malloc(hst_choice_table(rows, count, NULL, 0));
        if (!table) die("malloc", HST_ERROR_OUT_OF_HOST_MEMORY);
        hst_choice_table(rows, count, table, hst_choice_table(rows, count, NULL, 0));
        printf("\n%u x %u, %u frame(s) per call, benchmark mode (%u timed runs each):\n%s", n, n, F,
               reps, table);
        free(table);
        memset(ok[s], 0, sizeof ok[s]);
        for (i = 0; i < nreg; i++) {
            ok[s][idx[i]] = rows[i].result == HST_SUCCESS;
            med[s][idx[i]] = rows[i].median_s;
        }
        /* 3. calls left to the choice */
        memset(counts, 0, sizeof counts);
        for (k = 0; k < CHOSEN_CALLS; k++) {
            if ((r = hst_choice_run(op, sig, 4, &ca, NULL, &oc)) != HST_SUCCESS) die("run", r);
            t[k] = oc.seconds;
            counts[oc.impl]++;
        }
        chosen_ms[s] = median_of(t, CHOSEN_CALLS);
        for (i = 0, k = 0; i < nreg; i++)
            if (counts[i] > counts[k]) k = (unsigned)i;
        chosen_impl[s] = idx[k];
        for (i = 0; i < nimpl; i++) {
            if (opened[s][i] != HST_SUCCESS) continue;
            hst_stream_destroy(im[i].s);
            free(im[i].acc);
        }
        free(frames);
    }

    printf("\n| size | F | chosen | chosen ms/frame |");
    for (i = 0; i < nimpl; i++) printf(" %s |", im[i].name);
    printf(" chosen/best |\n|---|---|---|---|");
    for (i = 0; i < nimpl; i++) printf("---|");
    printf("---|\n");
    for (s = 0; s < NSIZES; s++) {
        double best = -1;
        for (i = 0; i < nimpl; i++)
            if (ok[s][i] && (best < 0 || med[s][i] < best)) best = med[s][i];
        printf("| %u x %u | %u | %s | %.3f |", sizes[s], sizes[s], frames_per[s], im[chosen_impl[s]].name,
               1e3 * chosen_ms[s] / frames_per[s]);
        for (i = 0; i < nimpl; i++) {
            if (ok[s][i]) printf(" %.3f (%.2fx) |", 1e3 * med[s][i] / frames_per[s], med[s][i] / best);
            else printf(" %s |", opened[s][i] == HST_ERROR_UNSUPPORTED ? "not run" :
                        opened[s][i] != HST_SUCCESS ? "cannot open" : "failed");
        }
        printf(" %.3f |\n", chosen_ms[s] / best);
    }
    printf("(ms per frame: medians; the implementations' from benchmark mode, the chosen one's over "
           "%d calls left to the choice afterwards; (x): against the best)\n", CHOSEN_CALLS);
    for (i = 0; i < nocl; i++) hst_backend_destroy(ocl[i]);
    hst_backend_destroy(host);
    return 0;
}
