#!/bin/sh
# 39-flex.sh BUILD_DIR - FlexAttention with its graph attributes (issue 39)
# beyond the node suite's cases: grouped query heads, the per-element
# subgraph forms (score_mod and prob_mod of 5 inputs, mask_mod of 4) and the
# whole-tensor form, each through `paleozoic run` against numpy's float64
# reference written by tests/transformer/flex_models.py (max|err|/max|ref|
# <= 1e-5); a subgraph of the wrong input count exits 2 naming the
# attribute. Ends with `N passed, N failed`.
set -u
NAME=39-flex
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_py" = 1 ] && command -v node >/dev/null ||
    skip_part "needs python3-onnx and node (tools/setup.sh)"

d="$T/models"
mkdir -p "$d"
"$PY" "$ROOT/tests/transformer/flex_models.py" "$d" >"$d/names" 2>"$T/log" ||
    { bad "flex_models.py: $(tail -c 400 "$T/log")"; finish; }
while read -r name rest; do
    if [ "$name" = bad ]; then
        # shellcheck disable=SC2086
        set -- $rest
        refuse "$1 refused" "'$2'" "$PZ" run "$d/$1.onnx" --input "$d/$1.Q.pb" \
            --input "$d/$1.K.pb" --input "$d/$1.V.pb" --output "$T/y.pb"
        continue
    fi
    m="$d/$name"
    check "$name: run vs numpy" sh -c "'$PZ' run '$m.onnx' --input '$m.Q.pb' --input '$m.K.pb' \
        --input '$m.V.pb' --output '$m.pz.pb' && node '$E2E/compare.js' --rel 1e-5 '$m.pz.pb' '$m.ref.pb'"
done <"$d/names"
finish
