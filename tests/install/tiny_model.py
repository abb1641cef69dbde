#!/usr/bin/python3
"""tiny_model.py OUT.onnx OUT_INPUT.pb [SEED] - a small CNN (Conv, Relu,
MaxPool, Conv, GlobalAveragePool, Flatten, Gemm, 10 classes) with seeded
random weights and one random 1x3x16x16 input, for tests that build and link
a model fast. Different seeds give different weights and class counts."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, inp = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
rng = np.random.default_rng(seed)
classes = 10 + seed


def w(name, *shape):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)


inits = [w("c1w", 8, 3, 3, 3), w("c1b", 8), w("c2w", 16, 8, 3, 3), w("c2b", 16),
         w("fw", classes, 16), w("fb", classes)]
nodes = [
    helper.make_node("Conv", ["input", "c1w", "c1b"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"]),
    helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c2"], ["r2"]),
    helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
    helper.make_node("Flatten", ["g"], ["f"]),
    helper.make_node("Gemm", ["f", "fw", "fb"], ["output"], transB=1),
]
graph = helper.make_graph(
    nodes, "tiny%d" % seed,
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, classes])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out)
x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
with open(inp, "wb") as f:
    f.write(numpy_helper.from_array(x, "input").SerializeToString())
