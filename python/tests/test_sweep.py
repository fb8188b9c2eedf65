#!/usr/bin/env python3
"""Tests of the eSRRF parameter sweep (Backend.esrrf_sweep over esrrf.h's hst_esrrf_sweep, and
the NanoPyx drop-in halostream.nanopyx.run_esrrf_parameter_sweep), TAP, once per device
(tests/run.sh sets HST_DEVICE):

- every pair's AVG image equals Backend.esrrf at that pair bit for bit (one time point, and
  time points with a shorter last one, macro-pixel corrected or not);
- each pair's scores are the metrics of those images: RSP = halostream.squirrel.error_map of the
  uncorrected AVG image against the frames' mean, resolution = halostream.frc of the AVG images
  of the odd and the even frames (separate esrrf calls over them), or decorrelation; QnR from
  the maps with NanoPyx's calculate_qnr_score, and the best pair its first maximum;
- the drop-in's NanoPyx 2.1.5 signature, defaults and return values (the float32 QnR map with
  return_qnr, else the best (sensitivity, radius) as given), n_frames as NanoPyx's batches;
- refused arguments raise naming the argument;
- with NanoPyx importable: its QnR within 1% and the same best pair on a crop of the shipped
  stack; skipped otherwise."""

import inspect
import os

import numpy as np

import halostream
from halostream import squirrel
from halostream.nanopyx import run_esrrf_parameter_sweep
from tap import DEVICE, ROOT, main, raises, read_tiff, same_bits, test


def stack(frames=9, rows=20, cols=22, seed=3):
    """Blinking blurred emitters on a noisy background (uint16)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[:rows, :cols]
    out = np.empty((frames, rows, cols))
    for t in range(frames):
        img = 10 + rng.integers(0, 6, size=(rows, cols))
        for cy, cx, on in ((6.3, 7.1, t % 3 != 1), (13.6, 15.2, t % 2 == 0)):
            if on:
                img = img + 200 * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / 3.0)
        out[t] = np.floor(img)
    return out.astype(np.uint16)


def qnr_of(rsp, res):
    """NanoPyx's ParameterSweep.calculate_qnr_score (logistic_image_conversion over the finite
    resolutions, then the harmonic mean), in float64."""
    finite = np.isfinite(res)
    lo, hi = np.min(res[finite]), np.max(res[finite])
    m1, m2 = 0.075, 0.925
    a1, a2 = np.log((1 - m1) / m1), np.log((1 - m2) / m2)
    with np.errstate(all="ignore"):
        if lo == hi:
            n = np.where(finite, 0.5, 0.0)
        else:
            x0 = (a2 * hi - a1 * lo) / (a2 - a1)
            k = 1 / (x0 - hi) * a1
            n = np.nan_to_num(1 / (np.exp(-k * (res - x0)) + 1), nan=0.0, posinf=1.0, neginf=0.0)
        d = rsp + n
        return np.where(d != 0, 2 * rsp * n / np.where(d != 0, d, 1), 0.0)


@test
def images_equal_esrrf_bits():
    s = stack()
    radii, sens = (1.0, 1.5, 2.0), (1.0, 2.0, 4.0)
    with halostream.Backend(DEVICE) as be:
        for per, macro in ((0, False), (4, True)):
            out = be.esrrf_sweep(s, radii=radii, sensitivities=sens, magnification=3,
                                 frames_per_timepoint=per, macro_pixel_correction=macro,
                                 images=True, progress=False)
            assert out.qnr.shape == (3, 3) and out.report["timepoints"] == (1 if not per else 3)
            for (i, k), img in out.images.items():
                ref = be.esrrf(s, magnification=3, radius=radii[k], sensitivity=sens[i],
                               frames_per_timepoint=per, macro_pixel_correction=macro)["avg"]
                same_bits(img, ref, "per %d, sensitivity %g, radius %g" % (per, sens[i], radii[k]))


@test
def scores_are_the_metrics():
    s = stack()
    radii, sens = (1.0, 1.5), (1.0, 2.0)
    mean = s.astype(np.float64).mean(axis=0).astype(np.float32)
    with halostream.Backend(DEVICE) as be:
        for decorr in (False, True):
            out = be.esrrf_sweep(s, radii=radii, sensitivities=sens, magnification=2,
                                 use_decorr=decorr)
            for i, sv in enumerate(sens):
                for k, rv in enumerate(radii):
                    opts = dict(magnification=2, radius=rv, sensitivity=sv,
                                macro_pixel_correction=False)
                    avg = be.esrrf(s, **opts)["avg"][0]
                    em = be.error_map(mean, avg, scores_only=True)   # how the sweep scores
                    assert em.map is None and out.rsp[i, k] == em.rsp, (decorr, i, k)
                    assert abs(em.rsp - be.error_map(mean, avg).rsp) <= 1e-5 * abs(em.rsp)
                    if decorr:
                        d = be.decorrelation(avg).resolution
                        assert out.resolution[i, k] == d, (out.resolution[i, k], d)
                    else:
                        odd = be.esrrf(np.ascontiguousarray(s[1::2]), **opts)["avg"][0]
                        even = be.esrrf(np.ascontiguousarray(s[::2]), **opts)["avg"][0]
                        f = be.frc(odd, even).resolution
                        assert out.resolution[i, k] == f, (out.resolution[i, k], f)
            assert np.allclose(out.qnr, qnr_of(out.rsp, out.resolution), rtol=0, atol=1e-12), \
                (out.qnr, qnr_of(out.rsp, out.resolution), out.resolution)
            i, k = np.unravel_index(np.argmax(out.qnr), out.qnr.shape)
            assert out.best == (np.float32(sens[i]), np.float32(radii[k]))
    assert squirrel is not None


@test
def dropin_as_nanopyx():
    sig = inspect.signature(run_esrrf_parameter_sweep)
    assert list(sig.parameters) == ["img", "magnification", "sensitivities", "radii",
                                    "temporal_correlation", "use_decorr", "plot_sweep",
                                    "return_qnr", "n_frames"]
    assert sig.parameters["magnification"].default == 2
    assert sig.parameters["sensitivities"].default == [1, 2]
    assert sig.parameters["radii"].default == [1, 1.5]
    s = stack().astype(np.float32)
    q = run_esrrf_parameter_sweep(s, return_qnr=True)
    assert q.shape == (2, 2) and q.dtype == np.float32
    with halostream.Backend(DEVICE) as be:
        ref = be.esrrf_sweep(s, radii=[1, 1.5], sensitivities=[1, 2], magnification=2)
    assert np.array_equal(q, ref.qnr.astype(np.float32))
    best = run_esrrf_parameter_sweep(s)
    i, k = np.unravel_index(np.argmax(q), q.shape)
    assert best == ([1, 2][i], [1, 1.5][k]) and type(best[1]) is type([1, 1.5][k])
    batches = run_esrrf_parameter_sweep(s, radii=[1, 2], n_frames=4, return_qnr=True)
    assert batches.shape == (2, 2) and np.all((batches >= 0) & (batches <= 1))


@test
def refused():
    s = stack()
    raises(NotImplementedError, "temporal_correlation", run_esrrf_parameter_sweep, s,
           temporal_correlation="VAR")
    raises(ValueError, "Type of correlation", run_esrrf_parameter_sweep, s,
           temporal_correlation="avg")
    raises(NotImplementedError, "plot_sweep", run_esrrf_parameter_sweep, s, plot_sweep=True)
    raises(ValueError, "n_frames", run_esrrf_parameter_sweep, s, n_frames=0)
    # as every integer argument: no float, no string, no bool (2.7 and "3" were taken)
    for bad in (2.7, 3.0, "3", True):
        raises(TypeError, "n_frames must be an integer", run_esrrf_parameter_sweep, s,
               n_frames=bad)
    with halostream.Backend(DEVICE) as be:
        raises(ValueError, "radii", be.esrrf_sweep, s, radii=list(range(1, 10)))
        raises(ValueError, "sensitivities", be.esrrf_sweep, s, sensitivities=[1, -2])
        raises(TypeError, "radii", be.esrrf_sweep, s, radii=["1"])
        raises(halostream.InvalidArgument, "radii[0] 25", be.esrrf_sweep, s, radii=[25])


@test
def against_nanopyx():
    try:
        from nanopyx.methods import run_esrrf_parameter_sweep as theirs
    except ImportError:
        return "SKIP nanopyx not importable"
    crop = read_tiff(os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif"),
                     max_pages=20)[:, 96:160, 96:160].astype(np.float32)
    ours = run_esrrf_parameter_sweep(crop, magnification=2, radii=[1, 1.5, 2],
                                     sensitivities=[1, 2, 4], return_qnr=True)
    ref = np.asarray(theirs(crop, magnification=2, radii=[1, 1.5, 2], sensitivities=[1, 2, 4],
                            return_qnr=True))
    rel = np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-12))
    assert rel <= 0.01, "QnR differs by %.3g relative: %s vs %s" % (rel, ours, ref)
    assert np.argmax(ours) == np.argmax(ref)
    return "QnR within %.2g relative" % rel


if __name__ == "__main__":
    raise SystemExit(main())
