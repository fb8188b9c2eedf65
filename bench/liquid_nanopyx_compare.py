#!/usr/bin/env python3
"""liquid_nanopyx_compare.py: halostream's NanoPyx Liquid Engine classes (halostream.nanopyx,
liquid.h) against NanoPyx 2.1.5's own, call by call, on the same CPU cores and the same frames of
the shipped stack (examples/data/fkbp_confocal_50x256x256_u8.tif): the granular calls of
NanoPyx's tutorial "chaining Liquid Engine methods" (ShiftAndMagnify by M, GradientRobertsCross,
ShiftAndMagnify of a gradient by 2M, RadialGradientConvergence) and the eSRRF class.

    python3 bench/liquid_nanopyx_compare.py [--frames N] [--mag M] [--reps R]
                                            [--nanopyx-run-types Threaded,Unthreaded,...]
                                            [--calls Roberts,ShiftAndMagnify,...]

Each side runs every run type it has on this machine (NanoPyx: Threaded, Threaded_static,
Threaded_dynamic, Threaded_guided, Unthreaded, and OpenCL where pyopencl finds a device; ours:
each device's implementation, forced by run_type), untimed once, then R times; a run type's
figure is its best wall time of the .run() call (its input checks and conversions, and ours'
copies to and from the device, included), and each side's figure its fastest run type whose
output agrees with NanoPyx's Unthreaded one (r >= 0.999999 and max |error| <= 1e-4 of the peak;
a run type that disagrees is listed and left out). Ours also runs unforced (run_type None: the
engine's measured choice). Prints one markdown table: the machine, the side's fastest run
type and seconds, NanoPyx / ours. Needs nanopyx==2.1.5, numpy, tifffile and an importable
halostream (installed, or PYTHONPATH=python with HALOSTREAM_LIB). --calls: only the calls whose
names contain one of the words (e.g. Roberts, ShiftAndMagnify: the quick ones), for
iterating."""
import argparse
import contextlib
import io
import os
import platform
import time
import warnings

import numpy as np
import tifffile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STACK = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
NANOPYX_RUN_TYPES = ("Threaded", "Threaded_static", "Threaded_dynamic", "Threaded_guided",
                     "Unthreaded", "OpenCL")
R_MIN, ERR_MAX = 0.999999, 1e-4


def best_time(fn, reps):
    """(best wall seconds of reps calls after an untimed one, the last output)."""
    out = fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def agreement(got, want):
    """(Pearson r, max |error| / peak |want|) of two outputs (tuples: concatenated)."""
    got, want = (np.concatenate([np.asarray(x, np.float64).ravel() for x in v])
                 if isinstance(v, tuple) else np.asarray(v, np.float64).ravel()
                 for v in (got, want))
    if got.shape != want.shape or not np.isfinite(got).all():
        return float("nan"), float("inf")
    return np.corrcoef(got, want)[0, 1], np.max(np.abs(got - want)) / np.max(np.abs(want))


def side(name, calls, run_types, reps, reference, log):
    """{call: (seconds, run type)} of the fastest agreeing run type of each call."""
    fastest = {}
    for call, fn in calls.items():
        for rt in run_types:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    seconds, out = best_time(lambda: fn(rt), reps)
            except Exception as e:   # a run type this machine lacks: listed, left out
                log.append("%s %s %s: %s" % (name, call, rt, e))
                continue
            r, err = agreement(out, reference[call])
            if not (r >= R_MIN and err <= ERR_MAX):
                log.append("%s %s %s: disagrees (r %.9f, error %.3g): left out"
                           % (name, call, rt, r, err))
                continue
            log.append("%s %s %s: %.5f s (r %.9f, error %.2g)" % (name, call, rt, seconds, r,
                                                                   err))
            if call not in fastest or seconds < fastest[call][0]:
                fastest[call] = (seconds, rt)
    return fastest


def chain_calls(mod, image, mag, radius, sens, grads, mags):
    """The tutorial's calls, each fn(run_type), on one side's classes (mod: their modules)."""
    crsm = mod["ShiftAndMagnify"](verbose=False)
    rbc = mod["GradientRobertsCross"](verbose=False)
    rgc = mod["RadialGradientConvergence"](verbose=False)
    esrrf = mod["eSRRF"](verbose=False)
    gc, gci, gri, magnified = grads[0], grads[1], grads[2], mags
    return {
        "ShiftAndMagnify x%d (image)" % mag: lambda rt: crsm.run(image, 0, 0, mag, mag,
                                                                 run_type=rt),
        "GradientRobertsCross": lambda rt: tuple(np.asarray(g) for g in rbc.run(image,
                                                                               run_type=rt)),
        "ShiftAndMagnify x%d (gradient)" % (2 * mag): lambda rt: crsm.run(
            gc, 0, 0, 2 * mag, 2 * mag, run_type=rt),
        "RadialGradientConvergence": lambda rt: rgc.run(
            gci, gri, magnified, magnification=mag, radius=radius, sensitivity=sens,
            doIntensityWeighting=True, run_type=rt),
        "eSRRF (class)": lambda rt: esrrf.run(image, magnification=mag, radius=radius,
                                              sensitivity=sens, run_type=rt),
    }


def picked(calls, words):
    """The calls whose names contain one of the comma-separated words (any case); all for
    none."""
    words = [w.lower() for w in words.split(",") if w]
    return {c: fn for c, fn in calls.items()
            if not words or any(w in c.lower() for w in words)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--mag", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--nanopyx-run-types", default=",".join(NANOPYX_RUN_TYPES),
                    help="NanoPyx's run types to time (default: all of them)")
    ap.add_argument("--calls", default="",
                    help="only the calls whose names contain one of these comma-separated "
                         "words, any case (default: every call)")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    with contextlib.redirect_stdout(io.StringIO()):
        from nanopyx.core.transform import _le_esrrf as n_e
        from nanopyx.core.transform import _le_interpolation_catmull_rom as n_cr
        from nanopyx.core.transform import _le_radial_gradient_convergence as n_rgc
        from nanopyx.core.transform import _le_roberts_cross_gradients as n_rc
    import nanopyx

    import halostream
    from halostream.nanopyx.__liquid_engine__ import engine
    from halostream.nanopyx.core.transform import _le_esrrf as h_e
    from halostream.nanopyx.core.transform import _le_interpolation_catmull_rom as h_cr
    from halostream.nanopyx.core.transform import _le_radial_gradient_convergence as h_rgc
    from halostream.nanopyx.core.transform import _le_roberts_cross_gradients as h_rc

    image = tifffile.imread(STACK)[:a.frames].astype(np.float32)
    mag, radius, sens = a.mag, 1.5, 1.0
    theirs_mod = {"ShiftAndMagnify": n_cr.ShiftAndMagnify,
                  "GradientRobertsCross": n_rc.GradientRobertsCross,
                  "RadialGradientConvergence": n_rgc.RadialGradientConvergence,
                  "eSRRF": n_e.eSRRF}
    ours_mod = {"ShiftAndMagnify": h_cr.ShiftAndMagnify,
                "GradientRobertsCross": h_rc.GradientRobertsCross,
                "RadialGradientConvergence": h_rgc.RadialGradientConvergence,
                "eSRRF": h_e.eSRRF}
    # the chain's inputs, from NanoPyx's Unthreaded run type, and its outputs: the reference
    with contextlib.redirect_stdout(io.StringIO()):
        crsm = n_cr.ShiftAndMagnify(verbose=False)
        gc, gr = (np.asarray(g) for g in n_rc.GradientRobertsCross(verbose=False).run(
            image, run_type="Unthreaded"))
        gci = crsm.run(gc, 0, 0, 2 * mag, 2 * mag, run_type="Unthreaded")
        gri = crsm.run(gr, 0, 0, 2 * mag, 2 * mag, run_type="Unthreaded")
        magnified = crsm.run(image, 0, 0, mag, mag, run_type="Unthreaded")
    grads = (gc, gci, gri)
    theirs_calls = picked(chain_calls(theirs_mod, image, mag, radius, sens, grads, magnified),
                          a.calls)
    with contextlib.redirect_stdout(io.StringIO()):
        reference = {c: fn("Unthreaded") for c, fn in theirs_calls.items()}
    log = []
    theirs = side("NanoPyx", theirs_calls, a.nanopyx_run_types.split(","), a.reps, reference,
                  log)
    ours_calls = picked(chain_calls(ours_mod, image, mag, radius, sens, grads, magnified),
                        a.calls)
    impls = [i.name for i in engine().impls]
    ours = side("halostream", ours_calls, impls, a.reps, reference, log)
    chosen = side("halostream-chosen", ours_calls, (None,), a.reps, reference, log)
    print("\n".join("  " + line for line in log))
    print("\nMachine: %s, %d CPU cores (%s); NanoPyx %s; halostream %s; %d frames of %s, "
          "magnification %d, radius %g, sensitivity %g; best of %d runs.\n"
          % (platform.processor() or platform.machine(), os.cpu_count(),
             ", ".join(i.name for i in engine().impls), nanopyx.__version__,
             halostream.__version__, a.frames, os.path.basename(STACK), mag, radius, sens,
             a.reps))
    print("| call | output | NanoPyx fastest (s) | ours fastest (s) | NanoPyx / ours | "
          "ours unforced (s) |")
    print("|---|---|---|---|---|---|")
    for call in theirs_calls:
        out = reference[call]
        shape = "x".join(map(str, (out[0] if isinstance(out, tuple) else out).shape))
        t, o, c = theirs.get(call), ours.get(call), chosen.get(call)
        print("| %s | %s | %s | %s | %s | %s |" % (
            call, shape, "%.5f (%s)" % t if t else "-", "%.5f (%s)" % o if o else "-",
            "%.1f" % (t[0] / o[0]) if t and o else "-", "%.5f" % c[0] if c else "-"))


if __name__ == "__main__":
    main()
