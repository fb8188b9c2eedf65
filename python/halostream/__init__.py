"""halostream — eSRRF super-resolution of NumPy stacks on OpenCL devices or the host.

    import numpy as np, halostream
    stack = np.asarray(frames, dtype=np.uint16)           # (T, rows, cols), C order
    out = halostream.esrrf(stack, magnification=5, modes=("avg", "var"))
    out["avg"].shape                                       # (1, rows * 5, cols * 5), float32
    halostream.devices()                                   # what device= can name

A thin ctypes layer over the C library (esrrf.h, built as build/libhalostream.so by
`make python`; see _lib.py for how it is found). The stack is read in place, never copied."""

import ctypes
import sys
import threading
import time

import numpy as np

from . import _lib

__all__ = ["esrrf", "devices", "HalostreamError", "InvalidArgument", "Cancelled"]
__version__ = "0.1.0"

_LIB = None


def _library():
    global _LIB
    if _LIB is None:
        _LIB = _lib.load()
    return _LIB


class HalostreamError(RuntimeError):
    """A call of the library failed: .code is its hst_result (a negative number, or an OpenCL
    error code), .name its name ("HST_ERROR_OUT_OF_DEVICE_MEMORY"), the message what the
    library logged about it."""

    def __init__(self, code, message):
        self.code = code
        self.name = _library().hst_result_string(code).decode()
        super().__init__("%s (%s, %d)" % (message or self.name, self.name, code))


class InvalidArgument(HalostreamError, ValueError):
    """HST_ERROR_INVALID_ARGUMENT: an option the library refused (the message names it)."""


class Cancelled(HalostreamError):
    """HST_ERROR_CANCELLED: the run was stopped (Ctrl-C raises KeyboardInterrupt instead)."""


def _error(code, messages):
    cls = {-20001: InvalidArgument, _lib.HST_ERROR_CANCELLED: Cancelled}.get(code, HalostreamError)
    return cls(code, "; ".join(messages))


def _text(field):
    return field.decode("utf-8", "replace")


def devices():
    """Every device halostream can run on, as examples/devices lists them (the host device
    last): dicts with selector (what device= takes: "P:D" or "host"), name, platform, type
    ("host", "cpu", "gpu", "accelerator", "other"), vendor, compute_units,
    global_mem_bytes, fp64."""
    lib = _library()
    count = ctypes.c_size_t(0)
    r = lib.hst_devices(None, 0, ctypes.byref(count))
    if r != _lib.HST_SUCCESS:
        raise _error(r, ["hst_devices failed"])
    infos = (_lib.DeviceInfo * max(count.value, 1))()
    got = ctypes.c_size_t(count.value)
    r = lib.hst_devices(infos, count.value, ctypes.byref(got))
    if r != _lib.HST_SUCCESS:
        raise _error(r, ["hst_devices failed"])
    return [{"selector": _text(d.selector), "name": _text(d.name),
             "platform": _text(d.platform_name), "type": _lib.DEVICE_TYPES.get(d.type, "other"),
             "vendor": _text(d.vendor), "compute_units": d.compute_units,
             "global_mem_bytes": d.global_mem_bytes, "fp64": bool(d.fp64)}
            for d in infos[:min(got.value, count.value)]]


class _Progress:
    """Frames done so far, shown once a run has lasted show_after seconds (tqdm's bar where
    tqdm is installed, else one line rewritten on stderr); cancel() makes the library stop."""

    def __init__(self, enabled, show_after=1.0):
        self.enabled, self.show_after = enabled, show_after
        self.start = time.monotonic()
        self.bar = None
        self.cancelled = False
        self.shown = False

    def __call__(self, done, total, user):
        if self.enabled and time.monotonic() - self.start >= self.show_after:
            self._show(done, total)
        return 1 if self.cancelled else 0

    def _show(self, done, total):
        if self.bar is None and not self.shown:
            try:
                import tqdm
                self.bar = tqdm.tqdm(total=total, unit="frame", desc="eSRRF")
            except ImportError:
                pass
        self.shown = True
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
        else:
            of = " / %d frames (%d%%)" % (total, 100 * done // total) if total else " frames"
            sys.stderr.write("\reSRRF: %d%s" % (done, of))
            sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.shown:
            sys.stderr.write("\n")


def _check_stack(stack):
    if not isinstance(stack, np.ndarray):
        raise TypeError("esrrf: stack must be a numpy.ndarray (T, rows, cols), got %s"
                        % type(stack).__name__)
    if stack.ndim != 3:
        raise ValueError("esrrf: stack must have 3 dimensions (T, rows, cols), got %d (shape %s)"
                         % (stack.ndim, stack.shape))
    if stack.dtype.name not in _lib.DTYPES or not stack.dtype.isnative:
        raise TypeError("esrrf: stack dtype must be native-order uint8, uint16, int16 or float32, "
                        "got %s (%s; convert with stack.astype(numpy.float32))"
                        % (stack.dtype.name, stack.dtype.str))
    if not stack.flags.c_contiguous:
        raise ValueError("esrrf: stack must be C-contiguous (it is read in place, not copied); "
                         "pass numpy.ascontiguousarray(stack)")
    if max(stack.shape[1:]) > 0xFFFFFFFF:
        raise ValueError("esrrf: rows and cols must be below 2**32, got %s" % (stack.shape,))


def _mode_bits(modes):
    if isinstance(modes, str):
        modes = (modes,)
    bits = 0
    for m in modes:
        key = str(m).lower()
        if key not in _lib.MODES:
            raise ValueError("esrrf: modes: unknown mode %r (expected avg, var, tac2)" % (m,))
        bits |= 1 << _lib.MODES.index(key)
    if bits == 0:
        raise ValueError("esrrf: modes must name at least one of avg, var, tac2")
    return bits


def _number(name, value, low, integer):
    """value as a number >= low (0 in the C desc means the default, so 0 must not pass)."""
    if integer and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
        raise TypeError("esrrf: %s must be an integer, got %r" % (name, value))
    if not integer and not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError("esrrf: %s must be a number, got %r" % (name, value))
    if not value >= low or (not integer and value == 0):
        raise ValueError("esrrf: %s must be %s %s, got %r"
                         % (name, ">=" if integer else ">", low, value))
    return value


def _desc(magnification, radius, sensitivity, intensity_weighting, frames_per_timepoint,
          modes, macro_pixel_correction, fused):
    d = _lib.EsrrfDesc()
    d.magnification = _number("magnification", magnification, 1, True)
    d.radius = _number("radius", radius, 0, False)
    d.sensitivity = _number("sensitivity", sensitivity, 0, False)
    d.no_intensity_weighting = 0 if intensity_weighting else 1
    d.no_macro_pixel_correction = 0 if macro_pixel_correction else 1
    d.frames_per_timepoint = _number("frames_per_timepoint", frames_per_timepoint, 0, True)
    d.modes = _mode_bits(modes)
    d.path = {None: 0, True: 1, False: 2}[fused if fused is None else bool(fused)]
    return d


class _Backends:
    """The backends of device= (one selector or a list of them), all logging into .messages."""

    def __init__(self, device):
        selectors = [device] if device is None or isinstance(device, str) else list(device)
        if not 1 <= len(selectors) <= 8:
            raise ValueError("esrrf: device must be a selector or a list of 1 to 8 selectors")
        self.messages = []
        self.logger = _lib.LOG_FN(self._log)
        self.handles = (ctypes.c_void_p * len(selectors))()
        self.count = 0
        for sel in selectors:
            self._create(sel)

    def _log(self, user, level, item, message):
        if level <= 2:   # errors and warnings: the reason an error carries
            self.messages.append(message.decode("utf-8", "replace"))

    def _create(self, selector):
        bd = _lib.BackendDesc()
        bd.device = None if selector is None else str(selector).encode()
        bd.logger, bd.log_level = self.logger, 2
        handle = ctypes.c_void_p()
        # auto: a GPU where there is one, else the host device (faster than PoCL for eSRRF)
        r = _library().hst_esrrf_backend_create(ctypes.byref(bd), ctypes.byref(handle), None)
        if r != _lib.HST_SUCCESS:
            self.close()
            raise _error(r, self.messages or ["device %r: backend not created" % (selector,)])
        self.handles[self.count] = handle.value
        self.count += 1

    def close(self):
        for i in range(self.count):
            _library().hst_backend_destroy(self.handles[i])
        self.count = 0


def _run_interruptibly(fn, progress):
    """fn() on a worker thread; Ctrl-C sets progress.cancelled, the library stops at its next
    block, and KeyboardInterrupt is raised once it has returned."""
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("r", fn()), daemon=True)
    worker.start()
    interrupted = False
    while worker.is_alive():
        try:
            worker.join(0.1)
        except KeyboardInterrupt:
            interrupted = progress.cancelled = True
    if interrupted:
        raise KeyboardInterrupt
    return result["r"]


def esrrf(stack, magnification=5, radius=1.5, sensitivity=1.0, intensity_weighting=True,
          frames_per_timepoint=0, modes=("avg",), macro_pixel_correction=True, device="auto",
          fused=None, progress=None):
    """eSRRF of a stack (Laine et al., Nat. Methods 2023; NanoPyx's conventions, as esrrf.h).

    stack: numpy array (T, rows, cols), C order, uint8 / uint16 / int16 / float32 in native
    byte order; read in place (never copied, never written). magnification 1..32; radius in
    input pixels, (0, 20]; sensitivity (0, 100]; intensity_weighting: RGC times the magnified
    frame; frames_per_timepoint: frames per output image, 0 = all (trailing frames that do not
    fill a time point are left out); modes: any of "avg", "var", "tac2" (all from one pass);
    macro_pixel_correction; device: a selector ("auto", "gpu", "cpu", "host", "P:D", a name;
    None: $HST_DEVICE, else auto) or a list of them (the frames split across devices);
    fused: None chooses the faster path by measured speed, True fused, False chained (same
    bits); progress: None shows a bar when a run lasts over a second, False never, True always.

    Returns {mode: float32 array (time points, rows * magnification, cols * magnification)}.
    Raises TypeError / ValueError for bad arguments, InvalidArgument (also a ValueError) for
    options the library refuses, HalostreamError for the library's other errors (.code,
    .name; the message is the library's log), KeyboardInterrupt after Ctrl-C (the run is
    cancelled cleanly, its devices released)."""
    _check_stack(stack)
    desc = _desc(magnification, radius, sensitivity, intensity_weighting, frames_per_timepoint,
                 modes, macro_pixel_correction, fused)
    lib = _library()
    backends = _Backends(device)
    try:
        return _esrrf_on(lib, backends, desc, stack, progress)
    finally:
        backends.close()


def _esrrf_on(lib, backends, desc, stack, progress):
    desc.backends = ctypes.cast(backends.handles, ctypes.POINTER(ctypes.c_void_p))
    desc.num_backends = backends.count
    T, rows, cols = stack.shape
    tps, rm, cm = _lib.u64(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
    r = lib.hst_esrrf_output_shape(ctypes.byref(desc), T, rows, cols, ctypes.byref(tps),
                                   ctypes.byref(rm), ctypes.byref(cm))
    if r != _lib.HST_SUCCESS:
        raise _error(r, backends.messages)
    names = [m for i, m in enumerate(_lib.MODES) if desc.modes >> i & 1]
    out = {m: np.empty((tps.value, rm.value, cm.value), dtype=np.float32) for m in names}
    ptrs = (ctypes.c_void_p * len(_lib.MODES))(
        *[out[m].ctypes.data if m in out else None for m in _lib.MODES])
    bar = _Progress(progress is not False, 0.0 if progress else 1.0)
    desc.progress = _lib.PROGRESS_FN(bar)
    report = _lib.EsrrfReport()
    try:
        r = _run_interruptibly(lambda: lib.hst_esrrf_run(
            ctypes.byref(desc), ctypes.c_void_p(stack.ctypes.data), _lib.DTYPES[stack.dtype.name],
            T, rows, cols, ptrs, ctypes.byref(report)), bar)
    finally:
        bar.close()
    if r != _lib.HST_SUCCESS:
        raise _error(r, backends.messages)
    return out
