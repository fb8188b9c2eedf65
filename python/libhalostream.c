/* libhalostream.c — the shared library inside the Python package (python/halostream): every
   halostream header's implementation, built by python/setup.py twice (with OpenCL, and with
   -DHST_NO_OPENCL for machines without an ICD loader). C users keep including the headers;
   this file exists only for callers that need a shared object. HST_FFT: array.h's FFTs, which
   quality.h's FRC, decorrelation and magnified error maps need (FFTW for the host device, VkFFT
   for OpenCL devices), defined by setup.py where this machine has them (it links -lfftw3f
   -lfftw3 then). */
#define HST_IMPLEMENTATION
#include "esrrf.h"
#include "liquid.h"
#include "quality.h"

/* The sizes of the structs the Python package mirrors with ctypes (0 hst_device_info,
   1 hst_backend_desc, 2 hst_esrrf_desc, 3 hst_esrrf_report, 4 hst_esrrf_sweep_desc,
   5 hst_esrrf_sweep_result; 0 for any other number): the package refuses to load a library
   whose layout differs from its mirror. Thread-safe. */
HST_API size_t hst_py_struct_size(int which);

size_t hst_py_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_device_info);
    case 1: return sizeof(hst_backend_desc);
    case 2: return sizeof(hst_esrrf_desc);
    case 3: return sizeof(hst_esrrf_report);
    case 4: return sizeof(hst_esrrf_sweep_desc);
    case 5: return sizeof(hst_esrrf_sweep_result);
    default: return 0;
    }
}

/* eSRRF's defaults, what a zero in hst_esrrf_desc stands for (esrrf.h's HST_ESRRF_DEFAULT_*):
   the package's options left at None take them, and halostream.esrrf_defaults() reports them,
   so the numbers live in esrrf.h alone. Thread-safe. */
HST_API void hst_py_esrrf_defaults(unsigned *magnification, float *radius, float *sensitivity);

void hst_py_esrrf_defaults(unsigned *magnification, float *radius, float *sensitivity) {
    *magnification = HST_ESRRF_DEFAULT_MAGNIFICATION;
    *radius = HST_ESRRF_DEFAULT_RADIUS;
    *sensitivity = HST_ESRRF_DEFAULT_SENSITIVITY;
}

/* The sizes of quality.h's structs the Python package mirrors (halostream/_quality.py,
   _drift.py): 0 hst_error_map_desc, 1 hst_error_map_result, 2 hst_frc_desc, 3 hst_frc_result,
   4 hst_decorr_desc, 5 hst_decorr_result, 6 hst_frames_desc, 7 hst_frames_estimate, 8
   hst_drift_desc; 0 for any other number. Thread-safe. */
HST_API size_t hst_py_quality_struct_size(int which);

size_t hst_py_quality_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_error_map_desc);
    case 1: return sizeof(hst_error_map_result);
    case 2: return sizeof(hst_frc_desc);
    case 3: return sizeof(hst_frc_result);
    case 4: return sizeof(hst_decorr_desc);
    case 5: return sizeof(hst_decorr_result);
    case 6: return sizeof(hst_frames_desc);
    case 7: return sizeof(hst_frames_estimate);
    case 8: return sizeof(hst_drift_desc);
    default: return 0;
    }
}

/* The sizes of liquid.h's structs (and choice.h's it fills) the Python package mirrors
   (halostream/_lib.py): 0 hst_shift_magnify_desc, 1 hst_radial_gradient_convergence_desc,
   2 hst_liquid_desc, 3 hst_liquid_shift_magnify_args, 4 hst_liquid_roberts_cross_args,
   5 hst_liquid_radial_gradient_convergence_args, 6 hst_liquid_esrrf_args,
   7 hst_choice_outcome, 8 hst_choice_bench_row; 0 for any other number. Thread-safe. */
HST_API size_t hst_py_liquid_struct_size(int which);

size_t hst_py_liquid_struct_size(int which) {
    switch (which) {
    case 0: return sizeof(hst_shift_magnify_desc);
    case 1: return sizeof(hst_radial_gradient_convergence_desc);
    case 2: return sizeof(hst_liquid_desc);
    case 3: return sizeof(hst_liquid_shift_magnify_args);
    case 4: return sizeof(hst_liquid_roberts_cross_args);
    case 5: return sizeof(hst_liquid_radial_gradient_convergence_args);
    case 6: return sizeof(hst_liquid_esrrf_args);
    case 7: return sizeof(hst_choice_outcome);
    case 8: return sizeof(hst_choice_bench_row);
    default: return 0;
    }
}

/* liquid.h's limits, so that the package's argument checks name them without a copy of the
   numbers: shift-and-magnify's largest magnification (HST_LIQUID_MAX_MAGNIFICATION, which
   hst_shift_magnify_shape logs to stderr only) and the engine's method count
   (HST_LIQUID_NUM_METHODS, which the package checks against its list). Thread-safe. */
HST_API void hst_py_liquid_limits(float *shift_magnification, unsigned *methods);

void hst_py_liquid_limits(float *shift_magnification, unsigned *methods) {
    *shift_magnification = HST_LIQUID_MAX_MAGNIFICATION;
    *methods = HST_LIQUID_NUM_METHODS;
}
