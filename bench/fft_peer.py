#!/usr/bin/env python3
"""bench/fft_peer.py — the peer figures for bench/fft_bench.c: cuFFT through CuPy on the GPU
(`cupy`), or numpy.fft on the host (`numpy`), for the same transforms and in the same way
(forward c2c / r2c, inverse c2r, norm "backward", plan made before timing).

    fft_peer.py cupy|numpy REPS SPEC...

SPEC: SHAPE:AXES:KIND:PRECISION, e.g. 64x1024x1024:2:c2c:f32 — the real-space shape (C order),
the number of last axes transformed (the leading ones are the batch), c2c (fftn of a
complex64/complex128 array), r2c (rfftn of a float32/float64 array) or c2r (irfftn, with `s`
the transformed extents of SHAPE, of the rfftn of a float32/float64 array), f32 or f64.

Prints "info <module> <version>", then one line per spec, "<spec> <median seconds per call>"
(REPS calls after one that makes the plan: CuPy caches cuFFT's plans) or
"<spec> unavailable <why>"; "unavailable <why>" alone when the module is missing. With
numpy < 2, numpy.fft computes in double precision whatever the input.
"""
import sys
import time

KINDS = ("c2c", "r2c", "c2r")
PRECISIONS = {"f32": ("float32", "complex64"), "f64": ("float64", "complex128")}


def parse(spec):
    dims, axes, kind, prec = spec.split(":")
    shape = tuple(int(v) for v in dims.split("x"))
    axes = int(axes)
    if kind not in KINDS or prec not in PRECISIONS or not 1 <= axes <= len(shape):
        raise ValueError("bad spec " + spec)
    return shape, axes, kind, prec


def transform(xp, spec):
    """The timed call and the arrays it holds (inputs made here, untimed)."""
    shape, naxes, kind, prec = parse(spec)
    real, cplx = (getattr(xp, name) for name in PRECISIONS[prec])
    axes = tuple(range(-naxes, 0))
    x = xp.random.random(shape).astype(real)
    if kind == "c2c":
        x = x.astype(cplx)
        return lambda: xp.fft.fftn(x, axes=axes)
    if kind == "r2c":
        return lambda: xp.fft.rfftn(x, axes=axes)
    spectrum = xp.fft.rfftn(x, axes=axes).astype(cplx, copy=False)   # Hermitian, as c2r needs
    del x
    return lambda: xp.fft.irfftn(spectrum, s=shape[-naxes:], axes=axes)


def median_s(xp, call, reps, sync):
    times = []
    for i in range(reps + 1):  # the first call makes the plan
        sync()
        t0 = time.perf_counter()
        y = call()
        sync()
        if i:
            times.append(time.perf_counter() - t0)
        del y
    times.sort()
    return times[len(times) // 2]


def main():
    which, reps, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    try:
        if which == "cupy":
            import cupy as xp
        else:
            import numpy as xp
    except Exception as e:  # the module is missing: the bench prints "unavailable"
        print("unavailable", type(e).__name__, e)
        return
    print("info", which, xp.__version__, flush=True)

    def sync():
        if which == "cupy":
            xp.cuda.Device().synchronize()

    def release():  # frees the row's memory and plans before the next row
        if which == "cupy":
            xp.get_default_memory_pool().free_all_blocks()
            xp.fft.config.get_plan_cache().clear()

    for spec in specs:
        call = None
        try:
            call = transform(xp, spec)
            print(spec, median_s(xp, call, reps, sync), flush=True)
        except Exception as e:  # out of memory, a bad spec: this row only
            why = str(e).splitlines()[0][:120] if str(e) else ""
            print(spec, "unavailable", type(e).__name__, why, flush=True)
        del call
        release()


if __name__ == "__main__":
    main()
