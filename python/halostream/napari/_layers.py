"""What the widgets read from and write to napari layers, without Qt: the stack a layer holds
as halostream reads it, and a result layer's geometry, name and metadata.

Geometry. napari centres data pixel i at world translate + i * scale. esrrf.h puts input pixel n
over [n, n + 1) (centre n + 0.5) and centres output pixel yM at input position (yM + 0.5) / mag:
at input pixel index (yM + 0.5) / mag - 0.5, so at world
    t_in + s_in ((yM + 0.5) / mag - 0.5) = t_in + s_in (1 / mag - 1) / 2 + yM s_in / mag:
the output's scale is s_in / mag and its translate t_in - s_in (mag - 1) / (2 mag) on each of
the two image axes (at mag 1 the input's own). A time point of k frames (its first frame f0) is
centred at the middle of its frames, t_in + s_in (f0 + (k - 1) / 2) on the frame axis: scale
s_in k, translate t_in + s_in (k - 1) / 2, so that napari shows, at each frame of the input,
the time point that frame belongs to (the last, shorter one: from its first frame on)."""

import numpy as np

from halostream import _lib

TIME_LABEL = "time point"


def stack_of(layer):
    """The layer's data as the (T, rows, cols) C-contiguous stack halostream reads in place: a
    2-D image becomes one frame; a dtype the library does not read (_lib.DTYPES: uint8, uint16,
    int16, float32) is converted to float32 (as NanoPyx does; integers above 2^24 round).
    Returns (stack, note: None or what was converted). ValueError / TypeError naming the layer
    for RGB layers, other dimensions, non-real data."""
    if getattr(layer, "rgb", False):
        raise ValueError("layer %r is RGB: eSRRF needs one channel (split the channels first)"
                         % layer.name)
    a = np.asarray(layer.data)   # a lazy (dask, zarr) layer is read here, on the worker thread
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3:
        raise ValueError("layer %r has %d dimensions %s: eSRRF needs a (frames, rows, cols) "
                         "stack or one 2-D image" % (layer.name, a.ndim, a.shape))
    if a.dtype.kind not in "biuf":
        raise TypeError("layer %r holds %s data: eSRRF needs real numbers"
                        % (layer.name, a.dtype))
    note = None
    if a.dtype.name not in _lib.DTYPES or not a.dtype.isnative:
        note = "converted from %s to float32" % a.dtype.str
        a = a.astype(np.float32)
    return np.ascontiguousarray(a), note


def plane_of(layer, point):
    """The 2-D image a layer shows at the viewer's world position point (viewer.dims.point):
    its last two axes at the data index nearest point on every axis before them (a 2-D
    layer: its data). float32 (rows, cols), C order."""
    a = np.asarray(layer.data)
    if a.ndim < 2 or getattr(layer, "rgb", False):
        raise ValueError("layer %r: a one-channel image is needed, got shape %s"
                         % (layer.name, a.shape))
    lead = a.ndim - 2
    if lead:
        index = layer.world_to_data(point)[:lead]
        a = a[tuple(int(np.clip(np.round(i), 0, n - 1)) for i, n in zip(index, a.shape))]
    return np.ascontiguousarray(a, dtype=np.float32)


def _axes(layer):
    """(units as str, axis labels) of the layer's axes (napari's defaults: pixel, "-n".."-1")."""
    return [str(u) for u in layer.units], list(layer.axis_labels)


def pixel_size(layer):
    """(the size of the layer's pixel along x in world units, that unit's name)."""
    return float(layer.scale[-1]), _axes(layer)[0][-1]


def plane_geometry(layer):
    """The layer keywords (scale, translate, units, axis_labels) of an image over the layer's
    last two axes (plane_of's image, or a map of its shape)."""
    units, labels = _axes(layer)
    return {"scale": tuple(layer.scale[-2:]), "translate": tuple(layer.translate[-2:]),
            "units": tuple(units[-2:]), "axis_labels": tuple(labels[-2:])}


def result_geometry(layer, magnification, frames_per_timepoint, timepoints):
    """The layer keywords (scale, translate, units, axis_labels) of an eSRRF output of layer:
    (rows M, cols M) when there is one time point (or the input was one image), else
    (time points, rows M, cols M) with a time axis (the module's comment gives the arithmetic).
    frames_per_timepoint: the frames per time point the library used (its report's)."""
    scale = np.asarray(layer.scale, float)
    translate = np.asarray(layer.translate, float)
    units, labels = _axes(layer)
    mag = float(magnification)
    out_scale = list(scale[-2:] / mag)
    out_translate = list(translate[-2:] + scale[-2:] * (1.0 / mag - 1.0) / 2.0)
    out_units, out_labels = units[-2:], labels[-2:]
    if timepoints > 1 and layer.ndim >= 3:
        k = float(frames_per_timepoint)
        out_scale.insert(0, scale[-3] * k)
        out_translate.insert(0, translate[-3] + scale[-3] * (k - 1.0) / 2.0)
        out_units.insert(0, units[-3])
        out_labels.insert(0, TIME_LABEL)
    return {"scale": tuple(out_scale), "translate": tuple(out_translate),
            "units": tuple(out_units), "axis_labels": tuple(out_labels)}


def result_image(images):
    """An eSRRF output (time points, rows M, cols M) as the layer shows it: 2-D when it holds
    one time point (result_geometry's rule), else as it is."""
    return images[0] if images.shape[0] == 1 else images


def esrrf_name(source, mode, params):
    """A result layer's name: the source layer, the method and its parameters."""
    name = "%s eSRRF %s x%d r%g s%g" % (source, mode.upper(), params["magnification"],
                                        params["radius"], params["sensitivity"])
    if params["frames_per_timepoint"]:
        name += " %df/tp" % params["frames_per_timepoint"]
    return name


def esrrf_metadata(source, mode, params, report, devices, note):
    """A result layer's metadata: {"halostream": the full parameter set, the mode, the source
    layer, the devices run on, the library's report, and the input's conversion (or None)}."""
    return {"halostream": dict(params, method="eSRRF", mode=mode, source_layer=source,
                               devices=devices, report=report, input_conversion=note)}
