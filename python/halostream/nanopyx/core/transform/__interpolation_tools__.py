"""NanoPyx 2.1.5's nanopyx.core.transform.__interpolation_tools__ (check_image, value2array), with
the argument named in every error: the Liquid Engine classes read their arrays through it.

check_image converts as NanoPyx's does (numpy.asarray, then float32, a 2-D image made one frame:
(1, rows, cols)); it refuses, naming the argument, what NanoPyx would pass on to fail later or
to compute nonsense from: a non-real dtype (TypeError), a dimension of 0, NaN or Inf
(ValueError)."""

import numpy as np

from .... import _errors

__all__ = ["check_image", "value2array"]


def check_image(image, where="check_image", name="image"):
    """image as a C-contiguous float32 (frames, rows, cols) array: a 2-D image becomes one frame.
    Raises TypeError (not real numbers), ValueError (not 2-D or 3-D, a dimension of 0, NaN or
    Inf), each message naming `where` and `name`."""
    a = np.asarray(image)
    if a.dtype.kind not in "biuf":
        raise TypeError("%s: %s must hold real numbers, got dtype %s" % (where, name, a.dtype))
    if a.ndim not in (2, 3):
        raise ValueError("%s: %s must be 2D or 3D (sequence of 2D images), got shape %s"
                         % (where, name, a.shape))
    if a.ndim == 2:
        a = a.reshape((1,) + a.shape)
    if 0 in a.shape:
        raise ValueError("%s: %s has no pixels (shape %s)" % (where, name, a.shape))
    a = np.ascontiguousarray(a, dtype=np.float32)
    # the library's test on several cores (libhalostream.c's hst_py_all_finite): numpy's
    # isfinite(a).all() took most of a RadialGradientConvergence call on an H200
    if not _errors.library().hst_py_all_finite(a.ctypes.data, a.size):
        raise ValueError("%s: %s holds NaN or Inf (as float32)" % (where, name))
    return a


def value2array(v, n_frames: int) -> np.ndarray:
    """NanoPyx's value2array: an int or float as a float32 array of n_frames copies; anything
    else as given."""
    if type(v) in (int, float):
        v = np.ones(n_frames, dtype=np.float32) * v
    return v
