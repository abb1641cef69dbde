#!/bin/sh
# bench/kernels/run.sh [BUILD_DIR] [ISA] - GFLOP/s of the fast kernels at 1
# thread on every conv and FC layer of ResNet-18 and MobileNetV2, against the
# FMA peak and the memory bandwidth measured in the same run (see kernels.c).
#
# Builds the runtime library with make into BUILD_DIR (default build/), then
# bench/kernels/kernels.c with cc -O2 -march=native against it, and runs it on
# ISA (avx512, avx2 or scalar; default avx512). MIN_TIME (seconds per layer,
# default 0.25) trades time for steadier medians. Goals: 3x3 and 1x1 conv
# >= 85% of peak, depthwise and FC >= 70% of their roofline.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
ISA=${2:-avx512}
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j2 "$B/libpzrt.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -march=native -Wall -Wextra -Isrc -I"$B/gen" \
    -o "$B/bench_kernels" bench/kernels/kernels.c "$B/libpzrt.a" -lm -lpthread
# pin to one CPU when taskset is there: the kernels run at 1 thread
if command -v taskset >/dev/null 2>&1; then
    exec taskset -c "${CPU:-1}" "$B/bench_kernels" --isa "$ISA" --min-time "${MIN_TIME:-0.25}"
fi
exec "$B/bench_kernels" --isa "$ISA" --min-time "${MIN_TIME:-0.25}"
