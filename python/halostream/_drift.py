"""Drift correction on a Backend: quality.h's drift estimation (hst_drift_open, _push, _finish:
FFT cross-correlation against a reference, NanoPyx's drift alignment) over a stack read a block
of frames at a time, and the stack corrected by liquid.h's hst_drift_correct (the Catmull-Rom
shift at magnification 1 by minus the drift, a frame at a time), as examples/esrrf.c's --drift
does. halostream.drift and esrrf(drift=...) run them; the ctypes mirror of
hst_drift_desc is here, checked against the library's (hst_py_quality_struct_size(8))."""

import ctypes

import numpy as np

from . import _check, _errors, _frames, _lib, _run

sz, c_int = ctypes.c_size_t, ctypes.c_int
MEAN_FRAMES = 10   # reference="mean" without reference_frames: the first 10 frames (the CLI's
                   # --drift=mean: a still reference with 3x less noise than one frame)
PEAKS = ("gaussian", "parabola", "catmull-rom")   # hst_drift_peak's order
DRIFT_DESC_PROBE = 8                               # hst_py_quality_struct_size's hst_drift_desc


class DriftDesc(ctypes.Structure):
    _fields_ = [("reference", c_int), ("reference_frames", sz), ("max_shift", ctypes.c_uint),
                ("peak", c_int), ("averaging", sz), ("batch", sz)]


def library():
    """The loaded library with the drift and shift functions declared."""
    return _errors.part("drift correction", "hst_drift_reference_parse", _declare)


def _declare(lib):
    vp, ref = ctypes.c_void_p, ctypes.POINTER
    _lib.declare(lib, {
        "hst_drift_reference_parse": (c_int, [ctypes.c_char_p]),
        "hst_drift_open": (c_int, [vp, sz, sz, ref(DriftDesc), ref(vp)]),
        "hst_drift_push": (c_int, [vp, vp, c_int, sz]),
        "hst_drift_finish": (c_int, [vp, ref(ctypes.c_double), sz]),
        "hst_drift_close": (None, [vp]),
        "hst_drift_correct": (c_int, [vp, vp, sz, ctypes.c_uint32, ctypes.c_uint32,
                                      ref(ctypes.c_double)]),
        "hst_py_quality_struct_size": (sz, [c_int])})
    if lib.hst_py_quality_struct_size(DRIFT_DESC_PROBE) != ctypes.sizeof(DriftDesc):
        raise OSError("halostream: struct hst_drift_desc is %d bytes in the library, %d in the "
                      "package: build the library from the package's source"
                      % (lib.hst_py_quality_struct_size(DRIFT_DESC_PROBE),
                         ctypes.sizeof(DriftDesc)))


def reference_code(where, name, value):
    """'first', 'mean' or 'previous' (quality.h's names) as its hst_drift_reference."""
    code = -1
    if isinstance(value, str) and "\0" not in value:
        code = library().hst_drift_reference_parse(value.encode())
    if code < 0:
        raise ValueError("%s: %s must be 'first', 'mean' or 'previous' (the reference frame), "
                         "got %r" % (where, name, value))
    return code


def desc(where, frames, reference="first", reference_frames=None, averaging=1, max_shift=0,
         peak="gaussian", name="reference"):
    """The checked DriftDesc for a stack of frames (>= 2). name: how the reference argument is
    called (esrrf's is drift)."""
    d = DriftDesc()
    d.reference = reference_code(where, name, reference)
    if frames < 2:
        raise ValueError("%s: %s=%r needs a stack of 2 frames or more, the stack has %d"
                         % (where, name, reference, frames))
    if reference_frames is not None and reference != "mean":
        raise ValueError("%s: reference_frames belongs to %s='mean', got %s=%r"
                         % (where, name, name, reference))
    if reference == "mean":
        d.reference_frames = min(MEAN_FRAMES, frames) if reference_frames is None else \
            _check.integer(where, "reference_frames", reference_frames, 1, frames)
    d.averaging = _check.integer(where, "averaging", averaging, 1, _check.U32_MAX)
    d.max_shift = _check.integer(where, "max_shift", max_shift, 0, 2**30 - 1)
    if peak not in PEAKS:
        raise ValueError("%s: peak must be one of %s, got %r" % (where, ", ".join(PEAKS), peak))
    d.peak = PEAKS.index(peak)
    return d


def estimate(backend, src, d, progress=None):
    """Every frame's drift of src (a _frames.Source) on backend's first device: a float64
    (frames, 2) array of (dy, dx) in input pixels (frame(y, x) = reference(y - dy, x - dx)),
    src read a block at a time (quality.h: the same drift for any blocks)."""
    where = "drift"
    lib = library()
    table = np.empty((src.frames, 2), np.float64)
    session = ctypes.c_void_p()
    monitor = _run.Monitor(_check.progress(where, progress))
    code = _check.dtype_code(where, src.dtype)
    with backend._batch(where):
        handle = ctypes.c_void_p(backend._handles[0])
        try:
            r = lib.hst_drift_open(handle, src.rows, src.cols, ctypes.byref(d),
                                   ctypes.byref(session))
            step = src.block_frames()
            for a in range(0, src.frames, step):
                if r:
                    break
                b = min(a + step, src.frames)
                block = src.block(a, b)
                r = _run.call(lambda: lib.hst_drift_push(session, block.ctypes.data, code, b - a),
                              monitor, backend)
                src.release(a, b)
                monitor(b, src.frames, None)
            if not r:
                r = lib.hst_drift_finish(session, table.ctypes.data_as(
                    ctypes.POINTER(ctypes.c_double)), src.frames)
        finally:
            lib.hst_drift_close(session)
            monitor.close()
        _errors.check(r, backend._messages or ["drift failed"])
    return table


class Corrected:
    """A stack corrected by its drift table, read as a frame-indexable float32 array (shape,
    dtype, [a:b]; what _frames streams): each block of the source's frames shifted back by its
    drift with liquid.h's hst_drift_correct on the backend's first device (a frame at a time
    under the backend's lock: a live session works on it meanwhile). close() closes the
    source."""

    def __init__(self, backend, src, table):
        self.backend, self.src = backend, src
        self.table = np.ascontiguousarray(table, dtype=np.float64)
        self.shape, self.dtype = (src.frames, src.rows, src.cols), np.dtype(np.float32)
        self.lib = library()
        self.handle = ctypes.c_void_p(backend._handles[0])

    def __getitem__(self, key):
        a, b, _ = key.indices(self.shape[0])
        out = np.array(self.src.block(a, b), dtype=np.float32)   # a copy: never the caller's
        self.src.release(a, b)
        if b > a:
            drift = self.table[a:b].ctypes.data_as(ctypes.POINTER(ctypes.c_double))
            r = self.lib.hst_drift_correct(self.handle, out.ctypes.data, b - a, self.shape[1],
                                           self.shape[2], drift)
            _errors.check(r, self.backend._messages or ["drift correction failed"])
        return out

    def close(self):
        self.src.close()


def drift(backend, stack, reference="first", reference_frames=None, averaging=1, max_shift=0,
          peak="gaussian", progress=False):
    """halostream.drift on a Backend."""
    with _frames.source("drift", stack) as src:
        d = desc("drift", src.frames, reference, reference_frames, averaging, max_shift, peak)
        return estimate(backend, src, d, progress)


def table_of(where, drift, frames):
    """esrrf's drift= as a table: an array (frames, 2) of (dy, dx) pixels, finite."""
    t = np.asarray(drift, dtype=np.float64)
    if t.shape != (frames, 2) or not np.all(np.isfinite(t)):
        raise ValueError("%s: drift must be 'first', 'mean', 'previous' or a finite (frames, 2) "
                         "table of (dy, dx) pixels (halostream.drift's), got %s for %d frames"
                         % (where, "shape %s" % (t.shape,) if t.shape != (frames, 2)
                            else "a table with NaN or Inf", frames))
    return t


def corrected_esrrf(backend, stack, drift_arg, options, progress, out, on_timepoint):
    """esrrf(stack, drift=drift_arg, ...) on backend: the drift table (estimated, or the one
    given), then eSRRF of the corrected frames streamed through a live session (_frames.esrrf:
    two passes over a stack larger than memory; bounded host memory)."""
    where = "esrrf"
    _check.desc(where, **options)
    with _frames.source(where, stack) as src:
        if isinstance(drift_arg, str):
            table = estimate(backend, src, desc(where, src.frames, drift_arg, name="drift"),
                             progress)
        else:
            if src.frames < 2:
                raise ValueError("%s: drift (a table) needs a stack of 2 frames or more, the "
                                 "stack has %d" % (where, src.frames))
            table = table_of(where, drift_arg, src.frames)
        fixed = Corrected(backend, _frames.source(where, stack), table)
        try:
            result = _frames.esrrf(lambda: backend, fixed, options, progress, out, on_timepoint)
        finally:
            fixed.close()
    backend.last_drift = table
    return result
