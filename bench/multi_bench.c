/* multi_bench.c — how much a second device speeds up a compute-bound stream (stream.h).

       multi_bench [--devices S1,S2,...] [--slices N] [--side W] [--iters K] [--reps R]

   The chain: one stage, y = f^K(x) per element, f(x) = x * 0.9999 + 1e-4 * (x * x - 0.25): K
   dependent steps of 5 flops (two multiply-adds and a multiply) per element (default K 16384),
   so compute dominates the copies (8 bytes of traffic per element against 5K flops). N slices (default 1024) of W x W
   f32 (default 512), with the input and output in pinned caller memory (hst_pinned_create on
   the first device: no staging copies). Devices: the selectors given, else every GPU found.

   Reported from one run, each figure the best of R repetitions (default 3) after two warm-up
   runs (the first splits the slices evenly, later runs in proportion to the speeds measured in
   the run before: stream.h's split):
     one device       the stream on the first device alone
     all devices      the same stream over every device; the slice split it settled on
     speedup          one device / all devices (the goal for two GPUs: >= 1.8x)
   The outputs of the two configurations are compared bit for bit (every device runs the same
   kernel binary code path; a GPU and a CPU device may round differently: then the maximum
   difference is printed instead).

   Build: make bench-build, or
     cc -std=c99 -O2 -I. bench/multi_bench.c -o multi_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#include "stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TFLOP(n, k) (5e-12 * (double)(n) * (double)(k))   /* 5 flops per step */

static const char *burn_src =
    "__kernel void burn(__global const float *x, __global float *y, uint items, uint iters,\n"
    "                   ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  size_t i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i >= items || z >= end) return;\n"
    "  float v = x[z * items + i];\n"
    "  for (uint k = 0; k < iters; ++k) v = v * 0.9999f + 1e-4f * (v * v - 0.25f);\n"
    "  y[z * items + i] = v;\n"
    "}\n";

/* The host twin (required by stream.h; used only if a host device is named). */
static hst_result burn_host(void *const *a, const void *const *s, const hst_stream_block *b,
                            void *user)
{
    uint32_t items, iters, k;
    uint64_t z;
    size_t i;
    (void)user;
    memcpy(&items, s[0], 4);
    memcpy(&iters, s[1], 4);
    for (z = b->begin; z < b->end; z++)
        for (i = 0; i < items; i++) {
            float v = ((const float *)a[0])[z * items + i];
            for (k = 0; k < iters; k++) v = v * 0.9999f + 1e-4f * (v * v - 0.25f);
            ((float *)a[1])[z * items + i] = v;
        }
    return HST_SUCCESS;
}

typedef struct opts {
    const char *devices;
    unsigned long slices, side, iters, reps;
} opts;

static int parse(int argc, char **argv, opts *o)
{
    int i;
    o->devices = NULL; o->slices = 1024; o->side = 512; o->iters = 16384; o->reps = 3;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long *dst = NULL;
        char *end;
        if (!strcmp(a, "--devices") && i + 1 < argc) { o->devices = argv[++i]; continue; }
        if (!strcmp(a, "--slices")) dst = &o->slices;
        else if (!strcmp(a, "--side")) dst = &o->side;
        else if (!strcmp(a, "--iters")) dst = &o->iters;
        else if (!strcmp(a, "--reps")) dst = &o->reps;
        if (!dst || i + 1 >= argc) {
            fprintf(stderr, "usage: multi_bench [--devices S1,S2,...] [--slices N] [--side W] "
                            "[--iters K] [--reps R]\n");
            return 0;
        }
        *dst = strtoul(argv[++i], &end, 10);
        if (*end || !*dst || *dst > 1000000000UL) {
            fprintf(stderr, "multi_bench: %s needs a positive integer\n", a);
            return 0;
        }
    }
    return 1;
}

/* Opens the backends into be[*nb]: the selectors in the comma-separated list, else every GPU.
   Returns 0 when one does not open (*nb: those opened before it). */
static int open_backends(const char *list, hst_backend **be, unsigned *nb)
{
    hst_device_info info[HST_STREAM_MAX_BACKENDS * 4];
    hst_backend_desc d;
    size_t n = 0, i;
    char sel[64];
    memset(&d, 0, sizeof d);
    *nb = 0;
    if (list) {
        while (*list && *nb < HST_STREAM_MAX_BACKENDS) {
            size_t len = strcspn(list, ",");
            if (len >= sizeof sel) len = sizeof sel - 1;
            memcpy(sel, list, len); sel[len] = '\0';
            d.device = sel;
            if (hst_backend_create(&d, &be[*nb]) != HST_SUCCESS) return 0;
            (*nb)++;
            list += len + (list[len] == ',');
        }
        return 1;
    }
    if (hst_devices(info, sizeof info / sizeof info[0], &n) != HST_SUCCESS) return 0;
    for (i = 0; i < n && *nb < HST_STREAM_MAX_BACKENDS; i++) {
        if (info[i].type != HST_DEVICE_GPU) continue;
        d.device = info[i].selector;
        if (hst_backend_create(&d, &be[*nb]) != HST_SUCCESS) return 0;
        (*nb)++;
    }
    return 1;
}

/* Builds the stream over the first nb backends; runs it 2 + reps times; best seconds. */
static double run_config(hst_backend **be, unsigned nb, const opts *o, hst_buffer *in,
                         hst_buffer *out, hst_stream_report *best)
{
    uint32_t items = (uint32_t)(o->side * o->side), iters = (uint32_t)o->iters;
    static const int i0[1] = {0}, o1[1] = {1};
    hst_stream_array arr[2];
    hst_stream_stage st;
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    double t = -1.0;
    unsigned r;
    memset(arr, 0, sizeof arr);
    memset(&st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    arr[0].kind = HST_STREAM_INPUT;  arr[0].pinned = in;  arr[0].slice_bytes = items * 4u;
    arr[1].kind = HST_STREAM_OUTPUT; arr[1].pinned = out; arr[1].slice_bytes = items * 4u;
    st.name = "burn"; st.sources = &burn_src; st.num_sources = 1; st.kernel = "burn";
    st.host = burn_host; st.items_per_slice = items;
    st.num_inputs = 1; st.inputs = i0; st.num_outputs = 1; st.outputs = o1;
    st.num_scalars = 2;
    st.scalars[0] = &items; st.scalar_bytes[0] = 4;
    st.scalars[1] = &iters; st.scalar_bytes[1] = 4;
    d.backends = be; d.num_backends = nb; d.num_slices = o->slices;
    d.arrays = arr; d.num_arrays = 2; d.stages = &st; d.num_stages = 1;
    d.block_slices = o->slices / 16 ? o->slices / 16 : 1;   /* >= 16 blocks in all */
    if (hst_stream_create(&d, &s) != HST_SUCCESS) return -1.0;
    for (r = 0; r < 2 + o->reps; r++) {
        if (hst_stream_run(s, &rep) != HST_SUCCESS) { t = -1.0; break; }
        if (r >= 2 && (t < 0 || rep.seconds < t)) { t = rep.seconds; *best = rep; }
    }
    hst_stream_destroy(s);
    return t;
}

int main(int argc, char **argv)
{
    opts o;
    hst_backend *be[HST_STREAM_MAX_BACKENDS];
    hst_buffer *in = NULL, *out1 = NULL, *outn = NULL;
    hst_stream_report r1, rn;
    unsigned nb = 0, i;
    size_t bytes, k, n;
    double t1, tn, maxdiff = 0.0;
    int rc = 1;
    if (!parse(argc, argv, &o)) return 2;
    if (o.side > 65535 || o.slices * o.side * o.side > ((size_t)-1) / 8) {
        fprintf(stderr, "multi_bench: the volume is too large\n");
        return 2;
    }
    if (!open_backends(o.devices, be, &nb)) {
        fprintf(stderr, "multi_bench: a device did not open\n");
        goto done;
    }
    if (nb == 0) {   /* `make bench` on a machine without GPUs */
        printf("multi_bench: no GPU found; skipped (name devices with --devices)\n");
        return 0;
    }
    n = (size_t)o.slices * o.side * o.side;
    bytes = n * 4;
    if (hst_pinned_create(be[0], bytes, &in) != HST_SUCCESS ||
        hst_pinned_create(be[0], bytes, &out1) != HST_SUCCESS ||
        hst_pinned_create(be[0], bytes, &outn) != HST_SUCCESS) goto done;
    for (k = 0; k < n; k++)
        ((float *)hst_buffer_host_ptr(in))[k] = (float)((k * 2654435761u) % 1000u) / 2000.0f;
    printf("devices:");
    for (i = 0; i < nb; i++) printf(" [%s]", hst_backend_device(be[i])->name);
    printf("\nvolume: %lu slices of %lu x %lu f32 (%.2f GiB in, the same out), %lu dependent "
           "steps per element (%.1f Tflop), blocks of %lu slices\n",
           o.slices, o.side, o.side, bytes / 1073741824.0, o.iters, TFLOP(n, o.iters),
           o.slices / 16 ? o.slices / 16 : 1);
    t1 = run_config(be, 1, &o, in, out1, &r1);
    tn = nb > 1 ? run_config(be, nb, &o, in, outn, &rn) : -1.0;
    if (t1 < 0 || (nb > 1 && tn < 0)) { fprintf(stderr, "multi_bench: a run failed\n"); goto done; }
    printf("one device:  %.4f s (%.1f Tflop/s)\n", t1, TFLOP(n, o.iters) / t1);
    if (nb > 1) {
        const float *a = (const float *)hst_buffer_host_ptr(out1);
        const float *b = (const float *)hst_buffer_host_ptr(outn);
        printf("%u devices:  %.4f s (%.1f Tflop/s); split:", nb, tn,
               TFLOP(n, o.iters) / tn);
        for (i = 0; i < nb; i++)
            printf(" [%llu, %llu) %.4f s", (unsigned long long)rn.range_begin[i],
                   (unsigned long long)rn.range_end[i], rn.device_seconds[i]);
        for (k = 0; k < n; k++) {
            double dlt = fabs((double)a[k] - (double)b[k]);
            if (!(dlt <= maxdiff)) maxdiff = dlt;   /* a NaN difference counts too */
        }
        printf("\nspeedup: %.3fx with %u devices (%.3f of linear); outputs %s (max |diff| %g)\n",
               t1 / tn, nb, t1 / tn / nb, maxdiff == 0.0 ? "bit-identical" : "differ", maxdiff);
    }
    rc = 0;
done:
    hst_buffer_destroy(in);
    hst_buffer_destroy(out1);
    hst_buffer_destroy(outn);
    for (i = 0; i < nb; i++)   /* a refusal (a holder left) is logged naming it */
        if (hst_backend_destroy(be[i]) != HST_SUCCESS) rc = 1;
    return rc;
}
