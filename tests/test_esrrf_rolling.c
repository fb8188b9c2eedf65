/* tests/test_esrrf_rolling.c — esrrf.h's rolling time points (desc.rolling_step) on the device
   under test ($HST_DEVICE, as tests/run.sh sets it):
   - rolling == each window computed alone (hst_esrrf_run on the window's frames, one time
     point), for W a multiple of S, W not a multiple of S, S > W (gaps between windows) and
     W = T: within the bound esrrf.h's "Rolling" states (the window's double sums added in
     another order: a few float ulp, more where VAR or TAC2 cancel), and bit for bit where every
     sum is exact (identical frames; frames of which each window holds one that is not zero;
     blocks of one frame, gcd(W, S) = 1, whose ordered sum is the window's own order);
   - batch == live bit for bit, frames pushed 1, 3, 7 and 11 at a time and all at once; two
     backends (rows split) == one;
   - the shape floor((T - W) / S) + 1, the report, and the errors: a window larger than the
     stack (batch, shape query and live), rolling_step without a window, the sweep refusing it.
   The count of pixels that differ from the windows alone is printed (the docs' figure). */
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

#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "cap_log.h"

#define R 12
#define C 14
#define N 23
#define MAG 3
#define PX ((size_t)R * MAG * C * MAG)

static hst_backend *be;
static cap_log logs;
static float blink[N * R * C], same[N * R * C], sparse[N * R * C];

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

/* Blinking emitters on a background (integers 0..250, as tests/test_esrrf_api.c's); the same
   frame N times; frames that are zero but every 7th (a window of W <= 6 holds at most one). */
static void make_frames(void)
{
    uint32_t s = 12345u;
    size_t z, y, x, F = (size_t)R * C;
    for (z = 0; z < N; z++)
        for (y = 0; y < R; y++)
            for (x = 0; x < C; x++) {
                double v = 10.0 + 4.0 * ((s = s * 1664525u + 1013904223u) >> 29);
                double d1 = (double)y - 4.3, e1 = (double)x - 5.1, d2 = (double)y - 7.6, e2 = (double)x - 9.2;
                if ((z * 7 + 3) % 5 < 3) v += 200.0 * exp(-(d1 * d1 + e1 * e1) / 2.0);
                if ((z * 3 + 1) % 4 < 2) v += 180.0 * exp(-(d2 * d2 + e2 * e2) / 2.0);
                blink[(z * R + y) * C + x] = (float)floor(v > 250.0 ? 250.0 : v);
            }
    for (z = 0; z < N; z++) {
        memcpy(same + z * F, blink, F * sizeof(float));
        if (z % 7 == 3) memcpy(sparse + z * F, blink + z * F, F * sizeof(float));
        else memset(sparse + z * F, 0, F * sizeof(float));
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
    return hst_backend_create(&bd, &be) == HST_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    return 0;
}

static void desc_init(hst_esrrf_desc *d, uint64_t W, uint64_t S)
{
    memset(d, 0, sizeof *d);
    d->backends = &be;
    d->num_backends = 1;
    d->magnification = MAG;
    d->radius = 1.5f;
    d->modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    d->frames_per_timepoint = W;
    d->rolling_step = S;
}

/* ntp images of PX floats per mode. */
typedef struct outs { float *m[HST_ESRRF_NUM_MODES]; uint64_t ntp; } outs;

static void outs_alloc(outs *o, uint64_t ntp)
{
    unsigned m;
    o->ntp = ntp;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) o->m[m] = (float *)xmalloc(ntp * PX * sizeof(float));
}

static void outs_free(outs *o)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(o->m[m]);
}

/* The rolling batch call over frames [0, n) of fr, its shape checked. */
static void rolling(const float *fr, uint64_t n, uint64_t W, uint64_t S, outs *o)
{
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    uint64_t ntp = 0;
    desc_init(&d, W, S);
    assert_int_equal(hst_esrrf_output_shape(&d, n, R, C, &ntp, NULL, NULL), HST_SUCCESS);
    assert_int_equal(ntp, (n - W) / S + 1);
    outs_alloc(o, ntp);
    assert_int_equal(hst_esrrf_run(&d, fr, HST_ESRRF_F32, n, R, C, o->m, &rep), HST_SUCCESS);
    assert_int_equal(rep.timepoints, ntp);
    assert_int_equal(rep.frames, (ntp - 1) * S + W);
    assert_int_equal(rep.frames_per_timepoint, W);
    assert_int_equal(rep.last_timepoint_frames, W);
}

/* Each window computed alone: hst_esrrf_run over its W frames (one time point). */
static void windows(const float *fr, uint64_t W, uint64_t S, uint64_t ntp, outs *o)
{
    hst_esrrf_desc d;
    uint64_t k;
    unsigned m;
    outs_alloc(o, ntp);
    desc_init(&d, 0, 0);
    for (k = 0; k < ntp; k++) {
        float *one[HST_ESRRF_NUM_MODES];
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++) one[m] = o->m[m] + k * PX;
        assert_int_equal(hst_esrrf_run(&d, fr + k * S * R * C, HST_ESRRF_F32, W, R, C, one, NULL), HST_SUCCESS);
    }
}

/* Pixels of a and b that differ (bits), each required within the bound: 4 float ulp of the
   window's own value, or 1e-9 of its image's largest magnitude (the double sums' rounding,
   ~1e-16 of S2 / n, through VAR's and TAC2's cancellation and the macro-pixel correction's
   division, is far below both). */
static size_t compare(const char *what, const outs *a, const outs *b)
{
    size_t diff = 0, i;
    uint64_t k;
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        for (k = 0; k < a->ntp; k++) {
            const float *x = a->m[m] + k * PX, *y = b->m[m] + k * PX;
            float top = 0.0f;
            for (i = 0; i < PX; i++) top = fabsf(y[i]) > top ? fabsf(y[i]) : top;
            for (i = 0; i < PX; i++) {
                double tol = 4.0 * (nextafterf(fabsf(y[i]), INFINITY) - fabsf(y[i]));
                if (1e-9 * top > tol) tol = 1e-9 * top;
                if (memcmp(&x[i], &y[i], sizeof(float)) == 0) continue;
                diff++;
                if (!(fabs((double)x[i] - (double)y[i]) <= tol))
                    fail_msg("%s: mode %u window %llu pixel %zu: %.9g rolling, %.9g alone", what, m,
                             (unsigned long long)k, i, (double)x[i], (double)y[i]);
            }
        }
    return diff;
}

static void check_windows(const char *what, const float *fr, uint64_t n, uint64_t W, uint64_t S, int bitwise)
{
    outs a, b;
    size_t diff;
    rolling(fr, n, W, S, &a);
    windows(fr, W, S, a.ntp, &b);
    diff = compare(what, &a, &b);
    print_message("# %s W=%llu S=%llu: %zu of %zu floats differ from the windows alone\n", what,
                  (unsigned long long)W, (unsigned long long)S, diff, (size_t)a.ntp * PX * HST_ESRRF_NUM_MODES);
    if (bitwise) assert_int_equal(diff, 0);
    outs_free(&a);
    outs_free(&b);
}

static void test_rolling_equals_windows(void **state)
{
    (void)state;
    check_windows("S divides W", blink, N, 6, 2, 0);
    check_windows("S divides W", blink, N, 12, 4, 0);
    check_windows("gcd 2", blink, N, 10, 4, 0);
    check_windows("W = S", blink, N, 5, 5, 1);      /* one block per window: its own order */
    check_windows("gcd 1", blink, N, 7, 3, 1);      /* blocks of one frame: the window's order */
    check_windows("gaps", blink, N, 3, 5, 1);       /* S > W: gcd 1 */
    check_windows("gaps", blink, N, 4, 6, 0);       /* S > W: blocks of 2 */
    check_windows("W = T", blink, N, N, 4, 1);      /* one window, blocks of one frame */
}

static void test_rolling_exact_sums(void **state)
{
    (void)state;
    check_windows("identical frames", same, N, 12, 4, 1);   /* k x, k x^2 exact for k <= 32 */
    check_windows("identical frames", same, N, 9, 3, 1);
    check_windows("one nonzero frame per window", sparse, N, 6, 2, 1);
    check_windows("one nonzero frame per window", sparse, N, 6, 3, 1);
}

/* The live session's images, in order, into o. */
typedef struct sink { outs *o; uint64_t calls; } sink;

static void on_tp(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    sink *s = (sink *)user;
    unsigned m;
    assert_int_equal(rm * cm, PX);
    assert_int_equal(tp, s->calls);
    assert_true(tp < s->o->ntp);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) memcpy(s->o->m[m] + tp * PX, images[m], PX * sizeof(float));
    s->calls++;
}

static void test_live_equals_batch(void **state)
{
    static const uint64_t WS[4][2] = { {6, 2}, {5, 2}, {4, 6}, {N, 3} };
    static const unsigned steps[5] = {1, 3, 7, 11, N};
    unsigned c, s, m;
    (void)state;
    for (c = 0; c < 4; c++)
        for (s = 0; s < 5; s++) {
            hst_esrrf_desc d;
            hst_esrrf_live *lv = NULL;
            hst_esrrf_report rep;
            outs a, b;
            sink k;
            uint64_t f;
            rolling(blink, N, WS[c][0], WS[c][1], &a);
            outs_alloc(&b, a.ntp);
            k.o = &b; k.calls = 0;
            desc_init(&d, WS[c][0], WS[c][1]);
            d.on_timepoint = on_tp;
            d.timepoint_user = &k;
            assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
            for (f = 0; f < N; f += steps[s]) {
                uint64_t n = N - f < steps[s] ? N - f : steps[s];
                assert_int_equal(hst_esrrf_live_push(lv, blink + f * R * C, n, R, C), HST_SUCCESS);
            }
            assert_int_equal(hst_esrrf_live_finish(lv, &rep), HST_SUCCESS);
            hst_esrrf_live_destroy(lv);
            assert_int_equal(k.calls, a.ntp);
            assert_int_equal(rep.timepoints, a.ntp);
            assert_int_equal(rep.frames, (a.ntp - 1) * WS[c][1] + WS[c][0]);
            for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
                assert_memory_equal(a.m[m], b.m[m], a.ntp * PX * sizeof(float));
            outs_free(&a);
            outs_free(&b);
        }
}

/* Two backends (this device and the host device: each computes its rows of every frame, the
   rows path of hst_esrrf_run) give one backend's bits. */
static void test_two_backends(void **state)
{
    hst_backend *two[2], *host = NULL;
    hst_backend_desc bd;
    hst_esrrf_desc d;
    outs a, b;
    unsigned m;
    (void)state;
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    assert_int_equal(hst_backend_create(&bd, &host), HST_SUCCESS);
    two[0] = be; two[1] = host;
    rolling(blink, N, 6, 2, &a);
    outs_alloc(&b, a.ntp);
    desc_init(&d, 6, 2);
    d.backends = two;
    d.num_backends = 2;
    assert_int_equal(hst_esrrf_run(&d, blink, HST_ESRRF_F32, N, R, C, b.m, NULL), HST_SUCCESS);
    if (hst_backend_is_host(be) || hst_backend_device(be)->fp64)   /* else float sums: esrrf.h's "Bits" */
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
            assert_memory_equal(a.m[m], b.m[m], a.ntp * PX * sizeof(float));
    outs_free(&a);
    outs_free(&b);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

static void expect_refused(const char *field)
{
    assert_true(logs.counts[HST_LOGITEM_OUT_OF_RANGE] + logs.counts[HST_LOGITEM_BAD_ARGUMENT] >= 1);
    assert_non_null(strstr(logs.last_message, field));
}

static void test_errors(void **state)
{
    hst_esrrf_desc d;
    hst_esrrf_live *lv = NULL;
    hst_esrrf_sweep_desc sw;
    hst_esrrf_sweep_result res;
    float radius = 1.5f, sens = 1.0f;
    uint64_t ntp = 0;
    outs o;
    (void)state;
    outs_alloc(&o, 1);
    desc_init(&d, N + 1, 2);   /* a window larger than the stack */
    cap_reset(&logs);
    assert_int_equal(hst_esrrf_run(&d, blink, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_INVALID_ARGUMENT);
    expect_refused("frames_per_timepoint");
    cap_reset(&logs);
    assert_int_equal(hst_esrrf_output_shape(&d, N, R, C, &ntp, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    expect_refused("frames_per_timepoint");
    d.on_timepoint = on_tp;
    assert_int_equal(hst_esrrf_live_create(&d, HST_ESRRF_F32, R, C, &lv), HST_SUCCESS);
    assert_int_equal(hst_esrrf_live_push(lv, blink, N, R, C), HST_SUCCESS);
    cap_reset(&logs);
    assert_int_equal(hst_esrrf_live_finish(lv, NULL), HST_ERROR_INVALID_ARGUMENT);
    expect_refused("frames_per_timepoint");
    hst_esrrf_live_destroy(lv);
    desc_init(&d, 0, 2);       /* a step without a window */
    cap_reset(&logs);
    assert_int_equal(hst_esrrf_run(&d, blink, HST_ESRRF_F32, N, R, C, o.m, NULL), HST_ERROR_INVALID_ARGUMENT);
    expect_refused("rolling_step");
    desc_init(&d, 4, 2);       /* the sweep scores cut time points only */
    memset(&sw, 0, sizeof sw);
    sw.radii = &radius; sw.num_radii = 1; sw.sensitivities = &sens; sw.num_sensitivities = 1;
    cap_reset(&logs);
    assert_int_equal(hst_esrrf_sweep(&d, &sw, blink, HST_ESRRF_F32, N, R, C, NULL, &res), HST_ERROR_INVALID_ARGUMENT);
    expect_refused("rolling_step");
    outs_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_equals_windows),
        cmocka_unit_test(test_rolling_exact_sums),
        cmocka_unit_test(test_live_equals_batch),
        cmocka_unit_test(test_two_backends),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
