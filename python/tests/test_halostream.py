#!/usr/bin/env python3
"""Tests of the installed package halostream: batch calls, the Backend, arguments, Ctrl-C, the
library's loading (TAP; tests/run.sh runs it once per device with HST_DEVICE set;
HALOSTREAM_CLI names build/examples/esrrf).

- the package runs from the installed wheel (not the source tree), its library inside it;
- esrrf() on the shipped stack's first 4 frames (mag 2, every mode) equals bit for bit what the
  CLI writes with the same settings on the same device;
- the four input dtypes holding the same values give the same bits; a Backend's calls give the
  bits of the module-level call, again and again;
- options left at None take the library's defaults, esrrf_defaults(): esrrf.h's numbers;
- bad stacks and each refused option raise TypeError / ValueError naming it, before any C call;
- the library's codes become their exception classes by name (NOT_BUILT_IN names the packages);
- every integer argument of the package refuses a float, a string and a bool alike;
- progress: a callable is called with (done, total); None / closed stderr never fails a run;
  on a terminal one line is rewritten, elsewhere (a log, a pipe) each report is a line;
- Ctrl-C (SIGINT) during a run cancels it; the same Backend then gives the uninterrupted bits;
- HALOSTREAM_LIB overrides the library; without an ICD loader the host build is taken;
- a process that exits with Backends and a live session still open exits cleanly;
- devices() lists every device, the host device last."""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import halostream
from tap import DEVICE, ROOT, child, esrrf_interrupted, main, raises, read_tiff, same_bits, test

STACK = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
CLI = os.environ.get("HALOSTREAM_CLI", os.path.join(ROOT, "build", "examples", "esrrf"))
PKG = os.path.dirname(os.path.abspath(halostream.__file__))


def small_stack(seed=16, shape=(6, 24, 20)):
    return np.random.default_rng(seed).integers(0, 200, size=shape).astype(np.float32)


@test
def installed_package():
    assert not PKG.startswith(os.path.join(ROOT, "python")), "imported from the source tree: " + PKG
    assert PKG.startswith(sys.prefix), (PKG, sys.prefix)
    assert "HALOSTREAM_LIB" not in os.environ and "PYTHONPATH" not in os.environ
    lib = halostream._errors.library()._name
    assert os.path.dirname(lib) == PKG and os.path.basename(lib).startswith("_libhalostream_"), lib


@test
def cli_bits_equal():
    if not os.access(CLI, os.X_OK):
        return "SKIP %s not built (needs libtiff and libpng: scripts/deps.sh demo)" % CLI
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([CLI, "--device", DEVICE, "--mag", "2", "--max-frames", "4", "--mode",
                        "avg,var,tac2", "--no-preview", "-q", STACK, os.path.join(tmp, "o.tif")],
                       check=True, stdout=subprocess.DEVNULL)
        ref = {m: read_tiff(os.path.join(tmp, "o_%s.tif" % m)) for m in ("avg", "var", "tac2")}
    stack = np.ascontiguousarray(read_tiff(STACK, 4))
    out = halostream.esrrf(stack, magnification=2, modes=("avg", "var", "tac2"), device=DEVICE)
    for m in ref:
        assert out[m].shape == (1, 512, 512), (m, out[m].shape)
        same_bits(out[m], ref[m], m)
        assert np.isfinite(out[m]).all() and out[m].max() > 0


@test
def dtypes_same_bits():
    base = np.random.default_rng(16).integers(0, 200, size=(5, 24, 20))
    results = []
    for dt in (np.uint8, np.uint16, np.int16, np.float32):
        stack = base.astype(dt)
        before = stack.copy()
        out = halostream.esrrf(stack, magnification=3, radius=1.0, frames_per_timepoint=2,
                               modes=("avg", "tac2"), device=DEVICE)
        assert np.array_equal(stack, before), "the stack was written"
        assert out["avg"].shape == (3, 72, 60) and out["avg"].dtype == np.float32   # 2, 2, 1 frames
        results.append(out)
    for r in results[1:]:
        for m in ("avg", "tac2"):
            same_bits(r[m], results[0][m], m)
    assert results[0]["avg"].max() > 0


@test
def backend_reused_same_bits():
    s = small_stack()
    ref = halostream.esrrf(s, magnification=2, modes=("avg", "var"), device=DEVICE)
    with halostream.Backend(DEVICE) as be:
        assert len(be.devices) == 1 and be.devices[0]["name"]
        for _ in range(3):
            out = be.esrrf(s, magnification=2, modes=("avg", "var"))
            for m in ref:
                same_bits(out[m], ref[m], m)
        assert be.last_report["frames"] == 6 and be.last_report["timepoints"] == 1
    assert be.closed
    raises(RuntimeError, "closed", be.esrrf, s)
    be.close()   # twice: harmless
    assert halostream.cached_backend(DEVICE) is halostream.cached_backend(DEVICE)


@test
def defaults_are_the_librarys():
    header = open(os.path.join(ROOT, "esrrf.h")).read()
    want = {k: float(re.search(r"#define HST_ESRRF_DEFAULT_%s ([0-9.]+)" % k.upper(), header)
                     .group(1)) for k in ("magnification", "radius", "sensitivity")}
    got = halostream.esrrf_defaults()
    assert got == want and isinstance(got["magnification"], int), (got, want)
    s = small_stack()
    out = halostream.esrrf(s, device=DEVICE)["avg"]
    mag = got["magnification"]
    assert out.shape == (1, 24 * mag, 20 * mag), out.shape
    same_bits(out, halostream.esrrf(s, device=DEVICE, **got)["avg"], "defaults")


@test
def bad_stacks_raise():
    good = np.zeros((4, 16, 16), np.uint16)
    raises(ValueError, "3 dimensions", halostream.esrrf, good[0], device=DEVICE)
    raises(ValueError, "C-contiguous", halostream.esrrf, good[:, :, ::2], device=DEVICE)
    raises(TypeError, "float64", halostream.esrrf, good.astype(np.float64), device=DEVICE)
    raises(TypeError, ">u2", halostream.esrrf, good.astype(">u2"), device=DEVICE)
    raises(TypeError, "numpy.ndarray", halostream.esrrf, good.tolist(), device=DEVICE)
    nan = good.astype(np.float32)
    nan[2, 3, 5] = np.nan
    raises(halostream.HalostreamError, "frame 2", halostream.esrrf, nan, device=DEVICE)


# Each refused value, with the text its error must hold. The device named does not exist:
# an argument checked before any C call raises its own error, not HST_ERROR_NO_DEVICE.
REFUSED = [
    (ValueError, "radius", dict(radius=1e-46)),          # float32 0: the desc's "default"
    (ValueError, "radius", dict(radius=1e39)),           # float32 infinity
    (ValueError, "radius", dict(radius=1e-40)),          # a float32 subnormal: not its value
    (ValueError, "radius must be > 0", dict(radius=0)),
    (ValueError, "radius", dict(radius=float("nan"))),
    (ValueError, "sensitivity", dict(sensitivity=1e-50)),
    (ValueError, "sensitivity", dict(sensitivity=-1)),
    (ValueError, "magnification", dict(magnification=2**32 + 5)),
    (ValueError, "magnification", dict(magnification=0)),
    (TypeError, "magnification must be an integer", dict(magnification=2.5)),
    (TypeError, "magnification must be an integer", dict(magnification=True)),
    (ValueError, "frames_per_timepoint", dict(frames_per_timepoint=2**64)),
    (ValueError, "frames_per_timepoint", dict(frames_per_timepoint=2**64 + 1)),
    (ValueError, "frames_per_timepoint", dict(frames_per_timepoint=-1)),
    (TypeError, "intensity_weighting", dict(intensity_weighting="yes")),
    (TypeError, "macro_pixel_correction", dict(macro_pixel_correction=2)),
    (TypeError, "fused", dict(fused="fused")),
    (ValueError, "unknown mode 'median'", dict(modes=("avg", "median"))),
    (TypeError, "modes must be", dict(modes=3)),
    (TypeError, "progress", dict(progress=5)),
    (ValueError, "device must not contain NUL", dict(device="ho\0st")),
    (TypeError, "device", dict(device=5)),
    (ValueError, "device: 1 to 8 selectors", dict(device=[])),
]


@test
def refused_arguments_before_any_c_call():
    s = np.ones((4, 16, 16), np.float32)
    for exc, text, kw in REFUSED:
        kw = dict(dict(device="no-such-device-xyz"), **kw)
        raises(exc, text, halostream.esrrf, s, **kw)
    with halostream.Backend(DEVICE) as be:
        raises(ValueError, "radius", be.esrrf, s, radius=1e-46)
        raises(ValueError, "frames_per_timepoint", be.esrrf_live, (16, 16), np.float32,
               frames_per_timepoint=2**64)
        raises(TypeError, "on_timepoint", be.esrrf_live, (16, 16), np.float32, on_timepoint=3)
        raises(ValueError, "rows", be.esrrf_live, (2**32, 16), np.float32)
    raises(ValueError, "NUL", halostream.Backend, "ho\0st")


def integer_arguments(be):
    """Every integer argument of the package: (its name, a call giving it a value), each call
    refused before any work by a bad value (be: a Backend for its methods)."""
    from halostream import nanopyx
    s, img = np.ones((4, 16, 16), np.float32), np.ones((16, 16), np.float32)
    nowhere = "no-such-device-xyz"   # checked before the device is opened
    return [
        ("magnification", lambda v: halostream.esrrf(s, magnification=v, device=nowhere)),
        ("frames_per_timepoint",
         lambda v: halostream.esrrf(s, frames_per_timepoint=v, device=nowhere)),
        ("magnification", lambda v: be.esrrf_sweep(s, magnification=v)),
        ("frames_per_timepoint", lambda v: be.esrrf_sweep(s, frames_per_timepoint=v)),
        ("rows", lambda v: be.esrrf_live((v, 16), np.float32)),
        ("cols", lambda v: be.esrrf_live((16, v), np.float32)),
        ("n_r", lambda v: be.decorrelation(img, n_r=v)),
        ("n_g", lambda v: be.decorrelation(img, n_g=v)),
        ("roi", lambda v: be.decorrelation(img, roi=(0, 0, v, 8))),
        ("magnification", lambda v: nanopyx.eSRRF(s, magnification=v)),
        ("frames_per_timepoint", lambda v: nanopyx.eSRRF(s, frames_per_timepoint=v)),
        ("magnification", lambda v: nanopyx.run_esrrf_parameter_sweep(s, magnification=v)),
        ("n_frames", lambda v: nanopyx.run_esrrf_parameter_sweep(s, n_frames=v)),
        ("n_r", lambda v: nanopyx.calculate_decorr_analysis(img, n_r=v)),
        ("n_g", lambda v: nanopyx.calculate_decorr_analysis(img, n_g=v)),
        ("roi", lambda v: nanopyx.calculate_decorr_analysis(img, roi=(0, v, 0, 8))),
    ]


@test
def integer_arguments_uniform():
    # one checker (_check.integer) for every integer: run_esrrf_parameter_sweep's n_frames took
    # 2.7 (as 2) and "3" while every other integer argument refused them
    with halostream.Backend(DEVICE) as be:
        for name, call in integer_arguments(be):
            for bad in (2.7, 8.0, "3", True):
                raises(TypeError, "%s must be an integer" % name, call, bad)


@test
def library_refusals_raise():
    s = np.ones((4, 16, 16), np.float32)
    raises(halostream.InvalidArgument, "magnification 40", halostream.esrrf, s, magnification=40,
           device=DEVICE)
    raises(halostream.InvalidArgument, "", halostream.esrrf, s, modes="var",
           frames_per_timepoint=1, device=DEVICE)
    raises(halostream.HalostreamError, "HST_ERROR_NO_DEVICE", halostream.esrrf, s,
           device="no-such-device-xyz")


@test
def not_built_in_names_the_packages():
    # a package installed without FFTW or VkFFT has no FFTs; its FFT calls raise NotBuiltIn
    # naming what to install (the library's codes are taken by name, not copied here)
    from halostream import _errors
    lib = _errors.library()
    code = next(c for c in range(-20000, -20100, -1)
                if lib.hst_result_string(c) == b"HST_ERROR_NOT_BUILT_IN")
    raises(halostream.NotBuiltIn, "libfftw3-dev libvkfft-dev", _errors.check, code,
           ["hst_array_fft: FFTs are not built in"])
    raises(halostream.Cancelled, "stopped", _errors.check,
           next(c for c in range(-20000, -20100, -1)
                if lib.hst_result_string(c) == b"HST_ERROR_CANCELLED"), ["stopped"])


@test
def progress_callable_called():
    s = small_stack(shape=(40, 16, 16))
    calls = []
    halostream.esrrf(s, magnification=2, device=DEVICE, progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1] == (40, 40), calls
    assert all(0 < d <= t == 40 for d, t in calls), calls

    def stop(done, total):
        raise LookupError("stop at %d" % done)
    with halostream.Backend(DEVICE) as be:   # an exception in it cancels and is raised
        raises(LookupError, "stop at", be.esrrf, s, magnification=2, progress=stop)
        same_bits(be.esrrf(s, magnification=2)["avg"],
                  halostream.esrrf(s, magnification=2, device=DEVICE)["avg"], "after")


@test
def no_stderr_never_fails():
    code = ("import sys, numpy as np, halostream\n"
            "sys.stderr = None\n"
            "s = np.ones((30, 16, 16), np.float32)\n"
            "out = halostream.esrrf(s, magnification=2, device=%r, progress=True)\n"
            "print('ok', out['avg'].shape)\n" % DEVICE)
    for closed_fd2 in (False, True):   # sys.stderr None; fd 2 closed (2>&-: Python sets None)
        p = child(code, preexec_fn=(lambda: os.close(2)) if closed_fd2 else None)
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == "ok (1, 32, 32)", (closed_fd2, out, p.returncode)


PROGRESS_CHILD = """
import numpy as np, halostream
s = np.random.default_rng(2).random((%d, 16, 16)).astype(np.float32)
halostream.esrrf(s, magnification=2, device=%r, progress=True)
"""


@test
def progress_lines_where_no_terminal():
    frames = 200
    p = child(PROGRESS_CHILD % (frames, DEVICE), stderr=subprocess.PIPE)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert "\r" not in err, "a rewritten line in a pipe: %r" % err[:300]
    lines = err.splitlines()
    pattern = r"eSRRF: (\d+) / %d frames \((\d+)%%\)" % frames
    assert lines and all(re.fullmatch(pattern, x) for x in lines), err
    assert lines[-1] == "eSRRF: %d / %d frames (100%%)" % (frames, frames), lines
    assert len(lines) <= 12, lines   # a line per tenth done, and the last
    # on a terminal, one line rewritten in place
    master, slave = os.openpty()
    p = child(PROGRESS_CHILD % (frames, DEVICE), stderr=slave)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:   # EIO: the child closed its end
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    assert p.wait(timeout=300) == 0 and b"\r" in tty, tty[:300]


@test
def ctrl_c_cancels_backend_stays_usable():
    esrrf_interrupted("    be.esrrf(big, magnification=4, progress=progress)")


LOAD_CHILD = """
import ctypes, warnings, numpy as np
%s
import halostream
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    ds = halostream.devices()
s = np.random.default_rng(3).integers(0, 200, size=(6, 24, 20)).astype(np.float32)
out = halostream.esrrf(s, magnification=2, device="host")["avg"]
print(" ".join(d["selector"] for d in ds), "|", out.view(np.uint32).sum(dtype=np.uint64), "|",
      " ".join(str(x.message).split(":")[0] for x in w))
"""
NO_LOADER = """
real = ctypes.CDLL
class NoLoader(real):   # as on a machine without libOpenCL.so.1
    def __init__(self, name, *args, **kw):
        if "_libhalostream_opencl" in str(name):
            raise OSError("libOpenCL.so.1: cannot open shared object file")
        real.__init__(self, name, *args, **kw)
ctypes.CDLL = NoLoader
"""


@test
def host_build_when_no_icd_loader():
    s = np.random.default_rng(3).integers(0, 200, size=(6, 24, 20)).astype(np.float32)
    want = halostream.esrrf(s, magnification=2, device="host")["avg"].view(np.uint32).sum(dtype=np.uint64)
    host_build = [f for f in os.listdir(PKG) if f.startswith("_libhalostream_host")]
    assert len(host_build) == 1, os.listdir(PKG)
    runs = {"no loader": (NO_LOADER, {}),
            "HALOSTREAM_LIB": ("", {"HALOSTREAM_LIB": os.path.join(PKG, host_build[0])})}
    for what, (patch, env) in runs.items():
        os.environ.update(env)
        try:
            p = child(LOAD_CHILD % patch)
        finally:
            for k in env:
                del os.environ[k]
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0, (what, out)
        sel, bits, warned = [f.strip() for f in out.split("|")]
        assert sel == "host" and bits == str(want), (what, out, want)
        assert warned == ("halostream" if what == "no loader" else ""), (what, warned)


EXIT_CHILD = """
import numpy as np, halostream
s = np.random.default_rng(1).random((8, 24, 24)).astype(np.float32)
halostream.esrrf(s, magnification=2, device=%r)             # the cached Backend, never closed
be = halostream.Backend(%r)
be.esrrf(s, magnification=2)
live = be.esrrf_live(s.shape[1:], s.dtype, magnification=2)  # a session left open, unfinished
live.push(s)
print("bye")
"""


@test
def exit_with_backends_open():
    p = child(EXIT_CHILD % (DEVICE, DEVICE))
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0 and out.strip() == "bye", (out, p.returncode)


@test
def devices_listed():
    ds = halostream.devices()
    assert ds and ds[-1]["selector"] == "host" and ds[-1]["type"] == "host"
    assert len({d["selector"] for d in ds}) == len(ds)
    assert all(d["name"] and d["type"] in ("host", "cpu", "gpu", "accelerator", "other") for d in ds)
    if re.fullmatch(r"\d+:\d+|host", DEVICE):   # not a kind or name ("gpu", "nvidia")
        assert DEVICE in [d["selector"] for d in ds], DEVICE


if __name__ == "__main__":
    sys.exit(main())
