"""sparse_models.py OUTDIR - models and pruned twins for tests/parts/43-sparsity.sh.

Writes into OUTDIR:
  net.onnx          convs without BatchNorm (so the compiler prunes the weights
                    as stored): 1x1, 3x3 pad 1 (+ residual), 3x3 stride 2,
                    1x1 stride 2, ReLUs; input x 1x32x14x14; then a Gemm
  net.in.pb         a seeded input
  net.p75.onnx      net with every conv's weights pruned to 0.75 by this
                    file's own implementation of the rule (README "Sparsity"):
                    blocks of 16 output x 16 input channels x one tap, the
                    round(R x blocks) of smallest L1 (ties: earlier block) zeroed
  net.L.onnx        net with only conv layer L (lowered layer index, as the
                    schedule counts: 0, 1, ...) pruned to 0.75; L = SCHED_LAYER
  own.onnx          net whose second conv has 50% zero blocks of its own
  counts.txt        per conv of net.p75 and own: "name zero_blocks blocks skipped_macs"
  gemm.onnx         a Gemm-only model (no layer with a sparse kernel)
"""
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

out = sys.argv[1]
rng = np.random.default_rng(7)
SCHED_LAYER = 2   # the 3x3 stride-2 conv (layers: c1, c2, add is fused, c3, c4, ...)


def blocks(w):
    m, c, kh, kw = w.shape
    for ob in range((m + 15) // 16):
        for ib in range((c + 15) // 16):
            for t in range(kh * kw):
                yield ob, ib, t


def block_view(w, ob, ib, t):
    kw = w.shape[3]
    return w[ob * 16:ob * 16 + 16, ib * 16:ib * 16 + 16, t // kw, t % kw]


def prune(w, r):
    w = w.copy()
    bl = list(blocks(w))
    norms = [(float(np.abs(block_view(w, *b).astype(np.float64)).sum()), i) for i, b in enumerate(bl)]
    norms.sort()
    target = int(np.floor(r * len(bl) + 0.5))
    for _, i in norms[:target]:
        block_view(w, *bl[i])[...] = 0
    return w


def count(w, out_hw):
    z = n = sk = 0
    for b in blocks(w):
        v = block_view(w, *b)
        n += 1
        if not np.any(v != 0):
            z += 1
            sk += v.size * out_hw
    return z, n, sk


# (name, out channels, in channels, k, stride, pad, output pixels)
CONVS = [("c1", 48, 32, 1, 1, 0, 14 * 14), ("c2", 48, 48, 3, 1, 1, 14 * 14),
         ("c3", 64, 48, 3, 2, 1, 7 * 7), ("c4", 40, 64, 1, 2, 0, 4 * 4)]


def weights():
    ws = {}
    for name, m, c, k, s, p, _ in CONVS:
        ws[name] = (rng.standard_normal((m, c, k, k)) * (1.0 / np.sqrt(c * k * k))).astype(np.float32)
        ws[name + "_b"] = (rng.standard_normal(m) * 0.1).astype(np.float32)
    ws["fc"] = (rng.standard_normal((10, 40 * 16)) * 0.05).astype(np.float32)
    ws["fc_b"] = np.zeros(10, np.float32)
    return ws


def model(ws, path):
    nodes, inits = [], []
    for k, v in ws.items():
        inits.append(numpy_helper.from_array(v, k))
    prev = "x"
    for name, m, c, k, s, p, _ in CONVS:
        nodes.append(helper.make_node("Conv", [prev, name, name + "_b"], [name + "_o"], name=name,
                                      kernel_shape=[k, k], strides=[s, s], pads=[p] * 4))
        y = name + "_o"
        if name == "c2":   # a residual
            nodes.append(helper.make_node("Add", [y, "c1_r"], ["c2_a"], name="c2_add"))
            y = "c2_a"
        nodes.append(helper.make_node("Relu", [y], [name + "_r"], name=name + "_relu"))
        prev = name + "_r"
    nodes.append(helper.make_node("Flatten", [prev], ["flat"], name="flatten"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc", "fc_b"], ["y"], name="fc", transB=1))
    g = helper.make_graph(nodes, "sparsenet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 14, 14])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    mdl.ir_version = 8
    onnx.save(mdl, path)


ws = weights()
model(ws, out + "/net.onnx")
x = rng.standard_normal((1, 32, 14, 14)).astype(np.float32)
open(out + "/net.in.pb", "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
lines = []
p75 = dict(ws)
for name, *_r, hw in CONVS:
    p75[name] = prune(ws[name], 0.75)
    z, n, sk = count(p75[name], hw)
    lines.append("p75 %s %d %d %d" % (name, z, n, sk))
model(p75, out + "/net.p75.onnx")
one = dict(ws)
one[CONVS[SCHED_LAYER][0]] = prune(ws[CONVS[SCHED_LAYER][0]], 0.75)
model(one, out + "/net.%d.onnx" % SCHED_LAYER)
own = dict(ws)
w = own["c2"].copy()
for i, b in enumerate(blocks(w)):
    if i % 2 == 0:
        block_view(w, *b)[...] = 0
own["c2"] = w
for name, *_r, hw in CONVS:
    z, n, sk = count(own[name], hw)
    lines.append("own %s %d %d %d" % (name, z, n, sk))
model(own, out + "/own.onnx")
open(out + "/counts.txt", "w").write("\n".join(lines) + "\n")
# a Gemm-only model
gw = numpy_helper.from_array((rng.standard_normal((8, 16))).astype(np.float32), "W")
g = helper.make_graph([helper.make_node("Gemm", ["a", "W"], ["b"], name="only_gemm", transB=1)], "gemmonly",
                      [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 16])],
                      [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 8])], [gw])
mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
mdl.ir_version = 8
onnx.save(mdl, out + "/gemm.onnx")
