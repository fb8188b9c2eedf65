/* backend.h — halostream's device shim: devices, contexts, queues and events, memory (buffers,
   pinned memory, the pool, images, SVM), programs and launches, results and logging, the same on
   the host device and on every OpenCL device. Single-file, header-only, C99 (and C++). The
   other headers sit on it: array.h (typed arrays, the vocabulary, FFTs), choice.h (choice among
   implementations by measured speed), stream.h, halo.h and esrrf.h; it knows none of them (they
   keep their state on a backend through its extensions, see the end of the declarations).

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.)

   Usage (a round trip of 1 MiB through whichever device HST_DEVICE or `auto` picks):

       hst_backend_desc desc = {0};               // zero means every documented default
       hst_backend *be; hst_buffer *buf;
       static unsigned char src[1 << 20], dst[1 << 20];
       if (hst_backend_create(&desc, &be) != HST_SUCCESS) return 1;
       printf("%s\n", hst_backend_device(be)->name);
       hst_result r = hst_buffer_create(be, sizeof src, HST_MEM_READ_WRITE, &buf);
       if (r == HST_SUCCESS) {                     // every hst_result is looked at (HST_NODISCARD)
           r = hst_write(hst_backend_queue(be), buf, 0, src, sizeof src, 1, 0, NULL, NULL);
           if (r == HST_SUCCESS) r = hst_read(hst_backend_queue(be), buf, 0, dst, sizeof dst, 1, 0, NULL, NULL);
           hst_buffer_destroy(buf);                // r == HST_SUCCESS: dst now equals src
       }
       if (hst_backend_destroy(be) != HST_SUCCESS || r != HST_SUCCESS) return 1;
       // cc -std=c99 app.c -lOpenCL -lm

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_BACKEND_IMPLEMENTATION             the implementation TU: compile backend.h's body only
     HST_NO_OPENCL                          every TU: the host device alone; no OpenCL headers
                                            or loader needed (buffers are host memory)
     HST_STATIC                             every TU: all functions `static` (embed twice)
     HST_SHARED                             every TU: the library is a shared library (a DLL):
                                            built from one TU that defines HST_IMPLEMENTATION,
                                            whose functions are then exported
                                            (__declspec(dllexport); elsewhere: default
                                            visibility, so -fvisibility=hidden exports the API
                                            alone), and imported by the TUs that use it
                                            (__declspec(dllimport) on Windows)
     HST_API                                every TU: the declaration prefix (default `extern`)
     HST_NODISCARD                          every TU: the mark on functions whose hst_result
                                            must be used (default: GCC/Clang's
                                            warn_unused_result; define it empty to drop it)
     CL_TARGET_OPENCL_VERSION               every TU: the OpenCL API version the headers
                                            expose (default 300)

   Environment: HST_DEVICE (selector when the desc leaves it empty), HST_LOG (error, warn, info,
   debug: the default logger's level), HST_CACHE_DIR (program binary cache; default
   $XDG_CACHE_HOME/halostream, else $HOME/.cache/halostream; `off` disables the disk cache).

   What it does NOT do: it does not fall back silently (every fallback is logged once, with the
   reason); it never calls clFinish behind your back in an enqueue-style call; it does not make one
   backend safe to use from two threads at once (use one backend per thread; functions that touch
   no backend, such as hst_devices and hst_result_string, are thread-safe); it does not run OpenCL
   kernels on the host device (the host device runs the host C twins from kernels.h instead); it
   has no array semantics (array.h) and makes no choices by speed (choice.h).

   Thread safety. Every public function's comment ends with one of these classes:
     thread-safe    any thread, any time, concurrently with any call.
     while alive    thread-safe, except against destroying the object it takes (or that
                    object's backend): it reads only what is fixed when the object is made.
     per object     must not overlap another call on the same object (a kernel, stream, halo
                    plan or exchanger) unless that call is thread-safe or while alive; calls
                    on other objects, even of the same backend, may run meanwhile.
     per backend    must not overlap another per-backend call on the same backend, nor a
                    per-object call on an object it takes; a backend's queues, buffers, pools,
                    images, samplers, programs, kernels, arrays, choice ops, streams and halo
                    plans count as the backend. Different backends may be used from different
                    threads at once; a call that uses several backends (a stream over several
                    devices, choice implementations on other devices) is per backend on each.
   The logger, the allocator and the callbacks a call is given run on the calling thread, except
   that on the host device a room that splits a kernel's work over threads (nufft.h's spreading)
   launches the parts from its worker threads, and a part's __local scratch comes from the
   allocator there: a logger or allocator that overlapping calls on several threads can reach
   must be thread-safe (malloc and the default stderr logger are). The environment is read with getenv: do not
   change it while other threads call the library. The program cache directory may be shared by
   threads and processes (unique temporary files renamed into place); so may choice.h's timings
   file (see there).

   fork(). An OpenCL implementation keeps threads that fork() does not copy into the child: a
   child that runs OpenCL work after its parent initialised OpenCL waits for ever (PoCL's
   device threads start when it lists its devices; the child's commands queue up behind threads
   that do not exist). So the library records which process first called OpenCL through it (its
   first device listing, hst_device_select or backend), and in a child made by fork() without
   exec (Python multiprocessing's default start method on Linux) it never calls OpenCL:
     - hst_devices lists the host device alone; `auto` and an empty selector (HST_DEVICE unset)
       take the host device, with a warning (HST_LOGITEM_FORKED); any other selector that
       matches no host device ("gpu", "cpu", "0:0", a name) fails with HST_ERROR_FORKED, the
       log (FORKED) naming both processes' ids; so does wrapping an OpenCL context;
     - every call on an OpenCL backend, queue, buffer, image, sampler, program, kernel or event
       inherited from the parent returns HST_ERROR_FORKED (logged likewise) without touching
       OpenCL; destroying or releasing one frees the child's memory and calls no OpenCL;
     - the host device works as in any process: backends made in the child, and host device
       backends inherited from the parent (their memory is the child's copy).
   A process that execs (posix_spawn, Python's "spawn" start method) starts afresh: every device
   works there. OpenCL that the application initialised without the library is not seen. Windows
   has no fork(): none of this applies there.

   Reference: the public functions by section of the declarations (cgltf's list is the model).
     Results          hst_result_string hst_result_is_out_of_memory hst_hash_bytes
     Logging          hst_log_item_name hst_time_s
     Devices          hst_devices hst_device_select
     Backend          hst_backend_create hst_backend_destroy hst_backend_hold
                      hst_backend_release_hold hst_backend_holds hst_backend_device
                      hst_backend_is_host hst_backend_queue hst_backend_pool
                      hst_backend_device_bytes hst_backend_alloc hst_backend_free hst_backend_log
                      hst_backend_cl_context hst_backend_cl_device
     Queues, events   hst_queue_create hst_queue_create_desc hst_queue_profiling hst_queue_destroy
                      hst_queue_flush hst_queue_finish hst_queue_barrier hst_queue_cl
                      hst_event_wait hst_event_release hst_event_retain hst_event_cl
                      hst_event_from_cl hst_event_status hst_event_profile hst_user_event_create
                      hst_user_event_set hst_event_set_callback hst_queue_marker
     Memory           hst_buffer_create hst_buffer_create_sub hst_pinned_create hst_buffer_wrap
                      hst_buffer_destroy hst_buffer_bytes hst_buffer_host_ptr hst_buffer_backend
                      hst_buffer_serial hst_buffer_cl hst_buffer_from_cl hst_fill hst_write hst_read hst_copy
                      hst_write_rect hst_read_rect hst_copy_rect hst_map hst_unmap hst_migrate
                      hst_svm_alloc hst_svm_free hst_svm_map hst_svm_unmap hst_svm_copy
                      hst_svm_fill hst_svm_migrate
     Images           hst_image_from_array hst_image_create hst_image_destroy hst_image_pixel_bytes
                      hst_image_get_info
                      hst_image_format_channels hst_image_format_pixel_bytes
                      hst_supported_image_formats hst_image_write
                      hst_image_read hst_image_copy hst_image_to_buffer hst_buffer_to_image
                      hst_image_fill hst_image_map hst_image_map_enqueue hst_image_unmap hst_sampler_create
                      hst_sampler_create_props hst_sampler_get_info hst_sampler_destroy
                      hst_buffer_get_info_raw hst_image_get_info_raw hst_sampler_get_info_raw
                      hst_image_cl hst_sampler_cl hst_image_from_cl hst_sampler_from_cl
     Memory pool      hst_pool_create hst_pool_destroy hst_pool_alloc hst_pool_free_held
                      hst_pool_get_stats hst_pool_bin_bytes
     Programs         hst_program_build hst_program_release hst_kernel_create hst_kernel_destroy
                      hst_kernel_set_arg hst_kernel_set_buffer hst_kernel_set_image
                      hst_kernel_set_sampler hst_kernel_set_svm hst_launch hst_launch_offset
                      hst_kernel_work_group_info
     Declared kernels hst_karg_buffer hst_karg_local hst_karg_int hst_karg_uint hst_karg_long
                      hst_karg_ulong hst_karg_float hst_karg_double hst_karg_value hst_karg_image
                      hst_karg_sampler hst_karg_ptr hst_launch_kernel hst_family_kernel
                      hst_kernel_run hst_kernel_signature hst_karg_kind_word
     Extensions       hst_backend_attach hst_backend_extension hst_backend_fail
                      hst_backend_interrupt hst_backend_interrupt_clear hst_backend_interrupted
                      hst_backend_lock hst_backend_unlock
                      hst_backend_calloc hst_backend_cache_dir hst_backend_device_limit
                      hst_size_mul hst_size_add hst_hash_final hst_temp_name hst_buffer_create_view
                      hst_buffer_root hst_backend_cl_platform hst_test_device_wrap
                      hst_test_device_count hst_test_device_op_name hst_test_device_reset
     OS shim          hst_thread_create hst_thread_join hst_mutex_init hst_mutex_destroy
                      hst_mutex_lock hst_mutex_unlock hst_cond_init hst_cond_destroy
                      hst_cond_wait hst_cond_signal hst_cond_broadcast hst_rmutex_init
                      hst_rmutex_destroy hst_rmutex_lock hst_rmutex_unlock hst_once hst_atomic_add
                      hst_cpu_count hst_parallel hst_parallel_memcpy hst_parallel_memset
                      hst_physical_memory_bytes hst_process_id
                      hst_user_id hst_mkdirs hst_rename_replace hst_file_lock_acquire
                      hst_file_lock_release

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_BACKEND_H
#define HST_BACKEND_H

#define HST_VERSION_MAJOR 0
#define HST_VERSION_MINOR 1
#define HST_VERSION_PATCH 0
#define HST_VERSION_STRING "0.1.0"

#ifndef HST_API
#  if defined(HST_STATIC)
#    define HST_API static
#  elif defined(HST_SHARED) && defined(_WIN32)
#    if defined(HST_IMPLEMENTATION)
#      define HST_API __declspec(dllexport)
#    else
#      define HST_API __declspec(dllimport)
#    endif
#  elif defined(HST_SHARED) && (defined(__GNUC__) || defined(__clang__))
#    define HST_API extern __attribute__((visibility("default")))
#  else
#    define HST_API extern
#  endif
#endif

/* HST_NODISCARD marks a function whose hst_result must be looked at: GCC and Clang warn
   (-Wunused-result, on by default) where a call drops it; other compilers ignore it. */
#ifndef HST_NODISCARD
#  if defined(__GNUC__) || defined(__clang__)
#    define HST_NODISCARD __attribute__((warn_unused_result))
#  else
#    define HST_NODISCARD
#  endif
#endif

/* The library's printf-style functions take C99 conversions (%zu, %llu) everywhere:
   HST__PRINTF(f, a) has the compiler check a call's format (string at f, arguments from a) and
   HST__VSNPRINTF formats. mingw-w64's "printf" would be msvcrt's, which lacks %zu: there the
   check is gnu_printf and the formatter mingw-w64's own C99 one, whatever the build's
   __USE_MINGW_ANSI_STDIO. MSVC's CRT (2015 and later) is C99 already. */
#if defined(__MINGW32__)
#  define HST__PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#  define HST__VSNPRINTF __mingw_vsnprintf
#elif defined(__GNUC__) || defined(__clang__)
#  define HST__PRINTF(f, a) __attribute__((format(printf, f, a)))
#  define HST__VSNPRINTF vsnprintf
#else
#  define HST__PRINTF(f, a)
#  define HST__VSNPRINTF vsnprintf
#endif

#if defined(HST_IMPLEMENTATION) && !defined(HST_BACKEND_IMPLEMENTATION)
#  define HST_BACKEND_IMPLEMENTATION
#endif

#include <stddef.h>
#include <stdint.h>
#include "kernels.h"   /* hst_dtype, hst_scalar, the vocabulary sources and their host twins */

#ifndef HST_NO_OPENCL
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  if defined(__APPLE__)
#    include <OpenCL/opencl.h>
#  else
#    include <CL/cl.h>
#  endif
#endif

/* The POSIX half of the OS shim (see "OS shim" below): the thread types. Windows' half keeps
   <windows.h> out of the declarations (its types are pointer-sized opaque words). */
#if !defined(_WIN32)
#  include <pthread.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Results. 0 is success; OpenCL error codes pass through unchanged (negative, -1 .. -1xxx); the
   library's own codes live below HST_ERROR_BASE, far from any OpenCL or vendor code. */
typedef int hst_result;
/* X(NAME, value): the library's own results, HST_<NAME>; the enum and hst_result_string's
   names are made from this one list (see HST_LOGITEM_LIST for the pattern). */
#define HST_RESULT_LIST(X) \
    X(SUCCESS, 0) \
    X(ERROR_INVALID_ARGUMENT, -20001)   /* NULL, zero size, out of range: the log names it */ \
    X(ERROR_OVERFLOW, -20002)           /* a size overflows size_t, or a result its float */ \
    X(ERROR_OUT_OF_HOST_MEMORY, -20003) /* the allocator returned NULL */ \
    X(ERROR_OUT_OF_DEVICE_MEMORY, -20004) /* over the device's limits or the caller's budget */ \
    X(ERROR_NO_DEVICE, -20005)          /* the selector matched no device */ \
    X(ERROR_UNSUPPORTED, -20006)        /* the device lacks the feature (fp64, SVM, images) */ \
    X(ERROR_DTYPE, -20007)              /* the operation is not defined for this dtype */ \
    X(ERROR_SHAPE, -20008)              /* arguments' shapes, dtypes or backends disagree */ \
    X(ERROR_ALIGNMENT, -20009)          /* a sub-buffer origin breaks MEM_BASE_ADDR_ALIGN */ \
    X(ERROR_IO, -20010)                 /* the disk cache could not be read or written */ \
    X(ERROR_CANCELLED, -20011)          /* a progress callback asked to stop */ \
    X(ERROR_NON_FINITE, -20012)         /* input data holds NaN or Inf: the log says where */ \
    X(ERROR_NOT_BUILT_IN, -20013)       /* an opt-in part (FFTs: HST_FFT) was not compiled */ \
    X(ERROR_FORKED, -20014)             /* OpenCL in a child of fork(): see the top */ \
    X(ERROR_MISMATCH, -20015)           /* an output disagrees with the reference (choice.h) */
#define HST__RESULT_ENUM(name, value) HST_##name = value,
enum {
    HST_RESULT_LIST(HST__RESULT_ENUM)
    HST_ERROR_BASE = -20000             /* every code of the library's own is below it */
};
#undef HST__RESULT_ENUM

/* The name of a result ("HST_ERROR_OVERFLOW", "CL_OUT_OF_RESOURCES", ...); never NULL.
   Thread-safe. */
HST_API const char *hst_result_string(hst_result r);
/* 1 when r means out of memory on the device (ours or OpenCL's allocation-failure codes).
   Thread-safe. */
HST_API int hst_result_is_out_of_memory(hst_result r);

/* 64-bit FNV-1a over n bytes, continuing from h (start from HST_HASH_SEED): the library's hash
   for keys that must be the same in every process (program cache entries, the timings file's
   checksum, stream.h's split operation names). Not for security. Thread-safe. */
#define HST_HASH_SEED 0xcbf29ce484222325ULL
HST_API uint64_t hst_hash_bytes(uint64_t h, const void *data, size_t n);

/* ---------------------------------------------------------------------------------------------
   Logging. Every rejected argument, device choice, fallback and build log goes to the logger.
   Item ids are stable (tests assert on them); messages are for humans. */
typedef enum hst_log_level {
    HST_LOG_ERROR = 1, HST_LOG_WARN = 2, HST_LOG_INFO = 3, HST_LOG_DEBUG = 4
} hst_log_level;

/* X(NAME): every log item, HST_LOGITEM_<NAME>, in id order (ids are stable: new items go at
   the end); the enum and hst_log_item_name's names ("BAD_ARGUMENT") are made from this one list
   (sokol's log-item X-macro). Rejections log the finest item that fits: NULL_ARGUMENT,
   ZERO_SIZE, OUT_OF_RANGE, SIZE_OVERFLOW, SHAPE_MISMATCH, BAD_STATE, else BAD_ARGUMENT; all of
   them return HST_ERROR_INVALID_ARGUMENT unless the call documents another code. */
#define HST_LOGITEM_LIST(X) \
    X(NONE) \
    X(BAD_ARGUMENT)          /* an argument was rejected; the message names it */ \
    X(SIZE_OVERFLOW)         /* a size multiplication overflowed */ \
    X(NO_PLATFORM)           /* no OpenCL platform: the host device serves (logged once) */ \
    X(DEVICE_CHOSEN)         /* which device a selector picked, and why */ \
    X(NO_MATCHING_DEVICE)    /* the selector matched nothing */ \
    X(CL_ERROR)              /* an OpenCL call failed; the message names the call */ \
    X(BUILD_FAILED)          /* program build failed; the message carries the build log */ \
    X(BUILD_WARNINGS)        /* program built, with a non-empty build log */ \
    X(CACHE_HIT)             /* a program binary came from the disk cache */ \
    X(CACHE_CORRUPT)         /* a disk cache entry was unreadable: treated as a miss */ \
    X(CACHE_WRITE_FAILED)    /* the disk cache could not be written (build still succeeds) */ \
    X(OUT_OF_HOST_MEMORY)    /* the allocator returned NULL */ \
    X(OUT_OF_DEVICE_MEMORY)  /* a device allocation failed or would exceed a limit */ \
    X(POOL_RELEASED_HELD)    /* the pool freed held blocks to retry an allocation */ \
    X(UNSUPPORTED)           /* the device lacks a feature */ \
    X(DTYPE)                 /* an operation was asked of a dtype it does not support */ \
    X(SHAPE_MISMATCH)        /* shapes, dtypes or backends of arguments disagree */ \
    X(MISALIGNED)            /* a sub-buffer origin is not aligned */ \
    X(CHOICE_CHANGED)        /* the implementation chosen for a signature changed */ \
    X(CHOICE_FAILED)         /* an implementation failed: skipped for that signature */ \
    X(CHOICE_SPLIT)          /* out of memory: the call was split into parts */ \
    X(CHOICE_FORCED)         /* an operation always runs one implementation (desc, env) */ \
    X(CHOICE_FILE_IGNORED)   /* the timings file is corrupt or foreign: ignored (once) */ \
    X(CHOICE_EXCLUDED)       /* testing: an output disagreed with the reference's: excluded */ \
    X(NON_FINITE)            /* input data holds NaN or Inf; the message says where */ \
    X(NOT_BUILT_IN)          /* an opt-in part was called but not compiled (FFTs: HST_FFT) */ \
    X(FFT_LIBRARY)           /* FFTW or VkFFT refused a plan; the message has its code */ \
    X(RANK_FAILED)           /* another MPI rank failed: this rank returns its code too */ \
    X(NULL_ARGUMENT)         /* a pointer argument is NULL; the message names it */ \
    X(ZERO_SIZE)             /* a size, count or extent is 0 where one is needed */ \
    X(OUT_OF_RANGE)          /* a value or range lies outside what the argument allows */ \
    X(BAD_STATE)             /* the object is in a state that does not allow the call */ \
    X(FORKED)                /* a child of fork() refused OpenCL, or auto took the host */
#define HST__LOGITEM_ENUM(name) HST_LOGITEM_##name,
typedef enum hst_log_item {
    HST_LOGITEM_LIST(HST__LOGITEM_ENUM)
    HST_LOGITEM_COUNT
} hst_log_item;
#undef HST__LOGITEM_ENUM

/* Called with the level, the item id and a NUL-terminated message (valid during the call). */
typedef void (*hst_log_fn)(void *user, hst_log_level level, hst_log_item item,
                           const char *message);
/* "BAD_ARGUMENT", ...; never NULL. Thread-safe. */
HST_API const char *hst_log_item_name(hst_log_item item);

/* Seconds on a monotonic clock (CLOCK_MONOTONIC where the build exposes it, else wall time
   from gettimeofday; on Windows QueryPerformanceCounter), for timing work. Thread-safe. */
HST_API double hst_time_s(void);

/* Host allocator override: both set or both NULL (then malloc/free). alloc returns memory
   aligned for any type (as malloc) or NULL; bytes is never 0. */
typedef struct hst_allocator {
    void *(*alloc)(size_t bytes, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} hst_allocator;

/* ---------------------------------------------------------------------------------------------
   Devices. The list holds every device of every OpenCL platform, in platform then device order,
   followed by the host device (always present). */
typedef enum hst_device_type {
    HST_DEVICE_HOST = 1, HST_DEVICE_CPU, HST_DEVICE_GPU, HST_DEVICE_ACCELERATOR, HST_DEVICE_OTHER
} hst_device_type;

enum { HST_SVM_COARSE = 1, HST_SVM_FINE = 2, HST_SVM_FINE_SYSTEM = 4, HST_SVM_ATOMICS = 8 };

typedef struct hst_device_info {
    char selector[32];            /* "P:D" (platform and device index) or "host" */
    int platform_index, device_index;   /* -1 for the host device */
    hst_device_type type;
    int unified_memory;           /* shares memory with the host: CPU or integrated GPU */
    char name[256], vendor[128], platform_name[256];
    char version[128], driver_version[128];
    unsigned compute_units;
    uint64_t global_mem_bytes, max_alloc_bytes, local_mem_bytes;
    size_t max_work_group_size;
    unsigned mem_base_addr_align_bytes;  /* sub-buffer origins must be multiples of this */
    int fp64;                     /* f64 arrays and kernels available */
    int images;                   /* image support */
    int correctly_rounded_sqrt;   /* f32 sqrt/divide can be built correctly rounded */
    unsigned svm;                 /* HST_SVM_* bits; 0: none */
} hst_device_info;

/* Lists devices: out may be NULL (then only *count is set); at most `capacity` entries are
   written, *count receives the total. No OpenCL platform is not an error: the list then holds
   the host device alone (as in a child of fork(): see "fork()" at the top). Errors:
   HST_ERROR_INVALID_ARGUMENT (count NULL). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_devices(hst_device_info *out, size_t capacity, size_t *count);

/* Resolves a selector to one device. selector NULL or "" means $HST_DEVICE, else "auto".
   auto: a discrete GPU, else an integrated GPU, else an accelerator, else the OpenCL CPU device,
         else the host device (ties: the most global memory, then list order);
   gpu, cpu, host: the first device of that kind in the same preference order (host lists no
         OpenCL platform: no driver is loaded, none of its threads or memory);
   "P:D": platform P, device D; anything else: a case-insensitive substring of the device name,
   the vendor or the platform name ("nvidia", "h200", "portable").
   why (may be NULL) receives a one-line reason. Errors: HST_ERROR_NO_DEVICE (nothing matched;
   the reason says what was available), HST_ERROR_FORKED (in a child of fork(), a selector
   other than the host device's or auto: see "fork()" at the top), HST_ERROR_INVALID_ARGUMENT
   (out NULL). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_device_select(const char *selector, hst_device_info *out,
                                                   char *why, size_t why_bytes);

/* ---------------------------------------------------------------------------------------------
   Backend: one device, its context, a default in-order queue, a program cache and a pool. */
typedef struct hst_backend hst_backend;
typedef struct hst_queue hst_queue;
typedef struct hst_buffer hst_buffer;
typedef struct hst_pool hst_pool;
typedef struct hst_program hst_program;
typedef struct hst_kernel hst_kernel;
typedef struct hst_image hst_image;
typedef struct hst_sampler hst_sampler;

/* An event (a command's, a marker's, a user event): the library's own handle on every build and
   device. An OpenCL device's event is OpenCL's, carried without a copy (hst_event_cl and
   hst_event_from_cl convert); a host device event is the library's (see "Events" below). */
typedef struct hst__event *hst_event;

typedef struct hst_backend_desc {
    const char *device;            /* selector (see hst_device_select); NULL: $HST_DEVICE/auto */
    hst_log_fn logger;             /* NULL: warnings and errors to stderr ($HST_LOG sets level) */
    void *log_user;
    hst_log_level log_level;       /* 0: everything for a custom logger, $HST_LOG or WARN else */
    hst_allocator allocator;       /* host allocations of the library; zero: malloc/free */
    const char *cache_dir;         /* NULL: $HST_CACHE_DIR, else the XDG cache directory */
    int no_disk_cache;             /* 1: keep built programs in memory only */
    uint64_t device_memory_limit_bytes; /* cap on this backend's live device bytes; 0: none */
#ifndef HST_NO_OPENCL
    cl_context wrap_context;       /* bring your own: with wrap_queue set, the backend wraps */
    cl_command_queue wrap_queue;   /* them (retained on create, released on destroy) */
#endif
} hst_backend_desc;

/* Creates a backend on the selected device. Errors: HST_ERROR_NO_DEVICE, HST_ERROR_FORKED (an
   OpenCL device or context in a child of fork(): see "fork()" at the top), OpenCL codes from
   context/queue creation, HST_ERROR_OUT_OF_HOST_MEMORY, HST_ERROR_INVALID_ARGUMENT (out NULL,
   only one of wrap_context/wrap_queue set, allocator half-set). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_backend_create(const hst_backend_desc *desc, hst_backend **out);
/* Releases everything the backend created (programs, pool, queues); NULL is ignored
   (HST_SUCCESS). Arrays, buffers and kernels must be destroyed first. It runs the extensions'
   destroy hooks first (choice.h saves its timings there). While an object still holds the
   backend (hst_backend_hold: a stream, a live eSRRF session) it frees nothing and returns
   HST_ERROR_INVALID_ARGUMENT, the log (BAD_STATE) naming the holder: destroy that object first,
   then call this again.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_backend_destroy(hst_backend *be);
/* Holds: objects that keep using a backend across calls (stream.h's streams, esrrf.h's live
   sessions) hold it from their creation to their destruction, so that destroying the backend
   under them is refused (above) instead of freeing what they use. holder is the object (its
   address is the key; one hold per holder), what its kind for the log ("hst_stream"; a string
   that outlives the hold). Errors of hold: HST_ERROR_INVALID_ARGUMENT (be, holder or what NULL;
   holder already holding it), HST_ERROR_OUT_OF_HOST_MEMORY. Releasing a holder that holds
   nothing does nothing. hst_backend_holds: the number of holds (0 for NULL).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_backend_hold(hst_backend *be, const void *holder, const char *what);
HST_API void hst_backend_release_hold(hst_backend *be, const void *holder);
HST_API unsigned hst_backend_holds(const hst_backend *be);
/* The device, whether it is the host device, the default queue, the pool.
   Thread safety: while alive. */
HST_API const hst_device_info *hst_backend_device(const hst_backend *be);
HST_API int hst_backend_is_host(const hst_backend *be);
HST_API hst_queue *hst_backend_queue(hst_backend *be);  /* the default in-order queue */
HST_API hst_pool *hst_backend_pool(hst_backend *be);    /* the pool arrays allocate from */
/* Live device bytes allocated through this backend (pool-held blocks included).
   Thread safety: per backend. */
HST_API uint64_t hst_backend_device_bytes(const hst_backend *be);
/* Host memory through the backend's allocator (desc.allocator, else malloc), for the other
   headers and for callers who want their allocations to go where the library's go: bytes > 0;
   NULL (logged as HST_LOGITEM_OUT_OF_HOST_MEMORY) when it fails. Free with hst_backend_free.
   Thread safety: while alive. */
HST_API void *hst_backend_alloc(const hst_backend *be, size_t bytes);
HST_API void hst_backend_free(const hst_backend *be, void *ptr);
/* printf-style message through the backend's logger (be NULL: the default stderr logger),
   filtered by its level. Thread safety: while alive (be NULL: thread-safe). */
HST_API void hst_backend_log(const hst_backend *be, hst_log_level level, hst_log_item item,
                             const char *fmt, ...);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_context hst_backend_cl_context(const hst_backend *be);      /* NULL on host */
HST_API cl_device_id hst_backend_cl_device(const hst_backend *be);     /* NULL on host */
#endif

/* ---------------------------------------------------------------------------------------------
   Queues and events. Enqueue-style calls take (queue, ..., num_wait, wait, out): `wait` lists
   events that must complete first, `out` (may be NULL) receives an event for this command that
   the caller releases with hst_event_release. On the host device work completes before the call
   returns and *out is NULL, except on profiling queues and for markers (see "Events" below).
   Nothing waits unless the call says "blocking". */
/* Another in-order queue on the backend's device: commands on different queues may overlap
   (copy engines and compute), ordered only through events. Errors: OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_queue_create(hst_backend *be, hst_queue **out);
/* A queue's properties; zero means the default (hst_queue_create's queue). */
typedef struct hst_queue_desc {
    int profiling;   /* 1: commands' events record profiling times (CL_QUEUE_PROFILING_ENABLE;
                        on the host device, host clock times): hst_event_profile */
} hst_queue_desc;
/* hst_queue_create with properties (desc NULL: the defaults). Errors: as hst_queue_create.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_queue_create_desc(hst_backend *be, const hst_queue_desc *desc,
                                                       hst_queue **out);
/* 1 when the queue records profiling times (desc.profiling, or the backend's default queue when
   it wraps a queue created with CL_QUEUE_PROFILING_ENABLE); 0 else or for NULL. The default
   queue of a backend the library opened does not profile: create a profiling queue for the
   commands to time. Thread safety: while alive. */
HST_API int hst_queue_profiling(const hst_queue *q);
/* Thread safety: per backend. */
HST_API void hst_queue_destroy(hst_queue *q);   /* waits for its commands; NULL ignored */
/* clFlush and clFinish (no-ops on the host device). Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_queue_flush(hst_queue *q);
HST_API HST_NODISCARD hst_result hst_queue_finish(hst_queue *q);
/* A barrier (clEnqueueBarrierWithWaitList): the commands enqueued on q after it start only
   once the events of `wait` and every command enqueued on q before it have completed; *out
   (may be NULL) completes then. How work on one queue waits for another queue's without the
   host waiting (stream.h orders its compute queue and the backend's default queue so). On the
   host device it waits for the events and returns with *out NULL. Errors:
   HST_ERROR_INVALID_ARGUMENT (q NULL, wait NULL with num_wait > 0), OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_queue_barrier(hst_queue *q, size_t num_wait, const hst_event *wait,
                                                   hst_event *out);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_command_queue hst_queue_cl(const hst_queue *q);  /* NULL on host */
#endif
/* Blocks until the events complete; NULL entries count as complete. Thread-safe (also
   hst_event_release: release each reference once). An event that ended in an error status
   gives CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14), as clWaitForEvents should, on every
   device (NVIDIA's clWaitForEvents returns CL_SUCCESS for a user event set to an error, so each
   waited event's status is read after the wait); a host
   device event still pending (it waits on a user event not set yet) is refused with
   HST_ERROR_INVALID_ARGUMENT (BAD_STATE) instead of waiting for ever: on the host device only
   hst_user_event_set, on this thread, can complete it. */
HST_API HST_NODISCARD hst_result hst_event_wait(size_t num, const hst_event *events);
HST_API void hst_event_release(hst_event e);    /* NULL ignored */
/* Takes one more reference to e (clRetainEvent on OpenCL devices), released by one more
   hst_event_release; NULL ignored. Thread-safe (host device events: per backend). */
HST_API void hst_event_retain(hst_event e);
#ifndef HST_NO_OPENCL
/* The OpenCL event behind e (NULL for NULL and for host device events), for OpenCL calls of
   the caller's own; the reference stays e's. hst_event_from_cl: an OpenCL event as an
   hst_event, for wait lists (the caller keeps its reference). Thread-safe. */
HST_API cl_event hst_event_cl(hst_event e);
HST_API hst_event hst_event_from_cl(cl_event e);
#endif

/* Events as PyOpenCL's Event, UserEvent and enqueue_marker (OpenCL 1.2, section 5.10), on every
   device. On OpenCL devices they are OpenCL's events. On the host device, commands run when
   they are enqueued and their *out is NULL (complete) as above, except on a profiling queue
   (*out: a complete event with host clock times) and for markers and barriers that wait on a
   pending event (*out: a pending event that ends with it) or on one that ended in an error
   (*out: an event ended in that error). Host device events belong to
   their backend: release them before destroying it, and use them from one thread at a time
   (per backend), like its queues; an OpenCL wait list rejects them (BAD_ARGUMENT). The calls
   below that take an event but no backend log through the event's backend for host device
   events, and through the default logger (stderr, $HST_LOG) for OpenCL events, which do not
   know the backend that made them. */
enum {                              /* execution status: OpenCL's CL_COMPLETE .. CL_QUEUED */
    HST_EVENT_COMPLETE = 0, HST_EVENT_RUNNING = 1, HST_EVENT_SUBMITTED = 2, HST_EVENT_QUEUED = 3
};
/* *status: the event's execution status (HST_EVENT_*), or the negative error it ended with;
   HST_EVENT_COMPLETE for NULL. Errors: HST_ERROR_INVALID_ARGUMENT (status NULL), OpenCL
   codes. Thread-safe (host device events: per backend). */
HST_API HST_NODISCARD hst_result hst_event_status(hst_event e, int *status);
/* The four times of a command, in nanoseconds of the device's clock (OpenCL's
   CL_PROFILING_COMMAND_QUEUED, _SUBMIT, _START, _END; on the host device CLOCK_MONOTONIC), with
   queued <= submit <= start <= end; any pointer may be NULL. The command must have been
   enqueued on a profiling queue (hst_queue_desc.profiling) and be complete. Errors:
   CL_PROFILING_INFO_NOT_AVAILABLE (-7: the queue does not profile, the event is a user event
   or not complete; logged as BAD_STATE), HST_ERROR_INVALID_ARGUMENT (e NULL), OpenCL codes.
   Thread-safe (host device events: per backend). */
HST_API HST_NODISCARD hst_result hst_event_profile(hst_event e, uint64_t *queued_ns, uint64_t *submit_ns,
                                                   uint64_t *start_ns, uint64_t *end_ns);
/* A user event (clCreateUserEvent; PyOpenCL's UserEvent): pending (HST_EVENT_SUBMITTED) until
   hst_user_event_set. Commands that list it in their wait list do not start before it is set;
   on the host device, where commands run when enqueued, only markers and barriers may wait on
   a pending event (other commands, and any command on a queue behind such a marker, are
   refused with BAD_STATE rather than run early or hang). Release it with hst_event_release.
   Errors: HST_ERROR_INVALID_ARGUMENT (be or out NULL), HST_ERROR_OUT_OF_HOST_MEMORY, OpenCL
   codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_user_event_create(hst_backend *be, hst_event *out);
/* Sets a user event's status once (clSetUserEventStatus): HST_EVENT_COMPLETE releases the
   commands that wait on it; a negative status is an error: the commands that wait on it
   (directly or through other commands) are terminated, their events end with status
   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14; OpenCL 1.2, 5.10: what a terminated
   command's event reports is the implementation's: the host device's is this, PoCL's -1), and
   waiting on them fails with -14. Callbacks of the events that reach an end run before it
   returns (the host device) or from OpenCL's thread. Errors: HST_ERROR_INVALID_ARGUMENT (e NULL, status
   positive; on the host device also an event not made by hst_user_event_create),
   CL_INVALID_OPERATION (-59: the status is set already; on every device), OpenCL codes
   (CL_INVALID_EVENT: not a user event). Thread-safe (host device events: per backend). */
HST_API HST_NODISCARD hst_result hst_user_event_set(hst_event e, int status);
/* Called once when the event reaches its end: status HST_EVENT_COMPLETE, or the negative
   status it ended with. e is valid during the call (do not release it there). */
typedef void (*hst_event_fn)(hst_event e, int status, void *user);
/* Registers fn to run once when e completes (clSetEventCallback with CL_COMPLETE; PyOpenCL's
   Event.set_callback). Which thread runs it: on OpenCL devices a thread of the OpenCL
   implementation (PoCL's and NVIDIA's run it on their own threads, not the caller's), so fn must
   be thread-safe, quick, and call no blocking OpenCL function; on the host device the thread
   whose call completes the event (hst_user_event_set), or the calling thread at once when e is
   complete already (as e NULL, which counts as complete). Callbacks of one event run in
   registration order on the host device; OpenCL does not promise an order. An event that ends
   in an error calls them with its status on the host device, as OpenCL 3.0 asks ("completed
   successfully or is abnormally terminated"); PoCL 3.1 never calls them for events that end in
   an error (user events set to one, and what waits on those), and the small record this call
   allocated for such a callback is then never freed. Errors:
   HST_ERROR_INVALID_ARGUMENT (fn NULL), HST_ERROR_OUT_OF_HOST_MEMORY, OpenCL codes.
   Thread-safe (host device events: per backend). */
HST_API HST_NODISCARD hst_result hst_event_set_callback(hst_event e, hst_event_fn fn, void *user);
/* A marker (clEnqueueMarkerWithWaitList; PyOpenCL's enqueue_marker): *out completes once the
   events of `wait` have — or, with num_wait 0, every command enqueued on q before it. Unlike a
   barrier, later commands on q need not wait for it (on in-order queues they do anyway).
   Errors: HST_ERROR_INVALID_ARGUMENT (q NULL, wait NULL with num_wait > 0),
   HST_ERROR_OUT_OF_HOST_MEMORY, OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_queue_marker(hst_queue *q, size_t num_wait, const hst_event *wait,
                                                  hst_event *out);

/* ---------------------------------------------------------------------------------------------
   Memory. Sizes and offsets are in bytes. A buffer lives on the backend's device (on the host
   device: host memory from the allocator). */
enum {
    HST_MEM_READ_WRITE = 0,
    HST_MEM_READ_ONLY = 1,        /* kernels only read it */
    HST_MEM_WRITE_ONLY = 2,       /* kernels only write it */
    HST_MEM_RESIDENT = 4          /* allocate now (migrate and wait), so out-of-memory shows
                                     here rather than at first use (OpenCL defers allocation) */
};
enum { HST_MAP_READ = 1, HST_MAP_WRITE = 2, HST_MAP_WRITE_INVALIDATE = 4 };
enum { HST_MIGRATE_TO_HOST = 1, HST_MIGRATE_CONTENT_UNDEFINED = 2 };

/* Errors: HST_ERROR_INVALID_ARGUMENT (bytes 0, bad flags), HST_ERROR_OUT_OF_DEVICE_MEMORY (over
   CL_DEVICE_MAX_MEM_ALLOC_SIZE or the desc's limit), OpenCL allocation codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_buffer_create(hst_backend *be, size_t bytes, unsigned flags,
                                                   hst_buffer **out);
/* A view of [origin, origin+bytes) of parent (which must not itself be a sub-buffer). origin must
   be a multiple of the device's mem_base_addr_align_bytes (HST_ERROR_ALIGNMENT otherwise);
   the range must lie inside the parent (HST_ERROR_INVALID_ARGUMENT).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_buffer_create_sub(hst_buffer *parent, size_t origin, size_t bytes,
                                                       hst_buffer **out);
/* Pinned (page-locked) host memory: an ALLOC_HOST_PTR buffer mapped once for its lifetime, so
   hst_buffer_host_ptr gives host memory the DMA engines read at full speed. It is both a host
   array (use its pointer with hst_write/hst_read on other buffers) and a device buffer. On the
   host device: plain host memory. Errors as hst_buffer_create. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_pinned_create(hst_backend *be, size_t bytes, hst_buffer **out);
/* A buffer over the caller's host memory [ptr, ptr+bytes) (OpenCL's CL_MEM_USE_HOST_PTR), for
   kernels that read or write host arrays without a staging copy: devices that share host
   memory (CPU devices such as PoCL, integrated GPUs) access it in place; a discrete GPU's driver
   copies it to the device when a command first uses it. The host sees what kernels wrote only
   after hst_map of the range (which copies back where the driver had copied) and hst_unmap;
   ptr must stay valid, and the caller must not touch it, until the commands that use the
   buffer have completed and it is destroyed (which never frees ptr). Counts against the desc's
   memory limit like any buffer (the driver may hold a device copy). hst_buffer_host_ptr gives
   NULL on OpenCL devices; on the host device the buffer's host pointer is ptr itself. flags as
   hst_buffer_create (HST_MEM_RESIDENT is not allowed). Errors: HST_ERROR_INVALID_ARGUMENT (be,
   ptr or out NULL, bytes 0, flags), HST_ERROR_OUT_OF_DEVICE_MEMORY (the limits), OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_buffer_wrap(hst_backend *be, void *ptr, size_t bytes, unsigned flags,
                                                 hst_buffer **out);
/* Frees the buffer; a pooled buffer returns to its pool. Sub-buffers first. NULL ignored.
   Thread safety: per backend. */
HST_API void hst_buffer_destroy(hst_buffer *buf);
/* Thread safety: while alive. */
HST_API size_t hst_buffer_bytes(const hst_buffer *buf);
HST_API void *hst_buffer_host_ptr(const hst_buffer *buf); /* host device and pinned; else NULL */
HST_API hst_backend *hst_buffer_backend(const hst_buffer *buf);
/* A number unique among the buffers the backend has made, never reused while it lives (0 for
   NULL): lets a caller remember what it bound to a kernel without holding on to the buffer
   (an OpenCL handle's address can come back as another buffer's once freed). A pooled block
   keeps its number when hst_buffer_destroy returns it and hst_pool_alloc hands it out again
   (it is the same live buffer).
   Thread safety: while alive. */
HST_API uint64_t hst_buffer_serial(const hst_buffer *buf);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_mem hst_buffer_cl(const hst_buffer *buf);      /* NULL on the host device */
/* Adopts mem, a buffer of be's context made elsewhere (PyOpenCL's MemoryObject.from_int_ptr;
   hst_buffer_cl is int_ptr): the hst_buffer retains it (clRetainMemObject) and
   hst_buffer_destroy releases that reference; the caller keeps its own, and may release it at
   once. Its bytes are mem's (CL_MEM_SIZE), counted against the backend's device memory as
   hst_buffer_create's; it has no host pointer. A foreign context and queue are adopted by
   hst_backend_desc.wrap_context and wrap_queue. Errors: HST_ERROR_INVALID_ARGUMENT (NULL, not
   a buffer, another context: the log says which), HST_ERROR_UNSUPPORTED (the host device),
   HST_ERROR_OUT_OF_DEVICE_MEMORY (over the desc's limit), OpenCL codes. Thread safety: per
   backend. */
HST_API HST_NODISCARD hst_result hst_buffer_from_cl(hst_backend *be, cl_mem mem, hst_buffer **out);
#endif

/* Fills [offset, offset+bytes) with a repeated pattern of pattern_bytes (1, 2, 4, ..., 128);
   offset and bytes must be multiples of pattern_bytes. The pattern is copied before return.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_fill(hst_queue *q, hst_buffer *buf, const void *pattern,
                                          size_t pattern_bytes, size_t offset, size_t bytes,
                                          size_t num_wait, const hst_event *wait, hst_event *out);
/* Linear copies. A non-blocking write reads `src` until its event completes (keep it alive);
   a non-blocking read fills `dst` when its event completes. Ranges are bounds-checked.
   A blocking write or read of HST_STAGE_MIN_BYTES (8 MiB) or more with no wait list and out
   NULL, from or to host memory outside the backend's pinned buffers, on an OpenCL device that does not share the host's memory (a discrete GPU) and has no
   device memory limit, is staged: copied in pieces (an eighth of it, 2 to 16 MiB) through two
   pinned buffers of HST_STAGE_PIECE_BYTES (16 MiB) that the backend makes on first use and
   keeps, each piece's copy on up to 8 cores overlapping the device's transfer of the one
   before (one H200's, from pageable memory: 256 MiB written at 35-44 GB/s where the driver
   copies at 8-9, read at 32-41 against 13-15; 52 MiB both ways at 31-38 against 9-15; the
   bus's own rate is 55; bench/transfer_bench.c). The same bytes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_write(hst_queue *q, hst_buffer *dst, size_t dst_offset, const void *src,
                                           size_t bytes, int blocking,
                                           size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_read(hst_queue *q, const hst_buffer *src, size_t src_offset, void *dst,
                                          size_t bytes, int blocking,
                                          size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_copy(hst_queue *q, hst_buffer *dst, size_t dst_offset,
                                          const hst_buffer *src, size_t src_offset, size_t bytes,
                                          size_t num_wait, const hst_event *wait, hst_event *out);

/* A rectangular (up to 3-D) region, as OpenCL's *BufferRect: origin and region are
   {bytes, rows, slices} (x in bytes, then y, then z); pitches in bytes, 0 meaning tight
   (row_pitch = region[0], slice_pitch = region[1] * row_pitch). */
typedef struct hst_rect {
    size_t origin[3];
    size_t row_pitch, slice_pitch;
} hst_rect;
/* Rectangular copies host<->device and device<->device. The whole region on each side must lie
   inside its buffer (checked with overflow-checked arithmetic; the host side is trusted to
   hold it). Errors: HST_ERROR_INVALID_ARGUMENT, HST_ERROR_OVERFLOW, OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_write_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                                const void *src, const hst_rect *src_rect,
                                                const size_t region[3], int blocking,
                                                size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_read_rect(hst_queue *q, const hst_buffer *src, const hst_rect *src_rect,
                                               void *dst, const hst_rect *dst_rect,
                                               const size_t region[3], int blocking,
                                               size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_copy_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                               const hst_buffer *src, const hst_rect *src_rect,
                                               const size_t region[3],
                                               size_t num_wait, const hst_event *wait, hst_event *out);

/* Maps [offset, offset+bytes) for host access (HST_MAP_* flags); *ptr is valid once the map
   completes (blocking, or after *out). Unmap with the same pointer. Pinned buffers are already
   mapped: use hst_buffer_host_ptr instead. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_map(hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset,
                                         size_t bytes, int blocking, void **ptr,
                                         size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_unmap(hst_queue *q, hst_buffer *buf, void *ptr,
                                           size_t num_wait, const hst_event *wait, hst_event *out);
/* Moves buffers to the queue's device (or to the host with HST_MIGRATE_TO_HOST).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers,
                                             unsigned migrate_flags,
                                             size_t num_wait, const hst_event *wait, hst_event *out);

/* Shared virtual memory (OpenCL 2.0), where the device reports it (hst_device_info.svm); on the
   host device plain host memory. fine = 1 asks for fine-grain (HST_ERROR_UNSUPPORTED if absent).
   Coarse-grain SVM must be mapped before host access; hst_svm_map blocks until mapped. SVM is
   checked against the device's largest allocation and the desc's limit, but not charged to it.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_svm_alloc(hst_backend *be, size_t bytes, int fine, void **out);
HST_API void hst_svm_free(hst_backend *be, void *ptr);
HST_API HST_NODISCARD hst_result hst_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes,
                                             size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_svm_unmap(hst_queue *q, void *ptr,
                                               size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes,
                                              int blocking, size_t num_wait, const hst_event *wait,
                                              hst_event *out);
HST_API HST_NODISCARD hst_result hst_svm_fill(hst_queue *q, void *ptr, const void *pattern,
                                              size_t pattern_bytes, size_t bytes,
                                              size_t num_wait, const hst_event *wait, hst_event *out);
/* Moves SVM ranges to the queue's device, or to the host with HST_MIGRATE_TO_HOST
   (clEnqueueSVMMigrateMem, OpenCL 2.1; PyOpenCL's enqueue_svm_migratemem): ranges
   [ptrs[i], ptrs[i] + sizes[i]) of hst_svm_alloc's allocations (sizes NULL, or sizes[i] 0: the
   whole allocation from ptrs[i]). A hint: the memory's contents stay (unless
   HST_MIGRATE_CONTENT_UNDEFINED). On the host device SVM is host memory: nothing moves. Errors:
   HST_ERROR_INVALID_ARGUMENT (NULL, num 0, unknown flags), HST_ERROR_UNSUPPORTED (a device
   below OpenCL 2.1 or without SVM), OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_svm_migrate(hst_queue *q, size_t num, const void *const *ptrs,
                                                 const size_t *sizes, unsigned migrate_flags,
                                                 size_t num_wait, const hst_event *wait, hst_event *out);

/* ---------------------------------------------------------------------------------------------
   Images: any kind by hst_image_create (1-D, 2-D, 3-D, 1-D and 2-D arrays, 1-D images over a
   buffer), and 2-D and 3-D ones as PyOpenCL's image_from_array: an array of shape (height, width) or
   (depth, height, width) in C order, `channels` interleaved values per pixel, maps to
     dtype u8 -> CL_UNSIGNED_INT8 (normalized: CL_UNORM_INT8), i8 -> CL_SIGNED_INT8
     (CL_SNORM_INT8), i16 -> CL_SIGNED_INT16 (CL_SNORM_INT16), i32 -> CL_SIGNED_INT32,
     f32 -> CL_FLOAT, c64 -> CL_FLOAT with 2 channels per element;
     channels 1 -> CL_R, 2 -> CL_RG, 4 -> CL_RGBA. f64, i64 and c128 have no image format
   (HST_ERROR_DTYPE). Normalized integers read as floats in [0, 1] (u8) or [-1, 1] (i8, i16).
   Origins and regions are in pixels {x, y, z} (z = 0 / 1 for 2-D). */
enum { HST_ADDRESS_NONE = 0, HST_ADDRESS_CLAMP_TO_EDGE, HST_ADDRESS_CLAMP, HST_ADDRESS_REPEAT,
       HST_ADDRESS_MIRRORED_REPEAT };
enum { HST_FILTER_NEAREST = 0, HST_FILTER_LINEAR };

/* An image format as OpenCL's cl_image_format (PyOpenCL's ImageFormat), in OpenCL's numbers:
   channel_order CL_R (0x10B0) .. CL_ABGR (0x10C3), channel_type CL_SNORM_INT8 (0x10D0) ..
   CL_UNORM_INT_101010_2 (0x10E0); the orders and types of OpenCL 1.2 (and 2.0's sRGB, ABGR,
   depth) are known by the functions below. */
typedef struct hst_image_format { uint32_t channel_order, channel_type; } hst_image_format;
/* ImageFormat.channel_count: the channels of f's order (CL_RGBA 4, CL_Rx 2, ...); 0 for an
   order OpenCL does not define. Thread-safe. */
HST_API unsigned hst_image_format_channels(hst_image_format f);
/* ImageFormat.itemsize: bytes per pixel (a packed type such as CL_UNORM_SHORT_565: the whole
   pixel's); 0 for an order or type OpenCL does not define. ImageFormat.dtype_size is
   itemsize / channel_count for the unpacked types. Thread-safe. */
HST_API size_t hst_image_format_pixel_bytes(hst_image_format f);
/* Image types (OpenCL's CL_MEM_OBJECT_IMAGE*); 2 and 3 are also hst_image_from_array's ndim. */
enum { HST_IMAGE_1D = 1, HST_IMAGE_2D = 2, HST_IMAGE_3D = 3, HST_IMAGE_1D_ARRAY = 4, HST_IMAGE_2D_ARRAY = 5,
       HST_IMAGE_1D_BUFFER = 6 };
/* PyOpenCL's get_supported_image_formats (clGetSupportedImageFormats): the formats be's device
   supports for images of image_type (HST_IMAGE_*) made with mem_flags (HST_MEM_READ_WRITE,
   _READ_ONLY, _WRITE_ONLY): *count of them, the first min(*count, max) into formats (formats
   may be NULL when max is 0). The host device supports the formats hst_image_from_array makes
   (above), for every type. Errors: HST_ERROR_INVALID_ARGUMENT (NULL, image_type, mem_flags),
   HST_ERROR_UNSUPPORTED (no image support), OpenCL codes. Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_supported_image_formats(hst_backend *be, unsigned mem_flags, unsigned image_type,
                                                             hst_image_format *formats, size_t max,
                                                             size_t *count);

/* Any image (PyOpenCL's Image(context, flags, format, shape, pitches, hostbuf, is_array,
   buffer)): zero-initialise, then set what the image needs. Its pixel boxes (origin, region
   {x, y, z}) run over {width, 1, 1} (1-D, 1-D buffer), {width, layers, 1} (1-D array),
   {width, height, 1} (2-D), {width, height, layers} (2-D array) or {width, height, depth}
   (3-D), as OpenCL's. */
typedef struct hst_image_desc {
    unsigned type;                /* HST_IMAGE_* */
    hst_dtype dtype;              /* the format, as hst_image_from_array's: */
    unsigned channels;            /*   1, 2 or 4 values per pixel */
    int normalized;               /*   u8, i8, i16 read as normalized floats */
    size_t width, height, depth;  /* pixels: height of 2-D kinds and 3-D, depth of 3-D; others 0 */
    size_t array_size;            /* layers of the array kinds; others 0 */
    unsigned mem_flags;           /* what kernels may do: HST_MEM_READ_WRITE (0), _READ_ONLY,
                                     _WRITE_ONLY (CL_MEM_* on the device; hst_image_info says) */
    const void *host;             /* the initial pixels, or NULL (contents undefined) */
    size_t row_pitch, slice_pitch;  /* host's bytes per row and per 2-D slice or layer (0: tight;
                                       else at least a tight row / the rows of a slice) */
    hst_buffer *buffer;           /* HST_IMAGE_1D_BUFFER: the buffer the image views (its pixels
                                     are the buffer's first width * pixel bytes; a root buffer of
                                     the same backend); it must outlive the image */
} hst_image_desc;
/* Makes the image d describes. Errors: as hst_image_from_array's, and
   HST_ERROR_INVALID_ARGUMENT for a type, extent, pitch, mem_flags or buffer that does not fit
   the type (the log names the field). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_create(hst_backend *be, const hst_image_desc *d, hst_image **out);

/* A 2-D or 3-D image (hst_image_create of HST_IMAGE_2D or _3D, read-write, from shape).
   host may be NULL (contents undefined). normalized applies to u8, i8 and i16. Errors:
   HST_ERROR_DTYPE, HST_ERROR_INVALID_ARGUMENT (ndim not 2/3, zero extent, channels not 1/2/4,
   normalized with another dtype), HST_ERROR_UNSUPPORTED (no image support or the format is not
   supported by the device), HST_ERROR_OVERFLOW, OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_from_array(hst_backend *be, hst_dtype dtype, unsigned channels,
                                                      int normalized, unsigned ndim, const size_t *shape,
                                                      const void *host, hst_image **out);
/* Thread safety: per backend. */
HST_API void hst_image_destroy(hst_image *img);
/* Bytes per pixel (element size times channels; c64 counts as two float channels).
   Thread safety: while alive. */
HST_API size_t hst_image_pixel_bytes(const hst_image *img);
/* What an image is (PyOpenCL's Image.shape, Image.format and get_image_info). */
typedef struct hst_image_info {
    unsigned type;                /* HST_IMAGE_* (CL_MEM_TYPE) */
    unsigned ndim;                /* 1, 2 or 3: the dimensions of one image (a layer) */
    size_t width, height, depth;  /* pixels (CL_IMAGE_WIDTH, _HEIGHT, _DEPTH); 1 where the type
                                     has no such axis (OpenCL says 0) */
    unsigned mem_flags;           /* HST_MEM_READ_WRITE, _READ_ONLY or _WRITE_ONLY */
    hst_image_format format;      /* CL_IMAGE_FORMAT */
    hst_dtype dtype;              /* as made: the element type, */
    unsigned channels;            /* its values per pixel (c64: complex ones), */
    int normalized;               /* integers read as normalized floats */
    size_t pixel_bytes;           /* CL_IMAGE_ELEMENT_SIZE */
    size_t row_pitch, slice_pitch;  /* bytes of the device's rows and of its 2-D slices or layers
                                       (CL_IMAGE_ROW_PITCH, CL_IMAGE_SLICE_PITCH; slice_pitch 0
                                       for 1-D and 2-D); the host device's are tight */
    size_t array_size;            /* CL_IMAGE_ARRAY_SIZE: the layers of an array, else 0 */
} hst_image_info;
/* Fills *out (on OpenCL devices the pitches are the device's own, clGetImageInfo). Errors:
   HST_ERROR_INVALID_ARGUMENT (NULL), OpenCL codes. Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_image_get_info(const hst_image *img, hst_image_info *out);
/* Host arrays are tight unless pitches (bytes) are given (0 = tight).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_write(hst_queue *q, hst_image *img, const size_t origin[3],
                                                 const size_t region[3], const void *src, size_t row_pitch,
                                                 size_t slice_pitch, int blocking,
                                                 size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_image_read(hst_queue *q, const hst_image *img, const size_t origin[3],
                                                const size_t region[3], void *dst, size_t row_pitch,
                                                size_t slice_pitch, int blocking,
                                                size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_image_copy(hst_queue *q, hst_image *dst, const size_t dst_origin[3],
                                                const hst_image *src, const size_t src_origin[3],
                                                const size_t region[3],
                                                size_t num_wait, const hst_event *wait, hst_event *out);
/* Copies between an image's pixel box [origin, origin + region) and a buffer's bytes
   [offset, offset + region[0] * region[1] * region[2] * pixel_bytes), the buffer holding the
   box's pixels tight in C order (z, y, x; channels interleaved), as clEnqueueCopyImageToBuffer
   and clEnqueueCopyBufferToImage (PyOpenCL's enqueue_copy between an Image and a Buffer). The
   box must lie inside the image and the byte range inside the buffer; both belong to q's
   backend. Errors: HST_ERROR_INVALID_ARGUMENT (NULL, zero region, box or range outside: the log
   names it), HST_ERROR_OVERFLOW, HST_ERROR_SHAPE (another backend's object), OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_to_buffer(hst_queue *q, hst_buffer *dst, size_t dst_offset,
                                                     const hst_image *src, const size_t origin[3],
                                                     const size_t region[3],
                                                     size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_buffer_to_image(hst_queue *q, hst_image *dst, const size_t origin[3],
                                                     const size_t region[3], const hst_buffer *src,
                                                     size_t src_offset,
                                                     size_t num_wait, const hst_event *wait, hst_event *out);
/* color: one pixel as 4 floats (f32, c64, normalized), 4 int32 (i8, i16, i32) or 4 uint32 (u8),
   converted to the format with saturation (OpenCL 1.2, 8.3; a 1-D buffer image is filled as its
   buffer, hst_fill of the converted pixel, on every device).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_fill(hst_queue *q, hst_image *img, const void *color,
                                                const size_t origin[3], const size_t region[3],
                                                size_t num_wait, const hst_event *wait, hst_event *out);
/* Blocking map; *row_pitch, *slice_pitch (bytes) describe the mapped layout.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_map(hst_queue *q, hst_image *img, unsigned map_flags,
                                               const size_t origin[3], const size_t region[3],
                                               size_t *row_pitch, size_t *slice_pitch, void **ptr);
/* hst_image_map after the wait list, blocking or not (PyOpenCL's enqueue_map_image with
   wait_for and is_blocking): *ptr and the pitches are set at once, the pixels are there once
   *out (may be NULL) completes. Errors: as hst_image_map's. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_map_enqueue(hst_queue *q, hst_image *img, unsigned map_flags,
                                                       const size_t origin[3], const size_t region[3], int blocking,
                                                       size_t *row_pitch, size_t *slice_pitch, void **ptr,
                                                       size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_image_unmap(hst_queue *q, hst_image *img, void *ptr,
                                                 size_t num_wait, const hst_event *wait, hst_event *out);
/* Samplers (OpenCL samplers; on the host device a record of the settings): how a kernel's
   read_imagef/_i/_ui (image, sampler, coord) finds its pixels, by the OpenCL 1.2 specification's
   rules (section 8.2): coordinates in pixels or, normalized_coords 1, in [0, 1) of the extent;
   address_mode HST_ADDRESS_* says what lies outside (NONE: undefined, CLAMP_TO_EDGE: the edge
   pixel, CLAMP: the border colour, REPEAT and MIRRORED_REPEAT: the image tiled or mirrored, for
   normalized coordinates only); filter_mode HST_FILTER_NEAREST takes the pixel under the
   coordinate, HST_FILTER_LINEAR weighs the 2 (1-D), 4 (2-D) or 8 (3-D) nearest (float images
   and normalized integer ones only). Kernels that read images run on OpenCL devices only: the
   host device keeps images as memory (every transfer above) but has no sampler, and
   hst_launch_kernel refuses a kernel with an image or sampler argument there
   (HST_ERROR_UNSUPPORTED): its twins are C, and a C sampler would promise results that each
   device's texture unit computes with its own weight precision. Errors: HST_ERROR_INVALID_ARGUMENT
   (NULL, a mode out of range, REPEAT or MIRRORED_REPEAT with unnormalized coordinates: the log
   names it), OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_sampler_create(hst_backend *be, int normalized_coords,
                                                    unsigned address_mode, unsigned filter_mode,
                                                    hst_sampler **out);
/* The keys of hst_sampler_create_props's list (OpenCL's CL_SAMPLER_* numbers), and where
   OpenCL's values start: CL_ADDRESS_x = HST_CL_ADDRESS_BASE + HST_ADDRESS_x, CL_FILTER_x =
   HST_CL_FILTER_BASE + HST_FILTER_x (usable without the OpenCL headers). */
enum { HST_SAMPLER_NORMALIZED_COORDS = 0x1152, HST_SAMPLER_ADDRESSING_MODE = 0x1153,
       HST_SAMPLER_FILTER_MODE = 0x1154, HST_CL_ADDRESS_BASE = 0x1130, HST_CL_FILTER_BASE = 0x1140 };
/* A sampler from a property list, as clCreateSamplerWithProperties (OpenCL 2.0; PyOpenCL's
   Sampler(context, properties)): key, value pairs ended by a 0 key, in OpenCL's numbers:
     HST_SAMPLER_NORMALIZED_COORDS  0 or 1 (CL_FALSE, CL_TRUE)                       default 1
     HST_SAMPLER_ADDRESSING_MODE    CL_ADDRESS_NONE .. CL_ADDRESS_MIRRORED_REPEAT     default CLAMP
     HST_SAMPLER_FILTER_MODE        CL_FILTER_NEAREST, CL_FILTER_LINEAR               default NEAREST
   The device gets the same settings through clCreateSamplerWithProperties where it reports
   OpenCL 2.0 or newer, else through clCreateSampler. Errors: as hst_sampler_create's, and
   HST_ERROR_INVALID_ARGUMENT for a key given twice or a value out of range,
   HST_ERROR_UNSUPPORTED for another key (cl_khr_mipmap_image's mip-map filters): the log names
   the key. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_sampler_create_props(hst_backend *be, const uint64_t *props,
                                                          hst_sampler **out);
/* A sampler's settings (PyOpenCL's Sampler.info: normalized_coords, addressing_mode,
   filter_mode), as HST_ADDRESS_* and HST_FILTER_*. */
typedef struct hst_sampler_info {
    int normalized_coords;
    unsigned address_mode, filter_mode;
} hst_sampler_info;
/* Fills *out. Errors: HST_ERROR_INVALID_ARGUMENT (s or out NULL). Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_sampler_get_info(const hst_sampler *s, hst_sampler_info *out);
/* The raw path of PyOpenCL's get_info(param) and get_image_info(param) (MemoryObject, Image,
   Sampler), as clGetMemObjectInfo (buffers and images: param a CL_MEM_* number, 0x1100 ..
   0x110F), clGetImageInfo (images: CL_IMAGE_*, 0x1110 .. 0x111F) and clGetSamplerInfo
   (CL_SAMPLER_*, 0x1150 .. 0x115F) answer it: *size_ret (may be NULL) the value's bytes, and
   value (may be NULL) the value when bytes holds it. OpenCL devices answer through their
   driver. The host device answers from its records, in OpenCL's types: CL_MEM_TYPE (uint32),
   CL_MEM_SIZE (size_t; an image's bytes), CL_MEM_HOST_PTR (void *: a hst_buffer_wrap's memory,
   else NULL), CL_MEM_REFERENCE_COUNT (uint32, 1), CL_MEM_OFFSET (size_t: a sub-buffer's
   origin); CL_IMAGE_FORMAT (hst_image_format), _ELEMENT_SIZE, _ROW_PITCH, _SLICE_PITCH, _WIDTH,
   _HEIGHT, _DEPTH, _ARRAY_SIZE (size_t); CL_SAMPLER_REFERENCE_COUNT (uint32, 1),
   _NORMALIZED_COORDS (uint32 0/1), _ADDRESSING_MODE, _FILTER_MODE (uint32, OpenCL's numbers);
   it refuses the others (a context, flags, map count) with HST_ERROR_UNSUPPORTED. Errors:
   HST_ERROR_INVALID_ARGUMENT (the object NULL, param outside the object's range, value given
   with bytes below the value's size: the log says which), HST_ERROR_UNSUPPORTED, OpenCL codes
   (CL_INVALID_VALUE: a param the driver does not know). Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_buffer_get_info_raw(const hst_buffer *buf, uint32_t param, size_t bytes,
                                                         void *value, size_t *size_ret);
HST_API HST_NODISCARD hst_result hst_image_get_info_raw(const hst_image *img, uint32_t param, size_t bytes,
                                                        void *value, size_t *size_ret);
HST_API HST_NODISCARD hst_result hst_sampler_get_info_raw(const hst_sampler *s, uint32_t param, size_t bytes,
                                                          void *value, size_t *size_ret);
/* Thread safety: per backend. */
HST_API void hst_sampler_destroy(hst_sampler *s);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_mem hst_image_cl(const hst_image *img);
HST_API cl_sampler hst_sampler_cl(const hst_sampler *s);
/* Adopts mem, an image of be's context made elsewhere (PyOpenCL's Image.from_int_ptr;
   hst_image_cl is int_ptr): the hst_image retains it (clRetainMemObject), hst_image_destroy
   releases that reference, and the caller keeps its own. Its type, extent, access (CL_MEM_FLAGS)
   and format are mem's; the format must be one hst_image_from_array makes (R, RG or RGBA of u8,
   i8 or i16, plain or normalized, i32 or f32; a c64 image comes back as 2-channel f32, the same
   bytes), and its pixel bytes count against the backend's device memory as hst_image_create's.
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL, not an image, another context: the log says which),
   HST_ERROR_DTYPE (another format: the log names its order and type), HST_ERROR_UNSUPPORTED
   (the host device; a 1-D buffer image: adopt its buffer with hst_buffer_from_cl and view it
   with hst_image_create), HST_ERROR_OUT_OF_DEVICE_MEMORY (over the desc's limit), OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_image_from_cl(hst_backend *be, cl_mem mem, hst_image **out);
/* Adopts smp, a sampler of be's context made elsewhere (PyOpenCL's Sampler.from_int_ptr;
   hst_sampler_cl is int_ptr): retained as hst_image_from_cl's image, its settings read from it
   (clGetSamplerInfo). Errors: HST_ERROR_INVALID_ARGUMENT (NULL, another context),
   HST_ERROR_UNSUPPORTED (the host device; a mode outside OpenCL 1.2's, such as a mip-map
   filter), OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_sampler_from_cl(hst_backend *be, cl_sampler smp, hst_sampler **out);
#endif

/* ---------------------------------------------------------------------------------------------
   Memory pool (PyOpenCL's binned pool): requests round up to a bin — the top bit of the size and
   the next 4 bits (HST_POOL_MANTISSA_BITS), so rounding wastes under 1/16 = 6.25% — and freed
   blocks are held per bin for reuse. On out-of-memory the pool frees held blocks, largest
   first, retrying after each, then fails with HST_ERROR_OUT_OF_DEVICE_MEMORY (or the OpenCL
   code). Pool blocks are resident at creation. */
#define HST_POOL_MANTISSA_BITS 4
typedef struct hst_pool_stats {
    size_t held_blocks, held_bytes;       /* freed, kept for reuse */
    size_t active_blocks, active_bytes;   /* handed out (bin sizes) */
} hst_pool_stats;
/* Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_pool_create(hst_backend *be, hst_pool **out);
/* Frees held blocks; blocks still active are reported (warning) and detached: they become plain
   buffers that hst_buffer_destroy frees (before the backend is destroyed).
   Thread safety: per backend. */
HST_API void hst_pool_destroy(hst_pool *pool);
/* A block of at least `bytes`; hst_buffer_bytes reports `bytes`, the bin holds
   hst_pool_bin_bytes(bytes). Free it with hst_buffer_destroy. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_pool_alloc(hst_pool *pool, size_t bytes, hst_buffer **out);
/* hst_pool_free_held frees every held block; hst_pool_get_stats reads the counters.
   Thread safety: per backend. */
HST_API void hst_pool_free_held(hst_pool *pool);
HST_API hst_pool_stats hst_pool_get_stats(const hst_pool *pool);
/* The bin size a request of `bytes` occupies (>= bytes, < bytes * 1.0625); 0 on overflow.
   Thread-safe. */
HST_API size_t hst_pool_bin_bytes(size_t bytes);

/* ---------------------------------------------------------------------------------------------
   Programs and launches (OpenCL devices; the host device answers HST_ERROR_UNSUPPORTED).
   hst_program_build caches in memory per backend (same sources and options: same program) and
   on disk (key: sources, options, platform and device names and versions, driver version,
   library version; atomic writes; a corrupt entry is a miss and is rewritten). On failure the
   OpenCL code is returned (CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS, ...) and the
   build log reaches the logger as HST_LOGITEM_BUILD_FAILED. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_program_build(hst_backend *be, size_t count, const char *const *sources,
                                                   const char *options, hst_program **out);
/* Drops the caller's reference; the cache keeps the program until the backend is destroyed.
   Thread safety: per backend. */
HST_API void hst_program_release(hst_program *prog);
/* Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_kernel_create(hst_program *prog, const char *name, hst_kernel **out);
HST_API void hst_kernel_destroy(hst_kernel *k);
/* Kernel arguments (clSetKernelArg). Thread safety: per object (the kernel). */
HST_API HST_NODISCARD hst_result hst_kernel_set_arg(hst_kernel *k, unsigned index, size_t bytes,
                                                    const void *value);
HST_API HST_NODISCARD hst_result hst_kernel_set_buffer(hst_kernel *k, unsigned index, const hst_buffer *buf);
HST_API HST_NODISCARD hst_result hst_kernel_set_image(hst_kernel *k, unsigned index, const hst_image *img);
HST_API HST_NODISCARD hst_result hst_kernel_set_sampler(hst_kernel *k, unsigned index, const hst_sampler *s);
HST_API HST_NODISCARD hst_result hst_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr);
/* Launches over `dims` (1..3) dimensions. global is rounded UP to a multiple of local in each
   dimension (kernels bound-check); local NULL picks a work-group the kernel allows (1-D: up to
   256; 2-D: 16 x 16; 3-D: 8 x 8 x 4, shrunk to the kernel's limit). Errors:
   HST_ERROR_INVALID_ARGUMENT (dims, zero sizes), HST_ERROR_OVERFLOW, OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *global,
                                            const size_t *local,
                                            size_t num_wait, const hst_event *wait, hst_event *out);
/* hst_launch with a global offset (clEnqueueNDRangeKernel's global_work_offset; PyOpenCL's
   global_offset): work-item ids run over [offset[i], offset[i] + global[i] rounded up) in each
   dimension, get_global_offset() reports offset. offset NULL, or all zero, is hst_launch.
   Errors: as hst_launch, and HST_ERROR_OVERFLOW where offset + the rounded global size
   overflows size_t (OpenCL's CL_INVALID_GLOBAL_OFFSET). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_launch_offset(hst_queue *q, hst_kernel *k, unsigned dims,
                                                   const size_t *offset, const size_t *global,
                                                   const size_t *local,
                                                   size_t num_wait, const hst_event *wait, hst_event *out);
/* A kernel's limits on the backend's device (clGetKernelWorkGroupInfo; PyOpenCL's
   Kernel.get_work_group_info). */
typedef struct hst_kernel_wg_info {
    size_t work_group_size;              /* CL_KERNEL_WORK_GROUP_SIZE: the largest work-group */
    size_t preferred_multiple;           /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    uint64_t local_mem_bytes;            /* CL_KERNEL_LOCAL_MEM_SIZE: its __local use, bytes */
    uint64_t private_mem_bytes;          /* CL_KERNEL_PRIVATE_MEM_SIZE: per work-item, bytes */
    size_t compile_work_group_size[3];   /* CL_KERNEL_COMPILE_WORK_GROUP_SIZE: its
                                            reqd_work_group_size, {0, 0, 0} when none */
} hst_kernel_wg_info;
/* Fills *out. Errors: HST_ERROR_INVALID_ARGUMENT (k or out NULL), OpenCL codes (kernels exist
   on OpenCL devices only). Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_kernel_work_group_info(const hst_kernel *k, hst_kernel_wg_info *out);

/* ---------------------------------------------------------------------------------------------
   Declared kernels: how the library's headers (and an embedder's) launch a kernel on any device,
   the host device included, through one path. A kernel family (one OpenCL C program and a host
   C twin of each of its kernels: kernels.h and kernels_<family>.h) lists its kernels ONCE, in
   an X-macro of rows X(id, name, signature, twin); the enum of ids, the declarations and so
   the binder's checks and the host-or-OpenCL dispatch all come from that list:

       #define MY_KERNELS(X) \
           X(MY_SCALE, my_scale, "global uint float", my_scale_twin)
       enum { MY_KERNELS(HST_KERNEL_ID) MY_NUM_KERNELS };
       static const hst_kernel_decl my_decls[MY_NUM_KERNELS] = { MY_KERNELS(HST_KERNEL_DECL) };
       static const hst_kernel_family my_family = { "mine", my_source, my_decls, MY_NUM_KERNELS };
       ...
       hst_karg a[3];
       hst_launch_desc l = {0};
       a[0] = hst_karg_buffer(buf); a[1] = hst_karg_uint(n); a[2] = hst_karg_float(2.0f);
       l.family = &my_family; l.kernel = MY_SCALE; l.args = a; l.num_args = 3;
       l.range.dims = 1; l.range.global[0] = n;
       r = hst_launch_kernel(be, &l, NULL);   // OpenCL: my_scale; host device: my_scale_twin

   name is the kernel's name in the program; signature its parameters in order, one word each
   (HST_KARG_KIND_LIST):
       global    a __global or __constant pointer: a buffer              hst_karg_buffer
       local     a __local pointer: bytes of local memory                 hst_karg_local
       int uint long ulong float double: a scalar of that OpenCL type     hst_karg_int, ...
       value     any other by-value parameter: a vector (float2, int4), a struct, or the element
                 type T of a generic program (array.h's -DHST_DT)         hst_karg_value
       image     an image (image2d_t, image3d_t, ...)                     hst_karg_image
       sampler   a sampler                                                hst_karg_sampler
   twin (NULL: the kernel has no host twin, and the host device refuses it) does the kernel's
   work on the host device: args as bound (a buffer's memory through hst_karg_ptr), range as
   launched. tests/test_kernel_decls.c checks every family's signatures against its source. */
#define HST_KARG_KIND_LIST(X) \
    X(GLOBAL, "global") X(LOCAL, "local") X(INT, "int") X(UINT, "uint") X(LONG, "long") \
    X(ULONG, "ulong") X(FLOAT, "float") X(DOUBLE, "double") X(VALUE, "value") X(IMAGE, "image") \
    X(SAMPLER, "sampler")
#define HST__KARG_ENUM(name, word) HST_KARG_##name,
typedef enum hst_karg_kind { HST_KARG_NONE = 0, HST_KARG_KIND_LIST(HST__KARG_ENUM) HST_KARG_KIND_END } hst_karg_kind;
#undef HST__KARG_ENUM
#define HST_KERNEL_MAX_ARGS 72   /* parameters of one declared kernel, at most (halo.h's widest: 70) */

/* One bound argument (made by the hst_karg_* functions below; kind says which member holds it). */
typedef struct hst_karg {
    hst_karg_kind kind;
    size_t bytes;                /* the value's bytes; LOCAL: the local memory's */
    union {
        const hst_buffer *buffer;
        const hst_image *image;
        const hst_sampler *sampler;
        int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
        const void *value;       /* VALUE: bytes at value, read when the launch binds it */
    } v;
} hst_karg;
/* The binder. Thread-safe. */
HST_API hst_karg hst_karg_buffer(const hst_buffer *buf);
HST_API hst_karg hst_karg_local(size_t bytes);
HST_API hst_karg hst_karg_int(int32_t x);
HST_API hst_karg hst_karg_uint(uint32_t x);
HST_API hst_karg hst_karg_long(int64_t x);
HST_API hst_karg hst_karg_ulong(uint64_t x);
HST_API hst_karg hst_karg_float(float x);
HST_API hst_karg hst_karg_double(double x);
HST_API hst_karg hst_karg_value(size_t bytes, const void *value);
HST_API hst_karg hst_karg_image(const hst_image *img);
HST_API hst_karg hst_karg_sampler(const hst_sampler *s);
/* What a twin reads and writes: a GLOBAL argument's memory on the host device, or, inside a
   twin, a LOCAL argument's scratch memory (its bytes, made for the launch); NULL for other kinds
   or a buffer without host memory. Thread safety: while alive. */
HST_API void *hst_karg_ptr(const hst_karg *a);

/* A launch's NDRange: dims (1..3) dimensions of global work-items from offset; on OpenCL
   devices global is rounded up to a multiple of local (kernels bound-check), local all 0
   picks hst_launch's default. A twin receives it as given. */
typedef struct hst_range {
    unsigned dims;
    size_t offset[3], global[3], local[3];
} hst_range;
/* A kernel's host twin: the kernel's work over range on the host device. */
typedef void (*hst_twin_fn)(const hst_karg *args, const hst_range *range);
typedef struct hst_kernel_decl {
    const char *name;            /* the kernel's name in the program */
    const char *signature;       /* its parameters, one word each (above) */
    hst_twin_fn twin;            /* NULL: none */
} hst_kernel_decl;
typedef struct hst_kernel_family {
    const char *name;                                /* for messages: "quality" */
    const char *const *(*source)(size_t *count);     /* the program's pieces (kernels.h) */
    const hst_kernel_decl *kernels;                  /* indexed by the X-macro's ids */
    unsigned num_kernels;
} hst_kernel_family;
#define HST_KERNEL_ID(id, name, signature, twin) id,
#define HST_KERNEL_DECL(id, name, signature, twin) {#name, signature, twin},

/* One launch of a declared kernel (zero-initialise, then set what the launch needs). */
typedef struct hst_launch_desc {
    const hst_kernel_family *family;
    const char *options;         /* the program's build options (NULL: none); each distinct
                                    string builds (once per backend) a program of its own */
    unsigned kernel;             /* the kernel's id in the family */
    hst_range range;
    const hst_karg *args;        /* num_args arguments, in the signature's order */
    size_t num_args;
    hst_queue *queue;            /* NULL: the backend's default queue */
    size_t num_wait;             /* the events the launch waits for */
    const hst_event *wait;
} hst_launch_desc;
/* Launches d->kernel of d->family on be: on an OpenCL device the family's program, built with
   d->options on first use and kept (with its kernels) until be is destroyed, the arguments set
   and the range enqueued on d->queue after d->wait; on the host device its twin, run now after
   d->wait (*out as every host device command's, hst_queue_marker's). Every argument is checked
   against the declared signature first, on every device. *out (may be NULL): the launch's
   event. Errors: HST_ERROR_INVALID_ARGUMENT (NULLs, kernel out of range, an argument count or
   kind other than declared: the log names the family, kernel, argument and both kinds; a
   GLOBAL argument without memory on the host device), HST_ERROR_UNSUPPORTED (no twin, or an
   image or sampler argument, on the host device: hst_sampler_create says why),
   HST_ERROR_OUT_OF_HOST_MEMORY (a LOCAL argument's scratch, host device),
   hst_program_build's and hst_launch_offset's. Thread safety: per backend; except that on the
   host device a launch with no wait list and out NULL only reads the backend (and calls its
   allocator for LOCAL scratch): a room may run a declared kernel on disjoint parts of its range
   from several threads at once there (range.offset and range.global say which part). */
HST_API HST_NODISCARD hst_result hst_launch_kernel(hst_backend *be, const hst_launch_desc *d, hst_event *out);
/* The family's kernel on be's OpenCL device (its program built with options: NULL none), made
   once and kept by the backend until it is destroyed (do not destroy it): for callers that
   query it (hst_kernel_work_group_info) before they launch. Errors: HST_ERROR_INVALID_ARGUMENT
   (NULLs, kernel out of range), HST_ERROR_UNSUPPORTED (the host device), hst_program_build's
   and hst_kernel_create's. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_family_kernel(hst_backend *be, const hst_kernel_family *family,
                                                   const char *options, unsigned kernel, hst_kernel **out);
/* Binds args to k in order (by kind: hst_kernel_set_buffer, _image, _sampler, local bytes, or
   the value) and launches range on q: the launch of a kernel that has no declaration (a user's
   own, e.g. stream.h's stages built from sources); hst_launch_kernel ends here too. Errors: as
   hst_kernel_set_arg's and hst_launch_offset's (OpenCL devices only: the host device refuses,
   HST_ERROR_UNSUPPORTED). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_kernel_run(hst_queue *q, hst_kernel *k, const hst_range *range,
                                                size_t num_args, const hst_karg *args,
                                                size_t num_wait, const hst_event *wait, hst_event *out);
/* The kinds of decl's signature into kinds[0 .. max); returns how many, or -1 when a word is
   not one of HST_KARG_KIND_LIST's or there are more than max. Thread-safe. */
HST_API int hst_kernel_signature(const hst_kernel_decl *decl, hst_karg_kind *kinds, unsigned max);
/* A kind's signature word ("global", ...); "" for others. Thread-safe. */
HST_API const char *hst_karg_kind_word(hst_karg_kind kind);

/* ---------------------------------------------------------------------------------------------
   Extensions: what the layers above backend.h (array.h, choice.h, stream.h, halo.h, esrrf.h, or
   an embedder's own) use to keep state per backend and to report errors the library's way. They
   use backend.h's public API only, so each header's implementation may live in its own
   translation unit; backend.h knows nothing of them. A layer's state hangs on the backend in a
   named slot with a destroy hook, made on the layer's first use:

       my_state *st = (my_state *)hst_backend_extension(be, "mine");
       if (!st && (st = (my_state *)hst_backend_calloc(be, sizeof *st)) != NULL &&
           hst_backend_attach(be, "mine", st, my_state_destroy) != HST_SUCCESS)
           { hst_backend_free(be, st); st = NULL; }                                          */
#define HST_BACKEND_MAX_EXTENSIONS 8
/* Frees a layer's state (data as attached); called by hst_backend_destroy. */
typedef void (*hst_backend_ext_destroy_fn)(hst_backend *be, void *data);
/* Attaches data under name (a string constant, compared by content: "array", "choice").
   destroy (may be NULL) runs first thing in hst_backend_destroy, the last attached first,
   while the backend's queues, programs, pool and context are still alive. Errors:
   HST_ERROR_INVALID_ARGUMENT (be, name or data NULL; name already attached),
   HST_ERROR_UNSUPPORTED (all HST_BACKEND_MAX_EXTENSIONS slots taken). Thread safety: per
   backend. */
HST_API HST_NODISCARD hst_result hst_backend_attach(hst_backend *be, const char *name, void *data,
                                                    hst_backend_ext_destroy_fn destroy);
/* The data attached under name; NULL when none (or be or name NULL). Thread safety: per
   backend. */
HST_API void *hst_backend_extension(const hst_backend *be, const char *name);
/* Logs "func: message" (printf-style) at HST_LOG_ERROR under item and returns result: how a
   layer rejects an argument (HST_ERROR_INVALID_ARGUMENT) or reports a failure of its own.
   Thread safety: while alive (be NULL: thread-safe). */
HST__PRINTF(5, 6)
HST_API HST_NODISCARD hst_result hst_backend_fail(const hst_backend *be, hst_result result, hst_log_item item,
                                                  const char *func, const char *fmt, ...);
/* The headers' rejections, (be, func, fmt, ...): HST_ERROR_INVALID_ARGUMENT, logged under the
   finest item that fits (HST_LOGITEM_LIST says which to use). For the implementations of the
   library's headers; an embedder's layer may use them too. */
#define hst__null_arg(be, ...) \
    hst_backend_fail(be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_NULL_ARGUMENT, __VA_ARGS__)
#define hst__zero_arg(be, ...) \
    hst_backend_fail(be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_ZERO_SIZE, __VA_ARGS__)
#define hst__range_arg(be, ...) \
    hst_backend_fail(be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_OUT_OF_RANGE, __VA_ARGS__)
#define hst__state_arg(be, ...) \
    hst_backend_fail(be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_STATE, __VA_ARGS__)
#define hst__bad_arg(be, ...) \
    hst_backend_fail(be, HST_ERROR_INVALID_ARGUMENT, HST_LOGITEM_BAD_ARGUMENT, __VA_ARGS__)
/* Interruption: asks every long call running on be (the quality metrics' loops, the parameter
   sweep's scoring, streamed blocks) to stop at its next check, within about a second of work,
   returning HST_ERROR_CANCELLED; calls made afterwards return it at once until
   hst_backend_interrupt_clear. One flag of type sig_atomic_t, stored and read without locks:
   hst_backend_interrupt is async-signal-safe (call it from a SIGINT handler) and thread-safe
   while alive; hst_backend_interrupted is what the long loops poll (1: interrupted). */
HST_API void hst_backend_interrupt(hst_backend *be);
HST_API void hst_backend_interrupt_clear(hst_backend *be);
HST_API int hst_backend_interrupted(const hst_backend *be);
/* The backend's lock, recursive (its holder may take it again; one unlock per lock): per-backend
   calls made from threads of their own take turns under it. esrrf.h's live sessions take it
   around each piece their worker runs and around their creation, finish and destruction, and
   its batch calls for their whole run, so that sessions and batch calls on one backend take
   turns. A caller that makes per-backend calls from a thread of its own while a live session
   works takes it around them. Thread safety: while alive. */
HST_API void hst_backend_lock(hst_backend *be);
HST_API void hst_backend_unlock(hst_backend *be);
/* hst_backend_alloc with the bytes zeroed. Thread safety: while alive. */
HST_API void *hst_backend_calloc(const hst_backend *be, size_t bytes);
/* The disk cache directory ("" when off) and the desc's cap on live device bytes (0: none).
   Thread safety: while alive. */
HST_API const char *hst_backend_cache_dir(const hst_backend *be);
HST_API uint64_t hst_backend_device_limit(const hst_backend *be);
/* a * b (hst_size_mul) and a + b (hst_size_add) into *out: 1, or 0 with *out untouched when
   the result would overflow size_t. Thread-safe. */
HST_API int hst_size_mul(size_t a, size_t b, size_t *out);
HST_API int hst_size_add(size_t a, size_t b, size_t *out);
/* splitmix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
   generators", OOPSLA 2014): spreads a hst_hash_bytes result over the whole range, for keys
   and checksums. Thread-safe. */
HST_API uint64_t hst_hash_final(uint64_t h);
/* A temporary file name "<path>.<pid>.<stack>.tmp" beside path, unique per process and thread
   without a shared counter (stack: an address on the caller's stack tells threads apart), for
   files written whole and renamed into place. Thread-safe. */
HST_API void hst_temp_name(char *buf, size_t cap, const char *path, const void *stack);
/* A view of bytes [origin, origin + bytes) of buf, which may itself be a sub-buffer (unlike
   hst_buffer_create_sub), whose origin in the underlying allocation must be a multiple of
   align (HST_ERROR_ALIGNMENT, logged as HST_LOGITEM_MISALIGNED; OpenCL devices need their
   mem_base_addr_align_bytes). Free it with hst_buffer_destroy; the memory stays buf's. Errors:
   HST_ERROR_INVALID_ARGUMENT (NULL, bytes or align 0, range outside buf), OpenCL codes.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_buffer_create_view(hst_buffer *buf, size_t origin, size_t bytes,
                                                        size_t align, hst_buffer **out);
/* The allocation a buffer lies in (a sub-buffer's or view's parent, else buf itself) and buf's
   byte offset in it (*origin); NULL for buf NULL. Thread safety: while alive. */
HST_API const hst_buffer *hst_buffer_root(const hst_buffer *buf, size_t *origin);

/* ---------------------------------------------------------------------------------------------
   OS shim: the few operating-system services the library's headers use, on POSIX (pthreads,
   fcntl, sysconf) and on Windows (Win32: CreateThread, SRWLOCK, CONDITION_VARIABLE,
   InitOnceExecuteOnce, Interlocked*, LockFileEx, MoveFileEx), so that no other header includes
   <pthread.h>, <unistd.h> or <windows.h>. Modelled on miniaudio's ma_thread / ma_mutex: plain
   structs the caller owns, no allocation except a thread's start record on Windows. Every
   function here is thread-safe (on distinct objects; a mutex, condition or once flag is made
   to be shared). */
#if defined(_WIN32)
typedef struct hst_thread { void *handle; } hst_thread;          /* HANDLE */
typedef struct hst_mutex { void *srw; } hst_mutex;               /* SRWLOCK */
typedef struct hst_cond { void *cv; } hst_cond;                  /* CONDITION_VARIABLE */
typedef struct hst_once_flag { void *init; } hst_once_flag;      /* INIT_ONCE */
#  define HST_ONCE_INIT {0}
typedef struct hst_file_lock { void *handle; } hst_file_lock;    /* HANDLE */
typedef unsigned long hst__thread_self;                          /* DWORD: a thread id */
#else
typedef struct hst_thread { pthread_t t; } hst_thread;
typedef struct hst_mutex { pthread_mutex_t m; } hst_mutex;
typedef struct hst_cond { pthread_cond_t c; } hst_cond;
typedef struct hst_once_flag { pthread_once_t o; } hst_once_flag;
#  define HST_ONCE_INIT {PTHREAD_ONCE_INIT}
typedef struct hst_file_lock { int fd; } hst_file_lock;
typedef pthread_t hst__thread_self;
#endif
/* A recursive mutex (the thread that holds it may take it again; each lock has its unlock),
   made of a mutex and a condition variable: the owner is read and written under the inner
   mutex only, so no thread reads it while another writes it. */
typedef struct hst_rmutex {
    hst_mutex m;
    hst_cond free;
    hst__thread_self owner;
    unsigned depth;            /* 0: free */
} hst_rmutex;
/* Starts fn(arg) on a new thread (its return value is dropped). 1 on success, 0 when the
   system refuses (out of memory, thread limit: *t is then unusable, the caller runs fn
   itself). hst_thread_join waits for it to end and frees it; join each started thread once. */
HST_API int hst_thread_create(hst_thread *t, void *(*fn)(void *), void *arg);
HST_API void hst_thread_join(hst_thread *t);
/* A non-recursive mutex and a condition variable (no timed wait: the library has none).
   init: 1 on success, 0 when the system refuses (POSIX only; destroy only what was made).
   hst_cond_wait releases m, sleeps until signalled (or spuriously: wait in a loop on the
   predicate, as with pthread_cond_wait) and re-takes m. */
HST_API int hst_mutex_init(hst_mutex *m);
HST_API void hst_mutex_destroy(hst_mutex *m);
HST_API void hst_mutex_lock(hst_mutex *m);
HST_API void hst_mutex_unlock(hst_mutex *m);
HST_API int hst_cond_init(hst_cond *c);
HST_API void hst_cond_destroy(hst_cond *c);
HST_API void hst_cond_wait(hst_cond *c, hst_mutex *m);
HST_API void hst_cond_signal(hst_cond *c);
HST_API void hst_cond_broadcast(hst_cond *c);
/* A recursive mutex: hst_rmutex_lock returns at once to the thread that holds it (depth + 1),
   and waits for the others; hst_rmutex_unlock by the holder, once per lock. init: 1 on success,
   0 when the system refuses (destroy only what was made). */
HST_API int hst_rmutex_init(hst_rmutex *m);
HST_API void hst_rmutex_destroy(hst_rmutex *m);
HST_API void hst_rmutex_lock(hst_rmutex *m);
HST_API void hst_rmutex_unlock(hst_rmutex *m);
/* Runs fn exactly once per flag (a static `hst_once_flag f = HST_ONCE_INIT;`), the other
   callers waiting until it has returned. */
HST_API void hst_once(hst_once_flag *flag, void (*fn)(void));
/* *p += v as one atomic read-modify-write with a full barrier; returns the new value
   (v = 0: an atomic load). */
HST_API long hst_atomic_add(volatile long *p, long v);
/* The online processors (>= 1; 1 where the system does not say), the physical memory in
   bytes (0 where the system does not say), this process's id. */
HST_API unsigned hst_cpu_count(void);
/* Fork-join on the host's cores, the headers' host passes (esrrf.h's twins and finishing,
   quality.h's staging copies, the staged transfers): fn(ctx, k, n) for every share k < n,
   share 0 on the calling thread and the others on the library's kept worker threads (started
   on first need, asleep between calls; a call made while another call, or its own caller, is
   using them starts threads of its own; a thread the system refuses: its share runs on the
   calling thread after share 0); returns when all have. n is clamped to
   HST_PARALLEL_MAX_THREADS; 0 runs nothing. fn must not throw (C++) or longjmp out. */
#define HST_PARALLEL_MAX_THREADS 64
typedef void (*hst_parallel_fn)(void *ctx, unsigned k, unsigned n);
HST_API void hst_parallel(hst_parallel_fn fn, void *ctx, unsigned n);
/* memcpy(dst, src, bytes) in shares of at least 256 KiB on up to 8 cores (hst_parallel): one
   core's copy into pinned memory, about 8 GB/s, would bound a staged transfer (hst_write);
   8 cores of an H200's host copy 8 MiB at about 53 GB/s, 4 at 30, 12 to 16 no faster beside
   the device's own transfer (bench/RESULTS.md). The ranges must not overlap. */
HST_API void hst_parallel_memcpy(void *dst, const void *src, size_t bytes);
/* memset(dst, c, bytes) in hst_parallel_memcpy's shares: memory a caller touches first (the
   page faults of a fresh allocation are most of a large memset's time; they too run on the
   cores at once). */
HST_API void hst_parallel_memset(void *dst, int c, size_t bytes);
HST_API uint64_t hst_physical_memory_bytes(void);
HST_API long hst_process_id(void);
/* The user's numeric id (getuid) for per-user file names; 0 on Windows, where the cache
   directories are per user already. */
HST_API unsigned long hst_user_id(void);
/* Creates directory dir and the directories above it ('/' separates; '\\' too on Windows),
   mode 0755 on POSIX; existing ones are fine, failures show when the caller writes there. */
HST_API void hst_mkdirs(const char *dir);
/* Renames from over to, replacing an existing to in one step (POSIX rename; MoveFileEx with
   MOVEFILE_REPLACE_EXISTING on Windows, whose plain rename refuses). 1 on success, 0 with
   errno (POSIX) or the Win32 error (Windows) left as the system set it. */
HST_API int hst_rename_replace(const char *from, const char *to);
/* An exclusive advisory lock on the file at path (created if absent, left in place), held
   until hst_file_lock_release or the process ends; waits while another holder has it. Threads
   of one process exclude each other too (Linux: open-file-description locks; Windows:
   LockFileEx per handle); other POSIX systems lock per process (fcntl). 1 on success, 0 when
   the file cannot be opened or locked. */
HST_API int hst_file_lock_acquire(hst_file_lock *l, const char *path);
HST_API void hst_file_lock_release(hst_file_lock *l);

#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_platform_id hst_backend_cl_platform(const hst_backend *be);  /* NULL on host */
#endif
#ifdef HST_TEST_DEVICE_KIND
/* The test device kind (tests only): the host device's table of device operations behind a
   wrapper that counts calls per operation. hst_test_device_wrap switches a host device
   backend to it (HST_ERROR_UNSUPPORTED for another device); hst_test_device_count: the calls of
   the operation named op ("fill", "launch_declared", ...: backend.h's HST__DEVICE_OPS) since
   the last reset, in every wrapped backend, NULL: of all; hst_test_device_op_name(i): the
   i-th operation's name, NULL past the last. Not thread-safe except the counting itself. */
HST_API HST_NODISCARD hst_result hst_test_device_wrap(hst_backend *be);
HST_API unsigned long hst_test_device_count(const char *op);
HST_API const char *hst_test_device_op_name(unsigned i);
HST_API void hst_test_device_reset(void);
#endif

#ifdef __cplusplus
}
#endif
#endif /* HST_BACKEND_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_BACKEND_IMPLEMENTATION) && !defined(HST__BACKEND_IMPLEMENTED)
#define HST__BACKEND_IMPLEMENTED

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>   /* sig_atomic_t: hst_backend_interrupt is async-signal-safe */
#include <fenv.h>     /* hst_parallel's workers take the caller's floating-point environment */
/* The OS shim's halves (">>os shim"): the only place in the library that includes these. */
#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  ifndef NOMINMAX
#    define NOMINMAX
#  endif
#  include <windows.h>
#  include <direct.h>
#else
#  include <fcntl.h>
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <unistd.h>
#  include <sys/time.h>   /* hst_time_s: gettimeofday where strict C99 hides clock_gettime */
#endif


/* Definitions of public functions: with HST_STATIC they are static, and a program that uses only
   some of them must not be warned about the rest. */
#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__BDEF HST_API __attribute__((unused))
#else
#  define HST__BDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__LOG_MESSAGE_BYTES 1024  /* longer messages (build logs) are allocated */
#define HST__DEFAULT_LOCAL_1D 256  /* a multiple of every GPU's warp/wavefront; PoCL vectorises */
#define HST__CACHE_MAGIC "HSTPRGB1"
#define HST__CACHE_MAX_BINARY ((uint64_t)1 << 30)  /* a larger "binary" is a corrupt entry */
#define HST__HOST_ALIGN 128        /* the host device's reported base-address alignment */

/* >>types ------------------------------------------------------------------------------------ */
struct hst_queue {
    hst_backend *be;
    int profiling;             /* hst_queue_desc.profiling */
    struct hst__event *tail;   /* host device: the last marker, while it may still be pending */
#ifndef HST_NO_OPENCL
    cl_command_queue cl;
#endif
};

/* A host device event (>>events). magic comes first: an OpenCL event from the ICD loader starts
   with its dispatch table's address, which never equals it (a non-canonical address on 64-bit
   machines), so one look at the first 8 bytes tells the two apart. */
#define HST__EVENT_MAGIC 0x68737465766e7431ULL   /* "hstevnt1" */
typedef struct hst__callback {
    hst_event_fn fn;
    void *user;
    struct hst__callback *next;
} hst__callback;
typedef struct hst__waiter { struct hst__event *ev; struct hst__waiter *next; } hst__waiter;
struct hst__event {
    uint64_t magic;
    hst_backend *be;           /* its allocator and logger */
    unsigned refs;
    int status;                /* HST_EVENT_* or the negative status it ended with */
    int user;                  /* made by hst_user_event_create */
    int profiled;              /* enqueued on a profiling queue: t holds its times */
    uint64_t t[4];             /* queued, submit, start, end (ns, hst__time_ns) */
    hst__callback *callbacks;  /* to run once at the end, in registration order */
    hst__waiter *waiters;      /* markers waiting for it (they unlink themselves if freed first) */
    struct hst__event **deps;  /* a marker: the pending events it waits for (held) */
    size_t num_deps, pending;  /* pending: how many of deps have not ended yet */
    int dep_failed;            /* one of deps ended in an error */
    struct hst__event *next_ready;   /* hst__event_end's work list */
};
static void hst__event_release(struct hst__event *ev);

/* The host device event behind e, or NULL (e NULL or an OpenCL event). */
static struct hst__event *hst__host_event(hst_event e) {
    uint64_t magic;
    if (!e) return NULL;
    memcpy(&magic, (const void *)e, sizeof magic);
    return magic == HST__EVENT_MAGIC ? e : NULL;
}

/* OpenCL's codes for what the host device's events share with OpenCL's (as OpenCL names them,
   also where OpenCL is not compiled in). */
#define HST__CL_PROFILING_INFO_NOT_AVAILABLE (-7)
#define HST__CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14)
#define HST__CL_INVALID_OPERATION (-59)

struct hst_buffer {
    hst_backend *be;
    size_t bytes;              /* what the caller asked for */
    size_t capacity;           /* what was allocated (a pool bin may be larger) */
    void *host;                /* host device memory, or a pinned buffer's mapping */
    hst_buffer *parent;        /* sub-buffers: the buffer they view */
    size_t origin;             /* sub-buffers: byte offset into the parent */
    hst_pool *pool;            /* pooled blocks return here on destroy */
    hst_buffer *next_held;     /* pool: the next held block (held list, largest first) */
    hst_buffer *prev_active, *next_active;   /* pool: the blocks handed out */
    int pinned;
    hst_buffer *next_pinned;   /* the backend's pinned buffers (not sub-buffers): staging skips them */
    int wrapped;               /* hst_buffer_wrap: the memory is the caller's, never freed */
    uint64_t serial;           /* hst_buffer_serial */
#ifndef HST_NO_OPENCL
    cl_mem cl;
#endif
};

struct hst_image {
    hst_backend *be;
    unsigned type, mem_flags;  /* HST_IMAGE_*, HST_MEM_* */
    hst_buffer *buffer;        /* HST_IMAGE_1D_BUFFER: the buffer viewed */
    hst_dtype dtype;
    unsigned channels, ndim;   /* ndim: of one image (a layer) */
    int normalized;            /* u8 read as [0, 1] floats, i8 and i16 as [-1, 1] */
    size_t extent[3];          /* a box's extent: width, height or layers, depth or layers */
    size_t reserved;           /* bytes charged to the backend's device memory */
    size_t pixel_bytes;
    hst_image_format format;   /* OpenCL's numbers, from dtype, channels and normalized */
    void *host;                /* host device: tight pixels */
#ifndef HST_NO_OPENCL
    cl_mem cl;
#endif
};

struct hst_sampler {
    hst_backend *be;
    int normalized;
    unsigned address, filter;
#ifndef HST_NO_OPENCL
    cl_sampler cl;
#endif
};

/* OpenCL's image numbers that the library uses without the OpenCL headers (>>opencl images
   checks them against cl.h). */
#define HST__CL_R 0x10B0
#define HST__CL_RG 0x10B2
#define HST__CL_RGBA 0x10B5
#define HST__CL_DEPTH_STENCIL 0x10BE
#define HST__CL_ABGR 0x10C3
#define HST__CL_SNORM_INT8 0x10D0
#define HST__CL_SNORM_INT16 0x10D1
#define HST__CL_UNORM_INT8 0x10D2
#define HST__CL_SIGNED_INT8 0x10D7
#define HST__CL_SIGNED_INT16 0x10D8
#define HST__CL_SIGNED_INT32 0x10D9
#define HST__CL_UNSIGNED_INT8 0x10DA
#define HST__CL_FLOAT 0x10DE
#define HST__CL_UNORM_INT_101010_2 0x10E0
#define HST__CL_MEM_OBJECT_BUFFER 0x10F0
#define HST__CL_MEM_OBJECT_IMAGE2D 0x10F1
#define HST__CL_MEM_OBJECT_IMAGE3D 0x10F2
#define HST__CL_MEM_OBJECT_IMAGE2D_ARRAY 0x10F3
#define HST__CL_MEM_OBJECT_IMAGE1D 0x10F4
#define HST__CL_MEM_OBJECT_IMAGE1D_ARRAY 0x10F5
#define HST__CL_MEM_OBJECT_IMAGE1D_BUFFER 0x10F6
#define HST__CL_MEM_TYPE 0x1100
#define HST__CL_MEM_SIZE 0x1102
#define HST__CL_MEM_HOST_PTR 0x1103
#define HST__CL_MEM_REFERENCE_COUNT 0x1105
#define HST__CL_MEM_OFFSET 0x1108
#define HST__CL_IMAGE_FORMAT 0x1110
#define HST__CL_IMAGE_ELEMENT_SIZE 0x1111
#define HST__CL_IMAGE_ROW_PITCH 0x1112
#define HST__CL_IMAGE_SLICE_PITCH 0x1113
#define HST__CL_IMAGE_WIDTH 0x1114
#define HST__CL_IMAGE_HEIGHT 0x1115
#define HST__CL_IMAGE_DEPTH 0x1116
#define HST__CL_IMAGE_ARRAY_SIZE 0x1117
#define HST__CL_SAMPLER_REFERENCE_COUNT 0x1150

/* An array image's layers (the box axis they run along: hst_image_desc), else 0. */
static size_t hst__image_layers(const hst_image *img) {
    return img->type == HST_IMAGE_1D_ARRAY ? img->extent[1] : img->type == HST_IMAGE_2D_ARRAY ? img->extent[2] : 0;
}

/* An HST_IMAGE_* type as OpenCL's CL_MEM_OBJECT_IMAGE* number. */
static uint32_t hst__image_cl_type(unsigned type) {
    static const uint32_t t[] = {0, HST__CL_MEM_OBJECT_IMAGE1D, HST__CL_MEM_OBJECT_IMAGE2D, HST__CL_MEM_OBJECT_IMAGE3D,
        HST__CL_MEM_OBJECT_IMAGE1D_ARRAY, HST__CL_MEM_OBJECT_IMAGE2D_ARRAY, HST__CL_MEM_OBJECT_IMAGE1D_BUFFER};
    return type <= HST_IMAGE_1D_BUFFER ? t[type] : 0;
}

struct hst_pool {
    hst_backend *be;
    hst_buffer *held;          /* held blocks, sorted by capacity, largest first */
    hst_buffer *active;        /* blocks handed out, so destroy can detach them */
    hst_pool_stats stats;
};

struct hst_program {
    hst_backend *be;
    uint64_t key[2];
    unsigned refs;
    hst_program *next;
#ifndef HST_NO_OPENCL
    cl_program cl;
#endif
};

struct hst_kernel {
    hst_program *prog;
#ifndef HST_NO_OPENCL
    cl_kernel cl;
    size_t max_work_group;       /* CL_KERNEL_WORK_GROUP_SIZE, 0 until asked */
#endif
};

/* A layer's state on a backend (>>extensions). */
typedef struct hst__extension {
    const char *name;
    void *data;
    hst_backend_ext_destroy_fn destroy;
} hst__extension;

/* One hold on a backend (hst_backend_hold): a list, newest first. */
typedef struct hst__hold { const void *holder; const char *what; struct hst__hold *next; } hst__hold;

typedef struct hst__family_prog hst__family_prog;   /* >>declared kernels */

struct hst_backend {
    hst_device_info info;
    const struct hst__device_ops *ops;   /* >>device interface: the device kind's table */
    hst__hold *holds;          /* the objects that still use the backend: destroy refuses */
    hst_log_fn logger;
    void *log_user;
    hst_log_level log_level;
    hst_allocator allocator;
    char cache_dir[1024];      /* empty: no disk cache */
    uint64_t device_limit, device_bytes;
    uint64_t buffers_made;     /* the last hst_buffer_serial given */
    hst_queue queue;
    hst_pool *pool;
    hst_program *programs;     /* the in-memory program cache */
    hst__family_prog *families;  /* >>declared kernels: programs and kernels made */
    hst__extension ext[HST_BACKEND_MAX_EXTENSIONS];  /* >>extensions, attach order */
    unsigned num_ext;
    hst_buffer *stage[2];      /* >>staged transfers: the pinned pieces, made on first use */
    hst_buffer *pinned;        /* the pinned buffers made (hst_pinned_create), newest first */
    int stage_off;             /* 1: this backend copies directly */
    volatile sig_atomic_t interrupted;  /* hst_backend_interrupt: long calls stop */
    hst_rmutex lock;           /* hst_backend_lock */
#ifndef HST_NO_OPENCL
    cl_context ctx;
    cl_device_id dev;
    cl_platform_id platform;
#endif
};

/* >>device interface ------------------------------------------------------------------------- */
/* What differs between device kinds is one table of operations (miniaudio's
   ma_backend_callbacks is the model): a public function checks its arguments once, then calls
   through its backend's table (be->ops; an event's: hst__event_ops). ">>opencl device" and
   ">>host device" are the two implementations; adding a device kind means one more table.
   HST__DEVICE_OPS lists every operation once, X(return type, name, parameters, arguments) and
   XV(name, parameters, arguments) for those returning nothing: the table's members and the test
   device kind's counting wrappers (HST_TEST_DEVICE_KIND) are made from it. Operations receive
   checked arguments; func names the public call for the log; (num_wait, wait, out) are the
   public call's. */
#define HST__WAITS size_t num_wait, const hst_event *wait, hst_event *out
#define HST__DEVICE_OPS(X, XV) \
    X(hst_result, open, (hst_backend *be, const hst_backend_desc *desc), (be, desc)) \
    XV(close, (hst_backend *be), (be)) \
    X(hst_result, callable, (const hst_backend *be, const char *func), (be, func)) \
    X(hst_result, queue_create, (hst_queue *q), (q)) \
    XV(queue_destroy, (hst_queue *q), (q)) \
    X(hst_result, queue_flush, (hst_queue *q), (q)) \
    X(hst_result, queue_finish, (hst_queue *q), (q)) \
    X(hst_result, marker, (hst_queue *q, int barrier, HST__WAITS), (q, barrier, num_wait, wait, out)) \
    X(hst_result, nothing, (hst_queue *q, const char *func, HST__WAITS), (q, func, num_wait, wait, out)) \
    X(hst_result, event_wait, (hst_event e, size_t index), (e, index)) \
    XV(event_release, (hst_event e), (e)) \
    XV(event_retain, (hst_event e), (e)) \
    X(hst_result, event_status, (hst_event e, int *status), (e, status)) \
    X(hst_result, event_profile, (hst_event e, uint64_t t[4]), (e, t)) \
    X(hst_result, user_event_create, (hst_backend *be, hst_event *out), (be, out)) \
    X(hst_result, user_event_set, (hst_event e, int status), (e, status)) \
    X(hst_result, event_set_callback, (hst_event e, hst_event_fn fn, void *user), (e, fn, user)) \
    X(hst_result, buffer_alloc, (hst_buffer *b, unsigned flags, void *wrap), (b, flags, wrap)) \
    X(hst_result, buffer_sub, (hst_buffer *b, hst_buffer *root), (b, root)) \
    X(hst_result, buffer_adopt, (hst_buffer *b, void *handle), (b, handle)) \
    XV(buffer_free, (hst_buffer *b), (b)) \
    X(hst_result, fill, (hst_queue *q, hst_buffer *buf, const void *pattern, size_t pattern_bytes, \
                         size_t offset, size_t bytes, HST__WAITS), \
      (q, buf, pattern, pattern_bytes, offset, bytes, num_wait, wait, out)) \
    X(hst_result, write, (hst_queue *q, hst_buffer *dst, size_t offset, const void *src, size_t bytes, \
                          int blocking, HST__WAITS), (q, dst, offset, src, bytes, blocking, num_wait, wait, out)) \
    X(hst_result, read, (hst_queue *q, const hst_buffer *src, size_t offset, void *dst, size_t bytes, \
                         int blocking, HST__WAITS), (q, src, offset, dst, bytes, blocking, num_wait, wait, out)) \
    X(hst_result, copy, (hst_queue *q, hst_buffer *dst, size_t dst_offset, const hst_buffer *src, \
                         size_t src_offset, size_t bytes, HST__WAITS), \
      (q, dst, dst_offset, src, src_offset, bytes, num_wait, wait, out)) \
    X(hst_result, rect, (hst_queue *q, const char *func, const hst__rect_cmd *c, HST__WAITS), \
      (q, func, c, num_wait, wait, out)) \
    X(hst_result, map, (hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset, size_t bytes, \
                        int blocking, void **ptr, HST__WAITS), \
      (q, buf, map_flags, offset, bytes, blocking, ptr, num_wait, wait, out)) \
    X(hst_result, unmap, (hst_queue *q, hst_buffer *buf, void *ptr, HST__WAITS), (q, buf, ptr, num_wait, wait, out)) \
    X(hst_result, migrate, (hst_queue *q, size_t num_buffers, hst_buffer *const *buffers, unsigned flags, \
                            HST__WAITS), (q, num_buffers, buffers, flags, num_wait, wait, out)) \
    X(void *, svm_alloc, (hst_backend *be, size_t bytes, int fine), (be, bytes, fine)) \
    XV(svm_free, (hst_backend *be, void *ptr), (be, ptr)) \
    X(hst_result, svm_map, (hst_queue *q, unsigned map_flags, void *ptr, size_t bytes, HST__WAITS), \
      (q, map_flags, ptr, bytes, num_wait, wait, out)) \
    X(hst_result, svm_unmap, (hst_queue *q, void *ptr, HST__WAITS), (q, ptr, num_wait, wait, out)) \
    X(hst_result, svm_copy, (hst_queue *q, void *dst, const void *src, size_t bytes, int blocking, HST__WAITS), \
      (q, dst, src, bytes, blocking, num_wait, wait, out)) \
    X(hst_result, svm_fill, (hst_queue *q, void *ptr, const void *pattern, size_t pattern_bytes, size_t bytes, \
                             HST__WAITS), (q, ptr, pattern, pattern_bytes, bytes, num_wait, wait, out)) \
    X(hst_result, svm_migrate, (hst_queue *q, size_t num, const void *const *ptrs, const size_t *sizes, \
                                unsigned flags, HST__WAITS), (q, num, ptrs, sizes, flags, num_wait, wait, out)) \
    X(hst_result, image_create, (hst_image *img), (img)) \
    X(hst_result, image_adopt, (hst_image *img, void *handle, hst_image_desc *d), (img, handle, d)) \
    X(hst_result, image_formats, (hst_backend *be, unsigned mem_flags, unsigned type, hst_image_format *formats, \
                                  size_t max, size_t *count), (be, mem_flags, type, formats, max, count)) \
    X(hst_result, image_pitches, (const hst_image *img, size_t *row_pitch, size_t *slice_pitch), \
      (img, row_pitch, slice_pitch)) \
    XV(image_free, (hst_image *img), (img)) \
    X(hst_result, image_rw, (hst_queue *q, const char *func, int write, hst_image *img, const size_t *origin, \
                             const size_t *region, void *host, size_t row_pitch, size_t slice_pitch, \
                             int blocking, HST__WAITS), \
      (q, func, write, img, origin, region, host, row_pitch, slice_pitch, blocking, num_wait, wait, out)) \
    X(hst_result, image_copy, (hst_queue *q, hst_image *dst, const size_t *dst_origin, const hst_image *src, \
                               const size_t *src_origin, const size_t *region, HST__WAITS), \
      (q, dst, dst_origin, src, src_origin, region, num_wait, wait, out)) \
    X(hst_result, image_buffer, (hst_queue *q, const char *func, int to_buffer, hst_image *img, \
                                 const size_t *origin, const size_t *region, hst_buffer *buf, size_t offset, \
                                 HST__WAITS), \
      (q, func, to_buffer, img, origin, region, buf, offset, num_wait, wait, out)) \
    X(hst_result, image_fill, (hst_queue *q, hst_image *img, const void *color, const size_t *origin, \
                               const size_t *region, HST__WAITS), (q, img, color, origin, region, num_wait, wait, out)) \
    X(hst_result, image_map, (hst_queue *q, hst_image *img, unsigned map_flags, const size_t *origin, \
                              const size_t *region, int blocking, size_t *row_pitch, size_t *slice_pitch, \
                              void **ptr, HST__WAITS), \
      (q, img, map_flags, origin, region, blocking, row_pitch, slice_pitch, ptr, num_wait, wait, out)) \
    X(hst_result, image_unmap, (hst_queue *q, hst_image *img, void *ptr, HST__WAITS), (q, img, ptr, num_wait, wait, out)) \
    X(hst_result, object_info, (const hst__info_query *iq), (iq)) \
    X(hst_result, sampler_create, (hst_sampler *s), (s)) \
    X(hst_result, sampler_adopt, (hst_sampler *s, void *handle), (s, handle)) \
    XV(sampler_free, (hst_sampler *s), (s)) \
    X(hst_result, program_compile, (hst_program *p, size_t count, const char *const *sources, const char *options), \
      (p, count, sources, options)) \
    XV(program_free, (hst_program *p), (p)) \
    X(hst_result, kernel_create, (hst_kernel *k, const char *name), (k, name)) \
    XV(kernel_free, (hst_kernel *k), (k)) \
    X(hst_result, kernel_set_arg, (hst_kernel *k, unsigned index, const hst_karg *a), (k, index, a)) \
    X(hst_result, kernel_set_svm, (hst_kernel *k, unsigned index, const void *ptr), (k, index, ptr)) \
    X(hst_result, kernel_wg_info, (const hst_kernel *k, hst_kernel_wg_info *out), (k, out)) \
    X(hst_result, launch, (hst_queue *q, hst_kernel *k, unsigned dims, const size_t *offset, const size_t *global, \
                           const size_t *local, HST__WAITS), (q, k, dims, offset, global, local, num_wait, wait, out)) \
    X(hst_result, launch_declared, (hst_backend *be, const hst_launch_desc *d, hst_queue *q, hst_event *out), \
      (be, d, q, out))

/* A raw info query (hst_buffer_get_info_raw, _image_, _sampler_) once checked: which call
   answers it (kind), of which object, and clGet*Info's arguments. */
enum { HST__INFO_BUFFER, HST__INFO_IMAGE_MEM, HST__INFO_IMAGE, HST__INFO_SAMPLER };
typedef struct hst__info_query {
    const char *func;          /* the public call, for the log */
    int kind;
    const hst_buffer *buf;
    const hst_image *img;
    const hst_sampler *smp;
    uint32_t param;
    size_t bytes;
    void *value;
    size_t *size_ret;
} hst__info_query;

/* A rectangular transfer (hst_write_rect, _read_rect, _copy_rect) once checked: dir 0
   host -> buffer, 1 buffer -> host, 2 buffer -> buffer; d and s the resolved sides. */
typedef struct hst__rect_abs { size_t origin[3], row_pitch, slice_pitch; } hst__rect_abs;
typedef struct hst__rect_cmd {
    int dir, blocking;
    hst_buffer *dbuf;
    void *dhost;
    const hst_buffer *sbuf;
    const void *shost;
    hst__rect_abs d, s;
    const size_t *region;
} hst__rect_cmd;

#define HST__OP_MEMBER(ret, name, params, args) ret (*name) params;
#define HST__OP_MEMBER_V(name, params, args) void (*name) params;
typedef struct hst__device_ops {
    const char *name;          /* for messages: "host", "OpenCL" */
    int programs;              /* 1: builds OpenCL programs (hst_program_build, kernels) */
    HST__DEVICE_OPS(HST__OP_MEMBER, HST__OP_MEMBER_V)
} hst__device_ops;
#undef HST__OP_MEMBER
#undef HST__OP_MEMBER_V

/* The tables (">>host device", ">>opencl device"); the test device kind's (>>test device). */
static const hst__device_ops *hst__host_device(void);
#ifndef HST_NO_OPENCL
static const hst__device_ops *hst__opencl_device(void);
#endif

/* The table an event's operations go through: its backend's for a host device event (NULL for
   e NULL), the OpenCL device's for any other. */
static const hst__device_ops *hst__event_ops(hst_event e) {
    struct hst__event *ev = hst__host_event(e);
    if (ev) return ev->be->ops;
#ifndef HST_NO_OPENCL
    if (e) return hst__opencl_device();
#endif
    return NULL;
}

/* >>logging ---------------------------------------------------------------------------------- */
#define HST__LOGITEM_NAME(name) #name,
static const char *const hst__item_names[HST_LOGITEM_COUNT] = {HST_LOGITEM_LIST(HST__LOGITEM_NAME)};
#undef HST__LOGITEM_NAME

HST__BDEF const char *hst_log_item_name(hst_log_item item) {
    if ((int)item < 0 || item >= HST_LOGITEM_COUNT) return "UNKNOWN";
    return hst__item_names[item];
}

static hst_log_level hst__env_log_level(void) {
    const char *s = getenv("HST_LOG");
    if (!s || !*s) return HST_LOG_WARN;
    if (!strcmp(s, "error")) return HST_LOG_ERROR;
    if (!strcmp(s, "info")) return HST_LOG_INFO;
    if (!strcmp(s, "debug")) return HST_LOG_DEBUG;
    return HST_LOG_WARN;
}

static void hst__stderr_logger(void *user, hst_log_level level, hst_log_item item,
                               const char *message) {
    static const char *const names[] = {"", "error", "warning", "info", "debug"};
    (void)user;
    fprintf(stderr, "halostream %s [%s]: %s\n", names[level], hst_log_item_name(item), message);
}

/* Logs through the backend's logger, or the default stderr logger when be is NULL. */
static void hst__vlog(const hst_backend *be, hst_log_level level, hst_log_item item,
                      const char *fmt, va_list ap) {
    char msg[HST__LOG_MESSAGE_BYTES];
    hst_log_fn fn = be ? be->logger : hst__stderr_logger;
    hst_log_level max = be ? be->log_level : hst__env_log_level();
    if (level > max) return;
    HST__VSNPRINTF(msg, sizeof msg, fmt, ap);
    fn(be ? be->log_user : NULL, level, item, msg);
}

HST__PRINTF(4, 5)
static void hst__log(const hst_backend *be, hst_log_level level, hst_log_item item,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hst__vlog(be, level, item, fmt, ap);
    va_end(ap);
}

HST__BDEF void hst_backend_interrupt(hst_backend *be) {
    if (be) be->interrupted = 1;
}

HST__BDEF void hst_backend_interrupt_clear(hst_backend *be) {
    if (be) be->interrupted = 0;
}

HST__BDEF int hst_backend_interrupted(const hst_backend *be) {
    return be && be->interrupted != 0;
}

HST__BDEF void hst_backend_lock(hst_backend *be) {
    if (be) hst_rmutex_lock(&be->lock);
}

HST__BDEF void hst_backend_unlock(hst_backend *be) {
    if (be) hst_rmutex_unlock(&be->lock);
}

HST__BDEF hst_result hst_backend_fail(const hst_backend *be, hst_result result, hst_log_item item,
                                      const char *func, const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    HST__VSNPRINTF(why, sizeof why, fmt, ap);
    va_end(ap);
    hst__log(be, HST_LOG_ERROR, item, "%s: %s", func, why);
    return result;
}

HST__BDEF void hst_backend_log(const hst_backend *be, hst_log_level level, hst_log_item item,
                               const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hst__vlog(be, level, item, fmt, ap);
    va_end(ap);
}

/* >>helpers ---------------------------------------------------------------------------------- */
/* a * b into *out; 0 (and *out untouched) on overflow. */
HST__BDEF int hst_size_mul(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

HST__BDEF int hst_size_add(size_t a, size_t b, size_t *out) {
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

static hst_result hst__overflow(const hst_backend *be, const char *func, const char *what) {
    hst__log(be, HST_LOG_ERROR, HST_LOGITEM_SIZE_OVERFLOW, "%s: %s overflows size_t", func, what);
    return HST_ERROR_OVERFLOW;
}

static void *hst__malloc(const hst_backend *be, size_t bytes) {
    void *p;
    if (bytes == 0) bytes = 1;
    p = (be && be->allocator.alloc) ? be->allocator.alloc(bytes, be->allocator.user)
                                    : malloc(bytes);
    if (!p)
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                 "host allocation of %zu bytes failed", bytes);
    return p;
}

static void hst__free(const hst_backend *be, void *p) {
    if (!p) return;
    if (be && be->allocator.free) be->allocator.free(p, be->allocator.user);
    else free(p);
}

HST__BDEF void *hst_backend_alloc(const hst_backend *be, size_t bytes) {
    return hst__malloc(be, bytes);
}

HST__BDEF void hst_backend_free(const hst_backend *be, void *ptr) { hst__free(be, ptr); }

static void *hst__calloc(const hst_backend *be, size_t bytes) {
    void *p = hst__malloc(be, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

HST__BDEF void *hst_backend_calloc(const hst_backend *be, size_t bytes) {
    return hst__calloc(be, bytes);
}

static void hst__copy_string(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int hst__contains_nocase(const char *hay, const char *needle) {
    size_t i, j, hn = strlen(hay), nn = strlen(needle);
    if (nn == 0) return 0;
    for (i = 0; i + nn <= hn; i++) {
        for (j = 0; j < nn; j++)
            if (tolower((unsigned char)hay[i + j]) != tolower((unsigned char)needle[j])) break;
        if (j == nn) return 1;
    }
    return 0;
}

/* Keys are finished by a splitmix64 avalanche in hst__hash_final so that nearby keys spread
   over the whole range. */
HST__BDEF uint64_t hst_hash_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
    return h;
}

HST__BDEF double hst_time_s(void) {
#if defined(_WIN32)
    LARGE_INTEGER t, f;   /* the performance counter: monotonic, sub-microsecond */
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
#elif defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    struct timeval tv;   /* strict C99 hides clock_gettime: wall time with microseconds */
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
#endif
}

/* Nanoseconds on the monotonic clock of hst_time_s: the host device's profiling times. */
static uint64_t hst__time_ns(void) {
#if defined(CLOCK_MONOTONIC) && !defined(_WIN32)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#else
    return (uint64_t)(hst_time_s() * 1e9);
#endif
}

HST__BDEF uint64_t hst_hash_final(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* >>os shim ---------------------------------------------------------------------------------- */
/* The declarations' "OS shim": one #if per service, POSIX first, Win32 second. */
#if defined(_WIN32)
typedef char hst__check_win32_words[(sizeof(SRWLOCK) == sizeof(void *) &&
                                     sizeof(CONDITION_VARIABLE) == sizeof(void *) &&
                                     sizeof(INIT_ONCE) == sizeof(void *) &&
                                     sizeof(LONG) == sizeof(long)) ? 1 : -1];
/* A thread's entry and argument, allocated by the creator and freed by the thread (the
   caller's hst_thread may move before the thread runs). */
typedef struct hst__thread_start { void *(*fn)(void *); void *arg; } hst__thread_start;
static DWORD WINAPI hst__thread_main(LPVOID p) {
    hst__thread_start st = *(hst__thread_start *)p;
    free(p);
    (void)st.fn(st.arg);
    return 0;
}
#endif

HST__BDEF int hst_thread_create(hst_thread *t, void *(*fn)(void *), void *arg) {
#if defined(_WIN32)
    hst__thread_start *st = (hst__thread_start *)malloc(sizeof *st);
    if (!st) return 0;
    st->fn = fn;
    st->arg = arg;
    if (!(t->handle = CreateThread(NULL, 0, hst__thread_main, st, 0, NULL))) { free(st); return 0; }
    return 1;
#else
    return pthread_create(&t->t, NULL, fn, arg) == 0;
#endif
}

HST__BDEF void hst_thread_join(hst_thread *t) {
#if defined(_WIN32)
    WaitForSingleObject((HANDLE)t->handle, INFINITE);
    CloseHandle((HANDLE)t->handle);
#else
    pthread_join(t->t, NULL);
#endif
}

HST__BDEF int hst_mutex_init(hst_mutex *m) {
#if defined(_WIN32)
    InitializeSRWLock((PSRWLOCK)(void *)&m->srw);
    return 1;
#else
    return pthread_mutex_init(&m->m, NULL) == 0;
#endif
}

HST__BDEF void hst_mutex_destroy(hst_mutex *m) {
#if defined(_WIN32)
    (void)m;   /* an SRW lock holds no resources */
#else
    pthread_mutex_destroy(&m->m);
#endif
}

HST__BDEF void hst_mutex_lock(hst_mutex *m) {
#if defined(_WIN32)
    AcquireSRWLockExclusive((PSRWLOCK)(void *)&m->srw);
#else
    pthread_mutex_lock(&m->m);
#endif
}

HST__BDEF void hst_mutex_unlock(hst_mutex *m) {
#if defined(_WIN32)
    ReleaseSRWLockExclusive((PSRWLOCK)(void *)&m->srw);
#else
    pthread_mutex_unlock(&m->m);
#endif
}

HST__BDEF int hst_cond_init(hst_cond *c) {
#if defined(_WIN32)
    InitializeConditionVariable((PCONDITION_VARIABLE)(void *)&c->cv);
    return 1;
#else
    return pthread_cond_init(&c->c, NULL) == 0;
#endif
}

HST__BDEF void hst_cond_destroy(hst_cond *c) {
#if defined(_WIN32)
    (void)c;   /* a condition variable holds no resources */
#else
    pthread_cond_destroy(&c->c);
#endif
}

HST__BDEF void hst_cond_wait(hst_cond *c, hst_mutex *m) {
#if defined(_WIN32)
    SleepConditionVariableSRW((PCONDITION_VARIABLE)(void *)&c->cv, (PSRWLOCK)(void *)&m->srw,
                              INFINITE, 0);
#else
    pthread_cond_wait(&c->c, &m->m);
#endif
}

HST__BDEF void hst_cond_signal(hst_cond *c) {
#if defined(_WIN32)
    WakeConditionVariable((PCONDITION_VARIABLE)(void *)&c->cv);
#else
    pthread_cond_signal(&c->c);
#endif
}

HST__BDEF void hst_cond_broadcast(hst_cond *c) {
#if defined(_WIN32)
    WakeAllConditionVariable((PCONDITION_VARIABLE)(void *)&c->cv);
#else
    pthread_cond_broadcast(&c->c);
#endif
}

#if defined(_WIN32)
/* InitOnceExecuteOnce passes a data pointer: the function pointer travels inside a struct
   (ISO C has no conversion between function and object pointers). */
typedef struct hst__once_call { void (*fn)(void); } hst__once_call;
static BOOL CALLBACK hst__once_main(PINIT_ONCE once, PVOID param, PVOID *ctx) {
    (void)once; (void)ctx;
    ((hst__once_call *)param)->fn();
    return TRUE;
}
#endif

static hst__thread_self hst__self(void) {
#if defined(_WIN32)
    return (hst__thread_self)GetCurrentThreadId();
#else
    return pthread_self();
#endif
}

static int hst__self_is(hst__thread_self t) {
#if defined(_WIN32)
    return t == (hst__thread_self)GetCurrentThreadId();
#else
    return pthread_equal(t, pthread_self()) != 0;
#endif
}

HST__BDEF int hst_rmutex_init(hst_rmutex *m) {
    memset(m, 0, sizeof *m);
    if (!hst_mutex_init(&m->m)) return 0;
    if (hst_cond_init(&m->free)) return 1;
    hst_mutex_destroy(&m->m);
    return 0;
}

HST__BDEF void hst_rmutex_destroy(hst_rmutex *m) {
    hst_cond_destroy(&m->free);
    hst_mutex_destroy(&m->m);
}

HST__BDEF void hst_rmutex_lock(hst_rmutex *m) {
    hst_mutex_lock(&m->m);
    if (!m->depth || !hst__self_is(m->owner)) {
        while (m->depth) hst_cond_wait(&m->free, &m->m);
        m->owner = hst__self();
    }
    m->depth++;
    hst_mutex_unlock(&m->m);
}

HST__BDEF void hst_rmutex_unlock(hst_rmutex *m) {
    hst_mutex_lock(&m->m);
    if (m->depth && --m->depth == 0) hst_cond_signal(&m->free);
    hst_mutex_unlock(&m->m);
}

HST__BDEF void hst_once(hst_once_flag *flag, void (*fn)(void)) {
#if defined(_WIN32)
    hst__once_call call;
    call.fn = fn;
    InitOnceExecuteOnce((PINIT_ONCE)(void *)&flag->init, hst__once_main, &call, NULL);
#else
    pthread_once(&flag->o, fn);
#endif
}

#if !defined(_WIN32) && !defined(__GNUC__) && !defined(__clang__)
static pthread_mutex_t hst__atomic_mutex = PTHREAD_MUTEX_INITIALIZER;  /* no builtins: a lock */
#endif
HST__BDEF long hst_atomic_add(volatile long *p, long v) {
#if defined(_WIN32)
    return InterlockedExchangeAdd((volatile LONG *)p, (LONG)v) + v;
#elif defined(__GNUC__) || defined(__clang__)
    return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST);
#else
    long r;
    pthread_mutex_lock(&hst__atomic_mutex);
    r = (*p += v);
    pthread_mutex_unlock(&hst__atomic_mutex);
    return r;
#endif
}

HST__BDEF unsigned hst_cpu_count(void) {
#if defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);   /* the processors of this process's group (at most 64) */
    return si.dwNumberOfProcessors > 0 ? (unsigned)si.dwNumberOfProcessors : 1u;
#elif defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && (unsigned long)n <= UINT32_MAX ? (unsigned)n : 1u;
#else
    return 1;
#endif
}

typedef struct hst__pjob { hst_parallel_fn fn; void *ctx; unsigned k, n; } hst__pjob;

static void *hst__pjob_main(void *p) {
    hst__pjob *j = (hst__pjob *)p;
    j->fn(j->ctx, j->k, j->n);
    return NULL;
}

/* The fork-join on threads of the call's own (a share whose thread the system refuses runs on
   the calling thread after share 0): what a call takes when the pool is not its to use. */
static void hst__parallel_own(hst_parallel_fn fn, void *ctx, unsigned n) {
    hst__pjob jobs[HST_PARALLEL_MAX_THREADS];
    hst_thread th[HST_PARALLEL_MAX_THREADS];
    int started[HST_PARALLEL_MAX_THREADS];
    unsigned k;
    for (k = 0; k < n; k++) {
        jobs[k].fn = fn; jobs[k].ctx = ctx; jobs[k].k = k; jobs[k].n = n;
        started[k] = k > 0 && hst_thread_create(&th[k], hst__pjob_main, &jobs[k]);
    }
    fn(ctx, 0, n);
    for (k = 1; k < n; k++) {
        if (started[k]) hst_thread_join(&th[k]);
        else fn(ctx, k, n);
    }
}

/* >>parallel pool: workers 1 .. HST_PARALLEL_MAX_THREADS - 1, started when a call first needs
   them and kept asleep between calls until the process ends, so that a call costs its
   workers' wake-ups, not a thread creation each (an H200's 16-core host: a fork-join of 8
   shares 191 -> 30 us, of 16 425 -> 56 us, where an 8 MiB piece's copy takes about 160 us:
   bench/RESULTS.md). One call at a
   time owns the pool; a call that finds it owned (another thread's, or one made from inside a
   share) runs on threads of its own. A worker runs each share in the calling thread's
   floating-point environment (as a new thread would start in it: the same bits), with the
   signal mask of the thread that started it. A forked child starts with no workers (its
   parent's are not in it). The workers run the library's code until the process ends: a
   program must not unload a shared library built from these headers (dlclose, FreeLibrary)
   after a call that used them; Python 3.12 warns at os.fork() in a process with threads. */
typedef struct hst__pool {
    hst_mutex m;
    hst_cond wake[HST_PARALLEL_MAX_THREADS];   /* worker k's: go[k] was set */
    hst_cond done;                             /* running reached 0 */
    hst_thread th[HST_PARALLEL_MAX_THREADS];
    unsigned char go[HST_PARALLEL_MAX_THREADS];
    unsigned workers;                          /* started: workers 1 .. workers */
    unsigned running;                          /* the job's workers not yet finished */
    hst_parallel_fn fn;                        /* the job: fn(ctx, k, n) in the caller's */
    void *ctx;                                 /* floating-point environment (rounding, */
    unsigned n;                                /* flush to zero) */
    fenv_t env;
    int owned, ok;                             /* ok: the mutex and conditions made */
} hst__pool;
static hst__pool hst__the_pool;
static hst_once_flag hst__pool_once = HST_ONCE_INIT;

static void *hst__pool_main(void *arg) {
    hst__pool *p = &hst__the_pool;
    unsigned k = (unsigned)(uintptr_t)arg;
    hst_mutex_lock(&p->m);
    while (k <= p->workers) {   /* for the process's life: the pool never shrinks */
        while (!p->go[k]) hst_cond_wait(&p->wake[k], &p->m);
        p->go[k] = 0;
        hst_mutex_unlock(&p->m);
        fesetenv(&p->env);        /* fn, ctx, n, env stay as they are until running is 0 */
        p->fn(p->ctx, k, p->n);
        hst_mutex_lock(&p->m);
        if (--p->running == 0) hst_cond_signal(&p->done);
    }
    hst_mutex_unlock(&p->m);
    return NULL;
}

#if !defined(_WIN32)
/* fork(): the pool is held across it, so the child's copy is consistent; the child has none
   of the workers and makes its conditions anew (their waiters were the parent's). */
static void hst__pool_prefork(void) { hst_mutex_lock(&hst__the_pool.m); }
static void hst__pool_parent(void) { hst_mutex_unlock(&hst__the_pool.m); }
static void hst__pool_child(void) {
    hst__pool *p = &hst__the_pool;
    unsigned k;
    for (k = 0; k < HST_PARALLEL_MAX_THREADS; k++) hst_cond_init(&p->wake[k]);
    hst_cond_init(&p->done);
    memset(p->go, 0, sizeof p->go);
    p->workers = p->running = 0;
    p->owned = 0;
    hst_mutex_unlock(&p->m);
}
#endif

static void hst__pool_init(void) {
    hst__pool *p = &hst__the_pool;
    unsigned k = 0;
    if (!hst_mutex_init(&p->m)) return;
    if (!hst_cond_init(&p->done)) { hst_mutex_destroy(&p->m); return; }
    while (k < HST_PARALLEL_MAX_THREADS && hst_cond_init(&p->wake[k])) k++;
    p->ok = k == HST_PARALLEL_MAX_THREADS;
#if !defined(_WIN32)
    p->ok = p->ok && pthread_atfork(hst__pool_prefork, hst__pool_parent, hst__pool_child) == 0;
#endif
}

HST__BDEF void hst_parallel(hst_parallel_fn fn, void *ctx, unsigned n) {
    hst__pool *p = &hst__the_pool;
    unsigned k, m;
    if (n > HST_PARALLEL_MAX_THREADS) n = HST_PARALLEL_MAX_THREADS;
    if (n <= 1) { if (n) fn(ctx, 0, 1); return; }
    hst_once(&hst__pool_once, hst__pool_init);
    if (!p->ok) { hst__parallel_own(fn, ctx, n); return; }
    hst_mutex_lock(&p->m);
    if (p->owned) { hst_mutex_unlock(&p->m); hst__parallel_own(fn, ctx, n); return; }
    p->owned = 1;
    while (p->workers + 1 < n &&
           hst_thread_create(&p->th[p->workers + 1], hst__pool_main, (void *)(uintptr_t)(p->workers + 1)))
        p->workers++;
    m = n < p->workers + 1 ? n : p->workers + 1;   /* share k < m on worker k, the rest here */
    p->fn = fn; p->ctx = ctx; p->n = n; p->running = m - 1;
    fegetenv(&p->env);
    for (k = 1; k < m; k++) { p->go[k] = 1; hst_cond_signal(&p->wake[k]); }
    hst_mutex_unlock(&p->m);
    fn(ctx, 0, n);
    for (k = m; k < n; k++) fn(ctx, k, n);
    hst_mutex_lock(&p->m);
    while (p->running) hst_cond_wait(&p->done, &p->m);
    p->owned = 0;
    hst_mutex_unlock(&p->m);
}

#define HST__MEMCPY_SHARE ((size_t)256 << 10)
#define HST__MEMCPY_THREADS 8u
/* src NULL: memset to byte c */
typedef struct hst__memcpy { char *dst; const char *src; size_t bytes; int c; } hst__memcpy;

static void hst__memcpy_share(void *ctx, unsigned k, unsigned n) {
    const hst__memcpy *c = (const hst__memcpy *)ctx;
    size_t a = c->bytes / n * k, b = k + 1 == n ? c->bytes : c->bytes / n * (k + 1);
    if (c->src) memcpy(c->dst + a, c->src + a, b - a);
    else memset(c->dst + a, c->c, b - a);
}

static void hst__memcpy_run(char *dst, const char *src, int byte, size_t bytes) {
    hst__memcpy c;
    size_t n = bytes / HST__MEMCPY_SHARE, cores = hst_cpu_count();
    if (n > HST__MEMCPY_THREADS) n = HST__MEMCPY_THREADS;
    if (n > cores) n = cores;
    c.dst = dst; c.src = src; c.bytes = bytes; c.c = byte;
    hst_parallel(hst__memcpy_share, &c, n ? (unsigned)n : 1u);
}

HST__BDEF void hst_parallel_memcpy(void *dst, const void *src, size_t bytes) {
    hst__memcpy_run((char *)dst, (const char *)src, 0, bytes);
}

HST__BDEF void hst_parallel_memset(void *dst, int c, size_t bytes) {
    hst__memcpy_run((char *)dst, NULL, c, bytes);
}

HST__BDEF uint64_t hst_physical_memory_bytes(void) {
#if defined(_WIN32)
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    return GlobalMemoryStatusEx(&ms) ? (uint64_t)ms.ullTotalPhys : 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (uint64_t)pages <= UINT64_MAX / (uint64_t)page)
        return (uint64_t)pages * (uint64_t)page;
    return 0;
#else
    return 0;
#endif
}

HST__BDEF long hst_process_id(void) {
#if defined(_WIN32)
    return (long)GetCurrentProcessId();
#else
    return (long)getpid();
#endif
}

HST__BDEF unsigned long hst_user_id(void) {
#if defined(_WIN32)
    return 0;
#else
    return (unsigned long)getuid();
#endif
}

static int hst__is_separator(char c) {
#if defined(_WIN32)
    return c == '/' || c == '\\';
#else
    return c == '/';
#endif
}

static void hst__mkdir_one(const char *dir) {
#if defined(_WIN32)
    (void)_mkdir(dir);
#else
    (void)mkdir(dir, 0755);
#endif
}

HST__BDEF void hst_mkdirs(const char *dir) {
    char tmp[1024];
    size_t i;
    if (!dir || !dir[0]) return;
    hst__copy_string(tmp, sizeof tmp, dir);
    for (i = 1; tmp[i]; i++) {
        char c = tmp[i];
        if (!hst__is_separator(c)) continue;
        tmp[i] = '\0';
        hst__mkdir_one(tmp);
        tmp[i] = c;
    }
    hst__mkdir_one(tmp);
}

HST__BDEF int hst_rename_replace(const char *from, const char *to) {
#if defined(_WIN32)
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) != 0;
#else
    return rename(from, to) == 0;
#endif
}

/* Linux's open-file-description locks (3.15 and later; glibc names them only under
   _GNU_SOURCE, which a header cannot count on): owned by the open file, not the process, so
   the threads of one process exclude each other too, and closing one descriptor does not drop
   another thread's lock, as it does with F_SETLKW. */
#if defined(__linux__)
#  ifdef F_OFD_SETLKW
#    define HST__F_OFD_SETLKW F_OFD_SETLKW
#  else
#    define HST__F_OFD_SETLKW 38
#  endif
#endif

HST__BDEF int hst_file_lock_acquire(hst_file_lock *l, const char *path) {
#if defined(_WIN32)
    OVERLAPPED ov;
    HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    memset(&ov, 0, sizeof ov);   /* the first byte; LockFileEx without FAIL_IMMEDIATELY waits */
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) { CloseHandle(h); return 0; }
    l->handle = h;
    return 1;
#else
    struct flock fl;
    int fd, cmd = F_SETLKW;
    if ((fd = open(path, O_RDWR | O_CREAT, 0644)) < 0) return 0;
    memset(&fl, 0, sizeof fl);   /* l_pid 0, as open-file-description locks require */
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
#  ifdef HST__F_OFD_SETLKW
    cmd = HST__F_OFD_SETLKW;
#  endif
    while (fcntl(fd, cmd, &fl) != 0) {
        if (errno == EINVAL && cmd != F_SETLKW) { cmd = F_SETLKW; continue; }  /* older kernel */
        if (errno != EINTR) { close(fd); return 0; }
    }
    l->fd = fd;
    return 1;
#endif
}

HST__BDEF void hst_file_lock_release(hst_file_lock *l) {
#if defined(_WIN32)
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    UnlockFileEx((HANDLE)l->handle, 0, 1, 0, &ov);
    CloseHandle((HANDLE)l->handle);
#else
    close(l->fd);   /* releases the fcntl lock; the file stays for the next holder */
#endif
}

/* >>results ---------------------------------------------------------------------------------- */
/* OpenCL's codes (they pass through), then ours from HST_RESULT_LIST. */
typedef struct hst__code_name { int code; const char *name; } hst__code_name;
#define HST__RESULT_NAME(name, value) {value, "HST_" #name},
static const hst__code_name hst__code_names[] = {
    {-1, "CL_DEVICE_NOT_FOUND"}, {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"}, {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"}, {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"}, {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"}, {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"}, {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"}, {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"}, {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"}, {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"}, {-31, "CL_INVALID_DEVICE_TYPE"}, {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"}, {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"}, {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"}, {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"}, {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"}, {-42, "CL_INVALID_BINARY"}, {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"}, {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"}, {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"}, {-49, "CL_INVALID_ARG_INDEX"}, {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"}, {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"}, {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"}, {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"}, {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"}, {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"}, {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"}, {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"}, {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"}, {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"}, {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"}, {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    HST_RESULT_LIST(HST__RESULT_NAME)
};
#undef HST__RESULT_NAME

HST__BDEF const char *hst_result_string(hst_result r) {
    size_t i;
    for (i = 0; i < sizeof hst__code_names / sizeof hst__code_names[0]; i++)
        if (hst__code_names[i].code == r) return hst__code_names[i].name;
    return r < 0 ? "UNKNOWN_ERROR" : "UNKNOWN_RESULT";
}

HST__BDEF int hst_result_is_out_of_memory(hst_result r) {
    return r == HST_ERROR_OUT_OF_DEVICE_MEMORY || r == -4 /* MEM_OBJECT_ALLOCATION_FAILURE */ ||
           r == -5 /* OUT_OF_RESOURCES: NVIDIA's answer to an oversized buffer */;
}

static hst_result hst__not_profiled(const hst_backend *be, const char *why) {
    hst__log(be, HST_LOG_ERROR, HST_LOGITEM_BAD_STATE, "hst_event_profile: no profiling times: %s",
             why);
    return HST__CL_PROFILING_INFO_NOT_AVAILABLE;
}

#ifndef HST_NO_OPENCL
/* Announces that no OpenCL platform exists, once per process, as the design asks. */
static void hst__note_no_platform(const hst_backend *be) {
    static volatile long said = 0;   /* backends open on several threads at once */
    if (hst_atomic_add(&said, 1) != 1) return;
    hst__log(be, HST_LOG_WARN, HST_LOGITEM_NO_PLATFORM,
             "no OpenCL device found: the host device runs everything (C twins of the kernels)");
}
#endif

/* >>opencl device ---------------------------------------------------------------------------- */
/* The OpenCL implementation of the device interface: everything that calls OpenCL. */
#ifndef HST_NO_OPENCL
/* Logs a failed OpenCL call by name and passes its code through. */
static hst_result hst__cl_fail(const hst_backend *be, const char *call, cl_int err) {
    hst_log_item item = hst_result_is_out_of_memory(err) ? HST_LOGITEM_OUT_OF_DEVICE_MEMORY
                                                           : HST_LOGITEM_CL_ERROR;
    hst__log(be, HST_LOG_ERROR, item, "%s failed: %s (%d)", call, hst_result_string(err),
             (int)err);
    return err;
}
#define HST__CL(be, call, expr) \
    do { cl_int hst__e = (expr); if (hst__e != CL_SUCCESS) return hst__cl_fail(be, call, hst__e); } while (0)
/* An enqueue's result: its OpenCL code, logged under the call's name when it failed. */
static hst_result hst__cl_done(const hst_backend *be, const char *call, cl_int err) {
    return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(be, call, err);
}

/* The handles: an OpenCL event travels as an hst_event unchanged (no allocation per command). */
static cl_event hst__cl_ev(hst_event e) { return (cl_event)(void *)e; }
static cl_event *hst__cl_out(hst_event *out) { return (cl_event *)(void *)out; }

/* >>fork ------------------------------------------------------------------------------------- */
/* The process that first called OpenCL through the library; 0 before. A child of fork()
   inherits it, and its own id differs (see "fork()" at the top). Every thread that writes it
   writes the same value. */
static long hst__cl_pid;

/* 1 where OpenCL may be called: not in a child forked after its parent initialised OpenCL,
   where OpenCL would wait for the parent's threads (destroy and release calls ask it too). */
static int hst__cl_usable(void) { return hst__cl_pid == 0 || hst__cl_pid == hst_process_id(); }

/* The refusal of an OpenCL call in such a child (func: the public function). */
static hst_result hst__cl_refused(const hst_backend *be, const char *func) {
    return hst_backend_fail(be, HST_ERROR_FORKED, HST_LOGITEM_FORKED, func,
                            "OpenCL was initialised in process %ld and this process (%ld) is a "
                            "child of fork(): OpenCL cannot run here (its threads were not "
                            "copied); use the host device (HST_DEVICE=host), or start the process "
                            "with exec (Python: the 'spawn' start method)", hst__cl_pid, hst_process_id());
}
/* The check that opens every call that would call OpenCL (in a function returning hst_result). */
#define HST__CL_HERE(be, func) do { if (!hst__cl_usable()) return hst__cl_refused(be, func); } while (0)

static void hst__cl_string(cl_device_id dev, cl_device_info what, char *dst, size_t cap) {
    dst[0] = '\0';
    if (clGetDeviceInfo(dev, what, cap, dst, NULL) != CL_SUCCESS) dst[0] = '\0';
    dst[cap - 1] = '\0';
}

static hst_device_type hst__cl_type(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return HST_DEVICE_GPU;
    if (t & CL_DEVICE_TYPE_CPU) return HST_DEVICE_CPU;
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return HST_DEVICE_ACCELERATOR;
    return HST_DEVICE_OTHER;
}

/* OpenCL 2.0+ devices report SVM; older ones fail the query, which means none. */
static unsigned hst__cl_svm(cl_device_id dev) {
    cl_device_svm_capabilities caps = 0;
    unsigned svm = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS)
        return 0;
    if (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) svm |= HST_SVM_COARSE;
    if (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) svm |= HST_SVM_FINE;
    if (caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) svm |= HST_SVM_FINE_SYSTEM;
    if (caps & CL_DEVICE_SVM_ATOMICS) svm |= HST_SVM_ATOMICS;
    return svm;
}

static void hst__cl_device_info(cl_platform_id plat, cl_device_id dev, int p, int d,
                                hst_device_info *o) {
    cl_device_type type = 0;
    cl_uint u = 0;
    cl_ulong ul = 0;
    cl_bool b = CL_FALSE;
    cl_device_fp_config fp = 0;
    size_t sz = 0;
    memset(o, 0, sizeof *o);
    snprintf(o->selector, sizeof o->selector, "%d:%d", p, d);
    o->platform_index = p;
    o->device_index = d;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    o->type = hst__cl_type(type);
    if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof b, &b, NULL) == CL_SUCCESS)
        o->unified_memory = b == CL_TRUE;
    hst__cl_string(dev, CL_DEVICE_NAME, o->name, sizeof o->name);
    hst__cl_string(dev, CL_DEVICE_VENDOR, o->vendor, sizeof o->vendor);
    hst__cl_string(dev, CL_DEVICE_VERSION, o->version, sizeof o->version);
    hst__cl_string(dev, CL_DRIVER_VERSION, o->driver_version, sizeof o->driver_version);
    o->platform_name[0] = '\0';
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof o->platform_name, o->platform_name, NULL);
    o->platform_name[sizeof o->platform_name - 1] = '\0';
    if (clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL) == CL_SUCCESS)
        o->compute_units = u;
    if (clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        o->global_mem_bytes = ul;
    if (clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        o->max_alloc_bytes = ul;
    if (clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        o->local_mem_bytes = ul;
    if (clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof sz, &sz, NULL) == CL_SUCCESS)
        o->max_work_group_size = sz;
    if (clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof u, &u, NULL) == CL_SUCCESS)
        o->mem_base_addr_align_bytes = u / 8;   /* OpenCL reports bits */
    if (clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS)
        o->fp64 = fp != 0;
    fp = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS)
        o->correctly_rounded_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    b = CL_FALSE;
    if (clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, NULL) == CL_SUCCESS)
        o->images = b == CL_TRUE;
    o->svm = hst__cl_svm(dev);
}

/* Calls fn(platform, device, p, d, user) for every device; stops early when fn returns 0. */
typedef int (*hst__device_visit)(cl_platform_id, cl_device_id, int, int, void *);
static void hst__cl_visit(hst__device_visit fn, void *user) {
    cl_uint np = 0, p;
    cl_platform_id plats[16];
    if (!hst__cl_usable()) return;   /* a child of fork(): no OpenCL device */
    if (!hst__cl_pid) hst__cl_pid = hst_process_id();
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return;
    if (np > 16) np = 16;
    for (p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0, d;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        if (nd > 64) nd = 64;
        for (d = 0; d < nd; d++)
            if (!fn(plats[p], devs[d], (int)p, (int)d, user)) return;
    }
}

typedef struct hst__list_ctx { hst_device_info *out; size_t cap, n; } hst__list_ctx;
static int hst__list_visit(cl_platform_id pl, cl_device_id dev, int p, int d, void *user) {
    hst__list_ctx *c = (hst__list_ctx *)user;
    if (c->out && c->n < c->cap) hst__cl_device_info(pl, dev, p, d, &c->out[c->n]);
    c->n++;
    return 1;
}

typedef struct hst__find_ctx { int p, d; cl_platform_id plat; cl_device_id dev; } hst__find_ctx;
static int hst__find_visit(cl_platform_id pl, cl_device_id dev, int p, int d, void *user) {
    hst__find_ctx *c = (hst__find_ctx *)user;
    if (p != c->p || d != c->d) return 1;
    c->plat = pl;
    c->dev = dev;
    return 0;
}

/* The OpenCL devices into out[0 .. cap) (out may be NULL); returns how many there are. */
static size_t hst__cl_list(hst_device_info *out, size_t cap) {
    hst__list_ctx c;
    c.out = out; c.cap = cap; c.n = 0;
    hst__cl_visit(hst__list_visit, &c);
    return c.n;
}

/* hst__select's result r in a child of fork(), whose list holds the host device alone: auto's
   choice of it is announced (a warning, FORKED); a selector that matched nothing may have
   meant an OpenCL device, and fails as such (HST_ERROR_FORKED). why: the reason, rewritten. */
static hst_result hst__select_forked(const hst_backend *be, const char *sel, hst_result r,
                                     char *why, size_t why_bytes) {
    char forked[160];
    snprintf(forked, sizeof forked, "OpenCL was initialised in process %ld and this process "
             "(%ld) is a child of fork(), where only the host device runs", hst__cl_pid, hst_process_id());
    if (r == HST_ERROR_NO_DEVICE) {
        snprintf(why, why_bytes, "'%s' matches no device this process can use: %s (HST_DEVICE=host; "
                 "or start the process with exec: Python's 'spawn' start method)", sel, forked);
        return HST_ERROR_FORKED;
    }
    if (r == HST_SUCCESS && !strcmp(sel, "auto")) {
        snprintf(why, why_bytes, "auto: the host device: %s", forked);
        hst__log(be, HST_LOG_WARN, HST_LOGITEM_FORKED, "%s", why);
    }
    return r;
}

static int hst__cl_version_at_least(const char *version, int major, int minor) {
    int maj = 1, min = 0;
    if (sscanf(version, "OpenCL %d.%d", &maj, &min) < 1) return 0;
    return maj > major || (maj == major && min >= minor);
}

/* An in-order queue, with profiling when asked; OpenCL 2.0+ has the non-deprecated
   constructor. */
static hst_result hst__cl_queue(hst_backend *be, int profiling, cl_command_queue *out) {
    cl_int err;
    cl_command_queue_properties flags = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    if (hst__cl_version_at_least(be->info.version, 2, 0)) {
        cl_queue_properties props[3] = {CL_QUEUE_PROPERTIES, 0, 0};
        props[1] = flags;
        *out = clCreateCommandQueueWithProperties(be->ctx, be->dev, props, &err);
    } else {
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        *out = clCreateCommandQueue(be->ctx, be->dev, flags, &err);
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif
    }
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateCommandQueue", err);
    return HST_SUCCESS;
}

typedef struct hst__byo_ctx { cl_device_id dev; hst_device_info *info; } hst__byo_ctx;
static int hst__byo_visit(cl_platform_id pl, cl_device_id dev, int p, int d, void *user) {
    hst__byo_ctx *c = (hst__byo_ctx *)user;
    if (dev != c->dev) return 1;
    hst__cl_device_info(pl, dev, p, d, c->info);
    return 0;
}

/* Wraps the caller's context and queue (retained, never owned). */
static hst_result hst__open_byo(hst_backend *be, cl_context ctx, cl_command_queue q) {
    hst__byo_ctx c;
    cl_context qctx = NULL;
    cl_command_queue_properties props = 0;
    HST__CL(be, "clGetCommandQueueInfo", clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL));
    HST__CL(be, "clGetCommandQueueInfo", clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    if (qctx != ctx)
        return hst__bad_arg(be, "hst_backend_create", "desc.wrap_queue belongs to another context than desc.wrap_context");
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)   /* array operations rely on order */
        return hst__bad_arg(be, "hst_backend_create", "desc.wrap_queue is out-of-order; wrap an in-order queue");
    HST__CL(be, "clGetCommandQueueInfo", clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof be->dev, &be->dev, NULL));
    HST__CL(be, "clGetDeviceInfo", clGetDeviceInfo(be->dev, CL_DEVICE_PLATFORM, sizeof be->platform, &be->platform, NULL));
    c.dev = be->dev;
    c.info = &be->info;
    be->info.type = (hst_device_type)0;
    hst__cl_visit(hst__byo_visit, &c);
    if (be->info.type == 0) {    /* a device the ICD loader does not list: describe it anyway */
        hst__cl_device_info(be->platform, be->dev, -1, -1, &be->info);
        hst__copy_string(be->info.selector, sizeof be->info.selector, "wrapped");
    }
    clRetainContext(ctx);
    clRetainCommandQueue(q);
    be->ctx = ctx;
    be->queue.cl = q;
    be->queue.profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    hst__log(be, HST_LOG_INFO, HST_LOGITEM_DEVICE_CHOSEN, "wrapping the caller's context on %s (%s)",
             be->info.name, be->info.selector);
    return HST_SUCCESS;
}

static hst_result hst__open_cl(hst_backend *be) {
    hst__find_ctx f;
    cl_int err;
    cl_context_properties props[3];
    f.p = be->info.platform_index; f.d = be->info.device_index; f.plat = NULL; f.dev = NULL;
    hst__cl_visit(hst__find_visit, &f);
    if (!f.dev) return HST_ERROR_NO_DEVICE;
    be->platform = f.plat;
    be->dev = f.dev;
    props[0] = CL_CONTEXT_PLATFORM; props[1] = (cl_context_properties)f.plat; props[2] = 0;
    be->ctx = clCreateContext(props, 1, &f.dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateContext", err);
    return hst__cl_queue(be, 0, &be->queue.cl);
}

static hst_result hst__cl_open(hst_backend *be, const hst_backend_desc *desc) {
    if (!desc->wrap_context) return hst__open_cl(be);
    HST__CL_HERE(be, "hst_backend_create");
    return hst__open_byo(be, desc->wrap_context, desc->wrap_queue);
}

static void hst__cl_close(hst_backend *be) {
    if (!hst__cl_usable()) return;   /* a child of fork() leaves the parent's OpenCL objects alone */
    if (be->queue.cl) { clFinish(be->queue.cl); clReleaseCommandQueue(be->queue.cl); }
    if (be->ctx) clReleaseContext(be->ctx);
}

static hst_result hst__cl_callable(const hst_backend *be, const char *func) {
    HST__CL_HERE(be, func);
    return HST_SUCCESS;
}

/* >>opencl queues */
static hst_result hst__cl_queue_create(hst_queue *q) {
    if (!hst__cl_usable()) return hst__cl_refused(q->be, "hst_queue_create");
    return hst__cl_queue(q->be, q->profiling, &q->cl);
}

static void hst__cl_queue_destroy(hst_queue *q) {
    if (q->cl && hst__cl_usable()) { clFinish(q->cl); clReleaseCommandQueue(q->cl); }
}

static hst_result hst__cl_queue_flush(hst_queue *q) {
    HST__CL_HERE(q->be, "hst_queue_flush");
    HST__CL(q->be, "clFlush", clFlush(q->cl));
    return HST_SUCCESS;
}

static hst_result hst__cl_queue_finish(hst_queue *q) {
    HST__CL_HERE(q->be, "hst_queue_finish");
    HST__CL(q->be, "clFinish", clFinish(q->cl));
    return HST_SUCCESS;
}

/* OpenCL rejects NULL entries in a wait list; ours mean "already complete", so they are
   dropped. Up to HST__WAIT_LOCAL events need no allocation. */
#define HST__WAIT_LOCAL 16
typedef struct hst__waitlist {
    cl_uint n;
    const cl_event *ev;
    cl_event local[HST__WAIT_LOCAL];
    cl_event *heap;
} hst__waitlist;

static hst_result hst__wl_init(const hst_backend *be, hst__waitlist *w, size_t num,
                               const hst_event *wait) {
    size_t i, nonnull = 0;
    cl_event *dst;
    w->heap = NULL; w->n = 0; w->ev = NULL;
    for (i = 0; i < num; i++) {
        if (hst__host_event(wait[i]))
            return hst__bad_arg(be, "enqueue", "wait[%zu] is an event of the host device: an OpenCL "
                                "queue cannot wait on it", i);
        nonnull += wait[i] != NULL;
    }
    if (nonnull == num) { w->n = (cl_uint)num; w->ev = num ? (const cl_event *)(const void *)wait : NULL; return HST_SUCCESS; }
    dst = w->local;
    if (nonnull > HST__WAIT_LOCAL) {
        w->heap = (cl_event *)hst__malloc(be, nonnull * sizeof *dst);
        if (!w->heap) return HST_ERROR_OUT_OF_HOST_MEMORY;
        dst = w->heap;
    }
    for (i = 0; i < num; i++) if (wait[i]) dst[w->n++] = hst__cl_ev(wait[i]);
    w->ev = w->n ? dst : NULL;
    return HST_SUCCESS;
}

static void hst__wl_free(const hst_backend *be, hst__waitlist *w) { hst__free(be, w->heap); }

/* An enqueue of OpenCL: `call` with the checked wait list as (W.n, W.ev) and the out event as
   OUT, in a function with hst_queue *q, (num_wait, wait, out) and a hst_result r; its result
   returned (logged under name when it failed). */
#define HST__CL_ENQUEUE(name, call) do { \
        hst__waitlist W; cl_int hst__err; cl_event *OUT = hst__cl_out(out); \
        if ((r = hst__wl_init(q->be, &W, num_wait, wait)) != HST_SUCCESS) return r; \
        hst__err = (call); \
        hst__wl_free(q->be, &W); \
        return hst__cl_done(q->be, name, hst__err); \
    } while (0)

static hst_result hst__cl_marker(hst_queue *q, int barrier, HST__WAITS) {
    hst_result r;
    if (barrier) HST__CL_ENQUEUE("clEnqueueBarrierWithWaitList", clEnqueueBarrierWithWaitList(q->cl, W.n, W.ev, OUT));
    HST__CL_ENQUEUE("clEnqueueMarkerWithWaitList", clEnqueueMarkerWithWaitList(q->cl, W.n, W.ev, OUT));
}

/* OpenCL rejects zero-byte fills and copies: a marker orders and yields the event instead. */
static hst_result hst__cl_nothing(hst_queue *q, const char *func, HST__WAITS) {
    (void)func;
    return hst__cl_marker(q, 0, num_wait, wait, out);
}

/* >>opencl events (their public calls log through the default logger: OpenCL events do not
   know the backend that made them) */
static hst_result hst__cl_event_wait(hst_event e, size_t index) {
    cl_event ev = hst__cl_ev(e);
    cl_int err, st = 0;
    (void)index;
    HST__CL_HERE(NULL, "hst_event_wait");
    err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS)
        err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (err == CL_SUCCESS && st < 0) err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return hst__cl_done(NULL, "clWaitForEvents", err);
}

static void hst__cl_event_release(hst_event e) {
    if (hst__cl_usable()) clReleaseEvent(hst__cl_ev(e));
}

static void hst__cl_event_retain(hst_event e) {
    if (hst__cl_usable()) clRetainEvent(hst__cl_ev(e));
}

static hst_result hst__cl_event_status(hst_event e, int *status) {
    cl_int st = 0;
    HST__CL_HERE(NULL, "hst_event_status");
    HST__CL(NULL, "clGetEventInfo", clGetEventInfo(hst__cl_ev(e), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    *status = (int)st;
    return HST_SUCCESS;
}

static hst_result hst__cl_event_profile(hst_event e, uint64_t t[4]) {
    static const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                              CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    int i;
    HST__CL_HERE(NULL, "hst_event_profile");
    for (i = 0; i < 4; i++) {
        cl_ulong v = 0;
        cl_int err = clGetEventProfilingInfo(hst__cl_ev(e), what[i], sizeof v, &v, NULL);
        if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
            return hst__not_profiled(NULL, "the event's queue was not created with profiling "
                                     "(hst_queue_desc.profiling), it is a user event, or it is not complete");
        if (err != CL_SUCCESS) return hst__cl_fail(NULL, "clGetEventProfilingInfo", err);
        t[i] = (uint64_t)v;
    }
    return HST_SUCCESS;
}

static hst_result hst__cl_user_event_create(hst_backend *be, hst_event *out) {
    cl_int err;
    HST__CL_HERE(be, "hst_user_event_create");
    *hst__cl_out(out) = clCreateUserEvent(be->ctx, &err);
    return hst__cl_done(be, "clCreateUserEvent", err);
}

static hst_result hst__cl_user_event_set(hst_event e, int status) {
    static const char *F = "hst_user_event_set";
    cl_int st = CL_SUBMITTED;
    /* a user event is CL_SUBMITTED until set; NVIDIA's driver answers a second set with
       CL_INVALID_VALUE, not the CL_INVALID_OPERATION OpenCL specifies: refused here alike */
    HST__CL_HERE(NULL, F);
    HST__CL(NULL, "clGetEventInfo", clGetEventInfo(hst__cl_ev(e), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    if (st != CL_SUBMITTED) {
        hst__log(NULL, HST_LOG_ERROR, HST_LOGITEM_BAD_STATE, "%s: the status is set already (%d)", F, (int)st);
        return HST__CL_INVALID_OPERATION;
    }
    HST__CL(NULL, "clSetUserEventStatus", clSetUserEventStatus(hst__cl_ev(e), (cl_int)status));
    return HST_SUCCESS;
}

/* What an OpenCL callback carries to the caller's function (freed by its one call). */
typedef struct hst__cl_callback { hst_event_fn fn; void *user; } hst__cl_callback;

static void CL_CALLBACK hst__cl_event_callback(cl_event e, cl_int status, void *data) {
    hst__cl_callback c = *(hst__cl_callback *)data;
    free(data);
    c.fn((hst_event)(void *)e, (int)status, c.user);
}

/* OpenCL's callback runs on its own thread, where no backend (and so no allocator) is at hand:
   the carrier comes from malloc. */
static hst_result hst__cl_event_set_callback(hst_event e, hst_event_fn fn, void *user) {
    hst__cl_callback *c;
    cl_int err;
    HST__CL_HERE(NULL, "hst_event_set_callback");
    c = (hst__cl_callback *)malloc(sizeof *c);
    if (!c) return hst__cl_fail(NULL, "hst_event_set_callback: malloc", CL_OUT_OF_HOST_MEMORY);
    c->fn = fn;
    c->user = user;
    err = clSetEventCallback(hst__cl_ev(e), CL_COMPLETE, hst__cl_event_callback, c);
    if (err != CL_SUCCESS) { free(c); return hst__cl_fail(NULL, "clSetEventCallback", err); }
    return HST_SUCCESS;
}

/* >>opencl memory */
/* Forces the allocation now: OpenCL may defer it to first use, where out-of-memory would
   surface in an unrelated call. */
static hst_result hst__cl_make_resident(hst_backend *be, cl_mem mem) {
    cl_event ev;
    cl_int err = clEnqueueMigrateMemObjects(be->queue.cl, 1, &mem,
                                            CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, &ev);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clEnqueueMigrateMemObjects", err);
    err = clWaitForEvents(1, &ev);
    if (err != CL_SUCCESS) {   /* the command's own status names the failure (out of memory) */
        cl_int status = CL_SUCCESS;
        if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) == CL_SUCCESS &&
            status < 0)
            err = status;
    }
    clReleaseEvent(ev);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clWaitForEvents (resident allocation)", err);
    return HST_SUCCESS;
}

/* The kernels' access of HST_MEM_* flags as OpenCL's. */
static cl_mem_flags hst__cl_access(unsigned flags) {
    return (flags & HST_MEM_READ_ONLY) ? CL_MEM_READ_ONLY
         : (flags & HST_MEM_WRITE_ONLY) ? CL_MEM_WRITE_ONLY : CL_MEM_READ_WRITE;
}

/* wrap: the caller's host memory (USE_HOST_PTR); pinned: ALLOC_HOST_PTR, mapped for life. */
static hst_result hst__cl_buffer_alloc(hst_buffer *b, unsigned flags, void *wrap) {
    hst_backend *be = b->be;
    cl_mem_flags f = hst__cl_access(flags);
    cl_int err;
    if (b->pinned) f = CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
    if (wrap) f |= CL_MEM_USE_HOST_PTR;
    b->cl = clCreateBuffer(be->ctx, f, b->bytes, wrap, &err);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateBuffer", err);
    if (b->pinned) {   /* mapped once, for the buffer's lifetime */
        b->host = clEnqueueMapBuffer(be->queue.cl, b->cl, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     b->bytes, 0, NULL, NULL, &err);
        return hst__cl_done(be, "clEnqueueMapBuffer (pinned)", err);
    }
    return (flags & HST_MEM_RESIDENT) ? hst__cl_make_resident(be, b->cl) : HST_SUCCESS;
}

static hst_result hst__cl_buffer_sub(hst_buffer *b, hst_buffer *root) {
    cl_buffer_region reg;
    cl_int err;
    reg.origin = b->origin; reg.size = b->bytes;
    b->cl = clCreateSubBuffer(root->cl, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    return hst__cl_done(b->be, "clCreateSubBuffer", err);
}

/* hst_buffer_from_cl: handle is a cl_mem buffer of be's context; b takes a reference. */
static hst_result hst__cl_buffer_adopt(hst_buffer *b, void *handle) {
    static const char *F = "hst_buffer_from_cl";
    hst_backend *be = b->be;
    cl_mem mem = (cl_mem)handle;
    cl_mem_object_type type = 0;
    cl_context ctx = NULL;
    size_t bytes = 0;
    HST__CL_HERE(be, F);
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL));
    if (type != CL_MEM_OBJECT_BUFFER)
        return hst__bad_arg(be, F, "mem is not a buffer (CL_MEM_TYPE 0x%x: an image or pipe)", (unsigned)type);
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
    if (ctx != be->ctx) return hst__bad_arg(be, F, "mem belongs to another context than the backend's");
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    HST__CL(be, "clRetainMemObject", clRetainMemObject(mem));
    b->cl = mem;
    b->bytes = b->capacity = bytes;
    return HST_SUCCESS;
}

static void hst__cl_buffer_free(hst_buffer *b) {
    if (!b->cl || !hst__cl_usable()) return;   /* a child of fork() leaves the parent's objects alone */
    if (b->pinned && b->host && !b->parent)
        clEnqueueUnmapMemObject(b->be->queue.cl, b->cl, b->host, 0, NULL, NULL);
    clReleaseMemObject(b->cl);
}

static hst_result hst__cl_fill(hst_queue *q, hst_buffer *buf, const void *pattern, size_t pattern_bytes,
                               size_t offset, size_t bytes, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueFillBuffer", clEnqueueFillBuffer(q->cl, buf->cl, pattern, pattern_bytes, offset, bytes, W.n, W.ev, OUT));
}

/* >>staged transfers: a blocking write or read of HST_STAGE_MIN_BYTES or more without events
   on a device that does not share the host's memory goes through the backend's two pinned
   buffers of HST_STAGE_PIECE_BYTES in pieces (hst__stage_piece), a piece's copy on up to 8
   cores (hst_parallel_memcpy) overlapping the device's transfer of the piece before. A pageable transfer goes through the
   driver's own staging, one core's copy at a time (about 6 GB/s on an H200; bench/RESULTS.md).
   HST_STAGE_ALWAYS (the tests' build) stages on every OpenCL device. */
#ifndef HST_STAGE_MIN_BYTES
#  define HST_STAGE_MIN_BYTES ((size_t)8 << 20)
#endif
#ifndef HST_STAGE_PIECE_BYTES
#  define HST_STAGE_PIECE_BYTES ((size_t)16 << 20)
#endif
#ifndef HST_STAGE_PIECE_MIN_BYTES
#  define HST_STAGE_PIECE_MIN_BYTES ((size_t)2 << 20)
#endif

/* A transfer's pieces: an eighth of it (the first piece's copy, which nothing overlaps, kept
   short), at least HST_STAGE_PIECE_MIN_BYTES (a piece's fixed costs: the copy's fork-join, the
   enqueue), at most HST_STAGE_PIECE_BYTES. */
static size_t hst__stage_piece(size_t bytes) {
    size_t p = bytes / 8 > HST_STAGE_PIECE_MIN_BYTES ? bytes / 8 : HST_STAGE_PIECE_MIN_BYTES;
    return p < HST_STAGE_PIECE_BYTES ? p : HST_STAGE_PIECE_BYTES;
}

/* 1 when host memory [p, p + bytes) lies inside one of be's pinned buffers: the device copies it
   at the bus's rate directly, and staging would only add a copy (and halve that rate). */
static int hst__in_pinned(const hst_backend *be, const void *p, size_t bytes) {
    const hst_buffer *b;
    uintptr_t a = (uintptr_t)p;
    for (b = be->pinned; b; b = b->next_pinned) {
        uintptr_t lo = (uintptr_t)b->host;
        if (a >= lo && a - lo <= b->bytes && bytes <= b->bytes - (a - lo)) return 1;
    }
    return 0;
}

/* 1 when a transfer of `bytes` from or to host memory `host` goes staged: not from or to
   pinned memory; the pieces made on first use; where they cannot be (logged once), or the
   device shares the host's memory or has a memory limit (pinned memory counts against it), the
   backend copies directly from then on. */
static int hst__stage_ready(hst_backend *be, const void *host, size_t bytes, int blocking, size_t num_wait,
                            const hst_event *out) {
    unsigned k;
    hst_result r = HST_SUCCESS;
    if (!blocking || num_wait || out || bytes < HST_STAGE_MIN_BYTES || be->stage_off || hst__in_pinned(be, host, bytes))
        return 0;
    if (be->stage[1]) return 1;
#ifndef HST_STAGE_ALWAYS
    if (be->info.unified_memory || be->device_limit) { be->stage_off = 1; return 0; }
#endif
    for (k = 0; k < 2 && r == HST_SUCCESS; k++) r = hst_pinned_create(be, HST_STAGE_PIECE_BYTES, &be->stage[k]);
    if (r == HST_SUCCESS) return 1;
    hst_buffer_destroy(be->stage[0]);
    be->stage[0] = NULL;
    be->stage_off = 1;
    hst__log(be, HST_LOG_WARN, HST_LOGITEM_NONE, "hst_write/hst_read: no pinned staging (%s): large transfers "
             "copy directly", hst_result_string(r));
    return 0;
}

/* Waits for *ev (NULL: none) and releases it; the first failure is kept in r. */
static hst_result hst__stage_wait(hst_backend *be, cl_event *ev, hst_result r) {
    cl_int err;
    if (!*ev) return r;
    err = clWaitForEvents(1, ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return r != HST_SUCCESS ? r : hst__cl_done(be, "clWaitForEvents (staged transfer)", err);
}

static hst_result hst__cl_write_staged(hst_queue *q, hst_buffer *dst, size_t offset, const char *src, size_t bytes) {
    cl_event ev[2] = {NULL, NULL};
    size_t done, n, piece = hst__stage_piece(bytes);
    unsigned k = 0;
    hst_result r = HST_SUCCESS;
    for (done = 0; done < bytes && r == HST_SUCCESS; done += n, k ^= 1u) {
        void *pin = q->be->stage[k]->host;
        n = bytes - done < piece ? bytes - done : piece;
        if ((r = hst__stage_wait(q->be, &ev[k], r)) != HST_SUCCESS) break;   /* the piece's last write */
        hst_parallel_memcpy(pin, src + done, n);
        r = hst__cl_done(q->be, "clEnqueueWriteBuffer (staged)",
                         clEnqueueWriteBuffer(q->cl, dst->cl, CL_FALSE, offset + done, n, pin, 0, NULL, &ev[k]));
        if (r == HST_SUCCESS) r = hst__cl_done(q->be, "clFlush (staged write)", clFlush(q->cl));
    }
    r = hst__stage_wait(q->be, &ev[0], r);
    return hst__stage_wait(q->be, &ev[1], r);
}

/* Piece i is read into pin[i % 2] while piece i - 1 is copied out of the other. */
static hst_result hst__cl_read_staged(hst_queue *q, const hst_buffer *src, size_t offset, char *dst, size_t bytes) {
    cl_event ev[2] = {NULL, NULL};
    size_t done, n, prev = 0, prev_n = 0, piece = hst__stage_piece(bytes);
    unsigned k = 0;
    hst_result r = HST_SUCCESS;
    for (done = 0; done < bytes && r == HST_SUCCESS; done += n, k ^= 1u) {
        n = bytes - done < piece ? bytes - done : piece;
        r = hst__cl_done(q->be, "clEnqueueReadBuffer (staged)",
                         clEnqueueReadBuffer(q->cl, src->cl, CL_FALSE, offset + done, n, q->be->stage[k]->host, 0,
                                             NULL, &ev[k]));
        if (r == HST_SUCCESS) r = hst__cl_done(q->be, "clFlush (staged read)", clFlush(q->cl));
        if (done > 0 && (r = hst__stage_wait(q->be, &ev[k ^ 1u], r)) == HST_SUCCESS)
            hst_parallel_memcpy(dst + prev, q->be->stage[k ^ 1u]->host, prev_n);
        prev = done;
        prev_n = n;
    }
    if ((r = hst__stage_wait(q->be, &ev[k ^ 1u], r)) == HST_SUCCESS && prev_n)
        hst_parallel_memcpy(dst + prev, q->be->stage[k ^ 1u]->host, prev_n);
    return hst__stage_wait(q->be, &ev[k], r);
}

static hst_result hst__cl_write(hst_queue *q, hst_buffer *dst, size_t offset, const void *src, size_t bytes,
                                int blocking, HST__WAITS) {
    hst_result r;
    if (hst__stage_ready(q->be, src, bytes, blocking, num_wait, out))
        return hst__cl_write_staged(q, dst, offset, (const char *)src, bytes);
    HST__CL_ENQUEUE("clEnqueueWriteBuffer", clEnqueueWriteBuffer(q->cl, dst->cl, blocking ? CL_TRUE : CL_FALSE, offset,
                                                                 bytes, src, W.n, W.ev, OUT));
}

static hst_result hst__cl_read(hst_queue *q, const hst_buffer *src, size_t offset, void *dst, size_t bytes,
                               int blocking, HST__WAITS) {
    hst_result r;
    if (hst__stage_ready(q->be, dst, bytes, blocking, num_wait, out))
        return hst__cl_read_staged(q, src, offset, (char *)dst, bytes);
    HST__CL_ENQUEUE("clEnqueueReadBuffer", clEnqueueReadBuffer(q->cl, src->cl, blocking ? CL_TRUE : CL_FALSE, offset,
                                                               bytes, dst, W.n, W.ev, OUT));
}

static hst_result hst__cl_copy(hst_queue *q, hst_buffer *dst, size_t dst_offset, const hst_buffer *src,
                               size_t src_offset, size_t bytes, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueCopyBuffer", clEnqueueCopyBuffer(q->cl, src->cl, dst->cl, src_offset, dst_offset, bytes,
                                                               W.n, W.ev, OUT));
}

static hst_result hst__cl_rect(hst_queue *q, const char *func, const hst__rect_cmd *c, HST__WAITS) {
    const hst__rect_abs *d = &c->d, *s = &c->s;
    cl_bool blk = c->blocking ? CL_TRUE : CL_FALSE;
    hst_result r;
    if (c->dir == 0)
        HST__CL_ENQUEUE(func, clEnqueueWriteBufferRect(q->cl, c->dbuf->cl, blk, d->origin, s->origin, c->region,
                        d->row_pitch, d->slice_pitch, s->row_pitch, s->slice_pitch, c->shost, W.n, W.ev, OUT));
    if (c->dir == 1)
        HST__CL_ENQUEUE(func, clEnqueueReadBufferRect(q->cl, c->sbuf->cl, blk, s->origin, d->origin, c->region,
                        s->row_pitch, s->slice_pitch, d->row_pitch, d->slice_pitch, c->dhost, W.n, W.ev, OUT));
    HST__CL_ENQUEUE(func, clEnqueueCopyBufferRect(q->cl, c->sbuf->cl, c->dbuf->cl, s->origin, d->origin, c->region,
                    s->row_pitch, s->slice_pitch, d->row_pitch, d->slice_pitch, W.n, W.ev, OUT));
}

static cl_map_flags hst__cl_map_flags(unsigned map_flags) {
    return ((map_flags & HST_MAP_READ) ? CL_MAP_READ : 0) | ((map_flags & HST_MAP_WRITE) ? CL_MAP_WRITE : 0) |
           ((map_flags & HST_MAP_WRITE_INVALIDATE) ? CL_MAP_WRITE_INVALIDATE_REGION : 0);
}

static hst_result hst__cl_map(hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset, size_t bytes,
                              int blocking, void **ptr, HST__WAITS) {
    hst__waitlist w;
    cl_int err;
    hst_result r;
    if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
    *ptr = clEnqueueMapBuffer(q->cl, buf->cl, blocking ? CL_TRUE : CL_FALSE, hst__cl_map_flags(map_flags), offset,
                              bytes, w.n, w.ev, hst__cl_out(out), &err);
    hst__wl_free(q->be, &w);
    return hst__cl_done(q->be, "clEnqueueMapBuffer", err);
}

static hst_result hst__cl_unmap(hst_queue *q, hst_buffer *buf, void *ptr, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueUnmapMemObject", clEnqueueUnmapMemObject(q->cl, buf->cl, ptr, W.n, W.ev, OUT));
}

static hst_result hst__cl_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers, unsigned flags,
                                  HST__WAITS) {
    hst__waitlist w;
    cl_int err;
    hst_result r;
    size_t i;
    cl_mem local[HST__WAIT_LOCAL], *mems = local;
    cl_mem_migration_flags f = ((flags & HST_MIGRATE_TO_HOST) ? CL_MIGRATE_MEM_OBJECT_HOST : 0) |
        ((flags & HST_MIGRATE_CONTENT_UNDEFINED) ? CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED : 0);
    if (num_buffers > HST__WAIT_LOCAL) {
        size_t bytes;
        if (!hst_size_mul(num_buffers, sizeof *mems, &bytes)) return hst__overflow(q->be, "hst_migrate", "num_buffers");
        if (!(mems = (cl_mem *)hst__malloc(q->be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (i = 0; i < num_buffers; i++) mems[i] = buffers[i]->cl;
    if ((r = hst__wl_init(q->be, &w, num_wait, wait)) == HST_SUCCESS) {
        err = clEnqueueMigrateMemObjects(q->cl, (cl_uint)num_buffers, mems, f, w.n, w.ev, hst__cl_out(out));
        hst__wl_free(q->be, &w);
        r = hst__cl_done(q->be, "clEnqueueMigrateMemObjects", err);
    }
    if (mems != local) hst__free(q->be, mems);
    return r;
}

/* >>opencl svm */
static void *hst__cl_svm_alloc(hst_backend *be, size_t bytes, int fine) {
    return clSVMAlloc(be->ctx, CL_MEM_READ_WRITE | (fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0), bytes, 0);
}

static void hst__cl_svm_free(hst_backend *be, void *ptr) {
    if (hst__cl_usable()) clSVMFree(be->ctx, ptr);
}

static hst_result hst__cl_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueSVMMap", clEnqueueSVMMap(q->cl, CL_TRUE, hst__cl_map_flags(map_flags), ptr, bytes,
                                                       W.n, W.ev, OUT));
}

static hst_result hst__cl_svm_unmap(hst_queue *q, void *ptr, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueSVMUnmap", clEnqueueSVMUnmap(q->cl, ptr, W.n, W.ev, OUT));
}

static hst_result hst__cl_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes, int blocking, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueSVMMemcpy", clEnqueueSVMMemcpy(q->cl, blocking ? CL_TRUE : CL_FALSE, dst, src, bytes,
                                                             W.n, W.ev, OUT));
}

static hst_result hst__cl_svm_fill(hst_queue *q, void *ptr, const void *pattern, size_t pattern_bytes, size_t bytes,
                                   HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueSVMMemFill", clEnqueueSVMMemFill(q->cl, ptr, pattern, pattern_bytes, bytes, W.n, W.ev, OUT));
}

static hst_result hst__cl_svm_migrate(hst_queue *q, size_t num, const void *const *ptrs, const size_t *sizes,
                                      unsigned flags, HST__WAITS) {
    cl_mem_migration_flags f = ((flags & HST_MIGRATE_TO_HOST) ? CL_MIGRATE_MEM_OBJECT_HOST : 0) |
        ((flags & HST_MIGRATE_CONTENT_UNDEFINED) ? CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED : 0);
    hst_result r;
    if (!hst__cl_version_at_least(q->be->info.version, 2, 1))
        return hst_backend_fail(q->be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, "hst_svm_migrate",
                                "%s is %s: clEnqueueSVMMigrateMem needs OpenCL 2.1", q->be->info.name,
                                q->be->info.version);
    HST__CL_ENQUEUE("clEnqueueSVMMigrateMem", clEnqueueSVMMigrateMem(q->cl, (cl_uint)num, (const void **)ptrs, sizes,
                                                                     f, W.n, W.ev, OUT));
}

/* >>opencl images */
/* The OpenCL numbers backend.h spells without the OpenCL headers (>>images): a negative array
   size if one differs. */
typedef char hst__cl_image_numbers[(CL_R == HST__CL_R && CL_RG == HST__CL_RG && CL_RGBA == HST__CL_RGBA &&
    CL_ABGR == HST__CL_ABGR && CL_SNORM_INT8 == HST__CL_SNORM_INT8 && CL_SNORM_INT16 == HST__CL_SNORM_INT16 &&
    CL_UNORM_INT8 == HST__CL_UNORM_INT8 && CL_SIGNED_INT8 == HST__CL_SIGNED_INT8 &&
    CL_SIGNED_INT16 == HST__CL_SIGNED_INT16 && CL_SIGNED_INT32 == HST__CL_SIGNED_INT32 &&
    CL_UNSIGNED_INT8 == HST__CL_UNSIGNED_INT8 && CL_FLOAT == HST__CL_FLOAT &&
    CL_MEM_OBJECT_BUFFER == HST__CL_MEM_OBJECT_BUFFER && CL_MEM_OBJECT_IMAGE2D == HST__CL_MEM_OBJECT_IMAGE2D &&
    CL_MEM_OBJECT_IMAGE3D == HST__CL_MEM_OBJECT_IMAGE3D && CL_MEM_TYPE == HST__CL_MEM_TYPE &&
    CL_MEM_OBJECT_IMAGE2D_ARRAY == HST__CL_MEM_OBJECT_IMAGE2D_ARRAY &&
    CL_MEM_OBJECT_IMAGE1D == HST__CL_MEM_OBJECT_IMAGE1D &&
    CL_MEM_OBJECT_IMAGE1D_ARRAY == HST__CL_MEM_OBJECT_IMAGE1D_ARRAY &&
    CL_MEM_OBJECT_IMAGE1D_BUFFER == HST__CL_MEM_OBJECT_IMAGE1D_BUFFER &&
    CL_MEM_SIZE == HST__CL_MEM_SIZE && CL_MEM_HOST_PTR == HST__CL_MEM_HOST_PTR &&
    CL_MEM_REFERENCE_COUNT == HST__CL_MEM_REFERENCE_COUNT && CL_MEM_OFFSET == HST__CL_MEM_OFFSET &&
    CL_IMAGE_FORMAT == HST__CL_IMAGE_FORMAT && CL_IMAGE_ELEMENT_SIZE == HST__CL_IMAGE_ELEMENT_SIZE &&
    CL_IMAGE_ROW_PITCH == HST__CL_IMAGE_ROW_PITCH && CL_IMAGE_SLICE_PITCH == HST__CL_IMAGE_SLICE_PITCH &&
    CL_IMAGE_WIDTH == HST__CL_IMAGE_WIDTH && CL_IMAGE_HEIGHT == HST__CL_IMAGE_HEIGHT &&
    CL_IMAGE_DEPTH == HST__CL_IMAGE_DEPTH && CL_IMAGE_ARRAY_SIZE == HST__CL_IMAGE_ARRAY_SIZE &&
    CL_SAMPLER_REFERENCE_COUNT == HST__CL_SAMPLER_REFERENCE_COUNT) ? 1 : -1];

static hst_result hst__cl_image_formats(hst_backend *be, unsigned mem_flags, unsigned type, hst_image_format *formats,
                                        size_t max, size_t *count);

/* Whether the device lists img's format for read-write images of its shape (drivers answer an
   unlisted format's clCreateImage with different codes: PoCL's is CL_INVALID_OPERATION). */
static hst_result hst__cl_format_listed(hst_image *img, int *listed) {
    hst_image_format *all;
    size_t n = 0, i;
    hst_result r;
    *listed = 0;
    if ((r = hst__cl_image_formats(img->be, img->mem_flags, img->type, NULL, 0, &n)) != HST_SUCCESS || !n) return r;
    if (!(all = (hst_image_format *)hst__malloc(img->be, n * sizeof *all))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst__cl_image_formats(img->be, img->mem_flags, img->type, all, n, &n);
    for (i = 0; r == HST_SUCCESS && i < n && !*listed; i++)
        *listed = all[i].channel_order == img->format.channel_order && all[i].channel_type == img->format.channel_type;
    hst__free(img->be, all);
    return r;
}

static hst_result hst__cl_image_create(hst_image *img) {
    hst_backend *be = img->be;
    cl_image_format fmt;
    cl_image_desc d;
    cl_int err;
    int listed;
    hst_result r;
    HST__CL_HERE(be, "hst_image_create");
    if ((r = hst__cl_format_listed(img, &listed)) != HST_SUCCESS) return r;
    if (!listed) err = CL_IMAGE_FORMAT_NOT_SUPPORTED;
    fmt.image_channel_order = img->format.channel_order;
    fmt.image_channel_data_type = img->format.channel_type;
    memset(&d, 0, sizeof d);
    d.image_type = hst__image_cl_type(img->type);
    d.image_width = img->extent[0];
    d.image_height = img->ndim >= 2 ? img->extent[1] : 0;
    d.image_depth = img->type == HST_IMAGE_3D ? img->extent[2] : 0;
    d.image_array_size = hst__image_layers(img);
    d.buffer = img->buffer ? img->buffer->cl : NULL;
    if (listed) img->cl = clCreateImage(be->ctx, hst__cl_access(img->mem_flags), &fmt, &d, NULL, &err);
    if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED,
                 "hst_image_create: %s does not support %u-channel %s%s images (order 0x%x, type 0x%x; "
                 "hst_supported_image_formats lists those it does)", be->info.name, img->channels,
                 img->normalized ? "normalized " : "", hst_dtype_name(img->dtype),
                 (unsigned)img->format.channel_order, (unsigned)img->format.channel_type);
        return HST_ERROR_UNSUPPORTED;
    }
    return hst__cl_done(be, "clCreateImage", err);
}

static hst_result hst__cl_image_formats(hst_backend *be, unsigned mem_flags, unsigned image_type,
                                        hst_image_format *formats, size_t max, size_t *count) {
    cl_mem_object_type type = hst__image_cl_type(image_type);
    cl_image_format *all;
    cl_uint n = 0, i;
    cl_int err;
    HST__CL_HERE(be, "hst_supported_image_formats");
    HST__CL(be, "clGetSupportedImageFormats", clGetSupportedImageFormats(be->ctx, hst__cl_access(mem_flags), type,
                                                                        0, NULL, &n));
    *count = n;
    if (!n || !max) return HST_SUCCESS;
    if (!(all = (cl_image_format *)hst__malloc(be, n * sizeof *all))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    err = clGetSupportedImageFormats(be->ctx, hst__cl_access(mem_flags), type, n, all, NULL);
    for (i = 0; err == CL_SUCCESS && i < n && i < max; i++) {
        formats[i].channel_order = all[i].image_channel_order;
        formats[i].channel_type = all[i].image_channel_data_type;
    }
    hst__free(be, all);
    return hst__cl_done(be, "clGetSupportedImageFormats", err);
}

static hst_result hst__cl_image_pitches(const hst_image *img, size_t *row_pitch, size_t *slice_pitch) {
    HST__CL_HERE(img->be, "hst_image_get_info");
    HST__CL(img->be, "clGetImageInfo", clGetImageInfo(img->cl, CL_IMAGE_ROW_PITCH, sizeof *row_pitch, row_pitch, NULL));
    HST__CL(img->be, "clGetImageInfo", clGetImageInfo(img->cl, CL_IMAGE_SLICE_PITCH, sizeof *slice_pitch,
                                                      slice_pitch, NULL));
    return HST_SUCCESS;
}

static void hst__cl_image_free(hst_image *img) {
    if (img->cl && hst__cl_usable()) clReleaseMemObject(img->cl);
}

/* hst_image_from_cl: handle is an image of be's context. Its description goes to *d as
   OpenCL's (its unused axes 0: hst_image_desc's convention too) and its format to img; img
   takes a reference. */
static hst_result hst__cl_image_adopt(hst_image *img, void *handle, hst_image_desc *d) {
    static const char *F = "hst_image_from_cl";
    hst_backend *be = img->be;
    cl_mem mem = (cl_mem)handle;
    cl_mem_object_type type = 0;
    cl_context ctx = NULL;
    cl_mem_flags flags = 0;
    cl_image_format fmt;
    HST__CL_HERE(be, F);
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL));
    if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F, "mem is a 1-D buffer image: "
                                "adopt its buffer with hst_buffer_from_cl and view it with hst_image_create");
    for (d->type = HST_IMAGE_1D; d->type < HST_IMAGE_1D_BUFFER && hst__image_cl_type(d->type) != type; d->type++) {}
    if (hst__image_cl_type(d->type) != type)
        return hst__bad_arg(be, F, "mem is not an image (CL_MEM_TYPE 0x%x)", (unsigned)type);
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
    if (ctx != be->ctx) return hst__bad_arg(be, F, "mem belongs to another context than the backend's");
    HST__CL(be, "clGetMemObjectInfo", clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
    HST__CL(be, "clGetImageInfo", clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof fmt, &fmt, NULL));
    HST__CL(be, "clGetImageInfo", clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof d->width, &d->width, NULL));
    HST__CL(be, "clGetImageInfo", clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof d->height, &d->height, NULL));
    HST__CL(be, "clGetImageInfo", clGetImageInfo(mem, CL_IMAGE_DEPTH, sizeof d->depth, &d->depth, NULL));
    HST__CL(be, "clGetImageInfo", clGetImageInfo(mem, CL_IMAGE_ARRAY_SIZE, sizeof d->array_size, &d->array_size,
                                                 NULL));
    HST__CL(be, "clRetainMemObject", clRetainMemObject(mem));
    img->cl = mem;
    d->mem_flags = (flags & CL_MEM_READ_ONLY) ? HST_MEM_READ_ONLY : (flags & CL_MEM_WRITE_ONLY) ? HST_MEM_WRITE_ONLY
                 : HST_MEM_READ_WRITE;
    img->format.channel_order = fmt.image_channel_order;
    img->format.channel_type = fmt.image_channel_data_type;
    return HST_SUCCESS;
}

static hst_result hst__cl_image_rw(hst_queue *q, const char *func, int write, hst_image *img, const size_t *origin,
                                   const size_t *region, void *host, size_t row_pitch, size_t slice_pitch,
                                   int blocking, HST__WAITS) {
    cl_bool blk = blocking ? CL_TRUE : CL_FALSE;
    hst_result r;
    if (write)
        HST__CL_ENQUEUE(func, clEnqueueWriteImage(q->cl, img->cl, blk, origin, region, row_pitch, slice_pitch, host,
                                                  W.n, W.ev, OUT));
    HST__CL_ENQUEUE(func, clEnqueueReadImage(q->cl, img->cl, blk, origin, region, row_pitch, slice_pitch, host,
                                             W.n, W.ev, OUT));
}

static hst_result hst__cl_image_copy(hst_queue *q, hst_image *dst, const size_t *dst_origin, const hst_image *src,
                                     const size_t *src_origin, const size_t *region, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueCopyImage", clEnqueueCopyImage(q->cl, src->cl, dst->cl, src_origin, dst_origin, region,
                                                             W.n, W.ev, OUT));
}

static hst_result hst__cl_image_buffer(hst_queue *q, const char *func, int to_buffer, hst_image *img,
                                       const size_t *origin, const size_t *region, hst_buffer *buf, size_t offset,
                                       HST__WAITS) {
    hst_result r;
    if (to_buffer)
        HST__CL_ENQUEUE(func, clEnqueueCopyImageToBuffer(q->cl, img->cl, buf->cl, origin, region, offset, W.n, W.ev, OUT));
    HST__CL_ENQUEUE(func, clEnqueueCopyBufferToImage(q->cl, buf->cl, img->cl, offset, origin, region, W.n, W.ev, OUT));
}

static hst_result hst__cl_image_fill(hst_queue *q, hst_image *img, const void *color, const size_t *origin,
                                     const size_t *region, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueFillImage", clEnqueueFillImage(q->cl, img->cl, color, origin, region, W.n, W.ev, OUT));
}

static hst_result hst__cl_image_map(hst_queue *q, hst_image *img, unsigned map_flags, const size_t *origin,
                                    const size_t *region, int blocking, size_t *row_pitch, size_t *slice_pitch,
                                    void **ptr, HST__WAITS) {
    hst__waitlist w;
    cl_int err;
    hst_result r;
    if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
    *ptr = clEnqueueMapImage(q->cl, img->cl, blocking ? CL_TRUE : CL_FALSE, hst__cl_map_flags(map_flags), origin,
                             region, row_pitch, slice_pitch, w.n, w.ev, hst__cl_out(out), &err);
    hst__wl_free(q->be, &w);
    return hst__cl_done(q->be, "clEnqueueMapImage", err);
}

static hst_result hst__cl_image_unmap(hst_queue *q, hst_image *img, void *ptr, HST__WAITS) {
    hst_result r;
    HST__CL_ENQUEUE("clEnqueueUnmapMemObject", clEnqueueUnmapMemObject(q->cl, img->cl, ptr, W.n, W.ev, OUT));
}

/* The OpenCL numbers backend.h spells without the OpenCL headers (hst_sampler_create_props):
   a negative array size if one differs. */
typedef char hst__cl_sampler_numbers[(CL_SAMPLER_NORMALIZED_COORDS == HST_SAMPLER_NORMALIZED_COORDS &&
    CL_SAMPLER_ADDRESSING_MODE == HST_SAMPLER_ADDRESSING_MODE && CL_SAMPLER_FILTER_MODE == HST_SAMPLER_FILTER_MODE &&
    CL_ADDRESS_MIRRORED_REPEAT == HST_CL_ADDRESS_BASE + HST_ADDRESS_MIRRORED_REPEAT &&
    CL_ADDRESS_NONE == HST_CL_ADDRESS_BASE + HST_ADDRESS_NONE &&
    CL_ADDRESS_REPEAT == HST_CL_ADDRESS_BASE + HST_ADDRESS_REPEAT &&
    CL_ADDRESS_CLAMP == HST_CL_ADDRESS_BASE + HST_ADDRESS_CLAMP &&
    CL_ADDRESS_CLAMP_TO_EDGE == HST_CL_ADDRESS_BASE + HST_ADDRESS_CLAMP_TO_EDGE &&
    CL_FILTER_NEAREST == HST_CL_FILTER_BASE + HST_FILTER_NEAREST &&
    CL_FILTER_LINEAR == HST_CL_FILTER_BASE + HST_FILTER_LINEAR) ? 1 : -1];

static hst_result hst__cl_sampler_create(hst_sampler *s) {
    hst_backend *be = s->be;
    cl_sampler_properties props[7];
    cl_int err;
    if (!hst__cl_usable()) return hst__cl_refused(be, "hst_sampler_create");
    props[0] = CL_SAMPLER_NORMALIZED_COORDS; props[1] = s->normalized ? CL_TRUE : CL_FALSE;
    props[2] = CL_SAMPLER_ADDRESSING_MODE; props[3] = HST_CL_ADDRESS_BASE + s->address;
    props[4] = CL_SAMPLER_FILTER_MODE; props[5] = HST_CL_FILTER_BASE + s->filter;
    props[6] = 0;
    if (hst__cl_version_at_least(be->info.version, 2, 0)) {
        s->cl = clCreateSamplerWithProperties(be->ctx, props, &err);
    } else {
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        s->cl = clCreateSampler(be->ctx, (cl_bool)props[1], (cl_addressing_mode)props[3],
                                (cl_filter_mode)props[5], &err);
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif
    }
    return hst__cl_done(be, "clCreateSampler", err);
}

static void hst__cl_sampler_free(hst_sampler *s) {
    if (s->cl && hst__cl_usable()) clReleaseSampler(s->cl);
}

/* hst_sampler_from_cl: handle is a sampler of be's context; s takes a reference. */
static hst_result hst__cl_sampler_adopt(hst_sampler *s, void *handle) {
    static const char *F = "hst_sampler_from_cl";
    hst_backend *be = s->be;
    cl_sampler smp = (cl_sampler)handle;
    cl_context ctx = NULL;
    cl_bool norm = CL_FALSE;
    cl_addressing_mode address = 0;
    cl_filter_mode filter = 0;
    HST__CL_HERE(be, F);
    HST__CL(be, "clGetSamplerInfo", clGetSamplerInfo(smp, CL_SAMPLER_CONTEXT, sizeof ctx, &ctx, NULL));
    if (ctx != be->ctx) return hst__bad_arg(be, F, "smp belongs to another context than the backend's");
    HST__CL(be, "clGetSamplerInfo", clGetSamplerInfo(smp, CL_SAMPLER_NORMALIZED_COORDS, sizeof norm, &norm, NULL));
    HST__CL(be, "clGetSamplerInfo", clGetSamplerInfo(smp, CL_SAMPLER_ADDRESSING_MODE, sizeof address, &address, NULL));
    HST__CL(be, "clGetSamplerInfo", clGetSamplerInfo(smp, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, NULL));
    if (address < HST_CL_ADDRESS_BASE || address > HST_CL_ADDRESS_BASE + HST_ADDRESS_MIRRORED_REPEAT ||
        filter < HST_CL_FILTER_BASE || filter > HST_CL_FILTER_BASE + HST_FILTER_LINEAR)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F, "smp's addressing mode 0x%x "
                                "or filter mode 0x%x is not OpenCL 1.2's", (unsigned)address, (unsigned)filter);
    HST__CL(be, "clRetainSampler", clRetainSampler(smp));
    s->cl = smp;
    s->normalized = norm != CL_FALSE;
    s->address = (unsigned)(address - HST_CL_ADDRESS_BASE);
    s->filter = (unsigned)(filter - HST_CL_FILTER_BASE);
    return HST_SUCCESS;
}

static hst_result hst__cl_object_info(const hst__info_query *iq) {
    const hst_backend *be = iq->kind == HST__INFO_BUFFER ? iq->buf->be : iq->kind == HST__INFO_SAMPLER ? iq->smp->be
                          : iq->img->be;
    cl_int err;
    HST__CL_HERE(be, iq->func);
    switch (iq->kind) {
    case HST__INFO_BUFFER: err = clGetMemObjectInfo(iq->buf->cl, iq->param, iq->bytes, iq->value, iq->size_ret); break;
    case HST__INFO_IMAGE_MEM:
        err = clGetMemObjectInfo(iq->img->cl, iq->param, iq->bytes, iq->value, iq->size_ret); break;
    case HST__INFO_IMAGE: err = clGetImageInfo(iq->img->cl, iq->param, iq->bytes, iq->value, iq->size_ret); break;
    default: err = clGetSamplerInfo(iq->smp->cl, iq->param, iq->bytes, iq->value, iq->size_ret); break;
    }
    return hst__cl_done(be, "clGet*Info", err);
}

/* >>opencl programs: built from source, or from the disk cache's binary */
static void hst__cache_path(const hst_backend *be, const uint64_t key[2], char *path, size_t cap) {
    snprintf(path, cap, "%s/%016llx%016llx.clbin", be->cache_dir, (unsigned long long)key[0],
             (unsigned long long)key[1]);
}

/* Entry layout: magic (8) | key (16) | payload bytes (8) | payload hash (8) | payload. */
typedef struct hst__cache_header {
    char magic[8];
    uint64_t key[2], bytes, check;
} hst__cache_header;

/* Reads a cache entry; NULL on a miss (absent) or a corrupt entry (*corrupt set). */
static unsigned char *hst__cache_read(const hst_backend *be, const uint64_t key[2], size_t *bytes,
                                      int *corrupt) {
    char path[1200];
    FILE *f;
    hst__cache_header h;
    unsigned char *data = NULL;
    *corrupt = 0;
    hst__cache_path(be, key, path, sizeof path);
    if (!(f = fopen(path, "rb"))) return NULL;
    *corrupt = 1;
    if (fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, HST__CACHE_MAGIC, 8) &&
        h.key[0] == key[0] && h.key[1] == key[1] && h.bytes > 0 && h.bytes <= HST__CACHE_MAX_BINARY &&
        (data = (unsigned char *)hst__malloc(be, (size_t)h.bytes)) != NULL &&
        fread(data, 1, (size_t)h.bytes, f) == h.bytes &&
        hst_hash_final(hst_hash_bytes(HST_HASH_SEED, data, (size_t)h.bytes)) == h.check) {
        *corrupt = 0;
        *bytes = (size_t)h.bytes;
    } else {
        hst__free(be, data);
        data = NULL;
    }
    fclose(f);
    return data;
}

/* Writes an entry atomically: a unique temporary file renamed over the final name, so readers
   never see a half-written entry and two writers of the same key both leave a whole one. */
static hst_result hst__cache_write(const hst_backend *be, const uint64_t key[2],
                                   const unsigned char *data, size_t bytes) {
    char path[1200], tmp[1300];
    hst__cache_header h;
    FILE *f;
    int ok;
    hst_mkdirs(be->cache_dir);
    hst__cache_path(be, key, path, sizeof path);
    hst_temp_name(tmp, sizeof tmp, path, &h);
    memcpy(h.magic, HST__CACHE_MAGIC, 8);
    h.key[0] = key[0]; h.key[1] = key[1]; h.bytes = bytes;
    h.check = hst_hash_final(hst_hash_bytes(HST_HASH_SEED, data, bytes));
    if (!(f = fopen(tmp, "wb"))) {
        hst__log(be, HST_LOG_WARN, HST_LOGITEM_CACHE_WRITE_FAILED, "cannot create %s: %s", tmp, strerror(errno));
        return HST_ERROR_IO;
    }
    ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, bytes, f) == bytes;
    ok = (fclose(f) == 0) && ok;
    if (!ok || !hst_rename_replace(tmp, path)) {
        hst__log(be, HST_LOG_WARN, HST_LOGITEM_CACHE_WRITE_FAILED, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return HST_ERROR_IO;
    }
    return HST_SUCCESS;
}



/* The build log, allocated; NULL when empty or unavailable. */
static char *hst__build_log(const hst_backend *be, cl_program prog) {
    size_t n = 0, i;
    char *log;
    if (clGetProgramBuildInfo(prog, be->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n < 2)
        return NULL;
    if (!(log = (char *)hst__malloc(be, n + 1))) return NULL;
    if (clGetProgramBuildInfo(prog, be->dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) {
        hst__free(be, log);
        return NULL;
    }
    log[n] = '\0';
    for (i = 0; log[i] && isspace((unsigned char)log[i]); i++) {}
    if (!log[i]) { hst__free(be, log); return NULL; }
    return log;
}

/* Delivers a build log whole (it is usually longer than an ordinary log message). */
static void hst__log_build(const hst_backend *be, hst_log_level level, hst_log_item item,
                           const char *what, const char *log) {
    size_t n = strlen(what) + (log ? strlen(log) : 0) + 2;
    char *msg;
    if (level > be->log_level) return;
    if (!(msg = (char *)hst__malloc(be, n))) return;
    snprintf(msg, n, "%s\n%s", what, log ? log : "");
    be->logger(be->log_user, level, item, msg);
    hst__free(be, msg);
}

static hst_result hst__cl_build(hst_backend *be, cl_program prog, const char *options) {
    cl_int err = clBuildProgram(prog, 1, &be->dev, options, NULL, NULL);
    char *log = hst__build_log(be, prog);
    if (err != CL_SUCCESS) {
        char what[512];
        snprintf(what, sizeof what, "hst_program_build: %s (%d) on %s; build log:",
                 hst_result_string(err), (int)err, be->info.name);
        hst__log_build(be, HST_LOG_ERROR, HST_LOGITEM_BUILD_FAILED, what, log);
    } else if (log) {
        hst__log_build(be, HST_LOG_INFO, HST_LOGITEM_BUILD_WARNINGS, "hst_program_build: build log:", log);
    }
    hst__free(be, log);
    return err;
}

/* A program from a cached binary, or NULL (a miss; a corrupt entry is logged and rebuilt). */
static cl_program hst__program_from_cache(hst_backend *be, const uint64_t key[2], const char *options) {
    size_t bytes = 0;
    int corrupt = 0;
    cl_int err, status;
    cl_program prog = NULL;
    unsigned char *bin;
    if (!be->cache_dir[0]) return NULL;
    bin = hst__cache_read(be, key, &bytes, &corrupt);
    if (bin) {
        const unsigned char *b = bin;
        prog = clCreateProgramWithBinary(be->ctx, 1, &be->dev, &bytes, &b, &status, &err);
        if (err == CL_SUCCESS && status == CL_SUCCESS &&
            clBuildProgram(prog, 1, &be->dev, options, NULL, NULL) == CL_SUCCESS) {
            hst__free(be, bin);
            hst__log(be, HST_LOG_INFO, HST_LOGITEM_CACHE_HIT, "program %016llx%016llx from %s",
                     (unsigned long long)key[0], (unsigned long long)key[1], be->cache_dir);
            return prog;
        }
        if (prog) clReleaseProgram(prog);
        prog = NULL;
        corrupt = 1;
        hst__free(be, bin);
    }
    if (corrupt)
        hst__log(be, HST_LOG_WARN, HST_LOGITEM_CACHE_CORRUPT, "cache entry %016llx%016llx in %s is "
                 "unreadable; rebuilding from source", (unsigned long long)key[0],
                 (unsigned long long)key[1], be->cache_dir);
    return NULL;
}

static void hst__program_to_cache(hst_backend *be, const uint64_t key[2], cl_program prog) {
    size_t bytes = 0;
    unsigned char *bin;
    if (!be->cache_dir[0]) return;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL) != CL_SUCCESS || !bytes)
        return;
    if (!(bin = (unsigned char *)hst__malloc(be, bytes))) return;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
        hst__cache_write(be, key, bin, bytes);
    hst__free(be, bin);
}

/* p->be and p->key are set. */
static hst_result hst__cl_program_compile(hst_program *p, size_t count, const char *const *src, const char *options) {
    hst_backend *be = p->be;
    cl_int err;
    hst_result r;
    if ((p->cl = hst__program_from_cache(be, p->key, options)) != NULL) return HST_SUCCESS;
    p->cl = clCreateProgramWithSource(be->ctx, (cl_uint)count, (const char **)src, NULL, &err);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateProgramWithSource", err);
    if ((r = hst__cl_build(be, p->cl, options)) != HST_SUCCESS) {
        clReleaseProgram(p->cl);
        p->cl = NULL;
        return r;
    }
    hst__program_to_cache(be, p->key, p->cl);
    return HST_SUCCESS;
}

static void hst__cl_program_free(hst_program *p) {
    if (p->cl && hst__cl_usable()) clReleaseProgram(p->cl);
}

/* >>opencl kernels and launches */
static hst_result hst__cl_kernel_create(hst_kernel *k, const char *name) {
    cl_int err;
    k->cl = clCreateKernel(k->prog->cl, name, &err);
    if (err == CL_SUCCESS) return HST_SUCCESS;
    hst__log(k->prog->be, HST_LOG_ERROR, HST_LOGITEM_CL_ERROR, "hst_kernel_create: no kernel '%s' (%s)", name,
             hst_result_string(err));
    return err;
}

static void hst__cl_kernel_free(hst_kernel *k) {
    if (k->cl && hst__cl_usable()) clReleaseKernel(k->cl);
}

/* A bound argument's bytes as clSetKernelArg takes them (a scalar's are its union member's,
   which all start at the union's address; LOCAL: NULL). */
static hst_result hst__cl_kernel_set_arg(hst_kernel *k, unsigned index, const hst_karg *a) {
    size_t bytes = a->bytes;
    const void *value = &a->v;
    cl_int err;
    switch (a->kind) {
    case HST_KARG_GLOBAL: value = &a->v.buffer->cl; bytes = sizeof(cl_mem); break;
    case HST_KARG_IMAGE: value = &a->v.image->cl; bytes = sizeof(cl_mem); break;
    case HST_KARG_SAMPLER: value = &a->v.sampler->cl; bytes = sizeof(cl_sampler); break;
    case HST_KARG_LOCAL: value = NULL; break;
    case HST_KARG_VALUE: value = a->v.value; break;
    default: break;
    }
    HST__CL_HERE(k->prog->be, "hst_kernel_set_arg");
    err = clSetKernelArg(k->cl, index, bytes, value);
    if (err == CL_SUCCESS) return HST_SUCCESS;
    hst__log(k->prog->be, HST_LOG_ERROR, HST_LOGITEM_CL_ERROR, "hst_kernel_set_arg: argument "
             "%u (%zu bytes): %s", index, bytes, hst_result_string(err));
    return err;
}

static hst_result hst__cl_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr) {
    HST__CL_HERE(k->prog->be, "hst_kernel_set_svm");
    HST__CL(k->prog->be, "clSetKernelArgSVMPointer", clSetKernelArgSVMPointer(k->cl, index, ptr));
    return HST_SUCCESS;
}

static hst_result hst__cl_kernel_wg_info(const hst_kernel *k, hst_kernel_wg_info *out) {
    const hst_backend *be = k->prog->be;
    cl_ulong local = 0, priv = 0;
    HST__CL_HERE(be, "hst_kernel_work_group_info");
    HST__CL(be, "clGetKernelWorkGroupInfo", clGetKernelWorkGroupInfo(k->cl, be->dev, CL_KERNEL_WORK_GROUP_SIZE,
            sizeof out->work_group_size, &out->work_group_size, NULL));
    HST__CL(be, "clGetKernelWorkGroupInfo", clGetKernelWorkGroupInfo(k->cl, be->dev,
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof out->preferred_multiple, &out->preferred_multiple, NULL));
    HST__CL(be, "clGetKernelWorkGroupInfo", clGetKernelWorkGroupInfo(k->cl, be->dev, CL_KERNEL_LOCAL_MEM_SIZE,
            sizeof local, &local, NULL));
    HST__CL(be, "clGetKernelWorkGroupInfo", clGetKernelWorkGroupInfo(k->cl, be->dev, CL_KERNEL_PRIVATE_MEM_SIZE,
            sizeof priv, &priv, NULL));
    HST__CL(be, "clGetKernelWorkGroupInfo", clGetKernelWorkGroupInfo(k->cl, be->dev,
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof out->compile_work_group_size, out->compile_work_group_size, NULL));
    out->local_mem_bytes = (uint64_t)local;
    out->private_mem_bytes = (uint64_t)priv;
    return HST_SUCCESS;
}

/* The default work-group: 256 / 16x16 / 8x8x4, halved (largest axis first) until the kernel
   accepts it on this device. */
static void hst__default_local(hst_kernel *k, cl_device_id dev, unsigned dims, size_t *local) {
    size_t max = k->max_work_group, prod;
    unsigned i;
    if (!max) {   /* asked once per kernel: a launch is microseconds, the query is not free */
        if (clGetKernelWorkGroupInfo(k->cl, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL) != CL_SUCCESS || !max)
            max = 1;
        k->max_work_group = max;
    }
    local[0] = dims == 1 ? HST__DEFAULT_LOCAL_1D : dims == 2 ? 16 : 8;
    local[1] = dims == 2 ? 16 : dims == 3 ? 8 : 1;
    local[2] = dims == 3 ? 4 : 1;
    for (;;) {
        unsigned big = 0;
        prod = local[0] * local[1] * local[2];
        if (prod <= max) break;
        for (i = 1; i < 3; i++) if (local[i] > local[big]) big = i;
        local[big] /= 2;
    }
}

/* The launch's NDRange: local as given or the default, global rounded up to it, and the
   offset added without overflow (OpenCL's CL_INVALID_GLOBAL_OFFSET, caught before the call). */
static hst_result hst__ndrange(const hst_queue *q, hst_kernel *k, unsigned dims, const size_t *offset,
                               const size_t *global, const size_t *local, size_t *glob, size_t *loc) {
    static const char *F = "hst_launch";
    unsigned i;
    size_t end;
    if (local) for (i = 0; i < dims; i++) loc[i] = local[i];
    else hst__default_local(k, q->be->dev, dims, loc);
    for (i = 0; i < dims; i++) {
        if (!global[i] || !loc[i])
            return hst__zero_arg(q->be, F, "global[%u] = %zu, local[%u] = %zu: sizes must be > 0",
                                 i, global[i], i, loc[i]);
        if (!hst_size_add(global[i], loc[i] - 1, &glob[i])) return hst__overflow(q->be, F, "global size");
        glob[i] -= glob[i] % loc[i];   /* rounded up to the work-group multiple */
        if (offset && !hst_size_add(offset[i], glob[i], &end))
            return hst__overflow(q->be, F, "global_offset + global size");
    }
    return HST_SUCCESS;
}

static hst_result hst__cl_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *offset, const size_t *global,
                                 const size_t *local, HST__WAITS) {
    size_t loc[3] = {1, 1, 1}, glob[3] = {1, 1, 1};
    hst_result r;
    if ((r = hst__ndrange(q, k, dims, offset, global, local, glob, loc)) != HST_SUCCESS) return r;
    HST__CL_ENQUEUE("clEnqueueNDRangeKernel", clEnqueueNDRangeKernel(q->cl, k->cl, dims, offset, glob, loc,
                                                                     W.n, W.ev, OUT));
}

/* A declared kernel: the family's program and kernel (made once per backend), bound and run. */
static hst_result hst__cl_launch_declared(hst_backend *be, const hst_launch_desc *d, hst_queue *q, hst_event *out) {
    hst_kernel *k;
    hst_result r;
    if ((r = hst_family_kernel(be, d->family, d->options, d->kernel, &k)) != HST_SUCCESS) return r;
    return hst_kernel_run(q, k, &d->range, d->num_args, d->args, d->num_wait, d->wait, out);
}

/* >>opencl handles */
HST__BDEF cl_context hst_backend_cl_context(const hst_backend *be) { return be ? be->ctx : NULL; }
HST__BDEF cl_platform_id hst_backend_cl_platform(const hst_backend *be) { return be ? be->platform : NULL; }
HST__BDEF cl_device_id hst_backend_cl_device(const hst_backend *be) { return be ? be->dev : NULL; }
HST__BDEF cl_command_queue hst_queue_cl(const hst_queue *q) { return q ? q->cl : NULL; }
HST__BDEF cl_mem hst_buffer_cl(const hst_buffer *b) { return b ? b->cl : NULL; }
HST__BDEF cl_mem hst_image_cl(const hst_image *img) { return img ? img->cl : NULL; }
HST__BDEF cl_sampler hst_sampler_cl(const hst_sampler *s) { return s ? s->cl : NULL; }
HST__BDEF cl_event hst_event_cl(hst_event e) { return e && !hst__host_event(e) ? hst__cl_ev(e) : NULL; }
HST__BDEF hst_event hst_event_from_cl(cl_event e) { return (hst_event)(void *)e; }

#define HST__OP_CL(ret, name, params, args) hst__cl_##name,
#define HST__OP_CL_V(name, params, args) hst__cl_##name,
static const hst__device_ops hst__opencl_ops = {"OpenCL", 1, HST__DEVICE_OPS(HST__OP_CL, HST__OP_CL_V)};
#undef HST__OP_CL
#undef HST__OP_CL_V
static const hst__device_ops *hst__opencl_device(void) { return &hst__opencl_ops; }
#endif /* HST_NO_OPENCL: the OpenCL device */

/* >>devices ---------------------------------------------------------------------------------- */
/* The host device's memory: physical memory where the system says, else the largest object. */
static uint64_t hst__host_memory_bytes(void) {
    uint64_t bytes = hst_physical_memory_bytes();
    return bytes > 0 && bytes <= (uint64_t)PTRDIFF_MAX ? bytes : (uint64_t)PTRDIFF_MAX;
}

static void hst__host_device_info(hst_device_info *d) {
    memset(d, 0, sizeof *d);
    hst__copy_string(d->selector, sizeof d->selector, "host");
    d->platform_index = d->device_index = -1;
    d->type = HST_DEVICE_HOST;
    d->unified_memory = 1;
    hst__copy_string(d->name, sizeof d->name, "host (C twins of the kernels)");
    hst__copy_string(d->vendor, sizeof d->vendor, "halostream");
    hst__copy_string(d->platform_name, sizeof d->platform_name, "host");
    hst__copy_string(d->version, sizeof d->version, "halostream " HST_VERSION_STRING);
    hst__copy_string(d->driver_version, sizeof d->driver_version, HST_VERSION_STRING);
    d->compute_units = hst_cpu_count();          /* the threads of the host twins (esrrf.h) */
    d->global_mem_bytes = d->max_alloc_bytes = hst__host_memory_bytes();
    d->max_work_group_size = 1;
    d->mem_base_addr_align_bytes = HST__HOST_ALIGN;  /* the same rule as an OpenCL device */
    d->fp64 = d->images = d->correctly_rounded_sqrt = 1;
    d->svm = HST_SVM_COARSE | HST_SVM_FINE;
}


HST__BDEF hst_result hst_devices(hst_device_info *out, size_t capacity, size_t *count) {
    size_t n = 0;
    if (!count) return hst__null_arg(NULL, "hst_devices", "count is NULL");
#ifndef HST_NO_OPENCL
    n = hst__cl_list(out, capacity);
#endif
    if (out && n < capacity) hst__host_device_info(&out[n]);
    *count = n + 1;
    return HST_SUCCESS;
}

/* Preference of `auto` and of gpu/cpu among their kind: higher wins. */
static int hst__device_rank(const hst_device_info *d) {
    switch (d->type) {
    case HST_DEVICE_GPU: return d->unified_memory ? 4 : 5;
    case HST_DEVICE_ACCELERATOR: return 3;
    case HST_DEVICE_CPU: return 2;
    case HST_DEVICE_OTHER: return 1;
    default: return 0;
    }
}

static const char *hst__type_name(hst_device_type t) {
    switch (t) {
    case HST_DEVICE_HOST: return "host";
    case HST_DEVICE_CPU: return "OpenCL CPU";
    case HST_DEVICE_GPU: return "GPU";
    case HST_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

/* Best-ranked device among those `accept` admits (0 = all, else a type); -1 if none. */
static long hst__best_device(const hst_device_info *list, size_t n, hst_device_type accept) {
    long best = -1;
    size_t i;
    for (i = 0; i < n; i++) {
        const hst_device_info *d = &list[i];
        if (accept && d->type != accept) continue;
        if (best < 0 || hst__device_rank(d) > hst__device_rank(&list[best]) ||
            (hst__device_rank(d) == hst__device_rank(&list[best]) &&
             d->global_mem_bytes > list[best].global_mem_bytes && d->type != HST_DEVICE_HOST))
            best = (long)i;
    }
    return best;
}

static long hst__match_selector(const char *sel, const hst_device_info *list, size_t n,
                                char *why, size_t why_bytes) {
    size_t i;
    int p, d;
    char tail;
    if (!strcmp(sel, "auto")) {
        long b = hst__best_device(list, n, (hst_device_type)0);
        const hst_device_info *x = &list[b];
        if (x->type == HST_DEVICE_HOST)
            snprintf(why, why_bytes, "auto: no OpenCL device found, using the host device");
        else
            snprintf(why, why_bytes, "auto: %s%s preferred (discrete GPU > integrated GPU > "
                     "accelerator > OpenCL CPU > host), %u compute units, %.1f GiB",
                     x->type == HST_DEVICE_GPU ? (x->unified_memory ? "integrated " : "discrete ")
                                               : "", hst__type_name(x->type), x->compute_units,
                     (double)x->global_mem_bytes / 1073741824.0);
        return b;
    }
    if (!strcmp(sel, "gpu") || !strcmp(sel, "cpu") || !strcmp(sel, "host")) {
        hst_device_type t = sel[0] == 'g' ? HST_DEVICE_GPU
                          : sel[0] == 'c' ? HST_DEVICE_CPU : HST_DEVICE_HOST;
        long b = hst__best_device(list, n, t);
        if (b >= 0) snprintf(why, why_bytes, "%s: the preferred %s device", sel, hst__type_name(t));
        return b;
    }
    if (sscanf(sel, "%d:%d%c", &p, &d, &tail) == 2) {
        for (i = 0; i < n; i++)
            if (list[i].platform_index == p && list[i].device_index == d) {
                snprintf(why, why_bytes, "%s: platform %d, device %d", sel, p, d);
                return (long)i;
            }
        return -1;
    }
    for (i = 0; i < n; i++)
        if (hst__contains_nocase(list[i].name, sel) || hst__contains_nocase(list[i].vendor, sel) ||
            hst__contains_nocase(list[i].platform_name, sel)) {
            snprintf(why, why_bytes, "'%s' matches the name, vendor or platform of %s", sel,
                     list[i].selector);
            return (long)i;
        }
    return -1;
}

/* Lists what is available into why, for the error message of a failed selection. */
static void hst__describe_devices(const hst_device_info *list, size_t n, const char *sel,
                                  char *why, size_t why_bytes) {
    size_t i, used;
    used = (size_t)snprintf(why, why_bytes, "no device matches '%s'; available:", sel);
    for (i = 0; i < n && used < why_bytes; i++)
        used += (size_t)snprintf(why + used, why_bytes - used, " %s (%s)%s", list[i].selector,
                                 list[i].name, i + 1 < n ? "," : "");
}


/* The selector in force: the caller's, else HST_DEVICE, else "auto". */
static const char *hst__selector(const char *selector) {
    const char *sel = selector;
    if (!sel || !*sel) sel = getenv("HST_DEVICE");
    return sel && *sel ? sel : "auto";
}

/* The device of list (n entries) that sel picks into *out, or HST_ERROR_NO_DEVICE with what was
   available in why. */
static hst_result hst__pick(const char *sel, const hst_device_info *list, size_t n,
                            hst_device_info *out, char *why, size_t why_bytes) {
    long pick;
    why[0] = '\0';
    pick = hst__match_selector(sel, list, n, why, why_bytes);
    if (pick >= 0) {
        *out = list[pick];
        return HST_SUCCESS;
    }
    hst__describe_devices(list, n, sel, why, why_bytes);
#ifdef HST_NO_OPENCL
    {   /* say why no OpenCL device is listed */
        size_t used = strlen(why);
        snprintf(why + used, why_bytes - used, " (a build with HST_NO_OPENCL has the host "
                 "device alone)");
    }
#endif
    return HST_ERROR_NO_DEVICE;
}

static hst_result hst__select(const hst_backend *be, const char *selector, hst_device_info *out,
                              char *why, size_t why_bytes) {
    hst_device_info *list;
    size_t n = 0;
    const char *sel = hst__selector(selector);
    hst_result r;
    if (!strcmp(sel, "host")) {
        /* Not listed: listing loads every OpenCL driver, whose threads and address space a
           caller that names the host device neither wants nor may have (a PoCL that cannot
           start its threads aborts the process). */
        hst_device_info host;
        hst__host_device_info(&host);
        return hst__pick(sel, &host, 1, out, why, why_bytes);
    }
    if ((r = hst_devices(NULL, 0, &n)) != HST_SUCCESS) return r;
    list = (hst_device_info *)hst__malloc(be, n * sizeof *list);
    if (!list) return HST_ERROR_OUT_OF_HOST_MEMORY;
    {
        size_t now = 0;   /* a device may have appeared since the count */
        if ((r = hst_devices(list, n, &now)) != HST_SUCCESS) { hst__free(be, list); return r; }
        if (now < n) n = now;
    }
    r = hst__pick(sel, list, n, out, why, why_bytes);
#ifndef HST_NO_OPENCL
    if (!hst__cl_usable()) r = hst__select_forked(be, sel, r, why, why_bytes);
#endif
    hst__free(be, list);
    return r;
}

HST__BDEF hst_result hst_device_select(const char *selector, hst_device_info *out, char *why,
                                     size_t why_bytes) {
    char local[512];
    hst_result r;
    if (!out) return hst__null_arg(NULL, "hst_device_select", "out is NULL");
    r = hst__select(NULL, selector, out, local, sizeof local);
    if (why && why_bytes) hst__copy_string(why, why_bytes, local);
    return r;
}

/* >>backend ---------------------------------------------------------------------------------- */
static void hst__resolve_cache_dir(hst_backend *be, const hst_backend_desc *desc) {
    const char *dir = desc->cache_dir;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    be->cache_dir[0] = '\0';
    if (desc->no_disk_cache) return;
    if (!dir || !*dir) dir = getenv("HST_CACHE_DIR");
    if (dir && !strcmp(dir, "off")) return;
    if (dir && *dir) snprintf(be->cache_dir, sizeof be->cache_dir, "%s", dir);
    else if (xdg && *xdg) snprintf(be->cache_dir, sizeof be->cache_dir, "%s/halostream", xdg);
    else if (home && *home) snprintf(be->cache_dir, sizeof be->cache_dir, "%s/.cache/halostream", home);
}

static hst_result hst__check_desc(const hst_backend *cfg, const hst_backend_desc *d) {
    if ((d->allocator.alloc == NULL) != (d->allocator.free == NULL))
        return hst__bad_arg(cfg, "hst_backend_create", "desc.allocator: set both alloc and free, or neither");
#ifndef HST_NO_OPENCL
    if ((d->wrap_context == NULL) != (d->wrap_queue == NULL))
        return hst__bad_arg(cfg, "hst_backend_create", "desc.wrap_context and desc.wrap_queue: set both, or neither");
#endif
    if (d->log_level < 0 || d->log_level > HST_LOG_DEBUG)
        return hst__range_arg(cfg, "hst_backend_create", "desc.log_level %d is not an hst_log_level",
                              (int)d->log_level);
    return HST_SUCCESS;
}

/* The fields that logging and allocation need, so errors during creation reach the caller's
   logger through the caller's allocator. */
static void hst__init_config(hst_backend *be, const hst_backend_desc *d) {
    memset(be, 0, sizeof *be);
    be->logger = d->logger ? d->logger : hst__stderr_logger;
    be->log_user = d->log_user;
    be->log_level = d->log_level ? d->log_level
                                 : (d->logger ? HST_LOG_DEBUG : hst__env_log_level());
    be->allocator = d->allocator;
    be->ops = hst__host_device();   /* until the device is opened */
    be->device_limit = d->device_memory_limit_bytes;
    hst__resolve_cache_dir(be, d);
}



/* The device's table opens it: a wrapped context, or the device the selector picks. */
static hst_result hst__open_device(hst_backend *be, const hst_backend_desc *desc) {
    char why[512];
    hst_result r;
#ifndef HST_NO_OPENCL
    if (desc->wrap_context) { be->ops = hst__opencl_device(); return be->ops->open(be, desc); }
#endif
    r = hst__select(be, desc->device, &be->info, why, sizeof why);
    if (r != HST_SUCCESS)
        return hst_backend_fail(be, r, r == HST_ERROR_FORKED ? HST_LOGITEM_FORKED
                                                            : HST_LOGITEM_NO_MATCHING_DEVICE,
                                "hst_backend_create", "%s", why);
    hst__log(be, HST_LOG_INFO, HST_LOGITEM_DEVICE_CHOSEN, "%s: %s", be->info.name, why);
#ifndef HST_NO_OPENCL
    if (be->info.type != HST_DEVICE_HOST) be->ops = hst__opencl_device();
#endif
    return be->ops->open(be, desc);
}

static void hst__backend_free(hst_backend *be);
static void hst__release_families(hst_backend *be);

HST__BDEF hst_result hst_backend_create(const hst_backend_desc *desc, hst_backend **out) {
    hst_backend cfg, *be;
    hst_backend_desc zero;
    hst_result r;
    if (!desc) { memset(&zero, 0, sizeof zero); desc = &zero; }
    hst__init_config(&cfg, desc);   /* first, so rejections reach the caller's logger */
    if (!out) return hst__null_arg(&cfg, "hst_backend_create", "out is NULL");
    *out = NULL;
    if ((r = hst__check_desc(&cfg, desc)) != HST_SUCCESS) return r;
    be = (hst_backend *)hst__malloc(&cfg, sizeof *be);
    if (!be) return HST_ERROR_OUT_OF_HOST_MEMORY;
    *be = cfg;
    be->queue.be = be;
    if (!hst_rmutex_init(&be->lock)) {
        hst__free(&cfg, be);
        return hst_backend_fail(&cfg, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                                "hst_backend_create", "the system refused the backend's lock");
    }
    r = hst__open_device(be, desc);
    if (r == HST_SUCCESS) r = hst_pool_create(be, &be->pool);
    if (r != HST_SUCCESS) { hst__backend_free(be); return r; }   /* not handed out: nothing holds it */
    *out = be;
    return HST_SUCCESS;
}

static void hst__release_programs(hst_backend *be) {
    while (be->programs) {
        hst_program *p = be->programs;
        be->programs = p->next;
        be->ops->program_free(p);
        hst__free(be, p);
    }
}

/* The layers' destroy hooks, the last attached first (a later layer may use an earlier one). */
static void hst__destroy_extensions(hst_backend *be) {
    while (be->num_ext) {
        hst__extension *e = &be->ext[--be->num_ext];
        if (e->destroy) e->destroy(be, e->data);
    }
}

/* Frees a backend nothing holds (destroy's work after its check; create's failure path). */
static void hst__backend_free(hst_backend *be) {
    hst__destroy_extensions(be);
    hst_buffer_destroy(be->stage[0]);
    hst_buffer_destroy(be->stage[1]);
    hst__release_families(be);
    hst__release_programs(be);
    hst_pool_destroy(be->pool);
    be->ops->close(be);
    hst_rmutex_destroy(&be->lock);
    hst__free(be, be);
}

HST__BDEF hst_result hst_backend_destroy(hst_backend *be) {
    if (!be) return HST_SUCCESS;
    if (be->holds) {   /* the oldest holder: the caller's object (a session's own streams come later) */
        const hst__hold *h = be->holds;
        while (h->next) h = h->next;
        return hst__state_arg(be, "hst_backend_destroy", "%s %p still uses the backend (%u hold(s) in all): "
                            "destroy it first; the backend is not freed", h->what, h->holder, hst_backend_holds(be));
    }
    hst__backend_free(be);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_backend_hold(hst_backend *be, const void *holder, const char *what) {
    hst__hold *h;
    if (!be || !holder || !what)
        return hst__null_arg(be, "hst_backend_hold", "%s is NULL", !be ? "be" : !holder ? "holder" : "what");
    for (h = be->holds; h; h = h->next)
        if (h->holder == holder)
            return hst__state_arg(be, "hst_backend_hold", "%s %p already holds the backend", what, holder);
    if (!(h = (hst__hold *)hst__malloc(be, sizeof *h))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    h->holder = holder;
    h->what = what;
    h->next = be->holds;
    be->holds = h;
    return HST_SUCCESS;
}

HST__BDEF void hst_backend_release_hold(hst_backend *be, const void *holder) {
    hst__hold **p;
    if (!be) return;
    for (p = &be->holds; *p; p = &(*p)->next)
        if ((*p)->holder == holder) {
            hst__hold *h = *p;
            *p = h->next;
            hst__free(be, h);
            return;
        }
}

HST__BDEF unsigned hst_backend_holds(const hst_backend *be) {
    const hst__hold *h;
    unsigned n = 0;
    for (h = be ? be->holds : NULL; h; h = h->next) n++;
    return n;
}

HST__BDEF const hst_device_info *hst_backend_device(const hst_backend *be) {
    return be ? &be->info : NULL;
}
HST__BDEF int hst_backend_is_host(const hst_backend *be) {
    return be && be->info.type == HST_DEVICE_HOST;
}
HST__BDEF hst_queue *hst_backend_queue(hst_backend *be) { return be ? &be->queue : NULL; }
HST__BDEF hst_pool *hst_backend_pool(hst_backend *be) { return be ? be->pool : NULL; }
HST__BDEF const char *hst_backend_cache_dir(const hst_backend *be) {
    return be ? be->cache_dir : "";
}
HST__BDEF uint64_t hst_backend_device_limit(const hst_backend *be) {
    return be ? be->device_limit : 0;
}

/* >>extensions ------------------------------------------------------------------------------- */
HST__BDEF hst_result hst_backend_attach(hst_backend *be, const char *name, void *data,
                                        hst_backend_ext_destroy_fn destroy) {
    static const char *F = "hst_backend_attach";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!name || !data) return hst__null_arg(be, F, "%s is NULL", name ? "data" : "name");
    if (hst_backend_extension(be, name)) return hst__state_arg(be, F, "\"%s\" is attached already", name);
    if (be->num_ext == HST_BACKEND_MAX_EXTENSIONS) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: all %d extension slots are taken",
                 F, HST_BACKEND_MAX_EXTENSIONS);
        return HST_ERROR_UNSUPPORTED;
    }
    be->ext[be->num_ext].name = name;
    be->ext[be->num_ext].data = data;
    be->ext[be->num_ext].destroy = destroy;
    be->num_ext++;
    return HST_SUCCESS;
}

HST__BDEF void *hst_backend_extension(const hst_backend *be, const char *name) {
    unsigned i;
    if (!be || !name) return NULL;
    for (i = 0; i < be->num_ext; i++)
        if (!strcmp(be->ext[i].name, name)) return be->ext[i].data;
    return NULL;
}

HST__BDEF uint64_t hst_backend_device_bytes(const hst_backend *be) {
    return be ? be->device_bytes : 0;
}

/* >>queues ----------------------------------------------------------------------------------- */
HST__BDEF hst_result hst_queue_create(hst_backend *be, hst_queue **out) {
    return hst_queue_create_desc(be, NULL, out);
}

HST__BDEF hst_result hst_queue_create_desc(hst_backend *be, const hst_queue_desc *desc, hst_queue **out) {
    hst_queue *q;
    if (!be || !out) return hst__null_arg(be, "hst_queue_create", "%s is NULL", be ? "out" : "be");
    q = (hst_queue *)hst__calloc(be, sizeof *q);
    if (!q) return HST_ERROR_OUT_OF_HOST_MEMORY;
    q->be = be;
    q->profiling = desc && desc->profiling;
    {
        hst_result r = be->ops->queue_create(q);
        if (r != HST_SUCCESS) { hst__free(be, q); return r; }
    }
    *out = q;
    return HST_SUCCESS;
}

/* Not inlined: GCC's use-after-free analysis, seeing the free inlined into a caller, warns
   where the caller keeps using the default queue, which is never freed. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void hst__queue_free(hst_queue *q) {
    q->be->ops->queue_destroy(q);
    hst__free(q->be, q);
}

HST__BDEF void hst_queue_destroy(hst_queue *q) {
    if (q && q != &q->be->queue) hst__queue_free(q);   /* the default queue belongs to the backend */
}

HST__BDEF int hst_queue_profiling(const hst_queue *q) { return q ? q->profiling : 0; }

HST__BDEF hst_result hst_queue_flush(hst_queue *q) {
    if (!q) return hst__null_arg(NULL, "hst_queue_flush", "q is NULL");
    return q->be->ops->queue_flush(q);
}

HST__BDEF hst_result hst_queue_finish(hst_queue *q) {
    if (!q) return hst__null_arg(NULL, "hst_queue_finish", "q is NULL");
    return q->be->ops->queue_finish(q);
}


/* >>events ----------------------------------------------------------------------------------- */
/* Each event's operations go through its table (hst__event_ops); NULL counts as complete. */
HST__BDEF hst_result hst_event_wait(size_t num, const hst_event *events) {
    size_t i;
    hst_result r;
    if (num && !events) return hst__null_arg(NULL, "hst_event_wait", "events is NULL but num is %zu", num);
    for (i = 0; i < num; i++) {
        const hst__device_ops *ops = hst__event_ops(events[i]);
        if (ops && (r = ops->event_wait(events[i], i)) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

HST__BDEF void hst_event_release(hst_event e) {
    const hst__device_ops *ops = hst__event_ops(e);
    if (ops) ops->event_release(e);
}

HST__BDEF void hst_event_retain(hst_event e) {
    const hst__device_ops *ops = hst__event_ops(e);
    if (ops) ops->event_retain(e);
}

HST__BDEF hst_result hst_event_status(hst_event e, int *status) {
    const hst__device_ops *ops = hst__event_ops(e);
    struct hst__event *ev = hst__host_event(e);
    if (!status) return hst__null_arg(ev ? ev->be : NULL, "hst_event_status", "status is NULL");
    *status = HST_EVENT_COMPLETE;
    return ops ? ops->event_status(e, status) : HST_SUCCESS;
}

HST__BDEF hst_result hst_event_profile(hst_event e, uint64_t *queued_ns, uint64_t *submit_ns,
                                     uint64_t *start_ns, uint64_t *end_ns) {
    const hst__device_ops *ops = hst__event_ops(e);
    uint64_t t[4] = {0, 0, 0, 0};
    hst_result r;
    if (!ops) return hst__null_arg(NULL, "hst_event_profile", "e is NULL (a command on a host device "
                                   "queue without profiling, or no event asked for)");
    if ((r = ops->event_profile(e, t)) != HST_SUCCESS) return r;
    if (queued_ns) *queued_ns = t[0];
    if (submit_ns) *submit_ns = t[1];
    if (start_ns) *start_ns = t[2];
    if (end_ns) *end_ns = t[3];
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_user_event_create(hst_backend *be, hst_event *out) {
    if (!be || !out) return hst__null_arg(be, "hst_user_event_create", "%s is NULL", be ? "out" : "be");
    *out = NULL;
    return be->ops->user_event_create(be, out);
}

HST__BDEF hst_result hst_user_event_set(hst_event e, int status) {
    static const char *F = "hst_user_event_set";
    const hst__device_ops *ops = hst__event_ops(e);
    struct hst__event *ev = hst__host_event(e);
    if (!ops) return hst__null_arg(NULL, F, "e is NULL");
    if (status > 0)
        return hst__range_arg(ev ? ev->be : NULL, F, "status %d: a user event is set to HST_EVENT_COMPLETE (0) or a "
                              "negative error", status);
    return ops->user_event_set(e, status);
}

HST__BDEF hst_result hst_event_set_callback(hst_event e, hst_event_fn fn, void *user) {
    const hst__device_ops *ops = hst__event_ops(e);
    struct hst__event *ev = hst__host_event(e);
    if (!fn) return hst__null_arg(ev ? ev->be : NULL, "hst_event_set_callback", "fn is NULL");
    if (!ops) { fn(e, HST_EVENT_COMPLETE, user); return HST_SUCCESS; }
    return ops->event_set_callback(e, fn, user);
}

/* >>memory ----------------------------------------------------------------------------------- */
/* Every enqueue-style call starts here: the queue exists and the wait list is well formed. */
static hst_result hst__check_enqueue(const hst_queue *q, const char *func, size_t num_wait,
                                     const hst_event *wait) {
    if (!q) return hst__null_arg(NULL, func, "q is NULL");
    if (num_wait && !wait)
        return hst__null_arg(q->be, func, "wait is NULL but num_wait is %zu", num_wait);
    return q->be->ops->callable(q->be, func);
}

HST__BDEF hst_result hst_queue_marker(hst_queue *q, size_t num_wait, const hst_event *wait, hst_event *out) {
    hst_result r;
    if ((r = hst__check_enqueue(q, "hst_queue_marker", num_wait, wait)) != HST_SUCCESS) return r;
    return q->be->ops->marker(q, 0, num_wait, wait, out);
}


HST__BDEF hst_result hst_queue_barrier(hst_queue *q, size_t num_wait, const hst_event *wait,
                                     hst_event *out) {
    hst_result r;
    if ((r = hst__check_enqueue(q, "hst_queue_barrier", num_wait, wait)) != HST_SUCCESS) return r;
    return q->be->ops->marker(q, 1, num_wait, wait, out);
}

/* [offset, offset + bytes) must lie inside `size` bytes. */
static hst_result hst__check_range(const hst_backend *be, const char *func, const char *what,
                                   size_t offset, size_t bytes, size_t size) {
    size_t end;
    if (!hst_size_add(offset, bytes, &end)) return hst__overflow(be, func, what);
    if (end > size)
        return hst__range_arg(be, func, "%s [%zu, %zu) exceeds the buffer's %zu bytes", what,
                            offset, end, size);
    return HST_SUCCESS;
}

/* Charges a device allocation against the device's and the caller's limits. */
static hst_result hst__reserve(hst_backend *be, const char *func, size_t bytes) {
    if ((uint64_t)bytes > be->info.max_alloc_bytes) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                 "%s: %zu bytes exceed the device's largest allocation (%llu bytes)", func, bytes,
                 (unsigned long long)be->info.max_alloc_bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    if (be->device_limit && (uint64_t)bytes > be->device_limit - be->device_bytes) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                 "%s: %zu bytes more would exceed the limit of %llu device bytes (%llu in use)",
                 func, bytes, (unsigned long long)be->device_limit,
                 (unsigned long long)be->device_bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    be->device_bytes += bytes;
    return HST_SUCCESS;
}

static void hst__unreserve(hst_backend *be, size_t bytes) { be->device_bytes -= bytes; }


/* A pinned buffer enters (on) or leaves (off) the backend's list of them. */
static void hst__pinned_list(hst_buffer *b, int on) {
    hst_buffer **p = &b->be->pinned;
    if (on) { b->next_pinned = *p; *p = b; return; }
    while (*p && *p != b) p = &(*p)->next_pinned;
    if (*p) *p = b->next_pinned;
}

/* Releases the memory of a non-pooled buffer and its struct. */
static void hst__buffer_release(hst_buffer *b) {
    hst_backend *be = b->be;
    if (b->pinned && !b->parent) hst__pinned_list(b, 0);
    be->ops->buffer_free(b);
    if (!b->parent) hst__unreserve(be, b->capacity);
    hst__free(be, b);
}

/* wrap: the caller's memory (hst_buffer_wrap), else NULL. */
static hst_result hst__buffer_new(hst_backend *be, const char *func, size_t bytes,
                                  unsigned flags, int pinned, void *wrap, hst_buffer **out) {
    hst_buffer *b;
    hst_result r;
    if ((r = be->ops->callable(be, func)) != HST_SUCCESS) return r;
    if ((r = hst__reserve(be, func, bytes)) != HST_SUCCESS) return r;
    b = (hst_buffer *)hst__calloc(be, sizeof *b);
    if (!b) { hst__unreserve(be, bytes); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    b->be = be;
    b->bytes = b->capacity = bytes;
    b->pinned = pinned;
    b->serial = ++be->buffers_made;
    b->wrapped = wrap != NULL;
    r = be->ops->buffer_alloc(b, flags, wrap);
    if (r != HST_SUCCESS) { hst__buffer_release(b); return r; }
    if (pinned) hst__pinned_list(b, 1);
    *out = b;
    return HST_SUCCESS;
}

static hst_result hst__check_alloc_args(hst_backend *be, const char *func, size_t bytes,
                                        unsigned flags, hst_buffer **out) {
    if (!be) return hst__null_arg(NULL, func, "be is NULL");
    if (!out) return hst__null_arg(be, func, "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__zero_arg(be, func, "bytes is 0");
    if (flags & ~(unsigned)(HST_MEM_READ_ONLY | HST_MEM_WRITE_ONLY | HST_MEM_RESIDENT))
        return hst__range_arg(be, func, "flags 0x%x has unknown bits", flags);
    if ((flags & HST_MEM_READ_ONLY) && (flags & HST_MEM_WRITE_ONLY))
        return hst__bad_arg(be, func, "flags: READ_ONLY and WRITE_ONLY together");
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_buffer_create(hst_backend *be, size_t bytes, unsigned flags,
                                     hst_buffer **out) {
    hst_result r = hst__check_alloc_args(be, "hst_buffer_create", bytes, flags, out);
    if (r != HST_SUCCESS) return r;
    return hst__buffer_new(be, "hst_buffer_create", bytes, flags, 0, NULL, out);
}

HST__BDEF hst_result hst_buffer_wrap(hst_backend *be, void *ptr, size_t bytes, unsigned flags,
                                   hst_buffer **out) {
    hst_result r = hst__check_alloc_args(be, "hst_buffer_wrap", bytes, flags, out);
    if (r != HST_SUCCESS) return r;
    if (!ptr) return hst__null_arg(be, "hst_buffer_wrap", "ptr is NULL");
    if (flags & HST_MEM_RESIDENT)   /* a wrap is the caller's memory: nothing to allocate */
        return hst__bad_arg(be, "hst_buffer_wrap", "flags: HST_MEM_RESIDENT is not allowed");
    return hst__buffer_new(be, "hst_buffer_wrap", bytes, flags, 0, ptr, out);
}

#ifndef HST_NO_OPENCL
HST__BDEF hst_result hst_buffer_from_cl(hst_backend *be, cl_mem mem, hst_buffer **out) {
    static const char *F = "hst_buffer_from_cl";
    hst_buffer *b;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (out) *out = NULL;
    if (!out || !mem) return hst__null_arg(be, F, "%s is NULL", out ? "mem" : "out");
    if ((r = be->ops->callable(be, F)) != HST_SUCCESS) return r;
    if (!(b = (hst_buffer *)hst__calloc(be, sizeof *b))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    b->be = be;
    if ((r = be->ops->buffer_adopt(b, (void *)mem)) == HST_SUCCESS &&
        (r = hst__reserve(be, F, b->bytes)) != HST_SUCCESS)
        be->ops->buffer_free(b);   /* over the limit: the reference taken goes back */
    if (r != HST_SUCCESS) { hst__free(be, b); return r; }
    b->serial = ++be->buffers_made;
    *out = b;
    return HST_SUCCESS;
}
#endif

HST__BDEF hst_result hst_pinned_create(hst_backend *be, size_t bytes, hst_buffer **out) {
    hst_result r = hst__check_alloc_args(be, "hst_pinned_create", bytes, 0, out);
    if (r != HST_SUCCESS) return r;
    return hst__buffer_new(be, "hst_pinned_create", bytes, 0, 1, NULL, out);
}

/* A sub-buffer of [origin, origin + bytes) of parent, whose origin in parent's underlying
   allocation (parent's own origin added when parent is itself a sub-buffer) must be a multiple
   of align (HST_ERROR_ALIGNMENT, logged as HST_LOGITEM_MISALIGNED). The caller checked the range. */
static hst_result hst__buffer_sub(hst_buffer *parent, size_t origin, size_t bytes, size_t align,
                                  const char *func, hst_buffer **out) {
    hst_backend *be = parent->be;
    hst_buffer *root = parent->parent ? parent->parent : parent, *b;
    size_t at = parent->parent ? parent->origin + origin : origin;
    hst_result r;
    if ((r = be->ops->callable(be, func)) != HST_SUCCESS) return r;
    if (at % align) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_MISALIGNED,
                 "%s: origin %zu is not a multiple of the device's base address alignment "
                 "(%zu bytes)", func, at, align);
        return HST_ERROR_ALIGNMENT;
    }
    b = (hst_buffer *)hst__calloc(be, sizeof *b);
    if (!b) return HST_ERROR_OUT_OF_HOST_MEMORY;
    *b = *root;
    b->parent = root; b->origin = at; b->bytes = b->capacity = bytes;
    b->pool = NULL; b->next_held = NULL; b->prev_active = b->next_active = NULL;
    b->serial = ++be->buffers_made;
    b->host = root->host ? (char *)root->host + at : NULL;
    if ((r = be->ops->buffer_sub(b, root)) != HST_SUCCESS) { hst__free(be, b); return r; }
    *out = b;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_buffer_create_view(hst_buffer *buf, size_t origin, size_t bytes,
                                            size_t align, hst_buffer **out) {
    static const char *F = "hst_buffer_create_view";
    hst_backend *be;
    hst_result r;
    if (!buf) return hst__null_arg(NULL, F, "buf is NULL");
    be = buf->be;
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__zero_arg(be, F, "bytes is 0");
    if (align == 0) return hst__zero_arg(be, F, "align is 0");
    if ((r = hst__check_range(be, F, "view", origin, bytes, buf->bytes)) != HST_SUCCESS) return r;
    return hst__buffer_sub(buf, origin, bytes, align, F, out);
}

HST__BDEF const hst_buffer *hst_buffer_root(const hst_buffer *buf, size_t *origin) {
    if (!buf) return NULL;
    if (origin) *origin = buf->parent ? buf->origin : 0;
    return buf->parent ? buf->parent : buf;
}

HST__BDEF hst_result hst_buffer_create_sub(hst_buffer *parent, size_t origin, size_t bytes,
                                         hst_buffer **out) {
    static const char *F = "hst_buffer_create_sub";
    hst_backend *be;
    hst_result r;
    if (!parent) return hst__null_arg(NULL, F, "parent is NULL");
    be = parent->be;
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (parent->parent) return hst__bad_arg(be, F, "parent is itself a sub-buffer");
    if (bytes == 0) return hst__zero_arg(be, F, "bytes is 0");
    if ((r = hst__check_range(be, F, "sub-buffer", origin, bytes, parent->bytes)) != HST_SUCCESS)
        return r;
    return hst__buffer_sub(parent, origin, bytes, be->info.mem_base_addr_align_bytes, F, out);
}

static void hst__pool_return(hst_pool *pool, hst_buffer *b);

HST__BDEF void hst_buffer_destroy(hst_buffer *buf) {
    if (!buf) return;
    if (buf->pool) hst__pool_return(buf->pool, buf);
    else hst__buffer_release(buf);
}

HST__BDEF size_t hst_buffer_bytes(const hst_buffer *b) { return b ? b->bytes : 0; }
HST__BDEF void *hst_buffer_host_ptr(const hst_buffer *b) { return b ? b->host : NULL; }
HST__BDEF hst_backend *hst_buffer_backend(const hst_buffer *b) { return b ? b->be : NULL; }
HST__BDEF uint64_t hst_buffer_serial(const hst_buffer *b) { return b ? b->serial : 0; }

/* The buffer belongs to the queue's backend (objects of two backends never mix). */
static hst_result hst__check_buffer(const hst_queue *q, const char *func, const char *name,
                                    const hst_buffer *b) {
    if (!b) return hst__null_arg(q->be, func, "%s is NULL", name);
    if (b->be != q->be) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOGITEM_SHAPE_MISMATCH,
                 "%s: %s belongs to another backend than the queue", func, name);
        return HST_ERROR_SHAPE;
    }
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_fill(hst_queue *q, hst_buffer *buf, const void *pattern,
                            size_t pattern_bytes, size_t offset, size_t bytes,
                            size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_fill";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "buf", buf)) != HST_SUCCESS) return r;
    if (!pattern) return hst__null_arg(q->be, F, "pattern is NULL");
    if (pattern_bytes == 0) return hst__zero_arg(q->be, F, "pattern_bytes is 0");
    if (pattern_bytes > 128 || (pattern_bytes & (pattern_bytes - 1)))
        return hst__range_arg(q->be, F, "pattern_bytes %zu is not a power of two up to 128", pattern_bytes);
    if (offset % pattern_bytes || bytes % pattern_bytes)
        return hst__bad_arg(q->be, F, "offset %zu and bytes %zu must be multiples of pattern_bytes %zu",
                            offset, bytes, pattern_bytes);
    if ((r = hst__check_range(q->be, F, "fill", offset, bytes, buf->bytes)) != HST_SUCCESS) return r;
    if (bytes == 0) return q->be->ops->nothing(q, F, num_wait, wait, out);
    return q->be->ops->fill(q, buf, pattern, pattern_bytes, offset, bytes, num_wait, wait, out);
}

HST__BDEF hst_result hst_write(hst_queue *q, hst_buffer *dst, size_t dst_offset, const void *src,
                             size_t bytes, int blocking,
                             size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_write";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "dst", dst)) != HST_SUCCESS) return r;
    if (!src) return hst__null_arg(q->be, F, "src is NULL");
    if ((r = hst__check_range(q->be, F, "write", dst_offset, bytes, dst->bytes)) != HST_SUCCESS) return r;
    return q->be->ops->write(q, dst, dst_offset, src, bytes, blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_read(hst_queue *q, const hst_buffer *src, size_t src_offset, void *dst,
                            size_t bytes, int blocking,
                            size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_read";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "src", src)) != HST_SUCCESS) return r;
    if (!dst) return hst__null_arg(q->be, F, "dst is NULL");
    if ((r = hst__check_range(q->be, F, "read", src_offset, bytes, src->bytes)) != HST_SUCCESS) return r;
    return q->be->ops->read(q, src, src_offset, dst, bytes, blocking, num_wait, wait, out);
}

/* The root buffer and absolute offset of a (sub-)buffer, to detect overlapping copies. */
static const hst_buffer *hst__root(const hst_buffer *b, size_t *offset) {
    *offset += b->origin;
    return b->parent ? b->parent : b;
}

HST__BDEF hst_result hst_copy(hst_queue *q, hst_buffer *dst, size_t dst_offset,
                            const hst_buffer *src, size_t src_offset, size_t bytes,
                            size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_copy";
    size_t da = dst_offset, sa = src_offset;
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "dst", dst)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "src", src)) != HST_SUCCESS) return r;
    if ((r = hst__check_range(q->be, F, "destination", dst_offset, bytes, dst->bytes)) != HST_SUCCESS) return r;
    if ((r = hst__check_range(q->be, F, "source", src_offset, bytes, src->bytes)) != HST_SUCCESS) return r;
    if (hst__root(dst, &da) == hst__root(src, &sa) && da < sa + bytes && sa < da + bytes)
        return hst__bad_arg(q->be, F, "source and destination ranges overlap");
    if (bytes == 0) return q->be->ops->nothing(q, F, num_wait, wait, out);
    return q->be->ops->copy(q, dst, dst_offset, src, src_offset, bytes, num_wait, wait, out);
}

/* Resolves a rect's zero pitches as OpenCL does and, when size > 0, checks that the region
   lies within `size` bytes (size 0: a host array, trusted). */
static hst_result hst__resolve_rect(const hst_backend *be, const char *func, const char *what,
                                    const hst_rect *in, const size_t region[3], size_t size,
                                    hst__rect_abs *o) {
    size_t last, t;
    int i;
    hst__rect_abs zero;
    memset(&zero, 0, sizeof zero);
    *o = zero;
    if (in) { for (i = 0; i < 3; i++) o->origin[i] = in->origin[i]; o->row_pitch = in->row_pitch; o->slice_pitch = in->slice_pitch; }
    if (o->row_pitch == 0) o->row_pitch = region[0];
    if (o->slice_pitch == 0 && !hst_size_mul(region[1], o->row_pitch, &o->slice_pitch))
        return hst__overflow(be, func, what);
    if (!hst_size_mul(region[1], o->row_pitch, &t)) return hst__overflow(be, func, what);
    if (o->row_pitch < region[0] || o->slice_pitch < t)
        return hst__bad_arg(be, func, "%s: pitches (%zu, %zu) are smaller than the region", what,
                            o->row_pitch, o->slice_pitch);
    if (o->slice_pitch % o->row_pitch)   /* OpenCL's rule, kept on every device */
        return hst__bad_arg(be, func, "%s: slice_pitch %zu is not a multiple of row_pitch %zu",
                            what, o->slice_pitch, o->row_pitch);
    if (size == 0) return HST_SUCCESS;
    /* last byte + 1 = origin + (region - 1) in every dimension, weighted by the pitches */
    if (!hst_size_mul(o->origin[2] + region[2] - 1, o->slice_pitch, &last) ||
        o->origin[2] + region[2] - 1 < o->origin[2] ||
        !hst_size_mul(o->origin[1] + region[1] - 1, o->row_pitch, &t) ||
        o->origin[1] + region[1] - 1 < o->origin[1] ||
        !hst_size_add(last, t, &last) || !hst_size_add(last, o->origin[0], &last) ||
        !hst_size_add(last, region[0], &last))
        return hst__overflow(be, func, what);
    if (last > size)
        return hst__range_arg(be, func, "%s: the region ends at byte %zu, past the buffer's %zu",
                            what, last, size);
    return HST_SUCCESS;
}

static hst_result hst__check_region(const hst_backend *be, const char *func, const size_t *region) {
    size_t t;
    if (!region) return hst__null_arg(be, func, "region is NULL");
    if (!region[0] || !region[1] || !region[2])
        return hst__zero_arg(be, func, "region {%zu, %zu, %zu} has a zero extent", region[0],
                            region[1], region[2]);
    if (!hst_size_mul(region[0], region[1], &t) || !hst_size_mul(t, region[2], &t))
        return hst__overflow(be, func, "region");
    return HST_SUCCESS;
}


/* dir: 0 host->buffer, 1 buffer->host, 2 buffer->buffer. */
static hst_result hst__rect(hst_queue *q, const char *func, int dir, hst_buffer *dbuf,
                            void *dhost, const hst_rect *drect, const hst_buffer *sbuf,
                            const void *shost, const hst_rect *srect, const size_t region[3],
                            int blocking, size_t num_wait, const hst_event *wait, hst_event *out) {
    hst__rect_cmd c;
    hst_result r;
    if ((r = hst__check_enqueue(q, func, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_region(q->be, func, region)) != HST_SUCCESS) return r;
    if (dir != 1 && (r = hst__check_buffer(q, func, "dst", dbuf)) != HST_SUCCESS) return r;
    if (dir != 0 && (r = hst__check_buffer(q, func, "src", sbuf)) != HST_SUCCESS) return r;
    if ((dir == 1 && !dhost) || (dir == 0 && !shost))
        return hst__null_arg(q->be, func, "the host pointer is NULL");
    if ((r = hst__resolve_rect(q->be, func, "destination", drect, region, dir == 1 ? 0 : dbuf->bytes, &c.d)) != HST_SUCCESS) return r;
    if ((r = hst__resolve_rect(q->be, func, "source", srect, region, dir == 0 ? 0 : sbuf->bytes, &c.s)) != HST_SUCCESS) return r;
    c.dir = dir; c.blocking = blocking; c.region = region;
    c.dbuf = dbuf; c.dhost = dhost; c.sbuf = sbuf; c.shost = shost;
    return q->be->ops->rect(q, func, &c, num_wait, wait, out);
}

HST__BDEF hst_result hst_write_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                  const void *src, const hst_rect *src_rect,
                                  const size_t region[3], int blocking,
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__rect(q, "hst_write_rect", 0, dst, NULL, dst_rect, NULL, src, src_rect, region,
                     blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_read_rect(hst_queue *q, const hst_buffer *src, const hst_rect *src_rect,
                                 void *dst, const hst_rect *dst_rect,
                                 const size_t region[3], int blocking,
                                 size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__rect(q, "hst_read_rect", 1, NULL, dst, dst_rect, src, NULL, src_rect, region,
                     blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_copy_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                 const hst_buffer *src, const hst_rect *src_rect,
                                 const size_t region[3],
                                 size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__rect(q, "hst_copy_rect", 2, dst, NULL, dst_rect, src, NULL, src_rect, region, 0,
                     num_wait, wait, out);
}

HST__BDEF hst_result hst_map(hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset,
                           size_t bytes, int blocking, void **ptr,
                           size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_map";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "buf", buf)) != HST_SUCCESS) return r;
    if (!ptr) return hst__null_arg(q->be, F, "ptr is NULL");
    *ptr = NULL;
    if (!map_flags || (map_flags & ~7u))
        return hst__range_arg(q->be, F, "map_flags 0x%x: use HST_MAP_READ/WRITE/WRITE_INVALIDATE", map_flags);
    if (bytes == 0) return hst__zero_arg(q->be, F, "bytes is 0");
    if ((r = hst__check_range(q->be, F, "map", offset, bytes, buf->bytes)) != HST_SUCCESS) return r;
    return q->be->ops->map(q, buf, map_flags, offset, bytes, blocking, ptr, num_wait, wait, out);
}

HST__BDEF hst_result hst_unmap(hst_queue *q, hst_buffer *buf, void *ptr,
                             size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "buf", buf)) != HST_SUCCESS) return r;
    if (!ptr) return hst__null_arg(q->be, F, "ptr is NULL");
    return q->be->ops->unmap(q, buf, ptr, num_wait, wait, out);
}

HST__BDEF hst_result hst_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers,
                               unsigned migrate_flags,
                               size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_migrate";
    hst_result r;
    size_t i;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!num_buffers) return hst__zero_arg(q->be, F, "num_buffers is 0");
    if (!buffers) return hst__null_arg(q->be, F, "buffers is NULL");
    if (migrate_flags & ~3u) return hst__range_arg(q->be, F, "migrate_flags 0x%x has unknown bits", migrate_flags);
    for (i = 0; i < num_buffers; i++)
        if ((r = hst__check_buffer(q, F, "buffers[i]", buffers[i])) != HST_SUCCESS) return r;
    return q->be->ops->migrate(q, num_buffers, buffers, migrate_flags, num_wait, wait, out);
}

/* >>svm -------------------------------------------------------------------------------------- */
HST__BDEF hst_result hst_svm_alloc(hst_backend *be, size_t bytes, int fine, void **out) {
    static const char *F = "hst_svm_alloc";
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__zero_arg(be, F, "bytes is 0");
    if (!(be->info.svm & (fine ? HST_SVM_FINE : HST_SVM_COARSE))) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: %s does not support %s-grain SVM",
                 F, be->info.name, fine ? "fine" : "coarse");
        return HST_ERROR_UNSUPPORTED;
    }
    /* SVM sizes are not recorded, so SVM is checked against the limits but not charged. */
    if ((r = hst__reserve(be, F, bytes)) != HST_SUCCESS) return r;
    hst__unreserve(be, bytes);
    if ((r = be->ops->callable(be, F)) != HST_SUCCESS) return r;
    *out = be->ops->svm_alloc(be, bytes, fine);
    if (!*out) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "%s: %zu bytes failed", F, bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    return HST_SUCCESS;
}

HST__BDEF void hst_svm_free(hst_backend *be, void *ptr) {
    if (be && ptr) be->ops->svm_free(be, ptr);
}

HST__BDEF hst_result hst_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes,
                               size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_map";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr) return hst__null_arg(q->be, F, "ptr is NULL");
    if (!bytes) return hst__zero_arg(q->be, F, "bytes is 0");
    if (!map_flags || (map_flags & ~7u)) return hst__range_arg(q->be, F, "map_flags 0x%x", map_flags);
    return q->be->ops->svm_map(q, map_flags, ptr, bytes, num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_unmap(hst_queue *q, void *ptr,
                                 size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr) return hst__null_arg(q->be, F, "ptr is NULL");
    return q->be->ops->svm_unmap(q, ptr, num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes,
                                int blocking, size_t num_wait, const hst_event *wait,
                                hst_event *out) {
    static const char *F = "hst_svm_copy";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!dst || !src) return hst__null_arg(q->be, F, "%s is NULL", dst ? "src" : "dst");
    return q->be->ops->svm_copy(q, dst, src, bytes, blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_fill(hst_queue *q, void *ptr, const void *pattern,
                                size_t pattern_bytes, size_t bytes,
                                size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_fill";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr || !pattern) return hst__null_arg(q->be, F, "%s is NULL", ptr ? "pattern" : "ptr");
    if (pattern_bytes == 0) return hst__zero_arg(q->be, F, "pattern_bytes is 0");
    if (pattern_bytes > 128 || (pattern_bytes & (pattern_bytes - 1)))
        return hst__range_arg(q->be, F, "pattern_bytes %zu is not a power of two up to 128", pattern_bytes);
    if (bytes % pattern_bytes)
        return hst__bad_arg(q->be, F, "bytes %zu is not a multiple of pattern_bytes %zu", bytes, pattern_bytes);
    return q->be->ops->svm_fill(q, ptr, pattern, pattern_bytes, bytes, num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_migrate(hst_queue *q, size_t num, const void *const *ptrs, const size_t *sizes,
                                   unsigned migrate_flags, size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_migrate";
    hst_result r;
    size_t i;
    if (out) *out = NULL;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!num) return hst__zero_arg(q->be, F, "num is 0");
    if (!ptrs) return hst__null_arg(q->be, F, "ptrs is NULL");
    for (i = 0; i < num; i++)
        if (!ptrs[i]) return hst__null_arg(q->be, F, "ptrs[%zu] is NULL", i);
    if (num > 0xffffffffu) return hst__range_arg(q->be, F, "num %zu is over 2^32 - 1", num);
    if (migrate_flags & ~3u) return hst__range_arg(q->be, F, "migrate_flags 0x%x has unknown bits", migrate_flags);
    if (!q->be->info.svm) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: %s has no SVM", F, q->be->info.name);
        return HST_ERROR_UNSUPPORTED;
    }
    return q->be->ops->svm_migrate(q, num, ptrs, sizes, migrate_flags, num_wait, wait, out);
}

/* >>images ----------------------------------------------------------------------------------- */
/* The channels of OpenCL's orders CL_R (0x10B0) .. CL_ABGR (0x10C3), in order: R A RG RA RGB
   RGBA BGRA ARGB INTENSITY LUMINANCE Rx RGx RGBx DEPTH DEPTH_STENCIL sRGB sRGBx sRGBA sBGRA
   ABGR (OpenCL 1.2, 5.3.1.1; 2.0 for depth, sRGB, ABGR). */
static unsigned hst__order_channels(uint32_t order) {
    static const unsigned char n[] = {1, 1, 2, 2, 3, 4, 4, 4, 1, 1, 2, 3, 4, 1, 2, 3, 4, 4, 4, 4};
    return order >= HST__CL_R && order <= HST__CL_ABGR ? n[order - HST__CL_R] : 0;
}

/* The bytes of OpenCL's types CL_SNORM_INT8 (0x10D0) .. CL_UNORM_INT_101010_2 (0x10E0), in
   order: per channel, or (negative) per pixel for the packed ones (565, 555, 101010, INT24,
   101010_2). */
static int hst__type_bytes(uint32_t type) {
    static const signed char n[] = {1, 2, 1, 2, -2, -2, -4, 1, 2, 4, 1, 2, 4, 2, 4, -4, -4};
    return type >= HST__CL_SNORM_INT8 && type <= HST__CL_UNORM_INT_101010_2 ? n[type - HST__CL_SNORM_INT8] : 0;
}

HST__BDEF unsigned hst_image_format_channels(hst_image_format f) { return hst__order_channels(f.channel_order); }

HST__BDEF size_t hst_image_format_pixel_bytes(hst_image_format f) {
    unsigned ch = hst__order_channels(f.channel_order);
    int b = hst__type_bytes(f.channel_type);
    if (!ch || !b) return 0;
    if (f.channel_order == HST__CL_DEPTH_STENCIL)   /* 24-bit depth + 8-bit stencil; float + 32 bits */
        return f.channel_type == HST__CL_FLOAT ? 8 : 4;
    return b < 0 ? (size_t)-b : (size_t)b * ch;
}

/* PyOpenCL's image_from_array table: dtype -> channel type, channels -> channel order. */
static hst_image_format hst__image_format(hst_dtype dt, unsigned channels, int normalized) {
    hst_image_format f;
    unsigned ch = dt == HST_C64 ? channels * 2 : channels;
    f.channel_order = ch == 1 ? HST__CL_R : ch == 2 ? HST__CL_RG : HST__CL_RGBA;
    f.channel_type = dt == HST_U8 ? (normalized ? HST__CL_UNORM_INT8 : HST__CL_UNSIGNED_INT8)
                   : dt == HST_I8 ? (normalized ? HST__CL_SNORM_INT8 : HST__CL_SIGNED_INT8)
                   : dt == HST_I16 ? (normalized ? HST__CL_SNORM_INT16 : HST__CL_SIGNED_INT16)
                   : dt == HST_I32 ? HST__CL_SIGNED_INT32 : HST__CL_FLOAT;
    return f;
}

/* The dtypes hst_image_from_array takes, and those of them with a normalized format. */
static int hst__image_dtype(hst_dtype dt) {
    return dt == HST_U8 || dt == HST_I8 || dt == HST_I16 || dt == HST_I32 || dt == HST_F32 || dt == HST_C64;
}
static int hst__image_normalizable(hst_dtype dt) { return dt == HST_U8 || dt == HST_I8 || dt == HST_I16; }

/* The formats hst_image_from_array makes (c64's are f32's) by index, dtype by dtype, plain
   before normalized, 1, 2 and 4 channels: 1 with format i's parts, 0 past the last. */
static int hst__image_vocab(size_t i, hst_dtype *dt, unsigned *ch, int *norm) {
    static const hst_dtype dts[] = {HST_U8, HST_I8, HST_I16, HST_I32, HST_F32};
    static const unsigned chs[] = {1, 2, 4};
    size_t d, per;
    for (d = 0; d < sizeof dts / sizeof dts[0]; d++, i -= per) {
        per = (size_t)(1 + hst__image_normalizable(dts[d])) * (sizeof chs / sizeof chs[0]);
        if (i < per) {
            *dt = dts[d];
            *norm = (int)(i / (sizeof chs / sizeof chs[0]));
            *ch = chs[i % (sizeof chs / sizeof chs[0])];
            return 1;
        }
    }
    return 0;
}

/* The dimensions of one image (a layer) of an HST_IMAGE_* type. */
static unsigned hst__image_ndim(unsigned type) {
    return type == HST_IMAGE_3D ? 3 : type == HST_IMAGE_2D || type == HST_IMAGE_2D_ARRAY ? 2 : 1;
}

/* An image's pixel bytes (extent times pixel bytes) into *bytes; 0 when size_t overflows. */
static int hst__image_bytes(const hst_image *img, size_t *bytes) {
    return hst_size_mul(img->extent[0], img->extent[1], bytes) && hst_size_mul(*bytes, img->extent[2], bytes) &&
           hst_size_mul(*bytes, img->pixel_bytes, bytes);
}

/* The format part of an image's description (func names the public call). */
static hst_result hst__image_format_check(const hst_backend *be, const char *F, hst_dtype dt, unsigned channels,
                                          int normalized) {
    if (!hst__image_dtype(dt)) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_DTYPE, "%s: no image format holds dtype %s", F,
                 hst_dtype_name(dt));
        return HST_ERROR_DTYPE;
    }
    if (channels != 1 && channels != 2 && channels != 4)
        return hst__range_arg(be, F, "channels %u is not 1, 2 or 4", channels);
    if (dt == HST_C64 && channels != 1 && channels != 2)
        return hst__bad_arg(be, F, "c64 images hold 1 or 2 complex values per pixel");
    if (normalized && !hst__image_normalizable(dt))
        return hst__bad_arg(be, F, "normalized: %s has no normalized format (u8, i8 and i16 have)",
                            hst_dtype_name(dt));
    return HST_SUCCESS;
}

/* d's extent as a box's (hst_image_desc says which axis is what), every field the type does
   not use 0, and the pixel count within size_t. */
static hst_result hst__image_extent(const hst_backend *be, const char *F, const hst_image_desc *d, size_t extent[3]) {
    static const char *const names[] = {"", "1-D", "2-D", "3-D", "1-D array", "2-D array", "1-D buffer"};
    const int has_h = d->type == HST_IMAGE_2D || d->type == HST_IMAGE_2D_ARRAY || d->type == HST_IMAGE_3D;
    const int has_layers = d->type == HST_IMAGE_1D_ARRAY || d->type == HST_IMAGE_2D_ARRAY;
    if (d->type < HST_IMAGE_1D || d->type > HST_IMAGE_1D_BUFFER)
        return hst__range_arg(be, F, "d->type %u is not an HST_IMAGE_*", d->type);
    if (!d->width) return hst__zero_arg(be, F, "d->width is 0");
    if (has_h != (d->height != 0))
        return has_h ? hst__zero_arg(be, F, "d->height is 0 (%s image)", names[d->type])
                     : hst__bad_arg(be, F, "d->height %zu: a %s image has none", d->height, names[d->type]);
    if ((d->type == HST_IMAGE_3D) != (d->depth != 0))
        return d->type == HST_IMAGE_3D ? hst__zero_arg(be, F, "d->depth is 0 (3-D image)")
                                       : hst__bad_arg(be, F, "d->depth %zu: a %s image has none", d->depth,
                                                      names[d->type]);
    if (has_layers != (d->array_size != 0))
        return has_layers ? hst__zero_arg(be, F, "d->array_size is 0 (%s image)", names[d->type])
                          : hst__bad_arg(be, F, "d->array_size %zu: a %s image is no array", d->array_size,
                                         names[d->type]);
    if ((d->type == HST_IMAGE_1D_BUFFER) != (d->buffer != NULL))
        return d->buffer ? hst__bad_arg(be, F, "d->buffer: only a 1-D buffer image views a buffer")
                         : hst__null_arg(be, F, "d->buffer is NULL (1-D buffer image)");
    extent[0] = d->width;
    extent[1] = d->type == HST_IMAGE_1D_ARRAY ? d->array_size : has_h ? d->height : 1;
    extent[2] = d->type == HST_IMAGE_3D ? d->depth : d->type == HST_IMAGE_2D_ARRAY ? d->array_size : 1;
    return HST_SUCCESS;
}

/* The host pitches of d: 0, or at least a row (and a slice or layer: the rows of one). */
static hst_result hst__image_pitches_check(const hst_backend *be, const char *F, const hst_image_desc *d,
                                           const hst_image *img) {
    size_t row = img->extent[0] * img->pixel_bytes, rp = d->row_pitch ? d->row_pitch : row, slice;
    size_t rows = img->type == HST_IMAGE_1D_ARRAY ? 1 : img->extent[1];
    if (d->row_pitch && d->row_pitch < row)
        return hst__range_arg(be, F, "d->row_pitch %zu is below a row's %zu bytes", d->row_pitch, row);
    if (!hst_size_mul(rp, rows, &slice)) return hst__overflow(be, F, "d->row_pitch * rows");
    if (d->slice_pitch && (d->slice_pitch < slice || (img->type != HST_IMAGE_3D && img->type != HST_IMAGE_1D_ARRAY &&
                                                      img->type != HST_IMAGE_2D_ARRAY)))
        return hst__range_arg(be, F, "d->slice_pitch %zu: %s", d->slice_pitch, d->slice_pitch < slice ?
                              "below a slice's rows" : "the image has no slices or layers");
    return HST_SUCCESS;
}

/* A 1-D buffer image's buffer: a root buffer of be holding the pixels. */
static hst_result hst__image_buffer_check(const hst_backend *be, const char *F, const hst_image *img) {
    size_t bytes = img->extent[0] * img->pixel_bytes;
    if (img->buffer->be != be) return hst__bad_arg(be, F, "d->buffer belongs to another backend");
    if (img->buffer->parent) return hst__bad_arg(be, F, "d->buffer is a sub-buffer or view; give its root");
    if (bytes > img->buffer->bytes)
        return hst__range_arg(be, F, "d->buffer's %zu bytes hold fewer than the image's %zu", img->buffer->bytes,
                              bytes);
    return HST_SUCCESS;
}

/* hst_image_create's work (func names the public call): the checks, the image, its pixels. */
static hst_result hst__image_make(hst_backend *be, const char *F, const hst_image_desc *d, hst_image **out) {
    static const size_t o0[3] = {0, 0, 0};
    hst_image *img;
    hst_result r;
    size_t extent[3], bytes;
    if ((r = hst__image_format_check(be, F, d->dtype, d->channels, d->normalized)) != HST_SUCCESS) return r;
    if ((r = hst__image_extent(be, F, d, extent)) != HST_SUCCESS) return r;
    if (d->mem_flags > HST_MEM_WRITE_ONLY || d->mem_flags == (HST_MEM_READ_ONLY | HST_MEM_WRITE_ONLY))
        return hst__range_arg(be, F, "d->mem_flags 0x%x is not HST_MEM_READ_WRITE, _READ_ONLY or _WRITE_ONLY",
                              d->mem_flags);
    if (!be->info.images) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: %s has no image support", F, be->info.name);
        return HST_ERROR_UNSUPPORTED;
    }
    if (!(img = (hst_image *)hst__calloc(be, sizeof *img))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    img->be = be; img->type = d->type; img->mem_flags = d->mem_flags; img->buffer = d->buffer;
    img->dtype = d->dtype; img->channels = d->channels; img->normalized = d->normalized != 0;
    img->ndim = hst__image_ndim(d->type);
    img->format = hst__image_format(d->dtype, d->channels, img->normalized);
    memcpy(img->extent, extent, sizeof extent);
    img->pixel_bytes = hst_dtype_size(d->dtype) * d->channels;
    if (!hst__image_bytes(img, &bytes))
        r = hst__overflow(be, F, "the extent * pixel bytes");
    else if ((r = hst__image_pitches_check(be, F, d, img)) == HST_SUCCESS && img->buffer)
        r = hst__image_buffer_check(be, F, img);
    if (r == HST_SUCCESS && !img->buffer && (r = hst__reserve(be, F, bytes)) == HST_SUCCESS)
        img->reserved = bytes;                 /* a buffer image's memory is the buffer's */
    if (r != HST_SUCCESS) { hst__free(be, img); return r; }
    if ((r = be->ops->image_create(img)) == HST_SUCCESS && d->host)
        r = hst_image_write(hst_backend_queue(be), img, o0, img->extent, d->host, d->row_pitch, d->slice_pitch, 1,
                            0, NULL, NULL);
    if (r != HST_SUCCESS) { hst_image_destroy(img); return r; }
    *out = img;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_image_create(hst_backend *be, const hst_image_desc *d, hst_image **out) {
    static const char *F = "hst_image_create";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (out) *out = NULL;
    if (!out || !d) return hst__null_arg(be, F, "%s is NULL", out ? "d" : "out");
    return hst__image_make(be, F, d, out);
}

#ifndef HST_NO_OPENCL
/* An adopted image's dtype, channels and normalization: the first of the formats
   hst_image_from_array makes that equals its format. */
static hst_result hst__image_adopted_format(hst_image *img, const char *F) {
    hst_dtype dt;
    unsigned ch;
    int norm;
    size_t i;
    for (i = 0; hst__image_vocab(i, &dt, &ch, &norm); i++) {
        hst_image_format f = hst__image_format(dt, ch, norm);
        if (f.channel_order == img->format.channel_order && f.channel_type == img->format.channel_type) {
            img->dtype = dt;
            img->channels = ch;
            img->normalized = norm;
            img->pixel_bytes = hst_dtype_size(dt) * ch;
            return HST_SUCCESS;
        }
    }
    hst__log(img->be, HST_LOG_ERROR, HST_LOGITEM_DTYPE, "%s: mem's format (order 0x%x, type 0x%x) is none that "
             "hst_image_from_array makes (R, RG or RGBA of u8, i8, i16, plain or normalized, i32 or f32)", F,
             (unsigned)img->format.channel_order, (unsigned)img->format.channel_type);
    return HST_ERROR_DTYPE;
}

HST__BDEF hst_result hst_image_from_cl(hst_backend *be, cl_mem mem, hst_image **out) {
    static const char *F = "hst_image_from_cl";
    hst_image_desc d;
    hst_image *img;
    hst_result r;
    size_t bytes = 0;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (out) *out = NULL;
    if (!out || !mem) return hst__null_arg(be, F, "%s is NULL", out ? "mem" : "out");
    if ((r = be->ops->callable(be, F)) != HST_SUCCESS) return r;
    if (!(img = (hst_image *)hst__calloc(be, sizeof *img))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    img->be = be;
    memset(&d, 0, sizeof d);
    if ((r = be->ops->image_adopt(img, (void *)mem, &d)) == HST_SUCCESS &&
        (r = hst__image_extent(be, F, &d, img->extent)) == HST_SUCCESS &&
        (r = hst__image_adopted_format(img, F)) == HST_SUCCESS) {
        img->type = d.type;
        img->mem_flags = d.mem_flags;
        img->ndim = hst__image_ndim(d.type);
        if (!hst__image_bytes(img, &bytes)) r = hst__overflow(be, F, "the extent * pixel bytes");
        else if ((r = hst__reserve(be, F, bytes)) == HST_SUCCESS) img->reserved = bytes;
    }
    if (r != HST_SUCCESS) { hst_image_destroy(img); return r; }
    *out = img;
    return HST_SUCCESS;
}
#endif

HST__BDEF hst_result hst_image_from_array(hst_backend *be, hst_dtype dtype, unsigned channels,
                                        int normalized, unsigned ndim, const size_t *shape,
                                        const void *host, hst_image **out) {
    static const char *F = "hst_image_from_array";
    hst_image_desc d;
    unsigned i;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (ndim != 2 && ndim != 3) return hst__range_arg(be, F, "ndim %u is not 2 or 3", ndim);
    if (!shape) return hst__null_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++)
        if (!shape[i]) return hst__zero_arg(be, F, "shape[%u] is 0", i);
    memset(&d, 0, sizeof d);
    d.type = ndim;                             /* HST_IMAGE_2D, _3D */
    d.dtype = dtype; d.channels = channels; d.normalized = normalized;
    d.width = shape[ndim - 1];                 /* C order: the last axis is x */
    d.height = shape[ndim - 2];
    d.depth = ndim == 3 ? shape[0] : 0;
    d.host = host;
    return hst__image_make(be, F, &d, out);
}

HST__BDEF hst_result hst_image_get_info(const hst_image *img, hst_image_info *out) {
    if (!img || !out)
        return hst__null_arg(img ? img->be : NULL, "hst_image_get_info", "%s is NULL", img ? "out" : "img");
    memset(out, 0, sizeof *out);
    out->type = img->type;
    out->ndim = img->ndim;
    out->width = img->extent[0];
    out->height = img->ndim >= 2 ? img->extent[1] : 1;
    out->depth = img->type == HST_IMAGE_3D ? img->extent[2] : 1;
    out->array_size = hst__image_layers(img);
    out->mem_flags = img->mem_flags;
    out->format = img->format;
    out->dtype = img->dtype; out->channels = img->channels; out->normalized = img->normalized;
    out->pixel_bytes = img->pixel_bytes;
    return img->be->ops->image_pitches(img, &out->row_pitch, &out->slice_pitch);
}

HST__BDEF hst_result hst_supported_image_formats(hst_backend *be, unsigned mem_flags, unsigned image_type,
                                               hst_image_format *formats, size_t max, size_t *count) {
    static const char *F = "hst_supported_image_formats";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!count || (max && !formats)) return hst__null_arg(be, F, "%s is NULL", !count ? "count" : "formats");
    *count = 0;
    if (mem_flags > HST_MEM_WRITE_ONLY || mem_flags == (HST_MEM_READ_ONLY | HST_MEM_WRITE_ONLY))
        return hst__range_arg(be, F, "mem_flags 0x%x is not HST_MEM_READ_WRITE, _READ_ONLY or _WRITE_ONLY", mem_flags);
    if (image_type < HST_IMAGE_1D || image_type > HST_IMAGE_1D_BUFFER)
        return hst__range_arg(be, F, "image_type %u is not an HST_IMAGE_*", image_type);
    if (!be->info.images) {
        hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: %s has no image support", F, be->info.name);
        return HST_ERROR_UNSUPPORTED;
    }
    return be->ops->image_formats(be, mem_flags, image_type, formats, max, count);
}

HST__BDEF void hst_image_destroy(hst_image *img) {
    if (!img) return;
    img->be->ops->image_free(img);
    hst__unreserve(img->be, img->reserved);
    hst__free(img->be, img);
}

HST__BDEF size_t hst_image_pixel_bytes(const hst_image *img) { return img ? img->pixel_bytes : 0; }

/* The pixel box [origin, origin+region) lies inside the image. */
static hst_result hst__image_box(const hst_queue *q, const char *func, const hst_image *img,
                                 const size_t *origin, const size_t *region) {
    int i;
    if (!img) return hst__null_arg(q->be, func, "image is NULL");
    if (img->be != q->be) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOGITEM_SHAPE_MISMATCH, "%s: the image belongs to another backend", func);
        return HST_ERROR_SHAPE;
    }
    if (!origin || !region) return hst__null_arg(q->be, func, "%s is NULL", origin ? "region" : "origin");
    for (i = 0; i < 3; i++)
        if (region[i] == 0 || origin[i] >= img->extent[i] || region[i] > img->extent[i] - origin[i])
            return hst__range_arg(q->be, func, "the box [%zu, +%zu) leaves the image's %zu pixels "
                                "along axis %d", origin[i], region[i], img->extent[i], i);
    return HST_SUCCESS;
}

static hst_result hst__image_rw(hst_queue *q, const char *func, int write, hst_image *img,
                                const size_t *origin, const size_t *region, void *host,
                                size_t row_pitch, size_t slice_pitch, int blocking,
                                size_t num_wait, const hst_event *wait, hst_event *out) {
    hst_result r;
    if ((r = hst__check_enqueue(q, func, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, func, img, origin, region)) != HST_SUCCESS) return r;
    if (!host) return hst__null_arg(q->be, func, "the host pointer is NULL");
    /* A 1-D array's layers lie slice_pitch apart (OpenCL 1.2, clEnqueueReadImage); each is one
       row, so the layer step is passed as both pitches: the same layout, and PoCL (3.1), which
       steps layers by row_pitch, reads it right too. */
    if (img->type == HST_IMAGE_1D_ARRAY && slice_pitch) row_pitch = slice_pitch;
    return q->be->ops->image_rw(q, func, write, img, origin, region, host, row_pitch, slice_pitch, blocking,
                                num_wait, wait, out);
}

HST__BDEF hst_result hst_image_write(hst_queue *q, hst_image *img, const size_t origin[3],
                                   const size_t region[3], const void *src, size_t row_pitch,
                                   size_t slice_pitch, int blocking,
                                   size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__image_rw(q, "hst_image_write", 1, img, origin, region, (void *)src, row_pitch,
                         slice_pitch, blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_image_read(hst_queue *q, const hst_image *img, const size_t origin[3],
                                  const size_t region[3], void *dst, size_t row_pitch,
                                  size_t slice_pitch, int blocking,
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__image_rw(q, "hst_image_read", 0, (hst_image *)img, origin, region, dst, row_pitch,
                         slice_pitch, blocking, num_wait, wait, out);
}

HST__BDEF hst_result hst_image_copy(hst_queue *q, hst_image *dst, const size_t dst_origin[3],
                                  const hst_image *src, const size_t src_origin[3],
                                  const size_t region[3],
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_image_copy";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, dst, dst_origin, region)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, src, src_origin, region)) != HST_SUCCESS) return r;
    if (dst->pixel_bytes != src->pixel_bytes || dst->dtype != src->dtype) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOGITEM_SHAPE_MISMATCH, "%s: the images' formats differ", F);
        return HST_ERROR_SHAPE;
    }
    return q->be->ops->image_copy(q, dst, dst_origin, src, src_origin, region, num_wait, wait, out);
}

/* The buffer side of an image <-> buffer copy: the box's pixels, tight, at `offset`, inside
   the buffer; *bytes receives their size. */
static hst_result hst__box_in_buffer(const hst_queue *q, const char *func, const hst_image *img,
                                     const size_t *region, const hst_buffer *buf, const char *name,
                                     size_t offset, size_t *bytes) {
    hst_result r;
    if ((r = hst__check_buffer(q, func, name, buf)) != HST_SUCCESS) return r;
    if (!hst_size_mul(region[0], region[1], bytes) || !hst_size_mul(*bytes, region[2], bytes) ||
        !hst_size_mul(*bytes, img->pixel_bytes, bytes))
        return hst__overflow(q->be, func, "the box's bytes");
    return hst__check_range(q->be, func, name, offset, *bytes, buf->bytes);
}

/* to_buffer 1: image -> buffer (clEnqueueCopyImageToBuffer), 0: buffer -> image. */
static hst_result hst__image_buffer(hst_queue *q, const char *func, int to_buffer, hst_image *img,
                                    const size_t *origin, const size_t *region, hst_buffer *buf,
                                    size_t offset, size_t num_wait, const hst_event *wait, hst_event *out) {
    size_t bytes;
    hst_result r;
    if ((r = hst__check_enqueue(q, func, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, func, img, origin, region)) != HST_SUCCESS) return r;
    if ((r = hst__box_in_buffer(q, func, img, region, buf, to_buffer ? "dst" : "src", offset, &bytes)) != HST_SUCCESS)
        return r;
    return q->be->ops->image_buffer(q, func, to_buffer, img, origin, region, buf, offset, num_wait, wait, out);
}

HST__BDEF hst_result hst_image_to_buffer(hst_queue *q, hst_buffer *dst, size_t dst_offset,
                                       const hst_image *src, const size_t origin[3],
                                       const size_t region[3],
                                       size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__image_buffer(q, "hst_image_to_buffer", 1, (hst_image *)src, origin, region, dst,
                             dst_offset, num_wait, wait, out);
}

HST__BDEF hst_result hst_buffer_to_image(hst_queue *q, hst_image *dst, const size_t origin[3],
                                       const size_t region[3], const hst_buffer *src,
                                       size_t src_offset,
                                       size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__image_buffer(q, "hst_buffer_to_image", 0, dst, origin, region, (hst_buffer *)src,
                             src_offset, num_wait, wait, out);
}

/* One pixel of img from a fill colour (hst_image_fill's), converted as OpenCL's write_image*
   does (1.2, 8.3): normalized floats scaled and rounded to nearest even, integers saturated. */
static void hst__pixel_from_color(const hst_image *img, const void *color, unsigned char *px) {
    unsigned c, n = img->dtype == HST_C64 ? img->channels * 2 : img->channels;
    size_t es = img->dtype == HST_C64 ? 4 : hst_dtype_size(img->dtype);
    int64_t lo = img->dtype == HST_U8 ? 0 : img->dtype == HST_I8 ? -128 : -32768;
    int64_t hi = img->dtype == HST_U8 ? 255 : img->dtype == HST_I8 ? 127 : 32767;
    for (c = 0; c < n; c++) {
        int64_t v;
        if (img->dtype == HST_I32 || img->dtype == HST_F32 || img->dtype == HST_C64) {
            memcpy(px + 4 * c, (const char *)color + 4 * c, 4);   /* int32 or float: as given */
            continue;
        }
        if (img->normalized) {   /* convert_<type>_sat_rte(f * 255.0f / 127.0f / 32767.0f) */
            float p = ((const float *)color)[c] * (float)hi;
            p = p > (float)hi ? (float)hi : p < (float)lo ? (float)lo : p;   /* NaN stays NaN */
            v = p == p ? (int64_t)nearbyintf(p) : 0;
        } else if (img->dtype == HST_U8) {
            uint32_t u = ((const uint32_t *)color)[c];
            v = u > 255 ? 255 : (int64_t)u;
        } else {
            v = ((const int32_t *)color)[c];
        }
        v = v < lo ? lo : v > hi ? hi : v;
        if (es == 1) px[c] = (unsigned char)(v & 0xff);   /* two's complement bytes */
        else { uint16_t h = (uint16_t)(v & 0xffff); memcpy(px + 2 * c, &h, 2); }
    }
}

HST__BDEF hst_result hst_image_fill(hst_queue *q, hst_image *img, const void *color,
                                  const size_t origin[3], const size_t region[3],
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_image_fill";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, img, origin, region)) != HST_SUCCESS) return r;
    if (!color) return hst__null_arg(q->be, F, "color is NULL");
    if (img->type == HST_IMAGE_1D_BUFFER) {   /* the buffer's bytes: PoCL 3.1's clEnqueueFillImage crashes here */
        unsigned char px[16];                 /* a pixel: 1 .. 16 bytes, a power of two */
        hst__pixel_from_color(img, color, px);
        return hst_fill(q, img->buffer, px, img->pixel_bytes, origin[0] * img->pixel_bytes,
                        region[0] * img->pixel_bytes, num_wait, wait, out);
    }
    return q->be->ops->image_fill(q, img, color, origin, region, num_wait, wait, out);
}

/* hst_image_map and _map_enqueue: the checks, then the device's map. */
static hst_result hst__image_map(hst_queue *q, const char *F, hst_image *img, unsigned map_flags,
                                 const size_t *origin, const size_t *region, int blocking, size_t *row_pitch,
                                 size_t *slice_pitch, void **ptr, size_t num_wait, const hst_event *wait,
                                 hst_event *out) {
    hst_result r;
    if (out) *out = NULL;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, img, origin, region)) != HST_SUCCESS) return r;
    if (!row_pitch || !slice_pitch || !ptr)
        return hst__null_arg(q->be, F, "%s is NULL", !row_pitch ? "row_pitch" : !slice_pitch ? "slice_pitch" : "ptr");
    if (!map_flags || (map_flags & ~7u)) return hst__range_arg(q->be, F, "map_flags 0x%x", map_flags);
    return q->be->ops->image_map(q, img, map_flags, origin, region, blocking, row_pitch, slice_pitch, ptr,
                                 num_wait, wait, out);
}

HST__BDEF hst_result hst_image_map(hst_queue *q, hst_image *img, unsigned map_flags,
                                 const size_t origin[3], const size_t region[3],
                                 size_t *row_pitch, size_t *slice_pitch, void **ptr) {
    return hst__image_map(q, "hst_image_map", img, map_flags, origin, region, 1, row_pitch, slice_pitch, ptr,
                          0, NULL, NULL);
}

HST__BDEF hst_result hst_image_map_enqueue(hst_queue *q, hst_image *img, unsigned map_flags,
                                         const size_t origin[3], const size_t region[3], int blocking,
                                         size_t *row_pitch, size_t *slice_pitch, void **ptr,
                                         size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst__image_map(q, "hst_image_map_enqueue", img, map_flags, origin, region, blocking, row_pitch,
                          slice_pitch, ptr, num_wait, wait, out);
}

HST__BDEF hst_result hst_image_unmap(hst_queue *q, hst_image *img, void *ptr,
                                   size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_image_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!img || !ptr) return hst__null_arg(q->be, F, "%s is NULL", img ? "ptr" : "img");
    return q->be->ops->image_unmap(q, img, ptr, num_wait, wait, out);
}

/* The checks and the making shared by hst_sampler_create and _create_props (func names the
   call; the modes' names are hst_sampler_create's parameters, or the props' keys). */
static hst_result hst__sampler_make(hst_backend *be, const char *func, int normalized, unsigned address,
                                    unsigned filter, hst_sampler **out) {
    hst_sampler *s;
    hst_result r;
    if (address > HST_ADDRESS_MIRRORED_REPEAT) return hst__range_arg(be, func, "address_mode %u", address);
    if (filter > HST_FILTER_LINEAR) return hst__range_arg(be, func, "filter_mode %u", filter);
    if (!normalized && address >= HST_ADDRESS_REPEAT)
        return hst__bad_arg(be, func, "repeat addressing needs normalized coordinates");
    if (!(s = (hst_sampler *)hst__calloc(be, sizeof *s))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    s->be = be; s->normalized = normalized; s->address = address; s->filter = filter;
    if ((r = be->ops->sampler_create(s)) != HST_SUCCESS) { hst__free(be, s); return r; }
    *out = s;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_sampler_create(hst_backend *be, int normalized_coords,
                                      unsigned address_mode, unsigned filter_mode,
                                      hst_sampler **out) {
    static const char *F = "hst_sampler_create";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    return hst__sampler_make(be, F, normalized_coords != 0, address_mode, filter_mode, out);
}

#ifndef HST_NO_OPENCL
HST__BDEF hst_result hst_sampler_from_cl(hst_backend *be, cl_sampler smp, hst_sampler **out) {
    static const char *F = "hst_sampler_from_cl";
    hst_sampler *s;
    hst_result r;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (out) *out = NULL;
    if (!out || !smp) return hst__null_arg(be, F, "%s is NULL", out ? "smp" : "out");
    if ((r = be->ops->callable(be, F)) != HST_SUCCESS) return r;
    if (!(s = (hst_sampler *)hst__calloc(be, sizeof *s))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    s->be = be;
    if ((r = be->ops->sampler_adopt(s, (void *)smp)) != HST_SUCCESS) { hst__free(be, s); return r; }
    *out = s;
    return HST_SUCCESS;
}
#endif

HST__BDEF hst_result hst_sampler_create_props(hst_backend *be, const uint64_t *props, hst_sampler **out) {
    static const char *F = "hst_sampler_create_props";
    /* OpenCL's defaults: normalized, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST */
    uint64_t value[3] = {1, HST_CL_ADDRESS_BASE + HST_ADDRESS_CLAMP, HST_CL_FILTER_BASE + HST_FILTER_NEAREST};
    unsigned seen = 0, i;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (out) *out = NULL;
    if (!out || !props) return hst__null_arg(be, F, "%s is NULL", out ? "props" : "out");
    for (i = 0; props[i]; i += 2) {
        unsigned k = (unsigned)(props[i] - HST_SAMPLER_NORMALIZED_COORDS);
        if (props[i] < HST_SAMPLER_NORMALIZED_COORDS || k > 2)
            return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F, "props[%u]: key 0x%llx "
                                    "is not NORMALIZED_COORDS, ADDRESSING_MODE or FILTER_MODE", i,
                                    (unsigned long long)props[i]);
        if (seen & (1u << k)) return hst__bad_arg(be, F, "props[%u]: key 0x%llx given twice", i,
                                                  (unsigned long long)props[i]);
        seen |= 1u << k;
        value[k] = props[i + 1];
    }
    if (value[0] > 1) return hst__range_arg(be, F, "NORMALIZED_COORDS %llu is not 0 or 1", (unsigned long long)value[0]);
    if (value[1] < HST_CL_ADDRESS_BASE || value[1] > HST_CL_ADDRESS_BASE + HST_ADDRESS_MIRRORED_REPEAT)
        return hst__range_arg(be, F, "ADDRESSING_MODE 0x%llx is not a CL_ADDRESS_*", (unsigned long long)value[1]);
    if (value[2] < HST_CL_FILTER_BASE || value[2] > HST_CL_FILTER_BASE + HST_FILTER_LINEAR)
        return hst__range_arg(be, F, "FILTER_MODE 0x%llx is not a CL_FILTER_*", (unsigned long long)value[2]);
    return hst__sampler_make(be, F, (int)value[0], (unsigned)(value[1] - HST_CL_ADDRESS_BASE),
                             (unsigned)(value[2] - HST_CL_FILTER_BASE), out);
}

HST__BDEF hst_result hst_sampler_get_info(const hst_sampler *s, hst_sampler_info *out) {
    if (!s || !out) return hst__null_arg(s ? s->be : NULL, "hst_sampler_get_info", "%s is NULL", s ? "out" : "s");
    out->normalized_coords = s->normalized;
    out->address_mode = s->address;
    out->filter_mode = s->filter;
    return HST_SUCCESS;
}

/* The raw info calls: the param's size first, then (value given and bytes enough) its value,
   so that a short value is the same refusal on every device. */
static hst_result hst__info_raw(const hst_backend *be, hst__info_query iq) {
    size_t need = 0, bytes = iq.bytes, *want = iq.size_ret;
    void *value = iq.value;
    hst_result r;
    iq.value = NULL; iq.bytes = 0; iq.size_ret = &need;
    if ((r = be->ops->object_info(&iq)) != HST_SUCCESS) return r;
    if (want) *want = need;
    if (!value) return HST_SUCCESS;
    if (bytes < need) return hst__range_arg(be, iq.func, "bytes %zu: param 0x%x's value takes %zu", bytes,
                                            (unsigned)iq.param, need);
    iq.value = value; iq.bytes = bytes; iq.size_ret = NULL;
    return be->ops->object_info(&iq);
}

/* A param's range for an object: [lo, lo + 16). */
static hst_result hst__info_param(const hst_backend *be, const char *func, uint32_t param, uint32_t lo,
                                  const char *what) {
    return param >= lo && param < lo + 16 ? HST_SUCCESS
         : hst__range_arg(be, func, "param 0x%x is not a %s (0x%x .. 0x%x)", (unsigned)param, what, (unsigned)lo,
                          (unsigned)lo + 15);
}

HST__BDEF hst_result hst_buffer_get_info_raw(const hst_buffer *buf, uint32_t param, size_t bytes, void *value,
                                           size_t *size_ret) {
    static const char *F = "hst_buffer_get_info_raw";
    hst__info_query iq;
    hst_result r;
    if (!buf) return hst__null_arg(NULL, F, "buf is NULL");
    if ((r = hst__info_param(buf->be, F, param, HST__CL_MEM_TYPE, "CL_MEM_* param")) != HST_SUCCESS) return r;
    memset(&iq, 0, sizeof iq);
    iq.func = F; iq.kind = HST__INFO_BUFFER; iq.buf = buf; iq.param = param; iq.bytes = bytes; iq.value = value; iq.size_ret = size_ret;
    return hst__info_raw(buf->be, iq);
}

HST__BDEF hst_result hst_image_get_info_raw(const hst_image *img, uint32_t param, size_t bytes, void *value,
                                          size_t *size_ret) {
    static const char *F = "hst_image_get_info_raw";
    hst__info_query iq;
    if (!img) return hst__null_arg(NULL, F, "img is NULL");
    if (param < HST__CL_MEM_TYPE || param >= HST__CL_IMAGE_FORMAT + 16)
        return hst__range_arg(img->be, F, "param 0x%x is not a CL_MEM_* or CL_IMAGE_* param (0x%x .. 0x%x)",
                              (unsigned)param, HST__CL_MEM_TYPE, HST__CL_IMAGE_FORMAT + 15);
    memset(&iq, 0, sizeof iq);
    iq.func = F; iq.kind = param >= HST__CL_IMAGE_FORMAT ? HST__INFO_IMAGE : HST__INFO_IMAGE_MEM; iq.img = img; iq.param = param;
    iq.bytes = bytes; iq.value = value; iq.size_ret = size_ret;
    return hst__info_raw(img->be, iq);
}

HST__BDEF hst_result hst_sampler_get_info_raw(const hst_sampler *s, uint32_t param, size_t bytes, void *value,
                                            size_t *size_ret) {
    static const char *F = "hst_sampler_get_info_raw";
    hst__info_query iq;
    hst_result r;
    if (!s) return hst__null_arg(NULL, F, "s is NULL");
    if ((r = hst__info_param(s->be, F, param, HST__CL_SAMPLER_REFERENCE_COUNT, "CL_SAMPLER_* param")) != HST_SUCCESS)
        return r;
    memset(&iq, 0, sizeof iq);
    iq.func = F; iq.kind = HST__INFO_SAMPLER; iq.smp = s; iq.param = param; iq.bytes = bytes; iq.value = value; iq.size_ret = size_ret;
    return hst__info_raw(s->be, iq);
}

HST__BDEF void hst_sampler_destroy(hst_sampler *s) {
    if (!s) return;
    s->be->ops->sampler_free(s);
    hst__free(s->be, s);
}

/* >>pool ------------------------------------------------------------------------------------- */
HST__BDEF size_t hst_pool_bin_bytes(size_t bytes) {
    size_t top = 0, shift, unit, bin;
    if (bytes < ((size_t)2 << HST_POOL_MANTISSA_BITS)) return bytes;   /* small: exact */
    while ((bytes >> top) > 1) top++;                 /* floor(log2(bytes)) */
    shift = top - HST_POOL_MANTISSA_BITS;             /* keep the top bit and 4 more */
    unit = (size_t)1 << shift;
    if (!hst_size_add(bytes, unit - 1, &bin)) return 0;
    return bin & ~(unit - 1);
}

HST__BDEF hst_result hst_pool_create(hst_backend *be, hst_pool **out) {
    hst_pool *p;
    if (!be) return hst__null_arg(NULL, "hst_pool_create", "be is NULL");
    if (!out) return hst__null_arg(be, "hst_pool_create", "out is NULL");
    if (!(p = (hst_pool *)hst__calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->be = be;
    *out = p;
    return HST_SUCCESS;
}

/* Inserts a block into the held list, kept sorted largest first. */
static void hst__pool_hold(hst_pool *pool, hst_buffer *b) {
    hst_buffer **at = &pool->held;
    while (*at && (*at)->capacity > b->capacity) at = &(*at)->next_held;
    b->next_held = *at;
    *at = b;
    pool->stats.held_blocks++;
    pool->stats.held_bytes += b->capacity;
}

static hst_buffer *hst__pool_take(hst_pool *pool, size_t capacity) {
    hst_buffer **at = &pool->held, *b;
    while (*at && (*at)->capacity != capacity) at = &(*at)->next_held;
    if (!(b = *at)) return NULL;
    *at = b->next_held;
    b->next_held = NULL;
    pool->stats.held_blocks--;
    pool->stats.held_bytes -= b->capacity;
    return b;
}

static void hst__pool_unlink_active(hst_pool *pool, hst_buffer *b) {
    if (b->prev_active) b->prev_active->next_active = b->next_active;
    else pool->active = b->next_active;
    if (b->next_active) b->next_active->prev_active = b->prev_active;
    b->prev_active = b->next_active = NULL;
}

static void hst__pool_return(hst_pool *pool, hst_buffer *b) {
    hst__pool_unlink_active(pool, b);
    pool->stats.active_blocks--;
    pool->stats.active_bytes -= b->capacity;
    hst__pool_hold(pool, b);
}

/* Frees the largest held block; 0 when none is held. */
static int hst__pool_release_largest(hst_pool *pool) {
    hst_buffer *b = pool->held;
    if (!b) return 0;
    pool->held = b->next_held;
    pool->stats.held_blocks--;
    pool->stats.held_bytes -= b->capacity;
    b->pool = NULL;
    hst__buffer_release(b);
    return 1;
}

HST__BDEF void hst_pool_free_held(hst_pool *pool) {
    if (pool) while (hst__pool_release_largest(pool)) {}
}

HST__BDEF void hst_pool_destroy(hst_pool *pool) {
    if (!pool) return;
    hst_pool_free_held(pool);
    if (pool->stats.active_blocks)
        hst__log(pool->be, HST_LOG_WARN, HST_LOGITEM_BAD_STATE,
                 "hst_pool_destroy: %zu blocks (%zu bytes) are still in use; they are detached "
                 "and freed by hst_buffer_destroy", pool->stats.active_blocks,
                 pool->stats.active_bytes);
    while (pool->active) {          /* detached blocks become plain buffers */
        hst_buffer *b = pool->active;
        hst__pool_unlink_active(pool, b);
        b->pool = NULL;
    }
    hst__free(pool->be, pool);
}

/* A new block of `bin` bytes; on out-of-memory, frees held blocks largest first and retries. */
static hst_result hst__pool_grow(hst_pool *pool, size_t bin, hst_buffer **out) {
    for (;;) {
        hst_result r = hst__buffer_new(pool->be, "hst_pool_alloc", bin, HST_MEM_RESIDENT, 0,
                                       NULL, out);
        if (r == HST_SUCCESS || !hst_result_is_out_of_memory(r)) return r;
        if (!pool->held) return r;
        hst__log(pool->be, HST_LOG_WARN, HST_LOGITEM_POOL_RELEASED_HELD,
                 "hst_pool_alloc: out of memory for %zu bytes; freeing a held block of %zu "
                 "bytes and retrying", bin, pool->held->capacity);
        hst__pool_release_largest(pool);
    }
}

HST__BDEF hst_result hst_pool_alloc(hst_pool *pool, size_t bytes, hst_buffer **out) {
    size_t bin;
    hst_buffer *b;
    hst_result r;
    if (!pool) return hst__null_arg(NULL, "hst_pool_alloc", "pool is NULL");
    if (!out) return hst__null_arg(pool->be, "hst_pool_alloc", "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__zero_arg(pool->be, "hst_pool_alloc", "bytes is 0");
    if ((bin = hst_pool_bin_bytes(bytes)) == 0) return hst__overflow(pool->be, "hst_pool_alloc", "the bin size");
    if ((uint64_t)bytes > pool->be->info.max_alloc_bytes)   /* freeing held blocks cannot help */
        return hst__reserve(pool->be, "hst_pool_alloc", bytes);
    if ((uint64_t)bin > pool->be->info.max_alloc_bytes) bin = bytes;   /* legal, unrounded */
    if (!(b = hst__pool_take(pool, bin))) {
        if ((r = hst__pool_grow(pool, bin, &b)) != HST_SUCCESS) return r;
        b->pool = pool;
    }
    b->bytes = bytes;
    b->next_active = pool->active;
    if (pool->active) pool->active->prev_active = b;
    pool->active = b;
    pool->stats.active_blocks++;
    pool->stats.active_bytes += b->capacity;
    *out = b;
    return HST_SUCCESS;
}

HST__BDEF hst_pool_stats hst_pool_get_stats(const hst_pool *pool) {
    hst_pool_stats zero;
    memset(&zero, 0, sizeof zero);
    return pool ? pool->stats : zero;
}

/* >>programs --------------------------------------------------------------------------------- */
/* Two independently seeded hashes of everything that makes a binary valid: 128 bits, so a
   collision between two different programs is not a practical concern. */
static void hst__program_key(const hst_backend *be, size_t count, const char *const *src,
                             const char *options, uint64_t key[2]) {
    static const uint64_t seeds[2] = {HST_HASH_SEED, 0x84222325cbf29ce4ULL};
    const char *parts[6];
    size_t i, k, len;
    parts[0] = HST_VERSION_STRING; parts[1] = be->info.platform_name; parts[2] = be->info.name;
    parts[3] = be->info.version; parts[4] = be->info.driver_version; parts[5] = options;
    for (k = 0; k < 2; k++) {
        uint64_t h = seeds[k];
        for (i = 0; i < 6; i++) {
            len = strlen(parts[i]);
            h = hst_hash_bytes(h, &len, sizeof len);      /* length-prefixed: no ambiguity */
            h = hst_hash_bytes(h, parts[i], len);
        }
        for (i = 0; i < count; i++) {
            len = strlen(src[i]);
            h = hst_hash_bytes(h, &len, sizeof len);
            h = hst_hash_bytes(h, src[i], len);
        }
        key[k] = hst_hash_final(h);
    }
}

/* A temporary file name beside path, unique per process and thread without a shared counter
   (threads would race on one): the caller's stack address tells threads apart, and a thread
   renames each temporary file before it makes the next. */
HST__BDEF void hst_temp_name(char *buf, size_t cap, const char *path, const void *stack) {
    /* the address in full (unsigned long is 32 bits on 64-bit Windows) */
    snprintf(buf, cap, "%s.%ld.%llx.tmp", path, hst_process_id(),
             (unsigned long long)(uintptr_t)stack);
}

static hst_program *hst__program_find(hst_backend *be, const uint64_t key[2]) {
    hst_program *p;
    for (p = be->programs; p; p = p->next)
        if (p->key[0] == key[0] && p->key[1] == key[1]) return p;
    return NULL;
}

static hst_result hst__unsupported_on_host(const hst_backend *be, const char *func) {
    hst__log(be, HST_LOG_ERROR, HST_LOGITEM_UNSUPPORTED, "%s: the host device runs the C twins of "
             "kernels, not OpenCL programs; select an OpenCL device", func);
    return HST_ERROR_UNSUPPORTED;
}

HST__BDEF hst_result hst_program_build(hst_backend *be, size_t count, const char *const *sources,
                                     const char *options, hst_program **out) {
    static const char *F = "hst_program_build";
    uint64_t key[2];
    hst_program *p;
    hst_result r;
    size_t i;
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (!out) return hst__null_arg(be, F, "out is NULL");
    *out = NULL;
    if (!count) return hst__zero_arg(be, F, "count is 0");
    if (!sources) return hst__null_arg(be, F, "sources is NULL");
    for (i = 0; i < count; i++)
        if (!sources[i]) return hst__null_arg(be, F, "sources[%zu] is NULL", i);
    if (!be->ops->programs) return hst__unsupported_on_host(be, F);
    if ((r = be->ops->callable(be, F)) != HST_SUCCESS) return r;
    if (!options) options = "";
    hst__program_key(be, count, sources, options, key);
    if ((p = hst__program_find(be, key)) != NULL) { p->refs++; *out = p; return HST_SUCCESS; }
    if (!(p = (hst_program *)hst__calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->be = be; p->key[0] = key[0]; p->key[1] = key[1]; p->refs = 1;
    if ((r = be->ops->program_compile(p, count, sources, options)) != HST_SUCCESS) { hst__free(be, p); return r; }
    p->next = be->programs;
    be->programs = p;
    *out = p;
    return HST_SUCCESS;
}

HST__BDEF void hst_program_release(hst_program *prog) {
    if (prog && prog->refs) prog->refs--;
}

HST__BDEF hst_result hst_kernel_create(hst_program *prog, const char *name, hst_kernel **out) {
    static const char *F = "hst_kernel_create";
    hst_kernel *k;
    hst_result r;
    if (!prog) return hst__null_arg(NULL, F, "prog is NULL");
    if (!name || !out) return hst__null_arg(prog->be, F, "%s is NULL", name ? "out" : "name");
    *out = NULL;
    if ((r = prog->be->ops->callable(prog->be, F)) != HST_SUCCESS) return r;
    if (!(k = (hst_kernel *)hst__calloc(prog->be, sizeof *k))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    k->prog = prog;
    if ((r = prog->be->ops->kernel_create(k, name)) != HST_SUCCESS) { hst__free(prog->be, k); return r; }
    *out = k;
    return HST_SUCCESS;
}

HST__BDEF void hst_kernel_destroy(hst_kernel *k) {
    if (!k) return;
    k->prog->be->ops->kernel_free(k);
    hst__free(k->prog->be, k);
}

HST__BDEF hst_result hst_kernel_set_arg(hst_kernel *k, unsigned index, size_t bytes,
                                      const void *value) {
    hst_karg a = hst_karg_value(bytes, value);   /* value NULL: local memory */
    if (!k) return hst__null_arg(NULL, "hst_kernel_set_arg", "k is NULL");
    return k->prog->be->ops->kernel_set_arg(k, index, &a);
}

HST__BDEF hst_result hst_kernel_set_buffer(hst_kernel *k, unsigned index, const hst_buffer *buf) {
    hst_karg a = hst_karg_buffer(buf);
    if (!k || !buf) return hst__null_arg(k ? k->prog->be : NULL, "hst_kernel_set_buffer", "%s is NULL", k ? "buf" : "k");
    return k->prog->be->ops->kernel_set_arg(k, index, &a);
}

HST__BDEF hst_result hst_kernel_set_image(hst_kernel *k, unsigned index, const hst_image *img) {
    hst_karg a = hst_karg_image(img);
    if (!k || !img) return hst__null_arg(k ? k->prog->be : NULL, "hst_kernel_set_image", "%s is NULL", k ? "img" : "k");
    return k->prog->be->ops->kernel_set_arg(k, index, &a);
}

HST__BDEF hst_result hst_kernel_set_sampler(hst_kernel *k, unsigned index, const hst_sampler *s) {
    hst_karg a = hst_karg_sampler(s);
    if (!k || !s) return hst__null_arg(k ? k->prog->be : NULL, "hst_kernel_set_sampler", "%s is NULL", k ? "s" : "k");
    return k->prog->be->ops->kernel_set_arg(k, index, &a);
}

HST__BDEF hst_result hst_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr) {
    if (!k || !ptr) return hst__null_arg(k ? k->prog->be : NULL, "hst_kernel_set_svm", "%s is NULL", k ? "ptr" : "k");
    return k->prog->be->ops->kernel_set_svm(k, index, ptr);
}

/* >>launch ----------------------------------------------------------------------------------- */

HST__BDEF hst_result hst_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *global,
                              const size_t *local,
                              size_t num_wait, const hst_event *wait, hst_event *out) {
    return hst_launch_offset(q, k, dims, NULL, global, local, num_wait, wait, out);
}

HST__BDEF hst_result hst_launch_offset(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *offset,
                                     const size_t *global, const size_t *local,
                                     size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_launch";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!k) return hst__null_arg(q->be, F, "k is NULL");
    if (dims < 1 || dims > 3) return hst__range_arg(q->be, F, "dims %u is not 1, 2 or 3", dims);
    if (!global) return hst__null_arg(q->be, F, "global is NULL");
    return q->be->ops->launch(q, k, dims, offset, global, local, num_wait, wait, out);
}

HST__BDEF hst_result hst_kernel_work_group_info(const hst_kernel *k, hst_kernel_wg_info *out) {
    static const char *F = "hst_kernel_work_group_info";
    if (!k || !out) return hst__null_arg(k ? k->prog->be : NULL, F, "%s is NULL", k ? "out" : "k");
    memset(out, 0, sizeof *out);
    return k->prog->be->ops->kernel_wg_info(k, out);
}

/* >>declared kernels ------------------------------------------------------------------------- */
#define HST__KARG_WORD(name, word) word,
static const char *const hst__karg_words[HST_KARG_KIND_END] = {"", HST_KARG_KIND_LIST(HST__KARG_WORD)};
#undef HST__KARG_WORD

/* A family's program on one backend with one options string, and its kernels as made. */
struct hst__family_prog {
    hst__family_prog *next;
    const hst_kernel_family *family;
    char *options;               /* a copy ("" for none) */
    hst_program *prog;
    hst_kernel **kernels;        /* family->num_kernels, NULL until first use */
};

static hst_karg hst__karg(hst_karg_kind kind, size_t bytes) {
    hst_karg a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.bytes = bytes;
    return a;
}

HST__BDEF hst_karg hst_karg_buffer(const hst_buffer *buf) { hst_karg a = hst__karg(HST_KARG_GLOBAL, sizeof buf); a.v.buffer = buf; return a; }
HST__BDEF hst_karg hst_karg_local(size_t bytes) { return hst__karg(HST_KARG_LOCAL, bytes); }
HST__BDEF hst_karg hst_karg_int(int32_t x) { hst_karg a = hst__karg(HST_KARG_INT, sizeof x); a.v.i32 = x; return a; }
HST__BDEF hst_karg hst_karg_uint(uint32_t x) { hst_karg a = hst__karg(HST_KARG_UINT, sizeof x); a.v.u32 = x; return a; }
HST__BDEF hst_karg hst_karg_long(int64_t x) { hst_karg a = hst__karg(HST_KARG_LONG, sizeof x); a.v.i64 = x; return a; }
HST__BDEF hst_karg hst_karg_ulong(uint64_t x) { hst_karg a = hst__karg(HST_KARG_ULONG, sizeof x); a.v.u64 = x; return a; }
HST__BDEF hst_karg hst_karg_float(float x) { hst_karg a = hst__karg(HST_KARG_FLOAT, sizeof x); a.v.f32 = x; return a; }
HST__BDEF hst_karg hst_karg_double(double x) { hst_karg a = hst__karg(HST_KARG_DOUBLE, sizeof x); a.v.f64 = x; return a; }
HST__BDEF hst_karg hst_karg_value(size_t bytes, const void *value) { hst_karg a = hst__karg(HST_KARG_VALUE, bytes); a.v.value = value; return a; }
HST__BDEF hst_karg hst_karg_image(const hst_image *img) { hst_karg a = hst__karg(HST_KARG_IMAGE, sizeof img); a.v.image = img; return a; }
HST__BDEF hst_karg hst_karg_sampler(const hst_sampler *s) { hst_karg a = hst__karg(HST_KARG_SAMPLER, sizeof s); a.v.sampler = s; return a; }

HST__BDEF void *hst_karg_ptr(const hst_karg *a) {
    if (!a) return NULL;
    if (a->kind == HST_KARG_LOCAL) return (void *)a->v.value;   /* a twin's scratch (hst__launch_twin) */
    return a->kind == HST_KARG_GLOBAL && a->v.buffer ? hst_buffer_host_ptr(a->v.buffer) : NULL;
}

HST__BDEF const char *hst_karg_kind_word(hst_karg_kind kind) {
    return (int)kind > 0 && kind < HST_KARG_KIND_END ? hst__karg_words[kind] : "";
}

HST__BDEF int hst_kernel_signature(const hst_kernel_decl *decl, hst_karg_kind *kinds, unsigned max) {
    const char *s = decl ? decl->signature : NULL;
    unsigned n = 0;
    if (!s) return -1;
    for (;;) {
        size_t len;
        int k;
        while (*s == ' ') s++;
        if (!*s) return (int)n;
        len = strcspn(s, " ");
        for (k = 1; k < HST_KARG_KIND_END; k++)
            if (strlen(hst__karg_words[k]) == len && !strncmp(s, hst__karg_words[k], len)) break;
        if (k == HST_KARG_KIND_END || n == max) return -1;
        kinds[n++] = (hst_karg_kind)k;
        s += len;
    }
}

/* Whether an argument carries what its kind needs (a buffer, image, sampler, value bytes). */
static int hst__karg_filled(const hst_karg *a) {
    switch (a->kind) {
    case HST_KARG_GLOBAL: return a->v.buffer != NULL;
    case HST_KARG_IMAGE: return a->v.image != NULL;
    case HST_KARG_SAMPLER: return a->v.sampler != NULL;
    case HST_KARG_VALUE: return a->v.value != NULL && a->bytes > 0;
    case HST_KARG_LOCAL: return a->bytes > 0;
    default: return 1;
    }
}

/* The launch's desc, and every argument against the kernel's declaration. */
static hst_result hst__check_launch(const hst_backend *be, const hst_launch_desc *d) {
    static const char *F = "hst_launch_kernel";
    hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
    const hst_kernel_decl *k;
    const char *fam;
    int n, i;
    if (!d || !d->family || !d->family->kernels)
        return hst__null_arg(be, F, "%s is NULL", !d ? "d" : !d->family ? "d->family" : "d->family->kernels");
    fam = d->family->name ? d->family->name : "?";
    if (d->kernel >= d->family->num_kernels)
        return hst__range_arg(be, F, "d->kernel %u: family %s has %u kernels", d->kernel, fam, d->family->num_kernels);
    k = &d->family->kernels[d->kernel];
    if ((n = hst_kernel_signature(k, kinds, HST_KERNEL_MAX_ARGS)) < 0)
        return hst__bad_arg(be, F, "%s.%s: signature \"%s\" has a word that is not an argument kind, or "
                            "more than %d", fam, k->name, k->signature ? k->signature : "(NULL)", HST_KERNEL_MAX_ARGS);
    if (d->num_args != (size_t)n)
        return hst__bad_arg(be, F, "%s.%s: %zu arguments given, %d declared (\"%s\")", fam, k->name,
                            d->num_args, n, k->signature);
    if (n && !d->args) return hst__null_arg(be, F, "%s.%s: d->args is NULL", fam, k->name);
    for (i = 0; i < n; i++) {
        if (d->args[i].kind != kinds[i])
            return hst__bad_arg(be, F, "%s.%s: argument %d is declared `%s`, given `%s`", fam, k->name, i,
                                hst_karg_kind_word(kinds[i]), hst_karg_kind_word(d->args[i].kind));
        if (!hst__karg_filled(&d->args[i]))
            return hst__null_arg(be, F, "%s.%s: argument %d (`%s`) is NULL or 0 bytes", fam, k->name, i,
                                 hst_karg_kind_word(kinds[i]));
    }
    if (d->range.dims < 1 || d->range.dims > 3)
        return hst__range_arg(be, F, "%s.%s: d->range.dims %u is not 1, 2 or 3", fam, k->name, d->range.dims);
    if (d->queue && d->queue->be != be)
        return hst__bad_arg(be, F, "%s.%s: d->queue belongs to another backend", fam, k->name);
    return HST_SUCCESS;
}

static void hst__release_families(hst_backend *be) {
    while (be->families) {
        hst__family_prog *f = be->families;
        unsigned i;
        be->families = f->next;
        if (f->kernels)
            for (i = 0; i < f->family->num_kernels; i++) hst_kernel_destroy(f->kernels[i]);
        hst_program_release(f->prog);
        hst__free(be, f->kernels);
        hst__free(be, f->options);
        hst__free(be, f);
    }
}

/* The backend's entry for (family, options): found, or built and added. */
static hst_result hst__family_prog_of(hst_backend *be, const hst_kernel_family *fam, const char *options,
                                      hst__family_prog **out) {
    hst__family_prog *f;
    const char *const *src;
    size_t count = 0, len, bytes;
    hst_result r;
    if (!options) options = "";
    for (f = be->families; f; f = f->next)
        if (f->family == fam && !strcmp(f->options, options)) { *out = f; return HST_SUCCESS; }
    if (!fam->source || !(src = fam->source(&count)))
        return hst__null_arg(be, "hst_family_kernel", "family %s has no source", fam->name ? fam->name : "?");
    len = strlen(options) + 1;
    if (!hst_size_mul(fam->num_kernels, sizeof *f->kernels, &bytes))
        return hst__overflow(be, "hst_family_kernel", "the kernel table");
    if (!(f = (hst__family_prog *)hst_backend_calloc(be, sizeof *f))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    f->family = fam;
    f->options = (char *)hst__malloc(be, len);
    f->kernels = (hst_kernel **)hst_backend_calloc(be, bytes);
    if (!f->options || !f->kernels) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    else r = hst_program_build(be, count, src, options, &f->prog);
    if (r != HST_SUCCESS) {
        hst__free(be, f->kernels);
        hst__free(be, f->options);
        hst__free(be, f);
        return r;
    }
    memcpy(f->options, options, len);
    f->next = be->families;
    be->families = f;
    *out = f;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_family_kernel(hst_backend *be, const hst_kernel_family *family,
                                     const char *options, unsigned kernel, hst_kernel **out) {
    static const char *F = "hst_family_kernel";
    hst__family_prog *f = NULL;
    hst_result r;
    if (!be || !family || !family->kernels || !out)
        return hst__null_arg(be, F, "%s is NULL", !be ? "be" : !family ? "family" : !out ? "out" : "family->kernels");
    *out = NULL;
    if (kernel >= family->num_kernels)
        return hst__range_arg(be, F, "kernel %u: family %s has %u kernels", kernel,
                              family->name ? family->name : "?", family->num_kernels);
    if (!be->ops->programs) return hst__unsupported_on_host(be, F);
    if ((r = hst__family_prog_of(be, family, options, &f)) != HST_SUCCESS) return r;
    if (!f->kernels[kernel] &&
        (r = hst_kernel_create(f->prog, family->kernels[kernel].name, &f->kernels[kernel])) != HST_SUCCESS)
        return r;
    *out = f->kernels[kernel];
    return HST_SUCCESS;
}

/* Sets a checked argument list on an OpenCL kernel (a scalar's bytes are its union member's,
   which all start at the union's address). */
static hst_result hst__bind_args(hst_kernel *k, size_t n, const hst_karg *a) {
    hst_result r = HST_SUCCESS;
    unsigned i;
    for (i = 0; i < n && r == HST_SUCCESS; i++) {
        switch (a[i].kind) {
        case HST_KARG_GLOBAL: r = hst_kernel_set_buffer(k, i, a[i].v.buffer); break;
        case HST_KARG_IMAGE: r = hst_kernel_set_image(k, i, a[i].v.image); break;
        case HST_KARG_SAMPLER: r = hst_kernel_set_sampler(k, i, a[i].v.sampler); break;
        case HST_KARG_LOCAL: r = hst_kernel_set_arg(k, i, a[i].bytes, NULL); break;
        case HST_KARG_VALUE: r = hst_kernel_set_arg(k, i, a[i].bytes, a[i].v.value); break;
        default: r = hst_kernel_set_arg(k, i, a[i].bytes, &a[i].v); break;
        }
    }
    return r;
}

HST__BDEF hst_result hst_launch_kernel(hst_backend *be, const hst_launch_desc *d, hst_event *out) {
    hst_queue *q;
    hst_result r;
    if (out) *out = NULL;
    if (!be) return hst__null_arg(NULL, "hst_launch_kernel", "be is NULL");
    if ((r = hst__check_launch(be, d)) != HST_SUCCESS) return r;
    q = d->queue ? d->queue : hst_backend_queue(be);
    return be->ops->launch_declared(be, d, q, out);
}

HST__BDEF hst_result hst_kernel_run(hst_queue *q, hst_kernel *k, const hst_range *range,
                                  size_t num_args, const hst_karg *args,
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_kernel_run";
    hst_result r;
    unsigned i;
    int local = 0;
    if (!q || !k || !range || (num_args && !args))
        return hst__null_arg(q ? q->be : NULL, F, "%s is NULL", !q ? "q" : !k ? "k" : !range ? "range" : "args");
    if (range->dims < 1 || range->dims > 3) return hst__range_arg(q->be, F, "range->dims %u is not 1, 2 or 3", range->dims);
    if ((r = hst__bind_args(k, num_args, args)) != HST_SUCCESS) return r;
    for (i = 0; i < range->dims; i++) local |= range->local[i] != 0;
    return hst_launch_offset(q, k, range->dims, range->offset, range->global, local ? range->local : NULL,
                             num_wait, wait, out);
}

/* >>host device ------------------------------------------------------------------------------ */
/* The host device's implementation of the device interface: host memory from the allocator,
   commands run when they are enqueued, kernels run as their host C twins. */

/* >>host events */
static hst_event hst__as_event(struct hst__event *ev) { return (hst_event)(void *)ev; }

static struct hst__event *hst__event_new(hst_backend *be, int status) {
    struct hst__event *ev = (struct hst__event *)hst__calloc(be, sizeof *ev);
    if (!ev) return NULL;
    ev->magic = HST__EVENT_MAGIC;
    ev->be = be;
    ev->refs = 1;
    ev->status = status;
    return ev;
}

static struct hst__event *hst__event_retain(struct hst__event *ev) { ev->refs++; return ev; }

static void hst__event_unlink_waiter(struct hst__event *dep, const struct hst__event *m) {
    hst__waiter **w;
    for (w = &dep->waiters; *w; w = &(*w)->next)
        if ((*w)->ev == m) { hst__waiter *x = *w; *w = x->next; hst__free(dep->be, x); return; }
}

/* A marker lets go of what it waits for (when it ends, or when freed before). */
static void hst__event_drop_deps(struct hst__event *ev) {
    size_t i;
    for (i = 0; i < ev->num_deps; i++) {
        hst__event_unlink_waiter(ev->deps[i], ev);
        hst__event_release(ev->deps[i]);
    }
    hst__free(ev->be, ev->deps);
    ev->deps = NULL;
    ev->num_deps = 0;
}

/* Callbacks never run (the event never ended) are dropped with it. */
static void hst__event_release(struct hst__event *ev) {
    if (--ev->refs) return;
    hst__event_drop_deps(ev);
    while (ev->callbacks) { hst__callback *c = ev->callbacks; ev->callbacks = c->next; hst__free(ev->be, c); }
    while (ev->waiters) { hst__waiter *w = ev->waiters; ev->waiters = w->next; hst__free(ev->be, w); }
    hst__free(ev->be, ev);
}

static void hst__event_run_callbacks(struct hst__event *ev) {
    while (ev->callbacks) {
        hst__callback *c = ev->callbacks;
        ev->callbacks = c->next;
        c->fn(hst__as_event(ev), ev->status, c->user);
        hst__free(ev->be, c);
    }
}

/* A waiting marker hears that one of its events ended; 1 when that was the last. */
static int hst__event_dep_ended(struct hst__event *m, int dep_status) {
    if (dep_status < 0) m->dep_failed = 1;
    if (--m->pending) return 0;
    m->status = m->dep_failed ? HST__CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : HST_EVENT_COMPLETE;
    return 1;
}

/* ev reaches its end with status: its times, its callbacks, then the markers this releases, and
   theirs in turn (a work list, not recursion: chains of markers may be long). Events on the
   list are held, so a callback that releases one cannot free it under the walk. */
static void hst__event_end(struct hst__event *ev, int status) {
    struct hst__event *ready = hst__event_retain(ev);
    ev->status = status;
    ev->next_ready = NULL;
    while (ready) {
        struct hst__event *e = ready;
        ready = e->next_ready;
        if (e->profiled) e->t[3] = hst__time_ns();
        if (e->profiled && !e->t[2]) e->t[2] = e->t[3];   /* a marker starts as it ends */
        hst__event_drop_deps(e);
        hst__event_run_callbacks(e);
        while (e->waiters) {
            hst__waiter *w = e->waiters;
            struct hst__event *m = w->ev;
            e->waiters = w->next;
            hst__free(e->be, w);
            if (hst__event_dep_ended(m, e->status)) { m->next_ready = ready; ready = hst__event_retain(m); }
        }
        hst__event_release(e);
    }
}

/* Logs a refused wait on a pending host event and says why nothing else can end it. */
static hst_result hst__pending_refused(const hst_backend *be, const char *func, const char *what) {
    return hst__state_arg(be, func, "%s is still pending (it waits on a user event not set yet): the "
                          "host device runs commands when they are enqueued and only "
                          "hst_user_event_set ends it, so this would wait for ever; set the user "
                          "event first, or wait with a marker", what);
}

static hst_result hst__host_event_wait(hst_event e, size_t index) {
    struct hst__event *ev = hst__host_event(e);
    if (ev->status > 0) return hst__pending_refused(ev->be, "hst_event_wait", "an event");
    if (ev->status < 0) {
        hst__log(ev->be, HST_LOG_ERROR, HST_LOGITEM_CL_ERROR, "hst_event_wait: event %zu ended with "
                 "status %d", index, ev->status);
        return HST__CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    return HST_SUCCESS;
}

static void hst__host_event_release(hst_event e) { hst__event_release(hst__host_event(e)); }

static void hst__host_event_retain(hst_event e) { hst__event_retain(hst__host_event(e)); }

static hst_result hst__host_event_status(hst_event e, int *status) {
    *status = hst__host_event(e)->status;
    return HST_SUCCESS;
}

static hst_result hst__host_event_profile(hst_event e, uint64_t t[4]) {
    struct hst__event *ev = hst__host_event(e);
    if (!ev->profiled)
        return hst__not_profiled(ev->be, ev->user ? "a user event has none"
                                                  : "the queue was not created with profiling (hst_queue_desc.profiling)");
    if (ev->status != HST_EVENT_COMPLETE)
        return hst__not_profiled(ev->be, ev->status > 0 ? "the command is not complete" : "the command failed");
    memcpy(t, ev->t, sizeof ev->t);
    return HST_SUCCESS;
}

static hst_result hst__host_user_event_create(hst_backend *be, hst_event *out) {
    struct hst__event *ev = hst__event_new(be, HST_EVENT_SUBMITTED);
    if (!ev) return HST_ERROR_OUT_OF_HOST_MEMORY;
    ev->user = 1;
    *out = hst__as_event(ev);
    return HST_SUCCESS;
}

static hst_result hst__host_user_event_set(hst_event e, int status) {
    static const char *F = "hst_user_event_set";
    struct hst__event *ev = hst__host_event(e);
    if (!ev->user) return hst__bad_arg(ev->be, F, "e was not made by hst_user_event_create");
    if (ev->status <= 0) {
        hst__log(ev->be, HST_LOG_ERROR, HST_LOGITEM_BAD_STATE, "%s: the status is set already (%d)", F, ev->status);
        return HST__CL_INVALID_OPERATION;
    }
    hst__event_end(ev, status);
    return HST_SUCCESS;
}

/* Callbacks run in registration order; an event that has ended runs fn at once. */
static hst_result hst__host_event_set_callback(hst_event e, hst_event_fn fn, void *user) {
    struct hst__event *ev = hst__host_event(e);
    hst__callback *c, **tail;
    if (ev->status <= 0) { fn(e, ev->status, user); return HST_SUCCESS; }
    if (!(c = (hst__callback *)hst__malloc(ev->be, sizeof *c))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    c->fn = fn;
    c->user = user;
    c->next = NULL;
    for (tail = &ev->callbacks; *tail; tail = &(*tail)->next) {}
    *tail = c;
    return HST_SUCCESS;
}

/* >>host queues */
/* The host device's queue drops its last marker once that has ended; while it has not,
   commands behind it cannot run in order. */
static void hst__host_queue_trim(hst_queue *q) {
    if (q->tail && q->tail->status <= 0) { hst__event_release(q->tail); q->tail = NULL; }
}

static hst_result hst__host_queue_ready(hst_queue *q, const char *func) {
    hst__host_queue_trim(q);
    return q->tail ? hst__pending_refused(q->be, func, "a marker enqueued on q before it") : HST_SUCCESS;
}

/* The host device runs a command when it is enqueued: once the listed events (and the queue's
   last marker) have ended; on a profiling queue *out becomes a running event with its times. */
static hst_result hst__host_begin(hst_queue *q, const char *func, size_t num_wait, const hst_event *wait,
                                  hst_event *out) {
    struct hst__event *ev;
    hst_result r;
    uint64_t now = hst__time_ns();
    if (out) *out = NULL;
    if ((r = hst__host_queue_ready(q, func)) != HST_SUCCESS) return r;
    if ((r = hst_event_wait(num_wait, wait)) != HST_SUCCESS) return r;
    if (!out || !q->profiling) return HST_SUCCESS;
    if (!(ev = hst__event_new(q->be, HST_EVENT_RUNNING))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    ev->profiled = 1;
    ev->t[0] = ev->t[1] = now;
    ev->t[2] = hst__time_ns();
    *out = hst__as_event(ev);
    return HST_SUCCESS;
}

/* The command's work is done: its event (if any) ends. */
static hst_result hst__host_end(hst_event *out) {
    struct hst__event *ev = out ? hst__host_event(*out) : NULL;
    if (ev) hst__event_end(ev, HST_EVENT_COMPLETE);
    return HST_SUCCESS;
}

/* A command with nothing to do on the host device. */
static hst_result hst__host_nothing(hst_queue *q, const char *func, size_t num_wait, const hst_event *wait,
                                 hst_event *out) {
    hst_result r = hst__host_begin(q, func, num_wait, wait, out);
    return r != HST_SUCCESS ? r : hst__host_end(out);
}

/* A marker's event waits for the pending host events of `wait` and the queue's last marker;
   errors in the listed events it takes over at once. */
static hst_result hst__marker_deps(struct hst__event *m, hst_queue *q, size_t num_wait, const hst_event *wait) {
    size_t i, n = 0;
    hst__host_queue_trim(q);
    if (!(m->deps = (struct hst__event **)hst__malloc(q->be, (num_wait + 1) * sizeof *m->deps)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i <= num_wait; i++) {
        struct hst__event *d = i < num_wait ? hst__host_event(wait[i]) : q->tail;
        hst__waiter *w;
        if (!d || d->status <= 0) { if (d && d->status < 0) m->dep_failed = 1; continue; }
        if (!(w = (hst__waiter *)hst__malloc(q->be, sizeof *w))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        w->ev = m;
        w->next = d->waiters;
        d->waiters = w;
        m->deps[n++] = hst__event_retain(d);
        m->num_deps = m->pending = n;
    }
    return HST_SUCCESS;
}

/* The host device's marker (and barrier: on an in-order queue the same): it ends now when
   nothing it waits for is pending, else later, with the last of them; then it is the queue's
   last marker, which later commands wait behind. OpenCL events in `wait` are waited for here. */
static hst_result hst__host_marker(hst_queue *q, int barrier, HST__WAITS) {
    struct hst__event *m;
    hst_result r;
    size_t i;
    (void)barrier;
    if (out) *out = NULL;
    for (i = 0; i < num_wait; i++)
        if (!hst__host_event(wait[i]) && (r = hst_event_wait(1, &wait[i])) != HST_SUCCESS) return r;
    if (!(m = hst__event_new(q->be, HST_EVENT_SUBMITTED))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    m->profiled = q->profiling;
    m->t[0] = m->t[1] = hst__time_ns();
    if ((r = hst__marker_deps(m, q, num_wait, wait)) != HST_SUCCESS) { hst__event_release(m); return r; }
    if (!m->pending)
        hst__event_end(m, m->dep_failed ? HST__CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : HST_EVENT_COMPLETE);
    else { if (q->tail) hst__event_release(q->tail); q->tail = hst__event_retain(m); }
    if (out && (m->status != HST_EVENT_COMPLETE || m->profiled)) *out = hst__as_event(m);
    else hst__event_release(m);   /* ended well and unprofiled: NULL says as much */
    return HST_SUCCESS;
}


/* The host device runs everything on the calling thread: a child of fork() included. Where
   the caller did not ask for it by name and no OpenCL device exists, it says once that the
   host device serves instead; a build with HST_NO_OPENCL has the host device alone, which is
   what its callers ask for (a selector naming another device fails in hst__select). */
static hst_result hst__host_open(hst_backend *be, const hst_backend_desc *desc) {
#ifndef HST_NO_OPENCL
    size_t n = 0;
    hst_result r;
    if (!hst__cl_usable()) return HST_SUCCESS;   /* a child of fork(): OpenCL not listed */
    if (!strcmp(hst__selector(desc->device), "host")) return HST_SUCCESS;
    if ((r = hst_devices(NULL, 0, &n)) != HST_SUCCESS) return r;
    if (n == 1) hst__note_no_platform(be);
#else
    (void)be; (void)desc;
#endif
    return HST_SUCCESS;
}

static void hst__host_close(hst_backend *be) {
    if (be->queue.tail) hst__event_release(be->queue.tail);
}

static hst_result hst__host_callable(const hst_backend *be, const char *func) {
    (void)be; (void)func;
    return HST_SUCCESS;
}

static hst_result hst__host_queue_create(hst_queue *q) { (void)q; return HST_SUCCESS; }

static void hst__host_queue_destroy(hst_queue *q) {
    if (q->tail) hst__event_release(q->tail);
}

static hst_result hst__host_queue_flush(hst_queue *q) { (void)q; return HST_SUCCESS; }
static hst_result hst__host_queue_finish(hst_queue *q) { (void)q; return HST_SUCCESS; }

/* >>host memory */
static hst_result hst__host_buffer_alloc(hst_buffer *b, unsigned flags, void *wrap) {
    (void)flags;
    b->host = wrap ? wrap : hst__malloc(b->be, b->bytes);
    return b->host ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
}

static hst_result hst__host_buffer_sub(hst_buffer *b, hst_buffer *root) {
    (void)b; (void)root;   /* its host pointer is set: nothing more to make */
    return HST_SUCCESS;
}

/* The *_from_cl adoptions on the host device: refused. */
static hst_result hst__host_no_cl(const hst_backend *be, const char *func) {
    return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, func,
                            "the host device holds no OpenCL objects; select an OpenCL device");
}

static hst_result hst__host_buffer_adopt(hst_buffer *b, void *handle) {
    (void)handle;
    return hst__host_no_cl(b->be, "hst_buffer_from_cl");
}

static void hst__host_buffer_free(hst_buffer *b) {
    if (!b->parent && !b->wrapped) hst__free(b->be, b->host);
}

static hst_result hst__host_fill(hst_queue *q, hst_buffer *buf, const void *pattern, size_t pattern_bytes,
                                 size_t offset, size_t bytes, HST__WAITS) {
    hst_result r;
    size_t i;
    if ((r = hst__host_begin(q, "hst_fill", num_wait, wait, out)) != HST_SUCCESS) return r;
    for (i = 0; i < bytes; i += pattern_bytes)
        memcpy((char *)buf->host + offset + i, pattern, pattern_bytes);
    return hst__host_end(out);
}

static hst_result hst__host_write(hst_queue *q, hst_buffer *dst, size_t offset, const void *src, size_t bytes,
                                  int blocking, HST__WAITS) {
    hst_result r;
    (void)blocking;
    if ((r = hst__host_begin(q, "hst_write", num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove((char *)dst->host + offset, src, bytes);
    return hst__host_end(out);
}

static hst_result hst__host_read(hst_queue *q, const hst_buffer *src, size_t offset, void *dst, size_t bytes,
                                 int blocking, HST__WAITS) {
    hst_result r;
    (void)blocking;
    if ((r = hst__host_begin(q, "hst_read", num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove(dst, (const char *)src->host + offset, bytes);
    return hst__host_end(out);
}

static hst_result hst__host_copy(hst_queue *q, hst_buffer *dst, size_t dst_offset, const hst_buffer *src,
                                 size_t src_offset, size_t bytes, HST__WAITS) {
    hst_result r;
    if ((r = hst__host_begin(q, "hst_copy", num_wait, wait, out)) != HST_SUCCESS) return r;
    memcpy((char *)dst->host + dst_offset, (const char *)src->host + src_offset, bytes);
    return hst__host_end(out);
}

static size_t hst__rect_offset(const hst__rect_abs *r) {
    return r->origin[2] * r->slice_pitch + r->origin[1] * r->row_pitch + r->origin[0];
}

/* The host side of every rectangular transfer (also the host device's images). */
static void hst__rect_memcpy(void *dst, const hst__rect_abs *d, const void *src,
                             const hst__rect_abs *s, const size_t region[3]) {
    size_t y, z;
    char *dp = (char *)dst + hst__rect_offset(d);
    const char *sp = (const char *)src + hst__rect_offset(s);
    for (z = 0; z < region[2]; z++)
        for (y = 0; y < region[1]; y++)
            memmove(dp + z * d->slice_pitch + y * d->row_pitch,
                    sp + z * s->slice_pitch + y * s->row_pitch, region[0]);
}

static hst_result hst__host_rect(hst_queue *q, const char *func, const hst__rect_cmd *c, HST__WAITS) {
    hst_result r;
    if ((r = hst__host_begin(q, func, num_wait, wait, out)) != HST_SUCCESS) return r;
    hst__rect_memcpy(c->dir == 1 ? c->dhost : c->dbuf->host, &c->d, c->dir == 0 ? c->shost : c->sbuf->host, &c->s,
                     c->region);
    return hst__host_end(out);
}

static hst_result hst__host_map(hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset, size_t bytes,
                                int blocking, void **ptr, HST__WAITS) {
    hst_result r;
    (void)map_flags; (void)bytes; (void)blocking;
    if ((r = hst__host_begin(q, "hst_map", num_wait, wait, out)) != HST_SUCCESS) return r;
    *ptr = (char *)buf->host + offset;
    return hst__host_end(out);
}

static hst_result hst__host_unmap(hst_queue *q, hst_buffer *buf, void *ptr, HST__WAITS) {
    if ((char *)ptr < (char *)buf->host || (char *)ptr >= (char *)buf->host + buf->bytes)
        return hst__bad_arg(q->be, "hst_unmap", "ptr was not mapped from buf");
    return hst__host_nothing(q, "hst_unmap", num_wait, wait, out);
}

static hst_result hst__host_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers, unsigned flags,
                                    HST__WAITS) {
    (void)num_buffers; (void)buffers; (void)flags;
    return hst__host_nothing(q, "hst_migrate", num_wait, wait, out);   /* host memory is where it is used */
}

/* >>host svm: plain host memory */
static void *hst__host_svm_alloc(hst_backend *be, size_t bytes, int fine) {
    (void)fine;
    return hst__malloc(be, bytes);
}

static void hst__host_svm_free(hst_backend *be, void *ptr) { hst__free(be, ptr); }

static hst_result hst__host_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes, HST__WAITS) {
    (void)map_flags; (void)ptr; (void)bytes;
    return hst__host_nothing(q, "hst_svm_map", num_wait, wait, out);
}

static hst_result hst__host_svm_unmap(hst_queue *q, void *ptr, HST__WAITS) {
    (void)ptr;
    return hst__host_nothing(q, "hst_svm_unmap", num_wait, wait, out);
}

static hst_result hst__host_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes, int blocking, HST__WAITS) {
    hst_result r;
    (void)blocking;
    if ((r = hst__host_begin(q, "hst_svm_copy", num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove(dst, src, bytes);
    return hst__host_end(out);
}

static hst_result hst__host_svm_fill(hst_queue *q, void *ptr, const void *pattern, size_t pattern_bytes, size_t bytes,
                                     HST__WAITS) {
    hst_result r;
    size_t i;
    if ((r = hst__host_begin(q, "hst_svm_fill", num_wait, wait, out)) != HST_SUCCESS) return r;
    for (i = 0; i < bytes; i += pattern_bytes) memcpy((char *)ptr + i, pattern, pattern_bytes);
    return hst__host_end(out);
}

static hst_result hst__host_svm_migrate(hst_queue *q, size_t num, const void *const *ptrs, const size_t *sizes,
                                        unsigned flags, HST__WAITS) {
    (void)num; (void)ptrs; (void)sizes; (void)flags;
    return hst__host_nothing(q, "hst_svm_migrate", num_wait, wait, out);
}

/* >>host images: tight pixels in host memory */
static hst_result hst__host_image_create(hst_image *img) {
    img->host = img->buffer ? hst_buffer_host_ptr(img->buffer) : hst__malloc(img->be, img->reserved);
    return img->host ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
}

/* The formats hst_image_from_array makes (c64's are f32's), for every access and shape. */
static hst_result hst__host_image_formats(hst_backend *be, unsigned mem_flags, unsigned type,
                                          hst_image_format *formats, size_t max, size_t *count) {
    hst_dtype dt;
    unsigned ch;
    int norm;
    size_t n;
    (void)be; (void)mem_flags; (void)type;
    for (n = 0; hst__image_vocab(n, &dt, &ch, &norm); n++)
        if (n < max) formats[n] = hst__image_format(dt, ch, norm);
    *count = n;
    return HST_SUCCESS;
}


static hst_result hst__host_image_adopt(hst_image *img, void *handle, hst_image_desc *d) {
    (void)handle; (void)d;
    return hst__host_no_cl(img->be, "hst_image_from_cl");
}

static void hst__host_image_free(hst_image *img) {
    if (!img->buffer) hst__free(img->be, img->host);   /* a buffer image's memory is the buffer's */
}

/* The host device's image memory as a rect: tight rows and slices. */
static hst__rect_abs hst__image_rect(const hst_image *img, const size_t *origin) {
    hst__rect_abs r;
    r.row_pitch = img->extent[0] * img->pixel_bytes;
    r.slice_pitch = r.row_pitch * img->extent[1];
    r.origin[0] = origin[0] * img->pixel_bytes;
    r.origin[1] = origin[1];
    r.origin[2] = origin[2];
    return r;
}

/* A caller's host array for a box: tight unless pitches are given. */
/* The host device's rows and slices, tight, as OpenCL reports them: the slice pitch of a 1-D
   array is its layers' (a row's), of 1-D and 2-D images 0. */
static hst_result hst__host_image_pitches(const hst_image *img, size_t *row_pitch, size_t *slice_pitch) {
    static const size_t o0[3] = {0, 0, 0};
    hst__rect_abs d = hst__image_rect(img, o0);
    *row_pitch = d.row_pitch;
    *slice_pitch = img->type == HST_IMAGE_1D_ARRAY ? d.row_pitch
                 : img->type == HST_IMAGE_3D || img->type == HST_IMAGE_2D_ARRAY ? d.slice_pitch : 0;
    return HST_SUCCESS;
}

static hst__rect_abs hst__host_array_rect(const hst_image *img, const size_t *region, size_t row_pitch,
                                    size_t slice_pitch) {
    hst__rect_abs r;
    memset(&r, 0, sizeof r);
    r.row_pitch = row_pitch ? row_pitch : region[0] * img->pixel_bytes;
    r.slice_pitch = slice_pitch ? slice_pitch : r.row_pitch * region[1];
    return r;
}

static hst_result hst__host_image_rw(hst_queue *q, const char *func, int write, hst_image *img, const size_t *origin,
                                     const size_t *region, void *host, size_t row_pitch, size_t slice_pitch,
                                     int blocking, HST__WAITS) {
    hst__rect_abs ir = hst__image_rect(img, origin), hr = hst__host_array_rect(img, region, row_pitch, slice_pitch);
    size_t reg[3];
    hst_result r;
    (void)blocking;
    if ((r = hst__host_begin(q, func, num_wait, wait, out)) != HST_SUCCESS) return r;
    reg[0] = region[0] * img->pixel_bytes; reg[1] = region[1]; reg[2] = region[2];
    if (write) hst__rect_memcpy(img->host, &ir, host, &hr, reg);
    else hst__rect_memcpy(host, &hr, img->host, &ir, reg);
    return hst__host_end(out);
}

static hst_result hst__host_image_copy(hst_queue *q, hst_image *dst, const size_t *dst_origin, const hst_image *src,
                                       const size_t *src_origin, const size_t *region, HST__WAITS) {
    hst__rect_abs d = hst__image_rect(dst, dst_origin), s = hst__image_rect(src, src_origin);
    size_t reg[3];
    hst_result r;
    if ((r = hst__host_begin(q, "hst_image_copy", num_wait, wait, out)) != HST_SUCCESS) return r;
    reg[0] = region[0] * dst->pixel_bytes; reg[1] = region[1]; reg[2] = region[2];
    hst__rect_memcpy(dst->host, &d, src->host, &s, reg);
    return hst__host_end(out);
}

/* The buffer side is a tight rect at its offset. */
static hst_result hst__host_image_buffer(hst_queue *q, const char *func, int to_buffer, hst_image *img,
                                         const size_t *origin, const size_t *region, hst_buffer *buf, size_t offset,
                                         HST__WAITS) {
    hst__rect_abs ir = hst__image_rect(img, origin), br = hst__host_array_rect(img, region, 0, 0);
    size_t reg[3];
    hst_result r;
    if ((r = hst__host_begin(q, func, num_wait, wait, out)) != HST_SUCCESS) return r;
    br.origin[0] = offset;
    reg[0] = region[0] * img->pixel_bytes; reg[1] = region[1]; reg[2] = region[2];
    if (to_buffer) hst__rect_memcpy(buf->host, &br, img->host, &ir, reg);
    else hst__rect_memcpy(img->host, &ir, buf->host, &br, reg);
    return hst__host_end(out);
}

/* One pixel from a fill colour, converted as OpenCL converts fill colours (host device). */
static hst_result hst__host_image_fill(hst_queue *q, hst_image *img, const void *color, const size_t *origin,
                                       const size_t *region, HST__WAITS) {
    unsigned char px[32];
    hst__rect_abs d = hst__image_rect(img, origin);
    size_t x, y, z;
    hst_result r;
    if ((r = hst__host_begin(q, "hst_image_fill", num_wait, wait, out)) != HST_SUCCESS) return r;
    hst__pixel_from_color(img, color, px);
    for (z = 0; z < region[2]; z++)
        for (y = 0; y < region[1]; y++)
            for (x = 0; x < region[0]; x++)
                memcpy((char *)img->host + hst__rect_offset(&d) + z * d.slice_pitch +
                       y * d.row_pitch + x * img->pixel_bytes, px, img->pixel_bytes);
    return hst__host_end(out);
}

static hst_result hst__host_image_map(hst_queue *q, hst_image *img, unsigned map_flags, const size_t *origin,
                                      const size_t *region, int blocking, size_t *row_pitch, size_t *slice_pitch,
                                      void **ptr, HST__WAITS) {
    hst__rect_abs d = hst__image_rect(img, origin);
    hst_result r;
    (void)map_flags; (void)region; (void)blocking;
    if ((r = hst__host_begin(q, "hst_image_map", num_wait, wait, out)) != HST_SUCCESS) return r;
    hst__host_image_pitches(img, row_pitch, slice_pitch);
    *ptr = (char *)img->host + hst__rect_offset(&d);
    return hst__host_end(out);
}

static hst_result hst__host_image_unmap(hst_queue *q, hst_image *img, void *ptr, HST__WAITS) {
    (void)img; (void)ptr;
    return hst__host_nothing(q, "hst_image_unmap", num_wait, wait, out);
}

/* A sampler is the record of its settings. */
static hst_result hst__host_sampler_create(hst_sampler *s) { (void)s; return HST_SUCCESS; }
static hst_result hst__host_sampler_adopt(hst_sampler *s, void *handle) {
    (void)handle;
    return hst__host_no_cl(s->be, "hst_sampler_from_cl");
}
static void hst__host_sampler_free(hst_sampler *s) { (void)s; }

/* The host device's answers (hst_buffer_get_info_raw says which): one value of OpenCL's type. */
static hst_result hst__host_object_info(const hst__info_query *iq) {
    const hst_backend *be = iq->kind == HST__INFO_BUFFER ? iq->buf->be : iq->kind == HST__INFO_SAMPLER ? iq->smp->be
                          : iq->img->be;
    size_t z = 0, pitch[2];
    uint32_t u = 0;
    const void *p = NULL;
    const void *src = &z;
    size_t n = sizeof z;
    const hst_image *img = iq->img;
#define HST__K(kind, param) ((kind) * 0x10000 + (param))
#define HST__U32(x) u = (uint32_t)(x); src = &u; n = sizeof u
    switch (HST__K(iq->kind, iq->param)) {
    case HST__K(HST__INFO_BUFFER, HST__CL_MEM_TYPE): HST__U32(HST__CL_MEM_OBJECT_BUFFER); break;
    case HST__K(HST__INFO_BUFFER, HST__CL_MEM_SIZE): z = iq->buf->bytes; break;
    case HST__K(HST__INFO_BUFFER, HST__CL_MEM_HOST_PTR): p = iq->buf->wrapped ? iq->buf->host : NULL; src = &p; n = sizeof p; break;
    case HST__K(HST__INFO_BUFFER, HST__CL_MEM_REFERENCE_COUNT): HST__U32(1); break;
    case HST__K(HST__INFO_BUFFER, HST__CL_MEM_OFFSET): z = iq->buf->parent ? iq->buf->origin : 0; break;
    case HST__K(HST__INFO_IMAGE_MEM, HST__CL_MEM_TYPE): HST__U32(hst__image_cl_type(img->type)); break;
    case HST__K(HST__INFO_IMAGE_MEM, HST__CL_MEM_SIZE): z = img->extent[0] * img->extent[1] * img->extent[2] *
                                                           img->pixel_bytes; break;
    case HST__K(HST__INFO_IMAGE_MEM, HST__CL_MEM_HOST_PTR): src = &p; n = sizeof p; break;   /* copied: NULL */
    case HST__K(HST__INFO_IMAGE_MEM, HST__CL_MEM_REFERENCE_COUNT): HST__U32(1); break;
    case HST__K(HST__INFO_IMAGE_MEM, HST__CL_MEM_OFFSET): break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_FORMAT): src = &img->format; n = sizeof img->format; break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_ELEMENT_SIZE): z = img->pixel_bytes; break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_ROW_PITCH): hst__host_image_pitches(img, &z, &pitch[1]); break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_SLICE_PITCH): hst__host_image_pitches(img, &pitch[0], &z); break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_WIDTH): z = img->extent[0]; break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_HEIGHT): z = img->ndim >= 2 ? img->extent[1] : 0; break;  /* OpenCL's 0 */
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_DEPTH): z = img->type == HST_IMAGE_3D ? img->extent[2] : 0; break;
    case HST__K(HST__INFO_IMAGE, HST__CL_IMAGE_ARRAY_SIZE):
        z = hst__image_layers(img); break;
    case HST__K(HST__INFO_SAMPLER, HST__CL_SAMPLER_REFERENCE_COUNT): HST__U32(1); break;
    case HST__K(HST__INFO_SAMPLER, HST_SAMPLER_NORMALIZED_COORDS): HST__U32(iq->smp->normalized); break;
    case HST__K(HST__INFO_SAMPLER, HST_SAMPLER_ADDRESSING_MODE): HST__U32(HST_CL_ADDRESS_BASE + iq->smp->address); break;
    case HST__K(HST__INFO_SAMPLER, HST_SAMPLER_FILTER_MODE): HST__U32(HST_CL_FILTER_BASE + iq->smp->filter); break;
    default:
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, iq->func, "param 0x%x: "
                                "the host device keeps no such record (no context, flags or map count)",
                                (unsigned)iq->param);
    }
#undef HST__K
#undef HST__U32
    if (iq->size_ret) *iq->size_ret = n;
    if (iq->value && iq->bytes >= n) memcpy(iq->value, src, n);
    return HST_SUCCESS;
}

/* >>host kernels: no OpenCL programs (ops->programs is 0: the public calls refuse first), the
   declared kernels' twins instead */
static hst_result hst__host_program_compile(hst_program *p, size_t count, const char *const *src, const char *options) {
    (void)count; (void)src; (void)options;
    return hst__unsupported_on_host(p->be, "hst_program_build");
}

static void hst__host_program_free(hst_program *p) { (void)p; }

static hst_result hst__host_kernel_create(hst_kernel *k, const char *name) {
    (void)name;
    return hst__unsupported_on_host(k->prog->be, "hst_kernel_create");
}

static void hst__host_kernel_free(hst_kernel *k) { (void)k; }

static hst_result hst__host_kernel_set_arg(hst_kernel *k, unsigned index, const hst_karg *a) {
    (void)index; (void)a;
    return hst__unsupported_on_host(k->prog->be, "hst_kernel_set_arg");
}

static hst_result hst__host_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr) {
    (void)index; (void)ptr;
    return hst__unsupported_on_host(k->prog->be, "hst_kernel_set_svm");
}

static hst_result hst__host_kernel_wg_info(const hst_kernel *k, hst_kernel_wg_info *out) {
    (void)k; (void)out;
    return HST_ERROR_UNSUPPORTED;   /* no kernel exists on the host device */
}

static hst_result hst__host_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *offset,
                                   const size_t *global, const size_t *local, HST__WAITS) {
    (void)k; (void)dims; (void)offset; (void)global; (void)local; (void)num_wait; (void)wait; (void)out;
    return hst__unsupported_on_host(q->be, "hst_launch");
}

/* The host device: the twin, after the wait list, on host memory; each LOCAL argument is
   scratch memory of its bytes for the launch (the host's work-group memory). */
static hst_result hst__host_launch_declared(hst_backend *be, const hst_launch_desc *d, hst_queue *q, hst_event *out) {
    const hst_kernel_decl *k = &d->family->kernels[d->kernel];
    hst_karg args[HST_KERNEL_MAX_ARGS];
    hst_result r = HST_SUCCESS;
    size_t i;
    for (i = 0; i < d->num_args; i++)   /* no sampler here: hst_sampler_create says why */
        if (d->args[i].kind == HST_KARG_IMAGE || d->args[i].kind == HST_KARG_SAMPLER)
            return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, "hst_launch_kernel",
                                    "%s.%s: argument %zu is %s: kernels read images on OpenCL devices only",
                                    d->family->name, k->name, i, d->args[i].kind == HST_KARG_IMAGE ? "an image" : "a sampler");
    if (!k->twin)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, "hst_launch_kernel",
                                "%s.%s has no host twin: select an OpenCL device", d->family->name, k->name);
    for (i = 0; i < d->num_args; i++)
        if (d->args[i].kind == HST_KARG_GLOBAL && !hst_karg_ptr(&d->args[i]))
            return hst__bad_arg(be, "hst_launch_kernel", "%s.%s: argument %zu is a buffer without host memory",
                                d->family->name, k->name, i);
    if ((r = hst_event_wait(d->num_wait, d->wait)) != HST_SUCCESS) return r;
    if (d->num_args) memcpy(args, d->args, d->num_args * sizeof *args);
    for (i = 0; i < d->num_args && r == HST_SUCCESS; i++)
        if (args[i].kind == HST_KARG_LOCAL && !(args[i].v.value = hst__malloc(be, args[i].bytes)))
            r = HST_ERROR_OUT_OF_HOST_MEMORY;
    if (r == HST_SUCCESS) k->twin(args, &d->range);
    for (i = 0; i < d->num_args; i++)
        if (args[i].kind == HST_KARG_LOCAL) hst__free(be, (void *)args[i].v.value);
    if (r != HST_SUCCESS) return r;
    return out ? hst_queue_marker(q, 0, NULL, out) : HST_SUCCESS;
}

#define HST__OP_HOST(ret, name, params, args) hst__host_##name,
#define HST__OP_HOST_V(name, params, args) hst__host_##name,
static const hst__device_ops hst__host_ops = {"host", 0, HST__DEVICE_OPS(HST__OP_HOST, HST__OP_HOST_V)};
#undef HST__OP_HOST
#undef HST__OP_HOST_V
static const hst__device_ops *hst__host_device(void) { return &hst__host_ops; }

#ifdef HST_TEST_DEVICE_KIND
/* >>test device ------------------------------------------------------------------------------ */
/* A third device kind, compiled only where HST_TEST_DEVICE_KIND is defined (tests): the host
   device's table behind a wrapper that counts each operation's calls, so a test can run the
   library's rooms unchanged through the device interface and see that they went through it. */
#define HST__OP_INDEX(ret, name, params, args) HST__OPI_##name,
#define HST__OP_INDEX_V(name, params, args) HST__OPI_##name,
enum { HST__DEVICE_OPS(HST__OP_INDEX, HST__OP_INDEX_V) HST__NUM_OPS };
#undef HST__OP_INDEX
#undef HST__OP_INDEX_V
#define HST__OP_NAME(ret, name, params, args) #name,
#define HST__OP_NAME_V(name, params, args) #name,
static const char *const hst__op_names[HST__NUM_OPS] = {HST__DEVICE_OPS(HST__OP_NAME, HST__OP_NAME_V)};
#undef HST__OP_NAME
#undef HST__OP_NAME_V
/* Calls per operation, in every counting backend of the process (the host device's declared
   kernels may run from several threads at once: counted atomically where the compiler can). */
static volatile long hst__op_counts[HST__NUM_OPS];
#define HST__COUNT_OP(i) ((void)hst_atomic_add(&hst__op_counts[i], 1))
#define HST__OP_COUNTED(ret, name, params, args) \
    static ret hst__counting_##name params { HST__COUNT_OP(HST__OPI_##name); return hst__host_ops.name args; }
#define HST__OP_COUNTED_V(name, params, args) \
    static void hst__counting_##name params { HST__COUNT_OP(HST__OPI_##name); hst__host_ops.name args; }
HST__DEVICE_OPS(HST__OP_COUNTED, HST__OP_COUNTED_V)
#undef HST__OP_COUNTED
#undef HST__OP_COUNTED_V
#define HST__OP_COUNTING(ret, name, params, args) hst__counting_##name,
#define HST__OP_COUNTING_V(name, params, args) hst__counting_##name,
static const hst__device_ops hst__counting_ops = {"counting host", 0,
                                                  HST__DEVICE_OPS(HST__OP_COUNTING, HST__OP_COUNTING_V)};
#undef HST__OP_COUNTING
#undef HST__OP_COUNTING_V

HST__BDEF hst_result hst_test_device_wrap(hst_backend *be) {
    static const char *F = "hst_test_device_wrap";
    if (!be) return hst__null_arg(NULL, F, "be is NULL");
    if (be->ops != &hst__host_ops && be->ops != &hst__counting_ops)
        return hst_backend_fail(be, HST_ERROR_UNSUPPORTED, HST_LOGITEM_UNSUPPORTED, F,
                                "the counting device wraps the host device's table, not %s's", be->ops->name);
    be->ops = &hst__counting_ops;
    return HST_SUCCESS;
}

HST__BDEF unsigned long hst_test_device_count(const char *op) {
    unsigned long n = 0;
    int i;
    for (i = 0; i < HST__NUM_OPS; i++)
        if (!op || !strcmp(op, hst__op_names[i])) n += (unsigned long)hst_atomic_add(&hst__op_counts[i], 0);
    return n;
}

HST__BDEF const char *hst_test_device_op_name(unsigned i) { return i < HST__NUM_OPS ? hst__op_names[i] : NULL; }

HST__BDEF void hst_test_device_reset(void) {
    int i;
    for (i = 0; i < HST__NUM_OPS; i++) hst__op_counts[i] = 0;   /* not while counting */
}
#endif /* HST_TEST_DEVICE_KIND */

#ifdef __cplusplus
}
#endif
#endif /* HST_BACKEND_IMPLEMENTATION */

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
