"""sparse_models.py OUTDIR - models and pruned twins for tests/parts/43-sparsity.sh.

`sparse_models.py --net MODEL R OUT`: MODEL's convs and Gemms pruned to R
by the rule (prune_net), written to OUT.

Writes into OUTDIR:
  net.onnx          convs without BatchNorm (so the compiler prunes the weights
                    as stored): 1x1, 3x3 pad 1 (+ residual), 3x3 stride 2,
                    1x1 stride 2, ReLUs; input x 1x32x14x14; then a Gemm
  net.in.pb         a seeded input
  net.p75.onnx      net with every conv's and the Gemm's weights pruned to 0.75
                    by this file's own implementation of the rule (README
                    "Sparsity"): blocks of 16 output x 16 input channels x one
                    tap, or x all 9 taps on a conv the Winograd rule takes (c2) (Gemm: 16 rows of K x 32 columns of B[K][N], panel by
                    panel), the round(R x blocks) of smallest L1 (ties: earlier
                    block) zeroed
  net.L.onnx        net with only conv layer L (lowered layer index, as the
                    schedule counts: 0, 1, ...) pruned to 0.75; L = SCHED_LAYER
  own.onnx          net whose second conv has 50% zero blocks of its own
  counts.txt        per conv and Gemm of net.p75, own, gemm.p75:
                    "TAG name zero_blocks blocks skipped_macs"
  gemm.onnx         a Gemm-only model (A 3x200, B 70x200 transB, bias), gemm.in.pb
  gemm.p75.onnx     gemm with B pruned to 0.75 by the rule
  gemv.onnx         the same at M = 1 (a FC layer at batch 1), gemv.in.pb, gemv.p75.onnx
  mm.onnx           a MatMul of A [2, 3, 200] by a constant B [200, 70], then Add(bias)
                    (fused), mm.in.pb, mm.p75.onnx (B pruned as B^T by the same rule)
  relu.onnx         a Relu-only model (no layer with a sparse kernel)
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


def gemm_blocks(bt):
    # bt: B as [N][K] (transB); blocks panel by panel, K blocks within
    n, k = bt.shape
    for p in range((n + 31) // 32):
        for q in range((k + 15) // 16):
            yield p, q


def gemm_view(bt, p, q):
    return bt[p * 32:p * 32 + 32, q * 16:q * 16 + 16]


def prune(w, r, bf=blocks, view=block_view):
    w = w.copy()
    bl = list(bf(w))
    norms = [(float(np.abs(view(w, *b).astype(np.float64)).sum()), i) for i, b in enumerate(bl)]
    norms.sort()
    target = int(np.floor(r * len(bl) + 0.5))
    for _, i in norms[:target]:
        view(w, *bl[i])[...] = 0
    return w


def count(w, out_hw, bf=blocks, view=block_view):
    z = n = sk = 0
    for b in bf(w):
        v = view(w, *b)
        n += 1
        if not np.any(v != 0):
            z += 1
            sk += v.size * out_hw
    return z, n, sk


def blocks_whole(w):
    # a conv the Winograd rule takes: blocks of 16 x 16 x all taps
    m, c = w.shape[:2]
    for ob in range((m + 15) // 16):
        for ib in range((c + 15) // 16):
            yield ob, ib, -1


def whole_view(w, ob, ib, t):
    return w[ob * 16:ob * 16 + 16, ib * 16:ib * 16 + 16]


def winograd_rule(k, stride, group, out_hw):
    # pz_winograd_pays on the shapes these tests use: the 3x3 stride-1 convs
    # of 14x14 outputs or more (48 -> 48 at 14x14 here; ResNet's 56, 28 and
    # 14), not the 7x7 stage's
    return k == 3 and stride == 1 and group == 1 and out_hw >= 14 * 14


def conv_geometry(k, stride, group, out_hw):
    return (blocks_whole, whole_view) if winograd_rule(k, stride, group, out_hw) else (blocks, block_view)


def prune_net(src, r, dst):
    """Every group-1 Conv of more than 4 input channels and every Gemm
    (transB) of model src pruned to r by the rule; written to dst."""
    mdl = onnx.shape_inference.infer_shapes(onnx.load(src))
    g = mdl.graph
    inits = {i.name: i for i in g.initializer}
    alias = {n.output[0]: n.input[0] for n in g.node if n.op_type == "Identity"}
    dims = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in g.value_info}
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm"):
            continue
        a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
        wn = n.input[1]
        while wn not in inits:
            wn = alias[wn]
        w = numpy_helper.to_array(inits[wn])
        if n.op_type == "Gemm":
            assert a.get("transB", 0) == 1
            w = prune(w, r, gemm_blocks, gemm_view)
        else:
            if a.get("group", 1) != 1 or w.shape[1] <= 4:
                continue
            out = dims[n.output[0]]
            bf, view = conv_geometry(w.shape[2], a.get("strides", [1])[0], 1, out[2] * out[3])
            w = prune(w, r, bf, view)
        inits[wn].CopyFrom(numpy_helper.from_array(w, wn))
    onnx.save(mdl, dst)


if sys.argv[1] == "--net":
    prune_net(sys.argv[2], float(sys.argv[3]), sys.argv[4])
    sys.exit(0)


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
for name, m_, c_, k_, s_, p_, hw in CONVS:
    geo = conv_geometry(k_, s_, 1, hw)
    p75[name] = prune(ws[name], 0.75, *geo)
    z, n, sk = count(p75[name], hw, *geo)
    lines.append("p75 %s %d %d %d" % (name, z, n, sk))
p75["fc"] = prune(ws["fc"], 0.75, gemm_blocks, gemm_view)
lines.append("p75 fc %d %d %d" % count(p75["fc"], 1, gemm_blocks, gemm_view))
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
for name, m_, c_, k_, s_, p_, hw in CONVS:
    z, n, sk = count(own[name], hw, *conv_geometry(k_, s_, 1, hw))
    lines.append("own %s %d %d %d" % (name, z, n, sk))
lines.append("own fc %d %d %d" % count(own["fc"], 1, gemm_blocks, gemm_view))
model(own, out + "/own.onnx")


def save(nodes, inputs, outputs, inits, path):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    mdl.ir_version = 8
    onnx.save(mdl, path)


# Gemm-only models: M = 3 and M = 1 (GEMV), K = 200, N = 70 (partial
# blocks at both edges), B transposed, a bias
W = (rng.standard_normal((70, 200)) * 0.1).astype(np.float32)
bias = (rng.standard_normal(70) * 0.1).astype(np.float32)
for tag, m in (("gemm", 3), ("gemv", 1)):
    a = rng.standard_normal((m, 200)).astype(np.float32)
    open(out + "/%s.in.pb" % tag, "wb").write(numpy_helper.from_array(a, "a").SerializeToString())
    for suffix, w in (("", W), (".p75", prune(W, 0.75, gemm_blocks, gemm_view))):
        save([helper.make_node("Gemm", ["a", "W", "bias"], ["b"], name="only_gemm", transB=1)],
             [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, 200])],
             [helper.make_tensor_value_info("b", TensorProto.FLOAT, [m, 70])],
             [numpy_helper.from_array(w, "W"), numpy_helper.from_array(bias, "bias")],
             out + "/%s%s.onnx" % (tag, suffix))
    lines.append("%s only_gemm %d %d %d" % ((tag,) + count(prune(W, 0.75, gemm_blocks, gemm_view), m,
                                                            gemm_blocks, gemm_view)))
a = rng.standard_normal((2, 3, 200)).astype(np.float32)
open(out + "/mm.in.pb", "wb").write(numpy_helper.from_array(a, "a").SerializeToString())
WP = prune(W, 0.75, gemm_blocks, gemm_view)
for suffix, w in (("", W), (".p75", WP)):
    save([helper.make_node("MatMul", ["a", "B"], ["t"], name="only_mm"),
          helper.make_node("Add", ["t", "bias"], ["b"], name="bias_add")],
         [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 200])],
         [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3, 70])],
         [numpy_helper.from_array(np.ascontiguousarray(w.T), "B"), numpy_helper.from_array(bias, "bias")],
         out + "/mm%s.onnx" % suffix)
lines.append("mm only_mm %d %d %d" % count(WP, 6, gemm_blocks, gemm_view))
open(out + "/counts.txt", "w").write("\n".join(lines) + "\n")
save([helper.make_node("Relu", ["a"], ["b"], name="only_relu")],
     [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 16])],
     [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 16])], [], out + "/relu.onnx")
