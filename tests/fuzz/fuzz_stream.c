/* tests/fuzz/fuzz_stream.c — the stream's stage/shape validation: hst_stream_create on the host
   device with fuzzed descriptions (slice counts, array kinds and sizes, stage bindings, halos,
   scalars, loop_slices, accumulators, block size, budget, ring, direction) over small sizes. A
   description that is accepted is run: the host twin touches exactly the slices the block
   arguments promise (reads [begin - halo_lo, end + halo_hi) of inputs clipped to [0, N),
   writes [begin, end) of outputs), so a wrong promise is an AddressSanitizer report. While a
   stream lives its backend is held (hst_backend_destroy refused); after it, not. */
#define HST_IMPLEMENTATION
#include <stdlib.h>
#include "stream.h"
#include "fuzz_common.h"

#define MAXA 6
#define MAXST 3

typedef struct twin { const hst_stream_desc *d; unsigned stage; } twin;
static volatile unsigned char sink;

static hst_result fz_twin(void *const *arrays, const void *const *scalars,
                          const hst_stream_block *blk, void *user)
{
    const twin *t = (const twin *)user;
    const hst_stream_stage *st = &t->d->stages[t->stage];
    unsigned i, j;
    int64_t lo, hi, z;
    for (j = 0; j < st->num_scalars; j++)
        if (st->scalar_bytes[j]) sink ^= ((const unsigned char *)scalars[j])[st->scalar_bytes[j] - 1];
    if (blk->begin > blk->end || blk->base + blk->end > blk->total) __builtin_trap();
    for (i = 0; i < st->num_inputs + st->num_outputs; i++) {
        int out = i >= st->num_inputs;
        int ai = out ? st->outputs[i - st->num_inputs] : st->inputs[i];
        const hst_stream_array *a = &t->d->arrays[ai];
        unsigned char *p = (unsigned char *)arrays[i];
        size_t sb = a->kind == HST_STREAM_GLOBAL ? a->global_bytes : a->slice_bytes;
        if (a->kind == HST_STREAM_GLOBAL) { if (sb) { sink ^= p[0]; p[sb - 1] ^= 0; } continue; }
        if (!sb) __builtin_trap();   /* create accepted a zero slice */
        /* slices relative to base (may be negative: the halo before base) */
        if (out) { lo = (int64_t)blk->begin; hi = (int64_t)blk->end; }
        else {
            int64_t g0 = (int64_t)(blk->base + blk->begin) - (int64_t)st->halo_lo;
            int64_t g1 = (int64_t)(blk->base + blk->end) + (int64_t)st->halo_hi;
            if (g0 < 0) g0 = 0;
            if (g1 > (int64_t)blk->total) g1 = (int64_t)blk->total;
            lo = g0 - (int64_t)blk->base;
            hi = g1 - (int64_t)blk->base;
        }
        for (z = lo; z < hi; z++) {
            unsigned char *slice = (unsigned char *)((uintptr_t)p + (uintptr_t)(z * (int64_t)sb));
            if (out) memset(slice, 0x11, sb);
            else sink ^= slice[0] ^ slice[sb - 1];
        }
    }
    return HST_SUCCESS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz f = {data, size};
    hst_backend *be = fz_host();
    hst_backend *bes[2];
    hst_stream_array arr[MAXA];
    hst_stream_stage st[MAXST];
    hst_stream_acc acc[2];
    int bind[MAXST][2][4];
    twin tw[MAXST];
    unsigned char scal[MAXST][HST_STREAM_MAX_SCALARS][16];   /* scalar_bytes <= 9 */
    void *mem[MAXA];
    hst_stream_desc d;
    hst_stream *s = NULL;
    unsigned i, j;
    memset(arr, 0, sizeof arr);
    memset(st, 0, sizeof st);
    memset(acc, 0, sizeof acc);
    memset(&d, 0, sizeof d);
    memset(mem, 0, sizeof mem);
    memset(scal, 0x33, sizeof scal);
    bes[0] = bes[1] = be;
    d.backends = bes;
    d.num_backends = fz_u8(&f) % 8 == 0 ? fz_u8(&f) % 3 : 1;
    d.num_slices = fz_size(&f, 24);
    if (d.num_slices > 24 && d.num_slices != (uint64_t)-1) d.num_slices %= 25;
    d.num_arrays = fz_u8(&f) % (MAXA + 1);
    for (i = 0; i < d.num_arrays; i++) {
        hst_stream_array *a = &arr[i];
        a->kind = (hst_stream_kind)(fz_u8(&f) % 7);
        a->slice_bytes = fz_size(&f, 48);
        a->dtype = (hst_dtype)(fz_u8(&f) % 7);
        a->global_bytes = fz_size(&f, 64);
        if (a->kind != HST_STREAM_TEMP && fz_u8(&f) % 16) {
            /* caller memory of exactly the size the array declares (the library cannot check
               it); an array too large for that gets none (NULL must be refused) */
            int small = a->kind == HST_STREAM_GLOBAL ? a->global_bytes <= 4096
                      : d.num_slices <= 24 && a->slice_bytes <= 48;
            size_t n = a->kind == HST_STREAM_GLOBAL ? a->global_bytes : (size_t)d.num_slices * a->slice_bytes;
            if (small) { mem[i] = calloc(1, n ? n : 1); a->host = mem[i]; }
        }
    }
    d.arrays = arr;
    d.num_stages = fz_u8(&f) % (MAXST + 1);
    for (i = 0; i < d.num_stages; i++) {
        hst_stream_stage *g = &st[i];
        g->name = "fuzz";
        g->kernel = "fuzz";
        g->host = fz_u8(&f) % 16 ? fz_twin : NULL;
        tw[i].d = &d;
        tw[i].stage = i;
        g->host_user = &tw[i];
        g->num_inputs = fz_u8(&f) % 4;
        g->num_outputs = fz_u8(&f) % 4;
        for (j = 0; j < 4; j++) {
            bind[i][0][j] = (int)(fz_u8(&f) % 9) - 1;
            bind[i][1][j] = (int)(fz_u8(&f) % 9) - 1;
        }
        g->inputs = bind[i][0];
        g->outputs = bind[i][1];
        g->num_scalars = fz_u8(&f) % 10;
        for (j = 0; j < HST_STREAM_MAX_SCALARS; j++) {
            g->scalar_bytes[j] = fz_u8(&f) % 10;
            g->scalars[j] = fz_u8(&f) % 16 ? (const void *)scal[i][j] : NULL;
        }
        g->halo_lo = (unsigned)fz_size(&f, 4);
        g->halo_hi = (unsigned)fz_size(&f, 4);
        g->items_per_slice = fz_size(&f, 64);
        g->loop_slices = fz_u8(&f) & 1;
    }
    d.stages = st;
    d.num_accumulators = fz_u8(&f) % 3;
    for (i = 0; i < 2; i++) {
        acc[i].kind = (hst_stream_acc_kind)(fz_u8(&f) % 5);
        acc[i].dtype = (hst_dtype)(fz_u8(&f) % 7);
        acc[i].a = (int)(fz_u8(&f) % 8) - 1;
        acc[i].b = (int)(fz_u8(&f) % 8) - 1;
    }
    d.accumulators = acc;
    d.block_slices = fz_size(&f, 30);
    d.budget_bytes = fz_u8(&f) % 4 ? 0 : fz_size(&f, 0) * 16;
    d.ring = fz_u8(&f) % 12;
    d.reverse = fz_u8(&f) & 1;
    if (hst_stream_create(&d, &s) == HST_SUCCESS) {
        hst_stream_report rep;
        /* the stream holds its backend (once, however often desc names it): destroying the
           backend under it is refused, and the hold goes with the stream */
        if (hst_backend_holds(be) != 1 || hst_backend_destroy(be) != HST_ERROR_INVALID_ARGUMENT) __builtin_trap();
        (void)hst_stream_run(s, &rep);
        (void)hst_stream_block_slices(s);
        hst_stream_destroy(s);
    }
    if (hst_backend_holds(be) != 0) __builtin_trap();   /* a failed create holds nothing */
    for (i = 0; i < MAXA; i++) free(mem[i]);
    return 0;
}
