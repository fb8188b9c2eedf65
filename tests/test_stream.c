/* tests/test_stream.c — stream.h, the out-of-core engine: streamed results equal whole-array
   results bit for bit (a randomised sweep of N, block size, halos, ring depth, direction and
   device count, over chains with TEMP arrays, outputs read by later stages and INOUT arrays),
   kernels.h's streamed gradient and divergence (and their adjointness), per-slice accumulators,
   cancellation, every creation error (result AND log item), leaks across 1,000 runs (OpenCL
   objects and events counted), pinned caller arrays and hst_stream_set_array.

   Runs once per device: the backends are created with desc.device = NULL, so HST_DEVICE picks.
   Two backends are made from the same selector: on an OpenCL device that is the same device
   opened twice (the multi-device path), on the host device two host backends (run one after
   the other). Tests that need an OpenCL device skip on the host device (and with HST_NO_OPENCL).

   OpenCL objects are counted by interposing the OpenCL calls backend.h makes: this file includes
   <CL/cl.h> first, then renames the calls that create or release events, memory objects,
   queues, kernels and programs to counting wrappers before backend.h's implementation is
   compiled here. */
#define HST_IMPLEMENTATION
#define _POSIX_C_SOURCE 200809L   /* nanosleep: waiting for PoCL to drop context references */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#if defined(__GNUC__)
#  define CNT_FN2 static __attribute__((unused))
#else
#  define CNT_FN2 static
#endif

/* ---- OpenCL object counting ------------------------------------------------------------------
   tests/reliability/cl_hooks.h renames the OpenCL calls the library makes to counting wrappers:
   live = created minus released per object kind (deltas are what the tests compare);
   made_events = every event handed out, so a test can show the counter sees a stream's events. */
#if !defined(HST_NO_OPENCL) && !defined(__APPLE__)
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#  define COUNTING_CL 1
#endif
#include "reliability/cl_hooks.h"
typedef rel_counts cl_counts;
#define live rel_live
#define made_events rel_made_events

#include "array.h"
#include "stream.h"
#include "kernels_stream.h"

#include "cap_log.h"

/* Asserts a result, that the log's last item is `item` at level ERROR, and that the message
   contains `text` (case-insensitive). */
CNT_FN2 int contains_nocase(const char *hay, const char *needle)
{
    size_t i, j, hn = strlen(hay), nn = strlen(needle);
    for (i = 0; i + nn <= hn; i++) {
        for (j = 0; j < nn; j++)
            if (tolower((unsigned char)hay[i + j]) != tolower((unsigned char)needle[j])) break;
        if (j == nn) return 1;
    }
    return 0;
}

#define assert_refused(r, code, log, item, text) do {                                         \
        assert_int_equal((r), (code));                                                        \
        assert_true((log)->counts[(item)] >= 1);                                              \
        assert_int_equal((log)->last_item, (item));                                           \
        assert_int_equal((log)->last_level, HST_LOG_ERROR);                                   \
        if (!contains_nocase((log)->last_message, (text))) {                                  \
            print_error("log message \"%s\" lacks \"%s\"\n", (log)->last_message, (text));   \
            fail();                                                                           \
        }                                                                                     \
    } while (0)

/* ---- group fixture: two backends from the same selector, each with a capturing logger ------- */
typedef struct fixture {
    hst_backend *be[2];
    cap_log log[2];
    uint64_t bytes0[2];
} fixture;

/* Feeds the copy model of the default block size (hst_stream_copy_model) through the choice
   registry: t0 seconds per command and bw bytes/s, in both directions, as measured timings of
   the probe sizes. */
static int feed_copy_model(hst_backend *be, double t0, double bw)
{
    static const int64_t small = HST_STREAM_COPY_SMALL_BYTES, large = HST_STREAM_COPY_LARGE_BYTES;
    hst_choice_op *op = hst_stream_copy_op(be);
    double tl = t0 + (double)(large - small) / bw;
    if (!op) return -1;
    return hst_choice_record(op, &small, 1, "up", t0) != HST_SUCCESS ||
           hst_choice_record(op, &small, 1, "down", t0) != HST_SUCCESS ||
           hst_choice_record(op, &large, 1, "up", tl) != HST_SUCCESS ||
           hst_choice_record(op, &large, 1, "down", tl) != HST_SUCCESS ? -1 : 0;
}

/* The fixture's copy model: 10 us per command, 10 GB/s (a PCIe 3.0 GPU). Fed rather than
   measured so that the default block sizes the tests expect do not depend on the machine. */
#define FIX_T0 10e-6
#define FIX_BW 10e9

static int group_setup(void **state)
{
    fixture *f = (fixture *)calloc(1, sizeof *f);
    hst_choice_desc off;
    int i;
    if (!f) return -1;
    memset(&off, 0, sizeof off);
    off.path = "off";
    for (i = 0; i < 2; i++) {
        hst_backend_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.logger = cap_logger;
        desc.log_user = &f->log[i];
        if (hst_backend_create(&desc, &f->be[i]) != HST_SUCCESS) {
            if (i) assert_int_equal(hst_backend_destroy(f->be[0]), HST_SUCCESS);
            free(f);
            return -1;
        }
        f->bytes0[i] = hst_backend_device_bytes(f->be[i]);
        /* timings in memory only: the stream's split op must not read splits of earlier test
           runs from the timings file under HST_CACHE_DIR (nor write them there) */
        if (hst_choice_configure(f->be[i], &off) != HST_SUCCESS ||
            (!hst_backend_is_host(f->be[i]) && feed_copy_model(f->be[i], FIX_T0, FIX_BW) != 0)) {
            assert_int_equal(hst_backend_destroy(f->be[i]), HST_SUCCESS);
            if (i) assert_int_equal(hst_backend_destroy(f->be[0]), HST_SUCCESS);
            free(f);
            return -1;
        }
    }
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = (fixture *)*state;
    int i, leaked = 0;
    if (!f) return 0;
    for (i = 0; i < 2; i++) {
        /* nothing a stream made outlives it: no active pool block, device bytes as at setup */
        hst_pool_stats s = hst_pool_get_stats(hst_backend_pool(f->be[i]));
        if (s.active_blocks != 0 || hst_backend_device_bytes(f->be[i]) != f->bytes0[i]) leaked = 1;
        assert_int_equal(hst_backend_destroy(f->be[i]), HST_SUCCESS);
    }
    free(f);
    return leaked ? -1 : 0;
}

static int test_setup(void **state)
{
    fixture *f = (fixture *)*state;
    cap_reset(&f->log[0]);
    cap_reset(&f->log[1]);
    return 0;
}

#define FIX(state) ((fixture *)*(state))
#define IS_HOST(f) (hst_backend_is_host((f)->be[0]))
#define NEED_OPENCL(f) do { if (IS_HOST(f)) { skip(); return; } } while (0)

/* ---- deterministic randomness (xorshift64*) ------------------------------------------------ */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static void rng_seed(uint64_t s) { rng_state = s ? s : 1; }
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static unsigned rng_below(unsigned n) { return (unsigned)(rng_next() % n); }
/* uniform in [-1, 1), multiples of 2^-23 (exact in float) */
static float rng_float(void) { return (float)((int32_t)(rng_next() >> 40) - (1 << 23)) / (float)(1 << 23); }
static void fill_random(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = rng_float();
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

static const int IDX[HST_STREAM_MAX_ARRAYS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* ============================================================================================
   The test stages. "wsum": y[g] = sum over d = -lo..hi of w(d) x[g + d] (terms outside [0, N)
   left out), w(d) = 2 d + 9 (distinct: a slice read from the wrong place shows), plus c * g
   (a wrong base shows). Flags are checked against the compute range (NaN if wrong); the host
   twin also fails the run if asked to read before its pointers' slice 0. "upd": u = u / 2 + y,
   u in/out (an INOUT array updated in place, halo 0). */
static const char *const test_src[] = {
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void wsum(__global const float *x, __global float *y, uint E, uint lo, uint hi,\n"
    "                   float c, ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i >= E || z >= end) return;\n"
    "  ulong g = base + z;\n"
    "  float acc = 0.0f;\n"
    "  for (int d = -(int)lo; d <= (int)hi; d++) {\n"
    "    long gg = (long)g + d;\n"
    "    if (gg < 0 || gg >= (long)total) continue;\n"
    "    float w = (float)(2 * d + 9);\n"
    "    float t = w * x[((long)z + d) * (long)E + (long)i];\n"
    "    acc = acc + t;\n"
    "  }\n"
    "  float cg = c * (float)g;\n"
    "  acc = acc + cg;\n"
    "  int want = (base + begin == 0 ? 1 : 0) | (base + end == total ? 2 : 0);\n"
    "  if (flags != want) acc = NAN;\n"
    "  y[z * E + i] = acc;\n"
    "}\n"
    "__kernel void upd(__global const float *y, __global float *u, uint E,\n"
    "                  ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i >= E || z >= end) return;\n"
    "  float h = u[z * E + i] * 0.5f;\n"
    "  u[z * E + i] = h + y[z * E + i];\n"
    "}\n"
};

typedef struct wpar {
    uint32_t E, lo, hi;
    float c;
} wpar;

static int block_flags_ok(const hst_stream_block *b)
{
    int want = (b->base + b->begin == 0 ? HST_STREAM_FIRST : 0) |
               (b->base + b->end == b->total ? HST_STREAM_LAST : 0);
    return b->flags == want && b->begin <= b->end && b->base + b->end <= b->total;
}

static hst_result wsum_host(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                            void *user)
{
    const float *x = (const float *)arrays[0];
    float *y = (float *)arrays[1];
    uint32_t E = *(const uint32_t *)scalars[0], lo = *(const uint32_t *)scalars[1];
    uint32_t hi = *(const uint32_t *)scalars[2];
    float c = *(const float *)scalars[3];
    uint64_t z;
    uint32_t i;
    (void)user;
    if (!block_flags_ok(blk)) return HST_ERROR_SHAPE;
    for (z = blk->begin; z < blk->end; z++) {
        int64_t g = (int64_t)(blk->base + z);
        for (i = 0; i < E; i++) {
            float acc = 0.0f, cg;
            int d;
            for (d = -(int)lo; d <= (int)hi; d++) {
                int64_t gg = g + d;
                float w, t;
                if (gg < 0 || gg >= (int64_t)blk->total) continue;
                if (gg < (int64_t)blk->base) return HST_ERROR_ALIGNMENT;  /* before the loaded range */
                w = (float)(2 * d + 9);
                t = w * x[(size_t)(gg - (int64_t)blk->base) * E + i];
                acc = acc + t;
            }
            cg = c * (float)g;
            acc = acc + cg;
            y[(size_t)z * E + i] = acc;
        }
    }
    return HST_SUCCESS;
}

static hst_result upd_host(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                           void *user)
{
    const float *y = (const float *)arrays[0];
    float *u = (float *)arrays[1];
    uint32_t E = *(const uint32_t *)scalars[0];
    uint64_t z;
    uint32_t i;
    (void)user;
    if (!block_flags_ok(blk)) return HST_ERROR_SHAPE;
    for (z = blk->begin; z < blk->end; z++)
        for (i = 0; i < E; i++) {
            float h = u[(size_t)z * E + i] * 0.5f;
            u[(size_t)z * E + i] = h + y[(size_t)z * E + i];
        }
    return HST_SUCCESS;
}

/* ---- chains ---------------------------------------------------------------------------------
   A chain: up to 8 arrays of E floats per slice, up to 4 stages (wsum or upd), accumulators.
   host[a]: the caller's memory (NULL for TEMP); init[a]: its initial contents (inputs and
   INOUT); ref[a]: the whole-array result. */
#define CH_MAX_ARR 8
#define CH_MAX_ST 4
typedef struct chain {
    uint64_t N;
    uint32_t E;
    unsigned narr, nst, nacc;
    hst_stream_array arr[CH_MAX_ARR];
    hst_stream_stage st[CH_MAX_ST];
    wpar par[CH_MAX_ST];
    hst_stream_acc acc[HST_STREAM_MAX_ACCUMULATORS];
    float *host[CH_MAX_ARR], *init[CH_MAX_ARR], *ref[CH_MAX_ARR];
    double acc_ref[HST_STREAM_MAX_ACCUMULATORS];
    hst_buffer *pinned[CH_MAX_ARR];
    hst_stream_pinned *parr[CH_MAX_ARR];   /* pinned arrays (then host[a] is NULL) */
} chain;

static size_t ch_elems(const chain *c) { return (size_t)c->N * c->E; }

static void ch_init(chain *c, uint64_t N, uint32_t E)
{
    memset(c, 0, sizeof *c);
    c->N = N;
    c->E = E;
}

static int ch_array(chain *c, hst_stream_kind kind)
{
    unsigned a = c->narr++;
    size_t n = ch_elems(c);
    assert_true(a < CH_MAX_ARR);
    c->arr[a].kind = kind;
    c->arr[a].slice_bytes = (size_t)c->E * sizeof(float);
    if (kind != HST_STREAM_TEMP) {
        size_t i;
        c->host[a] = (float *)xmalloc(n * sizeof(float));
        c->init[a] = (float *)xmalloc(n * sizeof(float));
        if (kind == HST_STREAM_OUTPUT)   /* a sentinel: slices never written keep it */
            for (i = 0; i < n; i++) c->init[a][i] = -12345.0f;
        else
            fill_random(c->init[a], n);
        memcpy(c->host[a], c->init[a], n * sizeof(float));
        c->arr[a].host = c->host[a];
    }
    return (int)a;
}

static void ch_wsum(chain *c, int in, int out, unsigned lo, unsigned hi)
{
    unsigned s = c->nst++;
    hst_stream_stage *st = &c->st[s];
    wpar *p = &c->par[s];
    assert_true(s < CH_MAX_ST);
    p->E = c->E; p->lo = lo; p->hi = hi; p->c = 0.0625f * (float)(s + 1);
    memset(st, 0, sizeof *st);
    st->name = "wsum";
    st->sources = test_src; st->num_sources = 1; st->kernel = "wsum";
    st->host = wsum_host;
    st->num_inputs = 1; st->inputs = &IDX[in];
    st->num_outputs = 1; st->outputs = &IDX[out];
    st->num_scalars = 4;
    st->scalar_bytes[0] = 4; st->scalars[0] = &p->E;
    st->scalar_bytes[1] = 4; st->scalars[1] = &p->lo;
    st->scalar_bytes[2] = 4; st->scalars[2] = &p->hi;
    st->scalar_bytes[3] = 4; st->scalars[3] = &p->c;
    st->halo_lo = lo; st->halo_hi = hi;
    st->items_per_slice = c->E;
}

static void ch_upd(chain *c, int y, int u)
{
    unsigned s = c->nst++;
    hst_stream_stage *st = &c->st[s];
    wpar *p = &c->par[s];
    assert_true(s < CH_MAX_ST);
    p->E = c->E;
    memset(st, 0, sizeof *st);
    st->name = "upd";
    st->sources = test_src; st->num_sources = 1; st->kernel = "upd";
    st->host = upd_host;
    st->num_inputs = 1; st->inputs = &IDX[y];
    st->num_outputs = 1; st->outputs = &IDX[u];
    st->num_scalars = 1;
    st->scalar_bytes[0] = 4; st->scalars[0] = &p->E;
    st->items_per_slice = c->E;
}

static void ch_acc(chain *c, hst_stream_acc_kind kind, hst_dtype dt, int a, int b)
{
    hst_stream_acc *x = &c->acc[c->nacc++];
    x->kind = kind; x->dtype = dt; x->a = a; x->b = b;
}

/* The whole-array results: every stage's twin over the whole array as one block; a call stage
   (arrays_fn, the wsum / wmul chains) as y = x * w[k % E] * 0.5 with the weights w. GLOBAL
   arrays have no reference. */
static void ch_reference_w(chain *c, const float *w)
{
    size_t n = ch_elems(c), sb = (size_t)c->E * sizeof(float), k;
    unsigned a, s, i;
    uint64_t z;
    hst_stream_block whole;
    whole.base = 0; whole.begin = 0; whole.end = c->N; whole.total = c->N;
    whole.flags = HST_STREAM_FIRST | HST_STREAM_LAST;
    for (a = 0; a < c->narr; a++) {
        free(c->ref[a]);
        if (c->arr[a].kind == HST_STREAM_GLOBAL) { c->ref[a] = NULL; continue; }
        c->ref[a] = (float *)xmalloc(n * sizeof(float));
        if (c->init[a]) memcpy(c->ref[a], c->init[a], n * sizeof(float));
        else memset(c->ref[a], 0, n * sizeof(float));
    }
    for (s = 0; s < c->nst; s++) {
        const hst_stream_stage *st = &c->st[s];
        if (st->arrays_fn) {
            const float *x = c->ref[st->inputs[0]];
            float *y = c->ref[st->outputs[0]];
            for (k = 0; k < n; k++) {
                float m = x[k] * w[k % c->E];
                y[k] = m * 0.5f;
            }
        } else {
            void *args[2];
            args[0] = c->ref[st->inputs[0]];
            args[1] = c->ref[st->outputs[0]];
            assert_int_equal(st->host(args, st->scalars, &whole, NULL), HST_SUCCESS);
        }
    }
    for (i = 0; i < c->nacc; i++) {
        const hst_stream_acc *x = &c->acc[i];
        size_t elems = sb / hst_dtype_size(x->dtype);
        double t = 0.0;
        for (z = 0; z < c->N; z++) {
            double v = 0.0;
            const unsigned char *pa = (const unsigned char *)c->ref[x->a] + (size_t)z * sb;
            const unsigned char *pb = x->kind == HST_STREAM_DIFF2
                                    ? (const unsigned char *)c->ref[x->b] + (size_t)z * sb : NULL;
            hst_k_slice_acc_host(x->dtype, (int)x->kind, pa, pb, elems, &v);
            t += v;
        }
        c->acc_ref[i] = t;
    }
}

static void ch_reference(chain *c) { ch_reference_w(c, NULL); }

static void ch_free(chain *c)
{
    unsigned a;
    for (a = 0; a < CH_MAX_ARR; a++) {
        if (!c->pinned[a]) free(c->host[a]);
        hst_buffer_destroy(c->pinned[a]);
        hst_stream_pinned_destroy(c->parr[a]);
        free(c->init[a]);
        free(c->ref[a]);
    }
    memset(c, 0, sizeof *c);
}

/* Puts every host array of the chain into pinned memory of `be` (same contents). */
CNT_FN2 void ch_pin(chain *c, hst_backend *be)
{
    unsigned a;
    size_t bytes = ch_elems(c) * sizeof(float);
    for (a = 0; a < c->narr; a++) {
        if (!c->host[a]) continue;
        assert_int_equal(hst_pinned_create(be, bytes, &c->pinned[a]), HST_SUCCESS);
        assert_non_null(hst_buffer_host_ptr(c->pinned[a]));
        memcpy(hst_buffer_host_ptr(c->pinned[a]), c->host[a], bytes);
        free(c->host[a]);
        c->host[a] = (float *)hst_buffer_host_ptr(c->pinned[a]);
        c->arr[a].host = NULL;
        c->arr[a].pinned = c->pinned[a];
    }
}

/* Puts every host array of the chain into a pinned array of `be` in chunks of `chunk` slices
   (same contents). */
CNT_FN2 void ch_pin_chunks(chain *c, hst_backend *be, uint64_t chunk)
{
    unsigned a;
    for (a = 0; a < c->narr; a++) {
        if (!c->host[a]) continue;
        assert_int_equal(hst_stream_pinned_create(be, c->arr[a].slice_bytes, c->N, chunk, &c->parr[a]), HST_SUCCESS);
        assert_int_equal(hst_stream_pinned_write(c->parr[a], 0, c->host[a], c->N), HST_SUCCESS);
        free(c->host[a]);
        c->host[a] = NULL;
        c->arr[a].host = NULL;
        c->arr[a].pinned_array = c->parr[a];
    }
}

/* Restores every caller array to its initial contents (outputs to the sentinel). */
static void ch_reset(chain *c)
{
    unsigned a;
    for (a = 0; a < c->narr; a++)
        if (c->host[a]) memcpy(c->host[a], c->init[a], ch_elems(c) * sizeof(float));
        else if (c->parr[a]) assert_int_equal(hst_stream_pinned_write(c->parr[a], 0, c->init[a], c->N), HST_SUCCESS);
}

static hst_stream_desc ch_desc(chain *c, hst_backend *const *be, unsigned nbe)
{
    hst_stream_desc d;
    memset(&d, 0, sizeof d);
    d.backends = be; d.num_backends = nbe;
    d.num_slices = c->N;
    d.arrays = c->arr; d.num_arrays = c->narr;
    d.stages = c->st; d.num_stages = c->nst;
    d.accumulators = c->nacc ? c->acc : NULL; d.num_accumulators = c->nacc;
    return d;
}

static char cfg[256];   /* the configuration under test, for failure messages */

static int bits_equal_f(const float *a, const float *b, size_t n, size_t *at)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) { *at = i; return 0; }
    return 1;
}

/* Checks the caller arrays after a complete run: outputs and INOUT equal the reference bit for
   bit, inputs unchanged. */
static void ch_check_arrays(const chain *c)
{
    unsigned a;
    size_t n = ch_elems(c), at = 0;
    for (a = 0; a < c->narr; a++) {
        const float *want, *got = c->host[a];
        float *copy = NULL;
        if (!c->host[a] && !c->parr[a]) continue;
        if (!got) {   /* a pinned array: its slices copied out */
            copy = (float *)xmalloc(n * sizeof(float));
            assert_int_equal(hst_stream_pinned_read(c->parr[a], 0, copy, c->N), HST_SUCCESS);
            got = copy;
        }
        want = c->arr[a].kind == HST_STREAM_INPUT ? c->init[a] : c->ref[a];
        if (!bits_equal_f(got, want, n, &at)) {
            print_error("%s: array %u (kind %d) slice %zu element %zu: got %.9g want %.9g\n", cfg, a,
                        (int)c->arr[a].kind, at / c->E, at % c->E, (double)got[at], (double)want[at]);
            free(copy);
            fail();
        }
        free(copy);
    }
}

static int fp64_all(hst_backend *const *be, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        if (!hst_backend_device(be[i])->fp64) return 0;
    return 1;
}

/* Accumulator totals: the same bits as the whole-array per-slice sums when the devices have
   fp64 (or on the host device); else float accumulation per slice, within 1e-5 relative. */
static void ch_check_accs(const chain *c, const hst_stream_report *rep, int exact)
{
    unsigned i;
    for (i = 0; i < c->nacc; i++) {
        double got = rep->acc[i], want = c->acc_ref[i];
        int ok = exact ? memcmp(&got, &want, sizeof got) == 0
                       : fabs(got - want) <= 1e-5 * (fabs(want) + 1e-30) + 1e-6;
        if (!ok) {
            print_error("%s: accumulator %u (kind %d dtype %d): got %.17g want %.17g\n", cfg, i,
                        (int)c->acc[i].kind, (int)c->acc[i].dtype, got, want);
            fail();
        }
    }
}

/* The report of a complete run: every slice done once, ranges contiguous from 0 to N. */
static void check_report_complete(const hst_stream_report *rep, uint64_t N, unsigned nbe, uint64_t B)
{
    unsigned d;
    uint64_t next = 0, blocks = 0;
    assert_int_equal(rep->block_slices, B);
    assert_int_equal(rep->slices_done, N);
    for (d = 0; d < nbe; d++) {
        uint64_t n = rep->range_end[d] - rep->range_begin[d];
        assert_int_equal(rep->range_begin[d], next);
        assert_true(rep->range_end[d] >= rep->range_begin[d]);
        next = rep->range_end[d];
        if (n) {
            assert_int_equal(rep->done_begin[d], rep->range_begin[d]);
            assert_int_equal(rep->done_end[d], rep->range_end[d]);
        } else {
            assert_int_equal(rep->done_begin[d], rep->done_end[d]);
        }
        blocks += n / B + (n % B != 0);
    }
    assert_int_equal(next, N);
    assert_int_equal(rep->num_blocks, blocks);
    assert_true(rep->seconds >= 0.0);
}

/* Progress bookkeeping: calls, monotonic counts, the last value. */
typedef struct prog {
    unsigned calls, cancel_at;
    uint64_t last, total;
    int bad;
} prog;

static int prog_fn(uint64_t done, uint64_t total, void *user)
{
    prog *p = (prog *)user;
    p->calls++;
    if (done <= p->last || done > total || (p->total && total != p->total)) p->bad = 1;
    p->last = done;
    p->total = total;
    return p->cancel_at && p->calls >= p->cancel_at;
}

/* Builds one of the sweep's chains over N slices of E floats with random halos (< N, <= 3).
     0: x -> y                                  (wsum)
     1: x -> T -> y                             (wsum, TEMP, wsum: chained extents)
     2: x -> T -> y -> z, then u = u/2 + z      (y is an OUTPUT read by a later stage with a
                                                 halo; u an INOUT updated in place, halo 0) */
static unsigned rand_halo(uint64_t N)
{
    unsigned m = N - 1 < 3 ? (unsigned)(N - 1) : 3;
    return rng_below(m + 1);
}

static void build_chain(chain *c, int type, uint64_t N, uint32_t E)
{
    int x, t, y, z, u;
    ch_init(c, N, E);
    x = ch_array(c, HST_STREAM_INPUT);
    if (type == 0) {
        y = ch_array(c, HST_STREAM_OUTPUT);
        ch_wsum(c, x, y, rand_halo(N), rand_halo(N));
        ch_acc(c, HST_STREAM_SUM, HST_F32, y, 0);
        ch_acc(c, HST_STREAM_SQSUM, HST_F32, x, 0);
        ch_acc(c, HST_STREAM_DIFF2, HST_F32, y, x);
        ch_acc(c, HST_STREAM_SQSUM, HST_C64, y, 0);
        return;
    }
    t = ch_array(c, HST_STREAM_TEMP);
    y = ch_array(c, HST_STREAM_OUTPUT);
    ch_wsum(c, x, t, rand_halo(N), rand_halo(N));
    ch_wsum(c, t, y, rand_halo(N), rand_halo(N));
    if (type == 1) {
        ch_acc(c, HST_STREAM_SUM, HST_F32, y, 0);
        ch_acc(c, HST_STREAM_DIFF2, HST_F32, y, x);
        ch_acc(c, HST_STREAM_SQSUM, HST_F32, t, 0);
        ch_acc(c, HST_STREAM_DIFF2, HST_C64, t, y);
        return;
    }
    z = ch_array(c, HST_STREAM_OUTPUT);
    u = ch_array(c, HST_STREAM_INOUT);
    ch_wsum(c, y, z, rand_halo(N), rand_halo(N));
    ch_upd(c, z, u);
    ch_acc(c, HST_STREAM_DIFF2, HST_F32, u, z);
    ch_acc(c, HST_STREAM_SUM, HST_C64, y, 0);
    ch_acc(c, HST_STREAM_SQSUM, HST_F32, z, 0);
}

/* The chain's loaded halo (sum of the stages' halos) and bytes per slice of all arrays. */
static uint64_t ch_halo(const chain *c)
{
    unsigned s;
    uint64_t h = 0;
    for (s = 0; s < c->nst; s++) h += c->st[s].halo_lo + c->st[s].halo_hi;
    return h;
}
static uint64_t ch_per(const chain *c)
{
    unsigned a;
    uint64_t p = 0;
    for (a = 0; a < c->narr; a++) p += c->arr[a].slice_bytes;
    return p;
}

/* The budget (OpenCL devices) whose ring holds exactly blocks of B slices: ring slots of
   (B + halo) slices of every array (a halo of at most N - 1: no more slices exist), plus the
   accumulators' per-slice values. */
static uint64_t budget_for(const chain *c, uint64_t B, unsigned ring, int fp64)
{
    uint64_t h = ch_halo(c) < c->N - 1 ? ch_halo(c) : c->N - 1;
    return (uint64_t)ring * (B + h) * ch_per(c) + (uint64_t)c->nacc * c->N * (fp64 ? 8u : 4u);
}

/* Runs the chain streamed twice (the second run splits by measured speeds) and checks arrays,
   accumulators, report and progress against the whole-array reference. */
static void run_and_check(fixture *f, chain *c, hst_stream_desc *d, uint64_t expect_B, int runs)
{
    hst_stream *s = NULL;
    hst_stream_report rep;
    prog p;
    int k;
    int exact = fp64_all(d->backends, d->num_backends);
    hst_result r;
    memset(&p, 0, sizeof p);
    d->progress = prog_fn;
    d->progress_user = &p;
    r = hst_stream_create(d, &s);
    if (r != HST_SUCCESS) {
        print_error("%s: hst_stream_create: %s (%s)\n", cfg, hst_result_string(r), f->log[0].last_message);
        fail();
    }
    assert_int_equal(hst_stream_block_slices(s), expect_B);
    for (k = 0; k < runs; k++) {
        memset(&p, 0, sizeof p);
        ch_reset(c);
        memset(&rep, 0xa5, sizeof rep);
        r = hst_stream_run(s, &rep);
        if (r != HST_SUCCESS) {
            print_error("%s: run %d: %s (%s)\n", cfg, k, hst_result_string(r), f->log[0].last_message);
            fail();
        }
        ch_check_arrays(c);
        ch_check_accs(c, &rep, exact);
        check_report_complete(&rep, c->N, d->num_backends, expect_B);
        assert_false(p.bad);
        assert_int_equal(p.calls, rep.num_blocks);
        assert_int_equal(p.last, c->N);
        assert_int_equal(p.total, c->N);
    }
    hst_stream_destroy(s);
}

static void test_sweep_bitwise(void **state)
{
    static const uint64_t Ns[] = {1, 2, 3, 7, 13, 16, 17, 20, 31, 53};
    fixture *f = FIX(state);
    unsigned ni, bi, rep, k = 0;
    unsigned seen[2][2][3];
    memset(seen, 0, sizeof seen);
    rng_seed(20260401);
    for (ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
        uint64_t N = Ns[ni];
        uint64_t blocks[8];
        blocks[0] = 0; blocks[1] = 1; blocks[2] = 2; blocks[3] = 3; blocks[4] = 4; blocks[5] = 5;
        blocks[6] = N; blocks[7] = N + 3;
        for (bi = 0; bi < 8; bi++)
            for (rep = 0; rep < 2; rep++, k++) {
                chain c;
                hst_stream_desc d;
                int reverse = (int)(k & 1), type = (int)rng_below(3);
                unsigned nbe = 1 + ((k >> 1) & 1), ring = 2 + rng_below(3);
                uint32_t E = 2 * (4 + rng_below(40));
                uint64_t B;
                build_chain(&c, type, N, E);
                ch_reference(&c);
                d = ch_desc(&c, f->be, nbe);
                d.ring = ring;
                d.reverse = reverse;
                d.block_slices = blocks[bi];
                if (blocks[bi]) {
                    B = blocks[bi] < N ? blocks[bi] : N;
                } else if (!IS_HOST(f) && rep == 1) {   /* auto, under a budget that fits Bx */
                    uint64_t Bx = 1 + rng_below((unsigned)N + 1);
                    d.budget_bytes = budget_for(&c, Bx, ring, fp64_all(f->be, nbe));
                    B = Bx < N ? Bx : N;
                } else {
                    B = N;   /* auto without a budget: these arrays fit whole */
                }
                snprintf(cfg, sizeof cfg, "case %u: N=%llu block=%llu (B=%llu) type=%d ring=%u %s devices=%u E=%u budget=%llu",
                         k, (unsigned long long)N, (unsigned long long)blocks[bi], (unsigned long long)B, type,
                         ring, reverse ? "reverse" : "forward", nbe, E, (unsigned long long)d.budget_bytes);
                run_and_check(f, &c, &d, B, 2);
                seen[reverse][nbe - 1][type]++;
                ch_free(&c);
            }
    }
    /* the sweep covered every direction x device count x chain type */
    for (k = 0; k < 12; k++) assert_true(seen[k / 6][(k / 3) % 2][k % 3] > 0);
}

/* Small N against large halos: N in {1, 2, 3, 7, 31, 97}, x -> T -> y with halos (3, 2) then
   (2, 3) (so for N <= 3 every halo reaches past the array), every block size from 1 to N, rings
   2 to 4, both directions: the same bits as the whole-array twins. Slices of 3 floats keep the
   846 streams quick. */
static void test_small_n_halos(void **state)
{
    static const uint64_t Ns[] = {1, 2, 3, 7, 31, 97};
    fixture *f = FIX(state);
    unsigned ni, ring, rev;
    uint64_t B;
    rng_seed(1313);
    for (ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
        chain c;
        int x, t, y;
        ch_init(&c, Ns[ni], 3);
        x = ch_array(&c, HST_STREAM_INPUT);
        t = ch_array(&c, HST_STREAM_TEMP);
        y = ch_array(&c, HST_STREAM_OUTPUT);
        ch_wsum(&c, x, t, 3, 2);
        ch_wsum(&c, t, y, 2, 3);
        ch_acc(&c, HST_STREAM_SUM, HST_F32, y, 0);
        ch_reference(&c);
        for (B = 1; B <= c.N; B++)
            for (ring = 2; ring <= 4; ring++)
                for (rev = 0; rev < 2; rev++) {
                    hst_stream_desc d = ch_desc(&c, f->be, 1);
                    d.block_slices = B;
                    d.ring = ring;
                    d.reverse = (int)rev;
                    snprintf(cfg, sizeof cfg, "small N=%llu B=%llu ring=%u %s", (unsigned long long)c.N,
                             (unsigned long long)B, ring, rev ? "reverse" : "forward");
                    run_and_check(f, &c, &d, B, 1);
                }
        ch_free(&c);
    }
}

/* hst_stream_set_num_slices: one stream made for N0 = 23 slices runs 9, 1, 16 and again 23 of
   them (each chain type, one and two devices, blocks of 3 and 5, both directions); every run is
   the same bits as the whole-array twins of that many slices, its report and accumulators those
   of a stream made for that length. Lengths beyond create's, 0, a NULL stream: refused. */
static void test_set_num_slices(void **state)
{
    static const uint64_t lengths[] = {9, 1, 16, 23};
    fixture *f = FIX(state);
    unsigned k, i;
    rng_seed(2121);
    for (k = 0; k < 12; k++) {
        chain c;
        hst_stream_desc d;
        hst_stream *s = NULL;
        hst_stream_report rep;
        unsigned nbe = 1 + (k & 1);
        uint64_t B = k & 2 ? 5 : 3, N0 = 23;
        build_chain(&c, (int)(k % 3), N0, 16);
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = B;
        d.ring = 2 + (k % 2);
        d.reverse = (int)((k >> 2) & 1);
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        for (i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            c.N = lengths[i];
            ch_reference(&c);
            ch_reset(&c);
            snprintf(cfg, sizeof cfg, "set_num_slices %llu of %llu: type %u devices %u block %llu %s",
                     (unsigned long long)c.N, (unsigned long long)N0, k % 3, nbe, (unsigned long long)B,
                     d.reverse ? "reverse" : "forward");
            assert_int_equal(hst_stream_set_num_slices(s, c.N), HST_SUCCESS);
            assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
            ch_check_arrays(&c);
            ch_check_accs(&c, &rep, fp64_all(f->be, nbe));
            check_report_complete(&rep, c.N, nbe, B);
        }
        assert_int_equal(hst_stream_set_num_slices(s, N0 + 1), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_stream_set_num_slices(s, 0), HST_ERROR_INVALID_ARGUMENT);
        hst_stream_destroy(s);
        c.N = N0;   /* the chain's arrays hold N0 slices */
        ch_free(&c);
    }
    assert_int_equal(hst_stream_set_num_slices(NULL, 1), HST_ERROR_INVALID_ARGUMENT);
}

/* ============================================================================================
   kernels.h's gradient and divergence, streamed: the same bits as the whole-volume twins, and
   <grad x, p> = -<x, div p> on random data. */
typedef struct gpar {
    uint32_t H, W;
} gpar;

static hst_result grad_host(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                            void *user)
{
    (void)user;
    hst_k_grad3_host((const float *)arrays[0], (float *)arrays[1], *(const uint32_t *)scalars[0],
                     *(const uint32_t *)scalars[1], blk->base, blk->begin, blk->end, blk->total);
    return HST_SUCCESS;
}

static hst_result div_host(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                           void *user)
{
    (void)user;
    hst_k_div3_host((const float *)arrays[0], (float *)arrays[1], *(const uint32_t *)scalars[0],
                    *(const uint32_t *)scalars[1], blk->base, blk->begin, blk->end, blk->total);
    return HST_SUCCESS;
}

/* A stage of the stream program: grad (halo_hi 1 on x) or div (halo_lo 1 on p); halos are 0
   when N = 1 (there is no neighbour, and a halo must be smaller than N). declared: the
   family's declared kernel (its twin on the host device), else the program's sources with a
   host twin of this file. */
static void vol_stage(hst_stream_stage *st, hst_backend *be, int grad, const gpar *g, int in, int out,
                      uint64_t N, int declared)
{
    static size_t count;
    const char *const *src = hst_kernels_stream_source(&count);
    memset(st, 0, sizeof *st);
    st->name = grad ? "grad3" : "div3";
    if (declared) {
        st->family = hst_kernels_stream_family();
        st->family_kernel = grad ? HST_KSTREAM_GRAD3 : HST_KSTREAM_DIV3;
    } else {
        st->sources = src;
        st->num_sources = count;
        st->kernel = grad ? "hst_k_grad3" : "hst_k_div3";
        st->host = grad ? grad_host : div_host;
    }
    st->options = hst_backend_device(be)->correctly_rounded_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : NULL;
    st->num_inputs = 1; st->inputs = &IDX[in];
    st->num_outputs = 1; st->outputs = &IDX[out];
    st->num_scalars = 2;
    st->scalar_bytes[0] = 4; st->scalars[0] = &g->H;
    st->scalar_bytes[1] = 4; st->scalars[1] = &g->W;
    st->halo_lo = !grad && N > 1;
    st->halo_hi = grad && N > 1;
    st->items_per_slice = (size_t)g->H * g->W;
}

static void test_grad_div_streamed(void **state)
{
    static const uint64_t Ns[] = {1, 2, 3, 7, 13};
    fixture *f = FIX(state);
    gpar g;
    unsigned ni, k, rep;
    rng_seed(777);
    g.H = 5; g.W = 7;
    for (ni = 0, k = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (rep = 0; rep < 4; rep++, k++) {
            uint64_t N = Ns[ni], B;
            size_t hw = (size_t)g.H * g.W, nv = (size_t)N * hw, at = 0;
            float *x = (float *)xmalloc(nv * 4), *q = (float *)xmalloc(3 * nv * 4);
            float *p = (float *)xmalloc(3 * nv * 4), *d = (float *)xmalloc(nv * 4), *lap = (float *)xmalloc(nv * 4);
            float *p_ref = (float *)xmalloc(3 * nv * 4), *d_ref = (float *)xmalloc(nv * 4);
            float *lap_ref = (float *)xmalloc(nv * 4), *tmp = (float *)xmalloc(3 * nv * 4);
            float *x0 = (float *)xmalloc(nv * 4), *q0 = (float *)xmalloc(3 * nv * 4);
            hst_stream_array arr[6];
            hst_stream_stage st[3];
            hst_stream_desc desc;
            hst_stream *s = NULL;
            hst_stream_report r;
            unsigned nbe = 1 + (k & 1);
            fill_random(x, nv);
            fill_random(q, 3 * nv);
            memcpy(x0, x, nv * 4);
            memcpy(q0, q, 3 * nv * 4);
            /* whole-volume twins */
            hst_k_grad3_host(x, p_ref, g.H, g.W, 0, 0, N, N);
            hst_k_div3_host(q, d_ref, g.H, g.W, 0, 0, N, N);
            hst_k_div3_host(p_ref, lap_ref, g.H, g.W, 0, 0, N, N);
            (void)tmp;
            /* x -> p (grad), q -> d (div), x -> P (TEMP grad) -> lap (div): one stream */
            memset(arr, 0, sizeof arr);
            arr[0].kind = HST_STREAM_INPUT;  arr[0].host = x;   arr[0].slice_bytes = hw * 4;
            arr[1].kind = HST_STREAM_OUTPUT; arr[1].host = p;   arr[1].slice_bytes = 3 * hw * 4;
            arr[2].kind = HST_STREAM_INPUT;  arr[2].host = q;   arr[2].slice_bytes = 3 * hw * 4;
            arr[3].kind = HST_STREAM_OUTPUT; arr[3].host = d;   arr[3].slice_bytes = hw * 4;
            arr[4].kind = HST_STREAM_TEMP;                      arr[4].slice_bytes = 3 * hw * 4;
            arr[5].kind = HST_STREAM_OUTPUT; arr[5].host = lap; arr[5].slice_bytes = hw * 4;
            /* declared kernels and kernels from sources, mixed in one chain, both ways */
            vol_stage(&st[0], f->be[0], 1, &g, 0, 1, N, (k >> 2) & 1);
            vol_stage(&st[1], f->be[0], 0, &g, 2, 3, N, !((k >> 2) & 1));
            memcpy(&st[2], &st[0], sizeof st[0]);     /* the chain: grad into TEMP ... */
            st[2].outputs = &IDX[4];
            {
                hst_stream_stage all[4];
                memcpy(all, st, 3 * sizeof st[0]);
                vol_stage(&all[3], f->be[0], 0, &g, 4, 5, N, (k >> 2) & 1);   /* ... then div of it */
                memset(&desc, 0, sizeof desc);
                desc.backends = f->be; desc.num_backends = nbe;
                desc.num_slices = N;
                desc.arrays = arr; desc.num_arrays = 6;
                desc.stages = all; desc.num_stages = 4;
                desc.block_slices = 1 + rng_below((unsigned)N + 1);
                desc.ring = 2 + rng_below(3);
                desc.reverse = (int)((k >> 1) & 1);
                B = desc.block_slices < N ? desc.block_slices : N;
                snprintf(cfg, sizeof cfg, "grad/div N=%llu block=%llu ring=%u %s devices=%u %s",
                         (unsigned long long)N, (unsigned long long)desc.block_slices, desc.ring,
                         desc.reverse ? "reverse" : "forward", nbe, (k >> 2) & 1 ? "grad declared" : "div declared");
                assert_int_equal(hst_stream_create(&desc, &s), HST_SUCCESS);
            }
            memset(p, 0xff, 3 * nv * 4); memset(d, 0xff, nv * 4); memset(lap, 0xff, nv * 4);
            assert_int_equal(hst_stream_run(s, &r), HST_SUCCESS);
            check_report_complete(&r, N, nbe, B);
            if (!bits_equal_f(p, p_ref, 3 * nv, &at)) { print_error("%s: grad differs at %zu\n", cfg, at); fail(); }
            if (!bits_equal_f(d, d_ref, nv, &at)) { print_error("%s: div differs at %zu\n", cfg, at); fail(); }
            if (!bits_equal_f(lap, lap_ref, nv, &at)) { print_error("%s: div grad differs at %zu\n", cfg, at); fail(); }
            assert_memory_equal(x, x0, nv * 4);
            assert_memory_equal(q, q0, 3 * nv * 4);
            /* adjointness from the streamed outputs: <grad x, q> = -<x, div q> */
            {
                double a = 0.0, b = 0.0, scale = 0.0;
                size_t i;
                for (i = 0; i < 3 * nv; i++) { a += (double)p[i] * (double)q[i]; scale += fabs((double)p[i] * (double)q[i]); }
                for (i = 0; i < nv; i++) { b += (double)x[i] * (double)d[i]; scale += fabs((double)x[i] * (double)d[i]); }
                if (!(fabs(a + b) <= 1e-5 * fabs(a) || (N == 1 && fabs(a + b) <= 1e-5 * scale))) {
                    print_error("%s: <grad x, q> = %.17g, -<x, div q> = %.17g\n", cfg, a, -b);
                    fail();
                }
                if (N > 1) assert_true(fabs(a) > 1e-3);   /* not vacuous */
            }
            hst_stream_destroy(s);
            free(x); free(q); free(p); free(d); free(lap); free(p_ref); free(d_ref); free(lap_ref);
            free(tmp); free(x0); free(q0);
        }
}

/* ============================================================================================
   Accumulators: PyQMRI's failing cases (N=16, block 4, halo 1; N=20, block 4, two devices), every
   direction, ring and device count: the totals are the whole-array per-slice sums in slice
   order (bitwise with fp64), each slice counted once. */
static void test_accumulators_pyqmri(void **state)
{
    fixture *f = FIX(state);
    unsigned k;
    rng_seed(4242);
    for (k = 0; k < 16; k++) {
        chain c;
        hst_stream_desc d;
        int x, y, t;
        uint64_t N = k < 8 ? 16 : 20;
        unsigned nbe = 1u + ((k & 1) == 0 || k >= 8 ? 1u : 0u) - (k >= 8 && (k & 1) ? 1u : 0u);
        ch_init(&c, N, 64);
        x = ch_array(&c, HST_STREAM_INPUT);
        if (k & 2) {   /* through a TEMP (PyQMRI's connectouttoin) */
            t = ch_array(&c, HST_STREAM_TEMP);
            y = ch_array(&c, HST_STREAM_OUTPUT);
            ch_wsum(&c, x, t, 1, 1);
            ch_wsum(&c, t, y, 0, 0);
            ch_acc(&c, HST_STREAM_DIFF2, HST_F32, t, x);
        } else {
            y = ch_array(&c, HST_STREAM_OUTPUT);
            ch_wsum(&c, x, y, 1, 1);
        }
        ch_acc(&c, HST_STREAM_DIFF2, HST_F32, y, x);   /* evalwithnorm */
        ch_acc(&c, HST_STREAM_SQSUM, HST_F32, y, 0);
        ch_acc(&c, HST_STREAM_SUM, HST_F32, x, 0);
        ch_acc(&c, HST_STREAM_DIFF2, HST_C64, y, x);
        ch_reference(&c);
        {   /* the reference itself: each slice once, against a naive double sum */
            size_t i;
            double naive = 0.0;
            for (i = 0; i < ch_elems(&c); i++) {
                double e = (double)c.ref[y][i] - (double)c.ref[x][i];
                naive += e * e;
            }
            assert_true(fabs(naive - c.acc_ref[(k & 2) ? 1 : 0]) <= 1e-9 * naive);
        }
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = 4;
        d.ring = 2 + (k % 3);
        d.reverse = (int)((k >> 2) & 1);
        snprintf(cfg, sizeof cfg, "pyqmri N=%llu block 4 halo 1 ring=%u %s devices=%u%s", (unsigned long long)N,
                 d.ring, d.reverse ? "reverse" : "forward", nbe, (k & 2) ? " via TEMP" : "");
        run_and_check(f, &c, &d, 4, 2);
        ch_free(&c);
    }
}

/* ============================================================================================
   Accumulators in f64 and c128 (PyQMRI's DTYPE complex128 / DTYPE_real float64 runs): two
   INPUT arrays holding doubles (53-bit random values in [-1, 1)) beside the float chain, SUM,
   SQSUM and DIFF2 of both types; the totals are the twins' per-slice sums in slice order bit
   for bit, and within 1e-12 of a naive sum in double written here (another order). A device
   without fp64 refuses them at create (HST_ERROR_DTYPE, naming the accumulator). */
static double rng_double(void)
{
    return (double)((int64_t)(rng_next() >> 11) - ((int64_t)1 << 52)) / (double)((int64_t)1 << 52);
}

/* sum over the array of the term of `kind` (1 SUM: x or re; 2 SQSUM; 3 DIFF2), complex when cplx */
static double naive_acc(const double *a, const double *b, size_t n, int kind, int cplx)
{
    size_t i, step = cplx ? 2 : 1;
    double t = 0.0;
    for (i = 0; i < n; i += step) {
        double re = a[i] - (kind == 3 ? b[i] : 0.0);
        double im = cplx ? a[i + 1] - (kind == 3 ? b[i + 1] : 0.0) : 0.0;
        t += kind == 1 ? a[i] : re * re + im * im;
    }
    return t;
}

static void test_accumulators_f64_c128(void **state)
{
    fixture *f = FIX(state);
    unsigned k, i;
    rng_seed(6464);
    for (k = 0; k < 4; k++) {
        chain c;
        hst_stream_desc d;
        hst_stream *s = NULL;
        int x, y, p, q;
        unsigned nbe = 1 + (k & 1);
        size_t n, j;
        ch_init(&c, 20, 64);
        x = ch_array(&c, HST_STREAM_INPUT);
        y = ch_array(&c, HST_STREAM_OUTPUT);
        p = ch_array(&c, HST_STREAM_INPUT);
        q = ch_array(&c, HST_STREAM_INPUT);
        ch_wsum(&c, x, y, 1, 1);
        n = ch_elems(&c) / 2;   /* doubles per array */
        for (j = 0; j < n; j++) {
            ((double *)c.init[p])[j] = rng_double();
            ((double *)c.init[q])[j] = rng_double();
        }
        memcpy(c.host[p], c.init[p], n * sizeof(double));
        memcpy(c.host[q], c.init[q], n * sizeof(double));
        ch_acc(&c, HST_STREAM_SUM, HST_F64, p, 0);
        ch_acc(&c, HST_STREAM_SQSUM, HST_F64, q, 0);
        ch_acc(&c, HST_STREAM_DIFF2, HST_F64, p, q);
        ch_acc(&c, HST_STREAM_SUM, HST_C128, q, 0);
        ch_acc(&c, HST_STREAM_SQSUM, HST_C128, p, 0);
        ch_acc(&c, HST_STREAM_DIFF2, HST_C128, q, p);
        ch_acc(&c, HST_STREAM_DIFF2, HST_F32, y, x);   /* beside the float ones */
        ch_reference(&c);
        for (i = 0; i + 1 < c.nacc; i++) {   /* the twins' totals against the naive sums */
            const hst_stream_acc *a = &c.acc[i];
            double want = naive_acc((const double *)c.init[a->a],
                                    (const double *)c.init[a->kind == HST_STREAM_DIFF2 ? a->b : a->a], n,
                                    (int)a->kind, a->dtype == HST_C128);
            assert_true(fabs(c.acc_ref[i] - want) <= 1e-12 * (fabs(want) + 1.0));
        }
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = 4;
        d.reverse = (int)((k >> 1) & 1);
        if (!fp64_all(d.backends, nbe)) {
            assert_refused(hst_stream_create(&d, &s), HST_ERROR_DTYPE, &f->log[0], HST_LOGITEM_DTYPE,
                           "accumulators[0].dtype f64");
            assert_null(s);
            ch_free(&c);
            continue;
        }
        snprintf(cfg, sizeof cfg, "f64/c128 accumulators devices=%u %s", nbe, d.reverse ? "reverse" : "forward");
        run_and_check(f, &c, &d, 4, 2);
        ch_free(&c);
    }
}

/* ============================================================================================
   The caller's queues (PyQMRI's `queue` argument): a stream made on three queues of the
   caller's, then on one queue in all three roles, gives the whole-array results bit for bit.
   On an OpenCL device a barrier the caller put on its upload queue, waiting on a user event
   that another thread completes after 300 ms, holds the stream's uploads back: the run returns
   only after that thread set its flag, so the stream enqueued there. NULLs are refused; a
   queue of another backend (another context) too. The host device runs every block within
   the call: its queues are checked and not used. */
typedef struct gate {
    hst_event ev;
    volatile int set;
} gate;

static void *open_gate(void *arg)
{
    gate *g = (gate *)arg;
    struct timespec t = {0, 300 * 1000 * 1000};
    nanosleep(&t, NULL);
    g->set = 1;
    if (hst_user_event_set(g->ev, HST_EVENT_COMPLETE) != HST_SUCCESS) g->set = 2;
    return NULL;
}

static void test_caller_queues(void **state)
{
    fixture *f = FIX(state);
    hst_queue *own[3], *q[3], *other = NULL;
    hst_stream *s = NULL;
    hst_stream_desc d;
    chain c;
    unsigned k;
    rng_seed(777);
    build_chain(&c, 2, 16, 32);
    ch_reference(&c);
    for (k = 0; k < 3; k++) assert_int_equal(hst_queue_create(f->be[0], &own[k]), HST_SUCCESS);
    for (k = 0; k < 2; k++) {   /* three queues, then one in every role */
        q[0] = own[0]; q[1] = own[k ? 0 : 1]; q[2] = own[k ? 0 : 2];
        d = ch_desc(&c, f->be, 1);
        d.block_slices = 4;
        d.queues = q;
        snprintf(cfg, sizeof cfg, "caller's queues (%s)", k ? "one in every role" : "three");
        run_and_check(f, &c, &d, 4, 2);
    }
    if (!IS_HOST(f)) {
        gate g;
        pthread_t th;
        hst_stream_report rep;
        q[0] = own[0]; q[1] = own[1]; q[2] = own[2];
        d = ch_desc(&c, f->be, 1);
        d.block_slices = 4;
        d.queues = q;
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        ch_reset(&c);
        g.set = 0;
        assert_int_equal(hst_user_event_create(f->be[0], &g.ev), HST_SUCCESS);
        assert_int_equal(hst_queue_barrier(own[0], 1, &g.ev, NULL), HST_SUCCESS);
        assert_int_equal(pthread_create(&th, NULL, open_gate, &g), 0);
        assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
        assert_int_equal(g.set, 1);
        assert_int_equal(pthread_join(th, NULL), 0);
        hst_event_release(g.ev);
        ch_check_arrays(&c);
        ch_check_accs(&c, &rep, fp64_all(f->be, 1));
        hst_stream_destroy(s);
        s = NULL;
        /* a queue of the other backend: the same device, another context */
        assert_int_equal(hst_queue_create(f->be[1], &other), HST_SUCCESS);
        q[1] = other;
        assert_refused(hst_stream_create(&d, &s), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_BAD_ARGUMENT, "queues[1]");
        assert_null(s);
        hst_queue_destroy(other);
    }
    q[0] = own[0]; q[1] = own[1]; q[2] = NULL;
    d = ch_desc(&c, f->be, 1);
    d.queues = q;
    assert_refused(hst_stream_create(&d, &s), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                   HST_LOGITEM_NULL_ARGUMENT, "queues[2] is NULL");
    assert_null(s);
    for (k = 0; k < 3; k++) hst_queue_destroy(own[k]);
    ch_free(&c);
}

/* ============================================================================================
   Cancellation: the progress callback cancels after its k-th call. HST_ERROR_CANCELLED; the
   report's done ranges are exactly the output slices written (inside: the reference; outside:
   untouched); inputs unchanged; the stream runs again completely afterwards. */
static int in_done(const hst_stream_report *rep, unsigned nbe, uint64_t z)
{
    unsigned d;
    for (d = 0; d < nbe; d++)
        if (z >= rep->done_begin[d] && z < rep->done_end[d]) return 1;
    return 0;
}

static void test_cancel(void **state)
{
    fixture *f = FIX(state);
    unsigned k;
    rng_seed(99);
    for (k = 0; k < 24; k++) {
        chain c;
        hst_stream_desc d;
        hst_stream *s = NULL;
        hst_stream_report rep;
        prog p;
        unsigned nbe = 1 + (k & 1), cancel_at = 1 + (k >> 3), a, dv;
        uint64_t N = 31, B = 2, z, done = 0;
        hst_result r;
        build_chain(&c, 2, N, 16);
        ch_reference(&c);
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = B;
        d.ring = 2 + ((k >> 2) & 1);
        d.reverse = (int)((k >> 1) & 1);
        memset(&p, 0, sizeof p);
        p.cancel_at = cancel_at;
        d.progress = prog_fn;
        d.progress_user = &p;
        snprintf(cfg, sizeof cfg, "cancel after %u: ring=%u %s devices=%u", cancel_at, d.ring,
                 d.reverse ? "reverse" : "forward", nbe);
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        r = hst_stream_run(s, &rep);
        assert_int_equal(r, HST_ERROR_CANCELLED);
        assert_false(p.bad);
        assert_true(p.calls >= cancel_at);
        assert_int_equal(p.last, rep.slices_done);
        for (dv = 0; dv < nbe; dv++) {
            assert_true(rep.done_begin[dv] <= rep.done_end[dv]);
            assert_true(rep.done_begin[dv] >= rep.range_begin[dv]);
            assert_true(rep.done_end[dv] <= rep.range_end[dv]);
            if (rep.done_end[dv] > rep.done_begin[dv]) {   /* done from the walk's start */
                if (d.reverse) assert_int_equal(rep.done_end[dv], rep.range_end[dv]);
                else assert_int_equal(rep.done_begin[dv], rep.range_begin[dv]);
            }
            done += rep.done_end[dv] - rep.done_begin[dv];
        }
        assert_int_equal(done, rep.slices_done);
        assert_true(rep.slices_done >= cancel_at * B);
        assert_true(rep.slices_done < N);
        if (IS_HOST(f)) assert_int_equal(rep.slices_done, cancel_at * B);   /* no blocks in flight */
        for (a = 0; a < c.narr; a++) {
            size_t sl = c.E;
            if (!c.host[a]) continue;
            for (z = 0; z < N; z++) {
                const float *want = c.arr[a].kind == HST_STREAM_INPUT || !in_done(&rep, nbe, z)
                                  ? c.init[a] : c.ref[a];
                if (memcmp(c.host[a] + z * sl, want + z * sl, sl * 4) != 0) {
                    print_error("%s: array %u kind %d slice %llu (%s the done ranges) wrong\n", cfg, a,
                                (int)c.arr[a].kind, (unsigned long long)z, in_done(&rep, nbe, z) ? "in" : "outside");
                    fail();
                }
            }
        }
        /* the stream is usable after a cancelled run */
        p.cancel_at = 0;
        ch_reset(&c);
        memset(&p, 0, sizeof p);
        assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
        ch_check_arrays(&c);
        ch_check_accs(&c, &rep, fp64_all(f->be, nbe));
        check_report_complete(&rep, N, nbe, B);
        hst_stream_destroy(s);
        ch_free(&c);
    }
}

/* A host twin's error stops the run and is returned (the host device runs the twins). */
static int twin_calls;
static hst_result failing_host(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                               void *user)
{
    (void)user;
    if (++twin_calls == 3) return HST_ERROR_IO;
    return wsum_host(arrays, scalars, blk, NULL);
}

static void test_host_twin_error(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    if (!IS_HOST(f)) { skip(); return; }
    rng_seed(5);
    build_chain(&c, 0, 10, 8);
    c.st[0].host = failing_host;
    d = ch_desc(&c, f->be, 1);
    d.block_slices = 2;
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    twin_calls = 0;
    assert_int_equal(hst_stream_run(s, &rep), HST_ERROR_IO);
    assert_int_equal(twin_calls, 3);
    assert_int_equal(rep.slices_done, 4);
    hst_stream_destroy(s);
    ch_free(&c);
}

/* ============================================================================================
   Creation errors: result codes AND log items (through the first backend's logger). */
#define EXPECT_CREATE_FAIL(f, d, code, item, text) do {                                       \
        hst_stream *s_ = (hst_stream *)&s_;                                                   \
        cap_reset(&(f)->log[0]);                                                              \
        assert_refused(hst_stream_create(&(d), &s_), (code), &(f)->log[0], (item), (text));   \
        assert_null(s_);                                                                      \
    } while (0)

static void expect_create_ok(fixture *f, const hst_stream_desc *d, uint64_t B)
{
    hst_stream *s = NULL;
    hst_result r = hst_stream_create(d, &s);
    if (r != HST_SUCCESS) {
        print_error("create: %s (%s)\n", hst_result_string(r), f->log[0].last_message);
        fail();
    }
    if (B) assert_int_equal(hst_stream_block_slices(s), B);
    hst_stream_destroy(s);
}

static void test_errors_arguments(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream_stage st;
    hst_stream_array arr;
    hst_stream *s = NULL;
    double w[2] = {1.0, 0.0};
    rng_seed(11);
    build_chain(&c, 1, 3, 8);   /* x -> T -> y, N = 3 */

    /* halos of N - 1, N and far beyond (either side, both stages) are accepted: slices outside
       [0, N) are never loaded (results: test_small_n_halos) */
    d = ch_desc(&c, f->be, 1);
    st = c.st[1];
    c.st[1].halo_lo = 2; c.st[1].halo_hi = 2;
    expect_create_ok(f, &d, 0);
    c.st[1].halo_lo = 3; c.st[1].halo_hi = 0xffffffffu;
    c.st[0].halo_hi = 0xffffffffu;
    expect_create_ok(f, &d, 0);
    c.st[1] = st; c.st[0].halo_hi = c.par[0].hi;

    /* zero slices */
    d.num_slices = 0;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "num_slices");
    d.num_slices = 3;

    /* array indices out of range: a stage input, a stage output, an accumulator */
    c.st[0].inputs = &IDX[3];
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "not an array index");
    c.st[0].inputs = &IDX[0];
    {
        static const int minus_one = -1;
        c.st[1].outputs = &minus_one;
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "not an array index");
        c.st[1].outputs = &IDX[2];
    }
    ch_acc(&c, HST_STREAM_DIFF2, HST_F32, 2, 7);
    d = ch_desc(&c, f->be, 1);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "out of range");
    c.nacc = 0;
    d = ch_desc(&c, f->be, 1);

    /* an OUTPUT (and a TEMP) read before any stage writes it */
    c.st[0].inputs = &IDX[2];   /* stage 0 reads y, which stage 1 writes later */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "before any stage writes it");
    c.st[0].inputs = &IDX[1];   /* stage 0 reads T, its own output (written by no earlier stage) */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "before any stage writes it");
    c.st[0].inputs = &IDX[0];

    /* a stage writing an INPUT (a stage without host twin: test_no_host_twin) */
    c.st[1].outputs = &IDX[0];
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "INPUT");
    c.st[1].outputs = &IDX[2];

    /* an OpenCL stage without sources or kernel name */
    if (!IS_HOST(f)) {
        c.st[0].kernel = NULL;
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "kernel");
        c.st[0].kernel = "wsum";
    }
    /* items_per_slice 0, a NULL scalar, no bindings */
    c.st[0].items_per_slice = 0;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "items_per_slice");
    c.st[0].items_per_slice = c.E;
    c.st[0].scalars[2] = NULL;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "scalars");
    c.st[0].scalars[2] = &c.par[0].hi;
    c.st[0].num_inputs = 0; c.st[0].num_outputs = 0;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "binds no array");
    c.st[0].num_inputs = 1; c.st[0].num_outputs = 1;

    /* ring 1 and ring > 8; weights <= 0; arrays: TEMP with memory, host and pinned both/neither,
       slice_bytes 0, kind out of range */
    d.ring = 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ring");
    d.ring = 9;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "ring");
    d.ring = 0;
    d.num_backends = 2; d.weights = w;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "weights");
    d.num_backends = 1; d.weights = NULL;
    arr = c.arr[1];
    c.arr[1].host = c.host[0];
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "TEMP");
    c.arr[1] = arr;
    arr = c.arr[0];
    c.arr[0].host = NULL;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "exactly one");
    c.arr[0].slice_bytes = 0; c.arr[0].host = c.host[0];
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, "slice_bytes");
    c.arr[0] = arr;
    c.arr[0].kind = (hst_stream_kind)9;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "kind");
    c.arr[0] = arr;

    /* the backends: a NULL entry; host and OpenCL mixed */
    {
        hst_backend *two[2];
        two[0] = f->be[0]; two[1] = NULL;
        d.backends = two; d.num_backends = 2;
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "NULL");
#ifndef HST_NO_OPENCL
        if (!IS_HOST(f)) {
            hst_backend_desc bd;
            memset(&bd, 0, sizeof bd);
            bd.device = "host";
            bd.logger = cap_logger; bd.log_user = &f->log[1];
            assert_int_equal(hst_backend_create(&bd, &two[1]), HST_SUCCESS);
            EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "mix");
            assert_int_equal(hst_backend_destroy(two[1]), HST_SUCCESS);
        }
#endif
        d = ch_desc(&c, f->be, 1);
    }
    /* NULL arguments */
    assert_int_equal(hst_stream_create(&d, NULL), HST_ERROR_INVALID_ARGUMENT);
    s = (hst_stream *)&s;
    assert_int_equal(hst_stream_create(NULL, &s), HST_ERROR_INVALID_ARGUMENT);
    assert_null(s);
    assert_int_equal(hst_stream_run(NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_set_array(NULL, 0, c.host[0], NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_block_slices(NULL), 0);
    hst_stream_destroy(NULL);

    /* after all that, the unchanged description still works */
    expect_create_ok(f, &d, 3);
    ch_free(&c);
}

/* Accumulators of different slice sizes, and slices that are not whole c64 elements:
   HST_ERROR_SHAPE; a kind or dtype out of range: HST_ERROR_INVALID_ARGUMENT. */
static void test_errors_shapes(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream_array arr;
    hst_buffer *small = NULL;
    rng_seed(12);
    build_chain(&c, 1, 4, 6);    /* E = 6 floats: 3 complex elements */
    d = ch_desc(&c, f->be, 1);
    c.arr[1].slice_bytes = 8 * 4;   /* T: 8 floats per slice, y and x 6 */
    c.st[0].items_per_slice = 6;
    ch_acc(&c, HST_STREAM_DIFF2, HST_F32, 1, 0);
    d = ch_desc(&c, f->be, 1);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "slice size");
    c.arr[1].slice_bytes = 6 * 4;
    c.nacc = 0;
    ch_acc(&c, HST_STREAM_DIFF2, HST_F32, 2, 0);    /* same sizes: fine */
    d = ch_desc(&c, f->be, 1);
    expect_create_ok(f, &d, 0);
    c.nacc = 0;
    c.E = 5; c.arr[0].slice_bytes = c.arr[1].slice_bytes = c.arr[2].slice_bytes = 5 * 4;
    ch_acc(&c, HST_STREAM_SQSUM, HST_C64, 2, 0);    /* 5 floats: not whole complex elements */
    d = ch_desc(&c, f->be, 1);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "c64");
    c.acc[0].dtype = HST_F64;                       /* 5 floats: not whole doubles either */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "f64");
    c.acc[0].dtype = HST_I32;                       /* f32, c64, f64, c128 only */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "dtype");
    c.acc[0].dtype = HST_F32;
    c.acc[0].kind = (hst_stream_acc_kind)7;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "kind");
    c.E = 6; c.arr[0].slice_bytes = c.arr[1].slice_bytes = c.arr[2].slice_bytes = 6 * 4;
    c.nacc = 0;
    d = ch_desc(&c, f->be, 1);

    /* a pinned buffer too small for N slices: HST_ERROR_SHAPE */
    assert_int_equal(hst_pinned_create(f->be[0], 4 * 6 * 4 - 4, &small), HST_SUCCESS);
    arr = c.arr[0];
    c.arr[0].host = NULL; c.arr[0].pinned = small;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "pinned");
    c.arr[0] = arr;
    hst_buffer_destroy(small);
    ch_free(&c);
}

/* Aliasing: an OUTPUT sharing memory with an INPUT read with a halo is refused (also when the
   halo is a later stage's, through the chained extents, and for a partial overlap); an INOUT
   read beyond its owned slices is refused; halo 0 in place is accepted and correct. */
static void test_errors_aliasing(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    float *buf;
    uint64_t N = 9;
    uint32_t E = 8;
    rng_seed(13);

    /* y == x, halo 1: refused */
    build_chain(&c, 0, N, E);
    c.st[0].halo_lo = 1; c.par[0].lo = 1; c.st[0].halo_hi = 0; c.par[0].hi = 0;
    c.arr[1].host = c.host[0];
    d = ch_desc(&c, f->be, 1);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "overlaps");
    /* y one slice past x (partial overlap), halo_hi 1: refused */
    buf = (float *)xmalloc((size_t)(N + 1) * E * 4);
    memcpy(buf, c.init[0], (size_t)N * E * 4);
    c.arr[0].host = buf; c.arr[1].host = buf + E;
    c.st[0].halo_lo = 0; c.par[0].lo = 0; c.st[0].halo_hi = 1; c.par[0].hi = 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "overlaps");
    /* y == x, halo 0: accepted, and the in-place result is the whole-array one */
    c.st[0].halo_hi = 0; c.par[0].hi = 0;
    c.arr[0].host = c.host[0]; c.arr[1].host = c.host[0];
    d.block_slices = 2;
    d.reverse = 1;
    {
        hst_stream *s = NULL;
        size_t at = 0;
        ch_reference(&c);
        memcpy(c.host[0], c.init[0], (size_t)N * E * 4);
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
        if (!bits_equal_f(c.host[0], c.ref[1], (size_t)N * E, &at)) {
            print_error("in-place halo 0: element %zu differs\n", at);
            fail();
        }
        hst_stream_destroy(s);
    }
    ch_free(&c);
    free(buf);

    /* x -> T with halo 0, T -> y with halo 1, y == x: stage 0 reads x beyond the owned
       slices (the chained extent): refused */
    build_chain(&c, 1, N, E);
    c.st[0].halo_lo = c.st[0].halo_hi = 0; c.par[0].lo = c.par[0].hi = 0;
    c.st[1].halo_lo = 1; c.st[1].halo_hi = 0; c.par[1].lo = 1; c.par[1].hi = 0;
    c.arr[2].host = c.host[0];
    d = ch_desc(&c, f->be, 1);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "overlaps");
    c.arr[2].host = c.host[2];
    expect_create_ok(f, &d, 0);
    ch_free(&c);

    /* an INOUT updated in place by a stage with a halo on its inputs: accepted (an output is
       read only at the slices being computed, here the owned ones) */
    {
        int x, u, y;
        ch_init(&c, N, E);
        x = ch_array(&c, HST_STREAM_INPUT);
        u = ch_array(&c, HST_STREAM_INOUT);
        y = ch_array(&c, HST_STREAM_OUTPUT);
        ch_upd(&c, x, u);
        c.st[0].halo_hi = 1;
        d = ch_desc(&c, f->be, 1);
        expect_create_ok(f, &d, 0);
        /* halo 0 there, but a later stage reads u with a halo: u would be needed beyond the
           owned slices (the extent): refused */
        c.st[0].halo_hi = 0;
        ch_wsum(&c, u, y, 1, 1);
        d = ch_desc(&c, f->be, 1);
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "INOUT");
        c.st[1].halo_lo = c.st[1].halo_hi = 0; c.par[1].lo = c.par[1].hi = 0;
        expect_create_ok(f, &d, 0);
        ch_free(&c);
    }
}

/* The budget (OpenCL devices; the host device has no ring): too small for one block ->
   HST_ERROR_OUT_OF_DEVICE_MEMORY whose message gives the minimum; exactly the minimum -> one
   slice per block; a fixed block larger than the budget allows -> refused with the maximum. */
static void test_errors_budget(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    uint64_t need;
    char num[32];
    int fp64 = fp64_all(f->be, 1);
    NEED_OPENCL(f);
    rng_seed(14);
    build_chain(&c, 1, 12, 16);
    ch_acc(&c, HST_STREAM_SQSUM, HST_F32, 2, 0);
    d = ch_desc(&c, f->be, 1);
    d.ring = 3;
    need = budget_for(&c, 1, 3, fp64);
    snprintf(num, sizeof num, "%llu", (unsigned long long)need);
    d.budget_bytes = need - 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "at least");
    if (!contains_nocase(f->log[0].last_message, num)) {
        print_error("budget message \"%s\" lacks the minimum %s\n", f->log[0].last_message, num);
        fail();
    }
    d.budget_bytes = need;
    expect_create_ok(f, &d, 1);
    d.budget_bytes = budget_for(&c, 5, 3, fp64);
    expect_create_ok(f, &d, 5);
    d.block_slices = 6;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "at most 5");
    d.block_slices = 5;
    expect_create_ok(f, &d, 5);
    d.block_slices = c.N + 5;   /* more than N: N does not fit, and create refuses it too */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "does not fit");
    /* two devices: each must hold the ring */
    d = ch_desc(&c, f->be, 2);
    d.ring = 3;
    d.budget_bytes = need - 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "at least");
    ch_free(&c);
}

/* hst_stream_block_query answers what create takes, without refusals: the default block (the
   create's), a caller's block within the budget as given, one over it clipped to the largest
   (create refuses that one: the answer is what to ask), the bytes one device holds (the ring and
   the accumulators' slices, budget_for's count), nothing logged on any of these; a budget below
   one block is the create's refusal. On the host device: the whole array unless a budget. */
static void expect_query(fixture *f, const hst_stream_desc *d, uint64_t B, uint64_t largest, uint64_t bytes)
{
    hst_stream_block_info bi;
    hst_result r;
    cap_reset(&f->log[0]);
    r = hst_stream_block_query(d, &bi);
    if (r != HST_SUCCESS) {
        print_error("query: %s (%s)\n", hst_result_string(r), f->log[0].last_message);
        fail();
    }
    assert_int_equal(f->log[0].total, 0);
    assert_int_equal(bi.block_slices, B);
    assert_int_equal(bi.largest_slices, largest);
    if (bytes) assert_int_equal(bi.device_bytes, bytes);
}

static void test_block_query(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream_block_info bi;
    hst_stream *s = NULL;
    uint64_t B, h;
    int fp64 = fp64_all(f->be, 1);
    rng_seed(15);
    build_chain(&c, 1, 12, 16);
    ch_acc(&c, HST_STREAM_SQSUM, HST_F32, 2, 0);
    d = ch_desc(&c, f->be, 1);
    d.ring = 3;
    if (IS_HOST(f)) {
        expect_query(f, &d, c.N, c.N, 0);
        d.block_slices = 4;
        expect_query(f, &d, 4, c.N, 0);
        ch_free(&c);
        return;
    }
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);   /* the default: create's, the ring */
    B = hst_stream_block_slices(s);                             /* clipped to the N slices */
    h = ch_halo(&c) < c.N - 1 ? ch_halo(&c) : c.N - 1;
    expect_query(f, &d, B, c.N, budget_for(&c, B + h > c.N ? c.N - h : B, 3, fp64));
    hst_stream_destroy(s);
    d.budget_bytes = budget_for(&c, 5, 3, fp64);
    d.block_slices = 3;
    expect_query(f, &d, 3, 5, budget_for(&c, 3, 3, fp64));
    d.block_slices = 9;   /* over the budget: the largest that fits, and create takes that */
    expect_query(f, &d, 5, 5, budget_for(&c, 5, 3, fp64));
    d.block_slices = 5;
    expect_create_ok(f, &d, 5);
    d.block_slices = c.N + 5;   /* "all N" over the budget: the largest, which create refuses too */
    expect_query(f, &d, 5, 5, budget_for(&c, 5, 3, fp64));
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "does not fit");
    d.budget_bytes = budget_for(&c, 1, 3, fp64) - 1;
    cap_reset(&f->log[0]);
    assert_refused(hst_stream_block_query(&d, &bi), HST_ERROR_OUT_OF_DEVICE_MEMORY, &f->log[0],
                   HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "at least");
    assert_int_equal(bi.block_slices, 0);
    cap_reset(&f->log[0]);
    assert_refused(hst_stream_block_query(&d, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                   HST_LOGITEM_NULL_ARGUMENT, "info");
    ch_free(&c);
}

/* ============================================================================================
   No leaks: one stream run 1,000 times, then 100 streams created, run and destroyed. Device
   bytes, pool statistics, live OpenCL events, memory objects, queues, kernels and programs
   (counted by the interposed calls) and the contexts' reference counts are the same before and
   after. (The context's reference count is what any implementation lets us observe, but it is not
   enough alone: in PoCL memory objects and queues hold a reference on their context and events
   do NOT — a live event leaves CL_CONTEXT_REFERENCE_COUNT unchanged — so leaked events show only
   in the interposed counts, which count every event handed out and released.) */
typedef struct snapshot {
    uint64_t bytes[2];
    hst_pool_stats pool[2];
    cl_counts cl;
    unsigned ctx_refs[2];
} snapshot;

#ifdef COUNTING_CL
static unsigned ctx_refs(hst_backend *be)
{
    cl_uint n = 0;
    assert_int_equal(clGetContextInfo(hst_backend_cl_context(be), CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}
#endif

/* target NULL: wait until the context reference counts hold still (5 reads 10 ms apart); else
   until they equal target's. At most 5 s: PoCL drops some context references from its worker
   threads some time after the commands and objects holding them are gone (slow under ASan). */
static void take_snapshot(fixture *f, snapshot *s, const snapshot *target)
{
    int i;
    (void)target;
    memset(s, 0, sizeof *s);
    for (i = 0; i < 2; i++) {
        s->bytes[i] = hst_backend_device_bytes(f->be[i]);
        s->pool[i] = hst_pool_get_stats(hst_backend_pool(f->be[i]));
#ifdef COUNTING_CL
        if (!IS_HOST(f)) {
            unsigned still = 0, tries;
            struct timespec ts;
            ts.tv_sec = 0; ts.tv_nsec = 10 * 1000 * 1000;
            assert_int_equal(hst_queue_finish(hst_backend_queue(f->be[i])), HST_SUCCESS);
            s->ctx_refs[i] = ctx_refs(f->be[i]);
            for (tries = 0; tries < 500; tries++) {
                unsigned n;
                if (target ? s->ctx_refs[i] == target->ctx_refs[i] : still >= 5) break;
                nanosleep(&ts, NULL);
                n = ctx_refs(f->be[i]);
                still = n == s->ctx_refs[i] ? still + 1 : 0;
                s->ctx_refs[i] = n;
            }
        }
#endif
    }
    s->cl = live;
}

static void assert_same_snapshot(const snapshot *a, const snapshot *b, const char *when)
{
    int i;
    int ok = 1;
    for (i = 0; i < 2; i++) {
        ok &= a->bytes[i] == b->bytes[i];
        ok &= a->pool[i].active_blocks == b->pool[i].active_blocks;
        ok &= a->pool[i].active_bytes == b->pool[i].active_bytes;
        ok &= a->pool[i].held_blocks == b->pool[i].held_blocks;
        ok &= a->pool[i].held_bytes == b->pool[i].held_bytes;
        ok &= a->ctx_refs[i] == b->ctx_refs[i];
    }
    ok &= memcmp(&a->cl, &b->cl, sizeof a->cl) == 0;
    if (!ok) {
        print_error("%s: device bytes %llu/%llu -> %llu/%llu, pool active %zu/%zu -> %zu/%zu, held %zu/%zu -> %zu/%zu, "
                    "context refs %u/%u -> %u/%u, live events %ld -> %ld, mems %ld -> %ld, queues %ld -> %ld, "
                    "kernels %ld -> %ld, programs %ld -> %ld\n", when,
                    (unsigned long long)a->bytes[0], (unsigned long long)a->bytes[1],
                    (unsigned long long)b->bytes[0], (unsigned long long)b->bytes[1],
                    a->pool[0].active_blocks, a->pool[1].active_blocks, b->pool[0].active_blocks, b->pool[1].active_blocks,
                    a->pool[0].held_blocks, a->pool[1].held_blocks, b->pool[0].held_blocks, b->pool[1].held_blocks,
                    a->ctx_refs[0], a->ctx_refs[1], b->ctx_refs[0], b->ctx_refs[1],
                    a->cl.events, b->cl.events, a->cl.mems, b->cl.mems, a->cl.queues, b->cl.queues,
                    a->cl.kernels, b->cl.kernels, a->cl.programs, b->cl.programs);
        fail();
    }
}

static void leak_chain(chain *c)
{
    rng_seed(15);
    /* x -> T -> y -> z, u = u/2 + z: two uploads (x, u) and three downloads (y, z, u) per
       block, TEMP, chained halos, three accumulators */
    build_chain(c, 2, 5, 8);
    c->st[0].halo_lo = 1; c->par[0].lo = 1; c->st[0].halo_hi = 0; c->par[0].hi = 0;
    c->st[1].halo_lo = 0; c->par[1].lo = 0; c->st[1].halo_hi = 1; c->par[1].hi = 1;
    c->st[2].halo_lo = 1; c->par[2].lo = 1; c->st[2].halo_hi = 1; c->par[2].hi = 1;
    ch_reference(c);
}

static void test_leaks_1000_runs(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    snapshot before, after;
    long made0;
    unsigned i, nbe = 2;
    leak_chain(&c);
    d = ch_desc(&c, f->be, nbe);
    d.block_slices = 2;
    d.ring = 2;
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);   /* the first run allocates nothing */
    take_snapshot(f, &before, NULL);
    made0 = made_events;
    for (i = 0; i < 1000; i++) {
        hst_result r;
        ch_reset(&c);   /* u is updated in place by every run */
        r = hst_stream_run(s, &rep);
        if (r != HST_SUCCESS) { print_error("run %u: %s\n", i, hst_result_string(r)); fail(); }
    }
    take_snapshot(f, &after, &before);
    assert_same_snapshot(&before, &after, "1000 runs");
    snprintf(cfg, sizeof cfg, "after 1000 runs");
    ch_check_arrays(&c);
    ch_check_accs(&c, &rep, fp64_all(f->be, nbe));
    check_report_complete(&rep, 5, nbe, 2);
#ifdef COUNTING_CL
    /* the counter saw the stream's events: at least an upload, a launch and a download per block */
    if (!IS_HOST(f)) assert_true(made_events - made0 >= 1000 * 3 * 3);
#endif
    (void)made0;
    hst_stream_destroy(s);
    ch_free(&c);
}

static void test_leaks_100_streams(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    snapshot before, after, during;
    unsigned i, nbe = 2;
    leak_chain(&c);
    d = ch_desc(&c, f->be, nbe);
    d.block_slices = 2;
    d.ring = 3;
    {   /* once first: programs built and cached by the backends, kernels run once (PoCL keeps
           a few context references after a program's first launches) */
        hst_stream *s = NULL;
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
        hst_stream_destroy(s);
    }
    take_snapshot(f, &before, NULL);
    for (i = 0; i < 100; i++) {
        hst_stream *s = NULL;
        hst_stream_report rep;
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        if (i == 0) {   /* a live stream is visible to the counters (they can fail) */
            take_snapshot(f, &during, NULL);
            if (!IS_HOST(f)) {
                assert_true(during.bytes[0] > before.bytes[0]);
#ifdef COUNTING_CL
                assert_true(during.cl.mems > before.cl.mems);
                assert_true(during.cl.queues >= before.cl.queues + 6);
#endif
            }
        }
        ch_reset(&c);
        assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
        hst_stream_destroy(s);
    }
    take_snapshot(f, &after, &before);
    assert_same_snapshot(&before, &after, "100 streams");
    snprintf(cfg, sizeof cfg, "100 streams");
    ch_check_arrays(&c);
    ch_free(&c);
}

/* ============================================================================================
   Pinned caller arrays (hst_pinned_create on the first backend) give the same results as
   pageable ones; hst_stream_set_array swaps arrays between runs and keeps its rules. */
static void test_pinned_arrays(void **state)
{
    fixture *f = FIX(state);
    unsigned k;
    rng_seed(16);
    for (k = 0; k < 8; k++) {
        chain c;
        hst_stream_desc d;
        unsigned nbe = 1 + (k & 1);
        uint64_t N = k < 4 ? 13 : 17;
        build_chain(&c, 2, N, 24);
        ch_reference(&c);
        if (k & 4) {   /* some pinned, some pageable */
            hst_buffer *pb = NULL;
            size_t bytes = ch_elems(&c) * 4;
            assert_int_equal(hst_pinned_create(f->be[0], bytes, &pb), HST_SUCCESS);
            memcpy(hst_buffer_host_ptr(pb), c.host[0], bytes);
            free(c.host[0]);
            c.pinned[0] = pb;
            c.host[0] = (float *)hst_buffer_host_ptr(pb);
            c.arr[0].host = NULL; c.arr[0].pinned = pb;
        } else {
            ch_pin(&c, f->be[0]);
        }
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = 1 + (k % 4);
        d.ring = 2 + (k % 3);
        d.reverse = (int)((k >> 1) & 1);
        snprintf(cfg, sizeof cfg, "pinned%s N=%llu block=%llu ring=%u %s devices=%u", (k & 4) ? " (x only)" : "",
                 (unsigned long long)N, (unsigned long long)d.block_slices, d.ring,
                 d.reverse ? "reverse" : "forward", nbe);
        run_and_check(f, &c, &d, d.block_slices, 2);
        ch_free(&c);
    }
}

/* The default block size (desc.block_slices = 0) on an OpenCL device, from the fixture's copy
   model (t0 = 10 us, BW = 10 GB/s): 4096 slices of 16 KiB in and out (c = 2 commands, w = 32 KiB
   per slice, halo 1) on a device whose memory holds the whole ring at B = N, so the old default
   was one block. The rule (stream.h's top comment) gives B_dma = 116, B_slots = 341 and
   B_fill = sqrt(4096 (2 t0 BW + 16384) / 32768) = 164: B = 164, 25 blocks, more than 4 per
   ring slot, each moving 5.4 MB (>= 19 c t0 BW = 3.8 MB). A
   short array keeps transfers large rather than blocks many (N = 64: one block of 64, since
   B_dma = 116 > N); a budget still bounds the block, and a caller's block_slices wins. */
static void test_default_block_rule(void **state)
{
    fixture *f = FIX(state);
    const hst_device_info *info;
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    uint64_t B, blocks, whole;
    double t0 = 0.0, bw = 0.0;
    NEED_OPENCL(f);
    info = hst_backend_device(f->be[0]);
    assert_int_equal(hst_stream_copy_model(f->be[0], &t0, &bw), HST_SUCCESS);
    assert_true(fabs(t0 - FIX_T0) <= 1e-12 && fabs(bw / FIX_BW - 1.0) <= 1e-9);
    ch_init(&c, 4096, 4096);
    c.narr = 2;   /* x and y, never touched: the stream is created, not run */
    c.arr[0].kind = HST_STREAM_INPUT;  c.arr[0].slice_bytes = 16384; c.arr[0].host = xmalloc((size_t)4096 * 16384);
    c.arr[1].kind = HST_STREAM_OUTPUT; c.arr[1].slice_bytes = 16384; c.arr[1].host = xmalloc((size_t)4096 * 16384);
    ch_wsum(&c, 0, 1, 0, 1);
    d = ch_desc(&c, f->be, 1);
    /* the device would hold the ring at B = N: within 3/4 of its memory and its largest allocation */
    whole = 3 * (c.N + 1) * 2 * 16384;
    assert_true(whole <= info->global_mem_bytes / 4 * 3 && (c.N + 1) * 16384 <= info->max_alloc_bytes);
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    B = hst_stream_block_slices(s);
    blocks = (c.N + B - 1) / B;
    assert_int_equal(B, 164);
    assert_true(blocks >= 4 * 3);
    assert_true((double)B * 2 * 16384 >= 19.0 * 2 * FIX_T0 * FIX_BW);
    hst_stream_destroy(s);
    d.ring = 2;   /* fewer slots: the same fill-optimal block (B_slots = 512) */
    expect_create_ok(f, &d, 164);
    d.ring = 0;
    d.num_slices = 64;   /* short: one block of all 64 (transfers stay >= 95% efficient) */
    expect_create_ok(f, &d, 64);
    d.num_slices = 4096;
    d.budget_bytes = 3 * (100 + 1) * 2 * 16384;   /* the budget holds B = 100 */
    expect_create_ok(f, &d, 100);
    d.budget_bytes = 0;
    d.block_slices = 7;   /* the caller's wins */
    expect_create_ok(f, &d, 7);
    free(c.arr[0].host);
    free(c.arr[1].host);
}

/* The copy model measured on a device that has none: both directions timed at both probe sizes
   (one median each, recorded exactly there), positive figures, nothing measured again on the
   next call; on the host device nothing to measure (0, 0). The figures' values are the
   machine's: only their presence and signs are asserted. */
static void test_copy_model_measured(void **state)
{
    fixture *f = FIX(state);
    static const int64_t sizes[2] = {HST_STREAM_COPY_SMALL_BYTES, HST_STREAM_COPY_LARGE_BYTES};
    hst_backend_desc bd;
    hst_choice_desc off;
    hst_backend *be = NULL;
    hst_choice_op *op;
    hst_choice_stat st[2];
    size_t count = 0;
    double t0 = -1.0, bw = -1.0;
    unsigned z, k;
    memset(&bd, 0, sizeof bd);
    bd.logger = cap_logger; bd.log_user = &f->log[1];
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    memset(&off, 0, sizeof off);
    off.path = "off";
    assert_int_equal(hst_choice_configure(be, &off), HST_SUCCESS);
    if (hst_backend_is_host(be)) {
        assert_null(hst_stream_copy_op(be));
        assert_int_equal(hst_stream_copy_model(be, &t0, &bw), HST_SUCCESS);
        assert_true(t0 == 0.0 && bw == 0.0);
        assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
        return;
    }
    assert_non_null(op = hst_stream_copy_op(be));
    assert_ptr_equal(hst_choice_find(be, HST_STREAM_COPY_OP), op);
    assert_int_equal(hst_choice_stats(op, &sizes[0], 1, st, 2, &count), HST_SUCCESS);
    assert_int_equal(st[0].samples + st[1].samples, 0);   /* nothing known before */
    for (k = 0; k < 2; k++) {
        assert_int_equal(hst_stream_copy_model(be, &t0, &bw), HST_SUCCESS);
        assert_true(t0 > 0.0 && bw > 0.0);
        for (z = 0; z < 2; z++) {
            assert_int_equal(hst_choice_stats(op, &sizes[z], 1, st, 2, &count), HST_SUCCESS);
            assert_int_equal(count, 2);
            assert_string_equal(st[0].impl, "up");
            assert_string_equal(st[1].impl, "down");
            assert_int_equal(st[0].source, HST_CHOICE_EXACT);
            assert_int_equal(st[1].source, HST_CHOICE_EXACT);
            assert_int_equal(st[0].samples, 1);   /* the second call measured nothing */
            assert_int_equal(st[1].samples, 1);
        }
    }
    assert_int_equal(hst_stream_copy_model(NULL, &t0, &bw), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_copy_model(be, NULL, &bw), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* Pinned arrays of several buffers (chunks of 3 slices: boundaries at 3, 6, ..., 15 of 17):
   every array of chain 2 (an INPUT read with halos, OUTPUTs, one read by a later stage, an
   INOUT) in chunks, blocks of 1 to 5 (so blocks straddle the boundaries), rings 2 to 4, both
   directions, one and two devices: the same bits as plain host arrays (whose results the
   sweeps check against the same whole-array reference), every slice compared. */
static void test_pinned_chunked(void **state)
{
    fixture *f = FIX(state);
    unsigned k;
    rng_seed(1717);
    for (k = 0; k < 10; k++) {
        chain c;
        hst_stream_desc d;
        unsigned nbe = 1 + (k & 1);
        build_chain(&c, 2, 17, 10);
        ch_reference(&c);
        ch_pin_chunks(&c, f->be[0], 3);
        assert_int_equal(hst_stream_pinned_chunks(c.parr[0]), 6);
        d = ch_desc(&c, f->be, nbe);
        d.block_slices = 1 + k / 2;
        d.ring = 2 + (k % 3);
        d.reverse = (int)((k >> 1) & 1);
        snprintf(cfg, sizeof cfg, "pinned chunks of 3: N=17 block=%llu ring=%u %s devices=%u",
                 (unsigned long long)d.block_slices, d.ring, d.reverse ? "reverse" : "forward", nbe);
        run_and_check(f, &c, &d, d.block_slices, 2);
        ch_free(&c);
    }
}

/* The pinned array's own API: chunk layout, slice addresses and runs, one pointer where the
   platform gives one, copies in and out across chunk boundaries, and its errors. */
static void test_pinned_array_api(void **state)
{
    fixture *f = FIX(state);
    hst_stream_pinned *p = NULL, *one = NULL;
    float src[11 * 4], back[11 * 4];
    uint64_t z, run = 99;
    size_t i;
    for (i = 0; i < 11 * 4; i++) src[i] = (float)i;
    assert_int_equal(hst_stream_pinned_create(f->be[0], 16, 11, 4, &p), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_chunks(p), 3);
    assert_int_equal(hst_stream_pinned_chunk_slices(p), 4);
    /* slices 0..10: runs end at the chunk boundaries 4 and 8, and at 11 */
    for (z = 0; z < 11; z++) {
        unsigned char *q = (unsigned char *)hst_stream_pinned_slice(p, z, &run);
        assert_non_null(q);
        assert_int_equal(run, (z < 8 ? (z / 4 + 1) * 4 : 11) - z);
        if (z % 4) assert_ptr_equal(q, (unsigned char *)hst_stream_pinned_slice(p, z - 1, NULL) + 16);
    }
    assert_null(hst_stream_pinned_slice(p, 11, &run));
    assert_int_equal(run, 0);
    /* one pointer on the host device (one allocation); chunks apart on an OpenCL device */
    if (IS_HOST(f)) {
        assert_ptr_equal(hst_stream_pinned_host(p), hst_stream_pinned_slice(p, 0, NULL));
        assert_ptr_equal(hst_stream_pinned_slice(p, 5, NULL), (unsigned char *)hst_stream_pinned_host(p) + 5 * 16);
    } else {
        assert_null(hst_stream_pinned_host(p));
    }
    /* copies across both boundaries, then a part of it back */
    assert_int_equal(hst_stream_pinned_write(p, 0, src, 11), HST_SUCCESS);
    memset(back, 0, sizeof back);
    assert_int_equal(hst_stream_pinned_read(p, 3, back, 6), HST_SUCCESS);
    assert_memory_equal(back, src + 3 * 4, 6 * 16);
    assert_memory_equal(hst_stream_pinned_slice(p, 8, NULL), src + 8 * 4, 16);
    /* errors: beyond the array, NULL memory, NULL array, zero sizes, NULL out */
    cap_reset(&f->log[0]);
    assert_int_equal(hst_stream_pinned_read(p, 6, back, 6), HST_ERROR_INVALID_ARGUMENT);
    assert_true(contains_nocase(f->log[0].last_message, "beyond"));
    assert_int_equal(hst_stream_pinned_write(p, 0, NULL, 1), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_pinned_write(NULL, 0, src, 1), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 0, 11, 0, &one), HST_ERROR_INVALID_ARGUMENT);
    assert_null(one);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 16, 0, 0, &one), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 16, 11, 0, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_stream_pinned_create(f->be[0], (size_t)1 << 40, (uint64_t)1 << 40, 0, &one),
                     HST_ERROR_OVERFLOW);
    /* the default chunking: one chunk that holds it all, one pointer everywhere */
    assert_int_equal(hst_stream_pinned_create(f->be[0], 16, 11, 0, &one), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_chunks(one), 1);
    assert_non_null(hst_stream_pinned_host(one));
    assert_ptr_equal(hst_stream_pinned_host(one), hst_stream_pinned_slice(one, 0, &run));
    assert_int_equal(run, 11);
    hst_stream_pinned_destroy(one);
    hst_stream_pinned_destroy(p);
    hst_stream_pinned_destroy(NULL);
}

/* A pinned array in a stream's description: shapes and kinds checked, replaced between runs
   (hst_stream_set_pinned_arrays, by another pinned array or a pinned buffer, never by pageable
   memory), and an output placed inside a pinned input read with a halo refused. */
static void test_pinned_array_rules(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_pinned *px = NULL, *small = NULL, *wide = NULL, *other = NULL;
    hst_buffer *pb = NULL;
    hst_stream_array keep, keep1;
    unsigned i0 = 0;
    rng_seed(1818);
    build_chain(&c, 0, 9, 8);   /* x -> y, random halos */
    c.st[0].halo_lo = 1; c.par[0].lo = 1;
    ch_reference(&c);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 32, 9, 2, &px), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_write(px, 0, c.init[0], 9), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 32, 8, 2, &small), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 64, 9, 2, &wide), HST_SUCCESS);
    assert_int_equal(hst_stream_pinned_create(f->be[0], 32, 12, 5, &other), HST_SUCCESS);
    keep = c.arr[0];
    keep1 = c.arr[1];
    c.arr[0].host = NULL;
    d = ch_desc(&c, f->be, 1);
    c.arr[0].pinned_array = small;     /* 8 slices for N = 9 */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "pinned array");
    c.arr[0].pinned_array = wide;      /* slices of 64 bytes, not 32 */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "pinned array");
    c.arr[0].pinned_array = px;
    c.arr[0].host = keep.host;         /* two kinds of memory */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "exactly one");
    c.arr[0].host = NULL;
    /* y at slice 4 of x's second chunk: an output inside an input read with a halo */
    c.arr[1].host = (float *)hst_stream_pinned_slice(px, 4, NULL);
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "overlaps");
    c.arr[1].host = c.host[1];
    /* runs, then swaps: another pinned array (longer, other chunks), a pinned buffer */
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
    assert_memory_equal(c.host[1], c.ref[1], 9 * 32);
    assert_int_equal(hst_stream_pinned_write(other, 0, c.init[0], 9), HST_SUCCESS);
    assert_int_equal(hst_stream_set_pinned_arrays(s, 1, &i0, &other), HST_SUCCESS);
    memset(c.host[1], 0, 9 * 32);
    assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
    assert_memory_equal(c.host[1], c.ref[1], 9 * 32);
    assert_int_equal(hst_stream_set_pinned_arrays(s, 1, &i0, &small), HST_ERROR_SHAPE);
    assert_int_equal(hst_stream_set_array(s, 0, c.init[0], NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_true(contains_nocase(f->log[0].last_message, "stay pinned"));
    assert_int_equal(hst_pinned_create(f->be[0], 9 * 32, &pb), HST_SUCCESS);
    memcpy(hst_buffer_host_ptr(pb), c.init[0], 9 * 32);
    assert_int_equal(hst_stream_set_array(s, 0, NULL, pb), HST_SUCCESS);
    memset(c.host[1], 0, 9 * 32);
    assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
    assert_memory_equal(c.host[1], c.ref[1], 9 * 32);
    hst_stream_destroy(s);
    /* TEMP and GLOBAL arrays take no pinned array */
    c.arr[0].pinned_array = px;
    c.arr[1].kind = HST_STREAM_TEMP; c.arr[1].host = NULL; c.arr[1].pinned_array = other;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "TEMP");
    c.arr[1].kind = HST_STREAM_GLOBAL; c.arr[1].host = c.host[1]; c.arr[1].global_bytes = 32; c.arr[1].dtype = HST_F32;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "GLOBAL");
    c.arr[0] = keep;
    c.arr[1] = keep1;
    hst_buffer_destroy(pb);
    hst_stream_pinned_destroy(px);
    hst_stream_pinned_destroy(small);
    hst_stream_pinned_destroy(wide);
    hst_stream_pinned_destroy(other);
    ch_free(&c);
}

/* ============================================================================================
   Stages that are calls (hst_stream_stage.arrays_fn): "wmul" views its block and runs the
   array vocabulary on the device: out[begin, end) = (in .* w) * 0.5 with w a GLOBAL array of E
   floats (broadcast over the slices), through hst_array_view, hst_array_binary and
   hst_array_scale on the backend's default queue. */
typedef struct callpar {
    uint32_t E;
    unsigned calls;
    hst_result fail;        /* returned by every call when set */
    hst_backend *const *be; /* the stream's backends: the call gets one of them */
    unsigned nbe;
} callpar;

static hst_result wmul_call(hst_backend *be, const hst_stream_binding *arr, unsigned n,
                            const void *const *scalars, const hst_stream_block *blk, void *user)
{
    callpar *p = (callpar *)user;
    hst_array *in = NULL, *w = NULL, *out = NULL;
    size_t sh[2], e = p->E, sb = (size_t)p->E * sizeof(float);
    unsigned k;
    int known = 0;
    hst_result r;
    (void)scalars;
    p->calls++;
    if (p->fail) return p->fail;
    for (k = 0; k < p->nbe; k++) known |= p->be[k] == be;
    /* what the call is promised: its backend, the loaded slices, the GLOBAL array whole */
    if (n != 3 || !known || !block_flags_ok(blk) || blk->end > arr[0].num_slices || arr[2].num_slices != arr[0].num_slices ||
        arr[0].slice_bytes != sb || arr[2].slice_bytes != sb || arr[1].num_slices != 0 || arr[1].slice_bytes != sb ||
        hst_buffer_backend(arr[0].buffer) != be || hst_buffer_backend(arr[1].buffer) != be ||
        hst_buffer_bytes(arr[0].buffer) < arr[0].offset_bytes + (size_t)arr[0].num_slices * sb)
        return HST_ERROR_SHAPE;
    if (blk->end == blk->begin) return HST_SUCCESS;
    sh[0] = (size_t)(blk->end - blk->begin);
    sh[1] = p->E;
    r = hst_array_view(arr[0].buffer, arr[0].offset_bytes + (size_t)blk->begin * sb, HST_F32, 2, sh, &in);
    if (r == HST_SUCCESS) r = hst_array_view(arr[1].buffer, arr[1].offset_bytes, HST_F32, 1, &e, &w);
    if (r == HST_SUCCESS) r = hst_array_view(arr[2].buffer, arr[2].offset_bytes + (size_t)blk->begin * sb, HST_F32, 2, sh, &out);
    if (r == HST_SUCCESS) r = hst_array_binary(out, in, w, HST_BINARY_MUL);
    if (r == HST_SUCCESS) r = hst_array_scale(out, hst_real(0.5));
    hst_array_destroy(in);
    hst_array_destroy(w);
    hst_array_destroy(out);
    return r;
}

static void ch_call(chain *c, int in, int w, int out, callpar *p)
{
    unsigned s = c->nst++;
    hst_stream_stage *st = &c->st[s];
    static int lists[CH_MAX_ST][3];
    assert_true(s < CH_MAX_ST);
    lists[s][0] = in; lists[s][1] = w; lists[s][2] = out;
    memset(st, 0, sizeof *st);
    st->name = "wmul";
    st->arrays_fn = wmul_call;
    st->arrays_user = p;
    st->num_inputs = 2; st->inputs = lists[s];
    st->num_outputs = 1; st->outputs = &lists[s][2];
}

/* The weights w as a GLOBAL array of caller buffers, one per backend (read-only tables must
   be: a GLOBAL array of host memory is an additive accumulator, zeros on devices past the
   first). */
static void ch_weights(chain *c, int g, hst_backend *const *be, hst_buffer **bufs, const float *w)
{
    unsigned k;
    size_t bytes = (size_t)c->E * sizeof(float);
    for (k = 0; k < 2; k++) {
        assert_int_equal(hst_buffer_create(be[k], bytes, 0, &bufs[k]), HST_SUCCESS);
        assert_int_equal(hst_write(hst_backend_queue(be[k]), bufs[k], 0, w, bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    }
    c->arr[g].kind = HST_STREAM_GLOBAL;
    c->arr[g].slice_bytes = 0;
    c->arr[g].global_bytes = bytes;
    c->arr[g].dtype = HST_F32;
    c->arr[g].buffers = bufs;
}

/* Floats per slice: on an OpenCL device a slice is a whole number of the device's base address
   alignment, so a view may start at any slice (hst_array_view); the host device takes any. */
static uint32_t call_E(fixture *f)
{
    uint32_t al = hst_backend_device(f->be[0])->mem_base_addr_align_bytes / 4;
    return IS_HOST(f) ? 12 : al > 8 ? al : 8;
}

/* kernel -> call -> kernel (the call in the middle, TEMP in and out) and kernel -> call (the
   call last, writing an OUTPUT that an accumulator reads), with halos on the kernels, one and
   two devices, both directions, blocks of 1, 2, 3 and N slices and the default block: the same
   bits as the whole-array computation, one call per block. */
static void test_arrays_fn_chain(void **state)
{
    static const uint64_t Ns[] = {1, 5, 13};
    fixture *f = FIX(state);
    unsigned ni, bi, k = 0;
    rng_seed(777);
    for (ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (bi = 0; bi < 5; bi++, k++) {
            uint64_t N = Ns[ni], blocks[5];
            unsigned type, run;
            blocks[0] = 1; blocks[1] = 2; blocks[2] = 3; blocks[3] = N; blocks[4] = 0;
            for (type = 0; type < 2; type++) {
                chain c;
                hst_stream_desc d;
                hst_stream *s = NULL;
                hst_stream_report rep;
                callpar p;
                float *w;
                hst_buffer *wbufs[2];
                int x, t, u, y, g;
                unsigned nbe = 1 + ((k + type) & 1);
                uint32_t E = call_E(f);
                ch_init(&c, N, E);
                x = ch_array(&c, HST_STREAM_INPUT);
                t = ch_array(&c, HST_STREAM_TEMP);
                g = ch_array(&c, HST_STREAM_TEMP);   /* made GLOBAL */
                w = (float *)xmalloc((size_t)E * sizeof(float));
                fill_random(w, E);
                ch_weights(&c, g, f->be, wbufs, w);
                memset(&p, 0, sizeof p);
                p.E = E; p.be = f->be; p.nbe = nbe;
                ch_wsum(&c, x, t, rand_halo(N), rand_halo(N));
                if (type == 0) {
                    u = ch_array(&c, HST_STREAM_TEMP);
                    y = ch_array(&c, HST_STREAM_OUTPUT);
                    ch_call(&c, t, g, u, &p);
                    ch_wsum(&c, u, y, rand_halo(N), rand_halo(N));
                } else {
                    y = ch_array(&c, HST_STREAM_OUTPUT);
                    ch_call(&c, t, g, y, &p);
                    ch_acc(&c, HST_STREAM_SQSUM, HST_F32, y, 0);
                    ch_acc(&c, HST_STREAM_SUM, HST_F32, t, 0);
                }
                ch_reference_w(&c, w);
                d = ch_desc(&c, f->be, nbe);
                d.block_slices = blocks[bi];
                d.reverse = (int)(k & 1);
                snprintf(cfg, sizeof cfg, "arrays_fn: N=%llu block=%llu type=%u devices=%u %s E=%u",
                         (unsigned long long)N, (unsigned long long)blocks[bi], type, nbe,
                         d.reverse ? "reverse" : "forward", E);
                if (hst_stream_create(&d, &s) != HST_SUCCESS) {
                    print_error("%s: create: %s\n", cfg, f->log[0].last_message);
                    fail();
                }
                for (run = 0; run < 2; run++) {
                    hst_result r;
                    ch_reset(&c);
                    p.calls = 0;
                    r = hst_stream_run(s, &rep);
                    if (r != HST_SUCCESS) {
                        print_error("%s: run: %s (%s)\n", cfg, hst_result_string(r), f->log[0].last_message);
                        fail();
                    }
                    ch_check_arrays(&c);
                    ch_check_accs(&c, &rep, fp64_all(f->be, nbe));
                    assert_int_equal(p.calls, rep.num_blocks);
                    assert_int_equal(rep.slices_done, N);
                }
                hst_stream_destroy(s);
                ch_free(&c);
                free(w);
                hst_buffer_destroy(wbufs[0]);
                hst_buffer_destroy(wbufs[1]);
            }
        }
}

/* Refusals: a call stage with a kernel, sources, options or a host twin (named); a stage with
   neither (on an OpenCL device); a call's error ends the run with its code, and nothing leaks
   (the group teardown checks the pool and the device bytes). */
static void test_arrays_fn_refused(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    hst_stream_report rep;
    callpar p;
    float *wg;
    hst_buffer *wbufs[2];
    int x, t, g, y;
    uint32_t E = call_E(f);
    rng_seed(31);
    ch_init(&c, 9, E);
    x = ch_array(&c, HST_STREAM_INPUT);
    t = ch_array(&c, HST_STREAM_TEMP);
    g = ch_array(&c, HST_STREAM_TEMP);
    wg = (float *)xmalloc((size_t)E * sizeof(float));
    fill_random(wg, E);
    ch_weights(&c, g, f->be, wbufs, wg);
    y = ch_array(&c, HST_STREAM_OUTPUT);
    memset(&p, 0, sizeof p);
    p.E = E; p.be = f->be; p.nbe = 1;
    ch_wsum(&c, x, t, 1, 1);
    ch_call(&c, t, g, y, &p);
    d = ch_desc(&c, f->be, 1);
    d.block_slices = 2;
    c.st[1].kernel = "wsum";
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "has arrays_fn and also a kernel");
    c.st[1].kernel = NULL;
    c.st[1].sources = test_src; c.st[1].num_sources = 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "stages[1] (\"wmul\") has arrays_fn and also sources");
    c.st[1].sources = NULL; c.st[1].num_sources = 0;
    c.st[1].options = "-DX";
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "options");
    c.st[1].options = NULL;
    c.st[1].host = wsum_host;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "a host twin");
    c.st[1].host = NULL;
    if (!IS_HOST(f)) {   /* neither a kernel nor a call */
        c.st[1].arrays_fn = NULL;
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "or arrays_fn");
        c.st[1].arrays_fn = wmul_call;
    }
    /* a call's error stops the run with its code */
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    p.fail = HST_ERROR_IO;
    assert_int_equal(hst_stream_run(s, &rep), HST_ERROR_IO);
    assert_int_equal(p.calls, 1);
    p.fail = HST_SUCCESS;   /* and the stream runs again afterwards */
    p.calls = 0;
    ch_reference_w(&c, wg);
    ch_reset(&c);
    assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
    ch_check_arrays(&c);
    assert_int_equal(p.calls, 5);
    hst_stream_destroy(s);
    ch_free(&c);
    free(wg);
    hst_buffer_destroy(wbufs[0]);
    hst_buffer_destroy(wbufs[1]);
}

/* A stage without host twin: streams on an OpenCL device (the same bits as the twins' whole-
   array reference); refused on the host device, with the stage named. */
static void test_no_host_twin(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    rng_seed(1919);
    build_chain(&c, 1, 11, 8);   /* x -> T -> y */
    ch_reference(&c);            /* by the twins, before one is taken away */
    c.st[1].host = NULL;
    c.st[1].name = "second_wsum";
    d = ch_desc(&c, f->be, 1);
    if (IS_HOST(f)) {
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "host twin");
        assert_true(contains_nocase(f->log[0].last_message, "stages[1] (\"second_wsum\")"));
    } else {
        d.block_slices = 3;
        snprintf(cfg, sizeof cfg, "stage 1 without host twin");
        run_and_check(f, &c, &d, 3, 2);
    }
    ch_free(&c);
}

/* Declared stages (a family's kernel): create checks the declaration against the stage (the
   argument's index, its declared word and what the stage gives there); a kernel without a twin
   is refused on the host device and streams on an OpenCL device; a stage's own host function
   replaces the declared twin on the host device (and never runs on an OpenCL one). Outputs
   are the whole-volume twin's bits. */
static unsigned declared_host_calls;

static hst_result grad_host_counted(void *const *arrays, const void *const *scalars, const hst_stream_block *blk,
                                    void *user)
{
    declared_host_calls++;
    return grad_host(arrays, scalars, blk, user);
}

static const hst_kernel_decl notwin_decls[2] = {
    {"hst_k_grad3", "global global uint uint ulong ulong ulong ulong int", NULL},
    {"hst_k_grad3", "global global uint uint ulong ulong ulong ulong ulong", NULL},   /* flags misdeclared */
};
static const hst_kernel_family notwin_family = {"notwin", hst_kernels_stream_source, notwin_decls, 2};

/* Streams x -> p by stage st (grad3) in blocks of 2 and compares with the twin. */
static void declared_grad_run(fixture *f, hst_stream_desc *d, const float *x, float *p, const float *p_ref,
                              size_t n, const char *what)
{
    hst_stream *s = NULL;
    size_t at = 0;
    hst_result r = hst_stream_create(d, &s);
    if (r != HST_SUCCESS) { print_error("%s: create: %s (%s)\n", what, hst_result_string(r), f->log[0].last_message); fail(); }
    memset(p, 0xff, n * 4);
    assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
    hst_stream_destroy(s);
    (void)x;
    if (!bits_equal_f(p, p_ref, n, &at)) { print_error("%s: grad differs at %zu\n", what, at); fail(); }
}

static void test_declared_stages(void **state)
{
    fixture *f = FIX(state);
    const uint64_t N = 6;
    gpar g;
    size_t hw, nv;
    float *x, *p, *p_ref;
    hst_stream_array arr[2];
    hst_stream_stage st;
    hst_stream_desc d;
    uint64_t wide = 0;
    g.H = 4; g.W = 9;
    hw = (size_t)g.H * g.W; nv = (size_t)N * hw;
    rng_seed(2024);
    x = (float *)xmalloc(nv * 4); p = (float *)xmalloc(3 * nv * 4); p_ref = (float *)xmalloc(3 * nv * 4);
    fill_random(x, nv);
    hst_k_grad3_host(x, p_ref, g.H, g.W, 0, 0, N, N);
    memset(arr, 0, sizeof arr);
    arr[0].kind = HST_STREAM_INPUT;  arr[0].host = x; arr[0].slice_bytes = hw * 4;
    arr[1].kind = HST_STREAM_OUTPUT; arr[1].host = p; arr[1].slice_bytes = 3 * hw * 4;
    vol_stage(&st, f->be[0], 1, &g, 0, 1, N, 1);
    st.name = "grad_declared";
    memset(&d, 0, sizeof d);
    d.backends = f->be; d.num_backends = 1; d.num_slices = N;
    d.arrays = arr; d.num_arrays = 2; d.stages = &st; d.num_stages = 1; d.block_slices = 2;
    declared_grad_run(f, &d, x, p, p_ref, 3 * nv, "declared");

    /* the declaration against the stage */
    st.family_kernel = HST_KSTREAM_COUNT;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, "family_kernel");
    st.family_kernel = HST_KSTREAM_GRAD3;
    st.scalar_bytes[1] = 8; st.scalars[1] = &wide;   /* a uint given 8 bytes */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "argument 3 of stream.hst_k_grad3 is declared `uint`, scalars[1] gives 8 bytes");
    st.scalar_bytes[1] = 4; st.scalars[1] = &g.W;
    st.num_scalars = 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "declares 9 arguments");
    st.num_scalars = 2;
    st.family_kernel = HST_KSTREAM_TV_DUAL;   /* a float where the stage gives nothing: counts differ */
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "stages[0] (\"grad_declared\")");
    st.family_kernel = HST_KSTREAM_GRAD3;
    st.kernel = "hst_k_grad3";
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "not both");
    st.kernel = NULL;
    st.family = &notwin_family; st.family_kernel = 1;
    EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, "argument 8 of notwin.hst_k_grad3 is declared `ulong`");

    /* no twin: the host device refuses it (named); an OpenCL device streams the kernel */
    st.family_kernel = 0;
    if (IS_HOST(f))
        EXPECT_CREATE_FAIL(f, d, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, "notwin.hst_k_grad3 declares none");
    else
        declared_grad_run(f, &d, x, p, p_ref, 3 * nv, "declared without twin");

    /* a host function of the stage's own replaces the twin on the host device only */
    st.family = hst_kernels_stream_family(); st.family_kernel = HST_KSTREAM_GRAD3;
    st.host = grad_host_counted;
    declared_host_calls = 0;
    declared_grad_run(f, &d, x, p, p_ref, 3 * nv, "declared with host");
    if (IS_HOST(f)) assert_int_equal(declared_host_calls, 3);
    else assert_int_equal(declared_host_calls, 0);
    free(x); free(p); free(p_ref);
}

/* An iterative method over buffers A, B, C with a halo-1 stage: x_{k+1} = wsum(x_k), rotating
   the roles with hst_stream_set_array (two buffers cannot swap directly with a halo: the state
   between the two calls aliases input and output and is refused, see below). */
static void iterate_reference(float *x, float *tmp, const chain *c, unsigned iters)
{
    unsigned i;
    hst_stream_block whole;
    whole.base = 0; whole.begin = 0; whole.end = c->N; whole.total = c->N;
    whole.flags = HST_STREAM_FIRST | HST_STREAM_LAST;
    for (i = 0; i < iters; i++) {
        void *args[2];
        args[0] = x; args[1] = tmp;
        assert_int_equal(wsum_host(args, c->st[0].scalars, &whole, NULL), HST_SUCCESS);
        memcpy(x, tmp, ch_elems(c) * 4);
    }
}

static void set_array_rotation(fixture *f, int pinned, unsigned nbe)
{
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    float *buf[3], *want, *tmp;
    hst_buffer *pb[3] = {NULL, NULL, NULL};
    size_t n, bytes, at = 0;
    unsigned i, it;
    rng_seed(17 + (unsigned)pinned);
    build_chain(&c, 0, 11, 10);
    c.nacc = 1;   /* SUM of y */
    c.st[0].halo_lo = c.par[0].lo = 1;
    c.st[0].halo_hi = c.par[0].hi = 1;
    n = ch_elems(&c);
    bytes = n * 4;
    for (i = 0; i < 3; i++) {
        if (pinned) {
            assert_int_equal(hst_pinned_create(f->be[0], bytes, &pb[i]), HST_SUCCESS);
            buf[i] = (float *)hst_buffer_host_ptr(pb[i]);
        } else {
            buf[i] = (float *)xmalloc(bytes);
        }
    }
    memcpy(buf[0], c.init[0], bytes);
    if (pinned) { c.arr[0].host = NULL; c.arr[0].pinned = pb[0]; c.arr[1].host = NULL; c.arr[1].pinned = pb[1]; }
    else { c.arr[0].host = buf[0]; c.arr[1].host = buf[1]; }
    want = (float *)xmalloc(bytes);
    tmp = (float *)xmalloc(bytes);
    memcpy(want, c.init[0], bytes);
    d = ch_desc(&c, f->be, nbe);
    d.block_slices = 3;
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    for (it = 0; it < 6; it++) {
        unsigned in = it % 3, out = (it + 1) % 3;
        hst_stream_report rep;
        if (it > 0) {   /* out first (it is the buffer read two iterations ago), then in */
            assert_int_equal(hst_stream_set_array(s, 1, pinned ? NULL : buf[out], pinned ? pb[out] : NULL), HST_SUCCESS);
            assert_int_equal(hst_stream_set_array(s, 0, pinned ? NULL : buf[in], pinned ? pb[in] : NULL), HST_SUCCESS);
        }
        assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
        iterate_reference(want, tmp, &c, 1);
        if (!bits_equal_f(buf[out], want, n, &at)) {
            print_error("set_array rotation (%s, %u devices) iteration %u: element %zu differs\n",
                        pinned ? "pinned" : "pageable", nbe, it, at);
            fail();
        }
        {   /* the accumulator follows the swapped arrays */
            double t = 0.0;
            uint64_t z;
            for (z = 0; z < c.N; z++) {
                double v = 0.0;
                hst_k_slice_acc_host(HST_F32, HST_STREAM_SUM, buf[out] + z * c.E, NULL, c.E, &v);
                t += v;
            }
            if (fp64_all(f->be, nbe)) assert_memory_equal(&t, &rep.acc[0], sizeof t);
            else assert_true(fabs(t - rep.acc[0]) <= 1e-5 * fabs(t) + 1e-6);
        }
    }
    /* the swap that would alias input and output with a halo is refused; the stream keeps the
       array it had (the next run is still correct) */
    /* after iteration 5 the input is buf[2] and the output buf[0]: making buf[0] the input too
       (the first half of a two-buffer swap) aliases them */
    cap_reset(&f->log[0]);
    assert_refused(hst_stream_set_array(s, 0, pinned ? NULL : buf[0], pinned ? pb[0] : NULL),
                   HST_ERROR_INVALID_ARGUMENT, &f->log[0], HST_LOGITEM_BAD_ARGUMENT, "overlaps");
    /* pinned <-> pageable changes refused; TEMP or out-of-range index; both or neither pointer;
       a pinned buffer too small */
    cap_reset(&f->log[0]);
    if (pinned) {
        assert_refused(hst_stream_set_array(s, 0, tmp, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_BAD_ARGUMENT, "must stay pinned");
        {
            hst_buffer *small = NULL;
            assert_int_equal(hst_pinned_create(f->be[0], bytes - 4, &small), HST_SUCCESS);
            assert_refused(hst_stream_set_array(s, 0, NULL, small), HST_ERROR_SHAPE, &f->log[0],
                           HST_LOGITEM_SHAPE_MISMATCH, "too small");
            hst_buffer_destroy(small);
        }
    } else {
        hst_buffer *p = NULL;
        assert_int_equal(hst_pinned_create(f->be[0], bytes, &p), HST_SUCCESS);
        assert_refused(hst_stream_set_array(s, 0, NULL, p), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_BAD_ARGUMENT, "must stay pageable");
        hst_buffer_destroy(p);
    }
    assert_refused(hst_stream_set_array(s, 2, tmp, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                   HST_LOGITEM_OUT_OF_RANGE, "not a host array");
    assert_refused(hst_stream_set_array(s, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                   HST_LOGITEM_BAD_ARGUMENT, "exactly one");
    /* still the last good arrays: in = buf[2], out = buf[0]; one more iteration is right */
    assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
    {
        float *again = (float *)xmalloc(bytes);
        memcpy(again, want, bytes);
        memcpy(want, buf[2], bytes);   /* the input of iteration 5 */
        iterate_reference(want, tmp, &c, 1);
        assert_true(bits_equal_f(buf[0], want, n, &at));
        assert_true(bits_equal_f(again, buf[0], n, &at));   /* same as iteration 5's output */
        free(again);
    }
    hst_stream_destroy(s);
    for (i = 0; i < 3; i++) {
        if (pinned) hst_buffer_destroy(pb[i]);
        else free(buf[i]);
    }
    c.arr[0].pinned = c.arr[1].pinned = NULL;
    free(want);
    free(tmp);
    ch_free(&c);
}

static void test_set_array_rotation(void **state)
{
    fixture *f = FIX(state);
    set_array_rotation(f, 0, 1);
    set_array_rotation(f, 0, 2);
    set_array_rotation(f, 1, 1);
    set_array_rotation(f, 1, 2);
}

/* With halo 0 two buffers swap directly (in place between the calls is allowed). */
static void test_set_array_swap_halo0(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s = NULL;
    float *A, *Bf, *want, *tmp;
    size_t n, at = 0;
    unsigned it;
    rng_seed(18);
    build_chain(&c, 0, 7, 12);
    c.nacc = 0;
    c.st[0].halo_lo = c.par[0].lo = 0;
    c.st[0].halo_hi = c.par[0].hi = 0;
    n = ch_elems(&c);
    A = c.host[0]; Bf = c.host[1];
    want = (float *)xmalloc(n * 4);
    tmp = (float *)xmalloc(n * 4);
    memcpy(want, c.init[0], n * 4);
    d = ch_desc(&c, f->be, 2);
    d.block_slices = 2;
    assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
    for (it = 0; it < 4; it++) {
        float *in = (it & 1) ? Bf : A, *out = (it & 1) ? A : Bf;
        if (it) {
            assert_int_equal(hst_stream_set_array(s, 0, in, NULL), HST_SUCCESS);
            assert_int_equal(hst_stream_set_array(s, 1, out, NULL), HST_SUCCESS);
        }
        assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
        iterate_reference(want, tmp, &c, 1);
        if (!bits_equal_f(out, want, n, &at)) {
            print_error("swap halo 0 iteration %u: element %zu differs\n", it, at);
            fail();
        }
    }
    hst_stream_destroy(s);
    free(want);
    free(tmp);
    ch_free(&c);
}

/* GLOBAL arrays and loop_slices stages: a per-pixel sum over all slices accumulated across
   blocks into one image, on one and two devices (device 0 starts from the caller's contents,
   the others from zeros, the caller gets the sum), forward and reverse, equal to the direct sum
   (small integers: exact in float); and the refusal of a GLOBAL updated by a stage that
   computes beyond its owned slices (slices would count twice). */
static const char *GLOBAL_SRC =
    "__kernel void colsum(__global const float *x, __global float *g, ulong W, ulong base,\n"
    "                     ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    ulong z;\n"
    "    if (i >= W) return;\n"
    "    for (z = begin; z < end; z++) g[i] += x[z * W + i];\n"
    "}\n";

static hst_result colsum_host(void *const *a, const void *const *sc, const hst_stream_block *b,
                              void *user)
{
    const float *x = (const float *)a[0];
    float *g = (float *)a[1];
    uint64_t W = *(const uint64_t *)sc[0], z, i;
    (void)user;
    for (i = 0; i < W; i++)
        for (z = b->begin; z < b->end; z++) g[i] += x[z * W + i];
    return HST_SUCCESS;
}

/* The colsum stage: arrays[in[0]] (N x W) summed over the slices into GLOBAL arrays[out[0]]. */
static void colsum_stage(hst_stream_stage *st, const uint64_t *W, const int *in, const int *out)
{
    memset(st, 0, sizeof *st);
    st->sources = &GLOBAL_SRC; st->num_sources = 1; st->kernel = "colsum"; st->host = colsum_host;
    st->items_per_slice = (size_t)*W; st->loop_slices = 1;
    st->num_inputs = 1; st->inputs = in; st->num_outputs = 1; st->outputs = out;
    st->num_scalars = 1; st->scalar_bytes[0] = sizeof *W; st->scalars[0] = W;
}

static void test_global_accumulation(void **state)
{
    fixture *f = FIX(state);
    const uint64_t W = 53, N = 37;
    float *x = (float *)malloc(N * W * sizeof *x), g[53], ref[53];
    hst_stream_array arr[3];
    hst_stream_stage st;
    hst_stream_desc d;
    const int in0[1] = {0}, out0[1] = {1};
    uint64_t i, z;
    int nb, rev;
    assert_non_null(x);
    for (i = 0; i < N * W; i++) x[i] = (float)((i * 7u) % 13u);
    memset(arr, 0, sizeof arr);
    memset(&st, 0, sizeof st);
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = x; arr[0].slice_bytes = W * sizeof *x;
    arr[1].kind = HST_STREAM_GLOBAL; arr[1].host = g; arr[1].global_bytes = sizeof g;
    arr[1].dtype = HST_F32;
    colsum_stage(&st, &W, in0, out0);
    for (nb = 1; nb <= 2; nb++)
        for (rev = 0; rev <= 1; rev++) {
            hst_stream *s = NULL;
            memset(&d, 0, sizeof d);
            d.backends = f->be; d.num_backends = (unsigned)nb; d.num_slices = N;
            d.arrays = arr; d.num_arrays = 2; d.stages = &st; d.num_stages = 1;
            d.block_slices = 5; d.reverse = rev;
            for (i = 0; i < W; i++) {
                g[i] = 1.0f;
                ref[i] = 1.0f;
                for (z = 0; z < N; z++) ref[i] += x[z * W + i];
            }
            assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
            assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
            assert_memory_equal(g, ref, sizeof g);
            hst_stream_destroy(s);
        }
    {   /* a later stage with a halo makes stage 0 compute beyond its owned slices: refused */
        hst_stream_stage two[2];
        const int in1[1] = {0}, out1[1] = {2};
        hst_stream *s = (hst_stream *)&s;
        float *y = (float *)malloc(N * W * sizeof *y);
        assert_non_null(y);
        arr[2].kind = HST_STREAM_OUTPUT; arr[2].host = y; arr[2].slice_bytes = W * sizeof *y;
        two[0] = st;
        two[1] = st;
        two[1].inputs = in1; two[1].outputs = out1; two[1].halo_lo = 1; two[1].loop_slices = 0;
        memset(&d, 0, sizeof d);
        d.backends = f->be; d.num_backends = 1; d.num_slices = N;
        d.arrays = arr; d.num_arrays = 3; d.stages = two; d.num_stages = 2;
        cap_reset(&f->log[0]);
        assert_refused(hst_stream_create(&d, &s), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_BAD_ARGUMENT, "count twice");
        assert_null(s);
        free(y);
    }
    free(x);
}

/* GLOBAL arrays in caller buffers (hst_stream_array.buffers): updated in place, nothing copied,
   state carried from run to run: two runs over the same slices give the caller's start plus
   twice the column sums in each device's buffer summed over devices (exact: small integers);
   the caller's host memory is never touched; wrong buffers are refused with the argument named. */
static void test_global_buffers(void **state)
{
    fixture *f = FIX(state);
    const uint64_t W = 53, N = 37;
    float *x = (float *)malloc(N * W * sizeof *x), g[53], ref[53], tmp[53];
    hst_buffer *buf[2] = {NULL, NULL};
    hst_stream_array arr[2];
    hst_stream_stage st;
    hst_stream_desc d;
    const int in0[1] = {0}, out0[1] = {1};
    uint64_t i, z;
    unsigned nb, k;
    assert_non_null(x);
    for (i = 0; i < N * W; i++) x[i] = (float)((i * 5u) % 11u);
    memset(arr, 0, sizeof arr);
    memset(&st, 0, sizeof st);
    arr[0].kind = HST_STREAM_INPUT; arr[0].host = x; arr[0].slice_bytes = W * sizeof *x;
    arr[1].kind = HST_STREAM_GLOBAL; arr[1].buffers = buf; arr[1].global_bytes = sizeof g;
    arr[1].dtype = HST_F32;
    colsum_stage(&st, &W, in0, out0);
    for (nb = 1; nb <= 2; nb++) {
        hst_stream *s = NULL;
        for (k = 0; k < nb; k++) {
            float start = k == 0 ? 3.0f : 0.0f;   /* the caller's start on device 0 */
            for (i = 0; i < W; i++) tmp[i] = start;
            assert_int_equal(hst_buffer_create(f->be[k], sizeof g, 0, &buf[k]), HST_SUCCESS);
            assert_int_equal(hst_write(hst_backend_queue(f->be[k]), buf[k], 0, tmp, sizeof tmp, 1, 0, NULL, NULL),
                             HST_SUCCESS);
        }
        memset(&d, 0, sizeof d);
        d.backends = f->be; d.num_backends = nb; d.num_slices = N;
        d.arrays = arr; d.num_arrays = 2; d.stages = &st; d.num_stages = 1; d.block_slices = 4;
        assert_int_equal(hst_stream_create(&d, &s), HST_SUCCESS);
        assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
        assert_int_equal(hst_stream_run(s, NULL), HST_SUCCESS);
        hst_stream_destroy(s);
        memset(g, 0, sizeof g);
        for (k = 0; k < nb; k++) {
            assert_int_equal(hst_read(hst_backend_queue(f->be[k]), buf[k], 0, tmp, sizeof tmp, 1, 0, NULL, NULL),
                             HST_SUCCESS);
            for (i = 0; i < W; i++) g[i] += tmp[i];
            hst_buffer_destroy(buf[k]);
            buf[k] = NULL;
        }
        for (i = 0; i < W; i++) {
            ref[i] = 3.0f;
            for (z = 0; z < N; z++) ref[i] += 2.0f * x[z * W + i];
        }
        assert_memory_equal(g, ref, sizeof g);
    }
    {   /* a buffer too small, and a missing one: refused, naming the array and the backend */
        hst_stream *s = (hst_stream *)&s;
        assert_int_equal(hst_buffer_create(f->be[0], sizeof g - 4, 0, &buf[0]), HST_SUCCESS);
        memset(&d, 0, sizeof d);
        d.backends = f->be; d.num_backends = 1; d.num_slices = N;
        d.arrays = arr; d.num_arrays = 2; d.stages = &st; d.num_stages = 1;
        cap_reset(&f->log[0]);
        assert_refused(hst_stream_create(&d, &s), HST_ERROR_SHAPE, &f->log[0], HST_LOGITEM_SHAPE_MISMATCH,
                       "arrays[1].buffers[0] holds");
        assert_null(s);
        hst_buffer_destroy(buf[0]);
        buf[0] = NULL;
        s = (hst_stream *)&s;
        cap_reset(&f->log[0]);
        assert_refused(hst_stream_create(&d, &s), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_NULL_ARGUMENT, "arrays[1].buffers[0] is NULL");
        assert_null(s);
        arr[1].host = g;   /* both host memory and buffers */
        s = (hst_stream *)&s;
        cap_reset(&f->log[0]);
        assert_refused(hst_stream_create(&d, &s), HST_ERROR_INVALID_ARGUMENT, &f->log[0],
                       HST_LOGITEM_BAD_ARGUMENT, "exactly one of host memory and buffers");
        assert_null(s);
    }
    free(x);
}

/* ============================================================================================
   The split across devices comes from backends[0]'s choice registry: a timings-only op per
   chain and device set (hst_stream_choice_op), fed seconds per slice after every run. The
   fixture's registries are in memory only ("off"), so nothing from earlier test runs counts. */

/* x -> y (wsum, halo 1 on each side); opt: the stage's build options (another chain). */
static void split_chain(chain *c, uint64_t N, const char *opt)
{
    int x, y;
    ch_init(c, N, 64);
    x = ch_array(c, HST_STREAM_INPUT);
    y = ch_array(c, HST_STREAM_OUTPUT);
    ch_wsum(c, x, y, 1, 1);
    c->st[0].options = opt;
    ch_acc(c, HST_STREAM_SQSUM, HST_F32, y, 0);
    ch_reference(c);
}

/* The stream's signature: bytes per slice over the sliced arrays (here all of them). */
static int64_t split_sig(const chain *c) { return (int64_t)ch_per(c); }

static hst_stream *split_create(fixture *f, hst_stream_desc *d)
{
    hst_stream *s = NULL;
    hst_result r = hst_stream_create(d, &s);
    if (r != HST_SUCCESS) {
        print_error("create: %s (%s)\n", hst_result_string(r), f->log[0].last_message);
        fail();
    }
    return s;
}

/* One complete run: results equal the whole-array ones; *rep the report. */
static void split_run(fixture *f, chain *c, hst_stream *s, hst_stream_report *rep)
{
    hst_result r;
    ch_reset(c);
    r = hst_stream_run(s, rep);
    if (r != HST_SUCCESS) {
        print_error("%s: run: %s (%s)\n", cfg, hst_result_string(r), f->log[0].last_message);
        fail();
    }
    ch_check_arrays(c);
    ch_check_accs(c, rep, fp64_all(f->be, 2));
    check_report_complete(rep, c->N, 2, hst_stream_block_slices(s));
}

/* HST_CHOICE_HISTORY timings per device: d0 `fast` and d1 `slow` seconds per slice. */
static void split_feed(hst_choice_op *op, int64_t sig, double fast, double slow)
{
    unsigned k;
    for (k = 0; k < HST_CHOICE_HISTORY; k++) {
        assert_int_equal(hst_choice_record(op, &sig, 1, "d0", fast), HST_SUCCESS);
        assert_int_equal(hst_choice_record(op, &sig, 1, "d1", slow), HST_SUCCESS);
    }
}

/* Asserts device 0 got `want` slices, within one of rounding. */
static void split_expect(const hst_stream_report *rep, uint64_t want)
{
    uint64_t got = rep->range_end[0] - rep->range_begin[0];
    if (got + 1 < want || got > want + 1) {
        print_error("%s: device 0 got %llu slices, want %llu (+-1)\n", cfg,
                    (unsigned long long)got, (unsigned long long)want);
        fail();
    }
}

/* Timings of 1 ms and 3 ms per slice in the registry: a NEW stream of the same chain splits
   3:1 from its first run, with the same results. */
static void test_split_from_registry(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s1, *s2;
    hst_stream_report rep;
    hst_choice_stat st[2];
    size_t n = 0;
    int64_t sig;
    rng_seed(31);
    split_chain(&c, 40, NULL);
    sig = split_sig(&c);
    d = ch_desc(&c, f->be, 2);
    d.block_slices = 3;
    snprintf(cfg, sizeof cfg, "split from the registry");
    s1 = split_create(f, &d);
    assert_non_null(hst_stream_choice_op(s1));
    split_feed(hst_stream_choice_op(s1), sig, 1e-3, 3e-3);
    assert_int_equal(hst_choice_stats(hst_stream_choice_op(s1), &sig, 1, st, 2, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(st[0].source, HST_CHOICE_EXACT);
    assert_true(st[0].seconds == 1e-3 && st[1].seconds == 3e-3);
    s2 = split_create(f, &d);
    assert_ptr_equal(hst_stream_choice_op(s2), hst_stream_choice_op(s1));   /* found, shared */
    split_run(f, &c, s2, &rep);
    split_expect(&rep, 30);
    hst_stream_destroy(s1);
    hst_stream_destroy(s2);
    ch_free(&c);
}

/* Another kernel or other build options: another op, no shared timings (the host device reads
   neither: there only the stage's name tells them apart). Another N of the same chain: the
   same op (N is not in its name). */
static void test_split_op_per_chain(void **state)
{
    fixture *f = FIX(state);
    chain a, b, t, m;
    hst_stream_desc d;
    hst_stream *sa, *sb, *st, *sm;
    hst_choice_stat stat[2];
    size_t n = 0;
    int64_t sig;
    int host = hst_backend_is_host(f->be[0]);
    rng_seed(32);
    split_chain(&a, 24, NULL);
    split_chain(&b, 24, "-DHST_TEST_OTHER_CHAIN=1");
    split_chain(&t, 24, NULL);
    t.st[0].kernel = "upd";   /* another kernel (not run: only the op's name matters) */
    t.st[0].name = "upd";
    split_chain(&m, 57, NULL);
    sig = split_sig(&a);
    d = ch_desc(&a, f->be, 2);
    sa = split_create(f, &d);
    d = ch_desc(&b, f->be, 2);
    sb = split_create(f, &d);
    d = ch_desc(&t, f->be, 2);
    st = split_create(f, &d);
    d = ch_desc(&m, f->be, 2);
    sm = split_create(f, &d);
    assert_non_null(hst_stream_choice_op(sa));
    assert_non_null(hst_stream_choice_op(sb));
    assert_non_null(hst_stream_choice_op(st));
    if (host) assert_ptr_equal(hst_stream_choice_op(sa), hst_stream_choice_op(sb));
    else assert_true(hst_stream_choice_op(sa) != hst_stream_choice_op(sb));
    assert_true(hst_stream_choice_op(sa) != hst_stream_choice_op(st));
    assert_true(hst_stream_choice_op(sb) != hst_stream_choice_op(st));
    assert_ptr_equal(hst_stream_choice_op(sm), hst_stream_choice_op(sa));
    split_feed(hst_stream_choice_op(sa), sig, 1e-3, 3e-3);
    assert_int_equal(hst_choice_stats(hst_stream_choice_op(host ? st : sb), &sig, 1, stat, 2, &n),
                     HST_SUCCESS);
    assert_int_equal(stat[0].samples, 0);
    assert_int_equal(stat[0].source, HST_CHOICE_NONE);
    assert_int_equal(stat[1].source, HST_CHOICE_NONE);
    hst_stream_destroy(sa);
    hst_stream_destroy(sb);
    hst_stream_destroy(st);
    hst_stream_destroy(sm);
    ch_free(&a);
    ch_free(&b);
    ch_free(&t);
    ch_free(&m);
}

/* desc.weights wins the first run over the registry's 3:1; the second run follows the
   registry (15 of its 16 timings per device are still the fed ones). */
static void test_split_desc_weights_first(void **state)
{
    fixture *f = FIX(state);
    static const double even[2] = {1.0, 1.0};
    chain c;
    hst_stream_desc d;
    hst_stream *s;
    hst_stream_report rep;
    rng_seed(33);
    split_chain(&c, 40, "-DHST_TEST_WEIGHTS=1");
    d = ch_desc(&c, f->be, 2);
    d.weights = even;
    snprintf(cfg, sizeof cfg, "desc.weights first");
    s = split_create(f, &d);
    split_feed(hst_stream_choice_op(s), split_sig(&c), 1e-3, 3e-3);
    split_run(f, &c, s, &rep);
    split_expect(&rep, 20);
    snprintf(cfg, sizeof cfg, "desc.weights, second run");
    split_run(f, &c, s, &rep);
    split_expect(&rep, 30);
    hst_stream_destroy(s);
    ch_free(&c);
}

/* A device 1000x slower still gets one slice (its share rounds to none), so it is timed again
   and can win its share back; the results are unchanged. */
static void test_split_keeps_one_slice(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s;
    hst_stream_report rep;
    rng_seed(36);
    split_chain(&c, 40, NULL);
    c.st[0].name = "keeps_one";
    d = ch_desc(&c, f->be, 2);
    snprintf(cfg, sizeof cfg, "keeps one slice");
    s = split_create(f, &d);
    split_feed(hst_stream_choice_op(s), split_sig(&c), 1e-3, 1.0);
    split_run(f, &c, s, &rep);
    assert_int_equal(rep.range_end[0] - rep.range_begin[0], 39);
    assert_int_equal(rep.range_end[1] - rep.range_begin[1], 1);
    hst_stream_destroy(s);
    ch_free(&c);
}

/* A run records a timing for every device that had slices, under its device identity. */
static void test_split_records_samples(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s;
    hst_stream_report rep;
    hst_choice_stat st[2];
    size_t n = 0;
    int64_t sig;
    unsigned i;
    rng_seed(34);
    split_chain(&c, 17, "-DHST_TEST_RECORDS=1");
    c.st[0].name = "records";   /* a chain of its own on the host device too */
    sig = split_sig(&c);
    d = ch_desc(&c, f->be, 2);
    snprintf(cfg, sizeof cfg, "records samples");
    s = split_create(f, &d);
    assert_int_equal(hst_choice_stats(hst_stream_choice_op(s), &sig, 1, st, 2, &n), HST_SUCCESS);
    assert_int_equal(st[0].samples + st[1].samples, 0);   /* a new chain: nothing known */
    split_run(f, &c, s, &rep);
    assert_int_equal(hst_choice_stats(hst_stream_choice_op(s), &sig, 1, st, 2, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    for (i = 0; i < 2; i++) {
        const hst_device_info *info = hst_backend_device(f->be[i]);
        char id[512], name[8];
        snprintf(id, sizeof id, "%s | %s", info->name, info->driver_version);
        snprintf(name, sizeof name, "d%u", i);
        assert_string_equal(st[i].impl, name);
        assert_string_equal(st[i].device, id);
        assert_true(rep.range_end[i] > rep.range_begin[i]);   /* 17 slices split evenly */
        assert_true(st[i].samples >= 1);
        assert_int_equal(st[i].source, HST_CHOICE_EXACT);
        assert_true(st[i].seconds > 0.0);   /* zero-second runs are not recorded */
    }
    hst_stream_destroy(s);
    ch_free(&c);
}

/* One device: nothing to split, no op. */
static void test_split_one_device(void **state)
{
    fixture *f = FIX(state);
    chain c;
    hst_stream_desc d;
    hst_stream *s;
    hst_stream_report rep;
    rng_seed(35);
    split_chain(&c, 9, NULL);
    d = ch_desc(&c, f->be, 1);
    s = split_create(f, &d);
    assert_null(hst_stream_choice_op(s));
    assert_null(hst_stream_choice_op(NULL));
    ch_reset(&c);
    assert_int_equal(hst_stream_run(s, &rep), HST_SUCCESS);
    ch_check_arrays(&c);
    hst_stream_destroy(s);
    ch_free(&c);
}

int main(void)
{
    const struct CMUnitTest sweep[] = {
        cmocka_unit_test_setup(test_sweep_bitwise, test_setup),
        cmocka_unit_test_setup(test_small_n_halos, test_setup),
        cmocka_unit_test_setup(test_set_num_slices, test_setup),
        cmocka_unit_test_setup(test_grad_div_streamed, test_setup),
        cmocka_unit_test_setup(test_accumulators_pyqmri, test_setup),
        cmocka_unit_test_setup(test_accumulators_f64_c128, test_setup),
        cmocka_unit_test_setup(test_caller_queues, test_setup),
        cmocka_unit_test_setup(test_global_accumulation, test_setup),
    };
    const struct CMUnitTest control[] = {
        cmocka_unit_test_setup(test_cancel, test_setup),
        cmocka_unit_test_setup(test_host_twin_error, test_setup),
        cmocka_unit_test_setup(test_pinned_arrays, test_setup),
        cmocka_unit_test_setup(test_pinned_chunked, test_setup),
        cmocka_unit_test_setup(test_pinned_array_api, test_setup),
        cmocka_unit_test_setup(test_pinned_array_rules, test_setup),
        cmocka_unit_test_setup(test_no_host_twin, test_setup),
        cmocka_unit_test_setup(test_declared_stages, test_setup),
        cmocka_unit_test_setup(test_arrays_fn_chain, test_setup),
        cmocka_unit_test_setup(test_arrays_fn_refused, test_setup),
        cmocka_unit_test_setup(test_default_block_rule, test_setup),
        cmocka_unit_test_setup(test_copy_model_measured, test_setup),
        cmocka_unit_test_setup(test_set_array_rotation, test_setup),
        cmocka_unit_test_setup(test_set_array_swap_halo0, test_setup),
    };
    const struct CMUnitTest errors[] = {
        cmocka_unit_test_setup(test_errors_arguments, test_setup),
        cmocka_unit_test_setup(test_errors_shapes, test_setup),
        cmocka_unit_test_setup(test_errors_aliasing, test_setup),
        cmocka_unit_test_setup(test_errors_budget, test_setup),
    };
    const struct CMUnitTest leaks[] = {
        cmocka_unit_test_setup(test_leaks_1000_runs, test_setup),
        cmocka_unit_test_setup(test_leaks_100_streams, test_setup),
    };
    const struct CMUnitTest split[] = {
        cmocka_unit_test_setup(test_split_from_registry, test_setup),
        cmocka_unit_test_setup(test_global_buffers, test_setup),
        cmocka_unit_test_setup(test_split_op_per_chain, test_setup),
        cmocka_unit_test_setup(test_split_desc_weights_first, test_setup),
        cmocka_unit_test_setup(test_split_keeps_one_slice, test_setup),
        cmocka_unit_test_setup(test_split_records_samples, test_setup),
        cmocka_unit_test_setup(test_split_one_device, test_setup),
        cmocka_unit_test_setup(test_block_query, test_setup),
    };
    int failed = 0;
    failed += cmocka_run_group_tests_name("stream_results", sweep, group_setup, group_teardown);
    failed += cmocka_run_group_tests_name("stream_split", split, group_setup, group_teardown);
    failed += cmocka_run_group_tests_name("stream_control", control, group_setup, group_teardown);
    failed += cmocka_run_group_tests_name("stream_errors", errors, group_setup, group_teardown);
    failed += cmocka_run_group_tests_name("stream_leaks", leaks, group_setup, group_teardown);
    return failed;
}
