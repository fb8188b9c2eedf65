"""Sample data shipped inside the package, so that examples run from an installed package
anywhere (no source tree, no TIFF reader):

    import halostream.data
    stack = halostream.data.fkbp_confocal()        # (50, 256, 256) uint8, T x Y x X

The stack is the source tree's examples/data/fkbp_confocal_50x256x256_u8.tif (SOURCES.md there
says where it comes from), converted to a NumPy .npy file when the wheel is built (setup.py:
the package depends on NumPy alone, so a .npy is what it can read; the TIFF stays the one copy
in the source tree). Its licence (BSD-3-Clause, nandb, Rory Nolan) travels beside it:
fkbp_confocal_licence() returns the text."""

import os

import numpy as np

__all__ = ["fkbp_confocal", "fkbp_confocal_licence", "FKBP_CONFOCAL_PIXEL_SIZE_UM"]

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_data")
# The files setup.py writes into the package (its SAMPLE_STACK, SAMPLE_LICENCE).
FKBP_CONFOCAL_FILE = "fkbp_confocal_50x256x256_u8.npy"
FKBP_CONFOCAL_LICENCE_FILE = "LICENSE-nandb.txt"
# From the TIFF's ImageJ XResolution, 2.769828 pixels per micrometre.
FKBP_CONFOCAL_PIXEL_SIZE_UM = 1 / 2.769828


def _path(name):
    path = os.path.join(_DIR, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            "halostream.data: %s is not in the package: the sample data is written into it when "
            "the wheel is built (python/setup.py); run an installed package (pip install "
            "./python, or make python), not the source folder python/halostream" % path)
    return path


def fkbp_confocal():
    """A real live-cell confocal time series (cells expressing FKBP-mClover; photon and
    number fluctuations, not blinking), the stack `make demo` super-resolves: a new
    (50, 256, 256) uint8 array (frames, rows, cols; C order, writable), values 0-65, mean
    about 5.2; pixel size FKBP_CONFOCAL_PIXEL_SIZE_UM (about 0.361 um). BSD-3-Clause:
    fkbp_confocal_licence() is the notice to keep when redistributing it.
    Errors: FileNotFoundError where the package was not built with its data (the source
    folder run in place)."""
    return np.load(_path(FKBP_CONFOCAL_FILE), allow_pickle=False)


def fkbp_confocal_licence():
    """The licence text of fkbp_confocal()'s data (str)."""
    with open(_path(FKBP_CONFOCAL_LICENCE_FILE), encoding="utf-8") as f:
        return f.read()
