#!/usr/bin/env bash
# scripts/compile_cost.sh TREE — what compiling a halostream header's implementation costs: for
# each header (CC_HEADERS, default "backend.h array.h esrrf.h"), a C file that defines
# HST_IMPLEMENTATION and includes just that header, compiled by `$CC -std=c99 -O2 -c -I TREE`
# (CC: cc) with OpenCL and with -DHST_NO_OPENCL: the best wall time and the best CPU time (user +
# system, the compiler's own) of CC_RUNS (3) compiles, the object's text + data (`size -t`'s
# total line) and the .o file's bytes, as a table. The load averages before and after are
# printed: on a busy machine the wall times grow with the load, the CPU times much less (compare
# CPU times across runs made under different loads); the sizes do not depend on it.
set -u

[ $# -eq 1 ] && [ -f "$1/backend.h" ] || { echo "usage: $0 TREE   (TREE: a halostream checkout)" >&2; exit 2; }
TREE=$(cd "$1" && pwd)
CC=${CC:-cc}
RUNS=${CC_RUNS:-3}
HEADERS=${CC_HEADERS:-backend.h array.h esrrf.h}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compile_cost.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }

# "WALL_MS CPU_MS" of one compile (the compiler's user + system time, its children included)
compile_once() {
    local times
    times=$(/usr/bin/time -f '%e %U %S' "$CC" -std=c99 -O2 -c -I"$TREE" "$@" 2>&1 >/dev/null) || return 1
    echo "$times" | awk 'END { printf "%d %d\n", $1 * 1000 + 0.5, ($2 + $3) * 1000 + 0.5 }'
}
ms3() { printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }

echo "compile cost of $TREE ($("$CC" --version | head -n 1); $(nproc) cores)"
echo "load average before: $(load)"
printf '%-10s %-8s %8s %8s %12s %12s\n' header config wall_s cpu_s text+data obj_bytes
status=0
for h in $HEADERS; do
    for config in opencl noocl; do
        c="$WORK/${h%.h}_$config.c"
        o="${c%.c}.o"
        printf '#define HST_IMPLEMENTATION\n#include "%s"\n' "$h" > "$c"
        flags=""
        [ $config = noocl ] && flags="-DHST_NO_OPENCL"
        wall="" cpu=""
        for _ in $(seq "$RUNS"); do
            # shellcheck disable=SC2086  # flags: zero or one word
            t=$(compile_once $flags "$c" -o "$o") || { echo "$h ($config): the compile failed" >&2; status=1; wall=""; break; }
            set -- $t
            if [ -z "$wall" ] || [ "$1" -lt "$wall" ]; then wall=$1; fi
            if [ -z "$cpu" ] || [ "$2" -lt "$cpu" ]; then cpu=$2; fi
        done
        [ -n "$wall" ] || continue
        td=$(size -t "$o" | awk 'END { print $1 + $2 }')
        printf '%-10s %-8s %8s %8s %12s %12s\n' "$h" "$config" "$(ms3 "$wall")" "$(ms3 "$cpu")" "$td" "$(stat -c %s "$o")"
    done
done
echo "load average after: $(load)"
exit $status
