"""NanoPyx 2.1.5's nanopyx.methods names that halostream provides, at NanoPyx's path: eSRRF (the
function), run_esrrf_parameter_sweep, calculate_frc, calculate_decorr_analysis and
calculate_error_map (halostream.nanopyx documents each)."""

from .. import (calculate_decorr_analysis, calculate_error_map, calculate_frc,  # noqa: F401
                eSRRF, run_esrrf_parameter_sweep)

__all__ = ["eSRRF", "run_esrrf_parameter_sweep", "calculate_frc", "calculate_decorr_analysis",
           "calculate_error_map"]
