"""Running a C call so that Ctrl-C cancels it safely, and the progress callback it gets.

The call runs on the calling thread. In the main thread, while Python's SIGINT handler is one
of Python's (a callable), the library's own handler (libhalostream.c's hst_py_sigint_arm)
replaces it for the call's duration: Python's could only run once the C call had returned, the
library's runs at once and asks the call's devices to stop through backend.h's
hst_backend_interrupt (a flag their long loops check within about a second of work) and the
progress callback answers "cancel" from then on; KeyboardInterrupt is raised after the C call
has ended (Python's handler put back and called), so the buffers it uses outlive it (the
Backend clears its devices' flags when the call or live session lets go of it, so that it
stays usable). Elsewhere (another thread, SIGINT ignored or set outside Python) the call just
runs. No thread of its own: starting one and handing over cost 0.1-0.15 ms a call on a 2-core
AMD EPYC, more than the work of a small Liquid Engine call."""

import signal
import sys
import threading
import time

from . import _errors


class Monitor:
    """The progress callback of one run (called by the library on its worker threads with
    frames done and the total, 0 while unknown) and its cancel flag. progress: None shows a
    bar once the run has lasted a second, True at once, False never; a callable is called with
    (done, total) instead. An exception in that callable cancels the run and is raised once
    the C call has ended."""

    def __init__(self, progress, unit="frames"):
        self.cancelled = False
        self.armed = False   # its call holds the library's SIGINT handler (call())
        self.error = None
        self.user = progress if callable(progress) else None
        self.bar = None if self.user or progress is False else \
            _Bar(0.0 if progress else 1.0, unit)

    def __call__(self, done, total, _user):
        try:
            if self.user is not None:
                self.user(done, total)
            elif self.bar is not None:
                self.bar.update(done, total)
        except BaseException as e:   # raised in the caller's thread after the C call
            if self.error is None:
                self.error = e
            self.cancelled = True
        if self.armed and not self.cancelled and _errors.library().hst_py_sigint_fired():
            self.cancelled = True   # Ctrl-C during this monitor's call (call())
        return 1 if self.cancelled else 0

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _Bar:
    """Frames done on stderr: on a terminal as tqdm's bar where tqdm is installed, else one line
    rewritten in place; elsewhere (a log file, a pipe), where a rewritten line would pile up
    as one, a new line each time another tenth of the frames is done (with the total unknown:
    at most one line every LINE_EVERY_S seconds), and the last. Showing progress never fails
    a run: without a usable sys.stderr (None in a GUI, closed) nothing is shown."""

    LINE_EVERY_S = 10.0

    def __init__(self, show_after, unit):
        self.start, self.show_after = time.monotonic(), show_after
        self.unit = unit   # what done and total count: "frames", or the sweep's "steps"
        self.tqdm = None
        self.done = None
        self.shown = self.broken = False
        self.terminal = False
        self.step = self.line_at = None   # not a terminal: the last tenth / time a line was written

    def update(self, done, total):
        if self.broken or done == self.done or time.monotonic() - self.start < self.show_after:
            return
        self.done = done
        try:
            self._show(done, total)
        except Exception:   # a stderr that cannot be written: stop showing
            self.broken = True

    def _show(self, done, total):
        err = sys.stderr
        if err is None:
            self.broken = True
            return
        if not self.shown:
            self.shown = True
            self.terminal = _is_terminal(err)
            try:
                if self.terminal:
                    import tqdm
                    self.tqdm = tqdm.tqdm(total=total or None, unit=self.unit[:-1], desc="eSRRF",
                                          file=err)
            except ImportError:
                pass
        of = " / %d %s (%d%%)" % (total, self.unit, 100 * done // total) if total \
            else " " + self.unit
        if self.tqdm is not None:
            self.tqdm.update(done - self.tqdm.n)
        elif self.terminal:
            err.write("\reSRRF: %d%s" % (done, of))
            err.flush()
        elif self._line_due(done, total):
            err.write("eSRRF: %d%s\n" % (done, of))
            err.flush()

    def _line_due(self, done, total):
        """Not a terminal: whether this update gets a line of its own."""
        now = time.monotonic()
        if total:
            step = 10 * done // total
            due = step != self.step or done == total
            self.step = step
        else:
            due = self.line_at is None or now - self.line_at >= self.LINE_EVERY_S
        if due:
            self.line_at = now
        return due

    def close(self):
        try:
            if self.tqdm is not None:
                self.tqdm.close()
            elif self.shown and self.terminal and not self.broken and sys.stderr is not None:
                sys.stderr.write("\n")
        except Exception:
            pass


def _is_terminal(stream):
    """Whether stream is a terminal (a stream without isatty, or whose isatty fails: no)."""
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def call(fn, monitor, backend=None):
    """fn() on this thread, returning its result once it has ended. Ctrl-C meanwhile (in the
    main thread) sets monitor.cancelled and interrupts backend's devices (the Backend or engine
    fn runs on, if any: its long calls stop within about a second of work), and raises
    KeyboardInterrupt after fn has returned; an exception of the monitor's callable is raised
    likewise."""
    previous = _python_sigint()
    if previous is None:
        result = fn()
    else:
        lib = _errors.library()
        handles, count = backend._sigint_targets() if backend is not None else (None, 0)
        armed = monitor.armed = bool(lib.hst_py_sigint_arm(handles, count))
        try:
            result = fn()
        finally:
            monitor.armed = False
            if armed and lib.hst_py_sigint_disarm():
                monitor.cancelled = True
                _deliver_sigint(previous)
    if monitor.error is not None:
        raise monitor.error
    return result


def _python_sigint():
    """Python's SIGINT handler where Ctrl-C would raise or call it and we may replace it for a
    call (the main thread; a callable: not SIG_IGN, SIG_DFL or one set outside Python), else
    None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    return previous if callable(previous) else None


def _deliver_sigint(previous):
    """The Ctrl-C we held back, now that the C call has ended: what the replaced handler does
    (Python's default raises KeyboardInterrupt)."""
    previous(signal.SIGINT, None)
