/* choice.h — halostream's choice among implementations by measured speed: an operation
   registers several implementations (host C, OpenCL on each device, fused or chained variants),
   each call names its size signature, and the registry runs the one measured fastest for that
   signature on that device, keeping the timings in one file per user. Implementations carry
   run-type groups (tags: "host threaded cpu", "opencl gpu") that a force can name ("@gpu");
   an operation's timings can be cleared; a testing mode checks every implementation's output
   against the reference's and excludes those that disagree. Single-file, header-only,
   C99 (and C++). Sits on backend.h (its devices, logging and cache directory); it does not use
   array.h.

   Do this:
       #define HST_IMPLEMENTATION          (or HST_CHOICE_IMPLEMENTATION for this header alone)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations.

   Usage (two implementations of a square; the registry measures both, then runs the faster):

       static hst_result square_host(void *args, void *user) {
           double *x = (double *)args; (void)user; *x = *x * *x; return HST_SUCCESS; }
       static hst_result square_again(void *args, void *user) {
           double *x = (double *)args; (void)user; *x = *x * *x; return HST_SUCCESS; }

       hst_backend_desc bdesc = {0};
       hst_backend *be; hst_choice_op *op; hst_choice_outcome oc;
       hst_choice_impl impls[2] = {{"host", square_host, NULL, NULL, NULL, 1, "host cpu"},
                                   {"again", square_again, NULL, NULL, NULL, 0, "host"}};
       hst_choice_op_desc d = {0};
       int64_t sig[1] = {1};                      // the size that drives the cost
       double x = 3.0;
       if (hst_backend_create(&bdesc, &be) != HST_SUCCESS) return 1;
       d.name = "square"; d.impls = impls; d.num_impls = 2;
       hst_result r = hst_choice_register(be, &d, &op);
       if (r == HST_SUCCESS) r = hst_choice_run(op, sig, 1, &x, NULL, &oc);   // oc.name: the one that ran
       if (hst_backend_destroy(be) != HST_SUCCESS || r != HST_SUCCESS) return 1;   // saves the timings
       // cc -std=c99 app.c -lOpenCL -lm

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_CHOICE_IMPLEMENTATION              the implementation TU: compile choice.h's body only
     HST_NO_OPENCL, HST_STATIC, HST_API     as in backend.h

   Environment: HST_FORCE ("op:impl,op2:@tag": always run that implementation, or choose only
   among the implementations tagged so), and
   backend.h's HST_CACHE_DIR (where the timings file lives).

   What it does NOT do: it never picks at random; it never times a run that failed (a failing
   implementation is skipped for that signature and logged); it does not retry an
   out-of-memory in a loop (one split, computed from the device's limits); it does not write the
   timings file per call; it does not make one registry safe to use from two threads at once
   (its calls are per backend, see backend.h's thread-safety classes). The timings file is
   shared between processes and threads under backend.h's hst_file_lock (fcntl on the open
   file on Linux 3.15 and later, LockFileEx on Windows); on other POSIX systems the lock is the
   process's, and backends of one process must not save to the same file at the same time
   (hst_choice_save, hst_backend_destroy, hst_choice_run's interval saves).

   Version 0.1.0 (HST_VERSION_STRING in backend.h). MIT licence, Copyright (c) 2026 the
   halostream authors (the full text at the end of this file). */

#ifndef HST_CHOICE_H
#define HST_CHOICE_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Choice by measured speed (NanoPyx's Liquid Engine, REFERENCE.md section 2, without its
   defects: the device is part of every key, timings are bucketed per signature value rather
   than collapsed into one product "score", the file is written at exit or an interval rather
   than per call, out-of-memory splits once from the device's limits rather than in a retry
   loop, and nothing is picked at random).

   An operation registers several implementations (host C serial or threaded, OpenCL on each
   device, fused or chained variants); each call names a size signature: the integers that drive
   its cost (rows, cols, frames, magnification, ...). Each value falls into a bucket of
   1/HST_CHOICE_BUCKETS_PER_OCTAVE of an octave (values < 1 share one bucket), so similar inputs
   share timings. For a call hst_choice_run
     1. runs the forced implementation if one is forced: per call (`force`), else $HST_FORCE
        ("op:impl,op2:impl2"), else the op desc's `force`; a forced failure is returned as is.
        A force "@word" names a run-type group instead (NanoPyx's run types: its methods'
        "@cpu", "@threaded", "@gpu" decorators): steps 2 and 3 then choose only among the
        implementations whose tags hold that word, and the call fails only when every one of
        them has;
     2. else measures what is unknown: an implementation with neither a timing nor a shipped
        default for this signature runs (registration order), unless the nearest signature
        with timings shows it more than HST_CHOICE_EXPLORE_SLOWER times slower than the best
        there (op.no_explore: never run to measure; use the nearest signature's timings);
     3. else runs the implementation whose last HST_CHOICE_HISTORY timings for this signature
        have the lowest lower median (a single slow run never flips the choice; a lasting change
        does, once it fills half the history). Every `revisit_every` calls of one signature the
        least recently run implementation within HST_CHOICE_REVISIT_WITHIN of the best runs
        instead, so the choice also follows implementations that became faster.
   Every successful run is timed with the registry's clock and recorded, except the first run
   of each implementation in the process (a warm-up: program builds, first touch of memory)
   unless op.no_warmup. A run that fails is skipped for that signature from then on, logged with
   its reason (HST_LOGITEM_CHOICE_FAILED), and the call goes on with the next choice: it fails only
   when every implementation has. An out-of-memory result (hst_result_is_out_of_memory) with
   op.split set is run once more, split into parts computed from the implementation's device
   (largest allocation, free-memory estimate; HST_LOGITEM_CHOICE_SPLIT), and that part count is kept
   for the signature. There is no retry loop: a split that fails is a failure.

   Testing mode (op.testing; NanoPyx's `testing`, which compares and warns where this
   excludes): the first successful run of each implementation other than the reference at a
   signature is checked against the reference's output on the same args (the reference runs
   first, untimed, when the call needs its output). An output that disagrees — max |x - ref| /
   max |ref| (absolute where the reference is all zero) over op.tolerance, a NaN where the
   reference has a number or the other way round, or another element count — excludes that
   implementation for the signature as a failure does (its failed mark HST_ERROR_MISMATCH,
   logged once as HST_LOGITEM_CHOICE_EXCLUDED), and the call goes on to the next choice: the
   caller receives the reference's output or one that agreed, never a disagreeing one (a
   forced implementation that disagrees: the call returns HST_ERROR_MISMATCH). Where the
   reference itself fails at a signature, nothing can be checked there: the others run
   unchecked. hst_choice_clear forgets the checks with the timings.

   Timings persist in one file per user: <cache dir>/choice-u<uid>.txt (the backend's cache
   directory, see hst_backend_desc.cache_dir; none when it is off), keyed by operation,
   implementation, device identity (name | driver version) and signature buckets. It is read
   when the first operation registers and written by hst_choice_save, by hst_backend_destroy and
   at most every save_interval_s (never per call): under an advisory lock (hst_file_lock on
   "<file>.lock"), merged with what other processes wrote meanwhile, into a temporary file
   renamed over the old one. A corrupt or foreign file is ignored with one warning
   (HST_LOGITEM_CHOICE_FILE_IGNORED) and replaced at the next save.

   Implementations must return when their results are complete (wait for their queues), or their
   times mean nothing. Backends named by implementations must outlive the operation; operations
   live until their backend is destroyed. Not thread-safe (like the backend). */
#define HST_CHOICE_MAX_SIG 4            /* integers in a size signature */
#define HST_CHOICE_MAX_IMPLS 16         /* implementations of one operation */
#define HST_CHOICE_HISTORY 16           /* timings kept per implementation, device, signature */
#define HST_CHOICE_BUCKETS_PER_OCTAVE 2 /* 100 and 128 differ; 100 and 110 share */
#define HST_CHOICE_EXPLORE_SLOWER 4.0   /* not measured where the nearest says this much slower */
#define HST_CHOICE_REVISIT_EVERY 100    /* default revisit interval (calls of one signature) */
#define HST_CHOICE_REVISIT_WITHIN 3.0   /* revisited only within 3x of the best: at most
                                           (3 - 1) / 100 = 2% of the time goes to revisits */
#define HST_CHOICE_TOLERANCE 1e-5       /* testing mode's default: max |x - ref| / max |ref| */

typedef struct hst_choice_op hst_choice_op;
/* Runs one implementation on the caller's arguments; returns when the results are complete. */
typedef hst_result (*hst_choice_run_fn)(void *args, void *user);
/* Seconds on a monotonic clock (the default: CLOCK_MONOTONIC where the build exposes it,
   gettimeofday otherwise); tests inject their own. */
typedef double (*hst_choice_clock_fn)(void *user);

/* What an out-of-memory split knows: a suggested part count (>= 2: the declared work_bytes
   over the free estimate and over the largest allocation, whichever needs more; 2 when the op
   declares no work size) and the limits it came from, of the implementation's device. */
typedef struct hst_choice_split_info {
    size_t parts;
    uint64_t max_alloc_bytes;      /* CL_DEVICE_MAX_MEM_ALLOC_SIZE (hst_device_info) */
    uint64_t free_bytes;           /* global memory (or the desc's limit) less live bytes */
} hst_choice_split_info;
/* Runs the call's work in info->parts pieces (or as many as the split decides from the
   limits), calling run(piece_args, run_user) for each. */
typedef hst_result (*hst_choice_split_fn)(void *args, const hst_choice_split_info *info,
                                          hst_choice_run_fn run, void *run_user);

typedef struct hst_choice_impl {
    const char *name;              /* unique in the op; no tab, newline or comma, no leading
                                      '@' (a group) ("host", "opencl", "fused"); copied */
    hst_choice_run_fn run;         /* NULL in every implementation: a timings-only operation
                                      (the caller runs the work, hst_choice_record feeds the
                                      timings, hst_choice_stats reads the estimates;
                                      hst_choice_run and _benchmark answer UNSUPPORTED) */
    void *user;                    /* passed to run */
    hst_backend *backend;          /* the device it runs on (identity, split limits);
                                      NULL: the backend the op is registered with */
    const char *device_id;         /* overrides the identity "name | driver version"; copied */
    int reference;                 /* the host twin that hst_choice_benchmark and testing mode
                                      compare with (none marked: the first implementation) */
    const char *tags;              /* run-type groups: words separated by spaces ("host
                                      threaded cpu", "opencl gpu"), no tab, newline, comma,
                                      colon or '@'; a force "@word" chooses among those tagged
                                      so; NULL: none; copied */
} hst_choice_impl;

/* A shipped default: a time in seconds for an implementation at a signature. Used for
   signatures the implementation has no timings for (the nearest default); never saved. */
typedef struct hst_choice_default {
    const char *impl;
    int64_t sig[HST_CHOICE_MAX_SIG];
    unsigned sig_len;
    double seconds;
} hst_choice_default;

typedef struct hst_choice_op_desc {
    const char *name;              /* unique per backend; no tab, newline, comma or colon */
    const hst_choice_impl *impls;  /* 1..HST_CHOICE_MAX_IMPLS, copied */
    size_t num_impls;
    const char *force;             /* always run this implementation (by name), or choose only
                                      among a group ("@tag"); NULL: choose */
    const hst_choice_default *defaults;   /* copied */
    size_t num_defaults;
    hst_choice_split_fn split;     /* out of memory: run in parts; NULL: it is a failure */
    uint64_t (*work_bytes)(const void *args);  /* device bytes the whole call needs; NULL:
                                      unknown (the split gets 2 parts and the limits) */
    /* Benchmark and testing cross-check: the call's output as doubles (count: elements),
       size-query-then-fill (dst NULL: only *count); NULL: outputs are not compared. */
    hst_result (*output)(void *args, double *dst, size_t capacity, size_t *count);
    int no_warmup;                 /* 1: record first runs too */
    int no_explore;                /* 1: never run an implementation just to measure it */
    int revisit_every;             /* 0: HST_CHOICE_REVISIT_EVERY; < 0: never revisit */
    int testing;                   /* 1: check outputs against the reference's and exclude
                                      those that disagree (above); needs output */
    double tolerance;              /* testing: the largest max |x - ref| / max |ref| that agrees
                                      (a ratio, not ulps); 0: HST_CHOICE_TOLERANCE */
} hst_choice_op_desc;

typedef struct hst_choice_desc {
    hst_choice_clock_fn clock;     /* NULL: the monotonic clock */
    void *clock_user;
    const char *path;              /* timings file; NULL: <cache dir>/choice-u<uid>.txt;
                                      "off": in memory only */
    double save_interval_s;        /* > 0: also save from hst_choice_run once this long has
                                      passed since the last save; 0: at save/destroy only */
} hst_choice_desc;

/* Configures the backend's registry; call before the first operation registers (later:
   HST_ERROR_INVALID_ARGUMENT), which includes those the library registers: hst_stream_create
   with several devices (on backends[0]) or with block_slices 0 on an OpenCL device (its copy
   model, "stream_copy"), esrrf.h's first run or live session ("esrrf"), the first
   hst_halo_pack_host_choose / _unpack_host_choose of a plan on this backend, and array.h's
   first hst_array_fft on an OpenCL device ("array_fft_<kind>_<precision>"). Without it the
   defaults apply.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_configure(hst_backend *be, const hst_choice_desc *desc);
/* Registers an operation (reading the timings file on first use). Errors:
   HST_ERROR_INVALID_ARGUMENT (names missing, repeated or with forbidden characters, an
   implementation's name beginning with '@', tags with forbidden characters, no or too many
   implementations, some runs NULL and others not, force or a default naming no
   implementation, force "@tag" naming no tag, testing without output, tolerance negative
   or NaN), HST_ERROR_OUT_OF_HOST_MEMORY.
   Thread safety: per backend (also hst_choice_find). */
HST_API HST_NODISCARD hst_result hst_choice_register(hst_backend *be, const hst_choice_op_desc *desc,
                                                     hst_choice_op **out);
HST_API hst_choice_op *hst_choice_find(hst_backend *be, const char *name);  /* NULL: none */

typedef struct hst_choice_outcome {
    unsigned impl;                 /* index (registration order) of the one that produced it */
    const char *name;              /* its name (valid while the op lives) */
    double seconds;                /* its time for this call (with splitting) */
    size_t parts;                  /* 1, or the parts an out-of-memory split used */
    int explored;                  /* run to measure it (no timing for this signature yet) */
    int forced;                    /* per call, $HST_FORCE or the desc chose it (or its group) */
    unsigned failures;             /* implementations that failed (or, testing, disagreed with
                                      the reference) during this call */
} hst_choice_outcome;

/* Runs the operation on args (see above). sig: sig_len (0..HST_CHOICE_MAX_SIG) integers.
   force: an implementation's name, "@tag" (a group), or NULL. outcome may be NULL. Errors: the
   last failing implementation's result (HST_ERROR_MISMATCH: testing, it disagreed with the
   reference); HST_ERROR_INVALID_ARGUMENT (op NULL, sig_len, force naming no implementation
   or no tag: logged with the tags there are); HST_ERROR_UNSUPPORTED (a timings-only
   operation); HST_ERROR_OUT_OF_HOST_MEMORY (testing: the reference's output).
   Thread safety: per backend, on the op's backend and on every backend its implementations
   use (the implementations run on the calling thread). */
HST_API HST_NODISCARD hst_result hst_choice_run(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                                void *args, const char *force, hst_choice_outcome *outcome);
/* The index of the implementation hst_choice_run would run next for sig (revisits aside),
   without running or recording anything. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_pick(const hst_choice_op *op, const int64_t *sig,
                                                 unsigned sig_len, unsigned *impl);
/* Records a time measured elsewhere (the stream measures its devices' blocks) as a run; it is
   saved with the others (hst_choice_save, hst_backend_destroy, the next interval save of
   hst_choice_run). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_record(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                                   const char *impl, double seconds);
/* Records a failure found elsewhere (array.h: a VkFFT configuration that VkFFT refuses at a
   shape) as a failed run of hst_choice_run does: impl is never picked at sig's buckets again in
   this process (the mark is not saved), and it holds no timing there, so signatures nearby
   still measure it (a time standing for the failure would keep it from them: see step 2 above
   hst_choice_run). why: the failure's error code (not HST_SUCCESS), reported by
   hst_choice_stats' `failed`. Nothing is logged: the caller logs the failure in its own terms.
   Errors: HST_ERROR_NULL_ARGUMENT, HST_ERROR_INVALID_ARGUMENT (no such impl; why is
   HST_SUCCESS), HST_ERROR_OUT_OF_RANGE (sig_len), HST_ERROR_OUT_OF_HOST_MEMORY.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_record_failure(hst_choice_op *op, const int64_t *sig,
                                                           unsigned sig_len, const char *impl,
                                                           hst_result why);

enum { HST_CHOICE_NONE = 0, HST_CHOICE_EXACT, HST_CHOICE_DEFAULT, HST_CHOICE_NEAREST };
typedef struct hst_choice_stat {
    const char *impl, *device;
    unsigned samples;              /* timings held for this signature */
    double seconds;                /* lower median of them; else the nearest shipped default;
                                      else the nearest signature's; NaN when nothing is known */
    int source;                    /* HST_CHOICE_EXACT, _DEFAULT, _NEAREST or _NONE */
    hst_result failed;             /* non-zero: skipped for this signature after this error */
    size_t parts;                  /* > 1: runs split after an out-of-memory */
    const char *tags;              /* the implementation's run-type groups; NULL: none */
} hst_choice_stat;
/* One entry per implementation, registration order; size-query-then-fill (out NULL).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_stats(const hst_choice_op *op, const int64_t *sig,
                                                  unsigned sig_len, hst_choice_stat *out, size_t capacity,
                                                  size_t *count);

typedef struct hst_choice_bench_row {
    const char *impl, *device;
    hst_result result;             /* of its runs (a failure ends its row) */
    unsigned runs;                 /* timed runs (after one untimed run, whose output is kept) */
    double median_s, best_s;
    double vs_best;                /* median over the best median among the rows that ran */
    double max_rel_error;          /* max |x - ref| / max |ref| against the reference;
                                      NaN without op.output */
    double correlation;            /* Pearson r against the reference; NaN without output */
    int reference, chosen;         /* chosen: what hst_choice_run would pick afterwards */
    const char *tags;              /* the implementation's run-type groups; NULL: none */
} hst_choice_bench_row;
/* Benchmark mode: runs every implementation on args — the reference first, once untimed
   (its output kept) and `reps` times timed (0: 3) — cross-checks each output against the
   reference's, records every timed run, and fills one row per implementation (rows NULL: only
   *count). In testing mode an implementation whose output disagrees is excluded as
   hst_choice_run excludes it: its row's result HST_ERROR_MISMATCH, no timed runs. Errors:
   HST_ERROR_INVALID_ARGUMENT (capacity below the count), HST_ERROR_UNSUPPORTED (a timings-only
   operation), allocation.
   Thread safety: per backend, as hst_choice_run. */
HST_API HST_NODISCARD hst_result hst_choice_benchmark(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                                      void *args, unsigned reps, hst_choice_bench_row *rows,
                                                      size_t capacity, size_t *count);
/* The rows as a text table, one line per row with its tags (NanoPyx's benchmark table shows
   the run type) (snprintf-style: returns the bytes needed including the NUL, writes at most
   capacity). Thread-safe. */
HST_API size_t hst_choice_table(const hst_choice_bench_row *rows, size_t count, char *buf,
                                size_t capacity);
/* Forgets every timing, failure mark (testing's exclusions too) and split part count of the
   operation, for every implementation on every device (NanoPyx's clear_benchmarks), and
   rewrites the timings file at once, under the lock, without them: a later merge with the
   file does not bring them back, while timings recorded after the clear, by this process or
   another, are kept (another process's samples not yet saved at the clear are kept too).
   Errors: HST_ERROR_INVALID_ARGUMENT (op NULL); HST_ERROR_IO (the file: the memory is
   cleared, and the next save drops the operation's records from the file).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_choice_clear(hst_choice_op *op);
/* Writes the timings now (merged under the lock), if any were recorded since the last save.
   Errors: HST_ERROR_IO (logged as HST_LOGITEM_CACHE_WRITE_FAILED). Thread safety: per backend
   (see the timings file at the top of the file). */
HST_API HST_NODISCARD hst_result hst_choice_save(hst_backend *be);

#ifdef __cplusplus
}
#endif
#endif /* HST_CHOICE_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_IMPLEMENTATION) && !defined(HST_CHOICE_IMPLEMENTATION)
#  define HST_CHOICE_IMPLEMENTATION
#endif
#if defined(HST_CHOICE_IMPLEMENTATION) && !defined(HST__CHOICE_IMPLEMENTED)
#define HST__CHOICE_IMPLEMENTED

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__CDEF HST_API __attribute__((unused))
#else
#  define HST__CDEF HST_API
#endif


#ifdef __cplusplus
extern "C" {
#endif

/* >>helpers (choice.h uses backend.h's public API only, so its implementation may live in
   another translation unit than backend.h's) */
/* Rejections: backend.h's hst__null_arg, hst__zero_arg, hst__range_arg, hst__state_arg,
   hst__bad_arg. */

static void hst__choice_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* >>choice ----------------------------------------------------------------------------------- */
#define HST__CHOICE_MAGIC "halostream-choice 1"
#define HST__CHOICE_EXTENSION "choice"   /* the registry's name among the backend's extensions */
#define HST__CHOICE_MAX_FILE_BYTES ((size_t)16 << 20)  /* larger: not ours, or corrupt */
/* Part of the free-memory estimate a split plans to use: drivers keep some memory back (the
   NVIDIA OpenCL driver a few hundred MiB) and allocations fragment. */
#define HST__CHOICE_FREE_FRACTION 0.75
#define HST__CHOICE_MAX_PARTS ((size_t)1 << 16)   /* beyond this a split cannot help */

typedef struct hst__choice_key {
    unsigned n;
    int32_t b[HST_CHOICE_MAX_SIG];
} hst__choice_key;

/* One history: an implementation on a device at a signature. Samples are chronological. */
typedef struct hst__choice_rec {
    char *op, *impl, *device;
    hst__choice_key key;
    double t[HST_CHOICE_HISTORY];
    unsigned n;
    unsigned fresh;                /* samples recorded since the last load or save */
    int synced;                    /* a merge found it in the file */
} hst__choice_rec;

typedef struct hst__choice_sig {
    hst__choice_key key;
    long rec[HST_CHOICE_MAX_IMPLS];        /* index into the registry's records; -1: none */
    double med[HST_CHOICE_MAX_IMPLS];      /* lower median of the record; < 0: no samples */
    hst_result failed[HST_CHOICE_MAX_IMPLS];
    size_t parts[HST_CHOICE_MAX_IMPLS];    /* > 1: split after an out-of-memory */
    unsigned long last_run[HST_CHOICE_MAX_IMPLS];
    unsigned long calls;
    int chosen;                            /* the last best (not explored or revisited); -1 */
    uint32_t verified;                     /* testing: bit i, implementation i's output agreed */
} hst__choice_sig;

typedef struct hst__choice_impl {
    hst_choice_impl pub;           /* name, device_id and tags point at the copies below */
    char *name, *device, *tags;
    int warm;                      /* has run once in this process */
} hst__choice_impl;

typedef struct hst__choice_dflt {
    unsigned impl;
    hst__choice_key key;
    double seconds;
} hst__choice_dflt;

/* A force resolved: the implementations it allows (bit i: implementation i; 0: not forced);
   group: "@tag", chosen among them as usual; else the one implementation, run whatever its
   marks. */
typedef struct hst__choice_force {
    uint32_t allow;
    int group;
} hst__choice_force;

struct hst_choice_op {
    struct hst__choice *reg;
    char *name;
    hst__choice_impl impl[HST_CHOICE_MAX_IMPLS];
    unsigned nimpl, reference;
    hst__choice_force force_desc, force_env;
    hst__choice_dflt *defaults;
    size_t ndefaults;
    hst_choice_split_fn split;
    uint64_t (*work_bytes)(const void *args);
    hst_result (*output)(void *args, double *dst, size_t capacity, size_t *count);
    int no_warmup, no_explore;
    int testing;
    double tolerance;
    int clear_pending;             /* cleared: the next save drops its records from the file */
    unsigned long revisit_every;   /* 0: never */
    hst__choice_sig *sigs;
    size_t nsigs, capsigs;
    hst_choice_op *next;
};

typedef struct hst__choice {
    hst_backend *be;
    hst_choice_clock_fn clock;
    void *clock_user;
    char path[1100];               /* empty: in memory only */
    double save_interval_s, last_save;
    hst__choice_rec *recs;
    size_t nrecs, caprecs;
    hst_choice_op *ops;
    int warned_file, loaded;
} hst__choice;

static double hst__choice_default_clock(void *user) {
    (void)user;
    return hst_time_s();
}

static char *hst__choice_strdup(const hst_backend *be, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)hst_backend_alloc(be, n);
    if (d) memcpy(d, s, n);
    return d;
}

/* floor(log2(v) * HST_CHOICE_BUCKETS_PER_OCTAVE); values below 1 share bucket -1. */
static int32_t hst__choice_bucket(int64_t v) {
    if (v < 1) return -1;
    return (int32_t)floor(log2((double)v) * HST_CHOICE_BUCKETS_PER_OCTAVE + 1e-9);
}

static void hst__choice_make_key(const int64_t *sig, unsigned n, hst__choice_key *k) {
    unsigned i;
    memset(k, 0, sizeof *k);
    k->n = n;
    for (i = 0; i < n; i++) k->b[i] = hst__choice_bucket(sig[i]);
}

static int hst__choice_key_eq(const hst__choice_key *a, const hst__choice_key *b) {
    return a->n == b->n && !memcmp(a->b, b->b, sizeof a->b);
}

/* L1 distance in buckets; -1 when the lengths differ (never near). */
static long hst__choice_key_dist(const hst__choice_key *a, const hst__choice_key *b) {
    long d = 0;
    unsigned i;
    if (a->n != b->n) return -1;
    for (i = 0; i < a->n; i++) d += labs((long)a->b[i] - (long)b->b[i]);
    return d;
}

static void hst__choice_key_text(const hst__choice_key *k, char *buf, size_t cap) {
    size_t len = 0;
    unsigned i;
    buf[0] = '\0';
    for (i = 0; i < k->n && len + 1 < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", i ? "," : "", (int)k->b[i]);
    if (k->n == 0) hst__choice_copy(buf, cap, "-");
}

/* The lower median: with an even count the faster of the two middle values, so one slow run
   among two cannot flip a choice. */
static double hst__choice_median(const double *t, unsigned n) {
    double s[HST_CHOICE_HISTORY], x;
    unsigned i, j;
    if (n == 0) return -1.0;
    for (i = 0; i < n; i++) {
        x = t[i];
        for (j = i; j > 0 && s[j - 1] > x; j--) s[j] = s[j - 1];
        s[j] = x;
    }
    return s[(n - 1) / 2];
}

static void hst__choice_push(hst__choice_rec *r, double seconds) {
    if (r->n == HST_CHOICE_HISTORY) {
        memmove(r->t, r->t + 1, (HST_CHOICE_HISTORY - 1) * sizeof r->t[0]);
        r->n--;
    }
    r->t[r->n++] = seconds;
}

/* "name | driver version", with characters the file format reserves replaced. */
static void hst__choice_device_id(const hst_backend *be, const char *override, char *buf,
                                  size_t cap) {
    size_t i;
    if (override && *override) hst__choice_copy(buf, cap, override);
    else snprintf(buf, cap, "%s | %s", hst_backend_device(be)->name, hst_backend_device(be)->driver_version);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r') buf[i] = ' ';
}

/* The backend's registry (its "choice" extension), or NULL before the first hst__choice_get. */
static hst__choice *hst__choice_of(const hst_backend *be) {
    return (hst__choice *)hst_backend_extension(be, HST__CHOICE_EXTENSION);
}

static void hst__choice_destroy(hst_backend *be, void *data);

/* The backend's registry into *out, made and attached on first use. Errors (logged):
   HST_ERROR_OUT_OF_HOST_MEMORY, hst_backend_attach's (every extension slot taken). */
static hst_result hst__choice_get(hst_backend *be, hst__choice **out) {
    hst__choice *reg = hst__choice_of(be);
    const char *cache_dir = hst_backend_cache_dir(be);
    hst_result r;
    if ((*out = reg) != NULL) return HST_SUCCESS;
    if (!(reg = (hst__choice *)hst_backend_calloc(be, sizeof *reg))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    reg->be = be;
    reg->clock = hst__choice_default_clock;
    reg->last_save = reg->clock(NULL);
    if (cache_dir[0]) {
        snprintf(reg->path, sizeof reg->path, "%s/choice-u%lu.txt", cache_dir, hst_user_id());
    }
    if ((r = hst_backend_attach(be, HST__CHOICE_EXTENSION, reg, hst__choice_destroy)) != HST_SUCCESS) {
        hst_backend_free(be, reg);
        return r;
    }
    *out = reg;
    return HST_SUCCESS;
}

/* ---- records and their attachment to operations ---- */
static hst__choice_sig *hst__choice_find_sig(const hst_choice_op *op, const hst__choice_key *k) {
    size_t i;
    for (i = 0; i < op->nsigs; i++)
        if (hst__choice_key_eq(&op->sigs[i].key, k)) return &op->sigs[i];
    return NULL;
}

static hst__choice_sig *hst__choice_add_sig(hst_choice_op *op, const hst__choice_key *k) {
    hst__choice_sig *s;
    unsigned i;
    if ((s = hst__choice_find_sig(op, k)) != NULL) return s;
    if (op->nsigs == op->capsigs) {
        size_t cap = op->capsigs ? 2 * op->capsigs : 8;
        hst__choice_sig *n = (hst__choice_sig *)hst_backend_alloc(op->reg->be, cap * sizeof *n);
        if (!n) return NULL;
        if (op->nsigs) memcpy(n, op->sigs, op->nsigs * sizeof *n);
        hst_backend_free(op->reg->be, op->sigs);
        op->sigs = n;
        op->capsigs = cap;
    }
    s = &op->sigs[op->nsigs++];
    memset(s, 0, sizeof *s);
    s->key = *k;
    s->chosen = -1;
    for (i = 0; i < HST_CHOICE_MAX_IMPLS; i++) {
        s->rec[i] = -1;
        s->med[i] = -1.0;
        s->parts[i] = 1;
    }
    return s;
}

static int hst__choice_impl_index(const hst_choice_op *op, const char *name, const char *device) {
    unsigned i;
    for (i = 0; i < op->nimpl; i++)
        if (!strcmp(op->impl[i].name, name) && (!device || !strcmp(op->impl[i].device, device)))
            return (int)i;
    return -1;
}

/* Binds record ri to its operation's signature entry, if that operation is registered. */
static void hst__choice_attach(hst__choice *reg, size_t ri) {
    hst__choice_rec *r = &reg->recs[ri];
    hst_choice_op *op;
    hst__choice_sig *s;
    int i;
    for (op = reg->ops; op; op = op->next) if (!strcmp(op->name, r->op)) break;
    if (!op || (i = hst__choice_impl_index(op, r->impl, r->device)) < 0) return;
    if (!(s = hst__choice_add_sig(op, &r->key)) || s->rec[i] >= 0) return;
    s->rec[i] = (long)ri;
    s->med[i] = hst__choice_median(r->t, r->n);
}

static void hst__choice_free_rec(const hst_backend *be, hst__choice_rec *r) {
    hst_backend_free(be, r->op); hst_backend_free(be, r->impl); hst_backend_free(be, r->device);
}

/* Appends a copy of r (strings duplicated); the index, or -1 when out of memory. */
static long hst__choice_add_rec(hst__choice *reg, const hst__choice_rec *r) {
    hst__choice_rec *d;
    if (reg->nrecs == reg->caprecs) {
        size_t cap = reg->caprecs ? 2 * reg->caprecs : 32;
        hst__choice_rec *n = (hst__choice_rec *)hst_backend_alloc(reg->be, cap * sizeof *n);
        if (!n) return -1;
        if (reg->nrecs) memcpy(n, reg->recs, reg->nrecs * sizeof *n);
        hst_backend_free(reg->be, reg->recs);
        reg->recs = n;
        reg->caprecs = cap;
    }
    d = &reg->recs[reg->nrecs];
    *d = *r;
    d->op = hst__choice_strdup(reg->be, r->op);
    d->impl = hst__choice_strdup(reg->be, r->impl);
    d->device = hst__choice_strdup(reg->be, r->device);
    if (!d->op || !d->impl || !d->device) { hst__choice_free_rec(reg->be, d); return -1; }
    return (long)reg->nrecs++;
}

static long hst__choice_find_rec(const hst__choice *reg, const hst__choice_rec *k) {
    size_t i;
    for (i = 0; i < reg->nrecs; i++) {
        const hst__choice_rec *r = &reg->recs[i];
        if (hst__choice_key_eq(&r->key, &k->key) && !strcmp(r->op, k->op) &&
            !strcmp(r->impl, k->impl) && !strcmp(r->device, k->device))
            return (long)i;
    }
    return -1;
}

/* Records one run of implementation i at signature entry s. */
static void hst__choice_note(hst_choice_op *op, hst__choice_sig *s, unsigned i, double seconds) {
    hst__choice *reg = op->reg;
    hst__choice_rec *r;
    if (!(seconds >= 0.0)) seconds = 0.0;   /* a clock that went backwards (or NaN) */
    if (s->rec[i] < 0) {
        hst__choice_rec k;
        memset(&k, 0, sizeof k);
        k.op = op->name; k.impl = op->impl[i].name; k.device = op->impl[i].device; k.key = s->key;
        if ((s->rec[i] = hst__choice_add_rec(reg, &k)) < 0) return;
    }
    r = &reg->recs[s->rec[i]];
    hst__choice_push(r, seconds);
    if (r->fresh < HST_CHOICE_HISTORY) r->fresh++;
    s->med[i] = hst__choice_median(r->t, r->n);
}

/* ---- the file ---- */
typedef struct hst__choice_text { char *p; size_t len, cap; int failed; } hst__choice_text;

HST__PRINTF(3, 4)
static void hst__choice_append(const hst_backend *be, hst__choice_text *t, const char *fmt, ...) {
    va_list ap;
    int n;
    if (t->failed) return;
    for (;;) {
        va_start(ap, fmt);
        n = HST__VSNPRINTF(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) { t->failed = 1; return; }
        if (t->p && t->len + (size_t)n < t->cap) { t->len += (size_t)n; return; }
        {
            size_t cap = (t->cap ? 2 * t->cap : 4096) + (size_t)n;
            char *p = (char *)hst_backend_alloc(be, cap);
            if (!p) { t->failed = 1; return; }
            if (t->p) memcpy(p, t->p, t->len + 1);
            hst_backend_free(be, t->p);
            t->p = p;
            t->cap = cap;
        }
    }
}

static uint64_t hst__choice_text_hash(const char *p, size_t n) {
    return hst_hash_final(hst_hash_bytes(HST_HASH_SEED, p, n));
}

/* Parses one field up to a tab; NULL when the line ends first. */
static char *hst__choice_field(char **cursor) {
    char *s = *cursor, *tab = strchr(s, '\t');
    if (!tab) return NULL;
    *tab = '\0';
    *cursor = tab + 1;
    return s;
}

/* One record line ("op\timpl\tdevice\tb0,b1\tns ns ..."), modified in place. */
static int hst__choice_parse_line(char *line, hst__choice_rec *r) {
    char *cur = line, *buckets, *times, *end;
    memset(r, 0, sizeof *r);
    if (!(r->op = hst__choice_field(&cur)) || !(r->impl = hst__choice_field(&cur)) ||
        !(r->device = hst__choice_field(&cur)) || !(buckets = hst__choice_field(&cur)))
        return 0;
    times = cur;
    if (!*r->op || !*r->impl) return 0;
    if (strcmp(buckets, "-") != 0) {
        for (;;) {
            long v = strtol(buckets, &end, 10);
            if (end == buckets || r->key.n == HST_CHOICE_MAX_SIG || v < -1 || v > 100000) return 0;
            r->key.b[r->key.n++] = (int32_t)v;
            if (*end == '\0') break;
            if (*end != ',') return 0;
            buckets = end + 1;
        }
    }
    while (*times) {
        unsigned long long ns = strtoull(times, &end, 10);
        if (end == times || r->n == HST_CHOICE_HISTORY) return 0;
        r->t[r->n++] = (double)ns * 1e-9;
        times = end;
        if (*times == ' ') times++;
        else if (*times) return 0;
    }
    return r->n > 0;
}

/* Reads the file's records into *out (strings point into *buf). Returns 1 when the file is
   absent or valid, 0 when it is corrupt or foreign, -1 when host memory ran out (not read).
   Layout: the magic line, one line per record, then "end <records> <hash of every byte before
   this line>". */
static int hst__choice_read_file(hst__choice *reg, char **buf, hst__choice_rec **out,
                                 size_t *count) {
    static const char magic[] = HST__CHOICE_MAGIC "\n";
    FILE *f;
    long size;
    char *p, *line, *next, *stop;
    size_t got, last, cap = 0;
    unsigned long long declared = 0, hash = 0;
    *buf = NULL; *out = NULL; *count = 0;
    if (!(f = fopen(reg->path, "rb"))) return 1;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        (size_t)size > HST__CHOICE_MAX_FILE_BYTES || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    if (!(p = (char *)hst_backend_alloc(reg->be, (size_t)size + 1))) { fclose(f); return -1; }
    got = fread(p, 1, (size_t)size, f);
    fclose(f);
    p[got] = '\0';
    *buf = p;
    if (got != (size_t)size || strlen(p) != got || got < sizeof magic || p[got - 1] != '\n' ||
        memcmp(p, magic, sizeof magic - 1) != 0)
        return 0;                  /* short read, NUL bytes, unterminated, someone else's */
    for (last = got - 1; last > 0 && p[last - 1] != '\n'; last--) {}
    if (last < sizeof magic - 1) return 0;
    p[got - 1] = '\0';
    if (sscanf(p + last, "end %llu %llx", &declared, &hash) != 2 ||
        hst__choice_text_hash(p, last) != hash)
        return 0;
    stop = p + last;
    for (line = p + sizeof magic - 1; line < stop; line = next) {
        next = strchr(line, '\n');   /* every line before the end line ends with one */
        *next++ = '\0';
        if (*count == cap) {
            size_t c = cap ? 2 * cap : 64;
            hst__choice_rec *r = (hst__choice_rec *)hst_backend_alloc(reg->be, c * sizeof *r);
            if (!r) return -1;
            if (*count) memcpy(r, *out, *count * sizeof *r);
            hst_backend_free(reg->be, *out);
            *out = r;
            cap = c;
        }
        if (!hst__choice_parse_line(line, &(*out)[*count])) return 0;
        (*count)++;
    }
    return *count == declared;
}

static void hst__choice_recompute(hst__choice *reg) {
    hst_choice_op *op;
    size_t s;
    unsigned i;
    for (op = reg->ops; op; op = op->next)
        for (s = 0; s < op->nsigs; s++)
            for (i = 0; i < op->nimpl; i++) {
                long ri = op->sigs[s].rec[i];
                op->sigs[s].med[i] = ri < 0 ? -1.0
                    : hst__choice_median(reg->recs[ri].t, reg->recs[ri].n);
            }
}

/* Merges the file's records into memory: file history, then what this process recorded since
   it last synchronised. A record the file no longer holds (hst_choice_clear, here or in another
   process) keeps only what this process recorded since. ok = 0: the file was unusable (warned
   about once); ok < 0: it was not read (out of host memory): nothing to merge. */
static void hst__choice_merge(hst__choice *reg, int ok, hst__choice_rec *disk, size_t n) {
    size_t i;
    unsigned j;
    if (ok < 0) return;
    if (!ok) {
        if (!reg->warned_file)
            hst_backend_log(reg->be, HST_LOG_WARN, HST_LOGITEM_CHOICE_FILE_IGNORED,
                     "timings file %s is corrupt or not halostream's; ignored (it is replaced "
                     "at the next save)", reg->path);
        reg->warned_file = 1;
        return;
    }
    for (i = 0; i < reg->nrecs; i++) reg->recs[i].synced = 0;
    for (i = 0; i < n; i++) {
        long m = hst__choice_find_rec(reg, &disk[i]);
        if (m < 0) {
            disk[i].fresh = 0;
            disk[i].synced = 1;
            if ((m = hst__choice_add_rec(reg, &disk[i])) >= 0) hst__choice_attach(reg, (size_t)m);
        } else {
            hst__choice_rec *r = &reg->recs[m];
            double mine[HST_CHOICE_HISTORY];
            unsigned f = r->fresh < r->n ? r->fresh : r->n;
            memcpy(mine, r->t + (r->n - f), f * sizeof mine[0]);
            memcpy(r->t, disk[i].t, disk[i].n * sizeof r->t[0]);
            r->n = disk[i].n;
            for (j = 0; j < f; j++) hst__choice_push(r, mine[j]);
            r->synced = 1;
        }
    }
    for (i = 0; i < reg->nrecs; i++) {
        hst__choice_rec *r = &reg->recs[i];
        unsigned f = r->fresh < r->n ? r->fresh : r->n;
        if (r->synced) continue;
        memmove(r->t, r->t + (r->n - f), f * sizeof r->t[0]);
        r->n = f;
    }
    hst__choice_recompute(reg);
}

static void hst__choice_load(hst__choice *reg) {
    char *buf;
    hst__choice_rec *disk;
    size_t n;
    int ok;
    reg->loaded = 1;
    if (!reg->path[0]) return;
    ok = hst__choice_read_file(reg, &buf, &disk, &n);
    hst__choice_merge(reg, ok, disk, n);
    hst_backend_free(reg->be, disk);
    hst_backend_free(reg->be, buf);
}

static hst_result hst__choice_write(hst__choice *reg) {
    hst__choice_text t;
    char tmp[1300], key[64];
    size_t i, written = 0;
    unsigned j;
    FILE *f;
    int ok;
    memset(&t, 0, sizeof t);
    hst__choice_append(reg->be, &t, "%s\n", HST__CHOICE_MAGIC);
    for (i = 0; i < reg->nrecs; i++) {
        const hst__choice_rec *r = &reg->recs[i];
        if (r->n == 0) continue;
        hst__choice_key_text(&r->key, key, sizeof key);
        hst__choice_append(reg->be, &t, "%s\t%s\t%s\t%s\t", r->op, r->impl, r->device, key);
        for (j = 0; j < r->n; j++)
            hst__choice_append(reg->be, &t, "%s%llu", j ? " " : "",
                               (unsigned long long)(r->t[j] * 1e9 + 0.5));
        hst__choice_append(reg->be, &t, "\n");
        written++;
    }
    if (!t.failed)
        hst__choice_append(reg->be, &t, "end %lu %016llx\n", (unsigned long)written,
                           (unsigned long long)hst__choice_text_hash(t.p, t.len));
    if (t.failed) { hst_backend_free(reg->be, t.p); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    hst_temp_name(tmp, sizeof tmp, reg->path, &t);
    ok = (f = fopen(tmp, "wb")) != NULL;
    if (ok) {
        ok = fwrite(t.p, 1, t.len, f) == t.len;
        ok = (fclose(f) == 0) && ok;
    }
    if (!ok || !hst_rename_replace(tmp, reg->path)) {
        hst_backend_log(reg->be, HST_LOG_WARN, HST_LOGITEM_CACHE_WRITE_FAILED, "cannot write timings file "
                 "%s: %s", reg->path, strerror(errno));
        remove(tmp);
        hst_backend_free(reg->be, t.p);
        return HST_ERROR_IO;
    }
    hst_backend_free(reg->be, t.p);
    for (i = 0; i < reg->nrecs; i++) reg->recs[i].fresh = 0;
    return HST_SUCCESS;
}

/* Creates the directories above the file at path (a configured path may lie outside the
   cache directory); failures show when the file is written. */
static void hst__choice_mkdirs_above(const char *path) {
    char dir[1100];
    char *end;
    hst__choice_copy(dir, sizeof dir, path);
    end = strrchr(dir, '/');
#if defined(_WIN32)
    {   /* Windows' separator too */
        char *back = strrchr(dir, '\\');
        if (back && (!end || back > end)) end = back;
    }
#endif
    if (end && end != dir) { *end = '\0'; hst_mkdirs(dir); }
}

static int hst__choice_dirty(const hst__choice *reg) {
    const hst_choice_op *op;
    size_t i;
    for (i = 0; i < reg->nrecs; i++) if (reg->recs[i].fresh) return 1;
    for (op = reg->ops; op; op = op->next) if (op->clear_pending) return 1;
    return 0;
}

/* Removes from the file's records those of operations cleared since the last save. */
static void hst__choice_drop_cleared(const hst__choice *reg, hst__choice_rec *disk, size_t *n) {
    const hst_choice_op *op;
    size_t i, kept = 0;
    for (i = 0; i < *n; i++) {
        for (op = reg->ops; op; op = op->next)
            if (op->clear_pending && !strcmp(op->name, disk[i].op)) break;
        if (!op) disk[kept++] = disk[i];
    }
    *n = kept;
}

static hst_result hst__choice_save(hst__choice *reg) {
    char lockpath[1200], *buf;
    hst_choice_op *op;
    hst__choice_rec *disk;
    hst_file_lock lock;
    size_t n;
    int locked, ok;
    hst_result r;
    reg->last_save = reg->clock(reg->clock_user);
    if (!reg->path[0] || !hst__choice_dirty(reg)) return HST_SUCCESS;
    hst__choice_mkdirs_above(reg->path);
    snprintf(lockpath, sizeof lockpath, "%s.lock", reg->path);
    if (!(locked = hst_file_lock_acquire(&lock, lockpath)))
        hst_backend_log(reg->be, HST_LOG_WARN, HST_LOGITEM_CACHE_WRITE_FAILED, "cannot lock %s (%s); "
                 "saving without the lock", lockpath, strerror(errno));
    ok = hst__choice_read_file(reg, &buf, &disk, &n);
    if (ok > 0) hst__choice_drop_cleared(reg, disk, &n);
    hst__choice_merge(reg, ok, disk, n);
    hst_backend_free(reg->be, disk);
    hst_backend_free(reg->be, buf);
    r = hst__choice_write(reg);
    if (locked) hst_file_lock_release(&lock);
    if (r == HST_SUCCESS)
        for (op = reg->ops; op; op = op->next) op->clear_pending = 0;
    return r;
}

static void hst__choice_free_op(hst_backend *be, hst_choice_op *op) {
    unsigned j;
    for (j = 0; j < op->nimpl; j++) {
        hst_backend_free(be, op->impl[j].name);
        hst_backend_free(be, op->impl[j].device);
        hst_backend_free(be, op->impl[j].tags);
    }
    hst_backend_free(be, op->defaults);
    hst_backend_free(be, op->sigs);
    hst_backend_free(be, op->name);
    hst_backend_free(be, op);
}

/* The registry's destroy hook, called by hst_backend_destroy: saves what is new, frees
   everything. */
static void hst__choice_destroy(hst_backend *be, void *data) {
    hst__choice *reg = (hst__choice *)data;
    size_t i;
    hst__choice_save(reg);
    while (reg->ops) {
        hst_choice_op *op = reg->ops;
        reg->ops = op->next;
        hst__choice_free_op(be, op);
    }
    for (i = 0; i < reg->nrecs; i++) hst__choice_free_rec(be, &reg->recs[i]);
    hst_backend_free(be, reg->recs);
    hst_backend_free(be, reg);
}

/* ---- choosing ---- */
static double hst__choice_sig_med(const hst__choice_sig *s, unsigned i) {
    return s ? s->med[i] : -1.0;
}
static hst_result hst__choice_sig_failed(const hst__choice_sig *s, unsigned i) {
    return s ? s->failed[i] : HST_SUCCESS;
}

/* The nearest signature entry (other than `self`) where implementation i has timings and, if
   need_other, some other usable implementation among `allow` (bit j: implementation j) has
   too. */
static const hst__choice_sig *hst__choice_nearest(const hst_choice_op *op, const hst__choice_key *k,
                                                  const hst__choice_sig *self, unsigned i,
                                                  int need_other, uint32_t allow) {
    const hst__choice_sig *best = NULL;
    long bestd = -1;
    size_t s;
    unsigned j;
    for (s = 0; s < op->nsigs; s++) {
        const hst__choice_sig *e = &op->sigs[s];
        long d = hst__choice_key_dist(&e->key, k);
        int other = !need_other;
        if (e == self || d < 0 || e->med[i] < 0.0) continue;
        for (j = 0; j < op->nimpl && !other; j++)
            if (j != i && (allow >> j & 1u) && e->med[j] >= 0.0 && !hst__choice_sig_failed(self, j))
                other = 1;
        if (other && (bestd < 0 || d < bestd)) { best = e; bestd = d; }
    }
    return best;
}

/* What is known of implementation i at key k: exact timings, the nearest shipped default, the
   nearest signature's timings, or nothing (HST_CHOICE_* source). */
static double hst__choice_estimate(const hst_choice_op *op, const hst__choice_key *k,
                                   const hst__choice_sig *s, unsigned i, int *source) {
    const hst__choice_sig *nearest;
    double best = -1.0;
    long bestd = -1;
    size_t d;
    if (hst__choice_sig_med(s, i) >= 0.0) { *source = HST_CHOICE_EXACT; return s->med[i]; }
    for (d = 0; d < op->ndefaults; d++) {
        long dist = hst__choice_key_dist(&op->defaults[d].key, k);
        if (op->defaults[d].impl != i || dist < 0) continue;
        if (bestd < 0 || dist < bestd) { bestd = dist; best = op->defaults[d].seconds; }
    }
    if (bestd >= 0) { *source = HST_CHOICE_DEFAULT; return best; }
    if ((nearest = hst__choice_nearest(op, k, s, i, 0, 0)) != NULL) {
        *source = HST_CHOICE_NEAREST;
        return nearest->med[i];
    }
    *source = HST_CHOICE_NONE;
    return -1.0;
}

/* Whether measuring implementation i can be skipped: at the nearest signature where it and
   another allowed one have timings, it was over HST_CHOICE_EXPLORE_SLOWER times the best
   other. */
static int hst__choice_skip_explore(const hst_choice_op *op, const hst__choice_key *k,
                                    const hst__choice_sig *s, unsigned i, uint32_t allow) {
    const hst__choice_sig *nearest = hst__choice_nearest(op, k, s, i, 1, allow);
    double other = -1.0;
    unsigned j;
    if (!nearest) return 0;
    for (j = 0; j < op->nimpl; j++)
        if (j != i && (allow >> j & 1u) && nearest->med[j] >= 0.0 && !hst__choice_sig_failed(s, j) &&
            (other < 0.0 || nearest->med[j] < other))
            other = nearest->med[j];
    return other >= 0.0 && nearest->med[i] > HST_CHOICE_EXPLORE_SLOWER * other;
}

/* The implementation to run among `allow` (bit i: implementation i): explored = 1 when it
   runs to be measured. -1: none usable. */
static int hst__choice_select(const hst_choice_op *op, const hst__choice_key *k,
                              const hst__choice_sig *s, uint32_t allow, int *explored) {
    unsigned i;
    int best = -1, src, first = -1;
    double bt = 0.0, e;
    *explored = 0;
    for (i = 0; i < op->nimpl; i++) {
        if (!(allow >> i & 1u) || hst__choice_sig_failed(s, i)) continue;
        if (first < 0) first = (int)i;
        e = hst__choice_estimate(op, k, s, i, &src);
        if (!op->no_explore && (src == HST_CHOICE_NONE || src == HST_CHOICE_NEAREST) &&
            !hst__choice_skip_explore(op, k, s, i, allow)) {
            *explored = 1;
            return (int)i;
        }
        if (src != HST_CHOICE_NONE && (best < 0 || e < bt)) { best = (int)i; bt = e; }
    }
    return best >= 0 ? best : first;
}

/* Every revisit_every calls: the least recently run implementation among `allow` within
   HST_CHOICE_REVISIT_WITHIN of the best, or -1. */
static int hst__choice_revisit(const hst_choice_op *op, const hst__choice_sig *s, int best,
                               uint32_t allow) {
    unsigned i;
    int pick = -1;
    if (!op->revisit_every || s->calls % op->revisit_every != 0 || s->med[best] < 0.0) return -1;
    for (i = 0; i < op->nimpl; i++) {
        if ((int)i == best || !(allow >> i & 1u) || s->failed[i] || s->med[i] < 0.0 ||
            s->med[i] > HST_CHOICE_REVISIT_WITHIN * s->med[best])
            continue;
        if (pick < 0 || s->last_run[i] < s->last_run[pick]) pick = (int)i;
    }
    return pick;
}

static uint64_t hst__choice_free_bytes(const hst_backend *be) {
    uint64_t total = hst_backend_device(be)->global_mem_bytes;
    uint64_t limit = hst_backend_device_limit(be), used = hst_backend_device_bytes(be);
    if (limit && limit < total) total = limit;
    return used < total ? total - used : 0;
}

/* Parts for an out-of-memory split: enough that each part fits the free estimate (times
   HST__CHOICE_FREE_FRACTION) and the largest allocation; at least 2. */
static void hst__choice_split_info(const hst_choice_op *op, const hst__choice_impl *im,
                                   const void *args, hst_choice_split_info *info) {
    const hst_backend *dev = im->pub.backend ? im->pub.backend : op->reg->be;
    uint64_t work = op->work_bytes ? op->work_bytes(args) : 0;
    double avail, k1, k2, k;
    info->max_alloc_bytes = hst_backend_device(dev)->max_alloc_bytes;
    info->free_bytes = hst__choice_free_bytes(dev);
    info->parts = 2;
    if (!work) return;
    avail = (double)info->free_bytes * HST__CHOICE_FREE_FRACTION;
    k1 = ceil((double)work / (avail >= 1.0 ? avail : 1.0));
    k2 = ceil((double)work / (double)(info->max_alloc_bytes ? info->max_alloc_bytes : 1));
    k = k1 > k2 ? k1 : k2;
    if (k > (double)HST__CHOICE_MAX_PARTS) k = (double)HST__CHOICE_MAX_PARTS;
    if (k > 2.0) info->parts = (size_t)k;
}

/* Runs implementation i once (split if an earlier out-of-memory said so, or once more split if
   this run runs out of memory), records the time, fills *seconds and *parts. */
static hst_result hst__choice_exec(hst_choice_op *op, hst__choice_sig *s, unsigned i, void *args,
                                   int record, double *seconds, size_t *parts) {
    hst__choice *reg = op->reg;
    hst__choice_impl *im = &op->impl[i];
    hst_choice_split_info info;
    hst__choice_key k = s->key;   /* an implementation that uses the choice itself may grow
                                     op->sigs and move s: it is found again after each run */
    double t0, t1;
    hst_result r;
    char key[64];
    *parts = s->parts[i];
    t0 = reg->clock(reg->clock_user);
    if (*parts > 1) {
        hst__choice_split_info(op, im, args, &info);
        info.parts = *parts;
        r = op->split(args, &info, im->pub.run, im->pub.user);
    } else {
        r = im->pub.run(args, im->pub.user);
    }
    s = hst__choice_find_sig(op, &k);
    if (hst_result_is_out_of_memory(r) && *parts <= 1 && op->split) {
        hst__choice_split_info(op, im, args, &info);
        hst__choice_key_text(&s->key, key, sizeof key);
        hst_backend_log(reg->be, HST_LOG_INFO, HST_LOGITEM_CHOICE_SPLIT, "%s: %s on %s ran out of memory "
                 "(%s) at signature [%s]; running it in %zu parts (largest allocation %llu "
                 "bytes, about %llu free)", op->name, im->name, im->device, hst_result_string(r),
                 key, info.parts, (unsigned long long)info.max_alloc_bytes,
                 (unsigned long long)info.free_bytes);
        t0 = reg->clock(reg->clock_user);     /* the failed whole attempt is not its time */
        r = op->split(args, &info, im->pub.run, im->pub.user);
        s = hst__choice_find_sig(op, &k);
        *parts = info.parts;
        if (r == HST_SUCCESS) s->parts[i] = info.parts;
    }
    t1 = reg->clock(reg->clock_user);
    *seconds = t1 - t0;
    s->last_run[i] = s->calls;
    if (r != HST_SUCCESS) return r;
    if (record && (im->warm || op->no_warmup)) hst__choice_note(op, s, i, *seconds);
    im->warm = 1;
    return HST_SUCCESS;
}

static void hst__choice_fail(hst_choice_op *op, hst__choice_sig *s, unsigned i, hst_result r) {
    char key[64];
    s->failed[i] = r;
    hst__choice_key_text(&s->key, key, sizeof key);
    hst_backend_log(op->reg->be, HST_LOG_WARN, HST_LOGITEM_CHOICE_FAILED, "%s: %s on %s failed at "
             "signature [%s]: %s (%d); skipped for this signature", op->name, op->impl[i].name,
             op->impl[i].device, key, hst_result_string(r), (int)r);
}

static hst_result hst__choice_check_sig(const hst_backend *be, const char *func,
                                        const int64_t *sig, unsigned n) {
    if (n > HST_CHOICE_MAX_SIG)
        return hst__range_arg(be, func, "sig_len %u is over HST_CHOICE_MAX_SIG (%d)", n,
                            HST_CHOICE_MAX_SIG);
    if (n && !sig) return hst__null_arg(be, func, "sig is NULL with sig_len %u", n);
    return HST_SUCCESS;
}

/* op, then the pointer the function needs (ptr, named ptr_name), then the signature. */
static hst_result hst__choice_check_call(const hst_choice_op *op, const char *func,
                                         const int64_t *sig, unsigned n, const void *ptr,
                                         const char *ptr_name) {
    if (!op) return hst__null_arg(NULL, func, "op is NULL");
    if (!ptr) return hst__null_arg(op->reg->be, func, "%s is NULL", ptr_name);
    return hst__choice_check_sig(op->reg->be, func, sig, n);
}

/* A timings-only operation (no run) cannot be run: its caller does the work. */
static hst_result hst__choice_check_runnable(const hst_choice_op *op, const char *func) {
    if (op->impl[0].pub.run) return HST_SUCCESS;
    hst_backend_log(op->reg->be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: %s is a timings-only "
             "operation (its implementations have no run function)", func, op->name);
    return HST_ERROR_UNSUPPORTED;
}

/* ---- registration ---- */
static int hst__choice_name_ok(const char *s, const char *forbidden) {
    return s && *s && !strpbrk(s, forbidden);
}

static hst_result hst__choice_check_desc(hst_backend *be, const hst__choice *reg,
                                         const hst_choice_op_desc *d) {
    static const char *const f = "hst_choice_register";
    hst_choice_op *op;
    size_t i, j;
    if (!d->name) return hst__null_arg(be, f, "desc.name is NULL");
    if (!hst__choice_name_ok(d->name, "\t\r\n,:"))
        return hst__bad_arg(be, f, "desc.name is empty or holds a tab, newline, comma or colon");
    for (op = reg->ops; op; op = op->next)
        if (!strcmp(op->name, d->name))
            return hst__state_arg(be, f, "operation %s is already registered", d->name);
    if (!d->impls) return hst__null_arg(be, f, "%s: desc.impls is NULL", d->name);
    if (d->num_impls == 0) return hst__zero_arg(be, f, "%s: num_impls is 0", d->name);
    if (d->num_impls > HST_CHOICE_MAX_IMPLS)
        return hst__range_arg(be, f, "%s: num_impls %zu is not 1..%d", d->name, d->num_impls,
                              HST_CHOICE_MAX_IMPLS);
    for (i = 0; i < d->num_impls; i++) {
        if (!d->impls[i].name) return hst__null_arg(be, f, "%s: impls[%zu].name is NULL", d->name, i);
        if (!hst__choice_name_ok(d->impls[i].name, "\t\r\n,") || d->impls[i].name[0] == '@')
            return hst__bad_arg(be, f, "%s: impls[%zu].name is empty, begins with '@' (a group) "
                                "or holds a tab, newline or comma", d->name, i);
        if (d->impls[i].tags && strpbrk(d->impls[i].tags, "\t\r\n,:@"))
            return hst__bad_arg(be, f, "%s: impls[%zu].tags of %s (\"%s\") hold a tab, newline, "
                                "comma, colon or '@'", d->name, i, d->impls[i].name,
                                d->impls[i].tags);
        if (!d->impls[i].run != !d->impls[0].run)
            return hst__null_arg(be, f, "%s: impls[%zu].run is %s while impls[0].run is not (a "
                                "timings-only operation has no run at all)", d->name, i,
                                d->impls[i].run ? "set" : "NULL");
        for (j = 0; j < i; j++)
            if (!strcmp(d->impls[i].name, d->impls[j].name))
                return hst__bad_arg(be, f, "%s: two implementations are named %s", d->name,
                                    d->impls[i].name);
    }
    if (d->num_defaults && !d->defaults)
        return hst__null_arg(be, f, "%s: defaults is NULL", d->name);
    for (i = 0; i < d->num_defaults; i++) {
        for (j = 0; j < d->num_impls; j++)
            if (d->defaults[i].impl && !strcmp(d->defaults[i].impl, d->impls[j].name)) break;
        if (j == d->num_impls || d->defaults[i].sig_len > HST_CHOICE_MAX_SIG ||
            !(d->defaults[i].seconds >= 0.0))
            return hst__range_arg(be, f, "%s: defaults[%zu] names no implementation, or its "
                                "sig_len or seconds is out of range", d->name, i);
    }
    if (d->testing && !d->output)
        return hst__null_arg(be, f, "%s: desc.output is NULL while desc.testing is set (testing "
                             "compares outputs)", d->name);
    if (!(d->tolerance >= 0.0))
        return hst__range_arg(be, f, "%s: desc.tolerance is negative or NaN", d->name);
    return HST_SUCCESS;
}

/* ---- forcing ---- */
/* The next space-separated word at *p (its length into *n), *p moved past it; NULL: none. */
static const char *hst__choice_word(const char **p, size_t *n) {
    const char *w = *p;
    if (!w) return NULL;
    while (*w == ' ') w++;
    if (!*w) return NULL;
    *n = strcspn(w, " ");
    *p = w + *n;
    return w;
}

static int hst__choice_has_tag(const char *tags, const char *tag, size_t len) {
    const char *w;
    size_t n;
    while ((w = hst__choice_word(&tags, &n)) != NULL)
        if (n == len && !memcmp(w, tag, len)) return 1;
    return 0;
}

/* The distinct tags of op's implementations, space-separated ("none" when there are none). */
static void hst__choice_tag_list(const hst_choice_op *op, char *buf, size_t cap) {
    const char *p, *w;
    size_t len = 0, n;
    unsigned i;
    buf[0] = '\0';
    for (i = 0; i < op->nimpl; i++)
        for (p = op->impl[i].tags; (w = hst__choice_word(&p, &n)) != NULL;)
            if (!hst__choice_has_tag(buf, w, n) && len + n + 2 <= cap) {
                if (len) buf[len++] = ' ';
                memcpy(buf + len, w, n);
                buf[len += n] = '\0';
            }
    if (!len) hst__choice_copy(buf, cap, "none");
}

/* Resolves a force: an implementation's name, or "@tag" (those tagged so). 0, or -1 when it
   names nothing. */
static int hst__choice_resolve(const hst_choice_op *op, const char *text, hst__choice_force *f) {
    unsigned i;
    int j;
    f->allow = 0;
    f->group = text[0] == '@';
    if (!f->group) {
        if ((j = hst__choice_impl_index(op, text, NULL)) < 0) return -1;
        f->allow = (uint32_t)1 << j;
        return 0;
    }
    for (i = 0; i < op->nimpl; i++)
        if (hst__choice_has_tag(op->impl[i].tags, text + 1, strlen(text + 1)))
            f->allow |= (uint32_t)1 << i;
    return f->allow ? 0 : -1;
}

/* Why a force names nothing, for its log line: "no implementation named X" or "no
   implementation tagged X (its tags: ...)"; cap >= 400 holds it whole. */
static void hst__choice_force_unknown(const hst_choice_op *op, const char *text, char *buf,
                                      size_t cap) {
    char tags[256];
    if (text[0] != '@') { snprintf(buf, cap, "no implementation named %.300s", text); return; }
    hst__choice_tag_list(op, tags, sizeof tags);
    snprintf(buf, cap, "no implementation tagged %.100s (its tags: %.255s)", text + 1, tags);
}

/* The lowest implementation a force allows. */
static int hst__choice_first(uint32_t allow) {
    int i = 0;
    while (!(allow >> i & 1u)) i++;
    return i;
}

static uint32_t hst__choice_all(const hst_choice_op *op) {
    return (uint32_t)(((uint64_t)1 << op->nimpl) - 1);
}

/* $HST_FORCE = "op:impl,op2:@tag": this op's entry into *f (allow 0: none) and its text. One
   that names nothing is warned about and ignored. */
static void hst__choice_env_force(const hst_choice_op *op, hst__choice_force *f, char *text,
                                  size_t cap) {
    const char *env = getenv("HST_FORCE"), *p, *end, *colon;
    size_t nl = strlen(op->name);
    char why[400];
    f->allow = 0;
    if (!env) return;
    for (p = env; *p; p = *end ? end + 1 : end) {
        end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        colon = (const char *)memchr(p, ':', (size_t)(end - p));
        if (!colon || (size_t)(colon - p) != nl || memcmp(p, op->name, nl) != 0) continue;
        snprintf(text, cap, "%.*s", (int)(end - colon - 1), colon + 1);
        if (hst__choice_resolve(op, text, f) == 0) return;
        hst__choice_force_unknown(op, text, why, sizeof why);
        hst_backend_log(op->reg->be, HST_LOG_WARN, HST_LOGITEM_BAD_ARGUMENT, "HST_FORCE: operation "
                 "%s has %s; ignored", op->name, why);
    }
    f->allow = 0;
}

HST__CDEF hst_result hst_choice_configure(hst_backend *be, const hst_choice_desc *desc) {
    hst__choice *reg;
    hst_result r;
    if (!be) return hst__null_arg(NULL, "hst_choice_configure", "be is NULL");
    if (hst__choice_of(be) && hst__choice_of(be)->ops)
        return hst__state_arg(be, "hst_choice_configure", "operations are registered already; "
                            "configure first");
    if ((r = hst__choice_get(be, &reg)) != HST_SUCCESS) return r;
    if (!desc) return HST_SUCCESS;
    if (desc->save_interval_s < 0.0 || desc->save_interval_s != desc->save_interval_s)
        return hst__range_arg(be, "hst_choice_configure", "desc.save_interval_s is negative or NaN");
    if (desc->clock) { reg->clock = desc->clock; reg->clock_user = desc->clock_user; }
    if (desc->path && !strcmp(desc->path, "off")) reg->path[0] = '\0';
    else if (desc->path && *desc->path) hst__choice_copy(reg->path, sizeof reg->path, desc->path);
    reg->save_interval_s = desc->save_interval_s;
    reg->last_save = reg->clock(reg->clock_user);
    return HST_SUCCESS;
}

HST__CDEF hst_result hst_choice_register(hst_backend *be, const hst_choice_op_desc *desc,
                                         hst_choice_op **out) {
    hst__choice *reg;
    hst_choice_op *op;
    hst_result r;
    char dev[512], env[256], why[400];
    size_t i;
    unsigned j;
    if (!be) return hst__null_arg(NULL, "hst_choice_register", "be is NULL");
    if (!desc || !out) return hst__null_arg(be, "hst_choice_register", "%s is NULL", desc ? "out" : "desc");
    *out = NULL;
    if ((r = hst__choice_get(be, &reg)) != HST_SUCCESS) return r;
    if ((r = hst__choice_check_desc(be, reg, desc)) != HST_SUCCESS) return r;
    if (!(op = (hst_choice_op *)hst_backend_calloc(be, sizeof *op))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    op->reg = reg;
    op->name = hst__choice_strdup(be, desc->name);
    op->nimpl = (unsigned)desc->num_impls;
    op->split = desc->split;
    op->work_bytes = desc->work_bytes;
    op->output = desc->output;
    op->no_warmup = desc->no_warmup;
    op->no_explore = desc->no_explore;
    op->testing = desc->testing != 0;
    op->tolerance = desc->tolerance > 0.0 ? desc->tolerance : HST_CHOICE_TOLERANCE;
    op->revisit_every = desc->revisit_every < 0 ? 0 : desc->revisit_every == 0
                      ? HST_CHOICE_REVISIT_EVERY : (unsigned long)desc->revisit_every;
    r = op->name ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
    for (j = 0; j < op->nimpl && r == HST_SUCCESS; j++) {
        hst__choice_impl *im = &op->impl[j];
        im->pub = desc->impls[j];
        if (im->pub.reference && !op->impl[op->reference].pub.reference) op->reference = j;
        hst__choice_device_id(im->pub.backend ? im->pub.backend : be, im->pub.device_id, dev,
                              sizeof dev);
        im->name = hst__choice_strdup(be, im->pub.name);
        im->device = hst__choice_strdup(be, dev);
        im->tags = im->pub.tags && *im->pub.tags ? hst__choice_strdup(be, im->pub.tags) : NULL;
        if (!im->name || !im->device || (im->pub.tags && *im->pub.tags && !im->tags))
            r = HST_ERROR_OUT_OF_HOST_MEMORY;
        im->pub.name = im->name;
        im->pub.device_id = im->device;
        im->pub.tags = im->tags;
    }
    if (r == HST_SUCCESS && desc->force && hst__choice_resolve(op, desc->force, &op->force_desc)) {
        hst__choice_force_unknown(op, desc->force, why, sizeof why);
        r = hst__bad_arg(be, "hst_choice_register", "%s: desc.force: the operation has %s",
                         op->name, why);
    }
    if (r == HST_SUCCESS && desc->num_defaults) {
        op->defaults = (hst__choice_dflt *)hst_backend_alloc(be, desc->num_defaults *
                                                           sizeof *op->defaults);
        if (!op->defaults) r = HST_ERROR_OUT_OF_HOST_MEMORY;
        for (i = 0; op->defaults && i < desc->num_defaults; i++) {
            const hst_choice_default *d = &desc->defaults[i];
            op->defaults[i].impl = (unsigned)hst__choice_impl_index(op, d->impl, NULL);
            hst__choice_make_key(d->sig, d->sig_len, &op->defaults[i].key);
            op->defaults[i].seconds = d->seconds;
        }
        op->ndefaults = desc->num_defaults;
    }
    if (r != HST_SUCCESS) {
        hst__choice_free_op(be, op);
        return r;
    }
    op->next = reg->ops;
    reg->ops = op;
    hst__choice_env_force(op, &op->force_env, env, sizeof env);
    if (op->force_env.allow || op->force_desc.allow) {
        const char *text = op->force_env.allow ? env : desc->force;
        hst_backend_log(be, HST_LOG_INFO, HST_LOGITEM_CHOICE_FORCED, "%s: %s %s (forced by %s)",
                 op->name, text[0] == '@' ? "chooses only among the implementations tagged"
                 : "always runs", text + (text[0] == '@'),
                 op->force_env.allow ? "HST_FORCE" : "the desc");
    }
    if (!reg->loaded) hst__choice_load(reg);
    for (i = 0; i < reg->nrecs; i++)
        if (!strcmp(reg->recs[i].op, op->name)) hst__choice_attach(reg, i);
    *out = op;
    return HST_SUCCESS;
}

HST__CDEF hst_choice_op *hst_choice_find(hst_backend *be, const char *name) {
    hst_choice_op *op;
    if (!be || !hst__choice_of(be) || !name) return NULL;
    for (op = hst__choice_of(be)->ops; op; op = op->next) if (!strcmp(op->name, name)) return op;
    return NULL;
}

/* The force in effect into *f (allow 0: none): the call's, then $HST_FORCE's, then the
   desc's. -1: the call's names nothing. */
static int hst__choice_forced(const hst_choice_op *op, const char *force, hst__choice_force *f) {
    if (force) return hst__choice_resolve(op, force, f);
    *f = op->force_env.allow ? op->force_env : op->force_desc;
    return 0;
}

/* ---- testing mode ---- */
/* The reference's output for one call: state 0 not yet asked, 1 in v (n elements), -1 none
   (the reference fails at this signature: nothing is checked), -2 its output failed (the call
   fails with that error). */
typedef struct hst__choice_ref {
    double *v;
    size_t n;
    int state;
} hst__choice_ref;

/* The op's output on args as doubles into *v (allocated; NULL when empty) and *n. */
static hst_result hst__choice_output(hst_choice_op *op, void *args, double **v, size_t *n) {
    size_t cap, bytes;
    hst_result r;
    *v = NULL;
    *n = 0;
    if ((r = op->output(args, NULL, 0, &cap)) != HST_SUCCESS || cap == 0) return r;
    if (!hst_size_mul(cap, sizeof **v, &bytes) ||
        !(*v = (double *)hst_backend_alloc(op->reg->be, bytes)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    if ((r = op->output(args, *v, cap, n)) != HST_SUCCESS || *n > cap) {
        hst_backend_free(op->reg->be, *v);
        *v = NULL;
        *n = 0;
        return r != HST_SUCCESS ? r : HST_ERROR_INVALID_ARGUMENT;
    }
    return HST_SUCCESS;
}

/* max |x - ref| / max |ref| (absolute where ref is all zero; infinite for another count, or a
   NaN on one side only) and Pearson's r (1 for identical constant outputs; NaN for another
   count). */
static void hst__choice_compare(const double *ref, size_t nref, const double *x, size_t n,
                                double *err, double *corr) {
    double mr = 0.0, mx = 0.0, scale = 0.0, diff = 0.0, sxy = 0.0, sxx = 0.0, syy = 0.0;
    size_t i;
    if (n != nref) { *err = INFINITY; *corr = NAN; return; }
    for (i = 0; i < n; i++) {
        mr += ref[i]; mx += x[i];
        if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
        if ((x[i] != x[i]) != (ref[i] != ref[i])) diff = INFINITY;   /* NaN on one side */
        else if (fabs(x[i] - ref[i]) > diff) diff = fabs(x[i] - ref[i]);
    }
    if (n) { mr /= (double)n; mx /= (double)n; }
    for (i = 0; i < n; i++) {
        sxy += (ref[i] - mr) * (x[i] - mx);
        sxx += (ref[i] - mr) * (ref[i] - mr);
        syy += (x[i] - mx) * (x[i] - mx);
    }
    *err = scale > 0.0 ? diff / scale : diff;
    *corr = sxx > 0.0 && syy > 0.0 ? sxy / sqrt(sxx * syy) : diff == 0.0 ? 1.0 : NAN;
}

/* Testing: implementation i's output disagreed with the reference's by err (over the
   tolerance): excluded at s as a failure is (HST_ERROR_MISMATCH), logged once (a forced run
   of an excluded one is not logged again). */
static hst_result hst__choice_exclude(hst_choice_op *op, hst__choice_sig *s, unsigned i,
                                      double err) {
    char key[64];
    if (s->failed[i] == HST_ERROR_MISMATCH) return HST_ERROR_MISMATCH;
    s->failed[i] = HST_ERROR_MISMATCH;
    hst__choice_key_text(&s->key, key, sizeof key);
    hst_backend_log(op->reg->be, HST_LOG_WARN, HST_LOGITEM_CHOICE_EXCLUDED, "%s: %s on %s "
             "disagrees with the reference %s at signature [%s]: max |x - ref| / max |ref| = "
             "%.3g%s, over the tolerance %.3g; excluded for this signature", op->name,
             op->impl[i].name, op->impl[i].device, op->impl[op->reference].name, key, err,
             err == INFINITY ? " (another element count, or a NaN on one side only)" : "",
             op->tolerance);
    return HST_ERROR_MISMATCH;
}

/* Testing: the reference's output on args into *ref, running the reference once, untimed
   (a failure there marks it as any failure does and leaves nothing to check). Errors: the
   output's (host memory; state -2). */
static hst_result hst__choice_reference(hst_choice_op *op, const hst__choice_key *k, void *args,
                                        hst__choice_ref *ref, unsigned *failures) {
    hst__choice_sig *s = hst__choice_find_sig(op, k);
    double seconds;
    size_t parts;
    hst_result r;
    ref->state = -1;
    if (s->failed[op->reference]) return HST_SUCCESS;
    r = hst__choice_exec(op, s, op->reference, args, 0, &seconds, &parts);
    if (r != HST_SUCCESS) {
        hst__choice_fail(op, hst__choice_find_sig(op, k), op->reference, r);
        (*failures)++;
        return HST_SUCCESS;
    }
    r = hst__choice_output(op, args, &ref->v, &ref->n);
    ref->state = r == HST_SUCCESS ? 1 : -2;
    return r;
}

/* Testing: whether implementation i's output on args agrees with the reference's:
   HST_SUCCESS (marked verified at s), HST_ERROR_MISMATCH (excluded, logged), or the output's
   error. */
static hst_result hst__choice_verify(hst_choice_op *op, hst__choice_sig *s, unsigned i, void *args,
                                     const hst__choice_ref *ref) {
    double *x, err, corr;
    size_t n;
    hst_result r;
    if ((r = hst__choice_output(op, args, &x, &n)) != HST_SUCCESS) return r;
    hst__choice_compare(ref->v, ref->n, x, n, &err, &corr);
    hst_backend_free(op->reg->be, x);
    if (!(err <= op->tolerance)) return hst__choice_exclude(op, s, i, err);
    s->verified |= (uint32_t)1 << i;
    return HST_SUCCESS;
}

/* ---- running ---- */
/* Logs a change of the unforced choice at s to implementation i. */
static void hst__choice_changed(hst_choice_op *op, hst__choice_sig *s, const hst__choice_key *key,
                                int i) {
    static const char *const from[] = {"nothing", "", " (a shipped default)",
                                       " (the nearest signature's)"};
    char k[64];
    int src;
    double e = hst__choice_estimate(op, key, s, (unsigned)i, &src);
    hst__choice_key_text(key, k, sizeof k);
    hst_backend_log(op->reg->be, HST_LOG_INFO, HST_LOGITEM_CHOICE_CHANGED, "%s [%s]: %s on %s "
             "(%.3g ms%s) replaces %s", op->name, k, op->impl[i].name, op->impl[i].device,
             1e3 * e, from[src], s->chosen >= 0 ? op->impl[s->chosen].name : "nothing");
    s->chosen = i;
}

/* The implementation to run next at s (see hst_choice_run), -1: none usable. */
static int hst__choice_next(hst_choice_op *op, hst__choice_sig *s, const hst__choice_key *key,
                            const hst__choice_force *f, int *explored) {
    int i, revisit;
    *explored = 0;
    if (f->allow && !f->group) return hst__choice_first(f->allow);
    i = hst__choice_select(op, key, s, f->allow ? f->allow : hst__choice_all(op), explored);
    if (i < 0 || *explored) return i;
    if ((revisit = hst__choice_revisit(op, s, i, f->allow ? f->allow : hst__choice_all(op))) >= 0)
        return revisit;
    if (!f->allow && s->chosen != i) hst__choice_changed(op, s, key, i);
    return i;
}

/* Runs implementation i for a call (testing: checked against the reference, run first when
   the call has not yet), recording its time as hst__choice_exec does; fills oc's time and
   parts. */
static hst_result hst__choice_attempt(hst_choice_op *op, const hst__choice_key *key, unsigned i,
                                      void *args, hst__choice_ref *ref, hst_choice_outcome *oc) {
    hst__choice_sig *s = hst__choice_find_sig(op, key);
    int check = op->testing && i != op->reference && !(s->verified >> i & 1u), record;
    hst_result r;
    if (check && ref->state == 0 &&
        (r = hst__choice_reference(op, key, args, ref, &oc->failures)) != HST_SUCCESS)
        return r;
    check = check && ref->state > 0;
    record = op->impl[i].warm || op->no_warmup;   /* as hst__choice_exec decides */
    s = hst__choice_find_sig(op, key);
    r = hst__choice_exec(op, s, i, args, !check, &oc->seconds, &oc->parts);
    s = hst__choice_find_sig(op, key);   /* the run may have moved it */
    if (r == HST_SUCCESS && check) {
        r = hst__choice_verify(op, s, i, args, ref);
        if (r == HST_SUCCESS && record) hst__choice_note(op, s, i, oc->seconds);  /* it agreed */
    }
    if (r != HST_SUCCESS && r != HST_ERROR_MISMATCH) hst__choice_fail(op, s, i, r);
    return r;
}

HST__CDEF hst_result hst_choice_run(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                    void *args, const char *force, hst_choice_outcome *outcome) {
    hst__choice *reg;
    hst__choice_key key;
    hst__choice_sig *s;
    hst__choice_force f;
    hst__choice_ref ref = {NULL, 0, 0};
    hst_result r, last = HST_SUCCESS;
    hst_choice_outcome oc;
    unsigned attempt;
    int i, explored = 0, ok = 0;
    char why[400];
    if (!op) return hst__null_arg(NULL, "hst_choice_run", "op is NULL");
    if ((r = hst__choice_check_runnable(op, "hst_choice_run")) != HST_SUCCESS) return r;
    reg = op->reg;
    if ((r = hst__choice_check_sig(reg->be, "hst_choice_run", sig, sig_len)) != HST_SUCCESS)
        return r;
    if (hst__choice_forced(op, force, &f) != 0) {
        hst__choice_force_unknown(op, force, why, sizeof why);
        return hst__bad_arg(reg->be, "hst_choice_run", "force: %s has %s", op->name, why);
    }
    hst__choice_make_key(sig, sig_len, &key);
    if (!(s = hst__choice_add_sig(op, &key))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    memset(&oc, 0, sizeof oc);
    s->calls++;
    for (attempt = 0; attempt < op->nimpl; attempt++) {
        s = hst__choice_find_sig(op, &key);
        if ((i = hst__choice_next(op, s, &key, &f, &explored)) < 0) break;
        r = hst__choice_attempt(op, &key, (unsigned)i, args, &ref, &oc);
        if (r == HST_SUCCESS) {
            oc.impl = (unsigned)i;
            oc.name = op->impl[i].name;
            oc.explored = explored;
            oc.forced = f.allow != 0;
            ok = 1;
            break;
        }
        last = r;
        if (ref.state == -2) break;       /* nothing to check against: no output for the caller */
        oc.failures++;
        if (f.allow && !f.group) break;   /* forced means forced: no other implementation */
    }
    hst_backend_free(reg->be, ref.v);
    s = hst__choice_find_sig(op, &key);
    if (!ok) {
        if (last == HST_SUCCESS) {          /* every one failed at this signature before */
            for (i = 0; i < (int)op->nimpl && !last; i++)
                if (!f.allow || (f.allow >> i & 1u)) last = s->failed[i];
            hst_backend_log(reg->be, HST_LOG_ERROR, HST_LOGITEM_CHOICE_FAILED, "%s: every "
                     "implementation%s has failed at this signature; the first failure was %s",
                     op->name, f.allow ? " the force allows" : "", hst_result_string(last));
        }
    } else if (reg->save_interval_s > 0.0 &&
               reg->clock(reg->clock_user) - reg->last_save >= reg->save_interval_s) {
        hst__choice_save(reg);
    }
    if (outcome) *outcome = oc;
    return ok ? HST_SUCCESS : last;
}

HST__CDEF hst_result hst_choice_pick(const hst_choice_op *op, const int64_t *sig,
                                     unsigned sig_len, unsigned *impl) {
    hst__choice_key key;
    hst__choice_force f;
    int i, explored;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_pick", sig, sig_len, impl, "impl");
    if (r != HST_SUCCESS) return r;
    hst__choice_make_key(sig, sig_len, &key);
    (void)hst__choice_forced(op, NULL, &f);
    if (f.allow && !f.group) i = hst__choice_first(f.allow);
    else i = hst__choice_select(op, &key, hst__choice_find_sig(op, &key),
                                f.allow ? f.allow : hst__choice_all(op), &explored);
    if (i < 0) return HST_ERROR_UNSUPPORTED;   /* every implementation failed here */
    *impl = (unsigned)i;
    return HST_SUCCESS;
}

/* The entry of sig's buckets (made if new) and impl's index in op, for func's record of a
   result measured elsewhere. */
static hst_result hst__choice_record_at(hst_choice_op *op, const char *func, const int64_t *sig,
                                        unsigned sig_len, const char *impl, hst__choice_sig **s,
                                        unsigned *i) {
    hst__choice_key key;
    int at;
    hst_result r = hst__choice_check_call(op, func, sig, sig_len, impl, "impl");
    if (r != HST_SUCCESS) return r;
    if ((at = hst__choice_impl_index(op, impl, NULL)) < 0)
        return hst__bad_arg(op->reg->be, func, "%s has no implementation named %s", op->name, impl);
    hst__choice_make_key(sig, sig_len, &key);
    if (!(*s = hst__choice_add_sig(op, &key))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    *i = (unsigned)at;
    return HST_SUCCESS;
}

HST__CDEF hst_result hst_choice_record(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                       const char *impl, double seconds) {
    hst__choice_sig *s;
    unsigned i;
    hst_result r;
    if (op && !(seconds >= 0.0))
        return hst__range_arg(op->reg->be, "hst_choice_record", "seconds is negative or NaN");
    if ((r = hst__choice_record_at(op, "hst_choice_record", sig, sig_len, impl, &s, &i)) != HST_SUCCESS)
        return r;
    hst__choice_note(op, s, i, seconds);
    return HST_SUCCESS;
}

HST__CDEF hst_result hst_choice_record_failure(hst_choice_op *op, const int64_t *sig,
                                               unsigned sig_len, const char *impl, hst_result why) {
    static const char *F = "hst_choice_record_failure";
    hst__choice_sig *s;
    unsigned i;
    hst_result r;
    if (op && why == HST_SUCCESS) return hst__bad_arg(op->reg->be, F, "why is HST_SUCCESS: no failure");
    if ((r = hst__choice_record_at(op, F, sig, sig_len, impl, &s, &i)) != HST_SUCCESS) return r;
    s->failed[i] = why;
    return HST_SUCCESS;
}

HST__CDEF hst_result hst_choice_stats(const hst_choice_op *op, const int64_t *sig,
                                      unsigned sig_len, hst_choice_stat *out, size_t capacity,
                                      size_t *count) {
    hst__choice_key key;
    const hst__choice_sig *s;
    unsigned i;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_stats", sig, sig_len, count, "count");
    if (r != HST_SUCCESS) return r;
    *count = op->nimpl;
    if (!out) return HST_SUCCESS;
    hst__choice_make_key(sig, sig_len, &key);
    s = hst__choice_find_sig(op, &key);
    for (i = 0; i < op->nimpl && i < capacity; i++) {
        hst_choice_stat *st = &out[i];
        double e;
        memset(st, 0, sizeof *st);
        st->impl = op->impl[i].name;
        st->device = op->impl[i].device;
        st->samples = s && s->rec[i] >= 0 ? op->reg->recs[s->rec[i]].n : 0;
        e = hst__choice_estimate(op, &key, s, i, &st->source);
        st->seconds = st->source == HST_CHOICE_NONE ? NAN : e;
        st->failed = hst__choice_sig_failed(s, i);
        st->parts = s ? s->parts[i] : 1;
        st->tags = op->impl[i].tags;
    }
    return HST_SUCCESS;
}

/* ---- benchmark ---- */
HST__CDEF hst_result hst_choice_benchmark(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                          void *args, unsigned reps, hst_choice_bench_row *rows,
                                          size_t capacity, size_t *count) {
    hst__choice_key key;
    hst__choice_ref ref = {NULL, 0, 0};
    double best = -1.0, secs[64];
    size_t parts;
    unsigned order, k, pick;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_benchmark", sig, sig_len, count, "count");
    if (r == HST_SUCCESS) r = hst__choice_check_runnable(op, "hst_choice_benchmark");
    if (r != HST_SUCCESS) return r;
    *count = op->nimpl;
    if (!rows) return HST_SUCCESS;
    if (capacity < op->nimpl)
        return hst__range_arg(op->reg->be, "hst_choice_benchmark", "capacity %zu is below the %u "
                            "implementations", capacity, op->nimpl);
    if (reps == 0) reps = 3;
    if (reps > sizeof secs / sizeof secs[0]) reps = sizeof secs / sizeof secs[0];
    hst__choice_make_key(sig, sig_len, &key);
    if (!hst__choice_add_sig(op, &key)) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (order = 0; order < op->nimpl; order++) {
        /* the reference first, then the others in registration order */
        unsigned i = order == 0 ? op->reference : order <= op->reference ? order - 1 : order;
        hst_choice_bench_row *row = &rows[i];
        hst__choice_sig *s = hst__choice_find_sig(op, &key);
        memset(row, 0, sizeof *row);
        row->impl = op->impl[i].name;
        row->device = op->impl[i].device;
        row->tags = op->impl[i].tags;
        row->reference = i == op->reference;
        row->max_rel_error = row->correlation = NAN;
        s->calls++;
        r = hst__choice_exec(op, s, i, args, 0, &secs[0], &parts);
        s = hst__choice_find_sig(op, &key);   /* the run may have moved it */
        if (r != HST_SUCCESS) {
            row->result = r;
            hst__choice_fail(op, s, i, r);
            continue;
        }
        if (op->output && i == op->reference) {
            if (hst__choice_output(op, args, &ref.v, &ref.n) == HST_SUCCESS) {
                ref.state = 1;
                row->max_rel_error = 0.0;
                row->correlation = 1.0;
            }
        } else if (ref.state > 0) {
            double *out;
            size_t n;
            if (hst__choice_output(op, args, &out, &n) == HST_SUCCESS) {
                hst__choice_compare(ref.v, ref.n, out, n, &row->max_rel_error, &row->correlation);
                hst_backend_free(op->reg->be, out);
            } else {
                row->max_rel_error = INFINITY;      /* no output to compare */
            }
            if (op->testing && !(row->max_rel_error <= op->tolerance)) {
                row->result = hst__choice_exclude(op, s, i, row->max_rel_error);
                continue;
            }
            if (op->testing) s->verified |= (uint32_t)1 << i;
        }
        for (k = 0; k < reps; k++) {
            op->impl[i].warm = 1;       /* the untimed run above was its warm-up */
            r = hst__choice_exec(op, s, i, args, 1, &secs[k], &parts);
            s = hst__choice_find_sig(op, &key);
            if (r != HST_SUCCESS) break;
            row->runs++;
        }
        if (r != HST_SUCCESS) { row->result = r; hst__choice_fail(op, s, i, r); continue; }
        row->median_s = hst__choice_median(secs, row->runs);
        row->best_s = secs[0];
        for (k = 1; k < row->runs; k++) if (secs[k] < row->best_s) row->best_s = secs[k];
        if (best < 0.0 || row->median_s < best) best = row->median_s;
    }
    hst_backend_free(op->reg->be, ref.v);
    if (hst_choice_pick(op, sig, sig_len, &pick) != HST_SUCCESS) pick = op->nimpl;
    for (k = 0; k < op->nimpl; k++) {
        rows[k].chosen = k == pick;
        rows[k].vs_best = rows[k].result == HST_SUCCESS && best > 0.0 ? rows[k].median_s / best
                                                                        : NAN;
    }
    return HST_SUCCESS;
}

HST__CDEF size_t hst_choice_table(const hst_choice_bench_row *rows, size_t count, char *buf,
                                  size_t capacity) {
    size_t i, len = 0;
    int n;
    char line[512];
    if (buf && capacity) buf[0] = '\0';
    for (i = 0; i <= count; i++) {
        if (i == 0)
            n = snprintf(line, sizeof line, "%-18s %-30s %-20s %11s %11s %7s %11s %9s  %s\n",
                         "implementation", "device", "tags", "median ms", "best ms", "x best",
                         "max rel err", "corr r", "result");
        else if (!rows) break;
        else {
            const hst_choice_bench_row *w = &rows[i - 1];
            n = snprintf(line, sizeof line, "%-18.18s %-30.30s %-20.20s %11.4f %11.4f %7.2f %11.3g "
                         "%9.6f  %s%s%s\n", w->impl ? w->impl : "?", w->device ? w->device : "?",
                         w->tags ? w->tags : "-", 1e3 * w->median_s, 1e3 * w->best_s,
                         w->vs_best, w->max_rel_error, w->correlation,
                         w->result ? hst_result_string(w->result) : "ok",
                         w->reference ? ", reference" : "", w->chosen ? ", CHOSEN" : "");
        }
        if (n < 0) continue;
        if (buf && len + (size_t)n < capacity) memcpy(buf + len, line, (size_t)n + 1);
        else if (buf && len < capacity) buf[len] = '\0';
        len += (size_t)n;
    }
    return len + 1;
}

HST__CDEF hst_result hst_choice_clear(hst_choice_op *op) {
    hst__choice *reg;
    size_t i;
    unsigned j;
    if (!op) return hst__null_arg(NULL, "hst_choice_clear", "op is NULL");
    reg = op->reg;
    for (i = 0; i < reg->nrecs; i++)
        if (!strcmp(reg->recs[i].op, op->name)) reg->recs[i].n = reg->recs[i].fresh = 0;
    for (i = 0; i < op->nsigs; i++) {
        hst__choice_sig *s = &op->sigs[i];
        for (j = 0; j < HST_CHOICE_MAX_IMPLS; j++) {
            s->med[j] = -1.0;
            s->failed[j] = HST_SUCCESS;
            s->parts[j] = 1;
        }
        s->verified = 0;
        s->chosen = -1;
    }
    op->clear_pending = reg->path[0] != '\0';
    return hst__choice_save(reg);
}

HST__CDEF hst_result hst_choice_save(hst_backend *be) {
    if (!be) return hst__null_arg(NULL, "hst_choice_save", "be is NULL");
    return hst__choice_of(be) ? hst__choice_save(hst__choice_of(be)) : HST_SUCCESS;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_CHOICE_IMPLEMENTATION */

/* MIT License

   Copyright (c) 2026 the halostream authors

   Permission is hereby granted, free of charge, to any person obtaining a copy of this software
   and associated documentation files (the "Software"), to deal in the Software without
   restriction, including without limitation the rights to use, copy, modify, merge, publish,
   distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
   Software is furnished to do so, subject to the following conditions:

   The above copyright notice and this permission notice shall be included in all copies or
   substantial portions of the Software.

   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
   BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
   NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
   DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
   OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE. */
