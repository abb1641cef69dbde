#!/bin/sh
# 39-trees.sh BUILD_DIR - tree ensembles (issue 39): the TreeEnsembleRegressor
# models of tests/text/tree_models.py (random forests: every branch mode, NaN
# inputs with and without missing_value_tracks_true, leaves with several
# targets, base values, each aggregate and post transform, float and double
# X) through `paleozoic run` against ONNX Runtime 1.17 (max|err|/max|ref| <=
# 1e-5: ONNX Runtime sums in float, we in double), every fifth also as the
# program `paleozoic build` makes; bad forests exit 2 naming what is wrong.
# TreeEnsemble (opset 5) has no ONNX Runtime 1.17 kernel: its node-suite
# cases are checked by the conformance part. Ends with `N passed, N failed`.
set -u
NAME=39-trees
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"
"$PY" "$ROOT/tests/text/tree_models.py" "$T" >"$T/names" 2>"$T/log" || {
    bad "tree_models.py: $(tail -c 400 "$T/log")"
    finish
}
k=0
while read -r name rest; do
    if [ "$name" = bad ]; then
        set -- $rest
        refuse "$1 refused" "$2" "$PZ" run "$T/$1.onnx" --input "$T/$1.in_0.pb"
        continue
    fi
    m="$T/$name"
    if ! node "$E2E/ort_run.js" "$m.onnx" "$m.in_0.pb" -- "$m.ort.pb" >"$T/log" 2>&1; then
        bad "$name: ONNX Runtime: $(tail -c 300 "$T/log")"
        continue
    fi
    check "$name: run vs ONNX Runtime" sh -c "'$PZ' run '$m.onnx' --input '$m.in_0.pb' \
        --output '$m.pz.pb' && node '$E2E/compare.js' --rel 1e-5 '$m.pz.pb' '$m.ort.pb'"
    k=$((k + 1))
    [ $((k % 5)) = 1 ] || continue
    check "$name: built program vs run" sh -c "'$PZ' build '$m.onnx' -o '$m.exe' && \
        '$m.exe' --input '$m.in_0.pb' --output '$m.exe.pb' && \
        node '$E2E/compare.js' --bitwise '$m.exe.pb' '$m.pz.pb'"
done <"$T/names"
finish
