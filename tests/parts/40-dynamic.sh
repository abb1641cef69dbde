#!/bin/sh
# 40-dynamic.sh BUILD_DIR MODELDIR - ops whose output shapes depend on input
# values (issue 40): NonZero, Unique, Compress, NonMaxSuppression, written by
# tests/e2e/dynamic.py (its header lists them) on seeded random inputs, and
# PyTorch post-processing after them (tests/e2e/dynamic_torch.py: Reshape,
# reductions, Softmax, ArgMax, CumSum, Gather, TopK of a run-time k).
# Mode "run": `paleozoic run --output` and the program `paleozoic build`
# makes give ONNX Runtime 1.17's outputs bitwise (type, the run-time shape,
# bytes), and numpy's where the case has them (NAME.npK.pb); mode "cli": the
# same through `paleozoic run` only. Mode "refuse":
# `paleozoic run` and `paleozoic build` exit 2 naming the node that reads a
# run-time-shaped value. Under a sanitizer build every 6th "run" case is also
# built (PZ_TEST_FULL=1: all). Ends with `N passed, N failed`.
set -u
NAME=40-dynamic
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"
if ! "$PY" "$E2E/dynamic.py" "$T" >"$T/log" 2>&1; then
    bad "dynamic.py failed: $(tail -c 600 "$T/log")"
    finish
fi
# PyTorch post-processing in dynamic regions (nothing without torch)
if ! "$PY" "$E2E/dynamic_torch.py" "$T" >"$T/log" 2>&1; then
    bad "dynamic_torch.py failed: $(tail -c 600 "$T/log")"
    finish
fi
# same type, shape and bytes; `close`: the values to a tolerance
same() {
    if [ "$tol" = close ]; then node "$E2E/compare.js" --close 1e-5 1e-6 "$1" "$2" >"$T/cmp" 2>&1
    else cmp_bit "$1" "$2" >"$T/cmp" 2>&1; fi
}
while read -r name nin nout mode nnp tol; do
    ins="" inargs=""
    k=0
    while [ "$k" -lt "$nin" ]; do
        ins="$ins $T/$name.in$k.pb"
        inargs="$inargs --input $T/$name.in$k.pb"
        k=$((k + 1))
    done
    if [ "$mode" = refuse ]; then
        # shellcheck disable=SC2086
        "$PZ" run "$T/$name.onnx" $inargs >"$T/log" 2>&1
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q 'node ".*run-time-shaped' "$T/log"; then ok
        else bad "$name: run: expected exit 2 naming the node, got $rc: $(tail -c 300 "$T/log")"; fi
        "$PZ" build "$T/$name.onnx" -o "$T/$name.exe" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q 'node ".*run-time-shaped' "$T/log"; then ok
        else bad "$name: build: expected exit 2 naming the node, got $rc: $(tail -c 300 "$T/log")"; fi
        continue
    fi
    refs="" runargs="" exeargs=""
    k=0
    while [ "$k" -lt "$nout" ]; do
        refs="$refs $T/$name.ref$k.pb"
        runargs="$runargs --output $T/$name.run$k.pb"
        exeargs="$exeargs --output $T/$name.exe$k.pb"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    if ! node "$E2E/ort_run.js" "$T/$name.onnx" $ins -- $refs >"$T/log" 2>&1; then
        bad "$name: ONNX Runtime failed: $(tail -c 300 "$T/log")"
        continue
    fi
    # shellcheck disable=SC2086
    if ! "$PZ" run "$T/$name.onnx" $inargs $runargs >"$T/log" 2>&1; then
        bad "$name: paleozoic run failed: $(tail -c 300 "$T/log")"
        continue
    fi
    # under a sanitizer every 6th case also builds (each build links a program
    # against the sanitized runtime; the optimized run builds them all)
    nrun=$((${nrun:-0} + 1))
    [ "$mode" = run ] && [ "$san" = 1 ] && [ "$full" != 1 ] && [ $((nrun % 6)) != 1 ] && mode=cli
    whos=run
    [ "$mode" = run ] && whos="run exe"
    # shellcheck disable=SC2086
    if [ "$mode" = run ] && ! { "$PZ" build "$T/$name.onnx" -o "$T/$name.exe" >"$T/log" 2>&1 &&
        "$T/$name.exe" $inargs $exeargs >"$T/log" 2>&1; }; then
        bad "$name: build or the built program failed: $(tail -c 300 "$T/log")"
        continue
    fi
    k=0
    while [ "$k" -lt "$nout" ]; do
        for who in $whos; do
            if same "$T/$name.$who$k.pb" "$T/$name.ref$k.pb"; then ok
            else bad "$name: $who output $k vs ONNX Runtime: $(cat "$T/cmp")"; fi
            if [ "$k" -lt "$nnp" ] && [ -f "$T/$name.np$k.pb" ]; then
                if same "$T/$name.$who$k.pb" "$T/$name.np$k.pb"; then ok
                else bad "$name: $who output $k vs numpy: $(cat "$T/cmp")"; fi
            fi
        done
        k=$((k + 1))
    done
done <"$T/cases.txt"
# the built program's header says which outputs have run-time shapes, and
# which nodes run in a dynamic region
if "$PZ" compile "$T/region_cast_neg.onnx" -o "$T/src" >"$T/log" 2>&1 &&
    grep -q 'a bound: the shape is set at run time' "$T/src/region_cast_neg.c" &&
    grep -q 'dynamic region: node "Neg_2" (Neg)' "$T/src/region_cast_neg.c" &&
    grep -q 'region_cast_neg_output_shape' "$T/src/region_cast_neg.h"; then ok
else bad "compile: NAME.c/NAME.h do not say the output has a run-time shape"; fi
if "$PZ" build "$T/nonzero_f32.onnx" -o "$T/raw.exe" --emit raw >"$T/log" 2>&1; then
    bad "--emit raw: a run-time shape was not refused"
elif [ $? -eq 2 ] && grep -q 'run-time shape' "$T/log"; then ok
else bad "--emit raw: expected exit 2: $(tail -c 300 "$T/log")"; fi
# the Python package reshapes an output to the run's shape (NAME_output_shape);
# not under a sanitizer (python3 does not load an ASan library)
if grep -q sanitize "$B/sdk.flags" 2>/dev/null; then
    echo "dynamic: the Python check is left to the optimized build"
elif out=$(cd "$ROOT/python" && PALEOZOIC="$PZ" PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -c '
import sys
import numpy as np
import paleozoic
from onnx import load_tensor, numpy_helper
t = sys.argv[1]
m = paleozoic.compile(t + "/unique_unsorted.onnx", threads=1)
x = numpy_helper.to_array(load_tensor(t + "/unique_unsorted.in0.pb"))
got = m.run([x])
for k, name in enumerate(["Y", "I", "V", "C"]):
    ref = numpy_helper.to_array(load_tensor(t + "/unique_unsorted.np%d.pb" % k))
    assert got[name].shape == ref.shape and (got[name] == ref).all(), (name, got[name], ref)
print("python: ok", got["Y"].shape)
' "$T" 2>&1) && echo "$out" | grep -q 'python: ok'; then ok
else bad "python: $(echo "$out" | tail -c 400)"; fi
# shapes that do not fit fail the run, as ONNX Runtime does: TopK with k
# a graph input, built unbound; k 3 of 6 runs, k 9 exits 2 naming the layer
# and writes nothing
if "$PY" -c '
import sys, numpy as np, onnx
from onnx import helper, TensorProto as T, numpy_helper as nh
t = sys.argv[1]
g = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["v", "i"])], "t",
    [helper.make_tensor_value_info("x", T.FLOAT, [6]), helper.make_tensor_value_info("k", T.INT64, [1])],
    [helper.make_tensor_value_info("v", T.FLOAT, None), helper.make_tensor_value_info("i", T.INT64, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), t + "/topk_k.onnx")
for n, a in (("x", np.array([3, 1, 4, 1, 5, 9], np.float32)), ("k3", np.array([3], np.int64)),
             ("k9", np.array([9], np.int64))):
    open(t + "/topk_%s.pb" % n, "wb").write(nh.from_array(a, n[0]).SerializeToString())
' "$T" && "$PZ" build "$T/topk_k.onnx" -o "$T/topk_k" >"$T/log" 2>&1; then
    if "$T/topk_k" --input "$T/topk_x.pb" --input "$T/topk_k3.pb" --output "$T/tv.pb" \
        --output "$T/ti.pb" >"$T/log" 2>&1 &&
        "$PY" -c 'import sys; from onnx import load_tensor, numpy_helper as nh
v = nh.to_array(load_tensor(sys.argv[1])); assert v.tolist() == [9, 5, 4], v' "$T/tv.pb"; then
        ok "TopK k 3 of 6 from a graph input (built)"
    else
        bad "TopK k 3 of 6 from a graph input (built): $(tail -c 300 "$T/log")"
    fi
    rm -f "$T/tv9.pb"
    "$T/topk_k" --input "$T/topk_x.pb" --input "$T/topk_k9.pb" --output "$T/tv9.pb" \
        --output "$T/ti9.pb" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" = 2 ] && grep -q 'error: layer "TopK_0" (TOPK): k 9 is outside \[0, 6\]' "$T/log" &&
        [ ! -e "$T/tv9.pb" ]; then
        ok "TopK k 9 of 6: exit 2 naming the layer, nothing written"
    else
        bad "TopK k 9 of 6: exit $rc: $(tail -c 300 "$T/log")"
    fi
else
    bad "TopK with k a graph input: $(tail -c 300 "$T/log")"
fi
# a run-time shape planned at its bound (Concat off its axis, MatMul's K):
# 2 kept of 6 where the other operand needs 3 fails the run naming the layer
"$PY" -c 'import sys, numpy as np; from onnx import numpy_helper as nh
open(sys.argv[1], "wb").write(nh.from_array(np.array([1, 0, 0, 1, 0, 0], bool), "K").SerializeToString())' "$T/k2.pb"
for c in "region_compress_concat Concat_1 CONCAT" "region_compress_matmul_k MatMul_1 MATMUL"; do
    set -- $c
    extra=""
    [ "$1" = region_compress_concat ] && extra="--input $T/$1.in2.pb"
    # shellcheck disable=SC2086
    "$PZ" run "$T/$1.onnx" --input "$T/$1.in0.pb" --input "$T/k2.pb" $extra \
        --output "$T/kf.pb" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" = 2 ] && grep -q "error: layer \"$2\" ($3)" "$T/log"; then ok
    else bad "$1 with 2 kept: expected exit 2 naming layer $2, got $rc: $(tail -c 300 "$T/log")"; fi
done
echo "dynamic: $((pass + fail)) checks over $(wc -l <"$T/cases.txt") models"
finish
