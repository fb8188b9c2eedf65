#!/bin/sh
# esrrf_cpu_compare.sh — the whole shipped stack through the esrrf CLI, built at an older
# revision and at this tree, back to back in one run, from a cold start each time (empty PoCL
# and program caches), on the host device (the C twins, all cores) and on PoCL (--device cpu).
#
#     sh bench/esrrf_cpu_compare.sh [OLD_REV]      (default 2a8c0a8: before the row twin)
#
# Prints wall seconds (and user + system CPU seconds) per run; the outputs of the old and new
# binaries on each device are compared byte for byte (cmp). Needs git, cc, libtiff, libpng, FFTW.
set -eu
OLD_REV=${1:-2a8c0a8}
IN=examples/data/fkbp_confocal_50x256x256_u8.tif
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/old"
git archive "$OLD_REV" | tar -x -C "$T/old"
cc -std=c99 -O2 -I"$T/old" "$T/old/examples/esrrf.c" -o "$T/esrrf_old" -ltiff -lpng -lfftw3f -lfftw3 -lOpenCL -lm -lpthread
cc -std=c99 -O2 -I. examples/esrrf.c -o "$T/esrrf_new" -ltiff -lpng -lfftw3f -lfftw3 -lOpenCL -lm -lpthread
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for dev in host cpu; do
    for v in old new; do
        rm -rf "$T/pocl" "$T/hst"; mkdir -p "$T/pocl" "$T/hst"
        s=$(date +%s.%N)
        POCL_CACHE_DIR="$T/pocl" HST_CACHE_DIR="$T/hst" /usr/bin/time -f "%U %S" -o "$T/cpu" \
            "$T/esrrf_$v" --device "$dev" --fused -q "$IN" "$T/$v-$dev.tif"
        e=$(date +%s.%N)
        echo "$dev $v: $(echo "$e - $s" | bc) s wall, $(awk '{print $1 + $2}' "$T/cpu") s CPU (50 frames 256x256, mag 5, radius 1.5)"
    done
    if cmp -s "$T/old-$dev.tif" "$T/new-$dev.tif"; then echo "$dev: old and new outputs identical"
    else echo "$dev: old and new outputs DIFFER"; fi
done
