#!/usr/bin/env python3
"""esrrf_sweep_nanopyx.py — the eSRRF parameter sweep against NanoPyx's own, in one job: NanoPyx
2.1's run_esrrf_parameter_sweep (nanopyx.methods, `pip install nanopyx==2.1.5`) and halostream's
drop-in (halostream.nanopyx.run_esrrf_parameter_sweep: esrrf.h's hst_esrrf_sweep, one pass over
the frames) on the same stack, with the same arguments: each side's seconds, their ratio, both
QnR maps, the largest relative QnR difference and whether the best pair is the same (the issue:
within 1%, the same pair). Needs both packages in one Python; not part of `make test`.

    python3 bench/esrrf_sweep_nanopyx.py [--frames 50] [--crop 64] [--mag 5]
                                         [--radii 1,1.5,2] [--sensitivities 1,2,4] [--opencl]

The input: the shipped stack (examples/data, 50 frames of 256 x 256), its first --frames frames,
its centre --crop x --crop pixels (0: whole frames). Each side runs once untimed on the first 4
frames (imports, NanoPyx's Liquid Engine, our programs), then once timed on the input.
NanoPyx runs with NANOPYX_DISABLE_OPENCL=1 unless --opencl: its Liquid Engine otherwise picks
its OpenCL run type on PoCL here, which has given NaN images (bench/esrrf_nanopyx_peer.py) and
is several times slower than its threaded C. halostream's device: $HST_DEVICE, else auto (the
host device on a CPU-only machine)."""

import argparse
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STACK = os.path.join(HERE, "..", "examples", "data", "fkbp_confocal_50x256x256_u8.tif")


def numbers(text):
    return [float(x) if "." in x else int(x) for x in text.split(",")]


def timed(fn, stack, kw):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = np.asarray(fn(stack, return_qnr=True, **kw))
    return out, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=50)
    ap.add_argument("--crop", type=int, default=64)
    ap.add_argument("--mag", type=int, default=5)
    ap.add_argument("--radii", type=numbers, default=[1, 1.5, 2])
    ap.add_argument("--sensitivities", type=numbers, default=[1, 2, 4])
    ap.add_argument("--opencl", action="store_true")
    a = ap.parse_args()
    if not a.opencl:
        os.environ["NANOPYX_DISABLE_OPENCL"] = "1"
    import tifffile
    from nanopyx.methods import run_esrrf_parameter_sweep as theirs
    from halostream.nanopyx import run_esrrf_parameter_sweep as ours
    stack = np.asarray(tifffile.imread(STACK))[:a.frames].astype(np.float32)
    if a.crop:
        y0, x0 = (stack.shape[1] - a.crop) // 2, (stack.shape[2] - a.crop) // 2
        stack = np.ascontiguousarray(stack[:, y0:y0 + a.crop, x0:x0 + a.crop])
    kw = dict(magnification=a.mag, radii=a.radii, sensitivities=a.sensitivities)
    print("input: %d frames of %d x %d, mag %d, radii %s, sensitivities %s; halostream device: %s"
          % (stack.shape + (a.mag, a.radii, a.sensitivities, os.environ.get("HST_DEVICE", "auto"))))
    sys.stdout.flush()
    results = {}
    for name, fn in (("halostream", ours), ("NanoPyx", theirs)):
        timed(fn, stack[:4], kw)   # warm-up
        results[name] = timed(fn, stack, kw)
        print("%-10s %9.2f s  QnR (rows: sensitivities, columns: radii):\n%s"
              % (name, results[name][1], np.array2string(results[name][0], precision=5)))
        sys.stdout.flush()
    (q, t), (ref, t_ref) = results["halostream"], results["NanoPyx"]
    rel = np.max(np.abs(q - ref) / np.maximum(np.abs(ref), 1e-12))
    same = np.argmax(q) == np.argmax(ref)
    print("NanoPyx / halostream: %.1fx   largest QnR difference: %.2e relative (issue: 1e-2)   "
          "best pair the same: %s" % (t_ref / t, rel, same))
    return 0 if rel <= 0.01 and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
