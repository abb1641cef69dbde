#!/usr/bin/env python3
"""seq_models.py OUTDIR - a model whose graph input is a sequence of float
tensors [n_i, 3] (tests/parts/40-sequences.sh): its outputs are
SequenceLength (int64 scalar), ConcatFromSequence along axis 0 ([sum n_i, 3])
and SequenceAt(-1) (the last tensor). Writes OUTDIR/seqlen.onnx, the build's
example ex.pb (2 tensors), and for 1, 2 and 4 tensors of other shapes
in_K.pb with its expected outputs ref_K_{len,cat,last}.pb, computed here by
numpy (the reference: ONNX Runtime's node binding takes no sequence)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(40)

seq_t = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, ["n", 3])
nodes = [
    helper.make_node("SequenceLength", ["seq"], ["len"], name="length"),
    helper.make_node("ConcatFromSequence", ["seq"], ["cat"], name="concat", axis=0),
    helper.make_node("Constant", [], ["minus1"], name="minus1",
                     value=numpy_helper.from_array(np.array(-1, np.int64))),
    helper.make_node("SequenceAt", ["seq", "minus1"], ["last"], name="at"),
]
outs = [helper.make_tensor_value_info("len", TensorProto.INT64, []),
        helper.make_tensor_value_info("cat", TensorProto.FLOAT, [None, 3]),
        helper.make_tensor_value_info("last", TensorProto.FLOAT, [None, 3])]
g = helper.make_graph(nodes, "seqlen", [seq_t], outs)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="seq_models.py")
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "seqlen.onnx"))


def write(name, proto):
    with open(os.path.join(out, name), "wb") as f:
        f.write(proto.SerializeToString())


def seq(rows):
    ts = [rng.standard_normal((r, 3)).astype(np.float32) for r in rows]
    return ts, numpy_helper.from_list(ts, "seq")


write("ex.pb", seq([2, 1])[1])
for k, rows in ((1, [5]), (2, [3, 3]), (4, [4, 1, 2, 6])):
    ts, s = seq(rows)
    write(f"in_{k}.pb", s)
    write(f"ref_{k}_len.pb", numpy_helper.from_array(np.array(len(ts), np.int64), "len"))
    write(f"ref_{k}_cat.pb", numpy_helper.from_array(np.concatenate(ts, 0), "cat"))
    write(f"ref_{k}_last.pb", numpy_helper.from_array(ts[-1], "last"))

# seqmm.onnx: ConcatFromSequence of [n_i, 16] tensors, then MatMul by a
# [16, 32] weight, Add and Relu: a layer the precision knobs change (a
# program built with --precision bf16 keeps it after a replan). mm_ex.pb:
# the build's 2 tensors; mm_in_3.pb: 3 of other rows, mm_ref_3.pb numpy's y.
w = rng.standard_normal((16, 32)).astype(np.float32)
b = rng.standard_normal(32).astype(np.float32)
nodes = [
    helper.make_node("ConcatFromSequence", ["seq"], ["cat"], name="concat", axis=0),
    helper.make_node("MatMul", ["cat", "w"], ["mm"], name="mm"),
    helper.make_node("Add", ["mm", "b"], ["add"], name="add"),
    helper.make_node("Relu", ["add"], ["y"], name="relu"),
]
g = helper.make_graph(
    nodes, "seqmm", [helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, ["n", 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 32])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="seq_models.py")
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "seqmm.onnx"))
ex = [rng.standard_normal((r, 16)).astype(np.float32) for r in (2, 3)]
write("mm_ex.pb", numpy_helper.from_list(ex, "seq"))
ts = [rng.standard_normal((r, 16)).astype(np.float32) for r in (4, 1, 5)]
write("mm_in_3.pb", numpy_helper.from_list(ts, "seq"))
y = np.maximum(np.concatenate(ts, 0) @ w + b, 0).astype(np.float32)
write("mm_ref_3.pb", numpy_helper.from_array(y, "y"))

# seqbatch.onnx: z = ConcatFromSequence(seq) @ w2 and y = Relu(x @ w2 + b2)
# with x ["batch", 16]: built with --batch 2 (and a strategy and target), run
# at 3 tensors (a replan, which must keep batch 2). sb_x1/sb_x2.pb: x at
# batch 1 and 2; sb_z3.pb numpy's z for mm_in_3.pb; sb_x.onnx the x branch
# alone, for ONNX Runtime's y (its node binding takes no sequence).
w2 = rng.standard_normal((16, 8)).astype(np.float32)
b2 = rng.standard_normal(8).astype(np.float32)
xnodes = [helper.make_node("MatMul", ["x", "w2"], ["xm"], name="xmm"),
          helper.make_node("Add", ["xm", "b2"], ["xa"], name="xadd"),
          helper.make_node("Relu", ["xa"], ["y"], name="xrelu")]
x_vi = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])
y_vi = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])
inits = [numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")]
for name, nodes, ins, outs in (
        ("seqbatch", [helper.make_node("ConcatFromSequence", ["seq"], ["cat"], name="concat", axis=0),
                      helper.make_node("MatMul", ["cat", "w2"], ["z"], name="mm")] + xnodes,
         [helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, ["n", 16]), x_vi],
         [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, 8]), y_vi]),
        ("sb_x", xnodes, [x_vi], [y_vi])):
    m = helper.make_model(helper.make_graph(nodes, name, ins, outs, inits),
                          opset_imports=[helper.make_opsetid("", 17)], producer_name="seq_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))
for bb in (1, 2):
    write(f"sb_x{bb}.pb", numpy_helper.from_array(rng.standard_normal((bb, 16)).astype(np.float32), "x"))
write("sb_z3.pb", numpy_helper.from_array((np.concatenate(ts, 0) @ w2).astype(np.float32), "z"))
