#!/bin/sh
# deps.sh — install (or name) the Debian/Ubuntu packages a halostream profile needs.
#
#   scripts/deps.sh [quick|test|demo|mpi|reliability|napari|windows|all]     (default: test)
#
#   quick: what `make test` (the quick tests) needs; test: what `make test-all` needs
#
# Prints nothing and exits 0 when every package is already installed.
# As root, missing packages are installed with apt-get; otherwise the exact
# command is printed and the script exits 1.
set -eu

profile=${1:-test}

# libc6-dev is listed because gcc only *recommends* it and we install
# without recommends.
pkgs_quick="gcc g++ make pkg-config python3 python3-numpy python3-setuptools python3-wheel python3-pip python3-venv python3-tifffile libc6-dev opencl-headers ocl-icd-opencl-dev pocl-opencl-icd libcmocka-dev libfftw3-dev libvkfft-dev libtiff-dev libpng-dev"
pkgs_test="$pkgs_quick cmake clinfo libopenmpi-dev openmpi-bin"
# (OpenMPI: the MPI halo test, tests/mpi_halo.c, runs under mpirun in `make test-all`.
#  libtiff, libpng: the tests build the eSRRF command line, build/examples/esrrf, which
#  tests/test_esrrf_cli.c runs: without them the main job's program would go untested.)
pkgs_demo="libtiff-dev libpng-dev"
pkgs_mpi="libopenmpi-dev openmpi-bin"
# (cmake, python3-*: the install and python stages of the tests: the wheel is built offline with
# Debian's setuptools and wheel, tifffile reading the sample stack into it, and installed into a
# venv that sees Debian's NumPy.)
# make test-kernels (Oclgrind) and make fuzz (clang's libFuzzer runtime: libclang_rt.fuzzer;
# the TIFF reader's target, tests/fuzz/fuzz_tiff.c, links libtiff and libpng)
pkgs_reliability="oclgrind clang libclang-rt-dev libtiff-dev libpng-dev"
# tests/run.sh's napari stage (the plugin in a real viewer; napari, PyQt5 and pytest-qt come from
# PyPI: scripts/napari-requirements.txt): a virtual X server (Qt 5's offscreen platform gives
# napari's canvas no OpenGL), Mesa's GLX for the canvas, and what PyQt5's xcb platform plugin
# and Qt's libraries load (found with ldd on Debian 12; libdbus-1-3 is loaded by Qt at run time)
pkgs_napari="python3-venv python3-pip xvfb xauth libgl1 libglx-mesa0 libgl1-mesa-dri libegl1 libdbus-1-3 libfontconfig1 libfreetype6 fonts-dejavu-core libglib2.0-0 libxkbcommon0 libxkbcommon-x11-0 libx11-xcb1 libxext6 libxcb1 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1"
# tests/run.sh's windows stage (scripts/windows_check.sh): mingw-w64 builds the Windows
# programs (its win32-thread compilers: every thread the OS shim's Win32 one), Wine runs them
# (/usr/lib/wine/wine64), clang checks the headers for what MSVC lacks (-Wvla -Wgnu); the
# eSRRF command line for Windows links libtiff and libpng cross-built by the script from Debian
# 12's source packages (apt-get source through its own source list, checked with Debian's
# archive keyring; dpkg-dev unpacks them; cmake builds them) and Debian's zlib for mingw-w64
pkgs_windows="gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 clang libz-mingw-w64-dev dpkg-dev debian-archive-keyring cmake"

case "$profile" in
    quick) want="$pkgs_quick" ;;
    test) want="$pkgs_test" ;;
    demo) want="$pkgs_test $pkgs_demo" ;;
    mpi)  want="$pkgs_test $pkgs_mpi" ;;
    reliability) want="$pkgs_test $pkgs_reliability" ;;
    napari) want="$pkgs_test $pkgs_napari" ;;
    windows) want="$pkgs_test $pkgs_windows" ;;
    all)  want="$pkgs_test $pkgs_demo $pkgs_mpi $pkgs_reliability $pkgs_napari $pkgs_windows" ;;
    -h|--help)
        echo "usage: $0 [quick|test|demo|mpi|reliability|napari|windows|all]"; exit 0 ;;
    *)
        echo "deps.sh: unknown profile '$profile' (expected quick, test, demo, mpi, reliability, napari, windows or all)" >&2
        exit 2 ;;
esac

is_installed() {
    # "ii " = desired install, status installed, no error.
    command -v dpkg-query >/dev/null 2>&1 || return 1
    dpkg-query -W -f='${db:Status-Abbrev}\n' "$1" 2>/dev/null | grep -q '^ii'
}

missing=""
for p in $want; do
    is_installed "$p" || missing="$missing $p"
done
missing=${missing# }

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps.sh: apt-get not found; this script only knows Debian/Ubuntu." >&2
    echo "deps.sh: profile '$profile' needs these packages (Debian names): $missing" >&2
    echo "deps.sh: install their equivalents with your package manager and retry." >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages for profile '$profile': $missing" >&2
    echo "deps.sh: install them with:" >&2
    echo "" >&2
    echo "    sudo apt-get install -y --no-install-recommends $missing" >&2
    echo "" >&2
    exit 1
fi

echo "deps.sh: installing for profile '$profile': $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086  # word splitting of the package list is intended
apt-get install -y --no-install-recommends $missing
