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
#      VLAs, GNU extensions unguarded).
# Prints one TAP line per comparison, check and compile ("ok N - ..." / "not ok N - ..."),
# then "1..N"; exits non-zero if any failed. A missing mingw-w64 or Wine is a failure where
# CI=true (.ci/run), else the script says so and exits 0 having checked nothing.
# Environment: BUILD (default build; outputs go to $BUILD/windows), CC (the Linux compiler,
# default cc), MINGW_CC, MINGW_CXX (default x86_64-w64-mingw32-gcc-win32 / -g++-win32, else
# the unsuffixed names), WINE (default /usr/lib/wine/wine64, else wine64, wine), CLANG
# (default clang), FMAF_INPUTS (generated fmaf inputs per Windows run, default 10^7), HEADERS
# (default: the four headers above).
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

echo "1..$N"
[ $FAILS = 0 ]
