"""NanoPyx's eSRRF, drop-in: `from halostream.nanopyx import eSRRF` in place of
`from nanopyx.methods import eSRRF`, with NanoPyx 2.1's signature, defaults and result; and its
quality metrics, calculate_error_map, calculate_frc and calculate_decorr_analysis in place of
nanopyx.methods.squirrel's (_nanopyx_quality.py), and run_esrrf_parameter_sweep in place of
nanopyx.methods.esrrf's (its QnR from one pass over the frames); halostream.nanopyx.methods
holds these at NanoPyx's path too.

NanoPyx's Liquid Engine classes, at NanoPyx's module paths under halostream.nanopyx (a NanoPyx
user changes only the import prefix), on liquid.h (__liquid_engine__.py: the engine, its
devices and run types):
    halostream.nanopyx.core.transform._le_interpolation_catmull_rom.ShiftAndMagnify
    halostream.nanopyx.core.transform._le_roberts_cross_gradients.GradientRobertsCross
    halostream.nanopyx.core.transform._le_radial_gradient_convergence.RadialGradientConvergence
    halostream.nanopyx.core.transform._le_esrrf.eSRRF      (the class: one image per frame)
The first three are also exported here. The eSRRF class is at its module path only: here,
eSRRF is the function drop-in for nanopyx.methods.eSRRF, as in NanoPyx.

NanoPyx 2.1 (nanopyx/methods/esrrf/eSRRF_workflow.py) converts the image to float32, cuts it
into time points of frames_per_timepoint frames (0, or more than there are: all frames) with a
shorter last one where they do not divide evenly, computes one image per time point and returns
np.squeeze of the (time points, rows * magnification, cols * magnification) float32 stack: a
2-D image for one time point. The function eSRRF does the same through halostream.esrrf in one
call (esrrf.h cuts time points as NanoPyx does).

Where NanoPyx's result is defined by the degenerate statistic of one frame, it is reproduced:
VAR of a one-frame time point is 0 everywhere (numpy.var of one sample), TAC2 of one is NaN
everywhere (numpy.mean of the empty lag-1 products; NanoPyx warns "Mean of empty slice", and
so do we).

The device: $HST_DEVICE, else auto (a GPU where there is one, else the host), through the
Backend halostream.esrrf caches; or _force_run_type, NanoPyx's run type (its names, mapped to
halostream's devices as __liquid_engine__.py lists them; ValueError listing ours for one we do
not have), on the Liquid Engine's device of that run type, chosen by measured speed within a
group ("OpenCL", "@cpu"). Not supported (NotImplementedError naming the parameter):
use_fht=True (Fourier interpolation), pad_edges=True (edge padding instead of zero margins).
Unlike NanoPyx, an image holding NaN or Inf raises HalostreamError (HST_ERROR_NON_FINITE)
instead of returning NaN images."""

import warnings

import numpy as np

from .. import _check, _lib, cached_backend
from .._nanopyx_quality import (calculate_decorr_analysis, calculate_error_map,  # noqa: F401
                               calculate_frc)
from ..backend import EsrrfArgs
from .__liquid_engine__ import engine, esrrf_args, resolve_run_type
from .core.transform._le_interpolation_catmull_rom import ShiftAndMagnify
from .core.transform._le_radial_gradient_convergence import RadialGradientConvergence
from .core.transform._le_roberts_cross_gradients import GradientRobertsCross

__all__ = ["eSRRF", "run_esrrf_parameter_sweep", "calculate_error_map", "calculate_frc",
           "calculate_decorr_analysis", "ShiftAndMagnify", "GradientRobertsCross",
           "RadialGradientConvergence"]

_CORRELATIONS = {m.upper(): m for m in _lib.MODES}   # NanoPyx's temporal_correlation names


def eSRRF(image, magnification: int = 5, radius: float = 1.5, sensitivity: float = 1,
          frames_per_timepoint: int = 0, temporal_correlation: str = "AVG",
          use_fht: bool = False, doIntensityWeighting: bool = True,
          macro_pixel_correction: bool = True, pad_edges: bool = False,
          _force_run_type=None):
    """NanoPyx 2.1's eSRRF(image, ...) (nanopyx.methods.eSRRF) on halostream.

    image: (frames, rows, cols), any real numeric dtype (converted to float32 as NanoPyx does;
    uint8, uint16, int16 and float32 are read in place). Returns float32 (time points,
    rows * magnification, cols * magnification), squeezed: (rows * magnification,
    cols * magnification) for one time point. _force_run_type: None ($HST_DEVICE's device),
    or NanoPyx's run type ("Threaded", "OpenCL", ...: the module's docstring)."""
    _refuse_unsupported(use_fht, pad_edges)
    if temporal_correlation not in _CORRELATIONS:
        raise ValueError("Type of correlation must be AVG, VAR or TAC2")
    mode = _CORRELATIONS[temporal_correlation]
    stack = _as_stack(image)
    frames = stack.shape[0]
    per = _check.integer("eSRRF", "frames_per_timepoint", frames_per_timepoint, 0,
                         _check.U64_MAX)
    if per == 0 or per > frames:
        per = frames
    options = dict(magnification=magnification, radius=radius, sensitivity=sensitivity,
                   intensity_weighting=doIntensityWeighting, modes=(mode,),
                   macro_pixel_correction=macro_pixel_correction)
    _check.desc("eSRRF", frames_per_timepoint=per, fused=None, **options)   # before any C call
    run_type = None if _force_run_type is None else \
        resolve_run_type("eSRRF", _force_run_type, engine().impls)
    return np.squeeze(_timepoints(stack, per, mode, options, run_type))


def run_esrrf_parameter_sweep(img: np.ndarray, magnification: int = 2,
                              sensitivities: list = [1, 2], radii: list = [1, 1.5],  # noqa: B006
                              temporal_correlation: str = "AVG", use_decorr: bool = False,
                              plot_sweep=False, return_qnr=False, n_frames=None):
    """NanoPyx 2.1's run_esrrf_parameter_sweep (nanopyx.methods.esrrf) on halostream: every
    (sensitivity, radius) pair scored by QnR (RSP of the AVG image; the FRC resolution of the
    odd and even frames' images, or decorrelation with use_decorr; per batch of n_frames frames
    and averaged), in one pass over the frames (Backend.esrrf_sweep). Returns, as NanoPyx:
    return_qnr: the float32 QnR map (len(sensitivities), len(radii)); else the best pair
    (sensitivities[i], radii[j]) as given. Not supported (NotImplementedError):
    temporal_correlation other than "AVG" (the sweep scores AVG images), plot_sweep=True (a
    matplotlib figure). With use_decorr, a pair whose image has no decorrelation maximum gets
    the resolution inf (calculate_decorr_analysis), where NanoPyx reads unfilled memory: the
    two may then rank such pairs differently."""
    where = "run_esrrf_parameter_sweep"
    if temporal_correlation != "AVG":
        if temporal_correlation not in _CORRELATIONS:
            raise ValueError("Type of correlation must be AVG, VAR or TAC2")
        raise NotImplementedError("%s: temporal_correlation=%r is not supported by halostream; "
                                  "its sweep scores AVG images" % (where, temporal_correlation))
    if _check.flag(where, "plot_sweep", plot_sweep):
        raise NotImplementedError("%s: plot_sweep=True (a matplotlib figure) is not supported "
                                  "by halostream; plot the returned QnR map" % where)
    if n_frames is not None:
        n_frames = _check.integer(where, "n_frames", n_frames, 1, _check.U64_MAX)
    sens, rad = list(sensitivities), list(radii)
    out = cached_backend(None).esrrf_sweep(_as_stack(img), radii=rad, sensitivities=sens,
                                           magnification=magnification,
                                           frames_per_timepoint=n_frames or 0,
                                           use_decorr=use_decorr, progress=False)
    if return_qnr:
        return out.qnr.astype(np.float32)
    s, r = np.unravel_index(np.argmax(out.qnr), out.qnr.shape)
    return sens[s], rad[r]


def _refuse_unsupported(use_fht, pad_edges):
    if use_fht:
        raise NotImplementedError("eSRRF: use_fht=True (Fourier interpolation) is not "
                                  "supported by halostream; it magnifies by Catmull-Rom")
    if pad_edges:
        raise NotImplementedError("eSRRF: pad_edges=True is not supported by halostream; its "
                                  "margins of int(radius * magnification) pixels are 0")


def _as_stack(image):
    """image as a C-contiguous (frames, rows, cols) array halostream reads: its own dtype where
    halostream takes it (u8, u16, i16, f32: the same float32 values on the device), else
    converted to float32 as NanoPyx's check_image does."""
    a = np.asarray(image)
    if a.dtype.kind not in "biuf":
        raise TypeError("eSRRF: image must hold real numbers, got dtype %s" % a.dtype)
    if a.ndim != 3:
        raise ValueError("eSRRF: image must be (frames, rows, cols), got shape %s" % (a.shape,))
    if a.dtype.name not in _lib.DTYPES or not a.dtype.isnative:
        a = a.astype(np.float32)
    if a.shape[0] == 0:
        raise ValueError("eSRRF: image has no frames")
    return np.ascontiguousarray(a)


def _timepoints(stack, per, mode, options, run_type):
    """The images of the time points of `per` frames (the last one the remainder):
    (time points, rows * mag, cols * mag)."""
    if per == 1 and mode != "avg":
        return _one_frame_statistic(len(stack), stack, mode, options["magnification"])
    args = EsrrfArgs(stack, frames_per_timepoint=per, fused=None, progress=None, **options)
    out = _esrrf(args, run_type)[mode]
    if len(stack) % per == 1 and mode == "tac2":   # a last time point of one frame
        out[-1] = _one_frame_statistic(1, stack, mode, options["magnification"])[0]
    return out


def _esrrf(args, run_type):
    """halostream.esrrf's {mode: images} of checked arguments: on the cached Backend (run_type
    None), else on the Liquid Engine's implementation of run_type (liquid.h's name or "@tag")."""
    if run_type is None:
        return cached_backend(None).run_esrrf(args)
    eng = engine()
    largs, out, monitor = esrrf_args(eng, "eSRRF", args.stack, args.desc, args.progress)
    try:
        eng.run(_lib.LIQUID_METHODS.index("esrrf"), largs, run_type, monitor)
    finally:
        monitor.close()
    return out


def _one_frame_statistic(count, stack, mode, mag):
    """VAR (0) and TAC2 (NaN) of time points of one frame each, as NumPy gives them to NanoPyx
    (esrrf.h's TAC2 of one frame is 0; its VAR of one frame is 0 too)."""
    shape = (count, stack.shape[1] * mag, stack.shape[2] * mag)
    if mode == "var":
        return np.zeros(shape, np.float32)
    warnings.warn("Mean of empty slice: TAC2 of a time point of one frame is NaN (as NanoPyx)",
                  RuntimeWarning, stacklevel=4)
    return np.full(shape, np.nan, np.float32)
