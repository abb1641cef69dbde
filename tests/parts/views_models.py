"""views_models.py DIR - the edge-case models of 43-views.sh (views: Reshape,
Flatten, Squeeze, Unsqueeze, Identity, Dropout), each DIR/NAME.onnx with a
seeded input DIR/NAME.in.pb, written with onnx.helper:
  input_output  a Reshape of a graph input that is a graph output, a Flatten of
                it read by a layer, and the input itself a graph output
  concat_twice  a Concat of the same tensor twice and of a constant
  two_readers   a Reshape read by two layers, one of them a conv: the view
                breaks the producer conv's channel blocks
  concat_inplace  Concats done in place: a part read by another layer too, a
                part that is a graph output, a Concat of a Concat (nested), a
                Concat on the row axis (not contiguous: copied), one whose
                parts are 8 + 16 channels (not whole 16-channel blocks)
  shuffle_through  ShuffleNetV2-like units of 12 + 12 channels (concat,
                shuffle, split): the concats read through by the gathers, a
                pass-on gather read through by the next unit's, a concat
                also read by a Relu (copied) and a pass-on gather that is a
                graph output (runs)
  chain         views chained (Flatten -> Reshape -> Unsqueeze -> Squeeze),
                Identity and Dropout between convs, a Flatten of a conv map
"""
import sys, numpy as np, onnx
from onnx import helper as h, TensorProto as TP, numpy_helper as nh
d = sys.argv[1]
rng = np.random.default_rng(43)
def W(name, *shape): return nh.from_array(rng.standard_normal(shape).astype(np.float32) * 0.2, name)
def I64(name, v): return nh.from_array(np.array(v, dtype=np.int64), name)
def save(name, nodes, inputs, outputs, inits, xshape):
    g = h.make_graph(nodes, name, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, f"{d}/{name}.onnx")
    x = rng.standard_normal(xshape).astype(np.float32)
    onnx.save_tensor(nh.from_array(x, "X"), f"{d}/{name}.in.pb")
vi = lambda n, s: h.make_tensor_value_info(n, TP.FLOAT, s)
X = vi("X", [1, 32, 8, 8])
# 1. a Reshape of a graph input that is a graph output, the input itself an output too
save("input_output", [
    h.make_node("Reshape", ["X", "s"], ["Y"]),
    h.make_node("Flatten", ["X"], ["F"]),
    h.make_node("Relu", ["F"], ["Z"])],
    [X], [vi("Y", [1, 2048]), vi("Z", [1, 2048]), vi("X", [1, 32, 8, 8])], [I64("s", [1, 2048])], [1, 32, 8, 8])
# 2. Concat of the same tensor twice, and 3. of a constant
save("concat_twice", [
    h.make_node("Conv", ["X", "w", "b"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("Concat", ["A", "A", "K"], ["C"], axis=1),
    h.make_node("Conv", ["C", "w2", "b2"], ["Y"])],
    [X], [vi("Y", [1, 16, 8, 8])], [W("w", 32, 32, 3, 3), W("b", 32), W("K", 1, 16, 8, 8),
                                     W("w2", 16, 80, 1, 1), W("b2", 16)], [1, 32, 8, 8])
# 4. a Reshape feeding two consumers, one of them a conv (the view breaks the
# conv output's channel blocks: converted, then blocked again)
save("two_readers", [
    h.make_node("Conv", ["X", "w", "b"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("Reshape", ["A", "s"], ["R"]),
    h.make_node("Conv", ["R", "w2", "b2"], ["P"]),
    h.make_node("Relu", ["R"], ["Q"]),
    h.make_node("ReduceMean", ["Q"], ["M"], axes=[1], keepdims=1),
    h.make_node("Add", ["P", "M"], ["Y"])],
    [X], [vi("Y", [1, 16, 4, 32])], [W("w", 32, 32, 3, 3), W("b", 32), I64("s", [1, 16, 4, 32]),
                                      W("w2", 16, 16, 1, 1), W("b2", 16)], [1, 32, 8, 8])
# 5. views chained: Flatten -> Reshape -> Unsqueeze after a pooled conv, and an
# Identity and a Dropout between convs
save("chain", [
    h.make_node("Conv", ["X", "w", "b"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("Identity", ["A"], ["A1"]),
    h.make_node("Relu", ["A1"], ["A2"]),
    h.make_node("Dropout", ["A2"], ["A3"]),
    h.make_node("Conv", ["A3", "w1", "b1"], ["B"], pads=[1, 1, 1, 1]),
    h.make_node("GlobalAveragePool", ["B"], ["G"]),
    h.make_node("Flatten", ["G"], ["F"]),
    h.make_node("Reshape", ["F", "s"], ["R"]),
    h.make_node("Unsqueeze", ["R", "ax"], ["U"]),
    h.make_node("Squeeze", ["U", "ax"], ["S"]),
    h.make_node("Gemm", ["S", "fw", "fb"], ["Y"], transB=1),
    h.make_node("Flatten", ["B"], ["BF"]),
    h.make_node("Gemm", ["BF", "gw", "fb"], ["Y2"], transB=1)],
    [X], [vi("Y", [1, 10]), vi("Y2", [1, 10])],
    [W("w", 32, 32, 3, 3), W("b", 32), W("w1", 48, 32, 3, 3), W("b1", 48), I64("s", [1, 48]),
     I64("ax", [0]), W("fw", 10, 48), W("fb", 10), W("gw", 10, 48 * 64)], [1, 32, 8, 8])
# 6. Concats in place (and the ones that are not)
save("concat_inplace", [
    h.make_node("Conv", ["X", "w", "b"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("Conv", ["X", "w1", "b1"], ["B"]),
    h.make_node("Concat", ["A", "B"], ["C1"], axis=1),
    h.make_node("Relu", ["A"], ["D"]),
    h.make_node("Concat", ["C1", "D"], ["C2"], axis=1),
    h.make_node("Conv", ["C2", "w2", "b2"], ["E"]),
    h.make_node("Concat", ["E", "D"], ["R"], axis=2),
    h.make_node("Conv", ["X", "w3", "b3"], ["S"]),
    h.make_node("Concat", ["S", "B"], ["T"], axis=1),
    h.make_node("Relu", ["T"], ["Y3"])],
    [X], [vi("R", [1, 32, 16, 8]), vi("B", [1, 16, 8, 8]), vi("Y3", [1, 24, 8, 8])],
    [W("w", 32, 32, 3, 3), W("b", 32), W("w1", 16, 32, 1, 1), W("b1", 16),
     W("w2", 32, 80, 1, 1), W("b2", 32), W("w3", 8, 32, 1, 1), W("b3", 8)], [1, 32, 8, 8])
# 7. Transposes that move only dims of 1 are views ([1,32,1,1] -> [1,1,1,32],
# [1,8,1,64] -> [8,1,1,64]), one that is a graph output; one that moves
# dims larger than 1 stays a TRANSPOSE layer
save("transpose_view", [
    h.make_node("Conv", ["X", "w", "b"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("GlobalAveragePool", ["A"], ["G"]),
    h.make_node("Transpose", ["G"], ["GT"], perm=[2, 0, 3, 1]),
    h.make_node("MatMul", ["GT", "m"], ["Y"]),
    h.make_node("Reshape", ["A", "s"], ["R"]),
    h.make_node("Transpose", ["R"], ["RT"], perm=[1, 2, 0, 3]),
    h.make_node("Relu", ["RT"], ["Y2"]),
    h.make_node("Transpose", ["A"], ["AT"], perm=[0, 1, 3, 2]),
    h.make_node("Sigmoid", ["AT"], ["Y3"])],
    [X], [vi("Y", [1, 1, 1, 10]), vi("Y2", [8, 1, 1, 256]), vi("Y3", [1, 32, 8, 8]), vi("RT", [8, 1, 1, 256])],
    [W("w", 32, 32, 3, 3), W("b", 32), W("m", 32, 10), I64("s", [1, 8, 1, 256])], [1, 32, 8, 8])
# 8. ShuffleNetV2-like units (12 + 12 channels, not whole 16-channel blocks):
# C1 is also read by a Relu (it copies, and its gathers read it), C2, C3 and
# C4 are read through by the gathers after them; P3, passed on, is read
# through by C4's shuffle; P2 is a graph output (it runs)
def shuffle(x, y, k):
    return [h.make_node("Reshape", [x, "s5"], [f"r{k}"]),
            h.make_node("Transpose", [f"r{k}"], [f"t{k}"], perm=[0, 2, 1, 3, 4]),
            h.make_node("Reshape", [f"t{k}", "s4"], [y])]
def split(x, a, b):
    return [h.make_node("Slice", [x, "z0", "z12", "ax"], [a]),
            h.make_node("Slice", [x, "z12", "z24", "ax"], [b])]
save("shuffle_through", [
    h.make_node("Conv", ["X", "wa", "ba"], ["A"], pads=[1, 1, 1, 1]),
    h.make_node("Conv", ["X", "wb", "bb"], ["B1"]),
    h.make_node("Concat", ["A", "B1"], ["C1"], axis=1),
    h.make_node("Relu", ["C1"], ["Y2"])] + shuffle("C1", "S1", 1) + split("S1", "P1", "Q1") + [
    h.make_node("Conv", ["Q1", "w2", "b2"], ["B2"], pads=[1, 1, 1, 1]),
    h.make_node("Concat", ["P1", "B2"], ["C2"], axis=1)] + shuffle("C2", "S2", 2) + split("S2", "P2", "Q2") + [
    h.make_node("Conv", ["Q2", "w3", "b3"], ["B3"]),
    h.make_node("Concat", ["P2", "B3"], ["C3"], axis=1)] + shuffle("C3", "S3", 3) + split("S3", "P3", "Q3") + [
    h.make_node("Conv", ["Q3", "w5", "b5"], ["B4"]),
    h.make_node("Concat", ["P3", "B4"], ["C4"], axis=1)] + shuffle("C4", "S4", 4) + [
    h.make_node("Conv", ["S4", "w4", "b4"], ["Y"])],
    [X], [vi("Y", [1, 16, 8, 8]), vi("Y2", [1, 24, 8, 8]), vi("P2", [1, 12, 8, 8])],
    [W("wa", 12, 32, 3, 3), W("ba", 12), W("wb", 12, 32, 1, 1), W("bb", 12),
     W("w2", 12, 12, 3, 3), W("b2", 12), W("w3", 12, 12, 1, 1), W("b3", 12),
     W("w5", 12, 12, 1, 1), W("b5", 12), W("w4", 16, 24, 1, 1), W("b4", 16), I64("s5", [1, 2, 12, 8, 8]), I64("s4", [1, 24, 8, 8]),
     I64("z0", [0]), I64("z12", [12]), I64("z24", [24]), I64("ax", [1])], [1, 32, 8, 8])
