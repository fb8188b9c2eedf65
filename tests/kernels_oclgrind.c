/* tests/kernels_oclgrind.c — every declared kernel under Oclgrind (`make test-kernels`): the
   families' own lists (backend.h's "Declared kernels": kernels.h's two vocabulary programs per
   dtype, kernels_stream.h, kernels_esrrf.h, kernels_halo.h, kernels_quality.h) say which
   kernels there are, and each must be launched here at least once
   (a kernel declared later without a launch here fails; so does a launch of a kernel no family
   declares). The launches: the vocabulary for every dtype (casts from every dtype, scale, axpy,
   math, random, every reduction; the second program's binary, where,
   ramps, complex parts, argwhere, gathers and axis operations), the stream kernels (grad3,
   div3, tv_dual, tv_primal, tv_gap as declared stages, slice_acc for f32 and c64), the fused
   halo pack and unpack (small slots, slots whose work-groups move several chunks or tiles, and
   the RUNS variant, aligned and not), the eSRRF kernels (roberts, magnify, rgc, rgc_fused,
   temporal, roll, the sweep's), each through the library's real paths (arrays, streams, halo plans)
   on small inputs, so every launch has the argument values the library really passes, and the
   quality kernels: blur, moments and error_map through quality.h's error map; those that read
   spectra (fourier_pad, crop_rescale, frc_partial, frc_rings, decorr_cols, decorr_highpass),
   the error map's DCT kernels (dct_pack, dct_unpack, dct_moments, gains) and partial_sums
   launched one by one through hst_launch_kernel with the arguments quality.h gives them, on
   made-up spectra (this program has no FFT: VkFFT's own kernels would run under Oclgrind too),
   each against its host twin. Not NUFFT's kernels: their spreading adds floats by a
   compare-and-swap loop whose first guess is a plain read of the cell, which Oclgrind reports
   as a race with other work-items' swaps (harmless: a stale guess only fails one swap); a guess
   of 0 instead makes the race go and costs 30-40% of a type 1 execute on an H200 (0.80 -> 1.05
   ms, 256^2 modes, 10^6 points), so the read stays and NUFFT is checked by its own tests.

   Run it as `oclgrind --check-api --data-races --uninitialized [--log FILE] prog`: Oclgrind is
   then the only OpenCL platform, and its reports (out-of-bounds accesses, races, uninitialised
   values, API errors) go to FILE; the Makefile counts them (zero = pass). `prog --self-test`
   runs one kernel with a defect of each kind instead (the Makefile requires findings there).
   This program checks, besides, that every call succeeds, the declared kernels as above, and
   that streamed, halo and quality results equal the host device's or the host twins'. Device:
   $HST_OCLGRIND_DEVICE, default "oclgrind". */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>

#ifndef CL_TARGET_OPENCL_VERSION
#  define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include "reliability/cl_hooks.h"
#include "array.h"
#include "stream.h"
#include "halo.h"
#include "esrrf.h"
#include "quality.h"
#include "kernels.h"
#include "reliability/workload.h"

static int failures;
#define CHECK(expr) do { hst_result r_ = (expr); if (r_ != HST_SUCCESS) { \
        fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #expr, hst_result_string(r_)); \
        failures++; } } while (0)
#define EXPECT(cond, ...) do { if (!(cond)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* ---- launched kernels, by name and by (name, build options) --------------------------------- */
#define MAX_SEEN 512
#define NAME_BYTES 256
static char seen_name[MAX_SEEN][NAME_BYTES], seen_variant[MAX_SEEN][NAME_BYTES];
static unsigned n_names, n_variants;
static unsigned long launches;

/* s added to list[0 .. *n) unless there; 0 when the list is full (a miscount, so a failure). */
static int remember(char (*list)[NAME_BYTES], unsigned *n, const char *s)
{
    unsigned i;
    for (i = 0; i < *n; i++) if (!strcmp(list[i], s)) return 1;
    if (*n == MAX_SEEN) return 0;
    snprintf(list[(*n)++], NAME_BYTES, "%s", s);
    return 1;
}
static int listed(char (*list)[NAME_BYTES], unsigned n, const char *s)
{
    unsigned i;
    for (i = 0; i < n; i++) if (!strcmp(list[i], s)) return 1;
    return 0;
}
static pthread_mutex_t launch_mu = PTHREAD_MUTEX_INITIALIZER;   /* launches come from two threads */
static int list_full;

static void on_launch_locked(cl_kernel k)
{
    char name[64] = "", opts[160] = "", variant[NAME_BYTES];
    cl_program prog = NULL;
    cl_device_id dev = NULL;
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    if (!strncmp(name, "tool_", 5)) return;   /* the copy and fill stand-ins below */
    launches++;
    clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL);
    clGetProgramInfo(prog, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof opts, opts, NULL);
    snprintf(variant, sizeof variant, "%s [%s]", name, opts);
    if (!remember(seen_name, &n_names, name) || !remember(seen_variant, &n_variants, variant))
        list_full = 1;
}

static void on_launch(cl_kernel k)
{
    pthread_mutex_lock(&launch_mu);
    on_launch_locked(k);
    pthread_mutex_unlock(&launch_mu);
}

/* ---- every declared kernel ------------------------------------------------------------------
   The kernels this program must launch are those the families declare (each family's one list:
   backend.h's "Declared kernels"): both vocabulary programs of every dtype, stream, eSRRF (with
   the sweep's), halo and quality (not NUFFT's: see the opening comment). A kernel declared in
   more than one row (the halo's per plan width, the vocabulary's per dtype) counts once, by
   name. Returns how many names went to out; 0 when out is too small. */
static unsigned declared_kernels(char (*out)[NAME_BYTES], unsigned *num_families)
{
    const hst_kernel_family *fam[2 * HST_DTYPE_END + 5];
    unsigned nf = 0, n = 0, f, k;
    int dt;
    for (dt = 1; dt < HST_DTYPE_END; dt++) {
        fam[nf++] = hst_kernels_vocab_family((hst_dtype)dt);
        fam[nf++] = hst_kernels_vocabx_family((hst_dtype)dt);
    }
    fam[nf++] = hst_kernels_stream_family();
    fam[nf++] = hst_kernels_esrrf_family();
    fam[nf++] = hst_kernels_halo_family();
    fam[nf++] = hst_kernels_quality_family();
    *num_families = nf;
    for (f = 0; f < nf; f++) {
        if (!fam[f]) return 0;
        for (k = 0; k < fam[f]->num_kernels; k++)
            if (!remember(out, &n, fam[f]->kernels[k].name)) return 0;
    }
    return n;
}

/* ---- working around Oclgrind 21.10's uninitialised-value shadow ----------------------------
   Its shadow of which global bytes hold defined values goes wrong in three cases, each shown by
   a few-line program: (1) a buffer whose first write is a kernel's (no host write before) reads
   back partly "uninitialised" although every byte was stored; (2) clEnqueueCopyBuffer at
   non-zero offsets scrambles the destination's shadow, inside and outside the copied range;
   (3) clEnqueueFillBuffer marks what it writes, and later kernel stores there, uninitialised.
   Left alone they give thousands of false findings. So here (through cl_hooks.h) every buffer
   starts from a host write of the canary byte 0xff (NaN in floats, -1 in integers), and the
   library's copies and fills run as the byte kernels below, whose loads and stores Oclgrind
   tracks exactly. Private and local memory keep their full checks; a read of global bytes
   nobody wrote yields canary values, which the comparisons with the host device below catch.
   The tool kernels are left out of the counts. */
static const char *tool_src =
    "__kernel void tool_copy(__global const uchar *s, ulong so, __global uchar *d, ulong dof,\n"
    "                        ulong n)\n"
    "{ ulong i = get_global_id(0); if (i < n) d[dof + i] = s[so + i]; }\n"
    "__kernel void tool_fill(__global uchar *d, ulong off, __global const uchar *pat, ulong ps,\n"
    "                        ulong n)\n"
    "{ ulong i = get_global_id(0); if (i < n) d[off + i] = pat[i % ps]; }\n";
/* The tool kernels of each context (esrrf.h on two backends uses two contexts, from two
   threads: one lock around setting the arguments and enqueueing). */
#define TOOL_CONTEXTS 4
typedef struct tool_set { cl_context ctx; cl_program prog; cl_kernel kcopy, kfill; } tool_set;
static tool_set tools[TOOL_CONTEXTS];
static pthread_mutex_t tool_mu = PTHREAD_MUTEX_INITIALIZER;

static cl_int tool_kernels(cl_command_queue q, tool_set **out)
{
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    tool_set *t;
    unsigned i;
    cl_int r = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
    if (r != CL_SUCCESS) return r;
    for (i = 0; i < TOOL_CONTEXTS && tools[i].prog; i++)
        if (tools[i].ctx == ctx) { *out = &tools[i]; return CL_SUCCESS; }
    if (i == TOOL_CONTEXTS) return CL_OUT_OF_RESOURCES;
    t = &tools[i];
    if ((r = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL)) != CL_SUCCESS) return r;
    t->prog = clCreateProgramWithSource(ctx, 1, &tool_src, NULL, &r);
    if (r != CL_SUCCESS) return r;
    if ((r = clBuildProgram(t->prog, 1, &dev, "", NULL, NULL)) != CL_SUCCESS) return r;
    t->kcopy = clCreateKernel(t->prog, "tool_copy", &r);
    if (r == CL_SUCCESS) t->kfill = clCreateKernel(t->prog, "tool_fill", &r);
    t->ctx = ctx;
    *out = t;
    return r;
}

static cl_int tool_launch(cl_command_queue q, cl_kernel k, size_t n, cl_uint nw, const cl_event *w,
                          cl_event *e)
{
    size_t global = (n + 63) / 64 * 64;
    return clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, nw, w, e);
}

static cl_int tool_copy_locked(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t sz,
                               cl_uint nw, const cl_event *w, cl_event *e)
{
    cl_ulong a = so, b = dof, n = sz;
    tool_set *t = NULL;
    cl_int r = tool_kernels(q, &t);
    if (r != CL_SUCCESS) return r;
    clSetKernelArg(t->kcopy, 0, sizeof s, &s);
    clSetKernelArg(t->kcopy, 1, sizeof a, &a);
    clSetKernelArg(t->kcopy, 2, sizeof d, &d);
    clSetKernelArg(t->kcopy, 3, sizeof b, &b);
    clSetKernelArg(t->kcopy, 4, sizeof n, &n);
    return tool_launch(q, t->kcopy, sz, nw, w, e);
}

static cl_int tool_copy(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t sz,
                        cl_uint nw, const cl_event *w, cl_event *e)
{
    cl_int r;
    pthread_mutex_lock(&tool_mu);
    r = tool_copy_locked(q, s, d, so, dof, sz, nw, w, e);
    pthread_mutex_unlock(&tool_mu);
    return r;
}

static cl_int tool_fill_locked(cl_command_queue q, cl_mem buf, const void *pat, size_t ps, size_t off,
                               size_t sz, cl_uint nw, const cl_event *w, cl_event *e)
{
    cl_ulong a = off, p = ps, n = sz;
    cl_mem pb;
    tool_set *t = NULL;
    cl_int r = tool_kernels(q, &t);
    if (r != CL_SUCCESS) return r;
    pb = clCreateBuffer(t->ctx, CL_MEM_READ_ONLY, ps, NULL, &r);
    if (r != CL_SUCCESS) return r;
    r = clEnqueueWriteBuffer(q, pb, CL_TRUE, 0, ps, pat, 0, NULL, NULL);
    clSetKernelArg(t->kfill, 0, sizeof buf, &buf);
    clSetKernelArg(t->kfill, 1, sizeof a, &a);
    clSetKernelArg(t->kfill, 2, sizeof pb, &pb);
    clSetKernelArg(t->kfill, 3, sizeof p, &p);
    clSetKernelArg(t->kfill, 4, sizeof n, &n);
    if (r == CL_SUCCESS) r = tool_launch(q, t->kfill, sz, nw, w, e);
    clReleaseMemObject(pb);   /* the queued launch keeps it alive */
    return r;
}

static cl_int tool_fill(cl_command_queue q, cl_mem buf, const void *pat, size_t ps, size_t off,
                        size_t sz, cl_uint nw, const cl_event *w, cl_event *e)
{
    cl_int r;
    pthread_mutex_lock(&tool_mu);
    r = tool_fill_locked(q, buf, pat, ps, off, sz, nw, w, e);
    pthread_mutex_unlock(&tool_mu);
    return r;
}

static void tool_release(void)
{
    unsigned i;
    for (i = 0; i < TOOL_CONTEXTS; i++) {
        if (tools[i].kcopy) clReleaseKernel(tools[i].kcopy);
        if (tools[i].kfill) clReleaseKernel(tools[i].kfill);
        if (tools[i].prog) clReleaseProgram(tools[i].prog);
    }
    memset(tools, 0, sizeof tools);
}

/* ---- self-test: a kernel with one defect of each kind the passes look for ----------------
   `kernels_oclgrind --self-test` runs it with the same interception as the real run; the
   Makefile requires findings from it in both passes, so a pass that has gone blind (a plugin
   missing, a log not written, the interception hiding stores) fails instead of reporting zero. */
static const char *selftest_src =
    "__kernel void tool_selftest(__global uint *out, uint n)\n"
    "{\n"
    "  __local uint tile[64];\n"
    "  uint x;\n"                                     /* never set: private, uninitialised */
    "  size_t g = get_global_id(0), l = get_local_id(0);\n"
    "  if (l == 0) tile[1] = 1u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (g < n) out[g] = x + tile[l];\n"            /* tile[l] unset for l != 1 */
    "  out[0] = (uint)g;\n"                           /* every work-item: a race */
    "  if (g == 0) out[n] = 1u;\n"                    /* one past the end */
    "}\n";

static int self_test(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k;
    cl_mem out;
    cl_uint n = 16;
    size_t global = 16, local = 16;
    cl_int r;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) return 2;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &r);
    q = clCreateCommandQueue(ctx, dev, 0, &r);
    prog = clCreateProgramWithSource(ctx, 1, &selftest_src, NULL, &r);
    if ((r = clBuildProgram(prog, 1, &dev, "", NULL, NULL)) != CL_SUCCESS) return 2;
    k = clCreateKernel(prog, "tool_selftest", &r);
    out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL, &r);
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof n, &n);
    r = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("self-test kernel launched (%d)\n", (int)r);
    return r == CL_SUCCESS ? 0 : 2;
}

/* ---- the second vocabulary program ------------------------------------------------------------
   Its kernels through array.h's calls on dtype dt (PyEPRI's vocabulary): binary (every op the
   dtype has), where, ramp (arange, linspace), complex parts, argwhere (nonzero_count, then
   argwhere). a and b: 1-D arrays of n elements of dt (any values); cond: u8, n elements. */
static void vocabx_elementwise(hst_backend *be, hst_dtype dt, hst_array *a, hst_array *b,
                               const hst_array *cond, size_t n)
{
    hst_array *w = NULL;
    size_t count = 0;
    int op;
    for (op = 0; op < HST_BINARY_COUNT; op++)
        if (hst_kernels_binary_supported(dt, (hst_binary_op)op))
            CHECK(hst_array_binary(b, a, b, (hst_binary_op)op));
    CHECK(hst_array_create(be, dt, 1, &n, &w));
    if (w) CHECK(hst_array_where(w, cond, a, b));
    hst_array_destroy(w);
    w = NULL;
    if (!hst_dtype_is_complex(dt)) {
        CHECK(hst_array_arange(be, dt, 0.0, 30.0, 1.5, &w));
        hst_array_destroy(w);
        w = NULL;
        CHECK(hst_array_linspace(be, dt, 2.0, 40.0, 17, 1, &w));
        hst_array_destroy(w);
        w = NULL;
    } else {
        for (op = 0; op < HST_PART_COUNT; op++) {
            hst_dtype pt = op == HST_PART_CONJ ? dt : dt == HST_C64 ? HST_F32 : HST_F64;
            CHECK(hst_array_create(be, pt, 1, &n, &w));
            if (w) CHECK(hst_array_complex_part(w, a, (hst_complex_part)op));
            hst_array_destroy(w);
            w = NULL;
        }
    }
    CHECK(hst_array_argwhere(a, &w, &count));
    EXPECT(count > 0, "argwhere (%s): no nonzero element among %zu", hst_dtype_name(dt), n);
    hst_array_destroy(w);
}

/* Gathers (transpose, tile) and every axis operation dt has along both axes of a, reshaped to
   rows x cols (rows cols = a's elements). */
static void vocabx_axes(hst_backend *be, hst_dtype dt, hst_array *a, size_t rows, size_t cols)
{
    size_t shape[2], reps[2] = {2, 1};
    hst_array *w = NULL;
    unsigned ax;
    int op;
    shape[0] = rows; shape[1] = cols;
    CHECK(hst_array_reshape(a, 2, shape));
    shape[0] = cols; shape[1] = rows;
    CHECK(hst_array_create(be, dt, 2, shape, &w));
    if (w) CHECK(hst_array_transpose(w, a, NULL));
    hst_array_destroy(w);
    w = NULL;
    shape[0] = 2 * rows; shape[1] = cols;
    CHECK(hst_array_create(be, dt, 2, shape, &w));
    if (w) CHECK(hst_array_tile(w, a, reps, 2));
    hst_array_destroy(w);
    for (ax = 0; ax < 2; ax++)
        for (op = 0; op < HST_AXIS_COUNT; op++) {
            int arg = op == HST_AXIS_ARGMAX || op == HST_AXIS_ARGMIN;
            w = NULL;
            shape[0] = ax ? rows : cols;
            if (!hst_kernels_axis_supported(dt, (hst_axis_op)op)) continue;
            if (op == HST_AXIS_CUMSUM) CHECK(hst_array_create(be, dt, 2, hst_array_shape(a), &w));
            else CHECK(hst_array_create(be, arg ? HST_I32 : dt, 1, shape, &w));
            if (w) CHECK(hst_array_reduce_axis(w, a, ax, (hst_axis_op)op));
            hst_array_destroy(w);
        }
}

/* ---- the vocabulary, every dtype ------------------------------------------------------------ */
static void vocab(hst_backend *be, int fp64)
{
    const hst_dtype all[9] = {HST_U8, HST_I32, HST_F32, HST_F64, HST_C64, HST_I8, HST_I16, HST_I64, HST_C128};
    hst_array *src[9] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    size_t n = 300, i, j;
    hst_scalar s;
    for (i = 0; i < 9; i++) {
        if (hst_dtype_needs_fp64(all[i]) && !fp64) continue;
        /* written from the host: Oclgrind 21.10 marks memory filled by clEnqueueFillBuffer with
           a pattern of more than one byte as uninitialised (fill is exercised below, on arrays
           that are overwritten before they are read) */
        unsigned char host[300 * 16];
        size_t b, es = hst_dtype_size(all[i]);
        for (b = 0; b < n * es; b++) host[b] = (unsigned char)(b % es == es - 1 ? 0x3f : b * 13 + 1);
        CHECK(hst_array_create(be, all[i], 1, &n, &src[i]));
        if (src[i]) CHECK(hst_array_write(src[i], host, n * es));
    }
    for (i = 0; i < 9; i++) {
        hst_dtype dt = all[i];
        hst_array *a = NULL, *b = NULL;
        if (!src[i]) continue;
        CHECK(hst_array_create(be, dt, 1, &n, &a));
        CHECK(hst_array_create(be, dt, 1, &n, &b));
        if (!a || !b) { hst_array_destroy(a); hst_array_destroy(b); continue; }
        CHECK(hst_array_zeros(a));
        CHECK(hst_array_ones(b));
        CHECK(hst_array_fill(a, hst_real(1.5)));
        CHECK(hst_array_copy(b, src[i]));
        for (j = 0; j < 9; j++) if (src[j]) CHECK(hst_array_cast(a, src[j]));
        if (dt == HST_I32 || dt == HST_I64) CHECK(hst_array_randperm(a, 7));
        if (hst_kernels_arith_supported(dt)) {
            CHECK(hst_array_random(a, HST_RANDOM_UNIFORM, 11, 0));
            CHECK(hst_array_random(b, HST_RANDOM_NORMAL, 12, 5));
            CHECK(hst_array_scale(a, hst_complex(0.5, hst_dtype_is_complex(dt) ? 0.25 : 0.0)));
            CHECK(hst_array_axpy(b, hst_complex(2.0, hst_dtype_is_complex(dt) ? -1.0 : 0.0), a));
        }
        if (hst_kernels_math_supported(dt, HST_MATH_ABS)) {
            int op;
            for (op = 0; op < HST_MATH_COUNT; op++) CHECK(hst_array_math(b, a, (hst_math_op)op, 1.5));
        }
        CHECK(hst_array_sum(a, &s));
        if (hst_kernels_reduce_supported(dt, HST_REDUCE_DOT)) CHECK(hst_array_dot(a, b, &s));
        if (hst_kernels_reduce_supported(dt, HST_REDUCE_SQNORM)) CHECK(hst_array_sqnorm(a, &s));
        if (hst_kernels_reduce_supported(dt, HST_REDUCE_MIN)) {
            CHECK(hst_array_min(a, &s));
            CHECK(hst_array_max(a, &s));
        }
        vocabx_elementwise(be, dt, a, b, src[0], n);
        vocabx_axes(be, dt, a, 15, n / 15);
        hst_array_destroy(a);
        hst_array_destroy(b);
    }
    for (i = 0; i < 9; i++) hst_array_destroy(src[i]);
}

/* ---- stream kernels ------------------------------------------------------------------------- */
typedef struct tvs { uint32_t H, W; float sigma, tau, lambda; } tvs;

/* A declared stage of the stream family (kernels_stream.h's HST_STREAM_KERNELS): the kernel on
   OpenCL devices, its declared twin on the host device. Scalars: H, W, then the kernel's own
   (dual: sigma; primal: tau, lambda; gap: lambda). */
static void tv_stage(hst_stream_stage *st, hst_backend *be, unsigned id, const tvs *t, size_t items)
{
    memset(st, 0, sizeof *st);
    st->family = hst_kernels_stream_family();
    st->family_kernel = id;
    st->name = st->family->kernels[id].name;
    st->options = wl_stream_options(be);
    st->items_per_slice = items;
    st->scalars[0] = &t->H; st->scalar_bytes[0] = 4;
    st->scalars[1] = &t->W; st->scalar_bytes[1] = 4;
    st->scalars[2] = id == HST_KSTREAM_TV_DUAL ? &t->sigma : id == HST_KSTREAM_TV_GAP ? &t->lambda : &t->tau;
    st->scalar_bytes[2] = 4;
    st->scalars[3] = &t->lambda; st->scalar_bytes[3] = 4;
    st->num_scalars = id == HST_KSTREAM_TV_PRIMAL ? 4 : 3;
}

/* One TV iteration (dual, primal) and the gap, as three streams, block 2; returns the gap. */
static double tv(hst_backend *be, float *x, float *xbar, float *p, const float *f, float *gap,
                 uint32_t N, uint32_t H, uint32_t W)
{
    tvs t;
    hst_stream_array arr[5];
    hst_stream_stage st;
    hst_stream_acc acc[2];
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    static const int i0[1] = {0}, o1[1] = {1}, i01[2] = {0, 1}, o23[2] = {2, 3};
    static const int i012[3] = {0, 1, 2}, o3[1] = {3};
    size_t slice = (size_t)H * W;
    double g = 0.0;
    t.H = H; t.W = W; t.sigma = t.tau = 0.288675f; t.lambda = 2.0f;
    memset(arr, 0, sizeof arr);
    memset(&d, 0, sizeof d);
    memset(acc, 0, sizeof acc);
    d.backends = &be; d.num_backends = 1; d.num_slices = N; d.block_slices = 2;
    d.arrays = arr; d.stages = &st; d.num_stages = 1;
    /* dual: xbar in; p in/out */
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = xbar; arr[0].slice_bytes = slice * 4;
    arr[1].kind = HST_STREAM_INOUT; arr[1].host = p; arr[1].slice_bytes = 3 * slice * 4;
    tv_stage(&st, be, HST_KSTREAM_TV_DUAL, &t, slice);
    st.num_inputs = 1; st.inputs = i0; st.num_outputs = 1; st.outputs = o1; st.halo_hi = 1;
    d.num_arrays = 2;
    CHECK(hst_stream_create(&d, &s));
    if (s) CHECK(hst_stream_run(s, NULL));
    hst_stream_destroy(s); s = NULL;
    /* primal: p, f in; x in/out, xbar out */
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = p; arr[0].slice_bytes = 3 * slice * 4;
    arr[1].kind = HST_STREAM_INPUT; arr[1].host = (void *)(uintptr_t)f; arr[1].slice_bytes = slice * 4;
    arr[2].kind = HST_STREAM_INOUT; arr[2].host = x; arr[2].slice_bytes = slice * 4;
    arr[3].kind = HST_STREAM_OUTPUT; arr[3].host = xbar; arr[3].slice_bytes = slice * 4;
    tv_stage(&st, be, HST_KSTREAM_TV_PRIMAL, &t, slice);
    st.num_inputs = 2; st.inputs = i01; st.num_outputs = 2; st.outputs = o23; st.halo_lo = 1;
    d.num_arrays = 4;
    CHECK(hst_stream_create(&d, &s));
    if (s) CHECK(hst_stream_run(s, NULL));
    hst_stream_destroy(s); s = NULL;
    /* gap: x, p, f in; gap out; accumulators: SUM f32 of gap, SUM c64 of p, DIFF2 (gap, f) */
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = x; arr[0].slice_bytes = slice * 4;
    arr[1].kind = HST_STREAM_INPUT; arr[1].host = p; arr[1].slice_bytes = 3 * slice * 4;
    arr[2].kind = HST_STREAM_INPUT; arr[2].host = (void *)(uintptr_t)f; arr[2].slice_bytes = slice * 4;
    arr[3].kind = HST_STREAM_OUTPUT; arr[3].host = gap; arr[3].slice_bytes = slice * 4;
    tv_stage(&st, be, HST_KSTREAM_TV_GAP, &t, slice);
    st.num_inputs = 3; st.inputs = i012; st.num_outputs = 1; st.outputs = o3;
    st.halo_lo = 1; st.halo_hi = 1;
    acc[0].kind = HST_STREAM_SUM; acc[0].dtype = HST_F32; acc[0].a = 3;
    acc[1].kind = HST_STREAM_SQSUM; acc[1].dtype = HST_C64; acc[1].a = 1;
    d.accumulators = acc; d.num_accumulators = 2;
    d.num_arrays = 4;
    CHECK(hst_stream_create(&d, &s));
    if (s) { CHECK(hst_stream_run(s, &rep)); g = rep.acc[0] + rep.acc[1]; }
    hst_stream_destroy(s);
    return g;
}

static int close_f(const float *a, const float *b, size_t n, double rel)
{
    size_t i;
    double m = 0.0;
    for (i = 0; i < n; i++) m = fabs((double)b[i]) > m ? fabs((double)b[i]) : m;
    for (i = 0; i < n; i++)
        if (!(fabs((double)a[i] - (double)b[i]) <= rel * (m > 0 ? m : 1.0))) return 0;
    return 1;
}

/* ---- quality kernels ------------------------------------------------------------------------ */
/* quality.h's error map at magnification 1 with a fixed sigma (one fit: the two blur axes, the
   moments, the map; a blur radius of 3 on 5 columns takes the reflecting path), == host. */
static void quality_error_map(hst_backend *be, hst_backend *host)
{
    enum { QH = 6, QW = 5 };
    float ref[QH * QW], sr[QH * QW], map[2][QH * QW];
    hst_error_map_desc d;
    hst_error_map_result res[2];
    int k;
    wl_fill_f32(ref, QH * QW, 5);
    wl_fill_f32(sr, QH * QW, 6);
    memset(&d, 0, sizeof d);
    d.fixed_sigma = 0.8;
    for (k = 0; k < 2; k++)
        CHECK(hst_error_map(k ? host : be, ref, QH, QW, sr, QH, QW, &d, map[k], &res[k]));
    EXPECT(close_f(map[0], map[1], QH * QW, 1e-5) &&
           fabs(res[0].rse - res[1].rse) <= 1e-5 * fabs(res[1].rse) &&
           fabs(res[0].rsp - res[1].rsp) <= 1e-5, "quality error map differs from the host");
}

/* A kernel argument: a buffer of `bytes` at p (QB: written before the launch and read back into
   p after it) or a bound argument (QI int, QU uint, QL ulong, QF float, QV a by-value vector or
   struct, QLOCAL bytes of local memory: hst_launch_kernel checks each against the kernel's
   declared signature). */
typedef struct qarg { void *p; size_t bytes; hst_karg k; } qarg;
#define QB(x) {(void *)(x), sizeof(x), hst_karg_buffer(NULL)}
#define QI(x) {NULL, 0, hst_karg_int(x)}
#define QU(x) {NULL, 0, hst_karg_uint(x)}
#define QL(x) {NULL, 0, hst_karg_ulong(x)}
#define QF(x) {NULL, 0, hst_karg_float(x)}
#define QV(x) {NULL, 0, hst_karg_value(sizeof(x), (x))}   /* x an array: int4, int16 */
#define QLOCAL(bytes) {NULL, 0, hst_karg_local(bytes)}
#define QMAX 16

/* One launch of kernel `id` of family fam, its program built with `options`, over range
   (through hst_launch_kernel: the kernel on an OpenCL device, its twin on the host device). */
static void family_launch(hst_backend *be, const hst_kernel_family *fam, const char *options,
                          unsigned id, const hst_range *range, size_t nargs, qarg *a)
{
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *b[QMAX] = {NULL};
    hst_karg k[QMAX];
    hst_launch_desc d;
    size_t i;
    int ok = nargs <= QMAX;
    for (i = 0; ok && i < nargs; i++) {
        k[i] = a[i].k;
        if (a[i].k.kind != HST_KARG_GLOBAL) continue;
        CHECK(hst_buffer_create(be, a[i].bytes, 0, &b[i]));
        if (b[i]) CHECK(hst_write(q, b[i], 0, a[i].p, a[i].bytes, 1, 0, NULL, NULL));
        k[i] = hst_karg_buffer(b[i]);
        ok = b[i] != NULL;
    }
    memset(&d, 0, sizeof d);
    d.family = fam;
    d.options = options;
    d.kernel = id;
    d.range = *range;
    d.args = k;
    d.num_args = nargs;
    EXPECT(ok, "%s: its arguments not made", fam->kernels[id].name);
    if (ok) CHECK(hst_launch_kernel(be, &d, NULL));
    for (i = 0; i < nargs && i < QMAX; i++) {
        if (!b[i]) continue;
        CHECK(hst_read(q, b[i], 0, a[i].p, a[i].bytes, 1, 0, NULL, NULL));
        hst_buffer_destroy(b[i]);
    }
}

/* The quality family's kernel `id` (kernels_quality.h's HST_KQUALITY_*) over dims global sizes
   as quality.h gives them. */
static void quality_launch(hst_backend *be, const char *options, unsigned id, unsigned dims,
                           const size_t *global, size_t nargs, qarg *a)
{
    hst_range r;
    unsigned i;
    memset(&r, 0, sizeof r);
    r.dims = dims;
    for (i = 0; i < dims; i++) r.global[i] = global[i];
    family_launch(be, hst_kernels_quality_family(), options, id, &r, nargs, a);
}

/* Outputs start as NaN, so an element a kernel never writes fails the comparisons. */
static void nan_fill(float *x, size_t n) { memset(x, 0xff, n * sizeof *x); }

/* The fused eSRRF kernel built with `geometry` (and 8 indices an item), which esrrf.h gives
   Oclgrind's device no reason to use: 2 frames of 30 x 5 at mag 2, work-groups of 64 (group 0's
   512 indices: 51 rows and part of a strip of 10 columns; group 1's the rest), == the twin. As
   for CPU devices (HST_K_ESRRF_CPU_OPTIONS: 16 same-phase pixels' sample loop and intensity one
   vector, over the tile's copy by columns, the tile made separably): a block of 16 pixels' 32
   rows with lanes in the margin, the block ending at the last whole row, a part row, group 1's
   pixels one by one. As for NVIDIA GPUs (hst_k_esrrf_nv_options' 4 pixels an item and strips of
   64, the intensity from hst_e_itab's table) with a smaller tile and table; and with 8 pixels,
   the magnification and radius constants and tile rows of 24 positions, wider than the strip's
   (HST_E_NLS: the padding must stay unread); and with items of 2 pixels along a row
   (HST_E_JN: hst_e_fused_rowx; a row's 5 pixels of a phase make 2 items and 1 pixel alone,
   and phase 0's second item lies within the margin, so it takes the unrolled loop). Each within 31.25
   KiB of local memory with its (w, wd) table: Oclgrind's device has OpenCL's 32 KiB (mag 2's
   table has 196 entries). */
static void esrrf_fused_build(hst_backend *be, hst_backend *host, const char *geometry, const char *what)
{
    enum { FR = 30, FC = 5, FM = 2, FN = 2, FK = 8, FMP = FR * FC * FM * FM };
    static float in[FN * FR * FC], out[2][FN * FMP];
    char options[256];
    hst_range r;
    int k;
    wl_fill_f32(in, sizeof in / sizeof in[0], 5);
    k = snprintf(options, sizeof options, "%s -DHST_E_K=%d -DHST_E_WTAB=256", geometry, FK);
    EXPECT(k > 0 && (size_t)k < sizeof options, "eSRRF rgc_fused %s: its options cut", what);
    memset(&r, 0, sizeof r);
    r.dims = 2;
    r.global[0] = ((FMP + FK - 1) / FK + 63) / 64 * 64;   /* (2 groups a frame) */
    r.global[1] = FN;
    r.local[0] = 64;
    r.local[1] = 1;
    for (k = 0; k < 2; k++) {   /* the kernel on the device, its twin on the host */
        qarg a[15] = {QB(in), QB(out[k]), QU(FR), QU(FC), QU(FM), QF(1.5f), QF(1.0f), QI(1), QU(0),
                      QU(FR * FM), QL(0), QL(0), QL(FN), QL(FN), QI(3)};
        nan_fill(out[k], FN * FMP);
        family_launch(k ? host : be, hst_kernels_esrrf_family(), options, HST_KESRRF_RGC_FUSED, &r, 15, a);
    }
    EXPECT(!memcmp(out[0], out[1], sizeof out[0]), "eSRRF rgc_fused built %s differs from the host twin", what);
}

/* The batches' second-level sums (quality.h's error-map searches): 2 rows of 100 partials, 104
   floats apart, in 3 strided sums each (34 or 33 terms: a block of 32 loads, then the tail; the
   last floats of a row not read): == the twin. */
static void quality_partial_sums(hst_backend *be)
{
    enum { G = 100, H = 3, STRIDE = 104, ROWS = 2 };
    static float part[ROWS * STRIDE], out[2][ROWS * H];
    cl_uint g = G, h = H;
    cl_ulong n = ROWS * H, stride = STRIDE;
    size_t global = ROWS * H;
    qarg a[6] = {QB(part), QB(out[0]), QU(g), QU(h), QL(n), QL(stride)};
    wl_fill_f32(part, sizeof part / sizeof part[0], 9);
    nan_fill(out[0], ROWS * H);
    quality_launch(be, "", HST_KQUALITY_PARTIAL_SUMS, 1, &global, 6, a);
    hst_k_quality_partial_sums_host(part, out[1], G, H, STRIDE, 0, ROWS);
    EXPECT(!memcmp(out[0], out[1], sizeof out[0]), "quality partial_sums differs from the host twin");
}

/* The drift estimation's kernels (quality.h's hst_drift_*) on made-up data: block sums of u16
   frames, the cross-power spectrum against a reference and against the previous image, each
   row's maximum within the window and the peak's patch of a 2-image map (wrapping at the
   edges), each equal to its twin, run through the same launcher on the host device. */
static void quality_drift(hst_backend *be, hst_backend *host)
{
    enum { R = 12, C = 10, NPIX = R * C, CNT = 2, NOUT = 2, N = R * (C / 2 + 1), MY = 3, MX = 4,
           W = 2 * MY + 1, P = 2 + 49 };
    static uint16_t raw[CNT * NOUT * NPIX];
    static float sum[2][NOUT * NPIX], spec[2 * CNT * N], prev[2 * N], cross[2][2 * CNT * N];
    static float map[CNT * R * C], val[2][CNT * W], patch[2][CNT * P];
    static int at[2][CNT * W];
    const cl_ulong npix = NPIX, zero = 0, n = N;
    const cl_uint cnt = CNT, nout = NOUT;
    unsigned k;
    for (k = 0; k < sizeof raw / sizeof raw[0]; k++) raw[k] = (uint16_t)((k * 2654435761u) >> 20);
    wl_fill_f32(spec, sizeof spec / sizeof spec[0], 3);
    wl_fill_f32(prev, sizeof prev / sizeof prev[0], 4);
    wl_fill_f32(map, sizeof map / sizeof map[0], 5);
    for (k = 0; k < 2; k++) {
        hst_backend *b = k ? host : be;
        const size_t gs[2] = {NPIX, NOUT}, gc[2] = {N, CNT}, gr[2] = {W, CNT}, gp = CNT;
        qarg as[9] = {QB(raw), QB(sum[k]), QL(npix), QL(zero), QL(zero), QU(cnt), QU(nout), QI(1), QI(2)};
        qarg ac[6] = {QB(spec), QB(prev), QB(cross[k]), QL(n), QU(cnt), QI(1)};
        qarg ar[8] = {QB(map), QB(val[k]), QB(at[k]), QI(R), QI(C), QI(MY), QI(MX), QU(cnt)};
        qarg ap[9] = {QB(map), QB(val[k]), QB(at[k]), QB(patch[k]), QI(R), QI(C), QI(MY), QI(MX), QU(cnt)};
        nan_fill(sum[k], NOUT * NPIX);
        nan_fill(cross[k], 2 * CNT * N);
        nan_fill(patch[k], CNT * P);
        quality_launch(b, "", HST_KQUALITY_DRIFT_SUM, 2, gs, 9, as);
        quality_launch(b, "", HST_KQUALITY_DRIFT_CROSS, 2, gc, 6, ac);
        quality_launch(b, "", HST_KQUALITY_DRIFT_ROWS, 2, gr, 8, ar);
        quality_launch(b, "", HST_KQUALITY_DRIFT_PEAK, 1, &gp, 9, ap);
    }
    EXPECT(!memcmp(sum[0], sum[1], sizeof sum[0]), "quality drift_sum differs from the host twin");
    EXPECT(!memcmp(cross[0], cross[1], sizeof cross[0]), "quality drift_cross differs from the host twin");
    EXPECT(!memcmp(val[0], val[1], sizeof val[0]) && !memcmp(at[0], at[1], sizeof at[0]),
           "quality drift_rows differs from the host twin");
    EXPECT(!memcmp(patch[0], patch[1], sizeof patch[0]), "quality drift_peak differs from the host twin");
}

/* The kernels that read spectra, on made-up r2c halves: FRC's for a 32 x 32 image (max_r 15,
   chunks of 64 samples: 2 per long ring), decorrelation's for 16 x 16 (the whole plane, and a
   ROI with the DC kept), the Fourier interpolation's for 8 -> 16, each == its host twin (cos and
   sqrt: OpenCL's ulp bounds, hence 1e-5 relative where they enter). */
static void quality_spectra(hst_backend *be)
{
    enum { S = 32, MAXR = S / 2 - 1, CH = 64, NCH = 2, DN = 16, NR = 10, P = 8, MP = 16 };
    static float f1[S * (S / 2 + 1) * 2], f2[sizeof f1 / sizeof f1[0]];
    static float part[2][MAXR * NCH * 3], ring[2][MAXR * 3], step[MAXR];
    static float dpart[2][DN * 2 * NR], dnorm[2][DN], spec[P * (P / 2 + 1) * 2];
    static float big[2][MP * MP * 2], crop[2][12 * 10];
    int count[MAXR], s = S, max_r = MAXR, chunk = CH, nch = NCH, r, k;
    size_t g2[2];
    wl_fill_f32(f1, sizeof f1 / sizeof f1[0], 7);
    wl_fill_f32(f2, sizeof f2 / sizeof f2[0], 8);
    count[0] = 0; step[0] = 0.0f;
    for (r = 1; r < MAXR; r++) {   /* as quality.h's hst__q_frc_rings */
        step[r] = (float)(1.0 / r);
        count[r] = (int)ceil(2.0 * 3.14159265358979323846 / (double)step[r]);
    }
    EXPECT((count[MAXR - 1] + CH - 1) / CH == NCH, "FRC: %d chunks expected", NCH);
    {
        qarg a[9] = {QB(f1), QB(f2), QB(count), QB(step), QB(part[0]), QI(s), QI(max_r),
                     QI(chunk), QI(nch)};
        nan_fill(part[0], sizeof part[0] / sizeof(float));
        g2[0] = NCH; g2[1] = MAXR;
        quality_launch(be, "", HST_KQUALITY_FRC_PARTIAL, 2, g2, 9, a);
        hst_k_quality_frc_partial_host(f1, f2, count, step, part[1], S, MAXR, CH, NCH);
        EXPECT(close_f(part[0], part[1], sizeof part[0] / sizeof(float), 1e-5),
               "quality frc_partial differs from the host twin");
    }
    {
        qarg a[4] = {QB(part[1]), QB(ring[0]), QI(max_r), QI(nch)};
        size_t g = MAXR;
        nan_fill(ring[0], sizeof ring[0] / sizeof(float));
        quality_launch(be, "", HST_KQUALITY_FRC_RINGS, 1, &g, 4, a);
        hst_k_quality_frc_rings_host(part[1], ring[1], MAXR, NCH);
        EXPECT(!memcmp(ring[0], ring[1], sizeof ring[0]), "quality frc_rings differs from the host twin");
    }
    for (k = 0; k < 2; k++) {
        int n = DN, nr = NR, ox = k ? 3 : 0, w = k ? 9 : DN, oy = k ? 2 : 0, h = k ? 11 : DN;
        int zero_dc = !k;
        float crmin = k ? 0.1f : 0.0f, crmax = k ? 0.8f : 1.0f;
        qarg a[12] = {QB(f1), QB(dpart[0]), QB(dnorm[0]), QI(n), QI(nr), QF(crmin), QF(crmax),
                      QI(ox), QI(w), QI(oy), QI(h), QI(zero_dc)};
        size_t g = DN;
        a[0].bytes = (size_t)DN * (DN / 2 + 1) * 2 * sizeof(float);   /* f1's first DN rows */
        nan_fill(dpart[0], sizeof dpart[0] / sizeof(float));
        nan_fill(dnorm[0], DN);
        quality_launch(be, "", HST_KQUALITY_DECORR_COLS, 1, &g, 12, a);
        hst_k_quality_decorr_cols_host(f1, dpart[1], dnorm[1], DN, NR, crmin, crmax, ox, w, oy, h,
                                       zero_dc);
        EXPECT(close_f(dpart[0], dpart[1], sizeof dpart[0] / sizeof(float), 1e-5) &&
               close_f(dnorm[0], dnorm[1], DN, 1e-5),
               "quality decorr_cols (%d) differs from the host twin", k);
    }
    {   /* decorrelation's high-pass in the spectrum: one fma and a product, bit for bit */
        static float hp[2][DN * (DN / 2 + 1) * 2], hg[2 * DN];
        int n = DN;
        qarg a[4] = {QB(f1), QB(hp[0]), QB(hg), QI(n)};
        a[0].bytes = sizeof hp[0];   /* f1's first DN rows */
        wl_fill_f32(hg, 2 * DN, 10);
        nan_fill(hp[0], sizeof hp[0] / sizeof(float));
        g2[0] = DN / 2 + 1; g2[1] = DN;
        quality_launch(be, "", HST_KQUALITY_DECORR_HIGHPASS, 2, g2, 4, a);
        hst_k_quality_decorr_highpass_host(f1, hp[1], hg, DN);
        EXPECT(!memcmp(hp[0], hp[1], sizeof hp[0]), "quality decorr_highpass differs from the host twin");
    }
    {
        int p = P, mp = MP;
        qarg a[4] = {QB(spec), QB(big[0]), QI(p), QI(mp)};
        wl_fill_f32(spec, sizeof spec / sizeof spec[0], 9);
        nan_fill(big[0], sizeof big[0] / sizeof(float));
        g2[0] = g2[1] = MP;
        quality_launch(be, "", HST_KQUALITY_FOURIER_PAD, 2, g2, 4, a);
        hst_k_quality_fourier_pad_host(spec, big[1], P, MP);
        EXPECT(!memcmp(big[0], big[1], sizeof big[0]), "quality fourier_pad differs from the host twin");
    }
    {
        int mp = MP, rows = 12, cols = 10, y0 = 2, x0 = 3;
        float lo = -1.5f, scale = 0.75f, base = 0.25f;
        qarg a[10] = {QB(big[1]), QB(crop[0]), QI(mp), QI(rows), QI(cols), QI(y0), QI(x0), QF(lo),
                      QF(scale), QF(base)};
        a[0].bytes = (size_t)MP * MP * sizeof(float);   /* the real image of (mp, mp) */
        nan_fill(crop[0], sizeof crop[0] / sizeof(float));
        g2[0] = 10; g2[1] = 12;
        quality_launch(be, "", HST_KQUALITY_CROP_RESCALE, 2, g2, 10, a);
        hst_k_quality_crop_rescale_host(big[1], crop[1], MP, 12, 10, y0, x0, lo, scale, base);
        EXPECT(!memcmp(crop[0], crop[1], sizeof crop[0]), "quality crop_rescale differs from the host twin");
    }
}

/* The RUNS variant of the fused halo kernels (16-byte vectors along contiguous runs), forced on
   a backend of its own (HST_FORCE is read when the first pack and the first unpack register
   their choice): a float32 field whose rows are 16-byte aligned (uint4 moves) and an int32 one
   padded to 25 elements a row (vload4), all 8 boundaries, negated east edges. Each field's
   north and south edges (260 runs of 4 vectors) share a band of 2 work-groups per slot, its
   other slots one of 1 per slot. Pack and unpack == the host path. */
static void halo_runs(const char *device)
{
    hst_backend_desc bd;
    hst_backend *be;
    hst_halo_layout l[2];
    hst_halo_spec sp[16];
    hst_halo_plan_desc hd;
    hst_halo_plan *plan;
    hst_buffer *qb[2];
    static unsigned char qi[2][65 * 16 * 25 * 4], qd[sizeof qi[0]], qh[2][sizeof qi[0]];
    unsigned char *sd, *sh;
    void *qp[2];
    size_t bytes[2], sb, k, i, n = 0;
    memset(&bd, 0, sizeof bd);
    bd.device = device;
    bd.no_disk_cache = 1;
    setenv("HST_FORCE", "halo_pack_device:runs,halo_unpack_device:runs", 1);
    CHECK(hst_backend_create(&bd, &be));
    for (i = 0; i < 2; i++) {
        memset(&l[i], 0, sizeof l[i]);
        l[i].ndim = 3; l[i].elem_bytes = 4; l[i].n_halo = 4;
        l[i].number = i ? HST_HALO_INT : HST_HALO_FLOAT;
        l[i].dims[0] = HST_HALO_DIM_Z; l[i].dims[1] = HST_HALO_DIM_Y; l[i].dims[2] = HST_HALO_DIM_X;
        l[i].shape[0] = l[i].extent[0] = 65;
        l[i].shape[1] = 16; l[i].origin[1] = 4; l[i].extent[1] = 8;
        l[i].shape[2] = i ? 25 : 24; l[i].origin[2] = 4; l[i].extent[2] = 16;
        CHECK(hst_halo_layout_bytes(&l[i], &bytes[i]));
        for (k = 0; k < 8; k++) {
            CHECK(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)k, 0, k, &sp[n]));
            sp[n++].negate = k == HST_HALO_EAST;
        }
        for (k = 0; k < bytes[i]; k++) qi[i][k] = (unsigned char)(k * 29 + i * 7 + 3);
        memcpy(qh[i], qi[i], bytes[i]);
        qp[i] = qh[i];
        CHECK(hst_buffer_create(be, bytes[i], 0, &qb[i]));
        CHECK(hst_write(hst_backend_queue(be), qb[i], 0, qi[i], bytes[i], 1, 0, NULL, NULL));
    }
    memset(&hd, 0, sizeof hd);
    hd.num_quantities = 2; hd.layouts = l; hd.num_specs = n; hd.specs = sp; hd.num_peers = 8;
    CHECK(hst_halo_plan_create(be, &hd, &plan));
    sb = hst_halo_plan_stats(plan).send_bytes;
    sd = (unsigned char *)malloc(sb);
    sh = (unsigned char *)malloc(sb);
    if (!sd || !sh) { fprintf(stderr, "kernels_oclgrind: out of memory\n"); exit(1); }
    CHECK(hst_halo_pack(plan, NULL, 2, qb, 0, NULL, NULL));
    CHECK(hst_read(hst_backend_queue(be), hst_halo_plan_send_buffer(plan), 0, sd, sb, 1, 0, NULL,
                   NULL));
    CHECK(hst_halo_pack_host(plan, 2, qp, NULL, sh));
    for (k = 0; k < 8; k++) {   /* the padding between the peers is never written */
        size_t off = 0, len = 0;
        CHECK(hst_halo_plan_peer(plan, k, &off, &len, NULL, NULL));
        EXPECT(!memcmp(sd + off, sh + off, len), "RUNS: pack differs from the host");
    }
    for (k = 0; k < sb; k++) sh[k] = (unsigned char)(k * 13 + 5);   /* something new */
    CHECK(hst_write(hst_backend_queue(be), hst_halo_plan_recv_buffer(plan), 0, sh, sb, 1, 0,
                    NULL, NULL));
    CHECK(hst_halo_unpack(plan, NULL, 2, qb, 0, NULL, NULL));
    unsetenv("HST_FORCE");   /* read by the first pack and the first unpack */
    CHECK(hst_halo_unpack_host(plan, 2, qp, NULL, sh));
    for (i = 0; i < 2; i++) {
        CHECK(hst_read(hst_backend_queue(be), qb[i], 0, qd, bytes[i], 1, 0, NULL, NULL));
        EXPECT(!memcmp(qd, qh[i], bytes[i]), "RUNS: unpack differs from the host (quantity %zu)", i);
        hst_buffer_destroy(qb[i]);
    }
    free(sd);
    free(sh);
    hst_halo_plan_destroy(plan);
    CHECK(hst_backend_destroy(be));
}

/* The error map's DCT kernels on a 6 x 5 image (odd columns: the r2c half is 3 wide), made-up
   spectrum and twiddles: pack, unpack, and the moments of 2 images with g = 7 (strides that
   wrap rows; the DC term left out; images, gains and partial sums in padded rows, as quality.h
   lays them out), each against its host twin. */
static void quality_dct(hst_backend *be)
{
    enum { R = 6, C = 5, HW = C / 2 + 1, G = 7, SS = R * C + 3, RS = R + 1, GS = RS + C + 2,
           PS = G + 2 };
    static float img[R * C], out[2][R * C], spec[R * HW * 2], tr[2 * R], tc[2 * C];
    static float s2[2 * SS], gains[2 * GS], part[2][4 * PS];   /* image k: pss row 2 k, psr 2 k + 1 */
    int rows = R, cols = C;
    unsigned g = G;
    cl_ulong sstride = SS, gstride = GS, rstride = RS, pstride = PS, kend = 2;
    size_t g2[2], k, i;
    g2[0] = C; g2[1] = R;
    wl_fill_f32(img, R * C, 10); wl_fill_f32(spec, sizeof spec / sizeof spec[0], 11);
    wl_fill_f32(tr, 2 * R, 12); wl_fill_f32(tc, 2 * C, 13);
    wl_fill_f32(s2, 2 * SS, 14); wl_fill_f32(gains, 2 * GS, 15);
    {
        qarg a[4] = {QB(img), QB(out[0]), QI(rows), QI(cols)};
        nan_fill(out[0], R * C);
        quality_launch(be, "", HST_KQUALITY_DCT_PACK, 2, g2, 4, a);
        hst_k_quality_dct_pack_host(img, out[1], R, C);
        EXPECT(!memcmp(out[0], out[1], sizeof out[0]), "quality dct_pack differs from the host twin");
    }
    {
        qarg a[6] = {QB(spec), QB(out[0]), QB(tr), QB(tc), QI(rows), QI(cols)};
        nan_fill(out[0], R * C);
        quality_launch(be, "", HST_KQUALITY_DCT_UNPACK, 2, g2, 6, a);
        hst_k_quality_dct_unpack_host(spec, out[1], tr, tc, R, C);
        EXPECT(close_f(out[0], out[1], R * C, 1e-5), "quality dct_unpack differs from the host twin");
    }
    {
        qarg a[12] = {QB(s2), QB(img), QB(gains), QB(part[0]), QI(rows), QI(cols), QU(g),
                      QL(sstride), QL(gstride), QL(rstride), QL(pstride), QL(kend)};
        int same = 1;
        g2[0] = G; g2[1] = 2;
        nan_fill(part[0], 4 * PS); nan_fill(part[1], 4 * PS);
        quality_launch(be, "", HST_KQUALITY_DCT_MOMENTS, 2, g2, 12, a);
        hst_k_quality_dct_moments_host(s2, img, gains, part[1], R, C, G, SS, GS, RS, PS, 0, 2);
        for (k = 0; k < 4; k++)
            same = same && close_f(part[0] + k * PS, part[1] + k * PS, G, 1e-5);
        for (k = 0; k < 4; k++)   /* the padding stays unwritten */
            for (i = G; i < PS; i++) same = same && part[0][k * PS + i] != part[0][k * PS + i];
        EXPECT(same, "quality dct_moments differs from the host twin");
    }
}

/* The error map's blur gains (fp64: the program built with -DHST_FP64) of 2 images, 6 x 5:
   radius 13 (beyond 2 n: the cosine table's index wraps) and 0 (no blur), in padded rows as
   quality.h lays them out: == the twin bit for bit, the padding unwritten. */
static void quality_gains(hst_backend *be)
{
    enum { R = 6, C = 5, RS = R + 1, GS = RS + C + 2, WS = 14 };
    static float taps[2 * WS], out[2][2 * GS];
    static double cr[2 * R], cc[2 * C];
    static int radius[2] = {13, 0};
    int rows = R, cols = C, m, same = 1;
    cl_ulong wstride = WS, gstride = GS, rstride = RS, kend = 2;
    size_t g2[2], i;
    EXPECT(hst_backend_device(be)->fp64, "the device has no fp64: hst_k_quality_gains not launched");
    if (!hst_backend_device(be)->fp64) return;
    wl_fill_f32(taps, 2 * WS, 16);
    taps[WS] = 1.0f;   /* image 1: the one tap of no blur */
    for (m = 0; m < 2 * R; m++) cr[m] = cos(3.14159265358979323846 * m / R);
    for (m = 0; m < 2 * C; m++) cc[m] = cos(3.14159265358979323846 * m / C);
    {
        qarg a[11] = {QB(taps), QB(radius), QB(cr), QB(cc), QB(out[0]), QI(rows), QI(cols),
                      QL(wstride), QL(gstride), QL(rstride), QL(kend)};
        g2[0] = R + C; g2[1] = 2;
        nan_fill(out[0], 2 * GS); nan_fill(out[1], 2 * GS);
        quality_launch(be, "-DHST_FP64", HST_KQUALITY_GAINS, 2, g2, 11, a);
    }
    hst_k_quality_gains_host(taps, radius, cr, cc, out[1], R, C, WS, GS, RS, 0, 2);
    for (i = 0; i < 2 * GS; i++) {
        int pad = i % GS >= R + C + 1 || i % GS == R;   /* RS - R and GS - RS - C floats */
        same = same && (pad ? out[0][i] != out[0][i] : !memcmp(&out[0][i], &out[1][i], sizeof(float)));
    }
    EXPECT(same, "quality gains differ from the host twin");
    EXPECT(out[0][GS] == 1.0f && out[0][GS + RS] == 1.0f, "quality gains: no blur is not 1");
}

int main(int argc, char **argv)
{
    hst_backend *be = NULL, *host = NULL;
    hst_backend_desc desc;
    const char *sel = getenv("HST_OCLGRIND_DEVICE");
    static char want[MAX_SEEN][NAME_BYTES];
    unsigned n_want, num_families = 0, i, missing = 0;
    int fp64;
    enum { N = 5, H = 6, W = 5, SL = H * W };
    static float x[N * SL], p[3 * N * SL], d[N * SL], p2[3 * N * SL], d2[N * SL];
    double acc = 0, acc2 = 0;

    rel_canary = 0xff;   /* see "working around Oclgrind 21.10" above */
    rel_copy_override = tool_copy;
    rel_fill_override = tool_fill;
    if (argc > 1 && !strcmp(argv[1], "--self-test")) return self_test();
    memset(&desc, 0, sizeof desc);
    desc.device = sel && *sel ? sel : "oclgrind";
    desc.no_disk_cache = 1;
    if (hst_backend_create(&desc, &be) != HST_SUCCESS || hst_backend_is_host(be)) {
        fprintf(stderr, "kernels_oclgrind: no Oclgrind device (run it as `oclgrind %s`)\n",
                "build/reliability/kernels_oclgrind");
        return 2;
    }
    desc.device = "host";
    CHECK(hst_backend_create(&desc, &host));
    fp64 = hst_backend_device(be)->fp64;
    printf("device: %s (%s), fp64 %d\n", hst_backend_device(be)->name,
           hst_backend_device(be)->platform_name, fp64);
    rel_launch_hook = on_launch;

    n_want = declared_kernels(want, &num_families);
    EXPECT(n_want > 0, "the families' declarations: none read (more than %d names?)", MAX_SEEN);

    /* 1. vocabulary */
    vocab(be, fp64);
    printf("vocabulary: done (%lu launches so far)\n", launches); fflush(stdout);

    /* 2. stream kernels: grad3 -> div3 with an accumulator (block 2, halos), == host */
    {
        wl_stream_cfg cfg = {N, H, W, 2};
        wl_fill_f32(x, N * SL, 3);
        CHECK(wl_stream_once(be, &cfg, x, p, d, &acc));
        CHECK(wl_stream_once(host, &cfg, x, p2, d2, &acc2));
        EXPECT(!memcmp(p, p2, sizeof p) && !memcmp(d, d2, sizeof d), "grad3/div3 differ from the host twins");
        EXPECT(fabs(acc - acc2) <= 1e-5 * fabs(acc2), "slice_acc: %.9g vs host %.9g", acc, acc2);
    }
    {
        static float f[N * SL], xx[2][N * SL], xb[2][N * SL], pp[2][3 * N * SL], gap[2][N * SL];
        double g[2];
        int k;
        wl_fill_f32(f, N * SL, 4);
        for (k = 0; k < 2; k++) {
            memcpy(xx[k], f, sizeof f);
            memcpy(xb[k], f, sizeof f);
            memset(pp[k], 0, sizeof pp[k]);
            g[k] = tv(k ? host : be, xx[k], xb[k], pp[k], f, gap[k], N, H, W);
        }
        EXPECT(close_f(xx[0], xx[1], N * SL, 1e-5) && close_f(gap[0], gap[1], N * SL, 1e-4),
               "TV differs from the host twins");
        EXPECT(fabs(g[0] - g[1]) <= 1e-4 * fabs(g[1]) + 1e-6, "TV accumulators %.9g vs %.9g", g[0], g[1]);
    }
    printf("stream kernels: done (%lu launches so far)\n", launches); fflush(stdout);

    /* 3. halo pack/unpack, == host */
    {
        wl_halo h;
        static unsigned char init[WL_HALO_NQ][2048], res[2][WL_HALO_NQ][2048], send[2][8192];
        void *pi[WL_HALO_NQ], *pr[2][WL_HALO_NQ];
        size_t q, b;
        int k;
        CHECK(wl_halo_init(&h));
        for (q = 0; q < WL_HALO_NQ; q++) {
            for (b = 0; b < sizeof init[q]; b++) init[q][b] = (unsigned char)(b * 29 + q * 7 + 1);
            pi[q] = init[q]; pr[0][q] = res[0][q]; pr[1][q] = res[1][q];
        }
        memset(send, 0, sizeof send);
        for (k = 0; k < 2; k++) CHECK(wl_halo_once(k ? host : be, &h, pi, pr[k], send[k], sizeof send[k]));
        EXPECT(!memcmp(res[0], res[1], sizeof res[0]) && !memcmp(send[0], send[1], sizeof send[0]),
               "halo pack/unpack differ from the host path");
    }
    /* 3b. slots large enough that a work-group moves 2 chunks (west, DIRECT) and 2 tiles
       (east, quarter-turned: TILED), == host */
    {
        hst_halo_layout l;
        hst_halo_spec sp[2];
        hst_halo_plan_desc hd;
        hst_halo_plan *plan;
        hst_buffer *qb;
        static unsigned char qi[128 * 264 * 12 * 4], qd[sizeof qi], qh[sizeof qi];
        static unsigned char sd[2 * 131072 * 4 + 512], sh[sizeof sd];
        void *qp = qh;
        size_t bytes, sb, k;
        memset(&l, 0, sizeof l);
        l.ndim = 3; l.elem_bytes = 4; l.n_halo = 4;
        l.dims[0] = HST_HALO_DIM_Z; l.dims[1] = HST_HALO_DIM_Y; l.dims[2] = HST_HALO_DIM_X;
        l.shape[0] = l.extent[0] = 128;
        l.shape[1] = 256 + 8; l.origin[1] = 4; l.extent[1] = 256;
        l.shape[2] = 4 + 8; l.origin[2] = 4; l.extent[2] = 4;
        CHECK(hst_halo_layout_bytes(&l, &bytes));
        CHECK(hst_halo_spec_scalar(&l, 0, HST_HALO_WEST, 0, 0, &sp[0]));
        CHECK(hst_halo_spec_scalar(&l, 0, HST_HALO_EAST, 1, 1, &sp[1]));
        memset(&hd, 0, sizeof hd);
        hd.num_quantities = 1; hd.layouts = &l; hd.num_specs = 2; hd.specs = sp; hd.num_peers = 2;
        for (k = 0; k < bytes; k++) qi[k] = (unsigned char)(k * 31 + 7);
        memcpy(qh, qi, bytes);
        CHECK(hst_halo_plan_create(be, &hd, &plan));
        sb = hst_halo_plan_stats(plan).send_bytes;
        EXPECT(bytes <= sizeof qi && sb <= sizeof sd, "large slots: buffers too small");
        CHECK(hst_buffer_create(be, bytes, 0, &qb));
        CHECK(hst_write(hst_backend_queue(be), qb, 0, qi, bytes, 1, 0, NULL, NULL));
        CHECK(hst_halo_pack(plan, NULL, 1, &qb, 0, NULL, NULL));
        CHECK(hst_read(hst_backend_queue(be), hst_halo_plan_send_buffer(plan), 0, sd, sb, 1, 0,
                       NULL, NULL));
        CHECK(hst_halo_pack_host(plan, 1, &qp, NULL, sh));
        for (k = 0; k < 2; k++) {   /* the padding between the peers is never written */
            size_t off, len;
            CHECK(hst_halo_plan_peer(plan, k, &off, &len, NULL, NULL));
            EXPECT(!memcmp(sd + off, sh + off, len), "large slots: pack differs from the host");
        }
        for (k = 0; k < sb; k++) sh[k] = (unsigned char)(k * 13 + 5);   /* something new */
        CHECK(hst_write(hst_backend_queue(be), hst_halo_plan_recv_buffer(plan), 0, sh, sb, 1, 0,
                        NULL, NULL));
        CHECK(hst_halo_unpack(plan, NULL, 1, &qb, 0, NULL, NULL));
        CHECK(hst_read(hst_backend_queue(be), qb, 0, qd, bytes, 1, 0, NULL, NULL));
        CHECK(hst_halo_unpack_host(plan, 1, &qp, NULL, sh));
        EXPECT(!memcmp(qd, qh, bytes), "large slots: unpack differs from the host");
        hst_buffer_destroy(qb);
        hst_halo_plan_destroy(plan);
    }
    halo_runs(sel && *sel ? sel : "oclgrind");
    printf("halo kernels: done (%lu launches so far)\n", launches); fflush(stdout);

    /* 4. eSRRF, chained and fused (tests/reliability/workload.h: 6 x 5 frames, mag 2, T 3) */
    {
        enum { EN = 5, EP = WL_ESRRF_MPIXELS };
        static float frames[EN * WL_ESRRF_PIXELS], rgc[3][EN * EP];
        static double acc64[3][WL_ESRRF_ACC_ELEMS(EN)];
        int k;
        wl_fill_frames(frames, EN * WL_ESRRF_PIXELS);
        CHECK(wl_esrrf_once(be, 0, frames, EN, rgc[0], acc64[0], fp64));
        CHECK(wl_esrrf_once(be, 1, frames, EN, rgc[1], acc64[1], fp64));
        CHECK(wl_esrrf_once(host, 1, frames, EN, rgc[2], acc64[2], 1));
        for (k = 0; k < 2; k++)
            EXPECT(close_f(rgc[k], rgc[2], EN * EP, 1e-5), "eSRRF rgc (%s) differs from the host twin",
                   k ? "fused" : "chained");
    }
    esrrf_fused_build(be, host, HST_K_ESRRF_CPU_OPTIONS " -DHST_E_TILE=1248", "as for CPUs");
    esrrf_fused_build(be, host, "-DHST_E_NP=4 -DHST_E_TW=64 -DHST_E_TILE=1024 -DHST_E_ITAB=1024",
                      "as for NVIDIA GPUs");
    esrrf_fused_build(be, host, "-DHST_E_NP=8 -DHST_E_TW=64 -DHST_E_NLS=24 -DHST_E_TILE=1024 -DHST_E_ITAB=1024 "
                      "-DHST_E_MAG=2 -DHST_E_RADIUS=0x1.8p+0f", "as for NVIDIA GPUs, constants, wider rows");
    esrrf_fused_build(be, host, "-DHST_E_NP=2 -DHST_E_TW=64 -DHST_E_JN=7 -DHST_E_NLS=24 -DHST_E_TILE=1024 -DHST_E_ITAB=1024 "
                      "-DHST_E_MAG=2 -DHST_E_RADIUS=0x1.8p+0f", "as for NVIDIA GPUs, items along rows");
    {   /* esrrf.h on 8-bit frames (to_float on the device), against the same call on the host;
           then on the device and the host together (each its rows of the image: the device's
           are the upper half, through the fused kernel's row window). The device comes first:
           esrrf.h runs backend 0 on the calling thread, and Oclgrind 21.10's uninitialised-value
           plugin crashes when a kernel is run from another thread (tests/test_esrrf_api and
           tests/mpi_esrrf check windows that start lower, on real devices). */
        enum { EN = 4 };
        static unsigned char u8[EN * WL_ESRRF_PIXELS];
        static float img[3][WL_ESRRF_MPIXELS];
        hst_backend *two[2];
        hst_esrrf_desc ed;
        int k;
        two[0] = be; two[1] = host;
        for (k = 0; k < EN * (int)WL_ESRRF_PIXELS; k++) u8[k] = (unsigned char)((k * 37) % 251);
        for (k = 0; k < 3; k++) {
            hst_backend *pair[2];
            float *out[HST_ESRRF_NUM_MODES] = {NULL, NULL, NULL};
            out[0] = img[k];
            pair[0] = two[k == 2 ? 0 : k];
            pair[1] = host;
            memset(&ed, 0, sizeof ed);
            ed.backends = pair; ed.num_backends = k == 2 ? 2 : 1; ed.magnification = WL_ESRRF_MAG;
            ed.path = HST_ESRRF_PATH_FUSED;
            CHECK(hst_esrrf_run(&ed, u8, HST_ESRRF_U8, EN, WL_ESRRF_ROWS, WL_ESRRF_COLS, out, NULL));
        }
        EXPECT(close_f(img[0], img[1], WL_ESRRF_MPIXELS, 1e-5), "esrrf.h on u8 frames differs from the host");
        EXPECT(close_f(img[2], img[1], WL_ESRRF_MPIXELS, 1e-5), "esrrf.h on the device and the host differs from the host");
    }
    {   /* rolling time points (W 4, S 2: blocks of 2 frames, windows summed by roll on a device
           with fp64, by its twin on the host), every mode, against the host device's bits */
        enum { EN = 8 };
        static float fr[EN * WL_ESRRF_PIXELS], img[2][HST_ESRRF_NUM_MODES][3 * WL_ESRRF_MPIXELS];
        hst_backend *one[2];
        hst_esrrf_desc ed;
        int k, m;
        one[0] = be; one[1] = host;
        for (k = 0; k < EN * (int)WL_ESRRF_PIXELS; k++) fr[k] = (float)((k * 53) % 97) / 7.0f;
        for (k = 0; k < 2; k++) {
            float *out[HST_ESRRF_NUM_MODES];
            for (m = 0; m < HST_ESRRF_NUM_MODES; m++) out[m] = img[k][m];
            memset(&ed, 0, sizeof ed);
            ed.backends = &one[k]; ed.num_backends = 1; ed.magnification = WL_ESRRF_MAG;
            ed.path = HST_ESRRF_PATH_FUSED; ed.modes = HST_ESRRF_ALL_MODES;
            ed.frames_per_timepoint = 4; ed.rolling_step = 2;
            CHECK(hst_esrrf_run(&ed, fr, HST_ESRRF_F32, EN, WL_ESRRF_ROWS, WL_ESRRF_COLS, out, NULL));
        }
        EXPECT(!hst_backend_device(be)->fp64 || !memcmp(img[0], img[1], sizeof img[0]),
               "rolling time points on the device differ from the host's");
    }
    {   /* the parameter sweep's kernels (rgc_fused at 2 sensitivities, sweep_sum) through
           hst_esrrf_sweep, 2 radii x 2 sensitivities; its images against the host's. This program has no FFT, so the scores
           after the images answer HST_ERROR_NOT_BUILT_IN on both. */
        enum { EN = 3 };
        static float frames[EN * WL_ESRRF_PIXELS], img[2][4][WL_ESRRF_MPIXELS];
        static const float radii[2] = {1.0f, 1.5f}, sens[2] = {1.0f, 2.5f};
        hst_esrrf_sweep_desc sw;
        hst_esrrf_sweep_result res;
        hst_esrrf_desc ed;
        int k, p;
        wl_fill_frames(frames, EN * WL_ESRRF_PIXELS);
        memset(&sw, 0, sizeof sw);
        sw.radii = radii; sw.num_radii = 2; sw.sensitivities = sens; sw.num_sensitivities = 2;
        for (k = 0; k < 2; k++) {
            float *out[4];
            hst_backend *one = k ? host : be;
            for (p = 0; p < 4; p++) out[p] = img[k][p];
            memset(&ed, 0, sizeof ed);
            ed.backends = &one; ed.num_backends = 1; ed.magnification = WL_ESRRF_MAG;
            EXPECT(hst_esrrf_sweep(&ed, &sw, frames, HST_ESRRF_F32, EN, WL_ESRRF_ROWS, WL_ESRRF_COLS, out, &res) ==
                   HST_ERROR_NOT_BUILT_IN, "the sweep without FFTs: not NOT_BUILT_IN");
        }
        for (p = 0; p < 4; p++)
            EXPECT(close_f(img[0][p], img[1][p], WL_ESRRF_MPIXELS, 1e-5), "the sweep's image %d differs from the host", p);
    }
    printf("esrrf kernels: done (%lu launches so far)\n", launches); fflush(stdout);

    /* 5. quality kernels */
    quality_error_map(be, host);
    quality_spectra(be);
    quality_partial_sums(be);
    quality_dct(be);
    quality_gains(be);
    quality_drift(be, host);
    printf("quality kernels: done (%lu launches so far)\n", launches); fflush(stdout);

    rel_launch_hook = NULL;
    EXPECT(!list_full, "more than %d launched kernels or variants: the counts below are short", MAX_SEEN);
    for (i = 0; i < n_want; i++)
        if (!listed(seen_name, n_names, want[i])) {
            fprintf(stderr, "FAIL: kernel %s (declared) was never launched\n", want[i]);
            missing++;
        }
    for (i = 0; i < n_names; i++)   /* the library launches declared kernels only */
        if (!listed(want, n_want, seen_name[i])) {
            fprintf(stderr, "FAIL: kernel %s was launched but no family declares it\n", seen_name[i]);
            missing++;
        }
    failures += (int)missing;
    if (hst_backend_destroy(host) != HST_SUCCESS) failures++;   /* logged, naming what holds it */
    if (hst_backend_destroy(be) != HST_SUCCESS) failures++;
    tool_release();
    printf("kernels checked: %u (of the %u that %u families declare; %u name/build-option variants, "
           "%lu launches)\n", n_names, n_want, num_families, n_variants, launches);
    for (i = 0; i < n_variants; i++) printf("  %s\n", seen_variant[i]);
    printf("%s\n", failures ? "FAILED" : "all launches succeeded");
    return failures ? 1 : 0;
}
