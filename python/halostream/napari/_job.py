"""One run of a widget on a worker thread: its progress bar, Cancel button and status line.

The run is a function on napari's worker thread (napari.qt.threading.create_worker); the
library calls Job.progress (the progress callable of halostream.esrrf and the sweep) from its
own threads after each block, with (done, total). Job.progress hands the numbers to the Qt main
thread through a queued signal, and raises Stop once Cancel has been pressed: the library's
Monitor (_run.py) then answers "cancel" to the C call, which stops at its next block, and the
call raises Stop once it has ended, so nothing half-made comes back. The function's result
reaches the widget on the main thread; a run that ended in Stop, or that returned after Cancel
was pressed, delivers nothing. The errors that bad input raises (HalostreamError, ValueError,
TypeError, MemoryError) become a notification with their message; any other exception (a
fault of the plugin) a notification naming its type too."""

import threading

from napari.qt.threading import create_worker
from napari.utils.notifications import show_error, show_info
from qtpy.QtCore import QObject, Signal
from qtpy.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton

import halostream

# The exceptions of bad input and of the library: shown as their message alone.
EXPECTED = (halostream.HalostreamError, ValueError, TypeError, MemoryError)


class Stop(Exception):
    """Raised from the progress callable after Cancel: the library cancels the run."""


class _Relay(QObject):
    """Carries progress from the library's threads to the main thread (a queued connection)."""
    advanced = Signal(int, int)
    phased = Signal(str)


class Job:
    """The run button, progress bar, Cancel button and status line of a widget, and the run on
    a worker thread. start(title, fn, done): fn(job) runs on the worker thread (it passes
    job.progress to the library and may call job.phase); done(result) runs on the main thread
    unless the run failed or was cancelled. .worker is the running worker (None when idle)."""

    def __init__(self, layout, run_text):
        self.run_button = QPushButton(run_text)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        layout.addRow(row)
        layout.addRow(self.bar)
        layout.addRow(self.status)
        self._stop = threading.Event()
        self._relay = _Relay()
        self._relay.advanced.connect(self._advance)
        self._relay.phased.connect(self._phase)
        self.worker = None
        self.outcome = None   # "done", "cancelled" or "failed": how the last run ended

    # -- worker thread -------------------------------------------------------------------
    def progress(self, done, total):
        """The library's progress callable: (units done, total; 0 while unknown)."""
        self._relay.advanced.emit(int(min(done, 2**31 - 1)), int(min(total, 2**31 - 1)))
        if self._stop.is_set():
            raise Stop()

    def _guarded(self, fn):
        try:
            result = fn(self)
        except Stop:
            return "cancelled", None
        except EXPECTED as e:
            return "failed", e
        return ("cancelled", None) if self._stop.is_set() else ("done", result)

    # -- main thread ---------------------------------------------------------------------
    @property
    def running(self):
        return self.worker is not None

    def start(self, title, fn, done):
        """Runs fn(self) on a worker thread (nothing when a run is going on)."""
        if self.running:
            return
        self._stop.clear()
        self.outcome = None
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.bar.setRange(0, 0)   # busy until the library reports a total
        self.status.setText(title + "...")
        self.worker = create_worker(self._guarded, fn, _start_thread=False,
                                    _connect={"returned": lambda r: self._returned(r, done),
                                              "errored": self._errored,
                                              "finished": self._finished})
        self.worker.start()

    def cancel(self):
        """Asks the run to stop (the library stops at its next block)."""
        if self.running:
            self._stop.set()
            self.status.setText("cancelling...")

    def _advance(self, done, total):
        if self.worker is None:
            return
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
        else:
            self.bar.setRange(0, 0)

    def _returned(self, result, done):
        kind, value = result
        if kind == "cancelled":
            self.outcome = "cancelled"
            self.status.setText("cancelled: nothing added")
            show_info("halostream: run cancelled, no layer added")
        elif kind == "failed":
            self.outcome = "failed"
            self.status.setText("failed: %s" % value)
            show_error("halostream: %s" % value)
        else:
            try:
                self.status.setText(done(value) or "done")
                self.outcome = "done"
                if self.bar.maximum() == 0:
                    self.bar.setRange(0, 1)
                self.bar.setValue(self.bar.maximum())
            except EXPECTED as e:   # e.g. a layer removed meanwhile
                self.outcome = "failed"
                self.status.setText("failed: %s" % e)
                show_error("halostream: %s" % e)

    def _errored(self, e):
        self.outcome = "failed"
        self.status.setText("failed: %s: %s" % (type(e).__name__, e))
        show_error("halostream: %s: %s" % (type(e).__name__, e))

    def _finished(self):
        self.worker = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if self.outcome != "done":
            self.bar.setRange(0, 1)
            self.bar.setValue(0)

    def _phase(self, text):
        if self.worker is not None and not self._stop.is_set():
            self.status.setText(text + "...")
            self.bar.setRange(0, 0)

    def phase(self, text):
        """From the worker thread: names the run's next stage in the status line (its progress
        starts anew)."""
        self._relay.phased.emit(text)
