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
     run-*     esrrf.h's hst_esrrf_run on a deterministic 12 x 48 x 40 stack (two time points
               of 6 frames, magnification 5, radius 1.5): every dtype (u8, u16, i16, f32) by
               the fused and the chained path, each mode's images (AVG, VAR, TAC2) hashed; and
               the u16 stack at sensitivities 2 and 1.7 (products, and the fixed power sequence)
     esrrf-pow kernels_esrrf.h's power (a non-integer sensitivity) on 10^5 generated (R, s);
               with a check that it is within 2.5e-7 relative of pow in double
   Usage: check [fmaf_inputs] (default 10^7 generated fmaf inputs; 0: edges only). The build:
   -DHST_NO_OPENCL, the host device alone (Wine has no OpenCL). */
#define HST_IMPLEMENTATION
#define HST_KERNELS_TEST_API    /* hst_k_esrrf_pow */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esrrf.h"
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

/* The stack of run_esrrf_api: frames x rows x cols, one time point per RUN_TP frames */
#define RUN_FRAMES 12u
#define RUN_ROWS 48u
#define RUN_COLS 40u
#define RUN_TP 6u
#define RUN_PIXELS (RUN_ROWS * RUN_COLS)
#define RUN_MPIXELS (RUN_PIXELS * HST_ESRRF_DEFAULT_MAGNIFICATION * HST_ESRRF_DEFAULT_MAGNIFICATION)
#define RUN_IMAGE (RUN_FRAMES / RUN_TP * RUN_MPIXELS)   /* one mode's images, floats */

/* Sample i of the stack, 0..250: a background ramp, blinking spots on a grid and a deterministic
   noise term, integers so that every dtype holds them exactly (after its scale and offset) */
static unsigned run_sample(size_t i) {
    size_t t = i / RUN_PIXELS, y = i / RUN_COLS % RUN_ROWS, x = i % RUN_COLS;
    unsigned v = 20u + (unsigned)((x + 2u * y) % 30u) + (unsigned)((i * 2654435761u) >> 7) % 17u;
    if (y % 9u == 4u && x % 7u == 3u && (t + x / 7u) % 3u != 0u) v += 150u;
    return v;
}

/* The stack as dtype into buf (RUN_FRAMES * RUN_PIXELS samples) */
static void run_stack(hst_esrrf_dtype dtype, void *buf) {
    size_t i;
    for (i = 0; i < (size_t)RUN_FRAMES * RUN_PIXELS; i++) {
        unsigned v = run_sample(i);
        switch (dtype) {
        case HST_ESRRF_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case HST_ESRRF_U16: ((uint16_t *)buf)[i] = (uint16_t)(v * 200u + 7u); break;
        case HST_ESRRF_I16: ((int16_t *)buf)[i] = (int16_t)((int)v * 100 - 12000); break;
        default: ((float *)buf)[i] = (float)v * 0.25f + 0.125f; break;
        }
    }
}

/* hst_esrrf_run of the stack as dtype by path at sensitivity (0: the default), every mode;
   one hash line per mode, named run-<dtype>-<path>[-s<sensitivity>]-<mode> */
static void run_esrrf_one(hst_backend *be, hst_esrrf_dtype dtype, hst_esrrf_path path,
                          float sensitivity, const char *tag) {
    static float stack[RUN_FRAMES * RUN_PIXELS], img[HST_ESRRF_NUM_MODES][RUN_IMAGE];
    static const char *const dtypes[] = {"", "u8", "u16", "i16", "f32"};
    float *out[HST_ESRRF_NUM_MODES];
    hst_esrrf_desc d;
    char name[64];
    hst_result r;
    int m;
    run_stack(dtype, stack);
    memset(&d, 0, sizeof d);
    d.sensitivity = sensitivity;
    d.frames_per_timepoint = RUN_TP;
    d.modes = HST_ESRRF_ALL_MODES;
    d.path = path;
    d.backends = &be;
    d.num_backends = 1;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) out[m] = img[m];
    r = hst_esrrf_run(&d, stack, dtype, RUN_FRAMES, RUN_ROWS, RUN_COLS, out, NULL);
    snprintf(name, sizeof name, "run-%s-%s%s", dtypes[dtype],
             path == HST_ESRRF_PATH_FUSED ? "fused" : "chained", tag);
    result_line(name, r);
    if (r != HST_SUCCESS) return;
    for (m = 0; m < HST_ESRRF_NUM_MODES; m++) {
        char mname[80];
        snprintf(mname, sizeof mname, "%s-%s", name, hst_esrrf_mode_name(m));
        hash_line(mname, img[m], sizeof img[m]);
    }
}

static void run_esrrf_api(hst_backend *be) {
    int dtype;
    for (dtype = HST_ESRRF_U8; dtype <= HST_ESRRF_F32; dtype++) {
        run_esrrf_one(be, (hst_esrrf_dtype)dtype, HST_ESRRF_PATH_FUSED, 0.0f, "");
        run_esrrf_one(be, (hst_esrrf_dtype)dtype, HST_ESRRF_PATH_CHAINED, 0.0f, "");
    }
    run_esrrf_one(be, HST_ESRRF_U16, HST_ESRRF_PATH_FUSED, 2.0f, "-s2");
    run_esrrf_one(be, HST_ESRRF_U16, HST_ESRRF_PATH_FUSED, 1.7f, "-s1.7");
    run_esrrf_one(be, HST_ESRRF_U16, HST_ESRRF_PATH_CHAINED, 1.7f, "-s1.7");
}

/* hst_k_esrrf_pow on POW_N pairs (R in (0, 1], s in (1, 100]): their hash, and the largest
   relative error against pow in double, which any C library computes within 1e-15 (the bound,
   2.5e-7: the measured 2.1e-7, kernels_esrrf.h) */
#define POW_N 100000u
static void run_pow(void) {
    static float v[POW_N];
    double worst = 0.0;
    uint32_t x = 0x9e3779b9u, i;
    char why[96];
    for (i = 0; i < POW_N; i++) {
        float R, s;
        double ref;
        x = x * 1664525u + 1013904223u;
        R = (float)((x >> 8) + 1u) / 16777216.0f;
        if (i & 1u) R = R * R * R * R;   /* down to 2^-96 */
        s = 1.0f + (float)(x % 99000u) / 1000.0f;
        v[i] = hst_k_esrrf_pow(R, s);
        ref = pow((double)R, (double)s);
        if (ref >= 1e-37 && fabs((double)v[i] - ref) / ref > worst)
            worst = fabs((double)v[i] - ref) / ref;
    }
    hash_line("esrrf-pow", v, sizeof v);
    printf("# esrrf-pow: largest relative error %.3g against pow in double\n", worst);
    snprintf(why, sizeof why, "relative error %.3g > 2.5e-7", worst);
    check_line("esrrf-pow-accuracy", worst <= 2.5e-7 ? NULL : why);
}

static void run_shim(const char *dir) {
    check_line("shim-mutex-atomic", sc_check_mutex_atomic());
    check_line("shim-atomic-values", sc_check_atomic_values());
    check_line("shim-rmutex", sc_check_rmutex());
    check_line("shim-broadcast", sc_check_broadcast());
    check_line("shim-signal", sc_check_signal());
    check_line("shim-once", sc_check_once());
    check_line("shim-parallel", sc_check_parallel());
    check_line("shim-parallel-copies", sc_check_parallel_copies());
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
    run_esrrf_api(be);
    run_pow();
    result_line("backend-destroy", hst_backend_destroy(be));
    run_shim(dir && *dir ? dir : ".");
    run_fmaf(argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000u);
    return failures ? 1 : 0;
}
