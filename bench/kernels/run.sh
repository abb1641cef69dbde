#!/bin/sh
# bench/kernels/run.sh [BUILD_DIR] [ISA] [ARGS...] - GFLOP/s of the fast
# kernels at 1 thread on every conv, depthwise and FC layer of ResNet-18 and
# MobileNetV2 (and the FC layers of AlexNet and VGG, the GEMMs of a BERT-base
# encoder layer), against the FMA peak
# and the memory bandwidth measured in the same run (see kernels.c).
#
# Builds the runtime library with make into BUILD_DIR (default build/), then
# bench/kernels/kernels.c with cc -O2 -march=native against it, and runs it on
# ISA (avx512, avx2 or scalar; default avx512). ARGS go to the program
# (e.g. --only dw,fc, --rounds 3, --cpu-time on a loaded host). MIN_TIME (seconds per layer, default 0.25) trades time
# for steadier figures. Goals: 3x3 and 1x1 conv >= 85% of peak, depthwise
# and FC >= 70% of their roofline, the encoder's linear layers >= 90% of peak.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
ISA=${2:-avx512}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j1 "$B/libpzrt.a" "$B/libpzio.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -march=native -Wall -Wextra -Isrc -Isrc/rt -I"$B/gen" \
    -o "$B/bench_kernels" bench/kernels/kernels.c "$B/libpzrt.a" "$B/libpzio.a" -lm -lpthread
# pin to one CPU when taskset is there: the kernels run at 1 thread
if command -v taskset >/dev/null 2>&1; then
    exec taskset -c "${CPU:-1}" "$B/bench_kernels" --isa "$ISA" --min-time "${MIN_TIME:-0.25}" "$@"
fi
exec "$B/bench_kernels" --isa "$ISA" --min-time "${MIN_TIME:-0.25}" "$@"
