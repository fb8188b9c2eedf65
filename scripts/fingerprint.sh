#!/usr/bin/env bash
# scripts/fingerprint.sh TREE OUT — the SHA-256 of every numerical result of the halostream tree
# TREE (a checkout: its headers, Makefile and examples/), on the host device and on the OpenCL CPU
# device (PoCL), for before/after comparisons of a change that must not move a bit.
#
# Prints one line per result, sorted: `<name> <device> <sha256>` (also in OUT/fingerprint.txt);
# a failed result prints `<name> <device> FAILED: <why>` and the exit status is 1. Compare two
# trees with: diff OUT_BEFORE/fingerprint.txt OUT_AFTER/fingerprint.txt
#
# What it runs, per device (FP_DEVICES, default "host cpu"; each a $HST_DEVICE selector):
#   - tests/reliability/fingerprint.c (of THIS checkout, compiled against TREE's headers): the
#     library's calls (esrrf.h batch and live, halo.h, quality.h, nufft.h, array.h, stream.h) on
#     inputs it makes; each result's bytes hashed (OUT/<device>/api/<name>.bin, kept for a diff);
#   - TREE's eSRRF CLI (make -C TREE BUILD=OUT/build OUT/build/examples/esrrf) on the shipped stack
#     examples/data/fkbp_confocal_50x256x256_u8.tif: the pixels of every output TIFF (the files'
#     tags carry the library's version, so the pixels are hashed, not the files):
#       cli_all_modes    --mode avg,var,tac2 --quality (all 50 frames; also the error map)
#       cli_fpt10        --mode avg,var,tac2 --frames-per-timepoint 10 --max-frames 20
#       cli_chained_raw  --mode avg,var,tac2 --no-macro-pixel --chained --mag 2 --max-frames 6
#     (the last two on fewer frames: the paths, not the data, are what they cover; the chained
#     path is the slow one: about 3x the fused one's time per frame at mag 5 on the host device,
#     12 frames at mag 3 took 3 min on a loaded 2-core machine).
# Caches (HST_CACHE_DIR, POCL_CACHE_DIR) live under OUT, so runs neither read nor change anyone
# else's timings or programs. Logs: OUT/<device>/*.log.
#
# Builds are incremental: a second run into the same OUT rebuilds nothing that is up to date and
# finds its caches warm (the results must not depend on either).
# Time on the 2-core machine: the builds 1.5-2 min of CPU; the runs about 45 s on the host device
# and 2-3 min on PoCL when it is lightly loaded (PoCL's first run also builds the kernels into
# OUT's cache: about 75 s more); at a load average of 20-25, 4.5 and 9 min (13.5 min in all).
set -u

usage() { echo "usage: $0 TREE OUT   (FP_DEVICES=\"host cpu\")" >&2; exit 2; }
[ $# -eq 2 ] || usage
[ -f "$1/esrrf.h" ] || { echo "$0: $1 is not a halostream tree (no esrrf.h)" >&2; exit 2; }
TREE=$(cd "$1" && pwd)
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC="$HERE/tests/reliability/fingerprint.c"
DEVICES=${FP_DEVICES:-host cpu}
STACK="$TREE/examples/data/fkbp_confocal_50x256x256_u8.tif"
CC=${CC:-cc}

export HST_CACHE_DIR="$OUT/cache" POCL_CACHE_DIR="$OUT/pocl-cache"
mkdir -p "$HST_CACHE_DIR" "$POCL_CACHE_DIR" "$OUT/build"
unset HST_FORCE HST_LOG
status=0
t0=$(date +%s)

echo "fingerprint: building $OUT/build/examples/esrrf and $OUT/build/fingerprint from $TREE" >&2
nice make -s -C "$TREE" BUILD="$OUT/build" "$OUT/build/examples/esrrf" > "$OUT/build.log" 2>&1 ||
    { cat "$OUT/build.log" >&2; exit 1; }
# (again only where the program is older than its source or a header of the tree)
FP="$OUT/build/fingerprint"
if [ ! -x "$FP" ] || [ "$SRC" -nt "$FP" ] || [ -n "$(find "$TREE" -name '*.h' -newer "$FP" | head -n 1)" ]; then
    nice "$CC" -std=c99 -O2 -I"$TREE" "$SRC" -o "$FP" \
        -ltiff -lfftw3f -lfftw3 -lOpenCL -lm -lpthread >> "$OUT/build.log" 2>&1 ||
        { cat "$OUT/build.log" >&2; exit 1; }
fi
t1=$(date +%s)

# cli DEVICE NAME OPTIONS...: one CLI run; every output TIFF's pixels to DIR/NAME_<mode>.bin
cli() {
    local dev=$1 name=$2 dir="$OUT/$1/cli" f mode rc
    shift 2
    mkdir -p "$dir/tif"
    HST_DEVICE=$dev "$OUT/build/examples/esrrf" --device "$dev" --no-preview "$@" \
        "$STACK" "$dir/tif/$name.tif" > "$OUT/$dev/$name.log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        echo "CLI exit $rc, see $OUT/$dev/$name.log" > "$dir/$name.failed"
        return
    fi
    for f in "$dir/tif/$name"_*.tif; do
        mode=${f##*/"$name"_}
        mode=${mode%.tif}
        "$FP" --tiff "$f" "$dir/${name}_$mode.bin" ||
            echo "cannot read $f" > "$dir/${name}_$mode.failed"
    done
}

# hashes DEVICE DIR: the lines of DIR's results
hashes() {
    local dev=$1 dir=$2 f
    for f in "$dir"/*.bin; do
        [ -e "$f" ] || continue
        printf '%s %s %s\n' "$(basename "$f" .bin)" "$dev" "$(sha256sum < "$f" | cut -d' ' -f1)"
    done
    for f in "$dir"/*.failed; do
        [ -e "$f" ] || continue
        printf '%s %s FAILED: %s\n' "$(basename "$f" .failed)" "$dev" "$(head -n 1 "$f")"
    done
}

: > "$OUT/fingerprint.unsorted"
for dev in $DEVICES; do
    ts=$(date +%s)
    rm -rf "${OUT:?}/$dev"
    mkdir -p "$OUT/$dev/api"
    HST_DEVICE=$dev "$FP" "$OUT/$dev/api" > "$OUT/$dev/api.log" 2>&1 ||
        echo "exit $? (see $OUT/$dev/api.log)" > "$OUT/$dev/api/fingerprint_program.failed"
    cli "$dev" cli_all_modes --mode avg,var,tac2 --quality
    cli "$dev" cli_fpt10 --mode avg,var,tac2 --frames-per-timepoint 10 --max-frames 20
    cli "$dev" cli_chained_raw --mode avg,var,tac2 --no-macro-pixel --chained --mag 2 --max-frames 6
    { hashes "$dev" "$OUT/$dev/api"; hashes "$dev" "$OUT/$dev/cli"; } >> "$OUT/fingerprint.unsorted"
    echo "fingerprint: $dev done in $(( $(date +%s) - ts )) s" >&2
done
sort "$OUT/fingerprint.unsorted" > "$OUT/fingerprint.txt"
rm -f "$OUT/fingerprint.unsorted"
cat "$OUT/fingerprint.txt"
grep -q ' FAILED: ' "$OUT/fingerprint.txt" && status=1
echo "fingerprint: $(wc -l < "$OUT/fingerprint.txt") results; builds $(( t1 - t0 )) s, runs $(( $(date +%s) - t1 )) s" >&2
exit $status
