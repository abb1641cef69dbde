#!/bin/sh
# 40-maxshape.sh BUILD_DIR - open symbolic dims (issue 40, `--max-shape
# NAME=VALUE`): PyTorch modules exported with dynamic_axes by
# tests/e2e/maxshape.py (its header lists them), each built ONCE with
# --max-shape and run at several sizes within the bound:
#   - the CNN over an open batch at 1, 3 and 8; the MLP with LayerNorm over an
#     open sequence at 1, 3 and 8; the model with both open (Reshape to
#     [B * S, 16]) at (3, 5) and (4, 1); the last step of an open sequence
#     (Gather -1, Slice [-1:] whose start the program computes) at 1, 3 and
#     8; a positional embedding sliced to the open sequence (a folded
#     constant the program reads the start of) at (1, 1), (3, 7), (2, 32);
#     the CNN fused (fuse-all, 2 threads) at 3: each output equal to ONNX
#     Runtime 1.17's (max|err|/max|ref| <= 1e-4), with the run's shape;
#     `paleozoic run --max-shape` the same, and bitwise equal to the program;
#   - a size above the bound refused with exit 2 by the program and by run;
#   - NAME.c's header says the dim is open with its bound, its shapes are
#     expressions of D[k], NAME.h has NAME_N_OPEN;
#   - refusals (exit 2, nothing written): a bound <= 0 or not a number, no
#     "=", a name no input has, a dim a Reshape constant pins, a layer that
#     cannot take the actual size (a strided conv over an open length, a
#     Slice [-2:] clamped at sequence 1, a causal mask folded to [S, S]),
#     --emit raw, --batch with it, a name
#     given twice, a command that does not take it.
# Works under a sanitizer build dir too (the models are small). Ends with
# `N passed, N failed`.
set -u
NAME=40-maxshape
. "$(dirname "$0")/lib.sh"
part_init "$@"
if [ "$have_ort" = 0 ] || ! "$PY" -c 'import onnx, torch' 2>/dev/null; then
    skip_part "needs onnxruntime-node, python3-onnx and torch (tools/setup.sh)"
fi
if ! "$PY" "$E2E/maxshape.py" "$T" >"$T/log" 2>&1; then
    bad "maxshape.py failed: $(tail -c 600 "$T/log")"
    finish
fi

# check_sizes MODEL NOUT KNOBS SIZES...: built once with KNOBS, run at each size
check_sizes() {
    model=$1 nout=$2 knobs=$3
    shift 3
    # shellcheck disable=SC2086
    if ! "$PZ" build "$T/$model.onnx" $knobs -o "$T/$model.exe" >"$T/log" 2>&1; then
        bad "$model: build $knobs failed: $(tail -c 400 "$T/log")"
        return
    fi
    for n in "$@"; do
        x="$T/${model}_$n.pb"
        refs="$T/ref.pb" exeouts="--output $T/exe.pb" runouts="--output $T/run.pb"
        [ "$nout" -eq 2 ] && refs="$refs $T/ref1.pb" exeouts="$exeouts --output $T/exe1.pb" \
            runouts="$runouts --output $T/run1.pb"
        # shellcheck disable=SC2086
        if ! node "$E2E/ort_run.js" "$T/$model.onnx" "$x" -- $refs >"$T/log" 2>&1; then
            bad "$model at $n: ONNX Runtime failed: $(tail -c 300 "$T/log")"
            continue
        fi
        # shellcheck disable=SC2086
        if "$T/$model.exe" --input "$x" $exeouts >"$T/log" 2>&1 &&
            cmp_rel "$T/exe.pb" "$T/ref.pb" >"$T/cmp" 2>&1 &&
            node "$E2E/compare.js" --close 1e-3 1e-5 "$T/exe.pb" "$T/ref.pb" >>"$T/cmp" 2>&1 &&
            { [ "$nout" -eq 1 ] || cmp_rel "$T/exe1.pb" "$T/ref1.pb" >>"$T/cmp" 2>&1; }; then ok
        else bad "$model at $n: the program: $(tail -c 300 "$T/log") $(cat "$T/cmp")"; fi
        # shellcheck disable=SC2086
        if "$PZ" run "$T/$model.onnx" $knobs --input "$x" $runouts >"$T/log" 2>&1 &&
            cmp_rel "$T/run.pb" "$T/ref.pb" >"$T/cmp" 2>&1 &&
            cmp_bit "$T/run.pb" "$T/exe.pb" >>"$T/cmp" 2>&1; then ok
        else bad "$model at $n: run $knobs: $(tail -c 300 "$T/log") $(cat "$T/cmp")"; fi
    done
}
check_sizes cnn 1 "--max-shape batch=8" 1 3 8
check_sizes mlp 1 "--max-shape sequence=8" 1 3 8
check_sizes two 1 "--max-shape batch=4 --max-shape sequence=6" 3_5 4_1
check_sizes last 2 "--max-shape sequence=8" 1 3 8
check_sizes pos 1 "--max-shape batch=4 --max-shape sequence=32" 1_1 3_7 2_32
# fused blocks on 2 threads take the actual size too
if "$PZ" build "$T/cnn.onnx" --max-shape batch=8 --strategy fuse-all --threads 2 -o "$T/fused.exe" >"$T/log" 2>&1 &&
    node "$E2E/ort_run.js" "$T/cnn.onnx" "$T/cnn_3.pb" -- "$T/ref.pb" >>"$T/log" 2>&1 &&
    "$T/fused.exe" --input "$T/cnn_3.pb" --output "$T/exe.pb" >>"$T/log" 2>&1 &&
    cmp_rel "$T/exe.pb" "$T/ref.pb" >>"$T/log" 2>&1; then ok
else bad "cnn --strategy fuse-all --threads 2 at batch 3: $(tail -c 400 "$T/log")"; fi
# the Slice start of `last` is an expression of the open sequence in the C
"$PZ" compile "$T/last.onnx" --max-shape sequence=8 -o "$T/lsrc" >/dev/null 2>&1
if grep -q 'SLICE.*\.start = {0, (D\[0\] - 1)}' "$T/lsrc/last.c"; then ok
else bad "last: the Slice start is not written as D[0] - 1: $(grep SLICE "$T/lsrc/last.c")"; fi

# above the bound: the program and run refuse it (exit 2, naming the dim)
"$PZ" build "$T/cnn.onnx" --max-shape batch=8 -o "$T/cnn.exe" >/dev/null 2>&1
"$T/cnn.exe" --input "$T/cnn_9.pb" --output "$T/x.pb" >"$T/log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q '"batch".*is 9.*1 to 8' "$T/log" && [ ! -e "$T/x.pb" ]; then ok
else bad "the program at batch 9 > 8: expected exit 2 naming batch, got $rc: $(cat "$T/log")"; fi
"$PZ" run "$T/mlp.onnx" --max-shape sequence=8 --input "$T/mlp_9.pb" >"$T/log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q '"sequence").*is 9, above the bound --max-shape sequence=8' "$T/log"; then ok
else bad "run at sequence 9 > 8: expected exit 2, got $rc: $(cat "$T/log")"; fi
# without --input: the program and run take the bound
"$T/cnn.exe" >"$T/log" 2>&1
if grep -q 'output y: float32 \[8,10\]' "$T/log"; then ok; else bad "the program without --input: $(cat "$T/log")"; fi
"$PZ" run "$T/cnn.onnx" --max-shape batch=5 >"$T/log" 2>&1
if grep -q 'output y: float32 5x10' "$T/log"; then ok; else bad "run without --input: $(cat "$T/log")"; fi

# what the generated C says
if "$PZ" compile "$T/two.onnx" --max-shape batch=4 --max-shape sequence=6 -o "$T/src" >"$T/log" 2>&1 &&
    grep -q 'open dim: "batch" (D\[0\]) takes any value from 1 to 4' "$T/src/two.c" &&
    grep -q 'open dim: "sequence" (D\[1\]) takes any value from 1 to 6' "$T/src/two.c" &&
    grep -q 'input:    "x" float32 \[4, 6, 16\]' "$T/src/two.c" &&
    grep -q 'DIMS(D\[0\] \* D\[1\], 16)' "$T/src/two.c" &&
    grep -q '#define TWO_N_OPEN 2' "$T/src/two.h" && grep -q 'two_create_at' "$T/src/two.h"; then ok
else bad "compile --max-shape: the header or shapes do not say the dims are open: $(cat "$T/log")"; fi
if "$PZ" compile "$T/cnn.onnx" --input "$T/cnn_3.pb" -o "$T/src3" >"$T/log" 2>&1 &&
    grep -q '#define CNN_N_OPEN 0' "$T/src3/cnn.h" && ! grep -q 'D\[0\]' "$T/src3/cnn.c"; then ok
else bad "a static compile mentions open dims: $(cat "$T/log")"; fi

# refusals: exit 2, the message naming what is wrong, nothing written
refuse_unwritten() {
    what=$1 pattern=$2
    shift 2
    rm -rf "$T/bad" "$T/bad.exe" "$T/bad.exe.weights"
    "$@" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q -- "$pattern" "$T/log" && [ ! -e "$T/bad.exe" ] && [ ! -e "$T/bad" ]; then ok
    else bad "$what: expected exit 2 matching '$pattern', got $rc: $(tail -c 300 "$T/log")"; fi
}
refuse_unwritten "bound 0" "batch=0: the bound must be a positive" "$PZ" build "$T/cnn.onnx" --max-shape batch=0 -o "$T/bad.exe"
refuse_unwritten "bound -2" "batch=-2: the bound must be a positive" "$PZ" run "$T/cnn.onnx" --max-shape batch=-2
refuse_unwritten "bound x" "batch=x: the bound must be a positive" "$PZ" build "$T/cnn.onnx" --max-shape batch=x -o "$T/bad.exe"
refuse_unwritten "no =" "wants NAME=VALUE" "$PZ" build "$T/cnn.onnx" --max-shape batch -o "$T/bad.exe"
refuse_unwritten "unknown name" 'no input of the model has a dim named "sequence"' "$PZ" build "$T/cnn.onnx" --max-shape sequence=8 -o "$T/bad.exe"
refuse_unwritten "unknown name (run)" 'no input of the model has a dim named "foo"' "$PZ" run "$T/mlp.onnx" --max-shape foo=8
refuse_unwritten "pinned" 'does not let "batch" vary: at batch=2: node "/fc/Gemm"' "$PZ" build "$T/pinned.onnx" --max-shape batch=4 -o "$T/bad.exe"
refuse_unwritten "pinned (run)" 'does not let "batch" vary' "$PZ" run "$T/pinned.onnx" --max-shape batch=4
refuse_unwritten "strided" 'layer "/c/Conv" writes value "y": its dim 2' "$PZ" compile "$T/strided.onnx" --max-shape length=16 -o "$T/bad"
refuse_unwritten "tail2" 'layer "/Slice" writes value "/Slice_output_0": its dim 1 is 2' "$PZ" build "$T/tail2.onnx" --max-shape sequence=8 -o "$T/bad.exe"
refuse_unwritten "mask" 'the constant ".*" (folded from the model) at sequence=2 is not the start' "$PZ" build "$T/mask.onnx" --max-shape sequence=8 -o "$T/bad.exe"
refuse_unwritten "emit raw" "not with --emit raw" "$PZ" build "$T/cnn.onnx" --max-shape batch=8 --emit raw -o "$T/bad.exe"
refuse_unwritten "with --batch" "give one or the other" "$PZ" build "$T/cnn.onnx" --max-shape batch=8 --batch 2 -o "$T/bad.exe"
refuse_unwritten "twice" '"batch" is given twice' "$PZ" build "$T/cnn.onnx" --max-shape batch=8 --max-shape batch=4 -o "$T/bad.exe"
refuse_unwritten "with --input-shape" "not supported together" "$PZ" build "$T/cnn.onnx" --max-shape batch=8 --input-shape x=2,3,16,16 -o "$T/bad.exe"
refuse_unwritten "inspect" "unknown option --max-shape" "$PZ" inspect "$T/cnn.onnx" --max-shape batch=8
finish
