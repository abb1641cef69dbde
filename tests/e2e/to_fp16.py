"""to_fp16.py IN.onnx OUT.onnx - a float32 model with float16 weights and activations.

Weights (initializers and Constant tensors) and value_info of type float
become float16, Cast nodes to float cast to float16 instead, and the graph's
float inputs and outputs keep float32 with a Cast at each (what
onnxconverter-common's float16 converter makes with keep_io_types=True;
PyPI is not reachable, and ONNX Runtime's Node binding cannot take float16
tensors).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def half(t):
    if t.data_type != F32:
        return t
    a = numpy_helper.to_array(t).astype(np.float16)
    return helper.make_tensor(t.name, F16, a.shape, a.tobytes(), raw=True)


def main():
    m = onnx.load(sys.argv[1])
    g = m.graph
    for i, t in enumerate(g.initializer):
        g.initializer[i].CopyFrom(half(t))
    for vi in g.value_info:
        if vi.type.tensor_type.elem_type == F32:
            vi.type.tensor_type.elem_type = F16
    for n in g.node:
        for a in n.attribute:
            if n.op_type == "Constant" and a.name == "value":
                a.t.CopyFrom(half(a.t))
            if n.op_type == "Cast" and a.name == "to" and a.i == F32:
                a.i = F16
    inits = {t.name for t in g.initializer}
    head, tail = [], []
    for vi in g.input:
        if vi.name in inits or vi.type.tensor_type.elem_type != F32:
            continue
        h = vi.name + "_fp16"
        for n in g.node:
            n.input[:] = [h if x == vi.name else x for x in n.input]
        head.append(helper.make_node("Cast", [vi.name], [h], to=F16, name=h))
    for vi in g.output:
        if vi.type.tensor_type.elem_type != F32:
            continue
        h = vi.name + "_fp16"
        for n in g.node:
            n.output[:] = [h if x == vi.name else x for x in n.output]
            n.input[:] = [h if x == vi.name else x for x in n.input]
        tail.append(helper.make_node("Cast", [h], [vi.name], to=F32, name=vi.name + "_fp32"))
    nodes = head + list(g.node) + tail
    del g.node[:]
    g.node.extend(nodes)
    onnx.save(m, sys.argv[2])


main()
