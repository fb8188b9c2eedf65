"""ctypes mirror of the parts of backend.h, esrrf.h and liquid.h the package calls, and the
loading of the shared library that python/setup.py builds into the package.

The library is, in order: $HALOSTREAM_LIB (a file: an override, e.g. a debug build); else the
package's OpenCL build (_libhalostream_opencl<suffix>), which needs the OpenCL ICD loader
(libOpenCL.so.1) at run time; else, where that loader is missing or the package was built
without OpenCL, the package's host build (_libhalostream_host<suffix>, -DHST_NO_OPENCL: the
host device alone). The structs below mirror the C ones field for field; load() compares their
sizes with the library's own (hst_py_struct_size) and refuses a library whose layout differs."""

import ctypes
import importlib.machinery
import os

u64 = ctypes.c_uint64
vp = ctypes.c_void_p
LOG_FN = ctypes.CFUNCTYPE(None, vp, ctypes.c_int, ctypes.c_int, ctypes.c_char_p)
PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, u64, u64, vp)
TIMEPOINT_FN = ctypes.CFUNCTYPE(None, u64, ctypes.POINTER(ctypes.POINTER(ctypes.c_float)),
                                ctypes.c_uint32, ctypes.c_uint32, vp)

HST_SUCCESS = 0                                                  # the other codes by name
DEVICE_TYPES = {1: "host", 2: "cpu", 3: "gpu", 4: "accelerator", 5: "other"}   # hst_device_type
DTYPES = {"uint8": 1, "uint16": 2, "int16": 3, "float32": 4}   # hst_esrrf_dtype
# esrrf.h's HST_ESRRF_MODES in lower case (out[] index = bit number); load() checks them against
# the library's hst_esrrf_mode_name
MODES = ("avg", "var", "tac2")


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
    _fields_ = [("alloc", vp), ("free", vp), ("user", vp)]


class BackendDesc(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("logger", LOG_FN), ("log_user", vp),
                ("log_level", ctypes.c_int), ("allocator", Allocator),
                ("cache_dir", ctypes.c_char_p), ("no_disk_cache", ctypes.c_int),
                ("device_memory_limit_bytes", u64), ("wrap_context", vp),
                ("wrap_queue", vp)]


class EsrrfDesc(ctypes.Structure):
    _fields_ = [("magnification", ctypes.c_uint), ("radius", ctypes.c_float),
                ("sensitivity", ctypes.c_float), ("no_intensity_weighting", ctypes.c_int),
                ("no_macro_pixel_correction", ctypes.c_int), ("frames_per_timepoint", u64),
                ("modes", ctypes.c_uint), ("path", ctypes.c_int),
                ("backends", ctypes.POINTER(vp)), ("num_backends", ctypes.c_uint),
                ("budget_bytes", u64), ("block_frames", u64), ("progress", PROGRESS_FN),
                ("progress_user", vp), ("on_timepoint", TIMEPOINT_FN),
                ("timepoint_user", vp), ("mpi_comm", vp), ("rolling_step", u64)]


class EsrrfReport(ctypes.Structure):
    _fields_ = [("frames", u64), ("timepoints", u64), ("frames_per_timepoint", u64),
                ("last_timepoint_frames", u64),
                ("block_frames", u64), ("frames_by_path", u64 * 2), ("path", ctypes.c_int),
                ("decided_by", ctypes.c_int), ("seconds_per_frame", ctypes.c_double * 2),
                ("estimate_from", ctypes.c_int * 2),
                ("stream_seconds", ctypes.c_double), ("finish_seconds", ctypes.c_double),
                ("seconds", ctypes.c_double), ("setup_seconds", ctypes.c_double),
                ("teardown_seconds", ctypes.c_double), ("wait_seconds", ctypes.c_double),
                ("handoffs", u64), ("handoff_frames_max", u64),
                ("push_copy_seconds", ctypes.c_double), ("push_wait_seconds", ctypes.c_double),
                ("worker_idle_seconds", ctypes.c_double),
                ("finish_wait_seconds", ctypes.c_double),
                ("mpi_setup_seconds", ctypes.c_double), ("mpi_sums_seconds", ctypes.c_double),
                ("mpi_correct_seconds", ctypes.c_double), ("mpi_gather_seconds", ctypes.c_double)]


SWEEP_MAX = 8   # esrrf.h's HST_ESRRF_SWEEP_MAX
_Table = ctypes.c_double * SWEEP_MAX * SWEEP_MAX


class EsrrfSweepDesc(ctypes.Structure):
    _fields_ = [("radii", ctypes.POINTER(ctypes.c_float)), ("num_radii", ctypes.c_uint),
                ("sensitivities", ctypes.POINTER(ctypes.c_float)),
                ("num_sensitivities", ctypes.c_uint), ("use_decorr", ctypes.c_int)]


class EsrrfSweepResult(ctypes.Structure):
    _fields_ = [("qnr", _Table), ("rsp", _Table), ("resolution", _Table),
                ("best_sensitivity", ctypes.c_uint), ("best_radius", ctypes.c_uint),
                ("timepoints", u64), ("pass_seconds", ctypes.c_double),
                ("score_seconds", ctypes.c_double), ("seconds", ctypes.c_double)]


# hst_py_struct_size's order
MIRRORS = (DeviceInfo, BackendDesc, EsrrfDesc, EsrrfReport, EsrrfSweepDesc, EsrrfSweepResult)


# liquid.h's (and the choice.h structs its calls fill)
class ShiftMagnifyDesc(ctypes.Structure):
    _fields_ = [("shift_row", ctypes.c_float), ("shift_col", ctypes.c_float),
                ("magnification_row", ctypes.c_float), ("magnification_col", ctypes.c_float)]


class RgcDesc(ctypes.Structure):
    _fields_ = [("magnification", ctypes.c_uint), ("radius", ctypes.c_float),
                ("sensitivity", ctypes.c_float), ("no_intensity_weighting", ctypes.c_int)]


class LiquidDesc(ctypes.Structure):
    _fields_ = [("backends", ctypes.POINTER(vp)), ("num_backends", ctypes.c_uint),
                ("backend_desc", ctypes.POINTER(BackendDesc)), ("choice", vp),
                ("clear_benchmarks", ctypes.c_int), ("testing", ctypes.c_int),
                ("tolerance", ctypes.c_double), ("verbose", ctypes.c_int)]


_F32P = ctypes.POINTER(ctypes.c_float)


class LiquidShiftMagnifyArgs(ctypes.Structure):
    _fields_ = [("image", _F32P), ("frames", u64), ("rows", ctypes.c_uint32),
                ("cols", ctypes.c_uint32), ("desc", ShiftMagnifyDesc), ("out", _F32P)]


class LiquidRobertsCrossArgs(ctypes.Structure):
    _fields_ = [("image", _F32P), ("frames", u64), ("rows", ctypes.c_uint32),
                ("cols", ctypes.c_uint32), ("gradient_col", _F32P), ("gradient_row", _F32P)]


class LiquidRgcArgs(ctypes.Structure):
    _fields_ = [("gradient_col_interp", _F32P), ("gradient_row_interp", _F32P),
                ("image_interp", _F32P), ("frames", u64), ("rows_mag", ctypes.c_uint32),
                ("cols_mag", ctypes.c_uint32), ("desc", RgcDesc), ("out", _F32P)]


class LiquidEsrrfArgs(ctypes.Structure):
    _fields_ = [("desc", EsrrfDesc), ("stack", vp), ("dtype", ctypes.c_int), ("frames", u64),
                ("rows", ctypes.c_uint32), ("cols", ctypes.c_uint32),
                ("out", ctypes.POINTER(vp)), ("report", ctypes.POINTER(EsrrfReport))]


class ChoiceOutcome(ctypes.Structure):
    _fields_ = [("impl", ctypes.c_uint), ("name", ctypes.c_char_p),
                ("seconds", ctypes.c_double), ("parts", ctypes.c_size_t),
                ("explored", ctypes.c_int), ("forced", ctypes.c_int),
                ("failures", ctypes.c_uint)]


class ChoiceBenchRow(ctypes.Structure):
    _fields_ = [("impl", ctypes.c_char_p), ("device", ctypes.c_char_p), ("result", ctypes.c_int),
                ("runs", ctypes.c_uint), ("median_s", ctypes.c_double),
                ("best_s", ctypes.c_double), ("vs_best", ctypes.c_double),
                ("max_rel_error", ctypes.c_double), ("correlation", ctypes.c_double),
                ("reference", ctypes.c_int), ("chosen", ctypes.c_int),
                ("tags", ctypes.c_char_p)]


# hst_py_liquid_struct_size's order
LIQUID_MIRRORS = (ShiftMagnifyDesc, RgcDesc, LiquidDesc, LiquidShiftMagnifyArgs,
                  LiquidRobertsCrossArgs, LiquidRgcArgs, LiquidEsrrfArgs, ChoiceOutcome,
                  ChoiceBenchRow)
# liquid.h's HST_LIQUID_METHODS, in order (hst_liquid_method); load() checks the count
LIQUID_METHODS = ("shift_magnify", "roberts_cross", "radial_gradient_convergence", "esrrf")


def _declare(lib):
    sz, u32, c_int = ctypes.c_size_t, ctypes.c_uint32, ctypes.c_int
    ref = ctypes.POINTER
    sigs = {
        "hst_py_struct_size": (sz, [c_int]),
        "hst_py_esrrf_defaults": (None, [ref(ctypes.c_uint), ref(ctypes.c_float),
                                         ref(ctypes.c_float)]),
        "hst_result_string": (ctypes.c_char_p, [c_int]),
        "hst_log_item_name": (ctypes.c_char_p, [c_int]),
        "hst_esrrf_mode_name": (ctypes.c_char_p, [c_int]),
        "hst_backend_interrupt_clear": (None, [vp]),
        "hst_devices": (c_int, [ref(DeviceInfo), sz, ref(sz)]),
        "hst_esrrf_backend_create": (c_int, [ref(BackendDesc), ref(vp), ref(c_int)]),
        "hst_backend_device": (ref(DeviceInfo), [vp]),
        "hst_backend_destroy": (c_int, [vp]),   # refused (nonzero) while a session holds it
        "hst_esrrf_output_shape": (c_int, [ref(EsrrfDesc), u64, u32, u32, ref(u64), ref(u32),
                                           ref(u32)]),
        "hst_esrrf_run": (c_int, [ref(EsrrfDesc), vp, c_int, u64, u32, u32, ref(vp),
                                  ref(EsrrfReport)]),
        "hst_esrrf_sweep": (c_int, [ref(EsrrfDesc), ref(EsrrfSweepDesc), vp, c_int, u64, u32, u32,
                                    ref(vp), ref(EsrrfSweepResult)]),
        "hst_esrrf_live_create": (c_int, [ref(EsrrfDesc), c_int, u32, u32, ref(vp)]),
        "hst_esrrf_live_push": (c_int, [vp, vp, u64, u32, u32]),
        "hst_esrrf_live_finish": (c_int, [vp, ref(EsrrfReport)]),
        "hst_esrrf_live_destroy": (None, [vp]),
        "hst_py_liquid_struct_size": (sz, [c_int]),
        "hst_py_liquid_limits": (None, [ref(ctypes.c_float), ref(ctypes.c_uint)]),
        "hst_liquid_create": (c_int, [ref(LiquidDesc), ref(vp)]),
        "hst_liquid_destroy": (c_int, [vp]),
        "hst_liquid_num_backends": (ctypes.c_uint, [vp]),
        "hst_liquid_backend": (vp, [vp, ctypes.c_uint]),
        "hst_liquid_impl_name": (ctypes.c_char_p, [vp, ctypes.c_uint]),
        "hst_liquid_impl_tags": (ctypes.c_char_p, [vp, ctypes.c_uint]),
        "hst_shift_magnify_shape": (c_int, [u32, u32, ref(ShiftMagnifyDesc), ref(u32),
                                            ref(u32)]),
        "hst_liquid_shift_magnify": (c_int, [vp, ref(LiquidShiftMagnifyArgs), ctypes.c_char_p,
                                             ref(ChoiceOutcome)]),
        "hst_liquid_roberts_cross": (c_int, [vp, ref(LiquidRobertsCrossArgs), ctypes.c_char_p,
                                             ref(ChoiceOutcome)]),
        "hst_liquid_radial_gradient_convergence": (c_int, [vp, ref(LiquidRgcArgs),
                                                           ctypes.c_char_p, ref(ChoiceOutcome)]),
        "hst_liquid_esrrf": (c_int, [vp, ref(LiquidEsrrfArgs), ctypes.c_char_p,
                                     ref(ChoiceOutcome)]),
        "hst_liquid_benchmark": (c_int, [vp, c_int, vp, ctypes.c_uint, ref(ChoiceBenchRow),
                                         sz, ref(sz)]),
        "hst_choice_table": (sz, [ref(ChoiceBenchRow), sz, ctypes.c_char_p, sz]),
        "hst_liquid_clear": (c_int, [vp, c_int]),
        "hst_py_sigint_arm": (c_int, [ref(vp), ctypes.c_uint]),   # _run.call's Ctrl-C
        "hst_py_sigint_disarm": (c_int, []),
        "hst_py_sigint_fired": (c_int, []),
        "hst_py_all_finite": (c_int, [vp, sz]),   # check_image's NaN and Inf test
    }
    declare(lib, sigs)


def declare(lib, sigs):
    """sigs {function name: (restype, [argtypes])} set on lib's functions (the package's parts
    declare theirs through it: _errors.part)."""
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


def liquid_limits(lib):
    """liquid.h's limits, read from the library (hst_py_liquid_limits) so that they live in C
    alone: shift_magnification (HST_LIQUID_MAX_MAGNIFICATION), methods
    (HST_LIQUID_NUM_METHODS)."""
    shift, methods = ctypes.c_float(0), ctypes.c_uint(0)
    lib.hst_py_liquid_limits(ctypes.byref(shift), ctypes.byref(methods))
    return {"shift_magnification": shift.value, "methods": methods.value}


def _packaged(stem):
    """The package's build of that name (the extension suffix setuptools gave it), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(here, stem + suffix)
        if os.path.isfile(path):
            return path
    return None


def _sizes(mirror):
    """The sizes the C struct may have: hst_backend_desc ends without its OpenCL fields
    (wrap_context, wrap_queue) in a build with HST_NO_OPENCL; the package always passes the
    whole mirror, whose prefix such a build reads."""
    if mirror is BackendDesc:
        return (ctypes.sizeof(mirror), BackendDesc.wrap_context.offset)
    return (ctypes.sizeof(mirror),)


def _open(path):
    """The library at path, declared and checked against the mirrors above."""
    lib = ctypes.CDLL(path)
    if not hasattr(lib, "hst_py_struct_size"):
        raise OSError(path + ": not halostream's Python library (no hst_py_struct_size)")
    _declare(lib)
    for probe, mirrors in ((lib.hst_py_struct_size, MIRRORS),
                           (lib.hst_py_liquid_struct_size, LIQUID_MIRRORS)):
        for i, mirror in enumerate(mirrors):
            if probe(i) not in _sizes(mirror):
                raise OSError("%s: struct %s is %d bytes in the library, %d in the package: "
                              "build the library from the package's source" %
                              (path, mirror.__name__, probe(i), ctypes.sizeof(mirror)))
    if liquid_limits(lib)["methods"] != len(LIQUID_METHODS):
        raise OSError("%s: the library's Liquid Engine has %d methods, the package's %d: build "
                      "the library from the package's source"
                      % (path, liquid_limits(lib)["methods"], len(LIQUID_METHODS)))
    names = []
    while lib.hst_esrrf_mode_name(len(names)) is not None:   # NULL past the last mode
        names.append(lib.hst_esrrf_mode_name(len(names)).decode().lower())
    if tuple(names) != MODES:
        raise OSError("%s: the library's eSRRF modes are %s, the package's %s: build the library "
                      "from the package's source" % (path, ", ".join(names), ", ".join(MODES)))
    return lib


def load():
    """(the loaded library, a note saying why the host build was taken or None). OSError when
    $HALOSTREAM_LIB does not load, or when the package holds no build that loads (each reason
    named)."""
    env = os.environ.get("HALOSTREAM_LIB")
    if env:
        if not os.path.isfile(env):
            raise OSError("halostream: HALOSTREAM_LIB=%s: no such file" % env)
        return _open(env), None
    opencl, host = _packaged("_libhalostream_opencl"), _packaged("_libhalostream_host")
    reason = "the package was built without OpenCL (no OpenCL headers or ICD loader then)"
    if opencl:
        try:
            return _open(opencl), None
        except OSError as e:   # typically libOpenCL.so.1 missing: the host device still works
            reason = "its OpenCL build did not load (%s)" % e
    if host:
        return _open(host), "halostream: host device only: " + reason
    raise OSError("halostream: no library in the package next to %s (reinstall with "
                  "`pip install ./python`, or set HALOSTREAM_LIB)" % os.path.dirname(__file__))
