/* tests/test_halo.c — halo.h: NDSL regions, rotated pack -> unpack round trips for every
   rotation, dimension order, interface dims, halo widths 1 and 3, padding 0 and 1, scalars and
   vectors, checked cell by cell against an independent host reference written from
   REFERENCE.md section 5; host path and device bytes identical; one launch per pack and per
   unpack; a whole cubed sphere (6 tiles of 2 x 2 ranks) exchanged in one process with a unique
   value per (tile, i, j, k, component); the partitioner's symmetry; NDSL's TilePartitioner
   (neighbours of several layouts, subtile slices and extents against values NDSL's own code
   gives), doubly periodic tiles exchanged in one process, the one flat buffer (opposite
   pairing), boundaries cutting a dim the layout lacks (packed as NDSL), the vector-interface
   sync (NDSL's worked values); the RUNS device variant bit-equal to the fused one and the host
   path; every error path by result code and log item.

   Runs once per device (HST_DEVICE picks); in HST_NO_OPENCL builds on the host device. */
#define _POSIX_C_SOURCE 200112L   /* setenv: HST_FORCE for the device variants */
#define HST_IMPLEMENTATION
#include "halo.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

/* ---- capturing logger --------------------------------------------------------------------- */
#include "cap_log.h"

#define assert_result_logged(r, code, log, item) do {                                         \
        assert_int_equal((r), (code));                                                        \
        assert_int_equal((log)->last_item, (item));                                           \
        assert_true((log)->counts[(item)] >= 1);                                              \
    } while (0)

/* one backend on the device under test, its log captured (at WARN) into the same cap_log the
   plans log to; reset_log empties it before each test */
#include "be_fixture.h"

#define FIX(state) ((fixture *)*(state))

/* a plan desc; the plan logs through the backend's logger (the fixture's cap_log) */
static hst_halo_plan_desc plan_desc(size_t nq, const hst_halo_layout *l, size_t ns,
                                    const hst_halo_spec *s, size_t npeers)
{
    hst_halo_plan_desc d;
    memset(&d, 0, sizeof d);
    d.num_quantities = nq;
    d.layouts = l;
    d.num_specs = ns;
    d.specs = s;
    d.num_peers = npeers;
    return d;
}

/* ---- independent reference (REFERENCE.md section 5) ---------------------------------------- */
static void ref_strides(const hst_halo_layout *l, size_t st[4])
{
    int d;
    if (l->strides[0] || (l->ndim > 1 && l->strides[1])) {
        for (d = 0; d < 4; d++) st[d] = l->strides[d];
        return;
    }
    st[l->ndim - 1] = 1;
    for (d = (int)l->ndim - 2; d >= 0; d--) st[d] = st[d + 1] * l->shape[d + 1];
}

static size_t ref_bytes(const hst_halo_layout *l)
{
    size_t st[4], e = 1;
    unsigned d;
    ref_strides(l, st);
    for (d = 0; d < l->ndim; d++) e += (l->shape[d] - 1) * st[d];
    return e * l->elem_bytes;
}

static int ref_pos(const hst_halo_layout *l, char axis)
{
    unsigned d;
    for (d = 0; d < l->ndim; d++) {
        hst_halo_dim r = l->dims[d];
        if (axis == 'x' && (r == HST_HALO_DIM_X || r == HST_HALO_DIM_X_INTERFACE)) return (int)d;
        if (axis == 'y' && (r == HST_HALO_DIM_Y || r == HST_HALO_DIM_Y_INTERFACE)) return (int)d;
    }
    return -1;
}

/* NDSL's regions: edges without corners, n x n corners; ov = 1 on interface dims. */
static void ref_region(const hst_halo_layout *l, int b, int recv, hst_halo_region *out)
{
    /* W E N S NW NE SW SE: x side, y side (-1 low, +1 high) */
    static const int xs[8] = {-1, 1, 0, 0, -1, 1, -1, 1}, ys[8] = {0, 0, 1, -1, 1, 1, -1, -1};
    unsigned d;
    memset(out, 0, sizeof *out);
    for (d = 0; d < l->ndim; d++) {
        long o = (long)l->origin[d], e = o + (long)l->extent[d], n = (long)l->n_halo;
        long ov = (l->dims[d] == HST_HALO_DIM_X_INTERFACE || l->dims[d] == HST_HALO_DIM_Y_INTERFACE);
        int side = 0;
        if ((int)d == ref_pos(l, 'x')) side = xs[b];
        if ((int)d == ref_pos(l, 'y')) side = ys[b];
        if (side == 0) { out->start[d] = (size_t)o; out->stop[d] = (size_t)e; }
        else if (side < 0 && !recv) { out->start[d] = (size_t)(o + ov); out->stop[d] = (size_t)(o + ov + n); }
        else if (side < 0) { out->start[d] = (size_t)(o - n); out->stop[d] = (size_t)o; }
        else if (!recv) { out->start[d] = (size_t)(e - ov - n); out->stop[d] = (size_t)(e - ov); }
        else { out->start[d] = (size_t)e; out->stop[d] = (size_t)(e + n); }
    }
}

/* Negation of one element, written from its bytes (little-endian): float flips the top bit of
   the last byte; int subtracts from zero byte by byte with borrow. */
static void ref_negate(unsigned char *p, size_t es, hst_halo_number number)
{
    size_t i;
    if (number == HST_HALO_FLOAT) { p[es - 1] ^= 0x80; return; }
    {
        unsigned borrow = 0;
        for (i = 0; i < es; i++) {
            unsigned v = 0u - (unsigned)p[i] - borrow;
            borrow = ((unsigned)p[i] + borrow) != 0;
            p[i] = (unsigned char)v;
        }
    }
}

typedef struct buf { unsigned char *p; size_t n, cap; } buf;

static void buf_put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (unsigned char *)realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

/* Appends region reg of quantity q (layout l), counter-rotated by r using the x layout's
   horizontal dims (lr), in C order over T's index, possibly negated. */
static void ref_pack_component(buf *out, const hst_halo_layout *lr, const hst_halo_layout *l,
                               const unsigned char *q, const hst_halo_region *reg, unsigned r,
                               int negate)
{
    size_t st[4], S[4] = {1, 1, 1, 1}, T[4] = {1, 1, 1, 1}, t[4], s[4], total = 1, idx, k;
    int px = ref_pos(lr, 'x'), py = ref_pos(lr, 'y');
    unsigned d, nd = l->ndim;
    unsigned char el[16];
    ref_strides(l, st);
    for (d = 0; d < nd; d++) { S[d] = reg->stop[d] - reg->start[d]; T[d] = S[d]; total *= S[d]; }
    r &= 3;
    if (px >= 0 && py >= 0 && (r & 1)) { T[px] = S[py]; T[py] = S[px]; }
    for (idx = 0; idx < total; idx++) {
        size_t rem = idx, off = 0;
        for (d = nd; d-- > 0;) { t[d] = rem % T[d]; rem /= T[d]; }
        for (d = 0; d < nd; d++) s[d] = t[d];
        if (px >= 0 && py >= 0) {
            size_t a = t[px], b = t[py], nx = S[px], ny = S[py];
            if (r == 1) { s[px] = b; s[py] = ny - 1 - a; }
            if (r == 2) { s[px] = nx - 1 - a; s[py] = ny - 1 - b; }
            if (r == 3) { s[px] = nx - 1 - b; s[py] = a; }
        } else if (px >= 0) {
            if (r == 2 || r == 3) s[px] = S[px] - 1 - t[px];
        } else if (py >= 0) {
            if (r == 1 || r == 2) s[py] = S[py] - 1 - t[py];
        }
        for (d = 0; d < nd; d++) off += (reg->start[d] + s[d]) * st[d];
        for (k = 0; k < l->elem_bytes; k++) el[k] = q[off * l->elem_bytes + k];
        if (negate) ref_negate(el, l->elem_bytes, l->number);
        buf_put(out, el, l->elem_bytes);
    }
}

/* The NDSL buffer of one peer. */
static void ref_pack_peer(buf *out, const hst_halo_layout *ls, const hst_halo_spec *specs,
                          size_t ns, size_t peer, unsigned char *const *qs)
{
    size_t i;
    for (i = 0; i < ns; i++) {
        const hst_halo_spec *s = &specs[i];
        unsigned r = s->rotation & 3;
        const hst_halo_layout *lx = &ls[s->quantity];
        if (s->peer != peer) continue;
        if (!s->vector) {
            ref_pack_component(out, lx, lx, qs[s->quantity], &s->pack, r, 0);
            continue;
        }
        {
            const hst_halo_layout *ly = &ls[s->quantity_y];
            const unsigned char *qx = qs[s->quantity], *qy = qs[s->quantity_y];
            /* r=0: x', y'; r=1: -y', x'; r=2: -x', -y'; r=3: y', -x' */
            if (r == 0) { ref_pack_component(out, lx, lx, qx, &s->pack, r, 0);
                          ref_pack_component(out, lx, ly, qy, &s->pack_y, r, 0); }
            if (r == 1) { ref_pack_component(out, lx, ly, qy, &s->pack_y, r, 1);
                          ref_pack_component(out, lx, lx, qx, &s->pack, r, 0); }
            if (r == 2) { ref_pack_component(out, lx, lx, qx, &s->pack, r, 1);
                          ref_pack_component(out, lx, ly, qy, &s->pack_y, r, 1); }
            if (r == 3) { ref_pack_component(out, lx, ly, qy, &s->pack_y, r, 0);
                          ref_pack_component(out, lx, lx, qx, &s->pack, r, 1); }
        }
    }
}

/* Reads a peer's buffer into the unpack regions, C order, x slot then y slot. */
static size_t ref_unpack_region(const unsigned char *src, const hst_halo_layout *l,
                                unsigned char *q, const hst_halo_region *reg)
{
    size_t st[4], S[4] = {1, 1, 1, 1}, total = 1, idx;
    unsigned d, nd = l->ndim;
    ref_strides(l, st);
    for (d = 0; d < nd; d++) { S[d] = reg->stop[d] - reg->start[d]; total *= S[d]; }
    for (idx = 0; idx < total; idx++) {
        size_t rem = idx, off = 0;
        for (d = nd; d-- > 0;) { off += (reg->start[d] + rem % S[d]) * st[d]; rem /= S[d]; }
        memcpy(q + off * l->elem_bytes, src + idx * l->elem_bytes, l->elem_bytes);
    }
    return total * l->elem_bytes;
}

static void ref_unpack_peer(const unsigned char *src, const hst_halo_layout *ls,
                            const hst_halo_spec *specs, size_t ns, size_t peer,
                            unsigned char *const *qs)
{
    size_t i;
    for (i = 0; i < ns; i++) {
        const hst_halo_spec *s = &specs[i];
        if (s->peer != peer) continue;
        src += ref_unpack_region(src, &ls[s->quantity], qs[s->quantity], &s->unpack);
        if (s->vector)
            src += ref_unpack_region(src, &ls[s->quantity_y], qs[s->quantity_y], &s->unpack_y);
    }
}

static uint64_t rng_state;
static unsigned char rng_byte(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned char)(rng_state >> 56);
}

/* ---- a configurable case ------------------------------------------------------------------- */
enum { ORDER_ZYX, ORDER_YX, ORDER_XYZ, ORDER_XZY, ORDER_ZX, ORDER_Y, ORDER_COUNT };

/* role of the x dim, of the y dim */
static hst_halo_layout make_layout(int order, hst_halo_dim xr, hst_halo_dim yr, size_t n,
                                   size_t pad, size_t es, hst_halo_number number)
{
    static const char orders[ORDER_COUNT][4] = {"zyx", "yx", "xyz", "xzy", "zx", "y"};
    const size_t nx = 5, ny = 4, nz = 3;
    hst_halo_layout l;
    unsigned d;
    memset(&l, 0, sizeof l);
    l.ndim = (unsigned)strlen(orders[order]);
    l.elem_bytes = es;
    l.number = number;
    l.n_halo = n;
    for (d = 0; d < l.ndim; d++) {
        char a = orders[order][d];
        if (a == 'z') {
            l.dims[d] = HST_HALO_DIM_Z; l.origin[d] = 0; l.extent[d] = nz; l.shape[d] = nz + pad;
        } else {
            hst_halo_dim role = a == 'x' ? xr : yr;
            size_t ext = (a == 'x' ? nx : ny) +
                         (role == HST_HALO_DIM_X_INTERFACE || role == HST_HALO_DIM_Y_INTERFACE);
            l.dims[d] = role; l.origin[d] = n; l.extent[d] = ext; l.shape[d] = ext + 2 * n + pad;
        }
    }
    if (pad) {   /* explicit padded strides: each row one element longer than the shape */
        size_t s = 1;
        for (d = l.ndim; d-- > 0;) { l.strides[d] = s; s *= l.shape[d] + pad; }
    }
    return l;
}

typedef struct hcase {
    size_t nq;
    hst_halo_layout l[2];
    hst_halo_spec specs[8];
    size_t ns, npeers;
} hcase;

/* Specs for every boundary the layout has, one peer each, rotation r. */
static int build_case(hcase *c, int order, int staggered, int vector, size_t n, size_t pad,
                      size_t es, hst_halo_number number, unsigned r)
{
    int b;
    memset(c, 0, sizeof *c);
    if (!vector) {
        c->nq = 1;
        c->l[0] = make_layout(order, staggered ? HST_HALO_DIM_X_INTERFACE : HST_HALO_DIM_X,
                              HST_HALO_DIM_Y, n, pad, es, number);
    } else {
        c->nq = 2;   /* D-grid when staggered: u on y_interface, v on x_interface */
        c->l[0] = make_layout(order, HST_HALO_DIM_X, staggered ? HST_HALO_DIM_Y_INTERFACE : HST_HALO_DIM_Y,
                              n, pad, es, number);
        c->l[1] = make_layout(order, staggered ? HST_HALO_DIM_X_INTERFACE : HST_HALO_DIM_X, HST_HALO_DIM_Y,
                              n, pad, es, number);
    }
    for (b = 0; b < 8; b++) {
        hst_halo_spec *s = &c->specs[c->ns];
        hst_result res = vector ? hst_halo_spec_vector(&c->l[0], 0, &c->l[1], 1, (hst_halo_boundary)b,
                                                       r, c->ns, s)
                                : hst_halo_spec_scalar(&c->l[0], 0, (hst_halo_boundary)b, r, c->ns, s);
        /* every boundary, also one cutting a horizontal dim the layout lacks (NDSL packs the
           whole compute range there) */
        assert_int_equal(res, HST_SUCCESS);
        /* the regions agree with the reference's */
        {
            hst_halo_region a, z;
            ref_region(&c->l[0], b, 0, &a);
            ref_region(&c->l[0], b, 1, &z);
            assert_memory_equal(&a, &s->pack, sizeof a);
            assert_memory_equal(&z, &s->unpack, sizeof z);
        }
        c->ns++;
    }
    c->npeers = c->ns;
    return (int)c->ns;
}

/* The host path by measured speed: each implementation (forced), and then the choice itself a
   few times (so that it measures and then picks), packs the host path's bytes and unpacks into
   the reference arrays. */
static void check_host_choose(hst_halo_plan *plan, const hcase *c, unsigned char *const *host,
                              unsigned char *const *ref, const size_t *bytes,
                              const unsigned char *hostb)
{
    const char *force[4] = {"host", "device", NULL, NULL};
    hst_halo_stats st = hst_halo_plan_stats(plan);
    unsigned char *b = (unsigned char *)malloc(st.send_bytes), *q[2] = {NULL, NULL};
    size_t k, i, p;
    int device = !hst_backend_is_host(hst_buffer_backend(hst_halo_plan_send_buffer(plan)));
    for (i = 0; i < c->nq; i++) q[i] = (unsigned char *)malloc(bytes[i]);
    for (k = 0; k < 4; k++) {
        hst_choice_outcome oc;
        if (k == 1 && !device) {   /* the host device has only the host implementation */
            assert_int_equal(hst_halo_pack_host_choose(plan, c->nq, (void *const *)host, bytes, b,
                                                       "device", &oc), HST_ERROR_INVALID_ARGUMENT);
            continue;
        }
        memset(b, 0, st.send_bytes);
        assert_int_equal(hst_halo_pack_host_choose(plan, c->nq, (void *const *)host, bytes, b,
                                                   force[k], &oc), HST_SUCCESS);
        if (force[k]) assert_string_equal(oc.name, force[k]);
        for (p = 0; p < c->npeers; p++) {
            size_t so = 0, sb = 0;   /* set by plan_peer, asserted to succeed */
            assert_int_equal(hst_halo_plan_peer(plan, p, &so, &sb, NULL, NULL), HST_SUCCESS);
            assert_memory_equal(b + so, hostb + so, sb);
        }
        for (i = 0; i < c->nq; i++) memcpy(q[i], host[i], bytes[i]);
        assert_int_equal(hst_halo_unpack_host_choose(plan, c->nq, (void *const *)q, bytes, hostb,
                                                     force[k], &oc), HST_SUCCESS);
        if (force[k]) assert_string_equal(oc.name, force[k]);
        for (i = 0; i < c->nq; i++) assert_memory_equal(q[i], ref[i], bytes[i]);
    }
    for (i = 0; i < c->nq; i++) free(q[i]);
    free(b);
}

/* Runs one case: device pack vs reference (per peer), host pack vs device bytes, then the round
   trip (send -> recv per peer, unpack) vs the reference unpack over the whole arrays. */
static void run_case(fixture *f, hcase *c)
{
    hst_halo_plan_desc d = plan_desc(c->nq, c->l, c->ns, c->specs, c->npeers);
    hst_halo_plan *plan;
    unsigned char *host[2] = {NULL, NULL}, *ref[2] = {NULL, NULL}, *got;
    hst_buffer *dev[2] = {NULL, NULL};
    size_t bytes[2] = {0, 0}, i, p;
    unsigned char *sendb, *hostb;
    hst_halo_stats st;
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    st = hst_halo_plan_stats(plan);
    for (i = 0; i < c->nq; i++) {
        size_t k;
        assert_int_equal(hst_halo_layout_bytes(&c->l[i], &bytes[i]), HST_SUCCESS);
        assert_int_equal(bytes[i], ref_bytes(&c->l[i]));
        host[i] = (unsigned char *)malloc(bytes[i]);
        ref[i] = (unsigned char *)malloc(bytes[i]);
        for (k = 0; k < bytes[i]; k++) host[i][k] = rng_byte();
        memcpy(ref[i], host[i], bytes[i]);
        assert_int_equal(hst_buffer_create(f->be, bytes[i], 0, &dev[i]), HST_SUCCESS);
        assert_int_equal(hst_write(hst_backend_queue(f->be), dev[i], 0, host[i], bytes[i], 1, 0,
                                   NULL, NULL), HST_SUCCESS);
    }
    /* pack: one launch */
    assert_int_equal(hst_halo_pack(plan, NULL, c->nq, dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_synchronize(plan), HST_SUCCESS);
    assert_true(hst_halo_plan_ready(plan));
    assert_int_equal(hst_halo_plan_stats(plan).pack_launches, 1);
    sendb = (unsigned char *)malloc(st.send_bytes);
    hostb = (unsigned char *)malloc(st.send_bytes);
    assert_int_equal(hst_read(hst_backend_queue(f->be), hst_halo_plan_send_buffer(plan), 0, sendb,
                              st.send_bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    for (p = 0; p < c->npeers; p++) {
        buf rb = {NULL, 0, 0};
        size_t so, sb, ro, rbytes;
        assert_int_equal(hst_halo_plan_peer(plan, p, &so, &sb, &ro, &rbytes), HST_SUCCESS);
        ref_pack_peer(&rb, c->l, c->specs, c->ns, p, host);
        assert_int_equal(sb, rb.n);
        assert_int_equal(rbytes, rb.n);     /* symmetric per peer here */
        assert_int_equal(so % HST_HALO_PEER_ALIGN, 0);
        assert_memory_equal(sendb + so, rb.p, rb.n);
        ref_unpack_peer(rb.p, c->l, c->specs, c->ns, p, ref);
        free(rb.p);
    }
    /* host path: same bytes (the padding between peers is not written: compare segments) */
    memset(hostb, 0, st.send_bytes);
    assert_int_equal(hst_halo_pack_host(plan, c->nq, (void *const *)host, bytes, hostb), HST_SUCCESS);
    for (p = 0; p < c->npeers; p++) {
        size_t so = 0, sb = 0;   /* set by plan_peer, asserted to succeed */
        assert_int_equal(hst_halo_plan_peer(plan, p, &so, &sb, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(hostb + so, sendb + so, sb);
    }
    /* round trip on the device: each peer's send segment into its receive segment */
    for (p = 0; p < c->npeers; p++)
        assert_int_equal(hst_halo_copy_peer(plan, p, plan, p, NULL, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack(plan, NULL, c->nq, dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_stats(plan).unpack_launches, 1);
    for (i = 0; i < c->nq; i++) {
        got = (unsigned char *)malloc(bytes[i]);
        assert_int_equal(hst_read(hst_backend_queue(f->be), dev[i], 0, got, bytes[i], 1, 0, NULL,
                                  NULL), HST_SUCCESS);
        assert_memory_equal(got, ref[i], bytes[i]);     /* halos, and nothing else, changed */
        free(got);
    }
    check_host_choose(plan, c, host, ref, bytes, hostb);
    /* host unpack of the host pack gives the same arrays */
    assert_int_equal(hst_halo_unpack_host(plan, c->nq, (void *const *)host, bytes, hostb), HST_SUCCESS);
    for (i = 0; i < c->nq; i++) assert_memory_equal(host[i], ref[i], bytes[i]);
    free(sendb);
    free(hostb);
    for (i = 0; i < c->nq; i++) { free(host[i]); free(ref[i]); hst_buffer_destroy(dev[i]); }
    hst_halo_plan_destroy(plan);
}

/* ============================================================================================ */
static void test_regions(void **state)
{
    hst_halo_layout l = make_layout(ORDER_ZYX, HST_HALO_DIM_X_INTERFACE, HST_HALO_DIM_Y, 3, 0, 4,
                                    HST_HALO_FLOAT);
    hst_halo_region r;
    (void)state;
    /* x_interface: origin 3, extent 6 -> e = 9; W send [4, 7), receive [0, 3); E send [5, 8),
       receive [9, 12); y (extent 4, e = 7) spans [3, 7) on W/E; z spans [0, 3) */
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_WEST, 0, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 4); assert_int_equal(r.stop[2], 7);
    assert_int_equal(r.start[1], 3); assert_int_equal(r.stop[1], 7);
    assert_int_equal(r.start[0], 0); assert_int_equal(r.stop[0], 3);
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_WEST, 1, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 0); assert_int_equal(r.stop[2], 3);
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_EAST, 0, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 5); assert_int_equal(r.stop[2], 8);
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_EAST, 1, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 9); assert_int_equal(r.stop[2], 12);
    /* N edge: x spans the interface extent [3, 9); y send [4, 7), receive [7, 10) */
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_NORTH, 0, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 3); assert_int_equal(r.stop[2], 9);
    assert_int_equal(r.start[1], 4); assert_int_equal(r.stop[1], 7);
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_NORTH, 1, &r), HST_SUCCESS);
    assert_int_equal(r.start[1], 7); assert_int_equal(r.stop[1], 10);
    /* SE corner: 3 x 3, x send [5, 8), y send [3, 6) */
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_SOUTHEAST, 0, &r), HST_SUCCESS);
    assert_int_equal(r.start[2], 5); assert_int_equal(r.stop[2], 8);
    assert_int_equal(r.start[1], 3); assert_int_equal(r.stop[1], 6);
    /* out of range: a halo wider than the origin leaves the allocation */
    l.n_halo = 4;
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_WEST, 1, &r), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_EAST, 1, &r), HST_ERROR_INVALID_ARGUMENT);
    /* a boundary that cuts a dimension the layout lacks spans the whole compute range, as
       NDSL's get_boundary_slice: N and S of [z, x] (x: origin 1, extent 5; z: [0, 3)), send
       and receive alike */
    l = make_layout(ORDER_ZX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 1, 0, 4, HST_HALO_FLOAT);
    {
        int b, recv;
        for (b = HST_HALO_NORTH; b <= HST_HALO_SOUTH; b++)
            for (recv = 0; recv < 2; recv++) {
                assert_int_equal(hst_halo_region_get(&l, (hst_halo_boundary)b, recv, &r), HST_SUCCESS);
                assert_int_equal(r.start[0], 0); assert_int_equal(r.stop[0], 3);
                assert_int_equal(r.start[1], 1); assert_int_equal(r.stop[1], 6);
            }
    }
    assert_int_equal(hst_halo_region_get(&l, HST_HALO_WEST, 0, &r), HST_SUCCESS);
    assert_int_equal(r.start[1], 1); assert_int_equal(r.stop[1], 2);
    {   /* E of a [z, y] vector: y (origin 1, extent 4) whole in both components */
        hst_halo_layout v[2];
        hst_halo_spec sp;
        v[0] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 1, 0, 4, HST_HALO_FLOAT);
        v[0].ndim = 2; v[0].dims[1] = HST_HALO_DIM_Y; v[0].shape[1] = 6;
        v[0].origin[1] = 1; v[0].extent[1] = 4;
        v[1] = v[0];
        assert_int_equal(hst_halo_spec_vector(&v[0], 0, &v[1], 1, HST_HALO_EAST, 1, 0, &sp), HST_SUCCESS);
        assert_int_equal(sp.pack.start[1], 1); assert_int_equal(sp.pack.stop[1], 5);
        assert_int_equal(sp.unpack_y.start[1], 1); assert_int_equal(sp.unpack_y.stop[1], 5);
        assert_int_equal(sp.pack.start[0], 0); assert_int_equal(sp.pack.stop[0], 3);
    }
}

/* NDSL's opposite pairing: inside a tile W <-> E, N <-> S, NW <-> SE, NE <-> SW; across a
   cube edge the partitioner's boundary toward us. */
static void test_opposite(void **state)
{
    static const int want[8] = {HST_HALO_EAST, HST_HALO_WEST, HST_HALO_SOUTH, HST_HALO_NORTH,
                                HST_HALO_SOUTHEAST, HST_HALO_SOUTHWEST, HST_HALO_NORTHEAST,
                                HST_HALO_NORTHWEST};
    int b;
    unsigned r;
    (void)state;
    for (b = 0; b < 8; b++) {
        assert_int_equal(hst_halo_opposite((hst_halo_boundary)b, 0), want[b]);
        assert_int_equal(hst_halo_opposite((hst_halo_boundary)b, 4), want[b]);
        for (r = 0; r < 4; r++)   /* there and back again */
            assert_int_equal(hst_halo_opposite(hst_halo_opposite((hst_halo_boundary)b, r),
                                               (4 - r) % 4), b);
    }
    /* tile 0's west edge turns once: its neighbour (tile 4) sees it through its north */
    assert_int_equal(hst_halo_opposite(HST_HALO_WEST, 1), HST_HALO_NORTH);
    assert_int_equal(hst_halo_opposite(HST_HALO_NORTH, 3), HST_HALO_WEST);
    assert_int_equal(hst_halo_opposite(HST_HALO_NORTHWEST, 1), HST_HALO_NORTHEAST);
    assert_int_equal(hst_halo_opposite(HST_HALO_BOUNDARY_COUNT, 0), HST_HALO_BOUNDARY_COUNT);
}

/* NDSL's TilePartitioner.boundary, stated as its code does (_left_edge, _top_edge, ...,
   _get_corner: the first edge, then the second from there). */
static int ndsl_edge(int b, int rank, int ly, int lx)
{
    int j = rank / lx, i = rank % lx;
    if (b == HST_HALO_WEST) return i == 0 ? rank + lx - 1 : rank - 1;
    if (b == HST_HALO_EAST) return i == lx - 1 ? rank - lx + 1 : rank + 1;
    if (b == HST_HALO_NORTH) return j == ly - 1 ? rank - (ly - 1) * lx : rank + lx;
    return j == 0 ? rank + (ly - 1) * lx : rank - lx;   /* south */
}

static int ndsl_tile_neighbor(int b, int rank, int ly, int lx)
{
    static const int first[8] = {0, 1, 2, 3, HST_HALO_WEST, HST_HALO_EAST, HST_HALO_WEST, HST_HALO_EAST};
    static const int second[8] = {-1, -1, -1, -1, HST_HALO_NORTH, HST_HALO_NORTH, HST_HALO_SOUTH,
                                  HST_HALO_SOUTH};
    int to = ndsl_edge(first[b], rank, ly, lx);
    return second[b] < 0 ? to : ndsl_edge(second[b], to, ly, lx);
}

static void test_tile_partitioner(void **state)
{
    static const size_t layouts[][2] = {{3, 3}, {2, 3}, {3, 2}, {1, 4}, {4, 1}, {1, 1}, {2, 2}, {5, 3}};
    size_t k;
    (void)state;
    for (k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        hst_tile_partitioner tp;
        int rank, b, ly = (int)layouts[k][0], lx = (int)layouts[k][1];
        memset(&tp, 0, sizeof tp);
        tp.layout[0] = layouts[k][0];
        tp.layout[1] = layouts[k][1];
        for (rank = 0; rank < ly * lx; rank++) {
            size_t j, i;
            assert_int_equal(hst_tile_subtile_index(&tp, rank, &j, &i), HST_SUCCESS);
            assert_int_equal(j, (size_t)(rank / lx));
            assert_int_equal(i, (size_t)(rank % lx));
            for (b = 0; b < 8; b++) {
                hst_halo_neighbor nb, back;
                assert_int_equal(hst_tile_neighbor_of(&tp, rank, (hst_halo_boundary)b, &nb), HST_SUCCESS);
                assert_int_equal(nb.rank, ndsl_tile_neighbor(b, rank, ly, lx));
                assert_int_equal(nb.rotation, 0);
                assert_int_equal(nb.boundary, hst_halo_opposite((hst_halo_boundary)b, 0));
                assert_int_equal(hst_tile_neighbor_of(&tp, nb.rank, nb.boundary, &back), HST_SUCCESS);
                assert_int_equal(back.rank, rank);
            }
        }
    }
    {   /* worked by hand from NDSL's rules: layout (2, 3), rank 0; layout (1, 4), rank 2 */
        static const int want23[8] = {2, 1, 3, 3, 5, 4, 5, 4}, want14[8] = {1, 3, 2, 2, 1, 3, 1, 3};
        hst_tile_partitioner tp;
        hst_halo_neighbor nb;
        int b;
        memset(&tp, 0, sizeof tp);
        tp.layout[0] = 2; tp.layout[1] = 3;
        for (b = 0; b < 8; b++) {
            assert_int_equal(hst_tile_neighbor_of(&tp, 0, (hst_halo_boundary)b, &nb), HST_SUCCESS);
            assert_int_equal(nb.rank, want23[b]);
        }
        tp.layout[0] = 1; tp.layout[1] = 4;
        for (b = 0; b < 8; b++) {
            assert_int_equal(hst_tile_neighbor_of(&tp, 2, (hst_halo_boundary)b, &nb), HST_SUCCESS);
            assert_int_equal(nb.rank, want14[b]);
        }
        assert_int_equal(hst_tile_neighbor_of(&tp, 4, HST_HALO_WEST, &nb), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_tile_neighbor_of(&tp, -1, HST_HALO_WEST, &nb), HST_ERROR_INVALID_ARGUMENT);
        tp.layout[0] = 0;
        assert_int_equal(hst_tile_neighbor_of(&tp, 0, HST_HALO_WEST, &nb), HST_ERROR_INVALID_ARGUMENT);
    }
}

/* Subtile slices and extents: the values NDSL's subtile_slice gives (ndsl/comm/partitioner.py
   run on each case: rank, then per dim start, stop without overlap, then stop with overlap). */
typedef struct slice_case {
    size_t layout[2];
    double ratio;
    unsigned ndim;
    hst_halo_dim dims[3];
    size_t extent[3];
    int rank;
    size_t start[3], stop[3], stop_overlap[3];
} slice_case;

static void test_subtile_slices(void **state)
{
    enum { X = HST_HALO_DIM_X, XI = HST_HALO_DIM_X_INTERFACE, Y = HST_HALO_DIM_Y,
           YI = HST_HALO_DIM_Y_INTERFACE, Z = HST_HALO_DIM_Z, ZI = HST_HALO_DIM_Z_INTERFACE };
    static const slice_case cases[] = {
        /* [z, y, x_interface] (5, 4, 7) over (2, 3): 6 cells -> 2 per rank; the shared x point
           goes to the higher rank, or to both with overlap */
        {{2, 3}, 0, 3, {(hst_halo_dim)Z, (hst_halo_dim)Y, (hst_halo_dim)XI}, {5, 4, 7}, 0, {0, 0, 0}, {5, 2, 2}, {5, 2, 3}},
        {{2, 3}, 0, 3, {(hst_halo_dim)Z, (hst_halo_dim)Y, (hst_halo_dim)XI}, {5, 4, 7}, 4, {0, 2, 2}, {5, 4, 4}, {5, 4, 5}},
        {{2, 3}, 0, 3, {(hst_halo_dim)Z, (hst_halo_dim)Y, (hst_halo_dim)XI}, {5, 4, 7}, 5, {0, 2, 4}, {5, 4, 7}, {5, 4, 7}},
        /* [y_interface, x] (9, 10) over (2, 3): x 10 over 3 -> edges 3, interior 4 */
        {{2, 3}, 0, 2, {(hst_halo_dim)YI, (hst_halo_dim)X}, {9, 10}, 1, {0, 3}, {4, 7}, {5, 7}},
        {{2, 3}, 0, 2, {(hst_halo_dim)YI, (hst_halo_dim)X}, {9, 10}, 5, {4, 7}, {9, 10}, {9, 10}},
        /* [x, y, z] over (1, 4) */
        {{1, 4}, 0, 3, {(hst_halo_dim)X, (hst_halo_dim)Y, (hst_halo_dim)Z}, {12, 10, 3}, 2, {6, 0, 0}, {9, 10, 3}, {9, 10, 3}},
        /* [y, x] 17 over 5 rows: edges 1, interior 5 */
        {{5, 1}, 0, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {17, 10}, 0, {0, 0}, {1, 10}, {1, 10}},
        {{5, 1}, 0, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {17, 10}, 2, {6, 0}, {11, 10}, {11, 10}},
        {{5, 1}, 0, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {17, 10}, 4, {16, 0}, {17, 10}, {17, 10}},
        /* z_interface is never split */
        {{3, 3}, 0, 3, {(hst_halo_dim)ZI, (hst_halo_dim)Y, (hst_halo_dim)X}, {4, 6, 6}, 7, {0, 4, 2}, {4, 6, 4}, {4, 6, 4}},
        /* edge:interior ratios 0.5 and 2 over 4 columns of 20 */
        {{1, 4}, 0.5, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {20, 20}, 1, {0, 3}, {20, 10}, {20, 10}},
        {{1, 4}, 0.5, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {20, 20}, 3, {0, 17}, {20, 20}, {20, 20}},
        {{1, 4}, 2.0, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {20, 20}, 0, {0, 0}, {20, 7}, {20, 7}},
        {{1, 4}, 2.0, 2, {(hst_halo_dim)Y, (hst_halo_dim)X}, {20, 20}, 2, {0, 10}, {20, 13}, {20, 13}},
    };
    size_t k;
    (void)state;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const slice_case *c = &cases[k];
        hst_tile_partitioner tp;
        size_t a[3], z[3], e[3];
        unsigned d;
        memset(&tp, 0, sizeof tp);
        tp.layout[0] = c->layout[0]; tp.layout[1] = c->layout[1];
        tp.edge_interior_ratio = c->ratio;
        assert_int_equal(hst_tile_subtile_slice(&tp, c->rank, c->ndim, c->dims, c->extent, 0, a, z),
                         HST_SUCCESS);
        for (d = 0; d < c->ndim; d++) {
            if (a[d] != c->start[d] || z[d] != c->stop[d])
                fail_msg("case %zu dim %u: [%zu, %zu), NDSL [%zu, %zu)", k, d, a[d], z[d],
                         c->start[d], c->stop[d]);
        }
        assert_int_equal(hst_tile_subtile_slice(&tp, c->rank, c->ndim, c->dims, c->extent, 1, a, z),
                         HST_SUCCESS);
        assert_int_equal(hst_tile_subtile_extent(&tp, c->rank, c->ndim, c->dims, c->extent, e),
                         HST_SUCCESS);
        for (d = 0; d < c->ndim; d++) {
            assert_int_equal(z[d], c->stop_overlap[d]);
            assert_int_equal(e[d], c->stop_overlap[d] - c->start[d]);
        }
    }
    {   /* NDSL's ValueError: 7 rows over 2 ranks; and bad arguments */
        hst_tile_partitioner tp;
        hst_halo_dim dims[2] = {HST_HALO_DIM_Y, HST_HALO_DIM_X};
        size_t ext[2] = {7, 6}, a[2], z[2];
        memset(&tp, 0, sizeof tp);
        tp.layout[0] = 2; tp.layout[1] = 1;
        assert_int_equal(hst_tile_subtile_slice(&tp, 0, 2, dims, ext, 0, a, z), HST_ERROR_INVALID_ARGUMENT);
        ext[0] = 8;
        assert_int_equal(hst_tile_subtile_slice(&tp, 1, 2, dims, ext, 0, a, z), HST_SUCCESS);
        assert_int_equal(a[0], 4); assert_int_equal(z[0], 8);
        assert_int_equal(hst_tile_subtile_slice(&tp, 1, 0, dims, ext, 0, a, z), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_tile_subtile_slice(&tp, 1, 2, NULL, ext, 0, a, z), HST_ERROR_INVALID_ARGUMENT);
        assert_int_equal(hst_tile_subtile_extent(&tp, 1, 2, dims, ext, NULL), HST_ERROR_INVALID_ARGUMENT);
        /* the cubed sphere's ranks: rank modulo the ranks per tile */
        tp.layout[0] = tp.layout[1] = 2;
        ext[0] = ext[1] = 8;
        assert_int_equal(hst_tile_subtile_slice(&tp, 4 * 5 + 3, 2, dims, ext, 0, a, z), HST_SUCCESS);
        assert_int_equal(a[0], 4); assert_int_equal(a[1], 4);
    }
}

/* Every rotation, dims order, interface dims, halo 1 and 3, padding 0 and 1, scalar/vector. */
static void test_round_trips(void **state)
{
    fixture *f = FIX(state);
    static const size_t sizes[3] = {4, 8, 2};
    int order, stag, vec, ni, pad;
    unsigned r, count = 0;
    hcase c;
    rng_state = 12345;
    for (order = 0; order < ORDER_COUNT; order++)
        for (stag = 0; stag < 2; stag++)
            for (vec = 0; vec < 2; vec++)
                for (ni = 0; ni < 2; ni++)
                    for (pad = 0; pad < 2; pad++)
                        for (r = 0; r < 4; r++) {
                            size_t es = sizes[count % 3];
                            hst_halo_number num = (count % 5 == 0) ? HST_HALO_INT : HST_HALO_FLOAT;
                            if ((order == ORDER_ZX || order == ORDER_Y) && stag) continue;
                            build_case(&c, order, stag, vec, ni ? 3 : 1, (size_t)pad, es, num, r);
                            assert_true(c.ns == 8 || ((order == ORDER_ZX || order == ORDER_Y) &&
                                                      c.ns == 2));
                            run_case(f, &c);
                            count++;
                        }
    assert_int_equal(count, 4 * 2 * 2 * 2 * 2 * 4 + 2 * 2 * 2 * 2 * 4);
}

/* All element sizes, and int vectors with 1-byte elements. */
static void test_element_sizes(void **state)
{
    fixture *f = FIX(state);
    static const size_t sizes[5] = {1, 2, 4, 8, 16};
    hcase c;
    int i;
    unsigned r;
    rng_state = 777;
    for (i = 0; i < 5; i++)
        for (r = 0; r < 4; r++) {
            build_case(&c, ORDER_ZYX, 0, 0, 2, 1, sizes[i], HST_HALO_FLOAT, r);
            run_case(f, &c);
            if (sizes[i] != 16) {
                build_case(&c, ORDER_XYZ, 1, 1, 2, 0, sizes[i], HST_HALO_INT, r);
                run_case(f, &c);
            }
        }
}

/* 10 scalars and 2 vectors, all 8 boundaries: one launch each way, and specs of several
   quantities per peer in NDSL's boundary-major order. */
static void test_one_launch(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout l[14];
    hst_halo_spec specs[8 * 12];
    hst_buffer *q[14];
    hst_halo_plan *plan;
    hst_halo_plan_desc d;
    hst_halo_stats st;
    size_t i, ns = 0, bytes = 0;
    int b;
    for (i = 0; i < 14; i++) l[i] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 3, 0, 4,
                                               HST_HALO_FLOAT);
    for (b = 0; b < 8; b++) {
        for (i = 0; i < 10; i++)
            assert_int_equal(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b, (unsigned)b,
                                                  (size_t)b, &specs[ns++]), HST_SUCCESS);
        for (i = 10; i < 14; i += 2)
            assert_int_equal(hst_halo_spec_vector(&l[i], i, &l[i + 1], i + 1, (hst_halo_boundary)b,
                                                  (unsigned)b, (size_t)b, &specs[ns++]), HST_SUCCESS);
    }
    d = plan_desc(14, l, ns, specs, 8);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    assert_int_equal(hst_halo_layout_bytes(&l[0], &bytes), HST_SUCCESS);
    for (i = 0; i < 14; i++) {
        float v = (float)i;
        assert_int_equal(hst_buffer_create(f->be, bytes, 0, &q[i]), HST_SUCCESS);
        assert_int_equal(hst_fill(hst_backend_queue(f->be), q[i], &v, 4, 0, bytes, 0, NULL, NULL),
                         HST_SUCCESS);
    }
    st = hst_halo_plan_stats(plan);
    assert_int_equal(st.pack_slots, 8 * 14);
    assert_int_equal(st.pack_launches, 0);
    for (i = 0; i < 3; i++) {
        hst_event e1 = NULL, e2 = NULL;
        assert_int_equal(hst_halo_pack(plan, NULL, 14, q, 0, NULL, &e1), HST_SUCCESS);
        assert_int_equal(hst_halo_copy_peer(plan, 0, plan, 0, NULL, 1, &e1, NULL), HST_SUCCESS);
        assert_int_equal(hst_halo_unpack(plan, NULL, 14, q, 1, &e1, &e2), HST_SUCCESS);
        assert_int_equal(hst_event_wait(1, &e2), HST_SUCCESS);
        hst_event_release(e1);
        hst_event_release(e2);
        st = hst_halo_plan_stats(plan);
        assert_int_equal(st.pack_launches, i + 1);
        assert_int_equal(st.unpack_launches, i + 1);
    }
    /* peer 1 (east) holds 10 scalar segments of 3 x 4 x 3 then 2 vectors of 2 slots each */
    {
        size_t so = 0, sb = 0;
        assert_int_equal(hst_halo_plan_peer(plan, 1, &so, &sb, NULL, NULL), HST_SUCCESS);
        assert_int_equal(sb, (10 + 4) * 3 * 4 * 3 * 4);
    }
    for (i = 0; i < 14; i++) hst_buffer_destroy(q[i]);
    hst_halo_plan_destroy(plan);
}

/* Slots large enough that a work-group moves 2, 4 and 8 chunks (west and east edges of
   131072, 262144 and 524288 elements; quantity 1's quarter-turned, so tiles), with small ones
   beside them: the device's pack and unpack equal the host path's, byte for byte. */
static void test_large_slots(void **state)
{
    fixture *f = FIX(state);
    hst_queue *q = hst_backend_queue(f->be);
    hst_halo_layout l[3];
    hst_halo_spec specs[24];
    hst_halo_plan_desc d;
    hst_halo_plan *plan;
    hst_buffer *dev[3], *recv;
    unsigned char *host[3], *want[3], *got, *packed, *devpacked;
    size_t bytes[3], ns = 0, sb, i, k;
    int b;
    for (i = 0; i < 3; i++) {
        memset(&l[i], 0, sizeof l[i]);
        l[i].ndim = 3; l[i].elem_bytes = 4; l[i].n_halo = 4;
        l[i].dims[0] = HST_HALO_DIM_Z; l[i].dims[1] = HST_HALO_DIM_Y; l[i].dims[2] = HST_HALO_DIM_X;
        l[i].shape[0] = (size_t)128 << i; l[i].shape[1] = 256 + 8; l[i].shape[2] = 8 + 8;
        l[i].origin[1] = l[i].origin[2] = 4;
        l[i].extent[0] = l[i].shape[0]; l[i].extent[1] = 256; l[i].extent[2] = 8;
        assert_int_equal(hst_halo_layout_bytes(&l[i], &bytes[i]), HST_SUCCESS);
    }
    for (b = 0; b < 8; b++)   /* west and east of quantity 1 quarter-turned: tiled slots */
        for (i = 0; i < 3; i++)
            assert_int_equal(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b,
                                                  i == 1 && b < 2 ? 1u : 0u, (size_t)b,
                                                  &specs[ns++]), HST_SUCCESS);
    d = plan_desc(3, l, ns, specs, 8);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    sb = hst_halo_plan_stats(plan).send_bytes;
    packed = (unsigned char *)calloc(1, sb);
    devpacked = (unsigned char *)calloc(1, sb);
    for (i = 0; i < 3; i++) {
        host[i] = (unsigned char *)malloc(bytes[i]);
        want[i] = (unsigned char *)malloc(bytes[i]);
        for (k = 0; k < bytes[i]; k++) host[i][k] = rng_byte();
        assert_int_equal(hst_buffer_create(f->be, bytes[i], 0, &dev[i]), HST_SUCCESS);
        assert_int_equal(hst_write(q, dev[i], 0, host[i], bytes[i], 1, 0, NULL, NULL),
                         HST_SUCCESS);
    }
    assert_int_equal(hst_halo_pack_host(plan, 3, (void *const *)host, bytes, packed), HST_SUCCESS);
    assert_int_equal(hst_halo_pack(plan, NULL, 3, dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, hst_halo_plan_send_buffer(plan), 0, devpacked, sb, 1, 0, NULL,
                              NULL), HST_SUCCESS);
    assert_memory_equal(devpacked, packed, sb);
    /* unpack something new: the packed bytes reversed */
    for (k = 0; k < sb / 2; k++) {
        unsigned char t = packed[k];
        packed[k] = packed[sb - 1 - k];
        packed[sb - 1 - k] = t;
    }
    recv = hst_halo_plan_recv_buffer(plan);
    assert_int_equal(hst_write(q, recv, 0, packed, sb, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack(plan, NULL, 3, dev, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 3; i++) memcpy(want[i], host[i], bytes[i]);
    assert_int_equal(hst_halo_unpack_host(plan, 3, (void *const *)want, bytes, packed),
                     HST_SUCCESS);
    for (i = 0; i < 3; i++) {
        got = (unsigned char *)malloc(bytes[i]);
        assert_int_equal(hst_read(q, dev[i], 0, got, bytes[i], 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, want[i], bytes[i]);
        assert_memory_not_equal(got, host[i], bytes[i]);
        free(got);
        free(host[i]);
        free(want[i]);
        hst_buffer_destroy(dev[i]);
    }
    free(packed);
    free(devpacked);
    hst_halo_plan_destroy(plan);
}

/* A plan of HST_HALO_MAX_QUANTITIES quantities (the widest kernel row, NQ 64: 70 arguments),
   each its own value, W and E of each: the device's pack equals the host path's byte for byte,
   and its unpack writes each quantity's halo from its own segment. */
static void test_max_quantities(void **state)
{
    fixture *f = FIX(state);
    enum { NQM = HST_HALO_MAX_QUANTITIES };
    hst_queue *q = hst_backend_queue(f->be);
    hst_halo_layout l[NQM];
    hst_halo_spec specs[2 * NQM];
    hst_halo_plan_desc d;
    hst_halo_plan *plan;
    hst_buffer *dev[NQM];
    unsigned char *host[NQM], *packed, *devpacked, *got;
    size_t bytes = 0, sb, i, k;
    for (i = 0; i < NQM; i++) {
        l[i] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 2, 0, 4, HST_HALO_FLOAT);
        assert_int_equal(hst_halo_spec_scalar(&l[i], i, HST_HALO_WEST, 0, 0, &specs[2 * i]),
                         HST_SUCCESS);
        /* E's own halo: with E's opposite (W's halo) two slots would unpack into the same
           bytes, whose result then depends on the order work-groups run in (a GPU's is not
           PoCL's or the host's) */
        assert_int_equal(hst_halo_spec_scalar(&l[i], i, HST_HALO_EAST, 0, 0, &specs[2 * i + 1]),
                         HST_SUCCESS);
    }
    assert_int_equal(hst_halo_layout_bytes(&l[0], &bytes), HST_SUCCESS);
    d = plan_desc(NQM, l, 2 * NQM, specs, 1);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    sb = hst_halo_plan_stats(plan).send_bytes;
    packed = (unsigned char *)malloc(sb);
    devpacked = (unsigned char *)malloc(sb);
    got = (unsigned char *)malloc(bytes);
    for (i = 0; i < NQM; i++) {
        host[i] = (unsigned char *)malloc(bytes);
        for (k = 0; k < bytes; k++) host[i][k] = rng_byte();
        assert_int_equal(hst_buffer_create(f->be, bytes, 0, &dev[i]), HST_SUCCESS);
        assert_int_equal(hst_write(q, dev[i], 0, host[i], bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    }
    assert_int_equal(hst_halo_pack_host(plan, NQM, (void *const *)host, NULL, packed), HST_SUCCESS);
    assert_int_equal(hst_halo_pack(plan, NULL, NQM, dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, hst_halo_plan_send_buffer(plan), 0, devpacked, sb, 1, 0, NULL,
                              NULL), HST_SUCCESS);
    assert_memory_equal(devpacked, packed, sb);
    assert_int_equal(hst_halo_copy_peer(plan, 0, plan, 0, NULL, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack(plan, NULL, NQM, dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack_host(plan, NQM, (void *const *)host, NULL, packed),
                     HST_SUCCESS);
    for (i = 0; i < NQM; i++) {
        assert_int_equal(hst_read(q, dev[i], 0, got, bytes, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, host[i], bytes);
        free(host[i]);
        hst_buffer_destroy(dev[i]);
    }
    free(packed);
    free(devpacked);
    free(got);
    hst_halo_plan_destroy(plan);
}

/* The chosen host path with one array given as two quantities (wrapped once on the device),
   with overlapping quantities (always the host), and its argument errors. */
static void test_host_choose_aliasing(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout l[2];
    hst_halo_spec specs[2];
    hst_halo_plan *plan;
    hst_halo_plan_desc d;
    hst_choice_outcome oc;
    hst_choice_op *op;
    unsigned char *a[2], *b[2], *send[2], *whole;
    void *q[2];
    size_t bytes = 0, sb, count = 0, i, k;
    int device = !hst_backend_is_host(f->be);
    l[0] = l[1] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 3, 0, 4, HST_HALO_FLOAT);
    assert_int_equal(hst_halo_spec_scalar(&l[0], 0, HST_HALO_WEST, 0, 0, &specs[0]), HST_SUCCESS);
    assert_int_equal(hst_halo_spec_scalar(&l[1], 1, HST_HALO_EAST, 0, 0, &specs[1]), HST_SUCCESS);
    d = plan_desc(2, l, 2, specs, 1);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    assert_int_equal(hst_halo_layout_bytes(&l[0], &bytes), HST_SUCCESS);
    sb = hst_halo_plan_stats(plan).send_bytes;
    whole = (unsigned char *)malloc(bytes + 4);
    for (i = 0; i < bytes + 4; i++) whole[i] = rng_byte();
    /* the same array twice, then overlapping by all but 4 bytes: "host" and "device" agree */
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 2; i++) {
            a[i] = (unsigned char *)malloc(bytes + 4);
            memcpy(a[i], whole, bytes + 4);
            send[i] = (unsigned char *)calloc(1, sb);
            q[0] = a[i];
            q[1] = a[i] + 4 * k;
            assert_int_equal(hst_halo_pack_host_choose(plan, 2, q, NULL, send[i],
                                                       i || !device ? "host" : "device", &oc),
                             HST_SUCCESS);
            assert_string_equal(oc.name, k || i || !device ? "host" : "device");
            memset(send[i], 0x5a, sb / 2);   /* something new to unpack */
            assert_int_equal(hst_halo_unpack_host_choose(plan, 2, q, NULL, send[i],
                                                         i || !device ? "host" : "device", &oc),
                             HST_SUCCESS);
            assert_string_equal(oc.name, k || i || !device ? "host" : "device");
            b[i] = a[i];
        }
        assert_memory_equal(send[0], send[1], sb);
        assert_memory_equal(b[0], b[1], bytes + 4);
        assert_memory_not_equal(b[0], whole, bytes + 4);   /* the unpack wrote the halos */
        for (i = 0; i < 2; i++) { free(a[i]); free(send[i]); }
    }
    /* one pointer under two layouts of different sizes: the shared wrap holds the larger */
    if (device) {
        hst_halo_plan *p2;
        size_t big = 0;
        l[1] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 3, 1, 4, HST_HALO_FLOAT);
        assert_int_equal(hst_halo_spec_scalar(&l[1], 1, HST_HALO_EAST, 0, 0, &specs[1]),
                         HST_SUCCESS);
        d = plan_desc(2, l, 2, specs, 1);
        assert_int_equal(hst_halo_plan_create(f->be, &d, &p2), HST_SUCCESS);
        assert_int_equal(hst_halo_layout_bytes(&l[1], &big), HST_SUCCESS);
        assert_true(big > bytes);
        a[0] = (unsigned char *)malloc(big);
        for (i = 0; i < big; i++) a[0][i] = rng_byte();
        q[0] = q[1] = a[0];
        sb = hst_halo_plan_stats(p2).send_bytes;
        send[0] = (unsigned char *)calloc(1, sb);
        send[1] = (unsigned char *)calloc(1, sb);
        assert_int_equal(hst_halo_pack_host_choose(p2, 2, q, NULL, send[0], "device", &oc),
                         HST_SUCCESS);
        assert_int_equal(hst_halo_pack_host(p2, 2, q, NULL, send[1]), HST_SUCCESS);
        assert_memory_equal(send[0], send[1], sb);
        for (i = 0; i < 2; i++) free(send[i]);
        free(a[0]);
        hst_halo_plan_destroy(p2);
        sb = hst_halo_plan_stats(plan).send_bytes;
    }
    /* the operation: one implementation on the host device, two elsewhere */
    assert_non_null(op = hst_choice_find(f->be, "halo_pack_host"));
    assert_int_equal(hst_choice_stats(op, NULL, 0, NULL, 0, &count), HST_SUCCESS);
    assert_int_equal(count, device ? 2 : 1);
    /* errors name the argument */
    q[0] = q[1] = whole;
    send[0] = (unsigned char *)malloc(sb);
    assert_result_logged(hst_halo_pack_host_choose(plan, 2, q, NULL, NULL, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_halo_unpack_host_choose(plan, 1, q, NULL, send[0], NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_int_equal(hst_halo_pack_host_choose(plan, 2, q, NULL, send[0], "nope", NULL),
                     HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_halo_pack_host_choose(NULL, 2, q, NULL, send[0], NULL, NULL),
                     HST_ERROR_INVALID_ARGUMENT);
    free(send[0]);
    free(whole);
    hst_halo_plan_destroy(plan);
}

/* The device path failing part-way (the second of four wraps over the memory limit): forced,
   the error comes back; chosen, the failure is logged, skipped, and the host's bytes result. */
static void test_host_choose_device_fails(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout l[4];
    hst_halo_spec specs[32];
    hst_halo_plan_desc d;
    hst_halo_plan *plan;
    hst_backend_desc bd;
    hst_backend *be;
    hst_choice_outcome oc;
    cap_log log;
    unsigned char *want, *got;
    void *q[4];
    size_t bytes = 0, sb, ns = 0, i;
    uint64_t planned;
    int b, k;
    if (hst_backend_is_host(f->be)) skip();   /* no device path there */
    for (i = 0; i < 4; i++)
        l[i] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 2, 0, 4, HST_HALO_FLOAT);
    for (b = 0; b < 8; b++)
        for (i = 0; i < 4; i++)
            assert_int_equal(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b, 0, (size_t)b,
                                                  &specs[ns++]), HST_SUCCESS);
    d = plan_desc(4, l, ns, specs, 8);
    assert_int_equal(hst_halo_layout_bytes(&l[0], &bytes), HST_SUCCESS);
    /* what the plan alone takes, on a backend of its own */
    memset(&bd, 0, sizeof bd);
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_create(be, &d, &plan), HST_SUCCESS);
    planned = hst_backend_device_bytes(be);
    hst_halo_plan_destroy(plan);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    /* room for the plan and one wrap and a half */
    memset(&log, 0, sizeof log);
    bd.device_memory_limit_bytes = planned + bytes + bytes / 2;
    bd.logger = cap_logger;
    bd.log_user = &log;
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_create(be, &d, &plan), HST_SUCCESS);
    sb = hst_halo_plan_stats(plan).send_bytes;
    want = (unsigned char *)calloc(1, sb);
    got = (unsigned char *)calloc(1, sb);
    for (i = 0; i < 4; i++) {
        size_t j;
        q[i] = malloc(bytes);
        for (j = 0; j < bytes; j++) ((unsigned char *)q[i])[j] = rng_byte();
    }
    assert_int_equal(hst_halo_pack_host(plan, 4, q, NULL, want), HST_SUCCESS);
    assert_true(hst_result_is_out_of_memory(hst_halo_pack_host_choose(plan, 4, q, NULL, got,
                                                                      "device", &oc)));
    for (k = 0; k < 3; k++) {   /* host measured, device tried and skipped, host again */
        memset(got, 0, sb);
        assert_int_equal(hst_halo_pack_host_choose(plan, 4, q, NULL, got, NULL, &oc), HST_SUCCESS);
        assert_string_equal(oc.name, "host");
        assert_memory_equal(got, want, sb);
    }
    assert_int_equal(log.counts[HST_LOGITEM_CHOICE_FAILED], 1);
    assert_int_equal(hst_backend_device_bytes(be), planned);   /* no wrap left behind */
    for (i = 0; i < 4; i++) free(q[i]);
    free(want);
    free(got);
    hst_halo_plan_destroy(plan);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* ---- the device path's variants ----------------------------------------------------------- */
/* Packs and unpacks a wide-halo plan (runs of 16 to 256 bytes, float, double and int32
   quantities, negated specs) with the device variant `name` forced, on a backend of its own
   (HST_FORCE is read when the choice registers): send buffer into sent, quantities after
   unpacking recv into got. */
static void run_variant(const char *name, const hst_halo_plan_desc *d, size_t bytes,
                        unsigned char *const *init, const unsigned char *recv,
                        unsigned char *sent, unsigned char **got)
{
    char force[96];
    hst_backend_desc bd;
    hst_backend *be;
    hst_halo_plan *plan;
    hst_buffer *qs[3];
    hst_queue *q;
    hst_halo_stats st;
    size_t i;
    int it;
    snprintf(force, sizeof force, "halo_pack_device:%s,halo_unpack_device:%s", name, name);
    assert_int_equal(setenv("HST_FORCE", force, 1), 0);
    memset(&bd, 0, sizeof bd);
    assert_int_equal(hst_backend_create(&bd, &be), HST_SUCCESS);
    q = hst_backend_queue(be);
    assert_int_equal(hst_halo_plan_create(be, d, &plan), HST_SUCCESS);
    st = hst_halo_plan_stats(plan);
    for (i = 0; i < 3; i++) {
        assert_int_equal(hst_buffer_create(be, bytes, 0, &qs[i]), HST_SUCCESS);
        assert_int_equal(hst_write(q, qs[i], 0, init[i], bytes, 1, 0, NULL, NULL), HST_SUCCESS);
    }
    for (it = 0; it < 5; it++)   /* past the timed launches */
        assert_int_equal(hst_halo_pack(plan, q, 3, qs, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, hst_halo_plan_send_buffer(plan), 0, sent, st.send_bytes, 1, 0,
                              NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_write(q, hst_halo_plan_recv_buffer(plan), 0, recv, st.recv_bytes, 1, 0,
                               NULL, NULL), HST_SUCCESS);
    for (it = 0; it < 5; it++)
        assert_int_equal(hst_halo_unpack(plan, q, 3, qs, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 3; i++) {
        assert_int_equal(hst_read(q, qs[i], 0, got[i], bytes, 1, 0, NULL, NULL), HST_SUCCESS);
        hst_buffer_destroy(qs[i]);
    }
    hst_halo_plan_destroy(plan);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    assert_int_equal(unsetenv("HST_FORCE"), 0);
}

/* The RUNS variant (whole 16-byte vectors along contiguous runs) moves the same bytes as the
   fused variant and the host path: pack bit for bit, unpack into identical arrays. */
static void test_runs_variant(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout l[3];
    hst_halo_spec specs[24];
    hst_halo_plan_desc d;
    hst_halo_plan *hp;
    unsigned char *init[3], *ref[3], *fused[3], *runs[3], *recv, *sent_h, *sent_f, *sent_r;
    size_t bytes = 0, ns = 0, i, j, sb, rb;
    int b;
    if (hst_backend_is_host(f->be)) skip();   /* one variant there */
    /* [z, y, x]: 40 x 12 x 64 inside a halo of 4: runs of 4 or 64 elements (16 to 512 bytes),
       16-byte aligned (uint4 moves) but in the int32 quantity, whose rows are padded to 73
       elements (vload4 / vstore4); in the RUNS variant each quantity's north and south edges
       share a band of several work-groups per slot (the last one partial), its other slots
       one of one work-group per slot */
    for (i = 0; i < 3; i++) {
        memset(&l[i], 0, sizeof l[i]);
        l[i].ndim = 3; l[i].n_halo = 4;
        l[i].elem_bytes = i == 1 ? 8 : 4;
        l[i].number = i == 2 ? HST_HALO_INT : HST_HALO_FLOAT;
        l[i].dims[0] = HST_HALO_DIM_Z; l[i].dims[1] = HST_HALO_DIM_Y; l[i].dims[2] = HST_HALO_DIM_X;
        l[i].shape[0] = 40; l[i].shape[1] = 20; l[i].shape[2] = i == 2 ? 73 : 72;
        l[i].origin[1] = l[i].origin[2] = 4;
        l[i].extent[0] = 40; l[i].extent[1] = 12; l[i].extent[2] = 64;
    }
    for (b = 0; b < 8; b++)
        for (i = 0; i < 3; i++) {
            assert_int_equal(hst_halo_spec_scalar(&l[i], i, (hst_halo_boundary)b, 0, (size_t)b,
                                                  &specs[ns]), HST_SUCCESS);
            specs[ns++].negate = i > 0 && b % 2 == 1;
        }
    d = plan_desc(3, l, ns, specs, 8);
    assert_int_equal(hst_halo_layout_bytes(&l[1], &bytes), HST_SUCCESS);   /* the largest */
    assert_int_equal(hst_halo_plan_create(f->be, &d, &hp), HST_SUCCESS);
    sb = hst_halo_plan_stats(hp).send_bytes;
    rb = hst_halo_plan_stats(hp).recv_bytes;
    recv = (unsigned char *)malloc(rb);
    sent_h = (unsigned char *)malloc(sb);
    sent_f = (unsigned char *)malloc(sb);
    sent_r = (unsigned char *)malloc(sb);
    rng_state = 26;
    for (j = 0; j < rb; j++) recv[j] = rng_byte();
    for (i = 0; i < 3; i++) {
        init[i] = (unsigned char *)malloc(bytes);
        ref[i] = (unsigned char *)malloc(bytes);
        fused[i] = (unsigned char *)malloc(bytes);
        runs[i] = (unsigned char *)malloc(bytes);
        for (j = 0; j < bytes; j++) init[i][j] = rng_byte();
        memcpy(ref[i], init[i], bytes);
    }
    assert_int_equal(hst_halo_pack_host(hp, 3, (void *const *)init, NULL, sent_h), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack_host(hp, 3, (void *const *)ref, NULL, recv), HST_SUCCESS);
    hst_halo_plan_destroy(hp);
    run_variant("fused", &d, bytes, init, recv, sent_f, fused);
    run_variant("runs", &d, bytes, init, recv, sent_r, runs);
    assert_memory_equal(sent_f, sent_h, sb);
    assert_memory_equal(sent_r, sent_h, sb);
    for (i = 0; i < 3; i++) {
        assert_memory_equal(fused[i], ref[i], bytes);
        assert_memory_equal(runs[i], ref[i], bytes);
        free(init[i]); free(ref[i]); free(fused[i]); free(runs[i]);
    }
    free(recv); free(sent_h); free(sent_f); free(sent_r);
}

/* ---- the cubed sphere ---------------------------------------------------------------------- */
/* The test's own statement of the tile connections (REFERENCE.md section 5): a cell (i, j) just
   outside tile t (N x N cells) lies on tile *tn at (*in, *jn); *r is the rotation crossing. */
static int fold_cell(int t, long i, long j, long N, int *tn, long *in, long *jn, unsigned *r)
{
    int even = t % 2 == 0;
    *tn = t; *in = i; *jn = j; *r = 0;
    if ((i < 0 || i >= N) && (j < 0 || j >= N)) return 0;      /* beyond a cube vertex */
    if (i < 0) {          /* west: even -> t-2 entering across its north (r 1); odd -> t-1 */
        if (even) { *tn = (t + 4) % 6; *r = 1; *in = N - 1 - j; *jn = N + i; }
        else { *tn = t - 1; *in = N + i; }
    } else if (i >= N) {  /* east: even -> t+1; odd -> t+2 entering across its south (r 1) */
        if (even) { *tn = t + 1; *in = i - N; }
        else { *tn = (t + 2) % 6; *r = 1; *in = N - 1 - j; *jn = i - N; }
    } else if (j >= N) {  /* north: even -> t+2 entering across its west (r 3); odd -> t+1 */
        if (even) { *tn = (t + 2) % 6; *r = 3; *in = j - N; *jn = N - 1 - i; }
        else { *tn = (t + 1) % 6; *jn = j - N; }
    } else if (j < 0) {   /* south: even -> t-1; odd -> t-2 entering across its east (r 3) */
        if (even) { *tn = (t + 5) % 6; *jn = N + j; }
        else { *tn = (t + 4) % 6; *r = 3; *in = N + j; *jn = N - 1 - i; }
    }
    return 1;
}

static double cs_value(int t, long i, long j, long k, int comp)
{
    return (double)((((t * 64 + i) * 64 + j) * 8 + k) * 4 + comp + 1);
}

#define CS_NX 4
#define CS_NZ 2
#define CS_H 2
#define CS_SENTINEL (-0.5)

static void test_cubed_sphere_partitioner(void **state)
{
    size_t L;
    (void)state;
    for (L = 1; L <= 3; L++) {
        int rank, b, vertices = 0;
        for (rank = 0; rank < (int)(6 * L * L); rank++)
            for (b = 0; b < 8; b++) {
                hst_cubed_sphere_neighbor nb, back;
                assert_int_equal(hst_cubed_sphere_neighbor_of(L, rank, (hst_halo_boundary)b, &nb),
                                 HST_SUCCESS);
                if (nb.rank < 0) { vertices++; assert_true(b >= 4); continue; }
                assert_int_equal(hst_cubed_sphere_neighbor_of(L, nb.rank, nb.boundary, &back),
                                 HST_SUCCESS);
                assert_int_equal(back.rank, rank);
                assert_int_equal(back.boundary, b);
                assert_int_equal((back.rotation + nb.rotation) % 4, 0);
            }
        /* 8 cube vertices, 3 tiles each: 24 rank corners without a neighbour */
        assert_int_equal(vertices, 24);
    }
    {   /* the rotations of the text: tile 0 (even) west 1, north 3; tile 1 (odd) east 1, south 3 */
        hst_cubed_sphere_neighbor nb;
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 0, HST_HALO_WEST, &nb), HST_SUCCESS);
        assert_int_equal(nb.rank, 4); assert_int_equal(nb.rotation, 1);
        assert_int_equal(nb.boundary, HST_HALO_NORTH);
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 0, HST_HALO_NORTH, &nb), HST_SUCCESS);
        assert_int_equal(nb.rank, 2); assert_int_equal(nb.rotation, 3);
        assert_int_equal(nb.boundary, HST_HALO_WEST);
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 1, HST_HALO_EAST, &nb), HST_SUCCESS);
        assert_int_equal(nb.rank, 3); assert_int_equal(nb.rotation, 1);
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 1, HST_HALO_SOUTH, &nb), HST_SUCCESS);
        assert_int_equal(nb.rank, 5); assert_int_equal(nb.rotation, 3);
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 0, HST_HALO_EAST, &nb), HST_SUCCESS);
        assert_int_equal(nb.rank, 1); assert_int_equal(nb.rotation, 0);
        assert_int_equal(hst_cubed_sphere_neighbor_of(1, 6, HST_HALO_EAST, &nb),
                         HST_ERROR_INVALID_ARGUMENT);
    }
}

/* 6 tiles of 2 x 2 ranks, all 24 in one process: a scalar and a vector, unique values. */
static void test_cubed_sphere_exchange(void **state)
{
    fixture *f = FIX(state);
    enum { L = 2, R = 6 * L * L, NQ = 3 };
    const long N = L * CS_NX, S = CS_NX + 2 * CS_H;
    hst_halo_layout lay[NQ];
    hst_halo_field fields[2];
    hst_halo_spec specs[R][16];
    hst_cubed_sphere_neighbor peers[R][8];
    hst_halo_boundary pb[R][8];
    size_t ns[R], np[R], bytes = 0, q, p;
    hst_halo_plan *plans[R];
    hst_buffer *dev[R][NQ];
    double *h = NULL;
    int rank;
    for (q = 0; q < NQ; q++) {
        memset(&lay[q], 0, sizeof lay[q]);
        lay[q].ndim = 3; lay[q].elem_bytes = 8; lay[q].n_halo = CS_H;
        lay[q].dims[0] = HST_HALO_DIM_Z; lay[q].dims[1] = HST_HALO_DIM_Y; lay[q].dims[2] = HST_HALO_DIM_X;
        lay[q].shape[0] = CS_NZ; lay[q].shape[1] = lay[q].shape[2] = (size_t)S;
        lay[q].origin[1] = lay[q].origin[2] = CS_H;
        lay[q].extent[0] = CS_NZ; lay[q].extent[1] = lay[q].extent[2] = CS_NX;
    }
    fields[0].quantity = 0; fields[0].vector = 0; fields[0].quantity_y = 0;
    fields[1].quantity = 1; fields[1].vector = 1; fields[1].quantity_y = 2;
    assert_int_equal(hst_halo_layout_bytes(&lay[0], &bytes), HST_SUCCESS);
    h = (double *)malloc(bytes);
    for (rank = 0; rank < R; rank++) {
        hst_halo_plan_desc d;
        int t = rank / (L * L), rx = rank % (L * L) % L, ry = rank % (L * L) / L;
        assert_int_equal(hst_cubed_sphere_specs(L, rank, 2, fields, lay, specs[rank], &ns[rank],
                                                peers[rank], pb[rank], &np[rank]), HST_SUCCESS);
        assert_int_equal(np[rank], 7);   /* a 2 x 2 tile: each rank touches one cube vertex */
        d = plan_desc(NQ, lay, ns[rank], specs[rank], np[rank]);
        assert_int_equal(hst_halo_plan_create(f->be, &d, &plans[rank]), HST_SUCCESS);
        for (q = 0; q < NQ; q++) {
            long k, j, i;
            for (k = 0; k < CS_NZ; k++)
                for (j = 0; j < S; j++)
                    for (i = 0; i < S; i++) {
                        int inside = i >= CS_H && i < CS_H + CS_NX && j >= CS_H && j < CS_H + CS_NX;
                        h[(k * S + j) * S + i] = inside
                            ? cs_value(t, rx * CS_NX + i - CS_H, ry * CS_NX + j - CS_H, k, (int)q)
                            : CS_SENTINEL;
                    }
            assert_int_equal(hst_buffer_create(f->be, bytes, 0, &dev[rank][q]), HST_SUCCESS);
            assert_int_equal(hst_write(hst_backend_queue(f->be), dev[rank][q], 0, h, bytes, 1, 0,
                                       NULL, NULL), HST_SUCCESS);
        }
    }
    for (rank = 0; rank < R; rank++)
        assert_int_equal(hst_halo_pack(plans[rank], NULL, NQ, dev[rank], 0, NULL, NULL), HST_SUCCESS);
    for (rank = 0; rank < R; rank++)
        for (p = 0; p < np[rank]; p++) {
            int to = peers[rank][p].rank;
            size_t tp;
            for (tp = 0; tp < np[to]; tp++) if (pb[to][tp] == peers[rank][p].boundary) break;
            assert_true(tp < np[to]);
            assert_int_equal(peers[to][tp].rank, rank);
            assert_int_equal(hst_halo_copy_peer(plans[rank], p, plans[to], tp, NULL, 0, NULL, NULL),
                             HST_SUCCESS);
        }
    for (rank = 0; rank < R; rank++)
        assert_int_equal(hst_halo_unpack(plans[rank], NULL, NQ, dev[rank], 0, NULL, NULL), HST_SUCCESS);
    for (rank = 0; rank < R; rank++) {
        int t = rank / (L * L), rx = rank % (L * L) % L, ry = rank % (L * L) / L;
        double *v[NQ];
        long k, j, i;
        for (q = 0; q < NQ; q++) {
            v[q] = (double *)malloc(bytes);
            assert_int_equal(hst_read(hst_backend_queue(f->be), dev[rank][q], 0, v[q], bytes, 1, 0,
                                      NULL, NULL), HST_SUCCESS);
        }
        for (k = 0; k < CS_NZ; k++)
            for (j = 0; j < S; j++)
                for (i = 0; i < S; i++) {
                    long gi = rx * CS_NX + i - CS_H, gj = ry * CS_NX + j - CS_H, in, jn;
                    size_t at = (size_t)((k * S + j) * S + i);
                    int tn;
                    unsigned r;
                    double es, eu, ev, su, sv;
                    if (!fold_cell(t, gi, gj, N, &tn, &in, &jn, &r)) {
                        for (q = 0; q < NQ; q++) assert_true(v[q][at] == CS_SENTINEL);
                        continue;
                    }
                    es = cs_value(tn, in, jn, k, 0);
                    su = cs_value(tn, in, jn, k, 1);
                    sv = cs_value(tn, in, jn, k, 2);
                    /* the sender packed with its own rotation toward us, (4 - r) mod 4, and
                       its components turn with it: 1 (-v, u), 2 (-u, -v), 3 (v, -u) */
                    r = (4 - r) % 4;
                    eu = r == 0 ? su : r == 1 ? -sv : r == 2 ? -su : sv;
                    ev = r == 0 ? sv : r == 1 ? su : r == 2 ? -sv : -su;
                    if (v[0][at] != es || v[1][at] != eu || v[2][at] != ev)
                        fail_msg("rank %d cell (k %ld, j %ld, i %ld): got (%g, %g, %g), want "
                                 "(%g, %g, %g)", rank, k, j, i, v[0][at], v[1][at], v[2][at],
                                 es, eu, ev);
                }
        for (q = 0; q < NQ; q++) free(v[q]);
    }
    for (rank = 0; rank < R; rank++) {
        for (q = 0; q < NQ; q++) hst_buffer_destroy(dev[rank][q]);
        hst_halo_plan_destroy(plans[rank]);
    }
    free(h);
}

/* ---- tiles: periodic exchanges, one flat buffer, vector interfaces ------------------------- */
#define TL_N 4      /* compute points per rank and axis */
#define TL_H 2
#define TL_S (TL_N + 2 * TL_H)
#define TL_Z 2

static hst_halo_layout tile_layout(void)
{
    hst_halo_layout l;
    memset(&l, 0, sizeof l);
    l.ndim = 3; l.elem_bytes = 8; l.n_halo = TL_H;
    l.dims[0] = HST_HALO_DIM_Z; l.dims[1] = HST_HALO_DIM_Y; l.dims[2] = HST_HALO_DIM_X;
    l.shape[0] = TL_Z; l.shape[1] = l.shape[2] = TL_S;
    l.origin[1] = l.origin[2] = TL_H;
    l.extent[0] = TL_Z; l.extent[1] = l.extent[2] = TL_N;
    return l;
}

/* The value of global cell (i, j, k) of component c on a doubly periodic tile of gx x gy
   points (i, j wrapped). */
static double tl_value(long i, long j, long k, int c, long gx, long gy)
{
    i = ((i % gx) + gx) % gx;
    j = ((j % gy) + gy) % gy;
    return (double)(((j * 64 + i) * 8 + k) * 4 + c + 1);
}

/* Fills (halo: -0.5) or checks (every cell, halos included) rank (rj, ri)'s quantity c. */
static int tl_cells(double *h, long rj, long ri, int c, long gx, long gy, int check)
{
    long k, j, i;
    for (k = 0; k < TL_Z; k++)
        for (j = 0; j < TL_S; j++)
            for (i = 0; i < TL_S; i++) {
                int inside = i >= TL_H && i < TL_H + TL_N && j >= TL_H && j < TL_H + TL_N;
                double want = tl_value(ri * TL_N + i - TL_H, rj * TL_N + j - TL_H, k, c, gx, gy);
                double *at = &h[(k * TL_S + j) * TL_S + i];
                if (!check) *at = inside ? want : -0.5;
                else if (*at != want) return 0;
            }
    return 1;
}

/* Doubly periodic tiles of several layouts, every rank in this process: hst_tile_specs (a
   scalar and a vector, 8 peers), packed, each peer's segment copied to the neighbour's peer
   that points back (hst_halo_opposite), unpacked: every halo cell holds the periodic value. */
static void test_tile_exchange(void **state)
{
    static const size_t layouts[][2] = {{2, 3}, {1, 4}, {3, 1}, {1, 1}};
    fixture *f = FIX(state);
    hst_halo_layout lay[3];
    hst_halo_field fields[2] = {{0, 0, 0}, {1, 1, 2}};
    size_t k, bytes = 0;
    lay[0] = lay[1] = lay[2] = tile_layout();
    assert_int_equal(hst_halo_layout_bytes(&lay[0], &bytes), HST_SUCCESS);
    for (k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        enum { RMAX = 6 };
        hst_tile_partitioner tp;
        hst_halo_spec specs[RMAX][16];
        hst_halo_neighbor peers[RMAX][8];
        hst_halo_boundary pb[RMAX][8];
        hst_halo_plan *plans[RMAX];
        hst_buffer *dev[RMAX][3];
        size_t ns[RMAX], np[RMAX], p;
        long gy = (long)layouts[k][0] * TL_N, gx = (long)layouts[k][1] * TL_N;
        int R = (int)(layouts[k][0] * layouts[k][1]), rank, c;
        double *h = (double *)malloc(bytes);
        memset(&tp, 0, sizeof tp);
        tp.layout[0] = layouts[k][0]; tp.layout[1] = layouts[k][1];
        for (rank = 0; rank < R; rank++) {
            hst_halo_plan_desc d;
            assert_int_equal(hst_tile_specs(&tp, rank, 2, fields, lay, specs[rank], &ns[rank],
                                            peers[rank], pb[rank], &np[rank]), HST_SUCCESS);
            assert_int_equal(np[rank], 8);   /* a periodic tile: every boundary has one */
            d = plan_desc(3, lay, ns[rank], specs[rank], np[rank]);
            assert_int_equal(hst_halo_plan_create(f->be, &d, &plans[rank]), HST_SUCCESS);
            for (c = 0; c < 3; c++) {
                tl_cells(h, rank / (long)layouts[k][1], rank % (long)layouts[k][1], c, gx, gy, 0);
                assert_int_equal(hst_buffer_create(f->be, bytes, 0, &dev[rank][c]), HST_SUCCESS);
                assert_int_equal(hst_write(hst_backend_queue(f->be), dev[rank][c], 0, h, bytes, 1,
                                           0, NULL, NULL), HST_SUCCESS);
            }
            assert_int_equal(hst_halo_pack(plans[rank], NULL, 3, dev[rank], 0, NULL, NULL), HST_SUCCESS);
        }
        for (rank = 0; rank < R; rank++)
            for (p = 0; p < np[rank]; p++) {
                int to = peers[rank][p].rank;
                size_t tpeer;
                for (tpeer = 0; tpeer < np[to]; tpeer++)
                    if (pb[to][tpeer] == peers[rank][p].boundary) break;
                assert_true(tpeer < np[to]);
                assert_int_equal(hst_halo_copy_peer(plans[rank], p, plans[to], tpeer, NULL, 0,
                                                    NULL, NULL), HST_SUCCESS);
            }
        for (rank = 0; rank < R; rank++) {
            assert_int_equal(hst_halo_unpack(plans[rank], NULL, 3, dev[rank], 0, NULL, NULL), HST_SUCCESS);
            for (c = 0; c < 3; c++) {
                assert_int_equal(hst_read(hst_backend_queue(f->be), dev[rank][c], 0, h, bytes, 1, 0,
                                          NULL, NULL), HST_SUCCESS);
                if (!tl_cells(h, rank / (long)layouts[k][1], rank % (long)layouts[k][1], c, gx, gy, 1))
                    fail_msg("layout (%zu, %zu), rank %d, quantity %d: a cell differs from the "
                             "periodic value", layouts[k][0], layouts[k][1], rank, c);
                hst_buffer_destroy(dev[rank][c]);
            }
            hst_halo_plan_destroy(plans[rank]);
        }
        free(h);
    }
}

/* NDSL's one flat buffer: one doubly periodic rank, every spec on peer 0 paired with the
   opposite boundary's receive region (hst_halo_spec_*_opposite), its own buffer sent back to
   itself: every halo cell holds the periodic value; the buffer is boundary-major, as NDSL's. */
static void test_flat_buffer(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout lay[3];
    hst_halo_spec specs[16];
    hst_halo_plan_desc d;
    hst_halo_plan *plan;
    hst_buffer *dev[3];
    size_t bytes = 0, ns = 0, so, sb, ro, rb;
    double *h;
    int b, c;
    lay[0] = lay[1] = lay[2] = tile_layout();
    assert_int_equal(hst_halo_layout_bytes(&lay[0], &bytes), HST_SUCCESS);
    for (b = 0; b < 8; b++) {
        assert_int_equal(hst_halo_spec_scalar_opposite(&lay[0], 0, (hst_halo_boundary)b, 0, 0,
                                                       &specs[ns++]), HST_SUCCESS);
        assert_int_equal(hst_halo_spec_vector_opposite(&lay[1], 1, &lay[2], 2, (hst_halo_boundary)b,
                                                       0, 0, &specs[ns++]), HST_SUCCESS);
    }
    {   /* W's send strip pairs with E's receive strip */
        hst_halo_region e;
        assert_int_equal(hst_halo_region_get(&lay[0], HST_HALO_EAST, 1, &e), HST_SUCCESS);
        assert_memory_equal(&specs[0].unpack, &e, sizeof e);
        assert_memory_equal(&specs[1].unpack_y, &e, sizeof e);
    }
    d = plan_desc(3, lay, ns, specs, 1);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_peer(plan, 0, &so, &sb, &ro, &rb), HST_SUCCESS);
    assert_int_equal(so, 0); assert_int_equal(ro, 0); assert_int_equal(sb, rb);
    assert_int_equal(sb, hst_halo_plan_stats(plan).send_bytes);   /* one flat buffer */
    h = (double *)malloc(bytes);
    for (c = 0; c < 3; c++) {
        tl_cells(h, 0, 0, c, TL_N, TL_N, 0);
        assert_int_equal(hst_buffer_create(f->be, bytes, 0, &dev[c]), HST_SUCCESS);
        assert_int_equal(hst_write(hst_backend_queue(f->be), dev[c], 0, h, bytes, 1, 0, NULL, NULL),
                         HST_SUCCESS);
    }
    assert_int_equal(hst_halo_pack(plan, NULL, 3, dev, 0, NULL, NULL), HST_SUCCESS);
    {   /* segment 0 of the buffer: the west send strip of quantity 0, C order */
        double *sent = (double *)malloc(sb);
        long k, j, i, at = 0;
        assert_int_equal(hst_read(hst_backend_queue(f->be), hst_halo_plan_send_buffer(plan), 0, sent,
                                  sb, 1, 0, NULL, NULL), HST_SUCCESS);
        for (k = 0; k < TL_Z; k++)
            for (j = 0; j < TL_N; j++)
                for (i = 0; i < TL_H; i++)
                    assert_true(sent[at++] == tl_value(i, j, k, 0, TL_N, TL_N));
        free(sent);
    }
    assert_int_equal(hst_halo_copy_peer(plan, 0, plan, 0, NULL, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_unpack(plan, NULL, 3, dev, 0, NULL, NULL), HST_SUCCESS);
    for (c = 0; c < 3; c++) {
        assert_int_equal(hst_read(hst_backend_queue(f->be), dev[c], 0, h, bytes, 1, 0, NULL, NULL),
                         HST_SUCCESS);
        assert_true(tl_cells(h, 0, 0, c, TL_N, TL_N, 1));
        hst_buffer_destroy(dev[c]);
    }
    free(h);
    hst_halo_plan_destroy(plan);
}

/* NDSL's get_pack_buffer / get_unpack_buffer synchronise: hst_halo_plan_pack_buffer and
   _unpack_buffer wait for the last pack and unpack. On OpenCL devices a pack gated on a user
   event is pending when the getter is called: one completed from another thread after a delay
   (the getter returns only after that thread set its flag), one set to an error (the getter
   reports the terminated pack, which a getter that did not wait could not know). The host
   device runs commands when enqueued (a gated pack is refused there): its getters return the
   buffers, packed. */
typedef struct { hst_event ev; volatile int set; } later_event;

static void *set_later(void *arg)
{
    later_event *l = (later_event *)arg;
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    l->set = 1;
    if (hst_user_event_set(l->ev, HST_EVENT_COMPLETE) != HST_SUCCESS) l->set = 2;
    return NULL;
}

static void test_synced_buffers(void **state)
{
    fixture *f = FIX(state);
    hst_halo_layout lay = tile_layout();
    hst_halo_spec specs[8];
    hst_halo_plan_desc d;
    hst_halo_plan *plan;
    hst_buffer *dev, *got = NULL;
    size_t bytes = 0, sb;
    double *h, *sent;
    long k, j, i, at = 0;
    int b;
    assert_int_equal(hst_halo_layout_bytes(&lay, &bytes), HST_SUCCESS);
    for (b = 0; b < 8; b++)
        assert_int_equal(hst_halo_spec_scalar_opposite(&lay, 0, (hst_halo_boundary)b, 0, 0, &specs[b]),
                         HST_SUCCESS);
    d = plan_desc(1, &lay, 8, specs, 1);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    sb = hst_halo_plan_stats(plan).send_bytes;
    h = (double *)malloc(bytes);
    sent = (double *)malloc(sb);
    tl_cells(h, 0, 0, 0, TL_N, TL_N, 0);
    assert_int_equal(hst_buffer_create(f->be, bytes, 0, &dev), HST_SUCCESS);
    assert_int_equal(hst_write(hst_backend_queue(f->be), dev, 0, h, bytes, 1, 0, NULL, NULL),
                     HST_SUCCESS);

    assert_int_equal(hst_halo_pack(plan, NULL, 1, &dev, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_pack_buffer(plan, &got), HST_SUCCESS);
    assert_true(got == hst_halo_plan_send_buffer(plan));
    assert_int_equal(hst_halo_plan_ready(plan), 1);
    assert_int_equal(hst_read(hst_backend_queue(f->be), got, 0, sent, sb, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    for (k = 0; k < TL_Z; k++)      /* the west strip first, C order */
        for (j = 0; j < TL_N; j++)
            for (i = 0; i < TL_H; i++) assert_true(sent[at++] == tl_value(i, j, k, 0, TL_N, TL_N));

    if (!hst_backend_is_host(f->be)) {
        later_event l;
        pthread_t th;
        hst_queue *q = hst_backend_queue(f->be);
        /* completed later, from another thread: the getter waits for it */
        l.set = 0;
        assert_int_equal(hst_user_event_create(f->be, &l.ev), HST_SUCCESS);
        assert_int_equal(hst_halo_copy_peer(plan, 0, plan, 0, q, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_halo_unpack(plan, q, 1, &dev, 1, &l.ev, NULL), HST_SUCCESS);
        assert_int_equal(hst_halo_plan_ready(plan), 0);
        assert_int_equal(pthread_create(&th, NULL, set_later, &l), 0);
        assert_int_equal(hst_halo_plan_unpack_buffer(plan, &got), HST_SUCCESS);
        assert_int_equal(l.set, 1);
        assert_true(got == hst_halo_plan_recv_buffer(plan));
        assert_int_equal(hst_halo_plan_ready(plan), 1);
        assert_int_equal(pthread_join(th, NULL), 0);
        hst_event_release(l.ev);
        assert_int_equal(hst_read(q, dev, 0, h, bytes, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_true(tl_cells(h, 0, 0, 0, TL_N, TL_N, 1));
        /* set to an error: the terminated pack is reported, no buffer given */
        assert_int_equal(hst_user_event_create(f->be, &l.ev), HST_SUCCESS);
        assert_int_equal(hst_halo_pack(plan, q, 1, &dev, 1, &l.ev, NULL), HST_SUCCESS);
        assert_int_equal(hst_user_event_set(l.ev, -1), HST_SUCCESS);
        assert_int_equal(hst_halo_plan_pack_buffer(plan, &got), -14);
        assert_null(got);
        assert_int_equal(f->log.last_item, HST_LOGITEM_CL_ERROR);
        hst_event_release(l.ev);
    }
    assert_int_equal(hst_halo_plan_pack_buffer(NULL, &got), HST_ERROR_INVALID_ARGUMENT);   /* no backend to log to */
    assert_result_logged(hst_halo_plan_unpack_buffer(plan, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    hst_buffer_destroy(dev);
    free(h);
    free(sent);
    hst_halo_plan_destroy(plan);
}

/* NDSL's synchronize_vector_interfaces on a cubed sphere of 3 x 3 ranks per tile (54 ranks in
   this process; NDSL's tests/test_sync_shared_boundary.py): x on [y_interface, x] (3, 2), y on
   [y, x_interface] (2, 3), values counting up in memory (x from 6 rank, y from 6 (54 + rank));
   each peer's segment goes to its route's send_rank, into the peer there whose recv_tag is
   ours. NDSL's worked values: ranks 0 and 4; every rank's interior edges keep their values. */
static void test_vector_interfaces(void **state)
{
    enum { L = 3, R = 6 * L * L };
    fixture *f = FIX(state);
    hst_halo_layout lv[2];
    hst_halo_spec specs[R][2];
    hst_halo_route routes[R][2];
    hst_halo_plan *plans[R];
    hst_buffer *dev[R][2];
    double v[2][6];
    int rank, c, k;
    static const double y0[6] = {0, 1, 6, 3, 4, 9}, x4[6] = {0, 1, 2, 3, 18, 19};
    for (c = 0; c < 2; c++) {
        memset(&lv[c], 0, sizeof lv[c]);
        lv[c].ndim = 2; lv[c].elem_bytes = 8; lv[c].n_halo = 1;
        lv[c].dims[0] = c ? HST_HALO_DIM_Y : HST_HALO_DIM_Y_INTERFACE;
        lv[c].dims[1] = c ? HST_HALO_DIM_X_INTERFACE : HST_HALO_DIM_X;
        lv[c].shape[0] = lv[c].extent[0] = c ? 2 : 3;
        lv[c].shape[1] = lv[c].extent[1] = c ? 3 : 2;
    }
    for (rank = 0; rank < R; rank++) {
        hst_halo_plan_desc d;
        assert_int_equal(hst_cubed_sphere_vector_interface_specs(L, rank, &lv[0], 0, &lv[1], 1,
                                                                 specs[rank], routes[rank]), HST_SUCCESS);
        /* x's south edge is its first y_interface row; its north edge the last */
        assert_int_equal(specs[rank][0].pack.start[0], 0); assert_int_equal(specs[rank][0].pack.stop[0], 1);
        assert_int_equal(specs[rank][0].unpack.start[0], 2);
        assert_int_equal(specs[rank][1].pack.stop[1], 1); assert_int_equal(specs[rank][1].unpack.start[1], 2);
        d = plan_desc(2, lv, 2, specs[rank], 2);
        assert_int_equal(hst_halo_plan_create(f->be, &d, &plans[rank]), HST_SUCCESS);
        for (c = 0; c < 2; c++) {
            for (k = 0; k < 6; k++) v[c][k] = (double)(6 * (c * R + rank) + k);
            assert_int_equal(hst_buffer_create(f->be, sizeof v[c], 0, &dev[rank][c]), HST_SUCCESS);
            assert_int_equal(hst_write(hst_backend_queue(f->be), dev[rank][c], 0, v[c], sizeof v[c],
                                       1, 0, NULL, NULL), HST_SUCCESS);
        }
        assert_int_equal(hst_halo_pack(plans[rank], NULL, 2, dev[rank], 0, NULL, NULL), HST_SUCCESS);
    }
    for (rank = 0; rank < R; rank++)
        for (c = 0; c < 2; c++) {
            const hst_halo_route *rt = &routes[rank][c];
            int from = rt->recv_rank, m;
            for (m = 0; m < 2; m++)
                if (routes[from][m].send_rank == rank && routes[from][m].send_tag == rt->recv_tag) break;
            assert_true(m < 2);
            assert_int_equal(hst_halo_copy_peer(plans[from], (size_t)m, plans[rank], (size_t)c, NULL,
                                                0, NULL, NULL), HST_SUCCESS);
        }
    for (rank = 0; rank < R; rank++) {
        assert_int_equal(hst_halo_unpack(plans[rank], NULL, 2, dev[rank], 0, NULL, NULL), HST_SUCCESS);
        for (c = 0; c < 2; c++) {
            assert_int_equal(hst_read(hst_backend_queue(f->be), dev[rank][c], 0, v[c], sizeof v[c], 1,
                                      0, NULL, NULL), HST_SUCCESS);
            hst_buffer_destroy(dev[rank][c]);
        }
        hst_halo_plan_destroy(plans[rank]);
        for (k = 0; k < 4; k++)   /* x's rows 0-1 and y's columns 0-1 are never written */
            assert_true(v[0][k] == (double)(6 * rank + k));
        if (rank == 0)
            for (k = 0; k < 6; k++) assert_true(v[1][k] == 6.0 * R + y0[k]);
        if (rank == 4)
            for (k = 0; k < 6; k++) {
                assert_true(v[1][k] == 6.0 * (R + 4) + y0[k]);
                assert_true(v[0][k] == 24.0 + x4[k]);
            }
    }
}

/* The tile's vector-interface routes (layout (2, 3), rank 0: S and N are rank 3, W rank 2, E
   rank 1), refusals of pairs that are not on the C grid, and a negated spec without a sign
   rule. */
static void test_interface_routes(void **state)
{
    fixture *f = FIX(state);
    hst_tile_partitioner tp;
    hst_halo_layout lv[2], l16;
    hst_halo_spec specs[2], s;
    hst_halo_route routes[2];
    hst_halo_plan_desc d;
    hst_halo_plan *plan = NULL;
    int c;
    memset(&tp, 0, sizeof tp);
    tp.layout[0] = 2; tp.layout[1] = 3;
    for (c = 0; c < 2; c++) {
        memset(&lv[c], 0, sizeof lv[c]);
        lv[c].ndim = 3; lv[c].elem_bytes = 4; lv[c].n_halo = 1;
        lv[c].dims[0] = HST_HALO_DIM_Z;
        lv[c].dims[1] = c ? HST_HALO_DIM_Y : HST_HALO_DIM_Y_INTERFACE;
        lv[c].dims[2] = c ? HST_HALO_DIM_X_INTERFACE : HST_HALO_DIM_X;
        lv[c].shape[0] = lv[c].extent[0] = 2;
        lv[c].shape[1] = (c ? 4 : 5) + 2; lv[c].origin[1] = 1; lv[c].extent[1] = c ? 4 : 5;
        lv[c].shape[2] = (c ? 5 : 4) + 2; lv[c].origin[2] = 1; lv[c].extent[2] = c ? 5 : 4;
    }
    assert_int_equal(hst_tile_vector_interface_specs(&tp, 0, &lv[0], 0, &lv[1], 1, specs, routes), HST_SUCCESS);
    assert_int_equal(routes[0].send_rank, 3); assert_int_equal(routes[0].recv_rank, 3);
    assert_int_equal(routes[0].send_tag, HST_HALO_SOUTH); assert_int_equal(routes[0].recv_tag, HST_HALO_SOUTH);
    assert_int_equal(routes[1].send_rank, 2); assert_int_equal(routes[1].recv_rank, 1);
    assert_int_equal(routes[1].send_tag, HST_HALO_WEST); assert_int_equal(routes[1].recv_tag, HST_HALO_WEST);
    assert_int_equal(specs[0].negate, 0); assert_int_equal(specs[1].rotation, 0);
    /* x's south edge: y_interface index 1 (the origin), x [1, 5), z [0, 2); north edge: 5 */
    assert_int_equal(specs[0].pack.start[1], 1); assert_int_equal(specs[0].pack.stop[1], 2);
    assert_int_equal(specs[0].unpack.start[1], 5); assert_int_equal(specs[0].unpack.stop[1], 6);
    assert_int_equal(specs[0].pack.start[2], 1); assert_int_equal(specs[0].pack.stop[2], 5);
    assert_int_equal(specs[1].pack.start[2], 1); assert_int_equal(specs[1].unpack.start[2], 5);
    d = plan_desc(2, lv, 2, specs, 2);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    assert_int_equal(hst_halo_plan_stats(plan).send_bytes, HST_HALO_PEER_ALIGN + 2 * 4 * 4);
    hst_halo_plan_destroy(plan);
    /* the components swapped are not on the C grid; NULLs */
    assert_int_equal(hst_tile_vector_interface_specs(&tp, 0, &lv[1], 0, &lv[0], 1, specs, routes),
                     HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_tile_vector_interface_specs(NULL, 0, &lv[0], 0, &lv[1], 1, specs, routes),
                     HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_cubed_sphere_vector_interface_specs(1, 6, &lv[0], 0, &lv[1], 1, specs, routes),
                     HST_ERROR_INVALID_ARGUMENT);
    /* negate needs a sign rule: 16-byte elements have none */
    l16 = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 1, 0, 16, HST_HALO_FLOAT);
    assert_int_equal(hst_halo_spec_scalar(&l16, 0, HST_HALO_WEST, 0, 0, &s), HST_SUCCESS);
    s.negate = 1;
    d = plan_desc(1, &l16, 1, &s, 1);
    assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_DTYPE, &f->log, HST_LOGITEM_DTYPE);
    assert_null(plan);
}

/* ---- errors -------------------------------------------------------------------------------- */
static void test_errors(void **state)
{
    fixture *f = FIX(state);
    cap_log *log = &f->log;
    hst_halo_layout l = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 2, 0, 4,
                                    HST_HALO_FLOAT), bad;
    hst_halo_layout lv[2];
    hst_halo_spec s, sv;
    hst_halo_plan_desc d;
    hst_halo_plan *plan = NULL;
    hst_buffer *small = NULL, *ok = NULL, *qs[2];
    size_t bytes = 0;
    void *hq[1];
    unsigned char *hb;
    assert_int_equal(hst_halo_spec_scalar(&l, 0, HST_HALO_WEST, 0, 0, &s), HST_SUCCESS);

    /* region out of range */
    {
        hst_halo_spec s2 = s;
        s2.pack.stop[2] = l.shape[2] + 1;
        d = plan_desc(1, &l, 1, &s2, 1);
        assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_INVALID_ARGUMENT,
                             log, HST_LOGITEM_OUT_OF_RANGE);
        assert_null(plan);
    }
    /* mismatched sizes: pack the west strip, unpack the north one (nx 5 != ny 4) */
    {
        hst_halo_spec s2 = s;
        assert_int_equal(hst_halo_region_get(&l, HST_HALO_NORTH, 1, &s2.unpack), HST_SUCCESS);
        d = plan_desc(1, &l, 1, &s2, 1);
        assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_SHAPE, log,
                             HST_LOGITEM_SHAPE_MISMATCH);
    }
    /* unsupported element size */
    bad = l; bad.elem_bytes = 3;
    d = plan_desc(1, &bad, 1, &s, 1);
    assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_DTYPE, log, HST_LOGITEM_DTYPE);
    assert_int_equal(hst_halo_layout_bytes(&bad, &bytes), HST_ERROR_DTYPE);
    /* 16-byte vectors have no sign rule */
    lv[0] = make_layout(ORDER_ZYX, HST_HALO_DIM_X, HST_HALO_DIM_Y, 2, 0, 16, HST_HALO_FLOAT);
    lv[1] = lv[0];
    assert_int_equal(hst_halo_spec_vector(&lv[0], 0, &lv[1], 1, HST_HALO_EAST, 1, 0, &sv), HST_SUCCESS);
    d = plan_desc(2, lv, 1, &sv, 1);
    assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_DTYPE, log, HST_LOGITEM_DTYPE);
    /* more than 4 dimensions */
    bad = l; bad.ndim = 5;
    d = plan_desc(1, &bad, 1, &s, 1);
    assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_INVALID_ARGUMENT, log,
                         HST_LOGITEM_BAD_ARGUMENT);
    assert_int_equal(hst_halo_layout_bytes(&bad, &bytes), HST_ERROR_INVALID_ARGUMENT);
    /* size overflow: shape products past SIZE_MAX */
    bad = l;
    bad.shape[0] = SIZE_MAX / 4; bad.shape[1] = 1024; bad.shape[2] = 1024;
    d = plan_desc(1, &bad, 1, &s, 1);
    assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_OVERFLOW, log,
                         HST_LOGITEM_SIZE_OVERFLOW);
    assert_int_equal(hst_halo_layout_bytes(&bad, &bytes), HST_ERROR_OVERFLOW);
    bad = l; bad.strides[0] = SIZE_MAX / 2; bad.strides[1] = 1; bad.strides[2] = 1;
    assert_int_equal(hst_halo_layout_bytes(&bad, &bytes), HST_ERROR_OVERFLOW);
    /* bad indices and NULLs */
    {
        hst_halo_spec s2 = s;
        s2.quantity = 3;
        d = plan_desc(1, &l, 1, &s2, 1);
        assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_INVALID_ARGUMENT,
                             log, HST_LOGITEM_BAD_ARGUMENT);
        s2 = s; s2.peer = 2;
        d = plan_desc(1, &l, 1, &s2, 2);
        assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_INVALID_ARGUMENT,
                             log, HST_LOGITEM_BAD_ARGUMENT);
        d = plan_desc(65, &l, 1, &s, 1);
        assert_result_logged(hst_halo_plan_create(f->be, &d, &plan), HST_ERROR_INVALID_ARGUMENT,
                             log, HST_LOGITEM_NULL_ARGUMENT);
        assert_int_equal(hst_halo_plan_create(f->be, NULL, &plan), HST_ERROR_INVALID_ARGUMENT);
    }

    /* a working plan for the quantity checks */
    d = plan_desc(1, &l, 1, &s, 1);
    assert_int_equal(hst_halo_plan_create(f->be, &d, &plan), HST_SUCCESS);
    assert_int_equal(hst_halo_layout_bytes(&l, &bytes), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(f->be, bytes - 4, 0, &small), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(f->be, bytes, 0, &ok), HST_SUCCESS);
    /* a NULL quantity */
    qs[0] = NULL;
    assert_result_logged(hst_halo_pack(plan, NULL, 1, qs, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_halo_unpack(plan, NULL, 1, qs, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, log, HST_LOGITEM_NULL_ARGUMENT);
    hq[0] = NULL;
    hb = (unsigned char *)malloc(hst_halo_plan_stats(plan).send_bytes);
    assert_result_logged(hst_halo_pack_host(plan, 1, hq, NULL, hb), HST_ERROR_INVALID_ARGUMENT,
                         log, HST_LOGITEM_NULL_ARGUMENT);
    /* a quantity whose size does not match its layout */
    qs[0] = small;
    assert_result_logged(hst_halo_pack(plan, NULL, 1, qs, 0, NULL, NULL), HST_ERROR_SHAPE, log,
                         HST_LOGITEM_SHAPE_MISMATCH);
    assert_non_null(strstr(log->last_message, "needs"));
    {
        size_t wrong = bytes - 1;
        hq[0] = hb;
        assert_result_logged(hst_halo_unpack_host(plan, 1, hq, &wrong, hb), HST_ERROR_SHAPE, log,
                             HST_LOGITEM_SHAPE_MISMATCH);
    }
    /* wrong count */
    qs[0] = ok; qs[1] = ok;
    assert_result_logged(hst_halo_pack(plan, NULL, 2, qs, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, log, HST_LOGITEM_BAD_ARGUMENT);
    assert_int_equal(hst_halo_pack(plan, NULL, 1, qs, 0, NULL, NULL), HST_SUCCESS);
    /* peer segments of different sizes cannot be copied */
    {
        hst_halo_plan *other;
        hst_halo_spec s3;
        assert_int_equal(hst_halo_spec_scalar(&l, 0, HST_HALO_NORTH, 0, 0, &s3), HST_SUCCESS);
        d = plan_desc(1, &l, 1, &s3, 1);
        assert_int_equal(hst_halo_plan_create(f->be, &d, &other), HST_SUCCESS);
        assert_result_logged(hst_halo_copy_peer(plan, 0, other, 0, NULL, 0, NULL, NULL),
                             HST_ERROR_SHAPE, log, HST_LOGITEM_SHAPE_MISMATCH);
        assert_result_logged(hst_halo_plan_peer(plan, 1, NULL, NULL, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, log, HST_LOGITEM_BAD_ARGUMENT);
        hst_halo_plan_destroy(other);
    }
    free(hb);
    hst_buffer_destroy(small);
    hst_buffer_destroy(ok);
    hst_halo_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest halo[] = {
        cmocka_unit_test(test_regions),
        cmocka_unit_test(test_cubed_sphere_partitioner),
        cmocka_unit_test(test_opposite),
        cmocka_unit_test(test_tile_partitioner),
        cmocka_unit_test(test_subtile_slices),
        cmocka_unit_test_setup(test_round_trips, reset_log),
        cmocka_unit_test_setup(test_element_sizes, reset_log),
        cmocka_unit_test_setup(test_one_launch, reset_log),
        cmocka_unit_test_setup(test_large_slots, reset_log),
        cmocka_unit_test_setup(test_max_quantities, reset_log),
        cmocka_unit_test_setup(test_host_choose_aliasing, reset_log),
        cmocka_unit_test_setup(test_host_choose_device_fails, reset_log),
        cmocka_unit_test_setup(test_runs_variant, reset_log),
        cmocka_unit_test_setup(test_tile_exchange, reset_log),
        cmocka_unit_test_setup(test_flat_buffer, reset_log),
        cmocka_unit_test_setup(test_synced_buffers, reset_log),
        cmocka_unit_test_setup(test_vector_interfaces, reset_log),
        cmocka_unit_test_setup(test_interface_routes, reset_log),
        cmocka_unit_test_setup(test_cubed_sphere_exchange, reset_log),
        cmocka_unit_test_setup(test_errors, reset_log),
    };
    return cmocka_run_group_tests_name("halo", halo, setup, teardown);
}
