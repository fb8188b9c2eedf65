/* tests/test_esrrf_api.c — esrrf.h: the batch call and the live API on the device under test
   ($HST_DEVICE, as tests/run.sh sets it), against the whole-stack computation of kernels_esrrf.h's
   host twins, and against each other:
   - batch == whole-stack twins (fused RGC twin over every frame, temporal twin over the whole
     stack, finalize, macro-pixel correction) bit for bit, for every mode, with and without
     macro-pixel correction, 1 and several time points, several block sizes, fused and chained;
   - live == batch bit for bit, frames pushed 1, 3 and 7 at a time, 1 and several time points,
     a shorter last time point (NanoPyx's remainder), frames_per_timepoint above the frames
     clamped (both also in batch == twins);
   - every combination of modes from one pass == single-mode runs; u8 / u16 / i16 / f32 inputs
     of the same values give the same bits;
   - two backends (this device twice, and host + this device) == one bit for bit (each computes
     its rows of every frame), host + a device without fp64 within float sums' rounding; two
     and three backends on odd frames whose shares cut macro-pixel rows == one bit for bit, with
     and without macro-pixel correction, over several time points, and a non-finite statistic
     in a lower backend's rows named as one backend names it;
   - errors: each with its code and log item (non-finite pixels with frame, row and column,
     bad magnification, radius, sensitivity, modes, too few frames for VAR/TAC2, overflowing
     sizes, a push of another frame size, a live session without callback), cancellation;
   - interruption (hst_backend_interrupt) during a batch run, on one backend and on two: the
     call returns HST_ERROR_CANCELLED and no block starts after it (the progress sees only the
     blocks already in flight: none on the host, one on an OpenCL CPU device, two on others);
     a call on the interrupted backend returns it at once; after hst_backend_interrupt_clear
     the backend runs again; on the host device a run of one long block (seconds) interrupted
     from another thread returns within 2 s of it, and after the clear gives the uninterrupted
     run's bits.
   Exact equality is the claim wherever the same operations run in the same order (kernels_esrrf.h's
   eSRRF section says when a device equals its host twin: fp64, for the double sums; the
   program has no float division or sqrt, so correctly rounded ones are not needed). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#define HST_IMPLEMENTATION
#define HST_KERNELS_TEST_API   /* hst_k_esrrf_rgc_fused_host: the references */
#include "esrrf.h"
#include "esrrf_twins.h"
#include "cap_log.h"

#define R 12
#define C 14
#define N 23
#define MAG 3

static hst_backend *be, *host;
static cap_log logs;
static float frames[N * R * C];
static int exact;   /* the device gives its twins' bits */

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

/* Blinking emitters on a background: integers 0..250, exact in every input dtype. */
static void make_frames(void)
{
    uint32_t s = 12345u;
    size_t z, y, x;
    for (z = 0; z < N; z++)
        for (y = 0; y < R; y++)
            for (x = 0; x < C; x++) {
                double v = 10.0 + 4.0 * ((s = s * 1664525u + 1013904223u) >> 29);
                double d1 = (double)y - 4.3, e1 = (double)x - 5.1, d2 = (double)y - 7.6, e2 = (double)x - 9.2;
                if ((z * 7 + 3) % 5 < 3) v += 200.0 * exp(-(d1 * d1 + e1 * e1) / 2.0);
                if ((z * 3 + 1) % 4 < 2) v += 180.0 * exp(-(d2 * d2 + e2 * e2) / 2.0);
                frames[(z * R + y) * C + x] = (float)floor(v > 250.0 ? 250.0 : v);
            }
}

static int setup(void **state)
{
    hst_backend_desc bd;
    (void)state;
    make_frames();
    memset(&bd, 0, sizeof bd);
    bd.logger = cap_logger;
    bd.log_user = &logs;
    bd.log_level = HST_LOG_WARN;
    if (hst_backend_create(&bd, &be) != HST_SUCCESS) return -1;
    bd.device = "host";
    if (hst_backend_create(&bd, &host) != HST_SUCCESS) return -1;
    exact = hst_backend_is_host(be) || hst_backend_device(be)->fp64;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
    return 0;
}

static void desc_init(hst_esrrf_desc *d, hst_backend **bes, unsigned nb)
{
    memset(d, 0, sizeof *d);
    d->backends = bes;
    d->num_backends = nb;
    d->magnification = MAG;
    d->radius = 1.5f;
    d->modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
}

/* Output images of the batch call: ntp x (R*MAG) x (C*MAG) per mode. */
typedef struct outs { float *m[HST_ESRRF_NUM_MODES]; uint64_t ntp; size_t px; } outs;

static void outs_alloc(outs *o, const hst_esrrf_desc *d, uint64_t n)
{
    uint32_t rm, cm;
    unsigned m;
    assert_int_equal(hst_esrrf_output_shape(d, n, R, C, &o->ntp, &rm, &cm), HST_SUCCESS);
    o->px = (size_t)rm * cm;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        o->m[m] = (float *)xmalloc(o->ntp * o->px * sizeof(float));
        memset(o->m[m], 0xff, o->ntp * o->px * sizeof(float));   /* NaN: untouched shows */
    }
}

static void outs_free(outs *o)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(o->m[m]);
}

static void batch(const hst_esrrf_desc *d, const void *stack, hst_esrrf_dtype dt, uint64_t n, outs *o)
{
    hst_result r;
    outs_alloc(o, d, n);
    r = hst_esrrf_run(d, stack, dt, n, R, C, o->m, NULL);
    if (r != HST_SUCCESS) {
        print_error("hst_esrrf_run: %s (%s)\n", hst_result_string(r), logs.last_message);
        fail();
    }
}

static void expect_same(const char *what, const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            print_error("%s: element %zu: %.9g vs %.9g\n", what, i, (double)a[i], (double)b[i]);
            fail();
        }
}

static void expect_outs(const char *what, const hst_esrrf_desc *d, const outs *a, const outs *b)
{
    unsigned m;
    assert_int_equal(a->ntp, b->ntp);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (d->modes & (1u << m)) {
            char w[160];
            snprintf(w, sizeof w, "%s, mode %u, %llu frames per time point", what, m,
                     (unsigned long long)d->frames_per_timepoint);
            expect_same(w, a->m[m], b->m[m], a->ntp * a->px);
        }
}

/* The whole stack through the host twins, in one piece: the reference. Time points as NanoPyx
   cuts them: T = frames_per_timepoint (0 or above n: n), the last one the remainder. */
static void whole_twins(const hst_esrrf_desc *d, uint64_t n, outs *o)
{
    uint64_t T = d->frames_per_timepoint && d->frames_per_timepoint < n ? d->frames_per_timepoint : n;
    uint64_t ntp = (n + T - 1) / T, tp;
    size_t px = (size_t)R * C * MAG * MAG;
    float *rgc = (float *)xmalloc(n * px * sizeof(float));
    double *acc = (double *)calloc(ntp * 5 * px, sizeof(double));
    unsigned m;
    assert_non_null(acc);
    outs_alloc(o, d, n);
    assert_int_equal(o->ntp, ntp);
    hst_k_esrrf_rgc_fused_host(frames, rgc, R, C, MAG, d->radius, d->sensitivity ? d->sensitivity : 1.0f,
                               !d->no_intensity_weighting, 0, 0, n, n);
    hst_k_esrrf_temporal_host(rgc, acc, (uint32_t)px, T, (uint32_t)ntp, 0, 0, n, 0, (uint32_t)px, 0, 0, n, 1);
    for (tp = 0; tp < ntp; tp++)
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
            float *img = o->m[m] + tp * px;
            uint64_t frames_tp = tp + 1 < ntp ? T : n - tp * T;
            hst_k_esrrf_finalize((int)m, acc + tp * 5 * px, px, (uint32_t)frames_tp, img);
            if (!d->no_macro_pixel_correction) et_macro_pixel(img, R * MAG, C * MAG, MAG);
        }
    free(rgc);
    free(acc);
}

/* ------------------------------------------------------------------ batch == whole twins */
static void test_batch_equals_twins(void **state)
{
    /* 23 frames: one time point, remainders of 3 and 2, 30 clamped to 23 */
    static const uint64_t Ts[4] = {0, 5, 7, 30}, blocks[3] = {0, 1, 4};
    static const hst_esrrf_path paths[2] = {HST_ESRRF_PATH_FUSED, HST_ESRRF_PATH_CHAINED};
    hst_esrrf_desc d;
    unsigned t, k, p;
    (void)state;
    if (!exact) { skip(); return; }
    for (t = 0; t < 4; t++)
        for (k = 0; k < 3; k++)
            for (p = 0; p < 2; p++) {
                outs ref, got;
                desc_init(&d, &be, 1);
                d.frames_per_timepoint = Ts[t];
                d.block_frames = blocks[k];
                d.path = paths[p];
                d.no_macro_pixel_correction = k == 2;
                whole_twins(&d, N, &ref);
                batch(&d, frames, HST_ESRRF_F32, N, &got);
                expect_outs("batch vs whole-stack twins", &d, &got, &ref);
                outs_free(&ref);
                outs_free(&got);
            }
}

/* A radius whose (w, wd) table exceeds the kernel's default (radius 3.5 at mag 3: 2025 entries
   against HST_K_ESRRF_WTAB): the fused path builds with a table that holds it where the device
   has the local memory (esrrf.h hst__e_wtab_fit), else weights per sample; the twins' bits
   either way. */
static void test_batch_large_table(void **state)
{
    hst_esrrf_desc d;
    outs ref, got;
    (void)state;
    if (!exact) { skip(); return; }
    assert_true(hst_k_esrrf_wtab_entries(MAG, 3.5f) > HST_K_ESRRF_WTAB);
    desc_init(&d, &be, 1);
    d.radius = 3.5f;
    d.path = HST_ESRRF_PATH_FUSED;
    whole_twins(&d, N, &ref);
    batch(&d, frames, HST_ESRRF_F32, N, &got);
    expect_outs("batch with a large table vs whole-stack twins", &d, &got, &ref);
    outs_free(&ref);
    outs_free(&got);
}

/* The automatic path (the choice measures both paths on pieces of a block) gives the same
   bits as a forced one. */
static void test_auto_path(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    outs a, b;
    (void)state;
    desc_init(&d, &be, 1);
    d.block_frames = 2;
    outs_alloc(&a, &d, N);
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, a.m, &rep), HST_SUCCESS);
    assert_true(rep.frames_by_path[0] + rep.frames_by_path[1] >= N);
    assert_int_equal(rep.frames, N);
    d.path = HST_ESRRF_PATH_CHAINED;
    batch(&d, frames, HST_ESRRF_F32, N, &b);
    expect_outs("auto vs chained", &d, &a, &b);
    outs_free(&a);
    outs_free(&b);
}

/* ------------------------------------------------------------------ live == batch */
typedef struct sink { outs o; uint64_t calls; } sink;

static void on_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    sink *s = (sink *)user;
    unsigned m;
    assert_int_equal(rm, R * MAG);
    assert_int_equal(cm, C * MAG);
    assert_int_equal(tp, s->calls);
    assert_true(tp < s->o.ntp);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (images[m]) memcpy(s->o.m[m] + tp * s->o.px, images[m], s->o.px * sizeof(float));
    s->calls++;
}

/* A live session on the n frames of stack (frames of R x C floats), step frames a push, its
   images into s, its report into *rep. */
static void live_stack(hst_esrrf_desc *d, const float *stack, uint64_t n, uint64_t step, sink *s,
                       hst_esrrf_report *rep)
{
    hst_esrrf_live *lv = NULL;
    uint64_t f;
    outs_alloc(&s->o, d, n);
    s->calls = 0;
    d->on_timepoint = on_tp;
    d->timepoint_user = s;
    assert_int_equal(hst_esrrf_live_create(d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    for (f = 0; f < n; f += step) {
        uint64_t k = n - f < step ? n - f : step;
        assert_int_equal(hst_esrrf_live_push(lv, stack + f * R * C, k, R, C), HST_SUCCESS);
    }
    assert_int_equal(hst_esrrf_live_finish(lv, rep), HST_SUCCESS);
    assert_int_equal(s->calls, s->o.ntp);
    assert_int_equal(rep->timepoints, s->o.ntp);
    assert_int_equal(rep->frames, n);   /* nothing dropped: the last time point takes the rest */
    assert_int_equal(rep->frames_per_timepoint,
                     d->frames_per_timepoint && d->frames_per_timepoint < n ? d->frames_per_timepoint : n);
    assert_int_equal(rep->last_timepoint_frames, n - (s->o.ntp - 1) * rep->frames_per_timepoint);
    hst_esrrf_live_destroy(lv);
}

static void live(hst_esrrf_desc *d, uint64_t n, unsigned step, sink *s)
{
    hst_esrrf_report rep;
    live_stack(d, frames, n, step, s, &rep);
}

static void test_live_equals_batch(void **state)
{
    static const unsigned steps[3] = {1, 3, 7};
    /* 23 frames: remainders 3, 5 and (T above the pieces of 16 frames) 3; 40 clamped */
    static const uint64_t Ts[5] = {0, 4, 6, 20, 40};
    hst_esrrf_desc d;
    unsigned s, t;
    (void)state;
    for (t = 0; t < 5; t++)
        for (s = 0; s < 3; s++) {
            outs ref;
            sink k;
            desc_init(&d, &be, 1);
            d.frames_per_timepoint = Ts[t];
            d.block_frames = 2;     /* live pieces of 8 frames: pieces cut inside time points */
            d.path = HST_ESRRF_PATH_FUSED;
            if (s == 1) d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR;   /* no lag-1 sums: no frame before */
            batch(&d, frames, HST_ESRRF_F32, N, &ref);
            live(&d, N, steps[s], &k);
            expect_outs("live vs batch", &d, &k.o, &ref);
            outs_free(&ref);
            outs_free(&k.o);
        }
}

/* A live session fed `sizes` frames per push (cycled until N), whose report and staging are
   checked: every frame goes through hand-offs of at most one staging buffer (HST_ESRRF_LIVE_BLOCKS
   blocks), the breakdown's times lie within the session, and finish frees pageable staging
   (the host device's; an OpenCL device's is pinned, freed by destroy). */
static void live_uneven(hst_esrrf_desc *d, const unsigned *sizes, unsigned nsizes, sink *s)
{
    uint64_t block = d->block_frames ? d->block_frames : HST__E_MIN_BLOCK, cap = block * HST_ESRRF_LIVE_BLOCKS;
    hst_esrrf_live *lv = NULL;
    hst_esrrf_report rep;
    uint64_t f;
    unsigned i;
    outs_alloc(&s->o, d, N);
    s->calls = 0;
    d->on_timepoint = on_tp;
    d->timepoint_user = s;
    assert_int_equal(hst_esrrf_live_create(d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    for (f = 0, i = 0; f < N; f += sizes[i++ % nsizes]) {
        uint64_t k = N - f < sizes[i % nsizes] ? N - f : sizes[i % nsizes];
        assert_int_equal(hst_esrrf_live_push(lv, frames + f * R * C, k, R, C), HST_SUCCESS);
    }
    assert_int_equal(hst_esrrf_live_finish(lv, &rep), HST_SUCCESS);
    assert_int_equal(s->calls, s->o.ntp);
    assert_int_equal(rep.frames, N);
    assert_true(rep.handoffs >= (N + cap - 1) / cap && rep.handoffs <= N);
    assert_true(rep.handoff_frames_max <= cap);
    assert_true(rep.handoff_frames_max * rep.handoffs >= N);   /* the largest carries the mean at least */
    assert_true(rep.push_copy_seconds >= 0 && rep.push_copy_seconds <= rep.seconds);
    assert_true(rep.push_wait_seconds >= 0 && rep.push_wait_seconds <= rep.seconds);
    assert_true(rep.worker_idle_seconds >= 0 && rep.worker_idle_seconds <= rep.seconds);
    assert_true(rep.finish_wait_seconds >= 0 && rep.finish_wait_seconds <= rep.seconds);
    for (i = 0; i < 2; i++)   /* pageable: freed by finish, beside the worker; pinned: kept */
        if (hst_backend_is_host(d->backends[0])) assert_null(lv->stage[i]);
        else assert_true(lv->pin[i] && lv->stage[i] == hst_buffer_host_ptr(lv->pin[i]));
    hst_esrrf_live_destroy(lv);
    d->on_timepoint = NULL;
}

/* Pushes of 1 frame, and of uneven sizes whose ends fall inside and at time points' ends; one
   time point and time points of 4 (a remainder of 3); blocks of 1, 2 and the default (hand-offs
   of at most 8, 16 and 128 frames); every mode (the lag-1 sums: each piece inside a time point
   reads the frame before it): the batch call's bits. A batch call's report has no live figures. */
static void test_live_uneven_pushes(void **state)
{
    static const unsigned one[1] = {1}, uneven[8] = {1, 2, 5, 1, 6, 3, 4, 1};
    static const uint64_t Ts[2] = {0, 4}, blocks[3] = {1, 2, 0};
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    unsigned t, b, u;
    (void)state;
    for (t = 0; t < 2; t++)
        for (b = 0; b < 3; b++)
            for (u = 0; u < 2; u++) {
                outs ref;
                sink k;
                desc_init(&d, &be, 1);
                d.frames_per_timepoint = Ts[t];
                d.block_frames = blocks[b];
                d.path = HST_ESRRF_PATH_FUSED;
                outs_alloc(&ref, &d, N);
                assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, ref.m, &rep), HST_SUCCESS);
                assert_int_equal(rep.handoffs, 0);
                assert_true(rep.push_copy_seconds == 0 && rep.worker_idle_seconds == 0 && rep.finish_wait_seconds == 0);
                live_uneven(&d, u ? uneven : one, u ? 8 : 1, &k);
                expect_outs("live (uneven pushes) vs batch", &d, &k.o, &ref);
                outs_free(&ref);
                outs_free(&k.o);
            }
}

/* The pinned staging of OpenCL devices is kept on the backend from one session to the next:
   one session at a time takes the kept pair (a session beside it makes its own, which its
   destroy frees), a larger session grows the pair, a smaller one reuses it, and a backend with
   a device memory limit keeps none; sessions side by side, pushed in turns, give the batch
   call's bits. The host device stages in pageable memory. */
static void test_live_staging_kept(void **state)
{
    static const uint64_t blocks[3] = {2, 4, 1};
    hst_esrrf_desc d[2];
    hst_esrrf_live *lv[2] = {NULL, NULL};
    hst_esrrf_report rep;
    hst_buffer *was[2] = {NULL, NULL};
    outs ref;
    sink k[2];
    uint64_t f;
    unsigned i, j;
    (void)state;
    desc_init(&d[0], &be, 1);
    d[0].block_frames = 2;
    d[0].path = HST_ESRRF_PATH_FUSED;
    batch(&d[0], frames, HST_ESRRF_F32, N, &ref);
    for (i = 0; i < 2; i++) {   /* two sessions at once, fed in turns */
        d[i] = d[0];
        outs_alloc(&k[i].o, &d[i], N);
        k[i].calls = 0;
        d[i].on_timepoint = on_tp;
        d[i].timepoint_user = &k[i];
        assert_int_equal(hst_esrrf_live_create(&d[i], HST_ESRRF_F32, R, C, &lv[i]), HST_SUCCESS);
    }
    for (f = 0; f < N; f++)
        for (i = 0; i < 2; i++) assert_int_equal(hst_esrrf_live_push(lv[i], frames + f * R * C, 1, R, C), HST_SUCCESS);
    for (i = 0; i < 2; i++) {
        assert_int_equal(hst_esrrf_live_finish(lv[i], &rep), HST_SUCCESS);
        expect_outs("two live sessions at once vs batch", &d[i], &k[i].o, &ref);
        outs_free(&k[i].o);
    }
    if (hst_backend_is_host(be)) {
        for (i = 0; i < 2; i++) assert_true(!lv[i]->pin[0] && !lv[i]->pin[1] && !lv[i]->stage[0] && !lv[i]->stage[1]);
        assert_null(hst_backend_extension(be, HST__ELIVE_EXTENSION));
    } else {
        assert_true(lv[0]->pin_kept && !lv[1]->pin_kept);   /* the first takes the kept pair */
        for (i = 0; i < 2; i++) assert_true(lv[1]->pin[i] && lv[1]->pin[i] != lv[0]->pin[i]);
        was[0] = lv[0]->pin[0];
        was[1] = lv[0]->pin[1];
    }
    for (i = 0; i < 2; i++) hst_esrrf_live_destroy(lv[i]);
    for (j = 0; j < 3; j++) {   /* blocks of 4 (larger staging), then 1 (smaller) */
        sink one;
        d[0].block_frames = blocks[j];
        live(&d[0], N, 1, &one);
        expect_outs("live after live vs batch", &d[0], &one.o, &ref);
        outs_free(&one.o);
        if (!hst_backend_is_host(be)) {
            hst__ekept *kept = (hst__ekept *)hst_backend_extension(be, HST__ELIVE_EXTENSION);
            assert_true(kept && !kept->taken);
            for (i = 0; i < 2; i++) {
                size_t need = (size_t)(blocks[j] * HST_ESRRF_LIVE_BLOCKS + 1) * R * C * sizeof(float);
                assert_true(hst_buffer_bytes(kept->buf[i]) >= need);
                if (j != 1) assert_ptr_equal(kept->buf[i], was[i]);   /* large enough: reused */
                was[i] = kept->buf[i];
            }
        }
    }
    if (!hst_backend_is_host(be)) {   /* a device memory limit: each session its own pair */
        hst_backend_desc bd;
        hst_backend *lim;
        hst_esrrf_live *own = NULL;
        memset(&bd, 0, sizeof bd);
        bd.device_memory_limit_bytes = (uint64_t)1 << 30;
        assert_int_equal(hst_backend_create(&bd, &lim), HST_SUCCESS);
        d[0].backends = &lim;
        d[0].on_timepoint = on_tp;
        d[0].timepoint_user = &k[0];
        assert_int_equal(hst_esrrf_live_create(&d[0], HST_ESRRF_F32, R, C, &own), HST_SUCCESS);
        assert_true(own->pin[0] && own->pin[1] && !own->pin_kept);
        hst_esrrf_live_destroy(own);
        assert_null(hst_backend_extension(lim, HST__ELIVE_EXTENSION));
        assert_int_equal(hst_backend_device_bytes(lim), 0);   /* the pair went with the session */
        assert_int_equal(hst_backend_destroy(lim), HST_SUCCESS);
    }
    outs_free(&ref);
}

/* Sessions and callers take turns on a backend (hst_backend_lock): while the caller holds the
   lock, the worker runs nothing (2 frames complete time point 0, handed off at once, yet no
   time point arrives in 0.3 s; a third frame waits in the other buffer, and a fourth would
   wait for the worker: not pushed); once released, the session gives the batch call's bits. */
static void test_live_waits_for_backend_lock(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    hst_esrrf_report rep;
    struct timespec ts = {0, 300000000L};
    outs ref;
    sink k;
    (void)state;
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 2;
    batch(&d, frames, HST_ESRRF_F32, N, &ref);
    outs_alloc(&k.o, &d, N);
    k.calls = 0;
    d.on_timepoint = on_tp;
    d.timepoint_user = &k;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    hst_backend_lock(be);
    assert_int_equal(hst_esrrf_live_push(lv, frames, 3, R, C), HST_SUCCESS);
    while (nanosleep(&ts, &ts) != 0) {}
    assert_int_equal(k.calls, 0);
    hst_backend_unlock(be);
    assert_int_equal(hst_esrrf_live_push(lv, frames + 3 * R * C, N - 3, R, C), HST_SUCCESS);
    assert_int_equal(hst_esrrf_live_finish(lv, &rep), HST_SUCCESS);
    assert_int_equal(k.calls, k.o.ntp);
    expect_outs("live after the caller's lock vs batch", &d, &k.o, &ref);
    hst_esrrf_live_destroy(lv);
    outs_free(&k.o);
    outs_free(&ref);
}

/* ------------------------------------------------------------------ modes, dtypes, backends */
static void test_modes_one_pass(void **state)
{
    hst_esrrf_desc d;
    outs all, one;
    unsigned set, m;
    (void)state;
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 7;
    d.block_frames = 3;   /* blocks cut time points: without TAC2 they load no frame before */
    d.path = HST_ESRRF_PATH_FUSED;
    batch(&d, frames, HST_ESRRF_F32, N, &all);
    for (set = 1; set < 8; set++) {
        d.modes = set;
        batch(&d, frames, HST_ESRRF_F32, N, &one);
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
            size_t i, n = one.ntp * one.px;
            if (!(set & (1u << m))) {   /* an unrequested mode's output is not written */
                for (i = 0; i < n; i++) assert_true(isnan(one.m[m][i]));
                continue;
            }
            expect_same("one mode vs all modes", one.m[m], all.m[m], n);
        }
        outs_free(&one);
    }
    outs_free(&all);
}

static void test_dtypes(void **state)
{
    static const hst_esrrf_dtype dts[3] = {HST_ESRRF_U8, HST_ESRRF_U16, HST_ESRRF_I16};
    size_t n = (size_t)N * R * C, i;
    unsigned char *u8 = (unsigned char *)xmalloc(n);
    uint16_t *u16 = (uint16_t *)xmalloc(n * 2);
    int16_t *i16 = (int16_t *)xmalloc(n * 2);
    const void *src[3];
    hst_esrrf_desc d;
    outs ref, got;
    unsigned k;
    (void)state;
    for (i = 0; i < n; i++) {
        u8[i] = (unsigned char)frames[i];
        u16[i] = (uint16_t)frames[i];
        i16[i] = (int16_t)frames[i];
    }
    src[0] = u8; src[1] = u16; src[2] = i16;
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 5;
    d.path = HST_ESRRF_PATH_FUSED;
    batch(&d, frames, HST_ESRRF_F32, N, &ref);
    for (k = 0; k < 3; k++) {
        batch(&d, src[k], dts[k], N, &got);
        expect_outs("integer input vs f32 input", &d, &got, &ref);
        outs_free(&got);
    }
    outs_free(&ref);
    free(u8);
    free(u16);
    free(i16);
}

/* The host's rows (double sums) against a device without fp64 (float sums): the float sums
   round at ~6e-8 relative per frame, and VAR and TAC2 cancel terms of size mu^2 (kernels_esrrf.h:
   ~1e-7 mu^2 absolute); for this test's few frames 1e-5 of the image's peak bounds both. */
static void expect_near(const char *what, const hst_esrrf_desc *d, const outs *a, const outs *b)
{
    unsigned m;
    size_t i, n = a->ntp * a->px;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        double peak = 0;
        if (!(d->modes & (1u << m))) continue;
        for (i = 0; i < n; i++) if (fabs(b->m[m][i]) > peak) peak = fabs(b->m[m][i]);
        for (i = 0; i < n; i++) {
            double x = a->m[m][i], y = b->m[m][i];
            if (fabs(x - y) > 1e-5 * peak) {
                print_error("%s: mode %u element %zu: %.9g vs %.9g\n", what, m, i, x, y);
                fail();
            }
        }
    }
}

static void test_two_backends(void **state)
{
    hst_backend *two[2];
    hst_esrrf_desc d;
    outs one, got;
    unsigned k;
    (void)state;
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 0;
    d.path = HST_ESRRF_PATH_FUSED;
    d.block_frames = 3;
    batch(&d, frames, HST_ESRRF_F32, N, &one);
    for (k = 0; k < 2; k++) {   /* this device twice; the host and this device */
        hst_backend_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.logger = cap_logger;
        bd.log_user = &logs;
        bd.log_level = HST_LOG_WARN;
        bd.device = hst_backend_is_host(be) ? "host" : NULL;
        two[0] = k ? host : be;
        assert_int_equal(hst_backend_create(&bd, &two[1]), HST_SUCCESS);
        d.backends = two;
        d.num_backends = 2;
        batch(&d, frames, HST_ESRRF_F32, N, &got);
        if (k && !hst_backend_is_host(be) && !hst_backend_device(be)->fp64)
            expect_near("host + device without fp64 vs one device", &d, &got, &one);
        else
            expect_outs(k ? "host + device vs one device" : "two backends vs one", &d, &got, &one);
        outs_free(&got);
        assert_int_equal(hst_backend_destroy(two[1]), HST_SUCCESS);
    }
    outs_free(&one);
}

/* Several backends finish their own rows (the macro-pixel correction's sums continued from
   backend to backend, the finite check), on odd frames whose shares cut macro-pixel rows (33
   magnified rows: 16 + 17, 11 + 11 + 11): the images are one backend's bits with the
   correction on and off, over one and several time points (the last one shorter); a
   non-finite statistic in a lower backend's rows of time point 1 fails as on one backend,
   naming the same pixel, after the same callbacks; a cancel by backend 0's progress, mid-way
   and at the last frame (the others then wait for its turn in the sums), ends every backend. */
#define RO 11
#define CO 13
#define NO 17

static int cancel_at(uint64_t done, uint64_t total, void *user);

static void count_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    uint64_t *calls = (uint64_t *)user;
    (void)images;
    assert_int_equal(rm, RO * MAG);
    assert_int_equal(cm, CO * MAG);
    assert_int_equal(tp, *calls);
    ++*calls;
}

/* out[m]: ntp x (RO*MAG) x (CO*MAG) per mode, NaN-filled; the call's result, log and callbacks. */
static hst_result run_odd(const hst_esrrf_desc *d, const float *stack, float **out, size_t n, char *msg,
                          uint64_t *calls)
{
    hst_result r;
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) memset(out[m], 0xff, n * sizeof(float));
    cap_reset(&logs);
    *calls = 0;
    r = hst_esrrf_run(d, stack, HST_ESRRF_F32, NO, RO, CO, out, NULL);
    snprintf(msg, 4096, "%s", logs.last_message);
    return r;
}

static void test_rows_finish_equals_one(void **state)
{
    static float odd[NO * RO * CO];
    hst_backend *bes[3];
    hst_esrrf_desc d;
    float *one[HST_ESRRF_NUM_MODES], *got[HST_ESRRF_NUM_MODES];
    char msg_one[4096], msg_got[4096];
    uint64_t T, calls_one, calls_got;
    size_t i, n = 4 * (size_t)RO * CO * MAG * MAG;   /* 4 time points at most */
    unsigned k, m, nb;
    int macro;
    (void)state;
    for (i = 0; i < (size_t)NO * RO * CO; i++) odd[i] = frames[i % (size_t)(N * R * C)];
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) { one[m] = (float *)xmalloc(n * sizeof(float)); got[m] = (float *)xmalloc(n * sizeof(float)); }
    bes[0] = be;
    for (k = 1; k < 3; k++) {   /* more backends of this device */
        hst_backend_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.logger = cap_logger;
        bd.log_user = &logs;
        bd.log_level = HST_LOG_WARN;
        bd.device = hst_backend_is_host(be) ? "host" : NULL;
        assert_int_equal(hst_backend_create(&bd, &bes[k]), HST_SUCCESS);
    }
    for (macro = 0; macro < 2; macro++)
        for (T = 0; T <= 5; T += 5) {
            desc_init(&d, bes, 1);
            d.path = HST_ESRRF_PATH_FUSED;
            d.frames_per_timepoint = T;
            d.no_macro_pixel_correction = !macro;
            d.on_timepoint = count_tp;
            d.timepoint_user = &calls_one;
            assert_int_equal(run_odd(&d, odd, one, n, msg_one, &calls_one), HST_SUCCESS);
            for (nb = 2; nb <= 3; nb++) {
                char what[96];
                d.num_backends = nb;
                d.timepoint_user = &calls_got;
                assert_int_equal(run_odd(&d, odd, got, n, msg_got, &calls_got), HST_SUCCESS);
                assert_int_equal(calls_got, calls_one);
                for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
                    snprintf(what, sizeof what, "%u backends, correction %d, T %llu, mode %u", nb, macro,
                             (unsigned long long)T, m);
                    expect_same(what, got[m], one[m], calls_one * (size_t)RO * CO * MAG * MAG);
                }
            }
        }
    d.num_backends = 3;   /* backend 0's progress cancels mid-way, and at the end (the others wait for its turn) */
    d.frames_per_timepoint = 5;
    d.no_macro_pixel_correction = 0;
    d.progress = cancel_at;
    for (T = 6; T <= NO; T += NO - 6) {
        d.progress_user = &T;
        assert_int_equal(run_odd(&d, odd, got, n, msg_got, &calls_got), HST_ERROR_CANCELLED);
        assert_int_equal(calls_got, 0);
    }
    d.progress = NULL;
    for (i = 5 * (size_t)RO * CO; i < 10 * (size_t)RO * CO; i++)   /* time point 1, input rows 8..10 */
        if (i % ((size_t)RO * CO) >= 8 * (size_t)CO) odd[i] *= 1e18f;
    for (macro = 0; macro < 2; macro++) {
        desc_init(&d, bes, 1);
        d.path = HST_ESRRF_PATH_FUSED;
        d.frames_per_timepoint = 5;
        d.no_macro_pixel_correction = !macro;
        d.on_timepoint = count_tp;
        d.timepoint_user = &calls_one;
        assert_int_equal(run_odd(&d, odd, one, n, msg_one, &calls_one), HST_ERROR_NON_FINITE);
        assert_non_null(strstr(msg_one, "image of time point 1"));
        assert_int_equal(calls_one, 1);
        for (nb = 2; nb <= 3; nb++) {
            d.num_backends = nb;
            d.timepoint_user = &calls_got;
            assert_int_equal(run_odd(&d, odd, got, n, msg_got, &calls_got), HST_ERROR_NON_FINITE);
            assert_string_equal(msg_got, msg_one);
            assert_int_equal(logs.counts[HST_LOGITEM_NON_FINITE], 1);   /* one line, as one backend */
            assert_int_equal(calls_got, 1);
        }
    }
    for (k = 1; k < 3; k++) assert_int_equal(hst_backend_destroy(bes[k]), HST_SUCCESS);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) { free(one[m]); free(got[m]); }
}

/* ------------------------------------------------------------------ errors */
#define EXPECT_REFUSED(call, code, item, text) do {                                       \
        cap_reset(&logs);                                                                \
        assert_int_equal((call), (code));                                                \
        assert_true(logs.counts[(item)] >= 1);                                           \
        if (!strstr(logs.last_message, (text))) {                                        \
            print_error("log: '%s' lacks '%s'\n", logs.last_message, (text));            \
            fail();                                                                      \
        }                                                                                \
    } while (0)

static void test_errors(void **state)
{
    hst_esrrf_desc d;
    outs o;
    float *bad = (float *)xmalloc(sizeof frames);
    hst_esrrf_live *lv = NULL;
    (void)state;
    desc_init(&d, &be, 1);
    outs_alloc(&o, &d, N);
    memcpy(bad, frames, sizeof frames);
    bad[(9 * R + 4) * C + 11] = INFINITY;
    EXPECT_REFUSED(hst_esrrf_run(&d, bad, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_NON_FINITE,
                   HST_LOGITEM_NON_FINITE, "frame 9, row 4, column 11 is infinite");
    bad[(9 * R + 4) * C + 11] = frames[(9 * R + 4) * C + 11];
    bad[(20 * R + 0) * C + 2] = NAN;
    EXPECT_REFUSED(hst_esrrf_run(&d, bad, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_NON_FINITE,
                   HST_LOGITEM_NON_FINITE, "frame 20, row 0, column 2 is NaN");
    {   /* one bad field at a time on a good desc: refused, the log naming it */
        static const struct { unsigned mag, modes; float radius, sens; uint64_t T, n; const char *text; } bad_desc[] = {
            { 33, 0, 0, 0, 0, N, "magnification 33" },
            { 0, 0, -1.0f, 0, 0, N, "radius -1" },
            { 0, 0, NAN, 0, 0, N, "radius nan" },
            { 0, 0, 0, 1000.0f, 0, N, "sensitivity 1000" },
            { 0, 8, 0, 0, 0, N, "modes 0x8" },
            { 0, 0, 0, 0, 1, N, "at least 2 frames" },   /* VAR/TAC2, 1 frame per time point */
            { 0, 0, 0, 0, 0, 1, "at least 2 frames" },   /* VAR/TAC2, a 1-frame stack */
        };
        size_t k;
        for (k = 0; k < sizeof bad_desc / sizeof bad_desc[0]; k++) {
            desc_init(&d, &be, 1);
            if (bad_desc[k].mag) d.magnification = bad_desc[k].mag;
            if (bad_desc[k].modes) d.modes = bad_desc[k].modes;
            if (bad_desc[k].radius != 0.0f) d.radius = bad_desc[k].radius;
            if (bad_desc[k].sens != 0.0f) d.sensitivity = bad_desc[k].sens;
            d.frames_per_timepoint = bad_desc[k].T;
            EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, bad_desc[k].n, R, C, o.m, NULL),
                           HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, bad_desc[k].text);
        }
    }
    desc_init(&d, &be, 1);
    d.modes = HST_ESRRF_AVG;
    EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, 60000, 60000, o.m, NULL), HST_ERROR_OVERFLOW,
                   HST_LOGITEM_SIZE_OVERFLOW, "32-bit");
    EXPECT_REFUSED(hst_esrrf_run(&d, frames, (hst_esrrf_dtype)9, N, R, C, o.m, NULL), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_OUT_OF_RANGE, "dtype 9");
    d.modes = HST_ESRRF_VAR;
    {
        float *none[3] = {NULL, NULL, NULL};
        EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, none, NULL), HST_ERROR_INVALID_ARGUMENT,
                       HST_LOGITEM_NULL_ARGUMENT, "out[1] is NULL");
    }
    /* live: no callback; another frame size; a non-finite frame reaches later pushes */
    desc_init(&d, &be, 1);
    EXPECT_REFUSED(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_NULL_ARGUMENT, "on_timepoint is NULL");
    assert_null(lv);
    d.on_timepoint = on_tp;
    d.block_frames = 1;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    EXPECT_REFUSED(hst_esrrf_live_push(lv, frames, 1, R, C + 1), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                   "the session's are 12 x 14");
    bad[(20 * R + 0) * C + 2] = frames[(20 * R + 0) * C + 2];
    bad[(2 * R + 3) * C + 5] = -INFINITY;
    {
        hst_result r = HST_SUCCESS;
        uint64_t f;
        for (f = 0; f < N && r == HST_SUCCESS; f++) r = hst_esrrf_live_push(lv, bad + f * R * C, 1, R, C);
        if (r == HST_SUCCESS) r = hst_esrrf_live_finish(lv, NULL);
        assert_int_equal(r, HST_ERROR_NON_FINITE);
        assert_non_null(strstr(logs.last_message, "frame 2, row 3, column 5 is infinite"));
        assert_int_equal(hst_esrrf_live_push(lv, frames, 1, R, C), HST_ERROR_INVALID_ARGUMENT);   /* FAILED */
    }
    hst_esrrf_live_destroy(lv);
    outs_free(&o);
    free(bad);
}

static int cancel_at(uint64_t done, uint64_t total, void *user)
{
    (void)total;
    return done >= *(const uint64_t *)user;
}

static void test_cancel(void **state)
{
    hst_esrrf_desc d;
    uint64_t at = 5;
    outs o;
    (void)state;
    desc_init(&d, &be, 1);
    d.block_frames = 2;
    d.progress = cancel_at;
    d.progress_user = &at;
    outs_alloc(&o, &d, N);
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_CANCELLED);
    outs_free(&o);
}

/* Interrupts `be` (as a signal handler would: hst_backend_interrupt is async-signal-safe) once
   the progress reaches `at` frames; counts the calls and keeps the frames first and last seen. */
typedef struct interrupt_at { hst_backend *be; uint64_t at, first, last; unsigned calls; } interrupt_at;

static int interrupt_progress(uint64_t done, uint64_t total, void *user)
{
    interrupt_at *it = (interrupt_at *)user;
    (void)total;
    it->calls++;
    it->last = done;
    if (!it->first && done >= it->at) {
        it->first = done;
        hst_backend_interrupt(it->be);
    }
    return 0;   /* the interruption alone stops the run */
}

/* One batch run of N frames in blocks of 2 on bes[0..nb), interrupting `target` after the first
   block: cancelled, and no block starts after it (the blocks in flight on be's kind of device
   may finish); then at once on the interrupted backend; then, cleared, a run succeeds. */
static void interrupt_case(hst_backend **bes, unsigned nb, hst_backend *target)
{
    const uint64_t block = 2, in_flight = hst_backend_is_host(be) ? 0 : hst_backend_device(be)->type == HST_DEVICE_CPU ? 1 : 2;
    hst_esrrf_desc d;
    interrupt_at it;
    outs o;
    desc_init(&d, bes, nb);
    d.block_frames = block;
    d.path = HST_ESRRF_PATH_FUSED;   /* no timing pieces, whose progress is quiet */
    d.progress = interrupt_progress;
    d.progress_user = &it;
    outs_alloc(&o, &d, N);
    memset(&it, 0, sizeof it);
    it.be = target;
    it.at = 1;
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_CANCELLED);
    assert_true(hst_backend_interrupted(target));
    assert_true(it.first > 0 && it.first <= block);   /* backend 0's rows: the call's progress */
    if (it.last > it.first + in_flight * block) {
        print_error("%u backend(s): interrupted at frame %llu, the progress went on to %llu\n", nb,
                    (unsigned long long)it.first, (unsigned long long)it.last);
        fail();
    }
    it.calls = 0;   /* interrupted: at once, before any block */
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_CANCELLED);
    assert_int_equal(it.calls, 0);
    hst_backend_interrupt_clear(target);
    d.progress = NULL;
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_SUCCESS);
    outs_free(&o);
}

static void test_interrupt(void **state)
{
    hst_backend *two[2];
    (void)state;
    two[0] = be; two[1] = host;
    interrupt_case(two, 1, be);
    interrupt_case(two, 2, host);   /* the second backend's: every backend's rows stop */
}

/* The host device's latency: a stack whose run takes seconds (LN frames of LR x LR at mag LMAG,
   one time point, AVG, automatic path and blocks, no progress callback: as Python's Ctrl-C
   finds it). It is one block (16 frames: the smallest automatic block), so a check per block
   alone stopped it only at its end, about 4 s on 2 cores. */
#define LN 16
#define LR 384
#define LMAG 5

static double mono_s(void)
{
    struct timespec t;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t), 0);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Interrupts be `delay` seconds after its start, from its own thread (as a signal handler
   would), keeping when (CLOCK_MONOTONIC). */
typedef struct late_interrupt { hst_backend *be; double delay, at; } late_interrupt;

static void *late_interrupt_main(void *p)
{
    late_interrupt *li = (late_interrupt *)p;
    struct timespec ts;
    ts.tv_sec = (time_t)li->delay;
    ts.tv_nsec = (long)((li->delay - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0) {}   /* interrupted by a signal: sleeps the rest */
    li->at = mono_s();
    hst_backend_interrupt(li->be);
    return NULL;
}

/* The stack: integers 0..250 (noise, two blinking spots), as make_frames. */
static float *latency_stack(void)
{
    float *st = (float *)xmalloc((size_t)LN * LR * LR * sizeof(float));
    uint32_t s = 777u;
    size_t z, i;
    for (z = 0; z < LN; z++)
        for (i = 0; i < (size_t)LR * LR; i++) {
            double y = (double)(i / LR) - 140.3, x = (double)(i % LR) - 170.6;
            double v = 10.0 + 4.0 * ((s = s * 1664525u + 1013904223u) >> 29);
            if (z % 3) v += 200.0 * exp(-(x * x + y * y) / 8.0);
            st[z * LR * LR + i] = (float)floor(v > 250.0 ? 250.0 : v);
        }
    return st;
}

/* Interrupted a fraction into a run (at most 200 ms), the run returns HST_ERROR_CANCELLED
   within 2 s of the interruption (a bound on correctness, far above the ~0.03 s seen on 2
   busy cores; the check per block took the rest of the run, several seconds); then, cleared,
   the backend's run gives the uninterrupted run's bits. On the host device in every run (it
   checks within the block, an OpenCL device at the next one: test_interrupt covers those), so
   that no run of the main job's tests skips it. */
static void test_interrupt_latency(void **state)
{
    const size_t px = (size_t)LR * LMAG * LR * LMAG;
    hst_backend *hb = host;
    float *stack = latency_stack(), *ref[HST_ESRRF_NUM_MODES] = {NULL}, *out[HST_ESRRF_NUM_MODES] = {NULL};
    hst_esrrf_desc d;
    late_interrupt li;
    pthread_t th;
    double t0, t_ref, t_end;
    hst_result r;
    (void)state;
    memset(&d, 0, sizeof d);
    d.backends = &hb;
    d.num_backends = 1;
    d.magnification = LMAG;
    d.radius = 1.5f;
    d.modes = HST_ESRRF_AVG;
    ref[0] = (float *)xmalloc(px * sizeof(float));
    out[0] = (float *)xmalloc(px * sizeof(float));
    t0 = mono_s();
    assert_int_equal(hst_esrrf_run(&d, stack, HST_ESRRF_F32, LN, LR, LR, ref, NULL), HST_SUCCESS);
    t_ref = mono_s() - t0;
    li.be = host;
    li.delay = t_ref / 4 < 0.2 ? t_ref / 4 : 0.2;   /* well inside the run on any machine */
    li.at = 0.0;
    assert_int_equal(pthread_create(&th, NULL, late_interrupt_main, &li), 0);
    r = hst_esrrf_run(&d, stack, HST_ESRRF_F32, LN, LR, LR, out, NULL);
    t_end = mono_s();
    assert_int_equal(pthread_join(th, NULL), 0);
    hst_backend_interrupt_clear(host);   /* before any assertion: the later tests use host */
    assert_int_equal(r, HST_ERROR_CANCELLED);
    if (t_end - li.at > 2.0) {
        print_error("the run returned %.3f s after the interruption (%.3f s into a run of %.3f s)\n",
                    t_end - li.at, li.delay, t_ref);
        fail();
    }
    memset(out[0], 0xff, px * sizeof(float));
    assert_int_equal(hst_esrrf_run(&d, stack, HST_ESRRF_F32, LN, LR, LR, out, NULL), HST_SUCCESS);
    expect_same("after an interrupted run, cleared", out[0], ref[0], px);
    free(ref[0]);
    free(out[0]);
    free(stack);
}

/* hst_esrrf_backend_create: "auto" gives the host device exactly where plain auto gives an
   OpenCL CPU device; any other selector is hst_backend_create's. */
static void test_backend_choice(void **state)
{
    hst_backend_desc bd;
    hst_backend *plain = NULL, *got = NULL;
    int host_instead = -1;
    (void)state;
    memset(&bd, 0, sizeof bd);
    bd.device = "auto";
    bd.log_level = HST_LOG_ERROR;
    assert_int_equal(hst_backend_create(&bd, &plain), HST_SUCCESS);
    assert_int_equal(hst_esrrf_backend_create(&bd, &got, &host_instead), HST_SUCCESS);
    assert_int_equal(host_instead, hst_backend_device(plain)->type == HST_DEVICE_CPU);
    if (host_instead) assert_true(hst_backend_is_host(got));
    else assert_string_equal(hst_backend_device(got)->name, hst_backend_device(plain)->name);
    assert_int_equal(hst_backend_destroy(got), HST_SUCCESS);
    bd.device = hst_backend_is_host(be) ? "host" : "cpu";   /* explicit: taken as it is */
    if (!hst_backend_is_host(be) && hst_backend_device(be)->type != HST_DEVICE_CPU) bd.device = "gpu";
    assert_int_equal(hst_esrrf_backend_create(&bd, &got, &host_instead), HST_SUCCESS);
    assert_int_equal(host_instead, 0);
    assert_int_equal(hst_backend_is_host(got), hst_backend_is_host(be));
    assert_int_equal(hst_backend_destroy(got), HST_SUCCESS);
    assert_int_equal(hst_backend_destroy(plain), HST_SUCCESS);
}

/* ------------------------------------------------------------------ trust at the edges */
/* Zero frames, rows or cols: INVALID_ARGUMENT with its log item on every entry point (one
   backend, two backends, the shape query, the live API), the caller's images untouched. */
static void test_zero_frames(void **state)
{
    hst_backend *two[2];
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    sink s;
    outs o;
    unsigned nb;
    uint64_t ntp = 7;
    (void)state;
    two[0] = be; two[1] = host;
    desc_init(&d, &be, 1);
    outs_alloc(&o, &d, N);
    for (nb = 1; nb <= 2; nb++) {
        size_t i;
        desc_init(&d, two, nb);
        EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, 0, R, C, o.m, NULL), HST_ERROR_INVALID_ARGUMENT,
                       HST_LOGITEM_ZERO_SIZE, "frames is 0");
        EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, 0, C, o.m, NULL), HST_ERROR_INVALID_ARGUMENT,
                       HST_LOGITEM_ZERO_SIZE, "rows and cols must be > 0");
        EXPECT_REFUSED(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, 0, o.m, NULL), HST_ERROR_INVALID_ARGUMENT,
                       HST_LOGITEM_ZERO_SIZE, "rows and cols must be > 0");
        for (i = 0; i < o.ntp * o.px; i++) assert_true(isnan(o.m[0][i]));   /* untouched */
    }
    desc_init(&d, &be, 1);
    EXPECT_REFUSED(hst_esrrf_output_shape(&d, 0, R, C, &ntp, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_ZERO_SIZE, "frames is 0");
    assert_int_equal(ntp, 7);
    d.on_timepoint = on_tp;
    d.timepoint_user = &s;
    EXPECT_REFUSED(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, 0, &lv), HST_ERROR_INVALID_ARGUMENT,
                   HST_LOGITEM_ZERO_SIZE, "rows and cols must be > 0");
    assert_null(lv);
    d.frames_per_timepoint = 4;   /* with or without time points: no frames is no result */
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    EXPECT_REFUSED(hst_esrrf_live_push(lv, frames, 0, R, C), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE,
                   "count is 0");
    EXPECT_REFUSED(hst_esrrf_live_finish(lv, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE,
                   "no frames were pushed");
    hst_esrrf_live_destroy(lv);
    outs_free(&o);
}

/* The live session's states: a second finish, a push after finish, any call after a failure
   are INVALID_ARGUMENT with their log item, and a refused argument leaves the session open. */
static void test_live_states(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    hst_esrrf_report rep;
    float *bad = (float *)xmalloc(sizeof frames);
    sink s;
    (void)state;
    desc_init(&d, &be, 1);
    outs_alloc(&s.o, &d, N);
    s.calls = 0;
    d.on_timepoint = on_tp;
    d.timepoint_user = &s;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    EXPECT_REFUSED(hst_esrrf_live_push(lv, NULL, 1, R, C), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT,
                   "frames is NULL");
    EXPECT_REFUSED(hst_esrrf_live_push(lv, frames, 1, R + 1, C), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                   "the session's are");
    assert_int_equal(hst_esrrf_live_push(lv, frames, N, R, C), HST_SUCCESS);   /* still open */
    assert_int_equal(hst_esrrf_live_finish(lv, &rep), HST_SUCCESS);
    assert_int_equal(s.calls, 1);
    memset(&rep, 0x5a, sizeof rep);
    EXPECT_REFUSED(hst_esrrf_live_finish(lv, &rep), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "hst_esrrf_live_finish: the session is finished");
    assert_int_equal(rep.frames, 0x5a5a5a5a5a5a5a5aULL);   /* not written */
    EXPECT_REFUSED(hst_esrrf_live_push(lv, frames, 1, R, C), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "hst_esrrf_live_push: the session is finished");
    EXPECT_REFUSED(hst_esrrf_live_finish(lv, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "is finished");   /* a refused push does not change the state */
    assert_int_equal(s.calls, 1);
    hst_esrrf_live_destroy(lv);
    /* FAILED: the worker's error once, then INVALID_ARGUMENT naming it */
    memcpy(bad, frames, sizeof frames);
    bad[(1 * R + 2) * C + 3] = NAN;
    d.block_frames = 1;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    {
        hst_result r = hst_esrrf_live_push(lv, bad, N, R, C);
        if (r == HST_SUCCESS) r = hst_esrrf_live_finish(lv, NULL);
        assert_int_equal(r, HST_ERROR_NON_FINITE);
    }
    EXPECT_REFUSED(hst_esrrf_live_push(lv, frames, 1, R, C), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "failed earlier (HST_ERROR_NON_FINITE)");
    EXPECT_REFUSED(hst_esrrf_live_finish(lv, NULL), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "failed earlier (HST_ERROR_NON_FINITE)");
    hst_esrrf_live_destroy(lv);
    outs_free(&s.o);
    free(bad);
}

/* A backend destroyed under a live session: refused, naming the session; after the session,
   it goes. */
static void test_backend_held_by_live(void **state)
{
    hst_backend_desc bd = cap_desc(&logs);
    hst_backend *mine = NULL;
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    sink s;
    (void)state;
    bd.device = hst_backend_device(be)->selector;
    bd.log_level = HST_LOG_WARN;
    assert_int_equal(hst_backend_create(&bd, &mine), HST_SUCCESS);
    desc_init(&d, &mine, 1);
    d.on_timepoint = on_tp;
    d.timepoint_user = &s;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    assert_true(hst_backend_holds(mine) >= 1);
    EXPECT_REFUSED(hst_backend_destroy(mine), HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE,
                   "hst_esrrf_live");
    assert_non_null(strstr(logs.last_message, "still uses the backend"));
    hst_esrrf_live_destroy(lv);
    assert_int_equal(hst_backend_holds(mine), 0);
    assert_int_equal(hst_backend_destroy(mine), HST_SUCCESS);
}

/* Finite input, finite images or an error: VAR and TAC2 of values near 1e20 (near 1e40: no
   float32) fail naming the time point and statistic, in the batch and the live API; values
   near 1e15 give finite images of every mode. */
static void test_finite_output(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    float *big = (float *)xmalloc(sizeof frames);
    outs o;
    sink s;
    size_t i;
    unsigned m;
    (void)state;
    for (i = 0; i < (size_t)N * R * C; i++) big[i] = frames[i] * 1e18f;   /* 1e19 .. 2.5e20 */
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 10;
    d.modes = HST_ESRRF_VAR;
    outs_alloc(&o, &d, N);
    EXPECT_REFUSED(hst_esrrf_run(&d, big, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_NON_FINITE,
                   HST_LOGITEM_NON_FINITE, "the VAR image of time point 0 is not representable in float32");
    d.modes = HST_ESRRF_TAC2;
    EXPECT_REFUSED(hst_esrrf_run(&d, big, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_NON_FINITE,
                   HST_LOGITEM_NON_FINITE, "the TAC2 image of time point 0");
    d.modes = HST_ESRRF_VAR;
    d.on_timepoint = on_tp;
    d.timepoint_user = &s;
    s.o = o;
    s.calls = 0;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    {
        hst_result r = hst_esrrf_live_push(lv, big, N, R, C);
        if (r == HST_SUCCESS) r = hst_esrrf_live_finish(lv, NULL);
        assert_int_equal(r, HST_ERROR_NON_FINITE);
        assert_non_null(strstr(logs.last_message, "the VAR image of time point 0"));
        assert_int_equal(s.calls, 0);   /* no image reached the callback */
    }
    hst_esrrf_live_destroy(lv);
    for (i = 0; i < (size_t)N * R * C; i++) big[i] = frames[i] * 1e13f;   /* VAR near 1e30: fits */
    desc_init(&d, &be, 1);
    d.frames_per_timepoint = 10;
    assert_int_equal(hst_esrrf_run(&d, big, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_SUCCESS);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        for (i = 0; i < o.ntp * o.px; i++) assert_true(isfinite(o.m[m][i]));
    outs_free(&o);
    free(big);
}

/* The host device reports the cores its twins use (eSRRF's stages: one thread per online
   processor) as its compute units, in the device list and on a backend. */
static void test_host_compute_units(void **state)
{
    hst_device_info list[16];
    size_t n = 0, i;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    (void)state;
    assert_true(cores >= 1);
    assert_int_equal(hst_backend_device(host)->compute_units, (unsigned)cores);
    assert_int_equal(hst_devices(list, 16, &n), HST_SUCCESS);
    for (i = 0; i < n && i < 16; i++)
        if (list[i].type == HST_DEVICE_HOST) assert_int_equal(list[i].compute_units, (unsigned)cores);
}

/* ------------------------------------------------------------------ quiet successful runs */
static void tp_avg(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    (void)tp;
    memcpy(user, images[0], (size_t)rm * cm * sizeof(float));
}

/* A run that succeeds logs nothing at WARN or above (the backend's logger captures from WARN
   up): the zero desc (NanoPyx's defaults, the path chosen by measured speed), the same under a
   device budget that holds 4 chained frames per block where the automatic block asks for 16
   (stream.h's block query sizes the blocks: no refused create, no retry; the chained path
   forced, as auto may never run it), and a live session
   of one frame per push. The budget changes no bit; live gives the batch's bits. */
static void test_default_runs_quiet(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    outs a, b;
    float *img;
    uint64_t f;
    (void)state;
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    cap_reset(&logs);
    batch(&d, frames, HST_ESRRF_F32, N, &a);
    d.budget_bytes = 3 * (4 + 1) * 175000;   /* chained: about 170,000 bytes per frame at mag 5 */
    d.path = HST_ESRRF_PATH_CHAINED;          /* (auto may not run it where it is known slower) */
    batch(&d, frames, HST_ESRRF_F32, N, &b);
    expect_outs("chained under a budget of 4 frames per block vs auto without", &d, &a, &b);
    d.budget_bytes = 0;
    d.path = HST_ESRRF_PATH_AUTO;
    img = (float *)xmalloc(a.px * sizeof(float));
    d.on_timepoint = tp_avg;
    d.timepoint_user = img;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    for (f = 0; f < N; f++)
        assert_int_equal(hst_esrrf_live_push(lv, frames + f * R * C, 1, R, C), HST_SUCCESS);
    assert_int_equal(hst_esrrf_live_finish(lv, NULL), HST_SUCCESS);
    hst_esrrf_live_destroy(lv);
    expect_same("live vs batch, default desc", img, a.m[0], a.px);
    if (logs.total) {
        print_error("%u messages at WARN or above on successful runs; the last: %s\n", logs.total, logs.last_message);
        fail();
    }
    free(img);
    outs_free(&a);
    outs_free(&b);
}

/* ------------------------------------------------------------------ the choice follows its timings */
/* Once both paths have timings at a signature, every frame of a run goes through the faster
   one (no revisit, no measuring piece), and a lasting change of the timings moves every frame
   to the other. Where the choice has shipped estimates (the host device, OpenCL CPUs), a
   measured fused path slower than the chained path's shipped figure (a loaded machine, a first
   run's compiles) keeps every frame: the shipped ratio says chained is slower still. A backend
   of its own, timings in memory only (nothing from the disk). */
static void run_with_timings(hst_backend *b, double fused_s, double chained_s, int expect_path)
{
    static const char *const names[2] = {"fused", "chained"};
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    hst_choice_op *op;
    int64_t sig[4] = {R, C, MAG, 4};
    unsigned k, i;
    outs o;
    desc_init(&d, &b, 1);
    d.block_frames = 4;   /* the signature's chunk */
    outs_alloc(&o, &d, N);
    if (!(op = hst_choice_find(b, "esrrf"))) {   /* registered by a first run */
        assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_SUCCESS);
        assert_non_null(op = hst_choice_find(b, "esrrf"));
    }
    for (k = 0; k < HST_CHOICE_HISTORY; k++)
        for (i = 0; i < 2; i++)
            if ((i ? chained_s : fused_s) > 0.0)   /* 0: no timing recorded */
                assert_int_equal(hst_choice_record(op, sig, 4, names[i], i ? chained_s : fused_s), HST_SUCCESS);
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, &rep), HST_SUCCESS);
    assert_int_equal(rep.frames_by_path[expect_path], N);
    assert_int_equal(rep.frames_by_path[1 - expect_path], 0);
    assert_int_equal(rep.decided_by, HST_ESRRF_BY_MEASURED);
    outs_free(&o);
}

/* A backend of the device under test whose choice timings stay in memory (nothing from the
   disk, nothing written). */
static hst_backend *memory_backend(void)
{
    hst_backend_desc bd;
    hst_choice_desc cd;
    hst_backend *b = NULL;
    memset(&bd, 0, sizeof bd);
    bd.device = hst_backend_is_host(be) ? "host" : NULL;
    bd.logger = cap_logger;
    bd.log_user = &logs;
    bd.log_level = HST_LOG_WARN;
    assert_int_equal(hst_backend_create(&bd, &b), HST_SUCCESS);
    memset(&cd, 0, sizeof cd);
    cd.path = "off";
    assert_int_equal(hst_choice_configure(b, &cd), HST_SUCCESS);
    return b;
}

static void test_choice_follows_timings(void **state)
{
    hst_backend *b;
    (void)state;
    if (getenv("HST_FORCE")) { skip(); return; }
    b = memory_backend();
    if (hst_backend_is_host(b) || hst_backend_device(b)->type == HST_DEVICE_CPU)
        run_with_timings(b, 1000.0, 0.0, 0);   /* fused measured far above chained's shipped figure */
    run_with_timings(b, 1.0, 9.0, 0);
    run_with_timings(b, 9.0, 1.0, 1);   /* a full history of the opposite: chained now */
    assert_int_equal(hst_backend_destroy(b), HST_SUCCESS);
}

/* be's "esrrf" operation registered without shipped estimates, as on a GPU (the host's and
   CPUs' estimates count as timings everywhere). */
static hst_choice_op *register_unestimated(hst_backend *b)
{
    static const hst_choice_impl impls[2] = { { "fused", hst__erun_fused, NULL, NULL, NULL, 0, NULL },
                                              { "chained", hst__erun_chained, NULL, NULL, NULL, 0, NULL } };
    hst_choice_op_desc od;
    hst_choice_op *op = NULL;
    memset(&od, 0, sizeof od);
    od.name = "esrrf";
    od.impls = impls;
    od.num_impls = 2;
    assert_int_equal(hst_choice_register(b, &od, &op), HST_SUCCESS);
    return op;
}

/* Once the choice will not explore (the only path without timings here is over
   HST_CHOICE_EXPLORE_SLOWER times slower at the nearest signature), the run stops cutting its
   frames into measuring pieces (a block here): fused is measured once at the new signature, then
   the rest of the frames run as one piece (a run cut into one-block pieces pays every block's
   upload unhidden; a live session with its own block size met that on every piece). The bits
   stay the forced path's. A backend of its own, timings in memory only, its "esrrf" operation
   registered here without shipped estimates, as on a GPU (the host's and CPUs' estimates
   count as timings everywhere). */
static void test_measuring_ends(void **state)
{
    static const char *const names[2] = {"fused", "chained"};
    hst_backend *b;
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    hst_choice_op *op;
    hst_choice_stat st[2];
    int64_t near[4] = {R, C, MAG, 4}, sig[4] = {R, C, MAG, 2};
    size_t n = 0;
    unsigned k, i;
    outs o, ref;
    (void)state;
    if (getenv("HST_FORCE")) { skip(); return; }
    b = memory_backend();
    op = register_unestimated(b);
    desc_init(&d, &b, 1);
    d.block_frames = 4;
    outs_alloc(&o, &d, N);
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_SUCCESS);   /* warm-ups */
    for (k = 0; k < HST_CHOICE_HISTORY; k++)
        for (i = 0; i < 2; i++)
            assert_int_equal(hst_choice_record(op, near, 4, names[i], i ? 9.0 : 1.0), HST_SUCCESS);
    d.block_frames = 2;   /* a signature without timings of its own */
    assert_int_equal(hst_esrrf_run(&d, frames, HST_ESRRF_F32, N, R, C, o.m, &rep), HST_SUCCESS);
    assert_int_equal(rep.frames_by_path[0], N);
    assert_int_equal(hst_choice_stats(op, sig, 4, st, 2, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(st[0].source, HST_CHOICE_EXACT);
    assert_true(st[0].samples >= 1 && st[0].samples <= 2);   /* one measuring piece, then one piece */
    assert_int_equal(st[1].samples, 0);
    d.path = HST_ESRRF_PATH_FUSED;
    batch(&d, frames, HST_ESRRF_F32, N, &ref);
    expect_outs("auto (measuring ended) vs fused", &d, &o, &ref);
    outs_free(&ref);
    outs_free(&o);
    assert_int_equal(hst_backend_destroy(b), HST_SUCCESS);
}

/* Blocks longer than HST__E_MEASURE_FRAMES frames per backend are measured on pieces of that
   many frames per backend: the timings land at that signature, none at the block's. (With whole
   blocks, a first call on 21,474 frames on an H200 ran two of its sixteen blocks, 2,686 frames,
   through the slower path; with 64 frames however many backends share a piece, each timed
   64 / n.) One backend in a batch call; two (this device twice) in a live session, which splits
   a piece's frames among its backends. The bits stay the forced path's. */
static void expect_measuring_pieces_bounded(unsigned nb)
{
    const size_t nl = 4u * nb * HST__E_MEASURE_FRAMES + 8, blk = nl / 2;   /* 4 pieces: 2 per path */
    hst_backend *b[2];
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    hst_choice_op *op;
    hst_choice_stat st[2];
    int64_t piece[4] = {R, C, MAG, (int64_t)nb * HST__E_MEASURE_FRAMES}, block[4] = {R, C, MAG, (int64_t)blk};
    size_t n = 0, i;
    float *stack;
    sink got;
    outs ref;
    assert_non_null(stack = (float *)malloc(nl * R * C * sizeof(float)));
    for (i = 0; i < nl * R * C; i++) stack[i] = frames[i % ((size_t)N * R * C)];
    for (i = 0; i < nb; i++) b[i] = memory_backend();
    op = register_unestimated(b[0]);   /* the choice lives on the first backend */
    desc_init(&d, b, nb);
    d.block_frames = blk;
    if (nb == 1) {
        outs_alloc(&got.o, &d, nl);
        assert_int_equal(hst_esrrf_run(&d, stack, HST_ESRRF_F32, nl, R, C, got.o.m, &rep), HST_SUCCESS);
    } else {
        live_stack(&d, stack, nl, blk, &got, &rep);
        d.on_timepoint = NULL;
    }
    assert_int_equal(rep.frames_by_path[0] + rep.frames_by_path[1], nl);
    /* each path measured on a piece at least; which one takes the frames after the measuring
       is the timings' (CI's loaded machine once timed chained faster on the host device) */
    assert_true(rep.frames_by_path[0] >= nb * HST__E_MEASURE_FRAMES);
    assert_true(rep.frames_by_path[1] >= nb * HST__E_MEASURE_FRAMES);
    assert_int_equal(hst_choice_stats(op, piece, 4, st, 2, &n), HST_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(st[0].source, HST_CHOICE_EXACT);
    assert_int_equal(st[1].source, HST_CHOICE_EXACT);
    assert_int_equal(hst_choice_stats(op, block, 4, st, 2, &n), HST_SUCCESS);
    assert_int_not_equal(st[0].source, HST_CHOICE_EXACT);
    assert_int_not_equal(st[1].source, HST_CHOICE_EXACT);
    d.path = HST_ESRRF_PATH_FUSED;
    batch(&d, stack, HST_ESRRF_F32, nl, &ref);
    expect_outs("auto (pieces of HST__E_MEASURE_FRAMES per backend) vs fused", &d, &got.o, &ref);
    outs_free(&ref);
    outs_free(&got.o);
    free(stack);
    for (i = 0; i < nb; i++) assert_int_equal(hst_backend_destroy(b[i]), HST_SUCCESS);
}

static void test_measuring_pieces_bounded(void **state)
{
    (void)state;
    if (getenv("HST_FORCE")) { skip(); return; }
    expect_measuring_pieces_bounded(1);
    expect_measuring_pieces_bounded(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_equals_twins),
        cmocka_unit_test(test_batch_large_table),
        cmocka_unit_test(test_auto_path),
        cmocka_unit_test(test_live_equals_batch),
        cmocka_unit_test(test_live_uneven_pushes),
        cmocka_unit_test(test_live_staging_kept),
        cmocka_unit_test(test_live_waits_for_backend_lock),
        cmocka_unit_test(test_modes_one_pass),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_two_backends),
        cmocka_unit_test(test_rows_finish_equals_one),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_interrupt_latency),
        cmocka_unit_test(test_backend_choice),
        cmocka_unit_test(test_zero_frames),
        cmocka_unit_test(test_live_states),
        cmocka_unit_test(test_backend_held_by_live),
        cmocka_unit_test(test_finite_output),
        cmocka_unit_test(test_host_compute_units),
        cmocka_unit_test(test_default_runs_quiet),
        cmocka_unit_test(test_choice_follows_timings),
        cmocka_unit_test(test_measuring_ends),
        cmocka_unit_test(test_measuring_pieces_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
