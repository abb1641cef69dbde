#!/usr/bin/python3
"""pass_cases.py OUTDIR - attention written out in ONNX nodes (python3-onnx),
for the attention pass's preconditions (src/passes/attention.c), with a
float64 numpy reference: OUTDIR/NAME.onnx, NAME.in_K.pb, NAME.ref_0.pb.
Prints one line per case: NAME, inputs, outputs, how many ATTENTION layers
the profile must show (0: the pass must leave it alone) and, for the head
transposes' cases, how many TRANSPOSE layers, and for the Q, K, V slices'
cases how many SLICE layers."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
F = TensorProto.FLOAT


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def c(name, v):
    return helper.make_tensor(name, F, [], [v])


def save(path, a, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(a), name).SerializeToString())


def case(out, name, nodes, inits, ins, refs, n_attn, extra_outs=(), n_trans=None, n_slice=None):
    vi = [helper.make_tensor_value_info(n, F, a.shape) for n, a in ins]
    vo = [helper.make_tensor_value_info(n, F, None) for n in ["y", *extra_outs]]
    g = helper.make_graph(nodes, name, vi, vo, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for k, (n, a) in enumerate(ins):
        save(os.path.join(out, "%s.in_%d.pb" % (name, k)), a, n)
    for k, a in enumerate(refs):
        save(os.path.join(out, "%s.ref_%d.pb" % (name, k)), a.astype(np.float32), "y")
    print(name, len(ins), len(refs), n_attn, "" if n_trans is None else n_trans,
          "" if n_slice is None else n_slice)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    B, H, S, T, D = 2, 3, 5, 7, 8
    q = rng.standard_normal((B, H, S, D)).astype(np.float32)
    k = rng.standard_normal((B, H, T, D)).astype(np.float32)   # given as K, transposed in the graph
    v = rng.standard_normal((B, H, T, D)).astype(np.float32)
    mask = np.where(rng.random((B, 1, 1, T)) < 0.2, -1e9, 0).astype(np.float32)
    qd, kd, vd = q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)
    ins = [("q", q), ("k", k), ("v", v), ("mask", mask)]
    scale = 1 / np.sqrt(D)
    ref = softmax(qd @ kd.transpose(0, 1, 3, 2) * scale + mask) @ vd
    inits = [c("s", scale), c("half", 0.5), c("two", 2.0)]
    kt = helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2])
    # the plain form: MatMul, Mul, Add, Softmax, MatMul
    case(out, "plain", [kt, helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                        helper.make_node("Mul", ["s0", "s"], ["s1"]),
                        helper.make_node("Add", ["s1", "mask"], ["a"]),
                        helper.make_node("Softmax", ["a"], ["p"], axis=-1),
                        helper.make_node("MatMul", ["p", "v"], ["y"])], inits, ins, [ref], 1)
    # the scale split over Q (Div by 2) and the scores (Mul by 2, Mul by s), mask first in Add
    case(out, "split_scale", [kt, helper.make_node("Div", ["q", "two"], ["qh"]),
                              helper.make_node("MatMul", ["qh", "kt"], ["s0"]),
                              helper.make_node("Mul", ["two", "s0"], ["s1"]),
                              helper.make_node("Mul", ["s1", "s"], ["s2"]),
                              helper.make_node("Add", ["mask", "s2"], ["a"]),
                              helper.make_node("Softmax", ["a"], ["p"], axis=3),
                              helper.make_node("MatMul", ["p", "v"], ["y"])], inits, ins, [ref], 1)
    # no mask, no scale; K^T from a [B, T, H, D] tensor by perm (0, 2, 3, 1)
    k2 = np.ascontiguousarray(k.transpose(0, 2, 1, 3))
    ref_nm = softmax(qd @ kd.transpose(0, 1, 3, 2)) @ vd
    case(out, "no_mask_perm", [helper.make_node("Transpose", ["k2"], ["kt"], perm=[0, 2, 3, 1]),
                               helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                               helper.make_node("Softmax", ["s0"], ["p"], axis=-1),
                               helper.make_node("MatMul", ["p", "v"], ["y"])], inits,
         [("q", q), ("k2", k2), ("v", v)], [ref_nm], 1)
    # the scores also a graph output: left alone (both outputs checked)
    sc = qd @ kd.transpose(0, 1, 3, 2)
    case(out, "scores_out", [kt, helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                             helper.make_node("Identity", ["s0"], ["scores"]),
                             helper.make_node("Softmax", ["s0"], ["p"], axis=-1),
                             helper.make_node("MatMul", ["p", "v"], ["y"])], inits,
         [("q", q), ("k", k), ("v", v)], [ref_nm, sc], 0, extra_outs=("scores",))
    # softmax over another axis: left alone
    ref_ax = softmax(sc, axis=2) @ vd
    case(out, "other_axis", [kt, helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                             helper.make_node("Softmax", ["s0"], ["p"], axis=2),
                             helper.make_node("MatMul", ["p", "v"], ["y"])], inits,
         [("q", q), ("k", k), ("v", v)], [ref_ax], 0)
    # the probabilities read twice (y = P V + P V): left alone
    p = softmax(sc)
    case(out, "probs_twice", [kt, helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                              helper.make_node("Softmax", ["s0"], ["p"], axis=-1),
                              helper.make_node("MatMul", ["p", "v"], ["y0"]),
                              helper.make_node("Add", ["y0", "p"], ["y"])], inits,
         [("q", q), ("k", k), ("v", np.ascontiguousarray(v[:, :, :, :T]))],
         [p @ vd[:, :, :, :T] + p], 0) if D >= T else None
    # a per-row mask [S, T] over a scale by a non-scalar: the [1, H, 1, 1] scale is not fused
    hs = rng.random((1, H, 1, 1)).astype(np.float32) + 0.5
    ref_hs = softmax(sc * hs) @ vd
    case(out, "head_scale", [kt, helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                             helper.make_node("Mul", ["s0", "hs"], ["s1"]),
                             helper.make_node("Softmax", ["s1"], ["p"], axis=-1),
                             helper.make_node("MatMul", ["p", "v"], ["y"])],
         inits + [numpy_helper.from_array(hs, "hs")], [("q", q), ("k", k), ("v", v)], [ref_hs], 0)
    # a mask that varies over B but broadcasts over H on a 3-D [B*H, S, T]: fused (mask [B*H, 1, T])
    q3, k3, v3 = (a.reshape(B * H, -1, D) for a in (q, k, v))
    m3 = np.where(rng.random((B * H, 1, T)) < 0.3, -np.inf, 0).astype(np.float32)
    m3[:, :, 0] = 0   # no row masked everywhere
    ref3 = softmax(q3.astype(np.float64) @ k3.astype(np.float64).transpose(0, 2, 1) + m3) @ v3
    case(out, "three_d", [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
                          helper.make_node("MatMul", ["q", "kt"], ["s0"]),
                          helper.make_node("Add", ["s0", "mask"], ["a"]),
                          helper.make_node("Softmax", ["a"], ["p"], axis=-1),
                          helper.make_node("MatMul", ["p", "v"], ["y"])], inits,
         [("q", q3), ("k", k3), ("v", v3), ("mask", m3)], [ref3], 1)

    # rows first: Q, K, V [B, S, H, D] through head transposes, Y transposed back:
    # the four Transposes fold into the layer's strides (no TRANSPOSE layer left)
    qr, kr, vr = (np.ascontiguousarray(a.transpose(0, 2, 1, 3)) for a in (q, k, v))
    ref_r = np.ascontiguousarray(ref.transpose(0, 2, 1, 3))

    def rows(y_t=True):
        return [helper.make_node("Transpose", ["qr"], ["qh"], perm=[0, 2, 1, 3]),
                helper.make_node("Transpose", ["kr"], ["kt"], perm=[0, 2, 3, 1]),
                helper.make_node("Transpose", ["vr"], ["vh"], perm=[0, 2, 1, 3]),
                helper.make_node("MatMul", ["qh", "kt"], ["s0"]),
                helper.make_node("Mul", ["s0", "s"], ["s1"]),
                helper.make_node("Add", ["s1", "mask"], ["a"]),
                helper.make_node("Softmax", ["a"], ["p"], axis=-1),
                helper.make_node("MatMul", ["p", "vh"], ["yh" if y_t else "y"])] + \
            ([helper.make_node("Transpose", ["yh"], ["y"], perm=[0, 2, 1, 3])] if y_t else [])
    rins = [("qr", qr), ("kr", kr), ("vr", vr), ("mask", mask)]
    case(out, "rows_first", rows(), inits, rins, [ref_r], 1, n_trans=0)
    # V's transposed tensor also a graph output: every head transpose stays (4)
    case(out, "rows_first_v_out", rows(), inits, rins, [ref_r, v.astype(np.float64)], 1,
         extra_outs=("vh",), n_trans=4)
    # Y not transposed back ([B, H, S, D] out): the inputs' three stay
    case(out, "rows_first_no_y_t", rows(y_t=False), inits, rins, [ref], 1, n_trans=3)

    # Q, K, V cut from one [B, S, W] tensor X (a QKV GEMM's output) by column
    # Slices and split into heads by Reshapes: the layer reads them in place
    # (qkv_slices.c: no SLICE layer left); a step-2 Slice or a part read
    # elsewhere leaves all three Slices
    E, W = H * D, 3 * H * D + 6
    offs = (0, E + 2, 2 * E + 5)   # gaps between the parts, W past the last
    x = rng.standard_normal((B, S, W)).astype(np.float32)
    part = [x[:, :, o:o + E].reshape(B, S, H, D).transpose(0, 2, 1, 3).astype(np.float64)
            for o in offs]
    sq = rng.standard_normal((1, 1, S, S)).astype(np.float32)   # a mask over S keys
    ref_x = (softmax(part[0] @ part[1].transpose(0, 1, 3, 2) * scale + sq) @ part[2]).transpose(0, 2, 1, 3)

    def i64(name, v):
        return numpy_helper.from_array(np.array(v, np.int64), name)

    def qkv(step_k=1, q_out=False):
        ends = [o + E * (step_k if j == 1 else 1) for j, o in enumerate(offs)]
        nodes = []
        for j, (o, nm) in enumerate(zip(offs, ("qr", "kr", "vr"))):
            st = step_k if j == 1 else 1
            nodes += [helper.make_node("Slice", ["x", "st%d" % j, "en%d" % j, "ax", "sp%d" % j],
                                       [nm + "s"]),
                      helper.make_node("Reshape", [nm + "s", "hshape"], [nm])]
        ini = [i64("ax", [-1]), i64("hshape", [B, S, H, D])]
        for j, o in enumerate(offs):
            ini += [i64("st%d" % j, [o]), i64("en%d" % j, [ends[j]]),
                    i64("sp%d" % j, [step_k if j == 1 else 1])]
        if q_out:
            nodes.append(helper.make_node("Identity", ["qrs"], ["qcopy"]))
        return nodes + rows(), ini
    xins = [("x", x), ("mask", sq)]
    nodes, ini = qkv()
    case(out, "qkv_in_place", nodes, inits + ini, xins, [ref_x], 1, n_trans=0, n_slice=0)
    if 2 * E + offs[1] <= offs[2] + E:   # K's step-2 columns fit in X
        kk = x[:, :, offs[1]:offs[1] + 2 * E:2].reshape(B, S, H, D).transpose(0, 2, 1, 3)
        ref_s = (softmax(part[0] @ kk.astype(np.float64).transpose(0, 1, 3, 2) * scale + sq)
                 @ part[2]).transpose(0, 2, 1, 3)
        nodes, ini = qkv(step_k=2)
        case(out, "qkv_step2", nodes, inits + ini, xins, [ref_s], 1, n_trans=0, n_slice=3)
    nodes, ini = qkv(q_out=True)
    case(out, "qkv_q_read_twice", nodes, inits + ini, xins, [ref_x, x[:, :, :E]], 1,
         extra_outs=("qcopy",), n_trans=0, n_slice=3)

if __name__ == "__main__":
    main()
