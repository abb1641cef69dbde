#!/bin/sh
# bench/eltwise/avx2_plain_ab.sh OLD NEW [DIR] - two builds A/B at
# PZ_ISA=avx2 on the plain-layout kernels of binary_avx2.c and
# compare_avx2.c: Max of two 1x64x112x112 graph inputs, Pow(x, 1.7) of one,
# Greater of two (to bool). Outputs of the two builds compared (Max and
# Greater bitwise, Pow 1e-6), then the layer's ms from `run --repeat 20
# --threads 1 --profile`, old and new interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/eltwise/avx2_plain_ab.sh OLD/paleozoic build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
OLD=$(abs "$1") NEW=$(abs "$2") D=${3:-/tmp/pz_avx2_plain_ab}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np, onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
rng = np.random.default_rng(0)
S = [1, 64, 112, 112]
for k in ("x", "y"):
    open(k + ".pb", "wb").write(nh.from_array(rng.standard_normal(S).astype(np.float32), k).SerializeToString())
ins = [h.make_tensor_value_info(k, T.FLOAT, S) for k in ("x", "y")]
def save(name, node, ins, ty, inits=()):
    g = h.make_graph([node], name, ins, [h.make_tensor_value_info("z", ty, S)], list(inits))
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), name + ".onnx")
save("max2", h.make_node("Max", ["x", "y"], ["z"], name="L"), ins, T.FLOAT)
save("pow17", h.make_node("Pow", ["x", "k"], ["z"], name="L"), ins[:1], T.FLOAT,
     [nh.from_array(np.array(1.7, np.float32), "k")])
save("gt", h.make_node("Greater", ["x", "y"], ["z"], name="L"), ins, T.BOOL)
PYEOF
ins() { case $1 in pow17) echo "--input x.pb" ;; *) echo "--input x.pb --input y.pb" ;; esac; }
for m in max2 pow17 gt; do
    for v in old new; do
        pz=$OLD
        [ $v = new ] && pz=$NEW
        # shellcheck disable=SC2046
        PZ_ISA=avx2 "$pz" run $m.onnx $(ins $m) --output $m.$v.pb >/dev/null
    done
    case $m in pow17) node "$ROOT/tests/e2e/compare.js" --rel 1e-6 $m.new.pb $m.old.pb | tail -1 ;;
    *) node "$ROOT/tests/e2e/compare.js" --bitwise $m.new.pb $m.old.pb | tail -1 ;; esac
done
uptime
for m in max2 pow17 gt; do
    for _ in 1 2 3; do
        for v in old new; do
            pz=$OLD
            [ $v = new ] && pz=$NEW
            # shellcheck disable=SC2046
            t=$(PZ_ISA=avx2 "$pz" run $m.onnx $(ins $m) --repeat 20 --threads 1 --profile 2>&1 |
                awk '$3 == "L" { print $6, $NF; exit }')
            echo "$m $v $t"
        done
    done
done
uptime
