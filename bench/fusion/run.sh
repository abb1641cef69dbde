#!/bin/sh
# bench/fusion/run.sh [BUILD_DIR] [ROUNDS] - fused vs unfused F-Blocks side by
# side (see fusion.c): VGG-16 conv1_1+conv1_2 at 224x224, two MobileNetV2
# inverted residual blocks, two ResNet-18 basic blocks; MP 1 and 2; medians
# of ROUNDS interleaved rounds (default 15); strip chosen by the runtime;
# redundant MACs of bands, row windows. Goal: MobileNetV2 inverted residuals >= 1.2x faster
# fused. Runs with PZ_WINOGRAD=0 (direct convs: the kernels that fuse; a
# Winograd layer runs unfused) unless PZ_WINOGRAD is set.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j1 "$B/libpzrt.a" "$B/libpzio.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -march=native -Wall -Wextra -Isrc -Isrc/rt -I"$B/gen" \
    -o "$B/bench_fusion" bench/fusion/fusion.c "$B/libpzrt.a" "$B/libpzio.a" -lm -lpthread
PZ_WINOGRAD=${PZ_WINOGRAD:-0} exec "$B/bench_fusion" "${2:-15}"
