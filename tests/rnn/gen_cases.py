#!/usr/bin/python3
"""gen_cases.py OUTDIR [N] [SEED] - seeded random ONNX RNN, GRU and LSTM
nodes over their attributes (directions, layouts, sequence_lens, initial
states, peepholes, activations with alpha/beta, clip, input_forget,
linear_before_reset, outputs left out) for comparison with ONNX Runtime.

Each case OUTDIR/cNN holds model.onnx (W, R, B, P initializers: the fast
path), ref.onnx (the same node for ONNX Runtime: layout 1 as layout 0
between Transposes, as ORT 1.17 refuses layout 1), in_K.pb (the graph
inputs, in order) and nout (the number of outputs)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ACTS = {  # name: (n_alpha, n_beta)
    "Relu": (0, 0), "Tanh": (0, 0), "Sigmoid": (0, 0), "Affine": (1, 1), "LeakyRelu": (1, 0),
    "ThresholdedRelu": (1, 0), "ScaledTanh": (1, 1), "HardSigmoid": (1, 1), "Elu": (1, 0),
    "Softsign": (0, 0), "Softplus": (0, 0)}
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
NFUNC = {"RNN": 1, "GRU": 2, "LSTM": 3}


def case(rng, k):
    op = ["RNN", "GRU", "LSTM"][k % 3]
    G, nf = GATES[op], NFUNC[op]
    direction = ["forward", "reverse", "bidirectional"][(k // 3) % 3]
    nd = 2 if direction == "bidirectional" else 1
    layout = int(rng.integers(0, 2))
    S, B, I = int(rng.integers(1, 7)), int(rng.integers(1, 4)), int(rng.integers(1, 8))
    H = int(rng.choice([1, 3, 5, 16, 17, 20, 33]))
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)
    attrs = {"direction": direction, "hidden_size": H}
    if layout: attrs["layout"] = 1
    plain = k < 9 or rng.random() < 0.4
    if not plain:
        names = list(ACTS)
        acts = [str(rng.choice(names)) for _ in range(nf * nd)]
        attrs["activations"] = acts
        # GRU and LSTM: one value per function that takes it; RNN: one per
        # function (ONNX Runtime reads RNN's by position)
        na = sum(ACTS[a][0] for a in acts) if op != "RNN" else len(acts)
        nb = sum(ACTS[a][1] for a in acts) if op != "RNN" else len(acts)
        # complete lists: ONNX Runtime's defaults differ from the spec's
        # (its RNN's LeakyRelu alpha and its Affine alpha are 0, not 0.01
        # and 1), so the defaults are not compared with it
        if na:
            attrs["activation_alpha"] = [float(v) for v in rng.uniform(0.1, 1.5, na)]
        if nb:
            attrs["activation_beta"] = [float(v) for v in rng.uniform(0.1, 1.0, nb)]
    if rng.random() < 0.3: attrs["clip"] = float(rng.uniform(0.3, 2.0))
    if op == "LSTM" and rng.random() < 0.3: attrs["input_forget"] = 1
    if op == "GRU": attrs["linear_before_reset"] = int(rng.integers(0, 2))

    X = f(B, S, I) if layout else f(S, B, I)
    inits = [numpy_helper.from_array(f(nd, G * H, I), "W"),
             numpy_helper.from_array(f(nd, G * H, H), "R")]
    ins = ["X", "W", "R"]
    feeds = [("X", X)]
    if rng.random() < 0.8:
        inits.append(numpy_helper.from_array(f(nd, 2 * G * H), "B")); ins.append("B")
    else:
        ins.append("")
    if rng.random() < 0.5:
        feeds.append(("lens", rng.integers(1, S + 1, B).astype(np.int32))); ins.append("lens")
    else:
        ins.append("")
    st = (B, nd, H) if layout else (nd, B, H)
    if rng.random() < 0.6:
        feeds.append(("h0", f(*st))); ins.append("h0")
    else:
        ins.append("")
    if op == "LSTM":
        if rng.random() < 0.6:
            feeds.append(("c0", f(*st))); ins.append("c0")
        else:
            ins.append("")
        if rng.random() < 0.5:
            inits.append(numpy_helper.from_array(f(nd, 3 * H), "P")); ins.append("P")
    while ins and ins[-1] == "": ins.pop()
    nout = 3 if op == "LSTM" else 2
    outs = ["Y", "Y_h", "Y_c"][:nout]
    # leave one output out now and then (not all of them)
    if rng.random() < 0.3: outs[int(rng.integers(0, nout))] = ""
    Ysh = [B, S, nd, H] if layout else [S, nd, B, H]
    shapes = {"Y": Ysh, "Y_h": list(st), "Y_c": list(st)}
    vi = lambda n, t, s: helper.make_tensor_value_info(n, t, s)
    gin = [vi(n, TensorProto.INT32 if n == "lens" else TensorProto.FLOAT, list(a.shape)) for n, a in feeds]
    gout = [vi(o, TensorProto.FLOAT, shapes[o]) for o in outs if o]
    node = helper.make_node(op, ins, outs, name="rnn", **attrs)
    model = helper.make_model(helper.make_graph([node], "g", gin, gout, inits),
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    if layout:
        # ORT's equivalent: X, h0, c0 to layout 0, the outputs back
        rin = ["X0" if n == "X" else "h00" if n == "h0" else "c00" if n == "c0" else n for n in ins]
        pre = [helper.make_node("Transpose", ["X"], ["X0"], perm=[1, 0, 2])]
        for n in ("h0", "c0"):
            if n in ins: pre.append(helper.make_node("Transpose", [n], [n + "0"], perm=[1, 0, 2]))
        rout = [o + "0" if o else "" for o in outs]
        post = []
        for o in outs:
            if o == "Y": post.append(helper.make_node("Transpose", ["Y0"], ["Y"], perm=[2, 0, 1, 3]))
            elif o: post.append(helper.make_node("Transpose", [o + "0"], [o], perm=[1, 0, 2]))
        a0 = dict(attrs); a0.pop("layout")
        rnode = helper.make_node(op, rin, rout, name="rnn", **a0)
        ref = helper.make_model(helper.make_graph(pre + [rnode] + post, "g", gin, gout, inits),
                                opset_imports=[helper.make_opsetid("", 14)])
        ref.ir_version = 8
    else:
        ref = model
    return model, ref, feeds, len(gout)


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 36
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    for k in range(n):
        d = os.path.join(out, "c%02d" % k)
        os.makedirs(d, exist_ok=True)
        model, ref, feeds, nout = case(rng, k)
        onnx.save(model, os.path.join(d, "model.onnx"))
        onnx.save(ref, os.path.join(d, "ref.onnx"))
        for i, (name, a) in enumerate(feeds):
            with open(os.path.join(d, "in_%d.pb" % i), "wb") as fo:
                fo.write(numpy_helper.from_array(a, name).SerializeToString())
        with open(os.path.join(d, "nout"), "w") as fo:
            fo.write("%d\n" % nout)


if __name__ == "__main__":
    main()
