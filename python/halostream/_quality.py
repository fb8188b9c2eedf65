"""The image quality metrics of quality.h on a Backend: ctypes mirrors of its structs, the
checking of the images and options before any C call, and the three calls (Backend.error_map,
.frc and .decorrelation run them). The library's structs are compared with the mirrors on first
use (hst_py_quality_struct_size), as _lib.py does for esrrf.h's."""

import collections
import ctypes
import math
import numbers

import numpy as np

from . import _check, _errors, _frames, _lib, _run

sz, dbl, uint = ctypes.c_size_t, ctypes.c_double, ctypes.c_uint


class ErrorMapDesc(ctypes.Structure):
    _fields_ = [("fixed_sigma", dbl), ("scores_only", ctypes.c_int)]


class ErrorMapResult(ctypes.Structure):
    _fields_ = [("rse", dbl), ("rsp", dbl), ("alpha", dbl), ("beta", dbl), ("sigma", dbl),
                ("magnification", uint), ("evaluations", uint)]


class FrcDesc(ctypes.Structure):
    _fields_ = [("pixel_size", dbl)]


class FrcResult(ctypes.Structure):
    _fields_ = [("resolution", dbl), ("curve_length", sz)]


class DecorrDesc(ctypes.Structure):
    _fields_ = [("rmin", dbl), ("rmax", dbl), ("num_radii", uint), ("num_highpass", uint),
                ("pixel_size", dbl), ("roi", sz * 4)]


class DecorrResult(ctypes.Structure):
    _fields_ = [("resolution", dbl), ("kc_max", dbl), ("a_max", dbl), ("kc_gm", dbl),
                ("a_gm", dbl), ("kc0", dbl), ("a0", dbl)]


class FramesDesc(ctypes.Structure):
    _fields_ = [("block_frames", sz), ("sigmas", dbl), ("smoothing", sz), ("range", dbl)]


class FramesEstimateResult(ctypes.Structure):
    _fields_ = [("frames", sz), ("reached", ctypes.c_int), ("blocks", sz), ("range", dbl)]


MIRRORS = (ErrorMapDesc, ErrorMapResult, FrcDesc, FrcResult, DecorrDesc, DecorrResult, FramesDesc,
           FramesEstimateResult)


class FramesEstimate(collections.namedtuple("FramesEstimate", "frames reached ssim ssim_sd")):
    """(frames, reached, ssim, ssim_sd): the most frames worth one eSRRF time point, whether
    the SSIM's drop was reached within a block (False: frames is the block, the scene held
    still that long), and the mean SSIM by separation and its standard deviation over the
    blocks (float64, block_frames values; separation 0: 1 and 0); blocks and range (the SSIM's
    L) as attributes."""

    def __new__(cls, r, curve, n):
        self = super().__new__(cls, int(r.frames), bool(r.reached), curve[:n].copy(),
                               curve[n:].copy())
        self.blocks, self.range = int(r.blocks), float(r.range)
        return self


class ErrorMap(collections.namedtuple("ErrorMap", "map rse rsp")):
    """(map, rse, rsp) as NanoPyx's calculate_error_map returns them, and the fit's parameters
    as attributes: alpha, beta (fitted = alpha G_sigma(sr) + beta), sigma (SR pixels; <= 0: no
    blur), magnification."""

    def __new__(cls, emap, r):
        self = super().__new__(cls, emap, r.rse, r.rsp)
        self.alpha, self.beta, self.sigma = r.alpha, r.beta, r.sigma
        self.magnification = r.magnification
        return self


FRC = collections.namedtuple("FRC", "resolution units frequency correlation")
FRC.__doc__ = """resolution: FIRE, 1 / the spatial frequency where the smoothed FRC first falls
below 1/7, in units (0.0 when it never does, as NanoPyx); frequency: float32 (n,) in cycles per
unit, 0 .. 1 / (2 pixel_size); correlation: float32 (n,), the smoothed FRC curve."""

Decorrelation = collections.namedtuple("Decorrelation",
                                       "resolution units kc_max a_max kc_gm a_gm kc0 a0")
Decorrelation.__doc__ = """resolution = 2 pixel_size / kc_max in units (inf when kc_max is 0);
kc_*: cut-off frequencies normalised to Nyquist (0 .. 1), a_*: the curve's amplitude there
(kc_max the highest among the refined maxima, kc_gm the one with the best kc * A, kc0 the
unfiltered image's)."""

def library():
    """The loaded library with quality.h's functions declared, its structs checked."""
    return _errors.part("quality metrics (quality.h)", "hst_py_quality_struct_size", _declare)


def _declare(lib):
    ref, fp = ctypes.POINTER, ctypes.POINTER(ctypes.c_float)
    _lib.declare(lib, {
        "hst_py_quality_struct_size": (sz, [ctypes.c_int]),
        "hst_error_map": (ctypes.c_int, [ctypes.c_void_p, fp, sz, sz, fp, sz, sz,
                                         ref(ErrorMapDesc), fp, ref(ErrorMapResult)]),
        "hst_frc_curve_length": (sz, [sz, sz]),
        "hst_frc": (ctypes.c_int, [ctypes.c_void_p, fp, fp, sz, sz, ref(FrcDesc), fp,
                                   ref(FrcResult)]),
        "hst_decorr": (ctypes.c_int, [ctypes.c_void_p, fp, sz, sz, ref(DecorrDesc),
                                      ref(DecorrResult)]),
        "hst_estimate_frames_block": (sz, [ref(FramesDesc), sz]),
        "hst_estimate_frames": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, sz,
                                               sz, sz, ref(FramesDesc),
                                               ref(ctypes.c_double), ref(FramesEstimateResult)])})
    for i, mirror in enumerate(MIRRORS):
        if lib.hst_py_quality_struct_size(i) != ctypes.sizeof(mirror):
            raise OSError("halostream: struct %s is %d bytes in the library, %d in the package: "
                          "build the library from the package's source" %
                          (mirror.__name__, lib.hst_py_quality_struct_size(i),
                           ctypes.sizeof(mirror)))


# ---------------------------------------------------------------------------- arguments
def image(where, name, value, min_side=1):
    """value as a C-contiguous float32 (rows, cols) array (converted where it is not one; never
    written). Any real dtype; a value that float32 cannot hold (beyond +-3.4e38) is refused;
    NaN and Inf reach the library, which refuses them naming the pixel."""
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise TypeError("%s: %s must hold real numbers, got dtype %s" % (where, name, a.dtype))
    if a.ndim != 2:
        raise ValueError("%s: %s must be a 2-D image (rows, cols), got shape %s"
                         % (where, name, a.shape))
    if min(a.shape) < min_side:
        raise ValueError("%s: %s must be at least %d x %d pixels, got %s"
                         % (where, name, min_side, min_side, a.shape))
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.ascontiguousarray(a, dtype=np.float32)
        lost = (np.isinf(f) & np.isfinite(a)) if a.dtype.kind == "f" and a.dtype.itemsize > 4 \
            else None
    if lost is not None and lost.any():
        at = ", ".join(str(int(i)) for i in np.argwhere(lost)[0])
        raise ValueError("%s: %s[%s] = %r does not fit a float32"
                         % (where, name, at, float(a[lost][0])))
    return f


def real(where, name, value, low, high, low_open=False):
    """value as a finite Python float in [low, high] ((low, high] with low_open)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a real number, got %r" % (where, name, value))
    value = float(value)
    inside = (value > low if low_open else value >= low) and value <= high
    if not (math.isfinite(value) and inside):
        raise ValueError("%s: %s must be in %s%r, %r], got %r"
                         % (where, name, "(" if low_open else "[", low, high, value))
    return value


def units(where, value):
    if not isinstance(value, str):
        raise TypeError("%s: units must be a str, got %r" % (where, value))
    return value


def _pointer(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def _call(backend, where, fn):
    """fn(lib, the first device's handle) on the held backend; Ctrl-C meanwhile interrupts it
    (the metrics check within about a second of work) and raises KeyboardInterrupt once the
    call has ended."""
    lib = library()
    with backend._batch(where):
        handle = ctypes.c_void_p(backend._handles[0])
        r = _run.call(lambda: fn(lib, handle), _run.Monitor(False), backend)
        _errors.check(r, backend._messages or ["%s failed" % where])


# ---------------------------------------------------------------------------- the metrics
def error_map(backend, ref, sr, fixed_sigma=None, scores_only=False):
    where = "error_map"
    ref, sr = image(where, "ref", ref), image(where, "sr", sr)
    mag = sr.shape[0] // ref.shape[0]
    if mag < 1 or sr.shape != (mag * ref.shape[0], mag * ref.shape[1]):
        raise ValueError("%s: sr %s must be ref %s times one integer magnification"
                         % (where, sr.shape, ref.shape))
    desc = ErrorMapDesc()
    if fixed_sigma is not None:
        desc.fixed_sigma = real(where, "fixed_sigma", fixed_sigma, 0.0, math.inf, low_open=True)
    if not isinstance(scores_only, bool):
        raise TypeError("%s: scores_only must be True or False, got %r" % (where, scores_only))
    desc.scores_only = int(scores_only)
    emap = None if scores_only else np.empty(sr.shape, np.float32)
    out = ErrorMapResult()
    _call(backend, where, lambda lib, be: lib.hst_error_map(
        be, _pointer(ref), ref.shape[0], ref.shape[1], _pointer(sr), sr.shape[0], sr.shape[1],
        ctypes.byref(desc), None if emap is None else _pointer(emap), ctypes.byref(out)))
    return ErrorMap(emap, out)


def frc(backend, a, b, pixel_size=1.0, unit="pixels"):
    where = "frc"
    a, b = image(where, "a", a, 10), image(where, "b", b, 10)
    if a.shape != b.shape:
        raise ValueError("%s: a %s and b %s must have one shape" % (where, a.shape, b.shape))
    desc = FrcDesc(pixel_size=real(where, "pixel_size", pixel_size, 0.0, math.inf, True))
    unit = units(where, unit)
    lib = library()
    curve = np.empty((lib.hst_frc_curve_length(*a.shape), 2), np.float32)
    out = FrcResult()
    _call(backend, where, lambda lib, be: lib.hst_frc(
        be, _pointer(a), _pointer(b), a.shape[0], a.shape[1], ctypes.byref(desc),
        _pointer(curve), ctypes.byref(out)))
    return FRC(out.resolution, unit, curve[:, 0].copy(), curve[:, 1].copy())


def decorrelation(backend, img, rmin=0.0, rmax=1.0, n_r=50, n_g=10, pixel_size=1.0,
                  unit="pixels", roi=None):
    where = "decorrelation"
    img = image(where, "img", img, 2)
    desc = DecorrDesc()
    desc.rmin = real(where, "rmin", rmin, 0.0, 1.0)
    desc.rmax = real(where, "rmax", rmax, 0.0, 1.0, low_open=True)   # 0 would mean "1" in C
    if desc.rmin >= desc.rmax:
        raise ValueError("%s: rmin (%r) must be below rmax (%r)" % (where, rmin, rmax))
    # NanoPyx's keyword names for quality.h's num_radii and num_highpass
    desc.num_radii = _check.integer(where, "n_r", n_r, 1, _check.U32_MAX)   # 0 would mean "50"
    desc.num_highpass = _check.integer(where, "n_g", n_g, 1, _check.U32_MAX)   # the library: 2 ..
    desc.pixel_size = real(where, "pixel_size", pixel_size, 0.0, math.inf, True)
    unit = units(where, unit)
    if roi is not None:
        if not isinstance(roi, (tuple, list)) or len(roi) != 4:
            raise ValueError("%s: roi must be (x0, y0, x1, y1) or None, got %r" % (where, roi))
        for i, v in enumerate(roi):
            desc.roi[i] = _check.integer(where, "roi", v, 0, _check.U64_MAX)
    out = DecorrResult()
    _call(backend, where, lambda lib, be: lib.hst_decorr(
        be, _pointer(img), img.shape[0], img.shape[1], ctypes.byref(desc), ctypes.byref(out)))
    return Decorrelation(out.resolution, unit, out.kc_max, out.a_max, out.kc_gm, out.a_gm,
                         out.kc0, out.a0)


def estimate_frames(backend, stack, block_frames=None, sigmas=2.0, smoothing=3, value_range=None):
    """halostream.estimate_frames on backend (its log and interruption; the SSIMs run on the
    host's processor)."""
    where = "estimate_frames"
    with _frames.source(where, stack) as src:   # the whole stack: the SSIMs' pairs span it
        frames = src.block(0, src.frames)
        src.release(0, src.frames)
    code = _check.dtype_code(where, frames.dtype)
    desc = FramesDesc()
    if block_frames is not None:
        desc.block_frames = _check.integer(where, "block_frames", block_frames, 2, src.frames)
    desc.sigmas = real(where, "sigmas", sigmas, 0.0, math.inf, low_open=True)
    desc.smoothing = _check.integer(where, "smoothing", smoothing, 1, 1 << 20)
    if value_range is not None:
        desc.range = real(where, "value_range", value_range, 0.0, math.inf, low_open=True)
    n = max(library().hst_estimate_frames_block(ctypes.byref(desc), src.frames), 1)
    curve = np.zeros(2 * n, np.float64)
    out = FramesEstimateResult()
    _call(backend, where, lambda lib, be: lib.hst_estimate_frames(
        be, frames.ctypes.data, code, frames.shape[0], frames.shape[1], frames.shape[2],
        ctypes.byref(desc), curve.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
        ctypes.byref(out)))
    return FramesEstimate(out, curve, n)
