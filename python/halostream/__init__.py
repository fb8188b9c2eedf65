"""halostream — eSRRF super-resolution of NumPy stacks on OpenCL devices or the host.

    import numpy as np, halostream
    stack = np.asarray(frames, dtype=np.uint16)           # (T, rows, cols), C order
    with halostream.Backend("auto") as be:                 # devices opened once, reused
        out = be.esrrf(stack, magnification=5, modes=("avg", "var"))
    out["avg"].shape                                       # (1, rows * 5, cols * 5), float32
    halostream.esrrf(stack)                                # the same through a cached Backend
    halostream.devices()                                   # what device= can name
    from halostream.nanopyx import eSRRF                   # NanoPyx 2.1's eSRRF, drop-in
    halostream.squirrel.error_map(ref, sr)                 # (error map, RSE, RSP)
    halostream.frc(odd, even, pixel_size=20, units="nm")   # FIRE resolution, the FRC curve
    halostream.decorrelation(sr)                           # decorrelation analysis
    halostream.drift(stack)                                # (T, 2) dy, dx per frame, pixels
    halostream.esrrf(stack, drift="first")                 # drift undone before eSRRF
    halostream.estimate_frames(stack).frames               # frames worth one time point

A ctypes layer over the C library (esrrf.h), which pip builds into the package (_lib.py says
how it is found). In-memory stacks are read in place, never copied; stacks larger than memory
(a numpy.memmap, a TIFF file's path, zarr or dask arrays) are read a block of frames at a time:

    halostream.esrrf("acquisition.tif", frames_per_timepoint=100)     # page by page
    halostream.esrrf(numpy.load("stack.npy", mmap_mode="r"), out=...) # outputs to memmaps too

Ctrl-C during a call interrupts it within about a second of work and raises KeyboardInterrupt
once the library has stopped. Processes: in a child made by fork() (multiprocessing's default
start method on Linux) OpenCL cannot run once the parent has used halostream: the
module-level calls there open their own Backend, which "auto" puts on the host device (with a
RuntimeWarning); OpenCL selectors raise HalostreamError (HST_ERROR_FORKED). Workers of
multiprocessing.get_context("spawn") can use every device (Backend says more)."""

import ctypes
import os
import threading

from . import _check, _errors, _frames, _lib
from ._errors import Cancelled, HalostreamError, InvalidArgument, NotBuiltIn
from .backend import Backend, EsrrfArgs, EsrrfLive, device_dict

__all__ = ["esrrf", "esrrf_defaults", "drift", "estimate_frames", "devices", "Backend", "EsrrfLive",
           "HalostreamError", "InvalidArgument", "Cancelled", "NotBuiltIn"]
__version__ = "0.1.0"

_CACHED = {}                  # (process id, selectors) -> Backend, for esrrf(device=...)
_CACHED_LOCK = threading.Lock()


def devices():
    """Every device halostream can run on, as examples/devices lists them (the host device
    last): dicts with selector (what device= takes: "P:D" or "host"), name, platform, type
    ("host", "cpu", "gpu", "accelerator", "other"), vendor, compute_units,
    global_mem_bytes, fp64."""
    lib = _errors.library()
    count = ctypes.c_size_t(0)
    _errors.check(lib.hst_devices(None, 0, ctypes.byref(count)), ["hst_devices failed"])
    infos = (_lib.DeviceInfo * max(count.value, 1))()
    got = ctypes.c_size_t(count.value)
    _errors.check(lib.hst_devices(infos, count.value, ctypes.byref(got)), ["hst_devices failed"])
    return [device_dict(d) for d in infos[:min(got.value, count.value)]]


def esrrf_defaults():
    """eSRRF's defaults, read from the library (esrrf.h's HST_ESRRF_DEFAULT_*): what esrrf()'s
    magnification, radius and sensitivity left at None mean, as a dict of those three."""
    lib = _errors.library()
    mag, radius, sensitivity = ctypes.c_uint(0), ctypes.c_float(0), ctypes.c_float(0)
    lib.hst_py_esrrf_defaults(ctypes.byref(mag), ctypes.byref(radius), ctypes.byref(sensitivity))
    return {"magnification": mag.value, "radius": radius.value, "sensitivity": sensitivity.value}


def cached_backend(device="auto"):
    """The Backend esrrf(device=...) uses: one per selector (or list of them) and process,
    opened on first use, kept until interpreter exit. A child of fork() opens its own (the
    parent's may be on an OpenCL device, which the child cannot use)."""
    key = (os.getpid(), tuple(_check.selectors(device)))
    with _CACHED_LOCK:
        be = _CACHED.get(key)
        if be is None or be.closed:
            be = _CACHED[key] = Backend(device)
    return be


def esrrf(stack, magnification=None, radius=None, sensitivity=None, intensity_weighting=True,
          frames_per_timepoint=0, modes=("avg",), macro_pixel_correction=True, device="auto",
          fused=None, progress=None, out=None, on_timepoint=None, rolling=None, drift=None):
    """eSRRF of a stack (Laine et al., Nat. Methods 2023; NanoPyx's conventions, as esrrf.h).

    stack: numpy array (T, rows, cols), C order, uint8 / uint16 / int16 / float32 in native
    byte order; read in place (never copied, never written). Or a stack that need not fit in
    memory, read a block of frames at a time (about 64 MB) while the device works, through a
    live session (the same bits as the in-memory call on one device; a list of devices splits
    each block instead of the rows, which changes the last bits): a numpy.memmap (also
    tifffile.memmap's; its pages are released once pushed), the path of a TIFF file (str or
    os.PathLike; read page by page with tifffile, every compression it decodes; each page one
    frame of the first page's shape and dtype), a tifffile.TiffFile or its pages, a zarr, h5py
    or dask array (dask: only the blocks' chunks are computed) or any object with shape,
    dtype and stack[a:b]; dtypes other than u8/u16/i16/f32 in native order are converted per
    block (byte order swapped, other real numbers to float32). magnification 1..32; radius in
    input pixels, (0, 20]; sensitivity (0, 100]; each None: the library's default
    (esrrf_defaults()); intensity_weighting: RGC times the magnified
    frame; frames_per_timepoint: frames per output image, 0 = all (as NanoPyx: the last image
    takes the remainder, a value above the frames is clamped to them); rolling=(W, S): time
    points as sliding windows instead (NanoJ-eSRRF's rolling analysis), W frames starting every
    S frames, floor((T - W) / S) + 1 of them, from one pass over the frames (esrrf.h's
    "Rolling": each window's images equal the window computed alone, bit for bit where its sums
    are exact, else within a few float ulp; W > T raises InvalidArgument naming
    frames_per_timepoint; give frames_per_timepoint 0 with it); modes: any of "avg",
    "var", "tac2" (all from one pass); macro_pixel_correction; device: a selector ("auto", "gpu", "cpu", "host", "P:D", a name;
    None: $HST_DEVICE, else auto) or a list of them (the rows split across devices), whose
    Backend is opened on first use and kept (cached_backend); fused: None chooses the faster
    path by measured speed, True fused, False chained (same bits); progress: None shows a bar
    when a run lasts over a second, False never, True always, a callable is called with
    (frames done, total) instead. out: {mode: array} for each mode, writable float32 arrays of
    the output's shape (e.g. numpy.lib.format.open_memmap's, for outputs larger than memory),
    each time point written as soon as it is done; on_timepoint(index, {mode: float32 (rows *
    magnification, cols * magnification)}) is called for each time point in order, on the
    calling thread, as soon as it is done. Either one streams an in-memory stack too.
    drift: None, or the drift undone before eSRRF (each frame shifted back by its drift with
    liquid.h's Catmull-Rom interpolation, as the CLI's --drift): "first", "mean" or
    "previous" estimates it first (halostream.drift's reference, its other options at their
    defaults; a stack read a block at a time is read twice), or a (frames, 2) table of (dy,
    dx) pixels, e.g. halostream.drift's. The frames go to eSRRF as float32 through a live
    session (host memory stays bounded); the table used is in the Backend's last_drift
    (cached_backend(device).last_drift). A 1-frame stack or another name raises ValueError
    naming drift.

    Returns {mode: float32 array (time points, rows * magnification, cols * magnification)}
    (out itself where given; None where on_timepoint is given and out is not).
    Raises TypeError / ValueError for bad arguments (before any C call; a number that would
    not reach its C field unchanged too), InvalidArgument (also a ValueError) for options the
    library refuses, HalostreamError for the library's other errors (.code, .name; the message
    is the library's log), KeyboardInterrupt after Ctrl-C (the run is interrupted within about
    a second of work, and the call returns only once the library has stopped; the Backend stays
    usable). Streamed stacks: ValueError naming the page or frames that cannot be read or
    differ from the first page's shape or dtype; the file's own errors (OSError)."""
    if drift is not None:
        return cached_backend(device).esrrf(
            stack, magnification, radius, sensitivity, intensity_weighting,
            frames_per_timepoint, modes, macro_pixel_correction, fused, progress, out,
            on_timepoint, rolling, drift)
    if not _frames.streamed(stack, out, on_timepoint):
        args = EsrrfArgs(stack, magnification, radius, sensitivity, intensity_weighting,
                         frames_per_timepoint, modes, macro_pixel_correction, fused, progress,
                         rolling)
        return cached_backend(device).run_esrrf(args)
    options = dict(magnification=magnification, radius=radius, sensitivity=sensitivity,
                   intensity_weighting=intensity_weighting,
                   frames_per_timepoint=frames_per_timepoint, modes=modes,
                   macro_pixel_correction=macro_pixel_correction, fused=fused,
                   rolling=rolling)
    return _frames.esrrf(lambda: cached_backend(device), stack, options, progress, out,
                         on_timepoint)


def drift(stack, reference="first", reference_frames=None, averaging=1, max_shift=0,
          peak="gaussian", device="auto", progress=False):
    """Each frame's drift (quality.h's hst_drift_*: NanoPyx's drift alignment, FFT
    cross-correlation of each frame against a reference, the peak refined below a pixel).

    stack: what esrrf() takes (an ndarray (T, rows, cols), a memmap, a TIFF path, zarr or dask
    arrays: read a block of frames at a time), T >= 2 frames, rows and cols >= 8.
    reference: "first" (the first frame, NanoPyx's default), "mean" (the mean of the first
    reference_frames frames; None: min(10, T)) or "previous" (each frame against the one
    before, the steps added up); averaging: frames averaged per estimate (NanoPyx's
    time_averaging), the estimates interpolated between the blocks' centres; max_shift: the
    largest drift searched, pixels (0: half the frame); peak: the sub-pixel fit, "gaussian",
    "parabola" or "catmull-rom" (NanoPyx's).
    Returns float64 (T, 2): frame t's (dy, dx) in input pixels, down and right positive:
    frame(y, x) = reference(y - dy, x - dx) (NanoPyx's table holds the opposite, the
    correction); esrrf(stack, drift=table) undoes it. ValueError naming the argument for a
    1-frame stack or an unknown reference."""
    return cached_backend(device).drift(stack, reference, reference_frames, averaging,
                                        max_shift, peak, progress)


def estimate_frames(stack, block_frames=None, sigmas=2.0, smoothing=3, value_range=None,
                    device="auto"):
    """NanoJ-eSRRF's estimate of the most frames worth one eSRRF time point (quality.h's
    hst_estimate_frames): frames further apart than the sample moves in are not the same
    structure. The stack is cut into blocks of block_frames (None: 100, or half the stack when it
    has fewer than 200 frames; a little more than the count you expect); in each, the SSIM of
    the block's first frame with each later one, by separation; averaged over the blocks and
    smoothed over `smoothing` separations; the estimate is the first separation whose mean SSIM
    lies `sigmas` standard deviations (of separation 1's SSIMs) below separation 1's.
    value_range: SSIM's dynamic range L (None: the stack's max - min; 255 or 65535: the bit
    depth's). stack: what esrrf() takes (uint8, uint16, int16, float32; read whole), at least
    two blocks of 2 frames, frames of at least 11 x 11 pixels (crop to the region of interest
    for speed, as NanoJ advises: the SSIMs run on the host's processor).
    Returns FramesEstimate(frames, reached, ssim, ssim_sd); reached False: the SSIM never fell
    that far within a block (frames is the block: try larger blocks). ValueError naming the
    argument for bad input."""
    return cached_backend(device).estimate_frames(stack, block_frames, sigmas, smoothing,
                                                  value_range)


from . import squirrel                              # noqa: E402  (it uses cached_backend)
from .squirrel import decorrelation, frc            # noqa: E402
from . import data                                  # noqa: E402  (the sample stack)

__all__ += ["squirrel", "frc", "decorrelation", "data"]
