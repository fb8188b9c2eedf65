#!/usr/bin/env python3
"""drift_nanopyx_compare.py: quality.h's drift estimation (hst_drift_*, through
bench/drift_bench's stack mode) against NanoPyx 2.1.5's drift alignment
(nanopyx.core.analysis._le_drift_calculator.DriftEstimator, what
nanopyx.methods.drift_alignment.DriftEstimator.estimate runs) on the same synthetic stack.

    python3 bench/drift_nanopyx_compare.py [--bench build/bench/drift_bench] [--device host]
                                           [--frames F] [--size N] [--seed S]

The stack: F (default 30) u16 frames of N x N (default 128; NanoPyx crops to an even square)
pixels, Gaussian blobs (sigma 2 px, one per 180 pixels, amplitudes 200 .. 1000 over 100, noise
of 3 counts) rendered at positions moved by a known sub-pixel drift of several pixels. Both
sides run every frame against the first (NanoPyx ref_option 0) and against the previous one
(ref_option 1), without temporal averaging (NanoPyx's averaging maps its blocks onto the
frames by a cubic spline through frames 1 .. F, ours linearly between the blocks' centres: not
the same interpolation), over the whole map (max_drift 0). NanoPyx's table holds the
translation that undoes the drift (its drift_y, drift_x = -(dy, dx)); it is negated here.
Ours runs with NanoPyx's sub-pixel method (HST_DRIFT_PEAK_CATMULL_ROM: the maximum of the
map's Catmull-Rom interpolation) and with the default (HST_DRIFT_PEAK_GAUSSIAN).
Prints a markdown table: for each mode, the RMS of ours - NanoPyx's and each one's RMS error
against the truth (the truth relative to frame 0, as both report frame 0 at 0), in pixels.
Needs nanopyx==2.1.5 and numpy."""
import argparse
import contextlib
import io
import os
import subprocess
import tempfile
import warnings

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def make_stack(frames, n, seed):
    """(stack u16 (frames, n, n), truth (frames, 2) of (dy, dx))."""
    rng = np.random.default_rng(seed)
    nb = n * n // 180 + 1
    by, bx = rng.uniform(-8, n + 8, nb), rng.uniform(-8, n + 8, nb)
    amp = rng.uniform(200, 1000, nb)
    t = np.arange(frames) / max(frames - 1, 1)
    truth = np.stack([3.3 * t + 0.25 * np.sin(6.0 * t), -4.6 * t + 1.1 * t * t], axis=1)
    y = np.arange(n)[:, None].astype(float)
    x = np.arange(n)[None, :].astype(float)
    stack = np.empty((frames, n, n), np.uint16)
    for f in range(frames):
        img = 100.0 + rng.normal(0.0, 3.0, (n, n))
        for cy, cx, a in zip(by + truth[f, 0], bx + truth[f, 1], amp):
            y0, y1 = max(int(cy) - 9, 0), min(int(cy) + 10, n)
            x0, x1 = max(int(cx) - 9, 0), min(int(cx) + 10, n)
            if y0 < y1 and x0 < x1:
                img[y0:y1, x0:x1] += a * np.exp(-((y[y0:y1] - cy) ** 2 + (x[:, x0:x1] - cx) ** 2) / 8.0)
        stack[f] = np.clip(img + 0.5, 0, 65535).astype(np.uint16)
    return stack, truth


def ours(bench, device, stack, reference, peak):
    frames, rows, cols = stack.shape
    with tempfile.TemporaryDirectory() as tmp:
        raw, csv = os.path.join(tmp, "stack.u16"), os.path.join(tmp, "drift.csv")
        stack.astype(np.uint16).tofile(raw)
        subprocess.run([bench, "--device", device, "--stack", raw, "--shape", f"{frames}x{rows}x{cols}",
                        "--reference", reference, "--peak", peak, "--out", csv], check=True)
        return np.loadtxt(csv, delimiter=",", skiprows=1)[:, 1:3]


def nanopyx(stack, ref_option):
    from nanopyx.core.analysis._le_drift_calculator import DriftEstimator
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        table = DriftEstimator(verbose=False).run(stack.astype(np.float32), time_averaging=1, max_drift=0,
                                                  ref_option=ref_option)
    return -table[:, [2, 1]].astype(float)   # columns: |drift|, drift_x, drift_y (the undoing shift)


def rms(a):
    return float(np.sqrt(np.mean(np.sum(a * a, axis=1))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "drift_bench"))
    ap.add_argument("--device", default="host")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    stack, truth = make_stack(a.frames, a.size, a.seed)
    truth = truth - truth[0]
    print(f"{a.frames} frames of {a.size} x {a.size} u16, drift up to {np.abs(truth).max():.2f} px; ours on {a.device}\n")
    print("| reference | ours' peak | RMS ours - NanoPyx (px) | RMS error ours (px) | RMS error NanoPyx (px) |")
    print("|---|---|---|---|---|")
    for reference, option in (("first", 0), ("previous", 1)):
        theirs = nanopyx(stack, option)
        for peak in ("catmull", "gauss"):
            mine = ours(a.bench, a.device, stack, reference, peak)
            print(f"| {reference} | {peak} | {rms(mine - theirs):.4f} | {rms(mine - truth):.4f} | "
                  f"{rms(theirs - truth):.4f} |")


if __name__ == "__main__":
    main()
