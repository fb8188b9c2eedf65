"""The exceptions the library's result codes become, and the loaded library they name codes by."""

import warnings

from . import _lib

_LIB = None


def library():
    """The C library, loaded on first use (a RuntimeWarning once when only the host build loads)."""
    global _LIB
    if _LIB is None:
        lib, note = _lib.load()
        if note:
            warnings.warn(note, RuntimeWarning, stacklevel=3)
        _LIB = lib
    return _LIB


_PARTS = set()   # (id of a loaded library, part) declared


def part(name, probe, declare):
    """The loaded library with one part's functions declared: declare(lib) sets their
    restypes and argtypes (and checks the part's structs), once per library. OSError naming the
    part where the library lacks the function probe (a build older than the part)."""
    lib = library()
    if (id(lib), name) not in _PARTS:
        if not hasattr(lib, probe):
            raise OSError("halostream: the library has no %s (built before it was in the "
                          "library): reinstall the package" % name)
        declare(lib)
        _PARTS.add((id(lib), name))
    return lib


class HalostreamError(RuntimeError):
    """A call of the library failed: .code is its hst_result (a negative number, or an OpenCL
    error code), .name its name ("HST_ERROR_OUT_OF_DEVICE_MEMORY"), the message what the
    library logged about it."""

    def __init__(self, code, message):
        self.code = code
        self.name = library().hst_result_string(code).decode()
        super().__init__("%s (%s, %d)" % (message or self.name, self.name, code))


class InvalidArgument(HalostreamError, ValueError):
    """HST_ERROR_INVALID_ARGUMENT: an option the library refused (the message names it)."""


class Cancelled(HalostreamError):
    """HST_ERROR_CANCELLED: the run was stopped (Ctrl-C raises KeyboardInterrupt instead)."""


class NotBuiltIn(HalostreamError):
    """HST_ERROR_NOT_BUILT_IN: this build of the package has no FFTs (FFTW 3 or VkFFT were
    missing when it was installed); the message says what to install."""


# The classes of result codes by name (the library names its codes: hst_result_string).
_CLASSES = {"HST_ERROR_INVALID_ARGUMENT": InvalidArgument, "HST_ERROR_CANCELLED": Cancelled,
            "HST_ERROR_NOT_BUILT_IN": NotBuiltIn}
_HINTS = {"HST_ERROR_NOT_BUILT_IN": "this halostream was installed without FFTs: install FFTW 3 "
          "and VkFFT (Debian: apt-get install libfftw3-dev libvkfft-dev), then pip install "
          "./python again",
          "HST_ERROR_FORKED": "in a process forked after halostream was used (multiprocessing's "
          "default 'fork' start method) only the host device works: use device='host' there, "
          "or start the workers with multiprocessing.get_context('spawn')"}


def check(code, messages):
    """Raises the exception of a failed result code (its message: the library's log lines)."""
    if code != _lib.HST_SUCCESS:
        name = library().hst_result_string(code).decode()
        hint = [_HINTS[name]] if name in _HINTS else []
        raise _CLASSES.get(name, HalostreamError)(code, "; ".join(list(messages) + hint))
