"""Running a C call so that Ctrl-C cancels it safely, and the progress callback it gets.

The call runs on a worker thread while the calling thread waits for an Event that the worker
sets once the C function has returned. In the main thread, SIGINT is caught by a handler of
ours for that time: it only asks the library to stop, at once, through backend.h's
hst_backend_interrupt on the call's devices (a flag its long loops check within about a second
of work; the handler runs while the waiting thread sleeps, since a wait with a timeout wakes
for signals) and through the progress callback, which answers "cancel" from then on;
KeyboardInterrupt is raised after the C call has ended, so the buffers it uses outlive it (the
Backend clears its devices' flags when the call or live session lets go of it, so that it
stays usable). (Waiting on
Thread.is_alive() after an interrupted join() is not reliable on CPython <= 3.12: cpython
issue 90882.)"""

import signal
import sys
import threading
import time


class Monitor:
    """The progress callback of one run (called by the library on its worker threads with
    frames done and the total, 0 while unknown) and its cancel flag. progress: None shows a
    bar once the run has lasted a second, True at once, False never; a callable is called with
    (done, total) instead. An exception in that callable cancels the run and is raised once
    the C call has ended."""

    def __init__(self, progress, unit="frames"):
        self.cancelled = False
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
    """fn() on a worker thread, returning its result once it has ended. Ctrl-C meanwhile sets
    monitor.cancelled and interrupts backend's devices (the Backend fn runs on, if any: its
    long calls stop within about a second of work), and raises KeyboardInterrupt after fn has
    returned; an exception of the monitor's callable is raised likewise."""
    done = threading.Event()
    box = {}

    def work():
        try:
            box["result"] = fn()
        except BaseException as e:   # ctypes' own errors: raised in the caller's thread
            box["error"] = e
        finally:
            done.set()

    interrupted = []
    previous = _catch_sigint(lambda signum, frame: _cancel(monitor, backend, interrupted))
    try:
        # not a daemon: at interpreter exit Python waits for the C call to end
        threading.Thread(target=work, name="halostream-call").start()
        while not done.wait(0.25):
            pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        _deliver_sigint(previous)
    if monitor.error is not None:
        raise monitor.error
    if "error" in box:
        raise box["error"]
    return box["result"]


def _cancel(monitor, backend, interrupted):
    monitor.cancelled = True
    interrupted.append(True)
    if backend is not None:
        backend._interrupt(True)


def _catch_sigint(handler):
    """Installs handler for SIGINT where Python lets us (the main thread) and Ctrl-C would
    otherwise raise or call a Python handler; returns the handler it replaced, else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):   # SIG_IGN, SIG_DFL, or set outside Python: leave it
        return None
    signal.signal(signal.SIGINT, handler)
    return previous


def _deliver_sigint(previous):
    """The Ctrl-C we held back, now that the C call has ended: what the replaced handler does
    (Python's default raises KeyboardInterrupt)."""
    previous(signal.SIGINT, None)
