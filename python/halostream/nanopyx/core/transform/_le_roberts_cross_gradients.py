"""NanoPyx 2.1.5's nanopyx.core.transform._le_roberts_cross_gradients.GradientRobertsCross on
halostream (liquid.h's hst_liquid_roberts_cross: kernels_esrrf.h's "roberts" on the device
measured fastest). The Liquid Engine's options and run types: __liquid_engine__.py."""

import numpy as np

from .... import _check, _lib
from ...__liquid_engine__ import LiquidEngine, pointer
from .__interpolation_tools__ import check_image

__all__ = ["GradientRobertsCross"]


class GradientRobertsCross(LiquidEngine):
    """Roberts-cross gradients using the NanoPyx Liquid Engine."""

    _method = _lib.LIQUID_METHODS.index("roberts_cross")

    def __init__(self, clear_benchmarks=False, testing=False, verbose=True):
        self._designation = "GradientRobertsCross"
        super().__init__(clear_benchmarks=clear_benchmarks, testing=testing, verbose=verbose)

    def run(self, image, run_type=None):
        """The gradients of each frame: image (rows, cols) or (frames, rows, cols), any real
        dtype (converted to float32). Returns (gradient_col, gradient_row), float32 (frames,
        rows, cols) each (NanoPyx returns Cython memoryviews of those; numpy.asarray of
        either is the same array). At pixel (r, c), with r0 = max(r - 1, 0), c0 = max(c - 1,
        0): gradient_col = I[r0, c] - I[r, c0] + I[r, c] - I[r0, c0], gradient_row = I[r, c0] -
        I[r0, c] + I[r, c] - I[r0, c0] (liquid.h's hst_roberts_cross: its order of the sums)."""
        args, out = self._args("GradientRobertsCross.run", image)
        self._run("GradientRobertsCross.run", args, run_type)
        return out

    def benchmark(self, image):
        """Runs every implementation on image; prints the table, returns [(seconds, run type,
        None), ...] fastest first (__liquid_engine__.py)."""
        return self._benchmark(self._args("GradientRobertsCross.benchmark", image)[0])

    def _args(self, where, image):
        """The checked hst_liquid_roberts_cross_args and the outputs they point to."""
        img = check_image(image, where, "image")
        rows, cols = _check.frame_shape(where, img.shape[1], img.shape[2])
        gradient_col, gradient_row = np.empty_like(img), np.empty_like(img)
        args = _lib.LiquidRobertsCrossArgs(pointer(img), img.shape[0], rows, cols,
                                           pointer(gradient_col), pointer(gradient_row))
        args._keep = (img, gradient_col, gradient_row)   # alive as long as the args
        return args, (gradient_col, gradient_row)
