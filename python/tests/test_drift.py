#!/usr/bin/env python3
"""Tests of drift correction (halostream.drift; esrrf(drift=...)), TAP, once per device
(tests/run.sh):

- halostream.drift of a stack of Gaussian blobs (sigma 2 px) moved by a known sub-pixel drift
  of several pixels: (T, 2) float64, frame 0 exactly 0, within 0.05 px RMS of the truth (the
  issue's bound; tests/test_drift.c holds it in C); the same table from a memmap (read a block
  at a time) and from Backend.drift;
- esrrf(drift="first") of a noisy drifting stack: the FRC resolution of the eSRRF images of
  its odd and even frames within 5% of the still scene's (the same noise), and more than 5%
  off without the correction; drift="first" and drift=the table give the same bits, and so
  does a memmap (two passes over the frames) the in-memory stack, on_timepoint included;
- bad input raises ValueError naming the argument: a 1-frame stack, an unknown reference, a
  table of another shape or with NaN, reference_frames without "mean"."""

import os
import tempfile

import numpy as np

import halostream
from tap import DEVICE, main, raises, same_bits, test

T, R, C = 40, 192, 208


def truth(frames=T):
    s = np.arange(frames) / (frames - 1)
    return np.stack([3.3 * s + 0.4 * s * s, -4.6 * s + 1.1 * s * s], 1)


def blobs(drift, background=100.0, noise=3.0, seed=7, blobs_n=360):
    """(frames, R, C) uint16: blobs (sigma 2 px, 200 .. 1000 counts) at their positions plus
    each frame's drift, over a background with Gaussian noise (sigma `noise`), rounded, >= 0.
    Each blob is separable: a frame is (A EY)^T EX, one matrix product."""
    rng = np.random.default_rng(seed)
    by, bx = rng.uniform(-8, R + 8, blobs_n), rng.uniform(-8, C + 8, blobs_n)
    amp = rng.uniform(200, 1000, blobs_n)
    y, x = np.arange(R), np.arange(C)
    out = np.empty((len(drift), R, C), np.uint16)
    for f, (dy, dx) in enumerate(drift):
        ey = np.exp(-(y[None, :] - by[:, None] - dy) ** 2 / 8.0) * amp[:, None]
        ex = np.exp(-(x[None, :] - bx[:, None] - dx) ** 2 / 8.0)
        v = ey.T @ ex + background + noise * rng.standard_normal((R, C))
        out[f] = np.clip(v + 0.5, 0, 65535).astype(np.uint16)
    return out


def rms(a, b):
    return float(np.sqrt(((a - b) ** 2).sum(1).mean()))


STACK = blobs(truth())


@test
def drift_recovered():
    d = halostream.drift(STACK, device=DEVICE)
    assert d.shape == (T, 2) and d.dtype == np.float64, (d.shape, d.dtype)
    assert d[0, 0] == 0.0 and d[0, 1] == 0.0
    e = rms(d, truth())
    assert e < 0.05, e
    with halostream.Backend(DEVICE) as be:
        assert np.array_equal(be.drift(STACK), d), "Backend.drift"
    with tempfile.TemporaryDirectory() as tmp:
        m = np.lib.format.open_memmap(os.path.join(tmp, "s.npy"), "w+", np.uint16, STACK.shape)
        m[:] = STACK
        m.flush()
        assert np.array_equal(halostream.drift(np.load(os.path.join(tmp, "s.npy"), mmap_mode="r"),
                                               device=DEVICE), d), "memmap"
        del m
    return "%.4f px RMS" % e


def odd_even_frc(stack, table):
    """FRC resolution (SR pixels) of the AVG images of the odd and the even frames (each
    corrected by its rows of table, None: not corrected)."""
    imgs = [halostream.esrrf(np.ascontiguousarray(stack[k::2]), magnification=2, device=DEVICE,
                             progress=False, drift=None if table is None else table[k::2])
            ["avg"][0] for k in (0, 1)]
    return halostream.frc(imgs[0], imgs[1], device=DEVICE).resolution


@test
def corrected_resolution():
    # noisy enough that the odd and even frames' images part at high frequencies (the FRC
    # curve crosses 1/7); the drift estimate is ~0.15 px RMS off at this noise
    noisy = blobs(truth(), background=1000.0, noise=300.0, seed=29)
    still = blobs(np.zeros((T, 2)), background=1000.0, noise=300.0, seed=29)
    table = halostream.drift(noisy, device=DEVICE)
    assert rms(table, truth()) < 0.2, rms(table, truth())
    r_still, r_raw = odd_even_frc(still, None), odd_even_frc(noisy, None)
    r_corr = odd_even_frc(noisy, table)
    assert r_still > 0 and abs(r_corr - r_still) <= 0.05 * r_still, (r_still, r_corr)
    assert r_raw > 1.05 * r_still, (r_still, r_raw)
    return "FRC (SR px): still %.3f, drifted %.3f, corrected %.3f" % (r_still, r_raw, r_corr)


@test
def same_bits_every_way():
    s = np.ascontiguousarray(STACK[:12, :64, :72])
    table = halostream.drift(s, device=DEVICE)
    with halostream.Backend(DEVICE) as be:
        a = be.esrrf(s, magnification=2, drift="first", progress=False)["avg"]
        assert np.array_equal(be.last_drift, table)
        same_bits(a, be.esrrf(s, magnification=2, drift=table, progress=False)["avg"], "table")
        seen = []
        be.esrrf(s, magnification=2, drift=table, progress=False,
                 on_timepoint=lambda i, imgs: seen.append(imgs["avg"].copy()))
        same_bits(a[0], seen[0], "on_timepoint")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.npy")
            np.save(path, s)
            same_bits(a, be.esrrf(np.load(path, mmap_mode="r"), magnification=2, drift="first",
                                  progress=False)["avg"], "memmap")
        assert np.array_equal(s, STACK[:12, :64, :72]), "the input was written"
        plain = be.esrrf(s, magnification=2, progress=False)["avg"]
        assert not np.array_equal(plain, a), "the correction changed nothing"


@test
def bad_input():
    s = np.ascontiguousarray(STACK[:4, :32, :32])
    raises(ValueError, "drift='first' needs a stack of 2 frames or more", halostream.esrrf,
           s[:1], drift="first", device=DEVICE, progress=False)
    raises(ValueError, "reference='first' needs a stack of 2 frames or more", halostream.drift,
           s[:1], device=DEVICE)
    raises(ValueError, "drift must be 'first', 'mean' or 'previous'", halostream.esrrf, s,
           drift="sideways", device=DEVICE, progress=False)
    raises(ValueError, "reference must be 'first', 'mean' or 'previous'", halostream.drift, s,
           reference="last", device=DEVICE)
    raises(ValueError, "got shape (3, 2) for 4 frames", halostream.esrrf, s,
           drift=np.zeros((3, 2)), device=DEVICE, progress=False)
    raises(ValueError, "a table with NaN or Inf", halostream.esrrf, s,
           drift=np.full((4, 2), np.nan), device=DEVICE, progress=False)
    raises(ValueError, "reference_frames belongs to reference='mean'", halostream.drift, s,
           reference_frames=2, device=DEVICE)
    raises(ValueError, "reference_frames must be in [1, 4]", halostream.drift, s,
           reference="mean", reference_frames=5, device=DEVICE)


if __name__ == "__main__":
    raise SystemExit(main())
