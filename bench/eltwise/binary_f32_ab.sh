#!/bin/sh
# bench/eltwise/binary_f32_ab.sh PALEOZOIC [DIR] - the float32 BINARY's
# AVX-512 kernel (binary_avx512.c) against the reference loop it replaces
# there (which PZ_ISA=avx2 still runs: the same code as before it): one
# layer on 1x64x112x112, Pow(x, 3), Pow(|x|, y), Pow(x, 0.5), Max(x, y),
# Mod(x, 1.7) (fmod 1); outputs compared (Max, Mod bitwise, Pow 1e-6), then
# `run --repeat 20 --threads 1` medians, interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/eltwise/binary_f32_ab.sh build/paleozoic
set -eu
PZ=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") D=${2:-/tmp/pz_binary_ab}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np, onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
S = [1, 64, 112, 112]
rng = np.random.default_rng(0)
x = rng.standard_normal(S).astype(np.float32)
y = rng.uniform(-3, 3, S).astype(np.float32)
open("x.pb", "wb").write(nh.from_array(x, "x").SerializeToString())
open("y.pb", "wb").write(nh.from_array(y, "y").SerializeToString())
for name, node, k in (("pow3", "Pow", 3.0), ("powh", "Pow", 0.5), ("mod", "Mod", 1.7)):
    g = h.make_graph([h.make_node(node, ["x", "k"], ["z"], **({"fmod": 1} if node == "Mod" else {}))],
                     name, [h.make_tensor_value_info("x", T.FLOAT, S)],
                     [h.make_tensor_value_info("z", T.FLOAT, S)], [nh.from_array(np.array(k, np.float32), "k")])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), name + ".onnx")
for name, nodes in (("max", [h.make_node("Max", ["x", "y"], ["z"])]),
                    ("powxy", [h.make_node("Abs", ["x"], ["ax"]), h.make_node("Pow", ["ax", "y"], ["z"])])):
    g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", T.FLOAT, S), h.make_tensor_value_info("y", T.FLOAT, S)],
                     [h.make_tensor_value_info("z", T.FLOAT, S)])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), name + ".onnx")
PYEOF
ins() { case $1 in max | powxy) echo "--input x.pb --input y.pb" ;; *) echo "--input x.pb" ;; esac; }
for m in pow3 powh mod max powxy; do
    # shellcheck disable=SC2046
    "$PZ" run $m.onnx $(ins $m) --output $m.new.pb >/dev/null
    # shellcheck disable=SC2046
    PZ_ISA=avx2 "$PZ" run $m.onnx $(ins $m) --output $m.old.pb >/dev/null
    case $m in pow*) node "$ROOT/tests/e2e/compare.js" --rel 1e-6 $m.new.pb $m.old.pb | tail -1 ;;
    *) node "$ROOT/tests/e2e/compare.js" --bitwise $m.new.pb $m.old.pb | tail -1 ;; esac
done
uptime
for m in pow3 powh mod max powxy; do
    for r in 1 2 3; do
        for v in old new; do
            e=PZ_SEL_NATIVE=1
            [ $v = old ] && e=PZ_ISA=avx2
            # shellcheck disable=SC2046
            t=$(env $e "$PZ" run $m.onnx $(ins $m) --repeat 20 --threads 1 2>&1 | grep -o 'median=[0-9.]*')
            echo "$m $v $t"
        done
    done
done
uptime
