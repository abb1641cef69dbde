#!/bin/sh
# both.sh [BUILD_DIR] - the suite on the optimized build and under ASan+UBSan
# (`make test`; `make check`, and so CI, with FUZZ=30: the fuzzers too). One
# queue, two workers (tests/run.sh -j 2): the sanitizer build (minutes) is the
# first job, and its suite's jobs wait for it while the optimized suite's run
# on the other worker; the fuzz build and the fuzzers, when asked, join the
# queue. A failed sanitizer build fails its jobs without running them.
# Exits non-zero if anything failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
FUZZ=${FUZZ:-0}
exec ./tests/run.sh -j "${PZ_TEST_JOBS:-2}" --san-build --fuzz "$FUZZ" "$B" build-san
