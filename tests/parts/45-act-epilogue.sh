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
#   - the GEMM PReLUs and Linear + Mish in the other precisions' GEMM
#     epilogues (--precision bf16, int8-dynamic, --weights fp16): fused, on
#     that kernel, within its tolerance of ONNX Runtime's fp32 (a PRelu
#     left out moves them by O(1)).
# Conv + ELU(0.7), Conv + SELU, Conv + Mish (nn.Mish at opset 14 is
# Mul(X, Tanh(Softplus(X))): gate.c's Mish, then the epilogue), Conv +
# Softplus, Linear + ELU, Linear + Mish (Gemm): the same checks (their
# kernels' bits against the UNARY layer's: tests/unit/rt_act.c). GELU: Conv
# 1x1 -> Gelu (opset 20, written with onnx), approximate none and tanh (the
# generated C's act carries the form: lo 1); nn.GELU() after a 1x1 Conv and
# a Linear (exported as x * 0.5 * (1 + Erf(x / sqrt 2)): gate.c's Gelu, then
# the epilogue); Linear + GELU also in the bf16, int8-dynamic and fp16-weight
# GEMMs.
# Piecewise activations as PyTorch writes them, after a Conv (Gemm, MatMul):
# torch.where(y > 0, y, 0.2 y) (LEAKY_RELU), (y > 1, y, 0), (y < 0, 0, y), (y < 0, -0, y),
# (y > 0).float() * y (LEAKY_RELU 0), (-1 >= y, -0.5 y, 3), (y == 2, -7,
# 0.25 y), Linear + (y >= 0.5, y, -1.5 y), a batched Linear + (y < -1, 0.3 y,
# y) (SELECT; integer weights and inputs: sums on the thresholds): vs ONNX
# Runtime at each ISA, one layer, the act named, the built program's bits
# (three of them); fused = unfused bitwise (random floats; the unfused twin's
# threshold a per-channel tensor of one value) at each ISA; not fused (and right): y also read by an Add, a per-channel tensor B, a
# threshold computed from the input. Masks (SELECT with constant branches):
# (y > 0.5).float(), (y <= -1).float() * -2 (-0 where false), Linear +
# (~(y > 0)).float() (Not: the branches swapped), a batched Linear + 3 *
# (y < 0).float(); (y > 0.5).double(): its Cast stays, the comparison goes
# into the conv as a bool output (45-cmp-epilogue.sh); (~(y > t)).float() * -0.7
# fused = unfused bitwise at each ISA (the unfused twin's threshold one value
# per column, [1, 1, 1, 11]: one per channel would fuse as a bool).
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
matmul_prelu_row - MATMUL
conv_elu PZ_ACT_ELU CONV
conv_selu PZ_ACT_SELU CONV
conv_mish PZ_ACT_MISH CONV
conv_softplus PZ_ACT_SOFTPLUS CONV
linear_elu PZ_ACT_ELU GEMM
linear_mish PZ_ACT_MISH GEMM
conv_gelu PZ_ACT_GELU CONV
conv_gelu_tanh PZ_ACT_GELU CONV
conv_gelu_dec PZ_ACT_GELU CONV
linear_gelu PZ_ACT_GELU GEMM"

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
    # nn.Mish exports (opset < 18) as Mul(X, Tanh(Softplus(X))): gate.c's Mish
    "conv_elu": (conv(nn.ELU(0.7)), (1, 24, 13, 17)),
    "conv_selu": (conv(nn.SELU()), (1, 24, 13, 17)),
    "conv_mish": (conv(nn.Mish()), (1, 24, 13, 17)),
    "conv_softplus": (conv(nn.Softplus()), (1, 24, 13, 17)),
    "linear_elu": (Lin(nn.ELU()), (5, 48)),
    "linear_mish": (Lin(nn.Mish()), (5, 48)),
    # nn.GELU() exports (opset < 20) as x * 0.5 * (1 + Erf(x / sqrt 2)): gate.c's Gelu
    "conv_gelu_dec": (conv(nn.GELU(), c=24, m=40, k=1), (1, 24, 13, 17)),
    "linear_gelu": (Lin(nn.GELU()), (5, 48)),
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
# Conv 1x1 -> Gelu (opset 20), the erf and the tanh forms (ConvNeXt-like)
for name, ap in (("conv_gelu", "none"), ("conv_gelu_tanh", "tanh")):
    w = rng.uniform(-0.5, 0.5, (40, 24, 1, 1)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (40,)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["t"], name="conv"),
         helper.make_node("Gelu", ["t"], ["y"], name="act", approximate=ap)], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 24, 13, 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 40, 13, 17])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    open("%s/%s.onnx" % (out, name), "wb").write(m.SerializeToString())
    x = (rng.standard_normal((1, 24, 13, 17)) * 2).astype(np.float32)
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
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
# GELU's form in the generated C: the tanh form's act sets lo 1, the erf form's none
rm -rf "$T/gt.c" "$T/ge.c"
if "$PZ" compile "$T/conv_gelu_tanh.onnx" -o "$T/gt.c" >"$T/compile.log" 2>&1 &&
    "$PZ" compile "$T/conv_gelu.onnx" -o "$T/ge.c" >>"$T/compile.log" 2>&1; then
    check "conv_gelu_tanh: the generated C's act is GELU with lo 1 (the tanh form)" \
        grep -rqF "{.kind = PZ_ACT_GELU, .lo = 1.0f}" "$T/gt.c"
    check "conv_gelu: the generated C's act is GELU without lo (the erf form)" \
        grep -rqF "{.kind = PZ_ACT_GELU}" "$T/ge.c"
else
    bad "conv_gelu(_tanh): paleozoic compile failed: $(tail -c 300 "$T/compile.log")"
fi

# the GEMM PReLUs and Mish through the other precisions' epilogues: fused,
# on that kernel (the profile's kernel column), near ONNX Runtime's fp32
for n in linear_prelu matmul_prelu linear_mish linear_gelu; do
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

# Where(Cmp(y, c), A, B) after a Conv, Gemm or MatMul (src/passes/select.c)
cat >"$T/make_sel.py" <<'EOF'
import sys
import numpy as np
import torch
import torch.nn as nn
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(0)


class Sel(nn.Module):
    def __init__(self, f, lin=False):
        super().__init__()
        self.p, self.f = nn.Linear(16, 40) if lin else nn.Conv2d(8, 24, 3, padding=1), f

    def forward(self, x):
        return self.f(self.p(x), x)


z, k = torch.zeros(()), lambda v: torch.full((), v)
MODELS = {
    "sel_leaky": Sel(lambda y, x: torch.where(y > 0, y, 0.2 * y)),
    "sel_thresh": Sel(lambda y, x: torch.where(y > 1.0, y, z)),
    "sel_lt0": Sel(lambda y, x: torch.where(y < 0, z, y)),
    "sel_mask": Sel(lambda y, x: (y > 0).float() * y),
    "sel_le_rev": Sel(lambda y, x: torch.where(-1.0 >= y, y * -0.5, k(3.0))),
    "sel_eq": Sel(lambda y, x: torch.where(y == 2.0, k(-7.0), 0.25 * y)),
    "sel_negz": Sel(lambda y, x: torch.where(y < 0, k(-0.0), y)),
    "lin_ge": Sel(lambda y, x: torch.where(y >= 0.5, y, -1.5 * y), True),
    "mm_lt": Sel(lambda y, x: torch.where(y < -1.0, 0.3 * y, y), True),
    "sel_used": Sel(lambda y, x: torch.where(y > 0, y, 0.2 * y) + y),
    "sel_tensor_b": Sel(lambda y, x: torch.where(y > 0, y, torch.arange(24.0).reshape(1, 24, 1, 1))),
    "sel_var_c": Sel(lambda y, x: torch.where(y > x.mean(), y, z)),
    "mask_gt": Sel(lambda y, x: (y > 0.5).float()),
    "mask_le_k": Sel(lambda y, x: (y <= -1.0).float() * -2.0),
    "lin_not": Sel(lambda y, x: (~(y > 0)).float(), True),
    "mm_mask_k": Sel(lambda y, x: 3.0 * (y < 0).float(), True),
    "mask_double": Sel(lambda y, x: (y > 0.5).double()),
}
SHAPES = {"lin_ge": (6, 16), "mm_lt": (2, 5, 16), "lin_not": (6, 16), "mm_mask_k": (2, 5, 16)}
# fused and not (a per-channel threshold of equal values): one conv, random floats
for name, t in (("bits_fused", torch.tensor(0.05)), ("bits_unfused", torch.full((1, 24, 1, 1), 0.05))):
    MODELS[name] = Sel(lambda y, x, t=t: torch.where(y > t, y, -0.3 * y))
for name, t in (("bitsm_fused", torch.tensor(0.05)), ("bitsm_unfused", torch.full((1, 1, 1, 11), 0.05))):
    MODELS[name] = Sel(lambda y, x, t=t: (~(y > t)).float() * -0.7)
for name, mod in MODELS.items():
    mod.eval()
    torch.manual_seed(1)
    for p in mod.parameters():   # small integers: sums hit the thresholds exactly
        p.data = torch.randint(-1, 2, p.shape).float()
    x = torch.randint(-3, 4, SHAPES.get(name, (1, 8, 9, 11))).float()
    if name.startswith("bits"):
        for p in mod.parameters():
            p.data = torch.randn(p.shape) * 0.3
        x = torch.randn(1, 8, 9, 11)
    torch.onnx.export(mod, x, "%s/%s.onnx" % (out, name), opset_version=14,
                      input_names=["x"], output_names=["y"])
    with open("%s/%s.in.pb" % (out, name), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "x").SerializeToString())
EOF
# name  inspect's act (-: not fused)  the generated C's constant  the layers
SEL="sel_leaky leaky_relu PZ_ACT_LEAKY_RELU CONV
sel_thresh select PZ_CMP_GT CONV
sel_lt0 select PZ_CMP_LT CONV
sel_mask leaky_relu PZ_ACT_LEAKY_RELU CONV
sel_le_rev select PZ_CMP_LE CONV
sel_eq select PZ_ACT_SELECT CONV
sel_negz select -0.0f CONV
lin_ge select PZ_CMP_GE GEMM
mm_lt select PZ_CMP_LT MATMUL
sel_used - - BINARY+BINARY+COMPARE+CONV+WHERE
sel_tensor_b - - COMPARE+CONV+WHERE
sel_var_c - - COMPARE+CONV+REDUCE_MEAN+WHERE
mask_gt select PZ_CMP_GT CONV
mask_le_k select -0.0f CONV
lin_not select PZ_ACT_SELECT GEMM
mm_mask_k select PZ_CMP_LT MATMUL
mask_double select PZ_CMP_GT CAST+CONV"
if ! "$PY" "$T/make_sel.py" "$T" >"$T/make.log" 2>&1; then
    bad "PyTorch export (select): $(tail -c 600 "$T/make.log")"
    finish
    exit
fi
printf '%s\n' "$SEL" >"$T/sel"
i=0
while read -r n act cname kind; do
    i=$((i + 1))
    mod="$T/$n.onnx" in="$T/$n.in.pb"
    if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    for isa in native avx2 scalar; do
        e=PZ_ISA=$isa
        [ "$isa" = native ] && e=PZ_SEL_NATIVE=1   # the CPU's ISA
        if env "$e" "$PZ" run "$mod" --input "$in" --output "$T/$n.$isa.pb" \
            --profile >"$T/$n.$isa.prof" 2>"$T/run.err"; then
            check "$n: run PZ_ISA=$isa vs ONNX Runtime (1e-5)" node "$E2E/compare.js" --rel 1e-5 \
                "$T/$n.$isa.pb" "$T/$n.ort.pb"
        else
            bad "$n: PZ_ISA=$isa paleozoic run failed: $(head -c 400 "$T/run.err")"
        fi
    done
    kinds=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z_]+$/ {print $2}' "$T/$n.native.prof" | sort | tr '\n' ' ')
    want="$(echo "$kind" | tr + ' ') "
    if [ "$kinds" = "$want" ]; then ok
    else bad "$n: layers '$kinds', wanted '$want'"; fi
    [ "$act" = - ] && continue
    check "$n: inspect --json names the act $act" sh -c \
        "\"$PZ\" inspect \"$mod\" --strategy none --json | grep -q '\"act\":\"$act\"'"
    # built programs (a few seconds each): one per comparison printed, and the GEMM
    case $n in sel_le_rev | sel_eq | lin_ge | sel_negz | mask_le_k | lin_not) ;; *) continue ;; esac
    [ "$san" -eq 1 ] && [ "$n" != sel_le_rev ] && continue
    built_bits "$n" "$mod" "$in" || continue
    rm -rf "$T/$n.c"
    if "$PZ" compile "$mod" -o "$T/$n.c" >"$T/compile.log" 2>&1 && grep -rqF -- "$cname" "$T/$n.c"; then ok
    else bad "$n: the generated C does not name $cname: $(tail -c 300 "$T/compile.log")"; fi
done <"$T/sel"
# the constant -0 kept: where y < 0 the output is -0 (ORT 1.17's Where gives +0 there;
# y = 0 keeps its +0)
check "sel_negz: -0 where y < 0" "$PY" -c '
import sys, numpy as np
from onnx import TensorProto, numpy_helper
t = TensorProto()
t.ParseFromString(open(sys.argv[1], "rb").read())
a = numpy_helper.to_array(t)
sys.exit(not (np.signbit(a[a == 0]).sum() > 100))' "$T/sel_negz.native.pb"
# fused = unfused bit for bit (random floats), at each ISA: the Where
# (CONV, COMPARE, BINARY, WHERE unfused) and the mask Cast(Not(Cmp)) * k
# (CONV, COMPARE, NOT, CAST, BINARY)
fused_bits bits 4
fused_bits bitsm 5
# The UNARY layer's vector forms (vmath_avx512.h) standalone on a plain
# [3, 5, 7] (105 elements: 6 vectors and a partial one, the flat path's
# tail): Exp (x in [-90, 88]), Log (x in 1e-30 .. 1e30), Tanh, Elu(0.7),
# Selu, Softplus, Mish (x in [-30, 30] and a few down to -100), each vs
# ONNX Runtime within 2e-6 relative elementwise at the CPU's ISA and under
# PZ_ISA=avx2 and scalar; and Conv + Mish fused = the same graph unfused (the
# conv's output also a graph output) bitwise at each ISA.
cat >"$T/make_un.py" <<'EOF'
import sys
import numpy as np
from onnx import helper, numpy_helper, TensorProto

out = sys.argv[1]
rng = np.random.default_rng(1)
vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
xs = {"wide": np.concatenate([rng.uniform(-30, 30, 100), [-100, -91, -88, -60, -0.0]]),
      "exp": rng.uniform(-90, 88, 105), "log": 10.0 ** rng.uniform(-30, 30, 105)}
ops = (("exp", "Exp", {}, "exp"), ("log", "Log", {}, "log"), ("tanh", "Tanh", {}, "wide"),
       ("elu", "Elu", {"alpha": 0.7}, "wide"), ("selu", "Selu", {}, "wide"),
       ("softplus", "Softplus", {}, "wide"), ("mish", "Mish", {}, "wide"))
for name, op, attrs, xk in ops:
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], name,
                          [vi("x", [3, 5, 7])], [vi("y", [3, 5, 7])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    open("%s/un_%s.onnx" % (out, name), "wb").write(m.SerializeToString())
    x = xs[xk].astype(np.float32).reshape(3, 5, 7)
    open("%s/un_%s.in.pb" % (out, name), "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
w = (rng.standard_normal((24, 16, 3, 3)) * 0.3).astype(np.float32)
for name, outs in (("mish_fused", [vi("y", [1, 24, 9, 11])]),
                   ("mish_unfused", [vi("y", [1, 24, 9, 11]), vi("c", [1, 24, 9, 11])])):
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                           helper.make_node("Mish", ["c"], ["y"])], name,
                          [vi("x", [1, 16, 9, 11])], outs, [numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    open("%s/%s.onnx" % (out, name), "wb").write(m.SerializeToString())
x = (rng.standard_normal((1, 16, 9, 11)) * 4).astype(np.float32)
open("%s/mish_in.pb" % out, "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
EOF
if "$PY" "$T/make_un.py" "$T" >"$T/make_un.log" 2>&1; then
    for n in exp log tanh elu selu softplus mish; do
        mod="$T/un_$n.onnx" in="$T/un_$n.in.pb"
        if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/un_$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
            bad "un_$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
            continue
        fi
        for isa in native avx2 scalar; do
            e=PZ_ISA=$isa
            [ "$isa" = native ] && e=PZ_UN_NATIVE=1
            if env "$e" "$PZ" run "$mod" --input "$in" --output "$T/un_$n.$isa.pb" >/dev/null 2>"$T/run.err"; then
                check "un_$n (105 elements) PZ_ISA=$isa vs ONNX Runtime (2e-6 elementwise)" \
                    node "$E2E/compare.js" --close 2e-6 1e-37 "$T/un_$n.$isa.pb" "$T/un_$n.ort.pb"
            else
                bad "un_$n: PZ_ISA=$isa run failed: $(head -c 400 "$T/run.err")"
            fi
        done
    done
    for isa in native avx2 scalar; do
        e=PZ_ISA=$isa
        [ "$isa" = native ] && e=PZ_UN_NATIVE=1
        if env "$e" "$PZ" run "$T/mish_fused.onnx" --input "$T/mish_in.pb" --output "$T/mf.pb" --profile >"$T/mf.prof" 2>"$T/run.err" &&
            env "$e" "$PZ" run "$T/mish_unfused.onnx" --input "$T/mish_in.pb" --output "$T/mu.pb" --output "$T/mu_c.pb" >/dev/null 2>>"$T/run.err"; then
            check "conv + mish PZ_ISA=$isa: fused (1 layer) = unfused bitwise" sh -c \
                "grep -q '1 layers' \"$T/mf.prof\" && node \"$E2E/compare.js\" --bitwise \"$T/mf.pb\" \"$T/mu.pb\""
        else
            bad "conv + mish PZ_ISA=$isa: run failed: $(head -c 400 "$T/run.err")"
        fi
    done
else
    bad "unary models: $(tail -c 600 "$T/make_un.log")"
fi
finish
