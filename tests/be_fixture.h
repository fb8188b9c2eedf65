/* tests/be_fixture.h — a cmocka group fixture of one backend on the device under test
   ($HST_DEVICE, as tests/run.sh sets it) whose log a cap_log captures: setup/teardown for
   cmocka_run_group_tests, reset_log as a per-test setup, BE(state) and LOG(state) in the tests.
   Include after cmocka.h and cap_log.h (whose CAP_FN it uses). The backend logs at BE_FIXTURE_LOG_LEVEL (define it
   before including; default HST_LOG_WARN; 0: everything). teardown fails the group when a
   test left a block of the backend's pool in use (an array or pooled buffer not destroyed). */
#ifndef HST_TESTS_BE_FIXTURE_H
#define HST_TESTS_BE_FIXTURE_H

#include <stdlib.h>

#ifndef BE_FIXTURE_LOG_LEVEL
#  define BE_FIXTURE_LOG_LEVEL HST_LOG_WARN
#endif

typedef struct fixture { hst_backend *be; cap_log log; } fixture;

CAP_FN int setup(void **state) {
    fixture *f = (fixture *)calloc(1, sizeof *f);
    hst_backend_desc desc;
    if (!f) return -1;
    desc = cap_desc(&f->log);
    desc.log_level = (hst_log_level)BE_FIXTURE_LOG_LEVEL;
    if (hst_backend_create(&desc, &f->be) != HST_SUCCESS) { free(f); return -1; }
    *state = f;
    return 0;
}

CAP_FN int teardown(void **state) {
    fixture *f = (fixture *)*state;
    int leaked = 0;
    if (f) {
        leaked = hst_pool_get_stats(hst_backend_pool(f->be)).active_blocks != 0;
        assert_int_equal(hst_backend_destroy(f->be), HST_SUCCESS);
        free(f);
    }
    return leaked ? -1 : 0;
}

/* Per-test setup: the log starts empty. */
CAP_FN int reset_log(void **state) {
    cap_reset(&((fixture *)*state)->log);
    return 0;
}

CAP_FN hst_backend *BE(void **state) { return ((fixture *)*state)->be; }
CAP_FN cap_log *LOG(void **state) { return &((fixture *)*state)->log; }

#endif
