#!/usr/bin/env python3
"""The eSRRF command line's hyperstacks as the readers of Fiji's files see them (TAP; tests/run.sh
runs it once per device with HST_DEVICE set; HALOSTREAM_CLI names build/examples/esrrf).

tifffile writes the inputs (an ImageJ hyperstack and an OME-TIFF, 2 channels x 3 z-planes x 5
frames, 0.1 um pixels, a z step of 0.5 um) and reads the outputs back with its ImageJ metadata
reader, as napari's and Fiji's readers do:
- `--channel all` gives one ImageJ hyperstack per mode: imagej_metadata channels=2, slices=3,
  frames=time points, hyperstack, unit and spacing kept; series[0] axes TZCYX, shape (time
  points, 3, 2, rows x mag, cols x mag); X/YResolution the input's times mag (pixel size / mag);
- each (channel, plane) of it equals, bit for bit, the run of that series alone as a plain stack;
- the OME-TIFF (ome_metadata read back for its calibration) gives the same images and
  ImageJ's unit "micron" for OME's um."""

import os
import subprocess
import tempfile

import numpy as np

from tap import DEVICE, main, same_bits, test

try:
    import tifffile
except ImportError:   # the python stage's venv sees the system's python3-tifffile
    tifffile = None

CLI = os.environ.get("HALOSTREAM_CLI", os.path.join(os.path.dirname(__file__), "..", "..", "build", "examples",
                                                     "esrrf"))
MAG, FPT = 2, 2
SHAPE = (5, 3, 2, 12, 10)   # T, Z, C, Y, X: ImageJ's page order (channel fastest)


def skip_reason():
    if tifffile is None:
        return "SKIP tifffile not installed"
    if not os.access(CLI, os.X_OK):
        return "SKIP %s not built (needs libtiff and libpng: scripts/deps.sh demo)" % CLI
    return None


def stack():
    return np.random.default_rng(37).integers(0, 200, size=SHAPE).astype(np.uint16)


def esrrf(src, dst, *extra):
    subprocess.run([CLI, "--device", DEVICE, "--mag", str(MAG), "--frames-per-timepoint", str(FPT),
                    "--no-preview", "-q"] + list(extra) + [src, dst], check=True, stdout=subprocess.DEVNULL)


def expect_hyperstack(path, unit):
    """The output's ImageJ metadata, axes, shape and resolution; returns its pixels."""
    ntp = (SHAPE[0] + FPT - 1) // FPT
    with tifffile.TiffFile(path) as tf:
        ij = tf.imagej_metadata
        assert ij is not None, "no ImageJ metadata in %s" % path
        assert (ij["channels"], ij["slices"], ij["frames"], ij["images"]) == (2, 3, ntp, 6 * ntp), ij
        assert ij["hyperstack"] is True and ij["unit"] == unit and abs(ij["spacing"] - 0.5) < 1e-9, ij
        s = tf.series[0]
        assert s.axes == "TZCYX", s.axes
        assert s.shape == (ntp, 3, 2, SHAPE[3] * MAG, SHAPE[4] * MAG), s.shape
        page = tf.pages[0]
        for tag in ("XResolution", "YResolution"):
            num, den = page.tags[tag].value
            assert abs(num / den - 10.0 * MAG) < 1e-6, (tag, num, den)   # 0.1 um / mag
        return s.asarray()


def expect_series_alone(out, a, tmp):
    """Every (channel, plane) of out against the run of that series alone, bit for bit."""
    for z in range(SHAPE[1]):
        for c in range(SHAPE[2]):
            src, dst = os.path.join(tmp, "one.tif"), os.path.join(tmp, "one_sr.tif")
            tifffile.imwrite(src, a[:, z, c], imagej=True, resolution=(10, 10),
                             metadata={"axes": "TYX", "unit": "um"})
            esrrf(src, dst)
            same_bits(out[:, z, c], tifffile.imread(dst), "channel %d, plane %d" % (c + 1, z + 1))


@test
def imagej_hyperstack_round_trip():
    why = skip_reason()
    if why:
        return why
    a = stack()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "hyper.tif"), os.path.join(tmp, "sr.tif")
        tifffile.imwrite(src, a, imagej=True, resolution=(10, 10),
                         metadata={"axes": "TZCYX", "unit": "um", "spacing": 0.5})
        esrrf(src, dst, "--channel", "all")
        out = expect_hyperstack(dst, "um")
        expect_series_alone(out, a, tmp)


@test
def ome_tiff_round_trip():
    why = skip_reason()
    if why:
        return why
    a = stack()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst, ref = (os.path.join(tmp, n) for n in ("in.ome.tif", "sr.tif", "ref.tif"))
        tifffile.imwrite(src, a.transpose(0, 2, 1, 3, 4), ome=True,   # T C Z Y X: DimensionOrder XYZCT
                         metadata={"axes": "TCZYX", "PhysicalSizeX": 0.1, "PhysicalSizeY": 0.1,
                                   "PhysicalSizeXUnit": "\u00b5m", "PhysicalSizeZ": 0.5})
        with tifffile.TiffFile(src) as tf:
            assert 'PhysicalSizeX="0.1"' in tf.ome_metadata and 'DimensionOrder="XYZCT"' in tf.ome_metadata
        esrrf(src, dst, "--channel", "all")
        out = expect_hyperstack(dst, "micron")
        ij = os.path.join(tmp, "hyper.tif")
        tifffile.imwrite(ij, a, imagej=True, resolution=(10, 10), metadata={"axes": "TZCYX", "unit": "um"})
        esrrf(ij, ref, "--channel", "all")
        same_bits(out, tifffile.imread(ref), "OME-TIFF against the ImageJ hyperstack")


if __name__ == "__main__":
    raise SystemExit(main())
