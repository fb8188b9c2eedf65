# halostream — build, test, install.
#
#   make test           install missing OS packages (as root) and run the quick tests: each header
#                       alone, the backend and the main job's library call (eSRRF) on every device
#                       (its CLI on the host device), the Python package (3-5 min on 2 idle cores)
#   make test-all       install missing OS packages (as root) and run the whole test suite, as CI
#                       does (about 30 min on 2 cores)
#   make check-headers  compile every header alone as C99 and C++11 (with and without OpenCL),
#                       and each header's opening usage example (quick)
#   make examples       install missing OS packages (as root; else name them) and build
#                       examples/*.c into build/examples/ (those whose libraries are missing: skipped)
#   make demo           build the examples and run the demo
#   make mpi-demo       examples/cubed_sphere.c under mpirun -np 6 and -np 24 (installs OpenMPI)
#   make bench          build bench/*.c into build/bench/ and run them (bench-build: build only)
#   make install        headers, pkg-config file and CMake package under $(PREFIX) (DESTDIR supported)
#   make python         build/python/dist/halostream-*.whl (the Python package, library inside)
#   make uninstall | make clean
#
# GNU make. Everything built goes under build/.

CC  ?= cc
CXX ?= c++
CFLAGS   ?= -std=c99 -O2 -g -Wall -Wextra -Wpedantic -Werror
CPPFLAGS ?=
LDFLAGS  ?=
# Always added (so that `make CPPFLAGS=...` keeps it): the headers live at the top.
HST_CPPFLAGS := -I.

MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.DELETE_ON_ERROR:

BUILD := build

# The headers of the library, lowest layer first (README.md: Layering).
HEADERS     := kernels.h backend.h array.h algorithm.h choice.h kernels_stream.h stream.h kernels_halo.h halo.h \
               kernels_quality.h quality.h kernels_esrrf.h esrrf.h liquid.h kernels_nufft.h nufft.h
TEST_HDRS   := $(wildcard tests/*.h tests/reliability/*.h examples/*.h)

TEST_LDLIBS  := -lcmocka -lOpenCL -lm -lpthread
NOOCL_LDLIBS := -lcmocka -lm -lpthread
EX_LDLIBS    := -lOpenCL -lm -lpthread
SAN_FLAGS    := -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=all -O1 -g
# Flags of the header compile checks (tests/run.sh adds -std=c99 / -std=c++11); -Wvla: MSVC has
# no variable-length arrays.
HDRCHECK_FLAGS := -Wall -Wextra -Wpedantic -Werror -Wvla

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

EX_SRCS := $(wildcard examples/*.c)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

# What each target needs beyond the defaults, written per source (not guessed from includes):
# libtiff and libpng (the image files of examples/image_io.h), FFTW (sources that define HST_FFT,
# array.h's FFTs; VKFFT_INCLUDE, when set, names a directory holding vkFFT.h elsewhere than the
# default include path) and the MPI compiler. tests/mpi_*.c always build with $(MPICC).
MPICC ?= mpicc
TIFF_SRCS := examples/esrrf.c examples/stream_tv.c tests/mpi_esrrf.c tests/fuzz/fuzz_tiff.c bench/esrrf_sweep_bench.c \
             bench/esrrf_disk_bench.c
PNG_SRCS := examples/esrrf.c tests/mpi_esrrf.c tests/fuzz/fuzz_tiff.c bench/esrrf_sweep_bench.c bench/esrrf_disk_bench.c
FFT_SRCS := tests/test_fft.c tests/test_mri.c tests/test_quality.c examples/mri_cartesian.c bench/fft_bench.c \
            bench/quality_bench.c tests/test_nufft.c tests/nufft_driver.c bench/nufft_bench.c \
            tests/test_esrrf_sweep.c examples/esrrf.c bench/esrrf_sweep_bench.c tests/test_drift.c \
            bench/drift_bench.c
MPI_SRCS := examples/cubed_sphere.c bench/esrrf_mpi_bench.c
FFT_LDLIBS := -lfftw3f -lfftw3
VKFFT_INCLUDE ?=
extra_libs = $(if $(filter $(TIFF_SRCS),$(1)),-ltiff) $(if $(filter $(PNG_SRCS),$(1)),-lpng)
fft_libs = $(if $(filter $(FFT_SRCS),$(1)),$(FFT_LDLIBS))
# Tests that write and read TIFF files with libtiff where it is (HST_TEST_LIBTIFF; else those
# tests skip): the CLI's compressed, BigTIFF and tiled inputs and its outputs' pages and tags;
# examples/image_io.h itself (with libpng) where a test calls it.
TEST_TIFF_SRCS := tests/test_esrrf_cli.c
test_tiff = $(if $(HAVE_TIFF_PNG),$(if $(filter $(TEST_TIFF_SRCS),$(1)),-DHST_TEST_LIBTIFF))
test_tiff_libs = $(if $(HAVE_TIFF_PNG),$(if $(filter $(TEST_TIFF_SRCS),$(1)),-ltiff -lpng))
fft_cflags = $(if $(VKFFT_INCLUDE),$(if $(filter $(FFT_SRCS),$(1)),-isystem $(VKFFT_INCLUDE)))
cc_for = $(if $(filter $(MPI_SRCS),$(1)),$(MPICC),$(CC))
# Without an MPI compiler the MPI examples are left out of `make examples` (with a note); without
# libtiff's and libpng's headers, so are the examples that need them.
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
HAVE_TIFF_PNG := $(shell printf '\043include <tiffio.h>\n\043include <png.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
EX_MPI_SRCS := $(filter $(MPI_SRCS),$(EX_SRCS))
EX_IMG_SRCS := $(filter $(TIFF_SRCS) $(PNG_SRCS),$(EX_SRCS))
EX_SKIPPED_MPI := $(if $(HAVE_MPICC),,$(EX_MPI_SRCS))
EX_SKIPPED_IMG := $(if $(HAVE_TIFF_PNG),,$(EX_IMG_SRCS))
EX_SKIPPED  := $(EX_SKIPPED_MPI) $(EX_SKIPPED_IMG)
EX_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(filter-out $(EX_SKIPPED),$(EX_SRCS)))

# What `make demo` builds and then runs: eSRRF (mag 5, radius 1.5, every temporal mode from one
# pass) on the whole shipped stack (50 frames of 256 x 256) on the `auto` device (a GPU if there is
# one, else the host device: see examples/esrrf.c), writing out/esrrf_{avg,var,tac2}.tif and
# out/esrrf_preview.png. On 2 cores: the first build about 1.5-2 min (80 s of CPU time), the run
# 6-16 s (12 s of CPU time; README.md: Quick start has the measurements).
DEMO_BINS ?= $(BUILD)/examples/esrrf
DEMO_CMD  ?= mkdir -p out && $(BUILD)/examples/esrrf --device auto --mode avg,var,tac2 \
             examples/data/fkbp_confocal_50x256x256_u8.tif out/esrrf.tif

# Installation.
PREFIX       ?= /usr/local
INCLUDEDIR   ?= $(PREFIX)/include
LIBDIR       ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/halostream
DESTDIR      ?=
INSTALL      ?= install

# Version from backend.h's HST_VERSION_MAJOR/MINOR/PATCH.
version_part = $(shell awk '$$1 ~ /define$$/ && $$2 == "HST_VERSION_$(1)" { print $$3; exit }' backend.h)
VERSION_MAJOR = $(call version_part,MAJOR)
VERSION_MINOR = $(call version_part,MINOR)
VERSION_PATCH = $(call version_part,PATCH)
VERSION = $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

.PHONY: all test test-all check-headers test-build examples examples-build bench bench-build demo mpi-demo deps \
        python install uninstall clean version

all: test-build examples

# ---------------------------------------------------------------------------- tests
# tests/run.sh builds the test variants through the rules below (build/tests,
# build/tests-noocl, build/tests-san), runs them and prints the totals last ("N passed,
# N failed"; non-zero exit status on a failure). Its stage lists: quick (make test), all.
RUN_ENV = MAKE="$(MAKE)" CC="$(CC)" CXX="$(CXX)" HDRCHECK_FLAGS="$(HDRCHECK_FLAGS)" \
          HEADERS="$(HEADERS)" BUILD="$(BUILD)" SAN_FLAGS="$(SAN_FLAGS)" MPICC="$(MPICC)" \
          PYTHON="$(PYTHON)"

test:
	@sh scripts/deps.sh quick
	@echo "make test: the quick tests (tests/run.sh quick): 3-5 min on 2 idle cores, most of it"
	@echo "           compiling; the whole suite is make test-all (about 30 min)"
	@$(RUN_ENV) bash tests/run.sh quick

test-all:
	@sh scripts/deps.sh test
	@echo "make test-all: the whole test suite (tests/run.sh all), about 30 min on 2 cores"
	@$(RUN_ENV) bash tests/run.sh all

check-headers:
	@$(RUN_ENV) bash tests/run.sh headers

test-build: $(TEST_BINS) $(BUILD)/list_devices

deps:
	@sh scripts/deps.sh all

$(BUILD)/list_devices: tests/list_devices.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) -lOpenCL -lm -lpthread

$(BUILD)/tests/%: tests/%.c $(HEADERS) $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(call test_tiff,$<) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call fft_libs,$<) $(call test_tiff_libs,$<) $(TEST_LDLIBS)

# The host backend alone: no -lOpenCL, so any OpenCL symbol left fails the link.
$(BUILD)/tests-noocl/%: tests/%.c $(HEADERS) $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) -DHST_NO_OPENCL $(call test_tiff,$<) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call fft_libs,$<) $(call test_tiff_libs,$<) $(NOOCL_LDLIBS)

$(BUILD)/tests-san/%: tests/%.c $(HEADERS) $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(call test_tiff,$<) $(CFLAGS) $(SAN_FLAGS) $< -o $@ $(LDFLAGS) $(SAN_FLAGS) $(call fft_libs,$<) $(call test_tiff_libs,$<) $(TEST_LDLIBS)

# MPI tests (tests/mpi_*.c): built with $(MPICC); tests/run.sh runs them under mpirun.
$(BUILD)/tests-mpi/%: tests/%.c $(HEADERS) $(TEST_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(HST_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call extra_libs,$<) -lOpenCL -lm -lpthread

# The eSRRF CLI test runs build/examples/esrrf (its sanitizer build build/examples-san/esrrf:
# tests/run.sh passes the one to run as ESRRF_BIN), built first where libtiff and libpng are
# installed: `make test`'s set-up (scripts/deps.sh test) installs them. Elsewhere, without
# them, the test skips, which fails the run under CI=true (tests/run.sh: MAIN_JOB_TESTS).
$(addsuffix /test_esrrf_cli,$(BUILD)/tests $(BUILD)/tests-noocl): | $(if $(HAVE_TIFF_PNG),$(BUILD)/examples/esrrf)
$(BUILD)/tests-san/test_esrrf_cli: | $(if $(HAVE_TIFF_PNG),$(BUILD)/examples-san/esrrf)

# ---------------------------------------------------------------------------- examples, bench
# $(call announce_build,TARGETS,LINE): prints LINE before TARGETS are built, where they are
# out of date (a first build compiles the whole library: minutes on a small machine).
announce_build = @$(MAKE) -q --no-print-directory $(1) 2> /dev/null || echo "make: $(2)"

# deps.sh installs what the examples need (as root) or names it; what is still missing then is
# skipped with a note by the second make, which looks for the libraries afresh.
examples:
	@sh scripts/deps.sh demo || echo "note: continuing without the missing packages"
	$(call announce_build,examples-build,building examples/*.c into $(BUILD)/examples/ (each compiles the whole library: several minutes on 2 cores))
	@$(MAKE) --no-print-directory examples-build

examples-build: $(EX_BINS)
ifneq ($(strip $(EX_SKIPPED_MPI)),)
	@echo "note: $(MPICC) not found; not built: $(EX_SKIPPED_MPI) (scripts/deps.sh mpi installs MPI)"
endif
ifneq ($(strip $(EX_SKIPPED_IMG)),)
	@echo "note: libtiff or libpng headers not found; not built: $(EX_SKIPPED_IMG) (scripts/deps.sh demo installs libtiff-dev and libpng-dev)"
endif

$(BUILD)/examples/%: examples/%.c $(HEADERS) $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(call cc_for,$<) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call extra_libs,$<) $(call fft_libs,$<) $(EX_LDLIBS)

# The eSRRF CLI runs over MPI ranks under mpirun where mpicc exists (esrrf.h's HST_ESRRF_MPI);
# without it, the same program for one process.
ESRRF_CC := $(if $(HAVE_MPICC),$(MPICC) -DHST_ESRRF_MPI,$(CC))
$(BUILD)/examples/esrrf: examples/esrrf.c $(HEADERS) $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(ESRRF_CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call extra_libs,$<) $(call fft_libs,$<) $(EX_LDLIBS)

# The same with the sanitizers of build/tests-san (for its test_esrrf_cli).
$(BUILD)/examples-san/esrrf: examples/esrrf.c $(HEADERS) $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(ESRRF_CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(CFLAGS) $(SAN_FLAGS) $< -o $@ $(LDFLAGS) $(SAN_FLAGS) $(call extra_libs,$<) $(call fft_libs,$<) $(EX_LDLIBS)

bench-build: $(BENCH_BINS)

bench: bench-build
	@set -e; for b in $(BENCH_BINS); do echo "== $$b"; $$b; done

$(BUILD)/bench/%: bench/%.c $(HEADERS) $(wildcard bench/*.h)
	@mkdir -p $(@D)
	$(call cc_for,$<) $(HST_CPPFLAGS) $(CPPFLAGS) $(call fft_cflags,$<) $(CFLAGS) $< -o $@ $(LDFLAGS) $(call extra_libs,$<) $(call fft_libs,$<) $(EX_LDLIBS)

demo:
	@sh scripts/deps.sh demo
	$(call announce_build,$(DEMO_BINS),building $(DEMO_BINS) first (examples/esrrf.c and the whole library: 1.5-2 min on an idle 2-core machine, longer on a busy one; once))
	@$(MAKE) --no-print-directory $(DEMO_BINS)
	$(DEMO_CMD)

# The cubed-sphere diffusion with a halo exchange every step, on 6 and on 24 ranks; each run
# compares itself with a single-process run of all tiles (exact) and prints the mass.
MPIRUN ?= mpirun
MPIRUN_ENV := OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI_DEMO_ARGS ?= 100
mpi-demo:
	@sh scripts/deps.sh mpi
	$(call announce_build,$(BUILD)/examples/cubed_sphere,building $(BUILD)/examples/cubed_sphere first (10-20 s on an idle 2-core machine; once))
	@$(MAKE) --no-print-directory $(BUILD)/examples/cubed_sphere
	$(MPIRUN_ENV) $(MPIRUN) -np 6 --oversubscribe $(BUILD)/examples/cubed_sphere $(MPI_DEMO_ARGS)
	$(MPIRUN_ENV) $(MPIRUN) -np 24 --oversubscribe $(BUILD)/examples/cubed_sphere $(MPI_DEMO_ARGS)

# ---------------------------------------------------------------------------- python
# The wheel of the Python package (python/): its setup.py compiles the library into it (with
# OpenCL where it links, and a host-only build) and writes the sample data. Offline where
# $(PYTHON) has what the build needs (python/pyproject.toml's [build-system]: setuptools >= 61
# with bdist_wheel, from the wheel package or setuptools >= 70.1; NumPy; tifffile): no build
# isolation. Otherwise (a pyenv or python.org Python, say) pip's build isolation fetches them
# from PyPI, and a note names the packages that would make the build offline. Rebuilt every
# time, from a clean python/build (files setuptools left there earlier would land in the wheel).
PYTHON ?= python3
PY_BUILD_DEPS_CHECK := import importlib.util as u, setuptools, numpy, tifffile; \
    assert int(setuptools.__version__.split(".")[0]) >= 61; \
    assert u.find_spec("wheel") or u.find_spec("setuptools.command.bdist_wheel")
python:
	@echo "make python: compiles the library twice into the wheel (about 2 min on 2 cores)"
	rm -rf python/build $(BUILD)/python/dist
	@if $(PYTHON) -c '$(PY_BUILD_DEPS_CHECK)' > /dev/null 2>&1; then isolation=--no-build-isolation; else \
	    isolation=; \
	    echo "note: $(PYTHON) lacks setuptools >= 61, wheel, numpy or tifffile: pip fetches them (build isolation);"; \
	    echo "      to build offline: $(PYTHON) -m pip install 'setuptools>=61' wheel numpy tifffile"; \
	    echo "      (Debian's python3: apt-get install python3-setuptools python3-wheel python3-numpy python3-tifffile)"; \
	fi; \
	echo "$(PYTHON) -m pip wheel $$isolation --no-deps -w $(BUILD)/python/dist ./python"; \
	$(PYTHON) -m pip wheel $$isolation --no-deps -w $(BUILD)/python/dist ./python

# ---------------------------------------------------------------------------- install
version:
	@echo $(VERSION)

# Paths under PREFIX are written relative to ${prefix} in the .pc file.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# The .pc file and the CMake package record PREFIX, so they are generated on every install.
CMAKE_FILES := halostream-config.cmake halostream-config-version.cmake
install:
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|g' \
	    -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|g' -e 's|@VERSION@|$(VERSION)|g' \
	    halostream.pc.in > $(BUILD)/halostream.pc
	for f in $(CMAKE_FILES); do \
	    sed -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	        -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' -e 's|@VERSION_MINOR@|$(VERSION_MINOR)|g' \
	        cmake/$$f.in > $(BUILD)/$$f || exit 1; done
	$(INSTALL) -d "$(DESTDIR)$(INCLUDEDIR)/halostream" "$(DESTDIR)$(PKGCONFIGDIR)" "$(DESTDIR)$(CMAKEDIR)"
	$(INSTALL) -m 644 $(HEADERS) "$(DESTDIR)$(INCLUDEDIR)/halostream/"
	$(INSTALL) -m 644 $(BUILD)/halostream.pc "$(DESTDIR)$(PKGCONFIGDIR)/halostream.pc"
	$(INSTALL) -m 644 $(addprefix $(BUILD)/,$(CMAKE_FILES)) "$(DESTDIR)$(CMAKEDIR)/"

uninstall:
	for h in $(HEADERS); do rm -f "$(DESTDIR)$(INCLUDEDIR)/halostream/$$h"; done
	rm -f "$(DESTDIR)$(PKGCONFIGDIR)/halostream.pc"
	for f in $(CMAKE_FILES); do rm -f "$(DESTDIR)$(CMAKEDIR)/$$f"; done
	rmdir "$(DESTDIR)$(CMAKEDIR)" 2>/dev/null || true
	rmdir "$(DESTDIR)$(INCLUDEDIR)/halostream" 2>/dev/null || true

clean:
	rm -rf $(BUILD)
include mk/reliability.mk

# `make print-VAR` prints a variable (tests/run.sh reads HEADERS so, when run alone).
print-%:
	@echo $($*)
