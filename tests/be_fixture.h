/* tests/be_fixture.h — a cmocka group fixture of one backend on the device under test
   ($HST_DEVICE, as tests/run.sh sets it) whose log a cap_log captures: setup/teardown for
   cmocka_run_group_tests, BE(state) and LOG(state) in the tests. Include after cmocka.h and
   cap_log.h. */
#ifndef HST_TESTS_BE_FIXTURE_H
#define HST_TESTS_BE_FIXTURE_H

#include <stdlib.h>

typedef struct fixture { hst_backend *be; cap_log log; } fixture;

static int setup(void **state) {
    fixture *f = (fixture *)calloc(1, sizeof *f);
    hst_backend_desc desc;
    if (!f) return -1;
    desc = cap_desc(&f->log);
    desc.log_level = HST_LOG_WARN;
    if (hst_backend_create(&desc, &f->be) != HST_SUCCESS) { free(f); return -1; }
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = (fixture *)*state;
    if (f) { hst_backend_destroy(f->be); free(f); }
    return 0;
}

static hst_backend *BE(void **state) { return ((fixture *)*state)->be; }
static cap_log *LOG(void **state) { return &((fixture *)*state)->log; }

#endif
