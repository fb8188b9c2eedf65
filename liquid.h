/* liquid.h — NanoPyx's Liquid Engine in C: eSRRF's three methods (Catmull-Rom shift-and-magnify,
   Roberts-cross gradients, radial gradient convergence) as device calls on arrays of their own,
   and an engine object that runs each of them, and eSRRF itself, on the device measured fastest
   for the input's size (host device, PoCL, each GPU), with NanoPyx's run types, benchmark,
   testing and cleared timings. Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_IMPLEMENTATION          (or HST_LIQUID_IMPLEMENTATION for this header alone)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations.

   Usage (NanoPyx's tutorial "chaining Liquid Engine methods", on one device, the arrays never
   leaving it; then the engine choosing the device for eSRRF by measured speed):

       // given: hst_backend *be; hst_array *img; float *stack, *per_frame;   // img (rows, cols)
       hst_shift_magnify_desc sm = {0, 0, 5, 5}, sm2 = {0, 0, 10, 10};   // shifts, magnifications
       hst_radial_gradient_convergence_desc rd = {0};        // NanoPyx's defaults: 5, 1.5, 1, weighted
       const size_t *s = hst_array_shape(img);
       size_t m[2] = {s[0] * 5, s[1] * 5}, m2[2] = {s[0] * 10, s[1] * 10};
       hst_array *mag = NULL, *gc = NULL, *gr = NULL, *gci = NULL, *gri = NULL, *rgc = NULL;
       hst_result r = hst_array_create(be, HST_F32, 2, m, &mag);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, s, &gc);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, s, &gr);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, m2, &gci);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, m2, &gri);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, m, &rgc);
       if (r == HST_SUCCESS) r = hst_shift_magnify(mag, img, &sm);
       if (r == HST_SUCCESS) r = hst_roberts_cross(gc, gr, img);
       if (r == HST_SUCCESS) r = hst_shift_magnify(gci, gc, &sm2);
       if (r == HST_SUCCESS) r = hst_shift_magnify(gri, gr, &sm2);
       if (r == HST_SUCCESS) r = hst_radial_gradient_convergence(rgc, gci, gri, mag, &rd);
       hst_array_destroy(mag); hst_array_destroy(gc); hst_array_destroy(gr);
       hst_array_destroy(gci); hst_array_destroy(gri); hst_array_destroy(rgc);
       // The engine: every device present; eSRRF (one image per frame) where it runs fastest.
       hst_liquid_desc ld = {0};
       hst_liquid *lq = NULL;
       hst_liquid_esrrf_args ea = {0};
       float *outs[HST_ESRRF_NUM_MODES] = {0};
       hst_choice_outcome oc;
       if (r == HST_SUCCESS) r = hst_liquid_create(&ld, &lq);
       outs[0] = per_frame;                               // (100, 64 * 5, 64 * 5)
       ea.desc.frames_per_timepoint = 1; ea.desc.no_macro_pixel_correction = 1;
       ea.stack = stack; ea.dtype = HST_ESRRF_F32; ea.frames = 100; ea.rows = 64; ea.cols = 64;
       ea.out = outs;
       if (r == HST_SUCCESS) r = hst_liquid_esrrf(lq, &ea, NULL, &oc);    // "@gpu": a GPU
       if (r == HST_SUCCESS) printf("ran on %s in %.3f s\n", oc.name, oc.seconds);
       if (hst_liquid_destroy(lq) != HST_SUCCESS) r = HST_ERROR_INVALID_ARGUMENT;
       // cc -std=c99 app.c -lOpenCL -lm -lpthread

   Reference (every public function, by group; each is documented at its declaration):
     Device calls   hst_shift_magnify_shape        shift-and-magnify's output rows and columns
                    hst_shift_magnify              Catmull-Rom shift-and-magnify (ShiftAndMagnify)
                    hst_roberts_cross              Roberts-cross gradients (GradientRobertsCross)
                    hst_radial_gradient_convergence  RGC (RadialGradientConvergence)
     Engine         hst_liquid_create              the engine on every device present, or yours
                    hst_liquid_destroy
                    hst_liquid_num_backends, hst_liquid_backend    its devices
                    hst_liquid_impl_name, hst_liquid_impl_tags     their implementations' names
                    hst_liquid_op                  a method's choice.h operation
     Methods        hst_liquid_shift_magnify       on host memory, on the chosen (or forced) device
                    hst_liquid_roberts_cross
                    hst_liquid_radial_gradient_convergence
                    hst_liquid_esrrf               hst_esrrf_run on the chosen device
     Timings        hst_liquid_benchmark           every device on your input: NanoPyx's table
                    hst_liquid_clear               forget a method's timings (clear_benchmarks)

   Device calls. Arrays of array.h, float32, C order, frame axis first: an image is (rows,
   cols) or a stack (frames, rows, cols); every operand of a call on one backend. Each call
   launches the esrrf kernel family's kernel (kernels_esrrf.h) through backend.h's
   hst_launch_kernel: on an OpenCL device the kernel, enqueued on the backend's default queue
   (the call returns without waiting, as array.h's operations do); on the host device the
   kernel's host C twin, the frames shared among the cores' threads (with fewer frames than
   cores, each frame's rows), done when the call returns. So a chain of calls stays on the device, and the bits
   are eSRRF's pipeline's: the same kernels (kernels_esrrf.h gives every formula), bit for bit
   equal on the host device, PoCL and the GPUs measured there. Chained by hand as in NanoPyx's
   tutorial (above: magnify by M, Roberts cross, magnify both gradients by 2M, RGC at M), the
   result is bitwise hst_esrrf_run's image of each frame with frames_per_timepoint = 1,
   no_macro_pixel_correction = 1 and the AVG mode (its chained and fused paths agree bitwise).
   Speed: on the host device the twins share work as the fused path's twin does (RGC: each
   half-pixel position's unit gradient and each phase's weights computed once per block of
   pixels; shift-and-magnify: each output row's and column's cubic weights once). On an OpenCL
   device the RGC kernel computes each sample's weight and unit gradient where the fused kernel
   shares them among a work-group's pixels; and the 2M gradients travel through memory: so the
   chain is slower than hst_esrrf_run's fused path for the same images. bench/liquid_bench.c
   measures both.

   The engine (NanoPyx's LiquidEngine: its run, benchmark, run_type, clear_benchmarks, testing
   and verbose). It holds backends (by default one per device present: the host device and each
   OpenCL device of hst_devices' list, created and owned by it; or the caller's) and per method
   one choice.h operation (registered on its first backend, named by HST_LIQUID_METHODS) with one
   implementation per backend: named after the device ("host" for the host device, else the
   OpenCL device's name), tagged with NanoPyx's run-type groups: "host threaded cpu" (the host
   device), "opencl cpu" (an OpenCL CPU device such as PoCL), "opencl gpu" (a GPU), "opencl"
   (other kinds). A method's call takes HOST memory, as NanoPyx's numpy arrays: the chosen
   implementation copies the inputs to its device, runs the device calls (or hst_esrrf_run) there
   and copies the outputs back, all inside its timing, as NanoPyx times its run types. run_type
   NULL chooses by measured speed per size signature (choice.h: each device is run once to
   measure it, then the fastest runs); an implementation's name forces it; "@tag" ("@gpu",
   "@cpu", "@threaded", "@opencl") chooses among the implementations so tagged. The timings
   persist with choice.h's (the first backend's cache directory).

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_LIQUID_IMPLEMENTATION              the implementation TU: compile liquid.h's body only
     HST_NO_OPENCL, HST_STATIC, HST_API     as in backend.h
   The implementation uses backend.h's OS shim (the host device's frames): link with -lpthread
   where it runs on POSIX threads (Win32 threads on Windows).

   What it does NOT do: no shift-scale-rotate, polar transform or other interpolations (Catmull-
   Rom shift-and-magnify only); RGC without NanoPyx's pad_edges (margins of int(radius * mag)
   pixels are 0, as eSRRF's) and only on images magnified by an integer magnification whose
   gradients are magnified by exactly twice it (the eSRRF chain); Roberts cross as eSRRF's (the
   difference of pixels c - 1 and c stored at pixel c: the +0.5 pixel offset kernels_esrrf.h
   describes); no float64 or integer arrays (cast with hst_array_cast); the engine does not pick
   a device per call by anything but measured time (no memory heuristics) and does not run two
   methods at once from two threads.

   Thread safety: in backend.h's words. The device calls: per backend. The engine: one thread at
   a time, and per backend on each of its backends.

   Version 0.1.0 (HST_VERSION_STRING in backend.h). MIT licence, Copyright (c) 2026 the
   halostream authors (the full text at the end of this file). */

#ifndef HST_LIQUID_H
#define HST_LIQUID_H

#include "array.h"
#include "esrrf.h"    /* choice.h, kernels_esrrf.h: the kernels, their limits, hst_esrrf_run */

#if defined(HST_IMPLEMENTATION) && !defined(HST_LIQUID_IMPLEMENTATION)
#  define HST_LIQUID_IMPLEMENTATION
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Device calls. Errors common to all three (each logged naming the argument):
   HST_ERROR_INVALID_ARGUMENT (a NULL array or desc; a parameter out of range or NaN),
   HST_ERROR_SHAPE (ndim other than 2 or 3, shapes that disagree, operands on different
   backends: logged as HST_LOGITEM_SHAPE_MISMATCH), HST_ERROR_DTYPE (an array not float32),
   HST_ERROR_OVERFLOW (sizes past the kernels' 32-bit indices), OpenCL codes of the launch.
   Output arrays are written whole; inputs are never written (an output must not be an input). */

/* The largest magnification of hst_shift_magnify: eSRRF's gradients are magnified by twice
   esrrf.h's largest magnification (2 x HST_ESRRF_MAX_MAG). */
#define HST_LIQUID_MAX_MAGNIFICATION (2.0f * (float)HST_ESRRF_MAX_MAG)

/* NanoPyx's ShiftAndMagnify(image, shift_row, shift_col, magnification_row,
   magnification_col). Every field is required (no defaults: 0 magnifications are refused). */
typedef struct hst_shift_magnify_desc {
    float shift_row, shift_col;    /* input pixels, finite: positive moves the content down /
                                      right (output pixel rM samples the input at rM /
                                      magnification_row - shift_row) */
    float magnification_row;       /* (0, HST_LIQUID_MAX_MAGNIFICATION], any float */
    float magnification_col;
} hst_shift_magnify_desc;

/* The output's rows and columns for an input of rows x cols: floor(rows * magnification_row)
   and floor(cols * magnification_col), the products in double of the float magnifications (as
   NanoPyx's int(image.shape[1] * magnification_row)). Errors: HST_ERROR_INVALID_ARGUMENT (desc
   or an out NULL, rows or cols 0, a magnification <= 0, NaN or above
   HST_LIQUID_MAX_MAGNIFICATION, a shift NaN or infinite, an output of 0 rows or columns),
   HST_ERROR_OVERFLOW (an output side above INT32_MAX); logged through the default logger
   (stderr). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_shift_magnify_shape(uint32_t rows, uint32_t cols,
                                                         const hst_shift_magnify_desc *desc,
                                                         uint32_t *rows_out, uint32_t *cols_out);

/* Catmull-Rom (a = 0.5) shift-and-magnify of each frame of src (rows, cols) or (frames, rows,
   cols) into dst (rowsM, colsM) or (frames, rowsM, colsM) (hst_shift_magnify_shape's sizes):
   dst[f, rM, cM] = interp(src[f], rM / magnification_row - shift_row, cM / magnification_col -
   shift_col), positions in input pixels (pixel n covers [n, n + 1), its centre at n + 0.5),
   0 outside the image, the 4 x 4 taps inside it only (zero padding, no renormalisation):
   kernels_esrrf.h's "magnify" (NanoPyx's _c_interpolate, in float where NanoPyx weights in
   double: within ~1e-6 relative of it). The divisions are the family's fma sequence (correctly
   rounded for the integer magnifications eSRRF uses). With both shifts 0 and both
   magnifications the integer M, dst is bitwise eSRRF's magnified frame (and at 2M its
   gradients' channels). Errors: as the group's, and hst_shift_magnify_shape's. */
HST_API HST_NODISCARD hst_result hst_shift_magnify(hst_array *dst, const hst_array *src,
                                                   const hst_shift_magnify_desc *desc);

/* Drift correction of frames in host memory, in place: frames (count, rows, cols) float32, C
   order, frame axis first; frame f becomes hst_shift_magnify's output at magnification 1 with
   the shift -(drift[2 f], drift[2 f + 1]) (the frame moved back by its drift: quality.h's
   hst_drift_finish table, rows then columns, input pixels), computed on be a frame at a time
   under hst_backend_lock, so that a live session on be (esrrf.h's worker) runs between frames.
   Between frames an interrupted be (hst_backend_interrupt) stops it: HST_ERROR_CANCELLED, the
   frames before corrected, the rest untouched. Errors: HST_ERROR_INVALID_ARGUMENT (be, frames
   or drift NULL, count, rows or cols 0, a drift value NaN or infinite), HST_ERROR_OVERFLOW
   (count x rows x cols floats), hst_array_create's and hst_shift_magnify's. Thread-safe (per
   backend, under its lock). */
HST_API HST_NODISCARD hst_result hst_drift_correct(hst_backend *be, float *frames, size_t count, uint32_t rows,
                                                   uint32_t cols, const double *drift);

/* Roberts-cross gradients of each frame of src, (rows, cols) or (frames, rows, cols), into
   gradient_col and gradient_row of src's shape (NanoPyx's GradientRobertsCross: gradient_col,
   gradient_row): at pixel (r, c), with r0 = max(r - 1, 0), c0 = max(c - 1, 0),
   gradient_col = ((I[r0,c] - I[r,c0]) + I[r,c]) - I[r0,c0] and
   gradient_row = ((I[r,c0] - I[r0,c]) + I[r,c]) - I[r0,c0] (kernels_esrrf.h's "roberts").
   Errors: as the group's. */
HST_API HST_NODISCARD hst_result hst_roberts_cross(hst_array *gradient_col, hst_array *gradient_row,
                                                   const hst_array *src);

/* NanoPyx's RadialGradientConvergence parameters; zero-initialised = its defaults. */
typedef struct hst_radial_gradient_convergence_desc {
    unsigned magnification;        /* 1..HST_ESRRF_MAX_MAG; 0: HST_ESRRF_DEFAULT_MAGNIFICATION */
    float radius;                  /* input pixels, (0, HST_ESRRF_MAX_RADIUS]; 0: 1.5 */
    float sensitivity;             /* (0, HST_ESRRF_MAX_SENSITIVITY]; 0: 1 */
    int no_intensity_weighting;    /* 0: times image_interp (doIntensityWeighting=True) */
} hst_radial_gradient_convergence_desc;

/* Radial gradient convergence of each frame (per-frame output, as NanoPyx's): image_interp
   (rowsM, colsM) or (frames, rowsM, colsM), the frames magnified by M = desc->magnification
   (rowsM and colsM multiples of M); gradient_col_interp and gradient_row_interp (2 rowsM,
   2 colsM) per frame, the gradients magnified by 2M; dst of image_interp's shape. The formula
   (kernels_esrrf.h's "rgc"; Gustafsson et al. 2016, Laine et al. 2023, with NanoPyx's
   conventions): margins of int(radius * M) pixels are 0. Errors: as the group's
   (magnification, radius or sensitivity out of range or NaN; rowsM or colsM not a multiple of
   the magnification: HST_ERROR_SHAPE). */
HST_API HST_NODISCARD hst_result hst_radial_gradient_convergence(
    hst_array *dst, const hst_array *gradient_col_interp, const hst_array *gradient_row_interp,
    const hst_array *image_interp, const hst_radial_gradient_convergence_desc *desc);

/* ---------------------------------------------------------------------------------------------
   The engine. X(ID, op): the methods, each a choice.h operation named op on the engine's first
   backend (HST_FORCE=liquid_esrrf:host forces one by environment, choice.h's syntax). */
#define HST_LIQUID_METHODS(X) \
    X(SHIFT_MAGNIFY, "liquid_shift_magnify") \
    X(ROBERTS_CROSS, "liquid_roberts_cross") \
    X(RADIAL_GRADIENT_CONVERGENCE, "liquid_radial_gradient_convergence") \
    X(ESRRF, "liquid_esrrf")
#define HST__LIQUID_METHOD_ENUM(id, op) HST_LIQUID_##id,
typedef enum hst_liquid_method {
    HST_LIQUID_METHODS(HST__LIQUID_METHOD_ENUM)
    HST_LIQUID_NUM_METHODS         /* also: every method (hst_liquid_clear) */
} hst_liquid_method;
#undef HST__LIQUID_METHOD_ENUM

/* The testing mode's default tolerance: max |x - ref| / max |ref| against the host device.
   The kernels agree bitwise on IEEE-754 devices; eSRRF's statistics on a device without fp64
   sum in float (kernels_esrrf.h: ~1e-7 relative of the mean squared, more where VAR cancels). */
#define HST_LIQUID_TOLERANCE 1e-4

typedef struct hst_liquid hst_liquid;

/* Zero-initialised: every device present, quiet, timings kept. */
typedef struct hst_liquid_desc {
    hst_backend *const *backends;  /* the caller's (1..HST_CHOICE_MAX_IMPLS, distinct, alive
                                      until hst_liquid_destroy; not destroyed by it); NULL:
                                      one per device of hst_devices' list, created and owned */
    unsigned num_backends;
    const hst_backend_desc *backend_desc;  /* template of the backends it creates (logger,
                                      log level, cache directory; `device` is ignored); NULL:
                                      zero */
    const hst_choice_desc *choice; /* configures the first backend's registry (an injected
                                      clock, the timings file; hst_choice_configure: before any
                                      operation registers there); NULL: choice.h's defaults */
    int clear_benchmarks;          /* 1: forget every method's timings at create */
    int testing;                   /* 1: each implementation's first output per size is
                                      compared with the host device's (the reference; without
                                      a host backend the first), one that disagrees is
                                      excluded for that size (choice.h's testing mode) */
    double tolerance;              /* testing: max |x - ref| / max |ref| that agrees; 0:
                                      HST_LIQUID_TOLERANCE */
    int verbose;                   /* 1: each call logs the implementation run and its time at
                                      HST_LOG_INFO (through the first backend's logger) */
} hst_liquid_desc;

/* Creates the engine: its backends (created: one per device, in hst_devices' order, the host
   device's last; a device that fails to open is skipped with a warning), its four operations.
   Errors: HST_ERROR_INVALID_ARGUMENT (desc or out NULL, num_backends 0 or above
   HST_CHOICE_MAX_IMPLS with backends set, a backend NULL or repeated, tolerance negative or NaN;
   the first backend's registry holding this engine's operations with other backends, from
   another engine still alive; hst_choice_configure's after an operation registered there),
   HST_ERROR_NO_DEVICE (no device opened), HST_ERROR_OUT_OF_HOST_MEMORY. Thread-safe (created
   backends); per backend with the caller's. */
HST_API HST_NODISCARD hst_result hst_liquid_create(const hst_liquid_desc *desc, hst_liquid **out);
/* Frees the engine and destroys the backends it created (which saves their timings); NULL is
   ignored. Errors: hst_backend_destroy's (the first failure; the rest are still destroyed). */
HST_API HST_NODISCARD hst_result hst_liquid_destroy(hst_liquid *lq);

/* Backend k (0 .. num_backends - 1; NULL past them) and its implementation's name and tags in
   every method (the strings live as long as the engine). Thread safety: while alive. */
HST_API unsigned hst_liquid_num_backends(const hst_liquid *lq);
HST_API hst_backend *hst_liquid_backend(const hst_liquid *lq, unsigned k);
HST_API const char *hst_liquid_impl_name(const hst_liquid *lq, unsigned k);
HST_API const char *hst_liquid_impl_tags(const hst_liquid *lq, unsigned k);
/* The method's operation (choice.h: its stats, a forced desc, a benchmark of your own); NULL
   for a method out of range. Thread safety: while alive. */
HST_API hst_choice_op *hst_liquid_op(const hst_liquid *lq, hst_liquid_method method);

/* The methods' arguments, on host memory (float32, C order, frame axis first). */
typedef struct hst_liquid_shift_magnify_args {
    const float *image;            /* (frames, rows, cols) */
    uint64_t frames;
    uint32_t rows, cols;
    hst_shift_magnify_desc desc;
    float *out;                    /* (frames, rowsM, colsM): hst_shift_magnify_shape */
} hst_liquid_shift_magnify_args;
typedef struct hst_liquid_roberts_cross_args {
    const float *image;            /* (frames, rows, cols) */
    uint64_t frames;
    uint32_t rows, cols;
    float *gradient_col, *gradient_row;   /* (frames, rows, cols) each */
} hst_liquid_roberts_cross_args;
typedef struct hst_liquid_radial_gradient_convergence_args {
    const float *gradient_col_interp, *gradient_row_interp;   /* (frames, 2 rows_mag, 2 cols_mag) */
    const float *image_interp;     /* (frames, rows_mag, cols_mag) */
    uint64_t frames;
    uint32_t rows_mag, cols_mag;   /* multiples of desc.magnification */
    hst_radial_gradient_convergence_desc desc;
    float *out;                    /* (frames, rows_mag, cols_mag) */
} hst_liquid_radial_gradient_convergence_args;
typedef struct hst_liquid_esrrf_args {
    hst_esrrf_desc desc;           /* as hst_esrrf_run's; backends and num_backends are ignored
                                      (the chosen implementation's one backend runs it); a
                                      stack of per-frame images: frames_per_timepoint 1 */
    const void *stack;             /* (frames, rows, cols) samples of dtype */
    hst_esrrf_dtype dtype;
    uint64_t frames;
    uint32_t rows, cols;
    float *const *out;             /* out[m] for each requested mode, as hst_esrrf_run's */
    hst_esrrf_report *report;      /* may be NULL */
} hst_liquid_esrrf_args;

/* A method's run (NanoPyx's run(..., run_type)): the arguments checked as the device call (or
   hst_esrrf_run) checks them, then choice.h's hst_choice_run on the method's operation with
   signature {frames, rows, cols} (shift-and-magnify: {frames, rows, cols, rowsM x colsM};
   RGC: {frames, rows_mag, cols_mag, samples per axis of the radius's window}; eSRRF: {frames,
   rows x cols, magnification, the window's samples per axis}). A bad argument is refused
   before any implementation runs (so it never counts as their failure for the signature;
   eSRRF's float32 stack is scanned for NaN and Inf here: HST_ERROR_NON_FINITE). run_type: NULL
   chooses; an implementation's name (hst_liquid_impl_name) or "@tag" forces. outcome (may be
   NULL): which ran, its time.
   Errors: the device call's (or hst_esrrf_run's) argument errors, from the engine's first
   backend; hst_choice_run's (HST_ERROR_INVALID_ARGUMENT for a run_type naming nothing: the log
   lists the implementations' tags; the last failure when every implementation failed;
   HST_ERROR_MISMATCH: testing, a forced implementation disagreed with the host device).
   Thread safety: the engine's. */
HST_API HST_NODISCARD hst_result hst_liquid_shift_magnify(hst_liquid *lq, const hst_liquid_shift_magnify_args *args,
                                                          const char *run_type, hst_choice_outcome *outcome);
HST_API HST_NODISCARD hst_result hst_liquid_roberts_cross(hst_liquid *lq, const hst_liquid_roberts_cross_args *args,
                                                          const char *run_type, hst_choice_outcome *outcome);
HST_API HST_NODISCARD hst_result hst_liquid_radial_gradient_convergence(
    hst_liquid *lq, const hst_liquid_radial_gradient_convergence_args *args, const char *run_type,
    hst_choice_outcome *outcome);
HST_API HST_NODISCARD hst_result hst_liquid_esrrf(hst_liquid *lq, const hst_liquid_esrrf_args *args,
                                                  const char *run_type, hst_choice_outcome *outcome);

/* NanoPyx's benchmark(...): every implementation of method on args (the pointer to that
   method's hst_liquid_*_args), the host device's first, `reps` timed runs each (0: 3), through
   choice.h's hst_choice_benchmark (the outputs compared with the host device's, every timed run
   recorded); rows (capacity entries; NULL: only *count) get one row per implementation, which
   hst_choice_table renders as NanoPyx's table. The outputs hold the last implementation's
   result. Errors: as the method's, and hst_choice_benchmark's. Thread safety: the engine's. */
HST_API HST_NODISCARD hst_result hst_liquid_benchmark(hst_liquid *lq, hst_liquid_method method,
                                                      const void *args, unsigned reps,
                                                      hst_choice_bench_row *rows, size_t capacity,
                                                      size_t *count);
/* Forgets the method's timings (HST_LIQUID_NUM_METHODS: every method's), in memory and, at the
   next save, in the timings file: NanoPyx's clear_benchmarks (choice.h's hst_choice_clear).
   Errors: HST_ERROR_INVALID_ARGUMENT (lq NULL, method out of range). Thread safety: the
   engine's. */
HST_API HST_NODISCARD hst_result hst_liquid_clear(hst_liquid *lq, hst_liquid_method method);

#ifdef __cplusplus
}
#endif
#endif /* HST_LIQUID_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_LIQUID_IMPLEMENTATION) && !defined(HST__LIQUID_IMPLEMENTED)
#define HST__LIQUID_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__LDEF HST_API __attribute__((unused))
#else
#  define HST__LDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks (liquid.h uses the public API of the headers below it only, so its implementation may
   live in its own translation unit; rejections through backend.h's hst_backend_fail macros) */
#define HST__LQ_NAME 272           /* an implementation's name: a device name and " #16" */
/* Items a host device thread is worth starting for: a smaller call runs on fewer threads
   (measured: a 160 x 160 Roberts cross, 25600 items, took 30x longer on two threads than on
   the caller's alone, on a loaded 2-core machine) */
#define HST__LQ_MIN_ITEMS 65536u

/* An operand's frames, rows and columns: ndim 2 (one frame) or 3, float32, on be. */
static hst_result hst__lq_dims(const hst_backend *be, const char *func, const char *what,
                               const hst_array *a, unsigned ndim, uint64_t *frames,
                               uint32_t *rows, uint32_t *cols) {
    const size_t *s;
    if (!a) return hst__null_arg(be, func, "%s is NULL", what);
    if (hst_array_dtype(a) != HST_F32)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, func, "%s is not float32", what);
    if (hst_buffer_backend(hst_array_buffer(a)) != be)
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "%s is on another backend than the call's first array", what);
    if (hst_array_ndim(a) != ndim)
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "%s has %u dimensions: give %u, (rows, cols) or (frames, rows, cols) as "
                                "the first array", what, hst_array_ndim(a), ndim);
    s = hst_array_shape(a);
    if (s[ndim - 2] > INT32_MAX || s[ndim - 1] > INT32_MAX)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, func,
                                "%s is %zu x %zu: more than the kernels' 32-bit indices", what, s[ndim - 2],
                                s[ndim - 1]);
    *frames = ndim == 3 ? (uint64_t)s[0] : 1u;
    *rows = (uint32_t)s[ndim - 2];
    *cols = (uint32_t)s[ndim - 1];
    return HST_SUCCESS;
}

/* The first array's ndim (2 or 3), refused otherwise. */
static hst_result hst__lq_ndim(const hst_backend *be, const char *func, const char *what, const hst_array *a,
                               unsigned *ndim) {
    if (!a) return hst__null_arg(be, func, "%s is NULL", what);
    *ndim = hst_array_ndim(a);
    if (*ndim != 2 && *ndim != 3)
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "%s has %u dimensions: give (rows, cols) or (frames, rows, cols)", what, *ndim);
    return HST_SUCCESS;
}

/* An operand's shape against the one the call needs. */
static hst_result hst__lq_expect(const hst_backend *be, const char *func, const char *what, uint64_t f,
                                 uint32_t r, uint32_t c, uint64_t ef, uint64_t er, uint64_t ec) {
    if (f == ef && r == er && c == ec) return HST_SUCCESS;
    return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                            "%s is %llu x %u x %u (frames, rows, cols): the call needs %llu x %llu x %llu", what,
                            (unsigned long long)f, r, c, (unsigned long long)ef, (unsigned long long)er,
                            (unsigned long long)ec);
}

static hst_result hst__lq_sm_check(const hst_backend *be, const char *func, uint32_t rows, uint32_t cols,
                                   const hst_shift_magnify_desc *d, uint32_t *rows_out, uint32_t *cols_out) {
    double ro, co;
    if (!d) return hst__null_arg(be, func, "desc is NULL");
    if (!rows || !cols) return hst__zero_arg(be, func, "the input is %u x %u", rows, cols);
    if (!(d->magnification_row > 0.0f && d->magnification_row <= HST_LIQUID_MAX_MAGNIFICATION))
        return hst__range_arg(be, func, "magnification_row %g: give (0, %g]", (double)d->magnification_row,
                              (double)HST_LIQUID_MAX_MAGNIFICATION);
    if (!(d->magnification_col > 0.0f && d->magnification_col <= HST_LIQUID_MAX_MAGNIFICATION))
        return hst__range_arg(be, func, "magnification_col %g: give (0, %g]", (double)d->magnification_col,
                              (double)HST_LIQUID_MAX_MAGNIFICATION);
    if (!isfinite(d->shift_row))
        return hst__range_arg(be, func, "shift_row is %g: give a finite shift", (double)d->shift_row);
    if (!isfinite(d->shift_col))
        return hst__range_arg(be, func, "shift_col is %g: give a finite shift", (double)d->shift_col);
    ro = floor((double)rows * (double)d->magnification_row);
    co = floor((double)cols * (double)d->magnification_col);
    if (ro < 1.0 || co < 1.0)
        return hst__zero_arg(be, func, "the output of %u x %u magnified by (%g, %g) has no pixel", rows, cols,
                             (double)d->magnification_row, (double)d->magnification_col);
    if (ro > INT32_MAX || co > INT32_MAX)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, func,
                                "the output of %u x %u magnified by (%g, %g) is more than the kernels' 32-bit "
                                "indices", rows, cols, (double)d->magnification_row, (double)d->magnification_col);
    if (rows_out) *rows_out = (uint32_t)ro;
    if (cols_out) *cols_out = (uint32_t)co;
    return HST_SUCCESS;
}

/* RGC's parameters with their defaults (esrrf.h's), checked. */
static hst_result hst__lq_rgc_par(const hst_backend *be, const char *func,
                                  const hst_radial_gradient_convergence_desc *in,
                                  hst_radial_gradient_convergence_desc *d) {
    if (!in) return hst__null_arg(be, func, "desc is NULL");
    *d = *in;
    if (!d->magnification) d->magnification = HST_ESRRF_DEFAULT_MAGNIFICATION;
    if (d->radius == 0.0f) d->radius = HST_ESRRF_DEFAULT_RADIUS;
    if (d->sensitivity == 0.0f) d->sensitivity = HST_ESRRF_DEFAULT_SENSITIVITY;
    if (d->magnification > HST_ESRRF_MAX_MAG)
        return hst__range_arg(be, func, "magnification %u: give 1..%d", d->magnification, HST_ESRRF_MAX_MAG);
    if (!(d->radius > 0.0f && d->radius <= HST_ESRRF_MAX_RADIUS))
        return hst__range_arg(be, func, "radius %g: give (0, %g]", (double)d->radius, (double)HST_ESRRF_MAX_RADIUS);
    if (!(d->sensitivity > 0.0f && d->sensitivity <= HST_ESRRF_MAX_SENSITIVITY))
        return hst__range_arg(be, func, "sensitivity %g: give (0, %g]", (double)d->sensitivity,
                              (double)HST_ESRRF_MAX_SENSITIVITY);
    return HST_SUCCESS;
}

/* The magnified image's rows and columns against RGC's magnification and 32-bit indices. */
static hst_result hst__lq_rgc_dims(const hst_backend *be, const char *func, uint32_t rows_mag, uint32_t cols_mag,
                                   unsigned mag) {
    if (!rows_mag || !cols_mag) return hst__zero_arg(be, func, "image_interp is %u x %u", rows_mag, cols_mag);
    if (rows_mag % mag || cols_mag % mag)
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, func,
                                "image_interp is %u x %u: not a frame magnified by the magnification %u", rows_mag,
                                cols_mag, mag);
    if (rows_mag > INT32_MAX / 2 || cols_mag > INT32_MAX / 2 || (uint64_t)rows_mag * cols_mag > UINT32_MAX)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, func,
                                "image_interp is %u x %u: more than the kernels' 32-bit indices", rows_mag, cols_mag);
    return HST_SUCCESS;
}

/* >>host device threads: a declared kernel's range shared among threads (hst_launch_kernel on
   the host device may run disjoint parts of a range at once; the stage kernels' twins take
   parts of a frame's items as their kernels do: kernels_esrrf.h) */
typedef struct hst__lq_jobs {
    hst_backend *be;
    const hst_launch_desc *d;
    size_t items, row;             /* each frame's items, in rows of `row` */
    uint64_t frames;
    hst_result r[HST_PARALLEL_MAX_THREADS];   /* each share's */
} hst__lq_jobs;

static unsigned hst__lq_threads(void) {
    unsigned n = hst_cpu_count();
    return n > HST_PARALLEL_MAX_THREADS ? HST_PARALLEL_MAX_THREADS : n;
}

/* Share k of n (hst_parallel): as many frames as threads or more, frames [F k / n, F (k + 1) / n)
   whole; fewer, every frame's rows [R k / n, R (k + 1) / n) (R = items / row: whole rows, so
   that each part takes the twins' row blocks) */
static void hst__lq_share(void *ctx, unsigned k, unsigned n) {
    hst__lq_jobs *j = (hst__lq_jobs *)ctx;
    hst_launch_desc d = *j->d;
    size_t rows = j->items / j->row, i0 = 0, i1 = j->items;
    uint64_t z0 = 0, z1 = j->frames;
    if (j->frames >= n || rows < 2) {
        z0 = j->frames * k / n; z1 = j->frames * (k + 1) / n;
    } else {
        i0 = rows * k / n * j->row;
        i1 = k + 1 == n ? j->items : rows * (k + 1) / n * j->row;
    }
    d.range.offset[0] = i0;
    d.range.global[0] = i1 - i0;
    d.range.offset[1] = (size_t)z0;
    d.range.global[1] = (size_t)(z1 - z0);
    j->r[k] = hst_launch_kernel(j->be, &d, NULL);
}

/* Kernel id of the esrrf family over `items` items (rows of `row` items) of each of `frames`
   frames (a stage kernel's 2-D range; args end in the block arguments of all frames). On the
   host device the frames, or one frame's rows when there are fewer frames than cores, are
   shared among threads (hst__lq_share); a thread that cannot start runs on the caller's. On an
   OpenCL device local > 0 sets the work-group, (local, 1) (0: the backend's default). */
static hst_result hst__lq_launch(hst_backend *be, unsigned kernel, const hst_karg *args, size_t num_args,
                                 size_t items, size_t row, uint64_t frames, size_t local) {
    hst_launch_desc d;
    hst__lq_jobs jobs;
    unsigned n, k;
    hst_result r = HST_SUCCESS;
    memset(&d, 0, sizeof d);
    d.family = hst_kernels_esrrf_family();
    d.kernel = kernel;
    d.args = args;
    d.num_args = num_args;
    d.range.dims = 2;
    d.range.global[0] = items;
    d.range.global[1] = (size_t)frames;
    d.range.local[0] = local;
    d.range.local[1] = local ? 1 : 0;
    if (!hst_backend_is_host(be)) return hst_launch_kernel(be, &d, NULL);
    if (frames == 0) return HST_SUCCESS;
    n = hst__lq_threads();
    if ((double)frames * (double)items < (double)n * HST__LQ_MIN_ITEMS)
        n = (unsigned)((double)frames * (double)items / HST__LQ_MIN_ITEMS) + 1u;
    if (frames < n)   /* frames of one row (a thread each), or at most a thread a row */
        n = items / row < 2 ? (unsigned)frames : items / row < n ? (unsigned)(items / row) : n;
    jobs.be = be; jobs.d = &d; jobs.items = items; jobs.row = row; jobs.frames = frames;
    hst_parallel(hst__lq_share, &jobs, n);
    for (k = 0; k < n && r == HST_SUCCESS; k++) r = jobs.r[k];
    return r;
}

/* The stage kernels' block arguments for frames [0, frames): base, begin, end, total, flags. */
static size_t hst__lq_block(hst_karg *a, size_t n, uint64_t frames) {
    a[n++] = hst_karg_ulong(0);
    a[n++] = hst_karg_ulong(0);
    a[n++] = hst_karg_ulong(frames);
    a[n++] = hst_karg_ulong(frames);
    a[n++] = hst_karg_int(0);
    return n;
}

/* The backend of a call's arrays, for its log: the first of them that is not NULL. */
static hst_backend *hst__lq_be(const hst_array *a, const hst_array *b, const hst_array *c, const hst_array *d) {
    const hst_array *x = a ? a : b ? b : c ? c : d;
    return x ? hst_buffer_backend(hst_array_buffer(x)) : NULL;
}

/* >>device calls */
HST__LDEF hst_result hst_shift_magnify_shape(uint32_t rows, uint32_t cols, const hst_shift_magnify_desc *desc,
                                             uint32_t *rows_out, uint32_t *cols_out) {
    if (!rows_out || !cols_out) return hst__null_arg(NULL, "hst_shift_magnify_shape", "rows_out or cols_out is NULL");
    return hst__lq_sm_check(NULL, "hst_shift_magnify_shape", rows, cols, desc, rows_out, cols_out);
}

HST__LDEF hst_result hst_shift_magnify(hst_array *dst, const hst_array *src, const hst_shift_magnify_desc *desc) {
    static const char F[] = "hst_shift_magnify";
    hst_backend *be = hst__lq_be(src, dst, NULL, NULL);
    uint64_t frames, f;
    uint32_t rows, cols, rm, cm, r2, c2;
    unsigned nd = 0;
    float mag[2], shift[2];
    hst_karg a[14];
    size_t n = 0;
    hst_result r;
    if ((r = hst__lq_ndim(be, F, "src", src, &nd)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "src", src, nd, &frames, &rows, &cols)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "dst", dst, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_sm_check(be, F, rows, cols, desc, &rm, &cm)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "dst", f, r2, c2, frames, rm, cm)) != HST_SUCCESS)
        return r;
    if (hst_array_buffer(dst) == hst_array_buffer(src))
        return hst__bad_arg(be, F, "dst and src share their memory: give another output");
    mag[0] = desc->magnification_row; mag[1] = desc->magnification_col;
    shift[0] = desc->shift_row; shift[1] = desc->shift_col;
    /* magnify(in; out | rows, cols, rowsM, colsM, float2 mag, float2 shift, channels 1) */
    a[n++] = hst_karg_buffer(hst_array_buffer(src));
    a[n++] = hst_karg_buffer(hst_array_buffer(dst));
    a[n++] = hst_karg_uint(rows);
    a[n++] = hst_karg_uint(cols);
    a[n++] = hst_karg_uint(rm);
    a[n++] = hst_karg_uint(cm);
    a[n++] = hst_karg_value(sizeof mag, mag);
    a[n++] = hst_karg_value(sizeof shift, shift);
    a[n++] = hst_karg_uint(1);
    n = hst__lq_block(a, n, frames);
    return hst__lq_launch(be, HST_KESRRF_MAGNIFY, a, n, (size_t)rm * cm, cm, frames, 0);
}

/* hst_drift_correct's frame f: in and out are (rows, cols) float32 arrays on be. */
static hst_result hst__lq_drift_frame(hst_backend *be, hst_array *in, hst_array *out, float *frame, size_t bytes,
                                      const double *drift) {
    hst_shift_magnify_desc sm;
    hst_result r;
    sm.shift_row = (float)-drift[0];
    sm.shift_col = (float)-drift[1];
    sm.magnification_row = sm.magnification_col = 1.0f;
    hst_backend_lock(be);
    if ((r = hst_array_write(in, frame, bytes)) == HST_SUCCESS && (r = hst_shift_magnify(out, in, &sm)) == HST_SUCCESS)
        r = hst_array_read(out, frame, bytes);
    hst_backend_unlock(be);
    return r;
}

HST__LDEF hst_result hst_drift_correct(hst_backend *be, float *frames, size_t count, uint32_t rows, uint32_t cols,
                                       const double *drift) {
    static const char F[] = "hst_drift_correct";
    hst_array *a[2] = {NULL, NULL};
    size_t shape[2], px, bytes, all, f;
    hst_result r = HST_SUCCESS;
    if (!be || !frames || !drift) return hst__null_arg(be, F, "%s is NULL", !be ? "be" : !frames ? "frames" : "drift");
    if (!count || !rows || !cols) return hst__zero_arg(be, F, "count %zu frames of %u x %u", count, rows, cols);
    if (!hst_size_mul(rows, cols, &px) || !hst_size_mul(px, sizeof(float), &bytes) || !hst_size_mul(count, bytes, &all))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F, "count %zu frames of %u x %u",
                                count, rows, cols);
    for (f = 0; f < 2 * count; f++)
        if (!isfinite(drift[f]))
            return hst__bad_arg(be, F, "drift[%zu] (frame %zu's %s) is %g", f, f / 2, f % 2 ? "column" : "row", drift[f]);
    shape[0] = rows; shape[1] = cols;
    hst_backend_lock(be);
    if ((r = hst_array_create(be, HST_F32, 2, shape, &a[0])) == HST_SUCCESS) r = hst_array_create(be, HST_F32, 2, shape, &a[1]);
    hst_backend_unlock(be);
    for (f = 0; f < count && r == HST_SUCCESS; f++) {
        if (hst_backend_interrupted(be)) {
            hst_backend_log(be, HST_LOG_INFO, HST_LOGITEM_NONE, "%s: interrupted: stopping (HST_ERROR_CANCELLED)", F);
            r = HST_ERROR_CANCELLED;
        } else {
            r = hst__lq_drift_frame(be, a[0], a[1], frames + f * px, bytes, drift + 2 * f);
        }
    }
    hst_backend_lock(be);
    hst_array_destroy(a[0]);
    hst_array_destroy(a[1]);
    hst_backend_unlock(be);
    return r;
}

HST__LDEF hst_result hst_roberts_cross(hst_array *gradient_col, hst_array *gradient_row, const hst_array *src) {
    static const char F[] = "hst_roberts_cross";
    hst_backend *be = hst__lq_be(src, gradient_col, gradient_row, NULL);
    uint64_t frames, f;
    uint32_t rows, cols, r2, c2;
    unsigned nd = 0;
    hst_karg a[12];
    size_t n = 0;
    hst_result r;
    if ((r = hst__lq_ndim(be, F, "src", src, &nd)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "src", src, nd, &frames, &rows, &cols)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "gradient_col", gradient_col, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "gradient_col", f, r2, c2, frames, rows, cols)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "gradient_row", gradient_row, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "gradient_row", f, r2, c2, frames, rows, cols)) != HST_SUCCESS)
        return r;
    if (hst_array_buffer(gradient_col) == hst_array_buffer(gradient_row) ||
        hst_array_buffer(gradient_col) == hst_array_buffer(src) || hst_array_buffer(gradient_row) == hst_array_buffer(src))
        return hst__bad_arg(be, F, "gradient_col, gradient_row and src must be three arrays of their own memory");
    /* roberts(frames; grad_col, grad_row | rows, cols, gstep 1, groff 0) */
    a[n++] = hst_karg_buffer(hst_array_buffer(src));
    a[n++] = hst_karg_buffer(hst_array_buffer(gradient_col));
    a[n++] = hst_karg_buffer(hst_array_buffer(gradient_row));
    a[n++] = hst_karg_uint(rows);
    a[n++] = hst_karg_uint(cols);
    a[n++] = hst_karg_uint(1);
    a[n++] = hst_karg_uint(0);
    n = hst__lq_block(a, n, frames);
    return hst__lq_launch(be, HST_KESRRF_ROBERTS, a, n, (size_t)rows * cols, cols, frames, 0);
}

HST__LDEF hst_result hst_radial_gradient_convergence(hst_array *dst, const hst_array *gradient_col_interp,
                                                     const hst_array *gradient_row_interp,
                                                     const hst_array *image_interp,
                                                     const hst_radial_gradient_convergence_desc *desc) {
    static const char F[] = "hst_radial_gradient_convergence";
    hst_backend *be = hst__lq_be(image_interp, gradient_col_interp, gradient_row_interp, dst);
    hst_radial_gradient_convergence_desc d;
    uint64_t frames, f;
    uint32_t rm, cm, r2, c2;
    unsigned nd = 0;
    hst_karg a[17];
    size_t n = 0;
    hst_buffer *out;
    hst_result r;
    if ((r = hst__lq_ndim(be, F, "image_interp", image_interp, &nd)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "image_interp", image_interp, nd, &frames, &rm, &cm)) != HST_SUCCESS ||
        (r = hst__lq_rgc_par(be, F, desc, &d)) != HST_SUCCESS ||
        (r = hst__lq_rgc_dims(be, F, rm, cm, d.magnification)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "gradient_col_interp", gradient_col_interp, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "gradient_col_interp", f, r2, c2, frames, 2 * (uint64_t)rm,
                            2 * (uint64_t)cm)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "gradient_row_interp", gradient_row_interp, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "gradient_row_interp", f, r2, c2, frames, 2 * (uint64_t)rm,
                            2 * (uint64_t)cm)) != HST_SUCCESS ||
        (r = hst__lq_dims(be, F, "dst", dst, nd, &f, &r2, &c2)) != HST_SUCCESS ||
        (r = hst__lq_expect(be, F, "dst", f, r2, c2, frames, rm, cm)) != HST_SUCCESS)
        return r;
    out = hst_array_buffer(dst);
    if (out == hst_array_buffer(gradient_col_interp) || out == hst_array_buffer(gradient_row_interp) ||
        out == hst_array_buffer(image_interp))
        return hst__bad_arg(be, F, "dst shares its memory with an input: give another output");
    /* rgc(grad_col, grad_row, magnified; rgc | rows, cols, mag, radius, sensitivity,
           intensity_weighting, gstep 1, groff 0) */
    a[n++] = hst_karg_buffer(hst_array_buffer(gradient_col_interp));
    a[n++] = hst_karg_buffer(hst_array_buffer(gradient_row_interp));
    a[n++] = hst_karg_buffer(hst_array_buffer(image_interp));
    a[n++] = hst_karg_buffer(out);
    a[n++] = hst_karg_uint(rm / d.magnification);
    a[n++] = hst_karg_uint(cm / d.magnification);
    a[n++] = hst_karg_uint(d.magnification);
    a[n++] = hst_karg_float(d.radius);
    a[n++] = hst_karg_float(d.sensitivity);
    a[n++] = hst_karg_int(!d.no_intensity_weighting);
    a[n++] = hst_karg_uint(1);
    a[n++] = hst_karg_uint(0);
    n = hst__lq_block(a, n, frames);
    return hst__lq_launch(be, HST_KESRRF_RGC, a, n, (size_t)rm * cm, cm, frames,
                          hst_k_esrrf_rgc_local(d.magnification, d.radius, hst_backend_device(be)->max_work_group_size));
}

/* >>engine */
#define HST__LIQUID_METHOD_OP(id, op) op,
static const char *const hst__lq_ops[HST_LIQUID_NUM_METHODS] = { HST_LIQUID_METHODS(HST__LIQUID_METHOD_OP) };
#undef HST__LIQUID_METHOD_OP

struct hst_liquid {
    hst_backend *be[HST_CHOICE_MAX_IMPLS];
    unsigned nb;
    int owned;                     /* created here: destroyed with the engine */
    char name[HST_CHOICE_MAX_IMPLS][HST__LQ_NAME];
    const char *tags[HST_CHOICE_MAX_IMPLS];
    hst_choice_op *op[HST_LIQUID_NUM_METHODS];
    int verbose;
};

/* One call of a method, as its implementations and the output callback see it: the caller's
   arguments and the outputs' pieces (host memory, float32). */
typedef struct hst__lq_call {
    hst_liquid_method method;
    const void *args;
    uint32_t rows_out, cols_out;   /* shift-and-magnify's output */
    float *seg[HST_ESRRF_NUM_MODES > 2 ? HST_ESRRF_NUM_MODES : 2];
    size_t seg_n[HST_ESRRF_NUM_MODES > 2 ? HST_ESRRF_NUM_MODES : 2];
    unsigned nseg;
} hst__lq_call;

/* The run-type groups of a device (NanoPyx's @cpu, @threaded, @gpu decorators). */
static const char *hst__lq_tags(const hst_backend *be) {
    switch (hst_backend_device(be)->type) {
    case HST_DEVICE_HOST: return "host threaded cpu";
    case HST_DEVICE_CPU: return "opencl cpu";
    case HST_DEVICE_GPU: return "opencl gpu";
    default: return "opencl";
    }
}

/* Implementation k's name: "host", else the device's name (choice.h's forbidden characters
   replaced by spaces), with " #2", " #3", ... where an earlier device has the same. */
static void hst__lq_name(hst_liquid *lq, unsigned k) {
    const hst_device_info *info = hst_backend_device(lq->be[k]);
    char *p, *nm = lq->name[k];
    unsigned j, same = 1;
    snprintf(nm, HST__LQ_NAME, "%s", info->type == HST_DEVICE_HOST ? "host" : info->name);
    for (p = nm; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r' || *p == ',' || (p == nm && *p == '@')) *p = ' ';
    for (j = 0; j < k; j++)
        if (!strncmp(lq->name[j], nm, strlen(nm)) && (lq->name[j][strlen(nm)] == 0 || lq->name[j][strlen(nm)] == ' '))
            same++;
    if (same > 1) snprintf(nm + strlen(nm), HST__LQ_NAME - strlen(nm), " #%u", same);
}

/* Host memory in, device arrays, the device calls, host memory out: one implementation's run of
   a method on backend be. The arrays are the backend's pool's (kept there for the next call). */
static hst_result hst__lq_upload(hst_backend *be, const float *src, uint64_t frames, uint32_t rows, uint32_t cols,
                                 hst_array **out) {
    size_t shape[3];
    hst_result r;
    shape[0] = (size_t)frames; shape[1] = rows; shape[2] = cols;
    *out = NULL;
    if ((r = hst_array_create(be, HST_F32, 3, shape, out)) != HST_SUCCESS) return r;
    if (src) r = hst_array_write(*out, src, hst_array_bytes(*out));
    return r;
}

static hst_result hst__lq_run_sm(hst_backend *be, const hst__lq_call *c) {
    const hst_liquid_shift_magnify_args *a = (const hst_liquid_shift_magnify_args *)c->args;
    hst_array *in = NULL, *out = NULL;
    hst_result r = hst__lq_upload(be, a->image, a->frames, a->rows, a->cols, &in);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, NULL, a->frames, c->rows_out, c->cols_out, &out);
    if (r == HST_SUCCESS) r = hst_shift_magnify(out, in, &a->desc);
    if (r == HST_SUCCESS) r = hst_array_read(out, a->out, hst_array_bytes(out));
    hst_array_destroy(in);
    hst_array_destroy(out);
    return r;
}

static hst_result hst__lq_run_rc(hst_backend *be, const hst__lq_call *c) {
    const hst_liquid_roberts_cross_args *a = (const hst_liquid_roberts_cross_args *)c->args;
    hst_array *in = NULL, *gc = NULL, *gr = NULL;
    hst_result r = hst__lq_upload(be, a->image, a->frames, a->rows, a->cols, &in);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, NULL, a->frames, a->rows, a->cols, &gc);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, NULL, a->frames, a->rows, a->cols, &gr);
    if (r == HST_SUCCESS) r = hst_roberts_cross(gc, gr, in);
    if (r == HST_SUCCESS) r = hst_array_read(gc, a->gradient_col, hst_array_bytes(gc));
    if (r == HST_SUCCESS) r = hst_array_read(gr, a->gradient_row, hst_array_bytes(gr));
    hst_array_destroy(in);
    hst_array_destroy(gc);
    hst_array_destroy(gr);
    return r;
}

static hst_result hst__lq_run_rgc(hst_backend *be, const hst__lq_call *c) {
    const hst_liquid_radial_gradient_convergence_args *a = (const hst_liquid_radial_gradient_convergence_args *)c->args;
    hst_array *gc = NULL, *gr = NULL, *im = NULL, *out = NULL;
    uint32_t r2 = 2 * a->rows_mag, c2 = 2 * a->cols_mag;
    hst_result r = hst__lq_upload(be, a->gradient_col_interp, a->frames, r2, c2, &gc);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, a->gradient_row_interp, a->frames, r2, c2, &gr);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, a->image_interp, a->frames, a->rows_mag, a->cols_mag, &im);
    if (r == HST_SUCCESS) r = hst__lq_upload(be, NULL, a->frames, a->rows_mag, a->cols_mag, &out);
    if (r == HST_SUCCESS) r = hst_radial_gradient_convergence(out, gc, gr, im, &a->desc);
    if (r == HST_SUCCESS) r = hst_array_read(out, a->out, hst_array_bytes(out));
    hst_array_destroy(gc);
    hst_array_destroy(gr);
    hst_array_destroy(im);
    hst_array_destroy(out);
    return r;
}

static hst_result hst__lq_run_esrrf(hst_backend *be, const hst__lq_call *c) {
    const hst_liquid_esrrf_args *a = (const hst_liquid_esrrf_args *)c->args;
    hst_esrrf_desc d = a->desc;
    d.backends = &be;
    d.num_backends = 1;
    return hst_esrrf_run(&d, a->stack, a->dtype, a->frames, a->rows, a->cols, a->out, a->report);
}

/* choice.h's run: user is the implementation's backend (never the engine, which an operation
   kept on a caller's backend may outlive). */
static hst_result hst__lq_run(void *args, void *user) {
    const hst__lq_call *c = (const hst__lq_call *)args;
    hst_backend *be = (hst_backend *)user;
    switch (c->method) {
    case HST_LIQUID_SHIFT_MAGNIFY: return hst__lq_run_sm(be, c);
    case HST_LIQUID_ROBERTS_CROSS: return hst__lq_run_rc(be, c);
    case HST_LIQUID_RADIAL_GRADIENT_CONVERGENCE: return hst__lq_run_rgc(be, c);
    default: return hst__lq_run_esrrf(be, c);
    }
}

/* choice.h's output: the call's outputs, piece after piece, as doubles. */
static hst_result hst__lq_output(void *args, double *dst, size_t capacity, size_t *count) {
    const hst__lq_call *c = (const hst__lq_call *)args;
    size_t n = 0, k, i;
    for (k = 0; k < c->nseg; k++) n += c->seg_n[k];
    *count = n;
    if (!dst) return HST_SUCCESS;
    if (capacity < n) return hst__range_arg(NULL, "hst_liquid", "output capacity %zu below %zu", capacity, n);
    for (k = 0, n = 0; k < c->nseg; k++)
        for (i = 0; i < c->seg_n[k]; i++) dst[n++] = (double)c->seg[k][i];
    return HST_SUCCESS;
}

/* Elements of frames x rows x cols, overflow-checked into *n. */
static hst_result hst__lq_count(const hst_backend *be, const char *func, const char *what, uint64_t frames,
                                uint64_t rows, uint64_t cols, size_t *n) {
    size_t fr = (size_t)frames;
    if ((uint64_t)fr != frames || !hst_size_mul(fr, (size_t)rows, n) || !hst_size_mul(*n, (size_t)cols, n) ||
        *n > SIZE_MAX / sizeof(float))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, func,
                                "%s of %llu x %llu x %llu floats overflows size_t", what, (unsigned long long)frames,
                                (unsigned long long)rows, (unsigned long long)cols);
    return HST_SUCCESS;
}

/* Samples per axis of RGC's window at radius (kernels_esrrf.h: [-(int)(2r), (int)(2r + 1))). */
static int64_t hst__lq_window(float radius) {
    float g = 2.0f * radius;
    return (int64_t)(int)(g + 1.0f) + (int64_t)(int)g;
}

/* A method's arguments checked (before any implementation runs: a bad argument must not count
   as every implementation's failure for the signature), its call and signature made. */
static hst_result hst__lq_prepare(hst_liquid *lq, hst_liquid_method m, const void *args, hst__lq_call *c,
                                  int64_t *sig, unsigned *sig_len) {
    static const char F[] = "hst_liquid";
    const hst_backend *be = lq->be[0];
    hst_result r;
    size_t n;
    memset(c, 0, sizeof *c);
    c->method = m;
    c->args = args;
    if (!args) return hst__null_arg(be, F, "args is NULL");
    if (m == HST_LIQUID_SHIFT_MAGNIFY) {
        const hst_liquid_shift_magnify_args *a = (const hst_liquid_shift_magnify_args *)args;
        if (!a->image || !a->out) return hst__null_arg(be, F, "shift_magnify: image or out is NULL");
        if (!a->frames) return hst__zero_arg(be, F, "shift_magnify: frames is 0");
        if ((r = hst__lq_sm_check(be, F, a->rows, a->cols, &a->desc, &c->rows_out, &c->cols_out)) != HST_SUCCESS ||
            (r = hst__lq_count(be, F, "image", a->frames, a->rows, a->cols, &n)) != HST_SUCCESS ||
            (r = hst__lq_count(be, F, "out", a->frames, c->rows_out, c->cols_out, &c->seg_n[0])) != HST_SUCCESS)
            return r;
        c->seg[0] = a->out; c->nseg = 1;
        sig[0] = (int64_t)a->frames; sig[1] = a->rows; sig[2] = a->cols;
        sig[3] = (int64_t)c->rows_out * c->cols_out;
        *sig_len = 4;
    } else if (m == HST_LIQUID_ROBERTS_CROSS) {
        const hst_liquid_roberts_cross_args *a = (const hst_liquid_roberts_cross_args *)args;
        if (!a->image || !a->gradient_col || !a->gradient_row)
            return hst__null_arg(be, F, "roberts_cross: image, gradient_col or gradient_row is NULL");
        if (!a->frames || !a->rows || !a->cols)
            return hst__zero_arg(be, F, "roberts_cross: the image is %llu x %u x %u", (unsigned long long)a->frames,
                                 a->rows, a->cols);
        if (a->rows > INT32_MAX || a->cols > INT32_MAX)
            return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                    "roberts_cross: %u x %u is more than the kernels' 32-bit indices", a->rows, a->cols);
        if ((r = hst__lq_count(be, F, "image", a->frames, a->rows, a->cols, &n)) != HST_SUCCESS) return r;
        c->seg[0] = a->gradient_col; c->seg[1] = a->gradient_row; c->seg_n[0] = c->seg_n[1] = n; c->nseg = 2;
        sig[0] = (int64_t)a->frames; sig[1] = a->rows; sig[2] = a->cols;
        *sig_len = 3;
    } else if (m == HST_LIQUID_RADIAL_GRADIENT_CONVERGENCE) {
        const hst_liquid_radial_gradient_convergence_args *a = (const hst_liquid_radial_gradient_convergence_args *)args;
        hst_radial_gradient_convergence_desc d;
        if (!a->gradient_col_interp || !a->gradient_row_interp || !a->image_interp || !a->out)
            return hst__null_arg(be, F, "radial_gradient_convergence: gradient_col_interp, gradient_row_interp, "
                                 "image_interp or out is NULL");
        if (!a->frames) return hst__zero_arg(be, F, "radial_gradient_convergence: frames is 0");
        if ((r = hst__lq_rgc_par(be, F, &a->desc, &d)) != HST_SUCCESS ||
            (r = hst__lq_rgc_dims(be, F, a->rows_mag, a->cols_mag, d.magnification)) != HST_SUCCESS ||
            (r = hst__lq_count(be, F, "gradients", a->frames, 2 * (uint64_t)a->rows_mag,
                               2 * (uint64_t)a->cols_mag, &n)) != HST_SUCCESS ||
            (r = hst__lq_count(be, F, "out", a->frames, a->rows_mag, a->cols_mag, &c->seg_n[0])) != HST_SUCCESS)
            return r;
        c->seg[0] = a->out; c->nseg = 1;
        sig[0] = (int64_t)a->frames; sig[1] = a->rows_mag; sig[2] = a->cols_mag; sig[3] = hst__lq_window(d.radius);
        *sig_len = 4;
    } else if (m == HST_LIQUID_ESRRF) {
        const hst_liquid_esrrf_args *a = (const hst_liquid_esrrf_args *)args;
        hst_esrrf_desc d = a->desc;
        hst_backend *b0 = lq->be[0];
        uint64_t tps;
        uint32_t rm, cm;
        unsigned modes, k;
        d.backends = &b0; d.num_backends = 1;
        if ((r = hst_esrrf_output_shape(&d, a->frames, a->rows, a->cols, &tps, &rm, &cm)) != HST_SUCCESS) return r;
        if (!a->stack || !a->out) return hst__null_arg(be, F, "esrrf: stack or out is NULL");
        if (a->dtype != HST_ESRRF_U8 && a->dtype != HST_ESRRF_U16 && a->dtype != HST_ESRRF_I16 && a->dtype != HST_ESRRF_F32)
            return hst__range_arg(be, F, "esrrf: dtype %d is not an hst_esrrf_dtype", (int)a->dtype);
        modes = d.modes ? d.modes : (unsigned)HST_ESRRF_AVG;
        for (k = 0; k < HST_ESRRF_NUM_MODES; k++) {
            if (!(modes & (1u << k))) continue;
            if (!a->out[k])
                return hst__null_arg(be, F, "esrrf: out[%u] (%s, requested) is NULL", k, hst_esrrf_mode_name((int)k));
            if ((r = hst__lq_count(be, F, "out", tps, rm, cm, &c->seg_n[c->nseg])) != HST_SUCCESS) return r;
            c->seg[c->nseg++] = a->out[k];
        }
        if (a->dtype == HST_ESRRF_F32) {   /* hst_esrrf_run refuses a NaN or Inf: refused here first */
            const float *p = (const float *)a->stack;
            size_t i;
            if ((r = hst__lq_count(be, F, "stack", a->frames, a->rows, a->cols, &n)) != HST_SUCCESS) return r;
            for (i = 0; i < n; i++)
                if (!isfinite(p[i]))
                    return hst_backend_fail(be, HST_ERROR_NON_FINITE, HST_LOGITEM_BAD_ARGUMENT, F,
                                            "esrrf: stack element %zu (frame %zu) is %s", i, i / ((size_t)a->rows * a->cols),
                                            isnan(p[i]) ? "NaN" : "infinite");
        }
        sig[0] = (int64_t)a->frames; sig[1] = (int64_t)a->rows * a->cols;
        sig[2] = d.magnification ? d.magnification : HST_ESRRF_DEFAULT_MAGNIFICATION;
        sig[3] = hst__lq_window(d.radius > 0.0f ? d.radius : HST_ESRRF_DEFAULT_RADIUS);
        *sig_len = 4;
    } else
        return hst__range_arg(be, F, "method %d: give an hst_liquid_method", (int)m);
    return HST_SUCCESS;
}

/* The verbose line: which implementation ran, its groups and time. */
static void hst__lq_report(const hst_liquid *lq, hst_liquid_method m, const hst_choice_outcome *oc) {
    if (!lq->verbose) return;
    hst_backend_log(lq->be[0], HST_LOG_INFO, HST_LOGITEM_NONE, "hst_liquid: %s ran %s (%s) in %.6f s%s%s",
                    hst__lq_ops[m], oc->name, lq->tags[oc->impl < lq->nb ? oc->impl : 0], oc->seconds,
                    oc->explored ? ", measuring it" : "", oc->forced ? ", forced" : "");
}

static hst_result hst__lq_call_method(hst_liquid *lq, hst_liquid_method m, const void *args, const char *run_type,
                                      hst_choice_outcome *outcome) {
    hst__lq_call c;
    int64_t sig[HST_CHOICE_MAX_SIG];
    unsigned sl = 0;
    hst_choice_outcome oc;
    hst_result r;
    if (!lq) return hst__null_arg(NULL, "hst_liquid", "lq is NULL");
    if ((r = hst__lq_prepare(lq, m, args, &c, sig, &sl)) != HST_SUCCESS) return r;
    memset(&oc, 0, sizeof oc);
    r = hst_choice_run(lq->op[m], sig, sl, &c, run_type, &oc);
    if (r == HST_SUCCESS) hst__lq_report(lq, m, &oc);
    if (outcome) *outcome = oc;
    return r;
}

HST__LDEF hst_result hst_liquid_shift_magnify(hst_liquid *lq, const hst_liquid_shift_magnify_args *args,
                                              const char *run_type, hst_choice_outcome *outcome) {
    return hst__lq_call_method(lq, HST_LIQUID_SHIFT_MAGNIFY, args, run_type, outcome);
}
HST__LDEF hst_result hst_liquid_roberts_cross(hst_liquid *lq, const hst_liquid_roberts_cross_args *args,
                                              const char *run_type, hst_choice_outcome *outcome) {
    return hst__lq_call_method(lq, HST_LIQUID_ROBERTS_CROSS, args, run_type, outcome);
}
HST__LDEF hst_result hst_liquid_radial_gradient_convergence(hst_liquid *lq,
                                                            const hst_liquid_radial_gradient_convergence_args *args,
                                                            const char *run_type, hst_choice_outcome *outcome) {
    return hst__lq_call_method(lq, HST_LIQUID_RADIAL_GRADIENT_CONVERGENCE, args, run_type, outcome);
}
HST__LDEF hst_result hst_liquid_esrrf(hst_liquid *lq, const hst_liquid_esrrf_args *args, const char *run_type,
                                      hst_choice_outcome *outcome) {
    return hst__lq_call_method(lq, HST_LIQUID_ESRRF, args, run_type, outcome);
}

HST__LDEF hst_result hst_liquid_benchmark(hst_liquid *lq, hst_liquid_method method, const void *args, unsigned reps,
                                          hst_choice_bench_row *rows, size_t capacity, size_t *count) {
    hst__lq_call c;
    int64_t sig[HST_CHOICE_MAX_SIG];
    unsigned sl = 0;
    hst_result r;
    if (!lq) return hst__null_arg(NULL, "hst_liquid_benchmark", "lq is NULL");
    if (!count) return hst__null_arg(lq->be[0], "hst_liquid_benchmark", "count is NULL");
    if ((r = hst__lq_prepare(lq, method, args, &c, sig, &sl)) != HST_SUCCESS) return r;
    return hst_choice_benchmark(lq->op[method], sig, sl, &c, reps, rows, capacity, count);
}

HST__LDEF hst_result hst_liquid_clear(hst_liquid *lq, hst_liquid_method method) {
    unsigned m;
    hst_result r = HST_SUCCESS;
    if (!lq) return hst__null_arg(NULL, "hst_liquid_clear", "lq is NULL");
    if ((int)method < 0 || method > HST_LIQUID_NUM_METHODS)
        return hst__range_arg(lq->be[0], "hst_liquid_clear", "method %d: give an hst_liquid_method or "
                              "HST_LIQUID_NUM_METHODS (every one)", (int)method);
    for (m = 0; m < HST_LIQUID_NUM_METHODS && r == HST_SUCCESS; m++)
        if (method == HST_LIQUID_NUM_METHODS || m == (unsigned)method) r = hst_choice_clear(lq->op[m]);
    return r;
}

/* The backends: the caller's, or one per device present (hst_devices' order, the host device
   last); a device that does not open is skipped, logged. */
static hst_result hst__lq_backends(hst_liquid *lq, const hst_liquid_desc *desc) {
    hst_device_info infos[HST_CHOICE_MAX_IMPLS];
    hst_backend_desc bd;
    size_t count = 0, i;
    unsigned k, j;
    hst_result r;
    if (desc->backends) {
        if (!desc->num_backends || desc->num_backends > HST_CHOICE_MAX_IMPLS)
            return hst__range_arg(NULL, "hst_liquid_create", "num_backends %u: give 1..%d", desc->num_backends,
                                  HST_CHOICE_MAX_IMPLS);
        for (k = 0; k < desc->num_backends; k++) {
            if (!desc->backends[k]) return hst__null_arg(NULL, "hst_liquid_create", "backends[%u] is NULL", k);
            for (j = 0; j < k; j++)
                if (desc->backends[j] == desc->backends[k])
                    return hst__bad_arg(desc->backends[0], "hst_liquid_create", "backends[%u] repeats backends[%u]", k, j);
            lq->be[k] = desc->backends[k];
        }
        lq->nb = desc->num_backends;
        return HST_SUCCESS;
    }
    if ((r = hst_devices(infos, HST_CHOICE_MAX_IMPLS, &count)) != HST_SUCCESS) return r;
    if (count > HST_CHOICE_MAX_IMPLS) count = HST_CHOICE_MAX_IMPLS;
    lq->owned = 1;
    for (i = 0; i < count; i++) {
        if (desc->backend_desc) bd = *desc->backend_desc;
        else memset(&bd, 0, sizeof bd);
        bd.device = infos[i].selector;
        if ((r = hst_backend_create(&bd, &lq->be[lq->nb])) == HST_SUCCESS) lq->nb++;
        else
            hst_backend_log(NULL, HST_LOG_WARN, HST_LOGITEM_NO_MATCHING_DEVICE,
                            "hst_liquid_create: device %s (%s) did not open (%s): left out", infos[i].selector,
                            infos[i].name, hst_result_string(r));
    }
    return lq->nb ? HST_SUCCESS : hst_backend_fail(NULL, HST_ERROR_NO_DEVICE, HST_LOGITEM_NO_MATCHING_DEVICE,
                                                   "hst_liquid_create", "no device opened");
}

/* One operation per method on the first backend, an implementation per backend; an operation
   already there (an earlier engine on these backends) is taken over when it has the same
   implementations. */
static hst_result hst__lq_register(hst_liquid *lq, const hst_liquid_desc *desc) {
    hst_choice_impl impls[HST_CHOICE_MAX_IMPLS];
    hst_choice_op_desc od;
    hst_choice_stat st[HST_CHOICE_MAX_IMPLS];
    unsigned m, k, host = lq->nb;
    size_t n = 0;
    hst_result r;
    memset(impls, 0, sizeof impls);
    for (k = 0; k < lq->nb; k++) if (hst_backend_is_host(lq->be[k]) && host == lq->nb) host = k;
    for (k = 0; k < lq->nb; k++) {
        hst__lq_name(lq, k);
        lq->tags[k] = hst__lq_tags(lq->be[k]);
        impls[k].name = lq->name[k];
        impls[k].run = hst__lq_run;
        impls[k].user = lq->be[k];
        impls[k].backend = lq->be[k];
        impls[k].reference = k == host;
        impls[k].tags = lq->tags[k];
    }
    for (m = 0; m < HST_LIQUID_NUM_METHODS; m++) {
        if ((lq->op[m] = hst_choice_find(lq->be[0], hst__lq_ops[m])) != NULL) {
            if ((r = hst_choice_stats(lq->op[m], NULL, 0, st, HST_CHOICE_MAX_IMPLS, &n)) != HST_SUCCESS) return r;
            for (k = 0; k < lq->nb && n == lq->nb && !strcmp(st[k].impl, lq->name[k]); k++) {}
            if (k < lq->nb || n != lq->nb)
                return hst__state_arg(lq->be[0], "hst_liquid_create", "backends[0] holds the operation \"%s\" of an "
                                      "engine on other backends: give the same backends", hst__lq_ops[m]);
            continue;
        }
        memset(&od, 0, sizeof od);
        od.name = hst__lq_ops[m];
        od.impls = impls;
        od.num_impls = lq->nb;
        od.output = hst__lq_output;
        od.testing = desc->testing;
        od.tolerance = desc->tolerance > 0.0 ? desc->tolerance : HST_LIQUID_TOLERANCE;
        if ((r = hst_choice_register(lq->be[0], &od, &lq->op[m])) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

HST__LDEF hst_result hst_liquid_create(const hst_liquid_desc *desc, hst_liquid **out) {
    hst_liquid *lq;
    unsigned m;
    hst_result r;
    if (!out) return hst__null_arg(NULL, "hst_liquid_create", "out is NULL");
    *out = NULL;
    if (!desc) return hst__null_arg(NULL, "hst_liquid_create", "desc is NULL");
    if (!(desc->tolerance >= 0.0))
        return hst__range_arg(NULL, "hst_liquid_create", "tolerance %g: give 0 (the default) or more", desc->tolerance);
    lq = (hst_liquid *)calloc(1, sizeof *lq);
    if (!lq) return hst_backend_fail(NULL, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                                     "hst_liquid_create", "the engine's %zu bytes", sizeof *lq);
    lq->verbose = desc->verbose;
    r = hst__lq_backends(lq, desc);
    if (r == HST_SUCCESS && desc->choice) r = hst_choice_configure(lq->be[0], desc->choice);
    if (r == HST_SUCCESS) r = hst__lq_register(lq, desc);
    for (m = 0; r == HST_SUCCESS && desc->clear_benchmarks && m < HST_LIQUID_NUM_METHODS; m++)
        r = hst_choice_clear(lq->op[m]);
    if (r != HST_SUCCESS) {   /* the first error is the one returned; the backends made here go */
        hst_result gone = hst_liquid_destroy(lq);
        (void)gone;
        return r;
    }
    *out = lq;
    return HST_SUCCESS;
}

HST__LDEF hst_result hst_liquid_destroy(hst_liquid *lq) {
    hst_result r = HST_SUCCESS, e;
    unsigned k;
    if (!lq) return HST_SUCCESS;
    /* the first backend first: its registry's operations name the others */
    for (k = 0; lq->owned && k < lq->nb; k++)
        if ((e = hst_backend_destroy(lq->be[k])) != HST_SUCCESS && r == HST_SUCCESS) r = e;
    free(lq);
    return r;
}

HST__LDEF unsigned hst_liquid_num_backends(const hst_liquid *lq) { return lq ? lq->nb : 0; }
HST__LDEF hst_backend *hst_liquid_backend(const hst_liquid *lq, unsigned k) { return lq && k < lq->nb ? lq->be[k] : NULL; }
HST__LDEF const char *hst_liquid_impl_name(const hst_liquid *lq, unsigned k) {
    return lq && k < lq->nb ? lq->name[k] : NULL;
}
HST__LDEF const char *hst_liquid_impl_tags(const hst_liquid *lq, unsigned k) {
    return lq && k < lq->nb ? lq->tags[k] : NULL;
}
HST__LDEF hst_choice_op *hst_liquid_op(const hst_liquid *lq, hst_liquid_method method) {
    return lq && (int)method >= 0 && method < HST_LIQUID_NUM_METHODS ? lq->op[method] : NULL;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_LIQUID_IMPLEMENTATION */

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
