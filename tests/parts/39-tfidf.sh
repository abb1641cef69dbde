#!/bin/sh
# 39-tfidf.sh BUILD_DIR - TfIdfVectorizer (issue 39): the models of
# tests/text/tfidf_models.py (TF, IDF and TFIDF; int32 and int64; [C] and
# [N, C]; n-grams of 1 to 4 tokens, skips 0 to 3, with and without weights;
# a bigram whose first token is no unigram of the pool) through `paleozoic
# run`, bit for bit against ONNX Runtime 1.17's run of the same model; every
# sixth also through the program `paleozoic build` makes. Bad attributes
# (mode, ngram_counts, ngram_indexes, weights, gram lengths, pool_strings)
# exit 2 naming the attribute. Ends with `N passed, N failed`.
set -u
NAME=39-tfidf
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"
"$PY" "$ROOT/tests/text/tfidf_models.py" "$T" >"$T/names" 2>"$T/log" || {
    bad "tfidf_models.py: $(tail -c 400 "$T/log")"
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
        --output '$m.pz.pb' && node '$E2E/compare.js' --bitwise '$m.pz.pb' '$m.ort.pb'"
    k=$((k + 1))
    [ $((k % 6)) = 1 ] || continue
    check "$name: built program vs ONNX Runtime" sh -c "'$PZ' build '$m.onnx' -o '$m.exe' && \
        '$m.exe' --input '$m.in_0.pb' --output '$m.exe.pb' && \
        node '$E2E/compare.js' --bitwise '$m.exe.pb' '$m.ort.pb'"
done <"$T/names"
finish
