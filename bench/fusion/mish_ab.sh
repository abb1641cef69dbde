#!/bin/sh
# bench/fusion/mish_ab.sh PALEOZOIC [DIR] - Mish fused into the conv that
# writes y (act MISH, src/passes/epilogue.c) against the same graph
# unfused (the conv's output also a graph output, which the pass refuses:
# CONV, UNARY layers): conv 3x3 64 -> 64, output 1x64x112x112, opset 18's
# Mish node. The two models' Mish outputs compared bitwise first; then each
# model's `run --repeat 20 --threads 1` median, fused and unfused
# interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/fusion/mish_ab.sh build/paleozoic
set -eu
PZ=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") D=${2:-/tmp/pz_mish_ab}
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
for name, outs in (("fused", [vi("y")]), ("unfused", [vi("y"), vi("c")])):
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Mish", ["c"], ["y"])], name, [vi("x")], outs,
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    open("%s.onnx" % name, "wb").write(m.SerializeToString())
open("x.pb", "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
PYEOF
"$PZ" run fused.onnx --input x.pb --output fused.pb >/dev/null
"$PZ" run unfused.onnx --input x.pb --output unfused.pb --output unfused_c.pb >/dev/null
node "$ROOT/tests/e2e/compare.js" --bitwise fused.pb unfused.pb | tail -1
uptime
for r in 1 2 3; do
    for v in fused unfused; do
        t=$("$PZ" run "$v.onnx" --input x.pb --repeat 20 --threads 1 2>&1 | grep -o 'median=[0-9.]*')
        echo "conv3x3+mish $v $t"
    done
done
"$PZ" run unfused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
"$PZ" run fused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
uptime
