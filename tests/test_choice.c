/* tests/test_choice.c — the choice among implementations by measured speed (choice.h's
   >>choice): the choice logic under an injected clock (picks the fastest, warm-up runs are not
   recorded, follows drift, revisits, ignores single outliers, skips failing implementations,
   forcing per call, per desc and through HST_FORCE, signature buckets, the nearest signature
   and shipped defaults), persistence (round trip, device identity in the key, save at destroy
   and at an interval but never per call, two processes writing at once, corrupt and foreign
   files), the out-of-memory split, benchmark mode with its cross-check and table, run-type
   groups (tags; forcing "@tag" per call, per desc and through HST_FORCE), clearing an
   operation's timings (in memory and in the file, later timings kept), testing mode (outputs
   checked against the reference's, those that disagree excluded; in benchmark mode too), and
   rejected arguments — each checked by values and log items.

   The implementations here are fakes that advance the fake clock by their cost, so every
   choice is deterministic. Backends follow HST_DEVICE (the registry works the same on every
   device); the forked writers use the host device. */
#define HST_IMPLEMENTATION
#define _XOPEN_SOURCE 700   /* mkdtemp, setenv, fork */
#include "choice.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1e-3
#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* ---- capturing logger --------------------------------------------------------------------- */
#include "cap_log.h"

/* ---- fake clock and implementations ------------------------------------------------------- */
typedef struct fake_clock { double now; } fake_clock;
static double fake_now(void *user) { return ((fake_clock *)user)->now; }

typedef struct fake_impl {
    fake_clock *clk;
    double cost;          /* seconds one run takes */
    double once;          /* > 0: the next run takes this long instead (an outlier) */
    hst_result fail;      /* returned without running */
    int64_t fail_at;      /* > 0: fails only when the call's argument equals it */
    unsigned calls;
} fake_impl;

/* args: an int64_t (the call's "size"), or NULL */
static hst_result fake_run(void *args, void *user)
{
    fake_impl *f = (fake_impl *)user;
    f->calls++;
    if (f->fail && (f->fail_at == 0 || (args && *(int64_t *)args == f->fail_at))) return f->fail;
    if (f->once > 0.0) { f->clk->now += f->once; f->once = 0.0; }
    else f->clk->now += f->cost;
    return HST_SUCCESS;
}

/* Everything one test uses: a backend with the capturing logger, the fake clock, and up to
   four fake implementations named A, B, C, D. */
typedef struct ctx {
    cap_log log;
    fake_clock clk;
    hst_backend *be;
    fake_impl f[4];
    hst_choice_impl impls[4];
} ctx;

static const char *const impl_names[4] = {"A", "B", "C", "D"};

/* cache_dir: NULL for none; path: the timings file (NULL: the default in cache_dir). */
static void ctx_open_on(ctx *c, const char *device, const char *cache_dir, const char *path,
                        double save_interval_s)
{
    hst_backend_desc desc;
    hst_choice_desc cd;
    int i;
    memset(c, 0, sizeof *c);
    memset(&desc, 0, sizeof desc);
    desc.logger = cap_logger;
    desc.log_user = &c->log;
    desc.device = device;
    desc.cache_dir = cache_dir;
    desc.no_disk_cache = cache_dir == NULL;
    assert_int_equal(hst_backend_create(&desc, &c->be), HST_SUCCESS);
    memset(&cd, 0, sizeof cd);
    cd.clock = fake_now;
    cd.clock_user = &c->clk;
    cd.path = path;
    cd.save_interval_s = save_interval_s;
    assert_int_equal(hst_choice_configure(c->be, &cd), HST_SUCCESS);
    for (i = 0; i < 4; i++) {
        c->f[i].clk = &c->clk;
        c->f[i].cost = (i + 1) * MS;
        c->impls[i].name = impl_names[i];
        c->impls[i].run = fake_run;
        c->impls[i].user = &c->f[i];
    }
}

static void ctx_open(ctx *c) { ctx_open_on(c, NULL, NULL, "off", 0.0); }

static void ctx_close(ctx *c) { assert_int_equal(hst_backend_destroy(c->be), HST_SUCCESS); c->be = NULL; }

/* An op desc over the first n fakes; warm-up and revisits off unless a test wants them. */
static hst_choice_op_desc op_desc(ctx *c, const char *name, size_t n)
{
    hst_choice_op_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.impls = c->impls;
    d.num_impls = n;
    d.no_warmup = 1;
    d.revisit_every = -1;
    return d;
}

static hst_choice_op *reg_op(ctx *c, const hst_choice_op_desc *d)
{
    hst_choice_op *op = NULL;
    assert_int_equal(hst_choice_register(c->be, d, &op), HST_SUCCESS);
    assert_non_null(op);
    return op;
}

/* Runs once at signature {n} (n also the argument) and returns the outcome. */
static hst_choice_outcome run1(hst_choice_op *op, int64_t n)
{
    hst_choice_outcome oc;
    int64_t arg = n;
    memset(&oc, 0xff, sizeof oc);
    assert_int_equal(hst_choice_run(op, &n, 1, &arg, NULL, &oc), HST_SUCCESS);
    return oc;
}

static hst_choice_stat stat_of(hst_choice_op *op, int64_t n, unsigned impl)
{
    hst_choice_stat st[HST_CHOICE_MAX_IMPLS];
    size_t count = 0;
    assert_int_equal(hst_choice_stats(op, &n, 1, st, HST_CHOICE_MAX_IMPLS, &count), HST_SUCCESS);
    assert_true(impl < count);
    return st[impl];
}

/* ---- files -------------------------------------------------------------------------------- */
static void make_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/hst_choice_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static unsigned count_files_ending(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned n = 0;
    size_t ls = strlen(suffix);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l >= ls && !strcmp(e->d_name + l - ls, suffix)) n++;
    }
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
    rmdir(dir);
}

static void timings_path(const char *dir, char *path, size_t cap)
{
    snprintf(path, cap, "%s/choice-u%lu.txt", dir, (unsigned long)getuid());
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file as a string (malloc'ed), or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void write_text(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(s, 1, n, f), n);
    fclose(f);
}

/* ============================================================================================
   Choice logic */

/* Unseen: each implementation runs once (registration order); then the fastest, every time;
   the change of choice is logged once. */
static void test_picks_fastest(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    hst_choice_stat st;
    unsigned pick = 99;
    int k;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 3 * MS; c.f[1].cost = 1 * MS; c.f[2].cost = 2 * MS;
    d = op_desc(&c, "fastest", 3);
    op = reg_op(&c, &d);
    assert_ptr_equal(hst_choice_find(c.be, "fastest"), op);
    assert_null(hst_choice_find(c.be, "nothing"));
    assert_int_equal(hst_choice_pick(op, (const int64_t[]){1000}, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 0);                      /* A is measured first */
    oc = run1(op, 1000);
    assert_int_equal(oc.impl, 0); assert_true(oc.explored); assert_false(oc.forced);
    assert_string_equal(oc.name, "A");
    assert_near(oc.seconds, 3 * MS, 1e-12);
    assert_int_equal(oc.parts, 1); assert_int_equal(oc.failures, 0);
    oc = run1(op, 1000);
    assert_int_equal(oc.impl, 1); assert_true(oc.explored);
    oc = run1(op, 1000);
    assert_int_equal(oc.impl, 2); assert_true(oc.explored);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 0);
    for (k = 0; k < 10; k++) {
        oc = run1(op, 1000);
        assert_int_equal(oc.impl, 1);
        assert_false(oc.explored);
        assert_near(oc.seconds, 1 * MS, 1e-12);
    }
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 1);   /* nothing -> B, once */
    assert_int_equal(c.f[0].calls, 1); assert_int_equal(c.f[1].calls, 11);
    assert_int_equal(c.f[2].calls, 1);
    st = stat_of(op, 1000, 1);
    assert_string_equal(st.impl, "B");
    assert_int_equal(st.samples, 11); assert_int_equal(st.source, HST_CHOICE_EXACT);
    assert_near(st.seconds, 1 * MS, 1e-12);
    st = stat_of(op, 1000, 0);
    assert_int_equal(st.samples, 1); assert_near(st.seconds, 3 * MS, 1e-12);
    assert_int_equal(hst_choice_pick(op, (const int64_t[]){1000}, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 1);
    ctx_close(&c);
}

/* The first run of each implementation in a process (program builds, first touch) is not
   recorded: a slow first run does not condemn an implementation. */
static void test_warmup_not_recorded(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 2 * MS; c.f[1].cost = 1 * MS;
    c.f[1].once = 500 * MS;                    /* B's first run builds its program */
    d = op_desc(&c, "warm", 2);
    d.no_warmup = 0;
    op = reg_op(&c, &d);
    oc = run1(op, 64); assert_int_equal(oc.impl, 0); assert_true(oc.explored);
    assert_int_equal(stat_of(op, 64, 0).samples, 0);           /* warm-up: not recorded */
    oc = run1(op, 64); assert_int_equal(oc.impl, 0); assert_true(oc.explored);
    assert_int_equal(stat_of(op, 64, 0).samples, 1);
    oc = run1(op, 64); assert_int_equal(oc.impl, 1); assert_near(oc.seconds, 500 * MS, 1e-12);
    assert_int_equal(stat_of(op, 64, 1).samples, 0);
    oc = run1(op, 64); assert_int_equal(oc.impl, 1); assert_true(oc.explored);
    oc = run1(op, 64); assert_int_equal(oc.impl, 1); assert_false(oc.explored);
    assert_near(stat_of(op, 64, 1).seconds, 1 * MS, 1e-12);
    /* warm now: a new signature records from its first run */
    oc = run1(op, 4096); assert_int_equal(oc.impl, 0);
    assert_int_equal(stat_of(op, 4096, 0).samples, 1);
    ctx_close(&c);
}

/* A lasting slowdown of the chosen one moves the choice once it fills the lower half of the
   history (the lower median), and not before. */
static void test_follows_drift(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    int k;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 1 * MS; c.f[1].cost = 2 * MS;
    d = op_desc(&c, "drift", 2);
    op = reg_op(&c, &d);
    assert_int_equal(run1(op, 256).impl, 0);
    assert_int_equal(run1(op, 256).impl, 1);
    for (k = 0; k < 5; k++) assert_int_equal(run1(op, 256).impl, 0);   /* A: 6 samples */
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 1);
    c.f[0].cost = 5 * MS;                       /* the machine got slower for A */
    /* lower median of 6 x 1 ms and m x 5 ms is 5 ms from m = 7 on */
    for (k = 0; k < 7; k++) assert_int_equal(run1(op, 256).impl, 0);
    assert_int_equal(run1(op, 256).impl, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 2);
    assert_near(stat_of(op, 256, 0).seconds, 5 * MS, 1e-12);
    for (k = 0; k < 5; k++) assert_int_equal(run1(op, 256).impl, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 2);
    ctx_close(&c);
}

/* Every revisit_every calls the least recently run implementation within
   HST_CHOICE_REVISIT_WITHIN of the best runs once, so a recovered one is noticed; far slower
   ones are not revisited. */
static void test_revisit(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    int k;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 1 * MS; c.f[1].cost = 1.5 * MS; c.f[2].cost = 5 * MS;
    d = op_desc(&c, "revisit", 3);
    d.revisit_every = 10;
    op = reg_op(&c, &d);
    for (k = 0; k < 30; k++) run1(op, 100);
    /* calls 1-3 measure A, B, C; calls 10, 20, 30 revisit B; C (5x) is never revisited */
    assert_int_equal(c.f[1].calls, 4);
    assert_int_equal(c.f[2].calls, 1);
    assert_int_equal(c.f[0].calls, 25);
    /* B became the fastest: the revisits see it and the choice moves */
    c.f[1].cost = 0.5 * MS;
    for (k = 0; k < 200; k++) run1(op, 100);
    assert_int_equal(run1(op, 100).impl, 1);
    ctx_close(&c);
}

/* One slow run (a page fault, another process) does not flip the choice, even with only two
   timings. */
static void test_single_outlier(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    int k;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 1 * MS; c.f[1].cost = 2 * MS;
    d = op_desc(&c, "outlier", 2);
    op = reg_op(&c, &d);
    run1(op, 10); run1(op, 10);
    c.f[0].once = 50 * MS;
    assert_int_equal(run1(op, 10).impl, 0);      /* A: {1, 50} ms */
    assert_int_equal(run1(op, 10).impl, 0);
    assert_near(stat_of(op, 10, 0).seconds, 1 * MS, 1e-12);
    for (k = 0; k < 5; k++) run1(op, 10);
    c.f[0].once = 80 * MS;
    assert_int_equal(run1(op, 10).impl, 0);
    assert_int_equal(run1(op, 10).impl, 0);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_CHANGED], 1);
    assert_int_equal(c.f[1].calls, 1);
    ctx_close(&c);
}

/* A failing implementation is skipped for that signature (the call itself goes on with the
   next), logged with its reason; elsewhere it still runs. When every one fails the call
   fails with the last error and later calls fail at once. */
static void test_skips_failing(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    int64_t n = 7;
    unsigned a_calls;
    (void)state;
    ctx_open(&c);
    c.f[0].cost = 1 * MS; c.f[1].cost = 2 * MS;
    c.f[0].fail = HST_ERROR_UNSUPPORTED; c.f[0].fail_at = 7;
    d = op_desc(&c, "failing", 2);
    op = reg_op(&c, &d);
    oc = run1(op, 7);
    assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 1);
    assert_int_equal(c.log.last_item, HST_LOGITEM_CHOICE_FAILED);
    assert_non_null(strstr(c.log.last_message, "HST_ERROR_UNSUPPORTED"));
    assert_int_equal(stat_of(op, 7, 0).failed, HST_ERROR_UNSUPPORTED);
    assert_int_equal(run1(op, 7).impl, 1);
    assert_int_equal(run1(op, 7).impl, 1);
    assert_int_equal(c.f[0].calls, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 1);
    /* another signature: A works there and is the fastest */
    assert_int_equal(run1(op, 1000).impl, 0);
    assert_int_equal(run1(op, 1000).impl, 1);
    assert_int_equal(run1(op, 1000).impl, 0);
    assert_int_equal(stat_of(op, 1000, 0).failed, HST_SUCCESS);

    /* every implementation fails */
    c.f[2].fail = HST_ERROR_DTYPE; c.f[3].fail = -5;
    c.impls[0] = c.impls[2]; c.impls[1] = c.impls[3];
    d = op_desc(&c, "all_fail", 2);
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, NULL, &oc), -5);
    assert_int_equal(oc.failures, 2);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 3);
    a_calls = c.f[2].calls;
    assert_int_equal(hst_choice_run(op, &n, 1, &n, NULL, NULL), HST_ERROR_DTYPE);
    assert_int_equal(c.f[2].calls, a_calls);    /* nothing ran again */
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 4);
    ctx_close(&c);
}

/* Forcing per call: runs the named one (recorded as usual); an unknown name is rejected; a
   forced failure is returned, not replaced. */
static void test_force_per_call(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    int64_t n = 50;
    (void)state;
    ctx_open(&c);
    c.f[2].fail = HST_ERROR_UNSUPPORTED;
    d = op_desc(&c, "force_call", 3);
    op = reg_op(&c, &d);
    run1(op, 50); run1(op, 50);
    assert_int_equal(run1(op, 50).failures, 1);        /* C fails while measured; A runs */
    assert_int_equal(run1(op, 50).impl, 0);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "B", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_true(oc.forced); assert_false(oc.explored);
    assert_int_equal(stat_of(op, 50, 1).samples, 2);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "Z", &oc), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "C", &oc), HST_ERROR_UNSUPPORTED);
    assert_int_equal(oc.failures, 1);
    assert_int_equal(c.f[0].calls, 3);                  /* no fallback to A */
    assert_int_equal(run1(op, 50).impl, 0);
    ctx_close(&c);
}

/* Forcing per operation in the desc: logged at registration; a per-call force wins. */
static void test_force_desc(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op = NULL;
    hst_choice_outcome oc;
    unsigned pick;
    int64_t n = 9;
    int k;
    (void)state;
    ctx_open(&c);
    d = op_desc(&c, "force_desc", 3);
    d.force = "Q";
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_null(op);
    assert_int_equal(c.log.last_item, HST_LOGITEM_BAD_ARGUMENT);
    d.force = "C";
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FORCED], 1);
    for (k = 0; k < 5; k++) {
        oc = run1(op, 9);
        assert_int_equal(oc.impl, 2); assert_true(oc.forced);
    }
    assert_int_equal(hst_choice_pick(op, &n, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 2);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "A", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0);
    assert_int_equal(c.f[1].calls, 0);
    ctx_close(&c);
}

/* Forcing through HST_FORCE=op:impl,...: beats the desc; a per-call force beats it; an
   unknown implementation in it is warned about and ignored. */
static void test_force_env(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    int64_t n = 9;
    (void)state;
    ctx_open(&c);
    setenv("HST_FORCE", "other:A,env_op:B,env_bad:Q", 1);
    d = op_desc(&c, "env_op", 3);
    d.force = "C";
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FORCED], 1);
    assert_int_equal(c.log.last_item, HST_LOGITEM_CHOICE_FORCED);
    assert_non_null(strstr(c.log.last_message, "HST_FORCE"));
    oc = run1(op, 9);
    assert_int_equal(oc.impl, 1); assert_true(oc.forced);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "A", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0);
    assert_int_equal(c.f[2].calls, 0);
    d = op_desc(&c, "env_bad", 2);
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_BAD_ARGUMENT], 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FORCED], 1);
    oc = run1(op, 9);
    assert_false(oc.forced); assert_true(oc.explored);
    unsetenv("HST_FORCE");
    ctx_close(&c);
}

/* Buckets: similar sizes share timings; the nearest signature informs an unseen one (skips
   measuring an implementation 4x slower there; no_explore uses it outright); shipped defaults
   stand in for timings. */
static void test_signatures(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    hst_choice_stat st;
    hst_choice_default defs[2];
    int64_t s2[2] = {100, 100}, s2b[2] = {105, 110}, s2c[2] = {128, 128}, big = 1500;
    (void)state;
    ctx_open(&c);
    d = op_desc(&c, "buckets", 2);
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_run(op, s2, 2, NULL, NULL, &oc), HST_SUCCESS);
    assert_int_equal(hst_choice_run(op, s2b, 2, NULL, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_true(oc.explored);   /* same bucket: B is next */
    assert_int_equal(hst_choice_run(op, s2b, 2, NULL, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0); assert_false(oc.explored);
    {
        hst_choice_stat sts[2];
        size_t count = 0;
        assert_int_equal(hst_choice_stats(op, s2c, 2, NULL, 0, &count), HST_SUCCESS);
        assert_int_equal(count, 2);
        assert_int_equal(hst_choice_stats(op, s2c, 2, sts, 2, &count), HST_SUCCESS);
        assert_int_equal(sts[0].samples, 0);
        assert_int_equal(sts[0].source, HST_CHOICE_NEAREST);
        assert_near(sts[0].seconds, 1 * MS, 1e-12);
        assert_int_equal(hst_choice_stats(op, s2, 1, sts, 2, &count), HST_SUCCESS);
        assert_int_equal(sts[0].source, HST_CHOICE_NONE);   /* another length: never near */
        assert_true(isnan(sts[0].seconds));
    }

    /* A is 10x slower than B at 1000: at 1500 it is not measured */
    c.f[0].cost = 10 * MS; c.f[1].cost = 1 * MS;
    c.f[0].calls = c.f[1].calls = 0;
    d = op_desc(&c, "nearest", 2);
    op = reg_op(&c, &d);
    run1(op, 1000); run1(op, 1000);
    oc = run1(op, big);
    assert_int_equal(oc.impl, 1); assert_true(oc.explored);
    oc = run1(op, big);
    assert_int_equal(oc.impl, 1); assert_false(oc.explored);
    assert_int_equal(c.f[0].calls, 1);
    st = stat_of(op, big, 0);
    assert_int_equal(st.source, HST_CHOICE_NEAREST); assert_near(st.seconds, 10 * MS, 1e-12);

    /* a failure recorded elsewhere: never picked at its signature, and no time there, so a
       signature nearby still measures it (a time standing for the failure would not) */
    c.f[0].calls = c.f[1].calls = 0;
    d = op_desc(&c, "failure", 2);
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_record_failure(op, (const int64_t[]){1000}, 1, "A",
                                               HST_ERROR_UNSUPPORTED), HST_SUCCESS);
    assert_int_equal(hst_choice_record(op, (const int64_t[]){1000}, 1, "B", 1 * MS), HST_SUCCESS);
    st = stat_of(op, 1000, 0);
    assert_int_equal(st.failed, HST_ERROR_UNSUPPORTED);
    assert_int_equal(st.samples, 0);
    assert_int_equal(run1(op, 1000).impl, 1);
    assert_int_equal(c.f[0].calls, 0);
    oc = run1(op, big);
    assert_int_equal(oc.impl, 0); assert_true(oc.explored);
    assert_int_equal(c.f[0].calls, 1);

    /* no_explore: the nearest signature decides */
    c.f[0].calls = c.f[1].calls = 0;
    d = op_desc(&c, "no_explore", 2);
    d.no_explore = 1;
    op = reg_op(&c, &d);
    oc = run1(op, 64);
    assert_int_equal(oc.impl, 0); assert_false(oc.explored);   /* nothing known: first */
    assert_int_equal(hst_choice_record(op, (const int64_t[]){1000}, 1, "A", 2 * MS), HST_SUCCESS);
    assert_int_equal(hst_choice_record(op, (const int64_t[]){1000}, 1, "B", 1 * MS), HST_SUCCESS);
    assert_int_equal(run1(op, 4000).impl, 1);
    assert_int_equal(c.f[0].calls, 1);

    /* shipped defaults: no measuring runs where they say enough */
    c.f[0].calls = c.f[1].calls = 0;
    memset(defs, 0, sizeof defs);
    defs[0].impl = "A"; defs[0].sig[0] = 1000; defs[0].sig_len = 1; defs[0].seconds = 2 * MS;
    defs[1].impl = "B"; defs[1].sig[0] = 1000; defs[1].sig_len = 1; defs[1].seconds = 0.5 * MS;
    d = op_desc(&c, "defaults", 2);
    d.defaults = defs;
    d.num_defaults = 2;
    op = reg_op(&c, &d);
    st = stat_of(op, 1000, 1);
    assert_int_equal(st.source, HST_CHOICE_DEFAULT); assert_near(st.seconds, 0.5 * MS, 1e-12);
    oc = run1(op, 1000);
    assert_int_equal(oc.impl, 1); assert_false(oc.explored);
    /* B measured at 1 ms: still under A's default of 2 ms */
    assert_int_equal(run1(op, 1000).impl, 1);
    assert_int_equal(c.f[0].calls, 0);
    ctx_close(&c);
}

/* ============================================================================================
   Out of memory: one split, sized from the device's limits, remembered; never a retry loop. */
typedef struct oom_acct {
    unsigned whole_oom;       /* runs refused for size */
    unsigned pieces;          /* runs that worked */
    uint64_t done_bytes, biggest;
} oom_acct;

typedef struct oom_job {
    uint64_t bytes, limit;    /* the run refuses more than limit bytes */
    oom_acct *acct;
} oom_job;

static hst_result oom_run(void *args, void *user)
{
    oom_job *j = (oom_job *)args;
    fake_impl *f = (fake_impl *)user;
    f->calls++;
    if (j->bytes > j->limit) { j->acct->whole_oom++; return HST_ERROR_OUT_OF_DEVICE_MEMORY; }
    j->acct->pieces++;
    j->acct->done_bytes += j->bytes;
    if (j->bytes > j->acct->biggest) j->acct->biggest = j->bytes;
    f->clk->now += f->cost;
    return HST_SUCCESS;
}

static size_t split_parts_seen;
static hst_result oom_split(void *args, const hst_choice_split_info *info, hst_choice_run_fn run,
                            void *run_user)
{
    oom_job *j = (oom_job *)args, piece = *j;
    size_t k;
    hst_result r;
    split_parts_seen = info->parts;
    for (k = 0; k < info->parts; k++) {
        piece.bytes = j->bytes / info->parts + (k < j->bytes % info->parts);
        if ((r = run(&piece, run_user)) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

static uint64_t oom_work(const void *args) { return ((const oom_job *)args)->bytes; }

static void test_oom_split(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    const hst_device_info *dev;
    oom_acct acct;
    oom_job job;
    uint64_t free_bytes;
    double k1, k2;
    size_t expect;
    int64_t sig = 1 << 20;
    (void)state;
    ctx_open(&c);
    dev = hst_backend_device(c.be);
    memset(&acct, 0, sizeof acct);
    job.acct = &acct;
    job.limit = dev->max_alloc_bytes;
    job.bytes = 3 * dev->max_alloc_bytes + dev->max_alloc_bytes / 2;
    /* the parts the design asks for: each part within the largest allocation and within
       3/4 of the free estimate (global memory less what this backend holds) */
    free_bytes = dev->global_mem_bytes - hst_backend_device_bytes(c.be);
    k1 = ceil((double)job.bytes / (0.75 * (double)free_bytes));
    k2 = ceil((double)job.bytes / (double)dev->max_alloc_bytes);
    expect = (size_t)(k1 > k2 ? k1 : k2);
    assert_true(expect >= 4);
    c.impls[0].run = oom_run;
    d = op_desc(&c, "oom", 1);
    d.split = oom_split;
    d.work_bytes = oom_work;
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_run(op, &sig, 1, &job, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.parts, expect);
    assert_int_equal(split_parts_seen, expect);
    assert_int_equal(acct.whole_oom, 1);
    assert_int_equal(acct.pieces, expect);
    assert_true(acct.done_bytes == job.bytes);
    assert_true(acct.biggest <= job.limit);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_SPLIT], 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 0);
    assert_near(oc.seconds, (double)expect * MS, 1e-9);   /* the failed attempt not counted */
    assert_int_equal(stat_of(op, sig, 0).parts, expect);
    /* the next call splits straight away */
    assert_int_equal(hst_choice_run(op, &sig, 1, &job, NULL, &oc), HST_SUCCESS);
    assert_int_equal(acct.whole_oom, 1);
    assert_int_equal(acct.pieces, 2 * expect);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_SPLIT], 1);
    ctx_close(&c);

    /* a split that still runs out of memory fails once (no retry loop): B takes over; and
       without a declared work size the split gets 2 parts */
    ctx_open(&c);
    memset(&acct, 0, sizeof acct);
    job.limit = 0;
    job.bytes = 1000;
    c.impls[0].run = oom_run;
    d = op_desc(&c, "oom_fails", 2);
    d.split = oom_split;
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_run(op, &sig, 1, &job, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 1);
    assert_int_equal(split_parts_seen, 2);
    assert_int_equal(acct.whole_oom, 2);        /* the whole call, then the first part */
    assert_int_equal(c.f[0].calls, 2);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_SPLIT], 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 1);
    assert_int_equal(stat_of(op, sig, 0).failed, HST_ERROR_OUT_OF_DEVICE_MEMORY);
    /* without a split an out-of-memory result is an ordinary failure */
    d = op_desc(&c, "oom_nosplit", 2);
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_run(op, &sig, 1, &job, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1);
    assert_int_equal(c.f[0].calls, 3);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_SPLIT], 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 2);
    ctx_close(&c);
}

/* ============================================================================================
   Benchmark mode */
/* Run-type groups: a force "@tag" chooses among the implementations tagged so (measuring each,
   then the fastest of them), a failing member leaves the others; a plain name still forces
   one; an unknown tag is refused with the tags there are; the stats carry the tags. */
static void test_force_group(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    unsigned pick = 99;
    int64_t n = 40;
    int k;
    (void)state;
    ctx_open(&c);
    c.impls[0].tags = "host cpu";      c.f[0].cost = 1 * MS;   /* the fastest overall */
    c.impls[1].tags = "opencl gpu";    c.f[1].cost = 3 * MS;
    c.impls[2].tags = "opencl  gpu ";  c.f[2].cost = 2 * MS;   /* the fastest on the gpu */
    c.impls[3].tags = "opencl cpu";    c.f[3].cost = 4 * MS;
    d = op_desc(&c, "group", 4);
    op = reg_op(&c, &d);
    assert_string_equal(stat_of(op, 40, 1).tags, "opencl gpu");
    assert_null(hst_choice_find(c.be, "nothing"));
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@gpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_true(oc.forced); assert_true(oc.explored);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@gpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 2); assert_true(oc.explored);
    for (k = 0; k < 3; k++) {
        assert_int_equal(hst_choice_run(op, &n, 1, &n, "@gpu", &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, 2); assert_true(oc.forced); assert_false(oc.explored);
        assert_string_equal(oc.name, "C");
    }
    assert_int_equal(c.f[0].calls + c.f[3].calls, 0);        /* nothing outside the group */
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@cpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0);                            /* A measured, then D, then A */
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@cpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 3);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@cpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0); assert_false(oc.explored);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "B", &oc), HST_SUCCESS);   /* a name */
    assert_int_equal(oc.impl, 1); assert_true(oc.forced);
    assert_int_equal(run1(op, 40).impl, 0);                  /* unforced: the fastest of all */
    assert_int_equal(hst_choice_pick(op, &n, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 0);
    /* an unknown tag: refused, the log naming the tags there are (each once) */
    cap_reset(&c.log);
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@fpga", &oc), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "fpga"));
    assert_non_null(strstr(c.log.last_message, "host cpu opencl gpu"));
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@", &oc), HST_ERROR_INVALID_ARGUMENT);
    /* a group member failing leaves the others of the group, never one outside it */
    c.f[2].fail = HST_ERROR_UNSUPPORTED;
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@gpu", &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 1);
    c.f[1].fail = HST_ERROR_UNSUPPORTED;
    k = (int)c.f[0].calls;
    assert_int_equal(hst_choice_run(op, &n, 1, &n, "@gpu", &oc), HST_ERROR_UNSUPPORTED);
    assert_int_equal((int)c.f[0].calls, k);
    assert_int_equal(run1(op, 40).impl, 0);
    ctx_close(&c);
}

/* Groups through the desc and HST_FORCE ("op:@tag"); one naming no tag is warned about and
   ignored (HST_FORCE) or refused (the desc); tags and names with reserved characters are
   refused, naming the implementation. */
static void test_force_group_env(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op = NULL;
    hst_choice_outcome oc;
    unsigned pick = 99;
    int64_t n = 9;
    int k;
    (void)state;
    ctx_open(&c);
    c.impls[0].tags = "host"; c.impls[1].tags = "gpu"; c.impls[2].tags = "gpu";
    c.f[1].cost = 5 * MS;
    setenv("HST_FORCE", "genv:@gpu,gbad:@nope", 1);
    d = op_desc(&c, "genv", 3);
    d.force = "A";                                   /* HST_FORCE wins over the desc */
    op = reg_op(&c, &d);
    assert_int_equal(c.log.last_item, HST_LOGITEM_CHOICE_FORCED);
    assert_non_null(strstr(c.log.last_message, "tagged gpu"));
    assert_non_null(strstr(c.log.last_message, "HST_FORCE"));
    for (k = 0; k < 4; k++) {
        oc = run1(op, 9);
        assert_int_equal(oc.impl, k == 0 ? 1 : 2); assert_true(oc.forced);
    }
    assert_int_equal(hst_choice_pick(op, &n, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 2);
    assert_int_equal(c.f[0].calls, 0);
    d = op_desc(&c, "gbad", 3);
    cap_reset(&c.log);
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_BAD_ARGUMENT], 1);
    assert_non_null(strstr(c.log.last_message, "its tags: host gpu"));
    assert_false(run1(op, 9).forced);
    unsetenv("HST_FORCE");
    d = op_desc(&c, "gdesc", 3);
    d.force = "@host";
    op = reg_op(&c, &d);
    assert_non_null(strstr(c.log.last_message, "the desc"));
    assert_int_equal(run1(op, 9).impl, 0);
    d.name = "gdesc_bad";
    d.force = "@cpu";
    cap_reset(&c.log);
    op = NULL;
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_null(op);
    assert_int_equal(c.log.last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "its tags: host gpu"));
    assert_null(hst_choice_find(c.be, "gdesc_bad"));
    d.force = NULL;
    c.impls[2].tags = "gpu:0";
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "tags of C"));
    c.impls[2].tags = "@gpu";
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    c.impls[2].tags = "gpu";
    c.impls[2].name = "@C";
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "'@'"));
    ctx_close(&c);
}

#define BENCH_N 64
typedef struct bench_args { double x[BENCH_N], out[BENCH_N]; } bench_args;
typedef struct bench_impl { fake_impl f; int kind; } bench_impl;   /* 0 exact, 1 noisy, 2 wrong,
                                                                       3 a NaN */

static hst_result bench_run(void *args, void *user)
{
    bench_args *a = (bench_args *)args;
    bench_impl *b = (bench_impl *)user;
    int i;
    for (i = 0; i < BENCH_N; i++) {
        double v = 2.0 * a->x[b->kind == 2 ? BENCH_N - 1 - i : i];
        a->out[i] = b->kind == 1 ? v * (1.0 + 1e-7 * ((i % 3) - 1)) : v;
    }
    if (b->kind == 3) a->out[5] = NAN;
    return fake_run(NULL, &b->f);
}

static hst_result bench_output(void *args, double *dst, size_t capacity, size_t *count)
{
    bench_args *a = (bench_args *)args;
    *count = BENCH_N;
    if (dst) {
        if (capacity < BENCH_N) return HST_ERROR_INVALID_ARGUMENT;
        memcpy(dst, a->out, sizeof a->out);
    }
    return HST_SUCCESS;
}

static void test_benchmark(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_impl impls[4];
    bench_impl b[4];
    bench_args args;
    hst_choice_bench_row rows[4];
    size_t count = 0, need, need2;
    char *table, small[40];
    int i;
    (void)state;
    ctx_open(&c);
    for (i = 0; i < BENCH_N; i++) args.x[i] = 1.0 + i;
    memset(b, 0, sizeof b);
    memset(impls, 0, sizeof impls);
    for (i = 0; i < 4; i++) {
        b[i].f.clk = &c.clk;
        b[i].kind = i == 3 ? 0 : i;
        impls[i].name = impl_names[i];
        impls[i].run = bench_run;
        impls[i].user = &b[i];
    }
    b[0].f.cost = 3 * MS; b[1].f.cost = 1 * MS; b[2].f.cost = 2 * MS;
    b[3].f.fail = HST_ERROR_UNSUPPORTED;
    impls[0].reference = 0; impls[1].reference = 0;
    impls[2].reference = 0;
    /* the reference is the host twin; mark A (registered second here) */
    {
        hst_choice_impl t = impls[0]; impls[0] = impls[1]; impls[1] = t;
        impls[1].reference = 1;
    }
    d = op_desc(&c, "bench", 4);
    d.impls = impls;
    d.output = bench_output;
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_benchmark(op, (const int64_t[]){BENCH_N}, 1, &args, 4, NULL, 0,
                                          &count), HST_SUCCESS);
    assert_int_equal(count, 4);
    assert_int_equal(hst_choice_benchmark(op, (const int64_t[]){BENCH_N}, 1, &args, 4, rows, 2,
                                          &count), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_choice_benchmark(op, (const int64_t[]){BENCH_N}, 1, &args, 4, rows, 4,
                                          &count), HST_SUCCESS);
    /* rows in registration order: B (noisy twin... here impls[0] is B), A (reference), C, D */
    assert_string_equal(rows[1].impl, "A");
    assert_true(rows[1].reference);
    assert_near(rows[1].max_rel_error, 0.0, 0.0); assert_near(rows[1].correlation, 1.0, 0.0);
    assert_string_equal(rows[0].impl, "B");
    assert_true(rows[0].max_rel_error > 0.0 && rows[0].max_rel_error < 2e-7);
    assert_true(rows[0].correlation > 0.999999);
    assert_near(rows[2].correlation, -1.0, 1e-12);          /* C reverses the output */
    assert_true(rows[2].max_rel_error > 0.5);
    assert_int_equal(rows[3].result, HST_ERROR_UNSUPPORTED);
    assert_int_equal(rows[3].runs, 0);
    assert_int_equal(rows[0].runs, 4);
    assert_near(rows[0].median_s, 1 * MS, 1e-12); assert_near(rows[1].median_s, 3 * MS, 1e-12);
    assert_near(rows[1].vs_best, 3.0, 1e-9); assert_near(rows[0].vs_best, 1.0, 1e-12);
    assert_true(rows[0].chosen); assert_false(rows[1].chosen); assert_false(rows[2].chosen);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 1);
    /* the timed runs were recorded, the untimed first runs were not */
    assert_int_equal(stat_of(op, BENCH_N, 0).samples, 4);
    assert_int_equal(stat_of(op, BENCH_N, 1).samples, 4);
    {
        hst_choice_outcome oc;
        int64_t n = BENCH_N;
        assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, 0);
        assert_false(oc.explored);
    }
    /* the table: size query, then fill; a short buffer is cut and terminated */
    need = hst_choice_table(rows, 4, NULL, 0);
    assert_true(need > 100);
    table = (char *)malloc(need);
    assert_non_null(table);
    need2 = hst_choice_table(rows, 4, table, need);
    assert_int_equal(need2, need);
    assert_int_equal(strlen(table) + 1, need);
    assert_non_null(strstr(table, "CHOSEN"));
    assert_non_null(strstr(table, "reference"));
    assert_non_null(strstr(table, "HST_ERROR_UNSUPPORTED"));
    assert_int_equal(hst_choice_table(rows, 4, small, sizeof small), need);
    assert_true(strlen(small) < sizeof small);
    free(table);
    ctx_close(&c);
}

/* Testing mode: A is the reference (exact), B agrees within the tolerance (1e-7 relative
   noise), C reverses the output, D has a NaN. Each is checked at its first run at a signature
   (the reference run first, untimed); C and D are excluded as failures are (HST_ERROR_MISMATCH,
   logged once each), and the call still returns an output that agrees. */
static void testing_impls(ctx *c, bench_impl *b, hst_choice_impl *impls)
{
    int i;
    memset(b, 0, 4 * sizeof *b);
    memset(impls, 0, 4 * sizeof *impls);
    for (i = 0; i < 4; i++) {
        b[i].f.clk = &c->clk;
        b[i].kind = i;
        impls[i].name = impl_names[i];
        impls[i].run = bench_run;
        impls[i].user = &b[i];
    }
    b[0].f.cost = 3 * MS; b[1].f.cost = 1 * MS; b[2].f.cost = 0.5 * MS; b[3].f.cost = 0.2 * MS;
}

static void assert_doubled(const bench_args *a, double tol)
{
    int i;
    for (i = 0; i < BENCH_N; i++)
        assert_true(fabs(a->out[i] - 2.0 * a->x[i]) <= tol * fabs(a->out[i]));
}

static void test_testing(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    hst_choice_impl impls[4];
    bench_impl b[4];
    bench_args args;
    hst_choice_stat st;
    int64_t n = BENCH_N;
    unsigned a_calls, c_calls;
    int i;
    (void)state;
    ctx_open(&c);
    for (i = 0; i < BENCH_N; i++) args.x[i] = 1.0 + i;
    testing_impls(&c, b, impls);
    d = op_desc(&c, "testing", 4);
    d.impls = impls;
    d.testing = 1;
    op = NULL;
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_NULL_ARGUMENT);  /* testing needs output */
    assert_non_null(strstr(c.log.last_message, "desc.output"));
    assert_null(op);
    d.output = bench_output;
    d.tolerance = -1.0;
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_OUT_OF_RANGE);
    d.tolerance = NAN;
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    d.tolerance = 0.0;                                  /* HST_CHOICE_TOLERANCE */
    op = reg_op(&c, &d);
    /* 1: A (the reference) measured, nothing to check */
    memset(args.out, 0, sizeof args.out);
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0); assert_int_equal(b[0].f.calls, 1);
    assert_doubled(&args, 0.0);
    /* 2: B measured; the reference runs first (untimed), B agrees and is recorded */
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_true(oc.explored); assert_int_equal(oc.failures, 0);
    assert_int_equal(b[0].f.calls, 2); assert_int_equal(b[1].f.calls, 1);
    assert_near(oc.seconds, 1 * MS, 1e-12);
    assert_int_equal(stat_of(op, BENCH_N, 0).samples, 1);    /* the untimed run: not recorded */
    assert_int_equal(stat_of(op, BENCH_N, 1).samples, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 0);
    /* 3: C disagrees, D has a NaN: both excluded; B (verified, the fastest left) answers */
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 2);
    assert_int_equal(b[0].f.calls, 3); assert_int_equal(b[2].f.calls, 1);
    assert_int_equal(b[3].f.calls, 1);
    assert_doubled(&args, 1e-6);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 2);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FAILED], 0);
    st = stat_of(op, BENCH_N, 2);
    assert_int_equal(st.failed, HST_ERROR_MISMATCH); assert_int_equal(st.samples, 0);
    assert_int_equal(stat_of(op, BENCH_N, 3).failed, HST_ERROR_MISMATCH);
    assert_int_equal(stat_of(op, BENCH_N, 1).failed, HST_SUCCESS);
    assert_int_equal(stat_of(op, BENCH_N, 1).samples, 2);
    /* then B, unchecked (verified), without the reference; C and D never again */
    a_calls = b[0].f.calls; c_calls = b[2].f.calls;
    for (i = 0; i < 3; i++) {
        assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
        assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 0);
    }
    assert_int_equal(b[0].f.calls, a_calls); assert_int_equal(b[2].f.calls, c_calls);
    /* forcing an excluded one: checked again, its mismatch returned, not logged again */
    assert_int_equal(hst_choice_run(op, &n, 1, &args, "C", &oc), HST_ERROR_MISMATCH);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 2);
    /* another signature: checked there afresh; D forced first: the log says why */
    n = BENCH_N / 2;
    assert_int_equal(hst_choice_run(op, &n, 1, &args, "D", &oc), HST_ERROR_MISMATCH);
    assert_int_equal(c.log.last_item, HST_LOGITEM_CHOICE_EXCLUDED);
    assert_non_null(strstr(c.log.last_message, "D on "));
    assert_non_null(strstr(c.log.last_message, stat_of(op, BENCH_N, 3).device));
    assert_non_null(strstr(c.log.last_message, "inf"));       /* the NaN: an infinite error */
    assert_non_null(strstr(c.log.last_message, "1e-05"));     /* the tolerance */
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 3);
    for (i = 0; i < 4; i++)
        assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 4);
    /* clearing forgets the exclusions with the timings */
    assert_int_equal(hst_choice_clear(op), HST_SUCCESS);
    assert_int_equal(stat_of(op, BENCH_N, 2).failed, HST_SUCCESS);
    assert_int_equal(stat_of(op, BENCH_N, 1).source, HST_CHOICE_NONE);

    /* only the reference agrees: the call's output is the reference's, bit for bit */
    b[1].kind = 2;
    d = op_desc(&c, "testing_ref", 2);
    d.impls = impls;
    d.testing = 1;
    d.output = bench_output;
    op = reg_op(&c, &d);
    n = BENCH_N;
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0);
    memset(args.out, 0, sizeof args.out);
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 0); assert_int_equal(oc.failures, 1);
    assert_doubled(&args, 0.0);
    assert_int_equal(stat_of(op, BENCH_N, 1).failed, HST_ERROR_MISMATCH);
    assert_int_equal(stat_of(op, BENCH_N, 0).samples, 2);   /* its answering run was timed */
    ctx_close(&c);
}

/* Benchmark mode in testing mode: rows that disagree are excluded (HST_ERROR_MISMATCH, no
   timed runs, logged), the others verified (hst_choice_run then runs them unchecked); a tight
   tolerance excludes the noisy twin too. The table shows the tags. */
static void test_testing_benchmark(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_outcome oc;
    hst_choice_impl impls[4];
    bench_impl b[4];
    bench_args args;
    hst_choice_bench_row rows[4];
    int64_t n = BENCH_N;
    size_t count = 0;
    unsigned a_calls;
    char table[2048];
    int i;
    (void)state;
    ctx_open(&c);
    for (i = 0; i < BENCH_N; i++) args.x[i] = 1.0 + i;
    testing_impls(&c, b, impls);
    impls[0].tags = "host cpu"; impls[1].tags = "opencl gpu";
    d = op_desc(&c, "testing_bench", 4);
    d.impls = impls;
    d.testing = 1;
    d.output = bench_output;
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_benchmark(op, &n, 1, &args, 3, rows, 4, &count), HST_SUCCESS);
    assert_int_equal(rows[0].result, HST_SUCCESS); assert_int_equal(rows[0].runs, 3);
    assert_int_equal(rows[1].result, HST_SUCCESS); assert_int_equal(rows[1].runs, 3);
    assert_int_equal(rows[2].result, HST_ERROR_MISMATCH); assert_int_equal(rows[2].runs, 0);
    assert_int_equal(rows[3].result, HST_ERROR_MISMATCH); assert_int_equal(rows[3].runs, 0);
    assert_true(rows[2].max_rel_error > 0.5);
    assert_true(isinf(rows[3].max_rel_error));
    assert_string_equal(rows[1].tags, "opencl gpu"); assert_null(rows[2].tags);
    assert_true(rows[1].chosen);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_EXCLUDED], 2);
    assert_int_equal(stat_of(op, BENCH_N, 2).failed, HST_ERROR_MISMATCH);
    assert_true(hst_choice_table(rows, 4, table, sizeof table) <= sizeof table);
    assert_non_null(strstr(table, "tags"));
    assert_non_null(strstr(table, "opencl gpu"));
    assert_non_null(strstr(table, "HST_ERROR_MISMATCH"));
    a_calls = b[0].f.calls;
    assert_int_equal(hst_choice_run(op, &n, 1, &args, NULL, &oc), HST_SUCCESS);
    assert_int_equal(oc.impl, 1); assert_int_equal(oc.failures, 0);
    assert_int_equal(b[0].f.calls, a_calls);                /* B was verified: no reference */
    /* a tolerance below B's noise excludes B too */
    d.name = "testing_tight";
    d.tolerance = 1e-9;
    op = reg_op(&c, &d);
    assert_int_equal(hst_choice_benchmark(op, &n, 1, &args, 1, rows, 4, &count), HST_SUCCESS);
    assert_int_equal(rows[1].result, HST_ERROR_MISMATCH);
    assert_true(rows[0].chosen);
    ctx_close(&c);
}

/* ============================================================================================
   Persistence */
static void test_persist_roundtrip(void **state)
{
    char dir[64], path[256];
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_stat st;
    hst_choice_outcome oc;
    char *text, *text2;
    int k;
    (void)state;
    make_dir(dir, sizeof dir);
    timings_path(dir, path, sizeof path);

    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    d = op_desc(&c, "persist", 2);
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 0);   /* absent: fine */
    c.f[1].cost = 2.5 * MS;
    for (k = 0; k < 5; k++) run1(op, 64);                   /* A x4 (1 ms), B x1 (2.5 ms) */
    assert_int_equal(hst_choice_record(op, (const int64_t[]){64}, 1, "A", 1.25 * MS), HST_SUCCESS);
    assert_false(file_exists(path));                        /* never written per call */
    assert_int_equal(hst_choice_save(c.be), HST_SUCCESS);
    assert_true(file_exists(path));
    ctx_close(&c);

    /* a new process-like registry reads it back: same samples, no measuring runs */
    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    d = op_desc(&c, "persist", 2);
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 0);
    st = stat_of(op, 64, 0);
    assert_int_equal(st.samples, 5); assert_near(st.seconds, 1 * MS, 1e-15);
    assert_near(stat_of(op, 64, 1).seconds, 2.5 * MS, 1e-15);
    oc = run1(op, 64);
    assert_int_equal(oc.impl, 0); assert_false(oc.explored);
    assert_int_equal(c.f[1].calls, 0);
    text = read_text(path);
    ctx_close(&c);                                          /* saves at destroy */
    text2 = read_text(path);
    assert_non_null(text); assert_non_null(text2);
    assert_true(strcmp(text, text2) != 0);
    free(text); free(text2);

    /* the device is part of the key: B on another device has no timings */
    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    c.impls[1].device_id = "Another GPU | 1.0";
    d = op_desc(&c, "persist", 2);
    op = reg_op(&c, &d);
    assert_int_equal(stat_of(op, 64, 0).samples, 6);
    assert_int_equal(stat_of(op, 64, 1).samples, 0);
    assert_string_equal(stat_of(op, 64, 1).device, "Another GPU | 1.0");
    assert_int_equal(run1(op, 64).impl, 1);                 /* measured on the new device */
    /* destroying without new timings leaves the file alone... after this save */
    assert_int_equal(hst_choice_save(c.be), HST_SUCCESS);
    text = read_text(path);
    ctx_close(&c);
    text2 = read_text(path);
    assert_string_equal(text, text2);
    free(text); free(text2);

    /* save_interval_s: saved from a call once the interval has passed, not before */
    ctx_open_on(&c, NULL, dir, NULL, 10.0);
    d = op_desc(&c, "persist", 2);
    op = reg_op(&c, &d);
    text = read_text(path);
    run1(op, 64);
    text2 = read_text(path);
    assert_string_equal(text, text2);                       /* 1 ms later: not yet */
    free(text2);
    c.clk.now += 10.0;
    run1(op, 64);
    text2 = read_text(path);
    assert_true(strcmp(text, text2) != 0);
    free(text); free(text2);
    ctx_close(&c);
    assert_int_equal(count_files_ending(dir, ".tmp"), 0);
    remove_dir(dir);
}

/* Clearing: every timing, failure mark and choice of the operation is forgotten, in memory
   and in the file (a reload does not bring them back), other operations' timings stay, and
   timings recorded after the clear — here and by another registry on the same file that had
   read the old ones — are kept. */
static void test_clear(void **state)
{
    char dir[64], path[256];
    ctx c, c2;
    hst_choice_op_desc d;
    hst_choice_op *op, *other, *op2;
    hst_choice_stat st;
    char *text;
    int k;
    (void)state;
    make_dir(dir, sizeof dir);
    timings_path(dir, path, sizeof path);
    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    c.f[2].fail = HST_ERROR_UNSUPPORTED;
    d = op_desc(&c, "clr", 3);
    op = reg_op(&c, &d);
    d = op_desc(&c, "kept", 2);
    other = reg_op(&c, &d);
    for (k = 0; k < 4; k++) { run1(op, 64); run1(op, 8); run1(other, 64); }
    assert_int_equal(stat_of(op, 64, 2).failed, HST_ERROR_UNSUPPORTED);
    assert_int_equal(stat_of(op, 64, 0).source, HST_CHOICE_EXACT);
    assert_int_equal(hst_choice_save(c.be), HST_SUCCESS);
    ctx_close(&c);

    /* two registries read the file; the first clears, the second records and saves later */
    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    d = op_desc(&c, "clr", 3);
    op = reg_op(&c, &d);
    d = op_desc(&c, "kept", 2);
    other = reg_op(&c, &d);
    ctx_open_on(&c2, NULL, dir, NULL, 0.0);
    d = op_desc(&c2, "clr", 3);
    op2 = reg_op(&c2, &d);
    assert_int_equal(stat_of(op2, 64, 0).samples, 3);
    assert_int_equal(stat_of(op, 64, 0).samples, 3);
    assert_int_equal(hst_choice_clear(op), HST_SUCCESS);
    for (k = 0; k < 3; k++) {
        st = stat_of(op, k == 2 ? 8 : 64, (unsigned)k);
        assert_int_equal(st.samples, 0); assert_int_equal(st.source, HST_CHOICE_NONE);
        assert_true(isnan(st.seconds)); assert_int_equal(st.failed, HST_SUCCESS);
        assert_int_equal(st.parts, 1);
    }
    assert_int_equal(stat_of(other, 64, 0).samples, 3);     /* another operation: untouched */
    text = read_text(path);                                 /* rewritten at once */
    assert_non_null(text);
    assert_null(strstr(text, "clr\t"));
    assert_non_null(strstr(text, "kept\t"));
    free(text);
    assert_true(run1(op, 64).explored);                     /* measured again */
    assert_int_equal(hst_choice_record(op, (const int64_t[]){64}, 1, "B", 7 * MS), HST_SUCCESS);
    assert_int_equal(hst_choice_record(op2, (const int64_t[]){64}, 1, "C", 9 * MS), HST_SUCCESS);
    assert_int_equal(hst_choice_save(c2.be), HST_SUCCESS);  /* its old samples stay out */
    ctx_close(&c2);
    ctx_close(&c);

    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    d = op_desc(&c, "clr", 3);
    op = reg_op(&c, &d);
    d = op_desc(&c, "kept", 2);
    other = reg_op(&c, &d);
    assert_int_equal(stat_of(op, 64, 0).samples, 1);         /* the run after the clear */
    assert_int_equal(stat_of(op, 64, 1).samples, 1);
    assert_near(stat_of(op, 64, 1).seconds, 7 * MS, 1e-12);
    assert_int_equal(stat_of(op, 64, 2).samples, 1);         /* the other registry's */
    assert_near(stat_of(op, 64, 2).seconds, 9 * MS, 1e-12);
    assert_int_equal(stat_of(op, 8, 0).source, HST_CHOICE_NEAREST);
    assert_int_equal(stat_of(other, 64, 0).samples, 3);
    ctx_close(&c);
    remove_dir(dir);

    /* in memory only, and the argument */
    ctx_open(&c);
    d = op_desc(&c, "clr_mem", 2);
    op = reg_op(&c, &d);
    run1(op, 5); run1(op, 5);
    assert_int_equal(hst_choice_clear(op), HST_SUCCESS);
    assert_int_equal(stat_of(op, 5, 1).source, HST_CHOICE_NONE);
    assert_int_equal(hst_choice_clear(NULL), HST_ERROR_INVALID_ARGUMENT);
    ctx_close(&c);
}

/* Two processes recording and saving at the same time: every sample of both survives (the
   shared history holds 2 x 8 <= HST_CHOICE_HISTORY), and the file stays valid. Runs first,
   before this process has touched OpenCL (the children fork from it). */
#define WRITER_ROUNDS 8
static int writer_child(const char *dir, int id)
{
    hst_backend_desc desc;
    hst_backend *be = NULL;
    hst_choice_op *op = NULL;
    hst_choice_op_desc d;
    hst_choice_impl impl[2];
    fake_clock clk = {0.0};
    fake_impl f;
    int k, bad = 0;
    int64_t shared = 1 << 12, own = 1 << (14 + 2 * id);
    memset(&desc, 0, sizeof desc);
    desc.device = "host";
    desc.cache_dir = dir;
    desc.log_level = HST_LOG_ERROR;
    if (hst_backend_create(&desc, &be) != HST_SUCCESS) return 10;
    memset(&f, 0, sizeof f);
    f.clk = &clk;
    memset(impl, 0, sizeof impl);
    impl[0].name = "A"; impl[0].run = fake_run; impl[0].user = &f;
    impl[1].name = "B"; impl[1].run = fake_run; impl[1].user = &f;
    memset(&d, 0, sizeof d);
    d.name = "concurrent";
    d.impls = impl;
    d.num_impls = 2;
    if (hst_choice_register(be, &d, &op) != HST_SUCCESS) bad = 11;
    for (k = 0; k < WRITER_ROUNDS && !bad; k++) {
        if (hst_choice_record(op, &shared, 1, "A", (id + 1) * MS) != HST_SUCCESS ||
            hst_choice_record(op, &own, 1, "B", (k + 1) * MS) != HST_SUCCESS ||
            hst_choice_save(be) != HST_SUCCESS)
            bad = 12;
    }
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    return bad;
}

static void test_concurrent_writers(void **state)
{
    char dir[64], path[256];
    pid_t pid[2];
    int i, status;
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    int64_t shared = 1 << 12;
    (void)state;
    make_dir(dir, sizeof dir);
    timings_path(dir, path, sizeof path);
    fflush(stdout); fflush(stderr);
    for (i = 0; i < 2; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) _exit(writer_child(dir, i));
    }
    for (i = 0; i < 2; i++) {
        assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    ctx_open_on(&c, "host", dir, NULL, 0.0);   /* the writers' device: the same keys */
    d = op_desc(&c, "concurrent", 2);
    op = reg_op(&c, &d);
    assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 0);
    {
        hst_choice_stat st[2];
        size_t n = 0;
        assert_int_equal(hst_choice_stats(op, &shared, 1, st, 2, &n), HST_SUCCESS);
        assert_int_equal(st[0].samples, 2 * WRITER_ROUNDS);
        /* lower median of 8 x 1 ms and 8 x 2 ms: both writers' samples are there */
        assert_near(st[0].seconds, 1 * MS, 1e-15);
    }
    for (i = 0; i < 2; i++) {
        hst_choice_stat st = stat_of(op, (int64_t)1 << (14 + 2 * i), 1);
        assert_int_equal(st.samples, WRITER_ROUNDS);
        assert_near(st.seconds, (WRITER_ROUNDS / 2) * MS, 1e-15);
    }
    ctx_close(&c);
    assert_int_equal(count_files_ending(dir, ".tmp"), 0);
    remove_dir(dir);
}

/* Corrupt, truncated, tampered and foreign files: ignored with one warning, choice works, the
   next save replaces them with a valid file. */
static void test_corrupt_file(void **state)
{
    char dir[64], path[256];
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    char *good, *bad;
    size_t len;
    int variant;
    (void)state;
    make_dir(dir, sizeof dir);
    timings_path(dir, path, sizeof path);
    /* a valid file to spoil */
    ctx_open_on(&c, NULL, dir, NULL, 0.0);
    d = op_desc(&c, "corrupt", 2);
    op = reg_op(&c, &d);
    run1(op, 8); run1(op, 8); run1(op, 8);
    ctx_close(&c);
    good = read_text(path);
    assert_non_null(good);
    len = strlen(good);
    assert_non_null(strstr(good, "halostream-choice 1\n"));
    for (variant = 0; variant < 5; variant++) {
        bad = (char *)malloc(len + 64);
        assert_non_null(bad);
        memcpy(bad, good, len + 1);
        switch (variant) {
        case 0: write_text(path, "\x01\x02garbage\x00\xff", 12); break;             /* binary */
        case 1: write_text(path, bad, len - 20); break;                             /* cut */
        case 2: bad[len / 2] ^= 0x01; write_text(path, bad, len); break;           /* flipped */
        case 3: memcpy(bad, "other-tool 1", 12); write_text(path, bad, len); break; /* foreign */
        case 4: memcpy(bad + strlen("halostream-choice "), "2", 1);                /* newer */
                write_text(path, bad, len); break;
        }
        free(bad);
        ctx_open_on(&c, NULL, dir, NULL, 0.0);
        d = op_desc(&c, "corrupt", 2);
        op = reg_op(&c, &d);
        assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 1);
        assert_int_equal(stat_of(op, 8, 0).samples, 0);
        assert_true(run1(op, 8).explored);
        assert_int_equal(hst_choice_save(c.be), HST_SUCCESS);   /* replaces it */
        assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 1);
        ctx_close(&c);
        ctx_open_on(&c, NULL, dir, NULL, 0.0);
        d = op_desc(&c, "corrupt", 2);
        op = reg_op(&c, &d);
        assert_int_equal(c.log.counts[HST_LOGITEM_CHOICE_FILE_IGNORED], 0);
        assert_int_equal(stat_of(op, 8, 0).samples, 1);
        ctx_close(&c);
    }
    free(good);
    remove_dir(dir);
}

/* ============================================================================================
   Rejected arguments, each with its result and log item. */
static void test_bad_arguments(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op = NULL, *ok;
    hst_choice_desc cd;
    int64_t sig[5] = {1, 2, 3, 4, 5};
    unsigned pick;
    (void)state;
    ctx_open(&c);
#define REJECT(call, item) do { cap_reset(&c.log);                                             \
        assert_int_equal((call), HST_ERROR_INVALID_ARGUMENT);                                  \
        assert_int_equal(rejections(&c.log), 1);                                               \
        assert_int_equal(c.log.last_item, (item)); } while (0)
    memset(&cd, 0, sizeof cd);
    cd.save_interval_s = -1.0; REJECT(hst_choice_configure(c.be, &cd), HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(c.log.last_message, "save_interval_s"));
    cd.save_interval_s = NAN; REJECT(hst_choice_configure(c.be, &cd), HST_LOGITEM_OUT_OF_RANGE);
    d = op_desc(&c, "bad", 2);
    d.name = NULL;          REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_NULL_ARGUMENT);
    d.name = "";            REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_ARGUMENT);
    d.name = "a:b";         REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_ARGUMENT);
    d.name = "tab\there";   REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_ARGUMENT);
    d.name = "bad";
    d.impls = NULL;         REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_NULL_ARGUMENT);
    d.impls = c.impls;
    d.num_impls = 0;        REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_ZERO_SIZE);
    d.num_impls = HST_CHOICE_MAX_IMPLS + 1;
    REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_OUT_OF_RANGE);
    d.num_impls = 2;
    c.impls[1].name = "A";  REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_ARGUMENT); /* repeated */
    c.impls[1].name = "B,C"; REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_ARGUMENT);
    c.impls[1].name = NULL; REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "impls[1].name is NULL"));
    c.impls[1].name = "B";
    c.impls[1].run = NULL;  REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_NULL_ARGUMENT); /* only one run */
    c.impls[1].run = fake_run;
    d.num_defaults = 1;     REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_NULL_ARGUMENT); /* defaults NULL */
    d.num_defaults = 0;
    REJECT(hst_choice_register(c.be, &d, NULL), HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "out is NULL"));
    REJECT(hst_choice_register(c.be, NULL, &op), HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "desc is NULL"));
    assert_null(op);
    ok = reg_op(&c, &d);
    REJECT(hst_choice_register(c.be, &d, &op), HST_LOGITEM_BAD_STATE);                           /* name taken */
    assert_non_null(strstr(c.log.last_message, "already registered"));
    cd.save_interval_s = 0.0;
    REJECT(hst_choice_configure(c.be, &cd), HST_LOGITEM_BAD_STATE);                              /* too late */
    REJECT(hst_choice_run(ok, sig, 5, NULL, NULL, NULL), HST_LOGITEM_OUT_OF_RANGE);
    REJECT(hst_choice_run(ok, NULL, 1, NULL, NULL, NULL), HST_LOGITEM_NULL_ARGUMENT);
    /* no op, no backend: the default logger reports it */
    assert_int_equal(hst_choice_run(NULL, sig, 1, NULL, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    REJECT(hst_choice_pick(ok, sig, 1, NULL), HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "impl is NULL"));
    REJECT(hst_choice_record(ok, sig, 1, "Z", 1.0), HST_LOGITEM_BAD_ARGUMENT);
    REJECT(hst_choice_record(ok, sig, 1, "A", -1.0), HST_LOGITEM_OUT_OF_RANGE);
    REJECT(hst_choice_record(ok, sig, 1, "A", NAN), HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(c.log.last_message, "seconds"));
    REJECT(hst_choice_record_failure(ok, sig, 1, "A", HST_SUCCESS), HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "why"));
    REJECT(hst_choice_record_failure(ok, sig, 1, "Z", HST_ERROR_UNSUPPORTED), HST_LOGITEM_BAD_ARGUMENT);
    REJECT(hst_choice_record_failure(ok, sig, 5, "A", HST_ERROR_UNSUPPORTED), HST_LOGITEM_OUT_OF_RANGE);
    REJECT(hst_choice_stats(ok, sig, 1, NULL, 0, NULL), HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(c.log.last_message, "count is NULL"));
    {
        size_t count;
        REJECT(hst_choice_stats(ok, sig, 5, NULL, 0, &count), HST_LOGITEM_OUT_OF_RANGE);
    }
    /* sig_len 0 is a signature too */
    assert_int_equal(hst_choice_run(ok, NULL, 0, NULL, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_choice_pick(ok, NULL, 0, &pick), HST_SUCCESS);
    assert_int_equal(pick, 1);
    assert_int_equal(hst_choice_save(c.be), HST_SUCCESS);                 /* path off: nothing */
    assert_int_equal(hst_choice_save(NULL), HST_ERROR_INVALID_ARGUMENT);
#undef REJECT
    ctx_close(&c);
}

/* A backend whose extension slots other layers took all: the registry cannot attach, and
   configure and register answer what hst_backend_attach said (HST_ERROR_UNSUPPORTED, logged),
   not out-of-memory; the backend still destroys cleanly. */
static void test_no_extension_slot(void **state)
{
    static int data;
    static const char *const names[HST_BACKEND_MAX_EXTENSIONS] = {
        "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
    hst_choice_impl impl;
    hst_choice_op_desc d;
    hst_choice_op *op = NULL;
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be;
    int i;
    (void)state;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    for (i = 0; i < HST_BACKEND_MAX_EXTENSIONS; i++)
        assert_int_equal(hst_backend_attach(be, names[i], &data, NULL), HST_SUCCESS);
    memset(&impl, 0, sizeof impl);
    impl.name = "A";
    impl.run = fake_run;
    memset(&d, 0, sizeof d);
    d.name = "full";
    d.impls = &impl;
    d.num_impls = 1;
    cap_reset(&log);
    assert_int_equal(hst_choice_register(be, &d, &op), HST_ERROR_UNSUPPORTED);
    assert_int_equal(log.last_item, HST_LOGITEM_UNSUPPORTED);
    assert_null(op);
    assert_int_equal(hst_choice_configure(be, NULL), HST_ERROR_UNSUPPORTED);
    assert_null(hst_choice_find(be, "full"));
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* A timings-only operation (no run anywhere): records and estimates work, running is
   refused, and a run set on only some implementations is rejected. */
static void test_timings_only(void **state)
{
    ctx c;
    hst_choice_op_desc d;
    hst_choice_op *op;
    hst_choice_stat st[2];
    hst_choice_bench_row rows[2];
    int64_t sig = 1100, near = 1200, far = 4800;
    size_t count = 0;
    unsigned pick = 9, i;
    (void)state;
    ctx_open(&c);
    c.impls[0].run = c.impls[1].run = NULL;
    d = op_desc(&c, "split", 2);
    op = reg_op(&c, &d);
    for (i = 0; i < 5; i++) {   /* one outlier of A's never shows in the lower median */
        assert_int_equal(hst_choice_record(op, &sig, 1, "A", i == 2 ? 50 * MS : 1 * MS),
                         HST_SUCCESS);
        assert_int_equal(hst_choice_record(op, &sig, 1, "B", 3 * MS), HST_SUCCESS);
    }
    assert_int_equal(hst_choice_stats(op, &near, 1, st, 2, &count), HST_SUCCESS);
    assert_int_equal(count, 2);
    assert_int_equal(st[0].source, HST_CHOICE_EXACT);      /* 1100 and 1200 share a bucket */
    assert_int_equal(st[0].samples, 5);
    assert_true(fabs(st[0].seconds - 1 * MS) < 1e-12);
    assert_true(fabs(st[1].seconds - 3 * MS) < 1e-12);
    assert_int_equal(hst_choice_stats(op, &far, 1, st, 2, &count), HST_SUCCESS);
    assert_int_equal(st[1].source, HST_CHOICE_NEAREST);
    assert_true(fabs(st[1].seconds - 3 * MS) < 1e-12);
    assert_int_equal(hst_choice_pick(op, &sig, 1, &pick), HST_SUCCESS);
    assert_int_equal(pick, 0);
    assert_int_equal(hst_choice_run(op, &sig, 1, NULL, NULL, NULL), HST_ERROR_UNSUPPORTED);
    assert_int_equal(hst_choice_benchmark(op, &sig, 1, NULL, 1, rows, 2, &count),
                     HST_ERROR_UNSUPPORTED);
    assert_int_equal(c.log.counts[HST_LOGITEM_UNSUPPORTED], 2);
    /* a run on only one implementation is rejected */
    c.impls[1].run = fake_run;
    d.name = "mixed";
    assert_int_equal(hst_choice_register(c.be, &d, &op), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(c.log.last_item, HST_LOGITEM_NULL_ARGUMENT);
    ctx_close(&c);
}

static void test_log_item_names(void **state)
{
    (void)state;
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_CHANGED), "CHOICE_CHANGED");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_FAILED), "CHOICE_FAILED");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_SPLIT), "CHOICE_SPLIT");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_FORCED), "CHOICE_FORCED");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_FILE_IGNORED), "CHOICE_FILE_IGNORED");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_CHOICE_EXCLUDED), "CHOICE_EXCLUDED");
    assert_string_equal(hst_result_string(HST_ERROR_MISMATCH), "HST_ERROR_MISMATCH");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_writers),   /* first: forks before OpenCL starts */
        cmocka_unit_test(test_log_item_names),
        cmocka_unit_test(test_picks_fastest),
        cmocka_unit_test(test_warmup_not_recorded),
        cmocka_unit_test(test_follows_drift),
        cmocka_unit_test(test_revisit),
        cmocka_unit_test(test_single_outlier),
        cmocka_unit_test(test_skips_failing),
        cmocka_unit_test(test_force_per_call),
        cmocka_unit_test(test_force_desc),
        cmocka_unit_test(test_force_env),
        cmocka_unit_test(test_force_group),
        cmocka_unit_test(test_force_group_env),
        cmocka_unit_test(test_signatures),
        cmocka_unit_test(test_oom_split),
        cmocka_unit_test(test_benchmark),
        cmocka_unit_test(test_testing),
        cmocka_unit_test(test_testing_benchmark),
        cmocka_unit_test(test_persist_roundtrip),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_corrupt_file),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_timings_only),
        cmocka_unit_test(test_no_extension_slot),
    };
    unsetenv("HST_FORCE");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
