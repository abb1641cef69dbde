#!/bin/sh
# bench/bf16/run.sh [BUILD_DIR] - the bf16 convolutions against the fp32
# ones, layer by layer at 1 thread (bench/bf16/convs.c): builds the runtime
# library with make into BUILD_DIR (default build/), then convs.c against
# it, and runs it pinned to one CPU when taskset is there, after
# dp_rate.c (vdpbf16ps's instruction rate against an fp32 FMA's). MIN_TIME
# (seconds per layer, default 0.3); ONLY=NET or part of a layer name.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j2 "$B/libpzrt.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -march=native -Wall -Wextra -Isrc -I"$B/gen" \
    -o "$B/bench_bf16" bench/bf16/convs.c "$B/libpzrt.a" -lm -lpthread
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$B/bench_dp_rate" bench/bf16/dp_rate.c
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c ${CPU:-1}"
$pin "$B/bench_dp_rate"
set -- --min-time "${MIN_TIME:-0.3}"
[ -n "${ONLY:-}" ] && set -- "$@" --only "$ONLY"
exec $pin "$B/bench_bf16" "$@"
