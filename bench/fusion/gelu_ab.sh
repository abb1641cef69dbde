#!/bin/sh
# bench/fusion/gelu_ab.sh PALEOZOIC [OLD_PALEOZOIC] [DIR] - GELU fused into
# the conv that writes y (act GELU, src/passes/epilogue.c) against the same
# graph unfused (the conv's output also a graph output, which the pass
# refuses: CONV, UNARY layers): conv 1x1 64 -> 256, input 1x64x56x56,
# opset 20's Gelu node (the erf form). The two models' Gelu outputs compared
# bitwise first; then each model's `run --repeat 20 --threads 1 --profile`
# median and its layers' (CONV + UNARY: without the unfused model's extra
# output), fused and unfused interleaved, three rounds. Then the UNARY layer alone:
# Gelu on [1, 56, 56, 384] (ConvNeXt's, the flat AVX-512 kernel), by this
# build and by OLD_PALEOZOIC if given, interleaved. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/fusion/gelu_ab.sh build/paleozoic OLD
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
PZ=$(abs "$1") OLD=${2:+$(abs "$2")} D=${3:-/tmp/pz_gelu_ab}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(0)
w = (rng.standard_normal((256, 64, 1, 1)) * 0.15).astype(np.float32)
b = (rng.standard_normal(256) * 0.1).astype(np.float32)
x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
for name, outs in (("fused", [vi("y", [1, 256, 56, 56])]),
                   ("unfused", [vi("y", [1, 256, 56, 56]), vi("c", [1, 256, 56, 56])])):
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Gelu", ["c"], ["y"])],
        name, [vi("x", [1, 64, 56, 56])], outs,
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    open("%s.onnx" % name, "wb").write(m.SerializeToString())
open("x.pb", "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
g = helper.make_graph([helper.make_node("Gelu", ["u"], ["v"])], "unary",
                      [vi("u", [1, 56, 56, 384])], [vi("v", [1, 56, 56, 384])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
m.ir_version = 9
open("unary.onnx", "wb").write(m.SerializeToString())
u = (rng.standard_normal((1, 56, 56, 384)) * 2).astype(np.float32)
open("u.pb", "wb").write(numpy_helper.from_array(u, "u").SerializeToString())
PYEOF
"$PZ" run fused.onnx --input x.pb --output fused.pb >/dev/null
"$PZ" run unfused.onnx --input x.pb --output unfused.pb --output unfused_c.pb >/dev/null
node "$ROOT/tests/e2e/compare.js" --bitwise fused.pb unfused.pb | tail -1
uptime
# the run's median, and the sum of its layers' medians (the unfused model
# also writes c out: the layers' sum leaves that out)
med() {
    "$@" --repeat 20 --threads 1 --profile 2>&1 |
        awk '/^latency_ms/ {m = $2} $1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z_]+$/ {s += $6}
             END {printf "%s layers=%.3f\n", m, s}'
}
for r in 1 2 3; do
    for v in fused unfused; do echo "conv1x1+gelu $v $(med "$PZ" run "$v.onnx" --input x.pb)"; done
    echo "unary gelu new $(med "$PZ" run unary.onnx --input u.pb)"
    [ -n "$OLD" ] && echo "unary gelu old $(med "$OLD" run unary.onnx --input u.pb)"
done
uptime
