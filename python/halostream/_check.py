"""Arguments checked before any C call: each value must reach its C field unchanged (a Python
int past the field's width, a float that rounds to 0 or to infinity as a float32, a string
holding NUL are refused with the argument named), so the library never sees a value that
differs from the one the caller wrote."""

import numbers

import numpy as np

from . import _lib

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1
FLOAT32_EPS_HALF = 2.0**-24   # float32's relative rounding error (half an ulp)


def integer(where, name, value, low, high):
    """value as a Python int in [low, high] (ints and NumPy integers; not bool, not float)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: %s must be an integer, got %r" % (where, name, value))
    value = int(value)
    if not low <= value <= high:
        raise ValueError("%s: %s must be in [%d, %d] (its C field), got %d"
                         % (where, name, low, high, value))
    return value


def positive_float32(where, name, value):
    """value > 0 whose nearest float32 is within float32's rounding of it: not 0 (the desc's
    "default"), not a subnormal, not infinite."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a real number, got %r" % (where, name, value))
    value = float(value)
    if not value > 0:   # NaN too
        raise ValueError("%s: %s must be > 0, got %r" % (where, name, value))
    with np.errstate(over="ignore"):
        f32 = float(np.float32(value))
    if abs(f32 - value) > value * FLOAT32_EPS_HALF:
        raise ValueError("%s: %s = %r does not fit a float32 (it would become %r)"
                         % (where, name, value, f32))
    return value


def optional(check, where, name, value, *limits):
    """None (0 in the C field: the library's default, esrrf_defaults()) or check's value."""
    return 0 if value is None else check(where, name, value, *limits)


def flag(where, name, value):
    """A yes/no option: bool, NumPy bool or the ints 0 / 1."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                               and int(value) in (0, 1)):
        return bool(value)
    raise TypeError("%s: %s must be True or False, got %r" % (where, name, value))


def text(where, name, value):
    """A string for a char * field: str without NUL, as UTF-8 bytes."""
    if not isinstance(value, str):
        raise TypeError("%s: %s must be a str, got %r" % (where, name, value))
    if "\0" in value:
        raise ValueError("%s: %s must not contain NUL, got %r" % (where, name, value))
    return value.encode("utf-8")


def selectors(device):
    """device= as a list of selectors (bytes; None: $HST_DEVICE, else auto): one selector or a
    list / tuple of 1 to 8."""
    if device is None or isinstance(device, str):
        items = [device]
    elif isinstance(device, (list, tuple)):
        items = list(device)
    else:
        raise TypeError("device must be a selector (str), None or a list of selectors, got %r"
                        % (device,))
    if not 1 <= len(items) <= 8:
        raise ValueError("device: 1 to 8 selectors, got %d" % len(items))
    return [None if d is None else text("device", "device", d) for d in items]


def callback(where, name, value):
    if value is not None and not callable(value):
        raise TypeError("%s: %s must be callable or None, got %r" % (where, name, value))
    return value


def progress(where, value):
    """progress=: None (a bar on runs over a second), True, False or a callable (done, total)."""
    if value is None or isinstance(value, bool) or callable(value):
        return value
    raise TypeError("%s: progress must be None, True, False or a callable (done, total), got %r"
                    % (where, value))


def mode_bits(where, modes):
    if isinstance(modes, str):
        modes = (modes,)
    if not isinstance(modes, (tuple, list, set, frozenset)):
        raise TypeError("%s: modes must be a mode or a list of them (%s), got %r"
                        % (where, ", ".join(_lib.MODES), modes))
    bits = 0
    for m in modes:
        key = m.lower() if isinstance(m, str) else None
        if key not in _lib.MODES:
            raise ValueError("%s: modes: unknown mode %r (expected %s)" % (where, m, ", ".join(_lib.MODES)))
        bits |= 1 << _lib.MODES.index(key)
    if bits == 0:
        raise ValueError("%s: modes must name at least one of %s" % (where, ", ".join(_lib.MODES)))
    return bits


def dtype_code(where, dtype):
    """The hst_esrrf_dtype of a NumPy dtype (native byte order u8, u16, i16, f32)."""
    dt = np.dtype(dtype)
    if dt.name not in _lib.DTYPES or not dt.isnative:
        raise TypeError("%s: dtype must be native-order uint8, uint16, int16 or float32, got %s "
                        "(%s; convert with .astype(numpy.float32))" % (where, dt.name, dt.str))
    return _lib.DTYPES[dt.name]


def pushed_dtype(where, name, dtype):
    """The dtype a stack that is read a block at a time goes to the library in: its own where
    the library takes it (native-order u8, u16, i16, f32), the native order of those (same
    values), else float32 for other real numbers (as halostream.nanopyx converts, like NanoPyx's
    check_image). TypeError for anything but real numbers."""
    dt = np.dtype(dtype)
    if dt.kind not in "biuf":
        raise TypeError("%s: %s must hold real numbers, got dtype %s" % (where, name, dt))
    if dt.name in _lib.DTYPES:
        return dt.newbyteorder("=")
    return np.dtype(np.float32)


def outputs(where, out, modes, shape):
    """out=: a dict giving each requested mode a writable float32 array of the output's shape
    (e.g. a numpy.memmap), and no other keys. Its arrays by lower-case mode."""
    if not isinstance(out, dict):
        raise TypeError("%s: out must be a dict {mode: float32 array %s}, got %s"
                        % (where, shape, type(out).__name__))
    got = {k.lower() if isinstance(k, str) else k: v for k, v in out.items()}
    if sorted(got, key=str) != sorted(modes):
        raise ValueError("%s: out must have one array for each mode computed (%s), got keys %s"
                         % (where, ", ".join(modes), ", ".join(map(repr, out))))
    for m in modes:
        a = got[m]
        if not isinstance(a, np.ndarray) or a.dtype != np.float32 or a.shape != shape \
                or not a.flags.writeable:
            raise ValueError("%s: out[%r] must be a writable float32 numpy array of shape %s, "
                             "got %s" % (where, m, shape, _describe(a)))
    return got


def _describe(a):
    if not isinstance(a, np.ndarray):
        return type(a).__name__
    return "%s %s%s" % (a.dtype, a.shape, "" if a.flags.writeable else " (read-only)")


def frame_shape(where, rows, cols):
    return (integer(where, "rows", rows, 1, U32_MAX), integer(where, "cols", cols, 1, U32_MAX))


def stack(where, s):
    """A (T, rows, cols) stack the library can read in place: (dtype code, T, rows, cols)."""
    if not isinstance(s, np.ndarray):
        raise TypeError("%s: stack must be a numpy.ndarray (T, rows, cols), got %s"
                        % (where, type(s).__name__))
    if s.ndim != 3:
        raise ValueError("%s: stack must have 3 dimensions (T, rows, cols), got %d (shape %s)"
                         % (where, s.ndim, s.shape))
    code = dtype_code(where, s.dtype)
    if not s.flags.c_contiguous:
        raise ValueError("%s: stack must be C-contiguous (it is read in place, not copied); "
                         "pass numpy.ascontiguousarray(stack)" % where)
    rows, cols = frame_shape(where, s.shape[1], s.shape[2])
    return code, s.shape[0], rows, cols


def rolling_window(where, rolling, frames_per_timepoint):
    """(window, step) of rolling=(W, S): (0, 0) for None (time points cut one after another);
    W and S >= 1, and frames_per_timepoint left at 0 (W takes its place)."""
    if rolling is None:
        return 0, 0
    if not isinstance(rolling, (tuple, list)) or len(rolling) != 2:
        raise ValueError("%s: rolling must be (window, step) in frames, got %r" % (where, rolling))
    window = integer(where, "rolling's window", rolling[0], 1, U64_MAX)
    step = integer(where, "rolling's step", rolling[1], 1, U64_MAX)
    if frames_per_timepoint:
        raise ValueError("%s: give rolling=(window, step) or frames_per_timepoint, not both "
                         "(the window is the time point's frames)" % where)
    return window, step


def desc(where, magnification, radius, sensitivity, intensity_weighting,
         frames_per_timepoint, modes, macro_pixel_correction, fused, rolling=None):
    """The hst_esrrf_desc of the options (backends, callbacks: the caller's; magnification,
    radius, sensitivity None: the library's default; rolling (W, S): frames_per_timepoint W
    and rolling_step S)."""
    d = _lib.EsrrfDesc()
    d.magnification = optional(integer, where, "magnification", magnification, 1, U32_MAX)
    d.radius = optional(positive_float32, where, "radius", radius)
    d.sensitivity = optional(positive_float32, where, "sensitivity", sensitivity)
    d.no_intensity_weighting = not flag(where, "intensity_weighting", intensity_weighting)
    d.no_macro_pixel_correction = not flag(where, "macro_pixel_correction",
                                           macro_pixel_correction)
    d.frames_per_timepoint = integer(where, "frames_per_timepoint", frames_per_timepoint, 0,
                                     U64_MAX)
    window, d.rolling_step = rolling_window(where, rolling, d.frames_per_timepoint)
    if window:
        d.frames_per_timepoint = window
    d.modes = mode_bits(where, modes)
    if fused is not None:
        fused = flag(where, "fused", fused)
    d.path = {None: 0, True: 1, False: 2}[fused]
    return d
