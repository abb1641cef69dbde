#!/bin/sh
# bench/forkjoin/run.sh [BUILD_DIR] - the cost of one fork-join of the
# runtime's thread pool (pz_pool_run of an empty task at nth = 2), median over
# RUNS calls (default 100000). Builds the runtime library with make into
# BUILD_DIR (default build/), then bench/forkjoin/forkjoin.c against it.
# Goal: under 2 us. On a machine shared with other work the median rises
# (a worker that was descheduled answers late): compare on an idle one.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
CC=${CC:-cc}
cd "$ROOT"
make -s BUILD="$B" -j2 "$B/libpzrt.a"
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Isrc -I"$B/gen" \
    -o "$B/bench_forkjoin" bench/forkjoin/forkjoin.c "$B/libpzrt.a" -lm -lpthread
exec "$B/bench_forkjoin" --runs "${RUNS:-100000}"
