#!/bin/sh
# 45-act-epilogue.sh BUILD_DIR - the activations fused as conv / GEMM /
# MatMul epilogues beyond Relu and Clip (src/passes/epilogue.c, pz_act):
# models written here by PyTorch (torch.onnx.export, seeded weights and
# inputs, opset 14): Conv + SiLU (exported as Mul(X, Sigmoid(X)): gate.c's
# Swish, then the epilogue), Conv + Hardswish, Conv + LeakyReLU(0.1),
# depthwise Conv + Hardswish, Conv + Sigmoid, Conv + Tanh, Conv +
# Hardsigmoid, 1x1 Conv + SiLU, Linear + Sigmoid and Linear + Tanh (Gemm),
# a batched Linear + SiLU (MatMul); Conv + PReLU fused (its slopes the
# conv's input 4): per channel and one slope, 3x3 (the direct conv: no
# Winograd), depthwise 3x3, depthwise 5x5, 1x1, strided 1x1, grouped (slopes
# per super-group), after a residual Add (BlazeFace's block), C not a
# multiple of 16; Linear + PReLU fused into the Gemm (slopes per output
# column: nn.Linear(64, 48) -> nn.PReLU(48)) and a batched Linear + PReLU()
# (one slope [1], into the MatMul with its fused bias); written with onnx:
# MatMul [2, 7, 64] x [64, 48] -> PRelu with 48 slopes, and with a scalar
# slope (rank 0), both fused, and with a slope per row ([7, 1]: not fused,
# its BINARY stays). Each:
#   - `paleozoic run` vs ONNX Runtime 1.17 within 1e-5 relative (max|err| /
#     max|ref|), at the CPU's ISA and under PZ_ISA=avx2 and scalar (PReLU:
#     and ref);
#   - the fusion happened: `run --profile` lists the one CONV / GEMM /
#     MATMUL layer and no UNARY layer (the per-row PRelu: its BINARY stays), and
#     `inspect --json` gives that layer "act": "swish" (...);
#   - `paleozoic build`: the program's output has the bits of `paleozoic
#     run`, and the generated C names the act (PZ_ACT_SWISH, ...);
#   - a chain (Conv+SiLU, depthwise+Hardswish, 1x1+Sigmoid, Conv+Tanh) and
#     one of PReLUs (Conv, depthwise, 1x1; 40 channels) as one F-Block in
#     bands on 2 workers: the bits of the default run;
#   - the GEMM PReLUs in the other precisions' GEMM epilogues (--precision
#     bf16, int8-dynamic, --weights fp16): fused, on that kernel, within
#     its tolerance of ONNX Runtime's fp32 (a PRelu left out moves them
#     by O(1)).
# Under a sanitizer build (*san*) only every third model is built as a
# program (the extra GEMM PRelu slope shapes never). Ends with `N passed, N failed`.
set -u
NAME=45-act-epilogue
. "$(dirname "$0")/lib.sh"
part_init "$@"

"$PY" -c 'import torch, onnx, numpy' 2>/dev/null || skip_part "no torch/onnx/numpy for $PY"
[ "$have_ort" = 1 ] || skip_part "no node or node_modules/onnxruntime-node"

# name  act-constant  the fused layers' kinds (sorted, + between)
CASES="conv_silu PZ_ACT_SWISH CONV
conv_hardswish PZ_ACT_HARD_SWISH CONV
conv_leaky PZ_ACT_LEAKY_RELU CONV
dw_hardswish PZ_ACT_HARD_SWISH CONV
conv_sigmoid PZ_ACT_SIGMOID CONV
conv_tanh PZ_ACT_TANH CONV
conv_hardsigmoid PZ_ACT_HARD_SIGMOID CONV
pw_silu PZ_ACT_SWISH CONV
linear_sigmoid PZ_ACT_SIGMOID GEMM
linear_tanh PZ_ACT_TANH GEMM
matmul_silu PZ_ACT_SWISH MATMUL
conv_prelu PZ_ACT_PRELU CONV
conv_prelu1 PZ_ACT_PRELU CONV
dw_prelu PZ_ACT_PRELU CONV
dwk_prelu PZ_ACT_PRELU CONV
pw_prelu PZ_ACT_PRELU CONV
pws2_prelu PZ_ACT_PRELU CONV
grouped_prelu PZ_ACT_PRELU CONV
res_prelu PZ_ACT_PRELU CONV+CONV
linear_prelu PZ_ACT_PRELU GEMM
linear3_prelu1 PZ_ACT_PRELU MATMUL
matmul_prelu PZ_ACT_PRELU MATMUL
matmul_prelu0 PZ_ACT_PRELU MATMUL
matmul_prelu_row - MATMUL"

cat >"$T/make.py" <<'EOF'
import sys
import numpy as np
import torch
import torch.nn as nn
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(0)


def conv(act, c=24, m=40, groups=1, k=3):
    return nn.Sequential(nn.Conv2d(c, m, k, padding=k // 2, groups=groups), act)


class Res(nn.Module):
    # BlazeFace's block: act(dw(x) -> 1x1 + x), the Add fused as Z, then the PReLU
    def __init__(self, c=40):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 5, padding=2, groups=c)
        self.pw, self.act = nn.Conv2d(c, c, 1), nn.PReLU(c)

    def forward(self, x):
        return self.act(self.pw(self.dw(x)) + x)


class Lin(nn.Module):
    def __init__(self, act, k=48, n=40):
        super().__init__()
        self.l, self.act = nn.Linear(k, n), act

    def forward(self, x):
        return self.act(self.l(x))


MODELS = {
    "conv_silu": (conv(nn.SiLU()), (1, 24, 13, 17)),
    "conv_hardswish": (conv(nn.Hardswish()), (1, 24, 13, 17)),
    "conv_leaky": (conv(nn.LeakyReLU(0.1)), (1, 24, 13, 17)),
    "dw_hardswish": (conv(nn.Hardswish(), c=40, m=40, groups=40), (1, 40, 14, 15)),
    "conv_sigmoid": (conv(nn.Sigmoid()), (1, 24, 13, 17)),
    "conv_tanh": (conv(nn.Tanh()), (1, 24, 13, 17)),
    "conv_hardsigmoid": (conv(nn.Hardsigmoid()), (1, 24, 13, 17)),
    "pw_silu": (conv(nn.SiLU(), c=40, m=20, k=1), (1, 40, 11, 12)),
    "linear_sigmoid": (Lin(nn.Sigmoid()), (5, 48)),
    "linear_tanh": (Lin(nn.Tanh()), (5, 48)),
    "matmul_silu": (Lin(nn.SiLU()), (2, 7, 48)),
    "conv_prelu": (conv(nn.PReLU(40)), (1, 24, 13, 17)),
    "conv_prelu1": (conv(nn.PReLU()), (1, 24, 13, 17)),
    "dw_prelu": (conv(nn.PReLU(40), c=40, m=40, groups=40), (1, 40, 14, 15)),
    "dwk_prelu": (conv(nn.PReLU(40), c=40, m=40, groups=40, k=5), (2, 40, 14, 15)),
    "pw_prelu": (conv(nn.PReLU(36), c=40, m=36, k=1), (1, 40, 11, 12)),
    "pws2_prelu": (nn.Sequential(nn.Conv2d(40, 36, 1, stride=2), nn.PReLU(36)), (1, 40, 11, 12)),
    "grouped_prelu": (conv(nn.PReLU(32), c=32, m=32, groups=4), (2, 32, 9, 10)),
    "res_prelu": (Res(), (1, 40, 16, 16)),
    "linear_prelu": (Lin(nn.PReLU(48), k=64, n=48), (5, 64)),
    "linear3_prelu1": (Lin(nn.PReLU(), k=64, n=48), (2, 7, 64)),
    "chain_prelu": (nn.Sequential(conv(nn.PReLU(40), c=16, m=40), conv(nn.PReLU(40), c=40, m=40, groups=40),
                                  conv(nn.PReLU(), c=40, m=24, k=1)), (1, 16, 20, 18)),
    # row-local: one F-Block in bands (the conv kernels' row windows)
    "chain": (nn.Sequential(conv(nn.SiLU(), c=16, m=40), conv(nn.Hardswish(), c=40, m=40, groups=40),
                            conv(nn.Sigmoid(), c=40, m=24, k=1), conv(nn.Tanh(), c=24, m=24)),
              (1, 16, 20, 18)),
}
for name, (mod, shape) in MODELS.items():
    mod.eval()
    for p in mod.parameters():   # pre-activations over [-6, 6]: both sides of every kink
        p.data.uniform_(-0.5, 0.5)
    for a in mod.modules():   # PReLU slopes that differ per channel, some negative
        if isinstance(a, nn.PReLU):
            a.weight.data.uniform_(-0.5, 1.5)
    x = torch.randn(*shape) * 2
    torch.onnx.export(mod, x, "%s/%s.onnx" % (out, name), opset_version=14,
                      input_names=["x"], output_names=["y"])
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "x").SerializeToString())
# PRelu along the last axis of a batched MatMul (PyTorch's PReLU takes dim
# 1): slopes [48], a scalar, and one per row [7, 1] (not fused)
from onnx import helper, TensorProto
rng = np.random.default_rng(0)
for name, sshape in (("matmul_prelu", (48,)), ("matmul_prelu0", ()), ("matmul_prelu_row", (7, 1))):
    b = rng.uniform(-0.5, 0.5, (64, 48)).astype(np.float32)
    s = rng.uniform(-0.5, 1.5, sshape).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "b"], ["t"], name="mm"),
         helper.make_node("PRelu", ["t", "s"], ["y"], name="act")], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 7, 48])],
        [numpy_helper.from_array(b, "b"), numpy_helper.from_array(s, "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    open("%s/%s.onnx" % (out, name), "wb").write(m.SerializeToString())
    x = (rng.standard_normal((2, 7, 64)) * 2).astype(np.float32)
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
EOF
if ! "$PY" "$T/make.py" "$T" >"$T/make.log" 2>&1; then
    bad "PyTorch export: $(tail -c 600 "$T/make.log")"
    finish
fi

i=0
printf '%s\n' "$CASES" >"$T/cases"
while read -r n act kind; do
    i=$((i + 1))
    mod="$T/$n.onnx" in="$T/$n.in.pb"
    if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    if ! "$PZ" run "$mod" --input "$in" --output "$T/$n.out.pb" --profile >"$T/$n.prof" 2>"$T/run.err"; then
        bad "$n: paleozoic run failed: $(head -c 400 "$T/run.err")"
        continue
    fi
    check "$n: run vs ONNX Runtime (1e-5)" node "$E2E/compare.js" --rel 1e-5 "$T/$n.out.pb" "$T/$n.ort.pb"
    # the layers: the producer alone (PRelu: and its BINARY)
    kinds=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z_]+$/ {print $2}' "$T/$n.prof" | sort | tr '\n' ' ')
    want="$(echo "$kind" | tr + ' ') "
    [ "$act" = - ] && want="BINARY $want"
    if [ "$kinds" = "$want" ]; then ok
    else bad "$n: layers '$kinds', wanted '$want' (the activation fused)"; fi
    if [ "$act" != - ]; then
        aname=$(echo "${act#PZ_ACT_}" | tr 'A-Z' 'a-z')
        check "$n: inspect --json names the act $aname" sh -c \
            "\"$PZ\" inspect \"$mod\" --strategy none --json | grep -q '\"act\":\"$aname\"'"
    fi
    isas="avx2 scalar"
    case $n in *prelu*) isas="avx2 scalar ref" ;; esac   # PRelu: the reference conv's slopes too
    for isa in $isas; do
        if PZ_ISA=$isa "$PZ" run "$mod" --input "$in" --output "$T/$n.$isa.pb" >/dev/null 2>"$T/run.err"; then
            check "$n: run PZ_ISA=$isa vs ONNX Runtime (1e-5)" node "$E2E/compare.js" --rel 1e-5 \
                "$T/$n.$isa.pb" "$T/$n.ort.pb"
        else
            bad "$n: PZ_ISA=$isa paleozoic run failed: $(head -c 400 "$T/run.err")"
        fi
    done
    [ "$san" -eq 1 ] && [ $((i % 3)) -ne 1 ] && continue
    # the other slope shapes run the program's kernels of matmul_prelu: not built again
    case $n in linear3_prelu1 | matmul_prelu0 | matmul_prelu_row) continue ;; esac
    built_bits "$n" "$mod" "$in" || continue
    if [ "$act" != - ]; then
        rm -rf "$T/$n.c"
        if "$PZ" compile "$mod" -o "$T/$n.c" >"$T/compile.log" 2>&1 && grep -rq "$act" "$T/$n.c"; then ok
        else bad "$n: the generated C does not name $act: $(tail -c 300 "$T/compile.log")"; fi
    fi
done <"$T/cases"

# the GEMM PReLUs through the other precisions' epilogues: fused, on that
# kernel (the profile's kernel column), near ONNX Runtime's fp32
for n in linear_prelu matmul_prelu; do
    for k in "bf16 --precision bf16 1e-2" "int8-dyn --precision int8-dynamic 3e-2" \
        "f16w --weights fp16 1e-3"; do
        set -- $k
        if "$PZ" run "$T/$n.onnx" --input "$T/$n.in.pb" "$2" "$3" --output "$T/$n.$1.pb" --profile \
            >"$T/$n.$1.prof" 2>"$T/run.err"; then
            kinds=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z_]+$/ {print $2 "/" $NF}' "$T/$n.$1.prof" | tr '\n' ' ')
            case "$kinds" in
            "GEMM/$1"*" " | "MATMUL/$1"*" ") [ "$(echo "$kinds" | wc -w)" = 1 ] && ok ||
                bad "$n $2 $3: layers/kernels '$kinds', wanted the one GEMM on $1" ;;
            *) bad "$n $2 $3: layers/kernels '$kinds', wanted the one GEMM on $1" ;;
            esac
            check "$n $2 $3: vs ONNX Runtime fp32 ($4)" node "$E2E/compare.js" --rel "$4" \
                "$T/$n.$1.pb" "$T/$n.ort.pb"
        else
            bad "$n $2 $3: paleozoic run failed: $(head -c 400 "$T/run.err")"
        fi
    done
done

# each chain as one fused F-Block split in bands on 2 workers (row windows of
# the direct and depthwise kernels): the bits of the default run
for n in chain chain_prelu; do
    nl=4
    [ "$n" = chain_prelu ] && nl=3
    if "$PZ" inspect "$T/$n.onnx" --strategy none --json >"$T/$n.layers.json" 2>"$T/log" &&
        "$PY" -c 'import json, sys; L = json.load(open(sys.argv[1]))["layers"]; json.dump({"version": 1, "layers": L, "blocks": [{"first": 0, "count": L, "mp": 2, "split": "bands"}]}, open(sys.argv[2], "w"))' \
            "$T/$n.layers.json" "$T/$n.bands.json" 2>>"$T/log" &&
        "$PZ" run "$T/$n.onnx" --input "$T/$n.in.pb" --output "$T/$n.def.pb" >>"$T/log" 2>&1 &&
        "$PZ" run "$T/$n.onnx" --input "$T/$n.in.pb" --schedule "$T/$n.bands.json" --output "$T/$n.bands.pb" \
            --profile >"$T/$n.bands.prof" 2>>"$T/log"; then
        check "$n: $nl layers in one block" grep -q "$nl layers in 1 blocks" "$T/$n.bands.prof"
        check "$n: bands schedule bitwise = default run" cmp_bit "$T/$n.bands.pb" "$T/$n.def.pb"
        node "$E2E/ort_run.js" "$T/$n.onnx" "$T/$n.in.pb" -- "$T/$n.ort.pb" >/dev/null 2>&1
        # 1e-4: four layers of float sums (Winograd's 3x3s): 1.1e-5 here, the
        # unfused layers 1.6e-5
        check "$n: vs ONNX Runtime (1e-4)" cmp_rel "$T/$n.def.pb" "$T/$n.ort.pb"
    else
        bad "$n: the bands schedule: $(tail -c 500 "$T/log")"
    fi
done
finish
