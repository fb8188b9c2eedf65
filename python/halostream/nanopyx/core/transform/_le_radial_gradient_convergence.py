"""NanoPyx 2.1.5's nanopyx.core.transform._le_radial_gradient_convergence.
RadialGradientConvergence on halostream (liquid.h's hst_liquid_radial_gradient_convergence:
kernels_esrrf.h's "rgc" on the device measured fastest). The Liquid Engine's options and run
types: __liquid_engine__.py."""

import numpy as np

from .... import _check, _lib
from ...__liquid_engine__ import LiquidEngine, pointer
from .__interpolation_tools__ import check_image

__all__ = ["RadialGradientConvergence"]


class RadialGradientConvergence(LiquidEngine):
    """Radial gradient convergence using the NanoPyx Liquid Engine."""

    _method = _lib.LIQUID_METHODS.index("radial_gradient_convergence")

    def __init__(self, clear_benchmarks=False, testing=False, verbose=True):
        self._designation = "RadialGradientConvergence"
        super().__init__(clear_benchmarks=clear_benchmarks, testing=testing, verbose=verbose)

    def run(self, gradient_col_interp, gradient_row_interp, image_interp,
            magnification: int = 5, radius: float = 1.5, sensitivity: float = 1.0,
            doIntensityWeighting: bool = True, pad_edges: bool = False, run_type=None):
        """RGC of each frame (Gustafsson et al. 2016, Laine et al. 2023; NanoPyx's formula and
        conventions): image_interp (rowsM, colsM) or (frames, rowsM, colsM), the frames
        magnified by the integer magnification (rowsM, colsM its multiples);
        gradient_col_interp, gradient_row_interp (frames, 2 rowsM, 2 colsM), the gradients
        magnified by twice it (the eSRRF chain); any real dtype (converted to float32);
        radius in input pixels, sensitivity > 0; doIntensityWeighting: times image_interp.
        Returns float32 (frames, rowsM, colsM), margins of int(radius * magnification) pixels 0.
        pad_edges=True (NanoPyx's RGC up to the edges) raises NotImplementedError."""
        args, out = self._args("RadialGradientConvergence.run", gradient_col_interp,
                               gradient_row_interp, image_interp, magnification, radius,
                               sensitivity, doIntensityWeighting, pad_edges)
        self._run("RadialGradientConvergence.run", args, run_type)
        return out

    def benchmark(self, gradient_col_interp, gradient_row_interp, image_interp,
                  magnification: int = 5, radius: float = 1.5, sensitivity: float = 1.0,
                  doIntensityWeighting: bool = True, pad_edges: bool = False):
        """Runs every implementation on these arguments (run's); prints the table, returns
        [(seconds, run type, None), ...] fastest first (__liquid_engine__.py)."""
        return self._benchmark(self._args(
            "RadialGradientConvergence.benchmark", gradient_col_interp, gradient_row_interp,
            image_interp, magnification, radius, sensitivity, doIntensityWeighting,
            pad_edges)[0])

    def _args(self, where, gradient_col_interp, gradient_row_interp, image_interp,
              magnification, radius, sensitivity, doIntensityWeighting, pad_edges):
        """The checked hst_liquid_radial_gradient_convergence_args and the output they point
        to. liquid.h checks the rest (the ranges, rowsM and colsM multiples of magnification),
        naming the argument."""
        if _check.flag(where, "pad_edges", pad_edges):
            raise NotImplementedError("%s: pad_edges=True is not supported by halostream; its "
                                      "margins of int(radius * magnification) pixels are 0"
                                      % where)
        img = check_image(image_interp, where, "image_interp")
        frames = img.shape[0]
        rows_m, cols_m = _check.frame_shape(where, img.shape[1], img.shape[2])
        twice = (frames, 2 * rows_m, 2 * cols_m)
        grads = []
        for name, g in (("gradient_col_interp", gradient_col_interp),
                        ("gradient_row_interp", gradient_row_interp)):
            g = check_image(g, where, name)
            if g.shape != twice:
                raise ValueError("%s: %s must be %s (image_interp's frames, twice its rows and "
                                 "columns: the gradients magnified by 2 x magnification), got "
                                 "%s" % (where, name, twice, g.shape))
            grads.append(g)
        desc = _lib.RgcDesc(_check.integer(where, "magnification", magnification, 1,
                                           _check.U32_MAX),
                            _check.positive_float32(where, "radius", radius),
                            _check.positive_float32(where, "sensitivity", sensitivity),
                            not _check.flag(where, "doIntensityWeighting", doIntensityWeighting))
        out = np.empty(img.shape, np.float32)
        args = _lib.LiquidRgcArgs(pointer(grads[0]), pointer(grads[1]), pointer(img), frames,
                                  rows_m, cols_m, desc, pointer(out))
        args._keep = (grads, img, out)   # alive as long as the args
        return args, out
