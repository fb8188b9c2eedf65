/* backend.h — halostream's device shim: devices, memory, programs, launches, errors and an array
   vocabulary with identical semantics on every device. Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.)

   Usage (a scaled random vector, summed, on whichever device HST_DEVICE or `auto` picks):

       hst_backend_desc desc = {0};               // zero means every documented default
       hst_backend *be; hst_array *x; hst_scalar s;
       size_t shape[2] = {512, 1024};              // C order, slowest axis first
       if (hst_backend_create(&desc, &be) != HST_SUCCESS) return 1;
       hst_array_create(be, HST_F32, 2, shape, &x);
       hst_array_random(x, HST_RANDOM_NORMAL, 42, 0);     // same numbers on every device
       hst_array_scale(x, hst_real(0.5));
       hst_array_sqnorm(x, &s);                    // s.re ~ 0.25 * 512 * 1024
       hst_array_destroy(x); hst_backend_destroy(be);
       // cc -std=c99 app.c -lOpenCL -lm

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_BACKEND_IMPLEMENTATION             the implementation TU: compile backend.h's body only
     HST_NO_OPENCL                          every TU: the host device alone; no OpenCL headers
                                            or loader needed (buffers are host memory)
     HST_STATIC                             every TU: all functions `static` (embed twice)
     HST_API                                every TU: the declaration prefix (default `extern`)

   Environment: HST_DEVICE (selector when the desc leaves it empty), HST_LOG (error, warn, info,
   debug: the default logger's level), HST_CACHE_DIR (program binary cache; default
   $XDG_CACHE_HOME/halostream, else $HOME/.cache/halostream; `off` disables the disk cache).

   What it does NOT do: it does not fall back silently (every fallback is logged once, with the
   reason); it never calls clFinish behind your back in an enqueue-style call; it does not make one
   backend safe to use from two threads at once (use one backend per thread; functions that touch
   no backend, such as hst_devices and hst_result_string, are thread-safe); it does not run OpenCL
   kernels on the host device (the host device runs the host C twins from kernels.h instead).

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
   The logger, the allocator and the callbacks a call is given run on the calling thread: a
   logger or allocator that overlapping calls on several threads can reach must be thread-safe
   (malloc and the default stderr logger are). The environment is read with getenv: do not
   change it while other threads call the library. The program cache directory may be shared by
   threads and processes (unique temporary files renamed into place). The choice timings file
   is shared between processes and threads under an fcntl lock on the open file (Linux 3.15 and
   later); elsewhere the lock is the process's, and backends of one process must not save to
   the same file at the same time (hst_choice_save, hst_backend_destroy, hst_choice_run's
   interval saves).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (see the end of file). */

#ifndef HST_BACKEND_H
#define HST_BACKEND_H

#define HST_VERSION_MAJOR 0
#define HST_VERSION_MINOR 1
#define HST_VERSION_PATCH 0
#define HST_VERSION_STRING "0.1.0"

#ifndef HST_API
#  ifdef HST_STATIC
#    define HST_API static
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

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Results. 0 is success; OpenCL error codes pass through unchanged (negative, -1 .. -1xxx); the
   library's own codes live below HST_ERROR_BASE, far from any OpenCL or vendor code. */
typedef int hst_result;
enum {
    HST_SUCCESS = 0,
    HST_ERROR_BASE = -20000,
    HST_ERROR_INVALID_ARGUMENT = -20001,   /* NULL, zero size, out of range: the log names it */
    HST_ERROR_OVERFLOW = -20002,           /* a size computation would overflow size_t */
    HST_ERROR_OUT_OF_HOST_MEMORY = -20003, /* the allocator returned NULL */
    HST_ERROR_OUT_OF_DEVICE_MEMORY = -20004, /* over the device's limits or the caller's budget */
    HST_ERROR_NO_DEVICE = -20005,          /* the selector matched no device */
    HST_ERROR_UNSUPPORTED = -20006,        /* the device lacks the feature (fp64, SVM, images) */
    HST_ERROR_DTYPE = -20007,              /* the operation is not defined for this dtype */
    HST_ERROR_SHAPE = -20008,              /* arguments' shapes, dtypes or backends disagree */
    HST_ERROR_ALIGNMENT = -20009,          /* a sub-buffer origin breaks MEM_BASE_ADDR_ALIGN */
    HST_ERROR_IO = -20010,                 /* the disk cache could not be read or written */
    HST_ERROR_CANCELLED = -20011,          /* a progress callback asked to stop */
    HST_ERROR_NON_FINITE = -20012,         /* input data holds NaN or Inf: the log says where */
    HST_ERROR_NOT_BUILT_IN = -20013        /* an opt-in part (FFTs: HST_FFT) was not compiled */
};

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

typedef enum hst_log_item {
    HST_LOG_ITEM_NONE = 0,
    HST_LOG_BAD_ARGUMENT,        /* an argument was rejected; the message names it */
    HST_LOG_SIZE_OVERFLOW,       /* a size multiplication overflowed */
    HST_LOG_NO_PLATFORM,         /* no OpenCL platform: the host device serves (logged once) */
    HST_LOG_DEVICE_CHOSEN,       /* which device a selector picked, and why */
    HST_LOG_NO_MATCHING_DEVICE,  /* the selector matched nothing */
    HST_LOG_CL_ERROR,            /* an OpenCL call failed; the message names the call */
    HST_LOG_BUILD_FAILED,        /* program build failed; the message carries the build log */
    HST_LOG_BUILD_WARNINGS,      /* program built, with a non-empty build log */
    HST_LOG_CACHE_HIT,           /* a program binary came from the disk cache */
    HST_LOG_CACHE_CORRUPT,       /* a disk cache entry was unreadable: treated as a miss */
    HST_LOG_CACHE_WRITE_FAILED,  /* the disk cache could not be written (build still succeeds) */
    HST_LOG_OUT_OF_HOST_MEMORY,  /* the allocator returned NULL */
    HST_LOG_OUT_OF_DEVICE_MEMORY,/* a device allocation failed or would exceed a limit */
    HST_LOG_POOL_RELEASED_HELD,  /* the pool freed held blocks to retry an allocation */
    HST_LOG_UNSUPPORTED,         /* the device lacks a feature */
    HST_LOG_DTYPE,               /* an operation was asked of a dtype it does not support */
    HST_LOG_SHAPE_MISMATCH,      /* shapes, dtypes or backends of arguments disagree */
    HST_LOG_MISALIGNED,          /* a sub-buffer origin is not aligned */
    HST_LOG_CHOICE_CHANGED,      /* the implementation chosen for a signature changed */
    HST_LOG_CHOICE_FAILED,       /* an implementation failed: skipped for that signature */
    HST_LOG_CHOICE_SPLIT,        /* out of memory: the call was split into parts */
    HST_LOG_CHOICE_FORCED,       /* an operation always runs one implementation (desc, env) */
    HST_LOG_CHOICE_FILE_IGNORED, /* the timings file is corrupt or foreign: ignored (once) */
    HST_LOG_NON_FINITE,          /* input data holds NaN or Inf; the message says where */
    HST_LOG_NOT_BUILT_IN,        /* an opt-in part was called but not compiled (FFTs: HST_FFT) */
    HST_LOG_FFT_LIBRARY,         /* FFTW or VkFFT refused a plan; the message has its code */
    HST_LOG_RANK_FAILED,         /* another MPI rank failed: this rank returns its code too */
    HST_LOG_ITEM_COUNT
} hst_log_item;

/* Called with the level, the item id and a NUL-terminated message (valid during the call). */
typedef void (*hst_log_fn)(void *user, hst_log_level level, hst_log_item item,
                           const char *message);
/* "BAD_ARGUMENT", ...; never NULL. Thread-safe. */
HST_API const char *hst_log_item_name(hst_log_item item);

/* Seconds on a monotonic clock (CLOCK_MONOTONIC where the build exposes it, else wall time
   from gettimeofday; on Windows clock()), for timing work. Thread-safe. */
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
   the host device alone. Errors: HST_ERROR_INVALID_ARGUMENT (count NULL). Thread-safe. */
HST_API hst_result hst_devices(hst_device_info *out, size_t capacity, size_t *count);

/* Resolves a selector to one device. selector NULL or "" means $HST_DEVICE, else "auto".
   auto: a discrete GPU, else an integrated GPU, else an accelerator, else the OpenCL CPU device,
         else the host device (ties: the most global memory, then list order);
   gpu, cpu, host: the first device of that kind in the same preference order;
   "P:D": platform P, device D; anything else: a case-insensitive substring of the device name,
   the vendor or the platform name ("nvidia", "h200", "portable").
   why (may be NULL) receives a one-line reason. Errors: HST_ERROR_NO_DEVICE (nothing matched;
   the reason says what was available), HST_ERROR_INVALID_ARGUMENT (out NULL). Thread-safe. */
HST_API hst_result hst_device_select(const char *selector, hst_device_info *out,
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
typedef struct hst_array hst_array;

#ifndef HST_NO_OPENCL
typedef cl_event hst_event;
#else
typedef struct hst__event *hst_event;   /* always NULL: host work completes before returning */
#endif

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

/* Creates a backend on the selected device. Errors: HST_ERROR_NO_DEVICE, OpenCL codes from
   context/queue creation, HST_ERROR_OUT_OF_HOST_MEMORY, HST_ERROR_INVALID_ARGUMENT (out NULL,
   only one of wrap_context/wrap_queue set, allocator half-set). Thread-safe. */
HST_API hst_result hst_backend_create(const hst_backend_desc *desc, hst_backend **out);
/* Releases everything the backend created (programs, pool, queues); NULL is ignored
   (HST_SUCCESS). Arrays, buffers and kernels must be destroyed first. It saves the choice
   timings (>>choice). While an object still holds the backend (hst_backend_hold: a stream, a
   live eSRRF session) it frees nothing and returns HST_ERROR_INVALID_ARGUMENT, the log
   (BAD_ARGUMENT) naming the holder: destroy that object first, then call this again.
   Thread safety: per backend. */
HST_API hst_result hst_backend_destroy(hst_backend *be);
/* Holds: objects that keep using a backend across calls (stream.h's streams, esrrf.h's live
   sessions) hold it from their creation to their destruction, so that destroying the backend
   under them is refused (above) instead of freeing what they use. holder is the object (its
   address is the key; one hold per holder), what its kind for the log ("hst_stream"; a string
   that outlives the hold). Errors of hold: HST_ERROR_INVALID_ARGUMENT (be, holder or what NULL;
   holder already holding it), HST_ERROR_OUT_OF_HOST_MEMORY. Releasing a holder that holds
   nothing does nothing. hst_backend_holds: the number of holds (0 for NULL).
   Thread safety: per backend. */
HST_API hst_result hst_backend_hold(hst_backend *be, const void *holder, const char *what);
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
   NULL (logged as HST_LOG_OUT_OF_HOST_MEMORY) when it fails. Free with hst_backend_free.
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
   returns and *out is NULL. Nothing waits unless the call says "blocking". */
/* Another in-order queue on the backend's device: commands on different queues may overlap
   (copy engines and compute), ordered only through events. Errors: OpenCL codes.
   Thread safety: per backend. */
HST_API hst_result hst_queue_create(hst_backend *be, hst_queue **out);
/* Thread safety: per backend. */
HST_API void hst_queue_destroy(hst_queue *q);   /* waits for its commands; NULL ignored */
/* clFlush and clFinish (no-ops on the host device). Thread safety: while alive. */
HST_API hst_result hst_queue_flush(hst_queue *q);
HST_API hst_result hst_queue_finish(hst_queue *q);
/* A barrier (clEnqueueBarrierWithWaitList): the commands enqueued on q after it start only
   once the events of `wait` and every command enqueued on q before it have completed; *out
   (may be NULL) completes then. How work on one queue waits for another queue's without the
   host waiting (stream.h orders its compute queue and the backend's default queue so). On the
   host device it waits for the events and returns with *out NULL. Errors:
   HST_ERROR_INVALID_ARGUMENT (q NULL, wait NULL with num_wait > 0), OpenCL codes.
   Thread safety: per backend. */
HST_API hst_result hst_queue_barrier(hst_queue *q, size_t num_wait, const hst_event *wait,
                                     hst_event *out);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_command_queue hst_queue_cl(const hst_queue *q);  /* NULL on host */
#endif
/* Blocks until the events complete; NULL entries count as complete. Thread-safe (also
   hst_event_release: release each reference once). */
HST_API hst_result hst_event_wait(size_t num, const hst_event *events);
HST_API void hst_event_release(hst_event e);    /* NULL ignored */

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
HST_API hst_result hst_buffer_create(hst_backend *be, size_t bytes, unsigned flags,
                                     hst_buffer **out);
/* A view of [origin, origin+bytes) of parent (which must not itself be a sub-buffer). origin must
   be a multiple of the device's mem_base_addr_align_bytes (HST_ERROR_ALIGNMENT otherwise);
   the range must lie inside the parent (HST_ERROR_INVALID_ARGUMENT).
   Thread safety: per backend. */
HST_API hst_result hst_buffer_create_sub(hst_buffer *parent, size_t origin, size_t bytes,
                                         hst_buffer **out);
/* Pinned (page-locked) host memory: an ALLOC_HOST_PTR buffer mapped once for its lifetime, so
   hst_buffer_host_ptr gives host memory the DMA engines read at full speed. It is both a host
   array (use its pointer with hst_write/hst_read on other buffers) and a device buffer. On the
   host device: plain host memory. Errors as hst_buffer_create. Thread safety: per backend. */
HST_API hst_result hst_pinned_create(hst_backend *be, size_t bytes, hst_buffer **out);
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
HST_API hst_result hst_buffer_wrap(hst_backend *be, void *ptr, size_t bytes, unsigned flags,
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
#endif

/* Fills [offset, offset+bytes) with a repeated pattern of pattern_bytes (1, 2, 4, ..., 128);
   offset and bytes must be multiples of pattern_bytes. The pattern is copied before return.
   Thread safety: per backend. */
HST_API hst_result hst_fill(hst_queue *q, hst_buffer *buf, const void *pattern,
                            size_t pattern_bytes, size_t offset, size_t bytes,
                            size_t num_wait, const hst_event *wait, hst_event *out);
/* Linear copies. A non-blocking write reads `src` until its event completes (keep it alive);
   a non-blocking read fills `dst` when its event completes. Ranges are bounds-checked.
   Thread safety: per backend. */
HST_API hst_result hst_write(hst_queue *q, hst_buffer *dst, size_t dst_offset, const void *src,
                             size_t bytes, int blocking,
                             size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_read(hst_queue *q, const hst_buffer *src, size_t src_offset, void *dst,
                            size_t bytes, int blocking,
                            size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_copy(hst_queue *q, hst_buffer *dst, size_t dst_offset,
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
HST_API hst_result hst_write_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                  const void *src, const hst_rect *src_rect,
                                  const size_t region[3], int blocking,
                                  size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_read_rect(hst_queue *q, const hst_buffer *src, const hst_rect *src_rect,
                                 void *dst, const hst_rect *dst_rect,
                                 const size_t region[3], int blocking,
                                 size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_copy_rect(hst_queue *q, hst_buffer *dst, const hst_rect *dst_rect,
                                 const hst_buffer *src, const hst_rect *src_rect,
                                 const size_t region[3],
                                 size_t num_wait, const hst_event *wait, hst_event *out);

/* Maps [offset, offset+bytes) for host access (HST_MAP_* flags); *ptr is valid once the map
   completes (blocking, or after *out). Unmap with the same pointer. Pinned buffers are already
   mapped: use hst_buffer_host_ptr instead. Thread safety: per backend. */
HST_API hst_result hst_map(hst_queue *q, hst_buffer *buf, unsigned map_flags, size_t offset,
                           size_t bytes, int blocking, void **ptr,
                           size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_unmap(hst_queue *q, hst_buffer *buf, void *ptr,
                             size_t num_wait, const hst_event *wait, hst_event *out);
/* Moves buffers to the queue's device (or to the host with HST_MIGRATE_TO_HOST).
   Thread safety: per backend. */
HST_API hst_result hst_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers,
                               unsigned migrate_flags,
                               size_t num_wait, const hst_event *wait, hst_event *out);

/* Shared virtual memory (OpenCL 2.0), where the device reports it (hst_device_info.svm); on the
   host device plain host memory. fine = 1 asks for fine-grain (HST_ERROR_UNSUPPORTED if absent).
   Coarse-grain SVM must be mapped before host access; hst_svm_map blocks until mapped. SVM is
   checked against the device's largest allocation and the desc's limit, but not charged to it.
   Thread safety: per backend. */
HST_API hst_result hst_svm_alloc(hst_backend *be, size_t bytes, int fine, void **out);
HST_API void hst_svm_free(hst_backend *be, void *ptr);
HST_API hst_result hst_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes,
                               size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_svm_unmap(hst_queue *q, void *ptr,
                                 size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes,
                                int blocking, size_t num_wait, const hst_event *wait,
                                hst_event *out);
HST_API hst_result hst_svm_fill(hst_queue *q, void *ptr, const void *pattern,
                                size_t pattern_bytes, size_t bytes,
                                size_t num_wait, const hst_event *wait, hst_event *out);

/* ---------------------------------------------------------------------------------------------
   Images (2-D and 3-D), as PyOpenCL's image_from_array: an array of shape (height, width) or
   (depth, height, width) in C order, `channels` interleaved values per pixel, maps to
     dtype u8 -> CL_UNSIGNED_INT8 (CL_UNORM_INT8 when normalized), i32 -> CL_SIGNED_INT32,
     f32 -> CL_FLOAT, c64 -> CL_FLOAT with 2 channels per element;
     channels 1 -> CL_R, 2 -> CL_RG, 4 -> CL_RGBA. f64 has no image format (HST_ERROR_DTYPE).
   Origins and regions are in pixels {x, y, z} (z = 0 / 1 for 2-D). */
enum { HST_ADDRESS_NONE = 0, HST_ADDRESS_CLAMP_TO_EDGE, HST_ADDRESS_CLAMP, HST_ADDRESS_REPEAT,
       HST_ADDRESS_MIRRORED_REPEAT };
enum { HST_FILTER_NEAREST = 0, HST_FILTER_LINEAR };

/* host may be NULL (contents undefined). Errors: HST_ERROR_DTYPE, HST_ERROR_INVALID_ARGUMENT
   (ndim not 2/3, zero extent, channels not 1/2/4), HST_ERROR_UNSUPPORTED (no image support or
   the format is not supported by the device), HST_ERROR_OVERFLOW, OpenCL codes.
   Thread safety: per backend. */
HST_API hst_result hst_image_from_array(hst_backend *be, hst_dtype dtype, unsigned channels,
                                        int normalized, unsigned ndim, const size_t *shape,
                                        const void *host, hst_image **out);
/* Thread safety: per backend. */
HST_API void hst_image_destroy(hst_image *img);
/* Bytes per pixel (element size times channels; c64 counts as two float channels).
   Thread safety: while alive. */
HST_API size_t hst_image_pixel_bytes(const hst_image *img);
/* Host arrays are tight unless pitches (bytes) are given (0 = tight).
   Thread safety: per backend. */
HST_API hst_result hst_image_write(hst_queue *q, hst_image *img, const size_t origin[3],
                                   const size_t region[3], const void *src, size_t row_pitch,
                                   size_t slice_pitch, int blocking,
                                   size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_image_read(hst_queue *q, const hst_image *img, const size_t origin[3],
                                  const size_t region[3], void *dst, size_t row_pitch,
                                  size_t slice_pitch, int blocking,
                                  size_t num_wait, const hst_event *wait, hst_event *out);
HST_API hst_result hst_image_copy(hst_queue *q, hst_image *dst, const size_t dst_origin[3],
                                  const hst_image *src, const size_t src_origin[3],
                                  const size_t region[3],
                                  size_t num_wait, const hst_event *wait, hst_event *out);
/* color: one pixel as 4 floats (f32, c64, normalized u8), 4 int32 (i32) or 4 uint32 (u8).
   Thread safety: per backend. */
HST_API hst_result hst_image_fill(hst_queue *q, hst_image *img, const void *color,
                                  const size_t origin[3], const size_t region[3],
                                  size_t num_wait, const hst_event *wait, hst_event *out);
/* Blocking map; *row_pitch, *slice_pitch (bytes) describe the mapped layout.
   Thread safety: per backend. */
HST_API hst_result hst_image_map(hst_queue *q, hst_image *img, unsigned map_flags,
                                 const size_t origin[3], const size_t region[3],
                                 size_t *row_pitch, size_t *slice_pitch, void **ptr);
HST_API hst_result hst_image_unmap(hst_queue *q, hst_image *img, void *ptr,
                                   size_t num_wait, const hst_event *wait, hst_event *out);
/* Samplers (OpenCL samplers; on the host device a record of the settings).
   Thread safety: per backend. */
HST_API hst_result hst_sampler_create(hst_backend *be, int normalized_coords,
                                      unsigned address_mode, unsigned filter_mode,
                                      hst_sampler **out);
HST_API void hst_sampler_destroy(hst_sampler *s);
#ifndef HST_NO_OPENCL
/* Thread safety: while alive. */
HST_API cl_mem hst_image_cl(const hst_image *img);
HST_API cl_sampler hst_sampler_cl(const hst_sampler *s);
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
HST_API hst_result hst_pool_create(hst_backend *be, hst_pool **out);
/* Frees held blocks; blocks still active are reported (warning) and detached: they become plain
   buffers that hst_buffer_destroy frees (before the backend is destroyed).
   Thread safety: per backend. */
HST_API void hst_pool_destroy(hst_pool *pool);
/* A block of at least `bytes`; hst_buffer_bytes reports `bytes`, the bin holds
   hst_pool_bin_bytes(bytes). Free it with hst_buffer_destroy. Thread safety: per backend. */
HST_API hst_result hst_pool_alloc(hst_pool *pool, size_t bytes, hst_buffer **out);
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
   build log reaches the logger as HST_LOG_BUILD_FAILED. Thread safety: per backend. */
HST_API hst_result hst_program_build(hst_backend *be, size_t count, const char *const *sources,
                                     const char *options, hst_program **out);
/* Drops the caller's reference; the cache keeps the program until the backend is destroyed.
   Thread safety: per backend. */
HST_API void hst_program_release(hst_program *prog);
/* Thread safety: per backend. */
HST_API hst_result hst_kernel_create(hst_program *prog, const char *name, hst_kernel **out);
HST_API void hst_kernel_destroy(hst_kernel *k);
/* Kernel arguments (clSetKernelArg). Thread safety: per object (the kernel). */
HST_API hst_result hst_kernel_set_arg(hst_kernel *k, unsigned index, size_t bytes,
                                      const void *value);
HST_API hst_result hst_kernel_set_buffer(hst_kernel *k, unsigned index, const hst_buffer *buf);
HST_API hst_result hst_kernel_set_image(hst_kernel *k, unsigned index, const hst_image *img);
HST_API hst_result hst_kernel_set_sampler(hst_kernel *k, unsigned index, const hst_sampler *s);
HST_API hst_result hst_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr);
/* Launches over `dims` (1..3) dimensions. global is rounded UP to a multiple of local in each
   dimension (kernels bound-check); local NULL picks a work-group the kernel allows (1-D: up to
   256; 2-D: 16 x 16; 3-D: 8 x 8 x 4, shrunk to the kernel's limit). Errors:
   HST_ERROR_INVALID_ARGUMENT (dims, zero sizes), HST_ERROR_OVERFLOW, OpenCL codes.
   Thread safety: per backend. */
HST_API hst_result hst_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *global,
                              const size_t *local,
                              size_t num_wait, const hst_event *wait, hst_event *out);

/* ---------------------------------------------------------------------------------------------
   Array vocabulary (PyEPRI's backend idea in C): typed arrays of 1..4 dimensions, C order, on any
   device, with identical semantics everywhere. Operations run in order on the backend's default
   queue; read, write and reductions block. Which operations each dtype supports:
     fill/zeros/ones/copy/cast/sum: all dtypes;  min/max: u8 i32 f32 f64;
     scale/axpy/dot/sqnorm/random: f32 f64 c64;  math (abs sqrt exp sin cos pow): f32 f64.
   Exact on every device, bit for bit: fill, copy, cast, scale, axpy, abs, sqrt (where the device
   rounds sqrt correctly, see hst_device_info), sum/dot/sqnorm/min/max (the reduction order is
   fixed by kernels.h, not by the device), uniform random; a NaN that an operation creates (sqrt
   of a negative number) is a NaN everywhere, with the device's payload bits. Within OpenCL's ulp
   bounds of the host
   libm: exp (3 ulp), sin and cos (4 ulp), pow (16 ulp), normal random (computed in double,
   then rounded). Errors: HST_ERROR_DTYPE (op not defined for the dtype; f64 on a device without
   fp64), HST_ERROR_SHAPE (operands differ in shape, dtype or backend), plus those of the
   memory layer. */
#define HST_MAX_DIMS 4
/* Scalars for the operations below. Thread-safe. */
HST_API hst_scalar hst_real(double re);
HST_API hst_scalar hst_complex(double re, double im);
HST_API hst_scalar hst_int(int64_t i);

/* shape: ndim extents, C order (shape[0] slowest), each > 0. Memory from the backend's pool.
   Thread safety: per backend (also hst_array_destroy). */
HST_API hst_result hst_array_create(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                    const size_t *shape, hst_array **out);
/* A view: an array over bytes [offset_bytes, offset_bytes + hst_array_bytes) of buf (shape,
   C order, and dtype as hst_array_create) that does not own them. Every array function takes
   views as it takes arrays, hst_array_fft included, and reads and writes buf's memory there;
   views and buffer see each other's writes in queue order. hst_array_destroy releases the view
   only: it never frees buf, which must outlive it. buf may be any buffer of its backend (made,
   pooled, pinned or wrapped, another array's or view's). A view is an OpenCL sub-buffer of
   buf's underlying allocation (on the host device, a pointer into buf's memory), so where the
   array functions (and VkFFT, which takes no buffer offset) see the view's first element, the
   device sees a buffer start: offset_bytes must be a multiple of the element size on every
   device and, on an OpenCL device, also of CL_DEVICE_MEM_BASE_ADDR_ALIGN
   (hst_device_info.mem_base_addr_align_bytes: 128 bytes on PoCL, up to 4096 on GPUs), which
   OpenCL requires of a sub-buffer's origin; the host device needs only the element size.
   (Views carrying an element offset that every kernel honoured would lift the OpenCL rule at
   the cost of an argument in every vocabulary kernel; the rule costs nothing to a caller whose
   views start at slices of aligned sizes, and is checked here rather than failing later.)
   Errors: HST_ERROR_INVALID_ARGUMENT (buf, shape or out NULL; dtype not an hst_dtype; ndim not
   1..4; a zero extent; offset_bytes not a multiple of the element size: the log names the
   argument), HST_ERROR_SHAPE (logged as HST_LOG_SHAPE_MISMATCH: the view's bytes end beyond
   buf's), HST_ERROR_OVERFLOW (shape's product or the end offset), HST_ERROR_ALIGNMENT (logged
   as HST_LOG_MISALIGNED: an OpenCL device's base address alignment), HST_ERROR_DTYPE (f64 on a
   device without fp64), HST_ERROR_OUT_OF_HOST_MEMORY, OpenCL codes (clCreateSubBuffer).
   Thread safety: per backend (buf's; also hst_array_destroy of a view). */
HST_API hst_result hst_array_view(hst_buffer *buf, size_t offset_bytes, hst_dtype dtype,
                                  unsigned ndim, const size_t *shape, hst_array **out);
HST_API void hst_array_destroy(hst_array *a);
/* Thread safety: while alive. */
HST_API hst_dtype hst_array_dtype(const hst_array *a);
HST_API unsigned hst_array_ndim(const hst_array *a);
HST_API const size_t *hst_array_shape(const hst_array *a);
HST_API size_t hst_array_count(const hst_array *a);   /* elements */
HST_API size_t hst_array_bytes(const hst_array *a);   /* count * dtype size */
HST_API hst_buffer *hst_array_buffer(const hst_array *a);
/* Blocking copies of the whole array; bytes must equal hst_array_bytes.
   Thread safety: per backend. */
HST_API hst_result hst_array_write(hst_array *a, const void *src, size_t bytes);
HST_API hst_result hst_array_read(const hst_array *a, void *dst, size_t bytes);
/* value: integers take value.i64 saturated to the dtype; floats value.re (c64: re, im).
   Thread safety: per backend (also zeros, ones, copy). */
HST_API hst_result hst_array_fill(hst_array *a, hst_scalar value);
HST_API hst_result hst_array_zeros(hst_array *a);
HST_API hst_result hst_array_ones(hst_array *a);
HST_API hst_result hst_array_copy(hst_array *dst, const hst_array *src);  /* same dtype, shape */
/* Converts with kernels.h's rules (float->int truncates and saturates, NaN -> 0; c64->real
   keeps the real part). Same shape; dtypes may differ. Thread safety: per backend (also
   scale, axpy). */
HST_API hst_result hst_array_cast(hst_array *dst, const hst_array *src);
HST_API hst_result hst_array_scale(hst_array *x, hst_scalar alpha);       /* x = alpha x */
HST_API hst_result hst_array_axpy(hst_array *y, hst_scalar alpha, const hst_array *x);
/* dst = op(src) element-wise (dst may be src); p is the exponent of HST_MATH_POW.
   Thread safety: per backend. */
HST_API hst_result hst_array_math(hst_array *dst, const hst_array *src, hst_math_op op,
                                  double p);
/* Reductions, blocking. sum: integers exact in int64 (out->i64); dot: sum x*y, conj(x)*y for
   c64; sqnorm: sum |x|^2; min/max ignore NaN (all NaN gives NaN).
   Thread safety: per backend. */
HST_API hst_result hst_array_sum(const hst_array *x, hst_scalar *out);
HST_API hst_result hst_array_dot(const hst_array *x, const hst_array *y, hst_scalar *out);
HST_API hst_result hst_array_sqnorm(const hst_array *x, hst_scalar *out);
HST_API hst_result hst_array_min(const hst_array *x, hst_scalar *out);
HST_API hst_result hst_array_max(const hst_array *x, hst_scalar *out);
/* Counter-based random numbers (Philox4x32-10; Salmon et al., SC'11): element i gets the
   numbers of counter offset + i under key seed, so any device, block split or order gives the
   same values. uniform in [0, 1); normal: mean 0, variance 1 (c64: both parts).
   Thread safety: per backend. */
HST_API hst_result hst_array_random(hst_array *x, hst_random_dist dist, uint64_t seed,
                                    uint64_t offset);

/* ---------------------------------------------------------------------------------------------
   More vocabulary (>>vocabx): the rest of what PyEPRI's scripts call (README: "PyEPRI's
   vocabulary"), with NumPy's meaning and defaults, identical on every device (kernels.h's second
   vocabulary program; its host twins on the host device). Exact (bitwise equal everywhere):
   every copy-like call, where, clip, the binary operations (division needs a device that rounds
   division correctly, as the first vocabulary's sqrt), the axis operations, the ramps on devices
   with fp64 (else within float rounding). ABS and ANGLE of complex: OpenCL's 4 and 6 ulp.
   Axes are numbered from 0 (slowest); shapes C order. Errors: HST_ERROR_INVALID_ARGUMENT (NULL,
   axis out of range, bad op/part, count 0), HST_ERROR_SHAPE (shapes, dtypes or backends
   disagree with what the call needs), HST_ERROR_DTYPE (the op is not defined for the dtype),
   memory errors. Thread safety: per backend (reshape: per object). */

/* numpy.arange(start, stop, step, dtype): ceil((stop - start) / step) elements start + i step
   (a 1-D array; at least one element, else HST_ERROR_INVALID_ARGUMENT). u8 i32 f32 f64. */
HST_API hst_result hst_array_arange(hst_backend *be, hst_dtype dtype, double start, double stop,
                                    double step, hst_array **out);
/* numpy.linspace(start, stop, num, endpoint, dtype): start + i step with step = (stop - start)
   / (num - endpoint), the last element exactly stop when endpoint. num >= 1. u8 i32 f32 f64. */
HST_API hst_result hst_array_linspace(hst_backend *be, hst_dtype dtype, double start, double stop,
                                      size_t num, int endpoint, hst_array **out);
/* numpy.fft.fftfreq(n, d) (rfft = 0; n elements: 0, 1, .., ceil(n/2) - 1, -floor(n/2), .., -1,
   over d n) and rfftfreq (rfft = 1; n / 2 + 1 elements 0 .. n/2 over d n), in cycles per unit
   of d. f32 or f64. */
HST_API hst_result hst_array_fftfreq(hst_backend *be, hst_dtype dtype, size_t n, double d,
                                     int rfft, hst_array **out);
/* Creates an array and copies `data` (hst_array_bytes bytes, C order) into it: PyEPRI's
   from_numpy. (to_numpy is hst_array_read.) */
HST_API hst_result hst_array_from_host(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                       const size_t *shape, const void *data, hst_array **out);
/* Gives a new shape with the same element count to the same memory (numpy.reshape of a
   C-contiguous array: no copy). */
HST_API hst_result hst_array_reshape(hst_array *a, unsigned ndim, const size_t *shape);
/* dst = src.transpose(perm): dst.shape[i] = src.shape[perm[i]]; perm NULL reverses the axes
   (NumPy's default, PyEPRI's transpose). dst must not be src. */
HST_API hst_result hst_array_transpose(hst_array *dst, const hst_array *src,
                                       const unsigned *perm);
/* numpy.fft.fftshift (inverse = 0) / ifftshift (inverse = 1) over the axes whose bit is set in
   axes_mask (bit a = axis a; ~0u: all axes, NumPy's default). Same shape; dst must not be src. */
HST_API hst_result hst_array_fftshift(hst_array *dst, const hst_array *src, unsigned axes_mask,
                                      int inverse);
/* numpy.concatenate(srcs, axis): srcs agree in dtype, ndim and every extent but axis's; dst's
   axis extent is their sum. numpy.stack(srcs, axis): srcs of one shape; dst has one more axis,
   at `axis`, of extent count. */
HST_API hst_result hst_array_concatenate(hst_array *dst, hst_array *const *srcs, size_t count,
                                         unsigned axis);
HST_API hst_result hst_array_stack(hst_array *dst, hst_array *const *srcs, size_t count,
                                   unsigned axis);
/* numpy.meshgrid(*vecs, indexing): count 1-D arrays (count <= 4) of lengths n_k; each dst[k]
   has shape (n_0, n_1, ...) with indexing ij (ij = 1) or (n_1, n_0, n_2, ...) with xy
   (ij = 0, NumPy's default) and holds vecs[k] along the axis of n_k. */
HST_API hst_result hst_array_meshgrid(hst_array *const *dst, hst_array *const *vecs,
                                      size_t count, int ij);
/* dst = a op b, broadcasting as NumPy does: shapes are aligned at the last axis; each extent
   of a and b equals dst's or is 1 (or the axis is missing); dst's shape is the broadcast shape
   (dst may be a or b when it has their shape). Ops per dtype: kernels.h's hst_binary_op. */
HST_API hst_result hst_array_binary(hst_array *dst, const hst_array *a, const hst_array *b,
                                    hst_binary_op op);
/* dst = a op s (scalar_first = 0) or s op a (1), s rounded to a's dtype first. */
HST_API hst_result hst_array_binary_scalar(hst_array *dst, const hst_array *a, hst_scalar s,
                                           hst_binary_op op, int scalar_first);
/* numpy.clip: dst = minimum(maximum(src, lo), hi) (NaN stays NaN). i32 f32 f64. */
HST_API hst_result hst_array_clip(hst_array *dst, const hst_array *src, double lo, double hi);
/* numpy.where(cond, a, b) with cond a u8 array (nonzero = true); all four of one shape. */
HST_API hst_result hst_array_where(hst_array *dst, const hst_array *cond, const hst_array *a,
                                   const hst_array *b);
/* Along `axis`: SUM, MAX, MIN (dst of src's dtype), ARGMAX, ARGMIN (dst i32; first index of
   the extreme, or of the first NaN), with dst's shape src's without axis ((1) for a 1-D src);
   CUMSUM (numpy.cumsum(axis): dst like src). Order and NaN rules: kernels.h's hst_k_axis. */
HST_API hst_result hst_array_reduce_axis(hst_array *dst, const hst_array *src, unsigned axis,
                                         hst_axis_op op);
/* numpy.real / imag / abs / angle of a c64 src into an f32 dst of its shape; CONJ: c64 dst. */
HST_API hst_result hst_array_complex_part(hst_array *dst, const hst_array *src,
                                          hst_complex_part part);

/* ---------------------------------------------------------------------------------------------
   FFTs (>>fft): numpy.fft's semantics on every device. Opt-in: compile the implementation TU
   with HST_FFT defined (link -lfftw3f; it needs FFTW 3's fftw3.h, and, unless HST_NO_OPENCL,
   VkFFT's vkFFT.h: Debian libfftw3-dev and libvkfft-dev). Without HST_FFT every FFT call returns
   HST_ERROR_NOT_BUILT_IN and logs HST_LOG_NOT_BUILT_IN; the rest of the library is unchanged.
   The host device runs FFTW (Frigo & Johnson, "The design and implementation of FFTW3",
   Proc. IEEE 93(2), 2005); OpenCL devices run VkFFT's OpenCL backend (Tolmachev, "VkFFT - a
   performant, cross-platform and open-source GPU FFT library", IEEE Access 11, 2023).

   hst_array_fft transforms the LAST `axes` axes (1, 2 or 3; NumPy's fft/fft2/fftn with the
   default axes) of src into dst, batched over the leading axes (C order, each batch contiguous).
   The kind follows the dtypes:
     c64 -> c64   c2c, forward or inverse; dst may be src (in place: also two views of the
                  same bytes, see hst_array_view); same shapes.
     f32 -> c64   r2c (numpy.fft.rfftn), forward only: dst's last extent is src's n / 2 + 1.
     c64 -> f32   c2r (numpy.fft.irfftn), inverse only: dst's shape gives the real lengths (n,
                  NumPy's `s`), src's last extent must be n / 2 + 1; src is not modified.
                  src must be the spectrum of a real array (Hermitian symmetric, as r2c makes
                  it); for other input the devices' results may differ.
   Sign: forward X[k] = sum_j x[j] exp(-2 pi i j k / n) per axis, inverse with +. norm is
   NumPy's: with N the product of the transformed (real-space) extents, BACKWARD scales the
   inverse by 1/N, ORTHO both by 1/sqrt(N), FORWARD the forward by 1/N. f64/c128 transforms are
   not offered: the vocabulary has no complex double dtype yet (HST_ERROR_DTYPE).
   Plans are made on first use per (kind, direction, lengths, batch, in-place) and kept by the
   backend until it is destroyed (VkFFT compiles its kernels then: the first call of a shape
   is slow on an OpenCL device, later ones are not). Runs in order on the backend's queue; does
   not block on OpenCL devices.
   Views (hst_array_view) are transformed where they lie, on every device: FFTW gets their
   pointers, VkFFT their sub-buffers.
   Errors: HST_ERROR_NOT_BUILT_IN; HST_ERROR_INVALID_ARGUMENT (NULL, axes not 1..3 or > ndim,
   a direction the kind lacks, src and dst views of overlapping but not the same bytes); HST_ERROR_DTYPE (a dtype pair other than the three above);
   HST_ERROR_SHAPE (shapes or backends disagree); HST_ERROR_UNSUPPORTED with
   HST_LOG_FFT_LIBRARY (FFTW or VkFFT refused the plan); memory errors.
   Thread safety: per backend. */
typedef enum hst_fft_norm {
    HST_FFT_NORM_BACKWARD = 0,   /* NumPy's default ("backward") */
    HST_FFT_NORM_ORTHO = 1,
    HST_FFT_NORM_FORWARD = 2
} hst_fft_norm;
#define HST_FFT_MAX_AXES 3
HST_API hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                 int inverse, hst_fft_norm norm);
/* 1 when the implementation was compiled with HST_FFT. Thread-safe. */
HST_API int hst_fft_built_in(void);
/* Plans the backend holds (0 without HST_FFT). Thread safety: per backend. */
HST_API size_t hst_fft_plan_count(const hst_backend *be);

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
        ("op:impl,op2:impl2"), else the op desc's `force`; a forced failure is returned as is;
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
   its reason (HST_LOG_CHOICE_FAILED), and the call goes on with the next choice: it fails only
   when every implementation has. An out-of-memory result (hst_result_is_out_of_memory) with
   op.split set is run once more, split into parts computed from the implementation's device
   (largest allocation, free-memory estimate; HST_LOG_CHOICE_SPLIT), and that part count is kept
   for the signature. There is no retry loop: a split that fails is a failure.

   Timings persist in one file per user: <cache dir>/choice-u<uid>.txt (the backend's cache
   directory, see hst_backend_desc.cache_dir; none when it is off), keyed by operation,
   implementation, device identity (name | driver version) and signature buckets. It is read
   when the first operation registers and written by hst_choice_save, by hst_backend_destroy and
   at most every save_interval_s (never per call): under an advisory lock (fcntl; a lock
   directory elsewhere), merged with what other processes wrote meanwhile, into a temporary file
   renamed over the old one. A corrupt or foreign file is ignored with one warning
   (HST_LOG_CHOICE_FILE_IGNORED) and replaced at the next save.

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
    const char *name;              /* unique in the op; no tab, newline or comma ("host",
                                      "opencl", "fused"); copied */
    hst_choice_run_fn run;         /* NULL in every implementation: a timings-only operation
                                      (the caller runs the work, hst_choice_record feeds the
                                      timings, hst_choice_stats reads the estimates;
                                      hst_choice_run and _benchmark answer UNSUPPORTED) */
    void *user;                    /* passed to run */
    hst_backend *backend;          /* the device it runs on (identity, split limits);
                                      NULL: the backend the op is registered with */
    const char *device_id;         /* overrides the identity "name | driver version"; copied */
    int reference;                 /* the host twin that hst_choice_benchmark compares with
                                      (none marked: the first implementation) */
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
    const char *force;             /* always run this implementation (by name); NULL: choose */
    const hst_choice_default *defaults;   /* copied */
    size_t num_defaults;
    hst_choice_split_fn split;     /* out of memory: run in parts; NULL: it is a failure */
    uint64_t (*work_bytes)(const void *args);  /* device bytes the whole call needs; NULL:
                                      unknown (the split gets 2 parts and the limits) */
    /* Benchmark cross-check: the call's output as doubles, size-query-then-fill (dst NULL:
       only *count); NULL: outputs are not compared. */
    hst_result (*output)(void *args, double *dst, size_t capacity, size_t *count);
    int no_warmup;                 /* 1: record first runs too */
    int no_explore;                /* 1: never run an implementation just to measure it */
    int revisit_every;             /* 0: HST_CHOICE_REVISIT_EVERY; < 0: never revisit */
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
   model, "stream_copy"), esrrf.h's first run or live session ("esrrf"), and the first
   hst_halo_pack_host_choose / _unpack_host_choose of a plan on this backend. Without it the
   defaults apply.
   Thread safety: per backend. */
HST_API hst_result hst_choice_configure(hst_backend *be, const hst_choice_desc *desc);
/* Registers an operation (reading the timings file on first use). Errors:
   HST_ERROR_INVALID_ARGUMENT (names missing, repeated or with forbidden characters, no or too
   many implementations, some runs NULL and others not, force or a default naming no
   implementation), HST_ERROR_OUT_OF_HOST_MEMORY.
   Thread safety: per backend (also hst_choice_find). */
HST_API hst_result hst_choice_register(hst_backend *be, const hst_choice_op_desc *desc,
                                       hst_choice_op **out);
HST_API hst_choice_op *hst_choice_find(hst_backend *be, const char *name);  /* NULL: none */

typedef struct hst_choice_outcome {
    unsigned impl;                 /* index (registration order) of the one that produced it */
    const char *name;              /* its name (valid while the op lives) */
    double seconds;                /* its time for this call (with splitting) */
    size_t parts;                  /* 1, or the parts an out-of-memory split used */
    int explored;                  /* run to measure it (no timing for this signature yet) */
    int forced;                    /* per call, $HST_FORCE or the desc chose it */
    unsigned failures;             /* implementations that failed during this call */
} hst_choice_outcome;

/* Runs the operation on args (see above). sig: sig_len (0..HST_CHOICE_MAX_SIG) integers.
   force: an implementation's name, or NULL. outcome may be NULL. Errors: the last failing
   implementation's result; HST_ERROR_INVALID_ARGUMENT (op NULL, sig_len, force unknown);
   HST_ERROR_UNSUPPORTED (a timings-only operation).
   Thread safety: per backend, on the op's backend and on every backend its implementations
   use (the implementations run on the calling thread). */
HST_API hst_result hst_choice_run(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                  void *args, const char *force, hst_choice_outcome *outcome);
/* The index of the implementation hst_choice_run would run next for sig (revisits aside),
   without running or recording anything. Thread safety: per backend. */
HST_API hst_result hst_choice_pick(const hst_choice_op *op, const int64_t *sig,
                                   unsigned sig_len, unsigned *impl);
/* Records a time measured elsewhere (the stream measures its devices' blocks) as a run; it is
   saved with the others (hst_choice_save, hst_backend_destroy, the next interval save of
   hst_choice_run). Thread safety: per backend. */
HST_API hst_result hst_choice_record(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                     const char *impl, double seconds);

enum { HST_CHOICE_NONE = 0, HST_CHOICE_EXACT, HST_CHOICE_DEFAULT, HST_CHOICE_NEAREST };
typedef struct hst_choice_stat {
    const char *impl, *device;
    unsigned samples;              /* timings held for this signature */
    double seconds;                /* lower median of them; else the nearest shipped default;
                                      else the nearest signature's; NaN when nothing is known */
    int source;                    /* HST_CHOICE_EXACT, _DEFAULT, _NEAREST or _NONE */
    hst_result failed;             /* non-zero: skipped for this signature after this error */
    size_t parts;                  /* > 1: runs split after an out-of-memory */
} hst_choice_stat;
/* One entry per implementation, registration order; size-query-then-fill (out NULL).
   Thread safety: per backend. */
HST_API hst_result hst_choice_stats(const hst_choice_op *op, const int64_t *sig,
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
} hst_choice_bench_row;
/* Benchmark mode: runs every implementation on args — the reference first, once untimed
   (its output kept) and `reps` times timed (0: 3) — cross-checks each output against the
   reference's, records every timed run, and fills one row per implementation (rows NULL: only
   *count). Errors: HST_ERROR_INVALID_ARGUMENT (capacity below the count), HST_ERROR_UNSUPPORTED
   (a timings-only operation), allocation.
   Thread safety: per backend, as hst_choice_run. */
HST_API hst_result hst_choice_benchmark(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                        void *args, unsigned reps, hst_choice_bench_row *rows,
                                        size_t capacity, size_t *count);
/* The rows as a text table (snprintf-style: returns the bytes needed including the NUL,
   writes at most capacity). Thread-safe. */
HST_API size_t hst_choice_table(const hst_choice_bench_row *rows, size_t count, char *buf,
                                size_t capacity);
/* Writes the timings now (merged under the lock), if any were recorded since the last save.
   Errors: HST_ERROR_IO (logged as HST_LOG_CACHE_WRITE_FAILED). Thread safety: per backend
   (see the timings file at the top of the file). */
HST_API hst_result hst_choice_save(hst_backend *be);

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
#if defined(_WIN32)
#  include <direct.h>
#else
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <unistd.h>
#  include <fcntl.h>      /* choice: advisory lock on the timings file */
#  include <sys/time.h>   /* choice: gettimeofday where strict C99 hides clock_gettime */
#endif

/* >>fft's libraries, outside extern "C" (their headers include C++-aware system headers). */
#ifdef HST_FFT
#  include <fftw3.h>
#  ifndef HST_NO_OPENCL
#    ifndef VKFFT_BACKEND
#      define VKFFT_BACKEND 3
#    elif VKFFT_BACKEND != 3
#      error "backend.h's FFTs need VkFFT's OpenCL backend (VKFFT_BACKEND 3)"
#    endif
#    include <vkFFT.h>
#  endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define HST__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define HST__PRINTF(f, a)
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
#ifndef HST_NO_OPENCL
    cl_command_queue cl;
#endif
};

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
    int wrapped;               /* hst_buffer_wrap: the memory is the caller's, never freed */
    uint64_t serial;           /* hst_buffer_serial */
#ifndef HST_NO_OPENCL
    cl_mem cl;
#endif
};

struct hst_image {
    hst_backend *be;
    hst_dtype dtype;
    unsigned channels, ndim;
    int normalized;            /* u8 read as [0, 1] floats */
    size_t extent[3];
    size_t reserved;           /* bytes charged to the backend's device memory */          /* width, height, depth (pixels) */
    size_t pixel_bytes;
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
#endif
};

/* The vocabulary's kernels, built lazily once per dtype. Order matches hst__vocab_names. */
enum {
    HST__K_CAST_U8, HST__K_CAST_I32, HST__K_CAST_F32, HST__K_CAST_F64, HST__K_CAST_C64,
    HST__K_SCALE, HST__K_AXPY, HST__K_MATH, HST__K_SUM, HST__K_DOT, HST__K_SQNORM,
    HST__K_MIN, HST__K_MAX, HST__K_RANDOM, HST__K_COUNT
};
static const char *const hst__vocab_names[HST__K_COUNT] = {
    "hst_k_cast_from_u8", "hst_k_cast_from_i32", "hst_k_cast_from_f32", "hst_k_cast_from_f64",
    "hst_k_cast_from_c64", "hst_k_scale", "hst_k_axpy", "hst_k_math", "hst_k_reduce_sum",
    "hst_k_reduce_dot", "hst_k_reduce_sqnorm", "hst_k_reduce_min", "hst_k_reduce_max",
    "hst_k_random"
};

typedef struct hst__vocab {
    hst_program *prog;
    hst_kernel *kernels[HST__K_COUNT];
} hst__vocab;

/* >>vocabx's kernels (kernels.h's second vocabulary program), built lazily per dtype. */
enum { HST__KX_GATHER, HST__KX_WHERE, HST__KX_RAMP, HST__KX_BINARY, HST__KX_CPART, HST__KX_AXIS,
       HST__KX_COUNT };
static const char *const hst__vocabx_names[HST__KX_COUNT] = {
    "hst_k_gather", "hst_k_where", "hst_k_ramp", "hst_k_binary", "hst_k_cpart", "hst_k_axis"
};
typedef struct hst__vocabx {
    hst_program *prog;
    hst_kernel *kernels[HST__KX_COUNT];
} hst__vocabx;

/* One hold on a backend (hst_backend_hold): a list, newest first. */
typedef struct hst__hold { const void *holder; const char *what; struct hst__hold *next; } hst__hold;

struct hst_backend {
    hst_device_info info;
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
    hst__vocab vocab[HST_C64 + 1];
    struct hst__choice *choice; /* the registry of >>choice, created on first use */
    struct hst__fft_plan *fft_plans; /* >>fft: plans made so far (NULL without HST_FFT) */
    hst__vocabx vocabx[HST_C64 + 1]; /* >>vocabx: the second vocabulary program per dtype */
#ifndef HST_NO_OPENCL
    cl_context ctx;
    cl_device_id dev;
    cl_platform_id platform;
#endif
};

struct hst_array {
    hst_backend *be;
    hst_dtype dtype;
    unsigned ndim;
    size_t shape[HST_MAX_DIMS];
    size_t count, bytes;
    hst_buffer *buf;
};

/* >>logging ---------------------------------------------------------------------------------- */
static const char *const hst__item_names[HST_LOG_ITEM_COUNT] = {
    "NONE", "BAD_ARGUMENT", "SIZE_OVERFLOW", "NO_PLATFORM", "DEVICE_CHOSEN",
    "NO_MATCHING_DEVICE", "CL_ERROR", "BUILD_FAILED", "BUILD_WARNINGS", "CACHE_HIT",
    "CACHE_CORRUPT", "CACHE_WRITE_FAILED", "OUT_OF_HOST_MEMORY", "OUT_OF_DEVICE_MEMORY",
    "POOL_RELEASED_HELD", "UNSUPPORTED", "DTYPE", "SHAPE_MISMATCH", "MISALIGNED",
    "CHOICE_CHANGED", "CHOICE_FAILED", "CHOICE_SPLIT", "CHOICE_FORCED", "CHOICE_FILE_IGNORED",
    "NON_FINITE", "NOT_BUILT_IN", "FFT_LIBRARY", "RANK_FAILED"
};

HST__BDEF const char *hst_log_item_name(hst_log_item item) {
    if ((int)item < 0 || item >= HST_LOG_ITEM_COUNT) return "UNKNOWN";
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
    vsnprintf(msg, sizeof msg, fmt, ap);
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

/* Rejects an argument: logs which one and why, returns HST_ERROR_INVALID_ARGUMENT. */
HST__PRINTF(3, 4)
static hst_result hst__bad_arg(const hst_backend *be, const char *func, const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    hst__log(be, HST_LOG_ERROR, HST_LOG_BAD_ARGUMENT, "%s: %s", func, why);
    return HST_ERROR_INVALID_ARGUMENT;
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
static int hst__mul(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

static int hst__add(size_t a, size_t b, size_t *out) {
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

static hst_result hst__overflow(const hst_backend *be, const char *func, const char *what) {
    hst__log(be, HST_LOG_ERROR, HST_LOG_SIZE_OVERFLOW, "%s: %s overflows size_t", func, what);
    return HST_ERROR_OVERFLOW;
}

static void *hst__malloc(const hst_backend *be, size_t bytes) {
    void *p;
    if (bytes == 0) bytes = 1;
    p = (be && be->allocator.alloc) ? be->allocator.alloc(bytes, be->allocator.user)
                                    : malloc(bytes);
    if (!p)
        hst__log(be, HST_LOG_ERROR, HST_LOG_OUT_OF_HOST_MEMORY,
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

static uint64_t hst__hash_final(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* >>results ---------------------------------------------------------------------------------- */
typedef struct hst__code_name { int code; const char *name; } hst__code_name;
static const hst__code_name hst__code_names[] = {
    {0, "HST_SUCCESS"},
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
    {HST_ERROR_INVALID_ARGUMENT, "HST_ERROR_INVALID_ARGUMENT"},
    {HST_ERROR_OVERFLOW, "HST_ERROR_OVERFLOW"},
    {HST_ERROR_OUT_OF_HOST_MEMORY, "HST_ERROR_OUT_OF_HOST_MEMORY"},
    {HST_ERROR_OUT_OF_DEVICE_MEMORY, "HST_ERROR_OUT_OF_DEVICE_MEMORY"},
    {HST_ERROR_NO_DEVICE, "HST_ERROR_NO_DEVICE"},
    {HST_ERROR_UNSUPPORTED, "HST_ERROR_UNSUPPORTED"},
    {HST_ERROR_DTYPE, "HST_ERROR_DTYPE"},
    {HST_ERROR_SHAPE, "HST_ERROR_SHAPE"},
    {HST_ERROR_ALIGNMENT, "HST_ERROR_ALIGNMENT"},
    {HST_ERROR_IO, "HST_ERROR_IO"},
    {HST_ERROR_CANCELLED, "HST_ERROR_CANCELLED"},
    {HST_ERROR_NON_FINITE, "HST_ERROR_NON_FINITE"},
    {HST_ERROR_NOT_BUILT_IN, "HST_ERROR_NOT_BUILT_IN"}
};

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

#ifndef HST_NO_OPENCL
/* Logs a failed OpenCL call by name and passes its code through. */
static hst_result hst__cl_fail(const hst_backend *be, const char *call, cl_int err) {
    hst_log_item item = hst_result_is_out_of_memory(err) ? HST_LOG_OUT_OF_DEVICE_MEMORY
                                                           : HST_LOG_CL_ERROR;
    hst__log(be, HST_LOG_ERROR, item, "%s failed: %s (%d)", call, hst_result_string(err),
             (int)err);
    return err;
}
#define HST__CL(be, call, expr) \
    do { cl_int hst__e = (expr); if (hst__e != CL_SUCCESS) return hst__cl_fail(be, call, hst__e); } while (0)
#endif

/* >>devices ---------------------------------------------------------------------------------- */
/* The host device's memory: physical memory where the system says, else the largest object. */
static uint64_t hst__host_memory_bytes(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (uint64_t)pages <= (uint64_t)PTRDIFF_MAX / (uint64_t)page)
        return (uint64_t)pages * (uint64_t)page;
#endif
    return (uint64_t)PTRDIFF_MAX;
}

/* The host device's compute units: the online processors, on which the host twins that run
   in threads (esrrf.h's stages, one thread per core) spread; 1 where the system does not say. */
static unsigned hst__host_cores(void) {
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0 && (unsigned long)n <= UINT32_MAX) return (unsigned)n;
#endif
    return 1;
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
    d->compute_units = hst__host_cores();        /* the threads of the host twins (esrrf.h) */
    d->global_mem_bytes = d->max_alloc_bytes = hst__host_memory_bytes();
    d->max_work_group_size = 1;
    d->mem_base_addr_align_bytes = HST__HOST_ALIGN;  /* the same rule as an OpenCL device */
    d->fp64 = d->images = d->correctly_rounded_sqrt = 1;
    d->svm = HST_SVM_COARSE | HST_SVM_FINE;
}

#ifndef HST_NO_OPENCL
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
#endif

HST__BDEF hst_result hst_devices(hst_device_info *out, size_t capacity, size_t *count) {
    size_t n = 0;
    if (!count) return hst__bad_arg(NULL, "hst_devices", "count is NULL");
#ifndef HST_NO_OPENCL
    {
        hst__list_ctx c;
        c.out = out; c.cap = capacity; c.n = 0;
        hst__cl_visit(hst__list_visit, &c);
        n = c.n;
    }
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

static hst_result hst__select(const hst_backend *be, const char *selector, hst_device_info *out,
                              char *why, size_t why_bytes) {
    hst_device_info *list;
    size_t n = 0;
    long pick;
    const char *sel = selector;
    hst_result r;
    if (!sel || !*sel) sel = getenv("HST_DEVICE");
    if (!sel || !*sel) sel = "auto";
    hst_devices(NULL, 0, &n);
    list = (hst_device_info *)hst__malloc(be, n * sizeof *list);
    if (!list) return HST_ERROR_OUT_OF_HOST_MEMORY;
    {
        size_t now = 0;   /* a device may have appeared since the count */
        hst_devices(list, n, &now);
        if (now < n) n = now;
    }
    why[0] = '\0';
    pick = hst__match_selector(sel, list, n, why, why_bytes);
    if (pick >= 0) {
        *out = list[pick];
        r = HST_SUCCESS;
    } else {
        hst__describe_devices(list, n, sel, why, why_bytes);
        r = HST_ERROR_NO_DEVICE;
    }
    hst__free(be, list);
    return r;
}

HST__BDEF hst_result hst_device_select(const char *selector, hst_device_info *out, char *why,
                                     size_t why_bytes) {
    char local[512];
    hst_result r;
    if (!out) return hst__bad_arg(NULL, "hst_device_select", "out is NULL");
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
        return hst__bad_arg(cfg, "hst_backend_create", "desc.log_level %d is not an hst_log_level", (int)d->log_level);
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
    be->device_limit = d->device_memory_limit_bytes;
    hst__resolve_cache_dir(be, d);
}

#ifndef HST_NO_OPENCL
static int hst__cl_version_at_least(const char *version, int major) {
    int maj = 1, min = 0;
    if (sscanf(version, "OpenCL %d.%d", &maj, &min) < 1) return 0;
    return maj >= major;
}

/* An in-order queue; OpenCL 2.0+ has the non-deprecated constructor. */
static hst_result hst__cl_queue(hst_backend *be, cl_command_queue *out) {
    cl_int err;
    if (hst__cl_version_at_least(be->info.version, 2)) {
        *out = clCreateCommandQueueWithProperties(be->ctx, be->dev, NULL, &err);
    } else {
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        *out = clCreateCommandQueue(be->ctx, be->dev, 0, &err);
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
    hst__log(be, HST_LOG_INFO, HST_LOG_DEVICE_CHOSEN, "wrapping the caller's context on %s (%s)",
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
    return hst__cl_queue(be, &be->queue.cl);
}
#endif

/* Announces that no OpenCL platform exists, once per process, as the design asks. */
static void hst__note_no_platform(const hst_backend *be) {
    static int said = 0;
    if (said) return;
    said = 1;
    hst__log(be, HST_LOG_WARN, HST_LOG_NO_PLATFORM,
             "no OpenCL device found: the host device runs everything (C twins of the kernels)");
}

static hst_result hst__open_device(hst_backend *be, const hst_backend_desc *desc) {
    char why[512];
    hst_result r;
#ifndef HST_NO_OPENCL
    if (desc->wrap_context) return hst__open_byo(be, desc->wrap_context, desc->wrap_queue);
#endif
    r = hst__select(be, desc->device, &be->info, why, sizeof why);
    if (r != HST_SUCCESS) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_NO_MATCHING_DEVICE, "hst_backend_create: %s", why);
        return r;
    }
    hst__log(be, HST_LOG_INFO, HST_LOG_DEVICE_CHOSEN, "%s: %s", be->info.name, why);
    if (be->info.type == HST_DEVICE_HOST) {
        size_t n = 0;
        hst_devices(NULL, 0, &n);
        if (n == 1) hst__note_no_platform(be);
        return HST_SUCCESS;
    }
#ifndef HST_NO_OPENCL
    return hst__open_cl(be);
#else
    return HST_ERROR_NO_DEVICE;
#endif
}

HST__BDEF hst_result hst_backend_create(const hst_backend_desc *desc, hst_backend **out) {
    hst_backend cfg, *be;
    hst_backend_desc zero;
    hst_result r;
    if (!desc) { memset(&zero, 0, sizeof zero); desc = &zero; }
    hst__init_config(&cfg, desc);   /* first, so rejections reach the caller's logger */
    if (!out) return hst__bad_arg(&cfg, "hst_backend_create", "out is NULL");
    *out = NULL;
    if ((r = hst__check_desc(&cfg, desc)) != HST_SUCCESS) return r;
    be = (hst_backend *)hst__malloc(&cfg, sizeof *be);
    if (!be) return HST_ERROR_OUT_OF_HOST_MEMORY;
    *be = cfg;
    be->queue.be = be;
    r = hst__open_device(be, desc);
    if (r == HST_SUCCESS) r = hst_pool_create(be, &be->pool);
    if (r != HST_SUCCESS) { hst_backend_destroy(be); return r; }
    *out = be;
    return HST_SUCCESS;
}

static void hst__release_programs(hst_backend *be) {
    int dt, k;
    for (dt = 0; dt <= HST_C64; dt++)
        for (k = 0; k < HST__K_COUNT; k++) hst_kernel_destroy(be->vocab[dt].kernels[k]);
    for (dt = 0; dt <= HST_C64; dt++)
        for (k = 0; k < HST__KX_COUNT; k++) hst_kernel_destroy(be->vocabx[dt].kernels[k]);
    while (be->programs) {
        hst_program *p = be->programs;
        be->programs = p->next;
#ifndef HST_NO_OPENCL
        if (p->cl) clReleaseProgram(p->cl);
#endif
        hst__free(be, p);
    }
}

static void hst__choice_destroy(hst_backend *be);   /* >>choice: saves timings, frees */
static void hst__fft_release(hst_backend *be);      /* >>fft: frees the cached plans */

HST__BDEF hst_result hst_backend_destroy(hst_backend *be) {
    if (!be) return HST_SUCCESS;
    if (be->holds) {   /* the oldest holder: the caller's object (a session's own streams come later) */
        const hst__hold *h = be->holds;
        while (h->next) h = h->next;
        return hst__bad_arg(be, "hst_backend_destroy", "%s %p still uses the backend (%u hold(s) in all): "
                            "destroy it first; the backend is not freed", h->what, h->holder, hst_backend_holds(be));
    }
    hst__choice_destroy(be);
    hst__fft_release(be);
    hst__release_programs(be);
    hst_pool_destroy(be->pool);
#ifndef HST_NO_OPENCL
    if (be->queue.cl) { clFinish(be->queue.cl); clReleaseCommandQueue(be->queue.cl); }
    if (be->ctx) clReleaseContext(be->ctx);
#endif
    hst__free(be, be);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_backend_hold(hst_backend *be, const void *holder, const char *what) {
    hst__hold *h;
    if (!be || !holder || !what)
        return hst__bad_arg(be, "hst_backend_hold", "%s is NULL", !be ? "be" : !holder ? "holder" : "what");
    for (h = be->holds; h; h = h->next)
        if (h->holder == holder)
            return hst__bad_arg(be, "hst_backend_hold", "%s %p already holds the backend", what, holder);
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
HST__BDEF uint64_t hst_backend_device_bytes(const hst_backend *be) {
    return be ? be->device_bytes : 0;
}
#ifndef HST_NO_OPENCL
HST__BDEF cl_context hst_backend_cl_context(const hst_backend *be) { return be ? be->ctx : NULL; }
HST__BDEF cl_device_id hst_backend_cl_device(const hst_backend *be) { return be ? be->dev : NULL; }
#endif

/* >>queues ----------------------------------------------------------------------------------- */
HST__BDEF hst_result hst_queue_create(hst_backend *be, hst_queue **out) {
    hst_queue *q;
    if (!be || !out) return hst__bad_arg(be, "hst_queue_create", "%s is NULL", be ? "out" : "be");
    q = (hst_queue *)hst__calloc(be, sizeof *q);
    if (!q) return HST_ERROR_OUT_OF_HOST_MEMORY;
    q->be = be;
#ifndef HST_NO_OPENCL
    if (be->ctx) {
        hst_result r = hst__cl_queue(be, &q->cl);
        if (r != HST_SUCCESS) { hst__free(be, q); return r; }
    }
#endif
    *out = q;
    return HST_SUCCESS;
}

HST__BDEF void hst_queue_destroy(hst_queue *q) {
    if (!q || q == &q->be->queue) return;   /* the default queue belongs to the backend */
#ifndef HST_NO_OPENCL
    if (q->cl) { clFinish(q->cl); clReleaseCommandQueue(q->cl); }
#endif
    hst__free(q->be, q);
}

HST__BDEF hst_result hst_queue_flush(hst_queue *q) {
    if (!q) return hst__bad_arg(NULL, "hst_queue_flush", "q is NULL");
#ifndef HST_NO_OPENCL
    if (q->cl) HST__CL(q->be, "clFlush", clFlush(q->cl));
#endif
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_queue_finish(hst_queue *q) {
    if (!q) return hst__bad_arg(NULL, "hst_queue_finish", "q is NULL");
#ifndef HST_NO_OPENCL
    if (q->cl) HST__CL(q->be, "clFinish", clFinish(q->cl));
#endif
    return HST_SUCCESS;
}

#ifndef HST_NO_OPENCL
HST__BDEF cl_command_queue hst_queue_cl(const hst_queue *q) { return q ? q->cl : NULL; }
#endif

HST__BDEF hst_result hst_event_wait(size_t num, const hst_event *events) {
#ifndef HST_NO_OPENCL
    size_t i;
    for (i = 0; i < num; i++)
        if (events[i]) {
            cl_int e = clWaitForEvents(1, &events[i]);
            if (e != CL_SUCCESS) return hst__cl_fail(NULL, "clWaitForEvents", e);
        }
#else
    (void)num; (void)events;
#endif
    return HST_SUCCESS;
}

HST__BDEF void hst_event_release(hst_event e) {
#ifndef HST_NO_OPENCL
    if (e) clReleaseEvent(e);
#else
    (void)e;
#endif
}

/* >>memory ----------------------------------------------------------------------------------- */
#ifndef HST_NO_OPENCL
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
    for (i = 0; i < num; i++) nonnull += wait[i] != NULL;
    if (nonnull == num) { w->n = (cl_uint)num; w->ev = num ? wait : NULL; return HST_SUCCESS; }
    dst = w->local;
    if (nonnull > HST__WAIT_LOCAL) {
        w->heap = (cl_event *)hst__malloc(be, nonnull * sizeof *dst);
        if (!w->heap) return HST_ERROR_OUT_OF_HOST_MEMORY;
        dst = w->heap;
    }
    for (i = 0; i < num; i++) if (wait[i]) dst[w->n++] = wait[i];
    w->ev = w->n ? dst : NULL;
    return HST_SUCCESS;
}

static void hst__wl_free(const hst_backend *be, hst__waitlist *w) { hst__free(be, w->heap); }
#endif

/* Every enqueue-style call starts here: the queue exists and the wait list is well formed. */
static hst_result hst__check_enqueue(const hst_queue *q, const char *func, size_t num_wait,
                                     const hst_event *wait) {
    if (!q) return hst__bad_arg(NULL, func, "q is NULL");
    if (num_wait && !wait)
        return hst__bad_arg(q->be, func, "wait is NULL but num_wait is %zu", num_wait);
    return HST_SUCCESS;
}

/* The host device works synchronously: wait for the listed events, then run. */
static hst_result hst__host_begin(size_t num_wait, const hst_event *wait, hst_event *out) {
    if (out) *out = NULL;
    return hst_event_wait(num_wait, wait);
}

static int hst__is_cl(const hst_backend *be) {
#ifndef HST_NO_OPENCL
    return be->ctx != NULL;
#else
    (void)be;
    return 0;
#endif
}

/* A command with nothing to move still orders after its wait list and yields an event, without
   the host waiting (OpenCL rejects zero-byte fills and copies, hence a marker). */
static hst_result hst__nothing(hst_queue *q, size_t num_wait, const hst_event *wait,
                               hst_event *out) {
#ifndef HST_NO_OPENCL
    if (q->cl) {
        hst__waitlist w;
        cl_int err;
        hst_result r;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueMarkerWithWaitList(q->cl, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueMarkerWithWaitList", err);
    }
#else
    (void)q;
#endif
    return hst__host_begin(num_wait, wait, out);
}

HST__BDEF hst_result hst_queue_barrier(hst_queue *q, size_t num_wait, const hst_event *wait,
                                     hst_event *out) {
    hst_result r;
    if ((r = hst__check_enqueue(q, "hst_queue_barrier", num_wait, wait)) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (q->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueBarrierWithWaitList(q->cl, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueBarrierWithWaitList", err);
    }
#endif
    return hst__host_begin(num_wait, wait, out);
}

/* [offset, offset + bytes) must lie inside `size` bytes. */
static hst_result hst__check_range(const hst_backend *be, const char *func, const char *what,
                                   size_t offset, size_t bytes, size_t size) {
    size_t end;
    if (!hst__add(offset, bytes, &end)) return hst__overflow(be, func, what);
    if (end > size)
        return hst__bad_arg(be, func, "%s [%zu, %zu) exceeds the buffer's %zu bytes", what,
                            offset, end, size);
    return HST_SUCCESS;
}

/* Charges a device allocation against the device's and the caller's limits. */
static hst_result hst__reserve(hst_backend *be, const char *func, size_t bytes) {
    if ((uint64_t)bytes > be->info.max_alloc_bytes) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_OUT_OF_DEVICE_MEMORY,
                 "%s: %zu bytes exceed the device's largest allocation (%llu bytes)", func, bytes,
                 (unsigned long long)be->info.max_alloc_bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    if (be->device_limit && (uint64_t)bytes > be->device_limit - be->device_bytes) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_OUT_OF_DEVICE_MEMORY,
                 "%s: %zu bytes more would exceed the limit of %llu device bytes (%llu in use)",
                 func, bytes, (unsigned long long)be->device_limit,
                 (unsigned long long)be->device_bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    be->device_bytes += bytes;
    return HST_SUCCESS;
}

static void hst__unreserve(hst_backend *be, size_t bytes) { be->device_bytes -= bytes; }

#ifndef HST_NO_OPENCL
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

/* wrap: the caller's host memory (USE_HOST_PTR); pinned: ALLOC_HOST_PTR, mapped for life. */
static hst_result hst__cl_alloc(hst_buffer *b, size_t bytes, unsigned flags, int pinned,
                                void *wrap) {
    hst_backend *be = b->be;
    cl_mem_flags f = (flags & HST_MEM_READ_ONLY) ? CL_MEM_READ_ONLY
                   : (flags & HST_MEM_WRITE_ONLY) ? CL_MEM_WRITE_ONLY : CL_MEM_READ_WRITE;
    cl_int err;
    if (pinned) f = CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
    if (wrap) f |= CL_MEM_USE_HOST_PTR;
    b->cl = clCreateBuffer(be->ctx, f, bytes, wrap, &err);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateBuffer", err);
    if (pinned) {   /* mapped once, for the buffer's lifetime */
        b->host = clEnqueueMapBuffer(be->queue.cl, b->cl, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     bytes, 0, NULL, NULL, &err);
        if (err != CL_SUCCESS) return hst__cl_fail(be, "clEnqueueMapBuffer (pinned)", err);
        return HST_SUCCESS;
    }
    return (flags & HST_MEM_RESIDENT) ? hst__cl_make_resident(be, b->cl) : HST_SUCCESS;
}
#endif

/* Releases the memory of a non-pooled buffer and its struct. */
static void hst__buffer_release(hst_buffer *b) {
    hst_backend *be = b->be;
#ifndef HST_NO_OPENCL
    if (b->cl) {
        if (b->pinned && b->host && !b->parent)
            clEnqueueUnmapMemObject(be->queue.cl, b->cl, b->host, 0, NULL, NULL);
        clReleaseMemObject(b->cl);
    } else
#endif
    if (!b->parent && !b->wrapped) hst__free(be, b->host);
    if (!b->parent) hst__unreserve(be, b->capacity);
    hst__free(be, b);
}

/* wrap: the caller's memory (hst_buffer_wrap), else NULL. */
static hst_result hst__buffer_new(hst_backend *be, const char *func, size_t bytes,
                                  unsigned flags, int pinned, void *wrap, hst_buffer **out) {
    hst_buffer *b;
    hst_result r;
    if ((r = hst__reserve(be, func, bytes)) != HST_SUCCESS) return r;
    b = (hst_buffer *)hst__calloc(be, sizeof *b);
    if (!b) { hst__unreserve(be, bytes); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    b->be = be;
    b->bytes = b->capacity = bytes;
    b->pinned = pinned;
    b->serial = ++be->buffers_made;
    b->wrapped = wrap != NULL;
#ifndef HST_NO_OPENCL
    if (be->ctx) r = hst__cl_alloc(b, bytes, flags, pinned, wrap);
    else
#endif
    {
        b->host = wrap ? wrap : hst__malloc(be, bytes);
        r = b->host ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
        (void)flags;
    }
    if (r != HST_SUCCESS) { hst__buffer_release(b); return r; }
    *out = b;
    return HST_SUCCESS;
}

static hst_result hst__check_alloc_args(hst_backend *be, const char *func, size_t bytes,
                                        unsigned flags, hst_buffer **out) {
    if (!be) return hst__bad_arg(NULL, func, "be is NULL");
    if (!out) return hst__bad_arg(be, func, "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__bad_arg(be, func, "bytes is 0");
    if (flags & ~(unsigned)(HST_MEM_READ_ONLY | HST_MEM_WRITE_ONLY | HST_MEM_RESIDENT))
        return hst__bad_arg(be, func, "flags 0x%x has unknown bits", flags);
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
    if (!ptr) return hst__bad_arg(be, "hst_buffer_wrap", "ptr is NULL");
    if (flags & HST_MEM_RESIDENT)   /* a wrap is the caller's memory: nothing to allocate */
        return hst__bad_arg(be, "hst_buffer_wrap", "flags: HST_MEM_RESIDENT is not allowed");
    return hst__buffer_new(be, "hst_buffer_wrap", bytes, flags, 0, ptr, out);
}

HST__BDEF hst_result hst_pinned_create(hst_backend *be, size_t bytes, hst_buffer **out) {
    hst_result r = hst__check_alloc_args(be, "hst_pinned_create", bytes, 0, out);
    if (r != HST_SUCCESS) return r;
    return hst__buffer_new(be, "hst_pinned_create", bytes, 0, 1, NULL, out);
}

/* A sub-buffer of [origin, origin + bytes) of parent, whose origin in parent's underlying
   allocation (parent's own origin added when parent is itself a sub-buffer) must be a multiple
   of align (HST_ERROR_ALIGNMENT, logged as HST_LOG_MISALIGNED). The caller checked the range. */
static hst_result hst__buffer_sub(hst_buffer *parent, size_t origin, size_t bytes, size_t align,
                                  const char *func, hst_buffer **out) {
    hst_backend *be = parent->be;
    hst_buffer *root = parent->parent ? parent->parent : parent, *b;
    size_t at = parent->parent ? parent->origin + origin : origin;
    if (at % align) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_MISALIGNED,
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
#ifndef HST_NO_OPENCL
    if (root->cl) {
        cl_buffer_region reg;
        cl_int err;
        reg.origin = at; reg.size = bytes;
        b->cl = clCreateSubBuffer(root->cl, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
        if (err != CL_SUCCESS) { hst__free(be, b); return hst__cl_fail(be, "clCreateSubBuffer", err); }
    }
#endif
    *out = b;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_buffer_create_sub(hst_buffer *parent, size_t origin, size_t bytes,
                                         hst_buffer **out) {
    static const char *F = "hst_buffer_create_sub";
    hst_backend *be;
    hst_result r;
    if (!parent) return hst__bad_arg(NULL, F, "parent is NULL");
    be = parent->be;
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (parent->parent) return hst__bad_arg(be, F, "parent is itself a sub-buffer");
    if (bytes == 0) return hst__bad_arg(be, F, "bytes is 0");
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
#ifndef HST_NO_OPENCL
HST__BDEF cl_mem hst_buffer_cl(const hst_buffer *b) { return b ? b->cl : NULL; }
#endif

/* The buffer belongs to the queue's backend (objects of two backends never mix). */
static hst_result hst__check_buffer(const hst_queue *q, const char *func, const char *name,
                                    const hst_buffer *b) {
    if (!b) return hst__bad_arg(q->be, func, "%s is NULL", name);
    if (b->be != q->be) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH,
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
    size_t i;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "buf", buf)) != HST_SUCCESS) return r;
    if (!pattern) return hst__bad_arg(q->be, F, "pattern is NULL");
    if (pattern_bytes == 0 || pattern_bytes > 128 || (pattern_bytes & (pattern_bytes - 1)))
        return hst__bad_arg(q->be, F, "pattern_bytes %zu is not a power of two up to 128", pattern_bytes);
    if (offset % pattern_bytes || bytes % pattern_bytes)
        return hst__bad_arg(q->be, F, "offset %zu and bytes %zu must be multiples of pattern_bytes %zu",
                            offset, bytes, pattern_bytes);
    if ((r = hst__check_range(q->be, F, "fill", offset, bytes, buf->bytes)) != HST_SUCCESS) return r;
    if (bytes == 0) return hst__nothing(q, num_wait, wait, out);
#ifndef HST_NO_OPENCL
    if (buf->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueFillBuffer(q->cl, buf->cl, pattern, pattern_bytes, offset, bytes, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueFillBuffer", err);
    }
#endif
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    for (i = 0; i < bytes; i += pattern_bytes)
        memcpy((char *)buf->host + offset + i, pattern, pattern_bytes);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_write(hst_queue *q, hst_buffer *dst, size_t dst_offset, const void *src,
                             size_t bytes, int blocking,
                             size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_write";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "dst", dst)) != HST_SUCCESS) return r;
    if (!src) return hst__bad_arg(q->be, F, "src is NULL");
    if ((r = hst__check_range(q->be, F, "write", dst_offset, bytes, dst->bytes)) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (dst->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueWriteBuffer(q->cl, dst->cl, blocking ? CL_TRUE : CL_FALSE, dst_offset,
                                   bytes, src, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueWriteBuffer", err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove((char *)dst->host + dst_offset, src, bytes);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_read(hst_queue *q, const hst_buffer *src, size_t src_offset, void *dst,
                            size_t bytes, int blocking,
                            size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_read";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "src", src)) != HST_SUCCESS) return r;
    if (!dst) return hst__bad_arg(q->be, F, "dst is NULL");
    if ((r = hst__check_range(q->be, F, "read", src_offset, bytes, src->bytes)) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (src->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueReadBuffer(q->cl, src->cl, blocking ? CL_TRUE : CL_FALSE, src_offset,
                                  bytes, dst, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueReadBuffer", err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove(dst, (const char *)src->host + src_offset, bytes);
    return HST_SUCCESS;
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
    if (bytes == 0) return hst__nothing(q, num_wait, wait, out);
#ifndef HST_NO_OPENCL
    if (dst->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueCopyBuffer(q->cl, src->cl, dst->cl, src_offset, dst_offset, bytes, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueCopyBuffer", err);
    }
#endif
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    memcpy((char *)dst->host + dst_offset, (const char *)src->host + src_offset, bytes);
    return HST_SUCCESS;
}

/* Rectangular regions: pitches resolved to explicit values and the extent checked. */
typedef struct hst__rect_abs { size_t origin[3], row_pitch, slice_pitch; } hst__rect_abs;

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
    if (o->slice_pitch == 0 && !hst__mul(region[1], o->row_pitch, &o->slice_pitch))
        return hst__overflow(be, func, what);
    if (!hst__mul(region[1], o->row_pitch, &t)) return hst__overflow(be, func, what);
    if (o->row_pitch < region[0] || o->slice_pitch < t)
        return hst__bad_arg(be, func, "%s: pitches (%zu, %zu) are smaller than the region", what,
                            o->row_pitch, o->slice_pitch);
    if (o->slice_pitch % o->row_pitch)   /* OpenCL's rule, kept on every device */
        return hst__bad_arg(be, func, "%s: slice_pitch %zu is not a multiple of row_pitch %zu",
                            what, o->slice_pitch, o->row_pitch);
    if (size == 0) return HST_SUCCESS;
    /* last byte + 1 = origin + (region - 1) in every dimension, weighted by the pitches */
    if (!hst__mul(o->origin[2] + region[2] - 1, o->slice_pitch, &last) ||
        o->origin[2] + region[2] - 1 < o->origin[2] ||
        !hst__mul(o->origin[1] + region[1] - 1, o->row_pitch, &t) ||
        o->origin[1] + region[1] - 1 < o->origin[1] ||
        !hst__add(last, t, &last) || !hst__add(last, o->origin[0], &last) ||
        !hst__add(last, region[0], &last))
        return hst__overflow(be, func, what);
    if (last > size)
        return hst__bad_arg(be, func, "%s: the region ends at byte %zu, past the buffer's %zu",
                            what, last, size);
    return HST_SUCCESS;
}

static hst_result hst__check_region(const hst_backend *be, const char *func, const size_t *region) {
    size_t t;
    if (!region) return hst__bad_arg(be, func, "region is NULL");
    if (!region[0] || !region[1] || !region[2])
        return hst__bad_arg(be, func, "region {%zu, %zu, %zu} has a zero extent", region[0],
                            region[1], region[2]);
    if (!hst__mul(region[0], region[1], &t) || !hst__mul(t, region[2], &t))
        return hst__overflow(be, func, "region");
    return HST_SUCCESS;
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

/* dir: 0 host->buffer, 1 buffer->host, 2 buffer->buffer. */
static hst_result hst__rect(hst_queue *q, const char *func, int dir, hst_buffer *dbuf,
                            void *dhost, const hst_rect *drect, const hst_buffer *sbuf,
                            const void *shost, const hst_rect *srect, const size_t region[3],
                            int blocking, size_t num_wait, const hst_event *wait, hst_event *out) {
    hst__rect_abs d, s;
    hst_result r;
    if ((r = hst__check_enqueue(q, func, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_region(q->be, func, region)) != HST_SUCCESS) return r;
    if (dir != 1 && (r = hst__check_buffer(q, func, "dst", dbuf)) != HST_SUCCESS) return r;
    if (dir != 0 && (r = hst__check_buffer(q, func, "src", sbuf)) != HST_SUCCESS) return r;
    if ((dir == 1 && !dhost) || (dir == 0 && !shost))
        return hst__bad_arg(q->be, func, "the host pointer is NULL");
    if ((r = hst__resolve_rect(q->be, func, "destination", drect, region, dir == 1 ? 0 : dbuf->bytes, &d)) != HST_SUCCESS) return r;
    if ((r = hst__resolve_rect(q->be, func, "source", srect, region, dir == 0 ? 0 : sbuf->bytes, &s)) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        cl_bool blk = blocking ? CL_TRUE : CL_FALSE;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        if (dir == 0)
            err = clEnqueueWriteBufferRect(q->cl, dbuf->cl, blk, d.origin, s.origin, region, d.row_pitch, d.slice_pitch, s.row_pitch, s.slice_pitch, shost, w.n, w.ev, out);
        else if (dir == 1)
            err = clEnqueueReadBufferRect(q->cl, sbuf->cl, blk, s.origin, d.origin, region, s.row_pitch, s.slice_pitch, d.row_pitch, d.slice_pitch, dhost, w.n, w.ev, out);
        else
            err = clEnqueueCopyBufferRect(q->cl, sbuf->cl, dbuf->cl, s.origin, d.origin, region, s.row_pitch, s.slice_pitch, d.row_pitch, d.slice_pitch, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, func, err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    hst__rect_memcpy(dir == 1 ? dhost : dbuf->host, &d, dir == 0 ? shost : sbuf->host, &s, region);
    return HST_SUCCESS;
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
    if (!ptr) return hst__bad_arg(q->be, F, "ptr is NULL");
    *ptr = NULL;
    if (!map_flags || (map_flags & ~7u))
        return hst__bad_arg(q->be, F, "map_flags 0x%x: use HST_MAP_READ/WRITE/WRITE_INVALIDATE", map_flags);
    if (bytes == 0) return hst__bad_arg(q->be, F, "bytes is 0");
    if ((r = hst__check_range(q->be, F, "map", offset, bytes, buf->bytes)) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (buf->cl) {
        hst__waitlist w;
        cl_int err;
        cl_map_flags f = ((map_flags & HST_MAP_READ) ? CL_MAP_READ : 0) |
                         ((map_flags & HST_MAP_WRITE) ? CL_MAP_WRITE : 0) |
                         ((map_flags & HST_MAP_WRITE_INVALIDATE) ? CL_MAP_WRITE_INVALIDATE_REGION : 0);
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        *ptr = clEnqueueMapBuffer(q->cl, buf->cl, blocking ? CL_TRUE : CL_FALSE, f, offset, bytes, w.n, w.ev, out, &err);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueMapBuffer", err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    *ptr = (char *)buf->host + offset;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_unmap(hst_queue *q, hst_buffer *buf, void *ptr,
                             size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__check_buffer(q, F, "buf", buf)) != HST_SUCCESS) return r;
    if (!ptr) return hst__bad_arg(q->be, F, "ptr is NULL");
#ifndef HST_NO_OPENCL
    if (buf->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueUnmapMemObject(q->cl, buf->cl, ptr, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueUnmapMemObject", err);
    }
#endif
    if ((char *)ptr < (char *)buf->host || (char *)ptr >= (char *)buf->host + buf->bytes)
        return hst__bad_arg(q->be, F, "ptr was not mapped from buf");
    return hst__host_begin(num_wait, wait, out);
}

HST__BDEF hst_result hst_migrate(hst_queue *q, size_t num_buffers, hst_buffer *const *buffers,
                               unsigned migrate_flags,
                               size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_migrate";
    hst_result r;
    size_t i;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!num_buffers || !buffers) return hst__bad_arg(q->be, F, "no buffers given");
    if (migrate_flags & ~3u) return hst__bad_arg(q->be, F, "migrate_flags 0x%x has unknown bits", migrate_flags);
    for (i = 0; i < num_buffers; i++)
        if ((r = hst__check_buffer(q, F, "buffers[i]", buffers[i])) != HST_SUCCESS) return r;
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        cl_mem local[HST__WAIT_LOCAL], *mems = local;
        cl_mem_migration_flags f = ((migrate_flags & HST_MIGRATE_TO_HOST) ? CL_MIGRATE_MEM_OBJECT_HOST : 0) |
            ((migrate_flags & HST_MIGRATE_CONTENT_UNDEFINED) ? CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED : 0);
        if (num_buffers > HST__WAIT_LOCAL) {
            size_t bytes;
            if (!hst__mul(num_buffers, sizeof *mems, &bytes)) return hst__overflow(q->be, F, "num_buffers");
            if (!(mems = (cl_mem *)hst__malloc(q->be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (i = 0; i < num_buffers; i++) mems[i] = buffers[i]->cl;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) == HST_SUCCESS) {
            err = clEnqueueMigrateMemObjects(q->cl, (cl_uint)num_buffers, mems, f, w.n, w.ev, out);
            hst__wl_free(q->be, &w);
            r = err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueMigrateMemObjects", err);
        }
        if (mems != local) hst__free(q->be, mems);
        return r;
    }
#endif
    return hst__host_begin(num_wait, wait, out);   /* host memory is where it is used */
}

/* >>svm -------------------------------------------------------------------------------------- */
HST__BDEF hst_result hst_svm_alloc(hst_backend *be, size_t bytes, int fine, void **out) {
    static const char *F = "hst_svm_alloc";
    hst_result r;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__bad_arg(be, F, "bytes is 0");
    if (!(be->info.svm & (fine ? HST_SVM_FINE : HST_SVM_COARSE))) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED, "%s: %s does not support %s-grain SVM",
                 F, be->info.name, fine ? "fine" : "coarse");
        return HST_ERROR_UNSUPPORTED;
    }
    /* SVM sizes are not recorded, so SVM is checked against the limits but not charged. */
    if ((r = hst__reserve(be, F, bytes)) != HST_SUCCESS) return r;
    hst__unreserve(be, bytes);
#ifndef HST_NO_OPENCL
    if (be->ctx) {
        cl_svm_mem_flags f = CL_MEM_READ_WRITE | (fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
        *out = clSVMAlloc(be->ctx, f, bytes, 0);
    } else
#endif
        *out = hst__malloc(be, bytes);
    if (!*out) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_OUT_OF_DEVICE_MEMORY, "%s: %zu bytes failed", F, bytes);
        return HST_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    return HST_SUCCESS;
}

HST__BDEF void hst_svm_free(hst_backend *be, void *ptr) {
    if (!be || !ptr) return;
#ifndef HST_NO_OPENCL
    if (be->ctx) { clSVMFree(be->ctx, ptr); return; }
#endif
    hst__free(be, ptr);
}

HST__BDEF hst_result hst_svm_map(hst_queue *q, unsigned map_flags, void *ptr, size_t bytes,
                               size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_map";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr || !bytes) return hst__bad_arg(q->be, F, "%s", ptr ? "bytes is 0" : "ptr is NULL");
    if (!map_flags || (map_flags & ~7u)) return hst__bad_arg(q->be, F, "map_flags 0x%x", map_flags);
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        cl_map_flags f = ((map_flags & HST_MAP_READ) ? CL_MAP_READ : 0) |
                         ((map_flags & HST_MAP_WRITE) ? CL_MAP_WRITE : 0) |
                         ((map_flags & HST_MAP_WRITE_INVALIDATE) ? CL_MAP_WRITE_INVALIDATE_REGION : 0);
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueSVMMap(q->cl, CL_TRUE, f, ptr, bytes, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueSVMMap", err);
    }
#endif
    return hst__host_begin(num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_unmap(hst_queue *q, void *ptr,
                                 size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr) return hst__bad_arg(q->be, F, "ptr is NULL");
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueSVMUnmap(q->cl, ptr, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueSVMUnmap", err);
    }
#endif
    return hst__host_begin(num_wait, wait, out);
}

HST__BDEF hst_result hst_svm_copy(hst_queue *q, void *dst, const void *src, size_t bytes,
                                int blocking, size_t num_wait, const hst_event *wait,
                                hst_event *out) {
    static const char *F = "hst_svm_copy";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!dst || !src) return hst__bad_arg(q->be, F, "%s is NULL", dst ? "src" : "dst");
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueSVMMemcpy(q->cl, blocking ? CL_TRUE : CL_FALSE, dst, src, bytes, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueSVMMemcpy", err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    if (bytes) memmove(dst, src, bytes);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_svm_fill(hst_queue *q, void *ptr, const void *pattern,
                                size_t pattern_bytes, size_t bytes,
                                size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_svm_fill";
    hst_result r;
    size_t i;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!ptr || !pattern) return hst__bad_arg(q->be, F, "%s is NULL", ptr ? "pattern" : "ptr");
    if (pattern_bytes == 0 || pattern_bytes > 128 || (pattern_bytes & (pattern_bytes - 1)) ||
        bytes % pattern_bytes)
        return hst__bad_arg(q->be, F, "pattern_bytes %zu must be a power of two up to 128 dividing bytes %zu",
                            pattern_bytes, bytes);
#ifndef HST_NO_OPENCL
    if (hst__is_cl(q->be)) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueSVMMemFill(q->cl, ptr, pattern, pattern_bytes, bytes, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueSVMMemFill", err);
    }
#endif
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    for (i = 0; i < bytes; i += pattern_bytes) memcpy((char *)ptr + i, pattern, pattern_bytes);
    return HST_SUCCESS;
}

/* >>images ----------------------------------------------------------------------------------- */
/* Element dtype and channel count of a pixel; c64 is a pair of float channels. */
static hst_result hst__image_check(const hst_backend *be, hst_dtype dt, unsigned channels,
                                   unsigned ndim, const size_t *shape) {
    static const char *F = "hst_image_from_array";
    unsigned i;
    if (dt != HST_U8 && dt != HST_I32 && dt != HST_F32 && dt != HST_C64) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_DTYPE, "%s: no image format holds dtype %s", F,
                 hst_dtype_name(dt));
        return HST_ERROR_DTYPE;
    }
    if (channels != 1 && channels != 2 && channels != 4)
        return hst__bad_arg(be, F, "channels %u is not 1, 2 or 4", channels);
    if (dt == HST_C64 && channels != 1 && channels != 2)
        return hst__bad_arg(be, F, "c64 images hold 1 or 2 complex values per pixel");
    if (ndim != 2 && ndim != 3) return hst__bad_arg(be, F, "ndim %u is not 2 or 3", ndim);
    if (!shape) return hst__bad_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++)
        if (!shape[i]) return hst__bad_arg(be, F, "shape[%u] is 0", i);
    if (!be->info.images) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED, "%s: %s has no image support", F, be->info.name);
        return HST_ERROR_UNSUPPORTED;
    }
    return HST_SUCCESS;
}

#ifndef HST_NO_OPENCL
/* PyOpenCL's image_from_array table: dtype -> channel type, channels -> channel order. */
static cl_image_format hst__cl_image_format(hst_dtype dt, unsigned channels, int normalized) {
    cl_image_format f;
    unsigned ch = dt == HST_C64 ? channels * 2 : channels;
    f.image_channel_order = ch == 1 ? CL_R : ch == 2 ? CL_RG : CL_RGBA;
    f.image_channel_data_type = dt == HST_U8 ? (normalized ? CL_UNORM_INT8 : CL_UNSIGNED_INT8)
                              : dt == HST_I32 ? CL_SIGNED_INT32 : CL_FLOAT;
    return f;
}

static hst_result hst__cl_image_create(hst_image *img, int normalized, const void *host) {
    hst_backend *be = img->be;
    cl_image_format fmt = hst__cl_image_format(img->dtype, img->channels, normalized);
    cl_image_desc d;
    cl_int err;
    memset(&d, 0, sizeof d);
    d.image_type = img->ndim == 2 ? CL_MEM_OBJECT_IMAGE2D : CL_MEM_OBJECT_IMAGE3D;
    d.image_width = img->extent[0];
    d.image_height = img->extent[1];
    d.image_depth = img->ndim == 3 ? img->extent[2] : 1;
    img->cl = clCreateImage(be->ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), &fmt,
                            &d, (void *)host, &err);
    if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED,
                 "hst_image_from_array: %s does not support %u-channel %s images", be->info.name,
                 img->channels, hst_dtype_name(img->dtype));
        return HST_ERROR_UNSUPPORTED;
    }
    return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(be, "clCreateImage", err);
}
#endif

HST__BDEF hst_result hst_image_from_array(hst_backend *be, hst_dtype dtype, unsigned channels,
                                        int normalized, unsigned ndim, const size_t *shape,
                                        const void *host, hst_image **out) {
    static const char *F = "hst_image_from_array";
    hst_image *img;
    hst_result r;
    size_t bytes;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if ((r = hst__image_check(be, dtype, channels, ndim, shape)) != HST_SUCCESS) return r;
    if (!(img = (hst_image *)hst__calloc(be, sizeof *img))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    img->be = be; img->dtype = dtype; img->channels = channels; img->ndim = ndim;
    img->normalized = dtype == HST_U8 && normalized;
    img->extent[0] = shape[ndim - 1];            /* C order: the last axis is x */
    img->extent[1] = shape[ndim - 2];
    img->extent[2] = ndim == 3 ? shape[0] : 1;
    img->pixel_bytes = hst_dtype_size(dtype) * channels;
    if (!hst__mul(img->extent[0], img->extent[1], &bytes) || !hst__mul(bytes, img->extent[2], &bytes) ||
        !hst__mul(bytes, img->pixel_bytes, &bytes)) {
        hst__free(be, img);
        return hst__overflow(be, F, "shape * pixel bytes");
    }
    if ((r = hst__reserve(be, F, bytes)) != HST_SUCCESS) { hst__free(be, img); return r; }
    img->reserved = bytes;
#ifndef HST_NO_OPENCL
    if (be->ctx) r = hst__cl_image_create(img, normalized, host);
    else
#endif
    {
        (void)normalized;
        img->host = hst__malloc(be, bytes);
        r = img->host ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
        if (img->host && host) memcpy(img->host, host, bytes);
    }
    if (r != HST_SUCCESS) { hst_image_destroy(img); return r; }
    *out = img;
    return HST_SUCCESS;
}

HST__BDEF void hst_image_destroy(hst_image *img) {
    if (!img) return;
#ifndef HST_NO_OPENCL
    if (img->cl) clReleaseMemObject(img->cl);
#endif
    hst__free(img->be, img->host);
    hst__unreserve(img->be, img->reserved);
    hst__free(img->be, img);
}

HST__BDEF size_t hst_image_pixel_bytes(const hst_image *img) { return img ? img->pixel_bytes : 0; }
#ifndef HST_NO_OPENCL
HST__BDEF cl_mem hst_image_cl(const hst_image *img) { return img ? img->cl : NULL; }
#endif

/* The pixel box [origin, origin+region) lies inside the image. */
static hst_result hst__image_box(const hst_queue *q, const char *func, const hst_image *img,
                                 const size_t *origin, const size_t *region) {
    int i;
    if (!img) return hst__bad_arg(q->be, func, "image is NULL");
    if (img->be != q->be) {
        hst__log(q->be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH, "%s: the image belongs to another backend", func);
        return HST_ERROR_SHAPE;
    }
    if (!origin || !region) return hst__bad_arg(q->be, func, "%s is NULL", origin ? "region" : "origin");
    for (i = 0; i < 3; i++)
        if (region[i] == 0 || origin[i] >= img->extent[i] || region[i] > img->extent[i] - origin[i])
            return hst__bad_arg(q->be, func, "the box [%zu, +%zu) leaves the image's %zu pixels "
                                "along axis %d", origin[i], region[i], img->extent[i], i);
    return HST_SUCCESS;
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
static hst__rect_abs hst__host_rect(const hst_image *img, const size_t *region, size_t row_pitch,
                                    size_t slice_pitch) {
    hst__rect_abs r;
    memset(&r, 0, sizeof r);
    r.row_pitch = row_pitch ? row_pitch : region[0] * img->pixel_bytes;
    r.slice_pitch = slice_pitch ? slice_pitch : r.row_pitch * region[1];
    return r;
}

static hst_result hst__image_rw(hst_queue *q, const char *func, int write, hst_image *img,
                                const size_t *origin, const size_t *region, void *host,
                                size_t row_pitch, size_t slice_pitch, int blocking,
                                size_t num_wait, const hst_event *wait, hst_event *out) {
    hst_result r;
    if ((r = hst__check_enqueue(q, func, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, func, img, origin, region)) != HST_SUCCESS) return r;
    if (!host) return hst__bad_arg(q->be, func, "the host pointer is NULL");
#ifndef HST_NO_OPENCL
    if (img->cl) {
        hst__waitlist w;
        cl_int err;
        cl_bool blk = blocking ? CL_TRUE : CL_FALSE;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = write ? clEnqueueWriteImage(q->cl, img->cl, blk, origin, region, row_pitch, slice_pitch, host, w.n, w.ev, out)
                    : clEnqueueReadImage(q->cl, img->cl, blk, origin, region, row_pitch, slice_pitch, host, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, func, err);
    }
#endif
    (void)blocking;
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    {
        hst__rect_abs ir = hst__image_rect(img, origin), hr = hst__host_rect(img, region, row_pitch, slice_pitch);
        size_t reg[3];
        reg[0] = region[0] * img->pixel_bytes; reg[1] = region[1]; reg[2] = region[2];
        if (write) hst__rect_memcpy(img->host, &ir, host, &hr, reg);
        else hst__rect_memcpy(host, &hr, img->host, &ir, reg);
    }
    return HST_SUCCESS;
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
        hst__log(q->be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH, "%s: the images' formats differ", F);
        return HST_ERROR_SHAPE;
    }
#ifndef HST_NO_OPENCL
    if (dst->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueCopyImage(q->cl, src->cl, dst->cl, src_origin, dst_origin, region, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueCopyImage", err);
    }
#endif
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    {
        hst__rect_abs d = hst__image_rect(dst, dst_origin), s = hst__image_rect(src, src_origin);
        size_t reg[3];
        reg[0] = region[0] * dst->pixel_bytes; reg[1] = region[1]; reg[2] = region[2];
        hst__rect_memcpy(dst->host, &d, src->host, &s, reg);
    }
    return HST_SUCCESS;
}

/* One pixel from a fill colour, converted as OpenCL converts fill colours (host device). */
static void hst__pixel_from_color(const hst_image *img, const void *color, unsigned char *px) {
    unsigned c, n = img->dtype == HST_C64 ? img->channels * 2 : img->channels;
    for (c = 0; c < n; c++) {
        if (img->dtype == HST_U8 && img->normalized) {
            float v = ((const float *)color)[c];
            v = v > 1.0f ? 1.0f : v < 0.0f ? 0.0f : v;   /* NaN is not < 0: clears below */
            px[c] = (unsigned char)(v == v ? nearbyintf(v * 255.0f) : 0.0f);
        } else if (img->dtype == HST_U8) {
            uint32_t v = ((const uint32_t *)color)[c];
            px[c] = (unsigned char)(v > 255 ? 255 : v);
        } else if (img->dtype == HST_I32) {
            memcpy(px + 4 * c, (const int32_t *)color + c, 4);
        } else {
            memcpy(px + 4 * c, (const float *)color + c, 4);
        }
    }
}

HST__BDEF hst_result hst_image_fill(hst_queue *q, hst_image *img, const void *color,
                                  const size_t origin[3], const size_t region[3],
                                  size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_image_fill";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, img, origin, region)) != HST_SUCCESS) return r;
    if (!color) return hst__bad_arg(q->be, F, "color is NULL");
#ifndef HST_NO_OPENCL
    if (img->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueFillImage(q->cl, img->cl, color, origin, region, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueFillImage", err);
    }
#endif
    if ((r = hst__host_begin(num_wait, wait, out)) != HST_SUCCESS) return r;
    {
        unsigned char px[32];
        hst__rect_abs d = hst__image_rect(img, origin);
        size_t x, y, z;
        hst__pixel_from_color(img, color, px);
        for (z = 0; z < region[2]; z++)
            for (y = 0; y < region[1]; y++)
                for (x = 0; x < region[0]; x++)
                    memcpy((char *)img->host + hst__rect_offset(&d) + z * d.slice_pitch +
                           y * d.row_pitch + x * img->pixel_bytes, px, img->pixel_bytes);
    }
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_image_map(hst_queue *q, hst_image *img, unsigned map_flags,
                                 const size_t origin[3], const size_t region[3],
                                 size_t *row_pitch, size_t *slice_pitch, void **ptr) {
    static const char *F = "hst_image_map";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, 0, NULL)) != HST_SUCCESS) return r;
    if ((r = hst__image_box(q, F, img, origin, region)) != HST_SUCCESS) return r;
    if (!row_pitch || !slice_pitch || !ptr) return hst__bad_arg(q->be, F, "an output pointer is NULL");
    if (!map_flags || (map_flags & ~7u)) return hst__bad_arg(q->be, F, "map_flags 0x%x", map_flags);
#ifndef HST_NO_OPENCL
    if (img->cl) {
        cl_int err;
        cl_map_flags f = ((map_flags & HST_MAP_READ) ? CL_MAP_READ : 0) |
                         ((map_flags & HST_MAP_WRITE) ? CL_MAP_WRITE : 0) |
                         ((map_flags & HST_MAP_WRITE_INVALIDATE) ? CL_MAP_WRITE_INVALIDATE_REGION : 0);
        *ptr = clEnqueueMapImage(q->cl, img->cl, CL_TRUE, f, origin, region, row_pitch, slice_pitch, 0, NULL, NULL, &err);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueMapImage", err);
    }
#endif
    {
        hst__rect_abs d = hst__image_rect(img, origin);
        *row_pitch = d.row_pitch;
        *slice_pitch = img->ndim == 3 ? d.slice_pitch : 0;   /* OpenCL reports 0 for 2-D */
        *ptr = (char *)img->host + hst__rect_offset(&d);
    }
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_image_unmap(hst_queue *q, hst_image *img, void *ptr,
                                   size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_image_unmap";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!img || !ptr) return hst__bad_arg(q->be, F, "%s is NULL", img ? "ptr" : "img");
#ifndef HST_NO_OPENCL
    if (img->cl) {
        hst__waitlist w;
        cl_int err;
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueUnmapMemObject(q->cl, img->cl, ptr, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueUnmapMemObject", err);
    }
#endif
    return hst__host_begin(num_wait, wait, out);
}

HST__BDEF hst_result hst_sampler_create(hst_backend *be, int normalized_coords,
                                      unsigned address_mode, unsigned filter_mode,
                                      hst_sampler **out) {
    static const char *F = "hst_sampler_create";
    hst_sampler *s;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (address_mode > HST_ADDRESS_MIRRORED_REPEAT) return hst__bad_arg(be, F, "address_mode %u", address_mode);
    if (filter_mode > HST_FILTER_LINEAR) return hst__bad_arg(be, F, "filter_mode %u", filter_mode);
    if (!normalized_coords && address_mode >= HST_ADDRESS_REPEAT)
        return hst__bad_arg(be, F, "repeat addressing needs normalized coordinates");
    if (!(s = (hst_sampler *)hst__calloc(be, sizeof *s))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    s->be = be; s->normalized = normalized_coords; s->address = address_mode; s->filter = filter_mode;
#ifndef HST_NO_OPENCL
    if (be->ctx) {
        static const cl_addressing_mode am[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
        cl_sampler_properties props[7];
        cl_int err;
        props[0] = CL_SAMPLER_NORMALIZED_COORDS; props[1] = normalized_coords ? CL_TRUE : CL_FALSE;
        props[2] = CL_SAMPLER_ADDRESSING_MODE; props[3] = am[address_mode];
        props[4] = CL_SAMPLER_FILTER_MODE; props[5] = filter_mode ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
        props[6] = 0;
        if (hst__cl_version_at_least(be->info.version, 2)) {
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
        if (err != CL_SUCCESS) { hst__free(be, s); return hst__cl_fail(be, "clCreateSampler", err); }
    }
#endif
    *out = s;
    return HST_SUCCESS;
}

HST__BDEF void hst_sampler_destroy(hst_sampler *s) {
    if (!s) return;
#ifndef HST_NO_OPENCL
    if (s->cl) clReleaseSampler(s->cl);
#endif
    hst__free(s->be, s);
}
#ifndef HST_NO_OPENCL
HST__BDEF cl_sampler hst_sampler_cl(const hst_sampler *s) { return s ? s->cl : NULL; }
#endif

/* >>pool ------------------------------------------------------------------------------------- */
HST__BDEF size_t hst_pool_bin_bytes(size_t bytes) {
    size_t top = 0, shift, unit, bin;
    if (bytes < ((size_t)2 << HST_POOL_MANTISSA_BITS)) return bytes;   /* small: exact */
    while ((bytes >> top) > 1) top++;                 /* floor(log2(bytes)) */
    shift = top - HST_POOL_MANTISSA_BITS;             /* keep the top bit and 4 more */
    unit = (size_t)1 << shift;
    if (!hst__add(bytes, unit - 1, &bin)) return 0;
    return bin & ~(unit - 1);
}

HST__BDEF hst_result hst_pool_create(hst_backend *be, hst_pool **out) {
    hst_pool *p;
    if (!be) return hst__bad_arg(NULL, "hst_pool_create", "be is NULL");
    if (!out) return hst__bad_arg(be, "hst_pool_create", "out is NULL");
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
        hst__log(pool->be, HST_LOG_WARN, HST_LOG_BAD_ARGUMENT,
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
        hst__log(pool->be, HST_LOG_WARN, HST_LOG_POOL_RELEASED_HELD,
                 "hst_pool_alloc: out of memory for %zu bytes; freeing a held block of %zu "
                 "bytes and retrying", bin, pool->held->capacity);
        hst__pool_release_largest(pool);
    }
}

HST__BDEF hst_result hst_pool_alloc(hst_pool *pool, size_t bytes, hst_buffer **out) {
    size_t bin;
    hst_buffer *b;
    hst_result r;
    if (!pool) return hst__bad_arg(NULL, "hst_pool_alloc", "pool is NULL");
    if (!out) return hst__bad_arg(pool->be, "hst_pool_alloc", "out is NULL");
    *out = NULL;
    if (bytes == 0) return hst__bad_arg(pool->be, "hst_pool_alloc", "bytes is 0");
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
        key[k] = hst__hash_final(h);
    }
}

/* A temporary file name beside path, unique per process and thread without a shared counter
   (threads would race on one): the caller's stack address tells threads apart, and a thread
   renames each temporary file before it makes the next. */
static void hst__temp_name(char *buf, size_t cap, const char *path, const void *stack) {
#if defined(_WIN32)
    snprintf(buf, cap, "%s.%lu.%lx.tmp", path, (unsigned long)time(NULL),
             (unsigned long)(uintptr_t)stack);
#else
    snprintf(buf, cap, "%s.%ld.%lx.tmp", path, (long)getpid(), (unsigned long)(uintptr_t)stack);
#endif
}

#ifndef HST_NO_OPENCL
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
        hst__hash_final(hst_hash_bytes(HST_HASH_SEED, data, (size_t)h.bytes)) == h.check) {
        *corrupt = 0;
        *bytes = (size_t)h.bytes;
    } else {
        hst__free(be, data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static void hst__mkdirs(const char *dir) {
    char tmp[1024];
    size_t i;
    hst__copy_string(tmp, sizeof tmp, dir);
    for (i = 1; tmp[i]; i++) {
        if (tmp[i] != '/') continue;
        tmp[i] = '\0';
#if defined(_WIN32)
        _mkdir(tmp);
#else
        mkdir(tmp, 0755);
#endif
        tmp[i] = '/';
    }
#if defined(_WIN32)
    _mkdir(tmp);
#else
    mkdir(tmp, 0755);
#endif
}

/* Writes an entry atomically: a unique temporary file renamed over the final name, so readers
   never see a half-written entry and two writers of the same key both leave a whole one. */
static hst_result hst__cache_write(const hst_backend *be, const uint64_t key[2],
                                   const unsigned char *data, size_t bytes) {
    char path[1200], tmp[1300];
    hst__cache_header h;
    FILE *f;
    int ok;
    hst__mkdirs(be->cache_dir);
    hst__cache_path(be, key, path, sizeof path);
    hst__temp_name(tmp, sizeof tmp, path, &h);
    memcpy(h.magic, HST__CACHE_MAGIC, 8);
    h.key[0] = key[0]; h.key[1] = key[1]; h.bytes = bytes;
    h.check = hst__hash_final(hst_hash_bytes(HST_HASH_SEED, data, bytes));
    if (!(f = fopen(tmp, "wb"))) {
        hst__log(be, HST_LOG_WARN, HST_LOG_CACHE_WRITE_FAILED, "cannot create %s: %s", tmp, strerror(errno));
        return HST_ERROR_IO;
    }
    ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, bytes, f) == bytes;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        hst__log(be, HST_LOG_WARN, HST_LOG_CACHE_WRITE_FAILED, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return HST_ERROR_IO;
    }
    return HST_SUCCESS;
}

#endif

static hst_program *hst__program_find(hst_backend *be, const uint64_t key[2]) {
    hst_program *p;
    for (p = be->programs; p; p = p->next)
        if (p->key[0] == key[0] && p->key[1] == key[1]) return p;
    return NULL;
}

#ifndef HST_NO_OPENCL
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
        hst__log_build(be, HST_LOG_ERROR, HST_LOG_BUILD_FAILED, what, log);
    } else if (log) {
        hst__log_build(be, HST_LOG_INFO, HST_LOG_BUILD_WARNINGS, "hst_program_build: build log:", log);
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
            hst__log(be, HST_LOG_INFO, HST_LOG_CACHE_HIT, "program %016llx%016llx from %s",
                     (unsigned long long)key[0], (unsigned long long)key[1], be->cache_dir);
            return prog;
        }
        if (prog) clReleaseProgram(prog);
        prog = NULL;
        corrupt = 1;
        hst__free(be, bin);
    }
    if (corrupt)
        hst__log(be, HST_LOG_WARN, HST_LOG_CACHE_CORRUPT, "cache entry %016llx%016llx in %s is "
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

static hst_result hst__program_compile(hst_backend *be, size_t count, const char *const *src,
                                       const char *options, const uint64_t key[2], cl_program *out) {
    cl_int err;
    hst_result r;
    if ((*out = hst__program_from_cache(be, key, options)) != NULL) return HST_SUCCESS;
    *out = clCreateProgramWithSource(be->ctx, (cl_uint)count, (const char **)src, NULL, &err);
    if (err != CL_SUCCESS) return hst__cl_fail(be, "clCreateProgramWithSource", err);
    if ((r = hst__cl_build(be, *out, options)) != HST_SUCCESS) {
        clReleaseProgram(*out);
        *out = NULL;
        return r;
    }
    hst__program_to_cache(be, key, *out);
    return HST_SUCCESS;
}
#endif

static hst_result hst__unsupported_on_host(const hst_backend *be, const char *func) {
    hst__log(be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED, "%s: the host device runs the C twins of "
             "kernels, not OpenCL programs; select an OpenCL device", func);
    return HST_ERROR_UNSUPPORTED;
}

HST__BDEF hst_result hst_program_build(hst_backend *be, size_t count, const char *const *sources,
                                     const char *options, hst_program **out) {
    static const char *F = "hst_program_build";
    uint64_t key[2];
    hst_program *p;
    size_t i;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (!count || !sources) return hst__bad_arg(be, F, "no sources given");
    for (i = 0; i < count; i++)
        if (!sources[i]) return hst__bad_arg(be, F, "sources[%zu] is NULL", i);
    if (!hst__is_cl(be)) return hst__unsupported_on_host(be, F);
    if (!options) options = "";
    hst__program_key(be, count, sources, options, key);
    if ((p = hst__program_find(be, key)) != NULL) { p->refs++; *out = p; return HST_SUCCESS; }
    if (!(p = (hst_program *)hst__calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
#ifndef HST_NO_OPENCL
    {
        hst_result r = hst__program_compile(be, count, sources, options, key, &p->cl);
        if (r != HST_SUCCESS) { hst__free(be, p); return r; }
    }
#endif
    p->be = be; p->key[0] = key[0]; p->key[1] = key[1]; p->refs = 1;
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
    if (!prog) return hst__bad_arg(NULL, F, "prog is NULL");
    if (!name || !out) return hst__bad_arg(prog->be, F, "%s is NULL", name ? "out" : "name");
    *out = NULL;
    if (!(k = (hst_kernel *)hst__calloc(prog->be, sizeof *k))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    k->prog = prog;
#ifndef HST_NO_OPENCL
    {
        cl_int err;
        k->cl = clCreateKernel(prog->cl, name, &err);
        if (err != CL_SUCCESS) {
            hst__free(prog->be, k);
            hst__log(prog->be, HST_LOG_ERROR, HST_LOG_CL_ERROR, "%s: no kernel '%s' (%s)", F, name,
                     hst_result_string(err));
            return err;
        }
    }
#endif
    *out = k;
    return HST_SUCCESS;
}

HST__BDEF void hst_kernel_destroy(hst_kernel *k) {
    if (!k) return;
#ifndef HST_NO_OPENCL
    if (k->cl) clReleaseKernel(k->cl);
#endif
    hst__free(k->prog->be, k);
}

HST__BDEF hst_result hst_kernel_set_arg(hst_kernel *k, unsigned index, size_t bytes,
                                      const void *value) {
    if (!k) return hst__bad_arg(NULL, "hst_kernel_set_arg", "k is NULL");
#ifndef HST_NO_OPENCL
    {
        cl_int err = clSetKernelArg(k->cl, index, bytes, value);
        if (err != CL_SUCCESS) {
            hst__log(k->prog->be, HST_LOG_ERROR, HST_LOG_CL_ERROR, "hst_kernel_set_arg: argument "
                     "%u (%zu bytes): %s", index, bytes, hst_result_string(err));
            return err;
        }
    }
#else
    (void)index; (void)bytes; (void)value;
#endif
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_kernel_set_buffer(hst_kernel *k, unsigned index, const hst_buffer *buf) {
    if (!k || !buf) return hst__bad_arg(k ? k->prog->be : NULL, "hst_kernel_set_buffer", "%s is NULL", k ? "buf" : "k");
#ifndef HST_NO_OPENCL
    return hst_kernel_set_arg(k, index, sizeof(cl_mem), &buf->cl);
#else
    (void)index;
    return HST_SUCCESS;
#endif
}

HST__BDEF hst_result hst_kernel_set_image(hst_kernel *k, unsigned index, const hst_image *img) {
    if (!k || !img) return hst__bad_arg(k ? k->prog->be : NULL, "hst_kernel_set_image", "%s is NULL", k ? "img" : "k");
#ifndef HST_NO_OPENCL
    return hst_kernel_set_arg(k, index, sizeof(cl_mem), &img->cl);
#else
    (void)index;
    return HST_SUCCESS;
#endif
}

HST__BDEF hst_result hst_kernel_set_sampler(hst_kernel *k, unsigned index, const hst_sampler *s) {
    if (!k || !s) return hst__bad_arg(k ? k->prog->be : NULL, "hst_kernel_set_sampler", "%s is NULL", k ? "s" : "k");
#ifndef HST_NO_OPENCL
    return hst_kernel_set_arg(k, index, sizeof(cl_sampler), &s->cl);
#else
    (void)index;
    return HST_SUCCESS;
#endif
}

HST__BDEF hst_result hst_kernel_set_svm(hst_kernel *k, unsigned index, const void *ptr) {
    if (!k || !ptr) return hst__bad_arg(k ? k->prog->be : NULL, "hst_kernel_set_svm", "%s is NULL", k ? "ptr" : "k");
#ifndef HST_NO_OPENCL
    {
        cl_int err = clSetKernelArgSVMPointer(k->cl, index, ptr);
        if (err != CL_SUCCESS) return hst__cl_fail(k->prog->be, "clSetKernelArgSVMPointer", err);
    }
#else
    (void)index;
#endif
    return HST_SUCCESS;
}

/* >>launch ----------------------------------------------------------------------------------- */
#ifndef HST_NO_OPENCL
/* The default work-group: 256 / 16x16 / 8x8x4, halved (largest axis first) until the kernel
   accepts it on this device. */
static void hst__default_local(const hst_kernel *k, cl_device_id dev, unsigned dims, size_t *local) {
    size_t max = 0, prod;
    unsigned i;
    if (clGetKernelWorkGroupInfo(k->cl, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL) != CL_SUCCESS || !max)
        max = 1;
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
#endif

HST__BDEF hst_result hst_launch(hst_queue *q, hst_kernel *k, unsigned dims, const size_t *global,
                              const size_t *local,
                              size_t num_wait, const hst_event *wait, hst_event *out) {
    static const char *F = "hst_launch";
    hst_result r;
    if ((r = hst__check_enqueue(q, F, num_wait, wait)) != HST_SUCCESS) return r;
    if (!k) return hst__bad_arg(q->be, F, "k is NULL");
    if (dims < 1 || dims > 3) return hst__bad_arg(q->be, F, "dims %u is not 1, 2 or 3", dims);
    if (!global) return hst__bad_arg(q->be, F, "global is NULL");
    if (!hst__is_cl(q->be)) return hst__unsupported_on_host(q->be, F);
#ifndef HST_NO_OPENCL
    {
        size_t loc[3] = {1, 1, 1}, glob[3] = {1, 1, 1};
        unsigned i;
        hst__waitlist w;
        cl_int err;
        if (local) for (i = 0; i < dims; i++) loc[i] = local[i];
        else hst__default_local(k, q->be->dev, dims, loc);
        for (i = 0; i < dims; i++) {
            if (!global[i] || !loc[i])
                return hst__bad_arg(q->be, F, "global[%u] = %zu, local[%u] = %zu: sizes must be > 0",
                                    i, global[i], i, loc[i]);
            if (!hst__add(global[i], loc[i] - 1, &glob[i])) return hst__overflow(q->be, F, "global size");
            glob[i] -= glob[i] % loc[i];   /* rounded up to the work-group multiple */
        }
        if ((r = hst__wl_init(q->be, &w, num_wait, wait)) != HST_SUCCESS) return r;
        err = clEnqueueNDRangeKernel(q->cl, k->cl, dims, NULL, glob, loc, w.n, w.ev, out);
        hst__wl_free(q->be, &w);
        return err == CL_SUCCESS ? HST_SUCCESS : hst__cl_fail(q->be, "clEnqueueNDRangeKernel", err);
    }
#else
    (void)local; (void)out;
    return HST_ERROR_UNSUPPORTED;
#endif
}

/* >>choice ----------------------------------------------------------------------------------- */
#define HST__CHOICE_MAGIC "halostream-choice 1"
#define HST__CHOICE_MAX_FILE_BYTES ((size_t)16 << 20)  /* larger: not ours, or corrupt */
/* Part of the free-memory estimate a split plans to use: drivers keep some memory back (the
   NVIDIA OpenCL driver a few hundred MiB) and allocations fragment. */
#define HST__CHOICE_FREE_FRACTION 0.75
#define HST__CHOICE_MAX_PARTS ((size_t)1 << 16)   /* beyond this a split cannot help */
#define HST__CHOICE_LOCK_WAIT_S 5.0   /* the lock-directory fallback's patience, then it goes on */

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
} hst__choice_sig;

typedef struct hst__choice_impl {
    hst_choice_impl pub;           /* name and device_id point at the copies below */
    char *name, *device;
    int warm;                      /* has run once in this process */
} hst__choice_impl;

typedef struct hst__choice_dflt {
    unsigned impl;
    hst__choice_key key;
    double seconds;
} hst__choice_dflt;

struct hst_choice_op {
    struct hst__choice *reg;
    char *name;
    hst__choice_impl impl[HST_CHOICE_MAX_IMPLS];
    unsigned nimpl, reference;
    int force_desc, force_env;     /* -1: none */
    hst__choice_dflt *defaults;
    size_t ndefaults;
    hst_choice_split_fn split;
    uint64_t (*work_bytes)(const void *args);
    hst_result (*output)(void *args, double *dst, size_t capacity, size_t *count);
    int no_warmup, no_explore;
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
#if defined(CLOCK_MONOTONIC)
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
#elif !defined(_WIN32)
    {   /* strict C99 hides clock_gettime: wall time with microseconds is the next best */
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
    }
#else
    return (double)clock() / CLOCKS_PER_SEC;   /* elapsed wall time on Windows */
#endif
}

HST__BDEF double hst_time_s(void) { return hst__choice_default_clock(NULL); }

static char *hst__choice_strdup(const hst_backend *be, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)hst__malloc(be, n);
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
    if (k->n == 0) hst__copy_string(buf, cap, "-");
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
    if (override && *override) hst__copy_string(buf, cap, override);
    else snprintf(buf, cap, "%s | %s", be->info.name, be->info.driver_version);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r') buf[i] = ' ';
}

static hst__choice *hst__choice_get(hst_backend *be) {
    hst__choice *reg;
    if (be->choice) return be->choice;
    if (!(reg = (hst__choice *)hst__calloc(be, sizeof *reg))) return NULL;
    reg->be = be;
    reg->clock = hst__choice_default_clock;
    reg->last_save = reg->clock(NULL);
    if (be->cache_dir[0]) {
#if defined(_WIN32)
        snprintf(reg->path, sizeof reg->path, "%s/choice.txt", be->cache_dir);
#else
        snprintf(reg->path, sizeof reg->path, "%s/choice-u%lu.txt", be->cache_dir,
                 (unsigned long)getuid());
#endif
    }
    be->choice = reg;
    return reg;
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
        hst__choice_sig *n = (hst__choice_sig *)hst__malloc(op->reg->be, cap * sizeof *n);
        if (!n) return NULL;
        if (op->nsigs) memcpy(n, op->sigs, op->nsigs * sizeof *n);
        hst__free(op->reg->be, op->sigs);
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
    hst__free(be, r->op); hst__free(be, r->impl); hst__free(be, r->device);
}

/* Appends a copy of r (strings duplicated); the index, or -1 when out of memory. */
static long hst__choice_add_rec(hst__choice *reg, const hst__choice_rec *r) {
    hst__choice_rec *d;
    if (reg->nrecs == reg->caprecs) {
        size_t cap = reg->caprecs ? 2 * reg->caprecs : 32;
        hst__choice_rec *n = (hst__choice_rec *)hst__malloc(reg->be, cap * sizeof *n);
        if (!n) return -1;
        if (reg->nrecs) memcpy(n, reg->recs, reg->nrecs * sizeof *n);
        hst__free(reg->be, reg->recs);
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
        n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) { t->failed = 1; return; }
        if (t->p && t->len + (size_t)n < t->cap) { t->len += (size_t)n; return; }
        {
            size_t cap = (t->cap ? 2 * t->cap : 4096) + (size_t)n;
            char *p = (char *)hst__malloc(be, cap);
            if (!p) { t->failed = 1; return; }
            if (t->p) memcpy(p, t->p, t->len + 1);
            hst__free(be, t->p);
            t->p = p;
            t->cap = cap;
        }
    }
}

static uint64_t hst__choice_text_hash(const char *p, size_t n) {
    return hst__hash_final(hst_hash_bytes(HST_HASH_SEED, p, n));
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
   absent or valid, 0 when it is corrupt or foreign. Layout: the magic line, one line per
   record, then "end <records> <hash of every byte before this line>". */
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
    if (!(p = (char *)hst__malloc(reg->be, (size_t)size + 1))) { fclose(f); return 1; }
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
            hst__choice_rec *r = (hst__choice_rec *)hst__malloc(reg->be, c * sizeof *r);
            if (!r) return 0;
            if (*count) memcpy(r, *out, *count * sizeof *r);
            hst__free(reg->be, *out);
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
   it last synchronised. ok = 0: the file was unusable (warned about once). */
static void hst__choice_merge(hst__choice *reg, int ok, hst__choice_rec *disk, size_t n) {
    size_t i;
    unsigned j;
    if (!ok) {
        if (!reg->warned_file)
            hst__log(reg->be, HST_LOG_WARN, HST_LOG_CHOICE_FILE_IGNORED,
                     "timings file %s is corrupt or not halostream's; ignored (it is replaced "
                     "at the next save)", reg->path);
        reg->warned_file = 1;
        return;
    }
    for (i = 0; i < n; i++) {
        long m = hst__choice_find_rec(reg, &disk[i]);
        if (m < 0) {
            disk[i].fresh = 0;
            if ((m = hst__choice_add_rec(reg, &disk[i])) >= 0) hst__choice_attach(reg, (size_t)m);
        } else {
            hst__choice_rec *r = &reg->recs[m];
            double mine[HST_CHOICE_HISTORY];
            unsigned f = r->fresh < r->n ? r->fresh : r->n;
            memcpy(mine, r->t + (r->n - f), f * sizeof mine[0]);
            memcpy(r->t, disk[i].t, disk[i].n * sizeof r->t[0]);
            r->n = disk[i].n;
            for (j = 0; j < f; j++) hst__choice_push(r, mine[j]);
        }
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
    hst__free(reg->be, disk);
    hst__free(reg->be, buf);
}

/* Linux's open-file-description locks (3.15 and later; glibc names them only under
   _GNU_SOURCE, which a header cannot count on): owned by the open file, not the process, so
   the threads of one process exclude each other too, and closing one descriptor does not drop
   another thread's lock, as it does with F_SETLKW. */
#if defined(__linux__) && !defined(_WIN32)
#  ifdef F_OFD_SETLKW
#    define HST__F_OFD_SETLKW F_OFD_SETLKW
#  else
#    define HST__F_OFD_SETLKW 38
#  endif
#endif

/* The advisory lock around read-merge-write: fcntl on "<path>.lock" (released by close, also
   when the process dies), per open file where Linux has it (threads exclude each other), else
   per process; elsewhere a lock directory, waited for at most HST__CHOICE_LOCK_WAIT_S and then
   ignored (an abandoned one would block forever). */
static int hst__choice_lock(const hst__choice *reg, char *lockpath, size_t cap) {
#if !defined(_WIN32)
    struct flock fl;
    int fd, cmd = F_SETLKW;
    snprintf(lockpath, cap, "%s.lock", reg->path);
    if ((fd = open(lockpath, O_RDWR | O_CREAT, 0644)) < 0) return -1;
    memset(&fl, 0, sizeof fl);   /* l_pid 0, as open-file-description locks require */
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
#  ifdef HST__F_OFD_SETLKW
    cmd = HST__F_OFD_SETLKW;
#  endif
    while (fcntl(fd, cmd, &fl) != 0) {
        if (errno == EINVAL && cmd != F_SETLKW) { cmd = F_SETLKW; continue; }  /* older kernel */
        if (errno != EINTR) { close(fd); return -1; }
    }
    return fd;
#else
    time_t start = time(NULL);
    snprintf(lockpath, cap, "%s.lockdir", reg->path);
    while (_mkdir(lockpath) != 0)
        if (difftime(time(NULL), start) > HST__CHOICE_LOCK_WAIT_S) return -1;
    return 1;
#endif
}

static void hst__choice_unlock(int fd, const char *lockpath) {
#if !defined(_WIN32)
    (void)lockpath;
    if (fd >= 0) close(fd);   /* releases the fcntl lock; the file stays for the next one */
#else
    if (fd >= 0) _rmdir(lockpath);
#endif
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
    if (t.failed) { hst__free(reg->be, t.p); return HST_ERROR_OUT_OF_HOST_MEMORY; }
    hst__temp_name(tmp, sizeof tmp, reg->path, &t);
    ok = (f = fopen(tmp, "wb")) != NULL;
    if (ok) {
        ok = fwrite(t.p, 1, t.len, f) == t.len;
        ok = (fclose(f) == 0) && ok;
    }
#if defined(_WIN32)
    if (ok) remove(reg->path);   /* Windows' rename does not replace; the lock covers the gap */
#endif
    if (!ok || rename(tmp, reg->path) != 0) {
        hst__log(reg->be, HST_LOG_WARN, HST_LOG_CACHE_WRITE_FAILED, "cannot write timings file "
                 "%s: %s", reg->path, strerror(errno));
        remove(tmp);
        hst__free(reg->be, t.p);
        return HST_ERROR_IO;
    }
    hst__free(reg->be, t.p);
    for (i = 0; i < reg->nrecs; i++) reg->recs[i].fresh = 0;
    return HST_SUCCESS;
}

/* Creates the directories above `path` (the program cache's hst__mkdirs exists only with
   OpenCL); failures show when the file is written. */
static void hst__choice_mkdirs(const char *path) {
    char dir[1100];
    size_t i;
    hst__copy_string(dir, sizeof dir, path);
    for (i = 1; dir[i]; i++) {
        if (dir[i] != '/') continue;
        dir[i] = '\0';
#if defined(_WIN32)
        _mkdir(dir);
#else
        mkdir(dir, 0755);
#endif
        dir[i] = '/';
    }
}

static int hst__choice_dirty(const hst__choice *reg) {
    size_t i;
    for (i = 0; i < reg->nrecs; i++) if (reg->recs[i].fresh) return 1;
    return 0;
}

static hst_result hst__choice_save(hst__choice *reg) {
    char lockpath[1200], *buf;
    hst__choice_rec *disk;
    size_t n;
    int fd, ok;
    hst_result r;
    reg->last_save = reg->clock(reg->clock_user);
    if (!reg->path[0] || !hst__choice_dirty(reg)) return HST_SUCCESS;
    hst__choice_mkdirs(reg->path);
    if ((fd = hst__choice_lock(reg, lockpath, sizeof lockpath)) < 0)
        hst__log(reg->be, HST_LOG_WARN, HST_LOG_CACHE_WRITE_FAILED, "cannot lock %s (%s); "
                 "saving without the lock", lockpath, strerror(errno));
    ok = hst__choice_read_file(reg, &buf, &disk, &n);
    hst__choice_merge(reg, ok, disk, n);
    hst__free(reg->be, disk);
    hst__free(reg->be, buf);
    r = hst__choice_write(reg);
    hst__choice_unlock(fd, lockpath);
    return r;
}

static void hst__choice_free_op(hst_backend *be, hst_choice_op *op) {
    unsigned j;
    for (j = 0; j < op->nimpl; j++) {
        hst__free(be, op->impl[j].name);
        hst__free(be, op->impl[j].device);
    }
    hst__free(be, op->defaults);
    hst__free(be, op->sigs);
    hst__free(be, op->name);
    hst__free(be, op);
}

/* Called by hst_backend_destroy: saves what is new, frees everything. */
static void hst__choice_destroy(hst_backend *be) {
    hst__choice *reg = be->choice;
    size_t i;
    if (!reg) return;
    hst__choice_save(reg);
    while (reg->ops) {
        hst_choice_op *op = reg->ops;
        reg->ops = op->next;
        hst__choice_free_op(be, op);
    }
    for (i = 0; i < reg->nrecs; i++) hst__choice_free_rec(be, &reg->recs[i]);
    hst__free(be, reg->recs);
    hst__free(be, reg);
    be->choice = NULL;
}

/* ---- choosing ---- */
static double hst__choice_sig_med(const hst__choice_sig *s, unsigned i) {
    return s ? s->med[i] : -1.0;
}
static hst_result hst__choice_sig_failed(const hst__choice_sig *s, unsigned i) {
    return s ? s->failed[i] : HST_SUCCESS;
}

/* The nearest signature entry (other than `self`) where implementation i has timings and, if
   need_other, some other usable implementation has too. */
static const hst__choice_sig *hst__choice_nearest(const hst_choice_op *op, const hst__choice_key *k,
                                                  const hst__choice_sig *self, unsigned i,
                                                  int need_other) {
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
            if (j != i && e->med[j] >= 0.0 && !hst__choice_sig_failed(self, j)) other = 1;
        if (other && (bestd < 0 || d < bestd)) { best = e; bestd = d; }
    }
    return best;
}

/* What is known of implementation i at key k: exact timings, the nearest shipped default, the
   nearest signature's timings, or nothing (HST_CHOICE_* source). */
static double hst__choice_estimate(const hst_choice_op *op, const hst__choice_key *k,
                                   const hst__choice_sig *s, unsigned i, int *source) {
    const hst__choice_sig *near;
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
    if ((near = hst__choice_nearest(op, k, s, i, 0)) != NULL) {
        *source = HST_CHOICE_NEAREST;
        return near->med[i];
    }
    *source = HST_CHOICE_NONE;
    return -1.0;
}

/* Whether measuring implementation i can be skipped: at the nearest signature where it and
   another have timings, it was over HST_CHOICE_EXPLORE_SLOWER times the best other. */
static int hst__choice_skip_explore(const hst_choice_op *op, const hst__choice_key *k,
                                    const hst__choice_sig *s, unsigned i) {
    const hst__choice_sig *near = hst__choice_nearest(op, k, s, i, 1);
    double other = -1.0;
    unsigned j;
    if (!near) return 0;
    for (j = 0; j < op->nimpl; j++)
        if (j != i && near->med[j] >= 0.0 && !hst__choice_sig_failed(s, j) &&
            (other < 0.0 || near->med[j] < other))
            other = near->med[j];
    return other >= 0.0 && near->med[i] > HST_CHOICE_EXPLORE_SLOWER * other;
}

/* The implementation to run: explored = 1 when it runs to be measured. -1: none usable. */
static int hst__choice_select(const hst_choice_op *op, const hst__choice_key *k,
                              const hst__choice_sig *s, int *explored) {
    unsigned i;
    int best = -1, src, first = -1;
    double bt = 0.0, e;
    *explored = 0;
    for (i = 0; i < op->nimpl; i++) {
        if (hst__choice_sig_failed(s, i)) continue;
        if (first < 0) first = (int)i;
        e = hst__choice_estimate(op, k, s, i, &src);
        if (!op->no_explore && (src == HST_CHOICE_NONE || src == HST_CHOICE_NEAREST) &&
            !hst__choice_skip_explore(op, k, s, i)) {
            *explored = 1;
            return (int)i;
        }
        if (src != HST_CHOICE_NONE && (best < 0 || e < bt)) { best = (int)i; bt = e; }
    }
    return best >= 0 ? best : first;
}

/* Every revisit_every calls: the least recently run implementation within
   HST_CHOICE_REVISIT_WITHIN of the best, or -1. */
static int hst__choice_revisit(const hst_choice_op *op, const hst__choice_sig *s, int best) {
    unsigned i;
    int pick = -1;
    if (!op->revisit_every || s->calls % op->revisit_every != 0 || s->med[best] < 0.0) return -1;
    for (i = 0; i < op->nimpl; i++) {
        if ((int)i == best || s->failed[i] || s->med[i] < 0.0 ||
            s->med[i] > HST_CHOICE_REVISIT_WITHIN * s->med[best])
            continue;
        if (pick < 0 || s->last_run[i] < s->last_run[pick]) pick = (int)i;
    }
    return pick;
}

static uint64_t hst__choice_free_bytes(const hst_backend *be) {
    uint64_t total = be->info.global_mem_bytes;
    if (be->device_limit && be->device_limit < total) total = be->device_limit;
    return be->device_bytes < total ? total - be->device_bytes : 0;
}

/* Parts for an out-of-memory split: enough that each part fits the free estimate (times
   HST__CHOICE_FREE_FRACTION) and the largest allocation; at least 2. */
static void hst__choice_split_info(const hst_choice_op *op, const hst__choice_impl *im,
                                   const void *args, hst_choice_split_info *info) {
    const hst_backend *dev = im->pub.backend ? im->pub.backend : op->reg->be;
    uint64_t work = op->work_bytes ? op->work_bytes(args) : 0;
    double avail, k1, k2, k;
    info->max_alloc_bytes = dev->info.max_alloc_bytes;
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
        hst__log(reg->be, HST_LOG_INFO, HST_LOG_CHOICE_SPLIT, "%s: %s on %s ran out of memory "
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
    hst__log(op->reg->be, HST_LOG_WARN, HST_LOG_CHOICE_FAILED, "%s: %s on %s failed at "
             "signature [%s]: %s (%d); skipped for this signature", op->name, op->impl[i].name,
             op->impl[i].device, key, hst_result_string(r), (int)r);
}

static hst_result hst__choice_check_sig(const hst_backend *be, const char *func,
                                        const int64_t *sig, unsigned n) {
    if (n > HST_CHOICE_MAX_SIG)
        return hst__bad_arg(be, func, "sig_len %u is over HST_CHOICE_MAX_SIG (%d)", n,
                            HST_CHOICE_MAX_SIG);
    if (n && !sig) return hst__bad_arg(be, func, "sig is NULL with sig_len %u", n);
    return HST_SUCCESS;
}

/* op, then the pointer the function needs (ptr_ok), then the signature. */
static hst_result hst__choice_check_call(const hst_choice_op *op, const char *func,
                                         const int64_t *sig, unsigned n, int ptr_ok) {
    if (!op) return hst__bad_arg(NULL, func, "op is NULL");
    if (!ptr_ok) return hst__bad_arg(op->reg->be, func, "a pointer argument is NULL");
    return hst__choice_check_sig(op->reg->be, func, sig, n);
}

/* A timings-only operation (no run) cannot be run: its caller does the work. */
static hst_result hst__choice_check_runnable(const hst_choice_op *op, const char *func) {
    if (op->impl[0].pub.run) return HST_SUCCESS;
    hst__log(op->reg->be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED, "%s: %s is a timings-only "
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
    if (!hst__choice_name_ok(d->name, "\t\r\n,:"))
        return hst__bad_arg(be, f, "desc.name is missing or holds a tab, newline, comma or colon");
    for (op = reg->ops; op; op = op->next)
        if (!strcmp(op->name, d->name))
            return hst__bad_arg(be, f, "operation %s is already registered", d->name);
    if (!d->impls || d->num_impls == 0 || d->num_impls > HST_CHOICE_MAX_IMPLS)
        return hst__bad_arg(be, f, "%s: num_impls %zu is not 1..%d", d->name, d->num_impls,
                            HST_CHOICE_MAX_IMPLS);
    for (i = 0; i < d->num_impls; i++) {
        if (!hst__choice_name_ok(d->impls[i].name, "\t\r\n,"))
            return hst__bad_arg(be, f, "%s: impls[%zu].name is missing or holds a tab, newline "
                                "or comma", d->name, i);
        if (!d->impls[i].run != !d->impls[0].run)
            return hst__bad_arg(be, f, "%s: impls[%zu].run is %s while impls[0].run is not (a "
                                "timings-only operation has no run at all)", d->name, i,
                                d->impls[i].run ? "set" : "NULL");
        for (j = 0; j < i; j++)
            if (!strcmp(d->impls[i].name, d->impls[j].name))
                return hst__bad_arg(be, f, "%s: two implementations are named %s", d->name,
                                    d->impls[i].name);
    }
    if (d->num_defaults && !d->defaults)
        return hst__bad_arg(be, f, "%s: defaults is NULL", d->name);
    for (i = 0; i < d->num_defaults; i++) {
        for (j = 0; j < d->num_impls; j++)
            if (d->defaults[i].impl && !strcmp(d->defaults[i].impl, d->impls[j].name)) break;
        if (j == d->num_impls || d->defaults[i].sig_len > HST_CHOICE_MAX_SIG ||
            !(d->defaults[i].seconds >= 0.0))
            return hst__bad_arg(be, f, "%s: defaults[%zu] names no implementation, or its "
                                "sig_len or seconds is out of range", d->name, i);
    }
    if (d->force) {
        for (j = 0; j < d->num_impls; j++) if (!strcmp(d->force, d->impls[j].name)) break;
        if (j == d->num_impls)
            return hst__bad_arg(be, f, "%s: desc.force names no implementation (%s)", d->name,
                                d->force);
    }
    return HST_SUCCESS;
}

/* $HST_FORCE = "op:impl,op2:impl2": this op's entry, or -1. An unknown implementation is
   warned about and ignored. */
static int hst__choice_env_force(const hst_choice_op *op) {
    const char *env = getenv("HST_FORCE"), *p, *end, *colon;
    size_t nl = strlen(op->name);
    char impl[256];
    int i;
    if (!env) return -1;
    for (p = env; *p; p = *end ? end + 1 : end) {
        end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        colon = (const char *)memchr(p, ':', (size_t)(end - p));
        if (!colon || (size_t)(colon - p) != nl || memcmp(p, op->name, nl) != 0) continue;
        snprintf(impl, sizeof impl, "%.*s", (int)(end - colon - 1), colon + 1);
        if ((i = hst__choice_impl_index(op, impl, NULL)) >= 0) return i;
        hst__log(op->reg->be, HST_LOG_WARN, HST_LOG_BAD_ARGUMENT, "HST_FORCE: operation %s has "
                 "no implementation named %s; ignored", op->name, impl);
    }
    return -1;
}

HST__BDEF hst_result hst_choice_configure(hst_backend *be, const hst_choice_desc *desc) {
    hst__choice *reg;
    if (!be) return hst__bad_arg(NULL, "hst_choice_configure", "be is NULL");
    if (be->choice && be->choice->ops)
        return hst__bad_arg(be, "hst_choice_configure", "operations are registered already; "
                            "configure first");
    if (!(reg = hst__choice_get(be))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (!desc) return HST_SUCCESS;
    if (desc->save_interval_s < 0.0 || desc->save_interval_s != desc->save_interval_s)
        return hst__bad_arg(be, "hst_choice_configure", "desc.save_interval_s is negative or NaN");
    if (desc->clock) { reg->clock = desc->clock; reg->clock_user = desc->clock_user; }
    if (desc->path && !strcmp(desc->path, "off")) reg->path[0] = '\0';
    else if (desc->path && *desc->path) hst__copy_string(reg->path, sizeof reg->path, desc->path);
    reg->save_interval_s = desc->save_interval_s;
    reg->last_save = reg->clock(reg->clock_user);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_choice_register(hst_backend *be, const hst_choice_op_desc *desc,
                                         hst_choice_op **out) {
    hst__choice *reg;
    hst_choice_op *op;
    hst_result r;
    char dev[512];
    size_t i;
    unsigned j;
    if (!be) return hst__bad_arg(NULL, "hst_choice_register", "be is NULL");
    if (!desc || !out) return hst__bad_arg(be, "hst_choice_register", "desc or out is NULL");
    *out = NULL;
    if (!(reg = hst__choice_get(be))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if ((r = hst__choice_check_desc(be, reg, desc)) != HST_SUCCESS) return r;
    if (!(op = (hst_choice_op *)hst__calloc(be, sizeof *op))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    op->reg = reg;
    op->name = hst__choice_strdup(be, desc->name);
    op->nimpl = (unsigned)desc->num_impls;
    op->force_desc = op->force_env = -1;
    op->split = desc->split;
    op->work_bytes = desc->work_bytes;
    op->output = desc->output;
    op->no_warmup = desc->no_warmup;
    op->no_explore = desc->no_explore;
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
        im->pub.name = im->name;
        im->pub.device_id = im->device;
        if (!im->name || !im->device) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (r == HST_SUCCESS && desc->num_defaults) {
        op->defaults = (hst__choice_dflt *)hst__malloc(be, desc->num_defaults *
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
    if (desc->force) op->force_desc = hst__choice_impl_index(op, desc->force, NULL);
    op->force_env = hst__choice_env_force(op);
    if (op->force_env >= 0 || op->force_desc >= 0)
        hst__log(be, HST_LOG_INFO, HST_LOG_CHOICE_FORCED, "%s: always runs %s (forced by %s)",
                 op->name, op->impl[op->force_env >= 0 ? op->force_env : op->force_desc].name,
                 op->force_env >= 0 ? "HST_FORCE" : "the desc");
    if (!reg->loaded) hst__choice_load(reg);
    for (i = 0; i < reg->nrecs; i++)
        if (!strcmp(reg->recs[i].op, op->name)) hst__choice_attach(reg, i);
    *out = op;
    return HST_SUCCESS;
}

HST__BDEF hst_choice_op *hst_choice_find(hst_backend *be, const char *name) {
    hst_choice_op *op;
    if (!be || !be->choice || !name) return NULL;
    for (op = be->choice->ops; op; op = op->next) if (!strcmp(op->name, name)) return op;
    return NULL;
}

/* The forced implementation (call, then $HST_FORCE, then desc), -1 none, -2 unknown name. */
static int hst__choice_forced(const hst_choice_op *op, const char *force) {
    if (force) return hst__choice_impl_index(op, force, NULL) >= 0
                    ? hst__choice_impl_index(op, force, NULL) : -2;
    return op->force_env >= 0 ? op->force_env : op->force_desc;
}

HST__BDEF hst_result hst_choice_run(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                    void *args, const char *force, hst_choice_outcome *outcome) {
    hst__choice *reg;
    hst__choice_key key;
    hst__choice_sig *s;
    hst_result r, last = HST_SUCCESS;
    hst_choice_outcome oc;
    unsigned attempt;
    int i, forced, explored = 0, revisit;
    if (!op) return hst__bad_arg(NULL, "hst_choice_run", "op is NULL");
    if ((r = hst__choice_check_runnable(op, "hst_choice_run")) != HST_SUCCESS) return r;
    reg = op->reg;
    if ((r = hst__choice_check_sig(reg->be, "hst_choice_run", sig, sig_len)) != HST_SUCCESS)
        return r;
    if ((forced = hst__choice_forced(op, force)) == -2)
        return hst__bad_arg(reg->be, "hst_choice_run", "%s has no implementation named %s",
                            op->name, force);
    hst__choice_make_key(sig, sig_len, &key);
    if (!(s = hst__choice_add_sig(op, &key))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    memset(&oc, 0, sizeof oc);
    s->calls++;
    for (attempt = 0; attempt < op->nimpl; attempt++) {
        if (forced >= 0) {
            i = forced;
        } else {
            i = hst__choice_select(op, &key, s, &explored);
            if (i < 0) break;
            if (!explored) {
                if ((revisit = hst__choice_revisit(op, s, i)) >= 0) {
                    i = revisit;
                } else if (s->chosen != i) {
                    static const char *const from[] = {"nothing", "", " (a shipped default)",
                                                       " (the nearest signature's)"};
                    char k[64];
                    int src;
                    double e = hst__choice_estimate(op, &key, s, (unsigned)i, &src);
                    hst__choice_key_text(&key, k, sizeof k);
                    hst__log(reg->be, HST_LOG_INFO, HST_LOG_CHOICE_CHANGED, "%s [%s]: %s on %s "
                             "(%.3g ms%s) replaces %s", op->name, k, op->impl[i].name,
                             op->impl[i].device, 1e3 * e, from[src],
                             s->chosen >= 0 ? op->impl[s->chosen].name : "nothing");
                    s->chosen = i;
                }
            }
        }
        r = hst__choice_exec(op, s, (unsigned)i, args, 1, &oc.seconds, &oc.parts);
        s = hst__choice_find_sig(op, &key);   /* the run may have moved it */
        if (r == HST_SUCCESS) {
            oc.impl = (unsigned)i;
            oc.name = op->impl[i].name;
            oc.explored = explored;
            oc.forced = forced >= 0;
            if (outcome) *outcome = oc;
            if (reg->save_interval_s > 0.0 &&
                reg->clock(reg->clock_user) - reg->last_save >= reg->save_interval_s)
                hst__choice_save(reg);
            return HST_SUCCESS;
        }
        hst__choice_fail(op, s, (unsigned)i, r);
        oc.failures++;
        last = r;
        if (forced >= 0) break;          /* forced means forced: no other implementation */
    }
    if (last == HST_SUCCESS) {           /* every one failed at this signature before */
        for (i = 0; i < (int)op->nimpl && !last; i++) last = s->failed[i];
        hst__log(reg->be, HST_LOG_ERROR, HST_LOG_CHOICE_FAILED, "%s: every implementation has "
                 "failed at this signature; the first failure was %s", op->name,
                 hst_result_string(last));
    }
    if (outcome) *outcome = oc;
    return last;
}

HST__BDEF hst_result hst_choice_pick(const hst_choice_op *op, const int64_t *sig,
                                     unsigned sig_len, unsigned *impl) {
    hst__choice_key key;
    int i, explored;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_pick", sig, sig_len, impl != NULL);
    if (r != HST_SUCCESS) return r;
    hst__choice_make_key(sig, sig_len, &key);
    i = hst__choice_forced(op, NULL);
    if (i < 0) i = hst__choice_select(op, &key, hst__choice_find_sig(op, &key), &explored);
    if (i < 0) return HST_ERROR_UNSUPPORTED;   /* every implementation failed here */
    *impl = (unsigned)i;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_choice_record(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                       const char *impl, double seconds) {
    hst__choice_key key;
    hst__choice_sig *s;
    int i;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_record", sig, sig_len, impl != NULL);
    if (r != HST_SUCCESS) return r;
    if ((i = hst__choice_impl_index(op, impl, NULL)) < 0)
        return hst__bad_arg(op->reg->be, "hst_choice_record", "%s has no implementation named "
                            "%s", op->name, impl);
    if (!(seconds >= 0.0))
        return hst__bad_arg(op->reg->be, "hst_choice_record", "seconds is negative or NaN");
    hst__choice_make_key(sig, sig_len, &key);
    if (!(s = hst__choice_add_sig(op, &key))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    hst__choice_note(op, s, (unsigned)i, seconds);
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_choice_stats(const hst_choice_op *op, const int64_t *sig,
                                      unsigned sig_len, hst_choice_stat *out, size_t capacity,
                                      size_t *count) {
    hst__choice_key key;
    const hst__choice_sig *s;
    unsigned i;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_stats", sig, sig_len, count != NULL);
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
    }
    return HST_SUCCESS;
}

/* ---- benchmark ---- */
/* The op's output as doubles (allocated), or NULL. */
static double *hst__choice_output(hst_choice_op *op, void *args, size_t *n) {
    double *v;
    *n = 0;
    if (!op->output || op->output(args, NULL, 0, n) != HST_SUCCESS || *n == 0) return NULL;
    if (!(v = (double *)hst__malloc(op->reg->be, *n * sizeof *v))) return NULL;
    if (op->output(args, v, *n, n) != HST_SUCCESS) { hst__free(op->reg->be, v); return NULL; }
    return v;
}

/* max |x - ref| / max |ref| and Pearson's r (1 for identical constant outputs). */
static void hst__choice_compare(const double *ref, const double *x, size_t n, double *err,
                                double *corr) {
    double mr = 0.0, mx = 0.0, scale = 0.0, diff = 0.0, sxy = 0.0, sxx = 0.0, syy = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        mr += ref[i]; mx += x[i];
        if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
        if (x[i] != x[i]) diff = INFINITY;            /* a NaN where the reference has none */
        else if (fabs(x[i] - ref[i]) > diff) diff = fabs(x[i] - ref[i]);
    }
    mr /= (double)n; mx /= (double)n;
    for (i = 0; i < n; i++) {
        sxy += (ref[i] - mr) * (x[i] - mx);
        sxx += (ref[i] - mr) * (ref[i] - mr);
        syy += (x[i] - mx) * (x[i] - mx);
    }
    *err = scale > 0.0 ? diff / scale : diff;
    *corr = sxx > 0.0 && syy > 0.0 ? sxy / sqrt(sxx * syy) : diff == 0.0 ? 1.0 : NAN;
}

HST__BDEF hst_result hst_choice_benchmark(hst_choice_op *op, const int64_t *sig, unsigned sig_len,
                                          void *args, unsigned reps, hst_choice_bench_row *rows,
                                          size_t capacity, size_t *count) {
    hst__choice_key key;
    double *ref = NULL, best = -1.0, secs[64];
    size_t nref = 0, parts;
    unsigned order, k, pick;
    hst_result r;
    r = hst__choice_check_call(op, "hst_choice_benchmark", sig, sig_len, count != NULL);
    if (r == HST_SUCCESS) r = hst__choice_check_runnable(op, "hst_choice_benchmark");
    if (r != HST_SUCCESS) return r;
    *count = op->nimpl;
    if (!rows) return HST_SUCCESS;
    if (capacity < op->nimpl)
        return hst__bad_arg(op->reg->be, "hst_choice_benchmark", "capacity %zu is below the %u "
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
        double *out;
        size_t n;
        memset(row, 0, sizeof *row);
        row->impl = op->impl[i].name;
        row->device = op->impl[i].device;
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
        out = hst__choice_output(op, args, &n);
        if (i == op->reference) {
            ref = out;
            nref = n;
            if (ref) { row->max_rel_error = 0.0; row->correlation = 1.0; }
        } else {
            if (ref && out && n == nref)
                hst__choice_compare(ref, out, n, &row->max_rel_error, &row->correlation);
            else if (ref && out)
                row->max_rel_error = INFINITY;      /* the output's size differs */
            hst__free(op->reg->be, out);
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
    hst__free(op->reg->be, ref);
    if (hst_choice_pick(op, sig, sig_len, &pick) != HST_SUCCESS) pick = op->nimpl;
    for (k = 0; k < op->nimpl; k++) {
        rows[k].chosen = k == pick;
        rows[k].vs_best = rows[k].result == HST_SUCCESS && best > 0.0 ? rows[k].median_s / best
                                                                        : NAN;
    }
    return HST_SUCCESS;
}

HST__BDEF size_t hst_choice_table(const hst_choice_bench_row *rows, size_t count, char *buf,
                                  size_t capacity) {
    size_t i, len = 0;
    int n;
    char line[512];
    if (buf && capacity) buf[0] = '\0';
    for (i = 0; i <= count; i++) {
        if (i == 0)
            n = snprintf(line, sizeof line, "%-18s %-30s %11s %11s %7s %11s %9s  %s\n",
                         "implementation", "device", "median ms", "best ms", "x best",
                         "max rel err", "corr r", "result");
        else if (!rows) break;
        else {
            const hst_choice_bench_row *w = &rows[i - 1];
            n = snprintf(line, sizeof line, "%-18.18s %-30.30s %11.4f %11.4f %7.2f %11.3g %9.6f  "
                         "%s%s%s\n", w->impl ? w->impl : "?", w->device ? w->device : "?",
                         1e3 * w->median_s, 1e3 * w->best_s, w->vs_best, w->max_rel_error,
                         w->correlation, w->result ? hst_result_string(w->result) : "ok",
                         w->reference ? ", reference" : "", w->chosen ? ", CHOSEN" : "");
        }
        if (n < 0) continue;
        if (buf && len + (size_t)n < capacity) memcpy(buf + len, line, (size_t)n + 1);
        else if (buf && len < capacity) buf[len] = '\0';
        len += (size_t)n;
    }
    return len + 1;
}

HST__BDEF hst_result hst_choice_save(hst_backend *be) {
    if (!be) return hst__bad_arg(NULL, "hst_choice_save", "be is NULL");
    return be->choice ? hst__choice_save(be->choice) : HST_SUCCESS;
}

/* >>arrays ----------------------------------------------------------------------------------- */
HST__BDEF hst_scalar hst_real(double re) { return hst_complex(re, 0.0); }
HST__BDEF hst_scalar hst_complex(double re, double im) {
    hst_scalar s;
    s.re = re; s.im = im;
    s.i64 = re != re ? 0 : re >= 9223372036854775807.0 ? INT64_MAX
          : re <= -9223372036854775808.0 ? INT64_MIN : (int64_t)re;
    return s;
}
HST__BDEF hst_scalar hst_int(int64_t i) {
    hst_scalar s;
    s.re = (double)i; s.im = 0.0; s.i64 = i;
    return s;
}

HST__BDEF hst_dtype hst_array_dtype(const hst_array *a) { return a ? a->dtype : (hst_dtype)0; }
HST__BDEF unsigned hst_array_ndim(const hst_array *a) { return a ? a->ndim : 0; }
HST__BDEF const size_t *hst_array_shape(const hst_array *a) { return a ? a->shape : NULL; }
HST__BDEF size_t hst_array_count(const hst_array *a) { return a ? a->count : 0; }
HST__BDEF size_t hst_array_bytes(const hst_array *a) { return a ? a->bytes : 0; }
HST__BDEF hst_buffer *hst_array_buffer(const hst_array *a) { return a ? a->buf : NULL; }

static hst_result hst__dtype_error(const hst_backend *be, const char *func, hst_dtype dt,
                                   const char *why) {
    hst__log(be, HST_LOG_ERROR, HST_LOG_DTYPE, "%s: dtype %s: %s", func, hst_dtype_name(dt), why);
    return HST_ERROR_DTYPE;
}

/* f64 needs the device's fp64 support, wherever it appears. */
static hst_result hst__check_fp64(const hst_backend *be, const char *func, hst_dtype dt) {
    if (dt == HST_F64 && !be->info.fp64)
        return hst__dtype_error(be, func, dt, "the device has no double precision (cl_khr_fp64)");
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_array_create(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                    const size_t *shape, hst_array **out) {
    static const char *F = "hst_array_create";
    hst_array *a;
    size_t count = 1, bytes;
    unsigned i;
    hst_result r;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (!hst_dtype_size(dtype)) return hst__bad_arg(be, F, "dtype %d is not an hst_dtype", (int)dtype);
    if (ndim < 1 || ndim > HST_MAX_DIMS) return hst__bad_arg(be, F, "ndim %u is not 1..%d", ndim, HST_MAX_DIMS);
    if (!shape) return hst__bad_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++) {
        if (!shape[i]) return hst__bad_arg(be, F, "shape[%u] is 0", i);
        if (!hst__mul(count, shape[i], &count)) return hst__overflow(be, F, "the product of shape");
    }
    if (!hst__mul(count, hst_dtype_size(dtype), &bytes)) return hst__overflow(be, F, "elements * element size");
    if ((r = hst__check_fp64(be, F, dtype)) != HST_SUCCESS) return r;
    if (!(a = (hst_array *)hst__calloc(be, sizeof *a))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    a->be = be; a->dtype = dtype; a->ndim = ndim; a->count = count; a->bytes = bytes;
    for (i = 0; i < ndim; i++) a->shape[i] = shape[i];
    if ((r = hst_pool_alloc(be->pool, bytes, &a->buf)) != HST_SUCCESS) { hst__free(be, a); return r; }
    *out = a;
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_array_view(hst_buffer *buf, size_t offset_bytes, hst_dtype dtype,
                                  unsigned ndim, const size_t *shape, hst_array **out) {
    static const char *F = "hst_array_view";
    hst_backend *be;
    hst_array *a;
    size_t count = 1, bytes, end, es = hst_dtype_size(dtype), align;
    unsigned i;
    hst_result r;
    if (!buf) return hst__bad_arg(NULL, F, "buf is NULL");
    be = buf->be;
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    *out = NULL;
    if (!es) return hst__bad_arg(be, F, "dtype %d is not an hst_dtype", (int)dtype);
    if (ndim < 1 || ndim > HST_MAX_DIMS) return hst__bad_arg(be, F, "ndim %u is not 1..%d", ndim, HST_MAX_DIMS);
    if (!shape) return hst__bad_arg(be, F, "shape is NULL");
    for (i = 0; i < ndim; i++) {
        if (!shape[i]) return hst__bad_arg(be, F, "shape[%u] is 0", i);
        if (!hst__mul(count, shape[i], &count)) return hst__overflow(be, F, "the product of shape");
    }
    if (!hst__mul(count, es, &bytes)) return hst__overflow(be, F, "elements * element size");
    if (offset_bytes % es)
        return hst__bad_arg(be, F, "offset_bytes %zu is not a multiple of the %s element size (%zu bytes)",
                            offset_bytes, hst_dtype_name(dtype), es);
    if (!hst__add(offset_bytes, bytes, &end)) return hst__overflow(be, F, "offset_bytes + the view's bytes");
    if (end > buf->bytes) {
        hst__log(be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH, "%s: offset_bytes %zu + shape's %zu bytes "
                 "= %zu exceed buf's %zu bytes", F, offset_bytes, bytes, end, buf->bytes);
        return HST_ERROR_SHAPE;
    }
    if ((r = hst__check_fp64(be, F, dtype)) != HST_SUCCESS) return r;
    /* the host device's pointers need only whole elements; OpenCL sub-buffers the device's
       base address alignment (a power of two at least as large as any element) */
    align = hst__is_cl(be) ? be->info.mem_base_addr_align_bytes : es;
    if (!(a = (hst_array *)hst__calloc(be, sizeof *a))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    a->be = be; a->dtype = dtype; a->ndim = ndim; a->count = count; a->bytes = bytes;
    for (i = 0; i < ndim; i++) a->shape[i] = shape[i];
    if ((r = hst__buffer_sub(buf, offset_bytes, bytes, align, F, &a->buf)) != HST_SUCCESS) {
        hst__free(be, a);
        return r;
    }
    *out = a;
    return HST_SUCCESS;
}

/* A view's buffer is its own sub-buffer: destroying it leaves the viewed memory alone. */
HST__BDEF void hst_array_destroy(hst_array *a) {
    if (!a) return;
    hst_buffer_destroy(a->buf);
    hst__free(a->be, a);
}

static hst_result hst__check_array(const char *func, const hst_array *a, const char *name) {
    if (!a) return hst__bad_arg(NULL, func, "%s is NULL", name);
    return HST_SUCCESS;
}

/* Two operands agree: same backend, same shape, and (when asked) the same dtype. */
static hst_result hst__check_pair(const char *func, const hst_array *a, const hst_array *b,
                                  int same_dtype) {
    unsigned i;
    int same = a->be == b->be && a->ndim == b->ndim && (!same_dtype || a->dtype == b->dtype);
    for (i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (same) return HST_SUCCESS;
    hst__log(a->be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH, "%s: operands differ in %s", func,
             a->be != b->be ? "backend" : (a->ndim != b->ndim || !same_dtype || a->dtype == b->dtype)
                                          ? "shape" : "dtype");
    return HST_ERROR_SHAPE;
}

HST__BDEF hst_result hst_array_write(hst_array *a, const void *src, size_t bytes) {
    hst_result r;
    if ((r = hst__check_array("hst_array_write", a, "a")) != HST_SUCCESS) return r;
    if (bytes != a->bytes)
        return hst__bad_arg(a->be, "hst_array_write", "bytes %zu != the array's %zu", bytes, a->bytes);
    return hst_write(&a->be->queue, a->buf, 0, src, bytes, 1, 0, NULL, NULL);
}

HST__BDEF hst_result hst_array_read(const hst_array *a, void *dst, size_t bytes) {
    hst_result r;
    if ((r = hst__check_array("hst_array_read", a, "a")) != HST_SUCCESS) return r;
    if (bytes != a->bytes)
        return hst__bad_arg(a->be, "hst_array_read", "bytes %zu != the array's %zu", bytes, a->bytes);
    return hst_read(&a->be->queue, a->buf, 0, dst, bytes, 1, 0, NULL, NULL);
}

/* One element of dtype dt holding v (integers saturate v.i64; floats round v.re, v.im). */
static void hst__element(hst_dtype dt, hst_scalar v, unsigned char *out) {
    float c[2];
    int32_t i;
    switch (dt) {
    case HST_U8: out[0] = (unsigned char)(v.i64 < 0 ? 0 : v.i64 > 255 ? 255 : v.i64); break;
    case HST_I32:
        i = (int32_t)(v.i64 < INT32_MIN ? INT32_MIN : v.i64 > INT32_MAX ? INT32_MAX : v.i64);
        memcpy(out, &i, 4);
        break;
    case HST_F32: c[0] = (float)v.re; memcpy(out, c, 4); break;
    case HST_F64: memcpy(out, &v.re, 8); break;
    default: c[0] = (float)v.re; c[1] = (float)v.im; memcpy(out, c, 8); break;
    }
}

HST__BDEF hst_result hst_array_fill(hst_array *a, hst_scalar value) {
    unsigned char el[16];
    hst_result r;
    if ((r = hst__check_array("hst_array_fill", a, "a")) != HST_SUCCESS) return r;
    hst__element(a->dtype, value, el);
    return hst_fill(&a->be->queue, a->buf, el, hst_dtype_size(a->dtype), 0, a->bytes, 0, NULL, NULL);
}

HST__BDEF hst_result hst_array_zeros(hst_array *a) { return hst_array_fill(a, hst_int(0)); }
HST__BDEF hst_result hst_array_ones(hst_array *a) { return hst_array_fill(a, hst_int(1)); }

HST__BDEF hst_result hst_array_copy(hst_array *dst, const hst_array *src) {
    static const char *F = "hst_array_copy";
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    if (dst == src) return HST_SUCCESS;
    return hst_copy(&dst->be->queue, dst->buf, 0, src->buf, 0, dst->bytes, 0, NULL, NULL);
}

/* Builds a vocabulary program (either of kernels.h's two) for dtype dt with its options. */
static hst_result hst__vocab_build(hst_backend *be, hst_dtype dt, size_t count,
                                   const char *const *src, hst_program **out) {
    char options[256];
    snprintf(options, sizeof options, "%s%s%s", hst_kernels_vocab_options(dt),
             be->info.fp64 ? " -DHST_FP64" : "",
             be->info.correctly_rounded_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    return hst_program_build(be, count, src, options, out);
}

/* The vocabulary kernel `which` for dtype dt, building the dtype's program on first use. */
static hst_result hst__vocab_kernel(hst_backend *be, hst_dtype dt, int which, hst_kernel **out) {
    hst__vocab *v = &be->vocab[dt];
    hst_result r;
    if (!v->prog) {
        size_t count;
        const char *const *src = hst_kernels_vocab_source(&count);
        if ((r = hst__vocab_build(be, dt, count, src, &v->prog)) != HST_SUCCESS) return r;
    }
    if (!v->kernels[which] &&
        (r = hst_kernel_create(v->prog, hst__vocab_names[which], &v->kernels[which])) != HST_SUCCESS)
        return r;
    *out = v->kernels[which];
    return HST_SUCCESS;
}

/* Arguments of a vocabulary launch, set in order. */
typedef struct hst__arg { size_t bytes; const void *value; } hst__arg;

/* Sets the arguments and launches over `items` work-items on the backend's queue; the
   reductions need work-groups of exactly HST_REDUCE_LOCAL, element-wise kernels take any. */
static hst_result hst__vocab_run(hst_backend *be, hst_dtype dt, int which, const hst__arg *args,
                                 unsigned nargs, size_t items) {
    hst_kernel *k;
    hst_result r;
    unsigned i;
    size_t local = HST_REDUCE_LOCAL;
    int reduction = which >= HST__K_SUM && which <= HST__K_MAX;
    if ((r = hst__vocab_kernel(be, dt, which, &k)) != HST_SUCCESS) return r;
    for (i = 0; i < nargs; i++)
        if ((r = hst_kernel_set_arg(k, i, args[i].bytes, args[i].value)) != HST_SUCCESS) return r;
    return hst_launch(&be->queue, k, 1, &items, reduction ? &local : NULL, 0, NULL, NULL);
}

#ifndef HST_NO_OPENCL
#define HST__ARG_MEM(a) { sizeof(cl_mem), &(a)->buf->cl }
#else
#define HST__ARG_MEM(a) { 0, NULL }
#endif

/* A T-typed kernel argument holding v rounded to dt, as the host twins round it. */
typedef struct hst__targ { unsigned char bytes[16]; size_t size; } hst__targ;
static hst__targ hst__typed(hst_dtype dt, hst_scalar v) {
    hst__targ t;
    hst__element(dt, v, t.bytes);
    t.size = hst_dtype_size(dt);
    return t;
}

static const int hst__cast_kernel[HST_C64 + 1] = {
    -1, HST__K_CAST_U8, HST__K_CAST_I32, HST__K_CAST_F32, HST__K_CAST_F64, HST__K_CAST_C64
};

HST__BDEF hst_result hst_array_cast(hst_array *dst, const hst_array *src) {
    static const char *F = "hst_array_cast";
    uint64_t n;   /* the kernels take ulong */
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 0)) != HST_SUCCESS) return r;
    if (dst->dtype == src->dtype) return hst_array_copy(dst, src);
    if (!hst__is_cl(dst->be)) {
        hst_k_cast_host(dst->dtype, dst->buf->host, src->dtype, src->buf->host, dst->count);
        return HST_SUCCESS;
    }
    n = dst->count;
    {
        hst__arg args[3] = {HST__ARG_MEM(src), HST__ARG_MEM(dst), {sizeof n, &n}};
        return hst__vocab_run(dst->be, dst->dtype, hst__cast_kernel[src->dtype], args, 3, dst->count);
    }
}

/* The dtype supports the element-wise arithmetic family (scale, axpy, random). */
static hst_result hst__check_arith(const hst_array *a, const char *func) {
    if (!hst_kernels_arith_supported(a->dtype))
        return hst__dtype_error(a->be, func, a->dtype, "defined for f32, f64 and c64 only");
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_array_scale(hst_array *x, hst_scalar alpha) {
    static const char *F = "hst_array_scale";
    double al[2];
    uint64_t n;
    hst__targ t;
    hst_result r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(x, F)) != HST_SUCCESS) return r;
    al[0] = alpha.re; al[1] = alpha.im;
    if (!hst__is_cl(x->be)) { hst_k_scale_host(x->dtype, x->buf->host, x->count, al); return HST_SUCCESS; }
    n = x->count;
    t = hst__typed(x->dtype, alpha);
    {
        hst__arg args[3] = {HST__ARG_MEM(x), {sizeof n, &n}, {0, NULL}};
        args[2].bytes = t.size; args[2].value = t.bytes;
        return hst__vocab_run(x->be, x->dtype, HST__K_SCALE, args, 3, x->count);
    }
}

HST__BDEF hst_result hst_array_axpy(hst_array *y, hst_scalar alpha, const hst_array *x) {
    static const char *F = "hst_array_axpy";
    double al[2];
    uint64_t n;
    hst__targ t;
    hst_result r;
    if ((r = hst__check_array(F, y, "y")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, y, x, 1)) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(y, F)) != HST_SUCCESS) return r;
    al[0] = alpha.re; al[1] = alpha.im;
    if (!hst__is_cl(y->be)) { hst_k_axpy_host(y->dtype, y->buf->host, x->buf->host, y->count, al); return HST_SUCCESS; }
    n = y->count;
    t = hst__typed(y->dtype, alpha);
    {
        hst__arg args[4] = {HST__ARG_MEM(y), HST__ARG_MEM(x), {sizeof n, &n}, {0, NULL}};
        args[3].bytes = t.size; args[3].value = t.bytes;
        return hst__vocab_run(y->be, y->dtype, HST__K_AXPY, args, 4, y->count);
    }
}

HST__BDEF hst_result hst_array_math(hst_array *dst, const hst_array *src, hst_math_op op,
                                  double p) {
    static const char *F = "hst_array_math";
    uint64_t n;
    int iop = (int)op;
    hst__targ t;
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_MATH_COUNT) return hst__bad_arg(dst->be, F, "op %d is not an hst_math_op", iop);
    if (!hst_kernels_math_supported(dst->dtype, op))
        return hst__dtype_error(dst->be, F, dst->dtype, "element-wise math is defined for f32 and f64 only");
    if (!hst__is_cl(dst->be)) { hst_k_math_host(dst->dtype, dst->buf->host, src->buf->host, dst->count, op, p); return HST_SUCCESS; }
    n = dst->count;
    t = hst__typed(dst->dtype, hst_real(p));
    {
        hst__arg args[5] = {HST__ARG_MEM(dst), HST__ARG_MEM(src), {sizeof n, &n}, {sizeof iop, &iop}, {0, NULL}};
        args[4].bytes = t.size; args[4].value = t.bytes;
        return hst__vocab_run(dst->be, dst->dtype, HST__K_MATH, args, 5, dst->count);
    }
}

HST__BDEF hst_result hst_array_random(hst_array *x, hst_random_dist dist, uint64_t seed,
                                    uint64_t offset) {
    static const char *F = "hst_array_random";
    uint64_t n;
    int idist = (int)dist;
    hst_result r;
    if ((r = hst__check_array(F, x, "x")) != HST_SUCCESS) return r;
    if ((r = hst__check_arith(x, F)) != HST_SUCCESS) return r;
    if (dist != HST_RANDOM_UNIFORM && dist != HST_RANDOM_NORMAL)
        return hst__bad_arg(x->be, F, "dist %d is not an hst_random_dist", idist);
    if (!hst__is_cl(x->be)) { hst_k_random_host(x->dtype, x->buf->host, x->count, seed, offset, dist); return HST_SUCCESS; }
    n = x->count;
    {
        hst__arg args[5] = {HST__ARG_MEM(x), {sizeof n, &n}, {sizeof seed, &seed}, {sizeof offset, &offset}, {sizeof idist, &idist}};
        return hst__vocab_run(x->be, x->dtype, HST__K_RANDOM, args, 5, x->count);
    }
}

/* >>reductions ------------------------------------------------------------------------------- */
static const int hst__reduce_kernel[HST_REDUCE_COUNT] = {
    HST__K_SUM, HST__K_DOT, HST__K_SQNORM, HST__K_MIN, HST__K_MAX
};

/* Block partials on the device (one work-group of HST_REDUCE_LOCAL per HST_REDUCE_BLOCK
   elements), read back into `partial`. The order is kernels.h's, so the bits equal the host's. */
static hst_result hst__reduce_cl(const hst_array *x, const hst_array *y, hst_reduce_op op,
                                 size_t groups, size_t bytes, void *partial) {
    hst_backend *be = x->be;
    hst_buffer *pbuf;
    uint64_t n = x->count;
    size_t items;
    hst_result r;
    if (be->info.max_work_group_size < HST_REDUCE_LOCAL) {   /* cannot keep the fixed order */
        hst__log(be, HST_LOG_ERROR, HST_LOG_UNSUPPORTED, "reductions need work-groups of %d; %s "
                 "allows %zu", HST_REDUCE_LOCAL, be->info.name, be->info.max_work_group_size);
        return HST_ERROR_UNSUPPORTED;
    }
    if (!hst__mul(groups, HST_REDUCE_LOCAL, &items)) return hst__overflow(be, "reduction", "work-items");
    if ((r = hst_pool_alloc(be->pool, bytes, &pbuf)) != HST_SUCCESS) return r;
    {
#ifndef HST_NO_OPENCL
        hst__arg args[4] = {HST__ARG_MEM(x), HST__ARG_MEM(x), {sizeof n, &n}, {sizeof(cl_mem), &pbuf->cl}};
#else
        hst__arg args[4] = {{0, NULL}, {0, NULL}, {sizeof n, &n}, {0, NULL}};
#endif
        unsigned nargs = 3;
#ifndef HST_NO_OPENCL
        if (op == HST_REDUCE_DOT) { args[1].value = &y->buf->cl; nargs = 4; }
#else
        if (op == HST_REDUCE_DOT) { (void)y; nargs = 4; }
#endif
        else { args[1] = args[2]; args[2] = args[3]; }
        r = hst__vocab_run(be, x->dtype, hst__reduce_kernel[op], args, nargs, items);
    }
    if (r == HST_SUCCESS) r = hst_read(&be->queue, pbuf, 0, partial, bytes, 1, 0, NULL, NULL);
    hst_buffer_destroy(pbuf);
    return r;
}

static hst_result hst__reduce(const char *func, const hst_array *x, const hst_array *y,
                              hst_reduce_op op, hst_scalar *out) {
    size_t groups, pbytes, bytes;
    void *partial;
    hst_result r;
    if ((r = hst__check_array(func, x, "x")) != HST_SUCCESS) return r;
    if (!out) return hst__bad_arg(x->be, func, "out is NULL");
    if (y && (r = hst__check_pair(func, x, y, 1)) != HST_SUCCESS) return r;
    if (!hst_kernels_reduce_supported(x->dtype, op))
        return hst__dtype_error(x->be, func, x->dtype, "this reduction is not defined for it");
    groups = x->count / HST_REDUCE_BLOCK + (x->count % HST_REDUCE_BLOCK != 0);
    pbytes = hst_kernels_partial_size(x->dtype, op);
    if (!hst__mul(groups, pbytes, &bytes)) return hst__overflow(x->be, func, "partials");
    if (!(partial = hst__malloc(x->be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (hst__is_cl(x->be)) r = hst__reduce_cl(x, y, op, groups, bytes, partial);
    else hst_k_reduce_host(x->dtype, op, x->buf->host, y ? y->buf->host : NULL, x->count, partial);
    if (r == HST_SUCCESS) hst_k_combine_host(x->dtype, op, partial, groups, out);
    hst__free(x->be, partial);
    return r;
}

HST__BDEF hst_result hst_array_sum(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_sum", x, NULL, HST_REDUCE_SUM, out);
}
HST__BDEF hst_result hst_array_dot(const hst_array *x, const hst_array *y, hst_scalar *out) {
    if (!y) return hst__bad_arg(x ? x->be : NULL, "hst_array_dot", "y is NULL");
    return hst__reduce("hst_array_dot", x, y, HST_REDUCE_DOT, out);
}
HST__BDEF hst_result hst_array_sqnorm(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_sqnorm", x, NULL, HST_REDUCE_SQNORM, out);
}
HST__BDEF hst_result hst_array_min(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_min", x, NULL, HST_REDUCE_MIN, out);
}
HST__BDEF hst_result hst_array_max(const hst_array *x, hst_scalar *out) {
    return hst__reduce("hst_array_max", x, NULL, HST_REDUCE_MAX, out);
}


/* >>vocabx ----------------------------------------------------------------------------------- */
/* A 4-D view: shapes padded with leading 1s, C-order strides (elements). */
typedef struct hst__v4 { uint64_t shape[4], stride[4]; } hst__v4;

static hst__v4 hst__view(unsigned ndim, const size_t *shape) {
    hst__v4 v;
    uint64_t s = 1;
    int d;
    for (d = 3; d >= 0; d--) {
        int a = d - (4 - (int)ndim);
        v.shape[d] = a >= 0 ? shape[a] : 1;
        v.stride[d] = s;
        s *= v.shape[d];
    }
    return v;
}

/* The kernel `which` of the second vocabulary program for dt. */
static hst_result hst__vocabx_kernel(hst_backend *be, hst_dtype dt, int which, hst_kernel **out) {
    hst__vocabx *v = &be->vocabx[dt];
    hst_result r;
    if (!v->prog) {
        size_t count;
        const char *const *src = hst_kernels_vocabx_source(&count);
        if ((r = hst__vocab_build(be, dt, count, src, &v->prog)) != HST_SUCCESS) return r;
    }
    if (!v->kernels[which] &&
        (r = hst_kernel_create(v->prog, hst__vocabx_names[which], &v->kernels[which])) != HST_SUCCESS)
        return r;
    *out = v->kernels[which];
    return HST_SUCCESS;
}

static hst_result hst__vocabx_run(hst_backend *be, hst_dtype dt, int which, const hst__arg *args,
                                  unsigned nargs, size_t items) {
    hst_kernel *k;
    hst_result r;
    unsigned i;
    if (!items) return HST_SUCCESS;
    if ((r = hst__vocabx_kernel(be, dt, which, &k)) != HST_SUCCESS) return r;
    for (i = 0; i < nargs; i++)
        if ((r = hst_kernel_set_arg(k, i, args[i].bytes, args[i].value)) != HST_SUCCESS) return r;
    return hst_launch(&be->queue, k, 1, &items, NULL, 0, NULL, NULL);
}

/* dst[doff + ix . dstride] = src[soff + ((ix + shift) % mod) . sstride] over `shape`. */
typedef struct hst__gather_args {
    uint64_t shape[4], sst[4], dst[4], shift[4], mod[4], soff, doff;
} hst__gather_args;

static hst_result hst__gather(hst_array *dst, const hst_array *src, const hst__gather_args *g) {
    uint64_t n = g->shape[0] * g->shape[1] * g->shape[2] * g->shape[3];
    if (!hst__is_cl(dst->be)) {
        hst_k_gather_host(hst_dtype_size(dst->dtype), src->buf->host, dst->buf->host, (size_t)n,
                          g->shape, g->sst, g->dst, g->shift, g->mod, g->soff, g->doff);
        return HST_SUCCESS;
    }
    {
        hst__arg args[10] = {HST__ARG_MEM(src), HST__ARG_MEM(dst), {8, &n}, {32, g->shape},
                             {32, g->sst}, {32, g->dst}, {32, g->shift}, {32, g->mod},
                             {8, &g->soff}, {8, &g->doff}};
        return hst__vocabx_run(dst->be, dst->dtype, HST__KX_GATHER, args, 10, (size_t)n);
    }
}

/* A gather whose source and destination are both whole contiguous arrays of `shape`. */
static hst__gather_args hst__gather_plain(unsigned ndim, const size_t *shape) {
    hst__gather_args g;
    hst__v4 v = hst__view(ndim, shape);
    int d;
    memset(&g, 0, sizeof g);
    for (d = 0; d < 4; d++) {
        g.shape[d] = g.mod[d] = v.shape[d];
        g.sst[d] = g.dst[d] = v.stride[d];
    }
    return g;
}

static hst_result hst__check_axis(const hst_array *a, const char *func, unsigned axis) {
    if (axis >= a->ndim) return hst__bad_arg(a->be, func, "axis %u is not < ndim %u", axis, a->ndim);
    return HST_SUCCESS;
}

static hst_result hst__shape_error(const hst_backend *be, const char *func, const char *why) {
    hst__log(be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH, "%s: %s", func, why);
    return HST_ERROR_SHAPE;
}

static hst_result hst__ramp(hst_array *a, double start, double step, int set_last, double last) {
    uint64_t n = a->count;
    if (!hst__is_cl(a->be)) {
        hst_k_ramp_host(a->dtype, a->buf->host, a->count, start, step, set_last, last);
        return HST_SUCCESS;
    }
    {
        float fs = (float)start, ft = (float)step, fl = (float)last;
        int fp64 = a->be->info.fp64;
        size_t db = fp64 ? sizeof(double) : sizeof(float);   /* the kernel's D */
        hst__arg args[6] = {HST__ARG_MEM(a), {8, &n}, {db, fp64 ? (const void *)&start : &fs},
                            {db, fp64 ? (const void *)&step : &ft}, {sizeof set_last, &set_last},
                            {db, fp64 ? (const void *)&last : &fl}};
        return hst__vocabx_run(a->be, a->dtype, HST__KX_RAMP, args, 6, a->count);
    }
}

static hst_result hst__make_1d(hst_backend *be, const char *func, hst_dtype dt, size_t n,
                               hst_array **out) {
    if (dt == HST_C64) return hst__dtype_error(be, func, dt, "ramps are real (u8 i32 f32 f64)");
    return hst_array_create(be, dt, 1, &n, out);
}

HST__BDEF hst_result hst_array_arange(hst_backend *be, hst_dtype dtype, double start, double stop,
                                    double step, hst_array **out) {
    static const char *F = "hst_array_arange";
    double count = step != 0.0 ? ceil((stop - start) / step) : 0.0;
    hst_result r;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    if (!(count >= 1.0) || count > 1e18)
        return hst__bad_arg(be, F, "start %g, stop %g, step %g give no elements (or too many)", start, stop, step);
    if ((r = hst__make_1d(be, F, dtype, (size_t)count, out)) != HST_SUCCESS) return r;
    if ((r = hst__ramp(*out, start, step, 0, 0.0)) != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__BDEF hst_result hst_array_linspace(hst_backend *be, hst_dtype dtype, double start, double stop,
                                      size_t num, int endpoint, hst_array **out) {
    static const char *F = "hst_array_linspace";
    size_t div = endpoint ? num - 1 : num;
    hst_result r;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    if (!num) return hst__bad_arg(be, F, "num is 0");
    if ((r = hst__make_1d(be, F, dtype, num, out)) != HST_SUCCESS) return r;
    r = hst__ramp(*out, start, div ? (stop - start) / (double)div : 0.0, endpoint && num > 1, stop);
    if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__BDEF hst_result hst_array_fftfreq(hst_backend *be, hst_dtype dtype, size_t n, double d,
                                     int rfft, hst_array **out) {
    static const char *F = "hst_array_fftfreq";
    size_t len = rfft ? n / 2 + 1 : n, i;
    double *v;
    hst_result r;
    if (!be) return hst__bad_arg(NULL, F, "be is NULL");
    if (!out) return hst__bad_arg(be, F, "out is NULL");
    if (!n || !(d != 0.0)) return hst__bad_arg(be, F, "n %zu and d %g must be nonzero", n, d);
    if (dtype != HST_F32 && dtype != HST_F64) return hst__dtype_error(be, F, dtype, "f32 or f64 only");
    if (!(v = (double *)hst__malloc(be, len * sizeof *v))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < len; i++)   /* NumPy: integer bins, then one multiplication by 1/(n d) */
        v[i] = (double)(i < (n + 1) / 2 || rfft ? (double)i : (double)i - (double)n) * (1.0 / ((double)n * d));
    if ((r = hst_array_create(be, dtype, 1, &len, out)) == HST_SUCCESS) {
        if (dtype == HST_F32) hst_k_cast_host(HST_F32, v, HST_F64, v, len);   /* in place, shrinking */
        r = hst_array_write(*out, v, hst_array_bytes(*out));
        if (r != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    }
    hst__free(be, v);
    return r;
}

HST__BDEF hst_result hst_array_from_host(hst_backend *be, hst_dtype dtype, unsigned ndim,
                                       const size_t *shape, const void *data, hst_array **out) {
    hst_result r;
    if (!data) return hst__bad_arg(be, "hst_array_from_host", "data is NULL");
    if ((r = hst_array_create(be, dtype, ndim, shape, out)) != HST_SUCCESS) return r;
    if ((r = hst_array_write(*out, data, (*out)->bytes)) != HST_SUCCESS) { hst_array_destroy(*out); *out = NULL; }
    return r;
}

HST__BDEF hst_result hst_array_reshape(hst_array *a, unsigned ndim, const size_t *shape) {
    static const char *F = "hst_array_reshape";
    size_t count = 1;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if (ndim < 1 || ndim > HST_MAX_DIMS || !shape) return hst__bad_arg(a->be, F, "ndim %u (1..%d) or shape NULL", ndim, HST_MAX_DIMS);
    for (i = 0; i < ndim; i++)
        if (!hst__mul(count, shape[i], &count)) return hst__overflow(a->be, F, "the product of shape");
    if (count != a->count) return hst__shape_error(a->be, F, "the new shape has another element count");
    a->ndim = ndim;
    for (i = 0; i < HST_MAX_DIMS; i++) a->shape[i] = i < ndim ? shape[i] : 0;
    return HST_SUCCESS;
}

/* dst and src: non-NULL, distinct, same backend and dtype. */
static hst_result hst__check_move(const char *func, const hst_array *dst, const hst_array *src) {
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(func, src, "src")) != HST_SUCCESS) return r;
    if (dst == src || dst->buf == src->buf) return hst__bad_arg(dst->be, func, "dst must not be src");
    if (dst->be != src->be || dst->dtype != src->dtype)
        return hst__shape_error(dst->be, func, "dst and src differ in backend or dtype");
    return HST_SUCCESS;
}

HST__BDEF hst_result hst_array_transpose(hst_array *dst, const hst_array *src,
                                       const unsigned *perm) {
    static const char *F = "hst_array_transpose";
    unsigned p[HST_MAX_DIMS], i, seen = 0;
    size_t shape[HST_MAX_DIMS];
    hst__gather_args g;
    hst__v4 sv;
    hst_result r;
    if ((r = hst__check_move(F, dst, src)) != HST_SUCCESS) return r;
    for (i = 0; i < src->ndim; i++) {
        p[i] = perm ? perm[i] : src->ndim - 1 - i;
        if (p[i] >= src->ndim || (seen >> p[i] & 1u)) return hst__bad_arg(dst->be, F, "perm is not a permutation of 0..%u", src->ndim - 1);
        seen |= 1u << p[i];
        shape[i] = src->shape[p[i]];
    }
    for (i = 0; i < src->ndim; i++)
        if (dst->ndim != src->ndim || dst->shape[i] != shape[i]) return hst__shape_error(dst->be, F, "dst's shape is not src's permuted");
    g = hst__gather_plain(dst->ndim, dst->shape);
    sv = hst__view(src->ndim, src->shape);
    for (i = 0; i < src->ndim; i++) g.sst[4 - src->ndim + i] = sv.stride[4 - src->ndim + p[i]];
    return hst__gather(dst, src, &g);
}

HST__BDEF hst_result hst_array_fftshift(hst_array *dst, const hst_array *src, unsigned axes_mask,
                                      int inverse) {
    static const char *F = "hst_array_fftshift";
    hst__gather_args g;
    unsigned a;
    hst_result r;
    if ((r = hst__check_move(F, dst, src)) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    g = hst__gather_plain(src->ndim, src->shape);
    for (a = 0; a < src->ndim; a++)
        if (axes_mask >> a & 1u) {
            size_t n = src->shape[a];   /* out[i] = in[(i + shift) % n] */
            g.shift[4 - src->ndim + a] = inverse ? n / 2 : n - n / 2;
        }
    return hst__gather(dst, src, &g);
}

/* Copies src into the block of dst that starts at `at` along axis (concatenate and stack). */
static hst_result hst__place(hst_array *dst, const hst_array *src, unsigned axis, size_t at,
                             int new_axis) {
    hst__v4 dv = hst__view(dst->ndim, dst->shape), sv = hst__view(src->ndim, src->shape);
    hst__gather_args g;
    int d, da = 4 - (int)dst->ndim + (int)axis;
    memset(&g, 0, sizeof g);
    for (d = 0; d < 4; d++) {
        /* stack: src's axes map to dst's axes other than `axis` */
        int sd = !new_axis ? d : d < da ? d + 1 : d;
        g.shape[d] = new_axis && d == da ? 1 : sv.shape[sd];
        g.sst[d] = new_axis && d == da ? 0 : sv.stride[sd];
        g.mod[d] = g.shape[d];
        g.dst[d] = dv.stride[d];
    }
    g.doff = at * dv.stride[da];
    return hst__gather(dst, src, &g);
}

static hst_result hst__join(const char *func, hst_array *dst, hst_array *const *srcs,
                            size_t count, unsigned axis, int new_axis) {
    size_t k, at = 0;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if (!srcs || !count) return hst__bad_arg(dst->be, func, "srcs is NULL or count is 0");
    if ((r = hst__check_axis(dst, func, axis)) != HST_SUCCESS) return r;
    for (k = 0; k < count; k++) {   /* shapes first: nothing is written unless all fit */
        const hst_array *s = srcs[k];
        if ((r = hst__check_move(func, dst, s)) != HST_SUCCESS) return r;
        if (s->ndim + (unsigned)new_axis != dst->ndim) return hst__shape_error(dst->be, func, "a src's ndim does not fit dst's");
        for (i = 0; i < dst->ndim; i++) {
            size_t want = new_axis ? (i == axis ? 1 : s->shape[i < axis ? i : i - 1]) : s->shape[i];
            if (i != axis && dst->shape[i] != want) return hst__shape_error(dst->be, func, "a src's extents do not fit dst's");
        }
        at += new_axis ? 1 : s->shape[axis];
    }
    if (at != dst->shape[axis]) return hst__shape_error(dst->be, func, "dst's extent along axis is not the srcs' total");
    for (k = 0, at = 0; k < count && r == HST_SUCCESS; k++) {
        r = hst__place(dst, srcs[k], axis, at, new_axis);
        at += new_axis ? 1 : srcs[k]->shape[axis];
    }
    return r;
}

HST__BDEF hst_result hst_array_concatenate(hst_array *dst, hst_array *const *srcs, size_t count,
                                         unsigned axis) {
    return hst__join("hst_array_concatenate", dst, srcs, count, axis, 0);
}

HST__BDEF hst_result hst_array_stack(hst_array *dst, hst_array *const *srcs, size_t count,
                                   unsigned axis) {
    return hst__join("hst_array_stack", dst, srcs, count, axis, 1);
}

HST__BDEF hst_result hst_array_meshgrid(hst_array *const *dst, hst_array *const *vecs,
                                      size_t count, int ij) {
    static const char *F = "hst_array_meshgrid";
    size_t shape[HST_MAX_DIMS], k;
    unsigned i;
    hst_result r;
    if (!dst || !vecs || !count || count > HST_MAX_DIMS) return hst__bad_arg(NULL, F, "dst or vecs NULL, or count not 1..%d", HST_MAX_DIMS);
    for (k = 0; k < count; k++) {
        if ((r = hst__check_array(F, vecs[k], "vecs[k]")) != HST_SUCCESS) return r;
        if (vecs[k]->ndim != 1) return hst__shape_error(vecs[k]->be, F, "vecs must be 1-D");
        shape[k] = vecs[k]->shape[0];
    }
    if (!ij && count >= 2) { size_t t = shape[0]; shape[0] = shape[1]; shape[1] = t; }
    for (k = 0; k < count; k++) {
        hst__gather_args g;
        unsigned along = (unsigned)k;
        if (!ij && k < 2 && count >= 2) along = 1 - (unsigned)k;
        if ((r = hst__check_move(F, dst[k], vecs[k])) != HST_SUCCESS) return r;
        for (i = 0; i < dst[k]->ndim; i++)
            if (dst[k]->ndim != count || dst[k]->shape[i] != shape[i]) return hst__shape_error(dst[k]->be, F, "dst's shape is not the grid's");
        g = hst__gather_plain((unsigned)count, shape);
        for (i = 0; i < 4; i++) g.sst[i] = 4 - count + along == i ? 1 : 0;
        if ((r = hst__gather(dst[k], vecs[k], &g)) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

/* a's strides against dst's 4-D view, 0 on broadcast axes; fails if a does not broadcast. */
static int hst__broadcast(const hst_array *a, const hst__v4 *dv, uint64_t st[4]) {
    hst__v4 av = hst__view(a->ndim, a->shape);
    int d;
    for (d = 0; d < 4; d++) {
        if (av.shape[d] != dv->shape[d] && av.shape[d] != 1) return 0;
        st[d] = av.shape[d] == 1 ? 0 : av.stride[d];
    }
    return 1;
}

HST__BDEF hst_result hst_array_binary(hst_array *dst, const hst_array *a, const hst_array *b,
                                    hst_binary_op op) {
    static const char *F = "hst_array_binary";
    hst__v4 dv;
    uint64_t ast[4], bst[4], n;
    int iop = (int)op;
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, b, "b")) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_BINARY_COUNT) return hst__bad_arg(dst->be, F, "op %d is not an hst_binary_op", iop);
    if (a->be != dst->be || b->be != dst->be || a->dtype != dst->dtype || b->dtype != dst->dtype)
        return hst__shape_error(dst->be, F, "operands differ in backend or dtype");
    if (!hst_kernels_binary_supported(dst->dtype, op)) return hst__dtype_error(dst->be, F, dst->dtype, "this op is not defined for it");
    dv = hst__view(dst->ndim, dst->shape);
    if (a->ndim > dst->ndim || b->ndim > dst->ndim || !hst__broadcast(a, &dv, ast) || !hst__broadcast(b, &dv, bst))
        return hst__shape_error(dst->be, F, "a or b does not broadcast to dst's shape");
    if (!hst__is_cl(dst->be)) {
        hst_k_binary_host(dst->dtype, a->buf->host, b->buf->host, dst->buf->host, dst->count, dv.shape, ast, bst, op);
        return HST_SUCCESS;
    }
    n = dst->count;
    {
        hst__arg args[8] = {HST__ARG_MEM(a), HST__ARG_MEM(b), HST__ARG_MEM(dst), {8, &n},
                            {32, dv.shape}, {32, ast}, {32, bst}, {sizeof iop, &iop}};
        return hst__vocabx_run(dst->be, dst->dtype, HST__KX_BINARY, args, 8, dst->count);
    }
}

HST__BDEF hst_result hst_array_binary_scalar(hst_array *dst, const hst_array *a, hst_scalar s,
                                           hst_binary_op op, int scalar_first) {
    static const char *F = "hst_array_binary_scalar";
    hst_array *sa;
    size_t one = 1;
    hst_result r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst_array_create(a->be, a->dtype, 1, &one, &sa)) != HST_SUCCESS) return r;
    r = hst_array_fill(sa, s);   /* a one-element array broadcasts like NumPy's scalar */
    if (r == HST_SUCCESS) r = scalar_first ? hst_array_binary(dst, sa, a, op) : hst_array_binary(dst, a, sa, op);
    hst_array_destroy(sa);
    return r;
}

HST__BDEF hst_result hst_array_clip(hst_array *dst, const hst_array *src, double lo, double hi) {
    hst_result r = hst_array_binary_scalar(dst, src, hst_real(lo), HST_BINARY_MAXIMUM, 0);
    return r != HST_SUCCESS ? r : hst_array_binary_scalar(dst, dst, hst_real(hi), HST_BINARY_MINIMUM, 0);
}

HST__BDEF hst_result hst_array_where(hst_array *dst, const hst_array *cond, const hst_array *a,
                                   const hst_array *b) {
    static const char *F = "hst_array_where";
    uint64_t n;
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, cond, "cond")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, a, "a")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, b, "b")) != HST_SUCCESS) return r;
    if ((r = hst__check_pair(F, dst, a, 1)) != HST_SUCCESS || (r = hst__check_pair(F, dst, b, 1)) != HST_SUCCESS ||
        (r = hst__check_pair(F, dst, cond, 0)) != HST_SUCCESS) return r;
    if (cond->dtype != HST_U8) return hst__dtype_error(dst->be, F, cond->dtype, "cond must be u8");
    if (!hst__is_cl(dst->be)) {
        hst_k_where_host(dst->dtype, (const uint8_t *)cond->buf->host, a->buf->host, b->buf->host, dst->buf->host, dst->count);
        return HST_SUCCESS;
    }
    n = dst->count;
    {
        hst__arg args[5] = {HST__ARG_MEM(cond), HST__ARG_MEM(a), HST__ARG_MEM(b), HST__ARG_MEM(dst), {8, &n}};
        return hst__vocabx_run(dst->be, dst->dtype, HST__KX_WHERE, args, 5, dst->count);
    }
}

HST__BDEF hst_result hst_array_reduce_axis(hst_array *dst, const hst_array *src, unsigned axis,
                                         hst_axis_op op) {
    static const char *F = "hst_array_reduce_axis";
    uint64_t outer = 1, len, inner = 1;
    int iop = (int)op, arg = op == HST_AXIS_ARGMAX || op == HST_AXIS_ARGMIN;
    unsigned i, k = 0;
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((r = hst__check_axis(src, F, axis)) != HST_SUCCESS) return r;
    if ((int)op < 0 || op >= HST_AXIS_COUNT) return hst__bad_arg(src->be, F, "op %d is not an hst_axis_op", iop);
    if (!hst_kernels_axis_supported(src->dtype, op)) return hst__dtype_error(src->be, F, src->dtype, "this op is not defined for it");
    if (dst->be != src->be || dst->dtype != (arg ? HST_I32 : src->dtype))
        return hst__shape_error(src->be, F, "dst's backend or dtype (i32 for ARGMAX/ARGMIN) is wrong");
    if (op == HST_AXIS_CUMSUM) {
        if ((r = hst__check_pair(F, dst, src, 1)) != HST_SUCCESS) return r;
    } else {
        int ok = dst->ndim == (src->ndim > 1 ? src->ndim - 1 : 1);
        for (i = 0; ok && i < src->ndim; i++)
            if (i != axis) ok = dst->shape[k++] == src->shape[i];
        if (!ok || (src->ndim == 1 && dst->shape[0] != 1)) return hst__shape_error(src->be, F, "dst's shape is not src's without axis");
    }
    if (arg && src->shape[axis] > (size_t)INT32_MAX) return hst__bad_arg(src->be, F, "axis extent over INT32_MAX");
    for (i = 0; i < src->ndim; i++) {
        if (i < axis) outer *= src->shape[i];
        if (i > axis) inner *= src->shape[i];
    }
    len = src->shape[axis];
    if (!hst__is_cl(src->be)) {
        hst_k_axis_host(src->dtype, src->buf->host, arg ? NULL : dst->buf->host, arg ? (int32_t *)dst->buf->host : NULL,
                        (size_t)outer, (size_t)len, (size_t)inner, op);
        return HST_SUCCESS;
    }
    {
        uint64_t items = outer * inner;
        hst__arg args[7] = {HST__ARG_MEM(src), HST__ARG_MEM(dst), HST__ARG_MEM(dst), {8, &outer},
                            {8, &len}, {8, &inner}, {sizeof iop, &iop}};
        return hst__vocabx_run(src->be, src->dtype, HST__KX_AXIS, args, 7, (size_t)items);
    }
}

HST__BDEF hst_result hst_array_complex_part(hst_array *dst, const hst_array *src,
                                          hst_complex_part part) {
    static const char *F = "hst_array_complex_part";
    uint64_t n;
    int ip = (int)part;
    hst_result r;
    if ((r = hst__check_array(F, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(F, src, "src")) != HST_SUCCESS) return r;
    if ((int)part < 0 || part >= HST_PART_COUNT) return hst__bad_arg(src->be, F, "part %d is not an hst_complex_part", ip);
    if (src->dtype != HST_C64) return hst__dtype_error(src->be, F, src->dtype, "src must be c64");
    if ((r = hst__check_pair(F, dst, src, 0)) != HST_SUCCESS) return r;
    if (dst->dtype != (part == HST_PART_CONJ ? HST_C64 : HST_F32))
        return hst__shape_error(src->be, F, "dst must be f32 (c64 for CONJ)");
    if (!hst__is_cl(src->be)) {
        hst_k_cpart_host((const float *)src->buf->host, (float *)dst->buf->host, src->count, part);
        return HST_SUCCESS;
    }
    n = src->count;
    {
        hst__arg args[4] = {HST__ARG_MEM(src), HST__ARG_MEM(dst), {8, &n}, {sizeof ip, &ip}};
        return hst__vocabx_run(src->be, HST_C64, HST__KX_CPART, args, 4, src->count);
    }
}

/* >>fft -------------------------------------------------------------------------------------- */
enum { HST__FFT_C2C = 0, HST__FFT_R2C = 1, HST__FFT_C2R = 2 };

/* What a plan is made for: lengths n[] of the transformed axes, fastest first (n[0] = the last
   axis, real-space length); unused entries are 1. */
typedef struct hst__fft_key {
    int kind, inverse, in_place;
    unsigned axes;
    size_t n[HST_FFT_MAX_AXES], batch;
} hst__fft_key;

struct hst__fft_plan {
    hst__fft_key key;
    struct hst__fft_plan *next;
#ifdef HST_FFT
    fftwf_plan host;                 /* host device */
#  ifndef HST_NO_OPENCL
    VkFFTApplication *app;           /* OpenCL devices */
    /* VkFFT keeps the pointers it is given (sizes at init, buffers at each launch) and reads
       them again later: they point here, never at a stack frame. */
    uint64_t cbytes, rbytes;
    cl_mem cplx, real;
#  endif
#endif
};

HST__BDEF int hst_fft_built_in(void) {
#ifdef HST_FFT
    return 1;
#else
    return 0;
#endif
}

HST__BDEF size_t hst_fft_plan_count(const hst_backend *be) {
    const struct hst__fft_plan *p;
    size_t n = 0;
    for (p = be ? be->fft_plans : NULL; p; p = p->next) n++;
    return n;
}

#ifndef HST_FFT
static void hst__fft_release(hst_backend *be) { (void)be; }

HST__BDEF hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                   int inverse, hst_fft_norm norm) {
    const hst_backend *be = dst ? dst->be : src ? src->be : NULL;
    (void)axes; (void)inverse; (void)norm;
    hst__log(be, HST_LOG_ERROR, HST_LOG_NOT_BUILT_IN, "hst_array_fft: FFTs are not built in: "
             "define HST_FFT where the implementation is compiled (FFTW and VkFFT headers, "
             "link -lfftw3f)");
    return HST_ERROR_NOT_BUILT_IN;
}
#else
/* The kind of a (src, dst) dtype pair; -1 for any other pair. */
static int hst__fft_kind(hst_dtype src, hst_dtype dst) {
    if (src == HST_C64 && dst == HST_C64) return HST__FFT_C2C;
    if (src == HST_F32 && dst == HST_C64) return HST__FFT_R2C;
    if (src == HST_C64 && dst == HST_F32) return HST__FFT_C2R;
    return -1;
}

/* Shapes agree for the kind: equal, except the last axis of the complex side of r2c/c2r,
   which holds n / 2 + 1 bins of the real side's n. */
static hst_result hst__fft_check_shapes(const char *func, const hst_array *real_side,
                                        const hst_array *cplx_side, int kind) {
    unsigned i, last = real_side->ndim - 1;
    int same = real_side->be == cplx_side->be && real_side->ndim == cplx_side->ndim;
    for (i = 0; same && i < real_side->ndim; i++) {
        size_t want = real_side->shape[i];
        if (i == last && kind != HST__FFT_C2C) want = want / 2 + 1;
        same = cplx_side->shape[i] == want;
    }
    if (same) return HST_SUCCESS;
    hst__log(real_side->be, HST_LOG_ERROR, HST_LOG_SHAPE_MISMATCH,
             "%s: %s", func, real_side->be != cplx_side->be ? "operands differ in backend"
             : kind == HST__FFT_C2C ? "src and dst differ in shape"
             : "the complex array's shape must be the real one's with its last extent n / 2 + 1");
    return HST_ERROR_SHAPE;
}

/* Drops transformed axes of length 1 (identities that VkFFT refuses as a radix); c2c with no
   axis left is a copy (axes = 0). The last axis of r2c/c2r stays: it is the real one. */
static void hst__fft_squeeze(hst__fft_key *key) {
    size_t kept[HST_FFT_MAX_AXES] = {1, 1, 1};
    unsigned i, m = 0;
    for (i = 0; i < key->axes; i++)
        if (key->n[i] > 1 || (i == 0 && key->kind != HST__FFT_C2C)) kept[m++] = key->n[i];
    memcpy(key->n, kept, sizeof kept);
    key->axes = m;
}

/* Validates a call and fills the plan key. */
static hst_result hst__fft_args(const char *func, hst_array *dst, const hst_array *src,
                                unsigned axes, int inverse, hst_fft_norm norm, hst__fft_key *key) {
    const hst_array *real_side;
    unsigned i;
    hst_result r;
    if ((r = hst__check_array(func, dst, "dst")) != HST_SUCCESS) return r;
    if ((r = hst__check_array(func, src, "src")) != HST_SUCCESS) return r;
    if (axes < 1 || axes > HST_FFT_MAX_AXES || axes > src->ndim)
        return hst__bad_arg(dst->be, func, "axes %u is not 1..%d and <= src's ndim %u", axes,
                            HST_FFT_MAX_AXES, src->ndim);
    if ((int)norm < HST_FFT_NORM_BACKWARD || norm > HST_FFT_NORM_FORWARD)
        return hst__bad_arg(dst->be, func, "norm %d is not an hst_fft_norm", (int)norm);
    memset(key, 0, sizeof *key);
    key->kind = hst__fft_kind(src->dtype, dst->dtype);
    if (key->kind < 0)
        return hst__dtype_error(dst->be, func, src->dtype, "FFTs take c64 -> c64, f32 -> c64 "
                                "(forward) or c64 -> f32 (inverse); this is the src dtype");
    if ((key->kind == HST__FFT_R2C && inverse) || (key->kind == HST__FFT_C2R && !inverse))
        return hst__bad_arg(dst->be, func, "inverse %d: %s", inverse, key->kind == HST__FFT_R2C
                            ? "f32 -> c64 is forward only" : "c64 -> f32 is inverse only");
    real_side = key->kind == HST__FFT_C2R ? dst : src;
    r = hst__fft_check_shapes(func, real_side, key->kind == HST__FFT_C2R ? src : dst, key->kind);
    if (r != HST_SUCCESS) return r;
    key->inverse = inverse != 0;
    key->in_place = dst == src;
    key->axes = axes;
    key->batch = 1;
    for (i = 0; i < HST_FFT_MAX_AXES; i++)
        key->n[i] = i < axes ? real_side->shape[real_side->ndim - 1 - i] : 1;
    for (i = 0; i + axes < real_side->ndim; i++) key->batch *= real_side->shape[i];
    if (key->kind != HST__FFT_C2C && key->n[0] < 2)
        return hst__bad_arg(dst->be, func, "the real side's last extent is 1: r2c and c2r "
                            "need n >= 2 (use c64 -> c64)");
    hst__fft_squeeze(key);
    return HST_SUCCESS;
}

/* NumPy's scale factor for the call: 1, 1/N or 1/sqrt(N). */
static double hst__fft_scale(const hst__fft_key *key, hst_fft_norm norm) {
    double n = (double)key->n[0] * (double)key->n[1] * (double)key->n[2];
    if (norm == HST_FFT_NORM_ORTHO) return 1.0 / sqrt(n);
    if ((norm == HST_FFT_NORM_BACKWARD) == (key->inverse != 0)) return 1.0 / n;
    return 1.0;
}

/* Element strides of the transformed axes (fastest first) of a contiguous array whose fastest
   axis holds `fast` elements, and the distance between batches. */
static void hst__fft_strides(const hst__fft_key *key, size_t fast, ptrdiff_t stride[3],
                             ptrdiff_t *dist) {
    size_t s = 1;
    unsigned i;
    for (i = 0; i < HST_FFT_MAX_AXES; i++) {
        stride[i] = (ptrdiff_t)s;
        s *= i == 0 ? fast : key->n[i];
    }
    *dist = (ptrdiff_t)s;
}

/* The FFTW plan (guru64 interface: no int limits; FFTW_ESTIMATE leaves the arrays untouched;
   FFTW_UNALIGNED lets one plan run on any arrays through the new-array execute calls). */
static hst_result hst__fft_plan_host(hst_backend *be, const hst__fft_key *key, void *in,
                                     void *out, struct hst__fft_plan *p) {
    fftw_iodim64 dims[HST_FFT_MAX_AXES], batch;
    ptrdiff_t rs[3], cs[3], rdist, cdist;
    unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED, i;
    size_t bins = key->kind == HST__FFT_C2C ? key->n[0] : key->n[0] / 2 + 1;
    hst__fft_strides(key, key->n[0], rs, &rdist);
    hst__fft_strides(key, bins, cs, &cdist);
    for (i = 0; i < key->axes; i++) {        /* FFTW lists dims slowest first */
        unsigned a = key->axes - 1 - i;
        dims[i].n = (ptrdiff_t)key->n[a];
        dims[i].is = key->kind == HST__FFT_R2C ? rs[a] : cs[a];
        dims[i].os = key->kind == HST__FFT_C2R ? rs[a] : cs[a];
    }
    batch.n = (ptrdiff_t)key->batch;
    batch.is = key->kind == HST__FFT_R2C ? rdist : cdist;
    batch.os = key->kind == HST__FFT_C2R ? rdist : cdist;
    if (key->kind == HST__FFT_C2C)
        p->host = fftwf_plan_guru64_dft((int)key->axes, dims, 1, &batch, (fftwf_complex *)in,
                                        (fftwf_complex *)out,
                                        key->inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
    else if (key->kind == HST__FFT_R2C)
        p->host = fftwf_plan_guru64_dft_r2c((int)key->axes, dims, 1, &batch, (float *)in,
                                            (fftwf_complex *)out, flags);
    else
        p->host = fftwf_plan_guru64_dft_c2r((int)key->axes, dims, 1, &batch, (fftwf_complex *)in,
                                            (float *)out, flags);
    if (p->host) return HST_SUCCESS;
    hst__log(be, HST_LOG_ERROR, HST_LOG_FFT_LIBRARY, "hst_array_fft: FFTW made no plan for "
             "these lengths and batch");
    return HST_ERROR_UNSUPPORTED;
}

static void hst__fft_run_host(const struct hst__fft_plan *p, void *in, void *out) {
    if (p->key.kind == HST__FFT_C2C)
        fftwf_execute_dft(p->host, (fftwf_complex *)in, (fftwf_complex *)out);
    else if (p->key.kind == HST__FFT_R2C)
        fftwf_execute_dft_r2c(p->host, (float *)in, (fftwf_complex *)out);
    else
        fftwf_execute_dft_c2r(p->host, (fftwf_complex *)in, (float *)out);
}

#ifndef HST_NO_OPENCL
/* The VkFFT application: sizes fastest first (VkFFT's W, H, D), batches as numberBatches,
   strides of every buffer given explicitly (the complex side holds n / 2 + 1 bins in r2c/c2r;
   the real side is VkFFT's unpadded "input buffer"). Only the direction needed is compiled. */
static hst_result hst__fft_plan_cl(hst_backend *be, const hst__fft_key *key, cl_mem cplx,
                                   cl_mem real, struct hst__fft_plan *p) {
    VkFFTConfiguration c;
    VkFFTResult vr;
    ptrdiff_t rs[3], cs[3], rdist, cdist;
    unsigned i;
    size_t bins = key->kind == HST__FFT_C2C ? key->n[0] : key->n[0] / 2 + 1;
    hst__fft_strides(key, key->n[0], rs, &rdist);
    hst__fft_strides(key, bins, cs, &cdist);
    p->cbytes = (uint64_t)cdist * key->batch * 8;
    p->rbytes = (uint64_t)rdist * key->batch * 4;
    p->cplx = cplx;
    p->real = real;
    memset(&c, 0, sizeof c);
    c.FFTdim = key->axes;
    for (i = 0; i < HST_FFT_MAX_AXES; i++) {
        c.size[i] = key->n[i];
        c.bufferStride[i] = (uint64_t)(i + 1 < HST_FFT_MAX_AXES ? cs[i + 1] : cdist);
    }
    c.numberBatches = key->batch;
    c.platform = &be->platform;
    c.device = &be->dev;
    c.context = &be->ctx;
    c.commandQueue = &be->queue.cl;
    c.buffer = &p->cplx;
    c.bufferSize = &p->cbytes;
    if (key->kind != HST__FFT_C2C) {
        c.performR2C = 1;
        c.isInputFormatted = 1;
        c.inputBuffer = &p->real;
        c.inputBufferSize = &p->rbytes;
        for (i = 0; i < HST_FFT_MAX_AXES; i++)
            c.inputBufferStride[i] = (uint64_t)(i + 1 < HST_FFT_MAX_AXES ? rs[i + 1] : rdist);
        c.inverseReturnToInputBuffer = 1;
    }
    c.makeForwardPlanOnly = !key->inverse;
    c.makeInversePlanOnly = key->inverse != 0;
    if (be->info.unified_memory) c.coalescedMemory = 64;   /* CPU caches: 64-byte lines */
    if (!(p->app = (VkFFTApplication *)hst__calloc(be, sizeof *p->app)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    vr = initializeVkFFT(p->app, c);
    if (vr == VKFFT_SUCCESS) return HST_SUCCESS;
    hst__free(be, p->app);
    p->app = NULL;
    if (vr == VKFFT_ERROR_MALLOC_FAILED) return HST_ERROR_OUT_OF_HOST_MEMORY;
    hst__log(be, HST_LOG_ERROR, HST_LOG_FFT_LIBRARY, "hst_array_fft: initializeVkFFT failed "
             "(VkFFTResult %d)", (int)vr);
    return HST_ERROR_UNSUPPORTED;
}

/* Enqueues the transform: c2c in place on cplx; r2c real -> cplx; c2r cplx -> real (cplx is
   overwritten: the caller passes a copy). */
static hst_result hst__fft_run_cl(hst_backend *be, struct hst__fft_plan *p, cl_mem cplx,
                                  cl_mem real) {
    VkFFTLaunchParams lp;
    VkFFTResult vr;
    memset(&lp, 0, sizeof lp);
    p->cplx = cplx;
    p->real = real;
    lp.commandQueue = &be->queue.cl;
    lp.buffer = &p->cplx;
    if (p->key.kind != HST__FFT_C2C) lp.inputBuffer = &p->real;
    vr = VkFFTAppend(p->app, p->key.inverse ? 1 : -1, &lp);
    if (vr == VKFFT_SUCCESS) return HST_SUCCESS;
    hst__log(be, HST_LOG_ERROR, HST_LOG_FFT_LIBRARY, "hst_array_fft: VkFFTAppend failed "
             "(VkFFTResult %d)", (int)vr);
    return HST_ERROR_UNSUPPORTED;
}
#endif

static void hst__fft_release(hst_backend *be) {
    while (be->fft_plans) {
        struct hst__fft_plan *p = be->fft_plans;
        be->fft_plans = p->next;
        if (p->host) fftwf_destroy_plan(p->host);
#ifndef HST_NO_OPENCL
        if (p->app) { deleteVkFFT(p->app); hst__free(be, p->app); }
#endif
        hst__free(be, p);
    }
}

/* The cached plan for key, made on first use from the call's arrays (cplx: the complex side,
   or the c2c in-place array; real: the real side; host pointers on the host device). */
static hst_result hst__fft_plan(hst_backend *be, const hst__fft_key *key, hst_buffer *in,
                                hst_buffer *out, struct hst__fft_plan **found) {
    struct hst__fft_plan *p;
    hst_result r;
    for (p = be->fft_plans; p; p = p->next)
        if (!memcmp(&p->key, key, sizeof *key)) { *found = p; return HST_SUCCESS; }
    if (!(p = (struct hst__fft_plan *)hst__calloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->key = *key;
#ifndef HST_NO_OPENCL
    if (hst__is_cl(be)) {
        int c2r = key->kind == HST__FFT_C2R;
        r = hst__fft_plan_cl(be, key, (c2r ? in : out)->cl, (c2r ? out : in)->cl, p);
    } else
#endif
        r = hst__fft_plan_host(be, key, in->host, out->host, p);
    if (r != HST_SUCCESS) { hst__free(be, p); return r; }
    p->next = be->fft_plans;
    be->fft_plans = p;
    *found = p;
    return HST_SUCCESS;
}

/* Runs the transform unscaled. Inputs are never modified: c2r (which both libraries run in
   place on the spectrum) works on a pooled copy; c2c on an OpenCL device copies src into dst
   and transforms dst in place. */
static hst_result hst__fft_exec(hst_array *dst, const hst_array *src, const hst__fft_key *key) {
    hst_backend *be = dst->be;
    hst_buffer *in = src->buf, *tmp = NULL;
    struct hst__fft_plan *p;
    hst_result r = HST_SUCCESS;
    if (key->kind == HST__FFT_C2R) {
        if ((r = hst_pool_alloc(be->pool, src->bytes, &tmp)) != HST_SUCCESS) return r;
        r = hst_copy(&be->queue, tmp, 0, src->buf, 0, src->bytes, 0, NULL, NULL);
        in = tmp;
    } else if (key->kind == HST__FFT_C2C && hst__is_cl(be) && dst->buf != src->buf) {
        r = hst_copy(&be->queue, dst->buf, 0, src->buf, 0, src->bytes, 0, NULL, NULL);
        in = dst->buf;
    }
    if (r == HST_SUCCESS) r = hst__fft_plan(be, key, in, dst->buf, &p);
#ifndef HST_NO_OPENCL
    if (r == HST_SUCCESS && hst__is_cl(be)) {
        int c2r = key->kind == HST__FFT_C2R;
        r = hst__fft_run_cl(be, p, (c2r ? in : dst->buf)->cl, (c2r ? dst->buf : in)->cl);
    } else
#endif
    if (r == HST_SUCCESS) hst__fft_run_host(p, in->host, dst->buf->host);
    hst_buffer_destroy(tmp);
    return r;
}

/* Where an array's bytes lie: its buffer's underlying allocation and the offset in it. */
static const hst_buffer *hst__array_root(const hst_array *a, size_t *at) {
    *at = a->buf->parent ? a->buf->origin : 0;
    return a->buf->parent ? a->buf->parent : a->buf;
}

/* 1: a and b (distinct arrays) cover the same bytes with the same dtype and shape (two views of
   one region: in place); -1: their bytes overlap otherwise; 0: they are apart. */
static int hst__array_alias(const hst_array *a, const hst_array *b) {
    size_t ao, bo;
    unsigned i;
    int same;
    if (hst__array_root(a, &ao) != hst__array_root(b, &bo)) return 0;
    if (ao >= bo + b->bytes || bo >= ao + a->bytes) return 0;
    same = ao == bo && a->dtype == b->dtype && a->ndim == b->ndim;
    for (i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    return same ? 1 : -1;
}

HST__BDEF hst_result hst_array_fft(hst_array *dst, const hst_array *src, unsigned axes,
                                   int inverse, hst_fft_norm norm) {
    static const char *F = "hst_array_fft";
    hst__fft_key key;
    double scale;
    hst_result r;
    if (dst && src && dst != src) {
        int alias = hst__array_alias(dst, src);
        if (alias == 1) src = dst;   /* two views of the same bytes: in place */
        else if (alias < 0)
            return hst__bad_arg(dst->be, F, "src and dst are views of overlapping bytes (give "
                                "the same array, or views of the same bytes, to transform in place)");
    }
    if ((r = hst__fft_args(F, dst, src, axes, inverse, norm, &key)) != HST_SUCCESS) return r;
    if (hst__is_cl(dst->be) && key.kind == HST__FFT_C2C) key.in_place = 1;  /* see exec */
    if (key.axes == 0) r = hst_array_copy(dst, src);     /* every length was 1 */
    else r = hst__fft_exec(dst, src, &key);
    if (r != HST_SUCCESS) return r;
    scale = hst__fft_scale(&key, norm);
    return scale == 1.0 ? HST_SUCCESS : hst_array_scale(dst, hst_real(scale));
}
#endif /* HST_FFT */

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
