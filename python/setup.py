"""Builds halostream's C library into the package: two shared objects that the package loads
with ctypes. They are built as setuptools Extensions (so they get the platform's flags, the
wheel's tag and its file name suffix), but are not Python modules: nothing imports them.

Two builds of python/libhalostream.c over the headers of the source tree above this folder:
  halostream/_libhalostream_host<suffix>    -DHST_NO_OPENCL: the host device alone
  halostream/_libhalostream_opencl<suffix>  linked with -lOpenCL, built only where the OpenCL
                                            headers and ICD loader are found at build time
Both define HST_FFT (quality.h's metrics need array.h's FFTs) and link -lfftw3f -lfftw3 (FFTW's
single and double precision libraries): FFTW 3's
fftw3.h, and for the OpenCL build VkFFT's vkFFT.h, must be installed (Debian libfftw3-dev,
libvkfft-dev); $VKFFT_INCLUDE, as the Makefile's, names a folder holding vkFFT.h elsewhere.
At import the package loads the OpenCL build and falls back to the host build where the ICD
loader (libOpenCL.so.1) is missing at run time (halostream/_lib.py).

Offline (CI): pip wheel --no-build-isolation --no-deps ./python, with Debian's
python3-setuptools and python3-wheel. The headers must be in the folder above (pip builds a
local folder in place); an sdist is not supported."""

import glob
import os
import tempfile

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, LinkError
from setuptools import Extension

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

if not os.path.isfile(os.path.join(ROOT, "esrrf.h")):
    raise SystemExit("halostream: the C headers (esrrf.h, ...) are not in %s: build from the "
                     "source tree (pip install ./python), not from an sdist" % ROOT)


def _library(name, macros, libraries):
    vkfft = [os.environ["VKFFT_INCLUDE"]] if os.environ.get("VKFFT_INCLUDE") else []
    return Extension("halostream." + name, sources=["libhalostream.c"],
                   include_dirs=[ROOT] + vkfft, define_macros=macros,
                   libraries=libraries + ["fftw3f", "fftw3", "m", "pthread"],
                   extra_compile_args=["-std=c99"],
                   depends=sorted(glob.glob(os.path.join(ROOT, "*.h"))))


class BuildWithOpenCLProbe(build_ext):
    """build_ext that leaves out the OpenCL build when this machine cannot compile and link a
    call of clGetPlatformIDs (no CL/cl.h or no libOpenCL), saying so."""

    def build_extensions(self):
        if not self._opencl_links():
            self.warn("OpenCL headers or ICD loader not found: building the host device only")
            self.extensions = [e for e in self.extensions if not e.name.endswith("_opencl")]
        super().build_extensions()

    def _opencl_links(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write("#define CL_TARGET_OPENCL_VERSION 300\n#include <CL/cl.h>\n"
                        "int main(void) { cl_uint n; return clGetPlatformIDs(0, 0, &n) == 12345; }\n")
            try:
                objs = self.compiler.compile([src], output_dir=tmp)
                self.compiler.link_executable(objs, "probe", output_dir=tmp, libraries=["OpenCL"])
            except (CompileError, LinkError):
                return False
        return True


setup(
    license="MIT",
    ext_modules=[_library("_libhalostream_opencl", [], ["OpenCL"]),
                 _library("_libhalostream_host", [("HST_NO_OPENCL", None)], [])],
    cmdclass={"build_ext": BuildWithOpenCLProbe},
)
