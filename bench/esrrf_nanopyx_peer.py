#!/usr/bin/env python3
"""esrrf_nanopyx_peer.py — the NanoPyx drop-in (halostream.nanopyx.eSRRF) against NanoPyx itself
(nanopyx.methods.eSRRF, `pip install nanopyx`) on a crop of the shipped stack: the shape and
dtype of each result, the largest difference relative to NanoPyx's largest value, and whether
their NaN pixels are the same. Needs both packages in one Python; not part of `make test`
(NanoPyx is not a Debian package).

    python3 bench/esrrf_nanopyx_peer.py [--frames 12] [--crop 64] [--run-type Threaded]

--run-type: NanoPyx's _force_run_type (its Liquid Engine otherwise picks by its own timings;
its OpenCL run type has given NaN images on PoCL here). halostream's device: $HST_DEVICE."""

import argparse
import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STACK = os.path.join(HERE, "..", "examples", "data", "fkbp_confocal_50x256x256_u8.tif")

CASES = [dict(), dict(frames_per_timepoint=4), dict(frames_per_timepoint=5),
         dict(frames_per_timepoint=6), dict(frames_per_timepoint=7),
         dict(frames_per_timepoint=40), dict(frames_per_timepoint=11, temporal_correlation="VAR"),
         dict(frames_per_timepoint=11, temporal_correlation="TAC2"),
         dict(frames_per_timepoint=5, temporal_correlation="TAC2"),
         dict(magnification=3, radius=2.0, sensitivity=2, doIntensityWeighting=False,
              macro_pixel_correction=False)]


def compare(npx, hst, stack, kw, run_type):
    kw = dict(dict(magnification=2), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = npx(stack, _force_run_type=run_type, **kw)
        b = hst(stack, **kw)
    finite = np.isfinite(a) & np.isfinite(b)
    rel = (np.abs(a[finite] - b[finite]).max() / np.abs(a[finite]).max()) if finite.any() else 0.0
    print("%-7s %-78s NanoPyx %-15s %-7s halostream %-15s %-7s rel %.1e  NaN same: %s"
          % (stack.dtype, kw, a.shape, a.dtype, b.shape, b.dtype, rel,
             bool((np.isnan(a) == np.isnan(b)).all())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--crop", type=int, default=64)
    ap.add_argument("--run-type", default="Threaded")
    a = ap.parse_args()
    import tifffile
    from nanopyx.methods import eSRRF as npx
    from halostream.nanopyx import eSRRF as hst
    stack = np.asarray(tifffile.imread(STACK))[:a.frames, :a.crop, :a.crop]
    for kw in CASES:
        compare(npx, hst, stack, kw, a.run_type)
    for dt in (np.float64, np.int32, np.uint16):
        compare(npx, hst, stack.astype(dt), {}, a.run_type)


if __name__ == "__main__":
    main()
