/* stream.h — halostream's out-of-core engine: streams slice-major arrays larger than device memory
   through a chain of kernels in blocks of slices, with uploads, compute and downloads overlapped,
   on one or several devices of one process, or over the ranks of an MPI communicator.
   Single-file, header-only, C99 (and C++). Replaces PyQMRI's Stream and fixes its defects.

   Do this:
       #define HST_IMPLEMENTATION
   before you include this file in *exactly one* C or C++ file (it compiles the bodies of every
   halostream header included there). Other files include it without the macro.

   Usage (y = 2 x + 1 over a volume of N slices of 512 x 512 floats, under a 256 MiB budget):

       // given: hst_backend *be; float *x, *y; uint64_t N; const char *my_cl_source;
       // given: hst_stream_host_fn affine_host;   // the kernel's host twin
       hst_stream_desc desc = {0};
       hst_stream *s;
       hst_stream_array arrays[2] = {{0}};
       hst_stream_stage stage = {0};
       const int in[1] = {0}, out[1] = {1};
       arrays[0].kind = HST_STREAM_INPUT;  arrays[0].host = x; arrays[0].slice_bytes = 512*512*4;
       arrays[1].kind = HST_STREAM_OUTPUT; arrays[1].host = y; arrays[1].slice_bytes = 512*512*4;
       stage.sources = &my_cl_source; stage.num_sources = 1; stage.kernel = "affine";
       stage.host = affine_host; stage.items_per_slice = 512 * 512;
       stage.num_inputs = 1; stage.inputs = in; stage.num_outputs = 1; stage.outputs = out;
       desc.backends = &be; desc.num_backends = 1; desc.num_slices = N; desc.budget_bytes = 256 << 20;
       desc.arrays = arrays; desc.num_arrays = 2; desc.stages = &stage; desc.num_stages = 1;
       hst_result r = hst_stream_create(&desc, &s);
       if (r == HST_SUCCESS) { r = hst_stream_run(s, NULL); hst_stream_destroy(s); }
       if (r != HST_SUCCESS) return 1;            // the backend's log says why

   Options (macros)                     matters in
     HST_IMPLEMENTATION                 the implementation TU: compile every header's body
     HST_STREAM_IMPLEMENTATION          the implementation TU: compile stream.h's body only
     HST_STREAM_MPI                     the implementation TU: streams over MPI ranks
                                        (desc.mpi_comm; includes mpi.h, link MPI). The
                                        declarations do not depend on it (mpi_comm is a pointer);
                                        without it a non-NULL mpi_comm is refused
     HST_NO_OPENCL, HST_STATIC, HST_API as in backend.h

   Reference (every public function, by group; each is documented at its declaration)
     Streams
       hst_stream_create            checks a description, builds its kernels, allocates the rings
       hst_stream_run               runs the chain over all N slices (blocking)
       hst_stream_destroy           frees a stream (collective over MPI ranks)
     Between runs
       hst_stream_set_array         replaces one array's caller memory
       hst_stream_set_arrays        replaces several at once (all or nothing)
       hst_stream_set_pinned_arrays replaces pinned arrays
       hst_stream_set_num_slices    runs the next runs over fewer (or again all) slices
     Blocks, devices, ranks
       hst_stream_block_query       the block create would take, asked before creating
       hst_stream_block_slices      the block a stream uses
       hst_stream_copy_model        a device's copy overhead and speed (the default block's rule)
       hst_stream_copy_op           the choice registry's operation holding that model
       hst_stream_choice_op         the operation splitting slices across devices
       hst_stream_rank_range        the slices this MPI rank owns and holds
     Pinned arrays (caller arrays beyond one device allocation)
       hst_stream_pinned_create     makes one, in chunks of whole slices
       hst_stream_pinned_destroy    frees it
       hst_stream_pinned_host       the whole array as one pointer, where it is one
       hst_stream_pinned_slice      the address of one slice, and the slices contiguous from it
       hst_stream_pinned_chunk_slices, hst_stream_pinned_chunks   its chunking
       hst_stream_pinned_write, hst_stream_pinned_read            copies slices in or out
     The stream kernel family (kernels_stream.h, included here): hst_kernels_stream_family and
     HST_STREAM_KERNELS (a stage's family and family_kernel), hst_kernels_stream_source.

   What it does NOT do: it does not split a slice (a slice of every array must fit a block); it
   does not reorder stages; it does not run two streams' blocks interleaved (one run at a time per
   stream); a stream is used by one thread at a time (two threads may run two streams made on
   their own backends). Over MPI ranks it moves no slices between ranks (each rank reads the
   halo slices of its range from its own caller memory: the caller loads them there), it does
   not change a stream's split across ranks after create (a new stream splits by newer
   timings), it does not combine GLOBAL arrays given as caller buffers (nor does it across
   devices), and it cannot notice a rank that never calls (every rank must call create, run and
   destroy, with the same communicator).

   Several devices: each gets one contiguous range of slices, in proportion to its speed. The
   speeds come from choice.h's registry (that of backends[0]): the stream registers a
   timings-only operation "stream_split_<16 hex digits>" (a hash of the chain and the devices),
   one implementation "d0", "d1", ... per device, with one signature integer, the bytes per
   slice; every successful run records each device's seconds per slice, and each split uses the
   registry's estimate (lower median of recent runs, kept in its timings file across processes).
   See hst_stream_desc.weights and hst_stream_choice_op.

   Several ranks (HST_STREAM_MPI and desc.mpi_comm): hst_stream_create, hst_stream_run and
   hst_stream_destroy become collective over the communicator (the stream works on a private
   duplicate of it, so its messages never meet the caller's). At create the N slices are split
   across the ranks in contiguous ranges in rank order, in proportion to each rank's measured
   speed when every rank has one (the sum over its devices of 1 / seconds per slice in the
   split operation's timings of earlier runs of this chain on these devices: see
   hst_stream_choice_op), else equally; every rank gets at least one slice when N >= ranks, and
   a rank without slices takes part in the collectives and does nothing else. The split is
   fixed for the stream's life. Each rank streams its range on its own backends exactly as one
   process does (several devices split the rank's range as above) and holds in memory only its
   range plus the chain's halo slices on either side: hst_stream_rank_range gives both, and
   every sliced array's caller memory on a rank starts at global slice load_begin (leave it
   NULL at create, then give it with hst_stream_set_array(s)). The results are the same bits
   as one process:
     outputs       each slice is computed from the same slices with the same global indices;
     accumulators  every rank's per-slice values are gathered on every rank (MPI_Allgatherv)
                   and summed in slice order there, as one process sums them;
     GLOBAL arrays rank 0 starts from the caller's contents (on its device 0), every other rank
                   and device from zeros; the copies are added element-wise in dtype, device by
                   device in rank order (a pipeline rank 0 -> 1 -> ... -> last, then a
                   broadcast from the last: never MPI_Allreduce, whose order is unspecified),
                   and every rank's caller array gets the total. That is the sum one process
                   makes with the same devices in that order; where every update is exact
                   (integer-valued data) it equals any one process's. On the host device a
                   rank's backends update one copy one after the other (as in one process), so
                   there a rank adds one copy: its own slices' updates from zeros (rank 0: from
                   the caller's contents). A rank without slices adds nothing.
   A failure on any rank (a bad argument, out of memory, a host twin's error, a cancel) ends
   create or run on every rank with the same code, the first failing rank's: the ranks compare
   outcomes with one MPI_Allreduce at the end of each phase, all of them reaching the same
   collectives, and the other ranks log HST_LOGITEM_RANK_FAILED naming it. Reports and progress
   are per rank (see hst_stream_report and hst_stream_progress_fn).

   Thread safety: each function's comment ends with its class, in backend.h's words (see its
   top comment); a stream counts as an object of every backend it was made with.

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (the full text at the
   end of this file). */

#ifndef HST_STREAM_H
#define HST_STREAM_H

#include "backend.h"
#include "choice.h"   /* the stream copy model and several devices' shares (hst_choice_*) */

#if defined(HST_IMPLEMENTATION) && !defined(HST_STREAM_IMPLEMENTATION)
#  define HST_STREAM_IMPLEMENTATION
#endif
/* The stream kernel family: compiled where stream.h's implementation is. */
#if defined(HST_STREAM_IMPLEMENTATION) && !defined(HST_KERNELS_STREAM_IMPLEMENTATION)
#  define HST_KERNELS_STREAM_IMPLEMENTATION
#endif
#include "kernels_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Terms. The stream runs over N slices (the slice axis is the first, slowest axis of every array,
   C order). A block is B owned slices [b0, b1) — the slices whose results it writes — plus the
   halo slices its stages read on each side, clipped to [0, N). Slices outside [0, N) are never
   read or passed: kernels apply their boundary conditions from the global indices they get.

   Kernel calling convention. A stage's OpenCL kernel takes, in order:
     one `__global T *` per input, then one per output (each pointing at the block's first LOADED
       slice: global slice `base`; a GLOBAL array: at its start),
     the stage's scalar arguments,
     then five block arguments: ulong base (global index of the buffer's slice 0), ulong begin and
       ulong end (the slices to compute, relative to base), ulong total (N), int flags
       (HST_STREAM_FIRST: the block holds slice 0; HST_STREAM_LAST: it holds slice N-1).
   It runs over a 2-D NDRange: dimension 0 = items_per_slice (rounded up: bound-check it),
   dimension 1 = end - begin slices (rounded up too), or, with loop_slices, a 1-D NDRange over
   the items with the kernel walking the slices itself. Slices [0, loaded) relative to base are readable, where the
   loaded range covers [begin - halo_lo, end + halo_hi) clipped to [0, N) - base.
   The host twin gets the same pointers (on the host device: into the caller's arrays) and the
   same block arguments in an hst_stream_block. Any N works with any halo, N = 1 included: a
   block loads what exists of its halo, and the kernel's boundary condition does the rest.

   The default block size (desc.block_slices = 0). On the host device (no copies) one block
   holds all N slices, or what budget_bytes holds. On an OpenCL device the copies decide. Moving
   a block of B slices costs c t0 + w B / BW on the copy engines: c transfer commands (one per
   uploaded array and one per downloaded array), t0 the overhead of one command (seconds), w the
   bytes per slice moved in both directions, BW the pinned copy speed (bytes/s). A run costs the
   steady transfers plus what the pipeline cannot hide or adds per block: the first block's
   upload and the last block's download (about w B / BW), the command overheads of all blocks
   (n c t0 / B, with n = N / devices the slices of one device), and the halo slices each block
   uploads again (n h u / (B BW), h the chain's halo slices, u the bytes per slice uploaded).
   Hence
     B_fill  = sqrt(n (c t0 BW + h u) / w)   the B that minimises the sum of those three;
     B_slots = n / (4 R)             at least 4 blocks per ring slot (R slots), so the ring keeps
                                     the copy engines busy across the host's waits;
     B_dma   = 19 c t0 BW / w        each block's transfers at >= 95% of the copy speed (the
                                     command overheads <= 5% of its copy time);
     B       = max(B_dma, min(B_fill, B_slots)), then at least 1 and at most N and what the
               budget holds (a chain that moves nothing: what the budget holds).
   t0 and BW are the device's, from hst_stream_copy_model: measured once per device and kept
   with the choice timings. For example, t0 = 10 us and BW = 55 GB/s (a GPU on PCIe 5.0)
   streaming 2048 slices of 4 MiB in and 4 MiB out with a halo of one slice give B_fill = 36
   (57 blocks of 300 MB moved each, c t0 under 0.4% of a block's copies); bench/RESULTS.md has
   the measured sweep. A caller's block_slices wins over the rule (and must fit the budget). */
#define HST_STREAM_MAX_ARRAYS 16
#define HST_STREAM_MAX_STAGES 16
#define HST_STREAM_MAX_SCALARS 8
#define HST_STREAM_MAX_BINDINGS 8     /* inputs or outputs of one stage */
#define HST_STREAM_MAX_ACCUMULATORS 8
#define HST_STREAM_MAX_BACKENDS 8

enum { HST_STREAM_FIRST = 1, HST_STREAM_LAST = 2 };

typedef struct hst_stream_block {
    uint64_t base;      /* global slice index of the pointers' slice 0 */
    uint64_t begin;     /* first slice to compute, relative to base */
    uint64_t end;       /* one past the last slice to compute, relative to base */
    uint64_t total;     /* N */
    int flags;          /* HST_STREAM_FIRST | HST_STREAM_LAST */
} hst_stream_block;

/* A host twin: arrays[i] are the stage's inputs then outputs (as in the kernel), each pointing at
   global slice blk->base; scalars[j] the stage's scalar values. Returns HST_SUCCESS or an error
   that stops the run. */
typedef hst_result (*hst_stream_host_fn)(void *const *arrays, const void *const *scalars,
                                         const hst_stream_block *blk, void *user);

/* Calls instead of kernels: a stage whose arrays_fn is set is a call of a library operation
   (hst_array_fft, the array vocabulary) on the block's device memory rather than an OpenCL
   kernel. For each block the stream calls it on the calling thread, with be the block's
   device's backend and arrays[i] (num_arrays = the stage's num_inputs + num_outputs) its
   inputs then outputs, each as the buffer holding the block, where the block's first LOADED
   slice (global slice blk->base) starts in it, and how many slices are loaded; blk gives the
   slices to compute ([begin, end), relative to base, as for a kernel), scalars the stage's
   scalar values. The call wraps what it needs in hst_array_view(buffer, offset_bytes + k *
   slice_bytes, ...) and runs hst_array_* on them; it writes only the slices [begin, end) of its
   outputs (as a kernel does), and returns HST_SUCCESS or an error that stops the run. Views it
   makes must be destroyed before it returns (a view of the block's memory outlives no block).
     buffer   OpenCL devices: the ring slot's device buffer (GLOBAL: the device's copy); the
              host device: the block's caller memory (or the stream's scratch) wrapped with
              hst_buffer_wrap for this call.
     halos    the call sees every loaded slice, [0, slices): the chain's halo around the block,
              clipped to [0, N), as a kernel does; slices outside [0, N) are not there.
     offsets  offset_bytes is 0 (every buffer starts at the block's first loaded slice), so a
              view from there is always possible; a view from slice k (blk->begin, say) needs
              k * slice_bytes to be a multiple of the device's base address alignment on an
              OpenCL device (hst_array_view; HST_ERROR_ALIGNMENT otherwise): slices of a whole
              number of mem_base_addr_align_bytes, or a chain without halos (begin = 0), keep
              every view possible.
   Where its work runs, and what that costs. The call enqueues its work on be's default queue
   (hst_backend_queue, where hst_array_* run) and need not wait for it. The stream orders it
   with events, without the host waiting: before the call, a barrier on the device's compute
   queue (after the block's upload and earlier stages) that the default queue waits for;
   after it, a barrier on the default queue that the compute queue waits for before the
   block's later stages, accumulators and downloads. Uploads and downloads of the other blocks
   in the ring keep overlapping; the cost is that the compute queue runs nothing while the
   call's work runs (the call's work and the kernels of other blocks do not overlap), and the
   host is busy with the call itself (VkFFT builds a plan's kernels on a shape's first call; a
   blocking call, such as a reduction, waits for the compute queue's earlier blocks). On the
   host device everything runs in order in the call. Outputs are bit for bit what the same
   calls give on the whole array when the operation treats slices independently and the
   library's result does not depend on how many slices one call covers (the array vocabulary:
   yes; FFTs: see examples/mri_op.h for what was measured). */
typedef struct hst_stream_binding {
    hst_buffer *buffer;     /* holds the block (a GLOBAL array: the whole array) */
    size_t offset_bytes;    /* where global slice blk->base starts in buffer (GLOBAL: its start) */
    uint64_t num_slices;    /* slices loaded from there (GLOBAL: 0) */
    size_t slice_bytes;     /* bytes of one slice (GLOBAL: global_bytes) */
} hst_stream_binding;
typedef hst_result (*hst_stream_array_fn)(hst_backend *be, const hst_stream_binding *arrays,
                                          unsigned num_arrays, const void *const *scalars,
                                          const hst_stream_block *blk, void *user);

typedef enum hst_stream_kind {
    HST_STREAM_INPUT = 1,   /* caller host array, read: uploaded block by block */
    HST_STREAM_OUTPUT,      /* caller host array, written: downloaded (owned slices only) */
    HST_STREAM_INOUT,       /* both: uploaded, updated, downloaded (read with halo 0 only) */
    HST_STREAM_TEMP,        /* device only: an earlier stage's output read by later stages
                               (PyQMRI's connectouttoin); no host array */
    HST_STREAM_GLOBAL       /* not sliced: global_bytes of caller memory that every block's
                               kernels see whole (an image accumulated over all slices). It stays
                               on each device for the run: device 0 starts from the caller's
                               contents, the others from zeros, and at the end the caller gets
                               the element-wise sum over devices (in dtype, f32 or f64) - an
                               additive accumulator. Each device updates it in its block order.
                               Or, with `buffers`, caller device buffers used in place across
                               runs (see hst_stream_array.buffers). */
} hst_stream_kind;

typedef struct hst_stream_pinned hst_stream_pinned;   /* see "Pinned arrays" below */

/* One array of the stream: N slices of slice_bytes each, slice axis first, C order. */
typedef struct hst_stream_array {
    hst_stream_kind kind;
    size_t slice_bytes;         /* bytes of one slice (> 0; unused for GLOBAL) */
    void *host;                 /* caller memory of N * slice_bytes (NULL for TEMP): an INPUT
                                   array is uploaded straight from it (the driver stages pageable
                                   memory itself); OUTPUT and INOUT arrays come back through the
                                   ring's pinned staging */
    hst_buffer *pinned;         /* or a pinned buffer (hst_pinned_create) of that size: its host
                                   memory is transferred directly, with no staging copy */
    size_t global_bytes;        /* GLOBAL only: bytes of the whole array (> 0) */
    hst_dtype dtype;            /* GLOBAL only: element type of the sum over devices */
    hst_buffer *const *buffers; /* GLOBAL only, instead of host: one buffer per backend (in the
                                   order of desc.backends, each of that backend and of at least
                                   global_bytes), which the kernels update in place. The stream
                                   copies nothing to or from them and combines no devices: the
                                   caller fills them before a run and reads (and sums) them after,
                                   so they carry state from run to run (a temporal accumulation
                                   fed by several runs) without a transfer. They must outlive the
                                   stream. On the host device (where several backends run as
                                   one) the host memory of buffers[0]; the others stay as given. */
    hst_stream_pinned *pinned_array;  /* or, instead of host or pinned, a pinned array of one or
                                   more pinned buffers (hst_stream_pinned_create) of at least N
                                   slices of slice_bytes: transferred directly, chunk by chunk,
                                   as a pinned buffer is; for arrays beyond the device's largest
                                   allocation. It must outlive the stream (or its replacement by
                                   hst_stream_set_pinned_arrays). */
} hst_stream_array;

/* One stage: a kernel, or a call (arrays_fn: see hst_stream_array_fn above), never both. A
   kernel is either
     declared   family and family_kernel: a kernel of a declared family (backend.h's "Declared
                kernels"; kernels_stream.h's HST_STREAM_KERNELS, or an embedder's own family),
                launched through hst_launch_kernel: on the host device its declared twin (or
                host, when set) runs. Its signature must read "global" once per input and
                output, then one word per scalar of scalar_bytes[j] bytes (int, uint, float: 4;
                long, ulong, double: 8; value: any), then "ulong ulong ulong ulong int" (the
                block arguments); create checks it. sources, num_sources and kernel unset;
                options are its program's build options. Or
     from sources   sources, num_sources, kernel (and options) on OpenCL devices; host, its
                host twin, on the host device.
   The twin a declared kernel's family gives gets the block as a range: dim 1 = end - begin
   slices from begin, dim 0 = items_per_slice (1-D with loop_slices); the buffers start at
   global slice base, as for the kernel. */
typedef struct hst_stream_stage {
    const char *name;                       /* for messages; may be NULL */
    const char *const *sources;             /* OpenCL C program (pieces) and build options */
    size_t num_sources;
    const char *options;
    const char *kernel;                     /* kernel name in the program */
    hst_stream_host_fn host;                /* host twin: on the host device, required for a
                                               stage from sources and optional for a declared
                                               one (it replaces the declared twin there: a
                                               room's own threaded host path, say); never run
                                               on OpenCL devices */
    void *host_user;
    const hst_kernel_family *family;        /* a declared kernel: its family ... */
    unsigned family_kernel;                 /* ... and its id there */
    unsigned num_inputs, num_outputs;       /* indices into the stream's arrays */
    const int *inputs, *outputs;
    unsigned num_scalars;                   /* scalar kernel arguments (after the arrays) */
    size_t scalar_bytes[HST_STREAM_MAX_SCALARS];
    const void *scalars[HST_STREAM_MAX_SCALARS];  /* read at hst_stream_run; may change between runs */
    unsigned halo_lo, halo_hi;              /* slices read before / after each computed slice
                                               (any value: those outside [0, N) are never
                                               loaded, so N = 1 works with any halo) */
    size_t items_per_slice;                 /* work-items along NDRange dimension 0 (> 0) */
    size_t local_size;                      /* work-group along dimension 0; 0: backend default */
    int loop_slices;                        /* 1: a 1-D NDRange of items_per_slice, the kernel
                                               walks [begin, end) itself, in order (reductions
                                               along the slice axis into GLOBAL arrays) */
    hst_stream_array_fn arrays_fn;          /* a call instead of a kernel: then sources,
                                               num_sources, options, kernel, family and host
                                               must be unset (items_per_slice, local_size and
                                               loop_slices are ignored) */
    void *arrays_user;                      /* arrays_fn's user pointer */
} hst_stream_stage;

/* Accumulators live on the device across blocks and are read once at the end: one value per
   owned slice, combined on the host in slice order, so the total is the same bits whatever the
   block size, direction or device count. Per slice (element order fixed as kernels.h's
   reductions: 256 lanes, strided, then a tree; accumulated in double where the device has fp64;
   f64 and c128 accumulators need fp64 on every device, HST_ERROR_DTYPE at create otherwise):
     SUM    sum of a's elements         (real: x; complex: real part)
     SQSUM  sum of |a|^2
     DIFF2  sum of |a - b|^2            (PyQMRI's evalwithnorm: a = a stage's output, b = input) */
typedef enum hst_stream_acc_kind { HST_STREAM_SUM = 1, HST_STREAM_SQSUM, HST_STREAM_DIFF2 } hst_stream_acc_kind;
typedef struct hst_stream_acc {
    hst_stream_acc_kind kind;
    hst_dtype dtype;          /* element type of a (and b): HST_F32, HST_C64, or (PyQMRI's
                                 float64 / complex128 runs) HST_F64, HST_C128 */
    int a, b;                 /* array indices (b only for DIFF2) */
} hst_stream_acc;

/* Progress: called on the host after each completed block; return nonzero to cancel. Over MPI
   ranks each rank's callback sees its own slices: slices_total is the number it owns, and a
   cancel on one rank ends the run on every rank (HST_ERROR_CANCELLED). */
typedef int (*hst_stream_progress_fn)(uint64_t slices_done, uint64_t slices_total, void *user);

typedef struct hst_stream_desc {
    hst_backend *const *backends;   /* 1..HST_STREAM_MAX_BACKENDS devices (all host, or all OpenCL) */
    unsigned num_backends;
    const double *weights;          /* relative speeds (> 0), one per device. The first run
                                       splits by these; NULL: by the speeds the backend's choice
                                       registry holds for this chain and these devices (earlier
                                       runs, this process or the timings file), else equally;
                                       later runs split by the registry's robust estimate (lower
                                       median of recent runs), else by these, else equally */
    uint64_t num_slices;            /* N > 0 */
    const hst_stream_array *arrays;
    unsigned num_arrays;
    const hst_stream_stage *stages;
    unsigned num_stages;
    const hst_stream_acc *accumulators;
    unsigned num_accumulators;
    uint64_t block_slices;          /* owned slices per block; 0: chosen for throughput (see
                                       "The default block size" below), within the budget */
    uint64_t budget_bytes;          /* device bytes per device for the ring; 0: 3/4 of the
                                       device's global memory (further capped per buffer by
                                       CL_DEVICE_MAX_MEM_ALLOC_SIZE). On the host device (no
                                       ring, no copies) it bounds one block's scratch; 0: the
                                       whole array is one block */
    unsigned ring;                  /* slots per device, >= 2; 0: 3 */
    int reverse;                    /* walk the blocks from the last slice to the first */
    hst_stream_progress_fn progress;
    void *progress_user;
    const void *mpi_comm;           /* NULL: one process. Else the address of the caller's
                                       MPI_Comm (the same communicator on every rank): create,
                                       run and destroy are collective over it (see "Several
                                       ranks" above). The description must agree on every rank
                                       in num_slices, the arrays' kinds and sizes, the stages'
                                       halos and bindings, the accumulators and reverse; the
                                       backends, weights, budget, block, ring and queues are
                                       each rank's own. Needs HST_STREAM_MPI in the implementation
                                       TU (else HST_ERROR_NOT_BUILT_IN) */
    hst_queue *const *queues;       /* NULL: the stream makes three queues per device. Else the
                                       caller's (PyQMRI's `queue` argument, there 4 per
                                       device): 3 * num_backends queues, device d's upload,
                                       compute and download queues at 3d, 3d + 1, 3d + 2, each
                                       made on backends[d] (hst_queue_create; on OpenCL devices
                                       checked: the queue's context and device are the
                                       backend's). One queue may take several roles (all three
                                       on one queue: the same results, without the overlap).
                                       The stream enqueues its copies and kernels there, the
                                       caller's commands before them run first (a marker there
                                       gates the stream), and it never destroys them: they
                                       must outlive the stream, which finishes them
                                       (hst_queue_finish) when it is destroyed. On the host
                                       device, which runs every block within hst_stream_run,
                                       they are checked (host device queues, not NULL) and
                                       not used */
} hst_stream_desc;

typedef struct hst_stream hst_stream;

/* After a run: what was done, where, and how fast. */
typedef struct hst_stream_report {
    uint64_t block_slices;                  /* B used */
    uint64_t num_blocks;                    /* blocks run (all devices) */
    uint64_t slices_done;                   /* owned slices whose outputs are complete */
    uint64_t done_begin[HST_STREAM_MAX_BACKENDS];   /* per device: outputs complete for global */
    uint64_t done_end[HST_STREAM_MAX_BACKENDS];     /* slices [done_begin, done_end) */
    uint64_t range_begin[HST_STREAM_MAX_BACKENDS];  /* per device: the slices it was given */
    uint64_t range_end[HST_STREAM_MAX_BACKENDS];
    double seconds;                         /* wall time of the run */
    double device_seconds[HST_STREAM_MAX_BACKENDS]; /* per device: first enqueue to last event */
    double acc[HST_STREAM_MAX_ACCUMULATORS];/* accumulator totals (over all N slices, every rank) */
    uint64_t rank_begin, rank_end;          /* the slices this rank owns (one process: 0, N) */
    uint64_t slices_done_all;               /* slices_done summed over the ranks (one process:
                                               slices_done); N after a successful run */
} hst_stream_report;
/* Over MPI ranks every field but acc and slices_done_all is this rank's own: blocks,
   slices_done, seconds and the per-device fields describe its devices, whose ranges lie in
   [rank_begin, rank_end) (global slice indices); acc and slices_done_all are the same on every
   rank. */

/* Validates the description, builds the stages' programs on every device, chooses the block size
   and allocates each device's ring (device buffers, and pinned staging for the OUTPUT and INOUT
   arrays in pageable memory). Errors:
   HST_ERROR_INVALID_ARGUMENT (the log names the field: zero slices, an index out of range, an
   array kind used wrongly, a stage without host twin on the host device (named), a stage with
   both arrays_fn and a kernel, sources, options or host twin (named), an output
   that aliases an input
   read with a halo (it would read slices already overwritten), mixed host/OpenCL backends),
   HST_ERROR_SHAPE (accumulator arrays of different slice sizes), HST_ERROR_OVERFLOW,
   HST_ERROR_OUT_OF_DEVICE_MEMORY (the budget cannot hold one block; the message gives the
   minimum in bytes), build errors (OpenCL codes), HST_ERROR_OUT_OF_HOST_MEMORY. With several
   devices it also registers (or finds) the split's operation in backends[0]'s choice registry,
   which reads the timings file on first use (see hst_stream_choice_op; hst_choice_configure
   must come before). Thread safety: per backend, on every backend of desc (also
   hst_stream_destroy).
   With desc.mpi_comm: collective over the communicator (desc must not be NULL on any rank: its
   mpi_comm names the communicator); every rank returns the same code, the first failing rank's
   (the other ranks log HST_LOGITEM_RANK_FAILED naming it), and also HST_ERROR_SHAPE when the ranks' descriptions
   disagree (see mpi_comm), HST_ERROR_OVERFLOW when N or a GLOBAL array's element count exceeds
   INT_MAX (MPI counts). Without HST_STREAM_MPI a non-NULL mpi_comm gives
   HST_ERROR_NOT_BUILT_IN (logged as HST_LOGITEM_NOT_BUILT_IN) on every rank, with no collective.
   hst_stream_destroy is then collective too (it frees the stream's duplicate communicator).
   The stream holds its backends (hst_backend_hold) until hst_stream_destroy: destroying one
   under it is refused. */
HST_API HST_NODISCARD hst_result hst_stream_create(const hst_stream_desc *desc, hst_stream **out);
HST_API void hst_stream_destroy(hst_stream *s);

/* Runs the chain over all N slices (blocking: returns when every output is in the caller's
   arrays). report may be NULL. Caller inputs are never written (INOUT arrays are written only
   at owned slices, after they were read). Errors: HST_ERROR_CANCELLED (the progress callback
   asked; report->done_* say which output slices are complete), errors of the host twins,
   OpenCL codes. Thread safety: per backend, on every backend of the stream (the host twins and
   the progress callback run on the calling thread).
   Over MPI ranks: collective; each rank streams its own slices, then the accumulators and
   GLOBAL arrays are combined across the ranks (top comment). Every rank returns the same code,
   the first failing rank's (the others log HST_LOGITEM_RANK_FAILED naming it); HST_ERROR_INVALID_ARGUMENT
   also when a rank with slices has not been given the memory of a sliced array. After a
   failed run (a cancel included) the GLOBAL arrays are not combined: each caller array holds
   what that rank left there (unspecified). */
HST_API HST_NODISCARD hst_result hst_stream_run(hst_stream *s, hst_stream_report *report);

/* Replaces the caller memory of array i (same kind and size; pinned stays pinned) between runs.
   Over MPI ranks the memory holds this rank's loaded slices only (hst_stream_rank_range), from
   global slice load_begin; an array left NULL at create takes pageable or pinned memory here
   (its ring keeps the staging of pageable OUTPUT and INOUT memory either way). Not collective.
   Errors: HST_ERROR_INVALID_ARGUMENT (also when the new memory aliases another array in a way
   create refuses), HST_ERROR_SHAPE (a pinned buffer too small).
   Thread safety: per object (the stream). */
HST_API HST_NODISCARD hst_result hst_stream_set_array(hst_stream *s, unsigned i, void *host, hst_buffer *pinned);
/* Replaces n arrays at once (idx[k] gets host[k] or pinned[k]; either list may be NULL), checked
   together: how an iterative method swaps the roles of two arrays. All or nothing.
   Thread safety: per object (the stream). */
HST_API HST_NODISCARD hst_result hst_stream_set_arrays(hst_stream *s, unsigned n, const unsigned *idx,
                                                       void *const *host, hst_buffer *const *pinned);

/* The block size (owned slices) and ring the stream uses. Thread safety: while alive. */
HST_API uint64_t hst_stream_block_slices(const hst_stream *s);

/* The block hst_stream_create would take for desc, asked before creating (no stream is made,
   nothing is built, allocated or run; create decides with the same function): the block is
   stream.h's decision, and a layer above that wants smaller or larger blocks (esrrf.h: a share
   of its stack) gives its wish as desc.block_slices and takes the answer, rather than
   provoking create's refusal. desc is read as create reads it (and checked as create checks
   it): the arrays' slice sizes and kinds, the stages' halos, the accumulators, the backends,
   num_slices, budget_bytes, ring and block_slices.
     block_slices    desc.block_slices (at most N) when it fits the budget, else
                     largest_slices (create refuses a block_slices over it); with
                     desc.block_slices 0 the default rule ("The default block size" above: it
                     may measure the device's copy model);
     largest_slices  the largest block whose ring (K slots of the block plus its halo slices,
                     every buffer within the device's largest allocation) fits budget_bytes on
                     every device; on the host device the block whose scratch fits the budget
                     (all N without one); at most N;
     device_bytes    bytes one device then holds for the stream: the ring's device buffers,
                     the accumulators' per-slice values and the GLOBAL arrays it allocates (the
                     host device: one block's scratch). A caller keeping several streams on one
                     device sums these against its memory.
   In one process (desc.mpi_comm is not read: a rank asks for its own num_slices). Errors:
   create's argument refusals (logged, naming the field), HST_ERROR_OUT_OF_DEVICE_MEMORY when
   not one block fits (logged with the bytes needed: the run cannot happen), HST_ERROR_INVALID_
   ARGUMENT (info NULL). Thread safety: per backend, on every backend of desc. */
typedef struct hst_stream_block_info {
    uint64_t block_slices;
    uint64_t largest_slices;
    uint64_t device_bytes;
} hst_stream_block_info;
HST_API HST_NODISCARD hst_result hst_stream_block_query(const hst_stream_desc *desc, hst_stream_block_info *info);
/* The choice registry's operation that splits the slices across the devices, for inspection
   (hst_choice_stats) or to feed timings measured elsewhere (hst_choice_record): registered on
   backends[0] as "stream_split_<16 hex digits>", a 64-bit FNV-1a hash of the stages (names,
   kernels, sources, options, bindings, halos, NDRange shape), the array kinds, the accumulators
   and the devices' identities ("name | driver version", in order), so the same chain on the same
   devices finds its timings again; slice sizes and N are not in the name. Implementations "d0",
   "d1", ...: one per device, timed in seconds per slice. Signature: one integer, the bytes of one
   slice summed over the sliced arrays (TEMP included, GLOBAL not), bucketed by the registry.
   NULL for one device in one process, or when the operation could not be registered or found
   (logged as HST_LOGITEM_CHOICE_FAILED; the split then follows desc.weights, else equal shares).
   Over MPI ranks it exists for one device too: its timings give the rank's speed for the
   splits across ranks of later streams of this chain. The op lives until backends[0] is
   destroyed. Thread safety: while alive. */
HST_API hst_choice_op *hst_stream_choice_op(const hst_stream *s);   /* NULL for one device */

/* This rank's slices: it owns [*own_begin, *own_end) (the outputs it writes and the
   accumulator values it computes) and its caller memory holds [*load_begin, *load_end): the
   owned slices plus the chain's halo on either side, clipped to [0, N). Every sliced array's
   memory on this rank is load_end - load_begin slices, its first being global slice
   load_begin (outputs are written at the owned slices only). In one process: 0, N, 0, N. A
   rank without slices gets empty ranges (begin == end) and needs no memory. Fixed for the
   stream's life. Any pointer may be NULL. Not collective. Errors: HST_ERROR_INVALID_ARGUMENT
   (s NULL). Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_stream_rank_range(const hst_stream *s, uint64_t *own_begin, uint64_t *own_end,
                                                       uint64_t *load_begin, uint64_t *load_end);

/* Replaces the pinned arrays of n arrays at once (idx[k] gets arrays[k]), as
   hst_stream_set_arrays does: the arrays must have been made pinned (a pinned buffer or a
   pinned array: either may replace either), and the replacement holds at least N slices of
   their slice_bytes. Errors as hst_stream_set_arrays. Thread safety: per object (the stream). */
HST_API HST_NODISCARD hst_result hst_stream_set_pinned_arrays(hst_stream *s, unsigned n, const unsigned *idx,
                                                              hst_stream_pinned *const *arrays);

/* Makes the next runs cover slices [0, num_slices) of the arrays, 1 <= num_slices <= the
   num_slices the stream was created with (which it may return to): the ring, the programs and
   the block size stay, and every block, halo, kernel argument (total = num_slices) and result
   is what a stream created with num_slices computes, the same bits. For runs of varying length
   (a live acquisition's pieces) without a ring allocated per length. In one process only.
   Errors: HST_ERROR_INVALID_ARGUMENT (s NULL, num_slices 0 or beyond create's, a stream over
   MPI ranks: their split is fixed at create). Thread safety: per object (the stream). */
HST_API HST_NODISCARD hst_result hst_stream_set_num_slices(hst_stream *s, uint64_t num_slices);

/* ---------------------------------------------------------------------------------------------
   The copy model of the default block size: t0, the overhead of one transfer command
   (seconds), and BW, the pinned copy speed (bytes/s), of an OpenCL device. They come from a
   timings-only operation of be's choice registry, HST_STREAM_COPY_OP, with two implementations,
   "up" (hst_write from pinned memory) and "down" (hst_read into pinned memory), timed at one
   signature integer, the bytes of one copy: HST_STREAM_COPY_SMALL_BYTES (t0) and
   HST_STREAM_COPY_LARGE_BYTES (t0 + bytes / BW). What is missing is measured on the device (a
   blocking copy of each size each way, the median of HST_STREAM_COPY_REPS after a warm-up: a
   few milliseconds) and recorded, so the timings file keeps it across processes; a caller may
   feed its own figures with hst_choice_record before (hst_stream_copy_op gives the operation
   without measuring). t0 is the slower direction's small copy; BW the slower direction's
   (large - small) bytes over (large - small) seconds. On the host device: 0 and 0 (no copies).
   Errors: HST_ERROR_INVALID_ARGUMENT (NULL arguments), allocation errors of the measurement
   (when it cannot run, the stream's default block falls back to HST_STREAM_COPY_FALLBACK_*,
   logged as HST_LOGITEM_CHOICE_FAILED). Thread safety: per backend. */
#define HST_STREAM_COPY_OP "stream_copy"
#define HST_STREAM_COPY_SMALL_BYTES 4096
#define HST_STREAM_COPY_LARGE_BYTES (16u << 20)
#define HST_STREAM_COPY_REPS 5
#define HST_STREAM_COPY_FALLBACK_OVERHEAD_S 20e-6   /* about twice an H100's blocking 4 KiB copy (8.8 us) */
#define HST_STREAM_COPY_FALLBACK_BYTES_PER_S 25e9   /* PCIe 4.0 x16 in practice */
HST_API HST_NODISCARD hst_result hst_stream_copy_model(hst_backend *be, double *overhead_s, double *bytes_per_s);
/* The operation (registered on first use), or NULL on the host device or when it cannot be
   registered (logged). Thread safety: per backend. */
HST_API hst_choice_op *hst_stream_copy_op(hst_backend *be);

/* ---------------------------------------------------------------------------------------------
   Pinned arrays: num_slices slices of slice_bytes (slice axis first, C order) in pinned host
   memory made of one or more pinned buffers (hst_pinned_create), each a whole number of slices:
   for caller arrays beyond the device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE, 1/4
   of global memory on NVIDIA: a 24 GiB array on an 80 GB GPU), which hst_pinned_create refuses.
   Use one as hst_stream_array.pinned_array wherever a pinned buffer can go: the stream copies
   each chunk's slices directly, splitting a block's transfer at chunk boundaries.
   One pointer: on the host device the chunks are consecutive parts of one allocation, and on
   an OpenCL device an array of one chunk is one pinned buffer, so hst_stream_pinned_host gives
   the whole array. Several chunks on an OpenCL device lie where the driver put each: OpenCL has
   no call that pins memory at an address the caller chooses (CL_MEM_USE_HOST_PTR leaves
   pinning to the driver), so there hst_stream_pinned_host gives NULL; reach the slices through
   hst_stream_pinned_slice, or copy with hst_stream_pinned_write / _read. */

/* chunk_slices: slices per chunk (the last may hold fewer); 0: as many as one allocation of the
   device holds (on the host device: all N). Errors: HST_ERROR_INVALID_ARGUMENT (be or out
   NULL, slice_bytes or num_slices 0), HST_ERROR_OVERFLOW, HST_ERROR_OUT_OF_DEVICE_MEMORY (a
   chunk beyond the device's largest allocation or the backend's limit; a slice larger than
   one allocation), OpenCL codes, HST_ERROR_OUT_OF_HOST_MEMORY (nothing is left allocated).
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_stream_pinned_create(hst_backend *be, size_t slice_bytes,
                                                          uint64_t num_slices, uint64_t chunk_slices,
                                                          hst_stream_pinned **out);
/* Frees every chunk; NULL ignored. Thread safety: per backend. */
HST_API void hst_stream_pinned_destroy(hst_stream_pinned *p);
/* The whole array as one pointer, or NULL where the chunks are apart (see above).
   Thread safety: while alive. */
HST_API void *hst_stream_pinned_host(const hst_stream_pinned *p);
/* The address of slice z (< num_slices) and, in *contiguous (may be NULL), how many slices lie
   contiguously from it (to the end of its chunk); NULL when z is out of range.
   Thread safety: while alive. */
HST_API void *hst_stream_pinned_slice(const hst_stream_pinned *p, uint64_t z, uint64_t *contiguous);
/* Slices per chunk (the last may hold fewer) and the number of chunks.
   Thread safety: while alive. */
HST_API uint64_t hst_stream_pinned_chunk_slices(const hst_stream_pinned *p);
HST_API size_t hst_stream_pinned_chunks(const hst_stream_pinned *p);
/* Copies slices [first, first + count) from src (count slices, contiguous) into the array, or
   out of it into dst. Errors: HST_ERROR_INVALID_ARGUMENT (NULL arguments, the range beyond
   num_slices). Thread safety: per object (the array). */
HST_API HST_NODISCARD hst_result hst_stream_pinned_write(hst_stream_pinned *p, uint64_t first, const void *src,
                                                         uint64_t count);
HST_API HST_NODISCARD hst_result hst_stream_pinned_read(const hst_stream_pinned *p, uint64_t first, void *dst,
                                                        uint64_t count);

#ifdef __cplusplus
}
#endif
#endif /* HST_STREAM_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_STREAM_IMPLEMENTATION) && !defined(HST__STREAM_IMPLEMENTED)
#define HST__STREAM_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HST_STREAM_MPI
#  include <mpi.h>
#endif

#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__SDEF HST_API __attribute__((unused))
#else
#  define HST__SDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__STREAM_DEFAULT_RING 3
#define HST__STREAM_MAX_RING 8
#define HST__STREAM_LOCAL_ACC 256      /* the accumulator kernel's work-group (kernels.h) */
/* Default share of global memory for the ring: the rest stays for the driver, programs and
   other allocations of the process. */
#define HST__STREAM_DEFAULT_BUDGET_NUM 3
#define HST__STREAM_DEFAULT_BUDGET_DEN 4
/* The default block (see the top comment): at least this many blocks per ring slot when the
   slices allow it, and each block's copy time at least this many times its command overheads
   (19: the overheads are at most 5% of a block's transfers, so they run at >= 95% speed). */
#define HST__STREAM_BLOCKS_PER_SLOT 4
#define HST__STREAM_COPY_OVER_OVERHEAD 19.0

/* >>helpers (stream.h uses backend.h's public API only, so its implementation may live in
   another translation unit than backend.h's) */
/* a + h slices of reach, clamped to N - 1 (no block reaches further within [0, N)). */
static uint64_t hst__reach(uint64_t a, uint64_t h, uint64_t N) {
    uint64_t cap = N ? N - 1 : 0;
    return a >= cap || h >= cap - a ? cap : a + h;
}

#if !defined(HST_NO_OPENCL) || defined(HST_STREAM_MPI)   /* what sums several GLOBAL copies */
/* Adds n elements of src into dst (f32 or f64): how GLOBAL copies are summed. */
static void hst__add_into(hst_dtype dt, void *dst, const void *src, size_t n) {
    size_t k;
    if (dt == HST_F32) for (k = 0; k < n; k++) ((float *)dst)[k] += ((const float *)src)[k];
    else for (k = 0; k < n; k++) ((double *)dst)[k] += ((const double *)src)[k];
}
#endif

static void *hst__scalloc(const hst_backend *be, size_t bytes) {
    void *p = hst_backend_alloc(be, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

/* >>types ------------------------------------------------------------------------------------ */
/* What the block size is decided from, besides the description: made from it by hst__plan_make,
   for a stream (create) and for hst_stream_block_query alike. */
typedef struct hst__plan {
    const hst_stream_desc *desc;
    uint64_t ext_lo[HST_STREAM_MAX_STAGES];     /* how far beyond the owned slices each stage */
    uint64_t ext_hi[HST_STREAM_MAX_STAGES];     /* computes (hst__plan_extents) */
    uint64_t halo_lo, halo_hi;                  /* whole chain: the loaded range (each < N) */
    unsigned ring;                              /* slots per device */
    int host;                                   /* every backend is the host device */
    int acc_bytes;                              /* 8 (double) or 4 (float, no fp64) */
} hst__plan;

typedef struct hst__slot {
    hst_buffer *dev[HST_STREAM_MAX_ARRAYS];     /* device buffer of each array */
    hst_buffer *staging[HST_STREAM_MAX_ARRAYS]; /* pinned staging of pageable OUTPUT and INOUT
                                                   arrays (INOUT: its upload too) */
    hst_event done;                             /* the block's last command */
    int busy;
    uint64_t b0, b1;                            /* owned slices in flight */
} hst__slot;

/* One device's share of the stream. */
typedef struct hst__sdev {
    hst_backend *be;
    hst_queue *up, *comp, *down;                /* copy engines in both directions + compute */
    int own_queues;                             /* made here (else desc.queues: the caller's) */
    hst_kernel *kernels[HST_STREAM_MAX_STAGES]; /* stages from sources (declared kernels and
                                                   the accumulators: the backend keeps them) */
    hst_buffer *acc[HST_STREAM_MAX_ACCUMULATORS];  /* per owned slice of the range */
    hst_buffer *global[HST_STREAM_MAX_ARRAYS];  /* GLOBAL arrays: one copy per device */
    unsigned char borrowed[HST_STREAM_MAX_ARRAYS];  /* global[i] is the caller's (buffers) */
    hst__slot slots[HST__STREAM_MAX_RING];
    uint64_t r0, r1;                            /* the slices this device owns */
    uint64_t issued, finished;                  /* blocks */
    uint64_t done0, done1;                      /* outputs complete for [done0, done1) */
    double start_s, end_s;
} hst__sdev;

struct hst_stream {
    hst_stream_desc desc;                       /* with the arrays copied below */
    hst_stream_array arrays[HST_STREAM_MAX_ARRAYS];
    hst_stream_stage stages[HST_STREAM_MAX_STAGES];
    hst_stream_acc accs[HST_STREAM_MAX_ACCUMULATORS];
    int bindings[HST_STREAM_MAX_STAGES][2][HST_STREAM_MAX_BINDINGS];  /* copies of the stages'
                                                                       input and output lists */
    hst_buffer *gbufs[HST_STREAM_MAX_ARRAYS][HST_STREAM_MAX_BACKENDS];  /* copies of the GLOBAL
                                                                           arrays' buffers lists */
    hst_backend *backends[HST_STREAM_MAX_BACKENDS];
    hst_queue *queues[3 * HST_STREAM_MAX_BACKENDS];  /* a copy of desc.queues, when given */
    double weights[HST_STREAM_MAX_BACKENDS];    /* desc.weights (desc.weights points here when
                                                   given), else 1 */
    hst_choice_op *split_op;                    /* the registry's split op; NULL: none */
    int64_t split_sig;                          /* its signature: bytes per slice */
    uint64_t runs;                              /* hst_stream_run calls so far */
    uint64_t created_slices;                    /* num_slices at create (desc.num_slices: the
                                                   runs' own, hst_stream_set_num_slices) */
    hst__plan plan;                             /* of desc: the chain's reach, the ring */
    uint64_t block;                             /* B */
    hst__sdev devs[HST_STREAM_MAX_BACKENDS];
    unsigned char *scratch[HST_STREAM_MAX_ARRAYS];  /* host device: TEMP and extended outputs */
    double *acc_slices;                         /* N per-slice values per accumulator */
    uint64_t done;
    /* the ranks (one process: rank 0 of 1, owning and loading all N slices) */
    uint64_t own0, own1;                        /* the slices this rank owns */
    uint64_t load0, load1;                      /* the slices its caller memory holds, from
                                                   index 0: owned plus the halo, clipped */
    uint64_t done_all;                          /* done summed over the ranks */
    int rank, nranks;
    int mpi;                                    /* desc.mpi_comm was given */
    unsigned char deferred[HST_STREAM_MAX_ARRAYS];  /* no memory at create (mpi_comm): staged
                                                       like pageable memory, any kind later */
#ifdef HST_STREAM_MPI
    MPI_Comm comm;                              /* a private duplicate of the caller's */
    uint64_t *bounds;                           /* nranks + 1: rank r owns [bounds[r], [r + 1]) */
    uint64_t *peers;                            /* 2 per rank: its N and description hash */
    double *speeds;                             /* per rank: slices per second, 0: unknown */
    int *counts, *displs;                       /* the ranges as MPI_Allgatherv's lists */
#endif
};

/* >>logging ---------------------------------------------------------------------------------- */
/* The backend whose logger speaks for a description (the stream's devices share the caller's
   setup): its first, or NULL (the default logger) when it has none. */
static const hst_backend *hst__desc_be(const hst_stream_desc *d) {
    return d && d->backends && d->num_backends ? d->backends[0] : NULL;
}

static double hst__now_s(void) { return hst_time_s(); }

/* >>pinned arrays --------------------------------------------------------------------------- */
struct hst_stream_pinned {
    hst_backend *be;
    size_t slice_bytes;
    uint64_t num_slices, chunk_slices;
    size_t chunks;
    unsigned char **base;          /* each chunk's slice 0 */
    hst_buffer **bufs;             /* OpenCL device: one pinned buffer per chunk */
    unsigned char *one;            /* host device: the single allocation */
};

HST__SDEF void hst_stream_pinned_destroy(hst_stream_pinned *p) {
    size_t k;
    if (!p) return;
    for (k = 0; p->bufs && k < p->chunks; k++) hst_buffer_destroy(p->bufs[k]);
    hst_backend_free(p->be, p->bufs);
    hst_backend_free(p->be, p->base);
    hst_backend_free(p->be, p->one);
    hst_backend_free(p->be, p);
}

/* Chunks of at most `chunk` slices: on the host device views of one allocation, else one
   pinned buffer each. */
static hst_result hst__pinned_alloc(hst_stream_pinned *p) {
    size_t k, bytes;
    hst_result r;
    if (!(p->base = (unsigned char **)hst__scalloc(p->be, p->chunks * sizeof *p->base))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (hst_backend_is_host(p->be)) {
        if (!(p->one = (unsigned char *)hst_backend_alloc(p->be, p->slice_bytes * (size_t)p->num_slices)))
            return HST_ERROR_OUT_OF_HOST_MEMORY;
        for (k = 0; k < p->chunks; k++) p->base[k] = p->one + (size_t)(k * p->chunk_slices) * p->slice_bytes;
        return HST_SUCCESS;
    }
    if (!(p->bufs = (hst_buffer **)hst__scalloc(p->be, p->chunks * sizeof *p->bufs))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    for (k = 0; k < p->chunks; k++) {
        uint64_t first = (uint64_t)k * p->chunk_slices, n = p->num_slices - first;
        bytes = p->slice_bytes * (size_t)(n < p->chunk_slices ? n : p->chunk_slices);
        if ((r = hst_pinned_create(p->be, bytes, &p->bufs[k])) != HST_SUCCESS) return r;
        p->base[k] = (unsigned char *)hst_buffer_host_ptr(p->bufs[k]);
    }
    return HST_SUCCESS;
}

HST__SDEF hst_result hst_stream_pinned_create(hst_backend *be, size_t slice_bytes, uint64_t num_slices,
                                              uint64_t chunk_slices, hst_stream_pinned **out) {
    const char *F = "hst_stream_pinned_create";
    hst_stream_pinned *p;
    size_t total;
    uint64_t fit;
    hst_result r;
    if (!be || !out) return hst__null_arg(be, "hst_stream", "%s: %s is NULL", F, be ? "out" : "be");
    *out = NULL;
    if (!slice_bytes || !num_slices)
        return hst__zero_arg(be, "hst_stream", "%s: slice_bytes and num_slices must be > 0", F);
    if (num_slices > SIZE_MAX || !hst_size_mul(slice_bytes, (size_t)num_slices, &total))
        return hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "%s: %llu slices of %zu bytes overflow size_t", F,
                         (unsigned long long)num_slices, slice_bytes);
    fit = hst_backend_is_host(be) ? num_slices : hst_backend_device(be)->max_alloc_bytes / slice_bytes;
    if (fit == 0)
        return hst_backend_fail(be, HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY, "hst_stream", "%s: a slice of %zu bytes exceeds the device's "
                         "largest allocation", F, slice_bytes);
    if (!chunk_slices || chunk_slices > num_slices) chunk_slices = chunk_slices ? num_slices : fit;
    if (!(p = (hst_stream_pinned *)hst__scalloc(be, sizeof *p))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    p->be = be;
    p->slice_bytes = slice_bytes;
    p->num_slices = num_slices;
    p->chunk_slices = chunk_slices < num_slices ? chunk_slices : num_slices;
    p->chunks = (size_t)(num_slices / p->chunk_slices + (num_slices % p->chunk_slices != 0));
    if ((r = hst__pinned_alloc(p)) != HST_SUCCESS) { hst_stream_pinned_destroy(p); return r; }
    *out = p;
    return HST_SUCCESS;
}

HST__SDEF void *hst_stream_pinned_host(const hst_stream_pinned *p) {
    return !p ? NULL : p->one ? p->one : p->chunks == 1 ? p->base[0] : NULL;
}

HST__SDEF void *hst_stream_pinned_slice(const hst_stream_pinned *p, uint64_t z, uint64_t *contiguous) {
    uint64_t k;
    if (contiguous) *contiguous = 0;
    if (!p || z >= p->num_slices) return NULL;
    k = z / p->chunk_slices;
    if (contiguous) {
        uint64_t end = (k + 1) * p->chunk_slices;
        *contiguous = (end < p->num_slices ? end : p->num_slices) - z;
    }
    return p->base[k] + (size_t)(z - k * p->chunk_slices) * p->slice_bytes;
}

HST__SDEF uint64_t hst_stream_pinned_chunk_slices(const hst_stream_pinned *p) { return p ? p->chunk_slices : 0; }
HST__SDEF size_t hst_stream_pinned_chunks(const hst_stream_pinned *p) { return p ? p->chunks : 0; }

/* Copies count slices between the array (from slice first) and contiguous memory, chunk by
   chunk; to_array: into the array. */
static hst_result hst__pinned_copy(const hst_stream_pinned *p, uint64_t first, void *mem,
                                   uint64_t count, int to_array) {
    unsigned char *m = (unsigned char *)mem;
    if (!p || (!mem && count) || first > p->num_slices || count > p->num_slices - first)
        return hst_backend_fail(p ? p->be : NULL, HST_ERROR_INVALID_ARGUMENT, !p || !mem ? HST_LOGITEM_NULL_ARGUMENT : HST_LOGITEM_OUT_OF_RANGE, "hst_stream", "hst_stream_pinned_%s: %s", to_array ? "write" : "read",
                         !p ? "p is NULL" : !mem ? "the memory is NULL" : "slices beyond the array");
    while (count) {
        uint64_t run;
        unsigned char *q = (unsigned char *)hst_stream_pinned_slice(p, first, &run);
        size_t bytes;
        if (run > count) run = count;
        bytes = (size_t)run * p->slice_bytes;
        if (to_array) memcpy(q, m, bytes);
        else memcpy(m, q, bytes);
        m += bytes;
        first += run;
        count -= run;
    }
    return HST_SUCCESS;
}

HST__SDEF hst_result hst_stream_pinned_write(hst_stream_pinned *p, uint64_t first, const void *src, uint64_t count) {
    return hst__pinned_copy(p, first, (void *)(uintptr_t)src, count, 1);
}

HST__SDEF hst_result hst_stream_pinned_read(const hst_stream_pinned *p, uint64_t first, void *dst, uint64_t count) {
    return hst__pinned_copy(p, first, dst, count, 0);
}

/* >>validation ------------------------------------------------------------------------------- */
static int hst__stream_writes(const hst_stream_stage *st, int a) {
    unsigned k;
    for (k = 0; k < st->num_outputs; k++) if (st->outputs[k] == a) return 1;
    return 0;
}

/* Whether q can serve be: non-NULL, and on OpenCL devices made on be's context and device (a
   queue does not tell its backend; two backends of one context and device are
   interchangeable here). */
static int hst__queue_of(hst_queue *q, hst_backend *be) {
#ifndef HST_NO_OPENCL
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cl_command_queue cq = q ? hst_queue_cl(q) : NULL;
    if (!q) return 0;
    if (hst_backend_is_host(be)) return cq == NULL;
    if (!cq || clGetCommandQueueInfo(cq, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(cq, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
        return 0;
    return ctx == hst_backend_cl_context(be) && dev == hst_backend_cl_device(be);
#else
    (void)be;
    return q != NULL;
#endif
}

static hst_result hst__check_backends(const hst_stream_desc *d) {
    unsigned i, hosts = 0;
    if (!d->backends || d->num_backends < 1 || d->num_backends > HST_STREAM_MAX_BACKENDS)
        return hst__range_arg(hst__desc_be(d), "hst_stream", "num_backends %u: give 1..%d backends",
                         d->num_backends, HST_STREAM_MAX_BACKENDS);
    for (i = 0; i < d->num_backends; i++) {
        if (!d->backends[i]) return hst__null_arg(hst__desc_be(d), "hst_stream", "backends[%u] is NULL", i);
        hosts += hst_backend_is_host(d->backends[i]) != 0;
    }
    if (hosts && hosts != d->num_backends)
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "backends mix the host device and OpenCL devices");
    if (d->queues)
        for (i = 0; i < 3 * d->num_backends; i++)
            if (!hst__queue_of(d->queues[i], d->backends[i / 3]))
                return d->queues[i]
                    ? hst__bad_arg(hst__desc_be(d), "hst_stream", "queues[%u] is not a queue of backends[%u]'s "
                                   "context and device", i, i / 3)
                    : hst__null_arg(hst__desc_be(d), "hst_stream", "queues[%u] is NULL", i);
    if (d->weights)
        for (i = 0; i < d->num_backends; i++)
            if (!(d->weights[i] > 0.0))
                return hst__range_arg(hst__desc_be(d), "hst_stream", "weights[%u] must be > 0", i);
    return HST_SUCCESS;
}

/* A GLOBAL array's caller buffers: one per backend, of that backend, large enough. */
static hst_result hst__check_global_buffers(const hst_stream_desc *d, unsigned i) {
    const hst_stream_array *a = &d->arrays[i];
    unsigned k;
    for (k = 0; k < d->num_backends; k++) {
        const hst_buffer *b = a->buffers[k];
        if (!b || hst_buffer_backend(b) != d->backends[k])
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_INVALID_ARGUMENT, b ? HST_LOGITEM_BAD_ARGUMENT : HST_LOGITEM_NULL_ARGUMENT, "hst_stream", "arrays[%u].buffers[%u] is %s", i, k,
                             b ? "a buffer of another backend than backends[k]" : "NULL");
        if (hst_buffer_bytes(b) < a->global_bytes)
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "arrays[%u].buffers[%u] holds %zu bytes, global_bytes is %zu",
                             i, k, hst_buffer_bytes(b), a->global_bytes);
        if (hst_backend_is_host(d->backends[k]) && !hst_buffer_host_ptr(b))
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u].buffers[%u] has no host memory", i, k);
    }
    return HST_SUCCESS;
}

/* Pinned memory for array i of the stream (either may be NULL): the slices this rank holds (all
   N in one process), host memory the host device can address as one array. */
static hst_result hst__check_pinned(const hst_stream *s, unsigned i, const hst_buffer *pinned,
                                    const hst_stream_pinned *pa) {
    const hst_stream_desc *d = &s->desc;
    size_t slice_bytes = s->arrays[i].slice_bytes;
    uint64_t slices = s->load1 - s->load0;
    size_t total = slice_bytes * (size_t)slices;   /* N slices were checked at create */
    if (pinned && hst_buffer_bytes(pinned) < total)
        return hst_backend_fail(hst__desc_be(d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "arrays[%u]: the pinned buffer is too small (%zu bytes, %zu needed)",
                         i, hst_buffer_bytes(pinned), total);
    if (pinned && !hst_buffer_host_ptr(pinned))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u].pinned is not pinned host memory", i);
    if (pa && (pa->slice_bytes != slice_bytes || pa->num_slices < slices))
        return hst_backend_fail(hst__desc_be(d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "arrays[%u]: the pinned array holds %llu slices of %zu bytes, "
                         "%llu slices of %zu needed", i, (unsigned long long)pa->num_slices, pa->slice_bytes,
                         (unsigned long long)slices, slice_bytes);
    if (pa && hst_backend_is_host(d->backends[0]) && !hst_stream_pinned_host(pa))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u].pinned_array lies in %zu chunks apart: the "
                         "host device needs one pointer (make the array on a host backend)", i, pa->chunks);
    return HST_SUCCESS;
}

static hst_result hst__check_arrays(const hst_stream_desc *d) {
    unsigned i;
    size_t total;
    hst_result r;
    if (!d->arrays || d->num_arrays < 1 || d->num_arrays > HST_STREAM_MAX_ARRAYS)
        return hst__range_arg(hst__desc_be(d), "hst_stream", "num_arrays %u: give 1..%d arrays",
                         d->num_arrays, HST_STREAM_MAX_ARRAYS);
    for (i = 0; i < d->num_arrays; i++) {
        const hst_stream_array *a = &d->arrays[i];
        if (a->kind < HST_STREAM_INPUT || a->kind > HST_STREAM_GLOBAL)
            return hst__range_arg(hst__desc_be(d), "hst_stream", "arrays[%u].kind %d is not an hst_stream_kind", i, (int)a->kind);
        if (a->kind == HST_STREAM_GLOBAL) {
            if (!a->global_bytes || !a->host == !a->buffers || a->pinned || a->pinned_array)
                return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u] is GLOBAL: give global_bytes > 0 and "
                                 "exactly one of host memory and buffers", i);
            if ((a->dtype != HST_F32 && a->dtype != HST_F64) || a->global_bytes % hst_dtype_size(a->dtype))
                return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u] is GLOBAL: dtype f32 or f64, global_bytes a multiple of it", i);
            if (a->buffers && (r = hst__check_global_buffers(d, i)) != HST_SUCCESS) return r;
            continue;
        }
        if (!a->slice_bytes) return hst__zero_arg(hst__desc_be(d), "hst_stream", "arrays[%u].slice_bytes is 0", i);
        if (d->num_slices > SIZE_MAX || !hst_size_mul(a->slice_bytes, (size_t)d->num_slices, &total))
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "arrays[%u]: %llu slices of %zu bytes overflow size_t",
                             i, (unsigned long long)d->num_slices, a->slice_bytes);
        if (a->kind == HST_STREAM_TEMP && (a->host || a->pinned || a->pinned_array))
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u] is TEMP (device only) but has host memory", i);
        /* with ranks the memory may come after create, once the rank knows its range */
        if (a->kind != HST_STREAM_TEMP && (!a->host + !a->pinned + !a->pinned_array) != 2 &&
            !(d->mpi_comm && !a->host && !a->pinned && !a->pinned_array))
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u]: give exactly one of host, pinned and "
                             "pinned_array%s", i, d->mpi_comm ? " (or none, given later by hst_stream_set_array)" : "");
    }
    return HST_SUCCESS;
}

static hst_result hst__check_binding(const hst_stream_desc *d, unsigned s, const char *what,
                                     unsigned n, const int *idx, const int *written) {
    unsigned k;
    if (n > HST_STREAM_MAX_BINDINGS || (n && !idx))
        return hst__range_arg(hst__desc_be(d), "hst_stream", "stages[%u].%s: %u bindings (at most %d, and the list must not be NULL)",
                         s, what, n, HST_STREAM_MAX_BINDINGS);
    for (k = 0; k < n; k++) {
        int a = idx[k];
        if (a < 0 || (unsigned)a >= d->num_arrays)
            return hst__range_arg(hst__desc_be(d), "hst_stream", "stages[%u].%s[%u] = %d is not an array index", s, what, k, a);
        if (what[0] == 'o' && d->arrays[a].kind == HST_STREAM_INPUT)
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] writes arrays[%d], an INPUT", s, a);
        if (what[0] == 'i' && (d->arrays[a].kind == HST_STREAM_TEMP || d->arrays[a].kind == HST_STREAM_OUTPUT) && !written[a])
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] reads arrays[%d] before any stage writes it", s, a);
    }
    return HST_SUCCESS;
}

/* Bytes of a scalar of a signature word (HST_KARG_VALUE: any, SIZE_MAX); 0: not a scalar. */
static size_t hst__word_bytes(hst_karg_kind k) {
    switch (k) {
    case HST_KARG_INT: case HST_KARG_UINT: case HST_KARG_FLOAT: return 4;
    case HST_KARG_LONG: case HST_KARG_ULONG: case HST_KARG_DOUBLE: return 8;
    case HST_KARG_VALUE: return SIZE_MAX;
    default: return 0;
    }
}

/* A declared stage's kernel against the stage: "global" per binding, a word per scalar that
   takes its bytes, the block arguments (hst_stream_stage). */
static hst_result hst__check_declared(const hst_stream_desc *d, unsigned s) {
    static const hst_karg_kind blk[5] = {HST_KARG_ULONG, HST_KARG_ULONG, HST_KARG_ULONG, HST_KARG_ULONG, HST_KARG_INT};
    const hst_stream_stage *st = &d->stages[s];
    const char *name = st->name ? st->name : "unnamed", *fam = st->family->name ? st->family->name : "?";
    unsigned arrays = st->num_inputs + st->num_outputs, i;
    hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
    const hst_kernel_decl *k;
    int n;
    if (!st->family->kernels || st->family_kernel >= st->family->num_kernels)
        return hst__range_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\").family_kernel %u: family %s has %u "
                              "kernels", s, name, st->family_kernel, fam, st->family->kernels ? st->family->num_kernels : 0);
    k = &st->family->kernels[st->family_kernel];
    if ((n = hst_kernel_signature(k, kinds, HST_KERNEL_MAX_ARGS)) != (int)(arrays + st->num_scalars + 5))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\"): %s.%s declares %d arguments (\"%s\"), "
                            "the stage gives %u (%u arrays, %u scalars, 5 block arguments)", s, name, fam, k->name, n,
                            k->signature ? k->signature : "(NULL)", arrays + st->num_scalars + 5, arrays, st->num_scalars);
    for (i = 0; i < (unsigned)n; i++) {
        unsigned j = i - arrays;
        size_t want = hst__word_bytes(kinds[i]);
        if (i < arrays ? kinds[i] == HST_KARG_GLOBAL
            : j < st->num_scalars ? want == SIZE_MAX || (want && want == st->scalar_bytes[j])
            : kinds[i] == blk[j - st->num_scalars]) continue;
        if (i >= arrays && j < st->num_scalars)
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\"): argument %u of %s.%s is declared `%s`, "
                                "scalars[%u] gives %zu bytes", s, name, i, fam, k->name, hst_karg_kind_word(kinds[i]), j,
                                st->scalar_bytes[j]);
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\"): argument %u of %s.%s is declared `%s`, the "
                            "stage gives %s there", s, name, i, fam, k->name, hst_karg_kind_word(kinds[i]),
                            i < arrays ? "an array (`global`)" : "a block argument (`ulong` x4, `int`)");
    }
    if (!st->host && !k->twin && hst_backend_is_host(d->backends[0]))
        return hst__null_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\") has no host twin (host is NULL and "
                             "%s.%s declares none): select an OpenCL device", s, name, fam, k->name);
    return HST_SUCCESS;
}

/* What runs stage s: a call, a declared kernel, or a kernel from sources with, on the host
   device, its host twin (which the host device needs: it has no OpenCL). */
static hst_result hst__check_kernel(const hst_stream_desc *d, unsigned s) {
    const hst_stream_stage *st = &d->stages[s];
    const char *name = st->name ? st->name : "unnamed";
    if (st->arrays_fn && (st->kernel || st->sources || st->num_sources || st->options || st->host || st->family))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\") has arrays_fn and also %s: a stage "
                            "is a call (arrays_fn) or a kernel with its host twin, not both", s, name,
                            st->kernel ? "a kernel" : st->sources || st->num_sources ? "sources"
                            : st->options ? "options" : st->family ? "a family" : "a host twin");
    if (st->arrays_fn) return HST_SUCCESS;
    if (st->family && (st->kernel || st->sources || st->num_sources))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\") has a family and also %s: a declared "
                            "kernel or one from sources, not both", s, name, st->kernel ? "a kernel" : "sources");
    if (st->family) return HST_SUCCESS;   /* checked with its bindings (hst__check_declared) */
    if (!st->host && hst_backend_is_host(d->backends[0]))
        return hst__null_arg(hst__desc_be(d), "hst_stream", "stages[%u] (\"%s\") has no host twin (host is NULL): "
                             "the host device runs every stage from sources through its host twin", s, name);
    if (!hst_backend_is_host(d->backends[0]) && (!st->sources || !st->num_sources || !st->kernel))
        return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u]: an OpenCL device needs sources and a kernel name "
                            "(or a family, a declared kernel; or arrays_fn, a call)", s);
    return HST_SUCCESS;
}

static hst_result hst__check_stages(const hst_stream_desc *d) {
    unsigned s;
    int written[HST_STREAM_MAX_ARRAYS] = {0};
    hst_result r;
    if (!d->stages || d->num_stages < 1 || d->num_stages > HST_STREAM_MAX_STAGES)
        return hst__range_arg(hst__desc_be(d), "hst_stream", "num_stages %u: give 1..%d stages", d->num_stages, HST_STREAM_MAX_STAGES);
    for (s = 0; s < d->num_stages; s++) {
        const hst_stream_stage *st = &d->stages[s];
        unsigned k;
        if ((r = hst__check_kernel(d, s)) != HST_SUCCESS) return r;
        if (!st->arrays_fn && !st->items_per_slice)
            return hst__zero_arg(hst__desc_be(d), "hst_stream", "stages[%u].items_per_slice is 0", s);
        if (st->num_inputs + st->num_outputs == 0)
            return hst__zero_arg(hst__desc_be(d), "hst_stream", "stages[%u] binds no array", s);
        if (st->num_scalars > HST_STREAM_MAX_SCALARS)
            return hst__range_arg(hst__desc_be(d), "hst_stream", "stages[%u].num_scalars %u > %d", s, st->num_scalars, HST_STREAM_MAX_SCALARS);
        for (k = 0; k < st->num_scalars; k++)
            if (!st->scalars[k] || !st->scalar_bytes[k])
                return hst__null_arg(hst__desc_be(d), "hst_stream", "stages[%u].scalars[%u] is NULL or has 0 bytes", s, k);
        if ((r = hst__check_binding(d, s, "inputs", st->num_inputs, st->inputs, written)) != HST_SUCCESS) return r;
        if ((r = hst__check_binding(d, s, "outputs", st->num_outputs, st->outputs, written)) != HST_SUCCESS) return r;
        if (st->family && (r = hst__check_declared(d, s)) != HST_SUCCESS) return r;
        for (k = 0; k < st->num_outputs; k++) written[st->outputs[k]] = 1;
    }
    return HST_SUCCESS;
}

/* An f64 or c128 accumulator needs fp64 on every device (its elements are doubles). */
static hst_result hst__check_acc_fp64(const hst_stream_desc *d, unsigned acc) {
    unsigned k;
    for (k = 0; k < d->num_backends; k++)
        if (!hst_backend_device(d->backends[k])->fp64)
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "hst_stream",
                                    "accumulators[%u].dtype %s: backends[%u]'s device has no fp64", acc,
                                    hst_dtype_name(d->accumulators[acc].dtype), k);
    return HST_SUCCESS;
}

static hst_result hst__check_accs(const hst_stream_desc *d) {
    hst_result r;
    unsigned i;
    if (d->num_accumulators > HST_STREAM_MAX_ACCUMULATORS || (d->num_accumulators && !d->accumulators))
        return hst__range_arg(hst__desc_be(d), "hst_stream", "num_accumulators %u (at most %d)", d->num_accumulators, HST_STREAM_MAX_ACCUMULATORS);
    for (i = 0; i < d->num_accumulators; i++) {
        const hst_stream_acc *a = &d->accumulators[i];
        size_t es = hst_dtype_size(a->dtype);
        if (a->kind < HST_STREAM_SUM || a->kind > HST_STREAM_DIFF2)
            return hst__range_arg(hst__desc_be(d), "hst_stream", "accumulators[%u].kind %d", i, (int)a->kind);
        if (a->dtype != HST_F32 && a->dtype != HST_C64 && a->dtype != HST_F64 && a->dtype != HST_C128)
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "accumulators[%u].dtype: f32, c64, f64 or c128", i);
        if (hst_dtype_needs_fp64(a->dtype) && (r = hst__check_acc_fp64(d, i)) != HST_SUCCESS)
            return r;
        if (a->a < 0 || (unsigned)a->a >= d->num_arrays || (a->kind == HST_STREAM_DIFF2 && (a->b < 0 || (unsigned)a->b >= d->num_arrays)))
            return hst__range_arg(hst__desc_be(d), "hst_stream", "accumulators[%u]: array index out of range", i);
        if (d->arrays[a->a].kind == HST_STREAM_GLOBAL || (a->kind == HST_STREAM_DIFF2 && d->arrays[a->b].kind == HST_STREAM_GLOBAL))
            return hst__bad_arg(hst__desc_be(d), "hst_stream", "accumulators[%u]: GLOBAL arrays have no slices", i);
        if (d->arrays[a->a].slice_bytes % es)
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "accumulators[%u]: a slice of %zu bytes is not whole %s elements",
                             i, d->arrays[a->a].slice_bytes, hst_dtype_name(a->dtype));
        if (a->kind == HST_STREAM_DIFF2 && d->arrays[a->a].slice_bytes != d->arrays[a->b].slice_bytes)
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "accumulators[%u]: a and b differ in slice size", i);
    }
    return HST_SUCCESS;
}

/* Host memory of array i as one pointer (NULL for TEMP, and for a pinned array in chunks
   apart, which only OpenCL devices take). */
static unsigned char *hst__sarray_host(const hst_stream_array *a) {
    return (unsigned char *)(a->pinned ? hst_buffer_host_ptr(a->pinned)
                             : a->pinned_array ? hst_stream_pinned_host(a->pinned_array)
                             : a->buffers ? hst_buffer_host_ptr(a->buffers[0]) : a->host);
}

static int hst__is_pinned(const hst_stream_array *a) { return a->pinned || a->pinned_array; }
static int hst__has_memory(const hst_stream_array *a) { return a->host || hst__is_pinned(a); }
static int hst__sliced(const hst_stream_array *a) {   /* with caller memory of slices */
    return a->kind != HST_STREAM_TEMP && a->kind != HST_STREAM_GLOBAL;
}

/* The caller memory of every sliced array against the slices this rank holds; arrays without
   memory yet (mpi_comm) are checked when it comes (hst_stream_set_array(s)). */
static hst_result hst__check_local_memory(const hst_stream *s) {
    unsigned i;
    hst_result r;
    for (i = 0; i < s->desc.num_arrays; i++)
        if (hst__sliced(&s->arrays[i]) &&
            (r = hst__check_pinned(s, i, s->arrays[i].pinned, s->arrays[i].pinned_array)) != HST_SUCCESS) return r;
    return HST_SUCCESS;
}

/* Slice z of array a's caller memory (z counted from its first slice: global slice load0), and
   how many slices lie contiguously from it. */
static unsigned char *hst__slice_run(const hst_stream_array *a, uint64_t z, uint64_t *run) {
    if (a->pinned_array) return (unsigned char *)hst_stream_pinned_slice(a->pinned_array, z, run);
    *run = UINT64_MAX;
    return hst__sarray_host(a) + (size_t)z * a->slice_bytes;
}

/* Global slice z of array a's caller memory, which holds this rank's slices from load0 on. */
static unsigned char *hst__host_slice(const hst_stream *s, const hst_stream_array *a, uint64_t z) {
    return hst__sarray_host(a) + (size_t)(z - s->load0) * a->slice_bytes;
}

/* Whether the host memory of a and b (N slices each) overlaps, chunk by chunk; memory not yet
   given overlaps nothing. */
static int hst__overlap(const hst_stream_array *a, const hst_stream_array *b, uint64_t N) {
    uint64_t za, zb, ra = 0, rb = 0;
    if (!hst__has_memory(a) || !hst__has_memory(b)) return 0;
    for (za = 0; za < N; za += ra) {
        const unsigned char *p = hst__slice_run(a, za, &ra);
        if (ra > N - za) ra = N - za;
        for (zb = 0; zb < N; zb += rb) {
            const unsigned char *q = hst__slice_run(b, zb, &rb);
            if (rb > N - zb) rb = N - zb;
            if (p < q + (size_t)rb * b->slice_bytes && q < p + (size_t)ra * a->slice_bytes) return 1;
        }
    }
    return 0;
}

/* An array written to the caller's memory must not be read there beyond the owned slices of
   the block writing it: a later block would read slices an earlier block already replaced. */
static hst_result hst__check_aliasing(const hst_stream *str) {
    const hst_stream_desc *d = &str->desc;
    const hst_stream_array *arrays = str->arrays;
    const uint64_t *ext_lo = str->plan.ext_lo, *ext_hi = str->plan.ext_hi;
    unsigned s, w, k;
    for (s = 0; s < d->num_stages; s++) {
        const hst_stream_stage *st = &d->stages[s];
        /* inputs are read with the stage's halo; an output (in place, for INOUT) only at the
           slices being computed, which go beyond the owned ones when a later stage has a halo */
        uint64_t N = d->num_slices;
        uint64_t reach_out = hst__reach(ext_lo[s], ext_hi[s], N);
        uint64_t reach_in = hst__reach(hst__reach(reach_out, st->halo_lo, N), st->halo_hi, N);
        for (k = 0; k < st->num_outputs; k++)
            if (arrays[st->outputs[k]].kind == HST_STREAM_GLOBAL && (ext_lo[s] || ext_hi[s]))
                return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] updates GLOBAL arrays[%d] but computes "
                                 "beyond the owned slices (a later stage has a halo): slices would count twice", s, st->outputs[k]);
        for (k = 0; k < st->num_inputs + st->num_outputs; k++) {
            int a = k < st->num_inputs ? st->inputs[k] : st->outputs[k - st->num_inputs];
            const hst_stream_array *ra = &arrays[a];
            if (!(k < st->num_inputs ? reach_in : reach_out) || ra->kind == HST_STREAM_TEMP ||
                ra->kind == HST_STREAM_GLOBAL) continue;
            if (k >= st->num_inputs && ra->kind == HST_STREAM_OUTPUT) continue;   /* written only */
            if (ra->kind == HST_STREAM_INOUT)
                return hst__bad_arg(hst__desc_be(d), "hst_stream", "stages[%u] reads INOUT arrays[%d] beyond the "
                                 "owned slices (halo or a later stage's halo): the result would depend on the "
                                 "block order; use separate input and output arrays", s, a);
            for (w = 0; w < d->num_arrays; w++) {
                const hst_stream_array *wa = &arrays[w];
                if ((int)w == a || (wa->kind != HST_STREAM_OUTPUT && wa->kind != HST_STREAM_INOUT)) continue;
                if (hst__overlap(wa, ra, str->load1 - str->load0))
                    return hst__bad_arg(hst__desc_be(d), "hst_stream", "arrays[%u] (written) overlaps arrays[%d], "
                                     "which stages[%u] reads with a halo: refused, the streamed result would "
                                     "differ from the whole-array one", w, a, s);
            }
        }
    }
    return HST_SUCCESS;
}

/* >>setup ------------------------------------------------------------------------------------ */
/* ext: how far beyond the owned slices each stage must compute so that later stages find their
   halos computed; the chain's halo (the loaded range) is stage 0's reach. Every reach is
   clamped to N - 1 (hst__reach): slices outside [0, N) are never loaded or computed, so a
   larger halo loads the same slices, and the sums cannot overflow. */
static void hst__plan_extents(hst__plan *p) {
    unsigned st = p->desc->num_stages;
    uint64_t lo = 0, hi = 0, N = p->desc->num_slices;
    while (st-- > 0) {
        p->ext_lo[st] = lo;
        p->ext_hi[st] = hi;
        lo = hst__reach(lo, p->desc->stages[st].halo_lo, N);
        hi = hst__reach(hi, p->desc->stages[st].halo_hi, N);
    }
    p->halo_lo = lo;
    p->halo_hi = hi;
}

/* The plan of a checked description (d must outlive it). */
static void hst__plan_make(const hst_stream_desc *d, hst__plan *p) {
    unsigned i;
    memset(p, 0, sizeof *p);
    p->desc = d;
    p->ring = d->ring ? d->ring : HST__STREAM_DEFAULT_RING;
    p->host = hst_backend_is_host(d->backends[0]);
    p->acc_bytes = 8;
    for (i = 0; i < d->num_backends; i++)
        if (!hst_backend_device(d->backends[i])->fp64) p->acc_bytes = 4;
    hst__plan_extents(p);
}

/* On the host device an output is written straight into the caller's array unless a stage
   computes it beyond the owned slices (those slices belong to other blocks). */
static int hst__needs_scratch(const hst__plan *p, unsigned a) {
    const hst_stream_desc *d = p->desc;
    unsigned st;
    if (d->arrays[a].kind == HST_STREAM_TEMP) return 1;
    if (d->arrays[a].kind == HST_STREAM_GLOBAL) return 0;   /* the caller's, whole */
    for (st = 0; st < d->num_stages; st++)
        if ((p->ext_lo[st] || p->ext_hi[st]) && hst__stream_writes(&d->stages[st], (int)a)) return 1;
    return 0;
}

static size_t hst__slice_sum(const hst_stream_desc *d) {
    size_t t = 0;
    unsigned i;
    for (i = 0; i < d->num_arrays; i++)
        if (d->arrays[i].kind != HST_STREAM_GLOBAL) t += d->arrays[i].slice_bytes;
    return t ? t : 1;   /* a chain of GLOBAL arrays alone still walks its slices */
}

static uint64_t hst__global_sum(const hst_stream_desc *d) {
    uint64_t t = 0;
    unsigned i;
    for (i = 0; i < d->num_arrays; i++)   /* the caller's buffers exist already */
        if (d->arrays[i].kind == HST_STREAM_GLOBAL && !d->arrays[i].buffers) t += d->arrays[i].global_bytes;
    return t;
}

/* >>copy model ------------------------------------------------------------------------------- */
static const char *const hst__copy_impl[2] = {"up", "down"};

/* Finds the backend's copy operation or registers it. */
static hst_result hst__copy_op(hst_backend *be, hst_choice_op **out) {
    hst_choice_impl impls[2];
    hst_choice_op_desc od;
    if ((*out = hst_choice_find(be, HST_STREAM_COPY_OP)) != NULL) return HST_SUCCESS;
    memset(impls, 0, sizeof impls);
    memset(&od, 0, sizeof od);
    impls[0].name = hst__copy_impl[0];
    impls[1].name = hst__copy_impl[1];
    od.name = HST_STREAM_COPY_OP;
    od.impls = impls;
    od.num_impls = 2;
    return hst_choice_register(be, &od, out);
}

HST__SDEF hst_choice_op *hst_stream_copy_op(hst_backend *be) {
    hst_choice_op *op = NULL;
    if (!be || hst_backend_is_host(be)) return NULL;
    if (hst__copy_op(be, &op) != HST_SUCCESS)
        hst_backend_log(be, HST_LOG_WARN, HST_LOGITEM_CHOICE_FAILED, "hst_stream: the operation %s could not be registered",
                        HST_STREAM_COPY_OP);
    return op;
}

/* Measured seconds (the registry's lower median, this device, exactly this size) of the copy
   direction `dir` at `bytes`; 0 when there are none, or when the op is not the stream's. */
static double hst__copy_seconds(const hst_choice_op *op, unsigned dir, int64_t bytes) {
    hst_choice_stat st[HST_CHOICE_MAX_IMPLS];
    size_t count = 0;
    if (hst_choice_stats(op, &bytes, 1, st, HST_CHOICE_MAX_IMPLS, &count) != HST_SUCCESS || count != 2 ||
        strcmp(st[dir].impl, hst__copy_impl[dir]) != 0)
        return 0.0;
    return st[dir].source == HST_CHOICE_EXACT && st[dir].seconds > 0.0 ? st[dir].seconds : 0.0;
}

/* One blocking copy each way at each probe size, timed HST_STREAM_COPY_REPS times after a
   warm-up; the median of each is recorded where the op has no timing yet. */
static hst_result hst__copy_measure(hst_backend *be, hst_choice_op *op) {
    static const int64_t sizes[2] = {HST_STREAM_COPY_SMALL_BYTES, HST_STREAM_COPY_LARGE_BYTES};
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *pin = NULL, *dev = NULL;
    unsigned z, dir, k, j, known = 0;
    hst_result r;
    for (z = 0; z < 4; z++) known += hst__copy_seconds(op, z & 1, sizes[z >> 1]) > 0.0;
    if (known == 4) return HST_SUCCESS;
    r = hst_pinned_create(be, HST_STREAM_COPY_LARGE_BYTES, &pin);
    if (r == HST_SUCCESS) r = hst_buffer_create(be, HST_STREAM_COPY_LARGE_BYTES, HST_MEM_RESIDENT, &dev);
    if (r == HST_SUCCESS) memset(hst_buffer_host_ptr(pin), 0, HST_STREAM_COPY_LARGE_BYTES);
    for (z = 0; z < 2 && r == HST_SUCCESS; z++)
        for (dir = 0; dir < 2 && r == HST_SUCCESS; dir++) {
            double t[HST_STREAM_COPY_REPS + 1], tmp;
            if (hst__copy_seconds(op, dir, sizes[z]) > 0.0) continue;
            for (k = 0; k <= HST_STREAM_COPY_REPS && r == HST_SUCCESS; k++) {   /* k = 0: warm-up */
                t[k] = hst__now_s();
                r = dir == 0 ? hst_write(q, dev, 0, hst_buffer_host_ptr(pin), (size_t)sizes[z], 1, 0, NULL, NULL)
                             : hst_read(q, dev, 0, hst_buffer_host_ptr(pin), (size_t)sizes[z], 1, 0, NULL, NULL);
                t[k] = hst__now_s() - t[k];
                for (j = k; j > 1 && t[j - 1] > t[j]; j--) { tmp = t[j]; t[j] = t[j - 1]; t[j - 1] = tmp; }
            }
            if (r == HST_SUCCESS)
                r = hst_choice_record(op, &sizes[z], 1, hst__copy_impl[dir], t[1 + HST_STREAM_COPY_REPS / 2]);
        }
    hst_buffer_destroy(dev);
    hst_buffer_destroy(pin);
    return r;
}

HST__SDEF hst_result hst_stream_copy_model(hst_backend *be, double *overhead_s, double *bytes_per_s) {
    const double S = HST_STREAM_COPY_SMALL_BYTES, L = HST_STREAM_COPY_LARGE_BYTES;
    hst_choice_op *op = NULL;
    unsigned dir;
    hst_result r;
    if (!be || !overhead_s || !bytes_per_s)
        return hst__null_arg(be, "hst_stream", "hst_stream_copy_model: %s is NULL",
                         !be ? "be" : !overhead_s ? "overhead_s" : "bytes_per_s");
    *overhead_s = *bytes_per_s = 0.0;
    if (hst_backend_is_host(be)) return HST_SUCCESS;
    if ((r = hst__copy_op(be, &op)) != HST_SUCCESS || (r = hst__copy_measure(be, op)) != HST_SUCCESS) return r;
    for (dir = 0; dir < 2; dir++) {
        double ts = hst__copy_seconds(op, dir, HST_STREAM_COPY_SMALL_BYTES);
        double tl = hst__copy_seconds(op, dir, HST_STREAM_COPY_LARGE_BYTES);
        double bw = tl > ts ? (L - S) / (tl - ts) : L / tl;
        if (!(ts > 0.0 && tl > 0.0))
            return hst__bad_arg(be, "hst_stream", "hst_stream_copy_model: %s is not halostream's copy "
                             "operation (its implementations differ)", HST_STREAM_COPY_OP);
        if (ts > *overhead_s) *overhead_s = ts;
        if (dir == 0 || bw < *bytes_per_s) *bytes_per_s = bw;
    }
    return HST_SUCCESS;
}

/* The device's copy model for the default block; without one, the fallback figures (logged). */
static void hst__copy_model_or_fallback(hst_backend *be, double *t0, double *bw) {
    hst_result r = hst_stream_copy_model(be, t0, bw);
    if (r == HST_SUCCESS) return;
    hst_backend_log(be, HST_LOG_WARN, HST_LOGITEM_CHOICE_FAILED, "hst_stream: the copy model of %s is unknown (%s): "
                    "the default block assumes %g s per command and %g bytes/s", hst_backend_device(be)->name,
                    hst_result_string(r), HST_STREAM_COPY_FALLBACK_OVERHEAD_S, HST_STREAM_COPY_FALLBACK_BYTES_PER_S);
    *t0 = HST_STREAM_COPY_FALLBACK_OVERHEAD_S;
    *bw = HST_STREAM_COPY_FALLBACK_BYTES_PER_S;
}

/* >>block size: one decision, for create and hst_stream_block_query ------------------------- */
/* The rule of the default block (top comment) for n slices of one device; UINT64_MAX when
   the chain moves nothing (the budget alone decides). */
static uint64_t hst__rule_block(const hst__plan *p, uint64_t n, double t0, double bw) {
    const hst_stream_desc *d = p->desc;
    double w = 0.0, c = 0.0, u = 0.0, fill, slots, dma, b;
    double h = (double)hst__reach(p->halo_lo, p->halo_hi, d->num_slices);
    unsigned i;
    for (i = 0; i < d->num_arrays; i++) {
        hst_stream_kind k = d->arrays[i].kind;
        int up = k == HST_STREAM_INPUT || k == HST_STREAM_INOUT, down = k == HST_STREAM_OUTPUT || k == HST_STREAM_INOUT;
        w += (double)(up + down) * (double)d->arrays[i].slice_bytes;
        u += (double)up * (double)d->arrays[i].slice_bytes;
        c += up + down;
    }
    if (w == 0.0) return UINT64_MAX;
    fill = floor(sqrt((double)n * (c * t0 * bw + h * u) / w) + 0.5);
    slots = floor((double)n / (HST__STREAM_BLOCKS_PER_SLOT * (double)p->ring));
    dma = ceil(HST__STREAM_COPY_OVER_OVERHEAD * c * t0 * bw / w);
    b = fill < slots ? fill : slots;
    if (b < dma) b = dma;
    return b < 1.0 ? 1 : b >= (double)n ? n : (uint64_t)b;
}

/* The largest B whose ring fits one device: K slots of (B + halo) slices of every array, each
   buffer within CL_DEVICE_MAX_MEM_ALLOC_SIZE. 0 when not even B = 1 fits (*need: bytes). */
static uint64_t hst__max_block(const hst__plan *p, const hst_backend *be, uint64_t *need) {
    const hst_stream_desc *d = p->desc;
    const hst_device_info *info = hst_backend_device(be);
    uint64_t H = hst__reach(p->halo_lo, p->halo_hi, d->num_slices), per = hst__slice_sum(d), budget, b, accs;
    unsigned i;
    accs = (uint64_t)d->num_accumulators * d->num_slices * (uint64_t)p->acc_bytes + hst__global_sum(d);
    budget = d->budget_bytes ? d->budget_bytes
           : info->global_mem_bytes / HST__STREAM_DEFAULT_BUDGET_DEN * HST__STREAM_DEFAULT_BUDGET_NUM;
    *need = (uint64_t)p->ring * (1 + H) * per + accs;
    if (budget < *need) return 0;
    b = (budget - accs) / p->ring / per - H;
    for (i = 0; i < d->num_arrays; i++) {
        uint64_t fit;
        if (d->arrays[i].kind == HST_STREAM_GLOBAL) {
            if (!d->arrays[i].buffers && d->arrays[i].global_bytes > info->max_alloc_bytes) return 0;
            continue;
        }
        fit = info->max_alloc_bytes / d->arrays[i].slice_bytes;
        if (fit <= H) return 0;
        if (fit - H < b) b = fit - H;
    }
    return b;
}

/* The largest block under the budget on every device: the ring's K slots of (B + halo) slices
   (OpenCL devices), one block's scratch (the host device: all N without a budget). Logged
   HST_ERROR_OUT_OF_DEVICE_MEMORY when not even B = 1 fits. At most own (the rank's slices). */
static hst_result hst__largest_block(const hst__plan *p, uint64_t own, uint64_t *largest) {
    const hst_stream_desc *d = p->desc;
    uint64_t b = d->num_slices, need = 0, m;
    unsigned k;
    if (p->host) {   /* no ring on the host: the budget bounds one block's scratch */
        uint64_t per = hst__slice_sum(d), H = hst__reach(p->halo_lo, p->halo_hi, d->num_slices);
        if (d->budget_bytes && d->budget_bytes / per <= H)
            return hst_backend_fail(hst__desc_be(d), HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                                    "hst_stream", "the budget cannot hold one block on the host device: at least "
                                    "%llu bytes", (unsigned long long)((H + 1) * per));
        if (d->budget_bytes) b = d->budget_bytes / per - H;
    } else {
        for (k = 0; k < d->num_backends; k++) {
            if ((m = hst__max_block(p, d->backends[k], &need)) == 0)
                return hst_backend_fail(hst__desc_be(d), HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                                        "hst_stream", "the budget cannot hold one block on %s: the ring of %u slots "
                                        "needs at least %llu bytes (and every buffer within the device's largest "
                                        "allocation)", hst_backend_device(d->backends[k])->name, p->ring,
                                        (unsigned long long)need);
            if (m < b) b = m;
        }
    }
    *largest = b < own ? b : own;
    return HST_SUCCESS;
}

/* The default rule's block (top comment), per device over its share of own slices, within
   `largest`. */
static uint64_t hst__default_block(const hst__plan *p, uint64_t own, uint64_t largest) {
    const hst_stream_desc *d = p->desc;
    uint64_t b = largest, m, n = own / d->num_backends + (own % d->num_backends != 0);
    unsigned k;
    if (p->host) return b;
    for (k = 0; k < d->num_backends; k++) {
        double t0, bw;
        hst__copy_model_or_fallback(d->backends[k], &t0, &bw);
        if ((m = hst__rule_block(p, n, t0, bw)) < b) b = m;
    }
    return b;
}

/* The device bytes of a block of b slices: the ring's buffers, the accumulators' slices and the
   GLOBAL arrays the stream allocates (OpenCL); one block's scratch (the host device). */
static uint64_t hst__block_bytes(const hst__plan *p, uint64_t b) {
    const hst_stream_desc *d = p->desc;
    uint64_t N = d->num_slices, loaded = b + p->halo_lo + p->halo_hi, bytes = 0;
    unsigned i;
    if (loaded > N) loaded = N;
    for (i = 0; i < d->num_arrays; i++)
        if (p->host ? hst__needs_scratch(p, i) : d->arrays[i].kind != HST_STREAM_GLOBAL)
            bytes += loaded * d->arrays[i].slice_bytes;
    if (p->host) return bytes;
    return (uint64_t)p->ring * bytes + (uint64_t)d->num_accumulators * N * (uint64_t)p->acc_bytes +
           hst__global_sum(d);
}

/* THE block decision, over own slices (the rank's): desc.block_slices (at most own) when it
   fits, else (strict: create) refused or (the query) the largest; without a wish the default
   rule's. */
static hst_result hst__block_plan(const hst__plan *p, uint64_t own, int strict, hst_stream_block_info *info) {
    uint64_t wish = p->desc->block_slices < own ? p->desc->block_slices : own;
    hst_result r = hst__largest_block(p, own, &info->largest_slices);
    if (r != HST_SUCCESS) return r;
    if (strict && wish > info->largest_slices)
        return hst_backend_fail(hst__desc_be(p->desc), HST_ERROR_OUT_OF_DEVICE_MEMORY, HST_LOGITEM_OUT_OF_DEVICE_MEMORY,
                                "hst_stream", "block_slices %llu does not fit: at most %llu (hst_stream_block_query "
                                "gives the largest)", (unsigned long long)p->desc->block_slices,
                                (unsigned long long)info->largest_slices);
    info->block_slices = !wish ? hst__default_block(p, own, info->largest_slices)
                       : wish < info->largest_slices ? wish : info->largest_slices;
    info->device_bytes = hst__block_bytes(p, info->block_slices);
    return HST_SUCCESS;
}

static hst_result hst__stream_validate(const hst_stream_desc *d);

HST__SDEF hst_result hst_stream_block_query(const hst_stream_desc *desc, hst_stream_block_info *info) {
    hst__plan p;
    hst_result r;
    if (!info) return hst__null_arg(hst__desc_be(desc), "hst_stream", "hst_stream_block_query: info is NULL");
    memset(info, 0, sizeof *info);
    if (!desc) return hst__null_arg(NULL, "hst_stream", "hst_stream_block_query: desc is NULL");
    if ((r = hst__stream_validate(desc)) != HST_SUCCESS) return r;
    hst__plan_make(desc, &p);
    if ((r = hst__block_plan(&p, desc->num_slices, 0, info)) != HST_SUCCESS) memset(info, 0, sizeof *info);
    return r;
}

/* >>split ------------------------------------------------------------------------------------
   The registry's timings-only op gives each device's speed (see hst_stream_choice_op). */
/* Little-endian bytes, so the name (and the timings file's key) is the same on every host. */
static uint64_t hst__fnv_u64(uint64_t h, uint64_t v) {
    unsigned char b[8];
    unsigned i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return hst_hash_bytes(h, b, sizeof b);
}

/* With its NUL, so "ab" + "c" and "a" + "bc" differ. NULL hashes as "". */
static uint64_t hst__fnv_str(uint64_t h, const char *str) {
    return str ? hst_hash_bytes(h, str, strlen(str) + 1) : hst_hash_bytes(h, "", 1);
}

/* What a slice costs on the devices, except its size (the signature holds that, bucketed, so
   streams of similar slice sizes share timings): the stages, the kinds of the arrays, the
   accumulators, and the devices in order. Scalar values may change between runs: left out. */
static uint64_t hst__split_hash(const hst_stream *s, char (*ids)[512]) {
    uint64_t h = hst__fnv_u64(HST_HASH_SEED, s->desc.num_backends);
    unsigned i, k;
    for (i = 0; i < s->desc.num_backends; i++) h = hst__fnv_str(h, ids[i]);
    for (i = 0; i < s->desc.num_stages; i++) {
        const hst_stream_stage *g = &s->stages[i];
        h = hst__fnv_str(h, g->name);
        h = hst__fnv_u64(h, g->arrays_fn != NULL);   /* a call (its address is no identity) */
        if (!s->plan.host && !g->arrays_fn) {   /* the host device reads none of these: they may be unset there */
            h = hst__fnv_str(hst__fnv_u64(h, g->num_sources), g->kernel);
            for (k = 0; k < g->num_sources; k++) h = hst__fnv_str(h, g->sources[k]);
            h = hst__fnv_str(h, g->options);
            if (g->family)   /* a declared kernel: its family's and its own names */
                h = hst__fnv_str(hst__fnv_str(h, g->family->name), g->family->kernels[g->family_kernel].name);
        }
        h = hst__fnv_u64(hst__fnv_u64(h, g->num_inputs), g->num_outputs);
        for (k = 0; k < g->num_inputs + g->num_outputs; k++)
            h = hst__fnv_u64(h, (uint64_t)(k < g->num_inputs ? g->inputs[k]
                                                           : g->outputs[k - g->num_inputs]));
        h = hst__fnv_u64(hst__fnv_u64(h, g->halo_lo), g->halo_hi);
        h = hst__fnv_u64(hst__fnv_u64(h, g->local_size), (uint64_t)g->loop_slices);
        h = hst__fnv_u64(h, g->items_per_slice);
        h = hst__fnv_u64(h, g->num_scalars);
    }
    for (i = 0; i < s->desc.num_arrays; i++) {   /* fields a kind ignores may hold anything */
        const hst_stream_array *a = &s->arrays[i];
        int global = a->kind == HST_STREAM_GLOBAL;
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->kind), global ? (uint64_t)a->dtype : 0);
    }
    for (i = 0; i < s->desc.num_accumulators; i++) {
        const hst_stream_acc *a = &s->accs[i];
        int b = a->kind == HST_STREAM_DIFF2 ? a->b : -1;
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->kind), (uint64_t)a->dtype);
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->a), (uint64_t)b);
    }
    return h;
}

static void hst__split_impl_name(unsigned d, char *buf, size_t cap) {
    snprintf(buf, cap, "d%u", d);
}

/* The devices' identities ("name | driver version") and the op's name for this chain. */
static void hst__split_name(const hst_stream *s, char (*ids)[512], char *op_name, size_t cap) {
    unsigned d;
    for (d = 0; d < s->desc.num_backends; d++) {
        const hst_device_info *info = hst_backend_device(s->backends[d]);
        snprintf(ids[d], sizeof ids[d], "%s | %s", info->name, info->driver_version);
    }
    snprintf(op_name, cap, "stream_split_%016llx", (unsigned long long)hst__split_hash(s, ids));
}

/* Finds the chain's op (registered by an earlier stream in this process) or registers it;
   without one (no memory, or a name taken by an op of another shape) the split falls back to
   desc.weights or equal shares, logged. One device needs it only for the split across ranks. */
static void hst__split_register(hst_stream *s) {
    hst_choice_impl impls[HST_STREAM_MAX_BACKENDS];
    char ids[HST_STREAM_MAX_BACKENDS][512], names[HST_STREAM_MAX_BACKENDS][16], op_name[48];
    hst_backend *be = s->backends[0];
    unsigned d, n = s->desc.num_backends;
    hst_choice_op *op;
    size_t count = 0;
    const char *why = NULL;
    if (n < 2 && !s->mpi) return;
    memset(impls, 0, sizeof impls);
    hst__split_name(s, ids, op_name, sizeof op_name);
    for (d = 0; d < n; d++) {
        hst__split_impl_name(d, names[d], sizeof names[d]);
        impls[d].name = names[d];
        impls[d].device_id = ids[d];   /* backend stays NULL: the op never touches backends[d],
                                          which the caller may destroy before backends[0] */
    }
    if ((op = hst_choice_find(be, op_name)) != NULL) {
        if (hst_choice_stats(op, NULL, 0, NULL, 0, &count) != HST_SUCCESS || count != n)
            why = "an operation of that name has another number of implementations";
    } else {
        hst_choice_op_desc od;
        memset(&od, 0, sizeof od);
        od.name = op_name;
        od.impls = impls;
        od.num_impls = n;
        if (hst_choice_register(be, &od, &op) != HST_SUCCESS) why = "registration failed";
    }
    if (why) {
        hst_backend_log(be, HST_LOG_WARN, HST_LOGITEM_CHOICE_FAILED, "hst_stream: %s: %s; the "
                        "split follows desc.weights, else equal shares", op_name, why);
        return;
    }
    s->split_op = op;
    s->split_sig = (int64_t)hst__slice_sum(&s->desc);
}

/* Weights from the registry's op (1 / seconds per slice) when every device has an estimate of
   one kind (timings at another slice size would skew the ratio against ones at this size). */
static int hst__split_registry_weights(const hst_stream *s, const hst_choice_op *op, double *w) {
    hst_choice_stat st[HST_STREAM_MAX_BACKENDS];
    unsigned d, n = s->desc.num_backends;
    int64_t sig = (int64_t)hst__slice_sum(&s->desc);   /* split_sig, known before registration */
    size_t count = 0;
    if (!op || hst_choice_stats(op, &sig, 1, st, n, &count) != HST_SUCCESS || count != n) return 0;
    for (d = 0; d < n; d++) {
        if (st[d].source == HST_CHOICE_NONE || st[d].source != st[0].source ||
            !(st[d].seconds > 0.0))
            return 0;
        w[d] = 1.0 / st[d].seconds;
    }
    return 1;
}

/* Every device keeps at least one of the N slices when there are enough: one given none would
   never be timed again, and an old slow estimate would starve it for good. Takes from the
   largest share. */
static void hst__split_keep_one(uint64_t *len, unsigned n, uint64_t N) {
    unsigned d, j, big;
    if (N < n) return;
    for (d = 0; d < n; d++) {
        if (len[d]) continue;
        for (big = 0, j = 1; j < n; j++) if (len[j] > len[big]) big = j;
        len[big]--;
        len[d] = 1;
    }
}

/* Lengths of n contiguous ranges covering N slices in proportion to the weights w (> 0),
   rounded at the cumulative boundaries, each at least one slice when N >= n: the split across
   devices and the split across ranks. */
static void hst__split_lengths(const double *w, unsigned n, uint64_t N, uint64_t *len) {
    double total = 0.0, acc = 0.0;
    uint64_t start = 0;
    unsigned d;
    for (d = 0; d < n; d++) total += w[d];
    for (d = 0; d < n; d++) {
        uint64_t end;
        acc += w[d];
        end = d + 1 == n ? N : (uint64_t)((double)N * acc / total + 0.5);
        if (end < start) end = start;
        if (end > N) end = N;
        len[d] = end - start;
        start = end;
    }
    hst__split_keep_one(len, n, N);
}

/* The rank's slices in contiguous ranges in device order, in proportion to the weights: the
   desc's for the first run when it gave them, else the registry's, else the desc's or equal. */
static void hst__split(hst_stream *s) {
    double w[HST_STREAM_MAX_BACKENDS];
    uint64_t len[HST_STREAM_MAX_BACKENDS], start = s->own0;
    unsigned d, n = s->desc.num_backends;
    int first_by_desc = s->desc.weights && s->runs == 0;
    if (first_by_desc || !hst__split_registry_weights(s, s->split_op, w))
        for (d = 0; d < n; d++) w[d] = s->weights[d];
    hst__split_lengths(w, n, s->own1 - s->own0, len);
    for (d = 0; d < n; d++) {
        s->devs[d].r0 = start;
        s->devs[d].r1 = start += len[d];
    }
}

/* After a successful run: each device's seconds per slice, for the next splits (this stream's,
   later streams' of this chain, other processes' through the timings file). */
static void hst__split_record(hst_stream *s) {
    unsigned d;
    if (!s->split_op) return;
    for (d = 0; d < s->desc.num_backends; d++) {
        const hst__sdev *dv = &s->devs[d];
        double t = dv->end_s - dv->start_s;
        char impl[16];
        hst_result lost;
        if (dv->r1 == dv->r0 || !(t > 0.0)) continue;   /* no slices (or a clock that did
                                                            not move): no speed */
        hst__split_impl_name(d, impl, sizeof impl);
        /* a timing lost to a full host memory costs split quality only: nothing to report
           (GCC warns on a (void) cast of a warn_unused_result call, not on a variable's) */
        lost = hst_choice_record(s->split_op, &s->split_sig, 1, impl, t / (double)(dv->r1 - dv->r0));
        (void)lost;
    }
}

/* The accumulator program's build options for element type dt (hst_k_slice_acc: per type,
   in double where every device has fp64); buf of at least 32 bytes. */
static const char *hst__acc_options(const hst_stream *s, hst_dtype dt, char *buf) {
    const char *type = dt == HST_C64 ? " -DHST_ACC_C64" : dt == HST_F64 ? " -DHST_ACC_F64"
                       : dt == HST_C128 ? " -DHST_ACC_C128" : "";
    snprintf(buf, 32, "%s%s", s->plan.acc_bytes == 8 ? "-DHST_FP64" : "", type);
    return buf;
}

/* The stream family's accumulator kernel for element type dt. */
static unsigned hst__acc_kernel(hst_dtype dt) {
    switch (dt) {
    case HST_C64: return HST_KSTREAM_SLICE_ACC_C64;
    case HST_F64: return HST_KSTREAM_SLICE_ACC_F64;
    case HST_C128: return HST_KSTREAM_SLICE_ACC_C128;
    default: return HST_KSTREAM_SLICE_ACC;
    }
}

/* Device d's kernels, built now so that create reports build errors: a stage from sources gets
   a kernel of its own; declared kernels and the accumulators are the backend's
   (hst_family_kernel keeps them for the launches). */
static hst_result hst__stream_kernels(hst_stream *s, hst__sdev *d) {
    unsigned st;
    hst_kernel *k;
    char opt[32];
    hst_result r;
    for (st = 0; st < s->desc.num_stages; st++) {
        const hst_stream_stage *g = &s->stages[st];
        hst_program *prog;
        if (g->arrays_fn) continue;   /* a call: no kernel */
        if (g->family) {
            if ((r = hst_family_kernel(d->be, g->family, g->options, g->family_kernel, &k)) != HST_SUCCESS) return r;
            continue;
        }
        if ((r = hst_program_build(d->be, g->num_sources, g->sources, g->options, &prog)) != HST_SUCCESS) return r;
        r = hst_kernel_create(prog, g->kernel, &d->kernels[st]);
        hst_program_release(prog);
        if (r != HST_SUCCESS) return r;
    }
    for (st = 0; st < s->desc.num_accumulators; st++) {
        hst_dtype dt = s->accs[st].dtype;
        if ((r = hst_family_kernel(d->be, hst_kernels_stream_family(), hst__acc_options(s, dt, opt),
                                   hst__acc_kernel(dt), &k)) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

/* Whether array a comes back to the caller: in pageable memory it needs the ring's pinned
   staging (a read into pageable memory may complete on the host only once the block's kernels
   have, which would stall the pipeline). Uploads from pageable memory go straight from the
   caller's array: the driver stages them itself, at about the speed of the host copy our own
   staging cost (bench/RESULTS.md: 7.7 against 6.5-7.6 GB/s on an NVIDIA H200 host), without a
   block-sized pinned buffer per ring slot to allocate, map and free each time a stream is made
   (29-47 ms per 64 MB slot there, several devices' threads contending: it was what kept two
   GPUs at 1.4-1.5x one in esrrf.h's row split). */
static int hst__downloads(const hst_stream_array *a) {
    return a->kind == HST_STREAM_OUTPUT || a->kind == HST_STREAM_INOUT;
}

/* One device's queues, kernels, ring buffers and accumulator buffers. */
static hst_result hst__stream_device(hst_stream *s, hst__sdev *d) {
    uint64_t loaded = s->block + s->plan.halo_lo + s->plan.halo_hi;
    unsigned k, i;
    hst_result r;
    if (s->desc.queues) {
        hst_queue *const *q = s->desc.queues + 3 * (size_t)(d - s->devs);
        d->up = q[0]; d->comp = q[1]; d->down = q[2];
    } else {
        d->own_queues = 1;
        if ((r = hst_queue_create(d->be, &d->up)) != HST_SUCCESS) return r;
        if ((r = hst_queue_create(d->be, &d->comp)) != HST_SUCCESS) return r;
        if ((r = hst_queue_create(d->be, &d->down)) != HST_SUCCESS) return r;
    }
    if ((r = hst__stream_kernels(s, d)) != HST_SUCCESS) return r;
    if (loaded > s->desc.num_slices) loaded = s->desc.num_slices;
    for (i = 0; i < s->desc.num_arrays; i++) {
        if (s->arrays[i].kind != HST_STREAM_GLOBAL) continue;
        if (s->arrays[i].buffers) {
            d->global[i] = s->arrays[i].buffers[d - s->devs];
            d->borrowed[i] = 1;
        } else if ((r = hst_buffer_create(d->be, s->arrays[i].global_bytes, HST_MEM_RESIDENT, &d->global[i])) != HST_SUCCESS)
            return r;
    }
    for (k = 0; k < s->plan.ring; k++)
        for (i = 0; i < s->desc.num_arrays; i++) {
            size_t bytes = (size_t)loaded * s->arrays[i].slice_bytes;
            if (s->arrays[i].kind == HST_STREAM_GLOBAL) continue;
            if ((r = hst_buffer_create(d->be, bytes, HST_MEM_RESIDENT, &d->slots[k].dev[i])) != HST_SUCCESS) return r;
            if (hst__downloads(&s->arrays[i]) && !hst__is_pinned(&s->arrays[i]) &&   /* deferred too */
                (r = hst_pinned_create(d->be, bytes, &d->slots[k].staging[i])) != HST_SUCCESS) return r;
        }
    for (i = 0; i < s->desc.num_accumulators; i++)
        if ((r = hst_buffer_create(d->be, (size_t)s->desc.num_slices * (size_t)s->plan.acc_bytes, 0, &d->acc[i])) != HST_SUCCESS)
            return r;
    return HST_SUCCESS;
}

static hst_result hst__stream_host_scratch(hst_stream *s) {
    uint64_t loaded = s->block + s->plan.halo_lo + s->plan.halo_hi;
    unsigned i;
    if (loaded > s->desc.num_slices) loaded = s->desc.num_slices;
    for (i = 0; i < s->desc.num_arrays; i++)
        if (hst__needs_scratch(&s->plan, i)) {
            size_t bytes;
            if (!hst_size_mul((size_t)loaded, s->arrays[i].slice_bytes, &bytes))
                return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "arrays[%u]: one block's scratch overflows size_t", i);
            s->scratch[i] = (unsigned char *)hst_backend_alloc(s->backends[0], bytes);
            if (!s->scratch[i]) return HST_ERROR_OUT_OF_HOST_MEMORY;
        }
    return HST_SUCCESS;
}

/* Finishes the caller's queues (desc.queues), which stay theirs. A failed finish means the
   commands ended in error: they touch the buffers no more, and a void destroy tells no one. */
static void hst__finish_caller_queues(hst__sdev *d) {
    hst_queue *q[3];
    unsigned k;
    q[0] = d->up; q[1] = d->comp; q[2] = d->down;
    for (k = 0; k < 3; k++) {
        hst_result r = q[k] ? hst_queue_finish(q[k]) : HST_SUCCESS;
        (void)r;
    }
}

static void hst__stream_release_device(hst__sdev *d) {
    unsigned k, i;
    /* The queues first: destroying (or finishing) one waits for it, so no copy still reads a
       staging buffer (or runs a kernel) that is released below. After a failed enqueue,
       earlier commands may still be in flight; PoCL's workers then read freed memory. */
    if (d->own_queues) {
        hst_queue_destroy(d->up);
        hst_queue_destroy(d->comp);
        hst_queue_destroy(d->down);
    } else
        hst__finish_caller_queues(d);
    for (k = 0; k < HST__STREAM_MAX_RING; k++) {
        hst_event_release(d->slots[k].done);
        for (i = 0; i < HST_STREAM_MAX_ARRAYS; i++) {
            hst_buffer_destroy(d->slots[k].dev[i]);
            hst_buffer_destroy(d->slots[k].staging[i]);
        }
    }
    for (i = 0; i < HST_STREAM_MAX_ACCUMULATORS; i++) hst_buffer_destroy(d->acc[i]);
    for (i = 0; i < HST_STREAM_MAX_ARRAYS; i++)
        if (!d->borrowed[i]) hst_buffer_destroy(d->global[i]);
    for (i = 0; i < HST_STREAM_MAX_STAGES; i++) hst_kernel_destroy(d->kernels[i]);
}

HST__SDEF void hst_stream_destroy(hst_stream *s) {
    unsigned d, i;
    hst_backend *be;
    if (!s) return;
    be = s->backends[0];
    for (d = 0; d < s->desc.num_backends; d++) hst__stream_release_device(&s->devs[d]);
    for (d = 0; d < s->desc.num_backends; d++) hst_backend_release_hold(s->backends[d], s);
    for (i = 0; i < HST_STREAM_MAX_ARRAYS; i++) hst_backend_free(be, s->scratch[i]);
    hst_backend_free(be, s->acc_slices);
#ifdef HST_STREAM_MPI
    if (s->mpi) {
        MPI_Comm_free(&s->comm);
        hst_backend_free(be, s->bounds);
        hst_backend_free(be, s->peers);
        hst_backend_free(be, s->speeds);
        hst_backend_free(be, s->counts);
        hst_backend_free(be, s->displs);
    }
#endif
    hst_backend_free(be, s);
}

static hst_result hst__stream_validate(const hst_stream_desc *d) {
    hst_result r;
    if ((r = hst__check_backends(d)) != HST_SUCCESS) return r;
    if (d->num_slices == 0) return hst__zero_arg(hst__desc_be(d), "hst_stream", "num_slices is 0");
    if (d->ring == 1 || d->ring > HST__STREAM_MAX_RING)
        return hst__range_arg(hst__desc_be(d), "hst_stream", "ring %u: 2..%d slots (0: %d)", d->ring,
                         HST__STREAM_MAX_RING, HST__STREAM_DEFAULT_RING);
    if ((r = hst__check_arrays(d)) != HST_SUCCESS) return r;
    if ((r = hst__check_stages(d)) != HST_SUCCESS) return r;
    return hst__check_accs(d);
}

/* Copies the description so the caller's may go away after create. */
static void hst__stream_copy_desc(hst_stream *s, const hst_stream_desc *d) {
    unsigned i;
    s->desc = *d;
    memcpy(s->arrays, d->arrays, d->num_arrays * sizeof *d->arrays);
    memcpy(s->stages, d->stages, d->num_stages * sizeof *d->stages);
    for (i = 0; i < d->num_arrays; i++)
        s->deferred[i] = hst__sliced(&d->arrays[i]) && !hst__has_memory(&d->arrays[i]);
    for (i = 0; i < d->num_arrays; i++)
        if (d->arrays[i].buffers && d->arrays[i].kind == HST_STREAM_GLOBAL) {
            memcpy(s->gbufs[i], d->arrays[i].buffers, d->num_backends * sizeof(hst_buffer *));
            s->arrays[i].buffers = s->gbufs[i];
        } else
            s->arrays[i].buffers = NULL;   /* other kinds ignore it: it may hold anything */
    for (i = 0; i < d->num_stages; i++) {   /* the lists too: the caller's may go away */
        hst_stream_stage *st = &s->stages[i];
        if (st->num_inputs) memcpy(s->bindings[i][0], st->inputs, st->num_inputs * sizeof(int));
        if (st->num_outputs) memcpy(s->bindings[i][1], st->outputs, st->num_outputs * sizeof(int));
        st->inputs = s->bindings[i][0];
        st->outputs = s->bindings[i][1];
    }
    if (d->num_accumulators) memcpy(s->accs, d->accumulators, d->num_accumulators * sizeof *d->accumulators);
    s->desc.arrays = s->arrays; s->desc.stages = s->stages; s->desc.accumulators = s->accs;
    s->desc.backends = s->backends;
    for (i = 0; i < d->num_backends; i++) {
        s->backends[i] = d->backends[i];
        s->weights[i] = d->weights ? d->weights[i] : 1.0;
        s->devs[i].be = d->backends[i];
    }
    s->desc.weights = d->weights ? s->weights : NULL;
    if (d->queues) {
        memcpy(s->queues, d->queues, 3 * (size_t)d->num_backends * sizeof *d->queues);
        s->desc.queues = s->queues;
    }
    hst__plan_make(&s->desc, &s->plan);
    s->own1 = s->load1 = s->created_slices = d->num_slices;   /* one process (the ranks' split
                                                                 narrows own and load) */
    s->nranks = 1;
}

/* The first part of create, on this rank alone: the description checked and copied, the
   chain's halos. *out: the stream, or NULL on failure. */
static hst_result hst__create_local(const hst_stream_desc *desc, hst_stream **out) {
    hst_result r;
    unsigned d, e;
    *out = NULL;
    if ((r = hst__stream_validate(desc)) != HST_SUCCESS) return r;
    if (!(*out = (hst_stream *)hst__scalloc(desc->backends[0], sizeof **out))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    hst__stream_copy_desc(*out, desc);
    for (d = 0; d < desc->num_backends; d++) {   /* destroying a backend under the stream is refused */
        for (e = 0; e < d && desc->backends[e] != desc->backends[d]; e++) {}
        if (e == d && (r = hst_backend_hold(desc->backends[d], *out, "hst_stream")) != HST_SUCCESS) return r;
    }
    return HST_SUCCESS;
}

/* The second part, once the rank's slices are known: its caller memory, the block size, the
   accumulator slices and each device's ring (a rank without slices needs neither). */
static hst_result hst__create_setup(hst_stream *s) {
    size_t acc_total;
    unsigned d;
    hst_result r;
    int idle = s->own0 == s->own1;
    if ((r = hst__check_local_memory(s)) != HST_SUCCESS || (r = hst__check_aliasing(s)) != HST_SUCCESS) return r;
    if (!idle) {
        hst_stream_block_info bi;
        if ((r = hst__block_plan(&s->plan, s->own1 - s->own0, 1, &bi)) != HST_SUCCESS) return r;
        s->block = bi.block_slices;
    }
    if (!hst_size_mul((size_t)s->desc.num_slices, sizeof(double) * (s->desc.num_accumulators + 1), &acc_total))
        return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "accumulator slices");
    if (!(s->acc_slices = (double *)hst__scalloc(s->backends[0], acc_total))) return HST_ERROR_OUT_OF_HOST_MEMORY;
    if (idle) return HST_SUCCESS;
    if (s->plan.host) return hst__stream_host_scratch(s);
    for (d = 0; d < s->desc.num_backends; d++)
        if ((r = hst__stream_device(s, &s->devs[d])) != HST_SUCCESS) return r;
    return HST_SUCCESS;
}

static hst_result hst__create_ranks(const hst_stream_desc *desc, hst_stream **out);

HST__SDEF hst_result hst_stream_create(const hst_stream_desc *desc, hst_stream **out) {
    hst_stream *s = NULL;
    hst_result r;
    if (desc && desc->mpi_comm) return hst__create_ranks(desc, out);
    if (!out) return hst__null_arg(hst__desc_be(desc), "hst_stream", "out is NULL");
    *out = NULL;
    if (!desc) return hst__null_arg(hst__desc_be(desc), "hst_stream", "desc is NULL");
    if ((r = hst__create_local(desc, &s)) == HST_SUCCESS) r = hst__create_setup(s);
    if (r != HST_SUCCESS) { hst_stream_destroy(s); return r; }
    hst__split_register(s);   /* last: a stream that failed registers nothing */
    *out = s;
    return HST_SUCCESS;
}

HST__SDEF hst_result hst_stream_rank_range(const hst_stream *s, uint64_t *own_begin, uint64_t *own_end,
                                           uint64_t *load_begin, uint64_t *load_end) {
    if (!s) return hst__null_arg(NULL, "hst_stream", "hst_stream_rank_range: s is NULL");
    if (own_begin) *own_begin = s->own0;
    if (own_end) *own_end = s->own1;
    if (load_begin) *load_begin = s->load0;
    if (load_end) *load_end = s->load1;
    return HST_SUCCESS;
}

HST__SDEF uint64_t hst_stream_block_slices(const hst_stream *s) { return s ? s->block : 0; }

HST__SDEF hst_choice_op *hst_stream_choice_op(const hst_stream *s) {
    return s ? s->split_op : NULL;
}

HST__SDEF hst_result hst_stream_set_num_slices(hst_stream *s, uint64_t num_slices) {
    const char *F = "hst_stream_set_num_slices";
    uint64_t old;
    hst_result r;
    if (!s) return hst__null_arg(NULL, "hst_stream", "%s: s is NULL", F);
    if (s->mpi)
        return hst__bad_arg(hst__desc_be(&s->desc), "hst_stream",
                            "%s: the stream runs over MPI ranks, whose split is fixed at create", F);
    if (!num_slices || num_slices > s->created_slices)
        return hst__range_arg(hst__desc_be(&s->desc), "hst_stream",
                              "%s: num_slices %llu: give 1..%llu (the stream's num_slices at create)", F,
                         (unsigned long long)num_slices, (unsigned long long)s->created_slices);
    old = s->desc.num_slices;
    s->desc.num_slices = s->own1 = s->load1 = num_slices;
    if ((r = hst__check_local_memory(s)) != HST_SUCCESS) {   /* pinned memory given for fewer */
        s->desc.num_slices = s->own1 = s->load1 = old;
        return r;
    }
    hst__plan_extents(&s->plan);   /* the halos clipped to the new end, as create clips them */
    return HST_SUCCESS;
}

/* Checks one replacement of hst_stream_set_arrays: exactly one kind of memory, pinned where
   the array was pinned at create and pageable where it was pageable (an array given no memory
   at create takes either). */
static hst_result hst__check_set(const hst_stream *s, unsigned i, const void *host, const hst_buffer *pinned,
                                 const hst_stream_pinned *pa) {
    const char *F = "hst_stream_set_arrays";
    if (i >= s->desc.num_arrays || s->arrays[i].kind == HST_STREAM_TEMP || s->arrays[i].kind == HST_STREAM_GLOBAL)
        return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_INVALID_ARGUMENT,
                                i >= s->desc.num_arrays ? HST_LOGITEM_OUT_OF_RANGE : HST_LOGITEM_BAD_ARGUMENT, "hst_stream",
                                "%s: %u is not a host array that can be replaced (TEMP and GLOBAL are not)", F, i);
    if ((!host + !pinned + !pa) != 2)
        return hst__bad_arg(hst__desc_be(&s->desc), "hst_stream", "%s: give exactly one of host and pinned memory for arrays[%u]", F, i);
    if (!s->deferred[i] && hst__is_pinned(&s->arrays[i]) != (pinned || pa))
        return hst__bad_arg(hst__desc_be(&s->desc), "hst_stream", "%s: arrays[%u] must stay %s", F, i,
                         hst__is_pinned(&s->arrays[i]) ? "pinned" : "pageable");
    return hst__check_pinned(s, i, pinned, pa);
}

/* n replacements from up to three lists (NULL: none of that kind), all or nothing. */
static hst_result hst__set_arrays(hst_stream *s, unsigned n, const unsigned *idx, void *const *host,
                                  hst_buffer *const *pinned, hst_stream_pinned *const *pa) {
    hst_stream_array saved[HST_STREAM_MAX_ARRAYS];
    hst_result r;
    unsigned k;
    if (!s) return hst__null_arg(NULL, "hst_stream", "hst_stream_set_arrays: s is NULL");
    if (!n || n > s->desc.num_arrays || !idx || (!host && !pinned && !pa))
        return hst__range_arg(hst__desc_be(&s->desc), "hst_stream", "hst_stream_set_arrays: %u replacements", n);
    for (k = 0; k < n; k++)
        if ((r = hst__check_set(s, idx[k], host ? host[k] : NULL, pinned ? pinned[k] : NULL,
                                pa ? pa[k] : NULL)) != HST_SUCCESS) return r;
    memcpy(saved, s->arrays, sizeof saved);
    for (k = 0; k < n; k++) {
        s->arrays[idx[k]].host = host ? host[k] : NULL;
        s->arrays[idx[k]].pinned = pinned ? pinned[k] : NULL;
        s->arrays[idx[k]].pinned_array = pa ? pa[k] : NULL;
    }
    if ((r = hst__check_aliasing(s)) != HST_SUCCESS)
        memcpy(s->arrays, saved, sizeof saved);
    return r;
}

HST__SDEF hst_result hst_stream_set_arrays(hst_stream *s, unsigned n, const unsigned *idx,
                                           void *const *host, hst_buffer *const *pinned) {
    return hst__set_arrays(s, n, idx, host, pinned, NULL);
}

HST__SDEF hst_result hst_stream_set_pinned_arrays(hst_stream *s, unsigned n, const unsigned *idx,
                                                  hst_stream_pinned *const *arrays) {
    return hst__set_arrays(s, n, idx, NULL, NULL, arrays);
}

HST__SDEF hst_result hst_stream_set_array(hst_stream *s, unsigned i, void *host, hst_buffer *pinned) {
    return hst_stream_set_arrays(s, 1, &i, &host, &pinned);
}

/* >>blocks ----------------------------------------------------------------------------------- */
/* The loaded range of the block owning [b0, b1): the chain's halo around it, clipped. */
static void hst__loaded(const hst_stream *s, uint64_t b0, uint64_t b1, uint64_t *base, uint64_t *end) {
    *base = b0 >= s->plan.halo_lo ? b0 - s->plan.halo_lo : 0;
    *end = b1 + s->plan.halo_hi < s->desc.num_slices ? b1 + s->plan.halo_hi : s->desc.num_slices;
}

/* Stage st's compute range for the block, relative to base. */
static hst_stream_block hst__stage_block(const hst_stream *s, unsigned st, uint64_t b0,
                                         uint64_t b1, uint64_t base) {
    hst_stream_block blk;
    uint64_t N = s->desc.num_slices;
    uint64_t c0 = b0 >= s->plan.ext_lo[st] ? b0 - s->plan.ext_lo[st] : 0;
    uint64_t c1 = b1 + s->plan.ext_hi[st] < N ? b1 + s->plan.ext_hi[st] : N;
    blk.base = base;
    blk.begin = c0 - base;
    blk.end = c1 - base;
    blk.total = N;
    blk.flags = (c0 == 0 ? HST_STREAM_FIRST : 0) | (c1 == N ? HST_STREAM_LAST : 0);
    return blk;
}

/* The i-th block of device d, in walking order. */
static void hst__block_bounds(const hst_stream *s, const hst__sdev *d, uint64_t i, uint64_t *b0,
                              uint64_t *b1) {
    uint64_t B = s->block;
    if (!s->desc.reverse) {
        *b0 = d->r0 + i * B;
        *b1 = *b0 + B < d->r1 ? *b0 + B : d->r1;
    } else {
        *b1 = d->r1 - i * B;
        *b0 = *b1 - d->r0 > B ? *b1 - B : d->r0;
    }
}

static uint64_t hst__block_count(const hst_stream *s, const hst__sdev *d) {
    uint64_t n = d->r1 - d->r0;
    return n / s->block + (n % s->block != 0);
}

/* After a block: outputs complete, progress reported; nonzero from the callback cancels. */
static int hst__block_done(hst_stream *s, hst__sdev *d, uint64_t b0, uint64_t b1) {
    if (!s->desc.reverse) { if (d->done0 == d->done1) d->done0 = b0; d->done1 = b1; }
    else { if (d->done0 == d->done1) d->done1 = b1; d->done0 = b0; }
    s->done += b1 - b0;
    return s->desc.progress && s->desc.progress(s->done, s->own1 - s->own0, s->desc.progress_user);
}

/* >>launches: a stage's kernel and the accumulators, on any device --------------------------- */
/* Array a of stage g's binding k (inputs, then outputs). */
static int hst__binding(const hst_stream_stage *g, unsigned k) {
    return k < g->num_inputs ? g->inputs[k] : g->outputs[k - g->num_inputs];
}

/* A scalar as its declared word takes it (its bytes checked at create; copied, as p may be
   unaligned). */
static hst_karg hst__scalar_karg(hst_karg_kind k, size_t bytes, const void *p) {
    int32_t i; uint32_t u; int64_t l; uint64_t ul; float f; double d;
    switch (k) {
    case HST_KARG_INT: memcpy(&i, p, 4); return hst_karg_int(i);
    case HST_KARG_UINT: memcpy(&u, p, 4); return hst_karg_uint(u);
    case HST_KARG_FLOAT: memcpy(&f, p, 4); return hst_karg_float(f);
    case HST_KARG_LONG: memcpy(&l, p, 8); return hst_karg_long(l);
    case HST_KARG_ULONG: memcpy(&ul, p, 8); return hst_karg_ulong(ul);
    case HST_KARG_DOUBLE: memcpy(&d, p, 8); return hst_karg_double(d);
    default: return hst_karg_value(bytes, p);
    }
}

/* Stage g's kernel over blk on be (the calling convention, hst_stream_stage): bufs its
   bindings' buffers (inputs, then outputs), then its scalars (a declared kernel's as their
   words, else as their bytes), then the block arguments; a declared kernel through
   hst_launch_kernel (q NULL: be's default queue), one from sources (k, OpenCL) through
   hst_kernel_run. */
static hst_result hst__stage_launch(hst_backend *be, const hst_stream_stage *g, hst_kernel *k, hst_queue *q,
                                    hst_buffer *const *bufs, const hst_stream_block *blk,
                                    size_t num_wait, const hst_event *wait, hst_event *out) {
    hst_karg args[HST_KERNEL_MAX_ARGS];
    hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
    hst_launch_desc l;
    unsigned j, n = g->num_inputs + g->num_outputs;
    memset(&l, 0, sizeof l);
    if (g->family)   /* parsed and checked against the stage at create */
        (void)hst_kernel_signature(&g->family->kernels[g->family_kernel], kinds, HST_KERNEL_MAX_ARGS);
    for (j = 0; j < n; j++) args[l.num_args++] = hst_karg_buffer(bufs[j]);
    for (j = 0; j < g->num_scalars; j++, l.num_args++)
        args[l.num_args] = g->family ? hst__scalar_karg(kinds[l.num_args], g->scalar_bytes[j], g->scalars[j])
                                     : hst_karg_value(g->scalar_bytes[j], g->scalars[j]);
    args[l.num_args++] = hst_karg_ulong(blk->base);
    args[l.num_args++] = hst_karg_ulong(blk->begin);
    args[l.num_args++] = hst_karg_ulong(blk->end);
    args[l.num_args++] = hst_karg_ulong(blk->total);
    args[l.num_args++] = hst_karg_int(blk->flags);
    l.range.dims = g->loop_slices ? 1 : 2;
    l.range.global[0] = g->items_per_slice;
    l.range.global[1] = (size_t)(blk->end - blk->begin);
    l.range.local[0] = g->local_size;
    l.range.local[1] = g->local_size ? 1 : 0;
    if (!g->family) return hst_kernel_run(q, k, &l.range, l.num_args, args, num_wait, wait, out);
    l.family = g->family;
    l.options = g->options;
    l.kernel = g->family_kernel;
    l.args = args;
    l.queue = q;
    l.num_wait = num_wait;
    l.wait = wait;
    return hst_launch_kernel(be, &l, out);
}

/* Accumulator i over the owned slices [b0, b1) of a block loaded from base: hst_k_slice_acc on
   be's queue q (NULL: the default), one work-group per slice; a and b its arrays' buffers from
   base, acc the per-slice values (slice z at acc[z]). */
static hst_result hst__acc_launch(const hst_stream *s, hst_backend *be, hst_queue *q, unsigned i, hst_buffer *a,
                                  hst_buffer *b, hst_buffer *acc, uint64_t b0, uint64_t b1, uint64_t base,
                                  hst_event *out) {
    const hst_stream_acc *x = &s->accs[i];
    hst_karg args[8];
    hst_launch_desc l;
    char opt[32];
    memset(&l, 0, sizeof l);
    args[0] = hst_karg_buffer(a);
    args[1] = hst_karg_buffer(x->kind == HST_STREAM_DIFF2 ? b : a);   /* read by DIFF2 only */
    args[2] = hst_karg_ulong(s->arrays[x->a].slice_bytes / hst_dtype_size(x->dtype));
    args[3] = hst_karg_ulong(b0 - base);
    args[4] = hst_karg_ulong(b1 - base);
    args[5] = hst_karg_int((int32_t)x->kind);
    args[6] = hst_karg_buffer(acc);
    args[7] = hst_karg_ulong(b0);
    l.family = hst_kernels_stream_family();
    l.options = hst__acc_options(s, x->dtype, opt);
    l.kernel = hst__acc_kernel(x->dtype);
    l.range.dims = 2;
    l.range.global[0] = l.range.local[0] = HST__STREAM_LOCAL_ACC;
    l.range.global[1] = (size_t)(b1 - b0);
    l.range.local[1] = 1;
    l.args = args;
    l.num_args = 8;
    l.queue = q;
    return hst_launch_kernel(be, &l, out);
}

/* >>host device ------------------------------------------------------------------------------ */
/* Stage g's bindings (or accumulator arrays) on the host device: each array's block memory
   (ptr, `loaded` slices from base; GLOBAL: the whole array) wrapped as a buffer of be, until
   hst__host_unbind. */
static hst_result hst__host_bind(const hst_stream *s, hst_backend *be, unsigned n, const int *arrays,
                                 unsigned char *const *ptr, uint64_t loaded, hst_stream_binding *bind) {
    hst_result r = HST_SUCCESS;
    unsigned k;
    memset(bind, 0, n * sizeof *bind);
    for (k = 0; k < n && r == HST_SUCCESS; k++) {
        const hst_stream_array *a = &s->arrays[arrays[k]];
        int global = a->kind == HST_STREAM_GLOBAL;
        bind[k].num_slices = global ? 0 : loaded;
        bind[k].slice_bytes = global ? a->global_bytes : a->slice_bytes;
        r = hst_buffer_wrap(be, ptr[arrays[k]], global ? a->global_bytes : (size_t)loaded * a->slice_bytes, 0,
                            &bind[k].buffer);
    }
    return r;
}

static void hst__host_unbind(unsigned n, hst_stream_binding *bind) {
    unsigned k;
    for (k = 0; k < n; k++) hst_buffer_destroy(bind[k].buffer);
}

static hst_result hst__host_accs(hst_stream *s, hst_backend *be, unsigned char *const *ptr, uint64_t b0,
                                 uint64_t b1, uint64_t base, uint64_t loaded) {
    unsigned i;
    hst_result r = HST_SUCCESS;
    for (i = 0; i < s->desc.num_accumulators && r == HST_SUCCESS; i++) {
        const hst_stream_acc *a = &s->accs[i];
        const int arrays[2] = {a->a, a->kind == HST_STREAM_DIFF2 ? a->b : a->a};
        hst_stream_binding bind[2];
        hst_buffer *acc = NULL;
        r = hst__host_bind(s, be, 2, arrays, ptr, loaded, bind);
        if (r == HST_SUCCESS)
            r = hst_buffer_wrap(be, s->acc_slices + (size_t)i * s->desc.num_slices,
                                (size_t)s->desc.num_slices * sizeof(double), 0, &acc);
        if (r == HST_SUCCESS) r = hst__acc_launch(s, be, NULL, i, bind[0].buffer, bind[1].buffer, acc, b0, b1, base, NULL);
        hst_buffer_destroy(acc);
        hst__host_unbind(2, bind);
    }
    return r;
}

/* Stage g on the host device: its host twin (host) on the arrays' memory, or its declared
   kernel's twin or its call (arrays_fn) on that memory wrapped as buffers. */
static hst_result hst__host_stage(hst_stream *s, hst_backend *be, const hst_stream_stage *g,
                                  unsigned char *const *ptr, uint64_t loaded, const hst_stream_block *blk) {
    hst_stream_binding bind[2 * HST_STREAM_MAX_BINDINGS];
    hst_buffer *bufs[2 * HST_STREAM_MAX_BINDINGS];
    int arrays[2 * HST_STREAM_MAX_BINDINGS];
    unsigned k, n = g->num_inputs + g->num_outputs;
    hst_result r;
    for (k = 0; k < n; k++) arrays[k] = hst__binding(g, k);
    if (g->host && !g->arrays_fn) {
        void *args[2 * HST_STREAM_MAX_BINDINGS];
        for (k = 0; k < n; k++) args[k] = ptr[arrays[k]];
        return g->host(args, g->scalars, blk, g->host_user);
    }
    r = hst__host_bind(s, be, n, arrays, ptr, loaded, bind);
    for (k = 0; k < n; k++) bufs[k] = bind[k].buffer;
    if (r == HST_SUCCESS)
        r = g->arrays_fn ? g->arrays_fn(be, bind, n, g->scalars, blk, g->arrays_user)
                         : hst__stage_launch(be, g, NULL, NULL, bufs, blk, 0, NULL, NULL);
    hst__host_unbind(n, bind);
    return r;
}

static hst_result hst__host_block(hst_stream *s, hst_backend *be, uint64_t b0, uint64_t b1) {
    unsigned char *ptr[HST_STREAM_MAX_ARRAYS];
    uint64_t base, end;
    unsigned i, st;
    hst_result r;
    hst__loaded(s, b0, b1, &base, &end);
    for (i = 0; i < s->desc.num_arrays; i++)
        ptr[i] = s->scratch[i] ? s->scratch[i]
               : s->arrays[i].kind == HST_STREAM_GLOBAL ? hst__sarray_host(&s->arrays[i])
               : hst__host_slice(s, &s->arrays[i], base);
    for (st = 0; st < s->desc.num_stages; st++) {
        const hst_stream_stage *g = &s->stages[st];
        hst_stream_block blk = hst__stage_block(s, st, b0, b1, base);
        if ((r = hst__host_stage(s, be, g, ptr, end - base, &blk)) != HST_SUCCESS) return r;
    }
    for (i = 0; i < s->desc.num_arrays; i++)   /* owned slices of outputs computed in scratch */
        if (s->scratch[i] && s->arrays[i].kind == HST_STREAM_OUTPUT)
            memcpy(hst__host_slice(s, &s->arrays[i], b0),
                   s->scratch[i] + (size_t)(b0 - base) * s->arrays[i].slice_bytes,
                   (size_t)(b1 - b0) * s->arrays[i].slice_bytes);
    return hst__host_accs(s, be, ptr, b0, b1, base, end - base);
}

static hst_result hst__host_run(hst_stream *s) {
    unsigned d;
    for (d = 0; d < s->desc.num_backends; d++) {
        hst__sdev *dv = &s->devs[d];
        uint64_t i, n = hst__block_count(s, dv), b0, b1;
        dv->start_s = hst__now_s();
        for (i = 0; i < n; i++) {
            hst_result r;
            hst__block_bounds(s, dv, i, &b0, &b1);
            dv->issued++;
            if ((r = hst__host_block(s, dv->be, b0, b1)) != HST_SUCCESS) return r;
            dv->finished++;
            if (hst__block_done(s, dv, b0, b1)) return HST_ERROR_CANCELLED;
        }
        dv->end_s = hst__now_s();
    }
    return HST_SUCCESS;
}

/* >>opencl device ---------------------------------------------------------------------------- */
#ifndef HST_NO_OPENCL
/* Whether array i goes through the slot's pinned staging: pageable caller memory (an array
   given no memory at create has staging, and may get pinned memory later: that goes direct). */
static int hst__staged(const hst__slot *slot, const hst_stream_array *a, unsigned i) {
    return slot->staging[i] && !hst__is_pinned(a);
}

/* Replaces *keep with e (both may be NULL), releasing the older event. */
static void hst__keep_event(hst_event *keep, hst_event e) {
    hst_event_release(*keep);
    *keep = e;
}

/* Slices [z0, z1) of pinned caller memory to (up) or from the device buffer at dev_off, one
   copy per contiguous run (a pinned array splits at its chunk boundaries); *ev: the last copy
   (the queue is in order: it implies the others). */
static hst_result hst__copy_runs(hst_queue *q, hst_buffer *dev, size_t dev_off, const hst_stream_array *a,
                                 uint64_t z0, uint64_t z1, int up, hst_event wait, hst_event *ev) {
    size_t sb = a->slice_bytes;
    uint64_t run = 0;
    hst_result r;
    for (; z0 < z1; z0 += run, dev_off += (size_t)run * sb) {
        unsigned char *p = hst__slice_run(a, z0, &run);
        hst_event e = NULL;
        if (run > z1 - z0) run = z1 - z0;
        r = up ? hst_write(q, dev, dev_off, p, (size_t)run * sb, 0, 0, NULL, &e)
               : hst_read(q, dev, dev_off, p, (size_t)run * sb, 0, wait ? 1 : 0, &wait, &e);
        if (r != HST_SUCCESS) return r;
        hst__keep_event(ev, e);
    }
    return HST_SUCCESS;
}

static hst_result hst__upload(hst_stream *s, hst__sdev *d, hst__slot *slot, uint64_t base,
                              uint64_t end, hst_event *ev) {
    unsigned i;
    hst_result r;
    for (i = 0; i < s->desc.num_arrays; i++) {
        const hst_stream_array *a = &s->arrays[i];
        size_t sb = a->slice_bytes, bytes = (size_t)(end - base) * sb;
        hst_event e = NULL;
        if (a->kind != HST_STREAM_INPUT && a->kind != HST_STREAM_INOUT) continue;
        if (!hst__staged(slot, a, i))   /* pinned, or a pageable INPUT: straight from the caller */
            r = hst__copy_runs(d->up, slot->dev[i], 0, a, base - s->load0, end - s->load0, 1, NULL, ev);
        else {   /* a pageable INOUT array: through its pinned staging, which brings it back */
            memcpy(hst_buffer_host_ptr(slot->staging[i]), hst__host_slice(s, a, base), bytes);
            r = hst_write(d->up, slot->dev[i], 0, hst_buffer_host_ptr(slot->staging[i]), bytes, 0, 0, NULL, &e);
            if (r == HST_SUCCESS) hst__keep_event(ev, e);
        }
        if (r != HST_SUCCESS) return r;
    }
    return hst_queue_flush(d->up);
}

static hst_result hst__launch_stage(hst_stream *s, hst__sdev *d, hst__slot *slot, unsigned st,
                                    uint64_t b0, uint64_t b1, uint64_t base,
                                    size_t num_wait, const hst_event *wait, hst_event *out) {
    const hst_stream_stage *g = &s->stages[st];
    hst_stream_block blk = hst__stage_block(s, st, b0, b1, base);
    hst_buffer *bufs[2 * HST_STREAM_MAX_BINDINGS];
    unsigned j;
    for (j = 0; j < g->num_inputs + g->num_outputs; j++) {
        int a = hst__binding(g, j);
        bufs[j] = d->global[a] ? d->global[a] : slot->dev[a];
    }
    return hst__stage_launch(d->be, g, d->kernels[st], d->comp, bufs, &blk, num_wait, wait, out);
}

static hst_result hst__launch_acc(hst_stream *s, hst__sdev *d, hst__slot *slot, unsigned i,
                                  uint64_t b0, uint64_t b1, uint64_t base, hst_event *out) {
    const hst_stream_acc *a = &s->accs[i];
    return hst__acc_launch(s, d->be, d->comp, i, slot->dev[a->a], slot->dev[a->kind == HST_STREAM_DIFF2 ? a->b : a->a],
                           d->acc[i], b0, b1, base, out);
}

/* An arrays_fn stage on an OpenCL device: the call's work goes to the backend's default
   queue, between two barriers (see hst_stream_array_fn): the default queue waits for the
   compute queue's commands so far (this block's upload, `wait`, and earlier stages), and the
   compute queue's later commands wait for the call's; *out completes with them. */
static hst_result hst__call_stage(hst_stream *s, hst__sdev *d, hst__slot *slot, unsigned st,
                                  uint64_t b0, uint64_t b1, uint64_t base, hst_event wait, hst_event *out) {
    const hst_stream_stage *g = &s->stages[st];
    hst_stream_block blk = hst__stage_block(s, st, b0, b1, base);
    hst_stream_binding bind[2 * HST_STREAM_MAX_BINDINGS];
    hst_queue *dq = hst_backend_queue(d->be);
    hst_event before = NULL, after = NULL;
    uint64_t lbase, lend;
    unsigned k, n = g->num_inputs + g->num_outputs;
    hst_result r;
    hst__loaded(s, b0, b1, &lbase, &lend);
    memset(bind, 0, sizeof bind);
    for (k = 0; k < n; k++) {
        int a = hst__binding(g, k), global = s->arrays[a].kind == HST_STREAM_GLOBAL;
        bind[k].buffer = global ? d->global[a] : slot->dev[a];
        bind[k].num_slices = global ? 0 : lend - lbase;
        bind[k].slice_bytes = global ? s->arrays[a].global_bytes : s->arrays[a].slice_bytes;
    }
    r = hst_queue_barrier(d->comp, 1, &wait, &before);
    if (r == HST_SUCCESS) r = hst_queue_flush(d->comp);
    if (r == HST_SUCCESS) r = hst_queue_barrier(dq, 1, &before, NULL);
    if (r == HST_SUCCESS) r = g->arrays_fn(d->be, bind, n, g->scalars, &blk, g->arrays_user);
    if (r == HST_SUCCESS) r = hst_queue_barrier(dq, 0, NULL, &after);
    if (r == HST_SUCCESS) r = hst_queue_flush(dq);
    if (r == HST_SUCCESS) r = hst_queue_barrier(d->comp, 1, &after, out);
    hst_event_release(before);
    hst_event_release(after);
    return r;
}

/* The chain and the accumulators on the compute queue, after the upload; *ev: the last. */
static hst_result hst__compute(hst_stream *s, hst__sdev *d, hst__slot *slot, uint64_t b0,
                               uint64_t b1, uint64_t base, hst_event up, hst_event *ev) {
    unsigned st, i, last_stage = s->desc.num_stages - 1, nacc = s->desc.num_accumulators;
    hst_result r;
    for (st = 0; st < s->desc.num_stages; st++) {
        int first = st == 0, last = st == last_stage && nacc == 0;
        if (s->stages[st].arrays_fn)
            r = hst__call_stage(s, d, slot, st, b0, b1, base, first ? up : NULL, last ? ev : NULL);
        else
            r = hst__launch_stage(s, d, slot, st, b0, b1, base, first && up ? 1 : 0, &up, last ? ev : NULL);
        if (r != HST_SUCCESS) return r;
    }
    for (i = 0; i < nacc; i++)
        if ((r = hst__launch_acc(s, d, slot, i, b0, b1, base, i + 1 == nacc ? ev : NULL)) != HST_SUCCESS)
            return r;
    return hst_queue_flush(d->comp);
}

/* Owned slices of every output back to the caller (directly into pinned caller memory, else
   into the staging buffer, copied out when the slot is finished). */
static hst_result hst__download(hst_stream *s, hst__sdev *d, hst__slot *slot, uint64_t b0,
                                uint64_t b1, uint64_t base, hst_event computed, hst_event *ev) {
    unsigned i;
    hst_result r;
    for (i = 0; i < s->desc.num_arrays; i++) {
        const hst_stream_array *a = &s->arrays[i];
        size_t sb = a->slice_bytes, off = (size_t)(b0 - base) * sb, bytes = (size_t)(b1 - b0) * sb;
        hst_event e = NULL;
        if (!hst__downloads(a)) continue;
        if (!hst__staged(slot, a, i))
            r = hst__copy_runs(d->down, slot->dev[i], off, a, b0 - s->load0, b1 - s->load0, 0, computed, ev);
        else {
            r = hst_read(d->down, slot->dev[i], off, (unsigned char *)hst_buffer_host_ptr(slot->staging[i]) + off,
                         bytes, 0, computed ? 1 : 0, &computed, &e);
            if (r == HST_SUCCESS) hst__keep_event(ev, e);
        }
        if (r != HST_SUCCESS) return r;
    }
    return hst_queue_flush(d->down);
}

static hst_result hst__issue(hst_stream *s, hst__sdev *d, hst__slot *slot, uint64_t b0, uint64_t b1) {
    uint64_t base, end;
    hst_event up = NULL, computed = NULL, done = NULL;
    hst_result r;
    hst__loaded(s, b0, b1, &base, &end);
    r = hst__upload(s, d, slot, base, end, &up);
    if (r == HST_SUCCESS) r = hst__compute(s, d, slot, b0, b1, base, up, &computed);
    if (r == HST_SUCCESS) r = hst__download(s, d, slot, b0, b1, base, computed, &done);
    hst_event_release(up);
    if (done) hst_event_release(computed);
    else done = computed;                      /* nothing to download */
    slot->done = done;
    slot->busy = 1;
    slot->b0 = b0;
    slot->b1 = b1;
    return r;
}

/* Waits for the slot's block, copies staged outputs to the caller. */
static hst_result hst__finish(hst_stream *s, hst__sdev *d, hst__slot *slot, int *cancel) {
    unsigned i;
    uint64_t base, end;
    hst_result r = hst_event_wait(1, &slot->done);
    hst_event_release(slot->done);
    slot->done = NULL;
    slot->busy = 0;
    d->finished++;
    if (r != HST_SUCCESS) return r;
    hst__loaded(s, slot->b0, slot->b1, &base, &end);
    for (i = 0; i < s->desc.num_arrays; i++) {
        const hst_stream_array *a = &s->arrays[i];
        size_t sb = a->slice_bytes;
        if (!hst__downloads(a) || !hst__staged(slot, a, i)) continue;
        memcpy(hst__host_slice(s, a, slot->b0),
               (unsigned char *)hst_buffer_host_ptr(slot->staging[i]) + (size_t)(slot->b0 - base) * sb,
               (size_t)(slot->b1 - slot->b0) * sb);
    }
    d->end_s = hst__now_s();
    if (hst__block_done(s, d, slot->b0, slot->b1)) *cancel = 1;
    return HST_SUCCESS;
}

/* Finishes every block in flight, in order, keeping the first error. After a failure the copy
   queues are finished too: a block whose enqueue failed midway may still be copying from or to
   the caller's memory, which the caller may free once the run returns. */
static hst_result hst__drain(hst_stream *s, hst_result r, int *cancel) {
    unsigned d;
    for (d = 0; d < s->desc.num_backends; d++) {
        hst__sdev *dv = &s->devs[d];
        while (dv->finished < dv->issued) {
            hst__slot *slot = &dv->slots[dv->finished % s->plan.ring];
            hst_result f = hst__finish(s, dv, slot, cancel);
            if (r == HST_SUCCESS) r = f;
        }
        if (r != HST_SUCCESS && dv->up) {
            hst_result up = hst_queue_finish(dv->up), down = hst_queue_finish(dv->down);
            (void)up; (void)down;   /* the run's first error is what the caller gets */
        }
    }
    return r;
}

/* Round robin over the devices: each issues its next block as soon as the slot it reuses is
   finished (the only host wait), so every device keeps `ring` blocks in flight. */
static hst_result hst__cl_run(hst_stream *s) {
    unsigned d, n = s->desc.num_backends, active;
    int cancel = 0;
    hst_result r = HST_SUCCESS;
    for (d = 0; d < n; d++) s->devs[d].start_s = s->devs[d].end_s = hst__now_s();
    do {
        active = 0;
        for (d = 0; d < n && r == HST_SUCCESS && !cancel; d++) {
            hst__sdev *dv = &s->devs[d];
            hst__slot *slot = &dv->slots[dv->issued % s->plan.ring];
            uint64_t b0, b1;
            if (dv->issued == hst__block_count(s, dv)) continue;
            active = 1;
            if (slot->busy && (r = hst__finish(s, dv, slot, &cancel)) != HST_SUCCESS) break;
            if (cancel) break;
            hst__block_bounds(s, dv, dv->issued, &b0, &b1);
            dv->issued++;
            r = hst__issue(s, dv, slot, b0, b1);
        }
    } while (active && r == HST_SUCCESS && !cancel);
    r = hst__drain(s, r, &cancel);
    if (r == HST_SUCCESS && cancel) r = HST_ERROR_CANCELLED;
    return r;
}

/* GLOBAL arrays at the start of a run: the caller's contents on device 0 (of rank 0), zeros
   elsewhere. */
static hst_result hst__globals_start(hst_stream *s) {
    unsigned d, i;
    hst_result r;
    for (d = 0; d < s->desc.num_backends; d++)
        for (i = 0; i < s->desc.num_arrays; i++) {
            const hst_stream_array *a = &s->arrays[i];
            hst__sdev *dv = &s->devs[d];
            static const unsigned char zero[8] = {0};
            if (a->kind != HST_STREAM_GLOBAL || a->buffers) continue;
            r = d == 0 && s->rank == 0 ? hst_write(dv->up, dv->global[i], 0, a->host, a->global_bytes, 1, 0, NULL, NULL)
                       : hst_fill(dv->up, dv->global[i], zero, hst_dtype_size(a->dtype), 0, a->global_bytes, 0, NULL, NULL);
            if (r == HST_SUCCESS) r = hst_queue_finish(dv->up);   /* before any block reads it */
            if (r != HST_SUCCESS) return r;
        }
    return HST_SUCCESS;
}

/* Adds every device's copy of GLOBAL array i into dst, in device order; first: dst starts as
   device 0's copy (the start of the sum) instead. */
static hst_result hst__globals_add(hst_stream *s, unsigned i, void *dst, int first) {
    const hst_stream_array *a = &s->arrays[i];
    void *tmp = NULL;
    unsigned d;
    hst_result r = HST_SUCCESS;
    for (d = 0; d < s->desc.num_backends && r == HST_SUCCESS; d++) {
        hst_queue *q = hst_backend_queue(s->devs[d].be);
        if (d == 0 && first) {
            r = hst_read(q, s->devs[0].global[i], 0, dst, a->global_bytes, 1, 0, NULL, NULL);
            continue;
        }
        if (!tmp && !(tmp = hst_backend_alloc(s->backends[0], a->global_bytes))) return HST_ERROR_OUT_OF_HOST_MEMORY;
        r = hst_read(q, s->devs[d].global[i], 0, tmp, a->global_bytes, 1, 0, NULL, NULL);
        if (r == HST_SUCCESS) hst__add_into(a->dtype, dst, tmp, a->global_bytes / hst_dtype_size(a->dtype));
    }
    hst_backend_free(s->backends[0], tmp);
    return r;
}

/* GLOBAL arrays at the end: the caller gets the sum over devices, in device order. */
static hst_result hst__globals_finish(hst_stream *s) {
    unsigned i;
    hst_result r = HST_SUCCESS;
    for (i = 0; i < s->desc.num_arrays && r == HST_SUCCESS; i++)
        if (s->arrays[i].kind == HST_STREAM_GLOBAL && !s->arrays[i].buffers)
            r = hst__globals_add(s, i, s->arrays[i].host, 1);
    return r;
}

/* Per-slice accumulator values of each device's range, read once at the end. */
static hst_result hst__read_accs(hst_stream *s) {
    unsigned d, i;
    uint64_t z;
    hst_result r;
    for (d = 0; d < s->desc.num_backends; d++) {
        hst__sdev *dv = &s->devs[d];
        for (i = 0; i < s->desc.num_accumulators && dv->r1 > dv->r0; i++) {
            double *dst = &s->acc_slices[(size_t)i * s->desc.num_slices + dv->r0];
            size_t n = (size_t)(dv->r1 - dv->r0);
            if ((r = hst_read(hst_backend_queue(dv->be), dv->acc[i], (size_t)dv->r0 * s->plan.acc_bytes,
                              dst, n * s->plan.acc_bytes, 1, 0, NULL, NULL)) != HST_SUCCESS) return r;
            if (s->plan.acc_bytes == 4)   /* float values, widened in place from the end */
                for (z = n; z-- > 0;) dst[z] = (double)((const float *)dst)[z];
        }
    }
    return HST_SUCCESS;
}
#endif

/* >>ranks ------------------------------------------------------------------------------------ */
#ifdef HST_STREAM_MPI
/* The outcome of a phase on every rank: success where every rank succeeded, else the first
   failing rank's code (MPI_MINLOC over (rank, code) pairs: the lowest failing rank wins),
   which the other ranks log as HST_LOGITEM_RANK_FAILED naming it (the failing rank logged its own
   reason where the library saw one). Every rank calls it at the same points, whatever happened
   before, so none waits for a rank that gave up. */
static hst_result hst__ranks_agree(MPI_Comm comm, const hst_backend *be, hst_result r, const char *what) {
    struct { int rank, code; } in, out;
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    in.rank = r != HST_SUCCESS ? me : n;
    in.code = r;
    MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm);
    if (out.rank == n) return HST_SUCCESS;
    if (out.rank != me)
        hst_backend_log(be, HST_LOG_ERROR, HST_LOGITEM_RANK_FAILED, "hst_stream: rank %d of %d failed during %s (%s); "
                        "rank %d returns it too", out.rank, n, what, hst_result_string(out.code), me);
    return out.code;
}

/* The stream on the ranks of comm (the stream's own duplicate, freed with it): this rank, the
   count, the lists of the split and of the combining, and the limits of MPI's int counts. */
static hst_result hst__ranks_attach(hst_stream *s, MPI_Comm comm) {
    const hst_backend *be = s->backends[0];
    size_t n;
    unsigned i;
    s->comm = comm;
    s->mpi = 1;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->nranks);
    n = (size_t)s->nranks;
    if (s->desc.num_slices > INT_MAX)
        return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "num_slices %llu: at most INT_MAX with mpi_comm (MPI's "
                         "counts)", (unsigned long long)s->desc.num_slices);
    for (i = 0; i < s->desc.num_arrays; i++)
        if (s->arrays[i].kind == HST_STREAM_GLOBAL && s->arrays[i].global_bytes / hst_dtype_size(s->arrays[i].dtype) > INT_MAX)
            return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, "hst_stream", "arrays[%u]: a GLOBAL array of more than INT_MAX "
                             "elements with mpi_comm (MPI's counts)", i);
    s->bounds = (uint64_t *)hst_backend_alloc(be, (n + 1) * sizeof *s->bounds);
    s->peers = (uint64_t *)hst_backend_alloc(be, 2 * n * sizeof *s->peers);
    s->speeds = (double *)hst_backend_alloc(be, n * sizeof *s->speeds);
    s->counts = (int *)hst_backend_alloc(be, n * sizeof *s->counts);
    s->displs = (int *)hst_backend_alloc(be, n * sizeof *s->displs);
    return s->bounds && s->peers && s->speeds && s->counts && s->displs ? HST_SUCCESS : HST_ERROR_OUT_OF_HOST_MEMORY;
}

/* What every rank's description must share: what the collectives move (N, the accumulators,
   the GLOBAL arrays) and what decides the slices a rank loads and computes (the arrays' kinds
   and slice sizes, the stages' halos and bindings, the direction). */
static uint64_t hst__ranks_hash(const hst_stream *s) {
    uint64_t h = hst__fnv_u64(hst__fnv_u64(HST_HASH_SEED, s->desc.num_slices), (uint64_t)s->desc.reverse);
    unsigned i, k;
    for (i = 0; i < s->desc.num_arrays; i++) {
        const hst_stream_array *a = &s->arrays[i];
        int global = a->kind == HST_STREAM_GLOBAL;
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->kind), global ? 0 : a->slice_bytes);
        h = hst__fnv_u64(hst__fnv_u64(h, global ? a->global_bytes : 0), global ? (uint64_t)a->dtype : 0);
        h = hst__fnv_u64(h, global && a->buffers);
    }
    for (i = 0; i < s->desc.num_stages; i++) {
        const hst_stream_stage *g = &s->stages[i];
        h = hst__fnv_u64(hst__fnv_u64(h, g->halo_lo), g->halo_hi);
        h = hst__fnv_u64(hst__fnv_u64(h, g->num_inputs), g->num_outputs);
        for (k = 0; k < g->num_inputs + g->num_outputs; k++)
            h = hst__fnv_u64(h, (uint64_t)(k < g->num_inputs ? g->inputs[k] : g->outputs[k - g->num_inputs]));
    }
    for (i = 0; i < s->desc.num_accumulators; i++) {
        const hst_stream_acc *a = &s->accs[i];
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->kind), (uint64_t)a->dtype);
        h = hst__fnv_u64(hst__fnv_u64(h, (uint64_t)a->a), (uint64_t)(a->kind == HST_STREAM_DIFF2 ? a->b : -1));
    }
    return h;
}

/* This rank's speed for the split across ranks (slices per second): the sum over its devices
   of 1 / seconds per slice in the split op of earlier streams of this chain on these devices
   (found, not registered); 0 when there is none (or a device has no timing). */
static double hst__rank_speed(const hst_stream *s) {
    char ids[HST_STREAM_MAX_BACKENDS][512], op_name[48];
    double w[HST_STREAM_MAX_BACKENDS], sum = 0.0;
    unsigned d;
    hst__split_name(s, ids, op_name, sizeof op_name);
    if (!hst__split_registry_weights(s, hst_choice_find(s->backends[0], op_name), w)) return 0.0;
    for (d = 0; d < s->desc.num_backends; d++) sum += w[d];
    return sum;
}

/* The split across ranks (collective): every rank's N, description hash and speed gathered,
   the descriptions compared, then contiguous ranges in rank order in proportion to the speeds
   (equal unless every rank has one). Every rank computes the same from the same gathered
   values, so the outcome needs no agreement. */
static hst_result hst__ranks_split(hst_stream *s) {
    uint64_t mine[2], N = s->desc.num_slices;
    double speed = hst__rank_speed(s);
    unsigned k, n = (unsigned)s->nranks;
    int known = 1;
    mine[0] = N;
    mine[1] = hst__ranks_hash(s);
    MPI_Allgather(mine, 2, MPI_UINT64_T, s->peers, 2, MPI_UINT64_T, s->comm);
    MPI_Allgather(&speed, 1, MPI_DOUBLE, s->speeds, 1, MPI_DOUBLE, s->comm);
    for (k = 1; k < n; k++)
        if (s->peers[2 * k] != s->peers[0] || s->peers[2 * k + 1] != s->peers[1])
            return hst_backend_fail(hst__desc_be(&s->desc), HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, "hst_stream", "rank %u's description differs from rank 0's (num_slices "
                             "%llu and %llu, or the arrays' kinds and sizes, the stages' halos and bindings, the "
                             "accumulators, reverse): every rank must give the same", k,
                             (unsigned long long)s->peers[2 * k], (unsigned long long)s->peers[0]);
    for (k = 0; k < n; k++) known &= s->speeds[k] > 0.0;
    for (k = 0; k < n && !known; k++) s->speeds[k] = 1.0;
    hst__split_lengths(s->speeds, n, N, s->bounds + 1);
    s->bounds[0] = 0;
    for (k = 0; k < n; k++) {
        s->bounds[k + 1] += s->bounds[k];
        s->counts[k] = (int)(s->bounds[k + 1] - s->bounds[k]);
        s->displs[k] = (int)s->bounds[k];
    }
    s->own0 = s->bounds[s->rank];
    s->own1 = s->bounds[s->rank + 1];
    if (s->own0 == s->own1) s->load0 = s->load1 = s->own0;   /* no slices: no memory */
    else hst__loaded(s, s->own0, s->own1, &s->load0, &s->load1);
    return HST_SUCCESS;
}

static hst_result hst__create_ranks(const hst_stream_desc *desc, hst_stream **out) {
    MPI_Comm comm;
    hst_stream *s = NULL;
    hst_result r = HST_SUCCESS;
    MPI_Comm_dup(*(const MPI_Comm *)desc->mpi_comm, &comm);
    if (out) *out = NULL;
    else r = hst__null_arg(hst__desc_be(desc), "hst_stream", "out is NULL");
    if (r == HST_SUCCESS && (r = hst__create_local(desc, &s)) == HST_SUCCESS) r = hst__ranks_attach(s, comm);
    r = hst__ranks_agree(comm, hst__desc_be(desc), r, "hst_stream_create");
    if (r == HST_SUCCESS) r = hst__ranks_split(s);
    if (r == HST_SUCCESS) r = hst__ranks_agree(comm, s->backends[0], hst__create_setup(s), "hst_stream_create");
    if (r != HST_SUCCESS) {
        if (!s || !s->mpi) MPI_Comm_free(&comm);   /* else hst_stream_destroy frees it */
        hst_stream_destroy(s);
        return r;
    }
    hst__split_register(s);
    *out = s;
    return HST_SUCCESS;
}

/* Every rank's per-slice accumulator values into every rank's lists (each then sums all N in
   slice order, as one process does). */
static void hst__ranks_accs(hst_stream *s) {
    unsigned i;
    for (i = 0; i < s->desc.num_accumulators; i++)
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->acc_slices + (size_t)i * s->desc.num_slices,
                       s->counts, s->displs, MPI_DOUBLE, s->comm);
}

/* This rank's part of GLOBAL array i added to dst, the sum of the ranks before it (first:
   rank 0, dst is the caller array, which starts the sum): its devices' copies in device
   order, or on the host device its one copy (the caller array, updated in place from zeros). */
static hst_result hst__rank_global_add(hst_stream *s, unsigned i, void *dst, int first) {
    const hst_stream_array *a = &s->arrays[i];
    if (s->own0 == s->own1) return HST_SUCCESS;   /* no slices: nothing to add */
#ifndef HST_NO_OPENCL
    if (!s->plan.host) return hst__globals_add(s, i, dst, first);
#endif
    if (!first) hst__add_into(a->dtype, dst, a->host, a->global_bytes / hst_dtype_size(a->dtype));
    return HST_SUCCESS;
}

/* GLOBAL arrays across the ranks (top comment): a pipeline in rank order, each rank adding its
   part to the sum of the ranks before it and passing it on, then the last rank's total
   broadcast into every caller array. Every rank sends and receives whatever happens here, so
   an error cannot leave a rank waiting: it is returned, for the agreement. */
static hst_result hst__ranks_globals(hst_stream *s) {
    hst_result r = HST_SUCCESS, e;
    unsigned i;
    int first = s->rank == 0, last = s->rank + 1 == s->nranks;
    for (i = 0; i < s->desc.num_arrays; i++) {
        const hst_stream_array *a = &s->arrays[i];
        MPI_Datatype t = a->dtype == HST_F32 ? MPI_FLOAT : MPI_DOUBLE;
        int count;
        void *sum = NULL;
        if (a->kind != HST_STREAM_GLOBAL || a->buffers) continue;
        count = (int)(a->global_bytes / hst_dtype_size(a->dtype));   /* <= INT_MAX: attach */
        if (!first) {   /* the sum of ranks 0 .. rank - 1 (without memory: received, then lost) */
            sum = hst_backend_alloc(s->backends[0], a->global_bytes);
            MPI_Recv(sum ? sum : a->host, count, t, s->rank - 1, (int)i, s->comm, MPI_STATUS_IGNORE);
            if (!sum && r == HST_SUCCESS) r = HST_ERROR_OUT_OF_HOST_MEMORY;
        }
        if (first || sum) {
            e = hst__rank_global_add(s, i, first ? a->host : sum, first);
            if (r == HST_SUCCESS) r = e;
            if (sum) memcpy(a->host, sum, a->global_bytes);
        }
        hst_backend_free(s->backends[0], sum);
        if (!last) MPI_Send(a->host, count, t, s->rank + 1, (int)i, s->comm);
        MPI_Bcast(a->host, count, t, s->nranks - 1, s->comm);
    }
    return r;
}

/* The end of a run on every rank: the outcomes agreed; after a success everywhere the
   accumulators and GLOBAL arrays combined, and that agreed too; the slices done summed. */
static hst_result hst__ranks_run_end(hst_stream *s, hst_result r) {
    uint64_t done = s->done;
    r = hst__ranks_agree(s->comm, s->backends[0], r, "hst_stream_run");
    if (r == HST_SUCCESS) {
        hst__ranks_accs(s);
        r = hst__ranks_agree(s->comm, s->backends[0], hst__ranks_globals(s), "hst_stream_run (combining GLOBAL arrays)");
    }
    MPI_Allreduce(&done, &s->done_all, 1, MPI_UINT64_T, MPI_SUM, s->comm);
    return r;
}
#else
static hst_result hst__create_ranks(const hst_stream_desc *desc, hst_stream **out) {
    if (out) *out = NULL;
    return hst_backend_fail(hst__desc_be(desc), HST_ERROR_NOT_BUILT_IN, HST_LOGITEM_NOT_BUILT_IN, "hst_stream", "mpi_comm is set, but stream.h's implementation was compiled "
                     "without HST_STREAM_MPI");
}
#endif

/* >>run -------------------------------------------------------------------------------------- */
/* Every sliced array has caller memory (with ranks it may come after create). */
static hst_result hst__check_run_memory(const hst_stream *s) {
    unsigned i;
    for (i = 0; i < s->desc.num_arrays; i++)
        if (hst__sliced(&s->arrays[i]) && !hst__has_memory(&s->arrays[i]))
            return hst__state_arg(hst__desc_be(&s->desc), "hst_stream", "hst_stream_run: arrays[%u] has no memory: give "
                             "this rank's slices [%llu, %llu) with hst_stream_set_array", i,
                             (unsigned long long)s->load0, (unsigned long long)s->load1);
    return HST_SUCCESS;
}

/* GLOBAL arrays on the host device of a rank after 0 at the start of a run: zeros (the
   caller's contents count once, on rank 0). The host device updates the caller array itself. */
static void hst__globals_zero_host(hst_stream *s) {
    unsigned i;
    for (i = 0; i < s->desc.num_arrays && s->rank > 0; i++)
        if (s->arrays[i].kind == HST_STREAM_GLOBAL && !s->arrays[i].buffers)
            memset(s->arrays[i].host, 0, s->arrays[i].global_bytes);
}

/* This rank's part of a run: its slices through its devices (nothing where it owns none). */
static hst_result hst__run_local(hst_stream *s) {
    unsigned d;
    hst_result r;
    if (s->own0 == s->own1) return HST_SUCCESS;
    if ((r = hst__check_run_memory(s)) != HST_SUCCESS) return r;
    hst__split(s);
    for (d = 0; d < s->desc.num_backends; d++) {
        hst__sdev *dv = &s->devs[d];
        dv->issued = dv->finished = 0;
        dv->done0 = dv->done1 = s->desc.reverse ? dv->r1 : dv->r0;
    }
#ifndef HST_NO_OPENCL
    if (!s->plan.host) {
        r = hst__globals_start(s);
        if (r == HST_SUCCESS) r = hst__cl_run(s);
        if (r == HST_SUCCESS) r = hst__read_accs(s);
        if (!s->mpi && (r == HST_SUCCESS || r == HST_ERROR_CANCELLED)) {   /* ranks: hst__ranks_globals */
            hst_result g = hst__globals_finish(s);
            if (r == HST_SUCCESS) r = g;
        }
        return r;
    }
#endif
    hst__globals_zero_host(s);
    return hst__host_run(s);
}

static void hst__stream_report(hst_stream *s, hst_stream_report *rep, double t0) {
    unsigned d, i;
    uint64_t z;
    memset(rep, 0, sizeof *rep);
    rep->block_slices = s->block;
    rep->slices_done = s->done;
    rep->slices_done_all = s->done_all;
    rep->rank_begin = s->own0;
    rep->rank_end = s->own1;
    rep->seconds = hst__now_s() - t0;
    for (d = 0; d < s->desc.num_backends; d++) {
        const hst__sdev *dv = &s->devs[d];
        rep->num_blocks += dv->finished;
        rep->done_begin[d] = dv->done0; rep->done_end[d] = dv->done1;
        rep->range_begin[d] = dv->r0; rep->range_end[d] = dv->r1;
        rep->device_seconds[d] = dv->end_s - dv->start_s;
    }
    for (i = 0; i < s->desc.num_accumulators; i++)   /* in slice order: the same bits always */
        for (z = 0; z < s->desc.num_slices; z++)
            rep->acc[i] += s->acc_slices[(size_t)i * s->desc.num_slices + z];
}

HST__SDEF hst_result hst_stream_run(hst_stream *s, hst_stream_report *report) {
    hst_stream_report local;
    double t0 = hst__now_s();
    hst_result r;
    if (!s) return hst__null_arg(NULL, "hst_stream", "hst_stream_run: s is NULL");
    s->done = 0;
    r = hst__run_local(s);
    s->runs++;
    s->done_all = s->done;
#ifdef HST_STREAM_MPI
    if (s->mpi) r = hst__ranks_run_end(s, r);
#endif
    if (r == HST_SUCCESS) hst__split_record(s);
    hst__stream_report(s, report ? report : &local, t0);
    return r;
}

#ifdef __cplusplus
}
#endif
#endif /* HST_STREAM_IMPLEMENTATION */

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
