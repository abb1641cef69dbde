#!/usr/bin/python3
"""front_cases.py BUILD_DIR WORKDIR - the front-end's supported inputs, end to end.

Each case writes a small model with Debian's python3-onnx, runs it with
`paleozoic run` (or `inspect --json`), and checks the result against numpy:
external data with offsets, typed fields vs raw_data, every element type of
initializers, several inputs and outputs, symbolic dims bound by
--input-shape and by the input files, graph inputs that are also
initializers, and Constant nodes; then the small types (small_types.py), the
signal and quantization ops (signal_quant.py) and those of more_ops.py.
Prints `front: N passed, N failed`.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

B, W = sys.argv[1], sys.argv[2]
PZ = os.path.join(B, "paleozoic")
os.makedirs(W, exist_ok=True)
passed = failed = 0
rng = np.random.default_rng(7)


def check(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("pass front/%s" % name)
    else:
        failed += 1
        print("FAIL front/%s: %s" % (name, detail))


def save(model, name):
    path = os.path.join(W, name + ".onnx")
    onnx.save(model, path)
    return path


def model_of(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def run(path, feeds, extra=()):
    """Runs the model on feeds (numpy arrays); returns the outputs or the error."""
    args = [PZ, "run", path]
    for i, a in enumerate(feeds):
        f = os.path.join(W, "%s.in%d.pb" % (os.path.basename(path), i))
        with open(f, "wb") as fh:
            fh.write(numpy_helper.from_array(a).SerializeToString())
        args += ["--input", f]
    n_out = len(onnx.load(path, load_external_data=False).graph.output)
    outs = [os.path.join(W, "%s.out%d.pb" % (os.path.basename(path), i)) for i in range(n_out)]
    for o in outs:
        args += ["--output", o]
    r = subprocess.run(args + list(extra), capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    res = []
    for o in outs:
        t = TensorProto()
        with open(o, "rb") as fh:
            t.ParseFromString(fh.read())
        res.append(numpy_helper.to_array(t))
    return res, ""


def close(a, b):
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)


# 1. external data: two weights in one file beside the model, at offsets
x = rng.standard_normal((2, 8)).astype(np.float32)
w1 = rng.standard_normal((8, 6)).astype(np.float32)
w2 = rng.standard_normal((6, 4)).astype(np.float32)
blob = b"\0" * 16 + w1.tobytes() + b"\0" * 8 + w2.tobytes()
with open(os.path.join(W, "ext_weights.bin"), "wb") as fh:
    fh.write(blob)
inits = []
for name, arr, off in (("w1", w1, 16), ("w2", w2, 16 + w1.nbytes + 8)):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=arr.shape)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "ext_weights.bin"), ("offset", str(off)), ("length", str(arr.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    inits.append(t)
m = model_of([helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
              helper.make_node("MatMul", ["h", "w2"], ["y"], name="mm2")],
             [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], inits)
got, err = run(save(m, "external"), [x])
check(got is not None and close(got[0], x @ w1 @ w2), "external_data_offsets", err or "values differ")

# 2. typed fields (float_data, int64_data, int32_data) and raw_data give the same
b_raw = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
b_typed = helper.make_tensor("b", TensorProto.FLOAT, [4], numpy_helper.to_array(b_raw).tolist())
a = rng.standard_normal((3, 4)).astype(np.float32)
for label, init in (("raw_data", b_raw), ("float_data", b_typed)):
    m = model_of([helper.make_node("Add", ["a", "b"], ["y"], name="add")],
                 [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 4])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])], [init])
    got, err = run(save(m, "typed_" + label), [a])
    check(got is not None and close(got[0], a + numpy_helper.to_array(b_raw)), "initializer_" + label,
          err or "values differ")

# 3. every element type as an initializer, cast to float and added to x
types = [(np.float32, TensorProto.FLOAT), (np.float16, TensorProto.FLOAT16), (np.float64, TensorProto.DOUBLE),
         (np.int8, TensorProto.INT8), (np.int16, TensorProto.INT16), (np.int32, TensorProto.INT32),
         (np.int64, TensorProto.INT64), (np.uint8, TensorProto.UINT8), (np.bool_, TensorProto.BOOL)]
for npt, onnxt in types:
    vals = (rng.integers(0, 2, 5) if npt is np.bool_ else rng.integers(-100, 100, 5)).astype(npt)
    if npt is np.uint8:
        vals = rng.integers(0, 200, 5).astype(npt)
    for form in ("raw", "typed"):
        if form == "raw":
            init = numpy_helper.from_array(vals, "c")
        else:
            init = helper.make_tensor("c", onnxt, [5], vals.tolist())
        m = model_of([helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT, name="cast"),
                      helper.make_node("Add", ["x", "cf"], ["y"], name="add")],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])], [init])
        xv = rng.standard_normal(5).astype(np.float32)
        got, err = run(save(m, "dtype_%s_%s" % (np.dtype(npt).name, form)), [xv])
        check(got is not None and close(got[0], xv + vals.astype(np.float32)),
              "dtype_%s_%s" % (np.dtype(npt).name, form), err or "values differ")

# bfloat16 has no numpy type: bits in int32_data, 1.5 = 0x3fc0, -2 = 0xc000
init = TensorProto(name="c", data_type=TensorProto.BFLOAT16, dims=[2], int32_data=[0x3fc0, 0xc000])
m = model_of([helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT, name="cast"),
              helper.make_node("Add", ["x", "cf"], ["y"], name="add")],
             [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [init])
got, err = run(save(m, "dtype_bfloat16"), [np.zeros(2, np.float32)])
check(got is not None and close(got[0], np.array([1.5, -2], np.float32)), "dtype_bfloat16", err or "values differ")

# 4. several inputs and outputs, an input that is also an initializer, a Constant node
k = rng.standard_normal((3, 4)).astype(np.float32)
cst = helper.make_node("Constant", [], ["k2"], name="const",
                       value=numpy_helper.from_array(np.full((1, 4), 0.5, np.float32)))
m = model_of([cst,
              helper.make_node("Mul", ["p", "q"], ["pq"], name="mul"),
              helper.make_node("Add", ["pq", "k"], ["s"], name="add"),
              helper.make_node("Sub", ["p", "k2"], ["d"], name="sub")],
             [helper.make_tensor_value_info("p", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("q", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("k", TensorProto.FLOAT, [3, 4])],
             [helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("d", TensorProto.FLOAT, [3, 4])],
             [numpy_helper.from_array(k, "k")])
p, q = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
got, err = run(save(m, "multi_io"), [p, q])
check(got is not None and close(got[0], p * q + k) and close(got[1], p - 0.5), "several_inputs_outputs",
      err or "values differ")

# 5. symbolic dims: bound by --input-shape (inspect) and by the input file (run)
m = model_of([helper.make_node("Relu", ["x"], ["y"], name="relu")],
             [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "h"])],
             [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, "h"])])
path = save(m, "symbolic")
r = subprocess.run([PZ, "inspect", path, "--json", "--input-shape", "x=2,3,7"], capture_output=True, text=True)
shape = json.loads(r.stdout)["outputs"][0]["shape"] if r.returncode == 0 else None
check(shape == [2, 3, 7], "symbolic_input_shape", r.stderr.strip() or "shape %s" % shape)
r = subprocess.run([PZ, "inspect", path, "--json", "--input-shape", "x=2,4,7"], capture_output=True, text=True)
check(r.returncode == 2 and "dimension 1 is fixed at 3" in r.stderr, "symbolic_binding_conflict", r.stderr)
xv = rng.standard_normal((4, 3, 5)).astype(np.float32)
got, err = run(path, [xv])
check(got is not None and close(got[0], np.maximum(xv, 0)), "symbolic_bound_by_input_file", err or "values differ")

# 6. the small element types, training-mode BN, Resize antialias (small_types.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import small_types  # noqa: E402

small_types.cases({"run": run, "check": check, "save": save, "model_of": model_of, "W": W, "PZ": PZ})

# 7. signal processing and quantization ops of issue 39 (signal_quant.py)
import signal_quant  # noqa: E402

signal_quant.cases({"run": run, "check": check, "save": save, "model_of": model_of, "W": W, "PZ": PZ})

# 8. TopK, Einsum, LpPool, OneHot, ReverseSequence, TensorScatter, Det, MVN
import more_ops  # noqa: E402

more_ops.cases({"run": run, "check": check, "save": save, "model_of": model_of, "W": W, "PZ": PZ})

print("front: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
