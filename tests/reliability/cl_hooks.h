/* tests/reliability/cl_hooks.h — OpenCL call interception for the reliability programs
   (tests/test_faults.c, tests/soak.c, tests/kernels_oclgrind.c) and tests/test_stream.c's leak
   tests: include <CL/cl.h>, then this file, then the halostream implementation. Every
   OpenCL call backend.h makes that creates or releases an object is renamed to a wrapper that
   counts live objects; every call that can fail (create buffer / sub-buffer / context / queue /
   program / kernel, build, every enqueue, map) also passes through rel_fallible(), so a test can
   make the k-th such call fail with a realistic error code without calling the driver.

   State (single-threaded use):
     rel_live          created minus released, per object kind
     rel_made_events   every event handed out (shows a counter sees a stream's events at all)
     rel_calls         fallible calls made since the last rel_reset_faults()
     rel_fail_at       0: nothing fails; k: the k-th fallible call fails (once)
     rel_injected      calls failed so far
     rel_launch_hook   called with every kernel enqueued successfully (may be NULL)
   With HST_NO_OPENCL (or on macOS) it defines the counters only. */
#ifndef HST_TESTS_RELIABILITY_CL_HOOKS_H
#define HST_TESTS_RELIABILITY_CL_HOOKS_H

#if defined(__GNUC__)
#  define REL_FN static __attribute__((unused))
#else
#  define REL_FN static
#endif

typedef struct rel_counts {
    long events, mems, queues, kernels, programs, contexts;
} rel_counts;
static rel_counts rel_live;
static long rel_calls, rel_fail_at, rel_injected;
#if defined(__GNUC__)
__attribute__((unused))
#endif
static long rel_made_events;
static char rel_injected_call[64];

REL_FN void rel_reset_faults(long fail_at)
{
    rel_calls = 0;
    rel_fail_at = fail_at;
    rel_injected = 0;
    rel_injected_call[0] = '\0';
}

REL_FN int rel_counts_equal(const rel_counts *a, const rel_counts *b)
{
    return a->events == b->events && a->mems == b->mems && a->queues == b->queues &&
           a->kernels == b->kernels && a->programs == b->programs && a->contexts == b->contexts;
}

REL_FN long rel_counts_total(const rel_counts *a)
{
    return a->events + a->mems + a->queues + a->kernels + a->programs + a->contexts;
}

#if !defined(HST_NO_OPENCL) && !defined(__APPLE__)
#define REL_HOOKS_CL 1
#include <stdlib.h>
#include <string.h>

static void (*rel_launch_hook)(cl_kernel k);

/* Replacements for the driver's buffer copy and fill (NULL: the driver's own). A replacement
   is called in place of the driver after the fault check and must hand out its own event
   through the wrappers below (which count it). tests/kernels_oclgrind.c sets them to copy
   kernels: Oclgrind 21.10 loses its uninitialised-value shadow in clEnqueueCopyBuffer at
   non-zero offsets and in clEnqueueFillBuffer with patterns of more than one byte. */
static cl_int (*rel_copy_override)(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof,
                                   size_t sz, cl_uint n, const cl_event *w, cl_event *e);
/* rel_canary >= 0: every buffer created without host data starts with that byte everywhere
   (through CL_MEM_COPY_HOST_PTR), for tests/kernels_oclgrind.c. */
static int rel_canary = -1;
static cl_int (*rel_fill_override)(cl_command_queue q, cl_mem b, const void *pat, size_t ps,
                                   size_t off, size_t sz, cl_uint n, const cl_event *w,
                                   cl_event *e);

/* 1 when this fallible call is the one to fail. */
REL_FN int rel_fallible(const char *name)
{
    rel_calls++;
    if (rel_fail_at && rel_calls == rel_fail_at) {
        rel_injected++;
        strncpy(rel_injected_call, name, sizeof rel_injected_call - 1);
        rel_injected_call[sizeof rel_injected_call - 1] = '\0';
        return 1;
    }
    return 0;
}

#define REL_EV(r, e) do { if ((r) == CL_SUCCESS && (e) && *(e)) { rel_live.events++; rel_made_events++; } } while (0)
#define REL_ENQ(name) do { if (rel_fallible(name)) return CL_OUT_OF_RESOURCES; } while (0)

REL_FN cl_int rel_clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blk, size_t off,
                                       size_t sz, const void *p, cl_uint n, const cl_event *w,
                                       cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueWriteBuffer");
    r = clEnqueueWriteBuffer(q, b, blk, off, sz, p, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blk, size_t off,
                                      size_t sz, void *p, cl_uint n, const cl_event *w,
                                      cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueReadBuffer");
    r = clEnqueueReadBuffer(q, b, blk, off, sz, p, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueWriteBufferRect(cl_command_queue q, cl_mem b, cl_bool blk,
                                           const size_t *bo, const size_t *ho, const size_t *rg,
                                           size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                           const void *p, cl_uint n, const cl_event *w,
                                           cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueWriteBufferRect");
    r = clEnqueueWriteBufferRect(q, b, blk, bo, ho, rg, brp, bsp, hrp, hsp, p, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueReadBufferRect(cl_command_queue q, cl_mem b, cl_bool blk,
                                          const size_t *bo, const size_t *ho, const size_t *rg,
                                          size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                          void *p, cl_uint n, const cl_event *w, cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueReadBufferRect");
    r = clEnqueueReadBufferRect(q, b, blk, bo, ho, rg, brp, bsp, hrp, hsp, p, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueCopyBufferRect(cl_command_queue q, cl_mem s, cl_mem d,
                                          const size_t *so, const size_t *dof, const size_t *rg,
                                          size_t srp, size_t ssp, size_t drp, size_t dsp,
                                          cl_uint n, const cl_event *w, cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueCopyBufferRect");
    r = clEnqueueCopyBufferRect(q, s, d, so, dof, rg, srp, ssp, drp, dsp, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                         const size_t *go, const size_t *gs, const size_t *ls,
                                         cl_uint n, const cl_event *w, cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueNDRangeKernel");
    r = clEnqueueNDRangeKernel(q, k, dims, go, gs, ls, n, w, e);
    REL_EV(r, e);
    if (r == CL_SUCCESS && rel_launch_hook) rel_launch_hook(k);
    return r;
}
REL_FN cl_int rel_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                              cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueMarkerWithWaitList");
    r = clEnqueueMarkerWithWaitList(q, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so,
                                      size_t dof, size_t sz, cl_uint n, const cl_event *w,
                                      cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueCopyBuffer");
    if (rel_copy_override) return rel_copy_override(q, s, d, so, dof, sz, n, w, e);
    r = clEnqueueCopyBuffer(q, s, d, so, dof, sz, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pat, size_t ps,
                                      size_t off, size_t sz, cl_uint n, const cl_event *w,
                                      cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueFillBuffer");
    if (rel_fill_override) return rel_fill_override(q, b, pat, ps, off, sz, n, w, e);
    r = clEnqueueFillBuffer(q, b, pat, ps, off, sz, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN void *rel_clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blk, cl_map_flags f,
                                    size_t off, size_t sz, cl_uint n, const cl_event *w,
                                    cl_event *e, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    void *p;
    if (rel_fallible("clEnqueueMapBuffer")) {
        if (err) *err = CL_MAP_FAILURE;
        return NULL;
    }
    p = clEnqueueMapBuffer(q, b, blk, f, off, sz, n, w, e, &r);
    if (err) *err = r;
    REL_EV(r, e);
    return p;
}
REL_FN cl_int rel_clEnqueueUnmapMemObject(cl_command_queue q, cl_mem b, void *p, cl_uint n,
                                          const cl_event *w, cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueUnmapMemObject");
    r = clEnqueueUnmapMemObject(q, b, p, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint nm, const cl_mem *m,
                                             cl_mem_migration_flags f, cl_uint n,
                                             const cl_event *w, cl_event *e)
{
    cl_int r;
    REL_ENQ("clEnqueueMigrateMemObjects");
    r = clEnqueueMigrateMemObjects(q, nm, m, f, n, w, e);
    REL_EV(r, e);
    return r;
}
REL_FN cl_int rel_clRetainEvent(cl_event e)
{
    cl_int r = clRetainEvent(e);
    if (r == CL_SUCCESS) rel_live.events++;
    return r;
}
REL_FN cl_int rel_clReleaseEvent(cl_event e)
{
    cl_int r = clReleaseEvent(e);
    if (r == CL_SUCCESS) rel_live.events--;
    return r;
}
REL_FN cl_mem rel_clCreateBuffer(cl_context c, cl_mem_flags f, size_t sz, void *p, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_mem m;
    if (rel_fallible("clCreateBuffer")) {
        if (err) *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    if (rel_canary >= 0 && !p && sz && !(f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))) {
        void *init = malloc(sz);
        if (!init) {
            if (err) *err = CL_OUT_OF_HOST_MEMORY;
            return NULL;
        }
        memset(init, rel_canary, sz);
        m = clCreateBuffer(c, f | CL_MEM_COPY_HOST_PTR, sz, init, &r);
        free(init);
    } else {
        m = clCreateBuffer(c, f, sz, p, &r);
    }
    if (err) *err = r;
    if (m) rel_live.mems++;
    return m;
}
REL_FN cl_mem rel_clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t,
                                    const void *info, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_mem m;
    if (rel_fallible("clCreateSubBuffer")) {
        if (err) *err = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    m = clCreateSubBuffer(b, f, t, info, &r);
    if (err) *err = r;
    if (m) rel_live.mems++;
    return m;
}
REL_FN cl_int rel_clRetainMemObject(cl_mem m)
{
    cl_int r = clRetainMemObject(m);
    if (r == CL_SUCCESS) rel_live.mems++;
    return r;
}
REL_FN cl_int rel_clReleaseMemObject(cl_mem m)
{
    cl_int r = clReleaseMemObject(m);
    if (r == CL_SUCCESS) rel_live.mems--;
    return r;
}
REL_FN cl_context rel_clCreateContext(const cl_context_properties *pr, cl_uint nd,
                                      const cl_device_id *d,
                                      void (CL_CALLBACK *fn)(const char *, const void *, size_t,
                                                             void *),
                                      void *u, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_context c;
    if (rel_fallible("clCreateContext")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    c = clCreateContext(pr, nd, d, fn, u, &r);
    if (err) *err = r;
    if (c) rel_live.contexts++;
    return c;
}
REL_FN cl_int rel_clRetainContext(cl_context c)
{
    cl_int r = clRetainContext(c);
    if (r == CL_SUCCESS) rel_live.contexts++;
    return r;
}
REL_FN cl_int rel_clReleaseContext(cl_context c)
{
    cl_int r = clReleaseContext(c);
    if (r == CL_SUCCESS) rel_live.contexts--;
    return r;
}
REL_FN cl_command_queue rel_clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                               const cl_queue_properties *p,
                                                               cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_command_queue q;
    if (rel_fallible("clCreateCommandQueueWithProperties")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    q = clCreateCommandQueueWithProperties(c, d, p, &r);
    if (err) *err = r;
    if (q) rel_live.queues++;
    return q;
}
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
REL_FN cl_command_queue rel_clCreateCommandQueue(cl_context c, cl_device_id d,
                                                 cl_command_queue_properties p, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_command_queue q;
    if (rel_fallible("clCreateCommandQueue")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    q = clCreateCommandQueue(c, d, p, &r);
    if (err) *err = r;
    if (q) rel_live.queues++;
    return q;
}
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif
REL_FN cl_int rel_clRetainCommandQueue(cl_command_queue q)
{
    cl_int r = clRetainCommandQueue(q);
    if (r == CL_SUCCESS) rel_live.queues++;
    return r;
}
REL_FN cl_int rel_clReleaseCommandQueue(cl_command_queue q)
{
    cl_int r = clReleaseCommandQueue(q);
    if (r == CL_SUCCESS) rel_live.queues--;
    return r;
}
REL_FN cl_kernel rel_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_kernel k;
    if (rel_fallible("clCreateKernel")) {
        if (err) *err = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    k = clCreateKernel(p, name, &r);
    if (err) *err = r;
    if (k) rel_live.kernels++;
    return k;
}
REL_FN cl_int rel_clReleaseKernel(cl_kernel k)
{
    cl_int r = clReleaseKernel(k);
    if (r == CL_SUCCESS) rel_live.kernels--;
    return r;
}
REL_FN cl_program rel_clCreateProgramWithSource(cl_context c, cl_uint n, const char **s,
                                                const size_t *l, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_program p;
    if (rel_fallible("clCreateProgramWithSource")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    p = clCreateProgramWithSource(c, n, s, l, &r);
    if (err) *err = r;
    if (p) rel_live.programs++;
    return p;
}
REL_FN cl_program rel_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                                const size_t *l, const unsigned char **b,
                                                cl_int *st, cl_int *err)
{
    cl_int r = CL_SUCCESS;
    cl_program p;
    if (rel_fallible("clCreateProgramWithBinary")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    p = clCreateProgramWithBinary(c, n, d, l, b, st, &r);
    if (err) *err = r;
    if (p) rel_live.programs++;
    return p;
}
REL_FN cl_int rel_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                                 void (CL_CALLBACK *fn)(cl_program, void *), void *u)
{
    if (rel_fallible("clBuildProgram")) return CL_BUILD_PROGRAM_FAILURE;
    return clBuildProgram(p, n, d, o, fn, u);
}
REL_FN cl_int rel_clRetainProgram(cl_program p)
{
    cl_int r = clRetainProgram(p);
    if (r == CL_SUCCESS) rel_live.programs++;
    return r;
}
REL_FN cl_int rel_clReleaseProgram(cl_program p)
{
    cl_int r = clReleaseProgram(p);
    if (r == CL_SUCCESS) rel_live.programs--;
    return r;
}

#define clEnqueueWriteBuffer rel_clEnqueueWriteBuffer
#define clEnqueueReadBuffer rel_clEnqueueReadBuffer
#define clEnqueueWriteBufferRect rel_clEnqueueWriteBufferRect
#define clEnqueueReadBufferRect rel_clEnqueueReadBufferRect
#define clEnqueueCopyBufferRect rel_clEnqueueCopyBufferRect
#define clEnqueueNDRangeKernel rel_clEnqueueNDRangeKernel
#define clEnqueueMarkerWithWaitList rel_clEnqueueMarkerWithWaitList
#define clEnqueueCopyBuffer rel_clEnqueueCopyBuffer
#define clEnqueueFillBuffer rel_clEnqueueFillBuffer
#define clEnqueueMapBuffer rel_clEnqueueMapBuffer
#define clEnqueueUnmapMemObject rel_clEnqueueUnmapMemObject
#define clEnqueueMigrateMemObjects rel_clEnqueueMigrateMemObjects
#define clRetainEvent rel_clRetainEvent
#define clReleaseEvent rel_clReleaseEvent
#define clCreateBuffer rel_clCreateBuffer
#define clCreateSubBuffer rel_clCreateSubBuffer
#define clRetainMemObject rel_clRetainMemObject
#define clReleaseMemObject rel_clReleaseMemObject
#define clCreateContext rel_clCreateContext
#define clRetainContext rel_clRetainContext
#define clReleaseContext rel_clReleaseContext
#define clCreateCommandQueueWithProperties rel_clCreateCommandQueueWithProperties
#define clCreateCommandQueue rel_clCreateCommandQueue
#define clRetainCommandQueue rel_clRetainCommandQueue
#define clReleaseCommandQueue rel_clReleaseCommandQueue
#define clCreateKernel rel_clCreateKernel
#define clReleaseKernel rel_clReleaseKernel
#define clCreateProgramWithSource rel_clCreateProgramWithSource
#define clCreateProgramWithBinary rel_clCreateProgramWithBinary
#define clBuildProgram rel_clBuildProgram
#define clRetainProgram rel_clRetainProgram
#define clReleaseProgram rel_clReleaseProgram
#endif /* OpenCL */

#endif
