#!/bin/sh
# bench/fusion/mish_ab.sh PALEOZOIC [DIR [OLD]] - Mish fused into the conv
# that writes y (act MISH, src/passes/epilogue.c) against the same graph
# unfused (the conv's output also a graph output, which the pass refuses:
# CONV, UNARY layers): conv 3x3 64 -> 64, output 1x64x112x112, opset 18's
# Mish node; and standalone Exp, Tanh, Mish on a plain 1x64x112x112 (the
# UNARY layer's flat path). The two conv models' Mish outputs compared
# bitwise first; then each model's `run --repeat 20 --threads 1` median,
# interleaved, three rounds; with OLD (another build of paleozoic, before
# a change) each model on OLD then on PALEOZOIC, two rounds of
# --repeat 10. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/fusion/mish_ab.sh build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
PZ=$(abs "$1") D=${2:-/tmp/pz_mish_ab} OLD=${3:+$(abs "${3:-}")}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(0)
w = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
b = (rng.standard_normal(64) * 0.1).astype(np.float32)
x = rng.standard_normal((1, 64, 112, 112)).astype(np.float32)
vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 64, 112, 112])
def save(name, nodes, outs, inits):
    m = helper.make_model(helper.make_graph(nodes, name, [vi("x")], outs, inits),
                          opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    open("%s.onnx" % name, "wb").write(m.SerializeToString())
for name, outs in (("fused", [vi("y")]), ("unfused", [vi("y"), vi("c")])):
    save(name, [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                helper.make_node("Mish", ["c"], ["y"])], outs,
         [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
for op in ("Exp", "Tanh", "Mish"):
    save(op.lower(), [helper.make_node(op, ["x"], ["y"])], [vi("y")], [])
open("x.pb", "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
PYEOF
"$PZ" run fused.onnx --input x.pb --output fused.pb >/dev/null
"$PZ" run unfused.onnx --input x.pb --output unfused.pb --output unfused_c.pb >/dev/null
node "$ROOT/tests/e2e/compare.js" --bitwise fused.pb unfused.pb | tail -1
uptime
if [ -n "$OLD" ]; then
    for r in 1 2; do
        for v in fused unfused exp tanh mish; do
            for pz in "$OLD" "$PZ"; do
                t=$("$pz" run "$v.onnx" --input x.pb --repeat 10 --threads 1 2>&1 | grep -o 'median=[0-9.]*')
                echo "$v $([ "$pz" = "$OLD" ] && echo old || echo new) $t"
            done
        done
    done
else
    for r in 1 2 3; do
        for v in fused unfused; do
            t=$("$PZ" run "$v.onnx" --input x.pb --repeat 20 --threads 1 2>&1 | grep -o 'median=[0-9.]*')
            echo "conv3x3+mish $v $t"
        done
    done
fi
"$PZ" run unfused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
"$PZ" run fused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
uptime
