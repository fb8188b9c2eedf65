"""What the Python tests share: TAP output, the device under test, the source tree's paths,
an exception check, a reader of the uncompressed TIFFs the CLI writes, and children run with
the installed package (tests/run.sh runs each test_*.py once per device, HST_DEVICE set, with a
fresh venv's python holding the installed wheel)."""

import os
import signal
import struct
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICE = os.environ.get("HST_DEVICE") or "host"

_tests = []


def test(fn):
    _tests.append(fn)
    return fn


def main():
    print("1..%d" % len(_tests))
    failed = 0
    for i, fn in enumerate(_tests, 1):
        try:
            note = fn()
            print("ok %d - %s%s" % (i, fn.__name__, " # " + note if note else ""))
        except Exception as e:   # one failing check must not hide the others
            failed += 1
            print("not ok %d - %s\n# %s: %s" % (i, fn.__name__, type(e).__name__, e))
        sys.stdout.flush()
    return 1 if failed else 0


def raises(exc, text, fn, *args, **kwargs):
    """fn raises exc with text in its message."""
    try:
        fn(*args, **kwargs)
    except exc as e:
        assert text in str(e), "message %r lacks %r" % (str(e), text)
        return
    raise AssertionError("no %s raised (%s)" % (exc.__name__, text))


def same_bits(a, b, what=""):
    assert a.shape == b.shape and a.dtype == b.dtype, (what, a.shape, b.shape, a.dtype, b.dtype)
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), \
        "%s: %d pixels differ" % (what, np.count_nonzero(a.view(np.uint32) != b.view(np.uint32)))


def child(code, **popen):
    """Runs code in a new process of this Python (the installed package), HST_DEVICE set."""
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, HST_DEVICE=DEVICE, PYTHONUNBUFFERED="1"),
                            **popen)


ESRRF_CTRL_C_CHILD = """
import time, numpy as np, halostream
rng = np.random.default_rng(0)
small = rng.random((6, 32, 32)).astype(np.float32)
big = rng.random((3000, 64, 64)).astype(np.float32)
be = halostream.Backend(%r)
ref = be.esrrf(small, magnification=2, modes=("avg", "var", "tac2"))
told = []
def progress(done, total):   # slows every block down: the run outlasts the signal on any device
    if not told:
        told.append(1)
        print("running", flush=True)
    time.sleep(0.2)
try:
%s
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
again = be.esrrf(small, magnification=2, modes=("avg", "var", "tac2"))
print("same" if all(np.array_equal(ref[m].view(np.uint32), again[m].view(np.uint32))
                    for m in ref) else "differ")
be.close()
"""


def esrrf_interrupted(run):
    """Runs `run` (code indented by 4, using be, big and progress) in a child on a Backend,
    sends SIGINT once it runs, and checks the call was interrupted, the Backend then gives the
    first call's bits, and the whole took under 120 s."""
    p = child(ESRRF_CTRL_C_CHILD % (DEVICE, run))
    assert p.stdout.readline().strip() == "running"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=300)
    took = time.monotonic() - t0
    assert out.split() == ["interrupted", "same"] and p.returncode == 0, (out, p.returncode)
    assert took < 120, "cancellation took %.1f s" % took


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
            e = data[ifd + 2 + 12 * i:ifd + 14 + 12 * i]
            tag, typ, count, value = struct.unpack(end + "HHII", e)
            if typ == 3 and count == 1:   # SHORT stored in the first two bytes
                (value,) = struct.unpack(end + "H", e[8:10])
            tags[tag] = (typ, count, value)
        cols, rows = tags[256][2], tags[257][2]
        assert tags.get(259, (0, 0, 1))[2] == 1, "compressed TIFF"
        dtype = np.dtype(end + kinds[(tags.get(339, (0, 0, 1))[2], tags[258][2])])
        offs, counts = _values(data, end, tags[273]), _values(data, end, tags[279])
        raw = b"".join(data[o:o + c] for o, c in zip(offs, counts))
        page = np.frombuffer(raw, dtype=dtype)[:rows * cols].reshape(rows, cols)
        pages.append(page.astype(dtype.newbyteorder("=")))
        (ifd,) = struct.unpack(end + "I", data[ifd + 2 + 12 * n:ifd + 6 + 12 * n])
    return np.stack(pages)


def _values(data, end, entry):
    typ, count, value = entry
    if count == 1:
        return [value]
    fmt = end + ("I" if typ == 4 else "H") * count
    return struct.unpack(fmt, data[value:value + struct.calcsize(fmt)])
