/* tests/fuzz/fuzz_common.h — shared by the libFuzzer targets (built by mk/reliability.mk with
   clang -fsanitize=fuzzer,address,undefined -DHST_NO_OPENCL): a byte reader and a quiet host
   backend. */
#ifndef HST_FUZZ_COMMON_H
#define HST_FUZZ_COMMON_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz { const uint8_t *p; size_t n; } fz;
static __attribute__((unused)) unsigned fz_u8(fz *f) { if (!f->n) return 0; f->n--; return *f->p++; }
static __attribute__((unused)) unsigned fz_u16(fz *f) { unsigned a = fz_u8(f); return a | (fz_u8(f) << 8); }
/* Mostly small values, now and then a huge one (overflow paths). */
static __attribute__((unused)) size_t fz_size(fz *f, size_t small)
{
    unsigned t = fz_u8(f);
    if (t == 0xFF) { size_t v = 0; unsigned i; for (i = 0; i < sizeof v; i++) v = (v << 8) | fz_u8(f); return v; }
    return small ? t % (small + 1) : t;
}

static __attribute__((unused)) void fz_quiet(void *u, hst_log_level l, hst_log_item i, const char *m) { (void)u; (void)l; (void)i; (void)m; }

/* The backend's host allocations: one above 256 MiB fails (NULL), as the device limit below
   fails device buffers, so that huge layouts take the library's out-of-memory path rather than
   the fuzzer's RSS limit (a stream's scratch of 2 GiB slices filled 4 GiB) */
static __attribute__((unused)) void *fz_alloc(size_t bytes, void *u) { (void)u; return bytes > ((size_t)256 << 20) ? NULL : malloc(bytes); }
static __attribute__((unused)) void fz_free(void *p, void *u) { (void)u; free(p); }

static __attribute__((unused)) hst_backend *fz_host(void)
{
    static hst_backend *be;
    if (!be) {
        hst_backend_desc d;
        memset(&d, 0, sizeof d);
        d.device = "host";
        d.logger = fz_quiet;
        d.no_disk_cache = 1;
        /* valid but huge layouts ask for gigabytes: the backend's own limit turns them into
           clean out-of-memory errors instead of the fuzzer's malloc limit */
        d.device_memory_limit_bytes = (uint64_t)1 << 30;
        d.allocator.alloc = fz_alloc;
        d.allocator.free = fz_free;
        if (hst_backend_create(&d, &be) != HST_SUCCESS) __builtin_trap();
    }
    return be;
}
#endif
