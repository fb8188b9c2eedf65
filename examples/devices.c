/* devices.c — every device halostream can run on, the limits that shape how it is used, and
   which device a selector picks.

       devices                  list the devices, then what `auto` and $HST_DEVICE pick
       devices --selector gpu   also show what the selector "gpu" picks

   The host device is always listed (last): it runs the library's host C code and needs no
   OpenCL. Exit status 0 on success, 1 on any error (the message names the call and the result).

   Build: cc -std=c99 -O2 -I. examples/devices.c -o devices -lOpenCL -lm -lpthread */

#define HST_IMPLEMENTATION
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(hst_device_type type)
{
    switch (type) {
    case HST_DEVICE_HOST: return "host";
    case HST_DEVICE_CPU: return "cpu";
    case HST_DEVICE_GPU: return "gpu";
    case HST_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

/* Sizes in the unit a person reads fastest: 34.95 GiB, 48 KiB, 512 B. */
static const char *format_bytes(uint64_t bytes, char *buf, size_t buf_bytes)
{
    const double kib = 1024.0, mib = kib * 1024.0, gib = mib * 1024.0;
    double b = (double)bytes;
    if (b >= gib)
        snprintf(buf, buf_bytes, "%.2f GiB", b / gib);
    else if (b >= mib)
        snprintf(buf, buf_bytes, "%.1f MiB", b / mib);
    else if (b >= kib)
        snprintf(buf, buf_bytes, "%.1f KiB", b / kib);
    else
        snprintf(buf, buf_bytes, "%llu B", (unsigned long long)bytes);
    return buf;
}

static const char *svm_names(unsigned svm, char *buf, size_t buf_bytes)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { HST_SVM_COARSE, "coarse" }, { HST_SVM_FINE, "fine" },
        { HST_SVM_FINE_SYSTEM, "fine-system" }, { HST_SVM_ATOMICS, "atomics" }
    };
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
        if (svm & names[i].bit) {
            int n = snprintf(buf + used, buf_bytes - used, "%s%s", used ? ", " : "",
                             names[i].name);
            if (n < 0 || (size_t)n >= buf_bytes - used)
                break;
            used += (size_t)n;
        }
    }
    if (used == 0)
        snprintf(buf, buf_bytes, "none");
    return buf;
}

static const char *yes_no(int flag) { return flag ? "yes" : "no"; }

static void print_device(const hst_device_info *d)
{
    char a[64], b[64];
    printf("[%s] %s (%s)\n", d->selector, d->name, type_name(d->type));
    printf("    vendor             %s\n", d->vendor);
    printf("    platform           %s\n", d->platform_name);
    printf("    OpenCL version     %s\n", d->version);
    printf("    driver version     %s\n", d->driver_version);
    printf("    compute units      %u\n", d->compute_units);
    printf("    global memory      %s (max allocation %s)\n",
           format_bytes(d->global_mem_bytes, a, sizeof a),
           format_bytes(d->max_alloc_bytes, b, sizeof b));
    printf("    local memory       %s\n", format_bytes(d->local_mem_bytes, a, sizeof a));
    printf("    max work-group     %zu\n", d->max_work_group_size);
    printf("    base addr align    %u B (sub-buffer origins are multiples of this)\n",
           d->mem_base_addr_align_bytes);
    printf("    unified memory     %s\n", yes_no(d->unified_memory));
    printf("    fp64               %s\n", yes_no(d->fp64));
    printf("    images             %s\n", yes_no(d->images));
    printf("    SVM                %s\n", svm_names(d->svm, a, sizeof a));
    printf("    exact f32 sqrt     %s (correctly rounded sqrt and divide)\n",
           yes_no(d->correctly_rounded_sqrt));
}

/* hst_devices is size-query-then-fill: ask for the count, then for that many entries. */
static int list_devices(void)
{
    size_t count = 0, got, i;
    hst_device_info *infos;
    hst_result r = hst_devices(NULL, 0, &count);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "devices: hst_devices failed: %s (%d)\n", hst_result_string(r), r);
        return 1;
    }
    infos = (hst_device_info *)calloc(count ? count : 1, sizeof *infos);
    if (infos == NULL) {
        fprintf(stderr, "devices: out of host memory\n");
        return 1;
    }
    got = count;
    r = hst_devices(infos, count, &got);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "devices: hst_devices failed: %s (%d)\n", hst_result_string(r), r);
        free(infos);
        return 1;
    }
    if (got > count)   /* a device appeared between the two calls: show those we have */
        got = count;
    printf("%zu device%s\n\n", got, got == 1 ? "" : "s");
    for (i = 0; i < got; ++i) {
        print_device(&infos[i]);
        printf("\n");
    }
    free(infos);
    return 0;
}

/* What a selector resolves to, with the library's own reason (the same text the logger gets
   when a backend is created), so a surprising choice can be explained. */
static int show_pick(const char *label, const char *selector)
{
    hst_device_info info;
    char why[512] = "";
    hst_result r = hst_device_select(selector, &info, why, sizeof why);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "devices: %s (\"%s\") picks nothing: %s (%d)%s%s\n", label, selector,
                hst_result_string(r), r, why[0] ? "\n    " : "", why);
        return 1;
    }
    printf("%-22s -> [%s] %s\n", label, info.selector, info.name);
    printf("%-22s    %s\n", "", why);
    return 0;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: devices [--selector S]\n"
            "  Lists every device, then what `auto`, $HST_DEVICE (if set) and S pick.\n"
            "  S: auto | gpu | cpu | host | P:D | a substring of the device, vendor or\n"
            "     platform name (case-insensitive), e.g. nvidia, h200, portable.\n");
}

int main(int argc, char **argv)
{
    const char *selector = NULL, *env;
    char label[96];
    int i, failed = 0;

    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--selector") == 0 && i + 1 < argc) {
            selector = argv[++i];
        } else if (strncmp(argv[i], "--selector=", 11) == 0) {
            selector = argv[i] + 11;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "devices: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }
    if (selector != NULL && selector[0] == '\0') {
        fprintf(stderr, "devices: --selector needs a non-empty value\n");
        return 1;
    }

    if (list_devices() != 0)
        return 1;

    failed |= show_pick("auto", "auto");
    env = getenv("HST_DEVICE");
    if (env != NULL && env[0] != '\0') {
        snprintf(label, sizeof label, "$HST_DEVICE=%s", env);
        failed |= show_pick(label, env);
    } else {
        printf("%-22s    (not set: backends use `auto`)\n", "$HST_DEVICE");
    }
    if (selector != NULL) {
        snprintf(label, sizeof label, "--selector %s", selector);
        failed |= show_pick(label, selector);
    }
    return failed ? 1 : 0;
}
