#!/usr/bin/env python3
"""Tests of the NanoPyx drop-in (halostream.nanopyx.eSRRF), TAP, once per device (tests/run.sh;
the drop-in takes its device from HST_DEVICE):

- NanoPyx 2.1.5's signature and defaults (nanopyx/methods/esrrf/eSRRF_workflow.py);
- NanoPyx's shapes: one time point squeezed to 2-D; 2 and 3 time points, a shorter last one
  included (frames_per_timepoint not dividing the frames), more frames per time point than
  frames (one time point); float32 always;
- each time point's image equals halostream.esrrf on that time point's frames bit for bit;
- any real dtype converted as NanoPyx converts it (float64, int32, uint32, bool, big-endian)
  gives the float32 stack's bits;
- a one-frame last time point: VAR 0, TAC2 NaN (NumPy's statistics of one frame, as NanoPyx);
- _force_run_type: NanoPyx's run type of HST_DEVICE's device ("Threaded" and "Unthreaded" for
  the host device, "OpenCL_<name>" for an OpenCL device) gives the default call's bits; one
  halostream does not have raises ValueError listing its own;
- use_fht, pad_edges and bad arguments are refused, naming them."""

import inspect
import sys
import warnings

import numpy as np

import halostream
from halostream.nanopyx import eSRRF
from tap import DEVICE, main, raises, same_bits, test

NANOPYX_2_1_SIGNATURE = [
    ("image", inspect.Parameter.empty), ("magnification", 5), ("radius", 1.5),
    ("sensitivity", 1), ("frames_per_timepoint", 0), ("temporal_correlation", "AVG"),
    ("use_fht", False), ("doIntensityWeighting", True), ("macro_pixel_correction", True),
    ("pad_edges", False), ("_force_run_type", None)]


def stack(frames=12, dtype=np.float32):
    return np.random.default_rng(11).integers(1, 1000, size=(frames, 18, 22)).astype(dtype)


@test
def signature_and_defaults():
    params = inspect.signature(eSRRF).parameters
    assert [(n, p.default) for n, p in params.items()] == NANOPYX_2_1_SIGNATURE, list(params)


@test
def shapes_as_nanopyx():
    s = stack()
    mag = 2
    cases = {0: (36, 44), 12: (36, 44), 40: (36, 44),          # one time point: squeezed
             6: (2, 36, 44), 7: (2, 36, 44),                  # 2: even, short last (5 frames)
             4: (3, 36, 44), 5: (3, 36, 44)}                  # 3: even, short last (2 frames)
    for per, shape in cases.items():
        out = eSRRF(s, magnification=mag, frames_per_timepoint=per)
        assert out.shape == shape and out.dtype == np.float32, (per, out.shape, out.dtype)


@test
def timepoints_equal_esrrf_bits():
    s = stack()
    for per, corr in ((5, "AVG"), (7, "VAR"), (4, "TAC2")):
        out = eSRRF(s, magnification=3, radius=1.2, sensitivity=2, frames_per_timepoint=per,
                    temporal_correlation=corr, doIntensityWeighting=False)
        for i, a in enumerate(range(0, len(s), per)):
            ref = halostream.esrrf(s[a:a + per], magnification=3, radius=1.2, sensitivity=2,
                                   intensity_weighting=False, modes=corr.lower(),
                                   device=DEVICE)[corr.lower()]
            same_bits(out[i], ref[0], "per %d time point %d" % (per, i))
    plain = eSRRF(s, magnification=2, macro_pixel_correction=False)
    same_bits(plain, halostream.esrrf(s, magnification=2, macro_pixel_correction=False,
                                      device=DEVICE)["avg"][0], "no correction")


@test
def dtypes_converted_as_nanopyx():
    s = stack(frames=5)
    ref = eSRRF(s, magnification=2)
    for dt in (np.float64, np.int32, np.uint32, np.int64, np.uint16, ">u2", ">f4"):
        same_bits(eSRRF(s.astype(dt), magnification=2), ref, str(dt))
    b = s > 500
    same_bits(eSRRF(b, magnification=2), eSRRF(b.astype(np.float32), magnification=2), "bool")
    same_bits(eSRRF(s.tolist(), magnification=2), ref, "a list")
    same_bits(eSRRF(np.asfortranarray(s), magnification=2), ref, "Fortran order")


@test
def one_frame_last_timepoint():
    s = stack(frames=7)
    var = eSRRF(s, magnification=2, frames_per_timepoint=3, temporal_correlation="VAR")
    assert var.shape == (3, 36, 44) and not var[2].any() and var[0].max() > 0
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tac2 = eSRRF(s, magnification=2, frames_per_timepoint=3, temporal_correlation="TAC2")
    assert np.isnan(tac2[2]).all() and np.isfinite(tac2[:2]).all()
    assert any("Mean of empty slice" in str(x.message) for x in w)
    avg = eSRRF(s, magnification=2, frames_per_timepoint=3)
    same_bits(avg[2], halostream.esrrf(s[6:], magnification=2, device=DEVICE)["avg"][0], "one")


def run_types_of(device):
    """NanoPyx's run types that map to the device of a selector."""
    info = [d for d in halostream.devices() if d["selector"] == device][0]
    if info["type"] == "host":
        return ("Threaded", "Unthreaded")
    return ("OpenCL_" + info["name"].replace(" ", "_"),)


@test
def force_run_type():
    s = stack()
    for per, corr in ((0, "AVG"), (5, "VAR"), (4, "TAC2")):
        ref = eSRRF(s, magnification=2, frames_per_timepoint=per, temporal_correlation=corr)
        for run_type in run_types_of(DEVICE):
            same_bits(eSRRF(s, magnification=2, frames_per_timepoint=per,
                            temporal_correlation=corr, _force_run_type=run_type), ref,
                      "%s %s" % (run_type, corr))
    raises(ValueError, "'host' (tags host threaded cpu; NanoPyx: Threaded", eSRRF, s,
           _force_run_type="Numba")
    raises(TypeError, "run_type must be a str", eSRRF, s, _force_run_type=1)


@test
def refused():
    s = stack(frames=4)
    raises(NotImplementedError, "use_fht", eSRRF, s, use_fht=True)
    raises(NotImplementedError, "pad_edges", eSRRF, s, pad_edges=True)
    raises(ValueError, "Type of correlation must be AVG, VAR or TAC2", eSRRF, s,
           temporal_correlation="avg")
    raises(TypeError, "real numbers", eSRRF, s.astype(np.complex64))
    raises(ValueError, "(frames, rows, cols)", eSRRF, s[0])
    raises(ValueError, "no frames", eSRRF, s[:0])
    raises(ValueError, "radius", eSRRF, s, radius=1e-46)
    raises(ValueError, "frames_per_timepoint", eSRRF, s, frames_per_timepoint=2**64)
    raises(TypeError, "magnification", eSRRF, s, magnification=2.0)


if __name__ == "__main__":
    sys.exit(main())
