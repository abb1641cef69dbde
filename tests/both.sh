#!/bin/sh
# both.sh [BUILD_DIR] - the suite on the optimized build, then under ASan+UBSan (`make
# test`, and so `make check` and CI). The sanitizer build (minutes on two
# cores) compiles on one core while the optimized suite, mostly one process
# at a time, runs on the other; its log is shown only if it fails. Both
# suites run even if the first fails; exits non-zero if either failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=${1:-build}
MAKE=${MAKE:-make}
log=$(mktemp)
trap 'rm -f "$log" "$log.rc"' EXIT
( $MAKE --no-print-directory SAN=1 -j1 all >"$log" 2>&1; echo $? >"$log.rc" ) &
san_pid=$!
./tests/run.sh "$B"
opt_rc=$?
echo "== waiting for the sanitizer build (make SAN=1 all)"
wait "$san_pid"
san_build_rc=$(cat "$log.rc" 2>/dev/null || echo 1)
rm -f "$log.rc"
if [ "$san_build_rc" -ne 0 ]; then
    tail -n 60 "$log"
    echo "FAIL make SAN=1 all (exit $san_build_rc)"
    echo "0 passed, 1 failed"
    exit 1
fi
./tests/run.sh build-san
san_rc=$?
[ "$opt_rc" -eq 0 ] && [ "$san_rc" -eq 0 ]
