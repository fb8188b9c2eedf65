/* algorithm.h — halostream's generated kernels: OpenCL C kernels made from a caller's argument
   list and expressions, as PyOpenCL's ElementwiseKernel, ReductionKernel,
   GenericScanKernel / InclusiveScanKernel / ExclusiveScanKernel and copy_if make them, over
   array.h's arrays. Single-file, header-only, C99 (and C++). Sits on array.h (its arrays and
   dtypes) and backend.h (program builds and their cache, hst_kernel_run); it does not use
   choice.h.

   Do this:
       #define HST_IMPLEMENTATION          (or HST_ALGORITHM_IMPLEMENTATION for this header alone)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations.

   Usage (y = a x + y, then the dot product of x and y, on an OpenCL device: HST_DEVICE=cpu):

       hst_backend_desc desc = {0};               // zero means every documented default
       hst_backend *be; hst_array *x = NULL, *y = NULL;
       hst_elementwise *axpy = NULL; hst_reduction *dot = NULL;
       size_t n = 1000;
       float result = 0.0f;
       if (hst_backend_create(&desc, &be) != HST_SUCCESS) return 1;
       hst_result r = hst_array_create(be, HST_F32, 1, &n, &x);
       if (r == HST_SUCCESS) r = hst_array_create(be, HST_F32, 1, &n, &y);
       if (r == HST_SUCCESS) r = hst_array_fill(x, hst_real(2.0));
       if (r == HST_SUCCESS) r = hst_array_fill(y, hst_real(1.0));
       if (r == HST_SUCCESS)                      // the host device answers HST_ERROR_UNSUPPORTED
           r = hst_elementwise_create(be, "float *y, float a, const float *x", "y[i] = a * x[i] + y[i]",
                                      NULL, &axpy);
       if (r == HST_SUCCESS) {
           hst_alg_arg args[3];
           args[0] = hst_alg_array(y); args[1] = hst_alg_scalar(HST_F32, hst_real(3.0));
           args[2] = hst_alg_array(x);
           r = hst_elementwise_run(axpy, n, 3, args);           // y[i] = 7
       }
       if (r == HST_SUCCESS)
           r = hst_reduction_create(be, HST_F32, "0", "a + b", "x[i] * y[i]",
                                    "const float *x, const float *y", NULL, &dot);
       if (r == HST_SUCCESS) {
           hst_alg_arg args[2];
           args[0] = hst_alg_array(x); args[1] = hst_alg_array(y);
           r = hst_reduction_run(dot, n, 2, args, &result, sizeof result);   // 14000, blocking
       }
       hst_reduction_destroy(dot);                // NULL (a failed create) is fine
       hst_elementwise_destroy(axpy);
       hst_array_destroy(x); hst_array_destroy(y);
       if (hst_backend_destroy(be) != HST_SUCCESS || r != HST_SUCCESS) return 1;
       // cc -std=c99 app.c -lOpenCL -lm

   Reference (every public function; each is documented at its declaration):
     Arguments     hst_alg_array, hst_alg_scalar              a call's array and scalar arguments
     Elementwise   hst_elementwise_create, _run, _destroy     PyOpenCL's ElementwiseKernel
     Reductions    hst_reduction_create, _run, _run_to, _destroy   ReductionKernel
     Scans         hst_scan_create, hst_scan_run              Inclusive/ExclusiveScanKernel
                   hst_scan_create_generic, _run_generic      GenericScanKernel
                   hst_copy_if_create, hst_copy_if_run        pyopencl.algorithm.copy_if
                   hst_scan_destroy

   The host device. A generated kernel is OpenCL C that a compiler must build; the host device
   has none (it runs the C twins of declared kernels, and HST_NO_OPENCL builds have no OpenCL at
   all), and halostream does not interpret expressions. So every create function refuses the
   host device with HST_ERROR_UNSUPPORTED (logged as HST_LOGITEM_UNSUPPORTED, naming the call
   and saying to select an OpenCL device, such as PoCL's CPU device: HST_DEVICE=cpu), after it
   has checked its arguments the same way as on any device. It does not quietly run the kernel
   on another device instead: the caller's arrays live in the host device's memory, and a
   silent move to another device is the kind of fallback backend.h never makes.

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_ALGORITHM_IMPLEMENTATION           the implementation TU: compile algorithm.h's body only
     HST_NO_OPENCL, HST_STATIC, HST_API     as in backend.h

   What it does NOT do: it does not check what a statement or expression does with memory (an
   index other than i may read or write outside an array: the caller's responsibility, as in
   PyOpenCL); it does not pick a reduction or scan order per device (the orders are fixed below,
   so an exact operation gives the same bits everywhere); it does not run generated kernels on
   the host device (above); it does not block except where a call says so.

   Version 0.1.0 (HST_VERSION_STRING in backend.h). MIT licence, Copyright (c) 2026 the
   halostream authors (the full text at the end of this file). */

#ifndef HST_ALGORITHM_H
#define HST_ALGORITHM_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Argument lists and expressions (PyOpenCL's conventions, in C).

   An argument list is C declarations separated by commas: "float *y, float a, const float *x".
   Each is a type, `*` for an array (a __global pointer: pass an hst_array) or nothing for a
   scalar (pass a value), and a name; the qualifiers const, global/__global and
   restrict/__restrict/__restrict__ may come before the name and are kept where they mean
   something (const on arrays). The types, one per dtype of kernels.h:
       uchar (u8)  char (i8)  short (i16)  int (i32)  long (i64)  float (f32)  double (f64)
       cfloat_t (c64)  cdouble_t (c128)
   double and cdouble_t need a device with fp64 (else HST_ERROR_DTYPE). At most
   HST_ALGORITHM_MAX_ARGS parameters, names of at most 63 characters; the names i, n, item and
   prev_item and those starting with hst_ are the generated code's own (refused).

   Every generated program starts with `#pragma OPENCL FP_CONTRACT OFF` (one rounding per
   operation, as kernels.h's programs: a*x+y is never fused, so a host C computation gives the
   same bits), then the complex helpers below, then the caller's preamble (NULL: none: helper
   functions, #defines), then the kernels. Complex numbers are OpenCL vectors (cfloat_t is
   float2: .x the real part, .y the imaginary; + and - work as for complex numbers, a scalar
   converts to (s, s), so write cfloat_new(s, 0)), with PyOpenCL's helpers
       cfloat_new(re, im)  cfloat_real(z)  cfloat_imag(z)  cfloat_conj(z)  cfloat_mul(z, w)
       cfloat_rmul(r, z)   cfloat_abs2(z)   (and cdouble_* likewise on devices with fp64)
   with cfloat_mul(z, w) = (z.x w.x - z.y w.y, z.x w.y + z.y w.x), abs2 = x^2 + y^2.

   In a statement or a map or input expression, i (ulong) is the element's index, 0 <= i < n,
   and n (ulong) the count; every parameter is in scope under its name. A call checks its
   arguments against the list before anything runs: their number; for each, an array for a
   pointer and a scalar for the rest; an array of the declared dtype, on the kernel's backend,
   holding at least n elements (so x[i] stays inside); a scalar of the declared dtype (an
   integer value that fits the type). Refusals name the argument (its position and name):
   HST_ERROR_INVALID_ARGUMENT (count, array where a scalar is declared or the reverse, an
   integer out of the type's range), HST_ERROR_SHAPE (logged as HST_LOGITEM_SHAPE_MISMATCH: a
   dtype other than the declared, another backend, an array shorter than n). n = 0 is refused
   (HST_LOGITEM_ZERO_SIZE), as arrays have no empty extents; an n whose launch range overflows
   size_t is HST_ERROR_OVERFLOW.

   Programs are built by hst_program_build, so they are cached by their source like every
   program of the library: in memory per backend (a second create with the same strings on the
   same backend builds nothing) and on disk (another process's create loads the binary). A build
   that fails returns OpenCL's code (CL_BUILD_PROGRAM_FAILURE) and logs the compiler's build log
   as HST_LOGITEM_BUILD_FAILED, with the generated source's line numbers.

   Thread safety: create and destroy are per backend; a run is per backend and per object (an
   object keeps its scratch buffers). */
#define HST_ALGORITHM_MAX_ARGS 32

/* One argument of a call: an array (array non-NULL) or a scalar (dtype and value: integers
   read value.i64, floats value.re, complex value.re and value.im). */
typedef struct hst_alg_arg {
    const hst_array *array;
    hst_dtype dtype;
    hst_scalar value;
} hst_alg_arg;
/* Thread-safe. */
HST_API hst_alg_arg hst_alg_array(const hst_array *a);
HST_API hst_alg_arg hst_alg_scalar(hst_dtype dtype, hst_scalar value);

/* ---------------------------------------------------------------------------------------------
   Elementwise (PyOpenCL's ElementwiseKernel): `operation` (a C statement or several, "y[i] =
   a * x[i] + y[i]") runs once for every index i of 0 .. n-1, in no particular order: a
   statement must not read what another index writes, nor leave the kernel (return). Each
   work-item runs HST_ELEMENTWISE_PER_ITEM indices a global size apart (i, i + G, ...: the
   loads of several in flight), in work-groups of HST_ELEMENTWISE_LOCAL (or the kernel's most):
   axpy on an H200 0.83 -> 0.90-0.91 of the copy rate (bench/algorithm_bench.c). */
#define HST_ELEMENTWISE_PER_ITEM 8
#define HST_ELEMENTWISE_LOCAL 64
typedef struct hst_elementwise hst_elementwise;
/* arguments: the list; operation: the statement; preamble: NULL or text placed before the
   kernel. Errors: HST_ERROR_INVALID_ARGUMENT (NULLs, an empty operation, a list that does not
   parse: the log names the parameter), HST_ERROR_DTYPE (fp64 types without fp64),
   HST_ERROR_UNSUPPORTED (the host device, see the top; a device without fp64 for double),
   hst_program_build's (CL_BUILD_PROGRAM_FAILURE: the build log is logged),
   HST_ERROR_OUT_OF_HOST_MEMORY. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_elementwise_create(hst_backend *be, const char *arguments,
                                                        const char *operation, const char *preamble,
                                                        hst_elementwise **out);
/* Enqueues the kernel over i = 0 .. n-1 on the backend's default queue (not blocking): args,
   num_args of them, in the list's order, checked as described above. Errors: those above,
   OpenCL launch codes. Thread safety: per backend, per object. */
HST_API HST_NODISCARD hst_result hst_elementwise_run(hst_elementwise *k, size_t n, size_t num_args,
                                                     const hst_alg_arg *args);
/* NULL is ignored. Thread safety: per backend. */
HST_API void hst_elementwise_destroy(hst_elementwise *k);

/* ---------------------------------------------------------------------------------------------
   Reductions (PyOpenCL's ReductionKernel): result = reduce over i of map(i), with `reduce` an
   expression in a and b ("a + b", "max(a, b)"), `map` an expression in i and the arguments
   ("x[i] * y[i]"), and `neutral` an expression of the neutral element ("0", "-INFINITY",
   "cfloat_new(0, 0)"). The dtype may be any of kernels.h's (the expressions decide what the
   type allows: max of complex does not build).

   The order is fixed, whatever the device (HST_REDUCTION_GROUPS work-groups of
   HST_REDUCTION_LOCAL work-items; every device must run work-groups of that size, else
   HST_ERROR_UNSUPPORTED at create):
     1. lane p (0 <= p < P = GROUPS * LOCAL; p = group * LOCAL + local id) folds its indices in
        increasing order: acc = neutral; for i = p, p + P, p + 2P, ... < n: acc = reduce(acc, map(i));
     2. each group folds its LOCAL lanes by a tree: for s = LOCAL/2, LOCAL/4, ..., 1:
        v[t] = reduce(v[t], v[t + s]) for t < s; v[0] is the group's partial;
     3. one group folds the GROUPS partials: lane t: acc = neutral; for j = t, t + LOCAL, ... <
        GROUPS: acc = reduce(acc, partial[j]); then the tree of step 2.
   A host computation in this order gives the same bits; an exact operation (integer sums,
   min/max, sums of values whose partial sums are representable) gives the same result as any
   order. Thread safety (of the calls below): per backend. */
#define HST_REDUCTION_GROUPS 1024
#define HST_REDUCTION_LOCAL 256
typedef struct hst_reduction hst_reduction;
/* dtype: the result's (and the accumulator's) type. Errors: as hst_elementwise_create's (the
   log names which string is NULL or empty), HST_ERROR_INVALID_ARGUMENT (dtype not an
   hst_dtype), HST_ERROR_UNSUPPORTED (a device whose work-groups cannot hold
   HST_REDUCTION_LOCAL work-items). */
HST_API HST_NODISCARD hst_result hst_reduction_create(hst_backend *be, hst_dtype dtype, const char *neutral,
                                                      const char *reduce, const char *map,
                                                      const char *arguments, const char *preamble,
                                                      hst_reduction **out);
/* Reduces i = 0 .. n-1 and copies the result (one element of the dtype: result_bytes =
   hst_dtype_size(dtype), the element's layout as kernels.h's) to result; blocks until it is
   there. Errors: the argument checks above, HST_ERROR_INVALID_ARGUMENT (result NULL,
   result_bytes other than the element size), OpenCL codes. */
HST_API HST_NODISCARD hst_result hst_reduction_run(hst_reduction *red, size_t n, size_t num_args,
                                                   const hst_alg_arg *args, void *result,
                                                   size_t result_bytes);
/* The same result into element 0 of out (an array of the dtype on the same backend), enqueued
   on the default queue without blocking. Errors: as hst_reduction_run, HST_ERROR_SHAPE (out's
   dtype or backend). */
HST_API HST_NODISCARD hst_result hst_reduction_run_to(hst_reduction *red, size_t n, size_t num_args,
                                                      const hst_alg_arg *args, hst_array *out);
HST_API void hst_reduction_destroy(hst_reduction *red);   /* NULL is ignored */

/* ---------------------------------------------------------------------------------------------
   Scans (prefix sums; PyOpenCL's scan kernels): with `scan` an associative expression in a and
   b ("a + b", "max(a, b)") and `neutral` its neutral element, the inclusive scan of v is
   s[i] = v[0] op v[1] op ... op v[i] and the exclusive scan e[i] = neutral op v[0] op ... op
   v[i-1] (e[0] = neutral). The dtype is an integer or a real float (u8 i8 i16 i32 i64 f32 f64;
   complex is HST_ERROR_DTYPE).

   The order is fixed, whatever the device. TILE = HST_SCAN_LOCAL * HST_SCAN_PER_ITEM; n splits
   into HST_SCAN_GROUPS chunks of C = TILE * ceil(n / (GROUPS * TILE)) consecutive elements
   (the last ones short or empty), a chunk into tiles of TILE (the last one padded with
   neutral). A tile is scanned after a carry c by raking (Blelloch, "Prefix sums and their
   applications", CMU-CS-90-190, 1990: serial scans of runs, a scan of their totals): work-item
   t folds its PER_ITEM consecutive elements serially, r[0] = v[0], r[k] = r[k-1] op v[k], to a
   run total u[t]; the LOCAL run totals fall into HST_SCAN_RAKE segments of LOCAL / RAKE, each
   scanned serially the same way (p[t]) to a segment total S[s]; the segments' carries are
   c[0] = c, c[s+1] = c[s] op S[s]; element k of run t in segment s becomes (c[s] op p[t-1]) op
   r[k], or c[s] op r[k] for a segment's first run; the next tile's carry is c[RAKE]. Pass 1
   folds each chunk the same way from c = neutral, without the element scans, and keeps its
   total; pass 2 scans the GROUPS totals as one tile from neutral into exclusive carry-ins
   (chunk 0's is neutral); pass 3 scans each chunk again from its carry-in and runs the output.
   An exact operator (integer sums, min, max) gives the serial result; float sums round in this
   order: the same bits on every device and run. The operator need not commute. Memory
   traffic: read n, then read n and write n (0.67 of a copy's rate at best). Thread safety (of
   the calls below): per backend. */
#define HST_SCAN_GROUPS 1024
#define HST_SCAN_LOCAL 256
#define HST_SCAN_PER_ITEM 8
#define HST_SCAN_RAKE 16
typedef struct hst_scan hst_scan;
/* A plain scan of dtype: y = scan(x) over arrays of that dtype. Errors: as
   hst_reduction_create's, HST_ERROR_DTYPE (complex). */
HST_API HST_NODISCARD hst_result hst_scan_create(hst_backend *be, hst_dtype dtype, const char *scan,
                                                 const char *neutral, const char *preamble, hst_scan **out);
/* y[i] = the inclusive (exclusive = 0) or exclusive (exclusive = 1) scan of x[0 .. n-1];
   y may be x (in place). Both arrays of the scan's dtype, at least n elements, on its backend.
   Enqueued, not blocking. Errors: the argument checks above (x is argument 0, y argument 1),
   HST_ERROR_INVALID_ARGUMENT (scan made by another create function: BAD_STATE; exclusive not
   0 or 1), OpenCL codes. */
HST_API HST_NODISCARD hst_result hst_scan_run(hst_scan *s, const hst_array *x, hst_array *y, size_t n,
                                              int exclusive);
/* PyOpenCL's GenericScanKernel: values v(i) = `input` (an expression in i and the arguments)
   of dtype are scanned with `scan`, and for each i `output` (a statement) runs with item (the
   inclusive value at i) and prev_item (the exclusive one) in scope, besides i, n and the
   arguments: "y[i] = item;" makes an inclusive scan, "if (item != prev_item) out[prev_item] =
   x[i];" a compaction. Errors: as hst_scan_create's, and the list's (see above). */
HST_API HST_NODISCARD hst_result hst_scan_create_generic(hst_backend *be, hst_dtype dtype,
                                                         const char *arguments, const char *input,
                                                         const char *scan, const char *neutral,
                                                         const char *output, const char *preamble,
                                                         hst_scan **out);
/* Runs a generic scan over i = 0 .. n-1 (enqueued, not blocking). Errors: the argument checks,
   HST_ERROR_INVALID_ARGUMENT (a scan made by another create function: BAD_STATE). */
HST_API HST_NODISCARD hst_result hst_scan_run_generic(hst_scan *s, size_t n, size_t num_args,
                                                      const hst_alg_arg *args);
/* Stream compaction (pyopencl.algorithm.copy_if): y receives, in order, the x[i] for which
   `predicate` (an expression in i, x, n and the extra arguments: "x[i] > limit") is true, and
   *count how many. A generic scan of the predicate's 0/1 values (long, "a + b"): element i goes
   to y[prev_item]. x and y have the dtype (any of kernels.h's), y holds at least n elements
   (every element may pass); y past *count is left as it was. extra_arguments: NULL or a list
   of further parameters (not named x or y). Errors: as hst_scan_create_generic's. */
HST_API HST_NODISCARD hst_result hst_copy_if_create(hst_backend *be, hst_dtype dtype, const char *predicate,
                                                    const char *extra_arguments, const char *preamble,
                                                    hst_scan **out);
/* Compacts x[0 .. n-1] into y; *count the elements kept; blocks until *count is known. extra:
   num_extra arguments of the extra list. Errors: the argument checks (x is argument 0, y 1,
   the extras from 2), HST_ERROR_INVALID_ARGUMENT (count NULL; a scan made by another create
   function: BAD_STATE), OpenCL codes. */
HST_API HST_NODISCARD hst_result hst_copy_if_run(hst_scan *s, const hst_array *x, hst_array *y, size_t n,
                                                 size_t num_extra, const hst_alg_arg *extra, size_t *count);
HST_API void hst_scan_destroy(hst_scan *s);   /* NULL is ignored */

#ifdef __cplusplus
}
#endif
#endif /* HST_ALGORITHM_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_IMPLEMENTATION) && !defined(HST_ALGORITHM_IMPLEMENTATION)
#  define HST_ALGORITHM_IMPLEMENTATION
#endif
#if defined(HST_ALGORITHM_IMPLEMENTATION) && !defined(HST__ALGORITHM_IMPLEMENTED)
#define HST__ALGORITHM_IMPLEMENTED

#include <stdio.h>
#include <string.h>

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__GDEF HST_API __attribute__((unused))
#else
#  define HST__GDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>types ------------------------------------------------------------------------------------ */
#define HST__G_NAME_MAX 64
#define HST__G_SCAN_TILE (HST_SCAN_LOCAL * HST_SCAN_PER_ITEM)
#define HST__G_MAX_KERNELS 3

/* One parameter of an argument list. */
typedef struct hst__gparam {
    char name[HST__G_NAME_MAX];
    hst_dtype dtype;
    int pointer;            /* 1: an array (__global T *) */
    int is_const;           /* const before the type: __global const T * */
} hst__gparam;

/* What every generated kernel object holds: its backend, its parsed list, its program (a
   reference in the backend's cache) and its kernels. */
typedef struct hst__gen {
    hst_backend *be;
    unsigned num_params;
    hst__gparam params[HST_ALGORITHM_MAX_ARGS];
    hst_program *prog;
    hst_kernel *kernels[HST__G_MAX_KERNELS];
} hst__gen;

struct hst_elementwise { hst__gen g; size_t local; };
struct hst_reduction {
    hst__gen g;
    hst_dtype dtype;
    hst_buffer *partials;   /* HST_REDUCTION_GROUPS elements */
    hst_array *result;      /* one element: hst_reduction_run's */
};
enum { HST__SCAN_PLAIN = 1, HST__SCAN_GENERIC, HST__SCAN_COPY_IF };
struct hst_scan {
    hst__gen g;
    int kind;               /* HST__SCAN_*: which run function it takes */
    hst_dtype dtype;
    hst_buffer *totals, *carries;   /* HST_SCAN_GROUPS elements each */
};

/* Each dtype's name in argument lists and generated code (kernels.h's dtypes, one row each). */
static const struct { hst_dtype dtype; const char *cl; } hst__gtypes[] = {
    {HST_U8, "uchar"}, {HST_I8, "char"}, {HST_I16, "short"}, {HST_I32, "int"}, {HST_I64, "long"},
    {HST_F32, "float"}, {HST_F64, "double"}, {HST_C64, "cfloat_t"}, {HST_C128, "cdouble_t"}
};
#define HST__G_NUM_TYPES (sizeof hst__gtypes / sizeof hst__gtypes[0])

static const char *hst__gtype_cl(hst_dtype dt) {
    size_t k;
    for (k = 0; k < HST__G_NUM_TYPES; k++) if (hst__gtypes[k].dtype == dt) return hst__gtypes[k].cl;
    return NULL;
}

/* >>arguments -------------------------------------------------------------------------------- */
HST__GDEF hst_alg_arg hst_alg_array(const hst_array *a) {
    hst_alg_arg g;
    memset(&g, 0, sizeof g);
    g.array = a;
    g.dtype = a ? hst_array_dtype(a) : (hst_dtype)0;
    return g;
}

HST__GDEF hst_alg_arg hst_alg_scalar(hst_dtype dtype, hst_scalar value) {
    hst_alg_arg g;
    memset(&g, 0, sizeof g);
    g.dtype = dtype;
    g.value = value;
    return g;
}

/* >>argument lists --------------------------------------------------------------------------- */
static int hst__g_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int hst__g_ident_char(char c) { return hst__g_ident_start(c) || (c >= '0' && c <= '9'); }
static int hst__g_word_is(const char *w, size_t len, const char *lit) {
    return strlen(lit) == len && memcmp(w, lit, len) == 0;
}
static int hst__g_reserved(const char *name) {
    return !strcmp(name, "i") || !strcmp(name, "n") || !strcmp(name, "item") ||
           !strcmp(name, "prev_item") || !strncmp(name, "hst_", 4);
}

/* Parses one declaration, text[0 .. len), into *p. Returns NULL or what is wrong. */
static const char *hst__g_parse_decl(const char *text, size_t len, hst__gparam *p) {
    size_t at = 0, k;
    int have_type = 0, have_name = 0, stars = 0;
    memset(p, 0, sizeof *p);
    while (at < len) {
        const char *w = text + at;
        size_t wl = 0;
        if (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r') { at++; continue; }
        if (have_name) return "text after the name";
        if (text[at] == '*') {
            if (!have_type) return "'*' before the type";
            if (stars++) return "a pointer to a pointer";
            at++;
            continue;
        }
        if (!hst__g_ident_start(text[at])) return "a character that is not part of a declaration";
        while (at + wl < len && hst__g_ident_char(text[at + wl])) wl++;
        at += wl;
        if (hst__g_word_is(w, wl, "const")) { if (stars) return "const after '*'"; p->is_const = 1; continue; }
        if (hst__g_word_is(w, wl, "global") || hst__g_word_is(w, wl, "__global") ||
            hst__g_word_is(w, wl, "restrict") || hst__g_word_is(w, wl, "__restrict") ||
            hst__g_word_is(w, wl, "__restrict__"))
            continue;
        if (!have_type) {
            for (k = 0; k < HST__G_NUM_TYPES; k++)
                if (hst__g_word_is(w, wl, hst__gtypes[k].cl)) break;
            if (k == HST__G_NUM_TYPES) return "an unknown type (uchar char short int long float double cfloat_t cdouble_t)";
            p->dtype = hst__gtypes[k].dtype;
            have_type = 1;
            continue;
        }
        if (wl >= HST__G_NAME_MAX) return "a name longer than 63 characters";
        memcpy(p->name, w, wl);
        p->name[wl] = '\0';
        have_name = 1;
    }
    if (!have_type) return "no type";
    if (!have_name) return "no name";
    if (hst__g_reserved(p->name)) return "a name of the generated code's own (i, n, item, prev_item, hst_*)";
    p->pointer = stars;
    return NULL;
}

/* Parses list into g's parameters (appending to those already there). */
static hst_result hst__g_parse_list(hst__gen *g, const char *F, const char *what, const char *list) {
    const char *at = list, *end, *why;
    hst__gparam *p;
    size_t len;
    unsigned k;
    do {   /* every comma starts another declaration: "float *y," has an empty second */
        end = strchr(at, ',');
        len = end ? (size_t)(end - at) : strlen(at);
        p = &g->params[g->num_params];
        if (g->num_params == HST_ALGORITHM_MAX_ARGS)
            return hst__range_arg(g->be, F, "%s: more than %d parameters", what, HST_ALGORITHM_MAX_ARGS);
        if ((why = hst__g_parse_decl(at, len, p)) != NULL)
            return hst__bad_arg(g->be, F, "%s: parameter %u (\"%.*s\"): %s", what, g->num_params,
                                (int)(len > 200 ? 200 : len), at, why);
        for (k = 0; k < g->num_params; k++)
            if (!strcmp(g->params[k].name, p->name))
                return hst__bad_arg(g->be, F, "%s: parameter %u: the name %s is taken by parameter %u", what,
                                    g->num_params, p->name, k);
        if (hst_dtype_needs_fp64(p->dtype) && !hst_backend_device(g->be)->fp64)
            return hst_backend_fail(g->be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F,
                                    "%s: parameter %u (%s): %s needs fp64, which %s lacks", what, g->num_params,
                                    p->name, hst__gtype_cl(p->dtype), hst_backend_device(g->be)->name);
        g->num_params++;
        if (end) at = end + 1;
    } while (end);
    return HST_SUCCESS;
}

/* Checks the call's arguments against g's list and binds them into ka[0 .. num_params); vals
   holds the bytes of by-value scalars that have no karg kind of their own. */
typedef union hst__gval { uint8_t u8; int8_t i8; int16_t i16; float c64[2]; double c128[2]; } hst__gval;

/* An integer dtype's range (kernels.h's table of dtypes); 0, 0 for the others. */
static void hst__g_int_range(hst_dtype dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
#define HST__G_RANGE(d, name, bytes, cls, l, h) case d: *lo = (int64_t)(l); *hi = (int64_t)(h); break;
    HST__DTYPES(HST__G_RANGE)
#undef HST__G_RANGE
    default: break;
    }
}

static hst_result hst__g_bind_scalar(const hst__gen *g, const char *F, unsigned k, const hst_alg_arg *a,
                                     hst_karg *ka, hst__gval *val) {
    const hst__gparam *p = &g->params[k];
    int64_t lo = 0, hi = 0;
    if (a->array)
        return hst__bad_arg(g->be, F, "argument %u (%s) is a scalar %s: an array was passed", k, p->name,
                            hst__gtype_cl(p->dtype));
    if (a->dtype != p->dtype)
        return hst_backend_fail(g->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "argument %u (%s): a scalar of dtype %s, the list declares %s (%s)", k, p->name,
                                hst_dtype_name(a->dtype), hst__gtype_cl(p->dtype), hst_dtype_name(p->dtype));
    hst__g_int_range(p->dtype, &lo, &hi);
    if (hst_dtype_is_int(p->dtype) && (a->value.i64 < lo || a->value.i64 > hi))
        return hst__range_arg(g->be, F, "argument %u (%s): %lld does not fit %s", k, p->name,
                              (long long)a->value.i64, hst__gtype_cl(p->dtype));
    switch (p->dtype) {
    case HST_U8: val->u8 = (uint8_t)a->value.i64; *ka = hst_karg_value(1, &val->u8); break;
    case HST_I8: val->i8 = (int8_t)a->value.i64; *ka = hst_karg_value(1, &val->i8); break;
    case HST_I16: val->i16 = (int16_t)a->value.i64; *ka = hst_karg_value(2, &val->i16); break;
    case HST_I32: *ka = hst_karg_int((int32_t)a->value.i64); break;
    case HST_I64: *ka = hst_karg_long(a->value.i64); break;
    case HST_F32: *ka = hst_karg_float((float)a->value.re); break;
    case HST_F64: *ka = hst_karg_double(a->value.re); break;
    case HST_C64:
        val->c64[0] = (float)a->value.re; val->c64[1] = (float)a->value.im;
        *ka = hst_karg_value(sizeof val->c64, val->c64);
        break;
    default:
        val->c128[0] = a->value.re; val->c128[1] = a->value.im;
        *ka = hst_karg_value(sizeof val->c128, val->c128);
        break;
    }
    return HST_SUCCESS;
}

static hst_result hst__g_bind(const hst__gen *g, const char *F, size_t n, size_t num_args,
                              const hst_alg_arg *args, hst_karg *ka, hst__gval *vals) {
    unsigned k;
    if (n == 0) return hst__zero_arg(g->be, F, "n is 0");
    if (num_args != g->num_params)
        return hst__bad_arg(g->be, F, "num_args is %zu: the argument list declares %u", num_args, g->num_params);
    if (num_args && !args) return hst__null_arg(g->be, F, "args is NULL");
    for (k = 0; k < g->num_params; k++) {
        const hst__gparam *p = &g->params[k];
        const hst_array *a = args[k].array;
        hst_result r;
        if (!p->pointer) {
            if ((r = hst__g_bind_scalar(g, F, k, &args[k], &ka[k], &vals[k])) != HST_SUCCESS) return r;
            continue;
        }
        if (!a) return hst__bad_arg(g->be, F, "argument %u (%s) is an array of %s: no array was passed", k,
                                    p->name, hst__gtype_cl(p->dtype));
        if (hst_buffer_backend(hst_array_buffer(a)) != g->be)
            return hst_backend_fail(g->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "argument %u (%s): the array is on another backend", k, p->name);
        if (hst_array_dtype(a) != p->dtype)
            return hst_backend_fail(g->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "argument %u (%s): an array of dtype %s, the list declares %s (%s)", k,
                                    p->name, hst_dtype_name(hst_array_dtype(a)), hst__gtype_cl(p->dtype),
                                    hst_dtype_name(p->dtype));
        if (hst_array_count(a) < n)
            return hst_backend_fail(g->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                    "argument %u (%s): the array holds %zu elements, fewer than n = %zu", k,
                                    p->name, hst_array_count(a), n);
        ka[k] = hst_karg_buffer(hst_array_buffer(a));
    }
    return HST_SUCCESS;
}

/* >>source ----------------------------------------------------------------------------------- */
/* A growing string in the backend's memory; a failed append leaves `failed` set (checked once,
   at the end). */
typedef struct hst__gsrc { const hst_backend *be; char *text; size_t len, cap; int failed; } hst__gsrc;

static void hst__gs_add(hst__gsrc *s, const char *piece) {
    size_t add = strlen(piece), need, cap = s->cap ? s->cap : 4096;
    char *grown;
    if (s->failed) return;
    if (!hst_size_add(s->len, add + 1, &need)) { s->failed = 1; return; }
    while (cap < need)
        if (!hst_size_mul(cap, 2, &cap)) { s->failed = 1; return; }
    if (cap != s->cap) {
        if (!(grown = (char *)hst_backend_alloc(s->be, cap))) { s->failed = 1; return; }
        if (s->len) memcpy(grown, s->text, s->len);
        hst_backend_free(s->be, s->text);
        s->text = grown;
        s->cap = cap;
    }
    memcpy(s->text + s->len, piece, add + 1);
    s->len += add;
}

/* The head of every generated program: exact arithmetic, the complex helpers (one template,
   instantiated per complex type; cdouble_t where the device has fp64), the caller's preamble. */
static const char hst__g_head_src[] =
"/* generated by halostream's algorithm.h */\n"
"#pragma OPENCL FP_CONTRACT OFF\n"
"#define HST_G_COMPLEX(c, r) \\\n"
"typedef r##2 c##_t; \\\n"
"c##_t c##_new(r re, r im) { return (c##_t)(re, im); } \\\n"
"r c##_real(c##_t z) { return z.x; } \\\n"
"r c##_imag(c##_t z) { return z.y; } \\\n"
"c##_t c##_conj(c##_t z) { return (c##_t)(z.x, -z.y); } \\\n"
"c##_t c##_mul(c##_t z, c##_t w) { return (c##_t)(z.x * w.x - z.y * w.y, z.x * w.y + z.y * w.x); } \\\n"
"c##_t c##_rmul(r s, c##_t z) { return (c##_t)(s * z.x, s * z.y); } \\\n"
"r c##_abs2(c##_t z) { return z.x * z.x + z.y * z.y; }\n"
"HST_G_COMPLEX(cfloat, float)\n";

static void hst__gs_head(hst__gsrc *s, const hst_backend *be, const char *preamble) {
    hst__gs_add(s, hst__g_head_src);
    if (hst_backend_device(be)->fp64)
        hst__gs_add(s, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nHST_G_COMPLEX(cdouble, double)\n");
    if (preamble) { hst__gs_add(s, preamble); hst__gs_add(s, "\n"); }
}

/* The kernel's parameters: g's list, then `tail` (the generated code's own). */
static void hst__gs_params(hst__gsrc *s, const hst__gen *g, const char *tail) {
    unsigned k;
    for (k = 0; k < g->num_params; k++) {
        const hst__gparam *p = &g->params[k];
        if (p->pointer) hst__gs_add(s, p->is_const ? "__global const " : "__global ");
        hst__gs_add(s, hst__gtype_cl(p->dtype));
        hst__gs_add(s, p->pointer ? " *" : " ");
        hst__gs_add(s, p->name);
        hst__gs_add(s, ", ");
    }
    hst__gs_add(s, tail);
}

/* `typedef <dtype> hst_t;`, the neutral element and the operator (a, b). */
static void hst__gs_operator(hst__gsrc *s, hst_dtype dt, const char *neutral, const char *op) {
    hst__gs_add(s, "typedef ");
    hst__gs_add(s, hst__gtype_cl(dt));
    hst__gs_add(s, " hst_t;\nhst_t hst_g_neutral(void) { return (");
    hst__gs_add(s, neutral);
    hst__gs_add(s, "); }\nhst_t hst_g_op(hst_t a, hst_t b) { return (");
    hst__gs_add(s, op);
    hst__gs_add(s, "); }\n");
}

/* >>objects ---------------------------------------------------------------------------------- */
/* What every create does first: the strings present, be, out; then the list parsed. */
static hst_result hst__g_start(hst__gen *g, hst_backend *be, const char *F, const char *const *strings,
                               const char *const *names, unsigned num_strings) {
    unsigned k;
    g->be = be;
    for (k = 0; k < num_strings; k++) {
        if (!strings[k]) return hst__null_arg(be, F, "%s is NULL", names[k]);
        if (!*strings[k]) return hst__zero_arg(be, F, "%s is empty", names[k]);
    }
    return HST_SUCCESS;
}

/* Host device refusal (see the top), after the arguments were checked. */
static hst_result hst__g_device(const hst__gen *g, const char *F) {
    if (!hst_backend_is_host(g->be)) return HST_SUCCESS;
    return hst_backend_fail(g->be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F,
                            "the host device runs no generated kernels (no OpenCL C compiler, and "
                            "no expression evaluator by design): select an OpenCL device "
                            "(HST_DEVICE=cpu for PoCL)");
}

/* Builds s's text (through the backend's program cache) and makes the named kernels; frees the
   text. */
static hst_result hst__g_build(hst__gen *g, const char *F, hst__gsrc *s, const char *const *kernels,
                               unsigned num_kernels, size_t need_local) {
    hst_result r = HST_SUCCESS;
    unsigned k;
    const char *text = s->text;
    if (s->failed) {
        hst_backend_free(g->be, s->text);
        return hst_backend_fail(g->be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, F,
                                "the generated source");
    }
    r = hst_program_build(g->be, 1, &text, NULL, &g->prog);
    hst_backend_free(g->be, s->text);
    s->text = NULL;
    for (k = 0; r == HST_SUCCESS && k < num_kernels; k++) {
        hst_kernel_wg_info wg;
        if ((r = hst_kernel_create(g->prog, kernels[k], &g->kernels[k])) != HST_SUCCESS) break;
        if (need_local && (r = hst_kernel_work_group_info(g->kernels[k], &wg)) == HST_SUCCESS &&
            wg.work_group_size < need_local)
            r = hst_backend_fail(g->be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F,
                                 "%s runs work-groups of at most %zu work-items; the fixed order needs %zu",
                                 kernels[k], wg.work_group_size, need_local);
    }
    return r;
}

static void hst__g_release(hst__gen *g) {
    unsigned k;
    for (k = 0; k < HST__G_MAX_KERNELS; k++) hst_kernel_destroy(g->kernels[k]);
    hst_program_release(g->prog);
}

/* A launch of kernel `which` over global work-items in groups of local (0: the default). */
static hst_result hst__g_launch(const hst__gen *g, unsigned which, size_t global, size_t local,
                                size_t num_args, const hst_karg *args) {
    hst_range range;
    memset(&range, 0, sizeof range);
    range.dims = 1;
    range.global[0] = global;
    range.local[0] = local;
    return hst_kernel_run(hst_backend_queue(g->be), g->kernels[which], &range, num_args, args, 0, NULL, NULL);
}

/* want, or kernel 0's most work-items a group where the device says it is fewer. */
static size_t hst__g_local(const hst__gen *g, size_t want) {
    hst_kernel_wg_info wg;
    if (hst_kernel_work_group_info(g->kernels[0], &wg) != HST_SUCCESS || wg.work_group_size == 0) return want;
    return wg.work_group_size < want ? wg.work_group_size : want;
}

/* Scratch of count elements of dt from the backend's pool. */
static hst_result hst__g_scratch(hst_backend *be, const char *F, hst_dtype dt, size_t count, hst_buffer **out) {
    size_t bytes;
    if (!hst_size_mul(count, hst_dtype_size(dt), &bytes))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F, "scratch of %zu elements", count);
    return hst_pool_alloc(hst_backend_pool(be), bytes, out);
}

/* >>elementwise ------------------------------------------------------------------------------ */
HST__GDEF hst_result hst_elementwise_create(hst_backend *be, const char *arguments, const char *operation,
                                          const char *preamble, hst_elementwise **out) {
    static const char *F = "hst_elementwise_create";
    static const char *const names[2] = {"arguments", "operation"};
    static const char *const kernels[1] = {"hst_g_elementwise"};
    const char *strings[2];
    hst_elementwise *k;
    hst__gsrc s;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (!(k = (hst_elementwise *)hst_backend_calloc(be, sizeof *k))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    strings[0] = arguments; strings[1] = operation;
    if ((r = hst__g_start(&k->g, be, F, strings, names, 2)) == HST_SUCCESS &&
        (r = hst__g_parse_list(&k->g, F, "arguments", arguments)) == HST_SUCCESS &&
        (r = hst__g_device(&k->g, F)) == HST_SUCCESS) {
        memset(&s, 0, sizeof s);
        s.be = be;
        hst__gs_head(&s, be, preamble);
        hst__gs_add(&s, "__kernel void hst_g_elementwise(");
        hst__gs_params(&s, &k->g, "ulong n)\n{\n  const ulong hst_step = get_global_size(0);\n"
                       "  ulong i = get_global_id(0);\n"
                       "  for (uint hst_k = 0; hst_k < " HST__KXSTR(HST_ELEMENTWISE_PER_ITEM) "; hst_k++, i += hst_step) {\n"
                       "    if (i < n) {\n");
        hst__gs_add(&s, operation);
        hst__gs_add(&s, ";\n    }\n  }\n}\n");
        r = hst__g_build(&k->g, F, &s, kernels, 1, 0);
    }
    if (r == HST_SUCCESS) k->local = hst__g_local(&k->g, HST_ELEMENTWISE_LOCAL);
    if (r != HST_SUCCESS) { hst_elementwise_destroy(k); return r; }
    *out = k;
    return HST_SUCCESS;
}

HST__GDEF hst_result hst_elementwise_run(hst_elementwise *k, size_t n, size_t num_args, const hst_alg_arg *args) {
    static const char *F = "hst_elementwise_run";
    size_t items, last;
    hst_karg ka[HST_ALGORITHM_MAX_ARGS + 1];
    hst__gval vals[HST_ALGORITHM_MAX_ARGS];
    hst_result r;
    if (!k) return hst__null_arg(NULL, F, "k is NULL");
    if ((r = hst__g_bind(&k->g, F, n, num_args, args, ka, vals)) != HST_SUCCESS) return r;
    ka[num_args] = hst_karg_ulong((uint64_t)n);
    /* ceil(n / PER_ITEM) work-items in whole groups; the kernel's indices, up to PER_ITEM
       global sizes, must fit its ulong */
    items = n / HST_ELEMENTWISE_PER_ITEM + (n % HST_ELEMENTWISE_PER_ITEM != 0);
    items = (items / k->local + (items % k->local != 0)) * k->local;
    if (!hst_size_mul(items, HST_ELEMENTWISE_PER_ITEM, &last))
        return hst_backend_fail(k->g.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "n = %zu: the launch range overflows", n);
    return hst__g_launch(&k->g, 0, items, k->local, num_args + 1, ka);
}

HST__GDEF void hst_elementwise_destroy(hst_elementwise *k) {
    if (!k) return;
    hst__g_release(&k->g);
    hst_backend_free(k->g.be, k);
}

/* >>reduction -------------------------------------------------------------------------------- */
/* A dtype for a generated operator: one of kernels.h's, on a device that can hold it. */
static hst_result hst__g_dtype(const hst_backend *be, const char *F, hst_dtype dt, int allow_complex) {
    if (!hst__gtype_cl(dt)) return hst__range_arg(be, F, "dtype %d is not an hst_dtype", (int)dt);
    if (!allow_complex && hst_dtype_is_complex(dt))
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "dtype %s: scans take integers "
                                "and real floats", hst_dtype_name(dt));
    if (hst_dtype_needs_fp64(dt) && !hst_backend_device(be)->fp64)
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, F, "dtype %s needs fp64, which %s lacks",
                                hst_dtype_name(dt), hst_backend_device(be)->name);
    return HST_SUCCESS;
}

/* The local-memory tree of the fixed order (hst_reduction's step 2). */
static const char hst__g_reduce_src[] =
"#define HST_G_LOCAL " HST__KXSTR(HST_REDUCTION_LOCAL) "\n"
"#define HST_G_GROUPS " HST__KXSTR(HST_REDUCTION_GROUPS) "\n"
"void hst_g_tree(__local hst_t *lm, uint lid)\n"
"{\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (uint s = HST_G_LOCAL / 2; s > 0; s >>= 1) {\n"
"    if (lid < s) lm[lid] = hst_g_op(lm[lid], lm[lid + s]);\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"  }\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_G_LOCAL, 1, 1)))\n"
"void hst_g_reduce_final(__global const hst_t *hst_partials, __global hst_t *hst_out)\n"
"{\n"
"  __local hst_t hst_lm[HST_G_LOCAL];\n"
"  uint hst_lid = get_local_id(0);\n"
"  hst_t hst_acc = hst_g_neutral();\n"
"  for (uint j = hst_lid; j < HST_G_GROUPS; j += HST_G_LOCAL) hst_acc = hst_g_op(hst_acc, hst_partials[j]);\n"
"  hst_lm[hst_lid] = hst_acc;\n"
"  hst_g_tree(hst_lm, hst_lid);\n"
"  if (hst_lid == 0) hst_out[0] = hst_lm[0];\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_G_LOCAL, 1, 1)))\n"
"void hst_g_reduce_partials(";
/* Step 1 of the order: a lane's fold, HST__G_UNROLL indices a round (their map values first,
   so that their loads are in flight together, then folded in index order: the same order and
   bits as one at a time), then the rest one at a time. */
#define HST__G_UNROLL 4
static const char hst__g_reduce_body[] =
"ulong n, __global hst_t *hst_partials)\n"
"{\n"
"  __local hst_t hst_lm[HST_G_LOCAL];\n"
"  uint hst_lid = get_local_id(0), hst_u;\n"
"  const ulong hst_step = (ulong)HST_G_LOCAL * HST_G_GROUPS;\n"
"  ulong hst_i = (ulong)get_group_id(0) * HST_G_LOCAL + hst_lid;\n"
"  hst_t hst_acc = hst_g_neutral(), hst_v[" HST__KXSTR(HST__G_UNROLL) "];\n"
"  for (; hst_i + (" HST__KXSTR(HST__G_UNROLL) " - 1) * hst_step < n; hst_i += " HST__KXSTR(HST__G_UNROLL) " * hst_step) {\n"
"    for (hst_u = 0; hst_u < " HST__KXSTR(HST__G_UNROLL) "; hst_u++) {\n"
"      ulong i = hst_i + hst_u * hst_step;\n"
"      hst_v[hst_u] = (";
static const char hst__g_reduce_fold[] =
");\n"
"    }\n"
"    for (hst_u = 0; hst_u < " HST__KXSTR(HST__G_UNROLL) "; hst_u++) hst_acc = hst_g_op(hst_acc, hst_v[hst_u]);\n"
"  }\n"
"  for (ulong i = hst_i; i < n; i += hst_step)\n"
"    hst_acc = hst_g_op(hst_acc, (";

HST__GDEF hst_result hst_reduction_create(hst_backend *be, hst_dtype dtype, const char *neutral,
                                        const char *reduce, const char *map, const char *arguments,
                                        const char *preamble, hst_reduction **out) {
    static const char *F = "hst_reduction_create";
    static const char *const names[4] = {"neutral", "reduce", "map", "arguments"};
    static const char *const kernels[2] = {"hst_g_reduce_partials", "hst_g_reduce_final"};
    const char *strings[4];
    hst_reduction *red;
    hst__gsrc s;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (!(red = (hst_reduction *)hst_backend_calloc(be, sizeof *red))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    red->dtype = dtype;
    strings[0] = neutral; strings[1] = reduce; strings[2] = map; strings[3] = arguments;
    if ((r = hst__g_start(&red->g, be, F, strings, names, 4)) == HST_SUCCESS &&
        (r = hst__g_dtype(be, F, dtype, 1)) == HST_SUCCESS &&
        (r = hst__g_parse_list(&red->g, F, "arguments", arguments)) == HST_SUCCESS &&
        (r = hst__g_device(&red->g, F)) == HST_SUCCESS) {
        size_t one = 1;
        memset(&s, 0, sizeof s);
        s.be = be;
        hst__gs_head(&s, be, preamble);
        hst__gs_operator(&s, dtype, neutral, reduce);
        hst__gs_add(&s, hst__g_reduce_src);
        hst__gs_params(&s, &red->g, hst__g_reduce_body);
        hst__gs_add(&s, map);
        hst__gs_add(&s, hst__g_reduce_fold);
        hst__gs_add(&s, map);
        hst__gs_add(&s, "));\n  hst_lm[hst_lid] = hst_acc;\n  hst_g_tree(hst_lm, hst_lid);\n"
                        "  if (hst_lid == 0) hst_partials[get_group_id(0)] = hst_lm[0];\n}\n");
        if ((r = hst__g_build(&red->g, F, &s, kernels, 2, HST_REDUCTION_LOCAL)) == HST_SUCCESS &&
            (r = hst__g_scratch(be, F, dtype, HST_REDUCTION_GROUPS, &red->partials)) == HST_SUCCESS)
            r = hst_array_create(be, dtype, 1, &one, &red->result);
    }
    if (r != HST_SUCCESS) { hst_reduction_destroy(red); return r; }
    *out = red;
    return HST_SUCCESS;
}

/* Both steps: the partials, then element 0 of out. */
static hst_result hst__g_reduce(hst_reduction *red, const char *F, size_t n, size_t num_args,
                                const hst_alg_arg *args, hst_array *out) {
    hst_karg ka[HST_ALGORITHM_MAX_ARGS + 2], fin[2];
    hst__gval vals[HST_ALGORITHM_MAX_ARGS];
    hst_result r;
    size_t end;
    if ((r = hst__g_bind(&red->g, F, n, num_args, args, ka, vals)) != HST_SUCCESS) return r;
    /* a lane's last index plus the lanes' stride must not wrap (it would never reach n) */
    if (!hst_size_add(n, (size_t)HST__G_UNROLL * HST_REDUCTION_GROUPS * HST_REDUCTION_LOCAL, &end))
        return hst_backend_fail(red->g.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "n = %zu: the lanes' indices overflow size_t", n);
    ka[num_args] = hst_karg_ulong((uint64_t)n);
    ka[num_args + 1] = hst_karg_buffer(red->partials);
    fin[0] = hst_karg_buffer(red->partials);
    fin[1] = hst_karg_buffer(hst_array_buffer(out));
    if ((r = hst__g_launch(&red->g, 0, (size_t)HST_REDUCTION_GROUPS * HST_REDUCTION_LOCAL, HST_REDUCTION_LOCAL,
                           num_args + 2, ka)) != HST_SUCCESS)
        return r;
    return hst__g_launch(&red->g, 1, HST_REDUCTION_LOCAL, HST_REDUCTION_LOCAL, 2, fin);
}

HST__GDEF hst_result hst_reduction_run(hst_reduction *red, size_t n, size_t num_args, const hst_alg_arg *args,
                                     void *result, size_t result_bytes) {
    static const char *F = "hst_reduction_run";
    hst_result r;
    if (!red) return hst__null_arg(NULL, F, "red is NULL");
    if (!result) return hst__null_arg(red->g.be, F, "result is NULL");
    if (result_bytes != hst_dtype_size(red->dtype))
        return hst__bad_arg(red->g.be, F, "result_bytes is %zu: a %s element takes %zu", result_bytes,
                            hst_dtype_name(red->dtype), hst_dtype_size(red->dtype));
    if ((r = hst__g_reduce(red, F, n, num_args, args, red->result)) != HST_SUCCESS) return r;
    return hst_array_read(red->result, result, result_bytes);
}

HST__GDEF hst_result hst_reduction_run_to(hst_reduction *red, size_t n, size_t num_args, const hst_alg_arg *args,
                                        hst_array *out) {
    static const char *F = "hst_reduction_run_to";
    if (!red) return hst__null_arg(NULL, F, "red is NULL");
    if (!out) return hst__null_arg(red->g.be, F, "out is NULL");
    if (hst_array_dtype(out) != red->dtype || hst_buffer_backend(hst_array_buffer(out)) != red->g.be)
        return hst_backend_fail(red->g.be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                                "out: an array of %s on the reduction's backend is needed (it is %s%s)",
                                hst_dtype_name(red->dtype), hst_dtype_name(hst_array_dtype(out)),
                                hst_array_dtype(out) == red->dtype ? ", on another backend" : "");
    return hst__g_reduce(red, F, n, num_args, args, out);
}

HST__GDEF void hst_reduction_destroy(hst_reduction *red) {
    if (!red) return;
    hst_array_destroy(red->result);
    if (red->partials) hst_buffer_destroy(red->partials);
    hst__g_release(&red->g);
    hst_backend_free(red->g.be, red);
}

/* >>scan ------------------------------------------------------------------------------------- */
/* The fixed order's tile scan (see hst_scan_create's comment) and the chunks' carries. */
static const char hst__g_scan_src[] =
"#define HST_G_LOCAL " HST__KXSTR(HST_SCAN_LOCAL) "\n"
"#define HST_G_GROUPS " HST__KXSTR(HST_SCAN_GROUPS) "\n"
"#define HST_G_PER " HST__KXSTR(HST_SCAN_PER_ITEM) "\n"
"#define HST_G_RAKE " HST__KXSTR(HST_SCAN_RAKE) "\n"
"#define HST_G_TILE (HST_G_LOCAL * HST_G_PER)\n"
"#define HST_G_SEG (HST_G_LOCAL / HST_G_RAKE)\n"
"/* Local slot of tile element j: one pad word per 32, so that work-item t's run of HST_G_PER\n"
"   (stride HST_G_PER across work-items) does not fall into the same local memory banks; of run\n"
"   total t, one per segment, for the same reason across the rakers. */\n"
"#define HST_G_PAD(j) ((j) + ((j) >> 5))\n"
"#define HST_G_SLOTS HST_G_PAD(HST_G_TILE)\n"
"#define HST_G_PART(t) ((t) + (t) / HST_G_SEG)\n"
"#define HST_G_PARTS (HST_G_PART(HST_G_LOCAL) + HST_G_RAKE + 1)\n"
"/* The runs' totals: work-item t folds its HST_G_PER elements serially (in place when scan is\n"
"   set) into part; then raker r < HST_G_RAKE folds (scans, when scan is set) its segment of\n"
"   HST_G_SEG run totals serially; the segments' totals go to part's tail. Two barriers. */\n"
"void hst_g_tile_runs(__local hst_t *tile, __local hst_t *part, int scan)\n"
"{\n"
"  uint lid = get_local_id(0), k, run = lid * HST_G_PER, seg = HST_G_PART(lid * HST_G_SEG);\n"
"  hst_t acc = tile[HST_G_PAD(run)];\n"
"  for (k = 1; k < HST_G_PER; k++) {\n"
"    acc = hst_g_op(acc, tile[HST_G_PAD(run + k)]);\n"
"    if (scan) tile[HST_G_PAD(run + k)] = acc;\n"
"  }\n"
"  part[HST_G_PART(lid)] = acc;\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  if (lid < HST_G_RAKE) {\n"
"    acc = part[seg];\n"
"    for (k = 1; k < HST_G_SEG; k++) {\n"
"      acc = hst_g_op(acc, part[seg + k]);\n"
"      if (scan) part[seg + k] = acc;\n"
"    }\n"
"    part[HST_G_PART(HST_G_LOCAL) + lid] = acc;\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"}\n"
"/* The tile's total after carry, ((carry op S[0]) op S[1]) ... op S[RAKE-1] over the segments'\n"
"   totals: right in work-item 0 only (the others' is garbage); ends without a barrier. */\n"
"hst_t hst_g_tile_total(__local hst_t *tile, __local hst_t *part, hst_t carry)\n"
"{\n"
"  uint k;\n"
"  hst_g_tile_runs(tile, part, 0);\n"
"  if (get_local_id(0) == 0)\n"
"    for (k = 0; k < HST_G_RAKE; k++) carry = hst_g_op(carry, part[HST_G_PART(HST_G_LOCAL) + k]);\n"
"  return carry;\n"
"}\n"
"/* Scans tile (HST_G_TILE values) in place after carry: element k of run t in segment r becomes\n"
"   (c[r] op p[t-1]) op r[k] (c[r] op r[k] for a segment's first run), with c[r] the carry\n"
"   folded with the segments' totals before r (as hst_g_tile_total), p the segment's scanned\n"
"   run totals, r the run's scan; returns the tile's total after carry; ends with a barrier. */\n"
"hst_t hst_g_tile_scan(__local hst_t *tile, __local hst_t *part, hst_t carry)\n"
"{\n"
"  uint lid = get_local_id(0), k, run = lid * HST_G_PER;\n"
"  __local hst_t *c = part + HST_G_PART(HST_G_LOCAL);\n"
"  hst_t pre;\n"
"  hst_g_tile_runs(tile, part, 1);\n"
"  if (lid == 0) {\n"
"    for (k = 0; k < HST_G_RAKE; k++) { hst_t s = c[k]; c[k] = carry; carry = hst_g_op(carry, s); }\n"
"    c[HST_G_RAKE] = carry;\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  pre = lid % HST_G_SEG ? hst_g_op(c[lid / HST_G_SEG], part[HST_G_PART(lid - 1)]) : c[lid / HST_G_SEG];\n"
"  for (k = 0; k < HST_G_PER; k++) tile[HST_G_PAD(run + k)] = hst_g_op(pre, tile[HST_G_PAD(run + k)]);\n"
"  carry = c[HST_G_RAKE];\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  return carry;\n"
"}\n"
"__kernel __attribute__((reqd_work_group_size(HST_G_LOCAL, 1, 1)))\n"
"void hst_g_scan_carries(__global const hst_t *hst_totals, __global hst_t *hst_carries)\n"
"{\n"
"  __local hst_t hst_tile[HST_G_SLOTS];\n"
"  __local hst_t hst_part[HST_G_PARTS];\n"
"  uint lid = get_local_id(0), k, j;\n"
"  for (k = 0; k < HST_G_PER; k++) {\n"
"    j = lid + HST_G_LOCAL * k;\n"
"    hst_tile[HST_G_PAD(j)] = j < HST_G_GROUPS ? hst_totals[j] : hst_g_neutral();\n"
"  }\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  (void)hst_g_tile_scan(hst_tile, hst_part, hst_g_neutral());\n"
"  for (k = 0; k < HST_G_PER; k++) {\n"
"    j = lid + HST_G_LOCAL * k;\n"
"    if (j < HST_G_GROUPS) hst_carries[j] = j > 0 ? hst_tile[HST_G_PAD(j - 1)] : hst_g_neutral();\n"
"  }\n"
"}\n";
/* The two passes over the data: the kernel header's parameter tail, then (after the caller's
   input expression) the tile loop's middle; hst_g_scan_apply adds the output statement. */
static const char hst__g_scan_tail_totals[] =
"ulong n, ulong hst_chunk, __global hst_t *hst_totals)\n";
static const char hst__g_scan_tail_apply[] =
"ulong n, ulong hst_chunk, __global const hst_t *hst_carries)\n";
static const char hst__g_scan_load[] =
"{\n"
"  __local hst_t hst_tile[HST_G_SLOTS];\n"
"  __local hst_t hst_part[HST_G_PARTS];\n"
"  uint hst_lid = get_local_id(0), hst_k;\n"
"  ulong hst_begin = (ulong)get_group_id(0) * hst_chunk;\n"
"  ulong hst_end = min(hst_begin + hst_chunk, n);\n"
"  hst_t hst_carry = HST_G_CARRY_IN;\n"
"  for (ulong hst_base = hst_begin; hst_base < hst_end; hst_base += HST_G_TILE) {\n"
"    hst_t hst_before = hst_carry;\n"
"    for (hst_k = 0; hst_k < HST_G_PER; hst_k++) {\n"
"      ulong i = hst_base + hst_lid + HST_G_LOCAL * hst_k;\n"
"      hst_t hst_v = hst_g_neutral();\n"
"      if (i < hst_end) hst_v = (";
static const char hst__g_scan_scan[] =
");\n"
"      hst_tile[HST_G_PAD(hst_lid + HST_G_LOCAL * hst_k)] = hst_v;\n"
"    }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    hst_carry = HST_G_TILE_STEP(hst_tile, hst_part, hst_carry);\n"
"    (void)hst_before;\n";
static const char hst__g_scan_end_totals[] =
"  }\n"
"  if (hst_lid == 0) hst_totals[get_group_id(0)] = hst_carry;\n"
"}\n";
static const char hst__g_scan_out[] =
"    for (hst_k = 0; hst_k < HST_G_PER; hst_k++) {\n"
"      uint hst_j = hst_lid + HST_G_LOCAL * hst_k;\n"
"      ulong i = hst_base + hst_j;\n"
"      if (i < hst_end) {\n"
"        hst_t item = hst_tile[HST_G_PAD(hst_j)];\n"
"        hst_t prev_item = hst_j > 0 ? hst_tile[HST_G_PAD(hst_j - 1)] : hst_before;\n"
"        (void)item; (void)prev_item;\n";
static const char hst__g_scan_end_apply[] =
";\n"
"      }\n"
"    }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"  }\n"
"}\n";

/* Makes a scan object: dtype, the list, the three kernels from input, scan, neutral, output. */
static hst_result hst__g_scan_make(hst_backend *be, const char *F, int kind, hst_dtype dtype,
                                   const char *arguments, const char *input, const char *scan,
                                   const char *neutral, const char *output, const char *preamble,
                                   hst_scan **out) {
    static const char *const names[5] = {"arguments", "input", "scan", "neutral", "output"};
    static const char *const kernels[3] = {"hst_g_scan_totals", "hst_g_scan_carries", "hst_g_scan_apply"};
    const char *strings[5];
    hst_scan *sc;
    hst__gsrc s;
    hst_result r;
    if (!(sc = (hst_scan *)hst_backend_calloc(be, sizeof *sc))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    sc->kind = kind;
    sc->dtype = dtype;
    strings[0] = arguments; strings[1] = input; strings[2] = scan; strings[3] = neutral; strings[4] = output;
    if ((r = hst__g_start(&sc->g, be, F, strings, names, 5)) == HST_SUCCESS &&
        (r = hst__g_dtype(be, F, dtype, 0)) == HST_SUCCESS &&
        (r = hst__g_parse_list(&sc->g, F, "arguments", arguments)) == HST_SUCCESS &&
        (r = hst__g_device(&sc->g, F)) == HST_SUCCESS) {
        memset(&s, 0, sizeof s);
        s.be = be;
        hst__gs_head(&s, be, preamble);
        hst__gs_operator(&s, dtype, neutral, scan);
        hst__gs_add(&s, hst__g_scan_src);
        hst__gs_add(&s, "#define HST_G_CARRY_IN hst_g_neutral()\n"
                        "#define HST_G_TILE_STEP hst_g_tile_total\n"
                        "__kernel __attribute__((reqd_work_group_size(HST_G_LOCAL, 1, 1)))\n"
                        "void hst_g_scan_totals(");
        hst__gs_params(&s, &sc->g, hst__g_scan_tail_totals);
        hst__gs_add(&s, hst__g_scan_load);
        hst__gs_add(&s, input);
        hst__gs_add(&s, hst__g_scan_scan);
        hst__gs_add(&s, hst__g_scan_end_totals);
        hst__gs_add(&s, "#undef HST_G_CARRY_IN\n#define HST_G_CARRY_IN hst_carries[get_group_id(0)]\n"
                        "#undef HST_G_TILE_STEP\n#define HST_G_TILE_STEP hst_g_tile_scan\n"
                        "__kernel __attribute__((reqd_work_group_size(HST_G_LOCAL, 1, 1)))\n"
                        "void hst_g_scan_apply(");
        hst__gs_params(&s, &sc->g, hst__g_scan_tail_apply);
        hst__gs_add(&s, hst__g_scan_load);
        hst__gs_add(&s, input);
        hst__gs_add(&s, hst__g_scan_scan);
        hst__gs_add(&s, hst__g_scan_out);
        hst__gs_add(&s, output);
        hst__gs_add(&s, hst__g_scan_end_apply);
        if ((r = hst__g_build(&sc->g, F, &s, kernels, 3, HST_SCAN_LOCAL)) == HST_SUCCESS &&
            (r = hst__g_scratch(be, F, dtype, HST_SCAN_GROUPS, &sc->totals)) == HST_SUCCESS)
            r = hst__g_scratch(be, F, dtype, HST_SCAN_GROUPS, &sc->carries);
    }
    if (r != HST_SUCCESS) { hst_scan_destroy(sc); return r; }
    *out = sc;
    return HST_SUCCESS;
}

HST__GDEF hst_result hst_scan_create_generic(hst_backend *be, hst_dtype dtype, const char *arguments,
                                           const char *input, const char *scan, const char *neutral,
                                           const char *output, const char *preamble, hst_scan **out) {
    static const char *F = "hst_scan_create_generic";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    return hst__g_scan_make(be, F, HST__SCAN_GENERIC, dtype, arguments, input, scan, neutral, output,
                            preamble, out);
}

HST__GDEF hst_result hst_scan_create(hst_backend *be, hst_dtype dtype, const char *scan, const char *neutral,
                                   const char *preamble, hst_scan **out) {
    static const char *F = "hst_scan_create";
    char list[64];
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if ((r = hst__g_dtype(be, F, dtype, 0)) != HST_SUCCESS) return r;
    snprintf(list, sizeof list, "const %s *x, %s *y, int exclusive", hst__gtype_cl(dtype), hst__gtype_cl(dtype));
    return hst__g_scan_make(be, F, HST__SCAN_PLAIN, dtype, list, "x[i]", scan, neutral,
                            "y[i] = exclusive ? prev_item : item", preamble, out);
}

HST__GDEF hst_result hst_copy_if_create(hst_backend *be, hst_dtype dtype, const char *predicate,
                                      const char *extra_arguments, const char *preamble, hst_scan **out) {
    static const char *F = "hst_copy_if_create";
    char *list, *input;
    size_t list_bytes, input_bytes;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if ((r = hst__g_dtype(be, F, dtype, 1)) != HST_SUCCESS) return r;
    if (!predicate) return hst__null_arg(be, F, "predicate is NULL");
    if (!*predicate) return hst__zero_arg(be, F, "predicate is empty");
    if (!extra_arguments) extra_arguments = "";
    if (!hst_size_add(strlen(extra_arguments), 64, &list_bytes) || !hst_size_add(strlen(predicate), 16, &input_bytes))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F, "the strings' lengths");
    list = (char *)hst_backend_alloc(be, list_bytes);
    input = (char *)hst_backend_alloc(be, input_bytes);
    if (list && input) {
        /* x and y keep the dtype (complex too): the scan itself counts in long */
        snprintf(list, list_bytes, "const %s *x, %s *y%s%s", hst__gtype_cl(dtype), hst__gtype_cl(dtype),
                 *extra_arguments ? ", " : "", extra_arguments);
        snprintf(input, input_bytes, "(%s) ? 1 : 0", predicate);
        r = hst__g_scan_make(be, F, HST__SCAN_COPY_IF, HST_I64, list, input, "a + b", "0",
                             "if (item != prev_item) y[prev_item] = x[i]", preamble, out);
    } else {
        r = HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    hst_backend_free(be, list);
    hst_backend_free(be, input);
    return r;
}

/* The three passes over i = 0 .. n-1; ka holds the bound list's arguments (num_args of them)
   and room for three more. */
static hst_result hst__g_scan_run(hst_scan *sc, const char *F, size_t n, size_t num_args, hst_karg *ka) {
    static const size_t tiles_all = (size_t)HST_SCAN_GROUPS * HST__G_SCAN_TILE;
    size_t chunk, global = (size_t)HST_SCAN_GROUPS * HST_SCAN_LOCAL, end;
    hst_karg mid[2];
    hst_result r;
    /* chunk = TILE * ceil(n / (GROUPS * TILE)); the last group's end, GROUPS * chunk, < n + GROUPS * TILE */
    if (!hst_size_add(n, tiles_all, &end))
        return hst_backend_fail(sc->g.be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                                "n = %zu: the chunks' ends overflow size_t", n);
    chunk = (n / tiles_all + (n % tiles_all != 0)) * HST__G_SCAN_TILE;
    ka[num_args] = hst_karg_ulong((uint64_t)n);
    ka[num_args + 1] = hst_karg_ulong((uint64_t)chunk);
    ka[num_args + 2] = hst_karg_buffer(sc->totals);
    mid[0] = hst_karg_buffer(sc->totals);
    mid[1] = hst_karg_buffer(sc->carries);
    if ((r = hst__g_launch(&sc->g, 0, global, HST_SCAN_LOCAL, num_args + 3, ka)) != HST_SUCCESS ||
        (r = hst__g_launch(&sc->g, 1, HST_SCAN_LOCAL, HST_SCAN_LOCAL, 2, mid)) != HST_SUCCESS)
        return r;
    ka[num_args + 2] = hst_karg_buffer(sc->carries);
    return hst__g_launch(&sc->g, 2, global, HST_SCAN_LOCAL, num_args + 3, ka);
}

static hst_result hst__g_scan_kind(const hst_scan *sc, const char *F, int kind) {
    static const char *const makers[4] = {"", "hst_scan_create", "hst_scan_create_generic", "hst_copy_if_create"};
    if (sc->kind == kind) return HST_SUCCESS;
    return hst__state_arg(sc->g.be, F, "s was made by %s: run it with its own run function", makers[sc->kind]);
}

HST__GDEF hst_result hst_scan_run(hst_scan *s, const hst_array *x, hst_array *y, size_t n, int exclusive) {
    static const char *F = "hst_scan_run";
    hst_karg ka[6];
    hst__gval vals[3];
    hst_alg_arg args[3];
    hst_result r;
    if (!s) return hst__null_arg(NULL, F, "s is NULL");
    if ((r = hst__g_scan_kind(s, F, HST__SCAN_PLAIN)) != HST_SUCCESS) return r;
    if (exclusive != 0 && exclusive != 1) return hst__range_arg(s->g.be, F, "exclusive is %d, not 0 or 1", exclusive);
    args[0] = hst_alg_array(x);
    args[1] = hst_alg_array(y);
    args[2] = hst_alg_scalar(HST_I32, hst_int(exclusive));
    if ((r = hst__g_bind(&s->g, F, n, 3, args, ka, vals)) != HST_SUCCESS) return r;
    return hst__g_scan_run(s, F, n, 3, ka);
}

HST__GDEF hst_result hst_scan_run_generic(hst_scan *s, size_t n, size_t num_args, const hst_alg_arg *args) {
    static const char *F = "hst_scan_run_generic";
    hst_karg ka[HST_ALGORITHM_MAX_ARGS + 3];
    hst__gval vals[HST_ALGORITHM_MAX_ARGS];
    hst_result r;
    if (!s) return hst__null_arg(NULL, F, "s is NULL");
    if ((r = hst__g_scan_kind(s, F, HST__SCAN_GENERIC)) != HST_SUCCESS) return r;
    if ((r = hst__g_bind(&s->g, F, n, num_args, args, ka, vals)) != HST_SUCCESS) return r;
    return hst__g_scan_run(s, F, n, num_args, ka);
}

HST__GDEF hst_result hst_copy_if_run(hst_scan *s, const hst_array *x, hst_array *y, size_t n, size_t num_extra,
                                   const hst_alg_arg *extra, size_t *count) {
    static const char *F = "hst_copy_if_run";
    static const size_t last = (HST_SCAN_GROUPS - 1) * sizeof(int64_t);
    hst_karg ka[HST_ALGORITHM_MAX_ARGS + 3];
    hst__gval vals[HST_ALGORITHM_MAX_ARGS];
    hst_alg_arg args[HST_ALGORITHM_MAX_ARGS];
    int64_t total = 0, carry = 0;
    size_t k;
    hst_result r;
    if (!s) return hst__null_arg(NULL, F, "s is NULL");
    if ((r = hst__g_scan_kind(s, F, HST__SCAN_COPY_IF)) != HST_SUCCESS) return r;
    if (!count) return hst__null_arg(s->g.be, F, "count is NULL");
    if (num_extra != s->g.num_params - 2)
        return hst__bad_arg(s->g.be, F, "num_extra is %zu: the extra list declares %u", num_extra, s->g.num_params - 2);
    if (num_extra && !extra) return hst__null_arg(s->g.be, F, "extra is NULL");
    args[0] = hst_alg_array(x);
    args[1] = hst_alg_array(y);
    for (k = 0; k < num_extra; k++) args[2 + k] = extra[k];
    /* the count: the last chunk's carry-in plus its total (exact: integers) */
    if ((r = hst__g_bind(&s->g, F, n, num_extra + 2, args, ka, vals)) != HST_SUCCESS ||
        (r = hst__g_scan_run(s, F, n, num_extra + 2, ka)) != HST_SUCCESS ||
        (r = hst_read(hst_backend_queue(s->g.be), s->totals, last, &total, sizeof total, 1, 0, NULL, NULL)) != HST_SUCCESS ||
        (r = hst_read(hst_backend_queue(s->g.be), s->carries, last, &carry, sizeof carry, 1, 0, NULL, NULL)) != HST_SUCCESS)
        return r;
    *count = (size_t)(total + carry);
    return HST_SUCCESS;
}

HST__GDEF void hst_scan_destroy(hst_scan *s) {
    if (!s) return;
    if (s->totals) hst_buffer_destroy(s->totals);
    if (s->carries) hst_buffer_destroy(s->carries);
    hst__g_release(&s->g);
    hst_backend_free(s->g.be, s);
}

#ifdef __cplusplus
}
#endif
#endif /* HST_ALGORITHM_IMPLEMENTATION */

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
