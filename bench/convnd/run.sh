#!/bin/sh
# bench/convnd/run.sh PALEOZOIC [DIR [ROUNDS]] - 1-D and 3-D convs
# (conv_frames: a conv2d per output frame) against ONNX Runtime 1.17, one
# interleaved run: torchvision's video.r3d_18 and video.r2plus1d_18 on
# 1x3x8x112x112 and a Whisper-like Conv1d front end (80 -> 256 k3 -> ReLU
# -> 256 -> 256 k5 stride 2 on 1x80x3000), PyTorch exports with seeded
# weights (written once into DIR). Per round and model: ORT 1.17
# (bench/peers/ort_bench.js, 5 runs) then `paleozoic run --repeat 5`, both
# at 1 thread; prints each pair's medians and ratio. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/convnd/run.sh build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
PZ=$(abs "$1") D=${2:-/tmp/pz_convnd} ROUNDS=${3:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
[ -f "$D/r2plus1d_18.onnx" ] || /usr/bin/python3 - "$D" <<'PYEOF'
import sys
import torch
import torchvision
from onnx import numpy_helper

d = sys.argv[1]
V = torchvision.models.video
nets = {
    "c1d": (lambda: torch.nn.Sequential(torch.nn.Conv1d(80, 256, 3, padding=1), torch.nn.ReLU(),
                                        torch.nn.Conv1d(256, 256, 5, stride=2, padding=2)),
            (1, 80, 3000)),
    "r3d_18": (lambda: V.r3d_18(weights=None), (1, 3, 8, 112, 112)),
    "r2plus1d_18": (lambda: V.r2plus1d_18(weights=None), (1, 3, 8, 112, 112)),
}
for name, (ctor, shape) in nets.items():
    torch.manual_seed(0)
    net = ctor().eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1234))
    with torch.no_grad():
        torch.onnx.export(net, x, "%s/%s.onnx" % (d, name), input_names=["in0"],
                          output_names=["out0"], opset_version=17)
    open("%s/%s.in.pb" % (d, name), "wb").write(
        numpy_helper.from_array(x.numpy(), "in0").SerializeToString())
PYEOF
med() { sed -n 's/.*median=\([0-9.]*\).*/\1/p' | tail -n 1; }
echo "model round ort117_ms ours_ms ort/ours"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for n in c1d r3d_18 r2plus1d_18; do
        o=$(node "$ROOT/bench/peers/ort_bench.js" "$D/$n.onnx" "$D/$n.in.pb" --threads 1 --runs 5 | med)
        p=$("$PZ" run "$D/$n.onnx" --input "$D/$n.in.pb" --threads 1 --repeat 5 2>&1 | med)
        echo "$n $r $o $p $(echo "scale=3; $o / $p" | bc)"
    done
    r=$((r + 1))
done
