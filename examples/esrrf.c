/* esrrf.c — eSRRF super-resolution of a fluorescence time series: the command-line program over
   esrrf.h (the computation) and examples/image_io.h (the files).

       esrrf [options] input.tif output.tif

   Reads a TIFF stack (classic or BigTIFF; 8-, 16-, 32-bit integer or 32/64-bit float samples,
   big- or little-endian, any compression libtiff decodes: none, LZW, deflate, zstd where built;
   one page per frame, ImageJ hyperstacks and single-file OME-TIFF included); 8- and 16-bit
   samples go to the device as they are (esrrf.h converts them there). Writes, per requested mode,
     output.tif          float32, one page per time point, pixel size scaled by 1/mag
                         (XResolution/YResolution multiplied by mag) — with several modes
                         output_avg.tif, output_var.tif, output_tac2.tif, all from one pass;
                         with several series (--channel all, z-planes: channels x planes of
                         the input, each its own time series) an ImageJ hyperstack of them
                         (see "Series");
     output_preview.png  the widefield mean (left, upscaled) beside the eSRRF image of the first
                         mode (right), each contrast-stretched between its 0.1% and 99.9%
                         quantiles, labelled, with a scale bar from the input's pixel size.
     output_drift.csv,   with --drift: each frame's drift (quality.h's hst_drift_*, against the
     output_drift.png    reference --drift=REF names) in input pixels and the TIFF's unit, and
                         its plot; the frames are shifted back by it (liquid.h's
                         hst_drift_correct, the Catmull-Rom shift) before eSRRF: a first pass over
                         the frames estimates, the second corrects and computes (a large stack
                         is read from the file twice, a block at a time). Several series: one
                         table, the first series' or --drift-series C,Z's, corrects them all;
                         --drift-series each: every series its own, output_drift_c2_z1.csv and
                         output_drift_c2_z1.png (channel 2, plane 1; and so on).
   A file that does not hold what it promises (a page chain that ends early, short strips, fewer
   frames than its ImageJ header says) is an error, and so is a NaN or Inf pixel (esrrf.h names
   its frame, row and column), and so is an image of finite input that float32 cannot hold (VAR
   of values near 1e20: esrrf.h names the time point and statistic).

   Large stacks (larger than memory). A run reads the frames block by block (--block frames at a
   time) and pushes them into esrrf.h's live session, which computes while the next block is
   read; each time point's images are appended to the outputs as the session delivers them, and
   the preview's widefield mean is summed on the way. Every page is checked first (its size, its
   sample type, its strips inside the file: examples/image_io.h's io_stack_open), so a stack that
   changes midway fails before the first frame is computed; a strip that does not decode fails
   when its frame is read, naming its page. A thread of its own reads the blocks, up to two
   ahead of the one pushed, so that the disk and the device work at once ("reader thread").
   Host memory: the blocks read (the one pushed and two ahead: 3 x block frames), the live
   session's staging (esrrf.h: two buffers of 8 x its block + 1 frames; its block is --block,
   else the library's own, 16 frames at most), one time point's images
   and, for the preview, the per-pixel sums of the frames and (several time points) of the
   first mode's images: independent of the number of frames. The images are the batch call's bits (esrrf.h:
   the live API with any push sizes gives them). --sweep and --quality read the whole stack into
   memory (their scores need every frame at once), and so does a run over MPI ranks (the live
   API is one process's).
   What an interruption leaves: nothing. The time points already computed are in the outputs'
   temporary files, which are renamed into place only when every output is complete; a signal
   or an error removes them (see "signals"), so there is never a torn or partial TIFF: a run is
   all or none (SIGKILL excepted: its temporary file may remain, output.tmp-XXXXXX).

   Series. An ImageJ hyperstack or an OME-TIFF holds channels x z-planes series of frames
   (examples/image_io.h says how each is found). --channel C|all and --plane Z|all choose them;
   each series runs through the same streamed path alone, one after another, so memory is one
   series' whatever their number. The output hyperstack wants each time point's series together
   (channel fastest, then plane, then time point: ImageJ's order), so with several series each
   mode's pages go to a second temporary file beside the output as they come (series after
   series), and are interleaved into the TIFF at the end, a page at a time: one extra write and
   read of the outputs (mag^2 / frames per time point of the input's size) instead of a live
   session per series held at once. The temporary files are removed, and only the finished
   hyperstack renamed into place (the guarantee below). One series gives the stack of before,
   byte for byte. OME-TIFF inputs give ImageJ hyperstacks as well: one writer, and the format
   Fiji, napari and tifffile read with its calibration (ImageJ's unit=, spacing=).

   Outputs are regular files only, each checked before a frame is read (examples/image_io.h's
   io_outfile rules): one that is the input or another output (the same file: through symlinks
   and hard links too) is refused, naming both; a directory, a FIFO, a socket or a device
   (/dev/null included: no TIFF streams to a pipe or to `-`, it is written with seeks) is
   refused, and so is a read-only file (even for root), another user's file in a sticky
   directory, and an empty name. A symbolic link is written through: its target is replaced
   (atomically, from a temporary file in the target's directory) and the link stays. Outputs
   are written under temporary names (output.tmp-XXXXXX) and renamed at the end, so an error
   or a signal never leaves a partial output or a temporary file behind (the signals: see
   "signals" below; SIGKILL, which nothing can catch, may leave one); a file size limit
   (`ulimit -f`: SIGXFSZ is ignored) is a write error that names the file, as a full disk is.

   Scale of the images: with the macro-pixel correction (the default, NanoPyx's) every output
   image (each time point, each mode) is divided, sub-pixel phase by phase, by that phase's
   mean over the image: every phase then has mean 1, and so has the image (AVG, VAR and TAC2
   alike): relative values, whatever the input's intensity scale. --no-macro-pixel keeps the
   scale of the radial gradient convergence (kernels_esrrf.h). No option rescales
   the images to the input's intensities.

   The math, its conventions (NanoPyx's) and the choice between the fused and the chained path
   (by measured speed; HST_FORCE=esrrf:fused or :chained forces one) are esrrf.h's: see its top
   comment and kernels_esrrf.h. The summary says which path ran and why.

   Options, with their units and defaults, the progress and the exit statuses: `esrrf --help`
   (usage() below, the one place they are written).

   Over MPI ranks: mpirun -n K esrrf [options] input.tif output.tif — every rank reads the stack
   and computes its share of the magnified rows on its own device (--device, or HST_DEVICE set
   per rank), rank 0 writes the same bytes as one process would; a failure on any rank ends all
   of them with the same exit status. Started without a launcher, the program is one process.

   Build: cc -std=c99 -O2 -I. -Iexamples examples/esrrf.c -o esrrf -ltiff -lpng -lfftw3f -lOpenCL -lm -lpthread
   (for MPI ranks: mpicc -DHST_ESRRF_MPI ..., what `make examples` does where mpicc exists) */

#define _POSIX_C_SOURCE 200809L   /* cli_os.h: mkstemp, fileno, sigaction, pthread_sigmask, isatty in strict C99 */
#define HST_IMPLEMENTATION
#ifndef ESRRF_NO_FFT   /* a build without FFTW (scripts/windows_check.sh's): those options say so */
#define HST_FFT   /* quality.h's error map, FRC, decorrelation (--sweep, --quality) and drift (--drift) */
#endif
#include "esrrf.h"
#include "liquid.h"   /* --drift's correction: hst_drift_correct (the Catmull-Rom shift) */

#define IMAGE_IO_IMPLEMENTATION
#include "image_io.h"
#include "cli_os.h"      /* files, terminals and signals on POSIX and on Windows */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "esrrf"
#define MAX_SCORING_LINES 10   /* progress: each time point's scoring announced up to this many */
#define DRIFT_CSV_LINE 96       /* bytes a drift table's line holds at most (4 numbers of <= 20) */
#define DRIFT_MEAN_FRAMES 10   /* --drift=mean: the reference is the mean of the first this many
                                  frames (fewer in a shorter stack): a still reference with 3x
                                  less noise than one frame, read before the first estimate */

/* The modes as esrrf.h names them (HST_ESRRF_MODES): on the command line and in file names in
   lower case ("avg"), mode_list "avg, var, tac2"; filled first thing (init_modes). */
static char mode_names[HST_ESRRF_NUM_MODES][16];
static char mode_list[HST_ESRRF_NUM_MODES * 18];

static void init_modes(void)
{
    size_t i, n = 0;
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        const char *name = hst_esrrf_mode_name((int)m);
        for (i = 0; name[i] && i + 1 < sizeof mode_names[m]; i++) mode_names[m][i] = (char)tolower((unsigned char)name[i]);
        mode_names[m][i] = '\0';
        n += (size_t)snprintf(mode_list + n, sizeof mode_list - n, "%s%s", m ? ", " : "", mode_names[m]);
    }
}

typedef struct options {
    const char *input, *output, *device;
    unsigned mag, modes;
    double radius, sensitivity;
    int intensity_weighting, macro_pixel, chained, fused, preview, quiet;
    int radius_given, sens_given, budget_given;   /* for the conflicts (check_conflicts) */
    uint64_t frames_per_tp, block, budget_mib, max_frames;
    uint64_t roll_w, roll_s;           /* --rolling W,S; roll_s 0: not given */
    unsigned channel;                  /* 0: not given; IO_CHANNEL_ALL: --channel all */
    unsigned plane;                    /* --plane Z, from 1; 0: every plane */
    int sweep, quality, use_decorr;
    float radii[HST_ESRRF_SWEEP_MAX], sens[HST_ESRRF_SWEEP_MAX];
    unsigned nr, ns;                   /* 0: not given */
    int drift;                         /* --drift given */
    hst_drift_desc dd;                 /* its reference, frames, averaging, max shift */
    int drift_mean_given;              /* --drift=mean:N (else DRIFT_MEAN_FRAMES, clamped) */
    int drift_opts_given;              /* --drift-averaging, --drift-max-shift or --drift-series */
    unsigned drift_c, drift_z;         /* --drift-series C,Z (from 1); 0: the first series */
    int drift_each;                    /* --drift-series each: every series its own table */
    int estimate;                      /* --estimate-frames given */
    uint64_t estimate_block;           /* --estimate-frames=B (0: quality.h's default) */
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
/* The short form, after a usage error; help() prints it first. */
static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [options] input.tif output.tif      (" PROG " --help: every option)\n"
               "       " PROG " --estimate-frames[=B] [--channel C] [--max-frames N] input.tif\n");
}

/* Every option: what it takes, its unit and default; the outputs, progress, exit statuses. */
static void help(void)
{
    usage(stdout);
    printf(
"\n"
"eSRRF super-resolution of a TIFF time series (esrrf.h, NanoPyx's conventions). Writes\n"
"output.tif (float32, one page per time point, the pixel size divided by the magnification,\n"
"the unit kept; several channels or z-planes: an ImageJ hyperstack) and output_preview.png\n"
"(the widefield mean beside the first mode's image, with a scale bar). The input: classic\n"
"TIFF or BigTIFF, uncompressed, LZW, deflate or zstd, ImageJ stacks and hyperstacks,\n"
"single-file OME-TIFF, 8/16/32-bit integer or 32/64-bit float samples.\n"
"\n"
"eSRRF:\n"
"  --mag N                  magnification, an integer 1..%d                       [%d]\n"
"  --radius R               radius of the gradient convergence, input pixels,\n"
"                           0 < R <= %g                                          [%g]\n"
"  --sensitivity S          sensitivity (the convergence's power, no unit),\n"
"                           0 < S <= %g                                          [%g]\n"
"  --no-intensity-weighting do not weight the convergence by the magnified frame [weighted]\n"
"  --frames-per-timepoint T frames per output image (a count), 0 = all frames in one; as\n"
"                           NanoPyx the last image takes the remainder and T above the\n"
"                           frames is clamped (each with a note)                  [0]\n"
"  --rolling W,S            rolling time points (NanoJ-eSRRF's rolling analysis): windows\n"
"                           of W frames starting every S frames (counts, each >= 1),\n"
"                           floor((frames - W) / S) + 1 images from one pass; W above the\n"
"                           frames is an error; instead of --frames-per-timepoint   [off]\n"
"  --mode LIST              temporal statistics, comma-separated: %s, all from\n"
"                           one pass; several: output_%s.tif, output_%s.tif, ... [%s]\n"
"  --no-macro-pixel         skip the macro-pixel correction                        [corrected]\n"
"  --fused | --chained      the computation's path (the same bits)        [the faster, measured]\n"
"\n",
        HST_ESRRF_MAX_MAG, HST_ESRRF_DEFAULT_MAGNIFICATION, (double)HST_ESRRF_MAX_RADIUS,
        (double)HST_ESRRF_DEFAULT_RADIUS, (double)HST_ESRRF_MAX_SENSITIVITY, (double)HST_ESRRF_DEFAULT_SENSITIVITY,
        mode_list, mode_names[0], mode_names[1], mode_names[0]);
    printf(
"Drift correction:\n"
"  --drift[=REF]            estimate each frame's drift (FFT cross-correlation, sub-pixel\n"
"                           peak; NanoPyx's drift alignment) in a first pass over the\n"
"                           frames and undo it (Catmull-Rom shift by minus the drift) before\n"
"                           eSRRF. REF, the reference: first (the first frame, NanoPyx's\n"
"                           default), mean (the mean of the first %d frames, or all of a\n"
"                           shorter stack), mean:N (of the first N frames, a count),\n"
"                           previous (each frame against the one before, the steps added\n"
"                           up). Writes output_drift.csv (frame, dy_px, dx_px: the drift in\n"
"                           input pixels, down and right positive, i.e. frame(y, x) =\n"
"                           reference(y - dy, x - dx), the correction its opposite; then\n"
"                           dy_<unit>, dx_<unit> in the TIFF's unit where it gives a pixel\n"
"                           size) and output_drift.png (dy and dx against the frame), beside\n"
"                           output.tif; needs 2 frames or more. Large stacks: two passes over\n"
"                           the file, --block frames at a time                    [off]\n"
"  --drift-averaging N      frames averaged per estimate (a count; NanoPyx's\n"
"                           time_averaging), the estimates interpolated between\n"
"                           the blocks' centres                                   [1]\n"
"  --drift-max-shift P      the largest drift searched, input pixels (per step with\n"
"                           previous), 0 = up to half the frame                   [0]\n"
"  --drift-series S         several series (--channel all, --plane all): the frames\n"
"                           that estimate the drift. first: the first series', applied\n"
"                           to all (the stage's drift, shared by the channels and planes\n"
"                           of one acquisition); C,Z: that channel's and z-plane's\n"
"                           (indices from 1, as --channel and --plane; a series the run\n"
"                           computes), applied to all; each: every series its own drift,\n"
"                           written as output_drift_c<C>_z<Z>.csv and .png   [first]\n"
"\n", DRIFT_MEAN_FRAMES);
    printf(
"How many frames (instead of eSRRF; no output file):\n"
"  --estimate-frames[=B]    NanoJ-eSRRF's estimate of the most frames worth one time point:\n"
"                           the SSIM of frames by their separation within blocks of B\n"
"                           frames (a count >= 2; default min(100, frames / 2): a little\n"
"                           more than the count expected), the first separation where it\n"
"                           falls 2 standard deviations below the next frame's; prints it\n"
"                           and the curve (separation, mean SSIM, deviation). Crop the\n"
"                           stack to the region of interest for speed (the host's cores)\n"
"\n"
"Scale: with the macro-pixel correction every image is divided, sub-pixel phase by phase, by\n"
"that phase's mean: each phase and each image (AVG, VAR, TAC2) then has mean 1, relative values\n"
"whatever the input's intensities. --no-macro-pixel keeps the gradient convergence's scale.\n"
"\n"
"Input and device:\n"
"  --channel C|all          a hyperstack with several channels (ImageJ or OME-TIFF): the\n"
"                           channel (an index, from 1), or all: every channel its own\n"
"                           series                                 [none: one channel only]\n"
"  --plane Z|all            the z-plane (an index, from 1), or all: every plane its own\n"
"                           series (ImageJ slices beside frames, OME SizeZ; a stack of\n"
"                           slices without frames is a time series)                [all]\n"
"  Several series (channels x planes): each is computed alone, one after another (memory\n"
"  as for one), and each output is one ImageJ hyperstack (channels, slices, frames = time\n"
"  points; pages channel fastest, then plane, then time point; pixel size / mag, the unit\n"
"  and the z spacing kept; OME-TIFF inputs give ImageJ hyperstacks too); the preview uses the\n"
"  first series, --drift's estimate the one --drift-series names (the first: applied to all).\n"
"  --sweep, --quality, --estimate-frames and MPI ranks take one series.\n"
"  --max-frames N           use only the first N frames (a count), 0 = all       [0]\n"
"  --device S               auto, gpu, cpu, host, P:D (platform:device) or a name substring;\n"
"                           auto takes a GPU or accelerator, else the host device (its C\n"
"                           twins beat an OpenCL CPU device for eSRRF; `cpu` takes that;\n"
"                           build/examples/devices lists the devices)\n"
"                                                                [$HST_DEVICE, else auto]\n"
"  --budget-mib M           device memory for the stream of frames, MiB; 0 = automatic\n"
"                           (about half the device's memory)                      [0]\n"
"  --block N                frames per block read from the file and streamed (a count);\n"
"                           0 = automatic: 16 read at a time, streamed in the library's\n"
"                           own blocks (--sweep, --quality: about 1/16 of the stack,\n"
"                           at least 16, as the budget allows)                    [0]\n"
"\n"
"Large stacks: the frames are read block by block while the device computes, and each time\n"
"point is written as soon as it is done: host memory is about 19 x --block + 2 frames, at\n"
"most 19 x 16 + 2 without it (the block pushed, two blocks read ahead meanwhile and the two\n"
"staging buffers of esrrf.h's live session), one time point's images per mode and the\n"
"preview's sums (--no-preview: none), whatever the number of frames (--sweep and --quality\n"
"hold the whole stack). Interrupted (a signal, an error) a run leaves no output at all, never\n"
"a partial TIFF: the files are renamed into place when all are complete. With --drift: one\n"
"frame's float32 copy per frame of a block more (its correction).\n"
"\n");
    printf(
"Parameter sweep and quality:\n"
"  --sweep                  NanoPyx's parameter sweep in one pass over the frames: every pair\n"
"                           of --radii and --sensitivities scored by QnR (RSP and the FRC\n"
"                           resolution of the AVG images of odd and even frames, or with\n"
"                           --decorr the decorrelation resolution); writes output.tif at the\n"
"                           best pair (AVG), output_qnr.csv and the heat map output_qnr.png\n"
"                           (rows: sensitivity, columns: radius); takes neither --radius,\n"
"                           --sensitivity, --mode (but avg), --fused, --chained nor\n"
"                           --budget-mib (its memory: --block); with --frames-per-timepoint\n"
"                           each time point is scored and the scores averaged (NanoPyx's\n"
"                           n_frames)\n"
"  --radii LIST             the sweep's radii, input pixels, comma-separated, 1..%d\n"
"                           values                                                [1,1.5]\n"
"  --sensitivities LIST     the sweep's sensitivities (no unit), comma-separated,\n"
"                           1..%d values                                          [1,2]\n"
"  --decorr                 score the sweep's resolution by decorrelation analysis instead of FRC\n"
"  --quality                add SQUIRREL's RSE and RSP (the error map of the output against the\n"
"                           widefield mean) and the resolution (FRC of the AVG images of odd\n"
"                           and even frames; the sweep's at its best pair) to the summary, in\n"
"                           magnified pixels and in the TIFF's unit where it has one; writes\n"
"                           output_errormap.tif\n"
"  FRC needs two frames per time point: with one (--frames-per-timepoint 1, a 1-frame stack) the\n"
"  resolution is reported as \"none (needs two frames per time point)\" and written NaN in the\n"
"  CSV (as is any resolution that does not exist); 0 px: the FRC curve never crosses the 1/7\n"
"  threshold (NanoPyx's 0).\n"
"\n", HST_ESRRF_SWEEP_MAX, HST_ESRRF_SWEEP_MAX);
    printf(
"Output:\n"
"  --no-preview             do not write output_preview.png\n"
"  -q, --quiet              no progress and no summary (errors and warnings still on stderr)\n"
"  -h, --help               this text\n"
"  Outputs are regular files: a directory, a FIFO, a socket or a device (/dev/null too) is\n"
"  refused (no streaming to a pipe or to `-`: a TIFF is written with seeks), and so is a\n"
"  read-only file; a symbolic link is written through (its target replaced, the link kept).\n"
"  Each is written under a temporary name beside it and renamed at the end.\n"
"\n"
"Progress (stderr): a bar on a terminal; otherwise a line at every 10%% of the work. The sweep\n"
"and --quality show their scoring (the long part at large sizes): a line when a time point's\n"
"scoring starts (every time point's up to %d of them, else the first's), then its scores done.\n"
"\n"
"Exit status: 0 success; 1 an error while running (the message on stderr); 2 bad usage or bad\n"
"input (the message names the argument or file); 128 + N ended by signal N (HUP 129, INT 130,\n"
"QUIT 131, PIPE 141, ALRM 142, TERM 143, USR1 138, USR2 140, ...: every signal that ends a\n"
"program and can be caught leaves no temporary file; SIGINT or SIGTERM ends a run, scoring\n"
"included, within about a second, and a second signal at once).\n", MAX_SCORING_LINES);
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

/* "avg,var,tac2" (any non-empty list of mode_names, each once) -> a set of HST_ESRRF_* modes. */
static int parse_modes(const char *val, unsigned *modes)
{
    const char *p = val;
    *modes = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        int m = hst_esrrf_mode_parse(p, n);
        unsigned bit = m >= 0 && !strncmp(p, mode_names[m], n) ? 1u << m : 0;   /* lower case only */
        if (!bit || (*modes & bit)) {
            fail("--mode %s: expected a list of %s, each once (e.g. %s,%s)", val, mode_list, mode_names[0],
                 mode_names[1]);
            return 0;
        }
        *modes |= bit;
        p += n;
        if (*p == ',' && *++p == '\0') break;   /* a trailing comma: caught below */
    }
    if (!*modes || (val[0] && val[strlen(val) - 1] == ',')) {
        fail("--mode %s: expected a list of %s, each once (e.g. %s,%s)", val, mode_list, mode_names[0],
             mode_names[1]);
        return 0;
    }
    return 1;
}

/* "A,B" of an option: two integers, each 1..max[k]; names[k] name them in messages, form says
   what to give, below_1 why 0 is refused. */
typedef struct pair_spec { const char *opt, *form, *names[2], *below_1; uint64_t max[2]; } pair_spec;
static const pair_spec rolling_spec = { "--rolling", "give the window and the step in frames, W,S (e.g. 100,10)",
                                        { "--rolling's window", "--rolling's step" },
                                        "the window and the step must be >= 1 frame", { UINT32_MAX, UINT64_MAX } };
static const pair_spec drift_series_spec = { "--drift-series", "first, each, or C,Z (the channel and the z-plane "
                                             "whose frames estimate the drift, each from 1, e.g. 2,1)",
                                             { "--drift-series's channel", "--drift-series's plane" },
                                             "the channel and the z-plane count from 1", { 65535, 65535 } };

static int parse_pair(const pair_spec *p, const char *val, uint64_t out[2])
{
    const char *comma = strchr(val, ',');
    char first[32];
    if (!comma || (size_t)(comma - val) >= sizeof first) {
        fail("%s %s: %s", p->opt, val, p->form);
        return 0;
    }
    snprintf(first, sizeof first, "%.*s", (int)(comma - val), val);
    if (!parse_u64(p->names[0], first, p->max[0], &out[0]) || !parse_u64(p->names[1], comma + 1, p->max[1], &out[1]))
        return 0;
    if (out[0] < 1 || out[1] < 1) {
        fail("%s %s: %s", p->opt, val, p->below_1);
        return 0;
    }
    return 1;
}

/* --drift-series first | each | C,Z (as --channel and --plane count them). */
static int parse_drift_series(const char *val, options *o)
{
    uint64_t cz[2];
    o->drift_opts_given = 1;
    o->drift_each = !strcmp(val, "each");
    o->drift_c = o->drift_z = 0;
    if (o->drift_each || !strcmp(val, "first")) return 1;
    if (!parse_pair(&drift_series_spec, val, cz)) return 0;
    o->drift_c = (unsigned)cz[0];
    o->drift_z = (unsigned)cz[1];
    return 1;
}

/* --drift=REF: first, mean, mean:N (N >= 1 frames), previous (quality.h's names). */
static int parse_drift(const char *val, options *o)
{
    const char *colon = strchr(val, ':');
    char name[32];
    uint64_t n;
    int ref;
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - val) : (int)strlen(val), val);
    ref = hst_drift_reference_parse(name);
    if (ref < 0 || (colon && ref != HST_DRIFT_REF_MEAN)) {
        fail("--drift=%s: the reference is first, mean, mean:N (the mean of the first N frames) or previous", val);
        return 0;
    }
    o->drift = 1;
    o->dd.reference = (hst_drift_reference)ref;
    if (!colon) return 1;
    if (!parse_u64("--drift=mean:N's N", colon + 1, UINT32_MAX, &n)) return 0;
    if (n < 1) { fail("--drift=%s: N, the frames of the mean, must be >= 1", val); return 0; }
    o->dd.reference_frames = (size_t)n;
    o->drift_mean_given = 1;
    return 1;
}

/* Options that cannot go together, refused both ways, each naming what to drop: the sweep's
   own options without --sweep, the single run's with it (the sweep reads neither a radius, a
   sensitivity, a path nor a budget: esrrf.h's hst_esrrf_sweep), both paths, --rolling with
   --frames-per-timepoint or --sweep. Then the sweep's
   defaults (NanoPyx's). Returns 0 or the exit status. */
static int check_conflicts(options *o)
{
    if (o->estimate && (o->sweep || o->quality || o->drift || o->roll_s)) {
        fail("--estimate-frames only estimates (no eSRRF): drop %s", o->sweep ? "--sweep" : o->quality ? "--quality"
             : o->drift ? "--drift" : "--rolling");
        return 2;
    }
    if (o->drift_opts_given && !o->drift) {
        fail("--drift-averaging, --drift-max-shift and --drift-series belong to --drift: add --drift (or drop them)");
        return 2;
    }
    if (o->roll_s && o->frames_per_tp) {
        fail("--rolling W,S and --frames-per-timepoint: give one (W is the time point's frames)");
        return 2;
    }
    if (o->roll_s && o->sweep) {
        fail("--sweep scores time points cut one after another: drop --rolling");
        return 2;
    }
    if (o->fused && o->chained) {
        fail("--fused and --chained: give one path (or neither: the faster, measured)");
        return 2;
    }
    if (!o->sweep && (o->nr || o->ns || o->use_decorr)) {
        fail("--radii, --sensitivities and --decorr belong to --sweep (one run takes --radius and --sensitivity)");
        return 2;
    }
    if (o->sweep && (o->radius_given || o->sens_given)) {
        fail("--sweep tries the radii of --radii and the sensitivities of --sensitivities: drop %s",
             o->radius_given && o->sens_given ? "--radius and --sensitivity"
             : o->radius_given ? "--radius" : "--sensitivity");
        return 2;
    }
    if (o->sweep && o->modes != HST_ESRRF_AVG) {
        fail("--sweep scores AVG images (NanoPyx's sweep): drop --mode");
        return 2;
    }
    if (o->sweep && (o->fused || o->chained || o->budget_given)) {
        fail("--sweep has one path and sizes its memory by --block: drop %s",
             o->budget_given ? "--budget-mib" : o->fused ? "--fused" : "--chained");
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
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); return -1; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--no-intensity-weighting")) { o->intensity_weighting = 0; continue; }
        if (!strcmp(a, "--no-macro-pixel")) { o->macro_pixel = 0; continue; }
        if (!strcmp(a, "--chained")) { o->chained = 1; continue; }
        if (!strcmp(a, "--fused")) { o->fused = 1; continue; }
        if (!strcmp(a, "--no-preview")) { o->preview = 0; continue; }
        if (!strcmp(a, "--sweep")) { o->sweep = 1; continue; }
        if (!strcmp(a, "--quality")) { o->quality = 1; continue; }
        if (!strcmp(a, "--decorr")) { o->use_decorr = 1; continue; }
        if (!strcmp(a, "--drift")) { o->drift = 1; continue; }   /* the value only as --drift=REF */
        if (!strcmp(a, "--estimate-frames")) { o->estimate = 1; continue; }   /* B only as =B */
        if (!strncmp(a, "--estimate-frames=", 18)) {
            o->estimate = 1;
            if (!parse_u64("--estimate-frames=B", a + 18, UINT32_MAX, &o->estimate_block)) return 2;
            if (o->estimate_block < 2) { fail("--estimate-frames=%s: blocks of at least 2 frames", a + 18); return 2; }
            continue;
        }
        if (!strncmp(a, "--drift=", 8)) {
            if (!parse_drift(a + 8, o)) return 2;
            continue;
        }
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
            o->radius_given = 1;
            if (!(o->radius > 0.0) || o->radius > HST_ESRRF_MAX_RADIUS) {
                fail("--radius %s: the radius must be > 0 and <= %g input pixels", val, (double)HST_ESRRF_MAX_RADIUS);
                return 2;
            }
        } else if (!strcmp(name, "--sensitivity")) {
            if (!parse_double(name, val, &o->sensitivity)) return 2;
            o->sens_given = 1;
            if (!(o->sensitivity > 0.0) || o->sensitivity > HST_ESRRF_MAX_SENSITIVITY) {
                fail("--sensitivity %s: the sensitivity must be > 0 and <= %g", val, (double)HST_ESRRF_MAX_SENSITIVITY);
                return 2;
            }
        } else if (!strcmp(name, "--frames-per-timepoint")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->frames_per_tp)) return 2;
        } else if (!strcmp(name, "--rolling")) {
            uint64_t ws[2];
            if (!parse_pair(&rolling_spec, val, ws)) return 2;
            o->roll_w = ws[0];
            o->roll_s = ws[1];
        } else if (!strcmp(name, "--mode")) {
            if (!parse_modes(val, &o->modes)) return 2;
        } else if (!strcmp(name, "--channel") || !strcmp(name, "--plane")) {
            int ch = name[2] == 'c';
            if (!strcmp(val, "all")) v = ch ? IO_CHANNEL_ALL : 0;
            else if (!parse_u64(name, val, 65535, &v)) return 2;
            else if (v < 1) { fail("%s counts from 1 (or: all)", name); return 2; }
            *(ch ? &o->channel : &o->plane) = (unsigned)v;
        } else if (!strcmp(name, "--device")) {
            o->device = val;
        } else if (!strcmp(name, "--budget-mib")) {
            if (!parse_u64(name, val, (uint64_t)1 << 40, &o->budget_mib)) return 2;
            o->budget_given = 1;
        } else if (!strcmp(name, "--max-frames")) {
            if (!parse_u64(name, val, UINT64_MAX, &o->max_frames)) return 2;
        } else if (!strcmp(name, "--block")) {
            if (!parse_u64(name, val, UINT32_MAX, &o->block)) return 2;
        } else if (!strcmp(name, "--drift-averaging")) {
            if (!parse_u64(name, val, UINT32_MAX, &v)) return 2;
            if (v < 1) { fail("--drift-averaging %s: at least 1 frame per estimate", val); return 2; }
            o->dd.averaging = (size_t)v;
            o->drift_opts_given = 1;
        } else if (!strcmp(name, "--drift-max-shift")) {
            if (!parse_u64(name, val, (uint64_t)INT_MAX / 2, &v)) return 2;
            o->dd.max_shift = (unsigned)v;
            o->drift_opts_given = 1;
        } else if (!strcmp(name, "--drift-series")) {
            if (!parse_drift_series(val, o)) return 2;
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
    if (o->estimate && npos != 1) {
        fail(npos == 0 ? "--estimate-frames: no input given" : "--estimate-frames writes nothing: give the input alone");
        usage(stderr);
        return 2;
    }
    if (!o->estimate && npos != 2) {
        fail(npos == 0 ? "no input and output given" : "no output given");
        usage(stderr);
        return 2;
    }
    return check_conflicts(o);
}

/* ------------------------------------------------------------------------------ signals */
/* One policy for every signal that ends a program by default and can be caught: no output's
   temporary file outlives the program (examples/image_io.h keeps their names for the handlers),
   and the exit status is 128 + the signal's number.
   - End signals, sent to stop the run: HUP, INT, QUIT, PIPE, ALRM, TERM, USR1, USR2, VTALRM,
     PROF, XCPU, and where the system has them POLL (IO), PWR and STKFLT, and the real-time
     signals SIGRTMIN..SIGRTMAX that no library has taken. The first one is recorded and stops
     the computation: the progress callback cancels the pass over the frames, and
     hst_backend_interrupt on the run's backend stops the library's long loops (the scoring of
     --sweep and --quality, decorrelation, FRC) at their next check, within about a second;
     then the temporary files are removed, the message names the signal, the status is
     128 + its number. A second end signal (but SIGPIPE, which our own writes raise) ends the
     program at once, its handler removing the temporary files (status 128 + the first's).
   - Fault signals, a defect of the program or of a library: SEGV, BUS, FPE, ILL, TRAP, ABRT,
     SYS. The handler removes the temporary files and hands the signal to the disposition it
     had before this program's (the default, or a sanitizer's or the MPI library's handler),
     which then ends the program as that signal does (status 128 + N in a shell).
   - SIGXFSZ (past a file size limit) is ignored: the write fails with EFBIG, and that error
     names the file and removes the temporary files as any write error does.
   - SIGKILL and SIGSTOP cannot be caught: after SIGKILL a temporary file (output.tmp-XXXXXX,
     beside the output) may remain.
   - Windows (cli_os.h has the mechanics of both systems): Ctrl-C, Ctrl-Break, SIGTERM and the
     console's close are end signals, SIGSEGV, SIGILL, SIGFPE and SIGABRT faults.

   An OpenCL driver may take these signals when it is loaded: PoCL's libLLVM, loaded when the
   platforms are listed (for every selector but the host device's), installs its own handlers over ours, and for
   SIGQUIT (as for SIGXFSZ) its handler puts ours back and returns without raising the signal
   again, so the first QUIT of a run was lost (the run went on and wrote its outputs). So the
   device is opened with the end signals blocked, ours are installed again, and then they are
   unblocked: a signal sent meanwhile reaches our handler. (LLVM installs its handlers once per
   process: not again when it later compiles the kernels. The threads the drivers start
   meanwhile keep the signals blocked: they go to the threads of the run, ours.) */
static volatile sig_atomic_t interrupted;   /* the first end signal caught, 0: none */
static hst_backend *volatile signal_backend;   /* the run's backend while it lives: interrupted */

static void on_end_signal(int sig)
{
    if (interrupted && sig != CLI_SIGPIPE) {   /* the second: at once */
        io_outfile_remove_temporaries();
        cli_exit_now(128 + (int)interrupted);
    }
    if (interrupted) return;
    interrupted = sig;
    if (signal_backend) hst_backend_interrupt(signal_backend);
}

/* Our handlers (end and fault signals: cli_os.h), at the start and after the device opens. */
static void catch_signals(void)
{
    cli_catch_signals(on_end_signal, io_outfile_remove_temporaries);
}

/* Our handlers again (a driver loaded meanwhile may have replaced them), then the mask of
   before cli_hold_signals: a signal held meanwhile is delivered to our handler now. */
static void release_signals(const cli_sigmask *old)
{
    catch_signals();
    cli_release_signals(old);
}

/* After a signal: the message and the exit status. */
static int interrupted_status(void)
{
    char name[32];
    int sig = (int)interrupted;
    cli_signal_name(sig, name, sizeof name);
    fail("interrupted by %s: no output written", name);
    return 128 + sig;
}

/* ------------------------------------------------------------------------------ progress */
/* On a terminal a bar redrawn in place (\r); otherwise (a log, a pipe) a new line at every 10%
   of the call's steps. hst_esrrf_run counts frames; hst_esrrf_sweep counts steps, time point by
   time point: its frames, then its scores, np RSPs and, where the time point has a resolution
   (decorrelation, or FRC with two frames or more), np resolutions (esrrf.h: "Progress"). The
   scores are the long part at large sizes, so they are shown as such: "scoring time point k of
   n: j/m scores", and a line says when a time point's scoring starts (each one's in runs of at
   most MAX_SCORING_LINES time points, else the first's). Cancels on an end signal. */

typedef struct progress {
    int tty, quiet, drawn;
    double t0, last;
    unsigned last_tenth;
    /* a sweep's steps (pairs 0: a run's frames) */
    unsigned pairs;
    int decorr;
    uint64_t frames, tp_frames;     /* the stack's, per time point (the last may have fewer) */
    const char *scoring;            /* what is scored, for the lines */
} progress;

/* Where a pass stands after `done` steps. */
typedef struct progress_at {
    uint64_t frames_done, tp, ntp;   /* tp: from 1 */
    uint64_t scores_done, scores;    /* of time point tp; scores 0: in its frames */
} progress_at;

/* Starts a call's progress: pairs 0 for hst_esrrf_run, else the sweep's pairs and what its
   scores are (decorr: a resolution at every time point). */
static void progress_start(progress *p, unsigned pairs, int decorr, uint64_t frames, uint64_t tp_frames,
                           const char *scoring)
{
    p->t0 = now_s();
    p->last = -1.0;
    p->last_tenth = 0;
    p->drawn = 0;
    p->pairs = pairs;
    p->decorr = decorr;
    p->frames = frames;
    p->tp_frames = tp_frames ? tp_frames : 1;
    p->scoring = scoring;
}

static void progress_end(progress *p)
{
    if (p->drawn) fputc('\n', stderr);
    p->drawn = 0;
}

/* The scores of a time point of n frames (esrrf.h's sweep steps less its frames). */
static uint64_t progress_scores(const progress *p, uint64_t n)
{
    return (uint64_t)p->pairs * (p->decorr || n >= 2 ? 2 : 1);
}

/* done steps -> where the pass stands: every time point but the last has tp_frames frames, so
   the time point is a division. */
static progress_at progress_where(const progress *p, uint64_t done)
{
    progress_at at;
    uint64_t T = p->tp_frames, ntp = (p->frames + T - 1) / T, full = T + progress_scores(p, T), base, n;
    memset(&at, 0, sizeof at);
    at.ntp = ntp;
    if (!p->pairs) { at.frames_done = done; at.tp = 1; return at; }
    at.tp = done / full < ntp ? done / full : ntp - 1;
    base = at.tp * full;
    n = at.tp == ntp - 1 ? p->frames - at.tp * T : T;
    if (done - base < n) {
        at.frames_done = at.tp * T + (done - base);
    } else {
        at.frames_done = at.tp * T + n;
        at.scores = progress_scores(p, n);
        at.scores_done = done - base - n;
    }
    at.tp++;
    return at;
}

static int on_progress(uint64_t done, uint64_t total, void *user)
{
    progress *p = (progress *)user;
    progress_at at;
    double t, rate;
    unsigned tenth, pct;
    if (p->quiet || interrupted) return interrupted != 0;
    at = progress_where(p, done);
    t = now_s() - p->t0;
    rate = t > 0 ? (double)at.frames_done / t : 0.0;
    tenth = (unsigned)(10 * done / (total ? total : 1));
    pct = (unsigned)(100 * done / (total ? total : 1));
    if (at.scores && at.scores_done == 0 && (at.tp == 1 || at.ntp <= MAX_SCORING_LINES)) {
        progress_end(p);
        fprintf(stderr, PROG ": scoring time point %llu of %llu: %s\n", (unsigned long long)at.tp,
                (unsigned long long)at.ntp, p->scoring);
    }
    if (p->tty && (t - p->last >= 0.1 || done == total)) {
        char bar[31];
        unsigned k, fill = (unsigned)(30 * done / (total ? total : 1));
        for (k = 0; k < 30; k++) bar[k] = k < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %3u%%  ", bar, pct);
        if (at.scores)
            fprintf(stderr, "scoring time point %llu of %llu: %llu/%llu scores  ", (unsigned long long)at.tp,
                    (unsigned long long)at.ntp, (unsigned long long)at.scores_done, (unsigned long long)at.scores);
        else
            fprintf(stderr, "%llu/%llu frames  %.1f frames/s  ", (unsigned long long)at.frames_done,
                    (unsigned long long)p->frames, rate);
        p->last = t;
        p->drawn = 1;
    } else if (!p->tty && tenth > p->last_tenth) {
        if (at.scores)
            fprintf(stderr, PROG ": %3u%%  scoring time point %llu of %llu: %llu/%llu scores\n", pct,
                    (unsigned long long)at.tp, (unsigned long long)at.ntp, (unsigned long long)at.scores_done,
                    (unsigned long long)at.scores);
        else
            fprintf(stderr, PROG ": %3u%%  %llu/%llu frames  %.1f frames/s\n", pct, (unsigned long long)at.frames_done,
                    (unsigned long long)p->frames, rate);
        p->last_tenth = tenth;
    }
    fflush(stderr);
    return 0;
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

/* The outputs beside the images and the preview: the sweep's table and heat map, the error map
   (--drift's tables and plots: one pair per table, job's drift_out). */
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
    io_stack od;                       /* what the outputs hold: st's calibration, the series kept
                                          as channels x planes (a hyperstack when more than one) */
    uint64_t s0, ns;                   /* the series computed: the reader's s0 .. s0 + ns - 1 */
    uint64_t cur;                      /* the series being computed, 0 .. ns - 1 */
    int streamed;                      /* the frames read block by block (see "Large stacks") */
    io_reader *rd;                     /* streamed runs: the input, read block by block */
    io_tiff_writer *tw[HST_ESRRF_NUM_MODES];   /* streamed runs: each mode's TIFF, page by page */
    io_outfile aside[HST_ESRRF_NUM_MODES];     /* streamed runs of several series: each mode's
                                          pages as computed (series after series), interleaved
                                          into the TIFF at the end */
    double *wf_sum, *sr_sum;           /* streamed runs' preview: the frames' and the first mode's
                                          time points' per-pixel sums (sr_sum: with 2 or more) */
    int write_failed;                  /* a page could not be written: write_err says why */
    char write_err[1024];
    io_outfile tif[HST_ESRRF_NUM_MODES], png, extra[NUM_EXTRA];
    char tif_path[HST_ESRRF_NUM_MODES][4200], png_path[4200], extra_path[NUM_EXTRA][4200];
    io_outfile *drift_out;             /* --drift: each table's CSV and PNG (2 x ntab) */
    char (*drift_path)[4200];          /* their names */
    unsigned nout;                     /* every output (list_outputs): its name and its file */
    const char **paths;
    io_outfile **files;
    float *out[HST_ESRRF_NUM_MODES], *mean;
    hst_esrrf_sweep_result sweep;
    quality q;
    double *drift;                     /* --drift: (ntab, frames, 2) dy, dx per frame, input pixels */
    uint64_t ntab, dsel;               /* --drift's tables: 1, or ns (--drift-series each); with one,
                                          the series it is estimated from (0 .. ns - 1) */
    hst_backend *be;
    log_state ls;
} job;

/* 0 when the backend refused to go (something still holds it: its log names what). */
static int job_free(job *j, int discard)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        io_tiff_abort(j->tw[m]);
        io_outfile_discard(&j->aside[m]);   /* never committed: pages kept aside only */
        free(j->out[m]);
    }
    for (m = 0; m < j->nout && discard; m++) io_outfile_discard(j->files[m]);
    free(j->paths);
    free(j->files);
    free(j->drift_out);
    free(j->drift_path);
    free(j->mean);
    free(j->wf_sum);
    free(j->sr_sum);
    free(j->q.map);
    free(j->drift);
    io_stack_free(&j->st);
    io_stack_close(j->rd);
    signal_backend = NULL;   /* no handler reaches it any more */
    return hst_backend_destroy(j->be) == HST_SUCCESS;
}

/* Sample k of data (samples of dtype), as a float (exact: 8- and 16-bit integers are). */
static float sample_at(const void *data, io_dtype dtype, size_t k)
{
    return dtype == IO_U8 ? ((const uint8_t *)data)[k] : dtype == IO_U16 ? ((const uint16_t *)data)[k]
         : dtype == IO_I16 ? ((const int16_t *)data)[k] : ((const float *)data)[k];
}

/* Frames [0, n) of data (samples of dtype, px per frame) added to the per-pixel sums, frame
   after frame: the widefield mean's, whether the frames come at once or block by block. */
static void widefield_add(double *sum, const void *data, io_dtype dtype, uint64_t n, size_t px)
{
    size_t i;
    uint64_t f;
    for (f = 0; f < n; f++)
        for (i = 0; i < px; i++) sum[i] += sample_at(data, dtype, (size_t)f * px + i);
}

/* sums / n as float32 (px values): a new array, NULL when out of memory. */
static float *mean_of_sums(const double *sum, size_t px, uint64_t n)
{
    float *mean = (float *)malloc((px ? px : 1) * sizeof(float));
    size_t i;
    if (mean)
        for (i = 0; i < px; i++) mean[i] = (float)(sum[i] / (double)n);
    return mean;
}

/* The widefield mean of frames [0, n), for the preview. */
static float *widefield_mean(const io_stack *st, uint64_t n)
{
    size_t px = (size_t)st->rows * st->cols;
    double *sum = (double *)calloc(px ? px : 1, sizeof(double));
    float *mean;
    if (!sum) return NULL;
    widefield_add(sum, st->data, st->dtype, n, px);
    mean = mean_of_sums(sum, px, n);
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
                                       "the first choice until timings exist; a run's first piece is a warm-up" };
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

/* Series i of the run (0 .. ns - 1) as the file numbers it: cz[0] its channel, cz[1] its plane
   (from 1). */
static void series_cz(const options *o, const job *j, uint64_t i, uint64_t cz[2])
{
    uint64_t s = j->s0 + i;
    cz[0] = o->channel && o->channel != IO_CHANNEL_ALL ? o->channel : s % j->st.channels + 1;
    cz[1] = s / j->st.channels + 1;
}

/* --drift's table t's CSV (k 0) or plot (k 1): output_drift.csv, with one table per series
   output_drift_c2_z1.csv. */
static void drift_name(const options *o, const job *j, uint64_t t, unsigned k, char *buf, size_t bytes)
{
    char suffix[64];
    uint64_t cz[2];
    series_cz(o, j, t, cz);
    if (j->ntab > 1)
        snprintf(suffix, sizeof suffix, "_drift_c%llu_z%llu.%s", (unsigned long long)cz[0], (unsigned long long)cz[1],
                 k ? "png" : "csv");
    else snprintf(suffix, sizeof suffix, "_drift.%s", k ? "png" : "csv");
    sibling_name(o->output, suffix, buf, bytes);
}

/* Every file the run writes, named and listed in j->paths and j->files (each mode's TIFF, the
   preview, the extras, then --drift's tables and plots). Returns an exit status. */
#define MAX_OUTPUTS (HST_ESRRF_NUM_MODES + 1 + NUM_EXTRA)
static int list_outputs(const options *o, job *j)
{
    unsigned m, k, several = (o->modes & (o->modes - 1)) != 0;
    uint64_t t, nd = o->drift ? 2 * j->ntab : 0;
    if (nd > (UINT_MAX - MAX_OUTPUTS) / sizeof(io_outfile) ||   /* nout's count, every array's bytes */
        !(j->paths = (const char **)malloc((MAX_OUTPUTS + nd) * sizeof *j->paths)) ||
        !(j->files = (io_outfile **)malloc((MAX_OUTPUTS + nd) * sizeof *j->files)) ||
        (nd && (!(j->drift_out = (io_outfile *)calloc(nd, sizeof *j->drift_out)) ||
                !(j->drift_path = (char (*)[4200])malloc(nd * sizeof *j->drift_path))))) {
        fail("out of host memory for the outputs' names (%llu drift tables)", (unsigned long long)j->ntab);
        return 1;
    }
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (o->modes & (1u << m)) {
            mode_name(o->output, m, (int)several, j->tif_path[m], sizeof j->tif_path[m]);
            j->paths[j->nout] = j->tif_path[m];
            j->files[j->nout++] = &j->tif[m];
        }
    sibling_name(o->output, "_preview.png", j->png_path, sizeof j->png_path);
    if (o->preview) { j->paths[j->nout] = j->png_path; j->files[j->nout++] = &j->png; }
    for (k = 0; k < NUM_EXTRA; k++) {
        sibling_name(o->output, extra_suffix[k], j->extra_path[k], sizeof j->extra_path[k]);
        if (extra_wanted(o, k)) { j->paths[j->nout] = j->extra_path[k]; j->files[j->nout++] = &j->extra[k]; }
    }
    for (t = 0; t < nd; t++) {
        drift_name(o, j, t / 2, (unsigned)(t % 2), j->drift_path[t], sizeof j->drift_path[t]);
        j->paths[j->nout] = j->drift_path[t];
        j->files[j->nout++] = &j->drift_out[t];
    }
    return 0;
}

/* Which file a path names: an existing file by its device and inode (symlinks followed, so
   links and hard links of one file are one file); a file not there yet by its directory's device
   and inode and its name (it can only be another output's name). known 0: the directory cannot
   be read either (opening the output will say why). */
typedef struct file_id { int exists, known; uint64_t key[2]; const char *name; } file_id;

static file_id identify(const char *path)
{
    file_id id;
    char dir[4200];
    const char *slash = strrchr(path, '/');
    memset(&id, 0, sizeof id);
    if (cli_file_key(path, id.key)) {
        id.exists = id.known = 1;
    } else {
        if (!slash) snprintf(dir, sizeof dir, ".");
        else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        id.name = slash ? slash + 1 : path;
        id.known = cli_file_key(dir, id.key);
    }
    return id;
}

static int same_file(const file_id *a, const file_id *b)
{
    if (!a->known || !b->known || a->exists != b->exists || a->key[0] != b->key[0] || a->key[1] != b->key[1]) return 0;
    return a->exists || !strcmp(a->name, b->name);
}

/* No output may be the input or another output: refused before a frame is read. */
static int check_collisions(const options *o, const job *j)
{
    file_id in = identify(o->input), *ids = (file_id *)malloc((j->nout ? j->nout : 1) * sizeof *ids);
    unsigned k, i;
    int ok = ids != NULL;
    if (!ok) fail("out of host memory for the outputs' names");
    for (k = 0; ok && k < j->nout; k++) {
        ids[k] = identify(j->paths[k]);
        if (same_file(&ids[k], &in)) {
            fail("the output %s is the input %s (the same file): refused; choose another output name", j->paths[k],
                 o->input);
            ok = 0;
        }
        for (i = 0; ok && i < k; i++)
            if (same_file(&ids[k], &ids[i])) {
                fail("the outputs %s and %s are the same file: refused; choose another output name", j->paths[i],
                     j->paths[k]);
                ok = 0;
            }
    }
    free(ids);
    return ok;
}

/* Opens every output under a temporary name: an unwritable path fails before any work. */
static int open_outputs(job *j)
{
    char err[1024];
    unsigned k;
    for (k = 0; k < j->nout; k++)
        if (!io_outfile_open(j->files[k], j->paths[k], err, sizeof err)) {
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

/* v with prec digits (general: %g-style, else after the point), or "NaN" (the CSV's, whatever
   the C library spells). */
static const char *csv_number(char *out, size_t cap, double v, int prec, int general)
{
    if (isnan(v)) snprintf(out, cap, "NaN");
    else if (general) snprintf(out, cap, "%.*g", prec, v);
    else snprintf(out, cap, "%.*f", prec, v);
    return out;
}

/* The sweep's QnR table as CSV: a row per pair, sensitivity major (NanoPyx's map order); a
   value that does not exist (NaN; the resolution of FRC with one frame per time point:
   resolution_ok 0) is written NaN. */
static void sweep_csv(const options *o, const job *j, int resolution_ok, char *buf, size_t bytes)
{
    const hst_esrrf_sweep_result *w = &j->sweep;
    double ps = sr_pixel_size(&j->st, o->mag);
    size_t n;
    unsigned l, k;
    char q[32], r[32], px[32], len[32];
    n = (size_t)snprintf(buf, bytes, "sensitivity,radius,qnr,rsp,%s_px%s%s,best\n",
                         o->use_decorr ? "decorr_resolution" : "frc_resolution", ps > 0 ? ",resolution_" : "",
                         ps > 0 ? j->st.unit : "");
    for (l = 0; l < o->ns && n < bytes; l++)
        for (k = 0; k < o->nr && n < bytes; k++) {
            double res = resolution_ok ? w->resolution[l][k] : NAN;
            n += (size_t)snprintf(buf + n, bytes - n, "%g,%g,%s,%s,%s%s%s,%d\n", (double)o->sens[l],
                                  (double)o->radii[k], csv_number(q, sizeof q, w->qnr[l][k], 6, 0),
                                  csv_number(r, sizeof r, w->rsp[l][k], 6, 0), csv_number(px, sizeof px, res, 4, 0),
                                  ps > 0 ? "," : "", ps > 0 ? csv_number(len, sizeof len, res * ps, 6, 1) : "",
                                  l == w->best_sensitivity && k == w->best_radius);
        }
}

/* --drift's desc: the options' (mean without :N: the first DRIFT_MEAN_FRAMES frames, at most
   the stack's). */
static hst_drift_desc drift_desc(const options *o, uint64_t frames)
{
    hst_drift_desc dd = o->dd;
    if (dd.reference == HST_DRIFT_REF_MEAN && !o->drift_mean_given)
        dd.reference_frames = frames < DRIFT_MEAN_FRAMES ? (size_t)frames : DRIFT_MEAN_FRAMES;
    return dd;
}

/* A drift table (frames x 2) as CSV: frame, dy and dx in input pixels, and in the TIFF's unit
   where it gives a pixel size. */
static int drift_csv(const job *j, const double *drift, io_outfile *o, char *err, size_t err_bytes)
{
    double ps = sr_pixel_size(&j->st, 1);
    size_t cap, n;
    uint64_t f;
    char *text = NULL;
    int ok;
    if (j->st.frames < (SIZE_MAX - 128) / DRIFT_CSV_LINE) {   /* the header, then a line per frame */
        cap = 128 + (size_t)j->st.frames * DRIFT_CSV_LINE;
        text = (char *)malloc(cap);
    }
    if (!text) { snprintf(err, err_bytes, "out of host memory for the drift table"); return 0; }
    n = (size_t)snprintf(text, cap, "frame,dy_px,dx_px%s%s%s%s\n", ps > 0 ? ",dy_" : "", ps > 0 ? j->st.unit : "",
                         ps > 0 ? ",dx_" : "", ps > 0 ? j->st.unit : "");
    for (f = 0; f < j->st.frames && n < cap; f++) {
        double dy = drift[2 * f], dx = drift[2 * f + 1];
        n += (size_t)snprintf(text + n, cap - n, "%llu,%.4f,%.4f", (unsigned long long)f, dy, dx);
        if (ps > 0) n += (size_t)snprintf(text + n, cap - n, ",%.6g,%.6g", dy * ps, dx * ps);
        n += (size_t)snprintf(text + n, cap - n, "\n");
    }
    ok = io_write_text(o, text, err, err_bytes);
    free(text);
    return ok;
}

/* --drift's table of series i (frames x 2: dy, dx): its own with --drift-series each, else the
   one shared by every series. */
static double *drift_of(const job *j, uint64_t i)
{
    return j->drift + (j->ntab > 1 ? i : 0) * 2 * j->st.frames;
}

/* --drift's tables (CSV) and their plots (PNG). */
static int write_drift(const options *opt, job *j)
{
    static const char *const names[2] = { "dy (rows)", "dx (columns)" };
    char err[1024], title[160];
    hst_drift_desc dd = drift_desc(opt, j->st.frames);
    uint64_t t;
    snprintf(title, sizeof title, "drift against %s (input pixels; corrected by its opposite)",
             dd.reference == HST_DRIFT_REF_FIRST ? "the first frame"
             : dd.reference == HST_DRIFT_REF_MEAN ? "the mean of the first frames" : "the previous frames, added up");
    for (t = 0; t < j->ntab; t++)
        if (!drift_csv(j, drift_of(j, t), &j->drift_out[2 * t], err, sizeof err) ||
            !io_write_png_plot(&j->drift_out[2 * t + 1], drift_of(j, t), (size_t)j->st.frames, 2, names, "frame", "px",
                               title, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    return 1;
}

/* The extras into their temporary files: the sweep's CSV and heat map, the error map, the
   drift's table and plot. */
static int write_extras(const options *o, job *j, int resolution_ok, uint32_t rm, uint32_t cm)
{
    char err[1024], text[16384], labels[2][HST_ESRRF_SWEEP_MAX][24], title[160];
    const char *rl[HST_ESRRF_SWEEP_MAX], *cl[HST_ESRRF_SWEEP_MAX];
    double q[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX];
    unsigned l, k;
    if (o->sweep) {
        sweep_csv(o, j, resolution_ok, text, sizeof text);
        if (!io_write_text(&j->extra[EX_CSV], text, err, sizeof err)) { fail("%s", err); return 0; }
        for (l = 0; l < o->ns; l++) { snprintf(labels[0][l], 24, "%g", (double)o->sens[l]); rl[l] = labels[0][l]; }
        for (k = 0; k < o->nr; k++) { snprintf(labels[1][k], 24, "%g", (double)o->radii[k]); cl[k] = labels[1][k]; }
        for (l = 0; l < o->ns; l++)
            for (k = 0; k < o->nr; k++) q[l * o->nr + k] = j->sweep.qnr[l][k];
        snprintf(title, sizeof title, "eSRRF QnR (mag %u, %s); best: radius %g, sensitivity %g%s", o->mag,
                 o->use_decorr ? "decorrelation" : "FRC", (double)o->radii[j->sweep.best_radius],
                 (double)o->sens[j->sweep.best_sensitivity],
                 isnan(j->sweep.qnr[j->sweep.best_sensitivity][j->sweep.best_radius]) ? " (by RSP: no resolution)" : "");
        if (!io_write_png_heatmap(&j->extra[EX_HEAT], q, o->ns, o->nr, rl, cl, "sensitivity", "radius (input pixels)",
                                  title, 2, j->sweep.best_sensitivity, j->sweep.best_radius, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    if (o->drift && !write_drift(o, j)) return 0;
    if (o->quality) {
        snprintf(text, sizeof text, "halostream " HST_VERSION_STRING " esrrf error map (SQUIRREL: |fitted - widefield|, "
                 "RSE %g, RSP %g)", j->q.rse, j->q.rsp);
        if (!io_write_tiff(&j->extra[EX_EMAP], &j->od, o->mag, j->q.map, 1, rm, cm, text, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    return 1;
}

/* Mode m's TIFF's Software tag: the program and the settings. */
static void software_text(const options *o, unsigned m, char *buf, size_t bytes)
{
    snprintf(buf, bytes, "halostream " HST_VERSION_STRING " esrrf (mag %u, radius %g, sensitivity %g, %s, %s%s)",
             o->mag, o->radius, o->sensitivity, mode_names[m], o->intensity_weighting ? "intensity-weighted" : "unweighted",
             o->macro_pixel ? ", macro-pixel corrected" : "");
}

/* The first requested mode (the preview's, the error map's). */
static unsigned first_mode(const options *o)
{
    unsigned m = 0;
    while (!(o->modes & (1u << m))) m++;
    return m;
}

/* Mode m's hyperstack from the pages kept aside (series after series, each its ntp time points):
   page (tp, series) read back in ImageJ's order, the series fastest (channel, then plane), then
   the time point; one page in memory. The pages aside are removed. */
static int interleave_series(const options *o, job *j, unsigned m, uint64_t ntp, uint32_t rm, uint32_t cm,
                             const char *software, char *err, size_t err_bytes)
{
    size_t pxm = (size_t)rm * cm;
    float *page = (float *)malloc(pxm * sizeof(float));
    uint64_t tp, i;
    int ok;
    if (!page) { snprintf(err, err_bytes, "out of host memory for a page of %ux%u", cm, rm); return 0; }
    ok = io_tiff_begin(&j->tif[m], &j->od, o->mag, ntp * j->ns, rm, cm, software, &j->tw[m], err, err_bytes);
    for (tp = 0; ok && tp < ntp; tp++)
        for (i = 0; ok && i < j->ns; i++)
            ok = io_pages_read(&j->aside[m], i * ntp + tp, page, pxm, err, err_bytes) &&
                 io_tiff_page(j->tw[m], page, err, err_bytes);
    free(page);
    io_outfile_discard(&j->aside[m]);
    if (ok) ok = io_tiff_end(j->tw[m], err, err_bytes);
    else io_tiff_abort(j->tw[m]);
    j->tw[m] = NULL;
    return ok;
}

/* The TIFFs (a streamed run's: their last pages are in, each is closed, or its series' pages
   interleaved; else written whole) and the preview, then every file renamed into place
   (resolution_ok: as write_extras). */
static int write_outputs(const options *o, job *j, int resolution_ok, uint64_t ntp, uint32_t rm, uint32_t cm)
{
    char software[200], err[1024];
    unsigned m, first = first_mode(o);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        io_tiff_writer *w = j->tw[m];
        int ok;
        if (!(o->modes & (1u << m))) continue;
        software_text(o, m, software, sizeof software);
        j->tw[m] = NULL;   /* io_tiff_end frees it */
        ok = w ? io_tiff_end(w, err, sizeof err)
           : j->streamed ? interleave_series(o, j, m, ntp, rm, cm, software, err, sizeof err)
           : io_write_tiff(&j->tif[m], &j->od, o->mag, j->out[m], ntp, rm, cm, software, err, sizeof err);
        if (!ok) {
            fail("%s", err);
            return 0;
        }
    }
    if (o->preview) {
        char label[32];
        snprintf(label, sizeof label, "eSRRF %s", hst_esrrf_mode_name((int)first));
        if (j->sr_sum) {   /* a streamed run of several time points: their mean from the sums */
            free(j->out[first]);
            if (!(j->out[first] = mean_of_sums(j->sr_sum, (size_t)rm * cm, ntp))) { fail("out of host memory"); return 0; }
        } else if (!j->streamed) {
            mean_over_timepoints(j->out[first], (size_t)rm * cm, ntp, j->out[first]);   /* after the TIFF: free now */
        }
        if (!io_write_png_preview(&j->png, j->mean, j->st.rows, j->st.cols, j->out[first], o->mag,
                                  j->st.pixel_size, j->st.unit, "widefield mean", label, err, sizeof err)) {
            fail("%s", err);
            return 0;
        }
    }
    if (!write_extras(o, j, resolution_ok, rm, cm) || interrupted) return 0;
    for (m = 0; m < j->nout; m++)
        if (!io_outfile_commit(j->files[m], err, sizeof err)) { fail("%s", err); return 0; }
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

/* The drift table from rank 0 to every rank (each rank corrects its copy of the frames by the
   same table: the shift gives the same bits on every device). */
static void ranks_share(const ranks *rk, double *v, size_t n)
{
#ifdef HST_ESRRF_MPI
    if (rk->on) MPI_Bcast(v, (int)n, MPI_DOUBLE, 0, rk->comm);
#else
    (void)rk; (void)v; (void)n;
#endif
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
    double t_start, t_read, t_write, t_drift;
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
    d->frames_per_timepoint = o->roll_s ? o->roll_w : o->frames_per_tp;
    d->rolling_step = o->roll_s;
    d->modes = o->modes;
    d->path = o->chained ? HST_ESRRF_PATH_CHAINED : o->fused ? HST_ESRRF_PATH_FUSED : HST_ESRRF_PATH_AUTO;
    d->backends = &u->j.be;
    d->num_backends = 1;
    d->budget_bytes = o->budget_mib << 20;
    d->block_frames = o->block;
    memset(&u->pg, 0, sizeof u->pg);
    u->pg.tty = cli_is_terminal(stderr);
    u->pg.quiet = o->quiet || u->rk->rank != 0;
    d->progress = on_progress;
    d->progress_user = &u->pg;
#ifdef HST_ESRRF_MPI
    if (u->rk->size > 1) d->mpi_comm = &u->rk->comm;
#endif
}

/* A streamed run's outputs before its first frame: each mode's TIFF begun (its pages come as
   the time points do; several series: their pages kept aside, series after series, in a second
   temporary file beside the output, and interleaved into ImageJ's order at the end, since the
   series are computed one after another and the hyperstack wants each time point's series
   together), the preview's sums (the frames', and with several time points the first
   mode's images'; with one, that image is kept as it comes). Returns an exit status. */
static int begin_streamed_outputs(run *u)
{
    const options *o = &u->o;
    job *j = &u->j;
    char software[200], err[1024];
    size_t px = (size_t)j->st.rows * j->st.cols, pxm = (size_t)u->rm * u->cm;
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        if (!(o->modes & (1u << m))) continue;
        software_text(o, m, software, sizeof software);
        if (j->ns > 1 ? !io_outfile_open(&j->aside[m], j->tif_path[m], err, sizeof err)
                      : !io_tiff_begin(&j->tif[m], &j->od, o->mag, u->ntp, u->rm, u->cm, software, &j->tw[m], err,
                                       sizeof err)) {
            fail("%s", err);
            return 1;
        }
    }
    if (!o->preview) return 0;
    if (!(j->wf_sum = (double *)calloc(px, sizeof(double))) ||
        (u->ntp > 1 ? !(j->sr_sum = (double *)calloc(pxm, sizeof(double)))
                    : !(j->out[first_mode(o)] = (float *)malloc(pxm * sizeof(float))))) {
        fail("out of host memory for the preview's sums");
        return 1;
    }
    return 0;
}

/* The device (--device), its log kept in the job, with the end signals held by the caller (the
   drivers loaded now may install handlers of their own: release_signals puts ours back). */
static hst_result create_backend(run *u)
{
    hst_backend_desc bd;
    hst_result r;
    memset(&bd, 0, sizeof bd);
    bd.device = u->o.device;
    bd.logger = logger;
    bd.log_user = &u->j.ls;
    bd.log_level = HST_LOG_WARN;
    r = hst_esrrf_backend_create(&bd, &u->j.be, &u->auto_host);
    if (r == HST_SUCCESS) signal_backend = u->j.be;   /* before the signals held meanwhile arrive */
    return r;
}

/* create_backend's failure r said: an exit status. */
static int device_failed(run *u, hst_result r)
{
    fail("no device for '%s': %s%s%s", u->o.device ? u->o.device : "auto", hst_result_string(r),
         u->j.ls.last[0] ? ": " : "", u->j.ls.last);
    return r == HST_ERROR_NO_DEVICE ? 2 : 1;
}

/* The device opened. Returns an exit status (0: go on). */
static int open_backend(run *u)
{
    cli_sigmask mask;
    hst_result r;
    cli_hold_signals(&mask);
    r = create_backend(u);
    release_signals(&mask);
    return r == HST_SUCCESS ? 0 : device_failed(u, r);
}

/* --drift's tables against the series chosen: one, estimated from the first series or from
   --drift-series C,Z (one of the series the run computes: the others are not read), or one per
   series (--drift-series each). Returns an exit status. */
static int drift_tables(run *u)
{
    const options *o = &u->o;
    job *j = &u->j;
    uint64_t c0 = o->channel && o->channel != IO_CHANNEL_ALL ? o->channel : 1, z0 = o->plane ? o->plane : 1;
    uint64_t c1 = o->channel == IO_CHANNEL_ALL ? j->st.channels : c0, z1 = o->plane ? o->plane : j->st.planes;
    j->ntab = o->drift_each ? j->ns : 1;
    j->dsel = 0;
    if (!o->drift_c) return 0;
    if (o->drift_c < c0 || o->drift_c > c1 || o->drift_z < z0 || o->drift_z > z1) {
        fail("--drift-series %u,%u: not a series this run computes: channel %llu..%llu, plane %llu..%llu of %s (as "
             "--channel and --plane choose)", o->drift_c, o->drift_z, (unsigned long long)c0, (unsigned long long)c1,
             (unsigned long long)z0, (unsigned long long)z1, o->input);
        return 2;
    }
    j->dsel = (o->drift_z - z0) * j->st.channels + (o->drift_c - c0);
    return 0;
}

/* The input opened (every page checked) and the series chosen: --channel (one, or all) and
   --plane (one, or all) of the file's channels x z-planes, ImageJ's order (channel fastest);
   the outputs' description and --drift's tables from them. Returns an exit status (0: go on). */
static int open_series(run *u)
{
    const options *o = &u->o;
    job *j = &u->j;
    char err[1024];
    if (!io_stack_open(o->input, o->channel, o->max_frames, &j->st, &j->rd, err, sizeof err)) { fail("%s", err); return 2; }
    if (o->plane > j->st.planes) {
        fail("--plane %u: %s has %u z-plane(s)", o->plane, o->input, j->st.planes);
        return 2;
    }
    j->s0 = o->plane ? (uint64_t)(o->plane - 1) * j->st.channels : 0;
    j->ns = o->plane ? j->st.channels : j->st.series;
    j->od = j->st;
    j->od.planes = o->plane ? 1 : j->st.planes;
    return o->drift ? drift_tables(u) : 0;
}

/* open_series on a thread of its own while the main thread opens the device (prepare): a cold
   file's walk of its pages (small reads across the whole file: seconds for tens of thousands of
   pages) and a driver's start (about a second for a GPU's) overlap instead of taking turns.
   The drivers start on the main thread, as without the walk's thread (LLVM, PoCL's compiler,
   sets its own signal stack on the thread that loads it). The thread holds the end signals (it
   inherits the mask); the main thread takes them once the device is open. Where the system
   refuses a thread, the walk runs after the device opens. */
typedef struct series_walk {
    run *u;
    int status;   /* open_series's */
    hst_thread thread;
    int threaded;
} series_walk;

static void *series_walk_main(void *arg)
{
    series_walk *w = (series_walk *)arg;
    double t0 = now_s();
    w->status = open_series(w->u);
    w->u->t_read = now_s() - t0;   /* the summary's reading: the walk's own time */
    return NULL;
}

/* The device opened beside the walk of the input's pages. Returns an exit status (0: go on):
   the input's failure first (the device's then goes unsaid, as when it was not tried). */
static int open_series_and_device(run *u)
{
    series_walk w;
    cli_sigmask mask;
    hst_result r;
    memset(&w, 0, sizeof w);
    w.u = u;
    cli_hold_signals(&mask);
    w.threaded = hst_thread_create(&w.thread, series_walk_main, &w);
    r = create_backend(u);
    release_signals(&mask);
    if (w.threaded) hst_thread_join(&w.thread);
    else series_walk_main(&w);
    if (w.status) return w.status;
    return r == HST_SUCCESS ? 0 : device_failed(u, r);
}

/* The series read into j->st.data, for what holds every frame at once (whole: its name, for
   the message when the choice is several series); a streamed run reads j->rd instead.
   Returns an exit status (0: go on). */
static int load_series(run *u, const char *whole)
{
    const options *o = &u->o;
    job *j = &u->j;
    char err[1024];
    int ok;
    if (j->ns > 1) {
        fail("%s computes one series: %s holds %u channel(s) x %u z-plane(s); choose one with --channel C and "
             "--plane Z", whole, o->input, j->od.channels, j->od.planes);
        return 2;
    }
    ok = io_series_load(j->rd, j->s0, &j->st, err, sizeof err);
    io_stack_close(j->rd);
    j->rd = NULL;
    if (!ok) { fail("%s", err); return 2; }
    return 0;
}

/* Everything before eSRRF: the stack opened (every page checked; its series name --drift's
   outputs), the device, the files (rank 0 opens the outputs, before any frame is read), the
   stack read whole for --sweep, --quality and MPI ranks, the desc, the images. Returns an exit
   status (0: go on). */
static int prepare(run *u)
{
    options *o = &u->o;
    job *j = &u->j;
    cli_stat in_sb;
    double t0;
    unsigned m;
    int writer = u->rk->rank == 0, status;

    if (cli_stat_path(o->input, &in_sb) != 0) { fail("%s: %s", o->input, strerror(errno)); return 2; }
    if ((o->sweep || o->quality) && u->rk->size > 1) {
        fail("--sweep and --quality run in one process (not over MPI ranks)");
        return 2;
    }

    /* Open (every page checked) beside the device's opening (open_series_and_device), the
       outputs named and checked, the outputs created, read (the samples as they are). The
       device before any file is created: a driver that aborts while opening (SIGABRT from
       inside it bypasses the cleanup of the signal handler: PoCL did under an address-space
       limit) then leaves no temporary file. */
    j->streamed = !o->sweep && !o->quality && u->rk->size == 1;
    if ((status = open_series_and_device(u)) != 0) return status;
    if (writer && (status = list_outputs(o, j)) != 0) return status;
    if (writer && !check_collisions(o, j)) return 2;
    t0 = now_s();
    if (writer && !open_outputs(j)) return 2;
    if (!j->streamed && (status = load_series(u, o->sweep ? "--sweep" : o->quality ? "--quality"
                                                 : "a run over MPI ranks")) != 0)
        return status;
    u->t_read += now_s() - t0;
    if (interrupted) return interrupted_status();   /* a signal while the stack was read */
    make_desc(u);

    /* The shape (the library checks the arguments and names what is wrong), the outputs. */
    if (hst_esrrf_output_shape(&u->d, j->st.frames, j->st.rows, j->st.cols, &u->ntp, &u->rm, &u->cm) != HST_SUCCESS) {
        fail("%s: %s", o->input, j->ls.last);
        return 2;
    }
    if (j->streamed) {
        int status = begin_streamed_outputs(u);
        if (status) return status;
    } else {
        for (m = 0; writer && !o->sweep && m < HST_ESRRF_NUM_MODES; m++)   /* the sweep makes its own */
            if ((o->modes & (1u << m)) && !(j->out[m] = (float *)malloc((size_t)u->ntp * u->rm * u->cm * sizeof(float)))) {
                fail("out of host memory for the %s images", mode_names[m]);
                return 1;
            }
        if (writer && o->preview && !(j->mean = widefield_mean(&j->st, j->st.frames))) {
            fail("out of host memory");
            return 1;
        }
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
    if (u->o.quiet || u->rk->rank != 0 || u->notes_said++ || u->o.roll_s) return 0;   /* rolling: no clamp, no remainder */
    if (T > n)
        fprintf(stderr, PROG ": note: --frames-per-timepoint %llu is more than the %llu frames: clamped to %llu "
                "(one time point, as NanoPyx)\n", (unsigned long long)T, (unsigned long long)n, (unsigned long long)n);
    else if (T && n % T)
        fprintf(stderr, PROG ": note: the last time point has %llu frame(s), the others %llu (as NanoPyx)\n",
                (unsigned long long)(n % T), (unsigned long long)T);
    return 0;
}

/* Frames per time point as esrrf.h cuts them (0 and values above the frames: all frames). */
static uint64_t timepoint_frames(const run *u)
{
    uint64_t T = u->o.frames_per_tp, n = u->j.st.frames;
    if (u->o.roll_s) return u->o.roll_w;   /* a rolling window (never above the frames) */
    return T == 0 || T > n ? n : T;
}

/* Whether the run's resolution exists: decorrelation always, FRC (of the odd and the even
   frames' AVG images) with two frames per time point. */
static int resolution_exists(const run *u)
{
    return u->o.use_decorr || timepoint_frames(u) >= 2;
}

/* Series i of the run (0 .. ns - 1) as the file numbers it: "channel 2, plane 3". */
static void series_label(const run *u, uint64_t i, char *buf, size_t bytes)
{
    uint64_t cz[2];
    series_cz(&u->o, &u->j, i, cz);
    snprintf(buf, bytes, "channel %llu, plane %llu", (unsigned long long)cz[0], (unsigned long long)cz[1]);
}

/* ------------------------------------------------------------------------------ reader thread */
/* A streamed pass over a series (stream_series, drift_pass) reads its blocks of frames on a
   thread of its own, up to READ_AHEAD_BLOCKS blocks ahead of the block the main thread is
   correcting, summing and pushing: reading (the disk, libtiff's decoding) and computing then
   overlap instead of taking turns. (Taking turns, a cold 40 GiB BigTIFF on an H200 took 45.7 s:
   the disk's 27 s plus the device's 29.5 s.) The blocks come to the main thread in order, so
   what is pushed, and the first error met (a read's or a push's), are those of reading on the
   main thread: the same bits, the same message. The thread holds the end signals blocked (the
   main thread and the library's workers take them: "signals"); it stops at its next block once
   a signal has come or the main thread stops it (an error), and is always joined. Where the
   system refuses a thread (or its lock), the main thread reads each block itself when it needs
   it (as backend.h's hst_thread_create advises): slower, not wrong. Host memory: READ_AHEAD_BLOCKS + 1
   blocks of samples (the ring), where reading on the main thread held one. */
#ifndef READ_AHEAD_BLOCKS      /* (a build may set it: bench/esrrf_disk_bench.c compares builds) */
#define READ_AHEAD_BLOCKS 2   /* blocks read ahead of the one in use. One lets reading and
                                 pushing run side by side; a second lets either be a block slow
                                 (a page of directories to walk, a push whose copy into the
                                 live session's staging waits) without stalling the other. A
                                 push that waits for a whole piece (esrrf.h's back-pressure:
                                 HST_ESRRF_LIVE_BLOCKS blocks) is covered by the system's
                                 read-ahead (io_reader_read_ahead), which costs no memory of
                                 ours, not by more blocks here at block bytes each. Timed on
                                 an H200, a cold 40 GiB stack, builds interleaved in one job:
                                 1, 2 and 6 within the jobs' spread (525-550 frames/s, 1 and 2;
                                 bench/RESULTS.md). */
#endif
#define READ_RING (READ_AHEAD_BLOCKS + 1)   /* the block being used, and those read ahead */
#define READ_BLOCK 16   /* frames a block read without --block: a live session's automatic block
                           at most (esrrf.h), so that each push fills at least one of its blocks */

/* Frames per block read from the file: --block, else READ_BLOCK. Without --block the library
   picks its own block (desc.block_frames 0; make_desc): the host device alone without TAC2
   stages 32 MiB of RGC frames a block, one frame at 1000 x 1000, mag 5, not 16 (1.6 GB). */
static uint64_t read_block(const options *o) { return o->block ? o->block : READ_BLOCK; }

typedef struct prefetch {
    io_reader *rd;                 /* read by the thread alone while it runs */
    uint64_t series, frames, block;   /* the pass: frames [0, frames) of series, block at a time */
    size_t block_bytes;            /* the bytes of a full block */
    unsigned char *ring;           /* READ_RING blocks: block b in slot b % READ_RING */
    hst_thread thread;
    hst_mutex lock;
    hst_cond changed;              /* under lock: a block read, a slot handed back, stop, the end */
    uint64_t read;                 /* blocks read (under lock) */
    uint64_t taken;                /* blocks the main thread has taken (under lock) */
    int held;                      /* the main thread holds block taken - 1's slot (under lock) */
    int stop;                      /* the main thread stops the pass (under lock) */
    int done;                      /* the thread reads no more: it ends (under lock) */
    int failed;                    /* a read failed: err says why (under lock; err before it) */
    int synced;                    /* lock and changed made (else no thread: the main thread reads) */
    int threaded;                  /* a thread reads (else the main thread, on demand) */
    double read_s;                 /* seconds in io_series_read (the thread's until joined) */
    char err[1024];
} prefetch;

/* Frames in block b of the pass (the last one may be shorter). */
static uint64_t prefetch_count(const prefetch *pf, uint64_t b)
{
    uint64_t first = b * pf->block;
    return pf->frames - first < pf->block ? pf->frames - first : pf->block;
}

static unsigned char *prefetch_slot(const prefetch *pf, uint64_t b)
{
    return pf->ring + (size_t)(b % READ_RING) * pf->block_bytes;
}

/* Block b read into its slot (on whichever thread reads); 0: err says why. */
static int prefetch_read(prefetch *pf, uint64_t b)
{
    double t0 = now_s();
    int ok = io_series_read(pf->rd, pf->series, b * pf->block, prefetch_count(pf, b), prefetch_slot(pf, b), pf->err,
                            sizeof pf->err);
    pf->read_s += now_s() - t0;
    return ok;
}

/* The ring for blocks of `block` frames (frame_bytes each) of rd's passes of `frames` frames.
   0: out of host memory (nothing to close). A lock or condition the system refuses leaves the
   passes to the main thread, as a refused thread does. */
static int prefetch_open(prefetch *pf, io_reader *rd, uint64_t frames, uint64_t block, size_t frame_bytes)
{
    memset(pf, 0, sizeof *pf);
    if (frame_bytes && block > (SIZE_MAX - 1) / READ_RING / frame_bytes) return 0;   /* the ring + 1 byte */
    pf->rd = rd;
    pf->frames = frames;
    pf->block = block;
    pf->block_bytes = (size_t)block * frame_bytes;
    if (!(pf->ring = (unsigned char *)malloc(READ_RING * pf->block_bytes + 1))) return 0;
    if (hst_mutex_init(&pf->lock)) {
        if (hst_cond_init(&pf->changed)) pf->synced = 1;
        else hst_mutex_destroy(&pf->lock);
    }
    return 1;
}

static void prefetch_close(prefetch *pf)
{
    if (pf->synced) {
        hst_cond_destroy(&pf->changed);
        hst_mutex_destroy(&pf->lock);
    }
    free(pf->ring);
}

/* Whether the thread may read block b: it waits for b's slot to be handed back; 0 once the
   pass stops (the main thread's stop, or a signal). */
static int prefetch_may_read(prefetch *pf, uint64_t b)
{
    int go;
    hst_mutex_lock(&pf->lock);
    while (!pf->stop && !interrupted && b >= pf->taken - (uint64_t)pf->held + READ_RING)
        hst_cond_wait(&pf->changed, &pf->lock);
    go = !pf->stop && !interrupted;
    hst_mutex_unlock(&pf->lock);
    return go;
}

/* The thread: the pass's blocks in order, each as soon as its slot is free; then done (set
   whatever ended it, so that a main thread waiting for a block wakes). */
static void *prefetch_main(void *arg)
{
    prefetch *pf = (prefetch *)arg;
    uint64_t b;
    int ok = 1;
    for (b = 0; ok && b * pf->block < pf->frames && prefetch_may_read(pf, b); b++) {
        ok = prefetch_read(pf, b);
        hst_mutex_lock(&pf->lock);
        if (ok) pf->read = b + 1;
        else pf->failed = 1;
        hst_cond_broadcast(&pf->changed);
        hst_mutex_unlock(&pf->lock);
    }
    hst_mutex_lock(&pf->lock);
    pf->done = 1;
    hst_cond_broadcast(&pf->changed);
    hst_mutex_unlock(&pf->lock);
    return NULL;
}

/* A pass over series: its reader started, with the end signals held (the thread inherits the
   mask). */
static void prefetch_start(prefetch *pf, uint64_t series)
{
    cli_sigmask mask;
    pf->series = series;
    pf->read = pf->taken = 0;
    pf->held = pf->stop = pf->done = pf->failed = 0;
    pf->read_s = 0.0;
    pf->err[0] = '\0';
    cli_hold_signals(&mask);
    pf->threaded = pf->synced && hst_thread_create(&pf->thread, prefetch_main, pf);
    cli_release_signals(&mask);
}

/* The pass's next block (prefetch_count frames of it), after handing back the one the call
   before gave: NULL when it could not be read (prefetch_failed says so) or the reader stopped
   for a signal. Blocks come in order; the main thread asks for no more than the pass has. */
static const void *prefetch_next(prefetch *pf)
{
    const void *block = NULL;
    if (!pf->threaded) {   /* read here, into the one slot used */
        uint64_t b = pf->taken++;
        pf->failed = !prefetch_read(pf, b);
        return pf->failed ? NULL : prefetch_slot(pf, b);
    }
    hst_mutex_lock(&pf->lock);
    pf->held = 0;
    hst_cond_broadcast(&pf->changed);
    while (pf->read <= pf->taken && !pf->failed && !pf->done) hst_cond_wait(&pf->changed, &pf->lock);
    if (pf->read > pf->taken) {
        block = prefetch_slot(pf, pf->taken++);
        pf->held = 1;
    }
    hst_mutex_unlock(&pf->lock);
    return block;
}

/* After prefetch_next gave NULL: 1 and what could not be read in err when a read failed; 0
   when the reader stopped for a signal. */
static int prefetch_failed(prefetch *pf, char *err, size_t err_bytes)
{
    int failed;
    if (pf->threaded) hst_mutex_lock(&pf->lock);
    failed = pf->failed;
    if (pf->threaded) hst_mutex_unlock(&pf->lock);
    if (failed) snprintf(err, err_bytes, "%s", pf->err);
    return failed;
}

/* The pass ended (all read, an error, a signal): the reader stopped and joined. Returns the
   seconds it spent reading. */
static double prefetch_stop(prefetch *pf)
{
    if (pf->threaded) {
        hst_mutex_lock(&pf->lock);
        pf->stop = 1;
        hst_cond_broadcast(&pf->changed);
        hst_mutex_unlock(&pf->lock);
        hst_thread_join(&pf->thread);
        pf->threaded = 0;
    }
    return pf->read_s;
}

/* ------------------------------------------------------------------------------ drift */
/* The first pass over series i: every frame's drift into table, the frames pushed as read
   (--block at a time, on the reader thread: "reader thread") or the stack in memory at once
   (quality.h: the same drift either way). */
static hst_result drift_pass(run *u, const hst_drift_desc *dd, uint64_t i, double *table, int *read_failed, char *err,
                             size_t err_bytes)
{
    job *j = &u->j;
    uint64_t block = read_block(&u->o), k, n;
    size_t px = (size_t)j->st.rows * j->st.cols, esz = io_dtype_bytes(j->st.dtype);
    hst_drift *ds = NULL;
    const void *buf;
    prefetch pf;
    hst_result r;
    if (!j->streamed)
        return hst_drift_estimate(j->be, j->st.data, (hst_drift_dtype)j->st.dtype, (size_t)j->st.frames, j->st.rows,
                                  j->st.cols, dd, table);
    if (block > j->st.frames) block = j->st.frames;
    if (px > SIZE_MAX / esz || !prefetch_open(&pf, j->rd, j->st.frames, block, px * esz))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    prefetch_start(&pf, j->s0 + i);   /* the first block is read while the estimator opens */
    r = hst_drift_open(j->be, j->st.rows, j->st.cols, dd, &ds);
    for (k = 0; r == HST_SUCCESS && k < j->st.frames && !interrupted; k += n) {
        n = j->st.frames - k < block ? j->st.frames - k : block;
        if (!(buf = prefetch_next(&pf))) { *read_failed = prefetch_failed(&pf, err, err_bytes); break; }
        r = hst_drift_push(ds, buf, (hst_drift_dtype)j->st.dtype, (size_t)n);
        on_progress(k + n, j->st.frames, &u->pg);
    }
    prefetch_stop(&pf);
    if (r == HST_SUCCESS && !*read_failed && !interrupted) r = hst_drift_finish(ds, table, (size_t)j->st.frames);
    hst_drift_close(ds);
    prefetch_close(&pf);
    return r;
}

/* --drift's first pass (rank 0's table shared with every rank): over the series of each table
   (several series: the first one's, a channel and plane of one acquisition sharing the stage's
   drift; --drift-series C,Z's; or, with each, every series' own). Returns an exit status. */
static int estimate_drift(run *u)
{
    job *j = &u->j;
    hst_drift_desc dd = drift_desc(&u->o, j->st.frames);
    char err[1024], label[64];
    int read_failed = 0;
    double t0 = now_s();
    uint64_t t, i;
    hst_result r = HST_SUCCESS;
    if (j->st.frames < 2) {
        fail("--drift: %s has 1 frame: a drift needs 2 frames or more", u->o.input);
        return 2;
    }
    if (dd.reference_frames > j->st.frames) {
        fail("--drift=mean:%zu: %s has only %llu frames", dd.reference_frames, u->o.input,
             (unsigned long long)j->st.frames);
        return 2;
    }
    if (j->st.frames > SIZE_MAX / (2 * sizeof(double)) / j->ntab ||
        !(j->drift = (double *)malloc((size_t)(j->ntab * j->st.frames) * 2 * sizeof(double)))) {
        fail("out of host memory for the drift table(s) (%llu)", (unsigned long long)j->ntab);
        return 1;
    }
    if (!u->pg.quiet)
        fprintf(stderr, PROG ": drift: each frame against %s%s\n", dd.reference == HST_DRIFT_REF_FIRST ? "the first frame"
                : dd.reference == HST_DRIFT_REF_MEAN ? "the mean of the first frames" : "the previous frame",
                j->streamed ? " (the first of two passes over the file)" : "");
    for (t = 0; t < j->ntab && r == HST_SUCCESS && !read_failed && !interrupted; t++) {
        i = j->ntab > 1 ? t : j->dsel;
        series_label(u, i, label, sizeof label);
        if (j->ns > 1 && !u->pg.quiet)
            fprintf(stderr, PROG ": drift %s %s%s\n", j->ntab > 1 ? "of" : "from", label,
                    j->ntab > 1 ? "" : " (shared by every series)");
        progress_start(&u->pg, 0, 0, j->st.frames, 0, NULL);
        r = drift_pass(u, &dd, i, drift_of(j, t), &read_failed, err, sizeof err);
        progress_end(&u->pg);
    }
    u->t_drift = now_s() - t0;
    if (read_failed && !interrupted) { fail("%s", err); return 2; }
    return finished(u, r, "the drift estimation");
}

/* Frames [first, first + n) of the stack, src (samples of dtype), shifted back by their drift
   into dst (float32): liquid.h's hst_drift_correct, a frame at a time under the backend's lock
   (a streamed run's live session works on the backend meanwhile, on its worker thread). */
static hst_result correct_frames(job *j, const void *src, io_dtype dtype, uint64_t first, uint64_t n, float *dst)
{
    size_t px = (size_t)j->st.rows * j->st.cols, i;
    for (i = 0; i < (size_t)n * px; i++) dst[i] = sample_at(src, dtype, i);
    return hst_drift_correct(j->be, dst, (size_t)n, j->st.rows, j->st.cols, drift_of(j, j->cur) + 2 * first);
}

/* A stack in memory corrected (its float32 copy replaces it) and its widefield mean made again
   (the preview's: of the corrected frames); a streamed run corrects each block as it is read
   (compute_streamed). Every rank takes rank 0's table. Returns an exit status. */
static int apply_drift(run *u)
{
    job *j = &u->j;
    size_t px = (size_t)j->st.rows * j->st.cols;
    float *c;
    double t0 = now_s();
    hst_result r;
    ranks_share(u->rk, j->drift, (size_t)(j->ntab * j->st.frames) * 2);
    if (j->streamed) return 0;
    if (px > SIZE_MAX / sizeof(float) / j->st.frames || !(c = (float *)malloc((size_t)j->st.frames * px * sizeof(float)))) {
        fail("out of host memory for the drift-corrected stack (%llu frames of float32)", (unsigned long long)j->st.frames);
        return 1;
    }
    r = correct_frames(j, j->st.data, j->st.dtype, 0, j->st.frames, c);
    free(j->st.data);
    j->st.data = c;
    j->st.dtype = IO_F32;
    if (r == HST_SUCCESS && j->mean) {
        free(j->mean);
        if (!(j->mean = widefield_mean(&j->st, j->st.frames))) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    u->t_drift += now_s() - t0;
    return finished(u, r, "the drift correction");
}

/* eSRRF, every mode from one pass (collective over the ranks). Returns an exit status. */
static int compute(run *u)
{
    job *j = &u->j;
    hst_result r;
    progress_start(&u->pg, 0, 0, j->st.frames, 0, NULL);
    r = hst_esrrf_run(&u->d, j->st.data, dtype_of[j->st.dtype], j->st.frames, j->st.rows, j->st.cols, j->out, &u->rep);
    progress_end(&u->pg);
    return finished(u, r, "eSRRF");
}

/* A streamed run's time point: each mode's image appended to its TIFF (several series: to its
   pages aside), the first series' first mode's to the preview's sum (or kept: one time point). On the live session's worker thread; a failed write
   is kept for the main thread (which reads it once the session has returned an error or
   finished) and cancels the session through the progress callback. */
static void on_timepoint(uint64_t tp, const float *const *images, uint32_t rm, uint32_t cm, void *user)
{
    run *u = (run *)user;
    job *j = &u->j;
    size_t i, pxm = (size_t)rm * cm;
    unsigned m, first = first_mode(&u->o);
    (void)tp;
    for (m = 0; m < HST_ESRRF_NUM_MODES && !j->write_failed; m++)
        if (j->tw[m] ? !io_tiff_page(j->tw[m], images[m], j->write_err, sizeof j->write_err)
            : j->aside[m].tmp[0] && !io_pages_append(&j->aside[m], images[m], pxm, j->write_err, sizeof j->write_err))
            j->write_failed = 1;
    if (j->cur > 0) return;   /* the preview shows the first series */
    if (j->sr_sum)
        for (i = 0; i < pxm; i++) j->sr_sum[i] += images[first][i];
    else if (j->out[first])
        memcpy(j->out[first], images[first], pxm * sizeof(float));
}

static int on_stream_progress(uint64_t done, uint64_t total, void *user)
{
    run *u = (run *)user;
    return u->j.write_failed || on_progress(done, total ? total : u->j.st.frames, &u->pg);
}

/* One series of a stack larger than memory (j->cur): blocks of frames read from the file (on
   pf's thread, ahead: "reader thread") and pushed into a live session (esrrf.h: the same bits as
   the batch call), each time point written as it comes (on_timepoint); the first series' frames
   summed for the preview. Host memory: the reader's ring, the session's staging, one time
   point. *read_failed: err says what of the file could not be read. */
static hst_result stream_series(run *u, prefetch *pf, float *fixed, int *read_failed, char *err, size_t err_bytes)
{
    job *j = &u->j;
    hst_esrrf_live *lv = NULL;
    uint64_t k, n, block = pf->block;
    io_dtype pushed = fixed ? IO_F32 : j->st.dtype;
    size_t px = (size_t)j->st.rows * j->st.cols;
    const void *buf;
    hst_result r;
    prefetch_start(pf, j->s0 + j->cur);   /* the first block is read while the session starts */
    r = hst_esrrf_live_create(&u->d, dtype_of[pushed], j->st.rows, j->st.cols, &lv);
    for (k = 0; r == HST_SUCCESS && k < j->st.frames && !interrupted; k += n) {
        n = j->st.frames - k < block ? j->st.frames - k : block;
        if (!(buf = prefetch_next(pf))) { *read_failed = prefetch_failed(pf, err, err_bytes); break; }
        if (fixed && (r = correct_frames(j, buf, j->st.dtype, k, n, fixed)) != HST_SUCCESS) break;
        if (j->wf_sum && j->cur == 0) widefield_add(j->wf_sum, fixed ? (const void *)fixed : buf, pushed, n, px);
        r = hst_esrrf_live_push(lv, fixed ? (const void *)fixed : buf, n, j->st.rows, j->st.cols);
    }
    u->t_read += prefetch_stop(pf);   /* before finish: an error or a signal ends the reads now */
    if (r == HST_SUCCESS && !*read_failed && !interrupted) r = hst_esrrf_live_finish(lv, &u->rep);
    hst_esrrf_live_destroy(lv);   /* the worker stopped: its results are the main thread's now */
    return r;
}

/* The run's report: the last series' (its path and why), with every series' frames and time
   (sum: the series before the last). */
static void add_report(hst_esrrf_report *rep, const hst_esrrf_report *sum)
{
    rep->frames += sum->frames;
    rep->seconds += sum->seconds;
    rep->frames_by_path[0] += sum->frames_by_path[0];
    rep->frames_by_path[1] += sum->frames_by_path[1];
}

/* eSRRF of a stack larger than memory, series after series (one live session at a time: memory
   does not grow with the series; stream_series). Returns an exit status. */
static int compute_streamed(run *u)
{
    job *j = &u->j;
    uint64_t block = read_block(&u->o);
    size_t px = (size_t)j->st.rows * j->st.cols, esz = io_dtype_bytes(j->st.dtype);
    prefetch pf;   /* the blocks, read ahead on a thread of their own */
    float *fixed = NULL;   /* --drift: the block corrected, pushed instead */
    hst_esrrf_report before;   /* the series before the current one, summed */
    char err[1024], label[64];
    int read_failed = 0;
    hst_result r = HST_SUCCESS;
    if (block > j->st.frames) block = j->st.frames;
    /* The disk reads on while a push waits for the live session's worker (up to a piece of
       HST_ESRRF_LIVE_BLOCKS blocks) and the reader thread for a slot of its ring: the system is
       asked for a piece and two blocks ahead of the reader's read. */
    io_reader_read_ahead(j->rd, (HST_ESRRF_LIVE_BLOCKS + 2) * block);
    if (u->o.block) u->d.block_frames = block;   /* --block, at most the frames; else the library's */
    u->d.on_timepoint = on_timepoint;
    u->d.timepoint_user = u;
    u->d.progress = on_stream_progress;
    u->d.progress_user = u;
    if (px > SIZE_MAX / sizeof(float) / block || !prefetch_open(&pf, j->rd, j->st.frames, block, px * esz)) {
        fail("out of host memory for %d blocks of %llu frames (--block)", READ_RING, (unsigned long long)block);
        return 1;
    }
    if (j->drift && !(fixed = (float *)malloc((size_t)block * px * sizeof(float)))) {
        prefetch_close(&pf);
        fail("out of host memory for a block of %llu frames (--block)", (unsigned long long)block);
        return 1;
    }
    memset(&before, 0, sizeof before);
    for (j->cur = 0; j->cur < j->ns && r == HST_SUCCESS && !read_failed && !interrupted && !j->write_failed; j->cur++) {
        if (j->cur) add_report(&before, &u->rep);
        series_label(u, j->cur, label, sizeof label);
        if (j->ns > 1 && !u->pg.quiet)
            fprintf(stderr, PROG ": series %llu of %llu: %s\n", (unsigned long long)j->cur + 1, (unsigned long long)j->ns,
                    label);
        progress_start(&u->pg, 0, 0, j->st.frames, 0, NULL);
        r = stream_series(u, &pf, fixed, &read_failed, err, sizeof err);
        progress_end(&u->pg);
    }
    if (r == HST_SUCCESS && !read_failed) add_report(&u->rep, &before);
    prefetch_close(&pf);
    free(fixed);
    if (interrupted) return interrupted_status();
    if (read_failed) { fail("%s", err); return 2; }
    if (j->write_failed) { fail("%s", j->write_err); return 1; }
    if (r == HST_SUCCESS && j->wf_sum && !(j->mean = mean_of_sums(j->wf_sum, px, j->st.frames))) {
        fail("out of host memory");
        return 1;
    }
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
    char scoring[160];
    memset(&sw, 0, sizeof sw);
    sw.radii = o->radii; sw.num_radii = o->nr;
    sw.sensitivities = o->sens; sw.num_sensitivities = o->ns;
    sw.use_decorr = o->use_decorr;
    for (p = 0; p < np; p++)
        if (!(images[p] = (float *)malloc(bytes))) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    snprintf(scoring, sizeof scoring, "%u pair(s), their AVG images' RSP (error maps)%s", np,
             o->use_decorr ? " and decorrelation" : resolution_exists(u) ? " and FRC of odd and even frames" : "");
    progress_start(&u->pg, np, o->use_decorr, j->st.frames, timepoint_frames(u), scoring);
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
   at its best pair; else a sweep of the run's one pair; none, NaN, with one frame per time
   point). Returns an exit status. */
static int compute_quality(run *u)
{
    job *j = &u->j;
    const options *o = &u->o;
    size_t P = (size_t)u->rm * u->cm;
    unsigned first = first_mode(o);
    float *img = NULL, *wf = widefield_mean(&j->st, j->st.frames);
    hst_error_map_result em;
    hst_result r = HST_SUCCESS;
    j->q.map = (float *)malloc(P * sizeof(float));
    img = u->ntp > 1 ? (float *)malloc(P * sizeof(float)) : j->out[first];
    if (!wf || !j->q.map || !img) r = HST_ERROR_OUT_OF_HOST_MEMORY;
    if (r == HST_SUCCESS) {
        if (img != j->out[first]) mean_over_timepoints(j->out[first], P, u->ntp, img);
        if (!u->pg.quiet) fprintf(stderr, PROG ": scoring: the error map against the widefield mean (RSE, RSP)\n");
        r = hst_error_map(j->be, wf, j->st.rows, j->st.cols, img, u->rm, u->cm, NULL, j->q.map, &em);
    }
    if (img != j->out[first]) free(img);
    free(wf);
    if (r == HST_SUCCESS) {
        j->q.rse = em.rse;
        j->q.rsp = em.rsp;
    }
    j->q.frc_px = NAN;
    if (r == HST_SUCCESS && o->sweep) {
        j->q.frc_px = j->sweep.resolution[j->sweep.best_sensitivity][j->sweep.best_radius];
    } else if (r == HST_SUCCESS && resolution_exists(u)) {
        hst_esrrf_sweep_desc sw;
        hst_esrrf_sweep_result res;
        float radius = (float)o->radius, sens = (float)o->sensitivity;
        memset(&sw, 0, sizeof sw);
        sw.radii = &radius; sw.num_radii = 1;
        sw.sensitivities = &sens; sw.num_sensitivities = 1;
        progress_start(&u->pg, 1, 0, j->st.frames, timepoint_frames(u), "the RSP and the FRC of the AVG images of odd "
                       "and even frames");
        r = hst_esrrf_sweep(&u->d, &sw, j->st.data, dtype_of[j->st.dtype], j->st.frames, j->st.rows, j->st.cols,
                            NULL, &res);
        progress_end(&u->pg);
        j->q.frc_px = res.resolution[0][0];
    }
    return finished(u, r, "the quality report");
}

/* A resolution in magnified pixels, and in the TIFF's unit where it gives one; "none" where it
   does not exist (NaN; FRC with one frame per time point says why). */
static void print_resolution(const run *u, double px)
{
    double ps = sr_pixel_size(&u->j.st, u->o.mag);
    if (!resolution_exists(u)) { printf("none (needs two frames per time point)"); return; }
    if (isnan(px)) { printf("none"); return; }
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
    printf("            rows: sensitivity, columns: radius (input pixels)\n");
    printf("            sensitivity \\ radius");
    for (k = 0; k < o->nr; k++) printf(" %8g", (double)o->radii[k]);
    printf("\n");
    for (l = 0; l < o->ns; l++) {
        printf("            %-20g", (double)o->sens[l]);
        for (k = 0; k < o->nr; k++) {
            if (isnan(w->qnr[l][k])) printf(" %8s", "none");
            else printf(" %8.4f", w->qnr[l][k]);
        }
        printf("\n");
    }
    printf("  best      radius %g, sensitivity %g: ", (double)o->radii[bk], (double)o->sens[bl]);
    if (isnan(w->qnr[bl][bk])) printf("QnR none (it needs a resolution: the best RSP)");
    else printf("QnR %.4f", w->qnr[bl][bk]);
    printf(", RSP %.4f, resolution ", w->rsp[bl][bk]);
    print_resolution(u, w->resolution[bl][bk]);
    printf(" (the output image)\n");
}

/* The drift line of the summary: the reference, each table's largest drift (several series:
   named by the series estimated), the pass's time. */
static void print_drift(const run *u)
{
    const job *j = &u->j;
    hst_drift_desc dd = drift_desc(&u->o, j->st.frames);
    double ps = sr_pixel_size(&j->st, 1);
    uint64_t f, t, at;
    char label[64];
    printf("  drift     against %s", dd.reference == HST_DRIFT_REF_FIRST ? "the first frame"
           : dd.reference == HST_DRIFT_REF_MEAN ? "a mean" : "the previous frame");
    if (dd.reference == HST_DRIFT_REF_MEAN) printf(" of %zu frames", dd.reference_frames);
    for (t = 0; t < j->ntab; t++) {
        const double *d = drift_of(j, t);
        double most = 0.0;
        for (f = 0, at = 0; f < j->st.frames; f++) {
            double m = hypot(d[2 * f], d[2 * f + 1]);
            if (m > most) { most = m; at = f; }
        }
        series_label(u, j->ntab > 1 ? t : j->dsel, label, sizeof label);
        if (j->ns > 1) printf("%s %s", t ? "," : ";", label);
        printf(": largest %.3g px", most);
        if (ps > 0) printf(" (%.4g %s)", most * ps, j->st.unit);
        printf(" at frame %llu", (unsigned long long)at);
    }
    printf("; corrected (Catmull-Rom shift); %.3f s%s\n", u->t_drift,
           j->streamed ? " to estimate (the correction runs beside eSRRF, in its time)" : " to estimate and correct");
}

static void print_quality(const run *u)
{
    const quality *q = &u->j.q;
    printf("  quality   RSE %.6g, RSP %.4f (error map against the widefield mean); %s resolution ", q->rse, q->rsp,
           u->o.use_decorr ? "decorrelation" : "FRC");
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
    if (j->ns > 1)
        printf("\n  series    %u channel(s) x %u z-plane(s), each its own time series of %llu frames; each output an "
               "ImageJ hyperstack", j->od.channels, j->od.planes, (unsigned long long)j->st.frames);
    printf("\n  settings  mag %u, radius %g, sensitivity %g, intensity weighting %s, macro-pixel %s\n",
           o->mag, o->radius, o->sensitivity, o->intensity_weighting ? "on" : "off", o->macro_pixel ? "on" : "off");
    if (o->drift) print_drift(u);
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
    for (m = 0; m < j->nout; m++) printf(" %s", j->paths[m]);
    printf("\n");
}

/* --estimate-frames' report on stdout: the estimate, then (unless -q) the curve as CSV. */
static void print_estimate(const options *o, const hst_frames_estimate *est, const double *curve, size_t n)
{
    size_t k;
    if (est->reached)
        printf(PROG ": frames per time point: %zu (the mean SSIM of frames %zu apart fell 2 standard deviations "
               "below that of consecutive frames; %zu blocks of %zu frames, SSIM range %g)\n",
               est->frames, est->frames, est->blocks, n, est->range);
    else
        printf(PROG ": frames per time point: at least %zu (the SSIM never fell that far within a block of %zu "
               "frames: the scene held still; try --estimate-frames=%zu)\n", est->frames, n, 2 * n);
    if (o->quiet) return;
    printf("separation,mean_ssim,sd\n");
    for (k = 0; k < n; k++) printf("%zu,%.6f,%.6f\n", k, curve[k], curve[n + k]);
}

/* --estimate-frames: quality.h's estimate of the frames per time point for the whole stack
   (read into memory), printed with its curve; no eSRRF, no file. Returns an exit status. */
static int estimate_frames_run(run *u)
{
    const options *o = &u->o;
    job *j = &u->j;
    hst_frames_desc fd;
    hst_frames_estimate est;
    double *curve;
    size_t n;
    hst_result r;
    int status;
    if (u->rk->size > 1) { fail("--estimate-frames runs in one process (not over MPI ranks)"); return 2; }
    if ((status = open_series(u)) != 0 || (status = load_series(u, "--estimate-frames")) != 0) return status;
    if (interrupted) return interrupted_status();
    if ((status = open_backend(u)) != 0) return status;
    memset(&fd, 0, sizeof fd);
    fd.block_frames = (size_t)o->estimate_block;
    n = hst_estimate_frames_block(&fd, (size_t)j->st.frames);
    if (!(curve = (double *)calloc(2 * (n ? n : 1), sizeof *curve))) { fail("out of host memory for the SSIM curve"); return 1; }
    r = hst_estimate_frames(j->be, j->st.data, (hst_drift_dtype)dtype_of[j->st.dtype], (size_t)j->st.frames, j->st.rows,
                            j->st.cols, &fd, curve, &est);
    if (r == HST_SUCCESS) print_estimate(o, &est, curve, n);
    free(curve);
    if (interrupted) return interrupted_status();
    if (r == HST_SUCCESS) return 0;
    fail("--estimate-frames on %s: %s%s%s", o->input, hst_result_string(r), j->ls.last[0] ? ": " : "", j->ls.last);
    return r == HST_ERROR_INVALID_ARGUMENT || r == HST_ERROR_NON_FINITE ? 2 : 1;
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
    if (u.o.estimate) {
        status = estimate_frames_run(&u);
        if (!job_free(&u.j, 1) && status == 0) status = 1;
        return status;
    }

    status = ranks_agree(rk, prepare(&u));   /* no rank starts the collective run alone */
    if (status == 0 && u.o.drift) status = ranks_agree(rk, estimate_drift(&u));
    if (status == 0 && u.o.drift) status = ranks_agree(rk, apply_drift(&u));
    if (status == 0) status = u.o.sweep ? compute_sweep(&u) : u.j.streamed ? compute_streamed(&u) : compute(&u);
    if (status == 0 && u.o.quality) status = compute_quality(&u);
    if (status == 0 && rk->rank == 0) {
        t0 = now_s();
        if (!write_outputs(&u.o, &u.j, resolution_exists(&u), u.ntp, u.rm, u.cm))
            status = interrupted ? interrupted_status() : 1;
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
    init_modes();
    ranks_init(&rk, &argc, &argv);
    return ranks_finish(&rk, esrrf_main(argc, argv, &rk));
}
