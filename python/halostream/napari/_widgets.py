"""The plugin's dock widgets (Qt): eSRRF, the parameter sweep and the quality metrics.

Each widget reads its parameters on the main thread, runs the library on a worker thread
(_job.Job: progress per block, Cancel through the library's cancel path, errors as
notifications) and adds its layers on the main thread once the run has ended (_layers.py: their
geometry, names and metadata). The calls are the package's own: halostream.cached_backend(device)
(the Backend halostream.esrrf(device=...) uses, so a widget's image is that call's, bit for
bit), Backend.esrrf, Backend.esrrf_sweep, halostream.squirrel.error_map, halostream.frc and
halostream.decorrelation."""

import numpy as np
from napari.layers import Image
from napari.utils.colormaps import ensure_colormap
from napari.utils.notifications import show_error
from qtpy.QtGui import QColor, QFont
from qtpy.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout,
                            QLabel, QLineEdit, QSpinBox, QTableWidget, QTableWidgetItem,
                            QWidget)

import halostream
from halostream import _lib

from . import _layers
from ._job import Job

INT_MAX = 2**31 - 1   # a QSpinBox's largest value


# ---------------------------------------------------------------------------- inputs
class LayerBox(QComboBox):
    """The viewer's image layers by name, kept up to date as layers come, go and move (a renamed
    layer shows under its new name at the next of those, or when the box is opened)."""

    def __init__(self, viewer):
        super().__init__()
        self.viewer = viewer
        events = (viewer.layers.events.inserted, viewer.layers.events.removed,
                  viewer.layers.events.reordered)
        refresh = self.refresh
        for event in events:
            event.connect(refresh)
        # a closed widget's box stops listening (its Qt half is gone)
        self.destroyed.connect(lambda *_: [event.disconnect(refresh) for event in events])
        self.refresh()

    def refresh(self, _event=None):
        keep = self.currentText()
        self.blockSignals(True)
        self.clear()
        names = [layer.name for layer in self.viewer.layers if isinstance(layer, Image)]
        self.addItems(names)
        if keep in names:
            self.setCurrentText(keep)
        self.blockSignals(False)

    def showPopup(self):   # noqa: N802 (Qt's name)
        self.refresh()
        super().showPopup()

    def layer(self):
        """The chosen layer; ValueError when there is none."""
        name = self.currentText()
        if name not in self.viewer.layers:
            raise ValueError("choose an image layer (open a stack, or File > Open Sample > "
                             "halostream)")
        return self.viewer.layers[name]

    def choose(self, name):
        self.refresh()
        self.setCurrentText(name)


class DeviceBox(QComboBox):
    """"auto" and every device halostream.devices() lists, by name; selector() is what
    device= takes."""

    def __init__(self):
        super().__init__()
        self.addItem("auto (a GPU where there is one, else the host device)", "auto")
        for d in halostream.devices():
            self.addItem("%s (%s)" % (d["name"], d["selector"]), d["selector"])

    def selector(self):
        return self.currentData()

    def choose(self, selector):
        """Chooses the device of that selector (ValueError when the list lacks it)."""
        i = self.findData(selector)
        if i < 0:
            raise ValueError("device %r is not among %s" % (selector, [
                self.itemData(k) for k in range(self.count())]))
        self.setCurrentIndex(i)


def _spin(low, high, value, special=None):
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    if special:
        box.setSpecialValueText(special)   # shown at low
    return box


def _real(low, high, value, step):
    box = QDoubleSpinBox()
    box.setDecimals(2)
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    return box


def _check(checked):
    box = QCheckBox()
    box.setChecked(checked)
    return box


def _values(name, text):
    """A list of numbers typed as "1, 1.5 2" (commas or spaces); ValueError naming the field."""
    items = text.replace(",", " ").split()
    try:
        return [float(v) for v in items]
    except ValueError:
        raise ValueError("%s: %r is not a list of numbers" % (name, text)) from None


class _Options:
    """The eSRRF options every widget shares (the esrrf.h desc's fields), as form rows."""

    def __init__(self, form, mag_only=False):
        defaults = halostream.esrrf_defaults()
        self.magnification = _spin(1, 32, defaults["magnification"])
        form.addRow("magnification", self.magnification)
        if not mag_only:   # the sweep takes lists of radii and sensitivities instead
            self.radius = _real(0.01, 20.0, defaults["radius"], 0.25)
            self.sensitivity = _real(0.01, 100.0, defaults["sensitivity"], 0.5)
            form.addRow("radius (input pixels)", self.radius)
            form.addRow("sensitivity", self.sensitivity)
        self.intensity_weighting = _check(True)
        form.addRow("intensity weighting", self.intensity_weighting)
        self.frames_per_timepoint = _spin(0, INT_MAX, 0, "all frames")
        form.addRow("frames per time point", self.frames_per_timepoint)
        self.macro_pixel_correction = _check(True)
        form.addRow("macro-pixel correction", self.macro_pixel_correction)
        self.device = DeviceBox()
        form.addRow("device", self.device)

    def values(self):
        """The options as halostream.esrrf's keyword arguments (and device)."""
        v = {"magnification": self.magnification.value(),
             "intensity_weighting": self.intensity_weighting.isChecked(),
             "frames_per_timepoint": self.frames_per_timepoint.value(),
             "macro_pixel_correction": self.macro_pixel_correction.isChecked(),
             "device": self.device.selector()}
        if hasattr(self, "radius"):
            v.update(radius=self.radius.value(), sensitivity=self.sensitivity.value())
        return v


def _run_esrrf(job, stack, params, modes):
    """eSRRF of stack on the worker thread (params: _Options.values() with radius and
    sensitivity): (images by mode, the library's report, the names of the devices used)."""
    be = halostream.cached_backend(params["device"])
    out = be.esrrf(stack, magnification=params["magnification"], radius=params["radius"],
                   sensitivity=params["sensitivity"],
                   intensity_weighting=params["intensity_weighting"],
                   frames_per_timepoint=params["frames_per_timepoint"], modes=modes,
                   macro_pixel_correction=params["macro_pixel_correction"],
                   progress=job.progress)
    return out, be.last_report, [d["name"] for d in be.devices]


def _add_esrrf_layers(viewer, layer, source, out, params, report, devices, note, extra=None):
    """A layer per mode of an eSRRF output of layer; returns the new layers."""
    added = []
    for mode, images in out.items():
        meta = _layers.esrrf_metadata(source, mode, params, report, devices, note)
        meta["halostream"].update(extra or {})
        geometry = _layers.result_geometry(layer, params["magnification"],
                                           report["frames_per_timepoint"], images.shape[0])
        name = _layers.esrrf_name(source, mode, params)
        if extra and "sweep" in extra:
            name += " (sweep best)"
        added.append(viewer.add_image(_layers.result_image(images), name=name, metadata=meta,
                                      **geometry))
    return added


# ---------------------------------------------------------------------------- eSRRF
class EsrrfWidget(QWidget):
    """halostream.esrrf of an image layer: a layer per chosen mode (AVG, VAR, TAC2)."""

    def __init__(self, napari_viewer):
        super().__init__()
        self.viewer = napari_viewer
        form = QFormLayout(self)
        self.layer = LayerBox(napari_viewer)
        form.addRow("layer", self.layer)
        self.options = _Options(form)
        row = QHBoxLayout()
        self.modes = {m: _check(m == "avg") for m in _lib.MODES}
        for m, box in self.modes.items():
            box.setText(m.upper())
            row.addWidget(box)
        form.addRow("modes", row)
        self.job = Job(form, "Run eSRRF")
        self.job.run_button.clicked.connect(self.run)
        self.added = []   # the layers of the last run

    def parameters(self):
        """The full parameter set of a run (what the result layers' metadata records)."""
        p = self.options.values()
        p["modes"] = [m for m, box in self.modes.items() if box.isChecked()]
        return p

    def run(self):
        try:
            layer = self.layer.layer()
        except ValueError as e:
            show_error("halostream: %s" % e)
            return
        params = self.parameters()
        source = layer.name

        def work(job):
            stack, note = _layers.stack_of(layer)
            return _run_esrrf(job, stack, params, params["modes"]) + (note,)

        def done(result):
            out, report, devices, note = result
            self.added = _add_esrrf_layers(self.viewer, layer, source, out, params, report,
                                           devices, note)
            return "done: %s in %.2f s on %s" % (", ".join(out).upper(), report["seconds"],
                                                 ", ".join(devices))

        self.added = []
        self.job.start("eSRRF of %s" % source, work, done)


# ---------------------------------------------------------------------------- sweep
class SweepWidget(QWidget):
    """Backend.esrrf_sweep over radii x sensitivities: the QnR heat map in the widget (rows:
    sensitivities, columns: radii, the best cell in bold) and the best pair's AVG image as a
    layer (a second eSRRF pass at that pair: bitwise the sweep's image there, without keeping
    every pair's image in memory)."""

    def __init__(self, napari_viewer):
        super().__init__()
        self.viewer = napari_viewer
        form = QFormLayout(self)
        self.layer = LayerBox(napari_viewer)
        form.addRow("layer", self.layer)
        self.radii = QLineEdit("1, 1.5, 2")
        self.sensitivities = QLineEdit("1, 2, 4")
        form.addRow("radii (input pixels)", self.radii)
        form.addRow("sensitivities", self.sensitivities)
        self.options = _Options(form, mag_only=True)
        self.use_decorr = _check(False)
        form.addRow("decorrelation (not FRC)", self.use_decorr)
        self.job = Job(form, "Run sweep")
        self.job.run_button.clicked.connect(self.run)
        self.heatmap = QTableWidget(0, 0)
        self.heatmap.setMinimumHeight(120)
        form.addRow(QLabel("QnR (rows: sensitivity, columns: radius)"))
        form.addRow(self.heatmap)
        self.best = QLabel("")
        form.addRow(self.best)
        self.sweep = None   # the last Sweep
        self.added = []

    def parameters(self):
        p = self.options.values()
        p.update(radii=_values("radii", self.radii.text()),
                 sensitivities=_values("sensitivities", self.sensitivities.text()),
                 use_decorr=self.use_decorr.isChecked())
        return p

    def run(self):
        try:
            layer = self.layer.layer()
            params = self.parameters()
        except ValueError as e:
            show_error("halostream: %s" % e)
            return
        source = layer.name

        def work(job):
            stack, note = _layers.stack_of(layer)
            be = halostream.cached_backend(params["device"])
            job.phase("sweep of %s" % source)
            sw = be.esrrf_sweep(stack, radii=params["radii"],
                                sensitivities=params["sensitivities"],
                                magnification=params["magnification"],
                                intensity_weighting=params["intensity_weighting"],
                                frames_per_timepoint=params["frames_per_timepoint"],
                                macro_pixel_correction=params["macro_pixel_correction"],
                                use_decorr=params["use_decorr"], progress=job.progress)
            job.phase("eSRRF at the best pair")
            best = dict(params, sensitivity=float(sw.best[0]), radius=float(sw.best[1]))
            return (sw, best) + _run_esrrf(job, stack, best, ("avg",)) + (note,)

        def done(result):
            sw, best, out, report, devices, note = result
            self.sweep = sw
            self._show(sw)
            del best["radii"], best["sensitivities"]
            extra = {"sweep": {"radii": sw.radii.tolist(),
                               "sensitivities": sw.sensitivities.tolist(),
                               "qnr": sw.qnr.tolist(), "rsp": sw.rsp.tolist(),
                               "resolution": sw.resolution.tolist(),
                               "use_decorr": params["use_decorr"], "report": sw.report}}
            self.added = _add_esrrf_layers(self.viewer, layer, source, out, best, report,
                                           devices, note, extra)
            return "done in %.2f s: best radius %g, sensitivity %g" % (
                sw.report["seconds"] + report["seconds"], best["radius"], best["sensitivity"])

        self.added = []
        self.job.start("sweep of %s" % source, work, done)

    def _show(self, sw):
        """The QnR map as a heat map (viridis over its range), the best pair in bold."""
        qnr = sw.qnr
        self.heatmap.clear()
        self.heatmap.setRowCount(qnr.shape[0])
        self.heatmap.setColumnCount(qnr.shape[1])
        self.heatmap.setVerticalHeaderLabels(["s %g" % s for s in sw.sensitivities])
        self.heatmap.setHorizontalHeaderLabels(["r %g" % r for r in sw.radii])
        low, high = np.nanmin(qnr), np.nanmax(qnr)
        scaled = (qnr - low) / (high - low) if high > low else np.zeros_like(qnr)
        colours = ensure_colormap("viridis").map(np.nan_to_num(scaled).ravel())
        best = np.unravel_index(np.argmax(qnr), qnr.shape)
        for k, (i, j) in enumerate(np.ndindex(qnr.shape)):
            item = QTableWidgetItem("%.3f" % qnr[i, j])
            r, g, b, _ = colours[k]
            item.setBackground(QColor.fromRgbF(float(r), float(g), float(b)))
            item.setForeground(QColor("black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5
                                      else "white"))
            if (i, j) == best:
                font = QFont()
                font.setBold(True)
                item.setFont(font)
            self.heatmap.setItem(i, j, item)
        self.heatmap.resizeColumnsToContents()
        self.best.setText("best: radius %g, sensitivity %g (QnR %.3f, RSP %.3f, resolution "
                          "%.2f magnified pixels)" % (sw.best[1], sw.best[0], qnr[best],
                                                      sw.rsp[best], sw.resolution[best]))


# ---------------------------------------------------------------------------- quality
class QualityWidget(QWidget):
    """The quality of a super-resolved image (the SR layer at the viewer's current time point)
    against its diffraction-limited stack (the reference layer; its frames' mean is the
    reference image, as the sweep scores): SQUIRREL's error map as a layer with its RSE and RSP;
    FRC's FIRE resolution of the eSRRF images of the odd and the even frames (made with the SR
    layer's own parameters, which its metadata holds: a layer of the eSRRF widget); and the
    decorrelation resolution of the SR image. Resolutions in SR pixels and in the layer's
    unit."""

    def __init__(self, napari_viewer):
        super().__init__()
        self.viewer = napari_viewer
        form = QFormLayout(self)
        self.reference = LayerBox(napari_viewer)
        self.sr = LayerBox(napari_viewer)
        form.addRow("reference (stack)", self.reference)
        form.addRow("super-resolved", self.sr)
        self.error_map = _check(True)
        self.frc = _check(True)
        self.decorrelation = _check(True)
        form.addRow("error map", self.error_map)
        form.addRow("FRC (odd / even frames)", self.frc)
        form.addRow("decorrelation", self.decorrelation)
        self.device = DeviceBox()
        form.addRow("device", self.device)
        self.job = Job(form, "Measure")
        self.job.run_button.clicked.connect(self.run)
        self.scores = QLabel("")
        self.scores.setWordWrap(True)
        form.addRow(self.scores)
        self.results = {}   # the last run's: "error_map" (ErrorMap), "frc", "decorrelation"
        self.added = []

    def run(self):
        try:
            ref_layer, sr_layer = self.reference.layer(), self.sr.layer()
            sr = _layers.plane_of(sr_layer, self.viewer.dims.point)
            params = (sr_layer.metadata.get("halostream") or {}) if self.frc.isChecked() \
                else {}
            if self.frc.isChecked() and params.get("method") != "eSRRF":
                raise ValueError("FRC: layer %r is not an eSRRF layer of halostream (its "
                                 "parameters are not in its metadata); uncheck FRC, or "
                                 "choose such a layer" % sr_layer.name)
        except ValueError as e:
            show_error("halostream: %s" % e)
            return
        size, unit = _layers.pixel_size(sr_layer)
        device = self.device.selector()
        want = {"error_map": self.error_map.isChecked(), "frc": self.frc.isChecked(),
                "decorrelation": self.decorrelation.isChecked()}

        def work(job):
            stack, _ = _layers.stack_of(ref_layer)
            res = {}
            if want["error_map"]:
                job.phase("error map")
                ref = stack.mean(axis=0, dtype=np.float64).astype(np.float32)
                res["error_map"] = halostream.squirrel.error_map(ref, sr, device=device)
            if want["frc"]:
                res["frc"] = _odd_even_frc(job, stack, params, device, size, unit)
            if want["decorrelation"]:
                job.phase("decorrelation")
                res["decorrelation"] = halostream.decorrelation(sr, pixel_size=size,
                                                                units=unit, device=device)
            return res

        def done(res):
            self.results = res
            self.added = []
            lines = []
            if "error_map" in res:
                em = res["error_map"]
                lines.append("RSE %.4g, RSP %.4f" % (em.rse, em.rsp))
                self.added.append(self._add_error_map(em, ref_layer, sr_layer))
            for key, what in (("frc", "FRC (FIRE)"), ("decorrelation", "decorrelation")):
                if key in res:
                    r = res[key].resolution
                    lines.append("%s resolution: %.3f pixels = %.4g %s"
                                 % (what, r / size, r, unit))
            self.scores.setText("\n".join(lines))
            return "done"

        self.job.start("quality of %s" % sr_layer.name, work, done)

    def _add_error_map(self, em, ref_layer, sr_layer):
        meta = {"halostream": {"method": "error map", "reference_layer": ref_layer.name,
                               "sr_layer": sr_layer.name, "rse": em.rse, "rsp": em.rsp,
                               "alpha": em.alpha, "beta": em.beta, "sigma": em.sigma,
                               "magnification": em.magnification}}
        return self.viewer.add_image(em.map, name="%s error map (RSE %.3g, RSP %.3f)"
                                     % (sr_layer.name, em.rse, em.rsp), colormap="magma",
                                     metadata=meta, **_layers.plane_geometry(sr_layer))


def _odd_even_frc(job, stack, params, device, size, unit):
    """FIRE of the eSRRF AVG images of stack's odd and even frames (all frames of each: one
    time point), with the parameters of an eSRRF layer's metadata (params)."""
    if stack.shape[0] < 2:
        raise ValueError("FRC needs at least 2 frames in the reference stack, got %d"
                         % stack.shape[0])
    images = []
    for half, name in ((0, "even"), (1, "odd")):
        job.phase("eSRRF of the %s frames (FRC)" % name)
        frames = np.ascontiguousarray(stack[half::2])
        out, _, _ = _run_esrrf(job, frames, dict(params, device=device,
                                                 frames_per_timepoint=0), ("avg",))
        images.append(out["avg"][0])
    job.phase("FRC")
    return halostream.frc(images[1], images[0], pixel_size=size, units=unit, device=device)
