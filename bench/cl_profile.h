/* bench/cl_profile.h — where a library call's device time goes, from OpenCL event profiling,
   without touching the library: include <CL/cl.h>, then this file, then the halostream
   implementation (HST_IMPLEMENTATION). The OpenCL calls backend.h makes to create queues and to
   enqueue kernels, copies and fills are renamed to wrappers here: queues created while
   prof_on is set get CL_QUEUE_PROFILING_ENABLE, and every command enqueued on them while
   prof_on is set keeps an event (the caller's, retained, or one of its own). prof_report() then
   sums each command's device time (CL_PROFILING_COMMAND_START to _END) per device and per
   stage: a kernel's function name, "upload" (host to device writes), "read-back" (device to
   host reads), "fill", "copy"; and the bytes the transfers moved.

   Device times are the commands' own: on a device that overlaps copies with kernels the sum
   over stages exceeds the wall time, and the kernels' sum is the compute engine's busy time.
   Thread-safe (several devices in threads). Not for the figures of a timed run: profiling may
   cost a little on some drivers, so the timed runs use backends made with prof_on unset. */
#ifndef HST_BENCH_CL_PROFILE_H
#define HST_BENCH_CL_PROFILE_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_MAX_DEVICES 8
#define PROF_MAX_STAGES 24

typedef struct prof_cmd { cl_event ev; const char *stage; char kernel[64]; size_t bytes; } prof_cmd;
typedef struct prof_stage { char name[64]; double seconds; size_t bytes; unsigned long count; } prof_stage;
typedef struct prof_device {
    cl_device_id id;
    prof_stage stage[PROF_MAX_STAGES];
    unsigned nstage;
    cl_ulong first, last;        /* the span of its commands (ns, device clock) */
} prof_device;

static int prof_on;
static pthread_mutex_t prof_mu = PTHREAD_MUTEX_INITIALIZER;
static prof_cmd *prof_cmds;
static size_t prof_n, prof_cap;
static prof_device prof_dev[PROF_MAX_DEVICES];
static unsigned prof_ndev;

/* Keeps the command's event (ev_given: the caller asked for it, so it is retained here). */
static void prof_keep(cl_event ev, int ev_given, const char *stage, cl_kernel k, size_t bytes)
{
    prof_cmd c;
    if (ev_given) clRetainEvent(ev);
    memset(&c, 0, sizeof c);
    c.ev = ev; c.stage = stage; c.bytes = bytes;
    if (k) clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof c.kernel - 1, c.kernel, NULL);
    pthread_mutex_lock(&prof_mu);
    if (prof_n == prof_cap) {
        size_t cap = prof_cap ? 2 * prof_cap : 4096;
        prof_cmd *p = (prof_cmd *)realloc(prof_cmds, cap * sizeof *p);
        if (!p) { fprintf(stderr, "cl_profile: out of memory\n"); exit(1); }
        prof_cmds = p; prof_cap = cap;
    }
    prof_cmds[prof_n++] = c;
    pthread_mutex_unlock(&prof_mu);
}

static cl_command_queue prof_clCreateCommandQueueWithProperties(cl_context ctx, cl_device_id dev,
                                                                const cl_queue_properties *props, cl_int *err)
{
    /* props with CL_QUEUE_PROFILING_ENABLE added to its CL_QUEUE_PROPERTIES (or that pair added) */
    cl_queue_properties prof[16] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    size_t n = 0, i, found = 0;
    if (!prof_on) return clCreateCommandQueueWithProperties(ctx, dev, props, err);
    while (props && props[n] && n + 4 < sizeof prof / sizeof prof[0]) n += 2;
    for (i = 0; i < n; i += 2) {
        prof[i] = props[i];
        prof[i + 1] = props[i + 1];
        if (props[i] == CL_QUEUE_PROPERTIES) { prof[i + 1] |= CL_QUEUE_PROFILING_ENABLE; found = 1; }
    }
    if (!found) { prof[n] = CL_QUEUE_PROPERTIES; prof[n + 1] = CL_QUEUE_PROFILING_ENABLE; n += 2; }
    prof[n] = 0;
    return clCreateCommandQueueWithProperties(ctx, dev, prof, err);
}

#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static cl_command_queue prof_clCreateCommandQueue(cl_context ctx, cl_device_id dev, cl_command_queue_properties p,
                                                  cl_int *err)
{
    return clCreateCommandQueue(ctx, dev, prof_on ? p | CL_QUEUE_PROFILING_ENABLE : p, err);
}
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

/* The enqueue wrappers: the real call with an event, kept while prof_on. */
#define PROF_EV_BEGIN cl_event own_ = NULL, *evp_ = event ? event : prof_on ? &own_ : NULL
#define PROF_EV_END(stage, k, bytes) \
    if (r == CL_SUCCESS && prof_on && evp_) prof_keep(*evp_, event != NULL, (stage), (k), (bytes))

static cl_int prof_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                          const size_t *global, const size_t *local, cl_uint nw,
                                          const cl_event *wait, cl_event *event)
{
    PROF_EV_BEGIN;
    cl_int r = clEnqueueNDRangeKernel(q, k, dim, off, global, local, nw, wait, evp_);
    PROF_EV_END(NULL, k, 0);
    return r;
}

static cl_int prof_clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t n,
                                        const void *p, cl_uint nw, const cl_event *wait, cl_event *event)
{
    PROF_EV_BEGIN;
    cl_int r = clEnqueueWriteBuffer(q, b, blocking, off, n, p, nw, wait, evp_);
    PROF_EV_END("upload", NULL, n);
    return r;
}

static cl_int prof_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t n,
                                       void *p, cl_uint nw, const cl_event *wait, cl_event *event)
{
    PROF_EV_BEGIN;
    cl_int r = clEnqueueReadBuffer(q, b, blocking, off, n, p, nw, wait, evp_);
    PROF_EV_END("read-back", NULL, n);
    return r;
}

static cl_int prof_clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pat, size_t ps, size_t off,
                                       size_t n, cl_uint nw, const cl_event *wait, cl_event *event)
{
    PROF_EV_BEGIN;
    cl_int r = clEnqueueFillBuffer(q, b, pat, ps, off, n, nw, wait, evp_);
    PROF_EV_END("fill", NULL, n);
    return r;
}

static cl_int prof_clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n,
                                       cl_uint nw, const cl_event *wait, cl_event *event)
{
    PROF_EV_BEGIN;
    cl_int r = clEnqueueCopyBuffer(q, s, d, so, dof, n, nw, wait, evp_);
    PROF_EV_END("copy", NULL, n);
    return r;
}

#define clCreateCommandQueueWithProperties prof_clCreateCommandQueueWithProperties
#define clCreateCommandQueue prof_clCreateCommandQueue
#define clEnqueueNDRangeKernel prof_clEnqueueNDRangeKernel
#define clEnqueueWriteBuffer prof_clEnqueueWriteBuffer
#define clEnqueueReadBuffer prof_clEnqueueReadBuffer
#define clEnqueueFillBuffer prof_clEnqueueFillBuffer
#define clEnqueueCopyBuffer prof_clEnqueueCopyBuffer

static prof_device *prof_device_of(cl_event ev)
{
    cl_command_queue q = NULL;
    cl_device_id id = NULL;
    unsigned i;
    clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL);
    if (q) clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof id, &id, NULL);
    for (i = 0; i < prof_ndev; i++)
        if (prof_dev[i].id == id) return &prof_dev[i];
    if (prof_ndev == PROF_MAX_DEVICES) return NULL;
    memset(&prof_dev[prof_ndev], 0, sizeof prof_dev[0]);
    prof_dev[prof_ndev].id = id;
    return &prof_dev[prof_ndev++];
}

static void prof_add(prof_device *d, const char *name, double s, size_t bytes)
{
    unsigned i;
    for (i = 0; i < d->nstage && strcmp(d->stage[i].name, name); i++) {}
    if (i == d->nstage) {
        if (d->nstage == PROF_MAX_STAGES) return;
        snprintf(d->stage[d->nstage++].name, sizeof d->stage[0].name, "%s", name);
    }
    d->stage[i].seconds += s;
    d->stage[i].bytes += bytes;
    d->stage[i].count++;
}

/* Sums the kept commands (finished: call after the library call returned) into prof_dev[] and
   releases their events. */
static void prof_collect(void)
{
    size_t i;
    pthread_mutex_lock(&prof_mu);
    for (i = 0; i < prof_n; i++) {
        prof_cmd *c = &prof_cmds[i];
        cl_ulong t0 = 0, t1 = 0;
        prof_device *d = prof_device_of(c->ev);
        clWaitForEvents(1, &c->ev);
        if (d && clGetEventProfilingInfo(c->ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(c->ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS) {
            prof_add(d, c->stage ? c->stage : c->kernel, 1e-9 * (double)(t1 - t0), c->bytes);
            if (!d->first || t0 < d->first) d->first = t0;
            if (t1 > d->last) d->last = t1;
        }
        clReleaseEvent(c->ev);
    }
    prof_n = 0;
    pthread_mutex_unlock(&prof_mu);
}

/* Forgets what was summed (the next prof_collect starts from zero). */
static void prof_clear(void)
{
    prof_collect();
    prof_ndev = 0;
}

#endif
