"""ctypes mirror of the parts of backend.h and esrrf.h the package calls, and the loading of
the shared library (build/libhalostream.so, made by `make python`).

The library is found, in order: $HALOSTREAM_LIB (a file), libhalostream.so next to this
package, build/libhalostream.so of the source tree this package sits in. The structs below
mirror the C ones field for field; load() compares their sizes with the library's own
(hst_py_struct_size) and refuses a library whose layout differs."""

import ctypes
import os

u64 = ctypes.c_uint64
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_char_p)
PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, u64, u64, ctypes.c_void_p)
TIMEPOINT_FN = ctypes.CFUNCTYPE(None, u64, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32,
                                ctypes.c_void_p)

HST_SUCCESS = 0
HST_ERROR_CANCELLED = -20011
DEVICE_TYPES = {1: "host", 2: "cpu", 3: "gpu", 4: "accelerator", 5: "other"}   # hst_device_type
DTYPES = {"uint8": 1, "uint16": 2, "int16": 3, "float32": 4}   # hst_esrrf_dtype
MODES = ("avg", "var", "tac2")                                   # out[] index = bit number


class DeviceInfo(ctypes.Structure):
    _fields_ = [("selector", ctypes.c_char * 32), ("platform_index", ctypes.c_int),
                ("device_index", ctypes.c_int), ("type", ctypes.c_int),
                ("unified_memory", ctypes.c_int), ("name", ctypes.c_char * 256),
                ("vendor", ctypes.c_char * 128), ("platform_name", ctypes.c_char * 256),
                ("version", ctypes.c_char * 128), ("driver_version", ctypes.c_char * 128),
                ("compute_units", ctypes.c_uint), ("global_mem_bytes", u64),
                ("max_alloc_bytes", u64), ("local_mem_bytes", u64),
                ("max_work_group_size", ctypes.c_size_t),
                ("mem_base_addr_align_bytes", ctypes.c_uint), ("fp64", ctypes.c_int),
                ("images", ctypes.c_int), ("correctly_rounded_sqrt", ctypes.c_int),
                ("svm", ctypes.c_uint)]


class Allocator(ctypes.Structure):
    _fields_ = [("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p), ("user", ctypes.c_void_p)]


class BackendDesc(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("logger", LOG_FN), ("log_user", ctypes.c_void_p),
                ("log_level", ctypes.c_int), ("allocator", Allocator),
                ("cache_dir", ctypes.c_char_p), ("no_disk_cache", ctypes.c_int),
                ("device_memory_limit_bytes", u64), ("wrap_context", ctypes.c_void_p),
                ("wrap_queue", ctypes.c_void_p)]


class EsrrfDesc(ctypes.Structure):
    _fields_ = [("magnification", ctypes.c_uint), ("radius", ctypes.c_float),
                ("sensitivity", ctypes.c_float), ("no_intensity_weighting", ctypes.c_int),
                ("no_macro_pixel_correction", ctypes.c_int), ("frames_per_timepoint", u64),
                ("modes", ctypes.c_uint), ("path", ctypes.c_int),
                ("backends", ctypes.POINTER(ctypes.c_void_p)), ("num_backends", ctypes.c_uint),
                ("budget_bytes", u64), ("block_frames", u64), ("progress", PROGRESS_FN),
                ("progress_user", ctypes.c_void_p), ("on_timepoint", TIMEPOINT_FN),
                ("timepoint_user", ctypes.c_void_p), ("mpi_comm", ctypes.c_void_p)]


class EsrrfReport(ctypes.Structure):
    _fields_ = [("frames", u64), ("timepoints", u64), ("frames_dropped", u64),
                ("block_frames", u64), ("frames_by_path", u64 * 2), ("path", ctypes.c_int),
                ("decided_by", ctypes.c_int), ("seconds_per_frame", ctypes.c_double * 2),
                ("estimate_from", ctypes.c_int * 2),
                ("stream_seconds", ctypes.c_double), ("finish_seconds", ctypes.c_double),
                ("seconds", ctypes.c_double)]


MIRRORS = (DeviceInfo, BackendDesc, EsrrfDesc, EsrrfReport)   # hst_py_struct_size's order


def _candidates():
    env = os.environ.get("HALOSTREAM_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "libhalostream.so"),
            os.path.join(here, "..", "..", "build", "libhalostream.so")]


def _declare(lib):
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    sigs = {
        "hst_py_struct_size": (sz, [ctypes.c_int]),
        "hst_result_string": (ctypes.c_char_p, [ctypes.c_int]),
        "hst_devices": (ctypes.c_int, [ctypes.POINTER(DeviceInfo), sz, ctypes.POINTER(sz)]),
        "hst_backend_create": (ctypes.c_int, [ctypes.POINTER(BackendDesc), ctypes.POINTER(vp)]),
        "hst_esrrf_backend_create": (ctypes.c_int, [ctypes.POINTER(BackendDesc), ctypes.POINTER(vp),
                                                    ctypes.POINTER(ctypes.c_int)]),
        "hst_backend_destroy": (None, [vp]),
        "hst_esrrf_output_shape": (ctypes.c_int, [ctypes.POINTER(EsrrfDesc), u64, ctypes.c_uint32,
                                                  ctypes.c_uint32, ctypes.POINTER(u64),
                                                  ctypes.POINTER(ctypes.c_uint32),
                                                  ctypes.POINTER(ctypes.c_uint32)]),
        "hst_esrrf_run": (ctypes.c_int, [ctypes.POINTER(EsrrfDesc), vp, ctypes.c_int, u64,
                                         ctypes.c_uint32, ctypes.c_uint32,
                                         ctypes.POINTER(vp), ctypes.POINTER(EsrrfReport)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


def load():
    """The loaded library; OSError naming every place looked at when none loads, or when the
    library's struct layout differs from the mirror above."""
    tried = []
    for path in _candidates():
        path = os.path.normpath(path)
        if not os.path.isfile(path):
            tried.append(path + " (missing)")
            continue
        lib = ctypes.CDLL(path)
        if not hasattr(lib, "hst_py_struct_size"):
            raise OSError(path + ": not halostream's Python library (no hst_py_struct_size)")
        _declare(lib)
        for i, mirror in enumerate(MIRRORS):
            if lib.hst_py_struct_size(i) != ctypes.sizeof(mirror):
                raise OSError("%s: struct %s is %d bytes in the library, %d in the package: "
                              "rebuild with `make python` from the same source" %
                              (path, mirror.__name__, lib.hst_py_struct_size(i),
                               ctypes.sizeof(mirror)))
        return lib
    raise OSError("halostream: libhalostream.so not found (build it with `make python`, or set "
                  "HALOSTREAM_LIB); looked at: " + ", ".join(tried))
