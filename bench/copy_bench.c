/* copy_bench.c — copy bandwidth on one device, in GB/s (1e9 bytes per second):
     host -> device and device -> host from pageable memory (malloc) and from pinned memory
     (hst_pinned_create's host pointer as the host side of hst_write / hst_read), device ->
     device (hst_copy), and both directions at once from pinned memory on two queues.

       copy_bench [S | --device S] [--max-mib N] [--ref-h2d GBPS] [--csv]

   S is a device selector (default $HST_DEVICE, else auto; see examples/devices). Sizes are 1, 16
   and 256 MiB, capped by --max-mib (a cap above 256 adds that size) and by the device's largest
   allocation. Each figure is the best and the median of repeated copies after a warm-up, timed
   with CLOCK_MONOTONIC around blocking calls or event waits. The ratios at the end compare
   pinned with pageable memory, and pinned host -> device with a reference figure (default 55.5
   GB/s: the best pinned path clpeak measured on an NVIDIA H200 through the vendor's OpenCL
   driver; PCIe Gen5 x16 carries at most about 63 GB/s per direction).

   Every copy is real: sources hold data, destinations are cleared before each path and the
   bytes are compared afterwards, so a path that skipped its copies would fail, not look fast.
   On the host device every path is a memcpy in host memory ("pinned" is plain host memory).

   Build: cc -std=c99 -O2 -I. bench/copy_bench.c -o copy_bench -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#include "backend.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB ((size_t)1 << 20)
#define DEFAULT_MAX_MIB 256
/* REFERENCE.md section 6: clpeak's "unmap after write" on an H200, NVIDIA OpenCL driver. */
#define DEFAULT_REF_H2D_GBPS 55.5

/* Repetitions: at least MIN_REPS and MIN_TIME_S, so small copies get a stable median; at most
   MAX_REPS (1 MiB at 50 GB/s is 20 us a copy), and slow paths stop after MAX_TIME_S once they
   have MIN_SLOW_REPS samples (256 MiB from pageable memory on a 2-core CPU device takes about
   0.1 s a copy). */
#define MIN_REPS 10
#define MIN_TIME_S 0.2
#define MAX_REPS 1000
#define MAX_TIME_S 2.0
#define MIN_SLOW_REPS 3
/* Untimed copies first: the first use of a buffer may allocate it, pin pages or build a
   kernel (PoCL, and some drivers copy through kernels). */
#define WARMUP_REPS 2

static const size_t default_sizes_mib[] = { 1, 16, 256 };
#define MAX_SIZES 4

enum path { H2D_PAGEABLE, D2H_PAGEABLE, H2D_PINNED, D2H_PINNED, D2D, BOTH_PINNED, PATH_COUNT };
static const char *const path_names[PATH_COUNT] = {
    "H->D pageable (malloc)", "D->H pageable (malloc)", "H->D pinned", "D->H pinned",
    "D->D (hst_copy)", "H<->D pinned, each way"
};

/* Everything one size needs. dev_a is the upload target and download source; dev_b is the
   device-to-device target and, in the two-way test, the download source. */
typedef struct copy_set {
    hst_queue *q, *q_up, *q_down;   /* the default queue; two more for the two-way test */
    size_t bytes;
    hst_buffer *dev_a, *dev_b;
    hst_buffer *pin_up, *pin_down;  /* pinned host memory */
    unsigned char *page_src, *page_dst;
} copy_set;

typedef struct measurement {
    int valid;
    size_t reps;
    double best_gbps, median_gbps;
} measurement;

typedef struct options {
    const char *selector;
    size_t max_mib;
    double ref_h2d_gbps;
    int csv;
} options;

static void report(const char *what, hst_result r)
{
    fprintf(stderr, "copy_bench: %s failed: %s (%d)\n", what, hst_result_string(r), r);
}

/* ------------------------------------------------------------------ one copy of each path;
   each returns only when the copy has completed. */

static hst_result h2d_pageable(copy_set *c)
{
    return hst_write(c->q, c->dev_a, 0, c->page_src, c->bytes, 1, 0, NULL, NULL);
}

static hst_result d2h_pageable(copy_set *c)
{
    return hst_read(c->q, c->dev_a, 0, c->page_dst, c->bytes, 1, 0, NULL, NULL);
}

static hst_result h2d_pinned(copy_set *c)
{
    return hst_write(c->q, c->dev_a, 0, hst_buffer_host_ptr(c->pin_up), c->bytes, 1,
                     0, NULL, NULL);
}

static hst_result d2h_pinned(copy_set *c)
{
    return hst_read(c->q, c->dev_a, 0, hst_buffer_host_ptr(c->pin_down), c->bytes, 1,
                    0, NULL, NULL);
}

static hst_result d2d(copy_set *c)
{
    hst_event done = NULL;
    hst_result r = hst_copy(c->q, c->dev_b, 0, c->dev_a, 0, c->bytes, 0, NULL, &done);
    if (r == HST_SUCCESS)
        r = hst_event_wait(1, &done);
    hst_event_release(done);
    return r;
}

/* Upload and download on separate in-order queues, so the device may run them on its two copy
   engines at once; flushed so neither waits for the other to be submitted. */
static hst_result both_pinned(copy_set *c)
{
    hst_event done[2] = { NULL, NULL };
    hst_result r = hst_write(c->q_up, c->dev_a, 0, hst_buffer_host_ptr(c->pin_up), c->bytes,
                             0, 0, NULL, &done[0]);
    if (r == HST_SUCCESS)
        r = hst_read(c->q_down, c->dev_b, 0, hst_buffer_host_ptr(c->pin_down), c->bytes, 0,
                     0, NULL, &done[1]);
    if (r == HST_SUCCESS)
        r = hst_queue_flush(c->q_up);
    if (r == HST_SUCCESS)
        r = hst_queue_flush(c->q_down);
    /* Wait for whatever was enqueued even after an error: the copies read host memory. */
    if (done[0] != NULL || done[1] != NULL) {
        hst_result w = hst_event_wait(2, done);
        if (r == HST_SUCCESS)
            r = w;
    }
    hst_event_release(done[0]);
    hst_event_release(done[1]);
    return r;
}

typedef hst_result (*copy_fn)(copy_set *c);
static const copy_fn path_fns[PATH_COUNT] = {
    h2d_pageable, d2h_pageable, h2d_pinned, d2h_pinned, d2d, both_pinned
};

/* ------------------------------------------------------------------ timing */

static hst_result measure(copy_set *c, enum path p, measurement *m)
{
    static double times[MAX_REPS];
    double start, total = 0.0, median;
    size_t reps = 0;
    int i;
    hst_result r;

    for (i = 0; i < WARMUP_REPS; ++i)
        if ((r = path_fns[p](c)) != HST_SUCCESS)
            return r;
    while (reps < MAX_REPS && (reps < MIN_REPS || total < MIN_TIME_S)
           && !(reps >= MIN_SLOW_REPS && total >= MAX_TIME_S)) {
        start = now_s();
        if ((r = path_fns[p](c)) != HST_SUCCESS)
            return r;
        times[reps] = now_s() - start;
        total += times[reps++];
    }
    qsort(times, reps, sizeof times[0], cmp_d);
    median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    m->valid = 1;
    m->reps = reps;
    m->best_gbps = (double)c->bytes / times[0] / 1e9;
    m->median_gbps = (double)c->bytes / median / 1e9;
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------ buffers and checks */

/* Different byte patterns for the pageable and the pinned sources, with a long period, so a
   check can tell which source the bytes came from and a skipped range shows. */
static void fill_pattern(unsigned char *p, size_t bytes, uint32_t seed)
{
    size_t i;
    for (i = 0; i < bytes; ++i)
        p[i] = (unsigned char)(((uint32_t)i * 2654435761u + seed) >> 24);
}

static void free_set(copy_set *c)
{
    hst_buffer_destroy(c->dev_a);
    hst_buffer_destroy(c->dev_b);
    hst_buffer_destroy(c->pin_up);
    hst_buffer_destroy(c->pin_down);
    free(c->page_src);
    free(c->page_dst);
    c->dev_a = c->dev_b = c->pin_up = c->pin_down = NULL;
    c->page_src = c->page_dst = NULL;
}

/* Resident device buffers, so allocation never lands inside a timed copy; host memory written
   once so its pages exist before timing. */
static hst_result alloc_set(hst_backend *be, copy_set *c, size_t bytes)
{
    hst_result r;
    c->bytes = bytes;
    if ((r = hst_buffer_create(be, bytes, HST_MEM_RESIDENT, &c->dev_a)) != HST_SUCCESS ||
        (r = hst_buffer_create(be, bytes, HST_MEM_RESIDENT, &c->dev_b)) != HST_SUCCESS ||
        (r = hst_pinned_create(be, bytes, &c->pin_up)) != HST_SUCCESS ||
        (r = hst_pinned_create(be, bytes, &c->pin_down)) != HST_SUCCESS)
        return r;
    c->page_src = (unsigned char *)malloc(bytes);
    c->page_dst = (unsigned char *)malloc(bytes);
    if (c->page_src == NULL || c->page_dst == NULL)
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    fill_pattern(c->page_src, bytes, 0x01234567u);
    fill_pattern((unsigned char *)hst_buffer_host_ptr(c->pin_up), bytes, 0x89abcdefu);
    return HST_SUCCESS;
}

static hst_result zero_device(copy_set *c, hst_buffer *buf)
{
    const uint32_t zero = 0;
    hst_event done = NULL;
    hst_result r = hst_fill(c->q, buf, &zero, sizeof zero, 0, c->bytes, 0, NULL, &done);
    if (r == HST_SUCCESS)
        r = hst_event_wait(1, &done);
    hst_event_release(done);
    return r;
}

/* Clears what a path writes, so the check after it proves the path moved the bytes. */
static hst_result clear_destination(copy_set *c, enum path p)
{
    switch (p) {
    case D2H_PAGEABLE: memset(c->page_dst, 0, c->bytes); return HST_SUCCESS;
    case D2H_PINNED: memset(hst_buffer_host_ptr(c->pin_down), 0, c->bytes); return HST_SUCCESS;
    case D2D: return zero_device(c, c->dev_b);
    case BOTH_PINNED:
        memset(hst_buffer_host_ptr(c->pin_down), 0, c->bytes);
        return zero_device(c, c->dev_a);
    default: return HST_SUCCESS;   /* uploads are checked by the download that follows */
    }
}

/* After the path: did the expected bytes arrive? (Uploads: the next path reads them back.) */
static hst_result check_destination(copy_set *c, enum path p, int *ok)
{
    const unsigned char *pinned_src = (const unsigned char *)hst_buffer_host_ptr(c->pin_up);
    hst_result r = HST_SUCCESS;
    *ok = 1;
    switch (p) {
    case D2H_PAGEABLE:   /* dev_a holds the pageable source since H2D_PAGEABLE */
        *ok = memcmp(c->page_dst, c->page_src, c->bytes) == 0;
        break;
    case D2H_PINNED:     /* dev_a holds the pinned source since H2D_PINNED */
        *ok = memcmp(hst_buffer_host_ptr(c->pin_down), pinned_src, c->bytes) == 0;
        break;
    case D2D:            /* dev_b was zeroed; it must now hold dev_a, the pinned source */
        r = hst_read(c->q, c->dev_b, 0, c->page_dst, c->bytes, 1, 0, NULL, NULL);
        *ok = r == HST_SUCCESS && memcmp(c->page_dst, pinned_src, c->bytes) == 0;
        break;
    case BOTH_PINNED:    /* both directions: dev_a and pin_down were zeroed */
        *ok = memcmp(hst_buffer_host_ptr(c->pin_down), pinned_src, c->bytes) == 0;
        if (*ok) {
            r = hst_read(c->q, c->dev_a, 0, c->page_dst, c->bytes, 1, 0, NULL, NULL);
            *ok = r == HST_SUCCESS && memcmp(c->page_dst, pinned_src, c->bytes) == 0;
        }
        break;
    default:
        break;
    }
    return r;
}

/* ------------------------------------------------------------------ sizes and output */

/* 1, 16, 256 MiB up to the cap; a cap between or above them is measured too. The cap is also
   bounded by the device's largest single allocation. */
static size_t pick_sizes(size_t max_mib, uint64_t max_alloc_bytes, size_t *sizes)
{
    size_t cap = max_mib * MIB, n = 0, i;
    if (max_alloc_bytes < cap) {
        cap = (size_t)max_alloc_bytes / MIB * MIB;
        if (cap == 0)
            cap = (size_t)max_alloc_bytes & ~(size_t)4095;
    }
    for (i = 0; i < sizeof default_sizes_mib / sizeof default_sizes_mib[0]; ++i)
        if (default_sizes_mib[i] * MIB <= cap)
            sizes[n++] = default_sizes_mib[i] * MIB;
    if (cap > 0 && (n == 0 || sizes[n - 1] != cap))
        sizes[n++] = cap;
    return n;
}

static void print_size(char *buf, size_t buf_bytes, size_t bytes)
{
    if (bytes % MIB == 0)
        snprintf(buf, buf_bytes, "%zu MiB", bytes / MIB);
    else
        snprintf(buf, buf_bytes, "%.2f MiB", (double)bytes / (double)MIB);
}

static void print_table(measurement m[PATH_COUNT][MAX_SIZES], const size_t *sizes, size_t n)
{
    char label[32];
    size_t s;
    int p;
    printf("%-24s", "GB/s: best / median");
    for (s = 0; s < n; ++s) {
        print_size(label, sizeof label, sizes[s]);
        printf(" %17s", label);
    }
    printf("\n");
    for (p = 0; p < PATH_COUNT; ++p) {
        printf("%-24s", path_names[p]);
        for (s = 0; s < n; ++s) {
            if (m[p][s].valid)
                printf("   %7.2f / %5.2f", m[p][s].best_gbps, m[p][s].median_gbps);
            else
                printf(" %17s", "-");
        }
        printf("\n");
    }
}

static void print_csv(const hst_device_info *dev, measurement m[PATH_COUNT][MAX_SIZES],
                      const size_t *sizes, size_t n)
{
    size_t s;
    int p;
    printf("device,path,bytes,reps,best_gbps,median_gbps\n");
    for (p = 0; p < PATH_COUNT; ++p)
        for (s = 0; s < n; ++s)
            if (m[p][s].valid)
                printf("\"%s\",\"%s\",%zu,%zu,%.3f,%.3f\n", dev->name, path_names[p],
                       sizes[s], m[p][s].reps, m[p][s].best_gbps, m[p][s].median_gbps);
}

/* Ratios at the largest size every path was measured at: large copies are the ones whose
   speed is the link's, not the launch overhead's. */
static void print_ratios(measurement m[PATH_COUNT][MAX_SIZES], const size_t *sizes, size_t n,
                         double ref_h2d_gbps)
{
    char label[32];
    size_t s = n;
    while (s > 0 && !(m[H2D_PAGEABLE][s - 1].valid && m[D2H_PAGEABLE][s - 1].valid &&
                      m[H2D_PINNED][s - 1].valid && m[D2H_PINNED][s - 1].valid))
        --s;
    if (s == 0) {
        printf("\nNo size with every path measured: no ratios.\n");
        return;
    }
    --s;
    print_size(label, sizeof label, sizes[s]);
    printf("\nRatios at %s (best figures):\n", label);
    printf("  pinned / pageable, H->D: %6.2fx\n",
           m[H2D_PINNED][s].best_gbps / m[H2D_PAGEABLE][s].best_gbps);
    printf("  pinned / pageable, D->H: %6.2fx\n",
           m[D2H_PINNED][s].best_gbps / m[D2H_PAGEABLE][s].best_gbps);
    printf("  pinned H->D against the reference %.1f GB/s: %.1f%%\n", ref_h2d_gbps,
           100.0 * m[H2D_PINNED][s].best_gbps / ref_h2d_gbps);
    if (m[BOTH_PINNED][s].valid)
        printf("  both directions at once: %.2f GB/s each way, %.2f GB/s in all\n",
               m[BOTH_PINNED][s].best_gbps, 2.0 * m[BOTH_PINNED][s].best_gbps);
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: copy_bench [S | --device S] [--max-mib N] [--ref-h2d GBPS] [--csv]\n"
            "  S          device selector (default: $HST_DEVICE, else auto)\n"
            "  --max-mib  largest copy in MiB (default %d; above 256 adds that size)\n"
            "  --ref-h2d  reference pinned host->device figure in GB/s (default %.1f:\n"
            "             clpeak's best pinned path on an H200, NVIDIA OpenCL driver)\n"
            "  --csv      print CSV rows instead of the table and ratios\n",
            DEFAULT_MAX_MIB, DEFAULT_REF_H2D_GBPS);
}

static int parse_options(int argc, char **argv, options *o)
{
    int i;
    char *end;
    o->selector = NULL;
    o->max_mib = DEFAULT_MAX_MIB;
    o->ref_h2d_gbps = DEFAULT_REF_H2D_GBPS;
    o->csv = 0;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if (strcmp(a, "--device") == 0 && i + 1 < argc) {
            o->selector = argv[++i];
        } else if (strcmp(a, "--max-mib") == 0 && i + 1 < argc) {
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || v == 0 || v > (unsigned long)(SIZE_MAX / MIB)) {
                fprintf(stderr, "copy_bench: --max-mib wants a positive integer, not '%s'\n",
                        argv[i]);
                return 1;
            }
            o->max_mib = (size_t)v;
        } else if (strcmp(a, "--ref-h2d") == 0 && i + 1 < argc) {
            o->ref_h2d_gbps = strtod(argv[++i], &end);
            if (*end != '\0' || !(o->ref_h2d_gbps > 0.0)) {
                fprintf(stderr, "copy_bench: --ref-h2d wants a positive number, not '%s'\n",
                        argv[i]);
                return 1;
            }
        } else if (a[0] != '-' && o->selector == NULL) {
            o->selector = a;
        } else {
            fprintf(stderr, "copy_bench: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static measurement m[PATH_COUNT][MAX_SIZES];
    options opt;
    hst_backend_desc desc;
    hst_backend *be = NULL;
    const hst_device_info *dev;
    copy_set c;
    size_t sizes[MAX_SIZES], n_sizes, s;
    char why[512] = "", label[32];
    hst_device_info pick;
    hst_result r;
    int p, status = 1;

    if (parse_options(argc, argv, &opt) != 0)
        return 1;
    memset(&c, 0, sizeof c);

    r = hst_device_select(opt.selector, &pick, why, sizeof why);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "copy_bench: no device for '%s': %s (%d)\n  %s\n",
                opt.selector ? opt.selector : "$HST_DEVICE/auto", hst_result_string(r), r,
                why);
        return 1;
    }
    memset(&desc, 0, sizeof desc);
    desc.device = pick.selector;
    if ((r = hst_backend_create(&desc, &be)) != HST_SUCCESS) {
        report("hst_backend_create", r);
        return 1;
    }
    dev = hst_backend_device(be);
    c.q = hst_backend_queue(be);
    if ((r = hst_queue_create(be, &c.q_up)) != HST_SUCCESS ||
        (r = hst_queue_create(be, &c.q_down)) != HST_SUCCESS) {
        report("hst_queue_create", r);
        goto done;
    }
    n_sizes = pick_sizes(opt.max_mib, dev->max_alloc_bytes, sizes);

    if (!opt.csv) {
        printf("copy_bench on [%s] %s (%s)\n  %s\n", dev->selector, dev->name,
               dev->platform_name, why);
        if (hst_backend_is_host(be))
            printf("  host device: every path is a memcpy in host memory, and the two "
                   "directions\n  of the two-way test run one after the other.\n");
        printf("  GB/s = 1e9 bytes/s; D->D counts the bytes once (memory traffic is twice "
               "that).\n  Each figure: after %d warm-up copies, >= %d copies and >= %.1f s "
               "(at most %d copies, or %.0f s).\n\n", WARMUP_REPS, MIN_REPS, MIN_TIME_S,
               MAX_REPS, MAX_TIME_S);
    }

    for (s = 0; s < n_sizes; ++s) {
        print_size(label, sizeof label, sizes[s]);
        r = alloc_set(be, &c, sizes[s]);
        if (r != HST_SUCCESS) {
            /* Four buffers of this size may not fit: the smaller sizes still stand. */
            fprintf(stderr, "copy_bench: %s skipped, allocation failed: %s (%d)\n", label,
                    hst_result_string(r), r);
            free_set(&c);
            if (hst_result_is_out_of_memory(r) || r == HST_ERROR_OUT_OF_HOST_MEMORY)
                continue;
            goto done;
        }
        for (p = 0; p < PATH_COUNT; ++p) {
            int ok;
            if ((r = clear_destination(&c, (enum path)p)) != HST_SUCCESS ||
                (r = measure(&c, (enum path)p, &m[p][s])) != HST_SUCCESS ||
                (r = check_destination(&c, (enum path)p, &ok)) != HST_SUCCESS) {
                fprintf(stderr, "copy_bench: %s at %s failed: %s (%d)\n", path_names[p],
                        label, hst_result_string(r), r);
                goto done;
            }
            if (!ok) {
                fprintf(stderr, "copy_bench: %s at %s: the copied bytes are wrong\n",
                        path_names[p], label);
                goto done;
            }
        }
        free_set(&c);
    }

    for (s = 0; s < n_sizes && !m[H2D_PAGEABLE][s].valid; ++s)
        ;
    if (s == n_sizes) {
        fprintf(stderr, "copy_bench: no size could be allocated\n");
        goto done;
    }
    if (opt.csv) {
        print_csv(dev, m, sizes, n_sizes);
    } else {
        print_table(m, sizes, n_sizes);
        print_ratios(m, sizes, n_sizes, opt.ref_h2d_gbps);
    }
    status = 0;

done:
    free_set(&c);
    hst_queue_destroy(c.q_up);
    hst_queue_destroy(c.q_down);
    CHECK(hst_backend_destroy(be));
    return status;
}
