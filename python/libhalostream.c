/* libhalostream.c — the shared library inside the Python package (python/halostream): every
   halostream header's implementation, built by python/setup.py twice (with OpenCL, and with
   -DHST_NO_OPENCL for machines without an ICD loader). C users keep including the headers;
   this file exists only for callers that need a shared object. HST_FFT: array.h's FFTs, which
   quality.h's FRC, decorrelation and magnified error maps need (FFTW for the host device, VkFFT
   for OpenCL devices), defined by setup.py where this machine has them (it links -lfftw3f
   -lfftw3 then). */
/* sigaction (>>Ctrl-C), which Linux's C libraries hide in strict C99 (setup.py's -std=c99);
   GNU modes and macOS expose it without this */
#if defined(__linux__) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L
#endif
#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "liquid.h"
#include "quality.h"

/* The sizes of the structs the Python package mirrors with ctypes (0 hst_device_info,
   1 hst_backend_desc, 2 hst_esrrf_desc, 3 hst_esrrf_report, 4 hst_esrrf_sweep_desc,
   5 hst_esrrf_sweep_result; 0 for any other number): the package refuses to load a library
   whose layout differs from its mirror. Thread-safe. */
HST_API size_t hst_py_struct_size(int which);

size_t hst_py_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_device_info);
    case 1: return sizeof(hst_backend_desc);
    case 2: return sizeof(hst_esrrf_desc);
    case 3: return sizeof(hst_esrrf_report);
    case 4: return sizeof(hst_esrrf_sweep_desc);
    case 5: return sizeof(hst_esrrf_sweep_result);
    default: return 0;
    }
}

/* eSRRF's defaults, what a zero in hst_esrrf_desc stands for (esrrf.h's HST_ESRRF_DEFAULT_*):
   the package's options left at None take them, and halostream.esrrf_defaults() reports them,
   so the numbers live in esrrf.h alone. Thread-safe. */
HST_API void hst_py_esrrf_defaults(unsigned *magnification, float *radius, float *sensitivity);

void hst_py_esrrf_defaults(unsigned *magnification, float *radius, float *sensitivity) {
    *magnification = HST_ESRRF_DEFAULT_MAGNIFICATION;
    *radius = HST_ESRRF_DEFAULT_RADIUS;
    *sensitivity = HST_ESRRF_DEFAULT_SENSITIVITY;
}

/* The sizes of quality.h's structs the Python package mirrors (halostream/_quality.py,
   _drift.py): 0 hst_error_map_desc, 1 hst_error_map_result, 2 hst_frc_desc, 3 hst_frc_result,
   4 hst_decorr_desc, 5 hst_decorr_result, 6 hst_frames_desc, 7 hst_frames_estimate, 8
   hst_drift_desc; 0 for any other number. Thread-safe. */
HST_API size_t hst_py_quality_struct_size(int which);

size_t hst_py_quality_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_error_map_desc);
    case 1: return sizeof(hst_error_map_result);
    case 2: return sizeof(hst_frc_desc);
    case 3: return sizeof(hst_frc_result);
    case 4: return sizeof(hst_decorr_desc);
    case 5: return sizeof(hst_decorr_result);
    case 6: return sizeof(hst_frames_desc);
    case 7: return sizeof(hst_frames_estimate);
    case 8: return sizeof(hst_drift_desc);
    default: return 0;
    }
}

/* The sizes of liquid.h's structs (and choice.h's it fills) the Python package mirrors
   (halostream/_lib.py): 0 hst_shift_magnify_desc, 1 hst_radial_gradient_convergence_desc,
   2 hst_liquid_desc, 3 hst_liquid_shift_magnify_args, 4 hst_liquid_roberts_cross_args,
   5 hst_liquid_radial_gradient_convergence_args, 6 hst_liquid_esrrf_args,
   7 hst_choice_outcome, 8 hst_choice_bench_row; 0 for any other number. Thread-safe. */
HST_API size_t hst_py_liquid_struct_size(int which);

size_t hst_py_liquid_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_shift_magnify_desc);
    case 1: return sizeof(hst_radial_gradient_convergence_desc);
    case 2: return sizeof(hst_liquid_desc);
    case 3: return sizeof(hst_liquid_shift_magnify_args);
    case 4: return sizeof(hst_liquid_roberts_cross_args);
    case 5: return sizeof(hst_liquid_radial_gradient_convergence_args);
    case 6: return sizeof(hst_liquid_esrrf_args);
    case 7: return sizeof(hst_choice_outcome);
    case 8: return sizeof(hst_choice_bench_row);
    default: return 0;
    }
}

/* liquid.h's limits, so that the package's argument checks name them without a copy of the
   numbers: shift-and-magnify's largest magnification (HST_LIQUID_MAX_MAGNIFICATION, which
   hst_shift_magnify_shape logs to stderr only) and the engine's method count
   (HST_LIQUID_NUM_METHODS, which the package checks against its list). Thread-safe. */
HST_API void hst_py_liquid_limits(float *shift_magnification, unsigned *methods);

void hst_py_liquid_limits(float *shift_magnification, unsigned *methods) {
    *shift_magnification = HST_LIQUID_MAX_MAGNIFICATION;
    *methods = HST_LIQUID_NUM_METHODS;
}

/* >>finite
   1 when the n floats at p are all finite (no NaN, no infinity: an exponent of all ones), 0
   otherwise: the package's check of the float32 arrays it is given (the NanoPyx classes'
   check_image), in shares of at least HST__PY_FINITE_SHARE floats on up to HST__PY_FINITE_THREADS
   cores (16 rather than 8: the call above about 0.6 ms faster there). numpy's isfinite(a).all()
   writes n bools on one core: 21 ms of a 34 ms RadialGradientConvergence call with two 2 x
   2560 x 2560 gradients on an H200's host (Xeon). Thread-safe. */
HST_API int hst_py_all_finite(const float *p, size_t n);

#define HST__PY_FINITE_SHARE ((size_t)1 << 20)
#define HST__PY_FINITE_THREADS 16u
typedef struct hst__py_finite { const float *p; size_t n; int ok[HST_PARALLEL_MAX_THREADS]; } hst__py_finite;

static void hst__py_finite_share(void *ctx, unsigned k, unsigned n) {
    hst__py_finite *c = (hst__py_finite *)ctx;
    size_t a = c->n / n * k, b = k + 1 == n ? c->n : c->n / n * (k + 1), i, j;
    uint32_t bad = 0, u;
    for (i = a; i + 64 <= b; i += 64)   /* blocks of a fixed count, no branch: vectorised */
        for (j = 0; j < 64; j++) {
            memcpy(&u, c->p + i + j, sizeof u);
            bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
        }
    for (; i < b; i++) {
        memcpy(&u, c->p + i, sizeof u);
        bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
    }
    c->ok[k] = !bad;
}

int hst_py_all_finite(const float *p, size_t n) {
    hst__py_finite c;
    size_t t = n / HST__PY_FINITE_SHARE, cores = hst_cpu_count();
    unsigned k;
    int ok = 1;
    if (t > HST__PY_FINITE_THREADS) t = HST__PY_FINITE_THREADS;
    if (t > cores) t = cores;
    if (!t) t = 1;
    c.p = p;
    c.n = n;
    hst_parallel(hst__py_finite_share, &c, (unsigned)t);
    for (k = 0; k < (unsigned)t; k++) ok &= c.ok[k];
    return ok;
}

/* >>Ctrl-C
   Ctrl-C during a call the package makes on Python's main thread (halostream/_run.py): between
   hst_py_sigint_arm and hst_py_sigint_disarm a SIGINT runs this handler instead of Python's, which
   could only run once the C call had returned. It interrupts the call's backends at once
   (hst_backend_interrupt: async-signal-safe; the long loops stop within about a second of work)
   and records the signal, which the package then delivers to Python's handler (KeyboardInterrupt
   once the call has ended, its buffers no longer in use). So a call needs no thread of its own
   to stay interruptible: a thread start and hand-over cost 0.1-0.15 ms a call (2-core AMD EPYC),
   more than a 256 x 256 Roberts cross. SA_RESTART: the call's blocking system calls (pthread
   joins, file reads) resume after the handler instead of failing with EINTR. */
#include <signal.h>

/* The backends one call interrupts: a Backend's selectors, an engine's devices (at most
   choice.h's HST_CHOICE_MAX_IMPLS, 16) */
#define HST__PY_SIGINT_MAX 64

static hst_backend *hst__py_sigint_be[HST__PY_SIGINT_MAX];
static volatile sig_atomic_t hst__py_sigint_n, hst__py_sigint_armed, hst__py_sigint_fired;
#ifdef _WIN32
static void (*hst__py_sigint_old)(int);
#else
static struct sigaction hst__py_sigint_old;
#endif

static void hst__py_sigint(int sig) {
    sig_atomic_t k;
    (void)sig;
    hst__py_sigint_fired = 1;
    for (k = 0; k < hst__py_sigint_n; k++) hst_backend_interrupt(hst__py_sigint_be[k]);
#ifdef _WIN32
    signal(SIGINT, hst__py_sigint);   /* Windows resets a handler to SIG_DFL when it runs */
#endif
}

/* Installs the handler for the call about to run on backends[0..count) (count may be 0: a call
   that only holds Ctrl-C back, such as a backend's creation; backends past HST__PY_SIGINT_MAX
   are not interrupted). Returns 1 when armed, 0 when already armed (a call made from inside
   another's callback: the outer one keeps the handler) or when it cannot be installed. Call it
   from Python's main thread only, and hst_py_sigint_disarm after the call. */
HST_API int hst_py_sigint_arm(hst_backend *const *backends, unsigned count);
/* Puts Python's handler back; returns 1 when a SIGINT came while armed, else 0. */
HST_API int hst_py_sigint_disarm(void);
/* 1 when a SIGINT came while armed (the armed call's progress callback answers "cancel" from
   then on), 0 once disarmed. Async-signal-safe. */
HST_API int hst_py_sigint_fired(void);

int hst_py_sigint_arm(hst_backend *const *backends, unsigned count) {
    unsigned k, n = count < HST__PY_SIGINT_MAX ? count : HST__PY_SIGINT_MAX;
#ifndef _WIN32
    struct sigaction sa;
#endif
    if (hst__py_sigint_armed) return 0;
    for (k = 0; k < n; k++) hst__py_sigint_be[k] = backends[k];
    hst__py_sigint_n = (sig_atomic_t)n;
    hst__py_sigint_fired = 0;
#ifdef _WIN32
    hst__py_sigint_old = signal(SIGINT, hst__py_sigint);
    if (hst__py_sigint_old == SIG_ERR) return 0;
#else
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hst__py_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, &hst__py_sigint_old) != 0) return 0;
#endif
    hst__py_sigint_armed = 1;
    return 1;
}

int hst_py_sigint_disarm(void) {
    int fired;
    if (!hst__py_sigint_armed) return 0;
#ifdef _WIN32
    signal(SIGINT, hst__py_sigint_old);
#else
    sigaction(SIGINT, &hst__py_sigint_old, NULL);
#endif
    hst__py_sigint_armed = 0;
    hst__py_sigint_n = 0;
    fired = hst__py_sigint_fired != 0;
    hst__py_sigint_fired = 0;   /* a later call's progress callback must not see this one's */
    return fired;
}

int hst_py_sigint_fired(void) {
    return hst__py_sigint_fired != 0;
}
