#!/usr/bin/python3
"""real_models_inputs.py MANIFEST DIR - writes DIR/NAME.input_K.pb for each
model DIR/NAME.onnx of MANIFEST (tools/real_models.tsv): one TensorProto per
graph input (initializers excluded), in the graph's order, with the dims and
values the manifest gives (seeded from the model's name, so a rerun writes the
same bytes). Its element type is the model's. Checks the manifest against
the model: the number of inputs, their ranks, one tolerance per output."""
import sys
import zlib

import numpy as np
import onnx
from onnx import mapping, numpy_helper


def values(spec, dims, dtype, rng):
    kind, _, arg = spec.partition(":")
    if kind == "normal":
        x = rng.standard_normal(dims) * float(arg)
    elif kind == "uniform":
        lo, hi = (float(v) for v in arg.split(":"))
        x = rng.uniform(lo, hi, dims)
    elif kind == "zeros":
        x = np.zeros(dims)
    elif kind == "const":
        x = np.full(dims, float(arg))
    else:
        raise ValueError("unknown values %r" % spec)
    return np.asarray(x).astype(dtype)


def main():
    manifest, out = sys.argv[1], sys.argv[2]
    for line in open(manifest):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        name, specs = f[0], f[8].split(";")
        path = "%s/%s.onnx" % (out, name)
        try:
            model = onnx.load(path)
        except FileNotFoundError:
            continue
        inits = {i.name for i in model.graph.initializer}
        inputs = [v for v in model.graph.input if v.name not in inits]
        if len(inputs) != len(specs):
            sys.exit("real_models_inputs: %s has %d inputs, the manifest gives %d"
                     % (name, len(inputs), len(specs)))
        if len(model.graph.output) != len(f[9].split(";")):
            sys.exit("real_models_inputs: %s has %d outputs, the manifest gives %d tolerances"
                     % (name, len(model.graph.output), len(f[9].split(";"))))
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        for k, (v, spec) in enumerate(zip(inputs, specs)):
            d, _, vals = spec.partition("~")
            dims = [] if d == "-" else [int(x) for x in d.split("x")]
            t = v.type.tensor_type
            if t.HasField("shape") and len(t.shape.dim) != len(dims):
                sys.exit("real_models_inputs: %s input %r has rank %d, the manifest gives %s"
                         % (name, v.name, len(t.shape.dim), d))
            dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
            tp = numpy_helper.from_array(values(vals, dims, dtype, rng), v.name)
            with open("%s/%s.input_%d.pb" % (out, name, k), "wb") as fp:
                fp.write(tp.SerializeToString())


main()
