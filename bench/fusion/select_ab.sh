#!/bin/sh
# bench/fusion/select_ab.sh PALEOZOIC [DIR] [mask|bool] - Where(Cmp(y, c), A, B) fused
# into the conv that writes y (act SELECT, src/passes/select.c) against the
# same graph unfused (its threshold a [1, 1, 1, 112] constant of equal
# values, one per column, which the passes refuse: CONV, COMPARE, WHERE
# layers; one per channel would fuse as a bool since pass_fuse_mask): conv 3x3
# (Winograd at AVX-512) and 1x1 (direct), 64 -> 64 channels, output
# 1x64x112x112, torch.where(y > 0.05, y, -0.3 y); with `mask`, the mask
# (~(y > 0.05)).float() * -0.7 instead (unfused: CONV, COMPARE, NOT, CAST,
# BINARY); with `bool`, y > 0.05 as a bool graph output (fused: the conv
# writes the bool, pass_fuse_mask; unfused: CONV, COMPARE). Outputs compared bitwise
# first; then each model's `run --repeat 20 --threads 1` median, fused and
# unfused interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/fusion/select_ab.sh build/paleozoic
set -eu
PZ=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") D=${2:-/tmp/pz_select_ab}
export SEL_FORM=${3:-where}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF' 2>/dev/null
import os
import torch, torch.nn as nn
from onnx import numpy_helper


class M(nn.Module):
    def __init__(self, k, t):
        super().__init__()
        self.c, self.t = nn.Conv2d(64, 64, k, padding=k // 2), t

    def forward(self, x):
        y = self.c(x)
        if os.environ["SEL_FORM"] == "mask":
            return (~(y > self.t)).float() * -0.7
        if os.environ["SEL_FORM"] == "bool":
            return y > self.t
        return torch.where(y > self.t, y, -0.3 * y)


x = torch.randn(1, 64, 112, 112)
for k in (3, 1):
    for name, t in (("fused", torch.tensor(0.05)), ("unfused", torch.full((1, 1, 1, 112), 0.05))):
        torch.manual_seed(k)   # one conv's weights for both
        torch.onnx.export(M(k, t).eval(), x, "k%d_%s.onnx" % (k, name), opset_version=14,
                          input_names=["x"], output_names=["y"])
open("x.pb", "wb").write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
PYEOF
for k in 3 1; do
    for v in fused unfused; do "$PZ" run "k${k}_$v.onnx" --input x.pb --output "k${k}_$v.pb" >/dev/null; done
    node "$ROOT/tests/e2e/compare.js" --bitwise "k${k}_fused.pb" "k${k}_unfused.pb" | tail -1
done
uptime
for k in 3 1; do
    for r in 1 2 3; do
        for v in fused unfused; do
            t=$("$PZ" run "k${k}_$v.onnx" --input x.pb --repeat 20 --threads 1 2>&1 | grep -o 'median=[0-9.]*')
            echo "conv${k}x$k $v $t"
        done
    done
done
"$PZ" run k3_unfused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
"$PZ" run k1_unfused.onnx --input x.pb --threads 1 --profile | grep -E '^ +[0-9]+ [A-Z]'
uptime
