"""Builds halostream's C library into the package: two shared objects that the package loads
with ctypes. They are built as setuptools Extensions (so they get the platform's flags, the
wheel's tag and its file name suffix), but are not Python modules: nothing imports them.

Two builds of python/libhalostream.c over the headers of the source tree above this folder:
  halostream/_libhalostream_host<suffix>    -DHST_NO_OPENCL: the host device alone
  halostream/_libhalostream_opencl<suffix>  linked with -lOpenCL, built only where the OpenCL
                                            headers and ICD loader are found at build time
Each defines HST_FFT (array.h's FFTs, which quality.h's metrics and the parameter sweep need) and
links -lfftw3f -lfftw3 (FFTW's single and double precision libraries) where this machine can
build it: FFTW 3 (Debian libfftw3-dev) for both, and VkFFT's vkFFT.h (libvkfft-dev; or a folder
named by $VKFFT_INCLUDE, as the Makefile's) for the OpenCL build. Where they are missing the
build goes on without FFTs, saying so: eSRRF runs, the FFT-based calls raise HalostreamError
(HST_ERROR_NOT_BUILT_IN) naming the packages to install.
At import the package loads the OpenCL build and falls back to the host build where the ICD
loader (libOpenCL.so.1) is missing at run time (halostream/_lib.py).

The sample data (halostream/data.py): build_py writes the source tree's
examples/data/fkbp_confocal_50x256x256_u8.tif into the package as halostream/_data/*.npy (read
with tifffile here, so that the installed package reads it with NumPy alone) and copies its
licence beside it.

The build's requirements (pyproject.toml's [build-system]): setuptools >= 61 with bdist_wheel
(the wheel package, or setuptools >= 70.1), NumPy and tifffile. pip's build isolation fetches
them; offline (CI) they come from the system (Debian's python3-setuptools, python3-wheel,
python3-numpy, python3-tifffile): pip wheel --no-build-isolation --no-deps ./python (`make
python` chooses). The headers and examples/data must be in the folder above (pip builds a local
folder in place); an sdist is not supported."""

import glob
import os
import tempfile

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import CompileError, LinkError
from setuptools import Extension

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

if not os.path.isfile(os.path.join(ROOT, "esrrf.h")):
    raise SystemExit("halostream: the C headers (esrrf.h, ...) are not in %s: build from the "
                     "source tree (pip install ./python), not from an sdist" % ROOT)


VKFFT = [os.environ["VKFFT_INCLUDE"]] if os.environ.get("VKFFT_INCLUDE") else []

# Probes: a program that must compile and link for a part of the build to be made.
OPENCL_PROBE = ("#define CL_TARGET_OPENCL_VERSION 300\n#include <CL/cl.h>\n"
                "int main(void) { cl_uint n; return clGetPlatformIDs(0, 0, &n) == 12345; }\n",
                ["OpenCL"], [])
FFTW_PROBE = ("#include <fftw3.h>\n"
              "int main(void) { return fftwf_alignment_of(0) + fftw_alignment_of(0); }\n",
              ["fftw3f", "fftw3"], [])
VKFFT_PROBE = ("#define VKFFT_BACKEND 3\n#define CL_TARGET_OPENCL_VERSION 300\n"
               "#include <CL/cl.h>\n#include <vkFFT.h>\nint main(void) { return 0; }\n",
               ["OpenCL"], VKFFT)


def _library(name, macros, libraries):
    return Extension("halostream." + name, sources=["libhalostream.c"],
                   include_dirs=[ROOT] + VKFFT, define_macros=macros,
                   libraries=libraries + ["m", "pthread"],
                   extra_compile_args=["-std=c99"],
                   depends=sorted(glob.glob(os.path.join(ROOT, "*.h"))))


class BuildWithProbes(build_ext):
    """build_ext that builds what this machine can, saying what it leaves out: the OpenCL build
    only where a call of clGetPlatformIDs compiles and links (CL/cl.h, libOpenCL); FFTs
    (HST_FFT, -lfftw3f -lfftw3) in the host build where FFTW 3 links, in the OpenCL build where
    FFTW 3 links and vkFFT.h compiles."""

    def build_extensions(self):
        opencl = self._links(OPENCL_PROBE)
        if not opencl:
            self.warn("OpenCL headers or ICD loader not found: building the host device only")
            self.extensions = [e for e in self.extensions if not e.name.endswith("_opencl")]
        fftw = self._links(FFTW_PROBE)
        vkfft = fftw and opencl and self._links(VKFFT_PROBE)
        for e in self.extensions:
            if fftw and (vkfft or e.name.endswith("_host")):
                e.define_macros.append(("HST_FFT", None))
                e.libraries[:0] = ["fftw3f", "fftw3"]
        if not fftw:
            self.warn("FFTW 3 not found (Debian libfftw3-dev): building without FFTs (the error "
                      "map, FRC, decorrelation and the parameter sweep will raise)")
        elif opencl and not vkfft:
            self.warn("vkFFT.h not found (Debian libvkfft-dev, or $VKFFT_INCLUDE): FFTs on the "
                      "host device only")
        super().build_extensions()

    def _links(self, probe):
        source, libraries, include_dirs = probe
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write(source)
            try:
                objs = self.compiler.compile([src], output_dir=tmp, include_dirs=include_dirs)
                self.compiler.link_executable(objs, "probe", output_dir=tmp, libraries=libraries)
            except (CompileError, LinkError):
                return False
        return True


# The sample stack and its licence (halostream/data.py reads them under these names).
SAMPLE_DIR = os.path.join(ROOT, "examples", "data")
SAMPLE_STACK = ("fkbp_confocal_50x256x256_u8.tif", "fkbp_confocal_50x256x256_u8.npy",
                (50, 256, 256), "uint8")
SAMPLE_LICENCE = "LICENSE-nandb.txt"


class BuildPyWithData(build_py):
    """build_py that also writes the sample data into the built package (halostream/_data):
    the TIFF stack as a .npy, checked against the shape and dtype data.py documents, and its
    licence, which must travel with it."""

    def run(self):
        super().run()
        try:
            import numpy
            import tifffile
        except ImportError as e:
            raise SystemExit(
                "halostream: building the package's sample data needs NumPy and tifffile (%s): "
                "pip install numpy tifffile (Debian: python3-numpy python3-tifffile), or build "
                "with pip's build isolation (pip install ./python, without "
                "--no-build-isolation), which fetches them" % e)
        tif, npy, shape, dtype = SAMPLE_STACK
        stack = tifffile.imread(os.path.join(SAMPLE_DIR, tif))
        if stack.shape != shape or stack.dtype != numpy.dtype(dtype):
            raise SystemExit("halostream: %s holds %s %s, not the %s %s data.py documents"
                             % (tif, stack.shape, stack.dtype, shape, dtype))
        out = os.path.join(self.build_lib, "halostream", "_data")
        self.mkpath(out)
        numpy.save(os.path.join(out, npy), numpy.ascontiguousarray(stack), allow_pickle=False)
        self.copy_file(os.path.join(SAMPLE_DIR, SAMPLE_LICENCE), out)


setup(
    license="MIT",
    ext_modules=[_library("_libhalostream_opencl", [], ["OpenCL"]),
                 _library("_libhalostream_host", [("HST_NO_OPENCL", None)], [])],
    cmdclass={"build_ext": BuildWithProbes, "build_py": BuildPyWithData},
)
