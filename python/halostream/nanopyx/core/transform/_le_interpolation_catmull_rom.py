"""NanoPyx 2.1.5's nanopyx.core.transform._le_interpolation_catmull_rom.ShiftAndMagnify on
halostream (liquid.h's hst_liquid_shift_magnify: kernels_esrrf.h's Catmull-Rom "magnify" on
the device measured fastest). The Liquid Engine's options and run types: __liquid_engine__.py.
Not here: NanoPyx's ShiftScaleRotate and PolarTransform of this module."""

import ctypes

import numpy as np

from .... import _check, _errors, _lib
from ...__liquid_engine__ import LiquidEngine, pointer, real32
from .__interpolation_tools__ import check_image

__all__ = ["ShiftAndMagnify"]


class ShiftAndMagnify(LiquidEngine):
    """Shift and Magnify using the NanoPyx Liquid Engine (Catmull-Rom interpolation)."""

    _method = _lib.LIQUID_METHODS.index("shift_magnify")

    def __init__(self, clear_benchmarks=False, testing=False, verbose=True):
        self._designation = "ShiftMagnify_catmull_rom"
        super().__init__(clear_benchmarks=clear_benchmarks, testing=testing, verbose=verbose)

    def run(self, image, shift_row, shift_col, magnification_row, magnification_col,
            run_type=None) -> np.ndarray:
        """Shifts and magnifies each frame: image (rows, cols) or (frames, rows, cols), any
        real dtype (converted to float32 as NanoPyx does); shift_row, shift_col in input pixels
        (positive moves the content down / right); magnification_row, magnification_col > 0,
        any float. Returns float32 (frames, int(rows * magnification_row), int(cols *
        magnification_col)) (one frame for a 2-D image, as NanoPyx's). Output pixel (r, c)
        samples the input at (r / magnification_row - shift_row, c / magnification_col -
        shift_col); 0 outside the image (liquid.h's hst_shift_magnify)."""
        args, out = self._args("ShiftAndMagnify.run", image, shift_row, shift_col,
                               magnification_row, magnification_col)
        self._run("ShiftAndMagnify.run", args, run_type)
        return out

    def benchmark(self, image, shift_row, shift_col, magnification_row, magnification_col):
        """Runs every implementation on these arguments (run's); prints the table, returns
        [(seconds, run type, None), ...] fastest first (__liquid_engine__.py)."""
        return self._benchmark(self._args("ShiftAndMagnify.benchmark", image, shift_row,
                                          shift_col, magnification_row, magnification_col)[0])

    def _args(self, where, image, shift_row, shift_col, magnification_row, magnification_col):
        """The checked hst_liquid_shift_magnify_args and the output they point to."""
        lib = _errors.library()
        limit = _lib.liquid_limits(lib)["shift_magnification"]
        img = check_image(image, where, "image")
        frames = img.shape[0]
        rows, cols = _check.frame_shape(where, img.shape[1], img.shape[2])
        desc = _lib.ShiftMagnifyDesc(real32(where, "shift_row", shift_row),
                                     real32(where, "shift_col", shift_col),
                                     _magnification(where, "magnification_row",
                                                    magnification_row, limit),
                                     _magnification(where, "magnification_col",
                                                    magnification_col, limit))
        rows_m, cols_m = ctypes.c_uint32(0), ctypes.c_uint32(0)
        if lib.hst_shift_magnify_shape(rows, cols, ctypes.byref(desc), ctypes.byref(rows_m),
                                       ctypes.byref(cols_m)) != _lib.HST_SUCCESS:
            raise ValueError("%s: magnification_row=%r, magnification_col=%r give a %d x %d "
                             "image no output or one too large (liquid.h's "
                             "hst_shift_magnify_shape)" % (where, magnification_row,
                                                           magnification_col, rows, cols))
        out = np.empty((frames, rows_m.value, cols_m.value), np.float32)
        args = _lib.LiquidShiftMagnifyArgs(pointer(img), frames, rows, cols, desc, pointer(out))
        args._keep = (img, out)   # the arrays the pointers name live as long as the args
        return args, out


def _magnification(where, name, value, limit):
    """A magnification in (0, limit] (liquid.h's HST_LIQUID_MAX_MAGNIFICATION)."""
    value = _check.positive_float32(where, name, value)
    if value > limit:
        raise ValueError("%s: %s must be at most %g, got %r" % (where, name, limit, value))
    return value
