/* tests/windows/shared_lib.c — the library built as a shared library (HST_SHARED): every
   header's implementation in this one translation unit, its HST_API functions exported (a DLL
   with mingw-w64; a shared object with -fvisibility=hidden on Linux). tests/windows/
   shared_use.c uses it. */
#define HST_IMPLEMENTATION
#include "esrrf.h"
