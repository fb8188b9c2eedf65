#!/usr/bin/env python3
"""bench/nufft_peer.py — nufft.h against its peers in one job: build/bench/nufft_bench on a
device, then finufft (host, all cores) and cufinufft (GPU, when importable) on the same problems:
types 1 and 2 in 2-D (N x N modes, default 256) and 3-D (N^3, default 64), M points uniform in
[-pi, pi)^dim (default 10^6), eps E, complex64 (PyEPRI's projection is type 2, its
backprojection type 1) or, with --dtype complex128, double precision throughout (the points
float64, as FINUFFT's double-precision plans take them).

    python3 bench/nufft_peer.py [--device S] [--type 1|2|both] [--dim 2|3|both]
                                [--dtype complex64|complex128] [--modes N] [--points M]
                                [--eps E] [--reps R] [--rounds K] [--bench PATH]

Each side makes its plan and sets the points once per case, then times R executes after one
warm-up (cufinufft: device arrays in and out, synchronised around each execute), median. On
shared cores the rounds alternate: K times (default 3) ours, then finufft, the ratio taken per
round; the table gives the medians over the rounds, the ratios' median and range (< 1: ours is
faster), and the same ratio of processor time (all threads' CPU seconds per execute: what the
work cost while other jobs stretched the wall time). The header names the machine: CPU model,
cores, vector extensions, finufft's version. A peer that cannot be imported prints
"unavailable". bench/nufft_peers.sh makes both peers as folders for PYTHONPATH (cufinufft
compiled for one GPU architecture: a machine without network access can take them).
"""
import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time


def median_ms(fn, reps, sync=lambda: None):
    """(wall, cpu) medians in ms over reps calls after one warm-up."""
    fn()  # warm-up
    sync()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        sync()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)


def machine():
    """CPU model, cores, the vector extensions that matter here."""
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model is None:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    simd = [x for x in ("avx2", "fma", "avx512f") if x in flags]
    return "%s, %d cores, %s" % (model or platform.processor() or "unknown CPU", os.cpu_count(),
                                 "+".join(simd) or "no AVX")


def problem(dim, n, m, type_, dtype):
    """Points (one array per axis, axis 0 first) and the input: the modes (n,)*dim for type 2,
    m values for type 1."""
    import numpy as np
    real = np.float64 if dtype == "complex128" else np.float32
    rng = np.random.default_rng(7)
    pts = [rng.uniform(-np.pi, np.pi, m).astype(real) for _ in range(dim)]
    shape = (n,) * dim if type_ == 2 else (m,)
    v = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return pts, v


def finufft_runner(dim, n, m, eps, type_, dtype):
    """finufft's plan, points set once: returns a function timing R executes."""
    import finufft
    import numpy as np
    pts, v = problem(dim, n, m, type_, dtype)
    plan = finufft.Plan(type_, (n,) * dim, eps=eps, dtype=dtype, nthreads=os.cpu_count())
    plan.setpts(*pts)
    out = np.empty(m if type_ == 2 else (n,) * dim, dtype=dtype)
    return lambda reps: median_ms(lambda: plan.execute(v, out=out), reps)


def cufinufft_runner(dim, n, m, eps, type_, dtype):
    import cufinufft
    import cupy as cp
    pts, v = problem(dim, n, m, type_, dtype)
    dpts, vd = [cp.asarray(p) for p in pts], cp.asarray(v)
    out = cp.empty(m if type_ == 2 else (n,) * dim, dtype=dtype)
    plan = cufinufft.Plan(type_, (n,) * dim, eps=eps, dtype=dtype)
    plan.setpts(*dpts)
    return lambda reps: median_ms(lambda: plan.execute(vd, out=out), reps,
                                  cp.cuda.Device().synchronize)


def ours_ms(a, type_, dim, n):
    """(wall, cpu) ms per execute from one nufft_bench run."""
    run = subprocess.run([a.bench, "--device", a.device, "--type", str(type_), "--dim", str(dim),
                          "--dtype", "c128" if a.dtype == "complex128" else "c64", "--modes", str(n),
                          "--points", str(a.points), "--eps", str(a.eps), "--reps", str(a.reps)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout + run.stderr)
        raise RuntimeError("nufft_bench failed")
    got = re.search(r"([0-9.]+) ms per execute .*cpu ([0-9.]+) ms", run.stdout)
    return float(got.group(1)), float(got.group(2)), run.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--type", choices=("1", "2", "both"), default="both")
    ap.add_argument("--dim", choices=("2", "3", "both"), default="both")
    ap.add_argument("--dtype", choices=("complex64", "complex128"), default="complex64")
    ap.add_argument("--modes", type=int, default=0, help="per axis; 0: 256 in 2-D, 64 in 3-D")
    ap.add_argument("--points", type=int, default=1000000)
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bench", default="build/bench/nufft_bench")
    a = ap.parse_args()
    try:
        import finufft
        fin_version = getattr(finufft, "__version__", "?")
    except ImportError:
        fin_version = None
    print("nufft_peer: %s; finufft %s; %s, eps %g, %d points, %d executes per round, %d rounds"
          % (machine(), fin_version or "unavailable", a.dtype, a.eps, a.points, a.reps, a.rounds))
    print("| case | ours ms | finufft ms | ours / finufft (range) | cpu ours / finufft |")
    print("|---|---|---|---|---|")
    for type_ in ((1, 2) if a.type == "both" else (int(a.type),)):
        for dim in ((2, 3) if a.dim == "both" else (int(a.dim),)):
            n = a.modes or (256 if dim == 2 else 64)
            case = "type %d, %d-D, %d^%d modes" % (type_, dim, n, dim)
            peers = {}
            for name, make in (("finufft", finufft_runner), ("cufinufft", cufinufft_runner)):
                try:
                    peers[name] = make(dim, n, a.points, a.eps, type_, a.dtype)
                except Exception as e:  # not installed, or its CUDA libraries missing
                    print("nufft_peer: %s: %s unavailable (%s)" % (case, name, e))
            rows = []
            for _ in range(a.rounds):
                ours = ours_ms(a, type_, dim, n)
                fin = peers["finufft"](a.reps) if "finufft" in peers else None
                rows.append((ours, fin))
            ow = statistics.median(r[0][0] for r in rows)
            if "finufft" not in peers:
                print("| %s | %.3f | - | - | - |" % (case, ow))
            else:
                ratios = [r[0][0] / r[1][0] for r in rows]
                cpus = [r[0][1] / r[1][1] for r in rows]
                print("| %s | %.3f | %.2f | %.2f (%.2f .. %.2f) | %.2f |"
                      % (case, ow, statistics.median(r[1][0] for r in rows), statistics.median(ratios),
                         min(ratios), max(ratios), statistics.median(cpus)))
            if "cufinufft" in peers:
                cu = peers["cufinufft"](a.reps)[0]
                print("nufft_peer: %s: cufinufft (GPU) %.3f ms per execute; ours / peer = %.2f"
                      % (case, cu, ow / cu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
