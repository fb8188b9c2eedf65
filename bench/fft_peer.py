#!/usr/bin/env python3
"""bench/fft_peer.py — the peer figures for bench/fft_bench.c: cuFFT through CuPy on the GPU
(`cupy`), or numpy.fft on the host (`numpy`), for the same transforms and in the same way
(in-place-sized complex64 input, forward, norm "backward", plan made before timing).

    fft_peer.py cupy|numpy REPS SHAPE...      SHAPE: e.g. 64x1024x1024:2 (batch x n1 x n0 : axes)

Prints one line per shape, "<shape> <median seconds per transform>", or "unavailable <why>".
"""
import sys
import time


def main():
    which, reps, shapes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    try:
        if which == "cupy":
            import cupy as xp
        else:
            import numpy as xp
    except Exception as e:  # the module is missing: the bench prints "unavailable"
        print("unavailable", type(e).__name__)
        return
    for spec in shapes:
        dims, axes = spec.split(":")
        shape = tuple(int(v) for v in dims.split("x"))
        axes = tuple(range(-int(axes), 0))
        x = (xp.arange(xp.prod(xp.asarray(shape)).item(), dtype=xp.float32) % 7).astype(xp.complex64)
        x = x.reshape(shape)
        times = []
        for i in range(reps + 1):  # the first call makes cuFFT's plan (CuPy caches it)
            if which == "cupy":
                xp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            y = xp.fft.fftn(x, axes=axes)
            if which == "cupy":
                xp.cuda.Device().synchronize()
            if i:
                times.append(time.perf_counter() - t0)
            del y
        times.sort()
        print(spec, times[len(times) // 2], flush=True)


if __name__ == "__main__":
    main()
