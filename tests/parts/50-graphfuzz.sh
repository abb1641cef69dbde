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
B=${1:?usage: 50-graphfuzz.sh BUILD_DIR MODELDIR}
PZ="$B/paleozoic"
D=$(dirname "$0")/../fuzz/graph
COUNT=${GRAPHFUZZ_COUNT:-300}
# under a sanitizer the first 100 of the same models (PZ_TEST_FULL=1: 300)
case "$B" in *san*) [ "${PZ_TEST_FULL:-0}" = 1 ] || COUNT=${GRAPHFUZZ_COUNT:-100} ;; esac
SEED=${GRAPHFUZZ_SEED:-1}
pass=0
fail=0
if ! command -v node >/dev/null 2>&1 || [ ! -d "$D/../../../node_modules/onnxruntime-node" ]; then
    echo "FAIL node or node_modules/onnxruntime-node missing (tools/setup.sh installs them)"
    echo "graphfuzz: 0 passed, 1 failed"
    exit 1
fi
EXTRA=
case "$B" in *san*) EXTRA="--no-minimize --jobs 2" ;; esac
T=$(mktemp)
trap 'rm -f "$T"' EXIT
add() {   # add LOG: counts the last "graphfuzz: N passed, N failed" line of LOG
    line=$(grep '^graphfuzz: ' "$1" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^graphfuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^graphfuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then fail=$((fail + 1)); echo "FAIL graphfuzz.js printed no summary"; return; fi
    pass=$((pass + p)); fail=$((fail + f))
}
node "$D/graphfuzz.js" replay --pz "$PZ" >"$T" 2>&1
grep -E '^(ok|FAIL) ' "$T"
add "$T"
echo "random models: --seed $SEED --count $COUNT"
node "$D/graphfuzz.js" --pz "$PZ" --seed "$SEED" --count "$COUNT" --stats $EXTRA 2>&1 |
    grep -v -E 'onnxruntime:|^\s*$' >"$T"
grep -E '^(FAIL|     minimized|models:|findings:)' "$T"
add "$T"
echo "graphfuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
