#!/bin/sh
# 45-resize-deconv.sh BUILD_DIR - the fast twins of Resize (nearest,
# linear and cubic on H and W: rt/kernels/layout/resize_fast.c), of ConvTranspose
# with kernel = stride (conv/conv_transpose_fast.c) and the blocked BINARY
# with a scalar operand (eltwise16c*.c, bc 3), on models written here by
# PyTorch (seeded, opset 13): F.interpolate nearest (scale 2, odd sizes),
# bilinear (align_corners False and True, up and down), bicubic (up, and
# down with align_corners True), ConvTranspose2d
# 2x2/2, 4x4/4 grouped without bias, 24 -> 1 channel, 4x4/2 pad 1 + ReLU,
# 3x3/2 pad 1 output_padding 1 + Hardtanh, 4x4/2 pad 1 in 2 groups of 32
# channels + ReLU, 3x3/2 dilation 2 pad 2 + ReLU, and a Conv -> x * s +
# t -> HardSwish written out (PaddleOCR's pattern) -> Conv. Each:
#   - `paleozoic run` vs ONNX Runtime 1.17 within 1e-5 relative (the chain
#     also under PZ_ISA=scalar);
#   - the models of Resize or ConvTranspose alone: runs at the CPU's ISA
#     and PZ_ISA=scalar (the plain C twins) have the bits of PZ_ISA=ref
#     (the references), at 1 and 3 threads; but a ConvTranspose of group 1
#     or of whole 16-channel groups, dilated or not, runs as stride-1 convs per output phase (deconv_phases: the conv's
#     summation order, FMA): within 1e-6 relative of the reference;
#   - `paleozoic build`: the program's output has the bits of `run`.
# Ends with `N passed, N failed`.
set -u
NAME=45-resize-deconv
. "$(dirname "$0")/lib.sh"
part_init "$@"

"$PY" -c 'import torch, onnx, numpy' 2>/dev/null || skip_part "no torch/onnx/numpy for $PY"
[ "$have_ort" = 1 ] || skip_part "no node or node_modules/onnxruntime-node"

cat >"$T/make.py" <<'PYEOF'
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(0)


class Interp(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, **self.kw)


class Chain(nn.Module):
    """Conv -> x * s + t -> x * clip(x + 3, 0, 6) / 6 -> Conv: scalar operands."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(8, 24, 3, padding=1), nn.Conv2d(24, 16, 1)

    def forward(self, x):
        y = self.c1(x) * 0.75 + 0.25
        y = y * torch.clamp(y + 3.0, 0.0, 6.0) / 6.0
        return self.c2(y)


# name: module, input shape (the first group: Resize or ConvTranspose alone)
ALONE = {
    "nearest2x": (Interp(scale_factor=2.0, mode="nearest"), (1, 5, 7, 9)),
    "nearest_odd": (Interp(size=(23, 31), mode="nearest"), (2, 3, 10, 13)),
    "bilinear2x": (Interp(scale_factor=2.0, mode="bilinear", align_corners=False), (1, 6, 9, 11)),
    "bilinear_ac": (Interp(size=(19, 29), mode="bilinear", align_corners=True), (1, 4, 10, 15)),
    "bilinear_down": (Interp(size=(7, 9), mode="bilinear", align_corners=False), (1, 3, 13, 17)),
    "bicubic2x": (Interp(scale_factor=2.0, mode="bicubic", align_corners=False), (1, 5, 8, 13)),
    "bicubic_ac_down": (Interp(size=(9, 7), mode="bicubic", align_corners=True), (1, 3, 17, 12)),
    "deconv2": (nn.ConvTranspose2d(24, 24, 2, stride=2), (1, 24, 20, 21)),
    "deconv4_g2": (nn.ConvTranspose2d(8, 6, 4, stride=4, groups=2, bias=False), (2, 8, 9, 7)),
    "deconv_1out": (nn.ConvTranspose2d(24, 1, 2, stride=2), (1, 24, 40, 150)),
    "deconv_k4s2": (nn.Sequential(nn.ConvTranspose2d(20, 8, 4, 2, 1), nn.ReLU()), (1, 20, 9, 11)),
    "deconv_k3s2": (nn.Sequential(nn.ConvTranspose2d(16, 19, 3, 2, 1, 1), nn.Hardtanh(-0.5, 0.5)),
                    (2, 16, 7, 6)),
    "deconv_k4s2_g2": (nn.Sequential(nn.ConvTranspose2d(64, 32, 4, 2, 1, groups=2), nn.ReLU()),
                       (1, 64, 7, 9)),
    "deconv_k3s2_d2": (nn.Sequential(nn.ConvTranspose2d(20, 24, 3, 2, 2, 1, dilation=2), nn.ReLU()),
                       (1, 20, 8, 7)),
}
MODELS = dict(ALONE, chain=(Chain(), (1, 8, 20, 22)))
for name, (mod, shape) in MODELS.items():
    mod.eval()
    x = torch.randn(*shape)
    torch.onnx.export(mod, x, "%s/%s.onnx" % (out, name), opset_version=13,
                      input_names=["x"], output_names=["y"])
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "x").SerializeToString())
print(" ".join(ALONE))
PYEOF
if ! "$PY" "$T/make.py" "$T" >"$T/make.log" 2>&1; then
    bad "PyTorch export: $(tail -c 600 "$T/make.log")"
    finish
fi
alone=$(tail -n 1 "$T/make.log")

for n in $alone chain; do
    mod="$T/$n.onnx" in="$T/$n.in.pb"
    if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    if ! "$PZ" run "$mod" --input "$in" --output "$T/$n.out.pb" >/dev/null 2>"$T/run.err"; then
        bad "$n: paleozoic run failed: $(head -c 400 "$T/run.err")"
        continue
    fi
    check "$n: run vs ONNX Runtime (1e-5)" node "$E2E/compare.js" --rel 1e-5 "$T/$n.out.pb" "$T/$n.ort.pb"
    case $n in deconv_k*)   # DCGAN's and autoencoders' k > s: phases, the ReLU or Clip fused
        "$PZ" run "$mod" --input "$in" --profile >"$T/$n.prof" 2>&1
        check "$n: one CONV_TRANSPOSE layer on phases, its act fused" \
            sh -c "grep -q 'CONV_TRANSPOSE .* phases\$' '$T/$n.prof' && ! grep -q 'UNARY\|CLIP\|RELU' '$T/$n.prof'" ;;
    esac
    if [ $n = chain ]; then   # the blocked binary's scalar twin (bc 3)
        if PZ_ISA=scalar "$PZ" run "$mod" --input "$in" --output "$T/$n.sc.pb" >/dev/null 2>"$T/run.err"; then
            check "$n: PZ_ISA=scalar vs ONNX Runtime (1e-5)" node "$E2E/compare.js" --rel 1e-5 \
                "$T/$n.sc.pb" "$T/$n.ort.pb"
        else
            bad "$n: PZ_ISA=scalar run failed: $(head -c 400 "$T/run.err")"
        fi
    fi
    case " $alone " in *" $n "*)
        for th in 1 3; do
            if ! PZ_ISA=ref "$PZ" run "$mod" --input "$in" --threads $th --output "$T/$n.ref.pb" \
                    >/dev/null 2>"$T/run.err"; then
                bad "$n: PZ_ISA=ref run failed: $(head -c 400 "$T/run.err")"
                continue
            fi
            for isa in avx512 scalar; do   # the CPU's best (capped), the plain C twins
                if PZ_ISA=$isa "$PZ" run "$mod" --input "$in" --threads $th \
                        --output "$T/$n.fast.pb" >/dev/null 2>"$T/run.err"; then
                    case "$isa:$n" in
                    *:deconv2 | *:deconv_1out | *:deconv_k4s2 | *:deconv_k3s2 | *:deconv_k4s2_g2 | \
                    *:deconv_k3s2_d2)
                        check "$n: $th threads, PZ_ISA=$isa (phases): PZ_ISA=ref within 1e-6" \
                            node "$E2E/compare.js" --rel 1e-6 "$T/$n.fast.pb" "$T/$n.ref.pb" ;;
                    *)
                        check "$n: $th threads, PZ_ISA=$isa: the bits of PZ_ISA=ref" \
                            cmp_bit "$T/$n.fast.pb" "$T/$n.ref.pb" ;;
                    esac
                else
                    bad "$n: PZ_ISA=$isa run failed: $(head -c 400 "$T/run.err")"
                fi
            done
        done
    esac
    built_bits "$n" "$mod" "$in" || continue
done
finish
