/* mpi-ranks: 1 2 3 4 */
/* tests/mpi_esrrf.c — esrrf.h over MPI ranks (desc.mpi_comm): the images of the shipped stack
   (examples/data, all 50 frames, a 64 x 64 crop so that every rank count runs in seconds on two
   cores) equal one process's bit for bit, AVG, VAR and TAC2 from one pass, with one time point
   and with several (a shorter last time point, as NanoPyx), frames_per_timepoint above the
   frames clamped, macro-pixel correction on and off; rank 0's on_timepoint sees the whole
   images of one process, in order; a failure
   on one rank (a bad argument there only, a non-finite pixel in its copy of the stack, a cancel
   by rank 0's progress callback) returns the same code on every rank, and the other ranks log
   HST_LOGITEM_RANK_FAILED naming it; a non-finite image pixel (finite input too large for the
   statistics) in the last rank's rows, or in the middle rows and rank 0's of one time point,
   is named as one process names it (the first in time point, mode, row-major order across the
   ranks' rows), by rank 0 alone, with the callbacks of one process before it; 25 time points
   (more of the gather's messages than it keeps in flight) give one process's bits; zero frames
   is INVALID_ARGUMENT on every rank. Every rank
   checks; rank 0 prints TAP. Run by tests/run.sh (stage "mpi") under mpirun with the ranks
   above, on every device (HST_DEVICE's, the same on every rank). */
#define _POSIX_C_SOURCE 200809L   /* image_io.h: fdopen, mkstemp in strict C99 */
#define HST_IMPLEMENTATION
#define HST_ESRRF_MPI
#include "esrrf.h"

#define IMAGE_IO_IMPLEMENTATION
#include "../examples/image_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_tap.h"

#define STACK "examples/data/fkbp_confocal_50x256x256_u8.tif"
#define CROP 64          /* rows and columns of the crop, from the stack's centre */
#define MAG 5

static int rank_failed_logged;   /* HST_LOGITEM_RANK_FAILED seen on this rank */
static int zero_size_logged;     /* HST_LOGITEM_ZERO_SIZE seen on this rank */
static char non_finite_msg[512]; /* the last HST_LOGITEM_NON_FINITE message on this rank */


static void logger(void *user, hst_log_level level, hst_log_item item, const char *msg)
{
    (void)user; (void)msg;
    if (level == HST_LOG_ERROR && item == HST_LOGITEM_RANK_FAILED) rank_failed_logged = 1;
    if (level == HST_LOG_ERROR && item == HST_LOGITEM_ZERO_SIZE) zero_size_logged = 1;
    if (level == HST_LOG_ERROR && item == HST_LOGITEM_NON_FINITE)
        snprintf(non_finite_msg, sizeof non_finite_msg, "%s", msg);
}

/* The centre CROP x CROP of every frame of the shipped stack, as u8 samples. */
static unsigned char *crop_stack(uint64_t *frames)
{
    io_stack st;
    char err[512];
    unsigned char *c;
    uint64_t z;
    uint32_t y, r0, c0;
    memset(&st, 0, sizeof st);
    if (!io_read_stack(STACK, 0, 0, &st, err, sizeof err) || st.dtype != 1 || st.rows < CROP || st.cols < CROP) {
        fprintf(stderr, "rank %d: %s: %s\n", me, STACK, err);
        io_stack_free(&st);
        return NULL;
    }
    r0 = (st.rows - CROP) / 2;
    c0 = (st.cols - CROP) / 2;
    c = (unsigned char *)malloc((size_t)st.frames * CROP * CROP);
    for (z = 0; c && z < st.frames; z++)
        for (y = 0; y < CROP; y++)
            memcpy(c + ((size_t)z * CROP + y) * CROP,
                   (const unsigned char *)st.data + ((size_t)z * st.rows + r0 + y) * st.cols + c0, CROP);
    *frames = st.frames;
    io_stack_free(&st);
    return c;
}

/* out[m]: time points of (CROP*MAG)^2 floats for each mode, zeroed. */
static void alloc_images(float **out, uint64_t ntp)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        out[m] = (float *)calloc((size_t)ntp * CROP * MAG * CROP * MAG, sizeof(float));
}

static void free_images(float **out)
{
    unsigned m;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) free(out[m]);
}

static void desc_init(hst_esrrf_desc *d, hst_backend **be, uint64_t T, int macro)
{
    memset(d, 0, sizeof *d);
    d->magnification = MAG;
    d->modes = HST_ESRRF_AVG | HST_ESRRF_VAR | HST_ESRRF_TAC2;
    d->frames_per_timepoint = T;
    d->no_macro_pixel_correction = !macro;
    d->backends = be;
    d->num_backends = 1;
}

/* The ranks' images against one process's (rank 0 computes both): every mode, every time
   point, bit for bit; the report's frame counts on every rank equal rank 0's. */
static int same_bits(hst_backend **be, const unsigned char *stack, uint64_t frames, uint64_t T, int macro)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    hst_esrrf_report rep, one_rep;
    float *ranks_out[HST_ESRRF_NUM_MODES], *one[HST_ESRRF_NUM_MODES];
    uint64_t per = T && T < frames ? T : frames, ntp = (frames + per - 1) / per, counts[3], mine[3];
    size_t bytes = (size_t)ntp * CROP * MAG * CROP * MAG * sizeof(float);
    unsigned m;
    int ok;
    alloc_images(ranks_out, ntp);
    desc_init(&d, be, T, macro);
    d.mpi_comm = &comm;
    ok = hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, me == 0 ? ranks_out : NULL, &rep) == HST_SUCCESS;
    mine[0] = rep.frames; mine[1] = rep.timepoints; mine[2] = rep.last_timepoint_frames;
    memcpy(counts, mine, sizeof counts);
    MPI_Bcast(counts, 3, MPI_UINT64_T, 0, comm);
    ok = ok && memcmp(counts, mine, sizeof counts) == 0 && rep.timepoints == ntp && rep.frames == frames &&
         rep.frames_per_timepoint == per && rep.last_timepoint_frames == frames - (ntp - 1) * per;
    if (me == 0) {
        alloc_images(one, ntp);
        d.mpi_comm = NULL;
        ok = ok && hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, one, &one_rep) == HST_SUCCESS;
        for (m = 0; ok && m < HST_ESRRF_NUM_MODES; m++) {
            ok = memcmp(one[m], ranks_out[m], bytes) == 0;
            if (!ok) fprintf(stderr, "mode %u differs from one process\n", m);
        }
        ok = ok && one_rep.frames == rep.frames && one_rep.timepoints == rep.timepoints;
        free_images(one);
    }
    free_images(ranks_out);
    return ok;
}

/* A failure on rank `bad` only: every rank returns `want`, and the others log RANK_FAILED. */
static int agreed(hst_result r, hst_result want, int bad)
{
    return r == want && (me == bad || rank_failed_logged);
}

static int one_rank_bad_argument(hst_backend **be, const unsigned char *stack, uint64_t frames)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES];
    int bad = nranks - 1;
    hst_result r;
    alloc_images(out, 1);
    desc_init(&d, be, 0, 1);
    d.mpi_comm = &comm;
    if (me == bad) d.radius = -1.0f;
    rank_failed_logged = 0;
    r = hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, out, NULL);
    free_images(out);
    return agreed(r, HST_ERROR_INVALID_ARGUMENT, bad);
}

/* The last rank's copy of the stack (as floats) holds an Inf: each rank reads every frame, so
   the rank that finds it fails and the others follow. */
static int one_rank_non_finite(hst_backend **be, const unsigned char *stack, uint64_t frames)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES], *f;
    size_t n = (size_t)frames * CROP * CROP, i;
    int bad = nranks - 1;
    hst_result r;
    if (!(f = (float *)malloc(n * sizeof(float)))) return 0;
    for (i = 0; i < n; i++) f[i] = (float)stack[i];
    if (me == bad) f[(size_t)7 * CROP * CROP + 5 * CROP + 9] = INFINITY;
    alloc_images(out, 1);
    desc_init(&d, be, 0, 1);
    d.modes = HST_ESRRF_AVG;
    d.mpi_comm = &comm;
    rank_failed_logged = 0;
    r = hst_esrrf_run(&d, f, HST_ESRRF_F32, frames, CROP, CROP, out, NULL);
    free_images(out);
    free(f);
    return agreed(r, HST_ERROR_NON_FINITE, bad);
}

/* Zero frames on every rank: every rank INVALID_ARGUMENT, each logging ZERO_SIZE for its own
   argument, no hang, and rank 0's images untouched (never a silent success). */
static int zero_frames(hst_backend **be, const unsigned char *stack)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES];
    size_t px = (size_t)CROP * MAG * CROP * MAG, i;
    unsigned m;
    int untouched = 1;
    hst_result r;
    alloc_images(out, 1);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        for (i = 0; out[m] && i < px; i++) out[m][i] = -7.0f;
    desc_init(&d, be, 0, 1);
    d.mpi_comm = &comm;
    zero_size_logged = 0;
    r = hst_esrrf_run(&d, stack, HST_ESRRF_U8, 0, CROP, CROP, out, NULL);
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++)
        for (i = 0; out[m] && i < px; i++) untouched &= out[m][i] == -7.0f;
    free_images(out);
    if (r != HST_ERROR_INVALID_ARGUMENT) fprintf(stderr, "rank %d: zero frames gave %s\n", me, hst_result_string(r));
    return r == HST_ERROR_INVALID_ARGUMENT && zero_size_logged && untouched;
}

/* The last rank passes one frame fewer than the others: every rank HST_ERROR_SHAPE, no hang. */
static int one_rank_other_shape(hst_backend **be, const unsigned char *stack, uint64_t frames)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES];
    int bad = nranks - 1;
    hst_result r;
    if (nranks < 2) return 1;
    alloc_images(out, 1);
    desc_init(&d, be, 0, 1);
    d.modes = HST_ESRRF_AVG;
    d.mpi_comm = &comm;
    r = hst_esrrf_run(&d, stack, HST_ESRRF_U8, me == bad ? frames - 1 : frames, CROP, CROP, out, NULL);
    free_images(out);
    return r == HST_ERROR_SHAPE;
}

/* More ranks than magnified rows (2 rows at mag 1): the ranks beyond the rows idle; the images
   and every rank's report equal one process's. */
static int more_ranks_than_rows(hst_backend **be, const unsigned char *stack)
{
    enum { R = 2, C = 16, F = 8 };
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    hst_esrrf_report rep, one_rep;
    float all[2 * R * C], one[2 * R * C];   /* 2 time points of 4 frames */
    float *out[HST_ESRRF_NUM_MODES] = { NULL, NULL, NULL };
    int ok;
    memset(&d, 0, sizeof d);
    d.magnification = 1;
    d.radius = 0.5f;
    d.frames_per_timepoint = 4;
    d.backends = be;
    d.num_backends = 1;
    d.mpi_comm = &comm;
    out[0] = all;
    ok = hst_esrrf_run(&d, stack, HST_ESRRF_U8, F, R, C, out, &rep) == HST_SUCCESS && rep.frames == F &&
         rep.timepoints == 2;
    if (me == 0) {
        d.mpi_comm = NULL;
        out[0] = one;
        ok = ok && hst_esrrf_run(&d, stack, HST_ESRRF_U8, F, R, C, out, &one_rep) == HST_SUCCESS &&
             memcmp(one, all, sizeof one) == 0;
    }
    return ok;
}

static int cancel_at_half(uint64_t done, uint64_t total, void *user)
{
    (void)user;
    return total && 2 * done >= total;
}

static int rank0_cancels(hst_backend **be, const unsigned char *stack, uint64_t frames)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES];
    hst_result r;
    alloc_images(out, 1);
    desc_init(&d, be, 0, 1);
    d.modes = HST_ESRRF_AVG;
    d.block_frames = 8;
    d.progress = cancel_at_half;
    d.mpi_comm = &comm;
    rank_failed_logged = 0;
    r = hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, out, NULL);
    free_images(out);
    return agreed(r, HST_ERROR_CANCELLED, 0);
}

/* What rank 0's on_timepoint saw: the calls, whether their time points came in order, and a
   copy of every image (time points of (CROP*MAG)^2 floats per mode). */
typedef struct seen {
    uint64_t calls;
    int in_order;
    float *img[HST_ESRRF_NUM_MODES];
    uint64_t ntp;
} seen;

static void on_timepoint(uint64_t tp, const float *const *images, uint32_t rows_mag, uint32_t cols_mag, void *user)
{
    seen *s = (seen *)user;
    size_t px = (size_t)rows_mag * cols_mag;
    unsigned m;
    s->in_order &= tp == s->calls && tp < s->ntp && px == (size_t)CROP * MAG * CROP * MAG;
    for (m = 0; s->in_order && m < HST_ESRRF_NUM_MODES; m++)
        if (images[m] && s->img[m]) memcpy(s->img[m] + tp * px, images[m], px * sizeof(float));
    s->calls++;
}

static void seen_init(seen *s, uint64_t ntp)
{
    memset(s, 0, sizeof *s);
    s->in_order = 1;
    s->ntp = ntp;
    alloc_images(s->img, ntp);
}

/* Two runs' callbacks the same: calls, order, images (bit for bit). */
static int same_seen(const seen *a, const seen *b)
{
    size_t bytes = (size_t)a->calls * CROP * MAG * CROP * MAG * sizeof(float);
    unsigned m;
    int ok = a->calls == b->calls && a->in_order && b->in_order;
    for (m = 0; ok && m < HST_ESRRF_NUM_MODES; m++) ok = memcmp(a->img[m], b->img[m], bytes) == 0;
    if (!ok) fprintf(stderr, "callbacks: %llu calls against %llu of one process\n", (unsigned long long)b->calls,
                     (unsigned long long)a->calls);
    return ok;
}

/* Rank 0's on_timepoint over the ranks sees one process's calls and images (4 time points). */
static int callbacks(hst_backend **be, const unsigned char *stack, uint64_t frames)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES];
    seen ranks, one;
    uint64_t T = 16, ntp = (frames + T - 1) / T;
    int ok;
    alloc_images(out, ntp);
    seen_init(&ranks, ntp);
    seen_init(&one, ntp);
    desc_init(&d, be, T, 1);
    d.on_timepoint = on_timepoint;
    d.timepoint_user = &ranks;
    d.mpi_comm = &comm;
    ok = hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, me == 0 ? out : NULL, NULL) == HST_SUCCESS;
    ok = ok && (me == 0 ? ranks.calls == ntp : ranks.calls == 0);
    if (me == 0) {
        d.mpi_comm = NULL;
        d.timepoint_user = &one;
        ok = ok && hst_esrrf_run(&d, stack, HST_ESRRF_U8, frames, CROP, CROP, out, NULL) == HST_SUCCESS &&
             same_seen(&one, &ranks);
    }
    free_images(out);
    free_images(ranks.img);
    free_images(one.img);
    return ok;
}

/* Two 3 x 3 patches of 3e38 in the crop: their first rows and frames. */
typedef struct patches {
    int row_a, frame_a, row_b, frame_b;
    uint64_t calls;   /* one process's callbacks before the first non-finite time point */
} patches;

/* The stack as floats with two patches of 3e38 (finite input whose statistics are not
   float32): at (row_a, column 30) in frame_a and at (row_b, column 20) in frame_b. */
static float *huge_patches(const unsigned char *stack, uint64_t frames, const patches *p)
{
    size_t n = (size_t)frames * CROP * CROP, i;
    float *f = (float *)malloc(n * sizeof(float));
    int y, x;
    for (i = 0; f && i < n; i++) f[i] = (float)stack[i];
    for (y = 0; f && y < 3; y++)
        for (x = 0; x < 3; x++) {
            f[((size_t)p->frame_a * CROP + p->row_a + y) * CROP + 30 + x] = 3e38f;
            f[((size_t)p->frame_b * CROP + p->row_b + y) * CROP + 20 + x] = 3e38f;
        }
    return f;
}

/* Every rank NON_FINITE; exactly one rank logs the pixel, with one process's words (the same
   pixel): rank 0, which checks the whole images, whichever rank's rows hold it; rank 0's
   callbacks are one process's (the time points before it, p->calls). */
static int non_finite_image(hst_backend **be, const unsigned char *stack, uint64_t frames, int macro,
                            const patches *p)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    hst_esrrf_desc d;
    float *out[HST_ESRRF_NUM_MODES], *f = huge_patches(stack, frames, p);
    char *msgs = NULL, one_msg[sizeof non_finite_msg];
    seen ranks, one;
    uint64_t T = 16, ntp = (frames + T - 1) / T;
    int ok, k, holder = -1, holders = 0;
    if (!f) return 0;
    alloc_images(out, ntp);
    seen_init(&ranks, ntp);
    seen_init(&one, ntp);
    desc_init(&d, be, T, macro);
    d.on_timepoint = on_timepoint;
    d.timepoint_user = &ranks;
    d.mpi_comm = &comm;
    non_finite_msg[0] = 0;
    rank_failed_logged = 0;
    ok = hst_esrrf_run(&d, f, HST_ESRRF_F32, frames, CROP, CROP, me == 0 ? out : NULL, NULL) == HST_ERROR_NON_FINITE;
    if (me == 0) msgs = (char *)calloc((size_t)nranks, sizeof non_finite_msg);
    MPI_Gather(non_finite_msg, (int)sizeof non_finite_msg, MPI_CHAR, msgs, (int)sizeof non_finite_msg, MPI_CHAR, 0, comm);
    ok = ok && (non_finite_msg[0] ? 1 : rank_failed_logged);   /* the others name the rank */
    if (me == 0) {
        d.mpi_comm = NULL;
        d.timepoint_user = &one;
        non_finite_msg[0] = 0;
        ok = ok && msgs && hst_esrrf_run(&d, f, HST_ESRRF_F32, frames, CROP, CROP, out, NULL) == HST_ERROR_NON_FINITE;
        memcpy(one_msg, non_finite_msg, sizeof one_msg);
        for (k = 0; ok && k < nranks; k++)
            if (msgs[(size_t)k * sizeof non_finite_msg]) { holder = k; holders++; }
        ok = ok && holders == 1 && one_msg[0] && strcmp(msgs + (size_t)holder * sizeof non_finite_msg, one_msg) == 0 &&
             holder == 0 && one.calls == p->calls && same_seen(&one, &ranks);
        if (!ok)
            fprintf(stderr, "non-finite: rank %d (of %d ranks that logged one) logged \"%s\"; one process \"%s\"\n",
                    holder, holders, holder >= 0 ? msgs + (size_t)holder * sizeof non_finite_msg : "", one_msg);
    }
    free(msgs);
    free_images(out);
    free_images(ranks.img);
    free_images(one.img);
    free(f);
    return ok;
}

int main(int argc, char **argv)
{
    /* the last rank's rows (the crop's bottom) in time point 1 of 16 frames, rank 0's (the top)
       in time point 2; the middle rows and rank 0's, both in time point 1 */
    const patches last_first = { CROP - 6, 20, 4, 40, 1 }, same_tp = { CROP / 2 + 1, 20, 4, 25, 1 };
    hst_backend *be = NULL;
    hst_backend_desc bd;
    unsigned char *stack;
    uint64_t frames = 0;
    int ok;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&bd, 0, sizeof bd);
    bd.logger = logger;
    stack = crop_stack(&frames);
    ok = stack && hst_backend_create(&bd, &be) == HST_SUCCESS;
    tap("the shipped stack read and a backend made", ok);
    if (!ok) {
        if (me == 0) printf("1..%d\n", ntest);
        MPI_Finalize();
        return 1;
    }
    tap("AVG, VAR, TAC2, one time point: the bits of one process", same_bits(&be, stack, frames, 0, 1));
    tap("several time points, a last one of the 2 frames left: the bits of one process",
        same_bits(&be, stack, frames, 16, 1));
    tap("frames_per_timepoint 64 above the 50 frames, clamped: the bits of one process",
        same_bits(&be, stack, frames, 64, 1));
    tap("no macro-pixel correction: the bits of one process", same_bits(&be, stack, frames, 25, 0));
    tap("rank 0's on_timepoint over the ranks: one process's calls and images", callbacks(&be, stack, frames));
    tap("an Inf image pixel in the last rank's rows, no correction: named as one process names it",
        non_finite_image(&be, stack, frames, 0, &last_first));
    tap("a non-finite pixel with the macro-pixel correction: named as one process names it",
        non_finite_image(&be, stack, frames, 1, &last_first));
    tap("non-finite pixels in the middle rows and in rank 0's, one time point: rank 0's named first",
        non_finite_image(&be, stack, frames, 0, &same_tp));
    tap("the same with the correction: named as one process names it",
        non_finite_image(&be, stack, frames, 1, &same_tp));
    tap("two frames per time point (25 x 3 images a rank, more than the gather's 64 in flight): one process's bits",
        same_bits(&be, stack, frames, 2, 1));
    tap("a bad radius on the last rank: every rank INVALID_ARGUMENT, the others name it",
        one_rank_bad_argument(&be, stack, frames));
    tap("an Inf in the last rank's stack: every rank NON_FINITE, the others name it",
        one_rank_non_finite(&be, stack, frames));
    tap("rank 0's progress cancels: every rank CANCELLED", rank0_cancels(&be, stack, frames));
    tap("one frame fewer on the last rank: every rank SHAPE", one_rank_other_shape(&be, stack, frames));
    tap("zero frames on every rank: every rank INVALID_ARGUMENT (ZERO_SIZE), no output written",
        zero_frames(&be, stack));
    tap("more ranks than magnified rows: the bits and report of one process", more_ranks_than_rows(&be, stack));
    if (me == 0) printf("1..%d\n", ntest);
    if (hst_backend_destroy(be) != HST_SUCCESS) nfail++;   /* logged, naming what holds it */
    free(stack);
    MPI_Finalize();
    return nfail != 0;
}
