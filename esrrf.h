/* esrrf.h — halostream's main job as a library: eSRRF super-resolution of a fluorescence time
   series (an in-memory stack in one call, or live frames pushed as a camera delivers them),
   streamed through one or several devices. Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file (it compiles the bodies of every
   halostream header included there: one copy of the library per program). Other files include
   it without the macro.

   Usage (a 16-bit stack of 500 frames of 512 x 512, every statistic from one pass):

       // given: const uint16_t *stack;   // (500, 512, 512)
       hst_backend *be; hst_backend_desc bd = {0}; hst_esrrf_desc d = {0};   // zero: NanoPyx's defaults
       float *out[HST_ESRRF_NUM_MODES] = {0};
       if (hst_backend_create(&bd, &be) != HST_SUCCESS) return 1;   // $HST_DEVICE, else the best device
       d.backends = &be; d.num_backends = 1;
       d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
       for (int m = 0; m < 3; m++) out[m] = malloc(2560 * 2560 * 4);   // (1, 512*5, 512*5) each
       hst_result r = hst_esrrf_run(&d, stack, HST_ESRRF_U16, 500, 512, 512, out, NULL);
       if (r != HST_SUCCESS) puts(hst_result_string(r));  // the backend's log says why
       // live: hst_esrrf_live_create(&d, HST_ESRRF_U16, 512, 512, &lv); then per frame(s)
       // hst_esrrf_live_push(lv, frames, k, 512, 512); and hst_esrrf_live_finish(lv, NULL):
       // each time point's images reach d.on_timepoint as soon as its last frame is in.

   Reference (every public function, by group; kernels_esrrf.h has the kernels and their twins):
     Device        hst_esrrf_backend_create   the backend eSRRF runs fastest on for a selector
     Modes         hst_esrrf_mode_name        a statistic's name (HST_ESRRF_MODES)
                   hst_esrrf_mode_parse       a name's mode index
     Batch         hst_esrrf_output_shape     time points and magnified size of a stack's output
                   hst_esrrf_run              eSRRF of a whole stack (one process, or MPI ranks)
     Live          hst_esrrf_live_create      a session taking frames as they arrive
                   hst_esrrf_live_push        frames in (copied; back-pressure)
                   hst_esrrf_live_finish      the last time points out, the report
                   hst_esrrf_live_destroy     stop and free
     Sweep         hst_esrrf_sweep            every (radius, sensitivity) pair's QnR in one pass

   Shapes and units. Input: T frames of rows x cols samples, C order, frame axis first (frame z
   at z * rows * cols samples), u8 / u16 / i16 / f32 in the host's byte order, read as they are:
   the conversion to float happens on the device. Output per requested mode: (time points,
   rows * mag, cols * mag) float32, C order; a time point is frames_per_timepoint consecutive
   frames (0: all frames, one time point), as NanoPyx cuts them: where they do not divide the
   frames, the last time point is shorter (the remainder), and a value above the frame count is
   clamped to it (logged at info level; the report gives the length used). A last time point
   of one frame has VAR 0 and TAC2 0 (NanoPyx: NaN, numpy's mean of no lag-1 products). Pixel (yM, xM) of the output is centred at input position
   ((yM + 0.5) / mag, (xM + 0.5) / mag) in input pixels; margins of int(radius * mag) output
   pixels on each side are exactly 0 (before macro-pixel correction, which leaves zeros zero).
   Radius is in input pixels; budget_bytes and sizes are bytes; times are seconds.

   Rolling (desc.rolling_step S > 0; NanoJ-eSRRF's rolling analysis). Time point k is the window
   of frames [k S, k S + W), W = frames_per_timepoint (required, >= 1), for k = 0 ..
   floor((T - W) / S): floor((T - W) / S) + 1 windows of T frames (NanoJ-eSRRF's count); frames
   after the last whole window are not read (batch) or not used (live); a window larger than
   the stack is HST_ERROR_INVALID_ARGUMENT naming frames_per_timepoint (no clamping); S > W
   leaves gaps whose frames are computed but used by no window. One pass over the frames, each
   frame's RGC computed once: the temporal sums are kept per block of g = gcd(W, S) frames (S
   where S divides W; where it does not, smaller blocks: W = 10, S = 4 gives blocks of 2),
   and each window's sums are the ordered sum of its W / g blocks' (block 0 first; the lag-1
   sum also adds, before each block's own, the product of the previous block's last frame and
   its first: hst_k_esrrf_roll), in double. Where one OpenCL device with fp64 runs the call
   and its sums' ring holds a window's blocks (at most 12 GiB, HST__E_ACC_MAX_BYTES), the blocks stay
   in that ring and the window's sums and statistics are made there (only the images come
   back; device memory: two windows' blocks of five sums, at most the ring's cap); otherwise
   (the host device, several backends, float sums, a ring too small) each block's requested
   sums (AVG 1 per pixel, VAR 2, TAC2 4) are read back once into a host ring of W / g blocks
   (AVG at W 100, S 10 on 5000 x 5000 images: 2 GB) and the window is summed on the host's
   cores, with the same bits. Then the statistics, correction and check as for any time
   point. Cost beyond the plain call: per window W / g additions per pixel and sum, and the
   window's images (their read-back, correction and check: the bulk of it); g = 1 costs W / S
   additions per pixel and frame.
   Bits: the window alone (hst_esrrf_run on its W frames) adds frame after frame; here block
   sums are added, another order, except where g = 1 (blocks of one frame: the same order) or
   g = W (W divides S: one block per window), which give the same bits, as do sums that are
   exact in double (e.g. identical frames and W <= 32, or one nonzero frame per window).
   Otherwise each of the two double sums of n = W terms is within (n - 1) 2^-53 sum |x| of the
   exact one (recursive summation), so they differ by at most 2 (W - 1) 2^-53 sum |x|: for AVG
   (RGC values >= 0) a relative 2.2e-14 at W = 100, against float's half ulp of 6e-8, so a
   float differs by 1 ulp and only where the exact mean lies that close to a rounding boundary
   (a fraction of pixels near 2 W 2^-53 / 2^-24, ~4e-7 at W = 100); VAR and TAC2 subtract
   nearly equal terms, which amplifies that relative error by (S2 / n) / VAR, still a few ulp
   except where VAR or TAC2 is near 0 (the absolute error stays ~1e-16 S2 / n). Measured
   (bench/esrrf_rolling_bench.c, 64 x 64 frames at mag 5, W 100, S 10, the host device, 10
   windows): 0 of 1,024,000 floats differ for AVG and VAR, 1 for TAC2 (by 1 ulp); 32 x 32 on
   PoCL, 5 windows: none; tests/test_esrrf_rolling.c's windows (W <= 23): none. On one H200
   (W 100, S 10, 500 u16 frames, mag 5; bench/RESULTS.md): 1000 x 1000, AVG, 1.25x the plain
   call's time (41 images of 25 Mpixels come back, corrected by the finisher's thread while the
   device computes: ">>finisher"); 500 x 500, AVG, 1.35x; all three modes at 1000 x 1000 2.2x
   (123 images' correction on the host's cores bounds it).

   The math: SRRF's radial gradient convergence (Gustafsson et al., "Fast live-cell conventional
   fluorophore nanoscopy with ImageJ through super-resolution radial fluctuations", Nat. Commun.
   2016), as enhanced in eSRRF (Laine et al., "High-fidelity 3D live-cell nanoscopy through data-
   driven enhanced super-resolution radial fluctuation", Nat. Methods 2023), with NanoPyx's
   conventions and defaults (Catmull-Rom magnification, Roberts-cross gradients, temporal AVG /
   VAR / TAC2, macro-pixel correction); kernels_esrrf.h gives every formula and the
   few places where we deliberately differ from NanoPyx. The temporal statistics come from five
   per-pixel sums (S1, S2, lag-1 products, first and last frame), so AVG, VAR and TAC2 are all
   computed from ONE pass over the frames.

   Paths. Fused (one kernel per frame: RGC with the 2x-magnified gradients interpolated on the
   fly, never stored) and chained (Roberts -> magnify -> RGC, device-only intermediates) give the
   same bits. path 0 (auto) chooses by measured speed through choice.h's registry
   (operation "esrrf", implementations "fused" and "chained", signature {rows, cols, mag, frames
   per block, or 64 per backend where blocks are longer}): while it has no timings of its own for this
   signature, pieces of that many frames run through each path; timings persist in the cache directory; HST_FORCE=esrrf:fused forces one.

   Bits. Results do not depend on how the frames are cut: the batch call and the live API with
   any push sizes give the same bits on the same backend; fused and chained give the same bits;
   the host device and an OpenCL device give the same bits where kernels_esrrf.h says so (fp64
   devices); so do the host device's builds for AVX-512, AVX2 + FMA and plain C, picked by the
   CPU at run time (HST_HOST_ISA=avx2 or portable caps the pick). Several backends in a batch call: backend k computes its share of the magnified
   rows of every frame (shares in proportion to each backend's measured speed in earlier calls,
   kept in its timings as operation "esrrf_rows"; equal until each has one), all at once, each in a thread of its own, so each pixel's
   frames are summed in order on one backend and the images are one backend's bits (host and
   OpenCL backends mixed: where the device has fp64); each finishes its rows on its thread
   (the macro-pixel correction, whose sums run over the rows in order, backend after backend;
   the finite check). A live session on several backends splits
   each piece of frames instead and sums their sums: its images differ from one backend's by the
   rounding of that double-precision addition (a few ulp, more where VAR or TAC2 cancel).

   MPI ranks (HST_ESRRF_MPI, desc.mpi_comm = &comm). hst_esrrf_run becomes collective: every
   rank of comm calls it with the same desc values, the whole stack and the same shape; rank k
   of K computes magnified rows [rowsM k / K, rowsM (k + 1) / K) of every frame on its own
   backends, adds them to the macro-pixel correction's sums (which run through the ranks in
   order, as over the backends of one process) and sends them to rank 0 meanwhile; rank 0
   receives them into its out (other ranks' out is not touched and may be NULL), corrects and
   checks the whole images and calls on_timepoint. Ranks but 0 keep their rows' host memory on
   their first backend for the next call (hst_backend_destroy frees it). Each rank's host
   stages (the sums, the correction, the host device's threads) run on threads over the cores
   it is bound to: launch with `mpirun --bind-to none`, or a mapping that gives each rank its
   cores (e.g. `--map-by ppr:1:numa:PE=N`). Open MPI's default binds each of two ranks or fewer
   to one core: on two H100s, 500 frames of 1000 x 1000 at mag 5, one GPU per rank, the call
   then took 0.41 s (1.78x one process under the same binding) against 0.353-0.356 s (1.93-
   1.95x) with --bind-to none. Why rows
   and not frames: each pixel's temporal sums then run over its frames in order on one rank, as
   in one process, so the images are the same bits as one process's for any K (a split of the
   frames would add partial sums in another order). Each rank therefore reads every frame (its
   rows need them all); the fused path runs (the chained one has no row window; both give the
   same bits). Progress: rank 0's callback, whose frames are the whole job's (every rank walks
   every frame); a cancel there ends every rank with HST_ERROR_CANCELLED once they finish their
   rows. A failure on any rank (a bad argument there, out of memory, a non-finite pixel) ends
   every rank with the first failing rank's code; the other ranks log HST_LOGITEM_RANK_FAILED naming
   it. The report: the job's counts and path (rank 0's) on every rank, with the rank's own
   times (its mpi_* fields among them).

   Options (macros)                     matters in
     HST_IMPLEMENTATION                 the implementation TU: compile every header's body
     HST_ESRRF_IMPLEMENTATION           the implementation TU: compile esrrf.h's body only
     HST_ESRRF_MPI                      the implementation TU: hst_esrrf_run over MPI ranks
                                        (desc.mpi_comm; needs mpi.h; link MPI, e.g. build with mpicc)
     HST_NO_OPENCL, HST_STATIC, HST_API as in backend.h
   The implementation uses backend.h's OS shim (the live API's worker, the host device's
   threads): link with -lpthread where it runs on POSIX threads (Win32 threads on Windows).

   What it does NOT do: rolling windows in the parameter sweep (refused); no drift correction or registration of the frames; no 3-D eSRRF; the
   parameter sweep on one backend only (not over several, nor MPI ranks); no shift in the magnification (NanoPyx's xyoffset
   compensation of the Roberts cross's half-pixel shift is not applied, as its chained path
   does not); input dtypes other than u8/u16/i16/f32 must be converted by the caller; live
   sessions and batch calls on one backend take turns (below), they do not share the device;
   MPI ranks get equal rows whatever their speed; the live API in one process only (not over
   MPI ranks).

   Thread safety: in backend.h's words (its top comment). hst_esrrf_run: per backend, on every
   backend of the desc. A live session is one object: push and finish from one thread at a time;
   its callbacks run on the session's worker thread. Sessions side by side on one backend are
   allowed: their workers, creation, finish and destruction, and hst_esrrf_run, take the
   backend's lock (hst_backend_lock), so they take turns on it. A callback may call
   hst_esrrf_run on its backend (the lock is recursive), but must not push into or finish
   another session of that backend (its worker would wait for the lock the callback's holds).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (the full text at the
   end of this file). */

#ifndef HST_ESRRF_H
#define HST_ESRRF_H

#include "choice.h"   /* the CPU/GPU choice of the "esrrf" operation */
#include "quality.h"  /* the sweep's scores: SQUIRREL's RSP, FRC, decorrelation */
#include "stream.h"

#if defined(HST_IMPLEMENTATION) && !defined(HST_ESRRF_IMPLEMENTATION)
#  define HST_ESRRF_IMPLEMENTATION
#endif
/* The esrrf kernel family: compiled where esrrf.h's implementation is. */
#if defined(HST_ESRRF_IMPLEMENTATION) && !defined(HST_KERNELS_ESRRF_IMPLEMENTATION)
#  define HST_KERNELS_ESRRF_IMPLEMENTATION
#endif
#include "kernels_esrrf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Input sample types (the numbers are kernels_esrrf.h's to_float dtype codes). */
typedef enum hst_esrrf_dtype {
    HST_ESRRF_U8 = 1, HST_ESRRF_U16 = 2, HST_ESRRF_I16 = 3, HST_ESRRF_F32 = 4
} hst_esrrf_dtype;

/* The temporal statistics (kernels_esrrf.h's "Statistics" defines them), listed once:
   X(ID, index, name, sums, least, what), in index order. desc.modes is a set of HST_ESRRF_<ID> = 1 << index (any
   combination, from one pass); index is out[]'s and images[]'s; name is hst_esrrf_mode_name's
   (NanoPyx's temporal_correlation), which the CLI's --mode, its output files' suffixes and the
   Python package's modes take in lower case; sums: the per-pixel sums it reads (bit q: sum q
   of S1, S2, lag-1, first, last), the only ones that come back from a device (lag-1: the
   streams load the frame before each block); least: the frames per time point it needs (a
   stack or a frames_per_timepoint below is refused). A mode added here needs its statistic in
   hst_k_esrrf_finalize and hst_k_esrrf_stat. */
#define HST_ESRRF_MODES(X) \
    X(AVG, 0, "AVG", 0x01u, 1, "mean of a time point's frames") \
    X(VAR, 1, "VAR", 0x03u, 2, "their variance (ddof 0)") \
    X(TAC2, 2, "TAC2", 0x1du, 2, "their lag-1 autocovariance (second-order temporal cumulant)")
#define HST__ESRRF_MODE_BIT(id, index, name, sums, least, what) HST_ESRRF_##id = 1 << (index),
#define HST__ESRRF_MODE_ONE(id, index, name, sums, least, what) + 1
enum { HST_ESRRF_MODES(HST__ESRRF_MODE_BIT) HST__ESRRF_MODE_END };
#define HST_ESRRF_NUM_MODES (0 HST_ESRRF_MODES(HST__ESRRF_MODE_ONE))
#define HST_ESRRF_ALL_MODES ((1u << HST_ESRRF_NUM_MODES) - 1u)

typedef enum hst_esrrf_path {
    HST_ESRRF_PATH_AUTO = 0,   /* the faster, by measured speed */
    HST_ESRRF_PATH_FUSED,
    HST_ESRRF_PATH_CHAINED
} hst_esrrf_path;

#define HST_ESRRF_MAX_MAG 32
#define HST_ESRRF_MAX_RADIUS 20.0f
#define HST_ESRRF_MAX_SENSITIVITY 100.0f
/* What a zero in hst_esrrf_desc stands for (NanoPyx's defaults); the CLI and the Python
   package take theirs from here. */
#define HST_ESRRF_DEFAULT_MAGNIFICATION 5
#define HST_ESRRF_DEFAULT_RADIUS 1.5f
#define HST_ESRRF_DEFAULT_SENSITIVITY 1.0f

/* Called after each block of frames: frames accumulated so far and the total (0 while a live
   session does not know it; the sweep counts steps instead: hst_esrrf_sweep). Return nonzero
   to cancel (HST_ERROR_CANCELLED). Cancelling, or interrupting a backend of the call
   (hst_backend_interrupt, e.g. from a SIGINT handler), takes effect at the next block: none
   starts after it; on an OpenCL device the blocks already enqueued finish (and are reported),
   at most 2 per device (1 on an OpenCL CPU device, whose ring is 2 blocks deep). On the host
   device an interruption also stops the block itself within milliseconds (64 magnified rows of
   a frame for the fused path; a frame of the chained path's RGC, about a second). */
typedef int (*hst_esrrf_progress_fn)(uint64_t frames_done, uint64_t frames_total, void *user);
/* A finished time point: images[m] is mode m's image (rows*mag x cols*mag float32, C order;
   NULL for modes not requested), valid during the call. Batch calls also call it, after
   writing the images into out. */
typedef void (*hst_esrrf_timepoint_fn)(uint64_t timepoint, const float *const *images,
                                       uint32_t rows_mag, uint32_t cols_mag, void *user);

/* Zero-initialised = NanoPyx's defaults. */
typedef struct hst_esrrf_desc {
    unsigned magnification;         /* 1..32; 0: HST_ESRRF_DEFAULT_MAGNIFICATION (5) */
    float radius;                   /* ring radius, input pixels, (0, 20]; 0: _DEFAULT_RADIUS (1.5) */
    float sensitivity;              /* exponent of the RGC, (0, 100]; 0: _DEFAULT_SENSITIVITY (1) */
    int no_intensity_weighting;     /* 0: RGC times the magnified frame (NanoPyx's default) */
    int no_macro_pixel_correction;  /* 0: corrected (NanoPyx's default) */
    uint64_t frames_per_timepoint;  /* 0: all frames are one time point; more than the frames:
                                       clamped to them; the last time point takes the remainder */
    unsigned modes;                 /* HST_ESRRF_AVG | _VAR | _TAC2; 0: AVG */
    hst_esrrf_path path;            /* 0: auto */
    hst_backend *const *backends;   /* 1..HST_STREAM_MAX_BACKENDS devices; host and OpenCL
                                       backends may be mixed (see "Bits" above) */
    unsigned num_backends;
    uint64_t budget_bytes;          /* device memory per device for the stream's ring; 0: as
                                       stream.h (3/4 of the device) */
    uint64_t block_frames;          /* frames per streamed block; 0: automatic (about 1/16 of
                                       the stack, at least 16, at most what the budget holds:
                                       stream.h's hst_stream_block_query; the host device
                                       alone without TAC2: 32 MiB of RGC frames, >= 1) */
    hst_esrrf_progress_fn progress;
    void *progress_user;
    hst_esrrf_timepoint_fn on_timepoint;   /* required by the live API */
    void *timepoint_user;
    const void *mpi_comm;           /* NULL: one process. Else the address of an MPI_Comm over
                                       which hst_esrrf_run is collective (see "MPI ranks"
                                       above; an implementation built without HST_ESRRF_MPI
                                       answers HST_ERROR_NOT_BUILT_IN) */
    uint64_t rolling_step;          /* 0: time points cut one after another (above). S > 0:
                                       rolling time points (see "Rolling" above), windows of
                                       frames_per_timepoint (W > 0, required) frames starting
                                       every S frames */
} hst_esrrf_desc;

/* How the path was decided. */
enum { HST_ESRRF_BY_DESC = 1, HST_ESRRF_BY_ENV, HST_ESRRF_BY_MEASURED, HST_ESRRF_BY_FIRST_GUESS };

typedef struct hst_esrrf_report {
    uint64_t frames;                /* frames accumulated into complete time points (rolling:
                                       the last window's end, (windows - 1) S + W) */
    uint64_t timepoints;            /* images per mode delivered */
    uint64_t frames_per_timepoint;  /* the time point length used: desc's, clamped to the frames
                                       (0 in desc: all of them) */
    uint64_t last_timepoint_frames; /* frames of the last time point: frames_per_timepoint, or
                                       fewer where they do not divide the frames (the remainder) */
    uint64_t block_frames;          /* frames per block used */
    uint64_t frames_by_path[2];     /* frames run through fused, chained */
    hst_esrrf_path path;            /* the path that ran the most frames */
    int decided_by;                 /* HST_ESRRF_BY_* */
    double seconds_per_frame[2];    /* the choice's estimates for fused, chained; NaN unknown */
    int estimate_from[2];           /* where each estimate comes from: HST_CHOICE_EXACT (timings
                                       of this size), _DEFAULT (shipped), _NEAREST (another
                                       size's); HST_CHOICE_NONE: none */
    double stream_seconds;          /* of which the streams ran (sums on the devices) */
    double finish_seconds;          /* of which time points were read back and finished (sums
                                       over devices, statistics, macro-pixel correction, the
                                       check that every pixel is finite) on the calling thread;
                                       a batch call on one fp64 device finishes on a thread of
                                       its own beside the streams: only the calling thread's
                                       waits for it count */
    double seconds;                 /* wall time of the streaming (batch: the call; live:
                                       create to finish) */
    double setup_seconds;           /* of which the call made its engine: the sums' buffers,
                                       the choice, each stream (device buffers, pinned staging,
                                       programs) */
    double teardown_seconds;        /* of which a batch call freed them (live: 0, its destroy) */
    double wait_seconds;            /* several backends: of which the calling thread, done with
                                       backend 0's rows, waited for the other backends (their
                                       rows, their turns in the macro-pixel correction's sums);
                                       0 with one. With several backends every other field but
                                       seconds is backend 0's (its rows run on the calling
                                       thread); what no field names (seconds less the others)
                                       is the threads' start, the callbacks, the progress.
                                       MPI ranks: this rank waiting for the others (the
                                       agreements, the previous rank's sums, the final sums) */
    /* Live sessions only (0 in batch calls): where a session's time went, from its first push
       to the return of hst_esrrf_live_finish. */
    uint64_t handoffs;              /* pieces of frames handed to the worker, each one run of the
                                       streams (an idle worker takes every frame pushed so far) */
    uint64_t handoff_frames_max;    /* frames of the largest piece */
    double push_copy_seconds;       /* pushes copying frames into the session's staging */
    double push_wait_seconds;       /* pushes waiting for the worker (back-pressure) */
    double worker_idle_seconds;     /* the worker waiting for frames (the first included) */
    double finish_wait_seconds;     /* hst_esrrf_live_finish waiting for the worker's last piece */
    /* MPI ranks only (0 otherwise): this rank's own seconds around its rows' engine (whose
       times are the fields above, this rank's too; the counts and the path are rank 0's). */
    double mpi_setup_seconds;       /* the checks and agreements before its rows, its rows' host
                                       memory (kept from the previous call where it fits) */
    double mpi_sums_seconds;        /* adding its rows to the macro-pixel correction's sums */
    double mpi_correct_seconds;     /* rank 0: correcting and checking the whole images (its
                                       own rows beside the gather); 0 on the other ranks */
    double mpi_gather_seconds;      /* waiting for the gather of the rows into rank 0's images
                                       to end (it runs beside the sums and the agreements) */
} hst_esrrf_report;

/* The backend eSRRF runs fastest on for desc's selector: hst_backend_create's, except that
   `auto` (desc->device "auto", or NULL with $HST_DEVICE unset or "auto") landing on an OpenCL
   CPU device gives the host device instead: for eSRRF the kernels' C twins on all cores beat
   PoCL five times (the shipped stack on 2 cores: 17 s against 92 s; bench/RESULTS.md). "cpu"
   still selects the OpenCL CPU device. *host_instead (may be NULL) is 1 when that happened.
   Errors: hst_backend_create's. Thread-safe. */
HST_API HST_NODISCARD hst_result hst_esrrf_backend_create(const hst_backend_desc *desc, hst_backend **out,
                                            int *host_instead);

/* Mode index m's name ("AVG", "VAR", "TAC2": HST_ESRRF_MODES), NULL for m outside
   [0, HST_ESRRF_NUM_MODES). Static storage. Thread-safe. */
HST_API const char *hst_esrrf_mode_name(int mode);
/* The index of the mode named by the len characters at name, in any case ("tac2" or "TAC2":
   2), or -1 (none, or name NULL). Thread-safe. */
HST_API int hst_esrrf_mode_parse(const char *name, size_t len);

/* The output's shape for a stack of `frames` frames of rows x cols under desc (validated as
   hst_esrrf_run validates it). Errors: HST_ERROR_INVALID_ARGUMENT (the log names the field),
   HST_ERROR_OVERFLOW (the output size overflows size_t or the kernels' 32-bit indices).
   Thread safety: per backend (it logs through desc.backends[0]). */
HST_API HST_NODISCARD hst_result hst_esrrf_output_shape(const hst_esrrf_desc *desc, uint64_t frames,
                                          uint32_t rows, uint32_t cols, uint64_t *timepoints,
                                          uint32_t *rows_mag, uint32_t *cols_mag);

/* eSRRF of a whole stack (frames x rows x cols samples of dtype, C order) into out[m] for each
   requested mode m (0 AVG, 1 VAR, 2 TAC2): time points x rows*mag x cols*mag float32 each, C
   order (out[m] of unrequested modes is not read and may be NULL). The stack is never written.
   report may be NULL. On OpenCL devices a thread of the call writes a zero into each page of
   out while the devices stream, so that the read-back does not wait for fresh pages (out is
   the caller's to write into; after an error, time points not delivered through on_timepoint
   hold unspecified values). Finite input gives finite images or an error, never a silent Inf or NaN:
   the temporal sums are double (an OpenCL device without fp64: float, checked the same way).
   Errors (each logged with the argument named): HST_ERROR_INVALID_ARGUMENT (frames, rows or
   cols 0, magnification 0 or > 32 after the default, radius <= 0, NaN or > 20, sensitivity,
   modes, path, fewer than 2 frames per time point for VAR or TAC2, a NULL pointer, no
   backends, rolling_step without frames_per_timepoint, a rolling window larger than the stack
   or than 2^32 - 1 frames; logged as HST_LOGITEM_ZERO_SIZE, _OUT_OF_RANGE, _NULL_ARGUMENT, else
   _BAD_ARGUMENT), HST_ERROR_OVERFLOW, HST_ERROR_NON_FINITE (an f32 pixel is NaN or Inf: the log
   names the frame, row and column; or a statistic of finite input is not representable in
   float32, e.g. VAR of values near 1e20: the log names the time point, the statistic and the
   pixel; no output is complete), HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_ERROR_OUT_OF_HOST_MEMORY,
   HST_ERROR_CANCELLED (the progress callback, or a backend of desc interrupted: at the next
   block, on the host device within the block, as hst_esrrf_progress_fn says; an interrupted
   backend's calls return it at once until hst_backend_interrupt_clear), OpenCL codes.
   Thread safety: per backend, on every backend of desc. */
HST_API HST_NODISCARD hst_result hst_esrrf_run(const hst_esrrf_desc *desc, const void *stack,
                                 hst_esrrf_dtype dtype, uint64_t frames, uint32_t rows,
                                 uint32_t cols, float *const *out, hst_esrrf_report *report);

/* Live frames: frames are pushed as they arrive; the device works on earlier frames meanwhile
   (a worker thread runs the streams), and each time point's images go to desc->on_timepoint
   as soon as its last frame has been processed. With frames_per_timepoint 0 the one time point
   is delivered by hst_esrrf_live_finish. Errors of create: as hst_esrrf_run's, plus
   HST_ERROR_INVALID_ARGUMENT when on_timepoint is NULL. Thread safety: per backend.

   A session is a state machine:
       create ──> OPEN ──push (taken)──> OPEN
                  OPEN ──finish succeeds──> FINISHED
                  OPEN ──push or finish fails (the worker's error, too few frames)──> FAILED
       FINISHED, FAILED ──push or finish──> HST_ERROR_INVALID_ARGUMENT (BAD_STATE: the log
                  says which state and, for FAILED, the failure), the state unchanged
       any state ──destroy──> freed
   A push refused for its arguments (count 0, frames NULL: INVALID_ARGUMENT; another frame
   size: HST_ERROR_SHAPE) leaves the session OPEN. The session holds the desc's backends
   (hst_backend_hold) until destroy: hst_backend_destroy refuses while it lives.
   Memory: the session stages pushed frames in two buffers of HST_ESRRF_LIVE_BLOCKS x
   block_frames + 1 frames each (block_frames 0: 16, 258 MB each for 1000 x 1000 u16 frames; on
   the host device alone without TAC2 the automatic block of hst_esrrf_desc.block_frames); a
   full buffer is a piece, handed to the worker. On an OpenCL device they are
   pinned host memory, kept on the first backend after destroy for the next session (the
   backend's hst_backend_destroy frees them; a backend with a device memory limit keeps none,
   since pinned memory counts against it): freeing them took a tenth or more of a 500-frame
   session on an H100. On the host device they are freed by finish. */
typedef struct hst_esrrf_live hst_esrrf_live;
/* Blocks of frames a live piece holds: a piece runs when this many wait (each piece re-reads one
   frame, starts and drains the stream's ring once, and its last piece needs a stream of its own
   length: 8 blocks keep that small). A pusher reading from a disk keeps this many blocks and
   more requested ahead: while a push waits for the worker, the disk goes on reading. */
#define HST_ESRRF_LIVE_BLOCKS 8
HST_API HST_NODISCARD hst_result hst_esrrf_live_create(const hst_esrrf_desc *desc, hst_esrrf_dtype dtype,
                                         uint32_t rows, uint32_t cols, hst_esrrf_live **out);
/* Pushes `count` >= 1 frames (count x rows x cols samples of the session's dtype, C order),
   copied before it returns (the caller may reuse its memory). rows and cols must be the
   session's (HST_ERROR_SHAPE otherwise). Blocks while the worker is two pieces behind
   (back-pressure). An error of the worker on earlier frames (non-finite input or images, out of
   memory, cancellation) is returned by the next push or finish, which makes the session
   FAILED. Thread safety: per object. */
HST_API HST_NODISCARD hst_result hst_esrrf_live_push(hst_esrrf_live *lv, const void *frames, uint64_t count,
                                       uint32_t rows, uint32_t cols);
/* Processes what is left, delivers the last time point(s), fills report (may be NULL; not
   written when the session is not OPEN). Frames that do not fill a time point make a shorter
   last one (report->last_timepoint_frames), and frames_per_timepoint above the frames pushed is
   clamped to them, as in the batch call (rolling: only whole windows are delivered, and fewer
   frames than the window is HST_ERROR_INVALID_ARGUMENT naming frames_per_timepoint). TAC2 of a last time point of one frame is 0 (NanoPyx:
   NaN, numpy's mean of no products), its VAR 0. Errors: the worker's, HST_ERROR_INVALID_ARGUMENT
   (no frames pushed; VAR or TAC2 over 1 frame in all; the session not OPEN),
   HST_ERROR_CANCELLED (the final progress call; every image was delivered: FINISHED).
   Thread safety: per object. */
HST_API HST_NODISCARD hst_result hst_esrrf_live_finish(hst_esrrf_live *lv, hst_esrrf_report *report);
/* Stops the worker (without finishing) and frees everything. NULL ignored. */
HST_API void hst_esrrf_live_destroy(hst_esrrf_live *lv);

/* ---------------------------------------------------------------------------------------------
   The parameter sweep: NanoPyx 2.1's run_esrrf_parameter_sweep (methods/esrrf/parameter_sweep.py,
   core/analysis/parameter_sweep.py) in ONE pass over the frames. For every pair of a radius and a
   sensitivity, NanoPyx runs eSRRF (no macro-pixel correction), takes the AVG image, scores it by
   RSP = SQUIRREL's Pearson correlation of the fitted image with the frames' mean (hst_error_map)
   and by a resolution: the FIRE number (pixels) of the FRC between the AVG of the odd frames
   (1, 3, ..) and of the even ones (0, 2, ..) (hst_frc), or with use_decorr the decorrelation
   resolution of the AVG image (hst_decorr); with frames_per_timepoint (NanoPyx's n_frames) each
   time point is scored alone and the scores are averaged over them ignoring NaN (numpy.nanmean;
   FRC skips time points of one frame, as NanoPyx). A pair none of whose time points has a
   resolution (FRC with one frame per time point, or a 1-frame stack: no odd and even images)
   gets resolution NaN (NanoPyx: 0, its map's initial value). Then QnR = 2 s nFRC / (s + nFRC)
   (0 where s + nFRC is 0), s = max(RSP, 0), nFRC the resolutions through NanoPyx's
   logistic_image_conversion (min and max over the map's finite resolutions, M1 = 0.075, M2 =
   0.925: the finest resolution near 0.925, the coarsest near 0.075; all equal: 0.5; +inf, a
   decorrelation without a maximum: 0), in double: within [0, 1]. Two deliberate differences
   from NanoPyx's calculate_qnr_score: a negative RSP counts as 0 (an image anticorrelated with
   the frames' mean is no better than an uncorrelated one; NanoPyx's harmonic mean of a negative
   RSP leaves [0, 1] and is unbounded where RSP nears -nFRC: RSP -0.32 with nFRC 0.5 gives
   -1.7, as tiny images, mostly eSRRF's zero margins, do); and QnR is NaN where the pair's RSP or
   resolution is (it needs both). Best pair: the first maximum of QnR in C order over
   [sensitivity][radius] (numpy.argmax), NaN left out; where every QnR is NaN (no resolution at
   all), the first maximum of RSP: the only score there is.
   Here each block of frames is uploaded once (in its dtype, converted on the device); per radius
   ONE launch of the fused RGC kernel (hst_esrrf_run's, built for the sweep's sensitivities)
   writes each pixel's value at every sensitivity from its one set of sums, and one launch adds
   the block's values to the sums of all frames, of the odd and of the even ones of every pair
   (kernels_esrrf.h's sweep), so each sensitivity costs only its power and a store. The AVG images are
   bitwise what hst_esrrf_run gives at each pair (same desc, that radius and sensitivity, modes
   AVG), on every device, macro-pixel correction as desc says (the scores use uncorrected images,
   as NanoPyx's sweep).

   desc: magnification, no_intensity_weighting, no_macro_pixel_correction (the images only),
   frames_per_timepoint, backends (one: desc.num_backends 1; rolling_step 0, else
   HST_ERROR_INVALID_ARGUMENT), progress, block_frames (frames
   per upload; 0: automatic, as many as keep one radius's values of a block, num_sensitivities
   floats per magnified pixel and frame, within 512 MiB, a quarter of the device's memory and
   its largest buffer; on a CPU, the host device or an OpenCL one, also at most 1/16 of a time
   point's frames (rounded up) or 8 frames where that is more, so that progress moves: a block
   there costs no launch or copy worth saving) as hst_esrrf_run; radius, sensitivity, path,
   modes (AVG only) are not read.

   Progress: the callback's frames_done and frames_total count steps of the whole call, a step
   being one frame of the pass or one score: frames_total = frames + the scores, 2 per pair and
   time point (its RSP and its resolution; 1 where FRC has no odd and even images, a time point
   of one frame). Time point by time point, the callback sees its frames after each block, then
   its scores: every pair's RSP at once (one batch of error maps), then every pair's FRC at once
   (one batch), or each pair's decorrelation. A nonzero return cancels (HST_ERROR_CANCELLED).
   Interruption (hst_backend_interrupt on the backend) is checked before each block and each
   score, within the host device's blocks every few magnified rows, and inside quality.h's
   metrics: the call returns HST_ERROR_CANCELLED within about a second of work on the host (on
   an OpenCL device: once the block in flight, every radius of it, is done), reporting no
   progress after it; an interrupted backend's calls return it at once until
   hst_backend_interrupt_clear. */
#define HST_ESRRF_SWEEP_MAX 8       /* radii, and sensitivities, at most */
typedef struct hst_esrrf_sweep_desc {
    const float *radii;             /* num_radii values, each as hst_esrrf_desc.radius allows */
    unsigned num_radii;             /* 1..HST_ESRRF_SWEEP_MAX */
    const float *sensitivities;     /* num_sensitivities values, as hst_esrrf_desc.sensitivity */
    unsigned num_sensitivities;     /* 1..HST_ESRRF_SWEEP_MAX */
    int use_decorr;                 /* 0: FRC of odd and even frames (NanoPyx's default);
                                       1: decorrelation analysis of the AVG image */
} hst_esrrf_sweep_desc;

typedef struct hst_esrrf_sweep_result {
    /* [sensitivity index][radius index], NanoPyx's QnR map layout */
    double qnr[HST_ESRRF_SWEEP_MAX][HST_ESRRF_SWEEP_MAX];
    double rsp[HST_ESRRF_SWEEP_MAX][HST_ESRRF_SWEEP_MAX];         /* mean over time points */
    double resolution[HST_ESRRF_SWEEP_MAX][HST_ESRRF_SWEEP_MAX];  /* FIRE or decorrelation,
                                                                     magnified pixels, mean over
                                                                     time points; NaN: none (FRC
                                                                     needs two frames per time
                                                                     point) */
    /* qnr: [0, 1]; NaN where rsp or resolution is NaN (above: best pair then by RSP) */
    unsigned best_sensitivity, best_radius;   /* indices of the best pair */
    uint64_t timepoints;            /* scored time points */
    double pass_seconds;            /* the pass over the frames (every pair's sums, the mean frame) */
    double score_seconds;           /* the images, error maps and resolutions */
    double seconds;                 /* the call */
} hst_esrrf_sweep_result;

/* The sweep over a stack (frames x rows x cols samples of dtype, C order, as hst_esrrf_run).
   images: NULL, or num_sensitivities * num_radii pointers (index s * num_radii + r), each NULL
   or (time points, rows * mag, cols * mag) float32 receiving the pair's AVG images (time points
   as hst_esrrf_output_shape says). result: required. Memory: the sums of every pair, 3 values
   per pair and magnified pixel (double where the device has fp64), on the device and (double)
   on the host; a block's frames and its values at one radius (block_frames).
   Errors: hst_esrrf_run's (the desc and the stack checked as there), HST_ERROR_INVALID_ARGUMENT
   (sweep or result NULL; a count 0 or above HST_ESRRF_SWEEP_MAX; a radius or sensitivity out of
   range; more than one backend or an MPI communicator; frames too small for the resolution
   once magnified, before any work: FRC needs rows * mag and cols * mag >= 10 where a time point
   has two frames (hst_frc_curve_length), decorrelation >= 2; logged as HST_LOGITEM_OUT_OF_RANGE
   naming rows or cols), HST_ERROR_CANCELLED (the progress callback, or the backend
   interrupted), quality.h's (HST_ERROR_NOT_BUILT_IN: the scores need HST_FFT at magnification
   > 1, and FRC/decorrelation always). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_esrrf_sweep(const hst_esrrf_desc *desc, const hst_esrrf_sweep_desc *sweep,
                                   const void *stack, hst_esrrf_dtype dtype, uint64_t frames,
                                   uint32_t rows, uint32_t cols, float *const *images,
                                   hst_esrrf_sweep_result *result);

#ifdef __cplusplus
}
#endif
#endif /* HST_ESRRF_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_ESRRF_IMPLEMENTATION) && !defined(HST__ESRRF_IMPLEMENTED)
#define HST__ESRRF_IMPLEMENTED

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HST_ESRRF_MPI
#  include <mpi.h>
#endif

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__EDEF HST_API __attribute__((unused))
#else
#  define HST__EDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__E_ACC_VALUES 5       /* per pixel and time point: S1, S2, lag-1 sum, first, last */
/* Automatic blocks: about HST__E_TARGET_BLOCKS per stack, so uploads overlap compute and the
   progress moves, of at least HST__E_MIN_BLOCK frames, since with TAC2 every block recomputes
   the frame before it (the lag-1 product): 1/B extra work (6% at 16). The host device alone
   without TAC2: hst__ehost_block. */
#define HST__E_TARGET_BLOCKS 16
#define HST__E_MIN_BLOCK 16
/* The choice between the paths measures each on pieces of a block, or of this many frames per
   backend where blocks are longer (a piece is split among the backends: each times this many):
   a timing needs tens of milliseconds, not a sixteenth of the stack. (With whole blocks, a first
   call on 21,474 frames of 1000 x 1000 on an H200 ran 2,686 of them, two blocks, through the
   slower chained path: 520 frames/s against 723 once the choice is known.) */
#define HST__E_MEASURE_FRAMES 64
/* The sums of the time points in flight take at most this share of a device's memory. */
#define HST__E_ACC_SHARE_DEN 4
/* The streams' rings get at most this share of a device's memory by default. */
#define HST__E_RING_SHARE_DEN 2
#define HST__E_STREAMS 4          /* streams kept per kind of backend (piece lengths, paths) */
/* The fused kernel's work-group on NVIDIA GPUs: 256 pixels. Measured on an H100 (1000 x 1000
   frames, mag 5; bench/RESULTS.md): with the options below 256 beat 128 and 512 at every
   setting measured (e.g. 1.493 against 1.918 and 1.761 with 2 pixels per item and 24 indices);
   without the options 2.339 (512: 2.314). The bits do not depend on it (kernels_esrrf.h). Only where
   measured: other compilers may allow a kernel fewer work-items than the device (AMD's default
   is 256). */
#define HST__E_GPU_FUSED_LOCAL 256
/* Build options for the same NVIDIA GPUs, where the compiler takes them (cl_nv_compiler_options):
   the fused kernel's registers capped at 64 (78 otherwise, so an SM held 3 work-groups of 256
   threads; 64 lets 4 in; 48 spills), strips of whole items (HST_E_TW, HST_K_ESRRF_NV_TW(mag)), 8
   same-phase pixels per work-item through the sample loop (HST_E_NP, HST_K_ESRRF_NV_NP: along a
   row from HST_K_ESRRF_NV_ROWX_MAG, one (w, w/d) read and each tile position's serve them,
   independent sums hide the local reads' latency), about 40 work indices per item (hst__e_nv_k) with a tile of 2560 half-pixel
   positions, and the intensity's table and the separable tile's scratch after it
   (hst_k_esrrf_nv_options: local memory 20 + 15 + 12 KiB of NVIDIA's 48). Measured on an H100
   (1000 x 1000 frames, mag 5, radius 1.5, work-groups of 256; bench/RESULTS.md), ms per frame:
   2.339 without options; 1.662 with strips of 64, 16 indices and one pixel at a time; 1.508 with
   2 pixels; 1.336 with 4 and 32 indices; 1.226 with 4 and 40 (48 and a tile of 3072: 1.313). On
   an H200 (2026-12-05): 1.170 before the table, 1.023-1.025 with it (72 and 80 registers: 1.041,
   1.033), 1.030-1.032 with the tile made separably too (mags 4, 3, 2, 1: 0.80, 0.62, 0.47, 0.43
   -> 0.75, 0.53, 0.37, 0.23). On an H100 (2026-12-06) with hst_e_tileg_cols: mag 5 0.861, 8
   pixels an item 0.814. Every variant gives the same bits (none changes the arithmetic of a
   pixel). */
#define HST__E_NV_REGS "-cl-nv-maxrregcount=64 "
#define HST__E_NV_K 40
/* Work indices per item of the fused kernel elsewhere (kernels_esrrf.h's HST_E_K default). esrrf.h
   passes HST_E_K to every build and launches pixels / K items: the groups a launch of one item
   per pixel adds return at once, but cost 4% of the kernel on an H100 at K 40 (1.227 against
   1.178 ms per frame). */
#define HST__E_K 8
#define HST__E_FUSED 0
#define HST__E_CHAINED 1

/* >>types ------------------------------------------------------------------------------------ */
/* The scalars the stages read at each run (one set per stream). */
typedef struct hst__epar {
    uint32_t rows, cols, mag, one, two, pixels, frame_px, dtype;
    uint32_t rows_m, cols_m, rows_m2, cols_m2;  /* magnified by mag and by 2 mag */
    float magv[2], mag2v[2], zerov[2];   /* the magnify kernel's float2 magnifications (mag,
                                   2 mag: rows and columns alike) and shifts (0) */
    uint32_t row0, nrows;       /* the magnified rows computed: [row0, row0 + nrows) */
    float radius, sensitivity;
    int iw;
    uint64_t T;                 /* frames per time point, 0: all */
    uint32_t acc_tps;
    uint64_t frame0;            /* the stream's slice 0 in the acquisition */
    uint32_t skip;              /* 1: slice 0 is only the frame before the piece */
    uint64_t frames_total;      /* 0: not known yet */
    int lag;                    /* the group's (the host twin's temporal sums take it) */
} hst__epar;

struct hst__eng;

typedef struct hst__estream {
    hst_stream *s;
    uint64_t n;                 /* slices (the piece plus its skipped frame) */
    uint64_t cap;               /* slices at create: shorter runs reuse the stream
                                   (hst_stream_set_num_slices) */
    uint64_t bytes;             /* device bytes per device (hst_stream_block_info) */
    int path;
    hst__epar P;
    struct hst__eng *e;
} hst__estream;

/* The backends of one kind (host, or OpenCL): one stream.h stream covers them. */
typedef struct hst__egroup {
    hst_backend *be[HST_STREAM_MAX_BACKENDS];
    unsigned nb;
    int host;
    size_t acc_elem, tp_bytes;  /* bytes of one sum (8: double; 4: a device without fp64), of
                                   one time point's sums */
    char opts[320];             /* the program's build options (hst__egroup_types) */
    int lag;                    /* 1: the lag-1 sums (TAC2): each piece and block loads the
                                   frame before it */
    size_t fused_local;         /* the fused kernel's work-group (0: the backend's default) */
    size_t rgc_local;           /* the chained rgc kernel's (hst_k_esrrf_rgc_local; 0: host) */
    unsigned fused_k;           /* its work indices per item (HST_E_K) */
    hst_buffer *acc[HST_STREAM_MAX_BACKENDS];   /* per backend: acc_tps time points of sums */
    hst__estream streams[HST__E_STREAMS];
    unsigned next;                               /* the stream slot replaced next */
    hst_buffer *img[HST_ESRRF_NUM_MODES];        /* the statistics on the device (one fp64
                                                    device alone): hst_k_esrrf_stat into a
                                                    mode's img, only floats come back */
    hst_buffer *win;                             /* rolling on that device: one window's five
                                                    sums (hst_k_esrrf_roll), its statistics' input */
} hst__egroup;

typedef struct hst__eng {
    hst_esrrf_desc d;           /* defaults applied */
    hst_backend *log_be;
    hst__egroup grp[2];
    unsigned ngrp;
    hst_esrrf_dtype dtype;
    uint32_t rows, cols, mag, rowsM, colsM;
    uint32_t row0, nrows;       /* the window of magnified rows this engine computes (all of them
                                   in one process; one MPI rank's share otherwise) */
    size_t frame_px, pixels, in_frame_bytes;   /* pixels: of the window */
    uint32_t acc_tps;           /* time points the sums' ring holds */
    uint64_t block;
    double *sum;                /* a time point's sums over devices */
    void *rd;                   /* one sum of one device */
    float *img[HST_ESRRF_NUM_MODES];   /* images when the caller gives no out */
    float *const *out;          /* batch: the caller's images */
    size_t out_tp;              /* batch: floats from one time point's image to the next in out */
    struct hst__efinisher *fin; /* batch: the thread finishing the images (NULL: in line) */
    hst_choice_op *op;
    int64_t sig[4];
    uint64_t chunk;             /* frames of a measuring piece */
    uint64_t frames_total;      /* the last frame's index + 1 where it closes the one time point
                                   (frames_per_timepoint 0), once known; else 0 */
    uint64_t ntp;               /* batch: the output's time points (hst__eshape) */
    /* Rolling time points (desc.rolling_step): d.frames_per_timepoint is then the block,
       gcd(W, S) frames, and the engine's time points are blocks; a window is the ordered sum
       of its W / gcd blocks' sums (hst__eroll_block). */
    uint64_t roll_w, roll_s;    /* the window W and step S; 0: no rolling */
    uint64_t roll_n;            /* blocks per window */
    double *roll;               /* the host's ring: the last roll_n blocks' requested sums
                                   (hst__esums), block b at b % roll_n: [block][requested sum][pixel] */
    int roll_dev;               /* 1: the blocks' sums stay in the device's ring (one fp64 device
                                   whose ring holds a window's blocks) and windows are summed there;
                                   0: each block's sums come back to the host's ring */
    uint64_t progress_total;    /* frames the progress counts towards (batch), 0 live */
    uint64_t delivered;         /* time points delivered */
    uint64_t progress_base;     /* frames accumulated before the running piece */
    int measuring;              /* a piece runs inside hst_choice_run: no progress calls (a
                                   cancel there would count as the path's failure) */
    int nonfinite;              /* the piece's input has a NaN or Inf (found after the run, so
                                   the choice times a complete run) */
    int check;                  /* 1: time points are corrected (as the desc says) and checked
                                   here; 0: the caller does both (several backends' rows) */
    hst_esrrf_report rep;
    double t0;
    void (*piece_ran)(void *user, uint64_t end);   /* NULL, or called once a piece's streams have
                                   run (its frames read: the live session frees pageable staging then),
                                   before the time points it completes are delivered */
    void *piece_ran_user;
} hst__eng;

/* A piece of frames [c0, c1) whose frame c0 - skip starts at src (host memory). */
typedef struct hst__epiece {
    hst__eng *e;
    const unsigned char *src;
    uint64_t c0, c1;
    unsigned skip;
} hst__epiece;

/* >>checks of the arguments ------------------------------------------------------------------ */
/* The modes that need at least 2 frames per time point (HST_ESRRF_MODES' least). */
#define HST__ESRRF_MODE_TWO(id, index, name, sums, least, what) | ((least) > 1 ? (unsigned)HST_ESRRF_##id : 0u)
#define HST__E_TWO_FRAME_MODES (0u HST_ESRRF_MODES(HST__ESRRF_MODE_TWO))

/* The names of the modes of the set `modes`, ", "-separated, into buf (for messages). */
static const char *hst__emode_list(unsigned modes, char *buf, size_t bytes) {
    size_t n = 0;
    int m;
    buf[0] = '\0';
    for (m = 0; m < HST_ESRRF_NUM_MODES && n < bytes; m++)
        if (modes & (1u << m))
            n += (size_t)snprintf(buf + n, bytes - n, "%s%s", n ? ", " : "", hst_esrrf_mode_name(m));
    return buf;
}
/* desc with its defaults applied, checked field by field. */
static hst_result hst__edesc(const hst_esrrf_desc *in, hst_esrrf_desc *d) {
    const hst_backend *be = in && in->backends && in->num_backends ? in->backends[0] : NULL;
    char names[64];
    unsigned i;
    if (!in) return hst__null_arg(NULL, "hst_esrrf", "desc is NULL");
    *d = *in;
    if (!d->backends || d->num_backends < 1 || d->num_backends > HST_STREAM_MAX_BACKENDS)
        return hst__range_arg(be, "hst_esrrf",
                         "num_backends %u: give 1..%d backends", d->num_backends, HST_STREAM_MAX_BACKENDS);
    for (i = 0; i < d->num_backends; i++)
        if (!d->backends[i])
            return hst__null_arg(be, "hst_esrrf", "backends[%u] is NULL", i);
    if (!d->magnification) d->magnification = HST_ESRRF_DEFAULT_MAGNIFICATION;
    if (d->magnification > HST_ESRRF_MAX_MAG)
        return hst__range_arg(be, "hst_esrrf",
                         "magnification %u: 1..%d (0: %d)", d->magnification, HST_ESRRF_MAX_MAG,
                         HST_ESRRF_DEFAULT_MAGNIFICATION);
    if (d->radius == 0.0f) d->radius = HST_ESRRF_DEFAULT_RADIUS;
    if (!(d->radius > 0.0f && d->radius <= HST_ESRRF_MAX_RADIUS))
        return hst__range_arg(be, "hst_esrrf",
                         "radius %g: give 0 < radius <= %g input pixels (0: %g)", (double)d->radius,
                         (double)HST_ESRRF_MAX_RADIUS, (double)HST_ESRRF_DEFAULT_RADIUS);
    if (d->sensitivity == 0.0f) d->sensitivity = HST_ESRRF_DEFAULT_SENSITIVITY;
    if (!(d->sensitivity > 0.0f && d->sensitivity <= HST_ESRRF_MAX_SENSITIVITY))
        return hst__range_arg(be, "hst_esrrf",
                         "sensitivity %g: give 0 < sensitivity <= %g (0: %g)", (double)d->sensitivity,
                         (double)HST_ESRRF_MAX_SENSITIVITY, (double)HST_ESRRF_DEFAULT_SENSITIVITY);
    if (!d->modes) d->modes = HST_ESRRF_AVG;
    if (d->modes & ~HST_ESRRF_ALL_MODES)
        return hst__range_arg(be, "hst_esrrf", "modes 0x%x: a set of HST_ESRRF_MODES' bits (0x%x in all)", d->modes,
                              HST_ESRRF_ALL_MODES);
    if (d->path < HST_ESRRF_PATH_AUTO || d->path > HST_ESRRF_PATH_CHAINED)
        return hst__range_arg(be, "hst_esrrf",
                         "path %d: auto (0), fused (1) or chained (2)", (int)d->path);
    if ((d->modes & HST__E_TWO_FRAME_MODES) && d->frames_per_timepoint == 1)
        return hst__range_arg(be, "hst_esrrf",
                         "frames_per_timepoint 1: modes %s need at least 2 frames per time point",
                         hst__emode_list(d->modes & HST__E_TWO_FRAME_MODES, names, sizeof names));
    if (d->rolling_step && !d->frames_per_timepoint)
        return hst__range_arg(be, "hst_esrrf",
                         "rolling_step %llu needs frames_per_timepoint > 0: the window's frames",
                         (unsigned long long)d->rolling_step);
    if (d->rolling_step && d->frames_per_timepoint > UINT32_MAX)
        return hst__range_arg(be, "hst_esrrf", "frames_per_timepoint %llu: a rolling window of at most %u frames",
                         (unsigned long long)d->frames_per_timepoint, (unsigned)UINT32_MAX);
    return HST_SUCCESS;
}

/* The frame size against the kernels' index types (int rows*2mag, uint magnified pixels). */
static hst_result hst__eframe(const hst_esrrf_desc *d, hst_esrrf_dtype dtype, uint32_t rows,
                              uint32_t cols) {
    const hst_backend *be = d->backends[0];
    uint64_t m = d->magnification, px = (uint64_t)rows * cols;
    if (dtype < HST_ESRRF_U8 || dtype > HST_ESRRF_F32)
        return hst__range_arg(be, "hst_esrrf",
                         "dtype %d: HST_ESRRF_U8, _U16, _I16 or _F32", (int)dtype);
    if (!rows || !cols)
        return hst__zero_arg(be, "hst_esrrf",
                         "frames of %u x %u pixels: rows and cols must be > 0", rows, cols);
    if (2 * m * rows > INT32_MAX || 2 * m * cols > INT32_MAX || px * m * m > UINT32_MAX)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf",
                         "%u x %u frames at magnification %u: %llu output pixels per image, "
                         "more than the kernels' 32-bit indices hold", rows, cols, d->magnification,
                         (unsigned long long)(px * m * m));
    return HST_SUCCESS;
}

/* The time point length for n frames: frames_per_timepoint, 0 or more than n meaning n (NanoPyx's
   eSRRF_workflow.py clamps it so). */
static uint64_t hst__etp_len(const hst_esrrf_desc *d, uint64_t n) {
    return d->frames_per_timepoint && d->frames_per_timepoint < n ? d->frames_per_timepoint : n;
}

/* Rolling windows of W frames every S frames over n >= W frames: floor((n - W) / S) + 1, as
   NanoJ-eSRRF (frames after the last whole window are not used). */
static uint64_t hst__eroll_count(uint64_t n, uint64_t W, uint64_t S) {
    return (n - W) / S + 1;
}

/* Time points of n frames (the last one shorter where T does not divide n, as NanoPyx; rolling:
   whole windows only, a window larger than the stack refused), and the output bytes per mode
   (overflow-checked). */
static hst_result hst__eshape(const hst_esrrf_desc *d, uint64_t n, uint32_t rows, uint32_t cols,
                              uint64_t *ntp) {
    const hst_backend *be = d->backends[0];
    uint64_t T = hst__etp_len(d, n);
    uint64_t pixels = (uint64_t)rows * cols * d->magnification * d->magnification;
    char names[64];
    if (n == 0)
        return hst__zero_arg(be, "hst_esrrf", "frames is 0");
    if (d->rolling_step && d->frames_per_timepoint > n)
        return hst__range_arg(be, "hst_esrrf",
                         "frames_per_timepoint %llu: the rolling window is larger than the stack's %llu frames",
                         (unsigned long long)d->frames_per_timepoint, (unsigned long long)n);
    if ((d->modes & HST__E_TWO_FRAME_MODES) && T < 2)
        return hst__range_arg(be, "hst_esrrf",
                         "modes %s need at least 2 frames per time point; the stack has 1 frame",
                         hst__emode_list(d->modes & HST__E_TWO_FRAME_MODES, names, sizeof names));
    *ntp = d->rolling_step ? hst__eroll_count(n, T, d->rolling_step) : n / T + (n % T != 0);
    if (pixels * sizeof(float) > SIZE_MAX / *ntp)
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf",
                         "%llu time points of %llu pixels overflow size_t",
                         (unsigned long long)*ntp, (unsigned long long)pixels);
    return HST_SUCCESS;
}

/* >>host threads ----------------------------------------------------------------------------- */
/* The host device's stages run on all cores (backend.h's hst_parallel): fn(ctx, k, n) for
   k = 0 .. n - 1 shares, n at most hst__ethreads(). */
static unsigned hst__ethreads(void) {
    unsigned n = hst_cpu_count();
    return n > HST_PARALLEL_MAX_THREADS ? (unsigned)HST_PARALLEL_MAX_THREADS : n;
}

/* Whether a backend of d is interrupted (hst_backend_interrupt): the long loops' check. */
static int hst__einterrupted(const hst_esrrf_desc *d) {
    unsigned b;
    for (b = 0; b < d->num_backends; b++)
        if (hst_backend_interrupted(d->backends[b])) return 1;
    return 0;
}

/* Interruption inside the host device's stages and the sweep's host passes: each thread's share
   runs in pieces, the interruption checked before each, so an interrupted run stops within a
   piece's work, not a block's (a host block held 16 frames or more: at 256 x 256 and mag 5,
   400 frames in blocks of 25, the run went on 5-8 s after an interruption on 2 busy cores, now
   0.01-0.1 s). A piece is HST__E_POLL_ROWS magnified rows of one frame for the fused twin (at
   1280 columns, the shipped stack at mag 5, a few ms on one core), those rows' pixels of every
   frame of the block for the temporal sums, and one frame for the other twins (the chained
   path's RGC twin, the slowest: about a second a frame there). It costs nothing: on 16 cores the
   sweep's pass (50 frames of 256 x 256, 3 x 3 pairs, blocks of 4 frames) took 2.72-2.92 s in
   such pieces against 3.46-3.97 s in each thread's whole share. Any cut gives the same bits
   (each pixel is computed alone, its frames summed in order). */
#define HST__E_POLL_ROWS 64

typedef void (*hst__epiece_fn)(const void *ctx, uint64_t a, uint64_t b);

/* Items [a, b) through fn in pieces of at most `per` items, none started once a backend of d is
   interrupted (the caller checks after and returns HST_ERROR_CANCELLED); d NULL: never checked
   (a piece the choice times runs whole). */
static void hst__epieces(const hst_esrrf_desc *d, uint64_t a, uint64_t b, uint64_t per, hst__epiece_fn fn,
                         const void *ctx) {
    while (a < b && !(d && hst__einterrupted(d))) {
        uint64_t end = b - a > per ? a + per : b;
        fn(ctx, a, end);
        a = end;
    }
}

/* The fused twin over (frame, window row) pairs, the batch's and the sweep's: window rows
   [row0, row0 + nrows) of the magnified frames, each frame frame_px floats on from the one
   before at `frames`, into out (out_frame floats a frame; its window row 0 first), at ns
   sensitivities (hst_k_esrrf_rgc_fused_host_rows_ns's layout); g and wt: the twin's geometry
   and (w, wd) table, made once a call by hst__efused_prepare for every piece of every thread. */
typedef struct hst__efused {
    const float *frames;
    float *out;
    size_t frame_px, out_frame;
    uint32_t rows, cols, mag, row0, nrows, ns;
    float radius;
    const float *sens;
    int iw;
    hst__e_geom g;
    float wt[2 * HST__E_HOST_WTAB];
} hst__efused;

/* f's g and wt from its fields (after they are set: before the threads run its pieces) */
static void hst__efused_prepare(hst__efused *f) {
    hst__e_fused_prepare(&f->g, f->wt, f->row0, f->rows, f->cols, f->mag, f->radius, f->sens, f->ns);
}

/* Pairs [u0, u1) of f (u = frame * nrows + window row), frame by frame. */
static void hst__efused_rows(const void *ctx, uint64_t u0, uint64_t u1) {
    const hst__efused *f = (const hst__efused *)ctx;
    while (u0 < u1) {
        uint64_t z = u0 / f->nrows, y0 = u0 % f->nrows, y1 = y0 + (u1 - u0);
        if (y1 > f->nrows) y1 = f->nrows;
        hst__e_fused_rows(f->frames + (size_t)z * f->frame_px, f->out + (size_t)z * f->out_frame, &f->g, f->iw,
                          f->row0 + (uint32_t)y0, f->row0 + (uint32_t)y1);
        u0 += y1 - y0;
    }
}

/* A host stage call, split by frames (or, for the temporal sums, by pixels; for the fused twin,
   by (frame, magnified row) pairs), each share in pieces (hst__epieces) that stop once a
   backend of stop is interrupted. */
typedef struct hst__ehost {
    void *const *a;
    const hst__epar *P;
    const hst_stream_block *b;
    const hst_esrrf_desc *stop;     /* NULL: a piece the choice times (runs whole) */
    hst__efused fused;              /* HST__EH_FUSED: the block's frames */
    int kind;
} hst__ehost;
enum { HST__EH_TOFLOAT, HST__EH_FUSED, HST__EH_ROBERTS, HST__EH_MAG_GRAD, HST__EH_MAG_FRAME,
       HST__EH_RGC, HST__EH_TEMPORAL };

/* Frames [z0, z1) of the block (relative to its base; the temporal sums: pixels [z0, z1)). */
static void hst__ehost_piece(const void *ctx, uint64_t z0, uint64_t z1) {
    const hst__ehost *h = (const hst__ehost *)ctx;
    const hst__epar *P = h->P;
    void *const *a = h->a;
    switch (h->kind) {
    case HST__EH_TOFLOAT:
        hst_k_esrrf_to_float_host(a[0], (float *)a[1], P->frame_px, P->dtype, h->b->base, z0, z1, h->b->total);
        break;
    case HST__EH_ROBERTS:
        hst_k_esrrf_roberts_host((const float *)a[0], (float *)a[1], (float *)a[2], P->rows, P->cols, 2, 1,
                                 h->b->base, z0, z1, h->b->total);
        break;
    case HST__EH_MAG_GRAD:
        hst_k_esrrf_magnify_host((const float *)a[0], (float *)a[1], P->rows, P->cols, P->rows_m2, P->cols_m2,
                                 P->mag2v[0], P->mag2v[1], 0.0f, 0.0f, 2, h->b->base, z0, z1, h->b->total);
        break;
    case HST__EH_MAG_FRAME:
        hst_k_esrrf_magnify_host((const float *)a[0], (float *)a[1], P->rows, P->cols, P->rows_m, P->cols_m,
                                 P->magv[0], P->magv[1], 0.0f, 0.0f, 1, h->b->base, z0, z1, h->b->total);
        break;
    case HST__EH_RGC:
        hst_k_esrrf_rgc_host((const float *)a[0], (const float *)a[1], (const float *)a[2], (float *)a[3],
                             P->rows, P->cols, P->mag, P->radius, P->sensitivity, P->iw, 2, 1, h->b->base,
                             z0, z1, h->b->total);
        break;
    default:   /* HST__EH_TEMPORAL: every frame of the block, in order, for each pixel */
        hst_k_esrrf_temporal_host((const float *)a[0], (double *)a[1], P->pixels, P->T, P->acc_tps,
                                  P->frame0, P->skip, P->frames_total, (uint32_t)z0, (uint32_t)z1, h->b->base,
                                  h->b->begin, h->b->end, P->lag);
    }
}

static void hst__ehost_share(void *ctx, unsigned k, unsigned n) {
    const hst__ehost *h = (const hst__ehost *)ctx;
    const hst__epar *P = h->P;
    uint64_t f = h->b->end - h->b->begin;
    if (h->kind == HST__EH_FUSED)   /* shares of the block's (frame, magnified row) pairs: one frame splits too */
        hst__epieces(h->stop, (uint64_t)P->nrows * f * k / n, (uint64_t)P->nrows * f * (k + 1) / n, HST__E_POLL_ROWS,
                     hst__efused_rows, &h->fused);
    else if (h->kind == HST__EH_TEMPORAL)   /* the sums walk every frame in order: threads share the pixels */
        hst__epieces(h->stop, (uint64_t)P->pixels * k / n, (uint64_t)P->pixels * (k + 1) / n,
                     (uint64_t)HST__E_POLL_ROWS * P->cols * P->mag, hst__ehost_piece, h);
    else
        hst__epieces(h->stop, h->b->begin + f * k / n, h->b->begin + f * (k + 1) / n, 1, hst__ehost_piece, h);
}

/* The fused twin's call over the block's frames (a[0] at the block's base). */
static void hst__ehost_fused(hst__efused *f, void *const *a, const hst__epar *P, const hst_stream_block *b) {
    f->frame_px = (size_t)P->rows * P->cols;
    f->out_frame = (size_t)P->nrows * P->cols * P->mag;
    f->frames = (const float *)a[0] + (size_t)b->begin * f->frame_px;
    f->out = (float *)a[1] + (size_t)b->begin * f->out_frame;
    f->rows = P->rows; f->cols = P->cols; f->mag = P->mag; f->row0 = P->row0; f->nrows = P->nrows;
    f->ns = 1; f->radius = P->radius; f->sens = &P->sensitivity; f->iw = P->iw;
    hst__efused_prepare(f);
}

static hst_result hst__ehost_run(int kind, void *const *a, const void *const *s,
                                 const hst_stream_block *b, void *user) {
    const hst__estream *es = (const hst__estream *)user;
    hst__ehost h;
    uint64_t frames = b->end - b->begin;
    unsigned n = hst__ethreads();
    (void)s;
    h.a = a; h.P = &es->P; h.b = b; h.kind = kind;
    h.stop = es->e->measuring ? NULL : &es->e->d;   /* a timed piece's stop would count as the path's failure */
    if (kind == HST__EH_FUSED) hst__ehost_fused(&h.fused, a, h.P, b);
    if (kind != HST__EH_TEMPORAL && kind != HST__EH_FUSED && frames < n) n = (unsigned)(frames ? frames : 1);
    hst_parallel(hst__ehost_share, &h, n);
    return h.stop && hst__einterrupted(h.stop) ? HST_ERROR_CANCELLED : HST_SUCCESS;
}

#define HST__EHOST_FN(name, kind)                                                              \
    static hst_result name(void *const *a, const void *const *s, const hst_stream_block *b,     \
                           void *u) { return hst__ehost_run(kind, a, s, b, u); }
HST__EHOST_FN(hst__eh_tofloat, HST__EH_TOFLOAT)
HST__EHOST_FN(hst__eh_fused, HST__EH_FUSED)
HST__EHOST_FN(hst__eh_roberts, HST__EH_ROBERTS)
HST__EHOST_FN(hst__eh_mag_grad, HST__EH_MAG_GRAD)
HST__EHOST_FN(hst__eh_mag_frame, HST__EH_MAG_FRAME)
HST__EHOST_FN(hst__eh_rgc, HST__EH_RGC)
HST__EHOST_FN(hst__eh_temporal, HST__EH_TEMPORAL)

/* >>streams ---------------------------------------------------------------------------------- */
/* A stream's arrays: the raw frames, float frames (not for f32 input), the RGC, the sums, and
   the chained path's gradients, magnified gradients and magnified frames; -1: absent. Indices
   are assigned in that order. */
typedef struct hst__eidx { int in, frames, rgc, acc, grad, grad2, mag, count; } hst__eidx;

static void hst__eindices(const hst__eng *e, int path, hst__eidx *x) {
    int n = 0;
    x->in = n++;
    x->frames = e->dtype == HST_ESRRF_F32 ? x->in : n++;
    x->rgc = n++;
    x->acc = n++;
    x->grad = x->grad2 = x->mag = -1;
    if (path == HST__E_CHAINED) { x->grad = n++; x->grad2 = n++; x->mag = n++; }
    x->count = n;
}

static void hst__escalar(hst_stream_stage *g, const void *p, size_t bytes) {
    g->scalars[g->num_scalars] = p;
    g->scalar_bytes[g->num_scalars++] = bytes;
}
/* The stage's next scalar: P's field, of its own bytes (stream.h checks them against the
   declared word at create). */
#define HST__ESC(t, field) hst__escalar(t, &P->field, sizeof P->field)

/* One stage running the family's kernel id, reading arrays in[0..nin) and writing array out;
   the binding lists live in bind (stream.h copies them at create). */
#define HST__E_MAX_STAGES 6         /* to_float, roberts, 2 x magnify, rgc, temporal */
#define HST__E_TWICE 2              /* stages binding an array twice (hst__estage_twice) */
typedef struct hst__ebind { int list[3 * HST__E_MAX_STAGES + 4 * HST__E_TWICE]; unsigned used; } hst__ebind;

static hst_stream_stage *hst__estage(hst_stream_stage *st, unsigned *ns, hst__ebind *bind,
                                     const hst__egroup *g, unsigned id,
                                     hst_stream_host_fn host, void *user, size_t items, int in0,
                                     int in1, int out) {
    hst_stream_stage *t = &st[(*ns)++];
    int *l = bind->list + bind->used;
    memset(t, 0, sizeof *t);
    l[0] = in0; l[1] = in1; l[2] = out;
    bind->used += 3;
    t->family = hst_kernels_esrrf_family();
    t->family_kernel = id;
    t->name = t->family->kernels[id].name;
    t->options = g->opts;
    t->host = host;
    t->host_user = user;
    t->items_per_slice = items;
    t->num_inputs = in1 < 0 ? 1 : 2; t->inputs = l;
    t->num_outputs = 1; t->outputs = l + 2;
    return t;
}

/* Stage t's first output (out) or first input (!out) bound twice: the gradient kernels take the
   chained path's one interleaved array of (Gc, Gr) as both grad_col and grad_row (gstep 2,
   groff 1; kernels_esrrf.h's "Gradient arrays"). */
static void hst__estage_twice(hst_stream_stage *t, hst__ebind *bind, int out) {
    int *l = bind->list + bind->used, k = 0;
    unsigned j;
    l[k++] = t->inputs[0];
    if (!out) l[k++] = t->inputs[0];
    for (j = 1; j < t->num_inputs; j++) l[k++] = t->inputs[j];
    l[k++] = t->outputs[0];
    if (out) l[k++] = t->outputs[0];
    t->inputs = l; t->num_inputs += out ? 0u : 1u;
    t->outputs = l + t->num_inputs; t->num_outputs += out ? 1u : 0u;
    bind->used += (unsigned)k;
}

/* Nonzero (cancel) when the desc's progress, told `done` frames (every block that completes,
   those a cancel waits for included), asks, or a backend of the run is interrupted. */
static int hst__ecancel(const hst__eng *e, uint64_t done) {
    int stop = e->d.progress && e->d.progress(done, e->progress_total, e->d.progress_user);
    return stop || hst__einterrupted(&e->d);
}

/* The streams' progress, after each block: so a cancel or an interruption takes effect at the
   next block (none starts after it; the ring's blocks already enqueued finish). Quiet while the
   choice times a piece (a cancel there would count as the path's failure): hst__epiece_run asks
   after it. */
static int hst__eprogress(uint64_t done, uint64_t total, void *user) {
    const hst__estream *es = (const hst__estream *)user;
    const hst__eng *e = es->e;
    (void)total;
    if (e->measuring) return 0;
    done = done > es->P.skip ? done - es->P.skip : 0;
    return hst__ecancel(e, e->progress_base + done);
}

/* The stages: [raw -> float], RGC (fused, or chained through device-only arrays), then the
   temporal sums: one ordered walk over the frames per pixel into the group's acc buffers (with
   TAC2 the frame before each block, halo 1, gives the lag-1 product across blocks; without it a
   device does not recompute that frame: 1 in 33 of the fused work at blocks of 32). Each
   stage's scalars follow its kernel's declaration (HST_ESRRF_KERNELS), quoted above them as
   (arrays in; out | scalars), the block arguments after them being stream.h's. */
static unsigned hst__estages(hst_stream_stage *st, hst__ebind *bind, const hst__eng *e,
                             const hst__egroup *g, hst__estream *es, const hst__eidx *x) {
    hst__epar *P = &es->P;
    hst_stream_stage *t;
    unsigned ns = 0;
    if (x->frames != x->in) {
        /* to_float(raw; frames | uint pixels, uint dtype) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_TO_FLOAT, hst__eh_tofloat, es, e->frame_px, x->in, -1, x->frames);
        HST__ESC(t, frame_px); HST__ESC(t, dtype);
    }
    if (es->path == HST__E_FUSED) {
        /* rgc_fused(frames; rgc | uint rows, uint cols, uint mag, float radius, float sensitivity,
                     int intensity_weighting, uint row0, uint nrows) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_RGC_FUSED, hst__eh_fused, es,
                        (e->pixels + g->fused_k - 1) / g->fused_k, x->frames, -1, x->rgc);
        t->local_size = g->fused_local;
        HST__ESC(t, rows); HST__ESC(t, cols); HST__ESC(t, mag); HST__ESC(t, radius); HST__ESC(t, sensitivity);
        HST__ESC(t, iw); HST__ESC(t, row0); HST__ESC(t, nrows);
    } else {
        /* roberts(frames; grad_col = grad_row = grad | uint rows, uint cols, uint gstep = 2, uint groff = 1) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_ROBERTS, hst__eh_roberts, es, e->frame_px, x->frames, -1, x->grad);
        hst__estage_twice(t, bind, 1);
        HST__ESC(t, rows); HST__ESC(t, cols); HST__ESC(t, two); HST__ESC(t, one);
        /* magnify(grad; grad2 | uint rows, uint cols, uint rowsM = rows 2 mag, uint colsM = cols 2 mag,
                   float2 mag = (2 mag, 2 mag), float2 shift = (0, 0), uint channels = 2) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_MAGNIFY, hst__eh_mag_grad, es, 4 * e->pixels, x->grad, -1, x->grad2);
        t->name = "hst_k_esrrf_magnify (gradients)";
        HST__ESC(t, rows); HST__ESC(t, cols); HST__ESC(t, rows_m2); HST__ESC(t, cols_m2); HST__ESC(t, mag2v);
        HST__ESC(t, zerov); HST__ESC(t, two);
        /* magnify(frames; magnified | uint rows, uint cols, uint rowsM, uint colsM, float2 mag = (mag, mag),
                   float2 shift = (0, 0), uint channels = 1) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_MAGNIFY, hst__eh_mag_frame, es, e->pixels, x->frames, -1, x->mag);
        HST__ESC(t, rows); HST__ESC(t, cols); HST__ESC(t, rows_m); HST__ESC(t, cols_m); HST__ESC(t, magv);
        HST__ESC(t, zerov); HST__ESC(t, one);
        /* rgc(grad_col = grad_row = grad2, magnified; rgc | uint rows, uint cols, uint mag, float radius,
               float sensitivity, int intensity_weighting, uint gstep = 2, uint groff = 1) */
        t = hst__estage(st, &ns, bind, g, HST_KESRRF_RGC, hst__eh_rgc, es, e->pixels, x->grad2, x->mag, x->rgc);
        hst__estage_twice(t, bind, 0);
        t->local_size = g->rgc_local;
        HST__ESC(t, rows); HST__ESC(t, cols); HST__ESC(t, mag); HST__ESC(t, radius); HST__ESC(t, sensitivity);
        HST__ESC(t, iw); HST__ESC(t, two); HST__ESC(t, one);
    }
    /* temporal(rgc; acc | uint pixels, ulong frames_per_tp, uint acc_tps, ulong frame0, uint skip,
                ulong frames_total) */
    t = hst__estage(st, &ns, bind, g, HST_KESRRF_TEMPORAL, hst__eh_temporal, es, e->pixels, x->rgc, -1, x->acc);
    t->loop_slices = 1;
    t->halo_lo = es->n > 1 && g->lag ? 1 : 0;
    HST__ESC(t, pixels); HST__ESC(t, T); HST__ESC(t, acc_tps); HST__ESC(t, frame0); HST__ESC(t, skip);
    HST__ESC(t, frames_total);
    return ns;
}

static void hst__earrays(hst_stream_array *arr, const hst__eng *e, hst__egroup *g, const hst__eidx *x) {
    size_t fb = e->frame_px * sizeof(float), pb = e->pixels * sizeof(float);
    int i;
    memset(arr, 0, (size_t)x->count * sizeof *arr);
    for (i = 0; i < x->count; i++) arr[i].kind = HST_STREAM_TEMP;
    arr[x->in].kind = HST_STREAM_INPUT;
    arr[x->in].host = (void *)(uintptr_t)e;   /* a placeholder: every run sets the piece's frames */
    arr[x->in].slice_bytes = e->in_frame_bytes;
    if (x->frames != x->in) arr[x->frames].slice_bytes = fb;
    arr[x->rgc].slice_bytes = pb;
    arr[x->acc].kind = HST_STREAM_GLOBAL;
    arr[x->acc].buffers = g->acc;
    arr[x->acc].global_bytes = (size_t)e->acc_tps * g->tp_bytes;
    arr[x->acc].dtype = g->acc_elem == 8 ? HST_F64 : HST_F32;
    if (x->grad >= 0) {
        arr[x->grad].slice_bytes = 2 * fb;
        arr[x->grad2].slice_bytes = 8 * pb;
        arr[x->mag].slice_bytes = pb;
    }
}

/* The scalars that do not change between runs. */
static void hst__epar_init(const hst__eng *e, hst__epar *P) {
    P->rows = e->rows; P->cols = e->cols; P->mag = e->mag;
    P->rows_m = e->rows * e->mag; P->cols_m = e->cols * e->mag;   /* within INT32_MAX / 2 (checked) */
    P->rows_m2 = 2 * P->rows_m; P->cols_m2 = 2 * P->cols_m;
    P->magv[0] = P->magv[1] = (float)e->mag; P->mag2v[0] = P->mag2v[1] = (float)(2 * e->mag);
    P->zerov[0] = P->zerov[1] = 0.0f;
    P->row0 = e->row0; P->nrows = e->nrows;
    P->one = 1; P->two = 2;
    P->pixels = (uint32_t)e->pixels; P->frame_px = (uint32_t)e->frame_px; P->dtype = (uint32_t)e->dtype;
    P->radius = e->d.radius; P->sensitivity = e->d.sensitivity; P->iw = !e->d.no_intensity_weighting;
    P->T = e->d.frames_per_timepoint;
    P->acc_tps = e->acc_tps;
}

/* The ring's budget: the caller's, else half of the smallest device less the sums' ring that
   already lives there (the chained path holds about 1 GB per frame at 1000 x 1000, mag 5: a
   ring that fills stream.h's default 3/4 left too little for the driver on an 80 GB H100). */
static uint64_t hst__ebudget(const hst__eng *e, const hst__egroup *g) {
    uint64_t least = UINT64_MAX, acc = (uint64_t)e->acc_tps * g->tp_bytes;
    unsigned b;
    if (e->d.budget_bytes || g->host) return e->d.budget_bytes;
    for (b = 0; b < g->nb; b++) {
        uint64_t mem = hst_backend_device(g->be[b])->global_mem_bytes / HST__E_RING_SHARE_DEN;
        if (mem < least) least = mem;
    }
    return least > 2 * acc ? least - acc : least / 2;
}

/* The block of a new stream es (sd.block_slices holds the wish, e->block frames, or fewer for
   a short piece): stream.h's answer under the ring's budget (hst__ebudget). The group's other
   streams stay while they and this one fit that budget together, else they go first (a kept
   stream only saves its creation). A caller's block_frames is kept as given (create refuses it
   when it does not fit); automatic blocks take the largest that fits. */
static hst_result hst__eblock(hst__eng *e, hst__egroup *g, hst__estream *es, hst_stream_desc *sd) {
    hst_stream_block_info bi;
    uint64_t held = 0;
    unsigned i;
    hst_result r;
    sd->budget_bytes = hst__ebudget(e, g);
    if ((r = hst_stream_block_query(sd, &bi)) != HST_SUCCESS) return r;
    for (i = 0; i < HST__E_STREAMS; i++)
        if (g->streams[i].s && &g->streams[i] != es) held += g->streams[i].bytes;
    if (sd->budget_bytes && held > sd->budget_bytes - bi.device_bytes)
        for (i = 0; i < HST__E_STREAMS; i++)
            if (&g->streams[i] != es && g->streams[i].s) {
                hst_stream_destroy(g->streams[i].s);
                g->streams[i].s = NULL;
            }
    if (!e->d.block_frames) sd->block_slices = bi.block_slices;
    es->bytes = bi.device_bytes;
    return HST_SUCCESS;
}

/* Blocks in flight per device on an OpenCL CPU device (PoCL): 2 where stream.h's default is 3.
   There the copies and the kernels share the cores, so a third block overlaps nothing; and a
   cancel waits for the blocks already enqueued, each a block's work (PoCL: 16 frames of the
   shipped stack at mag 5, about 14 s). GPUs keep the default (transfers overlap compute). */
#define HST__E_CPU_RING 2

/* The ring of group g's streams: HST__E_CPU_RING where every device is an OpenCL CPU, else
   0 (stream.h's default). */
static unsigned hst__ering(const hst__egroup *g) {
    unsigned b;
    for (b = 0; b < g->nb && !g->host; b++)
        if (hst_backend_device(g->be[b])->type != HST_DEVICE_CPU) return 0;
    return g->host ? 0 : HST__E_CPU_RING;
}

/* A stream of n slices on group g for one path (created on first use, kept). */
static hst_result hst__estream_get(hst__eng *e, hst__egroup *g, int path, uint64_t n, hst__estream **out) {
    hst_stream_array arr[8];
    hst_stream_stage st[HST__E_MAX_STAGES];
    hst__ebind bind;
    hst__eidx x;
    hst_stream_acc acc;
    hst_stream_desc sd;
    hst__estream *es;
    unsigned i;
    hst_result r;
    for (i = 0; i < HST__E_STREAMS; i++)   /* one made for at least n slices: no new ring */
        if (g->streams[i].s && g->streams[i].cap >= n && g->streams[i].path == path) {
            if (g->streams[i].n != n && (r = hst_stream_set_num_slices(g->streams[i].s, n)) != HST_SUCCESS) return r;
            g->streams[i].n = n;
            *out = &g->streams[i];
            return HST_SUCCESS;
        }
    for (i = 0; i < HST__E_STREAMS; i++)   /* one path's rings at a time: each may fill the budget */
        if (g->streams[i].s && g->streams[i].path != path) {
            hst_stream_destroy(g->streams[i].s);
            g->streams[i].s = NULL;
        }
    es = &g->streams[g->next];
    g->next = (g->next + 1) % HST__E_STREAMS;
    hst_stream_destroy(es->s);
    memset(es, 0, sizeof *es);
    es->n = es->cap = n; es->path = path; es->e = e;
    hst__epar_init(e, &es->P);
    es->P.lag = g->lag;
    hst__eindices(e, path, &x);
    hst__earrays(arr, e, g, &x);
    bind.used = 0;
    memset(&sd, 0, sizeof sd);
    sd.num_stages = hst__estages(st, &bind, e, g, es, &x);
    sd.stages = st;
    sd.backends = g->be; sd.num_backends = g->nb; sd.num_slices = n;
    sd.arrays = arr; sd.num_arrays = (unsigned)x.count;
    if (e->dtype == HST_ESRRF_F32) {   /* a frame's sum is NaN or Inf iff one of its pixels is */
        memset(&acc, 0, sizeof acc);
        acc.kind = HST_STREAM_SUM; acc.dtype = HST_F32; acc.a = x.in;
        sd.accumulators = &acc; sd.num_accumulators = 1;
    }
    sd.block_slices = e->block < n ? e->block : n;
    sd.ring = hst__ering(g);
    sd.progress = hst__eprogress;
    sd.progress_user = es;
    if ((r = hst__eblock(e, g, es, &sd)) == HST_SUCCESS) r = hst_stream_create(&sd, &es->s);
    if (r != HST_SUCCESS) { es->s = NULL; return r; }
    *out = es;
    return HST_SUCCESS;
}

/* >>pieces ----------------------------------------------------------------------------------- */
/* The first non-finite pixel of frames [c0, c1) (src at frame c0 - skip): logged. */
static hst_result hst__enonfinite(const hst__eng *e, const hst__epiece *p) {
    uint64_t z;
    size_t i;
    for (z = p->c0; z < p->c1; z++) {
        const float *f = (const float *)(const void *)(p->src + (size_t)(z - p->c0 + p->skip) * e->in_frame_bytes);
        for (i = 0; i < e->frame_px; i++)
            if (!isfinite(f[i]))
                return hst_backend_fail(e->log_be, HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE, "hst_esrrf",
                                 "input frame %llu, row %zu, column %zu is %s: eSRRF needs finite pixels",
                                 (unsigned long long)z, i / e->cols, i % e->cols, isnan(f[i]) ? "NaN" : "infinite");
    }
    return HST_SUCCESS;
}

/* Frames [a, b) of the piece on group g through `path`; with run 0 only its stream is made (so
   that a timing which follows holds no ring allocation or program build). */
static hst_result hst__erun_group(const hst__epiece *p, hst__egroup *g, int path, uint64_t a, uint64_t b,
                                  int run) {
    hst__eng *e = p->e;
    uint64_t T = e->d.frames_per_timepoint;
    unsigned skip = g->lag && a > 0 && (T == 0 || a % T != 0);   /* inside a time point: the frame before too */
    hst__estream *es;
    hst_stream_report rep;
    double t0 = hst_time_s();
    hst_result r = hst__estream_get(e, g, path, b - a + skip, &es);
    e->rep.setup_seconds += hst_time_s() - t0;
    if (r != HST_SUCCESS || !run) return r;
    es->P.frame0 = a - skip;
    es->P.skip = skip;
    es->P.frames_total = e->frames_total;
    r = hst_stream_set_array(es->s, 0,
                             (void *)(uintptr_t)(p->src + (size_t)(a - skip - (p->c0 - p->skip)) * e->in_frame_bytes), NULL);
    if (r == HST_SUCCESS) {
        t0 = hst_time_s();
        r = hst_stream_run(es->s, &rep);
        e->rep.stream_seconds += hst_time_s() - t0;
    }
    if (r == HST_SUCCESS && e->dtype == HST_ESRRF_F32 && !isfinite(rep.acc[0])) e->nonfinite = 1;
    e->progress_base += b - a;
    return r;
}

/* Runs the piece (run 0: makes its streams only): each kind of backend streams a contiguous
   share, in proportion to its backends (the host group first). */
static hst_result hst__erun_piece(const hst__epiece *p, int path, int run) {
    hst__eng *e = p->e;
    uint64_t n = p->c1 - p->c0, a = p->c0, nbs = 0;
    unsigned k;
    hst_result r = HST_SUCCESS;
    for (k = 0; k < e->ngrp; k++) nbs += e->grp[k].nb;
    for (k = 0; k < e->ngrp && r == HST_SUCCESS; k++) {
        uint64_t b = k + 1 == e->ngrp ? p->c1 : a + n * e->grp[k].nb / nbs;
        if (b > a) r = hst__erun_group(p, &e->grp[k], path, a, b, run);
        a = b;
    }
    if (run) e->rep.frames_by_path[path] += n;
    return r;
}

static hst_result hst__erun_fused(void *args, void *user) { (void)user; return hst__erun_piece((const hst__epiece *)args, HST__E_FUSED, 1); }
static hst_result hst__erun_chained(void *args, void *user) { (void)user; return hst__erun_piece((const hst__epiece *)args, HST__E_CHAINED, 1); }

/* Whether the choice still measures at the signature: its pick is a path without timings of
   its own (a path the nearest signature shows too slow to explore does not count: counting it
   cut every piece to one block for good, each a stream run with its upload unhidden). */
static int hst__emeasuring(const hst__eng *e) {
    hst_choice_stat st[2];
    size_t n = 0;
    unsigned pick;
    if (!e->op || hst_choice_pick(e->op, e->sig, 4, &pick) != HST_SUCCESS ||
        hst_choice_stats(e->op, e->sig, 4, st, 2, &n) != HST_SUCCESS || pick >= n)
        return 0;
    return st[pick].source != HST_CHOICE_EXACT && st[pick].source != HST_CHOICE_DEFAULT;
}

/* Whether $HST_FORCE names the esrrf operation. */
static int hst__eforced_by_env(void) {
    const char *force = getenv("HST_FORCE");
    return force && (!strncmp(force, "esrrf:", 6) || strstr(force, ",esrrf:"));
}

static const hst_choice_default *hst__edefaults(const hst_backend *be);

/* The path of a piece the choice does not time: the fastest path with an estimate (fused when
   none has one), never the pick while a path has no timings (the pick would be that path, run
   for nothing since such a piece is not recorded). A shipped estimate (CPUs) is weighed against
   a measured one through the shipped ratio (the measured path's time times the ratio of the
   shipped figures): a measurement carries this machine's speed and load, and a first run's
   includes PoCL's kernel compiles, so a slow first measurement of the faster path does not hand
   the next run to a path known only from the shipped figures. $HST_FORCE: the pick. */
static hst_result hst__eknown_pick(const hst__eng *e, unsigned *pick) {
    const hst_choice_default *def = hst__edefaults(e->d.backends[0]);
    hst_choice_stat st[2];
    double est[2];
    size_t n = 0, i;
    hst_result r;
    if (hst__eforced_by_env()) return hst_choice_pick(e->op, e->sig, 4, pick);
    if ((r = hst_choice_stats(e->op, e->sig, 4, st, 2, &n)) != HST_SUCCESS) return r;
    for (i = 0; i < 2; i++)
        est[i] = i < n && !st[i].failed && st[i].source != HST_CHOICE_NONE ? st[i].seconds : INFINITY;
    for (i = 0; i < 2 && n == 2 && def; i++)
        if (st[i].source == HST_CHOICE_DEFAULT && st[1 - i].source == HST_CHOICE_EXACT && !st[i].failed)
            est[i] = st[1 - i].seconds * def[i].seconds / def[1 - i].seconds;
    *pick = est[1] < est[0];
    return HST_SUCCESS;
}

/* One piece through the path the desc forces, or the choice. While a path has no timings, a
   piece of exactly one measuring chunk runs through hst_choice_run (which times it, the first
   run of each path in the process a warm-up it does not record: PoCL compiles a kernel at its
   first launch), its streams made before the clock starts. Other pieces run the best known
   path (hst__eknown_pick: never one its timings show slower, never a revisit), and a piece of
   at least a chunk records its streams' time per chunk (not their creation; a kernel's first
   launch on PoCL, which compiles it, stays in: one slow sample, which the lower median of the
   history outvotes). */
static hst_result hst__epiece_run(hst__eng *e, const hst__epiece *p) {
    static const char *const names[2] = { "fused", "chained" };
    uint64_t n = p->c1 - p->c0;
    unsigned pick = 0;
    hst_result r;
    if (e->d.path != HST_ESRRF_PATH_AUTO || !e->op) {
        r = hst__erun_piece(p, e->d.path == HST_ESRRF_PATH_CHAINED ? HST__E_CHAINED : HST__E_FUSED, 1);
    } else if (n == e->chunk && hst__emeasuring(e)) {
        hst_choice_outcome oc;
        if ((r = hst_choice_pick(e->op, e->sig, 4, &pick)) == HST_SUCCESS &&
            (r = hst__erun_piece(p, pick == 1 ? HST__E_CHAINED : HST__E_FUSED, 0)) == HST_SUCCESS) {
            e->measuring = 1;
            r = hst_choice_run(e->op, e->sig, 4, (void *)(uintptr_t)p, NULL, &oc);
            e->measuring = 0;
        }
        if (r == HST_SUCCESS && hst__ecancel(e, p->c1)) r = HST_ERROR_CANCELLED;
    } else if ((r = hst__eknown_pick(e, &pick)) == HST_SUCCESS) {
        double s0 = e->rep.stream_seconds;
        r = hst__erun_piece(p, pick == 1 ? HST__E_CHAINED : HST__E_FUSED, 1);
        if (r == HST_SUCCESS && n >= e->chunk) {
            /* a timing lost to a full host memory costs the choice's quality only, not the run */
            hst_result lost = hst_choice_record(e->op, e->sig, 4, names[pick],
                                                (e->rep.stream_seconds - s0) * (double)e->chunk / (double)n);
            (void)lost;
        }
    }
    if (r == HST_SUCCESS && e->nonfinite) r = hst__enonfinite(e, p);
    return r;
}

/* >>time points ------------------------------------------------------------------------------ */
/* The sums the requested modes read (bit q: sum q; HST_ESRRF_MODES' sums). Only those come back
   from the devices. */
#define HST__ESRRF_MODE_SUMS(id, index, name, sums, least, what) | ((modes & HST_ESRRF_##id) ? (unsigned)(sums) : 0u)
static unsigned hst__esums(unsigned modes) {
    return 0u HST_ESRRF_MODES(HST__ESRRF_MODE_SUMS);
}
#undef HST__ESRRF_MODE_SUMS
#define HST__E_SUM_LAG1 4u   /* hst__esums' bit of the lag-1 sum */

/* Adds one backend's sums of ring slot `slot` into e->sum (the first sets them), then zeroes
   the slot for the time point that will use it next. */
static hst_result hst__eread_slot(hst__eng *e, const hst__egroup *g, unsigned b, uint32_t slot, int first) {
    size_t P = e->pixels, off = (size_t)slot * g->tp_bytes, i;
    unsigned q, want = hst__esums(e->d.modes);
    static const unsigned char zero[8] = {0};
    hst_queue *q_ = hst_backend_queue(g->be[b]);
    hst_result r;
    for (q = 0; q < HST__E_ACC_VALUES; q++) {
        size_t qoff = off + q * P * g->acc_elem;
        double *dst = e->sum + q * P;
        const void *src = e->rd;
        if (!(want & (1u << q))) continue;
        if (g->host) {
            src = (const unsigned char *)hst_buffer_host_ptr(g->acc[b]) + qoff;
            if (first) {   /* the host's sums are doubles: a copy, on the cores */
                hst_parallel_memcpy(dst, src, P * sizeof(double));
                continue;
            }
        } else if (first && g->acc_elem == 8) {   /* straight into place */
            if ((r = hst_read(q_, g->acc[b], qoff, dst, P * 8, 1, 0, NULL, NULL)) != HST_SUCCESS) return r;
            continue;
        } else if ((r = hst_read(q_, g->acc[b], qoff, e->rd, P * g->acc_elem, 1, 0, NULL, NULL)) != HST_SUCCESS)
            return r;
        for (i = 0; i < P; i++) {
            double v = g->acc_elem == 8 ? ((const double *)src)[i] : (double)((const float *)src)[i];
            dst[i] = first ? v : dst[i] + v;
        }
    }
    if (g->host) {
        hst_parallel_memset((unsigned char *)hst_buffer_host_ptr(g->acc[b]) + off, 0, g->tp_bytes);
        return HST_SUCCESS;
    }
    return hst_fill(q_, g->acc[b], zero, g->acc_elem, off, g->tp_bytes, 0, NULL, NULL);
}

/* The statistics of the requested modes (element-wise: threads share the pixels), then each
   image's macro-pixel correction (a sum in a fixed order: one thread per image). */
typedef struct hst__efin { const hst__eng *e; uint32_t T; const float *const *images; } hst__efin;

static void hst__efinish_share(void *ctx, unsigned k, unsigned n) {
    const hst__efin *f = (const hst__efin *)ctx;
    const hst__eng *e = f->e;
    size_t P = e->pixels, i0 = P * k / n, i1 = P * (k + 1) / n;
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        if (f->images[m])
            hst_k_esrrf_finalize_range((int)m, e->sum + i0, P, i1 - i0, f->T, (float *)(uintptr_t)f->images[m] + i0);
}

static void hst__efinish(const hst__eng *e, uint32_t T, const float *const *images) {
    hst__efin f;
    f.e = e; f.T = T; f.images = images;
    hst_parallel(hst__efinish_share, &f, hst__ethreads());
}

/* >>macro-pixel correction ------------------------------------------------------------------
   Per output image (NanoPyx's, the means in double where NanoPyx's are float): C[py][px] = mean,
   in double, over the rows x cols macro-pixels of the value at sub-offset (py, px) (zero margins
   included); each pixel (yM, xM) is divided by C[yM % mag][xM % mag] unless that is 0 (then
   unchanged). Corrected TAC2 may change sign (its phase means can be negative), as NanoPyx's.
   tests/esrrf_twins.h's et_macro_pixel is the tests' plain reference.
   Here the correction and the finite check of an image's rows run on all cores. Each phase
   (py, px) = (y % mag, x % mag) sums its pixels in row-major order in double, as there: one
   chain per phase, which may run over several calls on consecutive rows in order (several
   backends: each adds its own rows after the backend above it), so threads take whole phase
   rows py, each keeping its mag chains in registers (no division per pixel). Then each pixel
   is divided by its phase's mean (0: unchanged) and checked, threads sharing the rows, in the
   same pass. Rows and columns are whole macro-pixels (rows * mag, cols * mag). Every image
   is checked before anyone sees it: finite input gives finite sums (double: a float32's square
   times 2^64 frames stays below DBL_MAX), but a statistic need not fit float32 (VAR of values
   near 1e20 is near 1e40), nor does a device without fp64 keep float sums finite. On one
   thread the correction of a 5000 x 5000 image took a fifth of the call's time beside the
   device on two H200s. */
#define HST__E_NONE ((size_t)-1)   /* no non-finite pixel */
typedef struct hst__emacro {
    float *img;                 /* row y0 of the image written (the pass) */
    const float *src;           /* row y0 of the image read: img, or its copy elsewhere (the
                                   finisher's staging, whose pass writes img) */
    size_t y0, y1, colsM, mag;  /* rows [y0, y1) of colsM columns, magnification mag */
    double *c;                  /* [py][px]: the sums so far; for the pass: the means, or NULL
                                   (check only) */
    size_t bad[HST_PARALLEL_MAX_THREADS];   /* per share of the pass: its first non-finite pixel
                                         (index from img), or HST__E_NONE */
} hst__emacro;

/* Phase rows py = k, k + n, ..: their chains continued over rows [y0, y1). */
static void hst__emacro_sums_share(void *ctx, unsigned k, unsigned n) {
    hst__emacro *m = (hst__emacro *)ctx;
    size_t py, px, y, x, mag = m->mag;
    double acc[HST_ESRRF_MAX_MAG];
    for (py = k; py < mag; py += n) {
        for (px = 0; px < mag; px++) acc[px] = m->c[py * mag + px];
        for (y = m->y0 + (py + mag - m->y0 % mag) % mag; y < m->y1; y += mag) {
            const float *row = m->src + (y - m->y0) * m->colsM;
            for (x = 0; x < m->colsM; x += mag)
                for (px = 0; px < mag; px++) acc[px] += (double)row[x + px];
        }
        for (px = 0; px < mag; px++) m->c[py * mag + px] = acc[px];
    }
}

/* Adds rows [y0, y1) (src: row y0) to the phases' sums c[mag * mag], continuing their chains. */
static void hst__emacro_sums(const float *src, size_t y0, size_t y1, size_t colsM, size_t mag, double *c) {
    hst__emacro m;
    m.src = src; m.y0 = y0; m.y1 = y1; m.colsM = colsM; m.mag = mag; m.c = c;
    hst_parallel(hst__emacro_sums_share, &m, mag < hst__ethreads() ? (unsigned)mag : hst__ethreads());
}

/* The sums of an image of rowsM x colsM into the phases' means (rowsM / mag x colsM / mag
   macro-pixels each). */
static void hst__emacro_means(double *c, size_t rowsM, size_t colsM, size_t mag) {
    size_t i;
    for (i = 0; i < mag * mag; ++i) c[i] /= (double)((rowsM / mag) * (colsM / mag));
}

/* The first non-finite of n floats, or HST__E_NONE: blocks of a fixed length tested without a
   branch per value (a loop the compiler vectorises at -O2), the failing block then searched. */
#define HST__E_CHECK_BLOCK 256
static size_t hst__efirst_nonfinite(const float *p, size_t n) {
    size_t i, j;
    for (i = 0; i < n; i += HST__E_CHECK_BLOCK) {
        int bad = 0;
        if (n - i >= HST__E_CHECK_BLOCK)
            for (j = 0; j < HST__E_CHECK_BLOCK; j++) bad |= !(fabsf(p[i + j]) <= FLT_MAX);
        else
            bad = 1;   /* the short last block: searched */
        for (j = i; bad && j < n && j < i + HST__E_CHECK_BLOCK; j++)
            if (!isfinite(p[j])) return j;
    }
    return HST__E_NONE;
}

/* A share of the rows: each divided by its phases' means, then checked. A phase whose mean is
   0 divides by 1 instead (the pixel unchanged, as the definition leaves it: v / 1 is v, a NaN's
   payload included), so the division has no branch; blocks of a fixed length, each reading
   the row's means from a pattern repeated past one block, vectorise at -O2 (the compiler's
   cheap model takes no loop of a run-time length). */
#define HST__E_SCALE_BLOCK 64
static void hst__emacro_pass_share(void *ctx, unsigned k, unsigned n) {
    hst__emacro *m = (hst__emacro *)ctx;
    size_t rows = m->y1 - m->y0, y, x, i, mag = m->mag;
    double rep[HST_ESRRF_MAX_MAG + HST__E_SCALE_BLOCK];
    m->bad[k] = HST__E_NONE;
    for (y = rows * k / n; y < rows * (k + 1) / n; ++y) {
        float *row = m->img + y * m->colsM;
        const float *in = m->src + y * m->colsM;
        size_t bad;
        if (m->c) {
            const double *cm = m->c + ((m->y0 + y) % mag) * mag;
            for (i = 0; i < mag + HST__E_SCALE_BLOCK; i++) rep[i] = cm[i % mag] != 0.0 ? cm[i % mag] : 1.0;
            for (x = 0; x + HST__E_SCALE_BLOCK <= m->colsM; x += HST__E_SCALE_BLOCK) {
                const double *r = rep + x % mag;
                const float *u = in + x;
                float *v = row + x;
                for (i = 0; i < HST__E_SCALE_BLOCK; i++) v[i] = (float)((double)u[i] / r[i]);
            }
            for (; x < m->colsM; x++) row[x] = (float)((double)in[x] / rep[x % mag]);
        } else if (in != row) {
            memcpy(row, in, m->colsM * sizeof(float));
        }
        if (m->bad[k] == HST__E_NONE && (bad = hst__efirst_nonfinite(row, m->colsM)) != HST__E_NONE)
            m->bad[k] = y * m->colsM + bad;   /* the rows after it still corrected (the sweep's) */
    }
}

/* Rows [y0, y1) of an image (src: row y0) into img (src itself, or a copy's rows): corrected by
   the phases' means (NULL: not), and checked; their first non-finite pixel (index from img), or
   HST__E_NONE. */
static size_t hst__emacro_pass(float *img, const float *src, size_t y0, size_t y1, size_t colsM, size_t mag,
                               double *means) {
    hst__emacro m;
    unsigned k, n = hst__ethreads();
    if (y1 - y0 < n) n = y1 > y0 ? (unsigned)(y1 - y0) : 1u;
    m.img = img; m.src = src; m.y0 = y0; m.y1 = y1; m.colsM = colsM; m.mag = mag; m.c = means;
    hst_parallel(hst__emacro_pass_share, &m, n);
    for (k = 0; k < n; k++)
        if (m.bad[k] != HST__E_NONE) return m.bad[k];
    return HST__E_NONE;
}

/* A whole image of rowsM x colsM from src into img (src itself, or a copy): corrected (correct
   1) and checked; its first non-finite pixel, or HST__E_NONE. */
static size_t hst__emacro_finish(float *img, const float *src, uint32_t rowsM, uint32_t colsM, uint32_t mag,
                                 int correct) {
    double c[HST_ESRRF_MAX_MAG * HST_ESRRF_MAX_MAG];
    if (correct) {
        memset(c, 0, sizeof c);
        hst__emacro_sums(src, 0, rowsM, colsM, mag, c);
        hst__emacro_means(c, rowsM, colsM, mag);
    }
    return hst__emacro_pass(img, src, 0, rowsM, colsM, mag, correct ? c : NULL);
}

/* The correction of one whole image (the sweep's images). */
static void hst__emacro_image(float *img, uint32_t rowsM, uint32_t colsM, uint32_t mag) {
    size_t checked_by_the_caller = hst__emacro_finish(img, img, rowsM, colsM, mag, 1);
    (void)checked_by_the_caller;
}

/* HST_ERROR_NON_FINITE, logged: pixel (row, col) of mode m's image of time point tp is v. */
static hst_result hst__enonfinite_image(const hst_backend *be, uint64_t tp, unsigned m, size_t row, size_t col,
                                        float v) {
    return hst_backend_fail(be, HST_ERROR_NON_FINITE, HST_LOGITEM_NON_FINITE, "hst_esrrf",
                     "the %s image of time point %llu is not representable in float32 "
                     "(magnified row %zu, column %zu is %s): the input's values are too large for "
                     "this statistic; scale them down", hst_esrrf_mode_name((int)m), (unsigned long long)tp, row, col,
                     isnan(v) ? "NaN" : "infinite");
}

/* The statistics run on the device when one OpenCL device with fp64 holds all the sums: only
   the float images come back (a fifth of TAC2's sums), with the host twin's bits. */
static int hst__edevice_stats(const hst__eng *e) {
    return e->ngrp == 1 && e->grp[0].nb == 1 && !e->grp[0].host && e->grp[0].acc_elem == 8;
}

/* One launch of the family's kernel id on be (options: the program's build; queue NULL: the
   backend's) over range, with args in the declared order (HST_ESRRF_KERNELS). */
static hst_result hst__elaunch(hst_backend *be, const char *options, unsigned id, const hst_range *range,
                               const hst_karg *args, size_t num_args) {
    hst_launch_desc l;
    memset(&l, 0, sizeof l);
    l.family = hst_kernels_esrrf_family();
    l.options = options;
    l.kernel = id;
    l.range = *range;
    l.args = args;
    l.num_args = num_args;
    return hst_launch_kernel(be, &l, NULL);
}

/* A 1-D range of n items from offset off. */
static hst_range hst__erange1(size_t off, size_t n) {
    hst_range r;
    memset(&r, 0, sizeof r);
    r.dims = 1; r.offset[0] = off; r.global[0] = n;
    return r;
}

/* hst_k_esrrf_stat: mode's image of `frames` frames into img from the sums at acc + first,
   for pixels [off, off + n) of `pixels`. */
static hst_result hst__estat(hst_backend *be, const char *options, hst_buffer *acc, hst_buffer *img, uint64_t first,
                             uint32_t pixels, uint32_t frames, int mode, size_t off, size_t n) {
    hst_range range = hst__erange1(off, n);
    hst_karg a[6];
    /* hst_k_esrrf_stat(global acc, global image, ulong first, uint pixels, uint frames, int mode) */
    a[0] = hst_karg_buffer(acc); a[1] = hst_karg_buffer(img); a[2] = hst_karg_ulong(first);
    a[3] = hst_karg_uint(pixels); a[4] = hst_karg_uint(frames); a[5] = hst_karg_int(mode);
    return hst__elaunch(be, options, HST_KESRRF_STAT, &range, a, 6);
}

/* The requested modes' images of T frames from the five sums at src + first (elements), on
   the one fp64 device, each into its g->img. */
static hst_result hst__estats_run(hst__eng *e, hst_buffer *src, uint64_t first, uint32_t T) {
    hst__egroup *g = &e->grp[0];
    unsigned m;
    hst_result r = HST_SUCCESS;
    for (m = 0; m < HST_ESRRF_NUM_MODES && r == HST_SUCCESS; m++) {
        if (!(e->d.modes & (1u << m))) continue;
        if (!g->img[m] && (r = hst_buffer_create(g->be[0], e->pixels * sizeof(float), 0, &g->img[m])) != HST_SUCCESS)
            return r;
        r = hst__estat(g->be[0], g->opts, src, g->img[m], first, (uint32_t)e->pixels, T, (int)m, 0, e->pixels);
    }
    return r;
}

/* hst__estats_run's images read into images[m] (the requested modes'; blocking 0: the reads left
   in flight on the backend's queue, images untouched until it has run them): only floats come
   back. */
static hst_result hst__estats_read(hst__eng *e, const float *const *images, int blocking) {
    hst__egroup *g = &e->grp[0];
    unsigned m;
    hst_result r = HST_SUCCESS;
    for (m = 0; m < HST_ESRRF_NUM_MODES && r == HST_SUCCESS; m++)
        if (e->d.modes & (1u << m))
            r = hst_read(hst_backend_queue(g->be[0]), g->img[m], 0, (void *)(uintptr_t)images[m],
                         e->pixels * sizeof(float), blocking, 0, NULL, NULL);
    return r;
}

/* Ring slot `slot` zeroed on the one device, for the time point that will use it next. */
static hst_result hst__ezero_slot(const hst__eng *e, uint32_t slot) {
    static const unsigned char zero[8] = {0};
    const hst__egroup *g = &e->grp[0];
    return hst_fill(hst_backend_queue(g->be[0]), g->acc[0], zero, 8, (size_t)slot * g->tp_bytes, g->tp_bytes, 0,
                    NULL, NULL);
}

/* Frames of time point tp: T, or the remainder for the last one once the total is known. */
static uint64_t hst__etp_frames(const hst__eng *e, uint64_t tp) {
    uint64_t T = e->d.frames_per_timepoint;
    if (!T) return e->frames_total;
    return e->frames_total && (tp + 1) * T > e->frames_total ? e->frames_total - tp * T : T;
}

/* Output time point tp's images: in the caller's out (batch), or e->img. */
static void hst__eimages(const hst__eng *e, uint64_t tp, const float **images) {
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        images[m] = NULL;
        if (e->d.modes & (1u << m)) images[m] = e->out ? e->out[m] + (size_t)tp * e->out_tp : e->img[m];
    }
}

/* The sums of ring slot `slot` over devices (in device order) into e->sum, the slot zeroed. */
static hst_result hst__eread_sums(hst__eng *e, uint32_t slot) {
    unsigned k, b;
    int first = 1;
    hst_result r;
    for (k = 0; k < e->ngrp; k++)
        for (b = 0; b < (e->grp[k].host ? 1u : e->grp[k].nb); b++) {   /* host backends share one */
            if ((r = hst__eread_slot(e, &e->grp[k], b, slot, first)) != HST_SUCCESS) return r;
            first = 0;
        }
    return HST_SUCCESS;
}

/* A time point's images from src[m] into images[m] (the same memory, or the finisher's
   staging; NULL: a mode not asked): the macro-pixel correction and the check that every pixel
   is finite (e->check 0: copied only, the caller makes both). Their first non-finite pixel
   (*mode its mode; modes in order, the first one's failure ends the work), else HST__E_NONE. */
static size_t hst__ecorrect(const hst__eng *e, const float *const *src, const float *const *images, unsigned *mode) {
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {   /* nrows is rowsM where it corrects */
        float *img = (float *)(uintptr_t)images[m];
        size_t bad;
        if (!img) continue;
        if (!e->check) {
            if (src[m] != img) memcpy(img, src[m], e->pixels * sizeof(float));
            continue;
        }
        bad = hst__emacro_finish(img, src[m], e->nrows, e->colsM, e->mag, !e->d.no_macro_pixel_correction);
        if (bad != HST__E_NONE) {
            *mode = m;
            return bad;
        }
    }
    return HST__E_NONE;
}

/* Output time point tp of T frames, the last of which is frame `end` - 1, has its images
   finished (hst__ecorrect's bad and mode): the report, then the callback, or the error. */
static hst_result hst__eannounce(hst__eng *e, uint64_t tp, uint64_t T, uint64_t end, const float *const *images,
                                 double t0, size_t bad, unsigned mode) {
    e->rep.finish_seconds += hst_time_s() - t0;
    if (bad != HST__E_NONE)
        return hst__enonfinite_image(e->log_be, tp, mode, e->row0 + bad / e->colsM, bad % e->colsM,
                                     images[mode][bad]);
    e->rep.timepoints = tp + 1;
    e->rep.frames = end;
    e->rep.frames_per_timepoint = e->roll_w ? e->roll_w : e->d.frames_per_timepoint ? e->d.frames_per_timepoint : T;
    e->rep.last_timepoint_frames = T;
    if (e->d.on_timepoint) e->d.on_timepoint(tp, images, e->rowsM, e->colsM, e->d.timepoint_user);
    return HST_SUCCESS;
}

/* Output time point tp (as hst__eannounce) has its statistics in images: finished in place,
   then announced. */
static hst_result hst__eemit(hst__eng *e, uint64_t tp, uint64_t T, uint64_t end, const float *const *images,
                             double t0) {
    unsigned mode = 0;
    size_t bad = hst__ecorrect(e, images, images, &mode);
    return hst__eannounce(e, tp, T, end, images, t0, bad, mode);
}

/* A window's sums on the host's cores: the window whose last block is `last`. */
typedef struct hst__eroll_job { hst__eng *e; uint64_t last; } hst__eroll_job;

static unsigned hst__ebits(unsigned v) {
    unsigned n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* >>kept pinned memory -----------------------------------------------------------------------
   Pinned buffers kept on a backend from one call to the next, a set per user (live sessions'
   staging, the batch finisher's slots): an extension of the backend, freed by
   hst_backend_destroy. On one H100, freeing the two pinned buffers of a 1000 x 1000 u16 live
   session (2 x 258 MB) took 0.07-0.14 s, a tenth or more of a 500-frame session (0.7 s), where
   pageable ones took 0.01. One user at a time takes a set (the backend's lock, which
   hst_esrrf_run and live sessions hold, orders them); a user beside it makes its own, which it
   frees. Pinned memory counts against a backend's device memory limit, so a backend with one
   keeps nothing: a kept set would shrink what the caller's later calls may use. */
#define HST__E_KEPT_MAX 4
typedef struct hst__ekept { hst_buffer *buf[HST__E_KEPT_MAX]; int taken; } hst__ekept;

static void hst__ekept_destroy(hst_backend *be, void *data) {
    hst__ekept *k = (hst__ekept *)data;
    unsigned i;
    for (i = 0; i < HST__E_KEPT_MAX; i++) hst_buffer_destroy(k->buf[i]);
    hst_backend_free(be, k);
}

/* be's kept set `name`, attached on first use; NULL when out of memory. */
static hst__ekept *hst__ekept_get(hst_backend *be, const char *name) {
    hst__ekept *k = (hst__ekept *)hst_backend_extension(be, name);
    if (k) return k;
    if (!(k = (hst__ekept *)hst_backend_calloc(be, sizeof *k))) return NULL;
    if (hst_backend_attach(be, name, k, hst__ekept_destroy) != HST_SUCCESS) {
        hst_backend_free(be, k);
        return NULL;
    }
    return k;
}

/* n <= HST__E_KEPT_MAX pinned buffers of at least `bytes` into bufs: be's kept set `name`
   where be has no device memory limit and no other user holds the set (made again where
   smaller; *kept 1), else the caller's own (*kept 0). On failure none is held. */
static hst_result hst__ekept_take(hst_backend *be, const char *name, unsigned n, size_t bytes, hst_buffer **bufs,
                                  int *kept) {
    hst__ekept *k = hst_backend_device_limit(be) ? NULL : hst__ekept_get(be, name);
    hst_result r = HST_SUCCESS;
    unsigned i;
    *kept = 0;
    for (i = 0; i < n; i++) bufs[i] = NULL;
    if (k && !k->taken) {
        for (i = 0; i < n && r == HST_SUCCESS; i++)
            if (!k->buf[i] || hst_buffer_bytes(k->buf[i]) < bytes) {
                hst_buffer_destroy(k->buf[i]);
                k->buf[i] = NULL;
                r = hst_pinned_create(be, bytes, &k->buf[i]);
            }
        if (r != HST_SUCCESS) return r;
        k->taken = *kept = 1;
        for (i = 0; i < n; i++) bufs[i] = k->buf[i];
        return HST_SUCCESS;
    }
    for (i = 0; i < n && r == HST_SUCCESS; i++) r = hst_pinned_create(be, bytes, &bufs[i]);
    if (r != HST_SUCCESS)
        for (i = 0; i < n; i++) { hst_buffer_destroy(bufs[i]); bufs[i] = NULL; }
    return r;
}

/* The n buffers hst__ekept_take gave: back to the kept set, or freed (the caller's own). */
static void hst__ekept_give(hst_backend *be, const char *name, unsigned n, hst_buffer **bufs, int *kept) {
    unsigned i;
    if (*kept) ((hst__ekept *)hst_backend_extension(be, name))->taken = 0;
    for (i = 0; i < n; i++) {
        if (!*kept) hst_buffer_destroy(bufs[i]);
        bufs[i] = NULL;
    }
    *kept = 0;
}

/* >>finisher ---------------------------------------------------------------------------------
   A batch call whose statistics run on its one device (hst__edevice_stats) finishes its time
   points on a thread of its own. Each time point's images are read without blocking into a
   staging slot (pinned memory kept on the backend, else pageable), and the thread waits for
   the read, then corrects and checks them from the slot into the caller's out on all cores
   (hst__ecorrect: the copy is the correction's own pass, whose writes also map out's fresh
   pages on every core), while the calling thread goes on to the next frames: the device
   computes while the host finishes. The announcements (report, callback) stay on the calling
   thread, in order. Before, the read into out and the correction ran in line, the device
   idle: on one H200, 500 frames of 1000 x 1000 at mag 5 in rolling windows (W 100, S 10: 41
   images of 5000 x 5000) took 2.3x the plain call, and a thread had to map out's pages ahead
   of the driver's one-thread copy (100 MB of fresh pages took 22 ms on one H100 host). Pieces
   complete at most HST__E_FIN_SLOTS time points (hst__epiece_end), so that the thread keeps
   pace with the device rather than the calling thread waiting for free slots. */
#define HST__E_FIN_SLOTS 4
#define HST__E_FIN_KEPT "esrrf_finish"
typedef char hst__efin_slots_kept[HST__E_FIN_SLOTS <= HST__E_KEPT_MAX ? 1 : -1];

typedef struct hst__efin_job {
    uint64_t tp, T, end;        /* output time point tp of T frames, its last frame end - 1 */
    hst_event ev;               /* its reads' end (a marker: the queue is in order) */
    hst_result r;               /* the thread's: the reads' */
    size_t bad;                 /* hst__ecorrect's */
    unsigned mode;
} hst__efin_job;

typedef struct hst__efinisher {
    hst_thread th;
    hst_mutex mu;
    hst_cond cv;
    const hst__eng *e;
    hst_buffer *pin[HST__E_FIN_SLOTS];  /* the slots' pinned memory (kept: on the backend) */
    int kept;
    float *stage[HST__E_FIN_SLOTS];     /* slot k: the requested modes' images, in mode order */
    hst__efin_job job[HST__E_FIN_SLOTS];    /* job j in slot j % HST__E_FIN_SLOTS */
    uint64_t queued, finished;  /* jobs handed to the thread, finished by it (under mu) */
    uint64_t announced;         /* the calling thread's: jobs announced (their slots free) */
    int stop;                   /* under mu: no more jobs come */
} hst__efinisher;

/* The thread's job j: waits for its reads, then finishes its images into out. */
static void hst__efin_run(const hst__efinisher *f, hst__efin_job *j, const float *stage) {
    const hst__eng *e = f->e;
    const float *src[HST_ESRRF_NUM_MODES], *images[HST_ESRRF_NUM_MODES];
    unsigned m, i = 0;
    j->bad = HST__E_NONE;
    j->r = hst_event_wait(1, &j->ev);
    hst_event_release(j->ev);
    j->ev = NULL;
    if (j->r != HST_SUCCESS) return;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        images[m] = src[m] = NULL;
        if (!(e->d.modes & (1u << m))) continue;
        images[m] = e->out[m] + (size_t)j->tp * e->out_tp;
        src[m] = stage + (size_t)i++ * e->pixels;
    }
    j->bad = hst__ecorrect(e, src, images, &j->mode);
}

static void *hst__efin_main(void *p) {
    hst__efinisher *f = (hst__efinisher *)p;
    hst_mutex_lock(&f->mu);
    for (;;) {
        unsigned k;
        while (f->finished == f->queued && !f->stop) hst_cond_wait(&f->cv, &f->mu);
        if (f->finished == f->queued) break;   /* stopped, every job done */
        k = (unsigned)(f->finished % HST__E_FIN_SLOTS);
        hst_mutex_unlock(&f->mu);
        hst__efin_run(f, &f->job[k], f->stage[k]);
        hst_mutex_lock(&f->mu);
        f->finished++;
        hst_cond_broadcast(&f->cv);
    }
    hst_mutex_unlock(&f->mu);
    return NULL;
}

/* The slots: pinned (kept on the backend), else pageable. */
static hst_result hst__efin_slots(hst__efinisher *f, hst_backend *be, size_t bytes) {
    unsigned k;
    if (hst__ekept_take(be, HST__E_FIN_KEPT, HST__E_FIN_SLOTS, bytes, f->pin, &f->kept) == HST_SUCCESS) {
        for (k = 0; k < HST__E_FIN_SLOTS; k++) f->stage[k] = (float *)hst_buffer_host_ptr(f->pin[k]);
        return HST_SUCCESS;
    }
    for (k = 0; k < HST__E_FIN_SLOTS; k++)
        if (!(f->stage[k] = (float *)hst_backend_alloc(be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    return HST_SUCCESS;
}

static void hst__efin_free(hst__efinisher *f, hst_backend *be) {
    unsigned k;
    if (f->pin[0]) hst__ekept_give(be, HST__E_FIN_KEPT, HST__E_FIN_SLOTS, f->pin, &f->kept);
    else
        for (k = 0; k < HST__E_FIN_SLOTS; k++) hst_backend_free(be, f->stage[k]);
    hst_backend_free(be, f);
}

/* Starts the finisher of a batch call on one fp64 device (e->fin); where its memory or thread
   cannot be had, the call finishes in line (slower, the same bits). */
static void hst__efin_start(hst__eng *e) {
    hst_backend *be = e->log_be;
    size_t bytes;
    hst__efinisher *f;
    if (!e->out || !hst__edevice_stats(e) ||
        !hst_size_mul((size_t)hst__ebits(e->d.modes) * sizeof(float), e->pixels, &bytes))
        return;
    if (!(f = (hst__efinisher *)hst_backend_calloc(be, sizeof *f))) return;
    f->e = e;
    if (hst__efin_slots(f, be, bytes) != HST_SUCCESS || !hst_mutex_init(&f->mu)) {
        hst__efin_free(f, be);
        return;
    }
    if (!hst_cond_init(&f->cv)) {
        hst_mutex_destroy(&f->mu);
        hst__efin_free(f, be);
        return;
    }
    if (!hst_thread_create(&f->th, hst__efin_main, f)) {
        hst_cond_destroy(&f->cv);
        hst_mutex_destroy(&f->mu);
        hst__efin_free(f, be);
        return;
    }
    e->fin = f;
}

/* Announces the finished jobs in order, first waiting until `need` of them are (so many
   announced); the first failure's error (the jobs after it are not announced). */
static hst_result hst__efin_announce(hst__eng *e, uint64_t need) {
    hst__efinisher *f = e->fin;
    hst_result r = HST_SUCCESS;
    while (r == HST_SUCCESS) {
        const hst__efin_job *j = &f->job[f->announced % HST__E_FIN_SLOTS];
        const float *images[HST_ESRRF_NUM_MODES];
        double t0 = hst_time_s();
        int ready;
        hst_mutex_lock(&f->mu);
        while (f->finished == f->announced && f->announced < need) hst_cond_wait(&f->cv, &f->mu);
        ready = f->finished > f->announced;
        hst_mutex_unlock(&f->mu);
        if (!ready) break;
        hst__eimages(e, j->tp, images);
        r = j->r != HST_SUCCESS ? j->r : hst__eannounce(e, j->tp, j->T, j->end, images, t0, j->bad, j->mode);
        f->announced++;
    }
    return r;
}

/* Output time point tp of T frames (its last frame end - 1), whose statistics hst__estats_run
   has enqueued: read into a free slot, handed to the thread; then the finished ones announced. */
static hst_result hst__efin_push(hst__eng *e, uint64_t tp, uint64_t T, uint64_t end) {
    hst__efinisher *f = e->fin;
    hst_queue *q = hst_backend_queue(e->grp[0].be[0]);
    unsigned k = (unsigned)(f->queued % HST__E_FIN_SLOTS), m, i = 0;
    const float *stage[HST_ESRRF_NUM_MODES];
    hst__efin_job *j = &f->job[k];
    hst_result r = hst__efin_announce(e, f->queued >= HST__E_FIN_SLOTS ? f->queued + 1 - HST__E_FIN_SLOTS : 0);
    if (r != HST_SUCCESS) return r;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        stage[m] = e->d.modes & (1u << m) ? f->stage[k] + (size_t)i++ * e->pixels : NULL;
    j->tp = tp; j->T = T; j->end = end; j->ev = NULL;
    if ((r = hst__estats_read(e, stage, 0)) != HST_SUCCESS ||
        (r = hst_queue_marker(q, 0, NULL, &j->ev)) != HST_SUCCESS || (r = hst_queue_flush(q)) != HST_SUCCESS) {
        hst_event_release(j->ev);
        return r;
    }
    hst_mutex_lock(&f->mu);
    f->queued++;
    hst_cond_broadcast(&f->cv);
    hst_mutex_unlock(&f->mu);
    return hst__efin_announce(e, 0);
}

/* Stops the thread once it has finished every job handed over (their reads are done then: the
   slots can go), and frees it. */
static void hst__efin_end(hst__eng *e) {
    hst__efinisher *f = e->fin;
    if (!f) return;
    hst_mutex_lock(&f->mu);
    f->stop = 1;
    hst_cond_broadcast(&f->cv);
    hst_mutex_unlock(&f->mu);
    hst_thread_join(&f->th);
    hst_cond_destroy(&f->cv);
    hst_mutex_destroy(&f->mu);
    hst__efin_free(f, e->log_be);
    e->fin = NULL;
}

/* Elements from a block's first sum to its sum q (one of the requested) in the host's ring. */
static size_t hst__eroll_off(const hst__eng *e, unsigned q) {
    unsigned want = hst__esums(e->d.modes), qi = 0, j;
    for (j = 0; j < q; j++) qi += (want >> j) & 1u;
    return qi * e->pixels;
}

/* Block `block`'s sum q (one of the requested) in the host's ring of the last roll_n blocks. */
static double *hst__eroll_at(const hst__eng *e, uint64_t block, unsigned q) {
    return e->roll + (size_t)(block % e->roll_n) * (size_t)hst__ebits(hst__esums(e->d.modes)) * e->pixels +
           hst__eroll_off(e, q);
}

/* The window's requested sums into e->sum, pixels of share k of n (hst_k_esrrf_roll's twin on
   the host's ring: its order). */
static void hst__eroll_share(void *ctx, unsigned k, unsigned n) {
    const hst__eroll_job *job = (const hst__eroll_job *)ctx;
    const hst__eng *e = job->e;
    size_t P = e->pixels;
    unsigned want = hst__esums(e->d.modes), q;
    for (q = 0; q < HST__E_ACC_VALUES; q++)
        if (want & (1u << q))
            hst_k_esrrf_roll_host(e->roll, e->sum, q * P, hst__ebits(want) * P, e->roll_n, job->last + 1 - e->roll_n,
                                  (uint32_t)e->roll_n, q, hst__eroll_off(e, q), hst__eroll_off(e, 3),
                                  hst__eroll_off(e, 4), P * k / n, P * (k + 1) / n);
}

/* Waits for the zeroing of the slots just read (hst__eread_slot's fill on each OpenCL
   backend's default queue), so that the next piece's sums never meet a fill in flight: blocks
   reuse the slots at once where the ring is short (a live session's holds one block). */
static hst_result hst__ezeroed(const hst__eng *e) {
    unsigned k, b;
    hst_result r;
    for (k = 0; k < e->ngrp; k++)
        for (b = 0; b < e->grp[k].nb && !e->grp[k].host; b++)
            if ((r = hst_queue_finish(hst_backend_queue(e->grp[k].be[b]))) != HST_SUCCESS) return r;
    return HST_SUCCESS;
}

/* Output time point tp of T frames (its last frame end - 1), whose sums are at src + first (the
   device's ring, or a rolling window's buffer): its statistics on the device; then ring slot
   `zero` (none where >= acc_tps) zeroed for its next time point and waited for (hst__ezeroed:
   the reads are not yet behind it); then the images to the finisher (e->fin), or read into out
   or e->img and finished here. */
static hst_result hst__estats_deliver(hst__eng *e, hst_buffer *src, uint64_t first, uint32_t T, uint64_t tp,
                                      uint64_t end, uint64_t zero, double t0) {
    const float *images[HST_ESRRF_NUM_MODES];
    hst_result r = hst__estats_run(e, src, first, T);
    if (r == HST_SUCCESS && zero < e->acc_tps && (r = hst__ezero_slot(e, (uint32_t)zero)) == HST_SUCCESS)
        r = hst__ezeroed(e);
    if (r != HST_SUCCESS) return r;
    if (e->fin) return hst__efin_push(e, tp, T, end);
    hst__eimages(e, tp, images);
    if ((r = hst__estats_read(e, images, 1)) != HST_SUCCESS) return r;
    return hst__eemit(e, tp, T, end, images, t0);
}

/* Block tp's sums (ring slot `slot`) over devices into the host's ring, the slot zeroed. */
static hst_result hst__eroll_keep(hst__eng *e, uint64_t tp, uint32_t slot) {
    unsigned want = hst__esums(e->d.modes), q;
    hst_result r;
    if ((r = hst__eread_sums(e, slot)) != HST_SUCCESS || (r = hst__ezeroed(e)) != HST_SUCCESS) return r;
    for (q = 0; q < HST__E_ACC_VALUES; q++)
        if (want & (1u << q)) memcpy(hst__eroll_at(e, tp, q), e->sum + q * e->pixels, e->pixels * sizeof(double));
    return HST_SUCCESS;
}

/* The window whose last block is `last`, from the host's ring: its sums on the host's cores,
   then its statistics. */
static void hst__eroll_window_host(hst__eng *e, uint64_t last, const float *const *images) {
    hst__eroll_job job;
    job.e = e; job.last = last;
    hst_parallel(hst__eroll_share, &job, hst__ethreads());
    hst__efinish(e, (uint32_t)e->roll_w, images);
}

/* The same from the device's ring (e->roll_dev): hst_k_esrrf_roll per requested sum into the
   window's buffer (its statistics follow there: only the images come back). */
static hst_result hst__eroll_sum_device(hst__eng *e, uint64_t last) {
    hst__egroup *g = &e->grp[0];
    size_t P = e->pixels;
    hst_range range = hst__erange1(0, P);
    unsigned want = hst__esums(e->d.modes), q;
    hst_result r = HST_SUCCESS;
    if (!g->win && (r = hst_buffer_create(g->be[0], g->tp_bytes, 0, &g->win)) != HST_SUCCESS) return r;
    for (q = 0; q < HST__E_ACC_VALUES && r == HST_SUCCESS; q++) {
        hst_karg a[12];
        if (!(want & (1u << q))) continue;
        /* hst_k_esrrf_roll(global ring, global win, ulong win_off, ulong block_elems, ulong nslots,
           ulong b0, uint nblocks, uint pixels, uint sum, ulong off_q, ulong off_first, ulong off_last) */
        a[0] = hst_karg_buffer(g->acc[0]); a[1] = hst_karg_buffer(g->win); a[2] = hst_karg_ulong(q * P);
        a[3] = hst_karg_ulong(HST__E_ACC_VALUES * P); a[4] = hst_karg_ulong(e->acc_tps);
        a[5] = hst_karg_ulong(last + 1 - e->roll_n); a[6] = hst_karg_uint((uint32_t)e->roll_n);
        a[7] = hst_karg_uint((uint32_t)P); a[8] = hst_karg_uint(q); a[9] = hst_karg_ulong(q * P);
        a[10] = hst_karg_ulong(3 * P); a[11] = hst_karg_ulong(4 * P);
        r = hst__elaunch(g->be[0], g->opts, HST_KESRRF_ROLL, &range, a, 12);
    }
    return r;
}

/* Block tp (T frames) is complete, its sums in ring slot `slot`: they join the last roll_n
   blocks' (the host's ring, or they stay in the device's). Where a window ends with it (its
   frames kS + W), the window's sums, statistics and images (output time point k); a shorter
   last block ends no window. On the device, then, the block that no later window uses (tp + 1
   - roll_n) gives its slot back, zeroed. */
static hst_result hst__eroll_block(hst__eng *e, uint64_t tp, uint64_t T, uint32_t slot, double t0) {
    const float *images[HST_ESRRF_NUM_MODES];
    uint64_t g = e->d.frames_per_timepoint, end = tp * g + T, k = 0;
    uint64_t freed = tp + 1 >= e->roll_n ? (tp + 1 - e->roll_n) % e->acc_tps : e->acc_tps;
    int ends = T == g && end >= e->roll_w && (end - e->roll_w) % e->roll_s == 0;
    hst_result r = HST_SUCCESS;
    if (ends) k = (end - e->roll_w) / e->roll_s;
    if (e->roll_dev) {
        if (ends && (r = hst__eroll_sum_device(e, tp)) == HST_SUCCESS)
            return hst__estats_deliver(e, e->grp[0].win, 0, (uint32_t)e->roll_w, k, end, freed, t0);
        if (r == HST_SUCCESS && freed < e->acc_tps && (r = hst__ezero_slot(e, (uint32_t)freed)) == HST_SUCCESS)
            r = hst__ezeroed(e);
    } else if ((r = hst__eroll_keep(e, tp, slot)) == HST_SUCCESS && ends) {
        hst__eimages(e, k, images);
        hst__eroll_window_host(e, tp, images);
        return hst__eemit(e, k, e->roll_w, end, images, t0);
    }
    e->rep.finish_seconds += hst_time_s() - t0;
    return r;
}

/* Time point tp (rolling: block tp) is complete: its sums over devices, the statistics (on the
   device where one fp64 device runs alone), into the caller's out (batch) or e->img, then
   hst__eemit. */
static hst_result hst__edeliver(hst__eng *e, uint64_t tp) {
    uint64_t T = hst__etp_frames(e, tp);
    uint32_t slot = (uint32_t)(tp % e->acc_tps);
    const float *images[HST_ESRRF_NUM_MODES];
    double t0 = hst_time_s();
    hst_result r;
    if (e->roll_w) {
        if ((r = hst__eroll_block(e, tp, T, slot, t0)) == HST_SUCCESS) e->delivered = tp + 1;
        return r;
    }
    if (hst__edevice_stats(e)) {
        r = hst__estats_deliver(e, e->grp[0].acc[0], (uint64_t)slot * HST__E_ACC_VALUES * e->pixels, (uint32_t)T, tp,
                                tp * e->d.frames_per_timepoint + T, slot, t0);
    } else if ((r = hst__eread_sums(e, slot)) == HST_SUCCESS) {
        hst__eimages(e, tp, images);
        hst__efinish(e, (uint32_t)T, images);
        r = hst__eemit(e, tp, T, tp * e->d.frames_per_timepoint + T, images, t0);
    }
    if (r == HST_SUCCESS) e->delivered = tp + 1;
    return r;
}

/* Delivers every time point that frames [0, done) complete (the last one, shorter or not, once
   done reaches the known total). */
static hst_result hst__edeliver_done(hst__eng *e, uint64_t done) {
    uint64_t T = e->d.frames_per_timepoint;
    uint64_t complete = T ? done / T : 0;
    if (e->frames_total && done == e->frames_total) complete = T ? (done + T - 1) / T : 1;
    hst_result r = HST_SUCCESS;
    while (r == HST_SUCCESS && e->delivered < complete) r = hst__edeliver(e, e->delivered);
    return r;
}

/* The time points a piece may complete: those the sums' ring holds (rolling on the device: but
   the roll_n - 1 blocks before the piece's, held); with a finisher (fin 1), at most its slots'
   (the calling thread then rarely waits for a slot). */
static uint64_t hst__epiece_tps(const hst__eng *e, int fin) {
    uint64_t tps = e->acc_tps - (e->roll_dev ? e->roll_n - 1 : 0);
    return fin && tps > HST__E_FIN_SLOTS ? HST__E_FIN_SLOTS : tps;
}

/* The end of the next piece from frame c0, at most `avail` frames on: within hst__epiece_tps's
   time points, ending at a time point's end when it reaches one. */
static uint64_t hst__epiece_end(const hst__eng *e, uint64_t c0, uint64_t avail) {
    uint64_t T = e->d.frames_per_timepoint, c1 = c0 + avail;
    if (T) {
        uint64_t end = (c0 / T + hst__epiece_tps(e, e->fin != NULL)) * T;
        if (c1 > end) c1 = end;
    }
    return c1;
}

/* Automatic blocks where pieces are short (a ring of few time points; rolling, whose ring holds
   a window's blocks: at 1000 x 1000, mag 5, pieces of 3 blocks of 10 frames): at most a third of
   a piece, at least HST__E_MIN_SPLIT frames, so that a piece's uploads overlap its compute.
   Before, such a piece was one block, its upload (60 MB from pageable memory) in line: on one
   H200, rolling (W 100, S 10, AVG, 500 frames) took 1.41x the plain call, now 1.25x. Batch calls on one
   fp64 device count the finisher's cap (hst__efin_start runs for them). Live sessions keep
   theirs (their pieces are the pushes). */
#define HST__E_MIN_SPLIT 8
static void hst__eblock_split(hst__eng *e, uint64_t n) {
    uint64_t piece = hst__epiece_tps(e, n && hst__edevice_stats(e)) * e->d.frames_per_timepoint, b = piece / 3;
    if (!n || !e->d.frames_per_timepoint || e->d.block_frames) return;   /* batch calls */
    if (b < HST__E_MIN_SPLIT) b = HST__E_MIN_SPLIT;
    if (b < e->block) e->block = b;
}

/* The automatic block where the host device runs alone and no mode needs the lag-1 sums (no
   frame before a block is computed again, so HST__E_MIN_BLOCK's reason is gone): the block's RGC
   frames within HST__E_HOST_BLOCK_BYTES, at least one frame, so that the temporal sums read them
   from the last-level cache where they fit, and the ring holds that much rather than 16 or more
   frames' (at 1000 x 1000, mag 5, 16 frames: 3.08 -> 1.54 GB of resident memory and 1.34x
   faster on 2 cores). A live session's staging and pieces follow (HST_ESRRF_LIVE_BLOCKS such
   blocks a piece). */
#define HST__E_HOST_BLOCK_BYTES ((size_t)32 << 20)
static void hst__ehost_block(hst__eng *e) {
    size_t b = HST__E_HOST_BLOCK_BYTES / (e->pixels * sizeof(float));
    if (e->d.block_frames || e->ngrp != 1 || !e->grp[0].host || e->grp[0].lag) return;
    if (b < 1) b = 1;
    if (b < e->block) e->block = b;
}

/* frames_per_timepoint above the n frames: n, as NanoPyx; said at info level (OUT_OF_RANGE:
   the value is outside what it can mean). */
static void hst__eclamp(hst__eng *e, uint64_t n) {
    char msg[200];
    snprintf(msg, sizeof msg, "hst_esrrf: frames_per_timepoint %llu is more than the %llu frames: clamped to %llu "
             "(one time point, as NanoPyx)", (unsigned long long)e->d.frames_per_timepoint, (unsigned long long)n,
             (unsigned long long)n);
    hst_backend_log(e->log_be, HST_LOG_INFO, HST_LOGITEM_OUT_OF_RANGE, msg);
    e->d.frames_per_timepoint = n;
}

/* >>engine ----------------------------------------------------------------------------------- */
/* Time points of sums that fit one device: a share of its memory, within its largest
   allocation (the host device: HST__E_HOST_ACC_BYTES). */
#define HST__E_HOST_ACC_BYTES ((uint64_t)1 << 30)
/* An OpenCL device's ring is at most HST__E_ACC_MAX_BYTES (or one time point, where that is
   larger): on NVIDIA's OpenCL (driver 580; H100 and H200 alike) a ring of 20 GB and more broke
   the queue (CL_INVALID_COMMAND_QUEUE at the next call; a cause inside the driver, not found:
   pieces of the zeroing fill did not help), where 12 GiB ran: measured with time points of 10
   frames at 1000 x 1000, mag 5, and rolling windows (bench/esrrf_rolling_bench.c). */
#ifndef HST__E_ACC_MAX_BYTES
#define HST__E_ACC_MAX_BYTES ((uint64_t)12 << 30)
#endif
static uint64_t hst__eacc_fit(const hst__egroup *g, unsigned b) {
    const hst_device_info *info = hst_backend_device(g->be[b]);
    uint64_t fit, most = HST__E_ACC_MAX_BYTES / g->tp_bytes;
    if (g->host) return HST__E_HOST_ACC_BYTES / g->tp_bytes;
    fit = info->global_mem_bytes / HST__E_ACC_SHARE_DEN / g->tp_bytes;
    if (info->max_alloc_bytes / g->tp_bytes < fit) fit = info->max_alloc_bytes / g->tp_bytes;
    if (most < 1) most = 1;
    return fit < most ? fit : most;
}

/* The sums' ring (at most ntp_max time points, at least 1) and one zeroed buffer per backend. */
static hst_result hst__eacc(hst__eng *e, uint64_t ntp_max) {
    uint64_t cap = ntp_max;
    unsigned k, b;
    hst_result r;
    for (k = 0; k < e->ngrp; k++)
        for (b = 0; b < e->grp[k].nb; b++) {
            uint64_t fit = hst__eacc_fit(&e->grp[k], b);
            if (fit == 0 && !e->grp[k].host)
                return hst_backend_fail(e->log_be, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "hst_esrrf",
                                 "the temporal sums of one time point (%zu bytes) do not fit %s "
                                 "(largest allocation %llu bytes); lower the magnification", e->grp[k].tp_bytes,
                                 hst_backend_device(e->grp[k].be[b])->name,
                                 (unsigned long long)hst_backend_device(e->grp[k].be[b])->max_alloc_bytes);
            if (fit < cap) cap = fit;
        }
    e->acc_tps = (uint32_t)(cap < 1 ? 1 : cap > UINT32_MAX ? UINT32_MAX : cap);
    for (k = 0; k < e->ngrp; k++)
        for (b = 0; b < e->grp[k].nb; b++) {
            static const unsigned char zero[8] = {0};
            hst__egroup *g = &e->grp[k];
            size_t bytes = (size_t)e->acc_tps * g->tp_bytes;
            if ((r = hst_buffer_create(g->be[b], bytes, HST_MEM_RESIDENT, &g->acc[b])) != HST_SUCCESS) return r;
            if (g->host) hst_parallel_memset(hst_buffer_host_ptr(g->acc[b]), 0, bytes);
            else if ((r = hst_fill(hst_backend_queue(g->be[b]), g->acc[b], zero, g->acc_elem, 0, bytes, 0, NULL, NULL)) != HST_SUCCESS ||
                     (r = hst_queue_finish(hst_backend_queue(g->be[b]))) != HST_SUCCESS)
                return r;
        }
    return HST_SUCCESS;
}

/* 1 where the OpenCL device of be takes NVIDIA's build options (cl_nv_compiler_options) */
static int hst__env_options(hst_backend *be) {
#ifndef HST_NO_OPENCL
    char ext[8192];
    size_t n = 0;
    cl_device_id dev = hst_backend_cl_device(be);
    if (!dev || clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, &n) != CL_SUCCESS)
        return 0;
    ext[n < sizeof ext ? n : sizeof ext - 1] = '\0';
    return strstr(ext, "cl_nv_compiler_options") != NULL;
#else
    (void)be;
    return 0;
#endif
}

/* 1 where be is an NVIDIA GPU that takes the fused kernel's work-group of HST__E_GPU_FUSED_LOCAL */
static int hst__env_gpu(hst_backend *be) {
    const hst_device_info *info = hst_backend_device(be);
    return info->type == HST_DEVICE_GPU && strstr(info->vendor, "NVIDIA") &&
           info->max_work_group_size >= HST__E_GPU_FUSED_LOCAL;
}


/* 1 where the fused kernel takes the CPU build on this device: a CPU with its local memory */
static int hst__e_cpu_build(const hst_device_info *info) {
    return info->type == HST_DEVICE_CPU && info->local_mem_bytes >= HST_K_ESRRF_CPU_LOCAL_BYTES;
}

/* On NVIDIA GPUs, the work indices per item nearest HST__E_NV_K whose work-group's are whole
   rows of a strip (HST_K_ESRRF_NV_TW(mag) columns), so that a group's segments have no part
   rows, which go pixel by pixel (hst_e_fused_rowx). On an H100 (1000 x 1000 frames, radius
   1.5, 2026-12-07), ms a frame against 40 indices: mag 3 (36) 0.282 / 0.294, mag 6 (39)
   0.749 / 0.762, mag 7 (42) 1.002 / 1.036 */
static unsigned hst__e_nv_k(unsigned mag) {
    unsigned tw = HST_K_ESRRF_NV_TW(mag), a = tw, b = HST__E_GPU_FUSED_LOCAL, k;
    while (b) {   /* a = gcd(tw, the group's items) */
        unsigned r = a % b;
        a = b;
        b = r;
    }
    k = tw / a;   /* the fewest indices an item that make a group's whole rows */
    return (HST__E_NV_K + k / 2) / k > 0 ? (HST__E_NV_K + k / 2) / k * k : k;
}

/* Its work indices per item (HST_E_K) at magnification mag, and its work-group (0: the
   backend's default) */
static unsigned hst__e_fused_k(int nv, int cpu, unsigned mag) {
    return nv ? hst__e_nv_k(mag) : cpu ? HST_K_ESRRF_CPU_K(mag) : HST__E_K;
}

static size_t hst__e_fused_local(int gpu, int cpu) {
    return gpu ? HST__E_GPU_FUSED_LOCAL : cpu ? HST_K_ESRRF_CPU_LOCAL : 0;
}

/* The fused kernel's build options into buf (n bytes; its length returned, 0 where NVIDIA's
   geometry does not fit) for devices that are all NVIDIA GPUs taking compiler options (nv), all
   CPUs taking the CPU build (cpu: hst__e_cpu_build), or neither, at magnification mag and radius
   (the largest a program computes) with a (w, wd) table of wtab entries (0: the default's) and
   local_bytes of local memory (the least of the devices'): the devices' options (on NVIDIA
   hst_k_esrrf_nv_options' geometry), the work indices per item (hst__e_fused_k), the
   magnification as a constant (HST_E_MAG: the kernel's divisions by it
   and its phases' centres fold; on an H100, 1000 x 1000 frames, radius 1.5, 2026-12-06: mag 5
   0.814 -> 0.740 ms a frame, mag 6 1.228 -> 1.087, mag 1 0.195 -> 0.164; the same bits) and
   the table */
static size_t hst__e_device_options(int nv, int cpu, unsigned mag, float radius, uint64_t wtab,
                                    uint64_t local_bytes, char *buf, size_t n) {
    int len = snprintf(buf, n, "%s -DHST_E_K=%u -DHST_E_MAG=%u ", nv ? HST__E_NV_REGS : cpu ? HST_K_ESRRF_CPU_OPTIONS : "",
                       hst__e_fused_k(nv, cpu, mag), mag);
    if (len <= 0 || (size_t)len >= n) return 0;
    if (nv) {
        size_t g = hst_k_esrrf_nv_options(mag, radius, wtab, local_bytes, buf + len, n - (size_t)len);
        return g ? (size_t)len + g : 0;
    }
    if (wtab) len += snprintf(buf + len, n - (size_t)len, "-DHST_E_WTAB=%llu", (unsigned long long)wtab);
    return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* Its local memory beside its (w, wd) table, at most: on CPUs a tile of HST_K_ESRRF_CPU_TILE
   half-pixel positions of 2 floats, its copy by columns and the scratch where it is made,
   elsewhere HST_K_ESRRF_NV_TILE positions (kernels_esrrf.h's default is 1536; NVIDIA's tile and
   its scratch shrink to fit beside the table: hst_k_esrrf_nv_options) */
#define HST__E_TILE_BYTES(cpu) ((uint64_t)((cpu) ? 3 * HST_K_ESRRF_CPU_TILE : HST_K_ESRRF_NV_TILE) * 2 * sizeof(float))

/* need, the entries of a (w, wd) table (hst_k_esrrf_wtab_entries), where the device's local
   memory holds them beside the tile, else 0: a build's HST_E_WTAB, so that it does not compute
   its weights per sample (the default, HST_K_ESRRF_WTAB entries, holds radius 1.5 at mag 5 but
   not 2: 2025 entries, 12x slower on PoCL per sample). The table path gives the same bits. */
static uint64_t hst__e_wtab_fit(uint64_t need, const hst_device_info *info) {
    return need * 2 * sizeof(float) + HST__E_TILE_BYTES(hst__e_cpu_build(info)) <= info->local_mem_bytes ? need : 0;
}

/* A group's sums type and build options: double where every device has fp64 (the host twin
   always); NVIDIA's work-group and register cap where every device is such a GPU, the CPU build
   where every device takes it (hst__e_cpu_build), a (w, wd) table for the radius where it is
   larger than the default's and every device holds it (hst__e_wtab_fit), on NVIDIA the radius
   as a constant (HST_E_RADIUS: a program per radius; on an H100, mag 2 0.244 -> 0.225 ms a
   frame, mag 5 0.740 -> 0.734; not on CPUs, where a new radius's build costs seconds and the
   constant gained nothing measurable). The program has no float division or sqrt, so no
   option changes its bits. */
static hst_result hst__egroup_types(hst__eng *e, hst__egroup *g) {
    int fp64 = 1, nvopt = !g->host, cpu = !g->host;
    uint64_t need = hst_k_esrrf_wtab_entries(e->mag, e->d.radius);
    int wtab = !g->host && need > HST_K_ESRRF_WTAB;   /* a larger table than the default's */
    uint64_t local = UINT64_MAX;
    unsigned b;
    size_t len;
    int n;
    for (b = 0; b < g->nb && !g->host; b++) {
        const hst_device_info *info = hst_backend_device(g->be[b]);
        fp64 &= info->fp64 != 0;
        cpu &= hst__e_cpu_build(info);
        wtab &= hst__e_wtab_fit(need, info) != 0;
        if (info->local_mem_bytes < local) local = info->local_mem_bytes;
    }
    g->acc_elem = fp64 ? sizeof(double) : sizeof(float);
    for (b = 0; b < g->nb && !g->host; b++) {   /* GPUs only: every device of the group */
        if (!hst__env_gpu(g->be[b])) break;
        nvopt &= hst__env_options(g->be[b]);
    }
    g->fused_local = hst__e_fused_local(!g->host && b == g->nb, cpu);
    if (g->host || b < g->nb) nvopt = 0;
    g->rgc_local = 0;
    for (b = 0; b < g->nb && !g->host; b++) {   /* the smallest of the group's devices' */
        size_t l = hst_k_esrrf_rgc_local(e->mag, e->d.radius, hst_backend_device(g->be[b])->max_work_group_size);
        if (!g->rgc_local || l < g->rgc_local) g->rgc_local = l;
    }
    if (e->pixels > SIZE_MAX / HST__E_ACC_VALUES / sizeof(double))
        return hst_backend_fail(e->log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf", "the temporal sums overflow size_t");
    g->tp_bytes = HST__E_ACC_VALUES * e->pixels * g->acc_elem;
    g->lag = (hst__esums(e->d.modes) & HST__E_SUM_LAG1) != 0;
    g->fused_k = hst__e_fused_k(nvopt, cpu, e->mag);
    len = hst__e_device_options(nvopt, cpu, e->mag, e->d.radius, wtab ? need : 0, local, g->opts, sizeof g->opts);
    n = snprintf(g->opts + len, sizeof g->opts - len, "%s%s", fp64 ? " -DHST_FP64" : "", g->lag ? "" : " -DHST_E_NO_LAG1");
    if (nvopt && n >= 0 && (size_t)n < sizeof g->opts - len) {
        len += (size_t)n;
        n = snprintf(g->opts + len, sizeof g->opts - len, " -DHST_E_RADIUS=%af", (double)e->d.radius);
    }
    if (len == 0 || n < 0 || (size_t)n >= sizeof g->opts - len)   /* a cut option would build wrong */
        return hst_backend_fail(e->log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf",
                                "the fused kernel's build options exceed %zu bytes", sizeof g->opts);
    return HST_SUCCESS;
}

/* Groups the backends by kind, keeping their order. */
static void hst__egroups(hst__eng *e) {
    unsigned i, k;
    e->ngrp = 0;
    for (i = 0; i < e->d.num_backends; i++) {
        int host = hst_backend_is_host(e->d.backends[i]);
        for (k = 0; k < e->ngrp && e->grp[k].host != host; k++) {}
        if (k == e->ngrp) { e->grp[k].host = host; e->ngrp++; }
        e->grp[k].be[e->grp[k].nb++] = e->d.backends[i];
    }
    if (e->ngrp == 2 && !e->grp[0].host) {   /* the host share first */
        hst__egroup t = e->grp[0];
        e->grp[0] = e->grp[1];
        e->grp[1] = t;
    }
}

/* Shipped timings for CPUs (the Liquid Engine's defaults), blocks of 16 frames of 256 x 256 at
   mag 5 on 2 cores: the host device fused 0.5 s, chained 1.3 s (the CLI on the shipped stack,
   2026-12-03: 1.7 and 4.2 s for its 50 frames on a 2-core Intel Xeon, AVX-512); PoCL fused
   10.5 s, chained 36.8 s (655 and 2,301 ms per frame, 2026-12-02). On a CPU the chained path stores and re-reads the magnified gradients (32 bytes
   per output pixel and frame), so it is the slower there. Without
   them a process's first run spends two measuring pieces (a warm-up and a timed one) on the
   slower path: on PoCL 32 of the shipped stack's 50 frames, over twice its settled time.
   Real timings replace them; GPUs, without defaults, measure both paths. */
static const hst_choice_default hst__ehost_defaults[2] = {
    { "fused", { 256, 256, 5, 16 }, 4, 0.5 },
    { "chained", { 256, 256, 5, 16 }, 4, 1.3 }
};
static const hst_choice_default hst__ecpu_defaults[2] = {
    { "fused", { 256, 256, 5, 16 }, 4, 10.5 },
    { "chained", { 256, 256, 5, 16 }, 4, 36.8 }
};

/* The shipped timings of be's kind (fused first), or NULL (GPUs: none). */
static const hst_choice_default *hst__edefaults(const hst_backend *be) {
    if (hst_backend_is_host(be)) return hst__ehost_defaults;
    return hst_backend_device(be)->type == HST_DEVICE_CPU ? hst__ecpu_defaults : NULL;
}

/* The choice between the paths: operation "esrrf" on the first backend's registry. */
static hst_result hst__echoice(hst__eng *e) {
    static const hst_choice_impl impls[2] = { { "fused", hst__erun_fused, NULL, NULL, NULL, 0, NULL },
                                              { "chained", hst__erun_chained, NULL, NULL, NULL, 0, NULL } };
    hst_choice_op_desc od;
    uint64_t piece = (uint64_t)HST__E_MEASURE_FRAMES * e->d.num_backends;
    e->chunk = e->block < piece ? e->block : piece;
    e->sig[0] = e->rows; e->sig[1] = e->cols; e->sig[2] = e->mag; e->sig[3] = (int64_t)e->chunk;
    if (e->d.path != HST_ESRRF_PATH_AUTO) return HST_SUCCESS;
    if ((e->op = hst_choice_find(e->d.backends[0], "esrrf")) != NULL) return HST_SUCCESS;
    memset(&od, 0, sizeof od);
    od.name = "esrrf";
    od.impls = impls;
    od.num_impls = 2;
    od.defaults = hst__edefaults(e->d.backends[0]);   /* no exploring a path known to be slower */
    od.num_defaults = od.defaults ? 2 : 0;
    return hst_choice_register(e->d.backends[0], &od, &e->op);
}

static void hst__eclose(hst__eng *e) {
    unsigned k, i;
    for (k = 0; k < e->ngrp; k++) {
        for (i = 0; i < HST__E_STREAMS; i++) hst_stream_destroy(e->grp[k].streams[i].s);
        for (i = 0; i < e->grp[k].nb; i++) {   /* a failed call may leave the stats kernel or
                                                   the sums' fill in flight on the backend's queue */
            hst_result drained = hst_queue_finish(hst_backend_queue(e->grp[k].be[i]));
            (void)drained;   /* closing: an error here has nothing left to undo */
        }
        for (i = 0; i < e->grp[k].nb; i++) hst_buffer_destroy(e->grp[k].acc[i]);
        for (i = 0; i < HST_ESRRF_NUM_MODES; i++) hst_buffer_destroy(e->grp[k].img[i]);
        hst_buffer_destroy(e->grp[k].win);
    }
    if (e->log_be) {
        hst_backend_free(e->log_be, e->sum);
        hst_backend_free(e->log_be, e->rd);
        hst_backend_free(e->log_be, e->roll);
        for (i = 0; i < HST_ESRRF_NUM_MODES; i++) hst_backend_free(e->log_be, e->img[i]);
    }
    memset(e, 0, sizeof *e);
}

/* The time points the sums' ring asks for: a batch call's all (its blocks, rolling), a live
   session's one; rolling on one fp64 device, two windows' blocks (at most the call's), so that
   a window's blocks stay on the device and pieces run a window ahead (hst__eacc: as they fit). */
static uint64_t hst__eacc_want(const hst__eng *e, uint64_t n, uint64_t ntp) {
    uint64_t blocks = e->roll_w ? n / e->d.frames_per_timepoint : ntp;
    if (e->roll_w && hst__edevice_stats(e)) return n && blocks < 2 * e->roll_n ? blocks : 2 * e->roll_n;
    return n ? blocks : 1;
}

/* Rolling (desc.rolling_step): the engine's time points become blocks of gcd(W, S) frames, so
   that every window starts and ends at a block's edge. Returns the frames the ntp windows of
   a batch call use (n 0, live: 0). */
static uint64_t hst__eroll_open(hst__eng *e, uint64_t n, uint64_t ntp) {
    uint64_t a = e->d.frames_per_timepoint, b = e->d.rolling_step;
    e->roll_w = a;
    e->roll_s = b;
    while (b) { uint64_t t = a % b; a = b; b = t; }
    e->d.frames_per_timepoint = a;
    e->roll_n = e->roll_w / a;
    return n ? (ntp - 1) * e->roll_s + e->roll_w : 0;
}

/* The host's sums of the last roll_n blocks (the requested ones only). */
static hst_result hst__eroll_alloc(hst__eng *e) {
    size_t bytes;
    if (!hst_size_mul((size_t)e->roll_n * hst__ebits(hst__esums(e->d.modes)), e->pixels, &bytes) ||
        !hst_size_mul(bytes, sizeof(double), &bytes))
        return hst_backend_fail(e->log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf",
                                "the sums of %llu blocks of a rolling window overflow size_t",
                                (unsigned long long)e->roll_n);
    e->roll = (double *)hst_backend_alloc(e->log_be, bytes);
    if (!e->roll)
        return hst_backend_fail(e->log_be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, "hst_esrrf",
                                "the sums of a rolling window's %llu blocks (%zu bytes): a larger rolling_step "
                                "(or one that divides frames_per_timepoint) needs fewer", (unsigned long long)e->roll_n, bytes);
    return HST_SUCCESS;
}

/* Everything but the streams (made on first use): desc, groups, sums, scratch, choice.
   n: the stack's frames (batch), 0 for a live session. The engine computes magnified rows
   [row0, row0 + nrows) (nrows 0: all); a part of the image runs the fused path (the chained
   RGC has no window; both give the same bits) and no macro-pixel correction (it needs the
   whole image: the caller applies it). */
static hst_result hst__eopen(hst__eng *e, const hst_esrrf_desc *desc, hst_esrrf_dtype dtype,
                             uint32_t rows, uint32_t cols, uint64_t n, uint32_t row0, uint32_t nrows) {
    static const size_t dsize[5] = { 0, 1, 2, 2, 4 };
    unsigned i, m;
    uint64_t ntp = 1;
    hst_result r;
    memset(e, 0, sizeof *e);
    e->t0 = hst_time_s();
    if ((r = hst__edesc(desc, &e->d)) != HST_SUCCESS) return r;
    e->log_be = e->d.backends[0];
    if ((r = hst__eframe(&e->d, dtype, rows, cols)) != HST_SUCCESS) return r;
    if (n && (r = hst__eshape(&e->d, n, rows, cols, &ntp)) != HST_SUCCESS) return r;
    if (hst__einterrupted(&e->d)) return HST_ERROR_CANCELLED;   /* until hst_backend_interrupt_clear */
    e->ntp = ntp;
    if (e->d.rolling_step) n = hst__eroll_open(e, n, ntp);   /* the frames its windows use */
    e->dtype = dtype; e->rows = rows; e->cols = cols; e->mag = e->d.magnification;
    e->rowsM = rows * e->mag; e->colsM = cols * e->mag;
    e->row0 = row0;
    e->nrows = nrows ? nrows : e->rowsM;
    e->check = 1;
    if (e->nrows != e->rowsM) {
        e->d.path = HST_ESRRF_PATH_FUSED;
        e->d.no_macro_pixel_correction = 1;
    }
    e->frame_px = (size_t)rows * cols;
    e->pixels = (size_t)e->nrows * e->colsM;
    e->in_frame_bytes = e->frame_px * dsize[dtype];
    if (n && e->d.frames_per_timepoint > n) hst__eclamp(e, n);
    e->frames_total = n;   /* batch: known, so the last time point closes at frame n - 1 */
    hst__egroups(e);
    for (i = 0; i < e->ngrp; i++)
        if ((r = hst__egroup_types(e, &e->grp[i])) != HST_SUCCESS) return r;
    if (e->d.block_frames) e->block = e->d.block_frames;
    else if (n) e->block = (n + HST__E_TARGET_BLOCKS - 1) / HST__E_TARGET_BLOCKS;
    if (e->block < HST__E_MIN_BLOCK && !e->d.block_frames) e->block = HST__E_MIN_BLOCK;
    if (n && e->block > n) e->block = n;
    hst__ehost_block(e);
    if ((r = hst__eacc(e, hst__eacc_want(e, n, ntp))) != HST_SUCCESS) return r;
    e->roll_dev = e->roll_w && hst__edevice_stats(e) && e->acc_tps >= e->roll_n;
    hst__eblock_split(e, n);
    e->rep.block_frames = e->block;
    e->sum = (double *)hst_backend_alloc(e->log_be, HST__E_ACC_VALUES * e->pixels * sizeof(double));
    e->rd = hst_backend_alloc(e->log_be, e->pixels * sizeof(double));   /* one sum of one device */
    if (!e->sum || !e->rd) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (e->roll_w && !e->roll_dev && (r = hst__eroll_alloc(e)) != HST_SUCCESS) return r;
    for (m = 0; m < HST_ESRRF_NUM_MODES && !n; m++)   /* live: the delivered images */
        if ((e->d.modes & (1u << m)) && !(e->img[m] = (float *)hst_backend_alloc(e->log_be, e->pixels * sizeof(float))))
            return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst__echoice(e);
    e->rep.setup_seconds += hst_time_s() - e->t0;
    return r;
}

/* Frames [c0, c1) of src (which holds frame c0 - skip first) in pieces, delivering the time
   points they complete. */
static hst_result hst__erun_frames(hst__eng *e, const unsigned char *src, uint64_t c0, uint64_t c1,
                                   unsigned skip) {
    hst_result r = HST_SUCCESS;
    uint64_t f = c0;
    while (f < c1 && r == HST_SUCCESS) {
        hst__epiece p;
        uint64_t end = hst__epiece_end(e, f, c1 - f);
        if (e->op && e->d.path == HST_ESRRF_PATH_AUTO && hst__emeasuring(e) && end - f > e->chunk)
            end = f + e->chunk;   /* a measuring piece */
        p.e = e; p.c0 = f; p.c1 = end;
        p.skip = f > c0 ? 1u : skip;
        p.src = src + (size_t)(f - p.skip - (c0 - skip)) * e->in_frame_bytes;
        e->progress_base = f;
        r = hst__epiece_run(e, &p);
        if (r == HST_SUCCESS && e->piece_ran) e->piece_ran(e->piece_ran_user, end);
        if (r == HST_SUCCESS) r = hst__edeliver_done(e, end);
        f = end;
    }
    return r;
}

/* The report's path fields. */
static void hst__ereport(hst__eng *e) {
    hst_choice_stat st[2];
    size_t n = 0, i;
    e->rep.path = e->rep.frames_by_path[1] > e->rep.frames_by_path[0] ? HST_ESRRF_PATH_CHAINED : HST_ESRRF_PATH_FUSED;
    e->rep.seconds_per_frame[0] = e->rep.seconds_per_frame[1] = NAN;
    e->rep.decided_by = e->d.path != HST_ESRRF_PATH_AUTO ? HST_ESRRF_BY_DESC
                      : hst__eforced_by_env() ? HST_ESRRF_BY_ENV : HST_ESRRF_BY_FIRST_GUESS;
    if (!e->op || hst_choice_stats(e->op, e->sig, 4, st, 2, &n) != HST_SUCCESS) return;
    for (i = 0; i < n && i < 2; i++)
        if (st[i].source != HST_CHOICE_NONE && !st[i].failed) {
            e->rep.seconds_per_frame[i] = st[i].seconds / (double)e->chunk;
            e->rep.estimate_from[i] = st[i].source;
            if (e->rep.decided_by == HST_ESRRF_BY_FIRST_GUESS) e->rep.decided_by = HST_ESRRF_BY_MEASURED;
        }
}

/* Takes (lock 1) or releases the locks (hst_backend_lock) of the n <= HST_STREAM_MAX_BACKENDS
   backends bes[] (NULL entries skipped): in address order, so that two threads that lock sets
   with backends in common cannot each hold one the other waits for. */
static void hst__elock(hst_backend *const *bes, unsigned n, int lock) {
    hst_backend *b[HST_STREAM_MAX_BACKENDS];
    unsigned i, j;
    for (i = 0; i < n && i < HST_STREAM_MAX_BACKENDS; i++) {   /* insertion sort by address */
        for (j = i; j > 0 && (uintptr_t)b[j - 1] > (uintptr_t)bes[i]; j--) b[j] = b[j - 1];
        b[j] = bes[i];
    }
    for (j = 0; j < i; j++) {
        if (lock) hst_backend_lock(b[j]);
        else hst_backend_unlock(b[j]);
    }
}

/* The desc's backends for hst__elock (none where the desc is not valid: its check says why). */
static unsigned hst__elock_count(const hst_esrrf_desc *d) {
    return d && d->backends && d->num_backends <= HST_STREAM_MAX_BACKENDS ? d->num_backends : 0;
}

/* >>public functions ------------------------------------------------------------------------- */
HST__EDEF hst_result hst_esrrf_backend_create(const hst_backend_desc *desc, hst_backend **out,
                                              int *host_instead) {
    const char *sel = desc && desc->device ? desc->device : getenv("HST_DEVICE");
    hst_backend_desc host;
    hst_result r = hst_backend_create(desc, out);
    if (host_instead) *host_instead = 0;
    if (r != HST_SUCCESS || (sel && *sel && strcmp(sel, "auto")) || hst_backend_device(*out)->type != HST_DEVICE_CPU)
        return r;
    {   /* just created here and handed to nobody: nothing holds it, so destroy cannot refuse */
        hst_result unheld = hst_backend_destroy(*out);
        (void)unheld;
    }
    *out = NULL;
    host = *desc;
    host.device = "host";
    if (host_instead) *host_instead = 1;
    return hst_backend_create(&host, out);
}

HST__EDEF hst_result hst_esrrf_output_shape(const hst_esrrf_desc *desc, uint64_t frames,
                                            uint32_t rows, uint32_t cols, uint64_t *timepoints,
                                            uint32_t *rows_mag, uint32_t *cols_mag) {
    hst_esrrf_desc d;
    uint64_t ntp = 0;
    hst_result r;
    if ((r = hst__edesc(desc, &d)) != HST_SUCCESS) return r;
    if ((r = hst__eframe(&d, HST_ESRRF_F32, rows, cols)) != HST_SUCCESS) return r;
    if ((r = hst__eshape(&d, frames, rows, cols, &ntp)) != HST_SUCCESS) return r;
    if (timepoints) *timepoints = ntp;
    if (rows_mag) *rows_mag = rows * d.magnification;
    if (cols_mag) *cols_mag = cols * d.magnification;
    return HST_SUCCESS;
}

/* The batch call on magnified rows [row0, row0 + nrows) (nrows 0: all); out[m] holds time
   points of nrows x colsM, out_tp floats apart (0: nrows x colsM); check 0: the images are
   neither corrected nor checked (the caller does both). */
static hst_result hst__ebatch(const hst_esrrf_desc *desc, const void *stack, hst_esrrf_dtype dtype,
                              uint64_t frames, uint32_t rows, uint32_t cols, uint32_t row0,
                              uint32_t nrows, float *const *out, size_t out_tp, int check,
                              hst_esrrf_report *report) {
    hst__eng e;
    uint64_t ntp = 0;
    unsigned m;
    hst_result r = hst__eopen(&e, desc, dtype, rows, cols, frames, row0, nrows);
    e.check = check;
    if (r == HST_SUCCESS && !stack)
        r = hst__null_arg(e.log_be, "hst_esrrf_run", "stack is NULL");
    for (m = 0; r == HST_SUCCESS && m < HST_ESRRF_NUM_MODES; m++)
        if ((e.d.modes & (1u << m)) && (!out || !out[m]))
            r = hst__null_arg(e.log_be, "hst_esrrf_run",
                          "out[%u] is NULL but mode %s is requested", m, hst_esrrf_mode_name((int)m));
    if (r == HST_SUCCESS && !frames) r = hst__eshape(&e.d, frames, rows, cols, &ntp);   /* "frames is 0" */
    if (r == HST_SUCCESS) {
        e.out = out;
        e.out_tp = out_tp ? out_tp : e.pixels;
        e.progress_total = e.frames_total;   /* rolling: the frames of whole windows */
        hst__efin_start(&e);
        r = hst__erun_frames(&e, (const unsigned char *)stack, 0, e.frames_total, 0);
        if (r == HST_SUCCESS && e.fin) r = hst__efin_announce(&e, e.fin->queued);
        hst__efin_end(&e);
    }
    if (r == HST_SUCCESS && e.d.progress && e.d.progress(e.progress_total, e.progress_total, e.d.progress_user))
        r = HST_ERROR_CANCELLED;
    if (e.log_be) {
        hst_esrrf_report rep;
        double t0 = e.t0, t1;
        hst__ereport(&e);
        rep = e.rep;
        t1 = hst_time_s();
        hst__eclose(&e);
        rep.teardown_seconds = hst_time_s() - t1;
        rep.seconds = hst_time_s() - t0;
        if (report) *report = rep;
    } else {
        hst__eclose(&e);
    }
    return r;
}

/* >>several backends ------------------------------------------------------------------------- */
/* The batch call on several backends: backend k computes its share of the magnified rows of
   every frame (as MPI ranks do; the shares by measured speed), each in a thread of its own,
   straight into out, then finishes its rows on that thread while the others still work: the
   macro-pixel correction (each phase's sum runs over the rows in order, every backend adding
   its rows after the backend above it: one backend's sums, bit for bit) and the check that
   every pixel is finite. Then the callbacks, in order, on the calling thread. Each pixel's
   frames are summed in order on one backend, so the images are one backend's bits. The
   finishing used to follow all the backends on the calling thread (the whole images'
   correction, then their check on one core): on two H200s, 500 frames of 1000 x 1000 at mag 5,
   0.124 s per call outside the streams and the backends' own finishing against 0.041 s on one
   H200, 1.74x one GPU. */

/* The callbacks of time points [tp0, tp1) of the whole images in out (rowsM x colsM each). */
static void hst__erows_callbacks(const hst_esrrf_desc *d, uint64_t tp0, uint64_t tp1, uint32_t rowsM,
                                 uint32_t colsM, float *const *out) {
    uint64_t tp;
    unsigned q;
    for (tp = tp0; tp < tp1 && d->on_timepoint; tp++) {
        const float *images[HST_ESRRF_NUM_MODES];
        for (q = 0; q < HST_ESRRF_NUM_MODES; q++)
            images[q] = (d->modes & (1u << q)) ? out[q] + (size_t)tp * rowsM * colsM : NULL;
        d->on_timepoint(tp, images, rowsM, colsM, d->timepoint_user);
    }
}

typedef struct hst__erows_ctl {
    hst_mutex mu;
    hst_cond cv;          /* a backend's turn in the sums passed, or a backend failed */
    int cancel;                 /* backend 0's progress asked to stop: the others stop too */
    int failed;                 /* a backend failed: the turns it owes never come */
    const hst_esrrf_desc *d;
    uint32_t rowsM, colsM;
    uint64_t ntp;
    unsigned nrun;              /* backends with rows (each has a turn) */
    double *sums;               /* with the correction: per time point and mode, the phases'
                                   mag x mag sums, [tp][mode][py][px] */
    unsigned *turns;            /* per time point: backends whose rows its sums hold */
} hst__erows_ctl;

typedef struct hst__erows_job {
    hst__erows_ctl *ctl;
    hst_esrrf_desc d;           /* one backend, no correction, no callback */
    hst_backend *be;
    const void *stack;
    hst_esrrf_dtype dtype;
    uint64_t frames;
    uint32_t rows, cols, r0, r1;
    unsigned turn;              /* its place among the backends with rows (the sums' order) */
    float *out[HST_ESRRF_NUM_MODES];   /* at row r0 */
    size_t out_tp;
    hst_esrrf_report rep;
    double seconds;             /* its rows' call (ebatch) on its thread: the split's timing */
    double wait;                /* waiting for the other backends' turns */
    int aborted;                /* gave up waiting: another backend failed */
    uint64_t bad_tp;            /* its first non-finite pixel in (time point, mode, row) order: */
    unsigned bad_mode;          /* time point (HST__E_NONE: none), mode and index from r0 */
    size_t bad_px;
    hst_result r;
} hst__erows_job;

/* A job's streams' progress: every job stops once a backend of the call is interrupted or
   backend 0's job hears a cancel from the desc's progress. */
static int hst__erows_progress(uint64_t done, uint64_t total, void *user) {
    hst__erows_job *j = (hst__erows_job *)user;
    hst__erows_ctl *c = j->ctl;
    int stop;
    if ((j->r0 == 0 && c->d->progress && c->d->progress(done, total, c->d->progress_user)) || hst__einterrupted(c->d)) {
        hst_mutex_lock(&c->mu);
        c->cancel = 1;
        hst_mutex_unlock(&c->mu);
    }
    hst_mutex_lock(&c->mu);
    stop = c->cancel;
    hst_mutex_unlock(&c->mu);
    return stop;
}

/* Waits until time point tp's sums hold `turns` backends' rows: 1, or 0 when a backend failed
   (its turn never comes). */
static int hst__erows_await(hst__erows_job *j, uint64_t tp, unsigned turns) {
    hst__erows_ctl *c = j->ctl;
    double t0 = hst_time_s();
    int ok;
    hst_mutex_lock(&c->mu);
    while (c->turns[tp] < turns && !c->failed) hst_cond_wait(&c->cv, &c->mu);
    ok = !c->failed;
    hst_mutex_unlock(&c->mu);
    j->wait += hst_time_s() - t0;
    return ok;
}

/* Rows [r0, r1) of time point tp of the images in out (each at row r0 of its image, time
   points out_tp floats apart; NULL: a mode not asked) added to that time point's phase sums
   (sums: [mode][py][px]), continuing their chains (the rows above were added before). Shared
   by the backends of one process and by MPI ranks. */
static void hst__erows_sums_tp(float *const *out, size_t out_tp, uint64_t tp, uint32_t r0, uint32_t r1,
                               uint32_t colsM, uint32_t mag, double *sums) {
    unsigned q;
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++)
        if (out[q])
            hst__emacro_sums(out[q] + (size_t)tp * out_tp, r0, r1, colsM, mag, sums + (size_t)q * mag * mag);
}

/* The same rows corrected by the means of the whole images' phase sums (sums as above, the
   chains complete; NULL: not corrected) and checked: the first non-finite pixel in (mode,
   row-major) order, its index from row r0 (*mode its mode), else HST__E_NONE. */
static size_t hst__erows_correct_tp(float *const *out, size_t out_tp, uint64_t tp, uint32_t r0, uint32_t r1,
                                    uint32_t rowsM, uint32_t colsM, uint32_t mag, const double *sums,
                                    unsigned *mode) {
    size_t mm = (size_t)mag * mag, first = HST__E_NONE;
    unsigned q;
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++) {
        double means[HST_ESRRF_MAX_MAG * HST_ESRRF_MAX_MAG];
        size_t bad;
        if (!out[q]) continue;
        if (sums) {
            memcpy(means, sums + q * mm, mm * sizeof(double));
            hst__emacro_means(means, rowsM, colsM, mag);
        }
        bad = hst__emacro_pass(out[q] + (size_t)tp * out_tp, out[q] + (size_t)tp * out_tp, r0, r1, colsM, mag,
                               sums ? means : NULL);
        if (bad != HST__E_NONE && first == HST__E_NONE) { first = bad; *mode = q; }
    }
    return first;
}

/* The job's rows of every time point added to the phases' sums, each after the backends above. */
static int hst__erows_sums(hst__erows_job *j) {
    hst__erows_ctl *c = j->ctl;
    size_t mm = (size_t)j->d.magnification * j->d.magnification;
    uint64_t tp;
    for (tp = 0; tp < c->ntp; tp++) {
        if (!hst__erows_await(j, tp, j->turn)) return 0;
        hst__erows_sums_tp(j->out, j->out_tp, tp, j->r0, j->r1, c->colsM, j->d.magnification,
                           c->sums + (size_t)tp * HST_ESRRF_NUM_MODES * mm);
        hst_mutex_lock(&c->mu);
        c->turns[tp]++;
        hst_cond_broadcast(&c->cv);
        hst_mutex_unlock(&c->mu);
    }
    return 1;
}

/* The job's rows of every time point corrected (once every backend's rows are in the sums) and
   checked, up to its first non-finite pixel's time point. */
static int hst__erows_correct(hst__erows_job *j) {
    hst__erows_ctl *c = j->ctl;
    int correct = !c->d->no_macro_pixel_correction;
    size_t mm = (size_t)j->d.magnification * j->d.magnification;
    uint64_t tp;
    for (tp = 0; tp < c->ntp && j->bad_tp == HST__E_NONE; tp++) {
        if (correct && !hst__erows_await(j, tp, c->nrun)) return 0;
        j->bad_px = hst__erows_correct_tp(j->out, j->out_tp, tp, j->r0, j->r1, c->rowsM, c->colsM, j->d.magnification,
                                          correct ? c->sums + (size_t)tp * HST_ESRRF_NUM_MODES * mm : NULL,
                                          &j->bad_mode);
        if (j->bad_px != HST__E_NONE) j->bad_tp = tp;
    }
    return 1;
}

/* A backend failed: the others stop waiting for its turns. */
static void hst__erows_fail(hst__erows_ctl *c) {
    hst_mutex_lock(&c->mu);
    c->failed = 1;
    hst_cond_broadcast(&c->cv);
    hst_mutex_unlock(&c->mu);
}

/* The job's first part: its rows of every frame (neither corrected nor checked), then its
   turns in the sums. */
static void hst__erows_compute(hst__erows_job *j) {
    double t0 = hst_time_s();
    j->r = hst__ebatch(&j->d, j->stack, j->dtype, j->frames, j->rows, j->cols, j->r0, j->r1 - j->r0, j->out,
                       j->out_tp, 0, &j->rep);
    j->seconds = hst_time_s() - t0;
    if (j->r != HST_SUCCESS) {
        hst__erows_fail(j->ctl);
        return;
    }
    t0 = hst_time_s() - j->wait;
    if (!j->ctl->d->no_macro_pixel_correction && !hst__erows_sums(j)) j->aborted = 1;
    j->rep.finish_seconds += hst_time_s() - j->wait - t0;   /* the waits apart */
}

/* Its second part: its rows corrected and checked. */
static void hst__erows_finish_rows(hst__erows_job *j) {
    double t0 = hst_time_s() - j->wait;
    if (j->r == HST_SUCCESS && !j->aborted && !hst__erows_correct(j)) j->aborted = 1;
    j->rep.finish_seconds += hst_time_s() - j->wait - t0;
}

static void *hst__erows_main(void *p) {
    hst__erows_job *j = (hst__erows_job *)p;
    hst__erows_compute(j);
    hst__erows_finish_rows(j);
    return NULL;
}

/* The rows' split across backends by measured speed: each backend's registry keeps a
   timings-only operation HST__E_ROWS_OP (implementation "rows", signature {colsM, mag}): its
   seconds per magnified row and frame in earlier calls (the whole share's call: set-up,
   uploads, kernels, read-back), recorded after each successful call, kept in the timings file.
   A call splits in proportion to 1 / the estimates when every backend has one, else equally.
   Any split gives the same bits (each pixel's frames stay on one backend, in order). */
#define HST__E_ROWS_OP "esrrf_rows"
static hst_choice_op *hst__erows_op(hst_backend *be) {
    static const hst_choice_impl impl = { "rows", NULL, NULL, NULL, NULL, 0, NULL };
    hst_choice_op_desc od;
    hst_choice_op *op = hst_choice_find(be, HST__E_ROWS_OP);
    if (op) return op;
    memset(&od, 0, sizeof od);
    od.name = HST__E_ROWS_OP;
    od.impls = &impl;
    od.num_impls = 1;
    return hst_choice_register(be, &od, &op) == HST_SUCCESS ? op : NULL;
}

/* Rows [bounds[k], bounds[k + 1]) for backend k of n: in proportion to w (NULL: equal), in
   order; backend 0 always has rows (its report and progress are the call's), and each of the
   others at least one while rows last. */
static void hst__erows_split(uint32_t rowsM, const double *w, unsigned n, uint32_t *bounds) {
    double total = 0.0, acc = 0.0;
    unsigned k;
    for (k = 0; k < n; k++) total += w ? w[k] : 1.0;
    bounds[0] = 0;
    for (k = 0; k < n; k++) {
        uint64_t b, after = n - 1 - k;
        acc += w ? w[k] : 1.0;
        b = (uint64_t)((double)rowsM * acc / total + 0.5);
        if (b <= bounds[k] && bounds[k] < rowsM) b = bounds[k] + 1;       /* one row at least */
        if (b + after > rowsM) b = rowsM > after ? rowsM - after : rowsM;  /* and one for each after */
        if (b < bounds[k]) b = bounds[k];
        bounds[k + 1] = k + 1 == n ? rowsM : (uint32_t)b;
    }
}

/* Weights from the backends' timings: 1 / seconds per row-frame; 0 when one has none. */
static int hst__erows_weights(const hst_esrrf_desc *d, uint32_t colsM, double *w) {
    int64_t sig[2];
    unsigned k;
    sig[0] = colsM; sig[1] = d->magnification;
    for (k = 0; k < d->num_backends; k++) {
        hst_choice_op *op = hst__erows_op(d->backends[k]);
        hst_choice_stat st;
        size_t n = 0;
        if (!op || hst_choice_stats(op, sig, 2, &st, 1, &n) != HST_SUCCESS || n != 1 ||
            st.source == HST_CHOICE_NONE || !(st.seconds > 0.0))
            return 0;
        w[k] = 1.0 / st.seconds;
    }
    return 1;
}

/* Job k: backend k's rows [r0, r1), its out pointers at its first row (jobs made in order). */
static void hst__erows_job_init(hst__erows_job *j, hst__erows_ctl *c, const hst_esrrf_desc *d, unsigned k,
                                const void *stack, hst_esrrf_dtype dtype, uint64_t frames, uint32_t rows,
                                uint32_t cols, uint32_t r0, uint32_t r1, float *const *out) {
    uint32_t rowsM = rows * d->magnification, colsM = cols * d->magnification;
    unsigned q;
    memset(j, 0, sizeof *j);
    j->ctl = c;
    j->d = *d;
    j->be = d->backends[k];
    j->d.backends = &j->be;
    j->d.num_backends = 1;
    j->d.no_macro_pixel_correction = 1;
    j->d.on_timepoint = NULL;
    j->d.progress = hst__erows_progress;
    j->d.progress_user = j;
    j->stack = stack; j->dtype = dtype; j->frames = frames; j->rows = rows; j->cols = cols;
    j->r0 = r0; j->r1 = r1;
    j->turn = c->nrun;
    c->nrun += r1 > r0;
    j->bad_tp = HST__E_NONE;
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++)
        j->out[q] = out && out[q] && j->r1 > j->r0 ? out[q] + (size_t)j->r0 * colsM : NULL;
    j->out_tp = (size_t)rowsM * colsM;
}

/* Each backend's seconds per row-frame of this call, into its registry. */
static void hst__erows_record(const hst_esrrf_desc *d, const hst__erows_job *jobs, uint32_t colsM) {
    int64_t sig[2];
    unsigned k;
    sig[0] = colsM; sig[1] = d->magnification;
    for (k = 0; k < d->num_backends; k++) {
        hst_choice_op *op = hst__erows_op(d->backends[k]);
        uint64_t work = (uint64_t)(jobs[k].r1 - jobs[k].r0) * jobs[k].frames;
        if (op && work) {   /* a timing lost to a full host memory costs the split's quality only */
            hst_result lost = hst_choice_record(op, sig, 2, "rows", jobs[k].seconds / (double)work);
            (void)lost;
        }
    }
}

/* The control of a call of ntp time points: with the correction, the phases' sums and the
   turns, zeroed (overflow-checked). */
static hst_result hst__erows_ctl_init(hst__erows_ctl *c, const hst_esrrf_desc *d, uint64_t ntp, uint32_t rowsM,
                                      uint32_t colsM) {
    size_t per = (size_t)HST_ESRRF_NUM_MODES * d->magnification * d->magnification * sizeof(double) + sizeof(unsigned);
    size_t bytes;
    memset(c, 0, sizeof *c);
    c->d = d; c->ntp = ntp; c->rowsM = rowsM; c->colsM = colsM;
    if (d->no_macro_pixel_correction) return HST_SUCCESS;
    if (!hst_size_mul((size_t)ntp, per, &bytes))   /* ntp fits size_t: hst__eshape */
        return hst_backend_fail(d->backends[0], HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf_run",
                         "the macro-pixel correction's sums of %llu time points overflow size_t",
                         (unsigned long long)ntp);
    if (!(c->sums = (double *)hst_backend_calloc(d->backends[0], bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    c->turns = (unsigned *)(void *)(c->sums + (size_t)ntp * HST_ESRRF_NUM_MODES * d->magnification * d->magnification);
    return HST_SUCCESS;
}

/* The call's result once every job is done: the first failure in backend order, else the
   first non-finite pixel in (time point, mode, row) order, as one backend names it (logged;
   *upto its time point), else success (*upto ntp). */
static hst_result hst__erows_result(const hst__erows_ctl *c, const hst__erows_job *jobs, unsigned n,
                                    float *const *out, uint64_t *upto) {
    const hst__erows_job *bad = NULL;
    unsigned k;
    *upto = 0;
    for (k = 0; k < n; k++)
        if (jobs[k].r != HST_SUCCESS) return jobs[k].r;
    for (k = 0; k < n; k++)   /* an earlier backend's rows come first: ties keep it */
        if (jobs[k].bad_tp != HST__E_NONE &&
            (!bad || jobs[k].bad_tp < bad->bad_tp || (jobs[k].bad_tp == bad->bad_tp && jobs[k].bad_mode < bad->bad_mode)))
            bad = &jobs[k];
    if (!bad) {
        *upto = c->ntp;
        return HST_SUCCESS;
    }
    *upto = bad->bad_tp;
    return hst__enonfinite_image(c->d->backends[0], bad->bad_tp, bad->bad_mode, bad->r0 + bad->bad_px / c->colsM,
                                 bad->bad_px % c->colsM,
                                 out[bad->bad_mode][(size_t)bad->bad_tp * c->rowsM * c->colsM +
                                                    (size_t)bad->r0 * c->colsM + bad->bad_px]);
}

/* Every backend's job on a thread of its own; backend 0's, and any whose thread could not
   start, on this one: first all their rows and sums, in order, then their corrections (a
   correction waits for every backend's sums). started[k]: job k's thread. */
static void hst__erows_jobs(hst__erows_job *jobs, unsigned n, hst_thread *th, int *started) {
    unsigned k;
    for (k = 0; k < n; k++)
        started[k] = k > 0 && jobs[k].r1 > jobs[k].r0 && hst_thread_create(&th[k], hst__erows_main, &jobs[k]);
    for (k = 0; k < n; k++)
        if (!started[k] && jobs[k].r1 > jobs[k].r0) hst__erows_compute(&jobs[k]);
    for (k = 0; k < n; k++)
        if (!started[k] && jobs[k].r1 > jobs[k].r0) hst__erows_finish_rows(&jobs[k]);
}

static hst_result hst__erun_rows(const hst_esrrf_desc *desc, const void *stack, hst_esrrf_dtype dtype,
                                 uint64_t frames, uint32_t rows, uint32_t cols, float *const *out,
                                 hst_esrrf_report *report) {
    hst__erows_job jobs[HST_STREAM_MAX_BACKENDS];
    uint32_t bounds[HST_STREAM_MAX_BACKENDS + 1];
    double w[HST_STREAM_MAX_BACKENDS];
    hst_thread th[HST_STREAM_MAX_BACKENDS];
    int started[HST_STREAM_MAX_BACKENDS];
    hst__erows_ctl ctl;
    hst_esrrf_desc d;
    uint64_t ntp = 0, upto = 0;
    unsigned k, n;
    double t0 = hst_time_s(), t1;
    hst_result r;
    if ((r = hst__edesc(desc, &d)) != HST_SUCCESS || (r = hst__eframe(&d, dtype, rows, cols)) != HST_SUCCESS ||
        (r = hst__eshape(&d, frames, rows, cols, &ntp)) != HST_SUCCESS)
        return r;
    if (hst__einterrupted(&d)) return HST_ERROR_CANCELLED;   /* until hst_backend_interrupt_clear */
    n = d.num_backends;
    for (k = 0; k < n; k++) {   /* each backend runs on a thread of its own: one use each */
        unsigned i;
        for (i = 0; i < k; i++)
            if (d.backends[i] == d.backends[k])
                return hst__bad_arg(d.backends[0], "hst_esrrf_run",
                                 "desc.backends[%u] is backends[%u] again: give each backend once "
                                 "(two backends of one device are fine)", k, i);
    }
    if ((r = hst__erows_ctl_init(&ctl, &d, ntp, rows * d.magnification, cols * d.magnification)) != HST_SUCCESS)
        return r;
    (void)hst_mutex_init(&ctl.mu);
    (void)hst_cond_init(&ctl.cv);
    hst__erows_split(rows * d.magnification, hst__erows_weights(&d, cols * d.magnification, w) ? w : NULL, n, bounds);
    for (k = 0; k < n; k++)
        hst__erows_job_init(&jobs[k], &ctl, &d, k, stack, dtype, frames, rows, cols, bounds[k], bounds[k + 1], out);
    hst__erows_jobs(jobs, n, th, started);
    t1 = hst_time_s();
    for (k = 1; k < n; k++)
        if (started[k]) hst_thread_join(&th[k]);
    jobs[0].wait += hst_time_s() - t1;
    hst_mutex_destroy(&ctl.mu);
    hst_cond_destroy(&ctl.cv);
    hst_backend_free(d.backends[0], ctl.sums);
    r = hst__erows_result(&ctl, jobs, n, out, &upto);
    if (r == HST_SUCCESS) hst__erows_record(&d, jobs, cols * d.magnification);
    hst__erows_callbacks(&d, 0, upto, rows * d.magnification, cols * d.magnification, out);
    if (report) {
        *report = jobs[0].rep;
        report->wait_seconds = jobs[0].wait;
        report->seconds = hst_time_s() - t0;
    }
    return r;
}

/* >>mpi -------------------------------------------------------------------------------------- */
#ifdef HST_ESRRF_MPI
/* Part k's magnified rows [*r0, *r1) of K (MPI ranks): rowsM cut into
   min(K, rowsM) nearly equal parts in order, so part 0 always has rows (its report and progress
   are the job's); parts beyond rowsM get none. */
static void hst__erows_cut(uint32_t rowsM, int k, int K, uint32_t *r0, uint32_t *r1) {
    uint64_t parts = (uint64_t)K < rowsM ? (uint64_t)K : rowsM;
    if ((uint64_t)k >= parts) { *r0 = *r1 = rowsM; return; }
    *r0 = (uint32_t)((uint64_t)rowsM * (uint64_t)k / parts);
    *r1 = (uint32_t)((uint64_t)rowsM * (uint64_t)(k + 1) / parts);
}

/* One call over the ranks: a private duplicate of the caller's communicator (no message of ours
   can meet one of the caller's), this rank's rows and where they lie, the buffers, the times.
   The phases' sums run through the ranks in order, each continuing the previous rank's (one
   process's addition order, so its bits), each rank's as soon as its rows ran; meanwhile every
   rank sends its raw rows to rank 0, which then corrects and checks the whole images. On two
   H100s, 500 frames of 1000 x 1000 at mag 5, AVG, the call took 0.45 s around 0.337 s of
   streams when rank 0 also summed every row alone (1.63x one process); 0.359-0.363 s (1.90-
   1.92x) with the sums after the agreement and each rank correcting its rows before an
   MPI_Gatherv (rank 0 waited 6-7 ms for it); 0.353-0.356 s (1.93-1.95x) now, in the same run
   (AVG, VAR and TAC2: 1.82x then, 1.90x now). */
#define HST__EMPI_WINDOW 64   /* the gather's messages in flight per rank */
enum { HST__EMPI_TAG_OK = 1, HST__EMPI_TAG_SUMS, HST__EMPI_TAG_ROWS };
typedef struct hst__empi {
    MPI_Comm comm;
    int rank, size;
    hst_backend *log_be;
    hst_esrrf_desc d;
    uint64_t ntp;
    uint32_t rowsM, colsM, r0, r1;
    float *rows[HST_ESRRF_NUM_MODES];   /* this rank's rows of each mode asked: in rank 0's out,
                                           else in the memory its backend keeps (NULL: not
                                           asked, or no rows) */
    size_t rows_tp;             /* floats from one time point's rows to the next */
    double *sums;               /* with the correction: per time point, the phases' sums of
                                   every mode, [tp][mode][py][px] */
    double t0, setup, sums_s, correct, gather, wait;   /* seconds: report's mpi_* and wait */
} hst__empi;

/* Every rank learns whether any failed: the first failing rank's code (rank order) is every
   rank's result, and the others log which rank it was. Called at the same points on every
   rank, whatever happened before, so no rank waits for one that gave up. */
static hst_result hst__empi_agree(hst__empi *m, hst_result r, const char *stage) {
    int mine = r != HST_SUCCESS ? m->rank : m->size, first = m->size, code = (int)r;
    double t0 = hst_time_s();
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, m->comm);
    m->wait += hst_time_s() - t0;
    if (first == m->size) return HST_SUCCESS;
    MPI_Bcast(&code, 1, MPI_INT, first, m->comm);
    if (first != m->rank)   /* logged here; the failing rank logged its own */
        return hst_backend_fail(m->log_be, (hst_result)code, HST_LOGITEM_RANK_FAILED, "hst_esrrf_run",
                                "rank %d of %d failed during %s (%s); rank %d stops too", first, m->size,
                                stage, hst_result_string((hst_result)code), m->rank);
    return (hst_result)code;
}

/* What every rank must agree on (the stack's shape and the numbers of the desc), as one hash. */
static uint64_t hst__empi_job_hash(const hst_esrrf_desc *d, hst_esrrf_dtype dtype, uint64_t frames,
                                   uint32_t rows, uint32_t cols) {
    uint64_t v[11];
    memset(v, 0, sizeof v);   /* the floats fill half of their words */
    v[0] = frames; v[1] = rows; v[2] = cols; v[3] = (uint64_t)dtype; v[4] = d->magnification;
    v[5] = d->frames_per_timepoint; v[6] = d->modes; v[10] = d->rolling_step;
    v[7] = (uint64_t)d->no_intensity_weighting << 1 | (uint64_t)(d->no_macro_pixel_correction != 0);
    memcpy(&v[8], &d->radius, sizeof d->radius);
    memcpy(&v[9], &d->sensitivity, sizeof d->sensitivity);
    return hst_hash_bytes(HST_HASH_SEED, v, sizeof v);
}

/* The jobs of the ranks whose own checks passed are the same (collective): else
   HST_ERROR_SHAPE on those ranks (a rank that failed its checks keeps its own error). */
static hst_result hst__empi_same_job(const hst__empi *m, hst_result r, uint64_t h) {
    unsigned long long mine = (unsigned long long)h, lo = 0, hi = 0;
    unsigned long long for_lo = r == HST_SUCCESS ? mine : ULLONG_MAX, for_hi = r == HST_SUCCESS ? mine : 0;
    MPI_Allreduce(&for_lo, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, m->comm);
    MPI_Allreduce(&for_hi, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, m->comm);
    if (r == HST_SUCCESS && lo != hi)
        r = hst_backend_fail(m->log_be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_esrrf_run",
                      "the ranks disagree on the stack (frames, rows, cols, dtype) or the "
                      "desc's numbers (rank %d: job hash %016llx): every rank must pass the same", m->rank, mine);
    return r;
}

/* The checks every rank makes before any work: the desc (into m->d), the shapes, the pointers
   (out only on rank 0, which receives the images). */
static hst_result hst__empi_check(hst__empi *m, const hst_esrrf_desc *desc, const void *stack,
                                  hst_esrrf_dtype dtype, uint64_t frames, uint32_t rows, uint32_t cols,
                                  float *const *out) {
    unsigned k;
    hst_result r;
    if ((r = hst__edesc(desc, &m->d)) != HST_SUCCESS || (r = hst__eframe(&m->d, dtype, rows, cols)) != HST_SUCCESS ||
        (r = hst__eshape(&m->d, frames, rows, cols, &m->ntp)) != HST_SUCCESS)
        return r;
    if (!stack) return hst__null_arg(m->log_be, "hst_esrrf_run", "stack is NULL (rank %d)", m->rank);
    for (k = 0; m->rank == 0 && k < HST_ESRRF_NUM_MODES; k++)
        if ((m->d.modes & (1u << k)) && (!out || !out[k]))
            return hst__null_arg(m->log_be, "hst_esrrf_run",
                             "out[%u] is NULL on rank 0 but mode %s is requested", k,
                             hst_esrrf_mode_name((int)k));
    return HST_SUCCESS;
}

/* Ranks but 0 keep their rows' host memory on their first backend from one call to the next
   (an extension of the backend, freed by hst_backend_destroy): a fresh buffer's pages fault in
   one by one while the device's images are read back into it. On two H100s, 500 frames of
   1000 x 1000 at mag 5, rank 1's 50 MB read back in 37-45 ms into fresh pages, in 18-23 ms
   (allocation) + 1.5 into fresh pinned memory, in 4-6 ms into pages already there (rank 0's
   out). The largest share so far is kept (the rank's share of the images: 1/K of rank 0's). */
#define HST__EMPI_EXTENSION "esrrf_mpi"
typedef struct hst__empi_kept { void *p; size_t bytes; } hst__empi_kept;

static void hst__empi_kept_destroy(hst_backend *be, void *data) {
    hst__empi_kept *k = (hst__empi_kept *)data;
    hst_backend_free(be, k->p);
    hst_backend_free(be, k);
}

/* The kept host memory of be, at least `bytes` (grown as needed); NULL when out of memory. */
static void *hst__empi_kept_memory(hst_backend *be, size_t bytes) {
    hst__empi_kept *k = (hst__empi_kept *)hst_backend_extension(be, HST__EMPI_EXTENSION);
    if (!k) {
        if (!(k = (hst__empi_kept *)hst_backend_calloc(be, sizeof *k))) return NULL;
        if (hst_backend_attach(be, HST__EMPI_EXTENSION, k, hst__empi_kept_destroy) != HST_SUCCESS) {
            hst_backend_free(be, k);
            return NULL;
        }
    }
    if (k->bytes < bytes) {
        hst_backend_free(be, k->p);
        k->bytes = 0;
        if (!(k->p = hst_backend_alloc(be, bytes))) return NULL;
        k->bytes = bytes;
    }
    return k->p;
}

/* Ranks but 0: their rows' images of every asked mode (ntp x rows x colsM floats each, one
   after another in the kept memory; rank 0 computes its rows straight into out). */
static hst_result hst__empi_alloc_rows(hst__empi *m) {
    size_t px = (size_t)(m->r1 - m->r0) * m->colsM, bytes = 0, one = 0;
    unsigned q, modes = 0;
    float *p;
    m->rows_tp = px;
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++) modes += (m->d.modes >> q) & 1u;
    if (!px) return HST_SUCCESS;
    if (!hst_size_mul((size_t)m->ntp, px * sizeof(float), &one) || !hst_size_mul(one, modes, &bytes))
        return hst_backend_fail(m->log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW,   /* px: < rowsM x colsM */
                         "hst_esrrf_run", "rank %d's images of %llu time points overflow size_t", m->rank,
                         (unsigned long long)m->ntp);
    if (!(p = (float *)hst__empi_kept_memory(m->log_be, bytes)))
        return hst_backend_fail(m->log_be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, "hst_esrrf_run",
                         "rank %d: no host memory for its %llu time points of %zu pixels",
                         m->rank, (unsigned long long)m->ntp, px);
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++)
        if (m->d.modes & (1u << q)) { m->rows[q] = p; p += one / sizeof(float); }
    return HST_SUCCESS;
}

/* This rank's buffers: its rows (rank 0: its part of out), the correction's sums (zero: rank 0
   starts the chains). */
static hst_result hst__empi_alloc(hst__empi *m, float *const *out) {
    size_t per = (size_t)HST_ESRRF_NUM_MODES * m->d.magnification * m->d.magnification * sizeof(double), bytes;
    unsigned q;
    if (!m->d.no_macro_pixel_correction) {
        if (!hst_size_mul((size_t)m->ntp, per, &bytes))
            return hst_backend_fail(m->log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf_run",
                             "the macro-pixel correction's sums of %llu time points overflow size_t",
                             (unsigned long long)m->ntp);
        if (!(m->sums = (double *)hst_backend_calloc(m->log_be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (m->rank != 0) return hst__empi_alloc_rows(m);
    m->rows_tp = (size_t)m->rowsM * m->colsM;
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++)
        if ((m->d.modes & (1u << q)) && m->r1 > m->r0) m->rows[q] = out[q] + (size_t)m->r0 * m->colsM;
    return HST_SUCCESS;
}

/* The set-up: the checks, the same job on every rank, the rows and the buffers, agreed. */
static hst_result hst__empi_setup(hst__empi *m, const hst_esrrf_desc *desc, const void *stack,
                                  hst_esrrf_dtype dtype, uint64_t frames, uint32_t rows, uint32_t cols,
                                  float *const *out) {
    hst_result r = hst__empi_check(m, desc, stack, dtype, frames, rows, cols, out);
    r = hst__empi_same_job(m, r, hst__empi_job_hash(&m->d, dtype, frames, rows, cols));
    if (r == HST_SUCCESS) {
        m->rowsM = rows * m->d.magnification; m->colsM = cols * m->d.magnification;
        hst__erows_cut(m->rowsM, m->rank, m->size, &m->r0, &m->r1);
        r = hst__empi_alloc(m, out);
    }
    r = hst__empi_agree(m, r, "set-up");
    m->setup = hst_time_s() - m->t0 - m->wait;
    return r;
}

/* This rank's rows of every frame through one engine, neither corrected nor checked (rank 0
   does both once every rank's rows are in); only rank 0 reports progress. */
static hst_result hst__empi_local(const hst__empi *m, const void *stack, hst_esrrf_dtype dtype, uint64_t frames,
                                  uint32_t rows, uint32_t cols, hst_esrrf_report *rep) {
    hst_esrrf_desc local = m->d;
    if (m->r1 == m->r0) return HST_SUCCESS;
    local.mpi_comm = NULL;
    local.on_timepoint = NULL;
    local.no_macro_pixel_correction = 1;
    if (m->rank != 0) local.progress = NULL;   /* rank 0 walks every frame: the job's progress */
    return hst__ebatch(&local, stack, dtype, frames, rows, cols, m->r0, m->r1 - m->r0, m->rows, m->rows_tp, 0, rep);
}

/* The gather of the raw rows: rank 0 receives every other rank's rows of each time point and
   mode straight into out, as the senders post them (time point, then rank, then mode; each
   sender in its own order), with at most HST__EMPI_WINDOW messages in flight on each side.
   It starts as soon as each rank's rows ran and moves on beside the sums' chain: Open MPI's
   shared memory without a single-copy mechanism (btl_vader_single_copy_mechanism none, as on
   the two-H100 host measured, where CMA needs ptrace rights a container may lack) moves a
   message only while both ranks are inside MPI, so the main thread keeps the messages moving
   while a thread computes (hst__empi_beside). Each rank correcting its rows in chunks and
   sending each at once was slower there (0.377-0.385 s a call): the sends waited for the
   next chunk's MPI call, and each chunk started a pool of threads. */
typedef struct hst__empi_pump {
    MPI_Request win[HST__EMPI_WINDOW];
    MPI_Datatype row;           /* one magnified row of floats */
    float *const *out;          /* rank 0: the images */
    uint64_t posted, total;     /* messages posted, messages of the call */
    uint64_t tp;                /* the next message: time point, rank, mode */
    int k;
    unsigned q;
} hst__empi_pump;

/* Rank k's messages per time point: one per mode asked, where it has rows. */
static uint64_t hst__empi_pump_count(const hst__empi *m, int k) {
    uint32_t r0, r1;
    unsigned q, modes = 0;
    hst__erows_cut(m->rowsM, k, m->size, &r0, &r1);
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++) modes += (m->d.modes >> q) & 1u;
    return r1 > r0 ? modes : 0;
}

static void hst__empi_pump_start(const hst__empi *m, hst__empi_pump *p, float *const *out) {
    unsigned i;
    int k;
    memset(p, 0, sizeof *p);
    for (i = 0; i < HST__EMPI_WINDOW; i++) p->win[i] = MPI_REQUEST_NULL;
    MPI_Type_contiguous((int)m->colsM, MPI_FLOAT, &p->row);   /* whole rows: counts stay small ints */
    MPI_Type_commit(&p->row);
    p->out = out;
    p->k = m->rank == 0 ? 1 : m->rank;
    for (k = 1; k < m->size; k++)
        if (m->rank == 0 || k == m->rank) p->total += hst__empi_pump_count(m, k);
    p->total *= m->ntp;
}

/* The next message posted: this rank's rows of (tp, q) to rank 0, or rank 0's receipt of rank
   k's; the cursor moved on to the next message (modes, then ranks, then time points). */
static void hst__empi_pump_post(const hst__empi *m, hst__empi_pump *p, MPI_Request *rq) {
    uint32_t r0, r1;
    for (;;) {   /* the next (tp, k, q) that has a message */
        hst__erows_cut(m->rowsM, p->k, m->size, &r0, &r1);
        if (p->q < HST_ESRRF_NUM_MODES && (m->d.modes & (1u << p->q)) && r1 > r0) break;
        if (++p->q < HST_ESRRF_NUM_MODES) continue;
        p->q = 0;
        if (m->rank == 0 && ++p->k < m->size) continue;
        p->k = m->rank == 0 ? 1 : m->rank;
        p->tp++;
    }
    if (m->rank == 0)
        MPI_Irecv(p->out[p->q] + ((size_t)p->tp * m->rowsM + r0) * m->colsM, (int)(r1 - r0), p->row, p->k,
                  HST__EMPI_TAG_ROWS, m->comm, rq);
    else
        MPI_Isend(m->rows[p->q] + (size_t)p->tp * m->rows_tp, (int)(r1 - r0), p->row, 0, HST__EMPI_TAG_ROWS,
                  m->comm, rq);
    p->q++;
    p->posted++;
}

/* Moves the gather on: posts the messages whose slots are free (block: waiting for them), and
   with block, waits for every message. Every slot is waited for before its next message, so
   the message waited for is always on its way (both sides post in one order). Returns 1 when
   every message has arrived. */
static int hst__empi_pump_move(const hst__empi *m, hst__empi_pump *p, int block) {
    int flag = 1;
    while (p->posted < p->total) {
        MPI_Request *rq = &p->win[p->posted % HST__EMPI_WINDOW];
        if (block) MPI_Wait(rq, MPI_STATUS_IGNORE);
        else MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        if (!flag) return 0;
        hst__empi_pump_post(m, p, rq);
    }
    if (block) MPI_Waitall(HST__EMPI_WINDOW, p->win, MPI_STATUSES_IGNORE);
    else MPI_Testall(HST__EMPI_WINDOW, p->win, &flag, MPI_STATUSES_IGNORE);
    return block || flag;
}

static void hst__empi_pump_end(hst__empi *m, hst__empi_pump *p) {
    double t0 = hst_time_s();
    hst__empi_pump_move(m, p, 1);
    MPI_Type_free(&p->row);
    m->gather += hst_time_s() - t0;
}

/* fn(ctx) on a thread of its own while this thread moves the gather on (inline where no thread
   starts: the gather then waits). */
typedef struct hst__empi_task {
    void (*fn)(void *);
    void *ctx;
    hst_mutex mu;
    int done;
} hst__empi_task;

static void *hst__empi_task_main(void *p) {
    hst__empi_task *t = (hst__empi_task *)p;
    t->fn(t->ctx);
    hst_mutex_lock(&t->mu);
    t->done = 1;
    hst_mutex_unlock(&t->mu);
    return NULL;
}

static void hst__empi_beside(const hst__empi *m, hst__empi_pump *p, void (*fn)(void *), void *ctx) {
    hst__empi_task t;
    hst_thread th;
    int done = 0;
    if (p->total == 0 || !hst_mutex_init(&t.mu)) { fn(ctx); return; }
    t.fn = fn; t.ctx = ctx; t.done = 0;
    if (!hst_thread_create(&th, hst__empi_task_main, &t)) {
        hst_mutex_destroy(&t.mu);
        fn(ctx);
        return;
    }
    while (!done) {   /* once every message is in, the thread is joined without polling */
        if (hst__empi_pump_move(m, p, 0)) break;
        hst_mutex_lock(&t.mu);
        done = t.done;
        hst_mutex_unlock(&t.mu);
    }
    hst_thread_join(&th);
    hst_mutex_destroy(&t.mu);
}

/* One time point's sums: this rank's rows added (a task beside the gather). */
typedef struct hst__empi_sums_tp {
    hst__empi *m;
    uint64_t tp;
} hst__empi_sums_tp;

static void hst__empi_add_rows(void *p) {
    hst__empi_sums_tp *s = (hst__empi_sums_tp *)p;
    hst__empi *m = s->m;
    size_t per = (size_t)HST_ESRRF_NUM_MODES * m->d.magnification * m->d.magnification;
    hst__erows_sums_tp(m->rows, m->rows_tp, s->tp, m->r0, m->r1, m->colsM, m->d.magnification,
                       m->sums + (size_t)s->tp * per);
}

/* The phases' sums through the ranks in order, time point by time point, right after this
   rank's rows ran (r: how they ran), before the ranks agree, beside the gather: a rank's sums
   then overlap the streams of the ranks still running (on two H100s, 500 frames of 1000 x 1000
   at mag 5, rank 0 summed its rows for 3.9 ms while rank 1's engine ran 4 ms longer, then
   waited as long for rank 1's sums). Each rank first learns from the previous one whether
   every rank before it succeeded, and tells the next one; then, only if so, it receives the
   sums of the rows above its own, adds its rows and passes them on (the next rank starts on a
   time point while this one adds the next). A failure anywhere stops the chain from there on,
   and each rank posts exactly the messages its neighbours expect whatever fails; the
   agreement after it ends every rank alike. The last rank's sums are the whole images'. */
static void hst__empi_sums(hst__empi *m, hst__empi_pump *p, hst_result r) {
    size_t per = (size_t)HST_ESRRF_NUM_MODES * m->d.magnification * m->d.magnification;
    hst__empi_sums_tp s;
    int ok = r == HST_SUCCESS, before = 1;
    double t0 = hst_time_s();
    if (m->rank > 0) MPI_Recv(&before, 1, MPI_INT, m->rank - 1, HST__EMPI_TAG_OK, m->comm, MPI_STATUS_IGNORE);
    ok = ok && before;
    if (m->rank + 1 < m->size) MPI_Send(&ok, 1, MPI_INT, m->rank + 1, HST__EMPI_TAG_OK, m->comm);
    m->wait += hst_time_s() - t0;
    s.m = m;
    for (s.tp = 0; ok && s.tp < m->ntp; s.tp++) {
        double *sums = m->sums + (size_t)s.tp * per;
        t0 = hst_time_s();
        if (m->rank > 0)
            MPI_Recv(sums, (int)per, MPI_DOUBLE, m->rank - 1, HST__EMPI_TAG_SUMS, m->comm, MPI_STATUS_IGNORE);
        m->wait += hst_time_s() - t0;
        t0 = hst_time_s();
        if (m->r1 > m->r0) hst__empi_beside(m, p, hst__empi_add_rows, &s);
        if (m->rank + 1 < m->size) MPI_Send(sums, (int)per, MPI_DOUBLE, m->rank + 1, HST__EMPI_TAG_SUMS, m->comm);
        m->sums_s += hst_time_s() - t0;
    }
}

/* The last rank's sums (the whole images') to rank 0, once every rank ran (collective). */
static void hst__empi_sums_bcast(hst__empi *m) {
    size_t per = (size_t)HST_ESRRF_NUM_MODES * m->d.magnification * m->d.magnification;
    MPI_Datatype tp_sums;
    uint64_t tp, n;
    double t0 = hst_time_s();
    MPI_Type_contiguous((int)per, MPI_DOUBLE, &tp_sums);
    MPI_Type_commit(&tp_sums);
    for (tp = 0; tp < m->ntp; tp += n) {   /* counts are ints: at most INT_MAX time points a call */
        n = m->ntp - tp < (uint64_t)INT_MAX ? m->ntp - tp : (uint64_t)INT_MAX;
        MPI_Bcast(m->sums + (size_t)tp * per, (int)n, tp_sums, m->size - 1, m->comm);
    }
    MPI_Type_free(&tp_sums);
    m->wait += hst_time_s() - t0;
}

/* The images' first non-finite pixel in (time point, mode, row-major) order, as one process
   finds it: tp (ntp: none), mode, index in the image. */
typedef struct hst__empi_bad {
    hst__empi *m;
    uint64_t tp;
    unsigned mode;
    size_t px;
} hst__empi_bad;

/* Rank 0: rows [c0, c1) of time point tp of out corrected with the final sums (none without
   the correction) and checked; their first non-finite pixel in (mode, row-major) order goes
   into *bad unless *bad holds one of tp before it in that order (bad->tp > tp: a later time
   point's, replaced). */
static void hst__empi_correct_rows(hst__empi_bad *bad, uint64_t tp, uint32_t c0, uint32_t c1) {
    hst__empi *m = bad->m;
    size_t per = (size_t)HST_ESRRF_NUM_MODES * m->d.magnification * m->d.magnification, at, px;
    float *rows[HST_ESRRF_NUM_MODES];
    unsigned q, mode = 0;
    double t0 = hst_time_s();
    for (q = 0; q < HST_ESRRF_NUM_MODES; q++) rows[q] = m->rows[q] ? m->rows[q] + (size_t)c0 * m->colsM : NULL;
    px = hst__erows_correct_tp(rows, m->rows_tp, tp, c0, c1, m->rowsM, m->colsM, m->d.magnification,
                               m->sums ? m->sums + (size_t)tp * per : NULL, &mode);
    at = px == HST__E_NONE ? 0 : (size_t)c0 * m->colsM + px;
    if (px != HST__E_NONE && (bad->tp != tp || mode < bad->mode || (mode == bad->mode && at < bad->px))) {
        bad->tp = tp;
        bad->mode = mode;
        bad->px = at;
    }
    m->correct += hst_time_s() - t0;
}

/* Rank 0's own rows corrected and checked, time point by time point up to the first
   non-finite one (the time points after it stay as they came, as in one process): a task
   beside the gather. */
static void hst__empi_correct_own(void *p) {
    hst__empi_bad *bad = (hst__empi_bad *)p;
    uint64_t tp;
    for (tp = 0; tp < bad->m->ntp && bad->tp == bad->m->ntp; tp++) hst__empi_correct_rows(bad, tp, 0, bad->m->r1);
}

/* Rank 0, after every rank ran: its own rows corrected beside the gather's end, then the other
   ranks' rows as they came, time point by time point up to the first non-finite one; that
   pixel named (HST_ERROR_NON_FINITE) as one process names it; *upto: its time point (ntp:
   none). Rank 0 used to wait for every rank's correction of its rows and then gather them
   (MPI_Gatherv): 2.3-3.8 ms and 6.2-7.7 ms on two H100s (rank 1's 50 MB); beside the sums'
   chain the gather now leaves rank 0 0.2-0.9 ms of waiting, and the correction takes 3.1-3.5. */
static hst_result hst__empi_correct(hst__empi *m, hst__empi_pump *p, uint64_t *upto) {
    hst__empi_bad bad;
    uint64_t tp;
    bad.m = m;
    bad.tp = m->ntp;
    bad.mode = 0;
    bad.px = 0;
    hst__empi_beside(m, p, hst__empi_correct_own, &bad);
    hst__empi_pump_end(m, p);
    for (tp = 0; tp < m->ntp && tp <= bad.tp && m->r1 < m->rowsM; tp++)
        hst__empi_correct_rows(&bad, tp, m->r1, m->rowsM);
    *upto = bad.tp;
    if (bad.tp == m->ntp) return HST_SUCCESS;
    return hst__enonfinite_image(m->log_be, bad.tp, bad.mode, bad.px / m->colsM, bad.px % m->colsM,
                                 m->rows[bad.mode][(size_t)bad.tp * m->rows_tp + bad.px]);
}

/* After every rank's rows ran and the sums' chain passed: the final sums to rank 0, the
   gather's end, rank 0's correction and check of the whole images and its callbacks up to the
   first non-finite time point; nothing here can fail but the images (agreed at the end). */
static hst_result hst__empi_finish(hst__empi *m, hst__empi_pump *p, float *const *out) {
    hst_result r = HST_SUCCESS;
    uint64_t upto;
    if (m->sums) hst__empi_sums_bcast(m);
    if (m->rank == 0) {
        r = hst__empi_correct(m, p, &upto);
        hst__erows_callbacks(&m->d, 0, upto, m->rowsM, m->colsM, out);
    } else {
        hst__empi_pump_end(m, p);
    }
    return hst__empi_agree(m, r, "the finish");
}

/* The report: the job's counts and path (rank 0's: every rank walks every frame) with this
   rank's own times (collective). */
static void hst__empi_report(const hst__empi *m, hst_esrrf_report *rep) {
    hst_esrrf_report job = *rep;
    MPI_Bcast(&job, (int)sizeof job, MPI_BYTE, 0, m->comm);
    job.stream_seconds = rep->stream_seconds;
    job.finish_seconds = rep->finish_seconds;
    job.setup_seconds = rep->setup_seconds;
    job.teardown_seconds = rep->teardown_seconds;
    job.wait_seconds = m->wait;
    job.mpi_setup_seconds = m->setup;
    job.mpi_sums_seconds = m->sums_s;
    job.mpi_correct_seconds = m->correct;
    job.mpi_gather_seconds = m->gather;
    job.seconds = hst_time_s() - m->t0;
    *rep = job;
}

/* eSRRF over the ranks of desc->mpi_comm, split by magnified rows: rank k computes its rows of
   every frame, so each pixel's frames are summed in order on one rank, as in one process; the
   ranks chain the correction's sums (hst__empi_sums) and finish their rows (hst__empi_finish),
   rank 0 receives them. Every rank reaches every collective and message in the same order
   whatever fails: failures are agreed at three points, and the sums' chain passes them on. */
static hst_result hst__erun_mpi(const hst_esrrf_desc *desc, const void *stack, hst_esrrf_dtype dtype,
                                uint64_t frames, uint32_t rows, uint32_t cols, float *const *out,
                                hst_esrrf_report *report) {
    hst__empi m;
    hst__empi_pump pump;
    hst_esrrf_report rep;
    hst_result r;
    memset(&m, 0, sizeof m);
    memset(&rep, 0, sizeof rep);
    m.t0 = hst_time_s();
    m.log_be = desc->backends && desc->num_backends ? desc->backends[0] : NULL;
    MPI_Comm_dup(*(const MPI_Comm *)desc->mpi_comm, &m.comm);
    MPI_Comm_rank(m.comm, &m.rank);
    MPI_Comm_size(m.comm, &m.size);
    r = hst__empi_setup(&m, desc, stack, dtype, frames, rows, cols, out);
    if (r == HST_SUCCESS) {   /* agreed: every rank or none comes here */
        r = hst__empi_local(&m, stack, dtype, frames, rows, cols, &rep);
        hst__empi_pump_start(&m, &pump, out);
        if (m.sums) hst__empi_sums(&m, &pump, r);
        r = hst__empi_agree(&m, r, "eSRRF");
        if (r == HST_SUCCESS) r = hst__empi_finish(&m, &pump, out);
        else hst__empi_pump_end(&m, &pump);
    }
    hst__empi_report(&m, &rep);
    if (report) *report = rep;
    hst_backend_free(m.log_be, m.sums);
    MPI_Comm_free(&m.comm);
    return r;
}
#else
static hst_result hst__erun_mpi(const hst_esrrf_desc *desc, const void *stack, hst_esrrf_dtype dtype,
                                uint64_t frames, uint32_t rows, uint32_t cols, float *const *out,
                                hst_esrrf_report *report) {
    (void)stack; (void)dtype; (void)frames; (void)rows; (void)cols; (void)out; (void)report;
    return hst_backend_fail(desc->backends && desc->num_backends ? desc->backends[0] : NULL, HST_ERROR_NOT_BUILT_IN, HST_LOGITEM_NOT_BUILT_IN, "hst_esrrf_run", "desc.mpi_comm is set but esrrf.h's implementation "
                     "was compiled without HST_ESRRF_MPI");
}
#endif

/* >>modes ------------------------------------------------------------------------------------ */
#define HST__ESRRF_MODE_NAME(id, index, name, sums, least, what) name,
static const char *const hst__emode_names[HST_ESRRF_NUM_MODES] = { HST_ESRRF_MODES(HST__ESRRF_MODE_NAME) };
#undef HST__ESRRF_MODE_NAME

HST__EDEF const char *hst_esrrf_mode_name(int mode) {
    return mode >= 0 && mode < HST_ESRRF_NUM_MODES ? hst__emode_names[mode] : NULL;
}

HST__EDEF int hst_esrrf_mode_parse(const char *name, size_t len) {
    int m;
    size_t i;
    for (m = 0; name && m < HST_ESRRF_NUM_MODES; m++) {
        const char *n = hst__emode_names[m];
        for (i = 0; i < len && n[i] && toupper((unsigned char)name[i]) == n[i]; i++) {}
        if (i == len && !n[i]) return m;
    }
    return -1;
}

HST__EDEF hst_result hst_esrrf_run(const hst_esrrf_desc *desc, const void *stack,
                                   hst_esrrf_dtype dtype, uint64_t frames, uint32_t rows,
                                   uint32_t cols, float *const *out, hst_esrrf_report *report) {
    unsigned nb = hst__elock_count(desc);
    hst_result r;
    hst__elock(nb ? desc->backends : NULL, nb, 1);
    if (desc && desc->mpi_comm) r = hst__erun_mpi(desc, stack, dtype, frames, rows, cols, out, report);
    else if (desc && desc->num_backends > 1) r = hst__erun_rows(desc, stack, dtype, frames, rows, cols, out, report);
    else r = hst__ebatch(desc, stack, dtype, frames, rows, cols, 0, 0, out, 0, 1, report);
    hst__elock(nb ? desc->backends : NULL, nb, 0);
    return r;
}

/* >>sweep ------------------------------------------------------------------------------------ */
/* Frames per block of the sweep when desc.block_frames is 0: as many as keep one radius's values
   of the block (ns floats per magnified pixel and frame) within this many bytes, a quarter of the
   device's memory and its largest buffer (at least one frame): 27 frames of the shipped stack at
   mag 5 with 3 sensitivities, so each radius's sums take one launch per 27 frames. */
#define HST__E_SWEEP_BLOCK_BYTES ((uint64_t)512 << 20)

/* One sweep on one backend: the sums of every pair for one time point at a time. */
typedef struct hst__esw {
    hst_esrrf_desc d;               /* defaults applied */
    const hst_esrrf_sweep_desc *sw;
    hst_backend *be;
    int host;
    hst_esrrf_dtype dtype;
    uint32_t rows, cols, mag, rowsM, colsM, nr, ns, np;
    size_t P, frame_px, in_bytes, acc_elem;
    size_t fused_local;             /* the fused kernel's work-group (0: the backend's default) */
    unsigned fused_k;               /* its work indices per item (HST_E_K) */
    uint64_t block;                 /* frames per block */
    float prm[2 * HST_ESRRF_SWEEP_MAX];   /* radii, then sensitivities */
    float *fr;                      /* float frames: a block's (host), else one (the mean's) */
    float *rgc;                     /* host: a block's values at one radius, ns per pixel */
    double *sum;                    /* 3 np P sums (host: the sums themselves) */
    void *rd;                       /* device without fp64: its float sums */
    float *img;                     /* one pair's image on the host (uploads, decorrelation) */
    float *ref;                     /* the time point's mean frame (the error map's reference) */
    double *mean;                   /* its sums */
    uint64_t done, steps;           /* progress: steps done, of all (the public comment) */
    char opts[384];                 /* the device's program's build options (hst__esw_device) */
    hst_buffer *draw, *dfr, *drgc, *dacc;
    hst_buffer *dimg[3];            /* every pair's AVG image of all, odd, even frames:
                                       (np, rowsM, colsM) floats each, the scores' input */
} hst__esw;

/* The sweep desc against its limits; the pairs' parameters into w->prm. */
static hst_result hst__esw_check(hst__esw *w, const hst_esrrf_sweep_desc *sw, const hst_esrrf_sweep_result *res) {
    const hst_backend *be = w->d.backends[0];
    unsigned i;
    if (!sw || !res)
        return hst__null_arg(be, "hst_esrrf_sweep", "%s is NULL",
                         sw ? "result" : "sweep");
    if (w->d.rolling_step)
        return hst__bad_arg(be, "hst_esrrf_sweep", "desc.rolling_step %llu: the sweep scores time points cut one "
                            "after another (give 0)", (unsigned long long)w->d.rolling_step);
    if (w->d.num_backends != 1 || w->d.mpi_comm)
        return hst__bad_arg(be, "hst_esrrf_sweep",
                         "give one backend and no MPI communicator");
    if (!sw->num_radii || sw->num_radii > HST_ESRRF_SWEEP_MAX || !sw->radii ||
        !sw->num_sensitivities || sw->num_sensitivities > HST_ESRRF_SWEEP_MAX || !sw->sensitivities)
        return hst__range_arg(be, "hst_esrrf_sweep",
                         "%u radii and %u sensitivities: give 1..%d of each (non-NULL)",
                         sw->num_radii, sw->num_sensitivities, HST_ESRRF_SWEEP_MAX);
    for (i = 0; i < sw->num_radii; i++)
        if (!(sw->radii[i] > 0.0f && sw->radii[i] <= HST_ESRRF_MAX_RADIUS))
            return hst__range_arg(be, "hst_esrrf_sweep",
                             "radii[%u] %g: give 0 < radius <= %g input pixels", i,
                             (double)sw->radii[i], (double)HST_ESRRF_MAX_RADIUS);
    for (i = 0; i < sw->num_sensitivities; i++)
        if (!(sw->sensitivities[i] > 0.0f && sw->sensitivities[i] <= HST_ESRRF_MAX_SENSITIVITY))
            return hst__range_arg(be, "hst_esrrf_sweep",
                             "sensitivities[%u] %g: give 0 < sensitivity <= %g", i,
                             (double)sw->sensitivities[i], (double)HST_ESRRF_MAX_SENSITIVITY);
    w->sw = sw;
    w->nr = sw->num_radii; w->ns = sw->num_sensitivities; w->np = w->nr * w->ns;
    for (i = 0; i < w->nr; i++) w->prm[i] = sw->radii[i];
    for (i = 0; i < w->ns; i++) w->prm[w->nr + i] = sw->sensitivities[i];
    return HST_SUCCESS;
}

/* Automatic blocks on a CPU (the host device or an OpenCL one) hold at most 1/HST__E_TARGET_BLOCKS
   of a time point's frames, or this many where that is fewer: the progress and (on OpenCL) the
   interruption move per block, and there a block is seconds of work with no launch or copy worth
   saving. Measured on 16 cores (50 frames of 256 x 256, mag 5, 3 x 3 pairs, best of 3): the
   host's pass 2.71 s against 2.67 s with the memory bound's 27-frame blocks (within the runs'
   spread, 2.67-2.96 s), where 4-frame blocks took 2.81 s and more (their threads' shares end
   unevenly); PoCL's kernels take seconds per block either way. */
#define HST__E_SWEEP_CPU_BLOCK 8

/* Frames per block (desc.block_frames, else HST__E_SWEEP_BLOCK_BYTES's, a device's largest
   buffer at most, and HST__E_SWEEP_CPU_BLOCK's bound on a CPU; 1..T) and its sizes checked:
   one radius's values (block ns P floats) fit size_t, the frame count a kernel's uint. */
static hst_result hst__esw_block(hst__esw *w, uint64_t T) {
    const hst_device_info *info = hst_backend_device(w->be);
    uint64_t vb = (uint64_t)w->ns * w->P * sizeof(float), cap = HST__E_SWEEP_BLOCK_BYTES;   /* < the sums' bytes */
    uint64_t cpu = (T + HST__E_TARGET_BLOCKS - 1) / HST__E_TARGET_BLOCKS;
    if (!w->host && info->global_mem_bytes / 4 < cap) cap = info->global_mem_bytes / 4;
    if (!w->host && info->max_alloc_bytes < cap) cap = info->max_alloc_bytes;
    w->block = w->d.block_frames ? w->d.block_frames : cap / vb;
    if (cpu < HST__E_SWEEP_CPU_BLOCK) cpu = HST__E_SWEEP_CPU_BLOCK;
    if (!w->d.block_frames && (w->host || info->type == HST_DEVICE_CPU) && w->block > cpu) w->block = cpu;
    if (w->block < 1) w->block = 1;
    if (w->block > T) w->block = T;
    if (w->block > UINT32_MAX || w->block > SIZE_MAX / vb)
        return hst_backend_fail(w->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf_sweep",
                         "blocks of %llu frames of %llu values overflow size_t",
                         (unsigned long long)w->block, (unsigned long long)(vb / sizeof(float)));
    return HST_SUCCESS;
}

/* The (w, wd) table of the sweep's largest radius, where it fits (hst__e_wtab_fit), else 0 */
static uint64_t hst__esw_wtab(const hst__esw *w) {
    uint64_t need = 0, e;
    unsigned k;
    for (k = 0; k < w->nr; k++)
        if ((e = hst_k_esrrf_wtab_entries(w->mag, w->prm[k])) > need) need = e;
    return hst__e_wtab_fit(need, hst_backend_device(w->be));
}

/* The device's program (the fused kernel at every sensitivity, -DHST_E_NS and -DHST_E_SENS as
   exact hex literals, its table as hst__esw_wtab says; the device's options (NVIDIA's, the
   CPUs'), work-group and work indices per item as hst_esrrf_run's), kernels and buffers. */
static hst_result hst__esw_device(hst__esw *w, size_t acc_bytes) {
    const hst_device_info *info = hst_backend_device(w->be);
    char *opts = w->opts;
    size_t len;
    uint64_t wtab = hst__esw_wtab(w);
    unsigned l;
    float rmax = 0.0f;
    int gpu = hst__env_gpu(w->be), nv = gpu && hst__env_options(w->be);
    int cpu = hst__e_cpu_build(info);
    hst_result r;
    w->acc_elem = info->fp64 ? sizeof(double) : sizeof(float);
    w->fused_local = hst__e_fused_local(gpu, cpu);
    w->fused_k = hst__e_fused_k(nv, cpu, w->mag);
    for (l = 0; l < w->nr; l++) rmax = w->prm[l] > rmax ? w->prm[l] : rmax;
    len = hst__e_device_options(nv, cpu, w->mag, rmax, wtab, info->local_mem_bytes, opts, sizeof w->opts);
    len += (size_t)snprintf(opts + len, sizeof w->opts - len, "%s -DHST_E_NS=%u -DHST_E_SENS=",
                            info->fp64 ? " -DHST_FP64" : "", w->ns);
    for (l = 0; l < w->ns; l++)   /* at most 8 of 17 characters, then 34: within opts */
        len += (size_t)snprintf(opts + len, sizeof w->opts - len, "%s%af", l ? "," : "", (double)w->prm[w->nr + l]);
    if ((w->dtype != HST_ESRRF_F32 &&
         (r = hst_buffer_create(w->be, (size_t)w->block * w->in_bytes, HST_MEM_READ_ONLY, &w->draw)) != HST_SUCCESS) ||
        (r = hst_buffer_create(w->be, (size_t)w->block * w->frame_px * sizeof(float), 0, &w->dfr)) != HST_SUCCESS ||
        (r = hst_buffer_create(w->be, (size_t)w->block * w->ns * w->P * sizeof(float), 0, &w->drgc)) != HST_SUCCESS ||
        (r = hst_buffer_create(w->be, acc_bytes / sizeof(double) * w->acc_elem, HST_MEM_RESIDENT, &w->dacc)) != HST_SUCCESS)
        return r;
    if (!info->fp64 && !(w->rd = hst_backend_alloc(w->be, acc_bytes / 2))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    return HST_SUCCESS;
}

/* Whether the device finalises the AVG images from its sums (fp64 sums, and every pair's
   image offsets within hst_k_esrrf_stat's uint pixel index); else the sums come to the host. */
static int hst__esw_device_images(const hst__esw *w) {
    return !w->host && w->acc_elem == sizeof(double) && (uint64_t)w->np * w->P <= UINT32_MAX;
}

/* The backend and the sizes (the desc and the frame checked). */
static void hst__esw_sizes(hst__esw *w, hst_esrrf_dtype dtype, uint32_t rows, uint32_t cols) {
    static const size_t dsize[5] = { 0, 1, 2, 2, 4 };
    w->be = w->d.backends[0];
    w->host = hst_backend_is_host(w->be);
    w->dtype = dtype; w->rows = rows; w->cols = cols; w->mag = w->d.magnification;
    w->rowsM = rows * w->mag; w->colsM = cols * w->mag;
    w->P = (size_t)w->rowsM * w->colsM;
    w->frame_px = (size_t)rows * cols;
    w->in_bytes = w->frame_px * dsize[dtype];
}

/* Everything the pass needs (hst__esw_sizes done): the block, host memory, the device's. */
static hst_result hst__esw_open(hst__esw *w, uint64_t T) {
    size_t acc_bytes;
    hst_result r;
    if (w->P > SIZE_MAX / sizeof(double) / 3 / w->np)
        return hst_backend_fail(w->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf_sweep", "the pairs' sums overflow size_t");
    if ((r = hst__esw_block(w, T)) != HST_SUCCESS) return r;
    acc_bytes = 3 * (size_t)w->np * w->P * sizeof(double);
    w->fr = (float *)hst_backend_alloc(w->be, (size_t)(w->host ? w->block : 1) * w->frame_px * sizeof(float));
    w->ref = (float *)hst_backend_alloc(w->be, w->frame_px * sizeof(float));
    w->mean = (double *)hst_backend_alloc(w->be, w->frame_px * sizeof(double));
    w->img = (float *)hst_backend_alloc(w->be, w->P * sizeof(float));
    if (!w->fr || !w->ref || !w->mean || !w->img) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (!w->host && (r = hst__esw_device(w, acc_bytes)) != HST_SUCCESS) return r;
    /* the sums on the host: the host's, or a device's that the host finalises */
    if (!hst__esw_device_images(w) && !(w->sum = (double *)hst_backend_alloc(w->be, acc_bytes)))
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (!w->host) return HST_SUCCESS;
    w->rgc = (float *)hst_backend_alloc(w->be, (size_t)w->block * w->ns * w->P * sizeof(float));
    return w->rgc ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
}

static void hst__esw_close(hst__esw *w) {
    unsigned m;
    if (!w->be) return;
    hst_buffer_destroy(w->draw); hst_buffer_destroy(w->dfr); hst_buffer_destroy(w->drgc);
    hst_buffer_destroy(w->dacc);
    for (m = 0; m < 3; m++) hst_buffer_destroy(w->dimg[m]);
    hst_backend_free(w->be, w->sum); hst_backend_free(w->be, w->fr); hst_backend_free(w->be, w->rgc);
    hst_backend_free(w->be, w->rd); hst_backend_free(w->be, w->ref); hst_backend_free(w->be, w->mean);
    hst_backend_free(w->be, w->img);
}

/* HST_ERROR_CANCELLED once the backend is interrupted (hst_backend_interrupt). */
static hst_result hst__esw_poll(const hst__esw *w) {
    return hst_backend_interrupted(w->be) ? HST_ERROR_CANCELLED : HST_SUCCESS;
}

/* k more steps of the call's progress done (the public comment: frames of the pass, scores):
   the interruption checked (an interrupted call reports nothing more), then the callback told. */
static hst_result hst__esw_step(hst__esw *w, uint64_t k) {
    hst_result r = hst__esw_poll(w);
    w->done += k;
    if (r == HST_SUCCESS && w->d.progress && w->d.progress(w->done, w->steps, w->d.progress_user))
        r = HST_ERROR_CANCELLED;
    return r;
}

/* Whether a time point of n frames has a resolution: FRC needs odd and even frames (NanoPyx
   skips a time point of one frame); decorrelation has one always. */
static int hst__esw_resolves(const hst__esw *w, uint64_t n) {
    return w->sw->use_decorr || n >= 2;
}

/* The steps of a time point of n frames: its frames, every pair's RSP, and its resolution where
   the time point has one. */
static uint64_t hst__esw_tp_steps(const hst__esw *w, uint64_t n) {
    return n + (uint64_t)w->np * (hst__esw_resolves(w, n) ? 2 : 1);
}

/* The host device's block of n frames at radius k: its (frame, magnified row) pairs through the
   fused twin at every sensitivity, then its values into the sums, each in shares of the threads. */
typedef struct hst__esw_job { const hst__esw *w; uint64_t n; uint32_t k, odd0; hst__efused f; } hst__esw_job;

/* The fused twin's call over a block's frames at every sensitivity (the radius: set per pass). */
static void hst__esw_fused(const hst__esw *w, hst__efused *f) {
    f->frames = w->fr; f->out = w->rgc;
    f->frame_px = w->frame_px; f->out_frame = (size_t)w->ns * w->P;
    f->rows = w->rows; f->cols = w->cols; f->mag = w->mag; f->row0 = 0; f->nrows = w->rowsM; f->ns = w->ns;
    f->sens = w->prm + w->nr; f->iw = !w->d.no_intensity_weighting;
}

/* Share s of n of `total` items: [*a, *b) */
static void hst__esw_share(uint64_t total, unsigned s, unsigned n, uint64_t *a, uint64_t *b) {
    uint64_t chunk = total / n + (total % n != 0);
    *a = chunk * s < total ? chunk * s : total;
    *b = total - *a > chunk ? *a + chunk : total;
}

/* A share of the block's (frame, magnified row) pairs through the fused twin, in pieces
   (hst__epieces: an interrupted pass stops within ms; the caller returns the cancel). */
static void hst__esw_fused_share(void *ctx, unsigned s, unsigned n) {
    const hst__esw_job *j = (const hst__esw_job *)ctx;
    uint64_t u, u1;
    hst__esw_share(j->n * j->w->rowsM, s, n, &u, &u1);
    hst__epieces(&j->w->d, u, u1, HST__E_POLL_ROWS, hst__efused_rows, &j->f);
}

static void hst__esw_sum_share(void *ctx, unsigned s, unsigned n) {
    const hst__esw_job *j = (const hst__esw_job *)ctx;
    const hst__esw *w = j->w;
    uint64_t e0, e1;
    hst__esw_share((uint64_t)w->ns * w->P, s, n, &e0, &e1);
    hst_k_esrrf_sweep_sum_host(w->rgc, w->sum, (uint32_t)w->P, w->ns, j->k, (uint32_t)j->n, j->odd0, (size_t)e0, (size_t)e1);
}

/* A stage kernel's block arguments (HST_KESRRF_BLOCK) for all n frames of one launch: base 0,
   begin 0, end n, total n, flags 0. */
static void hst__esw_block_args(hst_karg *a, uint64_t n) {
    a[0] = hst_karg_ulong(0); a[1] = hst_karg_ulong(0); a[2] = hst_karg_ulong(n); a[3] = hst_karg_ulong(n);
    a[4] = hst_karg_int(0);
}

/* The device's block of n frames (raw samples at `raw`) into dfr as float: uploaded once in
   their own dtype, converted there (f32: uploaded into dfr). */
static hst_result hst__esw_upload(hst__esw *w, const unsigned char *raw, uint64_t n) {
    hst_queue *q = hst_backend_queue(w->be);
    hst_range range;
    hst_karg a[9];
    hst_result r;
    if (w->dtype == HST_ESRRF_F32) return hst_write(q, w->dfr, 0, raw, (size_t)n * w->in_bytes, 0, 0, NULL, NULL);
    if ((r = hst_write(q, w->draw, 0, raw, (size_t)n * w->in_bytes, 0, 0, NULL, NULL)) != HST_SUCCESS) return r;
    memset(&range, 0, sizeof range);
    range.dims = 2; range.global[0] = w->frame_px; range.global[1] = (size_t)n;
    /* hst_k_esrrf_to_float(global raw, global frames, uint pixels, uint dtype, HST_KESRRF_BLOCK):
       one block of the n frames */
    a[0] = hst_karg_buffer(w->draw); a[1] = hst_karg_buffer(w->dfr);
    a[2] = hst_karg_uint((uint32_t)w->frame_px); a[3] = hst_karg_uint((uint32_t)w->dtype);
    hst__esw_block_args(a + 4, n);
    return hst__elaunch(w->be, w->opts, HST_KESRRF_TO_FLOAT, &range, a, 9);
}

/* The device's block (in dfr, n frames, the first odd0 in parity) at radius k: the values at
   every sensitivity into drgc (hst_k_esrrf_rgc_fused, the whole frames), then into the sums. */
static hst_result hst__esw_radius(hst__esw *w, uint32_t k, uint64_t n, uint32_t odd0) {
    hst_range range;
    hst_karg a[15];
    hst_result r;
    memset(&range, 0, sizeof range);
    range.dims = 2;
    range.global[0] = (w->P + w->fused_k - 1) / w->fused_k; range.global[1] = (size_t)n;   /* HST_E_K pixels an item */
    range.local[0] = w->fused_local; range.local[1] = w->fused_local ? 1 : 0;
    /* hst_k_esrrf_rgc_fused(global frames, global rgc, uint rows, uint cols, uint mag, float radius,
       float sensitivity (read where ns is 1), int intensity_weighting, uint row0, uint nrows,
       HST_KESRRF_BLOCK) */
    a[0] = hst_karg_buffer(w->dfr); a[1] = hst_karg_buffer(w->drgc);
    a[2] = hst_karg_uint(w->rows); a[3] = hst_karg_uint(w->cols); a[4] = hst_karg_uint(w->mag);
    a[5] = hst_karg_float(w->prm[k]); a[6] = hst_karg_float(w->prm[w->nr]);
    a[7] = hst_karg_int(!w->d.no_intensity_weighting);
    a[8] = hst_karg_uint(0); a[9] = hst_karg_uint(w->rowsM);
    hst__esw_block_args(a + 10, n);
    if ((r = hst__elaunch(w->be, w->opts, HST_KESRRF_RGC_FUSED, &range, a, 15)) != HST_SUCCESS) return r;
    range = hst__erange1(0, (size_t)w->ns * w->P);
    /* hst_k_esrrf_sweep_sum(global rgc, global acc, uint pixels, uint k, uint n, uint odd0) */
    a[0] = hst_karg_buffer(w->drgc); a[1] = hst_karg_buffer(w->dacc);
    a[2] = hst_karg_uint((uint32_t)w->P); a[3] = hst_karg_uint(k); a[4] = hst_karg_uint((uint32_t)n);
    a[5] = hst_karg_uint(odd0);
    return hst__elaunch(w->be, w->opts, HST_KESRRF_SWEEP_SUM, &range, a, 6);
}

/* n float frames (fr) added to the mean frame's sums, frame by frame (numpy.mean's order of
   terms per pixel is not ours: the sums are double, rounded to float once at the end). */
static void hst__esw_mean_add(hst__esw *w, const float *fr, uint64_t n) {
    size_t i;
    uint64_t z;
    for (z = 0; z < n; z++, fr += w->frame_px)
        for (i = 0; i < w->frame_px; i++) w->mean[i] += (double)fr[i];
}

/* Block [0, n) of raw frames (the first odd0 in parity in its time point) into every pair's
   sums: converted to float once, then per radius its values at every sensitivity and their sums
   (kernels_esrrf.h's sweep), and into the mean frame's sums (on a device, while it computes). */
static hst_result hst__esw_block_run(hst__esw *w, const unsigned char *raw, uint64_t n, uint32_t odd0) {
    hst__esw_job j;
    hst_result r;
    uint64_t z;
    uint32_t k;
    if (!w->host) {
        if ((r = hst__esw_upload(w, raw, n)) != HST_SUCCESS) return r;
        for (k = 0; k < w->nr; k++)
            if ((r = hst__esw_radius(w, k, n, odd0)) != HST_SUCCESS) return r;
        for (z = 0; z < n; z++) {
            hst_k_esrrf_to_float_host(raw + (size_t)z * w->in_bytes, w->fr, (uint32_t)w->frame_px, (uint32_t)w->dtype,
                                      0, 0, 1, 1);
            hst__esw_mean_add(w, w->fr, 1);
        }
        return hst_queue_finish(hst_backend_queue(w->be));   /* raw is read until here */
    }
    hst_k_esrrf_to_float_host(raw, w->fr, (uint32_t)w->frame_px, (uint32_t)w->dtype, 0, 0, n, n);
    hst__esw_mean_add(w, w->fr, n);
    j.w = w; j.n = n; j.odd0 = odd0;
    hst__esw_fused(w, &j.f);
    for (j.k = 0; j.k < w->nr; j.k++) {
        j.f.radius = w->prm[j.k];
        hst__efused_prepare(&j.f);
        hst_parallel(hst__esw_fused_share, &j, hst__ethreads());
        if ((r = hst__esw_poll(w)) != HST_SUCCESS) return r;   /* the shares stopped early */
        hst_parallel(hst__esw_sum_share, &j, hst__ethreads());
    }
    return HST_SUCCESS;
}

/* Frames [a, b) of the stack, one time point, into the pairs' sums and the mean frame's (zeroed
   first), block by block; a step per frame after each (hst__esw_step). */
static hst_result hst__esw_pass(hst__esw *w, const unsigned char *stack, uint64_t a, uint64_t b) {
    static const unsigned char zero[8] = {0};
    size_t acc_bytes = 3 * (size_t)w->np * w->P * (w->host ? sizeof(double) : w->acc_elem);
    uint64_t z0;
    hst_result r;
    memset(w->mean, 0, w->frame_px * sizeof(double));
    if (w->host) memset(w->sum, 0, acc_bytes);
    else if ((r = hst_fill(hst_backend_queue(w->be), w->dacc, zero, w->acc_elem, 0, acc_bytes, 0, NULL, NULL)) != HST_SUCCESS)
        return r;
    for (z0 = a; z0 < b; z0 += w->block) {
        uint64_t n = b - z0 < w->block ? b - z0 : w->block;
        if ((r = hst__esw_block_run(w, stack + (size_t)z0 * w->in_bytes, n, (uint32_t)((z0 - a) & 1))) != HST_SUCCESS ||
            (r = hst__esw_step(w, n)) != HST_SUCCESS)
            return r;
    }
    return HST_SUCCESS;
}

/* The device's sums into w->sum (in double) where the host finalises the images. */
static hst_result hst__esw_read(hst__esw *w) {
    size_t n = 3 * (size_t)w->np * w->P, i;
    hst_queue *q = hst_backend_queue(w->be);
    hst_result r;
    if (w->host || hst__esw_device_images(w)) return HST_SUCCESS;
    if (w->acc_elem == sizeof(double)) return hst_read(q, w->dacc, 0, w->sum, n * sizeof(double), 1, 0, NULL, NULL);
    if ((r = hst_read(q, w->dacc, 0, w->rd, n * sizeof(float), 1, 0, NULL, NULL)) != HST_SUCCESS) return r;
    for (i = 0; i < n; i++) w->sum[i] = (double)((const float *)w->rd)[i];
    return HST_SUCCESS;
}

/* The mean of the time point's n frames (NanoPyx: numpy.mean(im, axis=0)) from the pass's
   sums, as float. */
static void hst__esw_mean(hst__esw *w, uint64_t n) {
    size_t i;
    for (i = 0; i < w->frame_px; i++) w->ref[i] = (float)(w->mean[i] / (double)n);
}

/* Image q (0 all frames, 1 odd, 2 even; `frames` of them) of pair p into w->dimg[q] at p P,
   by hst_k_esrrf_stat on the device: its global offset p P puts the image there, and its
   `first` (2 p + q) P then reads the pair's sums at (3 p + q) P (AVG reads no other). */
static hst_result hst__esw_stat(hst__esw *w, unsigned p, unsigned q, uint32_t frames) {
    size_t off = (size_t)p * w->P;
    return hst__estat(w->be, w->opts, w->dacc, w->dimg[q], (uint64_t)(2 * p + q) * w->P, (uint32_t)(off + w->P), frames,
                      0, off, w->P);
}

/* The AVG images of every pair's all, odd and even frames (n frames) into w->dimg[0..2]
   ((np, rowsM, colsM) floats each, on the backend): finalised where the sums are, on the
   device (hst_k_esrrf_stat) or on the host (hst_k_esrrf_finalize, then one upload per image
   on an OpenCL device); the same bits either way. */
static hst_result hst__esw_images(hst__esw *w, uint64_t n) {
    const uint32_t frames[3] = { (uint32_t)n, (uint32_t)(n / 2), (uint32_t)((n + 1) / 2) };
    size_t bytes = w->P * sizeof(float);
    unsigned p, q;
    hst_result r = HST_SUCCESS;
    for (q = 0; q < 3 && r == HST_SUCCESS; q++)
        if (!w->dimg[q]) r = hst_buffer_create(w->be, (size_t)w->np * bytes, 0, &w->dimg[q]);
    for (p = 0; p < w->np && r == HST_SUCCESS; p++)
        for (q = 0; q < 3 && r == HST_SUCCESS; q++) {
            const double *s;
            if (!frames[q]) continue;   /* the odd frames of a one-frame time point */
            if (hst__esw_device_images(w)) {
                r = hst__esw_stat(w, p, q, frames[q]);
                continue;
            }
            s = w->sum + (3 * (size_t)p + q) * w->P;
            if (w->host) {
                hst_k_esrrf_finalize(0, s, w->P, frames[q], (float *)hst_buffer_host_ptr(w->dimg[q]) + (size_t)p * w->P);
            } else {
                hst_k_esrrf_finalize(0, s, w->P, frames[q], w->img);
                r = hst_write(hst_backend_queue(w->be), w->dimg[q], p * bytes, w->img, bytes, 1, 0, NULL, NULL);
            }
        }
    return r;
}

/* The scores of every pair's AVG images (w->dimg; n frames): v[p][0] the RSP of the AVG image
   against the mean frame (quality.h's scores_only), v[p][1] the resolution: FRC of the odd
   and even images (none, NaN, for one frame: NanoPyx skips it) or decorrelation of the AVG
   image. The error maps and FRCs of all pairs are batches on the device (quality.h: the
   reference interpolated once, the sigma searches in lockstep); decorrelation reads each AVG
   image back. Steps after each batch and each decorrelation (hst__esw_step). */
static hst_result hst__esw_score(hst__esw *w, uint64_t n, double (*v)[2]) {
    hst_error_map_result em[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX];
    hst_frc_result fr[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX];
    hst_error_map_desc ed;
    hst_image_batch img[3];
    size_t bytes = w->P * sizeof(float);
    unsigned p, q;
    hst_result r;
    memset(&ed, 0, sizeof ed);
    ed.scores_only = 1;   /* RSP is all the sweep keeps: no map, no blur in space */
    for (q = 0; q < 3; q++) {
        memset(&img[q], 0, sizeof img[q]);
        img[q].buf = w->dimg[q];
        img[q].stride_bytes = bytes;
    }
    r = hst_error_map_batch(w->be, w->ref, w->rows, w->cols, &img[0], w->np, w->rowsM, w->colsM, &ed, NULL, em);
    for (p = 0; p < w->np; p++) { v[p][0] = em[p].rsp; v[p][1] = NAN; }
    if (r == HST_SUCCESS) r = hst__esw_step(w, w->np);
    if (r == HST_SUCCESS && !w->sw->use_decorr && hst__esw_resolves(w, n) &&
        (r = hst_frc_batch(w->be, &img[1], &img[2], w->np, w->rowsM, w->colsM, NULL, NULL, fr)) == HST_SUCCESS) {
        for (p = 0; p < w->np; p++) v[p][1] = fr[p].resolution;
        r = hst__esw_step(w, w->np);
    }
    for (p = 0; p < w->np && r == HST_SUCCESS && w->sw->use_decorr; p++) {
        hst_decorr_result dr;
        r = hst_read(hst_backend_queue(w->be), w->dimg[0], p * bytes, w->img, bytes, 1, 0, NULL, NULL);
        if (r == HST_SUCCESS && (r = hst_decorr(w->be, w->img, w->rowsM, w->colsM, NULL, &dr)) == HST_SUCCESS) {
            v[p][1] = dr.resolution;
            r = hst__esw_step(w, 1);
        }
    }
    return r;
}

/* Time point tp (n frames, its sums in w->sum or on the device) of every pair p = k ns + l:
   the AVG images (hst__esw_images); the caller's images (pair (l, k) at images[l nr + k]: the
   AVG image, hst_esrrf_run's bits, read back, the macro-pixel correction as desc says); then
   the scores of every pair, added to the running sums sc[p] (count cnt[p]; NaN left out:
   numpy.nanmean). */
static hst_result hst__esw_timepoint(hst__esw *w, uint64_t tp, uint64_t n, float *const *images, double (*sc)[2],
                                     unsigned (*cnt)[2]) {
    double v[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX][2];
    size_t bytes = w->P * sizeof(float);
    unsigned p, q;
    hst_result r = hst__esw_images(w, n);
    for (p = 0; p < w->np && images && r == HST_SUCCESS; p++) {
        float *img = images[(p % w->ns) * w->nr + p / w->ns];
        if (!img) continue;
        img += (size_t)tp * w->P;
        r = hst_read(hst_backend_queue(w->be), w->dimg[0], p * bytes, img, bytes, 1, 0, NULL, NULL);
        if (r == HST_SUCCESS && !w->d.no_macro_pixel_correction) hst__emacro_image(img, w->rowsM, w->colsM, w->mag);
    }
    if (r == HST_SUCCESS) r = hst__esw_score(w, n, v);
    for (p = 0; p < w->np && r == HST_SUCCESS; p++)
        for (q = 0; q < 2; q++)
            if (!isnan(v[p][q])) { sc[p][q] += v[p][q]; cnt[p][q]++; }
    return r;
}

/* NanoPyx's logistic_image_conversion of one value x (not NaN) of a map whose finite values
   span [lo, hi] (M1 = 0.075 at hi, M2 = 0.925 at lo; lo == hi: 0.5; +inf 0, as its nan_to_num
   leaves it) */
static double hst__esw_logistic(double x, double lo, double hi) {
    const double M1 = 0.075, M2 = 0.925;
    double A1 = log((1.0 - M1) / M1), A2 = log((1.0 - M2) / M2), x0, k, v;
    if (lo == hi) return isfinite(x) ? 0.5 : 0.0;
    x0 = (A2 * hi - A1 * lo) / (A2 - A1);
    k = 1.0 / (x0 - hi) * A1;
    v = 1.0 / (exp(-k * (x - x0)) + 1.0);
    return isnan(v) ? 0.0 : v;
}

/* QnR of one pair (the public comment: NanoPyx's calculate_qnr_score with RSP below 0 as 0,
   NaN without RSP or resolution) from its RSP and resolution, the map's finite resolutions
   spanning [lo, hi] (lo > hi: none). In [0, 1]: s and nFRC are. */
static double hst__esw_qnr_of(double rsp, double resolution, double lo, double hi) {
    double n, s;
    if (isnan(rsp) || isnan(resolution)) return NAN;
    n = lo <= hi ? hst__esw_logistic(resolution, lo, hi) : 0.0;
    s = rsp > 0.0 ? rsp : 0.0;
    return s + n > 0.0 ? 2.0 * s * n / (s + n) : 0.0;
}

/* The first maximum of map m ([sensitivity][radius], C order) as the best pair, NaN left out
   (numpy.argmax would take the first NaN); 0 where every value is NaN. */
static int hst__esw_argmax(const hst__esw *w, const double (*m)[HST_ESRRF_SWEEP_MAX], hst_esrrf_sweep_result *res) {
    double best = -INFINITY;
    int found = 0;
    unsigned k, l;
    for (l = 0; l < w->ns; l++)
        for (k = 0; k < w->nr; k++)
            if (!isnan(m[l][k]) && (!found || m[l][k] > best)) {
                best = m[l][k];
                res->best_sensitivity = l;
                res->best_radius = k;
                found = 1;
            }
    return found;
}

/* The maps from the running sums (RSP and resolution: means over the time points that have
   them, NaN where none has), QnR and the best pair: QnR's first maximum, else RSP's. */
static void hst__esw_qnr(const hst__esw *w, double (*sc)[2], unsigned (*cnt)[2], hst_esrrf_sweep_result *res) {
    double lo = INFINITY, hi = -INFINITY;
    unsigned k, l;
    for (l = 0; l < w->ns; l++)
        for (k = 0; k < w->nr; k++) {
            unsigned p = k * w->ns + l;
            res->rsp[l][k] = cnt[p][0] ? sc[p][0] / cnt[p][0] : NAN;
            res->resolution[l][k] = cnt[p][1] ? sc[p][1] / cnt[p][1] : NAN;
            if (isfinite(res->resolution[l][k])) {
                if (res->resolution[l][k] < lo) lo = res->resolution[l][k];
                if (res->resolution[l][k] > hi) hi = res->resolution[l][k];
            }
        }
    for (l = 0; l < w->ns; l++)
        for (k = 0; k < w->nr; k++) res->qnr[l][k] = hst__esw_qnr_of(res->rsp[l][k], res->resolution[l][k], lo, hi);
    if (!hst__esw_argmax(w, (const double (*)[HST_ESRRF_SWEEP_MAX])res->qnr, res))
        (void)hst__esw_argmax(w, (const double (*)[HST_ESRRF_SWEEP_MAX])res->rsp, res);
}

/* The frames' magnified sides against the resolution's least side, before any work (the
   scores come after the whole pass): FRC's where a time point of T frames has odd and even
   frames (the least side where hst_frc_curve_length is not 0: quality.h's one fact), else
   decorrelation's. */
#define HST__E_SWEEP_DECORR_SIDE 2   /* hst_decorr: rows and cols >= 2 */
#define HST__E_SWEEP_SIDE_LIMIT 4096 /* where the search for FRC's least side gives up */
static hst_result hst__esw_sides(const hst__esw *w, uint64_t T) {
    uint32_t side = w->rowsM <= w->colsM ? w->rowsM : w->colsM, need = side;
    if (w->sw->use_decorr) need = HST__E_SWEEP_DECORR_SIDE;
    else if (hst__esw_resolves(w, T))
        while (need < HST__E_SWEEP_SIDE_LIMIT && !hst_frc_curve_length(need, need)) need++;
    if (side >= need) return HST_SUCCESS;
    return hst__range_arg(w->be, "hst_esrrf_sweep",
                     "%s %u at magnification %u gives %u magnified pixels: %s needs at least %u; "
                     "give larger frames or a larger magnification%s", w->rowsM <= w->colsM ? "rows" : "cols",
                     side / w->mag, w->mag, side, w->sw->use_decorr ? "decorrelation" : "FRC of odd and even frames",
                     need, w->sw->use_decorr ? "" : " (or use_decorr)");
}

HST__EDEF hst_result hst_esrrf_sweep(const hst_esrrf_desc *desc, const hst_esrrf_sweep_desc *sweep,
                                     const void *stack, hst_esrrf_dtype dtype, uint64_t frames,
                                     uint32_t rows, uint32_t cols, float *const *images,
                                     hst_esrrf_sweep_result *result) {
    hst__esw w;
    hst_esrrf_desc d;
    double sc[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX][2];
    unsigned cnt[HST_ESRRF_SWEEP_MAX * HST_ESRRF_SWEEP_MAX][2];
    uint64_t ntp = 0, T, tp;
    double t0 = hst_time_s();
    hst_result r;
    memset(&w, 0, sizeof w);
    memset(sc, 0, sizeof sc);
    memset(cnt, 0, sizeof cnt);
    if (desc) {   /* AVG: the only statistic the sweep scores */
        d = *desc;
        d.modes = HST_ESRRF_AVG;
    }
    if ((r = hst__edesc(desc ? &d : NULL, &w.d)) != HST_SUCCESS || (r = hst__esw_check(&w, sweep, result)) != HST_SUCCESS ||
        (r = hst__eframe(&w.d, dtype, rows, cols)) != HST_SUCCESS || (r = hst__eshape(&w.d, frames, rows, cols, &ntp)) != HST_SUCCESS)
        return r;
    if (!stack) return hst__null_arg(w.d.backends[0], "hst_esrrf_sweep", "stack is NULL");
    memset(result, 0, sizeof *result);
    T = hst__etp_len(&w.d, frames);
    hst__esw_sizes(&w, dtype, rows, cols);
    if ((r = hst__esw_sides(&w, T)) != HST_SUCCESS) return r;
    if ((r = hst__esw_poll(&w)) != HST_SUCCESS) return r;   /* interrupted before: at once */
    w.steps = (ntp - 1) * hst__esw_tp_steps(&w, T) + hst__esw_tp_steps(&w, frames - (ntp - 1) * T);
    r = hst__esw_open(&w, T);
    for (tp = 0; tp < ntp && r == HST_SUCCESS; tp++) {
        uint64_t a = tp * T, b = a + T < frames ? a + T : frames;
        double ts = hst_time_s();
        if ((r = hst__esw_pass(&w, (const unsigned char *)stack, a, b)) == HST_SUCCESS) r = hst__esw_read(&w);
        if (r == HST_SUCCESS) hst__esw_mean(&w, b - a);
        result->pass_seconds += hst_time_s() - ts;
        ts = hst_time_s();
        if (r == HST_SUCCESS) r = hst__esw_timepoint(&w, tp, b - a, images, sc, cnt);
        result->score_seconds += hst_time_s() - ts;
    }
    if (r == HST_SUCCESS) {
        hst__esw_qnr(&w, sc, cnt, result);
        result->timepoints = ntp;
    }
    hst__esw_close(&w);
    result->seconds = hst_time_s() - t0;
    return r;
}

/* >>live ------------------------------------------------------------------------------------- */
/* Two staging buffers of (1 + cap) frames: slot 0 holds the frame before the first pushed one
   (the lag-1 product of a piece that starts inside a time point). Pushes fill one while the
   worker runs the other. On OpenCL devices they are pinned memory (hst__elive_staging), so that
   each piece's first block goes up to a GPU by DMA at once rather than through the driver's
   staging while the device waits. Pageable buffers (the host device) are freed by finish while
   the worker still works (the idle one during the last piece, the last piece's once its frames
   are read, during the delivery): a session counts from its first push, and freeing a gigabyte
   of pages costs tens of milliseconds. */
struct hst_esrrf_live {
    hst__eng e;
    hst_thread worker;
    int worker_started;
    hst_mutex mu;
    hst_cond cv;
    unsigned char *stage[2];
    hst_buffer *pin[2];             /* the pinned buffer stage[k] lies in, or NULL (pageable) */
    int pin_kept;                   /* pin[] are the backend's kept pair (hst__ekept) */
    uint64_t cap;                   /* frames per staging buffer (after slot 0) */
    int fill;                       /* the buffer pushes write */
    uint64_t first;                 /* acquisition index of the fill buffer's slot 1 */
    uint64_t count;                 /* frames in the fill buffer */
    int has_prev;                   /* slot 0 of the fill buffer holds frame first - 1 */
    /* the job handed to the worker */
    int job;                        /* 1: run job_buf, 0: none */
    int job_released;               /* the job's frames are read (its buffer may be freed) */
    int job_buf;
    uint64_t job_first, job_count;
    unsigned job_skip;
    int quit;
    double first_push_s;            /* hst_time_s() of the first push; 0 before it */
    hst_result err;                 /* the worker's first failure (under mu) */
    int state;                      /* HST__ELIVE_*: changed by push and finish only */
    hst_result failed_with;         /* the failure that made the state FAILED */
    hst_backend *held[HST_STREAM_MAX_BACKENDS];   /* the backends this session holds (the */
    unsigned nheld;                 /* caller's desc.backends need not outlive create) */
};

/* The worker: runs each job handed to it; the report's worker_idle_seconds counts its waits
   from the first push on. */
static void *hst__elive_main(void *p) {
    hst_esrrf_live *lv = (hst_esrrf_live *)p;
    hst_mutex_lock(&lv->mu);
    for (;;) {
        hst_result r;
        double t0 = hst_time_s();
        while (!lv->job && !lv->quit) hst_cond_wait(&lv->cv, &lv->mu);
        if (lv->first_push_s > 0)
            lv->e.rep.worker_idle_seconds += hst_time_s() - (t0 > lv->first_push_s ? t0 : lv->first_push_s);
        if (!lv->job) break;
        hst_mutex_unlock(&lv->mu);
        hst__elock(lv->held, lv->nheld, 1);   /* other sessions' workers may share a backend */
        r = hst__erun_frames(&lv->e, lv->stage[lv->job_buf] + (lv->job_skip ? 0 : lv->e.in_frame_bytes),
                             lv->job_first, lv->job_first + lv->job_count, lv->job_skip);
        hst__elock(lv->held, lv->nheld, 0);
        hst_mutex_lock(&lv->mu);
        if (r != HST_SUCCESS && lv->err == HST_SUCCESS) lv->err = r;
        lv->job = 0;
        hst_cond_broadcast(&lv->cv);
    }
    hst_mutex_unlock(&lv->mu);
    return NULL;
}

/* The engine's piece_ran: the job's last piece has run, so its staging buffer is read. */
static void hst__elive_ran(void *user, uint64_t end) {
    hst_esrrf_live *lv = (hst_esrrf_live *)user;
    hst_mutex_lock(&lv->mu);
    if (lv->job && end == lv->job_first + lv->job_count) {
        lv->job_released = 1;
        hst_cond_broadcast(&lv->cv);
    }
    hst_mutex_unlock(&lv->mu);
}

/* The session's states (esrrf.h's top comment on the live API): pushes are taken while OPEN;
   a successful finish makes it FINISHED, any failure FAILED; in both only destroy remains. */
enum { HST__ELIVE_OPEN, HST__ELIVE_FINISHED, HST__ELIVE_FAILED };

/* A call of push or finish in the wrong state: refused, logged. */
static hst_result hst__elive_state(const hst_esrrf_live *lv, const char *fn) {
    if (lv->state == HST__ELIVE_FINISHED)
        return hst__state_arg(lv->e.log_be, fn, "the session is finished (hst_esrrf_live_finish succeeded): "
                              "only hst_esrrf_live_destroy remains");
    if (lv->state == HST__ELIVE_FAILED)
        return hst__state_arg(lv->e.log_be, fn, "the session failed earlier (%s): only hst_esrrf_live_destroy remains",
                              hst_result_string(lv->failed_with));
    return HST_SUCCESS;
}

/* The result of a push or finish moves the session: a failure makes it FAILED. */
static hst_result hst__elive_after(hst_esrrf_live *lv, hst_result r) {
    if (r != HST_SUCCESS) {
        lv->state = HST__ELIVE_FAILED;
        lv->failed_with = r;
    }
    return r;
}

/* The session holds each of the desc's backends once: destroying one under it is refused. */
static hst_result hst__elive_hold(hst_esrrf_live *lv) {
    const hst_esrrf_desc *d = &lv->e.d;
    hst_result r;
    unsigned k, i;
    for (k = 0; k < d->num_backends; k++) {
        for (i = 0; i < lv->nheld && lv->held[i] != d->backends[k]; i++) {}
        if (i < lv->nheld) continue;
        if ((r = hst_backend_hold(d->backends[k], lv, "hst_esrrf_live")) != HST_SUCCESS) return r;
        lv->held[lv->nheld++] = d->backends[k];
    }
    return HST_SUCCESS;
}

/* Waits until the worker has no job, adding the wait to *seconds. Called with mu held. */
static void hst__elive_wait_idle(hst_esrrf_live *lv, double *seconds) {
    double t0 = hst_time_s();
    while (lv->job) hst_cond_wait(&lv->cv, &lv->mu);
    *seconds += hst_time_s() - t0;
}

/* Hands `n` frames of the fill buffer to the idle worker (hst__elive_wait_idle first) and
   starts the other buffer, keeping `keep` frames (with T = 0 the newest frame waits for finish:
   only then is it known to be the last, whose value the TAC2 statistic needs). Called with mu
   held. */
static void hst__elive_handoff(hst_esrrf_live *lv, uint64_t n) {
    uint64_t keep = lv->count - n;
    size_t fb = lv->e.in_frame_bytes;
    unsigned char *old, *nxt;
    if (lv->err != HST_SUCCESS || n == 0) return;
    old = lv->stage[lv->fill];
    nxt = lv->stage[1 - lv->fill];
    /* the new buffer: slot 0 = the frame before its first, then the kept frames */
    memcpy(nxt, old + (size_t)n * fb, fb);
    if (keep) memcpy(nxt + fb, old + (size_t)(n + 1) * fb, (size_t)keep * fb);
    lv->job = 1;
    lv->job_released = 0;
    lv->job_buf = lv->fill;
    lv->job_first = lv->first;
    lv->job_count = n;
    lv->job_skip = lv->has_prev;
    lv->fill = 1 - lv->fill;
    lv->first += n;
    lv->count = keep;
    lv->has_prev = 1;
    lv->e.rep.handoffs++;
    if (n > lv->e.rep.handoff_frames_max) lv->e.rep.handoff_frames_max = n;
    hst_cond_broadcast(&lv->cv);
}

/* Frees the staging buffers that no job reads any more (at finish: no push follows). Called
   with mu held; the frees run without it, beside the worker. */
static void hst__elive_free_staging(hst_esrrf_live *lv) {
    int k;
    for (k = 0; k < 2; k++) {
        unsigned char *b = lv->stage[k];
        if (!b || lv->pin[k] || (lv->job && !lv->job_released && k == lv->job_buf)) continue;
        lv->stage[k] = NULL;
        hst_mutex_unlock(&lv->mu);
        hst_backend_free(lv->e.log_be, b);
        hst_mutex_lock(&lv->mu);
    }
}

/* Hands off what fills a piece: the buffer is full, or a time point ends in it. A full buffer
   keeps its newest frame back: it may be the acquisition's last (known at finish only), which
   closes a shorter last time point (its value is the TAC2 statistic's last). */
static void hst__elive_maybe_handoff(hst_esrrf_live *lv) {
    uint64_t T = lv->e.d.frames_per_timepoint, n, end = lv->first + lv->count;
    if (T && end / T > lv->first / T) n = end / T * T - lv->first;   /* up to the last complete time point */
    else if (lv->count < lv->cap && (lv->job || lv->count < lv->e.block + 1)) return;   /* an idle
                                           worker takes a block at once (the first ones) */
    else n = lv->count - 1;
    hst__elive_wait_idle(lv, &lv->e.rep.push_wait_seconds);
    hst__elive_handoff(lv, n);
}

/* The pinned staging of live sessions, kept on their first backend from one session to the
   next (hst__ekept). */
#define HST__ELIVE_EXTENSION "esrrf_live"

/* The two staging buffers of `bytes`: pinned on an OpenCL device (a GPU's uploads cross a bus;
   on a CPU device it is plain host memory either way), pageable on the host device, and
   pageable where the pinned memory cannot be had (it counts against the device's memory limit:
   its error is logged, and the session runs slower rather than not at all). */
static hst_result hst__elive_staging(hst_esrrf_live *lv, size_t bytes) {
    hst_backend *be = lv->e.log_be;
    int k;
    if (!hst_backend_is_host(be)) {
        if (hst__ekept_take(be, HST__ELIVE_EXTENSION, 2, bytes, lv->pin, &lv->pin_kept) == HST_SUCCESS) {
            for (k = 0; k < 2; k++) lv->stage[k] = (unsigned char *)hst_buffer_host_ptr(lv->pin[k]);
            return HST_SUCCESS;
        }
    }
    for (k = 0; k < 2; k++) {
        if (!(lv->stage[k] = (unsigned char *)hst_backend_alloc(be, bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        hst_parallel_memset(lv->stage[k], 0, bytes);   /* its pages now, not while frames arrive */
    }
    return HST_SUCCESS;
}

/* The first piece's stream, made now rather than while frames arrive (its ring's allocation is
   the slowest part of a stream's start: a tenth of a second or more for gigabytes on a GPU). With
   several kinds of backends the shares are not known yet: they make theirs on first use. */
static hst_result hst__elive_prepare(hst_esrrf_live *lv) {
    hst__eng *e = &lv->e;
    hst__estream *es;
    unsigned pick = 0;
    hst_result r;
    uint64_t T = e->d.frames_per_timepoint, n[2];
    int path;
    unsigned k;
    if (e->ngrp != 1) return HST_SUCCESS;
    if (e->d.path == HST_ESRRF_PATH_CHAINED) pick = 1;
    else if (e->d.path == HST_ESRRF_PATH_AUTO && (r = hst__eknown_pick(e, &pick)) != HST_SUCCESS) return r;
    path = pick == 1 ? HST__E_CHAINED : HST__E_FUSED;
    /* pieces (hst__elive_maybe_handoff): T < cap: T frames from a time point's start; else
       the first cap - 1 frames, then cap - 1 frames after the one before (an idle worker's
       shorter pieces reuse these streams: hst__estream_get) */
    n[0] = T && T < lv->cap ? T : lv->cap - 1;
    n[1] = T && T < lv->cap ? T : lv->cap;
    if (!e->grp[0].lag) n[1] = n[0];   /* no frame before: the piece alone */
    for (k = 2; k-- > 0;)   /* n[1] >= n[0]: the longer first, which the shorter then reuses */
        if ((r = hst__estream_get(e, &e->grp[0], path, n[k], &es)) != HST_SUCCESS) return r;
    return HST_SUCCESS;
}

static hst_result hst__elive_create(const hst_esrrf_desc *desc, hst_esrrf_dtype dtype,
                                    uint32_t rows, uint32_t cols, hst_esrrf_live **out) {
    hst_esrrf_live *lv;
    hst_result r;
    size_t bytes;
    int k;
    if (!out) return hst__null_arg(desc && desc->backends && desc->num_backends ? desc->backends[0] : NULL, "hst_esrrf_live_create", "out is NULL");
    *out = NULL;
    if (!(lv = (hst_esrrf_live *)calloc(1, sizeof *lv))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    r = hst__eopen(&lv->e, desc, dtype, rows, cols, 0, 0, 0);
    if (r == HST_SUCCESS) r = hst__elive_hold(lv);
    if (r == HST_SUCCESS && lv->e.d.mpi_comm)
        r = hst__bad_arg(lv->e.log_be, "hst_esrrf_live_create",
                      "desc.mpi_comm is set: the live API runs in one process");
    if (r == HST_SUCCESS && !lv->e.d.on_timepoint)
        r = hst__null_arg(lv->e.log_be, "hst_esrrf_live_create",
                      "desc.on_timepoint is NULL: the live API delivers its images through it");
    lv->cap = lv->e.block * HST_ESRRF_LIVE_BLOCKS;
    if (r == HST_SUCCESS && (lv->cap + 1 > SIZE_MAX / lv->e.in_frame_bytes))
        r = hst_backend_fail(lv->e.log_be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_esrrf_live_create", "staging overflows size_t");
    bytes = r == HST_SUCCESS ? (size_t)(lv->cap + 1) * lv->e.in_frame_bytes : 0;
    if (r == HST_SUCCESS) r = hst__elive_staging(lv, bytes);
    for (k = 0; k < HST_ESRRF_NUM_MODES && r == HST_SUCCESS; k++)   /* the images' pages too: */
        if (lv->e.img[k]) hst_parallel_memset(lv->e.img[k], 0, lv->e.pixels * sizeof(float));   /* not at the end */
    lv->e.piece_ran = hst__elive_ran;
    lv->e.piece_ran_user = lv;
    if (r == HST_SUCCESS) {
        (void)hst_mutex_init(&lv->mu);
        (void)hst_cond_init(&lv->cv);
        lv->worker_started = hst_thread_create(&lv->worker, hst__elive_main, lv);
        if (!lv->worker_started) {
            hst_mutex_destroy(&lv->mu);
            hst_cond_destroy(&lv->cv);
            r = hst_backend_fail(lv->e.log_be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, "hst_esrrf_live_create",
                          "no worker thread");
        }
    }
    if (r == HST_SUCCESS) r = hst__elive_prepare(lv);
    if (r != HST_SUCCESS) { hst_esrrf_live_destroy(lv); return r; }
    *out = lv;
    return HST_SUCCESS;
}

HST__EDEF hst_result hst_esrrf_live_create(const hst_esrrf_desc *desc, hst_esrrf_dtype dtype,
                                           uint32_t rows, uint32_t cols, hst_esrrf_live **out) {
    unsigned nb = hst__elock_count(desc);
    hst_result r;
    hst__elock(nb ? desc->backends : NULL, nb, 1);
    r = hst__elive_create(desc, dtype, rows, cols, out);
    hst__elock(nb ? desc->backends : NULL, nb, 0);
    return r;
}

HST__EDEF hst_result hst_esrrf_live_push(hst_esrrf_live *lv, const void *frames, uint64_t count,
                                         uint32_t rows, uint32_t cols) {
    const unsigned char *src = (const unsigned char *)frames;
    size_t fb;
    hst_result r;
    if (!lv) return hst__null_arg(NULL, "hst_esrrf_live_push", "lv is NULL");
    if ((r = hst__elive_state(lv, "hst_esrrf_live_push")) != HST_SUCCESS) return r;
    if (count == 0)
        return hst__zero_arg(lv->e.log_be, "hst_esrrf_live_push",
                         "count is 0: push at least one frame");
    if (rows != lv->e.rows || cols != lv->e.cols)
        return hst_backend_fail(lv->e.log_be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_esrrf_live_push",
                         "frames of %u x %u pixels; the session's are %u x %u", rows, cols,
                         lv->e.rows, lv->e.cols);
    if (!frames) return hst__null_arg(lv->e.log_be, "hst_esrrf_live_push", "frames is NULL");
    fb = lv->e.in_frame_bytes;
    hst_mutex_lock(&lv->mu);
    if (lv->first_push_s == 0) lv->first_push_s = hst_time_s();
    while (count && lv->err == HST_SUCCESS) {
        uint64_t k = lv->cap - lv->count;
        unsigned char *dst = lv->stage[lv->fill] + (size_t)(1 + lv->count) * fb;
        double t0;
        if (k > count) k = count;
        /* The fill buffer and its count are the pushing thread's alone: the copy runs without
           the lock, which the worker needs between pieces (held during copies, it left an H100
           idle for 30 ms after each hand-off while a camera-speed pusher filled the buffer). */
        hst_mutex_unlock(&lv->mu);
        t0 = hst_time_s();
        memcpy(dst, src, (size_t)k * fb);
        t0 = hst_time_s() - t0;
        hst_mutex_lock(&lv->mu);
        lv->e.rep.push_copy_seconds += t0;
        lv->count += k;
        src += (size_t)k * fb;
        count -= k;
        hst__elive_maybe_handoff(lv);
    }
    r = lv->err;
    hst_mutex_unlock(&lv->mu);
    return hst__elive_after(lv, r);
}

/* Finish's wait for the last piece, freeing the staging meanwhile. Called with mu held. */
static void hst__elive_finish_wait(hst_esrrf_live *lv) {
    double t0 = hst_time_s();
    hst__elive_free_staging(lv);   /* the buffer pushes filled: idle now */
    while (lv->job && !lv->job_released) hst_cond_wait(&lv->cv, &lv->mu);
    hst__elive_free_staging(lv);   /* the last piece's: read, while the worker delivers */
    while (lv->job) hst_cond_wait(&lv->cv, &lv->mu);
    lv->e.rep.finish_wait_seconds += hst_time_s() - t0;
}

HST__EDEF hst_result hst_esrrf_live_finish(hst_esrrf_live *lv, hst_esrrf_report *report) {
    uint64_t T, total;
    char names[64];
    hst_result r;
    if (!lv) return hst__null_arg(NULL, "hst_esrrf_live_finish", "lv is NULL");
    if ((r = hst__elive_state(lv, "hst_esrrf_live_finish")) != HST_SUCCESS) return r;
    hst_mutex_lock(&lv->mu);
    T = lv->e.d.frames_per_timepoint;
    total = lv->first + lv->count;
    hst__elive_wait_idle(lv, &lv->e.rep.finish_wait_seconds);
    if (total == 0 && lv->err == HST_SUCCESS)
        lv->err = hst__zero_arg(lv->e.log_be, "hst_esrrf_live_finish",
                            "no frames were pushed");
    if (lv->e.roll_w > total && total && lv->err == HST_SUCCESS)
        lv->err = hst__range_arg(lv->e.log_be, "hst_esrrf_live_finish",
                            "frames_per_timepoint %llu: the rolling window is larger than the %llu frames pushed",
                            (unsigned long long)lv->e.roll_w, (unsigned long long)total);
    if ((!T || T > total) && total < 2 && (lv->e.d.modes & HST__E_TWO_FRAME_MODES) && lv->err == HST_SUCCESS)
        lv->err = hst__range_arg(lv->e.log_be, "hst_esrrf_live_finish",
                            "modes %s need at least 2 frames; %llu pushed",
                            hst__emode_list(lv->e.d.modes & HST__E_TWO_FRAME_MODES, names, sizeof names),
                            (unsigned long long)total);
    if (lv->err == HST_SUCCESS) {   /* the rest: now the total is known */
        lv->e.frames_total = total;
        if (T > total) hst__eclamp(&lv->e, total);
        hst__elive_handoff(lv, lv->count);
        hst__elive_finish_wait(lv);
    }
    r = lv->err;
    hst_mutex_unlock(&lv->mu);
    if (hst__elive_after(lv, r) == HST_SUCCESS) lv->state = HST__ELIVE_FINISHED;
    if (r == HST_SUCCESS && lv->e.d.progress && lv->e.d.progress(total, total, lv->e.d.progress_user))
        r = HST_ERROR_CANCELLED;   /* every image is delivered: the session stays FINISHED */
    hst__elock(lv->held, lv->nheld, 1);   /* the choice op's statistics are the backend's */
    hst__ereport(&lv->e);
    hst__elock(lv->held, lv->nheld, 0);
    lv->e.rep.seconds = hst_time_s() - lv->e.t0;
    if (report) *report = lv->e.rep;
    return r;
}

HST__EDEF void hst_esrrf_live_destroy(hst_esrrf_live *lv) {
    hst_backend *held[HST_STREAM_MAX_BACKENDS];
    unsigned nheld;
    int k;
    if (!lv) return;
    if (lv->worker_started) {
        hst_mutex_lock(&lv->mu);
        lv->quit = 1;
        hst_cond_broadcast(&lv->cv);
        hst_mutex_unlock(&lv->mu);
        hst_thread_join(&lv->worker);
        hst_mutex_destroy(&lv->mu);
        hst_cond_destroy(&lv->cv);
    }
    nheld = lv->nheld;
    memcpy(held, lv->held, sizeof held);
    hst__elock(held, nheld, 1);
    if (lv->pin[0]) hst__ekept_give(lv->e.log_be, HST__ELIVE_EXTENSION, 2, lv->pin, &lv->pin_kept);
    else
        for (k = 0; k < 2; k++)
            if (lv->e.log_be) hst_backend_free(lv->e.log_be, lv->stage[k]);
    for (k = 0; k < (int)lv->nheld; k++) hst_backend_release_hold(lv->held[k], lv);
    hst__eclose(&lv->e);
    free(lv);
    hst__elock(held, nheld, 0);
}

#ifdef __cplusplus
}
#endif
#endif /* HST_ESRRF_IMPLEMENTATION */

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
