"""halostream.Backend: the devices of a selector, opened once (OpenCL context, queues, programs
built on first use, the path choice's timings) and reused by every call; and its live eSRRF
sessions (frames pushed as a camera delivers them)."""

import atexit
import collections
import contextlib
import ctypes
import threading
import warnings
import weakref

import numpy as np

from . import _check, _drift, _errors, _frames, _lib, _quality, _run

_OPEN = weakref.WeakSet()   # closed at interpreter exit


def device_dict(d):
    """A hst_device_info as the dict devices() and Backend.devices give."""
    text = lambda field: field.decode("utf-8", "replace")   # noqa: E731
    return {"selector": text(d.selector), "name": text(d.name),
            "platform": text(d.platform_name), "type": _lib.DEVICE_TYPES.get(d.type, "other"),
            "vendor": text(d.vendor), "compute_units": d.compute_units,
            "global_mem_bytes": d.global_mem_bytes, "fp64": bool(d.fp64)}


def _report_dict(r):
    return {"frames": r.frames, "timepoints": r.timepoints,
            "frames_per_timepoint": r.frames_per_timepoint,
            "last_timepoint_frames": r.last_timepoint_frames,
            "block_frames": r.block_frames,
            "path": {1: "fused", 2: "chained"}.get(r.path, "none"),
            "stream_seconds": r.stream_seconds, "finish_seconds": r.finish_seconds,
            "seconds": r.seconds}


class EsrrfArgs:
    """The checked arguments of one eSRRF call: the desc (backends and callbacks left to the
    call), the stack's dtype code and shape. Built before any C call."""

    def __init__(self, stack, magnification, radius, sensitivity, intensity_weighting,
                 frames_per_timepoint, modes, macro_pixel_correction, fused, progress,
                 rolling=None):
        where = "esrrf"
        self.code, self.frames, self.rows, self.cols = _check.stack(where, stack)
        self.stack = stack
        self.desc = _check.desc(where, magnification, radius, sensitivity, intensity_weighting,
                                frames_per_timepoint, modes, macro_pixel_correction, fused,
                                rolling)
        self.progress = _check.progress(where, progress)


Sweep = collections.namedtuple("Sweep", "qnr rsp resolution best radii sensitivities images "
                               "report")
Sweep.__doc__ = """Backend.esrrf_sweep's result. qnr, rsp, resolution: float64 (sensitivities,
radii) maps in NanoPyx's layout (resolution in magnified pixels: FIRE, or decorrelation's);
best: (sensitivity, radius) of the first maximum of qnr (numpy.argmax); radii, sensitivities:
the values swept (float32, as the library took them); images: None, or {(sensitivity index,
radius index): float32 (time points, rows * mag, cols * mag)} AVG images; report: timepoints,
pass_seconds (the one pass over the frames), score_seconds, seconds."""


def _values(where, name, values):
    """1..8 numbers > 0 as float32s (a sequence or a NumPy array)."""
    v = [values] if np.isscalar(values) else list(values)
    if not 1 <= len(v) <= _lib.SWEEP_MAX:
        raise ValueError("%s: %s: give 1..%d values, got %d" % (where, name, _lib.SWEEP_MAX,
                                                                 len(v)))
    return [_check.positive_float32(where, name, x) for x in v]


def _mode_names(bits):
    return [m for i, m in enumerate(_lib.MODES) if bits >> i & 1]


class Backend:
    """The devices of `device` (a selector: "auto", "gpu", "cpu", "host", "P:D", a name; None:
    $HST_DEVICE, else auto; or a list of up to 8 of them: each call splits its work across
    them), opened once and kept: every call reuses its OpenCL context, queues, compiled
    programs and measured timings. `auto` takes a GPU where there is one, else the host device
    (faster than an OpenCL CPU device for eSRRF; esrrf.h's hst_esrrf_backend_create).

    One call or live session at a time: a call from another thread waits for the one running;
    a batch call while a live session is open raises RuntimeError. close() (or leaving a
    `with` block) releases the devices; open backends are closed at interpreter exit.
    Raises HalostreamError (e.g. HST_ERROR_NO_DEVICE) when a device cannot be opened.

    Processes: OpenCL cannot run in a child made by fork() once this process has used
    halostream (multiprocessing's default start method on Linux, "fork": the child would wait
    for ever for the OpenCL threads of its parent, which fork() does not copy). There the
    host device works: "host" and, with a RuntimeWarning, "auto" (and None with HST_DEVICE
    unset) open it; other selectors, and every call on a Backend of an OpenCL device the
    parent opened, raise HalostreamError (HST_ERROR_FORKED) at once. A host device Backend of
    the parent works in the child. Workers started with multiprocessing.get_context("spawn")
    (or "forkserver") are fresh processes: every device works there."""

    def __init__(self, device="auto"):
        selectors = _check.selectors(device)
        self._lib = _errors.library()
        self._messages = []
        self._logger = _lib.LOG_FN(self._log)   # kept alive as long as the backends
        self._handles = (ctypes.c_void_p * len(selectors))()
        self._count = 0
        self._lock = threading.Lock()           # held by a batch call or a live session
        self._live = None
        self._forked = None
        self.last_report = None
        self.last_drift = None                  # esrrf(drift=...)'s table
        try:
            for s in selectors:
                self._create(s)
        except BaseException:
            self._destroy()
            raise
        _OPEN.add(self)

    def _log(self, _user, level, item, message):
        if level <= 2:   # errors and warnings: the reasons an error carries
            self._messages.append(message.decode("utf-8", "replace"))
        if level == 2 and self._lib.hst_log_item_name(item) == b"FORKED":
            self._forked = self._messages[-1]   # `auto` took the host device in a forked child

    def _create(self, selector):
        bd = _lib.BackendDesc()
        bd.device, bd.logger, bd.log_level = selector, self._logger, 2
        handle = ctypes.c_void_p()
        try:   # Ctrl-C held back until the backend exists, then it is destroyed
            r = _run.call(lambda: self._lib.hst_esrrf_backend_create(
                ctypes.byref(bd), ctypes.byref(handle), None), _run.Monitor(False))
        except BaseException:
            if handle.value:
                self._lib.hst_backend_destroy(handle)
            raise
        _errors.check(r, self._messages or ["device %r: no backend" % (selector,)])
        self._handles[self._count] = handle.value
        self._count += 1
        if self._forked is not None:
            warnings.warn("halostream: " + self._forked, RuntimeWarning, stacklevel=4)
            self._forked = None

    def _sigint_targets(self):
        """The devices Ctrl-C interrupts during a call (_run.call): (hst_backend * array,
        count)."""
        return self._handles, self._count

    def _interrupt_clear(self):
        """Lets later calls run once a call or live session interrupted by Ctrl-C has let go of
        the backend (hst_backend_interrupt_clear)."""
        for i in range(self._count):
            self._lib.hst_backend_interrupt_clear(self._handles[i])

    def _destroy(self):
        count, self._count = self._count, 0   # an interruption leaks, never frees twice
        # live sessions are closed first, so a refusal (a session still holding one) is a bug
        codes = [self._lib.hst_backend_destroy(self._handles[i]) for i in range(count)]
        _errors.check(next((c for c in codes if c), 0), self._messages)

    @property
    def closed(self):
        return self._count == 0

    @property
    def devices(self):
        """The devices in use, as devices() lists them."""
        self._require_open("devices")
        return [device_dict(self._lib.hst_backend_device(self._handles[i]).contents)
                for i in range(self._count)]

    def _require_open(self, where):
        if self._count == 0:
            raise RuntimeError("Backend.%s: the backend is closed" % where)

    @contextlib.contextmanager
    def _batch(self, where):
        """Holds the backend for one batch call, its log cleared; a Ctrl-C's interruption
        cleared after it."""
        if self._live is not None:
            raise RuntimeError("Backend.%s: a live session is open on this backend (one at a "
                               "time); finish it first" % where)
        with self._lock:
            self._require_open(where)
            del self._messages[:]
            try:
                yield
            finally:
                self._interrupt_clear()

    def _attach(self, desc):
        desc.backends = ctypes.cast(self._handles, ctypes.POINTER(ctypes.c_void_p))
        desc.num_backends = self._count

    def esrrf(self, stack, magnification=None, radius=None, sensitivity=None,
              intensity_weighting=True, frames_per_timepoint=0, modes=("avg",),
              macro_pixel_correction=True, fused=None, progress=None, out=None,
              on_timepoint=None, rolling=None, drift=None):
        """eSRRF of a stack on this backend: halostream.esrrf's arguments and result, less
        device. The report of the run is then in .last_report (and with drift, the drift
        table in .last_drift)."""
        options = dict(magnification=magnification, radius=radius, sensitivity=sensitivity,
                       intensity_weighting=intensity_weighting,
                       frames_per_timepoint=frames_per_timepoint, modes=modes,
                       macro_pixel_correction=macro_pixel_correction, fused=fused,
                       rolling=rolling)
        if drift is not None:
            return _drift.corrected_esrrf(self, stack, drift, options, progress, out,
                                          on_timepoint)
        if _frames.streamed(stack, out, on_timepoint):
            return _frames.esrrf(lambda: self, stack, options, progress, out, on_timepoint)
        return self.run_esrrf(EsrrfArgs(stack, magnification, radius, sensitivity,
                                        intensity_weighting, frames_per_timepoint, modes,
                                        macro_pixel_correction, fused, progress, rolling))

    def run_esrrf(self, a):
        """esrrf() of checked arguments (EsrrfArgs)."""
        with self._batch("esrrf"):
            return self._run_batch(a)

    def _run_batch(self, a):
        lib, desc = self._lib, a.desc
        self._attach(desc)
        tps, rm, cm = _lib.u64(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
        r = lib.hst_esrrf_output_shape(ctypes.byref(desc), a.frames, a.rows, a.cols,
                                       ctypes.byref(tps), ctypes.byref(rm), ctypes.byref(cm))
        _errors.check(r, self._messages)
        out = {m: np.empty((tps.value, rm.value, cm.value), dtype=np.float32)
               for m in _mode_names(desc.modes)}
        ptrs = (ctypes.c_void_p * len(_lib.MODES))(
            *[out[m].ctypes.data if m in out else None for m in _lib.MODES])
        monitor = _run.Monitor(a.progress)
        desc.progress = _lib.PROGRESS_FN(monitor)
        report = _lib.EsrrfReport()
        try:
            r = _run.call(lambda: lib.hst_esrrf_run(
                ctypes.byref(desc), ctypes.c_void_p(a.stack.ctypes.data), a.code, a.frames,
                a.rows, a.cols, ptrs, ctypes.byref(report)), monitor, self)
        finally:
            monitor.close()
        _errors.check(r, self._messages)
        self.last_report = _report_dict(report)
        return out

    def esrrf_sweep(self, stack, radii=(1, 1.5), sensitivities=(1, 2), magnification=None,
                    intensity_weighting=True, frames_per_timepoint=0,
                    macro_pixel_correction=True, use_decorr=False, images=False,
                    progress=None):
        """NanoPyx's eSRRF parameter sweep (esrrf.h's hst_esrrf_sweep) on this backend's first
        device, in one pass over the frames: every (sensitivity, radius) pair's AVG image scored
        by QnR from its RSP (error map against the frames' mean) and its FRC resolution (odd
        against even frames) or, with use_decorr, its decorrelation resolution; with
        frames_per_timepoint (NanoPyx's n_frames) each time point is scored and the scores
        averaged. stack as esrrf()'s; radii, sensitivities: 1..8 values each (the defaults are
        NanoPyx's); images=True also returns every pair's AVG image (macro-pixel corrected as
        macro_pixel_correction says; the scores use uncorrected images, as NanoPyx), each
        bitwise what esrrf() gives at that pair. Returns a Sweep."""
        where = "esrrf_sweep"
        r_values = _values(where, "radii", radii)
        s_values = _values(where, "sensitivities", sensitivities)
        a = EsrrfArgs(stack, magnification, None, None, intensity_weighting,
                      frames_per_timepoint, ("avg",), macro_pixel_correction, None, progress)
        sw = _lib.EsrrfSweepDesc()
        r_arr = (ctypes.c_float * len(r_values))(*r_values)
        s_arr = (ctypes.c_float * len(s_values))(*s_values)
        sw.radii, sw.num_radii = r_arr, len(r_values)
        sw.sensitivities, sw.num_sensitivities = s_arr, len(s_values)
        sw.use_decorr = _check.flag(where, "use_decorr", use_decorr)
        want = _check.flag(where, "images", images)
        with self._batch(where):
            return self._run_sweep(a, sw, list(r_arr), list(s_arr), want)

    def _run_sweep(self, a, sw, radii, sens, want):
        lib, desc = self._lib, a.desc
        self._attach(desc)
        desc.num_backends = 1   # the sweep runs on one device
        tps, rm, cm = _lib.u64(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
        _errors.check(lib.hst_esrrf_output_shape(ctypes.byref(desc), a.frames, a.rows, a.cols,
                                                 ctypes.byref(tps), ctypes.byref(rm),
                                                 ctypes.byref(cm)), self._messages)
        keys = [(s, r) for s in range(len(sens)) for r in range(len(radii))]
        imgs = {k: np.empty((tps.value, rm.value, cm.value), np.float32) for k in keys} \
            if want else {}
        ptrs = (ctypes.c_void_p * len(keys))(
            *[imgs[k].ctypes.data if want else None for k in keys])
        monitor = _run.Monitor(a.progress, "steps")   # the sweep's: frames, then scores
        desc.progress = _lib.PROGRESS_FN(monitor)
        res = _lib.EsrrfSweepResult()
        try:
            r = _run.call(lambda: lib.hst_esrrf_sweep(
                ctypes.byref(desc), ctypes.byref(sw), ctypes.c_void_p(a.stack.ctypes.data),
                a.code, a.frames, a.rows, a.cols, ptrs, ctypes.byref(res)), monitor, self)
        finally:
            monitor.close()
        _errors.check(r, self._messages)
        maps = [np.array([[getattr(res, f)[s][k] for k in range(len(radii))]
                          for s in range(len(sens))]) for f in ("qnr", "rsp", "resolution")]
        best = (sens[res.best_sensitivity], radii[res.best_radius])
        report = {"timepoints": res.timepoints, "pass_seconds": res.pass_seconds,
                  "score_seconds": res.score_seconds, "seconds": res.seconds}
        return Sweep(maps[0], maps[1], maps[2], best, np.float32(radii), np.float32(sens),
                     imgs if want else None, report)

    def error_map(self, ref, sr, fixed_sigma=None, scores_only=False):
        """SQUIRREL's error map on this backend's first device: halostream.squirrel.error_map's
        arguments and result, less device."""
        return _quality.error_map(self, ref, sr, fixed_sigma, scores_only)

    def drift(self, stack, reference="first", reference_frames=None, averaging=1, max_shift=0,
              peak="gaussian", progress=False):
        """halostream.drift on this backend's first device."""
        return _drift.drift(self, stack, reference, reference_frames, averaging, max_shift,
                            peak, progress)

    def estimate_frames(self, stack, block_frames=None, sigmas=2.0, smoothing=3,
                        value_range=None):
        """halostream.estimate_frames with this backend's log and interruption."""
        return _quality.estimate_frames(self, stack, block_frames, sigmas, smoothing,
                                        value_range)

    def frc(self, a, b, pixel_size=1, units="pixels"):
        """FRC and its FIRE resolution on this backend's first device: halostream.frc's
        arguments and result, less device."""
        return _quality.frc(self, a, b, pixel_size, units)

    def decorrelation(self, img, rmin=0, rmax=1, n_r=50, n_g=10, pixel_size=1, units="pixels",
                      roi=None):
        """Decorrelation analysis on this backend's first device: halostream.decorrelation's
        arguments and result, less device."""
        return _quality.decorrelation(self, img, rmin, rmax, n_r, n_g, pixel_size, units, roi)

    def esrrf_live(self, shape, dtype, magnification=None, radius=None, sensitivity=None,
                   intensity_weighting=True, frames_per_timepoint=0, modes=("avg",),
                   macro_pixel_correction=True, fused=None, on_timepoint=None, progress=False,
                   rolling=None):
        """A live eSRRF session for frames of shape (rows, cols) and dtype (uint8, uint16,
        int16, float32), the options as esrrf()'s: push(frames) as they arrive, then finish().
        The device works on earlier frames while later ones are pushed; the images equal the
        batch call's on the same frames bit for bit, however the frames are cut into pushes.

        on_timepoint(index, images) gets each time point's images ({mode: float32 (rows * mag,
        cols * mag)}), called on the thread that calls push() / finish(), in the first of those
        calls after the time point's last frame has been processed (with frames_per_timepoint
        0 the one time point comes at finish()). rolling=(W, S): windows of W frames every S
        frames, each delivered once its last frame is processed (as esrrf()'s). progress: as
        esrrf()'s (total 0: unknown).
        Use it as a context manager: leaving the block finishes the session (unless an
        exception leaves it) and releases the backend."""
        where = "esrrf_live"
        if not isinstance(shape, (tuple, list)) or len(shape) != 2:
            raise ValueError("%s: shape must be (rows, cols), got %r" % (where, shape))
        rows, cols = _check.frame_shape(where, *shape)
        code = _check.dtype_code(where, dtype)
        desc = _check.desc(where, magnification, radius, sensitivity, intensity_weighting,
                           frames_per_timepoint, modes, macro_pixel_correction, fused, rolling)
        _check.callback(where, "on_timepoint", on_timepoint)
        _check.progress(where, progress)
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("Backend.esrrf_live: a call or live session is running on this "
                               "backend (one at a time)")
        try:
            self._require_open(where)
            del self._messages[:]
            self._attach(desc)
            live = EsrrfLive(self, desc, code, np.dtype(dtype), rows, cols, on_timepoint,
                             progress)
        except BaseException:
            self._lock.release()
            raise
        self._live = live
        return live

    def _live_closed(self):
        self._live = None
        self._interrupt_clear()
        self._lock.release()

    def close(self):
        """Releases the devices (a live session still open is closed first, unfinished).
        RuntimeError while a call runs on the backend. Closing twice is harmless."""
        if self._live is not None:
            self._live.close()
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("Backend.close: a call is running on this backend")
        try:
            self._destroy()
        finally:
            self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:   # busy or half-made: the process's exit frees it
            pass

    def __repr__(self):
        if self._count == 0:
            return "<halostream.Backend closed>"
        return "<halostream.Backend %s>" % ", ".join(
            "%s (%s)" % (d["name"], d["selector"]) for d in self.devices)


class EsrrfLive:
    """A live eSRRF session (Backend.esrrf_live makes it): esrrf.h's hst_esrrf_live_*."""

    def __init__(self, backend, desc, code, dtype, rows, cols, on_timepoint, progress):
        self._backend, self._lib = backend, backend._lib
        self.dtype, self.rows, self.cols = dtype, rows, cols
        self.modes = _mode_names(desc.modes)
        self.report = None
        self._user_timepoint = on_timepoint
        self._pending = []          # (index, images) from the session's worker, not yet handed on
        self._last = None
        self._finished = False
        self._monitor = _run.Monitor(progress)
        self._timepoint_fn = _lib.TIMEPOINT_FN(self._timepoint)
        self._progress_fn = _lib.PROGRESS_FN(self._monitor)
        desc.on_timepoint, desc.progress = self._timepoint_fn, self._progress_fn
        self._desc = desc
        self._handle = ctypes.c_void_p()
        try:   # Ctrl-C held back until the session exists, then it is destroyed
            r = _run.call(lambda: self._lib.hst_esrrf_live_create(
                ctypes.byref(desc), code, rows, cols, ctypes.byref(self._handle)), self._monitor)
        except BaseException:
            if self._handle.value:
                self._lib.hst_esrrf_live_destroy(self._handle)
            raise
        _errors.check(r, backend._messages)

    def _timepoint(self, index, images, rows_mag, cols_mag, _user):
        """On the session's worker thread: copies the images (valid only during the call)."""
        try:
            out = {m: np.ctypeslib.as_array(images[_lib.MODES.index(m)],
                                            shape=(rows_mag, cols_mag)).copy()
                   for m in self.modes}
            self._pending.append((index, out))
        except BaseException as e:
            self._monitor.error = self._monitor.error or e
            self._monitor.cancelled = True

    def _deliver(self):
        while self._pending:
            index, images = self._pending.pop(0)
            self._last = images
            if self._user_timepoint is not None:
                self._user_timepoint(index, images)

    def _require_open(self, where):
        if self._handle.value is None:
            raise RuntimeError("EsrrfLive.%s: the session is closed" % where)

    def push(self, frames):
        """Pushes frames (k, rows, cols) or one frame (rows, cols) of the session's dtype
        (copied before it returns). Blocks while the device is two pieces behind. Raises the
        session's error (HalostreamError; e.g. a non-finite pixel); KeyboardInterrupt after
        Ctrl-C (the session is then cancelled: close it)."""
        self._require_open("push")
        a = self._frames(frames)
        r = _run.call(lambda: self._lib.hst_esrrf_live_push(
            self._handle, ctypes.c_void_p(a.ctypes.data), a.shape[0], self.rows, self.cols),
            self._monitor, self._backend)
        self._deliver()
        _errors.check(r, self._backend._messages)

    def _frames(self, frames):
        where = "EsrrfLive.push"
        if not isinstance(frames, np.ndarray):
            raise TypeError("%s: frames must be a numpy.ndarray, got %s"
                            % (where, type(frames).__name__))
        a = frames[None] if frames.ndim == 2 else frames
        if a.dtype != self.dtype:
            raise TypeError("%s: frames are %s, the session's dtype is %s"
                            % (where, a.dtype.str, self.dtype.str))
        if a.ndim != 3 or a.shape[1:] != (self.rows, self.cols):
            raise ValueError("%s: frames must be (k, %d, %d) or (%d, %d), got %s"
                             % (where, self.rows, self.cols, self.rows, self.cols, frames.shape))
        return np.ascontiguousarray(a)

    def finish(self):
        """Processes what is left and delivers the last time point(s) (as NanoPyx, the last one
        takes the frames left: .report["last_timepoint_frames"]); returns the last time
        point's images ({mode: float32 (rows * mag, cols * mag)}), None when there was none.
        Fills .report. Later pushes fail."""
        self._require_open("finish")
        report = _lib.EsrrfReport()
        try:
            r = _run.call(lambda: self._lib.hst_esrrf_live_finish(self._handle,
                                                                  ctypes.byref(report)),
                          self._monitor, self._backend)
        finally:
            self._monitor.close()
        self._finished = True
        self.report = _report_dict(report)
        self._deliver()
        _errors.check(r, self._backend._messages)
        return self._last

    def close(self):
        """Stops the session's worker (unfinished work is dropped) and releases the backend.
        Closing twice is harmless."""
        if self._handle.value is None:
            return
        handle, self._handle = self._handle, ctypes.c_void_p()   # never destroyed twice
        try:
            self._lib.hst_esrrf_live_destroy(handle)
        finally:
            self._backend._live_closed()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None and not self._finished and self._handle.value is not None:
                self.finish()
        finally:
            self.close()


@atexit.register
def _close_all():
    for b in list(_OPEN):
        try:
            b.close()
        except Exception:   # a call still running on another thread: left to the process's exit
            pass
