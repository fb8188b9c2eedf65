"""Stacks that need not be in memory: esrrf() of a numpy.memmap, a TIFF file (a path, a
tifffile.TiffFile or its pages), a zarr or dask array or any other frame-indexable array,
streamed a block of frames at a time through a live eSRRF session (esrrf.h's
hst_esrrf_live_*: the same bits as the batch call on the same backend, however the frames are
cut into pushes).

A source gives the stack's shape and dtype without reading it, and blocks of frames as
C-contiguous ndarrays; one block is read while the device works on the frames pushed before
(a push copies its frames into the session's staging and returns). Host memory: the block in
flight (BLOCK_BYTES), the session's staging (esrrf.h: two buffers of 8 x 16 + 1 frames by
default) and the time points completed by the push that delivers them, each handed on at once:
copied into the output arrays (the caller's, e.g. memmaps, or allocated here) or given to the
caller's on_timepoint. Pages of a memmap are released once their frames are pushed (they stay
in the page cache), so the process's resident memory does not grow with the stack either."""

import ctypes
import logging
import mmap
import os
import sys

import numpy as np

from . import _check, _errors, _lib, _run

BLOCK_BYTES = 64 << 20   # frames read at a time: about this many bytes (at least one frame)


def streamed(stack, out, on_timepoint):
    """Whether esrrf() streams stack (esrrf below) rather than reading it whole, in place, in
    one batch call: anything but an ndarray in memory (a memmap is not), or out or
    on_timepoint given."""
    in_memory = isinstance(stack, np.ndarray) and not isinstance(stack, np.memmap)
    return not in_memory or out is not None or on_timepoint is not None


class Source:
    """A (frames, rows, cols) stack read a block of frames at a time. frames, rows, cols;
    dtype: what the library reads (the stack's own where it takes it, else as
    _check.pushed_dtype says); chunk: frames per storage chunk (blocks are whole chunks where
    they fit BLOCK_BYTES). Subclasses read frames [a, b) (_read), may release them once pushed
    (release) and close what they opened (close)."""

    def __init__(self, where, name, shape, dtype, chunk=1):
        self.where, self.name = where, name
        shape = tuple(shape)
        if len(shape) != 3:
            raise ValueError("%s: %s must have 3 dimensions (frames, rows, cols), got %d "
                             "(shape %s)" % (where, name, len(shape), shape))
        self.source_dtype = np.dtype(dtype)
        self.dtype = _check.pushed_dtype(where, name, self.source_dtype)
        self.frames = _check.integer(where, "the frames of " + name, shape[0], 1,
                                     _check.U64_MAX)
        self.rows, self.cols = _check.frame_shape(where, shape[1], shape[2])
        self.chunk = max(1, int(chunk))

    def block_frames(self):
        """Frames per block: BLOCK_BYTES' worth, whole chunks where one fits, at most all."""
        frame_bytes = self.rows * self.cols * max(self.source_dtype.itemsize,
                                                  self.dtype.itemsize)
        n = max(1, BLOCK_BYTES // frame_bytes)
        if self.chunk <= n:
            n -= n % self.chunk
        return min(n, self.frames)

    def block(self, a, b):
        """Frames [a, b) as a C-contiguous (b - a, rows, cols) array of self.dtype (a view of
        the source where it is one already)."""
        x = self._read(a, b)
        expected = (b - a, self.rows, self.cols)
        if tuple(x.shape) != expected or not _same_type(x.dtype, self.source_dtype):
            raise ValueError("%s: %s: frames %d..%d read as %s %s, expected %s %s"
                             % (self.where, self.name, a, b - 1, x.dtype, tuple(x.shape),
                                self.source_dtype, expected))
        return np.ascontiguousarray(x, dtype=self.dtype)

    def release(self, a, b):
        """Frames [a, b) have been pushed (copied by the library)."""

    def close(self):
        """Closes what the source opened (not what the caller passed)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ArraySource(Source):
    """A frame-indexable array: .shape, .dtype, and stack[a:b] giving the frames as an array
    (an ndarray, a zarr or h5py array) or a lazy one that .compute() reads (dask: only the
    chunks of those frames are computed)."""

    def __init__(self, where, name, stack):
        self.stack = stack
        super().__init__(where, name, stack.shape, stack.dtype, _frame_chunk(stack))

    def _read(self, a, b):
        x = self.stack[a:b]
        if hasattr(x, "compute") and not isinstance(x, np.ndarray):
            x = x.compute()
        return np.asarray(x)


class MemmapSource(ArraySource):
    """A numpy.memmap (tifffile.memmap's too): blocks are views of the mapping; once pushed,
    their pages leave this process's resident memory (madvise MADV_DONTNEED; the page cache
    keeps them, a later read maps them again). Only for shared mappings (modes r, r+, w+):
    a copy-on-write one (mode c) may hold the caller's changes, which that would drop."""

    SHARED_MODES = ("r", "r+", "w+")

    def release(self, a, b):
        s = self.stack
        if not (_MADVISE and s.flags.c_contiguous and getattr(s, "mode", None)
                in self.SHARED_MODES):
            return
        frame = s.strides[0]
        start, end = s.ctypes.data + a * frame, s.ctypes.data + b * frame
        start = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE   # whole pages inside the frames
        end -= end % mmap.PAGESIZE
        if end > start:
            _MADVISE(ctypes.c_void_p(start), ctypes.c_size_t(end - start), _MADV_DONTNEED)


class PageSource(Source):
    """A TIFF's pages, each one frame (rows, cols) of one sample, read one at a time (tifffile
    decodes every compression it knows). The first page gives the shape and dtype; a page
    that differs, or that cannot be read, raises ValueError naming it. tiff: the TiffFile
    opened here (closed by close()), or None where the caller passed it."""

    def __init__(self, where, name, pages, tiff=None):
        self.pages, self.tiff = pages, tiff
        self.cache = getattr(pages, "cache", None)   # restored by close()
        if self.cache is not None:   # tifffile keeps no page object once read
            pages.cache = False
        try:
            with _TiffWarnings() as warned:
                count = len(pages)
                first = pages[0] if count else None
        except Exception as e:   # a damaged directory
            raise ValueError("%s: %s: its pages cannot be read (%s: %s)"
                             % (where, name, type(e).__name__, e)) from e
        if warned.messages:   # tifffile stopped at a damaged or missing directory
            raise ValueError("%s: %s is truncated or damaged: the pages after page %d cannot be "
                             "read (tifffile: %s)" % (where, name, count - 1, warned.messages[0]))
        if first is None:
            raise ValueError("%s: %s has no pages" % (where, name))
        self.page_shape = tuple(first.shape)
        if len(self.page_shape) != 2:
            raise ValueError("%s: %s: page 0 has shape %s, not one frame (rows, cols) of one "
                             "sample" % (where, name, self.page_shape))
        if first.dtype is None:
            raise ValueError("%s: %s: page 0 has a sample format tifffile cannot read"
                             % (where, name))
        super().__init__(where, name, (count,) + self.page_shape, first.dtype)

    def _read(self, a, b):
        out = np.empty((b - a, self.rows, self.cols), self.source_dtype)
        for i in range(a, b):
            out[i - a] = self._page(i)
        return out

    def _page(self, i):
        try:
            with _TiffWarnings() as warned:
                page = self.pages[i]
                shape, dtype = tuple(page.shape), page.dtype
                data = page.asarray() if shape == self.page_shape and \
                    _same_type(dtype, self.source_dtype) else None
            if warned.messages:
                raise ValueError(warned.messages[0])
            if data is not None:
                return data
        except Exception as e:   # a truncated or damaged file: tifffile's reason
            raise ValueError("%s: %s: page %d cannot be read (%s: %s)"
                             % (self.where, self.name, i, type(e).__name__, e)) from e
        raise ValueError("%s: %s: page %d is %s %s, page 0 is %s %s (every page must be one "
                         "frame of the same shape and dtype)"
                         % (self.where, self.name, i, dtype, shape, self.source_dtype,
                            self.page_shape))

    def close(self):
        if self.cache is not None:
            self.pages.cache = self.cache
        if self.tiff is not None:
            self.tiff.close()
            self.tiff = None


class _TiffWarnings(logging.Handler):
    """tifffile's warnings while in the block, kept (.messages): where a file's structure is
    damaged (a truncated file's page offsets past its end, a corrupted directory) tifffile logs
    and reads on, seeing fewer pages or none; a stack must not silently lose its frames."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())

    def __enter__(self):
        logging.getLogger("tifffile").addHandler(self)
        return self

    def __exit__(self, *exc):
        logging.getLogger("tifffile").removeHandler(self)


def source(where, stack):
    """The Source of a stack that is not an in-memory ndarray (or is one, given on_timepoint
    or out): a file path (str, bytes, os.PathLike: a TIFF, opened here), a tifffile.TiffFile,
    its pages (TiffPages, or a list of TiffPage), a numpy.memmap, or a frame-indexable array
    (shape, dtype, [a:b]). TypeError for anything else."""
    if isinstance(stack, (str, bytes, os.PathLike)):
        return _path_source(where, stack)
    if _is_tifffile(stack) and hasattr(stack, "pages") and hasattr(stack, "filehandle"):
        name = "TIFF %s" % stack.filename
        _one_series(where, name, stack)
        return PageSource(where, name, stack.pages)
    if _is_tifffile(stack) or (isinstance(stack, (list, tuple)) and stack
                               and all(_is_tifffile(p) for p in stack)):
        return PageSource(where, "the TIFF pages", stack)
    if isinstance(stack, np.memmap):
        return MemmapSource(where, "stack", stack)
    if all(hasattr(stack, a) for a in ("shape", "dtype", "__getitem__")):
        return ArraySource(where, "stack", stack)
    raise TypeError("%s: stack must be a numpy.ndarray (frames, rows, cols), a TIFF file's path, "
                    "a tifffile.TiffFile or its pages, or a frame-indexable array (shape, dtype "
                    "and stack[a:b]: numpy.memmap, zarr, dask), got %s"
                    % (where, type(stack).__name__))


def _path_source(where, path):
    try:
        import tifffile
    except ImportError as e:
        raise ImportError("%s: reading a file needs tifffile (pip install tifffile)" % where) \
            from e
    name = "TIFF %s" % os.fsdecode(path)
    try:
        tiff = tifffile.TiffFile(path)
    except OSError:   # no such file, no permission: as open() says
        raise
    except Exception as e:   # not a TIFF, or a damaged header: tifffile's reason
        raise ValueError("%s: %s cannot be read as a TIFF (%s: %s)"
                         % (where, name, type(e).__name__, e)) from e
    try:
        _one_series(where, name, tiff)
        return PageSource(where, name, tiff.pages, tiff)
    except BaseException:
        tiff.close()
        raise


def _one_series(where, name, tiff):
    """Refuses an ImageJ or OME-TIFF file whose pages are not one series of frames, one per
    page: a hyperstack (pages interleaving two of time, planes and channels) or more images
    than pages (ImageJ's files over 4 GB hold their images after one page). Other files'
    series are not asked for: tifffile would read every page to find them."""
    if not (tiff.is_imagej or tiff.is_ome) or not tiff.series:
        return
    series = tiff.series[0]
    extra = [(a, n) for a, n in zip(series.axes, series.shape) if a not in "YX" and n > 1]
    if len(extra) > 1:
        raise ValueError("%s: %s is a hyperstack (axes %s, shape %s): pass one series of "
                         "frames, e.g. tifffile.imread(path)[:, z, c]"
                         % (where, name, series.axes, series.shape))
    images = int(np.prod([n for _, n in extra], dtype=np.int64))
    if images != len(tiff.pages):
        raise ValueError("%s: %s holds %d images in %d pages: pass tifffile.memmap(path) "
                         "(uncompressed data in one piece), which reads them in place"
                         % (where, name, images, len(tiff.pages)))


def _same_type(a, b):
    """The same numbers, in either byte order (tifffile gives a big-endian file's pages
    as '>u2' and reads them as native ones)."""
    return a.newbyteorder("=") == b.newbyteorder("=")


def _is_tifffile(x):
    return type(x).__module__.split(".")[0] == "tifffile"


def _frame_chunk(stack):
    """Frames per storage chunk along the first axis: zarr's and h5py's chunks (a tuple of
    ints), dask's (a tuple of tuples of chunk lengths: the longest); 1 where there is none."""
    chunks = getattr(stack, "chunks", None)
    try:
        first = chunks[0]
        return int(max(first)) if isinstance(first, tuple) else int(first)
    except (TypeError, IndexError, ValueError):
        return 1


def _madvise():
    """libc's madvise on Linux (where MADV_DONTNEED on a shared file mapping only unmaps the
    pages), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return fn


_MADVISE = _madvise()
_MADV_DONTNEED = 4   # Linux's value (asm-generic/mman-common.h)


def esrrf(get_backend, stack, options, progress, out, on_timepoint):
    """esrrf() of a stack that is not read whole (or is, given out or on_timepoint), through a
    live session on get_backend()'s Backend (asked for once every argument is checked):
    {mode: float32 (time points, rows * mag, cols * mag)} (out where given), or None where
    on_timepoint takes the images and out is None. options: esrrf()'s magnification, radius,
    sensitivity, intensity_weighting, frames_per_timepoint, modes, macro_pixel_correction,
    fused, rolling (its windows come out of the session as they close). The Backend's last_report is the session's."""
    where = "esrrf"
    _check.desc(where, **options)
    _check.callback(where, "on_timepoint", on_timepoint)
    monitor = _run.Monitor(_check.progress(where, progress))
    with source(where, stack) as src:
        backend = get_backend()
        try:
            return _stream(backend, src, options, monitor, out, on_timepoint)
        finally:
            monitor.close()


def _stream(backend, src, options, monitor, out, on_timepoint):
    """Pushes src's blocks, each read while the device works on the one before."""
    def frames_done(done, _total):   # the session's total is unknown: the stack's
        monitor(done, src.frames, None)
        if monitor.error is not None:
            raise monitor.error

    sink = {}

    def deliver(index, images):
        for m, a in sink.items():
            a[index] = images[m]
        if on_timepoint is not None:
            on_timepoint(index, images)

    with backend.esrrf_live((src.rows, src.cols), src.dtype, on_timepoint=deliver,
                            progress=frames_done, **options) as live:
        sink.update(_outputs(backend, live, src, out, on_timepoint))
        step = src.block_frames()
        for a in range(0, src.frames, step):
            b = min(a + step, src.frames)
            live.push(src.block(a, b))
            src.release(a, b)
        live.finish()
    backend.last_report = live.report
    return out if out is not None else sink or None


def _outputs(backend, live, src, out, on_timepoint):
    """{mode: array the time points are copied into}: out's (checked against the library's
    output shape), new arrays where out is None and on_timepoint is, else none."""
    tps, rm, cm = _lib.u64(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
    _errors.check(_errors.library().hst_esrrf_output_shape(
        ctypes.byref(live._desc), src.frames, src.rows, src.cols, ctypes.byref(tps),
        ctypes.byref(rm), ctypes.byref(cm)), backend._messages)
    shape = (tps.value, rm.value, cm.value)
    if out is None:
        return {} if on_timepoint is not None else \
            {m: np.empty(shape, np.float32) for m in live.modes}
    return _check.outputs("esrrf", out, live.modes, shape)
