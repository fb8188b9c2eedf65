/* esrrf_disk_bench.c — the eSRRF command-line program (examples/esrrf.c) on a stack larger than
   it keeps in memory, read from disk block by block, against the library's in-memory call
   (hst_esrrf_run) on the same frames: frames per second of each and the program's peak resident
   memory. Writes a synthetic u16 BigTIFF (bench_blinking_stack's frames, uncompressed, one strip
   per page) of the size asked for, measures, and deletes it.

       esrrf_disk_bench [--gib G] [--side N] [--mag M] [--block F] [--device S]
                        [--esrrf PATH] [--dir DIR]

     --gib G       the stack's size, GiB (a fraction allowed)                      [4]
     --side N      frames of N x N pixels                                          [512]
     --mag M       the magnification                                               [2]
     --block F     frames per block, of the program and of the call; 0 automatic   [0]
     --device S    the device, as the program's --device                [$HST_DEVICE, else auto]
     --esrrf PATH  the program                                       [build/examples/esrrf]
                   (up to 4 times: each build run cold on the same stack, the first last;
                   warm and the ratios the first's)
     --dir DIR     where the stack is written (it needs G GiB free)     [$TMPDIR, else /tmp]

   Figures (one machine, one device; every figure frames / wall seconds):
     write         the stack written and synced (MB/s of the disk under writing)
     cold          the program on the stack evicted from the page cache (posix_fadvise
                   DONTNEED after fsync: a file larger than memory behaves so): from the disk
                   (each program has run once before, untimed, on the first WARM_UP_FRAMES
                   frames: its device programs built, its path choice stored)
     warm          the program again, the stack in the page cache (not run for a stack larger
                   than the machine's memory: the page cache cannot hold it)
     in memory     hst_esrrf_run on the stack read into memory first (the reading not counted):
                   the call the program's streaming is measured against (not run where warm is
                   not)
     disk read     the stack read sequentially after eviction (what `dd` measures): the disk's
                   rate, the bound of the cold run
   with the program's peak resident memory (/usr/bin/time -v's "Maximum resident set size",
   else wait4's) against the stack's size, and the ratios warm / in memory and cold / disk read.
   Under the cold runs and the disk read, what the disk itself did (Linux's /proc/diskstats,
   sampled every DISK_SAMPLE_S seconds; the disk that read the most): its rate, the fraction of
   the time it was busy and its mean queue (requests in flight), and its rate's spread over the
   samples. A cold run below the disk read with the disk busy less of the time has left it idle;
   as busy but at a lower rate, it asked for the bytes in a shape the disk serves more slowly.
   The in-memory call needs the stack's size in free memory: it is skipped (said so) where
   reading it fails.

   Build: make build/bench/esrrf_disk_bench (libtiff and libpng, as the program). */

#define _POSIX_C_SOURCE 200809L   /* posix_fadvise, fsync */
#define _DEFAULT_SOURCE           /* wait4 (the program's peak resident memory without /usr/bin/time) */
#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "bench_util.h"

#define IMAGE_IO_IMPLEMENTATION
#include "../examples/image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

#define CHUNK_FRAMES 64u   /* frames generated once and written again and again */
#define TIME_PROGRAM "/usr/bin/time"
#define MAX_PROGRAMS 4     /* --esrrf given more than once: builds of the program compared cold */
#define WARM_UP_FRAMES 256u   /* each program's untimed first run: frames (its choice measures 64) */

typedef struct args {
    double gib;
    uint32_t side, mag;
    uint64_t block;
    const char *device, *esrrf[MAX_PROGRAMS], *dir;
    unsigned nprog;
} args;

static void usage_exit(void)
{
    fprintf(stderr, "usage: esrrf_disk_bench [--gib G] [--side N] [--mag M] [--block F] [--device S] "
                    "[--esrrf PATH] [--dir DIR]\n");
    exit(2);
}

static void parse(int argc, char **argv, args *a)
{
    int i;
    const char *tmp = getenv("TMPDIR");
    a->gib = 4.0; a->side = 512; a->mag = 2; a->block = 0;
    a->device = NULL; a->esrrf[0] = "build/examples/esrrf"; a->nprog = 0; a->dir = tmp && *tmp ? tmp : "/tmp";
    for (i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage_exit();
        if (!strcmp(argv[i], "--gib")) a->gib = atof(v);
        else if (!strcmp(argv[i], "--side")) a->side = (uint32_t)atoi(v);
        else if (!strcmp(argv[i], "--mag")) a->mag = (uint32_t)atoi(v);
        else if (!strcmp(argv[i], "--block")) a->block = (uint64_t)atoll(v);
        else if (!strcmp(argv[i], "--device")) a->device = v;
        else if (!strcmp(argv[i], "--esrrf") && a->nprog < MAX_PROGRAMS) a->esrrf[a->nprog++] = v;
        else if (!strcmp(argv[i], "--dir")) a->dir = v;
        else usage_exit();
        i++;
    }
    if (!a->nprog) a->nprog = 1;
    if (!(a->gib > 0) || a->side < 16 || a->side > 8192 || a->mag < 1 || a->mag > HST_ESRRF_MAX_MAG) usage_exit();
}

/* frames x side x side u16 pages into a BigTIFF at path, synced; exits on failure. */
static void write_stack(const char *path, uint64_t frames, uint32_t side)
{
    uint16_t *chunk = (uint16_t *)bench_blinking_stack(CHUNK_FRAMES, side, 0);
    size_t frame_bytes = (size_t)side * side * 2;
    TIFF *t = TIFFOpen(path, "w8");
    uint64_t f;
    int fd;
    if (!t) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
    for (f = 0; f < frames; f++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, side);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, side);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, side);
        if (TIFFWriteEncodedStrip(t, 0, chunk + (f % CHUNK_FRAMES) * (frame_bytes / 2), (tmsize_t)frame_bytes) < 0 ||
            !TIFFWriteDirectory(t)) {
            fprintf(stderr, "cannot write %s (page %llu): disk full?\n", path, (unsigned long long)f + 1);
            TIFFClose(t);
            unlink(path);
            exit(1);
        }
    }
    TIFFClose(t);
    free(chunk);
    if ((fd = open(path, O_RDONLY)) >= 0) { fsync(fd); close(fd); }
}

/* The file's pages dropped from the page cache (clean after fsync: no privilege needed). */
static void evict(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

/* The file read sequentially in 8 MiB reads: bytes per second. */
static double read_rate(const char *path)
{
    size_t cap = (size_t)8 << 20;
    char *buf = (char *)malloc(cap);
    double t0 = now_s(), bytes = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || !buf) { free(buf); if (fd >= 0) close(fd); return 0.0; }
    while ((n = read(fd, buf, cap)) > 0) bytes += (double)n;
    close(fd);
    free(buf);
    return bytes / (now_s() - t0);
}

/* ---------------------------------------------------------------- the disks' own counters */
#define DISK_SAMPLE_S 0.5       /* seconds between samples of /proc/diskstats */
#define DISK_MAX 64             /* block devices followed (loop and ram devices are not) */
#define DISK_SAMPLES_MAX 16384  /* samples kept: over two hours at DISK_SAMPLE_S */

/* One device's cumulative counters (/proc/diskstats: sectors of 512 bytes read, milliseconds
   with I/O in flight, milliseconds weighted by the requests in flight). */
typedef struct disk_count { uint64_t sectors, busy_ms, queue_ms; } disk_count;

typedef struct disk_watch {
    char name[DISK_MAX][32];
    unsigned ndev;
    double *t;                  /* [DISK_SAMPLES_MAX] seconds */
    disk_count (*c)[DISK_MAX];  /* [DISK_SAMPLES_MAX][DISK_MAX] */
    size_t n;
    int stop;                   /* set under lock: the sampling thread ends */
    pthread_mutex_t lock;
    pthread_t thread;
} disk_watch;

/* Index of device name in w (added if new and there is room; -1 otherwise). */
static int disk_index(disk_watch *w, const char *name)
{
    unsigned i;
    for (i = 0; i < w->ndev; i++)
        if (!strcmp(w->name[i], name)) return (int)i;
    if (w->ndev == DISK_MAX || strlen(name) >= sizeof w->name[0]) return -1;
    strcpy(w->name[w->ndev], name);
    return (int)w->ndev++;
}

/* One sample of every device's counters into w (nothing where /proc/diskstats is absent). */
static void disk_sample(disk_watch *w)
{
    char line[512], name[64];
    unsigned long long f[11];
    FILE *f_in;
    int i;
    if (w->n == DISK_SAMPLES_MAX || !(f_in = fopen("/proc/diskstats", "r"))) return;
    memset(w->c[w->n], 0, sizeof w->c[w->n]);
    while (fgets(line, sizeof line, f_in))
        if (sscanf(line, " %*u %*u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", name, &f[0], &f[1],
                   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10]) == 12 &&
            strncmp(name, "loop", 4) && strncmp(name, "ram", 3) && (i = disk_index(w, name)) >= 0) {
            w->c[w->n][i].sectors = f[2];    /* sectors read */
            w->c[w->n][i].busy_ms = f[9];    /* time with I/O in flight */
            w->c[w->n][i].queue_ms = f[10];  /* time weighted by the I/Os in flight */
        }
    fclose(f_in);
    w->t[w->n++] = now_s();
}

static void *disk_watch_main(void *arg)
{
    disk_watch *w = (disk_watch *)arg;
    struct timespec nap = { 0, (long)(DISK_SAMPLE_S * 1e9) };
    for (;;) {
        int stop;
        pthread_mutex_lock(&w->lock);
        stop = w->stop;
        if (!stop) disk_sample(w);
        pthread_mutex_unlock(&w->lock);
        if (stop) return NULL;
        nanosleep(&nap, NULL);
    }
}

/* Starts sampling (a thread of its own); 0 where it cannot (then nothing is reported). */
static int disk_watch_start(disk_watch *w)
{
    memset(w, 0, sizeof *w);
    w->t = (double *)malloc(DISK_SAMPLES_MAX * sizeof *w->t);
    w->c = (disk_count(*)[DISK_MAX])malloc(DISK_SAMPLES_MAX * sizeof *w->c);
    if (!w->t || !w->c || pthread_mutex_init(&w->lock, NULL)) goto fail;
    disk_sample(w);
    if (w->n && !pthread_create(&w->thread, NULL, disk_watch_main, w)) return 1;
    pthread_mutex_destroy(&w->lock);
fail:
    free(w->t);
    free(w->c);
    w->t = NULL;
    w->c = NULL;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Stops sampling and prints what the disk that read the most did over the samples: its rate,
   busy fraction and mean queue, and the 10th, 50th and 90th percentiles of its rate. */
static void disk_watch_report(disk_watch *w, const char *what)
{
    size_t k, n;
    unsigned i, d = 0;
    double *rate, span;
    disk_count a, b;
    if (!w->t) { printf("  disk        under %s: not measured (no /proc/diskstats)\n", what); return; }
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    disk_sample(w);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    n = w->n;
    for (i = 1; i < w->ndev; i++)
        if (w->c[n - 1][i].sectors - w->c[0][i].sectors > w->c[n - 1][d].sectors - w->c[0][d].sectors) d = i;
    a = w->c[0][d];
    b = w->c[n - 1][d];
    span = w->t[n - 1] - w->t[0];
    if ((rate = (double *)malloc(n * sizeof *rate)) != NULL && n > 2 && span > 0) {
        for (k = 1; k < n; k++)
            rate[k - 1] = (double)(w->c[k][d].sectors - w->c[k - 1][d].sectors) * 512.0 / (w->t[k] - w->t[k - 1]) / 1e6;
        qsort(rate, n - 1, sizeof *rate, cmp_double);
        printf("  disk        under %s: %s read %.0f MB/s, busy %.2f of the time, mean queue %.1f; "
               "MB/s per %.1f s p10 %.0f, p50 %.0f, p90 %.0f\n", what, w->name[d],
               (double)(b.sectors - a.sectors) * 512.0 / span / 1e6, (double)(b.busy_ms - a.busy_ms) / 1e3 / span,
               (double)(b.queue_ms - a.queue_ms) / 1e3 / span, DISK_SAMPLE_S, rate[(n - 1) / 10],
               rate[(n - 1) / 2], rate[(n - 1) * 9 / 10]);
    }
    free(rate);
    free(w->t);
    free(w->c);
    w->t = NULL;
    w->c = NULL;
}

/* One run of the program on in (output into dir), its first max_frames frames (0: all): wall
   seconds, peak resident KiB. */
typedef struct prog_run { double seconds; long rss_kib; } prog_run;

static prog_run run_program(const args *a, const char *prog, const char *in, uint64_t max_frames)
{
    char out[4200], tv[4200], mag[16], block[32], first[32], line[512];
    const char *argv[24];
    int k = 0, status = 0, timed = access(TIME_PROGRAM, X_OK) == 0;
    struct rusage ru;
    prog_run pr = { 0.0, 0 };
    double t0;
    pid_t pid;
    FILE *f;
    snprintf(out, sizeof out, "%s/esrrf_disk_bench_out.tif", a->dir);
    snprintf(tv, sizeof tv, "%s/esrrf_disk_bench_time.txt", a->dir);
    snprintf(mag, sizeof mag, "%u", a->mag);
    snprintf(block, sizeof block, "%llu", (unsigned long long)a->block);
    if (timed) { argv[k++] = TIME_PROGRAM; argv[k++] = "-v"; argv[k++] = "-o"; argv[k++] = tv; }
    argv[k++] = prog; argv[k++] = "-q"; argv[k++] = "--no-preview"; argv[k++] = "--mag"; argv[k++] = mag;
    argv[k++] = "--block"; argv[k++] = block;
    snprintf(first, sizeof first, "%llu", (unsigned long long)max_frames);
    if (max_frames) { argv[k++] = "--max-frames"; argv[k++] = first; }
    if (a->device) { argv[k++] = "--device"; argv[k++] = a->device; }
    argv[k++] = in; argv[k++] = out; argv[k] = NULL;
    fflush(NULL);
    t0 = now_s();
    if ((pid = fork()) == 0) {
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s failed (status %d)\n", prog, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        unlink(in);
        exit(1);
    }
    pr.seconds = now_s() - t0;
    pr.rss_kib = ru.ru_maxrss;
    if (timed && (f = fopen(tv, "r")) != NULL) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, " Maximum resident set size (kbytes): %ld", &pr.rss_kib) == 1) break;
        fclose(f);
    }
    unlink(tv);
    unlink(out);
    return pr;
}

/* The machine's physical memory, bytes (UINT64_MAX where the system does not say). */
static uint64_t physical_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* hst_esrrf_run on the stack read into memory: frames per second of the call (0: not run). */
static double in_memory_rate(const args *a, const char *in)
{
    io_stack st;
    char err[1024];
    hst_backend_desc bd;
    hst_backend *be;
    hst_esrrf_desc d;
    uint64_t ntp;
    uint32_t rm, cm;
    float *out[HST_ESRRF_NUM_MODES] = { NULL, NULL, NULL };
    hst_esrrf_report rep;
    double t0, rate;
    if (!io_read_stack(in, 0, 0, &st, err, sizeof err)) {
        printf("  in memory   not run: %s\n", err);
        return 0.0;
    }
    memset(&bd, 0, sizeof bd);
    bd.device = a->device;
    CHECK(hst_esrrf_backend_create(&bd, &be, NULL));
    memset(&d, 0, sizeof d);
    d.backends = &be; d.num_backends = 1; d.magnification = a->mag; d.block_frames = a->block;
    CHECK(hst_esrrf_output_shape(&d, st.frames, st.rows, st.cols, &ntp, &rm, &cm));
    if (!(out[0] = (float *)malloc((size_t)ntp * rm * cm * sizeof(float)))) { fprintf(stderr, "out of memory\n"); exit(1); }
    t0 = now_s();
    CHECK(hst_esrrf_run(&d, st.data, HST_ESRRF_U16, st.frames, st.rows, st.cols, out, &rep));
    rate = (double)st.frames / (now_s() - t0);
    printf("  in memory   the call's report: blocks of %llu frames, path %s (fused %llu, chained %llu frames); "
           "%.2f s: set-up %.2f, streams %.2f, finishing %.2f, teardown %.2f\n",
           (unsigned long long)rep.block_frames, rep.path == HST_ESRRF_PATH_FUSED ? "fused" : "chained",
           (unsigned long long)rep.frames_by_path[0], (unsigned long long)rep.frames_by_path[1], rep.seconds,
           rep.setup_seconds, rep.stream_seconds, rep.finish_seconds, rep.teardown_seconds);
    free(out[0]);
    io_stack_free(&st);
    CHECK(hst_backend_destroy(be));
    return rate;
}

int main(int argc, char **argv)
{
    args a;
    char in[4200];
    struct statvfs vfs;
    uint64_t frames, bytes;
    double t0, write_s, disk, mem;
    prog_run cold, warm;
    disk_watch watch;
    unsigned p;
    parse(argc, argv, &a);
    frames = (uint64_t)(a.gib * (double)((uint64_t)1 << 30) / ((double)a.side * a.side * 2));
    if (frames < 2) frames = 2;
    bytes = frames * a.side * a.side * 2;
    snprintf(in, sizeof in, "%s/esrrf_disk_bench_stack.tif", a.dir);
    if (statvfs(a.dir, &vfs) == 0 && (double)vfs.f_bavail * vfs.f_frsize < 1.1 * (double)bytes) {
        fprintf(stderr, "%s has %.1f GiB free; the stack needs %.1f GiB: choose --dir or a smaller --gib\n", a.dir,
                (double)vfs.f_bavail * vfs.f_frsize / (1u << 30), (double)bytes / (1u << 30));
        return 1;
    }
    printf("esrrf_disk_bench: %llu frames of %ux%u u16 (%.2f GiB BigTIFF in %s), mag %u, block %llu%s, %s\n",
           (unsigned long long)frames, a.side, a.side, (double)bytes / (1u << 30), a.dir, a.mag,
           (unsigned long long)a.block, a.block ? "" : " (automatic)", a.esrrf[0]);
    t0 = now_s();
    write_stack(in, frames, a.side);
    write_s = now_s() - t0;
    printf("  write       %.0f MB/s (%.1f s)\n", (double)bytes / write_s / 1e6, write_s);
    /* Each program once on the first WARM_UP_FRAMES frames, untimed: its device programs built
       and its path choice measured and stored, as after a first use, so that no cold run times
       a compiler (the first cold run of a fresh machine did: 0.87x the next ones). */
    for (p = 0; p < a.nprog; p++) (void)run_program(&a, a.esrrf[p], in, WARM_UP_FRAMES);
    p = a.nprog;
    do {   /* the first program's last: its figure is the one kept */
        p--;
        evict(in);
        disk_watch_start(&watch);
        cold = run_program(&a, a.esrrf[p], in, 0);
        printf("  cold        %8.1f frames/s  (%.1f s, from the disk; peak RSS %.0f MiB for a %.0f MiB stack)%s%s\n",
               (double)frames / cold.seconds, cold.seconds, (double)cold.rss_kib / 1024, (double)bytes / (1u << 20),
               a.nprog > 1 ? ": " : "", a.nprog > 1 ? a.esrrf[p] : "");
        disk_watch_report(&watch, "the cold run");
    } while (p > 0);
    mem = 0.0;
    warm.seconds = 0.0;
    if (bytes > physical_bytes()) {   /* the page cache cannot hold it: a second run is cold too */
        printf("  warm        not run: the stack is larger than memory (%.1f GiB); nor the in-memory call\n",
               (double)physical_bytes() / (1u << 30));
    } else {
        warm = run_program(&a, a.esrrf[0], in, 0);
        printf("  warm        %8.1f frames/s  (%.1f s, from the page cache; peak RSS %.0f MiB)\n",
               (double)frames / warm.seconds, warm.seconds, (double)warm.rss_kib / 1024);
        mem = in_memory_rate(&a, in);
    }
    if (mem > 0)
        printf("  in memory   %8.1f frames/s  (hst_esrrf_run on the stack in memory, reading not counted)\n", mem);
    evict(in);
    disk_watch_start(&watch);
    disk = read_rate(in);
    printf("  disk read   %8.1f frames/s  (%.0f MB/s sequential, after eviction)\n", disk / (a.side * a.side * 2.0),
           disk / 1e6);
    disk_watch_report(&watch, "the disk read");
    disk /= a.side * a.side * 2.0;   /* frames/s */
    if (mem > 0) {
        printf("  warm / in memory %.2f\n", (double)frames / warm.seconds / mem);
        printf("  cold / min(disk read, in memory) %.2f\n", (double)frames / cold.seconds / (mem < disk ? mem : disk));
    } else {   /* no in-memory rate: the cold run's bound may be the device, not the disk */
        printf("  cold / disk read %.2f (no in-memory rate to compare)\n", (double)frames / cold.seconds / disk);
    }
    unlink(in);
    return 0;
}
