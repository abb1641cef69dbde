#!/bin/sh
# bench/batch/run.sh [THREADS] [REPEAT] - --batch 8 against batch 1 on the
# torchvision ResNet-50 and MobileNetV2 (exported here at a static batch of 1,
# random weights): each image's features (the FC's input) at batch 8 bitwise
# its batch-1 features, logits within a tolerance (the FC: GEMV at batch 1,
# GEMM at 8); then `paleozoic bench --strategies none` at batch 1 and 8 with
# images/s. Figures: bench/RESULTS.md, 'batch: ResNet-50 and MobileNetV2'.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PZ="$ROOT/build/paleozoic"
PY=/usr/bin/python3
TH=${1:-1}
REP=${2:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PY" - "$T" <<'EOF' 2>/dev/null
import sys, numpy as np, torch, torchvision, onnx
from onnx import helper, numpy_helper
d = sys.argv[1]
torch.manual_seed(0)
for name in ("resnet50", "mobilenet_v2"):
    m = getattr(torchvision.models, name)(weights=None).eval()
    torch.onnx.export(m, torch.randn(1, 3, 224, 224), f"{d}/{name}.onnx", opset_version=13,
                      input_names=["input"], output_names=["output"])
    mm = onnx.load(f"{d}/{name}.onnx")
    f = [n for n in mm.graph.node if n.op_type == "Flatten"][-1]
    mm.graph.output.append(helper.make_tensor_value_info(f.output[0], onnx.TensorProto.FLOAT, None))
    onnx.save(mm, f"{d}/{name}.onnx")
rng = np.random.default_rng(5)
xs = [rng.standard_normal((1, 3, 224, 224)).astype(np.float32) for _ in range(8)]
for i, x in enumerate(xs):
    onnx.save_tensor(numpy_helper.from_array(x, "input"), f"{d}/x{i}.pb")
onnx.save_tensor(numpy_helper.from_array(np.concatenate(xs), "input"), f"{d}/x8.pb")
EOF
for m in resnet50 mobilenet_v2; do
    for i in 0 1 2 3 4 5 6 7; do
        "$PZ" run "$T/$m.onnx" --threads "$TH" --input "$T/x$i.pb" --output "$T/y$i.pb" --output "$T/f$i.pb" 2>/dev/null
    done
    "$PZ" run "$T/$m.onnx" --threads "$TH" --batch 8 --input "$T/x8.pb" --output "$T/y8.pb" --output "$T/f8.pb" 2>/dev/null
    "$PY" - "$T" "$m" <<'EOF'
import sys, numpy as np, onnx
from onnx import numpy_helper as nh
def rd(p):
    t = onnx.TensorProto(); t.ParseFromString(open(p, "rb").read()); return nh.to_array(t)
d, m = sys.argv[1:3]
y8, f8 = rd(f"{d}/y8.pb"), rd(f"{d}/f8.pb")
bit = all(np.array_equal(f8[i:i + 1], rd(f"{d}/f{i}.pb")) for i in range(8))
dy = max(float(np.abs(y8[i:i + 1] - rd(f"{d}/y{i}.pb")).max()) for i in range(8))
rel = dy / max(float(np.abs(y8).max()), 1e-30)
print(f"{m}: batch 8 {y8.shape}: features bitwise per image: {bit}; logits max |diff| {dy:.3g} "
      f"(relative to max |logit| {rel:.2g})")
EOF
    "$PZ" bench "$T/$m.onnx" --threads "$TH" --strategies none --repeat "$REP" 2>/dev/null | grep -E '^  none'
    "$PZ" bench "$T/$m.onnx" --threads "$TH" --batch 8 --strategies none --repeat "$REP" 2>/dev/null | grep -E '^  none'
done
