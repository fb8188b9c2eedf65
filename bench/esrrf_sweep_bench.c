/* esrrf_sweep_bench.c — the eSRRF parameter sweep (esrrf.h's hst_esrrf_sweep) against one eSRRF
   AVG run of the same stack on the same device: seconds of each, and their ratios. The issue's
   case by default: the shipped stack (examples/data, 50 frames of 256 x 256), magnification 5,
   radii 1, 1.5, 2 and sensitivities 1, 2, 4 (a 3 x 3 sweep: 9 pairs, each scored by RSP and the
   FRC of odd and even frames), against hst_esrrf_run at radius 1.5, sensitivity 1, AVG.

       esrrf_sweep_bench [--device S] [--stack PATH] [--synthetic SIZE FRAMES] [--mag M]
                         [--radii 1,1.5,2] [--sensitivities 1,2,4] [--block FRAMES] [--reps K]

   Figures (one process, one device, best of K = 3 timed runs after one untimed run of each,
   which builds or loads the programs):
     AVG run        seconds of hst_esrrf_run with the default desc (radius 1.5, sensitivity 1)
     sweep          seconds of hst_esrrf_sweep (the call), of which
       pass         the one pass over the frames that makes every pair's sums (per block:
                    one upload, per radius one fused RGC launch at every sensitivity and one
                    of the sums; --block: desc.block_frames, 0 automatic)
       scores       the images of every pair, their error maps and FRCs
       set-up       the rest: the programs (from the cache), buffers and host memory made and
                    freed
     sweep / AVG    the figure (at most 3 on one H100); pass / AVG beside it
     stages         on an OpenCL device, one more sweep on a backend whose queue profiles
                    (bench/cl_profile.h): the device time of each kernel (the pass's fused RGC
                    and sums, the scores' kernels), of the uploads, read-backs and fills, summed
                    over the call, with their counts and bytes
   The best pair and its QnR are printed, so that runs can be compared.

   Build: make build/bench/esrrf_sweep_bench (libtiff for the stack, FFTW for the scores). */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#define HST_FFT
#ifndef HST_NO_OPENCL
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#  include "cl_profile.h"
#endif
#include "esrrf.h"
#include "bench_util.h"

#define IMAGE_IO_IMPLEMENTATION
#include "../examples/image_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STACK "examples/data/fkbp_confocal_50x256x256_u8.tif"

typedef struct args {
    const char *device, *stack;
    uint32_t size, mag;
    uint64_t frames, block;
    unsigned reps, nr, ns;
    float radii[HST_ESRRF_SWEEP_MAX], sens[HST_ESRRF_SWEEP_MAX];
} args;

/* "1,1.5,2" into v (at most HST_ESRRF_SWEEP_MAX values); their count. */
static unsigned parse_list(const char *s, float *v)
{
    unsigned n = 0;
    char *end;
    while (*s && n < HST_ESRRF_SWEEP_MAX) {
        v[n++] = strtof(s, &end);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s) break;
    }
    return n;
}

static void parse(int argc, char **argv, args *a)
{
    int i;
    memset(a, 0, sizeof *a);
    a->stack = DEFAULT_STACK; a->mag = 5; a->reps = 3;
    a->nr = parse_list("1,1.5,2", a->radii);
    a->ns = parse_list("1,2,4", a->sens);
    for (i = 1; i < argc; i += 2) {
        if (i + 1 == argc) { fprintf(stderr, "%s needs a value\n", argv[i]); exit(2); }
        if (!strcmp(argv[i], "--device")) a->device = argv[i + 1];
        else if (!strcmp(argv[i], "--stack")) a->stack = argv[i + 1];
        else if (!strcmp(argv[i], "--synthetic") && i + 2 < argc) {
            a->stack = NULL;
            a->size = (uint32_t)atoi(argv[i + 1]);
            a->frames = (uint64_t)atoll(argv[++i + 1]);
        } else if (!strcmp(argv[i], "--mag")) a->mag = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) a->reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--block")) a->block = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--radii")) a->nr = parse_list(argv[i + 1], a->radii);
        else if (!strcmp(argv[i], "--sensitivities")) a->ns = parse_list(argv[i + 1], a->sens);
        else { fprintf(stderr, "unknown option %s\n", argv[i]); exit(2); }
    }
    if (!a->reps || !a->nr || !a->ns || (!a->stack && (!a->size || !a->frames))) {
        fprintf(stderr, "bad arguments\n");
        exit(2);
    }
}

/* The stack: the TIFF's samples (u8 or u16 as they are, else f32), or the synthetic one. */
typedef struct input { io_stack st; void *synthetic; hst_esrrf_dtype dtype; } input;

static void load(const args *a, input *in)
{
    char err[1024];
    static const hst_esrrf_dtype of[5] = { (hst_esrrf_dtype)0, HST_ESRRF_U8, HST_ESRRF_U16, HST_ESRRF_I16,
                                           HST_ESRRF_F32 };
    memset(in, 0, sizeof *in);
    if (!a->stack) {
        in->synthetic = bench_blinking_stack(a->frames, a->size, 0);
        in->st.data = in->synthetic;
        in->st.frames = a->frames;
        in->st.rows = in->st.cols = a->size;
        in->dtype = HST_ESRRF_U16;
        return;
    }
    if (!io_read_stack(a->stack, 0, 0, &in->st, err, sizeof err)) {
        fprintf(stderr, "%s (run from the source tree, or give --stack)\n", err);
        exit(1);
    }
    in->dtype = of[in->st.dtype];
}

/* One sweep (desc d, its backend replaced by one whose queue profiles, on device sel) with its
   commands' device times per stage (the stages' table above). */
static void stages(const char *sel, hst_esrrf_desc d, const hst_esrrf_sweep_desc *sw, const input *in)
{
#ifndef HST_NO_OPENCL
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_esrrf_sweep_result res;
    unsigned i, k;
    memset(&bd, 0, sizeof bd);
    bd.device = sel;
    prof_on = 1;
    CHECK(hst_esrrf_backend_create(&bd, &be, NULL));
    d.backends = &be;
    CHECK(hst_esrrf_sweep(&d, sw, in->st.data, in->dtype, in->st.frames, in->st.rows, in->st.cols, NULL, &res));
    prof_clear();   /* the first call builds the programs: the second is profiled */
    CHECK(hst_esrrf_sweep(&d, sw, in->st.data, in->dtype, in->st.frames, in->st.rows, in->st.cols, NULL, &res));
    prof_on = 0;
    prof_collect();
    printf("stages of one sweep (OpenCL event profiling; pass %.3f s, scores %.3f s of wall time; device time, "
           "commands, MB):\n", res.pass_seconds, res.score_seconds);
    for (i = 0; i < prof_ndev; i++)
        for (k = 0; k < prof_dev[i].nstage; k++) {
            const prof_stage *st = &prof_dev[i].stage[k];
            printf("  %-34s %9.3f ms %6lu %10.1f\n", st->name, 1e3 * st->seconds, st->count, 1e-6 * (double)st->bytes);
        }
    prof_clear();
    CHECK(hst_backend_destroy(be));
#else
    (void)sel; (void)d; (void)sw; (void)in;
#endif
}

int main(int argc, char **argv)
{
    args a;
    input in;
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_esrrf_desc d, ds;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    double t_avg = INFINITY, t_sweep = INFINITY, t_pass = INFINITY, t_scores = INFINITY, t_other = INFINITY;
    float *out[HST_ESRRF_NUM_MODES] = {NULL, NULL, NULL};
    unsigned k;
    parse(argc, argv, &a);
    load(&a, &in);
    memset(&bd, 0, sizeof bd);
    bd.device = a.device;
    CHECK(hst_esrrf_backend_create(&bd, &be, NULL));
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = a.mag;
    ds = d;
    ds.block_frames = a.block;   /* the sweep's blocks only: the AVG run stays as it is */
    memset(&sw, 0, sizeof sw);
    sw.radii = a.radii; sw.num_radii = a.nr;
    sw.sensitivities = a.sens; sw.num_sensitivities = a.ns;
    out[0] = (float *)malloc((size_t)in.st.rows * in.st.cols * a.mag * a.mag * sizeof(float));
    if (!out[0]) { fprintf(stderr, "out of memory\n"); return 1; }
    printf("device: %s\nstack: %s, %llu frames of %u x %u, mag %u; sweep of %u radii x %u sensitivities\n",
           hst_backend_device(be)->name, a.stack ? a.stack : "synthetic", (unsigned long long)in.st.frames,
           in.st.cols, in.st.rows, a.mag, a.nr, a.ns);
    for (k = 0; k <= a.reps; k++) {   /* run 0: programs built or loaded, not timed */
        double t0 = now_s(), t1;
        CHECK(hst_esrrf_run(&d, in.st.data, in.dtype, in.st.frames, in.st.rows, in.st.cols, out, NULL));
        t1 = now_s();
        CHECK(hst_esrrf_sweep(&ds, &sw, in.st.data, in.dtype, in.st.frames, in.st.rows, in.st.cols, NULL, &res));
        if (k == 0) continue;
        if (t1 - t0 < t_avg) t_avg = t1 - t0;
        if (res.seconds < t_sweep) t_sweep = res.seconds;
        if (res.pass_seconds < t_pass) t_pass = res.pass_seconds;
        if (res.score_seconds < t_scores) t_scores = res.score_seconds;
        if (res.seconds - res.pass_seconds - res.score_seconds < t_other) t_other = res.seconds - res.pass_seconds - res.score_seconds;
    }
    printf("AVG run        %9.3f s   (radius 1.5, sensitivity 1)\n", t_avg);
    printf("sweep          %9.3f s   (pass %.3f s, scores %.3f s, set-up %.3f s: best of each)\n", t_sweep, t_pass,
           t_scores, t_other);
    printf("sweep / AVG    %9.2f     (pass / AVG %.2f)\n", t_sweep / t_avg, t_pass / t_avg);
    printf("best pair      radius %g, sensitivity %g: QnR %.4f\n", (double)a.radii[res.best_radius],
           (double)a.sens[res.best_sensitivity], res.qnr[res.best_sensitivity][res.best_radius]);
    if (!hst_backend_is_host(be)) stages(a.device, ds, &sw, &in);
    free(out[0]);
    free(in.synthetic);
    if (a.stack) io_stack_free(&in.st);
    CHECK(hst_backend_destroy(be));
    return 0;
}
