#!/usr/bin/env python3
"""Tests of live eSRRF sessions (Backend.esrrf_live over esrrf.h's hst_esrrf_live_*), TAP, once
per device (tests/run.sh):

- frames pushed in uneven pieces give the batch call's images bit for bit, every mode, with
  frames_per_timepoint 0 and with time points (a shorter last one, as NanoPyx, and a value
  above the frames clamped, as the batch call does); on_timepoint gets each time point once, in order, on the pushing thread;
  finish() returns the last time point's images;
- leaving the with-block finishes the session; the Backend then runs batch calls again;
- wrong frames, a batch call while a session is open and a push after finish are refused;
- Ctrl-C during a push cancels the session; the Backend then gives the uninterrupted bits."""

import sys
import threading

import numpy as np

import halostream
from tap import DEVICE, esrrf_interrupted, main, raises, same_bits, test

MODES = ("avg", "var", "tac2")


def stack(frames=23, rows=20, cols=26, dtype=np.uint16):
    return np.random.default_rng(7).integers(0, 3000, size=(frames, rows, cols)).astype(dtype)


def push_unevenly(live, s):
    cuts = [0, 1, 4, 5, 11, 19, len(s)]
    for a, b in zip(cuts, cuts[1:]):
        live.push(s[a:b] if b - a > 1 else s[a])   # one frame as (rows, cols) too


@test
def live_equals_batch():
    s = stack()
    with halostream.Backend(DEVICE) as be:
        for per in (0, 5, 23, 40):
            ref = be.esrrf(s, magnification=3, frames_per_timepoint=per, modes=MODES)
            got, threads = [], []

            def on_timepoint(i, images):
                got.append((i, images))
                threads.append(threading.current_thread())
            with be.esrrf_live(s.shape[1:], s.dtype, magnification=3, frames_per_timepoint=per,
                               modes=MODES, on_timepoint=on_timepoint) as live:
                push_unevenly(live, s)
                last = live.finish()
            n = ref["avg"].shape[0]
            assert [i for i, _ in got] == list(range(n)), (per, [i for i, _ in got])
            assert all(t is threading.main_thread() for t in threads)
            for i, images in got:
                for m in MODES:
                    same_bits(images[m], ref[m][i], "per %d time point %d %s" % (per, i, m))
            assert last is got[-1][1]
            used = per if 0 < per < len(s) else len(s)
            assert live.report["frames"] == len(s)
            assert live.report["frames_per_timepoint"] == used
            assert live.report["last_timepoint_frames"] == len(s) - (n - 1) * used


@test
def with_block_finishes_and_releases():
    s = stack(frames=8, dtype=np.float32)
    got = []
    with halostream.Backend(DEVICE) as be:
        with be.esrrf_live(s.shape[1:], np.float32, magnification=2,
                           on_timepoint=lambda i, im: got.append(im)) as live:
            live.push(s)
        assert len(got) == 1 and live.report["frames"] == 8
        same_bits(got[0]["avg"], be.esrrf(s, magnification=2)["avg"][0], "after the block")


@test
def live_refusals():
    s = stack(frames=4)
    with halostream.Backend(DEVICE) as be:
        with be.esrrf_live(s.shape[1:], np.uint16, magnification=2) as live:
            raises(TypeError, "dtype", live.push, s.astype(np.float32))
            raises(ValueError, "frames must be", live.push, s[:, :, :-1])
            raises(TypeError, "numpy.ndarray", live.push, s.tolist())
            raises(RuntimeError, "live session is open", be.esrrf, s)
            raises(RuntimeError, "one at a time", be.esrrf_live, s.shape[1:], np.uint16)
            live.push(s)
            assert live.finish()["avg"].shape == (40, 52)
            raises(halostream.InvalidArgument, "finished", live.push, s)
        raises(RuntimeError, "closed", live.push, s)
        raises(TypeError, "dtype", be.esrrf_live, s.shape[1:], np.float64)


@test
def ctrl_c_cancels_live():
    esrrf_interrupted("    with be.esrrf_live(big.shape[1:], big.dtype, magnification=4, progress=progress) as live:\n"
                      "        for k in range(0, len(big), 100):\n"
                      "            live.push(big[k:k + 100])")


if __name__ == "__main__":
    sys.exit(main())
