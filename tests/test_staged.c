/* Staged transfers (backend.h ">>staged transfers"): blocking writes and reads through the
   backend's two pinned pieces, here forced on every OpenCL device (HST_STAGE_ALWAYS: PoCL
   shares the host's memory, where the library copies directly) with small pieces of odd sizes
   (at most HST_STAGE_PIECE_BYTES 1000, at least HST_STAGE_PIECE_MIN_BYTES 300, else an eighth
   of the transfer: 512 at the threshold) and a small threshold, so that transfers of one piece,
   of many pieces with a short last one, at offsets, into and out of sub-buffers are all
   exercised. Every
   byte must arrive as written; the caller's source is not changed; transfers that do not stage
   (non-blocking, with events, under the threshold) still do what they did. On the host device
   nothing stages: the same checks hold. */
#define HST_STAGE_ALWAYS
#define HST_STAGE_MIN_BYTES ((size_t)4096)
#define HST_STAGE_PIECE_BYTES ((size_t)1000)
#define HST_STAGE_PIECE_MIN_BYTES ((size_t)300)
#define HST_IMPLEMENTATION
#include "backend.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cap_log.h"
#include "be_fixture.h"

enum { BYTES = 37 * 1000 + 123 };   /* 38 pieces, the last 123 bytes */

static void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
    size_t i;
    uint32_t x = seed * 2654435761u + 1u;
    for (i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (unsigned char)(x >> 24);
    }
}

/* Writes [off, off + n) of a buffer from a pattern, reads the whole buffer back staged and
   in one direct (non-blocking) read: both equal the expected bytes. */
static void check_write_read(hst_backend *be, size_t off, size_t n) {
    hst_queue *q = hst_backend_queue(be);
    unsigned char *src = (unsigned char *)malloc(BYTES), *keep = (unsigned char *)malloc(BYTES);
    unsigned char *want = (unsigned char *)malloc(BYTES), *got = (unsigned char *)malloc(BYTES);
    unsigned char *got2 = (unsigned char *)malloc(BYTES);
    hst_buffer *buf = NULL;
    hst_event ev = NULL;
    assert_non_null(src); assert_non_null(keep); assert_non_null(want); assert_non_null(got); assert_non_null(got2);
    assert_int_equal(hst_buffer_create(be, BYTES, 0, &buf), HST_SUCCESS);
    fill_pattern(want, BYTES, 1u);
    assert_int_equal(hst_write(q, buf, 0, want, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);   /* staged */
    fill_pattern(src, n, 2u);
    memcpy(keep, src, n);
    memcpy(want + off, src, n);
    assert_int_equal(hst_write(q, buf, off, src, n, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(src, keep, n);   /* the source untouched */
    memset(got, 0xA5, BYTES);
    assert_int_equal(hst_read(q, buf, 0, got, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);   /* staged */
    assert_memory_equal(got, want, BYTES);
    assert_int_equal(hst_read(q, buf, 0, got2, BYTES, 0, 0, NULL, &ev), HST_SUCCESS);   /* direct */
    assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
    hst_event_release(ev);
    assert_memory_equal(got2, want, BYTES);
    memset(got, 0x5A, BYTES);
    assert_int_equal(hst_read(q, buf, off, got, n, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, want + off, n);
    hst_buffer_destroy(buf);
    free(src); free(keep); free(want); free(got); free(got2);
}

/* Whole buffer; many pieces at an odd offset; exactly the threshold; one byte under it (direct). */
static void test_sizes_and_offsets(void **state) {
    hst_backend *be = BE(state);
    check_write_read(be, 0, BYTES);
    check_write_read(be, 777, BYTES - 777 - 5);
    check_write_read(be, 1000, HST_STAGE_MIN_BYTES);
    check_write_read(be, 3, HST_STAGE_MIN_BYTES - 1);
    check_write_read(be, 0, 2000);   /* pieces of the minimum, 300: the last 200 */
    /* they went through the pinned pieces on an OpenCL device, and nothing did on the host */
    assert_true(hst_backend_is_host(be) ? be->stage[0] == NULL && be->stage[1] == NULL
                                        : be->stage[0] != NULL && be->stage[1] != NULL && !be->stage_off);
}

/* A sub-buffer's transfers land at its origin in the parent. */
static void test_sub_buffer(void **state) {
    hst_backend *be = BE(state);
    hst_queue *q = hst_backend_queue(be);
    const size_t origin = 8192, n = 20000;
    unsigned char *want = (unsigned char *)malloc(BYTES), *got = (unsigned char *)malloc(BYTES);
    hst_buffer *parent = NULL, *sub = NULL;
    assert_non_null(want); assert_non_null(got);
    assert_int_equal(hst_buffer_create(be, BYTES, 0, &parent), HST_SUCCESS);
    fill_pattern(want, BYTES, 3u);
    assert_int_equal(hst_write(q, parent, 0, want, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    if (hst_buffer_create_sub(parent, origin, n, &sub) != HST_SUCCESS) {   /* alignment the device refuses */
        hst_buffer_destroy(parent);
        free(want); free(got);
        skip();
    }
    fill_pattern(want + origin, n, 4u);
    assert_int_equal(hst_write(q, sub, 0, want + origin, n, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, parent, 0, got, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, want, BYTES);
    memset(got, 0, n);
    assert_int_equal(hst_read(q, sub, 0, got, n, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, want + origin, n);
    hst_buffer_destroy(sub);
    hst_buffer_destroy(parent);
    free(want); free(got);
}

/* Writes with a wait list and an event are not staged and keep their order: a non-blocking
   write, then a blocking staged write of the same range, then a read, see the last. */
static void test_order_with_events(void **state) {
    hst_backend *be = BE(state);
    hst_queue *q = hst_backend_queue(be);
    unsigned char *a = (unsigned char *)malloc(BYTES), *b = (unsigned char *)malloc(BYTES);
    unsigned char *got = (unsigned char *)malloc(BYTES);
    hst_buffer *buf = NULL;
    hst_event ev = NULL;
    assert_non_null(a); assert_non_null(b); assert_non_null(got);
    assert_int_equal(hst_buffer_create(be, BYTES, 0, &buf), HST_SUCCESS);
    fill_pattern(a, BYTES, 5u);
    fill_pattern(b, BYTES, 6u);
    assert_int_equal(hst_write(q, buf, 0, a, BYTES, 0, 0, NULL, &ev), HST_SUCCESS);
    assert_int_equal(hst_write(q, buf, 0, b, BYTES, 1, 1, &ev, NULL), HST_SUCCESS);   /* waits: direct */
    hst_event_release(ev);
    assert_int_equal(hst_write(q, buf, 0, b, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);  /* staged */
    assert_int_equal(hst_read(q, buf, 0, got, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, b, BYTES);
    hst_buffer_destroy(buf);
    free(a); free(b); free(got);
}

/* Transfers from and to the backend's pinned buffers go directly (staging would add a copy
   and halve the rate): run first, before anything stages, so the pieces stay unmade; a range
   that does not lie inside one pinned buffer is not taken for pinned. */
static void test_pinned_direct(void **state) {
    hst_backend *be = BE(state);
    hst_queue *q = hst_backend_queue(be);
    unsigned char *want = (unsigned char *)malloc(BYTES), *host;
    hst_buffer *pin = NULL, *pin2 = NULL, *buf = NULL;
    assert_non_null(want);
    assert_int_equal(hst_pinned_create(be, BYTES, &pin), HST_SUCCESS);
    assert_int_equal(hst_pinned_create(be, 64, &pin2), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, BYTES, 0, &buf), HST_SUCCESS);
    host = (unsigned char *)hst_buffer_host_ptr(pin);
#ifndef HST_NO_OPENCL   /* (staging, and its test of pinned memory, exist with OpenCL only) */
    assert_true(hst__in_pinned(be, host, BYTES) && hst__in_pinned(be, host + 100, BYTES - 100));
    assert_false(hst__in_pinned(be, host + 100, BYTES - 99));   /* one byte past its end */
    assert_false(hst__in_pinned(be, want, BYTES));
#endif
    fill_pattern(want, BYTES, 7u);
    memcpy(host, want, BYTES);
    assert_int_equal(hst_write(q, buf, 0, host, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    memset(host, 0, BYTES);
    assert_int_equal(hst_read(q, buf, 0, host, BYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(host, want, BYTES);
    assert_true(be->stage[0] == NULL && be->stage[1] == NULL);   /* nothing went through the pieces */
    hst_buffer_destroy(pin);   /* no longer pinned: the list forgets it */
#ifndef HST_NO_OPENCL
    assert_false(hst__in_pinned(be, host, 1));
    assert_true(hst__in_pinned(be, hst_buffer_host_ptr(pin2), 64));
#endif
    hst_buffer_destroy(pin2);
    assert_true(be->pinned == NULL);
    hst_buffer_destroy(buf);
    free(want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_pinned_direct, reset_log),
        cmocka_unit_test_setup(test_sizes_and_offsets, reset_log),
        cmocka_unit_test_setup(test_sub_buffer, reset_log),
        cmocka_unit_test_setup(test_order_with_events, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
