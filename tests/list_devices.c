/* list_devices.c — print one device selector per line ("host", "P:D", ...).
 *
 * Used by tests/run.sh to run every test binary once per device. Works in an
 * HST_NO_OPENCL build too, where it prints only "host". Exit status is
 * non-zero if the device list cannot be obtained.
 */
#define HST_IMPLEMENTATION
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    size_t count = 0, got = 0, i;
    hst_device_info *infos;
    hst_result r;

    r = hst_devices(NULL, 0, &count);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "list_devices: hst_devices(count) failed: %s (%d)\n",
                hst_result_string(r), (int)r);
        return 1;
    }
    if (count == 0)
        return 0;

    infos = (hst_device_info *)calloc(count, sizeof *infos);
    if (infos == NULL) {
        fprintf(stderr, "list_devices: out of memory\n");
        return 1;
    }
    got = count;
    r = hst_devices(infos, count, &got);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "list_devices: hst_devices failed: %s (%d)\n",
                hst_result_string(r), (int)r);
        free(infos);
        return 1;
    }
    if (got > count) /* a device appeared between the two calls */
        got = count;
    for (i = 0; i < got; ++i)
        printf("%s\n", infos[i].selector);
    free(infos);
    return 0;
}
