/* tests/windows/shim_checks.h — checks of backend.h's OS shim (threads, mutexes, recursive
   mutexes, condition variables, once, atomics, processor count, directories, replacing
   renames, file locks),
   shared by tests/test_threads.c (cmocka, Linux) and tests/windows/check.c (no cmocka: built
   with mingw-w64 and run under Wine). Include after backend.h's implementation. Each check
   returns NULL when it holds, else a message saying what failed. Every wait is bounded: a
   broken primitive fails its check (after at most SC_PATIENCE_S seconds), never hangs it,
   except a thread that never ends (joined as the last step). */
#ifndef HST_TESTS_SHIM_CHECKS_H
#define HST_TESTS_SHIM_CHECKS_H

#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#  define SC_FN static __attribute__((unused))
#else
#  define SC_FN static
#endif

#define SC_THREADS 8            /* more threads than the 2 cores CI has: they interleave */
#define SC_ROUNDS 100000        /* locked increments per thread: long enough to overlap */
#define SC_ATOMIC_ROUNDS 1000000 /* atomic ones (each far cheaper) */
#define SC_PATIENCE_S 10.0      /* how long a check waits for what must happen at once */

/* ---- mutex and atomics: SC_THREADS threads add SC_ROUNDS each to a plain counter under the
   mutex and to an atomic one; both totals exact (a lost update shows as a smaller total) --- */
typedef struct sc_count {
    hst_mutex mu;
    long plain;
    volatile long atomic, ready;
} sc_count;

static void *sc_count_main(void *p) {
    sc_count *c = (sc_count *)p;
    double end = hst_time_s() + SC_PATIENCE_S;
    int k;
    (void)hst_atomic_add(&c->ready, 1);   /* start together, so that the threads overlap */
    while (hst_atomic_add(&c->ready, 0) < SC_THREADS && hst_time_s() < end) {}
    for (k = 0; k < SC_ATOMIC_ROUNDS; k++) (void)hst_atomic_add(&c->atomic, 1);
    for (k = 0; k < SC_ROUNDS; k++) {
        long seen;
        hst_mutex_lock(&c->mu);
        seen = c->plain;          /* a read-modify-write split in two: a race loses updates */
        c->plain = seen + 1;
        hst_mutex_unlock(&c->mu);
    }
    return NULL;
}

SC_FN const char *sc_check_mutex_atomic(void) {
    static sc_count c;
    hst_thread t[SC_THREADS];
    int started[SC_THREADS];
    int i, all = 1;
    c.plain = 0;
    c.atomic = c.ready = 0;
    if (!hst_mutex_init(&c.mu)) return "hst_mutex_init failed";
    for (i = 0; i < SC_THREADS; i++) all &= started[i] = hst_thread_create(&t[i], sc_count_main, &c);
    for (i = 0; i < SC_THREADS; i++) if (started[i]) hst_thread_join(&t[i]);
    hst_mutex_destroy(&c.mu);
    if (!all) return "hst_thread_create failed";
    if (c.plain != (long)SC_THREADS * SC_ROUNDS) return "the mutex lost updates";
    if (hst_atomic_add(&c.atomic, 0) != (long)SC_THREADS * SC_ATOMIC_ROUNDS) return "hst_atomic_add lost updates";
    return NULL;
}

/* ---- recursive mutex: SC_THREADS threads take it twice (the second take must not wait for
   the first) and add to a plain counter under the inner and then only the outer hold; the
   total is exact (a hold the inner unlock ended too early shows as lost updates) ----------- */
typedef struct sc_rcount {
    hst_rmutex mu;
    long plain;
} sc_rcount;

static void *sc_rcount_main(void *p) {
    sc_rcount *c = (sc_rcount *)p;
    int k;
    for (k = 0; k < SC_ROUNDS / 10; k++) {
        long seen;
        hst_rmutex_lock(&c->mu);
        hst_rmutex_lock(&c->mu);
        seen = c->plain;
        c->plain = seen + 1;
        hst_rmutex_unlock(&c->mu);
        seen = c->plain;          /* still held: the outer lock's */
        c->plain = seen + 1;
        hst_rmutex_unlock(&c->mu);
    }
    return NULL;
}

SC_FN const char *sc_check_rmutex(void) {
    static sc_rcount c;
    hst_thread t[SC_THREADS];
    int started[SC_THREADS];
    int i, all = 1;
    c.plain = 0;
    if (!hst_rmutex_init(&c.mu)) return "hst_rmutex_init failed";
    for (i = 0; i < SC_THREADS; i++) all &= started[i] = hst_thread_create(&t[i], sc_rcount_main, &c);
    for (i = 0; i < SC_THREADS; i++) if (started[i]) hst_thread_join(&t[i]);
    hst_rmutex_destroy(&c.mu);
    if (!all) return "hst_thread_create failed";
    if (c.plain != 2L * SC_THREADS * (SC_ROUNDS / 10)) return "the recursive mutex lost updates";
    return NULL;
}

/* hst_atomic_add's result is the new value, for any sign. */
SC_FN const char *sc_check_atomic_values(void) {
    volatile long x = 40;
    if (hst_atomic_add(&x, 2) != 42 || x != 42) return "hst_atomic_add(40, 2) is not 42";
    if (hst_atomic_add(&x, -50) != -8) return "hst_atomic_add(42, -50) is not -8";
    if (hst_atomic_add(&x, 0) != -8) return "hst_atomic_add(x, 0) does not read x";
    return NULL;
}

/* ---- condition variables ------------------------------------------------------------------ */
typedef struct sc_gate {
    hst_mutex mu;
    hst_cond cv;
    int open, waiting, woken;       /* broadcast: the gate, who waits, who got through */
    int turn, passes;               /* signal: whose turn (0, 1), passes made */
} sc_gate;

static void *sc_gate_main(void *p) {
    sc_gate *g = (sc_gate *)p;
    hst_mutex_lock(&g->mu);
    g->waiting++;
    while (!g->open) hst_cond_wait(&g->cv, &g->mu);
    g->woken++;
    hst_mutex_unlock(&g->mu);
    return NULL;
}

/* Polls f(g) under the mutex until it holds or SC_PATIENCE_S pass: 1 when it held. */
static int sc_until(sc_gate *g, int (*f)(const sc_gate *)) {
    double end = hst_time_s() + SC_PATIENCE_S;
    int ok;
    do {
        hst_mutex_lock(&g->mu);
        ok = f(g);
        hst_mutex_unlock(&g->mu);
    } while (!ok && hst_time_s() < end);
    return ok;
}
static int sc_all_waiting(const sc_gate *g) { return g->waiting == SC_THREADS; }
static int sc_all_woken(const sc_gate *g) { return g->woken == SC_THREADS; }

/* SC_THREADS threads wait on one condition; once all are inside hst_cond_wait (they hold the
   mutex from counting themselves until the wait releases it), one broadcast must wake them all
   (a broadcast that woke one, as signal does, leaves the others asleep: the check fails, then
   wakes them to join them). */
SC_FN const char *sc_check_broadcast(void) {
    static sc_gate g;
    hst_thread t[SC_THREADS];
    int started[SC_THREADS];
    int i, all = 1, waited, woke;
    memset(&g, 0, sizeof g);
    if (!hst_mutex_init(&g.mu)) return "hst_mutex_init failed";
    if (!hst_cond_init(&g.cv)) { hst_mutex_destroy(&g.mu); return "hst_cond_init failed"; }
    for (i = 0; i < SC_THREADS; i++) all &= started[i] = hst_thread_create(&t[i], sc_gate_main, &g);
    waited = all && sc_until(&g, sc_all_waiting);
    hst_mutex_lock(&g.mu);
    g.open = 1;
    hst_cond_broadcast(&g.cv);
    hst_mutex_unlock(&g.mu);
    woke = sc_until(&g, sc_all_woken);
    if (!woke) {   /* wake the sleepers one by one, to join them */
        hst_mutex_lock(&g.mu);
        for (i = 0; i < SC_THREADS; i++) hst_cond_signal(&g.cv);
        hst_mutex_unlock(&g.mu);
    }
    for (i = 0; i < SC_THREADS; i++) if (started[i]) hst_thread_join(&t[i]);
    hst_cond_destroy(&g.cv);
    hst_mutex_destroy(&g.mu);
    if (!all) return "hst_thread_create failed";
    if (!waited) return "the threads did not all reach hst_cond_wait";
    if (!woke) return "hst_cond_broadcast did not wake every waiter";
    return NULL;
}

#define SC_PASSES 2000   /* turns handed back and forth with hst_cond_signal */

static void *sc_pong_main(void *p) {
    sc_gate *g = (sc_gate *)p;
    hst_mutex_lock(&g->mu);
    while (g->passes < SC_PASSES) {
        while (g->turn != 1 && g->passes < SC_PASSES) hst_cond_wait(&g->cv, &g->mu);
        if (g->passes >= SC_PASSES) break;
        g->turn = 0;
        g->passes++;
        hst_cond_signal(&g->cv);
    }
    hst_mutex_unlock(&g->mu);
    return NULL;
}

/* Two threads hand a turn back and forth SC_PASSES times, each waking the other with
   hst_cond_signal; a lost wake-up leaves both waiting: the main thread's wait for its turn
   gives up after SC_PATIENCE_S and the check fails. */
SC_FN const char *sc_check_signal(void) {
    static sc_gate g;
    hst_thread t;
    int stuck = 0;
    memset(&g, 0, sizeof g);
    if (!hst_mutex_init(&g.mu)) return "hst_mutex_init failed";
    if (!hst_cond_init(&g.cv)) { hst_mutex_destroy(&g.mu); return "hst_cond_init failed"; }
    if (!hst_thread_create(&t, sc_pong_main, &g)) {
        hst_cond_destroy(&g.cv);
        hst_mutex_destroy(&g.mu);
        return "hst_thread_create failed";
    }
    hst_mutex_lock(&g.mu);
    while (g.passes < SC_PASSES && !stuck) {
        double end = hst_time_s() + SC_PATIENCE_S;
        g.turn = 1;
        g.passes++;
        hst_cond_signal(&g.cv);
        while (g.turn != 0 && g.passes < SC_PASSES) {   /* the other thread's pass */
            hst_mutex_unlock(&g.mu);
            stuck = hst_time_s() > end;
            hst_mutex_lock(&g.mu);
            if (stuck) break;
        }
    }
    g.passes = SC_PASSES;   /* ends the other thread's loop in any case */
    hst_cond_signal(&g.cv);
    hst_mutex_unlock(&g.mu);
    hst_thread_join(&t);
    hst_cond_destroy(&g.cv);
    hst_mutex_destroy(&g.mu);
    return stuck ? "a hst_cond_signal was lost (the turn stopped moving)" : NULL;
}

/* ---- once: SC_THREADS threads call hst_once on one flag; the function runs once, and no
   caller returns before it has finished (each sees its last write) ------------------------- */
static hst_once_flag sc_once_flag = HST_ONCE_INIT;
static volatile long sc_once_runs, sc_once_done, sc_once_early;

static void sc_once_fn(void) {
    double end = hst_time_s() + 0.05;   /* long enough for the other callers to arrive */
    (void)hst_atomic_add(&sc_once_runs, 1);
    while (hst_time_s() < end) {}
    (void)hst_atomic_add(&sc_once_done, 1);
}

static void *sc_once_main(void *p) {
    (void)p;
    hst_once(&sc_once_flag, sc_once_fn);
    if (hst_atomic_add(&sc_once_done, 0) != 1) (void)hst_atomic_add(&sc_once_early, 1);
    return NULL;
}

/* Runs once per process (the flag is static). */
SC_FN const char *sc_check_once(void) {
    hst_thread t[SC_THREADS];
    int started[SC_THREADS];
    int i, all = 1;
    for (i = 0; i < SC_THREADS; i++) all &= started[i] = hst_thread_create(&t[i], sc_once_main, NULL);
    for (i = 0; i < SC_THREADS; i++) if (started[i]) hst_thread_join(&t[i]);
    hst_once(&sc_once_flag, sc_once_fn);   /* and once more, after: does nothing */
    if (!all) return "hst_thread_create failed";
    if (hst_atomic_add(&sc_once_runs, 0) != 1) return "hst_once ran its function more than once";
    if (hst_atomic_add(&sc_once_early, 0) != 0) return "hst_once returned before its function ended";
    return NULL;
}

/* ---- hst_parallel: every share runs once, with its index and the (clamped) count, over
   many calls (the kept workers reused), in the caller's rounding mode; a call from inside a
   share, and SC_THREADS callers at once, run as well (the pool is one caller's at a time: the
   others take threads of their own) */
#define SC_PAR_CALLS 100
typedef struct sc_par {
    volatile long runs[HST_PARALLEL_MAX_THREADS];
    volatile long wrong_n, nested_bad;
    unsigned want_n;
    int nest;
} sc_par;

static void sc_par_inner(void *ctx, unsigned k, unsigned n) {
    sc_par *c = (sc_par *)ctx;
    if (n != 3 || k >= 3) (void)hst_atomic_add(&c->nested_bad, 1);
}

static void sc_par_share(void *ctx, unsigned k, unsigned n) {
    sc_par *c = (sc_par *)ctx;
    if (n != c->want_n || k >= n) { (void)hst_atomic_add(&c->wrong_n, 1); return; }
    (void)hst_atomic_add(&c->runs[k], 1);
    if (c->nest) hst_parallel(sc_par_inner, c, 3);
}

/* NULL when calls of n shares (clamped to want) ran each share exactly `calls` times. */
static const char *sc_par_calls(sc_par *c, unsigned n, unsigned want, int calls, int nest) {
    int i;
    unsigned k;
    memset((void *)c, 0, sizeof *c);
    c->want_n = want;
    c->nest = nest;
    for (i = 0; i < calls; i++) hst_parallel(sc_par_share, c, n);
    if (c->wrong_n || c->nested_bad) return "hst_parallel passed a wrong share index or count";
    for (k = 0; k < HST_PARALLEL_MAX_THREADS; k++)
        if (c->runs[k] != (k < want ? calls : 0)) return "hst_parallel ran a share other than once a call";
    return NULL;
}

/* Each share's rounding mode, against the caller's (set after the workers started). */
#ifdef FE_UPWARD
static volatile long sc_par_round_bad;
static void sc_par_round(void *ctx, unsigned k, unsigned n) {
    (void)ctx; (void)k; (void)n;
    if (fegetround() != FE_UPWARD) (void)hst_atomic_add(&sc_par_round_bad, 1);
}
#endif

typedef struct sc_par_caller { sc_par c; const char *msg; } sc_par_caller;

static void *sc_par_main(void *p) {
    sc_par_caller *a = (sc_par_caller *)p;
    a->msg = sc_par_calls(&a->c, 5, 5, SC_PAR_CALLS, 0);
    return NULL;
}

SC_FN const char *sc_check_parallel(void) {
    static sc_par c;
    static const unsigned ns[7] = {0, 1, 2, 5, 16, HST_PARALLEL_MAX_THREADS, HST_PARALLEL_MAX_THREADS + 3};
    static sc_par_caller callers[SC_THREADS];
    hst_thread t[SC_THREADS];
    int started[SC_THREADS], i, all = 1;
    for (i = 0; i < 7; i++) {
        unsigned want = ns[i] > HST_PARALLEL_MAX_THREADS ? HST_PARALLEL_MAX_THREADS : ns[i];
        const char *m = sc_par_calls(&c, ns[i], want, ns[i] <= 16 ? SC_PAR_CALLS : 5, 0);
        if (m) return m;
    }
    if (sc_par_calls(&c, 4, 4, 20, 1)) return "hst_parallel from inside a share failed";
#ifdef FE_UPWARD
    if (fesetround(FE_UPWARD) == 0) {   /* the workers exist: they take the caller's mode */
        hst_parallel(sc_par_round, NULL, 5);
        fesetround(FE_TONEAREST);
        if (sc_par_round_bad) return "hst_parallel ran a share outside the caller's rounding mode";
    }
#endif
    for (i = 0; i < SC_THREADS; i++) all &= started[i] = hst_thread_create(&t[i], sc_par_main, &callers[i]);
    for (i = 0; i < SC_THREADS; i++) if (started[i]) hst_thread_join(&t[i]);
    if (!all) return "hst_thread_create failed";
    for (i = 0; i < SC_THREADS; i++) if (callers[i].msg) return callers[i].msg;
    return NULL;
}

/* ---- hst_parallel_memcpy / _memset: every byte, none beyond (sizes below one share, of
   several shares and not a multiple of the share count) ------------------------------------ */
SC_FN const char *sc_check_parallel_copies(void) {
    static const size_t sizes[5] = {0, 1, 4097, (size_t)3 << 20, ((size_t)5 << 20) + 13};
    const size_t guard = 64, most = sizes[4];
    unsigned char *src = (unsigned char *)malloc(most + guard), *dst = (unsigned char *)malloc(most + guard);
    const char *msg = NULL;
    size_t i, k;
    if (!src || !dst) msg = "out of host memory";
    for (k = 0; k < 5 && !msg; k++) {
        size_t n = sizes[k];
        for (i = 0; i < most + guard; i++) { src[i] = (unsigned char)(i * 7 + 3); dst[i] = 0xEE; }
        hst_parallel_memcpy(dst, src, n);
        for (i = 0; i < n + guard && !msg; i++)
            if (dst[i] != (i < n ? src[i] : 0xEE)) msg = "hst_parallel_memcpy: a byte wrong or written beyond";
        hst_parallel_memset(dst, 0x5A, n);
        for (i = 0; i < n + guard && !msg; i++)
            if (dst[i] != (i < n ? 0x5A : 0xEE)) msg = "hst_parallel_memset: a byte wrong or written beyond";
    }
    free(src);
    free(dst);
    return msg;
}

/* ---- the system's facts ------------------------------------------------------------------- */
SC_FN const char *sc_check_system(void) {
    long pid = hst_process_id();
    if (hst_cpu_count() < 1) return "hst_cpu_count is 0";
    if (hst_physical_memory_bytes() < ((uint64_t)1 << 20)) return "hst_physical_memory_bytes is below 1 MiB";
    if (pid <= 0 || hst_process_id() != pid) return "hst_process_id is not a stable positive id";
    return NULL;
}

/* ---- files: nested directories made, a rename replacing an existing file ------------------ */
static int sc_write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    int ok = f && fputs(text, f) >= 0;
    return f ? (fclose(f) == 0) && ok : 0;
}

static int sc_read_text(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    size_t n;
    if (!f) return 0;
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 1;
}

/* base: a directory that exists and may be written (a fresh name under it is used). */
SC_FN const char *sc_check_files(const char *base) {
    char dir[600], a[700], b[700], got[16];
    snprintf(dir, sizeof dir, "%s/shim-%ld/x/y", base, hst_process_id());
    hst_mkdirs(dir);
    hst_mkdirs(dir);   /* existing directories are fine */
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    if (!sc_write_text(a, "new") || !sc_write_text(b, "old")) return "hst_mkdirs did not make the directories";
    if (!hst_rename_replace(a, b)) return "hst_rename_replace refused to replace an existing file";
    if (!sc_read_text(b, got, sizeof got) || strcmp(got, "new")) return "hst_rename_replace left the old content";
    if (sc_read_text(a, got, sizeof got)) return "hst_rename_replace left the source";
    remove(b);
    return NULL;
}

/* ---- file locks: threads exclude each other where the shim promises it (Linux, Windows) --- */
#define SC_LOCK_ROUNDS 200   /* read-increment-write cycles per thread on one file */
typedef struct sc_locker { const char *lock, *data; int ok; } sc_locker;

static void *sc_locker_main(void *p) {
    sc_locker *l = (sc_locker *)p;
    int k;
    l->ok = 1;
    for (k = 0; k < SC_LOCK_ROUNDS && l->ok; k++) {
        hst_file_lock fl;
        char text[32];
        long n = 0;
        if (!hst_file_lock_acquire(&fl, l->lock)) { l->ok = 0; break; }
        if (sc_read_text(l->data, text, sizeof text)) n = strtol(text, NULL, 10);
        snprintf(text, sizeof text, "%ld", n + 1);
        l->ok = sc_write_text(l->data, text);
        hst_file_lock_release(&fl);
    }
    return NULL;
}

SC_FN const char *sc_check_file_lock(const char *base) {
#if defined(__linux__) || defined(_WIN32)
    static sc_locker l[4];
    char lock[600], data[600], text[32];
    hst_thread t[4];
    int started[4];
    int i, all = 1;
    snprintf(lock, sizeof lock, "%s/shim-lock-%ld.lock", base, hst_process_id());
    snprintf(data, sizeof data, "%s/shim-lock-%ld.txt", base, hst_process_id());
    remove(data);
    for (i = 0; i < 4; i++) {
        l[i].lock = lock;
        l[i].data = data;
        all &= started[i] = hst_thread_create(&t[i], sc_locker_main, &l[i]);
    }
    for (i = 0; i < 4; i++) if (started[i]) hst_thread_join(&t[i]);
    if (!all) return "hst_thread_create failed";
    for (i = 0; i < 4; i++) if (!l[i].ok) return "hst_file_lock_acquire or a write failed";
    if (!sc_read_text(data, text, sizeof text) || strtol(text, NULL, 10) != 4L * SC_LOCK_ROUNDS)
        return "the file lock let two threads in at once (updates lost)";
    remove(data);
    remove(lock);
#else
    (void)base;   /* other POSIX systems lock per process: nothing to check between threads */
#endif
    return NULL;
}

#endif /* HST_TESTS_SHIM_CHECKS_H */
