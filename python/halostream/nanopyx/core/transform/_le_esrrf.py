"""NanoPyx 2.1.5's nanopyx.core.transform._le_esrrf.eSRRF (the Liquid Engine class, NanoPyx's
"eSRRF_ST") on halostream: liquid.h's hst_liquid_esrrf, esrrf.h's hst_esrrf_run on the device
measured fastest, the whole chain (magnify, Roberts cross, magnified gradients, RGC) on it. The
Liquid Engine's options and run types: __liquid_engine__.py.

This class lives at its NanoPyx module path only: halostream.nanopyx.eSRRF is the function
drop-in for nanopyx.methods.eSRRF (temporal correlations, time points), as NanoPyx's own
top-level names are."""

from .... import _check, _lib
from ...__liquid_engine__ import LiquidEngine, engine, esrrf_args
from .__interpolation_tools__ import check_image

__all__ = ["eSRRF"]


class eSRRF(LiquidEngine):
    """eSRRF using the NanoPyx Liquid Engine and running as a single task: one RGC image per
    frame."""

    _method = _lib.LIQUID_METHODS.index("esrrf")

    def __init__(self, clear_benchmarks=False, testing=False, verbose=True):
        self._designation = "eSRRF_ST"
        super().__init__(clear_benchmarks=clear_benchmarks, testing=testing, verbose=verbose)

    def run(self, image, magnification: int = 5, radius: float = 1.5, sensitivity: float = 1.0,
            use_fht: bool = False, doIntensityWeighting: bool = True, pad_edges: bool = False,
            run_type=None):
        """eSRRF's image of each frame (Laine et al., Nat. Methods 2023): image (rows, cols) or
        (frames, rows, cols), any real dtype (converted to float32); magnification an integer
        (esrrf.h's range), radius in input pixels, sensitivity; doIntensityWeighting: RGC
        times the magnified frame. Returns float32 (frames, rows * magnification, cols *
        magnification): each frame's RGC, margins of int(radius * magnification) pixels 0
        (esrrf.h's per-frame image: frames_per_timepoint 1, no macro-pixel correction).
        use_fht=True (Fourier interpolation) raises NotImplementedError; pad_edges is
        checked and then unused, as NanoPyx 2.1.5 leaves it unused without use_fht."""
        args, out, monitor = self._args("eSRRF.run", image, magnification, radius, sensitivity,
                                        use_fht, doIntensityWeighting, pad_edges)
        try:
            self._run("eSRRF.run", args, run_type, monitor)
        finally:
            monitor.close()
        return out["avg"]

    def benchmark(self, image, magnification: int = 5, radius: float = 1.5,
                  sensitivity: float = 1.0, use_fht: bool = False,
                  doIntensityWeighting: bool = True, pad_edges: bool = False):
        """Runs every implementation on these arguments (run's); prints the table, returns
        [(seconds, run type, None), ...] fastest first (__liquid_engine__.py)."""
        args, _, monitor = self._args("eSRRF.benchmark", image, magnification, radius,
                                      sensitivity, use_fht, doIntensityWeighting, pad_edges)
        try:
            return self._benchmark(args)
        finally:
            monitor.close()

    def _args(self, where, image, magnification, radius, sensitivity, use_fht,
              doIntensityWeighting, pad_edges):
        """The checked hst_liquid_esrrf_args, their outputs and progress monitor (none)."""
        if _check.flag(where, "use_fht", use_fht):
            raise NotImplementedError("%s: use_fht=True (Fourier interpolation) is not "
                                      "supported by halostream; it magnifies by Catmull-Rom"
                                      % where)
        _check.flag(where, "pad_edges", pad_edges)
        weighting = _check.flag(where, "doIntensityWeighting", doIntensityWeighting)
        desc = _check.desc(where, magnification, radius, sensitivity, weighting,
                           frames_per_timepoint=1, modes=("avg",), macro_pixel_correction=False,
                           fused=None)
        return esrrf_args(engine(self.testing), where, check_image(image, where, "image"), desc,
                          False)
