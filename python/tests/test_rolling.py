#!/usr/bin/env python3
"""Tests of rolling time points (rolling=(W, S), esrrf.h's desc.rolling_step), TAP, once per
device (tests/run.sh):

- halostream.esrrf and Backend.esrrf with rolling=(W, S) give floor((T - W) / S) + 1 windows,
  each equal to the window computed alone (esrrf of its W frames): within a few float ulp
  (the double sums added in another order, esrrf.h's "Rolling"), bit for bit where every sum
  is exact (identical frames; blocks of one frame, gcd(W, S) = 1; one block per window, W = S);
  S dividing W, W not a multiple of S, S > W (gaps), W = T;
- a streamed stack (numpy.memmap, through a live session) and a live session pushed unevenly
  give the in-memory call's bits, and on_timepoint sees the windows in order;
- a window larger than the stack raises InvalidArgument naming frames_per_timepoint; bad
  rolling values and rolling with frames_per_timepoint raise ValueError / TypeError."""

import os
import sys
import tempfile

import numpy as np

import halostream
from tap import DEVICE, main, raises, same_bits, test

MODES = ("avg", "var", "tac2")
T = 23


def stack(frames=T, rows=12, cols=14):
    return np.random.default_rng(11).integers(0, 3000, size=(frames, rows, cols)).astype(np.uint16)


def alone(be, s, W, S, n):
    """Each of the n windows computed alone: {mode: (n, rows * mag, cols * mag)}."""
    parts = [be.esrrf(s[k * S:k * S + W], magnification=3, modes=MODES) for k in range(n)]
    return {m: np.concatenate([p[m] for p in parts]) for m in MODES}


def within_bound(got, ref, what):
    """Equal but for the double sums' order: 4 float ulp, or 1e-9 of the image's largest."""
    for m in MODES:
        g, r = got[m].astype(np.float64), ref[m].astype(np.float64)
        top = np.abs(ref[m]).reshape(len(ref[m]), -1).max(axis=1)[:, None, None]
        tol = np.maximum(4 * np.spacing(np.abs(ref[m])).astype(np.float64), 1e-9 * top)
        assert np.all(np.abs(g - r) <= tol), "%s %s: %d pixels beyond the bound" % (
            what, m, np.count_nonzero(np.abs(g - r) > tol))


@test
def rolling_equals_windows():
    s = stack()
    with halostream.Backend(DEVICE) as be:
        for W, S, exact in ((6, 2, False), (10, 4, False), (5, 5, True), (7, 3, True),
                            (3, 5, True), (4, 6, False), (T, 4, True)):
            got = be.esrrf(s, magnification=3, modes=MODES, rolling=(W, S))
            n = (T - W) // S + 1
            assert got["avg"].shape == (n, 36, 42), (W, S, got["avg"].shape)
            assert be.last_report["timepoints"] == n
            assert be.last_report["frames"] == (n - 1) * S + W
            ref = alone(be, s, W, S, n)
            if exact:
                for m in MODES:
                    same_bits(got[m], ref[m], "W=%d S=%d %s" % (W, S, m))
            else:
                within_bound(got, ref, "W=%d S=%d" % (W, S))


@test
def identical_frames_exact():
    s = np.repeat(stack(1), T, axis=0)   # k x and k x^2 exact in double for k <= 32
    with halostream.Backend(DEVICE) as be:
        got = be.esrrf(s, magnification=3, modes=MODES, rolling=(12, 4))
        ref = alone(be, s, 12, 4, 3)
    for m in MODES:
        same_bits(got[m], ref[m], m)


@test
def module_call_equals_backend():
    s = stack()
    got = halostream.esrrf(s, magnification=3, modes=MODES, rolling=(6, 2), device=DEVICE,
                           progress=False)
    with halostream.Backend(DEVICE) as be:
        ref = be.esrrf(s, magnification=3, modes=MODES, rolling=(6, 2))
    for m in MODES:
        same_bits(got[m], ref[m], m)


@test
def streamed_and_live_equal_batch():
    s = stack()
    with halostream.Backend(DEVICE) as be:
        for W, S in ((6, 2), (5, 2), (4, 6)):
            ref = be.esrrf(s, magnification=3, modes=MODES, rolling=(W, S))
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "s.npy")
                np.save(path, s)
                mm = np.load(path, mmap_mode="r")
                seen = []
                got = be.esrrf(mm, magnification=3, modes=MODES, rolling=(W, S),
                               on_timepoint=lambda i, images: seen.append(i),
                               out={m: np.empty_like(ref[m]) for m in MODES})
                del mm
            assert seen == list(range(len(ref["avg"]))), seen
            for m in MODES:
                same_bits(got[m], ref[m], "memmap W=%d S=%d %s" % (W, S, m))
            live_got = []
            with be.esrrf_live(s.shape[1:], s.dtype, magnification=3, modes=MODES,
                               rolling=(W, S),
                               on_timepoint=lambda i, images: live_got.append(images)) as live:
                for a, b in zip((0, 1, 4, 11, 12), (1, 4, 11, 12, T)):
                    live.push(s[a:b])
                live.finish()
            assert len(live_got) == len(ref["avg"])
            for m in MODES:
                same_bits(np.stack([im[m] for im in live_got]), ref[m], "live %s" % m)


@test
def refused():
    s = stack()
    with halostream.Backend(DEVICE) as be:
        raises(halostream.InvalidArgument, "frames_per_timepoint", be.esrrf, s,
               rolling=(T + 1, 2))
        raises(ValueError, "not both", be.esrrf, s, frames_per_timepoint=4, rolling=(4, 2))
        raises(ValueError, "rolling", be.esrrf, s, rolling=(4,))
        raises(ValueError, "rolling's step", be.esrrf, s, rolling=(4, 0))
        raises(TypeError, "rolling's window", be.esrrf, s, rolling=(4.5, 2))
        with tempfile.TemporaryDirectory() as tmp:   # streamed: refused before any push
            path = os.path.join(tmp, "s.npy")
            np.save(path, s)
            mm = np.load(path, mmap_mode="r")
            raises(halostream.InvalidArgument, "frames_per_timepoint", be.esrrf, mm,
                   rolling=(T + 1, 2))
            del mm


if __name__ == "__main__":
    sys.exit(main())
