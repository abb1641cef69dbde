#!/bin/sh
# bench/eltwise/gaps_ab.sh OLD NEW [DIR] - the last scalar element-wise
# paths of issue 39, two builds A/B: Max(y, c) with one value per channel
# on a 1x64x112x112 NCHW16c map (between two 1x1 convs: binary16c), Pow(x,
# 1.7) in a dynamic region (after a Compress by a run-time condition:
# 1x64x12000 of 1x64x12544), and HardSwish on a plain 1x64x112x112 at
# PZ_ISA=avx2 (unary16c-flat). Outputs of the two builds compared (Max
# bitwise, Pow and HardSwish (x/6 + 1/2 now one FMA) 1e-6), then the layer's ms from `run --repeat 20
# --threads 1 --profile`, old and new interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/eltwise/gaps_ab.sh OLD/paleozoic build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
OLD=$(abs "$1") NEW=$(abs "$2") D=${3:-/tmp/pz_gaps_ab}
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
eye = nh.from_array(np.eye(C, dtype=np.float32).reshape(C, C, 1, 1), "w")
pc = nh.from_array(rng.standard_normal([1, C, 1, 1]).astype(np.float32), "pc")
nodes = [h.make_node("Conv", ["x", "w"], ["y"]), h.make_node("Max", ["y", "pc"], ["m"]),
         h.make_node("Conv", ["m", "w"], ["z"])]
g = h.make_graph(nodes, "maxpc", [h.make_tensor_value_info("x", T.FLOAT, S)],
                 [h.make_tensor_value_info("z", T.FLOAT, S)], [eye, pc])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "maxpc.onnx")
g = h.make_graph([h.make_node("HardSwish", ["x"], ["z"])], "hswish",
                 [h.make_tensor_value_info("x", T.FLOAT, S)], [h.make_tensor_value_info("z", T.FLOAT, S)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 14)]), "hswish.onnx")
P = [1, 64, 12544]
p = rng.uniform(0.1, 4, P).astype(np.float32)
c = np.ones(12544, bool)
c[rng.choice(12544, 544, replace=False)] = False
open("p.pb", "wb").write(nh.from_array(p, "p").SerializeToString())
open("c.pb", "wb").write(nh.from_array(c, "c").SerializeToString())
nodes = [h.make_node("Compress", ["p", "c"], ["pc"], axis=2), h.make_node("Pow", ["pc", "k"], ["z"])]
g = h.make_graph(nodes, "powdyn", [h.make_tensor_value_info("p", T.FLOAT, P),
                                   h.make_tensor_value_info("c", T.BOOL, [12544])],
                 [h.make_tensor_value_info("z", T.FLOAT, None)], [nh.from_array(np.array(1.7, np.float32), "k")])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "powdyn.onnx")
PYEOF
ins() { case $1 in powdyn) echo "--input p.pb --input c.pb" ;; *) echo "--input x.pb" ;; esac; }
isa() { case $1 in hswish) echo avx2 ;; *) echo avx512 ;; esac; }
layer() { case $1 in maxpc) echo Max ;; powdyn) echo Pow ;; *) echo HardSwish ;; esac; }
for m in maxpc powdyn hswish; do
    for v in old new; do
        pz=$OLD
        [ $v = new ] && pz=$NEW
        # shellcheck disable=SC2046
        PZ_ISA=$(isa $m) "$pz" run $m.onnx $(ins $m) --output $m.$v.pb >/dev/null
    done
    case $m in powdyn | hswish) node "$ROOT/tests/e2e/compare.js" --rel 1e-6 $m.new.pb $m.old.pb | tail -1 ;;
    *) node "$ROOT/tests/e2e/compare.js" --bitwise $m.new.pb $m.old.pb | tail -1 ;; esac
done
uptime
for m in maxpc powdyn hswish; do
    for _ in 1 2 3; do
        for v in old new; do
            pz=$OLD
            [ $v = new ] && pz=$NEW
            # shellcheck disable=SC2046
            t=$(PZ_ISA=$(isa $m) "$pz" run $m.onnx $(ins $m) --repeat 20 --threads 1 --profile 2>&1 |
                awk -v l="$(layer $m)" '$3 ~ "^"l"_" { print $6; exit }')
            echo "$m $v $t"
        done
    done
done
uptime
