#!/bin/sh
# bench/nufft_peers.sh — bench/nufft_peer.py's peers as folders to put on PYTHONPATH, made on a
# machine with network access and CUDA's nvcc, for a GPU machine without either:
#
#     bench/nufft_peers.sh DIR [SM]        (SM: the GPU's compute capability, default 90)
#     PYTHONPATH=DIR/gpu:DIR/cpu python3 bench/nufft_peer.py --device nvidia ...
#
#   DIR/cpu  finufft 2.5.1's wheel (py3-none: ctypes, any CPython 3), unpacked; its build-time
#            FFTW archives and headers left out
#   DIR/gpu  cufinufft 2.5.1's Python package with libcufinufft.so compiled here from the PyPI
#            source distribution for sm_SM only (the PyPI wheel carries every architecture:
#            175 MB; this one about 10 MB), without CMake (its CPM step fetches CCCL from the
#            network; CUDA 13 carries CCCL), with the flags cuFINUFFT's CMake gives a release
#            build of its Python package: shared library, separable compilation, C++17, hidden
#            symbols. The CUDA runtime is linked statically; cuFFT (libcufft.so.12) is found
#            through the RUNPATH ($ORIGIN, /usr/local/cuda/lib64) or LD_LIBRARY_PATH.
# Needs: python3 with pip, nvcc (CUDA 12 or 13), g++, make. Takes about 6 minutes on 2 cores.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 DIR [SM]" >&2; exit 2; }
dir=$1
sm=${2:-90}
ver=2.5.1
src=$dir/src/cufinufft-$ver
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
mkdir -p "$dir/cpu" "$dir/gpu" "$dir/src"

python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --python-version 3.12 --implementation cp -d "$dir/src" "finufft==$ver"
python3 -m zipfile -e "$dir"/src/finufft-$ver-*.whl "$dir/cpu"
rm -rf "$dir/cpu/lib64" "$dir/cpu/include"

# the source distribution (--no-binary for it alone: its build requirements come as wheels)
python3 -m pip download -q --no-deps --no-binary cufinufft -d "$dir/src" "cufinufft==$ver"
tar xzf "$dir/src/cufinufft-$ver.tar.gz" -C "$dir/src"

cat > "$dir/src/Makefile" <<EOF
SRC := cufinufft-$ver
ARCH := -gencode arch=compute_$sm,code=sm_$sm
DEFS := -DNDEBUG -DFINUFFT_DLL -I\$(SRC)/include
NVFLAGS := -O3 \$(DEFS) -std=c++17 \$(ARCH) -rdc=true --extended-lambda --extra-device-vectorization \\
           -Wno-deprecated-declarations -Xcompiler=-fPIC -Xcompiler=-fvisibility=hidden
CXXFLAGS := -O3 \$(DEFS) -I$cuda/include -I$cuda/include/cccl -std=c++17 -fPIC -fvisibility=hidden
CU := \$(wildcard \$(SRC)/src/cuda/*.cu \$(SRC)/src/cuda/[123]d/*.cu)
CPP := \$(SRC)/src/cuda/spreadinterp.cpp \$(wildcard \$(SRC)/src/common/*.cpp)
OBJ := \$(CU:.cu=.o) \$(CPP:.cpp=.o)
lib: \$(OBJ)
	nvcc \$(ARCH) -Xcompiler=-fPIC -dlink \$(CU:.cu=.o) -o dlink.o
	g++ -shared -o libcufinufft.so \$(OBJ) dlink.o -L$cuda/lib64 -lcufft -lcudart_static -lrt -lpthread -ldl \\
	    -Wl,-rpath,'\$\$ORIGIN:/usr/local/cuda/lib64'
	strip --strip-unneeded libcufinufft.so
%.o: %.cu
	nvcc \$(NVFLAGS) -c \$< -o \$@
%.o: %.cpp
	g++ \$(CXXFLAGS) -c \$< -o \$@
EOF
make -s -C "$dir/src" -j"$(nproc)" lib
cp -r "$src/python/cufinufft/cufinufft" "$dir/gpu/"
cp "$dir/src/libcufinufft.so" "$dir/gpu/cufinufft/"
du -sh "$dir/cpu" "$dir/gpu"
