/* tests/soak.c — `make soak`: SOAK_RUNS (default 10,000) stream runs and as many halo
   pack/copy/unpack cycles on the device HST_DEVICE picks (default auto), checking that live
   OpenCL objects (counted by tests/reliability/cl_hooks.h), the library's live host blocks
   (counted through the backend's allocator hook), malloc's bytes in use (mallinfo2) and the
   resident set size do not grow between the end of a warm-up and the end of the run; results
   are compared with the first run's every 1,000 iterations. Prints the counts; exit 1 on
   growth or a wrong result. */
#define HST_IMPLEMENTATION
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(HST_NO_OPENCL)
#  ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 300
#  endif
#  include <CL/cl.h>
#endif
#include "reliability/cl_hooks.h"
#include "stream.h"
#include "halo.h"
#include "kernels.h"
#include "reliability/workload.h"

static long live_blocks;
static void *soak_alloc(size_t n, void *u) { void *p = malloc(n); (void)u; if (p) live_blocks++; return p; }
static void soak_free(void *p, void *u) { (void)u; if (p) live_blocks--; free(p); }

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = -1;
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef struct snap { rel_counts cl; long blocks; size_t heap; long rss; } snap;
static snap take(void)
{
    snap s;
    struct mallinfo2 mi = mallinfo2();
    s.cl = rel_live;
    s.blocks = live_blocks;
    s.heap = mi.uordblks;
    s.rss = rss_kib();
    return s;
}

static int report(const char *what, long cycles, const snap *a, const snap *b)
{
    long heap_growth = (long)b->heap - (long)a->heap, rss_growth = b->rss - a->rss;
    int ok = rel_counts_equal(&a->cl, &b->cl) && a->blocks == b->blocks &&
             heap_growth <= 64 * 1024 && rss_growth <= 1024;
    printf("%-6s %ld cycles: live OpenCL objects %ld -> %ld (events %ld, mems %ld, queues %ld, "
           "kernels %ld, programs %ld), library host blocks %ld -> %ld, malloc in use %+ld B, "
           "RSS %+ld KiB: %s\n", what, cycles, rel_counts_total(&a->cl), rel_counts_total(&b->cl),
           b->cl.events, b->cl.mems, b->cl.queues, b->cl.kernels, b->cl.programs, a->blocks,
           b->blocks, heap_growth, rss_growth, ok ? "no growth" : "GROWTH");
    return ok;
}

int main(void)
{
    const char *env = getenv("SOAK_RUNS");
    long runs = env && *env ? atol(env) : 10000, warm = runs < 100 ? 1 : 100, i;
    hst_backend_desc desc;
    hst_backend *be;
    int ok = 1;
    enum { N = 8, H = 8, W = 8, SN = N * H * W };
    static float x[SN], p[3 * SN], d[SN], p0[3 * SN], d0[SN];
    double acc = 0, acc0 = 0;
    memset(&desc, 0, sizeof desc);
    desc.allocator.alloc = soak_alloc;
    desc.allocator.free = soak_free;
    if (hst_backend_create(&desc, &be) != HST_SUCCESS) { fprintf(stderr, "soak: no backend\n"); return 1; }
    printf("soak on %s: %ld stream runs, %ld halo cycles\n", hst_backend_device(be)->name, runs, runs);
    fflush(stdout);
    /* streams: one stream, run `runs` times */
    {
        wl_stream_cfg cfg = {N, H, W, 3};
        wl_stream_ctx c;
        hst_stream *s = NULL;
        hst_stream_report rep;
        snap a, b;
        wl_fill_f32(x, SN, 5);
        if (wl_stream_create(&be, 1, &cfg, x, p, d, &c, &s) != HST_SUCCESS) { fprintf(stderr, "soak: stream create\n"); return 1; }
        for (i = 0; i < runs; i++) {
            if (i == warm) a = take();
            if (hst_stream_run(s, &rep) != HST_SUCCESS) { fprintf(stderr, "soak: run %ld failed\n", i); ok = 0; break; }
            acc = rep.acc[0];
            if (i == 0) { memcpy(p0, p, sizeof p); memcpy(d0, d, sizeof d); acc0 = acc; }
            else if (i % 1000 == 0 || i == runs - 1)
                if (memcmp(p, p0, sizeof p) || memcmp(d, d0, sizeof d) || acc != acc0) {
                    fprintf(stderr, "soak: stream run %ld: results changed\n", i); ok = 0; break;
                }
        }
        b = take();
        ok &= report("stream", runs, &a, &b);
        hst_stream_destroy(s);
    }
    /* halo: one plan, `runs` pack / copy / unpack cycles on device buffers */
    {
        wl_halo h;
        hst_halo_plan *plan = NULL;
        hst_buffer *qs[WL_HALO_NQ];
        static unsigned char init[WL_HALO_NQ][2048], first[WL_HALO_NQ][2048], now[WL_HALO_NQ][2048];
        size_t q, k;
        snap a, b;
        if (wl_halo_init(&h) != HST_SUCCESS) return 1;
        for (q = 0; q < WL_HALO_NQ; q++) {
            for (k = 0; k < h.bytes[q]; k++) init[q][k] = (unsigned char)(k * 31 + q);
            if (hst_buffer_create(be, h.bytes[q], 0, &qs[q]) != HST_SUCCESS ||
                hst_write(hst_backend_queue(be), qs[q], 0, init[q], h.bytes[q], 1, 0, NULL, NULL)) return 1;
        }
        if (wl_halo_plan(be, &h, &plan) != HST_SUCCESS) { fprintf(stderr, "soak: plan\n"); return 1; }
        for (i = 0; i < runs; i++) {
            if (i == warm) a = take();
            if (wl_halo_cycle(plan, qs) != HST_SUCCESS) { fprintf(stderr, "soak: halo cycle %ld failed\n", i); ok = 0; break; }
            if (i == 0 || i % 1000 == 0 || i == runs - 1) {
                for (q = 0; q < WL_HALO_NQ; q++)
                    if (hst_read(hst_backend_queue(be), qs[q], 0, i ? now[q] : first[q], h.bytes[q], 1, 0, NULL,
                                 NULL) != HST_SUCCESS) { fprintf(stderr, "soak: halo read %ld failed\n", i); ok = 0; }
                if (!ok) break;
                /* a self-exchange is idempotent after the first cycle */
                if (i && memcmp(now, first, sizeof now)) { fprintf(stderr, "soak: halo cycle %ld: results changed\n", i); ok = 0; break; }
            }
        }
        b = take();
        ok &= report("halo", runs, &a, &b);
        hst_halo_plan_destroy(plan);
        for (q = 0; q < WL_HALO_NQ; q++) hst_buffer_destroy(qs[q]);
    }
    if (hst_backend_destroy(be) != HST_SUCCESS) { fprintf(stderr, "soak: the backend is still held\n"); ok = 0; }
    if (live_blocks != 0 || rel_counts_total(&rel_live) != 0) {
        printf("after destroy: %ld library host blocks, %ld OpenCL objects live: LEAK\n", live_blocks,
               rel_counts_total(&rel_live));
        ok = 0;
    }
    printf("soak cycles: %ld stream runs + %ld halo cycles: %s\n", runs, runs, ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
