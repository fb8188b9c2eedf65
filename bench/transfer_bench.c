/* transfer_bench.c — blocking copies between pageable host memory (malloc's) and a device
   buffer: hst_write / hst_read as a caller makes them (blocking, no events: staged through the
   backend's pinned pieces where backend.h stages, ">>staged transfers") against the same copy
   made directly (non-blocking with an event, then waited for: the driver's own staging), and the
   direct copy from and to pinned memory (hst_pinned_create: the bus's rate, the bound).

       transfer_bench [--device S] [--mib M] [--reps K]

   Defaults: 256 MiB, K = 5 after one untimed copy of each kind; the median in GB/s (10^9
   bytes a second). device: hst_backend_create's (--device, else $HST_DEVICE, else auto).
   Build: make build/bench/transfer_bench. */

#define _POSIX_C_SOURCE 200809L
#define HST_IMPLEMENTATION
#include "backend.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind { STAGED, DIRECT } kind;

/* One copy of `bytes` between host and buf in the direction asked, as `k` makes it. */
static hst_result copy_once(hst_queue *q, hst_buffer *buf, void *host, size_t bytes, int write, kind k) {
    hst_event ev = NULL;
    hst_result r;
    if (k != DIRECT)
        return write ? hst_write(q, buf, 0, host, bytes, 1, 0, NULL, NULL) : hst_read(q, buf, 0, host, bytes, 1, 0, NULL, NULL);
    r = write ? hst_write(q, buf, 0, host, bytes, 0, 0, NULL, &ev) : hst_read(q, buf, 0, host, bytes, 0, 0, NULL, &ev);
    if (r == HST_SUCCESS) r = hst_event_wait(1, &ev);
    hst_event_release(ev);
    return r;
}

/* The median GB/s of reps copies (one untimed first). */
static double rate(hst_queue *q, hst_buffer *buf, void *host, size_t bytes, int write, kind k, int reps) {
    double t[64];
    int i;
    CHECK(copy_once(q, buf, host, bytes, write, k));
    for (i = 0; i < reps; i++) {
        double t0 = now_s();
        CHECK(copy_once(q, buf, host, bytes, write, k));
        t[i] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    return (double)bytes / t[reps / 2] / 1e9;
}

int main(int argc, char **argv) {
    const char *device = NULL;
    size_t mib = 256, bytes;
    int reps = 5, i, w;
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_buffer *buf = NULL, *pin = NULL;
    unsigned char *host;
    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device")) device = argv[i + 1];
        else if (!strcmp(argv[i], "--mib")) mib = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else break;
    }
    if (i < argc || mib == 0 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: transfer_bench [--device S] [--mib M] [--reps K (1..64)]\n");
        return 2;
    }
    bytes = mib << 20;
    memset(&bd, 0, sizeof bd);
    bd.device = device;
    CHECK(hst_backend_create(&bd, &be));
    if (!(host = (unsigned char *)malloc(bytes))) { fprintf(stderr, "out of host memory\n"); return 1; }
    memset(host, 1, bytes);   /* the pages touched: not the copies' cost */
    CHECK(hst_buffer_create(be, bytes, 0, &buf));
    CHECK(hst_pinned_create(be, bytes, &pin));
    printf("device %s; %zu MiB, median of %d, GB/s\n\n", hst_backend_device(be)->name, mib, reps);
    printf("%-6s %16s %16s %16s %10s\n", "", "blocking (staged)", "direct (driver)", "from pinned", "staged/direct");
    for (w = 1; w >= 0; w--) {
        hst_queue *q = hst_backend_queue(be);
        double s = rate(q, buf, host, bytes, w, STAGED, reps), d = rate(q, buf, host, bytes, w, DIRECT, reps);
        double p = rate(q, buf, hst_buffer_host_ptr(pin), bytes, w, DIRECT, reps);   /* no second staging */
        printf("%-6s %16.2f %16.2f %16.2f %10.2f\n", w ? "write" : "read", s, d, p, s / d);
    }
    hst_buffer_destroy(pin);
    hst_buffer_destroy(buf);
    free(host);
    CHECK(hst_backend_destroy(be));
    return 0;
}
