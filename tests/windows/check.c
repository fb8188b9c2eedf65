/* tests/windows/check.c — the same bytes on every OS: runs deterministic workloads on the host
   device and prints one "hash <name> <16 hex digits>" line per output, and one
   "check <name> ok|FAIL <why>" line per check of the OS shim and of the fused multiply-add.
   scripts/windows_check.sh builds it for Linux and with mingw-w64 for Windows (run under
   Wine) and compares the hash lines; every check line must say ok. Outputs hashed:
     array     the array vocabulary (tests/reliability/workload.h's wl_array_ops: random,
               axpy, scale, abs, sum, dot, sqnorm, min, max, casts; the ops whose bits
               kernels.h promises)
     halo      the halo packer (wl_halo_once: 8 boundaries with rotations and a vector pair,
               packed, sent to itself, unpacked; the quantities and the send buffer)
     stream    a two-stage stream with an accumulator (wl_stream_once)
     esrrf-*   the eSRRF stages through the stream (wl_esrrf_once, chained and fused: the rgc
               images and the temporal sums), the host twins of kernels_esrrf.h
   Usage: check [fmaf_inputs] (default 10^7 generated fmaf inputs; 0: edges only). The build:
   -DHST_NO_OPENCL, the host device alone (Wine has no OpenCL). */
#define HST_IMPLEMENTATION
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "halo.h"
#include "array.h"
#include "reliability/workload.h"
#include "windows/shim_checks.h"
#include "windows/fmaf_checks.h"

#define NA 9000                  /* array workload elements */
#define NF 7u                    /* eSRRF frames: two time points and a partial third */
static const wl_stream_cfg CFG = {12, 16, 9, 5};
#define SN (12 * 16 * 9)

static int failures;

static void hash_line(const char *name, const void *data, size_t bytes) {
    uint64_t h = hst_hash_final(hst_hash_bytes(HST_HASH_SEED, data, bytes));
    printf("hash %s %016llx\n", name, (unsigned long long)h);
}

static void check_line(const char *name, const char *why) {
    printf("check %s %s%s\n", name, why ? "FAIL " : "ok", why ? why : "");
    if (why) failures++;
}

static void result_line(const char *name, hst_result r) {
    if (r != HST_SUCCESS) check_line(name, hst_result_string(r));
}

static void run_array(hst_backend *be) {
    static float in[NA], y[NA];
    double out[WL_ARRAY_OUTS];
    hst_result r;
    wl_fill_f32(in, NA, 11u);
    memset(out, 0, sizeof out);
    r = wl_array_ops(be, in, NA, out, y);
    result_line("array", r);
    if (r == HST_SUCCESS) { hash_line("array-scalars", out, sizeof out); hash_line("array-y", y, sizeof y); }
}

static void run_halo(hst_backend *be) {
    static unsigned char init[WL_HALO_NQ][4096], got[WL_HALO_NQ][4096], send[1 << 16];
    void *ip[WL_HALO_NQ], *gp[WL_HALO_NQ];
    wl_halo h;
    hst_result r = wl_halo_init(&h);
    size_t q, i;
    for (q = 0; q < WL_HALO_NQ && r == HST_SUCCESS; q++) {
        if (h.bytes[q] > sizeof init[q]) { r = HST_ERROR_INVALID_ARGUMENT; break; }
        for (i = 0; i < h.bytes[q]; i++) init[q][i] = (unsigned char)(i * 37u + q * 101u + (i >> 7));
        ip[q] = init[q];
        gp[q] = got[q];
    }
    if (r == HST_SUCCESS) r = wl_halo_once(be, &h, ip, gp, send, sizeof send);
    result_line("halo", r);
    if (r != HST_SUCCESS) return;
    for (q = 0; q < WL_HALO_NQ; q++) {
        char name[32];
        snprintf(name, sizeof name, "halo-q%u", (unsigned)q);
        hash_line(name, got[q], h.bytes[q]);
    }
    hash_line("halo-send", send, sizeof send);
}

static void run_stream(hst_backend *be) {
    static float x[SN], p[3 * SN], d[SN];
    double acc = 0.0;
    hst_result r;
    wl_fill_f32(x, SN, 10u);
    r = wl_stream_once(be, &CFG, x, p, d, &acc);
    result_line("stream", r);
    if (r == HST_SUCCESS) {
        hash_line("stream-p", p, sizeof p);
        hash_line("stream-d", d, sizeof d);
        hash_line("stream-acc", &acc, sizeof acc);
    }
}

static void run_esrrf(hst_backend *be) {
    static float frames[NF * WL_ESRRF_PIXELS], rgc[NF * WL_ESRRF_MPIXELS];
    static double acc[WL_ESRRF_ACC_ELEMS(NF)];
    int fused;
    wl_fill_frames(frames, NF * WL_ESRRF_PIXELS);
    for (fused = 0; fused < 2; fused++) {
        char name[32];
        hst_result r = wl_esrrf_once(be, fused, frames, NF, rgc, acc, 1);
        snprintf(name, sizeof name, "esrrf-%s", fused ? "fused" : "chained");
        result_line(name, r);
        if (r != HST_SUCCESS) continue;
        snprintf(name, sizeof name, "esrrf-%s-rgc", fused ? "fused" : "chained");
        hash_line(name, rgc, sizeof rgc);
        snprintf(name, sizeof name, "esrrf-%s-acc", fused ? "fused" : "chained");
        hash_line(name, acc, sizeof acc);
    }
}

static void run_shim(const char *dir) {
    check_line("shim-mutex-atomic", sc_check_mutex_atomic());
    check_line("shim-atomic-values", sc_check_atomic_values());
    check_line("shim-rmutex", sc_check_rmutex());
    check_line("shim-broadcast", sc_check_broadcast());
    check_line("shim-signal", sc_check_signal());
    check_line("shim-once", sc_check_once());
    check_line("shim-system", sc_check_system());
    check_line("shim-files", sc_check_files(dir));
    check_line("shim-file-lock", sc_check_file_lock(dir));
}

static void run_fmaf(uint64_t n) {
    fc_report rep;
    char why[300];
    if (!fc_has_hw()) { printf("check fmaf skipped (no FMA instruction to compare with)\n"); return; }
    memset(&rep, 0, sizeof rep);
    fc_run_edges(&rep);
    fc_run_random(&rep, 0x5eedu, n);
    check_line("fmaf", rep.mismatches ? fc_describe(&rep, why, sizeof why) : NULL);
    printf("# fmaf: %llu inputs compared with the instruction\n", (unsigned long long)rep.tested);
}

int main(int argc, char **argv) {
    hst_backend_desc desc;
    hst_backend *be = NULL;
    const char *dir = getenv("HST_CACHE_DIR");
    memset(&desc, 0, sizeof desc);
    desc.device = "host";
    if (hst_backend_create(&desc, &be) != HST_SUCCESS) { printf("check backend FAIL\n"); return 1; }
    run_array(be);
    run_halo(be);
    run_stream(be);
    run_esrrf(be);
    result_line("backend-destroy", hst_backend_destroy(be));
    run_shim(dir && *dir ? dir : ".");
    run_fmaf(argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000u);
    return failures ? 1 : 0;
}
