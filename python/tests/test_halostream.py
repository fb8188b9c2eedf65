#!/usr/bin/env python3
"""Tests of the Python package halostream, TAP output (tests/run.sh, stage python, runs it once
per device with HST_DEVICE set; HALOSTREAM_CLI names build/examples/esrrf).

- esrrf() on the shipped stack's first 4 frames (mag 2, every mode) equals bit for bit what
  the CLI writes with the same settings on the same device (its float32 TIFFs, read below);
- the four input dtypes holding the same values give the same bits;
- bad stacks and options raise TypeError / ValueError naming the problem;
- Ctrl-C (SIGINT) during a run raises KeyboardInterrupt promptly, the process then exits 0;
- devices() lists every device, the host device last."""

import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

import halostream

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
STACK = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
DEVICE = os.environ.get("HST_DEVICE") or "host"
CLI = os.environ.get("HALOSTREAM_CLI", os.path.join(ROOT, "build", "examples", "esrrf"))

_results = []


def test(fn):
    _results.append(fn)
    return fn


def read_tiff(path, max_pages=None):
    """Pages of an uncompressed, single-sample classic TIFF (as examples/image_io.h writes and
    as the shipped stack is), stacked: (pages, rows, cols)."""
    data = open(path, "rb").read()
    end = {b"II": "<", b"MM": ">"}[data[:2]]
    (ifd,) = struct.unpack(end + "I", data[4:8])
    kinds = {(1, 8): "u1", (1, 16): "u2", (2, 16): "i2", (3, 32): "f4"}
    pages = []
    while ifd and (max_pages is None or len(pages) < max_pages):
        (n,) = struct.unpack(end + "H", data[ifd:ifd + 2])
        tags = {}
        for i in range(n):
            tag, typ, count, value = struct.unpack(end + "HHII", data[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
            if typ == 3 and count == 1:   # SHORT stored in the first two bytes
                (value,) = struct.unpack(end + "H", data[ifd + 10 + 12 * i:ifd + 12 + 12 * i])
            tags[tag] = (typ, count, value)
        cols, rows = tags[256][2], tags[257][2]
        assert tags.get(259, (0, 0, 1))[2] == 1, "compressed TIFF"
        dtype = np.dtype(end + kinds[(tags.get(339, (0, 0, 1))[2], tags[258][2])])
        offs = [tags[273][2]]
        if tags[273][1] > 1:
            fmt = end + ("I" if tags[273][0] == 4 else "H") * tags[273][1]
            offs = struct.unpack(fmt, data[tags[273][2]:tags[273][2] + struct.calcsize(fmt)])
        raw = b"".join(data[o:o + c] for o, c in zip(offs, _counts(data, end, tags[279])))
        pages.append(np.frombuffer(raw, dtype=dtype)[:rows * cols].reshape(rows, cols).astype(dtype.newbyteorder("=")))
        (ifd,) = struct.unpack(end + "I", data[ifd + 2 + 12 * n:ifd + 6 + 12 * n])
    return np.stack(pages)


def _counts(data, end, entry):
    typ, count, value = entry
    if count == 1:
        return [value]
    fmt = end + ("I" if typ == 4 else "H") * count
    return struct.unpack(fmt, data[value:value + struct.calcsize(fmt)])


def raises(exc, text, fn, *args, **kwargs):
    """fn raises exc with text in its message."""
    try:
        fn(*args, **kwargs)
    except exc as e:
        assert text in str(e), "message %r lacks %r" % (str(e), text)
        return
    raise AssertionError("no %s raised" % exc.__name__)


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
        assert out[m].shape == (1, 512, 512) and ref[m].shape == (1, 512, 512), (m, out[m].shape, ref[m].shape)
        assert np.array_equal(out[m].view(np.uint32), ref[m].view(np.uint32)), \
            "%s: %d pixels differ" % (m, np.count_nonzero(out[m] != ref[m]))
        assert np.isfinite(out[m]).all() and out[m].max() > 0


@test
def dtypes_same_bits():
    rng = np.random.default_rng(16)
    base = rng.integers(0, 200, size=(5, 24, 20))
    results = []
    for dt in (np.uint8, np.uint16, np.int16, np.float32):
        stack = base.astype(dt)
        before = stack.copy()
        out = halostream.esrrf(stack, magnification=3, radius=1.0, frames_per_timepoint=2,
                               modes=("avg", "tac2"), device=DEVICE)
        assert np.array_equal(stack, before), "the stack was written"
        assert out["avg"].shape == (2, 72, 60) and out["avg"].dtype == np.float32
        results.append(out)
    for r in results[1:]:
        for m in ("avg", "tac2"):
            assert np.array_equal(r[m].view(np.uint32), results[0][m].view(np.uint32)), m
    assert results[0]["avg"].max() > 0


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


@test
def bad_options_raise():
    s = np.ones((4, 16, 16), np.float32)
    raises(ValueError, "magnification must be >= 1", halostream.esrrf, s, magnification=0, device=DEVICE)
    raises(TypeError, "magnification must be an integer", halostream.esrrf, s, magnification=2.5, device=DEVICE)
    raises(halostream.InvalidArgument, "magnification 40", halostream.esrrf, s, magnification=40, device=DEVICE)
    raises(ValueError, "radius must be > 0", halostream.esrrf, s, radius=0, device=DEVICE)
    raises(ValueError, "radius", halostream.esrrf, s, radius=float("nan"), device=DEVICE)
    raises(ValueError, "sensitivity", halostream.esrrf, s, sensitivity=-1, device=DEVICE)
    raises(ValueError, "unknown mode 'median'", halostream.esrrf, s, modes=("avg", "median"), device=DEVICE)
    raises(halostream.InvalidArgument, "", halostream.esrrf, s, modes="var", frames_per_timepoint=1, device=DEVICE)
    raises(halostream.HalostreamError, "HST_ERROR_NO_DEVICE", halostream.esrrf, s, device="no-such-device-xyz")


@test
def ctrl_c_cancels():
    child = ("import numpy as np, halostream, sys\n"
             "s = np.random.default_rng(0).random((4000, 64, 64)).astype(np.float32)\n"
             "print('ready', flush=True)\n"
             "try:\n"
             "    halostream.esrrf(s, magnification=4, device=%r, progress=False)\n"
             "    print('finished')\n"
             "except KeyboardInterrupt:\n"
             "    print('interrupted')\n" % DEVICE)
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True, env=os.environ)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    assert out.strip() == "interrupted" and p.returncode == 0, (out, p.returncode)
    assert time.monotonic() - t0 < 60, "cancellation took %.1f s" % (time.monotonic() - t0)


@test
def devices_listed():
    ds = halostream.devices()
    assert ds and ds[-1]["selector"] == "host" and ds[-1]["type"] == "host"
    assert len({d["selector"] for d in ds}) == len(ds)
    assert all(d["name"] and d["type"] in ("host", "cpu", "gpu", "accelerator", "other") for d in ds)
    if DEVICE not in ("auto", "gpu", "cpu"):
        assert DEVICE in [d["selector"] for d in ds] or DEVICE == "host", DEVICE


def main():
    print("1..%d" % len(_results))
    failed = 0
    for i, fn in enumerate(_results, 1):
        try:
            note = fn()
            print("ok %d - %s%s" % (i, fn.__name__, " # " + note if note else ""))
        except Exception as e:   # one failing check must not hide the others
            failed += 1
            print("not ok %d - %s\n# %s: %s" % (i, fn.__name__, type(e).__name__, e))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
