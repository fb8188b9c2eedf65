"""NanoPyx 2.1.5's quality metrics (nanopyx.methods.squirrel: error_map.py, resolution.py),
drop-in, on halostream.squirrel: the same names, signatures, defaults and return types. The
device: $HST_DEVICE, else auto, through the Backend halostream.esrrf caches.

Deliberate differences (quality.h lists the numerical ones): the error map needs sr to be ref's
shape times one integer (NanoPyx truncates the ratio, then fails on the shapes); NaN or Inf in
an image raises HalostreamError; calculate_decorr_analysis analyses the ROI it is given (NanoPyx
2.1.5 crops a copy it then does not use, and analyses the whole frame), read in the order
NanoPyx's DecorrAnalysis unpacks it: (x0, x1, y0, y1); plot_frc_curve and plot_decorr_analysis
(matplotlib figures) raise NotImplementedError."""

import numpy as np

from . import _check, cached_backend

__all__ = ["calculate_error_map", "calculate_frc", "calculate_decorr_analysis"]


def calculate_error_map(img_ref: np.ndarray, img_sr: np.ndarray):
    """NanoPyx's calculate_error_map: (error map float32 (sr's shape), RSE float, RSP float)."""
    emap, rse, rsp = cached_backend(None).error_map(img_ref, img_sr)
    return emap, rse, rsp


def calculate_frc(frame_1: np.ndarray, frame_2: np.ndarray, pixel_size: float = 1,
                  units: str = "pixel", plot_frc_curve: bool = False):
    """NanoPyx's calculate_frc: the FIRE resolution in pixel_size's unit, a float (0.0 when the
    FRC never falls below 1/7)."""
    _no_plot("calculate_frc", "plot_frc_curve", plot_frc_curve)
    return cached_backend(None).frc(frame_1, frame_2, pixel_size, units).resolution


def calculate_decorr_analysis(frame: np.ndarray, rmin: float = 0, rmax: float = 1,
                              n_r: int = 50, n_g: int = 10, pixel_size: float = 1,
                              units: str = "pixel", roi: tuple = (0, 0, 0, 0),
                              plot_decorr_analysis=False):
    """NanoPyx's calculate_decorr_analysis: the resolution 2 pixel_size / kc_max, a float.
    roi: (x0, x1, y0, y1) as NanoPyx's DecorrAnalysis unpacks it, x1 and y1 exclusive;
    x0 == x1 or y0 == y1: the whole frame. Where no curve has a maximum (white noise, for
    one) the resolution is inf; NanoPyx returns what its never-filled np.empty(3) held."""
    _no_plot("calculate_decorr_analysis", "plot_decorr_analysis", plot_decorr_analysis)
    if not isinstance(roi, (tuple, list)) or len(roi) != 4:
        raise ValueError("calculate_decorr_analysis: roi must be (x0, x1, y0, y1), got %r"
                         % (roi,))
    x0, x1, y0, y1 = [_check.integer("calculate_decorr_analysis", "roi", v, 0, _check.U64_MAX)
                      for v in roi]
    whole = x0 == x1 or y0 == y1
    return cached_backend(None).decorrelation(frame, rmin, rmax, n_r, n_g, pixel_size, units,
                                              None if whole else (x0, y0, x1, y1)).resolution


def _no_plot(where, name, value):
    if _check.flag(where, name, value):
        raise NotImplementedError("%s: %s=True (a matplotlib figure) is not supported by "
                                  "halostream" % (where, name))
