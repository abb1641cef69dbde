"""Run-time indices and positions out of range (make_corpus.py's cases).

Each layer that takes indices, positions or an axis from a run-time tensor
either fails the run naming the layer (exit 2, nothing written: ONNX Runtime
fails too) or does what the ONNX spec says (OneHot: all off values; Trilu: any
k). Per model, ok_<name>.onnx takes its run-time tensor as its one input:
  <name>_<case>        an "error" case: the message names the layer and says
                       "out of range" or "outside"
  ok_<name>_<case>     an "ok" case whose y.pb must equal <case>.want.pb, the
                       output numpy computes here (checked once against ONNX
                       Runtime 1.17, 1.30 for TensorScatter: equal; Trilu
                       with k of +-2^63: 1.17 overflows, 1.30 agrees)
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

I64 = TensorProto.INT64
X = np.arange(15, dtype=np.float32).reshape(5, 3)
U = np.full((2, 3), -1, np.float32)


def scatter_elements(x, idx, u, axis):
    y = x.copy()
    for c in np.ndindex(*idx.shape):
        t = list(c)
        t[axis] = idx[c] % x.shape[axis]
        y[tuple(t)] = u[c]
    return y


def tensor_scatter(past, upd, wi, circular):
    y = past.copy()
    m = past.shape[1]
    for b in range(past.shape[0]):
        for s in range(upd.shape[1]):
            y[b, (wi[b] + s) % m if circular else wi[b] + s] = upd[b, s]
    return y


def onehot(ind, depth, off, on):
    y = np.full((len(ind), depth), off, np.float32)
    for i, v in enumerate(ind):
        if -depth <= v < depth:
            y[i, v % depth] = on
    return y


def reverse_sequence(x, lens):
    y = x.copy()
    for b, n in enumerate(lens):
        y[:n, b] = x[:n, b][::-1]
    return y


def unpool(x, idx, size):
    y = np.zeros(size, np.float32)
    y.flat[idx.ravel()] = x.ravel()
    return y.reshape(1, 1, 4, 4)


def models():
    """(name, node, input shape, opset, initializers, bad cases, good cases):
    a bad case is (case, values, substring), a good one (case, values, the
    wanted output)."""
    init = lambda name, a: numpy_helper.from_array(np.asarray(a), name)
    ge_ok = np.array([[-5, -1, 2], [4, -3, 0]])
    nd_ok = np.array([[-5, -1], [4, -3]])
    sc_ok = np.array([[-3, -1, 2], [1, -2, 0]])
    x4 = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    xr = np.arange(2 * 16, dtype=np.float32).reshape(2, 1, 4, 4)
    rois = np.array([[0, 0, 3, 3], [1, 1, 2, 2]], np.float32)
    past = np.arange(20, dtype=np.float32).reshape(2, 5, 2)
    upd = -np.arange(1, 9, dtype=np.float32).reshape(2, 2, 2)
    rng = np.random.RandomState(0)
    node = helper.make_node
    big, small = 2 ** 63 - 1, -2 ** 63
    return [
        ("gather_elements_rt", node("GatherElements", ["X", "idx"], ["Y"],
                                    name="gather_elements_rt", axis=0), [2, 3], 13,
         [init("X", X)],
         [("oob", [[0, 1, 2], [4, 5, 0]], "out of range"),
          ("oob_neg", [[0, -6, 2], [4, 1, 0]], "out of range")],
         [("neg", ge_ok, np.take_along_axis(X, ge_ok % 5, 0))]),
        ("gather_nd_rt", node("GatherND", ["X", "idx"], ["Y"], name="gather_nd_rt"), [2, 2], 13,
         [init("X", X)],
         [("oob", [[0, 1], [1, 3]], "out of range"),
          ("oob_neg", [[-6, 1], [1, 1]], "out of range")],
         [("neg", nd_ok, X[nd_ok[:, 0] % 5, nd_ok[:, 1] % 3])]),
        ("scatter_elements_rt", node("ScatterElements", ["X", "idx", "U"], ["Y"],
                                     name="scatter_elements_rt", axis=0), [2, 3], 13,
         [init("X", X), init("U", U)],
         [("oob", [[0, 1, 2], [4, 5, 0]], "out of range"),
          ("oob_neg", [[0, -6, 2], [4, 1, 0]], "out of range")],
         [("neg", ge_ok, scatter_elements(X, ge_ok, U, 0))]),
        ("scatter_nd_rt", node("ScatterND", ["X", "idx", "U"], ["Y"], name="scatter_nd_rt"),
         [2, 1], 13, [init("X", X), init("U", U)],
         [("oob", [[1], [5]], "out of range"), ("oob_neg", [[-6], [1]], "out of range")],
         [("neg", [[-5], [-1]], np.concatenate([U[:1], X[1:4], U[1:]]))]),
        ("scatter_rt", node("Scatter", ["X", "idx", "U"], ["Y"], name="scatter_rt", axis=1),
         [2, 3], 9, [init("X", X), init("U", U)],
         [("oob", [[0, 1, 2], [2, 3, 0]], "out of range"),
          ("oob_neg", [[0, -4, 2], [2, 1, 0]], "out of range")],
         [("neg", sc_ok, scatter_elements(X, sc_ok, U, 1))]),
        ("max_unpool_rt", node("MaxUnpool", ["X", "idx"], ["Y"], name="max_unpool_rt",
                               kernel_shape=[2, 2], strides=[2, 2]), [1, 1, 2, 2], 11,
         [init("X", x4)],
         [("oob", np.array([0, 3, 16, 15]).reshape(1, 1, 2, 2), "outside"),
          ("neg", np.array([0, 3, -1, 15]).reshape(1, 1, 2, 2), "outside")],
         [("in", np.array([0, 3, 8, 15]).reshape(1, 1, 2, 2),
           unpool(x4, np.array([0, 3, 8, 15]), 16))]),
        ("cumsum_rt", node("CumSum", ["X", "idx"], ["Y"], name="cumsum_rt"), [], 14,
         [init("X", X)],
         [("oob", 2, "out of range"), ("oob_neg", -3, "out of range")],
         [("neg", -1, np.cumsum(X, axis=1))]),
        ("reverse_sequence_rt", node("ReverseSequence", ["X", "idx"], ["Y"],
                                     name="reverse_sequence_rt", batch_axis=1, time_axis=0),
         [3], 10, [init("X", X)],
         [("oob", [1, 6, 2], "outside"), ("neg", [1, -1, 2], "outside")],
         [("in", [1, 5, 3], reverse_sequence(X, [1, 5, 3]))]),
        ("roi_align_rt", node("RoiAlign", ["X", "R", "idx"], ["Y"], name="roi_align_rt",
                              output_height=2, output_width=2), [2], 16,
         [init("X", xr), init("R", rois)],
         [("oob", [0, 2], "outside"), ("neg", [-1, 0], "outside")], []),
        ("rotary_rt", node("RotaryEmbedding", ["X", "C", "S", "idx"], ["Y"], name="rotary_rt"),
         [1, 2], 23,
         [init("X", rng.rand(1, 2, 2, 4).astype(np.float32)),
          init("C", rng.rand(3, 2).astype(np.float32)),
          init("S", rng.rand(3, 2).astype(np.float32))],
         [("oob", [[0, 3]], "outside"), ("neg", [[-1, 0]], "outside")], []),
        ("tensor_scatter_rt", node("TensorScatter", ["P", "U", "idx"], ["Y"],
                                   name="tensor_scatter_rt", axis=1), [2], 24,
         [init("P", past), init("U", upd)],
         [("oob", [4, 1], "outside"), ("neg", [-1, 0], "outside")],
         [("in", [3, 0], tensor_scatter(past, upd, [3, 0], False))]),
        ("tensor_scatter_circ_rt", node("TensorScatter", ["P", "U", "idx"], ["Y"],
                                        name="tensor_scatter_circ_rt", axis=1, mode="circular"),
         [2], 24, [init("P", past), init("U", upd)],
         [("neg", [-1, 0], "outside")],
         [("wrap", [4, 5], tensor_scatter(past, upd, [4, 5], True))]),
        ("attention_rt", node("Attention", ["Q", "K", "V", "", "", "", "idx"], ["Y"],
                              name="attention_rt"), [1], 24,
         [init(nm, rng.rand(*s).astype(np.float32))
          for nm, s in (("Q", [1, 2, 3, 4]), ("K", [1, 2, 5, 4]), ("V", [1, 2, 5, 4]))],
         [("oob", [6], "outside"), ("neg", [-1], "outside")], []),
        # any k is valid: a huge one keeps all or nothing (row + k once overflowed)
        ("trilu_rt", node("Trilu", ["X", "idx"], ["Y"], name="trilu_rt", upper=1), [], 14,
         [init("X", X)], [],
         [("kmax", big, np.zeros_like(X)), ("kmin", small, X), ("k1", 1, np.triu(X, 1))]),
        # out of range: all off values (the spec)
        ("onehot_rt", node("OneHot", ["idx", "D", "V"], ["Y"], name="onehot_rt", axis=-1), [5],
         11, [init("D", np.array(4, np.int64)), init("V", np.array([0.5, 2], np.float32))], [],
         [("mixed", [0, -4, 4, -5, 3], onehot([0, -4, 4, -5, 3], 4, 0.5, 2))]),
    ]


def add(outdir, model, save, save_command, save_text):
    """Writes the models, their inputs and wanted outputs, and the cases."""
    run = lambda name, case: ["run", "@DIR@/ok_%s.onnx" % name, "--input",
                              "@DIR@/%s_%s.in.pb" % (name, case), "--output", "@OUT@/y.pb"]
    for name, nd, shape, opset, inits, bad, good in models():
        if opset >= 21:   # an ir_version that admits the opset
            g = helper.make_graph([nd], "g", [helper.make_tensor_value_info("idx", I64, shape)],
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                                  initializer=inits)
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
            m.ir_version = 10
        else:
            m = model([nd], [helper.make_tensor_value_info("idx", I64, shape)],
                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], inits,
                      opset=opset)
        save(outdir, "ok_" + name, m, "ok")
        for case, vals, _ in bad + good:
            save_text(outdir, "%s_%s.in.pb" % (name, case), numpy_helper.from_array(
                np.array(vals, np.int64), "idx").SerializeToString())
        for case, _, sub in bad:
            save_command(outdir, "%s_%s" % (name, case), run(name, case), "error", name, sub)
        for case, _, want in good:
            save_text(outdir, "ok_%s_%s.want.pb" % (name, case), numpy_helper.from_array(
                np.asarray(want, np.float32), "Y").SerializeToString())
            save_command(outdir, "ok_%s_%s" % (name, case), run(name, case), "ok")
