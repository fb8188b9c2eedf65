/* tests/windows/shared_use.c — the library as a shared library (HST_SHARED): this program uses
   it through its public API alone, built without the implementation and linked against a DLL
   (Windows, mingw-w64, run under Wine) or a shared object built with -fvisibility=hidden
   (Linux, so only HST_API functions are visible), or with the implementation compiled in
   (-DSHARED_USE_STATIC: the reference). scripts/windows_check.sh builds the three and
   compares their one line, "hash shared-esrrf <16 hex digits>": hst_esrrf_run on the host
   device (AVG and VAR of a deterministic 9 x 24 x 20 u16 stack, magnification 3). The
   library's side: tests/windows/shared_lib.c. */
#ifdef SHARED_USE_STATIC
#  define HST_IMPLEMENTATION
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "esrrf.h"

enum { T = 9, R = 24, C = 20, MAG = 3 };

int main(void)
{
    static uint16_t stack[T * R * C];
    static float avg[R * MAG * C * MAG], var[R * MAG * C * MAG];
    float *out[HST_ESRRF_NUM_MODES] = {NULL};
    hst_backend_desc bd;
    hst_backend *be = NULL;
    hst_esrrf_desc d;
    uint64_t h;
    uint32_t x = 12345u;
    size_t i;
    for (i = 0; i < sizeof stack / sizeof stack[0]; i++) {   /* a fixed xorshift sequence */
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        stack[i] = (uint16_t)(100 + x % 900);
    }
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    if (hst_backend_create(&bd, &be) != HST_SUCCESS) return 1;
    memset(&d, 0, sizeof d);
    d.backends = &be;
    d.num_backends = 1;
    d.magnification = MAG;
    d.modes = HST_ESRRF_AVG | HST_ESRRF_VAR;
    out[0] = avg;
    out[1] = var;
    if (hst_esrrf_run(&d, stack, HST_ESRRF_U16, T, R, C, out, NULL) != HST_SUCCESS) return 1;
    h = hst_hash_bytes(HST_HASH_SEED, avg, sizeof avg);
    h = hst_hash_final(hst_hash_bytes(h, var, sizeof var));
    printf("hash shared-esrrf %016llx\n", (unsigned long long)h);
    return hst_backend_destroy(be) == HST_SUCCESS ? 0 : 1;
}
