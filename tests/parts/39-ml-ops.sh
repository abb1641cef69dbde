#!/bin/sh
# 39-ml-ops.sh BUILD_DIR - the text and tree ops (issue 39), each model of a
# generator through `paleozoic run` against ONNX Runtime 1.17's run of it,
# some also as the program `paleozoic build` makes (bitwise equal to run);
# bad attribute sets exit 2 naming what is wrong:
#   tests/text/tfidf_models.py  TfIdfVectorizer: TF, IDF, TFIDF; int32 and
#       int64; [C] and [N, C]; n-grams of 1 to 4 tokens, skips 0 to 3, with
#       and without weights; a bigram whose first token is no unigram of the
#       pool. Bit for bit; every sixth built.
#   tests/text/tree_models.py  TreeEnsembleRegressor: random forests with
#       every branch mode, NaN inputs with and without
#       missing_value_tracks_true, leaves with several targets, base values,
#       each aggregate and post transform, float and double X. Within 1e-5
#       (ONNX Runtime sums in float, we in double); every fifth built.
# TreeEnsemble (opset 5) has no ONNX Runtime 1.17 kernel: its node-suite
# cases are checked by the conformance part. Ends with `N passed, N failed`.
set -u
NAME=39-ml-ops
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"

# cases GENERATOR EVERY COMPARE_OPTION...: the generator's models
cases() {
    gen=$1 every=$2
    shift 2
    d="$T/$(basename "$gen" .py)"
    mkdir -p "$d"
    "$PY" "$ROOT/tests/text/$gen" "$d" >"$d/names" 2>"$T/log" || {
        bad "$gen: $(tail -c 400 "$T/log")"
        return
    }
    k=0
    while read -r name rest; do
        if [ "$name" = bad ]; then
            # shellcheck disable=SC2086
            set -- $rest
            refuse "$1 refused" "$2" "$PZ" run "$d/$1.onnx" --input "$d/$1.in_0.pb"
            continue
        fi
        m="$d/$name"
        if ! node "$E2E/ort_run.js" "$m.onnx" "$m.in_0.pb" -- "$m.ort.pb" >"$T/log" 2>&1; then
            bad "$name: ONNX Runtime: $(tail -c 300 "$T/log")"
            continue
        fi
        check "$name: run vs ONNX Runtime" sh -c "'$PZ' run '$m.onnx' --input '$m.in_0.pb' \
            --output '$m.pz.pb' && node '$E2E/compare.js' $CMP '$m.pz.pb' '$m.ort.pb'"
        k=$((k + 1))
        [ $((k % every)) = 1 ] || continue
        check "$name: built program vs run" sh -c "'$PZ' build '$m.onnx' -o '$m.exe' && \
            '$m.exe' --input '$m.in_0.pb' --output '$m.exe.pb' && \
            node '$E2E/compare.js' --bitwise '$m.exe.pb' '$m.pz.pb'"
    done <"$d/names"
}
CMP=--bitwise cases tfidf_models.py 6
CMP="--rel 1e-5" cases tree_models.py 5
finish
