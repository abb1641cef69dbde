#!/usr/bin/python3
"""control_flow.py OUTDIR - writes the models of tests/parts/33-control-flow.sh.

Each case is OUTDIR/NAME.onnx with seeded inputs OUTDIR/NAME.in0.pb, ... and
a line in OUTDIR/cases.txt: `NAME N_INPUTS N_OUTPUTS MODE`, where MODE says
what Paleozoic must do with it:
  run     `paleozoic run` and a built program match ONNX Runtime
  bound   `paleozoic run --input` matches ONNX Runtime (the condition is bound
          from the given input: the branches differ in shape)
  refuse  `paleozoic run` exits 2 naming the node (a run-time loop condition)
Models: PyTorch 1.13 scripted modules (If on a data-dependent condition, Loop
with a constant and a shape-derived trip count, a loop nested in a branch)
and onnx.helper graphs (Scan both directions with scan outputs on axis 1,
Loop with a body condition and scan outputs, If with outer-scope values,
sequence ops with a sequence carried by a Loop).
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
cases = []
rng = np.random.default_rng(7)
torch.manual_seed(7)


def save(name, model_path_or_proto, inputs, n_out, mode):
    path = os.path.join(out, name + ".onnx")
    if not isinstance(model_path_or_proto, str):
        onnx.save(model_path_or_proto, path)
    for k, x in enumerate(inputs):
        t = numpy_helper.from_array(x, "in%d" % k)
        with open(os.path.join(out, "%s.in%d.pb" % (name, k)), "wb") as f:
            f.write(t.SerializeToString())
    cases.append("%s %d %d %s" % (name, len(inputs), n_out, mode))


# ---- PyTorch: scripted control flow -----------------------------------------
class Cond(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        if bool(x.sum() > 0):
            y = torch.relu(y) + 1.0
        else:
            y = torch.sigmoid(y) * 2.0
        return y


class Loops(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = torch.zeros_like(x)
        for _ in range(4):
            h = torch.tanh(self.lin(h) + x)
        for i in range(x.size(0)):
            h = h + 0.5 * i
        return h


class Nested(torch.nn.Module):
    def forward(self, x):
        y = x
        if bool(x.mean() < 10.0):
            for _ in range(3):
                y = y * 0.5 + torch.sin(y)
        return y


def export(name, module, args, inputs, mode="run"):
    path = os.path.join(out, name + ".onnx")
    m = torch.jit.script(module.eval())
    torch.onnx.export(m, args, path, opset_version=13, input_names=["x"])
    save(name, path, inputs, 1, mode)


xpos = np.abs(rng.standard_normal((1, 3, 8, 8))).astype(np.float32)
export("torch_if_pos", Cond(), (torch.from_numpy(xpos),), [xpos])
export("torch_if_neg", Cond(), (torch.from_numpy(xpos),), [-xpos])
xl = rng.standard_normal((3, 16)).astype(np.float32)
export("torch_loop", Loops(), (torch.from_numpy(xl),), [xl])
xn = rng.standard_normal((2, 5)).astype(np.float32)
export("torch_nested", Nested(), (torch.from_numpy(xn),), [xn])

# ---- onnx.helper graphs ------------------------------------------------------
F = TensorProto.FLOAT


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


# Scan: state s (running sum of rows), scan inputs a (forward, axis 0) and b
# (reverse, axis 1); scan outputs: the state per step (axis 0) and a*b per
# step stacked on axis 1.
body = helper.make_graph(
    [helper.make_node("Add", ["s_in", "a_t"], ["s_out"]),
     helper.make_node("Mul", ["a_t", "b_t"], ["ab"]),
     helper.make_node("Identity", ["s_out"], ["s_scan"])],
    "scan_body",
    [vi("s_in", [4]), vi("a_t", [4]), vi("b_t", [4])],
    [vi("s_out", [4]), vi("s_scan", [4]), vi("ab", [4])])
g = helper.make_graph(
    [helper.make_node("Scan", ["s0", "a", "b"], ["s", "ss", "abs"], body=body,
                      num_scan_inputs=2, scan_input_axes=[0, 1],
                      scan_input_directions=[0, 1], scan_output_axes=[0, 1])],
    "scan", [vi("s0", [4]), vi("a", [5, 4]), vi("b", [4, 5])],
    [vi("s", [4]), vi("ss", [5, 4]), vi("abs", [4, 5])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
save("scan", m, [rng.standard_normal(s).astype(np.float32) for s in ([4], [5, 4], [4, 5])], 3,
     "run")

# Loop: M = 10, cond from the body (i < 5, so 6 iterations), carried v, a scan
# output of v * w where w is an outer-scope value.
I64, B = TensorProto.INT64, TensorProto.BOOL
five = numpy_helper.from_array(np.array(5, np.int64), "five")
body = helper.make_graph(
    [helper.make_node("Less", ["i", "five"], ["c_out"]),
     helper.make_node("Add", ["v_in", "w"], ["v_out"]),
     helper.make_node("Mul", ["v_out", "w"], ["sc"])],
    "loop_body", [vi("i", [], I64), vi("c_in", [], B), vi("v_in", [3])],
    [vi("c_out", [], B), vi("v_out", [3]), vi("sc", [3])], initializer=[five])
g = helper.make_graph(
    [helper.make_node("Exp", ["x"], ["w"]),
     helper.make_node("Loop", ["M", "cond", "v0"], ["v", "scans"], body=body)],
    "loop", [vi("x", [3]), vi("v0", [3])], [vi("v", [3]), vi("scans", [None, 3])],
    initializer=[numpy_helper.from_array(np.array(10, np.int64), "M"),
                 numpy_helper.from_array(np.array(True), "cond")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
save("loop_cond", m, [rng.standard_normal(3).astype(np.float32) for _ in range(2)], 2, "run")

# Loop whose condition depends on run-time data: refused by name.
body = helper.make_graph(
    [helper.make_node("Mul", ["v_in", "two"], ["v_out"]),
     helper.make_node("ReduceSum", ["v_out"], ["sum"], keepdims=0),
     helper.make_node("Less", ["sum", "lim"], ["c_out"])],
    "loop_body", [vi("i", [], I64), vi("c_in", [], B), vi("v_in", [3])],
    [vi("c_out", [], B), vi("v_out", [3])],
    initializer=[numpy_helper.from_array(np.array(2, np.float32), "two"),
                 numpy_helper.from_array(np.array(100, np.float32), "lim")])
g = helper.make_graph(
    [helper.make_node("Loop", ["", "cond", "v0"], ["v"], body=body)],
    "while", [vi("v0", [3])], [vi("v", [3])],
    initializer=[numpy_helper.from_array(np.array(True), "cond")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
save("loop_dynamic", m, [np.abs(rng.standard_normal(3)).astype(np.float32) + 0.1], 1, "refuse")

# If on a bool input, branches of different shapes reading outer values: the
# condition is bound from the given input.
then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                           [vi("t", [2, 3])])
else_g = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["e"], keepdims=0)], "else",
                           [], [vi("e", [])])
g = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
    "if_shapes", [vi("c", [], B), vi("x", [2, 3])], [vi("y", None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
xi = rng.standard_normal((2, 3)).astype(np.float32)
save("if_bound_true", m, [np.array(True), xi], 1, "bound")
onnx.save(m, os.path.join(out, "if_bound_false.onnx"))
save("if_bound_false", os.path.join(out, "if_bound_false.onnx"), [np.array(False), xi], 1,
     "bound")

# Sequences inside a tensor model (op_seq.h): the columns of x split into a
# sequence, the last erased, exp(x[:, :1]) inserted in front, a Loop that
# appends v * i per iteration to the carried sequence; then the sequence
# stacked on a new last axis, its length as a float, and the element at -2
# times a SequenceMap of Relu summed over the sequence.
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Mul", ["v", "fi"], ["vi_"]),
     helper.make_node("SequenceInsert", ["s_in", "vi_"], ["s_out"]),
     helper.make_node("Identity", ["c_in"], ["c_out"])],
    "seq_body", [vi("i", [], I64), vi("c_in", [], B),
                 helper.make_tensor_sequence_value_info("s_in", F, [3, 1])],
    [vi("c_out", [], B), helper.make_tensor_sequence_value_info("s_out", F, [3, 1])])
relu = helper.make_graph([helper.make_node("Relu", ["e"], ["r"])], "map_body",
                         [vi("e", [3, 1])], [vi("r", [3, 1])])
g = helper.make_graph(
    [helper.make_node("SplitToSequence", ["x"], ["s0"], axis=1),
     helper.make_node("SequenceErase", ["s0"], ["s1"]),
     helper.make_node("Slice", ["x", "zero", "one", "one"], ["first"]),
     helper.make_node("Exp", ["first"], ["v"]),
     helper.make_node("SequenceInsert", ["s1", "v", "zero"], ["s2"]),
     helper.make_node("Loop", ["three", "", "s2"], ["s3"], body=body),
     helper.make_node("ConcatFromSequence", ["s3"], ["stacked"], axis=-1, new_axis=1),
     helper.make_node("SequenceLength", ["s3"], ["n"]),
     helper.make_node("Cast", ["n"], ["len"], to=F),
     helper.make_node("SequenceAt", ["s3", "minus2"], ["at"]),
     helper.make_node("SequenceMap", ["s3"], ["relus"], body=relu),
     helper.make_node("ConcatFromSequence", ["relus"], ["cat"], axis=1),
     helper.make_node("ReduceSum", ["cat", "one"], ["rs"], keepdims=1),
     helper.make_node("Mul", ["at", "rs"], ["prod"])],
    "sequences", [vi("x", [3, 4])],
    [vi("stacked", None), vi("len", []), vi("prod", None)],
    initializer=[numpy_helper.from_array(np.array(v, np.int64), n)
                 for n, v in (("zero", [0]), ("one", [1]), ("three", 3), ("minus2", -2))])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
save("sequences", m, [rng.standard_normal((3, 4)).astype(np.float32)], 3, "run")

# If on a bool input whose branch not taken would fail on its inputs (a
# Gather out of range, a Reshape of a shape that does not hold, read at run
# time in a built program): the run skips that branch, as ONNX Runtime does.
# Cases of one model share its built program (the 5th field of cases.txt).
def save_shared(model, m, runs, n_out):
    onnx.save(m, os.path.join(out, model + ".onnx"))
    for tag, inputs in runs:
        save(model + "_" + tag, os.path.join(out, model + ".onnx"), inputs, n_out,
             "run " + model)


def i64(*v):
    return np.array(v, np.int64)


def branch(name, nodes, out_name, dims, inits=()):
    return helper.make_graph(nodes, name, [], [vi(out_name, dims)], initializer=list(inits))


one = numpy_helper.from_array(np.array(1, np.float32), "one_f")
two = numpy_helper.from_array(np.array(2, np.float32), "two_f")
g = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="pick", then_branch=branch(
        "then", [helper.make_node("Gather", ["x", "i"], ["tg"], name="tgather"),
                 helper.make_node("Add", ["tg", "one_f"], ["ty"], name="tadd")], "ty", [2], [one]),
        else_branch=branch(
        "else", [helper.make_node("Gather", ["x", "j"], ["eg"], name="egather"),
                 helper.make_node("Mul", ["eg", "two_f"], ["ey"], name="emul")], "ey", [2], [two]))],
    "if_skip_gather", [vi("c", [], B), vi("x", [5]), vi("i", [2], I64), vi("j", [2], I64)],
    [vi("y", [2])])
xg = rng.standard_normal(5).astype(np.float32)
save_shared("if_skip_gather", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
            [("t", [np.array(True), xg, i64(1, -1), i64(7, 9)]),
             ("f", [np.array(False), xg, i64(5, -9), i64(4, 0)])], 1)

# Nested: If(c1) { If(c2) { Reshape(x, s) } else { Reshape(x, s2) } }
# else { Reshape(-x, s3) }; the shapes not taken hold 16 elements, x 6.
inner = helper.make_graph(
    [helper.make_node("If", ["c2"], ["iy"], name="inner",
                      then_branch=branch("then", [helper.make_node("Reshape", ["x", "s"], ["a"])],
                                         "a", None),
                      else_branch=branch("else", [helper.make_node("Reshape", ["x", "s2"], ["b"])],
                                         "b", None))],
    "outer_then", [], [vi("iy", None)])
g = helper.make_graph(
    [helper.make_node("If", ["c1"], ["y"], name="outer", then_branch=inner, else_branch=branch(
        "else", [helper.make_node("Neg", ["x"], ["nx"]),
                 helper.make_node("Reshape", ["nx", "s3"], ["e"])], "e", None))],
    "if_skip_reshape", [vi("c1", [], B), vi("c2", [], B), vi("x", [6]), vi("s", [2], I64),
                        vi("s2", [2], I64), vi("s3", [2], I64)], [vi("y", None)])
xr = rng.standard_normal(6).astype(np.float32)
T_, F_, bad = np.array(True), np.array(False), i64(4, 4)
save_shared("if_skip_reshape", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
            [("tt", [T_, T_, xr, i64(2, 3), bad, bad]),
             ("tf", [T_, F_, xr, bad, i64(3, 2), bad]),
             ("ft", [F_, T_, xr, bad, bad, i64(1, 6)])], 1)

# An If whose condition a Gemm's epilogue writes (Cmp(y, c) fused into the
# Gemm: select.c's pass_fuse_mask) and whose branches are three convs each,
# its output then read by torch.where(y > 0, y, 0.2 * y), the pattern
# pass_fuse_select takes into a Conv: the chooser stays a WHERE (select.c
# fuses a Where only when its branches are the fused layer's own output), so
# the branch not taken is skipped. The Gemm has no bias: -x flips the
# condition.
def conv_branch(tag):
    nodes, inits, prev = [], [], "x"
    for k in range(3):
        w = "%sw%d" % (tag, k)
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((4, 4, 3, 3)) * 0.3).astype(np.float32), w))
        nodes.append(helper.make_node("Conv", [prev, w], ["%s%d" % (tag, k)],
                                      name="%sconv%d" % (tag, k), pads=[1, 1, 1, 1]))
        prev = "%s%d" % (tag, k)
    return helper.make_graph(nodes, tag, [], [vi(prev, [1, 4, 8, 8])], initializer=inits)


g = helper.make_graph(
    [helper.make_node("Flatten", ["x"], ["fx"]),
     helper.make_node("Gemm", ["fx", "gw"], ["score"], name="score"),
     helper.make_node("Greater", ["score", "zero_f"], ["c2"]),
     helper.make_node("Reshape", ["c2", "scalar"], ["c"]),
     helper.make_node("If", ["c"], ["y"], name="pick", then_branch=conv_branch("t"),
                      else_branch=conv_branch("e")),
     helper.make_node("Greater", ["y", "zero_f"], ["m"]),
     helper.make_node("Mul", ["y", "k_f"], ["ky"]),
     helper.make_node("Where", ["m", "y", "ky"], ["out"])],
    "if_fused", [vi("x", [1, 4, 8, 8])], [vi("out", [1, 4, 8, 8])],
    initializer=[numpy_helper.from_array(rng.standard_normal((256, 1)).astype(np.float32), "gw"),
                 numpy_helper.from_array(np.array(0, np.float32), "zero_f"),
                 numpy_helper.from_array(np.array(0.2, np.float32), "k_f"),
                 numpy_helper.from_array(np.zeros(0, np.int64), "scalar")])
xf = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
if float(xf.reshape(1, -1) @ numpy_helper.to_array(g.initializer[0])) < 0:
    xf = -xf   # the t case takes then
save_shared("if_fused", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
            [("t", [xf]), ("f", [-xf])], 1)

# The one If select.c can fuse whole: Where(y > 0, y, 0.2 y) of a Gemm's one
# element y, as an If (nothing in it but the Gemm: nothing to skip).
g = helper.make_graph(
    [helper.make_node("Gemm", ["x", "gw1"], ["s"], name="score"),
     helper.make_node("Greater", ["s", "zero_f"], ["c"]),
     helper.make_node("If", ["c"], ["y"], name="pick", then_branch=branch(
         "then", [helper.make_node("Identity", ["s"], ["ts"])], "ts", [1, 1]),
         else_branch=branch("else", [helper.make_node("Mul", ["s", "k_f"], ["es"])], "es", [1, 1]))],
    "if_select_whole", [vi("x", [1, 16])], [vi("y", [1, 1])],
    initializer=[numpy_helper.from_array(rng.standard_normal((16, 1)).astype(np.float32), "gw1"),
                 numpy_helper.from_array(np.array(0, np.float32), "zero_f"),
                 numpy_helper.from_array(np.array(0.2, np.float32), "k_f")])
xs = rng.standard_normal((1, 16)).astype(np.float32)
save_shared("if_select_whole", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
            [("a", [xs]), ("b", [-xs])], 1)

with open(os.path.join(out, "cases.txt"), "w") as f:
    f.write("\n".join(cases) + "\n")
print("control_flow.py: %d cases in %s" % (len(cases), out))
