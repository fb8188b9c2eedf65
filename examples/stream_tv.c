/* stream_tv.c — total-variation (ROF) denoising of a 3-D volume by Chambolle-Pock, streamed
   through one device in blocks of slices under a device memory budget, so the volume and its
   working arrays never have to fit on the device at once.

       stream_tv [options] [input.tif] output.tif
       stream_tv [options] --generate GIB output.tif

   Minimises  ||grad x||_1 + lambda/2 ||x - f||^2  (isotropic TV, Neumann boundary, the frames of
   the stack as z) with kernels.h's hst_k_tv_dual / hst_k_tv_primal, and prints the primal-dual
   gap P(x) - D(p) after every iteration (>= 0, and 0 at the solution) from a separate pass of
   hst_k_tv_gap summed by a stream accumulator. Writes the denoised volume as a float32
   multi-page TIFF.

   Input: a TIFF stack (libtiff), one channel, 8- or 16-bit unsigned or 32-bit float pages of one
   size; page k becomes slice z = k. Without an input file the shipped stack
   examples/data/fkbp_confocal_50x256x256_u8.tif is read (see examples/data/SOURCES.md).
   --generate GIB makes a synthetic volume of about GIB GiB instead (float32): piecewise-constant
   boxes plus Gaussian noise, from a counter-based generator (the same volume on every machine).

   Options
     --device S      device selector (default $HST_DEVICE, else auto; `host` runs the C twins)
     --budget-mib M  device memory for all the passes' rings together (default: enough for about
                     N/8 slices per block, so every pass streams in several blocks; at most 1/8
                     of the device's global memory)
     --block B       owned slices per block (default: the largest the budget allows)
     --iters K       iterations (default 20)
     --lambda L      data weight, in 1/(units of the volume) (default 0.1)
     --reverse       walk the blocks from the last slice to the first
     --check         also run the iterations unstreamed (one block = the whole volume) on the
                     host device with the C twins and compare: the streamed result must be the
                     same bits where the device rounds sqrt and divide correctly (inputs up to
                     64 MiB)
     --seed S        seed of --generate (default 1)

   How it streams. One iteration is three passes over the volume, each an hst_stream made once
   and run every iteration:
     dual:    p_out = project(p_in + sigma grad xbar)      xbar read with halo_hi 1
     primal:  x_out = (x_in + tau div p + tau lambda f) / (1 + tau lambda),
              xbar = 2 x_out - x_in                         p read with halo_lo 1
     gap:     sum over voxels of hst_k_tv_gap(x, p, f)      x halo_hi 1, p halo_lo 1; the
                                                            per-voxel terms live in a device-only
                                                            (TEMP) array, summed by a SUM
                                                            accumulator and never downloaded
   The kernels update p and x in place (one pointer each). stream.h refuses a caller array that a
   stage both writes and reads with a halo (a later block would read slices an earlier block had
   already replaced), and its halo belongs to the stage, not to one array, so p and x cannot be
   in/out arrays of the dual and primal stages. Each pass therefore reads p (x) from one host array
   and writes it to another: a first stage copies the input array into the output array on the
   device, then the kernel updates that copy in place. The two host arrays swap roles every
   iteration; since a stream's input and output may never overlap, not even between two
   hst_stream_set_array calls, there is one dual and one primal stream per parity. Host memory:
   10 floats per voxel (f, x twice, xbar, p twice with 3 components).

   Step sizes tau = sigma = 1/sqrt(12): tau sigma ||grad||^2 <= 1 with ||grad||^2 <= 12 in 3-D
   (kernels.h). Start: x = xbar = f, p = 0 (iteration 0 prints the gap of that start).

   Exit status 0 on success, 1 on any error (bad options, unreadable or unsupported input, device
   errors), 2 when --check finds the streamed result differs where it must not.

   Build: make examples (links -ltiff), or
     cc -std=c99 -O2 -I. examples/stream_tv.c -o stream_tv -ltiff -lOpenCL -lm -lpthread */

#define _POSIX_C_SOURCE 200809L   /* clock_gettime in strict C99 */
#define HST_IMPLEMENTATION
#include "stream.h"

#include <tiffio.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_INPUT "examples/data/fkbp_confocal_50x256x256_u8.tif"
#define DEFAULT_ITERS 20
#define DEFAULT_LAMBDA 0.1
#define RING 3
#define PASSES 5                  /* dual x2, primal x2, gap: the budget is shared by them */
#define AUTO_BLOCKS 8             /* the default budget aims at about N/8 slices per block */
#define AUTO_DEVICE_SHARE 8       /* ... and takes at most 1/8 of the device's global memory */
#define CHECK_MAX_BYTES ((uint64_t)64 << 20)
#define FLOATS_PER_VOXEL 10       /* host arrays: f, x0, x1, xbar, p0 (3), p1 (3) */
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* Synthetic volume: slices of GEN_SIDE^2 voxels (GEN_SMALL_SIDE for tiny volumes), GEN_BOXES
   boxes of random size and height on a background, then noise. Values in the range of the
   shipped stack (0..65), so one lambda suits both. */
#define GEN_SIDE 512
#define GEN_SMALL_SIDE 256
#define GEN_BOXES 32
#define GEN_BACKGROUND 5.0
#define GEN_BOX_MAX 30.0
#define GEN_NOISE_SIGMA 4.0

typedef struct options {
    const char *device, *input, *output;
    double budget_mib, generate_gib, lambda;
    uint64_t block, seed;
    int iters, reverse, check;
} options;

typedef struct volume {
    uint64_t N;          /* slices (z) */
    uint32_t H, W;       /* rows, columns of a slice */
    float *f;            /* N * H * W, slice-major */
} volume;

/* ------------------------------------------------------------------ messages and time */

static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "stream_tv: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t voxels(const volume *v) { return v->N * (uint64_t)v->H * v->W; }

/* Host memory the system can give without swapping (Linux MemAvailable); 0 when unknown. */
static uint64_t host_available_bytes(void)
{
    char line[256];
    unsigned long long kib = 0;
    FILE *fp = fopen("/proc/meminfo", "r");
    if (fp == NULL)
        return 0;
    while (fgets(line, sizeof line, fp) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(fp);
    return (uint64_t)kib * 1024u;
}

/* malloc with a message naming what it was for. */
static float *alloc_floats(uint64_t count, const char *what)
{
    float *p;
    if (count > SIZE_MAX / sizeof(float)) {
        fail("%s: %llu floats do not fit in this address space", what, (unsigned long long)count);
        return NULL;
    }
    p = (float *)malloc((size_t)count * sizeof(float));
    if (p == NULL)
        fail("out of host memory allocating %s (%.2f GiB)", what,
             (double)count * sizeof(float) / GIB);
    return p;
}

/* ------------------------------------------------------------------ TIFF input and output */

static char tiff_message[512];

static void tiff_error(const char *module, const char *fmt, va_list ap)
{
    int n = snprintf(tiff_message, sizeof tiff_message, "%s: ", module ? module : "libtiff");
    if (n < 0 || (size_t)n >= sizeof tiff_message)
        n = 0;
    vsnprintf(tiff_message + n, sizeof tiff_message - (size_t)n, fmt, ap);
}

/* One page's layout; 0 when it is a supported grey page, else 1 with a message. */
static int tiff_page(TIFF *t, const char *path, unsigned page, uint32_t *w, uint32_t *h,
                     uint16_t *bits, uint16_t *format)
{
    uint16_t spp = 1, planar = PLANARCONFIG_CONTIG;
    if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, w) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, h) ||
        *w == 0 || *h == 0) {
        fail("%s: page %u has no image size", path, page);
        return 1;
    }
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, format);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    if (spp != 1) {
        fail("%s: page %u has %u samples per pixel; only one-channel (grey) stacks are "
             "supported", path, page, (unsigned)spp);
        return 1;
    }
    if (TIFFIsTiled(t)) {
        fail("%s: page %u is tiled; only strip-organised TIFFs are supported", path, page);
        return 1;
    }
    if (!((*format == SAMPLEFORMAT_UINT && (*bits == 8 || *bits == 16)) ||
          (*format == SAMPLEFORMAT_IEEEFP && *bits == 32))) {
        fail("%s: page %u has an unsupported sample format (%u-bit %s); supported: 8- or "
             "16-bit unsigned, 32-bit float", path, page, (unsigned)*bits,
             *format == SAMPLEFORMAT_UINT ? "unsigned" : *format == SAMPLEFORMAT_INT ? "signed"
             : *format == SAMPLEFORMAT_IEEEFP ? "float" : "other");
        return 1;
    }
    return 0;
}

static int read_tiff(const char *path, volume *v)
{
    FILE *probe;
    TIFF *t;
    uint32_t w0 = 0, h0 = 0;
    uint16_t bits0 = 0, format0 = 0;
    tdata_t row = NULL;
    uint64_t pages = 0, z;
    int status = 1;

    if ((probe = fopen(path, "rb")) == NULL) {
        fail("cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    fclose(probe);
    tiff_message[0] = '\0';
    TIFFSetErrorHandler(tiff_error);
    TIFFSetWarningHandler(NULL);   /* ImageJ and others write tags libtiff does not know */
    if ((t = TIFFOpen(path, "r")) == NULL) {
        fail("%s is not a readable TIFF file (%s)", path, tiff_message[0] ? tiff_message : "libtiff refused it");
        return 1;
    }
    do {   /* every page: one size and one sample format */
        uint32_t w, h;
        uint16_t bits = 0, format = 0;
        if (tiff_page(t, path, (unsigned)pages, &w, &h, &bits, &format) != 0)
            goto done;
        if (pages == 0) {
            w0 = w; h0 = h; bits0 = bits; format0 = format;
        } else if (w != w0 || h != h0 || bits != bits0 || format != format0) {
            fail("%s: page %llu (%ux%u, %u-bit) differs from page 0 (%ux%u, %u-bit)", path,
                 (unsigned long long)pages, (unsigned)w, (unsigned)h, (unsigned)bits,
                 (unsigned)w0, (unsigned)h0, (unsigned)bits0);
            goto done;
        }
        ++pages;
    } while (TIFFReadDirectory(t));

    v->N = pages;
    v->H = h0;
    v->W = w0;
    if ((v->f = alloc_floats(voxels(v), "the input volume")) == NULL)
        goto done;
    if ((row = _TIFFmalloc(TIFFScanlineSize(t))) == NULL) {
        fail("out of host memory for a TIFF row");
        goto done;
    }
    for (z = 0; z < pages; ++z) {
        uint32_t y, x;
        if (!TIFFSetDirectory(t, (tdir_t)z)) {
            fail("%s: cannot read page %llu: %s", path, (unsigned long long)z, tiff_message);
            goto done;
        }
        for (y = 0; y < h0; ++y) {
            float *dst = v->f + (z * h0 + y) * (uint64_t)w0;
            if (TIFFReadScanline(t, row, y, 0) < 0) {
                fail("%s: cannot read row %u of page %llu: %s", path, (unsigned)y,
                     (unsigned long long)z, tiff_message);
                goto done;
            }
            if (bits0 == 8)
                for (x = 0; x < w0; ++x) dst[x] = (float)((const uint8_t *)row)[x];
            else if (bits0 == 16)
                for (x = 0; x < w0; ++x) dst[x] = (float)((const uint16_t *)row)[x];
            else
                memcpy(dst, row, (size_t)w0 * sizeof(float));
        }
    }
    printf("input     %s: %llu pages of %u x %u, %u-bit %s\n", path, (unsigned long long)pages,
           (unsigned)w0, (unsigned)h0, (unsigned)bits0, format0 == SAMPLEFORMAT_IEEEFP ? "float" : "unsigned");
    status = 0;
done:
    if (row != NULL)
        _TIFFfree(row);
    TIFFClose(t);
    if (status != 0) {
        free(v->f);
        v->f = NULL;
    }
    return status;
}

/* float32, one page per slice; BigTIFF when classic TIFF's 32-bit offsets could overflow. */
static int write_tiff(const char *path, const float *x, const volume *v)
{
    uint64_t bytes = voxels(v) * sizeof(float), z;
    TIFF *t;
    tiff_message[0] = '\0';
    TIFFSetErrorHandler(tiff_error);
    if ((t = TIFFOpen(path, bytes > ((uint64_t)3 << 30) ? "w8" : "w")) == NULL) {
        fail("cannot create %s: %s", path, tiff_message[0] ? tiff_message : strerror(errno));
        return 1;
    }
    for (z = 0; z < v->N; ++z) {
        uint32_t y;
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, v->W);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, v->H);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
        TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(t, TIFFTAG_PAGENUMBER, (uint16_t)(z < 65535 ? z : 65535),
                     (uint16_t)(v->N < 65535 ? v->N : 65535));
        for (y = 0; y < v->H; ++y)
            if (TIFFWriteScanline(t, (void *)(x + (z * v->H + y) * (uint64_t)v->W), y, 0) < 0) {
                fail("writing %s failed at page %llu: %s", path, (unsigned long long)z, tiff_message);
                TIFFClose(t);
                return 1;
            }
        if (!TIFFWriteDirectory(t)) {
            fail("writing %s failed at page %llu: %s", path, (unsigned long long)z, tiff_message);
            TIFFClose(t);
            return 1;
        }
    }
    TIFFClose(t);
    return 0;
}

/* ------------------------------------------------------------------ synthetic volume */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform in (0, 1]: 53 random bits, never 0 (Box-Muller takes its log). */
static double unit_open(uint64_t bits) { return ((double)(bits >> 11) + 1.0) / 9007199254740992.0; }

typedef struct box { uint64_t z0, z1; uint32_t y0, y1, x0, x1; float height; } box;

static int generate(double gib, uint64_t seed, volume *v)
{
    const double two_pi = 6.283185307179586;
    box boxes[GEN_BOXES];
    uint64_t z, side, bytes = (uint64_t)(gib * GIB);
    unsigned b;
    side = bytes >= (uint64_t)16 * GEN_SIDE * GEN_SIDE * sizeof(float) ? GEN_SIDE : GEN_SMALL_SIDE;
    v->H = v->W = (uint32_t)side;
    v->N = (bytes + side * side * sizeof(float) / 2) / (side * side * sizeof(float));
    if (v->N == 0)
        v->N = 1;
    if ((v->f = alloc_floats(voxels(v), "the generated volume")) == NULL)
        return 1;
    for (b = 0; b < GEN_BOXES; ++b) {   /* corners and heights from the seed */
        uint64_t r = splitmix64(seed * GEN_BOXES + b), s = splitmix64(r), u = splitmix64(s);
        uint64_t dz = v->N / 8 + 1 + (r >> 8) % (v->N / 3 + 1);
        uint32_t dy = (uint32_t)(side / 16 + (s >> 8) % (side / 3));
        uint32_t dx = (uint32_t)(side / 16 + (s >> 32) % (side / 3));
        boxes[b].z0 = (r >> 32) % v->N;
        boxes[b].z1 = boxes[b].z0 + dz < v->N ? boxes[b].z0 + dz : v->N;
        boxes[b].y0 = (uint32_t)((u >> 8) % (side - dy));
        boxes[b].y1 = boxes[b].y0 + dy;
        boxes[b].x0 = (uint32_t)((u >> 32) % (side - dx));
        boxes[b].x1 = boxes[b].x0 + dx;
        boxes[b].height = (float)(GEN_BOX_MAX * unit_open(splitmix64(u)));
    }
    for (z = 0; z < v->N; ++z) {
        uint32_t y, x;
        for (y = 0; y < v->H; ++y) {
            float *row = v->f + (z * v->H + y) * side;
            uint64_t counter = ((z * v->H + y) * side) / 2;
            for (x = 0; x < v->W; ++x) row[x] = (float)GEN_BACKGROUND;
            for (b = 0; b < GEN_BOXES; ++b)
                if (z >= boxes[b].z0 && z < boxes[b].z1 && y >= boxes[b].y0 && y < boxes[b].y1)
                    for (x = boxes[b].x0; x < boxes[b].x1; ++x) row[x] += boxes[b].height;
            for (x = 0; x < v->W; x += 2, ++counter) {   /* Box-Muller: two normals a pair */
                uint64_t k = splitmix64(seed ^ splitmix64(counter));
                double r = sqrt(-2.0 * log(unit_open(k))), a = two_pi * unit_open(splitmix64(k));
                row[x] += (float)(GEN_NOISE_SIGMA * r * cos(a));
                if (x + 1 < v->W)
                    row[x + 1] += (float)(GEN_NOISE_SIGMA * r * sin(a));
            }
        }
    }
    printf("generated %llu slices of %u x %u (%.2f GiB): %d boxes of height up to %.0f on %.0f, "
           "Gaussian noise sigma %.1f, seed %llu\n", (unsigned long long)v->N, (unsigned)v->H,
           (unsigned)v->W, (double)voxels(v) * 4.0 / GIB, GEN_BOXES, GEN_BOX_MAX, GEN_BACKGROUND,
           GEN_NOISE_SIGMA, (unsigned long long)seed);
    return 0;
}

/* ------------------------------------------------------------------ the passes */

/* Copies slices [begin, end) of a float array into another (the first stage of the dual and
   primal passes: the kernels that follow update the copy in place). */
static const char copy_source[] =
    "__kernel void tv_copy(__global const float *a, __global float *b, ulong n,\n"
    "                      ulong base, ulong begin, ulong end, ulong total, int flags)\n"
    "{\n"
    "  ulong i = get_global_id(0);\n"
    "  ulong z = begin + get_global_id(1);\n"
    "  if (i < n && z < end) b[z * n + i] = a[z * n + i];\n"
    "}\n";
static const char *const copy_sources[1] = { copy_source };

static hst_result copy_host(void *const *a, const void *const *sc, const hst_stream_block *b,
                            void *user)
{
    uint64_t n = *(const uint64_t *)sc[0];
    (void)user;
    memcpy((float *)a[1] + b->begin * n, (const float *)a[0] + b->begin * n,
           (size_t)((b->end - b->begin) * n) * sizeof(float));
    return HST_SUCCESS;
}

static hst_result dual_host(void *const *a, const void *const *sc, const hst_stream_block *b,
                            void *user)
{
    (void)user;
    hst_k_tv_dual_host((const float *)a[0], (float *)a[1], *(const uint32_t *)sc[0],
                       *(const uint32_t *)sc[1], *(const float *)sc[2], b->base, b->begin,
                       b->end, b->total);
    return HST_SUCCESS;
}

static hst_result primal_host(void *const *a, const void *const *sc, const hst_stream_block *b,
                              void *user)
{
    (void)user;
    hst_k_tv_primal_host((const float *)a[0], (const float *)a[1], (float *)a[2], (float *)a[3],
                         *(const uint32_t *)sc[0], *(const uint32_t *)sc[1],
                         *(const float *)sc[2], *(const float *)sc[3], b->base, b->begin,
                         b->end, b->total);
    return HST_SUCCESS;
}

static hst_result gap_host(void *const *a, const void *const *sc, const hst_stream_block *b,
                           void *user)
{
    (void)user;
    hst_k_tv_gap_host((const float *)a[0], (const float *)a[1], (const float *)a[2],
                      (float *)a[3], *(const uint32_t *)sc[0], *(const uint32_t *)sc[1],
                      *(const float *)sc[2], b->base, b->begin, b->end, b->total);
    return HST_SUCCESS;
}

/* Everything one run of the method needs: host arrays, scalars (read by every stream run, so
   they live here), and the five streams. */
typedef struct tv {
    hst_backend *be;
    const volume *v;
    float *x[2], *xbar, *p[2];
    uint32_t H, W;
    uint64_t n_vol, n_vec;           /* floats per slice: volume, vector field */
    float tau, sigma, lambda;
    hst_stream *dual[2], *primal[2], *gap;
    double *gaps;                    /* iters + 1 */
    double seconds[3];               /* dual, primal, gap: summed over the iterations */
    uint64_t block[3], blocks[3];    /* the last run's, per pass kind */
} tv;

static void tv_free(tv *t)
{
    int k;
    for (k = 0; k < 2; ++k) {
        hst_stream_destroy(t->dual[k]);
        hst_stream_destroy(t->primal[k]);
        free(t->x[k]);
        free(t->p[k]);
    }
    hst_stream_destroy(t->gap);
    free(t->xbar);
    free(t->gaps);
    memset(t, 0, sizeof *t);
}

static void set_stage(hst_stream_stage *st, const char *name, const char *const *sources,
                      size_t count, const char *options, const char *kernel,
                      hst_stream_host_fn host, size_t items)
{
    memset(st, 0, sizeof *st);
    st->name = name;
    st->sources = sources;
    st->num_sources = count;
    st->options = options;
    st->kernel = kernel;
    st->host = host;
    st->items_per_slice = items;
}

static void add_scalar(hst_stream_stage *st, const void *value, size_t bytes)
{
    st->scalars[st->num_scalars] = value;
    st->scalar_bytes[st->num_scalars++] = bytes;
}

static void set_array(hst_stream_array *a, hst_stream_kind kind, void *host, uint64_t floats)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->host = host;
    a->slice_bytes = (size_t)floats * sizeof(float);
}

/* Creates the five streams. budget: bytes per stream (0: the device's default); block: 0 or a
   fixed block size. */
static hst_result tv_streams(tv *t, uint64_t budget, uint64_t block, int reverse)
{
    static const int dual_in0[1] = { 1 }, dual_out0[1] = { 2 }, dual_in1[1] = { 0 };
    static const int primal_in0[1] = { 2 }, primal_out0[1] = { 3 };
    static const int primal_in1[2] = { 0, 1 }, primal_out1[2] = { 3, 4 };
    static const int gap_in[3] = { 0, 1, 2 }, gap_out[1] = { 3 };
    const char *opts = hst_backend_device(t->be)->correctly_rounded_sqrt
                       ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
    size_t nsrc;
    const char *const *src = hst_kernels_stream_source(&nsrc);
    hst_stream_desc d;
    hst_stream_array arr[5];
    hst_stream_stage st[2];
    hst_stream_acc acc;
    hst_result r;
    int k;

    memset(&d, 0, sizeof d);
    d.backends = &t->be;
    d.num_backends = 1;
    d.num_slices = t->v->N;
    d.arrays = arr;
    d.stages = st;
    d.budget_bytes = budget;
    d.block_slices = block;
    d.ring = RING;
    d.reverse = reverse;

    for (k = 0; k < 2; ++k) {
        /* dual, parity k: p[k] -> p[1-k]; stage 0 copies, stage 1 updates the copy */
        set_array(&arr[0], HST_STREAM_INPUT, t->xbar, t->n_vol);
        set_array(&arr[1], HST_STREAM_INPUT, t->p[k], t->n_vec);
        set_array(&arr[2], HST_STREAM_OUTPUT, t->p[1 - k], t->n_vec);
        set_stage(&st[0], "copy p", copy_sources, 1, "", "tv_copy", copy_host, (size_t)t->n_vec);
        add_scalar(&st[0], &t->n_vec, sizeof t->n_vec);
        st[0].num_inputs = 1; st[0].inputs = dual_in0;
        st[0].num_outputs = 1; st[0].outputs = dual_out0;
        set_stage(&st[1], "tv dual", src, nsrc, opts, "hst_k_tv_dual", dual_host, (size_t)t->n_vol);
        add_scalar(&st[1], &t->H, sizeof t->H);
        add_scalar(&st[1], &t->W, sizeof t->W);
        add_scalar(&st[1], &t->sigma, sizeof t->sigma);
        st[1].num_inputs = 1; st[1].inputs = dual_in1;
        st[1].num_outputs = 1; st[1].outputs = dual_out0;
        st[1].halo_hi = 1;
        d.num_arrays = 3;
        d.num_stages = 2;
        d.num_accumulators = 0;
        if ((r = hst_stream_create(&d, &t->dual[k])) != HST_SUCCESS)
            return r;

        /* primal, parity k: x[k] -> x[1-k], reads p[1-k], writes xbar */
        set_array(&arr[0], HST_STREAM_INPUT, t->p[1 - k], t->n_vec);
        set_array(&arr[1], HST_STREAM_INPUT, t->v->f, t->n_vol);
        set_array(&arr[2], HST_STREAM_INPUT, t->x[k], t->n_vol);
        set_array(&arr[3], HST_STREAM_OUTPUT, t->x[1 - k], t->n_vol);
        set_array(&arr[4], HST_STREAM_OUTPUT, t->xbar, t->n_vol);
        set_stage(&st[0], "copy x", copy_sources, 1, "", "tv_copy", copy_host, (size_t)t->n_vol);
        add_scalar(&st[0], &t->n_vol, sizeof t->n_vol);
        st[0].num_inputs = 1; st[0].inputs = primal_in0;
        st[0].num_outputs = 1; st[0].outputs = primal_out0;
        set_stage(&st[1], "tv primal", src, nsrc, opts, "hst_k_tv_primal", primal_host,
                  (size_t)t->n_vol);
        add_scalar(&st[1], &t->H, sizeof t->H);
        add_scalar(&st[1], &t->W, sizeof t->W);
        add_scalar(&st[1], &t->tau, sizeof t->tau);
        add_scalar(&st[1], &t->lambda, sizeof t->lambda);
        st[1].num_inputs = 2; st[1].inputs = primal_in1;
        st[1].num_outputs = 2; st[1].outputs = primal_out1;
        st[1].halo_lo = 1;
        d.num_arrays = 5;
        if ((r = hst_stream_create(&d, &t->primal[k])) != HST_SUCCESS)
            return r;
    }

    /* gap: per-voxel terms into a device-only array, summed per slice by the accumulator */
    set_array(&arr[0], HST_STREAM_INPUT, t->x[0], t->n_vol);
    set_array(&arr[1], HST_STREAM_INPUT, t->p[0], t->n_vec);
    set_array(&arr[2], HST_STREAM_INPUT, t->v->f, t->n_vol);
    set_array(&arr[3], HST_STREAM_TEMP, NULL, t->n_vol);
    set_stage(&st[0], "tv gap", src, nsrc, opts, "hst_k_tv_gap", gap_host, (size_t)t->n_vol);
    add_scalar(&st[0], &t->H, sizeof t->H);
    add_scalar(&st[0], &t->W, sizeof t->W);
    add_scalar(&st[0], &t->lambda, sizeof t->lambda);
    st[0].num_inputs = 3; st[0].inputs = gap_in;
    st[0].num_outputs = 1; st[0].outputs = gap_out;
    st[0].halo_lo = 1;
    st[0].halo_hi = 1;
    memset(&acc, 0, sizeof acc);
    acc.kind = HST_STREAM_SUM;
    acc.dtype = HST_F32;
    acc.a = 3;
    d.num_arrays = 4;
    d.num_stages = 1;
    d.accumulators = &acc;
    d.num_accumulators = 1;
    return hst_stream_create(&d, &t->gap);
}

static hst_result run_pass(tv *t, hst_stream *s, int kind, hst_stream_report *rep)
{
    hst_result r = hst_stream_run(s, rep);
    t->seconds[kind] += rep->seconds;
    t->block[kind] = rep->block_slices;
    t->blocks[kind] = rep->num_blocks;
    return r;
}

/* The gap of (x[k], p[k]) into t->gaps[it]. */
static hst_result run_gap(tv *t, int k, int it, int timed)
{
    hst_stream_report rep;
    hst_result r;
    if ((r = hst_stream_set_array(t->gap, 0, t->x[k], NULL)) != HST_SUCCESS ||
        (r = hst_stream_set_array(t->gap, 1, t->p[k], NULL)) != HST_SUCCESS)
        return r;
    r = timed ? run_pass(t, t->gap, 2, &rep) : hst_stream_run(t->gap, &rep);
    t->gaps[it] = rep.acc[0];
    return r;
}

/* Allocates, creates the streams and runs `iters` iterations; prints a line per iteration when
   verbose. The result is t->x[iters % 2]. */
static int tv_run(tv *t, hst_backend *be, const volume *v, const options *o, uint64_t budget,
                  uint64_t block, int verbose)
{
    uint64_t nv = voxels(v);
    const char *what = NULL;
    hst_result r;
    int it;

    memset(t, 0, sizeof *t);
    t->be = be;
    t->v = v;
    t->H = v->H;
    t->W = v->W;
    t->n_vol = (uint64_t)v->H * v->W;
    t->n_vec = 3 * t->n_vol;
    t->tau = t->sigma = (float)(1.0 / sqrt(12.0));
    t->lambda = (float)o->lambda;
    if ((t->x[0] = alloc_floats(nv, "x")) == NULL || (t->x[1] = alloc_floats(nv, "x")) == NULL ||
        (t->xbar = alloc_floats(nv, "xbar")) == NULL ||
        (t->p[0] = alloc_floats(3 * nv, "p")) == NULL ||
        (t->p[1] = alloc_floats(3 * nv, "p")) == NULL)
        return 1;
    if ((t->gaps = (double *)calloc((size_t)o->iters + 1, sizeof(double))) == NULL) {
        fail("out of host memory");
        return 1;
    }
    memcpy(t->x[0], v->f, (size_t)nv * sizeof(float));   /* x = xbar = f, p = 0 */
    memcpy(t->xbar, v->f, (size_t)nv * sizeof(float));
    memset(t->p[0], 0, (size_t)(3 * nv) * sizeof(float));

    if ((r = tv_streams(t, budget, block, o->reverse)) != HST_SUCCESS) {
        what = "hst_stream_create";
        goto error;
    }
    if ((r = run_gap(t, 0, 0, 0)) != HST_SUCCESS) {
        what = "the gap pass";
        goto error;
    }
    if (verbose) {
        printf("\n%5s %16s %14s %9s %9s %9s %9s\n", "iter", "gap P(x)-D(p)", "gap / voxel",
               "dual s", "primal s", "gap s", "iter s");
        printf("%5d %16.6e %14.6e\n", 0, t->gaps[0], t->gaps[0] / (double)nv);
    }
    for (it = 0; it < o->iters; ++it) {
        int k = it & 1;
        hst_stream_report rd, rp;
        double s0, sg;
        if ((r = run_pass(t, t->dual[k], 0, &rd)) != HST_SUCCESS) { what = "the dual pass"; goto error; }
        if ((r = run_pass(t, t->primal[k], 1, &rp)) != HST_SUCCESS) { what = "the primal pass"; goto error; }
        s0 = t->seconds[2];
        if ((r = run_gap(t, 1 - k, it + 1, 1)) != HST_SUCCESS) { what = "the gap pass"; goto error; }
        sg = t->seconds[2] - s0;
        if (verbose) {
            printf("%5d %16.6e %14.6e %9.4f %9.4f %9.4f %9.4f\n", it + 1, t->gaps[it + 1],
                   t->gaps[it + 1] / (double)nv, rd.seconds, rp.seconds, sg,
                   rd.seconds + rp.seconds + sg);
            fflush(stdout);
        }
    }
    return 0;
error:
    fail("%s on %s failed: %s (%d)", what, hst_backend_device(be)->name, hst_result_string(r), r);
    if (r == HST_ERROR_OUT_OF_DEVICE_MEMORY)
        fprintf(stderr, "  (--budget-mib is shared by the %d streams, each getting a %dth of it: "
                "raise it, or lower --block)\n", PASSES, PASSES);
    return 1;
}

/* Device bytes the ring of one pass needs for blocks of B slices (stream.h's rule: ring slots
   of B + halo slices of every array, plus the accumulators). */
static uint64_t ring_bytes(uint64_t B, uint64_t halo, uint64_t floats_per_voxel, uint64_t hw,
                           uint64_t accs)
{
    return (uint64_t)RING * (B + halo) * floats_per_voxel * hw * sizeof(float) + accs;
}

static uint64_t auto_budget(const volume *v, const hst_device_info *dev)
{
    uint64_t hw = (uint64_t)v->H * v->W, B = (v->N + AUTO_BLOCKS - 1) / AUTO_BLOCKS, need, gap;
    uint64_t cap = dev->global_mem_bytes / AUTO_DEVICE_SHARE;
    need = ring_bytes(B, 1, 7, hw, 0);                       /* dual, primal: 7 floats a voxel */
    gap = ring_bytes(B, 2, 6, hw, v->N * sizeof(double));   /* gap: 6, halo 2, one accumulator */
    if (gap > need)
        need = gap;
    need *= PASSES;
    return need < cap ? need : cap;
}

/* ------------------------------------------------------------------ options */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: stream_tv [options] [input.tif] output.tif\n"
            "       stream_tv [options] --generate GIB output.tif\n"
            "  --device S      device selector (default: $HST_DEVICE, else auto; `host`: C twins)\n"
            "  --budget-mib M  device memory for all passes together (default: about N/%d\n"
            "                  slices per block, at most 1/%d of the device's memory)\n"
            "  --block B       owned slices per block (default: the largest that fits)\n"
            "  --iters K       iterations (default %d)\n"
            "  --lambda L      data weight (default %g)\n"
            "  --reverse       walk the blocks from the last slice to the first\n"
            "  --check         compare with an unstreamed run on the host device (small inputs)\n"
            "  --generate GIB  a synthetic noisy volume of about GIB GiB instead of an input\n"
            "  --seed S        seed of --generate (default 1)\n"
            "input defaults to %s\n",
            AUTO_BLOCKS, AUTO_DEVICE_SHARE, DEFAULT_ITERS, DEFAULT_LAMBDA, DEFAULT_INPUT);
}

static int parse_number(const char *opt, const char *text, double lo, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= lo) || v > 1e15) {
        fail("%s wants a number >= %g, not '%s'", opt, lo, text);
        return 1;
    }
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    const char *pos[2] = { NULL, NULL };
    int i, npos = 0;
    double v;
    memset(o, 0, sizeof *o);
    o->iters = DEFAULT_ITERS;
    o->lambda = DEFAULT_LAMBDA;
    o->seed = 1;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--reverse") == 0) {
            o->reverse = 1;
        } else if (strcmp(a, "--check") == 0) {
            o->check = 1;
        } else if (strcmp(a, "--device") == 0 && has) {
            o->device = argv[++i];
        } else if (strcmp(a, "--budget-mib") == 0 && has) {
            if (parse_number(a, argv[++i], 1e-6, &o->budget_mib)) return 1;
        } else if (strcmp(a, "--block") == 0 && has) {
            if (parse_number(a, argv[++i], 1, &v) || v != floor(v)) {
                fail("--block wants a whole number of slices");
                return 1;
            }
            o->block = (uint64_t)v;
        } else if (strcmp(a, "--iters") == 0 && has) {
            if (parse_number(a, argv[++i], 1, &v) || v != floor(v) || v > 1e6) {
                fail("--iters wants a whole number from 1 to 1000000");
                return 1;
            }
            o->iters = (int)v;
        } else if (strcmp(a, "--lambda") == 0 && has) {
            if (parse_number(a, argv[++i], 1e-30, &o->lambda)) return 1;
        } else if (strcmp(a, "--generate") == 0 && has) {
            if (parse_number(a, argv[++i], 1e-6, &o->generate_gib)) return 1;
        } else if (strcmp(a, "--seed") == 0 && has) {
            if (parse_number(a, argv[++i], 0, &v) || v != floor(v)) {
                fail("--seed wants a whole number");
                return 1;
            }
            o->seed = (uint64_t)v;
        } else if (a[0] != '-' && npos < 2) {
            pos[npos++] = a;
        } else {
            fail("unknown or incomplete option '%s'", a);
            usage(stderr);
            return 1;
        }
    }
    if (npos == 0 || (o->generate_gib > 0 && npos != 1)) {
        fail(npos == 0 ? "no output file given" : "--generate takes no input file");
        usage(stderr);
        return 1;
    }
    o->output = pos[npos - 1];
    o->input = o->generate_gib > 0 ? NULL : npos == 2 ? pos[0] : DEFAULT_INPUT;
    return 0;
}

/* ------------------------------------------------------------------ main */

static int compare(const tv *a, const tv *b, const volume *v, int iters)
{
    const float *x = a->x[iters & 1], *y = b->x[iters & 1];
    uint64_t i, n = voxels(v), differ = 0;
    double worst = 0.0;
    int it, gaps_differ = 0;
    for (i = 0; i < n; ++i)
        if (memcmp(&x[i], &y[i], sizeof(float)) != 0) {
            double d = fabs((double)x[i] - (double)y[i]);
            ++differ;
            if (d > worst) worst = d;
        }
    for (it = 0; it <= iters; ++it)
        gaps_differ += memcmp(&a->gaps[it], &b->gaps[it], sizeof(double)) != 0;
    printf("check     streamed vs unstreamed (host device, one block of %llu slices): ",
           (unsigned long long)v->N);
    if (differ == 0 && gaps_differ == 0) {
        printf("x bitwise identical, all %d gaps identical\n", iters + 1);
        return 0;
    }
    printf("%llu of %llu voxels differ (max |diff| %.3g), %d of %d gaps differ\n",
           (unsigned long long)differ, (unsigned long long)n, worst, gaps_differ, iters + 1);
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    volume v;
    hst_device_info pick;
    hst_backend_desc desc;
    hst_backend *be = NULL, *host = NULL;
    const hst_device_info *dev;
    tv t, ref;
    char why[512] = "";
    uint64_t budget, need, avail, nv;
    double t0, wall;
    int status = 1, exact;
    hst_result r;

    memset(&v, 0, sizeof v);
    memset(&t, 0, sizeof t);
    memset(&ref, 0, sizeof ref);
    if (parse_options(argc, argv, &o) != 0)
        return 1;

    if ((r = hst_device_select(o.device, &pick, why, sizeof why)) != HST_SUCCESS) {
        fail("no device for '%s': %s (%d)\n  %s", o.device ? o.device : "$HST_DEVICE/auto",
             hst_result_string(r), r, why);
        return 1;
    }
    if (o.generate_gib > 0 ? generate(o.generate_gib, o.seed, &v) : read_tiff(o.input, &v))
        return 1;
    nv = voxels(&v);
    if (v.N < 2)
        printf("note      one slice: nothing to stream across, the blocks are that slice\n");

    budget = o.budget_mib > 0 ? (uint64_t)(o.budget_mib * MIB) : auto_budget(&v, &pick);
    /* Host memory: the arrays, the reference run's, and on a CPU device the rings too (its
       "device" memory and pinned staging are host memory). */
    need = (uint64_t)FLOATS_PER_VOXEL * nv * sizeof(float) * (o.check ? 2 : 1) +
           (pick.unified_memory ? 2 * budget : 0) - nv * sizeof(float);   /* f exists already */
    avail = host_available_bytes();
    if (avail != 0 && need > avail) {
        fail("this run needs about %.2f GiB of host memory (%d floats a voxel%s), but only "
             "%.2f GiB are available: use a smaller volume or a smaller budget",
             (double)need / GIB, FLOATS_PER_VOXEL, pick.unified_memory ? ", plus the rings" : "",
             (double)avail / GIB);
        goto done;
    }
    if (o.check && (uint64_t)nv * sizeof(float) > CHECK_MAX_BYTES) {
        fail("--check is for small inputs (at most %.0f MiB of volume; this one has %.0f MiB)",
             (double)CHECK_MAX_BYTES / MIB, (double)nv * sizeof(float) / MIB);
        goto done;
    }

    memset(&desc, 0, sizeof desc);
    desc.device = pick.selector;
    if ((r = hst_backend_create(&desc, &be)) != HST_SUCCESS) {
        fail("hst_backend_create(%s) failed: %s (%d)", pick.selector, hst_result_string(r), r);
        goto done;
    }
    dev = hst_backend_device(be);
    printf("device    %s [%s] (%s)\n", dev->name, dev->selector, why);
    printf("volume    %llu x %u x %u (z, y, x) = %.1f MiB; working arrays %.1f MiB on the host\n",
           (unsigned long long)v.N, (unsigned)v.H, (unsigned)v.W, (double)nv * 4.0 / MIB,
           (double)nv * 4.0 * FLOATS_PER_VOXEL / MIB);
    printf("method    Chambolle-Pock ROF, lambda %g, tau = sigma = %.6f (tau sigma 12 = %.6f), "
           "%d iterations%s\n", o.lambda, 1.0 / sqrt(12.0),
           (double)(float)(1.0 / sqrt(12.0)) * (double)(float)(1.0 / sqrt(12.0)) * 12.0, o.iters,
           o.reverse ? ", blocks in reverse" : "");

    t0 = now_s();
    if (tv_run(&t, be, &v, &o, budget / PASSES, o.block, 1) != 0)
        goto done;
    wall = now_s() - t0;
    printf("\nbudget    %.1f MiB for %d streams (%.1f MiB each, ring %d)%s\n", (double)budget / MIB,
           PASSES, (double)(budget / PASSES) / MIB, RING, o.budget_mib > 0 ? "" : " (auto)");
    printf("blocks    dual: %llu slices x %llu blocks; primal: %llu x %llu; gap: %llu x %llu "
           "(of %llu slices)\n", (unsigned long long)t.block[0], (unsigned long long)t.blocks[0],
           (unsigned long long)t.block[1], (unsigned long long)t.blocks[1],
           (unsigned long long)t.block[2], (unsigned long long)t.blocks[2], (unsigned long long)v.N);
    printf("time      %.4f s per iteration (dual %.4f + primal %.4f + gap %.4f), %.1f Mvoxel/s "
           "per iteration; %.2f s in all with stream setup\n",
           (t.seconds[0] + t.seconds[1] + t.seconds[2]) / o.iters, t.seconds[0] / o.iters,
           t.seconds[1] / o.iters, t.seconds[2] / o.iters,
           (double)nv * o.iters / (t.seconds[0] + t.seconds[1] + t.seconds[2]) / 1e6, wall);
    printf("gap       %.6e -> %.6e (x%.3g)\n", t.gaps[0], t.gaps[o.iters],
           t.gaps[0] != 0.0 ? t.gaps[o.iters] / t.gaps[0] : 0.0);

    exact = 1;
    if (o.check) {
        hst_backend_desc hd;
        memset(&hd, 0, sizeof hd);
        hd.device = "host";
        if ((r = hst_backend_create(&hd, &host)) != HST_SUCCESS) {
            fail("hst_backend_create(host) failed: %s (%d)", hst_result_string(r), r);
            goto done;
        }
        if (tv_run(&ref, host, &v, &o, 0, v.N, 0) != 0)
            goto done;
        if (compare(&t, &ref, &v, o.iters) != 0) {
            if (dev->correctly_rounded_sqrt) {
                fail("the streamed result differs from the unstreamed one on a device with "
                     "correctly rounded sqrt and divide: this is a bug");
                exact = 0;
            } else {
                printf("          (expected: %s does not round sqrt and divide correctly)\n",
                       dev->name);
            }
        }
    }

    if (write_tiff(o.output, t.x[o.iters & 1], &v) != 0)
        goto done;
    printf("output    %s (float32, %llu pages)\n", o.output, (unsigned long long)v.N);
    status = exact ? 0 : 2;
done:
    tv_free(&t);
    tv_free(&ref);
    if (hst_backend_destroy(be) != HST_SUCCESS) status = 1;   /* logged, naming what holds it */
    if (hst_backend_destroy(host) != HST_SUCCESS) status = 1;
    free(v.f);
    return status;
}
