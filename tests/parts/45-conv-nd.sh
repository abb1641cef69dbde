#!/bin/sh
# 45-conv-nd.sh BUILD_DIR - 1-D and 3-D convs on the fast 2-D conv, a conv2d
# per output frame (rt/kernels/conv/conv_frames.h), on models written here by
# PyTorch (seeded, opset 13): a Whisper-like Conv1d stack (80 -> 64 k3,
# GELU-free ReLU, 64 -> 64 k3 stride 2), a wav2vec-like first conv (1 -> 32
# k10 s5), a dilated Conv1d with a residual; an R(2+1)D-like video block
# (Conv3d 3 -> 16 3x7x7 stride 1,2,2 stem: stacked taps; 16 -> 16 3x3x3 with
# BatchNorm, ReLU and a residual; 1x3x3 and 3x1x1 factorised) and a temporal
# stride 2; depthwise (a call of the 2-D depthwise kernels per frame and
# tap) and pools over rank 3 and 5 (pool_frames.h: the 2-D pool per frame,
# then over T): a conformer-like conv module (grouped Conv1d k3 of 3
# groups, depthwise Conv1d k15 with BatchNorm, ReLU, 1x1) then MaxPool1d,
# AvgPool1d (ceil mode, count_include_pad) and a vocoder-like
# ConvTranspose1d k16 s8 p4, k5 s3 output_padding 2 (deconv_phases.h: a
# stride-1 conv per output phase), and an X3D-like block (depthwise
# Conv3d 3x3x3 with a residual, a grouped 3x3x3 of 3 groups of 8 channels,
# a C3D-like MaxPool3d (1,2,2), depthwise 1x5x5 stride 1,2,2, a
# temporal dilation 2, AvgPool3d with pads, MaxPool3d 2x2x2). Each:
#   - `paleozoic run` vs ONNX Runtime 1.17 within 1e-5 relative, at the
#     CPU's ISA and PZ_ISA=scalar (the plain C twins), 1 and 3 threads
#     (under a sanitizer the scalar twins on 1 thread only);
#   - the profile names the fast path ("direct frames", "depthwise frames",
#     "grouped frames", "pool frames", "phases", "phases frames") for each
#     Conv, pool and ConvTranspose (its ReLU or Clip fused: no other layer);
#   - `paleozoic build`: the program's output has the bits of `run`.
# Ends with `N passed, N failed`.
set -u
NAME=45-conv-nd
. "$(dirname "$0")/lib.sh"
part_init "$@"

"$PY" -c 'import torch, onnx, numpy' 2>/dev/null || skip_part "no torch/onnx/numpy for $PY"
[ "$have_ort" = 1 ] || skip_part "no node or node_modules/onnxruntime-node"

cat >"$T/make.py" <<'PYEOF'
import sys
import numpy as np
import torch
import torch.nn as nn
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(0)


class Audio(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(80, 64, 3, padding=1)
        self.c2 = nn.Conv1d(64, 64, 3, stride=2, padding=1)

    def forward(self, x):
        return self.c2(torch.relu(self.c1(x)))


class Dilated(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(24, 24, 3, padding=2, dilation=2)

    def forward(self, x):
        return torch.relu(self.c(x) + x)


class Video(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv3d(3, 16, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False)
        self.c = nn.Conv3d(16, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm3d(16)
        self.sp = nn.Conv3d(16, 20, (1, 3, 3), padding=(0, 1, 1))
        self.tm = nn.Conv3d(20, 16, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0))

    def forward(self, x):
        y = torch.relu(self.stem(x))
        y = torch.relu(self.bn(self.c(y)) + y)
        return self.tm(torch.relu(self.sp(y)))


class Conformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.pw1 = nn.Conv1d(48, 48, 3, padding=1, groups=3)
        self.dw = nn.Conv1d(48, 48, 15, padding=7, groups=48)
        self.bn = nn.BatchNorm1d(48)
        self.pw2 = nn.Conv1d(48, 40, 1)
        self.mp = nn.MaxPool1d(3, 2, 1)
        self.ap = nn.AvgPool1d(5, 2, 2, ceil_mode=True, count_include_pad=True)
        self.up = nn.ConvTranspose1d(40, 24, 16, stride=8, padding=4)
        self.up2 = nn.ConvTranspose1d(24, 5, 5, stride=3, output_padding=2)

    def forward(self, x):
        y = self.pw2(torch.relu(self.bn(self.dw(self.pw1(x)))))
        return self.up2(torch.relu(self.up(self.ap(self.mp(y)))))


class X3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv3d(24, 24, 3, padding=1, groups=24)
        self.p1 = nn.MaxPool3d((1, 2, 2), (1, 2, 2))
        self.dw5 = nn.Conv3d(24, 24, (1, 5, 5), stride=(1, 2, 2), padding=(0, 2, 2),
                             groups=24, bias=False)
        self.dt = nn.Conv3d(24, 24, (3, 3, 3), padding=(2, 1, 1), dilation=(2, 1, 1),
                            groups=24)
        self.p3 = nn.AvgPool3d((2, 3, 3), (1, 2, 2), 1, count_include_pad=False)
        self.p2 = nn.MaxPool3d(2, 2)
        self.g = nn.Conv3d(24, 24, 3, padding=1, groups=3)

    def forward(self, x):
        y = self.p1(torch.relu(self.g(torch.relu(self.dw(x) + x))))
        y = self.dt(torch.relu(self.dw5(y)))
        return self.p2(self.p3(y))


class Unet3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose3d(20, 16, 2, stride=2)
        self.up2 = nn.ConvTranspose3d(16, 8, 3, stride=2, padding=1, output_padding=1)
        self.t = nn.ConvTranspose3d(8, 6, (4, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0))

    def forward(self, x):
        return self.t(torch.clamp(self.up2(torch.relu(self.up(x))), -0.5, 0.5))


MODELS = {
    "audio": (Audio(), (1, 80, 120)),
    "wav_stem": (nn.Conv1d(1, 32, 10, stride=5), (2, 1, 400)),
    "dilated": (Dilated(), (1, 24, 37)),
    "video": (Video(), (1, 3, 6, 20, 22)),
    "conformer": (Conformer(), (2, 48, 90)),
    "x3d": (X3d(), (1, 24, 6, 20, 19)),
    "unet3d": (Unet3d(), (1, 20, 3, 5, 4)),
}
for name, (mod, shape) in MODELS.items():
    mod.eval()
    if name in ("video", "conformer"):
        with torch.no_grad():
            mod.bn.running_mean.uniform_(-0.5, 0.5)
            mod.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(*shape)
    torch.onnx.export(mod, x, "%s/%s.onnx" % (out, name), opset_version=13,
                      input_names=["x"], output_names=["y"])
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "x").SerializeToString())
print(" ".join(MODELS))
PYEOF
if ! "$PY" "$T/make.py" "$T" >"$T/make.log" 2>&1; then
    bad "PyTorch export: $(tail -c 600 "$T/make.log")"
    finish
fi
models=$(tail -n 1 "$T/make.log")

for n in $models; do
    mod="$T/$n.onnx" in="$T/$n.in.pb"
    if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    for isa in avx512 scalar; do
        for th in 1 3; do
            # under a sanitizer a sample: the scalar twins on 1 thread only
            [ "$san" = 1 ] && [ "$full" != 1 ] && [ "$isa$th" = scalar3 ] && continue
            if PZ_ISA=$isa "$PZ" run "$mod" --input "$in" --threads $th --output "$T/$n.out.pb" \
                    >/dev/null 2>"$T/run.err"; then
                check "$n: PZ_ISA=$isa, $th threads vs ONNX Runtime (1e-5)" \
                    node "$E2E/compare.js" --rel 1e-5 "$T/$n.out.pb" "$T/$n.ort.pb"
            else
                bad "$n: PZ_ISA=$isa run failed: $(head -c 400 "$T/run.err")"
            fi
        done
    done
    if "$PZ" run "$mod" --input "$in" --profile >"$T/prof.txt" 2>&1; then
        convs=$(grep -c -e ' CONV ' -e ' POOL ' -e ' CONV_TRANSPOSE ' "$T/prof.txt")
        fast=$(grep -e ' CONV ' -e ' POOL ' -e ' CONV_TRANSPOSE ' "$T/prof.txt" |
               grep -c -e 'direct frames' -e 'depthwise frames' -e 'grouped frames' \
                   -e 'pool frames' -e 'phases$' -e 'phases frames$')
        check "$n: every Conv, pool, ConvTranspose on the fast path ($fast of $convs)" \
            test "$convs" -gt 0 -a "$fast" = "$convs"
        if [ "$n" = unet3d ]; then
            check "$n: three CONV_TRANSPOSE layers, the ReLU and the clamp fused" \
                sh -c "test \$(grep -c ' CONV_TRANSPOSE ' '$T/prof.txt') = 3 && ! grep -q -e ' UNARY ' -e ' CLIP ' -e ' RELU ' '$T/prof.txt'"
        fi
    else
        bad "$n: --profile failed: $(head -c 400 "$T/prof.txt")"
    fi
    built_bits "$n" "$mod" "$in" || continue
done
finish
