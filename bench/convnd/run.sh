#!/bin/sh
# bench/convnd/run.sh PALEOZOIC [DIR [ROUNDS]] - 1-D and 3-D convs
# (conv_frames: a conv2d per output frame) and transposed convs (deconv_
# phases: a stride-1 conv per output phase) against ONNX Runtime 1.17, one
# interleaved run: torchvision's video.r3d_18 and video.r2plus1d_18 on
# 1x3x8x112x112, a Whisper-like Conv1d front end (80 -> 256 k3 -> ReLU
# -> 256 -> 256 k5 stride 2 on 1x80x3000), PyTorch's DCGAN generator
# (100 -> 512 k4 -> 256 -> 128 -> 64 -> 3, k4 s2 p1, BN, ReLU, Tanh; 64x64)
# a U-Net decoder step (ConvTranspose2d 128 -> 64 k2 s2 on 56x56, ReLU) and
# a 3-D U-Net's (ConvTranspose3d 64 -> 32 k2 s2 on 1x64x8x28x28, ReLU),
# ConvTranspose2d 64 -> 64 k4 s2 p1 in 4 groups and 32 -> 32 k3 s2 p2 op1
# dilation 2 (both on 56x56),
# PyTorch exports with seeded weights (written once into DIR). Per round and model: ORT 1.17
# (bench/peers/ort_bench.js, 5 runs) then `paleozoic run --repeat 5`, both
# at 1 thread; prints each pair's medians and ratio. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/convnd/run.sh build/paleozoic
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
PZ=$(abs "$1") D=${2:-/tmp/pz_convnd} ROUNDS=${3:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
[ -f "$D/deconv_d2.onnx" ] || /usr/bin/python3 - "$D" <<'PYEOF'
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
    "dcgan": (lambda: torch.nn.Sequential(*[m for a, b, s, p in
                                            ((100, 512, 1, 0), (512, 256, 2, 1), (256, 128, 2, 1),
                                             (128, 64, 2, 1), (64, 3, 2, 1))
                                            for m in (torch.nn.ConvTranspose2d(a, b, 4, s, p, bias=False),
                                                      torch.nn.BatchNorm2d(b) if b != 3 else torch.nn.Tanh(),
                                                      torch.nn.ReLU() if b != 3 else torch.nn.Identity())]),
              (1, 100, 1, 1)),
    "unet_up": (lambda: torch.nn.Sequential(torch.nn.ConvTranspose2d(128, 64, 2, 2), torch.nn.ReLU()),
                (1, 128, 56, 56)),
    "unet3d_up": (lambda: torch.nn.Sequential(torch.nn.ConvTranspose3d(64, 32, 2, 2), torch.nn.ReLU()),
                  (1, 64, 8, 28, 28)),
    "deconv_g4": (lambda: torch.nn.ConvTranspose2d(64, 64, 4, 2, 1, groups=4), (1, 64, 56, 56)),
    "deconv_d2": (lambda: torch.nn.ConvTranspose2d(32, 32, 3, 2, 2, 1, dilation=2), (1, 32, 56, 56)),
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
    for n in c1d r3d_18 r2plus1d_18 dcgan unet_up unet3d_up deconv_g4 deconv_d2; do
        o=$(node "$ROOT/bench/peers/ort_bench.js" "$D/$n.onnx" "$D/$n.in.pb" --threads 1 --runs 5 | med)
        p=$("$PZ" run "$D/$n.onnx" --input "$D/$n.in.pb" --threads 1 --repeat 5 2>&1 | med)
        echo "$n $r $o $p $(echo "scale=3; $o / $p" | bc)"
    done
    r=$((r + 1))
done
