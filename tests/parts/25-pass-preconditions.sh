#!/bin/sh
# 25-pass-preconditions.sh BUILD_DIR [MODELDIR] - the graph passes'
# preconditions end to end (issue 38): models whose patterns the passes
# rewrite sit next to activations the epilogue pass fuses, so that one pass
# could take a node another pass kills. Written here with python3-onnx, run
# through `paleozoic run --input X.pb --output Y.pb... --profile`, and
# compared with a numpy reference computed here in float64 (<= 1e-5
# relative to max|ref|) and, where node has onnxruntime-node
# (tools/setup.sh), with ONNX Runtime 1.17 through tests/e2e/ort_run.js
# (<= 1e-4). The profile's layers must be the ones listed (the fusions still
# happen, and no activation is lost):
#
#   ln_<act>  a LayerNorm written out as nine nodes (ReduceMean, Sub, Pow,
#             ReduceMean, Add, Sqrt, Div, Mul, Add: PyTorch below opset 17)
#             followed by Relu, Clip, LeakyRelu, Sigmoid, Tanh, Elu, Softplus,
#             HardSigmoid, HardSwish, Gelu (opset 20), a written-out GELU and
#             a SiLU (Mul(y, Sigmoid(y))): one LAYERNORM layer, the activation
#             its own layer after it. Issue 38: the epilogues fused the Relu
#             into the ninth node, norm.c then dropped it: exit 0, no Relu.
#   ln_*      variants: Mul(d, d) for the square, gamma [1, N], opset 18
#             (axes as an input), the LayerNorm's output also a graph output
#             (fused; both outputs checked), v also a graph output (not
#             fused: nine layers), gamma [5, N] (per row: not a LayerNorm).
#   mlp_*     MatMul + bias -> LayerNorm -> Relu, and LayerNorm -> MatMul +
#             bias -> Gelu (the linear layer's epilogue after the norm).
#   res_*     residual Adds (issue 42): MatMul + bias + x -> Relu and Gemm +
#             C -> Reshape -> unit-dim Transpose + x fuse into one layer (Z);
#             not fused: z broadcasting, a Transpose that moves elements
#             between, the product also a graph output.
#   act_*     MatMul + bias -> Tanh, HardSigmoid, SiLU (Mul(h, Sigmoid(h))):
#             one MATMUL layer (pz_act); not fused: Sigmoid after an Add, a
#             LeakyRelu whose input is also a graph output.
#
# Works under a sanitizer build dir too (the models are small). Ends with
# `25-pass-preconditions: N passed, N failed` (`, 1 skipped` without ONNX
# Runtime, the numpy checks still run; `0 passed, 0 failed, 1 skipped`
# without python3-onnx and numpy).
set -u
NAME=25-pass-preconditions
. "$(dirname "$0")/lib.sh"
part_init "$@"

if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
    skip_part "$PY cannot import onnx and numpy"
fi
ORT=""
if [ -d "$ROOT/node_modules/onnxruntime-node" ] && command -v node >/dev/null; then
    ORT="$ROOT/tests/e2e/ort_run.js"
else
    skip_one "ort: needs node with onnxruntime-node (tools/setup.sh); numpy reference only"
fi

cat >"$T/cases.py" <<'EOF'
"""cases.py PZ WORKDIR ORT_RUN_JS|'': the models of 25-pass-preconditions.sh;
prints one line per case and `cases: N passed, N failed`."""
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PZ, W, ORT = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(38)
passed = failed = 0


def check(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))
    return ok


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f32(v):
    return np.asarray(v, dtype=np.float32)


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t).astype(np.float64)


def relerr(got, want):
    if got.shape != want.shape:
        return float("inf")
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def run(name, nodes, x, inits, opset, wants, layers):
    """x: the input "x"; wants: [(output name, float64 array)]; layers: the
    profile's layer kinds, in order."""
    outs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(a.shape)) for k, a in wants]
    inits = [numpy_helper.from_array(a if a.dtype == np.int64 else f32(a), k) for k, a in inits]
    xv = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))
    g = helper.make_graph(nodes, name, [xv], outs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    if opset <= 17:   # python3-onnx 1.12's checker knows opsets up to 17
        onnx.checker.check_model(m)
    path = os.path.join(W, name + ".onnx")
    onnx.save(m, path)
    xin = os.path.join(W, name + ".x.pb")
    open(xin, "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
    got = [os.path.join(W, "%s.%d.pb" % (name, i)) for i in range(len(wants))]
    args = [PZ, "run", path, "--input", xin, "--profile"]
    for p in got:
        args += ["--output", p]
    r = subprocess.run(args, capture_output=True, text=True)
    if not check(r.returncode == 0, name, "paleozoic run exit %d: %s" % (r.returncode, r.stderr[:400])):
        return
    kinds = [l.split()[1] for l in r.stdout.splitlines()
             if len(l.split()) > 2 and l.split()[0].isdigit() and l.split()[1].isupper()]
    check(kinds == layers, name, "layers %s, expected %s" % (kinds, layers))
    for (k, want), p in zip(wants, got):
        e = relerr(load(p), want)
        check(e <= 1e-5, name, "output %s vs numpy: max|err|/max|ref| = %.3e" % (k, e))
    line = "%s: layers %s" % (name, " ".join(kinds))
    if ORT:
        ref = [os.path.join(W, "%s.ort%d.pb" % (name, i)) for i in range(len(wants))]
        o = subprocess.run(["node", ORT, path, xin, "--"] + ref, capture_output=True, text=True)
        if check(o.returncode == 0, name, "ONNX Runtime failed: " + o.stderr[:300]):
            for (k, _), p, q in zip(wants, got, ref):
                e = relerr(load(p), load(q))
                check(e <= 1e-4, name, "output %s vs ONNX Runtime: max|err|/max|ref| = %.3e" % (k, e))
                line += ", %s vs ort %.1e" % (k, e)
    print(line)


# ---- the written-out LayerNorm ------------------------------------------------
N = 32
X = rand(2, 7, N, lo=-2, hi=2)
GAMMA, BETA = rand(N, lo=0.5, hi=1.5), rand(N, lo=-0.5, hi=0.5)
EPS = 1e-5


def ln_ref(x, gamma=GAMMA, beta=BETA):
    x = x.astype(np.float64)
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + np.float64(np.float32(EPS))) * gamma.astype(np.float64) + beta.astype(np.float64)


def ln_nodes(x="x", y="ln", opset=13, square="pow", gamma="gamma"):
    """The nine nodes, reading x, writing y; intermediates named y.*"""
    def mean(i, o):
        if opset >= 18:
            return helper.make_node("ReduceMean", [i, "axes"], [o])
        return helper.make_node("ReduceMean", [i], [o], axes=[-1])
    sq = (helper.make_node("Mul", [y + ".d", y + ".d"], [y + ".p"]) if square == "mul" else
          helper.make_node("Pow", [y + ".d", "two"], [y + ".p"]))
    return [mean(x, y + ".m"),
            helper.make_node("Sub", [x, y + ".m"], [y + ".d"]),
            sq,
            mean(y + ".p", y + ".v"),
            helper.make_node("Add", [y + ".v", "eps"], [y + ".ve"]),
            helper.make_node("Sqrt", [y + ".ve"], [y + ".s"]),
            helper.make_node("Div", [y + ".d", y + ".s"], [y + ".n"]),
            helper.make_node("Mul", [y + ".n", gamma], [y + ".ng"]),
            helper.make_node("Add", [y + ".ng", "beta"], [y])]


def ln_inits(opset=13, gamma=GAMMA):
    inits = [("gamma", gamma), ("beta", BETA), ("two", np.float32(2)), ("eps", np.float32(EPS))]
    if opset >= 18:
        inits.append(("axes", np.array([-1], dtype=np.int64)))
    return inits


erf = np.vectorize(math.erf)
sigmoid = lambda v: 1 / (1 + np.exp(-v))
ACTS = [  # name, nodes after "ln" -> "y", opset, extra inits, reference, layer kinds after LAYERNORM
    ("relu", lambda: [helper.make_node("Relu", ["ln"], ["y"])], 13, [], lambda v: np.maximum(v, 0), ["UNARY"]),
    ("clip", lambda: [helper.make_node("Clip", ["ln", "lo", "hi"], ["y"])], 13,
     [("lo", np.float32(-0.25)), ("hi", np.float32(0.75))], lambda v: np.clip(v, -0.25, 0.75), ["UNARY"]),
    ("leakyrelu", lambda: [helper.make_node("LeakyRelu", ["ln"], ["y"], alpha=0.1)], 13, [],
     lambda v: np.where(v < 0, 0.1 * v, v), ["UNARY"]),
    ("sigmoid", lambda: [helper.make_node("Sigmoid", ["ln"], ["y"])], 13, [], sigmoid, ["UNARY"]),
    ("tanh", lambda: [helper.make_node("Tanh", ["ln"], ["y"])], 13, [], np.tanh, ["UNARY"]),
    ("elu", lambda: [helper.make_node("Elu", ["ln"], ["y"], alpha=0.7)], 13, [],
     lambda v: np.where(v < 0, 0.7 * (np.exp(v) - 1), v), ["UNARY"]),
    ("softplus", lambda: [helper.make_node("Softplus", ["ln"], ["y"])], 13, [],
     lambda v: np.log1p(np.exp(v)), ["UNARY"]),
    ("hardsigmoid", lambda: [helper.make_node("HardSigmoid", ["ln"], ["y"], alpha=0.25, beta=0.4)], 13, [],
     lambda v: np.clip(0.25 * v + 0.4, 0, 1), ["UNARY"]),
    ("hardswish", lambda: [helper.make_node("HardSwish", ["ln"], ["y"])], 14, [],
     lambda v: v * np.clip(v / 6 + 0.5, 0, 1), ["UNARY"]),
    ("gelu", lambda: [helper.make_node("Gelu", ["ln"], ["y"])], 20, [],
     lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2))), ["UNARY"]),
    ("gelu_written", lambda: [helper.make_node("Div", ["ln", "sqrt2"], ["q"]),
                              helper.make_node("Erf", ["q"], ["e"]),
                              helper.make_node("Add", ["e", "one"], ["e1"]),
                              helper.make_node("Mul", ["ln", "e1"], ["h"]),
                              helper.make_node("Mul", ["h", "half"], ["y"])], 13,
     [("sqrt2", np.float32(math.sqrt(2))), ("one", np.float32(1)), ("half", np.float32(0.5))],
     lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2))), ["UNARY"]),
    ("silu", lambda: [helper.make_node("Sigmoid", ["ln"], ["sg"]),
                      helper.make_node("Mul", ["ln", "sg"], ["y"])], 13, [],
     lambda v: v * sigmoid(v), ["UNARY"]),
]
for name, acts, opset, extra, ref, after in ACTS:
    run("ln_" + name, ln_nodes(opset=opset) + acts(), X, ln_inits(opset) + extra, opset,
        [("y", ref(ln_ref(X)))], ["LAYERNORM"] + after)

relu = lambda v: np.maximum(v, 0)
R = [helper.make_node("Relu", ["ln"], ["y"])]
run("ln_mulsq_relu", ln_nodes(square="mul") + R, X, ln_inits(), 13, [("y", relu(ln_ref(X)))],
    ["LAYERNORM", "UNARY"])
g1n = GAMMA.reshape(1, N)
run("ln_gamma1n_relu", ln_nodes() + R, X, ln_inits(gamma=g1n), 13, [("y", relu(ln_ref(X)))],
    ["LAYERNORM", "UNARY"])
run("ln_opset18_relu", ln_nodes(opset=18) + R, X, ln_inits(18), 18,
    [("y", relu(ln_ref(X)))], ["LAYERNORM", "UNARY"])
# the LayerNorm's output is a graph output too: still fused, the Relu after it
run("ln_out_relu", ln_nodes() + R, X, ln_inits(), 13, [("y", relu(ln_ref(X))), ("ln", ln_ref(X))],
    ["LAYERNORM", "UNARY"])
# v (the variance) a graph output too: not a LayerNorm for the passes (the
# Relu then fuses into the ninth node, a BINARY layer, which applies it)
x64 = X.astype(np.float64)
var = ((x64 - x64.mean(-1, keepdims=True)) ** 2).mean(-1, keepdims=True)
run("ln_vout_relu", ln_nodes() + R, X, ln_inits(), 13, [("y", relu(ln_ref(X))), ("ln.v", var)],
    ["REDUCE_MEAN", "BINARY", "BINARY", "REDUCE_MEAN", "BINARY", "UNARY", "BINARY", "BINARY", "BINARY"])
# gamma [7, N]: one value per row and element, not a LayerNorm's scale
g7 = rand(7, N, lo=0.5, hi=1.5)
run("ln_gammarows_relu", ln_nodes() + R, X, ln_inits(gamma=g7), 13,
    [("y", relu(ln_ref(X, gamma=g7)))],
    ["REDUCE_MEAN", "BINARY", "BINARY", "REDUCE_MEAN", "BINARY", "UNARY", "BINARY", "BINARY", "BINARY"])

# ---- linear layers around it --------------------------------------------------
K = 24
W1, B1 = rand(K, N, lo=-0.3, hi=0.3), rand(N)
W2, B2 = rand(N, 16, lo=-0.3, hi=0.3), rand(16)
XK = rand(2, 7, K)
lin = lambda x, w, b: x.astype(np.float64) @ w.astype(np.float64) + b.astype(np.float64)
run("mlp_matmul_ln_relu", [helper.make_node("MatMul", ["x", "w1"], ["mm"]),
                           helper.make_node("Add", ["mm", "b1"], ["h"])] + ln_nodes(x="h") + R,
    XK, ln_inits() + [("w1", W1), ("b1", B1)], 13,
    [("y", relu(ln_ref(lin(XK, W1, B1))))], ["MATMUL", "LAYERNORM", "UNARY"])
run("mlp_ln_matmul_gelu", ln_nodes(opset=20) + [helper.make_node("MatMul", ["ln", "w2"], ["mm"]),
                                        helper.make_node("Add", ["b2", "mm"], ["h"]),
                                        helper.make_node("Gelu", ["h"], ["y"])],
    X, ln_inits(20) + [("w2", W2), ("b2", B2)], 20,
    [("y", (lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2))))(lin(ln_ref(X), W2, B2)))],
    ["LAYERNORM", "MATMUL"])

# ---- residual Adds into the GEMM's epilogue (issue 42) -------------------------
WS, BS = rand(N, N, lo=-0.3, hi=0.3), rand(N)
lin_s = lin(X, WS, BS)
mmb = [helper.make_node("MatMul", ["x", "ws"], ["mm"]), helper.make_node("Add", ["mm", "bs"], ["h"])]
RI = [("ws", WS), ("bs", BS)]
# MatMul + bias + x (the FFN2 form), then a Relu: all one MATMUL layer
run("res_matmul_relu", mmb + [helper.make_node("Add", ["x", "h"], ["r"]),
                              helper.make_node("Relu", ["r"], ["y"])],
    X, RI, 13, [("y", relu(lin_s + X))], ["MATMUL"])
# Gemm + C, Reshape and a unit-dim Transpose to x's shape, + x: one GEMM
# (the Flatten of the graph input x is a view of it too)
XG = rand(1, 7, N)
gemm_ref = XG.reshape(7, N).astype(np.float64) @ WS.astype(np.float64).T + BS
run("res_gemm_views", [helper.make_node("Flatten", ["x"], ["xf"], axis=2),
                       helper.make_node("Gemm", ["xf", "ws", "bs"], ["g"], transB=1),
                       helper.make_node("Reshape", ["g", "shp"], ["gr"]),
                       helper.make_node("Transpose", ["gr"], ["gt"], perm=[1, 0, 2]),
                       helper.make_node("Add", ["gt", "x"], ["y"])],
    XG, RI + [("shp", np.array([7, 1, N], np.int64))], 13,
    [("y", gemm_ref.reshape(1, 7, N) + XG)], ["GEMM"])
# not fused: z broadcasts ([7, N] against [2, 7, N])
Z7 = rand(7, N)
run("res_broadcast", mmb + [helper.make_node("Add", ["h", "z7"], ["y"])], X, RI + [("z7", Z7)],
    13, [("y", lin_s + Z7)], ["MATMUL", "BINARY"])
# not fused: a Transpose that moves elements between the MatMul and the Add
XT = rand(2, N, N)
run("res_transpose", [helper.make_node("MatMul", ["x", "ws"], ["mm"]),
                      helper.make_node("Transpose", ["mm"], ["t"], perm=[0, 2, 1]),
                      helper.make_node("Add", ["t", "x"], ["y"])], XT, [("ws", WS)], 13,
    [("y", np.swapaxes(XT.astype(np.float64) @ WS, 1, 2) + XT)], ["MATMUL", "TRANSPOSE", "BINARY"])
# not fused: the product is a graph output too (read twice)
run("res_read_twice", mmb + [helper.make_node("Add", ["h", "x"], ["y"])], X, RI, 13,
    [("y", lin_s + X), ("h", lin_s)], ["MATMUL", "BINARY"])

# ---- activations only a Conv, Gemm or linear MatMul fuses (pz_act) --------------
sig = lambda v: 1 / (1 + np.exp(-v))
# MatMul + bias, then Tanh, HardSigmoid(0.3, 0.4), a gated SiLU: one MATMUL layer
run("act_matmul_tanh", mmb + [helper.make_node("Tanh", ["h"], ["y"])], X, RI, 13,
    [("y", np.tanh(lin_s))], ["MATMUL"])
run("act_matmul_hardsigmoid", mmb + [helper.make_node("HardSigmoid", ["h"], ["y"], alpha=0.3, beta=0.4)],
    X, RI, 13, [("y", np.clip(0.3 * lin_s + 0.4, 0, 1))], ["MATMUL"])
run("act_matmul_silu", mmb + [helper.make_node("Sigmoid", ["h"], ["s"]),
                              helper.make_node("Mul", ["h", "s"], ["y"])],
    X, RI, 13, [("y", lin_s * sig(lin_s))], ["MATMUL"])
# not fused: after an Add (its layer fuses a clamp only), and the product read twice
CA = rand(N)
run("act_add_sigmoid", [helper.make_node("Add", ["x", "ca"], ["h"]),
                        helper.make_node("Sigmoid", ["h"], ["y"])], X, [("ca", CA)], 13,
    [("y", sig(X.astype(np.float64) + CA))], ["BINARY", "UNARY"])
run("act_matmul_leaky_twice", mmb + [helper.make_node("LeakyRelu", ["h"], ["y"], alpha=0.2)],
    X, RI, 13, [("y", np.where(lin_s < 0, 0.2 * lin_s, lin_s)), ("h", lin_s)], ["MATMUL", "UNARY"])
print("cases: %d passed, %d failed" % (passed, failed))
EOF

"$PY" "$T/cases.py" "$PZ" "$T" "$ORT" >"$T/cases.out" 2>&1
cat "$T/cases.out"
line=$(grep -E '^cases: [0-9]+ passed, [0-9]+ failed' "$T/cases.out" | tail -n 1)
if [ -n "$line" ]; then
    pass=$((pass + $(echo "$line" | awk '{print $2}')))
    fail=$((fail + $(echo "$line" | awk '{print $4}')))
else
    fail=$((fail + 1))
    echo "FAIL cases.py did not finish"
fi

finish
[ "$fail" -eq 0 ]
