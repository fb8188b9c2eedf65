#!/usr/bin/env python3
"""esrrf_nanopyx_compare.py: halostream's eSRRF images against the real NanoPyx (PyPI) on the same
stack, every temporal mode (AVG, VAR, TAC2) with and without macro-pixel correction.

    python3 esrrf_nanopyx_compare.py STACK.tif OURS_DIR [--rgc-cache FILE.npy]

OURS_DIR holds the esrrf CLI's outputs (mag 5, radius 1.5, sensitivity 1, weighting on):
    esrrf --mode avg,var,tac2 STACK.tif OURS_DIR/mp.tif       (mp_avg.tif, mp_var.tif, mp_tac2.tif)
    esrrf --mode avg,var,tac2 --no-macro-pixel STACK.tif OURS_DIR/raw.tif
NanoPyx's per-frame RGC stack (its eSRRF_ST, Threaded run type: minutes on a small CPU) is cached
in --rgc-cache when given; its temporal correlations and macro-pixel corrector run on it as its
eSRRF workflow does. Pass: Pearson r >= 0.999999 and max |error| <= 1e-4 of NanoPyx's peak
|value|, over the whole image (margins included); exit status 1 otherwise. Needs nanopyx, numpy,
tifffile."""
import os
import sys

import numpy as np
import tifffile

MAG, RADIUS, SENS = 5, 1.5, 1.0
R_MIN, ERR_MAX = 0.999999, 1e-4


def nanopyx_rgc(stack, cache):
    if cache and os.path.exists(cache):
        return np.load(cache)
    from nanopyx.core.transform import eSRRF_ST
    rgc = np.asarray(eSRRF_ST(verbose=False).run(stack, magnification=MAG, radius=RADIUS,
                                                 sensitivity=SENS, doIntensityWeighting=True,
                                                 run_type="Threaded"), dtype=np.float32)
    if cache:
        np.save(cache, rgc)
    return rgc


def main():
    args = sys.argv[1:]
    cache = None
    if "--rgc-cache" in args:
        k = args.index("--rgc-cache")
        cache = args[k + 1]
        del args[k:k + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    stack = tifffile.imread(args[0]).astype(np.float32)
    rgc = nanopyx_rgc(stack, cache)
    from nanopyx.core.transform.sr_temporal_correlations import calculate_eSRRF_temporal_correlations
    from nanopyx.core.transform.mpcorrector import macro_pixel_corrector
    ok = True
    for mode in ("avg", "var", "tac2"):
        raw = np.asarray(calculate_eSRRF_temporal_correlations(rgc, mode.upper()), dtype=np.float32)
        mp = np.asarray(macro_pixel_corrector(raw[None], magnification=MAG), dtype=np.float32)
        for name, want in (("raw", raw), ("mp", mp)):
            got = tifffile.imread(os.path.join(args[1], "%s_%s.tif" % (name, mode))).astype(np.float64)
            want = np.asarray(want, dtype=np.float64).reshape(got.shape)
            r = np.corrcoef(got.ravel(), want.ravel())[0, 1]
            err = np.max(np.abs(got - want)) / np.max(np.abs(want))
            good = r >= R_MIN and err <= ERR_MAX
            ok &= bool(good)
            print("%-4s %-3s (macro-pixel %s): Pearson r = %.12f (1 - r = %.2e), max |err| = %.2e of peak: %s"
                  % (mode.upper(), name, "on" if name == "mp" else "off", r, 1.0 - r, err,
                     "ok" if good else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
