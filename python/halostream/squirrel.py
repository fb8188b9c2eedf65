"""Image quality metrics of super-resolution images (the C library's quality.h, as NanoPyx 2.1
computes them): SQUIRREL's error map, Fourier ring correlation with its FIRE resolution, and
decorrelation analysis.

    import halostream
    emap, rse, rsp = halostream.squirrel.error_map(widefield, sr)    # sr: widefield's shape x M
    halostream.frc(sr_odd, sr_even, pixel_size=20, units="nm").resolution
    halostream.decorrelation(sr, pixel_size=20, units="nm").resolution

Images: 2-D (rows, cols) arrays of any real dtype, converted to float32 as NanoPyx does (read,
never written). Pixel sizes are in the caller's unit and resolutions come back in it; `units`
only labels the result (as NanoPyx's). device: as halostream.esrrf's (a cached Backend; with a
list of devices the first one computes); Backend.error_map, .frc and .decorrelation do the same
on a Backend of the caller's.

Raises TypeError / ValueError for bad arguments, naming them, before any C call;
InvalidArgument (a ValueError) for options the library refuses (e.g. n_r above 128, a ROI beyond
the image); HalostreamError for its other errors (HST_ERROR_NON_FINITE for NaN or Inf in an
image, its message naming the image and the pixel's flat index). Ctrl-C interrupts the
running metric within about a second of work and raises KeyboardInterrupt once it has
stopped."""

from . import cached_backend

__all__ = ["error_map", "frc", "decorrelation"]


def error_map(ref, sr, fixed_sigma=None, device="auto", scores_only=False):
    """SQUIRREL's error map of a super-resolution image against its diffraction-limited
    reference (Culley et al., Nat. Methods 2018; NanoPyx's ErrorMap): sr is fitted to ref as
    alpha G_sigma(sr) + beta (sigma by Brent's method, alpha and beta by least squares), ref
    Fourier-interpolated to sr's size.

    ref: (rows, cols); sr: (M rows, M cols) for one integer magnification M >= 1; fixed_sigma:
    None optimises sigma, else the blur's sigma in reference pixels (> 0).
    Returns ErrorMap(map, rse, rsp): map float32 (M rows, M cols), |fitted - ref| per pixel;
    rse the root mean square error (ref's intensity units); rsp the Pearson correlation of
    fitted and ref (-1 .. 1); and attributes alpha, beta, sigma (SR pixels), magnification.
    scores_only=True: no map (None), the scores from the fit's DCT-domain sums at a sigma
    searched to 1e-4 (within 1e-5 of the full fit's RSE and RSP, about half the time): how
    the parameter sweep scores its images."""
    return cached_backend(device).error_map(ref, sr, fixed_sigma, scores_only)


def frc(a, b, pixel_size=1, units="pixels", device="auto"):
    """Fourier ring correlation of two images of one scene (e.g. the images of the odd and the
    even frames) and its FIRE resolution (Nieuwenhuizen et al., Nat. Methods 2013; NanoPyx's
    FIRECalculator: centred even square, Tukey taper, smoothed curve, fixed 1/7 threshold).

    a, b: (rows, cols), one shape, rows and cols >= 10; pixel_size > 0 in units.
    Returns FRC(resolution, units, frequency, correlation): resolution in units (0.0 when the
    curve never falls below 1/7, as NanoPyx); frequency and correlation float32 (n,) with n =
    min(rows, cols) // 2 - 1 (rounded down to even first), frequency in cycles per unit."""
    return cached_backend(device).frc(a, b, pixel_size, units)


def decorrelation(img, rmin=0, rmax=1, n_r=50, n_g=10, pixel_size=1, units="pixels",
                  roi=None, device="auto"):
    """Decorrelation analysis of one image (Descloux, Grussmayer & Radenovic, Nat. Methods
    2019; NanoPyx's DecorrAnalysis).

    img: (rows, cols), rows and cols >= 2; rmin, rmax: the normalised frequency range searched,
    0 <= rmin < rmax <= 1; n_r: samples of the curve, 2 .. 128; n_g: high-pass filtered images
    per refinement round, 2 .. quality.h's HST_DECORR_MAX_NG (the library refuses more,
    InvalidArgument naming n_g); pixel_size > 0 in units; roi: None (the whole image) or
    (x0, y0, x1, y1) in pixels, x1 and y1 exclusive, analysed alone.
    Returns Decorrelation(resolution, units, kc_max, a_max, kc_gm, a_gm, kc0, a0): resolution =
    2 pixel_size / kc_max in units (inf when no maximum is found); kc_* normalised frequencies,
    a_* the curve's amplitudes there."""
    return cached_backend(device).decorrelation(img, rmin, rmax, n_r, n_g, pixel_size, units,
                                                roi)
