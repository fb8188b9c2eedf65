#!/usr/bin/env python3
"""Tests of halostream's napari plugin (python/halostream/napari) in a real napari viewer
(napari's make_napari_viewer fixture, pytest-qt; Qt's xcb platform on an X display, a virtual
one from xvfb-run where none is set: Qt 5's offscreen platform gives napari's canvas no
OpenGL), on the device of HST_DEVICE (tests/run.sh's napari stage runs this file once per
device):

- the core package imports neither napari nor Qt; the npe2 manifest is found through the
  napari.manifest entry point and names the three widgets and the sample;
- File > Open Sample > halostream gives halostream.data's stack with its pixel size;
- the eSRRF widget on the sample stack: each mode's layer equals halostream.esrrf bit for bit,
  its scale and translate put every output pixel where esrrf.h centres it, time points form a
  time axis, the metadata holds the parameters; the progress bar advanced block by block; a
  timer in the viewer's event loop kept firing during the run;
- Cancel stops a long run through the library (before its last block), adds no layer, and the
  device runs the next call;
- bad input (NaN in a stack, a 4-D layer, a radius of 0 in the sweep) gives a notification
  with the library's message, no exception, no layer;
- the sweep widget's heat map holds Backend.esrrf_sweep's QnR map, the best pair in bold, and
  its layer equals halostream.esrrf at that pair bit for bit;
- the quality widget's error map layer, RSE, RSP, FRC and decorrelation resolutions equal the
  package's calls (in pixels and in the layer's unit);
- viewer.screenshot() of the input beside its eSRRF layer is written to
  $HST_NAPARI_SCREENSHOT (default build/napari/screenshot.png; the path is printed) and is not
  blank (pixel statistics of each half); on the host device's turn.

Run as a script it runs pytest on itself and prints TAP (one line per test). Without napari,
pytest or pytest-qt it skips, except under CI=true, where that is a failure."""

import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICE = os.environ.get("HST_DEVICE") or "host"
SHOT = os.environ.get("HST_NAPARI_SCREENSHOT") or os.path.join(ROOT, "build", "napari",
                                                               "screenshot.png")
WAIT_MS = 600000   # a run on a loaded 2-core machine's OpenCL CPU device


# ---------------------------------------------------------------------------- as a script
class _Tap:
    """A pytest plugin printing TAP: the plan once collected, then a line per test (setup,
    call and teardown together) with a failure's report as # lines."""

    def __init__(self):
        self.count = 0
        self.reports = {}

    def pytest_collection_finish(self, session):
        print("1..%d" % len(session.items), flush=True)

    def pytest_runtest_logreport(self, report):
        self.reports.setdefault(report.nodeid, []).append(report)
        if report.when != "teardown":
            return
        reports = self.reports.pop(report.nodeid)
        self.count += 1
        name = report.nodeid.split("::")[-1]
        failed = [r for r in reports if r.failed]
        skipped = [r for r in reports if r.skipped]
        if failed:
            print("not ok %d - %s" % (self.count, name))
            for line in str(failed[0].longrepr).splitlines()[-40:]:
                print("# " + line)
        elif skipped:
            print("ok %d - %s # SKIP %s" % (self.count, name, skipped[0].longrepr[-1]))
        else:
            print("ok %d - %s" % (self.count, name))
        sys.stdout.flush()


def _script():
    try:
        import napari    # noqa: F401  (what the tests need, before they import it)
        import pytest
        import pytestqt  # noqa: F401
    except ImportError as e:
        if os.environ.get("CI") == "true":
            print("1..1\nnot ok 1 - napari importable\n# %s: under CI=true the napari tests "
                  "must run (pip install -r scripts/napari-requirements.txt)" % e)
            return 1
        print("1..1\nok 1 - napari importable # SKIP %s" % e)
        return 0
    if not os.environ.get("DISPLAY"):
        # napari's canvas draws with OpenGL, which Qt 5 gets from an X server (its offscreen
        # platform has none): run again under a virtual one
        if shutil.which("xvfb-run"):
            argv = ["xvfb-run", "-a", "-s", "-screen 0 1600x1200x24", sys.executable] + sys.argv
            os.execvp(argv[0], argv)
        why = "no X display and no xvfb-run (Debian: xvfb xauth)"
        if os.environ.get("CI") == "true":
            print("1..1\nnot ok 1 - an X display\n# %s" % why)
            return 1
        print("1..1\nok 1 - an X display # SKIP %s" % why)
        return 0
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    code = pytest.main([__file__, "-s", "-p", "no:cacheprovider", "-p", "no:terminal", "-W",
                        "ignore::DeprecationWarning"], plugins=[_Tap()])
    return int(code)


if __name__ == "__main__":
    sys.exit(_script())

# ---------------------------------------------------------------------------- the tests
import numpy as np   # noqa: E402
import pytest        # noqa: E402

import halostream    # noqa: E402
from halostream import data   # noqa: E402

PX = data.FKBP_CONFOCAL_PIXEL_SIZE_UM


def same_bits(a, b, what=""):
    assert a.shape == b.shape and a.dtype == b.dtype, (what, a.shape, b.shape, a.dtype, b.dtype)
    differ = np.count_nonzero(a.view(np.uint32) != b.view(np.uint32))
    assert differ == 0, "%s: %d pixels differ" % (what, differ)


@pytest.fixture
def notes():
    """The notifications napari dispatches during the test (messages, severities)."""
    from napari.utils.notifications import notification_manager
    got = []

    def keep(event):
        n = getattr(event, "value", event)
        got.append((str(n.message), str(n.severity)))

    notification_manager.notification_ready.connect(keep)
    yield got
    notification_manager.notification_ready.disconnect(keep)


def dock(viewer, name):
    """The plugin's widget of that display name, docked in the viewer (through the manifest)."""
    _, widget = viewer.window.add_plugin_dock_widget("halostream", name)
    devices = widget.options.device if hasattr(widget, "options") else widget.device
    devices.choose(DEVICE)
    return widget


def sample(viewer):
    (layer,) = viewer.open_sample("halostream", "fkbp_confocal")
    return layer


def crop(viewer, frames=50, size=64):
    """A crop of the sample stack as a layer with the sample's pixel size (a quick run)."""
    s = np.ascontiguousarray(data.fkbp_confocal()[:frames, 96:96 + size, 96:96 + size])
    return viewer.add_image(s, name="crop", scale=(1, PX, PX), translate=(0, 3.0, -2.0),
                            units=("pixel", "micrometer", "micrometer"))


def run(qtbot, widget):
    """Clicks the widget's run button and waits for the run to end; returns its seconds."""
    t = time.monotonic()
    widget.job.run_button.click()
    qtbot.waitUntil(lambda: not widget.job.running, timeout=WAIT_MS)
    return time.monotonic() - t


def test_core_imports_no_qt():
    import subprocess
    code = ("import sys, halostream, halostream.squirrel, halostream.data, halostream.nanopyx, "
            "halostream.napari; bad = [m for m in ('napari', 'qtpy', 'PyQt5', 'PySide2', "
            "'PySide6', 'magicgui', 'vispy') if m in sys.modules]; print(bad); "
            "sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_manifest():
    from npe2 import PluginManager
    from npe2.manifest.utils import import_python_name
    pm = PluginManager.instance()
    pm.discover()
    mf = pm.get_manifest("halostream")
    widgets = {w.display_name for w in mf.contributions.widgets}
    assert widgets == {"eSRRF", "eSRRF sweep", "eSRRF quality"}, widgets
    assert [s.key for s in mf.contributions.sample_data] == ["fkbp_confocal"]
    for c in mf.contributions.commands:   # every command's python_name imports
        assert callable(import_python_name(c.python_name)), c.id


def test_sample_data(make_napari_viewer):
    viewer = make_napari_viewer()
    layer = sample(viewer)
    assert layer.data.dtype == np.uint8 and np.array_equal(layer.data, data.fkbp_confocal())
    assert np.allclose(layer.scale, (1, PX, PX))
    assert str(layer.units[-1]) == "micrometer"


def test_esrrf_widget(make_napari_viewer, qtbot):
    """The sample stack, two modes, 25 frames per time point: bits, geometry, metadata,
    progress by block, and a viewer that stays responsive throughout."""
    from qtpy.QtCore import QTimer
    viewer = make_napari_viewer()
    layer = sample(viewer)
    w = dock(viewer, "eSRRF")
    w.layer.choose(layer.name)
    w.modes["var"].setChecked(True)
    w.options.frames_per_timepoint.setValue(25)
    steps = []   # (frames done, total, when) as the widget got them
    w.job._relay.advanced.connect(lambda d, t: steps.append((d, t, time.monotonic())))
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    start = time.monotonic()
    seconds = run(qtbot, w)
    timer.stop()
    assert w.job.outcome == "done", w.job.status.text()
    # progress: several blocks, each reported, the last one the total
    frames = [d for d, t, _ in steps if t]
    assert len(set(frames)) >= 2 and frames == sorted(frames) and frames[-1] == 50, steps
    # responsive: from the click to the library's last report the event loop ran the 10 ms
    # timer throughout (no gap over half a second; at least 10 ticks a second)
    end = steps[-1][2]
    during = [start] + [t for t in ticks if t <= end] + [end]
    assert len(during) >= (end - start) * 10 and max(np.diff(during)) < 0.5, \
        (len(during), end - start, max(np.diff(during)))
    p = w.parameters()
    ref = halostream.esrrf(layer.data, p["magnification"], p["radius"], p["sensitivity"],
                           p["intensity_weighting"], 25, ("avg", "var"),
                           p["macro_pixel_correction"], device=DEVICE, progress=False)
    assert len(w.added) == 2
    mag = p["magnification"]
    for out in w.added:
        mode = out.metadata["halostream"]["mode"]
        same_bits(out.data, ref[mode], "eSRRF " + mode)
        assert out.data.shape == (2, 256 * mag, 256 * mag)
        assert np.allclose(out.scale, (25, PX / mag, PX / mag))
        assert np.allclose(out.translate, (12, -PX * (mag - 1) / (2 * mag),
                                           -PX * (mag - 1) / (2 * mag)))
        assert out.axis_labels[0] == "time point" and str(out.units[-1]) == "micrometer"
        assert out.name == "fkbp_confocal eSRRF %s x%d r%g s%g 25f/tp" % (
            mode.upper(), mag, p["radius"], p["sensitivity"]), out.name
        meta = out.metadata["halostream"]
        for key in ("magnification", "radius", "sensitivity", "intensity_weighting",
                    "frames_per_timepoint", "macro_pixel_correction", "modes", "device"):
            assert meta[key] == p[key], key
        assert meta["source_layer"] == "fkbp_confocal" and meta["report"]["timepoints"] == 2
    # the overlay, from esrrf.h's convention: output pixel (yM, xM) of time point k is centred
    # at input pixel position ((yM + 0.5) / mag, (xM + 0.5) / mag) (pixel n over [n, n + 1))
    # and in the middle of the time point's frames
    for k, yM, xM in ((0, 0, 0), (1, 7, 1000), (1, 1279, 3)):
        world = w.added[0].data_to_world((k, yM, xM))
        expect = layer.data_to_world((25 * k + 12, (yM + 0.5) / mag - 0.5, (xM + 0.5) / mag - 0.5))
        assert np.allclose(world, expect), (world, expect)
    print("# eSRRF widget on the sample stack [%s]: %.2f s (the run %.2f s, %d timer ticks, "
          "longest gap %.3f s)" % (DEVICE, seconds, end - start, len(during),
                                   max(np.diff(during))))


def test_esrrf_one_timepoint(make_napari_viewer, qtbot):
    """One time point: a 2-D layer over the crop, at its translate."""
    viewer = make_napari_viewer()
    layer = crop(viewer)
    w = dock(viewer, "eSRRF")
    w.layer.choose("crop")
    w.options.magnification.setValue(4)
    w.options.radius.setValue(2.0)
    w.options.sensitivity.setValue(2.0)
    w.options.intensity_weighting.setChecked(False)
    w.options.macro_pixel_correction.setChecked(False)
    run(qtbot, w)
    (out,) = w.added
    ref = halostream.esrrf(layer.data, 4, 2.0, 2.0, False, 0, ("avg",), False, device=DEVICE,
                           progress=False)
    same_bits(out.data, ref["avg"][0], "eSRRF crop")
    assert np.allclose(out.scale, (PX / 4, PX / 4))
    assert np.allclose(out.translate, (3.0 - PX * 3 / 8, -2.0 - PX * 3 / 8))
    assert out.metadata["halostream"]["intensity_weighting"] is False


def _long_stack():
    """500 frames of 256 x 256 (the sample's frames ten times): a run of many blocks."""
    return np.ascontiguousarray(np.tile(data.fkbp_confocal(), (10, 1, 1)))


def test_cancel(make_napari_viewer, qtbot, notes):
    viewer = make_napari_viewer()
    viewer.add_image(_long_stack(), name="long")
    w = dock(viewer, "eSRRF")
    w.layer.choose("long")
    steps = []
    w.job._relay.advanced.connect(lambda d, t: steps.append((d, t)))
    before = len(viewer.layers)
    w.job.run_button.click()
    qtbot.waitUntil(lambda: any(d for d, t in steps), timeout=WAIT_MS)
    w.job.cancel_button.click()
    qtbot.waitUntil(lambda: not w.job.running, timeout=WAIT_MS)
    assert w.job.outcome == "cancelled" and len(viewer.layers) == before and not w.added
    assert max(d for d, t in steps) < 500, steps[-3:]
    assert any("cancelled" in m for m, _ in notes), notes
    # the device runs the next call
    s = np.ascontiguousarray(data.fkbp_confocal()[:4, :32, :32])
    assert halostream.esrrf(s, device=DEVICE, progress=False)["avg"].shape == (1, 160, 160)


def test_bad_input(make_napari_viewer, qtbot, notes):
    viewer = make_napari_viewer()
    nan = np.ones((6, 24, 24), np.float32)
    nan[3, 5, 7] = np.nan
    viewer.add_image(nan, name="nan")
    viewer.add_image(np.zeros((2, 3, 24, 24), np.uint16), name="4d")
    w = dock(viewer, "eSRRF")
    for name, words in (("nan", ("HST_ERROR_NON_FINITE",)), ("4d", ("4 dimensions",))):
        del notes[:]
        before = len(viewer.layers)
        w.layer.choose(name)
        run(qtbot, w)
        assert w.job.outcome == "failed" and len(viewer.layers) == before
        errors = [m for m, sev in notes if "error" in sev.lower()]
        assert errors and all(x in errors[0] for x in words), notes
    # the library's own check of the sweep's radii
    layer = crop(viewer, frames=6, size=24)
    s = dock(viewer, "eSRRF sweep")
    s.layer.choose(layer.name)
    s.radii.setText("0, 1")
    del notes[:]
    run(qtbot, s)
    errors = [m for m, sev in notes if "error" in sev.lower()]
    assert s.job.outcome == "failed" and errors and "radii must be > 0" in errors[0], notes


def test_sweep_widget(make_napari_viewer, qtbot):
    """Once per stage, on the host device's turn: the widget's wiring does not depend on the
    device, and the sweep's results on each device are tests/test_esrrf_sweep.c's."""
    if DEVICE != "host":
        pytest.skip("once per stage: on the host device's turn")
    from qtpy.QtGui import QColor
    viewer = make_napari_viewer()
    layer = crop(viewer)
    w = dock(viewer, "eSRRF sweep")
    w.layer.choose("crop")
    w.radii.setText("1, 1.5, 2")
    w.sensitivities.setText("1 2")
    run(qtbot, w)
    assert w.job.outcome == "done", w.job.status.text()
    mag = w.options.magnification.value()
    ref = halostream.cached_backend(DEVICE).esrrf_sweep(layer.data, (1, 1.5, 2), (1, 2), mag,
                                                        progress=False)
    assert np.array_equal(w.sweep.qnr, ref.qnr) and w.sweep.best == ref.best
    t = w.heatmap
    assert (t.rowCount(), t.columnCount()) == (2, 3)
    colours = set()
    for i in range(2):
        for j in range(3):
            item = t.item(i, j)
            assert item.text() == "%.3f" % ref.qnr[i, j]
            assert item.font().bold() == ((i, j) == np.unravel_index(np.argmax(ref.qnr),
                                                                     ref.qnr.shape))
            colours.add(QColor(item.background().color()).name())
    assert len(colours) > 1, colours   # a heat map, not one colour
    (best,) = w.added
    s, r = ref.best
    direct = halostream.esrrf(layer.data, mag, float(r), float(s), device=DEVICE,
                              progress=False)
    same_bits(best.data, direct["avg"][0], "sweep best")
    meta = best.metadata["halostream"]
    assert meta["radius"] == float(r) and meta["sweep"]["qnr"] == ref.qnr.tolist()
    assert "sweep best" in best.name


def test_quality_widget(make_napari_viewer, qtbot):
    """Once per stage, on the host device's turn (the metrics on each device are
    tests/test_quality.c's and python/tests/test_quality.py's)."""
    if DEVICE != "host":
        pytest.skip("once per stage: on the host device's turn")
    viewer = make_napari_viewer()
    layer = crop(viewer)
    e = dock(viewer, "eSRRF")
    e.layer.choose("crop")
    run(qtbot, e)
    (sr_layer,) = e.added
    q = dock(viewer, "eSRRF quality")
    q.reference.choose("crop")
    q.sr.choose(sr_layer.name)
    run(qtbot, q)
    assert q.job.outcome == "done", q.job.status.text()
    sr = sr_layer.data
    mean = layer.data.mean(axis=0, dtype=np.float64).astype(np.float32)
    em = halostream.squirrel.error_map(mean, sr, device=DEVICE)
    (emap,) = q.added
    same_bits(emap.data, em.map, "error map")
    assert (q.results["error_map"].rse, q.results["error_map"].rsp) == (em.rse, em.rsp)
    assert np.allclose(emap.scale, sr_layer.scale) and np.allclose(emap.translate,
                                                                   sr_layer.translate)
    p = e.parameters()
    halves = [halostream.esrrf(np.ascontiguousarray(layer.data[h::2]), p["magnification"],
                               p["radius"], p["sensitivity"], device=DEVICE,
                               progress=False)["avg"][0] for h in (1, 0)]
    size = PX / p["magnification"]
    frc = halostream.frc(*halves, pixel_size=size, units="micrometer", device=DEVICE)
    dec = halostream.decorrelation(sr, pixel_size=size, units="micrometer", device=DEVICE)
    assert q.results["frc"].resolution == frc.resolution
    assert q.results["decorrelation"].resolution == dec.resolution
    text = q.scores.text()
    assert "RSE %.4g" % em.rse in text and "%.3f pixels = %.4g micrometer" % (
        frc.resolution / size, frc.resolution) in text, text
    assert "%.3f pixels" % (dec.resolution / size) in text, text


def test_screenshot(make_napari_viewer, qtbot):
    """The viewer with the eSRRF widget, the sample stack beside its eSRRF layer (grid view),
    written as a PNG; each half of the canvas shows an image. Once per stage, on the host
    device's turn (the eSRRF image is the same on every device: test_esrrf_widget)."""
    if DEVICE != "host":
        pytest.skip("once per stage: on the host device's turn")
    from napari.settings import get_settings
    from napari.utils.io import imsave
    get_settings().application.gui_notification_level = "none"   # no toast over the canvas
    viewer = make_napari_viewer(show=True)
    viewer.window._qt_window.resize(1600, 860)
    layer = sample(viewer)
    w = dock(viewer, "eSRRF")
    w.layer.choose(layer.name)
    run(qtbot, w)
    assert w.job.outcome == "done", w.job.status.text()
    for shown in viewer.layers:   # the sample's uint8 range (0-255) would show it dark
        shown.contrast_limits = (0, float(np.percentile(shown.data, 99.8)))
    viewer.grid.shape = (1, 2)   # side by side: the input, its eSRRF image
    viewer.grid.enabled = True
    viewer.dims.set_point(0, 25)
    viewer.reset_view()
    qtbot.wait(300)
    canvas = viewer.screenshot(canvas_only=True, flash=False)
    window = viewer.screenshot(canvas_only=False, flash=False)
    os.makedirs(os.path.dirname(SHOT), exist_ok=True)
    imsave(SHOT, window)
    print("# screenshot: %s (%d x %d)" % (SHOT, window.shape[1], window.shape[0]))
    grey = canvas[..., :3].mean(axis=2)
    half = grey.shape[1] // 2
    for part, name in ((grey[:, :half], "left"), (grey[:, half:], "right")):
        lit = np.count_nonzero(part > 30) / part.size
        assert part.std() > 5 and 0.05 < lit < 0.95, (name, part.std(), lit)
