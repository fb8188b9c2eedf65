#!/usr/bin/env python3
"""Tests of NanoPyx's Liquid Engine classes on halostream (halostream.nanopyx.core.transform:
ShiftAndMagnify, GradientRobertsCross, RadialGradientConvergence, eSRRF; liquid.h), TAP, once
per device (tests/run.sh sets HST_DEVICE; the engine holds every device, so each test forces
HST_DEVICE's implementation by run_type, or by $HST_FORCE in a child):

- NanoPyx 2.1.5's module paths, signatures and defaults; the classes exported from
  halostream.nanopyx, where eSRRF stays the function drop-in;
- NanoPyx's tutorial "chaining Liquid Engine methods" as written (only the import prefix
  changed) on a crop of the shipped stack: its radial_gradients equal esrrf.h's per-frame image
  and the eSRRF class's, bit for bit but for the sign of zeros (esrrf.h's AVG makes -0 +0);
- each class on the device equals the host device's (the kernels' host C twins) bit for bit;
  Roberts cross equals its formula in NumPy bit for bit, Catmull-Rom NanoPyx's _c_interpolate
  in NumPy (float64) within 1e-5 of the peak, with shifts and fractional magnifications;
  2-D and 3-D images, NanoPyx's dtype conversion;
- the run-type mapping (NanoPyx's names to ours) and its error listing ours;
- clear_benchmarks, testing, verbose; benchmark's table and list;
- bad input (shapes, magnification 0 or above the maximum, NaN) refused naming the argument;
- where nanopyx (2.1.5) is installed: the tutorial's radial_gradients against NanoPyx's within
  Pearson r >= 0.999999 and 1e-4 of its peak, and each granular call against NanoPyx's."""

import contextlib
import inspect
import io
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import halostream
import halostream.nanopyx
from halostream.nanopyx import __liquid_engine__ as le
from halostream.nanopyx.core.transform._le_esrrf import eSRRF
from halostream.nanopyx.core.transform._le_interpolation_catmull_rom import ShiftAndMagnify
from halostream.nanopyx.core.transform._le_radial_gradient_convergence import \
    RadialGradientConvergence
from halostream.nanopyx.core.transform._le_roberts_cross_gradients import GradientRobertsCross
from tap import DEVICE, HERE, ROOT, main, raises, same_bits, test

STACK = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
EMPTY = inspect.Parameter.empty
# NanoPyx 2.1.5's (inspect.signature of its classes): (parameter, default), self left out
NANOPYX_SIGNATURES = {
    ShiftAndMagnify: {
        "run": [("image", EMPTY), ("shift_row", EMPTY), ("shift_col", EMPTY),
                ("magnification_row", EMPTY), ("magnification_col", EMPTY), ("run_type", None)],
        "benchmark": [("image", EMPTY), ("shift_row", EMPTY), ("shift_col", EMPTY),
                      ("magnification_row", EMPTY), ("magnification_col", EMPTY)]},
    GradientRobertsCross: {"run": [("image", EMPTY), ("run_type", None)],
                           "benchmark": [("image", EMPTY)]},
    RadialGradientConvergence: {
        "run": [("gradient_col_interp", EMPTY), ("gradient_row_interp", EMPTY),
                ("image_interp", EMPTY), ("magnification", 5), ("radius", 1.5),
                ("sensitivity", 1.0), ("doIntensityWeighting", True), ("pad_edges", False),
                ("run_type", None)],
        "benchmark": [("gradient_col_interp", EMPTY), ("gradient_row_interp", EMPTY),
                      ("image_interp", EMPTY), ("magnification", 5), ("radius", 1.5),
                      ("sensitivity", 1.0), ("doIntensityWeighting", True),
                      ("pad_edges", False)]},
    eSRRF: {
        "run": [("image", EMPTY), ("magnification", 5), ("radius", 1.5), ("sensitivity", 1.0),
                ("use_fht", False), ("doIntensityWeighting", True), ("pad_edges", False),
                ("run_type", None)],
        "benchmark": [("image", EMPTY), ("magnification", 5), ("radius", 1.5),
                      ("sensitivity", 1.0), ("use_fht", False), ("doIntensityWeighting", True),
                      ("pad_edges", False)]},
}
INIT = [("clear_benchmarks", False), ("testing", False), ("verbose", True)]

# NanoPyx's tutorial (its wiki, "2.2 Tutorial - Chaining Liquid Engine methods"), the import
# prefix changed; the image: a crop of the shipped stack (the tutorial's 'path/to/image.tif':
# the whole stack at magnification 5 needs gigabytes for the gradients), and the tutorial's
# typo "radient_row_interp =" written as the name its last line uses.
TUTORIAL = """
# imports
import numpy as np
%(imread)s
from halostream.nanopyx.core.transform._le_interpolation_catmull_rom import ShiftAndMagnify
from halostream.nanopyx.core.transform._le_roberts_cross_gradients import GradientRobertsCross
from halostream.nanopyx.core.transform._le_radial_gradient_convergence import RadialGradientConvergence
# read the image to be processed
image = imread(%(path)r)[:2, 96:136, 100:148].astype(np.float32)
# creating the liquid engine object instances
crsm = ShiftAndMagnify()
rbc = GradientRobertsCross()
rgc = RadialGradientConvergence()
# setup the used parameters
magnification = 5
sensitivity = 1
radius = 1.5
doIntensityWeighting = True
# run the eSRRF workflow
magnified_image = crsm.run(image, 0, 0, magnification, magnification)
gradient_col, gradient_row = rbc.run(image)
gradient_col_interp = crsm.run(gradient_col, 0, 0, magnification*2, magnification*2)
gradient_row_interp = crsm.run(gradient_row, 0, 0, magnification*2, magnification*2)
radial_gradients = rgc.run(gradient_col_interp, gradient_row_interp, magnified_image, magnification=magnification, radius=radius, sensitivity=sensitivity, doIntensityWeighting=doIntensityWeighting)
"""
TUTORIAL_IMREAD = """try:
    from tifffile import imread
except ImportError:   # the tests' reader of the shipped (uncompressed) TIFF
    import sys; sys.path.insert(0, %r)
    from tap import read_tiff as imread""" % HERE


def tutorial_crop():
    """The tutorial's image: the same crop, read as the tutorial reads it (float32)."""
    from tap import read_tiff
    return read_tiff(STACK, max_pages=2)[:2, 96:136, 100:148].astype(np.float32)


def impl_of(device):
    """The engine's implementation on a device selector ("host", "0:0")."""
    named = [i.name for i in le.engine().impls if i.device["selector"] == device]
    assert named, "no implementation on %s: %s" % (device, le.engine().impls)
    return named[0]


def quiet(cls, **kw):
    return cls(verbose=False, **kw)


def rng_stack(frames=3, rows=17, cols=23, seed=5):
    return (np.random.default_rng(seed).random((frames, rows, cols)) * 200).astype(np.float32)


def chain(image, mag, run_type, radius=1.5, sensitivity=1, weighting=True):
    """The tutorial's chain with every call's run_type forced."""
    crsm, rbc, rgc = quiet(ShiftAndMagnify), quiet(GradientRobertsCross), \
        quiet(RadialGradientConvergence)
    m = crsm.run(image, 0, 0, mag, mag, run_type=run_type)
    gc, gr = rbc.run(image, run_type=run_type)
    gci = crsm.run(gc, 0, 0, 2 * mag, 2 * mag, run_type=run_type)
    gri = crsm.run(gr, 0, 0, 2 * mag, 2 * mag, run_type=run_type)
    return rgc.run(gci, gri, m, magnification=mag, radius=radius, sensitivity=sensitivity,
                   doIntensityWeighting=weighting, run_type=run_type)


def same_but_zero_sign(a, b, what):
    """Bit for bit but for the sign of zeros: esrrf.h's AVG image sums from +0, so the RGC's
    -0 (0 times a negative intensity, as NanoPyx's) becomes +0 there (and in the eSRRF class,
    which is hst_esrrf_run's AVG of each frame)."""
    same_bits(a + np.float32(0), b + np.float32(0), what)


def per_frame_esrrf(stack, mag, radius=1.5, sensitivity=1, weighting=True):
    """esrrf.h's per-frame images (frames_per_timepoint 1, no macro-pixel correction, AVG) on
    HST_DEVICE's device: what the chain gives, bit for bit but for the sign of zeros."""
    return halostream.esrrf(stack, magnification=mag, radius=radius, sensitivity=sensitivity,
                            intensity_weighting=weighting, frames_per_timepoint=1,
                            macro_pixel_correction=False, device=DEVICE)["avg"]


def catmull_rom_numpy(image, shift_row, shift_col, mag_row, mag_col):
    """NanoPyx's _c_interpolate (nanopyx/core/transform/_c_interpolation_catmull_rom.c: the
    positions in float, the weights and sums in double) for every output pixel, as weight
    matrices: out = Wr @ frame @ Wc.T."""
    def cubic(v):
        v = np.abs(v)
        return np.where(v < 1, v * v * (v * 1.5 - 2.5) + 1,
                        np.where(v < 2, -0.5 * v ** 3 + 2.5 * v * v - 4 * v + 2, 0.0))

    def weights(n, n_out, mag, shift):
        pos = (np.arange(n_out, dtype=np.float32) / np.float32(mag) - np.float32(shift))
        start = np.floor((pos - np.float32(0.5)).astype(np.float32)).astype(np.int64)
        w = np.zeros((n_out, n))
        for k in range(4):
            tap = start - 1 + k
            ok = (tap >= 0) & (tap < n) & (pos >= 0) & (pos < n)
            w[np.nonzero(ok)[0], tap[ok]] += cubic(pos[ok].astype(np.float64) - (tap[ok] + 0.5))
        return w

    f, rows, cols = image.shape
    wr = weights(rows, int(rows * mag_row), mag_row, shift_row)
    wc = weights(cols, int(cols * mag_col), mag_col, shift_col)
    return np.stack([wr @ fr.astype(np.float64) @ wc.T for fr in image])


def roberts_numpy(image):
    """liquid.h's Roberts cross in float32, in its order of the sums."""
    prev_r = np.concatenate([image[:, :1], image[:, :-1]], axis=1)       # I[r0, c]
    prev_c = np.concatenate([image[:, :, :1], image[:, :, :-1]], axis=2)  # I[r, c0]
    prev_rc = np.concatenate([prev_c[:, :1], prev_c[:, :-1]], axis=1)     # I[r0, c0]
    return ((prev_r - prev_c) + image) - prev_rc, ((prev_c - prev_r) + image) - prev_rc


@test
def paths_and_signatures():
    for cls, methods in NANOPYX_SIGNATURES.items():
        for name, want in methods.items():
            got = list(inspect.signature(getattr(cls, name)).parameters.items())[1:]
            assert [(n, p.default) for n, p in got] == want, (cls.__name__, name, got)
        got = list(inspect.signature(cls.__init__).parameters.items())[1:]
        assert [(n, p.default) for n, p in got] == INIT, (cls.__name__, got)
    for cls in (ShiftAndMagnify, GradientRobertsCross, RadialGradientConvergence):
        assert getattr(halostream.nanopyx, cls.__name__) is cls
    assert inspect.isfunction(halostream.nanopyx.eSRRF) and inspect.isclass(eSRRF)
    from halostream.nanopyx.methods import eSRRF as method
    assert method is halostream.nanopyx.eSRRF


@test
def tutorial_as_written():
    """The tutorial in a child whose engine runs every method on HST_DEVICE's implementation
    ($HST_FORCE, read when the engine registers its methods)."""
    impl = impl_of(DEVICE)
    force = ",".join("liquid_%s:%s" % (m, impl)
                     for m in ("shift_magnify", "roberts_cross", "radial_gradient_convergence"))
    code = TUTORIAL % {"imread": TUTORIAL_IMREAD, "path": STACK} + \
        "import sys\nnp.save(sys.argv[1], radial_gradients)\n" \
        "print('RAN', crsm._last_runtype, '|', rbc._last_runtype, '|', rgc._last_runtype)\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rg.npy")
        p = subprocess.run([sys.executable, "-c", code, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=600,
                           env=dict(os.environ, HST_FORCE=force))
        assert p.returncode == 0, p.stdout[-3000:]
        radial_gradients = np.load(path)
    ran = [line for line in p.stdout.splitlines() if line.startswith("RAN ")]
    assert ran == ["RAN %s | %s | %s" % (impl, impl, impl)], p.stdout[-2000:]
    assert "ran on %s" % impl in p.stdout   # verbose, NanoPyx's default: a line per run
    image = tutorial_crop()
    assert radial_gradients.shape == (2, 200, 240) and radial_gradients.dtype == np.float32
    same_but_zero_sign(radial_gradients, per_frame_esrrf(image, 5),
                       "tutorial vs esrrf.h per frame")
    same_but_zero_sign(quiet(eSRRF).run(image, 5, 1.5, 1, run_type=impl), radial_gradients,
                       "tutorial vs the eSRRF class")
    return "on %s" % impl


@test
def classes_equal_host_twins():
    impl = impl_of(DEVICE)
    s = rng_stack()
    crsm, rbc, rgc = quiet(ShiftAndMagnify), quiet(GradientRobertsCross), \
        quiet(RadialGradientConvergence)
    for shift_row, shift_col, mr, mc in ((0, 0, 3, 3), (0.5, -1.25, 2.5, 1.75),
                                         (-3, 2, 1, 4), (0.3, 0.7, 0.6, 1.3)):
        args = (s, shift_row, shift_col, mr, mc)
        got = crsm.run(*args, run_type=impl)
        assert crsm._last_runtype == impl
        assert got.shape == (3, int(17 * mr), int(23 * mc)) and got.dtype == np.float32
        same_bits(got, crsm.run(*args, run_type="host"), "shift-magnify %s" % (args[1:],))
        ref = catmull_rom_numpy(*args)
        err = np.max(np.abs(got - ref)) / np.max(np.abs(ref))
        assert err <= 1e-5, "shift-magnify %s: %.3g of the peak from NanoPyx's formula" \
            % (args[1:], err)
    gc, gr = rbc.run(s, run_type=impl)
    for got, want, name in zip((gc, gr), roberts_numpy(s), ("col", "row")):
        same_bits(got, want, "gradient_" + name)
    m, gci = crsm.run(s, 0, 0, 3, 3, run_type=impl), crsm.run(gc, 0, 0, 6, 6, run_type=impl)
    gri = crsm.run(gr, 0, 0, 6, 6, run_type=impl)
    for weighting in (True, False):
        got = rgc.run(gci, gri, m, magnification=3, radius=1.2, sensitivity=2,
                      doIntensityWeighting=weighting, run_type=impl)
        same_bits(got, rgc.run(gci, gri, m, 3, 1.2, 2, weighting, run_type="host"), "rgc")
        same_but_zero_sign(got, per_frame_esrrf(s, 3, 1.2, 2, weighting),
                           "rgc vs esrrf.h per frame")
        same_bits(quiet(eSRRF).run(s, 3, 1.2, 2, False, weighting, run_type=impl),
                  per_frame_esrrf(s, 3, 1.2, 2, weighting), "the eSRRF class vs esrrf.h")
    return "on %s" % impl


@test
def images_as_nanopyx():
    """2-D images are one frame; any real dtype, lists, Fortran order converted to float32."""
    impl = impl_of(DEVICE)
    s = rng_stack(frames=1)
    crsm, rbc = quiet(ShiftAndMagnify), quiet(GradientRobertsCross)
    ref = crsm.run(s, 0, 0, 2, 2, run_type=impl)
    same_bits(crsm.run(s[0], 0, 0, 2, 2, run_type=impl), ref, "2-D image")
    for image in (s.astype(np.float64), s[0].tolist(), np.asfortranarray(s)):
        same_bits(crsm.run(image, 0, 0, 2, 2, run_type=impl), ref, type(image).__name__)
    u8 = (s[0] % 256).astype(np.uint8)
    same_bits(np.stack(rbc.run(u8, run_type=impl)),
              np.stack(rbc.run(u8.astype(np.float32), run_type=impl)), "uint8")
    e = quiet(eSRRF)
    same_bits(e.run(s[0], 2, run_type=impl), e.run(s, 2, run_type=impl), "eSRRF 2-D")
    same_bits(e.run(s, 2, pad_edges=True, run_type=impl), e.run(s, 2, run_type=impl),
              "pad_edges (NanoPyx 2.1.5 leaves it unused without use_fht)")


FAKE = [le.Impl("NVIDIA H200", ("opencl", "gpu"), {"name": "NVIDIA H200", "selector": "0:0"}),
        le.Impl("pthread-cpu", ("opencl", "cpu"), {"name": "pthread-cpu", "selector": "1:0"}),
        le.Impl("host", ("host", "threaded", "cpu"), {"name": "host", "selector": "host"})]


@test
def run_type_mapping():
    want = {None: None, "Threaded": "@threaded", "Threaded_static": "@threaded",
            "threaded_dynamic": "@threaded", "Threaded_guided": "@threaded",
            "Unthreaded": "@threaded", "Cython": "@threaded", "OpenCL": "@opencl",
            "OpenCL_NVIDIA_H200": "NVIDIA H200", "OpenCL_nvidia h200": "NVIDIA H200",
            "opencl_pthread-cpu": "pthread-cpu", "GPU": "@gpu", "cpu": "@cpu", "host": "host",
            "@gpu": "@gpu", "NVIDIA H200": "NVIDIA H200"}
    for run_type, ours in want.items():
        assert le.resolve_run_type("t", run_type, FAKE) == ours, (run_type, ours)
    for bad in ("Numba", "Python", "Transonic", "OpenCL_nope", "@nope", "cuda"):
        raises(ValueError, "run_type %r" % bad, le.resolve_run_type, "t", bad, FAKE)
    raises(ValueError, "'host' (tags host threaded cpu; NanoPyx: Threaded, Threaded_static",
           le.resolve_run_type, "t", "Numba", FAKE)
    raises(ValueError, "'NVIDIA H200' (tags opencl gpu; NanoPyx: OpenCL_NVIDIA_H200, OpenCL)",
           le.resolve_run_type, "t", "Numba", FAKE)
    raises(TypeError, "run_type must be a str", le.resolve_run_type, "t", 3, FAKE)
    # on this engine's devices
    image = rng_stack(frames=1)
    rbc = quiet(GradientRobertsCross)
    for run_type in ("Threaded", "Unthreaded", "Threaded_guided", "CPU"):
        rbc.run(image, run_type=run_type)
        assert rbc._last_runtype == "host" or run_type == "CPU", (run_type, rbc._last_runtype)
    impls = le.engine().impls
    opencl = [i for i in impls if "opencl" in i.tags]
    for i in opencl:
        rbc.run(image, run_type="OpenCL_" + i.device["name"].replace(" ", "_"))
        assert rbc._last_runtype == i.name
    if opencl:
        rbc.run(image, run_type="OpenCL")
        assert rbc._last_runtype in [i.name for i in opencl]
    raises(ValueError, "'host' (tags host threaded cpu", rbc.run, image, run_type="Numba")
    if not any("gpu" in i.tags for i in impls):
        raises(ValueError, "run_type 'GPU'", rbc.run, image, run_type="GPU")
    assert set(rbc._run_types) == {i.name for i in impls}


@test
def options_accepted():
    impl = impl_of(DEVICE)
    image = rng_stack(frames=2)
    ref = quiet(ShiftAndMagnify).run(image, 0.5, 0, 2, 3, run_type=impl)
    for kw in (dict(clear_benchmarks=True), dict(testing=True), dict(verbose=False),
               dict(clear_benchmarks=True, testing=True, verbose=False)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            crsm = ShiftAndMagnify(**kw)
            same_bits(crsm.run(image, 0.5, 0, 2, 3), ref, str(kw))   # chosen: all agree
        assert ("ShiftAndMagnify.run: ran on" in out.getvalue()) == kw.get("verbose", True), kw
    assert le.engine(True) is not le.engine(False) and le.engine(True) is le.engine(True)
    for name in ("clear_benchmarks", "testing", "verbose"):
        raises(TypeError, name, ShiftAndMagnify, **{name: "yes"})


@test
def benchmark_as_nanopyx():
    image = rng_stack(frames=2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rows = quiet(GradientRobertsCross).benchmark(image)
    names = {i.name for i in le.engine().impls}
    assert {r[1] for r in rows} == names and all(r[2] is None for r in rows), rows
    assert [r[0] for r in rows] == sorted(r[0] for r in rows) and rows[0][0] > 0, rows
    text = out.getvalue()
    assert "Fastest run type: %s" % rows[0][1] in text, text
    assert all(n[:12] in text for n in names) and "reference" in text, text
    with contextlib.redirect_stdout(io.StringIO()):
        s = rng_stack(frames=1)
        assert len(quiet(eSRRF).benchmark(s, magnification=2)) == len(names)
        assert len(quiet(ShiftAndMagnify).benchmark(s, 0, 0, 2, 2)) == len(names)


@test
def bad_input():
    impl = impl_of(DEVICE)
    s = rng_stack(frames=2, rows=12, cols=12)
    crsm, rbc, rgc, e = quiet(ShiftAndMagnify), quiet(GradientRobertsCross), \
        quiet(RadialGradientConvergence), quiet(eSRRF)
    m = crsm.run(s, 0, 0, 2, 2, run_type=impl)
    g = crsm.run(s, 0, 0, 4, 4, run_type=impl)
    nan = s.copy()
    nan[1, 3, 4] = np.nan
    limit = halostream._lib.liquid_limits(halostream._errors.library())["shift_magnification"]
    cases = [
        (ValueError, "image must be 2D or 3D", crsm.run, s[0, 0], 0, 0, 2, 2),
        (ValueError, "image must be 2D or 3D", rbc.run, s[None]),
        (ValueError, "image has no pixels", rbc.run, s[:, :0]),
        (TypeError, "image must hold real numbers", rbc.run, s.astype(np.complex64)),
        (ValueError, "image holds NaN or Inf", crsm.run, nan, 0, 0, 2, 2),
        (ValueError, "image holds NaN or Inf", rbc.run, nan),
        (ValueError, "image holds NaN or Inf", e.run, nan, 2),
        (ValueError, "image_interp holds NaN or Inf", rgc.run, g, g, m * np.nan, 2),
        (ValueError, "magnification_row must be > 0", crsm.run, s, 0, 0, 0, 2),
        (ValueError, "magnification_col must be > 0", crsm.run, s, 0, 0, 2, -1),
        (ValueError, "magnification_col must be > 0", crsm.run, s, 0, 0, 2, np.nan),
        (ValueError, "magnification_row must be at most", crsm.run, s, 0, 0, limit * 2, 1),
        (ValueError, "no output", crsm.run, s, 0, 0, 0.01, 1),
        (ValueError, "shift_row must be finite", crsm.run, s, np.nan, 0, 2, 2),
        (ValueError, "shift_col must be finite", crsm.run, s, 0, np.inf, 2, 2),
        (TypeError, "shift_row must be a real number", crsm.run, s, "0", 0, 2, 2),
        (ValueError, "gradient_col_interp must be (2, 48, 48)", rgc.run, m, g, m, 2),
        (ValueError, "gradient_row_interp must be (2, 48, 48)", rgc.run, g, g[:1], m, 2),
        (ValueError, "magnification must be in [1", rgc.run, g, g, m, 0),
        (TypeError, "magnification must be an integer", rgc.run, g, g, m, 2.0),
        (halostream.HalostreamError, "image_interp is 24 x 24", rgc.run, g, g, m, 5),
        (halostream.InvalidArgument, "magnification", rgc.run, g, g, m, 1000),
        (ValueError, "radius must be > 0", rgc.run, g, g, m, 2, 0),
        (ValueError, "sensitivity must be > 0", rgc.run, g, g, m, 2, 1.5, np.nan),
        (halostream.InvalidArgument, "radius", rgc.run, g, g, m, 2, 1e6),
        (NotImplementedError, "pad_edges", rgc.run, g, g, m, 2, 1.5, 1, True, True),
        (ValueError, "magnification must be in [1", e.run, s, 0),
        (halostream.InvalidArgument, "magnification", e.run, s, 1000),
        (NotImplementedError, "use_fht", e.run, s, 2, 1.5, 1, True),
        (TypeError, "doIntensityWeighting", e.run, s, 2, 1.5, 1, False, "yes"),
    ]
    for exc, text, fn, *args in cases:
        raises(exc, text, fn, *args)


@test
def against_nanopyx():
    try:   # quiet: NanoPyx prints and warns about its optional dependencies
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from nanopyx.core.transform._le_interpolation_catmull_rom import \
                ShiftAndMagnify as TheirShift
            from nanopyx.core.transform._le_radial_gradient_convergence import \
                RadialGradientConvergence as TheirRgc
            from nanopyx.core.transform._le_roberts_cross_gradients import \
                GradientRobertsCross as TheirRoberts
    except ImportError:
        return "SKIP nanopyx not importable (pip install nanopyx==2.1.5 to compare with it)"
    impl, image = impl_of(DEVICE), tutorial_crop()
    with contextlib.redirect_stdout(io.StringIO()):   # NanoPyx's Cython run type: its bits
        crsm, rbc, rgc = TheirShift(verbose=False), TheirRoberts(verbose=False), \
            TheirRgc(verbose=False)
        t_mag = crsm.run(image, 0, 0, 5, 5, run_type="Unthreaded")
        t_gc, t_gr = (np.asarray(g) for g in rbc.run(image, run_type="Unthreaded"))
        t_gci = crsm.run(t_gc, 0, 0, 10, 10, run_type="Unthreaded")
        t_gri = crsm.run(t_gr, 0, 0, 10, 10, run_type="Unthreaded")
        theirs = np.asarray(rgc.run(t_gci, t_gri, t_mag, magnification=5, radius=1.5,
                                    sensitivity=1, doIntensityWeighting=True,
                                    run_type="Unthreaded"))
    ours = chain(image, 5, impl)
    assert ours.shape == theirs.shape and theirs.dtype == ours.dtype, (ours.shape, theirs.shape)
    r = np.corrcoef(ours.ravel().astype(np.float64), theirs.ravel())[0, 1]
    err = np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs))
    assert r >= 0.999999 and err <= 1e-4, "radial_gradients: r %.9f, error %.3g of the peak" \
        % (r, err)
    mine = quiet(ShiftAndMagnify).run(image, 0.25, -0.5, 2.5, 3, run_type=impl)
    with contextlib.redirect_stdout(io.StringIO()):
        want = crsm.run(image, 0.25, -0.5, 2.5, 3, run_type="Unthreaded")
    assert mine.shape == want.shape
    assert np.max(np.abs(mine - want)) <= 1e-5 * np.max(np.abs(want)), "shift-magnify"
    mag = quiet(ShiftAndMagnify).run(image, 0, 0, 5, 5, run_type=impl)
    assert np.max(np.abs(mag - t_mag)) <= 1e-5 * np.max(np.abs(t_mag)), "magnified"
    for a, b, name in zip(quiet(GradientRobertsCross).run(image, run_type=impl), (t_gc, t_gr),
                          ("gradient_col", "gradient_row")):
        same_bits(a, b, name)
    return "radial_gradients: r %.9f, max error %.2g of the peak" % (r, err)


if __name__ == "__main__":
    sys.exit(main())
