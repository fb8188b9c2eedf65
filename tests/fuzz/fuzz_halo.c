/* tests/fuzz/fuzz_halo.c — halo layout/spec validation and plan creation on the host device:
   fuzzed layouts (ndim, shapes, strides, origins, extents, roles, element sizes, halo width),
   specs from hst_halo_spec_scalar/vector or raw regions, then hst_halo_plan_create; a plan that
   is accepted is packed and unpacked (host path and host-device buffers) over quantities of
   exactly hst_halo_layout_bytes, so a region the validation let through that leaves the
   allocation is an AddressSanitizer report. */
#define HST_IMPLEMENTATION
#include <stdlib.h>
#include "halo.h"
#include "fuzz_common.h"

#define MAXQ 3
#define MAXS 12
#define CAP ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t elems[8] = {0, 1, 2, 3, 4, 8, 16, 5};
    fz f = {data, size};
    hst_halo_layout lay[MAXQ];
    hst_halo_spec specs[MAXS];
    size_t bytes[MAXQ] = {0, 0, 0}, nq = 1 + fz_u8(&f) % MAXQ, ns, q, s, d;
    hst_halo_plan_desc pd;
    hst_halo_plan *plan = NULL;
    hst_backend *be = fz_host();
    int ok_q[MAXQ] = {1, 1, 1};
    memset(lay, 0, sizeof lay);
    memset(specs, 0, sizeof specs);
    for (q = 0; q < nq; q++) {
        hst_halo_layout *l = &lay[q];
        hst_halo_region reg;
        unsigned flags = fz_u8(&f);
        l->ndim = fz_u8(&f) % 6;
        l->elem_bytes = elems[fz_u8(&f) % 8];
        l->number = (hst_halo_number)(flags & 1);
        l->n_halo = fz_size(&f, 4);
        for (d = 0; d < HST_HALO_MAX_DIMS; d++) {
            l->shape[d] = fz_size(&f, 14);
            l->origin[d] = fz_size(&f, 4);
            l->extent[d] = fz_size(&f, 10);
            l->dims[d] = (hst_halo_dim)(fz_u8(&f) % 8);
            if (flags & 2) l->strides[d] = fz_size(&f, 300);
        }
        if (hst_halo_layout_bytes(l, &bytes[q]) != HST_SUCCESS) { ok_q[q] = 0; bytes[q] = 0; }
        (void)hst_halo_region_get(l, (hst_halo_boundary)(fz_u8(&f) % 9), (int)(flags >> 7), &reg);
    }
    ns = fz_u8(&f) % (MAXS + 1);
    for (s = 0; s < ns; s++) {
        unsigned how = fz_u8(&f) % 4;
        size_t qa = fz_u8(&f) % (nq + 1), qb = fz_u8(&f) % (nq + 1);
        hst_halo_boundary b = (hst_halo_boundary)(fz_u8(&f) % 9);
        unsigned rot = fz_u8(&f);
        size_t peer = fz_u8(&f) % 5;
        if (how == 0 && qa < nq)
            (void)hst_halo_spec_scalar(&lay[qa], qa, b, rot, peer, &specs[s]);
        else if (how == 1 && qa < nq && qb < nq)
            (void)hst_halo_spec_vector(&lay[qa], qa, &lay[qb], qb, b, rot, peer, &specs[s]);
        else {   /* raw regions */
            hst_halo_spec *sp = &specs[s];
            sp->quantity = qa; sp->vector = how == 3; sp->quantity_y = qb;
            sp->rotation = rot; sp->peer = peer;
            for (d = 0; d < HST_HALO_MAX_DIMS; d++) {
                sp->pack.start[d] = fz_size(&f, 12); sp->pack.stop[d] = fz_size(&f, 14);
                sp->unpack.start[d] = fz_size(&f, 12); sp->unpack.stop[d] = fz_size(&f, 14);
                sp->pack_y = sp->pack; sp->unpack_y = sp->unpack;
            }
        }
    }
    memset(&pd, 0, sizeof pd);
    pd.num_quantities = fz_u8(&f) % 8 == 0 ? fz_size(&f, 70) : nq;
    pd.layouts = lay;
    pd.num_specs = ns;
    pd.specs = specs;
    pd.num_peers = fz_u8(&f) % 6;
    if (pd.num_quantities > nq) pd.num_quantities = nq;   /* the array holds nq layouts */
    if (hst_halo_plan_create(be, &pd, &plan) == HST_SUCCESS) {
        hst_halo_stats st = hst_halo_plan_stats(plan);
        for (q = 0; q < pd.num_quantities; q++)
            if (!ok_q[q]) __builtin_trap();   /* a plan over a layout that layout_bytes rejects */
        if (st.send_bytes <= CAP && st.recv_bytes <= CAP && bytes[0] <= CAP && bytes[1] <= CAP && bytes[2] <= CAP) {
            void *qs[MAXQ] = {NULL, NULL, NULL};
            hst_buffer *bufs[MAXQ] = {NULL, NULL, NULL};
            unsigned char *send = (unsigned char *)malloc(st.send_bytes ? st.send_bytes : 1);
            unsigned char *recv = (unsigned char *)calloc(1, st.recv_bytes ? st.recv_bytes : 1);
            int ok = 1;
            for (q = 0; q < pd.num_quantities; q++) {
                qs[q] = malloc(bytes[q] ? bytes[q] : 1);
                if (qs[q]) memset(qs[q], (int)q + 1, bytes[q]);
                if (hst_buffer_create(be, bytes[q] ? bytes[q] : 1, 0, &bufs[q]) != HST_SUCCESS) ok = 0;
            }
            if (ok && send && recv) {
                if (hst_halo_pack_host(plan, pd.num_quantities, qs, bytes, send) != HST_SUCCESS) __builtin_trap();
                if (hst_halo_unpack_host(plan, pd.num_quantities, qs, bytes, recv) != HST_SUCCESS) __builtin_trap();
                if (hst_halo_pack(plan, NULL, pd.num_quantities, bufs, 0, NULL, NULL) != HST_SUCCESS) __builtin_trap();
                if (hst_halo_unpack(plan, NULL, pd.num_quantities, bufs, 0, NULL, NULL) != HST_SUCCESS) __builtin_trap();
            }
            for (q = 0; q < MAXQ; q++) { free(qs[q]); hst_buffer_destroy(bufs[q]); }
            free(send);
            free(recv);
        }
        hst_halo_plan_destroy(plan);
    }
    return 0;
}
