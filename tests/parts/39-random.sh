#!/bin/sh
# 39-random.sh BUILD_DIR - the random ops (issue 39): RandomUniform,
# RandomNormal, their -Like forms, Multinomial, Bernoulli and Dropout in
# training, on the models of tests/random/random_models.py, checked by
# tests/random/random_check.py:
#   - statistics of `paleozoic run`'s outputs: uniform and normal mean and
#     variance over 200000 values within 5 standard errors, Multinomial class
#     counts against the softmax (chi-square), Bernoulli's share of ones and
#     its P 0 and 1, Dropout's values, mask and dropped share;
#   - each output's element type and shape equal to ONNX Runtime's on the
#     same file (the values cannot agree: each has its own generator);
#   - a seed repeats: two runs of a seeded model bitwise equal, and the
#     program `paleozoic build` makes gives the same bits; without a seed
#     two runs differ;
#   - bad attributes exit 2 naming the attribute.
# Ends with `N passed, N failed`.
set -u
NAME=39-random
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs onnxruntime-node and python3-onnx (tools/setup.sh)"

d="$T/models"
mkdir -p "$d"
"$PY" "$ROOT/tests/random/random_models.py" "$d" >"$d/names" 2>"$T/log" ||
    { bad "random_models.py: $(tail -c 400 "$T/log")"; finish; }
CHK="$ROOT/tests/random/random_check.py"

# run NAME OUT...: paleozoic run on the model's input (if any)
run() {
    m="$d/$1"; shift
    in=""
    [ -f "$m.in_0.pb" ] && in="--input $m.in_0.pb"
    outs=""
    for o in "$@"; do outs="$outs --output $o"; done
    # shellcheck disable=SC2086
    "$PZ" run "$m.onnx" $in $outs
}

while read -r name _; do
    m="$d/$name"
    n_out=1
    [ "$name" = dropout ] && n_out=2
    pz_outs="$m.pz0.pb" ort_outs="$m.ort0.pb"
    [ "$n_out" = 2 ] && pz_outs="$pz_outs $m.pz1.pb" ort_outs="$ort_outs $m.ort1.pb"
    # shellcheck disable=SC2086
    if ! run "$name" $pz_outs >"$T/log" 2>&1; then
        bad "$name: paleozoic run: $(tail -c 300 "$T/log")"
        continue
    fi
    ok "$name: run"
    ins=""
    [ -f "$m.in_0.pb" ] && ins="$m.in_0.pb"
    # shellcheck disable=SC2086
    if node "$E2E/ort_run.js" "$m.onnx" $ins -- $ort_outs >"$T/log" 2>&1; then
        check "$name: type and shape vs ONNX Runtime" "$PY" "$CHK" type "$m.pz0.pb" "$m.ort0.pb"
        [ "$n_out" = 2 ] &&
            check "$name: mask type and shape vs ONNX Runtime" "$PY" "$CHK" type "$m.pz1.pb" "$m.ort1.pb"
    else
        bad "$name: ONNX Runtime: $(tail -c 300 "$T/log")"
    fi
done <"$d/names"

check "uniform: statistics" "$PY" "$CHK" uniform "$d/uniform.pz0.pb" -2 3
check "normal: statistics" "$PY" "$CHK" normal "$d/normal.pz0.pb" 1.5 2
check "uniform_noseed: statistics" "$PY" "$CHK" uniform "$d/uniform_noseed.pz0.pb" 0 1
check "ulike: statistics" "$PY" "$CHK" uniform "$d/ulike.pz0.pb" 0 1
check "multi: chi-square" "$PY" "$CHK" multi "$d/multi.pz0.pb" "$d/multi.in_0.pb"
check "multi32: classes" "$PY" "$CHK" multi "$d/multi32.pz0.pb" "$d/multi32.in_0.pb"
check "bern: statistics" "$PY" "$CHK" bern "$d/bern.pz0.pb" "$d/bern.in_0.pb"
check "dropout: values, mask, share" "$PY" "$CHK" dropout "$d/dropout.pz0.pb" "$d/dropout.pz1.pb" 0.3

# a seed repeats, in run and in the built program; no seed, fresh values
for name in normal multi bern dropout; do
    check "$name: seeded, two runs bitwise equal" sh -c \
        "{ [ -f '$d/$name.in_0.pb' ] && i='--input $d/$name.in_0.pb' || i=''; } &&
         '$PZ' run '$d/$name.onnx' \$i --output '$d/$name.again.pb' &&
         node '$E2E/compare.js' --bitwise '$d/$name.again.pb' '$d/$name.pz0.pb'"
done
for name in normal bern; do
    [ "$san" = 1 ] && break   # the build compiles a program: slow under ASan
    check "$name: built program bitwise equal to run" sh -c \
        "{ [ -f '$d/$name.in_0.pb' ] && i='--input $d/$name.in_0.pb' || i=''; } &&
         '$PZ' build '$d/$name.onnx' -o '$d/$name.exe' &&
         '$d/$name.exe' \$i --output '$d/$name.exe.pb' &&
         node '$E2E/compare.js' --bitwise '$d/$name.exe.pb' '$d/$name.pz0.pb'"
done
for name in uniform_noseed normal_noseed; do
    check "$name: two runs differ" sh -c "'$PZ' run '$d/$name.onnx' --output '$d/$name.b.pb' &&
        '$PY' '$CHK' differ '$d/$name.pz0.pb' '$d/$name.b.pb'"
done

# bad attributes: exit 2 naming them
"$PY" - "$d" <<'PYEOF' 2>"$T/log" || bad "bad models: $(tail -c 300 "$T/log")"
import sys
import onnx
from onnx import TensorProto as TP, helper as h
d = sys.argv[1]
def save(name, node, out_dt, shape, ins=()):
    g = h.make_graph([node], name, list(ins), [h.make_tensor_value_info('Y', out_dt, shape)])
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 17)])
    onnx.save(m, f'{d}/{name}.onnx')
save('no_shape', h.make_node('RandomUniform', [], ['Y']), TP.FLOAT, [2])
save('low_high', h.make_node('RandomUniform', [], ['Y'], shape=[2], low=2.0, high=1.0),
     TP.FLOAT, [2])
save('multi_dtype', h.make_node('Multinomial', ['X'], ['Y'], dtype=TP.FLOAT), TP.FLOAT, [3, 1],
     [h.make_tensor_value_info('X', TP.FLOAT, [3, 4])])
save('sample_size', h.make_node('Multinomial', ['X'], ['Y'], sample_size=0), TP.INT32, [3, 0],
     [h.make_tensor_value_info('X', TP.FLOAT, [3, 4])])
PYEOF
refuse "RandomUniform without shape" "'shape'" "$PZ" run "$d/no_shape.onnx" --output "$T/y.pb"
refuse "RandomUniform high below low" "'high'" "$PZ" run "$d/low_high.onnx" --output "$T/y.pb"
refuse "Multinomial dtype float" "'dtype'" "$PZ" run "$d/multi_dtype.onnx" \
    --input "$d/multi.in_0.pb" --output "$T/y.pb"
refuse "Multinomial sample_size 0" "'sample_size'" "$PZ" run "$d/sample_size.onnx" \
    --input "$d/multi.in_0.pb" --output "$T/y.pb"
finish
