/* The device interface's seam: a third device kind, the host device's table of operations behind
   a wrapper that counts calls (backend.h's HST_TEST_DEVICE_KIND), runs the array vocabulary and
   eSRRF unchanged; their results must equal the plain host device's bit for bit, and the
   counters show that the work went through the table (buffers, copies, declared-kernel
   launches). */
#define HST_TEST_DEVICE_KIND
#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "array.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

enum { N = 1000, T = 6, R = 24, C = 20, MAG = 2 };

/* A plain host device backend, or one switched to the counting table. */
static hst_backend *make_backend(int counting) {
    hst_backend_desc bd;
    hst_backend *be = NULL;
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    if (counting) assert_int_equal(hst_test_device_wrap(be), HST_SUCCESS);
    return be;
}

/* A few vocabulary operations on f32: x = 0.5 i; y = 3; y += 2 x; x *= -1.5; sums. */
static void run_vocab(hst_backend *be, float *x_out, float *y_out, double *sums) {
    size_t shape[1] = {N};
    float host[N];
    hst_array *x = NULL, *y = NULL;
    hst_scalar s;
    size_t i;
    for (i = 0; i < N; i++) host[i] = 0.5f * (float)i;
    assert_int_equal(hst_array_from_host(be, HST_F32, 1, shape, host, &x), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 1, shape, &y), HST_SUCCESS);
    memset(&s, 0, sizeof s);
    s.re = 3.0;
    assert_int_equal(hst_array_fill(y, s), HST_SUCCESS);
    s.re = 2.0;
    assert_int_equal(hst_array_axpy(y, s, x), HST_SUCCESS);
    s.re = -1.5;
    assert_int_equal(hst_array_scale(x, s), HST_SUCCESS);
    assert_int_equal(hst_array_sum(x, &s), HST_SUCCESS);
    sums[0] = s.re;
    assert_int_equal(hst_array_sum(y, &s), HST_SUCCESS);
    sums[1] = s.re;
    assert_int_equal(hst_array_read(x, x_out, sizeof(float) * N), HST_SUCCESS);
    assert_int_equal(hst_array_read(y, y_out, sizeof(float) * N), HST_SUCCESS);
    hst_array_destroy(x);
    hst_array_destroy(y);
}

static void test_vocab_through_the_table(void **state) {
    static float x0[N], y0[N], x1[N], y1[N];
    double s0[2], s1[2];
    hst_backend *plain = make_backend(0), *counted = make_backend(1);
    size_t i;
    (void)state;
    run_vocab(plain, x0, y0, s0);
    hst_test_device_reset();
    run_vocab(counted, x1, y1, s1);
    assert_memory_equal(x0, x1, sizeof x0);
    assert_memory_equal(y0, y1, sizeof y0);
    assert_memory_equal(s0, s1, sizeof s0);
    for (i = 0; i < N; i++) assert_true(y1[i] == 3.0f + 2.0f * 0.5f * (float)i);   /* exact in f32 */
    assert_true(hst_test_device_count("buffer_alloc") > 0);
    assert_true(hst_test_device_count("write") + hst_test_device_count("read") > 0);
    assert_true(hst_test_device_count("launch_declared") > 0);
    assert_int_equal(hst_backend_destroy(plain), HST_SUCCESS);
    assert_int_equal(hst_backend_destroy(counted), HST_SUCCESS);
}

/* A deterministic stack: a few bright spots over a gentle ramp, moving a little per frame. */
static void make_stack(float *stack) {
    size_t t, r, c;
    for (t = 0; t < T; t++)
        for (r = 0; r < R; r++)
            for (c = 0; c < C; c++) {
                double v = 10.0 + 0.25 * (double)r + 0.1 * (double)c;
                double dr = (double)r - 8.0 - 0.3 * (double)t, dc = (double)c - 7.0;
                double er = (double)r - 15.0, ec = (double)c - 12.0 - 0.2 * (double)t;
                v += 200.0 / (1.0 + dr * dr + dc * dc) + 150.0 / (1.0 + er * er + ec * ec);
                stack[(t * R + r) * C + c] = (float)v;
            }
}

static void run_esrrf(hst_backend *be, const float *stack, float *out[HST_ESRRF_NUM_MODES]) {
    hst_esrrf_desc d;
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = MAG;
    d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    assert_int_equal(hst_esrrf_run(&d, stack, HST_ESRRF_F32, T, R, C, out, NULL), HST_SUCCESS);
}

static void test_esrrf_through_the_table(void **state) {
    enum { PIX = R * MAG * C * MAG };
    static float stack[T * R * C], a[3][PIX], b[3][PIX];
    float *oa[HST_ESRRF_NUM_MODES] = {0}, *ob[HST_ESRRF_NUM_MODES] = {0};
    hst_backend *plain = make_backend(0), *counted = make_backend(1);
    int m;
    (void)state;
    for (m = 0; m < 3; m++) { oa[m] = a[m]; ob[m] = b[m]; }
    make_stack(stack);
    run_esrrf(plain, stack, oa);
    hst_test_device_reset();
    run_esrrf(counted, stack, ob);
    for (m = 0; m < 3; m++) assert_memory_equal(a[m], b[m], sizeof a[m]);
    assert_true(hst_test_device_count("launch_declared") > 0);
    assert_true(hst_test_device_count(NULL) > hst_test_device_count("launch_declared"));
    assert_int_equal(hst_backend_destroy(plain), HST_SUCCESS);
    assert_int_equal(hst_backend_destroy(counted), HST_SUCCESS);
}

/* The wrapper refuses a table it does not wrap; names and counts are well formed. */
static void test_wrap_rules(void **state) {
    unsigned i;
    (void)state;
    assert_int_equal(hst_test_device_wrap(NULL), HST_ERROR_INVALID_ARGUMENT);
    for (i = 0; hst_test_device_op_name(i); i++) assert_true(hst_test_device_op_name(i)[0] != '\0');
    assert_true(i > 40);
    hst_test_device_reset();
    assert_int_equal(hst_test_device_count(NULL), 0);
    assert_int_equal(hst_test_device_count("no such operation"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap_rules),
        cmocka_unit_test(test_vocab_through_the_table),
        cmocka_unit_test(test_esrrf_through_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
