"""The sample-data contribution: halostream.data's shipped stack as an image layer."""

from halostream import data


def fkbp_confocal():
    """halostream.data.fkbp_confocal() as napari layer data: (50, 256, 256) uint8 frames with
    the stack's pixel size (data.FKBP_CONFOCAL_PIXEL_SIZE_UM, micrometres; the frame axis in
    frames)."""
    size = data.FKBP_CONFOCAL_PIXEL_SIZE_UM
    return [(data.fkbp_confocal(),
             {"name": "fkbp_confocal", "scale": (1.0, size, size),
              "units": ("pixel", "micrometer", "micrometer"),
              "axis_labels": ("frame", "y", "x"),
              "metadata": {"source": "halostream.data.fkbp_confocal",
                           "licence": "BSD-3-Clause (nandb, Rory Nolan): "
                                      "halostream.data.fkbp_confocal_licence()"}},
             "image")]
