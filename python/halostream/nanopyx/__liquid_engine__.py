"""NanoPyx 2.1.5's Liquid Engine (nanopyx.__liquid_engine__.LiquidEngine, from the liquid_engine
package) on halostream's liquid.h: the base of the classes in halostream.nanopyx.core.transform.

One engine (liquid.h's hst_liquid) per process and testing mode, opened on first use and closed
at interpreter exit: it holds a backend on every device present (the host device and each
OpenCL device; $HST_DEVICE does not restrict it: the engine chooses among them, as NanoPyx's
chooses among its run types) and per method one choice.h operation whose timings persist in
halostream's cache directory ($HST_CACHE_DIR), not in NanoPyx's ~/.liquid_engine. Its
implementations are named after their devices ("host" for the host device, else the OpenCL
device's name) and tagged with run-type groups ("host threaded cpu", "opencl cpu", "opencl gpu").

run_type, as NanoPyx's (compared in lower case), maps to ours (resolve_run_type):
  None                                   chosen by measured speed among every device
  "Threaded", "Threaded_static", "Threaded_dynamic", "Threaded_guided", "Unthreaded",
  "Cython" (NanoPyx's Cython run types and their tag)
                                         the host device ("@threaded"): the host C twins of
                                         the kernels, the frames shared among the cores'
                                         threads (there is no single-threaded variant, and no
                                         OpenMP schedules: the five run the same code, the
                                         same bits)
  "OpenCL"                               "@opencl": the fastest measured of the OpenCL devices
                                         (NanoPyx takes one device, a GPU where it finds one)
  "OpenCL_<device name>"                 that OpenCL device (its name as devices() lists it;
                                         spaces may be written as underscores)
  "CPU", "GPU" (NanoPyx's tags)          "@cpu" (host device and OpenCL CPU devices), "@gpu"
  an implementation's name, "@<tag>"     as liquid.h takes them
Any other (NanoPyx's "Python", "Numba", "Transonic", "Cuda", "Dask", a device not present)
raises ValueError listing ours. NanoPyx instead prints "Unexpected run type" and lets its Agent
choose.

verbose=True (NanoPyx's default) prints one line per run: the implementation that ran, its time
and why (forced, measured for the first time at this size, or the fastest measured). benchmark()
prints liquid.h's table (choice.h's hst_choice_table: every implementation's median and best
time, speed relative to the best, its error and correlation against the host device's output)
and returns NanoPyx's list [(seconds, run type, None), ...], fastest first (the outputs are not
kept per implementation: liquid.h compares them itself). testing=True: each implementation's
first output at a size is compared with the host device's and one that disagrees (max |x - ref|
/ max |ref| above liquid.h's HST_LIQUID_TOLERANCE) is excluded there, logged (NanoPyx warns, and
compares by a Pearson correlation above 0.8). clear_benchmarks=True forgets the method's
timings (every device's) when the object is made."""

import atexit
import collections
import ctypes
import os
import threading

import numpy as np

from .. import _check, _errors, _lib, _run
from ..backend import device_dict

__all__ = ["LiquidEngine", "resolve_run_type", "run_types"]

Impl = collections.namedtuple("Impl", "name tags device")
Impl.__doc__ = """One implementation of every method: name (liquid.h's), tags (a tuple of its
run-type groups), device (the dict devices() gives)."""

# NanoPyx's run types of the host CPU (Cython, with and without OpenMP's schedules), lower case
HOST_RUN_TYPES = ("threaded", "threaded_static", "threaded_dynamic", "threaded_guided",
                  "unthreaded", "cython")
_HOST_TAG, _OPENCL_TAG = "threaded", "opencl"   # the groups they map to: "@threaded", "@opencl"

_ENGINES = {}                  # (process id, testing) -> _Engine
_ENGINES_LOCK = threading.Lock()


def _normal(name):
    """A device name as "OpenCL_<name>" may spell it: lower case, spaces as underscores."""
    return "_".join(name.lower().split())


def resolve_run_type(where, run_type, impls):
    """NanoPyx's run_type as liquid.h's (an implementation's name, "@tag", or None: choose);
    ValueError listing ours for one we do not have, TypeError for one not a str."""
    if run_type is None:
        return None
    if not isinstance(run_type, str):
        raise TypeError("%s: run_type must be a str or None, got %r" % (where, run_type))
    tags = {t for i in impls for t in i.tags}
    if any(i.name == run_type for i in impls) or (run_type[:1] == "@" and run_type[1:] in tags):
        return run_type
    rt = run_type.lower()
    named = [i.name for i in impls if i.name.lower() == rt]
    if named:
        return named[0]
    if rt in HOST_RUN_TYPES and _HOST_TAG in tags:
        return "@" + _HOST_TAG
    if rt.startswith(_OPENCL_TAG + "_"):
        device = _normal(run_type[len(_OPENCL_TAG) + 1:])
        named = [i.name for i in impls if _OPENCL_TAG in i.tags
                 and _normal(i.device["name"]) == device]
        if named:
            return named[0]
    if rt in tags:
        return "@" + rt
    raise ValueError("%s: run_type %r: halostream has no such run type here; its run types: %s"
                     % (where, run_type, run_types(impls)))


def run_types(impls):
    """The run types the engine takes, as one line: each implementation with its tags and the
    NanoPyx names that map to it, then the groups."""
    def aliases(i):
        if _HOST_TAG in i.tags:
            return ", ".join(rt.capitalize() for rt in HOST_RUN_TYPES)
        if _OPENCL_TAG in i.tags:
            return "OpenCL_" + "_".join(i.device["name"].split()) + ", OpenCL"
        return "-"
    tags = sorted({t for i in impls for t in i.tags})
    return "; ".join("%r (tags %s; NanoPyx: %s)" % (i.name, " ".join(i.tags), aliases(i))
                     for i in impls) + "; the groups " + ", ".join("@" + t for t in tags) + \
        " (also without the @, any case); None: the fastest measured"


class _Engine:
    """liquid.h's hst_liquid of this process (one per testing mode): its implementations, its
    methods' runs, benchmark and clear, one call at a time. Ctrl-C during a call interrupts its
    devices (hst_backend_interrupt) and raises KeyboardInterrupt once the call has ended."""

    def __init__(self, testing):
        self.lib = _errors.library()
        self._messages = []
        self._logger = _lib.LOG_FN(self._log)   # kept alive as long as the engine
        self._bd = _lib.BackendDesc()           # the template of its backends
        self._bd.logger, self._bd.log_level = self._logger, 2
        desc = _lib.LiquidDesc()
        desc.backend_desc = ctypes.pointer(self._bd)
        desc.testing = testing
        handle = ctypes.c_void_p()
        try:   # Ctrl-C held back until the engine exists, then it is destroyed
            r = _run.call(lambda: self.lib.hst_liquid_create(ctypes.byref(desc),
                                                             ctypes.byref(handle)),
                          _run.Monitor(False))
        except BaseException:
            self.lib.hst_liquid_destroy(handle)
            raise
        _errors.check(r, self._messages or ["hst_liquid_create failed"])
        self.handle = handle
        self.lock = threading.Lock()
        count = self.lib.hst_liquid_num_backends(handle)
        self.backends = (ctypes.c_void_p * count)(
            *[self.lib.hst_liquid_backend(handle, k) for k in range(count)])
        self.impls = [Impl(self.lib.hst_liquid_impl_name(handle, k).decode(),
                           tuple(self.lib.hst_liquid_impl_tags(handle, k).decode().split()),
                           device_dict(self.lib.hst_backend_device(be).contents))
                      for k, be in enumerate(self.backends)]

    def _log(self, _user, level, item, message):
        if level <= 2:   # errors and warnings: the reasons an error carries
            self._messages.append(message.decode("utf-8", "replace"))

    def _sigint_targets(self):
        """_run.call's: the devices Ctrl-C interrupts, (hst_backend * array, count)."""
        return self.backends, len(self.backends)

    def _interrupt_clear(self):
        """Lets later calls run after a call that Ctrl-C interrupted."""
        for be in self.backends:
            self.lib.hst_backend_interrupt_clear(be)

    def call(self, fn, *args, monitor=None):
        """fn(engine, *args) of the C library (or a callable taking the engine's handle),
        checked: its result raised as an exception with the engine's log."""
        with self.lock:
            if self.handle is None:
                raise RuntimeError("halostream.nanopyx: the Liquid Engine was closed at exit")
            del self._messages[:]
            try:
                r = _run.call(lambda: fn(self.handle, *args), monitor or _run.Monitor(False),
                              self)
            finally:
                self._interrupt_clear()
            _errors.check(r, self._messages or [getattr(fn, "__name__", "a call") + " failed"])

    def run(self, method, args, run_type, monitor=None):
        """A method's run on args (its hst_liquid_*_args) with run_type (liquid.h's): the
        hst_choice_outcome. monitor: the progress callback's (eSRRF's desc.progress), if any."""
        fn = getattr(self.lib, "hst_liquid_" + _lib.LIQUID_METHODS[method])
        outcome = _lib.ChoiceOutcome()
        self.call(fn, ctypes.byref(args), None if run_type is None else run_type.encode(),
                  ctypes.byref(outcome), monitor=monitor)
        return outcome

    def benchmark(self, method, args, reps=0):
        """Every implementation of a method on args: (rows, NanoPyx's table as text)."""
        count = ctypes.c_size_t(0)
        rows = (_lib.ChoiceBenchRow * len(self.impls))()
        self.call(self.lib.hst_liquid_benchmark, method, ctypes.byref(args), reps, rows,
                  len(rows), ctypes.byref(count))
        size = self.lib.hst_choice_table(rows, count.value, None, 0)   # snprintf-style
        buf = ctypes.create_string_buffer(size)
        self.lib.hst_choice_table(rows, count.value, buf, size)
        return rows[:count.value], buf.value.decode("utf-8", "replace")

    def clear(self, method):
        self.call(self.lib.hst_liquid_clear, method)

    def close(self):
        with self.lock:
            handle, self.handle = self.handle, None
            if handle is not None:
                _errors.check(self.lib.hst_liquid_destroy(handle), self._messages)


def engine(testing=False):
    """The process's engine of that testing mode, opened on first use. A child of fork() opens
    its own (the parent's OpenCL devices do not work there: the child's engine has the host
    device, the others skipped with a warning)."""
    key = (os.getpid(), bool(testing))
    with _ENGINES_LOCK:
        eng = _ENGINES.get(key)
        if eng is None or eng.handle is None:
            eng = _ENGINES[key] = _Engine(int(testing))
    return eng


def _live_engines():
    """This process's open engines (a testing one and another at most)."""
    with _ENGINES_LOCK:
        return [e for k, e in _ENGINES.items() if k[0] == os.getpid() and e.handle is not None]


@atexit.register
def _close_all():
    for eng in _live_engines():
        try:
            eng.close()   # saves the timings
        except Exception:   # a call still running on another thread: left to the exit
            pass


def pointer(a):
    """A float32 array's data as float * (the arrays are the caller's, alive for the call)."""
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


class LiquidEngine:
    """NanoPyx's LiquidEngine, the base of halostream.nanopyx's Liquid Engine classes:
    __init__(clear_benchmarks=False, testing=False, verbose=True) as NanoPyx's; a subclass
    names its liquid.h method (_method, an index of _lib.LIQUID_METHODS) and builds the
    arguments its run and benchmark pass to _run and _benchmark. After a run, _last_runtype
    and _last_time (seconds) say what ran, as NanoPyx's."""

    _method = None

    def __init__(self, clear_benchmarks=False, testing=False, verbose=True):
        where = type(self).__name__
        self.testing = _check.flag(where, "testing", testing)
        self.verbose = _check.flag(where, "verbose", verbose)
        self._last_runtype = self._last_time = None
        if _check.flag(where, "clear_benchmarks", clear_benchmarks):
            engine(self.testing)   # opened, then cleared with the process's other engine
            for eng in _live_engines():
                eng.clear(self._method)

    @property
    def _run_types(self):
        """The implementations (Impl) the engine of this object has: NanoPyx's dict of run
        types holds its methods; this one, liquid.h's implementations by name."""
        return {i.name: i for i in engine(self.testing).impls}

    def _resolve(self, where, run_type):
        return resolve_run_type(where, run_type, engine(self.testing).impls)

    def _run(self, where, args, run_type, monitor=None):
        """Runs the method on args (a ctypes struct) with NanoPyx's run_type."""
        eng = engine(self.testing)
        outcome = eng.run(self._method, args, self._resolve(where, run_type), monitor)
        self._last_runtype, self._last_time = outcome.name.decode(), outcome.seconds
        if self.verbose:
            why = "forced by run_type" if outcome.forced else \
                "measured for the first time at this size" if outcome.explored else \
                "the fastest measured"
            print("%s: ran on %s in %.3g s (%s)" % (where, self._last_runtype, outcome.seconds,
                                                    why))

    def _benchmark(self, args):
        """NanoPyx's benchmark: every implementation on args; prints liquid.h's table, returns
        [(median seconds, implementation, None), ...] fastest first, of those that ran."""
        rows, table = engine(self.testing).benchmark(self._method, args)
        print(table, end="" if table.endswith("\n") else "\n")
        ran = sorted((r.median_s, r.impl.decode(), None) for r in rows
                     if r.result == _lib.HST_SUCCESS and r.runs)
        if ran:
            print("Fastest run type: %s\nSlowest run type: %s" % (ran[0][1], ran[-1][1]))
        return ran


def real32(where, name, value):
    """A finite real number (shifts) whose float32 is finite: as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
            or np.iscomplexobj(value):
        raise TypeError("%s: %s must be a real number, got %r" % (where, name, value))
    with np.errstate(over="ignore"):
        if not np.isfinite(np.float32(value)):
            raise ValueError("%s: %s must be finite (as a float32), got %r" % (where, name, value))
    return float(value)


def esrrf_args(eng, where, stack, desc, progress):
    """liquid.h's hst_liquid_esrrf_args for the engine eng of a stack and checked eSRRF options
    (_check.stack's stack, _check.desc's desc), their outputs {mode: float32 (time points,
    rows * mag, cols * mag)} and the monitor of progress (_run.Monitor's: a bar, a callable or
    nothing) that the desc calls."""
    code, frames, rows, cols = _check.stack(where, stack)
    desc.backends, desc.num_backends = eng.backends, 1   # the shape's; the run ignores them
    tps, rows_m, cols_m = _lib.u64(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
    eng.call(lambda _lq: eng.lib.hst_esrrf_output_shape(
        ctypes.byref(desc), frames, rows, cols, ctypes.byref(tps), ctypes.byref(rows_m),
        ctypes.byref(cols_m)))
    out = {m: np.empty((tps.value, rows_m.value, cols_m.value), np.float32)
           for i, m in enumerate(_lib.MODES) if desc.modes >> i & 1}
    ptrs = (ctypes.c_void_p * len(_lib.MODES))(
        *[out[m].ctypes.data if m in out else None for m in _lib.MODES])
    monitor = _run.Monitor(progress)
    desc.progress = _lib.PROGRESS_FN(monitor)
    args = _lib.LiquidEsrrfArgs(desc, stack.ctypes.data, code, frames, rows, cols, ptrs, None)
    args._keep = (stack, out, ptrs, desc.progress)   # alive as long as the args
    return args, out, monitor
