/* tests/fuzz/fuzz_select.c — the device selector parser: hst_device_select with arbitrary
   strings (and why buffers of every size), and the matcher on a synthetic list of devices. */
#define HST_IMPLEMENTATION
#include <stdlib.h>
#include "backend.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hst_device_info list[4];
    char sel[512], why[600];
    hst_device_info out;
    size_t why_bytes, n;
    long pick;
    unsigned i;
    if (!size) return 0;
    why_bytes = data[0] % sizeof why;
    n = size - 1 < sizeof sel - 1 ? size - 1 : sizeof sel - 1;
    memcpy(sel, data + 1, n);
    sel[n] = '\0';
    memset(why, 0x5A, sizeof why);
    (void)hst_device_select(sel, &out, why_bytes ? why : NULL, why_bytes);
    if (why_bytes && !memchr(why, '\0', why_bytes)) __builtin_trap();   /* not terminated */
    if (!list[0].name[0]) {
        const char *names[4] = {"NVIDIA H200", "Intel(R) UHD Graphics", "pthread-haswell", "host"};
        for (i = 0; i < 4; i++) {
            snprintf(list[i].name, sizeof list[i].name, "%s", names[i]);
            snprintf(list[i].vendor, sizeof list[i].vendor, "vendor%u", i);
            snprintf(list[i].platform_name, sizeof list[i].platform_name, "platform%u", i / 2);
            list[i].platform_index = i < 3 ? (int)(i / 2) : -1;
            list[i].device_index = i < 3 ? (int)(i % 2) : -1;
            list[i].type = i == 0 ? HST_DEVICE_GPU : i == 1 ? HST_DEVICE_GPU : i == 2 ? HST_DEVICE_CPU : HST_DEVICE_HOST;
            list[i].unified_memory = i == 1;
            snprintf(list[i].selector, sizeof list[i].selector, i < 3 ? "%d:%d" : "host",
                     list[i].platform_index, list[i].device_index);
        }
    }
    why[0] = '\0';
    pick = hst__match_selector(sel, list, 4, why, why_bytes ? why_bytes : 1);
    if (pick < -1 || pick >= 4) __builtin_trap();
    if (pick < 0) hst__describe_devices(list, 4, sel, why, why_bytes ? why_bytes : 1);
    return 0;
}
