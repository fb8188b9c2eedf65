#!/usr/bin/env python3
"""bench/nufft_peer.py — nufft.h against its peers in one job: build/bench/nufft_bench on a
device, then finufft (host, all cores) and cufinufft (GPU, when importable) on the same problem:
2-D type T (default 2), N x N modes, M points uniform in [-pi, pi)^2, eps E, complex64 (PyEPRI's
projection) or, with --dtype complex128, double precision throughout (the points float64, as
FINUFFT's double-precision plans take them; PyEPRI's backprojection is type 1).

    python3 bench/nufft_peer.py [--device S] [--type 1|2] [--dtype complex64|complex128]
                                [--modes N] [--points M] [--eps E] [--reps R] [--bench PATH]

Each peer makes its plan and sets the points once, then times R executes after one warm-up
(cufinufft: device arrays in and out, synchronised around each execute), median. Prints each
time in ms per execute and the ratio ours / peer (< 1: ours is faster). A peer that cannot be
imported prints "unavailable".
"""
import argparse
import os
import re
import subprocess
import sys
import time


def median_ms(fn, reps, sync=lambda: None):
    fn()  # warm-up
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def problem(n, m, type_, dtype):
    """Points (y, x) and the input: the modes (n, n) for type 2, m values for type 1."""
    import numpy as np
    real = np.float64 if dtype == "complex128" else np.float32
    rng = np.random.default_rng(7)
    y = rng.uniform(-np.pi, np.pi, m).astype(real)
    x = rng.uniform(-np.pi, np.pi, m).astype(real)
    shape = (n, n) if type_ == 2 else (m,)
    v = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return y, x, v


def finufft_ms(n, m, eps, reps, type_, dtype):
    import finufft
    y, x, v = problem(n, m, type_, dtype)
    plan = finufft.Plan(type_, (n, n), eps=eps, dtype=dtype, nthreads=os.cpu_count())
    plan.setpts(y, x)
    return median_ms(lambda: plan.execute(v), reps)


def cufinufft_ms(n, m, eps, reps, type_, dtype):
    import cufinufft
    import cupy as cp
    y, x, v = problem(n, m, type_, dtype)
    yd, xd, vd = cp.asarray(y), cp.asarray(x), cp.asarray(v)
    out = cp.empty(m if type_ == 2 else (n, n), dtype=dtype)
    plan = cufinufft.Plan(type_, (n, n), eps=eps, dtype=dtype)
    plan.setpts(yd, xd)
    return median_ms(lambda: plan.execute(vd, out=out), reps, cp.cuda.Device().synchronize)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--type", type=int, choices=(1, 2), default=2)
    ap.add_argument("--dtype", choices=("complex64", "complex128"), default="complex64")
    ap.add_argument("--modes", type=int, default=256)
    ap.add_argument("--points", type=int, default=1000000)
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--bench", default="build/bench/nufft_bench")
    a = ap.parse_args()
    run = subprocess.run([a.bench, "--device", a.device, "--type", str(a.type), "--dtype",
                          "c128" if a.dtype == "complex128" else "c64", "--modes", str(a.modes),
                          "--points", str(a.points), "--eps", str(a.eps), "--reps", str(a.reps)],
                         capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return 1
    ours = float(re.search(r"([0-9.]+) ms per execute", run.stdout).group(1))
    print("nufft_peer: %d cores on this host" % os.cpu_count())
    for name, fn in (("finufft (host)", finufft_ms), ("cufinufft (GPU)", cufinufft_ms)):
        try:
            peer = fn(a.modes, a.points, a.eps, a.reps, a.type, a.dtype)
        except Exception as e:  # not installed, or its CUDA libraries missing
            print("nufft_peer: %s unavailable (%s)" % (name, e))
            continue
        print("nufft_peer: %s %.2f ms per execute; ours / peer = %.2f" % (name, peer, ours / peer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
