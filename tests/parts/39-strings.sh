#!/bin/sh
# 39-strings.sh BUILD_DIR - string tensors and the string ops (issue 39):
# each model of tests/text/string_models.py through `paleozoic run` against
# ONNX Runtime 1.17's run of it, every output equal string for string (or
# bit for bit): Equal and StringConcat with broadcasting and rank 0,
# RegexFullMatch on RE2 patterns the translation takes, StringSplit with
# each delimiter form and maxsplit, StringNormalizer (case maps, stopwords,
# [C] and [1, C]), LabelEncoder (string, int64 and float keys, the tensor
# forms of opset 4), and strings made and read inside a graph (also as a
# built program, bitwise equal to run). Then refusals, exit 2 naming what
# is wrong: RE2 features the translation refuses, a bad regex, mixed types,
# bad attributes, a StringSplit input only known at run time, and
# `paleozoic build` of a model with string inputs. Ends with `N passed, N
# failed`.
set -u
NAME=39-strings
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"

d="$T/strings"
mkdir -p "$d"
"$PY" "$ROOT/tests/text/string_models.py" "$d" >"$d/names" 2>"$T/log" || {
    bad "string_models.py: $(tail -c 400 "$T/log")"
    finish
}
while read -r name nin rest; do
    if [ "$name" = bad ]; then
        # shellcheck disable=SC2086
        set -- $rest
        bname=$nin nin=$1
        shift
        ins=""
        k=0
        while [ "$k" -lt "$nin" ]; do ins="$ins --input $d/$bname.in_$k.pb"; k=$((k + 1)); done
        # shellcheck disable=SC2086
        refuse "$bname refused" "$*" "$PZ" run "$d/$bname.onnx" $ins
        continue
    fi
    m="$d/$name" ins="" pzo="" orto="" k=0
    while [ "$k" -lt "$nin" ]; do ins="$ins $m.in_$k.pb"; k=$((k + 1)); done
    k=0
    while [ "$k" -lt "$rest" ]; do
        pzo="$pzo --output $m.pz_$k.pb"
        orto="$orto $m.ort_$k.pb"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    if ! node "$E2E/ort_run.js" "$m.onnx" $ins -- $orto >"$T/log" 2>&1; then
        bad "$name: ONNX Runtime: $(tail -c 300 "$T/log")"
        continue
    fi
    # shellcheck disable=SC2086
    "$PZ" run "$m.onnx" $(for f in $ins; do printf ' --input %s' "$f"; done) $pzo \
        >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] || ! clean "$T/log"; then
        bad "$name: paleozoic run exited $rc: $(tail -c 300 "$T/log")"
        continue
    fi
    k=0 why=""
    while [ "$k" -lt "$rest" ]; do
        node "$E2E/compare.js" --bitwise "$m.pz_$k.pb" "$m.ort_$k.pb" >"$T/cmp" 2>&1 ||
            why="$why output $k: $(cat "$T/cmp")"
        k=$((k + 1))
    done
    if [ -z "$why" ]; then ok "$name: run = ONNX Runtime"; else bad "$name:$why"; fi
done <"$d/names"

# strings made and read inside a graph: the built program as run
check "chain: built program = run" sh -c "'$PZ' build '$d/chain.onnx' -o '$T/chain.exe' && \
    '$T/chain.exe' --input '$d/chain.in_0.pb' --output '$T/chain.exe.pb' && \
    node '$E2E/compare.js' --bitwise '$T/chain.exe.pb' '$d/chain.pz_0.pb'"
# a generated program takes no string input: refused, naming it
refuse "build of a string-input model refused" 'graph input "A" is a string tensor' \
    "$PZ" build "$d/concat_0.onnx" -o "$T/concat.exe"
finish
