/* esrrf.c — eSRRF super-resolution of a fluorescence time series: the command-line program over
   esrrf.h (the computation) and examples/image_io.h (the files).

       esrrf [options] input.tif output.tif

   Reads a TIFF stack (8-, 16-, 32-bit integer or 32/64-bit float samples, big- or little-endian,
   one page per frame, ImageJ hyperstacks included); 8- and 16-bit samples go to the device as
   they are (esrrf.h converts them there). Writes, per requested mode,
     output.tif          float32, one page per time point, pixel size scaled by 1/mag
                         (XResolution/YResolution multiplied by mag) — with several modes
                         output_avg.tif, output_var.tif, output_tac2.tif, all from one pass;
     output_preview.png  the widefield mean (left, upscaled) beside the eSRRF image of the first
                         mode (right), each contrast-stretched between its 0.1% and 99.9%
                         quantiles, labelled, with a scale bar from the input's pixel size.
   A file that does not hold what it promises (a page chain that ends early, short strips, fewer
   frames than its ImageJ header says) is an error, and so is a NaN or Inf pixel (esrrf.h names
   its frame, row and column), and so is an image of finite input that float32 cannot hold (VAR
   of values near 1e20: esrrf.h names the time point and statistic). Every file the run would
   write (each mode's, the preview) is checked before a frame is read: one that is the input or
   another output (the same file: through symlinks and hard links too) is refused, naming both.
   Outputs are written under temporary names in the output's directory and renamed at the end,
   so an error or a signal (HUP, INT, TERM, QUIT, PIPE: exit status 128 + the signal) never
   leaves a partial output or a temporary file behind; a file size limit (`ulimit -f`: SIGXFSZ is
   ignored) is a write error that names the file, as a full disk is.

   The math, its conventions (NanoPyx's) and the choice between the fused and the chained path
   (by measured speed; HST_FORCE=esrrf:fused or :chained forces one) are esrrf.h's: see its top
   comment and kernels.h's eSRRF section. The summary says which path ran and why.

   Options (defaults in brackets; eSRRF's are esrrf.h's HST_ESRRF_DEFAULT_*):
     --mag N                    magnification, 1..32 [5]
     --radius R                 radius in input pixels, 0 < R <= 20 [1.5]
     --sensitivity S            sensitivity, 0 < S <= 100 [1]
     --no-intensity-weighting   do not weight the RGC by the magnified frame
     --frames-per-timepoint T   frames per output image, 0 = all [0]; as NanoPyx, the last
                                image takes the remainder, and T above the frames is clamped
                                (each with a note)
     --mode LIST                temporal statistics, a comma-separated list of avg, var and
                                tac2, all computed in one pass [avg]
     --no-macro-pixel           skip the macro-pixel correction
     --channel C                ImageJ hyperstacks with several channels: the channel, from 1
     --device S                 device selector: auto, gpu, cpu, host, P:D or a name
                                substring [$HST_DEVICE, else auto] (see build/examples/devices);
                                auto takes a GPU or accelerator, else the host device (its C
                                twins beat an OpenCL CPU device 5x here; `cpu` selects that)
     --budget-mib M             device memory for the stream's ring, MiB [3/4 of the device]
     --block N                  frames per streamed block, 0 = automatic [0]
     --max-frames N             use only the first N frames, 0 = all [0]
     --fused, --chained         this path [the faster, measured]
     --no-preview               do not write the PNG preview
     --sweep                    NanoPyx's parameter sweep (esrrf.h's hst_esrrf_sweep, one pass
                                over the frames): every pair of --radii and --sensitivities
                                scored by QnR (RSP and FRC resolution, or decorrelation with
                                --decorr); writes output.tif at the best pair (AVG), the QnR
                                table output_qnr.csv (also in the summary) and the heat map
                                output_qnr.png; with --frames-per-timepoint, NanoPyx's n_frames
     --radii LIST               the sweep's radii, comma-separated, 1..8 of them [1,1.5]
     --sensitivities LIST       the sweep's sensitivities, 1..8 of them [1,2]
     --decorr                   score resolution by decorrelation analysis instead of FRC
     --quality                  add SQUIRREL's RSE and RSP (quality.h's error map of the output
                                against the widefield mean, both over all time points) and the
                                FRC resolution of the AVG images of odd and even frames (in
                                pixels, and in the TIFF's unit where it has one) to the summary;
                                writes the error map output_errormap.tif
     -q, --quiet                no progress bar and no summary
     -h, --help

   Exit status: 0 success, 1 an error while running (message on stderr), 2 bad usage or input,
   128 + N killed by signal N (HUP 129, INT 130, QUIT 131, PIPE 141, TERM 143).

   Over MPI ranks: mpirun -n K esrrf [options] input.tif output.tif — every rank reads the stack
   and computes its share of the magnified rows on its own device (--device, or HST_DEVICE set
   per rank), rank 0 writes the same bytes as one process would; a failure on any rank ends all
   of them with the same exit status. Started without a launcher, the program is one process.

   Build: cc -std=c99 -O2 -I. -Iexamples examples/esrrf.c -o esrrf -ltiff -lpng -lfftw3f -lOpenCL -lm -lpthread
   (for MPI ranks: mpicc -DHST_ESRRF_MPI ..., what `make examples` does where mpicc exists) */

#define _POSIX_C_SOURCE 200809L   /* mkstemp, fileno, sigaction, pthread_sigmask, isatty in strict C99 */
#define HST_IMPLEMENTATION
#define HST_FFT   /* quality.h's error map, FRC and decorrelation (--sweep, --quality) */
#include "esrrf.h"

#define IMAGE_IO_IMPLEMENTATION
#include "image_io.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "esrrf"
#define PROGRESS_AFTER_S 2.0           /* without a terminal: progress lines only after this */

static const char *const mode_names[HST_ESRRF_NUM_MODES] = { "avg", "var", "tac2" };
static const char *const mode_labels[HST_ESRRF_NUM_MODES] = { "eSRRF AVG", "eSRRF VAR", "eSRRF TAC2" };

typedef struct options {
    const char *input, *output, *device;
    unsigned mag, modes;
    double radius, sensitivity;
    int intensity_weighting, macro_pixel, chained, path_given, preview, quiet;
    uint64_t frames_per_tp, block, budget_mib, max_frames;
    unsigned channel;                  /* 0: not given */
    int sweep, quality, use_decorr;
    float radii[HST_ESRRF_SWEEP_MAX], sens[HST_ESRRF_SWEEP_MAX];
    unsigned nr, ns;                   /* 0: not given */
} options;

/* ------------------------------------------------------------------------------ messages */
static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, PROG ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The library's log: errors are kept and printed once with our message; warnings go out. */
typedef struct log_state { char last[1024]; } log_state;

static void logger(void *user, hst_log_level level, hst_log_item item, const char *msg)
{
    log_state *ls = (log_state *)user;
    (void)item;
    if (level == HST_LOG_ERROR)
        snprintf(ls->last, sizeof ls->last, "%s", msg);
    else if (level == HST_LOG_WARN)
        fprintf(stderr, PROG ": warning: %s\n", msg);
}

static double now_s(void) { return hst_time_s(); }

/* ------------------------------------------------------------------------------ options */
static void usage(FILE *f)
{
    fprintf(f,
        "usage: " PROG " [options] input.tif output.tif\n"
        "  --mag N (1..%d, %d)  --radius R (%g)  --sensitivity S (%g)  --no-intensity-weighting\n"
        "  --frames-per-timepoint T (0 = all)  --mode avg[,var][,tac2]  --no-macro-pixel\n"
        "  --channel C  --device S  --budget-mib M  --block N  --max-frames N  --fused | --chained\n"
        "  --no-preview  --sweep [--radii 1,1.5] [--sensitivities 1,2] [--decorr]  --quality  -q\n"
        "Writes output.tif (float32, one page per time point; with several modes output_<mode>.tif\n"
        "each) and output_preview.png.\n",
        HST_ESRRF_MAX_MAG, HST_ESRRF_DEFAULT_MAGNIFICATION, (double)HST_ESRRF_DEFAULT_RADIUS,
        (double)HST_ESRRF_DEFAULT_SENSITIVITY);
}

static int parse_u64(const char *name, const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+') goto bad;
    v = strtoull(s, &end, 10);
    if (errno || *end) goto bad;
    if (v > max) {
        fail("%s %s is too large (at most %llu)", name, s, (unsigned long long)max);
        return 0;
    }
    *out = v;
    return 1;
bad:
    fail("%s: '%s' is not a non-negative integer", name, s ? s : "");
    return 0;
}

static int parse_double(const char *name, const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!s || !*s) goto bad;
    *out = strtod(s, &end);
    if (errno || *end || !isfinite(*out)) goto bad;
    return 1;
bad:
    fail("%s: '%s' is not a finite number", name, s ? s : "");
    return 0;
}

/* "1,1.5,2": 1..HST_ESRRF_SWEEP_MAX numbers, each in (0, max]. */
static int parse_list(const char *name, const char *val, double max, float *out, unsigned *n)
{
    const char *p = val;
    *n = 0;
    for (;;) {
        char item[64];
        size_t k = strcspn(p, ",");
        double v;
        if (*n == HST_ESRRF_SWEEP_MAX) { fail("%s %s: at most %d values", name, val, HST_ESRRF_SWEEP_MAX); return 0; }
        snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item ? k : sizeof item - 1), p);
        if (!parse_double(name, item, &v)) return 0;
        if (!(v > 0.0) || v > max) { fail("%s %s: each value must be > 0 and <= %g", name, val, max); return 0; }
        out[(*n)++] = (float)v;
        if (!p[k]) return 1;
        p += k + 1;
    }
}

/* "avg,var,tac2" (any non-empty list, each once) -> a set of HST_ESRRF_* modes. */
static int parse_modes(const char *val, unsigned *modes)
{
    const char *p = val;
    *modes = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        unsigned m, bit = 0;
        for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
            if (n == strlen(mode_names[m]) && !strncmp(p, mode_names[m], n)) bit = 1u << m;
        if (!bit || (*modes & bit)) {
            fail("--mode %s: expected a list of avg, var and tac2, each once (e.g. avg,var)", val);
            return 0;
        }
        *modes |= bit;
        p += n;
        if (*p == ',' && *++p == '\0') break;   /* a trailing comma: caught below */
    }
    if (!*modes || (val[0] && val[strlen(val) - 1] == ',')) {
        fail("--mode %s: expected a list of avg, var and tac2, each once (e.g. avg,var)", val);
        return 0;
    }
    return 1;
}

/* The sweep's options together: its lists only with --sweep (NanoPyx's defaults otherwise),
   AVG only. Returns 0 or the exit status. */
static int sweep_args(options *o)
{
    if (!o->sweep && (o->nr || o->ns || o->use_decorr)) {
        fail("--radii, --sensitivities and --decorr belong to --sweep");
        return 2;
    }
    if (o->sweep && o->modes != HST_ESRRF_AVG) {
        fail("--sweep scores AVG images (NanoPyx's sweep): drop --mode");
        return 2;
    }
    if (!o->nr) { o->radii[0] = 1.0f; o->radii[1] = 1.5f; o->nr = 2; }
    if (!o->ns) { o->sens[0] = 1.0f; o->sens[1] = 2.0f; o->ns = 2; }
    return 0;
}

/* Returns 0 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    int i, npos = 0;
    uint64_t v;
    memset(o, 0, sizeof *o);
    o->mag = HST_ESRRF_DEFAULT_MAGNIFICATION;
    o->radius = HST_ESRRF_DEFAULT_RADIUS;
    o->sensitivity = HST_ESRRF_DEFAULT_SENSITIVITY;
    o->intensity_weighting = 1; o->macro_pixel = 1; o->preview = 1;
    o->modes = HST_ESRRF_AVG;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[64];
        const char *eq;
        if (a[0] != '-' || a[1] == '\0') {
            if (npos == 0) o->input = a;
            else if (npos == 1) o->output = a;
            else { fail("unexpected argument '%s' (give one input and one output)", a); usage(stderr); return 2; }
            npos++;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return -1; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--no-intensity-weighting")) { o->intensity_weighting = 0; continue; }
        if (!strcmp(a, "--no-macro-pixel")) { o->macro_pixel = 0; continue; }
        if (!strcmp(a, "--chained")) { o->chained = 1; o->path_given = 1; continue; }
        if (!strcmp(a, "--fused")) { o->chained = 0; o->path_given = 1; continue; }
        if (!strcmp(a, "--no-preview")) { o->preview = 0; continue; }
        if (!strcmp(a, "--sweep")) { o->sweep = 1; continue; }
        if (!strcmp(a, "--quality")) { o->quality = 1; continue; }
        if (!strcmp(a, "--decorr")) { o->use_decorr = 1; continue; }
        /* options with a value: --name value or --name=value */
        eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else { fail("%s needs a value", name); usage(stderr); return 2; }
        if (!strcmp(name, "--mag")) {
            if (!parse_u64(name, val, UINT64_MAX, &v)) return 2;
            if (v < 1 || v > HST_ESRRF_MAX_MAG) { fail("--mag %s: the magnification must be 1..%d", val, HST_ESRRF_MAX_MAG); return 2; }
            o->mag = (unsigned)v;
        } else if (!strcmp(name, "--radius")) {
            if (!parse_double(name, val, &o->radius)) return 2;
            if (!(o->radius > 0.0) || o->radius > HST_ESRRF_MAX_RADIUS) {
                fail("--radius %s: the radius must be > 0 and <= %g input pixels", val, (double)HST_ESRRF_MAX_RADIUS);
                return 2;
            }
        } else if (!strcmp(name, "--sensitivity")) {
            if (!parse_double(name, val, &o->sensitivity)) return 2;
            if (!(o->sensitivity > 0.0) || o->sensitivity > HST_ESRRF_MAX_SENSITIVITY) {
                fail("--sensitivity %s: the sensitivity must be > 0 and <= %g", val, (double)HST_ESRRF_MAX_SENSITIVITY);
                return 2;
            }
        } else if (!strcmp(name, "--frames-per-timepoint")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->frames_per_tp)) return 2;
        } else if (!strcmp(name, "--mode")) {
            if (!parse_modes(val, &o->modes)) return 2;
        } else if (!strcmp(name, "--channel")) {
            if (!parse_u64(name, val, 65535, &v)) return 2;
            if (v < 1) { fail("--channel counts from 1"); return 2; }
            o->channel = (unsigned)v;
        } else if (!strcmp(name, "--device")) {
            o->device = val;
        } else if (!strcmp(name, "--budget-mib")) {
            if (!parse_u64(name, val, (uint64_t)1 << 40, &o->budget_mib)) return 2;
        } else if (!strcmp(name, "--max-frames")) {
            if (!parse_u64(name, val, UINT64_MAX, &o->max_frames)) return 2;
        } else if (!strcmp(name, "--block")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->block)) return 2;
        } else if (!strcmp(name, "--radii")) {
            if (!parse_list(name, val, HST_ESRRF_MAX_RADIUS, o->radii, &o->nr)) return 2;
        } else if (!strcmp(name, "--sensitivities")) {
            if (!parse_list(name, val, HST_ESRRF_MAX_SENSITIVITY, o->sens, &o->ns)) return 2;
        } else {
            fail("unknown option '%s'", name);
            usage(stderr);
            return 2;
        }
    }
    if (npos != 2) {
        fail(npos == 0 ? "no input and output given" : "no output given");
        usage(stderr);
        return 2;
    }
    return sweep_args(o);
}

/* ------------------------------------------------------------------------------ signals */
/* The signals that end the run: each cancels the computation (the progress callback), the
   temporary files are removed, and the exit status is 128 + the signal. SIGXFSZ (past a file
   size limit) is ignored: the write then fails with EFBIG, and that error names the file and
   removes the temporary files as any write error does (killed by it, the program would leave
   them behind).

   An OpenCL driver may take these signals when it is loaded: PoCL's libLLVM, loaded when the
   platforms are listed (--device host included), installs its own handlers over ours, and for
   SIGQUIT (as for SIGXFSZ) its handler puts ours back and returns without raising the signal
   again, so the first QUIT of a run was lost (the run went on and wrote its outputs). So the
   device is opened with the end signals blocked, ours are installed again, and then they are
   unblocked: a signal sent meanwhile reaches our handler. (LLVM installs its handlers once per
   process: not again when it later compiles the kernels. The threads the drivers start
   meanwhile keep the signals blocked: they go to the threads of the run, ours.) */
static const int end_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM };
static const char *const end_signal_names[] = { "SIGHUP", "SIGINT", "SIGQUIT", "SIGPIPE", "SIGTERM" };
#define NUM_END_SIGNALS (sizeof end_signals / sizeof end_signals[0])

static volatile sig_atomic_t interrupted;   /* the first signal caught, 0: none */

static void on_signal(int sig)
{
    if (!interrupted) interrupted = sig;
}

/* Our handlers for the end signals, SIGXFSZ ignored: at the start and after the device opens. */
static void catch_signals(void)
{
    struct sigaction sa;
    size_t k;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (k = 0; k < NUM_END_SIGNALS; k++) sigaction(end_signals[k], &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);
}

/* Blocks the end signals in the calling thread (and the threads it starts meanwhile); *old
   receives the mask to restore. */
static void hold_signals(sigset_t *old)
{
    sigset_t set;
    size_t k;
    sigemptyset(&set);
    for (k = 0; k < NUM_END_SIGNALS; k++) sigaddset(&set, end_signals[k]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Our handlers again (a driver loaded meanwhile may have replaced them), then the mask of
   before hold_signals: a signal held meanwhile is delivered to our handler now. */
static void release_signals(const sigset_t *old)
{
    catch_signals();
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* After a signal: the message and the exit status. */
static int interrupted_status(void)
{
    const char *name = "a signal";
    size_t k;
    for (k = 0; k < NUM_END_SIGNALS; k++)
        if (end_signals[k] == interrupted) name = end_signal_names[k];
    fail("interrupted by %s: no output written", name);
    return 128 + (int)interrupted;
}

/* ------------------------------------------------------------------------------ progress */
typedef struct progress {
    int tty, quiet, drawn;
    double t0, last;
    unsigned last_tenth;
} progress;

/* A bar on a terminal; else, once the run is long, a line every 10%. Cancels on Ctrl-C. */
static int on_progress(uint64_t done, uint64_t total, void *user)
{
    progress *p = (progress *)user;
    double t, rate;
    unsigned tenth;
    t = now_s() - p->t0;
    rate = t > 0 ? (double)done / t : 0.0;
    tenth = (unsigned)(10 * done / (total ? total : 1));
    if (p->quiet || interrupted) return interrupted != 0;
    if (p->tty) {
        if (t - p->last >= 0.1 || done == total) {
            char bar[31];
            unsigned k, fill = (unsigned)(30 * done / (total ? total : 1));
            for (k = 0; k < 30; k++) bar[k] = k < fill ? '#' : '.';
            bar[30] = '\0';
            fprintf(stderr, "\r[%s] %3u%%  %llu/%llu frames  %.1f frames/s  ", bar,
                    (unsigned)(100 * done / (total ? total : 1)), (unsigned long long)done,
                    (unsigned long long)total, rate);
            if (rate > 0 && done < total) fprintf(stderr, "%.0f s left ", (double)(total - done) / rate);
            fflush(stderr);
            p->last = t;
            p->drawn = 1;
        }
    } else if (t >= PROGRESS_AFTER_S && tenth > p->last_tenth) {
        fprintf(stderr, PROG ": %3u%%  %llu/%llu frames  %.1f frames/s\n",
                (unsigned)(100 * done / (total ? total : 1)), (unsigned long long)done,
                (unsigned long long)total, rate);
        p->last_tenth = tenth;
    }
    return 0;
}

static void progress_end(progress *p)
{
    if (p->drawn) fputc('\n', stderr);
    p->drawn = 0;
}

/* ------------------------------------------------------------------------------ outputs */
/* output.tif -> output_<mode>.tif when several modes are written. */
static void mode_name(const char *out, unsigned m, int several, char *buf, size_t bytes)
{
    size_t n = strlen(out);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!several) { snprintf(buf, bytes, "%s", out); return; }
    if (dot && (!slash || dot > slash + 1) && dot != out) n = (size_t)(dot - out);
    snprintf(buf, bytes, "%.*s_%s%s", (int)n, out, mode_names[m], out + n);
}

/* output.tif -> output<suffix> (output_preview.png, output_qnr.csv, ...) */
static void sibling_name(const char *out, const char *suffix, char *buf, size_t bytes)
{
    size_t n = strlen(out);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash) && dot != out && (!slash || dot > slash + 1)) n = (size_t)(dot - out);
    snprintf(buf, bytes, "%.*s%s", (int)n, out, suffix);
}

/* The outputs beside the images and the preview: the sweep's table and heat map, the error map. */
enum { EX_CSV, EX_HEAT, EX_EMAP, NUM_EXTRA };
static const char *const extra_suffix[NUM_EXTRA] = { "_qnr.csv", "_qnr.png", "_errormap.tif" };

/* The quality report of --quality. */
typedef struct quality {
    double rse, rsp, frc_px;           /* frc_px: FIRE, magnified pixels (0: no crossing) */
    float *map;                        /* the error map, rows*mag x cols*mag */
} quality;

/* Everything main owns, released in one place. */
typedef struct job {
    io_stack st;
    io_outfile tif[HST_ESRRF_NUM_MODES], png, extra[NUM_EXTRA];
    char tif_path[HST_ESRRF_NUM_MODES][4200], png_path[4200], extra_path[NUM_EXTRA][4200];
    float *out[HST_ESRRF_NUM_MODES], *mean;
    hst_esrrf_sweep_result sweep;
    quality q;
    hst_backend *be;
    log_state ls;
} job;

/* 0 when the backend refused to go (something still holds it: its log names what). */
static int job_free(job *j, int discard)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        if (discard) io_outfile_discard(&j->tif[m]);
        free(j->out[m]);
    }
    if (discard) io_outfile_discard(&j->png);
    for (m = 0; m < NUM_EXTRA && discard; m++) io_outfile_discard(&j->extra[m]);
    free(j->mean);
    free(j->q.map);
    io_stack_free(&j->st);
    return hst_backend_destroy(j->be) == HST_SUCCESS;
}

/* The widefield mean of frames [0, n), for the preview. */
static float *widefield_mean(const io_stack *st, uint64_t n)
{
    size_t px = (size_t)st->rows * st->cols, i;
    double *sum = (double *)calloc(px ? px : 1, sizeof(double));
    float *mean = (float *)malloc((px ? px : 1) * sizeof(float));
    uint64_t f;
    if (!sum || !mean) { free(sum); free(mean); return NULL; }
    for (f = 0; f < n; f++)
        for (i = 0; i < px; i++) {
            size_t k = (size_t)f * px + i;
            sum[i] += st->dtype == IO_U8 ? ((const uint8_t *)st->data)[k]
                    : st->dtype == IO_U16 ? ((const uint16_t *)st->data)[k]
                    : st->dtype == IO_I16 ? ((const int16_t *)st->data)[k] : ((const float *)st->data)[k];
        }
    for (i = 0; i < px; i++) mean[i] = (float)(sum[i] / (double)n);
    free(sum);
    return mean;
}

/* The mean over time points of one mode's images (the preview shows it, the error map scores
   it) into dst, which may be img itself (its time point 0). */
static void mean_over_timepoints(const float *img, size_t pixels, uint64_t ntp, float *dst)
{
    size_t i;
    uint64_t tp;
    for (i = 0; i < pixels; i++) {
        double s = 0;
        for (tp = 0; tp < ntp; tp++) s += img[tp * pixels + i];
        dst[i] = (float)(s / (double)ntp);
    }
}

/* ------------------------------------------------------------------------------ main */
static const char *device_kind(const hst_device_info *d)
{
    switch (d->type) {
    case HST_DEVICE_CPU: return "OpenCL CPU";
    case HST_DEVICE_GPU: return "OpenCL GPU";
    case HST_DEVICE_ACCELERATOR: return "OpenCL accelerator";
    default: return "OpenCL";
    }
}

static const hst_esrrf_dtype dtype_of[5] = { (hst_esrrf_dtype)0, HST_ESRRF_U8, HST_ESRRF_U16,
                                             HST_ESRRF_I16, HST_ESRRF_F32 };

/* The path line of the summary: which path ran and why. */
static void print_path(const hst_esrrf_report *rep)
{
    static const char *const why[] = { "", "--fused / --chained", "forced by HST_FORCE",
                                       "chosen by measured speed",
                                       "the first choice until timings exist; a run's first block is a warm-up" };
    unsigned i;
    printf("  path      %s (%s)", rep->path == HST_ESRRF_PATH_CHAINED ? "chained" : "fused", why[rep->decided_by]);
    for (i = 0; i < 2 && rep->decided_by != HST_ESRRF_BY_DESC; i++) {
        printf("%s %s ", i ? "," : ":", i ? "chained" : "fused");
        if (isnan(rep->seconds_per_frame[i])) printf("not measured yet");
        else printf("%.3f ms per frame%s", 1e3 * rep->seconds_per_frame[i],
                    rep->estimate_from[i] == HST_CHOICE_DEFAULT ? " (shipped estimate)"
                    : rep->estimate_from[i] == HST_CHOICE_NEAREST ? " (another size's)" : "");
    }
    printf("\n            (blocks of %llu frames; %llu frames fused, %llu chained)\n",
           (unsigned long long)rep->block_frames, (unsigned long long)rep->frames_by_path[0],
           (unsigned long long)rep->frames_by_path[1]);
}

/* Whether the run writes extra output k. */
static int extra_wanted(const options *o, unsigned k)
{
    return k == EX_EMAP ? o->quality : o->sweep;
}

/* The names of every file the run writes: paths[0 .. n) (each mode's TIFF, the preview, then
   the extras). */
#define MAX_OUTPUTS (HST_ESRRF_NUM_MODES + 1 + NUM_EXTRA)
static unsigned output_paths(const options *o, job *j, const char **paths)
{
    unsigned m, k, n = 0, several = (o->modes & (o->modes - 1)) != 0;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (o->modes & (1u << m)) {
            mode_name(o->output, m, (int)several, j->tif_path[m], sizeof j->tif_path[m]);
            paths[n++] = j->tif_path[m];
        }
    sibling_name(o->output, "_preview.png", j->png_path, sizeof j->png_path);
    if (o->preview) paths[n++] = j->png_path;
    for (k = 0; k < NUM_EXTRA; k++) {
        sibling_name(o->output, extra_suffix[k], j->extra_path[k], sizeof j->extra_path[k]);
        if (extra_wanted(o, k)) paths[n++] = j->extra_path[k];
    }
    return n;
}

/* Which file a path names: an existing file by its device and inode (symlinks followed, so
   links and hard links of one file are one file); a file not there yet by its directory's device
   and inode and its name (it can only be another output's name). known 0: the directory cannot
   be read either (opening the output will say why). */
typedef struct file_id { int exists, known; dev_t dev; ino_t ino; const char *name; } file_id;

static file_id identify(const char *path)
{
    file_id id;
    struct stat sb;
    char dir[4200];
    const char *slash = strrchr(path, '/');
    memset(&id, 0, sizeof id);
    if (stat(path, &sb) == 0) {
        id.exists = id.known = 1;
    } else {
        if (!slash) snprintf(dir, sizeof dir, ".");
        else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        id.name = slash ? slash + 1 : path;
        id.known = stat(dir, &sb) == 0;
    }
    id.dev = sb.st_dev;
    id.ino = sb.st_ino;
    return id;
}

static int same_file(const file_id *a, const file_id *b)
{
    if (!a->known || !b->known || a->exists != b->exists || a->dev != b->dev || a->ino != b->ino) return 0;
    return a->exists || !strcmp(a->name, b->name);
}

/* No output may be the input or another output: refused before a frame is read. */
static int check_collisions(const options *o, job *j)
{
    const char *paths[MAX_OUTPUTS];
    file_id in = identify(o->input), ids[MAX_OUTPUTS];
    unsigned n = output_paths(o, j, paths), k, i;
    for (k = 0; k < n; k++) {
        ids[k] = identify(paths[k]);
        if (same_file(&ids[k], &in)) {
            fail("the output %s is the input %s (the same file): refused; choose another output name", paths[k],
                 o->input);
            return 0;
        }
        for (i = 0; i < k; i++)
            if (same_file(&ids[k], &ids[i])) {
                fail("the outputs %s and %s are the same file: refused; choose another output name", paths[i],
                     paths[k]);
                return 0;
            }
    }
    return 1;
}

/* Opens every output under a temporary name: an unwritable path fails before any work. */
static int open_outputs(const options *o, job *j)
{
    const char *paths[MAX_OUTPUTS];
    char err[1024];
    unsigned m, k = 0;
    (void)output_paths(o, j, paths);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if ((o->modes & (1u << m)) && !io_outfile_open(&j->tif[m], paths[k++], err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    if (o->preview && !io_outfile_open(&j->png, paths[k++], err, sizeof err)) { fail("%s", err); return 0; }
    for (m = 0; m < NUM_EXTRA; m++)
        if (extra_wanted(o, m) && !io_outfile_open(&j->extra[m], paths[k++], err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    return 1;
}

/* The magnified pixel's size in the input's unit; 0 when the TIFF gives no length. */
static double sr_pixel_size(const io_stack *st, unsigned mag)
{
    return st->pixel_size > 0 && st->unit[0] ? st->pixel_size / mag : 0.0;
}

/* The sweep's QnR table as CSV: a row per pair, sensitivity major (NanoPyx's map order). */
static void sweep_csv(const options *o, const job *j, char *buf, size_t bytes)
{
    const hst_esrrf_sweep_result *w = &j->sweep;
    double ps = sr_pixel_size(&j->st, o->mag);
    size_t n;
    unsigned l, k;
    n = (size_t)snprintf(buf, bytes, "sensitivity,radius,qnr,rsp,%s_px%s%s,best\n",
                         o->use_decorr ? "decorr_resolution" : "frc_resolution", ps > 0 ? ",resolution_" : "",
                         ps > 0 ? j->st.unit : "");
    for (l = 0; l < o->ns && n < bytes; l++)
        for (k = 0; k < o->nr && n < bytes; k++) {
            n += (size_t)snprintf(buf + n, bytes - n, "%g,%g,%.6f,%.6f,%.4f", (double)o->sens[l], (double)o->radii[k],
                                  w->qnr[l][k], w->rsp[l][k], w->resolution[l][k]);
            if (ps > 0 && n < bytes) n += (size_t)snprintf(buf + n, bytes - n, ",%.6g", w->resolution[l][k] * ps);
            if (n < bytes)
                n += (size_t)snprintf(buf + n, bytes - n, ",%d\n", l == w->best_sensitivity && k == w->best_radius);
        }
}

/* The extras into their temporary files: the sweep's CSV and heat map, the error map. */
static int write_extras(const options *o, job *j, uint32_t rm, uint32_t cm)
{
    char err[1024], text[16384], labels[2][HST_ESRRF_SWEEP_MAX][24], title[160];
    const char *rl[HST_ESRRF_SWEEP_MAX], *cl[HST_ESRRF_SWEEP_MAX];
    double q[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX];
    unsigned l, k;
    if (o->sweep) {
        sweep_csv(o, j, text, sizeof text);
        if (!io_write_text(&j->extra[EX_CSV], text, err, sizeof err)) { fail("%s", err); return 0; }
        for (l = 0; l < o->ns; l++) { snprintf(labels[0][l], 24, "%g", (double)o->sens[l]); rl[l] = labels[0][l]; }
        for (k = 0; k < o->nr; k++) { snprintf(labels[1][k], 24, "%g", (double)o->radii[k]); cl[k] = labels[1][k]; }
        for (l = 0; l < o->ns; l++)
            for (k = 0; k < o->nr; k++) q[l * o->nr + k] = j->sweep.qnr[l][k];
        snprintf(title, sizeof title, "eSRRF QnR (mag %u, %s); best: radius %g, sensitivity %g", o->mag,
                 o->use_decorr ? "decorrelation" : "FRC", (double)o->radii[j->sweep.best_radius],
                 (double)o->sens[j->sweep.best_sensitivity]);
        if (!io_write_png_heatmap(&j->extra[EX_HEAT], q, o->ns, o->nr, rl, cl, "sensitivity", "radius", title, 2,
                                  j->sweep.best_sensitivity, j->sweep.best_radius, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    if (o->quality) {
        snprintf(text, sizeof text, "halostream " HST_VERSION_STRING " esrrf error map (SQUIRREL: |fitted - widefield|, "
                 "RSE %g, RSP %g)", j->q.rse, j->q.rsp);
        if (!io_write_tiff(&j->extra[EX_EMAP], &j->st, o->mag, j->q.map, 1, rm, cm, text, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    return 1;
}

/* The TIFFs and the preview, then every file renamed into place. */
static int write_outputs(const options *o, job *j, uint64_t ntp, uint32_t rm, uint32_t cm)
{
    char software[200], err[1024];
    unsigned m, first = 3;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        if (!(o->modes & (1u << m))) continue;
        if (first == 3) first = m;
        snprintf(software, sizeof software, "halostream " HST_VERSION_STRING " esrrf (mag %u, radius %g, "
                 "sensitivity %g, %s, %s%s)", o->mag, o->radius, o->sensitivity, mode_names[m],
                 o->intensity_weighting ? "intensity-weighted" : "unweighted", o->macro_pixel ? ", macro-pixel corrected" : "");
        if (!io_write_tiff(&j->tif[m], &j->st, o->mag, j->out[m], ntp, rm, cm, software, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    if (o->preview) {
        mean_over_timepoints(j->out[first], (size_t)rm * cm, ntp, j->out[first]);   /* after the TIFF: free now */
        if (!io_write_png_preview(&j->png, j->mean, j->st.rows, j->st.cols, j->out[first], o->mag,
                                  j->st.pixel_size, j->st.unit, "widefield mean", mode_labels[first], err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    if (!write_extras(o, j, rm, cm) || interrupted) return 0;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if ((o->modes & (1u << m)) && !io_outfile_commit(&j->tif[m], err, sizeof err)) { fail("%s", err); return 0; }
    if (o->preview && !io_outfile_commit(&j->png, err, sizeof err)) { fail("%s", err); return 0; }
    for (m = 0; m < NUM_EXTRA; m++)
        if (extra_wanted(o, m) && !io_outfile_commit(&j->extra[m], err, sizeof err)) { fail("%s", err); return 0; }
    return 1;
}

/* ------------------------------------------------------------------------------ MPI ranks */
/* Under mpirun (built with HST_ESRRF_MPI, i.e. with mpicc) every rank reads the stack and
   computes its rows of the images (esrrf.h's "MPI ranks"); rank 0 writes. Started without a
   launcher the program never touches MPI: it runs as one process. */
typedef struct ranks {
    int rank, size, on;
#ifdef HST_ESRRF_MPI
    MPI_Comm comm;
#endif
} ranks;

static void ranks_init(ranks *rk, int *argc, char ***argv)
{
    rk->rank = 0; rk->size = 1; rk->on = 0;
#ifdef HST_ESRRF_MPI
    /* the launchers' environment (OpenMPI, PMIx, PMI, MPICH's Hydra) */
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE")) {
        MPI_Init(argc, argv);
        rk->comm = MPI_COMM_WORLD;
        MPI_Comm_rank(rk->comm, &rk->rank);
        MPI_Comm_size(rk->comm, &rk->size);
        rk->on = 1;
    }
#else
    (void)argc; (void)argv;
#endif
}

/* Every rank's exit status becomes the worst one, so all ranks stop together. */
static int ranks_agree(const ranks *rk, int status)
{
#ifdef HST_ESRRF_MPI
    int worst = status;
    if (rk->on) MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, rk->comm);
    return worst;
#else
    (void)rk;
    return status;
#endif
}

static int ranks_finish(ranks *rk, int status)
{
    status = ranks_agree(rk, status);
#ifdef HST_ESRRF_MPI
    if (rk->on) MPI_Finalize();
#endif
    return status;
}

/* ------------------------------------------------------------------------------ main */
/* What main holds between its steps. */
typedef struct run {
    options o;
    job j;
    hst_esrrf_desc d;
    hst_esrrf_report rep;
    progress pg;
    ranks *rk;
    int auto_host, notes_said;
    uint64_t ntp;
    uint32_t rm, cm;
    double t_start, t_read, t_write;
} run;

/* The desc from the options. */
static void make_desc(run *u)
{
    const options *o = &u->o;
    hst_esrrf_desc *d = &u->d;
    memset(d, 0, sizeof *d);
    d->magnification = o->mag;
    d->radius = (float)o->radius;
    d->sensitivity = (float)o->sensitivity;
    d->no_intensity_weighting = !o->intensity_weighting;
    d->no_macro_pixel_correction = !o->macro_pixel;
    d->frames_per_timepoint = o->frames_per_tp;
    d->modes = o->modes;
    d->path = !o->path_given ? HST_ESRRF_PATH_AUTO : o->chained ? HST_ESRRF_PATH_CHAINED : HST_ESRRF_PATH_FUSED;
    d->backends = &u->j.be;
    d->num_backends = 1;
    d->budget_bytes = o->budget_mib << 20;
    d->block_frames = o->block;
    memset(&u->pg, 0, sizeof u->pg);
    u->pg.tty = isatty(fileno(stderr));
    u->pg.quiet = o->quiet || u->rk->rank != 0;
    d->progress = on_progress;
    d->progress_user = &u->pg;
#ifdef HST_ESRRF_MPI
    if (u->rk->size > 1) d->mpi_comm = &u->rk->comm;
#endif
}

/* Everything before eSRRF: the files (rank 0 opens the outputs), the stack, the device, the
   desc, the images. Returns an exit status (0: go on). */
static int prepare(run *u)
{
    options *o = &u->o;
    job *j = &u->j;
    char err[1024];
    hst_backend_desc bd;
    struct stat in_sb;
    double t0;
    unsigned m;
    int writer = u->rk->rank == 0;
    hst_result r;
    sigset_t mask;

    if (stat(o->input, &in_sb) != 0) { fail("%s: %s", o->input, strerror(errno)); return 2; }
    if ((o->sweep || o->quality) && u->rk->size > 1) {
        fail("--sweep and --quality run in one process (not over MPI ranks)");
        return 2;
    }
    if (writer && (!check_collisions(o, j) || !open_outputs(o, j))) return 2;

    /* Read (the samples as they are), then the device. */
    t0 = now_s();
    if (!io_read_stack(o->input, o->channel, o->max_frames, &j->st, err, sizeof err)) { fail("%s", err); return 2; }
    u->t_read = now_s() - t0;
    if (interrupted) return interrupted_status();   /* a signal while the stack was read */
    memset(&bd, 0, sizeof bd);
    bd.device = o->device;
    bd.logger = logger;
    bd.log_user = &j->ls;
    bd.log_level = HST_LOG_WARN;
    hold_signals(&mask);   /* the drivers loaded now may install handlers of their own */
    r = hst_esrrf_backend_create(&bd, &j->be, &u->auto_host);
    release_signals(&mask);
    if (r != HST_SUCCESS) {
        fail("no device for '%s': %s%s%s", o->device ? o->device : "auto", hst_result_string(r),
             j->ls.last[0] ? ": " : "", j->ls.last);
        return r == HST_ERROR_NO_DEVICE ? 2 : 1;
    }
    make_desc(u);

    /* The shape (the library checks the arguments and names what is wrong), the outputs. */
    if (hst_esrrf_output_shape(&u->d, j->st.frames, j->st.rows, j->st.cols, &u->ntp, &u->rm, &u->cm) != HST_SUCCESS) {
        fail("%s: %s", o->input, j->ls.last);
        return 2;
    }
    for (m = 0; writer && !o->sweep && m < HST_ESRRF_NUM_MODES; m++)   /* the sweep makes its own */
        if ((o->modes & (1u << m)) && !(j->out[m] = (float *)malloc((size_t)u->ntp * u->rm * u->cm * sizeof(float)))) {
            fail("out of host memory for the %s images", mode_names[m]);
            return 1;
        }
    if (writer && o->preview && !(j->mean = widefield_mean(&j->st, j->st.frames))) {
        fail("out of host memory");
        return 1;
    }
    return interrupted ? interrupted_status() : 0;   /* a signal since the stack was read */
}

/* After a computation: a signal's or a failure's message and exit status, else the time point
   notes; 0. */
static int finished(run *u, hst_result r, const char *what)
{
    job *j = &u->j;
    uint64_t T = u->o.frames_per_tp, n = j->st.frames;
    if (interrupted) return interrupted_status();
    if (r != HST_SUCCESS) {
        fail("%s on %s failed: %s%s%s", what, hst_backend_device(j->be)->name, hst_result_string(r),
             j->ls.last[0] ? ": " : "", j->ls.last);
        if (r == HST_ERROR_OUT_OF_DEVICE_MEMORY)
            fail("hint: raise --budget-mib, use the fused path, or a smaller --mag");
        return r == HST_ERROR_NON_FINITE ? 2 : 1;
    }
    if (u->o.quiet || u->rk->rank != 0 || u->notes_said++) return 0;
    if (T > n)
        fprintf(stderr, PROG ": note: --frames-per-timepoint %llu is more than the %llu frames: clamped to %llu "
                "(one time point, as NanoPyx)\n", (unsigned long long)T, (unsigned long long)n, (unsigned long long)n);
    else if (T && n % T)
        fprintf(stderr, PROG ": note: the last time point has %llu frame(s), the others %llu (as NanoPyx)\n",
                (unsigned long long)(n % T), (unsigned long long)T);
    return 0;
}

/* eSRRF, every mode from one pass (collective over the ranks). Returns an exit status. */
static int compute(run *u)
{
    job *j = &u->j;
    hst_result r;
    u->pg.t0 = now_s();
    r = hst_esrrf_run(&u->d, j->st.data, dtype_of[j->st.dtype], j->st.frames, j->st.rows, j->st.cols, j->out, &u->rep);
    progress_end(&u->pg);
    return finished(u, r, "eSRRF");
}

/* The sweep (--sweep): every pair's image kept until the best is known; the best becomes the
   output. Returns an exit status. */
static int compute_sweep(run *u)
{
    job *j = &u->j;
    const options *o = &u->o;
    hst_esrrf_sweep_desc sw;
    float *images[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX];
    unsigned p, np = o->nr * o->ns, best;
    size_t bytes = (size_t)u->ntp * u->rm * u->cm * sizeof(float);
    hst_result r = HST_SUCCESS;
    memset(&sw, 0, sizeof sw);
    sw.radii = o->radii; sw.num_radii = o->nr;
    sw.sensitivities = o->sens; sw.num_sensitivities = o->ns;
    sw.use_decorr = o->use_decorr;
    for (p = 0; p < np; p++)
        if (!(images[p] = (float *)malloc(bytes))) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    u->pg.t0 = now_s();
    if (r == HST_SUCCESS)
        r = hst_esrrf_sweep(&u->d, &sw, j->st.data, dtype_of[j->st.dtype], j->st.frames, j->st.rows, j->st.cols,
                            images, &j->sweep);
    progress_end(&u->pg);
    best = j->sweep.best_sensitivity * o->nr + j->sweep.best_radius;
    for (p = 0; p < np; p++)
        if (p != best || r != HST_SUCCESS) free(images[p]);
    if (r == HST_SUCCESS) {   /* the output is the best pair's image: its settings are the run's */
        j->out[0] = images[best];
        u->o.radius = o->radii[j->sweep.best_radius];
        u->o.sensitivity = o->sens[j->sweep.best_sensitivity];
    }
    u->rep.frames = j->st.frames;
    u->rep.seconds = j->sweep.seconds;
    return finished(u, r, "the sweep");
}

/* --quality: the error map of the output (its first mode, over all time points) against the
   widefield mean, and the FRC resolution of the AVG images of odd and even frames (the sweep's
   at its best pair; else a sweep of the run's one pair). Returns an exit status. */
static int compute_quality(run *u)
{
    job *j = &u->j;
    const options *o = &u->o;
    size_t P = (size_t)u->rm * u->cm;
    unsigned first = 0;
    float *img = NULL, *wf = widefield_mean(&j->st, j->st.frames);
    hst_error_map_result em;
    hst_result r = HST_SUCCESS;
    while (!(o->modes & (1u << first))) first++;
    j->q.map = (float *)malloc(P * sizeof(float));
    img = u->ntp > 1 ? (float *)malloc(P * sizeof(float)) : j->out[first];
    if (!wf || !j->q.map || !img) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    if (r == HST_SUCCESS) {
        if (img != j->out[first]) mean_over_timepoints(j->out[first], P, u->ntp, img);
        r = hst_error_map(j->be, wf, j->st.rows, j->st.cols, img, u->rm, u->cm, NULL, j->q.map, &em);
    }
    if (img != j->out[first]) free(img);
    free(wf);
    if (r == HST_SUCCESS) {
        j->q.rse = em.rse;
        j->q.rsp = em.rsp;
    }
    if (r == HST_SUCCESS && o->sweep) {
        j->q.frc_px = j->sweep.resolution[j->sweep.best_sensitivity][j->sweep.best_radius];
    } else if (r == HST_SUCCESS) {
        hst_esrrf_sweep_desc sw;
        hst_esrrf_sweep_result res;
        float radius = (float)o->radius, sens = (float)o->sensitivity;
        memset(&sw, 0, sizeof sw);
        sw.radii = &radius; sw.num_radii = 1;
        sw.sensitivities = &sens; sw.num_sensitivities = 1;
        u->pg.t0 = now_s();
        r = hst_esrrf_sweep(&u->d, &sw, j->st.data, dtype_of[j->st.dtype], j->st.frames, j->st.rows, j->st.cols,
                            NULL, &res);
        progress_end(&u->pg);
        j->q.frc_px = res.resolution[0][0];
    }
    return finished(u, r, "the quality report");
}

/* A resolution in magnified pixels, and in the TIFF's unit where it gives one. */
static void print_resolution(const run *u, double px)
{
    double ps = sr_pixel_size(&u->j.st, u->o.mag);
    printf("%.3g px", px);
    if (ps > 0) printf(" (%.4g %s)", px * ps, u->j.st.unit);
    if (px == 0) printf(" (the curve never crosses the threshold: NanoPyx's 0)");
}

/* The sweep's lines of the summary: the QnR table and the best pair. */
static void print_sweep(const run *u)
{
    const options *o = &u->o;
    const hst_esrrf_sweep_result *w = &u->j.sweep;
    unsigned l, k, bl = w->best_sensitivity, bk = w->best_radius;
    printf("  sweep     QnR of %u x %u pairs (%s), one pass over the frames: %.3f s, scores %.3f s\n", o->ns, o->nr,
           o->use_decorr ? "RSP and decorrelation" : "RSP and FRC of odd and even frames", w->pass_seconds,
           w->score_seconds);
    printf("            sensitivity \\ radius");
    for (k = 0; k < o->nr; k++) printf(" %8g", (double)o->radii[k]);
    printf("\n");
    for (l = 0; l < o->ns; l++) {
        printf("            %-20g", (double)o->sens[l]);
        for (k = 0; k < o->nr; k++) printf(" %8.4f", w->qnr[l][k]);
        printf("\n");
    }
    printf("  best      radius %g, sensitivity %g: QnR %.4f, RSP %.4f, resolution ", (double)o->radii[bk],
           (double)o->sens[bl], w->qnr[bl][bk], w->rsp[bl][bk]);
    print_resolution(u, w->resolution[bl][bk]);
    printf(" (the output image)\n");
}

static void print_quality(const run *u)
{
    const quality *q = &u->j.q;
    printf("  quality   RSE %.6g, RSP %.4f (error map against the widefield mean); FRC resolution ", q->rse, q->rsp);
    print_resolution(u, q->frc_px);
    printf("\n");
}

static void summary(const run *u)
{
    const options *o = &u->o;
    const job *j = &u->j;
    const hst_device_info *dev = hst_backend_device(j->be);
    unsigned m;
    printf("esrrf: %s: %llu frames %ux%u (%s) -> %llu time point(s) of %ux%u:", o->input,
           (unsigned long long)u->rep.frames, j->st.cols, j->st.rows, j->st.kind, (unsigned long long)u->ntp, u->cm, u->rm);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) if (o->modes & (1u << m)) printf(" %s", mode_names[m]);
    printf("\n  settings  mag %u, radius %g, sensitivity %g, intensity weighting %s, macro-pixel %s\n",
           o->mag, o->radius, o->sensitivity, o->intensity_weighting ? "on" : "off", o->macro_pixel ? "on" : "off");
    if (o->sweep) print_sweep(u);
    else print_path(&u->rep);
    if (o->quality) print_quality(u);
    if (hst_backend_is_host(j->be))
        printf("  device    host: the kernels' C twins on all cores%s\n",
               u->auto_host ? " (auto: faster than the OpenCL CPU device for eSRRF; --device cpu uses it)" : "");
    else printf("  device    %s (%s; %s)\n", dev->name, device_kind(dev), dev->platform_name);
    if (u->rk->size > 1) printf("  ranks     %d MPI ranks, each its rows of every frame (rank 0's device above)\n", u->rk->size);
    printf("  speed     %.1f frames/s (%llu frames in %.3f s, programs built or loaded included)\n",
           u->rep.seconds > 0 ? (double)u->rep.frames / u->rep.seconds : 0.0, (unsigned long long)u->rep.frames, u->rep.seconds);
    printf("  time      read %.3f s | eSRRF %.3f s | write %.3f s | total %.3f s\n", u->t_read, u->rep.seconds,
           u->t_write, now_s() - u->t_start);
    printf("  wrote    ");
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) if (o->modes & (1u << m)) printf(" %s", j->tif_path[m]);
    if (o->preview) printf(" %s", j->png_path);
    for (m = 0; m < NUM_EXTRA; m++) if (extra_wanted(o, m)) printf(" %s", j->extra_path[m]);
    printf("\n");
}

static int esrrf_main(int argc, char **argv, ranks *rk)
{
    run u;
    double t0;
    int status, rc;

    memset(&u, 0, sizeof u);
    u.rk = rk;
    u.t_start = now_s();
    if ((rc = parse_args(argc, argv, &u.o)) != 0) return rc < 0 ? 0 : rc;
    catch_signals();

    status = ranks_agree(rk, prepare(&u));   /* no rank starts the collective run alone */
    if (status == 0) status = u.o.sweep ? compute_sweep(&u) : compute(&u);
    if (status == 0 && u.o.quality) status = compute_quality(&u);
    if (status == 0 && rk->rank == 0) {
        t0 = now_s();
        if (!write_outputs(&u.o, &u.j, u.ntp, u.rm, u.cm)) status = interrupted ? interrupted_status() : 1;
        u.t_write = now_s() - t0;
        if (status == 0 && !u.o.quiet) summary(&u);
    }
    if (status == 0 && interrupted) status = 128 + (int)interrupted;   /* after the outputs (SIGPIPE on stdout) */
    if (!job_free(&u.j, status != 0) && status == 0) status = 1;
    return status;
}

int main(int argc, char **argv)
{
    ranks rk;
    ranks_init(&rk, &argc, &argv);
    return ranks_finish(&rk, esrrf_main(argc, argv, &rk));
}
