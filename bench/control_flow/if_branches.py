#!/usr/bin/python3
"""if_branches.py OUTDIR - the model of bench/control_flow/if_skip.sh: an If on a
bool input c whose branches are each four 3x3 convs (32 channels, 64x64) with
Relu; OUTDIR/bif.onnx, OUTDIR/c1.pb (c = true) and OUTDIR/x.pb."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
F = TensorProto.FLOAT


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def branch(tag):
    nodes, inits, cur = [], [], "x"
    for k in range(4):
        w = numpy_helper.from_array((rng.standard_normal((32, 32, 3, 3)) * 0.05)
                                    .astype(np.float32), "%sw%d" % (tag, k))
        inits.append(w)
        nodes.append(helper.make_node("Conv", [cur, w.name], ["%sc%d" % (tag, k)],
                                      pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("Relu", ["%sc%d" % (tag, k)], ["%sr%d" % (tag, k)]))
        cur = "%sr%d" % (tag, k)
    return helper.make_graph(nodes, tag, [], [vi(cur, [1, 32, 64, 64])], inits)


g = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], then_branch=branch("t"), else_branch=branch("e"))],
    "bench_if", [vi("c", [], TensorProto.BOOL), vi("x", [1, 32, 64, 64])],
    [vi("y", [1, 32, 64, 64])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "bif.onnx"))
for name, a in (("c1", np.array(True)),
                ("x", rng.standard_normal((1, 32, 64, 64)).astype(np.float32))):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a).SerializeToString())
