/* halo.h — halostream's halo packer: quantity layouts, NDSL-convention boundary regions, exchange
   specs with quarter-turn rotations for scalars and vector pairs, and plans that pack EVERY halo
   of EVERY quantity into one buffer per peer in ONE kernel launch (and unpack in one), with an
   optional MPI exchanger, NDSL's tile and cubed-sphere partitioners and its vector-interface
   synchronisation. Single-file, header-only, C99 (and C++).

   Do this:
       #define HST_HALO_IMPLEMENTATION      (or HST_IMPLEMENTATION for every header)
   before you include this file in *exactly one* C or C++ file to create the implementation.
   Every other file includes it without the macro and sees only the declarations. (Defining the
   implementation twice gives duplicate symbols; never defining it gives undefined ones.) The
   backend's and the kernels' implementations must be compiled somewhere too.

   Usage (one 3-D field, all 8 boundaries of a doubly periodic single rank, on any device, in
   NDSL's one flat buffer: every spec on peer 0, boundary-major, each boundary's send strip
   paired with the opposite boundary's halo, so that the buffer a neighbour sends lands where
   it belongs; with MPI, send the segment of peer 0 and receive into it):

       // given: hst_backend *be; hst_buffer *field;    // the field, (79, 102, 102) floats
       hst_halo_layout L = {0};                  // (z, y, x), 3-point halo, nx = ny = 96, nz = 79
       L.ndim = 3; L.elem_bytes = 4; L.n_halo = 3;
       L.dims[0] = HST_HALO_DIM_Z; L.dims[1] = HST_HALO_DIM_Y; L.dims[2] = HST_HALO_DIM_X;
       L.shape[0] = 79; L.shape[1] = L.shape[2] = 102;
       L.origin[1] = L.origin[2] = 3; L.extent[0] = 79; L.extent[1] = L.extent[2] = 96;
       hst_halo_spec specs[8];
       for (int b = 0; b < 8; b++)   // W's strip -> E's halo, N's -> S's, NW's -> SE's, ...
           if (hst_halo_spec_scalar_opposite(&L, 0, (hst_halo_boundary)b, 0, 0, &specs[b]) != HST_SUCCESS)
               return 1;
       hst_halo_plan_desc d = {0}; d.num_quantities = 1; d.layouts = &L;
       d.num_specs = 8; d.specs = specs; d.num_peers = 1;
       hst_halo_plan *plan;
       if (hst_halo_plan_create(be, &d, &plan) != HST_SUCCESS) return 1;
       hst_result r = hst_halo_pack(plan, NULL, 1, &field, 0, NULL, NULL);   // one launch
       // one periodic rank is its own neighbour: its buffer comes back to it
       if (r == HST_SUCCESS) r = hst_halo_copy_peer(plan, 0, plan, 0, NULL, 0, NULL, NULL);
       if (r == HST_SUCCESS) r = hst_halo_unpack(plan, NULL, 1, &field, 0, NULL, NULL);   // one launch
       hst_halo_plan_destroy(plan);
       if (r != HST_SUCCESS) return 1;

   Several ranks: the partitioners (hst_tile_specs for doubly periodic tiles of any layout,
   hst_cubed_sphere_specs) give one peer per boundary with a neighbour, and the MPI exchanger
   routes each peer's segment (tags: our boundary, and hst_halo_opposite's for the reply).

   Reference (every public function, by group):
     Regions and specs
       hst_halo_layout_bytes            bytes a quantity of a layout needs
       hst_halo_region_get              a boundary's send or receive region
       hst_halo_spec_scalar, _vector    a spec exchanging one boundary
       hst_halo_opposite                NDSL's opposite boundary under a rotation
       hst_halo_spec_scalar_opposite, hst_halo_spec_vector_opposite
                                        a spec for one flat buffer
     Plans
       hst_halo_plan_create, hst_halo_plan_destroy
       hst_halo_plan_stats              counters
       hst_halo_plan_peers, hst_halo_plan_peer
                                        peer count; a peer's segments
       hst_halo_plan_send_buffer, hst_halo_plan_recv_buffer
                                        the buffers, not synchronised
       hst_halo_plan_pack_buffer, hst_halo_plan_unpack_buffer
                                        the buffers after the last pack and unpack (NDSL's
                                        get_pack_buffer, get_unpack_buffer)
       hst_halo_plan_ready, hst_halo_plan_synchronize
     Pack and unpack
       hst_halo_pack, hst_halo_unpack   device quantities: one launch each
       hst_halo_pack_host, hst_halo_unpack_host
                                        host arrays (the host path)
       hst_halo_pack_host_choose, hst_halo_unpack_host_choose
                                        the host path by measured speed
     Communication
       hst_halo_plan_mirrors, hst_halo_download, hst_halo_upload
                                        pinned host mirrors of the buffers
       hst_halo_copy_peer               same-process neighbours
     Partitioners
       hst_tile_subtile_index, hst_tile_neighbor_of, hst_tile_subtile_slice,
       hst_tile_subtile_extent          doubly periodic tiles (NDSL's TilePartitioner)
       hst_cubed_sphere_neighbor_of     the cubed sphere
       hst_cubed_sphere_specs, hst_tile_specs
                                        every spec of one rank
       hst_cubed_sphere_vector_interface_specs, hst_tile_vector_interface_specs
                                        NDSL's vector-interface synchronisation
     MPI (HST_HALO_MPI)
       hst_halo_exchanger_create, hst_halo_exchanger_destroy
       hst_halo_exchange_start, hst_halo_exchange_finish
                                        device quantities
       hst_halo_exchange_start_host, hst_halo_exchange_finish_host
                                        host arrays

   Options (macros)                         matters in
     HST_IMPLEMENTATION                     the implementation TU: compile every header's body
     HST_HALO_IMPLEMENTATION                the implementation TU: compile halo.h's body only
     HST_HALO_MPI                           every TU: the MPI exchanger (needs mpi.h; link MPI)
     HST_NO_OPENCL                          every TU: host backend only (the host path works)
     HST_STATIC, HST_API                    every TU: as in backend.h

   Conventions (NDSL's / pace's halo data transformer, byte for byte; REFERENCE.md section 5):
   - Dimensions are listed in C order (slowest first), each with a role: x, x_interface, y,
     y_interface, z, z_interface or other. Interface (staggered) dimensions hold extent + 1
     points; a boundary's cut through one shifts the send strip by one point (ov = 1).
   - Boundaries W=0, E=1, N=2, S=3, NW=4, NE=5, SW=6, SE=7: edges exclude corners, corners are
     n x n. Per cut dimension, with o = origin, e = origin + extent, n = n_halo:
       low side (W, S):   send [o+ov, o+ov+n)    receive [o-n, o)
       high side (E, N):  send [e-ov-n, e-ov)    receive [e, e+n)
     every other dimension spans [o, e), a cut dimension the layout lacks too (N or S of an
     [x, z] quantity, W or E of a [z, y] one: NDSL packs the whole compute range there, and
     unpacking such a spec overwrites the compute domain, as NDSL's does; packed so that
     messages match NDSL ranks' byte for byte). Out-of-range regions are errors.
   - Rotation r (clockwise quarter turns, mod 4) counter-rotates the pack region before packing;
     unpacking never rotates. With S the source region (extents n_x, n_y) and T what is packed
     (dims order kept, extents swapped for odd r):
       r=1: T[x=a, y=b] = S[x=b, y=n_y-1-a]    r=2: both horizontal axes reversed
       r=3: T[x=a, y=b] = S[x=n_x-1-b, y=a]
     x only: r=2,3 reverse x; y only: r=1,2 reverse y. Vectors rotate both components with the
     x component's dims, and the two slots hold r=0: (x', y'), r=1: (-y', x'), r=2: (-x', -y'),
     r=3: (y', -x').
   - The buffer: per peer, its specs in the order given, each spec's slot(s) in C order over the
     dims as listed (vectors: x slot, then y slot), in the quantities' element type; peers follow
     each other (each peer's segment starts at a multiple of HST_HALO_PEER_ALIGN bytes). Pack
     offsets follow the rotated pack regions, unpack offsets the unpack regions (they may differ
     per slot for staggered vectors; per spec the totals must agree).
   - Vector sign changes: elem_bytes 2, 4, 8 with HST_HALO_FLOAT (IEEE half, float, double: the
     sign bit is flipped, exactly -x, NaN payloads kept) and 1, 2, 4, 8 with HST_HALO_INT (two's
     complement, wrapping). 16-byte elements are scalars only.

   What it does NOT do: it does not fill the corners at cube vertices (three tiles meet there;
   the partitioner reports no neighbour); it does not thread the host path or block the host
   path's rotated copies (they go element by element; contiguous runs are memcpy'd); it does not
   check that a peer's unpack regions match what this rank packs except by total size (the MPI
   exchanger compares message sizes once at creation). More than HST_HALO_MAX_QUANTITIES (64)
   quantities per plan: use two plans. It does not split cubed-sphere tiles over non-square
   layouts (NDSL neither). (A plan logs through its backend's logger: hst_backend_fail.)

   Thread safety: each function's comment ends with its class, in backend.h's words (see its
   top comment). A plan counts as an object of its backend; the host path touches only the plan
   and the caller's arrays, the layout, region, spec and partitioner functions nothing shared.
   The backend's logger runs on the calling thread. MPI exchangers called from threads other than
   MPI's main thread need the matching MPI thread level (MPI_THREAD_SERIALIZED, or
   MPI_THREAD_MULTIPLE where the calls overlap).

   Version 0.1.0. MIT licence, Copyright (c) 2026 the halostream authors (the full text at the
   end of this file). */

#ifndef HST_HALO_H
#define HST_HALO_H

#if defined(HST_IMPLEMENTATION) && !defined(HST_HALO_IMPLEMENTATION)
#  define HST_HALO_IMPLEMENTATION
#endif
/* The halo kernel family: compiled where halo.h's implementation is. */
#if defined(HST_HALO_IMPLEMENTATION) && !defined(HST_KERNELS_HALO_IMPLEMENTATION)
#  define HST_KERNELS_HALO_IMPLEMENTATION
#endif
#include "kernels_halo.h"

#include "backend.h"
#include "choice.h"   /* hst_halo_pack_host_choose, _unpack_host_choose */
#ifdef HST_HALO_MPI
#  include <mpi.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define HST_HALO_MAX_DIMS 4
#define HST_HALO_MAX_QUANTITIES 64   /* quantity buffers one fused kernel takes (kernels.h) */
#define HST_HALO_PEER_ALIGN 256      /* each peer's segment offset: DMA- and cache-line friendly */
#define HST_HALO_ALL_PEERS ((size_t)-1)

/* Dimension roles (NDSL's dims names). */
typedef enum hst_halo_dim {
    HST_HALO_DIM_OTHER = 0, HST_HALO_DIM_X, HST_HALO_DIM_X_INTERFACE, HST_HALO_DIM_Y,
    HST_HALO_DIM_Y_INTERFACE, HST_HALO_DIM_Z, HST_HALO_DIM_Z_INTERFACE
} hst_halo_dim;

/* How a vector component changes sign (scalars never change). */
typedef enum hst_halo_number { HST_HALO_FLOAT = 0, HST_HALO_INT = 1 } hst_halo_number;

/* NDSL's boundary numbers. */
typedef enum hst_halo_boundary {
    HST_HALO_WEST = 0, HST_HALO_EAST = 1, HST_HALO_NORTH = 2, HST_HALO_SOUTH = 3,
    HST_HALO_NORTHWEST = 4, HST_HALO_NORTHEAST = 5, HST_HALO_SOUTHWEST = 6,
    HST_HALO_SOUTHEAST = 7, HST_HALO_BOUNDARY_COUNT = 8
} hst_halo_boundary;

/* One quantity's memory layout (NDSL's QuantityHaloSpec). All extents and offsets in elements,
   C order (dimension 0 slowest). Zero-initialise, then set what you need. */
typedef struct hst_halo_layout {
    unsigned ndim;                         /* 1 .. HST_HALO_MAX_DIMS */
    size_t shape[HST_HALO_MAX_DIMS];       /* allocated extents (halo and padding included) */
    size_t strides[HST_HALO_MAX_DIMS];     /* element strides; all 0: C-contiguous from shape */
    size_t elem_bytes;                     /* 1, 2, 4, 8 or 16 */
    hst_halo_number number;                /* vector sign rule (see the top of the file) */
    size_t origin[HST_HALO_MAX_DIMS];      /* first compute-domain index per dimension */
    size_t extent[HST_HALO_MAX_DIMS];      /* compute-domain extent (interface dims: n + 1) */
    hst_halo_dim dims[HST_HALO_MAX_DIMS];  /* roles; at most one x, one y, one z dimension */
    size_t n_halo;                         /* halo width n_points, >= 1 */
} hst_halo_layout;

/* A box of a quantity: [start[d], stop[d]) per dimension of its layout. */
typedef struct hst_halo_region {
    size_t start[HST_HALO_MAX_DIMS], stop[HST_HALO_MAX_DIMS];
} hst_halo_region;

/* One exchange (NDSL's HaloExchangeSpec; a vector pair is one spec with both components). */
typedef struct hst_halo_spec {
    size_t quantity;               /* index into the plan's quantities (vectors: x component) */
    int vector;                    /* nonzero: quantity_y is the y component */
    size_t quantity_y;
    unsigned rotation;             /* clockwise quarter turns before packing (taken mod 4) */
    hst_halo_region pack, unpack;  /* scalar / x component */
    hst_halo_region pack_y, unpack_y;   /* y component */
    size_t peer;                   /* which peer's segment, < num_peers */
    int negate;                    /* scalars only: pack -value (one vector component sent
                                      alone, as NDSL's synchronize_vector_interfaces does);
                                      the sign rules of vectors apply */
} hst_halo_spec;

typedef struct hst_halo_plan_desc {
    size_t num_quantities;             /* 1 .. HST_HALO_MAX_QUANTITIES */
    const hst_halo_layout *layouts;    /* one per quantity */
    size_t num_specs;
    const hst_halo_spec *specs;
    size_t num_peers;                  /* 0 means 1 */
} hst_halo_plan_desc;

/* Counters: one "launch" is one launch of a fused kernel (hst_launch_kernel: on the host device
   its twin), or one pass of the host path. */
typedef struct hst_halo_stats {
    uint64_t pack_launches, unpack_launches;
    size_t pack_slots, unpack_slots;     /* regions moved per pack / unpack */
    size_t send_bytes, recv_bytes;       /* whole buffers, all peers, padding included */
    size_t table_bytes;                  /* the descriptor table in the backend's memory */
} hst_halo_stats;

typedef struct hst_halo_plan hst_halo_plan;

/* Bytes a quantity of this layout needs ((1 + sum (shape-1)*stride) * elem_bytes). Errors:
   HST_ERROR_INVALID_ARGUMENT (NULL, ndim 0 or > 4, zero shape, origin + extent past shape, two
   dims with one role), HST_ERROR_DTYPE (elem_bytes), HST_ERROR_OVERFLOW. Does not log.
   Thread-safe. */
HST_API HST_NODISCARD hst_result hst_halo_layout_bytes(const hst_halo_layout *layout, size_t *bytes);

/* The send (receive = 0) or receive (receive = 1) region of a boundary, per the rules at the
   top. A boundary that cuts a horizontal dimension the layout lacks (N or S of an [x, z]
   quantity, W or E of a [z, y] one) spans the whole compute range there, as NDSL's
   get_boundary_slice does: both regions are then the compute domain (see the top of the file).
   Errors: HST_ERROR_INVALID_ARGUMENT (the region leaves the allocation, n_halo 0), and
   hst_halo_layout_bytes's. Does not log. Thread-safe. */
HST_API HST_NODISCARD hst_result hst_halo_region_get(const hst_halo_layout *layout, hst_halo_boundary b,
                                                     int receive, hst_halo_region *out);

/* A spec exchanging boundary b: pack = send region of b, unpack = receive region of b. The
   vector form uses each component's own regions. Errors as hst_halo_region_get.
   Thread-safe. */
HST_API HST_NODISCARD hst_result hst_halo_spec_scalar(const hst_halo_layout *layout, size_t quantity,
                                                      hst_halo_boundary b, unsigned rotation, size_t peer,
                                                      hst_halo_spec *out);
HST_API HST_NODISCARD hst_result hst_halo_spec_vector(const hst_halo_layout *layout_x, size_t quantity_x,
                                                      const hst_halo_layout *layout_y, size_t quantity_y,
                                                      hst_halo_boundary b, unsigned rotation, size_t peer,
                                                      hst_halo_spec *out);

/* NDSL's "opposite" pairing: the boundary through which the neighbour across b sees this rank,
   when crossing b turns the axes by `rotation` clockwise quarter turns (0 inside a tile:
   W <-> E, N <-> S, NW <-> SE, NE <-> SW; the cubed sphere's edges as its partitioner says).
   It is the tag of the neighbour's message to us (hst_halo_mpi_peer.recv_tag) and the
   boundary whose receive region the neighbour's segment for b fills.
   HST_HALO_BOUNDARY_COUNT for a boundary out of range. Thread-safe. */
HST_API hst_halo_boundary hst_halo_opposite(hst_halo_boundary b, unsigned rotation);

/* A spec for one flat buffer (NDSL's HaloDataTransformer of a rank whose every boundary has
   the same peer, e.g. one doubly periodic rank, or a 1 x n layout's N and S): pack = send
   region of b, unpack = receive region of hst_halo_opposite(b, 0). With every spec on peer 0
   in the same boundary order on both sides, segment k of the peer's buffer lands where it
   belongs (see the usage example at the top). Errors as hst_halo_region_get. Thread-safe. */
HST_API HST_NODISCARD hst_result hst_halo_spec_scalar_opposite(const hst_halo_layout *layout, size_t quantity,
                                                               hst_halo_boundary b, unsigned rotation,
                                                               size_t peer, hst_halo_spec *out);
HST_API HST_NODISCARD hst_result hst_halo_spec_vector_opposite(const hst_halo_layout *layout_x,
                                                               size_t quantity_x,
                                                               const hst_halo_layout *layout_y,
                                                               size_t quantity_y, hst_halo_boundary b,
                                                               unsigned rotation, size_t peer,
                                                               hst_halo_spec *out);

/* Creates a plan: validates every layout and spec, fixes both buffers' offsets, uploads the
   descriptor table once and takes the send and receive buffers from the backend's pool (the
   fused kernels, kernels_halo.h's declared family, are built at the backend's first launch of
   them and kept by the backend). Rejections are logged through the backend (BAD_ARGUMENT,
   DTYPE, SIZE_OVERFLOW, SHAPE_MISMATCH items) and returned: HST_ERROR_INVALID_ARGUMENT (NULLs,
   counts, indices, regions outside the allocation, more than 4 dims), HST_ERROR_DTYPE (element size; vector
   components of different element types; 16-byte or 1-byte float vectors), HST_ERROR_SHAPE
   (a spec's packed and unpacked element counts differ; vector components on different axes),
   HST_ERROR_OVERFLOW, out-of-memory and OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_plan_create(hst_backend *be, const hst_halo_plan_desc *desc,
                                                      hst_halo_plan **out);
/* Waits for the plan's last pack and unpack, then frees it (buffers back to the pool).
   Thread safety: per backend. */
HST_API void hst_halo_plan_destroy(hst_halo_plan *plan);
/* The counters (pack and unpack count launches). Thread safety: per object (the plan). */
HST_API hst_halo_stats hst_halo_plan_stats(const hst_halo_plan *plan);
/* Thread safety: while alive. */
HST_API size_t hst_halo_plan_peers(const hst_halo_plan *plan);
/* A peer's segment: byte offset and size in the send and the receive buffer (NULLs allowed).
   Thread safety: while alive. */
HST_API HST_NODISCARD hst_result hst_halo_plan_peer(const hst_halo_plan *plan, size_t peer,
                                                    size_t *send_offset, size_t *send_bytes,
                                                    size_t *recv_offset, size_t *recv_bytes);
/* The device buffers (the plan owns them). pack writes send; unpack reads recv. These two do
   NOT synchronise: a pack or unpack may still be running (order your commands after its event,
   or use the two below). Thread safety: while alive. */
HST_API hst_buffer *hst_halo_plan_send_buffer(const hst_halo_plan *plan);
HST_API hst_buffer *hst_halo_plan_recv_buffer(const hst_halo_plan *plan);
/* NDSL's HaloDataTransformer.get_pack_buffer / get_unpack_buffer: wait for the plan's last pack
   AND last unpack (hst_halo_plan_synchronize, as NDSL's call synchronize()), then give the send
   (pack) or receive (unpack) buffer in *out, ready to hand to communication. *out is NULL on
   failure. Errors: HST_ERROR_INVALID_ARGUMENT (plan or out NULL), what hst_event_wait gives
   (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14: the pack or unpack was terminated, e.g.
   through a user event set to an error). Thread safety: per object (the plan). */
HST_API HST_NODISCARD hst_result hst_halo_plan_pack_buffer(hst_halo_plan *plan, hst_buffer **out);
HST_API HST_NODISCARD hst_result hst_halo_plan_unpack_buffer(hst_halo_plan *plan, hst_buffer **out);

/* Packs every quantity into the send buffer: ONE launch. quantities: num_quantities buffers of
   the plan's backend, each at least hst_halo_layout_bytes of its layout. q NULL: the backend's
   queue. Non-blocking (wait list, *out as backend.h), except while the device path's variant is
   being measured: on OpenCL devices a plan holds two descriptor tables, the fused modes and
   RUNS (kernels.h: wide halos moved as whole 16-byte vectors along every contiguous run of a
   multiple of 16 bytes, each quantity's edges together), chosen per direction by measured speed (choice.h ops "halo_pack_device",
   "halo_unpack_device"; $HST_FORCE="halo_pack_device:runs" or ":fused"); a plan's launches 2
   to 4 of a variant whose wait list has completed wait for what is queued before them and for
   themselves, and feed the timings (do not queue work gated on a user event you complete after
   such a call). Both variants move the same bytes. Errors: HST_ERROR_INVALID_ARGUMENT (count,
   a NULL quantity), HST_ERROR_SHAPE (a quantity smaller than its layout, or of another
   backend), OpenCL codes. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_pack(hst_halo_plan *plan, hst_queue *q, size_t n,
                                               hst_buffer *const *quantities,
                                               size_t num_wait, const hst_event *wait, hst_event *out);
/* Unpacks the receive buffer into the quantities' halos: ONE launch. As hst_halo_pack.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_unpack(hst_halo_plan *plan, hst_queue *q, size_t n,
                                                 hst_buffer *const *quantities,
                                                 size_t num_wait, const hst_event *wait, hst_event *out);
/* 1 when the last pack and unpack have completed; hst_halo_plan_synchronize waits for them.
   Thread safety: per object (the plan). */
HST_API int hst_halo_plan_ready(const hst_halo_plan *plan);
HST_API HST_NODISCARD hst_result hst_halo_plan_synchronize(hst_halo_plan *plan);

/* The host path: the same plan on host arrays (any backend, blocking), the bytes identical to
   the device's. bytes (may be NULL: unchecked) gives each quantity's size for the size check;
   buffer holds stats.send_bytes (pack) / stats.recv_bytes (unpack).
   Thread safety: per object (the plan): plans of one backend may run the host path on several
   threads at once. */
HST_API HST_NODISCARD hst_result hst_halo_pack_host(hst_halo_plan *plan, size_t n, void *const *quantities,
                                                    const size_t *bytes, void *buffer);
HST_API HST_NODISCARD hst_result hst_halo_unpack_host(hst_halo_plan *plan, size_t n, void *const *quantities,
                                                      const size_t *bytes, const void *buffer);

/* The host path by measured speed (choice.h's choice among implementations; operations
   "halo_pack_host" and "halo_unpack_host" registered on the plan's backend at first use):
     "host"    hst_halo_pack_host / _unpack_host: memcpy'd runs on the calling thread;
     "device"  (OpenCL backends) the fused kernel on the quantities in place (hst_buffer_wrap):
               zero-copy on CPU devices and integrated GPUs, where the device's threads can beat
               one host thread on large halos; on a discrete GPU the driver copies each whole
               quantity, so it wins only where that is cheap.
   The signature is (halo bytes, mean contiguous run in bytes, bytes of all quantities): what
   each path's cost follows. The bytes are identical whichever runs (for unpack, as long as no
   two receive regions overlap). force: an implementation's name or NULL (also
   $HST_FORCE="halo_pack_host:device"); outcome (may be NULL) says which ran. The device path
   runs on the backend's queue (after what is queued there) and overwrites the plan's device
   send or receive buffer: do not count on their contents across it, nor overlap it with
   hst_halo_pack/unpack of the same plan. Quantities that overlap in memory (other than the
   same pointer twice) always run on the host: OpenCL leaves buffers over overlapping host
   memory undefined. The choice logs through the backend's logger.
   Errors: as hst_halo_pack_host, hst_choice_register and hst_choice_run (a failing "device"
   is skipped for the signature, logged, and "host" runs). Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_pack_host_choose(hst_halo_plan *plan, size_t n,
                                                           void *const *quantities, const size_t *bytes,
                                                           void *buffer, const char *force,
                                                           hst_choice_outcome *outcome);
HST_API HST_NODISCARD hst_result hst_halo_unpack_host_choose(hst_halo_plan *plan, size_t n,
                                                             void *const *quantities, const size_t *bytes,
                                                             const void *buffer, const char *force,
                                                             hst_choice_outcome *outcome);

/* Host copies of the buffers for communication: pinned mirrors, created on first call (on the
   host device: the buffers themselves). download copies a peer's send segment (or
   HST_HALO_ALL_PEERS) to the send mirror; upload copies the recv mirror's segment to the recv
   buffer. Non-blocking; no-ops on the host device. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_plan_mirrors(hst_halo_plan *plan, void **send, void **recv);
HST_API HST_NODISCARD hst_result hst_halo_download(hst_halo_plan *plan, hst_queue *q, size_t peer,
                                                   size_t num_wait, const hst_event *wait, hst_event *out);
HST_API HST_NODISCARD hst_result hst_halo_upload(hst_halo_plan *plan, hst_queue *q, size_t peer,
                                                 size_t num_wait, const hst_event *wait, hst_event *out);

/* Same-process neighbours: copies src's send segment for src_peer into dst's recv segment for
   dst_peer, directly (one device copy on a shared backend; through host memory, blocking, across
   backends). Errors: HST_ERROR_SHAPE (segment sizes differ), HST_ERROR_INVALID_ARGUMENT.
   Thread safety: per backend, on both plans' backends. */
HST_API HST_NODISCARD hst_result hst_halo_copy_peer(hst_halo_plan *src, size_t src_peer, hst_halo_plan *dst,
                                                    size_t dst_peer, hst_queue *q, size_t num_wait,
                                                    const hst_event *wait, hst_event *out);

/* ---------------------------------------------------------------------------------------------
   Partitioners (NDSL's TilePartitioner and CubedSpherePartitioner, ndsl/comm/partitioner.py).

   A tile is split into layout[0] x layout[1] ranks (NDSL's layout is (y, x): rows, then
   columns; any sizes, 1 x 4 or 2 x 3 as well as 3 x 3). Within a tile, rank r sits at
   subtile (j, i) = (r / layout[1], r % layout[1]) counted from the tile's south-west corner.
   A doubly periodic tile (hst_tile_*) wraps around both ways with no rotation; the cubed
   sphere (hst_cubed_sphere_*) has 6 tiles, rank = tile * layout[0] * layout[1] + r, and
   square layouts only (as NDSL). */
typedef struct hst_tile_partitioner {
    size_t layout[2];            /* (y, x): ranks along the tile's y axis, then its x axis */
    double edge_interior_ratio;  /* 0 means 1.0: equal subtiles where they divide; otherwise
                                    NDSL's target ratio of edge to interior subtile extents */
} hst_tile_partitioner;

typedef struct hst_halo_neighbor {
    int rank;                      /* -1: none (a corner at a cube vertex) */
    unsigned rotation;             /* pack rotation toward it */
    hst_halo_boundary boundary;    /* the boundary through which it sees this rank */
} hst_halo_neighbor;
typedef hst_halo_neighbor hst_cubed_sphere_neighbor;

/* The (j, i) subtile of rank (rank modulo the ranks per tile, so cubed-sphere ranks too).
   Errors: HST_ERROR_INVALID_ARGUMENT (NULLs, a zero layout, rank < 0, layout[0] * layout[1]
   past INT_MAX). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_tile_subtile_index(const hst_tile_partitioner *p, int rank,
                                                        size_t *j, size_t *i);

/* The neighbour across boundary b of a doubly periodic tile (NDSL's TilePartitioner.boundary):
   W of a west-most rank is the east-most of its row, N of a north-most the south-most of its
   column (itself where the layout has one row), corners as W or E, then N or S from there;
   rotation 0 always. Errors: HST_ERROR_INVALID_ARGUMENT (rank >= layout[0] * layout[1], b,
   and hst_tile_subtile_index's). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_tile_neighbor_of(const hst_tile_partitioner *p, int rank,
                                                      hst_halo_boundary b, hst_halo_neighbor *out);

/* NDSL's subtile_slice: the part [start[d], stop[d]) of the global (tile) compute domain that
   rank owns, per dimension of roles dims[0 .. ndim) and global extents global_extent (C
   order; interface dims hold n + 1 points). x dims are split over layout[1], y dims over
   layout[0], other dims are whole. With several subtiles per axis NDSL's edge:interior rule
   picks the extents (3 or more ranks: edge subtiles may differ from interior ones; fewer: n /
   count each). An interface dim's shared point goes to the higher rank only, or to both with
   overlap != 0. Errors: HST_ERROR_INVALID_ARGUMENT (NULLs, ndim 0 or > 4, an odd extent over
   an even count of ranks, no valid edge:interior split, as NDSL's ValueError), and
   hst_tile_subtile_index's. Thread-safe. */
HST_API HST_NODISCARD hst_result hst_tile_subtile_slice(const hst_tile_partitioner *p, int rank,
                                                        unsigned ndim, const hst_halo_dim *dims,
                                                        const size_t *global_extent, int overlap,
                                                        size_t *start, size_t *stop);
/* NDSL's subtile_extent: stop - start of the slice with overlap, per dimension (the extent of
   rank's compute domain, interface dims n + 1). Errors as hst_tile_subtile_slice. Thread-safe. */
HST_API HST_NODISCARD hst_result hst_tile_subtile_extent(const hst_tile_partitioner *p, int rank,
                                                         unsigned ndim, const hst_halo_dim *dims,
                                                         const size_t *global_extent, size_t *extent);

/* The cubed sphere: tiles meet with these rotations: even tile west and odd tile east: 1; even
   tile north and odd tile south: 3; others 0 (a corner crossing one tile edge takes that
   edge's). Neighbours: even t: W -> t-2 (its N), E -> t+1, N -> t+2 (its W), S -> t-1; odd t:
   W -> t-1, E -> t+2 (its S), N -> t+1, S -> t-2 (its E), tiles mod 6. Corners at cube
   vertices have none. layout: ranks along each tile axis (layout x layout per tile). Subtile
   slices and extents of cubed-sphere ranks: hst_tile_subtile_slice / _extent with layout
   (layout, layout) (NDSL's CubedSpherePartitioner.subtile_slice less its tile dimension).
   Errors: HST_ERROR_INVALID_ARGUMENT (layout 0 or above 18918: ranks past INT_MAX; rank out of
   range, boundary, out NULL). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_cubed_sphere_neighbor_of(size_t layout, int rank, hst_halo_boundary b,
                                                              hst_halo_neighbor *out);

/* A field to exchange: a scalar quantity, or a vector pair (quantity = x, quantity_y = y). */
typedef struct hst_halo_field { size_t quantity; int vector; size_t quantity_y; } hst_halo_field;

/* The specs of one rank: for every boundary with a neighbour (W, E, N, S, NW, NE, SW, SE order;
   each is one peer, numbered in that order) every field in order (NDSL: boundary-major, then
   quantity). specs needs room for 8 * num_fields; peers (8 entries, may be NULL) receives the
   neighbour of each peer index. Errors as hst_halo_region_get and hst_cubed_sphere_neighbor_of
   (hst_tile_neighbor_of). Thread-safe. */
HST_API HST_NODISCARD hst_result hst_cubed_sphere_specs(size_t layout, int rank, size_t num_fields,
                                                        const hst_halo_field *fields,
                                                        const hst_halo_layout *layouts, hst_halo_spec *specs,
                                                        size_t *num_specs, hst_halo_neighbor *peers,
                                                        hst_halo_boundary *peer_boundaries, size_t *num_peers);
HST_API HST_NODISCARD hst_result hst_tile_specs(const hst_tile_partitioner *p, int rank, size_t num_fields,
                                                const hst_halo_field *fields, const hst_halo_layout *layouts,
                                                hst_halo_spec *specs, size_t *num_specs, hst_halo_neighbor *peers,
                                                hst_halo_boundary *peer_boundaries, size_t *num_peers);

/* Vector-interface synchronisation (NDSL's synchronize_vector_interfaces): on the Arakawa C
   grid (x component on [x, y_interface], y component on [x_interface, y]; other dims, e.g. z,
   whole) the points on a subtile's edges are computed by both ranks that share them; this
   sends the south edge of x (its first y_interface row of the compute domain) to the south
   neighbour and the west edge of y (first x_interface column) to the west neighbour, each
   counter-rotated by that crossing's rotation and negated where the vector rules say (x:
   rotation 2 or 3; y: 1 or 2), and overwrites the north edge of x (last y_interface row) with
   what the north neighbour sends, the east edge of y with the east neighbour's.
   Two specs out, one per peer: peer 0 sends x's south edge and unpacks x's north edge, peer 1
   sends y's west edge and unpacks y's east edge; routes[k] tells where peer k's segment goes
   (send_rank, send_tag = this rank's boundary) and comes from (recv_rank, recv_tag = the
   sender's boundary toward us), ready for hst_halo_exchanger_create (HST_HALO_MPI). n_halo is
   not used. Errors: HST_ERROR_INVALID_ARGUMENT (NULLs, not a C-grid pair, an empty compute
   range), and the partitioners'. Thread-safe. */
typedef struct hst_halo_route {
    int send_rank, recv_rank;      /* where a peer's segment goes; where its incoming one comes from */
    int send_tag, recv_tag;        /* boundary numbers: ours toward send_rank, recv_rank's toward us */
} hst_halo_route;
HST_API HST_NODISCARD hst_result hst_cubed_sphere_vector_interface_specs(size_t layout, int rank,
                                                                         const hst_halo_layout *layout_x,
                                                                         size_t quantity_x,
                                                                         const hst_halo_layout *layout_y,
                                                                         size_t quantity_y,
                                                                         hst_halo_spec specs[2],
                                                                         hst_halo_route routes[2]);
HST_API HST_NODISCARD hst_result hst_tile_vector_interface_specs(const hst_tile_partitioner *p, int rank,
                                                                 const hst_halo_layout *layout_x,
                                                                 size_t quantity_x,
                                                                 const hst_halo_layout *layout_y,
                                                                 size_t quantity_y, hst_halo_spec specs[2],
                                                                 hst_halo_route routes[2]);

#ifdef HST_HALO_MPI
/* ---------------------------------------------------------------------------------------------
   MPI exchanger: one persistent send and receive per peer (one message per peer per direction)
   on a private duplicate of comm, so tags never collide between exchangers. A peer's segment
   goes to its route's send_rank with send_tag, and its receive segment comes from recv_rank
   with recv_tag: the same rank for a halo update (the partitioners' boundary tags:
   send_tag = our boundary, recv_tag = hst_halo_opposite's), two ranks for the vector-interface
   sync. A message to or from this process's own rank is copied directly (matched by tag).
   Creation is collective over the peers: it compares every message size with the peer's
   (HST_ERROR_SHAPE on a mismatch, logged). */
typedef hst_halo_route hst_halo_mpi_peer;

typedef struct hst_halo_exchanger hst_halo_exchanger;

/* peers: hst_halo_plan_peers(plan) entries. Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_exchanger_create(hst_halo_plan *plan, MPI_Comm comm,
                                                           const hst_halo_mpi_peer *peers,
                                                           hst_halo_exchanger **out);
/* Thread safety: per object (the exchanger). */
HST_API void hst_halo_exchanger_destroy(hst_halo_exchanger *ex);
/* Device quantities: posts the receives, packs (one launch), downloads the send buffer to the
   pinned mirror, sends. finish uploads each peer's message as it arrives and unpacks once
   (one launch) after all; *out (may be NULL) is the unpack's event. finish returns without
   waiting for its uploads: the next start (device or host path) waits for them before it posts
   the receives into the mirror they read.
   Thread safety: per backend. */
HST_API HST_NODISCARD hst_result hst_halo_exchange_start(hst_halo_exchanger *ex, hst_queue *q, size_t n,
                                                         hst_buffer *const *quantities,
                                                         size_t num_wait, const hst_event *wait);
HST_API HST_NODISCARD hst_result hst_halo_exchange_finish(hst_halo_exchanger *ex, hst_queue *q, size_t n,
                                                          hst_buffer *const *quantities, hst_event *out);
/* Host arrays (the host path), blocking in finish. bytes as hst_halo_pack_host.
   Thread safety: per object (the exchanger and its plan). */
HST_API HST_NODISCARD hst_result hst_halo_exchange_start_host(hst_halo_exchanger *ex, size_t n,
                                                              void *const *quantities, const size_t *bytes);
HST_API HST_NODISCARD hst_result hst_halo_exchange_finish_host(hst_halo_exchanger *ex, size_t n,
                                                               void *const *quantities, const size_t *bytes);
#endif

#ifdef __cplusplus
}
#endif
#endif /* HST_HALO_H */

/* =============================================================================================
   Implementation
   ============================================================================================= */
#if defined(HST_HALO_IMPLEMENTATION) && !defined(HST__HALO_IMPLEMENTED)
#define HST__HALO_IMPLEMENTED

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define HST__HPRIVATE static __attribute__((unused))
#else
#  define HST__HPRIVATE static
#endif
#if defined(HST_STATIC) && (defined(__GNUC__) || defined(__clang__))
#  define HST__HDEF HST_API __attribute__((unused))
#else
#  define HST__HDEF HST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>checks ----------------------------------------------------------------------------------- */
#define HST__HALO_SMALL ((uint64_t)INT32_MAX)   /* bytes below which the kernels' math is 32-bit */
#define HST__HALO_MIN_GROUPS 64                 /* DIRECT and TILED slots keep this many
                                                   work-groups */
#define HST__HALO_RUN_VECTORS 1024              /* 16-byte vectors per RUNS work-group (16 KB):
                                                   one pass of HST_K_HALO_MAX_LOCAL work-items,
                                                   4 vectors each */
#define HST__HALO_TIMED 4                       /* a plan's launches 2 .. 4 of a device variant
                                                   are timed for the choice */
typedef char hst__check_halo_max[(HST_HALO_MAX_QUANTITIES == HST_K_HALO_MAX_QUANTITIES &&
                                  HST_HALO_MAX_DIMS == 4) ? 1 : -1];

/* >>types ------------------------------------------------------------------------------------ */
struct hst_halo_plan {
    hst_backend *be;
    size_t nq, npeers;
    size_t *qbytes;                 /* bytes each quantity needs */
    size_t *peer;                   /* per peer: send offset, send bytes, recv offset, recv bytes */
    size_t send_total, recv_total;
    size_t npack, nunpack;          /* slots */
    uint64_t pack_elems, unpack_elems;
    uint64_t groups[2][2];          /* work-groups of the fused kernels: [variant][unpack] */
    int nvariants;                  /* 2: the table holds a RUNS variant (kernels.h) too */
    size_t wg;                      /* their local size */
    uint64_t *table;                /* [pack bands][pack desc][unpack bands][unpack desc]; bands:
                                       prefix and band words (kernels.h), 3 n + 1 words for n
                                       slots at most */
    size_t nbands[2][2];            /* [variant][unpack] */
    size_t pack_prefix_at, pack_desc_at, unpack_prefix_at, unpack_desc_at, table_words;
    size_t variant_words;           /* words of one variant; variant v starts at v * this */
    unsigned kernel[2];             /* the declared kernels (pack, unpack: kernels_halo.h) */
    size_t num_args;                /* their arguments: 6, then NQ quantities */
    hst_choice_op *dev_op[2];       /* the device path's variant by measured speed: first use */
    unsigned launches[2][2];        /* per [variant][unpack]: the first is not timed */
    hst_buffer *send, *recv, *table_buf;
    hst_buffer *send_mirror, *recv_mirror;
    hst_event last_pack, last_unpack;
    hst_halo_stats stats;
    hst_choice_op *host_op[2];      /* the chosen host path's ops (pack, unpack): first use */
    int64_t host_sig[2][3];         /* and their signatures, fixed by the plan */
};

/* >>logging ----------------------------------------------------------------------------------- */
/* The log item that goes with a result of the layout/region checks. */
static hst_log_item hst__halo_item(hst_result r)
{
    switch (r) {
    case HST_ERROR_DTYPE: return HST_LOGITEM_DTYPE;
    case HST_ERROR_OVERFLOW: return HST_LOGITEM_SIZE_OVERFLOW;
    case HST_ERROR_SHAPE: return HST_LOGITEM_SHAPE_MISMATCH;
    case HST_ERROR_OUT_OF_HOST_MEMORY: return HST_LOGITEM_OUT_OF_HOST_MEMORY;
    default: return r > HST_ERROR_BASE && r < 0 ? HST_LOGITEM_CL_ERROR : HST_LOGITEM_BAD_ARGUMENT;
    }
}

/* >>helpers ---------------------------------------------------------------------------------- */
static int hst__halo_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

static int hst__halo_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

/* a rounded up to a multiple of m (m > 0); 0 on overflow. */
static int hst__halo_align(size_t a, size_t m, size_t *out)
{
    size_t r = a % m;
    return r == 0 ? (*out = a, 1) : hst__halo_add(a, m - r, out);
}

static int hst__halo_es_valid(size_t es)
{
    return es == 1 || es == 2 || es == 4 || es == 8 || es == 16;
}

/* 'x', 'y', 'z' or 0 for a role. */
static int hst__halo_axis(hst_halo_dim d)
{
    switch (d) {
    case HST_HALO_DIM_X: case HST_HALO_DIM_X_INTERFACE: return 'x';
    case HST_HALO_DIM_Y: case HST_HALO_DIM_Y_INTERFACE: return 'y';
    case HST_HALO_DIM_Z: case HST_HALO_DIM_Z_INTERFACE: return 'z';
    default: return 0;
    }
}

static int hst__halo_find_axis(const hst_halo_layout *l, int axis)
{
    unsigned d;
    for (d = 0; d < l->ndim; ++d)
        if (hst__halo_axis(l->dims[d]) == axis) return (int)d;
    return -1;
}

/* Validates a layout; fills its element strides and the bytes it needs. why (may be NULL)
   receives the reason. */
static hst_result hst__halo_layout_check(const hst_halo_layout *l, size_t strides[4],
                                         size_t *bytes, char *why, size_t why_bytes)
{
    unsigned d, e;
    size_t elems = 1, all_zero = 1;
#define HST__WHY(...) do { if (why) snprintf(why, why_bytes, __VA_ARGS__); } while (0)
    if (!l) { HST__WHY("layout is NULL"); return HST_ERROR_INVALID_ARGUMENT; }
    if (l->ndim == 0 || l->ndim > HST_HALO_MAX_DIMS) {
        HST__WHY("ndim %u: 1 to %d dimensions", l->ndim, HST_HALO_MAX_DIMS);
        return HST_ERROR_INVALID_ARGUMENT;
    }
    if (!hst__halo_es_valid(l->elem_bytes)) {
        HST__WHY("element size %zu bytes: 1, 2, 4, 8 or 16", l->elem_bytes);
        return HST_ERROR_DTYPE;
    }
    if (l->number != HST_HALO_FLOAT && l->number != HST_HALO_INT) {
        HST__WHY("number kind %d", (int)l->number);
        return HST_ERROR_INVALID_ARGUMENT;
    }
    for (d = 0; d < l->ndim; ++d) {
        size_t end;
        if (l->shape[d] == 0) { HST__WHY("shape[%u] is 0", d); return HST_ERROR_INVALID_ARGUMENT; }
        if (l->strides[d] != 0) all_zero = 0;
        if ((int)l->dims[d] < 0 || (int)l->dims[d] > (int)HST_HALO_DIM_Z_INTERFACE) {
            HST__WHY("dims[%u] is not a role", d);
            return HST_ERROR_INVALID_ARGUMENT;
        }
        if (!hst__halo_add(l->origin[d], l->extent[d], &end) || end > l->shape[d]) {
            HST__WHY("dimension %u: origin %zu + extent %zu exceeds shape %zu", d, l->origin[d],
                     l->extent[d], l->shape[d]);
            return HST_ERROR_INVALID_ARGUMENT;
        }
        for (e = 0; e < d; ++e)
            if (hst__halo_axis(l->dims[d]) && hst__halo_axis(l->dims[d]) == hst__halo_axis(l->dims[e])) {
                HST__WHY("dimensions %u and %u are both %c dimensions", e, d,
                         hst__halo_axis(l->dims[d]));
                return HST_ERROR_INVALID_ARGUMENT;
            }
    }
    if (all_zero) {
        size_t s = 1;
        for (d = l->ndim; d-- > 0;) {
            strides[d] = s;
            if (d > 0 && !hst__halo_mul(s, l->shape[d], &s)) {
                HST__WHY("the C-order strides of shape overflow size_t");
                return HST_ERROR_OVERFLOW;
            }
        }
    } else {
        for (d = 0; d < l->ndim; ++d) {
            if (l->strides[d] == 0) {
                HST__WHY("strides[%u] is 0 while others are set", d);
                return HST_ERROR_INVALID_ARGUMENT;
            }
            strides[d] = l->strides[d];
        }
    }
    for (d = l->ndim; d < HST_HALO_MAX_DIMS; ++d) strides[d] = 0;
    for (d = 0; d < l->ndim; ++d) {
        size_t t;
        if (!hst__halo_mul(l->shape[d] - 1, strides[d], &t) || !hst__halo_add(elems, t, &elems)) {
            HST__WHY("the layout's size overflows size_t");
            return HST_ERROR_OVERFLOW;
        }
    }
    /* descriptors hold signed 64-bit element offsets */
    if ((uint64_t)elems > (uint64_t)INT64_MAX || !hst__halo_mul(elems, l->elem_bytes, bytes)) {
        HST__WHY("the layout's size in bytes overflows size_t");
        return HST_ERROR_OVERFLOW;
    }
#undef HST__WHY
    return HST_SUCCESS;
}

/* A region inside the allocation, non-empty in every dimension. */
static int hst__halo_region_ok(const hst_halo_layout *l, const hst_halo_region *r)
{
    unsigned d;
    for (d = 0; d < l->ndim; ++d)
        if (r->start[d] >= r->stop[d] || r->stop[d] > l->shape[d]) return 0;
    return 1;
}

static size_t hst__halo_region_count(const hst_halo_layout *l, const hst_halo_region *r)
{
    unsigned d;
    size_t n = 1;
    for (d = 0; d < l->ndim; ++d) n *= r->stop[d] - r->start[d];   /* inside the allocation */
    return n;
}

/* >>descriptors ------------------------------------------------------------------------------ */
/* One slot's descriptor: region reg of a quantity (layout l, strides st) rotated by r using the
   horizontal positions px, py (-1: absent), as REFERENCE.md's index maps; *count its elements. */
static void hst__halo_desc(const hst_halo_layout *l, const size_t st[4], const hst_halo_region *reg,
                           unsigned r, int px, int py, size_t q, unsigned op, size_t buf_offset,
                           uint64_t *d, uint64_t *count)
{
    unsigned k, nd = l->ndim, off = HST_HALO_MAX_DIMS - nd;
    size_t ext[4], base = 0, nx = 0, ny = 0;
    int64_t step[4];
    for (k = 0; k < nd; ++k) {
        ext[k] = reg->stop[k] - reg->start[k];
        step[k] = (int64_t)st[k];
        base += reg->start[k] * st[k];   /* inside the allocation, checked */
    }
    if (px >= 0) nx = ext[px];
    if (py >= 0) ny = ext[py];
    r &= 3u;
    if (px >= 0 && py >= 0) {
        if (r == 1) {
            base += (ny - 1) * st[py];
            step[px] = -(int64_t)st[py];
            step[py] = (int64_t)st[px];
            ext[px] = ny; ext[py] = nx;
        } else if (r == 2) {
            base += (nx - 1) * st[px] + (ny - 1) * st[py];
            step[px] = -(int64_t)st[px];
            step[py] = -(int64_t)st[py];
        } else if (r == 3) {
            base += (nx - 1) * st[px];
            step[px] = (int64_t)st[py];
            step[py] = -(int64_t)st[px];
            ext[px] = ny; ext[py] = nx;
        }
    } else if (px >= 0 && (r == 2 || r == 3)) {
        base += (nx - 1) * st[px];
        step[px] = -(int64_t)st[px];
    } else if (py >= 0 && (r == 1 || r == 2)) {
        base += (ny - 1) * st[py];
        step[py] = -(int64_t)st[py];
    }
    memset(d, 0, HST_K_HALO_DESC_WORDS * sizeof *d);
    *count = 1;
    for (k = 0; k < HST_HALO_MAX_DIMS; ++k) {
        d[HST_K_HALO_D_EXT + k] = 1;
        d[HST_K_HALO_D_STEP + k] = 0;
    }
    for (k = 0; k < nd; ++k) {
        d[HST_K_HALO_D_EXT + off + k] = (uint64_t)ext[k];
        d[HST_K_HALO_D_STEP + off + k] = (uint64_t)step[k];
        *count *= (uint64_t)ext[k];
    }
    d[HST_K_HALO_D_BUF] = (uint64_t)buf_offset;
    d[HST_K_HALO_D_BASE] = (uint64_t)base;
    d[HST_K_HALO_D_QUANTITY] = (uint64_t)q;
    d[HST_K_HALO_D_ELEM] = (uint64_t)l->elem_bytes;
    d[HST_K_HALO_D_OP] = op;
}

/* The magic word that divides 32-bit numbers by m (1 <= m < 2^32), as kernels.h describes. */
static uint64_t hst__halo_magic(uint64_t m)
{
    unsigned l = 0;
    uint64_t mg;
    while (l < 32 && ((uint64_t)1 << l) < m) ++l;
    mg = ((((uint64_t)1 << l) - m) << 32) / m + 1;   /* (2^l - m) < 2^31: no overflow */
    return (mg & 0xffffffffu) | ((uint64_t)(l ? 1u : 0u) << 32) | ((uint64_t)(l ? l - 1u : 0u) << 40);
}

/* log2 of the smallest power of two >= n, at most lmax. */
static unsigned hst__halo_log2_up(uint64_t n, unsigned lmax)
{
    unsigned l = 0;
    while (l < lmax && ((uint64_t)1 << l) < n) ++l;
    return l;
}

/* log2 of the chunks or tiles one work-group moves, for a slot of `parts` of them: up to 8 in
   large slots (a work-group's start-up, finding its slot and descriptor, is a chain of dependent
   loads that one chunk of work does not hide), keeping HST__HALO_MIN_GROUPS work-groups. */
static unsigned hst__halo_log_groups(uint64_t parts)
{
    unsigned lg = 0;
    while (lg < 3 && (parts >> (lg + 1)) >= HST__HALO_MIN_GROUPS) ++lg;
    return lg;
}

/* Whether every 16-byte vector of a RUNS slot (descriptor d) is 16-byte aligned on both sides
   where the buffers are (the kernel checks their addresses): the buffer offset, the first
   element's and every step's bytes are multiples of 16. */
static int hst__halo_runs_aligned(const uint64_t *d)
{
    uint64_t es = d[HST_K_HALO_D_ELEM];
    int k;
    if (d[HST_K_HALO_D_BUF] % 16 != 0 || d[HST_K_HALO_D_BASE] * es % 16 != 0) return 0;
    /* a negative step's two's complement has the same remainder modulo 16 */
    for (k = 0; k < 3; ++k)
        if (d[HST_K_HALO_D_EXT + k] > 1 && d[HST_K_HALO_D_STEP + k] * es % 16 != 0) return 0;
    return 1;
}

/* RUNS mode (kernels.h) for a slot whose runs (dimension 3, step 1) are whole 16-byte vectors
   of 4- or 8-byte elements (the 32-byte west and east runs of a halo of 8 floats too, where
   two work-items move a run and a wavefront 16 of them): G runs per work-group, at least
   HST__HALO_RUN_VECTORS vectors (a small slot gets fewer work-groups, each with every
   work-item busy). 0 when the slot does not qualify. */
static uint64_t hst__halo_desc_runs(uint64_t *d)
{
    uint64_t es = d[HST_K_HALO_D_ELEM], n3 = d[HST_K_HALO_D_EXT + 3], vpr, runs, g;
    runs = d[HST_K_HALO_D_EXT] * d[HST_K_HALO_D_EXT + 1] * d[HST_K_HALO_D_EXT + 2];
    if ((es != 4 && es != 8) || (int64_t)d[HST_K_HALO_D_STEP + 3] != 1 || (n3 * es) % 16 != 0 ||
        runs >= ((uint64_t)1 << 32) || n3 * es / 16 >= ((uint64_t)1 << 31))
        return 0;
    vpr = n3 * es / 16;
    g = (HST__HALO_RUN_VECTORS + vpr - 1) / vpr;
    if (g > runs) g = runs;   /* G * vpr < 2^31 + HST__HALO_RUN_VECTORS */
    d[HST_K_HALO_D_MODE] = HST_K_HALO_MODE_RUNS;
    d[HST_K_HALO_D_RUN_VPR] = vpr;
    d[HST_K_HALO_D_RUN_G] = g;
    d[HST_K_HALO_D_RUN_ALIGNED] = (uint64_t)hst__halo_runs_aligned(d);
    d[HST_K_HALO_D_MAGIC] = hst__halo_magic(vpr);
    d[HST_K_HALO_D_MAGIC + 1] = hst__halo_magic(d[HST_K_HALO_D_EXT + 2]);
    d[HST_K_HALO_D_MAGIC + 2] = hst__halo_magic(d[HST_K_HALO_D_EXT + 1]);
    d[HST_K_HALO_D_GROUPS] = (runs + g - 1) / g;
    return d[HST_K_HALO_D_GROUPS];
}

/* How the kernels move a slot (kernels.h's modes): fills the mode words of descriptor d (count
   elements) and returns its work-group count. runs: the plan's RUNS variant (slots that
   qualify move by whole vectors). */
static uint64_t hst__halo_desc_mode(uint64_t *d, uint64_t count, int runs)
{
    uint64_t es = d[HST_K_HALO_D_ELEM], n[4], span = 0, chunks, tiles;
    int64_t s[4];
    int k, b = -1, o1, o2;
    unsigned lb0, la, lb;
    for (k = 0; k < 4; ++k) {
        n[k] = d[HST_K_HALO_D_EXT + k];
        s[k] = (int64_t)d[HST_K_HALO_D_STEP + k];
        /* (n - 1) * |s| <= the quantity's elements (< 2^63): the sum cannot overflow */
        span += (n[k] - 1) * (uint64_t)(s[k] < 0 ? -s[k] : s[k]);
    }
    if (runs && (chunks = hst__halo_desc_runs(d)) != 0) return chunks;
    chunks = count / HST_K_HALO_CHUNK + (count % HST_K_HALO_CHUNK != 0);
    d[HST_K_HALO_D_GROUPS] = chunks;
    if (count > HST__HALO_SMALL / es || span > HST__HALO_SMALL / es) {
        d[HST_K_HALO_D_MODE] = HST_K_HALO_MODE_WIDE;
        return chunks;
    }
    for (k = 0; k < 3; ++k)
        if (n[k] > 1 && (s[k] == 1 || s[k] == -1)) b = k;
    if (es > 8 || n[3] < 2 || s[3] == 1 || s[3] == -1 || b < 0) {
        unsigned lg = hst__halo_log_groups(chunks);
        d[HST_K_HALO_D_MODE] = HST_K_HALO_MODE_DIRECT;
        d[HST_K_HALO_D_LOG_G] = lg;
        d[HST_K_HALO_D_GROUPS] = (chunks + ((uint64_t)1 << lg) - 1) >> lg;
        d[HST_K_HALO_D_MAGIC] = hst__halo_magic(n[3]);
        d[HST_K_HALO_D_MAGIC + 1] = hst__halo_magic(n[2]);
        d[HST_K_HALO_D_MAGIC + 2] = hst__halo_magic(n[1]);
        return d[HST_K_HALO_D_GROUPS];
    }
    /* TILED: TB up to 32 first, TA fills the chunk, then TB grows into what TA leaves */
    lb0 = hst__halo_log2_up(n[b], 5);
    la = hst__halo_log2_up(n[3], 10 - lb0);
    lb = hst__halo_log2_up(n[b], 10 - la);
    o1 = b == 0 ? 1 : 0;
    o2 = b == 2 ? 1 : 2;
    d[HST_K_HALO_D_MODE] = HST_K_HALO_MODE_TILED;
    d[HST_K_HALO_D_TILE_B] = (uint64_t)b;
    d[HST_K_HALO_D_LOG_TB] = lb;
    d[HST_K_HALO_D_LOG_TA] = la;
    d[HST_K_HALO_D_NT_B] = (n[b] + ((uint64_t)1 << lb) - 1) >> lb;
    d[HST_K_HALO_D_NT_A] = (n[3] + ((uint64_t)1 << la) - 1) >> la;
    d[HST_K_HALO_D_MAGIC] = hst__halo_magic(d[HST_K_HALO_D_NT_A]);
    d[HST_K_HALO_D_MAGIC + 1] = hst__halo_magic(d[HST_K_HALO_D_NT_B]);
    d[HST_K_HALO_D_MAGIC + 2] = hst__halo_magic(n[o2]);
    d[HST_K_HALO_D_N_B] = n[b];
    d[HST_K_HALO_D_N_O2] = n[o2];
    d[HST_K_HALO_D_QS_B] = (uint64_t)s[b];
    d[HST_K_HALO_D_QS_O] = (uint64_t)s[o1];
    d[HST_K_HALO_D_QS_O + 1] = (uint64_t)s[o2];
    /* buffer (C-order) steps */
    {
        uint64_t bs[4];
        bs[3] = 1;
        for (k = 2; k >= 0; --k) bs[k] = bs[k + 1] * n[k + 1];
        d[HST_K_HALO_D_BS_B] = bs[b];
        d[HST_K_HALO_D_BS_O] = bs[o1];
        d[HST_K_HALO_D_BS_O + 1] = bs[o2];
    }
    tiles = n[o1] * n[o2] * d[HST_K_HALO_D_NT_B] * d[HST_K_HALO_D_NT_A];
    d[HST_K_HALO_D_LOG_G] = hst__halo_log_groups(tiles);
    d[HST_K_HALO_D_GROUPS] = (tiles + ((uint64_t)1 << d[HST_K_HALO_D_LOG_G]) - 1) >>
                             d[HST_K_HALO_D_LOG_G];
    return d[HST_K_HALO_D_GROUPS];
}

/* >>plan ------------------------------------------------------------------------------------- */
/* Zeroed host memory through the backend's allocator (desc.allocator), overflow-checked. */
static void *hst__halo_calloc(const hst_backend *be, size_t n, size_t size)
{
    size_t bytes = n * size;
    void *m;
    if (size && bytes / size != n) return NULL;
    if (!bytes) bytes = 1;
    m = hst_backend_alloc(be, bytes);
    if (m) memset(m, 0, bytes);
    return m;
}

/* Checks one spec against the plan's (valid) layouts. */
static hst_result hst__halo_check_spec(const hst_backend *be, const hst_halo_plan_desc *desc,
                                       size_t i)
{
    const hst_halo_spec *s = &desc->specs[i];
    const hst_halo_layout *lx, *ly;
    size_t pack_n, unpack_n;
    unsigned d;
    if (s->quantity >= desc->num_quantities)
        return hst__bad_arg(be, "hst_halo_plan_create",
                              "spec %zu: quantity %zu of %zu", i,
                              s->quantity, desc->num_quantities);
    if (s->peer >= (desc->num_peers ? desc->num_peers : 1))
        return hst__bad_arg(be, "hst_halo_plan_create",
                              "spec %zu: peer %zu of %zu", i, s->peer,
                              desc->num_peers ? desc->num_peers : 1);
    lx = &desc->layouts[s->quantity];
    if (!hst__halo_region_ok(lx, &s->pack) || !hst__halo_region_ok(lx, &s->unpack))
        return hst__range_arg(be, "hst_halo_plan_create",
                              "spec %zu: a region of quantity %zu is empty "
                              "or out of range (outside shape)", i, s->quantity);
    pack_n = hst__halo_region_count(lx, &s->pack);
    unpack_n = hst__halo_region_count(lx, &s->unpack);
    if ((s->vector || s->negate) &&
        (lx->elem_bytes == 16 || (lx->number == HST_HALO_FLOAT && lx->elem_bytes == 1)))
        return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "hst_halo_plan_create",
                              "spec %zu: no sign rule for %zu-byte %s "
                              "elements (%s)", i, lx->elem_bytes,
                              lx->number == HST_HALO_FLOAT ? "float" : "integer",
                              s->vector ? "a vector" : "negate");
    if (s->vector) {
        if (s->quantity_y >= desc->num_quantities || s->quantity_y == s->quantity)
            return hst__bad_arg(be, "hst_halo_plan_create",
                                  "spec %zu: y quantity %zu (of %zu, "
                                  "x is %zu)", i, s->quantity_y, desc->num_quantities, s->quantity);
        ly = &desc->layouts[s->quantity_y];
        if (lx->elem_bytes != ly->elem_bytes || lx->number != ly->number)
            return hst_backend_fail(be, HST_ERROR_DTYPE, HST_LOGITEM_DTYPE, "hst_halo_plan_create",
                                  "spec %zu: vector components differ in "
                                  "element type", i);
        if (lx->ndim != ly->ndim)
            return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                                    "hst_halo_plan_create",
                                    "spec %zu: vector components have %u and "
                                    "%u dimensions", i, lx->ndim, ly->ndim);
        for (d = 0; d < lx->ndim; ++d)
            if (hst__halo_axis(lx->dims[d]) != hst__halo_axis(ly->dims[d]))
                return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                                        "hst_halo_plan_create",
                                        "spec %zu: vector components differ "
                                        "in the axis of dimension %u", i, d);
        if (!hst__halo_region_ok(ly, &s->pack_y) || !hst__halo_region_ok(ly, &s->unpack_y))
            return hst__range_arg(be, "hst_halo_plan_create",
                                  "spec %zu: a region of y quantity %zu is "
                                  "empty or out of range (outside shape)", i, s->quantity_y);
        pack_n += hst__halo_region_count(ly, &s->pack_y);     /* each inside an allocation */
        unpack_n += hst__halo_region_count(ly, &s->unpack_y);
    }
    if (pack_n != unpack_n)
        return hst_backend_fail(be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                                "hst_halo_plan_create",
                                "spec %zu: packs %zu elements but unpacks "
                                "%zu (sizes must agree after rotation)", i, pack_n, unpack_n);
    return HST_SUCCESS;
}

/* Lays out the slots of every peer (pack: unpack = 0, unpack: 1): writes descriptors (if d is
   not NULL) and returns the slot count, the buffer size and the per-peer ranges. */
static hst_result hst__halo_layout_slots(hst_halo_plan *p,
                                         const hst_halo_plan_desc *desc, const size_t (*st)[4],
                                         int unpack, int runs, uint64_t *prefix, uint64_t *d,
                                         size_t *nslots, size_t *total_bytes)
{
    size_t peer, i, off = 0, n = 0;
    uint64_t elems = 0, groups = 0;
    for (peer = 0; peer < p->npeers; ++peer) {
        size_t start;
        if (!hst__halo_align(off, HST_HALO_PEER_ALIGN, &off)) goto overflow;
        start = off;
        for (i = 0; i < desc->num_specs; ++i) {
            const hst_halo_spec *s = &desc->specs[i];
            unsigned r = unpack ? 0u : (s->rotation & 3u), c;
            const hst_halo_layout *lx = &desc->layouts[s->quantity];
            int px = hst__halo_find_axis(lx, 'x'), py = hst__halo_find_axis(lx, 'y');
            if (s->peer != peer) continue;
            for (c = 0; c < (s->vector ? 2u : 1u); ++c) {
                /* pack slots: r odd puts the y component first; signs per REFERENCE.md */
                unsigned from_y = c, op = HST_K_HALO_OP_COPY;
                size_t q, bytes;
                const hst_halo_region *reg;
                uint64_t cnt, tmp[HST_K_HALO_DESC_WORDS], *dd;
                if (!unpack) {
                    int neg = s->negate;
                    if (s->vector) {
                        from_y = (r & 1u) ? 1u - c : c;
                        neg = c == 0 ? (r == 1 || r == 2) : (r == 2 || r == 3);
                    }
                    if (neg) op = lx->number == HST_HALO_FLOAT ? HST_K_HALO_OP_FLIP_SIGN
                                                               : HST_K_HALO_OP_NEGATE_INT;
                }
                q = from_y ? s->quantity_y : s->quantity;
                reg = unpack ? (from_y ? &s->unpack_y : &s->unpack)
                             : (from_y ? &s->pack_y : &s->pack);
                if (!hst__halo_align(off, desc->layouts[q].elem_bytes, &off)) goto overflow;
                dd = d ? d + n * HST_K_HALO_DESC_WORDS : tmp;
                hst__halo_desc(&desc->layouts[q], st[q], reg, r, px, py, q, op, off, dd, &cnt);
                if (prefix) prefix[n] = groups;
                elems += cnt;
                groups += hst__halo_desc_mode(dd, cnt, runs);   /* <= elems: no overflow */
                if (!hst__halo_mul((size_t)cnt, desc->layouts[q].elem_bytes, &bytes) ||
                    !hst__halo_add(off, bytes, &off))
                    goto overflow;
                ++n;
            }
        }
        if (unpack) { p->peer[4 * peer + 2] = start; p->peer[4 * peer + 3] = off - start; }
        else { p->peer[4 * peer] = start; p->peer[4 * peer + 1] = off - start; }
    }
    if (prefix) prefix[n] = groups;
    if (unpack) p->unpack_elems = elems; else p->pack_elems = elems;
    p->groups[runs][unpack] = groups;
    *nslots = n;
    *total_bytes = off;
    return HST_SUCCESS;
overflow:
    return hst_backend_fail(p->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW,
                            "hst_halo_plan_create",
                            "the %s buffer's size overflows size_t",
                            unpack ? "receive" : "send");
}

/* A slot's sort key for the interleaved bands: quantity, work-group count, table position. */
typedef struct hst__halo_slot_key {
    uint64_t q, groups;
    size_t i;
} hst__halo_slot_key;

static int hst__halo_key_cmp(const void *a, const void *b)
{
    const hst__halo_slot_key *x = (const hst__halo_slot_key *)a;
    const hst__halo_slot_key *y = (const hst__halo_slot_key *)b;
    if (x->q != y->q) return x->q < y->q ? -1 : 1;
    if (x->groups != y->groups) return x->groups < y->groups ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts the n descriptors d by quantity and work-group count (then table position). 0 when the
   host allocation fails (d unchanged). */
static int hst__halo_sort_slots(const hst_backend *be, uint64_t *d, size_t n)
{
    const size_t w = HST_K_HALO_DESC_WORDS;
    hst__halo_slot_key *key = (hst__halo_slot_key *)hst__halo_calloc(be, n, sizeof *key);
    uint64_t *copy = (uint64_t *)hst__halo_calloc(be, n, w * sizeof *copy);
    size_t i;
    int ok = key && copy;
    if (ok) {
        for (i = 0; i < n; ++i) {
            key[i].q = d[i * w + HST_K_HALO_D_QUANTITY];
            key[i].groups = d[i * w + HST_K_HALO_D_GROUPS];
            key[i].i = i;
        }
        qsort(key, n, sizeof *key, hst__halo_key_cmp);
        memcpy(copy, d, n * w * sizeof *d);
        for (i = 0; i < n; ++i) memcpy(d + i * w, copy + key[i].i * w, w * sizeof *d);
    }
    hst_backend_free(be, key);
    hst_backend_free(be, copy);
    return ok;
}

/* The kernels' bands (kernels.h) over the n slots of descriptors d (n >= 1): writes prefix[0 ..
   nbands] (running work-group counts) and the bands' (first slot, slot count) words after them,
   and returns nbands. interleave 0: one band per slot, in table order. 1 (the RUNS variant):
   the slots sorted by quantity and work-group count, and each run of sorted slots of one
   quantity and one count a band, whose work-groups take its slots in turn: the edges of one
   quantity (west and east, north and south) then move at the same time, z-plane by z-plane,
   rather than one edge of every quantity after another. A failed sort keeps one band per slot.
   hst__halo_band_start: whether slot i starts a band. */
static int hst__halo_band_start(const uint64_t *d, size_t i, int interleave)
{
    const uint64_t *a = d + i * HST_K_HALO_DESC_WORDS, *b;
    if (!interleave || i == 0) return 1;
    b = a - HST_K_HALO_DESC_WORDS;
    return a[HST_K_HALO_D_QUANTITY] != b[HST_K_HALO_D_QUANTITY] ||
           a[HST_K_HALO_D_GROUPS] != b[HST_K_HALO_D_GROUPS];
}

static size_t hst__halo_bands(const hst_backend *be, uint64_t *prefix, uint64_t *d, size_t n,
                              int interleave)
{
    uint64_t groups = 0, *band;
    size_t i, b = 0, nb = 0;
    if (interleave && !hst__halo_sort_slots(be, d, n)) interleave = 0;
    for (i = 0; i < n; ++i) nb += (size_t)hst__halo_band_start(d, i, interleave);
    band = prefix + nb + 1;
    for (i = 0; i < n; ++i) {
        if (hst__halo_band_start(d, i, interleave)) {
            b = i == 0 ? 0 : b + 1;
            prefix[b] = groups;
            band[2 * b] = i;
            band[2 * b + 1] = 0;
        }
        band[2 * b + 1]++;
        groups += d[i * HST_K_HALO_DESC_WORDS + HST_K_HALO_D_GROUPS];
    }
    prefix[nb] = groups;
    return nb;
}

/* The fused kernels' rows and argument count (their declaration), their local size (a power of
   two up to HST_K_HALO_MAX_LOCAL that the device allows) and the table in the backend's
   memory, which every launch reads. */
static hst_result hst__halo_device_setup(hst_halo_plan *p)
{
    const hst_kernel_family *fam = hst_kernels_halo_family();
    hst_karg_kind kinds[6 + HST_HALO_MAX_QUANTITIES];
    size_t maxwg = hst_backend_device(p->be)->max_work_group_size;
    int v, n;
    hst_result r;
    p->kernel[0] = hst_kernels_halo_kernel(p->nq, 0);
    p->kernel[1] = hst_kernels_halo_kernel(p->nq, 1);
    n = hst_kernel_signature(&fam->kernels[p->kernel[0]], kinds, 6 + HST_HALO_MAX_QUANTITIES);
    if (n < 6)
        return HST_ERROR_INVALID_ARGUMENT;   /* not reached: the family's own declaration */
    p->num_args = (size_t)n;
    p->wg = HST_K_HALO_MAX_LOCAL;
    while (p->wg > 1 && p->wg > maxwg) p->wg /= 2;
    for (v = 0; v < p->nvariants; ++v)
        if (p->groups[v][0] > (uint64_t)(SIZE_MAX / p->wg) ||
            p->groups[v][1] > (uint64_t)(SIZE_MAX / p->wg))
            return HST_ERROR_OVERFLOW;
    r = hst_pool_alloc(hst_backend_pool(p->be), p->table_words * sizeof(uint64_t), &p->table_buf);
    if (r != HST_SUCCESS) return r;
    return hst_write(hst_backend_queue(p->be), p->table_buf, 0, p->table,
                     p->table_words * sizeof(uint64_t), 1, 0, NULL, NULL);
}

HST__HDEF void hst_halo_plan_destroy(hst_halo_plan *p)
{
    hst_result synced;
    if (!p) return;
    /* a failed wait means the commands ended in error: they use the buffers no more, which
       are released either way, and a void destroy has no one to tell */
    synced = hst_halo_plan_synchronize(p);
    (void)synced;
    hst_event_release(p->last_pack);
    hst_event_release(p->last_unpack);
    hst_buffer_destroy(p->table_buf);
    hst_buffer_destroy(p->send);
    hst_buffer_destroy(p->recv);
    hst_buffer_destroy(p->send_mirror);
    hst_buffer_destroy(p->recv_mirror);
    hst_backend_free(p->be, p->table);
    hst_backend_free(p->be, p->peer);
    hst_backend_free(p->be, p->qbytes);
    hst_backend_free(p->be, p);
}

HST__HDEF hst_result hst_halo_plan_create(hst_backend *be, const hst_halo_plan_desc *desc,
                                          hst_halo_plan **out)
{
    static const char F[] = "hst_halo_plan_create";
    hst_halo_plan *p = NULL;
    size_t (*st)[4] = NULL;
    size_t i, nq, words, w;
    hst_result r;
    char why[256];
    if (out) *out = NULL;
    if (!be || !desc || !out)
        return hst__null_arg(be, F,
                              "%s is NULL", !be ? "be" : !desc ? "desc" : "out");
    nq = desc->num_quantities;
    if (nq == 0 || nq > HST_HALO_MAX_QUANTITIES || !desc->layouts)
        return hst__null_arg(be, F,
                              "num_quantities %zu (1 to %d) with layouts %s", nq,
                              HST_HALO_MAX_QUANTITIES, desc->layouts ? "set" : "NULL");
    if (desc->num_specs == 0 || !desc->specs)
        return hst__bad_arg(be, F,
                              "no specs");
    p = (hst_halo_plan *)hst__halo_calloc(be, 1, sizeof *p);
    st = (size_t (*)[4])hst__halo_calloc(be, nq, sizeof *st);
    if (p) {
        p->be = be;   /* first: every later free goes through its allocator */
        p->qbytes = (size_t *)hst__halo_calloc(be, nq, sizeof(size_t));
        p->npeers = desc->num_peers ? desc->num_peers : 1;
        p->peer = (size_t *)(p->npeers <= SIZE_MAX / 4 ? hst__halo_calloc(be, 4 * p->npeers,
                                                                          sizeof(size_t)) : NULL);
    }
    if (!p || !st || !p->qbytes || !p->peer) {
        r = hst_backend_fail(be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, F,
                           "host allocation failed");
        goto fail;
    }
    p->nq = nq;
    for (i = 0; i < nq; ++i) {
        r = hst__halo_layout_check(&desc->layouts[i], st[i], &p->qbytes[i], why, sizeof why);
        if (r != HST_SUCCESS) {
            r = hst_backend_fail(be, r, hst__halo_item(r), F, "quantity %zu: %s", i, why);
            goto fail;
        }
    }
    for (i = 0; i < desc->num_specs; ++i)
        if ((r = hst__halo_check_spec(be, desc, i)) != HST_SUCCESS)
            goto fail;
    /* sizes first (no descriptors), then the table */
    if ((r = hst__halo_layout_slots(p, desc, (const size_t (*)[4])st, 0, 0, NULL, NULL,
                                    &p->npack, &p->send_total)) != HST_SUCCESS ||
        (r = hst__halo_layout_slots(p, desc, (const size_t (*)[4])st, 1, 0, NULL, NULL,
                                    &p->nunpack, &p->recv_total)) != HST_SUCCESS)
        goto fail;
    /* words: 2 x bands (3 n + 1) + descriptors; npack, nunpack <= 2 * num_specs each */
    if (!hst__halo_add(p->npack, p->nunpack, &w) ||
        !hst__halo_mul(w, HST_K_HALO_DESC_WORDS + 3, &words) || !hst__halo_add(words, 2, &words) ||
        words > SIZE_MAX / 2 / sizeof(uint64_t)) {
        r = hst_backend_fail(be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                           "the descriptor table's size overflows");
        goto fail;
    }
    /* OpenCL devices get a second variant of the table, RUNS mode where slots qualify,
       chosen against the first by measured speed (hst__halo_variant) */
    p->nvariants = hst_backend_is_host(be) ? 1 : 2;
    p->variant_words = words;
    p->table_words = words * (size_t)p->nvariants;
    p->table = (uint64_t *)hst__halo_calloc(be, p->table_words, sizeof(uint64_t));
    if (!p->table) {
        r = hst_backend_fail(be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY, F,
                           "host allocation of the table failed");
        goto fail;
    }
    p->pack_prefix_at = 0;
    p->pack_desc_at = 3 * p->npack + 1;
    p->unpack_prefix_at = p->pack_desc_at + p->npack * HST_K_HALO_DESC_WORDS;
    p->unpack_desc_at = p->unpack_prefix_at + 3 * p->nunpack + 1;
    for (i = 0; i < (size_t)p->nvariants; ++i) {
        uint64_t *t = p->table + i * words;
        hst__halo_layout_slots(p, desc, (const size_t (*)[4])st, 0, (int)i,
                               t + p->pack_prefix_at, t + p->pack_desc_at, &p->npack, &p->send_total);
        hst__halo_layout_slots(p, desc, (const size_t (*)[4])st, 1, (int)i,
                               t + p->unpack_prefix_at, t + p->unpack_desc_at, &p->nunpack,
                               &p->recv_total);
        /* the host paths read variant 0's descriptors in table order */
        p->nbands[i][0] = hst__halo_bands(be, t + p->pack_prefix_at, t + p->pack_desc_at,
                                          p->npack, (int)i);
        p->nbands[i][1] = hst__halo_bands(be, t + p->unpack_prefix_at, t + p->unpack_desc_at,
                                          p->nunpack, (int)i);
    }
    r = hst_pool_alloc(hst_backend_pool(be), p->send_total ? p->send_total : 1, &p->send);
    if (r == HST_SUCCESS)
        r = hst_pool_alloc(hst_backend_pool(be), p->recv_total ? p->recv_total : 1, &p->recv);
    if (r != HST_SUCCESS) {
        r = hst_backend_fail(be, r, hst__halo_item(r), F, "buffers of %zu + %zu bytes: %s",
                       p->send_total, p->recv_total, hst_result_string(r));
        goto fail;
    }
    if ((r = hst__halo_device_setup(p)) != HST_SUCCESS) {
        r = hst_backend_fail(be, r, hst__halo_item(r), F, "device setup: %s", hst_result_string(r));
        goto fail;
    }
    p->stats.pack_slots = p->npack;
    p->stats.unpack_slots = p->nunpack;
    p->stats.send_bytes = p->send_total;
    p->stats.recv_bytes = p->recv_total;
    p->stats.table_bytes = p->table_words * sizeof(uint64_t);
    hst_backend_free(be, st);
    *out = p;
    return HST_SUCCESS;
fail:
    hst_backend_free(be, st);
    hst_halo_plan_destroy(p);
    return r;
}

HST__HDEF hst_halo_stats hst_halo_plan_stats(const hst_halo_plan *p)
{
    hst_halo_stats s;
    if (p) return p->stats;
    memset(&s, 0, sizeof s);
    return s;
}

HST__HDEF size_t hst_halo_plan_peers(const hst_halo_plan *p) { return p ? p->npeers : 0; }

HST__HDEF hst_result hst_halo_plan_peer(const hst_halo_plan *p, size_t peer, size_t *so,
                                        size_t *sb, size_t *ro, size_t *rb)
{
    if (!p || peer >= p->npeers)
        return p ? hst__bad_arg(p->be, "hst_halo_plan_peer",
                                  "peer %zu of %zu", peer, p->npeers)
                 : HST_ERROR_INVALID_ARGUMENT;
    if (so) *so = p->peer[4 * peer];
    if (sb) *sb = p->peer[4 * peer + 1];
    if (ro) *ro = p->peer[4 * peer + 2];
    if (rb) *rb = p->peer[4 * peer + 3];
    return HST_SUCCESS;
}

HST__HDEF hst_buffer *hst_halo_plan_send_buffer(const hst_halo_plan *p) { return p ? p->send : NULL; }
HST__HDEF hst_buffer *hst_halo_plan_recv_buffer(const hst_halo_plan *p) { return p ? p->recv : NULL; }

/* NDSL's getters synchronise first; which buffer comes back is the only difference */
static hst_result hst__halo_synced_buffer(hst_halo_plan *p, int unpack, hst_buffer **out)
{
    const char *F = unpack ? "hst_halo_plan_unpack_buffer" : "hst_halo_plan_pack_buffer";
    hst_result r;
    if (out) *out = NULL;
    if (!p || !out) return hst__null_arg(p ? p->be : NULL, F, "%s is NULL", p ? "out" : "plan");
    r = hst_halo_plan_synchronize(p);
    if (r != HST_SUCCESS)
        return hst_backend_fail(p->be, r, hst__halo_item(r), F, "waiting for the plan's last pack "
                                "and unpack: %s", hst_result_string(r));
    *out = unpack ? p->recv : p->send;
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_plan_pack_buffer(hst_halo_plan *p, hst_buffer **out)
{
    return hst__halo_synced_buffer(p, 0, out);
}

HST__HDEF hst_result hst_halo_plan_unpack_buffer(hst_halo_plan *p, hst_buffer **out)
{
    return hst__halo_synced_buffer(p, 1, out);
}

/* >>pack and unpack -------------------------------------------------------------------------- */
static hst_result hst__halo_check_quantities(hst_halo_plan *p, const char *f, size_t n,
                                             const void *const *ptrs, hst_buffer *const *bufs,
                                             const size_t *bytes)
{
    size_t i;
    if (n != p->nq || (!ptrs && !bufs))
        return hst__bad_arg(p->be, f,
                              "%zu quantities given, the plan has %zu",
                              (ptrs || bufs) ? n : 0, p->nq);
    for (i = 0; i < n; ++i) {
        size_t have;
        if (bufs ? !bufs[i] : !ptrs[i])
            return hst__null_arg(p->be, f,
                                  "quantity %zu is NULL", i);
        if (bufs && hst_buffer_backend(bufs[i]) != p->be)
            return hst_backend_fail(p->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, f,
                                  "quantity %zu belongs to another backend", i);
        if (!bufs && !bytes) continue;
        have = bufs ? hst_buffer_bytes(bufs[i]) : bytes[i];
        if (have < p->qbytes[i])
            return hst_backend_fail(p->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, f,
                                  "quantity %zu holds %zu bytes, its layout needs %zu", i,
                                  have, p->qbytes[i]);
    }
    return HST_SUCCESS;
}

/* Keeps e as the plan's record of its last pack or unpack (*slot) and gives the caller its own
   reference (*out, may be NULL). */
static void hst__halo_keep_event(hst_event *slot, hst_event e, hst_event *out)
{
    hst_event_release(*slot);
    *slot = e;
    if (!out) return;
    *out = e;
    hst_event_retain(e);
}

static void hst__halo_host_sig(const hst_halo_plan *p, int unpack, int64_t *sig);

static const char *const hst__halo_variant_names[2] = {"fused", "runs"};

/* The device path's table variant by measured speed: a timings-only choice operation per
   direction ("halo_pack_device", "halo_unpack_device"; "fused": DIRECT, TILED and WIDE slots,
   "runs": RUNS mode where slots qualify) on the plan's backend, keyed by the host path's
   signature. A plan times (blocking) its launches 2 .. HST__HALO_TIMED of a variant and feeds
   them to the choice, which measures an unknown variant before it picks; later launches are
   asynchronous. *v: the variant; *timed: whether to time this launch. */
static hst_result hst__halo_variant(hst_halo_plan *p, int unpack, int *v, int *timed)
{
    unsigned impl = 0;
    hst_result r;
    *v = 0;
    *timed = 0;
    if (p->nvariants < 2) return HST_SUCCESS;
    if (!p->dev_op[unpack]) {
        const char *name = unpack ? "halo_unpack_device" : "halo_pack_device";
        hst__halo_host_sig(p, unpack, p->host_sig[unpack]);
        if ((p->dev_op[unpack] = hst_choice_find(p->be, name)) == NULL) {
            hst_choice_impl im[2];
            hst_choice_op_desc d;
            memset(im, 0, sizeof im);
            memset(&d, 0, sizeof d);
            im[0].name = hst__halo_variant_names[0];
            im[1].name = hst__halo_variant_names[1];
            d.name = name;
            d.impls = im;
            d.num_impls = 2;
            if ((r = hst_choice_register(p->be, &d, &p->dev_op[unpack])) != HST_SUCCESS) return r;
        }
    }
    if ((r = hst_choice_pick(p->dev_op[unpack], p->host_sig[unpack], 3, &impl)) != HST_SUCCESS)
        return r;
    *v = impl ? 1 : 0;
    *timed = p->launches[*v][unpack] >= 1 && p->launches[*v][unpack] < HST__HALO_TIMED;
    return HST_SUCCESS;
}
/* One launch of the fused pack (unpack = 0) or unpack kernel over table variant v: the table
   and variant v's words, the plan's buffer, the quantities, and the table again for each
   quantity argument past the plan's (never read). */
static hst_result hst__halo_launch(hst_halo_plan *p, int unpack, int v, hst_queue *q, size_t n,
                                   hst_buffer *const *quantities, size_t num_wait,
                                   const hst_event *wait, hst_event *e)
{
    hst_karg a[6 + HST_HALO_MAX_QUANTITIES];
    hst_launch_desc d;
    size_t base = (size_t)v * p->variant_words, i;
    a[0] = hst_karg_buffer(p->table_buf);
    a[1] = hst_karg_ulong(base + (unpack ? p->unpack_prefix_at : p->pack_prefix_at));
    a[2] = hst_karg_ulong(base + (unpack ? p->unpack_desc_at : p->pack_desc_at));
    a[3] = hst_karg_ulong(p->nbands[v][unpack]);
    a[4] = hst_karg_ulong(p->groups[v][unpack]);
    a[5] = hst_karg_buffer(unpack ? p->recv : p->send);
    for (i = 6; i < p->num_args; ++i)
        a[i] = hst_karg_buffer(i - 6 < n ? quantities[i - 6] : p->table_buf);
    memset(&d, 0, sizeof d);
    d.family = hst_kernels_halo_family();
    d.options = hst_kernels_halo_options(p->nq);
    d.kernel = p->kernel[unpack];
    d.range.dims = 1;
    d.range.global[0] = (size_t)p->groups[v][unpack] * p->wg;   /* checked at creation */
    d.range.local[0] = p->wg;
    d.args = a;
    d.num_args = p->num_args;
    d.queue = q;
    d.num_wait = num_wait;
    d.wait = wait;
    return hst_launch_kernel(p->be, &d, e);
}

/* Whether every event of the wait list has completed: a timed launch waits for them, and must
   never wait on what may be gated (a user event completed later). */
static int hst__halo_wait_done(size_t num_wait, const hst_event *wait)
{
    size_t i;
    for (i = 0; i < num_wait; ++i) {
        int st = HST_EVENT_COMPLETE;
        if (hst_event_status(wait[i], &st) != HST_SUCCESS || st > HST_EVENT_COMPLETE) return 0;
    }
    return 1;
}

static hst_result hst__halo_run(hst_halo_plan *p, int unpack, hst_queue *q, size_t n,
                                hst_buffer *const *quantities, size_t num_wait,
                                const hst_event *wait, hst_event *out)
{
    const char *f = unpack ? "hst_halo_unpack" : "hst_halo_pack";
    hst_event e = NULL;
    int v = 0, timed = 0;
    double t0 = 0.0;
    hst_result r;
    if (out) *out = NULL;
    if (!p) return hst__null_arg(NULL, f, "plan is NULL");
    if ((r = hst__halo_check_quantities(p, f, n, NULL, quantities, NULL)) != HST_SUCCESS)
        return r;
    if (num_wait && !wait) return hst__null_arg(p->be, f, "num_wait %zu with wait NULL", num_wait);
    if (!q) q = hst_backend_queue(p->be);
    if ((r = hst__halo_variant(p, unpack, &v, &timed)) != HST_SUCCESS)
        return hst_backend_fail(p->be, r, hst__halo_item(r),
                                f, "variant: %s", hst_result_string(r));
    if (timed && hst__halo_wait_done(num_wait, wait)) {
        /* the launch alone: what is queued before it finishes first */
        if ((r = hst_event_wait(num_wait, wait)) != HST_SUCCESS ||
            (r = hst_queue_finish(q)) != HST_SUCCESS)
            return r;
        t0 = hst_time_s();
    } else {
        timed = 0;
    }
    if ((r = hst__halo_launch(p, unpack, v, q, n, quantities, num_wait, wait, &e)) != HST_SUCCESS)
        return hst_backend_fail(p->be, r, hst__halo_item(r), f, "launch: %s", hst_result_string(r));
    if (timed && (r = hst_event_wait(1, &e)) == HST_SUCCESS)
        r = hst_choice_record(p->dev_op[unpack], p->host_sig[unpack], 3,
                              hst__halo_variant_names[v], hst_time_s() - t0);
    p->launches[v][unpack]++;
    hst__halo_keep_event(unpack ? &p->last_unpack : &p->last_pack, e, out);
    if (r != HST_SUCCESS) return r;
    if (unpack) p->stats.unpack_launches++; else p->stats.pack_launches++;
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_pack(hst_halo_plan *p, hst_queue *q, size_t n,
                                   hst_buffer *const *quantities, size_t num_wait,
                                   const hst_event *wait, hst_event *out)
{
    return hst__halo_run(p, 0, q, n, quantities, num_wait, wait, out);
}

HST__HDEF hst_result hst_halo_unpack(hst_halo_plan *p, hst_queue *q, size_t n,
                                     hst_buffer *const *quantities, size_t num_wait,
                                     const hst_event *wait, hst_event *out)
{
    return hst__halo_run(p, 1, q, n, quantities, num_wait, wait, out);
}

HST__HDEF hst_result hst_halo_pack_host(hst_halo_plan *p, size_t n, void *const *quantities,
                                        const size_t *bytes, void *buffer)
{
    hst_result r;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst__halo_check_quantities(p, "hst_halo_pack_host", n, (const void *const *)quantities,
                                        NULL, bytes)) != HST_SUCCESS)
        return r;
    if (!buffer)
        return hst__null_arg(p->be, "hst_halo_pack_host",
                              "buffer is NULL");
    hst_k_halo_pack_host(p->table + p->pack_desc_at, p->npack, quantities, buffer);
    p->stats.pack_launches++;
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_unpack_host(hst_halo_plan *p, size_t n, void *const *quantities,
                                          const size_t *bytes, const void *buffer)
{
    hst_result r;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst__halo_check_quantities(p, "hst_halo_unpack_host", n,
                                        (const void *const *)quantities, NULL, bytes)) != HST_SUCCESS)
        return r;
    if (!buffer)
        return hst__null_arg(p->be, "hst_halo_unpack_host",
                              "buffer is NULL");
    hst_k_halo_unpack_host(p->table + p->unpack_desc_at, p->nunpack, buffer, quantities);
    p->stats.unpack_launches++;
    return HST_SUCCESS;
}

/* >>host path by measured speed -------------------------------------------------------------- */
/* One call of the chosen host path: what every implementation needs. */
typedef struct hst__halo_host_call {
    hst_halo_plan *plan;
    int unpack;
    size_t n;
    void *const *quantities;
    const size_t *bytes;
    void *buffer;                   /* pack: written; unpack: read only */
} hst__halo_host_call;

static hst_result hst__halo_host_twin(void *args, void *user)
{
    hst__halo_host_call *c = (hst__halo_host_call *)args;
    (void)user;
    return c->unpack ? hst_halo_unpack_host(c->plan, c->n, c->quantities, c->bytes, c->buffer)
                     : hst_halo_pack_host(c->plan, c->n, c->quantities, c->bytes, c->buffer);
}

/* The first index at which quantity i's pointer is given (i itself when it is new). */
static size_t hst__halo_first(const hst__halo_host_call *c, size_t i)
{
    size_t j = 0;
    while (c->quantities[j] != c->quantities[i]) ++j;
    return j;
}

/* The largest size any quantity given at this pointer needs (the wrap serves them all). */
static size_t hst__halo_wrap_bytes(const hst__halo_host_call *c, size_t i)
{
    size_t j, bytes = 0;
    for (j = 0; j < c->n; ++j)
        if (c->quantities[j] == c->quantities[i] && c->plan->qbytes[j] > bytes)
            bytes = c->plan->qbytes[j];
    return bytes;
}

/* Wraps each distinct quantity pointer once (a pointer given twice shares one buffer, so a
   discrete GPU's copy-back of one cannot undo the other's writes); w[i] NULL where a wrap
   failed or was not reached. */
static hst_result hst__halo_wrap_all(const hst__halo_host_call *c, hst_buffer **w)
{
    hst_halo_plan *p = c->plan;
    unsigned flags = c->unpack ? HST_MEM_READ_WRITE : HST_MEM_READ_ONLY;
    hst_result r = HST_SUCCESS;
    size_t i, j;
    for (i = 0; i < c->n; ++i) w[i] = NULL;
    for (i = 0; i < c->n && r == HST_SUCCESS; ++i) {
        if ((j = hst__halo_first(c, i)) < i) w[i] = w[j];
        else r = hst_buffer_wrap(p->be, c->quantities[i], hst__halo_wrap_bytes(c, i), flags,
                                 &w[i]);
    }
    return r;
}

/* Maps and unmaps each wrap so that the host memory holds what the kernel wrote. */
static hst_result hst__halo_sync_wraps(const hst__halo_host_call *c, hst_buffer **w,
                                       hst_queue *q)
{
    hst_result r = HST_SUCCESS;
    size_t i;
    for (i = 0; i < c->n && r == HST_SUCCESS; ++i) {
        void *ptr;
        if (hst__halo_first(c, i) < i) continue;
        r = hst_map(q, w[i], HST_MAP_READ, 0, hst_buffer_bytes(w[i]), 1, &ptr, 0, NULL, NULL);
        if (r == HST_SUCCESS) r = hst_unmap(q, w[i], ptr, 0, NULL, NULL);
    }
    if (r == HST_SUCCESS) r = hst_queue_finish(q);
    return r;
}

/* Destroys each distinct wrap once (NULLs: never made). */
static void hst__halo_unwrap_all(const hst__halo_host_call *c, hst_buffer **w)
{
    size_t i;
    for (i = 0; i < c->n; ++i)
        if (hst__halo_first(c, i) == i) hst_buffer_destroy(w[i]);
}

/* The fused kernel on the quantities in place, through the plan's device buffers. */
static hst_result hst__halo_host_device(void *args, void *user)
{
    hst__halo_host_call *c = (hst__halo_host_call *)args;
    hst_halo_plan *p = c->plan;
    hst_queue *q = hst_backend_queue(p->be);
    hst_buffer *w[HST_HALO_MAX_QUANTITIES];
    hst_event e = NULL;
    hst_result r;
    (void)user;
    r = hst__halo_wrap_all(c, w);
    if (r == HST_SUCCESS && c->unpack) {
        r = hst_write(q, p->recv, 0, c->buffer, p->recv_total, 0, 0, NULL, &e);
        if (r == HST_SUCCESS) r = hst_halo_unpack(p, q, c->n, w, e ? 1 : 0, &e, NULL);
        if (r == HST_SUCCESS) r = hst__halo_sync_wraps(c, w, q);
    } else if (r == HST_SUCCESS) {
        r = hst_halo_pack(p, q, c->n, w, 0, NULL, &e);
        if (r == HST_SUCCESS) r = hst_read(q, p->send, 0, c->buffer, p->send_total, 1, 1, &e, NULL);
    }
    if (r != HST_SUCCESS) {   /* nothing may still use the wraps; r, the first error, is returned */
        hst_result finished = hst_queue_finish(q);
        (void)finished;
    }
    hst_event_release(e);
    hst__halo_unwrap_all(c, w);
    return r;
}

/* pack: the send buffer's bytes, for hst_choice_benchmark's cross-check. */
static hst_result hst__halo_host_output(void *args, double *dst, size_t capacity, size_t *count)
{
    const hst__halo_host_call *c = (const hst__halo_host_call *)args;
    const unsigned char *b = (const unsigned char *)c->buffer;
    size_t i;
    *count = c->plan->send_total;
    for (i = 0; dst && i < *count && i < capacity; ++i) dst[i] = b[i];
    return HST_SUCCESS;
}

/* Contiguous runs of a slot table (a run: the last dimension when its step is 1). */
static uint64_t hst__halo_runs(const uint64_t *desc, size_t nslots)
{
    uint64_t runs = 0;
    size_t s;
    for (s = 0; s < nslots; ++s) {
        const uint64_t *d = desc + s * HST_K_HALO_DESC_WORDS;
        uint64_t elems = d[HST_K_HALO_D_EXT] * d[HST_K_HALO_D_EXT + 1] *
                         d[HST_K_HALO_D_EXT + 2] * d[HST_K_HALO_D_EXT + 3];
        runs += (int64_t)d[HST_K_HALO_D_STEP + 3] == 1 ? elems / d[HST_K_HALO_D_EXT + 3] : elems;
    }
    return runs;
}

/* The plan's signature for direction `unpack`: halo bytes, mean contiguous run in bytes,
   bytes of all quantities (what each implementation's cost follows). */
static void hst__halo_host_sig(const hst_halo_plan *p, int unpack, int64_t *sig)
{
    uint64_t halo = unpack ? p->recv_total : p->send_total, total = 0;
    uint64_t runs = unpack ? hst__halo_runs(p->table + p->unpack_desc_at, p->nunpack)
                           : hst__halo_runs(p->table + p->pack_desc_at, p->npack);
    size_t i;
    for (i = 0; i < p->nq; ++i) total += p->qbytes[i];
    sig[0] = (int64_t)halo;
    sig[1] = runs ? (int64_t)(halo / runs) : 0;
    sig[2] = (int64_t)total;
}

/* The direction's operation on the plan's backend (registered by the backend's first plan to
   use it) and the plan's signature, both kept in the plan from its first call. */
static hst_result hst__halo_host_op(hst_halo_plan *p, int unpack)
{
    const char *name = unpack ? "halo_unpack_host" : "halo_pack_host";
    hst_choice_impl im[2];
    hst_choice_op_desc d;
    if (p->host_op[unpack]) return HST_SUCCESS;
    hst__halo_host_sig(p, unpack, p->host_sig[unpack]);
    if ((p->host_op[unpack] = hst_choice_find(p->be, name)) != NULL) return HST_SUCCESS;
    memset(im, 0, sizeof im);
    memset(&d, 0, sizeof d);
    im[0].name = "host";
    im[0].run = hst__halo_host_twin;
    im[0].reference = 1;
    d.num_impls = 1;
    if (!hst_backend_is_host(p->be)) {   /* on the host device "device" would be "host" again */
        im[1].name = "device";
        im[1].run = hst__halo_host_device;
        d.num_impls = 2;
    }
    d.name = name;
    d.impls = im;
    if (!unpack) d.output = hst__halo_host_output;
    return hst_choice_register(p->be, &d, &p->host_op[unpack]);
}

/* Whether two distinct quantity pointers share bytes: OpenCL leaves buffers over overlapping
   host memory undefined, so those run on the host. */
static int hst__halo_overlap(const hst_halo_plan *p, size_t n, void *const *q)
{
    size_t i, j;
    for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j) {
            uintptr_t a = (uintptr_t)q[i], b = (uintptr_t)q[j];   /* distinct objects: no
                                                                      pointer comparison */
            if (a != b && a < b + p->qbytes[j] && b < a + p->qbytes[i]) return 1;
        }
    return 0;
}

static hst_result hst__halo_host_choose(hst_halo_plan *p, int unpack, size_t n,
                                        void *const *quantities, const size_t *bytes,
                                        void *buffer, const char *force,
                                        hst_choice_outcome *outcome)
{
    const char *f = unpack ? "hst_halo_unpack_host_choose" : "hst_halo_pack_host_choose";
    hst__halo_host_call c;
    hst_result r;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst__halo_check_quantities(p, f, n, (const void *const *)quantities, NULL,
                                        bytes)) != HST_SUCCESS)
        return r;
    if (!buffer)
        return hst__null_arg(p->be, f,
                              "buffer is NULL");
    if ((r = hst__halo_host_op(p, unpack)) != HST_SUCCESS) return r;
    c.plan = p; c.unpack = unpack; c.n = n; c.quantities = quantities; c.bytes = bytes;
    c.buffer = buffer;
    if (hst__halo_overlap(p, n, quantities)) force = "host";
    return hst_choice_run(p->host_op[unpack], p->host_sig[unpack], 3, &c, force, outcome);
}

HST__HDEF hst_result hst_halo_pack_host_choose(hst_halo_plan *p, size_t n,
                                               void *const *quantities, const size_t *bytes,
                                               void *buffer, const char *force,
                                               hst_choice_outcome *outcome)
{
    return hst__halo_host_choose(p, 0, n, quantities, bytes, buffer, force, outcome);
}

HST__HDEF hst_result hst_halo_unpack_host_choose(hst_halo_plan *p, size_t n,
                                                 void *const *quantities, const size_t *bytes,
                                                 const void *buffer, const char *force,
                                                 hst_choice_outcome *outcome)
{
    /* the unpack implementations only read the buffer */
    return hst__halo_host_choose(p, 1, n, quantities, bytes, (void *)(uintptr_t)buffer, force,
                                 outcome);
}

HST__HDEF int hst_halo_plan_ready(const hst_halo_plan *p)
{
    int st[2] = {HST_EVENT_COMPLETE, HST_EVENT_COMPLETE};
    if (!p) return 1;
    /* an event whose status cannot be read counts as complete, as hst_event_wait's NULLs */
    if (hst_event_status(p->last_pack, &st[0]) != HST_SUCCESS) st[0] = HST_EVENT_COMPLETE;
    if (hst_event_status(p->last_unpack, &st[1]) != HST_SUCCESS) st[1] = HST_EVENT_COMPLETE;
    return st[0] <= HST_EVENT_COMPLETE && st[1] <= HST_EVENT_COMPLETE;
}

HST__HDEF hst_result hst_halo_plan_synchronize(hst_halo_plan *p)
{
    hst_event ev[2];
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    ev[0] = p->last_pack;
    ev[1] = p->last_unpack;
    return hst_event_wait(2, ev);
}

/* >>mirrors and peers ------------------------------------------------------------------------ */
HST__HDEF hst_result hst_halo_plan_mirrors(hst_halo_plan *p, void **send, void **recv)
{
    hst_result r = HST_SUCCESS;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    if (hst_backend_is_host(p->be)) {
        if (send) *send = hst_buffer_host_ptr(p->send);
        if (recv) *recv = hst_buffer_host_ptr(p->recv);
        return HST_SUCCESS;
    }
    if (!p->send_mirror) r = hst_pinned_create(p->be, hst_buffer_bytes(p->send), &p->send_mirror);
    if (r == HST_SUCCESS && !p->recv_mirror)
        r = hst_pinned_create(p->be, hst_buffer_bytes(p->recv), &p->recv_mirror);
    if (r != HST_SUCCESS)
        return hst_backend_fail(p->be, r, hst__halo_item(r), "hst_halo_plan_mirrors", "%s",
                              hst_result_string(r));
    if (send) *send = hst_buffer_host_ptr(p->send_mirror);
    if (recv) *recv = hst_buffer_host_ptr(p->recv_mirror);
    return HST_SUCCESS;
}

static hst_result hst__halo_transfer(hst_halo_plan *p, int up, hst_queue *q, size_t peer,
                                     size_t num_wait, const hst_event *wait, hst_event *out)
{
    size_t off = 0, bytes = 0;
    void *mirror;
    hst_result r;
    if (out) *out = NULL;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    if (peer == HST_HALO_ALL_PEERS) {
        off = 0;
        bytes = up ? p->recv_total : p->send_total;
    } else {
        if ((r = up ? hst_halo_plan_peer(p, peer, NULL, NULL, &off, &bytes)
                    : hst_halo_plan_peer(p, peer, &off, &bytes, NULL, NULL)) != HST_SUCCESS)
            return r;
    }
    if (hst_backend_is_host(p->be)) return hst_event_wait(num_wait, wait);
    if ((r = hst_halo_plan_mirrors(p, up ? NULL : &mirror, up ? &mirror : NULL)) != HST_SUCCESS)
        return r;
    if (!q) q = hst_backend_queue(p->be);
    if (up)
        return hst_write(q, p->recv, off, (char *)mirror + off, bytes, 0, num_wait, wait, out);
    return hst_read(q, p->send, off, (char *)mirror + off, bytes, 0, num_wait, wait, out);
}

HST__HDEF hst_result hst_halo_download(hst_halo_plan *p, hst_queue *q, size_t peer,
                                       size_t num_wait, const hst_event *wait, hst_event *out)
{
    return hst__halo_transfer(p, 0, q, peer, num_wait, wait, out);
}

HST__HDEF hst_result hst_halo_upload(hst_halo_plan *p, hst_queue *q, size_t peer,
                                     size_t num_wait, const hst_event *wait, hst_event *out)
{
    return hst__halo_transfer(p, 1, q, peer, num_wait, wait, out);
}

HST__HDEF hst_result hst_halo_copy_peer(hst_halo_plan *src, size_t src_peer, hst_halo_plan *dst,
                                        size_t dst_peer, hst_queue *q, size_t num_wait,
                                        const hst_event *wait, hst_event *out)
{
    size_t so = 0, sb = 0, ro = 0, rb = 0;
    hst_result r;
    if (out) *out = NULL;
    if (!src || !dst) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst_halo_plan_peer(src, src_peer, &so, &sb, NULL, NULL)) != HST_SUCCESS ||
        (r = hst_halo_plan_peer(dst, dst_peer, NULL, NULL, &ro, &rb)) != HST_SUCCESS)
        return r;
    if (sb != rb)
        return hst_backend_fail(dst->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH,
                                "hst_halo_copy_peer",
                                "peer %zu sends %zu bytes, peer %zu expects %zu",
                                src_peer, sb, dst_peer, rb);
    if (src->be == dst->be) {
        if (!q) q = hst_backend_queue(src->be);
        return hst_copy(q, dst->recv, ro, src->send, so, sb, num_wait, wait, out);
    } else {
        void *tmp = hst_backend_alloc(dst->be, sb ? sb : 1);
        if (!tmp)
            return hst_backend_fail(dst->be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                                    "hst_halo_copy_peer", "%zu bytes", sb);
        r = hst_event_wait(num_wait, wait);
        if (r == HST_SUCCESS)
            r = hst_read(hst_backend_queue(src->be), src->send, so, tmp, sb, 1, 0, NULL, NULL);
        if (r == HST_SUCCESS)
            r = hst_write(hst_backend_queue(dst->be), dst->recv, ro, tmp, sb, 1, 0, NULL, NULL);
        hst_backend_free(dst->be, tmp);
        return r;
    }
}

/* >>regions ---------------------------------------------------------------------------------- */
HST__HDEF hst_result hst_halo_layout_bytes(const hst_halo_layout *l, size_t *bytes)
{
    size_t st[4], b;
    hst_result r = hst__halo_layout_check(l, st, &b, NULL, 0);
    if (r == HST_SUCCESS && bytes) *bytes = b;
    return r;
}

/* -1 low side, +1 high side, 0 not cut, per boundary for x and y. */
static const signed char hst__halo_side[8][2] = {
    {-1, 0}, {1, 0}, {0, 1}, {0, -1}, {-1, 1}, {1, 1}, {-1, -1}, {1, -1}
};

HST__HDEF hst_result hst_halo_region_get(const hst_halo_layout *l, hst_halo_boundary b,
                                         int receive, hst_halo_region *out)
{
    size_t st[4], bytes;
    unsigned d;
    hst_result r;
    if (!out || (int)b < 0 || (int)b >= (int)HST_HALO_BOUNDARY_COUNT)
        return HST_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if ((r = hst__halo_layout_check(l, st, &bytes, NULL, 0)) != HST_SUCCESS) return r;
    if (l->n_halo == 0) return HST_ERROR_INVALID_ARGUMENT;
    for (d = 0; d < l->ndim; ++d) {
        int axis = hst__halo_axis(l->dims[d]);
        int side = axis == 'x' ? hst__halo_side[b][0] : axis == 'y' ? hst__halo_side[b][1] : 0;
        size_t o = l->origin[d], e = l->origin[d] + l->extent[d], n = l->n_halo;
        size_t ov = (l->dims[d] == HST_HALO_DIM_X_INTERFACE ||
                     l->dims[d] == HST_HALO_DIM_Y_INTERFACE) ? 1 : 0;
        size_t a, z;
        if (side == 0) {
            a = o; z = e;
        } else if (side < 0) {
            if (receive) {
                if (o < n) return HST_ERROR_INVALID_ARGUMENT;
                a = o - n; z = o;
            } else {
                a = o + ov;
                if (n > SIZE_MAX - a) return HST_ERROR_INVALID_ARGUMENT;
                z = a + n;
            }
        } else {
            if (receive) {
                a = e;
                if (n > SIZE_MAX - a) return HST_ERROR_INVALID_ARGUMENT;
                z = e + n;
            } else {
                if (e < ov + n) return HST_ERROR_INVALID_ARGUMENT;
                a = e - ov - n; z = e - ov;
            }
        }
        if (a >= z || z > l->shape[d]) return HST_ERROR_INVALID_ARGUMENT;
        out->start[d] = a;
        out->stop[d] = z;
    }
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_spec_scalar(const hst_halo_layout *l, size_t q, hst_halo_boundary b,
                                          unsigned rotation, size_t peer, hst_halo_spec *out)
{
    hst_result r;
    if (!out) return HST_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->quantity = q;
    out->rotation = rotation & 3u;
    out->peer = peer;
    if ((r = hst_halo_region_get(l, b, 0, &out->pack)) != HST_SUCCESS) return r;
    return hst_halo_region_get(l, b, 1, &out->unpack);
}

HST__HDEF hst_result hst_halo_spec_vector(const hst_halo_layout *lx, size_t qx,
                                          const hst_halo_layout *ly, size_t qy,
                                          hst_halo_boundary b, unsigned rotation, size_t peer,
                                          hst_halo_spec *out)
{
    hst_result r = hst_halo_spec_scalar(lx, qx, b, rotation, peer, out);
    if (r != HST_SUCCESS) return r;
    out->vector = 1;
    out->quantity_y = qy;
    if ((r = hst_halo_region_get(ly, b, 0, &out->pack_y)) != HST_SUCCESS) return r;
    return hst_halo_region_get(ly, b, 1, &out->unpack_y);
}

/* >>opposite pairing ------------------------------------------------------------------------- */
static hst_halo_boundary hst__halo_boundary_of(int dx, int dy)
{
    int b;
    for (b = 0; b < 8; ++b)
        if (hst__halo_side[b][0] == dx && hst__halo_side[b][1] == dy) return (hst_halo_boundary)b;
    return HST_HALO_BOUNDARY_COUNT;
}

HST__HDEF hst_halo_boundary hst_halo_opposite(hst_halo_boundary b, unsigned rotation)
{
    int dx, dy, ddx, ddy;
    unsigned r = rotation & 3u;
    if ((int)b < 0 || (int)b >= (int)HST_HALO_BOUNDARY_COUNT) return HST_HALO_BOUNDARY_COUNT;
    dx = hst__halo_side[b][0];
    dy = hst__halo_side[b][1];
    /* our direction toward the neighbour, turned into its frame (r clockwise quarter turns of
       the axes), reversed */
    ddx = r == 1 ? -dy : r == 3 ? dy : r == 2 ? -dx : dx;
    ddy = r == 1 ? dx : r == 3 ? -dx : r == 2 ? -dy : dy;
    return hst__halo_boundary_of(-ddx, -ddy);
}

HST__HDEF hst_result hst_halo_spec_scalar_opposite(const hst_halo_layout *l, size_t q,
                                                   hst_halo_boundary b, unsigned rotation,
                                                   size_t peer, hst_halo_spec *out)
{
    hst_result r = hst_halo_spec_scalar(l, q, b, rotation, peer, out);
    if (r != HST_SUCCESS) return r;
    return hst_halo_region_get(l, hst_halo_opposite(b, 0), 1, &out->unpack);
}

HST__HDEF hst_result hst_halo_spec_vector_opposite(const hst_halo_layout *lx, size_t qx,
                                                   const hst_halo_layout *ly, size_t qy,
                                                   hst_halo_boundary b, unsigned rotation,
                                                   size_t peer, hst_halo_spec *out)
{
    hst_result r = hst_halo_spec_vector(lx, qx, ly, qy, b, rotation, peer, out);
    if (r == HST_SUCCESS) r = hst_halo_region_get(lx, hst_halo_opposite(b, 0), 1, &out->unpack);
    if (r == HST_SUCCESS) r = hst_halo_region_get(ly, hst_halo_opposite(b, 0), 1, &out->unpack_y);
    return r;
}

/* >>partitioners ----------------------------------------------------------------------------- */
static size_t hst__tile_ranks(const hst_tile_partitioner *p)
{
    return p->layout[0] * p->layout[1];   /* each checked <= INT_MAX, product checked below */
}

static int hst__tile_valid(const hst_tile_partitioner *p)
{
    return p && p->layout[0] > 0 && p->layout[1] > 0 && p->layout[0] <= (size_t)INT_MAX &&
           p->layout[1] <= (size_t)INT_MAX / p->layout[0] && p->edge_interior_ratio >= 0.0;
}

HST__HDEF hst_result hst_tile_subtile_index(const hst_tile_partitioner *p, int rank, size_t *j,
                                            size_t *i)
{
    size_t within;
    if (!hst__tile_valid(p) || rank < 0 || !j || !i) return HST_ERROR_INVALID_ARGUMENT;
    within = (size_t)rank % hst__tile_ranks(p);
    *j = within / p->layout[1];
    *i = within % p->layout[1];
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_tile_neighbor_of(const hst_tile_partitioner *p, int rank,
                                          hst_halo_boundary b, hst_halo_neighbor *out)
{
    size_t j, i, ny, nx;
    hst_result r = hst_tile_subtile_index(p, rank, &j, &i);
    if (r != HST_SUCCESS || !out || (size_t)rank >= hst__tile_ranks(p) || (int)b < 0 ||
        (int)b >= (int)HST_HALO_BOUNDARY_COUNT)
        return HST_ERROR_INVALID_ARGUMENT;
    ny = p->layout[0];
    nx = p->layout[1];
    /* NDSL's corners go W or E first, then N or S from there: on a periodic tile, the same as
       moving both at once */
    i = hst__halo_side[b][0] < 0 ? (i + nx - 1) % nx : hst__halo_side[b][0] > 0 ? (i + 1) % nx : i;
    j = hst__halo_side[b][1] < 0 ? (j + ny - 1) % ny : hst__halo_side[b][1] > 0 ? (j + 1) % ny : j;
    out->rank = (int)(j * nx + i);
    out->rotation = 0;
    out->boundary = hst_halo_opposite(b, 0);
    return HST_SUCCESS;
}

/* Python's round() (half to even) of a positive x, without libm. */
static long hst__tile_round(double x)
{
    long f = (long)x;
    double d = x - (double)f;
    return d > 0.5 ? f + 1 : d < 0.5 ? f : f + (f & 1);
}

/* NDSL's edge and interior subtile extents of n points over count ranks
   (_subtile_extents_from_tile_metadata): 0 when NDSL raises ValueError. */
static int hst__tile_split(size_t n, size_t count, int horizontal, double ratio, size_t *edge,
                           size_t *interior)
{
    long start, top, index, offset = 0, factor = -1, k, len, e;
    if (count % 2 == 0 && n % 2 == 1) return 0;
    if (count < 3 || !horizontal) {
        *edge = *interior = n / count;
        return 1;
    }
    if (n > (size_t)LONG_MAX / 4) return 0;
    start = hst__tile_round((double)n / (2.0 + (double)(count - 2) / ratio));
    top = (long)((double)((long)n - (long)count + 2) / 2.0) + 1;
    len = top > 1 ? top - 1 : 0;
    /* the sizes in NDSL's order: start, counting down to 1, then up from start */
    for (k = 0; k < len + 1; ++k) {
        index = start + factor * offset;
        e = index;
        ++offset;
        if (index == 1) { offset = 0; factor = 1; }
        if (e < 1 || e >= top) continue;   /* a size tried twice fails twice: no dedup */
        {
            double r = (double)e / ((double)((long)n - 2 * e) / (double)(count - 2));
            long in = (long)((double)e / r);
            if (e * 2 + (long)(count - 2) * in == (long)n) {
                *edge = (size_t)e;
                *interior = (size_t)in;
                return 1;
            }
        }
    }
    return 0;
}

HST__HDEF hst_result hst_tile_subtile_slice(const hst_tile_partitioner *p, int rank, unsigned ndim,
                                            const hst_halo_dim *dims, const size_t *global_extent,
                                            int overlap, size_t *start, size_t *stop)
{
    size_t j, i;
    unsigned d;
    double ratio;
    hst_result r = hst_tile_subtile_index(p, rank, &j, &i);
    if (r != HST_SUCCESS || ndim == 0 || ndim > HST_HALO_MAX_DIMS || !dims || !global_extent ||
        !start || !stop)
        return HST_ERROR_INVALID_ARGUMENT;
    ratio = p->edge_interior_ratio > 0.0 ? p->edge_interior_ratio : 1.0;
    for (d = 0; d < ndim; ++d) {
        int axis = hst__halo_axis(dims[d]);
        int iface = dims[d] == HST_HALO_DIM_X_INTERFACE || dims[d] == HST_HALO_DIM_Y_INTERFACE ||
                    dims[d] == HST_HALO_DIM_Z_INTERFACE;
        int horizontal = axis == 'x' || axis == 'y';
        size_t count = axis == 'x' ? p->layout[1] : axis == 'y' ? p->layout[0] : 1;
        size_t index = axis == 'x' ? i : axis == 'y' ? j : 0, n, edge, interior, a = 0, z = 0, k;
        if ((int)dims[d] < 0 || (int)dims[d] > (int)HST_HALO_DIM_Z_INTERFACE ||
            global_extent[d] < (size_t)iface)
            return HST_ERROR_INVALID_ARGUMENT;
        n = global_extent[d] - (size_t)iface;
        if (!hst__tile_split(n, count, horizontal, ratio, &edge, &interior))
            return HST_ERROR_INVALID_ARGUMENT;
        if (!horizontal) {
            z = interior + (size_t)iface;
        } else {
            /* subtile k's extent: edge at both ends, interior between */
            for (k = 0; k <= index; ++k) {
                a = z;
                z += (k == 0 || k == count - 1) ? edge : interior;
            }
            if (iface && (overlap || index == count - 1)) ++z;
        }
        start[d] = a;
        stop[d] = z;
    }
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_tile_subtile_extent(const hst_tile_partitioner *p, int rank, unsigned ndim,
                                             const hst_halo_dim *dims, const size_t *global_extent,
                                             size_t *extent)
{
    size_t a[HST_HALO_MAX_DIMS], z[HST_HALO_MAX_DIMS];
    unsigned d;
    hst_result r;
    if (!extent) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst_tile_subtile_slice(p, rank, ndim, dims, global_extent, 1, a, z)) != HST_SUCCESS)
        return r;
    for (d = 0; d < ndim; ++d) extent[d] = z[d] - a[d];
    return HST_SUCCESS;
}

/* >>cubed sphere ----------------------------------------------------------------------------- */
HST__HDEF hst_result hst_cubed_sphere_neighbor_of(size_t layout, int rank, hst_halo_boundary b,
                                                  hst_halo_neighbor *out)
{
    hst_tile_partitioner tp;
    long L = (long)layout, per = L * L, t, i, j, tn, in, jn;
    size_t sj, si;
    int dx, dy, out_x, out_y;
    unsigned r = 0;
    if (!out || layout == 0 || layout > 18918 || rank < 0 || (long)rank >= 6 * per ||
        (int)b < 0 || (int)b >= 8)
        return HST_ERROR_INVALID_ARGUMENT;   /* 6 * 18918^2 < 2^31 */
    tp.layout[0] = tp.layout[1] = layout;
    tp.edge_interior_ratio = 0.0;
    if (hst_tile_subtile_index(&tp, rank, &sj, &si) != HST_SUCCESS) return HST_ERROR_INVALID_ARGUMENT;
    t = rank / per;
    dx = hst__halo_side[b][0];
    dy = hst__halo_side[b][1];
    i = (long)si + dx;
    j = (long)sj + dy;
    out_x = i < 0 || i >= L;
    out_y = j < 0 || j >= L;
    out->rank = -1;
    out->rotation = 0;
    out->boundary = hst_halo_opposite(b, 0);
    if (out_x && out_y) return HST_SUCCESS;          /* a cube vertex: three tiles meet */
    tn = t; in = i; jn = j;
    if (out_x && i < 0) {
        if (t % 2 == 0) { tn = (t + 4) % 6; r = 1; in = L - 1 - j; jn = L + i; }
        else { tn = t - 1; in = L + i; }
    } else if (out_x) {
        if (t % 2 == 0) { tn = t + 1; in = i - L; }
        else { tn = (t + 2) % 6; r = 1; in = L - 1 - j; jn = i - L; }
    } else if (out_y && j >= L) {
        if (t % 2 == 0) { tn = (t + 2) % 6; r = 3; in = j - L; jn = L - 1 - i; }
        else { tn = (t + 1) % 6; jn = j - L; }
    } else if (out_y) {
        if (t % 2 == 0) { tn = (t + 5) % 6; jn = L + j; }
        else { tn = (t + 4) % 6; r = 3; in = L + j; jn = L - 1 - i; }
    }
    out->rank = (int)(tn * per + jn * L + in);
    out->rotation = r;
    out->boundary = hst_halo_opposite(b, r);
    return HST_SUCCESS;
}

/* A partition's neighbour function and its parameters. */
typedef struct hst__halo_partition {
    const hst_tile_partitioner *tile;   /* NULL: the cubed sphere of `layout` */
    size_t layout;
} hst__halo_partition;

static hst_result hst__halo_neighbor(const hst__halo_partition *pt, int rank, hst_halo_boundary b,
                                     hst_halo_neighbor *out)
{
    return pt->tile ? hst_tile_neighbor_of(pt->tile, rank, b, out)
                    : hst_cubed_sphere_neighbor_of(pt->layout, rank, b, out);
}

static hst_result hst__halo_partition_specs(const hst__halo_partition *pt, int rank,
                                            size_t num_fields, const hst_halo_field *fields,
                                            const hst_halo_layout *layouts, hst_halo_spec *specs,
                                            size_t *num_specs, hst_halo_neighbor *peers,
                                            hst_halo_boundary *peer_boundaries, size_t *num_peers)
{
    size_t np = 0, ns = 0, f;
    int b;
    hst_result r;
    if ((num_fields && (!fields || !layouts)) || !specs || !num_specs || !num_peers)
        return HST_ERROR_INVALID_ARGUMENT;
    for (b = 0; b < 8; ++b) {
        hst_halo_neighbor nb;
        if ((r = hst__halo_neighbor(pt, rank, (hst_halo_boundary)b, &nb)) != HST_SUCCESS) return r;
        if (nb.rank < 0) continue;
        for (f = 0; f < num_fields; ++f) {
            const hst_halo_field *fd = &fields[f];
            r = fd->vector ? hst_halo_spec_vector(&layouts[fd->quantity], fd->quantity,
                                                  &layouts[fd->quantity_y], fd->quantity_y,
                                                  (hst_halo_boundary)b, nb.rotation, np, &specs[ns])
                           : hst_halo_spec_scalar(&layouts[fd->quantity], fd->quantity,
                                                  (hst_halo_boundary)b, nb.rotation, np, &specs[ns]);
            if (r != HST_SUCCESS) return r;
            ++ns;
        }
        if (peers) peers[np] = nb;
        if (peer_boundaries) peer_boundaries[np] = (hst_halo_boundary)b;
        ++np;
    }
    *num_specs = ns;
    *num_peers = np;
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_cubed_sphere_specs(size_t layout, int rank, size_t num_fields,
                                            const hst_halo_field *fields,
                                            const hst_halo_layout *layouts, hst_halo_spec *specs,
                                            size_t *num_specs, hst_halo_neighbor *peers,
                                            hst_halo_boundary *peer_boundaries, size_t *num_peers)
{
    hst__halo_partition pt;
    pt.tile = NULL;
    pt.layout = layout;
    return hst__halo_partition_specs(&pt, rank, num_fields, fields, layouts, specs, num_specs,
                                     peers, peer_boundaries, num_peers);
}

HST__HDEF hst_result hst_tile_specs(const hst_tile_partitioner *p, int rank, size_t num_fields,
                                    const hst_halo_field *fields, const hst_halo_layout *layouts,
                                    hst_halo_spec *specs, size_t *num_specs, hst_halo_neighbor *peers,
                                    hst_halo_boundary *peer_boundaries, size_t *num_peers)
{
    hst__halo_partition pt;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    pt.tile = p;
    pt.layout = 0;
    return hst__halo_partition_specs(&pt, rank, num_fields, fields, layouts, specs, num_specs,
                                     peers, peer_boundaries, num_peers);
}

/* >>vector interfaces ------------------------------------------------------------------------ */
/* The edge strip of a C-grid component: along dimension `cut` (its interface dim) the single
   point at the compute domain's first (last = 0) or last (last = 1) index; every other
   dimension its compute range. 0 when the compute range is empty. */
static int hst__halo_edge_strip(const hst_halo_layout *l, int cut, int last, hst_halo_region *out)
{
    unsigned d;
    memset(out, 0, sizeof *out);
    for (d = 0; d < l->ndim; ++d) {
        if (l->extent[d] == 0) return 0;
        out->start[d] = l->origin[d];
        out->stop[d] = l->origin[d] + l->extent[d];
    }
    if (last) out->start[cut] = out->stop[cut] - 1;
    else out->stop[cut] = out->start[cut] + 1;
    return 1;
}

static int hst__halo_has_role(const hst_halo_layout *l, hst_halo_dim role)
{
    unsigned d;
    for (d = 0; d < l->ndim; ++d)
        if (l->dims[d] == role) return 1;
    return 0;
}

/* Peer 0: x's south edge to the south neighbour, x's north edge from the north one; peer 1:
   y's west edge to the west neighbour, y's east edge from the east one (NDSL's
   VectorInterfaceHaloUpdater). */
static hst_result hst__halo_interface_specs(const hst__halo_partition *pt, int rank,
                                            const hst_halo_layout *lx, size_t qx,
                                            const hst_halo_layout *ly, size_t qy,
                                            hst_halo_spec specs[2], hst_halo_route routes[2])
{
    static const hst_halo_boundary send_b[2] = {HST_HALO_SOUTH, HST_HALO_WEST};
    static const hst_halo_boundary recv_b[2] = {HST_HALO_NORTH, HST_HALO_EAST};
    size_t st[4], bytes;
    int c;
    if (!lx || !ly || !specs || !routes || !hst__halo_has_role(lx, HST_HALO_DIM_X) ||
        !hst__halo_has_role(lx, HST_HALO_DIM_Y_INTERFACE) || !hst__halo_has_role(ly, HST_HALO_DIM_Y) ||
        !hst__halo_has_role(ly, HST_HALO_DIM_X_INTERFACE) ||
        hst__halo_layout_check(lx, st, &bytes, NULL, 0) != HST_SUCCESS ||
        hst__halo_layout_check(ly, st, &bytes, NULL, 0) != HST_SUCCESS)
        return HST_ERROR_INVALID_ARGUMENT;
    for (c = 0; c < 2; ++c) {
        const hst_halo_layout *l = c ? ly : lx;
        hst_halo_neighbor to, from;
        hst_halo_spec *s = &specs[c];
        int cut = hst__halo_find_axis(l, c ? 'x' : 'y');
        hst_result r;
        if ((r = hst__halo_neighbor(pt, rank, send_b[c], &to)) != HST_SUCCESS ||
            (r = hst__halo_neighbor(pt, rank, recv_b[c], &from)) != HST_SUCCESS)
            return r;
        memset(s, 0, sizeof *s);
        s->quantity = c ? qy : qx;
        s->rotation = to.rotation;
        s->peer = (size_t)c;
        /* as the vector rules: x changes sign for rotations 2 and 3, y for 1 and 2 */
        s->negate = c ? (to.rotation == 1 || to.rotation == 2) : (to.rotation == 2 || to.rotation == 3);
        if (!hst__halo_edge_strip(l, cut, 0, &s->pack) || !hst__halo_edge_strip(l, cut, 1, &s->unpack))
            return HST_ERROR_INVALID_ARGUMENT;
        routes[c].send_rank = to.rank;
        routes[c].send_tag = (int)send_b[c];
        routes[c].recv_rank = from.rank;
        routes[c].recv_tag = (int)from.boundary;
    }
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_cubed_sphere_vector_interface_specs(size_t layout, int rank,
                                                             const hst_halo_layout *lx, size_t qx,
                                                             const hst_halo_layout *ly, size_t qy,
                                                             hst_halo_spec specs[2],
                                                             hst_halo_route routes[2])
{
    hst__halo_partition pt;
    pt.tile = NULL;
    pt.layout = layout;
    return hst__halo_interface_specs(&pt, rank, lx, qx, ly, qy, specs, routes);
}

HST__HDEF hst_result hst_tile_vector_interface_specs(const hst_tile_partitioner *p, int rank,
                                                     const hst_halo_layout *lx, size_t qx,
                                                     const hst_halo_layout *ly, size_t qy,
                                                     hst_halo_spec specs[2], hst_halo_route routes[2])
{
    hst__halo_partition pt;
    if (!p) return HST_ERROR_INVALID_ARGUMENT;
    pt.tile = p;
    pt.layout = 0;
    return hst__halo_interface_specs(&pt, rank, lx, qx, ly, qy, specs, routes);
}

/* >>mpi -------------------------------------------------------------------------------------- */
#ifdef HST_HALO_MPI
struct hst_halo_exchanger {
    hst_halo_plan *plan;
    MPI_Comm comm;             /* a private duplicate: tags cannot collide with other traffic */
    int me;
    size_t n, nsend, nrecv;    /* plan peers; messages sent and received through MPI */
    hst_halo_mpi_peer *peers;
    size_t *send_peer, *recv_peer;   /* message i's plan peer (sends, receives) */
    size_t *self_src;          /* per peer: the plan peer whose send segment it receives (self) */
    MPI_Request *sreq, *rreq;  /* nsend, nrecv */
    unsigned char *send, *recv;   /* host mirrors */
    hst_event *ups;            /* the last finish's upload events (n at most): they read the
                                  receive mirror, which the next start hands back to MPI */
    size_t nups;
};

/* Waits for (and releases) the last finish's uploads. They copy the receive mirror to the
   device asynchronously, so the mirror is theirs until they complete: a start that posted its
   receives sooner would let a neighbour's next message land in the mirror while an upload of
   this step still reads it, and that upload would deliver the next step's halo. */
static hst_result hst__halo_uploads_done(hst_halo_exchanger *ex)
{
    hst_result r = hst_event_wait(ex->nups, ex->ups);
    size_t i;
    for (i = 0; i < ex->nups; ++i) { hst_event_release(ex->ups[i]); ex->ups[i] = NULL; }
    ex->nups = 0;
    return r;
}

HST__HDEF void hst_halo_exchanger_destroy(hst_halo_exchanger *ex)
{
    size_t i;
    if (!ex) return;
    (void)hst__halo_uploads_done(ex);   /* a void destroy has no one to tell */
    for (i = 0; i < ex->nsend; ++i)
        if (ex->sreq && ex->sreq[i] != MPI_REQUEST_NULL) MPI_Request_free(&ex->sreq[i]);
    for (i = 0; i < ex->nrecv; ++i)
        if (ex->rreq && ex->rreq[i] != MPI_REQUEST_NULL) MPI_Request_free(&ex->rreq[i]);
    if (ex->comm != MPI_COMM_NULL) MPI_Comm_free(&ex->comm);
    hst_backend_free(ex->plan->be, ex->peers); hst_backend_free(ex->plan->be, ex->send_peer);
    hst_backend_free(ex->plan->be, ex->recv_peer);
    hst_backend_free(ex->plan->be, ex->self_src); hst_backend_free(ex->plan->be, ex->sreq);
    hst_backend_free(ex->plan->be, ex->rreq); hst_backend_free(ex->plan->be, ex->ups);
    hst_backend_free(ex->plan->be, ex);
}

HST__HDEF hst_result hst_halo_exchanger_create(hst_halo_plan *plan, MPI_Comm comm,
                                               const hst_halo_mpi_peer *peers,
                                               hst_halo_exchanger **out)
{
    static const char F[] = "hst_halo_exchanger_create";
    hst_halo_exchanger *ex;
    uint64_t *mine = NULL, *theirs = NULL;
    MPI_Request *hs = NULL;
    size_t i, j, m;
    hst_result r = HST_SUCCESS;
    void *sm = NULL, *rm = NULL;
    if (out) *out = NULL;
    if (!plan || !peers || !out)
        return plan ? hst__null_arg(plan->be, F,
                                     "%s is NULL", !peers ? "peers" : "out")
                    : HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst_halo_plan_mirrors(plan, &sm, &rm)) != HST_SUCCESS) return r;
    ex = (hst_halo_exchanger *)hst__halo_calloc(plan->be, 1, sizeof *ex);
    if (!ex) return hst_backend_fail(plan->be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                                     F, "host allocation failed");
    ex->comm = MPI_COMM_NULL;
    ex->plan = plan;
    ex->n = plan->npeers;
    ex->send = (unsigned char *)sm;
    ex->recv = (unsigned char *)rm;
    ex->peers = (hst_halo_mpi_peer *)hst__halo_calloc(plan->be, ex->n, sizeof *ex->peers);
    ex->send_peer = (size_t *)hst__halo_calloc(plan->be, ex->n, sizeof(size_t));
    ex->recv_peer = (size_t *)hst__halo_calloc(plan->be, ex->n, sizeof(size_t));
    ex->self_src = (size_t *)hst__halo_calloc(plan->be, ex->n, sizeof(size_t));
    ex->sreq = (MPI_Request *)hst__halo_calloc(plan->be, ex->n, sizeof(MPI_Request));
    ex->rreq = (MPI_Request *)hst__halo_calloc(plan->be, ex->n, sizeof(MPI_Request));
    ex->ups = (hst_event *)hst__halo_calloc(plan->be, ex->n, sizeof(hst_event));
    mine = (uint64_t *)hst__halo_calloc(plan->be, ex->n, sizeof(uint64_t));
    theirs = (uint64_t *)hst__halo_calloc(plan->be, ex->n, sizeof(uint64_t));
    hs = (MPI_Request *)hst__halo_calloc(plan->be, 2 * ex->n, sizeof(MPI_Request));
    if (!ex->peers || !ex->send_peer || !ex->recv_peer || !ex->self_src || !ex->sreq || !ex->rreq || !ex->ups ||
        !mine || !theirs || !hs) {
        r = hst_backend_fail(plan->be, HST_ERROR_OUT_OF_HOST_MEMORY, HST_LOGITEM_OUT_OF_HOST_MEMORY,
                             F,
                             "host allocation failed");
        goto done;
    }
    for (i = 0; i < ex->n; ++i) ex->sreq[i] = ex->rreq[i] = MPI_REQUEST_NULL;
    memcpy(ex->peers, peers, ex->n * sizeof *peers);
    MPI_Comm_dup(comm, &ex->comm);
    MPI_Comm_rank(ex->comm, &ex->me);
    /* pair same-process receives with the sends of the same tag; list the messages */
    for (i = 0; i < ex->n; ++i) {
        ex->self_src[i] = SIZE_MAX;
        if (peers[i].send_rank != ex->me) ex->send_peer[ex->nsend++] = i;
        if (peers[i].recv_rank != ex->me) { ex->recv_peer[ex->nrecv++] = i; continue; }
        for (j = 0; j < ex->n; ++j)
            if (peers[j].send_rank == ex->me && peers[j].send_tag == peers[i].recv_tag) break;
        if (j == ex->n) {
            r = hst__bad_arg(plan->be, F,
                               "peer %zu receives from this rank, but no peer sends to it "
                               "with tag %d", i, peers[i].recv_tag);
            goto done;
        }
        ex->self_src[i] = j;
    }
    /* handshake: every message's size against what the peer expects (collective over peers) */
    for (i = 0; i < ex->nrecv; ++i) {
        size_t p = ex->recv_peer[i];
        MPI_Irecv(&theirs[i], 1, MPI_UINT64_T, peers[p].recv_rank, peers[p].recv_tag, ex->comm, &hs[i]);
    }
    for (i = 0; i < ex->nsend; ++i) {
        size_t p = ex->send_peer[i];
        mine[i] = (uint64_t)plan->peer[4 * p + 1];
        MPI_Isend(&mine[i], 1, MPI_UINT64_T, peers[p].send_rank, peers[p].send_tag, ex->comm,
                  &hs[ex->nrecv + i]);
    }
    MPI_Waitall((int)(ex->nrecv + ex->nsend), hs, MPI_STATUSES_IGNORE);
    for (i = 0, m = 0; i < ex->n && r == HST_SUCCESS; ++i) {
        size_t got, want = plan->peer[4 * i + 3];
        got = ex->self_src[i] != SIZE_MAX ? plan->peer[4 * ex->self_src[i] + 1] : (size_t)theirs[m++];
        if (got != want)
            r = hst_backend_fail(plan->be, HST_ERROR_SHAPE, HST_LOGITEM_SHAPE_MISMATCH, F,
                               "peer %zu (rank %d) sends %zu bytes, this plan unpacks %zu", i,
                               peers[i].recv_rank, got, want);
        if (want > (size_t)INT_MAX || plan->peer[4 * i + 1] > (size_t)INT_MAX)
            r = hst_backend_fail(plan->be, HST_ERROR_OVERFLOW, HST_LOGITEM_SIZE_OVERFLOW, F,
                               "peer %zu's message exceeds INT_MAX bytes", i);
    }
    if (r != HST_SUCCESS) goto done;
    for (i = 0; i < ex->nsend; ++i) {
        size_t p = ex->send_peer[i];
        MPI_Send_init(ex->send + plan->peer[4 * p], (int)plan->peer[4 * p + 1], MPI_BYTE,
                      peers[p].send_rank, peers[p].send_tag, ex->comm, &ex->sreq[i]);
    }
    for (i = 0; i < ex->nrecv; ++i) {
        size_t p = ex->recv_peer[i];
        MPI_Recv_init(ex->recv + plan->peer[4 * p + 2], (int)plan->peer[4 * p + 3], MPI_BYTE,
                      peers[p].recv_rank, peers[p].recv_tag, ex->comm, &ex->rreq[i]);
    }
done:
    hst_backend_free(plan->be, mine); hst_backend_free(plan->be, theirs); hst_backend_free(plan->be, hs);
    if (r != HST_SUCCESS) { hst_halo_exchanger_destroy(ex); return r; }
    *out = ex;
    return HST_SUCCESS;
}

static void hst__halo_self_copies(hst_halo_exchanger *ex)
{
    size_t i;
    for (i = 0; i < ex->n; ++i)
        if (ex->self_src[i] != SIZE_MAX)
            memcpy(ex->recv + ex->plan->peer[4 * i + 2],
                   ex->send + ex->plan->peer[4 * ex->self_src[i]], ex->plan->peer[4 * i + 3]);
}

HST__HDEF hst_result hst_halo_exchange_start(hst_halo_exchanger *ex, hst_queue *q, size_t n,
                                             hst_buffer *const *quantities,
                                             size_t num_wait, const hst_event *wait)
{
    hst_event e1 = NULL, e2 = NULL;
    hst_result r;
    if (!ex) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst__halo_uploads_done(ex)) != HST_SUCCESS) return r;
    if (ex->nrecv) MPI_Startall((int)ex->nrecv, ex->rreq);
    r = hst_halo_pack(ex->plan, q, n, quantities, num_wait, wait, &e1);
    if (r == HST_SUCCESS)
        r = hst_halo_download(ex->plan, q, HST_HALO_ALL_PEERS, e1 ? 1 : 0, &e1, &e2);
    if (r == HST_SUCCESS) r = hst_event_wait(1, &e2);
    hst_event_release(e1);
    hst_event_release(e2);
    if (r != HST_SUCCESS) {   /* the posted receives must not dangle */
        size_t i;
        for (i = 0; i < ex->nrecv; ++i) { MPI_Cancel(&ex->rreq[i]); MPI_Wait(&ex->rreq[i], MPI_STATUS_IGNORE); }
        return r;
    }
    hst__halo_self_copies(ex);
    if (ex->nsend) MPI_Startall((int)ex->nsend, ex->sreq);
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_exchange_finish(hst_halo_exchanger *ex, hst_queue *q, size_t n,
                                              hst_buffer *const *quantities, hst_event *out)
{
    size_t i;
    hst_result r;
    hst_event prev;   /* the plan's last unpack reads the device receive buffer the uploads
                         overwrite: on another queue, nothing else orders them after it */
    if (out) *out = NULL;
    if (!ex) return HST_ERROR_INVALID_ARGUMENT;
    prev = ex->plan->last_unpack;
    r = hst__halo_uploads_done(ex);   /* none unless finish came twice without a start */
    for (i = 0; i < ex->n; ++i)      /* same-process segments are already in the mirror */
        if (ex->self_src[i] != SIZE_MAX && r == HST_SUCCESS)
            r = hst_halo_upload(ex->plan, q, i, prev ? 1 : 0, &prev, &ex->ups[ex->nups++]);
    for (i = 0; i < ex->nrecv; ++i) {   /* upload each message as it arrives */
        int idx = MPI_UNDEFINED;
        MPI_Waitany((int)ex->nrecv, ex->rreq, &idx, MPI_STATUS_IGNORE);
        if (idx != MPI_UNDEFINED && r == HST_SUCCESS)
            r = hst_halo_upload(ex->plan, q, ex->recv_peer[idx], prev ? 1 : 0, &prev,
                                &ex->ups[ex->nups++]);
    }
    /* the uploads are kept until the next start (hst__halo_uploads_done) */
    if (r == HST_SUCCESS) r = hst_halo_unpack(ex->plan, q, n, quantities, ex->nups, ex->ups, out);
    if (ex->nsend) MPI_Waitall((int)ex->nsend, ex->sreq, MPI_STATUSES_IGNORE);
    return r;
}

HST__HDEF hst_result hst_halo_exchange_start_host(hst_halo_exchanger *ex, size_t n,
                                                  void *const *quantities, const size_t *bytes)
{
    hst_result r;
    if (!ex) return HST_ERROR_INVALID_ARGUMENT;
    if ((r = hst__halo_uploads_done(ex)) != HST_SUCCESS ||   /* after a device path's finish */
        (r = hst_halo_pack_host(ex->plan, n, quantities, bytes, ex->send)) != HST_SUCCESS)
        return r;
    if (ex->nrecv) MPI_Startall((int)ex->nrecv, ex->rreq);
    hst__halo_self_copies(ex);
    if (ex->nsend) MPI_Startall((int)ex->nsend, ex->sreq);
    return HST_SUCCESS;
}

HST__HDEF hst_result hst_halo_exchange_finish_host(hst_halo_exchanger *ex, size_t n,
                                                   void *const *quantities, const size_t *bytes)
{
    hst_result r;
    if (!ex) return HST_ERROR_INVALID_ARGUMENT;
    if (ex->nrecv) MPI_Waitall((int)ex->nrecv, ex->rreq, MPI_STATUSES_IGNORE);
    r = hst_halo_unpack_host(ex->plan, n, quantities, bytes, ex->recv);
    if (ex->nsend) MPI_Waitall((int)ex->nsend, ex->sreq, MPI_STATUSES_IGNORE);
    return r;
}
#endif /* HST_HALO_MPI */

#ifdef __cplusplus
}
#endif

#endif /* HST_HALO_IMPLEMENTATION */

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
