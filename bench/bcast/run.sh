#!/bin/sh
# bench/bcast/run.sh [BUILD_DIR] [ARGS...] - the fast twins of
# rt/kernels/bcast_fast.h (Where, Expand, Gather*, f32 binary) against
# their references at one thread (bench/bcast/bcast.c: interleaved,
# medians). Builds the runtime library into BUILD_DIR (default build/).
# On a shared machine run it under a lock: flock /tmp/pz_bench.lock sh bench/bcast/run.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
[ $# -gt 0 ] && shift
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" "$B/libpzrt.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Isrc -I"$B/gen" \
    -o "$B/bench_bcast" bench/bcast/bcast.c "$B/libpzrt.a" -lm -lpthread
exec "$B/bench_bcast" "$@"
