#!/bin/sh
# 50-graphfuzz.sh BUILD_DIR MODELDIR - the differential graph fuzzer (issue 38):
# tests/fuzz/graph/graphfuzz.js replays every regression model in
# tests/fuzz/graph/regress/ (paleozoic run against the stored ONNX Runtime
# outputs), then runs GRAPHFUZZ_COUNT (default 300) random models with seed
# GRAPHFUZZ_SEED (default 1: the suite, and so CI, runs the same models every
# time; new seeds are for `make graphfuzz`, the long run) through `paleozoic run` under random knobs and ONNX
# Runtime 1.17, three of them also through `paleozoic build`. A finding is
# minimized into tests/fuzz/graph/regress/ (review and commit it). Under a
# sanitizer build (BUILD_DIR with "san") the first 100 of them run without
# minimization (PZ_TEST_FULL=1: all 300). Measured on the 2-core host under load 5-6 from other
# builds: 22 s with build/, 2 min 35 s with build-san/. MODELDIR is not used.
set -u
NAME=50-graphfuzz
. "$(dirname "$0")/lib.sh"
part_init "$@"
D=$ROOT/tests/fuzz/graph
COUNT=${GRAPHFUZZ_COUNT:-300}
# under a sanitizer the first 100 of the same models (PZ_TEST_FULL=1: 300)
[ "$san" = 1 ] && [ "$full" = 0 ] && COUNT=${GRAPHFUZZ_COUNT:-100}
SEED=${GRAPHFUZZ_SEED:-1}
if [ "$have_ort" = 0 ]; then
    bad "node or node_modules/onnxruntime-node missing (tools/setup.sh installs them)"
    finish
fi
EXTRA=
[ "$san" = 1 ] && EXTRA="--no-minimize --jobs 2"
add() {   # add LOG: counts the last "graphfuzz: N passed, N failed" line of LOG
    line=$(grep '^graphfuzz: ' "$1" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^graphfuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^graphfuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then bad "graphfuzz.js printed no summary"; return; fi
    pass=$((pass + p)); fail=$((fail + f))
}
node "$D/graphfuzz.js" replay --pz "$PZ" >"$T/log" 2>&1
grep -E '^(ok|FAIL) ' "$T/log"
add "$T/log"
echo "random models: --seed $SEED --count $COUNT"
node "$D/graphfuzz.js" --pz "$PZ" --seed "$SEED" --count "$COUNT" --stats $EXTRA 2>&1 |
    grep -v -E 'onnxruntime:|^\s*$' >"$T/log"
grep -E '^(FAIL|     minimized|models:|findings:)' "$T/log"
add "$T/log"
finish
