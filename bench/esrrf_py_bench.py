#!/usr/bin/env python3
"""esrrf_py_bench.py — eSRRF through the Python package (installed: pip install ./python), on
the stack esrrf_bench uses (bench_util.h's blinking emitters), to compare with the C library's
figures of esrrf_bench run with the same --frames:

    python3 bench/esrrf_py_bench.py [--device S] [--frames F] [--size N] [--mag M] [--reps K]

Figures (ms per frame, best of K timed calls after one untimed call that builds the programs
and lets the choice measure both paths):
  Backend.esrrf, u16         calls on one Backend (the 2nd and later: its context, programs and
                             timings reused)
  fresh Backend per call     Backend(device) + esrrf + close each time (what every call of
                             the package cost before Backend existed)
  halostream.esrrf, f32      the module-level call (its cached Backend) on the stack as float32
  nanopyx.eSRRF, f32         the NanoPyx drop-in on the same float32 stack ($HST_DEVICE = --device)
Defaults: --device auto, 40 frames of 1000 x 1000, mag 5, radius 1.5, AVG, K = 3."""

import argparse
import os
import time

import numpy as np


def blinking_stack(frames, size):
    """bench_util.h's bench_blinking_stack (u16): the same LCG noise, emitters on a grid that
    are off every third frame-plus-column."""
    n = frames * size * size
    a, c = np.uint64(1664525), np.uint64(1013904223)
    mask = np.uint64(0xFFFFFFFF)
    powers = np.cumprod(np.full(n, a, np.uint64)) & mask          # a^(i+1) mod 2^32
    # s_(i+1) = a^(i+1) s_0 + c (1 + a + ... + a^i), s_0 = 1 (uint64 arithmetic wraps mod 2^64,
    # which keeps it right mod 2^32)
    geometric = np.cumsum(np.concatenate(([np.uint64(1)], powers[:-1]))) & mask
    s = (powers + c * geometric) & mask
    v = 100 + 20 * (s >> np.uint64(28)).astype(np.int64)
    v = v.reshape(frames, size, size)
    f, y, x = np.ogrid[:frames, :size, :size]
    on = (x % 23 == 7) & (y % 19 == 5) & ((f + x) % 3 != 0)
    return (v + 3000 * on).astype(np.uint16)


def best_ms_per_frame(fn, frames, reps):
    fn()   # untimed: programs built, the path choice measured
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times) / frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--mag", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    os.environ["HST_DEVICE"] = a.device   # the drop-in's device
    import halostream
    from halostream.nanopyx import eSRRF

    u16 = blinking_stack(a.frames, a.size)
    f32 = u16.astype(np.float32)
    opts = dict(magnification=a.mag, radius=1.5, progress=False)
    with halostream.Backend(a.device) as be:
        dev = be.devices[0]
        kept = best_ms_per_frame(lambda: be.esrrf(u16, **opts), a.frames, a.reps)
        rep = be.last_report

    def fresh():
        with halostream.Backend(a.device) as b:
            b.esrrf(u16, **opts)
    fresh_ms = best_ms_per_frame(fresh, a.frames, a.reps)
    module = best_ms_per_frame(lambda: halostream.esrrf(f32, device=a.device, **opts),
                               a.frames, a.reps)
    dropin = best_ms_per_frame(lambda: eSRRF(f32, magnification=a.mag, radius=1.5),
                               a.frames, a.reps)
    same = np.array_equal(eSRRF(f32, magnification=a.mag, radius=1.5).view(np.uint32),
                          halostream.esrrf(f32, device=a.device, **opts)["avg"][0].view(np.uint32))
    print("esrrf_py_bench: %s (%s); %d frames of %d x %d, mag %d, radius 1.5, AVG; best of %d"
          % (dev["name"], dev["selector"], a.frames, a.size, a.size, a.mag, a.reps))
    print("  Backend.esrrf, u16        %9.3f ms per frame  (path %s, blocks of %d frames)"
          % (kept, rep["path"], rep["block_frames"]))
    print("  fresh Backend per call    %9.3f ms per frame  (set-up per call: %.3f s)"
          % (fresh_ms, (fresh_ms - kept) * a.frames / 1e3))
    print("  halostream.esrrf, f32     %9.3f ms per frame" % module)
    print("  nanopyx.eSRRF, f32        %9.3f ms per frame  (drop-in / esrrf: %.3f; same bits: %s)"
          % (dropin, dropin / module, "yes" if same else "NO"))


if __name__ == "__main__":
    main()
