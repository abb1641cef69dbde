#!/bin/sh
# bench/eltwise/avx2_ab.sh OLD NEW [DIR] - two builds A/B on the element-wise
# paths of binary16c_avx2.c and the dynamic-region UNARY: Add of two
# 1x64x112x112 NCHW16c maps (each out of a 1x1 conv; a Sub of the two
# keeps the conv from taking the Add as its residual) at PZ_ISA=avx2, and
# Tanh in a dynamic region (after a Compress by a run-time condition:
# 1x64x12000 of 1x64x12544) at avx512 and avx2. Outputs of the two builds
# compared (Add bitwise, Tanh 1e-6), then the layer's ms from `run --repeat
# 20 --threads 1 --profile`, old and new interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/eltwise/avx2_ab.sh OLD/paleozoic build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
OLD=$(abs "$1") NEW=$(abs "$2") D=${3:-/tmp/pz_avx2_ab}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np, onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
rng = np.random.default_rng(0)
S, C = [1, 64, 112, 112], 64
x = rng.standard_normal(S).astype(np.float32)
open("x.pb", "wb").write(nh.from_array(x, "x").SerializeToString())
w = [nh.from_array(rng.standard_normal([C, C, 1, 1]).astype(np.float32), k) for k in ("w1", "w2")]
nodes = [h.make_node("Conv", ["x", "w1"], ["y1"]), h.make_node("Conv", ["x", "w2"], ["y2"]),
         h.make_node("Add", ["y1", "y2"], ["z"]), h.make_node("Sub", ["y1", "y2"], ["z2"])]
g = h.make_graph(nodes, "add16c", [h.make_tensor_value_info("x", T.FLOAT, S)],
                 [h.make_tensor_value_info(k, T.FLOAT, S) for k in ("z", "z2")], w)
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "add16c.onnx")
P = [1, 64, 12544]
p = rng.uniform(-3, 3, P).astype(np.float32)
c = np.ones(12544, bool)
c[rng.choice(12544, 544, replace=False)] = False
open("p.pb", "wb").write(nh.from_array(p, "p").SerializeToString())
open("c.pb", "wb").write(nh.from_array(c, "c").SerializeToString())
nodes = [h.make_node("Compress", ["p", "c"], ["pc"], axis=2), h.make_node("Tanh", ["pc"], ["z"])]
g = h.make_graph(nodes, "tanhdyn", [h.make_tensor_value_info("p", T.FLOAT, P),
                                    h.make_tensor_value_info("c", T.BOOL, [12544])],
                 [h.make_tensor_value_info("z", T.FLOAT, None)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "tanhdyn.onnx")
PYEOF
# case: model:ISA
CASES="add16c:avx2 tanhdyn:avx512 tanhdyn:avx2"
ins() { case $1 in tanhdyn) echo "--input p.pb --input c.pb" ;; *) echo "--input x.pb" ;; esac; }
layer() { case $1 in add16c) echo Add ;; *) echo Tanh ;; esac; }
for cs in $CASES; do
    m=${cs%%:*} i=${cs#*:}
    for v in old new; do
        pz=$OLD
        [ $v = new ] && pz=$NEW
        # shellcheck disable=SC2046
        PZ_ISA=$i "$pz" run $m.onnx $(ins $m) --output $m.$i.$v.pb >/dev/null
    done
    case $m in tanhdyn) node "$ROOT/tests/e2e/compare.js" --rel 1e-6 $m.$i.new.pb $m.$i.old.pb | tail -1 ;;
    *) node "$ROOT/tests/e2e/compare.js" --bitwise $m.$i.new.pb $m.$i.old.pb | tail -1 ;; esac
done
uptime
for cs in $CASES; do
    m=${cs%%:*} i=${cs#*:}
    for _ in 1 2 3; do
        for v in old new; do
            pz=$OLD
            [ $v = new ] && pz=$NEW
            # shellcheck disable=SC2046
            t=$(PZ_ISA=$i "$pz" run $m.onnx $(ins $m) --repeat 20 --threads 1 --profile 2>&1 |
                awk -v l="$(layer $m)" '$3 ~ "^"l"_" { print $6; exit }')
            echo "$m $i $v $t"
        done
    done
done
uptime
