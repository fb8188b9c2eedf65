#!/usr/bin/env python3
"""Tests of stacks that need not be in memory (halostream/_frames.py), TAP, once per device
(tests/run.sh):

- a numpy.memmap, a TIFF (its path as str and as pathlib.Path, a TiffFile, its pages,
  tifffile.memmap; uncompressed, zlib-compressed, BigTIFF, big-endian, ImageJ, OME), a zarr
  array, a dask array and any frame-indexable object give the in-memory call's bits, every
  mode, at frame counts that blocks and time points do not divide (blocks of 1, 3, 7 and all
  frames);
- dask arrays are read a block of chunks at a time, each chunk once (never computed whole);
  other dtypes are converted per block (big-endian to native, float64 to float32) as the
  in-memory call of the converted stack;
- out= (numpy memmaps) and on_timepoint take each time point as it is done, in order;
- resident memory: a memmap and a TIFF four times the allowance run in a child whose peak RSS
  grows by less than the allowance over a run of the same frame size;
- bad input (pages changing shape or dtype midway, a truncated file, a file that is not a TIFF,
  a hyperstack (ImageJ, OME), a 2-D or 4-D array, an object that is not frame-indexable, a
  wrong out=) raises an error naming the page, frames or argument;
- progress gets (frames done, frames); Ctrl-C during a streamed run interrupts it and the
  backend then gives the uninterrupted bits."""

import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

import halostream
from halostream import _frames
from tap import DEVICE, main, raises, same_bits, test

MODES = ("avg", "var", "tac2")
OPTIONS = dict(magnification=3, modes=MODES, device=DEVICE)
PERS = (0, 5, 40)   # all frames; 5 (23 = 4 x 5 + 3); above the frames: clamped


def stack(frames=23, rows=20, cols=26, dtype=np.uint16, seed=7):
    return np.random.default_rng(seed).integers(0, 3000, size=(frames, rows, cols)).astype(dtype)


def optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


tifffile = optional("tifffile")


class blocks_of:
    """Reads blocks of n frames (BLOCK_BYTES for frames of this stack's size) in the block."""

    def __init__(self, s, n):
        self.bytes = s[0].nbytes * n

    def __enter__(self):
        self.saved, _frames.BLOCK_BYTES = _frames.BLOCK_BYTES, self.bytes

    def __exit__(self, *exc):
        _frames.BLOCK_BYTES = self.saved


def equals_in_memory(s, make, what, blocks=(1, 3, 7, 64), pers=PERS):
    """esrrf(make()) gives esrrf(s)'s bits for each block size and time point length."""
    for per in pers:
        ref = halostream.esrrf(s, frames_per_timepoint=per, **OPTIONS)
        for n in blocks:
            with blocks_of(s, n):
                got = halostream.esrrf(make(), frames_per_timepoint=per, **OPTIONS)
            for m in MODES:
                same_bits(got[m], ref[m], "%s, blocks of %d, per %d, %s" % (what, n, per, m))


@test
def memmap_equals_in_memory():
    with tempfile.TemporaryDirectory() as tmp:
        for dtype in (np.uint8, np.uint16, np.int16, np.float32):
            s = stack(dtype=dtype)
            path = os.path.join(tmp, "s.npy")
            np.save(path, s)
            equals_in_memory(s, lambda: np.load(path, mmap_mode="r"), np.dtype(dtype).name)
        raw = os.path.join(tmp, "s.raw")   # a memmap at an offset into its file, mode c
        s = stack(frames=17)
        with open(raw, "wb") as f:
            f.write(b"\0" * 100 + s.tobytes())
        equals_in_memory(s, lambda: np.memmap(raw, np.uint16, "c", 100, s.shape), "offset",
                         blocks=(4,), pers=(5,))
        c = np.memmap(raw, np.uint16, "c", 100, s.shape)
        c[:] = 7   # the caller's change, in this process only: kept (no page released)
        with blocks_of(s, 8):
            same_bits(halostream.esrrf(c, **OPTIONS)["avg"],
                      halostream.esrrf(np.full(s.shape, 7, np.uint16), **OPTIONS)["avg"], "c")
        assert (c == 7).all()


@test
def tiff_equals_in_memory():
    if tifffile is None:
        return "SKIP tifffile not installed"
    s = stack(frames=19)
    with tempfile.TemporaryDirectory() as tmp:
        files = {"plain": {}, "zlib": dict(compression="zlib"), "bigtiff": dict(bigtiff=True),
                 "big-endian": dict(byteorder=">"), "imagej": dict(imagej=True),
                 "ome": dict(ome=True)}
        for what, kw in files.items():
            path = os.path.join(tmp, what + ".tif")
            tifffile.imwrite(path, s, **kw)
            equals_in_memory(s, lambda: path, what, blocks=(3, 64), pers=(0, 5))
        path = os.path.join(tmp, "plain.tif")
        equals_in_memory(s, lambda: pathlib.Path(path), "pathlib", blocks=(7,), pers=(5,))
        with tifffile.TiffFile(path) as tf:
            equals_in_memory(s, lambda: tf, "TiffFile", blocks=(7,), pers=(5,))
            equals_in_memory(s, lambda: tf.pages, "TiffPages", blocks=(7,), pers=(5,))
            equals_in_memory(s, lambda: list(tf.pages), "[TiffPage]", blocks=(7,), pers=(5,))
            assert not tf.filehandle.closed   # the caller's file stays open
        equals_in_memory(s, lambda: tifffile.memmap(path), "tifffile.memmap", blocks=(4,),
                         pers=(5,))


@test
def zarr_equals_in_memory():
    zarr = optional("zarr")
    if zarr is None:
        return "SKIP zarr not installed (pip install zarr)"
    s = stack(frames=29)
    make = getattr(zarr, "create_array", None) or zarr.create   # zarr 3, zarr 2
    z = make(store={}, shape=s.shape, chunks=(4,) + s.shape[1:], dtype=s.dtype)
    z[:] = s
    equals_in_memory(s, lambda: z, "zarr", blocks=(3, 9, 64))


class Recorder:
    """A frame-indexable array that records which frames each read asks for."""

    def __init__(self, s):
        self.s, self.shape, self.dtype, self.ndim = s, s.shape, s.dtype, s.ndim
        self.reads = []

    def __getitem__(self, key):
        k = key[0] if isinstance(key, tuple) else key
        self.reads.append(range(*k.indices(len(self.s))))
        return self.s[key]


@test
def dask_reads_chunks_once():
    da = optional("dask.array") and __import__("dask.array").array
    if da is None:
        return "SKIP dask not installed (pip install dask)"
    s = stack(frames=31)
    equals_in_memory(s, lambda: da.from_array(s, chunks=(5, 20, 26)), "dask", blocks=(2, 7, 64))
    for n in (3, 12):
        rec = Recorder(s)
        lazy = da.from_array(rec, chunks=(5, 10, 26), asarray=True)
        with blocks_of(s, n):
            got = halostream.esrrf(lazy, **OPTIONS)
        frames = sorted(f for r in rec.reads for f in r)
        assert frames == sorted(list(range(31)) * 2), ("blocks of %d" % n, rec.reads)
        same_bits(got["avg"], halostream.esrrf(s, **OPTIONS)["avg"], "dask recorded")


@test
def any_frame_indexable_object():
    s = stack(frames=13)
    rec = Recorder(s)
    with blocks_of(s, 4):
        got = halostream.esrrf(rec, frames_per_timepoint=5, **OPTIONS)
    assert [len(r) for r in rec.reads] == [4, 4, 4, 1], rec.reads   # a block at a time
    ref = halostream.esrrf(s, frames_per_timepoint=5, **OPTIONS)
    for m in MODES:
        same_bits(got[m], ref[m], "frame-indexable " + m)


@test
def dtypes_converted_per_block():
    s = stack(frames=11)
    ref = halostream.esrrf(s, **OPTIONS)
    for dt in (">u2", np.float64, np.int32):
        got = halostream.esrrf(Recorder(s.astype(dt)), **OPTIONS)
        same_bits(got["avg"], ref["avg"], str(dt))   # the same values, integer or float32
    f = np.random.default_rng(3).random((9, 16, 16)) * 1e3
    same_bits(halostream.esrrf(Recorder(f), **OPTIONS)["var"],
              halostream.esrrf(f.astype(np.float32), **OPTIONS)["var"], "float64")
    raises(TypeError, "real numbers", halostream.esrrf, Recorder(s.astype(np.complex64)))


@test
def outputs_to_memmaps_and_callback():
    s = stack(frames=23)
    ref = halostream.esrrf(s, frames_per_timepoint=5, **OPTIONS)
    with tempfile.TemporaryDirectory() as tmp:
        out = {m: np.lib.format.open_memmap(os.path.join(tmp, m + ".npy"), "w+", np.float32,
                                            ref[m].shape) for m in MODES}
        seen = []
        got = halostream.esrrf(np.load(_saved(tmp, s), mmap_mode="r"), frames_per_timepoint=5,
                               out=out, on_timepoint=lambda i, im: seen.append(i), **OPTIONS)
        assert got is out
        assert seen == list(range(5)), seen
        for m in MODES:
            same_bits(np.array(out[m]), ref[m], "out " + m)
        images = []
        assert halostream.esrrf(s, frames_per_timepoint=5, on_timepoint=lambda i, im:
                                images.append(im), **OPTIONS) is None   # in memory, streamed
        for m in MODES:
            same_bits(np.stack([im[m] for im in images]), ref[m], "on_timepoint " + m)
        bad = dict(out, avg=out["avg"][:4])
        raises(ValueError, "out['avg'] must be a writable float32", halostream.esrrf, s,
               frames_per_timepoint=5, out=bad, **OPTIONS)
        raises(ValueError, "one array for each mode", halostream.esrrf, s, out={"avg": ref["avg"]},
               frames_per_timepoint=5, **OPTIONS)
        raises(TypeError, "out must be a dict", halostream.esrrf, s, out=ref["avg"], **OPTIONS)


def _saved(tmp, s, name="s.npy"):
    path = os.path.join(tmp, name)
    np.save(path, s)
    return path


RSS_CHILD = """
import resource, sys, numpy as np, halostream
from halostream import _frames
small, big, tiff_small, tiff_big = sys.argv[1:5]
_frames.BLOCK_BYTES = 1 << 20   # the TIFF's blocks (a memmap's are views)
opts = dict(magnification=1, modes=("avg", "var", "tac2"), device=%r)
def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
runs = [(small, np.load(small, mmap_mode="r")), (tiff_small, tiff_small)]
runs += [(big, np.load(big, mmap_mode="r"))] + ([(tiff_big, tiff_big)] if tiff_big else [])
for i, (name, s) in enumerate(runs):
    if i == 2:
        print("before %%.1f" %% peak_mb())
    out = halostream.esrrf(s, **opts)
    assert np.isfinite(out["var"]).all() and out["avg"].shape[0] == 1
print("after %%.1f" %% peak_mb())
"""


@test
def resident_memory_bounded():
    """The memmap and the TIFF are 4 x ALLOWANCE; the child's peak RSS over runs of the same
    frame size on a few frames first (the library's staging, the page objects) may grow by
    less than ALLOWANCE over the big ones (mapped pages would add the whole file)."""
    allowance_mb, frames = 16, 8192   # 64 x 64 u16 frames: 64 MB
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as tmp:
        big = np.lib.format.open_memmap(os.path.join(tmp, "big.npy"), "w+", np.uint16,
                                        (frames, 64, 64))
        for a in range(0, frames, 1024):
            big[a:a + 1024] = rng.integers(0, 4000, (1024, 64, 64))
        big.flush()
        small = _saved(tmp, np.array(big[:300]), "small.npy")
        tiffs = ["", ""]
        if tifffile is not None:
            for i, n in enumerate((300, frames)):
                tiffs[i] = os.path.join(tmp, "s%d.tif" % i)
                with tifffile.TiffWriter(tiffs[i]) as w:
                    for a in range(0, n, 1024):   # one page per frame
                        w.write(np.array(big[a:min(a + 1024, n)]), contiguous=True)
        else:
            tiffs[0] = small
        del big
        p = _child(RSS_CHILD % DEVICE, [small, os.path.join(tmp, "big.npy")] + tiffs)
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    values = dict(line.split() for line in out.splitlines())
    grew = float(values["after"]) - float(values["before"])
    assert grew < allowance_mb, "peak RSS grew by %.1f MB (%s)" % (grew, values)
    return "peak RSS %s MB, +%.1f MB over a 64 MB stack%s" % (
        values["before"], grew, "" if tifffile else "; TIFF SKIP (tifffile not installed)")


def _child(code, args):
    """tap.child's process, with arguments, its stderr kept."""
    return subprocess.Popen([sys.executable, "-c", code] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, HST_DEVICE=DEVICE, PYTHONUNBUFFERED="1"))


@test
def bad_input_named():
    s = stack(frames=6, rows=12, cols=10)
    raises(TypeError, "frame-indexable", halostream.esrrf, object(), device=DEVICE)
    raises(TypeError, "frame-indexable", halostream.esrrf, 42, device=DEVICE)
    with tempfile.TemporaryDirectory() as tmp:
        path = _saved(tmp, s[0])
        raises(ValueError, "3 dimensions", halostream.esrrf, np.load(path, mmap_mode="r"))
        path = _saved(tmp, s[None])
        raises(ValueError, "3 dimensions", halostream.esrrf, np.load(path, mmap_mode="r"))
        raises(TypeError, "magnification", halostream.esrrf, np.load(path, mmap_mode="r"),
               magnification=0.5)
        raises(FileNotFoundError, "", halostream.esrrf, os.path.join(tmp, "none.tif"))
        if tifffile is None:
            return "SKIP the TIFF cases: tifffile not installed"
        raises(ValueError, "cannot be read as a TIFF", halostream.esrrf, path)
        mixed = os.path.join(tmp, "mixed.tif")
        with tifffile.TiffWriter(mixed) as w:
            for f in s[:3]:
                w.write(f, contiguous=False)
            w.write(s[3, :, :9], contiguous=False)
        raises(ValueError, "page 3 is uint16 (12, 9), page 0 is uint16 (12, 10)",
               halostream.esrrf, mixed, device=DEVICE)
        with tifffile.TiffWriter(mixed) as w:
            for f in s[:4]:
                w.write(f, contiguous=False)
            w.write(s[4].astype(np.float32), contiguous=False)
        raises(ValueError, "page 4 is float32", halostream.esrrf, mixed, device=DEVICE)
        rgb = os.path.join(tmp, "rgb.tif")
        tifffile.imwrite(rgb, np.zeros((2, 8, 8, 3), np.uint8), photometric="rgb")
        raises(ValueError, "page 0 has shape (8, 8, 3)", halostream.esrrf, rgb)
        hyper = os.path.join(tmp, "hyper.tif")
        tifffile.imwrite(hyper, np.zeros((3, 2, 2, 8, 8), np.uint16), imagej=True,
                         metadata={"axes": "TZCYX"})
        raises(ValueError, "is a hyperstack (axes TZCYX", halostream.esrrf, hyper)
        tifffile.imwrite(hyper, np.zeros((3, 2, 8, 8), np.uint16), ome=True,
                         metadata={"axes": "TCYX"})
        raises(ValueError, "is a hyperstack (axes TCYX", halostream.esrrf, hyper)
        cut = os.path.join(tmp, "cut.tif")   # tifffile: page 0, the data, the other pages
        tifffile.imwrite(cut, stack(frames=40, rows=64, cols=64))
        with tifffile.TiffFile(cut) as tf:
            ifds, data = tf.pages[39].offset, tf.pages[39].dataoffsets[0]
        whole = open(cut, "rb").read()
        for at, text in ((data + 10, "the pages after page 0 cannot be read"),
                         (ifds + 4, "the pages after page 39 cannot be read"),
                         (ifds - 4, "cannot be read"), (1000, "after page 0")):
            with open(cut, "wb") as f:
                f.write(whole[:at])
            raises(ValueError, text, halostream.esrrf, cut, device=DEVICE)


@test
def progress_counts_the_stack():
    s = stack(frames=23)
    seen = []
    with tempfile.TemporaryDirectory() as tmp:
        mm = np.load(_saved(tmp, s), mmap_mode="r")
        with blocks_of(s, 3):
            halostream.esrrf(mm, progress=lambda d, t: seen.append((d, t)), **OPTIONS)
        assert seen and all(t == 23 for _, t in seen) and seen[-1][0] == 23, seen

        def fails(done, total):
            raise RuntimeError("stop at %d" % done)
        raises(RuntimeError, "stop at", halostream.esrrf, mm, progress=fails, **OPTIONS)
        same_bits(halostream.esrrf(mm, **OPTIONS)["avg"], halostream.esrrf(s, **OPTIONS)["avg"],
                  "after a failed progress")


CTRL_C_CHILD = """
import os, sys, time, numpy as np, halostream
from halostream import _frames
_frames.BLOCK_BYTES = 100 * 64 * 64 * 4
small = np.random.default_rng(0).random((6, 32, 32)).astype(np.float32)
big = np.load(sys.argv[1], mmap_mode="r")
ref = halostream.esrrf(small, magnification=2, modes=("avg", "var", "tac2"), device=%r)
told = []
def progress(done, total):   # slows every block down: the run outlasts the signal on any device
    if not told:
        told.append(1)
        print("running", flush=True)
    time.sleep(0.2)
try:
    halostream.esrrf(big, magnification=4, progress=progress, device=%r)
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
again = halostream.esrrf(small, magnification=2, modes=("avg", "var", "tac2"), device=%r)
print("same" if all(np.array_equal(ref[m].view(np.uint32), again[m].view(np.uint32))
                    for m in ref) else "differ")
"""


@test
def ctrl_c_interrupts_streaming():
    with tempfile.TemporaryDirectory() as tmp:
        path = _saved(tmp, np.random.default_rng(1).random((3000, 64, 64)).astype(np.float32))
        p = _child(CTRL_C_CHILD % ((DEVICE,) * 3), [path])
        assert p.stdout.readline().strip() == "running"
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
        took = time.monotonic() - t0
    assert out.split() == ["interrupted", "same"] and p.returncode == 0, \
        (out, p.returncode, err[-2000:])
    assert took < 120, "cancellation took %.1f s" % took


if __name__ == "__main__":
    sys.exit(main())
