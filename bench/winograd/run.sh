#!/bin/sh
# bench/winograd/run.sh [BUILD_DIR] [ISA] - Winograd F(4x4,3x3) against the
# direct NCHW16c conv at 1 thread, on the 3x3 stride-1 layers of ResNet-18 and
# VGG-16: per layer the median ms of each, effective GFLOP/s (the direct
# conv's FLOPs / time), the speed-up and the normalised difference of the two
# outputs; per network the time of all its 3x3 stride-1 layers, direct and
# with the faster of the two per layer (see winograd.c).
#
# Builds the runtime library with make into BUILD_DIR (default build/), then
# bench/winograd/winograd.c against it, and runs it on ISA (avx512 or scalar;
# default avx512), pinned to one CPU when taskset is there. MIN_TIME (seconds
# per layer, default 0.3) trades time for steadier medians; ONLY=resnet18 or
# ONLY=vgg16 runs one network.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
ISA=${2:-avx512}
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j2 "$B/libpzrt.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -march=native -Wall -Wextra -Isrc -I"$B/gen" \
    -o "$B/bench_winograd" bench/winograd/winograd.c "$B/libpzrt.a" -lm -lpthread
set -- --isa "$ISA" --min-time "${MIN_TIME:-0.3}"
[ -n "${ONLY:-}" ] && set -- "$@" --only "$ONLY"
if command -v taskset >/dev/null 2>&1; then
    exec taskset -c "${CPU:-1}" "$B/bench_winograd" "$@"
fi
exec "$B/bench_winograd" "$@"
