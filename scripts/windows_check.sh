#!/usr/bin/env bash
# scripts/windows_check.sh — the same bytes on Windows as on Linux, and the headers' Windows
# builds, checked from Linux:
#   1. tests/windows/check.c built for Linux (cc) and for Windows with mingw-w64 (Debian's
#      gcc-mingw-w64-x86-64, its win32-thread variant: no winpthreads, so every thread is the
#      OS shim's Win32 one) at -O2 and -O0, host device alone (-DHST_NO_OPENCL: Wine has no
#      OpenCL); the Windows builds run under Wine (/usr/lib/wine/wine64) and each of their
#      "hash" lines must equal the Linux build's, each "check" line (OS shim, fmaf) say ok;
#   2. the library as a shared library (HST_SHARED): tests/windows/shared_lib.c built as a DLL
#      with mingw-w64 and as a shared object with -fvisibility=hidden on Linux, and
#      tests/windows/shared_use.c linked against each (through the API alone) gives the hash
#      of the program with the implementation compiled in;
#   3. backend.h, kernels.h, array.h and choice.h alone (implementation included) compiled by
#      mingw-w64 as C99 and C++11 with and without HST_NO_OPENCL... (OpenCL needs CL/cl.h: the
#      OpenCL variant is compiled where the system has it), -Wall -Wextra -Wpedantic -Werror;
#   4. the same headers by Clang with -fms-extensions -Wvla -Wgnu -Werror (what MSVC lacks:
#      VLAs, GNU extensions unguarded);
#   5. the eSRRF command line (examples/esrrf.c, its OS calls through examples/cli_os.h) built for
#      Linux and for Windows (-O2, host device alone, no FFTW: -DESRRF_NO_FFT) against libtiff
#      and libpng cross-built for mingw-w64 from Debian 12's source packages (fetched with
#      apt-get source through a private source list: the system's apt configuration is left
#      alone; zlib is Debian's libz-mingw-w64-dev), run on the shipped stack as `make demo`
#      runs it (every temporal mode, the preview), every output compared byte for byte; and a
#      missing input: the same exit status and message on both.
# Prints one TAP line per comparison, check and compile ("ok N - ..." / "not ok N - ..."),
# then "1..N"; exits non-zero if any failed. A missing mingw-w64 or Wine is a failure where
# CI=true (.ci/run), else the script says so and exits 0 having checked nothing.
# Environment: BUILD (default build; outputs go to $BUILD/windows), CC (the Linux compiler,
# default cc), MINGW_CC, MINGW_CXX (default x86_64-w64-mingw32-gcc-win32 / -g++-win32, else
# the unsuffixed names), WINE (default /usr/lib/wine/wine64, else wine64, wine), CLANG
# (default clang), FMAF_INPUTS (generated fmaf inputs per Windows run, default 10^7), HEADERS
# (default: the four headers above), WIN_LIBS (where the cross-built libtiff and libpng go,
# default $BUILD/windows/libs: kept, and built again only when missing).
# Section 5's time (2-core AMD EPYC, a clean $BUILD, a busy machine): fetching and cross-building
# the libraries 76 s (47 s idle), the two CLI builds about 35 s, the runs 6 s on Linux and 7 s
# under Wine: about 2 min of the stage's 3 min 39 s.
set -u
cd "$(dirname "$0")/.." || exit 2

BUILD=${BUILD:-build}
OUT=$BUILD/windows
CC=${CC:-cc}
CLANG=${CLANG:-clang}
FMAF_INPUTS=${FMAF_INPUTS:-10000000}
HEADERS=${HEADERS:-backend.h kernels.h array.h choice.h}
FLAGS=(-Wall -Wextra -Wpedantic -Werror)
first_tool() { local t; for t in "$@"; do command -v "$t" > /dev/null 2>&1 && { echo "$t"; return; }; done; }
MINGW_CC=${MINGW_CC:-$(first_tool x86_64-w64-mingw32-gcc-win32 x86_64-w64-mingw32-gcc)}
MINGW_CXX=${MINGW_CXX:-$(first_tool x86_64-w64-mingw32-g++-win32 x86_64-w64-mingw32-g++)}
WINE=${WINE:-$(first_tool /usr/lib/wine/wine64 wine64 wine)}

N=0
FAILS=0
tap() { # tap STATUS(0 = ok) DESCRIPTION [LOG]
    N=$((N + 1))
    if [ "$1" = 0 ]; then
        echo "ok $N - $2"
    else
        FAILS=$((FAILS + 1))
        echo "not ok $N - $2"
        [ -n "${3:-}" ] && [ -f "$3" ] && head -n 30 "$3" | sed 's/^/# /'
    fi
}

if [ -z "$MINGW_CC" ] || [ -z "$WINE" ]; then
    echo "# mingw-w64 (gcc-mingw-w64-x86-64) or Wine (wine64) is not installed"
    if [ "${CI:-}" = true ]; then tap 1 "mingw-w64 and Wine present"; echo "1..$N"; exit 1; fi
    echo "1..0 # SKIP no mingw-w64 or Wine"
    exit 0
fi
mkdir -p "$OUT/wineprefix" "$OUT/cache"
OUT_ABS=$(cd "$OUT" && pwd -P)
export WINEPREFIX=$OUT_ABS/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

# ---- 1. hashes: Linux against Windows (-O2, -O0) -------------------------------------------
SRC=tests/windows/check.c
INC=(-I. -Itests)
$CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL "${INC[@]}" "$SRC" -o "$OUT/check-linux" -lm -lpthread \
    > "$OUT/build-linux.log" 2>&1
tap $? "build check.c for Linux ($CC -O2)" "$OUT/build-linux.log"
HST_CACHE_DIR=$OUT_ABS/cache "$OUT/check-linux" "$FMAF_INPUTS" > "$OUT/linux.txt" 2> "$OUT/linux.err"
tap $? "run check.c on Linux" "$OUT/linux.txt"

for opt in -O2 -O0; do
    exe=$OUT/check$opt.exe
    $MINGW_CC -std=c99 $opt "${FLAGS[@]}" -DHST_NO_OPENCL "${INC[@]}" "$SRC" -o "$exe" -static \
        > "$OUT/build-windows$opt.log" 2>&1
    tap $? "build check.c for Windows ($MINGW_CC $opt)" "$OUT/build-windows$opt.log"
    [ -f "$exe" ] || continue
    # Wine writes text mode (CR LF); its Windows paths reach the host's through Z:
    HST_CACHE_DIR="Z:${OUT_ABS//\//\\}\\cache" \
        "$WINE" "$exe" "$FMAF_INPUTS" 2> "$OUT/windows$opt.err" | tr -d '\r' > "$OUT/windows$opt.txt"
    tap "${PIPESTATUS[0]}" "run check.c under Wine ($opt)" "$OUT/windows$opt.err"
    while read -r kind name value; do
        [ "$kind" = hash ] || continue
        got=$(awk -v n="$name" '$1 == "hash" && $2 == n { print $3 }' "$OUT/windows$opt.txt")
        [ "$got" = "$value" ]
        tap $? "hash $name the same on Windows ($opt: ${got:-missing}) as on Linux ($value)"
    done < "$OUT/linux.txt"
    while read -r kind name status rest; do
        [ "$kind" = check ] || continue
        [ "$status" = ok ] || [ "$status" = skipped ]
        tap $? "Windows ($opt) check $name: $status $rest"
    done < "$OUT/windows$opt.txt"
done
while read -r kind name status rest; do
    [ "$kind" = check ] || continue
    [ "$status" = ok ] || [ "$status" = skipped ]
    tap $? "Linux check $name: $status $rest"
done < "$OUT/linux.txt"

# ---- 2. the library as a shared library (HST_SHARED): a DLL under Wine, a shared object built
# with -fvisibility=hidden on Linux, against the implementation compiled in ----------------------
SH=tests/windows/shared_use.c
SHLIB=tests/windows/shared_lib.c
shared_run() { # shared_run LABEL LOG COMMAND...: "hash shared-esrrf ..." into $OUT/shared-LABEL.txt
    local label=$1 log=$2
    shift 2
    "$@" 2> "$log" | tr -d '\r' > "$OUT/shared-$label.txt"
    tap "${PIPESTATUS[0]}" "run shared_use.c ($label)" "$log"
}
$CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DSHARED_USE_STATIC "${INC[@]}" "$SH" -o "$OUT/shared-static" \
    -lm -lpthread > "$OUT/shared-static.log" 2>&1
tap $? "build shared_use.c with the implementation (Linux)" "$OUT/shared-static.log"
shared_run static "$OUT/shared-static.err" "$OUT/shared-static"
$CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DHST_SHARED -fPIC -shared -fvisibility=hidden "${INC[@]}" "$SHLIB" \
    -o "$OUT/libhst_shared.so" -lm -lpthread > "$OUT/shared-so.log" 2>&1 &&
    $CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DHST_SHARED "${INC[@]}" "$SH" -L"$OUT" -lhst_shared \
        -o "$OUT/shared-so" -lm >> "$OUT/shared-so.log" 2>&1
tap $? "build a shared object (-fvisibility=hidden) and shared_use.c against it (Linux)" "$OUT/shared-so.log"
shared_run so "$OUT/shared-so.err" env LD_LIBRARY_PATH="$OUT" "$OUT/shared-so"
$MINGW_CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DHST_SHARED "${INC[@]}" -shared "$SHLIB" \
    -o "$OUT/halostream.dll" -Wl,--out-implib,"$OUT/libhalostream.dll.a" -static-libgcc > "$OUT/shared-dll.log" 2>&1 &&
    $MINGW_CC -std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DHST_SHARED "${INC[@]}" "$SH" -L"$OUT" -lhalostream \
        -o "$OUT/shared_use.exe" >> "$OUT/shared-dll.log" 2>&1
tap $? "build halostream.dll and shared_use.exe against it ($MINGW_CC)" "$OUT/shared-dll.log"
shared_run dll "$OUT/shared-dll.err" "$WINE" "$OUT/shared_use.exe"
want=$(cat "$OUT/shared-static.txt" 2> /dev/null)
for label in so dll; do
    got=$(cat "$OUT/shared-$label.txt" 2> /dev/null)
    [ -n "$want" ] && [ "$got" = "$want" ]
    tap $? "shared library ($label): ${got:-nothing} = the implementation compiled in: ${want:-nothing}"
done

# ---- 3. the headers alone, compiled by mingw-w64 --------------------------------------------
OPENCL_H=0
echo '#include <CL/cl.h>' | $MINGW_CC -std=c99 -E -x c - > /dev/null 2>&1 && OPENCL_H=1
for h in $HEADERS; do
    tu=$OUT/alone-${h%.h}.c
    printf '#define HST_IMPLEMENTATION\n#include "%s"\n' "$h" > "$tu"
    for variant in noocl ocl; do
        vflags=()
        if [ $variant = noocl ]; then vflags=(-DHST_NO_OPENCL); elif [ $OPENCL_H = 0 ]; then continue; fi
        log=$OUT/alone-${h%.h}-$variant.c99.log
        $MINGW_CC -std=c99 "${FLAGS[@]}" "${vflags[@]}" -I. -c "$tu" -o "$OUT/alone.o" > "$log" 2>&1
        tap $? "mingw-w64 C99 $h ($variant)" "$log"
        if [ -n "$MINGW_CXX" ]; then
            log=$OUT/alone-${h%.h}-$variant.cxx11.log
            $MINGW_CXX -x c++ -std=c++11 "${FLAGS[@]}" "${vflags[@]}" -I. -c "$tu" -o "$OUT/alone.o" > "$log" 2>&1
            tap $? "mingw-w64 C++11 $h ($variant)" "$log"
        fi
    done
done
[ $OPENCL_H = 1 ] || echo "# mingw-w64 has no CL/cl.h: the headers' OpenCL variants were not compiled for Windows"

# ---- 4. Clang: what MSVC lacks --------------------------------------------------------------
if command -v "$CLANG" > /dev/null 2>&1; then
    for h in $HEADERS; do
        tu=$OUT/alone-${h%.h}.c
        for variant in noocl ocl; do
            vflags=()
            [ $variant = noocl ] && vflags=(-DHST_NO_OPENCL)
            log=$OUT/clang-${h%.h}-$variant.log
            $CLANG -std=c99 "${FLAGS[@]}" -fms-extensions -Wvla -Wgnu "${vflags[@]}" -I. -c "$tu" \
                -o "$OUT/alone.o" > "$log" 2>&1
            tap $? "clang -fms-extensions -Wvla -Wgnu $h ($variant)" "$log"
        done
    done
else
    echo "# $CLANG not found: the -Wvla -Wgnu check was left out"
fi

# ---- 5. the eSRRF command line: the same output files on Windows as on Linux -----------------
# libtiff and libpng for mingw-w64 (Debian ships zlib's alone): Debian 12's sources, whatever the
# host, so that the Windows program is the same everywhere; only the static libraries are built.
WIN_LIBS=${WIN_LIBS:-$OUT_ABS/libs}
case $WIN_LIBS in /*) ;; *) WIN_LIBS=$PWD/$WIN_LIBS ;; esac   # apt reads a relative path under /etc/apt
TIFF_SRC=tiff LIBPNG_SRC=libpng1.6
win_libs() { # -> $WIN_LIBS/{include,lib}; log in $WIN_LIBS/build.log
    local w=$WIN_LIBS apt src tiff png jobs
    apt=(apt-get -q -o Dir::Etc::SourceList="$w/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
         -o Dir::State::Lists="$w/apt/lists" -o Dir::Cache="$w/apt/cache" -o Debug::NoLocking=1)
    [ -f "$w/lib/libtiff.a" ] && [ -f "$w/lib/libpng16.a" ] && return 0
    rm -rf "$w" && mkdir -p "$w/apt/lists/partial" "$w/apt/cache/archives/partial" "$w/src" "$w/include" "$w/lib" ||
        return 1
    printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
        bookworm bookworm-updates > "$w/apt/sources.list"
    "${apt[@]}" update > "$w/build.log" 2>&1 &&
        (cd "$w/src" && "${apt[@]}" source "$TIFF_SRC" "$LIBPNG_SRC") >> "$w/build.log" 2>&1 || return 1
    tiff=$(find "$w/src" -maxdepth 1 -type d -name 'tiff-*' | head -n 1)
    png=$(find "$w/src" -maxdepth 1 -type d -name 'libpng1.6-*' | head -n 1)
    [ -n "$tiff" ] && [ -n "$png" ] || return 1
    jobs=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 2)
    local cm=(-G "Unix Makefiles" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER="$MINGW_CC" -DCMAKE_CXX_COMPILER="$MINGW_CXX"
              -DCMAKE_FIND_ROOT_PATH=/usr/x86_64-w64-mingw32 -DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER
              -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY -DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY
              -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF)
    # libtiff: zlib's deflate and the built-in codecs (LZW, PackBits, ...); no tools, tests, docs
    cmake -S "$tiff" -B "$w/build-tiff" "${cm[@]}" -Dtiff-tools=OFF -Dtiff-tests=OFF -Dtiff-contrib=OFF \
        -Dtiff-docs=OFF -Dcxx=OFF -Djpeg=OFF -Dold-jpeg=OFF -Djbig=OFF -Dlerc=OFF -Dlzma=OFF -Dwebp=OFF \
        -Dzstd=OFF -Dlibdeflate=OFF -Dzlib=ON >> "$w/build.log" 2>&1 &&
        cmake --build "$w/build-tiff" --target tiff -j "$jobs" >> "$w/build.log" 2>&1 &&
        cmake -S "$png" -B "$w/build-png" "${cm[@]}" -DPNG_SHARED=OFF -DPNG_EXECUTABLES=OFF -DPNG_TESTS=OFF \
            >> "$w/build.log" 2>&1 &&
        cmake --build "$w/build-png" --target png_static -j "$jobs" >> "$w/build.log" 2>&1 &&
        cp "$tiff"/libtiff/{tiff.h,tiffio.h,tiffvers.h} "$w/build-tiff/libtiff/tiffconf.h" "$png"/{png.h,pngconf.h} \
            "$w/build-png/pnglibconf.h" "$w/include/" &&
        cp "$w/build-tiff/libtiff/libtiff.a" "$w/build-png/libpng16.a" "$w/lib/"
}
CLI_FLAGS=(-std=c99 -O2 "${FLAGS[@]}" -DHST_NO_OPENCL -DESRRF_NO_FFT -I. -Iexamples)
STACK=examples/data/fkbp_confocal_50x256x256_u8.tif
CLI_ARGS=(--device host --mode avg,var,tac2)   # the demo's (Makefile: DEMO_CMD), on the host device
CLI_FILES="esrrf_avg.tif esrrf_var.tif esrrf_tac2.tif esrrf_preview.png"
rm -rf "$OUT/cli-linux" "$OUT/cli-windows" && mkdir -p "$OUT/cli-linux" "$OUT/cli-windows"
$CC "${CLI_FLAGS[@]}" examples/esrrf.c -o "$OUT/esrrf-linux" -ltiff -lpng -lm -lpthread > "$OUT/cli-linux.log" 2>&1
tap $? "build examples/esrrf.c for Linux ($CC -O2)" "$OUT/cli-linux.log"
t0=$(date +%s)
if ! win_libs; then
    # no silent skip: without the libraries the Windows program cannot be checked
    echo "# libtiff and libpng for mingw-w64 could not be fetched or built (log: $WIN_LIBS/build.log)"
    tail -n 5 "$WIN_LIBS/build.log" 2> /dev/null | sed 's/^/# /'
    if [ "${CI:-}" = true ]; then tap 1 "libtiff and libpng for mingw-w64 from Debian's sources"; fi
else
    tap 0 "libtiff and libpng for mingw-w64 from Debian's sources ($(( $(date +%s) - t0 )) s)"
    $MINGW_CC "${CLI_FLAGS[@]}" -I"$WIN_LIBS/include" examples/esrrf.c -o "$OUT/esrrf.exe" -static \
        -L"$WIN_LIBS/lib" -ltiff -lpng16 -lz -lm > "$OUT/cli-windows.log" 2>&1
    tap $? "build examples/esrrf.c for Windows ($MINGW_CC -O2 -static)" "$OUT/cli-windows.log"
fi
if [ -x "$OUT/esrrf-linux" ]; then
    t0=$(date +%s)
    "$OUT/esrrf-linux" "${CLI_ARGS[@]}" "$STACK" "$OUT/cli-linux/esrrf.tif" > "$OUT/cli-linux.out" 2>&1
    tap $? "run the CLI on the shipped stack on Linux ($(( $(date +%s) - t0 )) s)" "$OUT/cli-linux.out"
fi
if [ -f "$OUT/esrrf.exe" ]; then
    t0=$(date +%s)
    "$WINE" "$OUT/esrrf.exe" "${CLI_ARGS[@]}" "$STACK" "$OUT/cli-windows/esrrf.tif" 2>&1 | tr -d '\r' \
        > "$OUT/cli-windows.out"
    tap "${PIPESTATUS[0]}" "run the CLI on the shipped stack under Wine ($(( $(date +%s) - t0 )) s)" \
        "$OUT/cli-windows.out"
    for f in $CLI_FILES; do
        a=$(sha256sum < "$OUT/cli-linux/$f" 2> /dev/null | cut -c1-16)
        b=$(sha256sum < "$OUT/cli-windows/$f" 2> /dev/null | cut -c1-16)
        [ -s "$OUT/cli-linux/$f" ] && cmp -s "$OUT/cli-linux/$f" "$OUT/cli-windows/$f"
        tap $? "CLI output $f the same bytes on Windows (sha256 ${b:-missing}) as on Linux (${a:-missing})"
    done
    # an error path: a missing input, the same status and message (the program's name aside)
    "$OUT/esrrf-linux" "${CLI_ARGS[@]}" "$OUT/no-such.tif" "$OUT/cli-linux/x.tif" > /dev/null 2> "$OUT/cli-missing-linux.err"
    st_l=$?
    "$WINE" "$OUT/esrrf.exe" "${CLI_ARGS[@]}" "$OUT/no-such.tif" "$OUT/cli-windows/x.tif" 2>&1 > /dev/null |
        tr -d '\r' > "$OUT/cli-missing-windows.err"
    st_w=${PIPESTATUS[0]}
    msg_l=$(sed 's/^[^:]*esrrf[^:]*: //' "$OUT/cli-missing-linux.err" | head -n 1)
    msg_w=$(sed 's/^[^:]*esrrf[^:]*: //' "$OUT/cli-missing-windows.err" | head -n 1)
    [ "$st_l" != 0 ] && [ "$st_w" = "$st_l" ] && [ -n "$msg_l" ] && [ "$msg_w" = "$msg_l" ]
    tap $? "CLI with a missing input: status $st_w and '$msg_w' under Wine, $st_l and '$msg_l' on Linux"
fi

echo "1..$N"
[ $FAILS = 0 ]
